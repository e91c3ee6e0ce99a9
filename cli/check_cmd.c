/* check_cmd.c - `chessvar check`: plays seeded random, capture-greedy and
 * special-rule-seeking games of one or every variant, verifies the rule invariants on
 * the positions they visit and writes the consistency report (JSON + Markdown). Exit
 * status 1 when any invariant failed. */
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "../selfplay/check/check.h"
#include "cli.h"

typedef struct CheckOptions {
    const char *variant, *fen, *json, *md;
    long games, seed, plies, sample, threads;
    bool all, quiet;
} CheckOptions;

/* Parses the options; returns -1 to go on, else the exit status. */
static int check_parse(int argc, char **argv, CheckOptions *o) {
    *o = (CheckOptions){.json = "check_report.json",
                        .games = 40,
                        .seed = 1,
                        .plies = 200,
                        .sample = 1,
                        .threads = 1};
    const CliOpt opts[] = {
        CLI_OPT_TEXT("--variant", "NAME", &o->variant, "one variant (default chess)"),
        CLI_OPT_FLAG("--all", &o->all, "every variant"),
        CLI_OPT_LONG("--games", "N", 1, 1000000L, &o->games, "games per variant (default %v)"),
        CLI_OPT_LONG("--seed", "S", 0, 2147483647L, &o->seed, "seed of the games (default %v)"),
        CLI_OPT_LONG("--plies", "N", 1, MAX_GAME_PLY - 2, &o->plies,
                     "ply cap per game (default %v)"),
        CLI_OPT_LONG("--sample", "K", 1, 1000000L, &o->sample,
                     "verify every K-th position only (1: all; default %v)"),
        CLI_OPT_TEXT("--fen", "FEN", &o->fen,
                     "start every game from FEN (default: the variant's start positions)"),
        CLI_OPT_LONG("--threads", "N", 1, 1000000L, &o->threads, "worker threads (default %v)"),
        CLI_OPT_TEXT("--json", "FILE", &o->json, "JSON report (default %v in the current folder)"),
        CLI_OPT_TEXT("--md", "FILE", &o->md, "Markdown summary (default: the JSON path with .md)"),
        CLI_OPT_FLAG("--quiet", &o->quiet, "no per-variant lines on stdout"),
    };
    const CliSpec spec = {
        .cmd = "check",
        .usage =
            "usage: chessvar check [--variant NAME | --all] [--games N] [--seed S] [--plies N]\n"
            "                      [--sample K] [--fen FEN] [--threads N] [--json FILE] [--md "
            "FILE] [--quiet]\n\n"
            "Plays seeded games (random, capture-greedy and special-rule-seeking moves in turn) "
            "and\n"
            "on every visited position verifies: consistency of all representations, incremental "
            "==\n"
            "recomputed key, make/unmake restores every byte, fast == reference move set, bulk\n"
            "count, notation and FEN round trips, check/attack agreement, colour-flip move count\n"
            "and the variant's own rules. Counts special-rule events. Exit status 1 when any\n"
            "invariant fails.\n",
        .opts = opts,
        .nopts = (int)(sizeof opts / sizeof opts[0]),
        .list_variants = true};
    int rc = cli_parse(&spec, argc, argv);
    if (rc >= 0) return rc;
    if (o->all && (o->variant || o->fen))
        return cli_usage_error("check", "--all cannot be combined with --variant or --fen");
    return -1;
}

/* Plays the games of one variant on o->threads threads, each into its own report, and
 * merges them into r. Returns false if the FEN was rejected. */
static bool check_variant(const CheckOptions *o, const Variant *v, Report *r) {
    const CheckParams cp = {.max_plies = (int)o->plies, .sample = (int)o->sample, .style = -1};
    int nt = (int)o->threads;
    Report *part = calloc((size_t)nt, sizeof *part);
    if (!part) return false;
    bool bad_fen = false;
#pragma omp parallel for num_threads(nt) schedule(dynamic, 1)
    for (long g = 0; g < o->games; g++) {
        Report *mine = &part[omp_get_thread_num()];
        VariantReport *vr = report_variant(mine, v);
        if (check_game(vr, v, o->fen, (uint64_t)o->seed, (int)g, &cp) < 0) {
#pragma omp atomic write
            bad_fen = true;
        }
    }
    report_variant(r, v);
    for (int t = 0; t < nt; t++) report_merge(r, &part[t]);
    free(part);
    if (bad_fen) {
        CvError err = {{0}};
        Position *p = malloc(sizeof *p);
        if (p && !pos_from_fen(p, v, o->fen, &err))
            fprintf(stderr, "chessvar check: bad FEN for %s: %s\n", v->name, err.msg);
        free(p);
    }
    return !bad_fen;
}

/* Writes the JSON and the Markdown report; false (with a message) if a file cannot be written. */
static bool check_write(const CheckOptions *o, const Report *r, double secs) {
    const char *json = o->json;
    char md[1024], meta[512], intro[768], every[64] = "every visited position";
    if (o->sample > 1) snprintf(every, sizeof every, "one position in %ld", o->sample);
    if (o->md) snprintf(md, sizeof md, "%s", o->md);
    else {
        snprintf(md, sizeof md, "%s", json);
        char *dot = strrchr(md, '.');
        if (dot && !strchr(dot, '/')) *dot = 0;
        strncat(md, ".md", sizeof md - strlen(md) - 1);
    }
    snprintf(meta, sizeof meta,
             "\"command\": \"check\", \"games_per_variant\": %ld, \"seed\": %ld, \"ply_cap\": %ld, "
             "\"sample\": %ld, "
             "\"seconds\": %.1f",
             o->games, o->seed, o->plies, o->sample, secs);
    snprintf(intro, sizeof intro,
             "Written by `chessvar check`: %ld seeded games per variant (seed %ld; games in turn "
             "play random, "
             "capture-greedy and special-rule-seeking moves), ply cap %ld, %s verified, %.1f s. "
             "Invariant counts are per "
             "position, or per legal move for the make/unmake, notation and variant-rule checks.",
             o->games, o->seed, o->plies, every, secs);
    const char *paths[2] = {json, md};
    for (int k = 0; k < 2; k++) {
        char tmp[1100];
        snprintf(tmp, sizeof tmp, "%s.tmp", paths[k]);
        FILE *f = fopen(tmp, "w");
        if (!f) {
            fprintf(stderr, "chessvar check: cannot write %s\n", tmp);
            return false;
        }
        if (k == 0) report_write_json(r, f, meta);
        else report_write_markdown(r, f, "Rule-consistency report", intro);
        bool ok = fflush(f) == 0 && !ferror(f);
        ok &= fclose(f) == 0;
        if (!ok || rename(tmp, paths[k]) != 0) {
            fprintf(stderr, "chessvar check: cannot write %s\n", paths[k]);
            remove(tmp);
            return false;
        }
    }
    return true;
}

/* `chessvar check`: parses options, checks each variant, writes the report, sets the exit status.
 */
int cmd_check(int argc, char **argv) {
    CheckOptions o;
    int rc = check_parse(argc, argv, &o);
    if (rc >= 0) return rc;
    Report *r = malloc(sizeof *r);
    if (!r) return 2;
    report_init(r);
    double t0 = cli_now();
    int first = 0, last = 1;
    const Variant *one = NULL;
    if (o.all) last = variant_count();
    else if (!(one = cli_variant("check", o.variant))) {
        free(r);
        return 2;
    }
    for (int i = first; i < last; i++) {
        const Variant *v = one ? one : variant_at(i);
        double t = cli_now();
        if (!check_variant(&o, v, r)) {
            free(r);
            return 2;
        }
        const VariantReport *vr = report_variant(r, v);
        uint64_t nf = 0;
        for (int k = 0; k < INV_N; k++) nf += vr->fail[k];
        if (!o.quiet)
            printf("%-12s %4llu games %8llu positions %6llu failures  %.1f s\n", v->name,
                   (unsigned long long)vr->games, (unsigned long long)vr->positions,
                   (unsigned long long)nf, cli_now() - t);
    }
    uint64_t failures = report_failures(r);
    bool written = check_write(&o, r, cli_now() - t0);
    if (!o.quiet) printf("total failures: %llu\n", (unsigned long long)failures);
    free(r);
    if (!written) return 2;
    return failures ? 1 : 0;
}
