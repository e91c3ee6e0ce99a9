/* perft_supremo_tables.c - the tables of Supremo's last-ply counter (perft_supremo.c),
 * what each holds is said in perft_supremo_tables.h. */
#include <stdio.h>
#include <stdlib.h>

#include "lines10.h"
#include "perft_supremo_tables.h"

const uint16_t (*sup_line_all)[1024];
const uint16_t (*sup_line_hit)[1024];
u128 sup_sq_bit[128];
u128 sup_knight2[MAX_SQ];
#if CHESSVAR_PEXT
JumpMask sup_jump_mask[MAX_SQ];
#else
u128 sup_jump_land[MAX_SQ][23];
#endif
#if defined(__AVX2__)
__m256i sup_step_fmask[4];
#endif

/* Builds the counter's tables (from supremo_init, after lines10_init). */
void supremo_perft_init(const SupTables *T) {
    sup_line_all = (const uint16_t(*)[1024])line10_fold_build(LINE10_FIELDS);
    sup_line_hit = (const uint16_t(*)[1024])line10_fold_build(LINE10_FIRST | LINE10_SECOND);
    if (!sup_line_all || !sup_line_hit) {
        fprintf(stderr, "supremo: out of memory building tables\n");
        exit(1);
    }
    for (int s = 0; s < 128; s++) sup_sq_bit[s] = s < MAX_SQ ? (u128)1 << s : 0;
    for (int s = 0; s < 100; s++) {
        sup_knight2[s] = 0;
        for (u128 m = T->leap_cp[SUP_KNIGHT][WHITE][s]; m;)
            sup_knight2[s] |= T->leap_cp[SUP_KNIGHT][WHITE][bb128_pop_lsb(&m)];
#if CHESSVAR_PEXT
        sup_jump_mask[s] = (JumpMask){0};
#endif
        for (int d = 0; d < 8; d++) {
            if (T->over[s][d] == NO_SQ || T->land[s][d] == NO_SQ) continue;
#if CHESSVAR_PEXT
            const u128 o = sup_sq_bit[T->over[s][d]], l = sup_sq_bit[T->land[s][d]];
            sup_jump_mask[s].over_lo |= (uint64_t)o;
            sup_jump_mask[s].over_hi |= (uint64_t)(o >> 64);
            sup_jump_mask[s].land_lo |= (uint64_t)l;
            sup_jump_mask[s].land_hi |= (uint64_t)(l >> 64);
            sup_jump_mask[s].nover_lo += (uint64_t)o != 0;
            sup_jump_mask[s].nland_lo += (uint64_t)l != 0;
#else
            sup_jump_land[s][T->over[s][d] - s + 11] = sup_sq_bit[T->land[s][d]];
#endif
        }
    }
#if defined(__AVX2__)
    const u128 A = T->not_file_a, J = T->not_file_j, all = ~(u128)0;
    const u128 m[4][2] = {{A, all}, {A, J}, {J, all}, {J, A}};
    for (int i = 0; i < 4; i++)
        sup_step_fmask[i] =
            _mm256_setr_epi64x((long long)(uint64_t)m[i][0], (long long)(uint64_t)(m[i][0] >> 64),
                               (long long)(uint64_t)m[i][1], (long long)(uint64_t)(m[i][1] >> 64));
#endif
}
