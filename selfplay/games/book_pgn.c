/* book_pgn.c - the games of a PGN opening book, replayed into start positions. */
#include "book_pgn.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PGN_TAG_SIZE   256 /* a tag's value, with its terminating zero */
#define PGN_TOKEN_SIZE 64  /* a movetext token */

/* The reader's state: where it is in the text, and the game it is in. */
typedef struct PgnReader {
    const char *s; /* the next character */
    int line;      /* its line, from 1 */
    const char *path;
    const Variant *v;
    int plies; /* the cut (0: none) */
    BookAdd add;
    void *ctx;
    CvError *err;
    Position *pos, *cut; /* the game's position; its position at the cut */
    int game, game_line; /* the current game's number (from 1) and first line */
    bool open;           /* a game has begun (a tag or a move) */
    bool moves;          /* its movetext has begun */
    bool ready;          /* its start position is set */
    bool have_cut;       /* cut holds the position after `plies` plies */
    int nply;            /* plies read */
    bool setup;          /* its SetUp tag is 1 */
    char fen[PGN_TAG_SIZE], variant[PGN_TAG_SIZE];
} PgnReader;

/* Fills err with "PATH: game N (line L): " and the message; returns false. */
static bool pgn_fail(PgnReader *r, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static bool pgn_fail(PgnReader *r, int line, const char *fmt, ...) {
    char what[160];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    /* a long path keeps its end (the file's name), not its start */
    size_t n = strlen(r->path);
    const char *path = n > 64 ? r->path + n - 61 : r->path;
    snprintf(r->err->msg, sizeof r->err->msg, "%s%s: game %d (line %d): %s", n > 64 ? "..." : "",
             path, r->game ? r->game : 1, line, what);
    return false;
}

/* Whether a and b are equal but for the case of letters. */
static bool pgn_same_text(const char *a, const char *b) {
    for (; *a && *b; a++, b++)
        if (tolower((unsigned char)*a) != tolower((unsigned char)*b)) return false;
    return *a == *b;
}

/* Whether a Variant tag names variant v: its name, and for chess also what other programs
 * write for it (Standard, From Position). */
static bool pgn_variant_is(const Variant *v, const char *tag) {
    if (pgn_same_text(tag, v->name)) return true;
    return strcmp(v->name, "chess") == 0 &&
           (pgn_same_text(tag, "standard") || pgn_same_text(tag, "from position"));
}

/* Skips white space, comments ({...}; ; to the end of the line) and escape lines (% in the
 * first column); false at a comment never closed. */
static bool pgn_skip(PgnReader *r) {
    for (;;) {
        char c = *r->s;
        if (c == '\n') {
            r->line++;
            r->s++;
            if (*r->s == '%')
                while (*r->s && *r->s != '\n') r->s++;
        } else if (isspace((unsigned char)c)) r->s++;
        else if (c == ';')
            while (*r->s && *r->s != '\n') r->s++;
        else if (c == '{') {
            int line = r->line;
            for (r->s++; *r->s && *r->s != '}'; r->s++) r->line += *r->s == '\n';
            if (!*r->s) return pgn_fail(r, line, "comment '{' not closed");
            r->s++;
        } else return true;
    }
}

/* Reads a tag pair [Name "value"] and keeps FEN, SetUp and Variant. */
static bool pgn_tag(PgnReader *r) {
    int line = r->line;
    char name[PGN_TOKEN_SIZE], value[PGN_TAG_SIZE];
    size_t n = 0, k = 0;
    r->s++;
    while (*r->s == ' ' || *r->s == '\t') r->s++;
    while ((isalnum((unsigned char)*r->s) || *r->s == '_') && n < sizeof name - 1)
        name[n++] = *r->s++;
    name[n] = 0;
    while (*r->s == ' ' || *r->s == '\t') r->s++;
    if (n == 0 || *r->s != '"') return pgn_fail(r, line, "bad tag: need [Name \"value\"]");
    for (r->s++; *r->s && *r->s != '"' && *r->s != '\n'; r->s++) {
        if (*r->s == '\\' && (r->s[1] == '"' || r->s[1] == '\\')) r->s++;
        if (k < sizeof value - 1) value[k++] = *r->s;
    }
    value[k] = 0;
    if (*r->s != '"') return pgn_fail(r, line, "tag %s: its value has no closing quote", name);
    r->s++;
    while (*r->s == ' ' || *r->s == '\t') r->s++;
    if (*r->s != ']') return pgn_fail(r, line, "tag %s: no closing ']'", name);
    r->s++;
    if (strcmp(name, "FEN") == 0) snprintf(r->fen, sizeof r->fen, "%s", value);
    else if (strcmp(name, "Variant") == 0) snprintf(r->variant, sizeof r->variant, "%s", value);
    else if (strcmp(name, "SetUp") == 0) r->setup = strcmp(value, "1") == 0;
    return true;
}

/* Starts game number game + 1 on the current line. */
static void pgn_begin(PgnReader *r) {
    r->game++;
    r->game_line = r->line;
    r->open = true;
    r->moves = r->ready = r->have_cut = r->setup = false;
    r->nply = 0;
    r->fen[0] = r->variant[0] = 0;
}

/* Sets the game's start position from its tags: the FEN tag, else the variant's start. */
static bool pgn_start(PgnReader *r) {
    CvError e = {{0}};
    if (r->variant[0] && !pgn_variant_is(r->v, r->variant))
        return pgn_fail(r, r->game_line, "Variant \"%.60s\" is not %s, the variant played",
                        r->variant, r->v->name);
    if (!r->fen[0] && r->setup) return pgn_fail(r, r->game_line, "SetUp \"1\" without a FEN tag");
    const char *fen = r->fen[0] ? r->fen : variant_start(r->v, NULL);
    if (!pos_from_fen(r->pos, r->v, fen, &e))
        return pgn_fail(r, r->game_line, "bad FEN tag: %s", e.msg);
    r->ready = true;
    return true;
}

/* Plays the move of token t on line `line`. */
static bool pgn_move(PgnReader *r, const char *t, int line) {
    if (!r->ready && !pgn_start(r)) return false;
    CvError e = {{0}};
    if (r->pos->ply >= MAX_GAME_PLY - 2) { /* a long game: a fresh undo stack, same position */
        char fen[512];
        pos_to_fen(r->pos, fen, sizeof fen);
        if (!pos_from_fen(r->pos, r->v, fen, &e)) return pgn_fail(r, line, "%s", e.msg);
    }
    Move m = move_from_san(r->pos, t, &e);
    if (m == MOVE_NONE) return pgn_fail(r, line, "ply %d: %s", r->nply + 1, e.msg);
    pos_make(r->pos, m);
    if (++r->nply == r->plies) {
        pos_copy(r->cut, r->pos);
        r->have_cut = true;
    }
    return true;
}

/* Ends the current game: its position at the cut, or its last, goes into the book. */
static bool pgn_end(PgnReader *r) {
    if (!r->open) return true;
    r->open = false;
    if (!r->ready && !pgn_start(r)) return false;
    CvError e = {{0}};
    if (!r->add(r->ctx, r->have_cut ? r->cut : r->pos, &e))
        return pgn_fail(r, r->game_line, "after ply %d: %s", r->have_cut ? r->plies : r->nply,
                        e.msg);
    return true;
}

/* Skips a variation ( ... ), nested ones and comments inside it included. */
static bool pgn_variation(PgnReader *r) {
    int line = r->line, depth = 0;
    do {
        if (!pgn_skip(r)) return false;
        if (!*r->s) return pgn_fail(r, line, "variation '(' not closed");
        depth += (*r->s == '(') - (*r->s == ')');
        r->s++;
    } while (depth > 0);
    return true;
}

/* Whether t is a game result. */
static bool pgn_is_result(const char *t) {
    return strcmp(t, "1-0") == 0 || strcmp(t, "0-1") == 0 || strcmp(t, "1/2-1/2") == 0 ||
           strcmp(t, "*") == 0;
}

/* Reads one movetext token at r->s: a result ends the game, NAGs, annotations, e.p. marks
 * and move numbers are skipped, anything else is a move. */
static bool pgn_token(PgnReader *r) {
    char t[PGN_TOKEN_SIZE];
    size_t n = 0;
    int line = r->line;
    while (*r->s && !isspace((unsigned char)*r->s) && !strchr("[](){};", *r->s)) {
        if (n == sizeof t - 1) return pgn_fail(r, line, "token '%.20s...' too long", t);
        t[n++] = *r->s++;
        t[n] = 0;
    }
    t[n] = 0;
    if (pgn_is_result(t)) return pgn_end(r);
    if (t[0] == '$' || strspn(t, "!?") == n || strcmp(t, "e.p.") == 0) return true;
    const char *m = t + strspn(t, "0123456789");
    if (m > t && *m == '.') m += strspn(m, ".");
    else if (*m == '.' && strspn(m, ".") == strlen(m)) m += strlen(m); /* "..." */
    else m = t;
    if (!*m) return true;
    if (!r->open) pgn_begin(r);
    r->moves = true;
    return pgn_move(r, m, line);
}

bool book_pgn_read(const char *text, size_t len, const char *path, const Variant *v, int plies,
                   BookAdd add, void *ctx, CvError *err) {
    PgnReader r = {.s = text,
                   .line = 1,
                   .path = path,
                   .v = v,
                   .plies = plies,
                   .add = add,
                   .ctx = ctx,
                   .err = err};
    if (len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0) r.s += 3; /* a UTF-8 byte order mark */
    if (*r.s == '%')
        while (*r.s && *r.s != '\n') r.s++;
    r.pos = malloc(sizeof *r.pos);
    r.cut = malloc(sizeof *r.cut);
    bool ok = r.pos && r.cut;
    if (!ok) snprintf(err->msg, sizeof err->msg, "out of memory");
    while (ok && (ok = pgn_skip(&r)) && *r.s) {
        if (*r.s == '[') {
            if (r.open && r.moves) ok = pgn_end(&r); /* a game without a result */
            if (ok && !r.open) pgn_begin(&r);
            ok = ok && pgn_tag(&r);
        } else if (*r.s == '(') ok = pgn_variation(&r);
        else if (*r.s == ')' || *r.s == ']' || *r.s == '}')
            ok = pgn_fail(&r, r.line, "'%c' without its opening", *r.s);
        else ok = pgn_token(&r);
    }
    if (ok) ok = pgn_end(&r);
    if (ok && r.game == 0) {
        snprintf(err->msg, sizeof err->msg, "%.200s holds no game", path);
        ok = false;
    }
    free(r.pos);
    free(r.cut);
    return ok;
}
