/* chain_rc.c - chain versions 1 and 2 (FORMAT.md, "Payload, versions 1 and 2"): an adaptive
 * binary range coder (the LZMA construction: 11-bit probabilities, 32-bit range, carry
 * through a cache byte) and the models that code a game's start, moves, labels and flags
 * with it. Still read; written only when asked for. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chain_internal.h"

#define PROB_BITS  11
#define PROB_ONE   (1u << PROB_BITS)
#define PROB_SHIFT 4 /* adaptation rate: a model moves 1/16 of the way per bit */
#define RC_TOP     (1u << 24)

#define IDX_BITS  11 /* move indices below MAX_MOVES = 1024 + an escape */
#define EXP_MAX   18 /* size classes of a score difference (up to 2^17) */
#define MANT_TOP1 3  /* modelled mantissa bits of a score difference, version 1 */
#define MANT_TOP2 1  /* and version 2 (more are no smaller, and cost as much to decode) */

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

/* Every probability at one half. */
static void chain_model_reset(ChainModel *m) {
    Prob *p = (Prob *)m;
    for (size_t i = 0; i < sizeof *m / sizeof *p; i++) p[i] = PROB_ONE / 2;
}

/* ---------------------------------------------------------------- encoder */

/* Moves the top byte of low out, resolving a pending carry through the cache. */
static void rc_shift_low(ChainEnc *e) {
    if ((uint32_t)e->low < 0xFF000000u || (e->low >> 32) != 0) {
        uint8_t carry = (uint8_t)(e->low >> 32);
        uint8_t temp = e->cache;
        do {
            chain_out(e, (uint8_t)(temp + carry));
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

/* Starts a version 1 or 2 block: every probability at one half, the coder's full range. */
bool chain_rc_enc_init(ChainEnc *e) {
    e->range = 0xFFFFFFFFu;
    e->cache_size = 1;
    e->m = malloc(sizeof *e->m);
    if (!e->m) return false;
    chain_model_reset(e->m);
    return true;
}

/* Flushes the coder's last bytes. */
void chain_rc_enc_finish(ChainEnc *e) {
    for (int i = 0; i < 5; i++) rc_shift_low(e);
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

/* Codes game g in version 1 or 2 (pos at its start): the header, then per ply the flags, the
 * moves' indices, the score and the depth, bit by bit. */
bool chain_rc_enc_game(ChainEnc *e, const Game *g, Position *pos, CvError *err) {
    ChainModel *m = e->m;
    enc_header(e, g);
    Move list[MAX_MOVES];
    int prev_unwritten = 0, prev_random = 0, prev_score = 0, prev_searched = 0, prev_depth = 0;
    int prev_class = 0, prev_usual = 0;
    for (int k = 0; k < g->nply; k++) {
        const GamePly *p = &g->ply[k];
        int n, pi, bi, searched = p->best != MOVE_NONE;
        if (!chain_enc_moves(pos, e->version, g, k, list, &n, &pi, &bi, err)) return false;
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
    return true;
}

/* ---------------------------------------------------------------- decoder */

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
        d->code = d->code << 8 | chain_in(d);
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
            d->code = d->code << 8 | chain_in(d);
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
    if (c >= EXP_MAX) c = EXP_MAX - 1; /* only a corrupt payload (its key check fails) */
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

/* Starts decoding a version 1 or 2 payload: every probability at one half, the first five
 * bytes into the code. */
bool chain_rc_dec_init(ChainDec *d) {
    d->m = malloc(sizeof *d->m);
    if (!d->m) return false;
    chain_model_reset(d->m);
    d->range = 0xFFFFFFFFu;
    for (int i = 0; i < 5; i++) d->code = d->code << 8 | chain_in(d);
    return true;
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

/* Decodes a game coded by chain_rc_enc_game, as chain_dec_game. */
bool chain_rc_dec_game(ChainDec *d, const Variant *v, Game *g, Position *pos, uint8_t *rec,
                       int rsize, uint64_t *nrec, CvError *err) {
    ChainModel *m = d->m;
    if (!chain_dec_start(d, v, g, rd_header(d, g), pos, err)) return false;
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
        if (rec && !p->unwritten) chain_dec_record(d, g, k, pos, -1, rec, rsize, nrec, false);
        pos_make(pos, p->played);
        continue;
    illegal:
        return chain_dec_illegal(g, k, err);
    }
    return chain_dec_end(g, pos, rd_direct(d, 16), err);
}
