/* superchess.h - the Superchess prelude: a generator of random prelude-legal start arrays
 * and a checker of a FEN against the prelude rules (spec section 2). */
#ifndef CHESSVAR_SUPERCHESS_H
#define CHESSVAR_SUPERCHESS_H

#include "types.h"

#endif
