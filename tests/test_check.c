/* test_check.c - the rule-consistency checker: clean runs pass on every variant, and
 * planted faults make it fail. Each fault lives only here: a copy of a Variant record
 * whose ops point to a copy of its VariantOps with one operation wrapped. */
#include <sys/wait.h>

#include "test_util.h"

/* The checker and the report are compiled into this test directly (tests link only the
 * engine library; the checker uses only the public header). */
#include "../selfplay/check/check.h"
#include "../selfplay/check/report.h"

TestSuite(check, .init = engine_init, .timeout = 300);

/* The unmodified operations of the variant a (possibly faulty) copy was made from. */
static const VariantOps *real_ops(const Position *p) { return variant_by_name(p->var->name)->ops; }

/* Fault: the fast generator loses its last move. */
static int fault_drop_last(Position *p, Move *list) {
    int n = real_ops(p)->gen_legal(p, list);
    return n > 1 ? n - 1 : n;
}

/* Fault: make leaves a wrong incremental key. */
static void fault_key_make(Position *p, Move m) {
    real_ops(p)->make(p, m);
    p->key ^= 0x10;
}

/* Fault: unmake forgets to restore the half-move clock. */
static void fault_unmake_clock(Position *p) {
    real_ops(p)->unmake(p);
    p->halfmove++;
}

/* Fault: the attack test never sees a royal attacked. */
static bool fault_never_attacked(const Position *p, int c) {
    (void)p;
    (void)c;
    return false;
}

/* Fault: in_check consistent with the broken attack test. */
static bool fault_never_in_check(const Position *p) {
    (void)p;
    return false;
}

/* Fault: the move parser returns the first legal move for the text of the last one. */
static Move fault_parse(Position *p, const char *s, CvError *err) {
    Move m = real_ops(p)->move_from_str ? real_ops(p)->move_from_str(p, s, err)
                                        : move_from_str_generic(p, s, err);
    Move list[MAX_MOVES];
    int n = real_ops(p)->gen_legal(p, list);
    return n > 1 && m == list[n - 1] ? list[0] : m;
}

/* Fault: a capture also puts a piece back into the capturer's promotion pool (the key
 * follows, so only the pool accounting can notice). */
static void fault_pool_make(Position *p, Move m) {
    real_ops(p)->make(p, m);
    const Undo *u = &p->stack[p->ply - 1];
    if (u->captured) {
        int c = p->side ^ 1, t = p->var->promo_types[0];
        p->key ^= zob_pool[c][t][p->pool[c][t] & 15] ^ zob_pool[c][t][(p->pool[c][t] + 1) & 15];
        p->pool[c][t]++;
    }
}

/* Plays a few checking games of v and returns the report section. */
static void run_games(const Variant *v, int games, int plies, VariantReport *vr) {
    memset(vr, 0, sizeof *vr);
    vr->var = v;
    CheckParams cp = {.max_plies = plies, .sample = 1, .style = -1};
    for (int g = 0; g < games; g++) cr_assert_geq(check_game(vr, v, NULL, 7, g, &cp), 0);
}

/* Total failures of a report section. */
static uint64_t total_fail(const VariantReport *vr) {
    uint64_t n = 0;
    for (int k = 0; k < INV_N; k++) n += vr->fail[k];
    return n;
}

Test(check, clean_runs_pass_on_every_variant) {
    VariantReport *vr = malloc(sizeof *vr);
    for (int i = 0; i < variant_count(); i++) {
        const Variant *v = variant_at(i);
        run_games(v, 2, v->width > 8 ? 30 : 60, vr);
        for (int k = 0; k < vr->nfail_kept; k++)
            cr_log_error("%s %s at %s %s: %s", v->name,
                         report_invariant_name(vr->failures[k].invariant), vr->failures[k].fen,
                         vr->failures[k].move, vr->failures[k].detail);
        cr_assert_eq(total_fail(vr), 0, "%s: %llu failures", v->name,
                     (unsigned long long)total_fail(vr));
        cr_assert_gt(vr->positions, 30, "%s", v->name);
        for (int k = 0; k < INV_N; k++)
            if (k != INV_CAPTURE)
                cr_assert_gt(vr->pass[k], 0, "%s: %s never checked", v->name,
                             report_invariant_name(k));
        cr_assert_gt(vr->events[EV_MOVES], 30);
    }
    free(vr);
}

/* Runs v with one operation replaced by set_fault, returns the report section. */
#define WITH_FAULT(name, field, fn, vr)                                                            \
    do {                                                                                           \
        Variant bad = *variant_by_name(name);                                                      \
        VariantOps ops = *bad.ops;                                                                 \
        ops.field = fn;                                                                            \
        bad.ops = &ops;                                                                            \
        run_games(&bad, 2, 40, vr);                                                                \
    } while (0)

Test(check, dropped_move_is_caught) {
    VariantReport *vr = malloc(sizeof *vr);
    WITH_FAULT("chess", gen_legal, fault_drop_last, vr);
    cr_assert_gt(vr->fail[INV_MOVEGEN], 0);
    cr_assert_gt(vr->nfail_kept, 0);
    bool listed = false;
    for (int k = 0; k < vr->nfail_kept; k++)
        listed |= vr->failures[k].invariant == INV_MOVEGEN && vr->failures[k].only_ref[0] &&
                  !vr->failures[k].only_fast[0];
    cr_assert(listed, "the failure lists the move only the reference generator gives");
    free(vr);
}

Test(check, corrupted_key_is_caught) {
    VariantReport *vr = malloc(sizeof *vr);
    WITH_FAULT("switching", make, fault_key_make, vr);
    cr_assert_gt(vr->fail[INV_KEY], 0);
    free(vr);
}

Test(check, unrestored_unmake_is_caught) {
    VariantReport *vr = malloc(sizeof *vr);
    WITH_FAULT("superchess", unmake, fault_unmake_clock, vr);
    cr_assert_gt(vr->fail[INV_UNMAKE], 0);
    free(vr);
}

Test(check, blind_attack_test_is_caught) {
    VariantReport *vr = malloc(sizeof *vr);
    Variant bad = *variant_by_name("chess");
    VariantOps ops = *bad.ops;
    ops.royal_attacked = fault_never_attacked;
    ops.in_check = fault_never_in_check;
    bad.ops = &ops;
    run_games(&bad, 4, 80, vr);
    cr_assert_gt(vr->fail[INV_CAPTURE], 0,
                 "a check no attack test sees is found by capturing the royal");
    free(vr);
}

Test(check, confused_parser_is_caught) {
    VariantReport *vr = malloc(sizeof *vr);
    WITH_FAULT("supremo", move_from_str, fault_parse, vr);
    cr_assert_gt(vr->fail[INV_NOTATION], 0);
    free(vr);
}

Test(check, pool_leak_is_caught) {
    VariantReport *vr = malloc(sizeof *vr);
    Variant bad = *variant_by_name("superchess");
    VariantOps ops = *bad.ops;
    ops.make = fault_pool_make;
    bad.ops = &ops;
    run_games(&bad, 4, 80, vr);
    cr_assert_gt(vr->fail[INV_VARIANT], 0);
    free(vr);
}

Test(check, replay_counts_the_same_events_as_the_game) {
    const Variant *v = variant_by_name("switching");
    VariantReport *a = malloc(sizeof *a), *b = malloc(sizeof *b);
    memset(b, 0, sizeof *b);
    run_games(v, 1, 80, a);
    /* replay the same game: the seeded RNG of game 0 gives the same moves again */
    Position *p = malloc(sizeof *p);
    Move moves[100], list[MAX_MOVES];
    int n = 0;
    uint64_t rng = 7 ^ 0;
    splitmix64_next(&rng);
    tu_fen(p, v, v->start_fen);
    for (; n < 80; n++) {
        int k = pos_legal_moves(p, list);
        if (!k) break;
        moves[n] = list[splitmix64_next(&rng) % (uint64_t)k];
        pos_make(p, moves[n]);
    }
    b->var = v;
    cr_assert_eq(check_replay(b, v, v->start_fen, moves, n, 1), 0);
    cr_assert_eq(b->positions, a->positions);
    cr_assert_eq(memcmp(a->events, b->events, sizeof a->events), 0, "same moves, same events");
    cr_assert_gt(b->events[EV_SWITCHES], 0);
    moves[n / 2] = MOVE_SIMPLE(0, 0, MK_NORMAL);
    cr_assert_eq(check_replay(b, v, v->start_fen, moves, n, 0), -1, "an illegal move is refused");
    free(p);
    free(a);
    free(b);
}

Test(check, fen_reading_is_safe_on_several_threads) {
    const char *fens[] = {
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        "rdfekmgr/tthpphtt/8/8/8/8/TTHPPHTT/RDFEKMGR[LXlx] w Ka,Kh,Ea,Eh,ka,kh,ea,eh - 0 1",
        "rnbtqktbnr/csrnbbnrsc/pppppppppp/10/10/10/10/PPPPPPPPPP/CSRNBBNRSC/RNBTQKTBNR w - - 0 1",
    };
    const char *names[] = {"chess", "superchess", "supremo"};
    char want[3][512];
    for (int i = 0; i < 3; i++) {
        Position *p = malloc(sizeof *p);
        tu_fen(p, variant_by_name(names[i]), fens[i]);
        pos_to_fen(p, want[i], sizeof want[i]);
        free(p);
    }
    int bad = 0;
#pragma omp parallel num_threads(2) reduction(+ : bad)
    {
        Position *p = malloc(sizeof *p);
        char out[512];
        CvError err;
        for (int k = 0; k < 3000; k++) {
            int i = k % 3;
            if (!pos_from_fen(p, variant_by_name(names[i]), fens[i], &err)) bad++;
            else if (pos_to_fen(p, out, sizeof out), strcmp(out, want[i]) != 0) bad++;
        }
        free(p);
    }
    cr_assert_eq(bad, 0, "%d FENs misread while another thread read FENs", bad);
}

Test(check, colour_flip_of_every_start_is_accepted) {
    Position *p = malloc(sizeof *p), *q = malloc(sizeof *q);
    char flip[512];
    CvError err = {{0}};
    for (int i = 0; i < variant_count(); i++) {
        const Variant *v = variant_at(i);
        tu_fen(p, v, v->start_fen);
        check_flip_fen(p, flip, sizeof flip);
        cr_assert(pos_from_fen(q, v, flip, &err), "%s: %s: %s", v->name, flip, err.msg);
        cr_assert_eq(pos_legal_moves(q, (Move[MAX_MOVES]){0}),
                     pos_legal_moves(p, (Move[MAX_MOVES]){0}));
    }
    tu_fen(p, variant_by_name("chess"), "r3k2r/8/8/3pP3/8/8/8/R3K2R w Kq d6 0 1");
    check_flip_fen(p, flip, sizeof flip);
    cr_assert_str_eq(flip, "r3k2r/8/8/8/3Pp3/8/8/R3K2R b Qk d3 0 1");
    free(p);
    free(q);
}

Test(check, command_exit_status_and_report) {
    char cmd[1024];
    snprintf(cmd, sizeof cmd,
             "%s check --variant switching --games 2 --plies 30 --quiet --json " CHESSVAR_TEST_WORK
             "/check_test.json",
             CHESSVAR_BINARY);
    cr_assert_eq(system(cmd), 0);
    FILE *f = fopen(CHESSVAR_TEST_WORK "/check_test.json", "r");
    cr_assert_not_null(f);
    char buf[4096] = "";
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = 0;
    fclose(f);
    cr_assert(strstr(buf, "\"total_failures\": 0"), "%s", buf);
    cr_assert(strstr(buf, "\"variant\": \"switching\""), "%s", buf);
    f = fopen(CHESSVAR_TEST_WORK "/check_test.md", "r");
    cr_assert_not_null(f, "the Markdown summary sits beside the JSON");
    fclose(f);
    remove(CHESSVAR_TEST_WORK "/check_test.json");
    remove(CHESSVAR_TEST_WORK "/check_test.md");
    snprintf(cmd, sizeof cmd,
             "%s check --variant superchess --games 6 --plies 40 --threads 2 --quiet "
             "--json " CHESSVAR_TEST_WORK "/check_test.json",
             CHESSVAR_BINARY);
    cr_assert_eq(system(cmd), 0, "two threads find no failure either");
    remove(CHESSVAR_TEST_WORK "/check_test.json");
    remove(CHESSVAR_TEST_WORK "/check_test.md");
    snprintf(cmd, sizeof cmd, "%s check --games 0 2>/dev/null", CHESSVAR_BINARY);
    int st = system(cmd);
    cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 2, "a bad option exits 2");
}
