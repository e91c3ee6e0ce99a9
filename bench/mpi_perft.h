/* mpi_perft.h - distributed perft over Open MPI: rank 0 hands out work units. */
#ifndef CHESSVAR_MPI_PERFT_H
#define CHESSVAR_MPI_PERFT_H

#include "../engine/chessvar.h"

/* True when this build has MPI. */
bool mpi_available(void);
/* True when the process was started by mpirun/srun (MPI environment variables set). */
bool mpi_launched(void);
/* Initialises MPI once; returns the number of ranks (1 without MPI). */
int mpi_begin(int *argc, char ***argv);
/* This process's rank (0 without MPI). */
int mpi_rank(void);
/* Finalises MPI if it was started. */
void mpi_end(void);

/* Distributed perft: every rank calls it with the same root and depth. Rank 0 splits the
 * tree into units and hands them out one at a time to the other ranks (each counting its
 * unit with cfg's threads and hash); the totals reach rank 0. With `per_unit` (rank 0
 * only), the unit list and per-unit results are returned for divide (caller frees). */
PerftResult mpi_perft(const Position *root, int depth, const PerftConfig *cfg,
                      PerftUnit **units_out, PerftResult **results_out, int *nunits_out);

#endif
