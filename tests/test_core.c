/* test_core.c - geometry tables against their slow walkers, Zobrist determinism, EPD
 * parsing. */
#include "test_util.h"

#include "bitboard.h"
#include "lines10.h"

TestSuite(core, .init = engine_init);

/* Random occupancy with about a third of the squares set. */
static Bitboard rand_occ8(uint64_t *s) { return tu_rand(s) & tu_rand(s); }
static Bitboard128 rand_occ10(uint64_t *s) {
    Bitboard128 b = ((Bitboard128)(tu_rand(s) & tu_rand(s)) << 64) | (tu_rand(s) & tu_rand(s));
    return b & board10_mask;
}

Test(core, magic_sliders_match_slow_walk_on_every_square) {
    uint64_t seed = 1;
    for (int s = 0; s < 64; s++)
        for (int k = 0; k < 2000; k++) {
            Bitboard occ = rand_occ8(&seed);
            cr_assert_eq(rook_att8(s, occ), slide_att8_slow(s, occ, false), "rook on %d", s);
            cr_assert_eq(bishop_att8(s, occ), slide_att8_slow(s, occ, true), "bishop on %d", s);
        }
}

/* The squares of one field (0 slide, 1 first, 2 hop, 3 second) on line kind k through s. */
static Bitboard128 line_field(int k, int s, Bitboard128 occ, int field) {
    int id = line10_id[k][s];
    unsigned m = (unsigned)(line10_table[line10_pos[k][s]][line10_occ(id, occ)] >> (10 * field));
    return line10_squares(id, m & 0x3FF & ((1u << line10[id].len) - 1));
}

Test(core, line_lookup_10x10_matches_slow_walk_on_every_square) {
    uint64_t seed = 3;
    for (int s = 0; s < 100; s++)
        for (int n = 0; n < 500; n++) {
            Bitboard128 occ = rand_occ10(&seed);
            for (int diag = 0; diag < 2; diag++) {
                Bitboard128 slide = 0, first = 0, hop = 0, second = 0;
                for (int k = 2 * diag; k < 2 * diag + 2; k++) {
                    slide |= line_field(k, s, occ, 0);
                    first |= line_field(k, s, occ, 1);
                    hop |= line_field(k, s, occ, 2);
                    second |= line_field(k, s, occ, 3);
                }
                Bitboard128 att = slide_att10_slow(s, occ, diag);
                cr_assert(att == (slide | first), "slide on %d", s);
                cr_assert(first == (att & occ & ~((Bitboard128)1 << s)), "first on %d", s);
                /* beyond each first blocker: the same walk from the blocker, away from s */
                Bitboard128 beyond = 0, b = first;
                while (b) {
                    int f = bb128_pop_lsb(&b);
                    int df = (f % 10 > s % 10) - (f % 10 < s % 10),
                        dr = (f / 10 > s / 10) - (f / 10 < s / 10);
                    for (int x = f % 10 + df, y = f / 10 + dr; x >= 0 && x < 10 && y >= 0 && y < 10;
                         x += df, y += dr) {
                        beyond |= (Bitboard128)1 << (y * 10 + x);
                        if (occ & ((Bitboard128)1 << (y * 10 + x))) break;
                    }
                }
                cr_assert(beyond == (hop | second), "hop on %d", s);
                cr_assert(second == (beyond & occ), "second on %d", s);
            }
        }
}

Test(core, tables_10x10_match_slow_walk_on_every_square) {
    uint64_t seed = 2;
    for (int s = 0; s < 100; s++) {
        for (int k = 0; k < 2000; k++) {
            Bitboard128 occ = rand_occ10(&seed);
            cr_assert(rook_att10(s, occ) == slide_att10_slow(s, occ, false), "rook on %d", s);
            cr_assert(bishop_att10(s, occ) == slide_att10_slow(s, occ, true), "bishop on %d", s);
        }
        Bitboard128 kn = 0, kg = 0;
        for (int t = 0; t < 100; t++) {
            int df = t % 10 - s % 10, dr = t / 10 - s / 10;
            if ((df * df + dr * dr) == 5) kn |= (Bitboard128)1 << t;
            if (t != s && df >= -1 && df <= 1 && dr >= -1 && dr <= 1) kg |= (Bitboard128)1 << t;
        }
        cr_assert(knight_att10[s] == kn, "knight table on %d", s);
        cr_assert(king_att10[s] == kg, "king table on %d", s);
        cr_assert((rook_att10(s, 0) | bishop_att10(s, 0)) ==
                  (slide_att10_slow(s, 0, false) | slide_att10_slow(s, 0, true)));
    }
    cr_assert_eq(bb128_popcount(board10_mask), 100);
}

Test(core, leaper_tables_8x8_match_distance_rule) {
    for (int s = 0; s < 64; s++) {
        Bitboard kn = 0;
        for (int t = 0; t < 64; t++) {
            int df = t % 8 - s % 8, dr = t / 8 - s / 8;
            if (df * df + dr * dr == 5) kn |= (Bitboard)1 << t;
        }
        cr_assert_eq(knight_att8[s], kn, "knight table on %d", s);
        cr_assert_eq(bb_popcount(king_att8[s]),
                     (s % 8 == 0 || s % 8 == 7 ? 2 : 3) * (s / 8 == 0 || s / 8 == 7 ? 2 : 3) - 1);
    }
}

Test(core, zobrist_keys_are_fixed_by_seed) {
    /* The same start position must hash the same in every build and on every machine:
     * the keys come from XXH3 with a fixed seed, so recomputing them gives the same key. */
    Position *p = malloc(sizeof *p);
    tu_fen(p, variant_by_name("chess"), variant_by_name("chess")->start_fen);
    uint64_t k1 = p->key;
    zobrist_init();
    cr_assert_eq(pos_compute_key(p), k1);
    cr_assert_neq(zob_psq[PC_MAKE(WHITE, 1)][8], zob_psq[PC_MAKE(BLACK, 1)][8]);
    free(p);
}

Test(core, epd_lines_parse_and_errors_are_named) {
    EpdEntry e;
    CvError err = {{0}};
    cr_assert_eq(epd_parse_line("   # comment", &e, &err), 0);
    cr_assert_eq(epd_parse_line("", &e, &err), 0);
    cr_assert_eq(epd_parse_line("8/8/8/8/8/8/8/K6k w - - 0 1 ;D1 3 ;D2 9 ;variant chess", &e, &err),
                 1);
    cr_assert_str_eq(e.fen, "8/8/8/8/8/8/8/K6k w - - 0 1");
    cr_assert_str_eq(e.variant, "chess");
    cr_assert_eq(e.ndepth, 2);
    cr_assert_eq(e.nodes[1], 9);
    cr_assert_eq(epd_parse_line("8/8/8/8/8/8/8/K6k w - - 0 1", &e, &err), -1);
    cr_assert(strstr(err.msg, "no ';D"));
    cr_assert_eq(epd_parse_line("8/8/8/8/8/8/8/K6k w - - 0 1 ;D1 x", &e, &err), -1);
    cr_assert(strstr(err.msg, "bad node count"), "%s", err.msg);
    cr_assert_eq(epd_parse_line("8/8/8/8/8/8/8/K6k w - - 0 1 ;X1 3", &e, &err), -1);
    cr_assert(strstr(err.msg, "unknown operation"), "%s", err.msg);
}

Test(core, every_variant_start_parses_and_round_trips) {
    Position *p = malloc(sizeof *p);
    char fen[512];
    for (int i = 0; i < variant_count(); i++) {
        const Variant *v = variant_at(i);
        tu_fen(p, v, v->start_fen);
        pos_to_fen(p, fen, sizeof fen);
        cr_assert_str_eq(fen, v->start_fen, "%s start FEN round trip", v->name);
        char why[256];
        cr_assert(pos_is_consistent(p, why, sizeof why), "%s: %s", v->name, why);
    }
    free(p);
}

Test(core, every_non_royal_piece_has_a_value) {
    for (int i = 0; i < variant_count(); i++) {
        const Variant *v = variant_at(i);
        for (int t = 1; t <= v->npt; t++)
            if (!(v->pieces[t].flags & PF_ROYAL))
                cr_assert_gt(v->pieces[t].value, 0, "%s '%c' has no value", v->name,
                             v->pieces[t].letter);
    }
}

Test(core, insufficient_material_is_the_rule_of_each_record) {
    static const struct {
        const char *variant, *fen;
        bool drawn;
    } cases[] = {
        {"chess", "4k3/8/8/8/8/8/8/4K3 w - - 0 1", true},
        {"chess", "4k3/8/8/8/8/8/8/4KN2 w - - 0 1", true},
        {"chess", "4k3/8/8/8/8/8/8/2B1KB2 w - - 0 1", false}, /* bishops on both colours */
        {"chess", "4k3/8/8/8/8/8/8/B1B1K3 w - - 0 1", true},  /* bishops on one colour */
        {"chess", "4k3/8/8/8/8/8/8/3NKN2 w - - 0 1", false},
        {"chess", "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1", false},
        {"switching", "4k3/8/8/8/8/8/8/4KN2 w - - 0 1", true},
        {"superchess", "4k3/8/8/8/8/8/8/3EK3[] w - - 0 1", false}, /* two monarchs */
        {"superchess", "4k3/8/8/8/8/8/8/4K3[] w - - 0 1", true},
        {"superchess", "4k3/8/8/8/8/8/8/4K3[x] w - - 0 1", false}, /* a piece in hand */
        {"supremo", "4k5/10/10/10/10/10/10/10/10/4K5 w - - 0 1", true},
        {"supremo", "4k5/10/10/10/10/10/10/10/10/4KS4 w - - 0 1", false},
        {"cannon10", "4k5/10/10/10/10/10/10/10/10/4K5 w - - 0 1", false}, /* no such rule */
    };
    Position *p = malloc(sizeof *p);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tu_fen(p, variant_by_name(cases[i].variant), cases[i].fen);
        cr_assert_eq(pos_insufficient_material(p), cases[i].drawn, "%s %s", cases[i].variant,
                     cases[i].fen);
    }
    free(p);
}

Test(core, random_starts_follow_the_record) {
    char fen[256];
    CvError err = {{0}};
    const Variant *chess = variant_by_name("chess"), *sc = variant_by_name("superchess");
    cr_assert(variant_random_start(chess, 12345, fen, sizeof fen, &err));
    cr_assert_str_eq(fen, chess->start_fen); /* no playable named starts: the default */
    PreludeParams pp;
    prelude_defaults(&pp);
    int differ = 0;
    for (uint64_t draw = 0; draw < 8; draw++) {
        cr_assert(variant_random_start(sc, draw, fen, sizeof fen, &err), "%s", err.msg);
        cr_assert(prelude_check(sc, &pp, fen, &err), "%s: %s", fen, err.msg);
        differ += strcmp(fen, sc->start_fen) != 0;
    }
    cr_assert_gt(differ, 0, "Superchess random starts are prelude arrays, not the default");
}
