/* test_endings.c - the scale factors of chess endings (selfplay/player/endings.h), each case
 * worked out by hand from the rules written there, and their use by the search: in chess
 * only. */
#include <criterion/criterion.h>
#include <stdlib.h>

#include "../engine/chessvar.h"
#include "../selfplay/player/endings.h"
#include "../selfplay/player/eval.h"
#include "../selfplay/player/search.h"

static void setup(void) { engine_init(); }

TestSuite(endings, .init = setup);

/* The scaled score of a static score v of the chess position fen. */
static int scaled(const char *fen, int v) {
    const Variant *var = variant_by_name("chess");
    Position *pos = malloc(sizeof *pos);
    CvError err = {{0}};
    cr_assert(pos_from_fen(pos, var, fen, &err), "%s", err.msg);
    int value[MAX_PT];
    eval_piece_values(var, value);
    int r = ending_scale_score(pos, value, v);
    free(pos);
    return r;
}

Test(endings, pawnless_endings_a_minor_piece_ahead_are_scaled_to_their_factor) {
    cr_expect_eq(scaled("8/8/8/4k3/8/8/3BK3/8 w - - 0 1", 640), 0, "a lone bishop");
    cr_expect_eq(scaled("8/8/8/4k3/8/8/3BK3/8 b - - 0 1", 640), 0, "the bare king's side");
    cr_expect_eq(scaled("8/8/8/4k3/8/2b5/3RK3/8 w - - 0 1", 640), 640 * 4 / 64, "KR v KB");
    cr_expect_eq(scaled("8/8/8/4k3/8/2b5/3RK3/8 w - - 0 1", -640), 0,
                 "the side a bishop behind, were it favoured, has less than a rook");
    cr_expect_eq(scaled("8/8/8/4k3/8/2r5/3RKN2/8 w - - 0 1", 640), 640 * 14 / 64, "KRN v KR");
    cr_expect_eq(scaled("8/8/8/4k3/8/8/3NKN2/8 w - - 0 1", 640), 0, "two knights, bare king");
    cr_expect_eq(scaled("8/8/8/4k3/8/p7/3NKN2/8 w - - 0 1", 640), 640, "two knights v a pawn");
    cr_expect_eq(scaled("8/8/8/4k3/8/2r5/3QK3/8 w - - 0 1", 640), 640, "KQ v KR wins");
}

Test(endings, a_bishop_that_cannot_cover_the_rook_pawns_corner_draws) {
    /* h8 is dark: the light-squared bishop on e2 is the wrong one */
    cr_expect_eq(scaled("6k1/8/8/7P/8/8/4B3/4K3 w - - 0 1", 640), 0);
    /* the right bishop (d2, dark), or the defending king far away: the few-pawns rule,
     * 36 + 7 for one pawn, 4 less for pawns on one wing: 39 */
    cr_expect_eq(scaled("6k1/8/8/7P/8/8/3B4/4K3 w - - 0 1", 640), 640 * 39 / 64);
    cr_expect_eq(scaled("k7/8/8/7P/8/8/4B3/4K3 w - - 0 1", 640), 640 * 39 / 64);
}

Test(endings, opposite_coloured_bishops_scale_by_passed_pawns) {
    /* e2 light, g1 dark: d5 passed -> 18 + 4; with e6 beside it, not passed -> 18 */
    cr_expect_eq(scaled("4k3/8/8/3P4/8/8/4B3/4K1b1 w - - 0 1", 640), 640 * 22 / 64);
    cr_expect_eq(scaled("4k3/8/4p3/3P4/8/8/4B3/4K1b1 w - - 0 1", 640), 640 * 18 / 64);
}

Test(endings, the_middlegame_is_left_alone_but_for_the_fifty_move_count) {
    const char *start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
    cr_expect_eq(scaled(start, 640), 640);
    cr_expect_eq(scaled(start, -37), -37);
    cr_expect_eq(scaled("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 50 30", 640),
                 640 * 150 / 200);
    cr_expect_eq(scaled(start, 0), 0);
}

/* The search's score of fen in variant vname at depth 5, classical evaluation. */
static int search_score(const char *vname, const char *fen) {
    const Variant *var = variant_by_name(vname);
    Position *pos = malloc(sizeof *pos);
    CvError err = {{0}};
    cr_assert(pos_from_fen(pos, var, fen, &err), "%s", err.msg);
    Search *s = search_new(var, 14);
    SearchLimits lim = {.depth = 5};
    int score = search_run(s, pos, &lim).score;
    search_free(s);
    free(pos);
    return score;
}

Test(endings, the_search_scales_in_chess_only) {
    const char *kbk = "8/8/8/4k3/8/8/3BK3/8 w - - 0 1";
    cr_expect_eq(search_score("chess", kbk), 0, "a lone bishop cannot win");
    /* Switching does not say pawnless_draws: the bishop keeps its value */
    cr_expect_gt(search_score("switching", kbk), 100);
}
