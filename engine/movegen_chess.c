/* movegen_chess.c - the fast generator of orthodox chess (also the orthodox part of
 * Switching chess): magic sliders, pin and check masks, fully legal generation and bulk
 * counting at the last ply, on 64-bit bitboards.
 *
 * Every part below takes `count_only`, a constant at each call of chess_generate, so the
 * compiler builds one generator that writes moves and one that only counts them. */
#include "chess.h"

#define ALWAYS_INLINE static inline __attribute__((always_inline))

/* One generation: the moves so far (written to list unless only counted) and what every
 * part needs to know about the position, computed once. */
typedef struct ChessGen {
    const Position *p;
    Move *list; /* unused when only counting */
    int n;
    int us, them, ksq;
    Bitboard own, opp, occ;
    Bitboard checkers; /* enemy pieces giving check */
    Bitboard target;   /* squares a non-king move may go to: not own, and blocking any check */
    Bitboard pinned;   /* own pieces alone between the king and an enemy slider */
} ChessGen;

/* ---------------------------------------------------------------- emitters */

/* Adds one move. */
ALWAYS_INLINE void emit(ChessGen *g, const bool count_only, Move m) {
    if (!count_only) g->list[g->n] = m;
    g->n++;
}

/* Adds the four promotions of a pawn move, queen first. */
ALWAYS_INLINE void emit_promos(ChessGen *g, const bool count_only, int from, int to, int kind) {
    if (count_only) {
        g->n += 4;
        return;
    }
    g->list[g->n++] = MOVE_MAKE(from, to, NO_SQ, QUEEN, kind);
    g->list[g->n++] = MOVE_MAKE(from, to, NO_SQ, ROOK, kind);
    g->list[g->n++] = MOVE_MAKE(from, to, NO_SQ, BISHOP, kind);
    g->list[g->n++] = MOVE_MAKE(from, to, NO_SQ, KNIGHT, kind);
}

/* Adds a move of the piece on `from` to every square of targets. */
ALWAYS_INLINE void emit_targets(ChessGen *g, const bool count_only, int from, Bitboard targets) {
    if (count_only) {
        g->n += bb_popcount(targets);
        return;
    }
    while (targets) g->list[g->n++] = MOVE_SIMPLE(from, bb_pop_lsb(&targets), MK_NORMAL);
}

/* Adds one pawn move onto every square of targets, from the square `back` before it. */
ALWAYS_INLINE void emit_pawns(ChessGen *g, const bool count_only, Bitboard targets, int back,
                              int kind) {
    if (count_only) {
        g->n += bb_popcount(targets);
        return;
    }
    while (targets) {
        int to = bb_pop_lsb(&targets);
        g->list[g->n++] = MOVE_SIMPLE(to - back, to, kind);
    }
}

/* Adds the four promotions of a pawn move onto every square of targets. */
ALWAYS_INLINE void emit_pawn_promos(ChessGen *g, const bool count_only, Bitboard targets,
                                    int back) {
    if (count_only) {
        g->n += 4 * bb_popcount(targets);
        return;
    }
    while (targets) {
        int to = bb_pop_lsb(&targets);
        emit_promos(g, false, to - back, to, MK_NORMAL);
    }
}

/* ---------------------------------------------------------------- the parts */

/* One square up for colour us. */
static inline Bitboard shift_up(Bitboard b, int us) { return us == WHITE ? b << 8 : b >> 8; }

/* The last rank of colour us. */
static inline Bitboard last_rank(int us) { return us == WHITE ? RANK_1 << 56 : RANK_1; }

/* King steps: the destination must be safe with the king lifted off the board. */
ALWAYS_INLINE void gen_king(ChessGen *g, const bool count_only, const bool captures) {
    Bitboard t = king_att8[g->ksq] & (captures ? g->opp : ~g->own);
    const Bitboard occ_nok = g->occ ^ sq_bb8(g->ksq);
    while (t) {
        int to = bb_pop_lsb(&t);
        if (!attackers_by(g->p, to, g->them, occ_nok))
            emit(g, count_only, MOVE_SIMPLE(g->ksq, to, MK_NORMAL));
    }
}

/* Own pieces pinned to the king: alone between it and an enemy slider on its line. */
ALWAYS_INLINE Bitboard pinned_pieces(const ChessGen *g) {
    const Bitboard *T = BB(g->p).type;
    Bitboard pinned = 0;
    Bitboard snipers = ((rook_att8(g->ksq, 0) & (T[ROOK] | T[QUEEN])) |
                        (bishop_att8(g->ksq, 0) & (T[BISHOP] | T[QUEEN]))) &
                       g->opp;
    while (snipers) {
        int s = bb_pop_lsb(&snipers);
        Bitboard b = between8[g->ksq][s] & g->occ;
        if (b && !(b & (b - 1)) && (b & g->own)) pinned |= b;
    }
    return pinned;
}

/* Knights (a pinned knight never moves), then the diagonal and the orthogonal sliders
 * (a pinned slider moves along its pin line). */
ALWAYS_INLINE void gen_pieces(ChessGen *g, const bool count_only) {
    const Bitboard *T = BB(g->p).type;
    Bitboard b = T[KNIGHT] & g->own & ~g->pinned;
    while (b) {
        int s = bb_pop_lsb(&b);
        emit_targets(g, count_only, s, knight_att8[s] & g->target);
    }
    b = (T[BISHOP] | T[QUEEN]) & g->own;
    while (b) {
        int s = bb_pop_lsb(&b);
        Bitboard a = bishop_att8(s, g->occ) & g->target;
        if (g->pinned & sq_bb8(s)) a &= line8[g->ksq][s];
        emit_targets(g, count_only, s, a);
    }
    b = (T[ROOK] | T[QUEEN]) & g->own;
    while (b) {
        int s = bb_pop_lsb(&b);
        Bitboard a = rook_att8(s, g->occ) & g->target;
        if (g->pinned & sq_bb8(s)) a &= line8[g->ksq][s];
        emit_targets(g, count_only, s, a);
    }
}

/* The ranks from which a pawn may double-step: its second, and its first (Switching). */
static inline Bitboard double_step_ranks(int us) {
    return us == WHITE ? (RANK_1 | RANK_1 << 8) : (RANK_1 << 56 | RANK_1 << 48);
}

/* Unpinned pawns, set-wise: single steps, promotions, double steps, then the captures
 * toward the a-file and toward the h-file. */
ALWAYS_INLINE void gen_free_pawns(ChessGen *g, const bool count_only) {
    const int us = g->us, up = us == WHITE ? 8 : -8;
    const Bitboard free_p = BB(g->p).type[PAWN] & g->own & ~g->pinned;
    const Bitboard last = last_rank(us), empty = ~g->occ;

    Bitboard one = shift_up(free_p, us) & empty;
    Bitboard two =
        shift_up(shift_up(free_p & double_step_ranks(us), us) & empty, us) & empty & g->target;
    one &= g->target;
    emit_pawns(g, count_only, one & ~last, up, MK_NORMAL);
    emit_pawn_promos(g, count_only, one & last, up);
    emit_pawns(g, count_only, two, 2 * up, MK_DOUBLE);

    Bitboard capl, capr;
    int backl, backr;
    if (us == WHITE) {
        capl = (free_p & ~FILE_A) << 7;
        backl = 7;
        capr = (free_p & ~FILE_H) << 9;
        backr = 9;
    } else {
        capl = (free_p & ~FILE_A) >> 9;
        backl = -9;
        capr = (free_p & ~FILE_H) >> 7;
        backr = -7;
    }
    capl &= g->opp & g->target;
    capr &= g->opp & g->target;
    emit_pawns(g, count_only, capl & ~last, backl, MK_NORMAL);
    emit_pawn_promos(g, count_only, capl & last, backl);
    emit_pawns(g, count_only, capr & ~last, backr, MK_NORMAL);
    emit_pawn_promos(g, count_only, capr & last, backr);
}

/* Pinned pawns, one by one, along the pin line. */
ALWAYS_INLINE void gen_pinned_pawns(ChessGen *g, const bool count_only) {
    const int us = g->us, up = us == WHITE ? 8 : -8;
    const Bitboard last = last_rank(us);
    Bitboard pp = BB(g->p).type[PAWN] & g->own & g->pinned;
    while (pp) {
        int s = bb_pop_lsb(&pp);
        Bitboard line = line8[g->ksq][s];
        Bitboard d = 0;
        int one_sq = s + up;
        if (one_sq >= 0 && one_sq < 64 && !(g->occ & sq_bb8(one_sq))) {
            d |= sq_bb8(one_sq);
            if ((sq_bb8(s) & double_step_ranks(us)) && !(g->occ & sq_bb8(one_sq + up)) &&
                (g->target & line & sq_bb8(one_sq + up)))
                emit(g, count_only, MOVE_SIMPLE(s, one_sq + up, MK_DOUBLE));
        }
        d |= pawn_att8[us][s] & g->opp;
        d &= g->target & line;
        while (d) {
            int to = bb_pop_lsb(&d);
            if (sq_bb8(to) & last) emit_promos(g, count_only, s, to, MK_NORMAL);
            else emit(g, count_only, MOVE_SIMPLE(s, to, MK_NORMAL));
        }
    }
}

/* En passant, checked against the real occupancy after the capture. */
ALWAYS_INLINE void gen_en_passant(ChessGen *g, const bool count_only) {
    const Position *p = g->p;
    if (p->ep == NO_SQ) return;
    int ep = p->ep, cap = ep - (g->us == WHITE ? 8 : -8);
    Bitboard from = pawn_att8[g->them][ep] & BB(p).type[PAWN] & g->own;
    while (from) {
        int s = bb_pop_lsb(&from);
        Bitboard occ2 = (g->occ ^ sq_bb8(s) ^ sq_bb8(cap)) | sq_bb8(ep);
        if (!(attackers_by(p, g->ksq, g->them, occ2) & ~sq_bb8(cap)))
            emit(g, count_only, MOVE_SIMPLE(s, ep, MK_EP));
    }
}

/* Castling (never out of check): the squares between king and rook empty, the squares
 * the king crosses and lands on not attacked. */
ALWAYS_INLINE void gen_castling(ChessGen *g, const bool count_only) {
    const Position *p = g->p;
    const int us = g->us, them = g->them;
    const Bitboard occ = g->occ;
    if (!(p->castle & (us == WHITE ? (CASTLE_WK | CASTLE_WQ) : (CASTLE_BK | CASTLE_BQ)))) return;
    const int base = us == WHITE ? 0 : 56;
    if ((p->castle & (us == WHITE ? CASTLE_WK : CASTLE_BK)) &&
        !(occ & (sq_bb8(base + 5) | sq_bb8(base + 6))) && !attackers_by(p, base + 5, them, occ) &&
        !attackers_by(p, base + 6, them, occ))
        emit(g, count_only, MOVE_SIMPLE(base + 4, base + 6, MK_CASTLE));
    if ((p->castle & (us == WHITE ? CASTLE_WQ : CASTLE_BQ)) &&
        !(occ & (sq_bb8(base + 1) | sq_bb8(base + 2) | sq_bb8(base + 3))) &&
        !attackers_by(p, base + 3, them, occ) && !attackers_by(p, base + 2, them, occ))
        emit(g, count_only, MOVE_SIMPLE(base + 4, base + 2, MK_CASTLE));
}

/* ---------------------------------------------------------------- the generator */

/* Legal moves of orthodox chess, written to list or only counted (with `captures`, only
 * the captures: every target set is cut to the enemy's pieces, which leaves no pawn push
 * and no castling; e.p. stays). Pinned pieces move along their pin line; in check, only
 * moves onto the check mask; king moves and e.p. are tested against the real occupancy. */
ALWAYS_INLINE int chess_generate(const Position *p, Move *list, const bool count_only,
                                 const bool captures) {
    ChessGen g;
    g.p = p;
    g.list = list;
    g.n = 0;
    g.us = p->side;
    g.them = g.us ^ 1;
    g.own = BB(p).color[g.us];
    g.opp = BB(p).color[g.them];
    g.occ = g.own | g.opp;
    g.ksq = king_sq(p, g.us);
    g.checkers = attackers_by(p, g.ksq, g.them, g.occ);

    gen_king(&g, count_only, captures);
    if (g.checkers & (g.checkers - 1)) return g.n; /* double check: only the king moves */
    g.target = captures ? g.opp : ~g.own;
    if (g.checkers) g.target &= between8[g.ksq][bb_lsb(g.checkers)] | g.checkers;
    g.pinned = pinned_pieces(&g);

    gen_pieces(&g, count_only);
    gen_free_pawns(&g, count_only);
    gen_pinned_pawns(&g, count_only);
    gen_en_passant(&g, count_only);
    if (!g.checkers && !captures) gen_castling(&g, count_only);
    return g.n;
}

/* Legal moves of orthodox chess. */
int chess_gen_legal(Position *p, Move *list) { return chess_generate(p, list, false, false); }

/* Legal captures of orthodox chess (e.p. included; also Switching chess's, whose switches
 * capture nothing). */
int chess_gen_captures(Position *p, Move *list) { return chess_generate(p, list, false, true); }

/* Number of legal moves of orthodox chess (perft's last ply), counted without writing them. */
uint64_t chess_count_legal(Position *p) { return (uint64_t)chess_generate(p, NULL, true, false); }
