/* test_search.c - the search API a UCI front end drives: external stop flag, MultiPV lines
 * with exact scores and legal principal variations, the info callback, and node limits. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "../engine/chessvar.h"
/* the player is part of the self-play library, not of the engine library: compile it in */
#include "../selfplay/player/eval.h"
#include "../selfplay/player/search.h"

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

/* ------------------------------------------------------------ static exchange (chess) */

static const int see_prices[7] = {0, 100, 300, 300, 500, 900, 20000};

/* Best the side to move can win by capturing on sq, found by trying every legal capture
 * there (and the choice to stop): the slow answer the swap algorithm must match. */
static int exchange_brute(Position *pos, int sq) {
    Move list[MAX_MOVES];
    int n = pos_legal_moves(pos, list), best = 0;
    for (int i = 0; i < n; i++) {
        Move m = list[i];
        if (MOVE_TO(m) != sq || MOVE_KIND(m) != MK_NORMAL || pos->board[sq] == PC_EMPTY) continue;
        int gain = see_prices[PC_TYPE(pos->board[sq])];
        pos_make(pos, m);
        int v = gain - exchange_brute(pos, sq);
        pos_unmake(pos);
        if (v > best) best = v;
    }
    return best;
}

/* The exchange value of the move named uci in fen: checked against the hand-derived value
 * `expect`, against the brute force, and at the two thresholds around it. */
static void check_see(const char *vname, const char *fen, const char *uci, int expect) {
    Position *pos = load(vname, fen);
    CvError err = {{0}};
    Move m = move_from_str(pos, uci, &err);
    cr_assert_neq(m, MOVE_NONE, "%s: %s", uci, err.msg);
    int to = MOVE_TO(m), gain = 0;
    if (MOVE_KIND(m) == MK_EP) gain = see_prices[1];
    else if (pos->board[to] != PC_EMPTY) gain = see_prices[PC_TYPE(pos->board[to])];
    if (MOVE_PROMO(m)) gain += see_prices[MOVE_PROMO(m)] - see_prices[1];
    pos_make(pos, m);
    int brute = gain - exchange_brute(pos, to);
    pos_unmake(pos);
    cr_expect_eq(brute, expect, "%s %s: brute force %d, by hand %d", fen, uci, brute, expect);
    cr_expect(pos_see_ge(pos, m, expect, see_prices), "%s %s: not >= %d", fen, uci, expect);
    cr_expect(!pos_see_ge(pos, m, expect + 1, see_prices), "%s %s: >= %d", fen, uci, expect + 1);
    free(pos);
}

Test(search, static_exchange_matches_hand_values_and_brute_force) {
    cr_assert(pos_has_see(load("chess", "4k3/8/8/8/8/8/8/4K3 w - - 0 1")));
    /* pawn takes an undefended pawn: +100 */
    check_see("chess", "4k3/8/8/3p4/4P3/8/8/4K3 w - - 0 1", "e4d5", 100);
    /* rook takes a pawn defended by a pawn: +100 - 500 */
    check_see("chess", "4k3/8/2p5/3p4/8/8/3R4/4K3 w - - 0 1", "d2d5", -400);
    /* rook battery against a pawn defended by one rook: RxP RxR RxR, +100 */
    check_see("chess", "4k3/3r4/8/3p4/8/8/3R4/3RK3 w - - 0 1", "d2d5", 100);
    /* the king recaptures an undefended rook: +100 - 500 */
    check_see("chess", "8/8/4k3/3p4/8/8/8/3RK3 w - - 0 1", "d1d5", -400);
    /* ... but not when a bishop guards the square: +100 */
    check_see("chess", "8/8/4k3/3p4/8/5B2/8/3RK3 w - - 0 1", "d1d5", 100);
    /* the queen takes a knight a pawn defends: +300 - 900 */
    check_see("chess", "4k3/8/4p3/3n4/8/8/8/3QK3 w - - 0 1", "d1d5", -600);
    /* a bishop behind the queen: QxN PxQ BxP, +300 - 900 + 100 */
    check_see("chess", "4k3/8/4p3/3n4/8/1B6/8/3QK3 w - - 0 1", "d1d5", -500);
    /* en passant on an undefended square: +100 */
    check_see("chess", "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1", "e5d6", 100);
    /* capturing promotion to a queen, undefended: +300 + 900 - 100 */
    check_see("chess", "1n2k3/P7/8/8/8/8/8/4K3 w - - 0 1", "a7b8q", 1100);
    /* quiet moves: onto a square a pawn attacks, -300; onto a safe one, 0 */
    check_see("chess", "4k3/4p3/8/8/4N3/8/8/4K3 w - - 0 1", "e4d6", -300);
    check_see("chess", "4k3/8/4p3/8/8/8/8/3NK3 w - - 0 1", "d1c3", 0);
    /* Switching chess: the same orthodox exchanges */
    check_see("switching", "4k3/8/2p5/3p4/8/8/3R4/4K3 w - - 0 1", "d2d5", -400);
}
