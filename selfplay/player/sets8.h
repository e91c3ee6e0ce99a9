/* sets8.h - internal: pawn sets on an 8x8 board (bit 0 = a1, bit 63 = h8), shared by the
 * evaluation's pawn structure (eval.c) and the ending scale factors (endings.c). */
#ifndef CHESSVAR_SELFPLAY_SETS8_H
#define CHESSVAR_SELFPLAY_SETS8_H

#include <stdint.h>

#define FILE_A_BB 0x0101010101010101ULL
#define FILE_H_BB 0x8080808080808080ULL

/* Each square of b and every square above it (White's forward direction). */
static inline uint64_t fill_up(uint64_t b) {
    b |= b << 8;
    b |= b << 16;
    return b | b << 32;
}

/* Each square of b and every square below it. */
static inline uint64_t fill_down(uint64_t b) {
    b |= b >> 8;
    b |= b >> 16;
    return b | b >> 32;
}

/* The neighbours of the squares of b on the adjacent files. */
static inline uint64_t sides(uint64_t b) {
    return ((b >> 1) & ~FILE_H_BB) | ((b << 1) & ~FILE_A_BB);
}

/* b and its neighbours on the adjacent files. */
static inline uint64_t with_sides(uint64_t b) { return b | sides(b); }

/* The white pawns of w that are passed against the black pawns b (no black pawn ahead on
 * their own or an adjacent file), and the black pawns of b passed against w. */
static inline uint64_t passed_white(uint64_t w, uint64_t b) {
    return w & ~with_sides(fill_down(b >> 8));
}
static inline uint64_t passed_black(uint64_t b, uint64_t w) {
    return b & ~with_sides(fill_up(w << 8));
}

#endif
