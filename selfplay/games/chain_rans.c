/* chain_rans.c - chain versions 3 to 7 (FORMAT.md, "Payload, versions 3 to 7: rANS"):
 * rANS over adaptive frequency models, one symbol per field, and the models that code a
 * game's start, moves, labels and flags with it. Versions 4 to 6 differ only in the
 * moves whose indices they code (chain_moves, chain_pseudo). */
#include <assert.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chain_internal.h"

/* Version 3 codes one symbol per field with rANS (32-bit state, 16-bit words) over
 * adaptive frequency models. A model counts its symbols as they pass and rebuilds its
 * frequencies (summing to 2^prec) from the counts after 8, 16, 32, ... symbols, the period
 * capped; between rebuilds it codes with fixed frequencies, so the encoder can record each
 * symbol's slice while it models forwards and code the block in reverse at its end, and
 * the decoder reads one table slot per symbol. */

#define RANS_LOW   (1u << 16) /* the state stays in [2^16, 2^32) */
#define RANS_INC   4          /* a count's step */
#define RANS_LIMIT (1u << 16) /* counts are halved at a rebuild when their sum passes this */
#define RANS_FIRST 8          /* symbols before the first rebuild */
#define RANS_CAP   1          /* periods grow to 2^prec / RANS_CAP (at least 64) */
#define FLAG_CTX   24         /* the ply 0..7, then the previous ply's flags (16) */
#define SCORE_SYMS 67         /* zero; class 1 by sign; classes 2..17 by sign and next bit */
#define IDX_MODELS 37         /* move index models by the count rounded (ChainRans.idx_key) */
#define SLOT_PAD   64         /* bytes past a slot table for rmodel_fill's last stores */

/* One adaptive frequency model: 32 bytes, so that a model is found by a shift, and a
 * symbol's frequency and start in one load (the decoder's step was 35 instructions). */
typedef struct RModel {
    uint16_t nsym;
    uint8_t prec, wide;    /* wide: more than 256 symbols, whose slots take two bytes */
    uint16_t left, period; /* symbols until the next rebuild, and the last period (at most
                            * 2^14) */
    uint32_t *count;       /* nsym counts (and in the same block fs, then a rebuild's
                            * nsym uint16_t frequencies) */
    uint32_t *fs;          /* per symbol its frequency | its start << 16 */
    void *slot; /* the decoder's symbol of each of the 2^prec slots, a byte each (two when
                 * wide: half the bytes to fill at a rebuild and to keep in the cache), and
                 * SLOT_PAD bytes more that rmodel_fill may write past the last (NULL in the
                 * encoder) */
} RModel;
_Static_assert(sizeof(RModel) == 32, "RModel is 32 bytes");

/* Every model of a version 3 block. */
struct ChainRans {
    RModel flags[FLAG_CTX];              /* a ply's flags, by the ply or the previous ply's */
    RModel idx[2][IDX_MODELS];           /* best move [0], played move [1], by the count's bits */
    RModel score[2][EXP_CTX][2];         /* by searched, the last class, the prediction's sign */
    RModel depth[DEPTH_CTX];             /* depth difference -3..3 or escape (rans_depth_ctx:
                                          * version 7's DEPTH_CTX7 models are the first) */
    RModel id_next, ply0_zero, fen_same; /* the game header's */
    RModel fen_char, nply_class, wscore, term;
    bool decoder;
    /* The move index model of a count n of 2 to MAX_MOVES (1024): n itself up to 8, above
     * n rounded up to a quarter of its power of two, 4 models for each bit length from 4
     * to 10. Looked up: computed at each index, it cost chess decoding 8 instructions a
     * position. */
    uint8_t idx_key[MAX_MOVES + 1];
    uint32_t score_sym[SCORE_SYMS]; /* the decoder's meaning of each score symbol */
};

/* Declares model m: nsym symbols, frequencies summing to 2^prec; its tables come at its
 * first use. */
static void rmodel_declare(RModel *m, int nsym, int prec) {
    memset(m, 0, sizeof *m);
    m->nsym = (uint16_t)nsym;
    m->prec = (uint8_t)prec;
    m->wide = nsym > 256;
}

/* Thirty-two byte slots or sixteen wide ones, one (vector) store. */
typedef uint8_t SlotVec __attribute__((vector_size(32)));
typedef uint16_t SlotVec16 __attribute__((vector_size(32)));

/* Sets each symbol's frequency and start (fs) from its frequency in freq, and in a decoder
 * its slots, 32 bytes a store: a symbol's last store's overshoot lands where the next
 * symbol's slots start, which are filled after, or in the table's SLOT_PAD. The starts in
 * the fill's loop (a loop of their own cost chess decoding 16 instructions a position), and
 * the symbol's vector counted up with it rather than made from s (5 more). */
static inline void rmodel_fill(RModel *m, const uint16_t *restrict freq) {
    const uint32_t n = m->nsym;
    uint32_t *restrict fs = m->fs;
    if (!m->slot) {
        for (uint32_t s = 0, start = 0; s < n; s++) {
            fs[s] = freq[s] | start << 16;
            start += freq[s];
        }
    } else if (m->wide) {
        uint16_t *t = m->slot;
        SlotVec16 v = {0};
        for (uint32_t s = 0, j = 0; s < n; s++, v += 1) { /* every f at least 1 */
            const uint32_t end = j + freq[s];
            fs[s] = freq[s] | j << 16;
            uint32_t i = j;
            do memcpy(t + i, &v, sizeof v);
            while ((i += 16) < end);
            j = end;
        }
    } else {
        uint8_t *t = m->slot;
        SlotVec v = {0};
        for (uint32_t s = 0, j = 0; s < n; s++, v += 1) { /* every f at least 1 */
            const uint32_t end = j + freq[s];
            fs[s] = freq[s] | j << 16;
            /* two stores whatever the frequency, then a loop for a frequency above 64: a
             * loop from the first store ended where the data said, and its branch was
             * mispredicted at most symbols of more than 32 slots */
            memcpy(t + j, &v, sizeof v);
            memcpy(t + j + 32, &v, sizeof v);
            for (uint32_t i = j + 64; __builtin_expect(i < end, 0); i += 32)
                memcpy(t + i, &v, sizeof v);
            j = end;
        }
    }
}

/* Sets m's frequencies from its counts (each at least 1, the rounding's rest to the most
 * counted symbol) and, in a decoder, its slot table. One pass a job, so that the compiler
 * vectorises the sums and the frequencies. */
static void rmodel_rebuild(RModel *m) {
    const uint32_t n = m->nsym, one = 1u << m->prec;
    uint32_t *restrict count = m->count;
    uint16_t *restrict freq = (uint16_t *)(m->fs + n);
    uint32_t total = 0, sum = 0, top = 0;
    for (uint32_t s = 0; s < n; s++) total += count[s]; /* not kept per symbol: dearer */
    if (total > RANS_LIMIT) {
        for (uint32_t s = 0; s < n; s++) count[s] -= count[s] >> 1;
        total = 0;
        for (uint32_t s = 0; s < n; s++) total += count[s];
    }
    /* one / total in 32.32 fixed point, and each f = (c * scale + 2^31) >> 32 from its
     * 32-bit halves, which the compiler vectorises with the top's search apart (one scalar
     * loop of both cost chess decoding 13 instructions a position more) */
    const uint64_t scale = ((uint64_t)one << 32) / total;
    const uint32_t hi = (uint32_t)(scale >> 32), lo = (uint32_t)scale;
    for (uint32_t s = 0; s < n; s++) {
        const uint32_t c = count[s];
        uint32_t f = c * hi + (uint32_t)(((uint64_t)c * lo + (1u << 31)) >> 32);
        f += !f;
        freq[s] = (uint16_t)f;
        sum += f;
    }
    uint32_t most = 0;
    for (uint32_t s = 0; s < n; s++) most = count[s] > most ? count[s] : most;
    while (count[top] != most) top++; /* the first of the most counted */
    if (freq[top] + one <= sum) {     /* the floors outweigh the top: spread the rest */
        sum = 0;
        for (uint32_t s = 0; s < n; s++) {
            uint32_t f = 1 + (uint32_t)((uint64_t)count[s] * (one - n) / total);
            freq[s] = (uint16_t)f;
            sum += f;
        }
    }
    freq[top] = (uint16_t)(freq[top] + one - sum);
    uint32_t cap = one / RANS_CAP > 64 ? one / RANS_CAP : 64;
    m->period = (uint16_t)(m->period ? (m->period * 2u < cap ? m->period * 2u : cap) : RANS_FIRST);
    m->left = m->period;
    rmodel_fill(m, freq);
}

/* Makes m's tables at its first use: every count 1, so the frequencies are even. */
static bool rmodel_open(RModel *m, bool decoder) {
    size_t n = m->nsym;
    m->count = malloc(n * (sizeof *m->count + sizeof *m->fs + sizeof(uint16_t)));
    if (!m->count) return false;
    m->fs = m->count + n;
    if (decoder) {
        m->slot = malloc(((size_t)1 << m->prec) * (m->wide ? 2 : 1) + SLOT_PAD);
        if (!m->slot) {
            free(m->count);
            m->count = NULL;
            return false;
        }
    }
    for (size_t s = 0; s < n; s++) m->count[s] = 1;
    rmodel_rebuild(m);
    return true;
}

/* Counts symbol s in m and rebuilds when its period is over (the encoder's step; the
 * decoder's, dec3_of, rebuilds before the next symbol instead). */
static inline void rmodel_update(RModel *m, uint32_t s) {
    m->count[s] += RANS_INC;
    if (--m->left == 0) rmodel_rebuild(m);
}

/* Frees m's tables. */
static void rmodel_free(RModel *m) {
    free(m->count);
    free(m->slot);
    m->count = NULL;
    m->slot = NULL;
}

/* The alphabet of move index model key: the largest count of the key (ChainRans.idx_key). */
static int chain_idx_size(int key) {
    if (key <= 8) return key < 2 ? 2 : key;
    int b = 4 + (key - 9) / 4, q = (key - 9) % 4;
    return (5 + q) << (b - 3);
}

/* A score symbol's meaning (ChainRans.score_sym): the magnitude's leading bits | the number
 * of even bits that follow << 18 | the size class << 22 | the sign << 27. */
static uint32_t score_sym_entry(uint32_t sym) {
    if (sym < 3) return (sym != 0) | (sym != 0) << 22 | (sym == 2) << 27;
    const uint32_t t = sym - 3, rb = t >> 2;
    return (2u | (t & 1)) << rb | rb << 18 | (rb + 2) << 22 | (t >> 1 & 1) << 27;
}

/* Every model of a block, declared; NULL if out of memory. */
ChainRans *chain_rans_new(bool decoder) {
    ChainRans *r = malloc(sizeof *r);
    if (!r) return NULL;
    for (int i = 0; i < FLAG_CTX; i++) rmodel_declare(&r->flags[i], 16, 11);
    for (int w = 0; w < 2; w++)
        for (int b = 0; b < IDX_MODELS; b++) {
            int a = chain_idx_size(b), bits = chain_bits((uint32_t)a);
            int prec = bits + 4 < 8 ? 8 : bits + 4 > 14 ? 14 : bits + 4;
            rmodel_declare(&r->idx[w][b], a, prec);
        }
    for (int n = 0; n <= 8; n++) r->idx_key[n] = (uint8_t)n;
    for (int key = 9, n = 9; key < IDX_MODELS; key++)
        for (int last = chain_idx_size(key); n <= last; n++) r->idx_key[n] = (uint8_t)key;
    for (int s = 0; s < 2; s++)
        for (int c = 0; c < EXP_CTX; c++)
            for (int g = 0; g < 2; g++) rmodel_declare(&r->score[s][c][g], SCORE_SYMS, 10);
    for (int i = 0; i < DEPTH_CTX; i++) rmodel_declare(&r->depth[i], 2 * DDELTA + 2, 8);
    rmodel_declare(&r->id_next, 2, 8);
    rmodel_declare(&r->ply0_zero, 2, 8);
    rmodel_declare(&r->fen_same, 2, 8);
    rmodel_declare(&r->fen_char, 128, 10);
    rmodel_declare(&r->nply_class, 16, 8);
    rmodel_declare(&r->wscore, 8, 8);
    rmodel_declare(&r->term, 16, 8);
    for (uint32_t sym = 0; sym < SCORE_SYMS; sym++) r->score_sym[sym] = score_sym_entry(sym);
    r->decoder = decoder;
    return r;
}

/* Frees r and its models' tables. */
void chain_rans_free(ChainRans *r) {
    if (!r) return;
    RModel *m = (RModel *)r;
    for (size_t i = 0; i < offsetof(ChainRans, decoder) / sizeof *m; i++) rmodel_free(&m[i]);
    free(r);
}

/* Records one symbol's slice for the end of the block. */
static void enc3_push(ChainEnc *e, uint32_t start, uint32_t freq, int prec) {
    if (e->nsym == e->capsym) {
        size_t cap = e->capsym ? 2 * e->capsym : 1 << 14;
        ChainSym *s = realloc(e->sym, cap * sizeof *s);
        if (!s) {
            e->oom = true;
            return;
        }
        e->sym = s;
        e->capsym = cap;
    }
    e->sym[e->nsym++] = (ChainSym){(uint16_t)start, (uint16_t)freq, (uint8_t)prec};
}

/* Codes symbol s of model m. */
static void enc3(ChainEnc *e, RModel *m, uint32_t s) {
    if (!m->count && !rmodel_open(m, false)) {
        e->oom = true;
        return;
    }
    enc3_push(e, m->fs[s] >> 16, m->fs[s] & 0xFFFF, m->prec);
    rmodel_update(m, s);
}

/* Codes the low n bits of v evenly, in pieces of at most 16 bits, high piece first. */
static void enc3_raw(ChainEnc *e, uint32_t v, int n) {
    while (n > 0) {
        int k = n > 16 ? n - 16 : n;
        n -= k;
        enc3_push(e, (v >> n) & ((1u << k) - 1), 1, k);
    }
}

/* Ends a version 3 block: codes its symbols in reverse and writes the final state, then
 * the 16-bit words in the order the decoder reads them. */
void chain_rans_enc_finish(ChainEnc *e) {
    size_t cap = 4 + 4 * e->nsym + 16;
    uint16_t *w = malloc(cap / 2 * sizeof *w);
    if (!w) {
        e->oom = true;
        return;
    }
    size_t nw = 0;
    uint32_t x = RANS_LOW;
    for (size_t i = e->nsym; i-- > 0;) {
        const ChainSym *s = &e->sym[i];
        uint64_t xmax = (uint64_t)s->freq << (32 - s->prec);
        if (x >= xmax) {
            w[nw++] = (uint16_t)x;
            x >>= 16;
        }
        x = ((x / s->freq) << s->prec) + x % s->freq + s->start;
    }
    for (int i = 0; i < 4; i++) chain_out(e, (uint8_t)(x >> (8 * i)));
    while (nw-- > 0) {
        chain_out(e, (uint8_t)w[nw]);
        chain_out(e, (uint8_t)(w[nw] >> 8));
    }
    free(w);
}

/* Version 3's game header: as version 2's, each field one symbol. */
static void enc3_header(ChainEnc *e, const Game *g) {
    ChainRans *r = e->r;
    bool next = g->id == e->prev_id + 1;
    enc3(e, &r->id_next, !next);
    if (!next) enc3_raw(e, g->id, 32);
    e->prev_id = g->id;
    enc3(e, &r->ply0_zero, g->ply0 != 0);
    if (g->ply0) enc3_raw(e, g->ply0, 16);
    bool same = strcmp(g->start_fen, e->prev_fen) == 0;
    enc3(e, &r->fen_same, !same);
    if (!same) {
        size_t len = strlen(g->start_fen);
        enc3_raw(e, (uint32_t)len, 8);
        for (size_t i = 0; i < len; i++)
            enc3(e, &r->fen_char, (unsigned char)g->start_fen[i] & 127);
        memcpy(e->prev_fen, g->start_fen, len + 1);
    }
    uint32_t n = (uint32_t)g->nply + 1;
    int c = chain_class(n); /* 1..12 */
    enc3(e, &r->nply_class, (uint32_t)c);
    enc3_raw(e, n, c - 1);
    int ws = chain_wscore_code(g->white_score);
    enc3(e, &r->wscore, (uint32_t)ws);
    if (ws == 5) enc3_raw(e, (uint32_t)g->white_score, 10);
    enc3(e, &r->term, (uint32_t)g->termination & 15);
}

/* The depth's model of versions 3 to 7 (chain_depth_ctx, from version 7 chain_depth_ctx7). */
static inline int rans_depth_ctx(int version, int searched, int prev_depth, int prev_depth2) {
    return version >= 7 ? chain_depth_ctx7(searched, prev_depth, prev_depth2)
                        : chain_depth_ctx(searched, prev_depth);
}

/* Codes index i among n values (n >= 2) in the model of n's bit length. */
static inline void enc3_index(ChainEnc *e, int which, uint32_t i, uint32_t n) {
    if (n > 1) enc3(e, &e->r->idx[which][e->r->idx_key[n]], i);
}

/* Version 3's score: zero, or the size class of its difference from the prediction with
 * the sign and the bit after the leading one in one symbol, then the rest evenly. */
static void enc3_score(ChainEnc *e, int score, int pred, int searched, int *prev_class) {
    int d = score - pred;
    uint32_t mag = (uint32_t)(d < 0 ? -d : d);
    int c = chain_class(mag), neg = d < 0;
    RModel *m = &e->r->score[searched][*prev_class < EXP_CTX ? *prev_class : EXP_CTX - 1][pred < 0];
    *prev_class = c;
    if (c == 0) enc3(e, m, 0);
    else if (c == 1) enc3(e, m, 1 + (uint32_t)neg);
    else {
        enc3(e, m, 3 + 4 * (uint32_t)(c - 2) + 2 * (uint32_t)neg + ((mag >> (c - 2)) & 1));
        enc3_raw(e, mag, c - 2);
    }
}

/* Codes game g in version 3: per ply its flags (not for training, random, and one of not
 * searched, played the best, played another, best not legal) in one symbol, the best move's index,
 * the played move's, the score and the depth. */
bool chain_rans_enc_game(ChainEnc *e, const Game *g, Position *pos, CvError *err) {
    ChainRans *r = e->r;
    enc3_header(e, g);
    Move list[MAX_MOVES];
    int prev_flags = 16, prev_score = 0, prev_searched = 0, prev_depth = 0, prev_class = 0;
    int prev_depth2 = 0;
    for (int k = 0; k < g->nply; k++) {
        const GamePly *p = &g->ply[k];
        int n, pi, bi, searched = p->best != MOVE_NONE;
        if (!chain_enc_moves(pos, e->version, g, k, list, &n, &pi, &bi, err)) return false;
        int far = searched && bi < 0, differ = searched && p->played != p->best;
        int kind = !searched ? 0 : far ? 3 : differ ? 2 : 1;
        int flags = (p->unwritten != 0) | (p->random != 0) << 1 | kind << 2;
        enc3(e, &r->flags[k < 8 ? k : 8 + prev_flags], (uint32_t)flags);
        prev_flags = flags;
        if (searched) {
            if (bi >= 0) enc3_index(e, 0, (uint32_t)bi, (uint32_t)n);
            else enc3_raw(e, p->best, 32);
            if (differ) {
                if (bi >= 0) enc3_index(e, 1, (uint32_t)(pi < bi ? pi : pi - 1), (uint32_t)n - 1);
                else enc3_index(e, 1, (uint32_t)pi, (uint32_t)n);
            }
        } else {
            enc3_index(e, 1, (uint32_t)pi, (uint32_t)n);
        }
        int pred = searched && prev_searched ? -prev_score : 0;
        enc3_score(e, p->score, pred, searched, &prev_class);
        int ctx = rans_depth_ctx(e->version, searched, prev_depth, prev_depth2);
        int dd = p->depth - (searched ? prev_depth : 0);
        if (dd >= -DDELTA && dd <= DDELTA) {
            enc3(e, &r->depth[ctx], (uint32_t)(dd + DDELTA));
        } else {
            enc3(e, &r->depth[ctx], 2 * DDELTA + 1);
            enc3_raw(e, p->depth, 8);
        }
        prev_score = p->score;
        prev_searched = searched;
        if (searched) {
            prev_depth2 = prev_depth;
            prev_depth = p->depth;
        }
        pos_make(pos, p->played);
    }
    enc3_raw(e, (uint32_t)(pos->key >> 48), 16);
    return true;
}

/* The decoder's rANS state and input, copied into a local for a game's length: as fields
 * of the ChainDec they were stored and loaded again around every call the ply loop makes
 * (the generator's, make's), on the chain of symbols that the decoder waits for. */
typedef struct RansIn {
    uint32_t x;
    const uint8_t *in, *end;
} RansIn;

/* Brings the state back into [2^16, 2^32) after a symbol or raw bits took from it: one
 * 16-bit word in when it fell below 2^16 (one is always enough), zero past the end (a
 * truncated payload then fails its checks). The game header's and the raw fields'. */
static inline void dec3_renorm(RansIn *s) {
    if (s->x >= RANS_LOW) return;
    uint32_t w = 0;
    if (s->end - s->in >= 2) {
        w = (uint32_t)s->in[0] | (uint32_t)s->in[1] << 8;
        s->in += 2;
    } else {
        s->in = s->end;
    }
    s->x = s->x << 16 | w;
}

/* dec3_renorm in the ply loop, where at least DEC3_PLY_BYTES of the payload (or of the
 * zeros after its copied end: dec3_tail) lie ahead at each ply's start, more than a ply
 * reads: without a branch. Whether a word comes in follows the data, about once a
 * position, and a branch on it was mispredicted about as often (callgrind's branch
 * simulation; chess decoding 6% faster without). */
/* A ply reads at most 8 words, one a symbol and one or two a raw field: 5 symbols and the
 * score's and the depth's raw bits, or with the best move raw (32 bits) 4 symbols. */
#define DEC3_PLY_BYTES 32
static inline __attribute__((always_inline)) void dec3_renorm_ply(RansIn *s) {
    const uint32_t need = s->x < RANS_LOW;
    const uint32_t w = (uint32_t)s->in[0] | (uint32_t)s->in[1] << 8;
    s->x = s->x << (16 * need) | (w & -need);
    s->in += 2 * need;
}

/* Before a ply with fewer than DEC3_PLY_BYTES of payload ahead: the rest of the payload
 * (an even number of bytes: an odd last one is never read) copied into d->tail with zeros
 * after it, where the decoding goes on, so that the ply loop's reads stay in bounds and
 * read zeros past the end as dec3_renorm does; in the copy, a position past the end (the
 * zeros' reads) back at the end. */
static __attribute__((noinline)) void dec3_tail(ChainDec *d, RansIn *s) {
    if (d->in_tail) {
        if (s->in > s->end) s->in = s->end;
        return;
    }
    const size_t rem = (size_t)(s->end - s->in) & ~(size_t)1;
    _Static_assert(sizeof d->tail >= 2 * DEC3_PLY_BYTES, "the copy's zeros cover a ply");
    memset(d->tail, 0, sizeof d->tail);
    memcpy(d->tail, s->in, rem);
    s->in = d->tail;
    s->end = d->tail + rem;
    d->in_tail = true;
}

/* The decoder's model m before a symbol when its period is over (left 0): rebuilt, or at
 * its first symbol its tables made; false if out of memory. */
static __attribute__((noinline)) bool dec3_due(RModel *m) {
    if (!m->slot) return rmodel_open(m, true);
    rmodel_rebuild(m);
    return true;
}

/* Decodes one symbol of model m. The decoder rebuilds a model before the symbol after its
 * period rather than after the last one (the same frequencies for every symbol), so that
 * one test finds both a rebuild and a model's first use. may_be_wide false, a constant,
 * where m has at most 256 symbols (every model but the move indices'), which leaves out
 * the test of its slots' width. */
static inline __attribute__((always_inline)) uint32_t
dec3_of(RansIn *s, RModel *m, const bool may_be_wide, const bool ply) {
    assert(may_be_wide || !m->wide);
    if (__builtin_expect(m->left == 0, 0) && !dec3_due(m)) return 0;
    const uint32_t prec = m->prec, slot = s->x & ((1u << prec) - 1);
    const uint32_t sym = may_be_wide && __builtin_expect(m->wide, 0)
                             ? ((const uint16_t *)m->slot)[slot]
                             : ((const uint8_t *)m->slot)[slot];
    const uint32_t fs = m->fs[sym];
    s->x = (fs & 0xFFFF) * (s->x >> prec) + slot - (fs >> 16);
    if (ply) dec3_renorm_ply(s);
    else dec3_renorm(s);
    m->count[sym] += RANS_INC;
    m->left--;
    return sym;
}

/* A symbol of a model of at most 256 symbols, and of any model, in the ply loop; one of
 * the game header. */
static inline uint32_t dec3(RansIn *s, RModel *m) { return dec3_of(s, m, false, true); }
static inline uint32_t dec3_wide(RansIn *s, RModel *m) { return dec3_of(s, m, true, true); }
static inline uint32_t dec3_head(RansIn *s, RModel *m) { return dec3_of(s, m, false, false); }

/* Decodes n even bits coded by enc3_raw. */
static inline uint32_t dec3_raw(RansIn *s, int n) {
    uint32_t v = 0;
    while (n > 0) {
        int k = n > 16 ? n - 16 : n;
        n -= k;
        v = v << k | (s->x & ((1u << k) - 1));
        s->x >>= k;
        dec3_renorm(s);
    }
    return v;
}

/* Starts decoding a version 3 payload: the rANS state from its first four bytes. */
void chain_rans_dec_init(ChainDec *d) {
    for (int i = 0; i < 4; i++) d->x |= chain_in(d) << (8 * i);
}

/* Decodes a game header coded by enc3_header; false on a length beyond the game buffer. */
static bool dec3_header(ChainDec *d, RansIn *s, Game *g) {
    ChainRans *r = d->r;
    memset(g, 0, sizeof *g);
    g->id = dec3_head(s, &r->id_next) ? dec3_raw(s, 32) : d->prev_id + 1;
    d->prev_id = g->id;
    g->ply0 = (uint16_t)(dec3_head(s, &r->ply0_zero) ? dec3_raw(s, 16) : 0);
    if (dec3_head(s, &r->fen_same)) {
        uint32_t len = dec3_raw(s, 8);
        for (uint32_t i = 0; i < len; i++) d->prev_fen[i] = (char)dec3_head(s, &r->fen_char);
        d->prev_fen[len] = 0;
    }
    memcpy(g->start_fen, d->prev_fen, sizeof g->start_fen);
    int c = (int)dec3_head(s, &r->nply_class);
    if (c < 1) return false;
    uint32_t n = (1u << (c - 1)) | dec3_raw(s, c - 1);
    g->nply = (int)n - 1;
    int ws = (int)dec3_head(s, &r->wscore);
    g->white_score = ws == 5 ? (int)dec3_raw(s, 10) : ws * 250;
    g->termination = (int)dec3_head(s, &r->term);
    return ws <= 5 && g->nply >= 0 && g->nply < MAX_GAME_PLY;
}

/* Decodes an index among n values coded by enc3_index. */
static inline uint32_t dec3_index(RansIn *s, ChainRans *r, int which, uint32_t n) {
    return n > 1 ? dec3_wide(s, &r->idx[which][r->idx_key[n]]) : 0;
}

/* Decodes a score coded by enc3_score: from a table, without a branch on the symbol (the
 * size class follows the data, and branches on it were mispredicted). */
static inline int dec3_score(RansIn *s, ChainRans *r, int pred, int searched, int *prev_class) {
    RModel *m = &r->score[searched][*prev_class < EXP_CTX ? *prev_class : EXP_CTX - 1][pred < 0];
    const uint32_t e = r->score_sym[dec3(s, m)], rb = e >> 18 & 15, neg = e >> 27;
    const uint32_t raw = s->x & ((1u << rb) - 1);
    s->x >>= rb;
    dec3_renorm_ply(s);
    *prev_class = (int)(e >> 22 & 31);
    const uint32_t mag = (e & 0x3FFFF) | raw;
    return pred + (int)((mag ^ -neg) + neg);
}

/* The k-th move of the set, or MOVE_NONE when version 6's chess picks one that is not
 * legal (a legal move is never MOVE_NONE). */
static inline Move dec3_pick(const Position *pos, const MoveSet *ms, bool pseudo, int k) {
    return pseudo ? chess_pseudo_pick(pos, ms, k) : moveset_pick(ms, k);
}

/* The plies of a game coded by chain_rans_enc_game, its header read, decoded and replayed
 * on pos; false with err at an illegal coded move or a replay that ends elsewhere. */
static inline bool dec3_plies(ChainDec *d, RansIn *io, Game *g, Position *pos, uint8_t *rec,
                              int rsize, uint64_t *nrec, CvError *err) {
    /* the state in a local of this function, which gcc does not inline: through io it was
     * stored and loaded again at every symbol */
    RansIn st = *io, *s = &st;
    ChainRans *r = d->r;
    MoveSet ms;
    const bool pseudo = chain_pseudo(pos->var, d->version);
    const bool chess_rec = pseudo && rsize == RECORD_FIXED_SIZE + 64; /* record_size's */
    int prev_flags = 16, prev_score = 0, prev_searched = 0, prev_depth = 0, prev_class = 0;
    int prev_depth2 = 0;
    const int version = d->version;
    for (int k = 0; k < g->nply; k++) {
        GamePly *p = &g->ply[k];
        int n;
        if (__builtin_expect(s->end - s->in < DEC3_PLY_BYTES, 0)) dec3_tail(d, s);
        if (pseudo) { /* version 6's chess: the legal count only where the record wants it */
            n = chess_gen_pseudo_set(pos, &ms);
            p->legal = d->no_legal ? 0 : (uint16_t)pos->var->ops->count_legal(pos);
        } else {
            p->legal = (uint16_t)(n = chain_move_set(pos, d->version, &ms));
        }
        int flags = (int)dec3(s, &r->flags[k < 8 ? k : 8 + prev_flags]);
        prev_flags = flags;
        p->unwritten = (uint8_t)(flags & 1);
        p->random = (uint8_t)(flags >> 1 & 1);
        int kind = flags >> 2, searched = kind != 0;
        if (n == 0) goto illegal;
        if (searched) {
            int bi = -1;
            if (kind != 3) {
                bi = (int)dec3_index(s, r, 0, (uint32_t)n);
                if (bi >= n) goto illegal;
                p->best = dec3_pick(pos, &ms, pseudo, bi);
                if (p->best == MOVE_NONE) goto illegal;
            } else {
                p->best = dec3_raw(s, 32);
            }
            if (kind >= 2) {
                uint32_t pi;
                if (bi >= 0) {
                    if (n < 2) goto illegal;
                    pi = dec3_index(s, r, 1, (uint32_t)n - 1);
                    if (pi >= (uint32_t)n - 1) goto illegal;
                    if ((int)pi >= bi) pi++;
                } else {
                    pi = dec3_index(s, r, 1, (uint32_t)n);
                    if (pi >= (uint32_t)n) goto illegal;
                }
                p->played = dec3_pick(pos, &ms, pseudo, (int)pi);
                if (p->played == MOVE_NONE) goto illegal;
            } else {
                if (bi < 0) goto illegal;
                p->played = p->best;
            }
        } else {
            p->best = MOVE_NONE;
            uint32_t pi = dec3_index(s, r, 1, (uint32_t)n);
            if (pi >= (uint32_t)n) goto illegal;
            p->played = dec3_pick(pos, &ms, pseudo, (int)pi);
            if (p->played == MOVE_NONE) goto illegal;
        }
        int pred = searched && prev_searched ? -prev_score : 0;
        p->score = (int16_t)dec3_score(s, r, pred, searched, &prev_class);
        int ctx = rans_depth_ctx(version, searched, prev_depth, prev_depth2);
        int sym = (int)dec3(s, &r->depth[ctx]);
        p->depth = (uint8_t)(sym <= 2 * DDELTA ? (searched ? prev_depth : 0) + sym - DDELTA
                                               : (int)dec3_raw(s, 8));
        prev_score = p->score;
        prev_searched = searched;
        if (searched) {
            prev_depth2 = prev_depth;
            prev_depth = p->depth;
        }
        if (rec && !p->unwritten)
            chain_dec_record(d, g, k, pos, ms.check, rec, rsize, nrec, chess_rec);
        if (pseudo) chess_make_replay(pos, p->played);
        else pos_make(pos, p->played);
        continue;
    illegal:
        *io = st;
        return chain_dec_illegal(g, k, err);
    }
    const uint32_t key16 = dec3_raw(s, 16);
    *io = st;
    return chain_dec_end(g, pos, key16, err);
}

/* Decodes a game coded by chain_rans_enc_game, as chain_dec_game. */
bool chain_rans_dec_game(ChainDec *d, const Variant *v, Game *g, Position *pos, uint8_t *rec,
                         int rsize, uint64_t *nrec, CvError *err) {
    RansIn s = {d->x, d->in, d->end};
    bool ok = chain_dec_start(d, v, g, dec3_header(d, &s, g), pos, err) &&
              dec3_plies(d, &s, g, pos, rec, rsize, nrec, err);
    d->x = s.x;
    d->in = s.in;
    d->end = s.end; /* in d->tail from the block's last plies (dec3_tail) */
    return ok;
}
