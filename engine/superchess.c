/* superchess.c - Superchess with Exchess set 2 (8x8): the pieces as data, the status
 * effects (frozen, neutralised, immune), castling per monarch-rook pair, reserves and the
 * promotion pool, the FEN hooks, and two move generators over the same piece data: a fast
 * one on bitboards and a slow mailbox walker that follows the rules text literally. */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "superchess.h"
#include "variant.h"

#define BB(p) ((p)->bb.b8)

/* ---------------------------------------------------------------- pieces as data */

/* The piece ids of superchess.h keep the orthodox ids for the orthodox pieces. */
_Static_assert((int)SC_P == PAWN && (int)SC_N == KNIGHT && (int)SC_B == BISHOP &&
                   (int)SC_R == ROOK && (int)SC_Q == QUEEN && (int)SC_K == KING,
               "Superchess keeps the orthodox piece ids");

/* Leaps with lame squares (relative to the mover, White's view), and with a condition. */
#define LAME1(f, r, mode, a, b)                                                                    \
    {                                                                                              \
        MC_LEAP, mode, f, r, 0, 0, 1, {                                                            \
            { a, b }                                                                               \
        }                                                                                          \
    }
#define LAME2(f, r, mode, a, b, c, d)                                                              \
    {                                                                                              \
        MC_LEAP, mode, f, r, 0, 0, 2, {                                                            \
            {a, b}, { c, d }                                                                       \
        }                                                                                          \
    }
#define LAME1_COND(f, r, mode, cond, a, b)                                                         \
    {                                                                                              \
        MC_LEAP, mode, f, r, 0, cond, 1, {                                                         \
            { a, b }                                                                               \
        }                                                                                          \
    }

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
#define KING_STEPS_M(mode)                                                                         \
    LEAP_M(1, 0, mode), LEAP_M(-1, 0, mode), LEAP_M(0, 1, mode), LEAP_M(0, -1, mode),              \
        LEAP_M(1, 1, mode), LEAP_M(1, -1, mode), LEAP_M(-1, 1, mode), LEAP_M(-1, -1, mode)
#define DISTANCE_TWO_M(mode)                                                                       \
    LEAP_M(2, -2, mode), LEAP_M(2, -1, mode), LEAP_M(2, 0, mode), LEAP_M(2, 1, mode),              \
        LEAP_M(2, 2, mode), LEAP_M(-2, -2, mode), LEAP_M(-2, -1, mode), LEAP_M(-2, 0, mode),       \
        LEAP_M(-2, 1, mode), LEAP_M(-2, 2, mode), LEAP_M(-1, 2, mode), LEAP_M(0, 2, mode),         \
        LEAP_M(1, 2, mode), LEAP_M(-1, -2, mode), LEAP_M(0, -2, mode), LEAP_M(1, -2, mode)

#define NCOMP(...) ((uint8_t)(sizeof((MoveComp[]){__VA_ARGS__}) / sizeof(MoveComp)))
#define PIECE(letter, name, flags, value, ...)                                                     \
    {                                                                                              \
        letter, name, flags, value, NCOMP(__VA_ARGS__), { __VA_ARGS__ }                            \
    }

#define PAWNISH (PF_PROMOTES | PF_ORIENTED | PF_PAWN_PIECE)

/* The squares at which a side's Ambassador is immune: the corners of its last rank. */
static const Bitboard embassy[2] = {(1ull << 56) | (1ull << 63), (1ull << 0) | (1ull << 7)};

/* Per-side inventory of the promotion-pool types (one standard set plus set 2). */
static const uint8_t pool_inventory[SC_NPT + 1] = {
    [SC_Q] = 1, [SC_R] = 2, [SC_B] = 2, [SC_N] = 2, [SC_M] = 1,
    [SC_F] = 1, [SC_D] = 1, [SC_G] = 1, [SC_O] = 1};

/* ---------------------------------------------------------------- tables */

/* A leap whose lame squares must be empty: target (or origin, in the reverse tables). */
typedef struct LameStep {
    Bitboard lame;
    uint8_t sq;
    uint8_t mode;
} LameStep;

/* Castling: one entry per token bit. */
typedef struct CastleDef {
    uint8_t color, monarch, mfrom, mto, rfrom, rto, crossed;
    Bitboard between; /* squares strictly between monarch and rook */
} CastleDef;

enum { MAX_LAME = 2 * (SC_NPT + 1) * 64 * 16 };

typedef struct ScTables {
    Bitboard leap_move[2][SC_NPT + 1][64];     /* non-lame leaps to an empty square */
    Bitboard leap_cap[2][SC_NPT + 1][64];      /* non-lame capture leaps (attacks) */
    Bitboard rev_cap[2][SC_NPT + 1][64];       /* origins whose non-lame capture hits q */
    Bitboard rev_lame_from[2][SC_NPT + 1][64]; /* origins of the reverse lame captures */
    Bitboard rev_any[2][64];                   /* union of both over the attacker types */
    uint32_t lame_at[2][SC_NPT + 1][65];       /* forward lame steps: index range */
    uint32_t rlame_at[2][SC_NPT + 1][65];      /* reverse lame captures: index range */
    LameStep lame[MAX_LAME];
    LameStep rlame[MAX_LAME];
    uint8_t orth_rider[SC_NPT + 1], diag_rider[SC_NPT + 1];
    uint8_t attackers[SC_NPT + 1]; /* types with leap captures, in order */
    int nattackers;
    /* Type sets (bit t = type t): orthogonal and diagonal riders, and from the PF_* flags
     * monarchs, freezers, pacifiers, immune-zone pieces and pieces that never capture. */
    uint32_t rook_like, bishop_like, royal, freezer, pacifier, immune, no_capture;
    CastleDef castles[8];
    uint32_t castle_clear_sq[64];              /* tokens lost when a move touches sq */
    uint32_t castle_clear_type[2][SC_NPT + 1]; /* tokens lost when this monarch moves */
} ScTables;

static ScTables sc_tables;

#define TB(p) ((const ScTables *)(p)->var->tables)

/* Castling token bits: Ka, Kh, Ea, Eh for White, then the same for Black. */
enum { CT_KA = 1, CT_KH = 2, CT_EA = 4, CT_EH = 8 };
static const char *const castle_token[8] = {"Ka", "Kh", "Ea", "Eh", "ka", "kh", "ea", "eh"};

/* K-step neighbourhood of a set, the set itself included. */
static inline Bitboard bb_spread(Bitboard b) {
    const Bitboard not_a = 0xfefefefefefefefeull, not_h = 0x7f7f7f7f7f7f7f7full;
    b |= ((b << 1) & not_a) | ((b >> 1) & not_h);
    return b | (b << 8) | (b >> 8);
}

/* Vector of a component for colour c: pawn pieces turn round for Black. */
static inline int comp_dr(const PieceDef *d, int c, int dr) {
    return (d->flags & PF_ORIENTED) && c == BLACK ? -dr : dr;
}

/* Whether a (file, rank) pair lies on the 8x8 board. */
static inline bool on_board(int f, int r) { return f >= 0 && f < 8 && r >= 0 && r < 8; }

/* Whether a component's condition allows it from square s for colour c. */
static bool comp_cond_ok(const Variant *v, const MoveComp *mc, int c, int s) {
    if (mc->cond == MCOND_START_RANK) return s / 8 == v->pawn_start_rank[c];
    return true;
}

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

/* Builds the attack and move tables from the piece definitions, once at engine_init. */
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
    v->tables = tb;
}

/* ---------------------------------------------------------------- status effects */

/* The pieces (both colours) of the types in a type set. */
static inline Bitboard pieces_of(const Position *p, uint32_t types) {
    Bitboard b = 0;
    for (; types; types &= types - 1) b |= BB(p).type[__builtin_ctz(types)];
    return b;
}

/* The status of one side's pieces: which stand frozen next to an enemy Magician, which
 * stand neutralised next to an enemy Femme Fatale (an Ambassador on its embassy is
 * neither), and which can attack at all (active: not M or F, neither frozen nor
 * neutralised). Recomputed from the board whenever it is needed. */
typedef struct Status {
    Bitboard frozen, neutral, active;
} Status;

/* Status of colour c's pieces in the current position. */
static inline Status status_of(const Position *p, int c) {
    const ScTables *tb = TB(p);
    Bitboard own = BB(p).color[c], foe = BB(p).color[c ^ 1];
    Status st;
    Bitboard exposed = own & ~(pieces_of(p, tb->immune) & embassy[c]);
    st.frozen = bb_spread(pieces_of(p, tb->freezer) & foe) & exposed;
    st.neutral = bb_spread(pieces_of(p, tb->pacifier) & foe) & exposed;
    st.active = own & ~st.frozen & ~st.neutral & ~pieces_of(p, tb->no_capture);
    return st;
}

/* What one side can attack with, under some occupancy: its active pieces and, among
 * them, the orthogonal and diagonal riders. */
typedef struct Attackers {
    Bitboard active, occ, orth, diag;
} Attackers;

/* The attackers of the pieces in `active` under occupancy occ. */
static inline Attackers attackers_make(const Position *p, Bitboard active, Bitboard occ) {
    const ScTables *tb = TB(p);
    Attackers a = {active, occ, pieces_of(p, tb->rook_like) & active,
                   pieces_of(p, tb->bishop_like) & active};
    return a;
}

/* Whether square q is attacked by the attackers a (all of colour by). */
static bool sc_attacked(const Position *p, int q, int by, const Attackers *a) {
    const ScTables *tb = TB(p);
    const Bitboard *t = BB(p).type;
    if (a->orth && (rook_att8(q, a->occ) & a->orth)) return true;
    if (a->diag && (bishop_att8(q, a->occ) & a->diag)) return true;
    if (!(tb->rev_any[by][q] & a->active)) return false;
    for (int i = 0; i < tb->nattackers; i++) {
        int ty = tb->attackers[i];
        Bitboard pcs = t[ty] & a->active;
        if (!pcs) continue;
        if (tb->rev_cap[by][ty][q] & pcs) return true;
        if (!(tb->rev_lame_from[by][ty][q] & pcs)) continue;
        for (uint32_t k = tb->rlame_at[by][ty][q]; k < tb->rlame_at[by][ty][q + 1]; k++) {
            const LameStep *e = &tb->rlame[k];
            if (((pcs >> e->sq) & 1) && !(a->occ & e->lame)) return true;
        }
    }
    return false;
}

/* Whether any monarch (King or Emperor) of colour c stands on an attacked square. */
static bool sc_royal_attacked(const Position *p, int c) {
    Bitboard mon = pieces_of(p, TB(p)->royal) & BB(p).color[c];
    if (!mon) return false;
    Attackers a = attackers_make(p, status_of(p, c ^ 1).active, BB(p).color[0] | BB(p).color[1]);
    while (mon)
        if (sc_attacked(p, bb_pop_lsb(&mon), c ^ 1, &a)) return true;
    return false;
}

/* Whether the side to move is in check. */
static bool sc_in_check(const Position *p) { return sc_royal_attacked(p, p->side); }

/* ---------------------------------------------------------------- make / unmake */

/* Whether type t is a promotion-pool type (tracked in pos->pool). */
static inline bool is_pool_type(int t) { return t <= SC_NPT && pool_inventory[t] > 0; }

/* Plays m (board move, e.p., castling, drop, promotion); pushes what unmake restores. */
static void sc_make(Position *p, Move m) {
    const ScTables *tb = TB(p);
    Undo *u = pos_push(p, m);
    int us = p->side, them = us ^ 1;
    int from = MOVE_FROM(m), to = MOVE_TO(m), promo = MOVE_PROMO(m), kind = MOVE_KIND(m);
    uint32_t castle = p->castle;
    if (p->ep != NO_SQ) {
        if (pos_ep_capturable(p)) p->key ^= zob_ep[p->ep];
        p->ep = NO_SQ;
    }
    p->halfmove++;
    if (kind == MK_DROP) {
        pos_set_hand(p, us, promo, p->hand[us][promo] - 1);
        pos_put8(p, to, PC_MAKE(us, promo));
        u->moved = PC_MAKE(us, promo);
        p->halfmove = 0;
    } else if (kind == MK_CASTLE) {
        const CastleDef *cd =
            &tb->castles[us * 4 + (PC_TYPE(p->board[from]) == SC_E ? 2 : 0) + (to > from)];
        u->moved = p->board[from];
        pos_move8(p, from, to);
        pos_move8(p, cd->rfrom, cd->rto);
        castle &= ~(tb->castle_clear_type[us][cd->monarch] | tb->castle_clear_sq[cd->rfrom]);
    } else {
        int pc = p->board[from];
        u->moved = (uint8_t)pc;
        int capsq = kind == MK_EP ? (us == WHITE ? to - 8 : to + 8) : to;
        int cap = p->board[capsq];
        if (cap) {
            pos_remove8(p, capsq);
            u->captured = (uint8_t)cap;
            if (is_pool_type(PC_TYPE(cap)))
                pos_set_pool(p, them, PC_TYPE(cap), p->pool[them][PC_TYPE(cap)] + 1);
            p->halfmove = 0;
        }
        pos_move8(p, from, to);
        if (promo) {
            pos_remove8(p, to);
            pos_put8(p, to, PC_MAKE(us, promo));
            if (promo == SC_X) pos_set_hand(p, us, SC_X, p->hand[us][SC_X] - 1);
            else pos_set_pool(p, us, promo, p->pool[us][promo] - 1);
        }
        if (pos_def(p, pc)->flags & PF_PAWN_PIECE) p->halfmove = 0;
        castle &= ~(tb->castle_clear_type[us][PC_TYPE(pc)] | tb->castle_clear_sq[from] |
                    tb->castle_clear_sq[to]);
        if (kind == MK_DOUBLE) p->ep = (uint8_t)((from + to) / 2);
    }
    if (castle != p->castle) pos_set_castle(p, castle);
    if (us == BLACK) p->fullmove++;
    p->side = (uint8_t)them;
    p->key ^= zob_side;
    if (p->ep != NO_SQ && pos_ep_capturable(p)) p->key ^= zob_ep[p->ep];
}

/* Takes back the last move made with sc_make. */
static void sc_unmake(Position *p) {
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

/* ---------------------------------------------------------------- move emission */

/* Appends a board move, expanded into one move per promotion choice when a pawn piece
 * lands on its last rank; with no choice the move is not emitted (spec 6.5). */
static int emit_board_move(const Position *p, Move *list, int n, int from, int to, int kind,
                           bool promotes) {
    int us = p->side;
    if (promotes && to / 8 == (us == WHITE ? 7 : 0)) {
        for (const uint8_t *t = p->var->promo_types; *t; t++)
            if (p->pool[us][*t]) list[n++] = MOVE_MAKE(from, to, NO_SQ, *t, kind);
        if (p->hand[us][SC_X]) list[n++] = MOVE_MAKE(from, to, NO_SQ, SC_X, kind);
        return n;
    }
    list[n++] = MOVE_MAKE(from, to, NO_SQ, 0, kind);
    return n;
}

/* ---------------------------------------------------------------- fast generator */

/* The squares a drop may use: L on the first rank, X anywhere empty. */
static inline Bitboard drop_targets(const Position *p, int type) {
    if (!p->hand[p->side][type]) return 0;
    Bitboard empty = ~(BB(p).color[0] | BB(p).color[1]);
    return type == SC_X ? empty : empty & (p->side == WHITE ? 0xffull : 0xffull << 56);
}

/* Number of promotion choices of the side to move: pool types held, plus X while held. */
static inline int promo_choices(const Position *p) {
    int n = p->hand[p->side][SC_X] != 0;
    for (const uint8_t *t = p->var->promo_types; *t; t++) n += p->pool[p->side][*t] != 0;
    return n;
}

/* Pseudo-legal moves on bitboards: statuses as masks, data-driven leaps, magic rides;
 * `enemy` holds the enemy's attackers (for castling). Drops only when asked for. The
 * board moves of pieces on `bulk` squares (known legal) are only counted, into *bulk_count. */
static int sc_gen_pseudo(Position *p, Move *list, const Attackers *enemy, bool drops, Bitboard bulk,
                         int *bulk_count) {
    const ScTables *tb = TB(p);
    const Variant *v = p->var;
    int us = p->side, them = us ^ 1, n = 0;
    Bitboard own = BB(p).color[us], foe = BB(p).color[them], occ = own | foe;
    Status st = status_of(p, us);
    Bitboard foe_immune = pieces_of(p, tb->immune) & foe & embassy[them];
    Bitboard victims = foe & ~foe_immune & ~pieces_of(p, tb->royal);
    Bitboard empty = ~occ;
    for (Bitboard pcs = own & ~st.frozen; pcs;) {
        int s = bb_pop_lsb(&pcs), ty = PC_TYPE(p->board[s]);
        uint32_t fl = v->pieces[ty].flags;
        bool can_cap = !((st.neutral >> s) & 1) && !(fl & PF_NO_CAPTURE);
        bool promotes = (fl & PF_PROMOTES) != 0;
        Bitboard cap_ok = can_cap ? victims : 0;
        Bitboard to = (tb->leap_move[us][ty][s] & empty) | (tb->leap_cap[us][ty][s] & cap_ok);
        if (tb->orth_rider[ty]) to |= rook_att8(s, occ) & (empty | cap_ok);
        if (tb->diag_rider[ty]) to |= bishop_att8(s, occ) & (empty | cap_ok);
        for (uint32_t k = tb->lame_at[us][ty][s]; k < tb->lame_at[us][ty][s + 1]; k++) {
            const LameStep *e = &tb->lame[k];
            if (occ & e->lame) continue;
            Bitboard b = 1ull << e->sq;
            if ((e->mode & MM_MOVE) && (b & empty)) to |= b;
            if ((e->mode & MM_CAPTURE) && (b & cap_ok)) to |= b;
        }
        bool pawn = (fl & PF_PAWN) != 0;
        if ((bulk >> s) & 1) {
            Bitboard last = us == WHITE ? 0xffull << 56 : 0xffull;
            *bulk_count += promotes && (to & last)
                               ? bb_popcount(to & ~last) + bb_popcount(to & last) * promo_choices(p)
                               : bb_popcount(to);
            to = 0;
        }
        while (to) {
            int d = bb_pop_lsb(&to);
            int kind = pawn && (d - s == 16 || s - d == 16) ? MK_DOUBLE : MK_NORMAL;
            n = emit_board_move(p, list, n, s, d, kind, promotes);
        }
        if (pawn && can_cap && p->ep != NO_SQ && ((tb->leap_cap[us][ty][s] >> p->ep) & 1))
            list[n++] = MOVE_MAKE(s, p->ep, NO_SQ, 0, MK_EP);
    }
    /* Castling: token, both pieces home and not frozen, path empty, three squares safe. */
    uint32_t rights = (p->castle >> (us * 4)) & 15;
    if (rights) {
        for (int i = 0; i < 4; i++) {
            const CastleDef *cd = &tb->castles[us * 4 + i];
            if (!((rights >> i) & 1) || p->board[cd->mfrom] != PC_MAKE(us, cd->monarch) ||
                p->board[cd->rfrom] != PC_MAKE(us, SC_R) || (occ & cd->between) ||
                ((st.frozen >> cd->mfrom) & 1) || ((st.frozen >> cd->rfrom) & 1))
                continue;
            if (sc_attacked(p, cd->mfrom, them, enemy) ||
                sc_attacked(p, cd->crossed, them, enemy) || sc_attacked(p, cd->mto, them, enemy))
                continue;
            list[n++] = MOVE_MAKE(cd->mfrom, cd->mto, NO_SQ, 0, MK_CASTLE);
        }
    }
    for (int type = SC_L; drops && type <= SC_X; type++)
        for (Bitboard b = drop_targets(p, type); b;) {
            int s = bb_pop_lsb(&b);
            list[n++] = MOVE_MAKE(s, s, NO_SQ, type, MK_DROP);
        }
    return n;
}

/* Whether m would leave a monarch of the mover attacked, decided without making it: the
 * occupancy, the enemy's pieces and the mover's Magicians and Femmes Fatales are updated
 * in local bitboards, and the enemy's status is recomputed from them. The same answer as
 * make -> sc_royal_attacked -> unmake (the tests compare it with the reference). */
static bool sc_move_exposes(const Position *p, Move m) {
    const ScTables *tb = TB(p);
    int us = p->side, them = us ^ 1;
    int from = MOVE_FROM(m), to = MOVE_TO(m), kind = MOVE_KIND(m);
    Bitboard own = BB(p).color[us], foe = BB(p).color[them], occ = own | foe;
    Bitboard mon = pieces_of(p, tb->royal) & own;
    Bitboard our_m = pieces_of(p, tb->freezer) & own, our_f = pieces_of(p, tb->pacifier) & own;
    Bitboard fb = 1ull << from, tob = 1ull << to;
    if (kind == MK_DROP) {
        occ |= tob;
    } else if (kind == MK_CASTLE) {
        const CastleDef *cd =
            &tb->castles[us * 4 + (PC_TYPE(p->board[from]) == SC_E ? 2 : 0) + (to > from)];
        occ = (occ & ~fb & ~(1ull << cd->rfrom)) | tob | (1ull << cd->rto);
        mon = (mon & ~fb) | tob;
    } else {
        int capsq = kind == MK_EP ? (us == WHITE ? to - 8 : to + 8) : to;
        int moved = PC_TYPE(p->board[from]), now = MOVE_PROMO(m) ? MOVE_PROMO(m) : moved;
        foe &= ~(1ull << capsq);
        occ = (occ & ~fb & ~(1ull << capsq)) | tob;
        if (mon & fb) mon = (mon & ~fb) | tob;
        if ((tb->freezer >> moved) & 1) our_m &= ~fb;
        if ((tb->pacifier >> moved) & 1) our_f &= ~fb;
        if ((tb->freezer >> now) & 1) our_m |= tob;
        if ((tb->pacifier >> now) & 1) our_f |= tob;
    }
    Bitboard exposed = foe & ~(pieces_of(p, tb->immune) & embassy[them]);
    Bitboard disabled = (bb_spread(our_m) | bb_spread(our_f)) & exposed;
    Attackers a = attackers_make(p, foe & ~disabled & ~pieces_of(p, tb->no_capture), occ);
    while (mon)
        if (sc_attacked(p, bb_pop_lsb(&mon), them, &a)) return true;
    return false;
}

/* Squares whose vacating could expose a monarch of the side to move, given the enemy's
 * attackers a: own pieces alone between a monarch and an enemy rider, and the lame squares
 * of enemy lame leaps toward a monarch. Status cannot improve for the enemy unless a
 * monarch, Magician or Femme Fatale moves, so these are the only ways to expose one. */
static Bitboard unblock_mask(const Position *p, const Attackers *a) {
    const ScTables *tb = TB(p);
    const Bitboard *t = BB(p).type;
    int them = p->side ^ 1;
    Bitboard own = BB(p).color[p->side], mask = 0;
    for (Bitboard mon = pieces_of(p, tb->royal) & own; mon;) {
        int q = bb_pop_lsb(&mon);
        Bitboard rb = rook_att8(q, a->occ) & own, bb = bishop_att8(q, a->occ) & own;
        Bitboard pinners =
            (rook_att8(q, a->occ ^ rb) & a->orth) | (bishop_att8(q, a->occ ^ bb) & a->diag);
        while (pinners) mask |= between8[q][bb_pop_lsb(&pinners)] & own;
        for (int i = 0; i < tb->nattackers; i++) {
            int ty = tb->attackers[i];
            Bitboard pcs = t[ty] & a->active & tb->rev_lame_from[them][ty][q];
            if (!pcs) continue;
            for (uint32_t k = tb->rlame_at[them][ty][q]; k < tb->rlame_at[them][ty][q + 1]; k++)
                if ((pcs >> tb->rlame[k].sq) & 1) mask |= tb->rlame[k].lame;
        }
    }
    return mask;
}

/* Legal moves (into list, or only counted when count_only). Out of check a drop only adds
 * a blocker, and a board move that is not e.p. or castling, of a piece that is no monarch,
 * from a square outside unblock_mask, changes no enemy status (a Magician or Femme Fatale
 * with no exposed enemy beside it releases none) and opens no line or lame square toward a
 * monarch: all these are legal without a test (and only counted when count_only).
 * Everything else is tested with sc_move_exposes. */
static int sc_generate(Position *p, Move *list, bool count_only) {
    const ScTables *tb = TB(p);
    int us = p->side, them = us ^ 1;
    Bitboard own = BB(p).color[us], foe = BB(p).color[them], monarchs = pieces_of(p, tb->royal);
    Attackers a = attackers_make(p, status_of(p, them).active, own | foe);
    bool check = false;
    for (Bitboard mon = monarchs & own; mon && !check;)
        check = sc_attacked(p, bb_pop_lsb(&mon), them, &a);
    Bitboard special = check ? ~0ull : unblock_mask(p, &a) | monarchs;
    Bitboard exposed_foe = foe & ~(pieces_of(p, tb->immune) & embassy[them]);
    for (Bitboard mf = pieces_of(p, tb->freezer | tb->pacifier) & own & ~special; mf;) {
        int s = bb_pop_lsb(&mf);
        if (bb_spread(1ull << s) & exposed_foe) special |= 1ull << s;
    }
    int bulk_count = 0;
    Bitboard bulk = count_only ? own & ~special : 0;
    int n = sc_gen_pseudo(p, list, &a, check || !count_only, bulk, &bulk_count), k = 0;
    for (int i = 0; i < n; i++) {
        Move m = list[i];
        int kind = MOVE_KIND(m);
        bool safe = !check && (kind == MK_DROP || ((kind == MK_NORMAL || kind == MK_DOUBLE) &&
                                                   !((special >> MOVE_FROM(m)) & 1)));
        if (safe || !sc_move_exposes(p, m)) list[k++] = m;
    }
    if (count_only && !check)
        k += bb_popcount(drop_targets(p, SC_L)) + bb_popcount(drop_targets(p, SC_X));
    return k + bulk_count;
}

/* Legal moves, fast path. */
static int sc_gen_legal(Position *p, Move *list) { return sc_generate(p, list, false); }

/* Number of legal moves (perft's last ply). */
static uint64_t sc_count_legal(Position *p) {
    Move list[MAX_MOVES];
    return (uint64_t)sc_generate(p, list, true);
}

/* ---------------------------------------------------------------- reference generator */

enum { ST_IMMUNE = 1, ST_FROZEN = 2, ST_NEUTRAL = 4 };

/* Status of the piece on s, from the spec's table, by looking at its neighbours. */
static int ref_status(const Position *p, int s) {
    int pc = p->board[s], c = PC_COLOR(pc), f = s % 8, r = s / 8;
    if ((pos_def(p, pc)->flags & PF_IMMUNE_ZONE) && (c == WHITE ? r == 7 : r == 0) &&
        (f == 0 || f == 7))
        return ST_IMMUNE;
    int st = 0;
    for (int df = -1; df <= 1; df++)
        for (int dr = -1; dr <= 1; dr++) {
            if ((!df && !dr) || !on_board(f + df, r + dr)) continue;
            int q = p->board[(r + dr) * 8 + f + df];
            if (!q || PC_COLOR(q) == c) continue;
            if (pos_def(p, q)->flags & PF_FREEZES) st |= ST_FROZEN;
            if (pos_def(p, q)->flags & PF_PACIFIES) st |= ST_NEUTRAL;
        }
    return st;
}

/* Writes into out the squares component mc of the piece on s reaches under the current
 * occupancy (leaps: lame squares empty; rides: up to the first occupied square). */
static int ref_comp_targets(const Position *p, int s, const MoveComp *mc, int *out) {
    int pc = p->board[s], c = PC_COLOR(pc), f = s % 8, r = s / 8, n = 0;
    const PieceDef *d = pos_def(p, pc);
    int dr = comp_dr(d, c, mc->dr);
    if (mc->kind == MC_LEAP) {
        if (!comp_cond_ok(p->var, mc, c, s) || !on_board(f + mc->df, r + dr)) return 0;
        for (int i = 0; i < mc->nlame; i++) {
            int lf = f + mc->lame[i][0], lr = r + comp_dr(d, c, mc->lame[i][1]);
            if (!on_board(lf, lr) || p->board[lr * 8 + lf]) return 0;
        }
        out[n++] = (r + dr) * 8 + f + mc->df;
    } else if (mc->kind == MC_RIDE) {
        for (int k = 1, tf = f + mc->df, tr = r + dr;
             on_board(tf, tr) && (!mc->range || k <= mc->range); k++, tf += mc->df, tr += dr) {
            out[n++] = tr * 8 + tf;
            if (p->board[tr * 8 + tf]) break;
        }
    }
    return n;
}

/* Whether colour `by` attacks q: some piece of `by`, not M or F, neither frozen nor
 * neutralised, has q in its capture geometry. */
static bool ref_attacked(const Position *p, int q, int by) {
    for (int s = 0; s < 64; s++) {
        int pc = p->board[s];
        if (!pc || PC_COLOR(pc) != by) continue;
        const PieceDef *d = pos_def(p, pc);
        if ((d->flags & PF_NO_CAPTURE) || (ref_status(p, s) & (ST_FROZEN | ST_NEUTRAL))) continue;
        for (int i = 0; i < d->ncomp; i++) {
            if (!(d->comp[i].mode & MM_CAPTURE)) continue;
            int dest[8], nd = ref_comp_targets(p, s, &d->comp[i], dest);
            for (int k = 0; k < nd; k++)
                if (dest[k] == q) return true;
        }
    }
    return false;
}

/* Whether any monarch of colour c is attacked, by the mailbox walk. */
static bool ref_royal_attacked(const Position *p, int c) {
    for (int s = 0; s < 64; s++) {
        int pc = p->board[s];
        if (pc && PC_COLOR(pc) == c && (pos_def(p, pc)->flags & PF_ROYAL) &&
            ref_attacked(p, s, c ^ 1))
            return true;
    }
    return false;
}

/* Keeps the moves after which no monarch of the mover is attacked: make, test every own
 * monarch with the mailbox walk, unmake (spec 5). */
static int ref_filter_legal(Position *p, Move *list, int n) {
    int us = p->side, k = 0;
    for (int i = 0; i < n; i++) {
        sc_make(p, list[i]);
        bool bad = ref_royal_attacked(p, us);
        sc_unmake(p);
        if (!bad) list[k++] = list[i];
    }
    return k;
}

/* Legal moves by the literal reading of the rules, status recomputed from scratch. */
static int sc_gen_reference(Position *p, Move *list) {
    int us = p->side, them = us ^ 1, n = 0;
    Move pseudo[MAX_MOVES];
    for (int s = 0; s < 64; s++) {
        int pc = p->board[s];
        if (!pc || PC_COLOR(pc) != us) continue;
        int st = ref_status(p, s);
        if (st & ST_FROZEN) continue;
        const PieceDef *d = pos_def(p, pc);
        bool can_cap = !(st & ST_NEUTRAL) && !(d->flags & PF_NO_CAPTURE);
        bool seen[64] = {false};
        for (int i = 0; i < d->ncomp; i++) {
            const MoveComp *mc = &d->comp[i];
            int dest[8], nd = ref_comp_targets(p, s, mc, dest);
            for (int k = 0; k < nd; k++) {
                int q = dest[k], victim = p->board[q];
                bool ok;
                if (!victim) ok = mc->mode & MM_MOVE;
                else
                    ok = (mc->mode & MM_CAPTURE) && can_cap && PC_COLOR(victim) != us &&
                         !(pos_def(p, victim)->flags & PF_ROYAL) && !(ref_status(p, q) & ST_IMMUNE);
                if (!victim && (mc->mode & MM_CAPTURE) && can_cap && (d->flags & PF_PAWN) &&
                    q == p->ep) {
                    n = emit_board_move(p, pseudo, n, s, q, MK_EP, false);
                    continue;
                }
                if (!ok || seen[q]) continue;
                seen[q] = true;
                int kind =
                    (d->flags & PF_PAWN) && mc->cond == MCOND_START_RANK ? MK_DOUBLE : MK_NORMAL;
                n = emit_board_move(p, pseudo, n, s, q, kind, (d->flags & PF_PROMOTES) != 0);
            }
        }
    }
    /* Castling, condition by condition as in spec 6.6. */
    static const struct {
        int monarch, mfile, tfile, rfile;
    } cs[4] = {{SC_K, 4, 2, 0}, {SC_K, 4, 6, 7}, {SC_E, 3, 1, 0}, {SC_E, 3, 5, 7}};
    int home = us == WHITE ? 0 : 56;
    for (int i = 0; i < 4; i++) {
        if (!((p->castle >> (us * 4 + i)) & 1)) continue;
        int mf = home + cs[i].mfile, rf = home + cs[i].rfile, mt = home + cs[i].tfile;
        if (p->board[mf] != PC_MAKE(us, cs[i].monarch) || p->board[rf] != PC_MAKE(us, SC_R))
            continue;
        bool clear = true;
        int lo = mf < rf ? mf : rf, hi = mf < rf ? rf : mf;
        for (int q = lo + 1; q < hi; q++) clear = clear && !p->board[q];
        if (!clear || (ref_status(p, mf) & ST_FROZEN) || (ref_status(p, rf) & ST_FROZEN)) continue;
        if (ref_attacked(p, mf, them) || ref_attacked(p, (mf + mt) / 2, them) ||
            ref_attacked(p, mt, them))
            continue;
        pseudo[n++] = MOVE_MAKE(mf, mt, NO_SQ, 0, MK_CASTLE);
    }
    for (int s = 0; s < 64; s++) {
        if (p->board[s]) continue;
        if (p->hand[us][SC_L] && s / 8 == (us == WHITE ? 0 : 7))
            pseudo[n++] = MOVE_MAKE(s, s, NO_SQ, SC_L, MK_DROP);
        if (p->hand[us][SC_X]) pseudo[n++] = MOVE_MAKE(s, s, NO_SQ, SC_X, MK_DROP);
    }
    n = ref_filter_legal(p, pseudo, n);
    memcpy(list, pseudo, (size_t)n * sizeof *list);
    return n;
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
    .count_legal = sc_count_legal,
    .gen_reference = sc_gen_reference,
    .make = sc_make,
    .unmake = sc_unmake,
    .in_check = sc_in_check,
    .royal_attacked = sc_royal_attacked,
    .fen_parse_castling = sc_parse_castling,
    .fen_format_castling = sc_format_castling,
    .fen_parse_extra = sc_parse_pool,
    .fen_format_extra = sc_format_pool,
    .validate = sc_validate,
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
        .starts = {{"p0", SC_P0},
                   {"p1", SC_P1},
                   {"p0-nr", "dofekmga/tthpphtt/8/8/8/8/TTHPPHTT/DOFEKMGA w - - 0 1"}},
        .pawn_start_rank = {1, 6},
        /* The pool types in notation order; X, a hand choice while held, comes after them. */
        .promo_types = {SC_Q, SC_R, SC_B, SC_N, SC_M, SC_F, SC_D, SC_G, SC_O, 0},
        .stalemate_score = 500,
        .ops = &superchess_ops,
};
