/* dataset.h - reading self-play run folders (binary shards, FORMAT.md) for training: the
 * shards of one or more folders, a filter (searched positions only, optionally not in check
 * and not with a capture as best move), a validation split by game, and an endless stream
 * through a shuffle buffer, shard order reshuffled every epoch. Memory: the buffer and one
 * block, never the dataset. */
#ifndef CHESSVAR_SELFPLAY_DATASET_H
#define CHESSVAR_SELFPLAY_DATASET_H

#include <stdio.h>

#include "../../engine/chessvar.h"

/* Offsets of the fields of a record the trainer reads (FORMAT.md). */
enum {
    REC_GAME = 0,
    REC_BEST = 12,
    REC_SCORE = 16,
    REC_RESULT = 18,
    REC_SIDE = 20,
    REC_FLAGS = 22,
    REC_BOARD = 40
};

typedef struct DataShard {
    char *path;
    uint64_t records;
    bool chain; /* a chain shard (decoded into records as it is read), else bin */
} DataShard;

/* The shards of the folders, all of one variant and record size. */
typedef struct DataSet {
    const Variant *var;
    int width, height, nsq, npt, hld, rsize;
    int nshards;
    DataShard *shards;
    uint64_t records;
} DataSet;

/* Opens every shard-*.chain of the comma-separated folders (or, in a folder without
 * any, every shard-*.bin) and checks their headers agree.
 * False with err naming the folder or file and the problem. */
bool dataset_open(DataSet *ds, const char *dirs, CvError *err);
void dataset_close(DataSet *ds);

/* Which records a stream gives. */
typedef struct DataFilter {
    bool skip_check;    /* drop positions with the side to move in check */
    bool skip_captures; /* drop positions whose best move captures */
    int max_score;      /* drop |score| above this (mates, lost causes) */
    int val_permille;   /* games whose id hashes below this (of 1000) are the validation set */
    bool validation;    /* give the validation games instead of the training games */
} DataFilter;

/* Whether record r passes the filter (training or validation side). */
bool data_keep(const DataSet *ds, const DataFilter *f, const uint8_t *r);

/* Holdings of a record as [colour][type] counts (zero when the variant has none). */
void data_holdings(const DataSet *ds, const uint8_t *r, uint8_t hand[2][MAX_PT],
                   uint8_t pool[2][MAX_PT]);

typedef struct DataStream {
    const DataSet *ds;
    DataFilter filter;
    uint64_t seed, rng;
    bool loop;            /* endless (epochs) or one pass in file order */
    int epoch;            /* completed passes over the shards */
    int *order;           /* shard order of this epoch */
    int oi;               /* index into order of the open shard */
    FILE *f;              /* the open shard */
    uint8_t *block;       /* the current block's records */
    size_t block_cap;     /* records block has room for */
    struct ChainFile *cf; /* the open shard when it is a chain */
    struct Game *game;    /* a chain's game being decoded */
    Position *pos;        /* its replay */
    int bn, bi;           /* records in the block, next one */
    uint32_t bindex;      /* index of the next block in the shard */
    uint8_t *buf;         /* shuffle buffer: cap records */
    size_t cap, fill;
    uint64_t kept, bad_blocks;
    uint64_t epoch_kept; /* records kept in this epoch so far */
    bool block_kept;     /* the block holds only records the filter keeps (a chain's) */
    uint32_t keep_game;  /* the game whose validation split keep_val holds */
    bool keep_game_set, keep_val;
} DataStream;

/* A stream over ds: loop with shuffle buffer of cap records (0: no shuffling), or one pass. */
bool stream_init(DataStream *s, const DataSet *ds, const DataFilter *f, bool loop, size_t cap,
                 uint64_t seed, CvError *err);
/* Copies the next record into rec: 1, or 0 at the end of a one-pass stream, or -1 with err
 * (no record passes the filter, a file cannot be read). */
int stream_next(DataStream *s, uint8_t *rec, CvError *err);
void stream_free(DataStream *s);

#endif
