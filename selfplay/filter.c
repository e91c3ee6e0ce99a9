/* filter.c - marks the positions of a game that the position files leave out. */
#include "filter.h"

/* A position is written from min_ply on, up to (not including) the first one whose
 * search score is beyond the limit: after that the game is decided, and a trainer gains
 * little from more of it, while its result still labels the positions before. */
uint32_t filter_game(Game *g, const FilterSpec *f) {
    uint32_t written = 0;
    bool over = false;
    for (int k = 0; k < g->nply; k++) {
        GamePly *p = &g->ply[k];
        int a = p->score < 0 ? -p->score : p->score;
        if (f->eval_limit > 0 && a > f->eval_limit) over = true;
        p->unwritten = (uint8_t)(over || k < f->min_ply);
        written += !p->unwritten;
    }
    return written;
}
