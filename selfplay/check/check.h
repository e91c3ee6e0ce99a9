/* check.h - the rule-consistency checker: verifies every invariant of the report on a
 * position, and plays seeded games (random or capture-greedy) checking the positions they
 * visit. Uses only the public engine header, so it checks any Variant record, including a
 * test's copy with deliberately broken operations. */
#ifndef CHESSVAR_CHECK_H
#define CHESSVAR_CHECK_H

#include "report.h"

/* How a checking game chooses its moves: uniformly at random, the biggest capture, or
 * (half the time) a special-rule move such as castling, a drop, a switch or a promotion. */
enum { CHECK_RANDOM = 0, CHECK_GREEDY = 1, CHECK_SPECIAL = 2 };

typedef struct CheckParams {
    int max_plies; /* ply cap of one game */
    int sample;    /* verify every sample-th position (1: all) */
    int style;     /* CHECK_RANDOM, CHECK_GREEDY, CHECK_SPECIAL, or -1: game number mod 3 */
} CheckParams;

/* Writes the colour-flipped FEN of pos (ranks mirrored, colours and side swapped, hand,
 * castling, e.p. and pool mirrored) into out; works for every variant's FEN shape. */
void check_flip_fen(const Position *pos, char *out, size_t n);

/* Verifies every invariant on pos and counts them in vr; pos is restored on return.
 * Returns the number of failures found. */
int check_position(VariantReport *vr, Position *pos);

/* Plays game number `game` of variant v from fen (NULL: the variant's starts in turn)
 * with an RNG derived from (seed, game), verifying the positions it visits and counting
 * the special-rule events of every move. Returns the number of failures found, or -1 if
 * fen was rejected. */
int check_game(VariantReport *vr, const Variant *v, const char *fen, uint64_t seed, int game,
               const CheckParams *cp);

/* Replays a game already played (e.g. by self-play) from fen through moves: counts the
 * special-rule events of every move and verifies every sample-th position (0: none).
 * Returns the failures found, or -1 if fen was rejected or a move is not legal. */
int check_replay(VariantReport *vr, const Variant *v, const char *fen, const Move *moves,
                 int nmoves, int sample);

#endif
