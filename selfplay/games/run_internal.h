/* run_internal.h - the state of a self-play run, shared by run.c (playing, writing
 * shards in order, resume) and run_files.c (run.json, shard statistics, manifest, report). */
#ifndef CHESSVAR_SELFPLAY_RUN_INTERNAL_H
#define CHESSVAR_SELFPLAY_RUN_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>

#include "filter.h"
#include "../check/report.h"
#include "run.h"

/* manifest.json is derived from the shards' statistics files: rewriting it after every
 * shard would cost O(shards^2) bytes over a long run, so it is rewritten at most this
 * often while playing, and always at the end */
#define MANIFEST_SECONDS 10.0

/* Totals of one shard, kept in memory and in the shard's .json file. */
typedef struct ShardStats {
    bool done;
    uint32_t games;
    uint64_t positions, plies, nodes; /* positions written, plies played */
    uint32_t by_score[SELFPLAY_NSCORE];
    uint32_t term[TERM_COUNT];
    int64_t a_score;                      /* per mille, summed over games, for player A */
    uint32_t a_by_score[SELFPLAY_NSCORE]; /* player A's games scoring 0, 1/4, 1/2, 3/4, 1 */
    uint32_t a_pairs[SELFPLAY_NPAIR];     /* paired runs: the shard's pairs by A's points */
    uint64_t *hashes;                     /* one per game */
} ShardStats;

/* A shard: its totals, and while it is played its unfinished games and the games done. */
typedef struct Shard {
    ShardStats st;
    atomic_int remaining;
    Game **games; /* its games while it is open, else NULL */
} Shard;

/* Shards per allocation: a --positions run does not know how many it will need. */
#define SHARD_CHUNK 1024

/* Shared state of a run: the plan, the shard table and the counters of this invocation. */
struct SelfplayRun {
    const SelfplayPlan *o;
    SelfplayRanks ranks;
    uint32_t nshards, shard_lo, shard_hi; /* this rank's shards: [lo, hi) */
    Shard *_Atomic *chunks;               /* chunk c: shards [c, c + 1) * SHARD_CHUNK */
    atomic_uint nchunks;                  /* chunks made, in order */
    atomic_uint next_game;                /* the next game a thread takes */
    /* shards written in shard order (--dedup-bits, --positions): a complete shard waits
     * for the ones before it, so what it keeps depends on those alone */
    bool ordered;
    uint32_t next_write; /* this rank's next shard to write (under lock_write) */
    uint64_t written;    /* positions written by this rank's shards (under lock_manifest) */
    uint64_t written0;   /* ... before this invocation */
    atomic_int stop;     /* --positions reached or the stop rule said so: no game starts */
    uint64_t
        rule_pairs[SELFPLAY_NPAIR]; /* the stop rule's pairs: complete shards (lock_manifest) */
    bool rule_stopped;              /* the stop rule ended the run (lock_manifest) */
    KeyTable keys;                  /* --dedup-bits: keys written (under lock_write) */
    char config[2048];              /* the run's configuration as one JSON object */
    bool filtering;                 /* some positions may be left out of the files */
    int rank, nranks;
    atomic_long games_now, positions_now, nodes_now;
    atomic_int failed;
    atomic_long restarts; /* restarts of uci: opponents after failures */
    /* pthread locks rather than omp critical, so thread sanitizers see them */
    pthread_mutex_t lock_slots, lock_manifest, lock_progress, lock_write;
    Report *parts;                /* per thread, when a report is asked for */
    atomic_long replays_rejected; /* games the report's replay refused (illegal move) */
    long games_todo;
    double t0, last_progress;
    double last_manifest; /* when manifest.json was last rewritten */
    double secs;          /* this invocation, slowest rank */
    long sums[3];         /* positions, nodes, games of this invocation over all ranks */
    bool report_failed;
    uint64_t report_failures;
    CvError err;
};

/* Number of games in shard k: shard_games, fewer in the last one. */
static inline unsigned selfplay_shard_games(const SelfplayPlan *o, uint32_t k) {
    long first = (long)k * o->shard_games, left = o->games - first;
    return (unsigned)(left < o->shard_games ? left : o->shard_games);
}

/* Shard k, whose chunk exists (k < selfplay_known). */
static inline Shard *selfplay_shard(const SelfplayRun *run, uint32_t k) {
    return &atomic_load(&run->chunks[k / SHARD_CHUNK])[k % SHARD_CHUNK];
}

/* Shards whose chunk exists: all of a --games run, those reached so far by --positions. */
static inline uint32_t selfplay_known(const SelfplayRun *run) {
    uint64_t n = (uint64_t)atomic_load(&run->nchunks) * SHARD_CHUNK;
    return n < run->nshards ? (uint32_t)n : run->nshards;
}

/* The configuration that decides the games and the data, as one line of JSON. */
void selfplay_config_json(const SelfplayPlan *o, int nranks, char *buf, size_t n);
/* Writes the shard's statistics file: the mark that the shard is complete. */
bool selfplay_write_stats(const SelfplayRun *run, uint32_t shard, CvError *err);
/* Loads a complete shard's statistics; false if the shard must be played (again). */
bool selfplay_load_stats(SelfplayRun *run, uint32_t shard);
/* Rewrites manifest.json from the shard table. */
bool selfplay_write_manifest(const SelfplayRun *run, CvError *err);
/* Creates the run's folder or checks that it holds this run; writes run.json. */
bool selfplay_prepare_dir(SelfplayRun *run);
/* Writes the rule-consistency report of this invocation's games. */
bool selfplay_write_report(SelfplayRun *run, double secs, uint64_t *failures);

#endif
