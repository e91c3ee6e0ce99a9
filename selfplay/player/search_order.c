/* search_order.c - move ordering of the search: move scores, and the history updates after
 * a cut-off. */
#include "search_order.h"

/* Scores every move of the list for ordering: hash move, captures that cannot lose
 * material by the victim - attacker bound (all captures where the bound does not hold),
 * promotions, killers, the counter-move, the other captures, then quiet moves by history. */
void search_score_moves(Search *s, const Position *pos, Move *list, int *sc, int n, Move hash,
                        int ply) {
    Move counter = MOVE_NONE;
    int16_t *c1 = NULL, *c2 = NULL;
    if (ply < SEARCH_MAX_PLY) search_cont_rows(s, ply, &c1, &c2);
    if (pos->ply > 0 && ply < SEARCH_MAX_PLY) {
        Move prev = pos->stack[pos->ply - 1].move;
        if (prev != MOVE_NONE) counter = s->counter[pos->board[MOVE_TO(prev)] & 63][MOVE_TO(prev)];
    }
    for (int i = 0; i < n; i++) {
        Move m = list[i];
        if (m == hash) {
            sc[i] = ORDER_HASH;
            continue;
        }
        int victim = search_victim_value(s, pos, m);
        if (victim > 0) {
            int attacker = search_attacker_value(s, pos, m);
            int mvv = search_mvv_lva(victim, attacker);
            bool good = victim >= attacker ||
                        (s->see ? pos_see_ge(pos, m, 0, s->see_value) : !s->see_bound);
            sc[i] = (good ? ORDER_GOOD_CAPTURE : ORDER_BAD_CAPTURE) + mvv +
                    *search_capt_entry(s, pos, m) / 16;
        } else if (MOVE_PROMO(m) && MOVE_KIND(m) != MK_DROP) {
            sc[i] = ORDER_PROMOTION + s->value[MOVE_PROMO(m)];
        } else if (ply < SEARCH_MAX_PLY && (m == s->killers[ply][0] || m == s->killers[ply][1])) {
            sc[i] = ORDER_KILLER + (m == s->killers[ply][0]);
        } else if (m == counter) {
            sc[i] = ORDER_COUNTER;
        } else {
            sc[i] = search_quiet_stat(s, pos, m, c1, c2);
        }
    }
}

/* The size of a history bonus or malus after a cut-off at depth. */
static inline int search_history_bonus(int depth) {
    return (depth * depth > 400 ? 400 : depth * depth) * 32;
}

/* Moves a history entry by b, less the further it already is from 0 in b's direction. */
static inline void search_gravity(int16_t *h, int b) {
    *h = (int16_t)(*h + b - *h * (b < 0 ? -b : b) / HIST_MAX);
}

/* Rewards the quiet move that cut off and penalises the quiet moves tried before it, in the
 * butterfly history and the continuation histories of the node at ply (pos before the move;
 * history with gravity: entries stay within +-HIST_MAX). */
void search_history_update(Search *s, const Position *pos, int ply, const Move *quiets, int nq,
                           Move best, int depth) {
    int bonus = search_history_bonus(depth);
    int16_t *c1, *c2;
    search_cont_rows(s, ply, &c1, &c2);
    for (int i = 0; i < nq; i++) {
        int b = quiets[i] == best ? bonus : -bonus;
        search_gravity(&s->history[pos->side][MOVE_FROM(quiets[i])][MOVE_TO(quiets[i])], b);
        if (c1 || c2) {
            int k = search_cont_key(s, pos, quiets[i]);
            if (c1) search_gravity(&c1[k], b);
            if (c2) search_gravity(&c2[k], b);
        }
    }
}

/* Rewards the capture that cut off (if it was one) and penalises the captures tried before
 * it, in the capture history. */
void search_capt_update(Search *s, const Position *pos, const Move *capts, int nc, Move best,
                        int depth) {
    int bonus = search_history_bonus(depth);
    for (int i = 0; i < nc; i++)
        search_gravity(search_capt_entry(s, pos, capts[i]), capts[i] == best ? bonus : -bonus);
}
