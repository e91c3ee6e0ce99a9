/* search.c - the self-play player's search: iterative deepening at the root (search_run),
 * the alpha-beta node with its pruning, reductions and extensions (search_node), and the
 * quiescence search below it (search_quiesce). See search.h for the whole. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include "search.h"
#include "search_order.h"
#include "search_tables.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The search's tunables (centipawns and plies). */
#define QSEARCH_MAX  8     /* capture plies searched below the horizon */
#define POLL_NODES   1024  /* nodes between two looks at the clock and the stop flag */
#define QS_DELTA     200   /* quiescence: delta pruning margin */
#define RFP_DEPTH    6     /* reverse futility pruning: at depths up to this, */
#define RFP_MARGIN   80    /* with this margin per ply */
#define FUT_DEPTH    3     /* futility pruning of quiet moves: at depths up to this, */
#define FUT_MARGIN   150   /* with this margin per ply */
#define LMP_DEPTH    4     /* late-move pruning: at depths up to this */
#define ASP_DEPTH    4     /* aspiration windows: from this depth, */
#define ASP_WINDOW   30    /* this half-width at first */
#define HP_DEPTH     3     /* history pruning of quiet moves: at depths up to this, */
#define HP_MARGIN    4000  /* below minus this much history per ply */
#define SE_DEPTH     6     /* singular extension: from this depth, */
#define SE_MARGIN    2     /* the singular bound this far below the table's score per ply */
#define DE_MARGIN    20    /* double extension: this far below the singular bound, */
#define DE_MAX       6     /* at most this many times along a line */
#define CONT_LMR_DIV 10000 /* late-move reduction: one ply less per this much history */
#define PC_DEPTH     5     /* ProbCut: from this depth, */
#define PC_MARGIN    200   /* this far above beta */
#define RAZOR_MARGIN 250   /* razoring at depth <= 2: margin per ply */
#define SEE_DEPTH    6     /* SEE pruning: at depths up to this, */
#define SEE_QUIET    30    /* quiet moves losing more than this per ply squared, */
#define SEE_CAPTURE  100   /* and captures losing more than this per ply */

/* Monotonic clock in nanoseconds. */
static int64_t search_now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Natural logarithm of x >= 1 by the atanh series (no libm; only for the LMR table). */
static double search_ln(double x) {
    double y = (x - 1) / (x + 1), y2 = y * y, term = y, sum = 0;
    for (int k = 1; k < 200; k += 2) {
        sum += term / k;
        term *= y2;
    }
    return 2 * sum;
}

/* Sets the variant-dependent switches of the selective search (see README "How the player
 * searches"): null move off in Supremo endings with fewer than two pieces besides royals
 * and pawns, since its stalemate wins and zugzwang decide them; the capture bound
 * victim - attacker only where every capture removes exactly one piece. */
static void search_variant_setup(Search *s, const Variant *v) {
    s->null_min_pieces = 1;
    s->see_bound = true;
    for (int t = 1; t <= v->npt; t++) {
        const PieceDef *pd = &v->pieces[t];
        if (pd->flags & PF_BLAST) s->see_bound = false;
        for (int c = 0; c < pd->ncomp; c++)
            if (pd->comp[c].kind == MC_DLEAP) s->see_bound = false;
    }
    if (v->stalemate_score != 500) s->null_min_pieces = 2;
    s->see = v->ops->see_ge != NULL;
    s->pawn_types = 0;
    for (int t = 1; t <= v->npt; t++)
        if (v->pieces[t].flags & PF_PAWN_PIECE) s->pawn_types |= 1u << t;
    for (int t = 1; t <= v->npt; t++)
        s->see_value[t] = v->pieces[t].flags & PF_ROYAL ? 20000 : s->value[t];
    /* search_max_gain: the types worth something, dearest first (a stable order), the
     * promoting types, and what a promotion can add (the dearest value, at least 1). */
    s->ngain = 0;
    s->promo_types = 0;
    s->promo_gain = 1;
    for (int t = 1; t <= v->npt; t++) {
        if (v->pieces[t].flags & PF_PROMOTES) s->promo_types |= 1u << t;
        if (s->value[t] > s->promo_gain) s->promo_gain = s->value[t];
        if (s->value[t] <= 0) continue;
        int i = s->ngain++;
        for (; i > 0 && s->value[s->gain_type[i - 1]] < s->value[t]; i--)
            s->gain_type[i] = s->gain_type[i - 1];
        s->gain_type[i] = (uint8_t)t;
    }
    double ln[64];
    for (int x = 1; x < 64; x++) ln[x] = search_ln(x);
    for (int d = 0; d < 64; d++)
        for (int i = 0; i < 64; i++) {
            double r = d && i ? 1.0 + ln[d] * ln[i] / 1.5 : 0;
            s->lmr[d][i] = (int8_t)(r > 30 ? 30 : r);
        }
}

Search *search_new(const Variant *v, int tt_bits) {
    Search *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    size_t n = (size_t)1 << tt_bits;
    s->tt = calloc(n, sizeof *s->tt);
    if (!s->tt) {
        free(s);
        return NULL;
    }
    s->tt_mask = n - 1;
    s->cont_n = 2 * (v->npt + 1) * v->width * v->height;
    for (int pc = 0; pc < 64; pc++)
        s->cont_base[pc] = (PC_COLOR(pc) * (v->npt + 1) + PC_TYPE(pc)) * v->width * v->height;
    s->cont = calloc((size_t)s->cont_n * s->cont_n, sizeof *s->cont);
    s->capt = calloc((size_t)s->cont_n * MAX_PT, sizeof *s->capt);
    s->evc = calloc(SEARCH_EVC_SIZE, sizeof *s->evc);
    if (!s->cont || !s->capt || !s->evc) {
        search_free(s);
        return NULL;
    }
    if (!evaluator_init(&s->eval, v, NULL)) {
        search_free(s);
        return NULL;
    }
    eval_piece_values(v, s->value);
    search_variant_setup(s, v);
    return s;
}

bool search_set_network(Search *s, const Network *net) {
    const Variant *v = s->eval.classical.var;
    evaluator_free(&s->eval);
    s->used = true; /* the table and the evaluation cache hold the other evaluation's scores */
    search_clear(s);
    if (evaluator_init(&s->eval, v, net)) return true;
    evaluator_init(&s->eval, v, NULL);
    return false;
}

/* Releases a search and its table. */
void search_free(Search *s) {
    if (!s) return;
    evaluator_free(&s->eval);
    free(s->tt);
    free(s->cont);
    free(s->capt);
    free(s->evc);
    free(s);
}

/* Forgets everything learnt (table, killers, counter-moves, the histories, the evaluation
 * cache), so the next game does not depend on the previous one. */
void search_clear(Search *s) {
    if (!s->used) return; /* as allocated: all zero, and its pages not yet touched */
    s->used = false;
    memset(s->tt, 0, (s->tt_mask + 1) * sizeof *s->tt);
    memset(s->killers, 0, sizeof s->killers);
    memset(s->history, 0, sizeof s->history);
    memset(s->counter, 0, sizeof s->counter);
    memset(s->cont, 0, (size_t)s->cont_n * s->cont_n * sizeof *s->cont);
    memset(s->capt, 0, (size_t)s->cont_n * MAX_PT * sizeof *s->capt);
    memset(s->corr, 0, sizeof s->corr);
    memset(s->evc, 0, SEARCH_EVC_SIZE * sizeof *s->evc);
    s->gen = 0;
}

/* Default budget: from the board size and the drop rule, the two things that set the
 * branching factor (see search.h). */
int64_t search_default_nodes(const Variant *v) {
    if (v->width * v->height > 64) return 20000;
    return v->rules & RULE_DROPS ? 6000 : 4000;
}

int search_default_tt_bits(const Variant *v) { return v->width * v->height > 64 ? 16 : 14; }

/* Per mille of the first 1000 slots (or all, if fewer) written by the current generation. */
int search_hashfull(const Search *s) {
    size_t n = s->tt_mask + 1 < 1000 ? s->tt_mask + 1 : 1000, used = 0;
    for (size_t i = 0; i < n; i++)
        if ((s->tt[i].gen_bound & 3) != BOUND_NONE && (s->tt[i].gen_bound >> 2) == s->gen) used++;
    return (int)(used * 1000 / n);
}

/* Counts earlier occurrences of the current key, same side to move, back to the last irreversible
 * move. */
bool search_repeated(const Position *pos, int times) {
    int window = pos->halfmove < pos->ply ? pos->halfmove : pos->ply;
    int seen = 0;
    for (int i = pos->ply - 2; i >= pos->ply - window; i -= 2)
        if (pos->stack[i].key == pos->key && ++seen >= times) return true;
    return false;
}

/* Score of a stalemate for the side to move: the variant's per-mille score mapped so a
 * lost stalemate is worse than any material but better than being mated. */
static int search_stalemate_score(const Position *pos) {
    return (pos->var->stalemate_score - 500) * 40;
}

/* Looks at the node budget, the clock and the external stop flag; raises s->stop when
 * one of them says so, else sets when to look next. */
static void search_poll(Search *s) {
    if (s->nodes >= s->node_limit) {
        s->stop = true;
        return;
    }
    if (!s->ext_stop && !s->hard_ns) {
        s->next_check = s->node_limit;
        return;
    }
    if ((s->ext_stop && atomic_load_explicit(s->ext_stop, memory_order_relaxed)) ||
        (s->hard_ns && search_now_ns() >= s->hard_ns)) {
        s->stop = true;
        return;
    }
    s->next_check = s->nodes + POLL_NODES < s->node_limit ? s->nodes + POLL_NODES : s->node_limit;
}

/* Counts a node; every so often checks the budget. */
static inline void search_count(Search *s) {
    if (++s->nodes >= s->next_check) search_poll(s);
}

/* The late-move reduction table's entry for the i-th move at depth (both capped at 63). */
static inline int search_lmr(const Search *s, int depth, int i) {
    return s->lmr[depth < 64 ? depth : 63][i < 64 ? i : 63];
}

/* Records m followed by the child's PV as the PV of ply. */
static inline void search_update_pv(Search *s, int ply, Move m) {
    s->pv[ply][0] = m;
    int n = ply + 1 <= SEARCH_MAX_PLY ? s->pvlen[ply + 1] : 0;
    if (n > SEARCH_MAX_PLY - 1) n = SEARCH_MAX_PLY - 1;
    memcpy(&s->pv[ply][1], s->pv[ply + 1], (size_t)n * sizeof(Move));
    s->pvlen[ply] = n + 1;
}

/* Most material one capture can win here: the dearest enemy piece on the board, plus a
 * promotion's gain when the side to move has a promoting piece (blasts may take several
 * pieces: no bound then). */
static int search_max_gain(const Search *s, const Position *pos) {
    if (!s->see_bound) return SEARCH_INF;
    int best = 0;
    for (int i = 0; i < s->ngain; i++)
        if (pos->count[PC_MAKE(pos->side ^ 1, s->gain_type[i])]) {
            best = s->value[s->gain_type[i]];
            break;
        }
    for (unsigned m = s->promo_types; m; m &= m - 1)
        if (pos->count[PC_MAKE(pos->side, __builtin_ctz(m))]) return best + s->promo_gain;
    return best;
}

/* Captures-only search below the horizon (all evasions when in check), with delta pruning:
 * a capture that cannot lift the score to alpha even with a margin is not searched. */
static int search_quiesce(Search *s, Position *pos, int alpha, int beta, int ply, int qdepth) {
    search_prefetch(s, pos);
    evaluator_enter(&s->eval, pos, ply);
    search_count(s);
    s->pvlen[ply] = 0;
    if (s->stop) return 0;
    if (ply > s->seldepth) s->seldepth = ply;
    if (ply >= SEARCH_MAX_PLY) return search_eval(s, pos, ply);
    bool hit, pvnode = beta - alpha > 1 && !s->nopv;
    TTEntry *e = search_tt_probe(s, pos->key, &hit);
    if (hit && !pvnode) { /* any stored result is at least as deep as this one */
        int ts = search_from_tt(e->score, ply), bound = e->gen_bound & 3;
        if (bound == BOUND_EXACT || (bound == BOUND_LOWER && ts >= beta) ||
            (bound == BOUND_UPPER && ts <= alpha))
            return ts;
    }
    bool check = search_in_check(s, pos, ply);
    int best = -SEARCH_INF, stand = -SEARCH_INF, raw = -SEARCH_INF, alpha0 = alpha;
    Move best_move = MOVE_NONE;
    if (!check) {
        raw = hit && e->eval != -SEARCH_INF ? e->eval : search_eval(s, pos, ply);
        best = stand = search_corrected(search_corr_entry(s, pos), raw);
        if (best >= beta) {
            if (!hit) search_tt_store(s, pos->key, 0, BOUND_LOWER, best, raw, MOVE_NONE, ply);
            return best;
        }
        if (qdepth >= QSEARCH_MAX) return best;
        if (stand + search_max_gain(s, pos) + QS_DELTA <= alpha) return best; /* big delta */
        if (best > alpha) alpha = best;
    }
    Move *list = s->moves[ply];
    int *sc = s->scores[ply];
    int n = check ? -1 : pos_legal_captures(pos, list); /* -1: no capture generator */
    if (n == 0) return best;                            /* no capture: the stand-pat score */
    if (n < 0) n = pos_legal_moves(pos, list);
    if (n == 0) return check ? -SEARCH_MATE + ply : search_stalemate_score(pos);
    if (!check) { /* keep captures (and blasts, checked after the make), scored MVV-LVA */
        int k = 0;
        for (int i = 0; i < n; i++) {
            Move m = list[i];
            int victim = search_victim_value(s, pos, m);
            if (victim == 0 && MOVE_KIND(m) != MK_MULTI) continue;
            bool promo = MOVE_PROMO(m) && MOVE_KIND(m) != MK_DROP;
            if (MOVE_KIND(m) != MK_MULTI && !promo && stand + victim + QS_DELTA <= alpha) {
                if (stand + victim + QS_DELTA > best) best = stand + victim + QS_DELTA;
                continue; /* delta pruning */
            }
            int attacker = search_attacker_value(s, pos, m);
            if (s->see && victim < attacker && !pos_see_ge(pos, m, 0, s->see_value))
                continue; /* loses material */
            sc[k] = victim * 16 - attacker / 16;
            list[k++] = m;
            search_prefetch_key(s, pos_key_after(pos, m));
        }
        n = k;
    } else {
        search_score_moves(s, pos, list, sc, n, MOVE_NONE, SEARCH_MAX_PLY);
    }
    for (int i = 0; i < n; i++) {
        search_pick(list, sc, n, i);
        Move m = list[i];
        pos_make(pos, m);
        const Undo *u = &pos->stack[pos->ply - 1];
        if (!check && MOVE_KIND(m) == MK_MULTI && !u->captured && !u->nvict) {
            pos_unmake(pos); /* a blast move that removed nothing is quiet */
            continue;
        }
        int score = -search_quiesce(s, pos, -beta, -alpha, ply + 1, qdepth + 1);
        pos_unmake(pos);
        if (s->stop) return 0;
        if (score > best) {
            best = score;
            if (score > alpha) {
                alpha = score;
                best_move = m;
                if (score >= beta) break;
            }
        }
    }
    int bound = best >= beta ? BOUND_LOWER : best > alpha0 ? BOUND_EXACT : BOUND_UPPER;
    search_tt_store(s, pos->key, 0, bound, best, raw, best_move, ply);
    return best;
}

/* Whether the side to move has enough pieces besides royals and pawns (hand pieces count)
 * for a null move: with fewer, zugzwang is likely and passing would lie. */
static bool search_null_material(const Search *s, const Position *pos) {
    const Variant *v = pos->var;
    int pieces = 0;
    for (int t = 1; t <= v->npt; t++) {
        if (v->pieces[t].flags & (PF_ROYAL | PF_PAWN | PF_PAWN_PIECE | PF_PROMOTES)) continue;
        pieces += pos->count[PC_MAKE(pos->side, t)] + pos->hand[pos->side][t];
        if (pieces >= s->null_min_pieces) return true;
    }
    return false;
}

/* Principal-variation alpha-beta to `depth` plies, then quiescence; selective: mate-distance
 * pruning, check extension, reverse futility, razoring, null move, ProbCut, internal iterative
 * reduction, singular and double extensions (and the negative extension), late-move,
 * history, SEE and futility pruning, late-move reductions. cut: an expected cut node
 * (reduced more). */
static int search_node(Search *s, Position *pos, int depth, int alpha, int beta, int ply,
                       bool cut) {
    search_prefetch(s, pos);
    evaluator_enter(&s->eval, pos, ply);
    bool pvnode = beta - alpha > 1 && !s->nopv;
    s->pvlen[ply] = 0;
    if (ply > 0) {
        if (pos->halfmove >= 100 || search_repeated(pos, 1)) {
            search_count(s);
            return 0;
        }
        int lo = -SEARCH_MATE + ply, hi = SEARCH_MATE - ply - 1; /* mate-distance pruning */
        if (alpha < lo) alpha = lo;
        if (beta > hi) beta = hi;
        if (alpha >= beta) return alpha;
    }
    bool check = search_in_check(s, pos, ply);
    if (check && ply < SEARCH_MAX_PLY / 2) depth++;
    if (depth <= 0 || ply >= SEARCH_MAX_PLY) return search_quiesce(s, pos, alpha, beta, ply, 0);
    search_count(s);
    if (s->stop) return 0;
    if (ply > s->seldepth) s->seldepth = ply;
    /* The children (null move, ProbCut captures and moves alike) inherit this line's
     * double-extension count; the move loop adds the hash move's own. */
    if (ply < SEARCH_MAX_PLY) s->dext[ply + 1] = s->dext[ply];
    bool hit;
    TTEntry *e = search_tt_probe(s, pos->key, &hit);
    Move hash = MOVE_NONE, excl = s->excluded[ply];
    int ev = -SEARCH_INF, raw = -SEARCH_INF, tt_score = 0, tt_bound = BOUND_NONE, tt_depth = 0;
    if (hit) {
        hash = e->move;
        tt_score = search_from_tt(e->score, ply);
        tt_bound = e->gen_bound & 3;
        tt_depth = e->depth;
        if (tt_depth >= depth && ply > 0 && !pvnode && excl == MOVE_NONE &&
            (tt_bound == BOUND_EXACT || (tt_bound == BOUND_LOWER && tt_score >= beta) ||
             (tt_bound == BOUND_UPPER && tt_score <= alpha)))
            return tt_score;
        if (!check) raw = e->eval;
    }
    if (!check && !hit) raw = search_eval(s, pos, ply);
    int16_t *corr = check ? NULL : search_corr_entry(s, pos);
    ev = check ? raw : search_corrected(corr, raw);
    s->static_eval[ply] = ev;
    bool improving = !check && ply >= 2 && ev > s->static_eval[ply - 2];
    if (!pvnode && !check && ply > 0 && excl == MOVE_NONE && beta > -SEARCH_MATE_BOUND &&
        beta < SEARCH_MATE_BOUND) {
        if (depth <= RFP_DEPTH && ev - RFP_MARGIN * (depth - improving) >= beta) return ev;
        if (depth <= 2 && ev + RAZOR_MARGIN * depth <= alpha) { /* razoring */
            int score = search_quiesce(s, pos, alpha, alpha + 1, ply, 0);
            if (s->stop) return 0;
            if (score <= alpha) return score;
        }
        if (depth >= 2 && ev >= beta && pos->stack[pos->ply - 1].move != MOVE_NONE &&
            search_null_material(s, pos)) {
            int r = 3 + depth / 4 + ((ev - beta) / 200 < 3 ? (ev - beta) / 200 : 3);
            pos_make_null(pos);
            s->cont_at[ply] = -1;
            int score = -search_node(s, pos, depth - 1 - r, -beta, -beta + 1, ply + 1, !cut);
            pos_unmake_null(pos);
            if (s->stop) return 0;
            if (score >= beta) return score > SEARCH_MATE_BOUND ? beta : score;
        }
        /* ProbCut: a capture whose exchange alone wins beta + PC_MARGIN over the evaluation,
         * and that holds that bound in a quiescence search and then a search 4 plies
         * shallower, cuts off (unless the table says a search nearly as deep fell short). */
        int pc_beta = beta + PC_MARGIN;
        if (depth >= PC_DEPTH && s->see && pc_beta < SEARCH_MATE_BOUND &&
            !(hit && tt_depth >= depth - 3 && tt_score < pc_beta)) {
            Move *list = s->moves[ply];
            int n = pos_legal_captures(pos, list);
            for (int i = 0; i < n; i++) {
                Move m = list[i];
                if (search_victim_value(s, pos, m) == 0 ||
                    !pos_see_ge(pos, m, pc_beta - ev, s->see_value))
                    continue;
                s->cont_at[ply] = search_cont_key(s, pos, m);
                pos_make(pos, m);
                int score = -search_quiesce(s, pos, -pc_beta, -pc_beta + 1, ply + 1, 0);
                if (score >= pc_beta && !s->stop)
                    score = -search_node(s, pos, depth - 4, -pc_beta, -pc_beta + 1, ply + 1, !cut);
                pos_unmake(pos);
                if (s->stop) return 0;
                if (score >= pc_beta) {
                    search_tt_store(s, pos->key, depth - 3, BOUND_LOWER, score, raw, m, ply);
                    return score;
                }
            }
        }
    }
    if (depth >= 4 && hash == MOVE_NONE) depth--; /* internal iterative reduction */
    /* Singular extension: when the table's move scored at least tt_score at nearly this
     * depth and no other move reaches tt_score - SE_MARGIN * depth in a shallower search
     * without it, it is the only good move here and is searched a ply deeper; when the
     * others reach that bound and it is not below beta, several moves hold: cut off. */
    int hash_ext = 0;
    if (ply > 0 && depth >= SE_DEPTH && hash != MOVE_NONE && excl == MOVE_NONE &&
        (tt_bound & BOUND_LOWER) && tt_depth >= depth - 3 && tt_score > -SEARCH_MATE_BOUND &&
        tt_score < SEARCH_MATE_BOUND) {
        int sb = tt_score - SE_MARGIN * depth;
        s->excluded[ply] = hash;
        int score = search_node(s, pos, (depth - 1) / 2, sb - 1, sb, ply, cut);
        s->excluded[ply] = MOVE_NONE;
        if (s->stop) return 0;
        if (score < sb) /* singular; far below the bound: two plies, a few times per line */
            hash_ext = !pvnode && score < sb - DE_MARGIN && s->dext[ply] < DE_MAX ? 2 : 1;
        else if (sb >= beta) return sb;
        else if (tt_score >= beta) hash_ext = -1; /* not singular, but above beta: less */
    }
    Move *list = s->moves[ply];
    int *sc = s->scores[ply];
    int n = pos_legal_moves(pos, list);
    if (n == 0) return check ? -SEARCH_MATE + ply : search_stalemate_score(pos);
    int hidx = -1; /* the hash move goes first, and the others are scored only if it does
                      not cut off */
    for (int j = 0; hash != MOVE_NONE && j < n; j++)
        if (list[j] == hash) {
            hidx = j;
            list[j] = list[0];
            list[0] = hash;
            break;
        }
    bool scored = false;
    int best = -SEARCH_INF, alpha0 = alpha, nquiet = 0;
    Move best_move = MOVE_NONE, quiets[64], capts[32];
    int ncapt = 0;
    bool futile = !pvnode && !check && depth <= FUT_DEPTH && ev + FUT_MARGIN * depth <= alpha;
    int lmp = (3 + depth * depth) / (improving ? 1 : 2);
    int16_t *c1, *c2;
    search_cont_rows(s, ply, &c1, &c2);
    for (int i = 0; i < n; i++) {
        if (i > 0 || hidx < 0) {
            if (!scored) {
                search_score_moves(s, pos, list + i, sc + i, n - i, MOVE_NONE, ply);
                scored = true;
            }
            search_pick(list, sc, n, i);
        }
        Move m = list[i];
        if (m == excl) continue;
        search_prefetch_key(s, pos_key_after(pos, m)); /* the child's slots, well ahead */
        int victim = search_victim_value(s, pos, m);
        bool quiet =
            victim == 0 && MOVE_KIND(m) != MK_MULTI && !(MOVE_PROMO(m) && MOVE_KIND(m) != MK_DROP);
        bool refut = m == hash ||
                     (ply < SEARCH_MAX_PLY && (m == s->killers[ply][0] || m == s->killers[ply][1]));
        if (quiet && !pvnode && !check && ply > 0 && best > -SEARCH_MATE_BOUND &&
            depth <= LMP_DEPTH && nquiet >= lmp) { /* late-move pruning */
            /* Moves come best-scored first: after one ordered by history alone, only such
             * quiet moves remain (where no move removes pieces it does not land on), and
             * each would be pruned here in turn. */
            if (s->see_bound && scored && sc[i] < (1 << 22)) break;
            continue;
        }
        int stat = quiet ? search_quiet_stat(s, pos, m, c1, c2) : 0;
        if (quiet && !pvnode && !check && ply > 0 && best > -SEARCH_MATE_BOUND &&
            depth <= HP_DEPTH && !refut && stat < -HP_MARGIN * depth)
            continue; /* history pruning: this quiet move has kept failing here */
        if (s->see && !check && ply > 0 && best > -SEARCH_MATE_BOUND && depth <= SEE_DEPTH &&
            m != hash &&
            !pos_see_ge(pos, m, quiet ? -SEE_QUIET * depth * depth : -SEE_CAPTURE * depth,
                        s->see_value))
            continue; /* the exchange on the target square loses too much */
        /* Deeper, futility by the depth a late quiet move would be reduced to. */
        bool fut = futile;
        if (quiet && !fut && !pvnode && !check && i > 0 && !refut && depth > FUT_DEPTH) {
            int lmrd = depth - 1 - search_lmr(s, depth, i);
            if (lmrd < 0) lmrd = 0;
            fut = lmrd < FUT_DEPTH && ev + FUT_MARGIN * (lmrd + 1) <= alpha;
        }
        s->cont_at[ply] = search_cont_key(s, pos, m);
        pos_make(pos, m);
        bool gives_check = /* only asked where it decides pruning or reduction */
            quiet && i > 0 && (fut || (depth >= 2 && !check)) && search_in_check(s, pos, ply + 1);
        if (quiet && fut && best > -SEARCH_MATE_BOUND && !gives_check) {
            pos_unmake(pos); /* futility pruning */
            continue;
        }
        if (quiet && nquiet < 64) quiets[nquiet++] = m;
        if (victim > 0 && ncapt < 32) capts[ncapt++] = m;
        int score, nd = depth - 1 + (m == hash ? hash_ext : 0);
        s->dext[ply + 1] = s->dext[ply] + (m == hash && hash_ext == 2);
        if (i == 0) {
            score = -search_node(s, pos, nd, -beta, -alpha, ply + 1, !pvnode && !cut);
        } else {
            int r = 0;
            if (depth >= 2 && quiet && !check && !gives_check && i >= (pvnode ? 3 : 2)) {
                r = search_lmr(s, depth, i);
                r += !pvnode + !improving - refut + cut;
                r -= stat / CONT_LMR_DIV;
                if (r > nd - 1) r = nd - 1;
                if (r < 0) r = 0;
            }
            score = -search_node(s, pos, nd - r, -alpha - 1, -alpha, ply + 1, true);
            if (r > 0 && score > alpha && !s->stop)
                score = -search_node(s, pos, nd, -alpha - 1, -alpha, ply + 1, !cut);
            if (score > alpha && score < beta && !s->stop)
                score = -search_node(s, pos, nd, -beta, -alpha, ply + 1, false);
        }
        pos_unmake(pos);
        if (s->stop) return 0;
        if (score > best) {
            best = score;
            best_move = m;
            if (score > alpha) {
                alpha = score;
                search_update_pv(s, ply, m);
                if (score >= beta) {
                    if (quiet) {
                        if (m != s->killers[ply][0]) {
                            s->killers[ply][1] = s->killers[ply][0];
                            s->killers[ply][0] = m;
                        }
                        Move prev = pos->ply > 0 ? pos->stack[pos->ply - 1].move : MOVE_NONE;
                        if (prev != MOVE_NONE)
                            s->counter[pos->board[MOVE_TO(prev)] & 63][MOVE_TO(prev)] = m;
                        search_history_update(s, pos, ply, quiets, nquiet, m, depth);
                    }
                    search_capt_update(s, pos, capts, ncapt, m, depth);
                    break;
                }
            }
        }
    }
    if (best == -SEARCH_INF) best = alpha; /* every move was pruned */
    int bound = best >= beta ? BOUND_LOWER : best > alpha0 ? BOUND_EXACT : BOUND_UPPER;
    if (excl == MOVE_NONE) { /* a search without a move is not this node's result */
        search_tt_store(s, pos->key, depth, bound, best, raw,
                        bound == BOUND_UPPER ? MOVE_NONE : best_move, ply);
        /* The evaluation was off where the result is exact or bounds it on the far side,
         * and no capture made the difference. */
        if (corr && raw != -SEARCH_INF && best > -SEARCH_MATE_BOUND && best < SEARCH_MATE_BOUND &&
            (best_move == MOVE_NONE || search_victim_value(s, pos, best_move) == 0) &&
            !(bound == BOUND_LOWER && best <= ev) && !(bound == BOUND_UPPER && best >= ev))
            search_corr_update(corr, best - ev, depth);
    }
    return best;
}

/* Stable sort of root moves, best score first. */
static void search_sort_root(RootMove *root, int n) {
    for (int i = 1; i < n; i++) {
        RootMove r = root[i];
        int j = i;
        while (j > 0 && root[j - 1].score < r.score) {
            root[j] = root[j - 1];
            j--;
        }
        root[j] = r;
    }
}

/* Lowest score that must still be exact after the moves scored so far: `margin` below the
 * best, and the k-th best when multipv k asks for more lines. */
static int search_root_floor(const int *top, int k, int margin) {
    if (top[0] == -SEARCH_INF) return -SEARCH_INF;
    int f = top[0] - margin;
    return top[k - 1] < f ? top[k - 1] : f;
}

/* Inserts score into the descending list top[0..k). */
static void search_top_insert(int *top, int k, int score) {
    for (int i = 0; i < k; i++)
        if (score > top[i]) {
            memmove(&top[i + 1], &top[i], (size_t)(k - 1 - i) * sizeof *top);
            top[i] = score;
            return;
        }
}

/* One root iteration at `depth`: every move searched, those within `margin` of the best
 * (or among the best k) with an exact score and PV. The first move is searched in an
 * aspiration window around `prev` (the last iteration's best score) when depth allows, widened
 * on failure; the others first with a null window at the floor. Returns how many moves were
 * searched before the budget ran out (n when the iteration finished); the root is sorted
 * only when it finished. */
static int search_root_iteration(Search *s, Position *pos, RootMove *root, int n, int depth,
                                 int margin, int k, int prev) {
    evaluator_refresh(&s->eval, pos, 0); /* the children's evaluation state starts here */
    int top[SEARCH_MAX_MULTIPV];
    for (int i = 0; i < k; i++) top[i] = -SEARCH_INF;
    for (int i = 0; i < n; i++) {
        int floor = search_root_floor(top, k, margin), score;
        s->cont_at[0] = search_cont_key(s, pos, root[i].move);
        pos_make(pos, root[i].move);
        if (floor == -SEARCH_INF) {
            int delta = ASP_WINDOW, lo = -SEARCH_INF, hi = SEARCH_INF;
            if (depth >= ASP_DEPTH && prev > -SEARCH_MATE_BOUND && prev < SEARCH_MATE_BOUND) {
                lo = prev - delta;
                hi = prev + delta;
            }
            for (;;) {
                score = -search_node(s, pos, depth - 1, -hi, -lo, 1, false);
                if (s->stop) break;
                if (score <= lo && lo > -SEARCH_INF) {
                    lo = lo - delta < -SEARCH_MATE_BOUND ? -SEARCH_INF : lo - delta;
                } else if (score >= hi && hi < SEARCH_INF) {
                    hi = hi + delta > SEARCH_MATE_BOUND ? SEARCH_INF : hi + delta;
                } else {
                    break;
                }
                delta *= 2;
            }
        } else {
            score = -search_node(s, pos, depth - 1, -floor - 1, -floor, 1, true);
            /* Within the margin: exact in a window up to the best so far (narrow, so the
             * line is cheap); a move above the best is searched again from there. */
            int hi = floor < top[0] && top[0] < SEARCH_MATE_BOUND ? top[0] + 1 : SEARCH_INF;
            if (score > floor && !s->stop) {
                /* The sampler's exact scores: a value inside the window is exact for the
                 * tree searched, so the tree may be pruned as a null-window one is. */
                s->nopv = margin > 0 && hi < SEARCH_INF;
                score = -search_node(s, pos, depth - 1, -hi, -floor, 1, false);
                s->nopv = false;
            }
            if (hi < SEARCH_INF && score >= hi && !s->stop)
                score = -search_node(s, pos, depth - 1, -SEARCH_INF, -top[0], 1, false);
        }
        pos_unmake(pos);
        if (s->stop) return i;
        root[i].score = score;
        if (score > floor) {
            search_update_pv(s, 0, root[i].move);
            root[i].pvlen = s->pvlen[0];
            memcpy(root[i].pv, s->pv[0], (size_t)s->pvlen[0] * sizeof(Move));
        } else {
            root[i].pvlen = 1;
            root[i].pv[0] = root[i].move;
        }
        search_top_insert(top, k, score);
    }
    search_sort_root(root, n);
    return n;
}

/* Lengthens a PV cut short by table hits with the table's moves, as long as they are legal
 * and the line does not repeat. */
static void search_extend_pv(Search *s, Position *pos, RootMove *r) {
    Move list[MAX_MOVES];
    int made = 0;
    for (int i = 0; i < r->pvlen; i++, made++) pos_make(pos, r->pv[i]);
    while (r->pvlen < SEARCH_MAX_PLY && !search_repeated(pos, 1)) {
        bool hit;
        TTEntry *e = search_tt_probe(s, pos->key, &hit);
        if (!hit || e->move == MOVE_NONE) break;
        int n = pos_legal_moves(pos, list), j = 0;
        while (j < n && list[j] != e->move) j++;
        if (j == n) break;
        r->pv[r->pvlen++] = e->move;
        pos_make(pos, e->move);
        made++;
    }
    while (made-- > 0) pos_unmake(pos);
}

/* Reports the best `lines` root moves of a finished iteration to the info callback. */
static void search_report(Search *s, Position *pos, const SearchLimits *lim, int depth, int lines) {
    for (int j = 0; j < lines; j++) {
        RootMove *r = &s->root_done[j];
        search_extend_pv(s, pos, r);
        SearchInfo info = {.depth = depth,
                           .seldepth = s->seldepth,
                           .multipv = j + 1,
                           .score = r->score,
                           .bound = 0,
                           .nodes = s->nodes,
                           .time_ms = (search_now_ns() - s->start_ns) / 1000000,
                           .hashfull = search_hashfull(s),
                           .pvlen = r->pvlen,
                           .pv = r->pv};
        lim->info(lim->info_ctx, &info);
    }
}

/* Keeps the n root moves of the iteration at depth d just finished (sorted) as the sample. */
static void search_keep_sample(Search *s, SearchResult *r, int n, int d) {
    for (int i = 0; i < n; i++) {
        s->sample_move[i] = s->root[i].move;
        s->sample_score[i] = s->root[i].score;
    }
    r->nsample = n;
    r->sample_move = s->sample_move;
    r->sample_score = s->sample_score;
    r->sample_depth = d;
}

/* Iterative deepening within the node, depth or time budget; the answer is the deepest
 * finished iteration, or a move of the unfinished one that scored above its best. */
SearchResult search_run(Search *s, Position *pos, const SearchLimits *lim) {
    SearchResult r = {0};
    Move list[MAX_MOVES];
    int n = pos_legal_moves(pos, list);
    s->used = true;
    s->start_ns = search_now_ns();
    s->gen = (uint8_t)((s->gen + 1) & 63);
    s->nodes = 0;
    s->seldepth = 0;
    s->stop = false;
    s->node_limit = lim->nodes > 0 ? lim->nodes : INT64_MAX;
    s->ext_stop = lim->stop;
    s->hard_ns = lim->movetime_ms > 0 ? s->start_ns + lim->movetime_ms * 1000000 : 0;
    s->next_check = 0; /* look at once: the stop flag may already be set */
    int maxdepth = lim->depth > 0 ? lim->depth : SEARCH_MAX_DEPTH;
    if (maxdepth > SEARCH_MAX_DEPTH) maxdepth = SEARCH_MAX_DEPTH;
    int k = lim->multipv > 1 ? lim->multipv : 1;
    if (k > SEARCH_MAX_MULTIPV) k = SEARCH_MAX_MULTIPV;
    if (k > n) k = n;
    int *sc = s->scores[SEARCH_MAX_PLY];
    search_score_moves(s, pos, list, sc, n, MOVE_NONE, 0);
    for (int i = 0; i < n; i++) {
        search_pick(list, sc, n, i);
        s->root[i].move = list[i];
        s->root[i].score = -SEARCH_INF;
        s->root[i].pvlen = 1;
        s->root[i].pv[0] = list[i];
    }
    r.nroot = n;
    r.root = s->root_done;
    /* The iteration the sample comes from: with a depth limit alone it surely finishes, so
     * the shallower ones need no margin (they only order the root moves). */
    int sample_depth =
        lim->margin_depth > 0 && lim->margin_depth < maxdepth ? lim->margin_depth : maxdepth;
    bool depth_only = lim->nodes <= 0 && lim->movetime_ms <= 0 && lim->soft_ms <= 0 && !lim->stop;
    for (int d = 1; d <= maxdepth; d++) {
        bool keep_margin =
            (lim->margin_depth <= 0 || d <= lim->margin_depth) && !(depth_only && d < sample_depth);
        int done = search_root_iteration(s, pos, s->root, n, d, keep_margin ? lim->margin : 0, k,
                                         s->root[0].score);
        if (done < n) {
            if (d == 1) { /* the budget ran out in the first iteration: rank what was scored */
                int kk = done > 0 ? done : 1;
                if (done == 0) s->root[0].score = 0;
                search_sort_root(s->root, kk);
                memcpy(s->root_done, s->root, (size_t)kk * sizeof *s->root);
                search_keep_sample(s, &r, kk, 1);
                r.nroot = kk;
                r.depth = 1;
            } else if (done > 1) {
                /* The unfinished iteration searched the last best move first, then others at
                 * the new depth: one that scored above it (verified by a full-window search)
                 * is the better answer. */
                int b = 0;
                for (int i = 1; i < done; i++)
                    if (s->root[i].score > s->root[b].score) b = i;
                if (b > 0) {   /* b moves only on a strictly higher score */
                    int j = 0; /* where that move stands in the finished iteration's list */
                    while (j < n && s->root_done[j].move != s->root[b].move) j++;
                    if (j < n)
                        memmove(&s->root_done[1], &s->root_done[0], (size_t)j * sizeof *s->root);
                    s->root_done[0] = s->root[b];
                }
            }
            break;
        }
        memcpy(s->root_done, s->root, (size_t)n * sizeof *s->root);
        if (keep_margin) search_keep_sample(s, &r, n, d);
        r.depth = d;
        if (lim->info) search_report(s, pos, lim, d, k);
        if (s->root[0].score > SEARCH_MATE_BOUND && SEARCH_MATE - s->root[0].score <= d) break;
        if (lim->soft_ms > 0 && search_now_ns() - s->start_ns >= lim->soft_ms * 1000000) break;
    }
    r.best = s->root_done[0].move;
    r.score = s->root_done[0].score;
    r.nodes = s->nodes;
    r.seldepth = s->seldepth;
    r.time_ms = (search_now_ns() - s->start_ns) / 1000000;
    r.pvlen = s->root_done[0].pvlen;
    r.pv = s->root_done[0].pv;
    return r;
}
