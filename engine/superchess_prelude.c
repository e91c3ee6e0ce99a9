/* superchess_prelude.c - the Superchess prelude (spec section 2): starting from the
 * orthodox array, White substitutes on the king's wing and Black is given the mirror,
 * Black substitutes on the queen's wing and White is given the mirror. A random drawer
 * for self-play and a checker that tells whether a FEN is such an array. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "position.h"
#include "superchess.h"

/* The orthodox first rank, a to h, as piece ids; the second rank holds pawns. */
static const uint8_t orthodox_rank[8] = {SC_R, SC_N, SC_B, SC_Q, SC_K, SC_B, SC_N, SC_R};

/* The prelude wings: 0 = files e-h (White chooses), 1 = files a-d (Black chooses). */
static int wing_of_file(int f) { return f >= 4 ? 0 : 1; }

/* Fills err and returns false. */
static bool prelude_fail(CvError *err, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    if (err) vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
    return false;
}

/* Whether type t may replace what stands on (file f, home rank if !pawn_rank, else the
 * pawn rank): a pawn square takes H or T; a piece square A W M F D G O; the d-file also
 * E; the King's square only a non-monarch. */
static bool prelude_eligible(int t, int f, bool pawn_rank) {
    if (pawn_rank) return t == SC_H || t == SC_T;
    switch (t) {
    case SC_A:
    case SC_W:
    case SC_M:
    case SC_F:
    case SC_D:
    case SC_G:
    case SC_O: return true;
    case SC_E: return f == 3;
    default: return false;
    }
}

/* The prelude defaults of the spec. */
void prelude_defaults(PreludeParams *pp) {
    memset(pp, 0, sizeof *pp);
    strcpy(pp->pool, "EAWMFDGOHHTTTT");
    pp->min = 1;
    pp->max = 0;
    strcpy(pp->reserves, "LX");
}

/* Reads the pool and reserve letters of pp into per-type counts; names a bad letter. */
static bool prelude_counts(const PreludeParams *pp, const Variant *v, int pool[MAX_PT],
                           int res[MAX_PT], CvError *err) {
    memset(pool, 0, MAX_PT * sizeof *pool);
    memset(res, 0, MAX_PT * sizeof *res);
    for (const char *s = pp->pool; *s; s++) {
        int t = (unsigned char)*s < 128 ? v->type_of_letter[(unsigned char)*s] : 0;
        bool usable = false;
        for (int f = 0; f < 8; f++)
            usable = usable || prelude_eligible(t, f, false) || prelude_eligible(t, f, true);
        if (!t || !usable)
            return prelude_fail(
                err, "prelude pool letter '%c' is not a substitute piece (E A W M F D G O H T)",
                *s);
        pool[t]++;
    }
    for (const char *s = pp->reserves; *s; s++) {
        int t = (unsigned char)*s < 128 ? v->type_of_letter[(unsigned char)*s] : 0;
        if (t != SC_L && t != SC_X)
            return prelude_fail(err, "reserve letter '%c' is not L or X", *s);
        if (++res[t] > 1)
            return prelude_fail(err, "reserve letter '%c' repeated (a side holds at most one)", *s);
    }
    if (pp->min < 0 || (pp->max && pp->max < pp->min) || pp->min > 8)
        return prelude_fail(err,
                            "substitutions per phase: min %d, max %d is not a range within 0..8",
                            pp->min, pp->max);
    return true;
}

/* The position of a finished prelude (step 6): White's ranks 1-2 as ids (a1..h1, a2..h2),
 * the mirror for Black, the reserves in hand, White to move, no e.p. square; every castling
 * token is offered and the FEN reader keeps those whose monarch and rook are at home. */
static bool prelude_position(const Variant *v, const uint8_t white[16], const int res[MAX_PT],
                             Position *pos, CvError *err) {
    char fen[160];
    int len = 0;
    for (int r = 7; r >= 0; r--) {
        if (r >= 2 && r <= 5) {
            fen[len++] = '8';
        } else {
            for (int f = 0; f < 8; f++) {
                char l = v->pieces[white[(r <= 1 ? r : 7 - r) * 8 + f]].letter;
                fen[len++] = r <= 1 ? l : (char)(l - 'A' + 'a');
            }
        }
        fen[len++] = r ? '/' : '[';
    }
    for (int c = 0; c < 2; c++)
        for (int t = 1; t < MAX_PT; t++)
            if (res[t])
                fen[len++] =
                    c == WHITE ? v->pieces[t].letter : (char)(v->pieces[t].letter - 'A' + 'a');
    snprintf(fen + len, sizeof fen - (size_t)len, "] w Ka,Kh,Ea,Eh,ka,kh,ea,eh - 0 1");
    return pos_from_fen(pos, v, fen, err);
}

/* A uniform draw in [0, n) from a splitmix64 stream. */
static uint64_t prelude_rand(uint64_t *s, uint64_t n) { return splitmix64_next(s) % n; }

/* One choosing phase on White's ranks 1-2 of the given wing: draw the count, the squares,
 * then each type among the eligible ones left in the pool. False if it cannot complete. */
static bool prelude_draw_phase(const PreludeParams *pp, int wing, int pool[MAX_PT],
                               uint8_t white[16], uint64_t *rng) {
    int squares[8], ns = 0, left = 0;
    for (int i = 0; i < 16; i++)
        if (wing_of_file(i % 8) == wing) squares[ns++] = i;
    for (int t = 1; t < MAX_PT; t++) left += pool[t];
    int max = pp->max ? pp->max : 8;
    if (max > left) max = left;
    if (max > ns) max = ns;
    if (max < pp->min) return false;
    int count = pp->min + (int)prelude_rand(rng, (uint64_t)(max - pp->min + 1));
    for (int i = 0; i < count; i++) {
        int j = i + (int)prelude_rand(rng, (uint64_t)(ns - i));
        int sq = squares[j];
        squares[j] = squares[i];
        squares[i] = sq;
        int elig[MAX_PT], ne = 0;
        for (int t = 1; t < MAX_PT; t++)
            if (pool[t] && prelude_eligible(t, sq % 8, sq >= 8)) elig[ne++] = t;
        if (!ne) return false;
        int t = elig[prelude_rand(rng, (uint64_t)ne)];
        pool[t]--;
        white[sq] = (uint8_t)t;
    }
    return true;
}

/* Draws random preludes until one completes and validates. */
bool prelude_random(const Variant *v, const PreludeParams *pp, uint64_t seed, char *fen, size_t n,
                    CvError *err) {
    if (!v->prelude) return prelude_fail(err, "variant '%s' has no prelude", v->name);
    int pool0[MAX_PT], res[MAX_PT];
    if (!prelude_counts(pp, v, pool0, res, err)) return false;
    uint64_t rng = seed;
    for (int attempt = 0; attempt < 100000; attempt++) {
        uint8_t white[16];
        int pool[MAX_PT];
        memcpy(pool, pool0, sizeof pool);
        for (int f = 0; f < 8; f++) {
            white[f] = orthodox_rank[f];
            white[8 + f] = SC_P;
        }
        if (!prelude_draw_phase(pp, 0, pool, white, &rng) ||
            !prelude_draw_phase(pp, 1, pool, white, &rng))
            continue;
        bool monarch = false;
        for (int f = 0; f < 8; f++) monarch = monarch || white[f] == SC_K || white[f] == SC_E;
        if (!monarch) continue;
        Position *pos = malloc(sizeof *pos);
        if (!pos) return prelude_fail(err, "out of memory");
        bool ok = prelude_position(v, white, res, pos, err);
        if (ok) pos_to_fen(pos, fen, n);
        free(pos);
        return ok;
    }
    return prelude_fail(err, "the prelude parameters admit no array (100000 draws failed)");
}

/* The prelude rules fen breaks, checked on pos (fen read), into err; true if none. */
static bool prelude_check_position(const PreludeParams *pp, const Variant *v, const Position *pos,
                                   CvError *err) {
    int pool[MAX_PT], res[MAX_PT];
    if (!prelude_counts(pp, v, pool, res, err)) return false;
    char name[4], other[4];
    for (int s = 16; s < 48; s++)
        if (pos->board[s]) {
            sq_to_str(pos, s, name);
            return prelude_fail(
                err, "square %s is not empty: a prelude array fills only ranks 1-2 and 7-8", name);
        }
    uint8_t white[16];
    int used[MAX_PT] = {0}, per_wing[2] = {0, 0};
    for (int i = 0; i < 16; i++) {
        int mirror = (7 - i / 8) * 8 + i % 8;
        int pw = pos->board[i], pb = pos->board[mirror];
        sq_to_str(pos, i, name);
        sq_to_str(pos, mirror, other);
        if (!pw || PC_COLOR(pw) != WHITE)
            return prelude_fail(err, "square %s does not hold a white piece", name);
        if (!pb || PC_COLOR(pb) != BLACK)
            return prelude_fail(err, "square %s does not hold a black piece", other);
        if (PC_TYPE(pb) != PC_TYPE(pw))
            return prelude_fail(err, "%s holds '%c' but the prelude mirrors %s '%c' there", other,
                                v->pieces[PC_TYPE(pb)].letter - 'A' + 'a', name,
                                v->pieces[PC_TYPE(pw)].letter);
        int t = PC_TYPE(pw), orig = i < 8 ? orthodox_rank[i] : SC_P;
        white[i] = (uint8_t)t;
        if (t == orig) continue;
        if (!prelude_eligible(t, i % 8, i >= 8))
            return prelude_fail(err, "'%c' may not replace the %s on %s/%s", v->pieces[t].letter,
                                v->pieces[orig].name, name, other);
        if (++used[t] > pool[t])
            return prelude_fail(err, "'%c' is used %d times per side, the prelude pool holds %d",
                                v->pieces[t].letter, used[t], pool[t]);
        per_wing[wing_of_file(i % 8)]++;
    }
    for (int w = 0; w < 2; w++) {
        const char *phase = w == 0 ? "White's phase (files e-h)" : "Black's phase (files a-d)";
        if (per_wing[w] < pp->min)
            return prelude_fail(err, "%s makes %d substitutions, at least %d required", phase,
                                per_wing[w], pp->min);
        if (pp->max && per_wing[w] > pp->max)
            return prelude_fail(err, "%s makes %d substitutions, at most %d allowed", phase,
                                per_wing[w], pp->max);
    }
    for (int c = 0; c < 2; c++)
        for (int t = 1; t < MAX_PT; t++)
            if (pos->hand[c][t] != res[t])
                return prelude_fail(err, "holdings: %s should hold exactly the reserves '%s'",
                                    c == WHITE ? "white" : "black", pp->reserves);
    if (pos->side != WHITE) return prelude_fail(err, "a prelude array has White to move");
    if (pos->ep != NO_SQ) return prelude_fail(err, "a prelude array has no e.p. square");
    Position *expect = malloc(sizeof *expect);
    if (!expect) return prelude_fail(err, "out of memory");
    if (!prelude_position(v, white, res, expect, err)) {
        free(expect);
        return false;
    }
    bool same = pos->castle == expect->castle;
    if (!same) {
        char got[48], want[48];
        v->ops->fen_format_castling(pos, got);
        v->ops->fen_format_castling(expect, want);
        prelude_fail(err, "castling field is '%s', the prelude gives '%s'", got, want);
    }
    free(expect);
    if (!same) return false;
    if (!superchess_pool_is_derived(pos))
        return prelude_fail(err, "a prelude array has the derived pool (no pool field)");
    return true;
}

/* Checks fen against the prelude: a mirrored array whose substitutions are eligible,
 * within the pool and the per-phase range, with the finish of step 6. */
bool prelude_check(const Variant *v, const PreludeParams *pp, const char *fen, CvError *err) {
    if (!v->prelude) return prelude_fail(err, "variant '%s' has no prelude", v->name);
    Position *pos = malloc(sizeof *pos);
    if (!pos) return prelude_fail(err, "out of memory");
    CvError ferr;
    bool ok = pos_from_fen(pos, v, fen, &ferr) ? prelude_check_position(pp, v, pos, err)
                                               : prelude_fail(err, "%s", ferr.msg);
    free(pos);
    return ok;
}

/* A random prelude array with the default parameters: the random start of a game. */
bool superchess_random_start(const Variant *v, uint64_t draw, char *fen, size_t n, CvError *err) {
    PreludeParams pp;
    prelude_defaults(&pp);
    return prelude_random(v, &pp, draw, fen, n, err);
}
