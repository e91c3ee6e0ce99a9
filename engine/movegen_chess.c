/* movegen_chess.c - the fast generator of orthodox chess (also the orthodox part of
 * Switching chess): magic sliders, pin and check masks, fully legal generation and bulk
 * counting at the last ply, on 64-bit bitboards.
 *
 * Every part below takes `mode`, a constant at each call of chess_generate, so the
 * compiler builds one generator that writes moves, one that only counts them and one that
 * keeps them as groups of destinations (a MoveSet, expanded one move at a time by
 * moveset_pick), all three in the same order. */
#include <assert.h>
#if defined(__AVX2__)
#include <immintrin.h>
#endif

#include "chess.h"

#define ALWAYS_INLINE static inline __attribute__((always_inline))

/* chess_generate's modes: the legal moves written, counted or kept as a MoveSet, or
 * (GEN_PSEUDO) chess_gen_pseudo_set's as a MoveSet */
enum { GEN_LIST, GEN_COUNT, GEN_SET, GEN_PSEUDO };

/* Whether mode keeps a MoveSet. */
#define SET_MODE(mode) ((mode) == GEN_SET || (mode) == GEN_PSEUDO)

/* One generation: the moves so far (written to list unless only counted) and what every
 * part needs to know about the position, computed once. */
typedef struct ChessGen {
    const Position *p;
    Move *list;  /* GEN_LIST's output */
    MoveSet *ms; /* GEN_SET's */
    int ng;      /* its next group (ms->ngroup set at the end: a count in memory would be
                  * loaded and stored again at every group) */
    int n;
    int us, them, ksq;
    Bitboard own, opp, occ;
    Bitboard checkers; /* enemy pieces giving check */
    Bitboard target;   /* squares a non-king move may go to: not own, and blocking any check */
    Bitboard pinned;   /* own pieces alone between the king and an enemy slider */
} ChessGen;

/* ---------------------------------------------------------------- emitters */

/* Adds a group of moves to the set: mult per destination in to, from `from` or (NO_SQ)
 * from each destination less back. A position has at most 83 groups (MOVESET_GROUPS):
 * checked here in debug builds (the sanitizer builds), and by the engine tests' MoveSet
 * check at every node they walk; a check in the release build's generator costs chess
 * decoding 0.7% (9 instructions a position). */
ALWAYS_INLINE void emit_group(ChessGen *g, Bitboard to, int from, int back, int kind, int mult) {
    assert(g->ng < MOVESET_GROUPS);
    MoveSet *ms = g->ms;
    const int i = g->ng++;
    ms->start[i] = (uint16_t)g->n;
    ms->to[i] = to;
    ms->how[i] = MOVESET_HOW(from, back, kind, mult);
    g->n += bb_popcount(to) * mult;
}

/* Adds one move. */
ALWAYS_INLINE void emit(ChessGen *g, const int mode, Move m) {
    if (SET_MODE(mode)) {
        emit_group(g, sq_bb8(MOVE_TO(m)), MOVE_FROM(m), 0, MOVE_KIND(m), 1);
        return;
    }
    if (mode == GEN_LIST) g->list[g->n] = m;
    g->n++;
}

/* Adds the four promotions of a pawn move, queen first. */
ALWAYS_INLINE void emit_promos(ChessGen *g, const int mode, int from, int to, int kind) {
    if (SET_MODE(mode)) {
        emit_group(g, sq_bb8(to), from, 0, kind, 4);
        return;
    }
    if (mode == GEN_COUNT) {
        g->n += 4;
        return;
    }
    g->list[g->n++] = MOVE_MAKE(from, to, NO_SQ, QUEEN, kind);
    g->list[g->n++] = MOVE_MAKE(from, to, NO_SQ, ROOK, kind);
    g->list[g->n++] = MOVE_MAKE(from, to, NO_SQ, BISHOP, kind);
    g->list[g->n++] = MOVE_MAKE(from, to, NO_SQ, KNIGHT, kind);
}

/* Adds a move of the piece on `from` to every square of targets. */
ALWAYS_INLINE void emit_targets(ChessGen *g, const int mode, int from, Bitboard targets) {
    if (SET_MODE(mode)) {
        if (mode == GEN_PSEUDO || targets) emit_group(g, targets, from, 0, MK_NORMAL, 1);
        return;
    }
    if (mode == GEN_COUNT) {
        g->n += bb_popcount(targets);
        return;
    }
    while (targets) g->list[g->n++] = MOVE_SIMPLE(from, bb_pop_lsb(&targets), MK_NORMAL);
}

/* Adds one pawn move onto every square of targets, from the square `back` before it. */
ALWAYS_INLINE void emit_pawns(ChessGen *g, const int mode, Bitboard targets, int back, int kind) {
    if (SET_MODE(mode)) {
        if (mode == GEN_PSEUDO || targets) emit_group(g, targets, NO_SQ, back, kind, 1);
        return;
    }
    if (mode == GEN_COUNT) {
        g->n += bb_popcount(targets);
        return;
    }
    while (targets) {
        int to = bb_pop_lsb(&targets);
        g->list[g->n++] = MOVE_SIMPLE(to - back, to, kind);
    }
}

/* Adds the four promotions of a pawn move onto every square of targets. */
ALWAYS_INLINE void emit_pawn_promos(ChessGen *g, const int mode, Bitboard targets, int back) {
    if (SET_MODE(mode)) {
        if (targets) emit_group(g, targets, NO_SQ, back, MK_NORMAL, 4);
        return;
    }
    if (mode == GEN_COUNT) {
        g->n += 4 * bb_popcount(targets);
        return;
    }
    while (targets) {
        int to = bb_pop_lsb(&targets);
        emit_promos(g, GEN_LIST, to - back, to, MK_NORMAL);
    }
}

/* ---------------------------------------------------------------- the parts */

/* One square up for colour us. */
static inline Bitboard shift_up(Bitboard b, int us) { return us == WHITE ? b << 8 : b >> 8; }

/* The last rank of colour us. */
static inline Bitboard last_rank(int us) { return us == WHITE ? RANK_1 << 56 : RANK_1; }

/* King steps: the destination must be safe with the king lifted off the board. */
ALWAYS_INLINE void gen_king(ChessGen *g, const int mode, const bool captures) {
    Bitboard t = king_att8[g->ksq] & (captures ? g->opp : ~g->own), safe = 0;
    if (mode == GEN_PSEUDO) {
        emit_targets(g, mode, g->ksq, t);
        return;
    }
    const Bitboard occ_nok = g->occ ^ sq_bb8(g->ksq);
    while (t) {
        int to = bb_pop_lsb(&t);
        if (!attackers_by(g->p, to, g->them, occ_nok)) safe |= sq_bb8(to);
    }
    emit_targets(g, mode, g->ksq, safe);
}

/* Own pieces pinned to the king: alone between it and an enemy slider on its line. */
ALWAYS_INLINE Bitboard pinned_pieces(const ChessGen *g) {
    const Bitboard *T = BB(g->p).type;
    Bitboard pinned = 0;
    Bitboard snipers = ((rook_att8(g->ksq, 0) & (T[ROOK] | T[QUEEN])) |
                        (bishop_att8(g->ksq, 0) & (T[BISHOP] | T[QUEEN]))) &
                       g->opp;
    while (snipers) {
        int s = bb_pop_lsb(&snipers);
        Bitboard b = between8[g->ksq][s] & g->occ;
        if (b && !(b & (b - 1)) && (b & g->own)) pinned |= b;
    }
    return pinned;
}

/* Knights (a pinned knight never moves), then the diagonal and the orthogonal sliders
 * (a pinned slider moves along its pin line). */
ALWAYS_INLINE void gen_pieces(ChessGen *g, const int mode) {
    const Bitboard *T = BB(g->p).type;
    Bitboard b = T[KNIGHT] & g->own & ~g->pinned;
    while (b) {
        int s = bb_pop_lsb(&b);
        emit_targets(g, mode, s, knight_att8[s] & g->target);
    }
    b = (T[BISHOP] | T[QUEEN]) & g->own;
    while (b) {
        int s = bb_pop_lsb(&b);
        Bitboard a = bishop_att8(s, g->occ) & g->target;
        if (g->pinned & sq_bb8(s)) a &= line8[g->ksq][s];
        emit_targets(g, mode, s, a);
    }
    b = (T[ROOK] | T[QUEEN]) & g->own;
    while (b) {
        int s = bb_pop_lsb(&b);
        Bitboard a = rook_att8(s, g->occ) & g->target;
        if (g->pinned & sq_bb8(s)) a &= line8[g->ksq][s];
        emit_targets(g, mode, s, a);
    }
}

/* The ranks from which a pawn may double-step: its second, and its first (Switching). */
static inline Bitboard double_step_ranks(int us) {
    return us == WHITE ? (RANK_1 | RANK_1 << 8) : (RANK_1 << 56 | RANK_1 << 48);
}

/* Unpinned pawns, set-wise: single steps, promotions, double steps, then the captures
 * toward the a-file and toward the h-file. */
ALWAYS_INLINE void gen_free_pawns(ChessGen *g, const int mode) {
    const int us = g->us, up = us == WHITE ? 8 : -8;
    const Bitboard free_p = BB(g->p).type[PAWN] & g->own & ~g->pinned;
    const Bitboard last = last_rank(us), empty = ~g->occ;

    Bitboard one = shift_up(free_p, us) & empty;
    Bitboard two =
        shift_up(shift_up(free_p & double_step_ranks(us), us) & empty, us) & empty & g->target;
    one &= g->target;
    emit_pawns(g, mode, one & ~last, up, MK_NORMAL);
    emit_pawn_promos(g, mode, one & last, up);
    emit_pawns(g, mode, two, 2 * up, MK_DOUBLE);

    Bitboard capl, capr;
    int backl, backr;
    if (us == WHITE) {
        capl = (free_p & ~FILE_A) << 7;
        backl = 7;
        capr = (free_p & ~FILE_H) << 9;
        backr = 9;
    } else {
        capl = (free_p & ~FILE_A) >> 9;
        backl = -9;
        capr = (free_p & ~FILE_H) >> 7;
        backr = -7;
    }
    capl &= g->opp & g->target;
    capr &= g->opp & g->target;
    emit_pawns(g, mode, capl & ~last, backl, MK_NORMAL);
    emit_pawn_promos(g, mode, capl & last, backl);
    emit_pawns(g, mode, capr & ~last, backr, MK_NORMAL);
    emit_pawn_promos(g, mode, capr & last, backr);
}

/* Pinned pawns, one by one, along the pin line. */
ALWAYS_INLINE void gen_pinned_pawns(ChessGen *g, const int mode) {
    const int us = g->us, up = us == WHITE ? 8 : -8;
    const Bitboard last = last_rank(us);
    Bitboard pp = BB(g->p).type[PAWN] & g->own & g->pinned;
    while (pp) {
        int s = bb_pop_lsb(&pp);
        Bitboard line = line8[g->ksq][s];
        Bitboard d = 0;
        int one_sq = s + up;
        if (one_sq >= 0 && one_sq < 64 && !(g->occ & sq_bb8(one_sq))) {
            d |= sq_bb8(one_sq);
            if ((sq_bb8(s) & double_step_ranks(us)) && !(g->occ & sq_bb8(one_sq + up)) &&
                (g->target & line & sq_bb8(one_sq + up)))
                emit(g, mode, MOVE_SIMPLE(s, one_sq + up, MK_DOUBLE));
        }
        d |= pawn_att8[us][s] & g->opp;
        d &= g->target & line;
        while (d) {
            int to = bb_pop_lsb(&d);
            if (sq_bb8(to) & last) emit_promos(g, mode, s, to, MK_NORMAL);
            else emit(g, mode, MOVE_SIMPLE(s, to, MK_NORMAL));
        }
    }
}

/* En passant, checked against the real occupancy after the capture. */
ALWAYS_INLINE void gen_en_passant(ChessGen *g, const int mode) {
    const Position *p = g->p;
    if (p->ep == NO_SQ) return;
    int ep = p->ep, cap = ep - (g->us == WHITE ? 8 : -8);
    Bitboard from = pawn_att8[g->them][ep] & BB(p).type[PAWN] & g->own;
    while (from) {
        int s = bb_pop_lsb(&from);
        Bitboard occ2 = (g->occ ^ sq_bb8(s) ^ sq_bb8(cap)) | sq_bb8(ep);
        if (mode == GEN_PSEUDO || !(attackers_by(p, g->ksq, g->them, occ2) & ~sq_bb8(cap)))
            emit(g, mode, MOVE_SIMPLE(s, ep, MK_EP));
    }
}

/* Castling (never out of check): the squares between king and rook empty, the squares
 * the king crosses and lands on not attacked. */
ALWAYS_INLINE void gen_castling(ChessGen *g, const int mode) {
    const Position *p = g->p;
    const int us = g->us, them = g->them;
    const Bitboard occ = g->occ;
    if (!(p->castle & (us == WHITE ? (CASTLE_WK | CASTLE_WQ) : (CASTLE_BK | CASTLE_BQ)))) return;
    const int base = us == WHITE ? 0 : 56;
    const bool pseudo = mode == GEN_PSEUDO;
    if ((p->castle & (us == WHITE ? CASTLE_WK : CASTLE_BK)) &&
        !(occ & (sq_bb8(base + 5) | sq_bb8(base + 6))) &&
        (pseudo ||
         (!attackers_by(p, base + 5, them, occ) && !attackers_by(p, base + 6, them, occ))))
        emit(g, mode, MOVE_SIMPLE(base + 4, base + 6, MK_CASTLE));
    if ((p->castle & (us == WHITE ? CASTLE_WQ : CASTLE_BQ)) &&
        !(occ & (sq_bb8(base + 1) | sq_bb8(base + 2) | sq_bb8(base + 3))) &&
        (pseudo ||
         (!attackers_by(p, base + 3, them, occ) && !attackers_by(p, base + 2, them, occ))))
        emit(g, mode, MOVE_SIMPLE(base + 4, base + 2, MK_CASTLE));
}

/* ---------------------------------------------------------------- the generator */

/* Legal moves of orthodox chess, written to list or only counted (with `captures`, only
 * the captures: every target set is cut to the enemy's pieces, which leaves no pawn push
 * and no castling; e.p. stays). Pinned pieces move along their pin line; in check, only
 * moves onto the check mask; king moves and e.p. are tested against the real occupancy. */
ALWAYS_INLINE int chess_generate(const Position *p, Move *list, MoveSet *ms, const int mode,
                                 const bool captures) {
    ChessGen g;
    g.p = p;
    g.list = list;
    g.ms = ms;
    g.n = 0;
    g.ng = 0;
    g.us = p->side;
    g.them = g.us ^ 1;
    g.own = BB(p).color[g.us];
    g.opp = BB(p).color[g.them];
    g.occ = g.own | g.opp;
    g.ksq = king_sq(p, g.us);
    if (mode == GEN_PSEUDO) { /* no pins; e.p., castling and the king's steps untested */
        g.checkers = attackers_by(p, g.ksq, g.them, g.occ);
        ms->check = g.checkers != 0;
        g.pinned = 0;
        if (!(g.checkers & (g.checkers - 1))) {
            g.target = ~g.own;
            if (g.checkers) g.target &= between8[g.ksq][bb_lsb(g.checkers)] | g.checkers;
            gen_pieces(&g, mode);
            gen_free_pawns(&g, mode);
            gen_en_passant(&g, mode);
            if (!g.checkers) gen_castling(&g, mode);
        }
        gen_king(&g, mode, false);
        ms->ngroup = g.ng;
        return g.n;
    }
    g.checkers = attackers_by(p, g.ksq, g.them, g.occ);

    if (mode == GEN_SET) ms->check = g.checkers != 0;
    gen_king(&g, mode, captures);
    if (g.checkers & (g.checkers - 1)) { /* double check: only the king moves */
        if (SET_MODE(mode)) ms->ngroup = g.ng;
        return g.n;
    }
    g.target = captures ? g.opp : ~g.own;
    if (g.checkers) g.target &= between8[g.ksq][bb_lsb(g.checkers)] | g.checkers;
    g.pinned = pinned_pieces(&g);

    gen_pieces(&g, mode);
    gen_free_pawns(&g, mode);
    gen_pinned_pawns(&g, mode);
    gen_en_passant(&g, mode);
    if (!g.checkers && !captures) gen_castling(&g, mode);
    if (SET_MODE(mode)) ms->ngroup = g.ng;
    return g.n;
}

/* Legal moves of orthodox chess. */
int chess_gen_legal(Position *p, Move *list) {
    return chess_generate(p, list, NULL, GEN_LIST, false);
}

/* Legal captures of orthodox chess (e.p. included; also Switching chess's, whose switches
 * capture nothing). */
int chess_gen_captures(Position *p, Move *list) {
    return chess_generate(p, list, NULL, GEN_LIST, true);
}

/* Number of legal moves of orthodox chess (perft's last ply), counted without writing them. */
uint64_t chess_count_legal(Position *p) {
    return (uint64_t)chess_generate(p, NULL, NULL, GEN_COUNT, false);
}

/* Legal moves of orthodox chess as a MoveSet: chess_gen_legal's, in its order, all in
 * groups (the tail empty); also sets ms->check. */
int chess_gen_set(Position *p, MoveSet *ms) {
    int n = chess_generate(p, NULL, ms, GEN_SET, false);
    ms->ngrouped = ms->n = n;
    return n;
}

/* The moves of chain version 6's index in orthodox chess, as a MoveSet: out of check the
 * knights', the diagonal and the orthogonal sliders', the pawns' (set-wise, as
 * chess_gen_set's) onto squares not their own, pinned or not, e.p. and castling with
 * their squares empty (not tested for attacks); in check only those onto the check mask
 * (none in double check, no castling); then the king's steps onto squares not its own,
 * attacked or not. A decoder tests the one move it picks (chess_pseudo_is_legal). */
int chess_gen_pseudo_set(Position *p, MoveSet *ms) {
    int n = chess_generate(p, NULL, ms, GEN_PSEUDO, false);
    ms->ngrouped = ms->n = n;
    return n;
}

/* Whether m is surely legal without a test of attacks: not the king's, not e.p., and no
 * enemy slider on the line of its square and the king's (so not pinned). The usual answer
 * of chess_pseudo_is_legal, and chess_pseudo_pick's inline one. */
ALWAYS_INLINE bool pseudo_unpinned(const Position *p, Move m, int ksq) {
    const Bitboard *T = BB(p).type;
    const int from = MOVE_FROM(m);
    return from != ksq && MOVE_KIND(m) != MK_EP &&
           !(line8[ksq][from] & (T[BISHOP] | T[ROOK] | T[QUEEN]) & BB(p).color[p->side ^ 1]);
}

bool chess_pseudo_is_legal(const Position *p, Move m) {
    const int us = p->side, them = us ^ 1, from = MOVE_FROM(m), to = MOVE_TO(m);
    const Bitboard occ = BB(p).color[WHITE] | BB(p).color[BLACK];
    const int ksq = king_sq(p, us);
    if (from == ksq) {
        if (MOVE_KIND(m) == MK_CASTLE) { /* as gen_castling: not out of check, nor across */
            const int base = us == WHITE ? 0 : 56, mid = to == base + 6 ? base + 5 : base + 3;
            return !attackers_by(p, ksq, them, occ) && !attackers_by(p, mid, them, occ) &&
                   !attackers_by(p, to, them, occ);
        }
        return !attackers_by(p, to, them, occ ^ sq_bb8(ksq));
    }
    if (pseudo_unpinned(p, m, ksq)) return true;
    Bitboard occ2 = (occ ^ sq_bb8(from)) | sq_bb8(to), taken = sq_bb8(to);
    if (MOVE_KIND(m) == MK_EP) {
        taken = sq_bb8(to - (us == WHITE ? 8 : -8));
        occ2 ^= taken;
    }
    return !(attackers_by(p, ksq, them, occ2) & ~taken);
}

/* The j-th square (from the lowest, 0 <= j < popcount) of b: by a loop (portable), or by
 * one PDEP where the build has it. */
ALWAYS_INLINE int bb_nth_loop(Bitboard b, int j) {
    while (j--) b &= b - 1;
    return bb_lsb(b);
}
ALWAYS_INLINE int bb_nth(Bitboard b, int j) {
#if CHESSVAR_PEXT
    return bb_lsb(_pdep_u64((Bitboard)1 << j, b));
#else
    return bb_nth_loop(b, j);
#endif
}

/* moveset_group's answer by a walk over the starts: any build's, and the portable one's. */
ALWAYS_INLINE int moveset_group_walk(const MoveSet *ms, int k) {
    int j = 0;
    while (j + 1 < ms->ngroup && ms->start[j + 1] <= k) j++;
    return j;
}

/* The group of grouped move k: the last group whose start is at most k (the starts rise,
 * staying put across an empty group). Up to 32 groups (nearly every position) by two
 * vector compares of the starts, counted, without a branch on k; else a walk. */
ALWAYS_INLINE int moveset_group(const MoveSet *ms, int k) {
#if defined(__AVX2__)
    const int ng = ms->ngroup;
    if (__builtin_expect(ng <= 32, 1)) {
        const __m256i kk = _mm256_set1_epi16((short)k); /* starts and k below 2^15 */
        const __m256i a = _mm256_loadu_si256((const __m256i *)ms->start);
        const __m256i b = _mm256_loadu_si256((const __m256i *)(ms->start + 16));
        /* two bits a group whose start is above k; those past the last group cut off */
        const uint64_t above = (uint32_t)_mm256_movemask_epi8(_mm256_cmpgt_epi16(a, kk)) |
                               (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpgt_epi16(b, kk))
                                   << 32;
        return (int)(_mm_popcnt_u64(_bzhi_u64(~above, 2 * (unsigned)ng)) >> 1) - 1;
    }
#endif
    return moveset_group_walk(ms, k);
}

/* moveset_pick's work, for it and chess_pseudo_pick; portable: by the walk and the loop
 * whatever the build (moveset_pick_portable). */
ALWAYS_INLINE Move moveset_pick_at(const MoveSet *ms, int k, bool portable) {
    static const uint8_t promo[4] = {QUEEN, ROOK, BISHOP, KNIGHT};
    if (k >= ms->ngrouped) return ms->tail[k - ms->ngrouped];
    const int j = portable ? moveset_group_walk(ms, k) : moveset_group(ms, k);
    k -= ms->start[j];
    const uint32_t how = ms->how[j];
    const int mult = (int)(how >> 24), from0 = (int)(how & 0xFF), kind = (int)(how >> 16 & 0xFF);
    const int nth = mult == 1 ? k : k >> 2;
    const int sq = portable ? bb_nth_loop(ms->to[j], nth) : bb_nth(ms->to[j], nth);
    /* a pawn group's from (each destination less back) by a mask, not a branch: the
     * group's kind follows the data */
    const int from = from0 + ((sq - (int8_t)(how >> 8) - from0) & -(from0 == NO_SQ));
    if (mult == 1) return MOVE_SIMPLE(from, sq, kind);
    return MOVE_MAKE(from, sq, NO_SQ, promo[k & 3], kind);
}

Move moveset_pick(const MoveSet *ms, int k) { return moveset_pick_at(ms, k, false); }

Move moveset_pick_portable(const MoveSet *ms, int k) { return moveset_pick_at(ms, k, true); }

/* chess_pseudo_is_legal out of line: inlined, its registers would be saved and restored
 * at every pick, whose test it answers only for the king's, a pinned piece's and e.p.
 * moves. */
static __attribute__((noinline)) bool pseudo_is_legal_slow(const Position *p, Move m) {
    return chess_pseudo_is_legal(p, m);
}

Move chess_pseudo_pick(const Position *p, const MoveSet *ms, int k) {
    const Move m = moveset_pick_at(ms, k, false);
    if (pseudo_unpinned(p, m, king_sq(p, p->side))) return m;
    return pseudo_is_legal_slow(p, m) ? m : MOVE_NONE;
}
