/* perft_supremo_tables.h - internal to Supremo's last-ply counter (perft_supremo.c and its
 * attack tests, perft_supremo_attack.h): the tables supremo_perft_init builds, defined in
 * perft_supremo_tables.c. */
#ifndef CHESSVAR_PERFT_SUPREMO_TABLES_H
#define CHESSVAR_PERFT_SUPREMO_TABLES_H

#include "supremo.h"

/* Per line position and 10-bit occupancy: every destination of a slide-and-hop piece
 * (the four fields of line10_table folded), and the first and second pieces only. */
extern const uint16_t (*sup_line_all)[1024];
extern const uint16_t (*sup_line_hit)[1024];
/* Per square index its bit, none for NO_SQ and the others past the board: a load instead
 * of a 128-bit shift by a variable count: start perft 4 3018.2M -> 3016.3M, middlegame
 * 332.9M -> 329.3M. */
extern u128 sup_sq_bit[128];
extern u128 sup_knight2[MAX_SQ]; /* squares two knight leaps away */
#if CHESSVAR_PEXT
/* Per square s the neighbours a jK step may jump over (those with a landing on the board)
 * and their landings, each in 64-bit halves, and the number of each in the low half: the
 * occupied ones are gathered by PEXT and their landings (in the same order: the landing
 * over o is 2o - s) scattered by PDEP, without a shift of a 128-bit set by a variable
 * count (two before): start perft 4 3016.3M -> 2902.6M, middlegame 329.3M -> 314.2M. */
typedef struct JumpMask {
    uint64_t over_lo, over_hi, land_lo, land_hi;
    unsigned nover_lo, nland_lo;
} JumpMask;
extern JumpMask sup_jump_mask[MAX_SQ];
#else
extern u128 sup_jump_land[MAX_SQ][23]; /* [s][o - s + 11]: the jK landing over neighbour o */
#endif

#if defined(__AVX2__)
#include <immintrin.h>

/* With AVX2 the eight directions of step_any are shifted two at a time, one 128-bit set in
 * each half of a 256-bit vector (a 128-bit shift: the two 64-bit shifts and the bits
 * carried across), and each half masked with its direction's file mask (sup_step_fmask, set
 * by supremo_perft_init): E and N, NE and NW up; W and S, SW and SE down. About 55
 * vector instructions instead of about 110 on 64-bit registers: start perft 4 3348.9M ->
 * 3018.2M, middlegame 350.5M -> 332.9M (the Protectors' and Commandos' reaches). */
extern __m256i sup_step_fmask[4];
#endif

#endif
