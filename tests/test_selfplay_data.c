/* test_selfplay_data.c - the options of `chessvar selfplay` that choose the data a trainer
 * gets: which positions are written (--write-min-ply, --eval-limit, --dedup-bits), how
 * many (--positions) and where games start (--book). Each is checked against a run
 * without it, from the JSONL both write. */
#define _XOPEN_SOURCE 700
#include <signal.h>
#include <time.h>

#include "../engine/chessvar.h"
#include "selfplay_util.h"

TestSuite(data, .init = engine_init, .timeout = 300);

/* One JSONL position: its line and the fields the tests look at. */
typedef struct Line {
    char text[1024];
    unsigned game;
    int ply;
    bool scored;
    int score;
    char fen[256];
} Line;

/* Reads every shard-NNNNNN.jsonl of dir in shard order; returns the count. */
static int load_jsonl(const char *dir, Line **out) {
    int n = 0, cap = 1024;
    Line *l = malloc((size_t)cap * sizeof *l);
    for (int shard = 0;; shard++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/shard-%06d.jsonl", dir, shard);
        FILE *f = fopen(path, "r");
        if (!f) break;
        while (n < cap || (l = realloc(l, (size_t)(cap *= 2) * sizeof *l))) {
            Line *x = &l[n];
            if (!fgets(x->text, sizeof x->text, f)) break;
            cr_assert_eq(sscanf(x->text, "{\"game\":%u,\"ply\":%d,\"fen\":\"%255[^\"]\"", &x->game,
                                &x->ply, x->fen),
                         3, "unparsable: %s", x->text);
            const char *s = strstr(x->text, "\"score\":");
            cr_assert_not_null(s, "%s", x->text);
            x->scored = sscanf(s, "\"score\":%d", &x->score) == 1;
            if (!x->scored) x->score = 0;
            n++;
        }
        fclose(f);
    }
    *out = l;
    return n;
}

/* The records count in the header of a binary shard. */
static uint64_t bin_records(const char *dir, int shard) {
    char path[1024];
    snprintf(path, sizeof path, "%s/shard-%06d.bin", dir, shard);
    long len = 0;
    char *b = su_slurp(path, &len);
    cr_assert(b && len >= 64, "%s", path);
    uint64_t r = 0;
    for (int i = 7; i >= 0; i--) r = r << 8 | (uint8_t)b[32 + i];
    free(b);
    return r;
}

#define BASE "--variant", "chess", "--nodes", "300", "--seed", "11", "--ply-cap", "200"

Test(data, min_ply_and_eval_limit_write_exactly_the_positions_they_say) {
    char all[512], some[512];
    su_temp_dir(all, sizeof all);
    su_temp_dir(some, sizeof some);
    cr_assert_eq(su_run(SU_SP(BASE, "--games", "6", "--shard-games", "3", "--format", "jsonl",
                              "--out", all)),
                 0);
    cr_assert_eq(su_run(SU_SP(BASE, "--games", "6", "--shard-games", "3", "--format", "jsonl,bin",
                              "--write-min-ply", "9", "--eval-limit", "150", "--out", some)),
                 0);
    Line *a, *s;
    int na = load_jsonl(all, &a), ns = load_jsonl(some, &s);
    /* the positions kept: from ply 9, before the first |score| > 150 of the game */
    int k = 0, cut = 0, early = 0;
    unsigned game = ~0u;
    bool over = false;
    for (int i = 0; i < na; i++) {
        if (a[i].game != game) over = false;
        game = a[i].game;
        if (abs(a[i].score) > 150) over = true;
        if (over) cut++;
        else if (a[i].ply < 9) early++;
        if (over || a[i].ply < 9) continue;
        cr_assert_lt(k, ns, "fewer positions written than expected");
        cr_expect_str_eq(s[k].text, a[i].text, "position %d", k);
        k++;
    }
    cr_expect_eq(k, ns, "%d positions expected, %d written", k, ns);
    cr_expect_gt(cut, 0, "no game went beyond the limit: the test shows nothing");
    cr_expect_gt(early, 0);
    cr_expect_eq(bin_records(some, 0) + bin_records(some, 1), (uint64_t)ns);
    free(a);
    free(s);
    su_remove_dir(all);
    su_remove_dir(some);
}

/* Writes text to a new file dir/name; returns its path in buf. */
static const char *write_file(const char *dir, const char *name, const char *text, char *buf,
                              size_t n) {
    snprintf(buf, n, "%s/%s", dir, name);
    FILE *f = fopen(buf, "w");
    cr_assert_not_null(f, "%s", buf);
    fputs(text, f);
    fclose(f);
    return buf;
}

/* The FEN tag of each game of a PGN file, in game order; returns the count. */
static int pgn_fens(const char *path, char fens[][256], int max) {
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f, "%s", path);
    char line[1024];
    int n = 0;
    while (n < max && fgets(line, sizeof line, f))
        if (sscanf(line, "[FEN \"%255[^\"]\"]", fens[n]) == 1) n++;
    fclose(f);
    return n;
}

Test(data, games_start_from_the_book_and_paired_games_share_a_line) {
    char d[512], out[600], book[600];
    su_temp_dir(d, sizeof d);
    snprintf(out, sizeof out, "%s/run", d);
    /* chessvar's own FENs of these positions (the e.p. square of the first is not kept: no
     * pawn can take), a FEN, an EPD line with operations, and a comment between */
    const char *want[3] = {
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1",
        "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3",
        "rnbqkb1r/pppppppp/5n2/8/3P4/8/PPP1PPPP/RNBQKBNR w KQkq - 0 1",
    };
    write_file(d, "book.epd",
               "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1\n"
               "# a comment, then a blank line\n\n"
               "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3\n"
               "  rnbqkb1r/pppppppp/5n2/8/3P4/8/PPP1PPPP/RNBQKBNR w KQkq - bm c4; id \"x\";\n",
               book, sizeof book);
    cr_assert_eq(su_run(SU_SP("--variant", "chess", "--games", "12", "--nodes", "100", "--seed",
                              "5", "--ply-cap", "6", "--paired", "--format", "pgn", "--book", book,
                              "--out", out)),
                 0);
    char path[700], fens[12][256];
    snprintf(path, sizeof path, "%s/shard-000000.pgn", out);
    cr_assert_eq(pgn_fens(path, fens, 12), 12);
    int used[3] = {0, 0, 0};
    for (int g = 0; g < 12; g++) {
        int k = 0;
        while (k < 3 && strcmp(fens[g], want[k]) != 0) k++;
        cr_assert_lt(k, 3, "game %d starts from %s, not a book position", g, fens[g]);
        used[k]++;
        if (g & 1) cr_expect_str_eq(fens[g], fens[g - 1], "paired games %d and %d", g - 1, g);
    }
    cr_expect((used[0] > 0) + (used[1] > 0) + (used[2] > 0) >= 2,
              "12 games drew a single book line");
    long len = 0;
    snprintf(path, sizeof path, "%s/run.json", out);
    char *cfg = su_slurp(path, &len);
    cr_expect_not_null(strstr(cfg, "\"book\":\"book.epd\",\"book_positions\":3"), "%s", cfg);
    free(cfg);
    /* a different book in the same folder is refused on --resume */
    write_file(d, "book.epd", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1\n", book,
               sizeof book);
    cr_expect_eq(su_run(SU_SP("--variant", "chess", "--games", "12", "--nodes", "100", "--seed",
                              "5", "--ply-cap", "6", "--paired", "--format", "pgn", "--book", book,
                              "--out", out, "--resume")),
                 1);
    su_remove_dir(out);
    su_remove_dir(d);
}

Test(data, bad_book_lines_are_named_with_file_and_line) {
    static const struct {
        const char *text, *expect; /* book, and what the message must hold */
    } cases[] = {
        {"# ok\nrnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1\n"
         "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1\n",
         "book.epd:3: bad FEN: side to move"},
        {"\n\nrnbqkbnr/pppppppp/8/8 w\n", "book.epd:3: 2 fields"},
        {"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNZ w KQkq -\n", "book.epd:1: bad FEN"},
        {"rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3\n",
         "book.epd:1: the side to move has no legal move"},
        {"# nothing but comments\n\n", "holds no position"},
    };
    char d[512], book[600], err[600], out[600];
    su_temp_dir(d, sizeof d);
    snprintf(err, sizeof err, "%s/stderr", d);
    snprintf(out, sizeof out, "%s/run", d);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        write_file(d, "book.epd", cases[i].text, book, sizeof book);
        su_expect_bad_book(book, err, out, cases[i].expect, i);
    }
    /* a missing file, and --book with --start */
    snprintf(book, sizeof book, "%s/none.epd", d);
    cr_expect_eq(su_run(SU_SP("--variant", "chess", "--book", book, "--out", out)), 2);
    cr_expect_eq(su_run(SU_SP("--variant", "chess", "--book", book, "--start",
                              "8/8/8/8/8/8/8/K6k w - - 0 1", "--out", out)),
                 2);
    unlink(book);
    unlink(err);
    su_remove_dir(d);
}

Test(data, shipped_books_load_in_their_variants) {
    const char *variants[] = {"chess", "switching", "superchess", "supremo"};
    for (int i = 0; i < 4; i++) {
        char d[512], book[1024];
        su_temp_dir(d, sizeof d);
        snprintf(book, sizeof book, "%s/../../selfplay/books/%s.epd", CHESSVAR_TEST_DATA,
                 variants[i]);
        cr_expect_eq(su_run(SU_SP("--variant", (char *)variants[i], "--games", "2", "--nodes", "50",
                                  "--ply-cap", "2", "--book", book, "--out", d)),
                     0, "%s", book);
        su_remove_dir(d);
    }
}

/* The Zobrist keys of every record of the binary shards of dir, in shard and record
 * order; returns the count. */
static int bin_keys(const char *dir, uint64_t **out) {
    int n = 0, cap = 4096;
    uint64_t *keys = malloc((size_t)cap * sizeof *keys);
    for (int shard = 0;; shard++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/shard-%06d.bin", dir, shard);
        long len = 0;
        uint8_t *b = (uint8_t *)su_slurp(path, &len);
        if (!b) break;
        int rsize = b[12] | b[13] << 8;
        for (long off = 64; off + 8 <= len;) {
            uint32_t nrec = (uint32_t)(b[off] | b[off + 1] << 8 | b[off + 2] << 16 |
                                       (uint32_t)b[off + 3] << 24);
            for (uint32_t r = 0; r < nrec; r++) {
                const uint8_t *rec = b + off + 8 + (long)r * rsize;
                uint64_t k = 0;
                for (int i = 7; i >= 0; i--) k = k << 8 | rec[32 + i];
                if (n == cap) keys = realloc(keys, (size_t)(cap *= 2) * sizeof *keys);
                keys[n++] = k;
            }
            off += 8 + (long)nrec * rsize + 8;
        }
        free(b);
    }
    *out = keys;
    return n;
}

/* Starts argv, kills it once dir/shard-000001.json exists (two shards written), then runs
 * it again with --resume (argv has room: its last two entries before NULL are "--out",
 * dir) and asserts both ended as expected. */
static void kill_and_resume(char **argv, int argc, const char *dir) {
    pid_t pid = su_spawn(argv, NULL);
    char mark[1100];
    snprintf(mark, sizeof mark, "%s/shard-000001.json", dir);
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
    argv[argc] = "--resume";
    argv[argc + 1] = NULL;
    cr_assert_eq(su_run(argv), 0, "the resumed run failed");
}

Test(data, dedup_writes_each_key_once_and_only_repeats_are_dropped) {
    char all[512], once[512];
    su_temp_dir(all, sizeof all);
    su_temp_dir(once, sizeof once);
    cr_assert_eq(su_run(SU_SP(BASE, "--games", "12", "--shard-games", "3", "--random-plies", "2",
                              "--format", "bin", "--out", all)),
                 0);
    cr_assert_eq(su_run(SU_SP(BASE, "--games", "12", "--shard-games", "3", "--random-plies", "2",
                              "--format", "bin", "--dedup-bits", "16", "--out", once)),
                 0);
    uint64_t *a, *o;
    int na = bin_keys(all, &a), no = bin_keys(once, &o);
    /* the expected keys: each first occurrence, in order (a table of 2^16 keys forgets
     * none of these few thousand) */
    int k = 0, repeats = 0;
    for (int i = 0; i < na; i++) {
        bool seen = false;
        for (int j = 0; j < i && !seen; j++) seen = a[j] == a[i];
        if (seen) {
            repeats++;
            continue;
        }
        cr_assert_lt(k, no, "fewer positions than distinct keys");
        cr_expect_eq(o[k], a[i], "position %d", k);
        k++;
    }
    cr_expect_eq(k, no, "%d distinct keys, %d positions written", k, no);
    cr_expect_gt(repeats, 11, "every game starts from the same position: %d repeats", repeats);
    for (int i = 0; i < no; i++)
        for (int j = 0; j < i; j++) cr_assert_neq(o[i], o[j], "key written twice (%d, %d)", j, i);
    free(a);
    free(o);
    su_remove_dir(all);
    su_remove_dir(once);
}

Test(data, positions_count_ends_at_the_first_shard_reaching_it) {
    char games[512], count[512];
    su_temp_dir(games, sizeof games);
    su_temp_dir(count, sizeof count);
    cr_assert_eq(su_run(SU_SP(BASE, "--games", "16", "--shard-games", "2", "--format", "jsonl",
                              "--out", games)),
                 0);
    cr_assert_eq(su_run(SU_SP(BASE, "--positions", "700", "--shard-games", "2", "--format", "jsonl",
                              "--threads", "2", "--out", count)),
                 0);
    /* the shards of the --games run up to the first whose running total reaches 700 */
    int total = 0, shard = 0;
    for (; total < 700; shard++) {
        char pa[1100], pb[1100];
        snprintf(pa, sizeof pa, "%s/shard-%06d.jsonl", games, shard);
        snprintf(pb, sizeof pb, "%s/shard-%06d.jsonl", count, shard);
        long la = 0, lb = 0;
        char *ca = su_slurp(pa, &la), *cb = su_slurp(pb, &lb);
        cr_assert_not_null(ca, "16 games hold fewer than 700 positions");
        cr_assert_not_null(cb, "%s is missing", pb);
        cr_expect(la == lb && memcmp(ca, cb, (size_t)la) == 0, "shard %d differs", shard);
        for (char *c = ca; *c; c++) total += *c == '\n';
        free(ca);
        free(cb);
    }
    char after[1100];
    snprintf(after, sizeof after, "%s/shard-%06d.jsonl", count, shard);
    cr_expect_neq(access(after, F_OK), 0, "a shard after the count was written");
    cr_expect_gt(shard, 1);
    /* with --games too, the run ends at that many games if the count is not reached */
    su_remove_dir(count);
    su_temp_dir(count, sizeof count);
    cr_assert_eq(su_run(SU_SP(BASE, "--positions", "1000000", "--games", "5", "--shard-games", "2",
                              "--format", "jsonl", "--out", count)),
                 0);
    snprintf(after, sizeof after, "%s/shard-000002.json", count);
    cr_expect_eq(access(after, F_OK), 0, "the last shard (game 4) is missing");
    snprintf(after, sizeof after, "%s/shard-000003.json", count);
    cr_expect_neq(access(after, F_OK), 0, "a shard past --games was written");
    su_remove_dir(games);
    su_remove_dir(count);
}

Test(data, dedup_and_positions_same_for_any_thread_count_and_after_a_kill) {
    char d1[512], d2[512], d3[512];
    su_temp_dir(d1, sizeof d1);
    su_temp_dir(d2, sizeof d2);
    su_temp_dir(d3, sizeof d3);
#define DATA_ARGS                                                                                  \
    BASE, "--positions", "6000", "--dedup-bits", "12", "--write-min-ply", "2", "--eval-limit",     \
        "400", "--shard-games", "2", "--format", "bin,jsonl,pgn"
    cr_assert_eq(su_run(SU_SP(DATA_ARGS, "--threads", "1", "--out", d1)), 0);
    cr_assert_eq(su_run(SU_SP(DATA_ARGS, "--threads", "2", "--out", d2)), 0);
    char *argv[40] = {CHESSVAR_BINARY, "selfplay", DATA_ARGS, "--threads", "2", "--out", d3};
    int argc = 0;
    while (argv[argc]) argc++;
    kill_and_resume(argv, argc, d3);
#undef DATA_ARGS
    su_same_dirs(d1, d2);
    su_same_dirs(d1, d3);
    su_remove_dir(d1);
    su_remove_dir(d2);
    su_remove_dir(d3);
}

Test(data, dedup_same_for_one_or_two_threads_and_after_a_kill) {
    char d1[512], d2[512];
    su_temp_dir(d1, sizeof d1);
    su_temp_dir(d2, sizeof d2);
    /* 2^10 keys for some 6000 positions: the table forgets, and must forget alike */
#define DATA_ARGS                                                                                  \
    BASE, "--games", "40", "--dedup-bits", "10", "--shard-games", "2", "--format", "bin,plain"
    cr_assert_eq(su_run(SU_SP(DATA_ARGS, "--threads", "1", "--out", d1)), 0);
    char *argv[40] = {CHESSVAR_BINARY, "selfplay", DATA_ARGS, "--threads", "2", "--out", d2};
    int argc = 0;
    while (argv[argc]) argc++;
    kill_and_resume(argv, argc, d2);
#undef DATA_ARGS
    su_same_dirs(d1, d2);
    su_remove_dir(d1);
    su_remove_dir(d2);
}

Test(data, dedup_under_mpi_is_the_same_for_a_given_rank_count) {
    char mpirun[1024];
    if (!su_find_mpirun(mpirun, sizeof mpirun))
        cr_skip_test("mpirun is not installed (scripts/setup.sh installs openmpi-bin)");
    setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 1);
    setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 1);
    char d[3][512];
    for (int i = 0; i < 3; i++) su_temp_dir(d[i], sizeof d[i]);
#define MPI_ARGS                                                                                   \
    "--variant", "switching", "--games", "9", "--nodes", "200", "--seed", "5", "--shard-games",    \
        "2", "--ply-cap", "150", "--format", "bin", "--dedup-bits", "12"
    cr_assert_eq(
        su_run((char *const[]){mpirun, "--oversubscribe", "-np", "2", CHESSVAR_BINARY, "selfplay",
                               MPI_ARGS, "--threads", "1", "--out", d[0], NULL}),
        0);
    cr_assert_eq(
        su_run((char *const[]){mpirun, "--oversubscribe", "-np", "2", CHESSVAR_BINARY, "selfplay",
                               MPI_ARGS, "--threads", "2", "--out", d[1], NULL}),
        0);
    cr_assert_eq(su_run(SU_SP(MPI_ARGS, "--out", d[2])), 0);
    su_same_dirs(d[0], d[1]);
    /* one process is another run (its run.json says so): a resume across counts is refused */
    cr_expect_eq(su_run(SU_SP(MPI_ARGS, "--out", d[0], "--resume")), 1);
    /* --positions needs every shard in order: refused under mpirun, before any file */
    char none[600];
    snprintf(none, sizeof none, "%s/none", d[2]);
    cr_expect_eq(su_run((char *const[]){mpirun, "--oversubscribe", "-np", "2", CHESSVAR_BINARY,
                                        "selfplay", "--positions", "100", "--out", none, NULL}),
                 2);
    cr_expect_neq(access(none, F_OK), 0);
#undef MPI_ARGS
    for (int i = 0; i < 3; i++) su_remove_dir(d[i]);
}
