/* filter.h - which positions of a played game go into the position files (bin, jsonl,
 * plain, sfbin): those from a given ply on, until the search score first leaves a band,
 * and, with a key table, only positions whose Zobrist key the run has not written yet.
 * The games themselves (PGN, statistics) are always kept whole. */
#ifndef CHESSVAR_SELFPLAY_FILTER_H
#define CHESSVAR_SELFPLAY_FILTER_H

#include "game.h"

/* What a run leaves out of its position files; all zero keeps every position. */
typedef struct FilterSpec {
    int min_ply;     /* positions before this ply of the game are left out */
    int eval_limit;  /* > 0: from the first position whose |score| exceeds it, the rest of
                        the game is left out */
    int dedup_bits;  /* > 0: a key table of 2^dedup_bits keys drops repeated positions */
    int max_ply;     /* > 0: positions from this ply of the game on are left out */
    bool skip_draws; /* drawn games (White's score 500) leave all their positions out */
} FilterSpec;

/* True when the spec leaves nothing out. */
static inline bool filter_keeps_all(const FilterSpec *f) {
    return f->min_ply <= 0 && f->eval_limit <= 0 && f->dedup_bits <= 0 && f->max_ply <= 0 &&
           !f->skip_draws;
}

#define KEYTABLE_WAYS 4 /* keys per bucket */

/* The Zobrist keys of positions written so far, in bounded memory: 2^bits keys in
 * buckets of KEYTABLE_WAYS. A key found is a position written before; a key not found
 * goes in, replacing, when its bucket is full, the way its own high bits name. So the
 * table may forget an old key (a repeat then passes) but never drops a new position, and
 * its content depends only on the keys added, in order. */
typedef struct KeyTable {
    uint64_t *slot; /* 0: empty */
    uint64_t mask;  /* buckets - 1 */
} KeyTable;

/* Allocates a table of 2^bits keys (bits >= 2); false if out of memory. */
bool keytable_init(KeyTable *t, int bits);
void keytable_free(KeyTable *t);
/* True if key was not in the table (it is now); false if it was. */
bool keytable_add(KeyTable *t, uint64_t key);

/* Marks each ply of g written or not (GamePly.unwritten) as the spec says, and with a
 * table (t non-NULL; v the game's variant) also drops positions whose key it holds and adds the
 * others, their keys appended to keys (room for g->nply) in order; pos is scratch for the replay.
 * Returns how many positions are written. */
uint32_t filter_game(Game *g, const FilterSpec *f, KeyTable *t, const Variant *v, Position *pos,
                     uint64_t *keys);

/* Writes keys[0..n) (little-endian) to path atomically: the keys a shard added, which a
 * resumed run adds again to rebuild its table. */
bool filter_write_keys(const char *path, const uint64_t *keys, size_t n, CvError *err);

/* Adds the n keys of a file written by filter_write_keys to t, in order; false (t
 * unchanged) if the file is missing or does not hold exactly n keys. */
bool filter_load_keys(const char *path, KeyTable *t, uint64_t n);

#endif
