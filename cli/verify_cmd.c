/* verify_cmd.c - `chessvar verify`: compares another engine's perft divides with
 * chessvar's and descends into the first root move whose counts differ, again and again,
 * down to the node where the move lists differ; reports the path, that FEN and the
 * missing and extra moves. The engine is driven through selfplay/match/uci_client.h (UCI
 * `go perft`, or the perftree convention `CMD depth "fen" "moves"`). */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../selfplay/match/uci_client.h"
#include "../selfplay/profile.h"
#include "cli.h"

#define CMD         "verify"
#define MAX_OPTIONS 32

/* Options of one run. */
typedef struct VerifyOpts {
    const char *engine, *fen, *start;
    const Variant *var;
    int depth;
    bool perftree, json;
    double timeout;
    int noptions;
    char *option[MAX_OPTIONS]; /* NAME=VALUE */
} VerifyOpts;

/* What the descent found. */
typedef struct VerifyResult {
    bool agree;
    int plies; /* length of the path */
    int depth; /* perft depth at the node where the lists (or counts) differ */
    char fen[512];
    char path[64][32];
    int nmissing, nextra, ncounts;
    char missing[MAX_MOVES][32], extra[MAX_MOVES][32];
    char count_move[8][32]; /* same move, different count, where no deeper node explains it */
    uint64_t count_engine[8], count_chessvar[8];
    uint64_t engine_nodes, chessvar_nodes;
    char note[256];
} VerifyResult;

/* --protocol uci|perftree. */
static bool verify_opt_protocol(const char *cmd, const char *opt, const char *val, void *dst) {
    if (strcmp(val, "uci") != 0 && strcmp(val, "perftree") != 0) {
        cli_usage_error(cmd, "%s takes uci or perftree, got '%s'", opt, val);
        return false;
    }
    *(bool *)dst = strcmp(val, "perftree") == 0;
    return true;
}

/* Shows --protocol's default. */
static void verify_show_protocol(const char *opt, const void *dst, char *buf, size_t n) {
    (void)opt;
    snprintf(buf, n, "%s", *(const bool *)dst ? "perftree" : "uci");
}

/* --option NAME=VALUE (repeatable). */
static bool verify_opt_option(const char *cmd, const char *opt, const char *val, void *dst) {
    VerifyOpts *o = dst;
    if (!strchr(val, '=') || val[0] == '=') {
        cli_usage_error(cmd, "%s needs NAME=VALUE, got '%s'", opt, val);
        return false;
    }
    if (o->noptions == MAX_OPTIONS) {
        cli_usage_error(cmd, "at most %d %s", MAX_OPTIONS, opt);
        return false;
    }
    o->option[o->noptions++] = (char *)val;
    return true;
}

/* --timeout S: whole seconds into a double. */
static bool verify_opt_seconds(const char *cmd, const char *opt, const char *val, void *dst) {
    long v;
    if (!cli_int(cmd, opt, val, 1, 1000000, &v)) return false;
    *(double *)dst = (double)v;
    return true;
}

/* Parses argv; returns 0, or the exit status to return (help: -1). */
static int verify_parse(int argc, char **argv, VerifyOpts *o) {
    memset(o, 0, sizeof *o);
    o->timeout = 60;
    const char *variant = NULL;
    const CliOpt opts[] = {
        CLI_OPT_TEXT("--engine", "CMD", &o->engine, "the other engine, run through /bin/sh"),
        CLI_OPT_TEXT("--variant", "V", &variant,
                     "variant (default chess); UCI_Variant is set when not chess"),
        CLI_OPT_TEXT("--fen", "FEN", &o->fen, "position (default: the variant's start)"),
        CLI_OPT_TEXT("--start", "NAME", &o->start, "a named start position instead of --fen"),
        CLI_OPT_INT("--depth", "D", 1, 20, &o->depth, "perft depth to compare"),
        CLI_OPT_CALL("--option", "NAME=VALUE", verify_opt_option, o,
                     "UCI option sent before UCI_Variant (repeatable);\n"
                     "--option UCI_Variant=NAME names the variant as the engine does"),
        CLI_OPT_CALL_SHOW("--protocol", "uci|perftree", verify_opt_protocol, verify_show_protocol,
                          &o->perftree,
                          "uci: `go perft` divides; perftree: the engine is run as\n"
                          "CMD depth \"fen\" \"moves\" for each divide (default %v)"),
        CLI_OPT_CALL_SHOW("--timeout", "S", verify_opt_seconds, cli_show_double, &o->timeout,
                          "seconds allowed for every answer (default %v)"),
        CLI_OPT_FLAG("--json", &o->json,
                     "one JSON object: agree, depth, fen, path, missing, extra,\n"
                     "engine_nodes, chessvar_nodes"),
    };
    const CliSpec spec = {
        .cmd = CMD,
        .usage = "usage: chessvar verify --engine \"CMD [ARGS]\" --depth D [options]\n",
        .epilogue =
            "Exit status: 0 every count agrees, 1 a disagreement (reported), 2 bad usage or an\n"
            "engine that does not start, answer or speak the protocol (with its last lines).\n",
        .opts = opts,
        .nopts = (int)(sizeof opts / sizeof opts[0])};
    int rc = cli_parse(&spec, argc, argv);
    if (rc == 0) return -1;
    if (rc > 0) return rc;
    if (!(o->var = cli_variant(CMD, variant))) return 2;
    if (!o->engine) return cli_usage_error(CMD, "--engine \"CMD [ARGS]\" is required");
    if (!o->depth) return cli_usage_error(CMD, "--depth D is required");
    if (o->fen && o->start) return cli_usage_error(CMD, "give --fen or --start, not both");
    if (o->start && !(o->fen = variant_start(o->var, o->start)))
        return cli_usage_error(CMD, "--start: %s has no start position '%s'", o->var->name,
                               o->start);
    if (!o->fen) o->fen = o->var->start_fen;
    if (o->perftree && o->noptions) return cli_usage_error(CMD, "--option needs --protocol uci");
    return 0;
}

/* The engine of a run: a UCI process, or a command run once per divide (perftree). */
typedef struct VerifyEngine {
    const VerifyOpts *o;
    UciProc proc;
    char tail[4096];
} VerifyEngine;

/* Starts a UCI engine and sends the options and UCI_Variant; perftree needs nothing. */
static bool verify_engine_start(VerifyEngine *ve, CvError *err) {
    const VerifyOpts *o = ve->o;
    if (o->perftree) return true;
    if (!uci_start(&ve->proc, o->engine, o->timeout, err)) return false;
    for (int i = 0; i < o->noptions; i++) {
        char name[256];
        snprintf(name, sizeof name, "%s", o->option[i]);
        char *eq = strchr(name, '=');
        *eq = 0;
        if (!uci_set_option(&ve->proc, name, eq + 1, o->timeout, err)) return false;
    }
    bool own_variant = false; /* --option UCI_Variant=NAME: the engine's name for it */
    for (int i = 0; i < o->noptions; i++)
        own_variant |= strncasecmp(o->option[i], "UCI_Variant=", 12) == 0;
    const char *uci_variant = profile_of(o->var)->uci_variant;
    if (uci_variant && !own_variant &&
        !uci_set_option(&ve->proc, "UCI_Variant", uci_variant, o->timeout, err))
        return false;
    return uci_ready(&ve->proc, o->timeout, err);
}

/* The engine's divide at the root FEN plus moves (engine notation), depth plies deep. */
static bool verify_engine_divide(VerifyEngine *ve, const char *moves, int depth, Divide *d,
                                 CvError *err) {
    const VerifyOpts *o = ve->o;
    if (o->perftree)
        return perftree_divide(o->engine, o->fen, moves, depth, o->timeout, d, ve->tail,
                               sizeof ve->tail, err);
    return uci_perft_divide(&ve->proc, o->fen, moves, depth, o->timeout, d, err);
}

/* Descends from the root to the first node whose move lists differ (or to depth 1). */
static bool verify_run(const VerifyOpts *o, VerifyEngine *ve, Position *pos, VerifyResult *r,
                       CvError *err) {
    Divide *d = malloc(sizeof *d);
    Move *list = malloc(MAX_MOVES * sizeof *list);
    uint64_t *count = malloc(MAX_MOVES * sizeof *count);
    int *match = malloc(MAX_MOVES * sizeof *match);
    char *moves = calloc(1, 64 * 40);
    bool ok = d && list && count && match && moves;
    int depth = o->depth;
    size_t mlen = 0;
    while (ok) {
        if (!(ok = verify_engine_divide(ve, moves, depth, d, err))) break;
        int n = pos_legal_moves(pos, list);
        uint64_t total = 0;
        for (int i = 0; i < n; i++) {
            count[i] = 1;
            if (depth > 1) {
                pos_make(pos, list[i]);
                count[i] = perft(pos, depth - 1);
                pos_unmake(pos);
            }
            total += count[i];
            match[i] = -1;
        }
        uint64_t etotal = 0;
        for (int j = 0; j < d->n; j++) etotal += d->e[j].count;
        if (r->plies == 0) {
            r->engine_nodes = d->total ? d->total : etotal;
            r->chessvar_nodes = total;
        }
        pos_to_fen(pos, r->fen, sizeof r->fen);
        r->depth = depth;
        for (int j = 0; j < d->n; j++) {
            Move m = uci_map_move(pos, d->e[j].move);
            int i = 0;
            while (i < n && list[i] != m) i++;
            if (m == MOVE_NONE || i == n || match[i] >= 0) { /* unknown, illegal or repeated */
                snprintf(r->extra[r->nextra++], sizeof r->extra[0], "%s", d->e[j].move);
                continue;
            }
            match[i] = j;
        }
        for (int i = 0; i < n; i++)
            if (match[i] < 0) move_to_str(pos, list[i], r->missing[r->nmissing++]);
        if (r->nmissing || r->nextra) break;
        int first = -1;
        for (int i = 0; i < n && first < 0; i++)
            if (d->e[match[i]].count != count[i]) first = i;
        if (first < 0) {
            r->agree = r->plies == 0;
            if (!r->agree)
                snprintf(r->note, sizeof r->note,
                         "the engine's counts here agree with chessvar's but its count of the "
                         "last path move one level up did not: its perft is inconsistent");
            break;
        }
        if (depth == 1 || r->plies == 64) { /* a count other than 1 at depth 1 */
            for (int i = first; i < n && r->ncounts < 8; i++)
                if (d->e[match[i]].count != count[i]) {
                    move_to_str(pos, list[i], r->count_move[r->ncounts]);
                    r->count_engine[r->ncounts] = d->e[match[i]].count;
                    r->count_chessvar[r->ncounts++] = count[i];
                }
            break;
        }
        move_to_str(pos, list[first], r->path[r->plies++]);
        const char *em = d->e[match[first]].move;
        mlen += (size_t)snprintf(moves + mlen, 64 * 40 - mlen, "%s%s", mlen ? " " : "", em);
        pos_make(pos, list[first]);
        depth--;
    }
    free(d);
    free(list);
    free(count);
    free(match);
    free(moves);
    return ok;
}

/* Prints a list of move strings as a JSON array. */
static void verify_json_list(char (*items)[32], int n) {
    printf("[");
    for (int i = 0; i < n; i++) {
        if (i) printf(",");
        cli_json_str(stdout, items[i]);
    }
    printf("]");
}

/* Prints the result as one JSON object. */
static void verify_print_json(const VerifyOpts *o, const VerifyResult *r) {
    printf("{\"agree\":%s,\"variant\":\"%s\",\"depth\":%d,\"diff_depth\":%d,\"fen\":",
           r->agree ? "true" : "false", o->var->name, o->depth, r->depth);
    cli_json_str(stdout, r->fen);
    printf(",\"path\":");
    verify_json_list((char(*)[32])r->path, r->plies);
    printf(",\"missing\":");
    verify_json_list((char(*)[32])r->missing, r->nmissing);
    printf(",\"extra\":");
    verify_json_list((char(*)[32])r->extra, r->nextra);
    printf(",\"counts\":[");
    for (int i = 0; i < r->ncounts; i++)
        printf("%s{\"move\":\"%s\",\"engine\":%llu,\"chessvar\":%llu}", i ? "," : "",
               r->count_move[i], (unsigned long long)r->count_engine[i],
               (unsigned long long)r->count_chessvar[i]);
    printf("],\"engine_nodes\":%llu,\"chessvar_nodes\":%llu,\"note\":",
           (unsigned long long)r->engine_nodes, (unsigned long long)r->chessvar_nodes);
    cli_json_str(stdout, r->note);
    printf("}\n");
}

/* Prints the result for people. */
static void verify_print_text(const VerifyOpts *o, const VerifyResult *r) {
    if (r->agree) {
        printf("verify: agree: %s depth %d, %llu nodes (engine %llu)\n", o->var->name, o->depth,
               (unsigned long long)r->chessvar_nodes, (unsigned long long)r->engine_nodes);
        return;
    }
    printf("verify: DISAGREE: %s depth %d: engine %llu nodes, chessvar %llu\n", o->var->name,
           o->depth, (unsigned long long)r->engine_nodes, (unsigned long long)r->chessvar_nodes);
    printf("path:    ");
    for (int i = 0; i < r->plies; i++) printf("%s%s", i ? " " : "", r->path[i]);
    printf("%s\nfen:     %s\ndepth:   %d (at this node)\n", r->plies ? "" : "(root)", r->fen,
           r->depth);
    printf("missing:");
    for (int i = 0; i < r->nmissing; i++) printf(" %s", r->missing[i]);
    printf("%s\nextra:  ", r->nmissing ? "  (chessvar has them, the engine does not)" : " -");
    for (int i = 0; i < r->nextra; i++) printf(" %s", r->extra[i]);
    printf("%s\n", r->nextra ? "  (the engine has them, chessvar does not)" : " -");
    for (int i = 0; i < r->ncounts; i++)
        printf("count:   %s engine %llu, chessvar %llu\n", r->count_move[i],
               (unsigned long long)r->count_engine[i], (unsigned long long)r->count_chessvar[i]);
    if (r->note[0]) printf("note:    %s\n", r->note);
}

int cmd_verify(int argc, char **argv) {
    VerifyOpts o;
    int rc = verify_parse(argc, argv, &o);
    if (rc) return rc < 0 ? 0 : rc;
    Position *pos = malloc(sizeof *pos);
    VerifyEngine *ve = calloc(1, sizeof *ve);
    VerifyResult *r = calloc(1, sizeof *r);
    CvError err = {{0}};
    if (!pos || !ve || !r) return cli_usage_error(CMD, "out of memory");
    ve->o = &o;
    if (!pos_from_fen(pos, o.var, o.fen, &err)) {
        rc = cli_usage_error(CMD, "--fen: %s", err.msg);
    } else if (!verify_engine_start(ve, &err) || !verify_run(&o, ve, pos, r, &err)) {
        if (!o.perftree) uci_tail(&ve->proc, ve->tail, sizeof ve->tail);
        rc = cli_usage_error(CMD, "engine failure: %s\nthe engine's last lines:\n%s", err.msg,
                             ve->tail);
    } else {
        if (o.json) verify_print_json(&o, r);
        else verify_print_text(&o, r);
        rc = r->agree ? 0 : 1;
    }
    if (!o.perftree) uci_quit(&ve->proc, 1.0);
    free(pos);
    free(ve);
    free(r);
    return rc;
}
