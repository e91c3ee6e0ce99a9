/* switching.c - Switching chess: orthodox chess where, instead of a move, two neighbouring
 * own pieces of different types may swap squares (a pawn switched onto its last rank
 * promotes). The variant record, the switch generator on top of the orthodox one, switch
 * make/unmake and the `S` notation. */
#include <stdio.h>

#include "chess.h"

/* Number of legal switches, set-wise. Each neighbouring pair is (s, s + d) for d in E,
 * NW, N, NE; pairs of the same type are subtracted; the king's pairs are tested one by
 * one, and a pawn switching onto its last rank counts four promotions. */
static int switch_count(const Position *p, int ksq, Bitboard occ) {
    const int us = p->side, them = us ^ 1;
    const Bitboard *T = BB(p).type;
    const Bitboard own = BB(p).color[us];
    const Bitboard last = us == WHITE ? RANK_1 << 56 : RANK_1;
    const Bitboard nk = own & ~T[KING];
    static const int dshift[4] = {1, 7, 8, 9};
    static const Bitboard dmask[4] = {~FILE_A, ~FILE_H, ~0ULL, ~FILE_A};
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
    u->dirty.n = 0; /* written below */
    const int pa = pos_remove8(p, from), pb = pos_remove8(p, to);
    int na = pa, nb = pb; /* what lands on `to` and on `from` */
    u->captured = (uint8_t)pb;
    if (MOVE_PROMO(m)) {
        p->halfmove = 0;
        if (PC_TYPE(pa) == PAWN) na = PC_MAKE(us, MOVE_PROMO(m));
        else nb = PC_MAKE(us, MOVE_PROMO(m));
    }
    pos_put8(p, from, nb);
    pos_put8(p, to, na);
    if (na == pa) {
        dirty_add(u, pa, from, to);
    } else {
        dirty_add(u, pa, from, NO_SQ);
        dirty_add(u, na, NO_SQ, to);
    }
    if (nb == pb) {
        dirty_add(u, pb, to, from);
    } else {
        dirty_add(u, pb, to, NO_SQ);
        dirty_add(u, nb, NO_SQ, from);
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
};

Variant variant_switching = {
    .name = "switching",
    .title = "Switching chess",
    .width = 8,
    .height = 8,
    .npt = 6,
    .rules = RULE_CASTLING | RULE_EP | RULE_SWITCH | RULE_PAWN_FIRST_RANK,
    .pieces = ORTHODOX_PIECES(MCOND_FIRST_TWO),
    .start_fen = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    .pawn_start_rank = {1, 6},
    .promo_types = {QUEEN, ROOK, BISHOP, KNIGHT},
    .stalemate_score = 500,
    .ops = &switching_ops,
};
