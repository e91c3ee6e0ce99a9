/* test_switching.c - Switching chess: reference perft suite, fast == reference at every
 * node, switch notation, castling-rights bookkeeping, occupancy invariance, colour flip. */
#include "test_util.h"

TestSuite(switching, .init = engine_init, .timeout = 300);

Test(switching, reference_suite_matches) {
    cr_assert_geq(tu_run_suite("switching.epd", "switching", 30, 0, false), 33);
}

Test(switching, fast_equals_reference_at_every_node) {
    tu_compare_suite("switching.epd", "switching", 3);
}

Test(switching, colour_flip_gives_the_same_counts) {
    int n;
    EpdEntry *e = tu_load_epd("switching.epd", &n);
    Position *p = malloc(sizeof *p);
    const Variant *v = variant_by_name("switching");
    for (int i = 0; i < n; i++) {
        char flipped[512];
        tu_flip_fen(e[i].fen, flipped);
        tu_fen(p, v, flipped);
        cr_assert_eq(perft(p, e[i].depth[1]), e[i].nodes[1], "flip of %s", e[i].fen);
    }
    free(p);
    free(e);
}

Test(switching, random_walks_make_unmake_fen_and_notation) {
    const Variant *v = variant_by_name("switching");
    int seen = 0;
    for (uint64_t g = 0; g < 40; g++) seen += tu_random_walk(v, v->start_fen, 77 + g, 200);
    seen += tu_random_walk(v, "4k3/8/8/8/8/3p1p2/6P1/3NP1K1 w - - 0 1", 5, 200);
    cr_assert_gt(seen, 2000);
}

Test(switching, notation_and_worked_example_seed) {
    Position *p = malloc(sizeof *p);
    const Variant *v = variant_by_name("switching");
    tu_fen(p, v, "1RB3k1/5ppp/8/8/8/8/8/K7 w - - 0 1");
    CvError err = {{0}};
    Move m = move_from_str(p, "Sb8c8", &err);
    cr_assert_neq(m, MOVE_NONE, "%s", err.msg);
    cr_assert_eq(move_from_str(p, "Sc8b8", &err), m, "squares in either order");
    Bitboard occ = p->bb.b8.color[0] | p->bb.b8.color[1];
    pos_make(p, m);
    cr_assert_eq(p->bb.b8.color[0] | p->bb.b8.color[1], occ, "a switch keeps the occupancy");
    /* Sb8c8 mates: the rook checks from c8 and Black may not switch in check */
    Move list[MAX_MOVES];
    cr_assert_eq(pos_legal_moves(p, list), 0);
    cr_assert(pos_in_check(p));
    pos_unmake(p);
    /* a promoting switch: pawn c7 with the knight on b8 */
    tu_fen(p, v, "1N5n/2P3P1/8/7k/8/K3p3/1p3p2/R2P2b1 w - - 0 1");
    char buf[24];
    m = move_from_str(p, "Sb8c7q", &err);
    cr_assert_neq(m, MOVE_NONE, "%s", err.msg);
    move_to_str(p, m, buf);
    cr_assert_str_eq(buf, "Sb8c7q");
    cr_assert_eq(move_from_str(p, "Sc7b8q", &err), m);
    cr_assert_eq(move_from_str(p, "Sb8c7", &err), MOVE_NONE, "promotion letter is required");
    free(p);
}

Test(switching, castling_rights_follow_switches_of_king_and_rook) {
    Position *p = malloc(sizeof *p);
    const Variant *v = variant_by_name("switching");
    CvError err = {{0}};
    char fen[512];
    tu_fen(p, v, "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3KB1R w KQkq - 0 1");
    pos_make(p, move_from_str(p, "Se1f1", &err));
    pos_to_fen(p, fen, sizeof fen);
    cr_assert(strstr(fen, " b kq "), "king switch drops both white rights: %s", fen);
    tu_fen(p, v, "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K1BR w KQkq - 0 1");
    pos_make(p, move_from_str(p, "Sg1h1", &err));
    pos_to_fen(p, fen, sizeof fen);
    cr_assert(strstr(fen, " b Qkq "), "rook switch drops the h-file right: %s", fen);
    /* a pawn on its first rank steps one or two, and a check forbids every switch */
    tu_fen(p, v, "4k3/8/8/8/8/3p1p2/6P1/3NP1K1 w - - 0 1");
    cr_assert_neq(move_from_str(p, "e1e3", &err), MOVE_NONE, "%s", err.msg);
    pos_make(p, move_from_str(p, "e1e3", &err));
    pos_to_fen(p, fen, sizeof fen);
    cr_assert(strstr(fen, " e2 "), "double step from the first rank sets e.p. on e2: %s", fen);
    /* both black pawns beside e3 may take e.p. on e2 */
    cr_assert_eq(MOVE_KIND(move_from_str(p, "d3e2", &err)), MK_EP, "%s", err.msg);
    cr_assert_eq(MOVE_KIND(move_from_str(p, "f3e2", &err)), MK_EP, "%s", err.msg);
    free(p);
}
