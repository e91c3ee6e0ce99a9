/* record.h - training-data writers: the versioned binary format (FORMAT.md), JSONL and
 * PGN, each shard written atomically (temp file, fsync, rename, fsync of the folder). */
#ifndef CHESSVAR_SELFPLAY_RECORD_H
#define CHESSVAR_SELFPLAY_RECORD_H

#include "../files.h"
#include "game.h"

#include <stdio.h>
#include <string.h>

#define RECORD_VERSION       1
#define RECORD_HEADER_SIZE   64
#define RECORD_BLOCK_RECORDS 1024
#define RECORD_FIXED_SIZE    40 /* bytes before the board in a record */

/* Output formats; bit i is the format named record_format_name(i), written to shard files
 * with extension record_format_ext(i). */
enum {
    FORMAT_BIN = 1,
    FORMAT_JSONL = 2,
    FORMAT_PGN = 4,
    FORMAT_PLAIN = 8,
    FORMAT_SFBIN = 16,
    FORMAT_CHAIN = 32
};
#define RECORD_NFORMATS 6

/* Name of format bit i on the command line and in run.json ("bin", ..., "sfbin"). */
const char *record_format_name(int i);
/* File extension of format bit i ("sfbin" shards end in ".sf.bin", as Stockfish's
 * trainers recognise PackedSfenValue files by ".bin"). */
const char *record_format_ext(int i);
/* Whether variant v can be written in the formats of the mask (sfbin: orthodox chess
 * only); false with err naming the format and the variant. */
bool record_formats_supported(const Variant *v, int formats, CvError *err);

/* Record flags (byte 22 of a record). */
enum { RECFLAG_RANDOM = 1, RECFLAG_CHECK = 2 };

/* What the writers need besides the games. */
typedef struct ShardInfo {
    const Variant *var;
    uint32_t shard;
    uint32_t first_game;
    uint32_t games;           /* entries of the games array */
    uint32_t header_games;    /* games of the shard for file headers when they differ (parts of
                                 games read back from a bin file); 0: games */
    char player_name[2][160]; /* player A, player B, for the PGN tags */
    const char *command;      /* the command that played the games, for the PGN's Event tag
                                 ("chessvar COMMAND"; NULL: selfplay) */
} ShardInfo;

/* Bytes of one record for variant v: fixed part, board, holdings, padded to 8. */
int record_size(const Variant *v);
/* Holding types stored per colour and kind (hand, pool): npt when the variant has
 * drops or a promotion pool, else 0. */
static inline int record_hold_types(const Variant *v) {
    return (v->rules & (RULE_DROPS | RULE_POOL)) ? v->npt : 0;
}

/* Result per mille for the side to move, from the White score per mille. */
static inline int record_result_for(int white_score, int side) {
    return side == WHITE ? white_score : 1000 - white_score;
}

/* record_fill of a variant of nsq squares and ht holding types (constants where the caller
 * knows them: the chain decoder's chess, whose record is then a few stores and a copy). */
static inline __attribute__((always_inline)) void record_fill_shape(uint8_t *r, int rsize,
                                                                    const Game *g, int k,
                                                                    const Position *pos, bool check,
                                                                    int nsq, int ht) {
    const GamePly *p = &g->ply[k];
    int used = RECORD_FIXED_SIZE + nsq + 4 * ht; /* every byte below is written */
    if (used < rsize) memset(r + used, 0, (size_t)(rsize - used));
    le_put32(r + 0, g->id);
    le_put16(r + 4, (uint32_t)(k + g->ply0));
    le_put16(r + 6, p->legal);
    le_put32(r + 8, p->played);
    le_put32(r + 12, p->best);
    le_put16(r + 16, (uint16_t)p->score);
    le_put16(r + 18, (uint16_t)record_result_for(g->white_score, pos->side));
    r[20] = pos->side;
    r[21] = pos->ep;
    r[22] = (uint8_t)((p->random ? RECFLAG_RANDOM : 0) | (check ? RECFLAG_CHECK : 0));
    r[23] = (uint8_t)g->termination;
    le_put16(r + 24, pos->halfmove);
    le_put16(r + 26, p->depth);
    le_put32(r + 28, pos->castle);
    le_put64(r + 32, pos->key);
    if (nsq == 64) memcpy(r + RECORD_FIXED_SIZE, pos->board, 64); /* 8x8: a fixed copy */
    else memcpy(r + RECORD_FIXED_SIZE, pos->board, (size_t)nsq);
    uint8_t *h = r + RECORD_FIXED_SIZE + nsq;
    for (int t = 1; t <= ht; t++) {
        h[t - 1] = pos->hand[WHITE][t];
        h[ht + t - 1] = pos->hand[BLACK][t];
        h[2 * ht + t - 1] = pos->pool[WHITE][t];
        h[3 * ht + t - 1] = pos->pool[BLACK][t];
    }
}

/* Fills the rsize-byte record of the position pos before ply k of game g (check: the side
 * to move is in check). Inline: the chain decoder fills one a ply, and a call's entry and
 * exit cost chess decoding a fifth of the record's instructions. */
static inline void record_fill(uint8_t *r, int rsize, const Game *g, int k, const Position *pos,
                               bool check) {
    const Variant *v = pos->var;
    record_fill_shape(r, rsize, g, k, pos, check, v->width * v->height, record_hold_types(v));
}

/* Stockfish training formats (record_sf.c): the plain text format for every variant and
 * 40-byte PackedSfenValue records for orthodox chess; the games in game-id order. */
bool record_write_plain(FILE *f, const ShardInfo *si, Game *const *games, Position *pos,
                        CvError *err);
bool record_write_sfbin(FILE *f, const ShardInfo *si, Game *const *games, Position *pos,
                        CvError *err);

/* Chain shard (games/record_chain.c): header, then blocks of whole games, in the current
 * chain version (CHAIN_VERSION), or with _version in an older one (1) for tests. */
bool record_write_chain(FILE *f, const ShardInfo *si, Game *const *games, Position *pos,
                        CvError *err);
bool record_write_chain_version(FILE *f, const ShardInfo *si, Game *const *games, int version,
                                Position *pos, CvError *err);

/* Writes the shard in one format (one FORMAT_* bit) to an open stream, such as stdout. */
bool record_write_stream(FILE *f, int format, const ShardInfo *si, Game *const *games,
                         Position *pos, CvError *err);

/* File name of a shard in one format, e.g. "shard-000012.bin" ("json": its statistics). */
void record_shard_name(char *buf, size_t n, const char *dir, uint32_t shard, const char *ext);

/* Writes the shard's files for every format in the mask, each atomically; the games must
 * be in game-id order. pos is scratch for replaying the games. */
bool record_write_shard(const char *dir, int formats, const ShardInfo *si, Game *const *games,
                        Position *pos, CvError *err);

#endif
