/* bench_cmd.c - `chessvar bench`: the fixed workload of bench/bench.txt (perft of every
 * variant, serial and threaded) plus a short fixed-seed self-play, printing speed and a
 * deterministic signature (total nodes and a hash of the self-play games). */
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "../selfplay/games/game.h"
#include "../bench/harness.h"
#include "cli.h"

extern const char chessvar_bench_text[];

/* Self-play part: games per variant, search nodes per move, random opening plies. */
enum { BENCH_GAMES = 2, BENCH_NODES = 400, BENCH_RANDOM_PLIES = 4, BENCH_PLY_CAP = 120 };

/* Plays the fixed self-play games of one variant, both players evaluating with net (NULL:
 * the classical evaluation); returns the hash of their records. */
static uint64_t bench_selfplay(const Variant *v, const Network *net, int64_t *positions,
                               int *status) {
    GameConfig cfg = {0};
    cfg.var = v;
    cfg.seed = 20261129;
    cfg.random_plies = BENCH_RANDOM_PLIES;
    cfg.ply_cap = BENCH_PLY_CAP;
    cfg.player[0].kind = cfg.player[1].kind = PLAYER_SEARCH;
    cfg.player[0].nodes = cfg.player[1].nodes = BENCH_NODES;
    cfg.player[0].net = cfg.player[1].net = net;
    cfg.tt_bits = 16;
    GamePlayer *gp = malloc(sizeof *gp);
    Game *g = malloc(game_size(MAX_GAME_PLY));
    XXH3_state_t *st = XXH3_createState();
    XXH3_64bits_reset(st);
    if (!game_player_init(gp, &cfg)) {
        fprintf(stderr, "chessvar bench: out of memory for the self-play search\n");
        *status = 2;
    } else {
        for (uint32_t id = 0; id < BENCH_GAMES; id++) {
            CvError err = {{0}};
            if (!game_play(gp, &cfg, id, g, &err)) {
                fprintf(stderr, "chessvar bench: self-play %s game %u: %s\n", v->name, id, err.msg);
                *status = 1;
                break;
            }
            XXH3_64bits_update(st, &g->hash, sizeof g->hash);
            XXH3_64bits_update(st, &g->termination, sizeof g->termination);
            XXH3_64bits_update(st, &g->white_score, sizeof g->white_score);
            for (int i = 0; i < g->nply; i++) {
                uint32_t rec[3] = {g->ply[i].played, g->ply[i].best,
                                   (uint32_t)(uint16_t)g->ply[i].score};
                XXH3_64bits_update(st, rec, sizeof rec);
            }
            *positions += g->nply;
        }
        game_player_free(gp);
    }
    uint64_t h = XXH3_64bits_digest(st);
    XXH3_freeState(st);
    free(g);
    free(gp);
    return h;
}

/* Loads the network file of --eval for the variant it was made for (its header names it);
 * NULL after a one-line message. */
static Network *bench_load_eval(const char *path, const Variant **var) {
    CvError first = {{0}};
    for (int i = 0; i < variant_count(); i++) {
        CvError err = {{0}};
        Network *net = nnue_load(path, variant_at(i), &err);
        if (net) {
            *var = variant_at(i);
            return net;
        }
        if (i == 0) first = err;
        if (!strstr(err.msg, "a network for variant")) { /* not a mismatch: the file is bad */
            cli_usage_error("bench", "--eval: %s", err.msg);
            return NULL;
        }
    }
    cli_usage_error("bench", "--eval: %s", first.msg);
    return NULL;
}

int cmd_bench(int argc, char **argv) {
    long threads = omp_get_num_procs();
    bool json = false;
    const char *check = NULL, *eval = NULL;
    char usage[1024];
    snprintf(usage, sizeof usage,
             "usage: chessvar bench [--threads N] [--json] [--check FILE]\n\n"
             "Runs the fixed workload compiled in from bench/bench.txt: perft of chosen positions "
             "of\n"
             "every variant, once on 1 thread and once on N threads (default: all cores), then %d\n"
             "fixed-seed self-play games per variant (%d nodes per move). Prints nodes, time and\n"
             "nodes/s per line and a final signature: the total perft nodes and an XXH3 hash of "
             "the\n"
             "self-play games. The signature does not depend on the thread count or the machine.\n",
             BENCH_GAMES, BENCH_NODES);
    const CliOpt opts[] = {
        CLI_OPT_LONG("--threads", "N", 1, 1024, &threads, "threads for the threaded runs"),
        CLI_OPT_FLAG("--json", &json, "one JSON object per line and a final summary object"),
        CLI_OPT_TEXT("--check", "FILE", &check,
                     "compare the signature with the one recorded in FILE; exit 1 if it differs"),
        CLI_OPT_TEXT("--eval", "FILE", &eval,
                     "the self-play of the network's variant evaluates with the network in\n"
                     "FILE (the signature then differs from the classical one)"),
    };
    const CliSpec spec = {
        .cmd = "bench", .usage = usage, .opts = opts, .nopts = (int)(sizeof opts / sizeof opts[0])};
    int rc = cli_parse(&spec, argc, argv);
    if (rc >= 0) return rc;
    const Variant *net_var = NULL;
    Network *net = eval ? bench_load_eval(eval, &net_var) : NULL;
    if (eval && !net) return 2;
    char expected[128] = "";
    if (check) {
        FILE *f = fopen(check, "r");
        if (!f || !fgets(expected, sizeof expected, f)) {
            nnue_free(net);
            return cli_usage_error("bench", "cannot read a signature from '%s'", check);
        }
        fclose(f);
        expected[strcspn(expected, "\r\n")] = 0;
    }
    Position *pos = malloc(sizeof *pos);
    uint64_t total = 0;
    double serial_s = 0, threaded_s = 0;
    int status = 0, lineno = 0;
    const char *line = chessvar_bench_text;
    while (*line && !status) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        char buf[512], vname[32];
        int depth, off;
        snprintf(buf, sizeof buf, "%.*s", (int)len, line);
        line = end ? end + 1 : line + len;
        lineno++;
        if (!buf[0] || buf[0] == '#') continue;
        CvError err = {{0}};
        const Variant *v;
        if (sscanf(buf, "%31s %d %n", vname, &depth, &off) != 2 || !(v = variant_by_name(vname)) ||
            !pos_from_fen(pos, v, buf + off, &err)) {
            fprintf(stderr, "chessvar bench: workload line %d is bad: %s %s\n", lineno, buf,
                    err.msg);
            status = 2;
            break;
        }
        PerftConfig c1 = {.threads = 1}, cn = {.threads = (int)threads};
        double t0 = cli_now();
        PerftResult r1 = perft_run(pos, depth, &c1);
        double t1 = cli_now();
        PerftResult rn = perft_run(pos, depth, &cn);
        double t2 = cli_now();
        serial_s += t1 - t0;
        threaded_s += t2 - t1;
        total += r1.nodes;
        if (r1.nodes != rn.nodes) {
            fprintf(stderr, "chessvar bench: %s depth %d: serial %llu != threaded %llu nodes\n",
                    v->name, depth, (unsigned long long)r1.nodes, (unsigned long long)rn.nodes);
            status = 1;
        }
        if (json) {
            printf("{\"variant\":\"%s\",\"depth\":%d,\"fen\":", v->name, depth);
            cli_json_str(stdout, buf + off);
            printf(",\"nodes\":%llu,\"serial_seconds\":%.6f,\"serial_nps\":%.0f,\"threads\":%ld,"
                   "\"threaded_seconds\":%.6f,"
                   "\"threaded_nps\":%.0f}\n",
                   (unsigned long long)r1.nodes, t1 - t0, (double)r1.nodes / (t1 - t0), threads,
                   t2 - t1, (double)rn.nodes / (t2 - t1));
        } else {
            printf("%-10s d%d %12llu nodes   1 thread %7.3f s %8.1f Mn/s   %ld threads %7.3f s "
                   "%8.1f Mn/s\n",
                   v->name, depth, (unsigned long long)r1.nodes, t1 - t0,
                   (double)r1.nodes / (t1 - t0) / 1e6, threads, t2 - t1,
                   (double)rn.nodes / (t2 - t1) / 1e6);
        }
        fflush(stdout);
    }
    free(pos);
    if (status) {
        nnue_free(net);
        return status;
    }
    /* self-play: same games on every machine and thread count */
    XXH3_state_t *st = XXH3_createState();
    XXH3_64bits_reset(st);
    int64_t positions = 0;
    double s0 = cli_now();
    for (int i = 0; i < variant_count() && !status; i++) {
        const Variant *v = variant_at(i);
        uint64_t h = bench_selfplay(v, v == net_var ? net : NULL, &positions, &status);
        XXH3_64bits_update(st, &h, sizeof h);
    }
    nnue_free(net);
    double sp_s = cli_now() - s0;
    uint64_t sp_hash = XXH3_64bits_digest(st);
    XXH3_freeState(st);
    if (status) return status;
    char sig[128];
    snprintf(sig, sizeof sig, "nodes %llu selfplay %016llx", (unsigned long long)total,
             (unsigned long long)sp_hash);
    if (json) {
        printf("{\"summary\":true,\"nodes\":%llu,\"serial_seconds\":%.3f,\"serial_nps\":%.0f,"
               "\"threaded_seconds\":%.3f,"
               "\"threaded_nps\":%.0f,\"threads\":%ld,\"selfplay_positions\":%lld,\"selfplay_"
               "seconds\":%.3f,"
               "\"signature\":\"%s\"}\n",
               (unsigned long long)total, serial_s, (double)total / serial_s, threaded_s,
               (double)total / threaded_s, threads, (long long)positions, sp_s, sig);
    } else {
        printf("\nperft: %llu nodes, 1 thread %.2f s (%.1f Mn/s), %ld threads %.2f s (%.1f Mn/s)\n",
               (unsigned long long)total, serial_s, (double)total / serial_s / 1e6, threads,
               threaded_s, (double)total / threaded_s / 1e6);
        printf("self-play: %lld positions in %.2f s (%.0f positions/s)\n", (long long)positions,
               sp_s, (double)positions / sp_s);
        printf("signature: %s\n", sig);
    }
    if (check && strcmp(sig, expected) != 0) {
        fprintf(stderr, "chessvar bench: signature '%s' differs from the recorded '%s' (%s)\n", sig,
                expected, check);
        return 1;
    }
    return 0;
}
