/* train_model.c - the float model of the trainer: initialisation, forward and backward pass
 * of one sample into a slot's gradients, the sparse Adam step, and quantisation. The hot
 * loops are compiled for AVX2 and for any x86-64, chosen at run time. */
#include "train.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define TRAIN_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define TRAIN_CLONES
#endif

#define ADAM_B1  0.9
#define ADAM_B2  0.999
#define ADAM_EPS 1e-8

/* Uniform in [-a, a) from a splitmix64 stream. */
static float train_uniform(uint64_t *st, double a) {
    return (float)(((double)(splitmix64_next(st) >> 11) / 9007199254740992.0 * 2.0 - 1.0) * a);
}

static float *train_alloc(size_t n) {
    float *p = aligned_alloc(64, (n * sizeof(float) + 63) / 64 * 64);
    if (p) memset(p, 0, n * sizeof(float));
    return p;
}

/* Parameters in all: FT weights, FT biases, output weights, output bias. */
static size_t train_nparams(int nfeat, int hidden) {
    return (size_t)nfeat * hidden + (size_t)hidden + 2 * (size_t)hidden + 1;
}

bool train_model_init(TrainModel *m, int nfeat, int hidden, uint64_t seed) {
    memset(m, 0, sizeof *m);
    m->nfeat = nfeat;
    m->hidden = hidden;
    size_t np = train_nparams(nfeat, hidden);
    m->ftw = train_alloc((size_t)nfeat * hidden);
    m->ftb = train_alloc((size_t)hidden);
    m->ow = train_alloc(2 * (size_t)hidden);
    m->m = train_alloc(np);
    m->v = train_alloc(np);
    if (!m->ftw || !m->ftb || !m->ow || !m->m || !m->v) {
        train_model_free(m);
        return false;
    }
    /* about 30 active features: their sum has spread ~0.3, so half the units start in the
     * linear part of the clipped ReLU */
    uint64_t st = seed ^ 0xA0761D6478BD642FULL;
    for (size_t i = 0; i < (size_t)nfeat * hidden; i++) m->ftw[i] = train_uniform(&st, 0.1);
    for (int i = 0; i < hidden; i++) m->ftb[i] = 0.25f + train_uniform(&st, 0.05);
    double a = 1.0 / sqrt(2.0 * hidden);
    for (int i = 0; i < 2 * hidden; i++) m->ow[i] = train_uniform(&st, a);
    m->ob = 0;
    return true;
}

void train_model_free(TrainModel *m) {
    free(m->ftw);
    free(m->ftb);
    free(m->ow);
    free(m->m);
    free(m->v);
    memset(m, 0, sizeof *m);
}

bool train_slot_init(TrainSlot *s, int nfeat, int hidden) {
    memset(s, 0, sizeof *s);
    s->gftw = train_alloc((size_t)nfeat * hidden);
    s->gftb = train_alloc((size_t)hidden);
    s->gow = train_alloc(2 * (size_t)hidden);
    s->acc = train_alloc(2 * (size_t)hidden);
    s->touched = calloc((size_t)nfeat, 1);
    if (!s->gftw || !s->gftb || !s->gow || !s->acc || !s->touched) {
        train_slot_free(s);
        return false;
    }
    return true;
}

void train_slot_free(TrainSlot *s) {
    free(s->gftw);
    free(s->gftb);
    free(s->gow);
    free(s->acc);
    free(s->touched);
    memset(s, 0, sizeof *s);
}

/* Eight floats, one AVX register (two SSE ones in the default clone), and their masks. */
typedef float V8 __attribute__((vector_size(32)));
typedef int V8i __attribute__((vector_size(32)));

static const V8 v8_zero = {0}, v8_one = {1, 1, 1, 1, 1, 1, 1, 1};

/* dst = min(max(x, 0), 1) per lane, with masks (the vectoriser does not take the scalar
 * form in every clone; a macro, as a function passing vectors changes the ABI). */
#define V8_CLAMP(dst, x)                                                                           \
    do {                                                                                           \
        V8 y_ = (V8)((V8i)(x) & ((x) > v8_zero));                                                  \
        V8i big_ = y_ > v8_one;                                                                    \
        (dst) = (V8)(((V8i)y_ & ~big_) | ((V8i)v8_one & big_));                                    \
    } while (0)

/* acc = bias + the rows of the n features; 64 columns at a time held in registers. */
TRAIN_CLONES static void train_gather(float *restrict acc, const float *restrict ftw,
                                      const float *restrict ftb, int h, const uint16_t *f, int n) {
    int c = 0;
    for (; c + 64 <= h; c += 64) {
        const V8 *b = (const V8 *)(ftb + c);
        V8 r0 = b[0], r1 = b[1], r2 = b[2], r3 = b[3], r4 = b[4], r5 = b[5], r6 = b[6], r7 = b[7];
        for (int k = 0; k < n; k++) {
            const V8 *row = (const V8 *)(ftw + (size_t)f[k] * h + c);
            r0 += row[0], r1 += row[1], r2 += row[2], r3 += row[3];
            r4 += row[4], r5 += row[5], r6 += row[6], r7 += row[7];
        }
        V8 *o = (V8 *)(acc + c);
        o[0] = r0, o[1] = r1, o[2] = r2, o[3] = r3, o[4] = r4, o[5] = r5, o[6] = r6, o[7] = r7;
    }
    for (; c < h; c += 16) {
        const V8 *b = (const V8 *)(ftb + c);
        V8 r0 = b[0], r1 = b[1];
        for (int k = 0; k < n; k++) {
            const V8 *row = (const V8 *)(ftw + (size_t)f[k] * h + c);
            r0 += row[0], r1 += row[1];
        }
        V8 *o = (V8 *)(acc + c);
        o[0] = r0, o[1] = r1;
    }
}

/* The output: bias + weights . clamp(acc, 0, 1) over both halves. */
TRAIN_CLONES static float train_output(const float *restrict acc, const float *restrict ow,
                                       float ob, int h) {
    V8 s0 = {0}, s1 = {0}; /* 16 partial sums (hidden is a multiple of 16), in a fixed order */
    for (int i = 0; i < 2 * h; i += 16) {
        const V8 *a = (const V8 *)(acc + i), *w = (const V8 *)(ow + i);
        V8 c0, c1;
        V8_CLAMP(c0, a[0]);
        V8_CLAMP(c1, a[1]);
        s0 += w[0] * c0;
        s1 += w[1] * c1;
    }
    float t = ob;
    for (int j = 0; j < 8; j++) t += s0[j];
    for (int j = 0; j < 8; j++) t += s1[j];
    return t;
}

float train_forward(const TrainModel *m, const TrainSample *x, float *acc) {
    int h = m->hidden;
    train_gather(acc, m->ftw, m->ftb, h, x->f[0], x->n[0]);
    train_gather(acc + h, m->ftw, m->ftb, h, x->f[1], x->n[1]);
    return train_output(acc, m->ow, m->ob, h);
}

static inline float train_sigmoid(float z) { return 1.0f / (1.0f + expf(-z)); }

double train_loss(const TrainModel *m, const TrainSample *x, float out_to_sig, float *acc) {
    float p = train_sigmoid(train_forward(m, x, acc) * out_to_sig);
    return (double)(p - x->target) * (double)(p - x->target);
}

/* Backward through the output and the clipped ReLU: d (in place of acc) = g * w where
 * 0 <= acc <= 1 (the interval where clamp passes its gradient on), else 0; and the output
 * weights' gradients. */
TRAIN_CLONES static void train_back_output(float *restrict acc, const float *restrict ow,
                                           float *restrict gow, float g, int n) {
    const V8 gv = v8_zero + g;
    for (int i = 0; i < n; i += 8) {
        V8 *a = (V8 *)(acc + i), *go = (V8 *)(gow + i);
        const V8 *w = (const V8 *)(ow + i);
        V8 x = *a, c;
        V8_CLAMP(c, x);
        *go += gv * c;
        *a = (V8)((V8i)(gv * *w) & ((x >= v8_zero) & (x <= v8_one)));
    }
}

/* Gradient rows of the n features += d; 64 columns of d at a time held in registers. */
TRAIN_CLONES static void train_scatter(float *restrict gftw, const float *restrict d, int h,
                                       const uint16_t *f, int n, uint8_t *touched) {
    for (int k = 0; k < n; k++) touched[f[k]] = 1;
    int c = 0;
    for (; c + 64 <= h; c += 64) {
        const V8 *dv = (const V8 *)(d + c);
        V8 d0 = dv[0], d1 = dv[1], d2 = dv[2], d3 = dv[3], d4 = dv[4], d5 = dv[5], d6 = dv[6],
           d7 = dv[7];
        for (int k = 0; k < n; k++) {
            V8 *row = (V8 *)(gftw + (size_t)f[k] * h + c);
            row[0] += d0, row[1] += d1, row[2] += d2, row[3] += d3;
            row[4] += d4, row[5] += d5, row[6] += d6, row[7] += d7;
        }
    }
    for (; c < h; c += 16) {
        const V8 *dv = (const V8 *)(d + c);
        V8 d0 = dv[0], d1 = dv[1];
        for (int k = 0; k < n; k++) {
            V8 *row = (V8 *)(gftw + (size_t)f[k] * h + c);
            row[0] += d0, row[1] += d1;
        }
    }
}

TRAIN_CLONES static void train_add2(float *restrict dst, const float *restrict a,
                                    const float *restrict b, int h) {
    for (int i = 0; i < h; i++) dst[i] += a[i] + b[i];
}

void train_sample(const TrainModel *m, const TrainSample *x, float inv_batch, float out_to_sig,
                  TrainSlot *slot) {
    int h = m->hidden;
    float *acc = slot->acc;
    float out = train_forward(m, x, acc);
    float p = train_sigmoid(out * out_to_sig);
    float e = p - x->target;
    slot->loss += (double)e * (double)e;
    float g = 2.0f * e * p * (1.0f - p) * out_to_sig * inv_batch;
    slot->gob += g;
    train_back_output(acc, m->ow, slot->gow, g, 2 * h);
    train_add2(slot->gftb, acc, acc + h, h);
    train_scatter(slot->gftw, acc, h, x->f[0], x->n[0], slot->touched);
    train_scatter(slot->gftw, acc + h, h, x->f[1], x->n[1], slot->touched);
}

/* One Adam step on n parameters p with gradients g; moments mm, vv. */
TRAIN_CLONES static void train_adam_run(float *restrict p, const float *restrict g,
                                        float *restrict mm, float *restrict vv, int n, float lr_t,
                                        float eps_t) {
    for (int i = 0; i < n; i++) {
        mm[i] = (float)ADAM_B1 * mm[i] + (float)(1 - ADAM_B1) * g[i];
        vv[i] = (float)ADAM_B2 * vv[i] + (float)(1 - ADAM_B2) * g[i] * g[i];
        p[i] -= lr_t * mm[i] / (sqrtf(vv[i]) + eps_t);
    }
}

void train_adam(TrainModel *m, TrainSlot *slots, int nslots, double lr) {
    int h = m->hidden, nf = m->nfeat;
    m->steps++;
    /* bias correction folded into the step size and epsilon */
    double c1 = 1 - pow(ADAM_B1, (double)m->steps), c2 = 1 - pow(ADAM_B2, (double)m->steps);
    float lr_t = (float)(lr * sqrt(c2) / c1), eps_t = (float)(ADAM_EPS * sqrt(c2));
    size_t off_b = (size_t)nf * h, off_o = off_b + (size_t)h, off_ob = off_o + 2 * (size_t)h;
    int *rows = malloc((size_t)nf * sizeof *rows), nrows = 0;
    for (int f = 0; f < nf; f++) {
        bool t = false;
        for (int s = 0; s < nslots; s++) t |= slots[s].touched[f] != 0;
        if (t) rows[nrows++] = f;
    }
#pragma omp parallel
    {
        float *g = malloc(2 * (size_t)h * sizeof *g);
#pragma omp for schedule(static)
        for (int r = 0; r < nrows; r++) {
            size_t o = (size_t)rows[r] * h;
            memcpy(g, slots[0].gftw + o, (size_t)h * sizeof *g);
            memset(slots[0].gftw + o, 0, (size_t)h * sizeof *g);
            for (int s = 1; s < nslots; s++) {
                for (int i = 0; i < h; i++) g[i] += slots[s].gftw[o + i];
                memset(slots[s].gftw + o, 0, (size_t)h * sizeof *g);
            }
            train_adam_run(m->ftw + o, g, m->m + o, m->v + o, h, lr_t, eps_t);
        }
#pragma omp single
        {
            memcpy(g, slots[0].gftb, (size_t)h * sizeof *g);
            for (int s = 1; s < nslots; s++)
                for (int i = 0; i < h; i++) g[i] += slots[s].gftb[i];
            train_adam_run(m->ftb, g, m->m + off_b, m->v + off_b, h, lr_t, eps_t);
            memcpy(g, slots[0].gow, 2 * (size_t)h * sizeof *g);
            for (int s = 1; s < nslots; s++)
                for (int i = 0; i < 2 * h; i++) g[i] += slots[s].gow[i];
            train_adam_run(m->ow, g, m->m + off_o, m->v + off_o, 2 * h, lr_t, eps_t);
            float gob = slots[0].gob;
            for (int s = 1; s < nslots; s++) gob += slots[s].gob;
            train_adam_run(&m->ob, &gob, m->m + off_ob, m->v + off_ob, 1, lr_t, eps_t);
        }
        free(g);
    }
    for (int s = 0; s < nslots; s++) {
        memset(slots[s].gftb, 0, (size_t)h * sizeof(float));
        memset(slots[s].gow, 0, 2 * (size_t)h * sizeof(float));
        slots[s].gob = 0;
        slots[s].loss = 0;
        memset(slots[s].touched, 0, (size_t)nf);
    }
    free(rows);
}

/* Rounds x to the nearest whole number, clamped to [-lim, lim]; counts clamps. */
static long train_round(double x, long lim, long *clipped) {
    long q = lrint(x);
    if (q > lim || q < -lim) {
        (*clipped)++;
        return q > lim ? lim : -lim;
    }
    return q;
}

long train_quantise(const TrainModel *m, Network *net) {
    long clipped = 0;
    int h = m->hidden, qa = net->d.qa, qb = net->d.qb;
    for (size_t i = 0; i < (size_t)m->nfeat * h; i++)
        net->ft_w[i] = (int16_t)train_round((double)m->ftw[i] * qa, 32767, &clipped);
    for (int i = 0; i < h; i++)
        net->ft_b[i] = (int16_t)train_round((double)m->ftb[i] * qa, 32767, &clipped);
    /* the output sum of 2h terms of at most qa * |w| stays inside int32 */
    long lim = (1L << 30) / (2L * h * qa);
    if (lim > 32767) lim = 32767;
    for (int i = 0; i < 2 * h; i++)
        net->out_w[i] = (int16_t)train_round((double)m->ow[i] * qb, lim, &clipped);
    net->out_b = (int32_t)train_round((double)m->ob * qa * qb, 1L << 30, &clipped);
    return clipped;
}
