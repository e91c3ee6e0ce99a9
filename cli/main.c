/* main.c - the chessvar binary: dispatches to its subcommands. */
#include <string.h>

#include "cli.h"

typedef struct Command {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
} Command;

/* Prints the subcommands this build has. */
static void main_help(FILE *f, const Command *cmds, int n) {
    fprintf(f,
            "chessvar - proves chess-variant move generators right (perft) and makes them fast\n\n"
            "usage: chessvar COMMAND [OPTIONS]   (chessvar COMMAND --help for its "
            "options)\n\ncommands:\n");
    for (int i = 0; i < n; i++) fprintf(f, "  %-9s %s\n", cmds[i].name, cmds[i].summary);
    fprintf(f, "\nvariants:");
    for (int i = 0; i < variant_count(); i++) fprintf(f, " %s", variant_name_at(i));
    fprintf(f, "\n");
}

int main(int argc, char **argv) {
    engine_init();
    const Command cmds[] = {
        {"perft", cmd_perft,
         "count the leaves of the legal-move tree (divide, JSON, all variants)"},
        {"suite", cmd_suite, "run EPD perft suites: PASS/FAIL per line, summary, JSON"},
        {"selfplay", cmd_selfplay, "play many games on all cores and write training data"},
        {"bench", cmd_bench, "fixed signed workload: speed and a node-count signature"},
        {"check", cmd_check, "rule-consistency checker: invariants on many positions"},
        {"uci", cmd_uci, "speak UCI on stdin/stdout: chessvar as an engine for any variant"},
        {"verify", cmd_verify, "find the first node where another engine's perft goes wrong"},
        {"setup", cmd_setup, "Superchess start arrays: random prelude setups and prelude checks"},
        {"train", cmd_train,
         "train an evaluation network on self-play data; evaluate FENs with one"},
        {"data", cmd_data, "training data: convert formats, stats, rescore labels, decode speed"},
        {"match", cmd_match,
         "match two UCI engines (or one and chessvar) in any variant; SPRT; PGN"},
        {"sprt", cmd_sprt, "SPRT of game-pair counts (LLR, decision, Elo); simulated SPRTs"},
    };
    const int n = (int)(sizeof cmds / sizeof cmds[0]);
    if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        main_help(argc < 2 ? stderr : stdout, cmds, n);
        return argc < 2 ? 2 : 0;
    }
    for (int i = 0; i < n; i++)
        if (strcmp(argv[1], cmds[i].name) == 0) return cmds[i].run(argc - 1, argv + 1);
    fprintf(stderr, "chessvar: unknown command '%s' (chessvar --help lists them)\n", argv[1]);
    return 2;
}
