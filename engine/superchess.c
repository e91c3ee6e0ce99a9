/* superchess.c - Superchess with Exchess set 2 (8x8): the pieces as data, the tables built
 * from them, castling per monarch-rook pair, make/unmake with reserves and the promotion
 * pool, the FEN hooks and the variant record. The status effects (frozen, neutralised,
 * immune), the attack test and the fast generator are in superchess_gen.c; the slow
 * mailbox walker that follows the rules text literally is in superchess_ref.c. */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "superchess.h"

/* ---------------------------------------------------------------- pieces as data */

/* The piece ids of superchess.h keep the orthodox ids for the orthodox pieces. */
_Static_assert((int)SC_P == PAWN && (int)SC_N == KNIGHT && (int)SC_B == BISHOP &&
                   (int)SC_R == ROOK && (int)SC_Q == QUEEN && (int)SC_K == KING,
               "Superchess keeps the orthodox piece ids");

/* The 2-step, lame (middle square must be empty) or leaping. */
#define LAME_TWO_STEPS(mode)                                                                       \
    LAME1(2, 0, mode, 1, 0), LAME1(-2, 0, mode, -1, 0), LAME1(0, 2, mode, 0, 1),                   \
        LAME1(0, -2, mode, 0, -1), LAME1(2, 2, mode, 1, 1), LAME1(2, -2, mode, 1, -1),             \
        LAME1(-2, 2, mode, -1, 1), LAME1(-2, -2, mode, -1, -1)
#define LEAP_TWO_STEPS                                                                             \
    LEAP(2, 0), LEAP(-2, 0), LEAP(0, 2), LEAP(0, -2), LEAP(2, 2), LEAP(2, -2), LEAP(-2, 2),        \
        LEAP(-2, -2)
/* Lame knight: for (2sx, sy) the crossed squares are (sx, 0) and (sx, sy); for (sx, 2sy)
 * they are (0, sy) and (sx, sy). */
#define LAME_KNIGHT(mode)                                                                          \
    LAME2(2, 1, mode, 1, 0, 1, 1), LAME2(2, -1, mode, 1, 0, 1, -1),                                \
        LAME2(-2, 1, mode, -1, 0, -1, 1), LAME2(-2, -1, mode, -1, 0, -1, -1),                      \
        LAME2(1, 2, mode, 0, 1, 1, 1), LAME2(-1, 2, mode, 0, 1, -1, 1),                            \
        LAME2(1, -2, mode, 0, -1, 1, -1), LAME2(-1, -2, mode, 0, -1, -1, -1)
#define DISTANCE_TWO_M(mode)                                                                       \
    LEAP_M(2, -2, mode), LEAP_M(2, -1, mode), LEAP_M(2, 0, mode), LEAP_M(2, 1, mode),              \
        LEAP_M(2, 2, mode), LEAP_M(-2, -2, mode), LEAP_M(-2, -1, mode), LEAP_M(-2, 0, mode),       \
        LEAP_M(-2, 1, mode), LEAP_M(-2, 2, mode), LEAP_M(-1, 2, mode), LEAP_M(0, 2, mode),         \
        LEAP_M(1, 2, mode), LEAP_M(-1, -2, mode), LEAP_M(0, -2, mode), LEAP_M(1, -2, mode)

#define PAWNISH (PF_PROMOTES | PF_ORIENTED | PF_PAWN_PIECE)

/* Per-side inventory of the promotion-pool types (one standard set plus set 2). */
static const uint8_t pool_inventory[SC_NPT + 1] = {
    [SC_Q] = 1, [SC_R] = 2, [SC_B] = 2, [SC_N] = 2, [SC_M] = 1,
    [SC_F] = 1, [SC_D] = 1, [SC_G] = 1, [SC_O] = 1};

/* ---------------------------------------------------------------- tables */

static ScTables sc_tables;

/* Castling token bits: Ka, Kh, Ea, Eh for White, then the same for Black. */
enum { CT_KA = 1, CT_KH = 2, CT_EA = 4, CT_EH = 8 };
static const char *const castle_token[8] = {"Ka", "Kh", "Ea", "Eh", "ka", "kh", "ea", "eh"};

/* Lame mask of a leap from (f, r); false when a lame square is off the board. */
static bool comp_lame_mask(const PieceDef *d, const MoveComp *mc, int c, int f, int r,
                           Bitboard *mask) {
    *mask = 0;
    for (int i = 0; i < mc->nlame; i++) {
        int lf = f + mc->lame[i][0], lr = r + comp_dr(d, c, mc->lame[i][1]);
        if (!on_board(lf, lr)) return false;
        *mask |= 1ull << (lr * 8 + lf);
    }
    return true;
}

/* Builds the attack and move tables from the piece definitions, once, at Superchess's first
 * lookup. */
static void sc_init(Variant *v) {
    ScTables *tb = &sc_tables;
    memset(tb, 0, sizeof *tb);
    uint32_t nl = 0, nr = 0;
    for (int c = 0; c < 2; c++)
        for (int t = 1; t <= SC_NPT; t++) {
            const PieceDef *d = &v->pieces[t];
            for (int s = 0; s < 64; s++) {
                tb->lame_at[c][t][s] = nl;
                int f = s % 8, r = s / 8;
                for (int i = 0; i < d->ncomp; i++) {
                    const MoveComp *mc = &d->comp[i];
                    if (mc->kind != MC_LEAP || !comp_cond_ok(v, mc, c, s)) continue;
                    int tf = f + mc->df, tr = r + comp_dr(d, c, mc->dr);
                    Bitboard lame;
                    if (!on_board(tf, tr) || !comp_lame_mask(d, mc, c, f, r, &lame)) continue;
                    int to = tr * 8 + tf;
                    if (mc->nlame) {
                        tb->lame[nl++] = (LameStep){lame, (uint8_t)to, mc->mode};
                    } else {
                        if (mc->mode & MM_MOVE) tb->leap_move[c][t][s] |= 1ull << to;
                        if (mc->mode & MM_CAPTURE) tb->leap_cap[c][t][s] |= 1ull << to;
                    }
                }
            }
            tb->lame_at[c][t][64] = nl;
            /* Reverse capture tables: from which squares does a (c, t) piece hit q. */
            for (int q = 0; q < 64; q++) {
                tb->rlame_at[c][t][q] = nr;
                for (int s = 0; s < 64; s++) {
                    if ((tb->leap_cap[c][t][s] >> q) & 1) tb->rev_cap[c][t][q] |= 1ull << s;
                    for (uint32_t k = tb->lame_at[c][t][s]; k < tb->lame_at[c][t][s + 1]; k++)
                        if (tb->lame[k].sq == q && (tb->lame[k].mode & MM_CAPTURE)) {
                            tb->rlame[nr++] = (LameStep){tb->lame[k].lame, (uint8_t)s, MM_CAPTURE};
                            tb->rev_lame_from[c][t][q] |= 1ull << s;
                        }
                }
            }
            tb->rlame_at[c][t][64] = nr;
        }
    for (int t = 1; t <= SC_NPT; t++) {
        const PieceDef *d = &v->pieces[t];
        bool leap_capture = false;
        for (int i = 0; i < d->ncomp; i++) {
            const MoveComp *mc = &d->comp[i];
            if (mc->kind == MC_RIDE) {
                if (mc->df && mc->dr) tb->diag_rider[t] = 1;
                else tb->orth_rider[t] = 1;
            } else if (mc->mode & MM_CAPTURE) {
                leap_capture = true;
            }
        }
        uint32_t bit = 1u << t;
        if (d->flags & PF_ROYAL) tb->royal |= bit;
        if (d->flags & PF_FREEZES) tb->freezer |= bit;
        if (d->flags & PF_PACIFIES) tb->pacifier |= bit;
        if (d->flags & PF_IMMUNE_ZONE) tb->immune |= bit;
        if (d->flags & PF_NO_CAPTURE) tb->no_capture |= bit;
        if (d->flags & PF_NO_CAPTURE) continue;
        if (leap_capture) tb->attackers[tb->nattackers++] = (uint8_t)t;
        for (int c = 0; c < 2; c++)
            for (int q = 0; q < 64; q++)
                tb->rev_any[c][q] |= tb->rev_cap[c][t][q] | tb->rev_lame_from[c][t][q];
        if (tb->orth_rider[t]) tb->rook_like |= 1u << t;
        if (tb->diag_rider[t]) tb->bishop_like |= 1u << t;
    }
    /* Castling: Ka e1->c1 a1->d1, Kh e1->g1 h1->f1, Ea d1->b1 a1->c1, Eh d1->f1 h1->e1. */
    static const uint8_t spec[4][5] = {
        {SC_K, 4, 2, 0, 3}, {SC_K, 4, 6, 7, 5}, {SC_E, 3, 1, 0, 2}, {SC_E, 3, 5, 7, 4}};
    for (int c = 0; c < 2; c++)
        for (int i = 0; i < 4; i++) {
            CastleDef *cd = &tb->castles[c * 4 + i];
            int base = c == WHITE ? 0 : 56;
            cd->color = (uint8_t)c;
            cd->monarch = spec[i][0];
            cd->mfrom = (uint8_t)(base + spec[i][1]);
            cd->mto = (uint8_t)(base + spec[i][2]);
            cd->rfrom = (uint8_t)(base + spec[i][3]);
            cd->rto = (uint8_t)(base + spec[i][4]);
            cd->crossed = (uint8_t)((cd->mfrom + cd->mto) / 2);
            int lo = cd->mfrom < cd->rfrom ? cd->mfrom : cd->rfrom;
            int hi = cd->mfrom < cd->rfrom ? cd->rfrom : cd->mfrom;
            for (int s = lo + 1; s < hi; s++) cd->between |= 1ull << s;
        }
    for (int c = 0; c < 2; c++) {
        uint32_t sh = c == WHITE ? 0 : 4;
        tb->castle_clear_type[c][SC_K] = (uint32_t)(CT_KA | CT_KH) << sh;
        tb->castle_clear_type[c][SC_E] = (uint32_t)(CT_EA | CT_EH) << sh;
        tb->castle_clear_sq[c == WHITE ? 0 : 56] = (uint32_t)(CT_KA | CT_EA) << sh;
        tb->castle_clear_sq[c == WHITE ? 7 : 63] = (uint32_t)(CT_KH | CT_EH) << sh;
    }
    perft_superchess_init(v, tb);
    v->tables = tb;
}

/* ---------------------------------------------------------------- make / unmake */

/* Whether type t is a promotion-pool type (tracked in pos->pool). */
static inline bool is_pool_type(int t) { return t <= SC_NPT && pool_inventory[t] > 0; }

/* Plays m (board move, e.p., castling, drop, promotion); pushes what unmake restores. */
void sc_make(Position *p, Move m) {
    const ScTables *tb = TB(p);
    Undo *u = pos_push(p, m);
    int us = p->side, them = us ^ 1;
    int from = MOVE_FROM(m), to = MOVE_TO(m), promo = MOVE_PROMO(m), kind = MOVE_KIND(m);
    uint32_t castle = p->castle;
    if (p->ep != NO_SQ) { /* set only when in the key (pos_ep_settle) */
        p->key ^= zob_ep[p->ep];
        p->ep = NO_SQ;
    }
    p->halfmove++;
    if (kind == MK_DROP) {
        pos_set_hand(p, us, promo, p->hand[us][promo] - 1);
        pos_put8(p, to, PC_MAKE(us, promo));
        u->moved = PC_MAKE(us, promo);
        dirty_add_hand(u, us, promo, DIRTY_HAND, -1);
        dirty_set(u, 0, u->moved, NO_SQ, to);
        u->dirty.n = 1;
        p->halfmove = 0;
    } else if (kind == MK_CASTLE) {
        const CastleDef *cd =
            &tb->castles[us * 4 + (PC_TYPE(p->board[from]) == SC_E ? 2 : 0) + (to > from)];
        u->moved = p->board[from];
        dirty_set(u, 0, u->moved, from, to);
        dirty_set(u, 1, p->board[cd->rfrom], cd->rfrom, cd->rto);
        u->dirty.n = 2;
        pos_move8(p, from, to);
        pos_move8(p, cd->rfrom, cd->rto);
        castle &= ~(tb->castle_clear_type[us][cd->monarch] | tb->castle_clear_sq[cd->rfrom]);
    } else {
        int pc = p->board[from];
        u->moved = (uint8_t)pc;
        /* DirtyPiece: the mover first (its `to` cleared if it promotes), then a capture and
         * a promotion */
        dirty_set(u, 0, pc, from, promo ? NO_SQ : to);
        int n = 1;
        int capsq = kind == MK_EP ? (us == WHITE ? to - 8 : to + 8) : to;
        int cap = p->board[capsq];
        if (cap) {
            pos_remove8(p, capsq);
            u->captured = (uint8_t)cap;
            dirty_set(u, n++, cap, capsq, NO_SQ);
            if (is_pool_type(PC_TYPE(cap))) {
                pos_set_pool(p, them, PC_TYPE(cap), p->pool[them][PC_TYPE(cap)] + 1);
                dirty_add_hand(u, them, PC_TYPE(cap), DIRTY_POOL, 1);
            }
            p->halfmove = 0;
        }
        pos_move8(p, from, to);
        if (promo) {
            pos_remove8(p, to);
            pos_put8(p, to, PC_MAKE(us, promo));
            dirty_set(u, n++, PC_MAKE(us, promo), NO_SQ, to);
            if (promo == SC_X) {
                pos_set_hand(p, us, SC_X, p->hand[us][SC_X] - 1);
                dirty_add_hand(u, us, SC_X, DIRTY_HAND, -1);
            } else {
                pos_set_pool(p, us, promo, p->pool[us][promo] - 1);
                dirty_add_hand(u, us, promo, DIRTY_POOL, -1);
            }
        }
        u->dirty.n = (uint8_t)n;
        if (pos_def(p, pc)->flags & PF_PAWN_PIECE) p->halfmove = 0;
        castle &= ~(tb->castle_clear_type[us][PC_TYPE(pc)] | tb->castle_clear_sq[from] |
                    tb->castle_clear_sq[to]);
        if (kind == MK_DOUBLE) p->ep = (uint8_t)((from + to) / 2);
    }
    if (castle != p->castle) pos_set_castle(p, castle);
    if (us == BLACK) p->fullmove++;
    p->side = (uint8_t)them;
    p->key ^= zob_side;
    pos_ep_settle(p);
}

/* Takes back the last move made with sc_make. */
void sc_unmake(Position *p) {
    const ScTables *tb = TB(p);
    Undo *u = &p->stack[--p->ply];
    Move m = u->move;
    int us = p->side ^ 1, them = p->side;
    int from = MOVE_FROM(m), to = MOVE_TO(m), promo = MOVE_PROMO(m), kind = MOVE_KIND(m);
    p->side = (uint8_t)us;
    if (kind == MK_DROP) {
        pos_remove8(p, to);
        p->hand[us][promo]++;
    } else if (kind == MK_CASTLE) {
        const CastleDef *cd =
            &tb->castles[us * 4 + (PC_TYPE(u->moved) == SC_E ? 2 : 0) + (to > from)];
        pos_move8(p, cd->rto, cd->rfrom);
        pos_move8(p, to, from);
    } else {
        if (promo) {
            pos_remove8(p, to);
            pos_put8(p, to, u->moved);
            if (promo == SC_X) p->hand[us][SC_X]++;
            else p->pool[us][promo]++;
        }
        pos_move8(p, to, from);
        if (u->captured) {
            int capsq = kind == MK_EP ? (us == WHITE ? to - 8 : to + 8) : to;
            pos_put8(p, capsq, u->captured);
            if (is_pool_type(PC_TYPE(u->captured))) p->pool[them][PC_TYPE(u->captured)]--;
        }
    }
    if (us == BLACK) p->fullmove--;
    p->castle = u->castle;
    p->key = u->key;
    p->halfmove = u->halfmove;
    p->ep = u->ep;
}

/* ---------------------------------------------------------------- FEN hooks */

/* Fills err and returns false. */
static bool sc_fail(CvError *err, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    if (err) vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
    return false;
}

/* Whether the pieces of a castling token stand on their home squares. */
static bool castle_token_home(const Position *p, int bit) {
    const CastleDef *cd = &TB(p)->castles[bit];
    return p->board[cd->mfrom] == PC_MAKE(cd->color, cd->monarch) &&
           p->board[cd->rfrom] == PC_MAKE(cd->color, SC_R);
}

/* Castling field: comma-separated tokens Ka,Kh,Ea,Eh (lower case for Black) in any order,
 * or '-'; tokens whose monarch or rook is not at home are dropped. */
static bool sc_parse_castling(Position *p, const char *field, CvError *err) {
    uint32_t rights = 0, seen = 0;
    if (strcmp(field, "-") != 0) {
        const char *s = field;
        for (int idx = 1;; idx++) {
            size_t len = strcspn(s, ",");
            int bit = -1;
            for (int b = 0; b < 8; b++)
                if (len == 2 && strncmp(s, castle_token[b], 2) == 0) bit = b;
            if (bit < 0)
                return sc_fail(err,
                               "bad FEN: castling token %d '%.*s' is not one of "
                               "Ka,Kh,Ea,Eh,ka,kh,ea,eh (field 3)",
                               idx, (int)len, s);
            if (seen & (1u << bit))
                return sc_fail(err, "bad FEN: castling token '%s' repeated (field 3)",
                               castle_token[bit]);
            seen |= 1u << bit;
            if (castle_token_home(p, bit)) rights |= 1u << bit;
            if (!s[len]) break;
            s += len + 1;
        }
    }
    pos_set_castle(p, rights);
    return true;
}

/* Writes the castling tokens in the order Ka,Kh,Ea,Eh,ka,kh,ea,eh, or '-'. */
static int sc_format_castling(const Position *p, char *buf) {
    int len = 0;
    for (int b = 0; b < 8; b++)
        if ((p->castle >> b) & 1) {
            if (len) buf[len++] = ',';
            buf[len++] = castle_token[b][0];
            buf[len++] = castle_token[b][1];
        }
    if (!len) buf[len++] = '-';
    buf[len] = 0;
    return len;
}

/* The pool of colour c derived from the board: inventory minus own pieces on the board. */
static void derive_pool(const Position *p, int c, uint8_t out[SC_NPT + 1]) {
    for (int t = 0; t <= SC_NPT; t++) {
        int k = pool_inventory[t] - p->count[PC_MAKE(c, t)];
        out[t] = (uint8_t)(k > 0 ? k : 0);
    }
}

/* Pool field `<white>/<black>` ('-' for an empty side), or the derived pool when absent.
 * Letters of types that are never promotion choices, and X, are ignored. */
static bool sc_parse_pool(Position *p, const char *field, CvError *err) {
    if (!field) {
        for (int c = 0; c < 2; c++) {
            uint8_t pool[SC_NPT + 1];
            derive_pool(p, c, pool);
            for (int t = 1; t <= SC_NPT; t++) pos_set_pool(p, c, t, pool[t]);
        }
        return true;
    }
    const char *slash = strchr(field, '/');
    if (!slash || strchr(slash + 1, '/'))
        return sc_fail(err, "bad FEN: pool '%s' is not <white>/<black> (field 7)", field);
    for (int c = 0; c < 2; c++) {
        const char *s = c == WHITE ? field : slash + 1;
        const char *end = c == WHITE ? slash : slash + strlen(slash);
        uint8_t pool[SC_NPT + 1] = {0};
        if (s == end)
            return sc_fail(err, "bad FEN: the %s pool in '%s' is empty, write '-' (field 7)",
                           c == WHITE ? "white" : "black", field);
        if (end - s == 1 && *s == '-') s = end;
        for (; s < end; s++) {
            int t = (unsigned char)*s < 128 ? p->var->type_of_letter[(unsigned char)*s] : 0;
            if (!t)
                return sc_fail(err, "bad FEN: unknown piece letter '%c' in the %s pool (field 7)",
                               *s, c == WHITE ? "white" : "black");
            if (!is_pool_type(t)) continue;
            if (++pool[t] > 15)
                return sc_fail(err, "bad FEN: more than 15 '%c' in the %s pool (field 7)", *s,
                               c == WHITE ? "white" : "black");
        }
        for (int t = 1; t <= SC_NPT; t++) pos_set_pool(p, c, t, pool[t]);
    }
    return true;
}

/* Whether the position's pool equals the pool derived from the board. */
bool superchess_pool_is_derived(const Position *p) {
    for (int c = 0; c < 2; c++) {
        uint8_t pool[SC_NPT + 1];
        derive_pool(p, c, pool);
        if (memcmp(pool + 1, &p->pool[c][1], SC_NPT) != 0) return false;
    }
    return true;
}

/* Writes the pool field when it differs from the derived pool; 0 otherwise. */
static int sc_format_pool(const Position *p, char *buf) {
    if (superchess_pool_is_derived(p)) return 0;
    int len = 0;
    for (int c = 0; c < 2; c++) {
        int start = len;
        if (c) buf[len++] = '/';
        for (const uint8_t *t = p->var->promo_types; *t; t++)
            for (int k = 0; k < p->pool[c][*t]; k++) {
                char l = p->var->pieces[*t].letter;
                buf[len++] = c == WHITE ? l : (char)tolower((unsigned char)l);
            }
        if (len == start + c) buf[len++] = '-';
    }
    buf[len] = 0;
    return len;
}

/* Monarch counts and holdings limits of spec 7. */
static bool sc_validate(Position *p, CvError *err) {
    for (int c = 0; c < 2; c++) {
        const char *side = c == WHITE ? "white" : "black";
        int k = p->count[PC_MAKE(c, SC_K)], e = p->count[PC_MAKE(c, SC_E)];
        if (k + e == 0)
            return sc_fail(err, "bad FEN: %s has no monarch (King or Emperor) (field 1)", side);
        if (k > 1) return sc_fail(err, "bad FEN: %s has %d Kings, at most 1 (field 1)", side, k);
        if (e > 1) return sc_fail(err, "bad FEN: %s has %d Emperors, at most 1 (field 1)", side, e);
        for (int t = 1; t <= SC_NPT; t++)
            if (p->hand[c][t] > 1) {
                char l = p->var->pieces[t].letter;
                return sc_fail(err, "bad FEN: holdings repeat '%c' (field 1, holdings)",
                               c == WHITE ? l : (char)tolower((unsigned char)l));
            }
    }
    return true;
}

/* ---------------------------------------------------------------- the variant record */

static const VariantOps superchess_ops = {
    .init = sc_init,
    .gen_legal = sc_gen_legal,
    .gen_captures = sc_gen_captures,
    .count_legal = sc_count_legal,
    .gen_reference = sc_gen_reference,
    .make = sc_make,
    .unmake = sc_unmake,
    .in_check = sc_in_check,
    .royal_attacked = sc_royal_attacked,
    .perft = sc_perft,
    .gen_fast = sc_gen_fast,
    .gen_fast_set = sc_gen_fast_set,
    .fen_parse_castling = sc_parse_castling,
    .fen_format_castling = sc_format_castling,
    .fen_parse_extra = sc_parse_pool,
    .fen_format_extra = sc_format_pool,
    .validate = sc_validate,
    .insufficient_material = pos_bare_royals,
    .random_start = superchess_random_start,
};

#define SC_P0 "dofekmga/tthpphtt/8/8/8/8/TTHPPHTT/DOFEKMGA[LXlx] w - - 0 1"
#define SC_P1 "rdfekmgr/tthpphtt/8/8/8/8/TTHPPHTT/RDFEKMGR[LXlx] w Ka,Kh,Ea,Eh,ka,kh,ea,eh - 0 1"

Variant variant_superchess =
    {
        .name = "superchess",
        .title = "Superchess (Exchess set 2)",
        .width = 8,
        .height = 8,
        .npt = SC_NPT,
        .rules = RULE_CASTLING | RULE_EP | RULE_DROPS | RULE_POOL,
        .pieces =
            {
                [SC_P] = PIECE('P', "Pawn", PF_PAWN | PAWNISH, 100, LEAP_M(0, 1, MM_MOVE),
                               LAME1_COND(0, 2, MM_MOVE, MCOND_START_RANK, 0, 1),
                               LEAP_M(-1, 1, MM_CAPTURE), LEAP_M(1, 1, MM_CAPTURE)),
                [SC_N] = PIECE('N', "Knight", 0, 300, KNIGHT_LEAPS),
                [SC_B] = PIECE('B', "Bishop", 0, 320, BISHOP_RIDES),
                [SC_R] = PIECE('R', "Rook", PF_CASTLE_ROOK, 500, ROOK_RIDES),
                [SC_Q] = PIECE('Q', "Queen", 0, 900, ROOK_RIDES, BISHOP_RIDES),
                [SC_K] = PIECE('K', "King", PF_ROYAL, 0, KING_STEPS),
                [SC_E] = PIECE('E', "Emperor", PF_ROYAL, 0, KING_STEPS, LAME1(0, 2, MM_BOTH, 0, 1),
                               LAME1(0, -2, MM_BOTH, 0, -1)),
                [SC_A] = PIECE('A', "Amazon", 0, 1200, ROOK_RIDES, BISHOP_RIDES, KNIGHT_LEAPS),
                [SC_W] =
                    PIECE('W', "Minister", 0, 1100, ROOK_RIDES, BISHOP_RIDES, LAME_KNIGHT(MM_BOTH)),
                [SC_M] =
                    PIECE('M', "Magician", PF_FREEZES | PF_NO_CAPTURE, 400, KING_STEPS_M(MM_MOVE),
                          LAME_TWO_STEPS(MM_MOVE), LAME_KNIGHT(MM_MOVE)),
                [SC_F] = PIECE('F', "Femme Fatale", PF_PACIFIES | PF_NO_CAPTURE, 350,
                               KING_STEPS_M(MM_MOVE), DISTANCE_TWO_M(MM_MOVE)),
                [SC_D] = PIECE('D', "Ambassador", PF_IMMUNE_ZONE, 450, KING_STEPS,
                               LAME_TWO_STEPS(MM_BOTH), LAME_KNIGHT(MM_BOTH)),
                [SC_G] = PIECE('G', "Guard", 0, 400, KING_STEPS, LEAP_TWO_STEPS),
                [SC_O] = PIECE('O', "Baron", 0, 450, KNIGHT_LEAPS, LEAP_TWO_STEPS),
                [SC_H] = PIECE('H', "Rapid pawn", PAWNISH, 130, LEAP_M(0, 1, MM_MOVE),
                               LAME1(0, 2, MM_MOVE, 0, 1), LEAP_M(-1, 1, MM_CAPTURE),
                               LEAP_M(1, 1, MM_CAPTURE), LAME1(-2, 2, MM_CAPTURE, -1, 1),
                               LAME1(2, 2, MM_CAPTURE, 1, 1)),
                [SC_T] =
                    PIECE('T', "t-pawn", PAWNISH, 110, LEAP_M(0, 1, MM_MOVE), LEAP_M(0, 2, MM_MOVE),
                          LEAP_M(-1, 0, MM_CAPTURE), LEAP_M(1, 0, MM_CAPTURE)),
                [SC_L] = PIECE('L', "Mobilisation pawn", PAWNISH | PF_DROPPABLE, 150,
                               LEAP_M(0, 1, MM_MOVE), LAME1(0, 2, MM_MOVE, 0, 1),
                               LAME2(0, 3, MM_MOVE, 0, 1, 0, 2), LEAP_M(-1, 1, MM_CAPTURE),
                               LAME1(-2, 2, MM_CAPTURE, -1, 1),
                               LAME2(-3, 3, MM_CAPTURE, -1, 1, -2, 2), LEAP_M(1, 1, MM_CAPTURE),
                               LAME1(2, 2, MM_CAPTURE, 1, 1), LAME2(3, 3, MM_CAPTURE, 1, 1, 2, 2)),
                [SC_X] = PIECE('X', "Paratrooper", PF_DROPPABLE, 200, LEAP(1, 1),
                               LEAP(1, -1), LEAP(-1, 1), LEAP(-1, -1)),
            },
        .start_fen = SC_P0,
        .starts = {{"p0", SC_P0, true},
                   {"p1", SC_P1, true},
                   {"p0-nr", "dofekmga/tthpphtt/8/8/8/8/TTHPPHTT/DOFEKMGA w - - 0 1", false}},
        .pawn_start_rank = {1, 6},
        /* The pool types in notation order; X, a hand choice while held, comes after them. */
        .promo_types = {SC_Q, SC_R, SC_B, SC_N, SC_M, SC_F, SC_D, SC_G, SC_O, 0},
        .stalemate_score = 500,
        .prelude = true,
        .ops = &superchess_ops,
};
