#define _POSIX_C_SOURCE 200809L /* nanosleep under strict C11 */
/* mpi_perft.c - distributed perft: a dynamic work queue of perft units over Open MPI. */
#include "harness.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef CHESSVAR_HAVE_MPI
#include <mpi.h>
#endif

static int g_rank = 0, g_size = 1, g_started = 0;

bool mpi_available(void) {
#ifdef CHESSVAR_HAVE_MPI
    return true;
#else
    return false;
#endif
}

bool mpi_launched(void) {
    return getenv("OMPI_COMM_WORLD_SIZE") || getenv("PMI_SIZE") || getenv("PMIX_RANK") ||
           getenv("SLURM_STEP_NUM_TASKS");
}

int mpi_begin(int *argc, char ***argv) {
#ifdef CHESSVAR_HAVE_MPI
    if (!g_started) {
        int provided;
        MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided);
        MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
        MPI_Comm_size(MPI_COMM_WORLD, &g_size);
        g_started = 1;
    }
#else
    (void)argc;
    (void)argv;
#endif
    return g_size;
}

int mpi_rank(void) { return g_rank; }

void mpi_end(void) {
#ifdef CHESSVAR_HAVE_MPI
    if (g_started) MPI_Finalize();
    g_started = 0;
#endif
}

#ifdef CHESSVAR_HAVE_MPI
enum { TAG_WORK = 1, TAG_RESULT = 2 };

/* Counts one unit on this rank with its threads: the unit's position is split again. */
static PerftResult count_unit(const Position *root, const PerftUnit *u, int depth,
                              const PerftConfig *cfg) {
    Position *p = malloc(sizeof *p);
    pos_copy(p, root);
    for (int k = 0; k < u->len; k++) pos_make(p, u->path[k]);
    PerftConfig c = *cfg;
    c.progress = NULL;
    c.min_units = 0;
    PerftResult r = perft_run(p, depth - u->len, &c);
    free(p);
    return r;
}
#endif

PerftResult mpi_perft(const Position *root, int depth, const PerftConfig *cfg,
                      PerftUnit **units_out, PerftResult **results_out, int *nunits_out) {
    PerftResult total = {0, 0};
#ifdef CHESSVAR_HAVE_MPI
    enum { MAX_UNITS = 1 << 16 };
    PerftUnit *units = malloc(MAX_UNITS * sizeof *units);
    int threads = cfg->threads > 0 ? cfg->threads : 1;
    int min_units = cfg->min_units > 0 ? cfg->min_units : 8 * g_size * threads;
    int n = perft_split(root, depth, min_units, units, MAX_UNITS);
    PerftResult *res = calloc((size_t)n, sizeof *res);
    if (g_rank == 0) {
        int next = 0, active = g_size - 1, done = 0;
        uint64_t done_nodes = 0;
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
                res[msg[0]].nodes = msg[1];
                res[msg[0]].fingerprint = msg[2];
                done++;
                done_nodes += msg[1];
                if (cfg->progress) cfg->progress(cfg->progress_ctx, done, n, done_nodes);
            }
            int32_t work = next < n ? next++ : -1;
            MPI_Send(&work, 1, MPI_INT32_T, st.MPI_SOURCE, TAG_WORK, MPI_COMM_WORLD);
            if (work < 0) active--;
        }
        for (int i = 0; i < n; i++) {
            total.nodes += res[i].nodes;
            total.fingerprint += res[i].fingerprint;
        }
    } else {
        uint64_t msg[3] = {UINT64_MAX, 0, 0};
        for (;;) {
            MPI_Send(msg, 3, MPI_UINT64_T, 0, TAG_RESULT, MPI_COMM_WORLD);
            int32_t work;
            MPI_Recv(&work, 1, MPI_INT32_T, 0, TAG_WORK, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            if (work < 0) break;
            PerftResult r = count_unit(root, &units[work], depth, cfg);
            msg[0] = (uint64_t)work;
            msg[1] = r.nodes;
            msg[2] = r.fingerprint;
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (g_rank == 0 && units_out) {
        *units_out = units;
        *results_out = res;
        *nunits_out = n;
    } else {
        free(units);
        free(res);
    }
#else
    (void)root;
    (void)depth;
    (void)cfg;
    (void)units_out;
    (void)results_out;
    (void)nunits_out;
#endif
    return total;
}
