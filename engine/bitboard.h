/* bitboard.h - internal: 8x8 (64-bit) and 10x10 (128-bit) geometry.
 * 8x8 sliders use magic bitboards; 10x10 sliders use ray tables with a first-blocker
 * scan. Each fast function has a slow walker beside it that tests compare against. */
#ifndef CHESSVAR_BITBOARD_H
#define CHESSVAR_BITBOARD_H

#include "types.h"

/* Inlined at every call even where the compiler would not: the perft kernels' generators
 * are templates instantiated per side to move. */
#define FORCE_INLINE inline __attribute__((always_inline))

void bitboard_init(void);

/* ---- 8x8 ---- */

/* The first rank and the edge files. */
#define RANK_1 0x00000000000000FFULL
#define FILE_A 0x0101010101010101ULL
#define FILE_H 0x8080808080808080ULL
/* Sets without the edge files: what a step east (NOT_A, NOT_AB) or west (NOT_H, NOT_GH) of
 * one or two files may land on. */
#define NOT_A  0xFEFEFEFEFEFEFEFEULL
#define NOT_H  0x7F7F7F7F7F7F7F7FULL
#define NOT_AB 0xFCFCFCFCFCFCFCFCULL
#define NOT_GH 0x3F3F3F3F3F3F3F3FULL

static inline int bb_lsb(Bitboard b) { return __builtin_ctzll(b); }
static inline int bb_popcount(Bitboard b) { return __builtin_popcountll(b); }
static inline int bb_pop_lsb(Bitboard *b) {
    int s = __builtin_ctzll(*b);
    *b &= *b - 1;
    return s;
}

typedef struct Magic {
    Bitboard mask;
    Bitboard magic;
    const Bitboard *attacks;
    unsigned shift;
} Magic;

extern Magic rook_magic[64];
extern Magic bishop_magic[64];
extern Bitboard knight_att8[64];
extern Bitboard king_att8[64];
extern Bitboard pawn_att8[2][64]; /* squares a pawn of colour c on s attacks */
extern Bitboard between8[64][64]; /* squares strictly between two aligned squares */
extern Bitboard line8[64][64];    /* the full line through two aligned squares, or 0 */
extern Bitboard rook_ray8[64];    /* a rook's attacks on an empty board */
extern Bitboard bishop_ray8[64];  /* a bishop's attacks on an empty board */

/* Where the processor has BMI2 (e.g. -march=native on x86-64 since Haswell), the tables
 * are indexed by PEXT of the occupancy instead of the magic product: same tables, two
 * instructions fewer per lookup. */
#if defined(__BMI2__) && defined(__x86_64__)
#include <immintrin.h>
#define CHESSVAR_PEXT 1
static inline uint64_t slider_index8(const Magic *m, Bitboard occ) {
    return _pext_u64(occ, m->mask);
}
#else
#define CHESSVAR_PEXT 0
static inline uint64_t slider_index8(const Magic *m, Bitboard occ) {
    return ((occ & m->mask) * m->magic) >> m->shift;
}
#endif

static inline Bitboard rook_att8(int s, Bitboard occ) {
    const Magic *m = &rook_magic[s];
    return m->attacks[slider_index8(m, occ)];
}
static inline Bitboard bishop_att8(int s, Bitboard occ) {
    const Magic *m = &bishop_magic[s];
    return m->attacks[slider_index8(m, occ)];
}
static inline Bitboard queen_att8(int s, Bitboard occ) {
    return rook_att8(s, occ) | bishop_att8(s, occ);
}

/* Slow ray walk on 8x8 (reference for the magic tables). */
Bitboard slide_att8_slow(int s, Bitboard occ, bool diagonal);

/* ---- 10x10 ---- */

static inline int bb128_lsb(Bitboard128 b) {
    uint64_t lo = (uint64_t)b;
    return lo ? __builtin_ctzll(lo) : 64 + __builtin_ctzll((uint64_t)(b >> 64));
}
static inline int bb128_msb(Bitboard128 b) {
    uint64_t hi = (uint64_t)(b >> 64);
    return hi ? 127 - __builtin_clzll(hi) : 63 - __builtin_clzll((uint64_t)b);
}
static inline int bb128_popcount(Bitboard128 b) {
    return __builtin_popcountll((uint64_t)b) + __builtin_popcountll((uint64_t)(b >> 64));
}
static inline int bb128_pop_lsb(Bitboard128 *b) {
    int s = bb128_lsb(*b);
    *b &= *b - 1;
    return s;
}
/* x shifted up by n squares, or down by -n. */
static FORCE_INLINE Bitboard128 bb128_shift(Bitboard128 x, int n) {
    return n >= 0 ? x << n : x >> -n;
}

/* Directions 0..7: E, W, N, S, NE, NW, SE, SW. Positive ones (index increases): E, N,
 * NE, NW. */
extern const int dir_df[8], dir_dr[8];
extern Bitboard128 ray10[8][100]; /* squares from s in direction d, to the edge */
extern Bitboard128 knight_att10[100];
extern Bitboard128 king_att10[100];
extern Bitboard128 board10_mask; /* the 100 valid squares */

static inline bool dir_positive10(int d) { return d == 0 || d == 2 || d == 4 || d == 5; }

/* Slide attacks along one direction on 10x10: the ray up to and including the first
 * blocker. */
static inline Bitboard128 ray_att10(int d, int s, Bitboard128 occ) {
    Bitboard128 r = ray10[d][s], b = r & occ;
    if (!b) return r;
    int f = dir_positive10(d) ? bb128_lsb(b) : bb128_msb(b);
    return r ^ ray10[d][f];
}
static inline Bitboard128 rook_att10(int s, Bitboard128 occ) {
    return ray_att10(0, s, occ) | ray_att10(1, s, occ) | ray_att10(2, s, occ) |
           ray_att10(3, s, occ);
}
static inline Bitboard128 bishop_att10(int s, Bitboard128 occ) {
    return ray_att10(4, s, occ) | ray_att10(5, s, occ) | ray_att10(6, s, occ) |
           ray_att10(7, s, occ);
}

/* Slow ray walk on 10x10 (reference for the ray tables). */
Bitboard128 slide_att10_slow(int s, Bitboard128 occ, bool diagonal);

#endif
