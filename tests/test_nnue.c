/* test_nnue.c - the network module: the file's checks (wrong variant, version, truncated,
 * corrupt; version 2's header), the AVX2 kernels against the portable ones, the incremental
 * accumulator against one computed from scratch after every legal move of random games in
 * every variant with holdings, swaps, promotions, drops and blasts (version 1 and 2
 * networks, king moves across buckets and the mirror), and the trainer's float model
 * against its quantised network. */
#include <math.h>
#include <xxhash.h>

#include "../selfplay/train/train.h"
#include "nnue_util.h"

static void setup(void) { engine_init(); }

TestSuite(nnue, .init = setup);

static const char *const variants[] = {"chess", "switching", "superchess", "supremo"};

/* A network for v with hidden h and seeded weights: FT weights in [-range, range]. */
static Network *random_net(const Variant *v, int h, int range, uint64_t seed) {
    Network *net = tu_net_alloc(v, h, 1, 0, 0, 0, 256);
    uint64_t st = seed;
    for (size_t i = 0; i < (size_t)net->d.nfeat * h; i++)
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

/* The same for net, with what a version 2 accumulator carries besides (material count,
 * king states). */
static bool acc_equal_net(const Network *net, const NnueAcc *a, const NnueAcc *b) {
    bool same = acc_equal(a, b, net->d.hidden);
    if (net->d.obuckets > 1) same &= a->material == b->material;
    if (net->d.kbuckets)
        same &= a->kbase[0] == b->kbase[0] && a->kbase[1] == b->kbase[1] &&
                a->kmir[0] == b->kmir[0] && a->kmir[1] == b->kmir[1];
    return same;
}

/* The child accumulator as a search gets it: updated, and the perspectives the update
 * leaves stale (a king crossed a bucket or the mirror) refreshed from the position; counts
 * those. */
static void update_or_refresh(const Network *net, const NnueAcc *parent, NnueAcc *child,
                              const Position *p, const DirtyPiece *dp, long *refreshes,
                              NnueCacheEntry *cache) {
    int stale = nnue_update(net, parent, child, dp);
    for (int side = 0; side < 2; side++)
        if (stale >> side & 1) nnue_refresh_side_cached(net, p, child, side, cache);
    *refreshes += stale != 0;
}

/* The engine's record of what the last move changed. */
static const DirtyPiece *last_dirty(const Position *p) { return &p->stack[p->ply - 1].dirty; }

/* Plays seeded random games of v; at every position, every legal move's accumulator,
 * updated from the DirtyPiece the engine's make wrote, must equal the refreshed one (and
 * so must the evaluation). Returns the moves checked. */
static long incremental_games(const Network *net, const Variant *v, int games, int plies,
                              uint64_t seed, long *refreshes) {
    Position *p = malloc(sizeof *p);
    NnueAcc *parent = malloc(sizeof *parent), *child = malloc(sizeof *child),
            *fresh = malloc(sizeof *fresh);
    Move moves[MAX_MOVES];
    long checked = 0;
    uint64_t st = seed;
    /* king-bucket nets refresh through the accumulator cache, checked against a refresh */
    NnueCacheEntry *cache = nnue_cache_new(net);
    cr_assert(!net->d.kbuckets || net->l.hold_k || cache);
    for (int g = 0; g < games; g++) {
        char fen[256];
        CvError err = {{0}};
        cr_assert(variant_random_start(v, splitmix64_next(&st), fen, sizeof fen, &err), "%s",
                  err.msg);
        tu_fen(p, v, fen);
        nnue_refresh(net, p, parent);
        for (int ply = 0; ply < plies; ply++) {
            /* the position's features (bitboards on 8x8) are the board's (the trainer's) */
            for (int side = 0; side < 2; side++) {
                uint16_t fa[NNUE_MAX_ACTIVE], fb[NNUE_MAX_ACTIVE];
                const uint8_t *hand[2] = {p->hand[0], p->hand[1]};
                const uint8_t *pool[2] = {p->pool[0], p->pool[1]};
                int na = nnue_features_pos(&net->l, p, side, fa);
                int nb = nnue_features(&net->l, side, p->board, hand, pool, fb);
                cr_assert(na == nb && memcmp(fa, fb, (size_t)na * 2) == 0,
                          "%s: position and board features differ", v->name);
            }
            nnue_refresh_cached(net, p, child, cache);
            nnue_refresh(net, p, fresh);
            cr_assert(acc_equal_net(net, child, fresh), "%s: cached refresh != refresh", v->name);
            int n = pos_legal_moves(p, moves);
            if (n == 0) break;
            for (int i = 0; i < n; i++) {
                char mv[16];
                move_to_str(p, moves[i], mv);
                pos_make(p, moves[i]);
                update_or_refresh(net, parent, child, p, last_dirty(p), refreshes, cache);
                nnue_refresh(net, p, fresh);
                if (!acc_equal_net(net, child, fresh)) {
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
            update_or_refresh(net, parent, child, p, last_dirty(p), refreshes, cache);
            NnueAcc *t = parent;
            parent = child;
            child = t;
        }
    }
    free(p);
    free(parent);
    free(child);
    free(fresh);
    free(cache);
    return checked;
}

Test(nnue, incremental_equals_refresh_every_variant) {
    for (size_t i = 0; i < sizeof variants / sizeof *variants; i++) {
        const Variant *v = variant_by_name(variants[i]);
        /* large weights: the int16 sums wrap, and must still agree */
        Network *net = random_net(v, 64, 20000, 11 + i);
        long refreshes = 0;
        long n = incremental_games(net, v, 6, 160, 1000 + i, &refreshes);
        cr_assert_gt(n, 1000, "%s: only %ld moves checked", v->name, n);
        cr_assert_eq(refreshes, 0, "%s: a version 1 network always updates", v->name);
        nnue_free(net);
    }
}

/* Version 2 networks: output buckets and a stack in every variant, king buckets where the
 * variant has them (chess, Switching), and each part alone in chess. */
Test(nnue, incremental_equals_refresh_v2) {
    static const struct {
        const char *variant;
        int obuckets, l1, l2, kb;
    } nets[] = {
        {"chess", 8, 16, 32, 16},     {"chess", 1, 0, 0, 4},       {"chess", 4, 0, 0, 0},
        {"chess", 1, 16, 32, 0},      {"switching", 8, 16, 32, 8}, {"switching", 1, 0, 0, 1},
        {"superchess", 8, 16, 32, 0}, {"supremo", 8, 8, 8, 0},
    };
    for (size_t i = 0; i < sizeof nets / sizeof *nets; i++) {
        const Variant *v = variant_by_name(nets[i].variant);
        Network *net = tu_net_v2(v, 64, nets[i].obuckets, nets[i].l1, nets[i].l2, nets[i].kb,
                                 nets[i].l1 ? 40 : 20000, 51 + i);
        long refreshes = 0;
        long n = incremental_games(net, v, 6, 160, 2000 + i, &refreshes);
        cr_assert_gt(n, 1000, "%s: only %ld moves checked", v->name, n);
        if (nets[i].kb)
            cr_assert_gt(refreshes, 5, "%s: king moves across buckets or the mirror: %ld", v->name,
                         refreshes);
        else cr_assert_eq(refreshes, 0, "%s: no king buckets, no refresh", v->name);
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
static long incremental_tree(const Network *net, Position *p, NnueAcc *stack, int depth,
                             long *refreshes) {
    Move moves[MAX_MOVES];
    int n = pos_legal_moves(p, moves);
    long nodes = 0;
    for (int i = 0; i < n; i++) {
        pos_make(p, moves[i]);
        update_or_refresh(net, &stack[0], &stack[1], p, last_dirty(p), refreshes, NULL);
        nnue_refresh(net, p, &stack[2]);
        if (!acc_equal_net(net, &stack[1], &stack[2]) ||
            nnue_evaluate(net, &stack[1], p) != nnue_evaluate(net, &stack[2], p)) {
            char fen[256], mv[16];
            pos_unmake(p);
            pos_to_fen(p, fen, sizeof fen);
            move_to_str(p, moves[i], mv);
            cr_assert_fail("%s: %s then %s: update != refresh", p->var->name, fen, mv);
        }
        nodes++;
        if (depth > 1) nodes += incremental_tree(net, p, stack + 1, depth - 1, refreshes);
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
        bool kb = nnue_king_type(v) != 0;
        for (int version = 1; version <= 2; version++) {
            Network *net = version == 1 ? random_net(v, 32, 20000, 31 + i)
                                        : tu_net_v2(v, 32, 8, 8, 16, kb ? 16 : 0, 40, 61 + i);
            Position *p = malloc(sizeof *p);
            NnueAcc *stack = malloc(8 * sizeof *stack);
            tu_fen(p, v, trees[i].fen ? trees[i].fen : v->start_fen);
            nnue_refresh(net, p, &stack[0]);
            long refreshes = 0;
            long nodes = incremental_tree(net, p, stack, trees[i].depth, &refreshes);
            cr_assert_gt(nodes, 100, "%s: %ld nodes", v->name, nodes);
            /* Kiwipete and the promotion position have king moves across buckets (castling
             * long crosses the mirror) */
            if (version == 2 && kb && trees[i].fen)
                cr_assert_gt(refreshes, 0, "%s %s: no king move crossed a bucket", v->name,
                             trees[i].fen);
            free(p);
            free(stack);
            nnue_free(net);
        }
    }
}

/* Recomputes the checksum of a network image after a test edited it. */
static void reseal(uint8_t *img, size_t len) {
    uint64_t h = XXH3_64bits(img, len - 8);
    for (int i = 0; i < 8; i++) img[len - 8 + i] = (uint8_t)(h >> (8 * i));
}

/* A copy of img with byte at set to val (and a 16-bit field when wide), resealed, loaded
 * as v: must be refused with what in the message. */
static void expect_edit_reject(const uint8_t *img, size_t len, size_t at, unsigned val, bool wide,
                               const Variant *v, const char *what) {
    uint8_t *bad = malloc(len);
    memcpy(bad, img, len);
    bad[at] = (uint8_t)val;
    if (wide) bad[at + 1] = (uint8_t)(val >> 8);
    reseal(bad, len);
    write_file("nnue_v2_bad.nnue", bad, len);
    expect_reject("nnue_v2_bad.nnue", v, what);
    free(bad);
}

Test(nnue, v2_round_trip_and_rejections) {
    const Variant *chess = variant_by_name("chess"), *sc = variant_by_name("superchess");
    Network *net = tu_net_v2(chess, 32, 8, 16, 32, 16, 40, 5);
    size_t len;
    uint8_t *img = nnue_serialise(net, &len);
    cr_assert_eq(img[8], 2, "a version 2 file");
    cr_assert_eq(img[10], NNUE_HEADER2);
    write_file("nnue_v2.nnue", img, len);
    CvError err = {{0}};
    Network *back = nnue_load("nnue_v2.nnue", chess, &err);
    cr_assert_not_null(back, "%s", err.msg);
    cr_assert_eq(back->d.obuckets, 8);
    cr_assert_eq(back->d.l1, 16);
    cr_assert_eq(back->d.l2, 32);
    cr_assert_eq(back->d.kbuckets, 16);
    cr_assert_eq(back->d.mat_max, 30, "chess has 30 non-royal pieces at the start");
    cr_assert_eq(memcmp(back->d.kb_map, net->d.kb_map, 32), 0);
    cr_assert_eq(back->d.nfeat, 16 * 768);
    cr_assert_eq(memcmp(back->ft_w, net->ft_w, (size_t)back->d.nfeat * 32 * 2), 0);
    cr_assert_eq(memcmp(back->l1_w, net->l1_w, 8 * 16 * 64), 0);
    cr_assert_eq(memcmp(back->l1_b, net->l1_b, 8 * 16 * 4), 0);
    cr_assert_eq(memcmp(back->l2_w, net->l2_w, 8 * 32 * 16), 0);
    cr_assert_eq(memcmp(back->l2_b, net->l2_b, 8 * 32 * 4), 0);
    cr_assert_eq(memcmp(back->out_w, net->out_w, 8 * 32 * 2), 0);
    cr_assert_eq(memcmp(back->out_b, net->out_b, 8 * 4), 0);
    size_t len2;
    uint8_t *img2 = nnue_serialise(back, &len2);
    cr_assert(len2 == len && memcmp(img, img2, len) == 0, "the image round-trips");
    free(img2);
    nnue_free(back);

    expect_edit_reject(img, len, 10, 64, true, chess, "header size 64, expected 128 for version 2");
    expect_edit_reject(img, len, 46, 0, true, chess, "0 output buckets");
    expect_edit_reject(img, len, 46, 17, true, chess, "17 output buckets");
    expect_edit_reject(img, len, 56, 6, true, chess, "dense stack 6, 32");
    expect_edit_reject(img, len, 58, 0, true, chess, "dense stack 16, 0");
    expect_edit_reject(img, len, 61, 1, false, chess, "activation 1");
    expect_edit_reject(img, len, 62, 17, false, chess, "17 king buckets");
    expect_edit_reject(img, len, 64 + 5, 16, false, chess, "king bucket map entry 5 is 16");
    expect_edit_reject(img, len, 60, 0, false, chess, "8 output buckets with a material count");
    expect_edit_reject(img, len, 100, 1, false, chess, "reserved header byte 100");
    expect_edit_reject(img, len, 40, 255, true, chess, "qa 255 with a dense stack");
    expect_edit_reject(img, len, 36, 768, true, chess, "payload");
    write_file("nnue_v2_trunc.nnue", img, 100);
    expect_reject("nnue_v2_trunc.nnue", chess, "truncated");
    write_file("nnue_v2_trunc2.nnue", img, len - 3);
    expect_reject("nnue_v2_trunc2.nnue", chess, "truncated");
    free(img);
    nnue_free(net);

    /* king buckets in a variant that has none (Superchess's two monarchs) */
    net = tu_net_v2(sc, 16, 2, 0, 0, 0, 40, 6);
    img = nnue_serialise(net, &len);
    expect_edit_reject(img, len, 62, 1, false, sc, "king buckets, which variant superchess");
    free(img);
    nnue_free(net);
}

Test(nnue, stack_kernels_avx2_equal_portable) {
    if (!nnue_have_avx2()) cr_skip_test("this processor has no AVX2");
    uint64_t st = 77;
    int vnni = 0;
    for (int h = 16; h <= NNUE_MAX_HIDDEN; h *= 2) {
        int16_t *a0 = malloc((size_t)h * 2), *a1 = malloc((size_t)h * 2);
        uint8_t *x = malloc(2 * (size_t)h), *y = malloc(2 * (size_t)h);
        int8_t *w = malloc((size_t)NNUE_MAX_L1 * 2 * h);
        int32_t b[NNUE_MAX_L1], o1[NNUE_MAX_L1], o2[NNUE_MAX_L1];
        for (int i = 0; i < h; i++) { /* the whole int16 range, and often inside [0, 127] */
            a0[i] = (int16_t)(i % 3 ? tu_range(&st, -30, 160) : (int)splitmix64_next(&st));
            a1[i] = (int16_t)(i % 3 ? tu_range(&st, -30, 160) : (int)splitmix64_next(&st));
        }
        nnue_transform_portable(a0, a1, h, x);
        nnue_transform_avx2(a0, a1, h, y);
        cr_assert_eq(memcmp(x, y, 2 * (size_t)h), 0, "transform differs at h %d", h);
        for (int i = 0; i < NNUE_MAX_L1 * 2 * h; i++) w[i] = (int8_t)splitmix64_next(&st);
        for (int i = 0; i < NNUE_MAX_L1; i++) b[i] = (int32_t)splitmix64_next(&st) >> 8;
        for (int n = 4; n <= NNUE_MAX_L1; n *= 2) {
            nnue_l1_portable(x, w, b, 2 * h, n, o1);
            nnue_l1_avx2(x, w, b, 2 * h, n, o2);
            cr_assert_eq(memcmp(o1, o2, (size_t)n * 4), 0, "L1 differs at h %d, n %d", h, n);
            if (!nnue_have_vnni()) continue;
            vnni++;
            nnue_l1_vnni(x, w, b, 2 * h, n, o2);
            cr_assert_eq(memcmp(o1, o2, (size_t)n * 4), 0, "VNNI L1 differs at h %d, n %d", h, n);
        }
        free(a0);
        free(a1);
        free(x);
        free(y);
        free(w);
    }
    /* whole stacks of seeded networks on random accumulators, every bucket */
    const Variant *chess = variant_by_name("chess");
    for (int k = 0; k < 4; k++) {
        int h = 32 << k, l1 = 4 << k, l2 = 8 + 8 * k;
        Network *net = tu_net_v2(chess, h, 4, l1, l2, 0, 40, 90 + (uint64_t)k);
        int16_t a0[NNUE_MAX_HIDDEN], a1[NNUE_MAX_HIDDEN];
        int inside = 0;
        for (int r = 0; r < 200; r++) {
            for (int i = 0; i < h; i++) {
                a0[i] = (int16_t)tu_range(&st, -40, 170);
                a1[i] = (int16_t)tu_range(&st, -40, 170);
            }
            for (int b = 0; b < 4; b++) {
                int32_t p = nnue_stack_sum(net, a0, a1, b, 0);
                cr_assert_eq(p, nnue_stack_sum(net, a0, a1, b, 1), "stack %d bucket %d", k, b);
                if (vnni)
                    cr_assert_eq(p, nnue_stack_sum(net, a0, a1, b, 2), "VNNI stack %d bucket %d", k,
                                 b);
                inside += p != 0;
            }
        }
        cr_assert_gt(inside, 400, "the stack's output is mostly zero: no test");
        nnue_free(net);
    }
}

/* Version 2 networks evaluate alike with the AVX2 and the portable kernels at the
 * positions of random games. */
Test(nnue, v2_portable_and_simd_evaluate_alike) {
    if (!nnue_have_avx2()) cr_skip_test("this processor has no AVX2");
    for (size_t i = 0; i < sizeof variants / sizeof *variants; i++) {
        const Variant *v = variant_by_name(variants[i]);
        Network *net = tu_net_v2(v, 256, 8, 16, 32, nnue_king_type(v) ? 8 : 0, 40, 71 + i);
        Position *p = malloc(sizeof *p);
        NnueAcc *a = malloc(sizeof *a), *b = malloc(sizeof *b);
        Move moves[MAX_MOVES];
        uint64_t st = 5 + i;
        tu_fen(p, v, v->start_fen);
        int distinct = 0, last = 0;
        for (int ply = 0; ply < 120; ply++) {
            net->simd = false;
            nnue_refresh(net, p, a);
            int ea = nnue_evaluate(net, a, p);
            net->simd = true;
            net->vnni = false;
            nnue_refresh(net, p, b);
            cr_assert(acc_equal_net(net, a, b), "%s: accumulators differ", v->name);
            cr_assert_eq(ea, nnue_evaluate(net, b, p), "%s ply %d", v->name, ply);
            net->vnni = nnue_have_vnni();
            cr_assert_eq(ea, nnue_evaluate(net, b, p), "%s ply %d (VNNI)", v->name, ply);
            distinct += ea != last;
            last = ea;
            int n = pos_legal_moves(p, moves);
            if (n == 0) break;
            pos_make(p, moves[splitmix64_next(&st) % (uint64_t)n]);
        }
        cr_assert_gt(distinct, 10, "%s: evaluations hardly change", v->name);
        free(p);
        free(a);
        free(b);
        nnue_free(net);
    }
}

/* Uniform in [-a, a] from st. */
static float test_uniform(uint64_t *st, double a) {
    return (float)(((double)(splitmix64_next(st) >> 11) / 9007199254740992.0 * 2 - 1) * a);
}

/* The trainer's float model and the network it quantises to give the same evaluation
 * within the tolerance NETWORK.md states (mean difference at most 20 cp, largest at most
 * 80 cp), at the positions of random games: version 1, and version 2 with each part. The
 * model's output layers are redrawn wider than at initialisation so that the evaluations
 * span a few hundred centipawns, as a trained net's do. */
Test(nnue, float_model_and_quantised_net_agree) {
    static const struct {
        const char *variant;
        int obuckets, l1, l2, kb;
        bool factor; /* --factorise: the sample's features activate their factor rows too,
                        and the file holds each row plus its factor */
    } cfg[] = {
        {"chess", 1, 0, 0, 0, false},        {"chess", 8, 0, 0, 0, false},
        {"chess", 1, 16, 32, 0, false},      {"chess", 8, 16, 32, 8, false},
        {"chess", 1, 0, 0, 4, true},         {"switching", 4, 16, 32, 8, true},
        {"superchess", 4, 16, 32, 0, false}, {"supremo", 1, 0, 0, 0, false},
    };
    for (size_t c = 0; c < sizeof cfg / sizeof *cfg; c++) {
        const Variant *v = variant_by_name(cfg[c].variant);
        Network *net = tu_net_v2(v, 256, cfg[c].obuckets, cfg[c].l1, cfg[c].l2, cfg[c].kb, 1, 3);
        TrainModel m;
        int nfactor = cfg[c].factor ? net->l.nbase : 0;
        cr_assert(train_model_init(&m, net->l.nfeat + nfactor, 256, cfg[c].obuckets, cfg[c].l1,
                                   cfg[c].l2, 40 + c));
        uint64_t st = 1000 + c;
        if (nfactor) {
            /* the buckets' own rows smaller, the shared factor carrying most of the weight,
             * as after training: a merge that dropped either would miss by far */
            m.nfactor = nfactor;
            m.nbase = net->l.nbase;
            for (size_t i = 0; i < (size_t)net->l.nfeat * 256; i++) m.ftw[i] *= 0.3f;
            for (size_t i = (size_t)net->l.nfeat * 256; i < (size_t)m.nfeat * 256; i++)
                m.ftw[i] = test_uniform(&st, 0.08);
        }
        for (int b = 0; b < m.obuckets; b++) {
            float *hp = m.head + (size_t)b * m.hstride;
            if (!m.l1) {
                for (int i = 0; i < 2 * 256; i++) hp[i] = test_uniform(&st, 0.3);
                hp[2 * 256] = test_uniform(&st, 0.5);
                continue;
            }
            size_t nw1 = (size_t)m.l1 * 512;
            for (size_t i = 0; i < nw1; i++) hp[i] = test_uniform(&st, 0.15);
            for (size_t i = nw1 + m.l1; i < nw1 + m.l1 + (size_t)m.l2 * m.l1; i++)
                hp[i] = test_uniform(&st, 0.6);
            for (size_t i = m.hsize - 1 - m.l2; i < m.hsize; i++) hp[i] = test_uniform(&st, 0.5);
        }
        cr_assert_eq(train_quantise(&m, net), 0, "no weight clipped");
        Position *p = malloc(sizeof *p);
        NnueAcc *acc = malloc(sizeof *acc);
        float *fa = malloc(2 * 256 * sizeof *fa);
        TrainSample *x = malloc(sizeof *x);
        Move moves[MAX_MOVES];
        double sum_err = 0, max_err = 0, sum_abs = 0;
        int npos = 0;
        for (int g = 0; g < 4; g++) {
            char fen[256];
            CvError err = {{0}};
            cr_assert(variant_random_start(v, splitmix64_next(&st), fen, sizeof fen, &err));
            tu_fen(p, v, fen);
            for (int ply = 0; ply < 80; ply++, npos++) {
                for (int k = 0; k < 2; k++) {
                    int n = nnue_features_pos(&net->l, p, k ? p->side ^ 1 : p->side, x->f[k]);
                    if (nfactor) n = train_factor_features(&net->l, x->f[k], n);
                    x->n[k] = (uint16_t)n;
                }
                const uint8_t *hand[2] = {p->hand[0], p->hand[1]};
                x->bucket = net->bucket_of[nnue_material(&net->l, p->board, hand)];
                double want = (double)train_forward(&m, x, fa) * 400;
                nnue_refresh(net, p, acc);
                double got = nnue_evaluate(net, acc, p), e = fabs(got - want);
                sum_err += e;
                sum_abs += fabs(want);
                max_err = e > max_err ? e : max_err;
                int n = pos_legal_moves(p, moves);
                if (n == 0) break;
                pos_make(p, moves[splitmix64_next(&st) % (uint64_t)n]);
            }
        }
        double mean_err = sum_err / npos, mean_abs = sum_abs / npos;
        cr_log_info(
            "%s %d,%d,%d,%d%s: %d positions, mean |eval| %.0f cp, error mean %.2f max %.2f cp",
            v->name, cfg[c].obuckets, cfg[c].l1, cfg[c].l2, cfg[c].kb,
            cfg[c].factor ? " factorised" : "", npos, mean_abs, mean_err, max_err);
        cr_assert_gt(mean_abs, 100, "%s: evaluations too small to test", v->name);
        cr_assert_leq(mean_err, 20, "%s config %zu: mean error %.2f cp", v->name, c, mean_err);
        cr_assert_leq(max_err, 80, "%s config %zu: max error %.2f cp", v->name, c, max_err);
        free(p);
        free(acc);
        free(fa);
        free(x);
        train_model_free(&m);
        nnue_free(net);
    }
}
