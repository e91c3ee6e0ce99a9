/* movegen.h - internal: the data-driven reference generator and attack test. */
#ifndef CHESSVAR_MOVEGEN_H
#define CHESSVAR_MOVEGEN_H

#include "position.h"

/* Legal moves by walking each piece's MoveComp list on the mailbox (leaps with lame
 * squares, rides, pawn conditions, promotions, e.p., orthodox castling, switches), each
 * pseudo-legal move kept if after make no own royal is attacked (ref_square_attacked). */
int movegen_reference(Position *p, Move *out);

/* Whether colour `by` attacks square sq, by walking every piece's capture components. */
bool ref_square_attacked(const Position *p, int sq, int by);

/* Whether any royal piece of colour c is attacked (reference walk). */
bool ref_royal_attacked(const Position *p, int c);

#endif
