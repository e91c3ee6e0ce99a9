/* test_search.c - the search API a UCI front end drives: external stop flag, MultiPV lines
 * with exact scores and legal principal variations, the info callback, and node limits. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "../engine/chessvar.h"
/* the player is part of the self-play library, not of the engine library: compile it in */
#include "../selfplay/eval.h"
#include "../selfplay/search.h"

/* Builds the engine tables once per test process. */
static void setup(void) { engine_init(); }

TestSuite(search, .init = setup);

/* A position of variant vname from fen, on the heap. */
static Position *load(const char *vname, const char *fen) {
    const Variant *v = variant_by_name(vname);
    cr_assert_not_null(v);
    Position *pos = malloc(sizeof *pos);
    CvError err = {{0}};
    cr_assert(pos_from_fen(pos, v, fen, &err), "%s", err.msg);
    return pos;
}

/* True if every move of pv is legal in turn from pos (pos restored). */
static bool pv_legal(Position *pos, const Move *pv, int len) {
    Move list[MAX_MOVES];
    int made = 0;
    bool ok = true;
    for (int i = 0; i < len && ok; i++) {
        int n = pos_legal_moves(pos, list), j = 0;
        while (j < n && list[j] != pv[i]) j++;
        ok = j < n;
        if (ok) pos_make(pos, pv[i]), made++;
    }
    while (made-- > 0) pos_unmake(pos);
    return ok;
}

/* What the info callback saw. */
typedef struct Seen {
    int calls, last_depth, max_line, bad_pv, order_errors, prev_score;
    Position *pos;
} Seen;

/* Info callback: checks that lines arrive in order with legal PVs and falling scores. */
static void on_info(void *ctx, const SearchInfo *info) {
    Seen *seen = ctx;
    seen->calls++;
    if (info->multipv == 1) seen->prev_score = SEARCH_INF;
    if (info->score > seen->prev_score) seen->order_errors++;
    seen->prev_score = info->score;
    if (info->depth < seen->last_depth) seen->order_errors++;
    seen->last_depth = info->depth;
    if (info->multipv > seen->max_line) seen->max_line = info->multipv;
    if (info->pvlen < 1 || !pv_legal(seen->pos, info->pv, info->pvlen)) seen->bad_pv++;
}

Test(search, stop_flag_set_before_the_search_returns_a_legal_move_at_once) {
    Position *pos = load("chess", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
    Search *s = search_new(pos->var, 14);
    atomic_bool stop = true;
    SearchLimits lim = {.stop = &stop};
    SearchResult r = search_run(s, pos, &lim);
    cr_expect_lt(r.nodes, 100);
    cr_expect(pv_legal(pos, &r.best, 1));
    search_free(s);
    free(pos);
}

Test(search, multipv_lines_are_exact_sorted_and_legal) {
    const char *fens[][2] = {
        {"chess", "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"},
        {"supremo", "k9/10/10/10/10/10/10/10/1q8/K9 w - - 0 1"},
    };
    for (int f = 0; f < 2; f++) {
        Position *pos = load(fens[f][0], fens[f][1]);
        Search *s = search_new(pos->var, 16);
        Seen seen = {.pos = pos};
        SearchLimits lim = {.depth = 4, .multipv = 3, .info = on_info, .info_ctx = &seen};
        SearchResult r = search_run(s, pos, &lim);
        int lines = r.nroot < 3 ? r.nroot : 3;
        cr_expect_eq(seen.max_line, lines);
        cr_expect_eq(seen.calls, 4 * lines, "%s: %d info calls", fens[f][0], seen.calls);
        cr_expect_eq(seen.bad_pv, 0);
        cr_expect_eq(seen.order_errors, 0);
        cr_expect(pv_legal(pos, r.pv, r.pvlen));
        cr_expect_eq(r.pv[0], r.best);
        search_free(s);
        free(pos);
    }
}

Test(search, node_limit_is_kept_within_one_poll) {
    Position *pos = load("chess", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
    Search *s = search_new(pos->var, 14);
    SearchLimits lim = {.nodes = 5000};
    SearchResult r = search_run(s, pos, &lim);
    cr_expect_leq(r.nodes, 5000);
    cr_expect_geq(r.depth, 1);
    search_free(s);
    free(pos);
}
