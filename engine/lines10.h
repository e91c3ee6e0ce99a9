/* lines10.h - internal: line-occupancy lookup on the 10x10 board.
 *
 * Every square lies on four lines (its rank, file, diagonal and anti-diagonal); the 58
 * lines are numbered, and squares along a line are numbered 0..len-1 in increasing square
 * order. For a piece at position `pos` of a line and the line's occupancy as a 10-bit
 * number, one table entry gives, as 10-bit line masks over both directions at once:
 *
 *   bits  0..9   slide   empty squares before the first piece
 *   bits 10..19  first   the first piece in each direction
 *   bits 20..29  hop     empty squares beyond that piece (the screen), up to the next one
 *   bits 30..39  second  the next piece beyond the screen
 *
 * A piece that uses a field in both directions of a line selects it with a mask; the
 * result goes back to the board by PDEP where there is BMI2, else by a spread table and
 * one shift. Replaces ray walks over 128-bit
 * words for slides and cannon hops. */
#ifndef CHESSVAR_LINES10_H
#define CHESSVAR_LINES10_H

#include "bitboard.h"

#define LINES10 58

typedef struct Line10 {
    uint8_t start; /* lowest square */
    uint8_t step;  /* 1 rank, 10 file, 11 diagonal, 9 anti-diagonal */
    uint8_t len;
    uint8_t kind;              /* 0 rank, 1 file, 2 diagonal, 3 anti-diagonal */
    uint64_t mask_lo, mask_hi; /* its squares in the low and high 64-bit halves */
    uint8_t nlo;               /* how many of them are in the low half */
} Line10;

/* The fields of a line10_table entry as bits, for line10_fold_build's `fields`. */
enum {
    LINE10_SLIDE = 1u << 0,  /* the empty squares before the first piece */
    LINE10_FIRST = 1u << 1,  /* the first piece */
    LINE10_HOP = 1u << 2,    /* the screen: the empty squares beyond the first piece */
    LINE10_SECOND = 1u << 3, /* the second piece */
    LINE10_FIELDS = LINE10_SLIDE | LINE10_FIRST | LINE10_HOP | LINE10_SECOND
};
/* Line kinds as bits (bit k: kind k of Line10.kind): ranks and files, the diagonals. */
enum {
    LINE10_ORTH = 1u << 0 | 1u << 1,
    LINE10_DIAG = 1u << 2 | 1u << 3,
    LINE10_KINDS = LINE10_ORTH | LINE10_DIAG
};

extern Line10 line10[LINES10];
extern uint8_t line10_id[4][100];  /* [kind][square] -> line */
extern uint8_t line10_pos[4][100]; /* [kind][square] -> position along it */
extern uint64_t line10_table[10][1024];
/* Per set of fields (bit i: field i of line10_table), the entries with those fields ORed
 * into one 10-bit mask (NULL until line10_fold_build builds it). */
extern uint16_t (*line10_fold[16])[1024];
extern Bitboard128 line10_spread[4][1024]; /* [kind][10-bit mask] from square 0 */

/* Builds the tables (from bitboard_init). */
void lines10_init(void);
/* Builds line10_fold[fields] if it is not built (at a variant's first lookup, under the
 * registry's lock);
 * returns it, or NULL when out of memory. */
uint16_t (*line10_fold_build(unsigned fields))[1024];

/* The occupancy of line id as a 10-bit number (bit i: position i). */
static inline unsigned line10_occ(int id, Bitboard128 occ) {
    const Line10 *l = &line10[id];
#if CHESSVAR_PEXT
    return (unsigned)(_pext_u64((uint64_t)occ, l->mask_lo) |
                      (_pext_u64((uint64_t)(occ >> 64), l->mask_hi) << l->nlo));
#else
    unsigned x = 0;
    for (int i = 0; i < l->len; i++) x |= (unsigned)((occ >> (l->start + i * l->step)) & 1) << i;
    return x;
#endif
}

/* The board squares of a 10-bit mask on line id. */
static inline Bitboard128 line10_squares(int id, unsigned mask) {
#if CHESSVAR_PEXT
    const Line10 *l = &line10[id];
    return (Bitboard128)_pdep_u64(mask >> l->nlo, l->mask_hi) << 64 | _pdep_u64(mask, l->mask_lo);
#else
    return line10_spread[line10[id].kind][mask] << line10[id].start;
#endif
}

#endif
