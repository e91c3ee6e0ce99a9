#define _POSIX_C_SOURCE 200809L /* clock_gettime, open_memstream, strtok_r */
/* run.c - a self-play run: plays the games of a plan on OpenMP threads, writes each shard
 * atomically when its last game ends (data files, then the shard's statistics file, the
 * mark that it is complete), keeps manifest.json in step, resumes from the statistics
 * files, and writes the rule-consistency report of the games it played. */
#include "run.h"

#include <errno.h>
#include <omp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "record.h"

/* manifest.json is derived from the shards' statistics files: rewriting it after every
 * shard would cost O(shards^2) bytes over a long run, so it is rewritten at most this
 * often while playing, and always at the end */
#define MANIFEST_SECONDS 10.0

/* Totals of one shard, kept in memory and in the shard's .json file. */
typedef struct ShardStats {
    bool done;
    uint32_t games;
    uint64_t positions, nodes;
    uint32_t by_score[SELFPLAY_NSCORE];
    uint32_t term[TERM_COUNT];
    int64_t a_score;                      /* per mille, summed over games, for player A */
    uint32_t a_by_score[SELFPLAY_NSCORE]; /* player A's games scoring 0, 1/4, 1/2, 3/4, 1 */
    uint64_t *hashes;                     /* one per game */
} ShardStats;

/* Shared state of a run: the plan, the shard table and the counters of this invocation. */
struct SelfplayRun {
    const SelfplayPlan *o;
    SelfplayRanks ranks;
    uint32_t nshards, shard_lo, shard_hi; /* this rank's shards: [lo, hi) */
    ShardStats *stats;                    /* all shards */
    Game ***slots;                        /* per shard: its games while it is open, else NULL */
    atomic_int *remaining;                /* unfinished games per shard */
    char config[1024];                    /* the run's configuration as one JSON object */
    int rank, nranks;
    atomic_long games_now, positions_now, nodes_now;
    atomic_int failed;
    atomic_long restarts; /* restarts of uci: opponents after failures */
    /* pthread locks rather than omp critical, so thread sanitizers see them */
    pthread_mutex_t lock_slots, lock_manifest, lock_progress;
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
    if (p->kind == PLAYER_RANDOM) snprintf(buf, n, "random");
    else if (p->kind == PLAYER_UCI) {
        int k = snprintf(buf, n, "uci:%s %s", p->uci->cmd, budget);
        for (int i = 0; i < p->uci->noptions && k < (int)n; i++)
            k += snprintf(buf + k, n - (size_t)k, " %s=%s", p->uci->option_name[i],
                          p->uci->option_value[i]);
        for (char *c = buf; *c; c++)
            if (*c == '"' || *c == '\\' || (unsigned char)*c < 0x20) *c = '\'';
    } else if (p->net) {
        snprintf(buf, n, "chessvar %s eval=%s", budget, p->eval_name ? p->eval_name : "network");
    } else snprintf(buf, n, "chessvar %s", budget);
}

/* The configuration that decides the games, as one line of JSON (threads excluded). */
static void selfplay_config_json(const SelfplayPlan *o, char *buf, size_t n) {
    const GameConfig *g = &o->game;
    char formats_text[64] = "";
    for (int i = 0; i < RECORD_NFORMATS; i++)
        if (o->formats & (1 << i))
            snprintf(formats_text + strlen(formats_text),
                     sizeof formats_text - strlen(formats_text), "%s%s", formats_text[0] ? "," : "",
                     record_format_name(i));
    char a[160], b[160];
    selfplay_player_name(&g->player[0], a, sizeof a);
    selfplay_player_name(&g->player[1], b, sizeof b);
    int k = snprintf(
        buf, n,
        "{\"variant\":\"%s\",\"games\":%ld,\"seed\":%llu,\"shard_games\":%ld,\"format\":\"%s\","
        "\"player_a\":\"%s\",\"player_b\":\"%s\",\"random_plies\":%d,\"temperature\":%d,"
        "\"temp_margin\":%d,\"temp_plies\":%d,\"temp_depth\":%d,\"ply_cap\":%d,\"resign\":[%d,%d],"
        "\"draw\":[%d,%d,%d]"
        ","
        "\"hash_bits\":%d,\"random_start\":%s,\"start\":",
        g->var->name, o->games, (unsigned long long)g->seed, o->shard_games, formats_text, a, b,
        g->random_plies, g->temperature, g->temp_margin, g->temp_plies, g->temp_depth, g->ply_cap,
        g->resign_score, g->resign_plies, g->draw_score, g->draw_plies, g->draw_min_ply, g->tt_bits,
        g->random_start ? "true" : "false");
    if (g->start_fen) snprintf(buf + k, n - (size_t)k, "\"%s\"}", g->start_fen);
    else snprintf(buf + k, n - (size_t)k, "null}");
}

/* Number of games in shard k: shard_games, fewer in the last one. */
static unsigned selfplay_shard_games(const SelfplayPlan *o, uint32_t k) {
    long first = (long)k * o->shard_games, left = o->games - first;
    return (unsigned)(left < o->shard_games ? left : o->shard_games);
}

/* Writes the shard's statistics file: the mark that the shard is complete. */
static bool selfplay_write_stats(const SelfplayRun *run, uint32_t shard, CvError *err) {
    const ShardStats *s = &run->stats[shard];
    size_t cap = 512 + 17 * (size_t)s->games;
    char *buf = malloc(cap);
    if (!buf) return false;
    int k = snprintf(
        buf, cap,
        "{\"shard\":%u,\"first_game\":%llu,\"games\":%u,\"positions\":%llu,\"nodes\":%llu,"
        "\"white_score\":[%u,%u,%u,%u,%u],\"a_score\":%lld,\"a_score_counts\":[%u,%u,%u,%u,%u],"
        "\"termination\":[",
        (unsigned)shard, (unsigned long long)shard * (unsigned long long)run->o->shard_games,
        (unsigned)s->games, (unsigned long long)s->positions, (unsigned long long)s->nodes,
        s->by_score[0], s->by_score[1], s->by_score[2], s->by_score[3], s->by_score[4],
        (long long)s->a_score, s->a_by_score[0], s->a_by_score[1], s->a_by_score[2],
        s->a_by_score[3], s->a_by_score[4]);
    for (int t = 0; t < TERM_COUNT; t++)
        k += snprintf(buf + k, cap - (size_t)k, "%s%u", t ? "," : "", s->term[t]);
    k += snprintf(buf + k, cap - (size_t)k, "],\"hashes\":\"");
    for (uint32_t i = 0; i < s->games; i++)
        k += snprintf(buf + k, cap - (size_t)k, "%016llx", (unsigned long long)s->hashes[i]);
    k += snprintf(buf + k, cap - (size_t)k, "\"}\n");
    char path[1024];
    record_shard_name(path, sizeof path, run->o->out, shard, "json");
    bool ok = record_write_text(path, buf, (size_t)k, err);
    free(buf);
    return ok;
}

/* Loads a shard's statistics file if it exists and every data file of the shard is there;
 * returns false if the shard must be played (again). */
static bool selfplay_load_stats(SelfplayRun *run, uint32_t shard) {
    char path[1024];
    for (int i = 0; i < RECORD_NFORMATS; i++) {
        if (!(run->o->formats & (1 << i))) continue;
        record_shard_name(path, sizeof path, run->o->out, shard, record_format_ext(i));
        if (access(path, R_OK) != 0) return false;
    }
    record_shard_name(path, sizeof path, run->o->out, shard, "json");
    FILE *f = fopen(path, "r");
    if (!f) return false;
    ShardStats *s = &run->stats[shard];
    unsigned sh, games, sc[SELFPLAY_NSCORE], asc[SELFPLAY_NSCORE], term[TERM_COUNT];
    unsigned long long first, pos, nodes;
    long long a;
    bool ok =
        fscanf(
            f,
            "{\"shard\":%u,\"first_game\":%llu,\"games\":%u,\"positions\":%llu,\"nodes\":%llu,"
            "\"white_score\":[%u,%u,%u,%u,%u],\"a_score\":%lld,\"a_score_counts\":[%u,%u,%u,%u,%u],"
            "\"termination\":[",
            &sh, &first, &games, &pos, &nodes, &sc[0], &sc[1], &sc[2], &sc[3], &sc[4], &a, &asc[0],
            &asc[1], &asc[2], &asc[3], &asc[4]) == 16 &&
        sh == shard &&
        first == (unsigned long long)shard * (unsigned long long)run->o->shard_games &&
        games == selfplay_shard_games(run->o, shard);
    for (int t = 0; ok && t < TERM_COUNT; t++) ok = fscanf(f, t ? ",%u" : "%u", &term[t]) == 1;
    if (ok) ok = fscanf(f, "],\"hashes\":\"") == 0;
    if (ok) {
        s->hashes = calloc(games, sizeof *s->hashes);
        ok = s->hashes != NULL;
        for (unsigned i = 0; ok && i < games; i++)
            ok = fscanf(f, "%16llx", (unsigned long long *)&s->hashes[i]) == 1;
    }
    fclose(f);
    if (!ok) {
        free(s->hashes);
        s->hashes = NULL;
        return false;
    }
    s->games = games;
    s->positions = pos;
    s->nodes = nodes;
    s->a_score = a;
    memcpy(s->by_score, sc, sizeof sc);
    memcpy(s->a_by_score, asc, sizeof asc);
    memcpy(s->term, term, sizeof term);
    s->done = true;
    return true;
}

/* Rewrites manifest.json from the shard table: the run's configuration and every
 * completed shard, in shard order, so its content depends only on what is done. */
static bool selfplay_write_manifest(const SelfplayRun *run, CvError *err) {
    size_t cap = 4096 + (size_t)run->nshards * 160;
    char *buf = malloc(cap);
    if (!buf) return false;
    uint32_t done = 0;
    uint64_t games = 0, positions = 0;
    for (uint32_t i = 0; i < run->nshards; i++)
        if (run->stats[i].done) {
            done++;
            games += run->stats[i].games;
            positions += run->stats[i].positions;
        }
    int k = snprintf(
        buf, cap,
        "{\n\"format\": \"chessvar-selfplay-manifest\",\n\"version\": %d,\n\"config\": %s,\n"
        "\"shards_total\": %u,\n\"shards_done\": %u,\n\"games_done\": %llu,\n\"positions\": %llu,\n"
        "\"shards\": [",
        RECORD_VERSION, run->config, (unsigned)run->nshards, (unsigned)done,
        (unsigned long long)games, (unsigned long long)positions);
    bool first = true;
    for (uint32_t i = 0; i < run->nshards; i++) {
        const ShardStats *s = &run->stats[i];
        if (!s->done) continue;
        k += snprintf(buf + k, cap - (size_t)k,
                      "%s\n  {\"shard\": %u, \"first_game\": %llu, \"games\": %u, \"positions\": "
                      "%llu, \"name\": "
                      "\"shard-%06u\"}",
                      first ? "" : ",", (unsigned)i,
                      (unsigned long long)i * (unsigned long long)run->o->shard_games,
                      (unsigned)s->games, (unsigned long long)s->positions, (unsigned)i);
        first = false;
    }
    k += snprintf(buf + k, cap - (size_t)k, "\n]\n}\n");
    char path[1024];
    snprintf(path, sizeof path, "%s/manifest.json", run->o->out);
    bool ok = record_write_text(path, buf, (size_t)k, err);
    free(buf);
    return ok;
}

/* Prints a progress line if the interval has passed (caller holds the progress lock). */
static void selfplay_progress(SelfplayRun *run, bool force) {
    double now = run_now();
    if (run->o->progress <= 0 || (!force && now - run->last_progress < run->o->progress)) return;
    run->last_progress = now;
    long g = atomic_load(&run->games_now), p = atomic_load(&run->positions_now);
    double el = now - run->t0, rate = el > 0 ? (double)p / el : 0;
    double eta = g > 0 ? el * (double)(run->games_todo - g) / (double)g : 0;
    fprintf(run->o->progress_out,
            "selfplay %s: %ld/%ld games, %ld positions, %.0f positions/s, ETA %.0f s\n",
            run->o->game.var->name, g, run->games_todo, p, rate, eta);
}

/* Adds a finished game to its shard's statistics; only the thread that finished the
 * shard's last game calls it, so no lock is needed. */
static void selfplay_account(ShardStats *s, const Game *g, uint32_t index) {
    s->games++;
    s->positions += (uint64_t)g->nply;
    s->nodes += (uint64_t)g->nodes;
    s->by_score[g->white_score / 250]++;
    s->term[g->termination]++;
    s->a_score += g->a_is_white ? g->white_score : 1000 - g->white_score;
    s->a_by_score[(g->a_is_white ? g->white_score : 1000 - g->white_score) / 250]++;
    s->hashes[index] = g->hash;
}

/* Writes a complete shard: data files, then its statistics file, then the manifest. */
static void selfplay_close_shard(SelfplayRun *run, uint32_t shard, GamePlayer *gp) {
    const SelfplayPlan *o = run->o;
    uint32_t first = shard * (uint32_t)o->shard_games;
    uint32_t last = first + (uint32_t)o->shard_games;
    if (last > (uint32_t)o->games) last = (uint32_t)o->games;
    pthread_mutex_lock(&run->lock_slots);
    Game **games = run->slots[shard];
    run->slots[shard] = NULL;
    pthread_mutex_unlock(&run->lock_slots);
    ShardStats *s = &run->stats[shard];
    s->hashes = calloc(last - first, sizeof *s->hashes);
    ShardInfo si = {o->game.var, shard, first, last - first, {"", ""}};
    selfplay_player_name(&o->game.player[0], si.player_name[0], sizeof si.player_name[0]);
    selfplay_player_name(&o->game.player[1], si.player_name[1], sizeof si.player_name[1]);
    CvError err = {{0}};
    bool ok = s->hashes != NULL;
    for (uint32_t i = 0; ok && i < last - first; i++) selfplay_account(s, games[i], i);
    ok = ok && record_write_shard(o->out, o->formats, &si, games, &gp->pos, &err) &&
         selfplay_write_stats(run, shard, &err);
    for (uint32_t i = 0; i < last - first; i++) free(games[i]);
    free(games);
    pthread_mutex_lock(&run->lock_manifest);
    if (ok) {
        s->done = true;
        double now = run_now();
        if (run->nranks == 1 && now - run->last_manifest >= MANIFEST_SECONDS) {
            ok = selfplay_write_manifest(run, &err);
            run->last_manifest = now;
        }
    }
    if (!ok && !atomic_exchange(&run->failed, 1)) run->err = err;
    pthread_mutex_unlock(&run->lock_manifest);
}

/* Plays every game of this rank's open shards on the OpenMP threads. */
static void selfplay_play(SelfplayRun *run) {
    const SelfplayPlan *o = run->o;
    uint32_t base = run->shard_lo * (uint32_t)o->shard_games;
    uint32_t end = run->shard_hi * (uint32_t)o->shard_games;
    if (end > (uint32_t)o->games) end = (uint32_t)o->games;
    long n = (long)end - (long)base;
    run->games_todo = 0;
    for (uint32_t k = run->shard_lo; k < run->shard_hi; k++)
        if (!run->stats[k].done) run->games_todo += selfplay_shard_games(o, k);
#pragma omp parallel num_threads((int)o->threads)
    {
        GamePlayer *gp = malloc(sizeof *gp);
        Game *scratch = malloc(game_size(MAX_GAME_PLY)); /* the game being played */
        Move *moves = malloc(MAX_GAME_PLY * sizeof *moves);
        VariantReport *vr =
            run->parts ? report_variant(&run->parts[omp_get_thread_num()], o->game.var) : NULL;
        bool ready = scratch && moves && gp && game_player_init(gp, &o->game);
        if (!ready && !atomic_exchange(&run->failed, 1))
            snprintf(run->err.msg, sizeof run->err.msg, "out of memory");
#pragma omp for schedule(dynamic, 1)
        for (long i = 0; i < n; i++) {
            if (atomic_load(&run->failed)) continue;
            uint32_t gid = base + (uint32_t)i, shard = gid / (uint32_t)o->shard_games;
            if (run->stats[shard].done) continue; /* complete before a resume: read-only here */
            CvError err = {{0}};
            if (!game_play(gp, &o->game, gid, scratch, &err)) {
                if (!atomic_exchange(&run->failed, 1)) run->err = err;
                continue;
            }
            if (vr) {
                for (int k = 0; k < scratch->nply; k++) moves[k] = scratch->ply[k].played;
                if (check_replay(vr, o->game.var, scratch->start_fen, moves, scratch->nply,
                                 (int)o->check_every) < 0)
                    atomic_fetch_add(&run->replays_rejected, 1);
            }
            Game *g = malloc(game_size(scratch->nply)); /* kept until its shard is written */
            if (!g) {
                if (!atomic_exchange(&run->failed, 1))
                    snprintf(run->err.msg, sizeof run->err.msg, "out of memory");
                continue;
            }
            memcpy(g, scratch, game_size(scratch->nply));
            pthread_mutex_lock(&run->lock_slots);
            if (!run->slots[shard])
                run->slots[shard] = calloc(selfplay_shard_games(o, shard), sizeof(Game *));
            bool stored = run->slots[shard] != NULL;
            if (stored) run->slots[shard][gid - shard * (uint32_t)o->shard_games] = g;
            pthread_mutex_unlock(&run->lock_slots);
            if (!stored) {
                free(g);
                if (!atomic_exchange(&run->failed, 1))
                    snprintf(run->err.msg, sizeof run->err.msg, "out of memory");
                continue;
            }
            atomic_fetch_add(&run->games_now, 1);
            atomic_fetch_add(&run->positions_now, g->nply);
            atomic_fetch_add(&run->nodes_now, (long)g->nodes);
            if (atomic_fetch_sub(&run->remaining[shard], 1) == 1)
                selfplay_close_shard(run, shard, gp);
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

/* Creates DIR or checks that it holds this run; writes run.json on a fresh start. */
static bool selfplay_prepare_dir(SelfplayRun *run) {
    const SelfplayPlan *o = run->o;
    char path[1024];
    snprintf(path, sizeof path, "%s/run.json", o->out);
    if (mkdir(o->out, 0777) != 0 && errno != EEXIST) {
        snprintf(run->err.msg, sizeof run->err.msg, "cannot create %.200s: %s", o->out,
                 strerror(errno));
        return false;
    }
    FILE *f = fopen(path, "r");
    if (f) {
        char have[1100] = "";
        if (!fgets(have, sizeof have, f)) have[0] = 0;
        fclose(f);
        have[strcspn(have, "\n")] = 0;
        if (!o->resume && run->rank == 0) { /* other ranks check after rank 0 wrote it */
            snprintf(
                run->err.msg, sizeof run->err.msg,
                "%.150s already holds a run (pass --resume to continue it, or use a new folder)",
                o->out);
            return false;
        }
        if (strcmp(have, run->config) != 0) {
            snprintf(run->err.msg, sizeof run->err.msg,
                     "--resume: the options differ from the run in %.150s (see its run.json)",
                     path);
            return false;
        }
        return true;
    }
    if (run->rank != 0) return true;
    char line[1100];
    int k = snprintf(line, sizeof line, "%s\n", run->config);
    return record_write_text(path, line, (size_t)k, &run->err);
}

/* Writes the rule-consistency report of this invocation's games (merged over threads):
 * JSON at o->report and Markdown beside it, with "-rankR" before the extension when
 * several MPI ranks write. Returns false if a file cannot be written. */
static bool selfplay_write_report(SelfplayRun *run, double secs, uint64_t *failures) {
    const SelfplayPlan *o = run->o;
    Report *r = malloc(sizeof *r);
    if (!r) return false;
    report_init(r);
    report_variant(r, o->game.var);
    for (long t = 0; t < o->threads; t++) report_merge(r, &run->parts[t]);
    *failures = report_failures(r);
    char base[900], ext[64] = "", paths[2][1000];
    snprintf(base, sizeof base, "%s", o->report);
    char *dot = strrchr(base, '.');
    if (dot && !strchr(dot, '/') && strlen(dot) < sizeof ext) {
        snprintf(ext, sizeof ext, "%s", dot);
        *dot = 0;
    }
    char rank[32] = "";
    if (run->nranks > 1) snprintf(rank, sizeof rank, "-rank%d", run->rank);
    snprintf(paths[0], sizeof paths[0], "%s%s%s", base, rank, ext[0] ? ext : ".json");
    snprintf(paths[1], sizeof paths[1], "%s%s.md", base, rank);
    uint64_t term[TERM_COUNT] = {0}, sc[SELFPLAY_NSCORE] = {0}, games = 0;
    for (uint32_t i = run->shard_lo; i < run->shard_hi; i++)
        if (run->stats[i].done) {
            games += run->stats[i].games;
            for (int k = 0; k < TERM_COUNT; k++) term[k] += run->stats[i].term[k];
            for (int k = 0; k < SELFPLAY_NSCORE; k++) sc[k] += run->stats[i].by_score[k];
        }
    char meta[2048], intro[2048], terms[512] = "";
    int tk = 0;
    for (int k = 1; k < TERM_COUNT; k++)
        tk += snprintf(terms + tk, sizeof terms - (size_t)tk, "%s\"%s\": %llu", k > 1 ? ", " : "",
                       game_term_name(k), (unsigned long long)term[k]);
    snprintf(meta, sizeof meta,
             "\"command\": \"selfplay\", \"config\": %s, \"rank\": %d, \"games_checked\": %ld, "
             "\"check_every\": %ld, \"replays_rejected\": %ld, \"seconds\": %.1f, "
             "\"games_completed\": %llu, "
             "\"white_score_counts\": {\"0\": %llu, \"250\": %llu, \"500\": %llu, \"750\": %llu, "
             "\"1000\": %llu}, "
             "\"termination\": {%s}",
             run->config, run->rank, (long)atomic_load(&run->games_now), o->check_every,
             (long)atomic_load(&run->replays_rejected), secs, (unsigned long long)games,
             (unsigned long long)sc[0], (unsigned long long)sc[1], (unsigned long long)sc[2],
             (unsigned long long)sc[3], (unsigned long long)sc[4], terms);
    int ik = snprintf(
        intro, sizeof intro,
        "Written by `chessvar selfplay`: the %ld %s games this invocation played (seed %llu), each "
        "replayed move by move with its special-rule events counted and one position in %ld "
        "verified "
        "(0: none); %ld replays refused a recorded move. All %llu completed games of the run: "
        "White won "
        "%llu, drawn %llu, Black won %llu, stalemate wins %llu/%llu (White/Black). Termination:",
        (long)atomic_load(&run->games_now), o->game.var->name, (unsigned long long)o->game.seed,
        o->check_every, (long)atomic_load(&run->replays_rejected), (unsigned long long)games,
        (unsigned long long)sc[4], (unsigned long long)sc[2], (unsigned long long)sc[0],
        (unsigned long long)sc[3], (unsigned long long)sc[1]);
    for (int k = 1; k < TERM_COUNT; k++)
        if (term[k])
            ik += snprintf(intro + ik, sizeof intro - (size_t)ik, " %s %llu", game_term_name(k),
                           (unsigned long long)term[k]);
    snprintf(intro + ik, sizeof intro - (size_t)ik, ".");
    bool ok = true;
    for (int k = 0; k < 2 && ok; k++) {
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        if (!f) {
            ok = false;
            break;
        }
        if (k == 0) report_write_json(r, f, meta);
        else report_write_markdown(r, f, "Self-play rule-consistency report", intro);
        fclose(f);
        ok = record_write_text(paths[k], buf, len, &run->err);
        free(buf);
    }
    free(r);
    return ok;
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
    selfplay_config_json(o, run->config, sizeof run->config);
    run->nshards = (uint32_t)((o->games + o->shard_games - 1) / o->shard_games);
    run->shard_lo =
        (uint32_t)((uint64_t)run->nshards * (uint64_t)run->rank / (uint64_t)run->nranks);
    run->shard_hi =
        (uint32_t)((uint64_t)run->nshards * (uint64_t)(run->rank + 1) / (uint64_t)run->nranks);
    run->stats = calloc(run->nshards, sizeof *run->stats);
    run->remaining = calloc(run->nshards, sizeof *run->remaining);
    run->slots = calloc(run->nshards, sizeof *run->slots);
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
        for (uint32_t i = 0; i < run->nshards; i++)
            if (!run->stats[i].done) selfplay_load_stats(run, i);
        ok = selfplay_write_manifest(run, &run->err);
    }
    return ok;
}

bool selfplay_run_go(SelfplayRun *run) {
    const SelfplayPlan *o = run->o;
    bool ok = run->stats && run->remaining && run->slots && (!o->report || run->parts);
    if (!ok) snprintf(run->err.msg, sizeof run->err.msg, "out of memory");
    if (ok && run->rank == 0) ok = selfplay_prepare_dir(run);
    if (run->nranks > 1) {
        int all = run->ranks.bcast_int(ok);
        if (ok && !all) ok = false;
        if (all && run->rank != 0) ok = selfplay_prepare_dir(run);
    }
    for (uint32_t i = 0; ok && i < run->nshards; i++) {
        uint32_t first = i * (uint32_t)o->shard_games, last = first + (uint32_t)o->shard_games;
        if (last > (uint32_t)o->games) last = (uint32_t)o->games;
        atomic_init(&run->remaining[i], (int)(last - first));
        if (o->resume && i >= run->shard_lo && i < run->shard_hi) selfplay_load_stats(run, i);
    }
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
    for (uint32_t i = 0; i < run->nshards; i++) {
        const ShardStats *s = &run->stats[i];
        if (!s->done) continue;
        for (int k = 0; k < SELFPLAY_NSCORE; k++) t->a_by_score[k] += s->a_by_score[k];
        t->games += s->games;
        t->positions += s->positions;
        t->nodes += s->nodes;
        t->a_score += s->a_score;
        for (int k = 0; k < SELFPLAY_NSCORE; k++) t->by_score[k] += s->by_score[k];
        for (int k = 0; k < TERM_COUNT; k++) t->term[k] += s->term[k];
    }
    uint64_t *h = malloc((t->games + 1) * sizeof *h);
    size_t nh = 0;
    for (uint32_t i = 0; h && i < run->nshards; i++)
        for (uint32_t k = 0; run->stats[i].done && k < run->stats[i].games; k++)
            h[nh++] = run->stats[i].hashes[k];
    if (h) qsort(h, nh, sizeof *h, selfplay_cmp_u64);
    for (size_t i = 1; i < nh; i++) t->duplicates += h[i] == h[i - 1];
    free(h);
    t->positions_now = run->sums[0];
    t->nodes_now = run->sums[1];
    t->games_now = run->sums[2];
    t->restarts = (long)atomic_load(&run->restarts);
    t->seconds = run->secs;
    t->report_failures = run->report_failures;
    t->replays_rejected = (long)atomic_load(&run->replays_rejected);
}

bool selfplay_run_report_failed(const SelfplayRun *run) { return run->report_failed; }

void selfplay_run_progress(SelfplayRun *run) { selfplay_progress(run, true); }

const char *selfplay_run_error(const SelfplayRun *run) { return run->err.msg; }

void selfplay_run_free(SelfplayRun *run) {
    if (!run) return;
    for (uint32_t i = 0; run->stats && i < run->nshards; i++) free(run->stats[i].hashes);
    free(run->stats);
    free(run->remaining);
    for (uint32_t i = 0; run->slots && i < run->nshards; i++) { /* shards left open by a failure */
        if (!run->slots[i]) continue;
        for (unsigned k = 0; k < selfplay_shard_games(run->o, i); k++) free(run->slots[i][k]);
        free(run->slots[i]);
    }
    free(run->slots);
    free(run->parts);
    pthread_mutex_destroy(&run->lock_slots);
    pthread_mutex_destroy(&run->lock_manifest);
    pthread_mutex_destroy(&run->lock_progress);
    free(run);
}
