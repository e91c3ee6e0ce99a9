/* search.c - negamax alpha-beta with quiescence, transposition table and move ordering. */
#include "search.h"

#include <stdlib.h>
#include <string.h>

enum { BOUND_NONE = 0, BOUND_UPPER = 1, BOUND_LOWER = 2, BOUND_EXACT = 3 };

#define QSEARCH_MAX 8 /* capture plies searched below the horizon */

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
    eval_init(&s->eval, v);
    return s;
}

/* Releases a search and its table. */
void search_free(Search *s) {
    if (!s) return;
    free(s->tt);
    free(s);
}

/* Forgets everything learnt, so the next game does not depend on the previous one. */
void search_clear(Search *s) {
    memset(s->tt, 0, (s->tt_mask + 1) * sizeof *s->tt);
    memset(s->killers, 0, sizeof s->killers);
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

/* Value of what m captures before it is made (0 if it captures nothing visible). */
static inline int search_victim_value(const Search *s, const Position *pos, Move m) {
    int kind = MOVE_KIND(m);
    int pc = pos->board[MOVE_TO(m)], mid = MOVE_MID(m);
    if (!pc && mid == NO_SQ && kind != MK_EP) return 0; /* the common quiet move */
    if (kind == MK_DROP || kind == MK_SWITCH || kind == MK_CASTLE) return 0;
    int v = 0, them = pos->side ^ 1;
    if (pc && PC_COLOR(pc) == them) v += eval_piece_value(&s->eval, PC_TYPE(pc));
    if (mid != NO_SQ && mid < pos->nsq) {
        pc = pos->board[mid];
        if (pc && PC_COLOR(pc) == them) v += eval_piece_value(&s->eval, PC_TYPE(pc));
    }
    if (kind == MK_EP) v += 100;
    return v;
}

/* Scores every move of the list for ordering: hash move, captures by MVV-LVA,
 * promotions, killers, then the rest. */
static void search_score_moves(Search *s, const Position *pos, Move *list, int *sc, int n,
                               Move hash, int ply) {
    for (int i = 0; i < n; i++) {
        Move m = list[i];
        if (m == hash) {
            sc[i] = 1 << 30;
            continue;
        }
        int victim = search_victim_value(s, pos, m);
        if (victim > 0) {
            int attacker = MOVE_KIND(m) == MK_DROP ? 0 : PC_TYPE(pos->board[MOVE_FROM(m)]);
            sc[i] = (1 << 24) + victim * 16 - eval_piece_value(&s->eval, attacker) / 16;
        } else if (MOVE_PROMO(m) && MOVE_KIND(m) != MK_DROP) {
            sc[i] = (1 << 23) + eval_piece_value(&s->eval, MOVE_PROMO(m));
        } else if (ply < SEARCH_MAX_PLY && (m == s->killers[ply][0] || m == s->killers[ply][1])) {
            sc[i] = (1 << 22) + (m == s->killers[ply][0]);
        } else {
            sc[i] = 0;
        }
    }
}

/* Moves the best-scored remaining move to index i (selection sort, lazily). */
static void search_pick(Move *list, int *sc, int n, int i) {
    int b = i;
    for (int j = i + 1; j < n; j++)
        if (sc[j] > sc[b]) b = j;
    if (b != i) {
        Move tm = list[i];
        list[i] = list[b];
        list[b] = tm;
        int ts = sc[i];
        sc[i] = sc[b];
        sc[b] = ts;
    }
}

/* Counts a node and raises the stop flag when the node budget is spent. */
static inline void search_count(Search *s) {
    if (++s->nodes >= s->node_limit) s->stop = true;
}

/* Captures-only search below the horizon (all evasions when in check). */
static int search_quiesce(Search *s, Position *pos, int alpha, int beta, int ply, int qdepth) {
    search_count(s);
    if (ply >= SEARCH_MAX_PLY) return eval_position(&s->eval, pos);
    bool check = pos_in_check(pos);
    int best = -SEARCH_INF;
    if (!check) {
        best = eval_position(&s->eval, pos);
        if (best >= beta || qdepth >= QSEARCH_MAX) return best;
        if (best > alpha) alpha = best;
    }
    Move *list = s->moves[ply];
    int *sc = s->scores[ply];
    int n = pos_legal_moves(pos, list);
    if (n == 0) return check ? -SEARCH_MATE + ply : search_stalemate_score(pos);
    if (!check) { /* keep captures (and blasts, checked after the make), scored MVV-LVA */
        int k = 0;
        for (int i = 0; i < n; i++) {
            Move m = list[i];
            int victim = search_victim_value(s, pos, m);
            if (victim == 0 && MOVE_KIND(m) != MK_MULTI) continue;
            int attacker = MOVE_KIND(m) == MK_DROP ? 0 : PC_TYPE(pos->board[MOVE_FROM(m)]);
            sc[k] = victim * 16 - eval_piece_value(&s->eval, attacker) / 16;
            list[k++] = m;
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
                if (score >= beta) break;
            }
        }
    }
    return best;
}

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

/* Principal-variation alpha-beta to `depth` plies, then quiescence. */
static int search_node(Search *s, Position *pos, int depth, int alpha, int beta, int ply) {
    if (ply > 0 && (pos->halfmove >= 100 || search_repeated(pos, 1))) {
        search_count(s);
        return 0;
    }
    bool check = pos_in_check(pos);
    if (check && ply < SEARCH_MAX_PLY / 2) depth++;
    if (depth <= 0 || ply >= SEARCH_MAX_PLY) return search_quiesce(s, pos, alpha, beta, ply, 0);
    search_count(s);
    TTEntry *e = &s->tt[pos->key & s->tt_mask];
    Move hash = MOVE_NONE;
    if (e->key == pos->key) {
        hash = e->move;
        int ts = search_from_tt(e->score, ply);
        if (e->depth >= depth && ply > 0 &&
            (e->bound == BOUND_EXACT || (e->bound == BOUND_LOWER && ts >= beta) ||
             (e->bound == BOUND_UPPER && ts <= alpha)))
            return ts;
    }
    Move *list = s->moves[ply];
    int *sc = s->scores[ply];
    int n = pos_legal_moves(pos, list);
    if (n == 0) return check ? -SEARCH_MATE + ply : search_stalemate_score(pos);
    search_score_moves(s, pos, list, sc, n, hash, ply);
    int best = -SEARCH_INF, alpha0 = alpha;
    Move best_move = MOVE_NONE;
    for (int i = 0; i < n; i++) {
        search_pick(list, sc, n, i);
        Move m = list[i];
        pos_make(pos, m);
        int score;
        if (i == 0) {
            score = -search_node(s, pos, depth - 1, -beta, -alpha, ply + 1);
        } else {
            score = -search_node(s, pos, depth - 1, -alpha - 1, -alpha, ply + 1);
            if (score > alpha && score < beta && !s->stop)
                score = -search_node(s, pos, depth - 1, -beta, -alpha, ply + 1);
        }
        pos_unmake(pos);
        if (s->stop) return 0;
        if (score > best) {
            best = score;
            best_move = m;
            if (score > alpha) {
                alpha = score;
                if (score >= beta) {
                    if (search_victim_value(s, pos, m) == 0 && m != s->killers[ply][0]) {
                        s->killers[ply][1] = s->killers[ply][0];
                        s->killers[ply][0] = m;
                    }
                    break;
                }
            }
        }
    }
    e->key = pos->key;
    e->move = best_move;
    e->score = (int16_t)search_to_tt(best, ply);
    e->depth = (int8_t)depth;
    e->bound = best >= beta ? BOUND_LOWER : best > alpha0 ? BOUND_EXACT : BOUND_UPPER;
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

/* One root iteration at `depth`: every move searched, those within `margin` of the best
 * with an exact score. Returns how many moves were searched before the budget ran out
 * (n when the iteration finished); the root is sorted only when it finished. */
static int search_root_iteration(Search *s, Position *pos, RootMove *root, int n, int depth,
                                 int margin) {
    int best = -SEARCH_INF;
    for (int i = 0; i < n; i++) {
        int floor = best == -SEARCH_INF ? -SEARCH_INF : best - margin;
        pos_make(pos, root[i].move);
        int score = -search_node(s, pos, depth - 1, -SEARCH_INF, -floor, 1);
        pos_unmake(pos);
        if (s->stop) return i;
        root[i].score = score;
        if (score > best) best = score;
    }
    search_sort_root(root, n);
    return n;
}

/* Iterative deepening within the node or depth budget; the answer is the deepest finished
 * iteration. */
SearchResult search_run(Search *s, Position *pos, const SearchLimits *lim) {
    SearchResult r = {0};
    Move list[MAX_MOVES];
    int n = pos_legal_moves(pos, list);
    s->nodes = 0;
    s->stop = false;
    s->node_limit = lim->nodes > 0 ? lim->nodes : INT64_MAX;
    int maxdepth = lim->depth > 0 ? lim->depth : SEARCH_MAX_PLY / 2;
    if (maxdepth > SEARCH_MAX_PLY / 2) maxdepth = SEARCH_MAX_PLY / 2;
    int *sc = s->scores[SEARCH_MAX_PLY];
    search_score_moves(s, pos, list, sc, n, MOVE_NONE, 0);
    for (int i = 0; i < n; i++) {
        search_pick(list, sc, n, i);
        s->root[i].move = list[i];
        s->root[i].score = -SEARCH_INF;
    }
    r.nroot = n;
    r.root = s->root_done;
    for (int d = 1; d <= maxdepth; d++) {
        int done = search_root_iteration(s, pos, s->root, n, d, lim->margin);
        if (done < n) {
            if (d == 1) { /* the budget ran out in the first iteration: rank what was scored */
                int k = done > 0 ? done : 1;
                if (done == 0) s->root[0].score = 0;
                search_sort_root(s->root, k);
                memcpy(s->root_done, s->root, (size_t)k * sizeof *s->root);
                r.nroot = k;
                r.depth = 1;
            }
            break;
        }
        memcpy(s->root_done, s->root, (size_t)n * sizeof *s->root);
        r.depth = d;
        if (s->root[0].score > SEARCH_MATE_BOUND && SEARCH_MATE - s->root[0].score <= d) break;
    }
    r.best = s->root_done[0].move;
    r.score = s->root_done[0].score;
    r.nodes = s->nodes;
    return r;
}
