/* variant.h - internal: helpers to describe pieces as data, and the variant records
 * defined in the engine. */
#ifndef CHESSVAR_VARIANT_H
#define CHESSVAR_VARIANT_H

#include "bitboard.h"
#include "position.h"

/* Component initialisers for piece tables. */
#define LEAP(f, r)                                                                                 \
    {                                                                                              \
        MC_LEAP, MM_BOTH, f, r, 0, 0, 0, {                                                         \
            { 0 }                                                                                  \
        }                                                                                          \
    }
#define RIDE(f, r)                                                                                 \
    {                                                                                              \
        MC_RIDE, MM_BOTH, f, r, 0, 0, 0, {                                                         \
            { 0 }                                                                                  \
        }                                                                                          \
    }
#define LEAP_M(f, r, mode)                                                                         \
    {                                                                                              \
        MC_LEAP, mode, f, r, 0, 0, 0, {                                                            \
            { 0 }                                                                                  \
        }                                                                                          \
    }

/* The eight king steps, the eight knight leaps, and slider directions as components. */
#define KING_STEPS                                                                                 \
    LEAP(1, 0), LEAP(-1, 0), LEAP(0, 1), LEAP(0, -1), LEAP(1, 1), LEAP(1, -1), LEAP(-1, 1),        \
        LEAP(-1, -1)
#define KNIGHT_LEAPS                                                                               \
    LEAP(1, 2), LEAP(2, 1), LEAP(2, -1), LEAP(1, -2), LEAP(-1, -2), LEAP(-2, -1), LEAP(-2, 1),     \
        LEAP(-1, 2)
#define ROOK_RIDES   RIDE(1, 0), RIDE(-1, 0), RIDE(0, 1), RIDE(0, -1)
#define BISHOP_RIDES RIDE(1, 1), RIDE(1, -1), RIDE(-1, 1), RIDE(-1, -1)

/* Orthodox piece type ids, shared by chess and Switching chess. */
enum { PAWN = 1, KNIGHT, BISHOP, ROOK, QUEEN, KING };

/* Orthodox castling-right bits. */
enum { CASTLE_WK = 1, CASTLE_WQ = 2, CASTLE_BK = 4, CASTLE_BQ = 8 };

extern Variant variant_chess;
extern Variant variant_switching;
extern Variant variant_superchess;

#endif
