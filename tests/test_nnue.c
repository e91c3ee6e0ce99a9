/* test_nnue.c - the network module: the file's checks (wrong variant, version, truncated,
 * corrupt), the AVX2 kernels against the portable ones, and the incremental accumulator
 * against one computed from scratch after every legal move of random games in every
 * variant with holdings, swaps, promotions, drops and blasts. */
#include "../selfplay/player/nnue.h"
#include "test_util.h"

static void setup(void) { engine_init(); }

TestSuite(nnue, .init = setup);

static const char *const variants[] = {"chess", "switching", "superchess", "supremo"};

/* A network for v with hidden h and seeded weights: FT weights in [-range, range]. */
static Network *random_net(const Variant *v, int h, int range, uint64_t seed) {
    NnueLayout l;
    nnue_layout(v, &l);
    NnueDims d;
    memset(&d, 0, sizeof d);
    snprintf(d.variant, sizeof d.variant, "%s", v->name);
    d.width = v->width;
    d.height = v->height;
    d.npt = v->npt;
    d.hold_k = (uint8_t)l.hold_k;
    d.feature_set = NNUE_FEATURE_SET;
    d.hidden = (uint16_t)h;
    d.nfeat = (uint32_t)l.nfeat;
    d.qa = 255;
    d.qb = 256;
    d.scale = 400;
    Network *net = nnue_alloc(&d, v);
    cr_assert_not_null(net);
    uint64_t st = seed;
    for (size_t i = 0; i < (size_t)l.nfeat * h; i++)
        net->ft_w[i] = (int16_t)((int)(splitmix64_next(&st) % (2 * range + 1)) - range);
    for (int i = 0; i < h; i++) net->ft_b[i] = (int16_t)(splitmix64_next(&st) % 200);
    for (int i = 0; i < 2 * h; i++)
        net->out_w[i] = (int16_t)((int)(splitmix64_next(&st) % 401) - 200);
    net->out_b[0] = 1234;
    return net;
}

/* Writes len bytes of buf to path in the test folder. */
static void write_file(const char *path, const uint8_t *buf, size_t len) {
    FILE *f = fopen(path, "wb");
    cr_assert_not_null(f, "cannot write %s", path);
    cr_assert_eq(fwrite(buf, 1, len, f), len);
    fclose(f);
}

/* Loading path for variant v must fail with a one-line message naming the file and
 * containing what. */
static void expect_reject(const char *path, const Variant *v, const char *what) {
    CvError err = {{0}};
    Network *net = nnue_load(path, v, &err);
    cr_assert_null(net, "%s loaded, expected a rejection (%s)", path, what);
    cr_assert(strstr(err.msg, path), "the message names no file: %s", err.msg);
    cr_assert(strstr(err.msg, what), "expected '%s' in: %s", what, err.msg);
    cr_assert_null(strchr(err.msg, '\n'), "not one line: %s", err.msg);
}

Test(nnue, load_round_trip_and_rejections) {
    const Variant *chess = variant_by_name("chess"), *sc = variant_by_name("superchess");
    Network *net = random_net(chess, 32, 50, 7);
    size_t len;
    uint8_t *img = nnue_serialise(net, &len);
    write_file("nnue_ok.nnue", img, len);
    CvError err = {{0}};
    Network *back = nnue_load("nnue_ok.nnue", chess, &err);
    cr_assert_not_null(back, "%s", err.msg);
    cr_assert_eq(back->d.hidden, 32);
    cr_assert_eq(memcmp(back->ft_w, net->ft_w, (size_t)back->d.nfeat * 32 * 2), 0);
    cr_assert_eq(memcmp(back->out_w, net->out_w, 64 * 2), 0);
    cr_assert_eq(back->out_b[0], net->out_b[0]);
    nnue_free(back);

    expect_reject("nnue_ok.nnue", variant_by_name("switching"), "variant 'chess', not 'switching'");
    expect_reject("nnue_ok.nnue", sc, "variant 'chess', not 'superchess'");
    uint8_t *bad = malloc(len);
    memcpy(bad, img, len);
    bad[8] = 3; /* version 3 */
    write_file("nnue_version.nnue", bad, len);
    expect_reject("nnue_version.nnue", chess, "version 3");
    write_file("nnue_trunc.nnue", img, len - 100);
    expect_reject("nnue_trunc.nnue", chess, "truncated");
    write_file("nnue_trunc_header.nnue", img, 40);
    expect_reject("nnue_trunc_header.nnue", chess, "truncated");
    memcpy(bad, img, len);
    bad[len / 2] ^= 0x10; /* one bit of a weight */
    write_file("nnue_corrupt.nnue", bad, len);
    expect_reject("nnue_corrupt.nnue", chess, "checksum");
    memcpy(bad, img, len);
    bad[0] = 'X';
    write_file("nnue_magic.nnue", bad, len);
    expect_reject("nnue_magic.nnue", chess, "magic");
    expect_reject("nnue_missing.nnue", chess, "cannot open");
    free(bad);
    free(img);
    nnue_free(net);
}

Test(nnue, avx2_kernels_equal_portable) {
    if (!nnue_have_avx2()) cr_skip_test("this processor has no AVX2");
    uint64_t st = 99;
    for (int h = 16; h <= 1024; h *= 2) {
        int nf = 300;
        int16_t *w = malloc((size_t)nf * h * 2), *src = malloc((size_t)h * 2);
        int16_t *a = malloc((size_t)h * 2), *b = malloc((size_t)h * 2), *o = malloc(4 * (size_t)h);
        /* full int16 range, so the sums wrap */
        for (size_t i = 0; i < (size_t)nf * h; i++) w[i] = (int16_t)splitmix64_next(&st);
        for (int i = 0; i < h; i++) src[i] = (int16_t)splitmix64_next(&st);
        for (int i = 0; i < 2 * h; i++) o[i] = (int16_t)(splitmix64_next(&st) % 2001) - 1000;
        uint16_t adds[40], subs[40];
        for (int i = 0; i < 40; i++) {
            adds[i] = (uint16_t)(splitmix64_next(&st) % nf);
            subs[i] = (uint16_t)(splitmix64_next(&st) % nf);
        }
        nnue_rows_portable(a, src, w, h, adds, 40, subs, 17);
        nnue_rows_avx2(b, src, w, h, adds, 40, subs, 17);
        cr_assert_eq(memcmp(a, b, (size_t)h * 2), 0, "rows differ at h %d", h);
        int32_t x = nnue_output_portable(a, src, o, h, 255);
        int32_t y = nnue_output_avx2(a, src, o, h, 255);
        cr_assert_eq(x, y, "output differs at h %d: %d vs %d", h, x, y);
        free(w);
        free(src);
        free(a);
        free(b);
        free(o);
    }
}

/* Whether two accumulators hold the same values for hidden h. */
static bool acc_equal(const NnueAcc *a, const NnueAcc *b, int h) {
    return memcmp(a->v[0], b->v[0], (size_t)h * 2) == 0 &&
           memcmp(a->v[1], b->v[1], (size_t)h * 2) == 0;
}

/* The engine's record of what the last move changed. */
static const DirtyPiece *last_dirty(const Position *p) { return &p->stack[p->ply - 1].dirty; }

/* Plays seeded random games of v; at every position, every legal move's accumulator,
 * updated from the DirtyPiece the engine's make wrote, must equal the refreshed one (and
 * so must the evaluation). Returns the moves checked. */
static long incremental_games(const Network *net, const Variant *v, int games, int plies,
                              uint64_t seed) {
    Position *p = malloc(sizeof *p);
    NnueAcc *parent = malloc(sizeof *parent), *child = malloc(sizeof *child),
            *fresh = malloc(sizeof *fresh);
    Move moves[MAX_MOVES];
    long checked = 0;
    uint64_t st = seed;
    int h = net->d.hidden;
    for (int g = 0; g < games; g++) {
        char fen[256];
        CvError err = {{0}};
        cr_assert(variant_random_start(v, splitmix64_next(&st), fen, sizeof fen, &err), "%s",
                  err.msg);
        tu_fen(p, v, fen);
        nnue_refresh(net, p, parent);
        for (int ply = 0; ply < plies; ply++) {
            int n = pos_legal_moves(p, moves);
            if (n == 0) break;
            for (int i = 0; i < n; i++) {
                char mv[16];
                move_to_str(p, moves[i], mv);
                pos_make(p, moves[i]);
                nnue_update(net, parent, child, last_dirty(p));
                nnue_refresh(net, p, fresh);
                if (!acc_equal(child, fresh, h)) {
                    char now[256];
                    pos_unmake(p);
                    pos_to_fen(p, now, sizeof now);
                    cr_assert_fail("%s: %s then %s: update != refresh", v->name, now, mv);
                }
                cr_assert_eq(nnue_evaluate(net, child, p), nnue_evaluate(net, fresh, p));
                pos_unmake(p);
                checked++;
            }
            /* on along a random move; long random games reach promotions, drops and blasts */
            Move m = moves[splitmix64_next(&st) % (uint64_t)n];
            pos_make(p, m);
            nnue_update(net, parent, child, last_dirty(p));
            NnueAcc *t = parent;
            parent = child;
            child = t;
        }
    }
    free(p);
    free(parent);
    free(child);
    free(fresh);
    return checked;
}

Test(nnue, incremental_equals_refresh_every_variant) {
    for (size_t i = 0; i < sizeof variants / sizeof *variants; i++) {
        const Variant *v = variant_by_name(variants[i]);
        /* large weights: the int16 sums wrap, and must still agree */
        Network *net = random_net(v, 64, 20000, 11 + i);
        long n = incremental_games(net, v, 6, 160, 1000 + i);
        cr_assert_gt(n, 1000, "%s: only %ld moves checked", v->name, n);
        nnue_free(net);
    }
}

Test(nnue, portable_and_simd_networks_evaluate_alike) {
    for (size_t i = 0; i < sizeof variants / sizeof *variants; i++) {
        const Variant *v = variant_by_name(variants[i]);
        Network *net = random_net(v, 256, 60, 21 + i);
        Position *p = malloc(sizeof *p);
        NnueAcc *a = malloc(sizeof *a), *b = malloc(sizeof *b);
        tu_fen(p, v, v->start_fen);
        net->simd = false;
        nnue_refresh(net, p, a);
        int ea = nnue_evaluate(net, a, p);
        net->simd = nnue_have_avx2();
        nnue_refresh(net, p, b);
        cr_assert(acc_equal(a, b, 256), "%s: accumulators differ", v->name);
        cr_assert_eq(ea, nnue_evaluate(net, b, p), "%s", v->name);
        free(p);
        free(a);
        free(b);
        nnue_free(net);
    }
}

/* Walks the legal-move tree below p to depth: at every node the accumulator updated from
 * the parent's and the engine's DirtyPiece must equal a refresh. Returns the nodes checked. */
static long incremental_tree(const Network *net, Position *p, NnueAcc *stack, int depth) {
    Move moves[MAX_MOVES];
    int n = pos_legal_moves(p, moves);
    long nodes = 0;
    for (int i = 0; i < n; i++) {
        pos_make(p, moves[i]);
        nnue_update(net, &stack[0], &stack[1], last_dirty(p));
        nnue_refresh(net, p, &stack[2]);
        if (!acc_equal(&stack[1], &stack[2], net->d.hidden)) {
            char fen[256], mv[16];
            pos_unmake(p);
            pos_to_fen(p, fen, sizeof fen);
            move_to_str(p, moves[i], mv);
            cr_assert_fail("%s: %s then %s: update != refresh", p->var->name, fen, mv);
        }
        nodes++;
        if (depth > 1) nodes += incremental_tree(net, p, stack + 1, depth - 1);
        pos_unmake(p);
    }
    return nodes;
}

Test(nnue, incremental_equals_refresh_in_perft_trees) {
    static const struct {
        const char *variant, *fen; /* NULL: the variant's start */
        int depth;
    } trees[] = {
        {"chess", NULL, 3},
        {"chess", "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", 3},
        {"chess", "n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1", 3},
        {"switching", NULL, 3},
        {"superchess", NULL, 2},
        {"supremo", NULL, 2},
    };
    for (size_t i = 0; i < sizeof trees / sizeof *trees; i++) {
        const Variant *v = variant_by_name(trees[i].variant);
        Network *net = random_net(v, 32, 20000, 31 + i);
        Position *p = malloc(sizeof *p);
        NnueAcc *stack = malloc(8 * sizeof *stack);
        tu_fen(p, v, trees[i].fen ? trees[i].fen : v->start_fen);
        nnue_refresh(net, p, &stack[0]);
        long nodes = incremental_tree(net, p, stack, trees[i].depth);
        cr_assert_gt(nodes, 100, "%s: %ld nodes", v->name, nodes);
        free(p);
        free(stack);
        nnue_free(net);
    }
}
