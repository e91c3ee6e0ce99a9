/* fuzz_uci.c - libFuzzer target for the UCI command loop: the input is a session of
 * command lines (mutated from the seed sessions of fuzz/corpus/uci), fed to the same loop
 * as `chessvar uci` reads from standard input. What must hold: the loop returns at the end
 * of the input, whatever the commands and their order (a `go` before `stop`, `go infinite`
 * never stopped, options while a search runs, bad values), with no sanitizer report; a
 * hang shows as libFuzzer's timeout. The fuzz build caps `go perft` and Hash so one input
 * stays fast and small. */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "../cli/cli.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The engine's answers are not checked here: they go to /dev/null. */
int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    engine_init();
    if (!freopen("/dev/null", "w", stdout)) abort();
    return 0;
}

/* One input: one session; the loop must come back from it. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size == 0) return 0;
    FILE *in = fmemopen((void *)data, size, "r");
    if (!in) return 0;
    uci_loop(in);
    fclose(in);
    return 0;
}
