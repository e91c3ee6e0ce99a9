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
        cr_expect_eq(
            su_run_err(SU_SP("--variant", "chess", "--games", "2", "--book", book, "--out", out),
                       err),
            2, "case %zu", i);
        long len = 0;
        char *msg = su_slurp(err, &len);
        cr_expect_not_null(strstr(msg, cases[i].expect), "case %zu: %s", i, msg);
        cr_expect(len > 0 && strchr(msg, '\n') == msg + len - 1, "case %zu: not one line: %s", i,
                  msg);
        free(msg);
        cr_expect_neq(access(out, F_OK), 0, "case %zu: the run started", i);
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
