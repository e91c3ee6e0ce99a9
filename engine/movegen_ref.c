/* movegen_ref.c - the slow, obviously-correct reference generator. It reads the piece
 * tables literally and tests legality by make, attack walk, unmake. Tests and the
 * consistency checker compare every fast generator against it. */
#include "movegen.h"
#include "variant.h"

/* Square (f, r) if on the board, else -1. */
static inline int ref_sq(const Position *p, int f, int r) {
    return f >= 0 && f < p->width && r >= 0 && r < p->height ? r * p->width + f : -1;
}

/* Vector of a component for colour c (oriented pieces mirror for Black). */
static inline void comp_vec(const PieceDef *d, const MoveComp *mc, int c, int *df, int *dr) {
    *df = mc->df;
    *dr = (d->flags & PF_ORIENTED) && c == BLACK ? -mc->dr : mc->dr;
}

/* Whether the lame squares of a leap from s are all empty. */
static bool lame_clear(const Position *p, const PieceDef *d, const MoveComp *mc, int c, int s) {
    for (int i = 0; i < mc->nlame; i++) {
        int lr = (d->flags & PF_ORIENTED) && c == BLACK ? -mc->lame[i][1] : mc->lame[i][1];
        int q = ref_sq(p, s % p->width + mc->lame[i][0], s / p->width + lr);
        if (q < 0 || p->board[q]) return false;
    }
    return true;
}

/* Whether the component's condition holds for a piece of colour c on s. */
static bool cond_holds(const Position *p, const MoveComp *mc, int c, int s) {
    int r = s / p->width, rel = c == WHITE ? r : p->height - 1 - r;
    switch (mc->cond) {
    case MCOND_START_RANK: return r == p->var->pawn_start_rank[c];
    case MCOND_FIRST_TWO: return rel <= 1;
    default: return true;
    }
}

bool ref_square_attacked(const Position *p, int sq, int by) {
    for (int s = 0; s < p->nsq; s++) {
        int pc = p->board[s];
        if (!pc || PC_COLOR(pc) != by) continue;
        const PieceDef *d = pos_def(p, pc);
        if (d->flags & PF_NO_CAPTURE) continue;
        for (int i = 0; i < d->ncomp; i++) {
            const MoveComp *mc = &d->comp[i];
            if (!(mc->mode & MM_CAPTURE) || !cond_holds(p, mc, by, s)) continue;
            int df, dr;
            comp_vec(d, mc, by, &df, &dr);
            int f = s % p->width, r = s / p->width;
            if (mc->kind == MC_LEAP) {
                if (ref_sq(p, f + df, r + dr) == sq && lame_clear(p, d, mc, by, s)) return true;
            } else if (mc->kind == MC_RIDE) {
                for (int k = 1; !mc->range || k <= mc->range; k++) {
                    int q = ref_sq(p, f + k * df, r + k * dr);
                    if (q < 0) break;
                    if (q == sq) return true;
                    if (p->board[q]) break;
                }
            }
        }
    }
    return false;
}

bool ref_royal_attacked(const Position *p, int c) {
    for (int s = 0; s < p->nsq; s++) {
        int pc = p->board[s];
        if (pc && PC_COLOR(pc) == c && (pos_def(p, pc)->flags & PF_ROYAL) &&
            ref_square_attacked(p, s, c ^ 1))
            return true;
    }
    return false;
}

/* Appends a board move, expanding promotions when a promoting piece reaches its last rank. */
static int add_move(const Position *p, Move *out, int n, int from, int to, int kind,
                    const PieceDef *d, int c) {
    int last = c == WHITE ? p->height - 1 : 0;
    if ((d->flags & PF_PROMOTES) && to / p->width == last) {
        for (const uint8_t *t = p->var->promo_types; *t; t++)
            out[n++] = MOVE_MAKE(from, to, NO_SQ, *t, kind);
    } else {
        out[n++] = MOVE_SIMPLE(from, to, kind);
    }
    return n;
}

/* Pseudo-legal board moves of the piece on s. */
static int ref_piece_moves(const Position *p, int s, Move *out, int n) {
    int pc = p->board[s], c = PC_COLOR(pc);
    const PieceDef *d = pos_def(p, pc);
    int f = s % p->width, r = s / p->width;
    for (int i = 0; i < d->ncomp; i++) {
        const MoveComp *mc = &d->comp[i];
        if (!cond_holds(p, mc, c, s)) continue;
        int df, dr;
        comp_vec(d, mc, c, &df, &dr);
        for (int k = 1;; k++) {
            int q = ref_sq(p, f + k * df, r + k * dr);
            if (q < 0) break;
            if (mc->kind == MC_LEAP && !lame_clear(p, d, mc, c, s)) break;
            int tgt = p->board[q];
            bool capture_ok = (mc->mode & MM_CAPTURE) && !(d->flags & PF_NO_CAPTURE);
            if (!tgt) {
                if (mc->mode & MM_MOVE) {
                    int kind =
                        (d->flags & PF_PAWN) && (dr == 2 || dr == -2) ? MK_DOUBLE : MK_NORMAL;
                    n = add_move(p, out, n, s, q, kind, d, c);
                } else if (capture_ok && q == p->ep && (d->flags & PF_PAWN)) {
                    n = add_move(p, out, n, s, q, MK_EP, d, c);
                }
            } else if (PC_COLOR(tgt) != c && capture_ok) {
                n = add_move(p, out, n, s, q, MK_NORMAL, d, c);
            }
            if (mc->kind != MC_RIDE || tgt || (mc->range && k >= mc->range)) break;
        }
    }
    return n;
}

/* Orthodox castling: king on e, rook in the corner, right held, path empty, king not in
 * check and not crossing or landing on an attacked square. */
static int ref_castling(const Position *p, Move *out, int n) {
    int c = p->side, home = c == WHITE ? 0 : p->height - 1;
    int k = ref_sq(p, 4, home);
    for (int side = 0; side < 2; side++) {
        int bit = c == WHITE ? (side ? CASTLE_WQ : CASTLE_WK) : (side ? CASTLE_BQ : CASTLE_BK);
        if (!(p->castle & (uint32_t)bit)) continue;
        int rook = ref_sq(p, side ? 0 : 7, home), dir = side ? -1 : 1;
        if (!pos_piece_has(p, k, c, PF_ROYAL) || !pos_piece_has(p, rook, c, PF_CASTLE_ROOK))
            continue;
        bool ok = true;
        for (int q = k + dir; q != rook; q += dir) ok &= !p->board[q];
        for (int q = k; ok && q != k + 3 * dir; q += dir) ok &= !ref_square_attacked(p, q, c ^ 1);
        if (ok) out[n++] = MOVE_SIMPLE(k, k + 2 * dir, MK_CASTLE);
    }
    return n;
}

/* Switches of two neighbouring own pieces of different types (never in check). */
static int ref_switches(const Position *p, Move *out, int n) {
    int c = p->side, last = c == WHITE ? p->height - 1 : 0;
    for (int a = 0; a < p->nsq; a++)
        for (int b = 0; b < p->nsq; b++) {
            int pa = p->board[a], pb = p->board[b];
            if (!pa || !pb || PC_COLOR(pa) != c || PC_COLOR(pb) != c || PC_TYPE(pa) == PC_TYPE(pb))
                continue;
            int fa = a % p->width, ra = a / p->width, fb = b % p->width, rb = b / p->width;
            int adf = fa > fb ? fa - fb : fb - fa, adr = ra > rb ? ra - rb : rb - ra;
            if (adf > 1 || adr > 1) continue;
            if (fa > fb || (fa == fb && ra >= rb)) continue; /* once per pair, file first */
            bool promo = ((pos_def(p, pa)->flags & PF_PROMOTES) && rb == last) ||
                         ((pos_def(p, pb)->flags & PF_PROMOTES) && ra == last);
            if (promo) {
                for (const uint8_t *t = p->var->promo_types; *t; t++)
                    out[n++] = MOVE_MAKE(a, b, NO_SQ, *t, MK_SWITCH);
            } else {
                out[n++] = MOVE_SIMPLE(a, b, MK_SWITCH);
            }
        }
    return n;
}

int movegen_reference(Position *p, Move *out) {
    Move pseudo[MAX_MOVES];
    int np = 0, us = p->side;
    for (int s = 0; s < p->nsq; s++)
        if (p->board[s] && PC_COLOR(p->board[s]) == us) np = ref_piece_moves(p, s, pseudo, np);
    bool check = ref_royal_attacked(p, us);
    if ((p->var->rules & RULE_CASTLING) && !check) np = ref_castling(p, pseudo, np);
    if ((p->var->rules & RULE_SWITCH) && !check) np = ref_switches(p, pseudo, np);
    int n = 0;
    for (int i = 0; i < np; i++) {
        pos_make(p, pseudo[i]);
        if (!ref_royal_attacked(p, us)) out[n++] = pseudo[i];
        pos_unmake(p);
    }
    return n;
}
