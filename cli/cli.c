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
        for (int i = 0; i < variant_count(); i++) fprintf(stderr, " %s", variant_at(i)->name);
        fprintf(stderr, ")\n");
    }
    return v;
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
