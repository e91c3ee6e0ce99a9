/* search_steps.h - the search's tunables and the rules of its selective search (internal
 * to selfplay/): each pruning, reduction and extension rule of search_node, and the
 * quiescence search's table cut-off, as a small function named by what it decides.
 * search.c holds the steps that search (null move, ProbCut, the singular test, the
 * principal-variation search of a move) and the node that runs them in order. */
#ifndef CHESSVAR_SEARCH_STEPS_H
#define CHESSVAR_SEARCH_STEPS_H

#include "search.h"
#include "search_order.h"
#include "search_tables.h"

/* The search's tunables (centipawns and plies). The margins that scale with the evaluation
 * are in Search.tune (search.h; UCI options): reverse futility s->tune.rfp_margin a ply (80),
 * futility s->tune.futility_margin a ply (150), razoring s->tune.razor_margin a ply (250),
 * quiescence delta s->tune.qs_delta (200), ProbCut s->tune.probcut_margin above beta (200),
 * a null-move ply more per s->tune.null_eval_r above beta (200), aspiration half-width
 * s->tune.asp_window at first (30). */
#define QSEARCH_MAX  8     /* capture plies searched below the horizon */
#define POLL_NODES   1024  /* nodes between two looks at the clock and the stop flag */
#define RFP_DEPTH    6     /* reverse futility pruning: at depths up to this, */
#define FUT_DEPTH    3     /* futility pruning of quiet moves: at depths up to this, */
#define LMP_DEPTH    4     /* late-move pruning: at depths up to this */
#define ASP_DEPTH    4     /* aspiration windows: from this depth, */
#define HP_DEPTH     3     /* history pruning of quiet moves: at depths up to this, */
#define HP_MARGIN    4000  /* below minus this much history per ply */
#define SE_DEPTH     6     /* singular extension: from this depth, */
#define SE_MARGIN    2     /* the singular bound this far below the table's score per ply */
#define DE_MARGIN    20    /* double extension: this far below the singular bound, */
#define DE_MAX       6     /* at most this many times along a line */
#define CONT_LMR_DIV 10000 /* late-move reduction: one ply less per this much history */
#define PC_DEPTH     5     /* ProbCut: from this depth, */
#define PC_REDUCTION 4     /* verified by a search this much shallower */
#define RAZOR_DEPTH  2     /* razoring: at depths up to this, */
#define NULL_DEPTH   2     /* null move: from this depth */
#define IIR_DEPTH    4     /* internal iterative reduction: from this depth */
#define SEE_DEPTH    6     /* SEE pruning: at depths up to this, */
#define SEE_QUIET    30    /* quiet moves losing more than this per ply squared, */
#define SEE_CAPTURE  100   /* and captures losing more than this per ply */
#define NEAR_DEPTH                                                                                 \
    3                        /* a table entry at most this much shallower counts as nearly as      \
                                deep (ProbCut's and the singular test's conditions) */
#define PC_STORE_LESS  3     /* ProbCut's cut is stored this much shallower than the node */
#define NULL_BASE_R    3     /* null move reduction: this many plies, */
#define NULL_DEPTH_R   4     /* one more per this much depth, */
#define NULL_EVAL_RMAX 3     /* at most this many for the evaluation */
#define LMR_BASE       1.0   /* late-move reduction of move i at depth d: LMR_BASE + */
#define LMR_DIV        1.5   /* ln(d) ln(i) / LMR_DIV plies, */
#define LMR_MAX        30    /* at most this many */
#define SEE_ROYAL      20000 /* a royal piece's value in exchanges: more than any material */
#define STALEMATE_CP_PER_MILLE                                                                     \
    40 /* a stalemate's per-mille score to centipawns: a lost                                      \
          stalemate (0) is -20000, below any material */

/* The late-move reduction table's entry for the i-th move at depth (both capped at 63). */
static inline int search_lmr(const Search *s, int depth, int i) {
    return s->lmr[depth < 64 ? depth : 63][i < 64 ? i : 63];
}

/* Whether a stored result (its bound and score) answers a search in [alpha, beta]. */
static inline bool search_bound_settles(int bound, int score, int alpha, int beta) {
    return bound == BOUND_EXACT || (bound == BOUND_LOWER && score >= beta) ||
           (bound == BOUND_UPPER && score <= alpha);
}

/* Whether the side to move has enough pieces besides royals and pawns (hand pieces count)
 * for a null move: with fewer, zugzwang is likely and passing would lie. */
static inline bool search_null_material(const Search *s, const Position *pos) {
    const Variant *v = pos->var;
    int pieces = 0;
    for (int t = 1; t <= v->npt; t++) {
        if (v->pieces[t].flags & (PF_ROYAL | PF_PAWN | PF_PAWN_PIECE | PF_PROMOTES)) continue;
        pieces += pos->count[PC_MAKE(pos->side, t)] + pos->hand[pos->side][t];
        if (pieces >= s->null_min_pieces) return true;
    }
    return false;
}

/* Whether a node below the root is a draw by rule: fifty moves without a capture or pawn
 * move, or a repetition on the line. */
static inline bool search_draw_by_rule(const Position *pos) {
    return pos->halfmove >= 100 || search_repeated(pos, 1);
}

/* Mate-distance pruning: narrows [*alpha, *beta] to the scores a mate from ply can still
 * reach; whether nothing is left to search (the node's answer is then *alpha). */
static inline bool search_mate_distance_prunes(int ply, int *alpha, int *beta) {
    int lo = -SEARCH_MATE + ply, hi = SEARCH_MATE - ply - 1;
    if (*alpha < lo) *alpha = lo;
    if (*beta > hi) *beta = hi;
    return *alpha >= *beta;
}

/* Whether the node may be pruned whole (reverse futility, razoring, null move, ProbCut):
 * a null-window node below the root, not in check, not a singular-extension search, and
 * beta not a mate score. */
static inline bool search_node_prunable(bool pvnode, bool check, int ply, Move excl, int beta) {
    return !pvnode && !check && ply > 0 && excl == MOVE_NONE && beta > -SEARCH_MATE_BOUND &&
           beta < SEARCH_MATE_BOUND;
}

/* Reverse futility pruning: the evaluation is above beta by a margin per ply left (one ply
 * less when improving), so the node is taken to fail high. */
static inline bool search_reverse_futility_prunes(const Search *s, int depth, int ev, int beta,
                                                  bool improving) {
    return depth <= RFP_DEPTH && ev - s->tune.rfp_margin * (depth - improving) >= beta;
}

/* Razoring: in the last plies, an evaluation a margin per ply below alpha asks a
 * quiescence search whether anything raises it. */
static inline bool search_razoring_applies(const Search *s, int depth, int ev, int alpha) {
    return depth <= RAZOR_DEPTH && ev + s->tune.razor_margin * depth <= alpha;
}

/* Whether to try a null move: deep enough, the evaluation at or above beta, the last move
 * not a null move, and pieces enough that passing is not a lie (search_null_material). */
static inline bool search_null_move_allowed(const Search *s, const Position *pos, int depth, int ev,
                                            int beta) {
    return depth >= NULL_DEPTH && ev >= beta && pos->stack[pos->ply - 1].move != MOVE_NONE &&
           search_null_material(s, pos);
}

/* The null move's reduction: 3 plies, one more per 4 of depth, and one more per 200 of
 * evaluation above beta (at most 3). */
static inline int search_null_reduction(const Search *s, int depth, int ev, int beta) {
    int above = (ev - beta) / s->tune.null_eval_r;
    return NULL_BASE_R + depth / NULL_DEPTH_R + (above < NULL_EVAL_RMAX ? above : NULL_EVAL_RMAX);
}

/* Whether to try ProbCut for pc_beta: deep enough, an exact exchange test, pc_beta no mate
 * score, and the table does not say a search nearly as deep fell short of it. */
static inline bool search_probcut_applies(const Search *s, int depth, int pc_beta, bool hit,
                                          int tt_depth, int tt_score) {
    return depth >= PC_DEPTH && s->see && pc_beta < SEARCH_MATE_BOUND &&
           !(hit && tt_depth >= depth - NEAR_DEPTH && tt_score < pc_beta);
}

/* Internal iterative reduction: a deep node without a hash move is searched a ply less. */
static inline bool search_iir_reduces(int depth, Move hash) {
    return depth >= IIR_DEPTH && hash == MOVE_NONE;
}

/* Whether to test the hash move for singularity: deep enough, below the root, not inside
 * such a test, and the table's score a lower bound from nearly this depth, no mate score. */
static inline bool search_singular_applies(int ply, int depth, Move hash, Move excl, int tt_bound,
                                           int tt_depth, int tt_score) {
    return ply > 0 && depth >= SE_DEPTH && hash != MOVE_NONE && excl == MOVE_NONE &&
           (tt_bound & BOUND_LOWER) && tt_depth >= depth - NEAR_DEPTH &&
           tt_score > -SEARCH_MATE_BOUND && tt_score < SEARCH_MATE_BOUND;
}

/* Puts the hash move first in list[0..n); its index there (-1: not in the list), so the
 * other moves are scored only if it does not cut off. */
static inline int search_hash_first(Move *list, int n, Move hash) {
    for (int j = 0; hash != MOVE_NONE && j < n; j++)
        if (list[j] == hash) {
            list[j] = list[0];
            list[0] = hash;
            return j;
        }
    return -1;
}

/* Whether m, taking victim's value, is quiet: no capture, blast or promotion (a drop's
 * piece type is no promotion). */
static inline bool search_is_quiet(Move m, int victim) {
    return victim == 0 && MOVE_KIND(m) != MK_MULTI && !(MOVE_PROMO(m) && MOVE_KIND(m) != MK_DROP);
}

/* Late-move pruning: how many quiet moves a shallow node tries, (3 + depth^2) / 2, twice
 * that when improving. */
static inline int search_late_move_count(int depth, bool improving) {
    return (3 + depth * depth) / (improving ? 1 : 2);
}

/* Late-move pruning: a shallow node has tried its count of quiet moves. */
static inline bool search_late_move_prunes(int depth, int nquiet, int late_count) {
    return depth <= LMP_DEPTH && nquiet >= late_count;
}

/* Whether every move after one late-move pruning would be pruned too, so the loop may
 * stop: moves come best-scored first, and after one ordered by history alone (a score
 * below 2^22) only such quiet moves remain where no move removes pieces it does not land
 * on (see_bound). */
static inline bool search_rest_pruned(const Search *s, bool scored, int order_score) {
    return s->see_bound && scored && order_score < ORDER_BAD_CAPTURE;
}

/* History pruning: a shallow quiet move, neither the hash move nor a killer, whose history
 * (butterfly plus continuation) is below -HP_MARGIN per ply has kept failing here. */
static inline bool search_history_prunes(int depth, bool refutation, int history) {
    return depth <= HP_DEPTH && !refutation && history < -HP_MARGIN * depth;
}

/* SEE pruning: at shallow depths, the exchange m starts on its target square loses more
 * than SEE_QUIET per ply squared (quiet moves) or SEE_CAPTURE per ply (captures). */
static inline bool search_see_prunes(const Search *s, const Position *pos, Move m, bool quiet,
                                     int depth) {
    return depth <= SEE_DEPTH &&
           !pos_see_ge(pos, m, quiet ? -SEE_QUIET * depth * depth : -SEE_CAPTURE * depth,
                       s->see_value);
}

/* Futility pruning of a shallow node's quiet moves: the evaluation plus a margin per ply
 * stays at or below alpha. */
static inline bool search_futility_applies(const Search *s, int depth, int ev, int alpha) {
    return depth <= FUT_DEPTH && ev + s->tune.futility_margin * depth <= alpha;
}

/* Futility of the i-th move of a deeper node, by the depth its late-move reduction would
 * leave it. */
static inline bool search_futile_when_reduced(const Search *s, int depth, int i, int ev,
                                              int alpha) {
    int reduced = depth - 1 - search_lmr(s, depth, i);
    if (reduced < 0) reduced = 0;
    return reduced < FUT_DEPTH && ev + s->tune.futility_margin * (reduced + 1) <= alpha;
}

/* Whether the i-th move (i >= 1) is searched reduced first: a quiet move that gives no
 * check, from depth 2, out of check, past the first two moves (three in PV nodes). */
static inline bool search_reduces(int depth, int i, bool quiet, bool check, bool gives_check,
                                  bool pvnode) {
    return depth >= 2 && quiet && !check && !gives_check && i >= (pvnode ? 3 : 2);
}

/* Late-move reduction of the i-th move: the table's, one ply more in a null-window node,
 * when not improving and at an expected cut node, one less for the hash move and killers,
 * and one less per CONT_LMR_DIV of history (more for a negative one); it leaves the child
 * at least one ply. */
static inline int search_reduction(const Search *s, int depth, int i, bool pvnode, bool improving,
                                   bool refutation, bool cut, int history, int child_depth) {
    int r = search_lmr(s, depth, i);
    r += !pvnode + !improving - refutation + cut;
    r -= history / CONT_LMR_DIV;
    if (r > child_depth - 1) r = child_depth - 1;
    if (r < 0) r = 0;
    return r;
}

/* Whether the node's result teaches the correction history: a static evaluation ev was
 * made, the result is no mate score and exact or bounds ev on the far side, and no capture
 * made the difference. */
static inline bool search_corr_learns(const Search *s, const Position *pos, const int16_t *corr,
                                      int raw, int ev, int best, int bound, Move best_move) {
    return corr && raw != -SEARCH_INF && best > -SEARCH_MATE_BOUND && best < SEARCH_MATE_BOUND &&
           (best_move == MOVE_NONE || search_victim_value(s, pos, best_move) == 0) &&
           !(bound == BOUND_LOWER && best <= ev) && !(bound == BOUND_UPPER && best >= ev);
}

#endif
