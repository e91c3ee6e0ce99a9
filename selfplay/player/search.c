/* search.c - the self-play player's search: iterative deepening at the root (search_run),
 * the alpha-beta node with its pruning, reductions and extensions (search_node), and the
 * quiescence search below it (search_quiesce). See search.h for the whole. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include "search.h"
#include "search_order.h"
#include "search_steps.h"
#include "search_tables.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

/* A step of search_node that searches, in a function of its own but inlined always: the
 * compiler then weighs search_node (how to specialise it by its constant arguments, the
 * ply) as when the steps were written out in it. */
#define SEARCH_STEP static inline __attribute__((always_inline))

/* Monotonic clock in nanoseconds. */
static int64_t search_now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Score of a stalemate for the side to move: the variant's per-mille score mapped so a
 * lost stalemate is worse than any material but better than being mated. */
static int search_stalemate_score(const Position *pos) {
    return (pos->var->stalemate_score - 500) * STALEMATE_CP_PER_MILLE;
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
    evaluator_enter(&s->eval, pos, pos_last_dirty(pos), ply);
    search_count(s);
    s->pvlen[ply] = 0;
    if (s->stop) return 0;
    if (ply > s->seldepth) s->seldepth = ply;
    if (ply >= SEARCH_MAX_PLY) return search_eval(s, pos, ply);
    bool hit, pvnode = beta - alpha > 1 && !s->nopv;
    TTEntry *e = search_tt_probe(s, pos->key, &hit);
    if (hit && !pvnode) { /* any stored result is at least as deep as this one */
        int tt_score = search_from_tt(e->score, ply);
        if (search_bound_settles(e->gen_bound & 3, tt_score, alpha, beta)) return tt_score;
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
        if (stand + search_max_gain(s, pos) + s->tune.qs_delta <= alpha)
            return best; /* big delta */
        if (best > alpha) alpha = best;
    }
    Move *list = s->moves[ply];
    int *order = s->scores[ply];
    int n = check ? -1 : pos_legal_captures(pos, list); /* -1: no capture generator */
    if (n == 0) return best;                            /* no capture: the stand-pat score */
    if (n < 0) n = pos_legal_moves(pos, list);
    if (n == 0) return check ? -SEARCH_MATE + ply : search_stalemate_score(pos);
    if (!check) { /* keep captures (and blasts, checked after the make), scored MVV-LVA */
        int nkept = 0;
        for (int i = 0; i < n; i++) {
            Move m = list[i];
            int victim = search_victim_value(s, pos, m);
            if (victim == 0 && MOVE_KIND(m) != MK_MULTI) continue;
            bool promo = MOVE_PROMO(m) && MOVE_KIND(m) != MK_DROP;
            if (MOVE_KIND(m) != MK_MULTI && !promo && stand + victim + s->tune.qs_delta <= alpha) {
                int up = stand + victim + s->tune.qs_delta;
                if (up > best) best = up;
                continue; /* delta pruning */
            }
            int attacker = search_attacker_value(s, pos, m);
            if (s->see && victim < attacker && !pos_see_ge(pos, m, 0, s->see_value))
                continue; /* loses material */
            order[nkept] = search_mvv_lva(victim, attacker);
            list[nkept++] = m;
            search_prefetch_key(s, pos_key_after(pos, m));
        }
        n = nkept;
    } else {
        search_score_moves(s, pos, list, order, n, MOVE_NONE, SEARCH_MAX_PLY);
    }
    for (int i = 0; i < n; i++) {
        search_pick(list, order, n, i);
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

/* The steps of search_node that search (its rules that only decide: search_steps.h). */
static int search_node(Search *s, Position *pos, int depth, int alpha, int beta, int ply, bool cut);

/* Null move: the side to move passes, and when a reduced search still fails high, the node
 * does. Whether the node ends here, with *result its score. */
SEARCH_STEP bool search_null_move_cuts(Search *s, Position *pos, int depth, int ev, int beta,
                                       int ply, bool cut, int *result) {
    int r = search_null_reduction(s, depth, ev, beta);
    pos_make_null(pos);
    s->cont_at[ply] = -1;
    int score = -search_node(s, pos, depth - 1 - r, -beta, -beta + 1, ply + 1, !cut);
    pos_unmake_null(pos);
    if (s->stop) {
        *result = 0;
        return true;
    }
    if (score >= beta) {
        *result = score > SEARCH_MATE_BOUND ? beta : score;
        return true;
    }
    return false;
}

/* ProbCut: a capture whose exchange alone wins pc_beta over the evaluation ev, and that
 * holds that bound in a quiescence search and then in a search PC_REDUCTION plies
 * shallower, cuts off. Whether the node ends here, with *result its score. */
SEARCH_STEP bool search_probcut_cuts(Search *s, Position *pos, int depth, int pc_beta, int ev,
                                     int raw, int ply, bool cut, int *result) {
    Move *list = s->moves[ply];
    int n = pos_legal_captures(pos, list);
    for (int i = 0; i < n; i++) {
        Move m = list[i];
        if (search_victim_value(s, pos, m) == 0 || !pos_see_ge(pos, m, pc_beta - ev, s->see_value))
            continue;
        s->cont_at[ply] = search_cont_key(s, pos, m);
        pos_make(pos, m);
        int score = -search_quiesce(s, pos, -pc_beta, -pc_beta + 1, ply + 1, 0);
        if (score >= pc_beta && !s->stop)
            score =
                -search_node(s, pos, depth - PC_REDUCTION, -pc_beta, -pc_beta + 1, ply + 1, !cut);
        pos_unmake(pos);
        if (s->stop) {
            *result = 0;
            return true;
        }
        if (score >= pc_beta) {
            search_tt_store(s, pos->key, depth - PC_STORE_LESS, BOUND_LOWER, score, raw, m, ply);
            *result = score;
            return true;
        }
    }
    return false;
}

/* Singular extension: when no other move reaches tt_score - SE_MARGIN * depth in a
 * shallower search without the hash move, it is the only good move here and is searched a
 * ply deeper (two when the others stay DE_MARGIN below, at most DE_MAX times per line);
 * when the others reach that bound and it is not below beta, several moves hold and the
 * node cuts off; when they reach it and the table's score is above beta, the hash move is
 * searched a ply less. Sets *hash_ext; whether the node ends here, with *result its score. */
SEARCH_STEP bool search_singular_cuts(Search *s, Position *pos, int depth, int beta, int ply,
                                      bool pvnode, bool cut, Move hash, int tt_score, int *hash_ext,
                                      int *result) {
    int singular_beta = tt_score - SE_MARGIN * depth;
    s->excluded[ply] = hash;
    int score = search_node(s, pos, (depth - 1) / 2, singular_beta - 1, singular_beta, ply, cut);
    s->excluded[ply] = MOVE_NONE;
    if (s->stop) {
        *result = 0;
        return true;
    }
    if (score < singular_beta)
        *hash_ext =
            !pvnode && score < singular_beta - DE_MARGIN && s->double_ext[ply] < DE_MAX ? 2 : 1;
    else if (singular_beta >= beta) {
        *result = singular_beta;
        return true;
    } else if (tt_score >= beta) *hash_ext = -1;
    return false;
}

/* Principal-variation search of a move other than the first, just made: a null window at
 * the depth reduced by r, again at full depth when that beats alpha, and the full window
 * when the score falls inside it. */
SEARCH_STEP int search_later_move(Search *s, Position *pos, int child_depth, int r, int alpha,
                                  int beta, int ply, bool cut) {
    int score = -search_node(s, pos, child_depth - r, -alpha - 1, -alpha, ply + 1, true);
    if (r > 0 && score > alpha && !s->stop)
        score = -search_node(s, pos, child_depth, -alpha - 1, -alpha, ply + 1, !cut);
    if (score > alpha && score < beta && !s->stop)
        score = -search_node(s, pos, child_depth, -beta, -alpha, ply + 1, false);
    return score;
}

/* After quiet move m cut off at ply: the first killer, the counter-move of the previous
 * move, and the histories of m and of the quiet moves tried before it. */
SEARCH_STEP void search_quiet_cutoff(Search *s, const Position *pos, int ply, Move m,
                                     const Move *quiets, int nquiet, int depth) {
    if (m != s->killers[ply][0]) {
        s->killers[ply][1] = s->killers[ply][0];
        s->killers[ply][0] = m;
    }
    Move prev = pos->ply > 0 ? pos->stack[pos->ply - 1].move : MOVE_NONE;
    if (prev != MOVE_NONE) s->counter[pos->board[MOVE_TO(prev)] & 63][MOVE_TO(prev)] = m;
    search_history_update(s, pos, ply, quiets, nquiet, m, depth);
}

/* Principal-variation alpha-beta to `depth` plies, then quiescence; selective: mate-distance
 * pruning, check extension, reverse futility, razoring, null move, ProbCut, internal
 * iterative reduction, singular and double extensions (and the negative extension),
 * late-move, history, SEE and futility pruning, late-move reductions. cut: an expected cut
 * node (reduced more). */
static int search_node(Search *s, Position *pos, int depth, int alpha, int beta, int ply,
                       bool cut) {
    search_prefetch(s, pos);
    evaluator_enter(&s->eval, pos, pos_last_dirty(pos), ply);
    bool pvnode = beta - alpha > 1 && !s->nopv;
    s->pvlen[ply] = 0;
    if (ply > 0) {
        if (search_draw_by_rule(pos)) {
            search_count(s);
            return 0;
        }
        if (search_mate_distance_prunes(ply, &alpha, &beta)) return alpha;
    }
    bool check = search_in_check(s, pos, ply);
    if (check && ply < SEARCH_MAX_PLY / 2) depth++; /* check extension */
    if (depth <= 0 || ply >= SEARCH_MAX_PLY) return search_quiesce(s, pos, alpha, beta, ply, 0);
    search_count(s);
    if (s->stop) return 0;
    if (ply > s->seldepth) s->seldepth = ply;
    /* The children (null move, ProbCut captures and moves alike) inherit this line's
     * double-extension count; the move loop adds the hash move's own. */
    if (ply < SEARCH_MAX_PLY) s->double_ext[ply + 1] = s->double_ext[ply];

    /* The table: an answer for a null-window node, else the hash move and an evaluation. */
    bool hit;
    TTEntry *e = search_tt_probe(s, pos->key, &hit);
    Move hash = MOVE_NONE, excl = s->excluded[ply];
    int raw = -SEARCH_INF, tt_score = 0, tt_bound = BOUND_NONE, tt_depth = 0;
    if (hit) {
        hash = e->move;
        tt_score = search_from_tt(e->score, ply);
        tt_bound = e->gen_bound & 3;
        tt_depth = e->depth;
        if (tt_depth >= depth && ply > 0 && !pvnode && excl == MOVE_NONE &&
            search_bound_settles(tt_bound, tt_score, alpha, beta))
            return tt_score;
        if (!check) raw = e->eval;
    }

    /* The static evaluation (none in check), corrected by the correction history. */
    if (!check && !hit) raw = search_eval(s, pos, ply);
    int16_t *corr = check ? NULL : search_corr_entry(s, pos);
    int ev = check ? raw : search_corrected(corr, raw);
    s->static_eval[ply] = ev;
    bool improving = !check && ply >= 2 && ev > s->static_eval[ply - 2];

    /* Pruning of the whole node. */
    if (search_node_prunable(pvnode, check, ply, excl, beta)) {
        if (search_reverse_futility_prunes(s, depth, ev, beta, improving)) return ev;
        if (search_razoring_applies(s, depth, ev, alpha)) {
            int score = search_quiesce(s, pos, alpha, alpha + 1, ply, 0);
            if (s->stop) return 0;
            if (score <= alpha) return score;
        }
        int result;
        if (search_null_move_allowed(s, pos, depth, ev, beta) &&
            search_null_move_cuts(s, pos, depth, ev, beta, ply, cut, &result))
            return result;
        int pc_beta = beta + s->tune.probcut_margin;
        if (search_probcut_applies(s, depth, pc_beta, hit, tt_depth, tt_score) &&
            search_probcut_cuts(s, pos, depth, pc_beta, ev, raw, ply, cut, &result))
            return result;
    }

    /* Reductions and extensions of the node and its hash move. */
    if (search_iir_reduces(depth, hash)) depth--;
    int hash_ext = 0;
    int result;
    if (search_singular_applies(ply, depth, hash, excl, tt_bound, tt_depth, tt_score) &&
        search_singular_cuts(s, pos, depth, beta, ply, pvnode, cut, hash, tt_score, &hash_ext,
                             &result))
        return result;

    /* The moves: the hash move first, the others scored when it does not cut off. */
    Move *list = s->moves[ply];
    int *order = s->scores[ply];
    int n = pos_legal_moves(pos, list);
    if (n == 0) return check ? -SEARCH_MATE + ply : search_stalemate_score(pos);
    int hash_at = search_hash_first(list, n, hash);
    bool scored = false;
    int best = -SEARCH_INF, alpha0 = alpha, nquiet = 0, ncapt = 0;
    Move best_move = MOVE_NONE, quiets[64], capts[32];
    bool futile = !pvnode && !check && search_futility_applies(s, depth, ev, alpha);
    int late_count = search_late_move_count(depth, improving);
    int16_t *cont1, *cont2; /* continuation-history rows of the last two moves */
    search_cont_rows(s, ply, &cont1, &cont2);
    for (int i = 0; i < n; i++) {
        if (i > 0 || hash_at < 0) {
            if (!scored) {
                search_score_moves(s, pos, list + i, order + i, n - i, MOVE_NONE, ply);
                scored = true;
            }
            search_pick(list, order, n, i);
        }
        Move m = list[i];
        if (m == excl) continue;
        search_prefetch_key(s, pos_key_after(pos, m)); /* the child's slots, well ahead */
        int victim = search_victim_value(s, pos, m);
        bool quiet = search_is_quiet(m, victim);
        bool refutation = m == hash || (ply < SEARCH_MAX_PLY &&
                                        (m == s->killers[ply][0] || m == s->killers[ply][1]));
        /* Moves are pruned below the root out of check, once one kept the node from a mate. */
        bool prunable = !check && ply > 0 && best > -SEARCH_MATE_BOUND;
        if (quiet && !pvnode && prunable && search_late_move_prunes(depth, nquiet, late_count)) {
            if (search_rest_pruned(s, scored, order[i])) break;
            continue;
        }
        int history = quiet ? search_quiet_stat(s, pos, m, cont1, cont2) : 0;
        if (quiet && !pvnode && prunable && search_history_prunes(depth, refutation, history))
            continue;
        if (s->see && prunable && m != hash && search_see_prunes(s, pos, m, quiet, depth)) continue;
        bool fut = futile;
        if (quiet && !fut && !pvnode && !check && i > 0 && !refutation && depth > FUT_DEPTH)
            fut = search_futile_when_reduced(s, depth, i, ev, alpha);
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
        int child_depth = depth - 1 + (m == hash ? hash_ext : 0);
        s->double_ext[ply + 1] = s->double_ext[ply] + (m == hash && hash_ext == 2);
        int score;
        if (i == 0) {
            score = -search_node(s, pos, child_depth, -beta, -alpha, ply + 1, !pvnode && !cut);
        } else {
            int r = search_reduces(depth, i, quiet, check, gives_check, pvnode)
                        ? search_reduction(s, depth, i, pvnode, improving, refutation, cut, history,
                                           child_depth)
                        : 0;
            score = search_later_move(s, pos, child_depth, r, alpha, beta, ply, cut);
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
                    if (quiet) search_quiet_cutoff(s, pos, ply, m, quiets, nquiet, depth);
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
        if (search_corr_learns(s, pos, corr, raw, ev, best, bound, best_move))
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
            int delta = s->tune.asp_window, lo = -SEARCH_INF, hi = SEARCH_INF;
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
    int lines = lim->multipv > 1 ? lim->multipv : 1; /* multipv */
    if (lines > SEARCH_MAX_MULTIPV) lines = SEARCH_MAX_MULTIPV;
    if (lines > n) lines = n;
    int *order = s->scores[SEARCH_MAX_PLY];
    search_score_moves(s, pos, list, order, n, MOVE_NONE, 0);
    for (int i = 0; i < n; i++) {
        search_pick(list, order, n, i);
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
        int done = search_root_iteration(s, pos, s->root, n, d, keep_margin ? lim->margin : 0,
                                         lines, s->root[0].score);
        if (done < n) {
            if (d == 1) { /* the budget ran out in the first iteration: rank what was scored */
                int nranked = done > 0 ? done : 1;
                if (done == 0) s->root[0].score = 0;
                search_sort_root(s->root, nranked);
                memcpy(s->root_done, s->root, (size_t)nranked * sizeof *s->root);
                search_keep_sample(s, &r, nranked, 1);
                r.nroot = nranked;
                r.depth = 1;
            } else if (done > 1) {
                /* The unfinished iteration searched the last best move first, then others at
                 * the new depth: one that scored above it (verified by a full-window search)
                 * is the better answer. */
                int better = 0;
                for (int i = 1; i < done; i++)
                    if (s->root[i].score > s->root[better].score) better = i;
                if (better > 0) { /* it moves only on a strictly higher score */
                    int j = 0;    /* where that move stands in the finished iteration's list */
                    while (j < n && s->root_done[j].move != s->root[better].move) j++;
                    if (j < n)
                        memmove(&s->root_done[1], &s->root_done[0], (size_t)j * sizeof *s->root);
                    s->root_done[0] = s->root[better];
                    /* the answer changed: a client's last PV must lead with it */
                    if (lim->info) search_report(s, pos, lim, d, 1);
                }
            }
            break;
        }
        memcpy(s->root_done, s->root, (size_t)n * sizeof *s->root);
        if (keep_margin) search_keep_sample(s, &r, n, d);
        r.depth = d;
        if (lim->info) search_report(s, pos, lim, d, lines);
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
