/* chess.h - internal: what orthodox chess (chess.c, movegen_chess.c) and Switching chess
 * (switching.c) share: the attack test on 64-bit bitboards, the common head and tail of
 * make/unmake, and the operations Switching chess reuses. */
#ifndef CHESSVAR_CHESS_H
#define CHESSVAR_CHESS_H

#include "movegen.h"
#include "variant.h"

#define BB(p) ((p)->bb.b8)

/* Castling rights kept when a move touches a square (filled by chess_init). */
extern uint8_t chess_castle_mask[64];

/* Attacks on sq by colour `by`, with occupancy occ. A slider table is read only when a
 * slider of that kind stands on one of sq's lines (the table's read is the dear part). */
static inline Bitboard attackers_by(const Position *p, int sq, int by, Bitboard occ) {
    const Bitboard them = BB(p).color[by];
    const Bitboard *t = BB(p).type;
    const Bitboard orth = (t[ROOK] | t[QUEEN]) & them, diag = (t[BISHOP] | t[QUEEN]) & them;
    Bitboard a = ((pawn_att8[by ^ 1][sq] & t[PAWN]) | (knight_att8[sq] & t[KNIGHT]) |
                  (king_att8[sq] & t[KING])) &
                 them;
    if (orth & rook_ray8[sq]) a |= rook_att8(sq, occ) & orth;
    if (diag & bishop_ray8[sq]) a |= bishop_att8(sq, occ) & diag;
    return a;
}

/* Square of colour c's king. */
static inline int king_sq(const Position *p, int c) {
    return bb_lsb(BB(p).type[KING] & BB(p).color[c]);
}

/* Whether the e.p. square is part of the key: the side to move can capture on it. */
static inline bool ep_in_key(const Position *p) {
    return p->ep != NO_SQ &&
           (pawn_att8[p->side ^ 1][p->ep] & BB(p).type[PAWN] & BB(p).color[p->side]);
}

/* The state every make starts with, the undo record saved or not: the e.p. square gone
 * and one more halfmove. */
static inline void chess_make_state(Position *p) {
    if (p->ep != NO_SQ) { /* set only when in the key (pos_ep_settle) */
        p->key ^= zob_ep[p->ep];
        p->ep = NO_SQ;
    }
    p->halfmove++;
}

/* The head of every make: push the undo record, clear the e.p. square, count the ply. The
 * record's DirtyPiece starts as the moving piece going from `from` to `to`, which the make
 * amends for the moves that do more. */
static inline Undo *chess_make_begin(Position *p, Move m) {
    Undo *u = pos_push(p, m);
    chess_make_state(p);
    u->moved = p->board[MOVE_FROM(m)];
    dirty_set(u, 0, u->moved, MOVE_FROM(m), MOVE_TO(m));
    u->dirty.n = 1;
    return u;
}

/* The tail of every make: castling rights lost on from/to, side to move, e.p. key. */
static inline void chess_make_end(Position *p, int from, int to, int us) {
    uint32_t rights = p->castle & chess_castle_mask[from] & chess_castle_mask[to];
    if (rights != p->castle) pos_set_castle(p, rights);
    p->side ^= 1;
    p->key ^= zob_side;
    if (us == BLACK) p->fullmove++;
    if (p->ep != NO_SQ) {
        if (ep_in_key(p)) /* a pawn beside it: is the capture legal? */
            pos_ep_settle(p);
        else p->ep = NO_SQ;
    }
}

/* The tail of every unmake: the state the undo record saved. */
static inline void chess_unmake_end(Position *p, const Undo *u) {
    p->castle = u->castle;
    p->ep = u->ep;
    p->halfmove = u->halfmove;
    p->key = u->key;
}

/* Castling masks for the orthodox corners and king squares. */
void chess_init(Variant *v);
/* Legal moves of orthodox chess (movegen_chess.c). */
int chess_gen_legal(Position *p, Move *list);
/* Number of legal moves of orthodox chess (perft's last ply). */
uint64_t chess_count_legal(Position *p);
/* Legal moves of orthodox chess as a MoveSet (VariantOps.gen_fast_set), gen_legal's order. */
int chess_gen_set(Position *p, MoveSet *ms);
/* Legal captures of orthodox chess (e.p. included): see VariantOps.gen_captures. */
int chess_gen_captures(Position *p, Move *list);
/* Makes an orthodox move (not a switch), pushing its undo record. */
void chess_make(Position *p, Move m);
/* Takes back the last orthodox move. */
void chess_unmake(Position *p);
/* Static exchange test of orthodox captures (chess and Switching chess): see VariantOps. */
bool chess_see_ge(const Position *p, Move m, int threshold, const int *value);

/* Whether the king of colour c is attacked. */
bool chess_royal_attacked(const Position *p, int c);
/* Whether the side to move is in check. */
bool chess_in_check(const Position *p);
/* Exactly one king per side. */
bool chess_validate(Position *p, CvError *err);
/* Whether neither side can mate: the orthodox insufficient-material draw. */
bool chess_insufficient_material(const Position *p);

/* The orthodox piece table, indexed by the ids of variant.h; `cond` is the condition of
 * the pawn's double step (MCOND_*). */
#define ORTHODOX_PIECES(cond)                                                                      \
    {                                                                                              \
        [PAWN] = PIECE('P', "Pawn", PF_PAWN | PF_PROMOTES | PF_ORIENTED | PF_PAWN_PIECE, 100,      \
                       LEAP_M(0, 1, MM_MOVE), LAME1_COND(0, 2, MM_MOVE, cond, 0, 1),               \
                       LEAP_M(-1, 1, MM_CAPTURE), LEAP_M(1, 1, MM_CAPTURE)),                       \
        [KNIGHT] = PIECE('N', "Knight", 0, 320, KNIGHT_LEAPS),                                     \
        [BISHOP] = PIECE('B', "Bishop", 0, 330, BISHOP_RIDES),                                     \
        [ROOK] = PIECE('R', "Rook", PF_CASTLE_ROOK, 500, ROOK_RIDES),                              \
        [QUEEN] = PIECE('Q', "Queen", 0, 900, ROOK_RIDES, BISHOP_RIDES),                           \
        [KING] = PIECE('K', "King", PF_ROYAL, 0, KING_STEPS),                                      \
    }

#endif
