/* setup_cmd.c - `chessvar setup`: Superchess start arrays from the prelude. Draws random
 * prelude-legal arrays (deterministic per seed) or checks a FEN against the prelude. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* --pool LETTERS and --reserves LETTERS|-: letters into the prelude parameters. */
static bool setup_opt_letters(const char *cmd, const char *opt, const char *val, void *dst) {
    PreludeParams *pp = dst;
    bool pool = strcmp(opt, "--pool") == 0;
    if (!pool && strcmp(val, "-") == 0) val = "";
    size_t cap = pool ? sizeof pp->pool : sizeof pp->reserves;
    if (strlen(val) >= cap) {
        if (pool) cli_usage_error(cmd, "--pool has more than %d letters", (int)cap - 1);
        else cli_usage_error(cmd, "--reserves '%s' is too long", val);
        return false;
    }
    strcpy(pool ? pp->pool : pp->reserves, val);
    return true;
}

/* Shows the default of --pool or --reserves ('-' for no reserves). */
static void setup_show_letters(const char *opt, const void *dst, char *buf, size_t n) {
    const PreludeParams *pp = dst;
    const char *letters = strcmp(opt, "--pool") == 0 ? pp->pool : pp->reserves;
    snprintf(buf, n, "%s", *letters ? letters : "-");
}

/* Reports that variant v has no prelude, naming the variants that have one; returns 2. */
static int setup_no_prelude(const char *cmd, const Variant *v) {
    char names[256] = "";
    size_t len = 0;
    for (int i = 0; i < variant_count() && len < sizeof names; i++)
        if (variant_at(i)->prelude)
            len += (size_t)snprintf(names + len, sizeof names - len, "%s%s", len ? ", " : "",
                                    variant_at(i)->name);
    return cli_usage_error(cmd, "variant '%s' has no prelude (only %s)", v->name, names);
}

/* Entry point of `chessvar setup`; returns the exit status. */
int cmd_setup(int argc, char **argv) {
    const char *cmd = "setup", *variant = "superchess", *prelude = NULL, *check = NULL;
    long seed = 1, count = 1;
    PreludeParams pp;
    prelude_defaults(&pp);
    const CliOpt opts[] = {
        CLI_OPT_TEXT("--variant", "superchess", &variant, "the only variant with a prelude"),
        CLI_OPT_TEXT("--prelude", "random", &prelude,
                     "print K random prelude-legal arrays as FEN, one per line"),
        CLI_OPT_LONG("--seed", "N", 0, 2147483647L, &seed,
                     "random seed (default %v); array i uses seed N + i"),
        CLI_OPT_LONG("--count", "K", 1, 1000000, &count, "number of arrays (default %v)"),
        CLI_OPT_TEXT("--check", "FEN", &check,
                     "exit 0 if FEN is an array the prelude can produce, else 1 with\n"
                     "the rule it breaks (2 if FEN itself is not valid)"),
        CLI_OPT_CALL_SHOW("--pool", "LETTERS", setup_opt_letters, setup_show_letters, &pp,
                          "prelude pool per side (default %v)"),
        CLI_OPT_INT("--min", "N", 0, 8, &pp.min,
                    "fewest substitutions per choosing phase (default %v)"),
        CLI_OPT_INT("--max", "N", 1, 8, &pp.max,
                    "most substitutions per choosing phase (default: what squares and\n"
                    "pool permit)"),
        CLI_OPT_CALL_SHOW("--reserves", "L", setup_opt_letters, setup_show_letters, &pp,
                          "reserves for each side's hand (default %v; '-' for none)"),
    };
    const CliSpec spec = {
        .cmd = "setup",
        .usage =
            "usage: chessvar setup [--variant superchess] --prelude random [--seed N] [--count "
            "K]\n"
            "                      [--pool LETTERS] [--min N] [--max N] [--reserves LETTERS|-]\n"
            "       chessvar setup [--variant superchess] --check FEN [prelude options]\n\n"
            "Superchess prelude (rules section 2): White substitutes on files e-h and Black gets "
            "the\n"
            "mirror; Black substitutes on files a-d and White gets the mirror.\n",
        .opts = opts,
        .nopts = (int)(sizeof opts / sizeof opts[0])};
    int rc = cli_parse(&spec, argc, argv);
    if (rc >= 0) return rc;
    const Variant *var = cli_variant(cmd, variant);
    if (!var) return 2;
    if (!var->prelude) return setup_no_prelude(cmd, var);
    if (!prelude == !check)
        return cli_usage_error(cmd, "give exactly one of --prelude random and --check FEN");
    CvError err = {{0}};
    if (check) {
        Position *pos = malloc(sizeof *pos);
        bool valid = pos && pos_from_fen(pos, var, check, &err);
        free(pos);
        if (!valid) return cli_usage_error(cmd, "%s", err.msg);
        if (!prelude_check(var, &pp, check, &err)) {
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
        if (!prelude_random(var, &pp, (uint64_t)(seed + i), fen, sizeof fen, &err))
            return cli_usage_error(cmd, "%s", err.msg);
        printf("%s\n", fen);
    }
    return 0;
}
