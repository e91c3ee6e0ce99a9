/* cli.h - shared helpers of the chessvar command-line front ends. */
#ifndef CHESSVAR_CLI_H
#define CHESSVAR_CLI_H

#include <stdio.h>

#include "../engine/chessvar.h"

/* Every subcommand: returns the process exit status (0 ok, 1 failed check, 2 bad input). */
int cmd_perft(int argc, char **argv);
int cmd_setup(int argc, char **argv);
int cmd_suite(int argc, char **argv);
int cmd_selfplay(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_check(int argc, char **argv);

/* Prints "chessvar CMD: message" on stderr and returns 2 (bad input). */
int cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Value of option argv[*i] (advances *i); reports a missing value. */
const char *cli_value(const char *cmd, int argc, char **argv, int *i);

/* Parses a whole number in [lo, hi]; names the option and the bad text on failure. */
bool cli_int(const char *cmd, const char *opt, const char *text, long lo, long hi, long *out);

/* Resolves --variant (NULL: chess); prints the known names on failure. */
const Variant *cli_variant(const char *cmd, const char *name);

/* Monotonic wall-clock seconds. */
double cli_now(void);

/* Writes s as a JSON string literal (with quotes) to f. */
void cli_json_str(FILE *f, const char *s);

#endif
