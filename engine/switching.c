/* switching.c - Switching chess: orthodox chess where, instead of a move, two neighbouring
 * own pieces of different types may swap squares (a pawn switched onto its last rank
 * promotes). The variant record, the switch generator on top of the orthodox one, switch
 * make/unmake and the `S` notation. */
#include <stdio.h>

#include "chess.h"

/* The four directions of a neighbouring pair (s, s + d): E, NW, N, NE, as shifts and the
 * masks that drop the pairs wrapping round the board's edge. Shared by switch_count and
 * switch_list_fast. */
static const int dshift[4] = {1, 7, 8, 9};
static const Bitboard dmask[4] = {~FILE_A, ~FILE_H, ~0ULL, ~FILE_A};

/* Number of legal switches, set-wise. Each neighbouring pair is (s, s + d) for d in E,
 * NW, N, NE; pairs of the same type are subtracted; the king's pairs are tested one by
 * one, and a pawn switching onto its last rank counts four promotions. */
static int switch_count(const Position *p, int ksq, Bitboard occ) {
    const int us = p->side, them = us ^ 1;
    const Bitboard *T = BB(p).type;
    const Bitboard own = BB(p).color[us];
    const Bitboard last = us == WHITE ? RANK_1 << 56 : RANK_1;
    const Bitboard nk = own & ~T[KING];
    int n = 0;
    for (int d = 0; d < 4; d++) {
        n += bb_popcount(nk & (nk << dshift[d]) & dmask[d]);
        for (int t = PAWN; t <= QUEEN; t++) {
            Bitboard bt = T[t] & own;
            n -= bb_popcount(bt & (bt << dshift[d]) & dmask[d]);
        }
    }
    Bitboard kn = king_att8[ksq] & own;
    while (kn) {
        int c = bb_pop_lsb(&kn);
        if (!attackers_by(p, c, them, occ))
            n += (PC_TYPE(p->board[c]) == PAWN && (sq_bb8(ksq) & last)) ? 4 : 1;
    }
    Bitboard near = T[PAWN] & own & (us == WHITE ? RANK_1 << 48 : RANK_1 << 8);
    while (near) {
        int a = bb_pop_lsb(&near);
        n += 3 * bb_popcount(king_att8[a] & last & nk & ~T[PAWN]);
    }
    return n;
}

/* Writes the legal switches to list, each unordered pair once (file first, then rank);
 * returns how many. A king switch is legal iff the partner's square is not attacked. */
static int switch_list(const Position *p, Bitboard occ, Move *list) {
    const int us = p->side, them = us ^ 1;
    const Bitboard last = us == WHITE ? RANK_1 << 56 : RANK_1;
    Bitboard b = BB(p).color[us];
    int n = 0;
    while (b) {
        int a = bb_pop_lsb(&b);
        int ta = PC_TYPE(p->board[a]);
        Bitboard nb = king_att8[a] & b; /* each unordered pair once */
        while (nb) {
            int c = bb_pop_lsb(&nb);
            int tc = PC_TYPE(p->board[c]);
            if (ta == tc) continue;
            if ((ta == KING && attackers_by(p, c, them, occ)) ||
                (tc == KING && attackers_by(p, a, them, occ)))
                continue;
            /* canonical order: file first, then rank */
            int lo = a, hi = c;
            if (a % 8 > c % 8 || (a % 8 == c % 8 && a > c)) lo = c, hi = a;
            if ((ta == PAWN && (sq_bb8(c) & last)) || (tc == PAWN && (sq_bb8(a) & last))) {
                list[n++] = MOVE_MAKE(lo, hi, NO_SQ, QUEEN, MK_SWITCH);
                list[n++] = MOVE_MAKE(lo, hi, NO_SQ, ROOK, MK_SWITCH);
                list[n++] = MOVE_MAKE(lo, hi, NO_SQ, BISHOP, MK_SWITCH);
                list[n++] = MOVE_MAKE(lo, hi, NO_SQ, KNIGHT, MK_SWITCH);
            } else {
                list[n++] = MOVE_SIMPLE(lo, hi, MK_SWITCH);
            }
        }
    }
    return n;
}

/* Adds the switch of the neighbours x and y, their types different, to list: from the square
 * of the lower file (of the lower rank on one file), four promotions when a pawn of the two
 * lands on the last rank. Returns how many moves it added. */
static inline int switch_add(const Position *p, int x, int y, Bitboard last, Move *list) {
    const Bitboard pawns = BB(p).type[PAWN];
    int lo = x, hi = y;
    if (x % 8 > y % 8 || (x % 8 == y % 8 && x > y)) lo = y, hi = x;
    if (((pawns & sq_bb8(x)) && (sq_bb8(y) & last)) ||
        ((pawns & sq_bb8(y)) && (sq_bb8(x) & last))) {
        list[0] = MOVE_MAKE(lo, hi, NO_SQ, QUEEN, MK_SWITCH);
        list[1] = MOVE_MAKE(lo, hi, NO_SQ, ROOK, MK_SWITCH);
        list[2] = MOVE_MAKE(lo, hi, NO_SQ, BISHOP, MK_SWITCH);
        list[3] = MOVE_MAKE(lo, hi, NO_SQ, KNIGHT, MK_SWITCH);
        return 4;
    }
    list[0] = MOVE_SIMPLE(lo, hi, MK_SWITCH);
    return 1;
}

/* The legal switches set-wise, as switch_count finds them: the same moves as switch_list
 * in an order of their own (by direction E, NW, N, NE, then square; the king's last), for
 * the generator without the search's order (gen_fast). Returns how many. */
static int switch_list_fast(const Position *p, int ksq, Bitboard occ, Move *list) {
    const int us = p->side, them = us ^ 1;
    const Bitboard *T = BB(p).type;
    const Bitboard own = BB(p).color[us];
    const Bitboard last = us == WHITE ? RANK_1 << 56 : RANK_1;
    const Bitboard nk = own & ~T[KING];
    int n = 0;
    for (int d = 0; d < 4; d++) {
        /* the upper square of each pair of non-king pieces, less the pairs of one type */
        Bitboard up = nk & (nk << dshift[d]) & dmask[d];
        for (int t = PAWN; t <= QUEEN; t++) {
            Bitboard bt = T[t] & own;
            up &= ~(bt & (bt << dshift[d]) & dmask[d]);
        }
        while (up) {
            int s = bb_pop_lsb(&up);
            n += switch_add(p, s, s - dshift[d], last, list + n);
        }
    }
    Bitboard kn = king_att8[ksq] & own;
    while (kn) {
        int c = bb_pop_lsb(&kn);
        if (!attackers_by(p, c, them, occ)) n += switch_add(p, ksq, c, last, list + n);
    }
    return n;
}

/* Legal moves on the fast path: switching_gen_legal's, the switches set-wise. */
static int switching_gen_fast(Position *p, Move *list) {
    int n = chess_gen_legal(p, list);
    const Bitboard occ = BB(p).color[0] | BB(p).color[1];
    const int ksq = king_sq(p, p->side);
    if (attackers_by(p, ksq, p->side ^ 1, occ)) return n;
    return n + switch_list_fast(p, ksq, occ, list + n);
}

/* switching_gen_fast's moves as a MoveSet: the orthodox ones in groups, the switches in
 * its tail. */
static int switching_gen_fast_set(Position *p, MoveSet *ms) {
    int n = chess_gen_set(p, ms);
    if (ms->check) return n;
    const Bitboard occ = BB(p).color[0] | BB(p).color[1];
    return ms->n = n + switch_list_fast(p, king_sq(p, p->side), occ, ms->tail);
}

/* Legal moves: the orthodox ones, then (never in check) the switches. */
static int switching_gen_legal(Position *p, Move *list) {
    int n = chess_gen_legal(p, list);
    const Bitboard occ = BB(p).color[0] | BB(p).color[1];
    if (attackers_by(p, king_sq(p, p->side), p->side ^ 1, occ)) return n;
    return n + switch_list(p, occ, list + n);
}

/* Number of legal moves (perft's last ply). */
static uint64_t switching_count_legal(Position *p) {
    uint64_t n = chess_count_legal(p);
    const Bitboard occ = BB(p).color[0] | BB(p).color[1];
    const int ksq = king_sq(p, p->side);
    if (attackers_by(p, ksq, p->side ^ 1, occ)) return n;
    return n + (uint64_t)switch_count(p, ksq, occ);
}

/* Makes a move; a switch swaps the two pieces (promoting a pawn that lands on its last
 * rank), anything else is an orthodox move. */
static void switching_make(Position *p, Move m) {
    if (MOVE_KIND(m) != MK_SWITCH) {
        chess_make(p, m);
        return;
    }
    Undo *u = chess_make_begin(p, m);
    const int us = p->side, from = MOVE_FROM(m), to = MOVE_TO(m);
    const int pa = u->moved, pb = p->board[to];
    u->captured = (uint8_t)pb;
    /* DirtyPiece: chess_make_begin wrote pa going from `from` to `to`; pb goes the other way */
    dirty_set(u, 1, pb, to, from);
    u->dirty.n = 2;
    pos_remove8(p, from);
    pos_remove8(p, to);
    if (MOVE_PROMO(m)) { /* the pawn of the two leaves, and its promotion appears */
        p->halfmove = 0;
        const int promo = PC_MAKE(us, MOVE_PROMO(m)), i = PC_TYPE(pa) == PAWN ? 0 : 1;
        u->dirty.d[i].to = NO_SQ;
        dirty_set(u, 2, promo, NO_SQ, i == 0 ? to : from);
        u->dirty.n = 3;
        pos_put8(p, from, i == 0 ? pb : promo);
        pos_put8(p, to, i == 0 ? promo : pa);
    } else {
        pos_put8(p, from, pb);
        pos_put8(p, to, pa);
    }
    chess_make_end(p, from, to, us);
}

/* Takes back the last move. */
static void switching_unmake(Position *p) {
    if (MOVE_KIND(p->stack[p->ply - 1].move) != MK_SWITCH) {
        chess_unmake(p);
        return;
    }
    Undo *u = &p->stack[--p->ply];
    const int from = MOVE_FROM(u->move), to = MOVE_TO(u->move);
    p->side ^= 1;
    if (p->side == BLACK) p->fullmove--;
    pos_remove8_nokey(p, from);
    pos_remove8_nokey(p, to);
    pos_put8_nokey(p, from, u->moved);
    pos_put8_nokey(p, to, u->captured);
    chess_unmake_end(p, u);
}

/* Switch notation: `S` + the two squares (file first) + promotion letter. */
static int switching_move_to_str(const Position *p, Move m, char *buf) {
    if (MOVE_KIND(m) != MK_SWITCH) return move_to_str_uci(p, m, buf);
    buf[0] = 'S';
    return 1 + move_to_str_uci(p,
                               MOVE_MAKE(MOVE_FROM(m), MOVE_TO(m), NO_SQ, MOVE_PROMO(m), MK_NORMAL),
                               buf + 1);
}

/* Reads a move; a switch may name its squares in either order. */
static Move switching_move_from_str(Position *p, const char *s, CvError *err) {
    if (s[0] != 'S') return move_from_str_generic(p, s, err);
    Move m = move_from_str_generic(p, s, NULL);
    if (m != MOVE_NONE) return m;
    int a, b, la = sq_from_str(p, s + 1, &a), lb = la ? sq_from_str(p, s + 1 + la, &b) : 0;
    if (la && lb) {
        char swapped[24];
        int k = 1;
        swapped[0] = 'S';
        k += sq_to_str(p, b, swapped + k);
        k += sq_to_str(p, a, swapped + k);
        snprintf(swapped + k, sizeof swapped - (size_t)k, "%s", s + 1 + la + lb);
        m = move_from_str_generic(p, swapped, NULL);
        if (m != MOVE_NONE) return m;
    }
    return move_from_str_generic(p, s, err);
}

static const VariantOps switching_ops = {
    .init = chess_init,
    .gen_legal = switching_gen_legal,
    .count_legal = switching_count_legal,
    .gen_reference = movegen_reference,
    .make = switching_make,
    .unmake = switching_unmake,
    .in_check = chess_in_check,
    .royal_attacked = chess_royal_attacked,
    .validate = chess_validate,
    .move_to_str = switching_move_to_str,
    .move_from_str = switching_move_from_str,
    .insufficient_material = chess_insufficient_material,
    .see_ge = chess_see_ge,             /* captures are orthodox; a switch exchanges nothing */
    .gen_captures = chess_gen_captures, /* and a switch captures nothing */
    .gen_fast = switching_gen_fast,
    .gen_fast_set = switching_gen_fast_set,
};

Variant variant_switching = {
    .name = "switching",
    .title = "Switching chess",
    .width = 8,
    .height = 8,
    .npt = 6,
    .rules = RULE_CASTLING | RULE_EP | RULE_SWITCH | RULE_PAWN_FIRST_RANK,
    .pieces = ORTHODOX_PIECES(MCOND_FIRST_TWO),
    .orthodox_pieces = true,
    .start_fen = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    .pawn_start_rank = {1, 6},
    .promo_types = {QUEEN, ROOK, BISHOP, KNIGHT},
    .stalemate_score = 500,
    .ops = &switching_ops,
};
