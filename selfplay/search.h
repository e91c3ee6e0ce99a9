/* search.h - the self-play player: iterative-deepening negamax alpha-beta with quiescence
 * on captures, a transposition table and move ordering (hash move, MVV-LVA, killers).
 * One Search per thread; it never touches global state, so threads may search positions
 * of different variants at once. Results depend only on the position, the limits and
 * the table contents, so a search is reproducible when the table is cleared first. */
#ifndef CHESSVAR_SELFPLAY_SEARCH_H
#define CHESSVAR_SELFPLAY_SEARCH_H

#include "eval.h"

#define SEARCH_MAX_PLY    64
#define SEARCH_INF        32000
#define SEARCH_MATE       30000
#define SEARCH_MATE_BOUND (SEARCH_MATE - 1000) /* |score| above this is a mate score */

typedef struct TTEntry {
    uint64_t key;
    Move move;
    int16_t score;
    int8_t depth;
    uint8_t bound;
} TTEntry;

/* Budget of one move: stop after `nodes` nodes (0: no limit) or at `depth` (0: no limit). */
typedef struct SearchLimits {
    int64_t nodes;
    int depth;
    int margin; /* root moves within margin of the best get exact scores (0: only the best) */
} SearchLimits;

typedef struct RootMove {
    Move move;
    int score; /* exact if > best - margin, else an upper bound */
} RootMove;

typedef struct SearchResult {
    Move best;
    int score; /* centipawns for the side to move; mates as +-(SEARCH_MATE - plies) */
    int depth; /* deepest completed iteration */
    int64_t nodes;
    int nroot;
    RootMove *root; /* points into the Search; valid until the next search */
} SearchResult;

typedef struct Search {
    EvalParams eval;
    TTEntry *tt;
    size_t tt_mask;
    Move killers[SEARCH_MAX_PLY][2];
    int64_t nodes, node_limit;
    bool stop;
    Move moves[SEARCH_MAX_PLY + 1][MAX_MOVES];
    int scores[SEARCH_MAX_PLY + 1][MAX_MOVES];
    RootMove root[MAX_MOVES];
    RootMove root_done[MAX_MOVES];
} Search;

/* Allocates a search for variant v with a table of 2^tt_bits entries; NULL if out of memory. */
Search *search_new(const Variant *v, int tt_bits);
void search_free(Search *s);
/* Empties the table and killers: call before each game so games are independent. */
void search_clear(Search *s);
/* Searches pos (restored on return) within lim; pos must have at least one legal move. */
SearchResult search_run(Search *s, Position *pos, const SearchLimits *lim);
/* True if the current position occurred before since the last irreversible move: at
 * least `times` earlier occurrences with the same side to move. */
bool search_repeated(const Position *pos, int times);

#endif
