/* test_evaluator.c - the evaluator seam: the classical evaluation's carried piece-square sum
 * and a network's lazily updated accumulators equal what is computed from scratch, at
 * every node of perft trees and of real searches in every variant; and the programs play
 * and bench with a network file and refuse a bad one with one line and exit 2. */
#include "../selfplay/player/nets_builtin.h"
#include "../selfplay/player/search.h"
#include "../selfplay/profile.h"
#include "nnue_util.h"

TestSuite(evaluator, .init = engine_init, .timeout = 300);

static const char *const variants[] = {"chess", "switching", "superchess", "supremo", "cannon10"};
static const char *const suites[] = {"chess.epd", "switching.epd", "superchess.epd", "supremo.epd",
                                     "supremo_cannon10.epd"};

/* A network for v with seeded weights and h hidden units (no training: any weights will do
 * to compare two ways of computing the same accumulator). */
static Network *seeded_net(const Variant *v, int h, uint64_t seed) {
    Network *net = tu_net_alloc(v, h, 1, 0, 0, 0, 64);
    uint64_t st = seed;
    for (size_t i = 0; i < (size_t)net->d.nfeat * h; i++)
        net->ft_w[i] = (int16_t)((int)(splitmix64_next(&st) % 61) - 30);
    for (int i = 0; i < h; i++) net->ft_b[i] = (int16_t)(splitmix64_next(&st) % 100);
    for (int i = 0; i < 2 * h; i++)
        net->out_w[i] = (int16_t)((int)(splitmix64_next(&st) % 81) - 40);
    net->out_b[0] = 100;
    return net;
}

/* Walks the tree of depth below pos (at ply), entering every child and evaluating it as a
 * search does; returns the nodes evaluated. The classical evaluator's carried sum is
 * compared with the whole sum at every node; a network's evaluator checks itself
 * (e->verify). */
static int64_t walk(Evaluator *e, Position *pos, int ply, int depth, const char *fen) {
    int64_t nodes = 1;
    if (!e->net && e->psq_carried)
        cr_assert_eq(e->psq[ply], eval_psq_sum(&e->classical, pos),
                     "%s: carried piece-square sum differs at ply %d", fen, ply);
    evaluator_evaluate(e, pos, ply);
    if (depth == 0) return nodes;
    Move list[MAX_MOVES];
    int n = pos_legal_moves(pos, list);
    for (int i = 0; i < n; i++) {
        pos_make(pos, list[i]);
        evaluator_enter(e, pos, pos_last_dirty(pos), ply + 1);
        /* evaluate every other child only, so some updates span two plies */
        if (i % 2 == 0 || depth > 1) nodes += walk(e, pos, ply + 1, depth - 1, fen);
        else {
            Move reply[MAX_MOVES];
            int k = pos_legal_moves(pos, reply);
            if (k) {
                pos_make(pos, reply[0]);
                evaluator_enter(e, pos, pos_last_dirty(pos), ply + 2);
                nodes += walk(e, pos, ply + 2, 0, fen);
                pos_unmake(pos);
            }
        }
        pos_unmake(pos);
    }
    if (n && !pos_in_check(pos)) {
        pos_make_null(pos);
        evaluator_enter(e, pos, pos_last_dirty(pos), ply + 1);
        nodes += walk(e, pos, ply + 1, 0, fen);
        pos_unmake_null(pos);
    }
    return nodes;
}

/* Walks up to max_lines lines of a suite to depth 2 with evaluator e set up for v. */
static int64_t walk_suite(Evaluator *e, const char *suite, const Variant *v, int max_lines) {
    int n;
    EpdEntry *ent = tu_load_epd(suite, &n);
    Position *pos = malloc(sizeof *pos);
    int64_t nodes = 0;
    for (int i = 0; i < n && i < max_lines; i++) {
        if (ent[i].variant[0] && strcmp(ent[i].variant, v->name) != 0) continue;
        tu_fen(pos, v, ent[i].fen);
        evaluator_refresh(e, pos, 0);
        nodes += walk(e, pos, 0, 2, ent[i].fen);
    }
    free(pos);
    free(ent);
    return nodes;
}

Test(evaluator, classical_carried_sum_equals_whole_sum) {
    int carried = 0;
    for (int i = 0; i < 5; i++) {
        const Variant *v = variant_by_name(variants[i]);
        Evaluator *e = malloc(sizeof *e);
        cr_assert(evaluator_init(e, v, NULL));
        carried += e->psq_carried;
        int64_t nodes = walk_suite(e, suites[i], v, 12);
        cr_assert_gt(nodes, 1000, "%s: %lld nodes", v->name, (long long)nodes);
        evaluator_free(e);
        free(e);
    }
    cr_assert_geq(carried, 2, "chess and Switching carry the sum (tapered tables)");
}

/* The network of test k for variant v: version 1 (k 0), or version 2 with 8 output
 * buckets, a 16, 32 stack and, where v has them, 16 king buckets (k 1). */
static Network *test_net(const Variant *v, int k, uint64_t seed) {
    if (k == 0) return seeded_net(v, 32, seed);
    return tu_net_v2(v, 32, 8, 16, 32, nnue_king_type(v) ? 16 : 0, 40, seed);
}

Test(evaluator, network_incremental_equals_refresh_in_perft_trees) {
    for (int i = 0; i < 10; i++) {
        const Variant *v = variant_by_name(variants[i / 2]);
        Network *net = test_net(v, i % 2, 11 + (uint64_t)i);
        Evaluator *e = malloc(sizeof *e);
        cr_assert(evaluator_init(e, v, net));
        e->verify = true;
        int64_t nodes = walk_suite(e, suites[i / 2], v, 12);
        cr_assert_gt(e->verified, 1000, "%s: %lld evaluations checked", v->name,
                     (long long)e->verified);
        cr_assert_eq(e->mismatches, 0, "%s: %lld of %lld incremental accumulators differ", v->name,
                     (long long)e->mismatches, (long long)e->verified);
        cr_assert_eq(e->verified, nodes);
        if (i % 2 && nnue_king_type(v))
            cr_assert_gt(e->king_refreshes, 0, "%s: no king crossed a bucket", v->name);
        evaluator_free(e);
        free(e);
        nnue_free(net);
    }
}

Test(evaluator, network_incremental_equals_refresh_in_searches) {
    for (int i = 0; i < 10; i++) {
        const Variant *v = variant_by_name(variants[i / 2]);
        Network *net = test_net(v, i % 2, 21 + (uint64_t)i);
        Search *s = search_new(v, 14);
        cr_assert_not_null(s);
        cr_assert(search_set_network(s, net));
        s->eval.verify = true;
        int n;
        EpdEntry *ent = tu_load_epd(suites[i / 2], &n);
        Position *pos = malloc(sizeof *pos);
        for (int k = 0; k < n && k < 6; k++) {
            tu_fen(pos, v, ent[k].fen);
            Move list[MAX_MOVES];
            if (pos_legal_moves(pos, list) == 0) continue;
            search_clear(s);
            SearchLimits lim = {0};
            lim.nodes = 3000;
            search_run(s, pos, &lim);
        }
        cr_assert_gt(s->eval.verified, 2000, "%s: %lld evaluations checked", v->name,
                     (long long)s->eval.verified);
        cr_assert_eq(s->eval.mismatches, 0, "%s: %lld of %lld incremental accumulators differ",
                     v->name, (long long)s->eval.mismatches, (long long)s->eval.verified);
        if (i % 2 && nnue_king_type(v))
            cr_assert_gt(s->eval.king_refreshes, 0, "%s: no king crossed a bucket", v->name);
        free(pos);
        free(ent);
        search_free(s);
        nnue_free(net);
    }
}

/* Writes a seeded network of v to path. */
static void write_net(const Variant *v, const char *path) {
    Network *net = seeded_net(v, 32, 5);
    size_t len;
    uint8_t *img = nnue_serialise(net, &len);
    FILE *f = fopen(path, "wb");
    cr_assert_not_null(f, "cannot write %s", path);
    cr_assert_eq(fwrite(img, 1, len, f), len);
    fclose(f);
    free(img);
    nnue_free(net);
}

Test(evaluator, selfplay_and_bench_with_a_network_file) {
    write_net(variant_by_name("superchess"), "eval_sc.nnue");
    char out[8192], cmd[2048];
    snprintf(cmd, sizeof cmd,
             "rm -rf eval_run && %s selfplay --variant superchess --games 2 --depth 2 --threads 1 "
             "--progress 0 --format jsonl --eval eval_sc.nnue --opponent-eval classical --json "
             "--out eval_run 2>&1",
             CHESSVAR_BINARY);
    cr_assert_eq(tu_run_sh(cmd, out, sizeof out), 0, "%s", out);
    cr_assert(strstr(out, "\"player_a\":\"chessvar depth=2 eval=eval_sc.nnue#"), "%s", out);
    cr_assert(strstr(out, "\"player_b\":\"chessvar depth=2\""), "%s", out);
    cr_assert(strstr(out, "\"games\":2,"), "%s", out);
    /* a network for another variant, a corrupt file, a missing one: one line, exit 2 */
    const char *bad[][2] = {{"--variant chess --eval eval_sc.nnue", "not 'chess'"},
                            {"--variant superchess --opponent-eval eval_bad.nnue", "checksum"},
                            {"--variant superchess --eval eval_missing.nnue", "cannot open"}};
    FILE *f = fopen("eval_sc.nnue", "rb");
    cr_assert_not_null(f);
    uint8_t *buf = malloc(1 << 22);
    size_t len = fread(buf, 1, 1 << 22, f);
    fclose(f);
    cr_assert(len > 1000 && len < (1 << 22), "network file of %zu bytes", len);
    buf[len / 2] ^= 1;
    f = fopen("eval_bad.nnue", "wb");
    fwrite(buf, 1, len, f);
    fclose(f);
    free(buf);
    for (int i = 0; i < 3; i++) {
        snprintf(cmd, sizeof cmd, "%s selfplay %s --games 1 --out eval_run2 2>&1", CHESSVAR_BINARY,
                 bad[i][0]);
        cr_assert_eq(tu_run_sh(cmd, out, sizeof out), 2, "%s: %s", bad[i][0], out);
        cr_assert(strstr(out, bad[i][1]), "%s: %s", bad[i][0], out);
        cr_assert_eq(strchr(out, '\n'), out + strlen(out) - 1, "not one line: %s", out);
    }
    snprintf(cmd, sizeof cmd, "%s bench --eval eval_bad.nnue 2>&1", CHESSVAR_BINARY);
    cr_assert_eq(tu_run_sh(cmd, out, sizeof out), 2, "%s", out);
    cr_assert(strstr(out, "checksum") && strchr(out, '\n') == out + strlen(out) - 1, "%s", out);
}

Test(evaluator, uci_evalfile) {
    write_net(variant_by_name("chess"), "eval_chess.nnue");
    char out[16384], cmd[2048];
    snprintf(cmd, sizeof cmd,
             "printf 'setoption name EvalFile value eval_chess.nnue\\ngo depth 3\\nstop\\n"
             "setoption name EvalFile value eval_missing.nnue\\nisready\\n"
             "setoption name UCI_Variant value switching\\nisready\\nquit\\n' | %s uci 2>&1",
             CHESSVAR_BINARY);
    cr_assert_eq(tu_run_sh(cmd, out, sizeof out), 0, "%s", out);
    cr_assert(strstr(out, "bestmove "), "%s", out);
    cr_assert(strstr(out, "info string error: EvalFile: network eval_missing.nnue: cannot open"),
              "%s", out);
    cr_assert(strstr(out, "not 'switching'"), "the chess network kept for Switching: %s", out);
}

/* A profile's network margins name search margins, within their ranges, each once; a
 * search takes them when it evaluates with a network and drops them when it goes back to
 * the classical evaluation, whose margins are search_tune_params' defaults everywhere. */
Test(evaluator, profile_net_margins_follow_the_evaluation) {
    const SearchTune def = search_tune_defaults();
    int overridden = 0;
    for (int i = 0; i < variant_count(); i++) {
        const Variant *v = variant_at(i);
        const VariantProfile *p = profile_of(v);
        SearchTune want = def;
        unsigned seen = 0;
        for (int k = 0; k < PROFILE_MARGINS && p->net_margins[k].name; k++) {
            int j = search_tune_index(p->net_margins[k].name);
            cr_assert_geq(j, 0, "%s: no margin '%s'", v->name, p->net_margins[k].name);
            cr_assert_not(seen >> j & 1, "%s: %s twice", v->name, p->net_margins[k].name);
            seen |= 1u << j;
            const SearchTuneParam *t = &search_tune_params[j];
            cr_assert(p->net_margins[k].value >= t->min && p->net_margins[k].value <= t->max,
                      "%s: %s %d out of range", v->name, t->name, p->net_margins[k].value);
            cr_assert_neq(p->net_margins[k].value, t->def, "%s: %s repeats the default", v->name,
                          t->name);
            *search_tune_at(&want, j) = p->net_margins[k].value;
            overridden++;
        }
        SearchTune classical = search_tune_for(v, false), with_net = search_tune_for(v, true);
        cr_assert(memcmp(&classical, &def, sizeof def) == 0, "%s: classical margins", v->name);
        cr_assert(memcmp(&with_net, &want, sizeof want) == 0, "%s: network margins", v->name);
        Search *s = search_new(v, 12);
        cr_assert(memcmp(&s->tune, &def, sizeof def) == 0, "%s: a new search", v->name);
        Network *net = seeded_net(v, 32, 5);
        cr_assert(search_set_network(s, net));
        cr_assert(memcmp(&s->tune, &want, sizeof want) == 0, "%s: with a network", v->name);
        cr_assert(search_set_network(s, NULL));
        cr_assert(memcmp(&s->tune, &def, sizeof def) == 0, "%s: classical again", v->name);
        search_free(s);
        nnue_free(net);
    }
    cr_assert_gt(overridden, 0, "no variant has a margin of its own");
    cr_assert_eq(search_tune_index("qsdelta"), search_tune_index("QSDelta"));
    cr_assert_eq(search_tune_index("NoSuchMargin"), -1);
}

/* Every registered variant has its own profile record (none falls back to the defaults),
 * and the shipped network its profile names is built into the program byte for byte as
 * selfplay/nets/ holds it, and loads as the variant's default evaluation. */
Test(evaluator, profile_of_every_variant_and_its_builtin_net) {
    for (int i = 0; i < variant_count(); i++) {
        const Variant *v = variant_at(i);
        const VariantProfile *p = profile_of(v);
        cr_assert_str_eq(p->variant, v->name);
        if (!p->net) continue;
        const uint8_t *buf;
        size_t len;
        cr_assert(nets_builtin(p->net, &buf, &len), "%s: %s not built in", v->name, p->net);
        char path[1024];
        snprintf(path, sizeof path, "%s/../../selfplay/nets/%s", CHESSVAR_TEST_DATA, p->net);
        FILE *f = fopen(path, "rb");
        cr_assert(f, "cannot open %s", path);
        uint8_t *file = malloc(len + 1);
        size_t got = fread(file, 1, len + 1, f);
        fclose(f);
        cr_assert_eq(got, len, "%s: built in %zu bytes, file %zu", p->net, len, got);
        cr_assert(memcmp(file, buf, len) == 0, "%s differs from its file", p->net);
        free(file);
        Network *net = NULL;
        CvError err = {{0}};
        cr_assert(evaluator_load(NULL, v, &net, &err), "%s: %s", v->name, err.msg);
        cr_assert(net != NULL, "%s: default evaluation is not its network", v->name);
        nnue_free(net);
    }
    cr_assert_null(profile_of(variant_by_name("chess"))->uci_variant);
    cr_assert_str_eq(profile_of(variant_by_name("supremo"))->uci_variant, "supremo");
    const uint8_t *buf;
    size_t len;
    cr_assert_not(nets_builtin("missing.nnue", &buf, &len));
}
