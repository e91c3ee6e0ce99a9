/* book.h - an opening book for self-play and matches: start positions read from a file of
 * FEN or EPD lines or from the games of a PGN file, each checked when the file is read, so
 * a bad line or game stops the run before any game. */
#ifndef CHESSVAR_SELFPLAY_BOOK_H
#define CHESSVAR_SELFPLAY_BOOK_H

#include "../../engine/chessvar.h"

#define BOOK_FEN_SIZE 256 /* as Game.start_fen */

/* The positions of a book, as chessvar writes their FENs, in file order. */
typedef struct Book {
    int n;
    char (*fen)[BOOK_FEN_SIZE];
    uint64_t hash;  /* XXH3-64 of the FENs, each followed by a newline: what run.json records */
    char name[128]; /* the file's name without its folder (quotes and backslashes replaced) */
} Book;

/* Reads the book at path for variant v. A PGN file (named .pgn, or whose text starts
 * with a tag, a comment or a move number) gives one position per game: the game replayed
 * from its FEN tag (or the variant's start) through its first `plies` plies (0: all its
 * moves; a shorter game: its last position), moves in SAN or chessvar's notation
 * (book_pgn.h). Any other file holds one position per line, a FEN, or an EPD line whose
 * operations after the first four fields are ignored; blank lines and lines starting
 * with # are skipped. Every position must have a legal move. NULL with err ("PATH:LINE:
 * what is wrong", "PATH: game N (line L): what is wrong", or a file error) at the first
 * error, when the file holds no position, or with plies > 0 for a FEN/EPD file. */
Book *book_load(const char *path, const Variant *v, int plies, CvError *err);

void book_free(Book *b);

#endif
