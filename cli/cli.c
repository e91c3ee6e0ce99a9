#define _POSIX_C_SOURCE 200809L /* clock_gettime under strict C11 */
/* cli.c - option parsing, timing and JSON helpers shared by the subcommands. */
#include "cli.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int cli_usage_error(const char *cmd, const char *fmt, ...) {
    va_list ap;
    fprintf(stderr, "chessvar %s: ", cmd);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return 2;
}

const char *cli_value(const char *cmd, int argc, char **argv, int *i) {
    if (*i + 1 >= argc) {
        cli_usage_error(cmd, "option %s needs a value", argv[*i]);
        return NULL;
    }
    return argv[++*i];
}

bool cli_int(const char *cmd, const char *opt, const char *text, long lo, long hi, long *out) {
    char *end;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (!*text || *end || errno || v < lo || v > hi) {
        cli_usage_error(cmd, "%s needs a whole number from %ld to %ld, got '%s'", opt, lo, hi,
                        text);
        return false;
    }
    *out = v;
    return true;
}

const Variant *cli_variant(const char *cmd, const char *name) {
    if (!name) return variant_by_name("chess");
    const Variant *v = variant_by_name(name);
    if (!v) {
        fprintf(stderr, "chessvar %s: unknown variant '%s' (known:", cmd, name);
        for (int i = 0; i < variant_count(); i++) fprintf(stderr, " %s", variant_name_at(i));
        fprintf(stderr, ")\n");
    }
    return v;
}

bool cli_opt_sprt(const char *cmd, const char *opt, const char *val, void *dst) {
    CliSprt *s = dst;
    char err[160];
    if (!sprt_parse(val, &s->spec, err, sizeof err)) {
        cli_usage_error(cmd, "%s %s", opt, err);
        return false;
    }
    s->given = true;
    return true;
}

int cli_budget_field(const char *cmd, const char *prefix, const char *key, const char *val,
                     long max_depth, PlayerSpec *p) {
    char label[64];
    long v;
    snprintf(label, sizeof label, "%s%s%s", prefix ? prefix : "--", prefix ? " " : "", key);
    if (strcmp(key, "nodes") == 0) {
        if (!cli_int(cmd, label, val, 1, 1000000000L, &v)) return -1;
        p->nodes = v;
    } else if (strcmp(key, "depth") == 0) {
        if (!cli_int(cmd, label, val, 1, max_depth, &v)) return -1;
        p->depth = (int)v;
    } else if (strcmp(key, "movetime") == 0) {
        if (!cli_int(cmd, label, val, 1, 100000000L, &v)) return -1;
        p->movetime_ms = v;
    } else return 0;
    return 1;
}

bool cli_engine_option(const char *cmd, const char *what, UciEngineSpec *e, const char *name,
                       const char *value) {
    if (e->noptions == UCI_MAX_OPTIONS) {
        cli_usage_error(cmd, "%s: at most %d options", what, UCI_MAX_OPTIONS);
        return false;
    }
    e->option_name[e->noptions] = name;
    e->option_value[e->noptions++] = value;
    return true;
}

void cli_sprt_summary(const SprtSpec *s, const uint64_t pairs[SPRT_NCLASS], bool stopped,
                      bool json) {
    SprtStatus st = sprt_status(s, pairs);
    const char *model = s->normalized ? "normalized" : "logistic";
    if (json) {
        printf("\"sprt\":{\"elo0\":%g,\"elo1\":%g,\"alpha\":%g,\"beta\":%g,\"elo_model\":\"%s\","
               "\"pairs\":%llu,\"llr\":%.4f,\"lower\":%.4f,\"upper\":%.4f,\"decision\":\"%s\","
               "\"stopped\":%s,\"elo\":%.1f,\"elo_95\":[%.1f,%.1f]},",
               s->elo0, s->elo1, s->alpha, s->beta, model, (unsigned long long)st.pairs, st.llr,
               st.lower, st.upper,
               st.decision == SPRT_H1   ? "H1"
               : st.decision == SPRT_H0 ? "H0"
                                        : "none",
               stopped ? "true" : "false", st.elo, st.elo_lo, st.elo_hi);
        return;
    }
    printf("SPRT [%g, %g] (%s Elo, alpha %g, beta %g): LLR %.2f, bounds [%.2f, %.2f]: %s%s\n",
           s->elo0, s->elo1, model, s->alpha, s->beta, st.llr, st.lower, st.upper,
           st.decision == SPRT_H1   ? "H1 accepted"
           : st.decision == SPRT_H0 ? "H0 accepted"
                                    : "no decision",
           stopped ? " (the match stopped there)" : " (--games reached)");
}

double cli_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void cli_json_str(FILE *f, const char *s) {
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\') fprintf(f, "\\%c", *s);
        else if ((unsigned char)*s < 0x20) fprintf(f, "\\u%04x", *s);
        else fputc(*s, f);
    }
    fputc('"', f);
}

/* Stores one option's value (val is NULL for a flag); false after reporting bad input. */
static bool cli_store(const char *cmd, const CliOpt *o, const char *val) {
    long v;
    switch (o->kind) {
    case CLI_FLAG: *(bool *)o->dst = true; return true;
    case CLI_TEXT: *(const char **)o->dst = val; return true;
    case CLI_LONG:
        if (!cli_int(cmd, o->name, val, o->lo, o->hi, &v)) return false;
        *(long *)o->dst = v;
        return true;
    case CLI_INT:
        if (!cli_int(cmd, o->name, val, o->lo, o->hi, &v)) return false;
        *(int *)o->dst = (int)v;
        return true;
    case CLI_CALL: return o->call(cmd, o->name, val, o->dst);
    }
    return false;
}

void cli_show_double(const char *opt, const void *dst, char *buf, size_t n) {
    (void)opt;
    snprintf(buf, n, "%.15g", *(const double *)dst);
}

void cli_show_u64(const char *opt, const void *dst, char *buf, size_t n) {
    (void)opt;
    snprintf(buf, n, "%llu", (unsigned long long)*(const uint64_t *)dst);
}

/* Longest default the help shows, with its terminating zero. */
#define CLI_SHOWN 64

/* Writes the value at option o's dst as its help's %v. */
static void cli_show(const CliOpt *o, char *buf, size_t n) {
    const char *text;
    switch (o->kind) {
    case CLI_FLAG: snprintf(buf, n, "%s", *(const bool *)o->dst ? "on" : "off"); return;
    case CLI_TEXT:
        text = *(const char *const *)o->dst;
        snprintf(buf, n, "%s", text ? text : "none");
        return;
    case CLI_LONG: snprintf(buf, n, "%ld", *(const long *)o->dst); return;
    case CLI_INT: snprintf(buf, n, "%d", *(const int *)o->dst); return;
    case CLI_CALL:
        if (o->show) o->show(o->name, o->dst, buf, n);
        else snprintf(buf, n, "?");
        return;
    }
}

/* Widest option column of the help; wider options get their help on the next line. */
#define CLI_HELP_COLUMN 20

/* cli_help with the defaults shown[k] of each option k (NULL: the values at dst now). */
static void cli_help_shown(FILE *f, const CliSpec *spec, const char (*shown)[CLI_SHOWN]) {
    fputs(spec->usage, f);
    int width = 0;
    for (int k = 0; k < spec->nopts; k++) {
        const CliOpt *o = &spec->opts[k];
        int w = (int)strlen(o->name) + (o->arg ? 1 + (int)strlen(o->arg) : 0);
        if (w > width && w <= CLI_HELP_COLUMN) width = w;
    }
    for (int k = 0; k < spec->nopts; k++) {
        const CliOpt *o = &spec->opts[k];
        char col[64], now[CLI_SHOWN];
        snprintf(col, sizeof col, "%s%s%s", o->name, o->arg ? " " : "", o->arg ? o->arg : "");
        if ((int)strlen(col) > width) fprintf(f, "  %s\n  %-*s  ", col, width, "");
        else fprintf(f, "  %-*s  ", width, col);
        for (const char *h = o->help; *h; h++) {
            if (h[0] == '%' && h[1] == 'v') {
                if (!shown) cli_show(o, now, sizeof now);
                fputs(shown ? shown[k] : now, f);
                h++;
                continue;
            }
            fputc(*h, f);
            if (*h == '\n') fprintf(f, "  %-*s  ", width, "");
        }
        fputc('\n', f);
    }
    if (spec->epilogue) fputs(spec->epilogue, f);
    if (spec->list_variants) {
        fprintf(f, "variants:");
        for (int i = 0; i < variant_count(); i++) fprintf(f, " %s", variant_name_at(i));
        fprintf(f, "\n");
    }
}

void cli_help(FILE *f, const CliSpec *spec) { cli_help_shown(f, spec, NULL); }

static bool cli_is_help(const char *a) { return strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0; }

/* cli_parse, printing the defaults shown (NULL: the values at dst then) on --help. */
static int cli_parse_shown(const CliSpec *spec, int argc, char **argv,
                           const char (*shown)[CLI_SHOWN]) {
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (cli_is_help(a)) {
            cli_help_shown(stdout, spec, shown);
            return 0;
        }
        const CliOpt *o = NULL;
        for (int k = 0; k < spec->nopts && !o; k++)
            if (strcmp(a, spec->opts[k].name) == 0) o = &spec->opts[k];
        if (!o && spec->positional && !(a[0] == '-' && a[1])) {
            if (*spec->positional)
                return cli_usage_error(spec->cmd, "one argument only ('%s' and '%s')",
                                       *spec->positional, a);
            *spec->positional = a;
            continue;
        }
        if (!o)
            return cli_usage_error(spec->cmd, "unknown option '%s' (chessvar %s --help lists them)",
                                   a, spec->cmd);
        const char *val = NULL;
        if (o->kind != CLI_FLAG && !(val = cli_value(spec->cmd, argc, argv, &i))) return 2;
        if (!cli_store(spec->cmd, o, val)) return 2;
    }
    return -1;
}

int cli_parse(const CliSpec *spec, int argc, char **argv) {
    /* With --help on the line, the defaults are taken before any option is stored. */
    char(*shown)[CLI_SHOWN] = NULL;
    for (int i = 1; i < argc && !shown; i++)
        if (cli_is_help(argv[i]) && (shown = calloc((size_t)spec->nopts + 1, sizeof *shown)))
            for (int k = 0; k < spec->nopts; k++) cli_show(&spec->opts[k], shown[k], CLI_SHOWN);
    int rc = cli_parse_shown(spec, argc, argv, (const char(*)[CLI_SHOWN])shown);
    free(shown);
    return rc;
}
