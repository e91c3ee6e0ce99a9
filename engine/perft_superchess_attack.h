/* perft_superchess_attack.h - internal to perft_superchess.c (included there only): the
 * tables of the specialised Superchess path, the enemy pieces grouped by the geometry they
 * capture with, the attack test, the squares that shield a monarch and the target sets of
 * each piece type. */
#ifndef CHESSVAR_PERFT_SUPERCHESS_ATTACK_H
#define CHESSVAR_PERFT_SUPERCHESS_ATTACK_H

#include "superchess.h"

/* The squares at which a side's Ambassador is immune: the corners of its last rank. */
static const Bitboard embassy_sq[2] = {(1ull << 56) | (1ull << 63), (1ull << 0) | (1ull << 7)};
/* A side's last rank (promotion) and first rank (L drops). */
static const Bitboard last_rank[2] = {0xffull << 56, 0xffull};
static const Bitboard first_rank[2] = {0xffull, 0xffull << 56};

/* Targets of the lame leaps from s, indexed by the packed occupancy of s's neighbours
 * (nb_index): the Ambassador's lame 2-steps and lame knight (the Magician's geometry too)
 * and the Minister's lame knight. These leaps are symmetric (the lame squares of s -> q
 * are those of q -> s), so the same tables give the reverse attacks. */
static Bitboard lame_d[64][256], lame_w[64][256];
/* Leaping 2-steps (Guard, Baron) from s. */
static Bitboard leap_two[64];
/* Promotion-pool types (bit t = type t): a capture of one returns it to its owner's pool. */
static uint32_t pool_types;

/* The squares a piece of colour c and type t on s could ever capture on (rides to the
 * edge, lame leaps whatever their lame squares). */
static Bitboard cap_geo[2][SC_NPT + 1][64];
/* The squares the leaps of such a piece can land on or need empty (lame squares). */
static Bitboard leap_geo[2][SC_NPT + 1][64];
/* Origins of the lame captures of colour c onto q, over all types. */
static Bitboard rev_lame_any[2][64];

/* The occupancy of s's neighbours packed into 8 bits. */
static FORCE_INLINE unsigned nb_index(Bitboard occ, int s) {
#if CHESSVAR_PEXT
    return (unsigned)_pext_u64(occ, king_att8[s]);
#else
    unsigned idx = 0, bit = 0;
    for (Bitboard m = king_att8[s]; m; m &= m - 1, bit++)
        if (occ & m & (0 - m)) idx |= 1u << bit;
    return idx;
#endif
}

/* K-step neighbourhood of a set, the set itself included. */
static FORCE_INLINE Bitboard spread(Bitboard b) {
    b |= ((b << 1) & ~FILE_A) | ((b >> 1) & ~FILE_H);
    return b | (b << 8) | (b >> 8);
}

/* One diagonal step forward for colour c, toward the a-file (left) or the h-file. */
static FORCE_INLINE Bitboard fwd_left(Bitboard b, const int c) {
    return c == WHITE ? (b & ~FILE_A) << 7 : (b & ~FILE_A) >> 9;
}
static FORCE_INLINE Bitboard fwd_right(Bitboard b, const int c) {
    return c == WHITE ? (b & ~FILE_H) << 9 : (b & ~FILE_H) >> 7;
}

/* One step forward for colour c. */
static FORCE_INLINE Bitboard fwd(Bitboard b, const int c) { return c == WHITE ? b << 8 : b >> 8; }

/* The attacking enemy pieces (active: not M or F, neither frozen nor neutralised) grouped
 * by the geometry they capture with. */
typedef struct Foe {
    Bitboard orth, diag, knight, king, two, pawn, side, ferz, emp, lamed, lamew, hl, l;
} Foe;

/* Groups the active pieces act by geometry. */
static FORCE_INLINE void foe_make(Foe *f, const Bitboard *t, Bitboard act) {
    const Bitboard qa = (t[SC_Q] | t[SC_A] | t[SC_W]) & act;
    f->orth = (t[SC_R] & act) | qa;
    f->diag = (t[SC_B] & act) | qa;
    f->knight = (t[SC_N] | t[SC_A] | t[SC_O]) & act;
    f->king = (t[SC_K] | t[SC_E] | t[SC_D] | t[SC_G]) & act;
    f->two = (t[SC_G] | t[SC_O]) & act;
    f->pawn = (t[SC_P] | t[SC_H] | t[SC_L]) & act;
    f->side = t[SC_T] & act;
    f->ferz = t[SC_X] & act;
    f->emp = t[SC_E] & act;
    f->lamed = t[SC_D] & act;
    f->lamew = t[SC_W] & act;
    f->hl = (t[SC_H] | t[SC_L]) & act;
    f->l = t[SC_L] & act;
}

/* Whether square q is attacked by colour them's pieces of f that stand on `keep` (a
 * captured piece is off it), under occupancy occ: the same answer as sc_attacked. */
static FORCE_INLINE bool attacked(const Position *p, int q, const int them, const Foe *f,
                                  Bitboard occ, Bitboard keep) {
    const ScTables *tb = TB(p);
    const int us = them ^ 1;
    if (((rook_att8(q, occ) & f->orth) | (bishop_att8(q, occ) & f->diag)) & keep) return true;
    const Bitboard qb = 1ull << q, empty = ~occ;
    Bitboard near = (knight_att8[q] & f->knight) | (king_att8[q] & f->king) |
                    (leap_two[q] & f->two) | (tb->rev_cap[them][SC_P][q] & f->pawn) |
                    (tb->rev_cap[them][SC_T][q] & f->side) | (tb->rev_cap[them][SC_X][q] & f->ferz);
    if (f->emp) near |= (((qb << 8) & empty) << 8 | ((qb >> 8) & empty) >> 8) & f->emp;
    if (near & keep) return true;
    if (f->lamed | f->lamew) {
        unsigned nb = nb_index(occ, q);
        if (((lame_d[q][nb] & f->lamed) | (lame_w[q][nb] & f->lamew)) & keep) return true;
    }
    /* H and L capture 2 (L also 3) squares diagonally forward over empty squares: seen
     * from q, along colour us's forward diagonals. */
    if (f->hl) {
        Bitboard l2 = fwd_left(fwd_left(qb, us) & empty, us);
        Bitboard r2 = fwd_right(fwd_right(qb, us) & empty, us);
        if ((l2 | r2) & f->hl & keep) return true;
        if (f->l && ((fwd_left(l2 & empty, us) | fwd_right(r2 & empty, us)) & f->l & keep))
            return true;
    }
    return false;
}

/* The pieces that `attacked` looks for: all of them, not whether there is one (a single
 * function for both, with the answer's kind a constant, cost 0.5% at P0 perft 4). */
static FORCE_INLINE Bitboard attackers(const Position *p, int q, const int them, const Foe *f,
                                       Bitboard occ, Bitboard keep) {
    const ScTables *tb = TB(p);
    const int us = them ^ 1;
    const Bitboard qb = 1ull << q, empty = ~occ;
    Bitboard by = (rook_att8(q, occ) & f->orth) | (bishop_att8(q, occ) & f->diag) |
                  (knight_att8[q] & f->knight) | (king_att8[q] & f->king) | (leap_two[q] & f->two) |
                  (tb->rev_cap[them][SC_P][q] & f->pawn) | (tb->rev_cap[them][SC_T][q] & f->side) |
                  (tb->rev_cap[them][SC_X][q] & f->ferz);
    if (f->emp) by |= (((qb << 8) & empty) << 8 | ((qb >> 8) & empty) >> 8) & f->emp;
    if (f->lamed | f->lamew) {
        const unsigned nb = nb_index(occ, q);
        by |= (lame_d[q][nb] & f->lamed) | (lame_w[q][nb] & f->lamew);
    }
    if (f->hl) {
        const Bitboard l2 = fwd_left(fwd_left(qb, us) & empty, us);
        const Bitboard r2 = fwd_right(fwd_right(qb, us) & empty, us);
        by |= ((l2 | r2) & f->hl) | ((fwd_left(l2 & empty, us) | fwd_right(r2 & empty, us)) & f->l);
    }
    return by & keep;
}

/* Own squares whose vacating could expose a monarch on q (superchess_gen.c unblock_mask):
 * the single own blockers between q and an active enemy rider, and the lame squares of
 * active enemy lame leaps onto q. */
static FORCE_INLINE Bitboard unblock(const Position *p, int q, const int them, Bitboard act,
                                     const Foe *f, Bitboard own, Bitboard occ) {
    const ScTables *tb = TB(p);
    const Bitboard *t = BB(p).type;
    Bitboard mask = 0, pinners = 0;
    if (f->orth) pinners = rook_att8(q, occ ^ (rook_att8(q, occ) & own)) & f->orth;
    if (f->diag) pinners |= bishop_att8(q, occ ^ (bishop_att8(q, occ) & own)) & f->diag;
    while (pinners) mask |= between8[q][bb_pop_lsb(&pinners)] & own;
    if (!(rev_lame_any[them][q] & act)) return mask;
    static const uint8_t lame_types[] = {SC_E, SC_W, SC_D, SC_H, SC_L};
    for (int i = 0; i < 5; i++) {
        int ty = lame_types[i];
        Bitboard pcs = t[ty] & act & tb->rev_lame_from[them][ty][q];
        if (!pcs) continue;
        for (uint32_t k = tb->rlame_at[them][ty][q]; k < tb->rlame_at[them][ty][q + 1]; k++)
            if ((pcs >> tb->rlame[k].sq) & 1) mask |= tb->rlame[k].lame;
    }
    return mask;
}

/* Target squares of the piece of type ty (a constant) on s: moves onto empty squares,
 * captures onto cap (0 when it may not capture). */
static FORCE_INLINE Bitboard targets(const Position *p, const int us, const int ty, int s,
                                     Bitboard occ, Bitboard empty, Bitboard cap) {
    const ScTables *tb = TB(p);
    const Bitboard dest = empty | cap;
    switch (ty) {
    case SC_N: return knight_att8[s] & dest;
    case SC_B: return bishop_att8(s, occ) & dest;
    case SC_R: return rook_att8(s, occ) & dest;
    case SC_Q: return queen_att8(s, occ) & dest;
    case SC_A: return (queen_att8(s, occ) | knight_att8[s]) & dest;
    case SC_W: return (queen_att8(s, occ) | lame_w[s][nb_index(occ, s)]) & dest;
    case SC_M: return (king_att8[s] | lame_d[s][nb_index(occ, s)]) & empty;
    case SC_D: return (king_att8[s] | lame_d[s][nb_index(occ, s)]) & dest;
    case SC_G: return (king_att8[s] | leap_two[s]) & dest;
    case SC_O: return (knight_att8[s] | leap_two[s]) & dest;
    /* The lame steps of the pawn pieces and the Emperor by shifts, not from the variant's
     * step list (its loop was 5% of the work at P0 perft 5). `free`: the squares a lame
     * step may pass. */
    case SC_P: {
        const Bitboard sb = 1ull << s, one = fwd(sb, us) & ~occ;
        const Bitboard start = 0xffull << (8 * (p->var->pawn_start_rank[us] + (us ? -1 : 1)));
        return ((one | fwd(one & start, us)) & empty) |
               ((fwd_left(sb, us) | fwd_right(sb, us)) & cap);
    }
    case SC_H:
    case SC_L: {
        const Bitboard sb = 1ull << s, free = ~occ;
        const Bitboard one = fwd(sb, us), two = fwd(one & free, us);
        const Bitboard l1 = fwd_left(sb, us), r1 = fwd_right(sb, us);
        const Bitboard l2 = fwd_left(l1 & free, us), r2 = fwd_right(r1 & free, us);
        Bitboard to = ((one | two) & empty) | ((l1 | r1 | l2 | r2) & cap);
        if (ty == SC_L)
            to |= (fwd(two & free, us) & empty) |
                  ((fwd_left(l2 & free, us) | fwd_right(r2 & free, us)) & cap);
        return to;
    }
    case SC_T: {
        const Bitboard sb = 1ull << s, one = fwd(sb, us);
        return ((one | fwd(one, us)) & empty) |
               ((((sb & ~FILE_A) >> 1) | ((sb & ~FILE_H) << 1)) & cap);
    }
    case SC_E: {
        const Bitboard sb = 1ull << s, free = ~occ;
        return (king_att8[s] | (((sb << 8) & free) << 8) | (((sb >> 8) & free) >> 8)) & dest;
    }
    default: /* King, Femme Fatale, Paratrooper: leaps only */
        return (tb->leap_move[us][ty][s] & empty) | (tb->leap_cap[us][ty][s] & cap);
    }
}

#endif
