/* setup_cmd.c - `chessvar setup`: Superchess start arrays from the prelude. Draws random
 * prelude-legal arrays (deterministic per seed) or checks a FEN against the prelude. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* The usage text of `chessvar setup`. */
static void setup_help(FILE *f) {
    fprintf(
        f,
        "usage: chessvar setup [--variant superchess] --prelude random [--seed N] [--count K]\n"
        "                      [--pool LETTERS] [--min N] [--max N] [--reserves LETTERS|-]\n"
        "       chessvar setup [--variant superchess] --check FEN [prelude options]\n\n"
        "Superchess prelude (rules section 2): White substitutes on files e-h and Black gets the\n"
        "mirror; Black substitutes on files a-d and White gets the mirror.\n"
        "  --prelude random  print K random prelude-legal arrays as FEN, one per line\n"
        "  --seed N          random seed (default 1); array i uses seed N + i\n"
        "  --count K         number of arrays (default 1)\n"
        "  --check FEN       exit 0 if FEN is an array the prelude can produce, else 1 with\n"
        "                    the rule it breaks (2 if FEN itself is not valid)\n"
        "  --pool LETTERS    prelude pool per side (default EAWMFDGOHHTTTT)\n"
        "  --min N, --max N  substitutions per choosing phase (default 1 to what squares and\n"
        "                    pool permit)\n"
        "  --reserves L      reserves for each side's hand (default LX; '-' for none)\n");
}

/* Entry point of `chessvar setup`; returns the exit status. */
int cmd_setup(int argc, char **argv) {
    const char *cmd = "setup", *variant = "superchess", *prelude = NULL, *check = NULL;
    long seed = 1, count = 1, v;
    PreludeParams pp;
    prelude_defaults(&pp);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *val;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            setup_help(stdout);
            return 0;
        }
        static const char *const options[] = {"--variant", "--prelude", "--check",
                                              "--seed",    "--count",   "--pool",
                                              "--min",     "--max",     "--reserves"};
        bool known = false;
        for (size_t k = 0; k < sizeof options / sizeof options[0]; k++)
            known = known || strcmp(a, options[k]) == 0;
        if (!known)
            return cli_usage_error(cmd, "unknown option '%s' (see chessvar setup --help)", a);
        if (!(val = cli_value(cmd, argc, argv, &i))) return 2;
        if (strcmp(a, "--variant") == 0) variant = val;
        else if (strcmp(a, "--prelude") == 0) prelude = val;
        else if (strcmp(a, "--check") == 0) check = val;
        else if (strcmp(a, "--seed") == 0) {
            if (!cli_int(cmd, a, val, 0, 2147483647L, &seed)) return 2;
        } else if (strcmp(a, "--count") == 0) {
            if (!cli_int(cmd, a, val, 1, 1000000, &count)) return 2;
        } else if (strcmp(a, "--min") == 0) {
            if (!cli_int(cmd, a, val, 0, 8, &v)) return 2;
            pp.min = (int)v;
        } else if (strcmp(a, "--max") == 0) {
            if (!cli_int(cmd, a, val, 1, 8, &v)) return 2;
            pp.max = (int)v;
        } else if (strcmp(a, "--pool") == 0) {
            if (strlen(val) >= sizeof pp.pool)
                return cli_usage_error(cmd, "--pool has more than %d letters",
                                       (int)sizeof pp.pool - 1);
            strcpy(pp.pool, val);
        } else {
            if (strlen(val) >= sizeof pp.reserves)
                return cli_usage_error(cmd, "--reserves '%s' is too long", val);
            strcpy(pp.reserves, strcmp(val, "-") == 0 ? "" : val);
        }
    }
    if (!cli_variant(cmd, variant)) return 2;
    if (strcmp(variant, "superchess") != 0)
        return cli_usage_error(cmd, "variant '%s' has no prelude (only superchess)", variant);
    if (!prelude == !check)
        return cli_usage_error(cmd, "give exactly one of --prelude random and --check FEN");
    CvError err = {{0}};
    if (check) {
        Position *pos = malloc(sizeof *pos);
        bool valid = pos && pos_from_fen(pos, variant_by_name(variant), check, &err);
        free(pos);
        if (!valid) return cli_usage_error(cmd, "%s", err.msg);
        if (!prelude_check(&pp, check, &err)) {
            fprintf(stderr, "chessvar setup: not a prelude array: %s\n", err.msg);
            return 1;
        }
        printf("ok: prelude array\n");
        return 0;
    }
    if (strcmp(prelude, "random") != 0)
        return cli_usage_error(cmd, "--prelude '%s' is not supported (only 'random')", prelude);
    for (long i = 0; i < count; i++) {
        char fen[256];
        if (!prelude_random(&pp, (uint64_t)(seed + i), fen, sizeof fen, &err))
            return cli_usage_error(cmd, "%s", err.msg);
        printf("%s\n", fen);
    }
    return 0;
}
