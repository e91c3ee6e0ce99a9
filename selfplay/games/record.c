/* record.c - binary, JSONL and PGN writers of self-play shards, each committed atomically. */
#define _POSIX_C_SOURCE 200809L
#include "record.h"

#include "../profile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <xxhash.h>

/* Record size of a variant, rounded to 8 bytes so records stay aligned. */
int record_size(const Variant *v) {
    int n = RECORD_FIXED_SIZE + v->width * v->height + 4 * record_hold_types(v);
    return (n + 7) & ~7;
}

/* Command-line names and file extensions of the formats, by bit. */
static const char *const record_names[RECORD_NFORMATS] = {"bin",   "jsonl", "pgn",
                                                          "plain", "sfbin", "chain"};
static const char *const record_exts[RECORD_NFORMATS] = {"bin",   "jsonl",  "pgn",
                                                         "plain", "sf.bin", "chain"};

/* Name of format bit i. */
const char *record_format_name(int i) { return record_names[i]; }

/* Extension of format bit i. */
const char *record_format_ext(int i) { return record_exts[i]; }

/* PackedSfenValue knows only the orthodox pieces and moves: the profile says who fits. */
bool record_formats_supported(const Variant *v, int formats, CvError *err) {
    if ((formats & FORMAT_SFBIN) && !profile_of(v)->sfbin) {
        snprintf(err->msg, sizeof err->msg,
                 "--format sfbin (Stockfish PackedSfenValue) is for orthodox chess only, not "
                 "'%s'; use --format plain",
                 v->name);
        return false;
    }
    return true;
}

/* Path of one of a shard's files. */
void record_shard_name(char *buf, size_t n, const char *dir, uint32_t shard, const char *ext) {
    snprintf(buf, n, "%s/shard-%06u.%s", dir, (unsigned)shard, ext);
}

/* Writes one block: count, index, records, XXH3-64 of all that. */
static void record_flush_block(FILE *f, uint8_t *block, int nrec, int rsize, uint32_t index) {
    le_put32(block, (uint32_t)nrec);
    le_put32(block + 4, index);
    size_t len = 8 + (size_t)nrec * (size_t)rsize;
    le_put64(block + len, XXH3_64bits(block, len));
    fwrite(block, 1, len + 8, f);
}

/* The 64-byte file header; see FORMAT.md. */
static void record_header(uint8_t *h, const ShardInfo *si, uint64_t records) {
    const Variant *v = si->var;
    memset(h, 0, RECORD_HEADER_SIZE);
    memcpy(h, "CVSPDATA", 8);
    le_put16(h + 8, RECORD_VERSION);
    le_put16(h + 10, RECORD_HEADER_SIZE);
    le_put16(h + 12, (uint32_t)record_size(v));
    le_put16(h + 14, RECORD_BLOCK_RECORDS);
    h[16] = v->width;
    h[17] = v->height;
    h[18] = v->npt;
    h[19] = (uint8_t)record_hold_types(v);
    le_put32(h + 20, si->shard);
    le_put32(h + 24, si->first_game);
    le_put32(h + 28, si->header_games ? si->header_games : si->games);
    le_put64(h + 32, records);
    snprintf((char *)h + 40, 16, "%s", v->name);
    le_put64(h + 56, XXH3_64bits(h, 56));
}

/* Binary shard: header, then blocks of up to RECORD_BLOCK_RECORDS records. */
static bool record_write_bin(FILE *f, const ShardInfo *si, Game *const *games, Position *pos,
                             CvError *err) {
    int rsize = record_size(si->var);
    uint8_t *block = malloc(16 + (size_t)RECORD_BLOCK_RECORDS * (size_t)rsize);
    if (!block) {
        snprintf(err->msg, sizeof err->msg, "out of memory");
        return false;
    }
    uint64_t records = 0;
    for (uint32_t i = 0; i < si->games; i++)
        for (int k = 0; k < games[i]->nply; k++) records += !games[i]->ply[k].unwritten;
    uint8_t hdr[RECORD_HEADER_SIZE];
    record_header(hdr, si, records);
    fwrite(hdr, 1, sizeof hdr, f);
    int nrec = 0;
    uint32_t nblock = 0;
    for (uint32_t i = 0; i < si->games; i++) {
        const Game *g = games[i];
        if (!pos_from_fen(pos, si->var, g->start_fen, err)) break;
        for (int k = 0; k < g->nply; k++) {
            if (g->ply[k].unwritten) {
                pos_make(pos, g->ply[k].played);
                continue;
            }
            record_fill(block + 8 + (size_t)nrec * (size_t)rsize, rsize, g, k, pos,
                        pos_in_check(pos));
            if (++nrec == RECORD_BLOCK_RECORDS) {
                record_flush_block(f, block, nrec, rsize, nblock++);
                nrec = 0;
            }
            pos_make(pos, g->ply[k].played);
        }
    }
    if (nrec > 0) record_flush_block(f, block, nrec, rsize, nblock);
    free(block);
    return true;
}

/* JSONL shard: one JSON object per position. */
static bool record_write_jsonl(FILE *f, const ShardInfo *si, Game *const *games, Position *pos,
                               CvError *err) {
    char fen[512], mv[32], best[32];
    for (uint32_t i = 0; i < si->games; i++) {
        const Game *g = games[i];
        if (!pos_from_fen(pos, si->var, g->start_fen, err)) return false;
        for (int k = 0; k < g->nply; k++) {
            const GamePly *p = &g->ply[k];
            if (p->unwritten) {
                pos_make(pos, p->played);
                continue;
            }
            pos_to_fen(pos, fen, sizeof fen);
            move_to_str(pos, p->played, mv);
            if (p->best) move_to_str(pos, p->best, best);
            fprintf(f, "{\"game\":%u,\"ply\":%d,\"fen\":\"%s\",\"legal\":%u,\"move\":\"%s\",",
                    (unsigned)g->id, k + g->ply0, fen, (unsigned)p->legal, mv);
            if (p->best)
                fprintf(f, "\"best\":\"%s\",\"score\":%d,\"depth\":%d,", best, p->score, p->depth);
            else fprintf(f, "\"best\":null,\"score\":null,\"depth\":null,");
            fprintf(f, "\"random\":%s,\"result\":%d,\"termination\":\"%s\"}\n",
                    p->random ? "true" : "false", record_result_for(g->white_score, pos->side),
                    game_term_name(g->termination));
            pos_make(pos, p->played);
        }
    }
    return true;
}

/* PGN result token of a White score per mille. */
static const char *record_pgn_result(int ws) {
    return ws > 500 ? "1-0" : ws < 500 ? "0-1" : "1/2-1/2";
}

/* PGN shard: one game each, Variant and FEN tags, moves in the variant's notation. */
static bool record_write_pgn(FILE *f, const ShardInfo *si, Game *const *games, Position *pos,
                             CvError *err) {
    char mv[32];
    for (uint32_t i = 0; i < si->games; i++) {
        const Game *g = games[i];
        if (!pos_from_fen(pos, si->var, g->start_fen, err)) return false;
        const char *white = si->player_name[g->a_is_white ? 0 : 1];
        const char *black = si->player_name[g->a_is_white ? 1 : 0];
        fprintf(f, "[Event \"chessvar %s\"]\n[Site \"?\"]\n[Date \"????.??.??\"]\n[Round \"%u\"]\n",
                si->command ? si->command : "selfplay", (unsigned)g->id);
        fprintf(f, "[White \"%s\"]\n[Black \"%s\"]\n[Result \"%s\"]\n", white, black,
                record_pgn_result(g->white_score));
        fprintf(f, "[Variant \"%s\"]\n[SetUp \"1\"]\n[FEN \"%s\"]\n", si->var->name, g->start_fen);
        fprintf(f, "[Termination \"%s\"]\n[PlyCount \"%d\"]\n", game_term_name(g->termination),
                g->nply);
        if (g->reason[0]) { /* TERM_ENGINE: what the engine did */
            fprintf(f, "[TerminationDetail \"");
            for (const char *c = g->reason; *c; c++)
                if (*c != '"' && *c != '\\') fputc(*c, f);
            fprintf(f, "\"]\n");
        }
        if (g->white_score != 0 && g->white_score != 500 && g->white_score != 1000)
            fprintf(f, "[WhiteScore \"%d/1000\"]\n", g->white_score);
        fprintf(f, "\n");
        int col = 0;
        for (int k = 0; k < g->nply; k++) {
            char num[24] = "";
            if (pos->side == WHITE) snprintf(num, sizeof num, "%u. ", (unsigned)pos->fullmove);
            else if (k == 0) snprintf(num, sizeof num, "%u... ", (unsigned)pos->fullmove);
            move_to_str(pos, g->ply[k].played, mv);
            int len = (int)(strlen(num) + strlen(mv) + 1);
            if (col + len > 79) {
                fputc('\n', f);
                col = 0;
            }
            col += fprintf(f, "%s%s ", num, mv);
            pos_make(pos, g->ply[k].played);
        }
        fprintf(f, "%s\n\n", record_pgn_result(g->white_score));
    }
    return true;
}

/* The writer of each format, by bit. */
typedef bool (*RecordWriter)(FILE *, const ShardInfo *, Game *const *, Position *, CvError *);
static const struct {
    int flag;
    const char *ext;
    RecordWriter write;
} record_writers[] = {
    {FORMAT_BIN, "bin", record_write_bin},        {FORMAT_JSONL, "jsonl", record_write_jsonl},
    {FORMAT_PGN, "pgn", record_write_pgn},        {FORMAT_PLAIN, "plain", record_write_plain},
    {FORMAT_SFBIN, "sf.bin", record_write_sfbin}, {FORMAT_CHAIN, "chain", record_write_chain},
};
#define RECORD_NWRITERS (sizeof record_writers / sizeof record_writers[0])

/* Writes the shard in one format to f (a pipe: chessvar data convert --out -). */
bool record_write_stream(FILE *f, int format, const ShardInfo *si, Game *const *games,
                         Position *pos, CvError *err) {
    for (size_t i = 0; i < RECORD_NWRITERS; i++)
        if (record_writers[i].flag == format)
            return record_writers[i].write(f, si, games, pos, err);
    snprintf(err->msg, sizeof err->msg, "no writer for format %d", format);
    return false;
}

/* Writes every requested format of one shard, each file committed atomically. */
bool record_write_shard(const char *dir, int formats, const ShardInfo *si, Game *const *games,
                        Position *pos, CvError *err) {
    for (size_t i = 0; i < RECORD_NWRITERS; i++) {
        if (!(formats & record_writers[i].flag)) continue;
        char path[1024], tmp[1100];
        record_shard_name(path, sizeof path, dir, si->shard, record_writers[i].ext);
        FILE *f = file_open_tmp(path, tmp, sizeof tmp, err);
        if (!f) return false;
        if (!record_writers[i].write(f, si, games, pos, err)) {
            fclose(f);
            remove(tmp);
            return false;
        }
        if (!file_commit(f, tmp, path, err)) return false;
    }
    return true;
}
