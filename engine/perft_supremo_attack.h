/* perft_supremo_attack.h - internal to perft_supremo.c (included there only): the lean
 * board of Supremo's last-ply counter and the attack tests written for the Supremo pieces
 * (its tables: perft_supremo_tables.h). */
#ifndef CHESSVAR_PERFT_SUPREMO_ATTACK_H
#define CHESSVAR_PERFT_SUPREMO_ATTACK_H

#include "lines10.h"
#include "perft_supremo_tables.h"
#include "supremo.h"

/* The bitboards a count needs: by type id (both colours) and by colour. */
typedef struct SupBoard {
    u128 pc[SUP_PROTECTOR + 1];
    u128 col[2];
} SupBoard;

/* The board squares of a 10-bit mask on line id whose bits past the line's end may be set. */
static FORCE_INLINE u128 line_squares(int id, unsigned mask) {
#if CHESSVAR_PEXT
    return line10_squares(id, mask); /* PDEP drops them */
#else
    return line10_squares(id, mask & ((1u << line10[id].len) - 1));
#endif
}

/* Squares of a slide-and-hop piece on s along the lines of `kinds` (LINE10_ORTH, _DIAG, _KINDS),
 * as `table` folds them: sup_line_all (every destination, any contents) or sup_line_hit (the first
 * and second pieces only). */
static FORCE_INLINE u128 lines_of(const uint16_t (*table)[1024], int s, u128 occ, const int kinds) {
    u128 d = 0;
    for (int k = 0; k < 4; k++) {
        if (!((kinds >> k) & 1)) continue;
        int id = line10_id[k][s];
        d |= line_squares(id, table[line10_pos[k][s]][line10_occ(id, occ)]);
    }
    return d;
}

#if defined(__AVX2__)

/* The 128-bit set in both halves of v shifted up by a in the low half, b in the high. */
static FORCE_INLINE __m256i shl2(__m256i v, const int a, const int b) {
    return _mm256_or_si256(
        _mm256_sllv_epi64(v, _mm256_setr_epi64x(a, a, b, b)),
        _mm256_srlv_epi64(_mm256_bslli_epi128(v, 8), _mm256_setr_epi64x(64, 64 - a, 64, 64 - b)));
}

/* The same shifted down. */
static FORCE_INLINE __m256i shr2(__m256i v, const int a, const int b) {
    return _mm256_or_si256(
        _mm256_srlv_epi64(v, _mm256_setr_epi64x(a, a, b, b)),
        _mm256_sllv_epi64(_mm256_bsrli_epi128(v, 8), _mm256_setr_epi64x(64 - a, 64, 64 - b, 64)));
}

/* A 128-bit set in both halves of a vector. */
static FORCE_INLINE __m256i v256_of(u128 x) {
    return _mm256_broadcastsi128_si256(
        _mm_set_epi64x((long long)(uint64_t)(x >> 64), (long long)(uint64_t)x));
}
#endif

/* Squares one K or jK step (over a square of occ) from any square of x, any contents, and
 * some squares off the board (above square 99), which the callers mask. The diagonal steps
 * are the horizontal ones moved a rank, so only the horizontal ones need a file mask. */
static FORCE_INLINE u128 step_any(const SupTables *T, u128 x, u128 occ) {
#if defined(__AVX2__)
    (void)T;
    const __m256i v = v256_of(x), o = v256_of(occ);
    const __m256i en = _mm256_and_si256(shl2(v, 1, 10), sup_step_fmask[0]);
    const __m256i nenw = _mm256_and_si256(shl2(v, 11, 9), sup_step_fmask[1]);
    const __m256i ws = _mm256_and_si256(shr2(v, 1, 10), sup_step_fmask[2]);
    const __m256i swse = _mm256_and_si256(shr2(v, 11, 9), sup_step_fmask[3]);
    __m256i r = _mm256_or_si256(_mm256_or_si256(en, nenw), _mm256_or_si256(ws, swse));
    r = _mm256_or_si256(r,
                        _mm256_and_si256(shl2(_mm256_and_si256(en, o), 1, 10), sup_step_fmask[0]));
    r = _mm256_or_si256(
        r, _mm256_and_si256(shl2(_mm256_and_si256(nenw, o), 11, 9), sup_step_fmask[1]));
    r = _mm256_or_si256(r,
                        _mm256_and_si256(shr2(_mm256_and_si256(ws, o), 1, 10), sup_step_fmask[2]));
    r = _mm256_or_si256(
        r, _mm256_and_si256(shr2(_mm256_and_si256(swse, o), 11, 9), sup_step_fmask[3]));
    const __m128i h = _mm_or_si128(_mm256_castsi256_si128(r), _mm256_extracti128_si256(r, 1));
    return ((u128)(uint64_t)_mm_extract_epi64(h, 1) << 64) | (uint64_t)_mm_cvtsi128_si64(h);
#else
    return sup_step_any(T, x, occ);
#endif
}

/* Squares one K or jK step from the single square s, any contents. */
static FORCE_INLINE u128 step_one(const SupTables *T, int s, u128 occ) {
#if CHESSVAR_PEXT
    const uint64_t idx = _pext_u64((uint64_t)occ, sup_jump_mask[s].over_lo) |
                         _pext_u64((uint64_t)(occ >> 64), sup_jump_mask[s].over_hi)
                             << sup_jump_mask[s].nover_lo;
    const uint64_t lo = _pdep_u64(idx, sup_jump_mask[s].land_lo);
    const uint64_t hi = _pdep_u64(idx >> sup_jump_mask[s].nland_lo, sup_jump_mask[s].land_hi);
    return T->kmask[s] | ((u128)hi << 64) | lo;
#else
    u128 r = T->kmask[s];
    for (u128 o = r & occ; o;) r |= sup_jump_land[s][bb128_pop_lsb(&o) - s + 11];
    return r;
#endif
}

/* What an attack test of side `by` reads: the bitboards by type (both colours, as before a
 * tested move: only the attackers' sets below say which pieces stand), by's pieces, the
 * occupied squares, and the pieces of the other side that by may take. A move is tested on
 * these three sets alone, without a copy of the board. */
typedef struct SupView {
    const u128 *pc;
    u128 x, occ, capt;
} SupView;

/* The view of side by's attacks on b. */
static FORCE_INLINE SupView view_of(const SupBoard *b, int by) {
    return (SupView){b->pc, b->col[by], b->col[0] | b->col[1],
                     b->col[by ^ 1] & ~b->pc[SUP_PROTECTOR]};
}

/* The squares on which the first Terminator's blast or Commando's walk found to take the
 * piece on k depends (a Terminator's landings and screens lie within two steps of it; a
 * Commando's first landings and screens too, its second screen next to k), or 0 when none
 * can. */
static FORCE_INLINE u128 walks_dep(const SupTables *T, const SupView *w, int k) {
    const u128 x = w->x, occ = w->occ;
    for (u128 ts = w->pc[SUP_TERMINATOR] & x & T->box[3][k]; ts;) {
        int t = bb128_pop_lsb(&ts);
        if (step_one(T, t, occ) & ~occ & T->kmask[k]) return T->box[2][t];
    }
    for (u128 cs = w->pc[SUP_COMMANDO] & x & T->box[4][k]; cs;) {
        int s = bb128_pop_lsb(&cs);
        u128 occ0 = occ & ~sup_sq_bit[s];
        /* step 2 reaches k from x exactly when k reaches x by one step (jK steps are
         * symmetric, over the same square) */
        u128 land1 = step_one(T, s, occ0) & ((T->full & ~occ0) | w->capt);
        if (land1 & (sup_sq_bit[k] | step_one(T, k, occ0))) return T->box[2][s] | T->kmask[k];
    }
    return 0;
}

/* Whether side `by` (w's attackers) has a pseudo-legal move capturing the piece on k
 * (Supremo's pieces). */
static bool sb_attacked(const SupTables *T, const SupView *w, int k, int by) {
    const u128 *pc = w->pc, x = w->x, occ = w->occ;
    if (((T->leap_from[SUP_PAWN][by][k] & pc[SUP_PAWN]) | (T->kmask[k] & pc[SUP_KING]) |
         (T->leap_cp[SUP_KNIGHT][by][k] & pc[SUP_KNIGHT])) &
        x)
        return true;
    const u128 q = pc[SUP_QUEEN] & x, rq = (pc[SUP_ROOK] & x) | q;
    const u128 bq = (pc[SUP_BISHOP] & x) | q;
    if ((T->lines[k] & (rq | bq)) && ((lines_of(sup_line_hit, k, occ, LINE10_ORTH) & rq) ||
                                      (lines_of(sup_line_hit, k, occ, LINE10_DIAG) & bq)))
        return true;
    u128 n2 = pc[SUP_KNIGHT] & x & sup_knight2[k];
    if (n2) {
        u128 mids = T->leap_cp[SUP_KNIGHT][by][k] & ((T->full & ~occ) | w->capt);
        while (mids)
            if (T->leap_cp[SUP_KNIGHT][by][bb128_pop_lsb(&mids)] & n2) return true;
    }
    return walks_dep(T, w, k) != 0;
}

/* Whether side by's type-t piece on s can take the piece on k. */
static bool piece_attacks(const SupTables *T, const SupBoard *b, int s, int t, int k, int by) {
    const u128 occ = b->col[0] | b->col[1], kb = sup_sq_bit[k];
    const u128 capt = b->col[by ^ 1] & ~b->pc[SUP_PROTECTOR];
    switch (t) {
    case SUP_PAWN: return T->leap_cp[SUP_PAWN][by][s] & kb;
    case SUP_KING: return T->kmask[s] & kb;
    case SUP_KNIGHT:
        return (T->leap_cp[SUP_KNIGHT][by][s] & kb) ||
               ((sup_knight2[k] & sup_sq_bit[s]) &&
                (T->leap_cp[SUP_KNIGHT][by][s] & T->leap_cp[SUP_KNIGHT][by][k] &
                 ((T->full & ~occ) | capt)));
    case SUP_BISHOP:
        return (T->lines[s] & kb) && (lines_of(sup_line_hit, s, occ, LINE10_DIAG) & kb);
    case SUP_ROOK: return (T->lines[s] & kb) && (lines_of(sup_line_hit, s, occ, LINE10_ORTH) & kb);
    case SUP_QUEEN:
        return (T->lines[s] & kb) && (lines_of(sup_line_hit, s, occ, LINE10_KINDS) & kb);
    case SUP_TERMINATOR:
        return (T->box[3][k] & sup_sq_bit[s]) && (step_one(T, s, occ) & ~occ & T->kmask[k]);
    case SUP_COMMANDO: {
        if (!(T->box[4][k] & sup_sq_bit[s])) return false;
        u128 occ0 = occ & ~sup_sq_bit[s];
        u128 land1 = step_one(T, s, occ0) & ((T->full & ~occ0) | capt);
        return land1 & (kb | step_one(T, k, occ0));
    }
    default: return false;
    }
}

#endif
