/* supremo_ref.c - the Supremo reference generator: every piece's components walked
 * literally on a scratch mailbox, an attack test that generates every enemy pseudo-move,
 * and legality by make, attack test, unmake. Tests compare the fast generator with it. */
#include <stdlib.h>
#include <string.h>

#include "supremo.h"

/* A move list being filled by the reference walker. */
typedef struct RefList {
    int n;
    Move *m;
} RefList;

/* Literal context of one piece's reference walk on a scratch mailbox. */
typedef struct RefWalk {
    const Variant *v;
    uint8_t board[MAX_SQ];
    int w, h, side, origin;
    RefList *out;
    uint64_t seen[(MAX_SQ * (MAX_SQ + 1) + 63) / 64]; /* (to, mid) already listed for origin */
} RefWalk;

/* Appends from -> to for the piece pc (one move per promotion type on its last rank),
 * unless the same (to, mid) was already listed for this origin by another route. */
static void ref_add_piece(RefWalk *rw, int pc, int to, int mid, int kind) {
    const Variant *v = rw->v;
    int key = to * (MAX_SQ + 1) + (mid == NO_SQ ? MAX_SQ : mid);
    if (rw->seen[key >> 6] & (1ull << (key & 63))) return;
    rw->seen[key >> 6] |= 1ull << (key & 63);
    int last = rw->side == WHITE ? rw->h - 1 : 0;
    if ((v->pieces[PC_TYPE(pc)].flags & PF_PROMOTES) && to / rw->w == last) {
        for (int i = 0; v->promo_types[i]; i++)
            rw->out->m[rw->out->n++] = MOVE_MAKE(rw->origin, to, mid, v->promo_types[i], kind);
        return;
    }
    rw->out->m[rw->out->n++] = MOVE_MAKE(rw->origin, to, mid, 0, kind);
}

/* What the walker finds on sq: 0 empty, 1 capturable enemy, 2 anything else. */
static int ref_look(const RefWalk *rw, int sq) {
    int pc = rw->board[sq];
    if (pc == PC_EMPTY) return 0;
    return sup_capturable(rw->v, pc, rw->side) ? 1 : 2;
}

/* A multi-step K/jK walk, step by step on the scratch board: every landing empty, or
 * capturable when the walk captures (removed at once); the end may be the origin only
 * after an intermediate capture. */
static void ref_walk_steps(RefWalk *rw, int pc, int cur, int left, int mode, int mid,
                           bool captured) {
    if (left == 0) {
        if (cur == rw->origin && !captured) return;
        ref_add_piece(rw, pc, cur, mid, mid != NO_SQ ? MK_MULTI : MK_NORMAL);
        return;
    }
    int f = cur % rw->w, r = cur / rw->w;
    for (int d = 0; d < 8; d++) {
        int f1 = f + SUP_DF[d], r1 = r + SUP_DR[d];
        if (!sup_on(f1, r1, rw->w, rw->h)) continue;
        int nb = r1 * rw->w + f1;
        int cand[2] = {nb, NO_SQ};
        int f2 = f1 + SUP_DF[d], r2 = r1 + SUP_DR[d];
        if (rw->board[nb] != PC_EMPTY && sup_on(f2, r2, rw->w, rw->h)) cand[1] = r2 * rw->w + f2;
        for (int j = 0; j < 2; j++) {
            int x = cand[j];
            if (x == NO_SQ) continue;
            int look = ref_look(rw, x);
            if (look == 2 || (look == 1 && !(mode & MM_CAPTURE))) continue;
            int victim = rw->board[x];
            rw->board[cur] = PC_EMPTY;
            rw->board[x] = (uint8_t)pc;
            bool inter = look == 1 && left > 1;
            ref_walk_steps(rw, pc, x, left - 1, mode, inter ? x : mid, captured || inter);
            rw->board[x] = (uint8_t)victim;
            rw->board[cur] = (uint8_t)pc;
        }
    }
}

/* Every pseudo-legal move of one piece on `from`, by walking its components literally. */
static void ref_piece_moves(RefWalk *rw, int from) {
    const Variant *v = rw->v;
    int pc = rw->board[from];
    const PieceDef *pd = &v->pieces[PC_TYPE(pc)];
    bool no_capture = pd->flags & PF_NO_CAPTURE;
    int kind = (pd->flags & PF_BLAST) ? MK_MULTI : MK_NORMAL;
    int sign = (pd->flags & PF_ORIENTED) && rw->side == BLACK ? -1 : 1;
    int f = from % rw->w, r = from / rw->w;
    rw->origin = from;
    memset(rw->seen, 0, sizeof rw->seen);
    for (int i = 0; i < pd->ncomp; i++) {
        const MoveComp *mc = &pd->comp[i];
        int mode = no_capture ? (mc->mode & MM_MOVE) : mc->mode;
        int df = mc->df, dr = sign * mc->dr;
        switch (mc->kind) {
        case MC_LEAP: {
            if (mc->cond == MCOND_START_RANK && r != v->pawn_start_rank[rw->side]) break;
            if (mc->cond == MCOND_FIRST_TWO) {
                int rel = rw->side == WHITE ? r : rw->h - 1 - r;
                if (rel > 1) break;
            }
            if (!sup_on(f + df, r + dr, rw->w, rw->h)) break;
            bool open = true;
            for (int k = 0; k < mc->nlame; k++) {
                int lf = f + mc->lame[k][0], lr = r + sign * mc->lame[k][1];
                open &= sup_on(lf, lr, rw->w, rw->h) && rw->board[lr * rw->w + lf] == PC_EMPTY;
            }
            if (!open) break;
            int to = (r + dr) * rw->w + f + df;
            int look = ref_look(rw, to);
            if ((look == 0 && (mode & MM_MOVE)) || (look == 1 && (mode & MM_CAPTURE)))
                ref_add_piece(rw, pc, to, NO_SQ, kind);
            break;
        }
        case MC_RIDE:
        case MC_HOP: {
            int steps = 0, screen = 0;
            for (int ff = f + df, rr = r + dr; sup_on(ff, rr, rw->w, rw->h); ff += df, rr += dr) {
                int to = rr * rw->w + ff;
                steps++;
                int look = ref_look(rw, to);
                if (mc->kind == MC_RIDE) {
                    if (mc->range && steps > mc->range) break;
                    if (look == 0) {
                        if (mode & MM_MOVE) ref_add_piece(rw, pc, to, NO_SQ, kind);
                        continue;
                    }
                    if (look == 1 && (mode & MM_CAPTURE)) ref_add_piece(rw, pc, to, NO_SQ, kind);
                    break;
                }
                if (!screen) {
                    if (look != 0) screen = 1;
                    continue;
                }
                if (look == 0) {
                    if (mode & MM_MOVE) ref_add_piece(rw, pc, to, NO_SQ, kind);
                    continue;
                }
                if (look == 1 && (mode & MM_CAPTURE)) ref_add_piece(rw, pc, to, NO_SQ, kind);
                break;
            }
            break;
        }
        case MC_JSTEP: {
            int f1 = f + df, r1 = r + dr, f2 = f1 + df, r2 = r1 + dr;
            if (!sup_on(f2, r2, rw->w, rw->h) || rw->board[r1 * rw->w + f1] == PC_EMPTY) break;
            int to = r2 * rw->w + f2;
            int look = ref_look(rw, to);
            if ((look == 0 && (mode & MM_MOVE)) || (look == 1 && (mode & MM_CAPTURE)))
                ref_add_piece(rw, pc, to, NO_SQ, kind);
            break;
        }
        case MC_DLEAP: {
            int img[8][2];
            int ni = sup_leap_images(mc->df, mc->dr, img);
            for (int a = 0; a < ni; a++) {
                int mf = f + img[a][0], mr = r + img[a][1];
                if (!sup_on(mf, mr, rw->w, rw->h)) continue;
                int m = mr * rw->w + mf;
                int look = ref_look(rw, m);
                if (look == 2 || (look == 1 && !(mode & MM_CAPTURE))) continue;
                int victim = rw->board[m];
                rw->board[from] = PC_EMPTY;
                rw->board[m] = (uint8_t)pc;
                for (int b = 0; b < ni; b++) {
                    int tf = mf + img[b][0], tr = mr + img[b][1];
                    if (!sup_on(tf, tr, rw->w, rw->h)) continue;
                    int to = tr * rw->w + tf;
                    int look2 = ref_look(rw, to);
                    if (look2 == 2 || (look2 == 1 && !(mode & MM_CAPTURE))) continue;
                    if (to == from && look != 1) continue;
                    if (look == 1) ref_add_piece(rw, pc, to, m, MK_MULTI);
                    else ref_add_piece(rw, pc, to, NO_SQ, kind);
                }
                rw->board[m] = (uint8_t)victim;
                rw->board[from] = (uint8_t)pc;
            }
            break;
        }
        case MC_WALK: ref_walk_steps(rw, pc, from, mc->range, mode, NO_SQ, false); break;
        default: break;
        }
    }
}

/* Pseudo-legal moves of `side` from the literal mailbox walker (deduplicated). */
int supremo_pseudo_reference(const Position *pos, int side, Move *list) {
    RefList out = {0, list};
    RefWalk rw;
    rw.v = pos->var;
    rw.w = pos->width;
    rw.h = pos->height;
    rw.side = side;
    rw.out = &out;
    memcpy(rw.board, pos->board, sizeof rw.board);
    for (int s = 0; s < rw.w * rw.h; s++)
        if (rw.board[s] != PC_EMPTY && PC_COLOR(rw.board[s]) == side) ref_piece_moves(&rw, s);
    qsort(list, (size_t)out.n, sizeof *list, move_cmp);
    int n = 0;
    for (int i = 0; i < out.n; i++)
        if (n == 0 || list[n - 1] != list[i]) list[n++] = list[i];
    return n;
}

/* Whether some pseudo-legal move of `by` removes the piece on sq: a capture on its final
 * square, an intermediate capture, or a blast next to its landing square. */
bool supremo_attacked_reference(const Position *pos, int sq, int by) {
    Move list[MAX_MOVES * 2];
    int n = supremo_pseudo_reference(pos, by, list);
    int w = pos->width;
    for (int i = 0; i < n; i++) {
        Move m = list[i];
        int from = MOVE_FROM(m), to = MOVE_TO(m);
        if (MOVE_MID(m) == sq) return true;
        if (to == sq && from != sq) return true;
        if (pos->var->pieces[PC_TYPE(pos->board[from])].flags & PF_BLAST) {
            int df = sup_abs(to % w - sq % w), dr = sup_abs(to / w - sq / w);
            if (sup_max(df, dr) == 1 && sup_capturable(pos->var, pos->board[sq], by)) return true;
        }
    }
    return false;
}

/* Whether colour c's royal piece is attacked, by the literal test. */
static bool ref_royal_attacked_sup(const Position *pos, int c) {
    for (int s = 0; s < pos->width * pos->height; s++) {
        int pc = pos->board[s];
        if (pc && PC_COLOR(pc) == c && (pos->var->pieces[PC_TYPE(pc)].flags & PF_ROYAL) &&
            supremo_attacked_reference(pos, s, c ^ 1))
            return true;
    }
    return false;
}

/* Legal moves by the literal walker: each pseudo-legal move is made and kept if no enemy
 * pseudo-move then captures the mover's King. */
int supremo_gen_reference(Position *pos, Move *list) {
    Move pseudo[MAX_MOVES];
    int np = supremo_pseudo_reference(pos, pos->side, pseudo);
    int n = 0, us = pos->side;
    for (int i = 0; i < np; i++) {
        supremo_make(pos, pseudo[i]);
        bool bad = ref_royal_attacked_sup(pos, us);
        supremo_unmake(pos);
        if (!bad) list[n++] = pseudo[i];
    }
    return n;
}
