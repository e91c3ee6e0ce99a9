/* endings.h - how far a chess evaluation's score in an ending should be trusted: the
 * scale factors (of 64) by which a search shrinks the static score of endings that
 * evaluations overrate (the knowledge Stockfish's classical evaluation carried as scale
 * factors), and the shrinking of every score as the fifty-move count grows. For variants
 * whose record says pawnless_draws (chess). Measured by label quality: with chess's net at
 * 10,000 nodes, the Spearman correlation of 1,000 self-play positions' scores with
 * Stockfish's went from 0.958 to 0.969 (results/README.md). */
#ifndef CHESSVAR_SELFPLAY_ENDINGS_H
#define CHESSVAR_SELFPLAY_ENDINGS_H

#include "../../engine/chessvar.h"

#define ENDING_SCALE_NORMAL 64

/* The static score v of pos (for the side to move) scaled by the factor (of 64) of the
 * side v favours, weighted by how far pos is into the ending (the factor counts fully
 * with at most a quarter of the start's pieces besides pawns left, not at all with 95%),
 * pieces priced by value[type] (orthodox types 1..6 = P N B R Q K on 8x8). The factors:
 *   - strong has no pawn and at most a minor piece more than the other side in pieces:
 *     0 with less than a rook (a lone minor, KB v KN ...), else 4 against at most a minor
 *     (KR v KB), else 14 (KRN v KR); two knights against a bare king: 0;
 *   - a bishop and pawns all on one rook file whose promotion square the bishop does not
 *     cover, against a king on or next to that square with no pieces: 0;
 *   - opposite-coloured bishops alone: 18 + 4 per passed pawn of strong;
 *   - otherwise, with few pawns: 36 + 7 per pawn of strong (at most 64), 4 less when
 *     its pawns stand on one wing only;
 * then multiplied by (200 - fifty-move count) / 200. */
int ending_scale_score(const Position *pos, const int value[MAX_PT], int v);

#endif
