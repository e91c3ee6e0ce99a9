/* book.c - reads and checks an opening book: FEN / EPD lines, or the games of a PGN file
 * (book_pgn.c). */
#include "book.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "book_pgn.h"

#define BOOK_LINE_SIZE 1024
#define BOOK_PGN_MAX   (1L << 30) /* the largest PGN book read (bytes) */

/* A book being read: its positions so far, their room and the hash of their FENs. */
typedef struct BookBuild {
    Book *b;
    int cap;
    XXH3_state_t *h;
} BookBuild;

/* Adds pos to the book (a BookAdd): it must have a legal move and a FEN that fits. */
static bool book_add(void *ctx, Position *pos, CvError *err) {
    BookBuild *bb = ctx;
    Book *b = bb->b;
    Move list[MAX_MOVES];
    char fen[BOOK_FEN_SIZE + 64];
    int len = pos_to_fen(pos, fen, sizeof fen);
    if (pos_legal_moves(pos, list) == 0) {
        snprintf(err->msg, sizeof err->msg, "the side to move has no legal move in '%.120s'", fen);
        return false;
    }
    if (len >= BOOK_FEN_SIZE) {
        snprintf(err->msg, sizeof err->msg, "FEN longer than %d characters", BOOK_FEN_SIZE - 1);
        return false;
    }
    if (b->n == bb->cap) {
        int cap = bb->cap ? 2 * bb->cap : 64;
        void *grown = realloc(b->fen, (size_t)cap * sizeof *b->fen);
        if (!grown) {
            snprintf(err->msg, sizeof err->msg, "out of memory");
            return false;
        }
        b->fen = grown;
        bb->cap = cap;
    }
    memcpy(b->fen[b->n], fen, (size_t)len + 1);
    XXH3_64bits_update(bb->h, fen, (size_t)len);
    XXH3_64bits_update(bb->h, "\n", 1);
    b->n++;
    return true;
}

/* True when s is a decimal counter (a FEN's halfmove or fullmove field). */
static bool book_is_counter(const char *s) {
    if (!*s) return false;
    for (; *s; s++)
        if (!isdigit((unsigned char)*s)) return false;
    return true;
}

/* The FEN of one book line: its first four fields, then the counters when fields 5 and 6
 * are numbers (a FEN; in Superchess also a 7th field, the pool, which holds a slash),
 * else nothing more (an EPD line: the rest are operations). False with err if the line
 * has fewer than four fields. */
static bool book_line_fen(char *line, const Variant *v, char *fen, size_t n, CvError *err) {
    char *tok[8];
    int nt = 0;
    for (char *s = line + strspn(line, " \t"); *s && nt < 8; s += strspn(s, " \t")) {
        tok[nt++] = s;
        s += strcspn(s, " \t");
        if (*s) *s++ = 0;
    }
    if (nt < 4) {
        snprintf(err->msg, sizeof err->msg,
                 "%d fields, need a FEN or EPD (board side castling e.p. ...)", nt);
        return false;
    }
    int take = 4;
    if (nt >= 6 && book_is_counter(tok[4]) && book_is_counter(tok[5])) {
        take = 6;
        if (nt >= 7 && v->ops->fen_parse_extra && strchr(tok[6], '/') && !strchr(tok[6], ';'))
            take = 7;
    }
    size_t k = 0;
    for (int i = 0; i < take && k < n; i++)
        k += (size_t)snprintf(fen + k, n - k, "%s%s", i ? " " : "", tok[i]);
    return true;
}

/* Checks one book line and adds its position; false with err. */
static bool book_parse(char *line, const Variant *v, Position *pos, BookBuild *bb, CvError *err) {
    char fen[BOOK_LINE_SIZE];
    return book_line_fen(line, v, fen, sizeof fen, err) && pos_from_fen(pos, v, fen, err) &&
           book_add(bb, pos, err);
}

/* Whether the open file f (named path) is a PGN book: by its name (.pgn; .epd and .fen are
 * not), else by its first text: a tag, a comment or a move number. f is rewound. */
static bool book_is_pgn(const char *path, FILE *f) {
    const char *dot = strrchr(path, '.');
    if (dot && !strchr(dot, '/')) {
        char ext[8] = "";
        for (int i = 0; i < 7 && dot[i + 1]; i++) ext[i] = (char)tolower((unsigned char)dot[i + 1]);
        if (strcmp(ext, "pgn") == 0) return true;
        if (strcmp(ext, "epd") == 0 || strcmp(ext, "fen") == 0) return false;
    }
    char head[64];
    size_t n = fread(head, 1, sizeof head - 1, f), i = 0;
    rewind(f);
    head[n] = 0;
    if (n >= 3 && memcmp(head, "\xEF\xBB\xBF", 3) == 0) i = 3;
    while (i < n && isspace((unsigned char)head[i])) i++;
    if (head[i] == '[' || head[i] == '{' || head[i] == '%') return true;
    size_t d = strspn(head + i, "0123456789");
    return d > 0 && head[i + d] == '.';
}

/* Reads the PGN book f (named path) whole and adds its games' positions. */
static bool book_read_pgn(FILE *f, const char *path, const Variant *v, int plies, BookBuild *bb,
                          CvError *err) {
    size_t cap = 1 << 16, n = 0, got;
    char *text = malloc(cap);
    while (text && (got = fread(text + n, 1, cap - n - 1, f)) > 0) {
        n += got;
        if (n + 1 == cap) {
            char *grown = cap < BOOK_PGN_MAX ? realloc(text, cap *= 2) : NULL;
            if (!grown) free(text);
            text = grown;
        }
    }
    if (!text) {
        snprintf(err->msg, sizeof err->msg, "%.150s: out of memory (or larger than %ld bytes)",
                 path, BOOK_PGN_MAX);
        return false;
    }
    text[n] = 0;
    bool ok = !ferror(f);
    if (!ok) snprintf(err->msg, sizeof err->msg, "cannot read %.200s: %s", path, strerror(errno));
    if (ok && memchr(text, 0, n)) {
        snprintf(err->msg, sizeof err->msg, "%.200s: a NUL byte: not a PGN text file", path);
        ok = false;
    }
    ok = ok && book_pgn_read(text, n, path, v, plies, book_add, bb, err);
    free(text);
    return ok;
}

/* Reads the EPD book f (named path) line by line; the first bad line names itself and
 * stops the reading. */
static bool book_read_epd(FILE *f, const char *path, const Variant *v, BookBuild *bb, Position *pos,
                          CvError *err) {
    char line[BOOK_LINE_SIZE];
    int lineno = 0;
    while (fgets(line, BOOK_LINE_SIZE, f)) {
        lineno++;
        size_t len = strlen(line);
        if (len == BOOK_LINE_SIZE - 1 && line[len - 1] != '\n' && !feof(f)) {
            snprintf(err->msg, sizeof err->msg, "%.150s:%d: line longer than %d characters", path,
                     lineno, BOOK_LINE_SIZE - 2);
            return false;
        }
        line[strcspn(line, "\r\n")] = 0;
        char *s = line + strspn(line, " \t");
        if (!*s || *s == '#') continue;
        CvError e = {{0}};
        if (!book_parse(s, v, pos, bb, &e)) {
            snprintf(err->msg, sizeof err->msg, "%.100s:%d: %s", path, lineno, e.msg);
            return false;
        }
    }
    if (ferror(f)) {
        snprintf(err->msg, sizeof err->msg, "cannot read %.200s: %s", path, strerror(errno));
        return false;
    }
    return true;
}

/* Reads the book: PGN or EPD by book_is_pgn; NULL with err at the first error. */
Book *book_load(const char *path, const Variant *v, int plies, CvError *err) {
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err->msg, sizeof err->msg, "cannot read %.200s: %s", path, strerror(errno));
        return NULL;
    }
    BookBuild bb = {.b = calloc(1, sizeof *bb.b), .h = XXH3_createState()};
    Position *pos = malloc(sizeof *pos);
    bool ok = bb.b && bb.h && pos, pgn = ok && book_is_pgn(path, f);
    if (!ok) snprintf(err->msg, sizeof err->msg, "out of memory");
    else if (plies > 0 && !pgn) {
        snprintf(err->msg, sizeof err->msg,
                 "%.200s holds FEN/EPD lines: only a PGN book's games are cut at a ply", path);
        ok = false;
    }
    if (ok) {
        XXH3_64bits_reset(bb.h);
        ok = pgn ? book_read_pgn(f, path, v, plies, &bb, err)
                 : book_read_epd(f, path, v, &bb, pos, err);
    }
    Book *b = bb.b;
    if (ok && b->n == 0) {
        snprintf(err->msg, sizeof err->msg, "%.200s holds no position", path);
        ok = false;
    }
    if (ok) {
        b->hash = XXH3_64bits_digest(bb.h);
        const char *slash = strrchr(path, '/');
        snprintf(b->name, sizeof b->name, "%s", slash ? slash + 1 : path);
        for (char *c = b->name; *c; c++)
            if (*c == '"' || *c == '\\' || (unsigned char)*c < 0x20) *c = '\'';
    }
    if (bb.h) XXH3_freeState(bb.h);
    fclose(f);
    free(pos);
    if (!ok) {
        book_free(b);
        return NULL;
    }
    return b;
}

/* Frees a book (NULL is fine). */
void book_free(Book *b) {
    if (!b) return;
    free(b->fen);
    free(b);
}
