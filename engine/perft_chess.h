/* perft_chess.h - internal: orthodox perft on a lean copy-make board (no key, no
 * mailbox, no undo stack), specialised per side to move. Counts only: the hash and the
 * leaf fingerprint keep the generic path, which needs the Zobrist key. */
#ifndef CHESSVAR_PERFT_CHESS_H
#define CHESSVAR_PERFT_CHESS_H

#include "position.h"

/* Builds the small tables of the fast path (chess_init, at the first lookup of chess or
 * Switching chess). */
void perft_chess_init(void);

/* Leaves of the legal-move tree of an orthodox-chess position, depth >= 0. */
uint64_t perft_chess(Position *p, int depth);

#endif
