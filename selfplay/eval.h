/* eval.h - per-variant static evaluation for the self-play player: material with piece
 * values per variant plus piece-square terms, a royal that centralises as material goes, and
 * pawn structure on 8x8 boards (passed, doubled and isolated pawns), from the side to
 * move's point of view; where the pieces are the orthodox ones on 8x8, mobility, king
 * safety, the bishop pair and rooks on open files as well. */
#ifndef CHESSVAR_SELFPLAY_EVAL_H
#define CHESSVAR_SELFPLAY_EVAL_H

#include "../engine/chessvar.h"

/* Evaluation tables of one variant, built once per search; read-only while searching. */
typedef struct EvalParams {
    const Variant *var;
    int value[MAX_PT];       /* centipawns per piece type (royal pieces 0) */
    int hand_value[MAX_PT];  /* centipawns per piece in hand (drop variants) */
    int tempo;               /* bonus of the side to move */
    int16_t psq[64][MAX_SQ]; /* [piece code][square]: value + placement, White positive */
    /* Tapered tables (a fit with an ending set): psq is then the opening's, and psq_pk
     * holds opening + ending * 2^32 (mod 2^64) per piece and square, one addition per
     * piece for both; the two are blended by the game phase. */
    bool tapered;
    uint64_t psq_pk[64][MAX_SQ];
    unsigned royal_types, phase_types; /* bits of the royal types, of those with a phase value */
    /* Game phase: material of the pieces besides royals and pawns (hand pieces too) against
     * the start's; 256 at the start, 0 with none left. */
    int phase_value[MAX_PT];
    int phase_full;
    int16_t royal_eg[MAX_SQ]; /* a royal's bonus for the centre, at phase 0 */
    /* Pawn structure on 8x8 boards: the pawn type (0: none) and the passed-pawn bonus by
     * ranks advanced, opening and ending. */
    int pawn_type;
    int16_t passed_mg[8], passed_eg[8];
    /* Piece activity and king safety where the pieces are the orthodox ones on 8x8
     * (chess, Switching chess): see eval.c, eval_orthodox. */
    bool orthodox;
    /* The packed piece-square sum can be carried from position to position by the undo
     * records (eval_psq_delta): tapered tables, and moves as chess and Switching chess make
     * them. */
    bool psq_incremental;
} EvalParams;

/* Fills the tables of variant v: the parameters fitted to self-play data (eval_params.c)
 * when the variant has them, else piece values from the variant record and a heuristic. */
void eval_init(EvalParams *ep, const Variant *v);

/* Static score of pos in centipawns for the side to move. */
int eval_position(const EvalParams *ep, const Position *pos);

/* The packed piece-square sum of pos (tapered tables: opening + ending * 2^32), from
 * scratch; 0 without tapered tables. */
uint64_t eval_psq_sum(const EvalParams *ep, const Position *pos);

/* The orthodox piece types (chess, Switching chess). */
enum { O_PAWN = 1, O_KNIGHT, O_BISHOP, O_ROOK, O_QUEEN, O_KING };

/* Adds to *acc what the move of undo record u (chess or Switching chess, psq_incremental)
 * changed in the piece-square sum: the sum of the position after it from the one before.
 * False, and *acc unchanged, for a move the record does not describe whole. The move is
 * read as chess_make and the Switching make play it: the moved piece leaves
 * `from` and it (or its promotion) lands on `to`, over a captured piece there (e.p.: beside
 * it); castling moves the rook from the corner to the square the king crossed; a switch
 * puts the two pieces on each other's square, one of them promoting if the move says so.
 * A null move changes nothing. */
static inline bool eval_psq_delta(const EvalParams *ep, const Undo *u, uint64_t *acc) {
    const uint64_t(*pk)[MAX_SQ] = ep->psq_pk;
    Move m = u->move;
    if (m == MOVE_NONE) return true;
    int from = MOVE_FROM(m), to = MOVE_TO(m), moved = u->moved, us = PC_COLOR(moved);
    int promo = MOVE_PROMO(m);
    uint64_t a = *acc;
    switch (MOVE_KIND(m)) {
    case MK_NORMAL:
        if (u->captured) a -= pk[u->captured][to];
        a += pk[promo ? PC_MAKE(us, promo) : moved][to] - pk[moved][from];
        break;
    case MK_DOUBLE: a += pk[moved][to] - pk[moved][from]; break;
    case MK_EP:
        a += pk[moved][to] - pk[moved][from] - pk[u->captured][to + (us == WHITE ? -8 : 8)];
        break;
    case MK_CASTLE: {
        int rf = to > from ? from + 3 : from - 4, rt = (from + to) / 2, rook = PC_MAKE(us, O_ROOK);
        a += pk[moved][to] - pk[moved][from] + pk[rook][rt] - pk[rook][rf];
        break;
    }
    case MK_SWITCH: {
        int pa = moved, pb = u->captured;
        a -= pk[pa][from] + pk[pb][to];
        if (promo) {
            if (PC_TYPE(pa) == O_PAWN) pa = PC_MAKE(us, promo);
            else pb = PC_MAKE(us, promo);
        }
        a += pk[pb][from] + pk[pa][to];
        break;
    }
    default: return false;
    }
    *acc = a;
    return true;
}

/* eval_position with the piece-square sum psq of pos already known (psq_incremental). */
int eval_position_psq(const EvalParams *ep, const Position *pos, uint64_t psq);

/* Its linear part (material, placement, hand pieces, tempo: what scripts/tune_eval.py
 * fits; material and placement blended by phase when tapered), for the side to move; the rest is
 * the phased terms (royal centralisation, pawn structure), set by hand and kept by a match. */
int eval_linear(const EvalParams *ep, const Position *pos);

/* The game phase of pos: 256 with the start's material besides royals and pawns (hand
 * pieces too), 0 with none of it left. */
int eval_phase(const EvalParams *ep, const Position *pos);

/* Value of piece type t in centipawns (0 for royals and for type 0). */
static inline int eval_piece_value(const EvalParams *ep, int t) { return ep->value[t]; }

#endif
