/* supremo_gen.c - the fast Supremo generator on 128-bit bitboards: the table-driven
 * attack test, pseudo-legal generation from the tables, and the legality filter that
 * tests (make, attack test, unmake) only the moves that touch a square the King depends
 * on. */
#include "lines10.h"
#include "supremo.h"

/* ------------------------------------------------------------------ move lists */

/* Destination sets per intermediate-capture square, for walks and double leaps. */
typedef struct MidSets {
    int n;
    uint8_t mid[16];
    u128 dest[16];
} MidSets;

/* Adds destinations reached through an intermediate capture on mid. */
static void midsets_add(MidSets *ms, int mid, u128 dests) {
    for (int i = 0; i < ms->n; i++)
        if (ms->mid[i] == mid) {
            ms->dest[i] |= dests;
            return;
        }
    ms->mid[ms->n] = (uint8_t)mid;
    ms->dest[ms->n++] = dests;
}

/* ------------------------------------------------------------------ fast generator */

/* One capturing walk on bitboards: occ is the occupancy without the walker, capt the
 * squares it may capture; collects final squares by intermediate-capture square. */
static void fast_walk(const SupTables *T, u128 occ, u128 capt, int origin, int cur, int left,
                      int mid, bool captured, u128 *quiet, MidSets *ms) {
    if (left == 0) {
        if (cur == origin && !captured) return;
        if (mid == NO_SQ) *quiet |= sup_bit(cur);
        else midsets_add(ms, mid, sup_bit(cur));
        return;
    }
    for (int d = 0; d < 8; d++) {
        int nb = T->over[cur][d];
        if (nb == NO_SQ) continue;
        for (int jump = 0; jump < 2; jump++) {
            int x = nb;
            if (jump) {
                if (!(occ & sup_bit(nb)) || T->land[cur][d] == NO_SQ) break;
                x = T->land[cur][d];
            }
            u128 b = sup_bit(x);
            if (!(occ & b)) {
                fast_walk(T, occ, capt, origin, x, left - 1, mid, captured, quiet, ms);
            } else if (capt & b) {
                bool inter = left > 1;
                fast_walk(T, occ & ~b, capt & ~b, origin, x, left - 1, inter ? x : mid,
                          captured || inter, quiet, ms);
            }
        }
    }
}

/* Squares reached by one K or jK step, onto an empty square, from every square of x. */
static inline u128 fast_quiet_step(const SupTables *T, u128 x, u128 occ) {
    return sup_step_any(T, x, occ) & T->full & ~occ;
}

/* Squares of `targets` (on the board) reached by one K or jK step (over a square of occ)
 * from any square of x. Exact for a single walker standing on any square of x: its own
 * square is never jumped or landed on. */
static inline u128 fast_step(const SupTables *T, u128 x, u128 occ, u128 targets) {
    return sup_step_any(T, x, occ) & targets;
}

/* Whether a capturing walk of `left` steps from cur can land on k and still complete. */
static bool fast_walk_hits(const SupTables *T, u128 occ, u128 capt, int origin, int cur, int left,
                           int k, bool hit, bool captured) {
    if (left == 0) return hit && (cur != origin || captured);
    for (int d = 0; d < 8; d++) {
        int nb = T->over[cur][d];
        if (nb == NO_SQ) continue;
        for (int jump = 0; jump < 2; jump++) {
            int x = nb;
            if (jump) {
                if (!(occ & sup_bit(nb)) || T->land[cur][d] == NO_SQ) break;
                x = T->land[cur][d];
            }
            u128 b = sup_bit(x);
            if (!hit && !(T->box[2 * (left - 1) < 9 ? 2 * (left - 1) : 9][k] & b)) continue;
            if (!(occ & b)) {
                if (fast_walk_hits(T, occ, capt, origin, x, left - 1, k, hit, captured))
                    return true;
            } else if (capt & b) {
                if (fast_walk_hits(T, occ & ~b, capt & ~b, origin, x, left - 1, k, hit || x == k,
                                   captured || left > 1))
                    return true;
            }
        }
    }
    return false;
}

/* Whether side `by` has a pseudo-legal move that captures the piece on sq (table driven). */
bool supremo_attacked_fast(const Position *pos, int sq, int by) {
    const Variant *v = pos->var;
    const SupTables *T = v->tables;
    u128 xs = pos->bb.b10.color[by];
    u128 occ = xs | pos->bb.b10.color[by ^ 1];
    u128 line_pieces = 0;
    for (int i = 0; i < T->n_leap_types; i++) {
        int t = T->leap_types[i];
        if (T->leap_from[t][by][sq] & pos->bb.b10.type[t] & xs) return true;
    }
    for (int i = 0; i < T->n_line_types; i++) line_pieces |= pos->bb.b10.type[T->line_types[i]];
    line_pieces &= xs;
    if (T->lines[sq] & line_pieces) {
        for (int d = 0; d < 8; d++) {
            u128 blk = T->ray[d][sq] & occ;
            if (!(T->ray[d][sq] & line_pieces)) continue;
            uint8_t bit = (uint8_t)(1u << (d ^ 4));
            int b1 = d < 4 ? bb128_lsb(blk) : bb128_msb(blk);
            int pc = pos->board[b1], t1 = PC_TYPE(pc);
            if (PC_COLOR(pc) == by && (T->ride_cp[t1] & bit) &&
                (T->box[T->ride_range[t1][d ^ 4]][sq] & sup_bit(b1)))
                return true;
            u128 blk2 = T->ray[d][b1] & occ;
            if (!blk2) continue;
            int b2 = d < 4 ? bb128_lsb(blk2) : bb128_msb(blk2);
            int pc2 = pos->board[b2];
            if (PC_COLOR(pc2) == by && (T->hop_cp[PC_TYPE(pc2)] & bit)) return true;
        }
    }
    u128 uncap = 0;
    bool uncap_done = false;
    for (int i = 0; i < T->n_near_types; i++) {
        int t = T->near_types[i];
        u128 mine = pos->bb.b10.type[t] & xs;
        if (!mine) continue;
        uint32_t fl = T->flags[t];
        u128 near = mine & T->box[T->reach[t]][sq];
        if (!near) continue;
        if (!uncap_done) {
            uncap = sup_uncapturable(pos, T);
            uncap_done = true;
        }
        if (T->dleap_mode[t] & MM_CAPTURE) {
            if (T->dleap_base[t][sq] & near) return true;
            u128 pass = (T->full & ~occ) | (pos->bb.b10.color[by ^ 1] & ~uncap);
            u128 mids = T->dleap_base[t][sq] & pass;
            while (mids) {
                int m = bb128_pop_lsb(&mids);
                if (T->dleap_base[t][m] & near) return true;
            }
        }
        if (fl & PF_BLAST) {
            u128 b = near;
            while (b) {
                int s = bb128_pop_lsb(&b);
                u128 landings = T->leap_mv[t][by][s] & ~occ;
                for (uint8_t dirs = T->jstep_mv[t]; dirs; dirs &= (uint8_t)(dirs - 1)) {
                    int dir = __builtin_ctz(dirs);
                    int o = T->over[s][dir], l = T->land[s][dir];
                    if (o != NO_SQ && l != NO_SQ && (occ & sup_bit(o)) && !(occ & sup_bit(l)))
                        landings |= sup_bit(l);
                }
                if (landings & T->kmask[sq]) return true;
            }
        }
        if (T->walk_range[t] == 2 && (T->walk_mode[t] & MM_CAPTURE)) {
            /* step 1 onto sq always completes (step 2 can return); otherwise step 2 lands
             * on sq from a step-1 square, the walker's own squares aside the board as it was */
            u128 b = near, capt = pos->bb.b10.color[by ^ 1] & ~uncap;
            while (b) {
                int s = bb128_pop_lsb(&b);
                u128 occ0 = occ & ~sup_bit(s), empty0 = T->full & ~occ0;
                u128 land1 = fast_step(T, sup_bit(s), occ0, empty0 | capt);
                if ((land1 & sup_bit(sq)) || fast_step(T, land1, occ0, sup_bit(sq))) return true;
            }
        } else if (T->walk_range[t] && (T->walk_mode[t] & MM_CAPTURE)) {
            u128 b = near, capt = pos->bb.b10.color[by ^ 1] & ~uncap;
            while (b) {
                int s = bb128_pop_lsb(&b);
                if (fast_walk_hits(T, occ & ~sup_bit(s), capt, s, s, T->walk_range[t], sq, false,
                                   false))
                    return true;
            }
        }
        if (T->nslow[t] || T->jstep_cp[t]) {
            if (supremo_attacked_reference(pos, sq, by)) return true;
        }
    }
    return false;
}

/* Whether colour c's royal piece is attacked. */
bool supremo_royal_attacked(const Position *pos, int c) {
    const SupTables *T = pos->var->tables;
    int k = sup_royal_sq(pos, T, c);
    if (k == NO_SQ) return false;
    return T->lean ? supremo_lean_attacked(pos, k, c ^ 1) : supremo_attacked_fast(pos, k, c ^ 1);
}

/* Whether the side to move is in check. */
bool supremo_in_check(const Position *pos) { return supremo_royal_attacked(pos, pos->side); }

/* State of one fast generation: where moves go (or only their number), and for legal
 * generation the King, whether it is in check, and the squares a move must not touch to be
 * accepted without the make -> attack test -> unmake check. */
typedef struct GenCtx {
    Position *pos;
    const SupTables *T;
    Move *list; /* NULL: count only */
    int n;
    bool legal;
    bool check;
    int us, king;
    u128 sens;        /* squares whose change may expose the King */
    u128 blast_risky; /* landings next to an enemy on a sensitive square */
    bool caps;        /* captures only (quiescence): moves that remove an enemy piece */
    bool risk_set;    /* T->lean: risk filled (at the first risky move) */
    SupRisk risk;     /* T->lean: the moves the lean count takes or drops without a test */
    u128 cap_to;      /* then: the capturable enemies */
    u128 cap_blast;   /* and the landings next to one of them */
} GenCtx;

/* Splits the risky moves from `from` to dests (through mid) as the lean count would (see
 * SupRisk): into *test those to be tested, into *legal those legal without a test; the rest
 * are not legal. */
static void lean_split(GenCtx *g, int from, int mid, u128 dests, u128 *legal, u128 *test) {
    if (!g->risk_set) {
        supremo_lean_risk(g->pos, g->king, g->check, &g->risk);
        g->risk_set = true;
    }
    const SupRisk *r = &g->risk;
    const int t = PC_TYPE(g->pos->board[from]);
    const u128 fb = sup_bit(from), mb = mid != NO_SQ ? sup_bit(mid) : 0, touched = fb | mb;
    *legal = 0;
    *test = dests;
    if (t == SUP_KING) return;
    if (r->check) {
        if (!(fb & r->vac) && !(mb & r->chk_mid))
            *test = dests & (r->chk_to | (t == SUP_TERMINATOR ? r->chk_blast : 0));
        return;
    }
    if (!(touched & r->vac)) {
        *test = dests & (r->fill | (t == SUP_TERMINATOR ? r->blast : 0));
        *legal = dests & ~*test;
    } else if (t != SUP_PAWN && t != SUP_TERMINATOR && mid == NO_SQ && !(fb & r->vac_other)) {
        if (r->lpinned & fb) dests &= r->lallow[from];
        *test = dests & r->fill;
        *legal = dests & ~*test;
    }
}

/* Whether m leaves the mover's King unattacked: the lean test where the pieces are Supremo's,
 * else make, attack test, unmake. */
static bool gen_move_ok(GenCtx *g, Move m) {
    if (g->T->lean) return supremo_lean_move_safe(g->pos, m, g->king);
    Position *pos = g->pos;
    supremo_make(pos, m);
    int k = sup_royal_sq(pos, g->T, g->us);
    bool ok = k == NO_SQ || !supremo_attacked_fast(pos, k, g->us ^ 1);
    supremo_unmake(pos);
    return ok;
}

/* Adds (or counts) one move, testing it when it is risky. */
static inline void gen_add(GenCtx *g, Move m, bool risky) {
    if (risky && !gen_move_ok(g, m)) return;
    if (g->list) g->list[g->n] = m;
    g->n++;
}

/* Adds the moves from `from` to every square of dests (one per promotion type inside pz);
 * in legal mode, moves that touch no sensitive square are taken without a test. */
static inline __attribute__((always_inline)) void gen_emit(GenCtx *g, int from, u128 dests, int mid,
                                                           int kind, u128 pz, bool blast) {
    if (g->caps && mid == NO_SQ) /* a move past a victim (mid) always captures it */
        dests &= g->cap_to | (blast ? g->cap_blast & ~pz : 0); /* a promotion does not blast */
    if (!dests) return;
    const Variant *v = g->pos->var;
    u128 risky = 0;
    if (g->legal) {
        u128 touched = sup_bit(from) | (mid != NO_SQ ? sup_bit(mid) : 0);
        if (g->check || from == g->king || (touched & g->sens)) risky = dests;
        else risky = dests & (g->sens | (blast ? g->blast_risky : 0));
    }
    u128 safe = dests & ~risky;
    if (!g->list) {
        g->n += bb128_popcount(safe & ~pz) + g->T->npromo * bb128_popcount(safe & pz);
    } else {
        u128 plain = safe & ~pz, promos = safe & pz;
        /* lowest square first, walked as two 64-bit halves (cheaper than a 128-bit set's
         * lowest bit) */
        const Move base = MOVE_MAKE(from, 0, mid, 0, kind);
        for (uint64_t w = (uint64_t)plain; w; w &= w - 1)
            g->list[g->n++] = base | (Move)__builtin_ctzll(w) << 7;
        for (uint64_t w = (uint64_t)(plain >> 64); w; w &= w - 1)
            g->list[g->n++] = base | (Move)(64 + __builtin_ctzll(w)) << 7;
        while (promos) {
            int to = bb128_pop_lsb(&promos);
            for (int i = 0; v->promo_types[i]; i++)
                g->list[g->n++] = MOVE_MAKE(from, to, mid, v->promo_types[i], kind);
        }
    }
    /* the risky ones in order, each tested, or (Supremo's pieces) as the lean count decides */
    u128 legal = 0, test = risky;
    if (risky && g->T->lean) lean_split(g, from, mid, risky, &legal, &test);
    while (risky) {
        int to = bb128_pop_lsb(&risky);
        u128 tb = sup_bit(to);
        if (!((legal | test) & tb)) continue;
        if (!(pz & tb)) {
            gen_add(g, MOVE_MAKE(from, to, mid, 0, kind), !(legal & tb));
            continue;
        }
        for (int i = 0; v->promo_types[i]; i++)
            gen_add(g, MOVE_MAKE(from, to, mid, v->promo_types[i], kind), !(legal & tb));
    }
}

/* Destinations of type t's slide and hop components along direction dir from s: the
 * empty squares before the first piece and that piece if capturable (slide), the empty
 * squares beyond it up to the next piece and that piece if capturable (hop). On the rays
 * that grow the square index the pieces are isolated with arithmetic, on the others with
 * the highest set bit. */
static inline u128 fast_line(const SupTables *T, int t, int dir, int s, u128 occ, u128 capt) {
    uint8_t bit = (uint8_t)(1u << dir);
    bool hop = (T->hop_mv[t] | T->hop_cp[t]) & bit;
    u128 ray = T->ray[dir][s], blk = ray & occ;
    u128 slide = ray, first = 0, hopq = 0, second = 0;
    if (blk) {
        if (dir < 4) {
            first = blk & (~blk + 1);
            u128 below = first - 1, rest = blk ^ first, beyond = ray & ~below & ~first;
            slide = ray & below;
            second = rest & (~rest + 1);
            hopq = second ? beyond & (second - 1) : beyond;
        } else {
            int b1 = bb128_msb(blk);
            first = sup_bit(b1);
            slide = ray & ~T->ray[dir][b1] & ~first;
            if (hop) {
                u128 beyond = T->ray[dir][b1], blk2 = beyond & occ;
                hopq = beyond;
                if (blk2) {
                    int b2 = bb128_msb(blk2);
                    second = sup_bit(b2);
                    hopq = beyond & ~T->ray[dir][b2] & ~second;
                }
            }
        }
    }
    u128 d = 0;
    if (T->ride_mv[t] & bit) d |= slide;
    if (T->ride_cp[t] & bit) d |= first & capt;
    if (T->ride_range[t][dir] < 9) d &= T->box[T->ride_range[t][dir]][s];
    if (hop) {
        if (T->hop_mv[t] & bit) d |= hopq;
        if (T->hop_cp[t] & bit) d |= second & capt;
    }
    return d;
}

/* Which fields of a line10_table entry (slide, first, hop, second) type t uses on each
 * line kind, in both directions of the line, as the folded table of those fields. Line
 * lookup needs the 10x10 board, unlimited rides, and every field used in both directions
 * or neither. */
void supremo_lines_prepare(SupTables *T, const Variant *v, int t) {
    const unsigned f[4] = {T->ride_mv[t], T->ride_cp[t], T->hop_mv[t], T->hop_cp[t]};
    bool ok = v->width == 10 && v->height == 10 && (f[0] | f[1] | f[2] | f[3]);
    for (int dir = 0; dir < 8; dir++) ok &= T->ride_range[t][dir] == 9;
    T->line_kinds[t] = 0;
    for (int k = 0; k < 4; k++) {
        unsigned fields = 0;
        for (int i = 0; i < 4; i++) {
            unsigned pos = (f[i] >> k) & 1, neg = (f[i] >> (k + 4)) & 1;
            ok &= pos == neg;
            if (pos) fields |= 1u << i;
        }
        T->line_fold[t][k] = NULL;
        if (ok && fields) {
            T->line_fold[t][k] = (const uint16_t(*)[1024])line10_fold_build(fields);
            ok &= T->line_fold[t][k] != NULL;
            T->line_kinds[t] |= (uint8_t)(1u << k);
        }
    }
    T->by_lines[t] = (uint8_t)(ok ? (T->has_leap[t] || T->nslow[t] || T->jstep_mv[t] ||
                                             T->jstep_cp[t] || T->dleap_mode[t] || T->walk_range[t]
                                         ? 1
                                         : 2)
                                  : 0);
}

void supremo_setwise_prepare(SupTables *T, const Variant *v, int t) {
    const PieceDef *pd = &v->pieces[t];
    T->sw_n[t] = 0;
    if (v->width != 10 || v->height != 10 || !T->has_leap[t] || T->nslow[t] ||
        (T->ride_mv[t] | T->ride_cp[t] | T->hop_mv[t] | T->hop_cp[t] | T->jstep_mv[t] |
         T->jstep_cp[t] | T->dleap_mode[t] | T->walk_range[t]) ||
        (T->flags[t] & PF_BLAST))
        return;
    int n = 0, df[16], dr[16];
    uint8_t mode[16];
    for (int i = 0; i < pd->ncomp; i++) {
        const MoveComp *mc = &pd->comp[i];
        if (mc->kind != MC_LEAP) return;
        int m = (pd->flags & PF_NO_CAPTURE) ? (mc->mode & MM_MOVE) : mc->mode, j = 0;
        while (j < n && (df[j] != mc->df || dr[j] != mc->dr)) j++;
        if (j == n) {
            if (n == 16) return;
            df[n] = mc->df, dr[n] = mc->dr, mode[n++] = 0;
        }
        mode[j] |= (uint8_t)m;
    }
    for (int j = 0; j < n; j++) {
        T->sw_mode[t][j] = mode[j];
        for (int c = 0; c < 2; c++) {
            int r_ = (pd->flags & PF_ORIENTED) && c == BLACK ? -dr[j] : dr[j];
            T->sw_shift[t][c][j] = (int8_t)(r_ * 10 + df[j]);
            T->sw_src[t][c][j] = 0;
            for (int s = 0; s < 100; s++)
                if (sup_on(s % 10 + df[j], s / 10 + r_, 10, 10)) T->sw_src[t][c][j] |= sup_bit(s);
        }
    }
    T->sw_n[t] = (uint8_t)n;
}

/* Counts the moves of type t's pieces in `pieces` set-wise (see SupTables.sw_n); the
 * pieces must be ones whose moves gen_emit would not all test (not the King, not on a
 * sensitive square, not in check). Moves landing on sensitive squares are tested one by
 * one as gen_emit does. */
static void fast_count_setwise(GenCtx *g, int t, u128 pieces, u128 empty, u128 capt, u128 pz) {
    const SupTables *T = g->T;
    const Variant *v = g->pos->var;
    const int us = g->pos->side;
    for (int j = 0; j < T->sw_n[t]; j++) {
        u128 src = pieces & T->sw_src[t][us][j];
        if (!src) continue;
        int sh = T->sw_shift[t][us][j];
        u128 to_set = sh >= 0 ? src << sh : src >> -sh;
        to_set &= ((T->sw_mode[t][j] & MM_MOVE) ? empty : 0) |
                  ((T->sw_mode[t][j] & MM_CAPTURE) ? capt : 0);
        u128 risky = g->legal ? to_set & g->sens : 0, safe = to_set & ~risky;
        g->n += bb128_popcount(safe & ~pz) + T->npromo * bb128_popcount(safe & pz);
        while (risky) {
            int to = bb128_pop_lsb(&risky), from = to - sh;
            if (!(pz & sup_bit(to))) {
                gen_add(g, MOVE_MAKE(from, to, NO_SQ, 0, MK_NORMAL), true);
                continue;
            }
            for (int i = 0; v->promo_types[i]; i++)
                gen_add(g, MOVE_MAKE(from, to, NO_SQ, v->promo_types[i], MK_NORMAL), true);
        }
    }
}

/* The same destinations over all of type t's lines at once, by line-occupancy lookup
 * (lines10.h) in the folded tables of supremo_lines_prepare; for unlimited rides and hops
 * on the 10x10 board. */
static inline u128 fast_lines(const SupTables *T, int t, int s, u128 occ, u128 capt) {
    u128 d = 0;
    for (unsigned kinds = T->line_kinds[t]; kinds; kinds &= kinds - 1) {
        int k = __builtin_ctz(kinds), id = line10_id[k][s];
        unsigned m = T->line_fold[t][k][line10_pos[k][s]][line10_occ(id, occ)];
#if !CHESSVAR_PEXT
        m &= (1u << line10[id].len) - 1; /* PDEP drops the bits past the line's end */
#endif
        d |= line10_squares(id, m);
    }
    return d & (~occ | capt);
}

/* Generates the moves of the side to move from the tables, each (from, to, mid, promo)
 * once: leaps, conditional leaps, slides and hops, jK steps, double leaps and walks. */
static void fast_generate(GenCtx *g) {
    const Position *pos = g->pos;
    const Variant *v = pos->var;
    const SupTables *T = g->T;
    int us = pos->side, them = us ^ 1;
    u128 own = pos->bb.b10.color[us], enemy = pos->bb.b10.color[them];
    u128 occ = own | enemy, empty = T->full & ~occ;
    u128 capt_all = enemy & ~sup_uncapturable(pos, T);
    for (int t = 1; t <= v->npt; t++) {
        u128 pieces = pos->bb.b10.type[t] & own;
        if (!pieces) continue;
        uint32_t fl = T->flags[t];
        u128 capt = (fl & PF_NO_CAPTURE) ? 0 : capt_all;
        bool blast = fl & PF_BLAST;
        int kind = blast ? MK_MULTI : MK_NORMAL;
        u128 pz = (fl & PF_PROMOTES) ? T->last_rank[us] : 0;
        uint8_t line_dirs = T->ride_mv[t] | T->ride_cp[t] | T->hop_mv[t] | T->hop_cp[t];
        uint8_t jdirs = T->jstep_mv[t] | T->jstep_cp[t];
        const int by_lines = T->by_lines[t];
        if (T->sw_n[t] && !g->list && !(g->legal && g->check)) {
            /* count mode: the pieces whose moves need no blanket test go set-wise */
            u128 apart = g->legal ? pieces & (g->sens | sup_bit(g->king)) : 0;
            fast_count_setwise(g, t, pieces & ~apart, empty, capt, pz);
            pieces = apart;
        }
        if (by_lines == 2) {
            /* only rides and hops: one line lookup per piece */
            while (pieces) {
                int s = bb128_pop_lsb(&pieces);
                gen_emit(g, s, fast_lines(T, t, s, occ, capt), NO_SQ, kind, pz, blast);
            }
            continue;
        }
        while (pieces) {
            int s = bb128_pop_lsb(&pieces);
            u128 d =
                T->has_leap[t] ? (T->leap_mv[t][us][s] & empty) | (T->leap_cp[t][us][s] & capt) : 0;
            for (int i = 0; i < T->nslow[t]; i++) {
                const MoveComp *mc = &v->pieces[t].comp[T->slow[t][i]];
                int sign = (fl & PF_ORIENTED) && us == BLACK ? -1 : 1;
                int f = s % 10, r = s / 10;
                if (mc->cond == MCOND_START_RANK && r != v->pawn_start_rank[us]) continue;
                if (mc->cond == MCOND_FIRST_TWO && r != (us == WHITE ? 0 : 9) &&
                    r != (us == WHITE ? 1 : 8))
                    continue;
                if (!sup_on(f + mc->df, r + sign * mc->dr, 10, 10)) continue;
                bool open = true;
                for (int k = 0; k < mc->nlame; k++) {
                    int lf = f + mc->lame[k][0], lr = r + sign * mc->lame[k][1];
                    open &= sup_on(lf, lr, 10, 10) && !(occ & sup_bit(lr * 10 + lf));
                }
                if (!open) continue;
                u128 b = sup_bit((r + sign * mc->dr) * 10 + f + mc->df);
                if (mc->mode & MM_MOVE) d |= b & empty;
                if (mc->mode & MM_CAPTURE) d |= b & capt;
            }
            if (by_lines) d |= fast_lines(T, t, s, occ, capt);
            else
                for (uint8_t dirs = line_dirs; dirs; dirs &= (uint8_t)(dirs - 1))
                    d |= fast_line(T, t, __builtin_ctz(dirs), s, occ, capt);
            for (uint8_t dirs = jdirs; dirs; dirs &= (uint8_t)(dirs - 1)) {
                int dir = __builtin_ctz(dirs);
                int o = T->over[s][dir], l = T->land[s][dir];
                if (o == NO_SQ || l == NO_SQ || !(occ & sup_bit(o))) continue;
                if (T->jstep_mv[t] & (1u << dir)) d |= sup_bit(l) & empty;
                if (T->jstep_cp[t] & (1u << dir)) d |= sup_bit(l) & capt;
            }
            gen_emit(g, s, d, NO_SQ, kind, pz, blast);
            if (T->dleap_mode[t]) {
                u128 dcapt = (T->dleap_mode[t] & MM_CAPTURE) ? capt : 0;
                u128 firsts = T->dleap_base[t][s] & (empty | dcapt), quiet = 0;
                u128 empty_after = empty | sup_bit(s);
                while (firsts) {
                    int m = bb128_pop_lsb(&firsts);
                    u128 second = T->dleap_base[t][m] & (empty_after | dcapt);
                    if (empty & sup_bit(m)) quiet |= second & ~sup_bit(s);
                    else gen_emit(g, s, second, m, MK_MULTI, pz, blast);
                }
                gen_emit(g, s, quiet & ~d, NO_SQ, kind, pz, blast);
            }
            if (T->walk_range[t]) {
                u128 occ0 = occ & ~sup_bit(s);
                if (T->walk_range[t] == 2 && (T->walk_mode[t] & MM_CAPTURE)) {
                    u128 empty0 = T->full & ~occ0, open = empty0 | capt;
                    u128 land1 = fast_step(T, sup_bit(s), occ0, open), c1 = land1 & capt;
                    u128 quiet = fast_step(T, land1 & empty0, occ0, open) & ~sup_bit(s);
                    gen_emit(g, s, quiet & ~d, NO_SQ, kind, pz, blast);
                    while (c1) {
                        int m1 = bb128_pop_lsb(&c1);
                        gen_emit(g, s, fast_step(T, sup_bit(m1), occ0, open), m1, MK_MULTI, pz,
                                 blast);
                    }
                } else if (T->walk_mode[t] & MM_CAPTURE) {
                    u128 quiet = 0;
                    MidSets ms;
                    ms.n = 0;
                    fast_walk(T, occ0, capt, s, s, T->walk_range[t], NO_SQ, false, &quiet, &ms);
                    gen_emit(g, s, quiet & ~d, NO_SQ, kind, pz, blast);
                    for (int i = 0; i < ms.n; i++)
                        gen_emit(g, s, ms.dest[i], ms.mid[i], MK_MULTI, pz, blast);
                } else {
                    u128 x = sup_bit(s);
                    for (int k = 0; k < T->walk_range[t]; k++) x = fast_quiet_step(T, x, occ0);
                    gen_emit(g, s, x & ~sup_bit(s) & ~d, NO_SQ, kind, pz, blast);
                }
            }
        }
    }
}

/* Pseudo-legal moves of the side to move, from the tables (deduplicated). */
int supremo_pseudo_fast(Position *pos, Move *list) {
    GenCtx g = {.pos = pos, .T = pos->var->tables, .list = list};
    fast_generate(&g);
    return g.n;
}

/* Squares whose change could expose the King on k to side `them` while it is not in check:
 * the ray segments up to the farthest enemy slider or hopper that could use them, and the
 * neighbourhoods that double leaps, blasts and walks of nearby enemies depend on. */
static u128 gen_sensitive(const Position *pos, const SupTables *T, int k, int them) {
    u128 enemy = pos->bb.b10.color[them], sens = 0;
    u128 toward[8] = {0};
    u128 orth = 0, diag = 0;
    for (int t = 1; t <= pos->var->npt; t++) {
        u128 mine = pos->bb.b10.type[t] & enemy;
        if (!mine) continue;
        uint8_t dirs = T->ride_cp[t] | T->hop_cp[t];
        if (dirs == SUP_ORTH_DIRS || dirs == SUP_ALL_DIRS) orth |= mine;
        if (dirs == SUP_DIAG_DIRS || dirs == SUP_ALL_DIRS) diag |= mine;
        if (dirs != SUP_ORTH_DIRS && dirs != SUP_DIAG_DIRS && dirs != SUP_ALL_DIRS)
            for (; dirs; dirs &= (uint8_t)(dirs - 1)) toward[__builtin_ctz(dirs) ^ 4] |= mine;
        if ((T->dleap_mode[t] & MM_CAPTURE) && (mine & T->box[T->reach[t]][k]))
            sens |= T->dleap_base[t][k];
        if (T->zone[t] && (mine & T->box[T->reach[t]][k])) sens |= T->box[T->zone[t]][k];
    }
    for (int d = 0; d < 8; d++) {
        u128 a = T->ray[d][k] & (toward[d] | ((SUP_ORTH_DIRS >> d) & 1 ? orth : diag));
        if (!a) continue;
        int far = d < 4 ? bb128_msb(a) : bb128_lsb(a);
        sens |= T->ray[d][k] & ~T->ray[d][far];
    }
    return sens;
}

/* Prepares a legal generation: King square, check, sensitive squares. */
static void gen_prepare(GenCtx *g, Position *pos, Move *list) {
    const SupTables *T = pos->var->tables;
    g->pos = pos;
    g->T = T;
    g->list = list;
    g->n = 0;
    g->legal = true;
    g->caps = false;
    g->risk_set = false;
    g->us = pos->side;
    g->king = sup_royal_sq(pos, T, g->us);
    g->blast_risky = 0;
    if (g->king == NO_SQ) {
        g->legal = false;
        return;
    }
    int them = g->us ^ 1;
    g->check = T->lean ? supremo_lean_attacked(pos, g->king, them)
                       : supremo_attacked_fast(pos, g->king, them);
    if (g->check) {
        g->sens = T->full;
        return;
    }
    g->sens = gen_sensitive(pos, T, g->king, them);
    u128 victims = pos->bb.b10.color[them] & ~sup_uncapturable(pos, T) & g->sens;
    while (victims) g->blast_risky |= T->kmask[bb128_pop_lsb(&victims)];
}

/* Legal moves: the fast generator with the legality filter of gen_emit. */
int supremo_gen_legal(Position *pos, Move *list) {
    GenCtx g;
    gen_prepare(&g, pos, list);
    fast_generate(&g);
    return g.n;
}

/* supremo_gen_legal's moves as a MoveSet: all in its tail, with the check flag the
 * generator found (VariantOps.gen_fast_set; the chain decoder's record needs it). */
int supremo_gen_set(Position *pos, MoveSet *ms) {
    GenCtx g;
    gen_prepare(&g, pos, ms->tail);
    fast_generate(&g);
    ms->ngroup = ms->ngrouped = 0;
    ms->check = g.legal ? g.check : -1;
    return ms->n = g.n;
}

/* Legal captures (quiescence): the moves of supremo_gen_legal that remove at least one
 * enemy piece, in the same order: a capture on the landing square, a capture passed over
 * (double leaps, walks), or a blast next to a capturable enemy. */
int supremo_gen_captures(Position *pos, Move *list) {
    GenCtx g;
    gen_prepare(&g, pos, list);
    const SupTables *T = g.T;
    g.caps = true;
    g.cap_to = pos->bb.b10.color[pos->side ^ 1] & ~sup_uncapturable(pos, T);
    g.cap_blast = 0;
    bool blaster = false;
    for (int t = 1; t <= pos->var->npt; t++)
        if ((T->flags[t] & PF_BLAST) && (pos->bb.b10.type[t] & pos->bb.b10.color[pos->side]))
            blaster = true;
    for (u128 v = blaster ? g.cap_to : 0; v;) g.cap_blast |= T->kmask[bb128_pop_lsb(&v)];
    fast_generate(&g);
    return g.n;
}

/* Number of legal moves (perft's last ply), counted without writing most of them. */
uint64_t supremo_count_legal(Position *pos) {
    GenCtx g;
    gen_prepare(&g, pos, NULL);
    fast_generate(&g);
    return (uint64_t)g.n;
}
