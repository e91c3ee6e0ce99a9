/* chess.c - orthodox chess: the variant record, make/unmake on 64-bit bitboards, check
 * and validation. The fast generator is in movegen_chess.c; Switching chess
 * (switching.c) builds on these operations. */
#include <stdio.h>
#include <string.h>

#include "chess.h"
#include "perft_chess.h"

uint8_t chess_castle_mask[64];

/* Whether any king of colour c is attacked: orthodox check. */
bool chess_royal_attacked(const Position *p, int c) {
    Bitboard k = BB(p).type[KING] & BB(p).color[c];
    if (!k) return false;
    return attackers_by(p, bb_lsb(k), c ^ 1, BB(p).color[0] | BB(p).color[1]) != 0;
}

/* Whether the side to move is in check. */
bool chess_in_check(const Position *p) { return chess_royal_attacked(p, p->side); }

/* An orthodox move made, with its undo record (undo, a constant at each call) or without
 * it: the board, the key and the state are the same either way. */
static inline __attribute__((always_inline)) void chess_make_with(Position *p, Move m,
                                                                  const bool undo) {
    const int us = p->side, from = MOVE_FROM(m), to = MOVE_TO(m), kind = MOVE_KIND(m);
    Undo *u = NULL;
    int moved;
    if (undo) {
        u = chess_make_begin(p, m);
        moved = u->moved;
    } else { /* chess_make_begin's state without the record */
        chess_make_state(p);
        moved = p->board[from];
    }
    switch (kind) {
    case MK_NORMAL:
        if (p->board[to]) {
            int captured = pos_remove8(p, to);
            if (undo) {
                u->captured = (uint8_t)captured;
                dirty_set(u, 1, captured, to, NO_SQ);
                u->dirty.n = 2;
            }
            p->halfmove = 0;
        }
        if (MOVE_PROMO(m)) {
            pos_remove8(p, from);
            pos_put8(p, to, PC_MAKE(us, MOVE_PROMO(m)));
            if (undo) {
                u->dirty.d[0].to = NO_SQ;
                dirty_add(u, PC_MAKE(us, MOVE_PROMO(m)), NO_SQ, to);
            }
        } else {
            pos_move8(p, from, to);
        }
        if (PC_TYPE(moved) == PAWN) p->halfmove = 0;
        break;
    case MK_DOUBLE:
        pos_move8(p, from, to);
        p->halfmove = 0;
        p->ep = (uint8_t)((from + to) / 2);
        break;
    case MK_EP: {
        int cap = to + (us == WHITE ? -8 : 8);
        int captured = pos_remove8(p, cap);
        pos_move8(p, from, to);
        if (undo) {
            u->captured = (uint8_t)captured;
            dirty_set(u, 1, captured, cap, NO_SQ);
            u->dirty.n = 2;
        }
        p->halfmove = 0;
        break;
    }
    case MK_CASTLE: {
        int rf = to > from ? from + 3 : from - 4, rt = (from + to) / 2;
        pos_move8(p, from, to);
        pos_move8(p, rf, rt);
        if (undo) {
            dirty_set(u, 1, PC_MAKE(us, ROOK), rf, rt);
            u->dirty.n = 2;
        }
        break;
    }
    default: break;
    }
    chess_make_end(p, from, to, us);
}

/* Makes an orthodox move, pushing its undo record. */
void chess_make(Position *p, Move m) { chess_make_with(p, m, true); }

void chess_make_replay(Position *p, Move m) { chess_make_with(p, m, false); }

/* Takes back the last orthodox move. */
void chess_unmake(Position *p) {
    Undo *u = &p->stack[--p->ply];
    const Move m = u->move;
    const int from = MOVE_FROM(m), to = MOVE_TO(m);
    p->side ^= 1;
    if (p->side == BLACK) p->fullmove--;
    switch (MOVE_KIND(m)) {
    case MK_NORMAL:
        if (MOVE_PROMO(m)) {
            pos_remove8_nokey(p, to);
            pos_put8_nokey(p, from, u->moved);
        } else {
            pos_move8_nokey(p, to, from);
        }
        if (u->captured) pos_put8_nokey(p, to, u->captured);
        break;
    case MK_DOUBLE: pos_move8_nokey(p, to, from); break;
    case MK_EP:
        pos_move8_nokey(p, to, from);
        pos_put8_nokey(p, to + (p->side == WHITE ? -8 : 8), u->captured);
        break;
    case MK_CASTLE: {
        int rf = to > from ? from + 3 : from - 4, rt = (from + to) / 2;
        pos_move8_nokey(p, rt, rf);
        pos_move8_nokey(p, to, from);
        break;
    }
    default: break;
    }
    chess_unmake_end(p, u);
}

/* Exactly one king per side. */
bool chess_validate(Position *p, CvError *err) {
    for (int c = 0; c < 2; c++) {
        int k = p->count[PC_MAKE(c, KING)];
        if (k != 1) {
            snprintf(err->msg, sizeof err->msg,
                     "bad FEN: %s has %d kings, needs exactly 1 (field 1)",
                     c == WHITE ? "white" : "black", k);
            return false;
        }
    }
    return true;
}

/* The orthodox draw by insufficient material: kings alone, a king and one minor piece against a
 * king, or kings and bishops only with every bishop on squares of one colour. */
bool chess_insufficient_material(const Position *p) {
    int knights = 0, bishops = 0;
    int bishop_colours = 0; /* bit 0: a bishop on a dark square, bit 1: on a light one */
    for (int sq = 0; sq < 64; sq++) {
        int t = PC_TYPE(p->board[sq]);
        if (!p->board[sq] || t == KING) continue;
        if (t == KNIGHT) knights++;
        else if (t == BISHOP) {
            bishops++;
            bishop_colours |= 1 << ((sq % 8 + sq / 8) & 1);
        } else return false;
    }
    if (knights + bishops <= 1) return true;
    return knights == 0 && bishop_colours != 3;
}

/* Castling masks for the orthodox corners and king squares, and the lean perft tables:
 * built once for chess and Switching chess together (this runs at the first lookup of
 * each, under the registry's lock), so the second lookup does not rewrite tables threads
 * of the first are reading. */
void chess_init(Variant *v) {
    (void)v;
    static bool built = false;
    if (built) return;
    built = true;
    memset(chess_castle_mask, 0xFF, sizeof chess_castle_mask);
    chess_castle_mask[4] = (uint8_t) ~(CASTLE_WK | CASTLE_WQ);
    chess_castle_mask[0] = (uint8_t)~CASTLE_WQ;
    chess_castle_mask[7] = (uint8_t)~CASTLE_WK;
    chess_castle_mask[60] = (uint8_t) ~(CASTLE_BK | CASTLE_BQ);
    chess_castle_mask[56] = (uint8_t)~CASTLE_BQ;
    chess_castle_mask[63] = (uint8_t)~CASTLE_BK;
    perft_chess_init();
}

/* Least valuable piece of the set `mine` that attacks the square: its type, and its bit in *b. */
static inline int see_least(const Position *p, Bitboard mine, Bitboard *b) {
    for (int t = PAWN; t <= KING; t++)
        if ((*b = mine & BB(p).type[t])) {
            *b &= -*b;
            return t;
        }
    return 0;
}

/* Static exchange test (the swap algorithm): m is played, then each side recaptures on the
 * target square with its least valuable attacker, sliders behind the pieces that left
 * joining in, and either side may stop when going on would lose; a king recaptures only
 * if the square is no longer attacked. Pins are ignored. True when the mover ends at least
 * threshold up. Castling, switches and drops exchange nothing. */
bool chess_see_ge(const Position *p, Move m, int threshold, const int *value) {
    int kind = MOVE_KIND(m);
    if (kind != MK_NORMAL && kind != MK_EP && kind != MK_DOUBLE) return threshold <= 0;
    int from = MOVE_FROM(m), to = MOVE_TO(m);
    Bitboard occ = BB(p).color[WHITE] | BB(p).color[BLACK];
    int gain = 0;
    if (kind == MK_EP) {
        gain = value[PAWN];
        occ ^= 1ULL << (p->side == WHITE ? to - 8 : to + 8);
    } else if (p->board[to] != PC_EMPTY) {
        gain = value[PC_TYPE(p->board[to])];
    }
    int moving = PC_TYPE(p->board[from]);
    if (MOVE_PROMO(m)) {
        gain += value[MOVE_PROMO(m)] - value[PAWN];
        moving = MOVE_PROMO(m);
    }
    int swap = gain - threshold;
    if (swap < 0) return false; /* even an unanswered capture falls short */
    swap = value[moving] - swap;
    if (swap <= 0) return true; /* even losing the mover keeps the threshold */
    occ ^= (1ULL << from) | (1ULL << to);
    const Bitboard *t = BB(p).type;
    Bitboard diag = t[BISHOP] | t[QUEEN], orth = t[ROOK] | t[QUEEN];
    Bitboard attackers = attackers_by(p, to, p->side ^ 1, occ) & occ;
    if (!attackers) return true; /* nothing answers the first capture (a quiet move's usual case) */
    attackers |= attackers_by(p, to, p->side, occ) & occ;
    int stm = p->side, res = 1;
    for (;;) {
        stm ^= 1;
        attackers &= occ;
        Bitboard mine = attackers & BB(p).color[stm], b;
        if (!mine) break;
        res ^= 1;
        int ty = see_least(p, mine, &b);
        if (ty == KING) /* the king may take only if nothing defends any more */
            return (attackers & ~BB(p).color[stm]) ? res ^ 1 : res;
        swap = value[ty] - swap;
        if (swap < res) break;
        occ ^= b;
        if (ty == PAWN || ty == BISHOP || ty == QUEEN) attackers |= bishop_att8(to, occ) & diag;
        if (ty == ROOK || ty == QUEEN) attackers |= rook_att8(to, occ) & orth;
    }
    return res != 0;
}

static const VariantOps chess_ops = {
    .init = chess_init,
    .gen_legal = chess_gen_legal,
    .count_legal = chess_count_legal,
    .perft = perft_chess,
    .gen_reference = movegen_reference,
    .make = chess_make,
    .unmake = chess_unmake,
    .in_check = chess_in_check,
    .royal_attacked = chess_royal_attacked,
    .validate = chess_validate,
    .insufficient_material = chess_insufficient_material,
    .see_ge = chess_see_ge,
    .gen_captures = chess_gen_captures,
    .gen_fast_set = chess_gen_set,
};

Variant variant_chess = {
    .name = "chess",
    .title = "Orthodox chess",
    .width = 8,
    .height = 8,
    .npt = 6,
    .rules = RULE_CASTLING | RULE_EP,
    .pieces = ORTHODOX_PIECES(MCOND_START_RANK),
    .orthodox_pieces = true,
    .pawnless_draws = true,
    .start_fen = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    .pawn_start_rank = {1, 6},
    .promo_types = {QUEEN, ROOK, BISHOP, KNIGHT},
    .stalemate_score = 500,
    .ops = &chess_ops,
};
