/* selfplay_cmd.c - `chessvar selfplay`: plays many games on all cores (and MPI ranks),
 * writes shards of training data atomically with a manifest, resumes after a kill, and
 * prints progress and a summary. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <omp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../selfplay/check.h"
#include "../selfplay/match.h"
#include "cli.h"
#include "../selfplay/record.h"

#ifdef CHESSVAR_HAVE_MPI
#include <mpi.h>
#endif

#define CMD    "selfplay"
#define NSCORE 5 /* White scores per mille: 0, 250, 500, 750, 1000 */
/* manifest.json is derived from the shards' statistics files: rewriting it after every
 * shard would cost O(shards^2) bytes over a long run, so it is rewritten at most this
 * often while playing, and always at the end */
#define MANIFEST_SECONDS 10.0

/* Options of one run. */
typedef struct SelfplayOpts {
    GameConfig game;
    long games, threads, shard_games;
    int formats;
    const char *out;
    bool resume, json;
    const char *report; /* rule-consistency report (JSON path; Markdown beside it), or NULL */
    long check_every;   /* verify every n-th position of each game in the report (0: none) */
    double progress;    /* seconds between progress lines; 0 = none */
    char formats_text[32];
    char option_text[UCI_MAX_OPTIONS][128];
    UciEngineSpec engine; /* --opponent uci:CMD */
} SelfplayOpts;

/* Totals of one shard, kept in memory and in the shard's .json file. */
typedef struct ShardStats {
    bool done;
    uint32_t games;
    uint64_t positions, nodes;
    uint32_t by_score[NSCORE];
    uint32_t term[TERM_COUNT];
    int64_t a_score;             /* per mille, summed over games, for player A */
    uint32_t a_by_score[NSCORE]; /* player A's games scoring 0, 1/4, 1/2, 3/4, 1 (for Elo) */
    uint64_t *hashes;            /* one per game */
} ShardStats;

/* Shared state of a run: the plan, the shard table and the counters of this invocation. */
typedef struct SelfplayRun {
    const SelfplayOpts *o;
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
    CvError err;
} SelfplayRun;

/* Prints the options of the subcommand. */
static void selfplay_help(FILE *f) {
    fprintf(
        f,
        "usage: chessvar selfplay --variant V --games N --out DIR [options]\n"
        "  --threads T          OpenMP worker threads (default: all cores)\n"
        "  --seed S             run seed; game g uses a stream derived from (S, g) (default 1)\n"
        "  --nodes N | --depth D | --movetime MS  budget per move of player A (default\n"
        "                       --nodes 1000; movetime makes games depend on machine speed)\n"
        "  --opponent SPEC      player B: random, nodes=N, depth=D, movetime=MS or uci:CMD\n"
        "                       (an external UCI engine; default: as player A)\n"
        "  --opponent-budget SPEC  budget of a uci: opponent: nodes=N, depth=D or movetime=MS\n"
        "                       (default: player A's budget)\n"
        "  --opponent-option NAME=VALUE  UCI option for the engine (repeatable)\n"
        "  --opponent-timeout S seconds a uci: opponent may take beyond its movetime before\n"
        "                       it loses the game (default 10; the whole wait without movetime)\n"
        "  --paired             games 2k, 2k+1 play one opening with colours swapped (default\n"
        "                       with a uci: opponent)\n"
        "  --random-plies N     uniformly random moves opening each game (default 4)\n"
        "  --temperature CP     sampling temperature in centipawns, 0 = best move (default 30)\n"
        "  --temp-margin CP     candidates within CP of the best (default 40)\n"
        "  --temp-plies N       temperature applies to the first N plies (default 30)\n"
        "  --start FEN          play every game from FEN (default: the variant's start;\n"
        "                       Superchess: a random prelude array or named start per game)\n"
        "  --fixed-start        always the variant's default start\n"
        "  --ply-cap N          adjudicate a draw at N plies (default 600)\n"
        "  --resign CP,PLIES    a side resigns after PLIES own moves scored <= -CP (default off)\n"
        "  --draw CP,PLIES,MIN  draw after PLIES plies with |score| <= CP, from ply MIN (default "
        "off)\n"
        "  --format LIST        comma list of bin, jsonl, pgn (default bin)\n"
        "  --shard-games N      games per shard file (default 50)\n"
        "  --hash-bits B        transposition table of 2^B entries per player (default 16)\n"
        "  --resume             continue the run in DIR (same options) without losing or\n"
        "                       repeating games\n"
        "  --progress SEC       seconds between progress lines on stderr, 0 = none (default 5)\n"
        "  --json               print the summary as JSON\n"
        "  --report PATH        rule-consistency report of the games played by this\n"
        "                       invocation: PATH (JSON) and PATH with .md (Markdown)\n"
        "  --check-every N      in the report, verify every N-th position of each game\n"
        "                       (invariants of chessvar check; default 20, 0 = events only)\n"
        "MPI: mpirun -np K chessvar selfplay ... gives each rank a disjoint range of shards.\n");
}

/* Parses a player spec: "random", "nodes=N", "depth=D" or "movetime=MS". */
static bool selfplay_parse_player(const char *text, PlayerSpec *p) {
    long v;
    memset(p, 0, sizeof *p);
    if (strcmp(text, "random") == 0) {
        p->kind = PLAYER_RANDOM;
        return true;
    }
    p->kind = PLAYER_SEARCH;
    if (strncmp(text, "movetime=", 9) == 0 &&
        cli_int(CMD, "--opponent movetime", text + 9, 1, 100000000L, &v)) {
        p->movetime_ms = v;
        return true;
    }
    if (strncmp(text, "nodes=", 6) == 0 &&
        cli_int(CMD, "--opponent nodes", text + 6, 1, 1000000000L, &v)) {
        p->nodes = v;
        return true;
    }
    if (strncmp(text, "depth=", 6) == 0 &&
        cli_int(CMD, "--opponent depth", text + 6, 1, SEARCH_MAX_PLY / 2, &v)) {
        p->depth = (int)v;
        return true;
    }
    cli_usage_error(CMD, "needs random, nodes=N, depth=D, movetime=MS or uci:CMD, got '%s'", text);
    return false;
}

/* Name of a player for PGN tags and summaries (no quotes or backslashes: it goes into
 * JSON and PGN as is). */
static void selfplay_player_name(const PlayerSpec *p, char *buf, size_t n) {
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
    } else snprintf(buf, n, "chessvar %s", budget);
}

/* Parses "a,b[,c]" into up to three whole numbers. */
static bool selfplay_parse_list(const char *opt, const char *text, int *out, int want) {
    char buf[64];
    snprintf(buf, sizeof buf, "%s", text);
    char *save = NULL, *tok = strtok_r(buf, ",", &save);
    for (int i = 0; i < want; i++) {
        long v;
        if (!tok || !cli_int(CMD, opt, tok, 0, 100000, &v)) {
            if (!tok)
                cli_usage_error(CMD, "%s needs %d comma-separated numbers, got '%s'", opt, want,
                                text);
            return false;
        }
        out[i] = (int)v;
        tok = strtok_r(NULL, ",", &save);
    }
    return true;
}

/* Parses argv into o; returns 0, or the exit status to return (help or bad input). */
static int selfplay_parse(int argc, char **argv, SelfplayOpts *o) {
    memset(o, 0, sizeof *o);
    GameConfig *g = &o->game;
    const char *variant = NULL, *opponent = NULL, *opponent_budget = NULL, *formats = "bin";
    long v;
    o->games = 100;
    o->threads = omp_get_num_procs();
    o->shard_games = 50;
    o->progress = 5;
    o->check_every = 20;
    g->seed = 1;
    g->random_plies = 4;
    g->temperature = 30;
    g->temp_margin = 40;
    g->temp_plies = 30;
    g->ply_cap = 600;
    g->tt_bits = 16;
    g->random_start = true;
    g->player[0].kind = PLAYER_SEARCH;
    g->player[0].nodes = 1000;
    o->engine.timeout_s = 10;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *val;
#define VALUE()                                                                                    \
    do {                                                                                           \
        if (!(val = cli_value(CMD, argc, argv, &i))) return 2;                                     \
    } while (0)
#define INTOPT(name, lo, hi, dst)                                                                  \
    if (strcmp(a, name) == 0) {                                                                    \
        VALUE();                                                                                   \
        if (!cli_int(CMD, name, val, lo, hi, &v)) return 2;                                        \
        dst = v;                                                                                   \
        continue;                                                                                  \
    }
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            selfplay_help(stdout);
            return -1;
        }
        INTOPT("--games", 1, 2000000000L, o->games)
        INTOPT("--threads", 1, 1024, o->threads)
        INTOPT("--shard-games", 1, 100000, o->shard_games)
        INTOPT("--random-plies", 0, 200, g->random_plies)
        INTOPT("--temperature", 0, 10000, g->temperature)
        INTOPT("--temp-margin", 0, 10000, g->temp_margin)
        INTOPT("--temp-plies", 0, 2000, g->temp_plies)
        INTOPT("--ply-cap", 1, MAX_GAME_PLY - 2 * SEARCH_MAX_PLY - 16, g->ply_cap)
        INTOPT("--hash-bits", 10, 26, g->tt_bits)
        INTOPT("--check-every", 0, 1000000, o->check_every)
        if (strcmp(a, "--seed") == 0) {
            VALUE();
            char *end;
            errno = 0;
            unsigned long long s = strtoull(val, &end, 10);
            if (!*val || *end || errno || *val == '-')
                return cli_usage_error(CMD, "--seed needs a whole number, got '%s'", val);
            g->seed = s;
        } else if (strcmp(a, "--nodes") == 0) {
            VALUE();
            if (!cli_int(CMD, a, val, 1, 1000000000L, &v)) return 2;
            g->player[0].nodes = v;
            g->player[0].depth = 0;
        } else if (strcmp(a, "--depth") == 0) {
            VALUE();
            if (!cli_int(CMD, a, val, 1, SEARCH_MAX_PLY / 2, &v)) return 2;
            g->player[0].depth = (int)v;
            g->player[0].nodes = 0;
        } else if (strcmp(a, "--movetime") == 0) {
            VALUE();
            if (!cli_int(CMD, a, val, 1, 100000000L, &v)) return 2;
            g->player[0].movetime_ms = v;
            g->player[0].depth = 0;
            g->player[0].nodes = 0;
        } else if (strcmp(a, "--opponent-budget") == 0) {
            VALUE();
            opponent_budget = val;
        } else if (strcmp(a, "--opponent-option") == 0) {
            VALUE();
            const char *eq = strchr(val, '=');
            UciEngineSpec *e = &o->engine;
            if (!eq || eq == val)
                return cli_usage_error(CMD, "--opponent-option needs NAME=VALUE, got '%s'", val);
            if (e->noptions == UCI_MAX_OPTIONS)
                return cli_usage_error(CMD, "at most %d --opponent-option", UCI_MAX_OPTIONS);
            char *name = o->option_text[e->noptions];
            snprintf(name, sizeof o->option_text[0], "%s", val);
            name[eq - val] = 0;
            e->option_name[e->noptions] = name;
            e->option_value[e->noptions++] = name + (eq - val) + 1;
        } else if (strcmp(a, "--opponent-timeout") == 0) {
            VALUE();
            if (!cli_int(CMD, a, val, 1, 100000, &v)) return 2;
            o->engine.timeout_s = (double)v;
        } else if (strcmp(a, "--paired") == 0) {
            g->paired = true;
        } else if (strcmp(a, "--variant") == 0) {
            VALUE();
            variant = val;
        } else if (strcmp(a, "--opponent") == 0) {
            VALUE();
            opponent = val;
        } else if (strcmp(a, "--start") == 0) {
            VALUE();
            g->start_fen = val;
        } else if (strcmp(a, "--fixed-start") == 0) {
            g->random_start = false;
        } else if (strcmp(a, "--out") == 0) {
            VALUE();
            o->out = val;
        } else if (strcmp(a, "--format") == 0) {
            VALUE();
            formats = val;
        } else if (strcmp(a, "--resign") == 0) {
            VALUE();
            int x[2];
            if (!selfplay_parse_list(a, val, x, 2)) return 2;
            g->resign_score = x[0];
            g->resign_plies = x[1];
        } else if (strcmp(a, "--draw") == 0) {
            VALUE();
            int x[3];
            if (!selfplay_parse_list(a, val, x, 3)) return 2;
            g->draw_score = x[0];
            g->draw_plies = x[1];
            g->draw_min_ply = x[2];
        } else if (strcmp(a, "--progress") == 0) {
            VALUE();
            if (!cli_int(CMD, a, val, 0, 100000, &v)) return 2;
            o->progress = (double)v;
        } else if (strcmp(a, "--resume") == 0) {
            o->resume = true;
        } else if (strcmp(a, "--report") == 0) {
            VALUE();
            o->report = val;
        } else if (strcmp(a, "--json") == 0) {
            o->json = true;
        } else {
            return cli_usage_error(CMD, "unknown option '%s' (chessvar selfplay --help lists them)",
                                   a);
        }
#undef INTOPT
#undef VALUE
    }
    if (!(g->var = cli_variant(CMD, variant))) return 2;
    if (!o->out) return cli_usage_error(CMD, "--out DIR is required");
    g->player[1] = g->player[0];
    if (opponent && strncmp(opponent, "uci:", 4) == 0) {
        if (!opponent[4]) return cli_usage_error(CMD, "--opponent uci: needs the engine's command");
        o->engine.cmd = opponent + 4;
        g->player[1].kind = PLAYER_UCI;
        g->player[1].uci = &o->engine;
        g->paired = true;
        if (opponent_budget) {
            PlayerSpec b;
            if (!selfplay_parse_player(opponent_budget, &b)) return 2;
            if (b.kind != PLAYER_SEARCH)
                return cli_usage_error(CMD,
                                       "--opponent-budget needs nodes=N, depth=D or movetime=MS");
            g->player[1].nodes = b.nodes;
            g->player[1].depth = b.depth;
            g->player[1].movetime_ms = b.movetime_ms;
        }
    } else if (opponent && !selfplay_parse_player(opponent, &g->player[1])) return 2;
    else if (opponent_budget || o->engine.noptions)
        return cli_usage_error(CMD,
                               "--opponent-budget and --opponent-option need --opponent uci:CMD");
    char fbuf[64];
    snprintf(fbuf, sizeof fbuf, "%s", formats);
    char *save = NULL;
    for (char *t = strtok_r(fbuf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        if (strcmp(t, "bin") == 0) o->formats |= FORMAT_BIN;
        else if (strcmp(t, "jsonl") == 0) o->formats |= FORMAT_JSONL;
        else if (strcmp(t, "pgn") == 0) o->formats |= FORMAT_PGN;
        else
            return cli_usage_error(CMD,
                                   "--format takes bin, jsonl, pgn (comma-separated), got '%s'", t);
    }
    snprintf(o->formats_text, sizeof o->formats_text, "%s%s%s",
             (o->formats & FORMAT_BIN) ? "bin," : "", (o->formats & FORMAT_JSONL) ? "jsonl," : "",
             (o->formats & FORMAT_PGN) ? "pgn," : "");
    o->formats_text[strlen(o->formats_text) - 1] = 0;
    if (g->start_fen) {
        Position *p = malloc(sizeof *p);
        CvError err = {{0}};
        bool ok = p && pos_from_fen(p, g->var, g->start_fen, &err);
        free(p);
        if (!ok) return cli_usage_error(CMD, "--start: %s", err.msg);
    }
    return 0;
}

/* The configuration that decides the games, as one line of JSON (threads excluded). */
static void selfplay_config_json(const SelfplayOpts *o, char *buf, size_t n) {
    const GameConfig *g = &o->game;
    char a[160], b[160];
    selfplay_player_name(&g->player[0], a, sizeof a);
    selfplay_player_name(&g->player[1], b, sizeof b);
    int k = snprintf(
        buf, n,
        "{\"variant\":\"%s\",\"games\":%ld,\"seed\":%llu,\"shard_games\":%ld,\"format\":\"%s\","
        "\"player_a\":\"%s\",\"player_b\":\"%s\",\"random_plies\":%d,\"temperature\":%d,"
        "\"temp_margin\":%d,\"temp_plies\":%d,\"ply_cap\":%d,\"resign\":[%d,%d],\"draw\":[%d,%d,%d]"
        ","
        "\"hash_bits\":%d,\"random_start\":%s,\"start\":",
        g->var->name, o->games, (unsigned long long)g->seed, o->shard_games, o->formats_text, a, b,
        g->random_plies, g->temperature, g->temp_margin, g->temp_plies, g->ply_cap, g->resign_score,
        g->resign_plies, g->draw_score, g->draw_plies, g->draw_min_ply, g->tt_bits,
        g->random_start ? "true" : "false");
    if (g->start_fen) snprintf(buf + k, n - (size_t)k, "\"%s\"}", g->start_fen);
    else snprintf(buf + k, n - (size_t)k, "null}");
}

/* Number of games in shard k: shard_games, fewer in the last one. */
static unsigned selfplay_shard_games(const SelfplayOpts *o, uint32_t k) {
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
    static const char *const ext[3] = {"bin", "jsonl", "pgn"};
    for (int i = 0; i < 3; i++) {
        if (!(run->o->formats & (1 << i))) continue;
        record_shard_name(path, sizeof path, run->o->out, shard, ext[i]);
        if (access(path, R_OK) != 0) return false;
    }
    record_shard_name(path, sizeof path, run->o->out, shard, "json");
    FILE *f = fopen(path, "r");
    if (!f) return false;
    ShardStats *s = &run->stats[shard];
    unsigned sh, games, sc[NSCORE], asc[NSCORE], term[TERM_COUNT];
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
    double now = cli_now();
    if (run->o->progress <= 0 || (!force && now - run->last_progress < run->o->progress)) return;
    run->last_progress = now;
    long g = atomic_load(&run->games_now), p = atomic_load(&run->positions_now);
    double el = now - run->t0, rate = el > 0 ? (double)p / el : 0;
    double eta = g > 0 ? el * (double)(run->games_todo - g) / (double)g : 0;
    fprintf(stderr, "selfplay %s: %ld/%ld games, %ld positions, %.0f positions/s, ETA %.0f s\n",
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
    const SelfplayOpts *o = run->o;
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
        double now = cli_now();
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
    const SelfplayOpts *o = run->o;
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
    const SelfplayOpts *o = run->o;
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
    const SelfplayOpts *o = run->o;
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
    uint64_t term[TERM_COUNT] = {0}, sc[NSCORE] = {0}, games = 0;
    for (uint32_t i = run->shard_lo; i < run->shard_hi; i++)
        if (run->stats[i].done) {
            games += run->stats[i].games;
            for (int k = 0; k < TERM_COUNT; k++) term[k] += run->stats[i].term[k];
            for (int k = 0; k < NSCORE; k++) sc[k] += run->stats[i].by_score[k];
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

/* Prints the summary of every completed shard (all ranks) and this invocation's speed. */
static void selfplay_summary(const SelfplayRun *run, double secs, long positions, long nodes,
                             long games_now) {
    const SelfplayOpts *o = run->o;
    uint64_t games = 0, pos = 0, gnodes = 0, dup = 0;
    uint64_t sc[NSCORE] = {0}, term[TERM_COUNT] = {0};
    int64_t a_score = 0;
    uint32_t asc[NSCORE] = {0};
    for (uint32_t i = 0; i < run->nshards; i++) {
        const ShardStats *s = &run->stats[i];
        if (!s->done) continue;
        for (int k = 0; k < NSCORE; k++) asc[k] += s->a_by_score[k];
        games += s->games;
        pos += s->positions;
        gnodes += s->nodes;
        a_score += s->a_score;
        for (int k = 0; k < NSCORE; k++) sc[k] += s->by_score[k];
        for (int k = 0; k < TERM_COUNT; k++) term[k] += s->term[k];
    }
    uint64_t *h = malloc((games + 1) * sizeof *h);
    size_t nh = 0;
    for (uint32_t i = 0; h && i < run->nshards; i++)
        for (uint32_t k = 0; run->stats[i].done && k < run->stats[i].games; k++)
            h[nh++] = run->stats[i].hashes[k];
    if (h) qsort(h, nh, sizeof *h, selfplay_cmp_u64);
    for (size_t i = 1; i < nh; i++) dup += h[i] == h[i - 1];
    free(h);
    double g = games ? (double)games : 1;
    double white =
        ((double)sc[4] + 0.75 * (double)sc[3] + 0.5 * (double)sc[2] + 0.25 * (double)sc[1]) / g;
    double pps = secs > 0 ? (double)positions / secs : 0, nps = secs > 0 ? (double)nodes / secs : 0;
    char a[160], b[160];
    selfplay_player_name(&o->game.player[0], a, sizeof a);
    selfplay_player_name(&o->game.player[1], b, sizeof b);
    MatchElo elo = match_elo(asc);
    if (o->json) {
        printf(
            "{\"variant\":\"%s\",\"threads\":%ld,\"ranks\":%d,\"games\":%llu,\"games_this_run\":%"
            "ld,"
            "\"positions\":%llu,\"search_nodes\":%llu,\"seconds\":%.3f,\"positions_this_run\":%ld,"
            "\"positions_per_second\":%.1f,\"nodes_per_second\":%.1f,\"avg_plies\":%.2f,"
            "\"white_score\":%.4f,\"player_a\":\"%s\",\"player_b\":\"%s\",\"a_score\":%.4f,"
            "\"a_wins\":%u,\"a_draws\":%u,\"a_losses\":%u,\"a_score_counts\":[%u,%u,%u,%u,%u],"
            "\"elo\":%.1f,\"elo_95\":[%.1f,%.1f],\"engine_restarts\":%ld,"
            "\"duplicates\":%llu,\"duplicate_rate\":%.4f,\"white_score_counts\":{\"0\":%llu,"
            "\"250\":%llu,"
            "\"500\":%llu,\"750\":%llu,\"1000\":%llu},\"termination\":{",
            o->game.var->name, o->threads, run->nranks, (unsigned long long)games, games_now,
            (unsigned long long)pos, (unsigned long long)gnodes, secs, positions, pps, nps,
            (double)pos / g, white, a, b, (double)a_score / 1000.0 / g, asc[4] + asc[3], asc[2],
            asc[1] + asc[0], asc[0], asc[1], asc[2], asc[3], asc[4], elo.elo, elo.elo_lo,
            elo.elo_hi, (long)atomic_load(&run->restarts), (unsigned long long)dup, (double)dup / g,
            (unsigned long long)sc[0], (unsigned long long)sc[1], (unsigned long long)sc[2],
            (unsigned long long)sc[3], (unsigned long long)sc[4]);
        for (int k = 1; k < TERM_COUNT; k++)
            printf("%s\"%s\":%llu", k > 1 ? "," : "", game_term_name(k),
                   (unsigned long long)term[k]);
        printf("}}\n");
        return;
    }
    printf("selfplay %s: %llu games (%ld this run, %ld threads, %d ranks), %llu positions\n",
           o->game.var->name, (unsigned long long)games, games_now, o->threads, run->nranks,
           (unsigned long long)pos);
    printf("results: White won %llu, drawn %llu, Black won %llu, stalemate wins %llu/%llu (W/B); "
           "White score %.1f%%\n",
           (unsigned long long)sc[4], (unsigned long long)sc[2], (unsigned long long)sc[0],
           (unsigned long long)sc[3], (unsigned long long)sc[1], 100 * white);
    printf("players: A = %s, B = %s; A scored %.1f%% (+%u =%u -%u), Elo %+.0f, 95%% interval "
           "[%+.0f, %+.0f]\n",
           a, b, 100.0 * (double)a_score / 1000.0 / g, asc[4] + asc[3], asc[2], asc[1] + asc[0],
           elo.elo, elo.elo_lo, elo.elo_hi);
    if (atomic_load(&run->restarts))
        printf("engine restarts: %ld (failures are in the termination counts)\n",
               (long)atomic_load(&run->restarts));
    printf("termination:");
    for (int k = 1; k < TERM_COUNT; k++)
        if (term[k]) printf(" %s %llu", game_term_name(k), (unsigned long long)term[k]);
    printf("\naverage length %.1f plies; duplicate games %llu (%.2f%%)\n", (double)pos / g,
           (unsigned long long)dup, 100.0 * (double)dup / g);
    printf("speed: %ld positions in %.2f s = %.0f positions/s, %.0f search nodes/s\n", positions,
           secs, pps, nps);
}

/* Starts the uci: opponent once before the run, so a wrong command is a usage error and
 * not a run of forfeited games; prints the engine's last lines on failure. */
static bool selfplay_try_engine(const SelfplayOpts *o) {
    UciProc *p = calloc(1, sizeof *p);
    CvError err = {{0}};
    bool ok = p && match_engine_start(p, &o->engine, o->game.var, &err);
    if (p && !ok) {
        char tail[2048];
        uci_tail(p, tail, sizeof tail);
        cli_usage_error(CMD, "--opponent: %s; its last lines:\n%s", err.msg, tail);
    }
    if (p) uci_quit(p, 1.0);
    free(p);
    return ok;
}

/* The selfplay subcommand: plan, resume, play, write, summarise; exit 0, 1 (failure or report
 * findings) or 2 (bad input). */
int cmd_selfplay(int argc, char **argv) {
    SelfplayOpts o;
    int rc = selfplay_parse(argc, argv, &o);
    if (rc) return rc < 0 ? 0 : rc;
    if (o.game.player[1].kind == PLAYER_UCI && !selfplay_try_engine(&o)) return 2;
    SelfplayRun *run = calloc(1, sizeof *run);
    run->o = &o;
    run->nranks = 1;
    pthread_mutex_init(&run->lock_slots, NULL);
    pthread_mutex_init(&run->lock_manifest, NULL);
    pthread_mutex_init(&run->lock_progress, NULL);
#ifdef CHESSVAR_HAVE_MPI
    bool mpi = getenv("OMPI_COMM_WORLD_SIZE") || getenv("PMI_SIZE");
    if (mpi) {
        int provided;
        MPI_Init_thread(NULL, NULL, MPI_THREAD_FUNNELED, &provided);
        MPI_Comm_rank(MPI_COMM_WORLD, &run->rank);
        MPI_Comm_size(MPI_COMM_WORLD, &run->nranks);
    }
#endif
    selfplay_config_json(&o, run->config, sizeof run->config);
    run->nshards = (uint32_t)((o.games + o.shard_games - 1) / o.shard_games);
    run->shard_lo =
        (uint32_t)((uint64_t)run->nshards * (uint64_t)run->rank / (uint64_t)run->nranks);
    run->shard_hi =
        (uint32_t)((uint64_t)run->nshards * (uint64_t)(run->rank + 1) / (uint64_t)run->nranks);
    run->stats = calloc(run->nshards, sizeof *run->stats);
    run->remaining = calloc(run->nshards, sizeof *run->remaining);
    run->slots = calloc(run->nshards, sizeof *run->slots);
    if (o.report) run->parts = calloc((size_t)o.threads, sizeof *run->parts);
    bool ok = run->stats && run->remaining && run->slots && (!o.report || run->parts);
    for (long t = 0; run->parts && t < o.threads; t++) report_init(&run->parts[t]);
    if (!ok) snprintf(run->err.msg, sizeof run->err.msg, "out of memory");
    if (ok && run->rank == 0) ok = selfplay_prepare_dir(run);
#ifdef CHESSVAR_HAVE_MPI
    if (mpi) {
        int all = ok;
        MPI_Bcast(&all, 1, MPI_INT, 0, MPI_COMM_WORLD);
        if (ok && !all) ok = false;
        if (all && run->rank != 0) ok = selfplay_prepare_dir(run);
    }
#endif
    for (uint32_t i = 0; ok && i < run->nshards; i++) {
        uint32_t first = i * (uint32_t)o.shard_games, last = first + (uint32_t)o.shard_games;
        if (last > (uint32_t)o.games) last = (uint32_t)o.games;
        atomic_init(&run->remaining[i], (int)(last - first));
        if (o.resume && i >= run->shard_lo && i < run->shard_hi) selfplay_load_stats(run, i);
    }
    if (ok) {
        run->t0 = run->last_progress = cli_now();
        selfplay_play(run);
        ok = !atomic_load(&run->failed);
        if (ok && run->nranks == 1) ok = selfplay_write_manifest(run, &run->err);
    }
    double secs = cli_now() - run->t0;
    long positions = atomic_load(&run->positions_now), nodes = atomic_load(&run->nodes_now);
    long games_now = atomic_load(&run->games_now);
#ifdef CHESSVAR_HAVE_MPI
    if (mpi) {
        long mine[3] = {positions, nodes, games_now}, sum[3];
        int okall = ok, okmin;
        MPI_Allreduce(mine, sum, 3, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
        MPI_Allreduce(&okall, &okmin, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
        positions = sum[0];
        nodes = sum[1];
        games_now = sum[2];
        double mx;
        MPI_Allreduce(&secs, &mx, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        secs = mx;
        if (ok && !okmin && run->rank == 0)
            snprintf(run->err.msg, sizeof run->err.msg, "another rank failed");
        ok = okmin;
        if (ok && run->rank == 0) {
            for (uint32_t i = 0; i < run->nshards; i++)
                if (!run->stats[i].done) selfplay_load_stats(run, i);
            ok = selfplay_write_manifest(run, &run->err);
        }
    }
#endif
    uint64_t report_failures_found = 0;
    bool report_ok = true;
    if (ok && o.report) report_ok = selfplay_write_report(run, secs, &report_failures_found);
    if (ok && run->rank == 0) {
        if (o.progress > 0 && secs >= o.progress) selfplay_progress(run, true);
        selfplay_summary(run, secs, positions, nodes, games_now);
    }
    if (ok && o.report) {
        long rejected = (long)atomic_load(&run->replays_rejected);
        if (!report_ok) fprintf(stderr, "chessvar selfplay: report: %s\n", run->err.msg);
        else if (report_failures_found || rejected)
            fprintf(stderr,
                    "chessvar selfplay: the report lists %llu invariant failures and %ld refused "
                    "replays\n",
                    (unsigned long long)report_failures_found, rejected);
        run->err.msg[0] = 0;
        ok = report_ok && report_failures_found == 0 && rejected == 0;
    }
    if (!ok && run->err.msg[0]) fprintf(stderr, "chessvar selfplay: %s\n", run->err.msg);
    for (uint32_t i = 0; run->stats && i < run->nshards; i++) free(run->stats[i].hashes);
    free(run->stats);
    free(run->remaining);
    for (uint32_t i = 0; run->slots && i < run->nshards; i++) { /* shards left open by a failure */
        if (!run->slots[i]) continue;
        for (unsigned k = 0; k < selfplay_shard_games(&o, i); k++) free(run->slots[i][k]);
        free(run->slots[i]);
    }
    free(run->slots);
    free(run->parts);
    pthread_mutex_destroy(&run->lock_slots);
    pthread_mutex_destroy(&run->lock_manifest);
    pthread_mutex_destroy(&run->lock_progress);
    free(run);
#ifdef CHESSVAR_HAVE_MPI
    if (mpi) MPI_Finalize();
#endif
    return ok ? 0 : 1;
}
