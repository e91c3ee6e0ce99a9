/* eval.h - per-variant static evaluation for the self-play player: material with piece
 * values per variant plus piece-square terms, a royal that centralises as material goes, and
 * pawn structure on 8x8 boards (passed, doubled and isolated pawns), from the side to
 * move's point of view; where the pieces are the orthodox ones on 8x8, mobility, king
 * safety, the bishop pair and rooks on open files as well. */
#ifndef CHESSVAR_SELFPLAY_EVAL_H
#define CHESSVAR_SELFPLAY_EVAL_H

#include "../../engine/chessvar.h"

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

/* eval_position with the packed piece-square sum psq of pos already known (tapered
 * tables; see selfplay/player/evaluator.h, which carries it from ply to ply). */
int eval_position_psq(const EvalParams *ep, const Position *pos, uint64_t psq);

/* Its linear part (material, placement, hand pieces, tempo: what scripts/tune_eval.py
 * fits; material and placement blended by phase when tapered), for the side to move; the rest is
 * the phased terms (royal centralisation, pawn structure), set by hand and kept by a match. */
int eval_linear(const EvalParams *ep, const Position *pos);

/* The game phase of pos: 256 with the start's material besides royals and pawns (hand
 * pieces too), 0 with none of it left. */
int eval_phase(const EvalParams *ep, const Position *pos);

/* The classical evaluation's material values of variant v's piece types in centipawns
 * (fitted, else the variant record's; 0 for royals and for type 0): what eval_init puts in
 * EvalParams.value, and what a search prices captures with whatever it evaluates with. */
void eval_piece_values(const Variant *v, int value[MAX_PT]);

#endif
