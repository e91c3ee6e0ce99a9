/* filter.h - which positions of a played game go into the position files (bin, jsonl,
 * plain, sfbin): those from a given ply on, until the search score first leaves a band.
 * The games themselves (PGN, statistics) are always kept whole. */
#ifndef CHESSVAR_SELFPLAY_FILTER_H
#define CHESSVAR_SELFPLAY_FILTER_H

#include "game.h"

/* What a run leaves out of its position files; all zero keeps every position. */
typedef struct FilterSpec {
    int min_ply;    /* positions before this ply of the game are left out */
    int eval_limit; /* > 0: from the first position whose |score| exceeds it, the rest of
                       the game is left out */
} FilterSpec;

/* True when the spec leaves nothing out. */
static inline bool filter_keeps_all(const FilterSpec *f) {
    return f->min_ply <= 0 && f->eval_limit <= 0;
}

/* Marks each ply of g written or not (GamePly.unwritten) as the spec says; returns how
 * many positions are written. */
uint32_t filter_game(Game *g, const FilterSpec *f);

#endif
