/* book_pgn.h - the games of a PGN opening book as start positions (for book.c): tags
 * (FEN, SetUp, Variant), movetext in SAN or chessvar's notation (engine/san.c), comments,
 * variations, NAGs, move numbers and results. */
#ifndef CHESSVAR_SELFPLAY_BOOK_PGN_H
#define CHESSVAR_SELFPLAY_BOOK_PGN_H

#include "../../engine/chessvar.h"

/* Takes one position of the book (the position after a game's opening); false with
 * err->msg saying what is wrong with it. */
typedef bool (*BookAdd)(void *ctx, Position *pos, CvError *err);

/* Reads the PGN text (len bytes) of the file path for variant v: every game is replayed
 * move by move, and its position after `plies` plies (0: after all its moves; a shorter
 * game: its last position) goes to add. False with err "PATH: game N (line L): what is
 * wrong" (a bad token, an illegal move, a Variant tag of another variant, a bad FEN) at
 * the first error, or when the file holds no game. */
bool book_pgn_read(const char *text, size_t len, const char *path, const Variant *v, int plies,
                   BookAdd add, void *ctx, CvError *err);

#endif
