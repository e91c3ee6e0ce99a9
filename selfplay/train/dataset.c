/* dataset.c - run folders as a stream of training records: shard discovery and header
 * checks, block checksums, filtering, the validation split and the shuffle buffer. */
#define _POSIX_C_SOURCE 200809L /* strdup, strtok_r */
#include "dataset.h"

#include "../files.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "../games/record.h"
#include "../games/record_chain.h"

/* Whether name is "shard-NNNNNN.bin" (not the ".sf.bin" Stockfish records), or with chain
 * "shard-NNNNNN.chain". */
static bool dataset_is_shard(const char *name, bool chain) {
    return record_is_shard_name(name, chain ? "chain" : "bin");
}

/* Whether the folder holds chain shards (which the trainer then reads instead of bin). */
static bool dataset_has_chains(DIR *d) {
    bool any = false;
    for (struct dirent *e; (e = readdir(d)) && !any;) any = dataset_is_shard(e->d_name, true);
    rewinddir(d);
    return any;
}

/* The first shard's variant v (named name in the shard) sets the set's shape; every later
 * shard must be of the same variant. */
static bool dataset_take_variant(DataSet *ds, const DataShard *sh, const Variant *v,
                                 const char *name, bool first, CvError *err) {
    if (first) {
        ds->var = v;
        ds->width = v->width;
        ds->height = v->height;
        ds->nsq = v->width * v->height;
        ds->npt = v->npt;
        ds->hld = record_hold_types(v);
        ds->rsize = record_size(v);
    } else if (v != ds->var) {
        snprintf(err->msg, sizeof err->msg, "%s: variant %s, the other shards are %s", sh->path,
                 name, ds->var->name);
        return false;
    }
    return true;
}

/* Reads a chain shard's header into the set's shape, as dataset_header does for bin. */
static bool dataset_chain_header(DataSet *ds, DataShard *sh, bool first, CvError *err) {
    ChainFile cf;
    if (!chain_file_open(&cf, sh->path, false, "train", err)) return false;
    const Variant *v = cf.var;
    sh->records = cf.positions;
    chain_file_close(&cf);
    return dataset_take_variant(ds, sh, v, v->name, first, err);
}

static int dataset_cmp_path(const void *a, const void *b) {
    return strcmp(((const DataShard *)a)->path, ((const DataShard *)b)->path);
}

/* Reads and checks the header of one shard; fills the set's shape from the first. */
static bool dataset_header(DataSet *ds, DataShard *sh, bool first, CvError *err) {
    if (sh->chain) return dataset_chain_header(ds, sh, first, err);
    FILE *f = fopen(sh->path, "rb");
    uint8_t h[RECORD_HEADER_SIZE];
    bool ok = f && fread(h, 1, sizeof h, f) == sizeof h;
    if (f) fclose(f);
    if (!ok) {
        snprintf(err->msg, sizeof err->msg, "%s: cannot read its header", sh->path);
        return false;
    }
    if (memcmp(h, "CVSPDATA", 8) != 0 || XXH3_64bits(h, 56) != le_get64(h + 56)) {
        snprintf(err->msg, sizeof err->msg, "%s: not a shard or a corrupt header", sh->path);
        return false;
    }
    if (le_get16(h + 8) != RECORD_VERSION) {
        snprintf(err->msg, sizeof err->msg, "%s: shard version %u, this program reads %d", sh->path,
                 le_get16(h + 8), RECORD_VERSION);
        return false;
    }
    char name[17] = {0};
    memcpy(name, h + 40, 16);
    const Variant *v = variant_by_name(name);
    if (!v) {
        snprintf(err->msg, sizeof err->msg, "%s: unknown variant '%s'", sh->path, name);
        return false;
    }
    int rsize = (int)le_get16(h + 12);
    if (rsize != record_size(v) || h[16] != v->width || h[17] != v->height || h[18] != v->npt ||
        h[19] != record_hold_types(v) || le_get16(h + 14) != RECORD_BLOCK_RECORDS) {
        snprintf(err->msg, sizeof err->msg, "%s: header does not match variant %s's records",
                 sh->path, name);
        return false;
    }
    if (!dataset_take_variant(ds, sh, v, name, first, err)) return false;
    sh->records = le_get64(h + 32);
    return true;
}

bool dataset_open(DataSet *ds, const char *dirs, CvError *err) {
    memset(ds, 0, sizeof *ds);
    char *list = strdup(dirs), *save = NULL;
    int cap = 0;
    for (char *dir = strtok_r(list, ",", &save); dir; dir = strtok_r(NULL, ",", &save)) {
        DIR *d = opendir(dir);
        if (!d) {
            snprintf(err->msg, sizeof err->msg, "%s: cannot open the folder", dir);
            goto fail;
        }
        int before = ds->nshards;
        bool chain = dataset_has_chains(d);
        for (struct dirent *e; (e = readdir(d));) {
            if (!dataset_is_shard(e->d_name, chain)) continue;
            if (ds->nshards == cap) {
                cap = cap ? cap * 2 : 64;
                ds->shards = realloc(ds->shards, (size_t)cap * sizeof *ds->shards);
            }
            size_t n = strlen(dir) + strlen(e->d_name) + 2;
            char *p = malloc(n);
            snprintf(p, n, "%s/%s", dir, e->d_name);
            ds->shards[ds->nshards++] = (DataShard){p, 0, chain};
        }
        closedir(d);
        if (ds->nshards == before) {
            snprintf(err->msg, sizeof err->msg,
                     "%s: no shard-*.bin or shard-*.chain files (a run made with "
                     "--format bin or chain)",
                     dir);
            goto fail;
        }
        qsort(ds->shards + before, (size_t)(ds->nshards - before), sizeof *ds->shards,
              dataset_cmp_path);
    }
    if (!ds->nshards) {
        snprintf(err->msg, sizeof err->msg, "no data folder given");
        goto fail;
    }
    for (int i = 0; i < ds->nshards; i++) {
        if (!dataset_header(ds, &ds->shards[i], i == 0, err)) goto fail;
        ds->records += ds->shards[i].records;
    }
    free(list);
    return true;
fail:
    free(list);
    dataset_close(ds);
    return false;
}

void dataset_close(DataSet *ds) {
    for (int i = 0; i < ds->nshards; i++) free(ds->shards[i].path);
    free(ds->shards);
    memset(ds, 0, sizeof *ds);
}

/* Whether move m captures something on board (a position's piece codes, side to move):
 * its target, an e.p. or multi-capture, or a mid-move victim holds or is an enemy. */
static bool data_move_captures(int nsq, const uint8_t *board, int side, Move m) {
    int kind = MOVE_KIND(m), to = MOVE_TO(m), mid = MOVE_MID(m);
    if (kind == MK_EP || kind == MK_MULTI) return true;
    if (kind == MK_SWITCH || kind == MK_DROP || kind == MK_CASTLE) return false;
    if (to < nsq && board[to] && PC_COLOR(board[to]) != side) return true;
    return mid != NO_SQ && mid < nsq && board[mid] && PC_COLOR(board[mid]) != side;
}

/* Whether the best move of record r captures something. */
static bool data_best_captures(const DataSet *ds, const uint8_t *r) {
    return data_move_captures(ds->nsq, r + REC_BOARD, r[REC_SIDE], le_get32(r + REC_BEST));
}

/* Whether game id falls in the validation split. */
static bool data_is_validation(const DataFilter *f, uint32_t game) {
    uint8_t le[4] = {(uint8_t)game, (uint8_t)(game >> 8), (uint8_t)(game >> 16),
                     (uint8_t)(game >> 24)};
    return XXH3_64bits(le, 4) % 1000 < (uint64_t)f->val_permille;
}

bool data_keep(const DataSet *ds, const DataFilter *f, const uint8_t *r) {
    if (data_is_validation(f, le_get32(r + REC_GAME)) != f->validation) return false;
    if (le_get32(r + REC_BEST) == MOVE_NONE || (r[REC_FLAGS] & RECFLAG_RANDOM)) return false;
    int score = (int16_t)le_get16(r + REC_SCORE);
    if (score > f->max_score || score < -f->max_score) return false;
    if (f->skip_check && (r[REC_FLAGS] & RECFLAG_CHECK)) return false;
    if (f->skip_captures && data_best_captures(ds, r)) return false;
    return true;
}

/* data_keep of the record a chain's ply k of g would fill, asked before filling it (the
 * chain decoder's keep hook): the same decisions from the game and the position, the
 * validation split of a game's id computed once per game. */
static bool stream_chain_keep(void *ctx, const Game *g, int k, const Position *pos, int *check) {
    DataStream *s = ctx;
    const DataFilter *f = &s->filter;
    const GamePly *p = &g->ply[k];
    if (p->best == MOVE_NONE || p->random) return false;
    if (p->score > f->max_score || p->score < -f->max_score) return false;
    if (f->skip_check) {
        if (*check < 0) *check = pos_in_check(pos);
        if (*check) return false;
    }
    if (g->id != s->keep_game || !s->keep_game_set) {
        s->keep_game = g->id;
        s->keep_game_set = true;
        s->keep_val = data_is_validation(f, g->id);
    }
    if (s->keep_val != f->validation) return false;
    return !f->skip_captures || !data_move_captures(s->ds->nsq, pos->board, pos->side, p->best);
}

void data_holdings(const DataSet *ds, const uint8_t *r, uint8_t hand[2][MAX_PT],
                   uint8_t pool[2][MAX_PT]) {
    memset(hand, 0, 2 * MAX_PT);
    memset(pool, 0, 2 * MAX_PT);
    const uint8_t *h = r + REC_BOARD + ds->nsq;
    for (int t = 1; t <= ds->hld; t++) {
        hand[WHITE][t] = h[t - 1];
        hand[BLACK][t] = h[ds->hld + t - 1];
        pool[WHITE][t] = h[2 * ds->hld + t - 1];
        pool[BLACK][t] = h[3 * ds->hld + t - 1];
    }
}

/* ---------------------------------------------------------------- the stream */

/* Shard order of an epoch: a seeded Fisher-Yates shuffle (file order without looping). */
static void stream_order(DataStream *s) {
    int n = s->ds->nshards;
    for (int i = 0; i < n; i++) s->order[i] = i;
    if (!s->loop) return;
    uint64_t st = s->seed ^ (0x9E3779B97F4A7C15ULL * (uint64_t)(s->epoch + 1));
    for (int i = n - 1; i > 0; i--) {
        int j = (int)(splitmix64_next(&st) % (uint64_t)(i + 1));
        int t = s->order[i];
        s->order[i] = s->order[j];
        s->order[j] = t;
    }
}

/* Decodes the next good block of the open chain shard into s->block: 1, or 0 at the end
 * of the shard. A bad block, or one whose replay meets an illegal move, is reported on
 * stderr naming the file, the block (and the game and ply) and skipped. */
static int stream_chain_block(DataStream *s) {
    const DataSet *ds = s->ds;
    ChainBlock b;
    CvError err = {{0}};
    for (;;) {
        uint64_t bad = s->cf->bad_blocks;
        int r = chain_file_block(s->cf, &b, &err);
        s->bad_blocks += s->cf->bad_blocks - bad;
        if (r <= 0) return 0;
        if (b.positions > s->block_cap) {
            uint8_t *p = realloc(s->block, (size_t)b.positions * (size_t)ds->rsize + 16);
            if (!p) return 0;
            s->block = p;
            s->block_cap = b.positions;
        }
        ChainDec d; /* records go where a bin block's do: after an 8-byte head */
        uint64_t n = 0;
        bool ok = chain_dec_init(&d, b.payload, b.len, b.first_id, b.version);
        d.keep = stream_chain_keep; /* only the records the filter keeps are filled */
        d.no_legal = true;          /* the trainer never reads a record's `legal` */
        d.keep_ctx = s;
        for (uint32_t k = 0; ok && k < b.games; k++)
            ok = chain_dec_game(&d, ds->var, s->game, s->pos, s->block + 8, ds->rsize, &n, &err) &&
                 n <= s->block_cap;
        chain_dec_free(&d);
        if (!ok) {
            fprintf(stderr, "train: %s: block %u: %s, skipped\n", s->cf->path, b.index,
                    err.msg[0] ? err.msg : "more positions than its head says");
            s->bad_blocks++;
            continue;
        }
        s->bn = (int)n;
        s->bi = 0;
        s->block_kept = true;
        if (n) return 1;
    }
}

/* Loads the next good block into s->block: true, or false at the end of the pass. Blocks
 * that fail their checksum and shards that cannot be read are reported on stderr and
 * skipped. */
static bool stream_block(DataStream *s) {
    const DataSet *ds = s->ds;
    if (s->cf) {
        if (stream_chain_block(s)) return true;
        chain_file_close(s->cf);
        free(s->cf);
        s->cf = NULL;
        s->oi++;
    }
    if (s->oi < ds->nshards && ds->shards[s->order[s->oi]].chain && !s->f) {
        CvError err = {{0}};
        s->cf = malloc(sizeof *s->cf);
        if (s->cf &&
            !chain_file_open(s->cf, ds->shards[s->order[s->oi]].path, false, "train", &err)) {
            fprintf(stderr, "train: %s, skipped\n", err.msg);
            free(s->cf);
            s->cf = NULL;
            s->oi++;
            s->bad_blocks++;
        }
        return stream_block(s);
    }
    size_t full = 8 + (size_t)RECORD_BLOCK_RECORDS * (size_t)ds->rsize + 8;
    for (;;) {
        if (!s->f) {
            if (s->oi >= ds->nshards) return false;
            if (ds->shards[s->order[s->oi]].chain) return stream_block(s);
            const char *path = ds->shards[s->order[s->oi]].path;
            s->f = fopen(path, "rb");
            if (!s->f || fseek(s->f, RECORD_HEADER_SIZE, SEEK_SET) != 0) {
                fprintf(stderr, "train: %s: cannot read it, skipped\n", path);
                if (s->f) fclose(s->f);
                s->f = NULL;
                s->oi++;
                s->bad_blocks++;
                continue;
            }
            s->bindex = 0;
        }
        size_t got = fread(s->block, 1, full, s->f);
        if (got < 8 + 8) {
            fclose(s->f);
            s->f = NULL;
            s->oi++;
            continue;
        }
        uint32_t n = le_get32(s->block), index = le_get32(s->block + 4);
        size_t len = 8 + (size_t)n * (size_t)ds->rsize;
        bool ok = n >= 1 && n <= RECORD_BLOCK_RECORDS && len + 8 <= got && index == s->bindex &&
                  XXH3_64bits(s->block, len) == le_get64(s->block + len);
        s->bindex++;
        if (!ok) {
            fprintf(stderr, "train: %s: block %u fails its checks, skipped\n",
                    ds->shards[s->order[s->oi]].path, s->bindex - 1);
            s->bad_blocks++;
            continue;
        }
        s->bn = (int)n;
        s->bi = 0;
        s->block_kept = false;
        return true;
    }
}

/* The next record passing the filter, straight from the files; 0 at the end of a pass of a
 * one-pass stream, -1 when a whole pass kept nothing. */
static int stream_raw(DataStream *s, const uint8_t **rec, CvError *err) {
    for (;;) {
        while (s->bi < s->bn) {
            const uint8_t *r = s->block + 8 + (size_t)s->bi++ * (size_t)s->ds->rsize;
            if (s->block_kept || data_keep(s->ds, &s->filter, r)) {
                *rec = r;
                s->kept++;
                s->epoch_kept++;
                return 1;
            }
        }
        if (stream_block(s)) continue;
        if (!s->loop) return 0;
        if (!s->epoch_kept) {
            snprintf(err->msg, sizeof err->msg, "no %s position passes the filter in %llu records",
                     s->filter.validation ? "validation" : "training",
                     (unsigned long long)s->ds->records);
            return -1;
        }
        s->epoch++;
        s->epoch_kept = 0;
        s->oi = 0;
        stream_order(s);
    }
}

bool stream_init(DataStream *s, const DataSet *ds, const DataFilter *f, bool loop, size_t cap,
                 uint64_t seed, CvError *err) {
    memset(s, 0, sizeof *s);
    s->ds = ds;
    s->filter = *f;
    s->seed = seed;
    s->rng = seed ^ 0x5DEECE66DULL;
    s->loop = loop;
    s->cap = loop ? cap : 0;
    s->order = malloc((size_t)ds->nshards * sizeof *s->order);
    s->block = malloc(16 + (size_t)RECORD_BLOCK_RECORDS * (size_t)ds->rsize);
    s->block_cap = RECORD_BLOCK_RECORDS;
    s->game = malloc(game_size(MAX_GAME_PLY));
    s->pos = malloc(sizeof *s->pos);
    s->buf = s->cap ? malloc(s->cap * (size_t)ds->rsize) : NULL;
    if (!s->order || !s->block || !s->game || !s->pos || (s->cap && !s->buf)) {
        snprintf(err->msg, sizeof err->msg, "out of memory for a shuffle buffer of %zu records",
                 s->cap);
        stream_free(s);
        return false;
    }
    stream_order(s);
    return true;
}

int stream_next(DataStream *s, uint8_t *rec, CvError *err) {
    size_t rs = (size_t)s->ds->rsize;
    const uint8_t *r;
    while (s->fill < s->cap) { /* the first calls fill the buffer */
        if (stream_raw(s, &r, err) < 0) return -1;
        memcpy(s->buf + s->fill++ * rs, r, rs);
    }
    int got = stream_raw(s, &r, err);
    if (got <= 0 || !s->cap) {
        if (got > 0) memcpy(rec, r, rs);
        return got;
    }
    /* a random slot goes out, the new record takes its place */
    size_t j = (size_t)(splitmix64_next(&s->rng) % s->cap);
    memcpy(rec, s->buf + j * rs, rs);
    memcpy(s->buf + j * rs, r, rs);
    return 1;
}

void stream_free(DataStream *s) {
    if (s->f) fclose(s->f);
    if (s->cf) chain_file_close(s->cf);
    free(s->cf);
    free(s->game);
    free(s->pos);
    free(s->order);
    free(s->block);
    free(s->buf);
    memset(s, 0, sizeof *s);
}
