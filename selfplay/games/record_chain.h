/* record_chain.h - chain shard files (FORMAT.md, "Chain shard"): the header, blocks of
 * whole games each with its XXH3-64, and a reader that checks them, skipping a bad block
 * with a one-line message (or stopping, when strict). Also the reading of a bin shard back
 * into games, for conversions. */
#ifndef CHESSVAR_SELFPLAY_RECORD_CHAIN_H
#define CHESSVAR_SELFPLAY_RECORD_CHAIN_H

#include <stdio.h>

#include "record.h"
#include "chain.h"

/* An open chain shard and its header. */
typedef struct ChainFile {
    FILE *f;
    char path[1024];
    const Variant *var;
    uint32_t shard, first_game, games;
    uint64_t positions; /* positions written (plies not marked unwritten) */
    uint32_t bindex;    /* index of the next block */
    uint8_t *buf;       /* the current block */
    size_t cap;
    bool strict;         /* a bad block is an error, not skipped */
    const char *who;     /* the command, for messages ("train", "data") */
    uint64_t bad_blocks; /* blocks skipped */
    int version;         /* the chain version of the header: 1 to CHAIN_VERSION */
} ChainFile;

/* One block as read: its games' payload and counts. */
typedef struct ChainBlock {
    const uint8_t *payload;
    size_t len;
    uint32_t index, games, plies, positions, first_id;
    int version; /* the file's chain version, for chain_dec_init */
} ChainBlock;

/* Opens path and checks its header; false with err naming the file and the problem. */
bool chain_file_open(ChainFile *cf, const char *path, bool strict, const char *who, CvError *err);
/* Reads the next good block: 1, 0 at the end of the file, -1 with err (a strict reader
 * meeting a bad block, a read error). A bad block of a lenient reader is reported on
 * stderr ("WHO: FILE: block N ...") and skipped. */
int chain_file_block(ChainFile *cf, ChainBlock *b, CvError *err);
void chain_file_close(ChainFile *cf);

/* Whether name is "shard-NNNNNN.EXT". */
bool record_is_shard_name(const char *name, const char *ext);

/* A shard read back into games: the entries, and what its header said. */
typedef struct ShardGames {
    ShardInfo si;
    Game **games; /* si.games entries */
    uint64_t positions;
} ShardGames;

/* Reads a chain shard's games (bad blocks skipped with a message unless strict); pos is
 * scratch. False with err on a bad header, a read error or a game that does not replay. */
bool chain_read_games(const char *path, bool strict, ShardGames *sg, Position *pos, CvError *err);
/* Reads a bin shard back into games: each run of records of one game at consecutive plies,
 * each the position the move before leads to, is one entry (a whole game in a run that
 * wrote every position). False with err naming the file, the block or the record. */
bool bin_read_games(const char *path, bool strict, ShardGames *sg, Position *pos, CvError *err);
void shard_games_free(ShardGames *sg);

#endif
