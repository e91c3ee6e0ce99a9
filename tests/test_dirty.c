/* test_dirty.c - the DirtyPiece of every move's undo record describes the move whole: at
 * every node of perft trees from the EPD suites of all four variants, removing its pieces
 * from a copy of the board before the move and putting them on their new squares, and
 * applying its hand and pool changes, gives exactly the board, hands and pool after it. */
#include "test_util.h"

TestSuite(dirty, .init = engine_init, .timeout = 300);

/* The pieces, hands and pool of a position: what a DirtyPiece changes. */
typedef struct Holdings {
    uint8_t board[MAX_SQ];
    uint8_t hand[2][MAX_PT];
    uint8_t pool[2][MAX_PT];
} Holdings;

/* How often each kind of change was seen, so a suite that never exercises one fails. */
typedef struct Seen {
    uint64_t moves, nulls, captures, multi, promotions, castles, ep, switches, drops;
    uint64_t pool_gain, pool_use, hand_use, stay; /* stay: a capture and return to `from` */
} Seen;

static void holdings_of(const Position *p, Holdings *h) {
    memcpy(h->board, p->board, sizeof h->board);
    memcpy(h->hand, p->hand, sizeof h->hand);
    memcpy(h->pool, p->pool, sizeof h->pool);
}

/* Applies d to h as its comment in chessvar.h says: every removal first, then every
 * placement; fails the test on an entry that does not fit the board it is applied to. */
static void dirty_apply(const DirtyPiece *d, Holdings *h, int nsq, const char *what) {
    cr_assert_leq(d->n, MAX_DIRTY, "%s: %d board entries", what, d->n);
    cr_assert_leq(d->nhand, 4, "%s: %d hand entries", what, d->nhand);
    for (int i = 0; i < d->n; i++) {
        int pc = d->d[i].pc, from = d->d[i].from, to = d->d[i].to;
        cr_assert(pc != PC_EMPTY && (from != NO_SQ || to != NO_SQ), "%s: empty entry %d", what, i);
        cr_assert(from == NO_SQ || from < nsq, "%s: entry %d from square %d", what, i, from);
        cr_assert(to == NO_SQ || to < nsq, "%s: entry %d to square %d", what, i, to);
        if (from == NO_SQ) continue;
        cr_assert_eq(h->board[from], pc,
                     "%s: entry %d removes piece %d from square %d, which holds %d", what, i, pc,
                     from, h->board[from]);
        h->board[from] = PC_EMPTY;
    }
    for (int i = 0; i < d->n; i++) {
        int pc = d->d[i].pc, to = d->d[i].to;
        if (to == NO_SQ) continue;
        cr_assert_eq(h->board[to], PC_EMPTY, "%s: entry %d puts piece %d on occupied square %d",
                     what, i, pc, to);
        h->board[to] = (uint8_t)pc;
    }
    for (int i = 0; i < d->nhand; i++) {
        int c = d->h[i].color, t = d->h[i].type, which = d->h[i].which;
        cr_assert(c < 2 && t > 0 && t < MAX_PT && (which == DIRTY_HAND || which == DIRTY_POOL),
                  "%s: bad hand entry %d", what, i);
        uint8_t *cell = which == DIRTY_HAND ? &h->hand[c][t] : &h->pool[c][t];
        *cell = (uint8_t)(*cell + d->h[i].delta);
    }
}

/* Counts the kinds of change of move m (made; its record on top of p's stack). */
static void seen_add(Seen *s, const Position *p, Move m) {
    const DirtyPiece *d = &p->stack[p->ply - 1].dirty;
    int removed = 0;
    for (int i = 0; i < d->n; i++) {
        int pc = d->d[i].pc;
        if (d->d[i].to == NO_SQ && PC_COLOR(pc) == p->side) removed++; /* the mover's enemy */
    }
    s->moves++;
    s->captures += removed > 0;
    s->multi += removed > 1;
    s->promotions += MOVE_PROMO(m) && MOVE_KIND(m) != MK_DROP;
    s->castles += MOVE_KIND(m) == MK_CASTLE;
    s->ep += MOVE_KIND(m) == MK_EP;
    s->switches += MOVE_KIND(m) == MK_SWITCH;
    s->drops += MOVE_KIND(m) == MK_DROP;
    s->stay += MOVE_KIND(m) != MK_DROP && MOVE_FROM(m) == MOVE_TO(m);
    for (int i = 0; i < d->nhand; i++) {
        s->pool_gain += d->h[i].which == DIRTY_POOL && d->h[i].delta > 0;
        s->pool_use += d->h[i].which == DIRTY_POOL && d->h[i].delta < 0;
        s->hand_use += d->h[i].which == DIRTY_HAND && d->h[i].delta < 0;
    }
}

/* Checks the DirtyPiece of every move at every node of the tree of depth below p, and of
 * a null move wherever the side to move is not in check. */
static void check_tree(Position *p, int depth, Seen *s, const char *fen) {
    if (depth <= 0) return;
    Move *list = malloc(MAX_MOVES * sizeof *list);
    int n = pos_legal_moves(p, list);
    Holdings before, after;
    holdings_of(p, &before);
    for (int i = 0; i < n; i++) {
        char ms[24], what[600];
        move_to_str(p, list[i], ms);
        snprintf(what, sizeof what, "%s, move %s (ply %d)", fen, ms, p->ply);
        pos_make(p, list[i]);
        Holdings applied = before;
        dirty_apply(&p->stack[p->ply - 1].dirty, &applied, p->nsq, what);
        holdings_of(p, &after);
        cr_assert(memcmp(applied.board, after.board, sizeof after.board) == 0,
                  "%s: the board after the move differs from the DirtyPiece's", what);
        cr_assert(memcmp(applied.hand, after.hand, sizeof after.hand) == 0,
                  "%s: the hands after the move differ from the DirtyPiece's", what);
        cr_assert(memcmp(applied.pool, after.pool, sizeof after.pool) == 0,
                  "%s: the pool after the move differs from the DirtyPiece's", what);
        seen_add(s, p, list[i]);
        check_tree(p, depth - 1, s, fen);
        pos_unmake(p);
    }
    if (n > 0 && !pos_in_check(p)) {
        pos_make_null(p);
        const DirtyPiece *d = &p->stack[p->ply - 1].dirty;
        cr_assert(d->n == 0 && d->nhand == 0, "%s: a null move's DirtyPiece is not empty", fen);
        s->nulls++;
        pos_unmake_null(p);
    }
    free(list);
}

/* Walks every line of tests/data/FILE (lines without a variant opcode are `variant`) to
 * the deepest listed depth up to 4 whose count is at most max_nodes. */
static Seen check_suite(const char *file, const char *variant, uint64_t max_nodes) {
    int n;
    EpdEntry *e = tu_load_epd(file, &n);
    Position *p = malloc(sizeof *p);
    Seen s = {0};
    for (int i = 0; i < n; i++) {
        const Variant *v = variant_by_name(e[i].variant[0] ? e[i].variant : variant);
        cr_assert_not_null(v, "%s: unknown variant", file);
        int depth = 1;
        for (int k = 0; k < e[i].ndepth; k++)
            if (e[i].depth[k] <= 4 && e[i].nodes[k] <= max_nodes && e[i].depth[k] > depth)
                depth = e[i].depth[k];
        tu_fen(p, v, e[i].fen);
        check_tree(p, depth, &s, e[i].fen);
    }
    free(p);
    free(e);
    return s;
}

Test(dirty, chess) {
    Seen s = check_suite("chess.epd", "chess", 150000);
    cr_assert(s.moves > 1000000, "only %llu moves checked", (unsigned long long)s.moves);
    cr_assert(s.captures && s.promotions && s.castles && s.ep && s.nulls);
}

Test(dirty, switching) {
    Seen s = check_suite("switching.epd", "switching", 300000);
    cr_assert(s.moves > 500000, "only %llu moves checked", (unsigned long long)s.moves);
    cr_assert(s.captures && s.promotions && s.castles && s.ep && s.nulls);
    cr_assert(s.switches, "no switch seen");
}

Test(dirty, superchess) {
    Seen s = check_suite("superchess.epd", "superchess", 200000);
    cr_assert(s.moves > 300000, "only %llu moves checked", (unsigned long long)s.moves);
    cr_assert(s.captures && s.promotions && s.castles && s.ep && s.nulls);
    cr_assert(s.drops && s.hand_use, "no drop seen");
    cr_assert(s.pool_gain && s.pool_use, "the pool never changed (%llu, %llu)",
              (unsigned long long)s.pool_gain, (unsigned long long)s.pool_use);
}

Test(dirty, supremo) {
    Seen s = check_suite("supremo.epd", "supremo", 100000);
    cr_assert(s.moves > 100000, "only %llu moves checked", (unsigned long long)s.moves);
    cr_assert(s.captures && s.promotions && s.nulls);
    cr_assert(s.multi, "no move removed two or more pieces (double capture, blast)");
    cr_assert(s.stay, "no capture-and-return seen");
}

Test(dirty, cannon10) {
    Seen s = check_suite("supremo_cannon10.epd", "cannon10", 150000);
    cr_assert(s.moves > 500000, "only %llu moves checked", (unsigned long long)s.moves);
    cr_assert(s.captures && s.nulls);
}
