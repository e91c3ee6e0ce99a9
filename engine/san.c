/* san.c - Standard Algebraic Notation for every variant: a writer (piece letter, the
 * least disambiguation that makes the text unique among the legal moves, x, target,
 * =promotion, + or #) and a reader that matches a token against the legal moves,
 * tolerating what PGN files out there write (suffixes, 0-0, missing or extra
 * disambiguation, promotion with or without '=', long algebraic, chessvar's own notation).
 *
 * The variants' extra moves, where SAN has no standard:
 *   drop                 X@e4           (as crazyhouse)
 *   Switching swap       Sb1c1, Sb7c8q  (as chessvar's notation)
 *   intermediate capture Nxf7-e9, Cxb2xc3 (a capture on the way, then - or x and the
 *                        target; Supremo's Super Knight and Commando)
 *   castling             O-O toward the h-file, O-O-O toward the a-file (either monarch) */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "position.h"

/* Disambiguation parts of a written move. */
enum { SAN_FILE = 1, SAN_RANK = 2 };

/* Whether piece type t is written without a letter (the pawn, FEN letter P). */
static bool san_is_pawn(const Position *p, int t) { return p->var->pieces[t].letter == 'P'; }

/* Whether m takes a piece on its target square (e.p. included). */
static bool san_takes_on_target(const Position *p, Move m) {
    int k = MOVE_KIND(m), pc = p->board[MOVE_TO(m)];
    if (k == MK_EP) return true;
    if (k == MK_DROP || k == MK_SWITCH || k == MK_CASTLE) return false;
    return pc != PC_EMPTY && PC_COLOR(pc) != p->side;
}

/* Whether m is written as a board move (piece letter, squares): not castling, a drop or a
 * switch. */
static bool san_is_board_move(Move m) {
    int k = MOVE_KIND(m);
    return k != MK_CASTLE && k != MK_DROP && k != MK_SWITCH;
}

/* The text of m without check suffix, with the disambiguation parts dis (SAN_*). */
static int san_text(const Position *p, Move m, int dis, char *buf) {
    int from = MOVE_FROM(m), to = MOVE_TO(m), len = 0;
    switch (MOVE_KIND(m)) {
    case MK_CASTLE: return sprintf(buf, "%s", sq_file(p, to) > sq_file(p, from) ? "O-O" : "O-O-O");
    case MK_DROP:
    case MK_SWITCH: return move_to_str(p, m, buf);
    default: break;
    }
    int type = PC_TYPE(p->board[from]);
    bool takes = san_takes_on_target(p, m);
    if (san_is_pawn(p, type)) {
        if (takes || MOVE_MID(m) != NO_SQ) dis |= SAN_FILE;
    } else buf[len++] = p->var->pieces[type].letter;
    if (dis & SAN_FILE) buf[len++] = (char)('a' + sq_file(p, from));
    if (dis & SAN_RANK) len += sprintf(buf + len, "%d", sq_rank(p, from) + 1);
    if (MOVE_MID(m) != NO_SQ) {
        buf[len++] = 'x';
        len += sq_to_str(p, MOVE_MID(m), buf + len);
        buf[len++] = takes ? 'x' : '-';
    } else if (takes) buf[len++] = 'x';
    len += sq_to_str(p, to, buf + len);
    if (MOVE_PROMO(m)) len += sprintf(buf + len, "=%c", p->var->pieces[MOVE_PROMO(m)].letter);
    buf[len] = 0;
    return len;
}

/* Writes m (legal in pos) in SAN; pos is unchanged when it returns. */
int move_to_san(Position *p, Move m, char *buf) {
    Move list[MAX_MOVES];
    int n = pos_legal_moves(p, list), len;
    char mine[MOVE_SAN_SIZE], other[MOVE_SAN_SIZE];
    san_text(p, m, 0, mine);
    /* the legal moves that read the same without disambiguation */
    bool same_from = false, same_file = false, same_rank = false, clash = false;
    for (int i = 0; i < n; i++) {
        if (list[i] == m) continue;
        san_text(p, list[i], 0, other);
        if (strcmp(mine, other) != 0) continue;
        int a = MOVE_FROM(m), b = MOVE_FROM(list[i]);
        clash = true;
        same_from |= a == b;
        same_file |= sq_file(p, a) == sq_file(p, b);
        same_rank |= sq_rank(p, a) == sq_rank(p, b);
    }
    if (!clash) len = san_text(p, m, 0, buf);
    else if (same_from || !san_is_board_move(m)) /* no SAN tells them apart: chessvar's own */
        len = move_to_str(p, m, buf);
    else
        len = san_text(p, m,
                       !same_file   ? SAN_FILE
                       : !same_rank ? SAN_RANK
                                    : SAN_FILE | SAN_RANK,
                       buf);
    pos_make(p, m);
    if (pos_in_check(p)) buf[len++] = pos_legal_moves(p, list) ? '+' : '#';
    pos_unmake(p);
    buf[len] = 0;
    return len;
}

/* A token taken apart: what a board move's text says about the move. */
typedef struct SanParts {
    int type;       /* moving piece type */
    int file, rank; /* of the from square, -1 if not given */
    int mid, to;    /* squares (mid NO_SQ if none given) */
    int promo;      /* type, 0 if none */
} SanParts;

/* The piece type of letter c (either case), 0 if the variant has none. */
static int san_type_of(const Position *p, char c) {
    unsigned char u = (unsigned char)toupper((unsigned char)c);
    return u < 128 ? p->var->type_of_letter[u] : 0;
}

/* Reads a from-square hint (file letter, rank number, both or nothing) that fills s
 * exactly; false if it does not. */
static bool san_hint(const Position *p, const char *s, SanParts *sp) {
    if (*s >= 'a' && *s < 'a' + p->width) sp->file = *s++ - 'a';
    if (*s >= '1' && *s <= '9') {
        int r = *s++ - '0';
        if (*s >= '0' && *s <= '9') r = 10 * r + (*s++ - '0');
        if (r > p->height) return false;
        sp->rank = r - 1;
    }
    return *s == 0;
}

/* Takes a board move's text apart: [Letter][hint][x][mid(x|-)]to[=Promo|promo]; false if
 * it is not of that form. */
static bool san_parse(const Position *p, char *s, SanParts *sp) {
    *sp = (SanParts){.type = p->var->type_of_letter['P'], .file = -1, .rank = -1, .mid = NO_SQ};
    if (isupper((unsigned char)s[0])) {
        if (!(sp->type = san_type_of(p, s[0]))) return false;
        s++;
    }
    size_t n = strlen(s);
    if (n >= 2 && s[n - 2] == '=') { /* =Q (or =q) */
        if (!(sp->promo = san_type_of(p, s[n - 1]))) return false;
        s[n -= 2] = 0;
    } else if (n >= 1 && isalpha((unsigned char)s[n - 1])) { /* Q or q after the target */
        if (!(sp->promo = san_type_of(p, s[n - 1]))) return false;
        s[--n] = 0;
    }
    size_t j = n; /* the target: a file letter and the digits that end the text */
    while (j > 0 && isdigit((unsigned char)s[j - 1])) j--;
    if (j == 0 || j == n || sq_from_str(p, s + j - 1, &sp->to) != (int)(n - j + 1)) return false;
    s[--j] = 0;
    if (j > 0 && (s[j - 1] == 'x' || s[j - 1] == '-' || s[j - 1] == ':')) s[--j] = 0;
    /* an intermediate capture: x and a square right before the target */
    size_t k = j;
    while (k > 0 && isdigit((unsigned char)s[k - 1])) k--;
    if (k >= 2 && k < j && s[k - 2] == 'x' &&
        sq_from_str(p, s + k - 1, &sp->mid) == (int)(j - k + 1))
        s[k - 2] = 0;
    return san_hint(p, s, sp);
}

/* Whether legal move m fits the parts. */
static bool san_fits(const Position *p, Move m, const SanParts *sp) {
    int from = MOVE_FROM(m);
    return san_is_board_move(m) && PC_TYPE(p->board[from]) == sp->type && MOVE_TO(m) == sp->to &&
           MOVE_MID(m) == sp->mid && MOVE_PROMO(m) == sp->promo &&
           (sp->file < 0 || sq_file(p, from) == sp->file) &&
           (sp->rank < 0 || sq_rank(p, from) == sp->rank);
}

/* The one legal move the token t describes (SAN or a variant of it), else MOVE_NONE;
 * *count gets the number of legal moves that fit it. */
static Move san_match(Position *p, char *t, int *count) {
    Move list[MAX_MOVES], found = MOVE_NONE;
    int n = pos_legal_moves(p, list);
    *count = 0;
    bool castle = strcmp(t, "O-O") == 0 || strcmp(t, "O-O-O") == 0 || strcmp(t, "0-0") == 0 ||
                  strcmp(t, "0-0-0") == 0;
    char *at = strchr(t, '@');
    SanParts sp;
    bool board = !castle && !at && san_parse(p, t, &sp);
    int dtype = at && at == t + 1 ? san_type_of(p, t[0]) : 0, dsq = -1;
    if (dtype && sq_from_str(p, at + 1, &dsq) != (int)strlen(at + 1)) dsq = -1;
    for (int i = 0; i < n; i++) {
        Move m = list[i];
        int from = MOVE_FROM(m), to = MOVE_TO(m);
        bool fits = castle ? MOVE_KIND(m) == MK_CASTLE &&
                                 (sq_file(p, to) > sq_file(p, from)) == (strlen(t) == 3)
                    : at    ? MOVE_KIND(m) == MK_DROP && MOVE_PROMO(m) == dtype && to == dsq
                    : board ? san_fits(p, m, &sp)
                            : false;
        if (fits && (*count)++ == 0) found = m;
    }
    return *count == 1 ? found : MOVE_NONE;
}

/* Reads a move in SAN, or in chessvar's notation; MOVE_NONE with err naming the token and
 * why (unknown, illegal or ambiguous). */
Move move_from_san(Position *p, const char *text, CvError *err) {
    char t[MOVE_SAN_SIZE];
    size_t n = strlen(text);
    if (n == 0 || n >= sizeof t) {
        if (err) snprintf(err->msg, sizeof err->msg, "cannot read move '%.60s'", text);
        return MOVE_NONE;
    }
    memcpy(t, text, n + 1);
    if (n > 4 && strcmp(t + n - 4, "e.p.") == 0) t[n -= 4] = 0;
    while (n > 0 && strchr("+#!?", t[n - 1])) t[--n] = 0;
    Move m = n ? move_from_str(p, t, NULL) : MOVE_NONE;
    if (m != MOVE_NONE) return m;
    int count = 0;
    if (n) m = san_match(p, t, &count);
    if (m == MOVE_NONE && err)
        snprintf(err->msg, sizeof err->msg, "%s move '%.60s' for %s to move",
                 count > 1 ? "ambiguous" : "illegal or unknown", text,
                 p->side == WHITE ? "white" : "black");
    return m;
}
