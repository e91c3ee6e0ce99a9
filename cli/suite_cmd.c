/* suite_cmd.c - `chessvar suite`: runs EPD perft suites, PASS/FAIL per line, summary. */
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "../bench/harness.h"
#include "cli.h"

int cmd_suite(int argc, char **argv) {
    const char *file = NULL, *vname = NULL;
    long max_depth = 30, threads = 0, hash_mb = 0, max_nodes = 0;
    bool json = false;
    const CliOpt opts[] = {
        CLI_OPT_TEXT("--variant", "NAME", &vname,
                     "variant of lines without a variant opcode (default chess)"),
        CLI_OPT_LONG("--max-depth", "D", 1, 30, &max_depth, "skip depths above D"),
        CLI_OPT_LONG("--max-nodes", "N", 1, 0x7FFFFFFFFFFFFFFFL, &max_nodes,
                     "skip counts above N nodes"),
        CLI_OPT_LONG("--threads", "N", 1, 1024, &threads, "worker threads (default: all cores)"),
        CLI_OPT_LONG("--hash", "MB", 0, 1 << 20, &hash_mb,
                     "shared transposition table (0: none; default %v)"),
        CLI_OPT_FLAG("--json", &json, "one JSON object per check and one summary object"),
    };
    const CliSpec spec = {
        .cmd = "suite",
        .usage =
            "usage: chessvar suite FILE.epd [--variant NAME] [--max-depth D] [--max-nodes N]\n"
            "                      [--threads N] [--hash MB] [--json]\n\n"
            "Runs every line `FEN ;D1 n ;D2 n ... [;variant NAME]` of an EPD perft suite (FILE - "
            "is\n"
            "standard input) and prints PASS or FAIL per (line, depth) with the expected and "
            "actual\n"
            "counts, then a summary. Lines without a variant opcode use --variant. Malformed\n"
            "lines are reported with their line number. Exit status: 0 all passed, 1 any\n"
            "failure or malformed line, 2 bad options or unreadable file.\n",
        .opts = opts,
        .nopts = (int)(sizeof opts / sizeof opts[0]),
        .positional = &file,
        .list_variants = true};
    int rc = cli_parse(&spec, argc, argv);
    if (rc >= 0) return rc;
    if (!file) return cli_usage_error("suite", "which EPD file? (chessvar suite FILE.epd)");
    const Variant *deflt = cli_variant("suite", vname);
    if (!deflt) return 2;
    FILE *f = strcmp(file, "-") == 0 ? stdin : fopen(file, "r");
    if (!f) return cli_usage_error("suite", "cannot read '%s'", file);

    PerftConfig cfg = {.threads = threads ? (int)threads : omp_get_num_procs()};
    cfg.tt = hash_mb ? perft_tt_new((size_t)hash_mb) : NULL;
    Position *pos = malloc(sizeof *pos);
    char line[2048];
    int lineno = 0, positions = 0, checks = 0, passed = 0, failed = 0, errors = 0;
    uint64_t nodes = 0;
    double t0 = cli_now();
    while (fgets(line, sizeof line, f)) {
        lineno++;
        EpdEntry e;
        CvError err = {{0}};
        int r = epd_parse_line(line, &e, &err);
        const Variant *v = deflt;
        if (r == 1 && e.variant[0] && !(v = variant_by_name(e.variant))) {
            snprintf(err.msg, sizeof err.msg, "unknown variant '%s'", e.variant);
            r = -1;
        }
        if (r == 1 && !pos_from_fen(pos, v, e.fen, &err)) r = -1;
        if (r == 0) continue;
        if (r < 0) {
            errors++;
            if (json) {
                printf("{\"line\":%d,\"status\":\"ERROR\",\"error\":", lineno);
                cli_json_str(stdout, err.msg);
                printf("}\n");
            } else {
                printf("ERROR %s:%d: %s\n", file, lineno, err.msg);
            }
            continue;
        }
        positions++;
        for (int k = 0; k < e.ndepth; k++) {
            if (e.depth[k] > max_depth || (max_nodes && e.nodes[k] > (uint64_t)max_nodes)) continue;
            double s0 = cli_now();
            PerftResult res = perft_run(pos, e.depth[k], &cfg);
            double secs = cli_now() - s0;
            bool ok = res.nodes == e.nodes[k];
            checks++;
            ok ? passed++ : failed++;
            nodes += res.nodes;
            if (json) {
                printf("{\"line\":%d,\"status\":\"%s\",\"variant\":\"%s\",\"fen\":", lineno,
                       ok ? "PASS" : "FAIL", v->name);
                cli_json_str(stdout, e.fen);
                printf(",\"depth\":%d,\"expected\":%llu,\"nodes\":%llu,\"seconds\":%.6f}\n",
                       e.depth[k], (unsigned long long)e.nodes[k], (unsigned long long)res.nodes,
                       secs);
            } else {
                printf("%s  line %d  %s  D%d  expected %llu  got %llu\n", ok ? "PASS" : "FAIL",
                       lineno, v->name, e.depth[k], (unsigned long long)e.nodes[k],
                       (unsigned long long)res.nodes);
            }
            fflush(stdout);
        }
    }
    if (f != stdin) fclose(f);
    double secs = cli_now() - t0;
    if (json) {
        printf("{\"summary\":true,\"file\":");
        cli_json_str(stdout, file);
        printf(",\"positions\":%d,\"checks\":%d,\"passed\":%d,\"failed\":%d,\"errors\":%d,"
               "\"nodes\":%llu,\"seconds\":%.3f}\n",
               positions, checks, passed, failed, errors, (unsigned long long)nodes, secs);
    } else {
        printf("\n%s: %d positions, %d checks: %d passed, %d failed, %d malformed lines; %llu "
               "nodes in %.2f s (%.1f Mnodes/s)\n",
               file, positions, checks, passed, failed, errors, (unsigned long long)nodes, secs,
               secs > 0 ? (double)nodes / secs / 1e6 : 0.0);
    }
    perft_tt_free(cfg.tt);
    free(pos);
    return failed || errors ? 1 : 0;
}
