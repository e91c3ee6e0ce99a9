/* book.h - an opening book for self-play: start positions read from a file of FEN or EPD
 * lines, each checked when the file is read, so a bad line stops the run before any game. */
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

/* Reads the book at path for variant v: one position per line, a FEN, or an EPD line whose
 * operations after the first four fields are ignored; blank lines and lines starting
 * with # are skipped. NULL with err "PATH:LINE: what is wrong" (or a file error) on the
 * first bad line, or when the file holds no position. */
Book *book_load(const char *path, const Variant *v, CvError *err);

void book_free(Book *b);

#endif
