#define _POSIX_C_SOURCE 200809L /* clock_gettime */
/* run.c - a self-play run: plays the games of a plan on OpenMP threads, writes each shard
 * atomically when its last game ends (data files, then the shard's statistics file, the
 * mark that it is complete) or, when the data depends on the shards before (--dedup-bits,
 * --positions), once every earlier shard is written; resumes from the statistics files.
 * run.json, the statistics files, the manifest and the report: run_files.c. */
#include "run.h"

#include <omp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../check/check.h"
#include "record.h"
#include "run_internal.h"

/* Monotonic wall-clock seconds. */
static double run_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Name of a player for PGN tags and summaries (no quotes or backslashes: it goes into
 * JSON and PGN as is). */
void selfplay_player_name(const PlayerSpec *p, char *buf, size_t n) {
    char budget[32];
    if (p->movetime_ms > 0)
        snprintf(budget, sizeof budget, "movetime=%lld", (long long)p->movetime_ms);
    else if (p->depth > 0) snprintf(budget, sizeof budget, "depth=%d", p->depth);
    else snprintf(budget, sizeof budget, "nodes=%lld", (long long)p->nodes);
    if (p->kind == PLAYER_UCI && p->uci->tc_base_ms > 0)
        snprintf(budget, sizeof budget, "tc=%g+%g", (double)p->uci->tc_base_ms / 1000.0,
                 (double)p->uci->tc_inc_ms / 1000.0);
    if (p->kind == PLAYER_RANDOM) snprintf(buf, n, "random");
    else if (p->kind == PLAYER_UCI) {
        int k = p->uci->label ? snprintf(buf, n, "%s %s", p->uci->label, budget)
                              : snprintf(buf, n, "uci:%s %s", p->uci->cmd, budget);
        for (int i = 0; i < p->uci->noptions && k < (int)n; i++)
            k += snprintf(buf + k, n - (size_t)k, " %s=%s", p->uci->option_name[i],
                          p->uci->option_value[i]);
        for (char *c = buf; *c; c++)
            if (*c == '"' || *c == '\\' || (unsigned char)*c < 0x20) *c = '\'';
    } else if (p->net) {
        snprintf(buf, n, "chessvar %s eval=%s", budget, p->eval_name ? p->eval_name : "network");
    } else snprintf(buf, n, "chessvar %s", budget);
}

/* Makes the chunks up to shard k's; false if out of memory. Not under lock_slots. */
static bool selfplay_reach(SelfplayRun *run, uint32_t k) {
    if (k < selfplay_known(run)) return true;
    bool ok = true;
    pthread_mutex_lock(&run->lock_slots);
    while (ok && k >= selfplay_known(run)) {
        uint32_t c = atomic_load(&run->nchunks);
        Shard *chunk = calloc(SHARD_CHUNK, sizeof *chunk);
        ok = chunk != NULL;
        for (uint32_t i = 0; ok && i < SHARD_CHUNK; i++) {
            uint32_t id = c * SHARD_CHUNK + i;
            atomic_init(&chunk[i].remaining,
                        id < run->nshards ? (int)selfplay_shard_games(run->o, id) : 0);
        }
        if (ok) {
            atomic_store(&run->chunks[c], chunk);
            atomic_store(&run->nchunks, c + 1);
        }
    }
    pthread_mutex_unlock(&run->lock_slots);
    return ok;
}

/* The name of the command that plays the run, for its progress lines. */
static const char *run_command(const SelfplayPlan *o) {
    return o->command ? o->command : "selfplay";
}

/* Prints a progress line if the interval has passed (caller holds the progress lock). */
static void selfplay_progress(SelfplayRun *run, bool force) {
    double now = run_now();
    if (run->o->progress <= 0 || (!force && now - run->last_progress < run->o->progress)) return;
    run->last_progress = now;
    long g = atomic_load(&run->games_now), p = atomic_load(&run->positions_now);
    double el = now - run->t0, rate = el > 0 ? (double)p / el : 0;
    double eta = g > 0 ? el * (double)(run->games_todo - g) / (double)g : 0;
    if (run->o->positions > 0) { /* --positions: the count written so far tells the ETA */
        pthread_mutex_lock(&run->lock_manifest);
        uint64_t all = run->written, now_w = run->written - run->written0;
        pthread_mutex_unlock(&run->lock_manifest);
        double left = (double)run->o->positions - (double)all;
        eta = now_w > 0 && left > 0 ? el * left / (double)now_w : 0;
        fprintf(run->o->progress_out,
                "%s %s: %ld games, %ld positions, %.0f positions/s, %llu/%ld positions "
                "written, ETA %.0f s\n",
                run_command(run->o), run->o->game.var->name, g, p, rate, (unsigned long long)all,
                run->o->positions, eta);
        return;
    }
    const SelfplayStopRule *r = run->o->stop_rule;
    if (r) { /* the rule's state instead of an ETA: the run ends when the rule says */
        char note[256];
        pthread_mutex_lock(&run->lock_manifest);
        r->note(r->ctx, run->rule_pairs, note, sizeof note);
        pthread_mutex_unlock(&run->lock_manifest);
        fprintf(run->o->progress_out, "%s %s: %ld/%ld games, %s\n", run_command(run->o),
                run->o->game.var->name, g, run->games_todo, note);
        return;
    }
    fprintf(run->o->progress_out,
            "%s %s: %ld/%ld games, %ld positions, %.0f positions/s, ETA %.0f s\n",
            run_command(run->o), run->o->game.var->name, g, run->games_todo, p, rate, eta);
}

/* Counts the shard's game pairs (games 2k, 2k+1 of one opening, both in the shard) by
 * player A's points in quarters (SELFPLAY_NPAIR classes). */
static void selfplay_count_pairs(ShardStats *s, Game **games, uint32_t first, uint32_t n) {
    for (uint32_t i = first % 2; i + 1 < n; i += 2) {
        const Game *x = games[i], *y = games[i + 1];
        int ax = x->a_is_white ? x->white_score : 1000 - x->white_score;
        int ay = y->a_is_white ? y->white_score : 1000 - y->white_score;
        s->a_pairs[(ax + ay) / 250]++;
    }
}

/* Adds a complete shard's pairs to the stop rule's and stops the run once the rule says
 * so (caller holds lock_manifest). */
static void selfplay_rule_add(SelfplayRun *run, const ShardStats *s) {
    const SelfplayStopRule *r = run->o->stop_rule;
    if (!r) return;
    for (int k = 0; k < SELFPLAY_NPAIR; k++) run->rule_pairs[k] += s->a_pairs[k];
    if (r->decide(r->ctx, run->rule_pairs)) {
        run->rule_stopped = true;
        atomic_store(&run->stop, 1);
    }
}

/* Adds a finished game to its shard's statistics; only the thread that finished the
 * shard's last game calls it, so no lock is needed. */
static void selfplay_account(ShardStats *s, const Game *g, uint32_t index) {
    s->games++;
    s->plies += (uint64_t)g->nply;
    s->nodes += (uint64_t)g->nodes;
    s->by_score[g->white_score / 250]++;
    s->term[g->termination]++;
    s->a_score += g->a_is_white ? g->white_score : 1000 - g->white_score;
    s->a_by_score[(g->a_is_white ? g->white_score : 1000 - g->white_score) / 250]++;
    s->hashes[index] = g->hash;
}

/* Writes a complete shard: data files (the positions the filter keeps), the keys it added
 * to the key table, its statistics file, then the manifest. */
static void selfplay_close_shard(SelfplayRun *run, uint32_t shard, GamePlayer *gp) {
    const SelfplayPlan *o = run->o;
    uint32_t first = shard * (uint32_t)o->shard_games;
    uint32_t last = first + (uint32_t)o->shard_games;
    if (last > (uint32_t)o->games) last = (uint32_t)o->games;
    Shard *sh = selfplay_shard(run, shard);
    pthread_mutex_lock(&run->lock_slots);
    Game **games = sh->games;
    sh->games = NULL;
    pthread_mutex_unlock(&run->lock_slots);
    ShardStats *s = &sh->st;
    s->hashes = calloc(last - first, sizeof *s->hashes);
    ShardInfo si = {o->game.var, shard, first, last - first, 0, {"", ""}, o->command};
    selfplay_player_name(&o->game.player[0], si.player_name[0], sizeof si.player_name[0]);
    selfplay_player_name(&o->game.player[1], si.player_name[1], sizeof si.player_name[1]);
    CvError err = {{0}};
    KeyTable *table = run->keys.slot ? &run->keys : NULL;
    size_t plies = 0, nkeys = 0;
    for (uint32_t i = 0; i < last - first; i++) plies += (size_t)games[i]->nply;
    uint64_t *keys = table ? malloc(plies * sizeof *keys + 1) : NULL;
    bool ok = s->hashes != NULL && (!table || keys);
    if (!ok) snprintf(err.msg, sizeof err.msg, "out of memory");
    for (uint32_t i = 0; ok && i < last - first; i++) {
        selfplay_account(s, games[i], i);
        uint32_t w = filter_game(games[i], &o->filter, table, o->game.var, &gp->pos, keys + nkeys);
        s->positions += w;
        if (table) nkeys += w;
    }
    if (ok && o->game.paired) selfplay_count_pairs(s, games, first, last - first);
    char path[1024];
    record_shard_name(path, sizeof path, o->out, shard, "keys");
    ok = ok && record_write_shard(o->out, o->formats, &si, games, &gp->pos, &err) &&
         (!table || filter_write_keys(path, keys, nkeys, &err)) &&
         selfplay_write_stats(run, shard, &err);
    free(keys);
    for (uint32_t i = 0; i < last - first; i++) free(games[i]);
    free(games);
    pthread_mutex_lock(&run->lock_manifest);
    if (ok) {
        s->done = true;
        run->written += s->positions; /* ordered runs only read it, under lock_write */
        if (o->positions > 0 && run->written >= (uint64_t)o->positions) atomic_store(&run->stop, 1);
        selfplay_rule_add(run, s);
        double now = run_now();
        if (run->nranks == 1 && now - run->last_manifest >= MANIFEST_SECONDS) {
            ok = selfplay_write_manifest(run, &err);
            run->last_manifest = now;
        }
    }
    if (!ok && !atomic_exchange(&run->failed, 1)) run->err = err;
    pthread_mutex_unlock(&run->lock_manifest);
}

/* Ordered runs: writes every complete shard from the next one to write on, in shard
 * order, so the key table and the --positions count see the shards in the same order
 * for any number of threads; a later shard that completes first waits in memory. Stops
 * at the shard that reaches --positions: the shards after it are never written. */
static void selfplay_write_ready(SelfplayRun *run, GamePlayer *gp) {
    pthread_mutex_lock(&run->lock_write);
    while (run->next_write < run->shard_hi && run->next_write < selfplay_known(run) &&
           !atomic_load(&run->stop) && !atomic_load(&run->failed) &&
           atomic_load(&selfplay_shard(run, run->next_write)->remaining) == 0) {
        selfplay_close_shard(run, run->next_write, gp);
        run->next_write++;
    }
    pthread_mutex_unlock(&run->lock_write);
}

/* Marks the run failed with message msg unless it failed before. */
static void selfplay_fail(SelfplayRun *run, const char *msg) {
    if (!atomic_exchange(&run->failed, 1)) snprintf(run->err.msg, sizeof run->err.msg, "%s", msg);
}

/* Keeps a finished game (a copy of scratch) in its shard until the shard is written, and
 * writes the shard when it was its last game. */
static void selfplay_keep(SelfplayRun *run, uint32_t gid, const Game *scratch, GamePlayer *gp) {
    const SelfplayPlan *o = run->o;
    uint32_t shard = gid / (uint32_t)o->shard_games;
    Shard *sh = selfplay_shard(run, shard);
    Game *g = malloc(game_size(scratch->nply));
    if (!g) return selfplay_fail(run, "out of memory");
    memcpy(g, scratch, game_size(scratch->nply));
    pthread_mutex_lock(&run->lock_slots);
    if (!sh->games) sh->games = calloc(selfplay_shard_games(o, shard), sizeof(Game *));
    bool stored = sh->games != NULL;
    if (stored) sh->games[gid - shard * (uint32_t)o->shard_games] = g;
    pthread_mutex_unlock(&run->lock_slots);
    if (!stored) {
        free(g);
        return selfplay_fail(run, "out of memory");
    }
    atomic_fetch_add(&run->games_now, 1);
    atomic_fetch_add(&run->positions_now, g->nply);
    atomic_fetch_add(&run->nodes_now, (long)g->nodes);
    if (atomic_fetch_sub(&sh->remaining, 1) != 1) return;
    if (run->ordered) selfplay_write_ready(run, gp);
    else selfplay_close_shard(run, shard, gp);
}

/* Plays the games of this rank's open shards on the OpenMP threads, each thread taking
 * the next game id in turn, until the rank's last game or the --positions count. */
static void selfplay_play(SelfplayRun *run) {
    const SelfplayPlan *o = run->o;
    uint32_t end = run->shard_hi * (uint32_t)o->shard_games;
    if (end > (uint32_t)o->games) end = (uint32_t)o->games;
    uint32_t from = run->ordered ? run->next_write : run->shard_lo;
    atomic_init(&run->next_game, from * (uint32_t)o->shard_games);
    run->games_todo = 0;
    for (uint32_t k = from; o->positions == 0 && k < run->shard_hi; k++)
        if (!selfplay_shard(run, k)->st.done) run->games_todo += selfplay_shard_games(o, k);
#pragma omp parallel num_threads((int)o->threads)
    {
        GamePlayer *gp = malloc(sizeof *gp);
        Game *scratch = malloc(game_size(MAX_GAME_PLY)); /* the game being played */
        Move *moves = malloc(MAX_GAME_PLY * sizeof *moves);
        VariantReport *vr =
            run->parts ? report_variant(&run->parts[omp_get_thread_num()], o->game.var) : NULL;
        bool ready = scratch && moves && gp && game_player_init(gp, &o->game);
        if (!ready) selfplay_fail(run, "out of memory");
        while (ready && !atomic_load(&run->failed) && !atomic_load(&run->stop)) {
            uint32_t gid = atomic_fetch_add(&run->next_game, 1);
            if (gid >= end) break;
            uint32_t shard = gid / (uint32_t)o->shard_games;
            if (!selfplay_reach(run, shard)) {
                selfplay_fail(run, "out of memory");
                break;
            }
            if (selfplay_shard(run, shard)->st.done) continue; /* complete before a resume */
            CvError err = {{0}};
            if (!game_play(gp, &o->game, gid, scratch, &err)) {
                if (!atomic_exchange(&run->failed, 1)) run->err = err;
                break;
            }
            if (vr) {
                for (int k = 0; k < scratch->nply; k++) moves[k] = scratch->ply[k].played;
                if (check_replay(vr, o->game.var, scratch->start_fen, moves, scratch->nply,
                                 (int)o->check_every) < 0)
                    atomic_fetch_add(&run->replays_rejected, 1);
            }
            selfplay_keep(run, gid, scratch, gp);
            pthread_mutex_lock(&run->lock_progress);
            selfplay_progress(run, false);
            pthread_mutex_unlock(&run->lock_progress);
        }
        if (ready) {
            atomic_fetch_add(&run->restarts, gp->restarts);
            game_player_free(gp);
        }
        free(gp);
        free(scratch);
        free(moves);
        /* publishes this thread's writes through a lock the caller takes after the join,
         * an ordering thread sanitizers can see (they do not see the OpenMP barrier) */
        pthread_mutex_lock(&run->lock_manifest);
        pthread_mutex_unlock(&run->lock_manifest);
    }
    pthread_mutex_lock(&run->lock_manifest);
    pthread_mutex_unlock(&run->lock_manifest);
}

/* qsort order of 64-bit hashes. */
static int selfplay_cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

SelfplayRun *selfplay_run_new(const SelfplayPlan *o, const SelfplayRanks *ranks) {
    SelfplayRun *run = calloc(1, sizeof *run);
    if (!run) return NULL;
    run->o = o;
    run->ranks = ranks && ranks->size > 1 ? *ranks : (SelfplayRanks){.rank = 0, .size = 1};
    run->rank = run->ranks.rank;
    run->nranks = run->ranks.size;
    pthread_mutex_init(&run->lock_slots, NULL);
    pthread_mutex_init(&run->lock_manifest, NULL);
    pthread_mutex_init(&run->lock_progress, NULL);
    pthread_mutex_init(&run->lock_write, NULL);
    selfplay_config_json(o, run->nranks, run->config, sizeof run->config);
    run->filtering = !filter_keeps_all(&o->filter) || o->positions > 0;
    run->ordered = o->filter.dedup_bits > 0 || o->positions > 0;
    run->nshards = (uint32_t)((o->games + o->shard_games - 1) / o->shard_games);
    run->shard_lo =
        (uint32_t)((uint64_t)run->nshards * (uint64_t)run->rank / (uint64_t)run->nranks);
    run->shard_hi =
        (uint32_t)((uint64_t)run->nshards * (uint64_t)(run->rank + 1) / (uint64_t)run->nranks);
    run->next_write = run->shard_lo;
    run->chunks = calloc(run->nshards / SHARD_CHUNK + 1, sizeof *run->chunks);
    atomic_init(&run->nchunks, 0);
    atomic_init(&run->stop, 0);
    /* a --games run makes all its shards now; a --positions run as it reaches them */
    if (run->chunks && o->positions == 0 && !selfplay_reach(run, run->nshards - 1)) {
        free(run->chunks);
        run->chunks = NULL;
    }
    if (o->filter.dedup_bits > 0 && !keytable_init(&run->keys, o->filter.dedup_bits))
        run->keys.slot = NULL;
    if (o->report) run->parts = calloc((size_t)o->threads, sizeof *run->parts);
    for (long t = 0; run->parts && t < o->threads; t++) report_init(&run->parts[t]);
    return run;
}

/* Sums this invocation's counters and takes the slowest rank's time; on failure of
 * another rank, fails too. Rank 0 then reads the other ranks' shards and writes the
 * manifest. Returns the run's status. */
static bool selfplay_gather(SelfplayRun *run, bool ok) {
    const SelfplayRanks *r = &run->ranks;
    run->sums[0] = atomic_load(&run->positions_now);
    run->sums[1] = atomic_load(&run->nodes_now);
    run->sums[2] = atomic_load(&run->games_now);
    if (run->nranks == 1) return ok;
    r->sum_long(run->sums, 3);
    int okmin = r->min_int(ok);
    run->secs = r->max_double(run->secs);
    if (ok && !okmin && run->rank == 0)
        snprintf(run->err.msg, sizeof run->err.msg, "another rank failed");
    ok = okmin;
    if (ok && run->rank == 0) {
        for (uint32_t i = 0; i < selfplay_known(run); i++)
            if (!selfplay_shard(run, i)->st.done) selfplay_load_stats(run, i);
        ok = selfplay_write_manifest(run, &run->err);
    }
    return ok;
}

/* --resume: takes the complete shards of this rank. An ordered run wrote its shards in
 * order, so it takes them up to the first one missing (any later file is rewritten), adds
 * their keys to the key table again in that order and counts their positions. False
 * only if out of memory. */
static bool selfplay_resume(SelfplayRun *run) {
    const SelfplayPlan *o = run->o;
    for (uint32_t i = run->shard_lo; i < run->shard_hi; i++) {
        if (!selfplay_reach(run, i)) {
            snprintf(run->err.msg, sizeof run->err.msg, "out of memory");
            return false;
        }
        bool loaded = selfplay_load_stats(run, i);
        if (loaded) selfplay_rule_add(run, &selfplay_shard(run, i)->st);
        if (!loaded && run->ordered) break;
    }
    if (!run->ordered) return true;
    uint32_t i = run->shard_lo;
    for (; i < run->shard_hi && i < selfplay_known(run); i++) {
        ShardStats *s = &selfplay_shard(run, i)->st;
        char path[1024];
        record_shard_name(path, sizeof path, o->out, i, "keys");
        if (!s->done || (run->keys.slot && !filter_load_keys(path, &run->keys, s->positions)))
            break;
        run->written += s->positions;
    }
    for (uint32_t k = i; k < run->shard_hi && k < selfplay_known(run); k++) {
        ShardStats *s = &selfplay_shard(run, k)->st; /* played again */
        free(s->hashes);
        memset(s, 0, sizeof *s);
    }
    run->next_write = i;
    run->written0 = run->written;
    if (o->positions > 0 && run->written >= (uint64_t)o->positions) atomic_store(&run->stop, 1);
    return true;
}

bool selfplay_run_go(SelfplayRun *run) {
    const SelfplayPlan *o = run->o;
    bool ok =
        run->chunks && (!o->report || run->parts) && (o->filter.dedup_bits == 0 || run->keys.slot);
    if (!ok) snprintf(run->err.msg, sizeof run->err.msg, "out of memory");
    if (ok && run->rank == 0) ok = selfplay_prepare_dir(run);
    if (run->nranks > 1) {
        int all = run->ranks.bcast_int(ok);
        if (ok && !all) ok = false;
        if (all && run->rank != 0) ok = selfplay_prepare_dir(run);
    }
    if (ok && o->resume) ok = selfplay_resume(run);
    if (ok) {
        run->t0 = run->last_progress = run_now();
        selfplay_play(run);
        ok = !atomic_load(&run->failed);
        if (ok && run->nranks == 1) ok = selfplay_write_manifest(run, &run->err);
    }
    run->secs = run_now() - run->t0;
    ok = selfplay_gather(run, ok);
    if (ok && o->report)
        run->report_failed = !selfplay_write_report(run, run->secs, &run->report_failures);
    return ok;
}

void selfplay_run_totals(const SelfplayRun *run, SelfplayTotals *t) {
    memset(t, 0, sizeof *t);
    for (uint32_t i = 0; i < selfplay_known(run); i++) {
        const ShardStats *s = &selfplay_shard(run, i)->st;
        if (!s->done) continue;
        for (int k = 0; k < SELFPLAY_NSCORE; k++) t->a_by_score[k] += s->a_by_score[k];
        for (int k = 0; k < SELFPLAY_NPAIR; k++) t->a_pairs[k] += s->a_pairs[k];
        t->games += s->games;
        t->positions += s->positions;
        t->plies += s->plies;
        t->nodes += s->nodes;
        t->a_score += s->a_score;
        for (int k = 0; k < SELFPLAY_NSCORE; k++) t->by_score[k] += s->by_score[k];
        for (int k = 0; k < TERM_COUNT; k++) t->term[k] += s->term[k];
    }
    uint64_t *h = malloc((t->games + 1) * sizeof *h);
    size_t nh = 0;
    for (uint32_t i = 0; h && i < selfplay_known(run); i++) {
        const ShardStats *s = &selfplay_shard(run, i)->st;
        for (uint32_t k = 0; s->done && k < s->games; k++) h[nh++] = s->hashes[k];
    }
    if (h) qsort(h, nh, sizeof *h, selfplay_cmp_u64);
    for (size_t i = 1; i < nh; i++) t->duplicates += h[i] == h[i - 1];
    free(h);
    t->positions_now = run->sums[0];
    t->nodes_now = run->sums[1];
    t->games_now = run->sums[2];
    t->restarts = (long)atomic_load(&run->restarts);
    t->rule_stopped = run->rule_stopped;
    t->seconds = run->secs;
    t->report_failures = run->report_failures;
    t->replays_rejected = (long)atomic_load(&run->replays_rejected);
}

bool selfplay_run_report_failed(const SelfplayRun *run) { return run->report_failed; }

void selfplay_run_progress(SelfplayRun *run) { selfplay_progress(run, true); }

const char *selfplay_run_error(const SelfplayRun *run) { return run->err.msg; }

void selfplay_run_free(SelfplayRun *run) {
    if (!run) return;
    uint32_t known = run->chunks ? selfplay_known(run) : 0;
    for (uint32_t i = 0; i < known; i++) {
        Shard *sh = selfplay_shard(run, i);
        free(sh->st.hashes);
        /* shards left open by a failure, or played past the --positions count */
        for (unsigned k = 0; sh->games && k < selfplay_shard_games(run->o, i); k++)
            free(sh->games[k]);
        free(sh->games);
    }
    for (uint32_t c = 0; run->chunks && c < atomic_load(&run->nchunks); c++)
        free(atomic_load(&run->chunks[c]));
    free(run->chunks);
    keytable_free(&run->keys);
    free(run->parts);
    pthread_mutex_destroy(&run->lock_slots);
    pthread_mutex_destroy(&run->lock_manifest);
    pthread_mutex_destroy(&run->lock_progress);
    pthread_mutex_destroy(&run->lock_write);
    free(run);
}
