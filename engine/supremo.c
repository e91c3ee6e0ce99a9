/* supremo.c - Supremo Superchess on 10x10.
 *
 * The pieces are data (MoveComp lists). The mechanisms they need are generic and driven
 * by those lists, so another variant can reuse them by naming the same components:
 *
 *   MC_LEAP   leaps; with lame squares or a condition (pawn double step) handled per piece
 *   MC_RIDE   slides (optional range), MC_HOP cannon hops over exactly one screen
 *   MC_JSTEP  jumping king steps over an occupied neighbour
 *   MC_DLEAP  two successive leaps, each any symmetric image of (df, dr), capturing on the
 *             intermediate landing (`mid`) and/or the final one; capture-and-return allowed
 *   MC_WALK   exactly `range` K/jK steps over the board as it changes; MM_MOVE walks need
 *             empty landings, capturing walks capture at once (at most one intermediate
 *             capture, so range <= 2 when the walk captures)
 *   PF_BLAST  after landing, remove every capturable enemy on the 8 neighbours
 *
 * Two generators share make/unmake: a fast one on 128-bit bitboards with tables built
 * from the piece data at engine_init, and a reference one that walks the mailbox exactly
 * as the rules text says, with an attack test that generates every enemy pseudo-move. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "supremo.h"
#include "variant.h"

/* Eight directions: 0 E, 1 N, 2 NE, 3 NW (index grows), 4 W, 5 S, 6 SW, 7 SE; d ^ 4 is the
 * opposite direction. */
static const int SUP_DF[8] = {1, 0, 1, -1, -1, 0, -1, 1};
static const int SUP_DR[8] = {0, 1, 1, 1, 0, -1, -1, -1};

#define SUP_ALL_DIRS  0xFFu
#define SUP_ORTH_DIRS 0x33u /* E N W S */
#define SUP_DIAG_DIRS 0xCCu /* NE NW SW SE */

/* Tables built once per variant from its piece data (read-only afterwards). */
typedef struct SupTables {
    u128 full; /* the 100 squares */
    u128 not_file_a, not_file_j;
    u128 last_rank[2];
    u128 kmask[MAX_SQ];      /* K-step neighbours */
    u128 box[10][MAX_SQ];    /* Chebyshev distance <= r */
    u128 ray[8][MAX_SQ];     /* squares beyond s in direction d, to the edge */
    u128 lines[MAX_SQ];      /* union of the 8 rays */
    uint8_t over[MAX_SQ][8]; /* s + d (the K-step / jumped square), NO_SQ off board */
    uint8_t land[MAX_SQ][8]; /* s + 2d (the jK landing), NO_SQ off board */
    uint32_t flags[MAX_PT];
    u128 leap_mv[MAX_PT][2][MAX_SQ];   /* unconditional leaps that may move */
    u128 leap_cp[MAX_PT][2][MAX_SQ];   /* unconditional leaps that may capture */
    u128 leap_from[MAX_PT][2][MAX_SQ]; /* squares whose piece leap-captures onto sq */
    uint8_t nslow[MAX_PT];             /* lame or conditional leaps, walked per piece */
    uint8_t slow[MAX_PT][MAX_COMP];
    uint8_t ride_mv[MAX_PT], ride_cp[MAX_PT], hop_mv[MAX_PT], hop_cp[MAX_PT];
    uint8_t ride_range[MAX_PT][8]; /* 9 = unlimited */
    uint8_t jstep_mv[MAX_PT], jstep_cp[MAX_PT];
    uint8_t dleap_mode[MAX_PT];
    u128 dleap_base[MAX_PT][MAX_SQ]; /* one leap of the double-leap family */
    uint8_t walk_range[MAX_PT], walk_mode[MAX_PT];
    uint8_t reach[MAX_PT];    /* Chebyshev radius of every non-line attack */
    uint8_t zone[MAX_PT];     /* radius of the squares whose contents such an attack
                                 depends on (0: none; leaps depend on no square) */
    uint8_t has_leap[MAX_PT]; /* any unconditional leap (skip the tables if not) */
    uint8_t npromo;           /* number of promotion choices */
    uint8_t royal_type;
} SupTables;

/* ------------------------------------------------------------------ piece data */

#define SUP_HOP(f, r)                                                                              \
    {                                                                                              \
        MC_HOP, MM_BOTH, f, r, 0, 0, 0, {                                                          \
            { 0 }                                                                                  \
        }                                                                                          \
    }
#define SUP_JSTEP(f, r, mode)                                                                      \
    {                                                                                              \
        MC_JSTEP, mode, f, r, 0, 0, 0, {                                                           \
            { 0 }                                                                                  \
        }                                                                                          \
    }
#define SUP_KSTEP_MOVES                                                                            \
    LEAP_M(1, 0, MM_MOVE), LEAP_M(-1, 0, MM_MOVE), LEAP_M(0, 1, MM_MOVE), LEAP_M(0, -1, MM_MOVE),  \
        LEAP_M(1, 1, MM_MOVE), LEAP_M(1, -1, MM_MOVE), LEAP_M(-1, 1, MM_MOVE),                     \
        LEAP_M(-1, -1, MM_MOVE)
#define SUP_JSTEPS                                                                                 \
    SUP_JSTEP(1, 0, MM_MOVE), SUP_JSTEP(-1, 0, MM_MOVE), SUP_JSTEP(0, 1, MM_MOVE),                 \
        SUP_JSTEP(0, -1, MM_MOVE), SUP_JSTEP(1, 1, MM_MOVE), SUP_JSTEP(1, -1, MM_MOVE),            \
        SUP_JSTEP(-1, 1, MM_MOVE), SUP_JSTEP(-1, -1, MM_MOVE)
#define SUP_ROOK_HOPS   SUP_HOP(1, 0), SUP_HOP(-1, 0), SUP_HOP(0, 1), SUP_HOP(0, -1)
#define SUP_BISHOP_HOPS SUP_HOP(1, 1), SUP_HOP(1, -1), SUP_HOP(-1, 1), SUP_HOP(-1, -1)

/* ------------------------------------------------------------------ small helpers */

/* Bit of one square. */
static inline u128 sup_bit(int sq) { return (u128)1 << sq; }

/* Whether (f, r) lies on a width x height board. */
static inline bool sup_on(int f, int r, int w, int h) { return f >= 0 && f < w && r >= 0 && r < h; }

/* Whether the piece code pc can be captured by a piece of colour `by`. */
static inline bool sup_capturable(const Variant *v, int pc, int by) {
    return pc != PC_EMPTY && PC_COLOR(pc) != by &&
           !(v->pieces[PC_TYPE(pc)].flags & PF_UNCAPTURABLE);
}

/* Squares of the pieces, of either colour, that can never be captured. */
static inline u128 sup_uncapturable(const Position *pos, const SupTables *T) {
    u128 b = 0;
    for (int t = 1; t <= pos->var->npt; t++)
        if (T->flags[t] & PF_UNCAPTURABLE) b |= pos->bb.b10.type[t];
    return b;
}

/* The square of colour c's royal piece, or NO_SQ. */
static inline int sup_royal_sq(const Position *pos, const SupTables *T, int c) {
    u128 b = pos->bb.b10.type[T->royal_type] & pos->bb.b10.color[c];
    return b ? bb128_lsb(b) : NO_SQ;
}

/* Shifts a square set one step in direction d, dropping squares that leave the board. */
static inline u128 sup_shift(const SupTables *T, u128 x, int d) {
    switch (d) {
    case 0: return (x << 1) & T->not_file_a & T->full;
    case 1: return (x << 10) & T->full;
    case 2: return (x << 11) & T->not_file_a & T->full;
    case 3: return (x << 9) & T->not_file_j & T->full;
    case 4: return (x >> 1) & T->not_file_j;
    case 5: return x >> 10;
    case 6: return (x >> 11) & T->not_file_j;
    default: return (x >> 9) & T->not_file_a;
    }
}

/* The symmetric images of the leap (a, b), without repeats; returns how many. */
static int sup_leap_images(int a, int b, int out[8][2]) {
    int n = 0;
    int cand[8][2] = {{a, b}, {-a, b}, {a, -b}, {-a, -b}, {b, a}, {-b, a}, {b, -a}, {-b, -a}};
    for (int i = 0; i < 8; i++) {
        bool dup = false;
        for (int j = 0; j < n; j++) dup |= out[j][0] == cand[i][0] && out[j][1] == cand[i][1];
        if (!dup) {
            out[n][0] = cand[i][0];
            out[n][1] = cand[i][1];
            n++;
        }
    }
    return n;
}

/* Direction index of a unit vector, or -1. */
static int sup_dir_of(int df, int dr) {
    for (int d = 0; d < 8; d++)
        if (SUP_DF[d] == df && SUP_DR[d] == dr) return d;
    return -1;
}

/* Larger of two ints (Chebyshev distances). */
static inline int sup_max(int a, int b) { return a > b ? a : b; }

/* Absolute value of a file or rank difference. */
static inline int sup_abs(int a) { return a < 0 ? -a : a; }

/* ------------------------------------------------------------------ tables */

/* Builds the geometry and per-type tables of variant v from its piece data. */
static void supremo_init(Variant *v) {
    SupTables *T = calloc(1, sizeof *T);
    if (!T) {
        fprintf(stderr, "supremo: out of memory building tables\n");
        exit(1);
    }
    const int W = v->width, H = v->height;
    for (int s = 0; s < W * H; s++) {
        int f = s % W, r = s / W;
        T->full |= sup_bit(s);
        if (f != 0) T->not_file_a |= sup_bit(s);
        if (f != W - 1) T->not_file_j |= sup_bit(s);
        if (r == H - 1) T->last_rank[WHITE] |= sup_bit(s);
        if (r == 0) T->last_rank[BLACK] |= sup_bit(s);
        for (int t = 0; t < W * H; t++) {
            int dist = sup_max(sup_abs(t % W - f), sup_abs(t / W - r));
            for (int k = dist; k < 10; k++) T->box[k][s] |= sup_bit(t);
        }
        for (int d = 0; d < 8; d++) {
            int f1 = f + SUP_DF[d], r1 = r + SUP_DR[d];
            int f2 = f1 + SUP_DF[d], r2 = r1 + SUP_DR[d];
            T->over[s][d] = sup_on(f1, r1, W, H) ? (uint8_t)(r1 * W + f1) : NO_SQ;
            T->land[s][d] = sup_on(f2, r2, W, H) ? (uint8_t)(r2 * W + f2) : NO_SQ;
            if (T->over[s][d] != NO_SQ) T->kmask[s] |= sup_bit(T->over[s][d]);
            for (int ff = f1, rr = r1; sup_on(ff, rr, W, H); ff += SUP_DF[d], rr += SUP_DR[d])
                T->ray[d][s] |= sup_bit(rr * W + ff);
            T->lines[s] |= T->ray[d][s];
        }
    }
    for (int t = 1; t <= v->npt; t++) {
        const PieceDef *pd = &v->pieces[t];
        T->flags[t] = pd->flags;
        if (pd->flags & PF_ROYAL) T->royal_type = (uint8_t)t;
        bool can_capture = !(pd->flags & PF_NO_CAPTURE);
        int reach = 0, zone = 0;
        for (int d = 0; d < 8; d++) T->ride_range[t][d] = 9;
        for (int i = 0; i < pd->ncomp; i++) {
            const MoveComp *mc = &pd->comp[i];
            int mode = can_capture ? mc->mode : (mc->mode & MM_MOVE);
            int span = sup_max(sup_abs(mc->df), sup_abs(mc->dr));
            switch (mc->kind) {
            case MC_LEAP:
                if (mc->nlame || mc->cond) {
                    T->slow[t][T->nslow[t]++] = (uint8_t)i;
                    if (mode & MM_CAPTURE) reach = sup_max(reach, span);
                    if (mode & MM_CAPTURE) zone = sup_max(zone, span);
                    break;
                }
                if (mode & MM_CAPTURE) reach = sup_max(reach, span);
                T->has_leap[t] = 1;
                for (int c = 0; c < 2; c++) {
                    int dr = (pd->flags & PF_ORIENTED) && c == BLACK ? -mc->dr : mc->dr;
                    for (int s = 0; s < W * H; s++) {
                        int f = s % W + mc->df, r = s / W + dr;
                        if (!sup_on(f, r, W, H)) continue;
                        int to = r * W + f;
                        if (mode & MM_MOVE) T->leap_mv[t][c][s] |= sup_bit(to);
                        if (mode & MM_CAPTURE) {
                            T->leap_cp[t][c][s] |= sup_bit(to);
                            T->leap_from[t][c][to] |= sup_bit(s);
                        }
                    }
                }
                break;
            case MC_RIDE:
            case MC_HOP: {
                int d = sup_dir_of(mc->df, mc->dr);
                if (d < 0) break;
                uint8_t bit = (uint8_t)(1u << d);
                if (mc->kind == MC_RIDE) {
                    if (mode & MM_MOVE) T->ride_mv[t] |= bit;
                    if (mode & MM_CAPTURE) T->ride_cp[t] |= bit;
                    if (mc->range) T->ride_range[t][d] = mc->range;
                } else {
                    if (mode & MM_MOVE) T->hop_mv[t] |= bit;
                    if (mode & MM_CAPTURE) T->hop_cp[t] |= bit;
                }
                break;
            }
            case MC_JSTEP: {
                int d = sup_dir_of(mc->df, mc->dr);
                if (d < 0) break;
                if (mode & MM_MOVE) T->jstep_mv[t] |= (uint8_t)(1u << d);
                if (mode & MM_CAPTURE) T->jstep_cp[t] |= (uint8_t)(1u << d);
                if (mode & MM_CAPTURE) reach = sup_max(reach, 2);
                if (mode & MM_CAPTURE) zone = sup_max(zone, 1);
                break;
            }
            case MC_DLEAP: {
                int img[8][2];
                int n = sup_leap_images(mc->df, mc->dr, img);
                T->dleap_mode[t] = (uint8_t)(mode | MM_MOVE);
                for (int s = 0; s < W * H; s++)
                    for (int k = 0; k < n; k++) {
                        int f = s % W + img[k][0], r = s / W + img[k][1];
                        if (sup_on(f, r, W, H)) T->dleap_base[t][s] |= sup_bit(r * W + f);
                    }
                if (mode & MM_CAPTURE) reach = sup_max(reach, 2 * span);
                break;
            }
            case MC_WALK:
                T->walk_range[t] = mc->range;
                T->walk_mode[t] = (uint8_t)mode;
                if (mode & MM_CAPTURE) reach = sup_max(reach, 2 * mc->range);
                if (mode & MM_CAPTURE) zone = sup_max(zone, 2 * mc->range - 1);
                break;
            default: break;
            }
        }
        if (pd->flags & PF_BLAST) {
            reach = sup_max(reach, (T->jstep_mv[t] ? 2 : 1) + 1);
            zone = sup_max(zone, T->jstep_mv[t] ? 2 : 1);
        }
        T->reach[t] = (uint8_t)(reach > 9 ? 9 : reach);
        T->zone[t] = (uint8_t)(zone > 9 ? 9 : zone);
    }
    while (v->promo_types[T->npromo]) T->npromo++;
    v->tables = T;
}

/* ------------------------------------------------------------------ make / unmake */

/* Plays m: removes the intermediate victim, captures on `to`, promotes, and for a
 * blasting piece removes every capturable enemy next to its landing square. */
static void supremo_make(Position *pos, Move m) {
    const SupTables *T = pos->var->tables;
    int from = MOVE_FROM(m), to = MOVE_TO(m), mid = MOVE_MID(m), promo = MOVE_PROMO(m);
    int us = pos->side;
    Undo *u = pos_push(pos, m);
    int pc = pos->board[from];
    u->moved = (uint8_t)pc;
    bool capture = false;
    if (mid != NO_SQ) {
        u->vict_sq[0] = (uint8_t)mid;
        u->vict_pc[0] = (uint8_t)pos_remove10(pos, mid);
        u->nvict = 1;
        capture = true;
    }
    if (to != from) {
        if (pos->board[to]) {
            u->captured = (uint8_t)pos_remove10(pos, to);
            capture = true;
        }
        pos_move10(pos, from, to);
    }
    if (promo) {
        pos_remove10(pos, to);
        pos_put10(pos, to, PC_MAKE(us, promo));
    }
    uint32_t fl = T->flags[PC_TYPE(pc)];
    if ((fl & PF_BLAST) && !promo) {
        u128 victims = T->kmask[to] & pos->bb.b10.color[us ^ 1] & ~sup_uncapturable(pos, T);
        while (victims) {
            int sq = bb128_pop_lsb(&victims);
            u->vict_sq[u->nvict] = (uint8_t)sq;
            u->vict_pc[u->nvict] = (uint8_t)pos_remove10(pos, sq);
            u->nvict++;
            capture = true;
        }
    }
    pos->halfmove =
        (capture || (fl & (PF_PAWN_PIECE | PF_PAWN))) ? 0 : (uint16_t)(pos->halfmove + 1);
    pos->ep = NO_SQ;
    if (us == BLACK) pos->fullmove++;
    pos->side = (uint8_t)(us ^ 1);
    pos->key ^= zob_side;
}

/* Takes back the last move, restoring every victim from the undo record. */
static void supremo_unmake(Position *pos) {
    Undo *u = &pos->stack[--pos->ply];
    Move m = u->move;
    int from = MOVE_FROM(m), to = MOVE_TO(m);
    pos->side ^= 1;
    if (pos->side == BLACK) pos->fullmove--;
    if (MOVE_PROMO(m)) {
        pos_remove10(pos, to);
        pos_put10(pos, from, u->moved);
    } else if (to != from) {
        pos_move10(pos, to, from);
    }
    if (u->captured) pos_put10(pos, to, u->captured);
    for (int i = u->nvict - 1; i >= 0; i--) pos_put10(pos, u->vict_sq[i], u->vict_pc[i]);
    pos->key = u->key;
    pos->halfmove = u->halfmove;
    pos->ep = u->ep;
    pos->castle = u->castle;
}

/* ------------------------------------------------------------------ move lists */

/* Destination sets per intermediate-capture square, for walks and double leaps. */
typedef struct MidSets {
    int n;
    uint8_t mid[16];
    u128 dest[16];
} MidSets;

/* Adds destinations reached through an intermediate capture on mid. */
static void midsets_add(MidSets *ms, int mid, u128 dests) {
    for (int i = 0; i < ms->n; i++)
        if (ms->mid[i] == mid) {
            ms->dest[i] |= dests;
            return;
        }
    ms->mid[ms->n] = (uint8_t)mid;
    ms->dest[ms->n++] = dests;
}

/* ------------------------------------------------------------------ fast generator */

/* One capturing walk on bitboards: occ is the occupancy without the walker, capt the
 * squares it may capture; collects final squares by intermediate-capture square. */
static void fast_walk(const SupTables *T, u128 occ, u128 capt, int origin, int cur, int left,
                      int mid, bool captured, u128 *quiet, MidSets *ms) {
    if (left == 0) {
        if (cur == origin && !captured) return;
        if (mid == NO_SQ) *quiet |= sup_bit(cur);
        else midsets_add(ms, mid, sup_bit(cur));
        return;
    }
    for (int d = 0; d < 8; d++) {
        int nb = T->over[cur][d];
        if (nb == NO_SQ) continue;
        for (int jump = 0; jump < 2; jump++) {
            int x = nb;
            if (jump) {
                if (!(occ & sup_bit(nb)) || T->land[cur][d] == NO_SQ) break;
                x = T->land[cur][d];
            }
            u128 b = sup_bit(x);
            if (!(occ & b)) {
                fast_walk(T, occ, capt, origin, x, left - 1, mid, captured, quiet, ms);
            } else if (capt & b) {
                bool inter = left > 1;
                fast_walk(T, occ & ~b, capt & ~b, origin, x, left - 1, inter ? x : mid,
                          captured || inter, quiet, ms);
            }
        }
    }
}

/* Squares reached by one K or jK step, onto an empty square, from every square of x. */
static inline u128 fast_quiet_step(const SupTables *T, u128 x, u128 occ) {
    u128 empty = T->full & ~occ, r = 0;
    for (int d = 0; d < 8; d++) {
        u128 one = sup_shift(T, x, d);
        r |= (one & empty) | (sup_shift(T, one & occ, d) & empty);
    }
    return r;
}

/* Squares of `targets` reached by one K or jK step (over a square of occ) from any square
 * of x. Exact for a single walker standing on any square of x: its own square is never
 * jumped or landed on. */
static inline u128 fast_step(const SupTables *T, u128 x, u128 occ, u128 targets) {
    u128 r = 0;
    for (int d = 0; d < 8; d++) {
        u128 one = sup_shift(T, x, d);
        r |= one | sup_shift(T, one & occ, d);
    }
    return r & targets;
}

/* Whether a capturing walk of `left` steps from cur can land on k and still complete. */
static bool fast_walk_hits(const SupTables *T, u128 occ, u128 capt, int origin, int cur, int left,
                           int k, bool hit, bool captured) {
    if (left == 0) return hit && (cur != origin || captured);
    for (int d = 0; d < 8; d++) {
        int nb = T->over[cur][d];
        if (nb == NO_SQ) continue;
        for (int jump = 0; jump < 2; jump++) {
            int x = nb;
            if (jump) {
                if (!(occ & sup_bit(nb)) || T->land[cur][d] == NO_SQ) break;
                x = T->land[cur][d];
            }
            u128 b = sup_bit(x);
            if (!hit && !(T->box[2 * (left - 1) < 9 ? 2 * (left - 1) : 9][k] & b)) continue;
            if (!(occ & b)) {
                if (fast_walk_hits(T, occ, capt, origin, x, left - 1, k, hit, captured))
                    return true;
            } else if (capt & b) {
                if (fast_walk_hits(T, occ & ~b, capt & ~b, origin, x, left - 1, k, hit || x == k,
                                   captured || left > 1))
                    return true;
            }
        }
    }
    return false;
}

/* Whether side `by` has a pseudo-legal move that captures the piece on sq (table driven). */
bool supremo_attacked_fast(const Position *pos, int sq, int by) {
    const Variant *v = pos->var;
    const SupTables *T = v->tables;
    u128 xs = pos->bb.b10.color[by];
    u128 occ = xs | pos->bb.b10.color[by ^ 1];
    u128 line_pieces = 0;
    int npt = v->npt;
    for (int t = 1; t <= npt; t++) {
        u128 mine = pos->bb.b10.type[t] & xs;
        if (!mine) continue;
        if (T->has_leap[t] && (T->leap_from[t][by][sq] & mine)) return true;
        if (T->ride_cp[t] | T->hop_cp[t]) line_pieces |= mine;
    }
    if (T->lines[sq] & line_pieces) {
        for (int d = 0; d < 8; d++) {
            u128 blk = T->ray[d][sq] & occ;
            if (!blk) continue;
            uint8_t bit = (uint8_t)(1u << (d ^ 4));
            int b1 = d < 4 ? bb128_lsb(blk) : bb128_msb(blk);
            int pc = pos->board[b1], t1 = PC_TYPE(pc);
            if (PC_COLOR(pc) == by && (T->ride_cp[t1] & bit) &&
                (T->box[T->ride_range[t1][d ^ 4]][sq] & sup_bit(b1)))
                return true;
            u128 blk2 = T->ray[d][b1] & occ;
            if (!blk2) continue;
            int b2 = d < 4 ? bb128_lsb(blk2) : bb128_msb(blk2);
            int pc2 = pos->board[b2];
            if (PC_COLOR(pc2) == by && (T->hop_cp[PC_TYPE(pc2)] & bit)) return true;
        }
    }
    u128 uncap = 0;
    bool uncap_done = false;
    for (int t = 1; t <= npt; t++) {
        u128 mine = pos->bb.b10.type[t] & xs;
        if (!mine || !T->reach[t]) continue;
        uint32_t fl = T->flags[t];
        u128 near = mine & T->box[T->reach[t]][sq];
        if (!near) continue;
        if (!uncap_done) {
            uncap = sup_uncapturable(pos, T);
            uncap_done = true;
        }
        if (T->dleap_mode[t] & MM_CAPTURE) {
            if (T->dleap_base[t][sq] & near) return true;
            u128 pass = (T->full & ~occ) | (pos->bb.b10.color[by ^ 1] & ~uncap);
            u128 mids = T->dleap_base[t][sq] & pass;
            while (mids) {
                int m = bb128_pop_lsb(&mids);
                if (T->dleap_base[t][m] & near) return true;
            }
        }
        if (fl & PF_BLAST) {
            u128 b = near;
            while (b) {
                int s = bb128_pop_lsb(&b);
                u128 landings = T->leap_mv[t][by][s] & ~occ;
                for (uint8_t dirs = T->jstep_mv[t]; dirs; dirs &= (uint8_t)(dirs - 1)) {
                    int dir = __builtin_ctz(dirs);
                    int o = T->over[s][dir], l = T->land[s][dir];
                    if (o != NO_SQ && l != NO_SQ && (occ & sup_bit(o)) && !(occ & sup_bit(l)))
                        landings |= sup_bit(l);
                }
                if (landings & T->kmask[sq]) return true;
            }
        }
        if (T->walk_range[t] == 2 && (T->walk_mode[t] & MM_CAPTURE)) {
            /* step 1 onto sq always completes (step 2 can return); otherwise step 2 lands
             * on sq from a step-1 square, the walker's own squares aside the board as it was */
            u128 b = near, capt = pos->bb.b10.color[by ^ 1] & ~uncap;
            while (b) {
                int s = bb128_pop_lsb(&b);
                u128 occ0 = occ & ~sup_bit(s), empty0 = T->full & ~occ0;
                u128 land1 = fast_step(T, sup_bit(s), occ0, empty0 | capt);
                if ((land1 & sup_bit(sq)) || fast_step(T, land1, occ0, sup_bit(sq))) return true;
            }
        } else if (T->walk_range[t] && (T->walk_mode[t] & MM_CAPTURE)) {
            u128 b = near, capt = pos->bb.b10.color[by ^ 1] & ~uncap;
            while (b) {
                int s = bb128_pop_lsb(&b);
                if (fast_walk_hits(T, occ & ~sup_bit(s), capt, s, s, T->walk_range[t], sq, false,
                                   false))
                    return true;
            }
        }
        if (T->nslow[t] || T->jstep_cp[t]) {
            if (supremo_attacked_reference(pos, sq, by)) return true;
        }
    }
    return false;
}

/* Whether colour c's royal piece is attacked. */
static bool supremo_royal_attacked(const Position *pos, int c) {
    int k = sup_royal_sq(pos, pos->var->tables, c);
    return k != NO_SQ && supremo_attacked_fast(pos, k, c ^ 1);
}

/* Whether the side to move is in check. */
static bool supremo_in_check(const Position *pos) { return supremo_royal_attacked(pos, pos->side); }

/* State of one fast generation: where moves go (or only their number), and for legal
 * generation the King, whether it is in check, and the squares a move must not touch to be
 * accepted without the make -> attack test -> unmake check. */
typedef struct GenCtx {
    Position *pos;
    const SupTables *T;
    Move *list; /* NULL: count only */
    int n;
    bool legal;
    bool check;
    int us, king;
    u128 sens;        /* squares whose change may expose the King */
    u128 blast_risky; /* landings next to an enemy on a sensitive square */
} GenCtx;

/* Whether m leaves the mover's King unattacked (make, attack test, unmake). */
static bool gen_move_ok(GenCtx *g, Move m) {
    Position *pos = g->pos;
    supremo_make(pos, m);
    int k = sup_royal_sq(pos, g->T, g->us);
    bool ok = k == NO_SQ || !supremo_attacked_fast(pos, k, g->us ^ 1);
    supremo_unmake(pos);
    return ok;
}

/* Adds (or counts) one move, testing it when it is risky. */
static inline void gen_add(GenCtx *g, Move m, bool risky) {
    if (risky && !gen_move_ok(g, m)) return;
    if (g->list) g->list[g->n] = m;
    g->n++;
}

/* Adds the moves from `from` to every square of dests (one per promotion type inside pz);
 * in legal mode, moves that touch no sensitive square are taken without a test. */
static inline __attribute__((always_inline)) void gen_emit(GenCtx *g, int from, u128 dests, int mid,
                                                           int kind, u128 pz, bool blast) {
    if (!dests) return;
    const Variant *v = g->pos->var;
    u128 risky = 0;
    if (g->legal) {
        u128 touched = sup_bit(from) | (mid != NO_SQ ? sup_bit(mid) : 0);
        if (g->check || from == g->king || (touched & g->sens)) risky = dests;
        else risky = dests & (g->sens | (blast ? g->blast_risky : 0));
    }
    u128 safe = dests & ~risky;
    if (!g->list) {
        g->n += bb128_popcount(safe & ~pz) + g->T->npromo * bb128_popcount(safe & pz);
    } else {
        u128 plain = safe & ~pz, promos = safe & pz;
        while (plain) g->list[g->n++] = MOVE_MAKE(from, bb128_pop_lsb(&plain), mid, 0, kind);
        while (promos) {
            int to = bb128_pop_lsb(&promos);
            for (int i = 0; v->promo_types[i]; i++)
                g->list[g->n++] = MOVE_MAKE(from, to, mid, v->promo_types[i], kind);
        }
    }
    while (risky) {
        int to = bb128_pop_lsb(&risky);
        if (!(pz & sup_bit(to))) {
            gen_add(g, MOVE_MAKE(from, to, mid, 0, kind), true);
            continue;
        }
        for (int i = 0; v->promo_types[i]; i++)
            gen_add(g, MOVE_MAKE(from, to, mid, v->promo_types[i], kind), true);
    }
}

/* Destinations of type t's slide and hop components along direction dir from s: the
 * empty squares before the first piece and that piece if capturable (slide), the empty
 * squares beyond it up to the next piece and that piece if capturable (hop). On the rays
 * that grow the square index the pieces are isolated with arithmetic, on the others with
 * the highest set bit. */
static inline u128 fast_line(const SupTables *T, int t, int dir, int s, u128 occ, u128 capt) {
    uint8_t bit = (uint8_t)(1u << dir);
    bool hop = (T->hop_mv[t] | T->hop_cp[t]) & bit;
    u128 ray = T->ray[dir][s], blk = ray & occ;
    u128 slide = ray, first = 0, hopq = 0, second = 0;
    if (blk) {
        if (dir < 4) {
            first = blk & (~blk + 1);
            u128 below = first - 1, rest = blk ^ first, beyond = ray & ~below & ~first;
            slide = ray & below;
            second = rest & (~rest + 1);
            hopq = second ? beyond & (second - 1) : beyond;
        } else {
            int b1 = bb128_msb(blk);
            first = sup_bit(b1);
            slide = ray & ~T->ray[dir][b1] & ~first;
            if (hop) {
                u128 beyond = T->ray[dir][b1], blk2 = beyond & occ;
                hopq = beyond;
                if (blk2) {
                    int b2 = bb128_msb(blk2);
                    second = sup_bit(b2);
                    hopq = beyond & ~T->ray[dir][b2] & ~second;
                }
            }
        }
    }
    u128 d = 0;
    if (T->ride_mv[t] & bit) d |= slide;
    if (T->ride_cp[t] & bit) d |= first & capt;
    if (T->ride_range[t][dir] < 9) d &= T->box[T->ride_range[t][dir]][s];
    if (hop) {
        if (T->hop_mv[t] & bit) d |= hopq;
        if (T->hop_cp[t] & bit) d |= second & capt;
    }
    return d;
}

/* Generates the moves of the side to move from the tables, each (from, to, mid, promo)
 * once: leaps, conditional leaps, slides and hops, jK steps, double leaps and walks. */
static void fast_generate(GenCtx *g) {
    const Position *pos = g->pos;
    const Variant *v = pos->var;
    const SupTables *T = g->T;
    int us = pos->side, them = us ^ 1;
    u128 own = pos->bb.b10.color[us], enemy = pos->bb.b10.color[them];
    u128 occ = own | enemy, empty = T->full & ~occ;
    u128 capt_all = enemy & ~sup_uncapturable(pos, T);
    for (int t = 1; t <= v->npt; t++) {
        u128 pieces = pos->bb.b10.type[t] & own;
        if (!pieces) continue;
        uint32_t fl = T->flags[t];
        u128 capt = (fl & PF_NO_CAPTURE) ? 0 : capt_all;
        bool blast = fl & PF_BLAST;
        int kind = blast ? MK_MULTI : MK_NORMAL;
        u128 pz = (fl & PF_PROMOTES) ? T->last_rank[us] : 0;
        uint8_t line_dirs = T->ride_mv[t] | T->ride_cp[t] | T->hop_mv[t] | T->hop_cp[t];
        uint8_t jdirs = T->jstep_mv[t] | T->jstep_cp[t];
        while (pieces) {
            int s = bb128_pop_lsb(&pieces);
            u128 d =
                T->has_leap[t] ? (T->leap_mv[t][us][s] & empty) | (T->leap_cp[t][us][s] & capt) : 0;
            for (int i = 0; i < T->nslow[t]; i++) {
                const MoveComp *mc = &v->pieces[t].comp[T->slow[t][i]];
                int sign = (fl & PF_ORIENTED) && us == BLACK ? -1 : 1;
                int f = s % 10, r = s / 10;
                if (mc->cond == MCOND_START_RANK && r != v->pawn_start_rank[us]) continue;
                if (mc->cond == MCOND_FIRST_TWO && r != (us == WHITE ? 0 : 9) &&
                    r != (us == WHITE ? 1 : 8))
                    continue;
                if (!sup_on(f + mc->df, r + sign * mc->dr, 10, 10)) continue;
                bool open = true;
                for (int k = 0; k < mc->nlame; k++) {
                    int lf = f + mc->lame[k][0], lr = r + sign * mc->lame[k][1];
                    open &= sup_on(lf, lr, 10, 10) && !(occ & sup_bit(lr * 10 + lf));
                }
                if (!open) continue;
                u128 b = sup_bit((r + sign * mc->dr) * 10 + f + mc->df);
                if (mc->mode & MM_MOVE) d |= b & empty;
                if (mc->mode & MM_CAPTURE) d |= b & capt;
            }
            for (uint8_t dirs = line_dirs; dirs; dirs &= (uint8_t)(dirs - 1))
                d |= fast_line(T, t, __builtin_ctz(dirs), s, occ, capt);
            for (uint8_t dirs = jdirs; dirs; dirs &= (uint8_t)(dirs - 1)) {
                int dir = __builtin_ctz(dirs);
                int o = T->over[s][dir], l = T->land[s][dir];
                if (o == NO_SQ || l == NO_SQ || !(occ & sup_bit(o))) continue;
                if (T->jstep_mv[t] & (1u << dir)) d |= sup_bit(l) & empty;
                if (T->jstep_cp[t] & (1u << dir)) d |= sup_bit(l) & capt;
            }
            gen_emit(g, s, d, NO_SQ, kind, pz, blast);
            if (T->dleap_mode[t]) {
                u128 dcapt = (T->dleap_mode[t] & MM_CAPTURE) ? capt : 0;
                u128 firsts = T->dleap_base[t][s] & (empty | dcapt), quiet = 0;
                u128 empty_after = empty | sup_bit(s);
                while (firsts) {
                    int m = bb128_pop_lsb(&firsts);
                    u128 second = T->dleap_base[t][m] & (empty_after | dcapt);
                    if (empty & sup_bit(m)) quiet |= second & ~sup_bit(s);
                    else gen_emit(g, s, second, m, MK_MULTI, pz, blast);
                }
                gen_emit(g, s, quiet & ~d, NO_SQ, kind, pz, blast);
            }
            if (T->walk_range[t]) {
                u128 occ0 = occ & ~sup_bit(s);
                if (T->walk_range[t] == 2 && (T->walk_mode[t] & MM_CAPTURE)) {
                    u128 empty0 = T->full & ~occ0, open = empty0 | capt;
                    u128 land1 = fast_step(T, sup_bit(s), occ0, open), c1 = land1 & capt;
                    u128 quiet = fast_step(T, land1 & empty0, occ0, open) & ~sup_bit(s);
                    gen_emit(g, s, quiet & ~d, NO_SQ, kind, pz, blast);
                    while (c1) {
                        int m1 = bb128_pop_lsb(&c1);
                        gen_emit(g, s, fast_step(T, sup_bit(m1), occ0, open), m1, MK_MULTI, pz,
                                 blast);
                    }
                } else if (T->walk_mode[t] & MM_CAPTURE) {
                    u128 quiet = 0;
                    MidSets ms;
                    ms.n = 0;
                    fast_walk(T, occ0, capt, s, s, T->walk_range[t], NO_SQ, false, &quiet, &ms);
                    gen_emit(g, s, quiet & ~d, NO_SQ, kind, pz, blast);
                    for (int i = 0; i < ms.n; i++)
                        gen_emit(g, s, ms.dest[i], ms.mid[i], MK_MULTI, pz, blast);
                } else {
                    u128 x = sup_bit(s);
                    for (int k = 0; k < T->walk_range[t]; k++) x = fast_quiet_step(T, x, occ0);
                    gen_emit(g, s, x & ~sup_bit(s) & ~d, NO_SQ, kind, pz, blast);
                }
            }
        }
    }
}

/* Pseudo-legal moves of the side to move, from the tables (deduplicated). */
int supremo_pseudo_fast(Position *pos, Move *list) {
    GenCtx g = {.pos = pos, .T = pos->var->tables, .list = list};
    fast_generate(&g);
    return g.n;
}

/* Squares whose change could expose the King on k to side `them` while it is not in check:
 * the ray segments up to the farthest enemy slider or hopper that could use them, and the
 * neighbourhoods that double leaps, blasts and walks of nearby enemies depend on. */
static u128 gen_sensitive(const Position *pos, const SupTables *T, int k, int them) {
    u128 enemy = pos->bb.b10.color[them], sens = 0;
    u128 toward[8] = {0};
    u128 orth = 0, diag = 0;
    for (int t = 1; t <= pos->var->npt; t++) {
        u128 mine = pos->bb.b10.type[t] & enemy;
        if (!mine) continue;
        uint8_t dirs = T->ride_cp[t] | T->hop_cp[t];
        if (dirs == SUP_ORTH_DIRS || dirs == SUP_ALL_DIRS) orth |= mine;
        if (dirs == SUP_DIAG_DIRS || dirs == SUP_ALL_DIRS) diag |= mine;
        if (dirs != SUP_ORTH_DIRS && dirs != SUP_DIAG_DIRS && dirs != SUP_ALL_DIRS)
            for (; dirs; dirs &= (uint8_t)(dirs - 1)) toward[__builtin_ctz(dirs) ^ 4] |= mine;
        if ((T->dleap_mode[t] & MM_CAPTURE) && (mine & T->box[T->reach[t]][k]))
            sens |= T->dleap_base[t][k];
        if (T->zone[t] && (mine & T->box[T->reach[t]][k])) sens |= T->box[T->zone[t]][k];
    }
    for (int d = 0; d < 8; d++) {
        u128 a = T->ray[d][k] & (toward[d] | ((SUP_ORTH_DIRS >> d) & 1 ? orth : diag));
        if (!a) continue;
        int far = d < 4 ? bb128_msb(a) : bb128_lsb(a);
        sens |= T->ray[d][k] & ~T->ray[d][far];
    }
    return sens;
}

/* Prepares a legal generation: King square, check, sensitive squares. */
static void gen_prepare(GenCtx *g, Position *pos, Move *list) {
    const SupTables *T = pos->var->tables;
    g->pos = pos;
    g->T = T;
    g->list = list;
    g->n = 0;
    g->legal = true;
    g->us = pos->side;
    g->king = sup_royal_sq(pos, T, g->us);
    g->blast_risky = 0;
    if (g->king == NO_SQ) {
        g->legal = false;
        return;
    }
    int them = g->us ^ 1;
    g->check = supremo_attacked_fast(pos, g->king, them);
    if (g->check) {
        g->sens = T->full;
        return;
    }
    g->sens = gen_sensitive(pos, T, g->king, them);
    u128 victims = pos->bb.b10.color[them] & ~sup_uncapturable(pos, T) & g->sens;
    while (victims) g->blast_risky |= T->kmask[bb128_pop_lsb(&victims)];
}

/* Legal moves: the fast generator with the legality filter of gen_emit. */
static int supremo_gen_legal(Position *pos, Move *list) {
    GenCtx g;
    gen_prepare(&g, pos, list);
    fast_generate(&g);
    return g.n;
}

/* Number of legal moves (perft's last ply), counted without writing most of them. */
static uint64_t supremo_count_legal(Position *pos) {
    GenCtx g;
    gen_prepare(&g, pos, NULL);
    fast_generate(&g);
    return (uint64_t)g.n;
}

/* ------------------------------------------------------------------ reference generator */

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

/* Orders moves so that duplicates become neighbours. */
static int ref_cmp_move(const void *a, const void *b) {
    Move x = *(const Move *)a, y = *(const Move *)b;
    return x < y ? -1 : x > y;
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
    qsort(list, (size_t)out.n, sizeof *list, ref_cmp_move);
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
static int supremo_gen_reference(Position *pos, Move *list) {
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

/* ------------------------------------------------------------------ FEN and notation */

/* Rejects positions without exactly one King per side or with a pawn on its last rank. */
static bool supremo_validate(Position *pos, CvError *err) {
    const Variant *v = pos->var;
    const SupTables *T = v->tables;
    for (int c = 0; c < 2; c++) {
        int kings = pos->count[PC_MAKE(c, T->royal_type)];
        if (kings != 1) {
            snprintf(err->msg, sizeof err->msg,
                     "FEN field 1 (board): %s has %d Kings, exactly one is required",
                     c == WHITE ? "White" : "Black", kings);
            return false;
        }
    }
    for (int s = 0; s < pos->width * pos->height; s++) {
        int pc = pos->board[s];
        if (!pc || !(v->pieces[PC_TYPE(pc)].flags & PF_PROMOTES)) continue;
        int last = PC_COLOR(pc) == WHITE ? pos->height - 1 : 0;
        if (s / pos->width == last) {
            snprintf(err->msg, sizeof err->msg,
                     "FEN field 1 (board): %s pawn on its last rank (rank %d)",
                     PC_COLOR(pc) == WHITE ? "White" : "Black", last + 1);
            return false;
        }
    }
    return true;
}

/* Writes a square as file letter and rank number (a1..j10). */
static int sup_sq_str(const Position *pos, int sq, char *buf) {
    return sprintf(buf, "%c%d", 'a' + sq % pos->width, sq / pos->width + 1);
}

/* Move text of the rules: `e3e5`, `i9i10q`, and `e5xf7-e9` for an intermediate capture. */
static int supremo_move_to_str(const Position *pos, Move m, char *buf) {
    int len = sup_sq_str(pos, MOVE_FROM(m), buf);
    if (MOVE_MID(m) != NO_SQ) {
        buf[len++] = 'x';
        len += sup_sq_str(pos, MOVE_MID(m), buf + len);
        buf[len++] = '-';
    }
    len += sup_sq_str(pos, MOVE_TO(m), buf + len);
    if (MOVE_PROMO(m)) {
        char c = pos->var->pieces[MOVE_PROMO(m)].letter;
        buf[len++] = (char)(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
    }
    buf[len] = 0;
    return len;
}

/* The operations shared by Supremo and the cannon10 comparison variant. */
static const VariantOps supremo_ops = {
    .init = supremo_init,
    .gen_legal = supremo_gen_legal,
    .count_legal = supremo_count_legal,
    .gen_reference = supremo_gen_reference,
    .make = supremo_make,
    .unmake = supremo_unmake,
    .in_check = supremo_in_check,
    .royal_attacked = supremo_royal_attacked,
    .validate = supremo_validate,
    .move_to_str = supremo_move_to_str,
};

Variant variant_supremo = {
    .name = "supremo",
    .title = "Supremo Superchess (10x10)",
    .width = 10,
    .height = 10,
    .npt = 9,
    .rules = 0,
    .pieces =
        {
            [SUP_PAWN] = {'P',
                          "Pawn",
                          PF_PROMOTES | PF_ORIENTED | PF_PAWN_PIECE,
                          100,
                          4,
                          {LEAP_M(0, 1, MM_MOVE),
                           {MC_LEAP, MM_MOVE, 0, 2, 0, MCOND_START_RANK, 1, {{0, 1}}},
                           LEAP_M(1, 1, MM_CAPTURE),
                           LEAP_M(-1, 1, MM_CAPTURE)}},
            [SUP_KNIGHT] = {'N',
                            "Super Knight",
                            0,
                            550,
                            9,
                            {KNIGHT_LEAPS, {MC_DLEAP, MM_BOTH, 1, 2, 0, 0, 0, {{0}}}}},
            [SUP_BISHOP] = {'B', "Super Bishop", 0, 500, 8, {BISHOP_RIDES, SUP_BISHOP_HOPS}},
            [SUP_ROOK] = {'R', "Super Rook", 0, 700, 8, {ROOK_RIDES, SUP_ROOK_HOPS}},
            [SUP_QUEEN] = {'Q',
                           "Super General",
                           0,
                           1200,
                           16,
                           {ROOK_RIDES, BISHOP_RIDES, SUP_ROOK_HOPS, SUP_BISHOP_HOPS}},
            [SUP_KING] = {'K', "King", PF_ROYAL, 0, 8, {KING_STEPS}},
            [SUP_TERMINATOR] =
                {'T', "Super Terminator", PF_BLAST, 600, 16, {SUP_KSTEP_MOVES, SUP_JSTEPS}},
            [SUP_COMMANDO] =
                {'C', "Super Commando", 0, 550, 1, {{MC_WALK, MM_BOTH, 0, 0, 2, 0, 0, {{0}}}}},
            [SUP_PROTECTOR] = {'S',
                               "Super Protector",
                               PF_NO_CAPTURE | PF_UNCAPTURABLE,
                               250,
                               1,
                               {{MC_WALK, MM_MOVE, 0, 0, 3, 0, 0, {{0}}}}},
        },
    .start_fen =
        "rnbtqktbnr/csrnbbnrsc/pppppppppp/10/10/10/10/PPPPPPPPPP/CSRNBBNRSC/RNBTQKTBNR w - - 0 1",
    .pawn_start_rank = {2, 7},
    .promo_types = {SUP_QUEEN, SUP_ROOK, SUP_BISHOP, SUP_KNIGHT, SUP_TERMINATOR, SUP_COMMANDO,
                    SUP_PROTECTOR},
    .stalemate_score = 250,
    .ops = &supremo_ops,
};

/* Piece type ids of the comparison variant below. */
enum { CAN_PAWN = 1, CAN_BISHOP, CAN_ROOK, CAN_QUEEN, CAN_KING, CAN_CANNON };

/* The pieces Supremo's generator shares with Fairy-Stockfish 11.1, which cannot define
 * pieces of its own: plain sliders, the xiangqi cannon (slides to move, hops to capture),
 * King and a single-step pawn, on 10x10. It runs on the Supremo operations unchanged, so
 * it measures the same 128-bit hot path against an independent engine. */
Variant variant_cannon10 = {
    .name = "cannon10",
    .title = "10x10 sliders and cannons (Supremo generator, Fairy-Stockfish piece set)",
    .width = 10,
    .height = 10,
    .npt = 6,
    .rules = 0,
    .pieces =
        {
            [CAN_PAWN] = {'P',
                          "Pawn",
                          PF_PROMOTES | PF_ORIENTED | PF_PAWN_PIECE,
                          100,
                          3,
                          {LEAP_M(0, 1, MM_MOVE), LEAP_M(1, 1, MM_CAPTURE),
                           LEAP_M(-1, 1, MM_CAPTURE)}},
            [CAN_BISHOP] = {'B', "Bishop", 0, 350, 4, {BISHOP_RIDES}},
            [CAN_ROOK] = {'R', "Rook", 0, 500, 4, {ROOK_RIDES}},
            [CAN_QUEEN] = {'Q', "Queen", 0, 900, 8, {ROOK_RIDES, BISHOP_RIDES}},
            [CAN_KING] = {'K', "King", PF_ROYAL, 0, 8, {KING_STEPS}},
            [CAN_CANNON] = {'C',
                            "Cannon",
                            0,
                            450,
                            8,
                            {{MC_RIDE, MM_MOVE, 1, 0, 0, 0, 0, {{0}}},
                             {MC_RIDE, MM_MOVE, -1, 0, 0, 0, 0, {{0}}},
                             {MC_RIDE, MM_MOVE, 0, 1, 0, 0, 0, {{0}}},
                             {MC_RIDE, MM_MOVE, 0, -1, 0, 0, 0, {{0}}},
                             {MC_HOP, MM_CAPTURE, 1, 0, 0, 0, 0, {{0}}},
                             {MC_HOP, MM_CAPTURE, -1, 0, 0, 0, 0, {{0}}},
                             {MC_HOP, MM_CAPTURE, 0, 1, 0, 0, 0, {{0}}},
                             {MC_HOP, MM_CAPTURE, 0, -1, 0, 0, 0, {{0}}}}},
        },
    .start_fen = "rcbbqkbbcr/pppppppppp/10/10/10/10/10/10/PPPPPPPPPP/RCBBQKBBCR w - - 0 1",
    .pawn_start_rank = {1, 8},
    .promo_types = {CAN_QUEEN, CAN_ROOK, CAN_BISHOP, CAN_CANNON},
    .stalemate_score = 500,
    .ops = &supremo_ops,
};
