/* test_chess.c - orthodox chess: published and Stockfish-computed perft suites, fast ==
 * reference at every node, random walks with make/unmake, FEN and notation round trips,
 * colour-flip symmetry. */
#include "test_util.h"

TestSuite(chess, .init = engine_init, .timeout = 300);

/* Largest expected count run in this tier; deeper lines are for `chessvar suite`. */
#define FAST_TIER_MAX_NODES 50000000ULL

/* Runs every line of an EPD file with the fast perft and checks each depth's count. */
static void run_suite(const char *file) {
    int n;
    free(tu_load_epd(file, &n));
    cr_assert_gt(tu_run_suite(file, "chess", 30, FAST_TIER_MAX_NODES, false), n,
                 "%s: too few depths checked", file);
}

Test(chess, published_perft_suite) { run_suite("chess.epd"); }
Test(chess, stockfish_perft_suite) { run_suite("chess_stockfish.epd"); }

Test(chess, fast_equals_reference_on_published_suite) { tu_compare_suite("chess.epd", "chess", 3); }
Test(chess, fast_equals_reference_on_stockfish_suite) {
    tu_compare_suite("chess_stockfish.epd", "chess", 2);
}

Test(chess, random_walks_make_unmake_fen_and_notation) {
    const Variant *v = variant_by_name("chess");
    const char *starts[] = {v->start_fen,
                            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
                            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1"};
    int seen = 0;
    for (uint64_t g = 0; g < 60; g++) seen += tu_random_walk(v, starts[g % 3], 1000 + g, 200);
    cr_assert_gt(seen, 3000);
}

Test(chess, move_sets_of_crowded_positions_fit) {
    /* many pieces with moves, one group each, and pinned pawns (a group per move) */
    const char *fens[] = {"kb6/pp6/Q1Q1Q1Q1/1Q1Q1Q1Q/Q1Q1Q1Q1/1Q1Q1Q1Q/Q1Q1Q1Q1/1Q1Q1Q1K w - - 0 1",
                          "kb6/pp6/N1N1N1N1/1B1B1B1B/R1R1R1R1/1N1N1N1N/Q1Q1Q1Q1/1R1R1R1K w - - 0 1",
                          "k7/8/1q1r1q2/2PPP3/1rPKPr2/2PPP3/1q1r1q2/8 w - - 0 1",
                          "k7/8/b2r2b1/1P1P1P2/r1PKP1r1/1P1P1P2/b2r2b1/8 w - - 0 1"};
    Position *p = malloc(sizeof *p);
    for (int i = 0; i < 4; i++) {
        tu_fen(p, variant_by_name("chess"), fens[i]);
        tu_check_move_set(p);
    }
    free(p);
}

Test(chess, colour_flip_gives_the_same_counts) {
    int n;
    EpdEntry *e = tu_load_epd("chess.epd", &n);
    Position *p = malloc(sizeof *p);
    const Variant *v = variant_by_name("chess");
    for (int i = 0; i < n; i++) {
        char flipped[512];
        tu_flip_fen(e[i].fen, flipped);
        tu_fen(p, v, e[i].fen);
        uint64_t a = perft(p, 3);
        tu_fen(p, v, flipped);
        cr_assert_eq(perft(p, 3), a, "flip of %s (%s)", e[i].fen, flipped);
    }
    free(p);
    free(e);
}

Test(chess, en_passant_key_only_when_capturable) {
    Position *p = malloc(sizeof *p);
    const Variant *v = variant_by_name("chess");
    /* after 1.e4 no black pawn can take e.p.: same key as without the e.p. square */
    tu_fen(p, v, "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1");
    uint64_t k1 = p->key;
    tu_fen(p, v, "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1");
    cr_assert_eq(p->key, k1);
    tu_fen(p, v, "rnbqkbnr/ppp1pppp/8/8/3pP3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1");
    k1 = p->key;
    tu_fen(p, v, "rnbqkbnr/ppp1pppp/8/8/3pP3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1");
    cr_assert_neq(p->key, k1);
    free(p);
}

/* The lean perft path counts exactly what gen_legal, make and unmake count, on positions
 * of seeded random games (checks, pins, e.p., castling and promotions among them). */
Test(chess, lean_perft_equals_generic_perft) {
    const Variant *v = variant_by_name("chess");
    const char *starts[] = {v->start_fen,
                            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
                            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
                            "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
                            "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1"};
    Position *p = malloc(sizeof *p);
    uint64_t rng = 12345, checked = 0;
    for (int g = 0; g < 50; g++) {
        tu_fen(p, v, starts[g % 5]);
        for (int ply = 0; ply < 80; ply++) {
            for (int d = 1; d <= (ply % 8 == 0 ? 3 : 2); d++) {
                uint64_t a = perft(p, d), b = perft_generic(p, d);
                char fen[256];
                pos_to_fen(p, fen, sizeof fen);
                cr_assert_eq(a, b, "%s depth %d: lean %llu, generic %llu", fen, d,
                             (unsigned long long)a, (unsigned long long)b);
                checked++;
            }
            Move list[MAX_MOVES];
            int n = pos_legal_moves(p, list);
            if (!n) break;
            rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
            pos_make(p, list[(rng >> 33) % (uint64_t)n]);
        }
    }
    cr_assert_gt(checked, 5000);
    free(p);
}

/* The captures of gen_legal, in generation order, with the board as it is. */
static int captures_of(const Position *p, const Move *list, int n, Move *out) {
    int k = 0;
    for (int i = 0; i < n; i++) {
        Move m = list[i];
        int to = MOVE_TO(m), kind = MOVE_KIND(m);
        if (kind == MK_EP || ((kind == MK_NORMAL) && p->board[to] != PC_EMPTY)) out[k++] = m;
    }
    return k;
}

/* The capture generator (quiescence) gives exactly the captures of the legal moves, on
 * random games of chess and Switching chess from positions rich in pins, checks, e.p. and
 * promotions. */
Test(chess, capture_generator_gives_exactly_the_legal_captures) {
    const char *vars[] = {"chess", "switching"};
    const char *starts[] = {"r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
                            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
                            "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1"};
    Position *p = malloc(sizeof *p);
    uint64_t rng = 777, checked = 0, captures = 0;
    for (int vi = 0; vi < 2; vi++) {
        const Variant *v = variant_by_name(vars[vi]);
        for (int g = 0; g < 60; g++) {
            tu_fen(p, v, starts[g % 3]);
            for (int ply = 0; ply < 100; ply++) {
                Move list[MAX_MOVES], caps[MAX_MOVES], want[MAX_MOVES];
                int n = pos_legal_moves(p, list);
                int k = pos_legal_captures(p, caps), w = captures_of(p, list, n, want);
                char fen[256];
                pos_to_fen(p, fen, sizeof fen);
                cr_assert_eq(k, w, "%s %s: %d captures generated, %d legal", vars[vi], fen, k, w);
                qsort(caps, (size_t)k, sizeof *caps, move_cmp);
                qsort(want, (size_t)w, sizeof *want, move_cmp);
                cr_assert(memcmp(caps, want, (size_t)k * sizeof *caps) == 0, "%s %s: sets differ",
                          vars[vi], fen);
                checked++;
                captures += (uint64_t)k;
                if (!n) break;
                pos_make(p, list[tu_rand(&rng) % (uint64_t)n]);
            }
        }
    }
    cr_assert_gt(checked, 5000);
    cr_assert_gt(captures, 10000);
    free(p);
}
