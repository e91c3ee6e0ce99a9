/* test_util.h - shared helpers of the Criterion tests: EPD loading, colour flip, tree
 * walks comparing the fast and reference generators, random walks with consistency
 * checks. Tests may reach inside the engine. */
#ifndef CHESSVAR_TEST_UTIL_H
#define CHESSVAR_TEST_UTIL_H

#include <criterion/criterion.h>
#include <ctype.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "position.h"

/* Loads every entry of tests/data/NAME into a fresh array; fails the test on a malformed line. */
static inline EpdEntry *tu_load_epd(const char *name, int *count) {
    char path[512];
    const char *dir = getenv("CHESSVAR_TEST_DATA");
    snprintf(path, sizeof path, "%s/%s", dir ? dir : CHESSVAR_TEST_DATA, name);
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f, "cannot open %s", path);
    int cap = 64, n = 0, lineno = 0;
    EpdEntry *v = malloc((size_t)cap * sizeof *v);
    char line[1024];
    while (fgets(line, sizeof line, f)) {
        lineno++;
        CvError err = {{0}};
        if (n == cap) v = realloc(v, (size_t)(cap *= 2) * sizeof *v);
        int r = epd_parse_line(line, &v[n], &err);
        cr_assert_geq(r, 0, "%s:%d: %s", name, lineno, err.msg);
        if (r == 1) n++;
    }
    fclose(f);
    cr_assert_gt(n, 0, "%s holds no position: a suite that checks nothing", path);
    *count = n;
    return v;
}

/* Parses a FEN that must be valid. */
static inline void tu_fen(Position *p, const Variant *v, const char *fen) {
    CvError err = {{0}};
    cr_assert(pos_from_fen(p, v, fen, &err), "FEN rejected: %s: %s", fen, err.msg);
}

/* Counts every (line, depth) of tests/data/FILE with the fast perft (or the reference one
 * with `reference`) and checks it, skipping depths above max_depth and counts above
 * max_nodes (0: no limit). Lines without a variant opcode use `variant`. Returns the
 * number of checks made. */
static inline int tu_run_suite(const char *file, const char *variant, int max_depth,
                               uint64_t max_nodes, bool reference) {
    int n, checked = 0;
    EpdEntry *e = tu_load_epd(file, &n);
    cr_assert_gt(n, 0, "%s is empty", file);
    Position *p = malloc(sizeof *p);
    for (int i = 0; i < n; i++) {
        const Variant *v = variant_by_name(e[i].variant[0] ? e[i].variant : variant);
        cr_assert_not_null(v, "%s: unknown variant", file);
        tu_fen(p, v, e[i].fen);
        for (int k = 0; k < e[i].ndepth; k++) {
            if (e[i].depth[k] > max_depth || (max_nodes && e[i].nodes[k] > max_nodes)) continue;
            uint64_t got = reference ? perft_reference(p, e[i].depth[k]) : perft(p, e[i].depth[k]);
            cr_assert_eq(got, e[i].nodes[k], "%s: %s depth %d: expected %llu, got %llu", file,
                         e[i].fen, e[i].depth[k], (unsigned long long)e[i].nodes[k],
                         (unsigned long long)got);
            checked++;
        }
    }
    free(p);
    free(e);
    return checked;
}

/* Checks the MoveSet of p (VariantOps.gen_fast_set, pos_legal_moves_set) against gen_fast's
 * list: no more groups than MOVESET_GROUPS, the same number, moveset_pick's k-th move
 * gen_fast's k-th for every k, and moveset_pick_portable's too (the portable build's
 * paths, whatever this build's), and the check flag, where set, pos_in_check's. */
static inline void tu_check_move_set(Position *p) {
    static MoveSet ms;
    Move fast[MAX_MOVES];
    int n = pos_legal_moves_fast(p, fast);
    memset(&ms, 0xA5, sizeof ms);
    int ns = pos_legal_moves_set(p, &ms);
    char fen[512];
    if (ms.ngroup > MOVESET_GROUPS) { /* the excess went into the tail, inside ms */
        pos_to_fen(p, fen, sizeof fen);
        cr_assert_fail("%s: the move set has %d groups, room for %d", fen, ms.ngroup,
                       MOVESET_GROUPS);
    }
    if (ns != n || ms.n != n || (ms.check >= 0 && ms.check != (int)pos_in_check(p))) {
        pos_to_fen(p, fen, sizeof fen);
        cr_assert_fail("%s: the move set has %d moves (n %d, check %d), gen_fast %d (check %d)",
                       fen, ns, ms.n, ms.check, n, (int)pos_in_check(p));
    }
    for (int k = 0; k < n; k++) {
        Move m = moveset_pick(&ms, k), mp = moveset_pick_portable(&ms, k);
        if (m != fast[k] || mp != fast[k]) {
            char a[24], b[24], c[24];
            pos_to_fen(p, fen, sizeof fen);
            move_to_str(p, m, a);
            move_to_str(p, mp, c);
            move_to_str(p, fast[k], b);
            cr_assert_fail("%s: move %d of the set is %s (portable path %s), gen_fast's %s", fen, k,
                           a, c, b);
        }
    }
}

/* Checks orthodox chess's chain version 6 alphabet at p (chess_gen_pseudo_set) against the
 * legal moves (fast, n of them): every legal move among its moves, chess_pseudo_is_legal
 * true exactly on those (and chess_pseudo_pick the move exactly then, else MOVE_NONE), its
 * check flag pos_in_check's, and chess_make_replay of each legal move the position
 * pos_make leaves (all the state before the undo stack). */
static inline void tu_check_pseudo_set(Position *p, const Move *fast, int n) {
    static MoveSet ms;
    memset(&ms, 0xA5, sizeof ms);
    int np = chess_gen_pseudo_set(p, &ms), legal = 0;
    char fen[512];
    pos_to_fen(p, fen, sizeof fen);
    cr_assert(ms.ngroup <= MOVESET_GROUPS && np == ms.n, "%s: %d groups, n %d", fen, ms.ngroup, np);
    cr_assert_eq(ms.check, (int)pos_in_check(p), "%s: the pseudo set's check flag", fen);
    for (int k = 0; k < np; k++) {
        Move m = moveset_pick(&ms, k);
        cr_assert_eq(moveset_pick_portable(&ms, k), m, "%s: pseudo move %d by the portable path",
                     fen, k);
        bool in = false;
        for (int i = 0; i < n && !in; i++) in = fast[i] == m;
        legal += in;
        if (chess_pseudo_is_legal(p, m) != in) {
            char a[24];
            move_to_str(p, m, a);
            cr_assert_fail("%s: chess_pseudo_is_legal(%s) is %d, the generator says %d", fen, a,
                           !in, in);
        }
        cr_assert_eq(chess_pseudo_pick(p, &ms, k), in ? m : MOVE_NONE,
                     "%s: chess_pseudo_pick of move %d", fen, k);
        if (in) {
            static Position replay;
            pos_copy(&replay, p);
            chess_make_replay(&replay, m);
            pos_make(p, m);
            bool same = memcmp(&replay, p, offsetof(Position, ply)) == 0;
            pos_unmake(p);
            cr_assert(same, "%s: chess_make_replay of move %d differs from pos_make", fen, k);
        }
    }
    cr_assert_eq(legal, n, "%s: the pseudo set holds %d of the %d legal moves", fen, legal, n);
}

/* Compares fast and reference move lists at every node down to depth; returns nodes visited. */
static inline uint64_t tu_compare_tree(Position *p, int depth) {
    Move a[MAX_MOVES], b[MAX_MOVES];
    int na = pos_legal_moves(p, a), nb = pos_reference_moves(p, b);
    qsort(a, (size_t)na, sizeof *a, move_cmp);
    qsort(b, (size_t)nb, sizeof *b, move_cmp);
    if (na != nb || memcmp(a, b, (size_t)na * sizeof *a) != 0) {
        char fen[512];
        pos_to_fen(p, fen, sizeof fen);
        cr_assert_fail("fast and reference generators differ (%d vs %d moves) at %s", na, nb, fen);
    }
    cr_assert_eq((uint64_t)na, p->var->ops->count_legal(p), "count_legal differs from gen_legal");
    tu_check_move_set(p);
    if (strcmp(p->var->name, "chess") == 0) tu_check_pseudo_set(p, a, na);
    uint64_t nodes = 1;
    if (depth <= 1) return nodes;
    for (int i = 0; i < na; i++) {
        pos_make(p, a[i]);
        nodes += tu_compare_tree(p, depth - 1);
        pos_unmake(p);
    }
    return nodes;
}

/* Compares fast and reference move lists at every node down to depth below each position
 * of tests/data/FILE (lines without a variant opcode use `variant`), and fails unless the
 * walk went below the roots. Returns the nodes compared. */
static inline uint64_t tu_compare_suite(const char *file, const char *variant, int depth) {
    int n;
    EpdEntry *e = tu_load_epd(file, &n);
    Position *p = malloc(sizeof *p);
    uint64_t nodes = 0;
    for (int i = 0; i < n; i++) {
        tu_fen(p, variant_by_name(e[i].variant[0] ? e[i].variant : variant), e[i].fen);
        nodes += tu_compare_tree(p, depth);
    }
    cr_assert_gt(nodes, (uint64_t)n, "%s: no node below the %d roots was compared", file, n);
    free(p);
    free(e);
    return nodes;
}

/* Deterministic generator for random walks. */
/* Runs a shell command; returns its exit status (-1 if it did not exit), its stdout in
 * out (stderr too if the command redirects it). */
static inline int tu_run_sh(const char *cmd, char *out, size_t n) {
    FILE *f = popen(cmd, "r");
    cr_assert_not_null(f);
    size_t len = fread(out, 1, n - 1, f);
    out[len] = 0;
    int st = pclose(f);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static inline uint64_t tu_rand(uint64_t *s) { return splitmix64_next(s); }

/* Plays a seeded random game of up to plies moves checking, at every position: the
 * consistency of all representations, the FEN round trip, the notation round trip of
 * every legal move, and that unmake restores the exact state. Returns positions seen. */
static inline int tu_random_walk(const Variant *v, const char *fen, uint64_t seed, int plies) {
    static Position p, before;
    char why[256], f1[512], f2[512];
    tu_fen(&p, v, fen);
    int seen = 0;
    for (int ply = 0; ply < plies; ply++) {
        cr_assert(pos_is_consistent(&p, why, sizeof why), "inconsistent after %d plies: %s", ply,
                  why);
        seen++;
        Move list[MAX_MOVES], fast[MAX_MOVES], sorted[MAX_MOVES];
        int n = pos_legal_moves(&p, list);
        pos_to_fen(&p, f1, sizeof f1);
        tu_check_move_set(&p); /* the lazy set picks gen_fast's moves in its order */
        /* the fast generator (VariantOps.gen_fast) gives the same moves in its own order */
        int nf = pos_legal_moves_fast(&p, fast);
        cr_assert_eq(nf, n, "%s: %d moves from gen_fast, %d from gen_legal", f1, nf, n);
        memcpy(sorted, list, (size_t)n * sizeof *list);
        qsort(sorted, (size_t)n, sizeof *sorted, move_cmp);
        qsort(fast, (size_t)n, sizeof *fast, move_cmp);
        cr_assert(memcmp(sorted, fast, (size_t)n * sizeof *fast) == 0,
                  "%s: gen_fast's moves differ", f1);
        Position *q = malloc(sizeof *q);
        CvError err = {{0}};
        cr_assert(pos_from_fen(q, v, f1, &err), "own FEN rejected: %s: %s", f1, err.msg);
        pos_to_fen(q, f2, sizeof f2);
        cr_assert_str_eq(f1, f2, "FEN round trip");
        cr_assert_eq(q->key, p.key, "key differs after FEN round trip of %s", f1);
        free(q);
        for (int i = 0; i < n; i++) {
            char ms[24];
            move_to_str(&p, list[i], ms);
            Move back = move_from_str(&p, ms, &err);
            cr_assert_eq(back, list[i], "notation round trip of %s at %s", ms, f1);
        }
        if (!n) break;
        Move m = list[tu_rand(&seed) % (uint64_t)n];
        memcpy(&before, &p, offsetof(Position, stack));
        pos_make(&p, m);
        cr_assert(pos_is_consistent(&p, why, sizeof why), "inconsistent after make: %s", why);
        pos_unmake(&p);
        cr_assert(memcmp(&before, &p, offsetof(Position, stack)) == 0, "unmake did not restore %s",
                  f1);
        pos_make(&p, m);
        if (p.ply >= MAX_GAME_PLY - 1) break;
    }
    return seen;
}

/* Pieces of colour c on the board (hand pieces not counted), any board size. */
static inline int tu_pieces_of(const Position *p, int c) {
    int n = 0;
    for (int t = 1; t <= p->var->npt; t++) n += p->count[PC_MAKE(c, t)];
    return n;
}

/* Checks the capture generator at p against its definition: exactly the legal moves that
 * lower the enemy's piece count (each made and counted), in the legal generator's order.
 * Fills caps and returns how many there are; `label` names the position in messages. */
static inline int tu_check_captures(Position *p, const char *label, Move *caps) {
    Move list[MAX_MOVES], want[MAX_MOVES];
    int n = pos_legal_moves(p, list), w = 0, them = p->side ^ 1;
    int before = tu_pieces_of(p, them);
    for (int i = 0; i < n; i++) {
        pos_make(p, list[i]);
        if (tu_pieces_of(p, them) < before) want[w++] = list[i];
        pos_unmake(p);
    }
    int k = pos_legal_captures(p, caps);
    char fen[512];
    pos_to_fen(p, fen, sizeof fen);
    cr_assert_eq(k, w, "%s %s: %d captures generated, %d remove a piece", label, fen, k, w);
    cr_assert(memcmp(caps, want, (size_t)k * sizeof *caps) == 0,
              "%s %s: captures differ or come in another order", label, fen);
    return k;
}

/* Colour-flipped FEN of an orthodox-shaped 8x8 FEN: ranks mirrored, case swapped, side,
 * castling letters and e.p. square mirrored. */
static inline void tu_flip_fen(const char *fen, char *out) {
    char board[256], side[8], castle[32], ep[8], rest[64] = "";
    int k = sscanf(fen, "%255s %7s %31s %7s %63[^\n]", board, side, castle, ep, rest);
    cr_assert_geq(k, 4);
    char *ranks[16];
    int nr = 0;
    for (char *t = strtok(board, "/"); t; t = strtok(NULL, "/")) ranks[nr++] = t;
    out[0] = 0;
    for (int i = nr - 1; i >= 0; i--) {
        for (char *c = ranks[i]; *c; c++)
            *c = isupper((unsigned char)*c) ? (char)tolower(*c) : (char)toupper(*c);
        strcat(out, ranks[i]);
        if (i) strcat(out, "/");
    }
    strcat(out, side[0] == 'w' ? " b " : " w ");
    char c2[32] = "";
    if (strcmp(castle, "-") == 0) strcpy(c2, "-");
    else {
        for (char *c = castle; *c; c++)
            if (islower((unsigned char)*c)) {
                size_t l = strlen(c2);
                c2[l] = (char)toupper(*c);
                c2[l + 1] = 0;
            }
        for (char *c = castle; *c; c++)
            if (isupper((unsigned char)*c)) {
                size_t l = strlen(c2);
                c2[l] = (char)tolower(*c);
                c2[l + 1] = 0;
            }
    }
    strcat(out, c2);
    if (strcmp(ep, "-") == 0) strcat(out, " -");
    else {
        char e[16];
        snprintf(e, sizeof e, " %c%d", ep[0], nr + 1 - atoi(ep + 1));
        strcat(out, e);
    }
    if (rest[0]) {
        strcat(out, " ");
        strcat(out, rest);
    }
}

#endif
