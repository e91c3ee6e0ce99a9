/* types.h - fixed-width types, the move encoding and engine-wide constants.
 * The bottom of the include graph: every other engine header includes this one. */
#ifndef CHESSVAR_TYPES_H
#define CHESSVAR_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

__extension__ typedef unsigned __int128 u128;
typedef uint64_t Bitboard; /* 8x8 geometry */
typedef u128 Bitboard128;  /* 10x10 geometry */

enum { WHITE = 0, BLACK = 1 };

#define MAX_SQ       100  /* 10x10 */
#define MAX_PT       32   /* piece type ids 1..31 of one variant; 0 = none */
#define MAX_MOVES    1024 /* per position, generous for drops on 10x10 */
#define MAX_GAME_PLY 2048 /* undo stack depth inside a Position */
#define MAX_VICTIMS  8    /* captured pieces one move may remove (Terminator blast) */
#define NO_SQ        127

/* Piece codes on the board: 0 is empty, otherwise colour << 5 | type (type 1..31). */
#define PC_EMPTY      0
#define PC_MAKE(c, t) ((uint8_t)(((c) << 5) | (t)))
#define PC_TYPE(pc)   ((pc)&31)
#define PC_COLOR(pc)  ((pc) >> 5)

/* Move: 32 bits.
 *
 *   31..30  29..26  25..21   20..14  13..7   6..0
 *  +-------+-------+--------+-------+-------+-------+
 *  |   0   | kind  | promo  |  mid  |  to   | from  |
 *  +-------+-------+--------+-------+-------+-------+
 *
 *  from, to : squares 0..99 (rank * width + file), 7 bits each. A drop has from == to.
 *  mid      : intermediate capture square (Super Knight / Commando), NO_SQ if none (7 bits).
 *  promo    : piece type promoted to, or dropped, 0 if none (5 bits).
 *  kind     : MK_* below (4 bits).
 *  The value 0 is MOVE_NONE (from = to = a1, kind NORMAL is never generated).
 */
typedef uint32_t Move;
#define MOVE_NONE 0u

enum MoveKind {
    MK_NORMAL = 0, /* move or capture on `to` (also promotions) */
    MK_DOUBLE = 1, /* ordinary pawn double step: sets the e.p. square */
    MK_EP = 2,     /* en-passant capture */
    MK_CASTLE = 3, /* from/to are the monarch's squares */
    MK_DROP = 4,   /* promo holds the dropped type, from == to */
    MK_SWITCH = 5, /* Switching chess: from/to swap places (promo if a pawn promotes) */
    MK_MULTI = 6   /* a move whose victims are derived (blast, double capture) */
};

#define MOVE_MAKE(from, to, mid, promo, kind)                                                      \
    ((Move)((uint32_t)(from) | ((uint32_t)(to) << 7) | ((uint32_t)(mid) << 14) |                   \
            ((uint32_t)(promo) << 21) | ((uint32_t)(kind) << 26)))
#define MOVE_FROM(m)  ((int)((m)&127))
#define MOVE_TO(m)    ((int)(((m) >> 7) & 127))
#define MOVE_MID(m)   ((int)(((m) >> 14) & 127))
#define MOVE_PROMO(m) ((int)(((m) >> 21) & 31))
#define MOVE_KIND(m)  ((int)(((m) >> 26) & 15))

/* Plain move without mid square: mid = NO_SQ. */
#define MOVE_SIMPLE(from, to, kind) MOVE_MAKE(from, to, NO_SQ, 0, kind)

typedef struct Position Position;
typedef struct Variant Variant;
typedef struct PieceDef PieceDef;
typedef struct VariantOps VariantOps;
typedef struct MoveSet MoveSet;

/* Error text filled by parsers: one line naming the problem and where. */
typedef struct CvError {
    char msg[256];
} CvError;

#endif
