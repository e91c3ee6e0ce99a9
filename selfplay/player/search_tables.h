/* search_tables.h - the search's transposition table and correction history (internal to
 * selfplay/): probe, store, mate scores relative to the node, and the corrected static
 * evaluation; and its per-node caches: the evaluation cache, the check status, and the
 * prefetches of a node's slots. */
#ifndef CHESSVAR_SEARCH_TABLES_H
#define CHESSVAR_SEARCH_TABLES_H

#include "endings.h"
#include "search.h"

#include <assert.h>

enum { BOUND_NONE = 0, BOUND_UPPER = 1, BOUND_LOWER = 2, BOUND_EXACT = 3 };

#define CORR_GRAIN  256               /* correction history: units per centipawn, */
#define CORR_MAX    (64 * CORR_GRAIN) /* largest correction, */
#define CORR_WEIGHT 256 /* and the weight of a depth-d update: min(d + 1, 16) / CORR_WEIGHT */

/* Mate score as stored in the table: distance from this node, not from the root. */
static inline int search_to_tt(int score, int ply) {
    return score > SEARCH_MATE_BOUND    ? score + ply
           : score < -SEARCH_MATE_BOUND ? score - ply
                                        : score;
}
/* Mate score read from the table, made relative to the root again. */
static inline int search_from_tt(int score, int ply) {
    return score > SEARCH_MATE_BOUND    ? score - ply
           : score < -SEARCH_MATE_BOUND ? score + ply
                                        : score;
}

/* The slot of key, and whether it holds key. */
static inline TTEntry *search_tt_probe(Search *s, uint64_t key, bool *hit) {
    TTEntry *e = &s->tt[key & s->tt_mask];
    *hit = (e->gen_bound & 3) != BOUND_NONE && e->check == (uint32_t)(key >> 32);
    return e;
}

/* Stores a result in the slot of key, replacing an entry of an older search, of the same
 * position, or one not deeper than this one (plus a small allowance); exact scores always
 * replace. */
static inline void search_tt_store(Search *s, uint64_t key, int depth, int bound, int score,
                                   int eval, Move m, int ply) {
    TTEntry *e = &s->tt[key & s->tt_mask];
    uint32_t check = (uint32_t)(key >> 32);
    bool same = e->check == check;
    if (!same && (e->gen_bound >> 2) == s->gen && e->depth > depth + 2 && bound != BOUND_EXACT)
        return;
    if (same && m == MOVE_NONE) m = e->move; /* keep the old move when this node found none */
    e->check = check;
    e->move = m;
    e->score = (int16_t)search_to_tt(score, ply);
    e->eval = (int16_t)eval;
    e->depth = (int8_t)depth;
    e->gen_bound = (uint8_t)(s->gen << 2 | bound);
}

/* The correction-history entry of pos: by side to move and a hash of where each side's
 * pawn-like pieces stand (bitboards, 8x8 or 10x10). */
static inline int16_t *search_corr_entry(Search *s, const Position *pos) {
    uint64_t w = 0, b = 0;
    for (unsigned m = s->pawn_types; m; m &= m - 1) {
        int t = __builtin_ctz(m);
        if (pos->nsq <= 64) {
            w |= pos->bb.b8.type[t] & pos->bb.b8.color[WHITE];
            b |= pos->bb.b8.type[t] & pos->bb.b8.color[BLACK];
        } else {
            Bitboard128 pw = pos->bb.b10.type[t] & pos->bb.b10.color[WHITE];
            Bitboard128 pb = pos->bb.b10.type[t] & pos->bb.b10.color[BLACK];
            w ^= (uint64_t)pw ^ (uint64_t)(pw >> 64) * 0xD6E8FEB86659FD93ULL;
            b ^= (uint64_t)pb ^ (uint64_t)(pb >> 64) * 0xD6E8FEB86659FD93ULL;
        }
    }
    uint64_t h = (w * 0x9E3779B97F4A7C15ULL) ^ (b * 0xC2B2AE3D27D4EB4FULL);
    h ^= h >> 29;
    return &s->corr[pos->side][(h * 0xBF58476D1CE4E5B9ULL) >> 50 & (SEARCH_CORR_SIZE - 1)];
}

/* The static evaluation raw corrected by the correction history (raw when it is no score). */
static inline int search_corrected(const int16_t *c, int raw) {
    if (raw == -SEARCH_INF) return raw;
    int v = raw + *c / CORR_GRAIN;
    return v > SEARCH_MATE_BOUND - 1    ? SEARCH_MATE_BOUND - 1
           : v < -SEARCH_MATE_BOUND + 1 ? -SEARCH_MATE_BOUND + 1
                                        : v;
}

/* Moves a correction entry toward diff (search result - corrected evaluation), more the
 * deeper the search. */
static inline void search_corr_update(int16_t *c, int diff, int depth) {
    int w = depth + 1 < 16 ? depth + 1 : 16;
    int v = (*c * (CORR_WEIGHT - w) + diff * CORR_GRAIN * w) / CORR_WEIGHT;
    *c = (int16_t)(v > CORR_MAX ? CORR_MAX : v < -CORR_MAX ? -CORR_MAX : v);
}

_Static_assert(SEARCH_EVC_BITS >= 16, "the index must cover the key bits the score replaces");

/* The static evaluation of pos, from the evaluation cache when it holds the position. An
 * entry is the key with its low 16 bits replaced by the score (the index is below them),
 * and 0 when empty. */
static inline int search_eval(Search *s, const Position *pos, int ply) {
    uint64_t *c = &s->eval_cache[pos->key & (SEARCH_EVC_SIZE - 1)];
    uint64_t tag = pos->key & ~(uint64_t)0xFFFF;
    if (tag && (*c & ~(uint64_t)0xFFFF) == tag) return (int16_t)(*c & 0xFFFF);
    int v = evaluator_evaluate(&s->eval, pos, ply);
    if (s->scale_endings) v = ending_scale_score(pos, s->value, v);
    *c = tag | (uint16_t)(int16_t)v;
    return v;
}

/* Starts loading the table slot and the evaluation-cache slot of pos: the two reads a node
 * makes first are the search's dearest (cache misses), and asked for together they overlap
 * with each other and with the work before them. */
static inline void search_prefetch_key(const Search *s, uint64_t key) {
    __builtin_prefetch(&s->tt[key & s->tt_mask]);
    __builtin_prefetch(&s->eval_cache[key & (SEARCH_EVC_SIZE - 1)]);
}
static inline void search_prefetch(const Search *s, const Position *pos) {
    search_prefetch_key(s, pos->key);
}

/* Whether the side to move in pos, the position at ply, is in check: asked once per
 * position, since a parent that asked after its move leaves the answer with the key. */
static inline bool search_in_check(Search *s, const Position *pos, int ply) {
    if (ply > SEARCH_MAX_PLY) return pos_in_check(pos);
    if (s->check_key[ply] != pos->key) {
        s->check_key[ply] = pos->key;
        s->check_at[ply] = pos_in_check(pos);
    }
    return s->check_at[ply];
}

#endif
