/* perft_superchess_lean.h - internal to perft_superchess.c (included there only): the lean
 * make/unmake above the last ply (board, bitboards, hand, pool, rights, e.p., side; no key,
 * counters or undo stack). */
#ifndef CHESSVAR_PERFT_SUPERCHESS_LEAN_H
#define CHESSVAR_PERFT_SUPERCHESS_LEAN_H

#include "perft_superchess_attack.h"

/* What lean_unmake restores: the rights, the e.p. square and the pieces involved. */
typedef struct LeanUndo {
    uint32_t castle;
    uint8_t ep, captured, moved;
} LeanUndo;

/* Puts piece pc on the empty square sq: board and bitboards only (no key, no counts). */
static FORCE_INLINE void lean_put(Position *p, int sq, int pc) {
    const Bitboard b = 1ull << sq;
    p->board[sq] = (uint8_t)pc;
    p->bb.b8.type[PC_TYPE(pc)] |= b;
    p->bb.b8.color[PC_COLOR(pc)] |= b;
}
/* Removes the piece pc from square sq. */
static FORCE_INLINE void lean_remove(Position *p, int sq, int pc) {
    const Bitboard b = 1ull << sq;
    p->board[sq] = PC_EMPTY;
    p->bb.b8.type[PC_TYPE(pc)] ^= b;
    p->bb.b8.color[PC_COLOR(pc)] ^= b;
}
/* Moves the piece on from to the empty square to. */
static FORCE_INLINE void lean_move(Position *p, int from, int to) {
    const int pc = p->board[from];
    const Bitboard b = (1ull << from) | (1ull << to);
    p->board[from] = PC_EMPTY;
    p->board[to] = (uint8_t)pc;
    p->bb.b8.type[PC_TYPE(pc)] ^= b;
    p->bb.b8.color[PC_COLOR(pc)] ^= b;
}

/* Plays m as sc_make does for everything a count reads (board, bitboards, hand, pool,
 * rights, e.p., side), but leaves the key, the counters, the piece counts and the undo
 * stack alone: the position is only valid for counting until lean_unmake. The e.p.
 * square is kept after every double step (sc_make keeps it only when a capture is
 * possible); the generators test the capture themselves. */
static void lean_make(Position *p, Move m, LeanUndo *u) {
    const ScTables *tb = TB(p);
    const int us = p->side, them = us ^ 1;
    const int from = MOVE_FROM(m), to = MOVE_TO(m), promo = MOVE_PROMO(m), kind = MOVE_KIND(m);
    uint32_t castle = p->castle;
    u->castle = castle;
    u->ep = p->ep;
    u->captured = u->moved = 0;
    p->ep = NO_SQ;
    if (kind == MK_DROP) {
        p->hand[us][promo]--;
        lean_put(p, to, PC_MAKE(us, promo));
    } else if (kind == MK_CASTLE) {
        const CastleDef *cd =
            &tb->castles[us * 4 + (PC_TYPE(p->board[from]) == SC_E ? 2 : 0) + (to > from)];
        lean_move(p, from, to);
        lean_move(p, cd->rfrom, cd->rto);
        castle &= ~(tb->castle_clear_type[us][cd->monarch] | tb->castle_clear_sq[cd->rfrom]);
    } else {
        const int pc = p->board[from];
        u->moved = (uint8_t)pc;
        const int capsq = kind == MK_EP ? (us == WHITE ? to - 8 : to + 8) : to;
        const int cap = p->board[capsq];
        if (cap) {
            lean_remove(p, capsq, cap);
            u->captured = (uint8_t)cap;
            if ((pool_types >> PC_TYPE(cap)) & 1) p->pool[them][PC_TYPE(cap)]++;
        }
        lean_move(p, from, to);
        if (promo) {
            lean_remove(p, to, pc);
            lean_put(p, to, PC_MAKE(us, promo));
            if (promo == SC_X) p->hand[us][SC_X]--;
            else p->pool[us][promo]--;
        }
        castle &= ~(tb->castle_clear_type[us][PC_TYPE(pc)] | tb->castle_clear_sq[from] |
                    tb->castle_clear_sq[to]);
        if (kind == MK_DOUBLE) p->ep = (uint8_t)((from + to) / 2);
    }
    p->castle = castle;
    p->side = (uint8_t)them;
}

/* Takes back lean_make(p, m, u). */
static void lean_unmake(Position *p, Move m, const LeanUndo *u) {
    const ScTables *tb = TB(p);
    const int us = p->side ^ 1, them = p->side;
    const int from = MOVE_FROM(m), to = MOVE_TO(m), promo = MOVE_PROMO(m), kind = MOVE_KIND(m);
    p->side = (uint8_t)us;
    if (kind == MK_DROP) {
        lean_remove(p, to, PC_MAKE(us, promo));
        p->hand[us][promo]++;
    } else if (kind == MK_CASTLE) {
        const CastleDef *cd =
            &tb->castles[us * 4 + (PC_TYPE(p->board[to]) == SC_E ? 2 : 0) + (to > from)];
        lean_move(p, cd->rto, cd->rfrom);
        lean_move(p, to, from);
    } else {
        if (promo) {
            lean_remove(p, to, PC_MAKE(us, promo));
            lean_put(p, to, u->moved);
            if (promo == SC_X) p->hand[us][SC_X]++;
            else p->pool[us][promo]++;
        }
        lean_move(p, to, from);
        if (u->captured) {
            lean_put(p, kind == MK_EP ? (us == WHITE ? to - 8 : to + 8) : to, u->captured);
            if ((pool_types >> PC_TYPE(u->captured)) & 1) p->pool[them][PC_TYPE(u->captured)]--;
        }
    }
    p->castle = u->castle;
    p->ep = u->ep;
}

#endif
