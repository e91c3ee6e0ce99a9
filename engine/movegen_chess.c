/* movegen_chess.c - the tuned path for orthodox chess and Switching chess: magic
 * sliders, pin and check masks, fully legal generation, bulk counting at the last ply,
 * and make/unmake on 64-bit bitboards. */
#include <stdio.h>
#include <string.h>

#include "movegen.h"
#include "variant.h"

#define BB(p) ((p)->bb.b8)

static uint8_t castle_mask[64]; /* rights kept when a move touches a square */

/* Attacks on sq by colour `by`, with occupancy occ. */
static inline Bitboard attackers_by(const Position *p, int sq, int by, Bitboard occ) {
    const Bitboard them = BB(p).color[by];
    const Bitboard *t = BB(p).type;
    return ((pawn_att8[by ^ 1][sq] & t[PAWN]) | (knight_att8[sq] & t[KNIGHT]) |
            (king_att8[sq] & t[KING]) | (rook_att8(sq, occ) & (t[ROOK] | t[QUEEN])) |
            (bishop_att8(sq, occ) & (t[BISHOP] | t[QUEEN]))) &
           them;
}

/* Square of colour c's king. */
static inline int king_sq(const Position *p, int c) {
    return bb_lsb(BB(p).type[KING] & BB(p).color[c]);
}

/* Whether any king of colour c is attacked: orthodox check. */
static bool chess_royal_attacked(const Position *p, int c) {
    Bitboard k = BB(p).type[KING] & BB(p).color[c];
    if (!k) return false;
    return attackers_by(p, bb_lsb(k), c ^ 1, BB(p).color[0] | BB(p).color[1]) != 0;
}

static bool chess_in_check(const Position *p) { return chess_royal_attacked(p, p->side); }

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

#define RANK_1 0xFFULL
#define FILE_A 0x0101010101010101ULL
#define FILE_H 0x8080808080808080ULL

/* Legal moves of chess (and, with `switching`, Switching chess), written to list or only
 * counted. Pinned pieces move along their pin line; in check, only moves onto the
 * check mask; king moves and e.p. are tested against the real occupancy. */
static inline int chess_generate(const Position *p, Move *list, const bool count_only,
                                 const bool switching) {
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
    /* Switches: never in check; a non-king switch keeps the occupancy and is always
     * legal; a king switch is legal iff the partner's square is not attacked. */
    if (switching && !checkers && count_only) {
        /* set-wise count. Each neighbouring pair is (s, s + d) for d in E, NW, N, NE; pairs
         * of the same type are subtracted; the king's pairs are tested one by one, and a
         * pawn switching onto its last rank counts four promotions. */
        const Bitboard last = us == WHITE ? RANK_1 << 56 : RANK_1;
        const Bitboard nk = own & ~T[KING];
        static const int dshift[4] = {1, 7, 8, 9};
        static const Bitboard dmask[4] = {~FILE_A, ~FILE_H, ~0ULL, ~FILE_A};
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
    } else if (switching && !checkers) {
        const Bitboard last = us == WHITE ? RANK_1 << 56 : RANK_1;
        Bitboard b = own;
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
                if ((ta == PAWN && (sq_bb8(c) & last)) || (tc == PAWN && (sq_bb8(a) & last)))
                    EMIT_PROMOS(lo, hi, MK_SWITCH);
                else EMIT(MOVE_SIMPLE(lo, hi, MK_SWITCH));
            }
        }
    }
    return n;
}

static int chess_gen_legal(Position *p, Move *list) {
    return chess_generate(p, list, false, false);
}
static uint64_t chess_count_legal(Position *p) {
    return (uint64_t)chess_generate(p, NULL, true, false);
}
static int switching_gen_legal(Position *p, Move *list) {
    return chess_generate(p, list, false, true);
}
static uint64_t switching_count_legal(Position *p) {
    return (uint64_t)chess_generate(p, NULL, true, true);
}

/* Whether the e.p. square is part of the key: the side to move can capture on it. */
static inline bool ep_in_key(const Position *p) {
    return p->ep != NO_SQ &&
           (pawn_att8[p->side ^ 1][p->ep] & BB(p).type[PAWN] & BB(p).color[p->side]);
}

/* Makes a move of chess or Switching chess, pushing its undo record. */
static void chess_make(Position *p, Move m) {
    Undo *u = pos_push(p, m);
    const int us = p->side, from = MOVE_FROM(m), to = MOVE_TO(m), kind = MOVE_KIND(m);
    if (p->ep != NO_SQ) {
        if (ep_in_key(p)) p->key ^= zob_ep[p->ep];
        p->ep = NO_SQ;
    }
    int moved = p->board[from];
    u->moved = (uint8_t)moved;
    p->halfmove++;
    switch (kind) {
    case MK_NORMAL:
        if (p->board[to]) {
            u->captured = (uint8_t)pos_remove8(p, to);
            p->halfmove = 0;
        }
        if (MOVE_PROMO(m)) {
            pos_remove8(p, from);
            pos_put8(p, to, PC_MAKE(us, MOVE_PROMO(m)));
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
        u->captured = (uint8_t)pos_remove8(p, cap);
        pos_move8(p, from, to);
        p->halfmove = 0;
        break;
    }
    case MK_CASTLE: {
        int rf = to > from ? from + 3 : from - 4, rt = (from + to) / 2;
        pos_move8(p, from, to);
        pos_move8(p, rf, rt);
        break;
    }
    case MK_SWITCH: {
        int pa = pos_remove8(p, from), pb = pos_remove8(p, to);
        u->captured = (uint8_t)pb;
        if (MOVE_PROMO(m)) {
            p->halfmove = 0;
            if (PC_TYPE(pa) == PAWN) pa = PC_MAKE(us, MOVE_PROMO(m));
            else pb = PC_MAKE(us, MOVE_PROMO(m));
        }
        pos_put8(p, from, pb);
        pos_put8(p, to, pa);
        break;
    }
    default: break;
    }
    uint32_t rights = p->castle & castle_mask[from] & castle_mask[to];
    if (rights != p->castle) pos_set_castle(p, rights);
    p->side ^= 1;
    p->key ^= zob_side;
    if (us == BLACK) p->fullmove++;
    if (ep_in_key(p)) p->key ^= zob_ep[p->ep];
}

/* Takes back the last move. */
static void chess_unmake(Position *p) {
    Undo *u = &p->stack[--p->ply];
    const Move m = u->move;
    const int from = MOVE_FROM(m), to = MOVE_TO(m);
    p->side ^= 1;
    if (p->side == BLACK) p->fullmove--;
    switch (MOVE_KIND(m)) {
    case MK_NORMAL:
        if (MOVE_PROMO(m)) {
            pos_remove8(p, to);
            pos_put8(p, from, u->moved);
        } else {
            pos_move8(p, to, from);
        }
        if (u->captured) pos_put8(p, to, u->captured);
        break;
    case MK_DOUBLE: pos_move8(p, to, from); break;
    case MK_EP:
        pos_move8(p, to, from);
        pos_put8(p, to + (p->side == WHITE ? -8 : 8), u->captured);
        break;
    case MK_CASTLE: {
        int rf = to > from ? from + 3 : from - 4, rt = (from + to) / 2;
        pos_move8(p, rt, rf);
        pos_move8(p, to, from);
        break;
    }
    case MK_SWITCH:
        pos_remove8(p, from);
        pos_remove8(p, to);
        pos_put8(p, from, u->moved);
        pos_put8(p, to, u->captured);
        break;
    default: break;
    }
    p->castle = u->castle;
    p->ep = u->ep;
    p->halfmove = u->halfmove;
    p->key = u->key;
}

/* Exactly one king per side. */
static bool chess_validate(Position *p, CvError *err) {
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

/* Castling masks for the orthodox corners and king squares. */
static void chess_init(Variant *v) {
    (void)v;
    memset(castle_mask, 0xFF, sizeof castle_mask);
    castle_mask[4] = (uint8_t) ~(CASTLE_WK | CASTLE_WQ);
    castle_mask[0] = (uint8_t)~CASTLE_WQ;
    castle_mask[7] = (uint8_t)~CASTLE_WK;
    castle_mask[60] = (uint8_t) ~(CASTLE_BK | CASTLE_BQ);
    castle_mask[56] = (uint8_t)~CASTLE_BQ;
    castle_mask[63] = (uint8_t)~CASTLE_BK;
}

static const VariantOps chess_ops = {
    .init = chess_init,
    .gen_legal = chess_gen_legal,
    .count_legal = chess_count_legal,
    .gen_reference = movegen_reference,
    .make = chess_make,
    .unmake = chess_unmake,
    .in_check = chess_in_check,
    .royal_attacked = chess_royal_attacked,
    .validate = chess_validate,
};

static const VariantOps switching_ops = {
    .init = chess_init,
    .gen_legal = switching_gen_legal,
    .count_legal = switching_count_legal,
    .gen_reference = movegen_reference,
    .make = chess_make,
    .unmake = chess_unmake,
    .in_check = chess_in_check,
    .royal_attacked = chess_royal_attacked,
    .validate = chess_validate,
    .move_to_str = switching_move_to_str,
    .move_from_str = switching_move_from_str,
};

#define PAWN_DEF(cond)                                                                             \
    {                                                                                              \
        'P', "Pawn", PF_PAWN | PF_PROMOTES | PF_ORIENTED | PF_PAWN_PIECE, 100, 4, {                \
            LEAP_M(0, 1, MM_MOVE), {MC_LEAP, MM_MOVE, 0, 2, 0, cond, 1, {{0, 1}}},                 \
                LEAP_M(-1, 1, MM_CAPTURE), LEAP_M(1, 1, MM_CAPTURE)                                \
        }                                                                                          \
    }

#define ORTHODOX_PIECES(cond)                                                                      \
    {                                                                                              \
        {0}, PAWN_DEF(cond), {'N', "Knight", 0, 320, 8, {KNIGHT_LEAPS}},                           \
            {'B', "Bishop", 0, 330, 4, {BISHOP_RIDES}},                                            \
            {'R', "Rook", PF_CASTLE_ROOK, 500, 4, {ROOK_RIDES}},                                   \
            {'Q', "Queen", 0, 900, 8, {ROOK_RIDES, BISHOP_RIDES}}, {                               \
            'K', "King", PF_ROYAL, 0, 8, { KING_STEPS }                                            \
        }                                                                                          \
    }

Variant variant_chess = {
    .name = "chess",
    .title = "Orthodox chess",
    .width = 8,
    .height = 8,
    .npt = 6,
    .rules = RULE_CASTLING | RULE_EP,
    .pieces = ORTHODOX_PIECES(MCOND_START_RANK),
    .start_fen = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    .pawn_start_rank = {1, 6},
    .promo_types = {QUEEN, ROOK, BISHOP, KNIGHT},
    .stalemate_score = 500,
    .ops = &chess_ops,
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
