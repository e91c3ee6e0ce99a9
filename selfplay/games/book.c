/* book.c - reads and checks an opening book of FEN / EPD lines. */
#include "book.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#define BOOK_LINE_SIZE 1024

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

/* Checks one book line into the position's FEN as chessvar writes it; false with err. */
static bool book_parse(char *line, const Variant *v, Position *pos, char *out, CvError *err) {
    char fen[BOOK_LINE_SIZE];
    Move list[MAX_MOVES];
    if (!book_line_fen(line, v, fen, sizeof fen, err) || !pos_from_fen(pos, v, fen, err))
        return false;
    if (pos_legal_moves(pos, list) == 0) {
        snprintf(err->msg, sizeof err->msg, "the side to move has no legal move in '%.120s'", fen);
        return false;
    }
    if ((size_t)pos_to_fen(pos, out, BOOK_FEN_SIZE) >= BOOK_FEN_SIZE) {
        snprintf(err->msg, sizeof err->msg, "FEN longer than %d characters", BOOK_FEN_SIZE - 1);
        return false;
    }
    return true;
}

/* Reads the file line by line; the first bad line names itself and stops the reading. */
Book *book_load(const char *path, const Variant *v, CvError *err) {
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err->msg, sizeof err->msg, "cannot read %.200s: %s", path, strerror(errno));
        return NULL;
    }
    Book *b = calloc(1, sizeof *b);
    Position *pos = malloc(sizeof *pos);
    char *line = malloc(BOOK_LINE_SIZE);
    int cap = 0, lineno = 0;
    bool ok = b && pos && line;
    if (!ok) snprintf(err->msg, sizeof err->msg, "out of memory");
    XXH3_state_t *h = ok ? XXH3_createState() : NULL;
    if (ok && !h) {
        snprintf(err->msg, sizeof err->msg, "out of memory");
        ok = false;
    }
    if (h) XXH3_64bits_reset(h);
    while (ok && fgets(line, BOOK_LINE_SIZE, f)) {
        lineno++;
        size_t len = strlen(line);
        if (len == BOOK_LINE_SIZE - 1 && line[len - 1] != '\n' && !feof(f)) {
            snprintf(err->msg, sizeof err->msg, "%.150s:%d: line longer than %d characters", path,
                     lineno, BOOK_LINE_SIZE - 2);
            ok = false;
            break;
        }
        line[strcspn(line, "\r\n")] = 0;
        char *s = line + strspn(line, " \t");
        if (!*s || *s == '#') continue;
        if (b->n == cap) {
            cap = cap ? 2 * cap : 64;
            void *grown = realloc(b->fen, (size_t)cap * sizeof *b->fen);
            if (!grown) {
                snprintf(err->msg, sizeof err->msg, "out of memory");
                ok = false;
                break;
            }
            b->fen = grown;
        }
        CvError e = {{0}};
        if (!book_parse(s, v, pos, b->fen[b->n], &e)) {
            snprintf(err->msg, sizeof err->msg, "%.100s:%d: %s", path, lineno, e.msg);
            ok = false;
            break;
        }
        XXH3_64bits_update(h, b->fen[b->n], strlen(b->fen[b->n]));
        XXH3_64bits_update(h, "\n", 1);
        b->n++;
    }
    if (ok && ferror(f)) {
        snprintf(err->msg, sizeof err->msg, "cannot read %.200s: %s", path, strerror(errno));
        ok = false;
    }
    if (ok && b->n == 0) {
        snprintf(err->msg, sizeof err->msg, "%.200s holds no position", path);
        ok = false;
    }
    if (ok) {
        b->hash = XXH3_64bits_digest(h);
        const char *slash = strrchr(path, '/');
        snprintf(b->name, sizeof b->name, "%s", slash ? slash + 1 : path);
        for (char *c = b->name; *c; c++)
            if (*c == '"' || *c == '\\' || (unsigned char)*c < 0x20) *c = '\'';
    }
    if (h) XXH3_freeState(h);
    fclose(f);
    free(pos);
    free(line);
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
