/* nnue.c - the features of a position and int16 inference: accumulator refresh, update from
 * a DirtyPiece, and the output layer; AVX2 kernels where the processor has them (chosen at
 * run time) and portable ones everywhere, giving identical results. */
#include "nnue.h"

#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define NNUE_X86 1
#endif

void nnue_layout(const Variant *v, NnueLayout *l) {
    l->width = v->width;
    l->height = v->height;
    l->nsq = v->width * v->height;
    l->npt = v->npt;
    l->hold_k = (v->rules & (RULE_DROPS | RULE_POOL)) ? NNUE_HOLD_K : 0;
    l->nboard = l->npt * 2 * l->nsq;
    l->nfeat = l->nboard + 2 * 2 * l->npt * l->hold_k;
    for (int sq = 0; sq < MAX_SQ; sq++)
        l->flip[sq] =
            (uint8_t)(sq < l->nsq ? (l->height - 1 - sq / l->width) * l->width + sq % l->width
                                  : sq);
    l->nbase = l->nfeat;
    l->kb_n = 0;
    memset(l->kb_map, 0, sizeof l->kb_map);
    l->king_type = (uint8_t)nnue_king_type(v);
    for (int t = 0; t < MAX_PT; t++)
        l->royal[t] = t >= 1 && t <= v->npt && (v->pieces[t].flags & PF_ROYAL);
}

void nnue_layout_kb(NnueLayout *l, int n, const uint8_t map[32]) {
    l->kb_n = n;
    memcpy(l->kb_map, map, sizeof l->kb_map);
    l->nfeat = l->nbase * (n ? n : 1);
}

int nnue_king_type(const Variant *v) {
    int king = 0, royals = 0;
    for (int t = 1; t <= v->npt; t++)
        if (v->pieces[t].flags & PF_ROYAL) king = t, royals++;
    return v->width == 8 && v->height == 8 && royals == 1 ? king : 0;
}

int nnue_material(const NnueLayout *l, const uint8_t *board, const uint8_t *hand[2]) {
    int n = 0;
    for (int sq = 0; sq < l->nsq; sq++) n += board[sq] && !l->royal[PC_TYPE(board[sq])];
    for (int c = 0; c < 2 && hand; c++)
        for (int t = 1; t <= l->npt; t++) n += l->royal[t] ? 0 : hand[c][t];
    return n;
}

int nnue_material_max(const Variant *v) {
    Position *p = malloc(sizeof *p);
    CvError err;
    int n = 0;
    if (p && pos_from_fen(p, v, v->start_fen, &err)) {
        NnueLayout l;
        nnue_layout(v, &l);
        const uint8_t *hand[2] = {p->hand[0], p->hand[1]};
        n = nnue_material(&l, p->board, hand);
    }
    free(p);
    return n;
}

/* The square of persp's king on a board (king buckets), or NO_SQ. */
static int nnue_king_square(const NnueLayout *l, int persp, const uint8_t *board) {
    int pc = PC_MAKE(persp, l->king_type);
    for (int sq = 0; sq < l->nsq; sq++)
        if (board[sq] == pc) return sq;
    return NO_SQ;
}

/* The occupied squares of board's first nsq (at most 128) as bits, square i at bit i % 64
 * of occ[i / 64]: eight squares a step without a branch (a square-by-square test of a board
 * mispredicts at about every other piece; this was a sixth of the trainer's time). */
static inline void nnue_occupancy(const uint8_t *board, int nsq, uint64_t occ[2]) {
    const uint64_t low7 = 0x7f7f7f7f7f7f7f7full, high = 0x8080808080808080ull;
    occ[0] = occ[1] = 0;
    int sq = 0;
    for (; sq + 8 <= nsq; sq += 8) {
        uint64_t x;
        memcpy(&x, board + sq, sizeof x);
        uint64_t nz = (((x & low7) + low7) | x) & high; /* the top bit of each nonzero byte */
        occ[sq >> 6] |= ((nz >> 7) * 0x0102040810204080ull >> 56) << (sq & 63);
    }
    for (; sq < nsq; sq++) occ[sq >> 6] |= (uint64_t)(board[sq] != 0) << (sq & 63);
}

int nnue_features(const NnueLayout *l, int persp, const uint8_t *board, const uint8_t *hand[2],
                  const uint8_t *pool[2], uint16_t *out) {
    int n = 0, base = 0, mir = 0;
    if (l->kb_n) nnue_king_state(l, persp, nnue_king_square(l, persp, board), &base, &mir);
    uint64_t occ[2];
    nnue_occupancy(board, l->nsq, occ);
    for (int w = 0; w < 2; w++)
        for (uint64_t b = occ[w]; b && n < NNUE_MAX_ACTIVE; b &= b - 1) {
            int sq = 64 * w + __builtin_ctzll(b);
            out[n++] =
                (uint16_t)(l->kb_n ? nnue_board_feature_kb(l, persp, board[sq], sq, base, mir)
                                   : nnue_board_feature(l, persp, board[sq], sq));
        }
    if (!l->hold_k) return n;
    for (int which = 0; which < 2; which++) {
        const uint8_t **held = which == 0 ? hand : pool;
        if (!held) continue;
        for (int c = 0; c < 2; c++)
            for (int t = 1; t <= l->npt; t++) {
                int k = held[c][t] < l->hold_k ? held[c][t] : l->hold_k;
                for (int i = 1; i <= k && n < NNUE_MAX_ACTIVE; i++)
                    out[n++] = (uint16_t)(base + nnue_hold_feature(l, persp, c, which, t, i));
            }
    }
    return n;
}

int nnue_features_pos(const NnueLayout *l, const Position *pos, int persp, uint16_t *out) {
    if (!pos->wide && !l->hold_k) {
        /* 8x8 without holdings: the occupied squares from the bitboards, in the board's
         * order (as nnue_features gives them) */
        int base = 0, mir = 0, n = 0;
        if (l->kb_n) {
            Bitboard k = pos->bb.b8.type[l->king_type] & pos->bb.b8.color[persp];
            nnue_king_state(l, persp, k ? __builtin_ctzll(k) : NO_SQ, &base, &mir);
        }
        for (Bitboard occ = pos->bb.b8.color[0] | pos->bb.b8.color[1]; occ; occ &= occ - 1) {
            int sq = __builtin_ctzll(occ);
            out[n++] = (uint16_t)nnue_board_feature_kb(l, persp, pos->board[sq], sq, base, mir);
        }
        return n;
    }
    const uint8_t *hand[2] = {pos->hand[0], pos->hand[1]};
    const uint8_t *pool[2] = {pos->pool[0], pos->pool[1]};
    return nnue_features(l, persp, pos->board, hand, pool, out);
}

/* ---------------------------------------------------------------- kernels */

/* int16 sums wrap (as the AVX2 instructions do), so any order of additions gives the same
 * accumulator: an update equals a refresh bit for bit. */
static inline int16_t wrap_add(int16_t a, int16_t b) {
    return (int16_t)(uint16_t)((uint16_t)a + (uint16_t)b);
}
static inline int16_t wrap_sub(int16_t a, int16_t b) {
    return (int16_t)(uint16_t)((uint16_t)a - (uint16_t)b);
}

void nnue_rows_portable(int16_t *dst, const int16_t *src, const int16_t *w, int h,
                        const uint16_t *adds, int nadd, const uint16_t *subs, int nsub) {
    if (dst != src) memcpy(dst, src, (size_t)h * sizeof *dst);
    for (int k = 0; k < nadd; k++) {
        const int16_t *row = w + (size_t)adds[k] * h;
        for (int i = 0; i < h; i++) dst[i] = wrap_add(dst[i], row[i]);
    }
    for (int k = 0; k < nsub; k++) {
        const int16_t *row = w + (size_t)subs[k] * h;
        for (int i = 0; i < h; i++) dst[i] = wrap_sub(dst[i], row[i]);
    }
}

int32_t nnue_output_portable(const int16_t *a0, const int16_t *a1, const int16_t *w, int h,
                             int qa) {
    uint32_t sum = 0; /* wraps as the vector sum does; weights are bounded so it never does */
    for (int half = 0; half < 2; half++) {
        const int16_t *a = half ? a1 : a0;
        const int16_t *wh = w + half * h;
        for (int i = 0; i < h; i++) {
            int x = a[i] < 0 ? 0 : a[i] > qa ? qa : a[i];
            sum += (uint32_t)(x * wh[i]);
        }
    }
    return (int32_t)sum;
}

#ifdef NNUE_X86
bool nnue_have_avx2(void) { return __builtin_cpu_supports("avx2"); }

/* dst[i..i+16n) = src + adds - subs, n registers (16 lanes each) held across the rows. */
#define NNUE_TILE(n)                                                                               \
    do {                                                                                           \
        __m256i r[n];                                                                              \
        for (int j = 0; j < (n); j++) r[j] = _mm256_loadu_si256((const __m256i *)(src + i) + j);   \
        for (int k = 0; k < nadd; k++) {                                                           \
            const __m256i *row = (const __m256i *)(w + (size_t)adds[k] * h + i);                   \
            for (int j = 0; j < (n); j++)                                                          \
                r[j] = _mm256_add_epi16(r[j], _mm256_loadu_si256(row + j));                        \
        }                                                                                          \
        for (int k = 0; k < nsub; k++) {                                                           \
            const __m256i *row = (const __m256i *)(w + (size_t)subs[k] * h + i);                   \
            for (int j = 0; j < (n); j++)                                                          \
                r[j] = _mm256_sub_epi16(r[j], _mm256_loadu_si256(row + j));                        \
        }                                                                                          \
        for (int j = 0; j < (n); j++) _mm256_storeu_si256((__m256i *)(dst + i) + j, r[j]);         \
    } while (0)

/* Eight registers (128 lanes) at a time while they last, then one (16 lanes). */
__attribute__((target("avx2"))) void nnue_rows_avx2(int16_t *dst, const int16_t *src,
                                                    const int16_t *w, int h, const uint16_t *adds,
                                                    int nadd, const uint16_t *subs, int nsub) {
    int i = 0;
    for (; i + 128 <= h; i += 128) NNUE_TILE(8);
    for (; i < h; i += 16) NNUE_TILE(1);
}

__attribute__((target("avx2"))) int32_t nnue_output_avx2(const int16_t *a0, const int16_t *a1,
                                                         const int16_t *w, int h, int qa) {
    const __m256i zero = _mm256_setzero_si256(), top = _mm256_set1_epi16((int16_t)qa);
    __m256i sum = _mm256_setzero_si256();
    for (int half = 0; half < 2; half++) {
        const int16_t *a = half ? a1 : a0;
        const int16_t *wh = w + half * h;
        for (int i = 0; i < h; i += 16) {
            __m256i x = _mm256_loadu_si256((const __m256i *)(a + i));
            x = _mm256_min_epi16(_mm256_max_epi16(x, zero), top);
            __m256i p = _mm256_madd_epi16(x, _mm256_loadu_si256((const __m256i *)(wh + i)));
            sum = _mm256_add_epi32(sum, p);
        }
    }
    __m128i s = _mm_add_epi32(_mm256_castsi256_si128(sum), _mm256_extracti128_si256(sum, 1));
    s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0x4e));
    s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0xb1));
    return _mm_cvtsi128_si32(s);
}
#else
bool nnue_have_avx2(void) { return false; }
void nnue_rows_avx2(int16_t *dst, const int16_t *src, const int16_t *w, int h, const uint16_t *adds,
                    int nadd, const uint16_t *subs, int nsub) {
    nnue_rows_portable(dst, src, w, h, adds, nadd, subs, nsub);
}
int32_t nnue_output_avx2(const int16_t *a0, const int16_t *a1, const int16_t *w, int h, int qa) {
    return nnue_output_portable(a0, a1, w, h, qa);
}
#endif

static inline void nnue_rows(const Network *net, int16_t *dst, const int16_t *src,
                             const uint16_t *adds, int nadd, const uint16_t *subs, int nsub) {
    if (net->simd) nnue_rows_avx2(dst, src, net->ft_w, net->d.hidden, adds, nadd, subs, nsub);
    else nnue_rows_portable(dst, src, net->ft_w, net->d.hidden, adds, nadd, subs, nsub);
}

/* ---------------------------------------------------------------- accumulator */

void nnue_refresh_side(const Network *net, const Position *pos, NnueAcc *acc, int persp) {
    uint16_t f[NNUE_MAX_ACTIVE];
    int n = nnue_features_pos(&net->l, pos, persp, f);
    nnue_rows(net, acc->v[persp], net->ft_b, f, n, NULL, 0);
    if (net->l.kb_n) {
        int base, mir;
        nnue_king_state(&net->l, persp, nnue_king_square(&net->l, persp, pos->board), &base, &mir);
        acc->kbase[persp] = (uint16_t)base;
        acc->kmir[persp] = (uint8_t)mir;
    }
}

/* What a refresh sets besides the halves: holding counts, material, king states. */
static void nnue_refresh_rest(const Network *net, const Position *pos, NnueAcc *acc);

void nnue_refresh(const Network *net, const Position *pos, NnueAcc *acc) {
    uint16_t f[NNUE_MAX_ACTIVE];
    for (int p = 0; p < 2; p++) {
        int n = nnue_features_pos(&net->l, pos, p, f);
        nnue_rows(net, acc->v[p], net->ft_b, f, n, NULL, 0);
    }
    nnue_refresh_rest(net, pos, acc);
}

NnueCacheEntry *nnue_cache_new(const Network *net) {
    if (!net->l.kb_n || net->l.hold_k) return NULL;
    int n = 2 * net->l.kb_n * 2;
    NnueCacheEntry *c = aligned_alloc(_Alignof(NnueCacheEntry), (size_t)n * sizeof *c);
    for (int i = 0; c && i < n; i++) {
        memset(&c[i], 0, sizeof c[i]);
        memcpy(c[i].v, net->ft_b, (size_t)net->d.hidden * sizeof *net->ft_b);
    }
    return c;
}

void nnue_refresh_side_cached(const Network *net, const Position *pos, NnueAcc *acc, int persp,
                              NnueCacheEntry *cache) {
    const NnueLayout *l = &net->l;
    if (!cache || pos->wide) {
        nnue_refresh_side(net, pos, acc, persp);
        return;
    }
    int base, mir;
    Bitboard k = pos->bb.b8.type[l->king_type] & pos->bb.b8.color[persp];
    nnue_king_state(l, persp, k ? __builtin_ctzll(k) : NO_SQ, &base, &mir);
    NnueCacheEntry *e = &cache[(persp * l->kb_n + base / l->nbase) * 2 + (mir != 0)];
    uint16_t add[MAX_SQ], sub[MAX_SQ];
    int na = 0, ns = 0;
    for (int c = 0; c < 2; c++)
        for (int t = 1; t <= l->npt; t++) {
            Bitboard now = pos->bb.b8.type[t] & pos->bb.b8.color[c], was = e->bb[c][t];
            int pc = PC_MAKE(c, t);
            for (Bitboard b = was & ~now; b; b &= b - 1)
                sub[ns++] =
                    (uint16_t)nnue_board_feature_kb(l, persp, pc, __builtin_ctzll(b), base, mir);
            for (Bitboard b = now & ~was; b; b &= b - 1)
                add[na++] =
                    (uint16_t)nnue_board_feature_kb(l, persp, pc, __builtin_ctzll(b), base, mir);
            e->bb[c][t] = now;
        }
    nnue_rows(net, e->v, e->v, add, na, sub, ns);
    memcpy(acc->v[persp], e->v, (size_t)net->d.hidden * sizeof *e->v);
    acc->kbase[persp] = (uint16_t)base;
    acc->kmir[persp] = (uint8_t)mir;
}

void nnue_refresh_cached(const Network *net, const Position *pos, NnueAcc *acc,
                         NnueCacheEntry *cache) {
    if (!cache) {
        nnue_refresh(net, pos, acc);
        return;
    }
    for (int p = 0; p < 2; p++) nnue_refresh_side_cached(net, pos, acc, p, cache);
    nnue_refresh_rest(net, pos, acc);
}

static void nnue_refresh_rest(const Network *net, const Position *pos, NnueAcc *acc) {
    memcpy(acc->hold[0], pos->hand, sizeof acc->hold[0]);
    memcpy(acc->hold[1], pos->pool, sizeof acc->hold[1]);
    if (net->d.obuckets > 1) {
        const uint8_t *hand[2] = {pos->hand[0], pos->hand[1]};
        acc->material = (int16_t)nnue_material(&net->l, pos->board, hand);
    }
    if (net->l.kb_n)
        for (int p = 0; p < 2; p++) {
            int base, mir;
            nnue_king_state(&net->l, p, nnue_king_square(&net->l, p, pos->board), &base, &mir);
            acc->kbase[p] = (uint16_t)base;
            acc->kmir[p] = (uint8_t)mir;
        }
}

/* nnue_update with king buckets and output buckets (a version 2 network's features). */
__attribute__((noinline, flatten)) static int
nnue_update_v2(const Network *net, const NnueAcc *parent, NnueAcc *child, const DirtyPiece *dp) {
    const NnueLayout *l = &net->l;
    int base[2] = {0, 0}, mir[2] = {0, 0}, stale = 0;
    if (l->kb_n) {
        base[0] = parent->kbase[0], base[1] = parent->kbase[1];
        mir[0] = parent->kmir[0], mir[1] = parent->kmir[1];
        for (int i = 0; i < dp->n; i++) {
            int pc = dp->d[i].pc;
            if (PC_TYPE(pc) != l->king_type) continue;
            int c = PC_COLOR(pc), b, m;
            /* a king leaving the board without arriving again (not in a legal game) */
            if (dp->d[i].to == NO_SQ) {
                stale |= 1 << c;
                continue;
            }
            nnue_king_state(l, c, dp->d[i].to, &b, &m);
            if (b != base[c] || m != mir[c]) stale |= 1 << c;
        }
    }
    uint16_t add[2][2 * MAX_DIRTY + 16], sub[2][2 * MAX_DIRTY + 16];
    int na = 0, ns = 0, mat = parent->material;
    for (int i = 0; i < dp->n; i++) {
        int pc = dp->d[i].pc, from = dp->d[i].from, to = dp->d[i].to;
        int counted = !l->royal[PC_TYPE(pc)];
        if (from != NO_SQ) {
            for (int p = 0; p < 2; p++)
                sub[p][ns] = (uint16_t)nnue_board_feature_kb(l, p, pc, from, base[p], mir[p]);
            ns++;
            mat -= counted;
        }
        if (to != NO_SQ) {
            for (int p = 0; p < 2; p++)
                add[p][na] = (uint16_t)nnue_board_feature_kb(l, p, pc, to, base[p], mir[p]);
            na++;
            mat += counted;
        }
    }
    if (l->hold_k) memcpy(child->hold, parent->hold, sizeof child->hold);
    for (int i = 0; i < dp->nhand && l->hold_k; i++) {
        int c = dp->h[i].color, t = dp->h[i].type, which = dp->h[i].which;
        int d = dp->h[i].delta;
        uint8_t *cnt = &child->hold[which][c][t];
        if (which == DIRTY_HAND && !l->royal[t]) mat += d;
        for (; d > 0; d--) {
            int k = ++*cnt;
            if (k > l->hold_k) continue;
            for (int p = 0; p < 2; p++)
                add[p][na] = (uint16_t)(base[p] + nnue_hold_feature(l, p, c, which, t, k));
            na++;
        }
        for (; d < 0; d++) {
            int k = (*cnt)--;
            if (k > l->hold_k) continue;
            for (int p = 0; p < 2; p++)
                sub[p][ns] = (uint16_t)(base[p] + nnue_hold_feature(l, p, c, which, t, k));
            ns++;
        }
    }
    child->material = (int16_t)mat;
    for (int p = 0; p < 2; p++) {
        if (stale >> p & 1) continue;
        child->kbase[p] = (uint16_t)base[p];
        child->kmir[p] = (uint8_t)mir[p];
        nnue_rows(net, child->v[p], parent->v[p], add[p], na, sub[p], ns);
    }
    return stale;
}

/* nnue_update of a version 1 network: the hot path of search with the shipped nets, the
 * kernels inlined into it (flatten) as they were before version 2 added callers. */
__attribute__((flatten)) static void nnue_update_v1(const Network *net, const NnueAcc *parent,
                                                    NnueAcc *child, const DirtyPiece *dp) {
    const NnueLayout *l = &net->l;
    uint16_t add[2][2 * MAX_DIRTY + 16], sub[2][2 * MAX_DIRTY + 16];
    int na = 0, ns = 0;
    for (int i = 0; i < dp->n; i++) {
        int pc = dp->d[i].pc, from = dp->d[i].from, to = dp->d[i].to;
        if (from != NO_SQ) {
            sub[WHITE][ns] = (uint16_t)nnue_board_feature(l, WHITE, pc, from);
            sub[BLACK][ns++] = (uint16_t)nnue_board_feature(l, BLACK, pc, from);
        }
        if (to != NO_SQ) {
            add[WHITE][na] = (uint16_t)nnue_board_feature(l, WHITE, pc, to);
            add[BLACK][na++] = (uint16_t)nnue_board_feature(l, BLACK, pc, to);
        }
    }
    if (l->hold_k) memcpy(child->hold, parent->hold, sizeof child->hold);
    for (int i = 0; i < dp->nhand && l->hold_k; i++) {
        int c = dp->h[i].color, t = dp->h[i].type, which = dp->h[i].which;
        int d = dp->h[i].delta;
        uint8_t *cnt = &child->hold[which][c][t];
        for (; d > 0; d--) { /* count n -> n + 1: feature "at least n + 1" appears */
            int k = ++*cnt;
            if (k > l->hold_k) continue;
            add[WHITE][na] = (uint16_t)nnue_hold_feature(l, WHITE, c, which, t, k);
            add[BLACK][na++] = (uint16_t)nnue_hold_feature(l, BLACK, c, which, t, k);
        }
        for (; d < 0; d++) { /* count n -> n - 1: feature "at least n" goes */
            int k = (*cnt)--;
            if (k > l->hold_k) continue;
            sub[WHITE][ns] = (uint16_t)nnue_hold_feature(l, WHITE, c, which, t, k);
            sub[BLACK][ns++] = (uint16_t)nnue_hold_feature(l, BLACK, c, which, t, k);
        }
    }
    for (int p = 0; p < 2; p++) nnue_rows(net, child->v[p], parent->v[p], add[p], na, sub[p], ns);
}

int nnue_update(const Network *net, const NnueAcc *parent, NnueAcc *child, const DirtyPiece *dp) {
    if (net->d.version > 1) return nnue_update_v2(net, parent, child, dp);
    nnue_update_v1(net, parent, child, dp);
    return 0;
}

int nnue_evaluate_side(const Network *net, const NnueAcc *acc, int stm) {
    int h = net->d.hidden, b = 0;
    int32_t s;
    if (net->d.obuckets > 1)
        b = net->bucket_of[acc->material < 0 ? 0 : acc->material > 255 ? 255 : acc->material];
    if (net->d.l1) {
        s = nnue_stack_sum(net, acc->v[stm], acc->v[stm ^ 1], b,
                           net->simd ? 1 + (net->vnni ? 1 : 0) : 0);
    } else {
        const int16_t *w = net->out_w + (size_t)b * 2 * h;
        s = net->simd ? nnue_output_avx2(acc->v[stm], acc->v[stm ^ 1], w, h, net->d.qa)
                      : nnue_output_portable(acc->v[stm], acc->v[stm ^ 1], w, h, net->d.qa);
    }
    int64_t cp = ((int64_t)s + net->out_b[b]) * net->d.scale / ((int64_t)net->d.qa * net->d.qb);
    return cp > NNUE_MAX_CP ? NNUE_MAX_CP : cp < -NNUE_MAX_CP ? -NNUE_MAX_CP : (int)cp;
}

int nnue_evaluate(const Network *net, const NnueAcc *acc, const Position *pos) {
    return nnue_evaluate_side(net, acc, pos->side);
}
