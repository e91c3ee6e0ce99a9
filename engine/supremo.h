/* supremo.h - internal: Supremo Superchess (10x10) piece ids and the two attack tests, so
 * tests can compare the fast test with the literal one on any position. */
#ifndef CHESSVAR_SUPREMO_H
#define CHESSVAR_SUPREMO_H

#include "chessvar.h"

/* Piece type ids of Supremo Superchess. */
enum {
    SUP_PAWN = 1,
    SUP_KNIGHT,
    SUP_BISHOP,
    SUP_ROOK,
    SUP_QUEEN,
    SUP_KING,
    SUP_TERMINATOR,
    SUP_COMMANDO,
    SUP_PROTECTOR
};

extern Variant variant_supremo;
extern Variant variant_cannon10;

/* Whether side `by` has a pseudo-legal move that captures the piece on sq (table driven). */
bool supremo_attacked_fast(const Position *pos, int sq, int by);

/* The same question answered by generating every pseudo-legal move of `by` on the
 * mailbox and looking for one that removes the piece on sq. */
bool supremo_attacked_reference(const Position *pos, int sq, int by);

/* Pseudo-legal moves of the side to move from the fast generator (deduplicated). */
int supremo_pseudo_fast(Position *pos, Move *list);

/* Pseudo-legal moves of `side` from the literal mailbox walker (deduplicated). */
int supremo_pseudo_reference(const Position *pos, int side, Move *list);

#endif
