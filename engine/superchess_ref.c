/* superchess_ref.c - the Superchess reference generator: statuses read from each piece's
 * neighbours, components walked on the mailbox, legality by make, literal attack walk,
 * unmake (spec 5 and 6). Tests compare the fast generator with it. */
#include <string.h>

#include "superchess.h"

enum { ST_IMMUNE = 1, ST_FROZEN = 2, ST_NEUTRAL = 4 };

/* Status of the piece on s, from the spec's table, by looking at its neighbours. */
static int ref_status(const Position *p, int s) {
    int pc = p->board[s], c = PC_COLOR(pc), f = s % 8, r = s / 8;
    if ((pos_def(p, pc)->flags & PF_IMMUNE_ZONE) && (c == WHITE ? r == 7 : r == 0) &&
        (f == 0 || f == 7))
        return ST_IMMUNE;
    int st = 0;
    for (int df = -1; df <= 1; df++)
        for (int dr = -1; dr <= 1; dr++) {
            if ((!df && !dr) || !on_board(f + df, r + dr)) continue;
            int q = p->board[(r + dr) * 8 + f + df];
            if (!q || PC_COLOR(q) == c) continue;
            if (pos_def(p, q)->flags & PF_FREEZES) st |= ST_FROZEN;
            if (pos_def(p, q)->flags & PF_PACIFIES) st |= ST_NEUTRAL;
        }
    return st;
}

/* Writes into out the squares component mc of the piece on s reaches under the current
 * occupancy (leaps: lame squares empty; rides: up to the first occupied square). */
static int ref_comp_targets(const Position *p, int s, const MoveComp *mc, int *out) {
    int pc = p->board[s], c = PC_COLOR(pc), f = s % 8, r = s / 8, n = 0;
    const PieceDef *d = pos_def(p, pc);
    int dr = comp_dr(d, c, mc->dr);
    if (mc->kind == MC_LEAP) {
        if (!comp_cond_ok(p->var, mc, c, s) || !on_board(f + mc->df, r + dr)) return 0;
        for (int i = 0; i < mc->nlame; i++) {
            int lf = f + mc->lame[i][0], lr = r + comp_dr(d, c, mc->lame[i][1]);
            if (!on_board(lf, lr) || p->board[lr * 8 + lf]) return 0;
        }
        out[n++] = (r + dr) * 8 + f + mc->df;
    } else if (mc->kind == MC_RIDE) {
        for (int k = 1, tf = f + mc->df, tr = r + dr;
             on_board(tf, tr) && (!mc->range || k <= mc->range); k++, tf += mc->df, tr += dr) {
            out[n++] = tr * 8 + tf;
            if (p->board[tr * 8 + tf]) break;
        }
    }
    return n;
}

/* Whether colour `by` attacks q: some piece of `by`, not M or F, neither frozen nor
 * neutralised, has q in its capture geometry. */
static bool ref_attacked(const Position *p, int q, int by) {
    for (int s = 0; s < 64; s++) {
        int pc = p->board[s];
        if (!pc || PC_COLOR(pc) != by) continue;
        const PieceDef *d = pos_def(p, pc);
        if ((d->flags & PF_NO_CAPTURE) || (ref_status(p, s) & (ST_FROZEN | ST_NEUTRAL))) continue;
        for (int i = 0; i < d->ncomp; i++) {
            if (!(d->comp[i].mode & MM_CAPTURE)) continue;
            int dest[8], nd = ref_comp_targets(p, s, &d->comp[i], dest);
            for (int k = 0; k < nd; k++)
                if (dest[k] == q) return true;
        }
    }
    return false;
}

/* Whether any monarch of colour c is attacked, by the mailbox walk. */
static bool ref_royal_attacked(const Position *p, int c) {
    for (int s = 0; s < 64; s++) {
        int pc = p->board[s];
        if (pc && PC_COLOR(pc) == c && (pos_def(p, pc)->flags & PF_ROYAL) &&
            ref_attacked(p, s, c ^ 1))
            return true;
    }
    return false;
}

/* Keeps the moves after which no monarch of the mover is attacked: make, test every own
 * monarch with the mailbox walk, unmake (spec 5). */
static int ref_filter_legal(Position *p, Move *list, int n) {
    int us = p->side, k = 0;
    for (int i = 0; i < n; i++) {
        sc_make(p, list[i]);
        bool bad = ref_royal_attacked(p, us);
        sc_unmake(p);
        if (!bad) list[k++] = list[i];
    }
    return k;
}

/* Legal moves by the literal reading of the rules, status recomputed from scratch. */
int sc_gen_reference(Position *p, Move *list) {
    int us = p->side, them = us ^ 1, n = 0;
    Move pseudo[MAX_MOVES];
    for (int s = 0; s < 64; s++) {
        int pc = p->board[s];
        if (!pc || PC_COLOR(pc) != us) continue;
        int st = ref_status(p, s);
        if (st & ST_FROZEN) continue;
        const PieceDef *d = pos_def(p, pc);
        bool can_cap = !(st & ST_NEUTRAL) && !(d->flags & PF_NO_CAPTURE);
        bool seen[64] = {false};
        for (int i = 0; i < d->ncomp; i++) {
            const MoveComp *mc = &d->comp[i];
            int dest[8], nd = ref_comp_targets(p, s, mc, dest);
            for (int k = 0; k < nd; k++) {
                int q = dest[k], victim = p->board[q];
                bool ok;
                if (!victim) ok = mc->mode & MM_MOVE;
                else
                    ok = (mc->mode & MM_CAPTURE) && can_cap && PC_COLOR(victim) != us &&
                         !(pos_def(p, victim)->flags & PF_ROYAL) && !(ref_status(p, q) & ST_IMMUNE);
                if (!victim && (mc->mode & MM_CAPTURE) && can_cap && (d->flags & PF_PAWN) &&
                    q == p->ep) {
                    n = emit_board_move(p, pseudo, n, s, q, MK_EP, false);
                    continue;
                }
                if (!ok || seen[q]) continue;
                seen[q] = true;
                int kind =
                    (d->flags & PF_PAWN) && mc->cond == MCOND_START_RANK ? MK_DOUBLE : MK_NORMAL;
                n = emit_board_move(p, pseudo, n, s, q, kind, (d->flags & PF_PROMOTES) != 0);
            }
        }
    }
    /* Castling, condition by condition as in spec 6.6. */
    static const struct {
        int monarch, mfile, tfile, rfile;
    } cs[4] = {{SC_K, 4, 2, 0}, {SC_K, 4, 6, 7}, {SC_E, 3, 1, 0}, {SC_E, 3, 5, 7}};
    int home = us == WHITE ? 0 : 56;
    for (int i = 0; i < 4; i++) {
        if (!((p->castle >> (us * 4 + i)) & 1)) continue;
        int mf = home + cs[i].mfile, rf = home + cs[i].rfile, mt = home + cs[i].tfile;
        if (p->board[mf] != PC_MAKE(us, cs[i].monarch) || p->board[rf] != PC_MAKE(us, SC_R))
            continue;
        bool clear = true;
        int lo = mf < rf ? mf : rf, hi = mf < rf ? rf : mf;
        for (int q = lo + 1; q < hi; q++) clear = clear && !p->board[q];
        if (!clear || (ref_status(p, mf) & ST_FROZEN) || (ref_status(p, rf) & ST_FROZEN)) continue;
        if (ref_attacked(p, mf, them) || ref_attacked(p, (mf + mt) / 2, them) ||
            ref_attacked(p, mt, them))
            continue;
        pseudo[n++] = MOVE_MAKE(mf, mt, NO_SQ, 0, MK_CASTLE);
    }
    for (int s = 0; s < 64; s++) {
        if (p->board[s]) continue;
        if (p->hand[us][SC_L] && s / 8 == (us == WHITE ? 0 : 7))
            pseudo[n++] = MOVE_MAKE(s, s, NO_SQ, SC_L, MK_DROP);
        if (p->hand[us][SC_X]) pseudo[n++] = MOVE_MAKE(s, s, NO_SQ, SC_X, MK_DROP);
    }
    n = ref_filter_legal(p, pseudo, n);
    memcpy(list, pseudo, (size_t)n * sizeof *list);
    return n;
}
