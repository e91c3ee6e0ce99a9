/* eval.c - material and piece-square evaluation for every registered variant. */
#include "eval.h"

#include "eval_params.h"

#include <string.h>

/* Value of piece type t: the variant record's, 0 for royal pieces. */
static int eval_value_of(const Variant *v, int t) {
    const PieceDef *pd = &v->pieces[t];
    return pd->flags & PF_ROYAL ? 0 : pd->value;
}

/* Placement bonus of type t on square sq for White: pawns gain as they advance, royals
 * stay home, other pieces like the centre. */
static int eval_placement(const Variant *v, int t, int sq) {
    const PieceDef *pd = &v->pieces[t];
    int w = v->width, h = v->height;
    int file = sq % w, rank = sq / w;
    /* twice the distance to the centre, Chebyshev: 0 on the central squares */
    int df = 2 * file - (w - 1), dr = 2 * rank - (h - 1);
    if (df < 0) df = -df;
    if (dr < 0) dr = -dr;
    int dist = (df > dr ? df : dr) / 2;
    if (pd->flags & PF_ROYAL) return -6 * rank;
    if (pd->flags & (PF_PAWN | PF_PAWN_PIECE | PF_PROMOTES)) {
        int adv = rank - 1 < 0 ? 0 : rank - 1;
        int central = (w / 2 - 1 - (df / 2)) > 0 ? 2 : 0;
        return 6 * adv + central * (rank >= 2 && rank <= h - 3 ? 4 : 0);
    }
    return 4 * ((w > h ? w : h) / 2 - 1 - dist);
}

/* Builds the value and piece-square tables of variant v once, so evaluation is one table lookup per
 * piece. */
void eval_init(EvalParams *ep, const Variant *v) {
    memset(ep, 0, sizeof *ep);
    ep->var = v;
    int nsq = v->width * v->height;
    const EvalTuned *tp = eval_tuned_find(v); /* fitted to self-play data, if kept */
    ep->tempo = tp ? tp->tempo : 8;
    for (int t = 1; t <= v->npt; t++) {
        ep->value[t] = tp ? tp->value[t] : eval_value_of(v, t);
        ep->hand_value[t] = tp && tp->hand ? tp->hand[t] : ep->value[t];
        for (int sq = 0; sq < nsq; sq++) {
            int file = sq % v->width, rank = sq / v->width;
            int mirror = (v->height - 1 - rank) * v->width + file;
            int w = tp ? tp->psq[t * nsq + sq] : eval_placement(v, t, sq);
            int b = tp ? tp->psq[t * nsq + mirror] : eval_placement(v, t, mirror);
            ep->psq[PC_MAKE(WHITE, t)][sq] = (int16_t)(ep->value[t] + w);
            ep->psq[PC_MAKE(BLACK, t)][sq] = (int16_t) - (ep->value[t] + b);
        }
    }
}

/* Sum of the piece-square values of the pieces on the squares of bitboard b. */
static inline int eval_sum_bits(const EvalParams *ep, const Position *pos, uint64_t b, int offset) {
    int s = 0;
    while (b) {
        int sq = __builtin_ctzll(b) + offset;
        b &= b - 1;
        s += ep->psq[pos->board[sq]][sq];
    }
    return s;
}

/* Material, placement and hand pieces, for the side to move. */
int eval_position(const EvalParams *ep, const Position *pos) {
    int s;
    if (pos->wide) {
        Bitboard128 occ = pos->bb.b10.color[WHITE] | pos->bb.b10.color[BLACK];
        s = eval_sum_bits(ep, pos, (uint64_t)occ, 0) +
            eval_sum_bits(ep, pos, (uint64_t)(occ >> 64), 64);
    } else {
        s = eval_sum_bits(ep, pos, pos->bb.b8.color[WHITE] | pos->bb.b8.color[BLACK], 0);
    }
    if (pos->var->rules & RULE_DROPS)
        for (int t = 1; t <= pos->var->npt; t++)
            s += (pos->hand[WHITE][t] - pos->hand[BLACK][t]) * ep->hand_value[t];
    s = pos->side == WHITE ? s : -s;
    return s + ep->tempo; /* the side to move has the initiative */
}
