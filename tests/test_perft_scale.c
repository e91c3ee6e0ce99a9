/* test_perft_scale.c - threads, hash, fingerprint, MPI and the suite runner: every mode
 * must give the serial counts and the same fingerprint, on positions of every variant. */
#include <sys/wait.h>
#include <xxhash.h>

#include "test_util.h"
#include "../bench/harness.h"

TestSuite(scale, .init = engine_init, .timeout = 300);

typedef struct Case {
    const char *variant, *fen;
    int depth;
} Case;

/* Positions of every variant; depths keep the fast tier quick. */
static const Case cases[] = {
    {"chess", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", 4},
    {"chess", "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", 3},
    {"chess", "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", 5},
    {"switching", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", 3},
    {"switching", "4k3/8/8/8/8/3p1p2/6P1/3NP1K1 w - - 0 1", 4},
    {"superchess", NULL, 3},
    {"supremo", NULL, 2},
};

/* The documented fingerprint, computed the slow way: walk to every leaf with the
 * reference generator and hash the key recomputed from scratch. */
static uint64_t slow_fingerprint(Position *p, int depth) {
    if (depth == 0) {
        uint64_t k = pos_compute_key(p);
        uint8_t b[8];
        for (int i = 0; i < 8; i++) b[i] = (uint8_t)(k >> (8 * i));
        return XXH3_64bits(b, 8);
    }
    Move list[MAX_MOVES];
    int n = pos_reference_moves(p, list);
    uint64_t fp = 0;
    for (int i = 0; i < n; i++) {
        pos_make(p, list[i]);
        fp += slow_fingerprint(p, depth - 1);
        pos_unmake(p);
    }
    return fp;
}

Test(scale, threads_hash_and_fingerprint_agree_with_serial) {
    Position *p = malloc(sizeof *p);
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const Variant *v = variant_by_name(cases[i].variant);
        cr_assert_not_null(v, "variant %s", cases[i].variant);
        tu_fen(p, v, cases[i].fen ? cases[i].fen : v->start_fen);
        int d = cases[i].depth;
        uint64_t serial = perft(p, d);
        PerftConfig base = {.threads = 1, .fingerprint = true, .min_units = 1};
        PerftResult ref = perft_run(p, d, &base);
        cr_assert_eq(ref.nodes, serial, "%s: fingerprint mode changes the count", cases[i].variant);
        cr_assert_eq(ref.fingerprint, slow_fingerprint(p, d),
                     "%s: fingerprint differs from its definition", v->name);
        for (int threads = 1; threads <= 3; threads++)
            for (int mb = 0; mb <= 2; mb += 2)
                for (int fp = 0; fp <= 1; fp++) {
                    PerftConfig c = {
                        .threads = threads, .fingerprint = fp, .min_units = threads * 7};
                    c.tt = perft_tt_new((size_t)mb);
                    PerftResult r = perft_run(p, d, &c);
                    cr_assert_eq(r.nodes, serial, "%s d%d threads %d hash %d: %llu != %llu",
                                 v->name, d, threads, mb, (unsigned long long)r.nodes,
                                 (unsigned long long)serial);
                    if (fp)
                        cr_assert_eq(r.fingerprint, ref.fingerprint,
                                     "%s fingerprint with threads %d hash %d", v->name, threads,
                                     mb);
                    /* a second run on a warm table must give the same answer */
                    if (c.tt) cr_assert_eq(perft_run(p, d, &c).nodes, serial);
                    perft_tt_free(c.tt);
                }
    }
    free(p);
}

Test(scale, fingerprint_separates_positions_with_equal_counts) {
    Position *p = malloc(sizeof *p);
    const Variant *v = variant_by_name("chess");
    PerftConfig c = {.threads = 1, .fingerprint = true};
    tu_fen(p, v, "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1");
    PerftResult a = perft_run(p, 3, &c);
    tu_fen(p, v, "r2q1rk1/pP1p2pp/Q4n2/bbp1p3/Np6/1B3NBn/pPPP1PPP/R3K2R b KQ - 0 1");
    PerftResult b = perft_run(p, 3, &c);
    cr_assert_eq(a.nodes, b.nodes, "mirrored positions have equal counts");
    cr_assert_neq(a.fingerprint, b.fingerprint, "but different leaves");
    free(p);
}

Test(scale, split_is_deterministic_and_covers_the_tree) {
    Position *p = malloc(sizeof *p);
    tu_fen(p, variant_by_name("chess"), "r3k2r/p1p2ppp/1p6/1B6/8/8/PPP2PPP/R3K2R b KQkq - 0 1");
    PerftUnit u1[4096], u2[4096];
    int n1 = perft_split(p, 5, 100, u1, 4096), n2 = perft_split(p, 5, 100, u2, 4096);
    cr_assert_eq(n1, n2);
    cr_assert_geq(n1, 100, "a narrow root is split deeper");
    cr_assert(memcmp(u1, u2, (size_t)n1 * sizeof *u1) == 0);
    uint64_t sum = 0;
    PerftConfig c = {.threads = 1};
    for (int i = 0; i < n1; i++) sum += perft_unit(p, &u1[i], 5, &c).nodes;
    cr_assert_eq(sum, perft(p, 5));
    free(p);
}

Test(scale, suite_reports_pass_fail_and_malformed_lines) {
    const char *path = CHESSVAR_TEST_WORK "/suite_test.epd";
    FILE *f = fopen(path, "w");
    fprintf(
        f,
        "# a comment\n"
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 ;D1 20 ;D2 400\n"
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 ;D1 21\n"
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 ;D1 x\n"
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP w KQkq - 0 1 ;D1 20\n"
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 ;D2 2399 ;variant switching\n");
    fclose(f);
    char out[8192], cmd[1024];
    snprintf(cmd, sizeof cmd, "%s suite %s --threads 2", CHESSVAR_BINARY, path);
    cr_assert_eq(tu_run_sh(cmd, out, sizeof out), 1, "a failing suite exits 1");
    cr_assert(strstr(out, "PASS  line 2  chess  D1  expected 20  got 20"), "%s", out);
    cr_assert(strstr(out, "FAIL  line 3  chess  D1  expected 21  got 20"), "%s", out);
    cr_assert(strstr(out, ":4: bad node count"), "%s", out);
    cr_assert(strstr(out, ":5: bad FEN"), "%s", out);
    cr_assert(strstr(out, "PASS  line 6  switching  D2  expected 2399  got 2399"), "%s", out);
    cr_assert(strstr(out, "3 positions, 4 checks: 3 passed, 1 failed, 2 malformed lines"), "%s",
              out);
    snprintf(cmd, sizeof cmd, "%s suite %s/switching.epd --variant switching --json --max-depth 3",
             CHESSVAR_BINARY, CHESSVAR_TEST_DATA);
    cr_assert_eq(tu_run_sh(cmd, out, sizeof out), 0, "%s", out);
    cr_assert(strstr(out, "\"summary\":true"), "%s", out);
    cr_assert(strstr(out, "\"failed\":0,\"errors\":0"), "%s", out);
    remove(path);
}

Test(scale, mpi_two_ranks_equal_serial) {
    char out[8192], ser[8192], cmd[1024];
    if (system("command -v mpirun >/dev/null 2>&1") != 0)
        cr_assert_fail("mpirun is not installed (scripts/setup.sh installs openmpi-bin)");
    const char *args =
        "perft --variant switching --depth 4 --fingerprint --threads 1 --json --quiet";
    snprintf(cmd, sizeof cmd, "%s %s", CHESSVAR_BINARY, args);
    cr_assert_eq(tu_run_sh(cmd, ser, sizeof ser), 0);
    snprintf(cmd, sizeof cmd, "mpirun --allow-run-as-root --oversubscribe -np 2 %s %s --mpi 2>&1",
             CHESSVAR_BINARY, args);
    cr_assert_eq(tu_run_sh(cmd, out, sizeof out), 0, "%s", out);
    cr_assert(strstr(out, "\"ranks\":2"), "%s", out);
    const char *a = strstr(ser, "\"nodes\""), *b = strstr(out, "\"nodes\"");
    cr_assert(a && b);
    cr_assert_eq(strncmp(a, b, strstr(a, ",\"seconds\"") - a), 0, "MPI %s\nserial %s", out, ser);
}
