/* checkpoint.h - perft checkpoints: a file that records every finished work unit of a
 * long perft run, so a killed run resumes where it stopped. The layout of the file is
 * drawn in checkpoint.c and in the README ("Checkpoint and resume"). */
#ifndef CHESSVAR_CHECKPOINT_H
#define CHESSVAR_CHECKPOINT_H

#include "harness.h"

/* The split used with a checkpoint: at least this many units, whatever the thread or
 * rank count, so a run may resume with other --threads or under MPI. Files record the
 * value they were made with, and a resume uses the recorded one. */
#define PERFT_CKPT_MIN_UNITS 1024

/* Default seconds between two appends (each followed by fsync) of the finished units. */
#define PERFT_CKPT_SYNC_SECONDS 0.25

typedef struct PerftCheckpoint PerftCheckpoint;

/* Opens the checkpoint at `path` for perft of root at depth (with or without the
 * fingerprint): creates it with a header when missing or empty, else checks that its
 * header describes this run and loads its finished units (a torn last record is dropped,
 * with a note on stderr). The unit split comes from the header, or PERFT_CKPT_MIN_UNITS
 * for a new file. On failure returns NULL with a one-line message in err naming the file
 * and the problem (foreign, corrupt, in use), having changed nothing in the file. */
PerftCheckpoint *ckpt_open(const char *path, const Position *root, int depth, bool fingerprint,
                           char *err, size_t errlen);

/* Sets the seconds between two appends of finished units (0: after every unit). */
void ckpt_set_sync(PerftCheckpoint *ck, double seconds);

/* The unit list, per-unit results and done flags of an open checkpoint (owned by it). */
int ckpt_units(const PerftCheckpoint *ck, const PerftUnit **units, PerftResult **results,
               bool **done);

/* Units (and their nodes) that were already in the file when it was opened. */
int ckpt_resumed(const PerftCheckpoint *ck, uint64_t *nodes);

/* Bytes of a torn last record dropped when the file was opened (0: none). */
size_t ckpt_dropped(const PerftCheckpoint *ck);

/* A PerftUnitDone callback (ctx is the checkpoint): records the unit, appending and
 * syncing the records gathered every PERFT_CKPT_SYNC_SECONDS (or as set). */
void ckpt_unit_done(void *ctx, int index, PerftResult r);

/* Writes what is left and closes the file. Returns false (message in err) if any write
 * failed: the count is still right, but a later resume will recount those units. */
bool ckpt_close(PerftCheckpoint *ck, char *err, size_t errlen);

#endif
