/* variant.h - internal: helpers to describe pieces as data, and the variant records
 * defined in the engine. */
#ifndef CHESSVAR_VARIANT_H
#define CHESSVAR_VARIANT_H

#include "bitboard.h"
#include "position.h"

/* Component initialisers for piece tables: a leap, ride, cannon hop, jumping king step,
 * double leap or walk with the modality `md` (MM_*); the plain forms move and capture. */
#define LEAP_M(f, r, md)                                                                           \
    { .kind = MC_LEAP, .mode = (md), .df = (f), .dr = (r) }
#define RIDE_M(f, r, md)                                                                           \
    { .kind = MC_RIDE, .mode = (md), .df = (f), .dr = (r) }
#define HOP_M(f, r, md)                                                                            \
    { .kind = MC_HOP, .mode = (md), .df = (f), .dr = (r) }
#define JSTEP_M(f, r, md)                                                                          \
    { .kind = MC_JSTEP, .mode = (md), .df = (f), .dr = (r) }
#define DLEAP_M(f, r, md)                                                                          \
    { .kind = MC_DLEAP, .mode = (md), .df = (f), .dr = (r) }
#define WALK_M(n, md)                                                                              \
    { .kind = MC_WALK, .mode = (md), .range = (n) }
#define LEAP(f, r) LEAP_M(f, r, MM_BOTH)
#define RIDE(f, r) RIDE_M(f, r, MM_BOTH)
#define HOP(f, r)  HOP_M(f, r, MM_BOTH)

/* Lame leaps: the squares (a, b) (and (c, d)), relative to the mover in White's view,
 * must be empty; LAME1_COND adds a condition (MCOND_*). */
#define LAME1(f, r, md, a, b)                                                                      \
    {                                                                                              \
        .kind = MC_LEAP, .mode = (md), .df = (f), .dr = (r), .nlame = 1, .lame = { {a, b} }        \
    }
#define LAME2(f, r, md, a, b, c, d)                                                                \
    {                                                                                              \
        .kind = MC_LEAP, .mode = (md), .df = (f), .dr = (r), .nlame = 2, .lame = {                 \
            {a, b},                                                                                \
            {c, d}                                                                                 \
        }                                                                                          \
    }
#define LAME1_COND(f, r, md, cond_, a, b)                                                          \
    {                                                                                              \
        .kind = MC_LEAP, .mode = (md), .df = (f), .dr = (r), .cond = (cond_), .nlame = 1,          \
        .lame = {                                                                                  \
            {a, b}                                                                                 \
        }                                                                                          \
    }

/* A piece definition: letter, name, flags, value, then its components, counted by the
 * compiler (NCOMP), never by hand. */
#define NCOMP(...) ((uint8_t)(sizeof((MoveComp[]){__VA_ARGS__}) / sizeof(MoveComp)))
#define PIECE(letter, name, flags, value, ...)                                                     \
    {                                                                                              \
        letter, name, flags, value, NCOMP(__VA_ARGS__), { __VA_ARGS__ }                            \
    }

/* The eight king steps, the eight knight leaps, and slider directions as components. */
#define KING_STEPS_M(md)                                                                           \
    LEAP_M(1, 0, md), LEAP_M(-1, 0, md), LEAP_M(0, 1, md), LEAP_M(0, -1, md), LEAP_M(1, 1, md),    \
        LEAP_M(1, -1, md), LEAP_M(-1, 1, md), LEAP_M(-1, -1, md)
#define KING_STEPS KING_STEPS_M(MM_BOTH)
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
