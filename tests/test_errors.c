/* test_errors.c - bad input: every FEN error is named, and the CLI exits 2 with one line
 * on stderr and nothing on stdout. */
#include <sys/wait.h>

#include "test_util.h"

TestSuite(errors, .init = engine_init);

/* The FEN must be rejected with a message containing `what`. */
static void expect_bad(const char *variant, const char *fen, const char *what) {
    Position *p = malloc(sizeof *p);
    CvError err = {{0}};
    cr_assert_not(pos_from_fen(p, variant_by_name(variant), fen, &err), "accepted: %s", fen);
    cr_assert(strstr(err.msg, what), "for '%s' expected '%s' in: %s", fen, what, err.msg);
    free(p);
}

Test(errors, bad_fens_are_named) {
    expect_bad("chess", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP w KQkq - 0 1", "7 ranks");
    expect_bad("chess", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR/8 w KQkq - 0 1",
               "more than 8 ranks");
    expect_bad("chess", "rnbqkbnr/pppppppp/9/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "rank 6");
    expect_bad("chess", "rnbqkbnr/ppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
               "rank 7 has 7 squares");
    expect_bad("chess", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNX w KQkq - 0 1",
               "unknown piece letter 'X' on rank 1");
    expect_bad("chess", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBKKBNR w kq - 0 1",
               "white has 2 kings");
    expect_bad("chess", "rnbq1bnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQ - 0 1",
               "black has 0 kings");
    expect_bad("chess", "4k3/8/8/8/8/8/4R3/4K3 w - - 0 1", "side not to move (black) is in check");
    expect_bad("chess", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1", "field 2");
    expect_bad("chess", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkz - 0 1",
               "castling field has 'z'");
    expect_bad("chess", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBN1 w KQkq - 0 1",
               "no rook in the corner");
    expect_bad("chess", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQ1BNR w kq - 0 1",
               "white has 0 kings");
    expect_bad("chess", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e3 0 1",
               "e.p. square e3");
    expect_bad("chess", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq z9 0 1",
               "not a square");
    expect_bad("chess", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - x 1", "field 5");
    expect_bad("chess", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 0", "field 6");
    expect_bad("chess", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - -3 1", "field 5");
    expect_bad("chess", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w", "need at least 4");
    expect_bad("chess", "rnbqkbnP/pppppppp/8/8/8/8/PPPPPPP1/RNBQKBNR w KQq - 0 1", "last rank");
    expect_bad("chess", "rnbqkbnr/pppppppp/8/8/8/8/1PPPPPPP/PNBQKBNR w Kkq - 0 1",
               "own first rank");
}

/* Runs the chessvar binary; returns its exit status and captures stdout/stderr line counts. */
static int run_cli(const char *args, int *out_lines, int *err_lines) {
    char cmd[1024];
    snprintf(cmd, sizeof cmd,
             "%s %s >" CHESSVAR_TEST_WORK "/cli_out.txt 2>" CHESSVAR_TEST_WORK "/cli_err.txt",
             CHESSVAR_BINARY, args);
    int st = system(cmd);
    int lines[2] = {0, 0};
    const char *files[2] = {CHESSVAR_TEST_WORK "/cli_out.txt", CHESSVAR_TEST_WORK "/cli_err.txt"};
    for (int i = 0; i < 2; i++) {
        FILE *f = fopen(files[i], "r");
        int c;
        while (f && (c = fgetc(f)) != EOF) lines[i] += c == '\n';
        if (f) fclose(f);
        remove(files[i]);
    }
    *out_lines = lines[0];
    *err_lines = lines[1];
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

Test(errors, cli_bad_input_exits_2_with_one_line) {
    const char *bad[] = {
        "perft --variant nosuch --depth 2",
        "perft --depth",
        "perft --depth x",
        "perft --depth 0",
        "perft --bogus",
        "perft --fen '8/8/8 w - - 0 1' --depth 2",
        "perft --fen 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 extra' --depth 2",
        "perft --variant chess --start nosuch",
        "nosuchcommand",
        "verify --bogus",
        "verify --engine x --depth 0",
        "verify --engine x --depth 2 --protocol x",
        "verify --engine x --depth 2 --option =x",
        "verify --engine x",
        "setup --variant chess --prelude random",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        int o, e;
        int st = run_cli(bad[i], &o, &e);
        cr_assert_eq(st, 2, "'%s' exited %d", bad[i], st);
        cr_assert_eq(o, 0, "'%s' printed a result", bad[i]);
        cr_assert_eq(e, 1, "'%s' printed %d lines on stderr", bad[i], e);
    }
    int o, e;
    cr_assert_eq(run_cli("perft --depth 3", &o, &e), 0);
    cr_assert_eq(o, 1);
    cr_assert_eq(run_cli("--help", &o, &e), 0);
}

/* The help of `chessvar ARGS` (with --help among them) on stdout, read into buf. */
static void help_of(const char *args, char *buf, size_t n) {
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "%s %s >" CHESSVAR_TEST_WORK "/cli_help.txt", CHESSVAR_BINARY, args);
    int st = system(cmd);
    cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "'%s' exited %d", args, st);
    FILE *f = fopen(CHESSVAR_TEST_WORK "/cli_help.txt", "r");
    cr_assert(f);
    size_t len = fread(buf, 1, n - 1, f);
    buf[len] = 0;
    fclose(f);
    remove(CHESSVAR_TEST_WORK "/cli_help.txt");
}

Test(errors, help_shows_each_default_from_its_initial_value) {
    const char *cmds[] = {"perft", "suite", "setup",  "selfplay",
                          "bench", "check", "verify", "train"};
    static char help[32768];
    for (size_t i = 0; i < sizeof cmds / sizeof *cmds; i++) {
        char args[64];
        snprintf(args, sizeof args, "%s --help", cmds[i]);
        help_of(args, help, sizeof help);
        cr_assert(strstr(help, "usage: chessvar"), "%s: no usage", cmds[i]);
        cr_assert_null(strstr(help, "%v"), "%s: a default left unwritten:\n%s", cmds[i], help);
        cr_assert_null(strstr(help, "default ?"), "%s: a default without show:\n%s", cmds[i], help);
    }
    /* the defaults, not the values given before --help */
    help_of("check --games 5 --help", help, sizeof help);
    cr_assert(strstr(help, "games per variant (default 40)"), "%s", help);
    help_of("train --lr 0.5 --shuffle 7 --help", help, sizeof help);
    cr_assert(strstr(help, "Adam step size (default 0.003)"), "%s", help);
    cr_assert(strstr(help, "shuffle buffer of N records (default 1048576)"), "%s", help);
    help_of("selfplay --help", help, sizeof help);
    cr_assert(strstr(help, "(default 14 on 8x8, 16 on 10x10)"), "%s", help);
    help_of("verify --help", help, sizeof help);
    cr_assert(strstr(help, "(default 60)") && strstr(help, "(default uci)"), "%s", help);
}
