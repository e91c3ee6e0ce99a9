/* test_supremo.c - Supremo Superchess: the reference perft suite, the worked examples of the
 * rules (counts, check, mate, stalemate, move texts), fast == reference at every node and
 * along random games, the fast and the lean attack tests against the literal one (the lean
 * legality test move by move), make/unmake round trips with blasts and double captures, FEN
 * rules and colour-flip symmetry. */
#include "supremo.h"
#include "test_util.h"

TestSuite(supremo, .init = engine_init, .timeout = 600);

/* The Supremo variant record. */
static const Variant *sup(void) { return variant_by_name("supremo"); }

/* Whether the legal moves of p include the move written as text. */
static bool has_move(Position *p, const char *text) {
    Move list[MAX_MOVES];
    char buf[24];
    int n = pos_legal_moves(p, list);
    for (int i = 0; i < n; i++) {
        move_to_str(p, list[i], buf);
        if (strcmp(buf, text) == 0) return true;
    }
    return false;
}

/* Number of legal moves of p whose text ends with the given suffix. */
static int count_ending(Position *p, const char *suffix) {
    Move list[MAX_MOVES];
    char buf[24];
    int n = pos_legal_moves(p, list), k = 0;
    size_t ls = strlen(suffix);
    for (int i = 0; i < n; i++) {
        size_t l = (size_t)move_to_str(p, list[i], buf);
        k += l >= ls && strcmp(buf + l - ls, suffix) == 0;
    }
    return k;
}

/* Checks fast == reference move lists and both attack tests on the current position. */
static void compare_here(Position *p) {
    Move a[MAX_MOVES], b[MAX_MOVES];
    int na = pos_legal_moves(p, a), nb = pos_reference_moves(p, b);
    qsort(a, (size_t)na, sizeof *a, move_cmp);
    qsort(b, (size_t)nb, sizeof *b, move_cmp);
    char fen[512];
    pos_to_fen(p, fen, sizeof fen);
    cr_assert(na == nb && memcmp(a, b, (size_t)na * sizeof *a) == 0,
              "fast and reference generators differ (%d vs %d moves) at %s", na, nb, fen);
    cr_assert_eq((uint64_t)na, p->var->ops->count_legal(p),
                 "count_legal differs from gen_legal at %s", fen);
    bool lean = ((const SupTables *)p->var->tables)->lean; /* Supremo's own pieces */
    Move pa[MAX_MOVES], pb[MAX_MOVES * 2];
    int npa = supremo_pseudo_fast(p, pa), npb = supremo_pseudo_reference(p, p->side, pb);
    qsort(pa, (size_t)npa, sizeof *pa, move_cmp);
    cr_assert(npa == npb && memcmp(pa, pb, (size_t)npa * sizeof *pa) == 0,
              "fast and reference pseudo-legal lists differ (%d vs %d) at %s", npa, npb, fen);
    for (int sq = 0; sq < 100; sq++) {
        int pc = p->board[sq];
        if (!pc || !(p->var->pieces[PC_TYPE(pc)].flags & PF_ROYAL)) continue;
        int by = PC_COLOR(pc) ^ 1;
        cr_assert_eq(supremo_attacked_fast(p, sq, by), supremo_attacked_reference(p, sq, by),
                     "attack tests differ on the King on square %d at %s", sq, fen);
        if (lean)
            cr_assert_eq(supremo_lean_attacked(p, sq, by), supremo_attacked_reference(p, sq, by),
                         "the lean attack test differs on the King on square %d at %s", sq, fen);
    }
    /* the lean legality test of the generator, move by move: make, the literal test, unmake */
    int k = sup_royal_sq(p, p->var->tables, p->side);
    if (!lean || k == NO_SQ) return;
    for (int i = 0; i < npa; i++) {
        pos_make(p, pa[i]);
        int kk = sup_royal_sq(p, p->var->tables, p->side ^ 1);
        bool safe = kk == NO_SQ || !supremo_attacked_reference(p, kk, p->side);
        pos_unmake(p);
        char ms[24];
        move_to_str(p, pa[i], ms);
        cr_assert_eq(supremo_lean_move_safe(p, pa[i], k), safe,
                     "the lean legality test of %s differs from make and the literal test at %s",
                     ms, fen);
    }
}

Test(supremo, reference_suite_matches) {
    cr_assert_geq(tu_run_suite("supremo.epd", "supremo", 30, 0, false), 60);
}

Test(supremo, reference_generator_matches_the_suite) {
    cr_assert_geq(tu_run_suite("supremo.epd", "supremo", 2, 0, true), 40);
}

Test(supremo, fast_equals_reference_at_every_node) {
    int n;
    EpdEntry *e = tu_load_epd("supremo.epd", &n);
    Position *p = malloc(sizeof *p);
    uint64_t nodes = 0;
    for (int i = 0; i < n; i++) { /* the start position (line 1) to depth 2: it is wide */
        tu_fen(p, sup(), e[i].fen);
        nodes += tu_compare_tree(p, i == 0 ? 2 : 3);
    }
    cr_assert_gt(nodes, (uint64_t)n, "no node below the %d roots was compared", n);
    free(p);
    free(e);
}

Test(supremo, worked_examples_check_mate_stalemate) {
    Position *p = malloc(sizeof *p);
    Move list[MAX_MOVES];
    /* T6: stalemate, Black to move has no move and is not attacked */
    tu_fen(p, sup(), "k9/2Q7/10/10/10/10/10/10/10/9K b - - 0 1");
    cr_assert_eq(pos_legal_moves(p, list), 0);
    cr_assert_not(pos_in_check(p));
    cr_assert_eq(sup()->stalemate_score, 250, "the stalemated side scores 1/4");
    /* T15: mate */
    tu_fen(p, sup(), "k8R/10/K9/10/10/10/10/10/10/10 b - - 0 1");
    cr_assert_eq(pos_legal_moves(p, list), 0);
    cr_assert(pos_in_check(p));
    /* T7, T7b: a rook checks by hopping over one screen, next to the King or not */
    tu_fen(p, sup(), "4r4k/10/10/10/10/10/10/10/4P5/4K5 w - - 0 1");
    cr_assert(pos_in_check(p));
    tu_fen(p, sup(), "4r4k/10/10/10/10/10/10/4P5/10/4K5 w - - 0 1");
    cr_assert(pos_in_check(p));
    cr_assert_not(has_move(p, "e1e2"));
    cr_assert_not(has_move(p, "e3e4"));
    /* T8: the Terminator checks through a jump and a blast */
    tu_fen(p, sup(), "10/10/7k2/10/5P4/4T5/10/10/10/K9 b - - 0 1");
    cr_assert(pos_in_check(p));
    /* T16: a Terminator without a landing square does not check; only Kxa1 */
    tu_fen(p, sup(), "10/10/10/10/10/10/10/S1S7/Sk8/TSS6K b - - 0 1");
    cr_assert_not(pos_in_check(p));
    cr_assert_eq(pos_legal_moves(p, list), 1);
    cr_assert(has_move(p, "b2a1"));
    /* T17a / T17b: a double leap checks only through an empty or capturable square */
    tu_fen(p, sup(), "10/4k5/10/3s1s4/10/4N5/10/10/10/K9 b - - 0 1");
    cr_assert_not(pos_in_check(p));
    tu_fen(p, sup(), "10/4k5/10/3s1p4/10/4N5/10/10/10/K9 b - - 0 1");
    cr_assert(pos_in_check(p));
    /* T14: removing one of two screens is illegal */
    tu_fen(p, sup(), "k3r5/10/10/10/10/10/3p6/4P5/4P5/4K5 w - - 0 1");
    cr_assert_not(has_move(p, "e3d4"));
    cr_assert(has_move(p, "e3e5"));
    free(p);
}

Test(supremo, worked_examples_move_texts) {
    Position *p = malloc(sizeof *p);
    /* S30: the rook hops over its own pawn and takes on c8 at once */
    tu_fen(p, sup(), sup()->start_fen);
    cr_assert(has_move(p, "c2c8"));
    cr_assert(has_move(p, "h2h8"));
    cr_assert_not(has_move(p, "c2c9"), "nothing lies beyond the target");
    /* T1: slide to e8 (capture), hop to e9 and capture on e10 */
    tu_fen(p, sup(), "4b4k/10/4p5/10/10/4R5/10/10/10/K9 w - - 0 1");
    cr_assert(has_move(p, "e5e8") && has_move(p, "e5e9") && has_move(p, "e5e10"));
    /* T2b: capture-and-return, and g9 only through f7 */
    tu_fen(p, sup(), "9k/10/10/5p4/10/4N5/10/10/10/K9 w - - 0 1");
    cr_assert(has_move(p, "e5xf7-e5"));
    cr_assert(has_move(p, "e5xf7-e9"));
    cr_assert(has_move(p, "e5e9"), "the quiet route through d7");
    /* T9: a1xb2-X for 8 squares, a1b2, no null move */
    tu_fen(p, sup(), "9k/10/10/10/10/10/10/10/1p8/C8K w - - 0 1");
    cr_assert(has_move(p, "a1xb2-a1"));
    cr_assert(has_move(p, "a1b2"));
    cr_assert_eq(count_ending(p, "-a1"), 1);
    cr_assert_eq(count_ending(p, "a1a1"), 0);
    const char *via_b2[] = {"a1", "a2", "a3", "b1", "b3", "c1", "c2", "c3"};
    for (int i = 0; i < 8; i++) {
        char t[24];
        snprintf(t, sizeof t, "a1xb2-%s", via_b2[i]);
        cr_assert(has_move(p, t), "%s", t);
    }
    /* section 6.4: three distinct Commando moves end on e7 */
    tu_fen(p, sup(), "9k/10/10/10/3p1p4/4C5/10/10/10/K9 w - - 0 1");
    cr_assert_eq(count_ending(p, "e7"), 3);
    cr_assert(has_move(p, "e5e7") && has_move(p, "e5xd6-e7") && has_move(p, "e5xf6-e7"));
    /* T18: a jK landing captures, then the Commando walks on or comes back */
    tu_fen(p, sup(), "9k/10/10/4p5/4P5/4C5/10/10/10/K9 w - - 0 1");
    cr_assert(has_move(p, "e5e7") && has_move(p, "e5xe7-e5") && has_move(p, "e5xe7-d8"));
    cr_assert(has_move(p, "e5d8"), "d8 by jumping e7 from e6's side");
    /* T13: seven promotion letters */
    tu_fen(p, sup(), "k9/8P1/10/10/10/10/10/10/10/K9 w - - 0 1");
    const char *letters = "qrbntcs";
    for (int i = 0; letters[i]; i++) {
        char t[24];
        snprintf(t, sizeof t, "i9i10%c", letters[i]);
        cr_assert(has_move(p, t), "%s", t);
    }
    /* T3: d6 (a blast on e6) and the jumps to c3 and e7 */
    tu_fen(p, sup(), "9k/10/10/10/4p5/4T5/3P6/10/10/K9 w - - 0 1");
    cr_assert(has_move(p, "e5d6") && has_move(p, "e5c3") && has_move(p, "e5e7"));
    free(p);
}

Test(supremo, pawn_start_rank_is_a_variant_parameter) {
    Variant *alt = malloc(sizeof *alt);
    memcpy(alt, sup(), sizeof *alt);
    alt->pawn_start_rank[WHITE] = 1;
    alt->pawn_start_rank[BLACK] = 8;
    Position *p = malloc(sizeof *p);
    Move list[MAX_MOVES];
    /* T7b and T14 with pawn start rank 2: 5 moves each (the double step is gone) */
    tu_fen(p, alt, "4r4k/10/10/10/10/10/10/4P5/10/4K5 w - - 0 1");
    cr_assert_eq(pos_legal_moves(p, list), 4, "T7b is in check either way");
    tu_fen(p, alt, "k3r5/10/10/10/10/10/3p6/4P5/4P5/4K5 w - - 0 1");
    cr_assert_eq(pos_legal_moves(p, list), 5);
    cr_assert_eq(pos_reference_moves(p, list), 5);
    tu_fen(p, sup(), "k3r5/10/10/10/10/10/3p6/4P5/4P5/4K5 w - - 0 1");
    cr_assert_eq(pos_legal_moves(p, list), 6);
    free(p);
    free(alt);
}

/* Plays m on p and checks that unmake restores the exact state. */
static void round_trip(Position *p, const char *text, int victims, bool resets) {
    static Position before;
    CvError err = {{0}};
    char why[256];
    Move m = move_from_str(p, text, &err);
    cr_assert_neq(m, MOVE_NONE, "%s: %s", text, err.msg);
    memcpy(&before, p, offsetof(Position, stack));
    int pieces_before = 0, pieces_after = 0;
    for (int s = 0; s < 100; s++) pieces_before += p->board[s] != 0;
    pos_make(p, m);
    cr_assert(pos_is_consistent(p, why, sizeof why), "%s: %s", text, why);
    for (int s = 0; s < 100; s++) pieces_after += p->board[s] != 0;
    cr_assert_eq(pieces_before - pieces_after, victims, "%s removes %d pieces", text, victims);
    cr_assert_eq(p->halfmove == 0, resets, "%s: half-move counter", text);
    pos_unmake(p);
    cr_assert(memcmp(&before, p, offsetof(Position, stack)) == 0, "unmake of %s", text);
}

Test(supremo, make_unmake_blasts_and_double_captures) {
    Position *p = malloc(sizeof *p);
    /* a Terminator landing among five black men (a Protector among them is spared) */
    tu_fen(p, sup(), "k9/10/10/10/3psn4/3b1r4/3qT5/10/10/9K w - - 7 20");
    round_trip(p, "e4e5", 5, true);
    round_trip(p, "e4f3", 0, false);
    /* T12: d6 blasts d7 e6 e7 */
    tu_fen(p, sup(), "9k/10/10/3nps4/4p5/4T5/10/10/10/K9 w - - 3 9");
    round_trip(p, "e5d6", 3, true);
    round_trip(p, "e5f6", 2, true);
    /* Super Knight: two captures, and capture-and-return */
    tu_fen(p, sup(), "9k/4r5/10/5p4/10/4N5/10/10/10/K9 w - - 5 9");
    round_trip(p, "e5xf7-e9", 2, true);
    round_trip(p, "e5xf7-e5", 1, true);
    round_trip(p, "e5d7", 0, false);
    /* Commando: two captures on a K/jK walk */
    tu_fen(p, sup(), "9k/10/10/4p5/4P5/4C5/10/10/10/K9 w - - 5 9");
    round_trip(p, "e5xe7-e5", 1, true);
    tu_fen(p, sup(), "9k/10/10/4p5/3p6/4C5/10/10/10/K9 w - - 5 9");
    round_trip(p, "e5xd6-e7", 2, true);
    /* a promotion with capture */
    tu_fen(p, sup(), "k4r4/4P5/10/10/10/10/10/10/10/K9 w - - 5 9");
    round_trip(p, "e9f10t", 1, true);
    free(p);
}

Test(supremo, random_games_fast_equals_reference) {
    Position *p = malloc(sizeof *p);
    int seen = 0;
    for (uint64_t g = 0; g < 24; g++) {
        uint64_t seed = 1000 + g;
        tu_fen(p, sup(), sup()->start_fen);
        for (int ply = 0; ply < 120; ply++) {
            compare_here(p);
            seen++;
            Move list[MAX_MOVES];
            int n = pos_legal_moves(p, list);
            if (!n) break;
            pos_make(p, list[tu_rand(&seed) % (uint64_t)n]);
        }
    }
    cr_assert_gt(seen, 2000);
    free(p);
}

Test(supremo, random_walks_make_unmake_fen_and_notation) {
    const Variant *v = sup();
    int seen = 0;
    for (uint64_t g = 0; g < 20; g++) seen += tu_random_walk(v, v->start_fen, 4242 + g, 250);
    seen += tu_random_walk(v, "9k/10/10/3nps4/4p5/4T5/10/10/10/K9 w - - 0 1", 7, 200);
    cr_assert_gt(seen, 2000);
}

Test(supremo, colour_flip_gives_the_same_counts) {
    int n;
    EpdEntry *e = tu_load_epd("supremo.epd", &n);
    Position *p = malloc(sizeof *p);
    for (int i = 0; i < n; i++) {
        char flipped[512];
        tu_flip_fen(e[i].fen, flipped);
        tu_fen(p, sup(), flipped);
        for (int k = 0; k < e[i].ndepth && e[i].depth[k] <= 2; k++)
            cr_assert_eq(perft(p, e[i].depth[k]), e[i].nodes[k], "flip of %s: %s", e[i].fen,
                         flipped);
    }
    free(p);
    free(e);
}

Test(supremo, fen_rules) {
    Position *p = malloc(sizeof *p);
    CvError err = {{0}};
    char out[512];
    tu_fen(p, sup(), sup()->start_fen);
    pos_to_fen(p, out, sizeof out);
    cr_assert_str_eq(out, sup()->start_fen, "`10` written for an empty rank");
    const char *bad[] = {
        "9k/10/10/10/10/10/10/10/10/10 w - - 0 1",     /* no white King */
        "9k/10/10/10/10/10/10/10/10/K8K w - - 0 1",    /* two white Kings */
        "P8k/10/10/10/10/10/10/10/10/K9 w - - 0 1",    /* pawn on its last rank */
        "9k/10/10/10/10/10/10/10/10/K8p w - - 0 1",    /* black pawn on rank 1 */
        "k8R/10/K9/10/10/10/10/10/10/10 w - - 0 1",    /* side not to move in check */
        "4r4k/10/10/10/10/10/10/4P5/10/4K5 b - - 0 1", /* hop check, wrong side */
        "9k/10/10/10/10/10/10/10/10/K9 w KQ - 0 1",    /* castling field */
        "9k/10/10/10/10/10/10/10/10/K9 w - e3 0 1",    /* e.p. field */
        "9k/10/10/10/10/10/10/10/10/K10 w - - 0 1",    /* rank too long */
        "9k/10/10/10/10/10/10/10/10 w - - 0 1",        /* nine ranks */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err.msg[0] = 0;
        cr_assert_not(pos_from_fen(p, sup(), bad[i], &err), "accepted: %s", bad[i]);
        cr_assert_neq(err.msg[0], 0, "no message for %s", bad[i]);
    }
    /* a pawn on its own first rank is legal input */
    tu_fen(p, sup(), "9k/10/10/10/10/10/10/10/10/KP8 w - - 0 1");
    free(p);
}

Test(supremo, cannon10_suite_counted_by_fairy_stockfish) {
    int n;
    EpdEntry *e = tu_load_epd("supremo_cannon10.epd", &n);
    cr_assert_geq(n, 10);
    Position *p = malloc(sizeof *p);
    const Variant *v = variant_by_name("cannon10");
    cr_assert_not_null(v);
    for (int i = 0; i < n; i++) {
        cr_assert_str_eq(e[i].variant, "cannon10");
        tu_fen(p, v, e[i].fen);
        for (int k = 0; k < e[i].ndepth; k++) {
            uint64_t got = perft(p, e[i].depth[k]);
            cr_assert_eq(got, e[i].nodes[k], "%s depth %d: expected %llu got %llu", e[i].fen,
                         e[i].depth[k], (unsigned long long)e[i].nodes[k], (unsigned long long)got);
        }
        tu_compare_tree(p, 2);
    }
    free(p);
    free(e);
}

Test(supremo, cannon10_random_games_fast_equals_reference) {
    Position *p = malloc(sizeof *p);
    const Variant *v = variant_by_name("cannon10");
    int seen = 0;
    for (uint64_t g = 0; g < 16; g++) {
        uint64_t seed = 500 + g;
        tu_fen(p, v, v->start_fen);
        for (int ply = 0; ply < 150; ply++) {
            compare_here(p);
            seen++;
            Move list[MAX_MOVES];
            int n = pos_legal_moves(p, list);
            if (!n) break;
            pos_make(p, list[tu_rand(&seed) % (uint64_t)n]);
        }
    }
    cr_assert_gt(seen, 1000);
    free(p);
}

Test(supremo, crowded_walks_fast_equals_reference) {
    /* twelve Protectors and two Commandos: the literal walker meets each destination by
     * thousands of routes, and must list it once */
    Position *p = malloc(sizeof *p);
    const char *fens[] = {
        "s2k2s3/2s1q1s3/3rbbr3/10/2ssSS4/10/3RBBR3/2S1Q1S3/10/S3K2S2 w - - 0 1",
        "3k6/1P1P1P1P2/10/2t1c1n3/10/10/3T1C1N2/10/1p1p1p1p2/4K5 w - - 0 1",
    };
    int seen = 0;
    for (int f = 0; f < 2; f++) {
        uint64_t seed = 31 + (uint64_t)f;
        tu_fen(p, sup(), fens[f]);
        for (int ply = 0; ply < 40; ply++) {
            compare_here(p);
            seen++;
            Move list[MAX_MOVES];
            int n = pos_legal_moves(p, list);
            if (!n) break;
            pos_make(p, list[tu_rand(&seed) % (uint64_t)n]);
        }
    }
    cr_assert_gt(seen, 40);
    free(p);
}

/* The lean perft (Supremo's own counter at the last ply) counts exactly what gen_legal,
 * make and unmake count: depth 1 and 2 at every ply of seeded random games from the
 * start, from every position of the suite and from crowded positions (checks, blasts,
 * double captures, promotions and Protector walks among them), depth 3 now and then. */
Test(supremo, lean_perft_equals_generic_perft) {
    const char *extra[] = {
        "s2k2s3/2s1q1s3/3rbbr3/10/2ssSS4/10/3RBBR3/2S1Q1S3/10/S3K2S2 w - - 0 1",
        "3k6/1P1P1P1P2/10/2t1c1n3/10/10/3T1C1N2/10/1p1p1p1p2/4K5 w - - 0 1",
        "r2tqk1bnr/c1rnb1nrsc/pp1p2p1pp/2p1p2p2/3T1NC3/5Bt3/10/PPPP1PPP1P/CSRN1B1RSC/RNB1QK1BNR b "
        "- - 0 1",
    };
    int ne = 0;
    EpdEntry *e = tu_load_epd("supremo.epd", &ne);
    int nstarts = ne + 1 + (int)(sizeof extra / sizeof *extra);
    Position *p = malloc(sizeof *p);
    uint64_t seed = 777, checked = 0;
    for (int g = 0; g < 2 * nstarts; g++) {
        int i = g % nstarts;
        const char *fen = i < ne ? e[i].fen : i == ne ? sup()->start_fen : extra[i - ne - 1];
        tu_fen(p, sup(), fen);
        for (int ply = 0; ply < 100; ply++) {
            for (int d = 1; d <= (ply % 10 == 5 ? 3 : 2); d++) {
                uint64_t a = perft(p, d), b = perft_generic(p, d);
                char buf[512];
                pos_to_fen(p, buf, sizeof buf);
                cr_assert_eq(a, b, "%s depth %d: lean %llu, generic %llu", buf, d,
                             (unsigned long long)a, (unsigned long long)b);
                checked++;
            }
            Move list[MAX_MOVES];
            int n = pos_legal_moves(p, list);
            if (!n) break;
            pos_make(p, list[tu_rand(&seed) % (uint64_t)n]);
        }
    }
    cr_assert_gt(checked, 5000);
    free(e);
    free(p);
}

/* cannon10's perft kernel counts exactly what gen_legal, make and unmake count: depth 1
 * and 2 at every ply of seeded random games from the start, from every position of the
 * suite and from positions crowded with cannons and pins, depth 3 now and then. */
Test(supremo, cannon10_kernel_equals_generic_perft) {
    const char *extra[] = {
        "4k5/10/4c5/4p5/10/1c2P1R2r/10/4B5/10/C3K3Cc w - - 0 1",
        "r3k4r/4c5/10/4q5/4P5/qR2K2c1r/4B5/4C5/10/4c5 w - - 0 1",
        "4k5/1P6P1/10/10/c3P4r/10/10/c9/1p6p1/4K5 b - - 0 1",
    };
    const Variant *v = variant_by_name("cannon10");
    int ne = 0;
    EpdEntry *e = tu_load_epd("supremo_cannon10.epd", &ne);
    int nstarts = ne + 1 + (int)(sizeof extra / sizeof *extra);
    Position *p = malloc(sizeof *p);
    uint64_t seed = 4242, checked = 0;
    for (int g = 0; g < 2 * nstarts; g++) {
        int i = g % nstarts;
        const char *fen = i < ne ? e[i].fen : i == ne ? v->start_fen : extra[i - ne - 1];
        tu_fen(p, v, fen);
        for (int ply = 0; ply < 100; ply++) {
            for (int d = 1; d <= (ply % 10 == 5 ? 3 : 2); d++) {
                uint64_t a = perft(p, d), b = perft_generic(p, d);
                char buf[512];
                pos_to_fen(p, buf, sizeof buf);
                cr_assert_eq(a, b, "%s depth %d: kernel %llu, generic %llu", buf, d,
                             (unsigned long long)a, (unsigned long long)b);
                checked++;
            }
            Move list[MAX_MOVES];
            int n = pos_legal_moves(p, list);
            if (!n) break;
            pos_make(p, list[tu_rand(&seed) % (uint64_t)n]);
        }
    }
    cr_assert_gt(checked, 5000);
    free(e);
    free(p);
}

/* The capture generator (quiescence) gives exactly the legal moves that remove an enemy
 * piece, judged by making each legal move and counting, in the legal generator's order:
 * Supremo (double captures, blasts next to the landing, uncapturable Protectors) and
 * cannon10, on random games from the start and from a crowded Terminator position. */
Test(supremo, capture_generator_gives_exactly_the_removing_moves) {
    const char *vars[] = {"supremo", "cannon10", "supremo"};
    Position *p = malloc(sizeof *p);
    uint64_t rng = 99, checked = 0, captures = 0, multi = 0;
    for (int vi = 0; vi < 3; vi++) {
        const Variant *v = variant_by_name(vars[vi]);
        const char *start = vi < 2 ? v->start_fen : "9k/10/10/3nps4/4p5/4T5/10/10/10/K9 w - - 0 1";
        for (int g = 0; g < 12; g++) {
            tu_fen(p, v, start);
            for (int ply = 0; ply < 150; ply++) {
                Move list[MAX_MOVES], caps[MAX_MOVES];
                int k = tu_check_captures(p, vars[vi], caps), n = pos_legal_moves(p, list);
                for (int i = 0; i < k; i++) multi += MOVE_KIND(caps[i]) == MK_MULTI;
                checked++;
                captures += (uint64_t)k;
                if (!n) break;
                pos_make(p, list[tu_rand(&rng) % (uint64_t)n]);
            }
        }
    }
    cr_assert_gt(checked, 3000);
    cr_assert_gt(captures, 10000);
    cr_assert_gt(multi, 500);
    free(p);
}
