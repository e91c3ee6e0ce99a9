/* run.h - a self-play run: the games of a plan played on OpenMP threads (and, through the
 * caller's collectives, on several ranks), written in shards atomically with a manifest,
 * resumed after a kill without losing or repeating a game, with an optional
 * rule-consistency report. The program (cli/selfplay_cmd.c) parses options into a plan,
 * runs it and prints the totals. */
#ifndef CHESSVAR_SELFPLAY_RUN_H
#define CHESSVAR_SELFPLAY_RUN_H

#include <stdio.h>

#include "filter.h"
#include "game.h"

#define SELFPLAY_MAX_GAMES 2000000000L /* game ids fit the data files' 32 bits */
#define SELFPLAY_NSCORE    5 /* White's (or player A's) score per mille: 0, 250, 500, 750, 1000 */

/* Paired runs count their game pairs by player A's points in the pair, in quarter points
 * (0, 1/4, ..., 2: a stalemate win scores 3/4 in some variants): the classes of an SPRT. */
#define SELFPLAY_NPAIR 9

/* A rule that may end a paired run early (the SPRT of match/sprt.h, handed in by the
 * program): decide sees the pair counts of the complete shards and says whether to stop;
 * note writes the rule's state for the progress line. */
typedef struct SelfplayStopRule {
    bool (*decide)(const void *ctx, const uint64_t pairs[SELFPLAY_NPAIR]);
    void (*note)(const void *ctx, const uint64_t pairs[SELFPLAY_NPAIR], char *buf, size_t n);
    const void *ctx;
} SelfplayStopRule;

/* What to play and where to write it: equal plans write equal files. */
typedef struct SelfplayPlan {
    GameConfig game;
    long games, threads, shard_games; /* games: with positions, the most to play */
    long positions;                   /* > 0: end once the shards written hold this many */
    int formats;                      /* FORMAT_* bits (record.h) */
    const char *out;                  /* the run's folder */
    bool resume;                      /* continue the run in out */
    const char *report; /* rule-consistency report (JSON path; Markdown beside it), or NULL */
    long check_every;   /* verify every n-th position of each game in the report (0: none) */
    FilterSpec filter;  /* positions left out of the position files */
    double progress;    /* seconds between progress lines on progress_out; 0 = none */
    const SelfplayStopRule *stop_rule; /* non-NULL (paired, even shard_games): may end it */
    FILE *progress_out;
    const char *command; /* what plays the run, for progress lines and the PGN's Event tag
                            (NULL: selfplay) */
} SelfplayPlan;

/* How the ranks of a distributed run agree; size 1 (or NULL ranks) is one process and
 * needs no functions. Each rank plays a disjoint range of shards. */
typedef struct SelfplayRanks {
    int rank, size;
    int (*bcast_int)(int v);          /* rank 0's value, on every rank */
    int (*min_int)(int v);            /* minimum over the ranks */
    double (*max_double)(double v);   /* maximum over the ranks */
    void (*sum_long)(long *v, int n); /* v[0..n) summed over the ranks, in place */
} SelfplayRanks;

/* Totals of every completed shard of the run (all ranks) and of this invocation. */
typedef struct SelfplayTotals {
    uint64_t games, positions, plies, nodes, duplicates; /* positions: written */
    uint64_t by_score[SELFPLAY_NSCORE];                  /* games by White's score */
    uint64_t term[TERM_COUNT];                           /* games by termination */
    uint32_t a_by_score[SELFPLAY_NSCORE];
    uint64_t a_pairs[SELFPLAY_NPAIR];         /* paired runs: pairs by player A's points */
    bool rule_stopped;                        /* the stop rule ended the run */
    int64_t a_score;                          /* player A's score per mille, summed */
    long games_now, positions_now, nodes_now; /* this invocation, all ranks */
    long restarts;                            /* restarts of uci: opponents (this rank) */
    double seconds;                           /* this invocation (slowest rank) */
    uint64_t report_failures;                 /* invariant failures in the report */
    long replays_rejected;                    /* recorded games the report refused */
} SelfplayTotals;

typedef struct SelfplayRun SelfplayRun;

/* Name of a player for PGN tags, the run's configuration and summaries (no quotes or
 * backslashes: it goes into JSON and PGN as is). */
void selfplay_player_name(const PlayerSpec *p, char *buf, size_t n);

/* A run of the plan (kept by pointer; it must outlive the run) on the given ranks (NULL:
 * one process); NULL if out of memory. */
SelfplayRun *selfplay_run_new(const SelfplayPlan *plan, const SelfplayRanks *ranks);

/* Prepares the folder (or checks that it holds this run on --resume), plays this rank's
 * unfinished shards, writes the manifest and the report. False with a message in
 * selfplay_run_error when a file cannot be written or a rank failed; a report with
 * findings is not a failure here (see the totals). */
bool selfplay_run_go(SelfplayRun *run);

/* Totals of the run after selfplay_run_go. */
void selfplay_run_totals(const SelfplayRun *run, SelfplayTotals *t);

/* True when a report was asked for and could not be written (the message is the error). */
bool selfplay_run_report_failed(const SelfplayRun *run);

/* Prints the progress line now. */
void selfplay_run_progress(SelfplayRun *run);

/* What went wrong, or "". */
const char *selfplay_run_error(const SelfplayRun *run);

/* Frees the run (also games of shards a failure left open). */
void selfplay_run_free(SelfplayRun *run);

#endif
