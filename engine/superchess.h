/* superchess.h - Superchess piece ids and the prelude: a generator of random
 * prelude-legal start arrays and a checker of a FEN against the prelude rules (spec
 * section 2). Internal: the prelude API that front ends call is in chessvar.h. */
#ifndef CHESSVAR_SUPERCHESS_H
#define CHESSVAR_SUPERCHESS_H

#include "chessvar.h"

/* Piece type ids; 1..6 are the orthodox ids shared with the other 8x8 variants. */
enum {
    SC_P = 1,
    SC_N,
    SC_B,
    SC_R,
    SC_Q,
    SC_K,
    SC_E,
    SC_A,
    SC_W,
    SC_M,
    SC_F,
    SC_D,
    SC_G,
    SC_O,
    SC_H,
    SC_T,
    SC_L,
    SC_X,
    SC_NPT = SC_X
};

/* Whether the position's promotion pool equals the pool derived from the board. */
bool superchess_pool_is_derived(const Position *pos);

#endif
