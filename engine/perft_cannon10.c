/* perft_cannon10.c - cannon10 perft on a lean copy-make board with a legal generator
 * written for its six pieces (pawn, bishop, rook, queen, King, cannon).
 *
 * The board is nine 128-bit sets (by type and by colour): no mailbox, key or undo record.
 * Each node finds, once, what may expose its King when it is not in check:
 *
 *   - a piece of ours first on a King's line with an enemy slider of that line's kind
 *     second is pinned to the segment up to the slider (the usual pin);
 *   - on a rank or file, the first two pieces with an enemy cannon third: either one, if
 *     ours, must stay strictly between the King and the cannon without taking the other,
 *     or take the cannon (with one screen left the cannon would give check);
 *   - on a rank or file whose first piece is an enemy cannon, the empty squares between
 *     it and the King may not be filled (a piece there would be its screen).
 *
 * Every other move of a piece but the King is legal, so the last ply counts each piece's
 * destinations by popcount, and the plies above make only legal moves. King steps and
 * every move in check are tested one by one with an attack test on the changed board.
 * The side to move is a compile-time constant of each instantiation. */
#include "lines10.h"
#include "supremo.h"

/* The bitboards of a count: by type id (both colours) and by colour. */
typedef struct CanBoard {
    u128 pc[CAN_CANNON + 1];
    u128 col[2];
} CanBoard;

/* A move of the lean board:
 *
 *   19..17  16..14  13..7  6..0
 *  +-------+-------+------+------+
 *  | ntype | type  |  to  | from |
 *  +-------+-------+------+------+
 *
 *  type: the moving piece; ntype: what stands on `to` afterwards (a promotion differs). */
typedef uint32_t CanMove;
#define CM_MAKE(from, to, t, nt)                                                                   \
    ((CanMove)((uint32_t)(from) | (uint32_t)(to) << 7 | (uint32_t)(t) << 14 | (uint32_t)(nt) << 17))

/* Per line position and 10-bit occupancy (lines10.h): a slider's destinations (slide and
 * first piece), a cannon's (slide and second piece), the first and the second pieces. */
static const uint16_t (*fold_rider)[1024];
static const uint16_t (*fold_cannon)[1024];
static const uint16_t (*fold_first)[1024];
static const uint16_t (*fold_second)[1024];
static const uint16_t (*fold_all)[1024]; /* every field: what a cannon's moves depend on */
static u128 orth_lines[MAX_SQ], diag_lines[MAX_SQ]; /* a square's rank and file; diagonals */
/* A square, its neighbours and its lines: where a move can change whether it is attacked. */
static u128 near_lines[MAX_SQ];

/* Builds the kernel's tables (from cannon10's init, after lines10_init). */
bool cannon10_perft_init(const SupTables *T) {
    fold_rider = (const uint16_t(*)[1024])line10_fold_build(LINE10_SLIDE | LINE10_FIRST);
    fold_cannon = (const uint16_t(*)[1024])line10_fold_build(LINE10_SLIDE | LINE10_SECOND);
    fold_first = (const uint16_t(*)[1024])line10_fold_build(LINE10_FIRST);
    fold_second = (const uint16_t(*)[1024])line10_fold_build(LINE10_SECOND);
    fold_all = (const uint16_t(*)[1024])line10_fold_build(LINE10_FIELDS);
    if (!fold_rider || !fold_cannon || !fold_first || !fold_second || !fold_all) return false;
    for (int s = 0; s < MAX_SQ; s++) {
        orth_lines[s] = T->ray[0][s] | T->ray[1][s] | T->ray[4][s] | T->ray[5][s];
        diag_lines[s] = T->ray[2][s] | T->ray[3][s] | T->ray[6][s] | T->ray[7][s];
        near_lines[s] = orth_lines[s] | diag_lines[s] | T->kmask[s] | sup_bit(s);
    }
    return true;
}

/* The board squares of the fold entry of square s on its line of kind k. */
static FORCE_INLINE u128 line_look(const uint16_t (*fold)[1024], int k, int s, u128 occ) {
    int id = line10_id[k][s];
    unsigned m = fold[line10_pos[k][s]][line10_occ(id, occ)];
#if !CHESSVAR_PEXT
    m &= (1u << line10[id].len) - 1; /* the entry walks past a short diagonal's end */
#endif
    return line10_squares(id, m);
}

/* Squares of the fold entries of s on its rank and file. */
static FORCE_INLINE u128 orth_reach(const uint16_t (*fold)[1024], int s, u128 occ) {
    return line_look(fold, 0, s, occ) | line_look(fold, 1, s, occ);
}

/* Squares a slider on s reaches along its diagonals, its first pieces included. */
static FORCE_INLINE u128 diag_reach(int s, u128 occ) {
    return line_look(fold_rider, 2, s, occ) | line_look(fold_rider, 3, s, occ);
}

/* Squares of a slider (bishop, rook, queen) or cannon on s, any contents but its own
 * first piece for a cannon (the caller removes its own colour). */
static FORCE_INLINE u128 piece_reach(int t, int s, u128 occ) {
    switch (t) {
    case CAN_BISHOP: return line_look(fold_rider, 2, s, occ) | line_look(fold_rider, 3, s, occ);
    case CAN_ROOK: return line_look(fold_rider, 0, s, occ) | line_look(fold_rider, 1, s, occ);
    case CAN_QUEEN:
        return line_look(fold_rider, 0, s, occ) | line_look(fold_rider, 1, s, occ) |
               line_look(fold_rider, 2, s, occ) | line_look(fold_rider, 3, s, occ);
    default: return line_look(fold_cannon, 0, s, occ) | line_look(fold_cannon, 1, s, occ);
    }
}

/* Whether the pieces of side `by` on `alive` attack square k with the board occupied by
 * occ (k's own occupancy does not matter). */
static FORCE_INLINE bool attacked(const SupTables *T, const CanBoard *b, int k, int by, u128 occ,
                                  u128 alive) {
    const u128 x = b->col[by] & alive;
    if (((T->leap_from[CAN_PAWN][by][k] & b->pc[CAN_PAWN]) | (T->kmask[k] & b->pc[CAN_KING])) & x)
        return true;
    const u128 q = b->pc[CAN_QUEEN] & x, bq = (b->pc[CAN_BISHOP] & x) | q;
    if ((diag_lines[k] & bq) &&
        ((line_look(fold_first, 2, k, occ) | line_look(fold_first, 3, k, occ)) & bq))
        return true;
    const u128 rq = (b->pc[CAN_ROOK] & x) | q, c = b->pc[CAN_CANNON] & x;
    if (!(orth_lines[k] & (rq | c))) return false;
    for (int kind = 0; kind < 2; kind++) {
        int id = line10_id[kind][k], pos = line10_pos[kind][k];
        unsigned o = line10_occ(id, occ);
        if ((rq && (line10_squares(id, fold_first[pos][o]) & rq)) ||
            (c && (line10_squares(id, fold_second[pos][o]) & c)))
            return true;
    }
    return false;
}

/* What one node knows about its King: the squares, whether it is in check, and when it is
 * not, the pinned pieces with the squares each may go to and the squares none may fill. */
typedef struct Node {
    u128 own, opp, occ, target; /* target: squares not of our colour */
    u128 pinned, nofill;
    /* In check: the squares a move but the King's must land on to have a chance (the
     * checkers and the squares between them and the King), and the screens of checking
     * cannons, any move of which may answer; each such move is tested. */
    u128 evade, screens;
    int k;
    bool check;
    u128 *allow; /* per square, written for the squares of pinned only */
} Node;

/* The directions of supremo.h along ranks and files, and along diagonals. */
static const int ORTH_DIRS[4] = {0, 1, 4, 5}, DIAG_DIRS[4] = {2, 3, 6, 7};

/* The nearest square of the non-empty set x from the King in direction d. */
static FORCE_INLINE int nearest(u128 x, int d) { return d < 4 ? bb128_lsb(x) : bb128_msb(x); }

/* Restricts the pinned piece on s to the squares of allow. */
static FORCE_INLINE void pin(Node *N, int s, u128 allow) {
    u128 sb = sup_bit(s);
    if (N->pinned & sb) {
        N->allow[s] &= allow;
    } else {
        N->pinned |= sb;
        N->allow[s] = allow;
    }
}

/* Fills N->evade and N->screens for side us, in check on b. */
static FORCE_INLINE void check_prepare(const SupTables *T, const CanBoard *b, const int us,
                                       Node *N) {
    const int k = N->k;
    const u128 opp = N->opp, q = b->pc[CAN_QUEEN] & opp, cn = b->pc[CAN_CANNON] & opp;
    const u128 bq = (b->pc[CAN_BISHOP] & opp) | q, rq = (b->pc[CAN_ROOK] & opp) | q;
    u128 evade = T->leap_from[CAN_PAWN][us ^ 1][k] & b->pc[CAN_PAWN] & opp, screens = 0;
    for (int d = 0; d < 8; d++) {
        const u128 ray = T->ray[d][k], blk = ray & N->occ;
        if (!blk) continue;
        const bool orth = (SUP_ORTH_DIRS >> d) & 1;
        const int p1 = nearest(blk, d);
        if ((orth ? rq : bq) & sup_bit(p1)) {
            evade |= ray & ~T->ray[d][p1];
            continue;
        }
        const u128 rest = blk & ~sup_bit(p1);
        if (!orth || !(rest & cn)) continue;
        const int p2 = nearest(rest, d);
        if (cn & sup_bit(p2)) {
            evade |= ray & ~T->ray[d][p2];
            screens |= sup_bit(p1);
        }
    }
    N->evade = evade;
    N->screens = screens;
}

/* Fills N for side us on b (see the top of the file), its pins' squares in allow. */
static FORCE_INLINE void node_prepare(const SupTables *T, const CanBoard *b, const int us, Node *N,
                                      u128 *allow) {
    const int them = us ^ 1;
    N->own = b->col[us];
    N->opp = b->col[them];
    N->occ = N->own | N->opp;
    N->target = T->full & ~N->own;
    N->k = bb128_lsb(b->pc[CAN_KING] & N->own);
    N->pinned = N->nofill = 0;
    N->allow = allow;
    N->check = attacked(T, b, N->k, them, N->occ, ~(u128)0);
    if (N->check) {
        check_prepare(T, b, us, N);
        return;
    }
    const int k = N->k;
    const u128 q = b->pc[CAN_QUEEN] & N->opp, bq = (b->pc[CAN_BISHOP] & N->opp) | q;
    const u128 rq = (b->pc[CAN_ROOK] & N->opp) | q, cn = b->pc[CAN_CANNON] & N->opp;
    if (diag_lines[k] & bq)
        for (int i = 0; i < 4; i++) {
            const int d = DIAG_DIRS[i];
            u128 ray = T->ray[d][k];
            if (!(ray & bq)) continue;
            u128 blk = ray & N->occ;
            int p1 = nearest(blk, d);
            blk &= ~sup_bit(p1);
            if (!(N->own & sup_bit(p1)) || !blk) continue;
            int p2 = nearest(blk, d);
            if (bq & sup_bit(p2)) pin(N, p1, ray & ~T->ray[d][p2]);
        }
    if (orth_lines[k] & (rq | cn))
        for (int i = 0; i < 4; i++) {
            const int d = ORTH_DIRS[i];
            u128 ray = T->ray[d][k];
            if (!(ray & (rq | cn))) continue;
            u128 blk = ray & N->occ;
            int p1 = nearest(blk, d);
            u128 b1 = sup_bit(p1);
            blk &= ~b1;
            if (cn & b1) N->nofill |= ray & ~T->ray[d][p1] & ~b1;
            if (!blk) continue;
            int p2 = nearest(blk, d);
            u128 b2 = sup_bit(p2);
            blk &= ~b2;
            if ((N->own & b1) && (rq & b2)) pin(N, p1, ray & ~T->ray[d][p2]);
            if (!blk) continue;
            int p3 = nearest(blk, d);
            if (!(cn & sup_bit(p3))) continue;
            u128 seg = ray & ~T->ray[d][p3];
            if (N->own & b1) pin(N, p1, seg & ~b2);
            if (N->own & b2) pin(N, p2, seg & ~b1);
        }
}

/* Whether side us's move of the piece on `from` (not the King) to `to` leaves its King
 * unattacked: the test of a move in check. */
static FORCE_INLINE bool move_legal(const SupTables *T, const CanBoard *b, const Node *N,
                                    const int us, int from, int to) {
    u128 tb = sup_bit(to);
    return !attacked(T, b, N->k, us ^ 1, (N->occ & ~sup_bit(from)) | tb, ~tb);
}

/* Whether the King of side us may step to `to`. */
static FORCE_INLINE bool king_legal(const SupTables *T, const CanBoard *b, const Node *N,
                                    const int us, int to) {
    u128 tb = sup_bit(to);
    return !attacked(T, b, to, us ^ 1, (N->occ & ~sup_bit(N->k)) | tb, ~tb);
}

/* Those of dests that the piece on s may go to if it is pinned (not in check). */
static FORCE_INLINE u128 pinned_to(const Node *N, int s, u128 dests) {
    return N->pinned & sup_bit(s) ? dests & N->allow[s] : dests;
}

/* The legal destinations of the non-King piece on s among dests (not in check). */
static FORCE_INLINE u128 legal_dests(const Node *N, int s, u128 dests) {
    return pinned_to(N, s, dests & ~N->nofill);
}

/* Shifts a square set n squares up (n > 0) or down. */

/* The pawn targets of side us: pushes onto empty squares and captures, for the pawns p;
 * each set comes from its pawns by a shift of the given amount. */
typedef struct PawnSets {
    u128 push, left, right;
    int up;
} PawnSets;

static FORCE_INLINE PawnSets pawn_sets(const SupTables *T, const Node *N, u128 p, const int us) {
    PawnSets ps;
    ps.up = us == WHITE ? 10 : -10;
    ps.push = bb128_shift(p, ps.up) & T->full & ~N->occ;
    ps.left = bb128_shift(p & T->not_file_a, ps.up - 1) & N->opp;
    ps.right = bb128_shift(p & T->not_file_j, ps.up + 1) & N->opp;
    return ps;
}

/* The rank-and-file and diagonal reaches of one side's sliders and cannons on one board
 * (first pieces included, own ones too), each with the squares whose contents it depends
 * on: the children of a node differ from it on a square or two, so most reaches of the
 * side that answers stay. */
enum { REACH_RIDER_ORTH, REACH_RIDER_DIAG, REACH_CANNON };
typedef struct Reaches {
    int n;
    u128 reach[2 * MAX_SQ], dep[2 * MAX_SQ];
    uint8_t sq[2 * MAX_SQ], kind[2 * MAX_SQ];
    int first_cannon; /* the cannons' reaches come last, from this one */
    /* With at most 64 reaches: each one's number of targets on the board, their sum, the
     * sliders' reaches (bit i: reach i), and per square the reaches that depend on it and
     * those of the piece on it. */
    bool maps;
    u128 king_safe; /* the King's steps that are legal on the board */
    uint16_t cnt[2 * MAX_SQ];
    uint64_t total, riders;
    uint64_t dep_of[MAX_SQ], at_of[MAX_SQ];
} Reaches;

/* Fills rc with the reaches of side c's pieces on b. */
static FORCE_INLINE void reaches_build(const CanBoard *b, int c, Reaches *rc) {
    const u128 own = b->col[c], occ = b->col[0] | b->col[1], q = b->pc[CAN_QUEEN] & own;
    int n = 0;
    for (u128 x = (b->pc[CAN_ROOK] & own) | q; x; n++) {
        int sq = bb128_pop_lsb(&x);
        rc->reach[n] = rc->dep[n] = orth_reach(fold_rider, sq, occ);
        rc->sq[n] = (uint8_t)sq;
        rc->kind[n] = REACH_RIDER_ORTH;
    }
    for (u128 x = (b->pc[CAN_BISHOP] & own) | q; x; n++) {
        int sq = bb128_pop_lsb(&x);
        rc->reach[n] = rc->dep[n] = diag_reach(sq, occ);
        rc->sq[n] = (uint8_t)sq;
        rc->kind[n] = REACH_RIDER_DIAG;
    }
    rc->first_cannon = n;
    for (u128 x = b->pc[CAN_CANNON] & own; x; n++) {
        int sq = bb128_pop_lsb(&x);
        rc->reach[n] = orth_reach(fold_cannon, sq, occ);
        rc->dep[n] = orth_reach(fold_all, sq, occ);
        rc->sq[n] = (uint8_t)sq;
        rc->kind[n] = REACH_CANNON;
    }
    rc->n = n;
    rc->maps = n <= 64;
    if (!rc->maps) return;
    for (int i = 0; i < MAX_SQ; i++) rc->dep_of[i] = rc->at_of[i] = 0;
    rc->total = 0;
    rc->riders = rc->first_cannon == 64 ? ~0ULL : (1ULL << rc->first_cannon) - 1;
    for (int i = 0; i < n; i++) {
        const uint64_t me = 1ULL << i;
        rc->cnt[i] = (uint16_t)bb128_popcount(rc->reach[i] & ~own);
        rc->total += rc->cnt[i];
        rc->at_of[rc->sq[i]] |= me;
        for (u128 x = rc->dep[i]; x;) rc->dep_of[bb128_pop_lsb(&x)] |= me;
    }
}

/* The reaches (bit i: reach i) that hold square sq (with rc->maps): a slider's reach is
 * what it depends on; the cannons' are few. */
static FORCE_INLINE uint64_t reaches_holding(const Reaches *rc, int sq) {
    uint64_t h = rc->dep_of[sq] & rc->riders;
    for (int i = rc->first_cannon; i < rc->n; i++)
        if ((rc->reach[i] >> sq) & 1) h |= 1ULL << i;
    return h;
}

/* The reach of entry i of rc on the occupancy occ. */
static FORCE_INLINE u128 reach_again(const Reaches *rc, int i, u128 occ) {
    const int sq = rc->sq[i];
    return rc->kind[i] == REACH_RIDER_ORTH   ? orth_reach(fold_rider, sq, occ)
           : rc->kind[i] == REACH_RIDER_DIAG ? diag_reach(sq, occ)
                                             : orth_reach(fold_cannon, sq, occ);
}

/* Number of legal moves of side us on b; with rc, the reaches of its pieces on the board
 * before the opponent moved from mfrom to mto (emptying and filling the squares of
 * changed, or taking a piece of ours on mto). */
static FORCE_INLINE uint64_t count_moves(const SupTables *T, const CanBoard *b, const Node *N,
                                         const int us, const Reaches *rc, u128 changed, int mfrom,
                                         int mto) {
    const u128 pz = T->last_rank[us];
    uint64_t n = 0;
    u128 steps = T->kmask[N->k] & N->target;
    if (rc) {
        /* the parent's verdict on the steps whose square the move could not affect */
        const u128 stale = near_lines[mfrom] | near_lines[mto];
        n += (uint64_t)bb128_popcount(steps & ~stale & rc->king_safe);
        steps &= stale;
    }
    for (u128 t = steps; t;) n += king_legal(T, b, N, us, bb128_pop_lsb(&t));
    const u128 pawns = b->pc[CAN_PAWN] & N->own;
    if (N->check) {
        PawnSets ps = pawn_sets(T, N, pawns, us);
        const u128 set[3] = {ps.push, ps.left, ps.right};
        const int back[3] = {ps.up, ps.up - 1, ps.up + 1};
        for (int i = 0; i < 3; i++)
            for (u128 t = set[i]; t;) {
                int to = bb128_pop_lsb(&t);
                if (!(N->evade & sup_bit(to)) && !(N->screens & sup_bit(to - back[i]))) continue;
                if (move_legal(T, b, N, us, to - back[i], to)) n += pz & sup_bit(to) ? 4 : 1;
            }
        for (int t = CAN_BISHOP; t <= CAN_CANNON; t++) {
            if (t == CAN_KING) continue;
            for (u128 ps2 = b->pc[t] & N->own; ps2;) {
                int s = bb128_pop_lsb(&ps2);
                u128 d = piece_reach(t, s, N->occ) & N->target;
                if (!(N->screens & sup_bit(s))) d &= N->evade;
                while (d) n += move_legal(T, b, N, us, s, bb128_pop_lsb(&d));
            }
        }
        return n;
    }
    {
        /* unpinned pawns set-wise, pinned ones each with its own squares */
        PawnSets ps = pawn_sets(T, N, pawns & ~N->pinned, us);
        ps.push &= ~N->nofill;
        n += (uint64_t)bb128_popcount(ps.push & ~pz) + (uint64_t)bb128_popcount(ps.left & ~pz) +
             (uint64_t)bb128_popcount(ps.right & ~pz);
        n += 4 * (uint64_t)(bb128_popcount(ps.push & pz) + bb128_popcount(ps.left & pz) +
                            bb128_popcount(ps.right & pz));
        for (u128 pp = pawns & N->pinned; pp;) {
            int s = bb128_pop_lsb(&pp);
            PawnSets one = pawn_sets(T, N, sup_bit(s), us);
            u128 d = legal_dests(N, s, one.push | one.left | one.right);
            n += (uint64_t)bb128_popcount(d & ~pz) + 4 * (uint64_t)bb128_popcount(d & pz);
        }
    }
    /* the rank-and-file moves of rooks and queens, the diagonal ones of bishops and
     * queens, the cannons' (a queen's two sets are disjoint) */
    const u128 occ = N->occ, to_ok = N->target & ~N->nofill, q = b->pc[CAN_QUEEN] & N->own;
    if (rc && rc->maps) {
        /* the parent's counts, less those of the reaches the move changed (looked up
         * again), took, or that pins or forbidden fills restrict (counted again), plus
         * the piece it took wherever another kept reach holds it */
        const bool capture = !(changed & sup_bit(mto));
        const uint64_t gone = capture ? rc->at_of[mto] : 0;
        const uint64_t redo = (rc->dep_of[mfrom] | (capture ? 0 : rc->dep_of[mto])) & ~gone;
        uint64_t m = rc->total;
        if (!(N->pinned | N->nofill)) {
            for (uint64_t x = redo | gone; x; x &= x - 1) m -= rc->cnt[__builtin_ctzll(x)];
            if (capture)
                m += (uint64_t)__builtin_popcountll(reaches_holding(rc, mto) & ~(redo | gone));
            for (uint64_t x = redo; x; x &= x - 1)
                m += (uint64_t)bb128_popcount(reach_again(rc, __builtin_ctzll(x), occ) & N->target);
            return n + m;
        }
        uint64_t fix = redo;
        for (u128 x = N->pinned; x;) fix |= rc->at_of[bb128_pop_lsb(&x)];
        for (u128 x = N->nofill; x;) fix |= reaches_holding(rc, bb128_pop_lsb(&x));
        fix &= ~gone;
        for (uint64_t x = fix | gone; x; x &= x - 1) m -= rc->cnt[__builtin_ctzll(x)];
        if (capture) m += (uint64_t)__builtin_popcountll(reaches_holding(rc, mto) & ~(fix | gone));
        for (uint64_t x = fix; x; x &= x - 1) {
            const int i = __builtin_ctzll(x);
            u128 r = (redo >> i) & 1 ? reach_again(rc, i, occ) : rc->reach[i];
            m += (uint64_t)bb128_popcount(pinned_to(N, rc->sq[i], r & to_ok));
        }
        return n + m;
    }
    if (rc) {
        /* the reaches of the parent's board, those the move changed looked up again */
        for (int i = 0; i < rc->n; i++) {
            const int sq = rc->sq[i];
            if (!(N->own & sup_bit(sq))) continue; /* taken */
            u128 r = rc->dep[i] & changed ? reach_again(rc, i, occ) : rc->reach[i];
            n += (uint64_t)bb128_popcount(pinned_to(N, sq, r & to_ok));
        }
        return n;
    }
    for (u128 x = (b->pc[CAN_ROOK] & N->own) | q; x;) {
        int s = bb128_pop_lsb(&x);
        n += (uint64_t)bb128_popcount(pinned_to(N, s, orth_reach(fold_rider, s, occ) & to_ok));
    }
    for (u128 x = (b->pc[CAN_BISHOP] & N->own) | q; x;) {
        int s = bb128_pop_lsb(&x);
        n += (uint64_t)bb128_popcount(pinned_to(N, s, diag_reach(s, occ) & to_ok));
    }
    for (u128 x = b->pc[CAN_CANNON] & N->own; x;) {
        int s = bb128_pop_lsb(&x);
        n += (uint64_t)bb128_popcount(pinned_to(N, s, orth_reach(fold_cannon, s, occ) & to_ok));
    }
    return n;
}

/* Appends the moves from `from` to the squares of d (promotions on pz once per type). */
static FORCE_INLINE int add_moves(CanMove *list, int n, int from, u128 d, int t, u128 pz) {
    for (u128 x = d & ~pz; x;) {
        int to = bb128_pop_lsb(&x);
        list[n++] = CM_MAKE(from, to, t, t);
    }
    for (u128 x = d & pz; x;) {
        int to = bb128_pop_lsb(&x);
        list[n++] = CM_MAKE(from, to, t, CAN_QUEEN);
        list[n++] = CM_MAKE(from, to, t, CAN_ROOK);
        list[n++] = CM_MAKE(from, to, t, CAN_BISHOP);
        list[n++] = CM_MAKE(from, to, t, CAN_CANNON);
    }
    return n;
}

/* Writes the legal moves of side us on b into list; returns how many. */
static FORCE_INLINE int gen_moves(const SupTables *T, const CanBoard *b, const Node *N,
                                  const int us, CanMove *list) {
    const u128 pz = T->last_rank[us];
    int n = 0;
    u128 kd = 0;
    for (u128 t = T->kmask[N->k] & N->target; t;) {
        int to = bb128_pop_lsb(&t);
        if (king_legal(T, b, N, us, to)) kd |= sup_bit(to);
    }
    n = add_moves(list, n, N->k, kd, CAN_KING, 0);
    if (N->check) {
        PawnSets ps = pawn_sets(T, N, b->pc[CAN_PAWN] & N->own, us);
        const u128 set[3] = {ps.push, ps.left, ps.right};
        const int back[3] = {ps.up, ps.up - 1, ps.up + 1};
        for (int i = 0; i < 3; i++)
            for (u128 t = set[i]; t;) {
                int to = bb128_pop_lsb(&t), from = to - back[i];
                if (((N->evade & sup_bit(to)) || (N->screens & sup_bit(from))) &&
                    move_legal(T, b, N, us, from, to))
                    n = add_moves(list, n, from, sup_bit(to), CAN_PAWN, pz);
            }
        for (int t = CAN_BISHOP; t <= CAN_CANNON; t++) {
            if (t == CAN_KING) continue;
            for (u128 ps2 = b->pc[t] & N->own; ps2;) {
                int s = bb128_pop_lsb(&ps2);
                u128 d = piece_reach(t, s, N->occ) & N->target, ok = 0;
                if (!(N->screens & sup_bit(s))) d &= N->evade;
                for (u128 x = d; x;) {
                    int to = bb128_pop_lsb(&x);
                    if (move_legal(T, b, N, us, s, to)) ok |= sup_bit(to);
                }
                n = add_moves(list, n, s, ok, t, 0);
            }
        }
        return n;
    }
    /* unpinned pawns set-wise, pinned ones each with its own squares */
    const u128 pawns = b->pc[CAN_PAWN] & N->own;
    PawnSets ps = pawn_sets(T, N, pawns & ~N->pinned, us);
    const u128 set[3] = {ps.push & ~N->nofill, ps.left, ps.right};
    const int back[3] = {ps.up, ps.up - 1, ps.up + 1};
    for (int i = 0; i < 3; i++) {
        for (u128 t = set[i] & ~pz; t;) {
            int to = bb128_pop_lsb(&t);
            list[n++] = CM_MAKE(to - back[i], to, CAN_PAWN, CAN_PAWN);
        }
        for (u128 t = set[i] & pz; t;) {
            int to = bb128_pop_lsb(&t);
            n = add_moves(list, n, to - back[i], sup_bit(to), CAN_PAWN, pz);
        }
    }
    for (u128 pp = pawns & N->pinned; pp;) {
        int s = bb128_pop_lsb(&pp);
        PawnSets one = pawn_sets(T, N, sup_bit(s), us);
        n = add_moves(list, n, s, legal_dests(N, s, one.push | one.left | one.right), CAN_PAWN, pz);
    }
    /* the line families, as in count_moves */
    const u128 occ = N->occ, to_ok = N->target & ~N->nofill, q = b->pc[CAN_QUEEN] & N->own;
    for (u128 x = (b->pc[CAN_ROOK] & N->own) | q; x;) {
        int s = bb128_pop_lsb(&x);
        n = add_moves(list, n, s, pinned_to(N, s, orth_reach(fold_rider, s, occ) & to_ok),
                      q & sup_bit(s) ? CAN_QUEEN : CAN_ROOK, 0);
    }
    for (u128 x = (b->pc[CAN_BISHOP] & N->own) | q; x;) {
        int s = bb128_pop_lsb(&x);
        n = add_moves(list, n, s, pinned_to(N, s, diag_reach(s, occ) & to_ok),
                      q & sup_bit(s) ? CAN_QUEEN : CAN_BISHOP, 0);
    }
    for (u128 x = b->pc[CAN_CANNON] & N->own; x;) {
        int s = bb128_pop_lsb(&x);
        n = add_moves(list, n, s, pinned_to(N, s, orth_reach(fold_cannon, s, occ) & to_ok),
                      CAN_CANNON, 0);
    }
    return n;
}

/* c = b after side us plays m. */
static FORCE_INLINE void play(const CanBoard *b, CanBoard *c, const int us, CanMove m) {
    const int from = m & 127, to = (m >> 7) & 127, t = (m >> 14) & 7, nt = (m >> 17) & 7;
    const u128 fb = sup_bit(from), tb = sup_bit(to);
    /* every field computed and stored once: a copy of b patched in memory is read back
     * from a wider store, which store-to-load forwarding does not serve (engine/README.md) */
    const u128 keep = b->col[us ^ 1] & tb ? ~tb : ~(u128)0;
    c->pc[0] = b->pc[0];
    for (int i = CAN_PAWN; i <= CAN_CANNON; i++)
        c->pc[i] = (b->pc[i] & keep & (i == t ? ~fb : ~(u128)0)) | (i == nt ? tb : 0);
    c->col[us] = b->col[us] ^ (fb | tb);
    c->col[us ^ 1] = b->col[us ^ 1] & keep;
}

static uint64_t search_white(const SupTables *T, const CanBoard *b, int depth);
static uint64_t search_black(const SupTables *T, const CanBoard *b, int depth);

/* Leaves of the legal-move tree of depth >= 1 below b with side us to move. */
static FORCE_INLINE uint64_t search(const SupTables *T, const CanBoard *b, int depth,
                                    const int us) {
    Node N;
    u128 allow[MAX_SQ];
    node_prepare(T, b, us, &N, allow);
    if (depth == 1) return count_moves(T, b, &N, us, NULL, 0, 0, 0);
    CanMove list[MAX_MOVES];
    int n = gen_moves(T, b, &N, us, list);
    uint64_t total = 0;
    if (depth == 2) {
        /* the children counted with the reaches of the opponent's pieces on b, and with
         * its pins on b where the move changes no square on its King's lines (then it
         * gives no check either: b is legal, so the opponent's King is not attacked) */
        Reaches rc;
        reaches_build(b, us ^ 1, &rc);
        Node P, M;
        u128 p_allow[MAX_SQ], m_allow[MAX_SQ];
        node_prepare(T, b, us ^ 1, &P, p_allow);
        rc.king_safe = 0;
        for (u128 t = T->kmask[P.k] & P.target; t;) {
            int q = bb128_pop_lsb(&t);
            if (king_legal(T, b, &P, us ^ 1, q)) rc.king_safe |= sup_bit(q);
        }
        const u128 k_lines = orth_lines[P.k] | diag_lines[P.k];
        for (int i = 0; i < n; i++) {
            CanBoard c;
            play(b, &c, us, list[i]);
            const u128 fb = sup_bit(list[i] & 127), tb = sup_bit((list[i] >> 7) & 127);
            if ((fb | tb) & k_lines) {
                node_prepare(T, &c, us ^ 1, &M, m_allow);
            } else {
                M = P;
                M.own = c.col[us ^ 1];
                M.opp = c.col[us];
                M.occ = M.own | M.opp;
                M.target = T->full & ~M.own;
            }
            u128 changed = fb | (tb & ~N.occ);
            total += count_moves(T, &c, &M, us ^ 1, M.check ? NULL : &rc, changed, list[i] & 127,
                                 (list[i] >> 7) & 127);
        }
        return total;
    }
    for (int i = 0; i < n; i++) {
        CanBoard c;
        play(b, &c, us, list[i]);
        total += us == WHITE ? search_black(T, &c, depth - 1) : search_white(T, &c, depth - 1);
    }
    return total;
}

/* The two instantiations, one per side to move. */
static uint64_t search_white(const SupTables *T, const CanBoard *b, int depth) {
    return search(T, b, depth, WHITE);
}
static uint64_t search_black(const SupTables *T, const CanBoard *b, int depth) {
    return search(T, b, depth, BLACK);
}

/* Leaves of the legal-move tree of a cannon10 position, depth >= 0; positions the kernel
 * does not take (not one King a side, the side not to move in check) go to
 * perft_generic. */
uint64_t cannon10_perft(Position *pos, int depth) {
    if (depth <= 0) return 1;
    const SupTables *T = pos->var->tables;
    CanBoard b;
    for (int t = 0; t <= CAN_CANNON; t++) b.pc[t] = t ? pos->bb.b10.type[t] : 0;
    b.col[WHITE] = pos->bb.b10.color[WHITE];
    b.col[BLACK] = pos->bb.b10.color[BLACK];
    const int us = pos->side, them = us ^ 1;
    const u128 kings = b.pc[CAN_KING];
    if (bb128_popcount(kings & b.col[us]) != 1 || bb128_popcount(kings & b.col[them]) != 1)
        return perft_generic(pos, depth);
    const u128 occ = b.col[WHITE] | b.col[BLACK];
    if (attacked(T, &b, bb128_lsb(kings & b.col[them]), us, occ, ~(u128)0))
        return perft_generic(pos, depth);
    return us == WHITE ? search_white(T, &b, depth) : search_black(T, &b, depth);
}
