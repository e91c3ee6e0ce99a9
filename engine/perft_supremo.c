/* perft_supremo.c - Supremo perft with a last-ply counter written for Supremo's own pieces.
 *
 * perft spends nearly all its time counting the legal moves of the positions one ply above
 * the leaves. This counter does it on the bitboards alone (no mailbox, no key, no undo
 * record, no move encoding): each piece's destinations are a set, counted by popcount,
 * and only the moves that may expose the King are played on a copy of the bitboards and
 * followed by an attack test written for the Supremo pieces.
 *
 * Which moves may expose the King, when it is not in check (in check, see
 * check_prepare): a move vacates squares (origin, intermediate victim, blast victims),
 * fills its destination, or turns an enemy piece there into one of ours. Slides and hops
 * along a King's line are opened only by vacating, and only when an enemy slider of the
 * line's kind stands 3rd to 5th from the King (one move vacates at most three squares of a
 * line). A double leap is opened by vacating or capturing on a blocked intermediate
 * square; a blast or a Commando walk by any change in the few squares between the enemy
 * piece and the King. */
#include <stdio.h>
#include <stdlib.h>

#include "perft_supremo_attack.h"

/* State of one count: the board, the side, its King and the squares that make a move
 * risky (see the top of the file). */
typedef struct CountCtx {
    const SupTables *T;
    const SupBoard *b;
    int us, k;
    u128 vac;   /* vacating one of these may expose the King */
    u128 fill;  /* filling one of these, or capturing on it, may */
    u128 blast; /* landings next to an enemy on a square of vac */
    /* The part of vac not on the King's lines, and on them the pieces of ours that a
     * move vacating only its origin must keep between the King and an enemy slider third
     * on the line (or let take it): their squares in lpinned, where they may go in
     * lallow (written for the squares of lpinned only). */
    u128 vac_other, lpinned;
    u128 *lallow;
    bool check;
    /* In check, the moves that may be legal (then each is tested): the King's, and those
     * that start on vac, land on chk_to, capture on chk_mid on the way or blast on
     * chk_blast. */
    u128 chk_to, chk_mid, chk_blast;
} CountCtx;

/* c = b after side us's type-t piece moves from `from` to `to` (through the intermediate
 * victim mid, becoming type nt; a Terminator that stays one blasts). */
static FORCE_INLINE void sb_play(const SupTables *T, SupBoard *c, const SupBoard *b, int us, int t,
                                 int from, int to, int mid, int nt) {
    const int them = us ^ 1;
    *c = *b;
    u128 fb = sup_sq_bit[from], tb = sup_sq_bit[to];
    u128 gone = (tb | sup_sq_bit[mid]) & c->col[them];
    if (t == SUP_TERMINATOR && nt == t) gone |= T->kmask[to] & c->col[them] & ~c->pc[SUP_PROTECTOR];
    if (gone) {
        for (int i = SUP_PAWN; i <= SUP_PROTECTOR; i++) c->pc[i] &= ~gone;
        c->col[them] &= ~gone;
    }
    c->pc[t] &= ~fb;
    c->col[us] &= ~fb;
    c->pc[nt] |= tb;
    c->col[us] |= tb;
}

/* Whether the move of side us's type-t piece from `from` to `to` (through the intermediate
 * victim mid, becoming type nt) leaves its King on k unattacked, on the bitboards pc (by
 * type) and col (by colour): tested on three sets after the move (the opponent's pieces,
 * the occupancy, our pieces it may take), not on a copy of the board with the move played.
 * The counter's test (move_safe) and the legal generator's (supremo_lean_move_safe). */
static FORCE_INLINE bool safe_after(const SupTables *T, const u128 *pc, const u128 *col, int us,
                                    int k, int t, int from, int to, int mid, int nt) {
    const int them = us ^ 1;
    const u128 fb = sup_sq_bit[from], tb = sup_sq_bit[to];
    u128 gone = (tb | sup_sq_bit[mid]) & col[them];
    if (t == SUP_TERMINATOR && nt == t) gone |= T->kmask[to] & col[them] & ~pc[SUP_PROTECTOR];
    const u128 mine = (col[us] & ~pc[SUP_PROTECTOR] & ~fb) | (nt != SUP_PROTECTOR ? tb : 0);
    const SupView w = {pc, col[them] & ~gone, ((col[0] | col[1]) & ~fb & ~gone) | tb, mine};
    return !sb_attacked(T, &w, t == SUP_KING ? to : k, them);
}

/* safe_after for the count's side and King. */
static FORCE_INLINE bool move_safe(const CountCtx *x, int t, int from, int to, int mid, int nt) {
    return safe_after(x->T, x->b->pc, x->b->col, x->us, x->k, t, from, to, mid, nt);
}

/* The bitboards of pos. */
static FORCE_INLINE void board_of(const Position *pos, SupBoard *b) {
    for (int t = SUP_PAWN; t <= SUP_PROTECTOR; t++) b->pc[t] = pos->bb.b10.type[t];
    b->pc[0] = 0;
    b->col[WHITE] = pos->bb.b10.color[WHITE];
    b->col[BLACK] = pos->bb.b10.color[BLACK];
}

/* Whether side by attacks sq on pos: sb_attacked on the position's own bitboards. */
bool supremo_lean_attacked(const Position *pos, int sq, int by) {
    const u128 *pc = pos->bb.b10.type, *col = pos->bb.b10.color;
    const SupView w = {pc, col[by], col[0] | col[1], col[by ^ 1] & ~pc[SUP_PROTECTOR]};
    return sb_attacked(pos->var->tables, &w, sq, by);
}

/* Whether pseudo-legal m leaves the mover's King on k unattacked: safe_after on the
 * position's own bitboards. */
bool supremo_lean_move_safe(const Position *pos, Move m, int k) {
    const int from = MOVE_FROM(m), t = PC_TYPE(pos->board[from]);
    return safe_after(pos->var->tables, pos->bb.b10.type, pos->bb.b10.color, pos->side, k, t, from,
                      MOVE_TO(m), MOVE_MID(m), MOVE_PROMO(m) ? MOVE_PROMO(m) : t);
}

/* Number of legal moves of the type-t piece from `from` to the squares of dests, through
 * the intermediate victim mid; promotions (on pz) count once per type. */
static FORCE_INLINE uint64_t count_dests(const CountCtx *x, int t, int from, u128 dests, int mid,
                                         u128 pz) {
    if (!dests) return 0;
    u128 risky, safe;
    if (x->check) {
        risky = (sup_sq_bit[from] & x->vac) || (sup_sq_bit[mid] & x->chk_mid)
                    ? dests
                    : dests & (x->chk_to | (t == SUP_TERMINATOR ? x->chk_blast : 0));
        safe = 0;
    } else {
        u128 touched = sup_sq_bit[from] | sup_sq_bit[mid];
        if (!(touched & x->vac)) {
            risky = dests & (x->fill | (t == SUP_TERMINATOR ? x->blast : 0));
        } else if (mid == NO_SQ && t != SUP_TERMINATOR && !(touched & x->vac_other)) {
            /* only its origin empties, on a King's line: sliders need two screens */
            if (x->lpinned & touched) dests &= x->lallow[from];
            risky = dests & x->fill;
        } else {
            risky = dests;
        }
        safe = dests & ~risky;
    }
    uint64_t n = (uint64_t)bb128_popcount(safe & ~pz) + 7 * (uint64_t)bb128_popcount(safe & pz);
    while (risky) {
        int to = bb128_pop_lsb(&risky);
        if (pz & sup_sq_bit[to])
            n += 6 * (uint64_t)move_safe(x, t, from, to, mid, SUP_QUEEN) +
                 move_safe(x, t, from, to, mid, SUP_PROTECTOR);
        else n += move_safe(x, t, from, to, mid, t);
    }
    return n;
}

/* The same for pawn moves onto the squares of dests from `back` squares behind; the pawns
 * on vac (their targets shifted into risky_src) are tested one by one. */
static FORCE_INLINE uint64_t count_pawns(const CountCtx *x, u128 dests, int back, u128 risky_src,
                                         u128 pz) {
    u128 risky = dests & ((x->check ? x->chk_to : x->fill) | risky_src);
    u128 safe = x->check ? 0 : dests & ~risky;
    uint64_t n = (uint64_t)bb128_popcount(safe & ~pz) + 7 * (uint64_t)bb128_popcount(safe & pz);
    while (risky) {
        int to = bb128_pop_lsb(&risky);
        if (pz & sup_sq_bit[to])
            n += 6 * (uint64_t)move_safe(x, SUP_PAWN, to - back, to, NO_SQ, SUP_QUEEN) +
                 move_safe(x, SUP_PAWN, to - back, to, NO_SQ, SUP_PROTECTOR);
        else n += move_safe(x, SUP_PAWN, to - back, to, NO_SQ, SUP_PAWN);
    }
    return n;
}

/* Shifts a square set `n` squares up (n > 0) or down. */

/* Marks what may expose the King on k (not in check) in x->vac, x->fill and x->blast. */
static void count_prepare(CountCtx *x) {
    const SupTables *T = x->T;
    const SupBoard *b = x->b;
    const int k = x->k, them = x->us ^ 1;
    const u128 opp = b->col[them], occ = b->col[0] | b->col[1];
    const u128 q = b->pc[SUP_QUEEN] & opp, rq = (b->pc[SUP_ROOK] & opp) | q;
    const u128 bq = (b->pc[SUP_BISHOP] & opp) | q;
    const u128 own = b->col[x->us];
    u128 vac = 0, fill = 0, lpinned = 0;
    if (T->lines[k] & (rq | bq))
        for (int d = 0; d < 8; d++) {
            u128 ray = T->ray[d][k], fam = (SUP_ORTH_DIRS >> d) & 1 ? rq : bq;
            if (!(ray & fam)) continue;
            u128 blk = ray & occ;
            int far = NO_SQ, sqs[5], npc = 0;
            for (; npc < 5 && blk; npc++) {
                int sq = sqs[npc] = d < 4 ? bb128_lsb(blk) : bb128_msb(blk);
                blk &= ~sup_sq_bit[sq];
                if (fam & sup_sq_bit[sq]) far = sq;
            }
            if (far == NO_SQ) continue;
            vac |= ray & ~T->ray[d][far];
            if (npc >= 3 && (fam & sup_sq_bit[sqs[2]])) {
                u128 seg = ray & ~T->ray[d][sqs[2]];
                for (int i = 0; i < 2; i++)
                    if (own & sup_sq_bit[sqs[i]]) {
                        lpinned |= sup_sq_bit[sqs[i]];
                        x->lallow[sqs[i]] = seg & ~sup_sq_bit[sqs[1 - i]];
                    }
            }
        }
    const u128 vac_line = vac;
    vac = 0;
    u128 en = b->pc[SUP_KNIGHT] & opp & sup_knight2[k];
    if (en) {
        u128 reach = 0;
        while (en) reach |= T->leap_cp[SUP_KNIGHT][them][bb128_pop_lsb(&en)];
        u128 blocked = T->leap_cp[SUP_KNIGHT][them][k] & reach & (opp | b->pc[SUP_PROTECTOR]);
        vac |= blocked;
        fill |= blocked;
    }
    for (u128 et = b->pc[SUP_TERMINATOR] & opp & T->box[3][k]; et;) {
        int t = bb128_pop_lsb(&et);
        vac |= T->box[2][t] & T->kmask[k];
        fill |= T->kmask[t];
    }
    for (u128 ec = b->pc[SUP_COMMANDO] & opp & T->box[4][k]; ec;) {
        int c = bb128_pop_lsb(&ec);
        u128 z = (T->box[2][c] & T->box[3][k]) | (T->kmask[k] & T->box[3][c]);
        vac |= z;
        fill |= z;
    }
    x->vac_other = vac;
    x->lpinned = lpinned;
    vac |= vac_line;
    u128 blast = 0;
    for (u128 v = opp & ~b->pc[SUP_PROTECTOR] & vac; v;) blast |= T->kmask[bb128_pop_lsb(&v)];
    x->vac = vac;
    x->fill = fill;
    x->blast = blast;
}

/* In check, the squares where a move other than the King's must land, capture or blast
 * to remove or block every checker that a move can only answer so: pawns, Knights,
 * sliders and hoppers; when a blast or walk checks, also the squares it depends on, in
 * vac too (a move from one of them may answer it). */
static void check_prepare(CountCtx *x) {
    const SupTables *T = x->T;
    const SupBoard *b = x->b;
    const int k = x->k, them = x->us ^ 1;
    const u128 opp = b->col[them], occ = b->col[0] | b->col[1];
    const u128 q = b->pc[SUP_QUEEN] & opp, rq = (b->pc[SUP_ROOK] & opp) | q;
    const u128 bq = (b->pc[SUP_BISHOP] & opp) | q;
    u128 simple =
        ((T->leap_from[SUP_PAWN][them][k] & b->pc[SUP_PAWN]) | (T->kmask[k] & b->pc[SUP_KING]) |
         (T->leap_cp[SUP_KNIGHT][them][k] & b->pc[SUP_KNIGHT])) &
        opp;
    u128 to = simple;
    u128 lines = (lines_of(sup_line_hit, k, occ, LINE10_ORTH) & rq) |
                 (lines_of(sup_line_hit, k, occ, LINE10_DIAG) & bq);
    simple |= lines;
    while (lines) {
        int a = bb128_pop_lsb(&lines);
        for (int d = 0; d < 8; d++)
            if (T->ray[d][k] & sup_sq_bit[a]) to |= T->ray[d][k] & ~T->ray[d][a];
    }
    /* a double leap is answered by taking the Knight or by a Protector on its route */
    const u128 kk = T->leap_cp[SUP_KNIGHT][them][k];
    const u128 pass = (T->full & ~occ) | (b->col[x->us] & ~b->pc[SUP_PROTECTOR]);
    for (u128 en = b->pc[SUP_KNIGHT] & opp & sup_knight2[k]; en;) {
        int n = bb128_pop_lsb(&en);
        u128 mids = T->leap_cp[SUP_KNIGHT][them][n] & kk;
        if (mids & pass) {
            simple |= sup_sq_bit[n];
            to |= sup_sq_bit[n] | mids;
        }
    }
    x->check = true;
    /* a blast or walk is answered only by a change on the squares it depends on: a move
     * from, to or through one of them, or a blast next to one */
    const SupView w = view_of(b, them);
    const u128 walk = walks_dep(T, &w, k);
    if (!simple && !walk) {
        x->chk_to = x->chk_mid = x->chk_blast = T->full;
        return;
    }
    x->chk_to = to | walk;
    x->chk_mid = simple | walk;
    x->vac = walk;
    x->chk_blast = walk ? walk | (step_any(T, walk, 0) & T->full) : 0;
    for (u128 s = simple; s;) x->chk_blast |= T->kmask[bb128_pop_lsb(&s)];
}

/* The sets of count_prepare or check_prepare for pos's side to move (see SupRisk). */
void supremo_lean_risk(const Position *pos, int k, bool check, SupRisk *r) {
    SupBoard b;
    board_of(pos, &b);
    CountCtx x = {.T = pos->var->tables, .b = &b, .us = pos->side, .k = k, .lallow = r->lallow};
    if (check) check_prepare(&x);
    else count_prepare(&x);
    r->check = check;
    r->vac = x.vac;
    r->fill = x.fill;
    r->blast = x.blast;
    r->vac_other = x.vac_other;
    r->lpinned = x.lpinned;
    r->chk_to = x.chk_to;
    r->chk_mid = x.chk_mid;
    r->chk_blast = x.chk_blast;
}

/* Destinations of one piece's moves that share an origin and an intermediate victim. */
typedef struct Group {
    u128 dests;
    uint8_t from, mid, type;
} Group;

/* The groups of every piece of one side but its pawns and King, on one board, with the
 * squares each piece's groups depend on: siblings in the tree (the children of one node)
 * differ from that board only on a few squares, so most pieces keep their groups. Most
 * squares a piece looks at are only landings, where what counts is whether the piece
 * may land (empty, or an enemy it may take); a sibling's quiet move changes that nowhere
 * (its origin and destination stay squares to take or to land on), so only a change of
 * occupancy on the squares that shape the piece's reach (a leap's middle, a screen, a
 * ray) calls for new groups. */
typedef struct PieceCache {
    int npieces, ngroups;
    u128 occ, open; /* the board's occupied squares, and those the side may land on */
    u128 pieces;    /* the squares of the pieces */
    struct {
        u128 dep;     /* a change of `open` here or any change on the piece (its capture)
                       * calls for new groups */
        u128 fix;     /* so does a change of occupancy here */
        u128 bit;     /* the piece's square */
        u128 touched; /* origin and intermediate victims of its groups */
        u128 dests;   /* union of their destinations */
        u128 dep_in;  /* Protector: the squares its first two steps looked at */
        u128 second;  /* Protector: the squares its second step reached */
        uint8_t sq, type;
        uint16_t first, count, moves;
    } piece[MAX_SQ];
    Group group[16 * MAX_SQ];
    /* With at most 64 pieces, per square the pieces (bit i: piece i) whose dep, fix,
     * touched and dests hold it, the squares of any dests, and the number of all their moves. */
    bool maps;
    /* When pawn_ok, the pawns' moves on the board with count_prepare's sets of the board:
     * the squares a change of which changes them, the number of those that need no test,
     * and per direction (pawn_back) the destinations of those that do. */
    bool pawn_ok, pawn_any;
    u128 pawn_zone, pawn_risky[4];
    uint64_t pawn_safe;
    /* The King's steps tested on the board (king_tested), those found legal, and per step
     * the squares the test looked at (king_depw: also those a Terminator or Commando
     * moving there would). */
    u128 king_tested, king_safe, king_dep[MAX_SQ], king_depw[MAX_SQ];
    uint64_t dep_of[MAX_SQ], fix_of[MAX_SQ], touched_of[MAX_SQ], dests_of[MAX_SQ];
    u128 any_dests;
    uint64_t moves;
} PieceCache;

/* The union of map[s] over the squares s of x, walked as two 64-bit halves (taking the
 * lowest bit of a 128-bit set costs about ten instructions, of a 64-bit one three; with
 * mark_each, for the maps of the piece cache: start perft 4 2902.6M -> 2781.0M,
 * middlegame 314.2M -> 305.5M). */
static FORCE_INLINE uint64_t union_of(const uint64_t *map, u128 x) {
    uint64_t r = 0;
    for (uint64_t w = (uint64_t)x; w; w &= w - 1) r |= map[__builtin_ctzll(w)];
    for (uint64_t w = (uint64_t)(x >> 64); w; w &= w - 1) r |= map[64 + __builtin_ctzll(w)];
    return r;
}

/* Adds me to map[s] for every square s of x, walked the same way. */
static FORCE_INLINE void mark_each(uint64_t *map, u128 x, uint64_t me) {
    for (uint64_t w = (uint64_t)x; w; w &= w - 1) map[__builtin_ctzll(w)] |= me;
    for (uint64_t w = (uint64_t)(x >> 64); w; w &= w - 1) map[64 + __builtin_ctzll(w)] |= me;
}

/* A board's occupied and empty squares, and the enemies side us may take. */
typedef struct Squares {
    u128 occ, empty, capt;
} Squares;

/* Writes the groups of the type-t piece of side us on s into g (empty ones left out);
 * returns how many, and in *dep the squares whose contents they depend on: every square
 * a step, leap or ray looked at (a jK landing only where the jumped square is occupied; a
 * change of that square is seen on it). */
static int piece_groups(const SupTables *T, const Squares *q, int us, int s, int t, Group *g,
                        u128 *dep) {
    const u128 occ = q->occ, empty = q->empty, capt = q->capt, open = empty | capt;
    const u128 sb = sup_sq_bit[s];
    int n = 0;
    u128 d = 0;
    switch (t) {
    case SUP_KNIGHT: {
        /* single leaps, quiet double leaps, double leaps through a victim */
        u128 single = T->leap_cp[SUP_KNIGHT][us][s] & open, quiet = 0;
        *dep = T->leap_cp[SUP_KNIGHT][us][s];
        for (u128 f = single; f;) {
            int m = bb128_pop_lsb(&f);
            *dep |= T->leap_cp[SUP_KNIGHT][us][m];
            u128 sec = T->leap_cp[SUP_KNIGHT][us][m] & (open | sb);
            if (empty & sup_sq_bit[m]) quiet |= sec;
            else if (sec) g[n++] = (Group){sec, (uint8_t)s, (uint8_t)m, (uint8_t)t};
        }
        d = single | (quiet & ~sb);
        break;
    }
    case SUP_BISHOP:
    case SUP_ROOK:
    case SUP_QUEEN: {
        /* slides and hops; nothing beyond the second piece of a ray matters */
        u128 all = t == SUP_BISHOP ? lines_of(sup_line_all, s, occ, LINE10_DIAG)
                   : t == SUP_ROOK ? lines_of(sup_line_all, s, occ, LINE10_ORTH)
                                   : lines_of(sup_line_all, s, occ, LINE10_KINDS);
        d = all & open;
        *dep = all;
        break;
    }
    case SUP_TERMINATOR:
        /* a K step onto an empty square or a jK step (the blast is the legality test's) */
        *dep = step_one(T, s, occ);
        d = *dep & empty;
        break;
    case SUP_COMMANDO: {
        /* two steps, capturing on either landing */
        u128 occ0 = occ & ~sb, open0 = open | sb, reach = step_one(T, s, occ0);
        u128 land1 = reach & open0, c1 = land1 & capt, step2 = step_any(T, land1 & ~capt, occ0);
        d = step2 & open0 & ~sb;
        reach |= step2;
        while (c1) {
            int m = bb128_pop_lsb(&c1);
            u128 r = step_one(T, m, occ0), sec = r & open0;
            reach |= r;
            if (sec) g[n++] = (Group){sec, (uint8_t)s, (uint8_t)m, (uint8_t)t};
        }
        *dep = reach;
        break;
    }
    default: {
        /* Protector: three steps onto empty squares */
        u128 occ0 = occ & ~sb, empty0 = empty | sb;
        u128 a1 = step_one(T, s, occ0), a2 = step_any(T, a1 & empty0, occ0);
        u128 a3 = step_any(T, a2 & empty0, occ0);
        d = a3 & empty0 & ~sb;
        *dep = a1 | a2 | a3;
        break;
    }
    }
    if (d) g[n++] = (Group){d, (uint8_t)s, NO_SQ, (uint8_t)t};
    return n;
}

/* Fills c with the groups of side us's pieces on b. */
static void cache_build(const SupTables *T, const SupBoard *b, int us, PieceCache *c) {
    const u128 occ = b->col[0] | b->col[1];
    const Squares q = {occ, T->full & ~occ, b->col[us ^ 1] & ~b->pc[SUP_PROTECTOR]};
    c->npieces = c->ngroups = 0;
    c->pieces = 0;
    c->occ = occ;
    c->open = (T->full & ~occ) | (b->col[us ^ 1] & ~b->pc[SUP_PROTECTOR]);
    for (int t = SUP_KNIGHT; t <= SUP_PROTECTOR; t++) {
        if (t == SUP_KING) continue;
        for (u128 ps = b->pc[t] & b->col[us]; ps;) {
            int s = bb128_pop_lsb(&ps), i = c->npieces++;
            c->piece[i].sq = (uint8_t)s;
            c->piece[i].type = (uint8_t)t;
            c->piece[i].first = (uint16_t)c->ngroups;
            Group *g = c->group + c->ngroups;
            int n = piece_groups(T, &q, us, s, t, g, &c->piece[i].dep);
            c->piece[i].count = (uint16_t)n;
            c->piece[i].bit = c->piece[i].touched = sup_sq_bit[s];
            c->pieces |= sup_sq_bit[s];
            c->piece[i].dep |= sup_sq_bit[s];
            c->piece[i].fix = c->piece[i].dep;
            if (t == SUP_KNIGHT) {
                /* the second leaps are landings only */
                c->piece[i].fix = T->leap_cp[SUP_KNIGHT][us][s] | sup_sq_bit[s];
            } else if (t == SUP_COMMANDO) {
                /* the second steps' landings too, but not their screens (next to a first
                 * landing) */
                u128 occ0 = occ & ~sup_sq_bit[s], reach = step_one(T, s, occ0);
                u128 land1 = reach & (c->open | sup_sq_bit[s]);
                c->piece[i].fix = reach | (step_any(T, land1, 0) & T->full) | sup_sq_bit[s];
            }
            c->piece[i].dests = 0;
            int moves = 0;
            for (int j = 0; j < n; j++) {
                c->piece[i].touched |= sup_sq_bit[g[j].mid];
                c->piece[i].dests |= g[j].dests;
                moves += bb128_popcount(g[j].dests);
            }
            c->piece[i].moves = (uint16_t)moves;
            if (t == SUP_PROTECTOR) {
                u128 occ0 = (b->col[0] | b->col[1]) & ~sup_sq_bit[s], empty0 = T->full & ~occ0;
                u128 a1 = step_one(T, s, occ0), a2 = step_any(T, a1 & empty0, occ0);
                c->piece[i].dep_in = a1 | a2;
                c->piece[i].second = a2 & empty0;
            }
            c->ngroups += n;
        }
    }
    c->pawn_ok = false;
    c->king_tested = 0;
    c->maps = c->npieces <= 64;
    if (!c->maps) return;
    for (int s = 0; s < MAX_SQ; s++)
        c->dep_of[s] = c->fix_of[s] = c->touched_of[s] = c->dests_of[s] = 0;
    c->any_dests = 0;
    c->moves = 0;
    for (int i = 0; i < c->npieces; i++) {
        uint64_t me = 1ULL << i;
        mark_each(c->dep_of, c->piece[i].dep & T->full, me);
        mark_each(c->fix_of, c->piece[i].fix & T->full, me);
        mark_each(c->touched_of, c->piece[i].touched, me);
        mark_each(c->dests_of, c->piece[i].dests, me);
        c->any_dests |= c->piece[i].dests;
        c->moves += c->piece[i].moves;
    }
}

/* Per direction of the pawn moves of side us (push, double step, the two captures): how
 * far behind the destination the pawn stands. */
static FORCE_INLINE int pawn_back(int us, int i) {
    const int up = us == WHITE ? 10 : -10;
    return i == 0 ? up : i == 1 ? 2 * up : i == 2 ? up - 1 : up + 1;
}

/* The destinations of side us's pawn moves per direction into d, and the squares a change
 * of which may change them. */
static FORCE_INLINE u128 pawn_dests(const Variant *v, const SupBoard *b, const int us, u128 empty,
                                    u128 capt, u128 d[4]) {
    const SupTables *T = v->tables;
    const u128 p = b->pc[SUP_PAWN] & b->col[us];
    const int up = pawn_back(us, 0);
    const u128 start = p & ((u128)0x3FF << (10 * v->pawn_start_rank[us]));
    const u128 pa = p & T->not_file_a, pj = p & T->not_file_j;
    const u128 fwd = bb128_shift(p, up), lw = bb128_shift(pa, up - 1), rt = bb128_shift(pj, up + 1);
    d[0] = fwd & empty;
    d[1] = bb128_shift(d[0] & bb128_shift(start, up), up) & empty;
    d[2] = lw & capt;
    d[3] = rt & capt;
    return p | fwd | bb128_shift(start, 2 * up) | lw | rt;
}

/* Keeps in c side x->us's pawn moves on x->b (not in check) with x's sets, for the
 * children that keep both. */
static void pawn_keep(const Variant *v, const CountCtx *x, PieceCache *c) {
    const SupTables *T = x->T;
    const SupBoard *b = x->b;
    const int us = x->us;
    const u128 occ = b->col[0] | b->col[1], empty = T->full & ~occ;
    const u128 capt = b->col[us ^ 1] & ~b->pc[SUP_PROTECTOR], pz = T->last_rank[us];
    const u128 pr = b->pc[SUP_PAWN] & b->col[us] & x->vac;
    u128 d[4];
    c->pawn_zone = pawn_dests(v, b, us, empty, capt, d);
    c->pawn_safe = 0;
    c->pawn_any = false;
    for (int i = 0; i < 4; i++) {
        u128 risky = d[i] & (x->fill | bb128_shift(pr, pawn_back(us, i))), safe = d[i] & ~risky;
        c->pawn_safe +=
            (uint64_t)bb128_popcount(safe & ~pz) + 7 * (uint64_t)bb128_popcount(safe & pz);
        c->pawn_risky[i] = risky;
        c->pawn_any |= risky != 0;
    }
    c->pawn_ok = true;
}

/* Tests in c side x->us's King steps on x->b and keeps what each test looked at: the rays
 * from the step up to their second piece (the King lifted), its neighbours, the squares a
 * pawn or Knight takes it from or leaps through, and the squares within four steps where
 * a Terminator or Commando stands near. */
static void king_keep(const CountCtx *x, PieceCache *c) {
    const SupTables *T = x->T;
    const SupBoard *b = x->b;
    const int by = x->us ^ 1;
    const u128 occk = (b->col[0] | b->col[1]) & ~sup_sq_bit[x->k];
    const u128 open = (T->full & ~occk) | (b->col[by] & ~b->pc[SUP_PROTECTOR]);
    const u128 walkers = (b->pc[SUP_TERMINATOR] | b->pc[SUP_COMMANDO]) & b->col[by];
    c->king_tested = c->king_safe = 0;
    for (u128 t = T->kmask[x->k] & open; t;) {
        int s = bb128_pop_lsb(&t);
        c->king_tested |= sup_sq_bit[s];
        if (move_safe(x, SUP_KING, x->k, s, NO_SQ, SUP_KING)) c->king_safe |= sup_sq_bit[s];
        u128 d = lines_of(sup_line_all, s, occk, LINE10_KINDS) | sup_sq_bit[s] | T->kmask[s] |
                 sup_knight2[s] | T->leap_cp[SUP_KNIGHT][by][s] | T->leap_from[SUP_PAWN][by][s];
        c->king_depw[s] = d | T->box[4][s];
        c->king_dep[s] = walkers & T->box[4][s] ? c->king_depw[s] : d;
    }
}

/* Number of legal moves of the side to move, or -1 when the general generator must count
 * (no King). The pieces other than pawns and King come from c, built for this side on a
 * board that differs from b only on the squares of delta; `check` says whether the side is
 * in check (-1: not known); prep, if given, holds count_prepare's sets for this board. */
static FORCE_INLINE int64_t count_lean_side(const Variant *v, const SupBoard *b, const int us,
                                            const PieceCache *c, u128 delta, int check,
                                            const CountCtx *prep, int walker) {
    const SupTables *T = v->tables;
    const int them = us ^ 1;
    const u128 own = b->col[us], opp = b->col[them], occ = own | opp;
    const u128 empty = T->full & ~occ, capt = opp & ~b->pc[SUP_PROTECTOR], open = empty | capt;
    u128 kb = b->pc[SUP_KING] & own;
    if (!kb) return -1;
    CountCtx x = {.T = T, .b = b, .us = us, .k = bb128_lsb(kb)};
    u128 lallow[MAX_SQ];
    if (check < 0) {
        const SupView w = view_of(b, them);
        check = sb_attacked(T, &w, x.k, them);
    }
    if (check) {
        check_prepare(&x);
    } else if (prep) {
        x.vac = prep->vac;
        x.fill = prep->fill;
        x.blast = prep->blast;
        x.vac_other = prep->vac_other;
        x.lpinned = prep->lpinned;
        x.lallow = prep->lallow;
    } else {
        x.lallow = lallow;
        count_prepare(&x);
    }
    uint64_t n = 0;

    /* Pawns, set-wise: pushes, double steps from the start rank, captures; kept from the
     * cache where the board and count_prepare's sets are the cache's around them. */
    const u128 pz = T->last_rank[us];
    if (!x.check && prep && c->pawn_ok && !(delta & c->pawn_zone)) {
        n += c->pawn_safe;
        if (c->pawn_any)
            for (int i = 0; i < 4; i++)
                n += count_pawns(&x, c->pawn_risky[i], pawn_back(us, i), T->full, pz);
    } else {
        const u128 pr = b->pc[SUP_PAWN] & own & x.vac;
        u128 d[4];
        pawn_dests(v, b, us, empty, capt, d);
        n += count_pawns(&x, d[0], pawn_back(us, 0), bb128_shift(pr, pawn_back(us, 0)), pz);
        n += count_pawns(&x, d[1], pawn_back(us, 1), bb128_shift(pr, pawn_back(us, 1)), pz);
        n += count_pawns(&x, d[2], pawn_back(us, 2), bb128_shift(pr, pawn_back(us, 2)), pz);
        n += count_pawns(&x, d[3], pawn_back(us, 3), bb128_shift(pr, pawn_back(us, 3)), pz);
    }
    /* King steps, each tested, or kept from the cache where the move (a Terminator's or
     * Commando's if walker) changed nothing the test looked at. */
    for (u128 t = T->kmask[x.k] & open; t;) {
        int s = bb128_pop_lsb(&t);
        if ((c->king_tested & sup_sq_bit[s]) &&
            !(delta & (walker ? c->king_depw[s] : c->king_dep[s])))
            n += (c->king_safe & sup_sq_bit[s]) != 0;
        else n += move_safe(&x, SUP_KING, x.k, s, NO_SQ, SUP_KING);
    }
    /* The other pieces: their groups from the cache, or new ones where the board changed
     * around them; a piece on delta was taken. */
    Group fresh[16];
    const Squares q = {occ, empty, capt};
    const u128 fill_blast = x.fill | x.blast;
    const u128 occ_ch = occ ^ c->occ, open_ch = open ^ c->open;
    uint64_t redo = ~0ULL;
    if (c->maps && !x.check) {
        /* all the cached moves, less those of the pieces the move changed (recounted
         * below) or that may expose the King (tested below) */
        redo = union_of(c->fix_of, occ_ch) | union_of(c->dep_of, open_ch);
        /* a piece taken without either (by a pawn promoting to a Protector) */
        redo |= union_of(c->dep_of, delta & c->pieces & ~open_ch);
        redo |=
            union_of(c->touched_of, x.vac & occ) | union_of(c->dests_of, fill_blast & c->any_dests);
        n += c->moves;
        for (uint64_t r = redo; r; r &= r - 1) n -= c->piece[__builtin_ctzll(r)].moves;
    }
    for (int base = 0; base < c->npieces; base += 64) {
        int left = c->npieces - base;
        uint64_t todo = (base ? ~0ULL : redo) & (left >= 64 ? ~0ULL : (1ULL << left) - 1);
        while (todo) {
            int i = base + __builtin_ctzll(todo);
            todo &= todo - 1;
            const Group *g = c->group + c->piece[i].first;
            int ng = c->piece[i].count;
            if (delta & c->piece[i].bit) continue;
            if ((occ_ch & c->piece[i].fix) || (open_ch & c->piece[i].dep)) {
                u128 dep;
                g = fresh;
                if (c->piece[i].type == SUP_PROTECTOR && !(occ_ch & c->piece[i].dep_in)) {
                    /* the first two steps stand: only the third is walked again */
                    u128 bit = c->piece[i].bit, occ0 = occ & ~bit;
                    u128 d = step_any(T, c->piece[i].second, occ0) & (empty | bit) & ~bit;
                    fresh[0] = (Group){d, c->piece[i].sq, NO_SQ, SUP_PROTECTOR};
                    ng = d ? 1 : 0;
                } else {
                    ng = piece_groups(T, &q, us, c->piece[i].sq, c->piece[i].type, fresh, &dep);
                }
            } else if (!x.check && !(c->piece[i].touched & x.vac) &&
                       !(c->piece[i].dests & fill_blast)) {
                /* no move of the piece can expose the King: all of them count */
                n += c->piece[i].moves;
                continue;
            }
            for (int j = 0; j < ng; j++)
                n += count_dests(&x, g[j].type, g[j].from, g[j].dests, g[j].mid, 0);
        }
    }
    return (int64_t)n;
}

/* count_lean_side instantiated per side to move (pawn directions become constants). */
static int64_t count_lean_white(const Variant *v, const SupBoard *b, const PieceCache *c,
                                u128 delta, int check, const CountCtx *prep, int walker) {
    return count_lean_side(v, b, WHITE, c, delta, check, prep, walker);
}
static int64_t count_lean_black(const Variant *v, const SupBoard *b, const PieceCache *c,
                                u128 delta, int check, const CountCtx *prep, int walker) {
    return count_lean_side(v, b, BLACK, c, delta, check, prep, walker);
}

/* count_lean_side for side us. */
static int64_t count_lean(const Variant *v, const SupBoard *b, int us, const PieceCache *c,
                          u128 delta, int check, const CountCtx *prep, int walker) {
    return us == WHITE ? count_lean_white(v, b, c, delta, check, prep, walker)
                       : count_lean_black(v, b, c, delta, check, prep, walker);
}

/* Number of legal moves of pos's side to move: the lean count, or the general one. */
static uint64_t count_position(Position *pos) {
    SupBoard b;
    board_of(pos, &b);
    PieceCache *c = malloc(sizeof *c);
    if (!c) return supremo_count_legal(pos);
    cache_build(pos->var->tables, &b, pos->side, c);
    int64_t n = count_lean(pos->var, &b, pos->side, c, 0, -1, NULL, 0);
    free(c);
    return n >= 0 ? (uint64_t)n : supremo_count_legal(pos);
}

/* Leaves two plies below pos: every child counted with the groups of the opponent's pieces
 * built once on pos. */
static uint64_t perft2(Position *pos, PieceCache *c) {
    const SupTables *T = pos->var->tables;
    const int us = pos->side, them = us ^ 1;
    SupBoard b0, b1;
    board_of(pos, &b0);
    cache_build(T, &b0, them, c);
    /* what of ours a move may not touch for the opponent's King to stay unattacked
     * (unless the moved piece itself attacks it) */
    u128 kb = b0.pc[SUP_KING] & b0.col[them];
    CountCtx kx = {.T = T, .b = &b0, .us = them, .k = kb ? bb128_lsb(kb) : NO_SQ};
    u128 kx_allow[MAX_SQ];
    kx.lallow = kx_allow;
    /* count_prepare's sets stay those of the child where its move changes no square on
     * the King's lines, in its double-leap range or on vac, and moves no Terminator or
     * Commando near the King */
    u128 prep_dep = 0, walker_zone = 0;
    if (kb) {
        count_prepare(&kx);
        pawn_keep(pos->var, &kx, c);
        king_keep(&kx, c);
        prep_dep = T->lines[kx.k] | sup_knight2[kx.k] | T->leap_cp[SUP_KNIGHT][us][kx.k] | kx.vac;
        walker_zone = T->box[4][kx.k];
    }
    const u128 occ0 = b0.col[WHITE] | b0.col[BLACK];
    Move list[MAX_MOVES];
    int n = supremo_gen_legal(pos, list);
    uint64_t total = 0;
    for (int i = 0; i < n; i++) {
        Move m = list[i];
        int from = MOVE_FROM(m), to = MOVE_TO(m), t = PC_TYPE(pos->board[from]);
        int nt = MOVE_PROMO(m) ? MOVE_PROMO(m) : t;
        sb_play(T, &b1, &b0, us, t, from, to, MOVE_MID(m), nt);
        u128 delta = (b0.col[WHITE] ^ b1.col[WHITE]) | (b0.col[BLACK] ^ b1.col[BLACK]);
        u128 occ1 = b1.col[WHITE] | b1.col[BLACK];
        int check = -1;
        if (kb && !(occ0 & ~occ1 & kx.vac) && !(delta & occ1 & kx.fill))
            check = piece_attacks(T, &b1, to, nt, kx.k, us);
        bool walker =
            t == SUP_TERMINATOR || t == SUP_COMMANDO || nt == SUP_TERMINATOR || nt == SUP_COMMANDO;
        bool same = kb && !(delta & prep_dep) && !(walker && (delta & walker_zone));
        int64_t k = count_lean(pos->var, &b1, them, c, delta, check, same ? &kx : NULL, walker);
        if (k < 0) {
            supremo_make(pos, m);
            k = (int64_t)supremo_count_legal(pos);
            supremo_unmake(pos);
        }
        total += (uint64_t)k;
    }
    return total;
}

/* perft below the root: the general generator, make and unmake down to two plies above
 * the leaves. */
static uint64_t perft_node(Position *pos, int depth, PieceCache *c) {
    if (depth == 2) return perft2(pos, c);
    Move list[MAX_MOVES];
    int n = supremo_gen_legal(pos, list);
    uint64_t total = 0;
    for (int i = 0; i < n; i++) {
        supremo_make(pos, list[i]);
        total += perft_node(pos, depth - 1, c);
        supremo_unmake(pos);
    }
    return total;
}

/* Leaves of the legal-move tree of a Supremo position, depth >= 0: the general generator,
 * make and unmake above the last ply, the lean count at it. */
uint64_t supremo_perft(Position *pos, int depth) {
    if (depth <= 0) return 1;
    if (depth == 1) return count_position(pos);
    PieceCache *c = malloc(sizeof *c);
    if (!c) return perft_generic(pos, depth);
    uint64_t n = perft_node(pos, depth, c);
    free(c);
    return n;
}
