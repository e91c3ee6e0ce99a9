/* nnue_file.c - the network file (NETWORK.md): writing its image and reading it back with
 * every check (magic, version, sizes, checksum, variant, board, features). */
#define _POSIX_C_SOURCE 200809L /* strnlen */
#include "nnue.h"

#include "../files.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

/* Header fields: offsets in the 64-byte header (little-endian). */
enum {
    H_MAGIC = 0,
    H_VERSION = 8,
    H_HDRSIZE = 10,
    H_VARIANT = 12,
    H_WIDTH = 28,
    H_HEIGHT = 29,
    H_NPT = 30,
    H_HOLDK = 31,
    H_FSET = 32,
    H_HIDDEN = 34,
    H_NFEAT = 36,
    H_QA = 40,
    H_QB = 42,
    H_SCALE = 44,
    H_OUTPUTS = 46,
    H_PAYLOAD = 48,
    H_RESERVED = 56, /* version 1: zero to 64; version 2 goes on: */
    H_L1 = 56,
    H_L2 = 58,
    H_MATMAX = 60,
    H_ACT = 61,
    H_KBUCKETS = 62,
    H_KBMAP = 64,
    H_RESERVED2 = 96
};

/* Bytes of one output bucket's layers: without a stack the output layer (int16 weights,
 * int32 bias); with one, L1 (int8 weights, int32 biases), L2 (the same) and the output. */
static uint64_t nnue_bucket_size(uint64_t hidden, uint64_t l1, uint64_t l2) {
    if (!l1) return 2 * 2 * hidden + 4;
    return l1 * 2 * hidden + 4 * l1 + l2 * l1 + 4 * l2 + 2 * l2 + 4;
}

/* Bytes of the payload: FT biases, FT weights, each output bucket's layers. */
static uint64_t nnue_payload_size(const NnueDims *d) {
    uint64_t h = d->hidden;
    return 2 * h + 2 * (uint64_t)d->nfeat * h + d->obuckets * nnue_bucket_size(h, d->l1, d->l2);
}

/* The output bucket of every material count n: n * buckets / (mat_max + 1), at most the
 * top bucket. */
static void nnue_fill_buckets(Network *net) {
    int nb = net->d.obuckets, mx = net->d.mat_max;
    for (int n = 0; n < 256; n++) {
        int b = nb > 1 ? n * nb / (mx + 1) : 0;
        net->bucket_of[n] = (uint8_t)(b < nb ? b : nb - 1);
    }
}

Network *nnue_alloc(const NnueDims *d, const Variant *v) {
    Network *net = calloc(1, sizeof *net);
    if (!net) return NULL;
    net->d = *d;
    if (net->d.version < 1) net->d.version = 1;
    if (net->d.obuckets < 1) net->d.obuckets = 1;
    nnue_layout(v, &net->l);
    if (net->d.kbuckets) nnue_layout_kb(&net->l, net->d.kbuckets, net->d.kb_map);
    nnue_fill_buckets(net);
    size_t h = d->hidden, wbytes = ((size_t)d->nfeat * h * 2 + 63) / 64 * 64;
    size_t nb = net->d.obuckets, l1 = d->l1, l2 = d->l2;
    size_t outw = (l1 ? nb * l2 : nb * 2 * h) * 2, l1w = nb * l1 * 2 * h, l2w = nb * l2 * l1;
    net->ft_w = aligned_alloc(64, wbytes ? wbytes : 64);
    net->ft_b = aligned_alloc(64, (h * 2 + 63) / 64 * 64);
    net->out_w = aligned_alloc(64, (outw + 63) / 64 * 64);
    net->l1_w = aligned_alloc(64, (l1w + 63) / 64 * 64 + 64);
    net->l1_b = aligned_alloc(64, (nb * l1 * 4 + 63) / 64 * 64 + 64);
    net->l2_w = aligned_alloc(64, (l2w + 63) / 64 * 64 + 64);
    net->l2_b = aligned_alloc(64, (nb * l2 * 4 + 63) / 64 * 64 + 64);
    if (!net->ft_w || !net->ft_b || !net->out_w || !net->l1_w || !net->l1_b || !net->l2_w ||
        !net->l2_b) {
        nnue_free(net);
        return NULL;
    }
    memset(net->ft_w, 0, wbytes);
    memset(net->ft_b, 0, h * 2);
    memset(net->out_w, 0, outw);
    memset(net->l1_w, 0, l1w);
    memset(net->l1_b, 0, nb * l1 * 4);
    memset(net->l2_w, 0, l2w);
    memset(net->l2_b, 0, nb * l2 * 4);
    net->simd = nnue_have_avx2();
    net->vnni = net->simd && nnue_have_vnni();
    return net;
}

void nnue_free(Network *net) {
    if (!net) return;
    free(net->ft_w);
    free(net->ft_b);
    free(net->out_w);
    free(net->l1_w);
    free(net->l1_b);
    free(net->l2_w);
    free(net->l2_b);
    free(net);
}

uint8_t *nnue_serialise(const Network *net, size_t *len) {
    const NnueDims *d = &net->d;
    bool v2 = d->version >= 2;
    size_t hsize = v2 ? NNUE_HEADER2 : NNUE_HEADER_SIZE;
    uint64_t payload = nnue_payload_size(d);
    size_t n = hsize + payload + 8;
    uint8_t *b = calloc(1, n);
    if (!b) return NULL;
    memcpy(b + H_MAGIC, NNUE_MAGIC, 8);
    le_put16(b + H_VERSION, v2 ? 2 : 1);
    le_put16(b + H_HDRSIZE, (uint16_t)hsize);
    memcpy(b + H_VARIANT, d->variant, strnlen(d->variant, 15));
    b[H_WIDTH] = d->width;
    b[H_HEIGHT] = d->height;
    b[H_NPT] = d->npt;
    b[H_HOLDK] = d->hold_k;
    le_put16(b + H_FSET, d->feature_set);
    le_put16(b + H_HIDDEN, d->hidden);
    le_put32(b + H_NFEAT, d->nfeat);
    le_put16(b + H_QA, d->qa);
    le_put16(b + H_QB, d->qb);
    le_put16(b + H_SCALE, d->scale);
    le_put16(b + H_OUTPUTS, d->obuckets);
    le_put64(b + H_PAYLOAD, payload);
    if (v2) {
        le_put16(b + H_L1, d->l1);
        le_put16(b + H_L2, d->l2);
        b[H_MATMAX] = d->mat_max;
        b[H_KBUCKETS] = d->kbuckets;
        if (d->kbuckets) memcpy(b + H_KBMAP, d->kb_map, 32);
    }
    uint8_t *p = b + hsize;
    size_t h = d->hidden, l1 = d->l1, l2 = d->l2;
    for (size_t i = 0; i < h; i++, p += 2) le_put16(p, (uint16_t)net->ft_b[i]);
    for (size_t i = 0; i < (size_t)d->nfeat * h; i++, p += 2) le_put16(p, (uint16_t)net->ft_w[i]);
    for (size_t k = 0; k < d->obuckets; k++) {
        if (!l1) {
            for (size_t i = 0; i < 2 * h; i++, p += 2)
                le_put16(p, (uint16_t)net->out_w[k * 2 * h + i]);
        } else {
            for (size_t i = 0; i < l1 * 2 * h; i++) *p++ = (uint8_t)net->l1_w[k * l1 * 2 * h + i];
            for (size_t i = 0; i < l1; i++, p += 4) le_put32(p, (uint32_t)net->l1_b[k * l1 + i]);
            for (size_t i = 0; i < l2 * l1; i++) *p++ = (uint8_t)net->l2_w[k * l2 * l1 + i];
            for (size_t i = 0; i < l2; i++, p += 4) le_put32(p, (uint32_t)net->l2_b[k * l2 + i]);
            for (size_t i = 0; i < l2; i++, p += 2) le_put16(p, (uint16_t)net->out_w[k * l2 + i]);
        }
        le_put32(p, (uint32_t)net->out_b[k]);
        p += 4;
    }
    le_put64(p, XXH3_64bits(b, (size_t)(p - b)));
    *len = n;
    return b;
}

/* Fills err with "network NAME: <message>" and returns NULL. */
static Network *nnue_fail(CvError *err, const char *name, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static Network *nnue_fail(CvError *err, const char *name, const char *fmt, ...) {
    char msg[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    snprintf(err->msg, sizeof err->msg, "network %s: %s", name, msg);
    return NULL;
}

Network *nnue_parse(const uint8_t *b, size_t len, const char *name, const Variant *v,
                    CvError *err) {
    if (len < 8 || memcmp(b + H_MAGIC, NNUE_MAGIC, 8) != 0)
        return nnue_fail(err, name, "not a chessvar network (no %s magic)", NNUE_MAGIC);
    if (len < NNUE_HEADER_SIZE)
        return nnue_fail(err, name, "truncated: %zu bytes, the header alone is %d", len,
                         NNUE_HEADER_SIZE);
    unsigned version = le_get16(b + H_VERSION);
    if (version < 1 || version > NNUE_VERSION)
        return nnue_fail(err, name, "version %u, this program reads versions 1 to %d", version,
                         NNUE_VERSION);
    size_t hsize = version == 1 ? NNUE_HEADER_SIZE : NNUE_HEADER2;
    if (le_get16(b + H_HDRSIZE) != hsize)
        return nnue_fail(err, name, "header size %u, expected %zu for version %u",
                         le_get16(b + H_HDRSIZE), hsize, version);
    if (len < hsize)
        return nnue_fail(err, name, "truncated: %zu bytes, the header alone is %zu", len, hsize);
    NnueDims d;
    memset(&d, 0, sizeof d);
    d.version = (uint16_t)version;
    d.obuckets = 1;
    if (version >= 2) {
        unsigned nb = le_get16(b + H_OUTPUTS);
        d.obuckets = (uint8_t)(nb <= NNUE_MAX_OBUCKET ? nb : 0);
        if (!d.obuckets)
            return nnue_fail(err, name, "%u output buckets, must be 1..%d", nb, NNUE_MAX_OBUCKET);
        d.l1 = (uint16_t)le_get16(b + H_L1);
        d.l2 = (uint16_t)le_get16(b + H_L2);
        d.mat_max = b[H_MATMAX];
        d.kbuckets = b[H_KBUCKETS];
        memcpy(d.kb_map, b + H_KBMAP, 32);
        if (d.l1 > NNUE_MAX_L1 || d.l2 > NNUE_MAX_L2 || d.l1 % 4 || !d.l1 != !d.l2)
            return nnue_fail(err, name,
                             "dense stack %u, %u: both 0, or L1 a multiple of 4 up to %d and L2 "
                             "1..%d",
                             d.l1, d.l2, NNUE_MAX_L1, NNUE_MAX_L2);
        if (b[H_ACT])
            return nnue_fail(err, name, "activation %u, this program has 0 (clipped ReLU)",
                             b[H_ACT]);
        if (d.kbuckets > NNUE_MAX_KBUCKET)
            return nnue_fail(err, name, "%u king buckets, at most %d", d.kbuckets,
                             NNUE_MAX_KBUCKET);
        for (int i = 0; i < 32; i++)
            if (d.kbuckets ? d.kb_map[i] >= d.kbuckets : d.kb_map[i] != 0)
                return nnue_fail(err, name, "king bucket map entry %d is %u, with %u buckets", i,
                                 d.kb_map[i], d.kbuckets);
        if (d.obuckets > 1 && !d.mat_max)
            return nnue_fail(err, name, "%u output buckets with a material count of 0", d.obuckets);
        if (b[H_KBUCKETS + 1])
            return nnue_fail(err, name, "reserved header byte %d is not zero", H_KBUCKETS + 1);
        for (size_t i = H_RESERVED2; i < hsize; i++)
            if (b[i]) return nnue_fail(err, name, "reserved header byte %zu is not zero", i);
    }
    memcpy(d.variant, b + H_VARIANT, 15);
    d.width = b[H_WIDTH];
    d.height = b[H_HEIGHT];
    d.npt = b[H_NPT];
    d.hold_k = b[H_HOLDK];
    d.feature_set = (uint16_t)le_get16(b + H_FSET);
    d.hidden = (uint16_t)le_get16(b + H_HIDDEN);
    d.nfeat = le_get32(b + H_NFEAT);
    d.qa = (uint16_t)le_get16(b + H_QA);
    d.qb = (uint16_t)le_get16(b + H_QB);
    d.scale = (uint16_t)le_get16(b + H_SCALE);
    uint64_t payload = le_get64(b + H_PAYLOAD);
    if (payload != nnue_payload_size(&d) || (version == 1 && le_get16(b + H_OUTPUTS) != 1))
        return nnue_fail(err, name,
                         "corrupt header: payload of %llu bytes does not match %u "
                         "features x %u hidden, %u output buckets, stack %u, %u",
                         (unsigned long long)payload, d.nfeat, d.hidden, d.obuckets, d.l1, d.l2);
    uint64_t want = hsize + payload + 8;
    if (len < want)
        return nnue_fail(err, name, "truncated: %zu bytes, the header says %llu", len,
                         (unsigned long long)want);
    if (len > want)
        return nnue_fail(err, name, "%zu bytes, the header says %llu (trailing data)", len,
                         (unsigned long long)want);
    if (XXH3_64bits(b, (size_t)want - 8) != le_get64(b + want - 8))
        return nnue_fail(err, name, "corrupt: XXH3-64 checksum mismatch");
    if (strcmp(d.variant, v->name) != 0)
        return nnue_fail(err, name, "a network for variant '%s', not '%s'", d.variant, v->name);
    NnueLayout l;
    nnue_layout(v, &l);
    if (d.width != l.width || d.height != l.height)
        return nnue_fail(err, name, "board %ux%u, variant %s has %dx%d", d.width, d.height, v->name,
                         l.width, l.height);
    if (d.kbuckets && !l.king_type)
        return nnue_fail(err, name, "king buckets, which variant %s does not have (NETWORK.md)",
                         v->name);
    if (d.kbuckets) nnue_layout_kb(&l, d.kbuckets, d.kb_map);
    int fset = d.kbuckets ? NNUE_FEATURE_KB : NNUE_FEATURE_SET;
    if (d.feature_set != fset || d.npt != l.npt || d.hold_k != l.hold_k ||
        d.nfeat != (uint32_t)l.nfeat)
        return nnue_fail(err, name,
                         "feature set %u with %u piece types, hold cap %u, %u features; this "
                         "program has set %d with %d, %d, %d for %s",
                         d.feature_set, d.npt, d.hold_k, d.nfeat, fset, l.npt, l.hold_k, l.nfeat,
                         v->name);
    if (d.hidden < 16 || d.hidden > NNUE_MAX_HIDDEN || d.hidden % 16)
        return nnue_fail(err, name, "hidden size %u, must be a multiple of 16 in 16..%d", d.hidden,
                         NNUE_MAX_HIDDEN);
    if (!d.qa || d.qa > 32767 || !d.qb || !d.scale)
        return nnue_fail(err, name, "bad scales qa %u, qb %u, scale %u", d.qa, d.qb, d.scale);
    if (d.l1 && d.qa != NNUE_STACK_QA)
        return nnue_fail(err, name, "qa %u with a dense stack, which needs %d", d.qa,
                         NNUE_STACK_QA);
    Network *net = nnue_alloc(&d, v);
    if (!net) return nnue_fail(err, name, "out of memory");
    const uint8_t *p = b + hsize;
    size_t h = d.hidden, l1 = d.l1, l2 = d.l2;
    for (size_t i = 0; i < h; i++, p += 2) net->ft_b[i] = (int16_t)le_get16(p);
    for (size_t i = 0; i < (size_t)d.nfeat * h; i++, p += 2) net->ft_w[i] = (int16_t)le_get16(p);
    for (size_t k = 0; k < d.obuckets; k++) {
        if (!l1) {
            for (size_t i = 0; i < 2 * h; i++, p += 2)
                net->out_w[k * 2 * h + i] = (int16_t)le_get16(p);
        } else {
            for (size_t i = 0; i < l1 * 2 * h; i++) net->l1_w[k * l1 * 2 * h + i] = (int8_t)*p++;
            for (size_t i = 0; i < l1; i++, p += 4) net->l1_b[k * l1 + i] = (int32_t)le_get32(p);
            for (size_t i = 0; i < l2 * l1; i++) net->l2_w[k * l2 * l1 + i] = (int8_t)*p++;
            for (size_t i = 0; i < l2; i++, p += 4) net->l2_b[k * l2 + i] = (int32_t)le_get32(p);
            for (size_t i = 0; i < l2; i++, p += 2) net->out_w[k * l2 + i] = (int16_t)le_get16(p);
        }
        net->out_b[k] = (int32_t)le_get32(p);
        p += 4;
    }
    return net;
}

Network *nnue_load(const char *path, const Variant *v, CvError *err) {
    FILE *f = fopen(path, "rb");
    if (!f) return nnue_fail(err, path, "cannot open it");
    uint8_t *buf = NULL;
    size_t len = 0, cap = 0;
    for (;;) {
        if (len == cap) {
            cap = cap ? cap * 2 : 1 << 20;
            uint8_t *nb = cap <= ((size_t)1 << 31) ? realloc(buf, cap) : NULL;
            if (!nb) {
                free(buf);
                fclose(f);
                return nnue_fail(err, path, "too large or out of memory");
            }
            buf = nb;
        }
        size_t got = fread(buf + len, 1, cap - len, f);
        len += got;
        if (got == 0) break;
    }
    bool bad = ferror(f);
    fclose(f);
    Network *net = bad ? nnue_fail(err, path, "read error") : nnue_parse(buf, len, path, v, err);
    free(buf);
    return net;
}
