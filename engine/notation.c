/* notation.c - move text (UCI long algebraic by default, variant hooks otherwise) and the
 * one order of moves. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "position.h"

/* from, to and a lower-case promotion letter; drops as `X@e4`. */
int move_to_str_uci(const Position *p, Move m, char *buf) {
    int len = 0;
    if (MOVE_KIND(m) == MK_DROP) {
        buf[len++] = p->var->pieces[MOVE_PROMO(m)].letter;
        buf[len++] = '@';
        len += sq_to_str(p, MOVE_TO(m), buf + len);
        return len;
    }
    len += sq_to_str(p, MOVE_FROM(m), buf + len);
    len += sq_to_str(p, MOVE_TO(m), buf + len);
    if (MOVE_PROMO(m))
        buf[len++] = (char)tolower((unsigned char)p->var->pieces[MOVE_PROMO(m)].letter);
    buf[len] = 0;
    return len;
}

/* The move's text in the variant's notation; buf holds at least 16 bytes. */
int move_to_str(const Position *p, Move m, char *buf) {
    int len =
        p->var->ops->move_to_str ? p->var->ops->move_to_str(p, m, buf) : move_to_str_uci(p, m, buf);
    buf[len] = 0;
    return len;
}

/* Matches text against every legal move's notation; names the failure. */
Move move_from_str_generic(Position *p, const char *s, CvError *err) {
    Move list[MAX_MOVES];
    char buf[24];
    int n = p->var->ops->gen_legal(p, list);
    for (int i = 0; i < n; i++) {
        move_to_str(p, list[i], buf);
        if (strcmp(buf, s) == 0) return list[i];
    }
    if (err)
        snprintf(err->msg, sizeof err->msg, "illegal or unknown move '%s' for %s to move", s,
                 p->side == WHITE ? "white" : "black");
    return MOVE_NONE;
}

/* Parses move text in the variant's notation; MOVE_NONE and err on failure. */
Move move_from_str(Position *p, const char *s, CvError *err) {
    return p->var->ops->move_from_str ? p->var->ops->move_from_str(p, s, err)
                                      : move_from_str_generic(p, s, err);
}

/* Orders moves by their encoding. */
int move_cmp(const void *a, const void *b) {
    Move x = *(const Move *)a, y = *(const Move *)b;
    return x < y ? -1 : x > y;
}
