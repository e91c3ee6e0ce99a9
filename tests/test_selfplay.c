/* test_selfplay.c - self-play: adjudication cases, the search on tactical positions, and
 * whole runs of the binary: identical data for any thread count, a killed and resumed run
 * equal to an uninterrupted one, the Python reader verifying (and rejecting) the data. */
#define _XOPEN_SOURCE 700
#include <criterion/criterion.h>
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../engine/chessvar.h"
/* the player is part of the chessvar binary, not of the engine library: compile it in */
#include "../selfplay/player/eval.h"
#include "../selfplay/games/game.h"
#include "../selfplay/player/search.h"
#include "selfplay_util.h"

/* Builds the engine tables once per test process. */
static void setup(void) { engine_init(); }

TestSuite(selfplay, .init = setup);

/* Adjudicates fen of variant vname (plies: moves to play first, space separated). */
static int adjudicate(const char *vname, const char *fen, const char *plies, int cap, int *ws) {
    const Variant *v = variant_by_name(vname);
    cr_assert_not_null(v, "variant %s", vname);
    Position *pos = malloc(sizeof *pos);
    CvError err = {{0}};
    cr_assert(pos_from_fen(pos, v, fen, &err), "%s: %s", fen, err.msg);
    char buf[512];
    snprintf(buf, sizeof buf, "%s", plies ? plies : "");
    char *save = NULL;
    for (char *t = strtok_r(buf, " ", &save); t; t = strtok_r(NULL, " ", &save)) {
        Move m = move_from_str(pos, t, &err);
        cr_assert_neq(m, MOVE_NONE, "%s: %s", t, err.msg);
        pos_make(pos, m);
    }
    Move list[MAX_MOVES];
    int n = pos_legal_moves(pos, list);
    int term = game_adjudicate(pos, n, cap, ws);
    free(pos);
    return term;
}

#define START "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"

Test(selfplay, mate_and_stalemate) {
    int ws;
    cr_expect_eq(adjudicate("chess",
                            "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3", NULL,
                            600, &ws),
                 TERM_MATE);
    cr_expect_eq(ws, 0);
    cr_expect_eq(adjudicate("chess", "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1", NULL, 600, &ws),
                 TERM_STALEMATE);
    cr_expect_eq(ws, 500);
    /* Supremo: the stalemating side wins 3/4 (rules/supremo.md section 5) */
    cr_expect_eq(adjudicate("supremo", "k9/2K7/1P8/10/10/10/10/10/10/10 b - - 0 1", NULL, 600, &ws),
                 TERM_STALEMATE);
    cr_expect_eq(ws, 750);
    /* checkmate on the 100th quiet ply takes precedence over the 50-move rule */
    cr_expect_eq(adjudicate("chess", "R5k1/5ppp/8/8/8/8/8/6K1 b - - 100 80", NULL, 600, &ws),
                 TERM_MATE);
    cr_expect_eq(ws, 1000);
}

Test(selfplay, draws) {
    int ws;
    cr_expect_eq(adjudicate("chess", "6k1/5ppp/8/8/8/8/8/R5K1 b - - 100 80", NULL, 600, &ws),
                 TERM_FIFTY);
    cr_expect_eq(adjudicate("chess", "6k1/5ppp/8/8/8/8/8/R5K1 b - - 99 80", NULL, 600, &ws),
                 TERM_NONE);
    cr_expect_eq(adjudicate("chess", START, "g1f3 g8f6 f3g1 f6g8", 600, &ws), TERM_NONE);
    cr_expect_eq(adjudicate("chess", START, "g1f3 g8f6 f3g1 f6g8 g1f3 g8f6 f3g1 f6g8", 600, &ws),
                 TERM_REPETITION);
    /* Superchess: the e5 pawn is frozen by the f6 piece, so the e.p. square d6 is unusable and
     * must not enter the key: the start counts as the first of the three occurrences */
    const char *frozen_ep = "4k3/8/5m2/3pP3/8/8/8/4K3 w - d6 0 2";
    cr_expect_eq(
        adjudicate("superchess", frozen_ep, "e1e2 e8e7 e2e1 e7e8 e1e2 e8e7 e2e1 e7e8", 600, &ws),
        TERM_REPETITION);
    cr_expect_eq(
        adjudicate("superchess", frozen_ep, "e1e2 e8e7 e2e1 e7e8 e1e2 e8e7 e2e1", 600, &ws),
        TERM_NONE);
    cr_expect_eq(ws, 500);
    cr_expect_eq(adjudicate("chess", START, "g1f3 g8f6", 2, &ws), TERM_PLY_CAP);
    cr_expect_eq(adjudicate("chess", START, "g1f3 g8f6", 3, &ws), TERM_NONE);
}

Test(selfplay, insufficient_material) {
    int ws;
    cr_expect_eq(adjudicate("chess", "4k3/8/8/8/8/8/8/4K3 w - - 0 1", NULL, 600, &ws),
                 TERM_MATERIAL);
    cr_expect_eq(adjudicate("chess", "4k3/8/8/8/8/2B5/8/4K3 w - - 0 1", NULL, 600, &ws),
                 TERM_MATERIAL);
    cr_expect_eq(adjudicate("switching", "4k3/8/8/8/8/2n5/8/4K3 w - - 0 1", NULL, 600, &ws),
                 TERM_MATERIAL);
    /* bishops on one square colour (c3, e5) versus on both (c3, d5) */
    cr_expect_eq(adjudicate("chess", "4k3/8/8/4b3/8/2B5/8/4K3 w - - 0 1", NULL, 600, &ws),
                 TERM_MATERIAL);
    cr_expect_eq(adjudicate("chess", "4k3/8/8/3b4/8/2B5/8/4K3 w - - 0 1", NULL, 600, &ws),
                 TERM_NONE);
    cr_expect_eq(adjudicate("chess", "4k3/8/8/8/8/2NN4/8/4K3 w - - 0 1", NULL, 600, &ws),
                 TERM_NONE);
    cr_expect_eq(adjudicate("chess", "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1", NULL, 600, &ws), TERM_NONE);
    /* Superchess: bare monarchs with empty hands only */
    cr_expect_eq(adjudicate("superchess", "7k/8/8/8/8/8/8/K7 w - - 0 1", NULL, 600, &ws),
                 TERM_MATERIAL);
    cr_expect_eq(adjudicate("superchess", "7k/8/8/8/8/8/8/K7[L] w - - 0 1", NULL, 600, &ws),
                 TERM_NONE);
    cr_expect_eq(adjudicate("superchess", "7k/8/8/8/8/8/8/KN6 w - - 0 1", NULL, 600, &ws),
                 TERM_NONE);
    /* Supremo: bare Kings only; a King and a minor piece is no draw there */
    cr_expect_eq(adjudicate("supremo", "k9/10/10/10/10/10/10/10/10/9K w - - 0 1", NULL, 600, &ws),
                 TERM_MATERIAL);
    cr_expect_eq(adjudicate("supremo", "k9/10/10/10/10/10/10/10/10/7B1K w - - 0 1", NULL, 600, &ws),
                 TERM_NONE);
}

/* Searches fen with lim and returns the best move as text. */
static void best_move(const char *vname, const char *fen, SearchLimits lim, char *out, int *score) {
    const Variant *v = variant_by_name(vname);
    Position *pos = malloc(sizeof *pos);
    CvError err = {{0}};
    cr_assert(pos_from_fen(pos, v, fen, &err), "%s", err.msg);
    Search *s = search_new(v, 14);
    cr_assert_not_null(s);
    SearchResult r = search_run(s, pos, &lim);
    move_to_str(pos, r.best, out);
    *score = r.score;
    search_free(s);
    free(pos);
}

Test(selfplay, search_finds_tactics) {
    char mv[32];
    int score;
    best_move("chess", "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1",
              (SearchLimits){.nodes = 0, .depth = 3, .margin = 0}, mv, &score);
    cr_expect_str_eq(mv, "a1a8");
    cr_expect_eq(score, SEARCH_MATE - 1);
    /* wins the undefended queen */
    best_move("chess", "4k3/8/8/3q4/8/8/3R4/4K3 w - - 0 1",
              (SearchLimits){.nodes = 20000, .depth = 0, .margin = 0}, mv, &score);
    cr_expect_str_eq(mv, "d2d5");
    best_move("supremo", "k9/10/10/10/10/10/10/10/1q8/K9 w - - 0 1",
              (SearchLimits){.nodes = 0, .depth = 2, .margin = 0}, mv, &score);
    cr_expect_str_eq(mv, "a1b2");
}

/* ---------------------------------------------------------------- whole runs */

#define SP(...) ((char *const[]){CHESSVAR_BINARY, "selfplay", __VA_ARGS__, NULL})

Test(selfplay, same_data_for_any_thread_count, .timeout = 120) {
    const char *variants[] = {"chess", "switching", "superchess", "supremo"};
    const char *nodes[] = {"300", "300", "150", "100"};
    const char *games[] = {"6", "6", "4", "2"};
    for (int i = 0; i < 4; i++) {
        char d1[512], d2[512];
        su_temp_dir(d1, sizeof d1);
        su_temp_dir(d2, sizeof d2);
        char *v = (char *)variants[i], *nd = (char *)nodes[i], *g = (char *)games[i];
        cr_assert_eq(su_run(SP("--variant", v, "--games", g, "--nodes", nd, "--seed", "7",
                               "--shard-games", "2", "--ply-cap", "160", "--format",
                               "bin,jsonl,pgn", "--threads", "1", "--out", d1)),
                     0);
        cr_assert_eq(su_run(SP("--variant", v, "--games", g, "--nodes", nd, "--seed", "7",
                               "--shard-games", "2", "--ply-cap", "160", "--format",
                               "bin,jsonl,pgn", "--threads", "2", "--out", d2)),
                     0);
        int files = su_same_dirs(d1, d2);
        /* run.json, manifest.json, and per shard bin, jsonl, pgn and json */
        int shards = (atoi(g) + 1) / 2;
        cr_expect_eq(files, 2 + 4 * shards, "%s: %d files", v, files);
        su_remove_dir(d1);
        su_remove_dir(d2);
    }
}

Test(selfplay, different_seeds_differ) {
    char d1[512], d2[512];
    su_temp_dir(d1, sizeof d1);
    su_temp_dir(d2, sizeof d2);
    cr_assert_eq(su_run(SP("--variant", "chess", "--games", "2", "--nodes", "200", "--seed", "1",
                           "--out", d1)),
                 0);
    cr_assert_eq(su_run(SP("--variant", "chess", "--games", "2", "--nodes", "200", "--seed", "2",
                           "--out", d2)),
                 0);
    char p1[600], p2[600];
    snprintf(p1, sizeof p1, "%s/shard-000000.bin", d1);
    snprintf(p2, sizeof p2, "%s/shard-000000.bin", d2);
    long l1 = 0, l2 = 0;
    char *a = su_slurp(p1, &l1), *b = su_slurp(p2, &l2);
    cr_assert(a && b);
    cr_expect(l1 != l2 || memcmp(a, b, (size_t)l1) != 0, "seeds 1 and 2 gave the same games");
    free(a);
    free(b);
    su_remove_dir(d1);
    su_remove_dir(d2);
}

Test(selfplay, resume_after_kill_equals_uninterrupted, .timeout = 120) {
    char whole[512], killed[512];
    su_temp_dir(whole, sizeof whole);
    su_temp_dir(killed, sizeof killed);
#define RESUME_ARGS                                                                                \
    "--variant", "chess", "--games", "60", "--nodes", "300", "--seed", "3", "--shard-games", "2",  \
        "--ply-cap", "200", "--format", "bin,pgn", "--threads", "2"
    cr_assert_eq(su_run(SP(RESUME_ARGS, "--out", whole)), 0);
    pid_t pid = su_spawn(SP(RESUME_ARGS, "--out", killed), NULL);
    char mark[600];
    snprintf(mark, sizeof mark, "%s/shard-000001.json", killed);
    struct timespec pause = {0, 2000000};
    int st;
    while (access(mark, F_OK) != 0) {
        cr_assert_eq(waitpid(pid, &st, WNOHANG), 0,
                     "the run ended before its second shard was written");
        nanosleep(&pause, NULL);
    }
    cr_assert_eq(waitpid(pid, &st, WNOHANG), 0, "the run ended before it could be killed");
    kill(pid, SIGKILL);
    waitpid(pid, &st, 0);
    cr_assert(WIFSIGNALED(st));
    /* without --resume the folder is refused and left as it is */
    cr_expect_eq(su_run(SP(RESUME_ARGS, "--out", killed)), 1);
    cr_assert_eq(su_run(SP(RESUME_ARGS, "--out", killed, "--resume")), 0);
    su_same_dirs(whole, killed);
    /* a resume with other options is refused */
    cr_expect_eq(su_run(SP("--variant", "chess", "--games", "60", "--nodes", "301", "--seed", "3",
                           "--shard-games", "2", "--ply-cap", "200", "--format", "bin,pgn", "--out",
                           killed, "--resume")),
                 1);
#undef RESUME_ARGS
    su_remove_dir(whole);
    su_remove_dir(killed);
}

/* A python3 with numpy, or NULL. */
static const char *python_with_numpy(void) {
    static const char *const candidates[] = {"python3", "/usr/bin/python3"};
    for (int i = 0; i < 2; i++) {
        char cmd[256];
        snprintf(cmd, sizeof cmd, "%s -c 'import numpy' >/dev/null 2>&1", candidates[i]);
        if (system(cmd) == 0) return candidates[i];
    }
    return NULL;
}

Test(selfplay, reader_loads_and_rejects_corruption, .timeout = 60) {
    const char *py = python_with_numpy();
    if (!py) cr_skip_test("no python3 with numpy");
    char d[512];
    su_temp_dir(d, sizeof d);
    cr_assert_eq(su_run(SP("--variant", "superchess", "--games", "4", "--nodes", "150",
                           "--shard-games", "2", "--ply-cap", "120", "--out", d)),
                 0);
    char cmd[1400];
    const char *root = CHESSVAR_TEST_DATA "/../..";
    snprintf(cmd, sizeof cmd, "%s %s/scripts/data/read_dataset.py %s >/dev/null 2>&1", py, root, d);
    int st = system(cmd);
    cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "reader rejected good data: %s", cmd);
    /* one flipped byte inside the records of a block must be caught */
    char path[600];
    snprintf(path, sizeof path, "%s/shard-000001.bin", d);
    FILE *f = fopen(path, "r+b");
    cr_assert_not_null(f);
    fseek(f, 64 + 8 + 100, SEEK_SET);
    int c = fgetc(f);
    fseek(f, 64 + 8 + 100, SEEK_SET);
    fputc(c ^ 0x20, f);
    fclose(f);
    st = system(cmd);
    cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 1, "reader accepted a corrupt block");
    su_remove_dir(d);
}

Test(selfplay, bad_options) {
    char d[512];
    su_temp_dir(d, sizeof d);
    cr_expect_eq(su_run(SP("--variant", "nosuch", "--out", d)), 2);
    cr_expect_eq(su_run(SP("--variant", "chess", "--games", "0", "--out", d)), 2);
    cr_expect_eq(su_run(SP("--variant", "chess", "--format", "csv", "--out", d)), 2);
    cr_expect_eq(su_run(SP("--variant", "chess", "--opponent", "strong", "--out", d)), 2);
    cr_expect_eq(su_run(SP("--variant", "chess", "--start", "not a fen", "--out", d)), 2);
    cr_expect_eq(su_run(SP("--variant", "chess", "--games", "1")), 2);
    su_remove_dir(d);
}

Test(selfplay, mpi_ranks_write_the_same_data, .timeout = 120) {
    char mpirun[1024];
    if (!su_find_mpirun(mpirun, sizeof mpirun))
        cr_skip_test("mpirun is not installed (scripts/setup.sh installs openmpi-bin)");
    char d1[512], d2[512];
    su_temp_dir(d1, sizeof d1);
    su_temp_dir(d2, sizeof d2);
    /* Open MPI refuses root unless told; harmless elsewhere */
    setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 1);
    setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 1);
#define MPI_ARGS                                                                                   \
    "--variant", "switching", "--games", "9", "--nodes", "200", "--seed", "5", "--shard-games",    \
        "2", "--ply-cap", "150", "--format", "bin,pgn", "--threads", "1"
    cr_assert_eq(su_run(SP(MPI_ARGS, "--out", d1)), 0);
    int rc = su_run((char *const[]){mpirun, "--oversubscribe", "-np", "2", CHESSVAR_BINARY,
                                    "selfplay", MPI_ARGS, "--out", d2, NULL});
#undef MPI_ARGS
    cr_assert_eq(rc, 0, "mpirun -np 2 chessvar selfplay failed (status %d)", rc);
    cr_assert_gt(su_same_dirs(d1, d2), 0, "the runs wrote no file");
    su_remove_dir(d1);
    su_remove_dir(d2);
}

Test(selfplay, jsonl_positions_replay, .timeout = 60) {
    const char *variants[] = {"switching", "superchess"};
    for (int vi = 0; vi < 2; vi++) {
        const Variant *v = variant_by_name(variants[vi]);
        char d[512];
        su_temp_dir(d, sizeof d);
        cr_assert_eq(su_run(SP("--variant", (char *)variants[vi], "--games", "2", "--nodes", "150",
                               "--ply-cap", "80", "--format", "jsonl", "--out", d)),
                     0);
        char path[600];
        snprintf(path, sizeof path, "%s/shard-000000.jsonl", d);
        FILE *f = fopen(path, "r");
        cr_assert_not_null(f, "%s", path);
        Position *pos = malloc(sizeof *pos);
        char line[2048], fen[512], mv[32], expect[512] = "";
        unsigned game, legal, last_game = ~0u;
        int ply, lines = 0;
        while (fgets(line, sizeof line, f)) {
            cr_assert_eq(sscanf(line,
                                "{\"game\":%u,\"ply\":%d,\"fen\":\"%511[^\"]\",\"legal\":%u,"
                                "\"move\":\"%31[^\"]\"",
                                &game, &ply, fen, &legal, mv),
                         5, "unparsable line: %s", line);
            CvError err = {{0}};
            cr_assert(pos_from_fen(pos, v, fen, &err), "%s: %s", fen, err.msg);
            if (game == last_game)
                cr_expect_str_eq(fen, expect, "game %u ply %d does not follow its move", game, ply);
            Move list[MAX_MOVES];
            cr_expect_eq((unsigned)pos_legal_moves(pos, list), legal, "legal count at %s", fen);
            Move m = move_from_str(pos, mv, &err);
            cr_assert_neq(m, MOVE_NONE, "%s in %s: %s", mv, fen, err.msg);
            pos_make(pos, m);
            pos_to_fen(pos, expect, sizeof expect);
            last_game = game;
            lines++;
        }
        fclose(f);
        cr_expect_gt(lines, 10);
        free(pos);
        su_remove_dir(d);
    }
}

Test(selfplay, consistency_report_of_the_games, .timeout = 60) {
    char d[512], rep[600], md[600];
    su_temp_dir(d, sizeof d);
    snprintf(rep, sizeof rep, "%s/check.json", d);
    snprintf(md, sizeof md, "%s/check.md", d);
    char out[600];
    snprintf(out, sizeof out, "%s/data", d);
    cr_assert_eq(su_run(SP("--variant", "switching", "--games", "3", "--nodes", "200", "--ply-cap",
                           "100", "--out", out, "--report", rep, "--check-every", "10")),
                 0);
    long len = 0;
    char *json = su_slurp(rep, &len);
    cr_assert_not_null(json, "%s", rep);
    cr_expect_not_null(strstr(json, "\"games_checked\": 3"), "%s", json);
    cr_expect_not_null(strstr(json, "\"total_failures\": 0"));
    cr_expect_not_null(strstr(json, "\"switches\""));
    free(json);
    cr_expect_eq(access(md, F_OK), 0, "no Markdown report");
    su_remove_dir(out);
    su_remove_dir(d);
}
