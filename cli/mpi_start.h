/* mpi_start.h - the one MPI start-up of the chessvar program: whether this process was
 * launched by an MPI launcher, initialising and finalising MPI, this process's rank and
 * the number of ranks, and the few collectives the commands need. Every command that can
 * run on several ranks (perft, selfplay) starts MPI here, so a launch recognised by one
 * is recognised by all. Without MPI in the build every call acts as a single rank. */
#ifndef CHESSVAR_MPI_START_H
#define CHESSVAR_MPI_START_H

#include <stdbool.h>

/* True when this build has MPI. */
bool cli_mpi_available(void);

/* True when an MPI launcher started this process: Open MPI (mpirun), MPICH/Hydra (PMI),
 * a PMIx launcher (prterun, OpenPMIx-based mpirun) or Slurm's srun. */
bool cli_mpi_launched(void);

/* Initialises MPI once (funnelled threads); returns the number of ranks (1 without MPI). */
int cli_mpi_begin(void);

/* This process's rank (0 before cli_mpi_begin or without MPI). */
int cli_mpi_rank(void);

/* Finalises MPI if cli_mpi_begin started it. */
void cli_mpi_end(void);

/* Rank 0's value of v, on every rank. */
int cli_mpi_bcast_int(int v);

/* The minimum of v over the ranks, on every rank. */
int cli_mpi_min_int(int v);

/* The maximum of v over the ranks, on every rank. */
double cli_mpi_max_double(double v);

/* Replaces v[0..n) by its sums over the ranks, on every rank. */
void cli_mpi_sum_long(long *v, int n);

#endif
