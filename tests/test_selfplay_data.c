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
