/* perft_superchess.c - Superchess perft on a specialised path: a legal-move counter and
 * generator written per side to move and per piece type, and the perft hook that uses them
 * with the lean make/unmake of perft_superchess_lean.h.
 *
 * Legality as the fast generator decides it (superchess_gen.c): out of check, a move of a
 * piece that is no monarch, pins nothing open (unblock mask) and, as a Magician or Femme
 * Fatale, releases no enemy, is legal without a test, so at the last ply it is only
 * counted (popcount of its target set); monarch steps take the attack test with the
 * monarch lifted, other moves sc_move_exposes. The statuses, the attack test and the
 * targets are computed per piece type with the types as constants, and the lame leaps
 * whose lame squares are all neighbours (Ambassador, Magician, Minister) are read from
 * tables indexed by the occupancy of the 8 neighbours.
 *
 * Above the last ply the position is changed by a lean make (no key, counters or undo
 * stack). Two plies above the leaves, a calm move (calm_move: one that the lines onto the
 * opponent's monarchs cannot notice) is not made at all: its child has the moves of the
 * position with the turn passed, bar the drops onto the squares the move fills and empties
 * and the moves of the opponent's pieces that reach those squares (passed_delta), which
 * are counted again (and its monarchs' steps when the mover's captures reach them); on
 * quiet squares (quiet_squares) no piece reaches them. */
#include "perft_superchess_attack.h"
#include "perft_superchess_lean.h"

/* The occupancy of s's neighbours that nb_index packs into idx. */
static Bitboard nb_unpack(unsigned idx, int s) {
    Bitboard occ = 0;
    unsigned bit = 0;
    for (Bitboard m = king_att8[s]; m; m &= m - 1, bit++)
        if ((idx >> bit) & 1) occ |= m & (0 - m);
    return occ;
}

/* Fills the lame-leap table of type ty (White's steps: these pieces are not oriented). */
static void lame_table(const ScTables *tb, int ty, Bitboard table[64][256]) {
    for (int s = 0; s < 64; s++)
        for (unsigned idx = 0; idx < 1u << bb_popcount(king_att8[s]); idx++) {
            Bitboard occ = nb_unpack(idx, s), to = 0;
            for (uint32_t k = tb->lame_at[WHITE][ty][s]; k < tb->lame_at[WHITE][ty][s + 1]; k++)
                if (!(occ & tb->lame[k].lame)) to |= 1ull << tb->lame[k].sq;
            table[s][idx] = to;
        }
}

/* Builds the tables of the specialised path from the variant's tables (sc_init). */
void perft_superchess_init(const Variant *v, const ScTables *tb) {
    for (const uint8_t *t = v->promo_types; *t; t++) pool_types |= 1u << *t;
    lame_table(tb, SC_D, lame_d);
    lame_table(tb, SC_W, lame_w);
    for (int s = 0; s < 64; s++) leap_two[s] = tb->leap_move[WHITE][SC_G][s] & ~king_att8[s];
    for (int c = 0; c < 2; c++)
        for (int ty = 1; ty <= SC_NPT; ty++)
            for (int s = 0; s < 64; s++) {
                Bitboard g = tb->leap_cap[c][ty][s];
                if (tb->orth_rider[ty]) g |= rook_att8(s, 0);
                if (tb->diag_rider[ty]) g |= bishop_att8(s, 0);
                Bitboard l = tb->leap_move[c][ty][s] | tb->leap_cap[c][ty][s];
                for (uint32_t k = tb->lame_at[c][ty][s]; k < tb->lame_at[c][ty][s + 1]; k++) {
                    if (tb->lame[k].mode & MM_CAPTURE) g |= 1ull << tb->lame[k].sq;
                    l |= tb->lame[k].lame | 1ull << tb->lame[k].sq;
                }
                cap_geo[c][ty][s] = g;
                leap_geo[c][ty][s] = l;
            }
    for (int c = 0; c < 2; c++)
        for (int q = 0; q < 64; q++)
            for (int ty = 1; ty <= SC_NPT; ty++) rev_lame_any[c][q] |= tb->rev_lame_from[c][ty][q];
}

/* Number of promotion choices of the side to move: pool types held, plus X while held. */
static int promo_choices(const Position *p) {
    int n = p->hand[p->side][SC_X] != 0;
    for (const uint8_t *t = p->var->promo_types; *t; t++) n += p->pool[p->side][*t] != 0;
    return n;
}

/* Legal moves among the board moves from s to the squares of `to`, each tested with
 * sc_move_exposes (one test per promotion choice on the last rank); written into list
 * unless it is NULL. */
static int moves_tested(const Position *p, int s, Bitboard to, bool promotes, bool pawn,
                        Move *list) {
    const int us = p->side;
    int n = 0;
    while (to) {
        int d = bb_pop_lsb(&to);
        if (promotes && ((last_rank[us] >> d) & 1)) {
            Move m[SC_NPT + 1];
            int k = 0;
            for (const uint8_t *t = p->var->promo_types; *t; t++)
                if (p->pool[us][*t]) m[k++] = MOVE_MAKE(s, d, NO_SQ, *t, MK_NORMAL);
            if (p->hand[us][SC_X]) m[k++] = MOVE_MAKE(s, d, NO_SQ, SC_X, MK_NORMAL);
            for (int i = 0; i < k; i++)
                if (!sc_move_exposes(p, m[i])) {
                    if (list) list[n] = m[i];
                    n++;
                }
        } else {
            const int kind = pawn && (d - s == 16 || s - d == 16) ? MK_DOUBLE : MK_NORMAL;
            const Move m = MOVE_MAKE(s, d, NO_SQ, 0, kind);
            if (!sc_move_exposes(p, m)) {
                if (list) list[n] = m;
                n++;
            }
        }
    }
    return n;
}

/* Whether every move of the piece of type ty on s keeps the monarchs on q[0..nmon) safe:
 * true if they stay safe with s emptied and, for a Magician or Femme Fatale, every enemy
 * next to it released (xfoe: the enemies that can be disabled). A move can harm only by
 * emptying s and by releasing enemies: its landing square only blocks, its capture only
 * removes an attacker, a promotion or a landing Magician or Femme Fatale only disables. */
static FORCE_INLINE bool vacating_is_safe(const Position *p, int s, const int ty, const int *q,
                                          int nmon, const int them, Bitboard act, const Foe *f,
                                          Bitboard occ, Bitboard xfoe) {
    const Bitboard sb = 1ull << s;
    Foe released;
    if (ty == SC_M || ty == SC_F) {
        act |= spread(sb) & xfoe & ~(BB(p).type[SC_M] | BB(p).type[SC_F]);
        foe_make(&released, BB(p).type, act);
        f = &released;
    }
    for (int i = 0; i < nmon; i++)
        if (attacked(p, q[i], them, f, occ ^ sb, ~0ull)) return false;
    return true;
}

/* The legal board moves from s onto the squares of x, known legal: counted, or written
 * with kind and promotion choices (one move per choice on the last rank). */
#define ADD_FROM(s, x, kind, promotes)                                                             \
    do {                                                                                           \
        const Bitboard x_ = (x);                                                                   \
        if (!list) {                                                                               \
            n += bb_popcount(x_);                                                                  \
            if ((promotes) && (x_ & last)) {                                                       \
                if (choices < 0) choices = promo_choices(p);                                       \
                n += bb_popcount(x_ & last) * (choices - 1);                                       \
            }                                                                                      \
        } else {                                                                                   \
            for (Bitboard y_ = x_; y_;) {                                                          \
                const int d_ = bb_pop_lsb(&y_);                                                    \
                n = emit_board_move(p, list, n, (s), d_, (kind), (promotes));                      \
            }                                                                                      \
        }                                                                                          \
    } while (0)

/* The same for a set-wise shift: each target d comes from d - back. */
#define ADD_SHIFT(x, back, kind, promotes)                                                         \
    do {                                                                                           \
        const Bitboard x_ = (x);                                                                   \
        if (!list) {                                                                               \
            n += bb_popcount(x_);                                                                  \
            if ((promotes) && (x_ & last)) {                                                       \
                if (choices < 0) choices = promo_choices(p);                                       \
                n += bb_popcount(x_ & last) * (choices - 1);                                       \
            }                                                                                      \
        } else {                                                                                   \
            for (Bitboard y_ = x_; y_;) {                                                          \
                const int d_ = bb_pop_lsb(&y_);                                                    \
                n = emit_board_move(p, list, n, d_ - (back), d_, (kind), (promotes));              \
            }                                                                                      \
        }                                                                                          \
    } while (0)

/* Moves of the pieces of type ty (a constant) among `rest`: known legal for pieces off
 * `special` and for those on it that vacating_is_safe clears, tested for the others. */
#define MOVES_OF_TYPE(ty, promotes)                                                                \
    for (Bitboard b_ = t[ty] & rest; b_;) {                                                        \
        const int s_ = bb_pop_lsb(&b_);                                                            \
        const Bitboard cap_ = (neutral >> s_) & 1 ? 0 : victims_c;                                 \
        const Bitboard to_ =                                                                       \
            targets(p, us, ty, s_, occ, ty == SC_M || ty == SC_F ? empty : empty_c, cap_);         \
        if (((special >> s_) & 1) && (check || !vacating_is_safe(p, s_, ty, q, nmon, them, act,    \
                                                                 &foes, occ, exposed_foe))) {      \
            n += moves_tested(p, s_, to_, promotes, ty == SC_P, list ? list + n : NULL);           \
        } else if (ty == SC_P) {                                                                   \
            const Bitboard two_ = to_ & fwd(fwd(1ull << s_, us), us);                              \
            ADD_FROM(s_, to_ & ~two_, MK_NORMAL, promotes);                                        \
            ADD_FROM(s_, two_, MK_DOUBLE, false);                                                  \
        } else {                                                                                   \
            ADD_FROM(s_, to_, MK_NORMAL, promotes);                                                \
        }                                                                                          \
    }

static int moves_in_check(Position *p, Move *list);

/* Legal moves of side us (the side to move): their number, and written into list unless
 * it is NULL. Instantiated with list a constant NULL or not (the count pays nothing for the
 * writing) and with in_check a constant: the instance out of check hands a position in
 * check over to moves_in_check (and then sets *check_out, when given, to 1).
 * `unchecked`: the caller knows the side is not in check. */
static FORCE_INLINE int moves_side(Position *p, const int us, Move *list, const bool in_check,
                                   bool unchecked, int *check_out) {
    const ScTables *tb = TB(p);
    const Bitboard *t = BB(p).type;
    const int them = us ^ 1;
    const Bitboard own = BB(p).color[us], foe = BB(p).color[them], occ = own | foe, empty = ~occ;
    const Bitboard mf = t[SC_M] | t[SC_F], royal = t[SC_K] | t[SC_E];
    const Bitboard exposed_foe = foe & ~(t[SC_D] & embassy_sq[them]);
    const Bitboard exposed_own = own & ~(t[SC_D] & embassy_sq[us]);
    /* the enemy pieces that attack: not M or F, not frozen or neutralised by ours */
    const Bitboard act =
        foe & ~mf & ~((spread(t[SC_M] & own) | spread(t[SC_F] & own)) & exposed_foe);
    const Bitboard frozen = spread(t[SC_M] & foe) & exposed_own;
    const Bitboard neutral = spread(t[SC_F] & foe) & exposed_own;
    const Bitboard mon = royal & own;
    Bitboard special = mon | (own & mf & spread(exposed_foe));
    Foe foes;
    foe_make(&foes, t, act);
    int q[2] = {0, 0};
    Bitboard unb[2] = {0, 0};
    int nmon = 0;
    /* In check every move is tested, and a drop must land where it may block (on a line
     * from every monarch in check, or next to it for the lame leaps). */
    const bool check = in_check;
    Bitboard drop_cand = ~0ull, move_cand = ~0ull;
    for (Bitboard m = mon; m; nmon++) {
        q[nmon] = bb_pop_lsb(&m);
        if (!unchecked && attacked(p, q[nmon], them, &foes, occ, ~0ull)) {
            if (!in_check) {
                if (check_out) *check_out = 1;
                return moves_in_check(p, list);
            }
            drop_cand &= queen_att8(q[nmon], occ) | king_att8[q[nmon]];
            /* a board move answers a check by blocking or capturing (or, M or F, by
             * disabling the checker): it lands on a line from the monarch or within a leap */
            move_cand &= queen_att8(q[nmon], occ) | king_att8[q[nmon]] | knight_att8[q[nmon]] |
                         leap_two[q[nmon]];
        }
        unb[nmon] = unblock(p, q[nmon], them, act, &foes, own, occ);
        special |= unb[nmon];
    }
    if (check) special = own;
    const Bitboard victims = exposed_foe & ~royal, movers = own & ~frozen;
    const Bitboard last = last_rank[us];
    int choices = -1, n = 0;
    /* Monarch steps: the destination safe with the monarch lifted off (and a captured
     * piece gone), the other monarch safe if the monarch was its only shield. */
    for (int i = 0; i < nmon; i++) {
        const int s = q[i];
        if ((frozen >> s) & 1) continue;
        const Bitboard sb = 1ull << s, cap = (neutral >> s) & 1 ? 0 : victims;
        Bitboard to = king_att8[s] & (empty | cap);
        if ((t[SC_E] >> s) & 1)
            to |= ((((sb << 8) & empty) << 8) | (((sb >> 8) & empty) >> 8)) & (empty | cap);
        const bool shield = nmon == 2 && (check || ((unb[i ^ 1] >> s) & 1));
        while (to) {
            const int d = bb_pop_lsb(&to);
            const Bitboard occ2 = (occ ^ sb) | (1ull << d), keep = ~(1ull << d);
            if (!attacked(p, d, them, &foes, occ2, keep) &&
                !(shield && attacked(p, q[i ^ 1], them, &foes, occ2, keep))) {
                if (list) list[n] = MOVE_MAKE(s, d, NO_SQ, 0, MK_NORMAL);
                n++;
            }
        }
    }
    /* Pawn pieces off `special`, set-wise: each shift is one move per piece. */
    const Bitboard bulk = movers & ~special, capturers = bulk & ~neutral;
    const int up = us == WHITE ? 8 : -8, left = us == WHITE ? 7 : -9, right = us == WHITE ? 9 : -7;
    {
        const Bitboard pw = t[SC_P] & bulk, pc = pw & capturers;
        const Bitboard start = 0xffull << (8 * p->var->pawn_start_rank[us]);
        const Bitboard one = fwd(pw, us) & empty;
        ADD_SHIFT(one, up, MK_NORMAL, true);
        ADD_SHIFT(fwd(fwd(pw & start, us) & empty, us) & empty, 2 * up, MK_DOUBLE, false);
        ADD_SHIFT(fwd_left(pc, us) & victims, left, MK_NORMAL, true);
        ADD_SHIFT(fwd_right(pc, us) & victims, right, MK_NORMAL, true);
    }
    {
        const Bitboard h = t[SC_H] & bulk, hc = h & capturers;
        const Bitboard one = fwd(h, us) & empty;
        ADD_SHIFT(one, up, MK_NORMAL, true);
        ADD_SHIFT(fwd(one, us) & empty, 2 * up, MK_NORMAL, true);
        const Bitboard l1 = fwd_left(hc, us), r1 = fwd_right(hc, us);
        ADD_SHIFT(l1 & victims, left, MK_NORMAL, true);
        ADD_SHIFT(r1 & victims, right, MK_NORMAL, true);
        ADD_SHIFT(fwd_left(l1 & empty, us) & victims, 2 * left, MK_NORMAL, true);
        ADD_SHIFT(fwd_right(r1 & empty, us) & victims, 2 * right, MK_NORMAL, true);
    }
    {
        const Bitboard tp = t[SC_T] & bulk, tc = tp & capturers;
        ADD_SHIFT(fwd(tp, us) & empty, up, MK_NORMAL, true);
        ADD_SHIFT(fwd(fwd(tp, us), us) & empty, 2 * up, MK_NORMAL, true);
        ADD_SHIFT(((tc & ~FILE_A) >> 1) & victims, -1, MK_NORMAL, true);
        ADD_SHIFT(((tc & ~FILE_H) << 1) & victims, 1, MK_NORMAL, true);
    }
    /* The other pieces one by one; the pawn pieces on `special` too. In check only the
     * landings that may answer it are tried (and every promotion, which may be to M or F). */
    const Bitboard empty_c = check ? empty & (move_cand | last) : empty;
    const Bitboard victims_c = check ? victims & (move_cand | last) : victims;
    const Bitboard rest = movers & ~(mon | ((t[SC_P] | t[SC_H] | t[SC_T]) & bulk));
    MOVES_OF_TYPE(SC_P, true)
    MOVES_OF_TYPE(SC_N, false)
    MOVES_OF_TYPE(SC_B, false)
    MOVES_OF_TYPE(SC_R, false)
    MOVES_OF_TYPE(SC_Q, false)
    MOVES_OF_TYPE(SC_A, false)
    MOVES_OF_TYPE(SC_W, false)
    MOVES_OF_TYPE(SC_M, false)
    MOVES_OF_TYPE(SC_F, false)
    MOVES_OF_TYPE(SC_D, false)
    MOVES_OF_TYPE(SC_G, false)
    MOVES_OF_TYPE(SC_O, false)
    MOVES_OF_TYPE(SC_H, true)
    MOVES_OF_TYPE(SC_T, true)
    MOVES_OF_TYPE(SC_L, true)
    MOVES_OF_TYPE(SC_X, false)
    /* E.p. by an ordinary pawn that may capture: always tested. */
    if (p->ep != NO_SQ)
        for (Bitboard b = tb->rev_cap[us][SC_P][p->ep] & t[SC_P] & movers & ~neutral; b;) {
            const Move m = MOVE_MAKE(bb_pop_lsb(&b), p->ep, NO_SQ, 0, MK_EP);
            if (!sc_move_exposes(p, m)) {
                if (list) list[n] = m;
                n++;
            }
        }
    /* Castling: token, both pieces home and not frozen, path empty, three squares safe,
     * then the move's own test. */
    for (uint32_t rights = (p->castle >> (us * 4)) & 15; rights; rights &= rights - 1) {
        const CastleDef *cd = &tb->castles[us * 4 + __builtin_ctz(rights)];
        if (p->board[cd->mfrom] != PC_MAKE(us, cd->monarch) ||
            p->board[cd->rfrom] != PC_MAKE(us, SC_R) || (occ & cd->between) ||
            ((frozen >> cd->mfrom) & 1) || ((frozen >> cd->rfrom) & 1))
            continue;
        if (attacked(p, cd->mfrom, them, &foes, occ, ~0ull) ||
            attacked(p, cd->crossed, them, &foes, occ, ~0ull) ||
            attacked(p, cd->mto, them, &foes, occ, ~0ull))
            continue;
        const Move m = MOVE_MAKE(cd->mfrom, cd->mto, NO_SQ, 0, MK_CASTLE);
        if (!sc_move_exposes(p, m)) {
            if (list) list[n] = m;
            n++;
        }
    }
    /* Drops only add a blocker: all legal out of check, in check those that shield every
     * monarch. */
    Bitboard drop_sq = empty;
    if (check && (p->hand[us][SC_L] | p->hand[us][SC_X])) {
        drop_sq = 0;
        for (Bitboard b = drop_cand & empty; b;) {
            const int d = bb_pop_lsb(&b);
            bool safe = true;
            for (int i = 0; i < nmon && safe; i++)
                safe = !attacked(p, q[i], them, &foes, occ | (1ull << d), ~0ull);
            if (safe) drop_sq |= 1ull << d;
        }
    }
    for (int type = SC_L; type <= SC_X; type++) {
        if (!p->hand[us][type]) continue;
        const Bitboard sq = type == SC_L ? drop_sq & first_rank[us] : drop_sq;
        if (!list) n += bb_popcount(sq);
        else
            for (Bitboard b = sq; b;) {
                const int d = bb_pop_lsb(&b);
                list[n++] = MOVE_MAKE(d, d, NO_SQ, type, MK_DROP);
            }
    }
    return n;
}

/* Number of legal moves (perft's last ply), on the specialised path. */
uint64_t sc_count_fast(Position *p) {
    return (uint64_t)(p->side == WHITE ? moves_side(p, WHITE, NULL, false, false, NULL)
                                       : moves_side(p, BLACK, NULL, false, false, NULL));
}

/* The same count for a side the caller knows is not in check. */
static uint64_t count_unchecked(Position *p) {
    return (uint64_t)(p->side == WHITE ? moves_side(p, WHITE, NULL, false, true, NULL)
                                       : moves_side(p, BLACK, NULL, false, true, NULL));
}

/* Legal moves of the side to move, which is in check (counted when list is NULL). */
static __attribute__((noinline)) int moves_in_check(Position *p, Move *list) {
    return p->side == WHITE ? moves_side(p, WHITE, list, true, false, NULL)
                            : moves_side(p, BLACK, list, true, false, NULL);
}

/* Legal moves on the specialised path: the same set as sc_gen_legal. */
int sc_gen_fast(Position *p, Move *list) {
    return p->side == WHITE ? moves_side(p, WHITE, list, false, false, NULL)
                            : moves_side(p, BLACK, list, false, false, NULL);
}

/* sc_gen_fast's moves as a MoveSet: all in its tail, with the check flag (whether the
 * generator found a monarch attacked), which the chain decoder's record needs. */
int sc_gen_fast_set(Position *p, MoveSet *ms) {
    int check = 0;
    int n = p->side == WHITE ? moves_side(p, WHITE, ms->tail, false, false, &check)
                             : moves_side(p, BLACK, ms->tail, false, false, &check);
    ms->ngroup = ms->ngrouped = 0;
    ms->check = check;
    return ms->n = n;
}

/* The squares where a piece of the side to move may appear (a drop) or from and to which
 * it may move without changing any of the opponent's moves but the drops onto them, as
 * long as the piece itself can capture nothing in *zone, the opponent's monarch zone (its
 * monarchs, their moves, its first rank while it may castle; see calm_move): squares no
 * opponent piece reaches, rides through or needs empty (lame square), off the zone, and
 * off the lines and lame squares of the mover's captures onto the zone (a blocker there
 * may shield it or release a pin, a vacated square may open them). */
static Bitboard quiet_squares(const Position *p, Bitboard *zone_out, Bitboard *lines_out) {
    const ScTables *tb = TB(p);
    const int us = p->side, them = us ^ 1;
    const Bitboard occ = BB(p).color[WHITE] | BB(p).color[BLACK];
    Bitboard reach = 0, mon_reach = 0;
    for (Bitboard b = BB(p).color[them]; b;) {
        const int s = bb_pop_lsb(&b), ty = PC_TYPE(p->board[s]);
        Bitboard r = leap_geo[them][ty][s];
        if (tb->orth_rider[ty]) r |= rook_att8(s, occ);
        if (tb->diag_rider[ty]) r |= bishop_att8(s, occ);
        reach |= r;
        if ((tb->royal >> ty) & 1) mon_reach |= r | 1ull << s;
    }
    /* where the opponent's monarchs stand, go or castle through */
    const Bitboard zone = mon_reach | ((p->castle >> (them * 4)) & 15 ? first_rank[them] : 0);
    Bitboard lines = 0;
    for (Bitboard b = BB(p).color[us]; b;) {
        const int s = bb_pop_lsb(&b), ty = PC_TYPE(p->board[s]);
        /* the lines and lame squares of the mover's captures onto the zone: a blocker there
         * may shield it or release a pin, a vacated square may open them */
        if (tb->orth_rider[ty])
            for (Bitboard z = zone & rook_att8(s, 0); z;) lines |= between8[s][bb_pop_lsb(&z)];
        if (tb->diag_rider[ty])
            for (Bitboard z = zone & bishop_att8(s, 0); z;) lines |= between8[s][bb_pop_lsb(&z)];
        if (tb->lame_at[us][ty][s] < tb->lame_at[us][ty][s + 1] && (cap_geo[us][ty][s] & zone))
            for (uint32_t k = tb->lame_at[us][ty][s]; k < tb->lame_at[us][ty][s + 1]; k++)
                if ((tb->lame[k].mode & MM_CAPTURE) && ((zone >> tb->lame[k].sq) & 1))
                    lines |= tb->lame[k].lame;
    }
    *zone_out = zone;
    *lines_out = lines;
    return ~(reach | lines | zone);
}

/* The opponent's number of legal moves with the turn passed (e.p. square cleared). */
static uint64_t count_passed(Position *p) {
    const uint8_t ep = p->ep;
    p->ep = NO_SQ;
    p->side ^= 1;
    const uint64_t n = sc_count_fast(p);
    p->side ^= 1;
    p->ep = ep;
    return n;
}

/* How calm m, a legal move of the side to move, is. Calm (CALM or CALM_REACH): the
 * opponent's moves after it are those with the turn passed, but for those of the pieces
 * that reach, ride through or need empty a square m empties or fills, those a Magician or
 * Femme Fatale releases or catches next to either square, its drops onto them and, for
 * CALM_REACH, its monarchs' steps: a drop, or a move to an empty square without promotion,
 * a double step only where no opponent's pawn could take e.p., off the opponent's monarch
 * zone and the lines onto it (`calm`). CALM_REACH when the mover's captures can reach the
 * zone from either square (passed_delta then recounts the monarch steps). A CALM move
 * between `quiet` squares with no opponent's piece next to them changes no piece's moves
 * at all (quiet_squares). */
enum { NOT_CALM, CALM, CALM_REACH };
static FORCE_INLINE int calm_move(const Position *p, Move m, Bitboard calm, Bitboard zone,
                                  bool castles) {
    const int reach = castles ? NOT_CALM : CALM_REACH;
    const int from = MOVE_FROM(m), to = MOVE_TO(m), kind = MOVE_KIND(m), us = p->side;
    if (!((calm >> to) & 1)) return NOT_CALM;
    if (kind == MK_DROP) return cap_geo[us][MOVE_PROMO(m)][to] & zone ? reach : CALM;
    if (MOVE_PROMO(m) || p->board[to] || !((calm >> from) & 1)) return NOT_CALM;
    if (kind == MK_DOUBLE) {
        if (TB(p)->rev_cap[us ^ 1][SC_P][(from + to) / 2] & BB(p).type[SC_P] & BB(p).color[us ^ 1])
            return NOT_CALM;
    } else if (kind != MK_NORMAL) {
        return NOT_CALM;
    }
    const int ty = PC_TYPE(p->board[from]);
    return (cap_geo[us][ty][from] | cap_geo[us][ty][to]) & zone ? reach : CALM;
}

/* Bit t: pawn piece type t, which promotes on its last rank. */
#define PAWN_PIECES ((1u << SC_P) | (1u << SC_H) | (1u << SC_T) | (1u << SC_L))

/* Number of moves of side c's type-ty piece on s under occupancy occ, captures onto cap,
 * as moves_side counts them when they are legal without a test (one per promotion choice). */
static FORCE_INLINE int piece_count(const Position *p, const int c, int ty, int s, Bitboard occ,
                                    Bitboard cap, int choices) {
    const Bitboard to = targets(p, c, ty, s, occ, ~occ, cap);
    int n = bb_popcount(to);
    if ((PAWN_PIECES >> ty) & 1) n += bb_popcount(to & last_rank[c]) * (choices - 1);
    return n;
}

/* The opponent's pieces with the turn passed, as count_passed counts them, for the calm
 * children: each piece's count and the squares its moves depend on. */
typedef struct PassedPiece {
    Bitboard dep; /* its landings, lame squares and rides (the first blocker included) */
    int count;
    uint8_t sq, ty;
    bool tested; /* its moves are tested (a Magician or Femme Fatale next to an enemy it can
                  * disable, a shield of a monarch) */
} PassedPiece;
typedef struct Passed {
    bool usable; /* false when the opponent is in check with the turn passed */
    int n, choices;
    Bitboard occ, victims, neutral, frozen;
    Bitboard own;     /* the opponent's pieces */
    Bitboard mf;      /* its Magicians and Femme Fatales */
    Bitboard exposed; /* those a Magician or Femme Fatale can reach (not an immune Ambassador) */
    Bitboard fixed;   /* those whose status must not change: tested, monarchs, M and F, and
                       * the first rank while the opponent may castle (a frozen Rook cannot) */
    /* The monarch steps, for the moves whose captures reach the zone (CALM_REACH): recounted
     * when no monarch shields the other (else such a child is made) */
    bool steps_ok;
    Bitboard mons;     /* the opponent's monarchs */
    Bitboard legal[2]; /* each monarch's legal steps (attacked by none) */
    int nsingle;       /* the steps attacked by one piece only: */
    uint8_t single_to[20], single_by[20];
    PassedPiece pc[64];
} Passed;

/* Fills ps for the opponent of the side to move, as moves_side sees it with the turn
 * passed. Frozen pieces and monarchs are left out: a calm move changes neither. */
static void passed_build(const Position *p, Passed *ps) {
    const ScTables *tb = TB(p);
    const Bitboard *t = BB(p).type;
    const int by = p->side, c = by ^ 1; /* c moves in the children, by attacks */
    const Bitboard own = BB(p).color[c], foe = BB(p).color[by], occ = own | foe;
    const Bitboard mf = t[SC_M] | t[SC_F], royal = t[SC_K] | t[SC_E];
    const Bitboard exposed_foe = foe & ~(t[SC_D] & embassy_sq[by]);
    const Bitboard exposed_own = own & ~(t[SC_D] & embassy_sq[c]);
    const Bitboard act =
        foe & ~mf & ~((spread(t[SC_M] & own) | spread(t[SC_F] & own)) & exposed_foe);
    const Bitboard frozen = spread(t[SC_M] & foe) & exposed_own;
    /* moves_side tests an M or F only next to an enemy it can disable */
    Bitboard tested = own & mf & spread(exposed_foe);
    Foe foes;
    foe_make(&foes, t, act);
    ps->usable = false;
    int q[2], nmon = 0;
    Bitboard unb[2] = {0, 0};
    for (Bitboard m = royal & own; m; nmon++) {
        q[nmon] = bb_pop_lsb(&m);
        if (attacked(p, q[nmon], by, &foes, occ, ~0ull)) return;
        unb[nmon] = unblock(p, q[nmon], by, act, &foes, own, occ);
        tested |= unb[nmon];
    }
    ps->usable = true;
    ps->occ = occ;
    ps->victims = exposed_foe & ~royal;
    ps->neutral = spread(t[SC_F] & foe) & exposed_own;
    ps->frozen = frozen;
    ps->own = own;
    ps->exposed = exposed_own;
    ps->mf = own & mf;
    ps->fixed = tested | ps->mf | (royal & own) | ((p->castle >> (c * 4)) & 15 ? first_rank[c] : 0);
    ps->mons = royal & own;
    ps->steps_ok = !(unb[0] & ps->mons) && !(unb[1] & ps->mons);
    ps->nsingle = 0;
    ps->legal[0] = ps->legal[1] = 0;
    for (int i = 0; i < nmon && ps->steps_ok; i++) {
        /* as moves_side steps them: the monarch lifted, a captured piece gone */
        const int s = q[i];
        const Bitboard sb = 1ull << s, cap = (ps->neutral >> s) & 1 ? 0 : ps->victims;
        Bitboard to = king_att8[s] & (~occ | cap);
        if ((t[SC_E] >> s) & 1)
            to |= ((((sb << 8) & ~occ) << 8) | (((sb >> 8) & ~occ) >> 8)) & (~occ | cap);
        if ((frozen >> s) & 1) to = 0;
        while (to) {
            const int d = bb_pop_lsb(&to);
            const Bitboard a = attackers(p, d, by, &foes, (occ ^ sb) | (1ull << d), ~(1ull << d));
            if (!a) ps->legal[i] |= 1ull << d;
            else if (!(a & (a - 1))) {
                ps->single_to[ps->nsingle] = (uint8_t)d;
                ps->single_by[ps->nsingle++] = (uint8_t)bb_lsb(a);
            }
        }
    }
    ps->choices = p->hand[c][SC_X] != 0;
    for (const uint8_t *ty = p->var->promo_types; *ty; ty++) ps->choices += p->pool[c][*ty] != 0;
    ps->n = 0;
    for (Bitboard b = own & ~frozen & ~royal; b;) {
        const int s = bb_pop_lsb(&b), ty = PC_TYPE(p->board[s]);
        PassedPiece *x = &ps->pc[ps->n++];
        Bitboard dep = leap_geo[c][ty][s];
        if (tb->orth_rider[ty]) dep |= rook_att8(s, occ);
        if (tb->diag_rider[ty]) dep |= bishop_att8(s, occ);
        x->dep = dep;
        x->sq = (uint8_t)s;
        x->ty = (uint8_t)ty;
        x->tested = (tested >> s) & 1;
        x->count = x->tested ? 0
                             : piece_count(p, c, ty, s, occ,
                                           (ps->neutral >> s) & 1 ? 0 : ps->victims, ps->choices);
    }
}

/* The change the calm move m makes to the opponent's count with the turn passed (drops
 * aside), into *delta: the pieces whose moves depend on a square m empties or fills, and
 * those a moving Magician releases or freezes (a Femme Fatale: neutralises), counted
 * again. False when one of them has its moves tested, or its status changes and must not
 * (then the child is made). */
static bool passed_delta(const Position *p, const Passed *ps, Move m, bool reach, Bitboard zone,
                         int *delta) {
    const int us = p->side, from = MOVE_FROM(m), to = MOVE_TO(m);
    const bool drop = MOVE_KIND(m) == MK_DROP;
    const Bitboard tob = 1ull << to, fromb = drop ? 0 : 1ull << from, changed = tob | fromb;
    const int ty = drop ? MOVE_PROMO(m) : PC_TYPE(p->board[from]);
    /* the mover can be taken on `to` unless it is a monarch or an Ambassador at an embassy */
    const bool victim = ty != SC_K && ty != SC_E && !(ty == SC_D && (embassy_sq[us] & tob));
    const Bitboard occ = ps->occ ^ changed, victims = (ps->victims & ~fromb) | (victim ? tob : 0);
    Bitboard neutral = ps->neutral, frozen = ps->frozen, status = 0;
    /* an opponent's M or F next to the mover's squares is (or becomes) tested */
    if (spread(changed) & ps->mf) return false;
    if (ty == SC_M || ty == SC_F) {
        /* the opponent's pieces next to `from` that no other of ours holds are released,
         * those next to `to` caught (the mover's own status changes nothing it does) */
        const Bitboard mine = BB(p).type[ty] & BB(p).color[us];
        const Bitboard before = spread(mine) & ps->exposed,
                       after = spread(mine ^ changed) & ps->exposed;
        status = before ^ after;
        if (status & ps->fixed) return false;
        if (ty == SC_M) frozen = after;
        else neutral = after;
    }
    int d = 0;
    if (reach) {
        /* The mover can neither check, pin nor unpin (it reaches no monarch square, even as
         * a lame square, and both its squares are off the lines onto the zone), so only the
         * monarch steps it attacks change: from `to` (with the monarchs in place or lifted:
         * they are not on its lines), and those only it attacked from `from`. */
        const Bitboard geo = cap_geo[us][ty][to] | leap_geo[us][ty][to] |
                             (drop ? 0 : cap_geo[us][ty][from] | leap_geo[us][ty][from]);
        if (!ps->steps_ok || (geo & ps->mons)) return false;
        const Bitboard hit = cap_geo[us][ty][to] & zone ? targets(p, us, ty, to, occ, 0, ~0ull) : 0;
        d -= bb_popcount(ps->legal[0] & hit) + bb_popcount(ps->legal[1] & hit);
        if (!drop)
            for (int i = 0; i < ps->nsingle; i++)
                d += ps->single_by[i] == from && !((hit >> ps->single_to[i]) & 1);
    }
    for (int i = 0; i < ps->n; i++) {
        const PassedPiece *x = &ps->pc[i];
        if (!(x->dep & changed) && !((status >> x->sq) & 1)) continue;
        if (x->tested) return false;
        const int now = (frozen >> x->sq) & 1
                            ? 0
                            : piece_count(p, us ^ 1, x->ty, x->sq, occ,
                                          (neutral >> x->sq) & 1 ? 0 : victims, ps->choices);
        d += now - x->count;
    }
    /* pieces a Magician no longer freezes (not among ps->pc) */
    for (Bitboard b = status & ps->frozen & ~frozen; b;) {
        const int s = bb_pop_lsb(&b);
        d += piece_count(p, us ^ 1, PC_TYPE(p->board[s]), s, occ, (neutral >> s) & 1 ? 0 : victims,
                         ps->choices);
    }
    *delta = d;
    return true;
}

/* Whether m, a legal move of the side to move, may put the opponent in check (else its
 * count skips the test): a castling or e.p. move; a piece (or promotion) that could
 * capture an opponent's monarch from its landing square whatever stands between; a move
 * from a square on the lines or lame squares of the mover's captures onto the opponent's
 * monarch zone (`lines` of quiet_squares); a capture of a Magician or Femme Fatale, which
 * releases the mover's pieces it froze or neutralised. */
static FORCE_INLINE bool may_check(const Position *p, Move m, Bitboard lines) {
    const int from = MOVE_FROM(m), to = MOVE_TO(m), kind = MOVE_KIND(m), us = p->side;
    const Bitboard *t = BB(p).type;
    if (kind == MK_CASTLE || kind == MK_EP) return true;
    const int ty = kind == MK_DROP || MOVE_PROMO(m) ? MOVE_PROMO(m) : PC_TYPE(p->board[from]);
    if (cap_geo[us][ty][to] & (t[SC_K] | t[SC_E]) & BB(p).color[us ^ 1]) return true;
    if (kind == MK_DROP) return false;
    const int cap = PC_TYPE(p->board[to]);
    return ((lines >> from) & 1) || cap == SC_M || cap == SC_F;
}

/* Leaves below p at depth >= 2: the fast generator and the lean make above the last ply,
 * the specialised count at it. At depth 2 the children of calm moves are counted from one
 * count with the turn passed, without being made: the opponent's drops adjusted, and for a
 * move off the quiet squares, the pieces whose moves it changes counted again
 * (passed_delta); the count of a child that may_check clears skips the check test. */
static uint64_t lean_perft(Position *p, int depth) {
    Move list[MAX_MOVES];
    const int n = sc_gen_fast(p, list);
    const int them = p->side ^ 1;
    Bitboard quiet = 0, zone = 0, lines = 0;
    uint64_t total = 0, base = 0;
    bool have_base = false, have_passed = false;
    Passed passed;
    if (depth == 2) quiet = quiet_squares(p, &zone, &lines);
    const Bitboard calm = ~(lines | zone);
    const Bitboard mf = BB(p).type[SC_M] | BB(p).type[SC_F]; /* p is restored after each move */
    /* the opponent's castling is not recounted: with a right, CALM_REACH children are made */
    const bool castles = (p->castle >> (them * 4)) & 15;
    for (int i = 0; i < n; i++) {
        const Move m = list[i];
        const int how = depth == 2 ? calm_move(p, m, calm, zone, castles) : NOT_CALM;
        if (how != NOT_CALM) {
            const int to = MOVE_TO(m), from = MOVE_FROM(m);
            const bool drop = MOVE_KIND(m) == MK_DROP;
            int delta = 0;
            bool counted = true;
            if (how == CALM_REACH || !((quiet >> to) & 1) || (!drop && !((quiet >> from) & 1)) ||
                (((mf >> from) & 1) && !drop &&
                 (spread((1ull << from) | (1ull << to)) & BB(p).color[them]))) {
                if (!have_passed) passed_build(p, &passed), have_passed = true;
                counted =
                    passed.usable && passed_delta(p, &passed, m, how == CALM_REACH, zone, &delta);
            }
            if (counted) {
                if (!have_base) base = count_passed(p), have_base = true;
                /* the opponent's drops: onto the square filled, and onto the one emptied */
                const bool x = p->hand[them][SC_X] != 0, l = p->hand[them][SC_L] != 0;
                total += base + (int64_t)delta - x - (l && ((first_rank[them] >> to) & 1));
                if (!drop) total += x + (l && ((first_rank[them] >> from) & 1));
                continue;
            }
        }
        const bool unchecked = depth == 2 && !may_check(p, m, lines);
        LeanUndo u;
        lean_make(p, m, &u);
        total += depth > 2   ? lean_perft(p, depth - 1)
                 : unchecked ? count_unchecked(p)
                             : sc_count_fast(p);
        lean_unmake(p, m, &u);
    }
    return total;
}

/* Leaves of the legal-move tree of the given depth on the specialised path. */
uint64_t sc_perft(Position *p, int depth) {
    if (depth <= 1) return depth <= 0 ? 1 : sc_count_fast(p);
    return lean_perft(p, depth);
}
