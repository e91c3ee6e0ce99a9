/* superchess.h - Superchess piece ids and the prelude: a generator of random
 * prelude-legal start arrays and a checker of a FEN against the prelude rules (spec
 * section 2). Front ends use it beside chessvar.h for the `setup` command. */
#ifndef CHESSVAR_SUPERCHESS_H
#define CHESSVAR_SUPERCHESS_H

#include "chessvar.h"

/* Piece type ids; 1..6 are the orthodox ids shared with the other 8x8 variants. */
enum {
    SC_P = 1, SC_N, SC_B, SC_R, SC_Q, SC_K,
    SC_E, SC_A, SC_W, SC_M, SC_F, SC_D, SC_G, SC_O, SC_H, SC_T, SC_L, SC_X,
    SC_NPT = SC_X
};

/* Prelude parameters. Letters are upper case; each side gets the same pool. */
typedef struct PreludeParams {
    char pool[32];      /* the prelude pool per side, e.g. "EAWMFDGOHHTTTT" */
    int min, max;       /* substitutions per choosing phase; max 0: squares and pool permitting */
    char reserves[8];   /* reserves added to each side's hand, e.g. "LX"; "" for none */
} PreludeParams;

/* The defaults of the spec: pool E A W M F D G O + 2 H + 4 T, min 1, reserves L and X. */
void prelude_defaults(PreludeParams *pp);

/* Draws a random prelude from seed (deterministic) and writes its FEN into fen. Returns
 * false with err filled when the parameters are invalid or admit no array. */
bool prelude_random(const PreludeParams *pp, uint64_t seed, char *fen, size_t n, CvError *err);

/* Whether fen is an array the prelude with these parameters can produce; err names the
 * first rule it breaks. */
bool prelude_check(const PreludeParams *pp, const char *fen, CvError *err);

/* Whether the position's promotion pool equals the pool derived from the board. */
bool superchess_pool_is_derived(const Position *pos);

#endif
