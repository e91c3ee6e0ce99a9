/* epd.c - reading perft suites: `FEN ;D1 n ;D2 n ...` with an optional `;variant NAME`. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chessvar.h"

/* Copies s[0..n) trimmed of surrounding white space into out (size cap). */
static void epd_trim(const char *s, size_t n, char *out, size_t cap) {
    while (n && isspace((unsigned char)*s)) s++, n--;
    while (n && isspace((unsigned char)s[n - 1])) n--;
    if (n >= cap) n = cap - 1;
    memcpy(out, s, n);
    out[n] = 0;
}

int epd_parse_line(const char *line, EpdEntry *e, CvError *err) {
    memset(e, 0, sizeof *e);
    const char *s = line;
    while (isspace((unsigned char)*s)) s++;
    if (!*s || *s == '#') return 0;
    const char *semi = strchr(s, ';');
    size_t fen_len = semi ? (size_t)(semi - s) : strlen(s);
    if (fen_len >= sizeof e->fen) {
        snprintf(err->msg, sizeof err->msg, "FEN longer than %d characters",
                 (int)sizeof e->fen - 1);
        return -1;
    }
    epd_trim(s, fen_len, e->fen, sizeof e->fen);
    if (!semi) {
        snprintf(err->msg, sizeof err->msg, "no ';D<depth> <nodes>' operations after the FEN");
        return -1;
    }
    for (const char *op = semi; op && *op == ';';) {
        const char *next = strchr(op + 1, ';');
        char buf[96];
        epd_trim(op + 1, next ? (size_t)(next - op - 1) : strlen(op + 1), buf, sizeof buf);
        op = next;
        if (!buf[0]) continue;
        if (strncmp(buf, "variant ", 8) == 0) {
            epd_trim(buf + 8, strlen(buf + 8), e->variant, sizeof e->variant);
            continue;
        }
        char *end;
        if (buf[0] != 'D' || !isdigit((unsigned char)buf[1])) {
            snprintf(err->msg, sizeof err->msg,
                     "unknown operation '%s' (expected 'D<depth> <nodes>' or 'variant NAME')", buf);
            return -1;
        }
        long d = strtol(buf + 1, &end, 10);
        if (d < 1 || d > 30 || !isspace((unsigned char)*end)) {
            snprintf(err->msg, sizeof err->msg, "bad depth in '%s'", buf);
            return -1;
        }
        while (isspace((unsigned char)*end)) end++;
        char *end2;
        if (!isdigit((unsigned char)*end)) {
            snprintf(err->msg, sizeof err->msg, "bad node count in '%s'", buf);
            return -1;
        }
        unsigned long long nodes = strtoull(end, &end2, 10);
        if (*end2) {
            snprintf(err->msg, sizeof err->msg, "bad node count in '%s'", buf);
            return -1;
        }
        if (e->ndepth == EPD_MAX_DEPTHS) {
            snprintf(err->msg, sizeof err->msg, "more than %d depths", EPD_MAX_DEPTHS);
            return -1;
        }
        e->depth[e->ndepth] = (int)d;
        e->nodes[e->ndepth] = nodes;
        e->ndepth++;
    }
    if (!e->ndepth) {
        snprintf(err->msg, sizeof err->msg, "no ';D<depth> <nodes>' operations after the FEN");
        return -1;
    }
    return 1;
}
