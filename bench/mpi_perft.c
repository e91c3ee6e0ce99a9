#define _POSIX_C_SOURCE 200809L /* nanosleep under strict C11 */
/* mpi_perft.c - distributed perft: a dynamic work queue of perft units over MPI. The
 * program starts and finalises MPI (cli/mpi_start.c); this file only counts. */
#include "harness.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef CHESSVAR_HAVE_MPI
#include <mpi.h>
#endif

/* This process's rank and the number of ranks in MPI_COMM_WORLD (0 and 1 without MPI). */
static void world(int *rank, int *size) {
    *rank = 0;
    *size = 1;
#ifdef CHESSVAR_HAVE_MPI
    MPI_Comm_rank(MPI_COMM_WORLD, rank);
    MPI_Comm_size(MPI_COMM_WORLD, size);
#endif
}

#ifdef CHESSVAR_HAVE_MPI
enum { TAG_WORK = 1, TAG_RESULT = 2 };

/* A work message: unit index (-1: stop), path length, path. */
enum { WORK_WORDS = 2 + PERFT_UNIT_MAX_PLY };

/* Counts one unit on this rank with its threads: the unit's position is split again. */
static PerftResult count_unit(const Position *root, const PerftUnit *u, int depth,
                              const PerftConfig *cfg) {
    Position *p = malloc(sizeof *p);
    pos_copy(p, root);
    for (int k = 0; k < u->len; k++) pos_make(p, u->path[k]);
    PerftConfig c = *cfg;
    c.progress = NULL;
    c.unit_done = NULL;
    c.min_units = 0;
    PerftResult r = perft_run(p, depth - u->len, &c);
    free(p);
    return r;
}

/* Rank 0: hands out the units not done to whichever rank asks, collects their results,
 * then tells every rank to stop. */
static PerftResult dispatch(const PerftUnit *units, int n, PerftResult *results, const bool *done,
                            const PerftConfig *cfg) {
    PerftResult total = {0, 0};
    int rank, size;
    world(&rank, &size);
    int next = 0, active = size - 1, ndone = 0;
    uint64_t done_nodes = 0;
    for (int i = 0; i < n; i++)
        if (done && done[i]) {
            ndone++;
            done_nodes += results[i].nodes;
            total.nodes += results[i].nodes;
            total.fingerprint += results[i].fingerprint;
        }
    while (active > 0) {
        int flag = 0;
        MPI_Status st;
        MPI_Iprobe(MPI_ANY_SOURCE, TAG_RESULT, MPI_COMM_WORLD, &flag, &st);
        if (!flag) {
            struct timespec ts = {0, 200000};
            nanosleep(&ts, NULL);
            continue;
        }
        uint64_t msg[3];
        MPI_Recv(msg, 3, MPI_UINT64_T, st.MPI_SOURCE, TAG_RESULT, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
        if (msg[0] != UINT64_MAX) {
            PerftResult r = {msg[1], msg[2]};
            int i = (int)msg[0];
            if (results) results[i] = r;
            total.nodes += r.nodes;
            total.fingerprint += r.fingerprint;
            ndone++;
            done_nodes += r.nodes;
            if (cfg->unit_done) cfg->unit_done(cfg->unit_done_ctx, i, r);
            if (cfg->progress) cfg->progress(cfg->progress_ctx, ndone, n, done_nodes);
        }
        while (next < n && done && done[next]) next++;
        int32_t work[WORK_WORDS] = {-1, 0};
        if (next < n) {
            work[0] = next;
            work[1] = units[next].len;
            for (int k = 0; k < units[next].len; k++) work[2 + k] = (int32_t)units[next].path[k];
            next++;
        }
        MPI_Send(work, WORK_WORDS, MPI_INT32_T, st.MPI_SOURCE, TAG_WORK, MPI_COMM_WORLD);
        if (work[0] < 0) active--;
    }
    return total;
}

/* Other ranks: ask for a unit, count it, send the result back with the next request. */
static void work(const Position *root, int depth, const PerftConfig *cfg) {
    uint64_t msg[3] = {UINT64_MAX, 0, 0};
    for (;;) {
        MPI_Send(msg, 3, MPI_UINT64_T, 0, TAG_RESULT, MPI_COMM_WORLD);
        int32_t w[WORK_WORDS];
        MPI_Recv(w, WORK_WORDS, MPI_INT32_T, 0, TAG_WORK, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (w[0] < 0) break;
        PerftUnit u = {.len = w[1]};
        for (int k = 0; k < u.len; k++) u.path[k] = (Move)w[2 + k];
        PerftResult r = count_unit(root, &u, depth, cfg);
        msg[0] = (uint64_t)w[0];
        msg[1] = r.nodes;
        msg[2] = r.fingerprint;
    }
}
#endif

PerftResult mpi_perft_units(const Position *root, int depth, const PerftUnit *units, int n,
                            PerftResult *results, const bool *done, const PerftConfig *cfg) {
    PerftResult total = {0, 0};
#ifdef CHESSVAR_HAVE_MPI
    int rank, size;
    world(&rank, &size);
    if (rank == 0) total = dispatch(units, n, results, done, cfg);
    else work(root, depth, cfg);
    MPI_Barrier(MPI_COMM_WORLD);
#else
    (void)root;
    (void)depth;
    (void)units;
    (void)n;
    (void)results;
    (void)done;
    (void)cfg;
#endif
    return total;
}

PerftResult mpi_perft(const Position *root, int depth, const PerftConfig *cfg,
                      PerftUnit **units_out, PerftResult **results_out, int *nunits_out) {
    enum { MAX_UNITS = 1 << 16 };
    PerftUnit *units = NULL;
    PerftResult *res = NULL;
    int n = 0, rank, size;
    world(&rank, &size);
    if (rank == 0) {
        units = malloc(MAX_UNITS * sizeof *units);
        int threads = cfg->threads > 0 ? cfg->threads : 1;
        int min_units = cfg->min_units > 0 ? cfg->min_units : 8 * size * threads;
        n = perft_split(root, depth, min_units, units, MAX_UNITS);
        res = calloc((size_t)n, sizeof *res);
    }
    PerftResult total = mpi_perft_units(root, depth, units, n, res, NULL, cfg);
    if (rank == 0 && units_out) {
        *units_out = units;
        *results_out = res;
        *nunits_out = n;
    } else {
        free(units);
        free(res);
    }
    return total;
}
