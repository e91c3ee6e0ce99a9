/* search_order.h - move ordering of the search (internal to selfplay/): capture values,
 * the history tables' keys and entries, move scoring and the history updates. */
#ifndef CHESSVAR_SEARCH_ORDER_H
#define CHESSVAR_SEARCH_ORDER_H

#include "search.h"

#define HIST_MAX 16000 /* history entries stay within +-HIST_MAX */

/* The tiers of move ordering, highest first: a move's score is its tier plus its rank
 * within it (search_score_moves). Quiet moves below the killers and the counter-move are
 * ranked by their history alone, which stays below ORDER_BAD_CAPTURE. */
#define ORDER_HASH         (1 << 30) /* the hash move */
#define ORDER_GOOD_CAPTURE (1 << 26) /* captures that cannot lose material */
#define ORDER_PROMOTION    (1 << 25)
#define ORDER_KILLER       (1 << 24)
#define ORDER_COUNTER      (1 << 23) /* the counter-move of the move before */
#define ORDER_BAD_CAPTURE  (1 << 22) /* the other captures */

/* Rank of a capture among captures: most valuable victim first, then least valuable
 * attacker (quiescence orders by it alone, the search adds capture history). */
static inline int search_mvv_lva(int victim, int attacker) { return victim * 16 - attacker / 16; }

/* Value of what m captures before it is made (0 if it captures nothing visible). */
static inline int search_victim_value(const Search *s, const Position *pos, Move m) {
    int kind = MOVE_KIND(m);
    int pc = pos->board[MOVE_TO(m)], mid = MOVE_MID(m);
    if (!pc && mid == NO_SQ && kind != MK_EP) return 0; /* the common quiet move */
    if (kind == MK_DROP || kind == MK_SWITCH || kind == MK_CASTLE) return 0;
    int v = 0, them = pos->side ^ 1;
    if (pc && PC_COLOR(pc) == them) v += s->value[PC_TYPE(pc)];
    if (mid != NO_SQ && mid < pos->nsq) {
        pc = pos->board[mid];
        if (pc && PC_COLOR(pc) == them) v += s->value[PC_TYPE(pc)];
    }
    if (kind == MK_EP) v += s->ep_value;
    return v;
}

/* Value of the piece that makes m (0 for a drop). */
static inline int search_attacker_value(const Search *s, const Position *pos, Move m) {
    return MOVE_KIND(m) == MK_DROP ? 0 : s->value[PC_TYPE(pos->board[MOVE_FROM(m)])];
}

/* Continuation-history key of move m in pos (before it is made): the moving piece (the
 * dropped one for a drop) and its target square. */
static inline int search_cont_key(const Search *s, const Position *pos, Move m) {
    int pc = MOVE_KIND(m) == MK_DROP ? PC_MAKE(pos->side, MOVE_PROMO(m)) : pos->board[MOVE_FROM(m)];
    return s->cont_base[pc] + MOVE_TO(m);
}

/* The continuation-history rows of the moves one and two plies before a node at ply (NULL
 * where there is none: the root, a null move). */
static inline void search_cont_rows(Search *s, int ply, int16_t **c1, int16_t **c2) {
    int k1 = ply >= 1 ? s->cont_at[ply - 1] : -1, k2 = ply >= 2 ? s->cont_at[ply - 2] : -1;
    *c1 = k1 >= 0 ? s->cont + (size_t)k1 * s->cont_n : NULL;
    *c2 = k2 >= 0 ? s->cont + (size_t)k2 * s->cont_n : NULL;
}

/* The capture-history entry of capture m in pos (before it is made): by the moving piece,
 * its target and the type it lands on (0 for a capture elsewhere: e.p., a hop, a blast). */
static inline int16_t *search_capt_entry(Search *s, const Position *pos, Move m) {
    int pc = pos->board[MOVE_TO(m)];
    return &s->capt[(size_t)search_cont_key(s, pos, m) * MAX_PT + (pc ? PC_TYPE(pc) : 0)];
}

/* History score of quiet move m: butterfly history plus both continuation histories. */
static inline int search_quiet_stat(const Search *s, const Position *pos, Move m, const int16_t *c1,
                                    const int16_t *c2) {
    int v = s->history[pos->side][MOVE_FROM(m)][MOVE_TO(m)];
    if (c1 || c2) {
        int k = search_cont_key(s, pos, m);
        if (c1) v += c1[k];
        if (c2) v += c2[k];
    }
    return v;
}

/* Moves the best-scored remaining move to index i (selection sort, lazily). */
static inline void search_pick(Move *list, int *sc, int n, int i) {
    int best = sc[i]; /* the highest score first (a loop without branches: vectorised) */
    for (int j = i + 1; j < n; j++) best = sc[j] > best ? sc[j] : best;
    if (best == sc[i]) return; /* the first move with it is already in place */
    int b = i + 1;
    while (sc[b] != best) b++;
    Move tm = list[i];
    list[i] = list[b];
    list[b] = tm;
    sc[b] = sc[i];
    sc[i] = best;
}

/* Scores every move of list[0..n) for ordering at ply (hash: the table's move, first). */
void search_score_moves(Search *s, const Position *pos, Move *list, int *sc, int n, Move hash,
                        int ply);
/* After a cut-off by best at depth: the quiet moves tried at ply (best among them if it is
 * quiet) in the butterfly and continuation histories. */
void search_history_update(Search *s, const Position *pos, int ply, const Move *quiets, int nq,
                           Move best, int depth);
/* After a cut-off by best at depth: the captures tried, in the capture history. */
void search_capt_update(Search *s, const Position *pos, const Move *capts, int nc, Move best,
                        int depth);

#endif
