/* cli.h - shared helpers of the chessvar command-line front ends. */
#ifndef CHESSVAR_CLI_H
#define CHESSVAR_CLI_H

#include <stdio.h>

#include "../engine/chessvar.h"
#include "../selfplay/match/sprt.h"

/* Every subcommand: returns the process exit status (0 ok, 1 failed check, 2 bad input). */
int cmd_perft(int argc, char **argv);
int cmd_setup(int argc, char **argv);
int cmd_suite(int argc, char **argv);
int cmd_selfplay(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_uci(int argc, char **argv);
int cmd_verify(int argc, char **argv);
int cmd_train(int argc, char **argv);
int cmd_data(int argc, char **argv);
int cmd_sprt(int argc, char **argv);
int cmd_match(int argc, char **argv);
/* The UCI command loop of `chessvar uci` on `in` (answers on stdout) until quit or EOF. */
int uci_loop(FILE *in);

/* ------------------------------------------------------------ option tables */

/* What an option takes and where the parsed value goes. */
typedef enum CliOptKind {
    CLI_FLAG, /* no value; sets *(bool *)dst */
    CLI_TEXT, /* the value as is into *(const char **)dst */
    CLI_LONG, /* a whole number in [lo, hi] into *(long *)dst */
    CLI_INT,  /* a whole number in [lo, hi] into *(int *)dst */
    CLI_CALL  /* the value handed to call(), which reports its own errors */
} CliOptKind;

/* One option of a command: its name, its value's name and help (both for --help), what it
 * takes and where it goes.
 *
 * A default lives in one place and the help reads it from there: "%v" in the help stands
 * for the value at dst before parsing (the initialiser), written by the kind (a number, the
 * text or "none", "on" or "off"; CLI_CALL by `show`). A default that a command works out
 * after parsing is a named constant, spelled into the help with CLI_STR. */
typedef struct CliOpt {
    const char *name; /* "--depth" */
    const char *arg;  /* "D" in the help; NULL for a flag */
    const char *help; /* one or more lines ('\n' starts another, indented); %v: the default */
    CliOptKind kind;
    void *dst;
    long lo, hi;
    bool (*call)(const char *cmd, const char *opt, const char *val, void *dst);
    /* CLI_CALL: writes the value at dst as the help's %v (NULL: its help has no %v) */
    void (*show)(const char *opt, const void *dst, char *buf, size_t n);
} CliOpt;

#define CLI_OPT_FLAG(name, dst, help)                                                              \
    { name, NULL, help, CLI_FLAG, dst, 0, 0, NULL, NULL }
#define CLI_OPT_TEXT(name, arg, dst, help)                                                         \
    { name, arg, help, CLI_TEXT, dst, 0, 0, NULL, NULL }
#define CLI_OPT_LONG(name, arg, lo, hi, dst, help)                                                 \
    { name, arg, help, CLI_LONG, dst, lo, hi, NULL, NULL }
#define CLI_OPT_INT(name, arg, lo, hi, dst, help)                                                  \
    { name, arg, help, CLI_INT, dst, lo, hi, NULL, NULL }
#define CLI_OPT_CALL(name, arg, fn, dst, help)                                                     \
    { name, arg, help, CLI_CALL, dst, 0, 0, fn, NULL }
/* A CLI_CALL option whose help shows its default (%v) with show. */
#define CLI_OPT_CALL_SHOW(name, arg, fn, show, dst, help)                                          \
    { name, arg, help, CLI_CALL, dst, 0, 0, fn, show }

/* The text of a numeric constant's macro, for a default spelled into a help string. */
#define CLI_STR_(x) #x
#define CLI_STR(x)  CLI_STR_(x)

/* Shows for CLI_OPT_CALL_SHOW: the double at dst (%.15g: 0.003, 1048576), the uint64_t. */
void cli_show_double(const char *opt, const void *dst, char *buf, size_t n);
void cli_show_u64(const char *opt, const void *dst, char *buf, size_t n);

/* A command's options and help: usage lines first, then one line per option, then the
 * epilogue. */
typedef struct CliSpec {
    const char *cmd;         /* "perft" */
    const char *usage;       /* printed before the options */
    const char *epilogue;    /* printed after them, or NULL */
    const CliOpt *opts;      /* the table */
    int nopts;               /* its length */
    const char **positional; /* where the one positional argument goes (NULL: none taken) */
    bool list_variants;      /* end the help with the names of the variants */
} CliSpec;

/* Parses argv[1..argc) with the spec's table. Returns -1 to go on, 0 after printing the
 * help (--help, -h) on stdout, 2 after a one-line message on bad input. */
int cli_parse(const CliSpec *spec, int argc, char **argv);

/* Prints the usage, one line per option with its default (the value at its dst now), the
 * epilogue and (if asked) the variants. */
void cli_help(FILE *f, const CliSpec *spec);

/* Prints "chessvar CMD: message" on stderr and returns 2 (bad input). */
int cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Value of option argv[*i] (advances *i); reports a missing value. */
const char *cli_value(const char *cmd, int argc, char **argv, int *i);

/* Parses a whole number in [lo, hi]; names the option and the bad text on failure. */
bool cli_int(const char *cmd, const char *opt, const char *text, long lo, long hi, long *out);

/* Resolves --variant (NULL: chess); prints the known names on failure. */
const Variant *cli_variant(const char *cmd, const char *name);

/* --sprt ELO0,ELO1[,ALPHA,BETA] of match, selfplay and sprt: the test and whether given. */
typedef struct CliSprt {
    SprtSpec spec;
    bool given;
} CliSprt;

/* The --sprt option's callback: parses the value into the CliSprt at dst (keeping its
 * spec.normalized) and marks it given. */
bool cli_opt_sprt(const char *cmd, const char *opt, const char *val, void *dst);

/* A budget KEY=VALUE of a player (nodes=N, depth=D up to max_depth, movetime=MS) into p;
 * the message of a bad value names "PREFIX KEY" (prefix NULL: "--KEY"). 1 when parsed, 0
 * when key is not a budget, -1 after a message on a bad value. */
int cli_budget_field(const char *cmd, const char *prefix, const char *key, const char *val,
                     long max_depth, PlayerSpec *p);

/* Adds the UCI option NAME=VALUE (kept by pointer) to engine e; false after a message
 * "WHAT: at most N options" when it has as many as it can hold. */
bool cli_engine_option(const char *cmd, const char *what, UciEngineSpec *e, const char *name,
                       const char *value);

/* The SPRT of a match's summary (A's game pairs in pairs; stopped: the test ended the
 * match): a JSON member "sprt":{...} followed by a comma, or one text line. */
void cli_sprt_summary(const SprtSpec *s, const uint64_t pairs[SPRT_NCLASS], bool stopped,
                      bool json);

/* Monotonic wall-clock seconds. */
double cli_now(void);

/* Writes s as a JSON string literal (with quotes) to f. */
void cli_json_str(FILE *f, const char *s);

#endif
