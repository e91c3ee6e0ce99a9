/* mpi_start.c - the one MPI start-up of the chessvar program (see mpi_start.h). */
#include "mpi_start.h"

#include <stdlib.h>
#include <string.h>

#ifdef CHESSVAR_HAVE_MPI
#include <mpi.h>
#endif

static int g_rank = 0, g_size = 1, g_started = 0;

bool cli_mpi_available(void) {
#ifdef CHESSVAR_HAVE_MPI
    return true;
#else
    return false;
#endif
}

bool cli_mpi_launched(void) {
    static const char *const vars[] = {
        "OMPI_COMM_WORLD_SIZE", /* Open MPI's mpirun */
        "PMI_SIZE",             /* MPICH/Hydra and other PMI-1/PMI-2 launchers */
        "PMIX_RANK",            /* PMIx launchers (prterun, srun --mpi=pmix) */
        "SLURM_STEP_NUM_TASKS", /* Slurm's srun */
    };
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++)
        if (getenv(vars[i])) return true;
    return false;
}

int cli_mpi_begin(void) {
#ifdef CHESSVAR_HAVE_MPI
    if (!g_started) {
        int provided;
        MPI_Init_thread(NULL, NULL, MPI_THREAD_FUNNELED, &provided);
        MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
        MPI_Comm_size(MPI_COMM_WORLD, &g_size);
        g_started = 1;
    }
#endif
    return g_size;
}

int cli_mpi_rank(void) { return g_rank; }

void cli_mpi_end(void) {
#ifdef CHESSVAR_HAVE_MPI
    if (g_started) MPI_Finalize();
#endif
    g_started = 0;
    g_rank = 0;
    g_size = 1;
}

int cli_mpi_bcast_int(int v) {
#ifdef CHESSVAR_HAVE_MPI
    if (g_started) MPI_Bcast(&v, 1, MPI_INT, 0, MPI_COMM_WORLD);
#endif
    return v;
}

int cli_mpi_min_int(int v) {
#ifdef CHESSVAR_HAVE_MPI
    int m = v;
    if (g_started) MPI_Allreduce(&v, &m, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    return m;
#else
    return v;
#endif
}

double cli_mpi_max_double(double v) {
#ifdef CHESSVAR_HAVE_MPI
    double m = v;
    if (g_started) MPI_Allreduce(&v, &m, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return m;
#else
    return v;
#endif
}

void cli_mpi_sum_long(long *v, int n) {
#ifdef CHESSVAR_HAVE_MPI
    if (g_started) MPI_Allreduce(MPI_IN_PLACE, v, n, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
#else
    (void)v;
    (void)n;
#endif
}
