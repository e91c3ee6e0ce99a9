/* perft_cmd.c - `chessvar perft`: counts on all cores (OpenMP), with a shared hash,
 * across machines (MPI), with divide, leaf fingerprints, JSON lines and progress. */
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "../bench/checkpoint.h"
#include "mpi_start.h"

typedef struct PerftOptions {
    const char *fen, *start, *checkpoint;
    long depth, threads, hash_mb;
    double checkpoint_sync;
    bool divide, json, all, reference, fingerprint, quiet, mpi;
} PerftOptions;

typedef struct Progress {
    double start, last;
    bool enabled, shown;
    int resumed;            /* units taken from a checkpoint */
    uint64_t resumed_nodes; /* and their nodes */
} Progress;

/* Progress on stderr for runs over 2 s: units done (resumed ones included), nodes, speed
 * and estimated time left (from this run's units only). */
static void progress_print(void *ctx, int done, int total, uint64_t nodes) {
    Progress *pr = ctx;
    double now = cli_now(), el = now - pr->start;
    if (!pr->enabled || el < 2.0 || (now - pr->last < 0.5 && done < total)) return;
    pr->last = now;
    pr->shown = true;
    int counted = done - pr->resumed;
    double eta = counted > 0 ? el * (total - done) / counted : 0;
    fprintf(stderr, "\r[perft] %d/%d units", done, total);
    if (pr->resumed) fprintf(stderr, " (%d resumed)", pr->resumed);
    fprintf(stderr, "  %llu nodes  %.1f Mnodes/s  ETA %.0f s   ", (unsigned long long)nodes,
            (double)(nodes - pr->resumed_nodes) / el / 1e6, eta);
    fflush(stderr);
}

/* Prints one result line, plain or JSON. */
static void print_result(const PerftOptions *o, const Variant *v, const char *fen, long depth,
                         PerftResult r, double secs, int threads, int ranks, const Progress *pr) {
    /* a resumed run's speed counts only the nodes it counted itself */
    double nps = secs > 0 ? (double)(r.nodes - pr->resumed_nodes) / secs : 0;
    if (o->json) {
        printf("{\"variant\":\"%s\",\"fen\":", v->name);
        cli_json_str(stdout, fen);
        printf(",\"depth\":%ld,\"nodes\":%llu", depth, (unsigned long long)r.nodes);
        if (o->fingerprint)
            printf(",\"fingerprint\":\"%016llx\"", (unsigned long long)r.fingerprint);
        printf(",\"seconds\":%.6f,\"nps\":%.0f,\"threads\":%d,\"hash_mb\":%ld,\"ranks\":%d", secs,
               nps, threads, o->hash_mb, ranks);
        if (o->checkpoint) printf(",\"resumed_units\":%d", pr->resumed);
        printf("%s}\n", o->reference ? ",\"reference\":true" : "");
    } else {
        if (o->divide) printf("\n");
        printf("%s depth %ld: %llu nodes", v->name, depth, (unsigned long long)r.nodes);
        if (o->fingerprint) printf("  fingerprint %016llx", (unsigned long long)r.fingerprint);
        printf(" in %.3f s (%.2f Mnodes/s)\n", secs, nps / 1e6);
    }
    fflush(stdout);
}

/* Prints one divide line. */
static void print_divide(const PerftOptions *o, const char *ms, PerftResult r) {
    if (o->json) {
        printf("{\"move\":");
        cli_json_str(stdout, ms);
        printf(",\"nodes\":%llu", (unsigned long long)r.nodes);
        if (o->fingerprint)
            printf(",\"fingerprint\":\"%016llx\"", (unsigned long long)r.fingerprint);
        printf("}\n");
    } else if (o->fingerprint) {
        printf("%s: %llu  %016llx\n", ms, (unsigned long long)r.nodes,
               (unsigned long long)r.fingerprint);
    } else {
        printf("%s: %llu\n", ms, (unsigned long long)r.nodes);
    }
}

/* The one divide loop: one line per root move with its count and the sum of them. The
 * counts come from per-unit results when the tree was split into units below the root
 * moves (nu > 0), else each root move is counted here: with the reference generator under
 * --reference, else with cfg's threads and hash. */
static PerftResult perft_divide(const PerftOptions *o, Position *pos, int depth,
                                const PerftConfig *cfg, const PerftUnit *units,
                                const PerftResult *res, int nu) {
    PerftConfig c = *cfg;
    c.unit_done = NULL;
    if (units) c.progress = NULL;
    Move list[MAX_MOVES];
    char ms[24];
    int n = o->reference ? pos_reference_moves(pos, list) : pos_legal_moves(pos, list);
    bool split = nu > 0 && units[0].len > 0;
    PerftResult total = {0, 0};
    for (int i = 0; i < n; i++) {
        PerftResult r = {0, 0};
        for (int k = 0; split && k < nu; k++)
            if (units[k].path[0] == list[i]) {
                r.nodes += res[k].nodes;
                r.fingerprint += res[k].fingerprint;
            }
        if (!split) {
            pos_make(pos, list[i]);
            r = o->reference ? perft_reference_fp(pos, depth - 1, o->fingerprint)
                             : perft_run(pos, depth - 1, &c);
            pos_unmake(pos);
        }
        total.nodes += r.nodes;
        total.fingerprint += r.fingerprint;
        move_to_str(pos, list[i], ms);
        print_divide(o, ms, r);
    }
    return total;
}

/* Counts over a checkpoint file that rank 0 owns (other MPI ranks only count): finished
 * units come from the file, the others are counted and appended. Returns the exit status. */
static int perft_checkpointed(const PerftOptions *o, Position *pos, int depth, int ranks,
                              PerftConfig *cfg, Progress *pr, PerftResult *total) {
    PerftCheckpoint *ck = NULL;
    const PerftUnit *units = NULL;
    PerftResult *res = NULL;
    bool *done = NULL;
    int n = 0;
    char err[1280];
    if (cli_mpi_rank() == 0) {
        ck = ckpt_open(o->checkpoint, pos, depth, o->fingerprint, err, sizeof err);
        if (!ck) {
            fprintf(stderr, "chessvar perft: %s\n", err);
            if (ranks > 1) mpi_perft_units(pos, depth, NULL, 0, NULL, NULL, cfg);
            return 2;
        }
        n = ckpt_units(ck, &units, &res, &done);
        pr->resumed = ckpt_resumed(ck, &pr->resumed_nodes);
        if (pr->resumed && !o->quiet)
            fprintf(stderr, "chessvar perft: checkpoint '%s': %d of %d units already counted\n",
                    o->checkpoint, pr->resumed, n);
        if (ckpt_dropped(ck) && !o->quiet)
            fprintf(stderr,
                    "chessvar perft: checkpoint '%s': dropped a torn last record (%zu bytes)\n",
                    o->checkpoint, ckpt_dropped(ck));
        ckpt_set_sync(ck, o->checkpoint_sync);
        cfg->unit_done = ckpt_unit_done;
        cfg->unit_done_ctx = ck;
    }
    if (ranks > 1) *total = mpi_perft_units(pos, depth, units, n, res, done, cfg);
    else *total = perft_run_units(pos, depth, units, n, res, done, cfg);
    cfg->unit_done = NULL;
    if (cli_mpi_rank() != 0) return 0;
    if (o->divide) perft_divide(o, pos, depth, cfg, units, res, n);
    if (!ckpt_close(ck, err, sizeof err)) fprintf(stderr, "chessvar perft: %s\n", err);
    return 0;
}

/* Runs one perft (every rank under MPI); rank 0 prints. Returns the exit status. */
static int perft_one(const PerftOptions *o, const Variant *v, const char *fen, long depth,
                     int ranks) {
    Position *pos = malloc(sizeof *pos);
    CvError err = {{0}};
    if (!pos_from_fen(pos, v, fen, &err)) {
        if (cli_mpi_rank() == 0) fprintf(stderr, "chessvar perft: %s\n", err.msg);
        free(pos);
        return 2;
    }
    char fenbuf[512];
    pos_to_fen(pos, fenbuf, sizeof fenbuf);
    int threads = o->threads > 0 ? (int)o->threads : omp_get_num_procs();
    Progress pr = {.start = cli_now(), .enabled = !o->quiet && isatty(2) && cli_mpi_rank() == 0};
    PerftConfig cfg = {.threads = threads,
                       .fingerprint = o->fingerprint,
                       .progress = progress_print,
                       .progress_ctx = &pr};
    cfg.tt = o->hash_mb ? perft_tt_new((size_t)o->hash_mb) : NULL;
    if (o->hash_mb && !cfg.tt) {
        fprintf(stderr, "chessvar perft: cannot allocate a %ld MB hash table\n", o->hash_mb);
        free(pos);
        return 2;
    }
    double t0 = cli_now();
    PerftResult total = {0, 0};
    if (o->reference) {
        total = o->divide ? perft_divide(o, pos, (int)depth, &cfg, NULL, NULL, 0)
                          : perft_reference_fp(pos, (int)depth, o->fingerprint);
        threads = 1;
    } else if (o->checkpoint) {
        int st = perft_checkpointed(o, pos, (int)depth, ranks, &cfg, &pr, &total);
        if (st) {
            perft_tt_free(cfg.tt);
            free(pos);
            return st;
        }
    } else if (ranks > 1) {
        PerftUnit *units = NULL;
        PerftResult *res = NULL;
        int nu = 0;
        total = mpi_perft(pos, (int)depth, &cfg, o->divide ? &units : NULL, &res, &nu);
        if (cli_mpi_rank() == 0 && o->divide)
            perft_divide(o, pos, (int)depth, &cfg, units, res, nu);
        free(units);
        free(res);
    } else if (o->divide) {
        total = perft_divide(o, pos, (int)depth, &cfg, NULL, NULL, 0);
    } else {
        total = perft_run(pos, (int)depth, &cfg);
    }
    double secs = cli_now() - t0;
    if (pr.shown) fprintf(stderr, "\n");
    if (cli_mpi_rank() == 0) print_result(o, v, fenbuf, depth, total, secs, threads, ranks, &pr);
    perft_tt_free(cfg.tt);
    free(pos);
    return 0;
}

/* Parses a number of seconds from 0 to a day (for --checkpoint-sync). */
static bool parse_seconds(const char *cmd, const char *opt, const char *val, void *dst) {
    char *end;
    double s = strtod(val, &end);
    if (!*val || *end || !(s >= 0 && s <= 86400)) {
        cli_usage_error(cmd, "%s needs seconds from 0 to 86400, got '%s'", opt, val);
        return false;
    }
    *(double *)dst = s;
    return true;
}

/* The depth without --depth: on 8x8, on 10x10, and on 10x10 with --all. */
#define PERFT_DEPTH          5
#define PERFT_DEPTH_WIDE     3
#define PERFT_ALL_DEPTH_WIDE 4

int cmd_perft(int argc, char **argv) {
    PerftOptions o = {.checkpoint_sync = PERFT_CKPT_SYNC_SECONDS};
    const char *vname = NULL;
    const CliOpt opts[] = {
        CLI_OPT_TEXT("--variant", "NAME", &vname, "the variant (default chess; the list is below)"),
        CLI_OPT_TEXT("--fen", "FEN", &o.fen,
                     "start from FEN (default: the variant's start position)"),
        CLI_OPT_TEXT("--start", "NAME", &o.start,
                     "a named start position of the variant (e.g. superchess p1)"),
        CLI_OPT_LONG("--depth", "D", 1, 30, &o.depth, "plies, 1..30"),
        CLI_OPT_FLAG("--divide", &o.divide, "one line per root move: move and its count"),
        CLI_OPT_LONG("--threads", "N", 1, 1024, &o.threads, "worker threads (default: all cores)"),
        CLI_OPT_LONG("--hash", "MB", 0, 1 << 20, &o.hash_mb,
                     "shared transposition table of MB megabytes (0: none; default %v)"),
        CLI_OPT_FLAG("--fingerprint", &o.fingerprint,
                     "also an order-independent 64-bit fingerprint of the leaf positions\n"
                     "(sum mod 2^64 of XXH3-64 of each leaf's Zobrist key; slower)"),
        CLI_OPT_FLAG("--json", &o.json, "one JSON object per result line"),
        CLI_OPT_FLAG("--quiet", &o.quiet, "no progress line on stderr"),
        CLI_OPT_FLAG("--all", &o.all,
                     "every variant's start position (default depth " CLI_STR(
                         PERFT_DEPTH) ", " CLI_STR(PERFT_ALL_DEPTH_WIDE) " on 10x10)"),
        CLI_OPT_FLAG("--reference", &o.reference,
                     "count with the slow reference generator, serially (for checks)"),
        CLI_OPT_FLAG("--mpi", &o.mpi, "distribute over MPI ranks (automatic under mpirun/srun)"),
        CLI_OPT_TEXT("--checkpoint", "FILE", &o.checkpoint,
                     "record each finished work unit in FILE; rerunning the same\n"
                     "command with FILE counts only the units still missing"),
        CLI_OPT_CALL_SHOW("--checkpoint-sync", "SECONDS", parse_seconds, cli_show_double,
                          &o.checkpoint_sync,
                          "time between two appends (and fsyncs) of finished units to FILE\n"
                          "(default %v; 0: after every unit)"),
    };
    const CliSpec spec = {
        .cmd = "perft",
        .usage =
            "usage: chessvar perft [--variant NAME] [--fen FEN | --start NAME] [--depth D] "
            "[--divide]\n"
            "                      [--threads N] [--hash MB] [--fingerprint] [--json] [--quiet]\n"
            "                      [--all] [--reference] [--mpi]\n"
            "                      [--checkpoint FILE [--checkpoint-sync SECONDS]]\n\n"
            "Counts the leaves of the legal-move tree of depth D (default " CLI_STR(
                PERFT_DEPTH) " on 8x8, " CLI_STR(PERFT_DEPTH_WIDE) " on 10x10).\n",
        .opts = opts,
        .nopts = (int)(sizeof opts / sizeof opts[0]),
        .list_variants = true};
    int rc = cli_parse(&spec, argc, argv);
    if (rc >= 0) return rc;
    bool depth_given = o.depth > 0;
    const Variant *variant = NULL;
    if (o.all) {
        if (o.fen || o.start || vname)
            return cli_usage_error("perft", "--all takes no --variant, --fen or --start");
    } else {
        if (!(variant = cli_variant("perft", vname))) return 2;
        if (o.fen && o.start) return cli_usage_error("perft", "give --fen or --start, not both");
        if (!o.fen && !variant_start(variant, o.start))
            return cli_usage_error("perft", "variant %s has no start position named '%s'",
                                   variant->name, o.start);
    }
    if (o.checkpoint && (o.all || o.reference))
        return cli_usage_error("perft",
                               "--checkpoint takes one position, without --all or --reference");
    if (o.mpi && !cli_mpi_available())
        return cli_usage_error("perft",
                               "--mpi: this build has no MPI (install libopenmpi-dev and rebuild)");
    int ranks = 1;
    if (o.mpi || (cli_mpi_launched() && cli_mpi_available())) ranks = cli_mpi_begin();
    int status = 0;
    if (o.all) {
        for (int i = 0; i < variant_count() && !status; i++) {
            const Variant *v = variant_at(i);
            status = perft_one(
                &o, v, v->start_fen,
                depth_given ? o.depth : (v->width > 8 ? PERFT_ALL_DEPTH_WIDE : PERFT_DEPTH), ranks);
        }
    } else {
        const char *fen = o.fen ? o.fen : variant_start(variant, o.start);
        status = perft_one(
            &o, variant, fen,
            depth_given ? o.depth : (variant->width > 8 ? PERFT_DEPTH_WIDE : PERFT_DEPTH), ranks);
    }
    cli_mpi_end();
    return status;
}
