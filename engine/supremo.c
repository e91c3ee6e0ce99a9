/* supremo.c - Supremo Superchess on 10x10: the piece data, the tables built from it,
 * make/unmake, validation and notation, and the records of Supremo and cannon10.
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
 * from the piece data at the variant's first lookup (supremo_gen.c), and a reference one that walks
 * the mailbox exactly as the rules text says, with an attack test that generates every enemy
 * pseudo-move (supremo_ref.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "supremo.h"

/* ------------------------------------------------------------------ piece data */

/* The jumping king steps (over an occupied neighbour, onto an empty square). */
#define SUP_JSTEPS                                                                                 \
    JSTEP_M(1, 0, MM_MOVE), JSTEP_M(-1, 0, MM_MOVE), JSTEP_M(0, 1, MM_MOVE),                       \
        JSTEP_M(0, -1, MM_MOVE), JSTEP_M(1, 1, MM_MOVE), JSTEP_M(1, -1, MM_MOVE),                  \
        JSTEP_M(-1, 1, MM_MOVE), JSTEP_M(-1, -1, MM_MOVE)
/* Cannon hops along the rook and the bishop lines. */
#define SUP_ROOK_HOPS   HOP(1, 0), HOP(-1, 0), HOP(0, 1), HOP(0, -1)
#define SUP_BISHOP_HOPS HOP(1, 1), HOP(1, -1), HOP(-1, 1), HOP(-1, -1)

/* ------------------------------------------------------------------ small helpers */

/* The symmetric images of the leap (a, b), without repeats; returns how many. */
int sup_leap_images(int a, int b, int out[8][2]) {
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
    for (int t = 1; t <= v->npt; t++) {
        if (T->has_leap[t]) T->leap_types[T->n_leap_types++] = (uint8_t)t;
        if (T->ride_cp[t] | T->hop_cp[t]) T->line_types[T->n_line_types++] = (uint8_t)t;
        bool near = (T->dleap_mode[t] & MM_CAPTURE) || (T->flags[t] & PF_BLAST) ||
                    (T->walk_range[t] && (T->walk_mode[t] & MM_CAPTURE)) || T->nslow[t] ||
                    T->jstep_cp[t];
        if (T->reach[t] && near) T->near_types[T->n_near_types++] = (uint8_t)t;
    }
    for (int t = 1; t <= v->npt; t++) {
        supremo_lines_prepare(T, v, t);
        supremo_setwise_prepare(T, v, t);
    }
    v->tables = T;
}

/* ------------------------------------------------------------------ make / unmake */

/* Plays m: removes the intermediate victim, captures on `to`, promotes, and for a
 * blasting piece removes every capturable enemy next to its landing square. */
void supremo_make(Position *pos, Move m) {
    const SupTables *T = pos->var->tables;
    int from = MOVE_FROM(m), to = MOVE_TO(m), mid = MOVE_MID(m), promo = MOVE_PROMO(m);
    int us = pos->side;
    Undo *u = pos_push(pos, m);
    int pc = pos->board[from];
    u->moved = (uint8_t)pc;
    bool capture = false;
    /* DirtyPiece: the mover first (unless it captures and returns without promoting), then
     * each piece removed and a promotion, counted in n */
    dirty_set(u, 0, pc, from, promo ? NO_SQ : to);
    int n = to != from || promo;
    if (mid != NO_SQ) {
        dirty_set(u, n++, pos_remove10(pos, mid), mid, NO_SQ);
        u->nvict = 1;
        capture = true;
    }
    if (to != from) {
        if (pos->board[to]) {
            u->captured = (uint8_t)pos_remove10(pos, to);
            dirty_set(u, n++, u->captured, to, NO_SQ);
            capture = true;
        }
        pos_move10(pos, from, to);
    }
    if (promo) {
        pos_remove10(pos, to);
        pos_put10(pos, to, PC_MAKE(us, promo));
        dirty_set(u, n++, PC_MAKE(us, promo), NO_SQ, to);
    }
    uint32_t fl = T->flags[PC_TYPE(pc)];
    if ((fl & PF_BLAST) && !promo) {
        u128 victims = T->kmask[to] & pos->bb.b10.color[us ^ 1] & ~sup_uncapturable(pos, T);
        while (victims) {
            int sq = bb128_pop_lsb(&victims);
            dirty_set(u, n++, pos_remove10(pos, sq), sq, NO_SQ);
            u->nvict++;
            capture = true;
        }
    }
    u->dirty.n = (uint8_t)n;
    pos->halfmove =
        (capture || (fl & (PF_PAWN_PIECE | PF_PAWN))) ? 0 : (uint16_t)(pos->halfmove + 1);
    pos->ep = NO_SQ;
    if (us == BLACK) pos->fullmove++;
    pos->side = (uint8_t)(us ^ 1);
    pos->key ^= zob_side;
}

/* Takes back the last move, restoring every victim (captured on `to`, on the intermediate
 * square, blasted) from the undo record's DirtyPiece. */
void supremo_unmake(Position *pos) {
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
    const DirtyPiece *d = &u->dirty;
    for (int i = 0; i < d->n; i++)
        if (d->d[i].to == NO_SQ && PC_COLOR(d->d[i].pc) != pos->side)
            pos_put10(pos, d->d[i].from, d->d[i].pc);
    pos->key = u->key;
    pos->halfmove = u->halfmove;
    pos->ep = u->ep;
    pos->castle = u->castle;
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

/* Supremo's tables, and those of its lean perft, which knows only Supremo's pieces. */
static void supremo_init_with_perft(Variant *v) {
    supremo_init(v);
    supremo_perft_init(v->tables);
    ((SupTables *)v->tables)->lean = true; /* still building: no thread reads it yet */
}

/* The operations of Supremo: bare Kings draw (the rules know no other insufficient material). */
static const VariantOps supremo_ops = {
    .init = supremo_init_with_perft,
    .gen_legal = supremo_gen_legal,
    .gen_captures = supremo_gen_captures,
    .count_legal = supremo_count_legal,
    .gen_reference = supremo_gen_reference,
    .make = supremo_make,
    .unmake = supremo_unmake,
    .in_check = supremo_in_check,
    .royal_attacked = supremo_royal_attacked,
    .validate = supremo_validate,
    .move_to_str = supremo_move_to_str,
    .perft = supremo_perft,
    .insufficient_material = pos_bare_royals,
    .gen_fast_set = supremo_gen_set,
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
            [SUP_PAWN] =
                PIECE('P', "Pawn", PF_PROMOTES | PF_ORIENTED | PF_PAWN_PIECE, 100,
                      LEAP_M(0, 1, MM_MOVE), LAME1_COND(0, 2, MM_MOVE, MCOND_START_RANK, 0, 1),
                      LEAP_M(1, 1, MM_CAPTURE), LEAP_M(-1, 1, MM_CAPTURE)),
            [SUP_KNIGHT] = PIECE('N', "Super Knight", 0, 550, KNIGHT_LEAPS, DLEAP_M(1, 2, MM_BOTH)),
            [SUP_BISHOP] = PIECE('B', "Super Bishop", 0, 500, BISHOP_RIDES, SUP_BISHOP_HOPS),
            [SUP_ROOK] = PIECE('R', "Super Rook", 0, 700, ROOK_RIDES, SUP_ROOK_HOPS),
            [SUP_QUEEN] = PIECE('Q', "Super General", 0, 1200, ROOK_RIDES, BISHOP_RIDES,
                                SUP_ROOK_HOPS, SUP_BISHOP_HOPS),
            [SUP_KING] = PIECE('K', "King", PF_ROYAL, 0, KING_STEPS),
            [SUP_TERMINATOR] =
                PIECE('T', "Super Terminator", PF_BLAST, 600, KING_STEPS_M(MM_MOVE), SUP_JSTEPS),
            [SUP_COMMANDO] = PIECE('C', "Super Commando", 0, 550, WALK_M(2, MM_BOTH)),
            [SUP_PROTECTOR] = PIECE('S', "Super Protector", PF_NO_CAPTURE | PF_UNCAPTURABLE, 250,
                                    WALK_M(3, MM_MOVE)),
        },
    .start_fen =
        "rnbtqktbnr/csrnbbnrsc/pppppppppp/10/10/10/10/PPPPPPPPPP/CSRNBBNRSC/RNBTQKTBNR w - - 0 1",
    .pawn_start_rank = {2, 7},
    .promo_types = {SUP_QUEEN, SUP_ROOK, SUP_BISHOP, SUP_KNIGHT, SUP_TERMINATOR, SUP_COMMANDO,
                    SUP_PROTECTOR},
    .stalemate_score = 250,
    .zugzwang_prone = true, /* a stalemate scores, and the blasts and hoppers thin endings */
    .ops = &supremo_ops,
};

/* Supremo's tables, and those of cannon10's own perft kernel. */
static void cannon10_init_with_perft(Variant *v) {
    supremo_init(v);
    if (!cannon10_perft_init(v->tables)) {
        fprintf(stderr, "cannon10: out of memory building tables\n");
        exit(1);
    }
}

/* The operations of cannon10: Supremo's, without a draw by material, and a perft kernel
 * of its own. */
static const VariantOps cannon10_ops = {
    .init = cannon10_init_with_perft,
    .gen_legal = supremo_gen_legal,
    .gen_captures = supremo_gen_captures,
    .count_legal = supremo_count_legal,
    .gen_reference = supremo_gen_reference,
    .make = supremo_make,
    .unmake = supremo_unmake,
    .in_check = supremo_in_check,
    .royal_attacked = supremo_royal_attacked,
    .validate = supremo_validate,
    .move_to_str = supremo_move_to_str,
    .perft = cannon10_perft,
};

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
            [CAN_PAWN] =
                PIECE('P', "Pawn", PF_PROMOTES | PF_ORIENTED | PF_PAWN_PIECE, 100,
                      LEAP_M(0, 1, MM_MOVE), LEAP_M(1, 1, MM_CAPTURE), LEAP_M(-1, 1, MM_CAPTURE)),
            [CAN_BISHOP] = PIECE('B', "Bishop", 0, 350, BISHOP_RIDES),
            [CAN_ROOK] = PIECE('R', "Rook", 0, 500, ROOK_RIDES),
            [CAN_QUEEN] = PIECE('Q', "Queen", 0, 900, ROOK_RIDES, BISHOP_RIDES),
            [CAN_KING] = PIECE('K', "King", PF_ROYAL, 0, KING_STEPS),
            [CAN_CANNON] =
                PIECE('C', "Cannon", 0, 450, RIDE_M(1, 0, MM_MOVE), RIDE_M(-1, 0, MM_MOVE),
                      RIDE_M(0, 1, MM_MOVE), RIDE_M(0, -1, MM_MOVE), HOP_M(1, 0, MM_CAPTURE),
                      HOP_M(-1, 0, MM_CAPTURE), HOP_M(0, 1, MM_CAPTURE), HOP_M(0, -1, MM_CAPTURE)),
        },
    .start_fen = "rcbbqkbbcr/pppppppppp/10/10/10/10/10/10/PPPPPPPPPP/RCBBQKBBCR w - - 0 1",
    .pawn_start_rank = {1, 8},
    .promo_types = {CAN_QUEEN, CAN_ROOK, CAN_BISHOP, CAN_CANNON},
    .stalemate_score = 500,
    .ops = &cannon10_ops,
};
