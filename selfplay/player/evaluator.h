/* evaluator.h - the static evaluation a search calls: the classical one (eval.h) or a
 * network (nnue.h), with the state each carries along the line being searched, one entry
 * per ply: the classical evaluation's packed piece-square sum (tapered tables), a
 * network's accumulators. Both follow the line from the DirtyPiece of each move, pushed
 * when the ply is entered, so neither knows how a variant makes its moves nor reads the
 * position's undo stack.
 *
 * The search owns one Evaluator (one per thread):
 *
 *     evaluator_refresh(e, pos, 0);      // at the root of each iteration
 *     pos_make(pos, m);                  // (or pos_make_null)
 *     evaluator_enter(e, pos, pos_last_dirty(pos), ply); // entering a node below the root
 *     int v = evaluator_evaluate(e, pos, ply);
 *
 * A network's accumulators are brought up to date only when a node is evaluated (many
 * nodes end on a table hit first): enter notes which position each ply holds, and
 * evaluate applies the moves since the deepest ply whose accumulator is current. */
#ifndef CHESSVAR_SELFPLAY_EVALUATOR_H
#define CHESSVAR_SELFPLAY_EVALUATOR_H

#include <assert.h>

#include "eval.h"
#include "nnue.h"

#define EVALUATOR_PLIES 65 /* plies 0..64 of a line (the search's SEARCH_MAX_PLY + 1) */

typedef struct Evaluator {
    EvalParams classical; /* the classical evaluation's tables (built with a network too) */
    const Network *net;   /* NULL: the classical evaluation; not owned */
    /* Classical with tapered tables: the packed piece-square sum of the position at each
     * ply, carried from the parent's by the DirtyPiece. */
    bool psq_carried;
    uint64_t psq[EVALUATOR_PLIES];
    /* Network: the accumulator of each ply, whether it is current for the position the
     * ply holds now (acc_key), and that position's key. */
    NnueAcc *acc;
    NnueCacheEntry *cache; /* a king-bucket network's accumulator cache, else NULL */
    uint64_t acc_key[EVALUATOR_PLIES];
    bool acc_ok[EVALUATOR_PLIES];
    /* What the move into each ply changed, pushed by evaluator_enter when the ply is
     * entered (the move's undo record, which lives while the move stays made). */
    const DirtyPiece *dirty[EVALUATOR_PLIES];
    /* Checking (tests): every network evaluation also refreshes from scratch and counts
     * where the two accumulators differ. */
    bool verify;
    int64_t verified, mismatches;
    int64_t king_refreshes; /* refreshes because a king changed bucket or mirror */
} Evaluator;

/* Sets up e for variant v: the classical evaluation when net is NULL, else the network
 * (which must be for v and outlive e). False if out of memory. */
bool evaluator_init(Evaluator *e, const Variant *v, const Network *net);
/* Releases what evaluator_init allocated (not the network). */
void evaluator_free(Evaluator *e);

/* The packed piece-square sum of the parent plus what the move changed (tapered tables:
 * opening + ending * 2^32 per piece, so one addition serves both). */
static inline uint64_t evaluator_psq_step(const EvalParams *ep, uint64_t psq, const DirtyPiece *d) {
    for (int i = 0; i < d->n; i++) {
        int pc = d->d[i].pc, from = d->d[i].from, to = d->d[i].to;
        if (from != NO_SQ) psq -= ep->psq_pk[pc][from];
        if (to != NO_SQ) psq += ep->psq_pk[pc][to];
    }
    return psq;
}

/* The network's halves of refresh and evaluate (evaluator.c), called by the inline forms
 * below. */
void evaluator_net_refresh(Evaluator *e, const Position *pos, int ply);
int evaluator_net_evaluate(Evaluator *e, const Position *pos, int ply);

/* The state of ply computed from scratch for pos (the root of a search). */
static inline void evaluator_refresh(Evaluator *e, const Position *pos, int ply) {
    if (ply >= EVALUATOR_PLIES) return;
    if (e->net) evaluator_net_refresh(e, pos, ply);
    else if (e->psq_carried) e->psq[ply] = eval_psq_sum(&e->classical, pos);
}

/* On entering a node at ply > 0, right after the move that led to it (pos_make or
 * pos_make_null), with that move's DirtyPiece: the state of ply from the parent's and the
 * change (a network keeps the change for when the ply is evaluated). Entering the same
 * position again is harmless. */
static inline void evaluator_enter(Evaluator *e, const Position *pos, const DirtyPiece *d,
                                   int ply) {
    if (ply <= 0 || ply >= EVALUATOR_PLIES) return;
    if (e->net) {
        e->dirty[ply] = d;
        if (e->acc_key[ply] != pos->key) {
            e->acc_key[ply] = pos->key;
            e->acc_ok[ply] = false;
        }
    } else if (e->psq_carried) {
        e->psq[ply] = evaluator_psq_step(&e->classical, e->psq[ply - 1], d);
    }
}

/* Static score of pos, the position at ply, in centipawns for the side to move. */
static inline int evaluator_evaluate(Evaluator *e, const Position *pos, int ply) {
    if (e->net) return evaluator_net_evaluate(e, pos, ply);
    if (!e->psq_carried) return eval_position(&e->classical, pos);
    assert(e->psq[ply] == eval_psq_sum(&e->classical, pos));
    return eval_position_psq(&e->classical, pos, e->psq[ply]);
}

/* The built-in network (a file name of selfplay/nets/, profile.h) variant v plays with
 * unless told otherwise, or NULL for the classical evaluation. */
const char *evaluator_default_net(const Variant *v);

/* Loads the evaluation named by spec for variant v: NULL gives the variant's default (its
 * built-in network, or the classical evaluation), "classical" the classical evaluation
 * (*net NULL), anything else is a network file. False with err filled (one line naming
 * the file and the problem) when it cannot be loaded. */
bool evaluator_load(const char *spec, const Variant *v, Network **net, CvError *err);

/* How a network is named in player names and run configurations: the base name of the
 * file spec (NULL: v's built-in default) and the XXH3-64 of its bytes
 * ("chess.nnue#0123456789abcdef"), so a run resumed with another file of the same name is
 * told apart. */
void evaluator_name(const char *spec, const Variant *v, char *buf, size_t n);

#endif
