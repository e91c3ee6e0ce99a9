/* superchess_gen.c - the fast Superchess generator on bitboards: the status effects
 * (frozen, neutralised, immune) as masks, the table-driven attack test, pseudo-legal
 * generation, and legality decided without make/unmake for the moves that can expose a
 * monarch. */
#include "superchess.h"

/* The squares at which a side's Ambassador is immune: the corners of its last rank. */
static const Bitboard embassy[2] = {(1ull << 56) | (1ull << 63), (1ull << 0) | (1ull << 7)};

/* K-step neighbourhood of a set, the set itself included. */
static inline Bitboard bb_spread(Bitboard b) {
    const Bitboard not_a = 0xfefefefefefefefeull, not_h = 0x7f7f7f7f7f7f7f7full;
    b |= ((b << 1) & not_a) | ((b >> 1) & not_h);
    return b | (b << 8) | (b >> 8);
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
bool sc_royal_attacked(const Position *p, int c) {
    Bitboard mon = pieces_of(p, TB(p)->royal) & BB(p).color[c];
    if (!mon) return false;
    Attackers a = attackers_make(p, status_of(p, c ^ 1).active, BB(p).color[0] | BB(p).color[1]);
    while (mon)
        if (sc_attacked(p, bb_pop_lsb(&mon), c ^ 1, &a)) return true;
    return false;
}

/* Whether the side to move is in check. */
bool sc_in_check(const Position *p) { return sc_royal_attacked(p, p->side); }

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
                         int *bulk_count, bool caps_only) {
    const ScTables *tb = TB(p);
    const Variant *v = p->var;
    int us = p->side, them = us ^ 1, n = 0;
    Bitboard own = BB(p).color[us], foe = BB(p).color[them], occ = own | foe;
    Status st = status_of(p, us);
    Bitboard foe_immune = pieces_of(p, tb->immune) & foe & embassy[them];
    Bitboard victims = foe & ~foe_immune & ~pieces_of(p, tb->royal);
    Bitboard empty = caps_only ? 0 : ~occ; /* captures only: no landing on an empty square */
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
    uint32_t rights = caps_only ? 0 : (p->castle >> (us * 4)) & 15;
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
bool sc_move_exposes(const Position *p, Move m) {
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
static int sc_generate(Position *p, Move *list, bool count_only, bool caps_only) {
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
    int n = sc_gen_pseudo(p, list, &a, !caps_only && (check || !count_only), bulk, &bulk_count,
                          caps_only),
        k = 0;
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
int sc_gen_legal(Position *p, Move *list) { return sc_generate(p, list, false, false); }

/* Legal captures (quiescence): the moves of sc_gen_legal that land on an enemy piece, and
 * e.p., in the same order; no drops, castling or quiet promotions. */
int sc_gen_captures(Position *p, Move *list) { return sc_generate(p, list, false, true); }

/* Number of legal moves (perft's last ply). */
uint64_t sc_count_legal(Position *p) {
    Move list[MAX_MOVES];
    return (uint64_t)sc_generate(p, list, true, false);
}
