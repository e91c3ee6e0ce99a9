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
    H_RESERVED = 56
};

/* Bytes of the payload: FT biases, FT weights, output weights (int16), output bias (int32). */
static uint64_t nnue_payload_size(uint64_t nfeat, uint64_t hidden) {
    return 2 * hidden + 2 * nfeat * hidden + 2 * 2 * hidden + 4;
}

Network *nnue_alloc(const NnueDims *d, const Variant *v) {
    Network *net = calloc(1, sizeof *net);
    if (!net) return NULL;
    net->d = *d;
    nnue_layout(v, &net->l);
    size_t h = d->hidden, wbytes = ((size_t)d->nfeat * h * 2 + 63) / 64 * 64;
    net->ft_w = aligned_alloc(64, wbytes ? wbytes : 64);
    net->ft_b = aligned_alloc(64, (h * 2 + 63) / 64 * 64);
    net->out_w = aligned_alloc(64, (h * 4 + 63) / 64 * 64);
    if (!net->ft_w || !net->ft_b || !net->out_w) {
        nnue_free(net);
        return NULL;
    }
    memset(net->ft_w, 0, wbytes);
    memset(net->ft_b, 0, h * 2);
    memset(net->out_w, 0, h * 4);
    net->simd = nnue_have_avx2();
    return net;
}

void nnue_free(Network *net) {
    if (!net) return;
    free(net->ft_w);
    free(net->ft_b);
    free(net->out_w);
    free(net);
}

uint8_t *nnue_serialise(const Network *net, size_t *len) {
    const NnueDims *d = &net->d;
    uint64_t payload = nnue_payload_size(d->nfeat, d->hidden);
    size_t n = NNUE_HEADER_SIZE + payload + 8;
    uint8_t *b = calloc(1, n);
    if (!b) return NULL;
    memcpy(b + H_MAGIC, NNUE_MAGIC, 8);
    le_put16(b + H_VERSION, NNUE_VERSION);
    le_put16(b + H_HDRSIZE, NNUE_HEADER_SIZE);
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
    le_put16(b + H_OUTPUTS, 1);
    le_put64(b + H_PAYLOAD, payload);
    uint8_t *p = b + NNUE_HEADER_SIZE;
    size_t h = d->hidden;
    for (size_t i = 0; i < h; i++, p += 2) le_put16(p, (uint16_t)net->ft_b[i]);
    for (size_t i = 0; i < (size_t)d->nfeat * h; i++, p += 2) le_put16(p, (uint16_t)net->ft_w[i]);
    for (size_t i = 0; i < 2 * h; i++, p += 2) le_put16(p, (uint16_t)net->out_w[i]);
    le_put32(p, (uint32_t)net->out_b);
    p += 4;
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
    if (le_get16(b + H_VERSION) != NNUE_VERSION)
        return nnue_fail(err, name, "version %u, this program reads version %d",
                         le_get16(b + H_VERSION), NNUE_VERSION);
    if (le_get16(b + H_HDRSIZE) != NNUE_HEADER_SIZE)
        return nnue_fail(err, name, "header size %u, expected %d", le_get16(b + H_HDRSIZE),
                         NNUE_HEADER_SIZE);
    NnueDims d;
    memset(&d, 0, sizeof d);
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
    if (payload != nnue_payload_size(d.nfeat, d.hidden) || le_get16(b + H_OUTPUTS) != 1)
        return nnue_fail(err, name,
                         "corrupt header: payload of %llu bytes does not match %u "
                         "features x %u hidden, 1 output",
                         (unsigned long long)payload, d.nfeat, d.hidden);
    uint64_t want = NNUE_HEADER_SIZE + payload + 8;
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
    if (d.feature_set != NNUE_FEATURE_SET || d.npt != l.npt || d.hold_k != l.hold_k ||
        d.nfeat != (uint32_t)l.nfeat)
        return nnue_fail(err, name,
                         "feature set %u with %u piece types, hold cap %u, %u features; this "
                         "program has set %d with %d, %d, %d for %s",
                         d.feature_set, d.npt, d.hold_k, d.nfeat, NNUE_FEATURE_SET, l.npt, l.hold_k,
                         l.nfeat, v->name);
    if (d.hidden < 16 || d.hidden > NNUE_MAX_HIDDEN || d.hidden % 16)
        return nnue_fail(err, name, "hidden size %u, must be a multiple of 16 in 16..%d", d.hidden,
                         NNUE_MAX_HIDDEN);
    if (!d.qa || d.qa > 32767 || !d.qb || !d.scale)
        return nnue_fail(err, name, "bad scales qa %u, qb %u, scale %u", d.qa, d.qb, d.scale);
    Network *net = nnue_alloc(&d, v);
    if (!net) return nnue_fail(err, name, "out of memory");
    const uint8_t *p = b + NNUE_HEADER_SIZE;
    size_t h = d.hidden;
    for (size_t i = 0; i < h; i++, p += 2) net->ft_b[i] = (int16_t)le_get16(p);
    for (size_t i = 0; i < (size_t)d.nfeat * h; i++, p += 2) net->ft_w[i] = (int16_t)le_get16(p);
    for (size_t i = 0; i < 2 * h; i++, p += 2) net->out_w[i] = (int16_t)le_get16(p);
    net->out_b = (int32_t)le_get32(p);
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
