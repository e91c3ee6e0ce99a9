/* perft_cmd.c - `chessvar perft`: counts, divide, JSON lines, every variant's start. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

typedef struct PerftOptions {
    const Variant *variant;
    const char *fen;
    const char *start;
    long depth;
    bool divide, json, all, reference;
} PerftOptions;

static void perft_help(FILE *f) {
    fprintf(f,
            "usage: chessvar perft [--variant NAME] [--fen FEN | --start NAME] [--depth D]\n"
            "                      [--divide] [--json] [--all] [--reference]\n\n"
            "Counts the leaves of the legal-move tree of depth D (default 5 on 8x8, 3 on 10x10).\n"
            "  --variant NAME  chess (default), switching, superchess, supremo\n"
            "  --fen FEN       start from FEN (default: the variant's start position)\n"
            "  --start NAME    a named start position of the variant (e.g. superchess p1)\n"
            "  --depth D       plies, 1..30\n"
            "  --divide        one line per root move: move and its count\n"
            "  --json          one JSON object per result line\n"
            "  --all           every variant's start position (with --depth, default 4 / 3)\n"
            "  --reference     count with the slow reference generator (for checks)\n");
}

/* Runs one perft and prints it; returns the exit status. */
static int perft_run(const PerftOptions *o, const Variant *v, const char *fen, long depth) {
    static Position pos;
    CvError err = {{0}};
    if (!pos_from_fen(&pos, v, fen, &err)) {
        fprintf(stderr, "chessvar perft: %s\n", err.msg);
        return 2;
    }
    char fenbuf[512];
    pos_to_fen(&pos, fenbuf, sizeof fenbuf);
    double t0 = cli_now();
    uint64_t total = 0;
    if (o->divide) {
        Move list[MAX_MOVES];
        int n = o->reference ? pos_reference_moves(&pos, list) : pos_legal_moves(&pos, list);
        for (int i = 0; i < n; i++) {
            char ms[24];
            move_to_str(&pos, list[i], ms);
            pos_make(&pos, list[i]);
            uint64_t c = o->reference ? perft_reference(&pos, (int)depth - 1) : perft(&pos, (int)depth - 1);
            pos_unmake(&pos);
            total += c;
            if (o->json) {
                printf("{\"move\":");
                cli_json_str(stdout, ms);
                printf(",\"nodes\":%llu}\n", (unsigned long long)c);
            } else {
                printf("%s: %llu\n", ms, (unsigned long long)c);
            }
        }
    } else {
        total = o->reference ? perft_reference(&pos, (int)depth) : perft(&pos, (int)depth);
    }
    double secs = cli_now() - t0;
    double nps = secs > 0 ? (double)total / secs : 0;
    if (o->json) {
        printf("{\"variant\":\"%s\",\"fen\":", v->name);
        cli_json_str(stdout, fenbuf);
        printf(",\"depth\":%ld,\"nodes\":%llu,\"seconds\":%.6f,\"nps\":%.0f}\n", depth, (unsigned long long)total, secs,
               nps);
    } else {
        if (o->divide) printf("\n");
        printf("%s depth %ld: %llu nodes in %.3f s (%.2f Mnodes/s)\n", v->name, depth, (unsigned long long)total,
               secs, nps / 1e6);
    }
    fflush(stdout);
    return 0;
}

int cmd_perft(int argc, char **argv) {
    PerftOptions o = {0};
    const char *vname = NULL, *depth_text = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            perft_help(stdout);
            return 0;
        } else if (strcmp(a, "--variant") == 0) {
            if (!(vname = cli_value("perft", argc, argv, &i))) return 2;
        } else if (strcmp(a, "--fen") == 0) {
            if (!(o.fen = cli_value("perft", argc, argv, &i))) return 2;
        } else if (strcmp(a, "--start") == 0) {
            if (!(o.start = cli_value("perft", argc, argv, &i))) return 2;
        } else if (strcmp(a, "--depth") == 0) {
            if (!(depth_text = cli_value("perft", argc, argv, &i))) return 2;
            if (!cli_int("perft", "--depth", depth_text, 1, 30, &o.depth)) return 2;
        } else if (strcmp(a, "--divide") == 0) {
            o.divide = true;
        } else if (strcmp(a, "--json") == 0) {
            o.json = true;
        } else if (strcmp(a, "--all") == 0) {
            o.all = true;
        } else if (strcmp(a, "--reference") == 0) {
            o.reference = true;
        } else {
            return cli_usage_error("perft", "unknown option '%s' (chessvar perft --help)", a);
        }
    }
    if (o.all) {
        if (o.fen || o.start || vname) return cli_usage_error("perft", "--all takes no --variant, --fen or --start");
        int status = 0;
        for (int i = 0; i < variant_count() && !status; i++) {
            const Variant *v = variant_at(i);
            long d = depth_text ? o.depth : (v->width > 8 ? 3 : 4);
            status = perft_run(&o, v, v->start_fen, d);
        }
        return status;
    }
    if (!(o.variant = cli_variant("perft", vname))) return 2;
    if (o.fen && o.start) return cli_usage_error("perft", "give --fen or --start, not both");
    const char *fen = o.fen ? o.fen : variant_start(o.variant, o.start);
    if (!fen) return cli_usage_error("perft", "variant %s has no start position named '%s'", o.variant->name, o.start);
    if (!depth_text) o.depth = o.variant->width > 8 ? 3 : 5;
    return perft_run(&o, o.variant, fen, o.depth);
}
