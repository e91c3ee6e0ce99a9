/* movegen_chess.c - the fast generator of orthodox chess (also the orthodox part of
 * Switching chess): magic sliders, pin and check masks, fully legal generation and bulk
 * counting at the last ply, on 64-bit bitboards. */
#include "chess.h"

#define EMIT(m)                                                                                    \
    do {                                                                                           \
        if (!count_only) list[n] = (m);                                                            \
        n++;                                                                                       \
    } while (0)

/* Emits the four promotions of a pawn move. */
#define EMIT_PROMOS(from, to, kind)                                                                \
    do {                                                                                           \
        if (count_only) {                                                                          \
            n += 4;                                                                                \
        } else {                                                                                   \
            list[n++] = MOVE_MAKE(from, to, NO_SQ, QUEEN, kind);                                   \
            list[n++] = MOVE_MAKE(from, to, NO_SQ, ROOK, kind);                                    \
            list[n++] = MOVE_MAKE(from, to, NO_SQ, BISHOP, kind);                                  \
            list[n++] = MOVE_MAKE(from, to, NO_SQ, KNIGHT, kind);                                  \
        }                                                                                          \
    } while (0)

/* Emits piece moves from `from` to every square of `targets`. */
#define EMIT_ALL(from, targets)                                                                    \
    do {                                                                                           \
        Bitboard t_ = (targets);                                                                   \
        if (count_only) {                                                                          \
            n += bb_popcount(t_);                                                                  \
        } else {                                                                                   \
            while (t_) list[n++] = MOVE_SIMPLE(from, bb_pop_lsb(&t_), MK_NORMAL);                  \
        }                                                                                          \
    } while (0)

/* Emits pawn moves given a target set and the shift back to the origin. */
#define EMIT_PAWNS(targets, back, kind)                                                            \
    do {                                                                                           \
        Bitboard t_ = (targets);                                                                   \
        if (count_only) {                                                                          \
            n += bb_popcount(t_);                                                                  \
        } else {                                                                                   \
            while (t_) {                                                                           \
                int to_ = bb_pop_lsb(&t_);                                                         \
                list[n++] = MOVE_SIMPLE(to_ - (back), to_, kind);                                  \
            }                                                                                      \
        }                                                                                          \
    } while (0)

#define EMIT_PAWN_PROMOS(targets, back)                                                            \
    do {                                                                                           \
        Bitboard t_ = (targets);                                                                   \
        if (count_only) {                                                                          \
            n += 4 * bb_popcount(t_);                                                              \
        } else {                                                                                   \
            while (t_) {                                                                           \
                int to_ = bb_pop_lsb(&t_);                                                         \
                EMIT_PROMOS(to_ - (back), to_, MK_NORMAL);                                         \
            }                                                                                      \
        }                                                                                          \
    } while (0)

static inline Bitboard shift_up(Bitboard b, int us) { return us == WHITE ? b << 8 : b >> 8; }

/* Legal moves of orthodox chess, written to list or only counted. Pinned pieces move along their
 * pin line; in check, only moves onto the check mask; king moves and e.p. are tested against the
 * real occupancy. */
static inline int chess_generate(const Position *p, Move *list, const bool count_only) {
    int n = 0;
    const int us = p->side, them = us ^ 1;
    const Bitboard *T = BB(p).type;
    const Bitboard own = BB(p).color[us], opp = BB(p).color[them];
    const Bitboard occ = own | opp;
    const int ksq = king_sq(p, us);
    const Bitboard checkers = attackers_by(p, ksq, them, occ);

    /* King steps: the destination must be safe with the king lifted off the board. */
    {
        Bitboard t = king_att8[ksq] & ~own;
        const Bitboard occ_nok = occ ^ sq_bb8(ksq);
        while (t) {
            int to = bb_pop_lsb(&t);
            if (!attackers_by(p, to, them, occ_nok)) EMIT(MOVE_SIMPLE(ksq, to, MK_NORMAL));
        }
    }
    if (checkers & (checkers - 1)) return n;

    Bitboard target = ~own;
    if (checkers) target &= between8[ksq][bb_lsb(checkers)] | checkers;

    /* Pinned pieces: an own piece alone between the king and an enemy slider. */
    Bitboard pinned = 0;
    {
        Bitboard snipers = ((rook_att8(ksq, 0) & (T[ROOK] | T[QUEEN])) |
                            (bishop_att8(ksq, 0) & (T[BISHOP] | T[QUEEN]))) &
                           opp;
        while (snipers) {
            int s = bb_pop_lsb(&snipers);
            Bitboard b = between8[ksq][s] & occ;
            if (b && !(b & (b - 1)) && (b & own)) pinned |= b;
        }
    }

    /* Knights: a pinned knight never moves. */
    {
        Bitboard b = T[KNIGHT] & own & ~pinned;
        while (b) {
            int s = bb_pop_lsb(&b);
            EMIT_ALL(s, knight_att8[s] & target);
        }
    }
    /* Sliders. */
    {
        Bitboard b = (T[BISHOP] | T[QUEEN]) & own;
        while (b) {
            int s = bb_pop_lsb(&b);
            Bitboard a = bishop_att8(s, occ) & target;
            if (pinned & sq_bb8(s)) a &= line8[ksq][s];
            EMIT_ALL(s, a);
        }
        b = (T[ROOK] | T[QUEEN]) & own;
        while (b) {
            int s = bb_pop_lsb(&b);
            Bitboard a = rook_att8(s, occ) & target;
            if (pinned & sq_bb8(s)) a &= line8[ksq][s];
            EMIT_ALL(s, a);
        }
    }
    /* Pawns, set-wise for the unpinned ones. */
    {
        const Bitboard pawns = T[PAWN] & own;
        const Bitboard free_p = pawns & ~pinned;
        const Bitboard last = us == WHITE ? RANK_1 << 56 : RANK_1;
        const Bitboard empty = ~occ;
        const int up = us == WHITE ? 8 : -8;
        /* ranks from which a double step is allowed: the second, and the first (Switching) */
        const Bitboard dbl_from =
            us == WHITE ? (RANK_1 | RANK_1 << 8) : (RANK_1 << 56 | RANK_1 << 48);

        Bitboard one = shift_up(free_p, us) & empty;
        Bitboard two = shift_up(shift_up(free_p & dbl_from, us) & empty, us) & empty & target;
        one &= target;
        EMIT_PAWNS(one & ~last, up, MK_NORMAL);
        EMIT_PAWN_PROMOS(one & last, up);
        EMIT_PAWNS(two, 2 * up, MK_DOUBLE);

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
        capl &= opp & target;
        capr &= opp & target;
        EMIT_PAWNS(capl & ~last, backl, MK_NORMAL);
        EMIT_PAWN_PROMOS(capl & last, backl);
        EMIT_PAWNS(capr & ~last, backr, MK_NORMAL);
        EMIT_PAWN_PROMOS(capr & last, backr);

        /* Pinned pawns, one by one, along the pin line. */
        Bitboard pp = pawns & pinned;
        while (pp) {
            int s = bb_pop_lsb(&pp);
            Bitboard line = line8[ksq][s];
            Bitboard d = 0;
            int one_sq = s + up;
            if (one_sq >= 0 && one_sq < 64 && !(occ & sq_bb8(one_sq))) {
                d |= sq_bb8(one_sq);
                if ((sq_bb8(s) & dbl_from) && !(occ & sq_bb8(one_sq + up)) &&
                    (target & line & sq_bb8(one_sq + up)))
                    EMIT(MOVE_SIMPLE(s, one_sq + up, MK_DOUBLE));
            }
            d |= pawn_att8[us][s] & opp;
            d &= target & line;
            while (d) {
                int to = bb_pop_lsb(&d);
                if (sq_bb8(to) & last) EMIT_PROMOS(s, to, MK_NORMAL);
                else EMIT(MOVE_SIMPLE(s, to, MK_NORMAL));
            }
        }

        /* En passant: checked against the real occupancy after the capture. */
        if (p->ep != NO_SQ) {
            int ep = p->ep, cap = ep - up;
            Bitboard from = pawn_att8[them][ep] & pawns;
            while (from) {
                int s = bb_pop_lsb(&from);
                Bitboard occ2 = (occ ^ sq_bb8(s) ^ sq_bb8(cap)) | sq_bb8(ep);
                if (!(attackers_by(p, ksq, them, occ2) & ~sq_bb8(cap)))
                    EMIT(MOVE_SIMPLE(s, ep, MK_EP));
            }
        }
    }
    /* Castling: not out of check, through or into an attacked square. */
    if (!checkers &&
        (p->castle & (us == WHITE ? (CASTLE_WK | CASTLE_WQ) : (CASTLE_BK | CASTLE_BQ)))) {
        const int base = us == WHITE ? 0 : 56;
        if ((p->castle & (us == WHITE ? CASTLE_WK : CASTLE_BK)) &&
            !(occ & (sq_bb8(base + 5) | sq_bb8(base + 6))) &&
            !attackers_by(p, base + 5, them, occ) && !attackers_by(p, base + 6, them, occ))
            EMIT(MOVE_SIMPLE(base + 4, base + 6, MK_CASTLE));
        if ((p->castle & (us == WHITE ? CASTLE_WQ : CASTLE_BQ)) &&
            !(occ & (sq_bb8(base + 1) | sq_bb8(base + 2) | sq_bb8(base + 3))) &&
            !attackers_by(p, base + 3, them, occ) && !attackers_by(p, base + 2, them, occ))
            EMIT(MOVE_SIMPLE(base + 4, base + 2, MK_CASTLE));
    }
    return n;
}

/* Legal moves of orthodox chess. */
int chess_gen_legal(Position *p, Move *list) { return chess_generate(p, list, false); }

/* Number of legal moves of orthodox chess (perft's last ply), counted without writing them. */
uint64_t chess_count_legal(Position *p) { return (uint64_t)chess_generate(p, NULL, true); }
