/* check.c - the rule-consistency checker: every invariant of the report verified on a
 * position, and seeded games that visit many positions. */
#include "check.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* Bytes of a Position that are its current state (everything before the undo stack). */
#define CHECK_STATE_BYTES offsetof(Position, stack)

/* Scratch space of one check_position call, on the heap (positions are large). */
typedef struct CheckScratch {
    Position snap;  /* state before a make, for the unmake comparison */
    Position other; /* FEN round trip, colour flip and side-swapped copies */
    Move fast[MAX_MOVES], ref[MAX_MOVES], tmp[MAX_MOVES];
} CheckScratch;

/* Whether two move lists hold the same set (sorted copies compared; duplicates count). */
static bool check_same_moves(const Move *a, int na, const Move *b, int nb, Move *tmp) {
    if (na != nb) return false;
    Move *sb = tmp + 0;
    memcpy(sb, b, sizeof(Move) * (size_t)nb);
    Move sa[MAX_MOVES];
    memcpy(sa, a, sizeof(Move) * (size_t)na);
    qsort(sa, (size_t)na, sizeof(Move), move_cmp);
    qsort(sb, (size_t)nb, sizeof(Move), move_cmp);
    return memcmp(sa, sb, sizeof(Move) * (size_t)na) == 0;
}

/* Number of pieces of colour c whose type has any of the flags. */
static int check_count_flag(const Position *p, int c, uint32_t flags) {
    int n = 0;
    for (int t = 1; t <= p->var->npt; t++)
        if (p->var->pieces[t].flags & flags) n += p->count[PC_MAKE(c, t)];
    return n;
}

/* ---------------------------------------------------------------- colour flip */

/* Swaps the case of every letter of s in place. */
static void check_swap_case(char *s) {
    for (; *s; s++)
        *s = isupper((unsigned char)*s) ? (char)tolower((unsigned char)*s)
                                        : (char)toupper((unsigned char)*s);
}

/* Appends the tokens of `field` (comma separated if it has a comma, else one letter
 * each) with the case of their first letter swapped (`K` <-> `k`, `Ea` <-> `ea`), White's
 * (upper-case) tokens first, to out. */
static void check_flip_tokens(const char *field, bool commas, char *out, size_t n) {
    char tok[32][16];
    int nt = 0;
    for (const char *s = field; *s && nt < 32;) {
        size_t len = commas ? strcspn(s, ",") : 1;
        if (len >= sizeof tok[0]) len = sizeof tok[0] - 1;
        memcpy(tok[nt], s, len);
        tok[nt][len] = 0;
        char first[2] = {tok[nt][0], 0};
        check_swap_case(first);
        tok[nt++][0] = first[0];
        s += len;
        if (*s == ',') s++;
    }
    size_t used = strlen(out);
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < nt; i++) {
            bool upper = isupper((unsigned char)tok[i][0]) != 0;
            if (upper != (pass == 0)) continue;
            used += (size_t)snprintf(
                out + used, used < n ? n - used : 0, "%s%s",
                commas && used && out[used - 1] != ' ' && out[used - 1] != '[' ? "," : "", tok[i]);
        }
}

/* Splits s in place at every sep into at most max non-empty parts (reentrant, unlike
 * strtok: games run on several threads); returns the count. */
static int check_split(char *s, char sep, char **parts, int max) {
    int n = 0;
    while (*s && n < max) {
        while (*s == sep) s++;
        if (!*s) break;
        parts[n++] = s;
        while (*s && *s != sep) s++;
        if (*s) *s++ = 0;
    }
    return n;
}

/* Whether the variant writes castling rights as comma-separated tokens (seen in the
 * castling field of one of its start positions, e.g. `Ka,Kh,ka,kh`). */
static bool check_castling_tokens(const Variant *v) {
    const char *fens[5] = {v->start_fen};
    for (int i = 0; i < 4; i++) fens[i + 1] = v->starts[i].name ? v->starts[i].fen : NULL;
    for (int i = 0; i < 5; i++) {
        const char *f = fens[i] ? strchr(fens[i], ' ') : NULL;
        if (f && (f = strchr(f + 1, ' ')) != NULL && strcspn(f + 1, " ") > strcspn(f + 1, ","))
            return true;
    }
    return false;
}

/* Writes the colour-flipped FEN of pos (ranks mirrored, colours and side swapped, hand,
 * castling, e.p. and pool mirrored) into out; works for every variant's FEN shape. */
void check_flip_fen(const Position *pos, char *out, size_t n) {
    char fen[512], *field[8] = {0};
    pos_to_fen(pos, fen, sizeof fen);
    int nf = check_split(fen, ' ', field, 8);
    out[0] = 0;
    if (nf < 4) return;
    char *hand = strchr(field[0], '[');
    if (hand) *hand++ = 0;
    char *ranks[16];
    int nr = check_split(field[0], '/', ranks, 16);
    size_t used = 0;
    for (int i = nr - 1; i >= 0; i--) {
        check_swap_case(ranks[i]);
        used += (size_t)snprintf(out + used, n - used, "%s%s", ranks[i], i ? "/" : "");
    }
    if (hand) {
        char *end = strchr(hand, ']');
        if (end) *end = 0;
        strncat(out, "[", n - strlen(out) - 1);
        check_flip_tokens(hand, false, out, n);
        strncat(out, "]", n - strlen(out) - 1);
    }
    strncat(out, field[1][0] == 'w' ? " b " : " w ", n - strlen(out) - 1);
    if (strcmp(field[2], "-") == 0) strncat(out, "-", n - strlen(out) - 1);
    else check_flip_tokens(field[2], check_castling_tokens(pos->var), out, n);
    used = strlen(out);
    if (strcmp(field[3], "-") == 0) snprintf(out + used, n - used, " -");
    else snprintf(out + used, n - used, " %c%d", field[3][0], pos->height + 1 - atoi(field[3] + 1));
    for (int i = 4; i < nf && i < 6; i++) {
        used = strlen(out);
        snprintf(out + used, n - used, " %s", field[i]);
    }
    if (nf > 6) {
        char *slash = strchr(field[6], '/');
        if (slash) {
            *slash = 0;
            check_swap_case(field[6]);
            check_swap_case(slash + 1);
            used = strlen(out);
            snprintf(out + used, n - used, " %s/%s", slash + 1, field[6]);
        }
    }
}

/* ---------------------------------------------------------------- invariants */

/* Variant rules across one move from b to a: royals are never removed, uncapturable
 * pieces (Protectors) never disappear, reserves never return to the hand, the promotion
 * pool plus the pieces of that type on the board is constant, and a switch keeps the
 * occupancy and exchanges the two pieces. Fills why and returns false on a breach. */
static bool check_variant_rules(const Position *b, const Position *a, Move m, char *why, size_t n) {
    const Variant *v = a->var;
    for (int c = 0; c < 2; c++) {
        if (check_count_flag(a, c, PF_ROYAL) != check_count_flag(b, c, PF_ROYAL)) {
            snprintf(why, n, "%s's royal count changed from %d to %d", c ? "black" : "white",
                     check_count_flag(b, c, PF_ROYAL), check_count_flag(a, c, PF_ROYAL));
            return false;
        }
        if (check_count_flag(a, c, PF_UNCAPTURABLE) < check_count_flag(b, c, PF_UNCAPTURABLE)) {
            snprintf(why, n, "an uncapturable %s piece was removed", c ? "black" : "white");
            return false;
        }
        for (int t = 1; t <= v->npt; t++)
            if (a->hand[c][t] > b->hand[c][t]) {
                snprintf(why, n, "%s's hand gained a %c", c ? "black" : "white",
                         v->pieces[t].letter);
                return false;
            }
        if (v->rules & RULE_POOL)
            for (const uint8_t *t = v->promo_types; *t; t++) {
                int pc = PC_MAKE(c, *t);
                if (a->pool[c][*t] + a->count[pc] != b->pool[c][*t] + b->count[pc]) {
                    snprintf(why, n, "%s pool + board of %c went from %d to %d",
                             c ? "black" : "white", v->pieces[*t].letter,
                             b->pool[c][*t] + b->count[pc], a->pool[c][*t] + a->count[pc]);
                    return false;
                }
            }
    }
    if (MOVE_KIND(m) == MK_SWITCH) {
        for (int s = 0; s < a->nsq; s++)
            if (!a->board[s] != !b->board[s] ||
                (a->board[s] && PC_COLOR(a->board[s]) != PC_COLOR(b->board[s]))) {
                snprintf(why, n, "switch changed the occupancy of square %d", s);
                return false;
            }
        int f = MOVE_FROM(m), t = MOVE_TO(m);
        bool swapped = (a->board[f] == b->board[t] || MOVE_PROMO(m)) &&
                       (a->board[t] == b->board[f] || MOVE_PROMO(m));
        if (!swapped || (MOVE_PROMO(m) && PC_TYPE(a->board[f]) != MOVE_PROMO(m) &&
                         PC_TYPE(a->board[t]) != MOVE_PROMO(m))) {
            snprintf(why, n, "switch did not exchange the two pieces");
            return false;
        }
    }
    return true;
}

/* Puts piece pc on the occupied square sq of a scratch copy, keeping mailbox, counts and
 * bitboards in step (the key is not needed there). */
static void check_replace(Position *q, int sq, int pc) {
    int old = q->board[sq];
    q->count[old]--;
    q->count[pc]++;
    q->board[sq] = (uint8_t)pc;
    if (q->wide) {
        Bitboard128 b = (Bitboard128)1 << sq;
        q->bb.b10.type[PC_TYPE(old)] &= ~b;
        q->bb.b10.type[PC_TYPE(pc)] |= b;
    } else {
        Bitboard b = (Bitboard)1 << sq;
        q->bb.b8.type[PC_TYPE(old)] &= ~b;
        q->bb.b8.type[PC_TYPE(pc)] |= b;
    }
}

/* A piece type with no special property (no flags), 0 if the variant has none. */
static int check_plain_type(const Variant *v) {
    for (int t = 1; t <= v->npt; t++)
        if (!v->pieces[t].flags && v->pieces[t].ncomp) return t;
    return 0;
}

/* Whether some reference move of the opponent of colour c can capture one of c's royals:
 * in a copy of pos with the opponent to move, c's royals are replaced by plain
 * capturable pieces (generators never capture a royal) and the opponent's reference
 * moves are searched for one that removes such a piece. */
static bool check_royal_capturable(const Position *pos, int c, Position *q, Move *list) {
    int plain = check_plain_type(pos->var);
    if (!plain) return false;
    pos_copy(q, pos);
    q->side = (uint8_t)(c ^ 1);
    q->ep = NO_SQ;
    bool royal_sq[MAX_SQ] = {false};
    for (int s = 0; s < q->nsq; s++) {
        int pc = q->board[s];
        if (pc && PC_COLOR(pc) == c && (q->var->pieces[PC_TYPE(pc)].flags & PF_ROYAL)) {
            royal_sq[s] = true;
            check_replace(q, s, PC_MAKE(c, plain));
        }
    }
    int n = pos_reference_moves(q, list);
    for (int i = 0; i < n; i++) {
        pos_make(q, list[i]);
        bool hit = false;
        for (int s = 0; s < q->nsq && !hit; s++)
            hit = royal_sq[s] && q->board[s] != PC_MAKE(c, plain);
        pos_unmake(q);
        if (hit) return true;
    }
    return false;
}

/* Records the outcome of one invariant; returns 1 on failure, 0 on a pass. */
static int check_outcome(VariantReport *vr, int inv, bool ok, Position *pos, Move m,
                         const char *why) {
    if (ok) {
        report_pass(vr, inv);
        return 0;
    }
    report_fail(vr, inv, pos, m, why, NULL, 0, NULL, 0);
    return 1;
}

/* The invariants of the moves of pos: notation round trip, and make/unmake of each
 * restoring the state, keeping the representations consistent and the variant rules. */
static int check_moves(VariantReport *vr, Position *pos, CheckScratch *w, int n) {
    int fails = 0;
    char why[256], text[32];
    for (int i = 0; i < n; i++) {
        Move m = w->fast[i];
        CvError err = {{0}};
        move_to_str(pos, m, text);
        Move back = move_from_str(pos, text, &err);
        snprintf(why, sizeof why, "'%s' parsed back as %s", text,
                 back == MOVE_NONE ? err.msg : "another move");
        fails += check_outcome(vr, INV_NOTATION, back == m, pos, m, why);

        memcpy(&w->snap, pos, CHECK_STATE_BYTES);
        pos_make(pos, m);
        bool ok = pos_is_consistent(pos, why, sizeof why);
        if (ok) {
            report_pass(vr, INV_CONSISTENT);
        } else {
            pos_unmake(pos);
            fails += check_outcome(vr, INV_CONSISTENT, false, pos, m, why);
            pos_make(pos, m);
        }
        uint64_t key = pos_compute_key(pos);
        bool key_ok = key == pos->key;
        snprintf(why, sizeof why, "after the move: incremental key %016llx, recomputed %016llx",
                 (unsigned long long)pos->key, (unsigned long long)key);
        char vwhy[256] = "";
        bool rules_ok = check_variant_rules(&w->snap, pos, m, vwhy, sizeof vwhy);
        bool mover_safe = !pos->var->ops->royal_attacked(pos, w->snap.side);
        pos_unmake(pos);
        fails += check_outcome(vr, INV_KEY, key_ok, pos, m, why);
        fails += check_outcome(vr, INV_VARIANT, rules_ok, pos, m, vwhy);
        fails += check_outcome(vr, INV_CHECK, mover_safe, pos, m,
                               "a legal move leaves the mover's royal attacked");
        bool restored = memcmp(&w->snap, pos, CHECK_STATE_BYTES) == 0;
        fails += check_outcome(vr, INV_UNMAKE, restored, pos, m,
                               "unmake did not restore the position byte for byte");
        if (!restored) memcpy(pos, &w->snap, CHECK_STATE_BYTES);
    }
    return fails;
}

/* Verifies every invariant on one position and on each of its legal moves. */
int check_position(VariantReport *vr, Position *pos) {
    CheckScratch *w = malloc(sizeof *w);
    if (!w) return 0;
    int fails = 0;
    char why[1280], fen[512], fen2[512];
    vr->positions++;

    bool ok = pos_is_consistent(pos, why, sizeof why);
    fails += check_outcome(vr, INV_CONSISTENT, ok, pos, MOVE_NONE, why);
    uint64_t key = pos_compute_key(pos);
    snprintf(why, sizeof why, "incremental key %016llx, recomputed %016llx",
             (unsigned long long)pos->key, (unsigned long long)key);
    fails += check_outcome(vr, INV_KEY, key == pos->key, pos, MOVE_NONE, why);

    int nf = pos_legal_moves(pos, w->fast), nr = pos_reference_moves(pos, w->ref);
    if (check_same_moves(w->fast, nf, w->ref, nr, w->tmp)) {
        report_pass(vr, INV_MOVEGEN);
    } else {
        snprintf(why, sizeof why, "fast generator gives %d moves, reference %d", nf, nr);
        report_fail(vr, INV_MOVEGEN, pos, MOVE_NONE, why, w->fast, nf, w->ref, nr);
        fails++;
    }
    uint64_t bulk = pos->var->ops->count_legal(pos);
    snprintf(why, sizeof why, "count_legal %llu, gen_legal %d", (unsigned long long)bulk, nf);
    fails += check_outcome(vr, INV_COUNT, bulk == (uint64_t)nf, pos, MOVE_NONE, why);

    pos_to_fen(pos, fen, sizeof fen);
    CvError err = {{0}};
    if (!pos_from_fen(&w->other, pos->var, fen, &err)) {
        snprintf(why, sizeof why, "own FEN rejected: %s", err.msg);
        fails += check_outcome(vr, INV_FEN, false, pos, MOVE_NONE, why);
    } else {
        pos_to_fen(&w->other, fen2, sizeof fen2);
        snprintf(why, sizeof why, "FEN read back as %s (key %016llx vs %016llx)", fen2,
                 (unsigned long long)w->other.key, (unsigned long long)pos->key);
        fails += check_outcome(vr, INV_FEN, strcmp(fen, fen2) == 0 && w->other.key == pos->key, pos,
                               MOVE_NONE, why);
    }

    int us = pos->side;
    bool check = pos_in_check(pos), attacked = pos->var->ops->royal_attacked(pos, us);
    bool them = pos->var->ops->royal_attacked(pos, us ^ 1);
    snprintf(why, sizeof why,
             "in_check %d, royal_attacked(side to move) %d, royal_attacked(other side) %d", check,
             attacked, them);
    fails += check_outcome(vr, INV_CHECK, check == attacked && !them, pos, MOVE_NONE, why);
    if (check_royal_capturable(pos, us, &w->other, w->tmp)) {
        fails += check_outcome(vr, INV_CAPTURE, attacked, pos, MOVE_NONE,
                               "an enemy move can capture a royal but royal_attacked says no");
    }

    check_flip_fen(pos, fen2, sizeof fen2);
    if (!pos_from_fen(&w->other, pos->var, fen2, &err)) {
        snprintf(why, sizeof why, "flipped FEN %s rejected: %s", fen2, err.msg);
        fails += check_outcome(vr, INV_FLIP, false, pos, MOVE_NONE, why);
    } else {
        int nflip = pos_legal_moves(&w->other, w->tmp);
        snprintf(why, sizeof why, "%d legal moves, %d in the flipped position %s", nf, nflip, fen2);
        fails += check_outcome(vr, INV_FLIP, nflip == nf, pos, MOVE_NONE, why);
    }

    fails += check_moves(vr, pos, w, nf);
    free(w);
    return fails;
}

/* ---------------------------------------------------------------- games */

/* Material of colour c in centipawns (piece values of the variant). */
static int check_material(const Position *p, int c) {
    int sum = 0;
    for (int t = 1; t <= p->var->npt; t++) sum += p->count[PC_MAKE(c, t)] * p->var->pieces[t].value;
    return sum;
}

/* A move that wins the most enemy material at once (ties broken at random): games that
 * capture, promote and blast more often than random ones. */
static Move check_greedy_move(Position *p, const Move *list, int n, uint64_t *rng) {
    int best = -1, them = p->side ^ 1;
    Move pick = list[0];
    int before = check_material(p, them);
    for (int i = 0; i < n; i++) {
        pos_make(p, list[i]);
        int gain = (before - check_material(p, them)) * 16 + (int)(splitmix64_next(rng) & 15);
        pos_unmake(p);
        if (gain > best) best = gain, pick = list[i];
    }
    return pick;
}

/* The special rule m exercises: 1 castling, 2 e.p., 3 drop, 4 switch, 5 promotion,
 * 6 multi-capture move; 0 for an ordinary move. */
static int check_special_kind(Move m) {
    switch (MOVE_KIND(m)) {
    case MK_CASTLE: return 1;
    case MK_EP: return 2;
    case MK_DROP: return 3;
    case MK_SWITCH: return 4;
    case MK_MULTI: return 6;
    default: return MOVE_PROMO(m) ? 5 : 0;
    }
}

/* Half the time a special-rule move (first a rule at random among those the position
 * offers, then a move of it), else a random move: games that castle, promote, drop and
 * switch far more often than random ones, without one frequent rule crowding out the rest. */
static Move check_special_move(const Move *list, int n, uint64_t *rng) {
    int count[7] = {0}, kinds = 0;
    for (int i = 0; i < n; i++) count[check_special_kind(list[i])]++;
    for (int k = 1; k < 7; k++) kinds += count[k] > 0;
    if (kinds && (splitmix64_next(rng) & 1)) {
        int pick = (int)(splitmix64_next(rng) % (uint64_t)kinds), kind = 1;
        for (; kind < 7; kind++)
            if (count[kind] && pick-- == 0) break;
        int nth = (int)(splitmix64_next(rng) % (uint64_t)count[kind]);
        for (int i = 0; i < n; i++)
            if (check_special_kind(list[i]) == kind && nth-- == 0) return list[i];
    }
    return list[splitmix64_next(rng) % (uint64_t)n];
}

/* Plays one seeded checking game, verifying the positions it visits. */
int check_game(VariantReport *vr, const Variant *v, const char *fen, uint64_t seed, int game,
               const CheckParams *cp) {
    if (!fen) {
        const char *starts[5] = {v->start_fen};
        int ns = 1;
        for (int i = 0; i < 4 && v->starts[i].name; i++)
            if (v->starts[i].fen && strcmp(v->starts[i].fen, v->start_fen) != 0)
                starts[ns++] = v->starts[i].fen;
        fen = starts[(game / 3) % ns]; /* every start meets every move style */
    }
    Position *p = malloc(sizeof *p);
    Move *list = malloc(sizeof(Move) * MAX_MOVES);
    CvError err = {{0}};
    if (!p || !list || !pos_from_fen(p, v, fen, &err)) {
        free(p);
        free(list);
        return -1;
    }
    uint64_t rng = seed ^ ((uint64_t)game * 0xD1B54A32D192ED03ULL);
    splitmix64_next(&rng);
    int style = cp->style < 0 ? game % 3 : cp->style;
    int sample = cp->sample > 0 ? cp->sample : 1, fails = 0;
    vr->games++;
    for (int ply = 0;; ply++) {
        if (ply % sample == 0) fails += check_position(vr, p);
        int n = pos_legal_moves(p, list);
        if (!n || ply >= cp->max_plies || p->halfmove >= 100 || p->ply >= MAX_GAME_PLY - 1) break;
        Move m = style == CHECK_GREEDY    ? check_greedy_move(p, list, n, &rng)
                 : style == CHECK_SPECIAL ? check_special_move(list, n, &rng)
                                          : list[splitmix64_next(&rng) % (uint64_t)n];
        pos_make(p, m);
        report_note_move(vr, p);
    }
    free(p);
    free(list);
    return fails;
}

/* Replays a finished game into the report: events of every move, invariants on a sample. */
int check_replay(VariantReport *vr, const Variant *v, const char *fen, const Move *moves,
                 int nmoves, int sample) {
    Position *p = malloc(sizeof *p);
    Move *list = malloc(sizeof(Move) * MAX_MOVES);
    CvError err = {{0}};
    int fails = 0;
    if (!p || !list || !pos_from_fen(p, v, fen, &err)) fails = -1;
    else vr->games++;
    for (int i = 0; fails >= 0 && i <= nmoves; i++) {
        if (sample > 0 && i % sample == 0) fails += check_position(vr, p);
        if (i == nmoves || p->ply >= MAX_GAME_PLY - 1) break;
        int n = pos_legal_moves(p, list), legal = 0;
        for (int k = 0; k < n; k++) legal |= list[k] == moves[i];
        if (!legal) {
            fails = -1;
            break;
        }
        pos_make(p, moves[i]);
        report_note_move(vr, p);
    }
    free(p);
    free(list);
    return fails;
}
