/* fen.c - the generic FEN reader and writer. Variants extend it through the hooks of
 * VariantOps (castling tokens, a 7th field, validation); see chessvar.h. */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "position.h"
#include "variant.h"

/* Formats an error message into err and returns false, for one-line error returns. */
static bool fen_fail(CvError *err, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    if (err) vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
    return false;
}

/* Reads the board field (and a bracketed hand right after it). */
static bool fen_parse_board(Position *p, const char *field, CvError *err) {
    const Variant *v = p->var;
    int rank = p->height - 1, file = 0;
    const char *s = field;
    for (; *s && *s != '['; s++) {
        char c = *s;
        int rank_no = rank + 1;
        if (c == '/') {
            if (file != p->width)
                return fen_fail(err, "bad FEN: rank %d has %d squares, expected %d (field 1)",
                                rank_no, file, p->width);
            if (--rank < 0)
                return fen_fail(err, "bad FEN: more than %d ranks (field 1)", p->height);
            file = 0;
        } else if (isdigit((unsigned char)c)) {
            int n = 0;
            for (; isdigit((unsigned char)*s); s++)
                if (n <= MAX_SQ) n = n * 10 + (*s - '0'); /* a long run must not overflow */
            s--;
            if (n < 1 || file + n > p->width)
                return fen_fail(err, "bad FEN: empty run %d overflows rank %d (field 1)", n,
                                rank_no);
            file += n;
        } else {
            int t = (unsigned char)c < 128 ? v->type_of_letter[(unsigned char)c] : 0;
            if (!t)
                return fen_fail(err, "bad FEN: unknown piece letter '%c' on rank %d (field 1)", c,
                                rank_no);
            if (file >= p->width)
                return fen_fail(err, "bad FEN: rank %d has more than %d squares (field 1)", rank_no,
                                p->width);
            int color = isupper((unsigned char)c) ? WHITE : BLACK;
            pos_put(p, sq_make(p, file, rank), PC_MAKE(color, t));
            file++;
        }
    }
    if (rank != 0)
        return fen_fail(err, "bad FEN: %d ranks, expected %d (field 1)", p->height - rank,
                        p->height);
    if (file != p->width)
        return fen_fail(err, "bad FEN: rank 1 has %d squares, expected %d (field 1)", file,
                        p->width);
    if (*s == '[') {
        if (!(v->rules & RULE_DROPS))
            return fen_fail(err, "bad FEN: %s has no holdings '[...]' (field 1)", v->name);
        for (s++; *s && *s != ']'; s++) {
            int t = (unsigned char)*s < 128 ? v->type_of_letter[(unsigned char)*s] : 0;
            if (!t || !(v->pieces[t].flags & PF_DROPPABLE))
                return fen_fail(err, "bad FEN: '%c' cannot be held in hand (field 1, holdings)",
                                *s);
            int color = isupper((unsigned char)*s) ? WHITE : BLACK;
            pos_set_hand(p, color, t, p->hand[color][t] + 1);
        }
        if (*s != ']') return fen_fail(err, "bad FEN: holdings not closed by ']' (field 1)");
        if (s[1]) return fen_fail(err, "bad FEN: text after holdings ']' (field 1)");
    }
    return true;
}

/* Orthodox castling field: KQkq or '-', each right requiring king and rook at home. */
static bool fen_parse_castling_orthodox(Position *p, const char *f, CvError *err) {
    if (strcmp(f, "-") == 0) return true;
    if (!(p->var->rules & RULE_CASTLING))
        return fen_fail(err, "bad FEN: %s has no castling, field 3 must be '-'", p->var->name);
    uint32_t rights = 0;
    for (const char *s = f; *s; s++) {
        int bit, color, rook_file;
        switch (*s) {
        case 'K':
            bit = CASTLE_WK;
            color = WHITE;
            rook_file = 7;
            break;
        case 'Q':
            bit = CASTLE_WQ;
            color = WHITE;
            rook_file = 0;
            break;
        case 'k':
            bit = CASTLE_BK;
            color = BLACK;
            rook_file = 7;
            break;
        case 'q':
            bit = CASTLE_BQ;
            color = BLACK;
            rook_file = 0;
            break;
        default:
            return fen_fail(err, "bad FEN: castling field has '%c' (field 3, character %d)", *s,
                            (int)(s - f) + 1);
        }
        if (rights & (uint32_t)bit)
            return fen_fail(err, "bad FEN: castling right '%c' repeated (field 3)", *s);
        int home = color == WHITE ? 0 : p->height - 1;
        if (!pos_piece_has(p, sq_make(p, 4, home), color, PF_ROYAL))
            return fen_fail(
                err,
                "bad FEN: castling right '%c' but the king is not on its home square (field 3)",
                *s);
        if (!pos_piece_has(p, sq_make(p, rook_file, home), color, PF_CASTLE_ROOK))
            return fen_fail(err, "bad FEN: castling right '%c' but no rook in the corner (field 3)",
                            *s);
        rights |= (uint32_t)bit;
    }
    pos_set_castle(p, rights);
    return true;
}

/* E.p. field: '-' or a square just crossed by an ordinary pawn of the side not to move. */
static bool fen_parse_ep(Position *p, const char *f, CvError *err) {
    if (strcmp(f, "-") == 0) return true;
    int sq;
    if (!(p->var->rules & RULE_EP))
        return fen_fail(err, "bad FEN: %s has no en passant, field 4 must be '-'", p->var->name);
    if (sq_from_str(p, f, &sq) != (int)strlen(f))
        return fen_fail(err, "bad FEN: e.p. field '%s' is not a square (field 4)", f);
    int them = p->side ^ 1, fwd = them == WHITE ? 1 : -1;
    int r = sq_rank(p, sq), fl = sq_file(p, sq);
    int beyond_r = r + fwd, behind_r = r - fwd;
    if (beyond_r < 0 || beyond_r >= p->height || behind_r < 0 || behind_r >= p->height)
        return fen_fail(err, "bad FEN: e.p. square %s is on an impossible rank (field 4)", f);
    int beyond = p->board[sq_make(p, fl, beyond_r)];
    if (p->board[sq] || p->board[sq_make(p, fl, behind_r)] || !beyond || PC_COLOR(beyond) != them ||
        !(pos_def(p, beyond)->flags & PF_PAWN))
        return fen_fail(
            err, "bad FEN: e.p. square %s has no pawn that just double-stepped past it (field 4)",
            f);
    int start = them == WHITE ? p->var->pawn_start_rank[WHITE] : p->var->pawn_start_rank[BLACK];
    int first = them == WHITE ? 0 : p->height - 1;
    if (behind_r != start && !((p->var->rules & RULE_PAWN_FIRST_RANK) && behind_r == first))
        return fen_fail(
            err, "bad FEN: e.p. square %s is not just beyond a pawn start rank (field 4)", f);
    p->ep = (uint8_t)sq;
    return true;
}

/* Parses a non-negative decimal counter field. */
static bool fen_parse_counter(const char *f, int field, long min, long *out, CvError *err) {
    char *end;
    if (!isdigit((unsigned char)f[0]))
        return fen_fail(err, "bad FEN: counter '%s' is not a number (field %d)", f, field);
    long n = strtol(f, &end, 10);
    if (*end || n < min || n > 100000)
        return fen_fail(err, "bad FEN: counter '%s' out of range (field %d)", f, field);
    *out = n;
    return true;
}

/* Reads a FEN into pos for variant v; on error fills err and returns false. */
bool pos_from_fen(Position *p, const Variant *v, const char *fen, CvError *err) {
    char buf[512];
    char *fields[8];
    int nf = 0;
    if (strlen(fen) >= sizeof buf)
        return fen_fail(err, "bad FEN: longer than %d characters", (int)sizeof buf - 1);
    strcpy(buf, fen);
    /* split by hand: strtok keeps hidden state, and threads read FENs at the same time */
    for (char *s = buf + strspn(buf, " \t\r\n"); *s; s += strspn(s, " \t\r\n")) {
        if (nf == 7) return fen_fail(err, "bad FEN: more than 7 fields");
        fields[nf++] = s;
        s += strcspn(s, " \t\r\n");
        if (*s) *s++ = 0;
    }
    if (nf < 4)
        return fen_fail(err, "bad FEN: %d fields, need at least 4 (board side castling e.p.)", nf);
    pos_clear(p, v);
    if (!fen_parse_board(p, fields[0], err)) return false;
    if (strcmp(fields[1], "w") == 0) p->side = WHITE;
    else if (strcmp(fields[1], "b") == 0) p->side = BLACK;
    else return fen_fail(err, "bad FEN: side to move '%s' is not 'w' or 'b' (field 2)", fields[1]);
    if (v->ops->fen_parse_castling) {
        if (!v->ops->fen_parse_castling(p, fields[2], err)) return false;
    } else if (!fen_parse_castling_orthodox(p, fields[2], err)) {
        return false;
    }
    if (!fen_parse_ep(p, fields[3], err)) return false;
    long hm = 0, fm = 1;
    if (nf >= 5 && !fen_parse_counter(fields[4], 5, 0, &hm, err)) return false;
    if (nf >= 6 && !fen_parse_counter(fields[5], 6, 1, &fm, err)) return false;
    p->halfmove = (uint16_t)hm;
    p->fullmove = (uint32_t)fm;
    if (v->ops->fen_parse_extra) {
        if (!v->ops->fen_parse_extra(p, nf >= 7 ? fields[6] : NULL, err)) return false;
    } else if (nf >= 7) {
        return fen_fail(err, "bad FEN: unexpected 7th field '%s'", fields[6]);
    }
    for (int s = 0; s < p->nsq; s++) {
        int pc = p->board[s];
        if (!pc) continue;
        uint32_t fl = pos_def(p, pc)->flags;
        int r = sq_rank(p, s), last = PC_COLOR(pc) == WHITE ? p->height - 1 : 0;
        bool promo_rank = (fl & PF_PROMOTES) && r == last;
        bool first_rank =
            (fl & PF_PAWN) && r == p->height - 1 - last && !(v->rules & RULE_PAWN_FIRST_RANK);
        if (!promo_rank && !first_rank) continue;
        char sq[4]; /* named only in the message: sprintf per piece was most of a parse */
        sq_to_str(p, s, sq);
        if (promo_rank)
            return fen_fail(err, "bad FEN: '%c' on %s stands on its last rank (field 1)",
                            pos_def(p, pc)->letter, sq);
        return fen_fail(err, "bad FEN: pawn on %s stands on its own first rank (field 1)", sq);
    }
    if (v->ops->validate && !v->ops->validate(p, err)) return false;
    if (v->ops->royal_attacked(p, p->side ^ 1))
        return fen_fail(err, "bad FEN: the side not to move (%s) is in check",
                        p->side == WHITE ? "black" : "white");
    p->ply = 0;
    uint8_t ep = p->ep; /* the e.p. square stays only if a capture on it is legal */
    p->ep = NO_SQ;
    p->key = pos_compute_key(p);
    p->ep = ep;
    pos_ep_settle(p);
    return true;
}

/* Writes the position as FEN; returns its length. */
int pos_to_fen(const Position *p, char *out, size_t n) {
    char buf[512];
    int len = 0;
    for (int r = p->height - 1; r >= 0; r--) {
        int empty = 0;
        for (int f = 0; f < p->width; f++) {
            int pc = p->board[sq_make(p, f, r)];
            if (!pc) {
                empty++;
                continue;
            }
            if (empty) len += sprintf(buf + len, "%d", empty);
            empty = 0;
            char c = pos_def(p, pc)->letter;
            buf[len++] = PC_COLOR(pc) == WHITE ? c : (char)tolower((unsigned char)c);
        }
        if (empty) len += sprintf(buf + len, "%d", empty);
        if (r) buf[len++] = '/';
    }
    if (p->var->rules & RULE_DROPS) {
        buf[len++] = '[';
        for (int c = 0; c < 2; c++)
            for (int t = 1; t <= p->var->npt; t++)
                for (int k = 0; k < p->hand[c][t]; k++) {
                    char l = p->var->pieces[t].letter;
                    buf[len++] = c == WHITE ? l : (char)tolower((unsigned char)l);
                }
        buf[len++] = ']';
    }
    len += sprintf(buf + len, " %c ", p->side == WHITE ? 'w' : 'b');
    if (p->var->ops->fen_format_castling) {
        len += p->var->ops->fen_format_castling(p, buf + len);
    } else {
        int start = len;
        if (p->castle & CASTLE_WK) buf[len++] = 'K';
        if (p->castle & CASTLE_WQ) buf[len++] = 'Q';
        if (p->castle & CASTLE_BK) buf[len++] = 'k';
        if (p->castle & CASTLE_BQ) buf[len++] = 'q';
        if (len == start) buf[len++] = '-';
    }
    buf[len++] = ' ';
    if (p->ep != NO_SQ) len += sq_to_str(p, p->ep, buf + len);
    else buf[len++] = '-';
    len += sprintf(buf + len, " %d %u", p->halfmove, p->fullmove);
    if (p->var->ops->fen_format_extra) {
        char extra[128];
        int k = p->var->ops->fen_format_extra(p, extra);
        if (k > 0) len += sprintf(buf + len, " %.*s", k, extra);
    }
    buf[len] = 0;
    snprintf(out, n, "%s", buf);
    return len;
}
