/* chain.c - the chain codec: an adaptive binary range coder (the LZMA construction: 11-bit
 * probabilities, 32-bit range, carry through a cache byte) for versions 1 and 2, rANS over
 * adaptive frequency models for version 3, and the models that code a game as its start
 * and its moves, labels and flags. */
#include "chain.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "record.h"

#define PROB_BITS  11
#define PROB_ONE   (1u << PROB_BITS)
#define PROB_SHIFT 4 /* adaptation rate: a model moves 1/16 of the way per bit */
#define RC_TOP     (1u << 24)

#define IDX_BITS  11 /* move indices below MAX_MOVES = 1024 + an escape */
#define DEPTH_CTX 65 /* previous searched depth 0..63, and 64 for an unsearched ply */
#define EXP_CTX   8  /* bucket of the previous score difference's size */
#define EXP_MAX   18 /* size classes of a score difference (up to 2^17) */
#define MANT_TOP1 3  /* modelled mantissa bits of a score difference, version 1 */
#define MANT_TOP2 1  /* and version 2 (more are no smaller, and cost as much to decode) */
#define DDELTA    3  /* version 2: depth differences -3..3 from the last searched depth */

typedef uint16_t Prob;

/* Every adaptive probability of a block. */
struct ChainModel {
    Prob idx[IDX_BITS + 1][1 << IDX_BITS]; /* move index tree, by the index's bit length */
    Prob unwritten[2];                     /* by the previous ply's */
    Prob random[16][2];                    /* by ply (capped) and the previous ply's */
    Prob searched[2];                      /* by the random flag */
    Prob best_legal[1];
    Prob same[2]; /* played == best, by the random flag */
    Prob szero[2];
    Prob ssign[2][2]; /* by searched and the sign of the prediction */
    Prob sexp[2][EXP_CTX][EXP_MAX];
    Prob smant[EXP_MAX][8]; /* top three mantissa bits */
    Prob depth[DEPTH_CTX][256];
    Prob id_next[1], ply0_zero[1], fen_same[1];
    Prob fen_len[256];
    Prob fen_char[128][256]; /* by the previous character */
    Prob nply_exp[16];
    Prob wscore[8];
    Prob term[16];
    /* version 2 */
    Prob usual[2];                          /* by the previous ply's */
    Prob sclass[2][EXP_CTX][32];            /* score size class tree, 0 = no difference */
    Prob ddelta[DEPTH_CTX][2 * DDELTA + 2]; /* depth difference tree, the last an escape */
};

static ChainRans *chain_rans_new(bool decoder);
static void chain_rans_free(ChainRans *r);
static void enc3_finish(ChainEnc *e);
static bool enc3_game(ChainEnc *e, const Game *g, Position *pos, CvError *err);

/* Every probability at one half. */
static void chain_model_reset(ChainModel *m) {
    Prob *p = (Prob *)m;
    for (size_t i = 0; i < sizeof *m / sizeof *p; i++) p[i] = PROB_ONE / 2;
}

/* ---------------------------------------------------------------- encoder */

/* Appends one byte to the payload, growing it. */
static void rc_out(ChainEnc *e, uint8_t b) {
    if (e->len == e->cap) {
        size_t cap = e->cap ? 2 * e->cap : 1 << 16;
        uint8_t *o = realloc(e->out, cap);
        if (!o) {
            e->oom = true;
            return;
        }
        e->out = o;
        e->cap = cap;
    }
    e->out[e->len++] = b;
}

/* Moves the top byte of low out, resolving a pending carry through the cache. */
static void rc_shift_low(ChainEnc *e) {
    if ((uint32_t)e->low < 0xFF000000u || (e->low >> 32) != 0) {
        uint8_t carry = (uint8_t)(e->low >> 32);
        uint8_t temp = e->cache;
        do {
            rc_out(e, (uint8_t)(temp + carry));
            temp = 0xFF;
        } while (--e->cache_size != 0);
        e->cache = (uint8_t)(e->low >> 24);
    }
    e->cache_size++;
    e->low = (e->low & 0x00FFFFFFu) << 8;
}

/* Codes one bit with probability *p of a zero, and adapts *p. */
static inline void rc_bit(ChainEnc *e, Prob *p, int bit) {
    uint32_t bound = (e->range >> PROB_BITS) * *p;
    if (!bit) {
        e->range = bound;
        *p = (Prob)(*p + ((PROB_ONE - *p) >> PROB_SHIFT));
    } else {
        e->low += bound;
        e->range -= bound;
        *p = (Prob)(*p - (*p >> PROB_SHIFT));
    }
    while (e->range < RC_TOP) {
        e->range <<= 8;
        rc_shift_low(e);
    }
}

/* Codes the low n bits of v with probability one half each, high bit first. */
static void rc_direct(ChainEnc *e, uint32_t v, int n) {
    while (n--) {
        e->range >>= 1;
        if ((v >> n) & 1) e->low += e->range;
        while (e->range < RC_TOP) {
            e->range <<= 8;
            rc_shift_low(e);
        }
    }
}

/* Codes v < 2^n through a binary tree of adaptive probabilities (tree[1 .. 2^n)). */
static void rc_tree(ChainEnc *e, Prob *tree, uint32_t v, int n) {
    uint32_t node = 1;
    while (n--) {
        int bit = (v >> n) & 1;
        rc_bit(e, &tree[node], bit);
        node = node << 1 | (uint32_t)bit;
    }
}

/* Bits needed for the values 0 .. n-1. */
static inline int chain_bits(uint32_t n) { return n <= 1 ? 0 : 32 - __builtin_clz(n - 1); }

/* Codes index i among n values in the move-index tree of its bit length, leaving out the
 * bits the bound n forces (a 1 that would reach n). */
static void enc_index(ChainEnc *e, uint32_t i, uint32_t n) {
    int bits = chain_bits(n);
    Prob *tree = e->m->idx[bits];
    uint32_t node = 1, val = 0;
    for (int b = bits - 1; b >= 0; b--) {
        int bit = (i >> b) & 1;
        if ((val | 1u << b) < n) rc_bit(e, &tree[node], bit);
        val |= (uint32_t)bit << b;
        node = node << 1 | (uint32_t)bit;
    }
}

/* Size class of a score difference's magnitude: floor(log2 m) + 1, 0 for 0. */
static inline int chain_class(uint32_t m) { return m ? 32 - __builtin_clz(m) : 0; }

/* Codes the bits of mag (of size class c) after its leading one: the first mtop modelled,
 * the rest direct. */
static void enc_mantissa(ChainEnc *e, uint32_t mag, int c, int mtop) {
    int rest = c - 1, top = rest < mtop ? rest : mtop;
    uint32_t node = 1;
    for (int b = 0; b < top; b++) {
        int bit = (mag >> (rest - 1 - b)) & 1;
        rc_bit(e, &e->m->smant[c][node], bit);
        node = node << 1 | (uint32_t)bit;
    }
    rc_direct(e, mag, rest - top);
}

/* Codes a score as its difference from the prediction: zero flag, sign, size class
 * (unary, by the size of the previous difference), three modelled mantissa bits and the
 * rest direct. */
static void enc_score(ChainEnc *e, int score, int pred, int searched, int *prev_class) {
    ChainModel *m = e->m;
    int d = score - pred;
    rc_bit(e, &m->szero[searched], d != 0);
    if (!d) {
        *prev_class = 0;
        return;
    }
    rc_bit(e, &m->ssign[searched][pred < 0], d < 0);
    uint32_t mag = (uint32_t)(d < 0 ? -d : d);
    int c = chain_class(mag); /* 1..17 */
    Prob *ex = m->sexp[searched][*prev_class < EXP_CTX ? *prev_class : EXP_CTX - 1];
    for (int i = 1; i < EXP_MAX; i++) {
        rc_bit(e, &ex[i], c > i);
        if (c <= i) break;
    }
    enc_mantissa(e, mag, c, MANT_TOP1);
    *prev_class = c;
}

/* Version 2's score: the size class of its difference from the prediction (0: none) in a
 * 5-bit tree by the previous difference's class, then the sign and the mantissa, its first
 * bit modelled. */
static void enc_score2(ChainEnc *e, int score, int pred, int searched, int *prev_class) {
    ChainModel *m = e->m;
    int d = score - pred;
    uint32_t mag = (uint32_t)(d < 0 ? -d : d);
    int c = chain_class(mag); /* 0..17 */
    rc_tree(e, m->sclass[searched][*prev_class < EXP_CTX ? *prev_class : EXP_CTX - 1], (uint32_t)c,
            5);
    *prev_class = c;
    if (!c) return;
    rc_bit(e, &m->ssign[searched][pred < 0], d < 0);
    enc_mantissa(e, mag, c, MANT_TOP2);
}

/* The depth's context: the last searched depth (capped), or the unsearched one. */
static inline int chain_depth_ctx(int searched, int prev_depth) {
    return searched ? (prev_depth < 63 ? prev_depth : 63) : DEPTH_CTX - 1;
}

/* Version 2's depth: its difference from the last searched depth (from 0 on an unsearched
 * ply) in a 3-bit tree, -3..3 or an escape followed by the depth in version 1's tree. */
static void enc_depth2(ChainEnc *e, int depth, int searched, int prev_depth) {
    ChainModel *m = e->m;
    int ctx = chain_depth_ctx(searched, prev_depth);
    int dd = depth - (searched ? prev_depth : 0);
    if (dd >= -DDELTA && dd <= DDELTA) {
        rc_tree(e, m->ddelta[ctx], (uint32_t)(dd + DDELTA), 3);
    } else {
        rc_tree(e, m->ddelta[ctx], 2 * DDELTA + 1, 3);
        rc_tree(e, m->depth[ctx], (uint32_t)depth, 8);
    }
}

bool chain_enc_init(ChainEnc *e, uint32_t first_id, int version) {
    memset(e, 0, sizeof *e);
    e->version = version;
    e->range = 0xFFFFFFFFu;
    e->cache_size = 1;
    e->prev_id = first_id - 1;
    if (version >= 3) return (e->r = chain_rans_new(false)) != NULL;
    e->m = malloc(sizeof *e->m);
    if (!e->m) return false;
    chain_model_reset(e->m);
    return true;
}

void chain_enc_finish(ChainEnc *e) {
    if (e->version >= 3) enc3_finish(e);
    else
        for (int i = 0; i < 5; i++) rc_shift_low(e);
}

void chain_enc_free(ChainEnc *e) {
    free(e->out);
    free(e->m);
    free(e->sym);
    chain_rans_free(e->r);
    memset(e, 0, sizeof *e);
}

/* The five usual results by White's score per mille; 5 marks another value. */
static int chain_wscore_code(int ws) {
    return ws % 250 == 0 && ws >= 0 && ws <= 1000 ? ws / 250 : 5;
}

/* Codes the game header: id, first ply, start, length, result and termination. */
static void enc_header(ChainEnc *e, const Game *g) {
    ChainModel *m = e->m;
    bool next = g->id == e->prev_id + 1;
    rc_bit(e, &m->id_next[0], !next);
    if (!next) rc_direct(e, g->id, 32);
    e->prev_id = g->id;
    rc_bit(e, &m->ply0_zero[0], g->ply0 != 0);
    if (g->ply0) rc_direct(e, g->ply0, 16);
    bool same = strcmp(g->start_fen, e->prev_fen) == 0;
    rc_bit(e, &m->fen_same[0], !same);
    if (!same) {
        size_t len = strlen(g->start_fen);
        rc_tree(e, m->fen_len, (uint32_t)len, 8);
        int prev = 0;
        for (size_t i = 0; i < len; i++) {
            int c = (unsigned char)g->start_fen[i];
            rc_tree(e, m->fen_char[prev & 127], (uint32_t)c, 8);
            prev = c;
        }
        memcpy(e->prev_fen, g->start_fen, len + 1);
    }
    uint32_t n = (uint32_t)g->nply + 1;
    int c = chain_class(n); /* 1..12 */
    for (int i = 1; i < 16; i++) {
        rc_bit(e, &m->nply_exp[i], c > i);
        if (c <= i) break;
    }
    rc_direct(e, n, c - 1);
    int ws = chain_wscore_code(g->white_score);
    rc_tree(e, m->wscore, (uint32_t)ws, 3);
    if (ws == 5) rc_direct(e, (uint32_t)g->white_score, 10);
    rc_tree(e, m->term, (uint32_t)g->termination & 15, 4);
}

/* Index of m in list[0..n), or -1. */
static int chain_find(const Move *list, int n, Move m) {
    for (int i = 0; i < n; i++)
        if (list[i] == m) return i;
    return -1;
}

/* Codes a ply's flags one by one (version 1, and version 2's unusual plies): not for
 * training, random, searched and, searched, whether the best move is not legal. */
static void enc_flags(ChainEnc *e, const GamePly *p, int k, int prev_unwritten, int prev_random,
                      int searched, int bi) {
    ChainModel *m = e->m;
    rc_bit(e, &m->unwritten[prev_unwritten], p->unwritten != 0);
    rc_bit(e, &m->random[k < 15 ? k : 15][prev_random], p->random != 0);
    rc_bit(e, &m->searched[p->random != 0], searched);
    if (searched) rc_bit(e, &m->best_legal[0], bi < 0);
}

bool chain_enc_game(ChainEnc *e, const Variant *v, const Game *g, Position *pos, CvError *err) {
    ChainModel *m = e->m;
    if (!pos_from_fen(pos, v, g->start_fen, err)) return false;
    if (e->version >= 3) {
        if (!enc3_game(e, g, pos, err)) return false;
        if (e->oom) snprintf(err->msg, sizeof err->msg, "out of memory");
        return !e->oom;
    }
    enc_header(e, g);
    Move list[MAX_MOVES];
    int prev_unwritten = 0, prev_random = 0, prev_score = 0, prev_searched = 0, prev_depth = 0;
    int prev_class = 0, prev_usual = 0;
    for (int k = 0; k < g->nply; k++) {
        const GamePly *p = &g->ply[k];
        int n = pos_legal_moves(pos, list);
        int pi = chain_find(list, n, p->played);
        if (pi < 0) {
            snprintf(err->msg, sizeof err->msg, "game %u ply %d: the move played is not legal",
                     (unsigned)g->id, k + g->ply0);
            return false;
        }
        int searched = p->best != MOVE_NONE;
        int bi = searched ? chain_find(list, n, p->best) : -1;
        if (e->version >= 2) {
            /* the usual ply (written, searched, not random, best legal) in one decision */
            int usual = !p->unwritten && !p->random && searched && bi >= 0;
            rc_bit(e, &m->usual[prev_usual], !usual);
            if (!usual) enc_flags(e, p, k, prev_unwritten, prev_random, searched, bi);
            prev_usual = usual;
        } else {
            enc_flags(e, p, k, prev_unwritten, prev_random, searched, bi);
        }
        if (searched) {
            if (bi >= 0) enc_index(e, (uint32_t)bi, (uint32_t)n);
            else rc_direct(e, p->best, 32);
            bool same = p->played == p->best;
            rc_bit(e, &m->same[p->random != 0], !same);
            if (!same) {
                if (bi >= 0) enc_index(e, (uint32_t)(pi < bi ? pi : pi - 1), (uint32_t)n - 1);
                else enc_index(e, (uint32_t)pi, (uint32_t)n);
            }
        } else {
            enc_index(e, (uint32_t)pi, (uint32_t)n);
        }
        int pred = searched && prev_searched ? -prev_score : 0;
        if (e->version >= 2) {
            enc_score2(e, p->score, pred, searched, &prev_class);
            enc_depth2(e, p->depth, searched, prev_depth);
        } else {
            enc_score(e, p->score, pred, searched, &prev_class);
            rc_tree(e, m->depth[chain_depth_ctx(searched, prev_depth)], p->depth, 8);
        }
        prev_unwritten = p->unwritten != 0;
        prev_random = p->random != 0;
        prev_score = p->score;
        prev_searched = searched;
        if (searched) prev_depth = p->depth;
        pos_make(pos, p->played);
    }
    /* 16 bits of the last position's key: a replay under other rules ends elsewhere */
    rc_direct(e, (uint32_t)(pos->key >> 48), 16);
    if (e->oom) snprintf(err->msg, sizeof err->msg, "out of memory");
    return !e->oom;
}

/* ---------------------------------------------------------------- decoder */

/* Next payload byte; zero past the end (a truncated payload then fails its checks). */
static inline uint32_t rc_in(ChainDec *d) { return d->in < d->end ? *d->in++ : 0; }

/* Decodes one bit with probability *p of a zero, and adapts *p as the encoder did. */
static inline int rd_bit(ChainDec *d, Prob *p) {
    uint32_t bound = (d->range >> PROB_BITS) * *p;
    int bit;
    if (d->code < bound) {
        d->range = bound;
        *p = (Prob)(*p + ((PROB_ONE - *p) >> PROB_SHIFT));
        bit = 0;
    } else {
        d->code -= bound;
        d->range -= bound;
        *p = (Prob)(*p - (*p >> PROB_SHIFT));
        bit = 1;
    }
    if (d->range < RC_TOP) {
        d->range <<= 8;
        d->code = d->code << 8 | rc_in(d);
    }
    return bit;
}

/* Decodes n direct bits, high bit first. */
static uint32_t rd_direct(ChainDec *d, int n) {
    uint32_t v = 0;
    while (n--) {
        d->range >>= 1;
        uint32_t bit = d->code >= d->range;
        if (bit) d->code -= d->range;
        v = v << 1 | bit;
        if (d->range < RC_TOP) {
            d->range <<= 8;
            d->code = d->code << 8 | rc_in(d);
        }
    }
    return v;
}

/* Decodes a value of n bits coded by rc_tree. */
static uint32_t rd_tree(ChainDec *d, Prob *tree, int n) {
    uint32_t node = 1;
    for (int i = 0; i < n; i++) node = node << 1 | (uint32_t)rd_bit(d, &tree[node]);
    return node - (1u << n);
}

/* Decodes an index among n values coded by enc_index. */
static uint32_t rd_index(ChainDec *d, uint32_t n) {
    int bits = chain_bits(n);
    Prob *tree = d->m->idx[bits];
    uint32_t node = 1, val = 0;
    for (int b = bits - 1; b >= 0; b--) {
        int bit = 0;
        if ((val | 1u << b) < n) bit = rd_bit(d, &tree[node]);
        val |= (uint32_t)bit << b;
        node = node << 1 | (uint32_t)bit;
    }
    return val;
}

/* Decodes a magnitude of size class c coded by enc_mantissa. */
static uint32_t rd_mantissa(ChainDec *d, int c, int mtop) {
    int rest = c - 1, top = rest < mtop ? rest : mtop;
    uint32_t node = 1;
    for (int b = 0; b < top; b++) node = node << 1 | (uint32_t)rd_bit(d, &d->m->smant[c][node]);
    uint32_t mag = node << (rest - top); /* the leading 1 and the top bits */
    return mag | rd_direct(d, rest - top);
}

/* Decodes a score coded by enc_score. */
static int rd_score(ChainDec *d, int pred, int searched, int *prev_class) {
    ChainModel *m = d->m;
    if (!rd_bit(d, &m->szero[searched])) {
        *prev_class = 0;
        return pred;
    }
    int neg = rd_bit(d, &m->ssign[searched][pred < 0]);
    Prob *ex = m->sexp[searched][*prev_class < EXP_CTX ? *prev_class : EXP_CTX - 1];
    int c = 1;
    while (c < EXP_MAX && rd_bit(d, &ex[c])) c++;
    *prev_class = c;
    int diff = (int)rd_mantissa(d, c, MANT_TOP1);
    return pred + (neg ? -diff : diff);
}

/* Decodes a score coded by enc_score2. */
static int rd_score2(ChainDec *d, int pred, int searched, int *prev_class) {
    ChainModel *m = d->m;
    int c =
        (int)rd_tree(d, m->sclass[searched][*prev_class < EXP_CTX ? *prev_class : EXP_CTX - 1], 5);
    if (c >= EXP_MAX) c = EXP_MAX - 1; /* only a corrupt payload: its key check fails */
    *prev_class = c;
    if (!c) return pred;
    int neg = rd_bit(d, &m->ssign[searched][pred < 0]);
    int diff = (int)rd_mantissa(d, c, MANT_TOP2);
    return pred + (neg ? -diff : diff);
}

/* Decodes a depth coded by enc_depth2. */
static int rd_depth2(ChainDec *d, int searched, int prev_depth) {
    ChainModel *m = d->m;
    int ctx = chain_depth_ctx(searched, prev_depth);
    int s = (int)rd_tree(d, m->ddelta[ctx], 3);
    if (s <= 2 * DDELTA) return (searched ? prev_depth : 0) + s - DDELTA;
    return (int)rd_tree(d, m->depth[ctx], 8);
}

bool chain_dec_init(ChainDec *d, const uint8_t *payload, size_t len, uint32_t first_id,
                    int version) {
    memset(d, 0, sizeof *d);
    d->version = version;
    d->start = malloc(sizeof *d->start);
    if (version >= 3) d->r = chain_rans_new(true);
    else d->m = malloc(sizeof *d->m);
    if (!(version >= 3 ? (void *)d->r : (void *)d->m) || !d->start) {
        chain_dec_free(d);
        return false;
    }
    d->in = payload;
    d->end = payload + len;
    d->prev_id = first_id - 1;
    if (version >= 3) {
        for (int i = 0; i < 4; i++) d->x |= rc_in(d) << (8 * i);
        return true;
    }
    chain_model_reset(d->m);
    d->range = 0xFFFFFFFFu;
    for (int i = 0; i < 5; i++) d->code = d->code << 8 | rc_in(d);
    return true;
}

void chain_dec_free(ChainDec *d) {
    free(d->m);
    free(d->start);
    chain_rans_free(d->r);
    d->m = NULL;
    d->start = NULL;
    d->r = NULL;
}

/* Sets pos to the game's start: a copy of the last start when the FEN is the same (most
 * games of a run start alike; reading a FEN costs as much as a hundred plies' replay). */
static bool dec_start(ChainDec *d, const Variant *v, const char *fen, Position *pos, CvError *err) {
    if (d->start_fen[0] && d->start->var == v && strcmp(d->start_fen, fen) == 0) {
        pos_copy(pos, d->start);
        return true;
    }
    if (!pos_from_fen(pos, v, fen, err)) return false;
    pos_copy(d->start, pos);
    snprintf(d->start_fen, sizeof d->start_fen, "%s", fen);
    return true;
}

/* Fills the record of written ply k at pos (both versions' decoders), when d->keep wants it. */
static void dec_record(ChainDec *d, const Game *g, int k, const Position *pos, uint8_t *rec,
                       int rsize, uint64_t *nrec) {
    bool check = pos_in_check(pos);
    if (!d->keep || d->keep(d->keep_ctx, g, k, pos, check)) {
        record_fill(rec + *nrec * (uint64_t)rsize, rsize, g, k, pos, check);
        ++*nrec;
    }
}

/* The error of a coded move the rules refuse at ply k; returns false. */
static bool dec_illegal(const Game *g, int k, CvError *err) {
    snprintf(err->msg, sizeof err->msg,
             "game %u ply %d: the coded move is not legal here (written under other rules?)",
             (unsigned)g->id, k + g->ply0);
    return false;
}

/* Whether the game's last position has the 16 key bits coded at its end (key16); else the
 * error of a replay under other rules. */
static bool dec_end(const Game *g, const Position *pos, uint32_t key16, CvError *err) {
    if (key16 == (uint32_t)(pos->key >> 48)) return true;
    snprintf(err->msg, sizeof err->msg,
             "game %u ply %d: the replay ends on another position than the one written "
             "(written under other rules?)",
             (unsigned)g->id, g->nply + g->ply0);
    return false;
}

/* Decodes a game header coded by enc_header; false on a length beyond the game buffer. */
static bool rd_header(ChainDec *d, Game *g) {
    ChainModel *m = d->m;
    memset(g, 0, sizeof *g);
    g->id = rd_bit(d, &m->id_next[0]) ? rd_direct(d, 32) : d->prev_id + 1;
    d->prev_id = g->id;
    g->ply0 = (uint16_t)(rd_bit(d, &m->ply0_zero[0]) ? rd_direct(d, 16) : 0);
    if (rd_bit(d, &m->fen_same[0])) {
        uint32_t len = rd_tree(d, m->fen_len, 8);
        int prev = 0;
        for (uint32_t i = 0; i < len; i++) {
            int c = (int)rd_tree(d, m->fen_char[prev & 127], 8);
            d->prev_fen[i] = (char)c;
            prev = c;
        }
        d->prev_fen[len] = 0;
    }
    memcpy(g->start_fen, d->prev_fen, sizeof g->start_fen);
    int c = 1;
    while (c < 16 && rd_bit(d, &m->nply_exp[c])) c++;
    uint32_t n = (1u << (c - 1)) | rd_direct(d, c - 1);
    g->nply = (int)n - 1;
    int ws = (int)rd_tree(d, m->wscore, 3);
    g->white_score = ws == 5 ? (int)rd_direct(d, 10) : ws * 250;
    g->termination = (int)rd_tree(d, m->term, 4);
    return ws <= 5 && g->nply >= 0 && g->nply < MAX_GAME_PLY;
}

/* Decodes a ply's flags coded by enc_flags; the best move's "not legal" bit into *far. */
static int rd_flags(ChainDec *d, GamePly *p, int k, int prev_unwritten, int prev_random, int *far) {
    ChainModel *m = d->m;
    p->unwritten = (uint8_t)rd_bit(d, &m->unwritten[prev_unwritten]);
    p->random = (uint8_t)rd_bit(d, &m->random[k < 15 ? k : 15][prev_random]);
    int searched = rd_bit(d, &m->searched[p->random]);
    *far = searched ? rd_bit(d, &m->best_legal[0]) : 0;
    return searched;
}

/* ---------------------------------------------------------------- version 3: rANS */

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
#define IDX_MODELS 37         /* move index models by the count rounded (chain_idx_key) */

/* One adaptive frequency model. */
typedef struct RModel {
    uint16_t nsym, prec;
    uint32_t left, period; /* symbols until the next rebuild, and the last period */
    uint32_t *count;
    uint16_t *freq, *start;
    uint16_t *slot; /* the decoder's symbol of each of the 2^prec slots (NULL in the encoder) */
} RModel;

/* Every model of a version 3 block. */
struct ChainRans {
    RModel flags[FLAG_CTX];              /* a ply's flags, by the ply or the previous ply's */
    RModel idx[2][IDX_MODELS];           /* best move [0], played move [1], by the count's bits */
    RModel score[2][EXP_CTX][2];         /* by searched, the last class, the prediction's sign */
    RModel depth[DEPTH_CTX];             /* depth difference -3..3 or escape */
    RModel id_next, ply0_zero, fen_same; /* the game header's */
    RModel fen_char, nply_class, wscore, term;
    bool decoder;
};

/* Declares model m: nsym symbols, frequencies summing to 2^prec; its tables come at its
 * first use. */
static void rmodel_declare(RModel *m, int nsym, int prec) {
    memset(m, 0, sizeof *m);
    m->nsym = (uint16_t)nsym;
    m->prec = (uint16_t)prec;
}

/* Sets m's frequencies from its counts (each at least 1, the rounding's rest to the most
 * counted symbol) and, in a decoder, its slot table. */
static void rmodel_rebuild(RModel *m) {
    uint32_t n = m->nsym, one = 1u << m->prec, sum = 0, top = 0, total = 0;
    for (uint32_t s = 0; s < n; s++) total += m->count[s];
    if (total > RANS_LIMIT) {
        total = 0;
        for (uint32_t s = 0; s < n; s++) total += m->count[s] -= m->count[s] >> 1;
    }
    uint64_t scale = ((uint64_t)one << 32) / total; /* one / total in 32.32 fixed point */
    for (uint32_t s = 0; s < n; s++) {
        uint32_t f = (uint32_t)((m->count[s] * scale + (1u << 31)) >> 32);
        f += !f;
        m->freq[s] = (uint16_t)f;
        sum += f;
        if (m->count[s] > m->count[top]) top = s;
    }
    if (m->freq[top] + one <= sum) { /* the floors outweigh the top: spread the rest */
        sum = 0;
        for (uint32_t s = 0; s < n; s++) {
            uint32_t f = 1 + (uint32_t)((uint64_t)m->count[s] * (one - n) / total);
            m->freq[s] = (uint16_t)f;
            sum += f;
        }
    }
    m->freq[top] = (uint16_t)(m->freq[top] + one - sum);
    uint32_t start = 0;
    for (uint32_t s = 0; s < n; s++) {
        m->start[s] = (uint16_t)start;
        if (m->slot) {
            uint16_t *t = m->slot + start;
            for (uint32_t j = 0, f = m->freq[s]; j < f; j++) t[j] = (uint16_t)s;
        }
        start += m->freq[s];
    }
    uint32_t cap = one / RANS_CAP > 64 ? one / RANS_CAP : 64;
    m->period = m->period ? (m->period * 2 < cap ? m->period * 2 : cap) : RANS_FIRST;
    m->left = m->period;
}

/* Makes m's tables at its first use: every count 1, so the frequencies are even. */
static bool rmodel_open(RModel *m, bool decoder) {
    size_t n = m->nsym;
    m->count = malloc(n * sizeof *m->count + 2 * n * sizeof *m->freq);
    if (!m->count) return false;
    m->freq = (uint16_t *)(m->count + n);
    m->start = m->freq + n;
    if (decoder) {
        m->slot = malloc(((size_t)1 << m->prec) * sizeof *m->slot);
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

/* Counts symbol s in m and rebuilds when its period is over. */
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

/* The move index model of a count n of 2 to 1024: n itself up to 8, above n rounded up
 * to a quarter of its power of two, 4 models for each bit length from 4 to 10. */
static inline int chain_idx_key(uint32_t n) {
    if (n <= 8) return (int)n;
    int b = chain_bits(n), step = b - 3;
    return 9 + (b - 4) * 4 + (int)((n - 1) >> step) - 4;
}

/* The alphabet of move index model key (the inverse of chain_idx_key's rounding). */
static int chain_idx_size(int key) {
    if (key <= 8) return key < 2 ? 2 : key;
    int b = 4 + (key - 9) / 4, q = (key - 9) % 4;
    return (5 + q) << (b - 3);
}

/* Every model of a block, declared; NULL if out of memory. */
static ChainRans *chain_rans_new(bool decoder) {
    ChainRans *r = malloc(sizeof *r);
    if (!r) return NULL;
    for (int i = 0; i < FLAG_CTX; i++) rmodel_declare(&r->flags[i], 16, 11);
    for (int w = 0; w < 2; w++)
        for (int b = 0; b < IDX_MODELS; b++) {
            int a = chain_idx_size(b), bits = chain_bits((uint32_t)a);
            int prec = bits + 4 < 8 ? 8 : bits + 4 > 14 ? 14 : bits + 4;
            rmodel_declare(&r->idx[w][b], a, prec);
        }
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
    r->decoder = decoder;
    return r;
}

/* Frees r and its models' tables. */
static void chain_rans_free(ChainRans *r) {
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
    enc3_push(e, m->start[s], m->freq[s], m->prec);
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
static void enc3_finish(ChainEnc *e) {
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
    for (int i = 0; i < 4; i++) rc_out(e, (uint8_t)(x >> (8 * i)));
    while (nw-- > 0) {
        rc_out(e, (uint8_t)w[nw]);
        rc_out(e, (uint8_t)(w[nw] >> 8));
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

/* Codes index i among n values (n >= 2) in the model of n's bit length. */
static inline void enc3_index(ChainEnc *e, int which, uint32_t i, uint32_t n) {
    if (n > 1) enc3(e, &e->r->idx[which][chain_idx_key(n)], i);
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
static bool enc3_game(ChainEnc *e, const Game *g, Position *pos, CvError *err) {
    ChainRans *r = e->r;
    enc3_header(e, g);
    Move list[MAX_MOVES];
    int prev_flags = 16, prev_score = 0, prev_searched = 0, prev_depth = 0, prev_class = 0;
    for (int k = 0; k < g->nply; k++) {
        const GamePly *p = &g->ply[k];
        int n = pos_legal_moves(pos, list);
        int pi = chain_find(list, n, p->played);
        if (pi < 0) {
            snprintf(err->msg, sizeof err->msg, "game %u ply %d: the move played is not legal",
                     (unsigned)g->id, k + g->ply0);
            return false;
        }
        int searched = p->best != MOVE_NONE;
        int bi = searched ? chain_find(list, n, p->best) : -1;
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
        int ctx = chain_depth_ctx(searched, prev_depth);
        int dd = p->depth - (searched ? prev_depth : 0);
        if (dd >= -DDELTA && dd <= DDELTA) {
            enc3(e, &r->depth[ctx], (uint32_t)(dd + DDELTA));
        } else {
            enc3(e, &r->depth[ctx], 2 * DDELTA + 1);
            enc3_raw(e, p->depth, 8);
        }
        prev_score = p->score;
        prev_searched = searched;
        if (searched) prev_depth = p->depth;
        pos_make(pos, p->played);
    }
    enc3_raw(e, (uint32_t)(pos->key >> 48), 16);
    return true;
}

/* The next 16-bit word of a version 3 payload; zero past the end (a truncated payload
 * then fails its checks). */
static inline uint32_t dec3_word(ChainDec *d) {
    if (d->in + 2 <= d->end) {
        uint32_t w = (uint32_t)d->in[0] | (uint32_t)d->in[1] << 8;
        d->in += 2;
        return w;
    }
    d->in = d->end;
    return 0;
}

/* Decodes one symbol of model m. */
static inline uint32_t dec3(ChainDec *d, RModel *m) {
    if (__builtin_expect(!m->count, 0) && !rmodel_open(m, true)) return 0;
    uint32_t slot = d->x & ((1u << m->prec) - 1), s = m->slot[slot];
    d->x = m->freq[s] * (d->x >> m->prec) + slot - m->start[s];
    if (d->x < RANS_LOW) d->x = d->x << 16 | dec3_word(d);
    rmodel_update(m, s);
    return s;
}

/* Decodes n even bits coded by enc3_raw. */
static uint32_t dec3_raw(ChainDec *d, int n) {
    uint32_t v = 0;
    while (n > 0) {
        int k = n > 16 ? n - 16 : n;
        n -= k;
        v = v << k | (d->x & ((1u << k) - 1));
        d->x >>= k;
        if (d->x < RANS_LOW) d->x = d->x << 16 | dec3_word(d);
    }
    return v;
}

/* Decodes a game header coded by enc3_header; false on a length beyond the game buffer. */
static bool dec3_header(ChainDec *d, Game *g) {
    ChainRans *r = d->r;
    memset(g, 0, sizeof *g);
    g->id = dec3(d, &r->id_next) ? dec3_raw(d, 32) : d->prev_id + 1;
    d->prev_id = g->id;
    g->ply0 = (uint16_t)(dec3(d, &r->ply0_zero) ? dec3_raw(d, 16) : 0);
    if (dec3(d, &r->fen_same)) {
        uint32_t len = dec3_raw(d, 8);
        for (uint32_t i = 0; i < len; i++) d->prev_fen[i] = (char)dec3(d, &r->fen_char);
        d->prev_fen[len] = 0;
    }
    memcpy(g->start_fen, d->prev_fen, sizeof g->start_fen);
    int c = (int)dec3(d, &r->nply_class);
    if (c < 1) return false;
    uint32_t n = (1u << (c - 1)) | dec3_raw(d, c - 1);
    g->nply = (int)n - 1;
    int ws = (int)dec3(d, &r->wscore);
    g->white_score = ws == 5 ? (int)dec3_raw(d, 10) : ws * 250;
    g->termination = (int)dec3(d, &r->term);
    return ws <= 5 && g->nply >= 0 && g->nply < MAX_GAME_PLY;
}

/* Decodes an index among n values coded by enc3_index. */
static inline uint32_t dec3_index(ChainDec *d, int which, uint32_t n) {
    return n > 1 ? dec3(d, &d->r->idx[which][chain_idx_key(n)]) : 0;
}

/* Decodes a score coded by enc3_score. */
static int dec3_score(ChainDec *d, int pred, int searched, int *prev_class) {
    RModel *m = &d->r->score[searched][*prev_class < EXP_CTX ? *prev_class : EXP_CTX - 1][pred < 0];
    uint32_t s = dec3(d, m);
    if (s == 0) {
        *prev_class = 0;
        return pred;
    }
    if (s < 3) {
        *prev_class = 1;
        return s == 1 ? pred + 1 : pred - 1;
    }
    uint32_t t = s - 3;
    int c = 2 + (int)(t >> 2);
    *prev_class = c;
    int mag = (int)((2u | (t & 1)) << (c - 2) | dec3_raw(d, c - 2));
    return t & 2 ? pred - mag : pred + mag;
}

/* Decodes a game coded by enc3_game, as chain_dec_game. */
static bool dec3_game(ChainDec *d, const Variant *v, Game *g, Position *pos, uint8_t *rec,
                      int rsize, uint64_t *nrec, CvError *err) {
    ChainRans *r = d->r;
    if (!dec3_header(d, g)) {
        snprintf(err->msg, sizeof err->msg, "game %u: its header does not read", (unsigned)g->id);
        return false;
    }
    if (!dec_start(d, v, g->start_fen, pos, err)) return false;
    Move list[MAX_MOVES];
    int prev_flags = 16, prev_score = 0, prev_searched = 0, prev_depth = 0, prev_class = 0;
    for (int k = 0; k < g->nply; k++) {
        GamePly *p = &g->ply[k];
        int n = pos_legal_moves(pos, list);
        p->legal = (uint16_t)n;
        int flags = (int)dec3(d, &r->flags[k < 8 ? k : 8 + prev_flags]);
        prev_flags = flags;
        p->unwritten = (uint8_t)(flags & 1);
        p->random = (uint8_t)(flags >> 1 & 1);
        int kind = flags >> 2, searched = kind != 0;
        if (n == 0) goto illegal;
        if (searched) {
            int bi = -1;
            if (kind != 3) {
                bi = (int)dec3_index(d, 0, (uint32_t)n);
                if (bi >= n) goto illegal;
                p->best = list[bi];
            } else {
                p->best = dec3_raw(d, 32);
            }
            if (kind >= 2) {
                uint32_t pi;
                if (bi >= 0) {
                    if (n < 2) goto illegal;
                    pi = dec3_index(d, 1, (uint32_t)n - 1);
                    if (pi >= (uint32_t)n - 1) goto illegal;
                    if ((int)pi >= bi) pi++;
                } else {
                    pi = dec3_index(d, 1, (uint32_t)n);
                    if (pi >= (uint32_t)n) goto illegal;
                }
                p->played = list[pi];
            } else {
                if (bi < 0) goto illegal;
                p->played = p->best;
            }
        } else {
            p->best = MOVE_NONE;
            uint32_t pi = dec3_index(d, 1, (uint32_t)n);
            if (pi >= (uint32_t)n) goto illegal;
            p->played = list[pi];
        }
        int pred = searched && prev_searched ? -prev_score : 0;
        p->score = (int16_t)dec3_score(d, pred, searched, &prev_class);
        int ctx = chain_depth_ctx(searched, prev_depth);
        int s = (int)dec3(d, &r->depth[ctx]);
        p->depth = (uint8_t)(s <= 2 * DDELTA ? (searched ? prev_depth : 0) + s - DDELTA
                                             : (int)dec3_raw(d, 8));
        prev_score = p->score;
        prev_searched = searched;
        if (searched) prev_depth = p->depth;
        if (rec && !p->unwritten) dec_record(d, g, k, pos, rec, rsize, nrec);
        pos_make(pos, p->played);
        continue;
    illegal:
        return dec_illegal(g, k, err);
    }
    return dec_end(g, pos, dec3_raw(d, 16), err);
}

bool chain_dec_game(ChainDec *d, const Variant *v, Game *g, Position *pos, uint8_t *rec, int rsize,
                    uint64_t *nrec, CvError *err) {
    if (d->version >= 3) return dec3_game(d, v, g, pos, rec, rsize, nrec, err);
    ChainModel *m = d->m;
    if (!rd_header(d, g)) {
        snprintf(err->msg, sizeof err->msg, "game %u: its header does not read", (unsigned)g->id);
        return false;
    }
    if (!dec_start(d, v, g->start_fen, pos, err)) return false;
    Move list[MAX_MOVES];
    int prev_unwritten = 0, prev_random = 0, prev_score = 0, prev_searched = 0, prev_depth = 0;
    int prev_class = 0, prev_usual = 0;
    for (int k = 0; k < g->nply; k++) {
        GamePly *p = &g->ply[k];
        int n = pos_legal_moves(pos, list);
        p->legal = (uint16_t)n;
        int searched, far = 0;
        if (d->version >= 2) {
            int usual = !rd_bit(d, &m->usual[prev_usual]);
            prev_usual = usual;
            if (usual) {
                p->unwritten = p->random = 0;
                searched = 1;
            } else {
                searched = rd_flags(d, p, k, prev_unwritten, prev_random, &far);
            }
        } else {
            searched = rd_flags(d, p, k, prev_unwritten, prev_random, &far);
        }
        uint32_t pi;
        if (n == 0) goto illegal;
        if (searched) {
            int bi = -1;
            if (!far) {
                bi = (int)rd_index(d, (uint32_t)n);
                p->best = list[bi];
            } else {
                p->best = rd_direct(d, 32);
            }
            if (rd_bit(d, &m->same[p->random])) {
                if (bi >= 0) {
                    if (n < 2) goto illegal;
                    pi = rd_index(d, (uint32_t)n - 1);
                    if ((int)pi >= bi) pi++;
                } else {
                    pi = rd_index(d, (uint32_t)n);
                }
                p->played = list[pi];
            } else {
                if (bi < 0) goto illegal;
                p->played = p->best;
            }
        } else {
            p->best = MOVE_NONE;
            p->played = list[rd_index(d, (uint32_t)n)];
        }
        int pred = searched && prev_searched ? -prev_score : 0;
        if (d->version >= 2) {
            p->score = (int16_t)rd_score2(d, pred, searched, &prev_class);
            p->depth = (uint8_t)rd_depth2(d, searched, prev_depth);
        } else {
            p->score = (int16_t)rd_score(d, pred, searched, &prev_class);
            p->depth = (uint8_t)rd_tree(d, m->depth[chain_depth_ctx(searched, prev_depth)], 8);
        }
        prev_unwritten = p->unwritten;
        prev_random = p->random;
        prev_score = p->score;
        prev_searched = searched;
        if (searched) prev_depth = p->depth;
        if (rec && !p->unwritten) dec_record(d, g, k, pos, rec, rsize, nrec);
        pos_make(pos, p->played);
        continue;
    illegal:
        return dec_illegal(g, k, err);
    }
    return dec_end(g, pos, rd_direct(d, 16), err);
}
