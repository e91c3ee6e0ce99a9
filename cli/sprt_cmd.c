/* sprt_cmd.c - `chessvar sprt`: the SPRT of given pair counts (LLR, bounds, decision,
 * Elo and interval), or simulated tests at a known Elo difference (error rates and the
 * games they needed). The same code decides `--sprt` matches (selfplay/match/sprt.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../selfplay/match/sprt.h"
#include "cli.h"

#define CMD "sprt"

/* Options of one invocation. */
typedef struct SprtOpts {
    CliSprt sprt; /* --sprt */
    bool json;
    uint64_t cls[SPRT_NCLASS];
    bool have_pairs;
    double sim_elo, draws; /* sim_elo NAN: no --simulate */
    long runs, max_pairs, seed;
} SprtOpts;

/* --pairs LL,LD,DD,DW,WW (pentanomial) or the 9 quarter-point classes. */
static bool sprt_opt_pairs(const char *cmd, const char *opt, const char *val, void *dst) {
    SprtOpts *o = dst;
    uint64_t v[SPRT_NCLASS];
    int k = 0;
    const char *s = val;
    for (;;) {
        char *end;
        if (k == SPRT_NCLASS || *s < '0' || *s > '9') break;
        v[k++] = strtoull(s, &end, 10);
        if (*end != ',' || !end[1]) {
            s = end;
            break;
        }
        s = end + 1;
    }
    if (*s || (k != SPRT_NPENTA && k != SPRT_NCLASS)) {
        cli_usage_error(cmd,
                        "%s needs 5 counts LL,LD+DL,LW+DD+WL,DW+WD,WW (or 9 quarter-point "
                        "classes), got '%s'",
                        opt, val);
        return false;
    }
    if (k == SPRT_NPENTA) sprt_from_pentanomial(v, o->cls);
    else memcpy(o->cls, v, sizeof v);
    o->have_pairs = true;
    return true;
}

/* --simulate ELO and --draws RATE: a real number. */
static bool sprt_opt_real(const char *cmd, const char *opt, const char *val, void *dst) {
    char *end;
    double v = strtod(val, &end);
    bool draws = strcmp(opt, "--draws") == 0;
    if (end == val || *end || !isfinite(v) || (draws && (v < 0 || v >= 1)) ||
        (!draws && fabs(v) > 2000)) {
        cli_usage_error(cmd, "%s needs %s, got '%s'", opt,
                        draws ? "a draw rate in [0, 1)" : "an Elo difference within +-2000", val);
        return false;
    }
    *(double *)dst = v;
    return true;
}

/* Prints the status of the counts, as JSON or text. */
static void sprt_print_status(const SprtOpts *o) {
    SprtStatus st = sprt_status(&o->sprt.spec, o->cls);
    uint64_t p[SPRT_NPENTA];
    sprt_pentanomial(o->cls, p);
    const char *dec = st.decision == SPRT_H1 ? "H1" : st.decision == SPRT_H0 ? "H0" : "none";
    if (o->json) {
        printf("{\"elo0\":%g,\"elo1\":%g,\"alpha\":%g,\"beta\":%g,\"elo_model\":\"%s\","
               "\"pairs\":%llu,\"pentanomial\":[%llu,%llu,%llu,%llu,%llu],\"classes\":[",
               o->sprt.spec.elo0, o->sprt.spec.elo1, o->sprt.spec.alpha, o->sprt.spec.beta,
               o->sprt.spec.normalized ? "normalized" : "logistic", (unsigned long long)st.pairs,
               (unsigned long long)p[0], (unsigned long long)p[1], (unsigned long long)p[2],
               (unsigned long long)p[3], (unsigned long long)p[4]);
        for (int i = 0; i < SPRT_NCLASS; i++)
            printf("%s%llu", i ? "," : "", (unsigned long long)o->cls[i]);
        printf("],\"llr\":%.12g,\"lower\":%.12g,\"upper\":%.12g,\"decision\":\"%s\","
               "\"score\":%.6f,\"elo\":%.3f,\"elo_95\":[%.3f,%.3f]}\n",
               st.llr, st.lower, st.upper, dec, st.score, st.elo, st.elo_lo, st.elo_hi);
        return;
    }
    printf("SPRT [%g, %g] alpha %g beta %g (%s Elo): %llu pairs LL %llu, LD %llu, LW+DD %llu, "
           "DW %llu, WW %llu\n",
           o->sprt.spec.elo0, o->sprt.spec.elo1, o->sprt.spec.alpha, o->sprt.spec.beta,
           o->sprt.spec.normalized ? "normalized" : "logistic", (unsigned long long)st.pairs,
           (unsigned long long)p[0], (unsigned long long)p[1], (unsigned long long)p[2],
           (unsigned long long)p[3], (unsigned long long)p[4]);
    printf("LLR %.3f, bounds [%.3f, %.3f]: %s\n", st.llr, st.lower, st.upper,
           st.decision == SPRT_H1   ? "H1 accepted"
           : st.decision == SPRT_H0 ? "H0 accepted"
                                    : "no decision yet");
    printf("score %.2f%%, Elo %+.1f, 95%% interval [%+.1f, %+.1f]\n", 100 * st.score, st.elo,
           st.elo_lo, st.elo_hi);
}

/* qsort order of pair counts. */
static int sprt_cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* Runs the simulation and prints what it found. */
static int sprt_print_simulation(const SprtOpts *o) {
    double p[SPRT_NPENTA];
    if (!sprt_pair_model(o->sim_elo, o->draws, p))
        return cli_usage_error(CMD, "--draws %g is impossible at %+g Elo (the wins would be < 0)",
                               o->draws, o->sim_elo);
    uint64_t *n = malloc((size_t)o->runs * sizeof *n);
    if (!n) return cli_usage_error(CMD, "out of memory for %ld runs", o->runs);
    SprtSimResult r;
    sprt_simulate(&o->sprt.spec, p, (uint64_t)o->seed, o->runs, (uint64_t)o->max_pairs, &r, n);
    long h1 = r.h1, undecided = r.undecided;
    double mean_games = 2.0 * r.pairs_sum / (double)o->runs, var = 0;
    for (long i = 0; i < o->runs; i++) var += pow(2.0 * (double)n[i] - mean_games, 2);
    double sd_games = o->runs > 1 ? sqrt(var / (double)(o->runs - 1)) : 0;
    qsort(n, (size_t)o->runs, sizeof *n, sprt_cmp_u64);
    unsigned long long med = 2 * n[o->runs / 2], p90 = 2 * n[(o->runs * 9) / 10];
    long h0 = o->runs - h1 - undecided;
    if (o->json)
        printf("{\"elo0\":%g,\"elo1\":%g,\"alpha\":%g,\"beta\":%g,\"elo_model\":\"%s\","
               "\"elo\":%g,\"draws\":%g,\"pentanomial_p\":[%.6f,%.6f,%.6f,%.6f,%.6f],"
               "\"runs\":%ld,\"seed\":%ld,\"max_pairs\":%ld,\"h1\":%ld,\"h0\":%ld,"
               "\"undecided\":%ld,\"undecided_low\":%ld,\"mean_games\":%.2f,\"sd_games\":%.2f,"
               "\"median_games\":%llu,\"p90_games\":%llu}\n",
               o->sprt.spec.elo0, o->sprt.spec.elo1, o->sprt.spec.alpha, o->sprt.spec.beta,
               o->sprt.spec.normalized ? "normalized" : "logistic", o->sim_elo, o->draws, p[0],
               p[1], p[2], p[3], p[4], o->runs, o->seed, o->max_pairs, h1, h0, undecided,
               r.undecided_low, mean_games, sd_games, med, p90);
    else
        printf("SPRT [%g, %g] alpha %g beta %g at %+g Elo, %.0f%% draws: %ld runs, H1 %ld "
               "(%.2f%%), H0 %ld (%.2f%%), undecided %ld (%ld of them scoring at most 50%%); games "
               "mean %.1f (sd %.1f), median %llu, 90th percentile %llu\n",
               o->sprt.spec.elo0, o->sprt.spec.elo1, o->sprt.spec.alpha, o->sprt.spec.beta,
               o->sim_elo, 100 * o->draws, o->runs, h1, 100.0 * (double)h1 / (double)o->runs, h0,
               100.0 * (double)h0 / (double)o->runs, undecided, r.undecided_low, mean_games,
               sd_games, med, p90);
    free(n);
    return 0;
}

/* The sprt subcommand: exit 0, or 2 on bad input. */
int cmd_sprt(int argc, char **argv) {
    SprtOpts o = {.runs = 1000, .max_pairs = 100000, .seed = 1, .draws = 0.3, .sim_elo = NAN};
    const CliOpt opts[] = {
        CLI_OPT_CALL("--sprt", "ELO0,ELO1[,ALPHA,BETA]", cli_opt_sprt, &o.sprt,
                     "the hypotheses H0 Elo = ELO0 and H1 Elo = ELO1, and the error\n"
                     "rates (default 0.05, 0.05) (required)"),
        CLI_OPT_FLAG("--normalized", &o.sprt.spec.normalized,
                     "ELO0, ELO1 and the estimate are normalized Elo (default logistic)"),
        CLI_OPT_CALL("--pairs", "LL,LD,DD,DW,WW", sprt_opt_pairs, &o,
                     "game-pair counts (pentanomial: LL, LD+DL, LW+DD+WL, DW+WD, WW), or\n"
                     "9 counts of pair scores 0, 1/4, ..., 2 points: print the LLR, the\n"
                     "bounds, the decision and the Elo with its 95% interval"),
        CLI_OPT_CALL("--simulate", "ELO", sprt_opt_real, &o.sim_elo,
                     "instead: simulate tests whose pairs are two independent games\n"
                     "ELO apart; print how often each hypothesis was accepted and the\n"
                     "games used"),
        CLI_OPT_CALL("--draws", "RATE", sprt_opt_real, &o.draws,
                     "simulated draw rate per game (default 0.3)"),
        CLI_OPT_LONG("--runs", "N", 1, 10000000L, &o.runs, "simulated tests (default 1000)"),
        CLI_OPT_LONG("--max-pairs", "N", 1, 100000000L, &o.max_pairs,
                     "a simulated test ends undecided after N pairs (default 100000)"),
        CLI_OPT_LONG("--seed", "S", 0, 2147483647L, &o.seed, "simulation seed (default 1)"),
        CLI_OPT_FLAG("--json", &o.json, "print one line of JSON"),
    };
    const CliSpec spec = {
        .cmd = CMD,
        .usage = "usage: chessvar sprt --sprt ELO0,ELO1[,ALPHA,BETA] --pairs LL,LD,DD,DW,WW\n"
                 "       chessvar sprt --sprt ELO0,ELO1[,ALPHA,BETA] --simulate ELO [--draws R]\n"
                 "                     [--runs N] [--seed S]\n\n"
                 "The GSPRT of a match played in game pairs (one opening, both colours), as\n"
                 "fishtest runs it: the LLR by constrained maximum likelihood on the pair\n"
                 "scores, bounds log(beta/(1-alpha)) and log((1-beta)/alpha).\n",
        .opts = opts,
        .nopts = (int)(sizeof opts / sizeof opts[0])};
    bool normalized_seen = false;
    for (int i = 1; i < argc; i++) normalized_seen |= strcmp(argv[i], "--normalized") == 0;
    o.sprt.spec.normalized = normalized_seen; /* sprt_parse keeps it, whatever the order */
    int rc = cli_parse(&spec, argc, argv);
    if (rc >= 0) return rc;
    if (!o.sprt.given) return cli_usage_error(CMD, "--sprt ELO0,ELO1[,ALPHA,BETA] is required");
    bool sim = !isnan(o.sim_elo);
    if (o.have_pairs == sim)
        return cli_usage_error(CMD, "give exactly one of --pairs and --simulate");
    if (sim) return sprt_print_simulation(&o);
    sprt_print_status(&o);
    return 0;
}
