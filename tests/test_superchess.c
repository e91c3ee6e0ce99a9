/* test_superchess.c - Superchess (Exchess set 2): the reference perft suite, fast ==
 * reference at every node, verdicts of the worked examples, make/unmake round trips with
 * drops, pool changes, castling of both monarchs and freezes, FEN and notation, colour
 * flip symmetry, and the prelude generator and checker. */
#include <sys/wait.h>

#include "superchess.h"
#include "test_util.h"

TestSuite(superchess, .init = engine_init, .timeout = 600);

static const Variant *sc(void) { return variant_by_name("superchess"); }

/* Colour flip of a Superchess FEN: ranks mirrored and case swapped (the hand too), side
 * swapped, castling tokens change colour, e.p. rank mirrored, pool halves swapped. */
static void sc_flip_fen(const char *fen, char *out) {
    char board[256], side[8], castle[64], ep[8], hm[16] = "0", fm[16] = "1", pool[64] = "";
    int k = sscanf(fen, "%255s %7s %63s %7s %15s %15s %63s", board, side, castle, ep, hm, fm, pool);
    cr_assert_geq(k, 4);
    char hand[32] = "";
    char *br = strchr(board, '[');
    if (br) {
        snprintf(hand, sizeof hand, "%s", br);
        *br = 0;
    }
    for (char *c = hand; *c; c++)
        *c = isupper((unsigned char)*c) ? (char)tolower(*c) : (char)toupper(*c);
    char *ranks[8];
    int nr = 0;
    for (char *t = strtok(board, "/"); t; t = strtok(NULL, "/")) ranks[nr++] = t;
    out[0] = 0;
    for (int i = nr - 1; i >= 0; i--) {
        for (char *c = ranks[i]; *c; c++)
            *c = isupper((unsigned char)*c) ? (char)tolower(*c) : (char)toupper(*c);
        strcat(out, ranks[i]);
        if (i) strcat(out, "/");
    }
    strcat(out, hand);
    strcat(out, side[0] == 'w' ? " b " : " w ");
    for (char *c = castle; *c; c++)
        if (*c == 'K' || *c == 'E' || *c == 'k' || *c == 'e')
            *c = isupper((unsigned char)*c) ? (char)tolower(*c) : (char)toupper(*c);
    strcat(out, castle);
    char e[16] = " -";
    if (strcmp(ep, "-") != 0) snprintf(e, sizeof e, " %c%d", ep[0], 9 - atoi(ep + 1));
    strcat(out, e);
    strcat(out, " ");
    strcat(out, hm);
    strcat(out, " ");
    strcat(out, fm);
    if (pool[0]) {
        char *slash = strchr(pool, '/');
        cr_assert_not_null(slash);
        *slash = 0;
        char flipped[160];
        snprintf(flipped, sizeof flipped, " %s/%s", slash + 1, pool);
        for (char *c = flipped; *c; c++)
            *c = isupper((unsigned char)*c) ? (char)tolower(*c) : (char)toupper(*c);
        strcat(out, flipped);
    }
}

Test(superchess, reference_suite_matches) {
    int n;
    free(tu_load_epd("superchess.epd", &n));
    cr_assert_eq(n, 28);
    cr_assert_geq(tu_run_suite("superchess.epd", "superchess", 30, 0, false), 3 * 28);
}

Test(superchess, named_starts) {
    cr_assert_str_eq(variant_start(sc(), NULL), variant_start(sc(), "p0"));
    cr_assert_str_eq(
        variant_start(sc(), "p1"),
        "rdfekmgr/tthpphtt/8/8/8/8/TTHPPHTT/RDFEKMGR[LXlx] w Ka,Kh,Ea,Eh,ka,kh,ea,eh - 0 1");
    cr_assert_str_eq(variant_start(sc(), "p0-nr"),
                     "dofekmga/tthpphtt/8/8/8/8/TTHPPHTT/DOFEKMGA w - - 0 1");
    cr_assert_null(variant_start(sc(), "p2"));
}

Test(superchess, reference_generator_matches_suite) {
    cr_assert_geq(tu_run_suite("superchess.epd", "superchess", 2, 0, true), 2 * 28);
}

Test(superchess, fast_equals_reference_at_every_node) {
    tu_compare_suite("superchess.epd", "superchess", 3);
    tu_compare_suite("superchess_selfcheck.epd", "superchess", 3);
}

/* A seeded random game comparing the fast and the reference generator at every node. */
static int compare_along_game(const char *fen, uint64_t seed, int plies) {
    Position *p = malloc(sizeof *p);
    tu_fen(p, sc(), fen);
    int seen = 0;
    for (int ply = 0; ply < plies; ply++) {
        tu_compare_tree(p, 1);
        seen++;
        Move list[MAX_MOVES];
        int n = pos_legal_moves(p, list);
        if (!n) break;
        pos_make(p, list[tu_rand(&seed) % (uint64_t)n]);
    }
    free(p);
    return seen;
}

Test(superchess, fast_equals_reference_along_random_games) {
    int seen = 0;
    for (uint64_t g = 0; g < 60; g++) {
        seen += compare_along_game(variant_start(sc(), "p0"), 11 + g, 250);
        seen += compare_along_game(variant_start(sc(), "p1"), 911 + g, 250);
    }
    /* random prelude arrays: other pieces at home, castling for either monarch */
    PreludeParams pp;
    prelude_defaults(&pp);
    for (uint64_t g = 0; g < 30; g++) {
        char fen[256];
        CvError err = {{0}};
        cr_assert(prelude_random(sc(), &pp, 500 + g, fen, sizeof fen, &err), "%s", err.msg);
        seen += compare_along_game(fen, 77 + g, 250);
    }
    cr_assert_gt(seen, 12000);
}

/* The specialised perft path (perft_superchess.c) counts exactly what gen_legal, make and
 * unmake count, and its leaf count and move list equal the generator's at every node: on
 * the suite positions and along seeded random games from P0, P1, prelude arrays and the
 * suites (checks, freezes, pins, e.p., castling, drops and promotions among them). */
static int compare_lean_along_game(const char *fen, uint64_t seed, int plies) {
    Position *p = malloc(sizeof *p);
    tu_fen(p, sc(), fen);
    int checked = 0;
    for (int ply = 0; ply < plies; ply++) {
        char now[256];
        pos_to_fen(p, now, sizeof now);
        cr_assert_eq(sc_count_fast(p), sc_count_legal(p), "%s: count", now);
        Move fast[MAX_MOVES], gen[MAX_MOVES];
        int nf = sc_gen_fast(p, fast), ng = sc_gen_legal(p, gen);
        cr_assert_eq(nf, ng, "%s: %d moves on the specialised path, %d from the generator", now, nf,
                     ng);
        qsort(fast, (size_t)nf, sizeof *fast, move_cmp);
        qsort(gen, (size_t)ng, sizeof *gen, move_cmp);
        cr_assert(memcmp(fast, gen, (size_t)nf * sizeof *fast) == 0, "%s: move lists differ", now);
        for (int d = 2; d <= (ply % 16 == 0 ? 3 : 2); d++) {
            uint64_t a = perft(p, d), b = perft_generic(p, d);
            cr_assert_eq(a, b, "%s depth %d: lean %llu, generic %llu", now, d,
                         (unsigned long long)a, (unsigned long long)b);
        }
        char why[256];
        cr_assert(pos_is_consistent(p, why, sizeof why), "%s after perft: %s", now, why);
        char after[256];
        pos_to_fen(p, after, sizeof after);
        cr_assert_str_eq(after, now, "perft left the position changed");
        checked++;
        Move list[MAX_MOVES];
        int n = pos_legal_moves(p, list);
        if (!n) break;
        pos_make(p, list[tu_rand(&seed) % (uint64_t)n]);
    }
    free(p);
    return checked;
}

Test(superchess, lean_perft_equals_generic_perft) {
    int checked = 0;
    const char *starts[] = {
        variant_start(sc(), "p0"),
        variant_start(sc(), "p1"),
        /* pawn pieces near promotion with a small pool, both hands full */
        "4k3/1P1T2H1/8/2m5/5F2/8/1t1h1p2/R2EK2R[LXlx] w Kh,Ea - 0 1 QN/r",
        /* both monarchs of both sides at home with rooks: castling of every kind */
        "r2ek2r/pppppppp/8/8/8/8/PPPPPPPP/R2EK2R[LXlx] w Ka,Kh,Ea,Eh,ka,kh,ea,eh - 0 1",
        /* monarchs shielding each other from sliders, Ministers and Ambassadors about */
        "3ek3/2w2d2/8/1b5r/8/8/2W1D3/R2EK2Q[LXlx] w Ea - 0 1",
        /* open castling rows with Paratroopers in hand: drops that attack or block them */
        "r3k2r/3p4/8/8/8/8/3P4/R3K2R[Xx] w Ka,Kh,ka,kh - 0 1",
        "r2ek2r/2l5/8/8/8/8/4L3/R2EK2R[Xx] b Ka,Kh,Ea,Eh,ka,kh,ea,eh - 0 1",
        /* a mobilisation pawn's 3-step capture guarding a monarch's flight square */
        "7k/8/8/3L4/8/8/8/K7[Xx] w - - 0 1",
        /* pins a drop behind the pinned piece releases */
        "7k/8/8/8/8/2r5/8/B3K3[X] w - - 0 1",
        "k7/8/8/b7/8/8/4K3/QR6[x] b - - 0 1",
        /* a frozen Emperor (Magician f5) whose steps a move reaching its zone would change */
        "N3k3/2d1p1g1/2e5/t2p1m1t/fDP1lHE1/1h5T/1L6/2K2G2[] b - - 2 69",
    };
    for (uint64_t g = 0; g < 16; g++)
        for (int s = 0; s < 11; s++)
            checked += compare_lean_along_game(starts[s], 3 + 100 * (uint64_t)s + g, 160);
    PreludeParams pp;
    prelude_defaults(&pp);
    for (uint64_t g = 0; g < 12; g++) {
        char fen[256];
        CvError err = {{0}};
        cr_assert(prelude_random(sc(), &pp, 900 + g, fen, sizeof fen, &err), "%s", err.msg);
        checked += compare_lean_along_game(fen, 55 + g, 160);
    }
    const char *suites[] = {"superchess.epd", "superchess_selfcheck.epd"};
    for (int f = 0; f < 2; f++) {
        int n;
        EpdEntry *e = tu_load_epd(suites[f], &n);
        for (int i = 0; i < n; i++)
            checked += compare_lean_along_game(e[i].fen, 7 + (uint64_t)i, 40);
        free(e);
    }
    cr_assert_gt(checked, 5000);
}

Test(superchess, random_walks_make_unmake_fen_and_notation) {
    const Variant *v = sc();
    const char *starts[] = {
        variant_start(v, "p0"),
        variant_start(v, "p1"),
        /* pawn pieces near promotion with a small pool, both hands full */
        "4k3/1P1T2H1/8/2m5/5F2/8/1t1h1p2/R2EK2R[LXlx] w Kh,Ea - 0 1 QN/r",
        /* both monarchs of both sides at home with rooks: castling of every kind */
        "r2ek2r/pppppppp/8/8/8/8/PPPPPPPP/R2EK2R[LXlx] w Ka,Kh,Ea,Eh,ka,kh,ea,eh - 0 1",
    };
    int seen = 0;
    for (int s = 0; s < 4; s++)
        for (uint64_t g = 0; g < 12; g++)
            seen += tu_random_walk(v, starts[s], 300 + 17 * g + (uint64_t)s, 200);
    cr_assert_gt(seen, 3000);
}

Test(superchess, colour_flip_gives_the_same_counts) {
    int n;
    EpdEntry *e = tu_load_epd("superchess.epd", &n);
    Position *p = malloc(sizeof *p);
    for (int i = 0; i < n; i++) {
        char flipped[512];
        sc_flip_fen(e[i].fen, flipped);
        tu_fen(p, sc(), flipped);
        for (int k = 0; k < e[i].ndepth && e[i].depth[k] <= 2; k++)
            cr_assert_eq(perft(p, e[i].depth[k]), e[i].nodes[k], "flip of %s is %s", e[i].fen,
                         flipped);
    }
    free(p);
    free(e);
}

/* Legal-move count and check state of a FEN. */
static void expect_verdict(const char *fen, int moves, bool check) {
    Position *p = malloc(sizeof *p);
    Move list[MAX_MOVES];
    tu_fen(p, sc(), fen);
    cr_assert_eq(pos_legal_moves(p, list), moves, "%s", fen);
    cr_assert_eq(pos_in_check(p), check, "%s: in check should be %d", fen, check);
    free(p);
}

Test(superchess, worked_example_verdicts) {
    expect_verdict("7k/8/8/8/8/8/8/K2q3E w - - 0 1", 0, true);  /* T3': mate, both monarchs */
    expect_verdict("7k/6M1/8/8/8/8/8/K7 b - - 0 1", 0, false);  /* T5a: stalemate */
    expect_verdict("k7/8/8/8/8/8/4qf2/4K3 w - - 0 1", 0, true); /* T15b: mate */
    expect_verdict("7k/8/8/3Mr3/8/8/8/4K3 w - - 0 1", 10,
                   false); /* T4: the frozen rook gives no check */
    expect_verdict("k3r3/8/8/8/3E4/8/8/4K3 w - - 0 1", 4, true);     /* T2 */
    expect_verdict("7k/3Mr3/8/8/8/8/4q3/4K3 w - - 0 1", 1, true);    /* T15a */
    expect_verdict("k7/8/4n3/8/5F2/5n2/8/4K3 b - - 0 1", 18, false); /* T14: neutralised knight */
}

/* Plays the move written `text`, which must be legal. */
static void play(Position *p, const char *text) {
    CvError err = {{0}};
    Move m = move_from_str(p, text, &err);
    cr_assert_neq(m, MOVE_NONE, "%s", err.msg);
    pos_make(p, m);
    char why[256];
    cr_assert(pos_is_consistent(p, why, sizeof why), "after %s: %s", text, why);
}

/* Plays text from fen, checks the FEN after it, unmakes and checks the exact restore. */
static void round_trip(const char *fen, const char *text, const char *after) {
    Position *p = malloc(sizeof *p), *before = malloc(sizeof *before);
    char buf[512];
    tu_fen(p, sc(), fen);
    memcpy(before, p, offsetof(Position, stack));
    play(p, text);
    pos_to_fen(p, buf, sizeof buf);
    cr_assert_str_eq(buf, after, "after %s from %s", text, fen);
    Position *q = malloc(sizeof *q);
    tu_fen(q, sc(), buf);
    cr_assert_eq(q->key, p->key, "incremental key differs from the key of %s", buf);
    pos_unmake(p);
    cr_assert(memcmp(before, p, offsetof(Position, stack)) == 0, "unmake of %s did not restore %s",
              text, fen);
    free(q);
    free(before);
    free(p);
}

Test(superchess, make_unmake_drops_pool_castling_and_freezes) {
    /* drops: X anywhere, L on the first rank; each leaves the hand for good */
    round_trip("4k3/8/8/8/8/8/8/4K3[LXlx] w - - 0 1", "X@e4",
               "4k3/8/8/8/4X3/8/8/4K3[Llx] b - - 0 1");
    round_trip("4k3/8/8/8/8/8/8/4K3[LXlx] w - - 5 9", "L@c1",
               "4k3/8/8/8/8/8/8/2L1K3[Xlx] b - - 0 9");
    round_trip("4k3/8/8/8/8/8/8/4K3[LXlx] b - - 0 9", "L@c8",
               "2l1k3/8/8/8/8/8/8/4K3[LXx] w - - 0 10");
    /* promotions: a pool type leaves the pool, X leaves the hand */
    round_trip("7k/1p6/1T6/8/8/8/8/K7[X] w - - 0 1 QRA/-", "b6b8q",
               "1Q5k/1p6/8/8/8/8/8/K7[X] b - - 0 1 R/-");
    round_trip("7k/1p6/1T6/8/8/8/8/K7[X] w - - 0 1 QRA/-", "b6b8x",
               "1X5k/1p6/8/8/8/8/8/K7[] b - - 0 1 QR/-");
    /* a capture of a pool type returns it to its owner's pool (here written: derived) */
    round_trip("4k3/8/8/8/8/8/2q5/K2Q4 w - - 0 1", "d1c2", "4k3/8/8/8/8/8/2Q5/K7[] b - - 0 1");
    round_trip("4k3/8/8/8/8/2q5/3Q4/7K b - - 0 1 -/-", "c3d2",
               "4k3/8/8/8/8/8/3q4/7K[] w - - 0 2 Q/-");
    /* castling of both monarchs, on both wings; rights per monarch-rook pair */
    round_trip("4k3/8/8/8/8/8/8/R2EK2R w Kh,Ea - 0 1", "d1b1",
               "4k3/8/8/8/8/8/8/1ER1K2R[] b Kh - 1 1");
    round_trip("4k3/8/8/8/8/8/8/R2EK2R w Kh,Ea - 0 1", "e1g1",
               "4k3/8/8/8/8/8/8/R2E1RK1[] b Ea - 1 1");
    round_trip("4k3/8/8/8/8/8/8/R2E3R w Ea,Eh - 0 1", "d1f1", "4k3/8/8/8/8/8/8/R3RE2[] b - - 1 1");
    round_trip("4k3/8/8/8/8/8/8/R3K3 w Ka - 0 1", "e1c1", "4k3/8/8/8/8/8/8/2KR4[] b - - 1 1");
    round_trip("r2ek2r/8/8/8/8/8/8/4K3 b ka,kh,ea,eh - 0 1", "d8b8",
               "1er1k2r/8/8/8/8/8/8/4K3[] w kh - 1 2");
    /* a rook move and a capture in the corner remove that file's tokens of both monarchs */
    round_trip("r2ek2r/8/8/8/8/8/8/R2EK2R w Ka,Kh,Ea,Eh,ka,kh,ea,eh - 0 1", "a1a8",
               "R2ek2r/8/8/8/8/8/8/3EK2R[] b Kh,Eh,kh,eh - 0 1");
    /* a Magician moves next to a rook: the rook is frozen, then released by unmake */
    round_trip("4k3/8/4r3/8/3M4/8/8/4K3 w - - 0 1", "d4d5", "4k3/8/4r3/3M4/8/8/8/4K3[] b - - 1 1");
    Position *p = malloc(sizeof *p);
    Move list[MAX_MOVES];
    tu_fen(p, sc(), "4k3/8/4r3/3M4/8/8/8/4K3 b - - 1 1");
    int n = pos_legal_moves(p, list);
    for (int i = 0; i < n; i++)
        cr_assert_neq(MOVE_FROM(list[i]), 44, "the frozen rook on e6 moved");
    cr_assert_eq(n, 5, "only the king moves");
    free(p);
}

Test(superchess, double_steps_and_en_passant) {
    /* only an ordinary pawn's double step writes an e.p. square, and only when a capture on
     * it is legal */
    round_trip("4k3/8/8/8/2p5/8/3PH3/4K3 w - - 0 1", "d2d4",
               "4k3/8/8/8/2pP4/8/4H3/4K3[] b - d3 0 1");
    round_trip("4k3/8/8/8/8/8/3PH3/4K3 w - - 0 1", "d2d4", "4k3/8/8/8/3P4/8/4H3/4K3[] b - - 0 1");
    round_trip("4k3/8/8/8/8/8/3PH3/4K3 w - - 0 1", "e2e4", "4k3/8/8/8/4H3/8/3P4/4K3[] b - - 0 1");
    /* a neutralised pawn may not take e.p. (T13 with a Femme Fatale beside the e5 pawn):
     * Ka1 a2 b1 b2, e5e6 */
    expect_verdict("7k/8/8/3pPh2/4f3/8/8/K7 w - d6 0 1", 4, false);
}

Test(superchess, no_promotion_choice_makes_the_last_rank_illegal) {
    /* empty pool and no X: the t-pawn may not leap to b8 (Ka1 a2 b1 b2, b6b7) */
    expect_verdict("7k/8/1T6/8/8/8/8/K7 w - - 0 1 -/-", 3 + 1, false);
    expect_verdict("7k/1T6/8/8/8/8/8/K7 w - - 0 1 -/-", 3, false);
    /* one choice in the pool however many pieces it holds (b7b8r); X counts while held
     * (b7b8x) and drops on the 61 empty squares */
    expect_verdict("7k/1T6/8/8/8/8/8/K7 w - - 0 1 RR/-", 3 + 1, false);
    expect_verdict("7k/1T6/8/8/8/8/8/K7[X] w - - 0 1 RR/-", 3 + 2 + 61, false);
}

Test(superchess, fen_fields_read_and_written) {
    Position *p = malloc(sizeof *p);
    char buf[512];
    /* the derived pool is not written; castling tokens in the writer's order */
    tu_fen(p, sc(),
           "rdfekmgr/tthpphtt/8/8/8/8/TTHPPHTT/RDFEKMGR[LXlx] w eh,Ka,ka,Eh,kh,Kh,Ea,ea - 0 1");
    pos_to_fen(p, buf, sizeof buf);
    cr_assert_str_eq(buf, variant_start(sc(), "p1"));
    cr_assert_eq(p->pool[WHITE][5], 1, "P1 pool holds the queen");
    /* tokens whose monarch or rook is not at home are dropped on reading */
    tu_fen(p, sc(), "r3k3/8/8/8/8/8/8/4KE1R w Ka,Kh,Ea,Eh,ka,kh,ea - 0 1");
    pos_to_fen(p, buf, sizeof buf);
    cr_assert_str_eq(buf, "r3k3/8/8/8/8/8/8/4KE1R[] w Kh,ka - 0 1");
    /* a pool field equal to the derived pool is not written back; A and X are ignored */
    tu_fen(p, sc(), "4k3/8/8/8/8/8/8/4K3 w - - 0 1 QRRBBNNMFDGO/qrrbbnnmfdgo");
    pos_to_fen(p, buf, sizeof buf);
    cr_assert_str_eq(buf, "4k3/8/8/8/8/8/8/4K3[] w - - 0 1");
    tu_fen(p, sc(), "4k3/8/8/8/8/8/8/4K3 w - - 0 1 qax/-");
    pos_to_fen(p, buf, sizeof buf);
    cr_assert_str_eq(buf, "4k3/8/8/8/8/8/8/4K3[] w - - 0 1 Q/-");
    free(p);
}

/* The FEN must be rejected with a message containing `what`. */
static void expect_bad(const char *fen, const char *what) {
    Position *p = malloc(sizeof *p);
    CvError err = {{0}};
    cr_assert_not(pos_from_fen(p, sc(), fen, &err), "accepted: %s", fen);
    cr_assert(strstr(err.msg, what), "for '%s' expected '%s' in: %s", fen, what, err.msg);
    free(p);
}

Test(superchess, bad_fens_are_named) {
    expect_bad("4k3/8/8/8/8/8/8/4K3[LLlx] w - - 0 1", "holdings repeat 'L'");
    expect_bad("4k3/8/8/8/8/8/8/4K3[Lxx] w - - 0 1", "holdings repeat 'x'");
    expect_bad("4k3/8/8/8/8/8/8/4K3[Q] w - - 0 1", "'Q' cannot be held in hand");
    expect_bad("4k3/8/8/8/8/8/8/4R3 w - - 0 1", "white has no monarch");
    expect_bad("4k3/8/8/8/8/8/8/3KK3 w - - 0 1", "white has 2 Kings");
    expect_bad("4e3/8/8/8/8/8/8/3EK2e w - - 0 1", "black has 2 Emperors");
    expect_bad("4k3/8/8/8/8/8/8/4K2R w Kh,Qh - 0 1", "castling token 2 'Qh'");
    expect_bad("4k3/8/8/8/8/8/8/4K2R w KQ - 0 1", "castling token 1 'KQ'");
    expect_bad("4k3/8/8/8/8/8/8/4K2R w Kh,Kh - 0 1", "castling token 'Kh' repeated");
    expect_bad("4k3/8/8/8/8/8/8/4K2R w Kh, - 0 1", "castling token 2 ''");
    expect_bad("4k3/8/8/8/8/8/8/4K3 w - - 0 1 QZ/-", "unknown piece letter 'Z' in the white pool");
    expect_bad("4k3/8/8/8/8/8/8/4K3 w - - 0 1 Q", "is not <white>/<black>");
    expect_bad("4k3/8/8/8/8/8/8/4K3 w - - 0 1 Q/-/-", "is not <white>/<black>");
    expect_bad("4k3/8/8/8/8/8/8/4K3 w - - 0 1 Q/", "the black pool in 'Q/' is empty, write '-'");
    expect_bad("4k2L/8/8/8/8/8/8/4K3 w - - 0 1", "last rank");
    expect_bad("4k3/8/8/8/8/8/4e3/4K3 w - - 0 1", "side not to move (black) is in check");
    expect_bad("7k/8/8/3hP3/8/8/8/K7 w - d6 0 1", "e.p. square d6");
}

Test(superchess, frozen_king_neither_checks_nor_defends) {
    /* kd5 is frozen by Mc4: Ke3 takes the checking queen e4, defended only by the frozen
     * king, and ends next to it */
    Position *p = malloc(sizeof *p);
    tu_fen(p, sc(), "8/8/8/3k4/2M1q3/4K3/8/8 w - - 0 1");
    cr_assert(pos_in_check(p));
    CvError err = {{0}};
    cr_assert_neq(move_from_str(p, "e3e4", &err), MOVE_NONE, "Kxe4: %s", err.msg);
    free(p);
}

Test(superchess, notation_of_drops_promotions_and_castling) {
    Position *p = malloc(sizeof *p);
    char buf[24];
    CvError err = {{0}};
    tu_fen(p, sc(), "7k/1p6/1T6/8/8/8/8/R2EK3[LXlx] w Ea - 0 1");
    const char *texts[] = {"X@e4", "L@c1", "b6b8x", "b6b8q", "d1b1", "a1a2"};
    for (int i = 0; i < 6; i++) {
        Move m = move_from_str(p, texts[i], &err);
        cr_assert_neq(m, MOVE_NONE, "%s: %s", texts[i], err.msg);
        move_to_str(p, m, buf);
        cr_assert_str_eq(buf, texts[i]);
    }
    cr_assert_eq(MOVE_KIND(move_from_str(p, "d1b1", &err)), MK_CASTLE);
    cr_assert_eq(move_from_str(p, "L@c2", &err), MOVE_NONE, "L drops on the first rank only");
    cr_assert_eq(move_from_str(p, "b6b8", &err), MOVE_NONE, "promotion is compulsory");
    cr_assert_eq(move_from_str(p, "b6b8a", &err), MOVE_NONE, "never an Amazon");
    tu_fen(p, sc(), "4k3/8/8/8/8/8/8/4K3[lx] b - - 0 1");
    cr_assert_neq(move_from_str(p, "X@e4", &err), MOVE_NONE,
                  "Black's drops are written in upper case");
    free(p);
}

Test(superchess, prelude_random_arrays_pass_the_checker) {
    PreludeParams pp;
    prelude_defaults(&pp);
    Position *p = malloc(sizeof *p);
    char fen[256], again[256];
    CvError err = {{0}};
    for (uint64_t seed = 0; seed < 300; seed++) {
        cr_assert(prelude_random(sc(), &pp, seed, fen, sizeof fen, &err), "seed %llu: %s",
                  (unsigned long long)seed, err.msg);
        cr_assert(prelude_random(sc(), &pp, seed, again, sizeof again, &err));
        cr_assert_str_eq(fen, again, "the same seed gives the same array");
        tu_fen(p, sc(), fen);
        cr_assert(prelude_check(sc(), &pp, fen, &err), "%s: %s", fen, err.msg);
    }
    /* with at most one substitution per phase exactly two squares per side change */
    pp.max = 1;
    cr_assert(prelude_random(sc(), &pp, 5, fen, sizeof fen, &err), "%s", err.msg);
    cr_assert(prelude_check(sc(), &pp, fen, &err), "%s: %s", fen, err.msg);
    free(p);
}

/* fen must fail the prelude check with a message containing what. */
static void expect_not_prelude(const char *fen, const char *what) {
    PreludeParams pp;
    prelude_defaults(&pp);
    CvError err = {{0}};
    cr_assert_not(prelude_check(sc(), &pp, fen, &err), "accepted: %s", fen);
    cr_assert(strstr(err.msg, what), "for '%s' expected '%s' in: %s", fen, what, err.msg);
}

Test(superchess, prelude_belongs_to_the_variants_that_have_one) {
    PreludeParams pp;
    prelude_defaults(&pp);
    CvError err = {{0}};
    char fen[256];
    const Variant *chess = variant_by_name("chess");
    cr_assert(sc()->prelude && !chess->prelude);
    cr_assert_not(prelude_random(chess, &pp, 1, fen, sizeof fen, &err));
    cr_assert_str_eq(err.msg, "variant 'chess' has no prelude");
    cr_assert_not(prelude_check(chess, &pp, chess->start_fen, &err));
    cr_assert_str_eq(err.msg, "variant 'chess' has no prelude");
}

Test(superchess, prelude_checker_names_the_broken_rule) {
    PreludeParams pp;
    prelude_defaults(&pp);
    CvError err = {{0}};
    cr_assert(prelude_check(sc(), &pp, variant_start(sc(), "p0"), &err), "P0: %s", err.msg);
    cr_assert(prelude_check(sc(), &pp, variant_start(sc(), "p1"), &err), "P1: %s", err.msg);
    const char *good = "rnbqkgnr/ptppppph/8/8/8/8/PTPPPPPH/RNBQKGNR[LXlx] w Ka,Kh,ka,kh - 0 1";
    cr_assert(prelude_check(sc(), &pp, good, &err), "%s", err.msg);
    expect_not_prelude("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[LXlx] w Ka,Kh,ka,kh - 0 1",
                       "White's phase (files e-h) makes 0 substitutions");
    expect_not_prelude("rnbqkgnr/ptppppph/8/8/8/8/PTPPPPPH/RNBQKGNR[LXlx] w Kh,ka,kh - 0 1",
                       "castling field is 'Kh,ka,kh'");
    expect_not_prelude("rnbqkgnr/ptppppph/8/8/8/8/PTPPPPPH/RNBQKGNR[LXl] w Ka,Kh,ka,kh - 0 1",
                       "black should hold");
    expect_not_prelude("rnbqkgnr/ptppppph/8/8/8/8/PTPPPPPH/RNBQKGNW[LXlx] w Ka,Kh,ka,kh - 0 1",
                       "h8 holds 'r'");
    expect_not_prelude("rnbqegnr/ptppppph/8/8/8/8/PTPPPPPH/RNBQEGNR[LXlx] w - - 0 1",
                       "'E' may not replace the King");
    expect_not_prelude("rnbqkgnr/ptppppph/8/8/8/8/PTPPPPPH/RNBQKGNR[LXlx] b Ka,Kh,ka,kh - 0 1",
                       "White to move");
    expect_not_prelude("rnbqkgnr/ptppppph/8/8/8/4P3/PTPP1PPH/RNBQKGNR[LXlx] w Ka,Kh,ka,kh - 0 1",
                       "square e3 is not empty");
    expect_not_prelude("rnbqkgnr/ptppppph/8/8/8/8/PTPPPPPH/RNBQKGNR[LXlx] w Ka,Kh,ka,kh - 0 1 Q/q",
                       "derived pool");
    expect_not_prelude("rnbqkgng/ptppppph/8/8/8/8/PTPPPPPH/RNBQKGNG[LXlx] w Ka,ka - 0 1",
                       "'G' is used 2 times");
}

Test(superchess, cli_setup_exit_codes) {
    char cmd[1024];
    snprintf(cmd, sizeof cmd,
             "%s setup --variant superchess --prelude random --seed 3 >/dev/null 2>&1",
             CHESSVAR_BINARY);
    cr_assert_eq(system(cmd), 0);
    snprintf(cmd, sizeof cmd,
             "%s setup --check 'dofekmga/tthpphtt/8/8/8/8/TTHPPHTT/DOFEKMGA[LXlx] w - - 0 1' "
             ">/dev/null 2>&1",
             CHESSVAR_BINARY);
    cr_assert_eq(system(cmd), 0);
    snprintf(cmd, sizeof cmd,
             "%s setup --check 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w Ka,Kh,ka,kh - 0 1' "
             ">/dev/null 2>&1",
             CHESSVAR_BINARY);
    cr_assert_eq(WEXITSTATUS(system(cmd)), 1, "a valid FEN that is not a prelude array");
    snprintf(cmd, sizeof cmd, "%s setup --check 'rnbqkbnr/pppppppp w - - 0 1' >/dev/null 2>&1",
             CHESSVAR_BINARY);
    cr_assert_eq(WEXITSTATUS(system(cmd)), 2, "a bad FEN");
}

/* Whether the move written text is legal in fen. */
static bool is_legal(const char *fen, const char *text) {
    Position *p = malloc(sizeof *p);
    tu_fen(p, sc(), fen);
    CvError err = {{0}};
    bool legal = move_from_str(p, text, &err) != MOVE_NONE;
    free(p);
    return legal;
}

Test(superchess, castling_conditions) {
    /* with both monarchs at home E castles only with the a-rook, K only with the h-rook */
    const char *home = "4k3/8/8/8/8/8/8/R2EK2R w Ka,Kh,Ea,Eh - 0 1";
    cr_assert(is_legal(home, "d1b1"));
    cr_assert(is_legal(home, "e1g1"));
    cr_assert_not(is_legal(home, "e1c1"), "the Emperor stands between");
    cr_assert_not(is_legal(home, "d1f1"), "the King stands between");
    /* a frozen rook or monarch may not castle; a neutralised one may */
    cr_assert_not(is_legal("4k3/8/8/8/8/8/m7/R3K3 w Ka - 0 1", "e1c1"), "rook frozen by ma2");
    cr_assert_not(is_legal("4k3/8/8/8/8/8/4m3/R3K3 w Ka - 0 1", "e1c1"), "king frozen by me2");
    cr_assert(is_legal("4k3/8/8/8/8/8/3f4/R3K3 w Ka - 0 1", "e1c1"), "king neutralised by fd2");
    cr_assert(is_legal("4k3/8/8/8/8/8/f7/R3K3 w Ka - 0 1", "e1c1"), "rook neutralised by fa2");
    /* the crossed square attacked: no castling; attacked only by a frozen piece: castling */
    cr_assert_not(is_legal("3rk3/8/8/8/8/8/8/R3K3 w Ka - 0 1", "e1c1"), "rd8 hits d1");
    cr_assert(is_legal("3rk3/2M5/8/8/8/8/8/R3K3 w Ka - 0 1", "e1c1"), "rd8 frozen by Mc7");
}

/* The capture generator (quiescence) gives exactly the legal moves that remove an enemy
 * piece, judged by making each legal move and counting the enemy's pieces on the board,
 * in the legal generator's order: along random games from P0, P1 and prelude arrays (drops,
 * freezes, pacified pieces, immune Ambassadors, promotions from the pool). */
Test(superchess, capture_generator_gives_exactly_the_removing_moves) {
    Position *p = malloc(sizeof *p);
    uint64_t rng = 4321, checked = 0, captures = 0;
    PreludeParams pp;
    prelude_defaults(&pp);
    for (int g = 0; g < 40; g++) {
        char fen[256];
        CvError err = {{0}};
        if (g % 3 == 2)
            cr_assert(prelude_random(sc(), &pp, 700 + g, fen, sizeof fen, &err), "%s", err.msg);
        else snprintf(fen, sizeof fen, "%s", variant_start(sc(), g % 3 ? "p1" : "p0"));
        tu_fen(p, sc(), fen);
        for (int ply = 0; ply < 150; ply++) {
            Move list[MAX_MOVES], caps[MAX_MOVES];
            int k = tu_check_captures(p, "superchess", caps), n = pos_legal_moves(p, list);
            checked++;
            captures += (uint64_t)k;
            if (!n) break;
            pos_make(p, list[tu_rand(&rng) % (uint64_t)n]);
        }
    }
    cr_assert_gt(checked, 3000);
    cr_assert_gt(captures, 5000);
    free(p);
}
