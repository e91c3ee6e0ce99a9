/* harness.h - the perft harness library (bench/): perft at scale on top of the engine's
 * serial perft — a shared lockless hash table, the split of a tree into work units, the
 * threaded count over them, and the distributed count over MPI (the program starts and
 * finalises MPI; this library only counts). Uses only the engine's public header. */
#ifndef CHESSVAR_HARNESS_H
#define CHESSVAR_HARNESS_H

#include "../engine/chessvar.h"

/* ---------------------------------------------------------------- perft at scale */

/* A work unit: a path of moves from the root; the unit counts the subtree below it. */
#define PERFT_UNIT_MAX_PLY 6
typedef struct PerftUnit {
    Move path[PERFT_UNIT_MAX_PLY];
    int len;
} PerftUnit;

typedef struct PerftTT PerftTT;

/* A shared, lockless transposition table of (key, depth) -> (count, fingerprint) of
 * about `mb` megabytes; NULL if mb is 0 or memory is short. */
PerftTT *perft_tt_new(size_t mb);
void perft_tt_free(PerftTT *tt);

/* Progress report: units done of total, nodes counted so far. Called from worker
 * threads, one at a time. */
typedef void (*PerftProgress)(void *ctx, int done, int total, uint64_t nodes);

/* Called once for each unit counted (index into the unit list, its result), one call at a
 * time: from worker threads, or on MPI rank 0. A checkpoint file records it. */
typedef void (*PerftUnitDone)(void *ctx, int index, PerftResult r);

typedef struct PerftConfig {
    int threads;            /* 0: all cores */
    PerftTT *tt;            /* NULL: no hash */
    bool fingerprint;       /* visit every leaf and fingerprint it */
    int min_units;          /* split until at least this many units (0: 16 per thread) */
    PerftProgress progress; /* may be NULL */
    void *progress_ctx;
    PerftUnitDone unit_done; /* may be NULL */
    void *unit_done_ctx;
} PerftConfig;

/* Splits the tree of root at `depth` into units, level by level, until there are at
 * least min_units or the remaining depth would drop below 2. Deterministic: the same
 * root and depth give the same units in the same order on every rank. Returns the count
 * written (<= max), or -1 if more than max would be needed. */
int perft_split(const Position *root, int depth, int min_units, PerftUnit *units, int max);

/* Counts one unit's subtree (depth is the root depth) with a private copy of the root. */
PerftResult perft_unit(const Position *root, const PerftUnit *u, int depth, const PerftConfig *cfg);

/* Full perft with threads, hash and fingerprint as configured; identical counts to the
 * serial perft for every thread count and hash size. */
PerftResult perft_run(const Position *root, int depth, const PerftConfig *cfg);

/* Counts the units of a split that are not yet done (done[i] false, or done NULL) on the
 * configured threads, storing each result in results[i] (if results is not NULL), and
 * returns the sum over all n units, the done ones taken from results. Progress counts
 * the done units too. */
PerftResult perft_run_units(const Position *root, int depth, const PerftUnit *units, int n,
                            PerftResult *results, const bool *done, const PerftConfig *cfg);

/* ---------------------------------------------------------------- MPI */

/* Distributed perft, MPI already initialised: every rank calls it with the same root and
 * depth. Rank 0 splits the tree into units and hands them out one at a time to the other
 * ranks (each counting its unit with cfg's threads and hash); the totals reach rank 0.
 * With units_out non-NULL, rank 0 also gets the unit list, the per-unit results and their
 * count in *units_out, *results_out, *nunits_out, for divide (caller frees both). */
PerftResult mpi_perft(const Position *root, int depth, const PerftConfig *cfg,
                      PerftUnit **units_out, PerftResult **results_out, int *nunits_out);

/* Distributed count of a given unit list, like perft_run_units: rank 0 passes the units,
 * results and done flags (it alone needs them; unit paths travel with the work) and gets
 * the total and cfg's unit_done calls; the other ranks pass NULL, 0 and count until rank 0
 * has nothing left. With n = 0 on rank 0 it just releases the other ranks. */
PerftResult mpi_perft_units(const Position *root, int depth, const PerftUnit *units, int n,
                            PerftResult *results, const bool *done, const PerftConfig *cfg);

#endif
