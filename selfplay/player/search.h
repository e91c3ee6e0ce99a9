/* search.h - the self-play player: iterative-deepening principal-variation alpha-beta with
 * aspiration windows, quiescence on captures, a transposition table, a correction history
 * and an evaluation cache; moves ordered by the hash move, MVV-LVA with capture history,
 * killers, counter-moves and butterfly plus continuation histories; selective by
 * reverse futility, razoring, null move, ProbCut, internal iterative reduction, singular
 * and double extensions, futility, late-move, history and SEE pruning, and late-move
 * reductions (search.c, search_node). Its parts: search_tables.h (table, caches),
 * search_order.h (ordering and histories).
 * One Search per thread; it never touches global state, so threads may search positions
 * of different variants at once. Results depend only on the position, the limits and
 * the table contents, so a search is reproducible when the table is cleared first and
 * the limits are nodes or depth (time limits and the external stop flag exist for UCI
 * front ends; self-play never uses them, so its games do not depend on machine speed).
 *
 * Driving it from a UCI front end:
 *
 *     atomic_bool stop = false;                       // set true from the input thread
 *     SearchLimits lim = {0};
 *     lim.movetime_ms = 1000;                         // hard limit ("go movetime 1000")
 *     lim.soft_ms = 400;                              // optional: no new iteration after this
 *     lim.stop = &stop;                               // "stop" command
 *     lim.multipv = 3;                                // "setoption name MultiPV value 3"
 *     lim.info = my_info; lim.info_ctx = ctx;         // one call per line per iteration
 *     SearchResult r = search_run(s, pos, &lim);      // r.best, r.pv[0..r.pvlen)
 *
 * `go infinite` is lim.stop with no other limit (depth is capped at SEARCH_MAX_DEPTH).
 * The info callback runs on the searching thread after every completed iteration, and
 * once more (the first line only, at the unfinished iteration's depth) when the budget
 * ends an iteration that found a new best move, so the last PV reported starts with the
 * move returned. */
#ifndef CHESSVAR_SELFPLAY_SEARCH_H
#define CHESSVAR_SELFPLAY_SEARCH_H

#include <stdatomic.h>
#include <stddef.h>

#include "evaluator.h"

#define SEARCH_MAX_PLY     64
#define SEARCH_MAX_DEPTH   (SEARCH_MAX_PLY / 2) /* deepest iteration */
#define SEARCH_INF         32000
#define SEARCH_MATE        30000
#define SEARCH_MATE_BOUND  (SEARCH_MATE - 1000) /* |score| above this is a mate score */
#define SEARCH_MAX_MULTIPV 64
_Static_assert(SEARCH_MAX_PLY + 1 <= EVALUATOR_PLIES, "the evaluator holds every ply of a line");

/* One transposition-table slot (16 bytes): the upper 32 key bits verify the entry (the
 * lower bits chose the slot); gen_bound holds the bound in bits 0-1 and the search
 * generation in bits 2-7, for replacement and hashfull. */
typedef struct TTEntry {
    uint32_t check;
    Move move;
    int16_t score;
    int16_t eval;
    int8_t depth;
    uint8_t gen_bound;
    uint16_t pad;
} TTEntry;

/* What the search reports after an iteration, per line (multipv 1..N). */
typedef struct SearchInfo {
    int depth;       /* iteration depth */
    int seldepth;    /* deepest ply reached, quiescence included */
    int multipv;     /* line number, 1 = best */
    int score;       /* centipawns for the side to move; mate as +-(SEARCH_MATE - plies) */
    int bound;       /* 0 exact, 1 upper bound (fail low), 2 lower bound (fail high) */
    int64_t nodes;   /* nodes so far in this search */
    int64_t time_ms; /* milliseconds since search_run started */
    int hashfull;    /* per mille of sampled table slots written by this search */
    int pvlen;
    const Move *pv; /* pv[0] is the root move; valid during the call only */
} SearchInfo;

typedef void (*SearchInfoFn)(void *ctx, const SearchInfo *info);

/* Budget of one move. Zero in any field means "no limit" / "off", so `{0}` plus one limit
 * is the usual form. Self-play sets only nodes, depth and margin. */
typedef struct SearchLimits {
    int64_t nodes;    /* stop after about this many nodes */
    int depth;        /* deepest iteration */
    int margin;       /* root moves within margin of the best get exact scores (0: only the best) */
    int margin_depth; /* the margin holds in iterations up to this depth only; deeper ones
                         search for the best move alone (0: in every iteration) */
    int64_t movetime_ms;     /* hard time limit from the start of search_run, checked every
                                1024 nodes; the answer is the deepest finished iteration */
    int64_t soft_ms;         /* no new iteration starts after this many ms */
    const atomic_bool *stop; /* external stop flag (another thread sets it), checked with the
                                clock; NULL: none */
    int multipv;             /* exact scores and PVs for the best N root moves (0 or 1: one) */
    SearchInfoFn info;       /* called after each iteration, once per line; NULL: none */
    void *info_ctx;
} SearchLimits;

typedef struct RootMove {
    Move move;
    int score; /* exact if > best - margin or among the best multipv, else an upper bound */
    int pvlen;
    Move pv[SEARCH_MAX_PLY]; /* principal variation starting with move */
} RootMove;

typedef struct SearchResult {
    Move best;
    int score; /* centipawns for the side to move; mates as +-(SEARCH_MATE - plies) */
    int depth; /* deepest completed iteration */
    int seldepth;
    int64_t nodes;
    int64_t time_ms;
    int nroot;
    RootMove *root; /* sorted best first; points into the Search; valid until the next search */
    int pvlen;
    const Move *pv; /* principal variation of the best move (root[0].pv) */
    /* The root moves of the deepest finished iteration that kept the margin, best first,
     * exact where within the margin: what a sampler draws from (points into the Search). */
    int nsample;
    const Move *sample_move;
    const int *sample_score;
    int sample_depth;
} SearchResult;

#define SEARCH_CORR_SIZE 16384 /* correction-history entries per side (a power of 2) */
#define SEARCH_EVC_BITS  16    /* evaluation-cache entries: 2^this (at least 16: see search_eval) */
#define SEARCH_EVC_SIZE  ((size_t)1 << SEARCH_EVC_BITS)

/* The search's margins that depend on the evaluation's scale (centipawns), settable so a
 * stronger evaluation can have its own (UCI options, search_tune_params). A Search starts
 * with the defaults, which the pruning rules of search_steps.h were tuned with; evaluating
 * with a network, it takes the variant's own where a match kept one (search_tune_for). */
typedef struct SearchTune {
    int rfp_margin;      /* reverse futility pruning: margin per ply */
    int futility_margin; /* futility pruning of quiet moves: margin per ply */
    int razor_margin;    /* razoring: margin per ply */
    int qs_delta;        /* quiescence delta pruning */
    int probcut_margin;  /* ProbCut: this far above beta */
    int null_eval_r;     /* null move: one ply more per this much evaluation above beta */
    int asp_window;      /* aspiration window's first half-width */
} SearchTune;

/* One tunable: its UCI option name, where it sits in SearchTune, its default and range. */
typedef struct SearchTuneParam {
    const char *name;
    size_t offset;
    int def, min, max;
} SearchTuneParam;

/* The tunables, SEARCH_TUNE_COUNT of them, in SearchTune's order. */
#define SEARCH_TUNE_COUNT 7
extern const SearchTuneParam search_tune_params[SEARCH_TUNE_COUNT];
/* The margin search_tune_params[i] describes, in t. */
static inline int *search_tune_at(SearchTune *t, int i) {
    return (int *)((char *)t + search_tune_params[i].offset);
}
/* A SearchTune holding every default. */
SearchTune search_tune_defaults(void);
/* The margins a search of variant v starts with: the defaults, and with a network
 * (network true) the variant profile's net_margins over them (selfplay/profile.h). */
SearchTune search_tune_for(const Variant *v, bool network);
/* The index in search_tune_params of the margin called name (any case), or -1. */
int search_tune_index(const char *name);

typedef struct Search {
    SearchTune tune; /* the margins (search_tune_for its evaluation unless set) */
    Evaluator eval;  /* the static evaluation, classical or a network, and its per-ply state */
    /* Piece prices for ordering and pruning (MVV-LVA, delta pruning, the most a capture can
     * win): the search's own, whatever it evaluates with (eval_piece_values). */
    int value[MAX_PT];
    TTEntry *tt;
    size_t tt_mask;
    uint8_t gen; /* generation of the current search_run, 6 bits */
    Move killers[SEARCH_MAX_PLY][2];
    int16_t history[2][MAX_SQ][MAX_SQ]; /* [side][from][to] quiet-move history */
    Move counter[64][MAX_SQ];           /* reply to [piece][to] of the previous move */
    /* Continuation history: how a quiet move (piece, to) fared after the move one or two
     * plies before it, [cont_key(earlier)][cont_key(move)] in a table of cont_n^2 entries,
     * cont_n = 2 * (piece types + 1) * squares; cont_at[ply] is the key of the move made at
     * ply (-1 for a null move). */
    int16_t *cont;
    int cont_n;
    int cont_base[64]; /* [piece code]: (colour * (types + 1) + type) * squares */
    int cont_at[SEARCH_MAX_PLY + 2];
    Move excluded[SEARCH_MAX_PLY + 1];  /* the move a singular-extension search leaves out */
    int double_ext[SEARCH_MAX_PLY + 2]; /* double extensions along the line to ply */
    /* Capture history: how a capture fared, [cont_key(move) * MAX_PT + captured type]
     * (cont_n * MAX_PT entries). */
    int16_t *capt;
    int static_eval[SEARCH_MAX_PLY + 2]; /* static evaluation per ply (improving) */
    /* Correction history: by side to move and pawn structure, how far searches found the
     * static evaluation off (in 1/CORR_GRAIN centipawns); added to it where the search
     * prunes. pawn_types: the bits of the variant's pawn-like types (PF_PAWN_PIECE). */
    int16_t corr[2][SEARCH_CORR_SIZE];
    /* Evaluation cache: static evaluations by position key (the key's high bits above
     * the index, and the score in the low 16), for positions the table has lost; the
     * evaluation is a function of the position, so a hit changes nothing but time. */
    uint64_t *eval_cache;
    /* Whether the side to move is in check, by ply, with the position's key. */
    uint64_t check_key[SEARCH_MAX_PLY + 1];
    bool check_at[SEARCH_MAX_PLY + 1];
    unsigned pawn_types;
    bool scale_endings;    /* Variant.pawnless_draws: the static score is scaled (endings.h) */
    int null_min_pieces;   /* pieces besides royals and pawns needed for it */
    bool see_bound;        /* victim - attacker bounds SEE from below */
    bool see;              /* the variant has an exact static exchange test */
    int see_value[MAX_PT]; /* piece prices for it (royals: beyond any material) */
    /* What an e.p. capture takes, for move ordering: the pawn's value in the variant record
     * (100 in every variant with e.p.; the tuned values, 90 in chess and 106 in Switching,
     * would reorder captures and change games). */
    int ep_value;
    /* The most one capture can win (search_max_gain): types with a value, dearest first;
     * the promoting types; what a promotion adds at most. */
    uint8_t gain_type[MAX_PT];
    int ngain;
    unsigned promo_types;
    int promo_gain;
    int8_t lmr[64][64]; /* late-move reduction by [depth][move number] */
    int64_t nodes, node_limit, next_check;
    int64_t start_ns, hard_ns;
    const atomic_bool *ext_stop;
    int seldepth;
    bool stop;
    bool nopv; /* every node a null-window one in its pruning (the sampler's exact searches) */
    bool used; /* searched since allocated or cleared (search_clear has work to do) */
    Move pv[SEARCH_MAX_PLY + 1][SEARCH_MAX_PLY + 1]; /* triangular PV table */
    int pvlen[SEARCH_MAX_PLY + 1];
    Move moves[SEARCH_MAX_PLY + 1][MAX_MOVES];
    int scores[SEARCH_MAX_PLY + 1][MAX_MOVES];
    RootMove root[MAX_MOVES];
    RootMove root_done[MAX_MOVES];
    Move sample_move[MAX_MOVES]; /* root moves and scores of the last margin iteration */
    int sample_score[MAX_MOVES];
} Search;

/* Allocates a search for variant v with a table of 2^tt_bits entries; NULL if out of memory. */
Search *search_new(const Variant *v, int tt_bits);
void search_free(Search *s);
/* Makes s evaluate with net (NULL: the classical evaluation), which must be for s's
 * variant and outlive s; clears s as search_clear does (its table and evaluation cache
 * hold the other evaluation's scores) and sets its margins to that evaluation's
 * (search_tune_for: a caller's own go after this call). False if out of memory (s then
 * evaluates classically). */
bool search_set_network(Search *s, const Network *net);
/* Empties the table, the killers and counter-moves, every history (butterfly,
 * continuation, capture, correction) and the evaluation cache: call before each game so
 * games are independent (UCI: on ucinewgame). */
void search_clear(Search *s);
/* Searches pos (restored on return) within lim; pos must have at least one legal move.
 * Thread-safe for distinct Search objects; lim->stop may be set from any thread. */
SearchResult search_run(Search *s, Position *pos, const SearchLimits *lim);
/* Default self-play budgets in nodes per move, by what sets the branching factor: boards up
 * to 8x8, those with drops (Superchess), larger boards (Supremo). Enough for a real search
 * in every variant (about depth 6 on 8x8 without drops, 4-7 with Superchess drops, 3-4 on
 * 10x10; measured by scripts/search_speed.py into results/search_speed.json). */
#define SEARCH_DEFAULT_NODES        4000
#define SEARCH_DEFAULT_NODES_DROPS  6000
#define SEARCH_DEFAULT_NODES_WIDE   20000
#define SEARCH_DEFAULT_TT_BITS      14 /* table bits on boards up to 8x8, */
#define SEARCH_DEFAULT_TT_BITS_WIDE 16 /* on larger ones */
/* The default self-play budget of variant v: one of the three above. */
int64_t search_default_nodes(const Variant *v);
/* Default self-play table size in bits for variant v: 14 on boards up to 8x8, 16 on larger
 * ones. A self-play table holds one game's recent searches (thousands of nodes each); a
 * small one stays in cache, and chess depth-6 self-play ran about 12% faster with 2^14
 * entries than with 2^16 (2^18 and 2^20 slower still; selfplay/README.md). */
int search_default_tt_bits(const Variant *v);
/* Per mille of a sample of table slots written by the latest search_run (UCI hashfull). */
int search_hashfull(const Search *s);
/* True if the current position occurred before since the last irreversible move: at
 * least `times` earlier occurrences with the same side to move. */
bool search_repeated(const Position *pos, int times);

#endif
