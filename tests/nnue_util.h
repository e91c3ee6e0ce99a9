/* nnue_util.h - networks with seeded weights for the tests of the network module and the
 * evaluator (no training: any weights will do to compare two ways of computing the same
 * thing). */
#ifndef CHESSVAR_TEST_NNUE_UTIL_H
#define CHESSVAR_TEST_NNUE_UTIL_H

#include "../selfplay/player/nnue.h"
#include "test_util.h"

/* A seeded value in [lo, hi]. */
static inline int tu_range(uint64_t *st, int lo, int hi) {
    return lo + (int)(splitmix64_next(st) % (uint64_t)(hi - lo + 1));
}

/* A network for v with zero weights: hidden h, version 1 (obuckets 1, no stack, kb 0) or 2
 * with obuckets output buckets, a stack l1, l2 (0, 0: none) and kb king buckets (0: none;
 * an irregular map using every bucket), output scale qb. */
static inline Network *tu_net_alloc(const Variant *v, int h, int obuckets, int l1, int l2, int kb,
                                    int qb) {
    NnueLayout l;
    nnue_layout(v, &l);
    NnueDims d;
    memset(&d, 0, sizeof d);
    snprintf(d.variant, sizeof d.variant, "%s", v->name);
    d.width = v->width;
    d.height = v->height;
    d.npt = v->npt;
    d.hold_k = (uint8_t)l.hold_k;
    d.version = obuckets > 1 || l1 || kb ? 2 : 1;
    d.obuckets = (uint8_t)obuckets;
    d.mat_max = (uint8_t)(obuckets > 1 ? nnue_material_max(v) : 0);
    d.l1 = (uint16_t)l1;
    d.l2 = (uint16_t)l2;
    d.kbuckets = (uint8_t)kb;
    for (int i = 0; i < 32 && kb; i++) d.kb_map[i] = (uint8_t)((i * 7 + 3) % kb);
    if (kb) nnue_layout_kb(&l, kb, d.kb_map);
    d.feature_set = kb ? NNUE_FEATURE_KB : NNUE_FEATURE_SET;
    d.hidden = (uint16_t)h;
    d.nfeat = (uint32_t)l.nfeat;
    d.qa = l1 ? NNUE_STACK_QA : 255;
    d.qb = (uint16_t)qb;
    d.scale = 400;
    Network *net = nnue_alloc(&d, v);
    cr_assert_not_null(net);
    return net;
}

/* A version 2 network for v: hidden h, obuckets output buckets, a stack l1, l2 (0, 0: none),
 * kb king buckets (0: none; an irregular map using every bucket), FT weights in
 * [-range, range], the dense layers' weights small enough that their activations fall
 * inside (0, 127) as well as on both clips. */
static inline Network *tu_net_v2(const Variant *v, int h, int obuckets, int l1, int l2, int kb,
                                 int range, uint64_t seed) {
    Network *net = tu_net_alloc(v, h, obuckets, l1, l2, kb, 256);
    uint64_t st = seed;
    for (size_t i = 0; i < (size_t)net->d.nfeat * h; i++)
        net->ft_w[i] = (int16_t)tu_range(&st, -range, range);
    for (int i = 0; i < h; i++) net->ft_b[i] = (int16_t)tu_range(&st, 0, 100);
    for (int b = 0; b < obuckets; b++) {
        net->out_b[b] = tu_range(&st, -1000, 1000);
        if (!l1) {
            for (int i = 0; i < 2 * h; i++)
                net->out_w[b * 2 * h + i] = (int16_t)tu_range(&st, -200, 200);
            continue;
        }
        for (int i = 0; i < l1 * 2 * h; i++)
            net->l1_w[b * l1 * 2 * h + i] = (int8_t)tu_range(&st, -12, 12);
        for (int i = 0; i < l1; i++) net->l1_b[b * l1 + i] = tu_range(&st, -3000, 3000);
        for (int i = 0; i < l2 * l1; i++)
            net->l2_w[b * l2 * l1 + i] = (int8_t)tu_range(&st, -20, 20);
        for (int i = 0; i < l2; i++) net->l2_b[b * l2 + i] = tu_range(&st, -2000, 2000);
        for (int i = 0; i < l2; i++) net->out_w[b * l2 + i] = (int16_t)tu_range(&st, -300, 300);
    }
    return net;
}

#endif
