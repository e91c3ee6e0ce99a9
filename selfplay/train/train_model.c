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

/* The bound of the stack's dense weights: int8 at 2^6 per unit, as the quantised net has. */
#define STACK_WMAX (127.0f / (1 << NNUE_STACK_SHIFT))

size_t train_nparams(const TrainModel *m) {
    return (size_t)m->nfeat * m->hidden + (size_t)m->hidden + (size_t)m->obuckets * m->hstride;
}

bool train_model_init(TrainModel *m, int nfeat, int hidden, int obuckets, int l1, int l2,
                      uint64_t seed) {
    memset(m, 0, sizeof *m);
    m->nfeat = nfeat;
    m->hidden = hidden;
    m->obuckets = obuckets;
    m->l1 = l1;
    m->l2 = l2;
    size_t h2 = 2 * (size_t)hidden;
    m->hsize = l1 ? (size_t)l1 * h2 + (size_t)l1 + (size_t)l2 * l1 + 2 * (size_t)l2 + 1 : h2 + 1;
    /* a version 1 model keeps its parameters (and checkpoints) as they were */
    m->hstride = obuckets == 1 && !l1 ? m->hsize : (m->hsize + 15) / 16 * 16;
    size_t np = train_nparams(m);
    m->ftw = train_alloc((size_t)nfeat * hidden);
    m->ftb = train_alloc((size_t)hidden);
    m->head = train_alloc((size_t)obuckets * m->hstride);
    m->m = train_alloc(np);
    m->v = train_alloc(np);
    if (!m->ftw || !m->ftb || !m->head || !m->m || !m->v) {
        train_model_free(m);
        return false;
    }
    /* about 30 active features: their sum has spread ~0.3, so half the units start in the
     * linear part of the clipped ReLU */
    uint64_t st = seed ^ 0xA0761D6478BD642FULL;
    for (size_t i = 0; i < (size_t)nfeat * hidden; i++) m->ftw[i] = train_uniform(&st, 0.1);
    for (int i = 0; i < hidden; i++) m->ftb[i] = 0.25f + train_uniform(&st, 0.05);
    for (int b = 0; b < obuckets; b++) {
        float *hp = m->head + (size_t)b * m->hstride;
        if (!l1) {
            double a = 1.0 / sqrt((double)h2);
            for (size_t i = 0; i < h2; i++) hp[i] = train_uniform(&st, a);
            continue;
        }
        /* dense layers: uniform in +-1/sqrt(inputs), biases 0.5 (the middle of the clipped
         * ReLU's linear part) */
        float *b1 = hp + (size_t)l1 * h2, *w2 = b1 + l1, *b2 = w2 + (size_t)l2 * l1, *wo = b2 + l2;
        for (size_t i = 0; i < (size_t)l1 * h2; i++)
            hp[i] = train_uniform(&st, 1.0 / sqrt((double)h2));
        for (int i = 0; i < l1; i++) b1[i] = 0.5f;
        for (int i = 0; i < l2 * l1; i++) w2[i] = train_uniform(&st, 1.0 / sqrt((double)l1));
        for (int i = 0; i < l2; i++) b2[i] = 0.5f;
        for (int i = 0; i < l2; i++) wo[i] = train_uniform(&st, 1.0 / sqrt((double)l2));
    }
    return true;
}

void train_model_free(TrainModel *m) {
    free(m->ftw);
    free(m->ftb);
    free(m->head);
    free(m->m);
    free(m->v);
    memset(m, 0, sizeof *m);
}

bool train_slot_init(TrainSlot *s, const TrainModel *m) {
    memset(s, 0, sizeof *s);
    s->gftw = train_alloc((size_t)m->nfeat * m->hidden);
    s->gftb = train_alloc((size_t)m->hidden);
    s->ghead = train_alloc((size_t)m->obuckets * m->hstride);
    s->acc = train_alloc(2 * (size_t)m->hidden);
    s->touched = calloc((size_t)m->nfeat, 1);
    if (!s->gftw || !s->gftb || !s->ghead || !s->acc || !s->touched) {
        train_slot_free(s);
        return false;
    }
    return true;
}

void train_slot_free(TrainSlot *s) {
    free(s->gftw);
    free(s->gftb);
    free(s->ghead);
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

/* The stack's activations of one sample (forward values kept for the backward pass). */
typedef struct StackAct {
    _Alignas(64) float a[2 * NNUE_MAX_HIDDEN]; /* clamp(acc, 0, 1) */
    float z1[NNUE_MAX_L1], h1[NNUE_MAX_L1], z2[NNUE_MAX_L2], h2[NNUE_MAX_L2];
} StackAct;

/* Dot product of n floats (n a multiple of 16), partial sums in a fixed order. */
TRAIN_CLONES static float train_dot(const float *restrict a, const float *restrict w, int n) {
    V8 s0 = {0}, s1 = {0};
    for (int i = 0; i < n; i += 16) {
        s0 += *(const V8 *)(a + i) * *(const V8 *)(w + i);
        s1 += *(const V8 *)(a + i + 8) * *(const V8 *)(w + i + 8);
    }
    float t = 0;
    for (int j = 0; j < 8; j++) t += s0[j];
    for (int j = 0; j < 8; j++) t += s1[j];
    return t;
}

/* dst += c * x over n floats (n a multiple of 8). */
TRAIN_CLONES static void train_axpy(float *restrict dst, const float *restrict x, float c, int n) {
    const V8 cv = v8_zero + c;
    for (int i = 0; i < n; i += 8) *(V8 *)(dst + i) += cv * *(const V8 *)(x + i);
}

/* dst = clamp(x, 0, 1) over n floats (n a multiple of 8). */
TRAIN_CLONES static void train_clamp(float *restrict dst, const float *restrict x, int n) {
    for (int i = 0; i < n; i += 8) V8_CLAMP(*(V8 *)(dst + i), *(const V8 *)(x + i));
}

static inline float train_clamp1(float x) { return x < 0 ? 0 : x > 1 ? 1 : x; }

/* Forward through one bucket's stack hp from the transformer's output acc (2 x hidden). */
static float train_stack_forward(const TrainModel *m, const float *hp, const float *acc,
                                 StackAct *st) {
    int h2 = 2 * m->hidden, l1 = m->l1, l2 = m->l2;
    const float *b1 = hp + (size_t)l1 * h2, *w2 = b1 + l1, *b2 = w2 + (size_t)l2 * l1,
                *wo = b2 + l2;
    train_clamp(st->a, acc, h2);
    for (int j = 0; j < l1; j++) {
        st->z1[j] = b1[j] + train_dot(st->a, hp + (size_t)j * h2, h2);
        st->h1[j] = train_clamp1(st->z1[j]);
    }
    float out = wo[l2];
    for (int k = 0; k < l2; k++) {
        float z = b2[k];
        for (int j = 0; j < l1; j++) z += w2[(size_t)k * l1 + j] * st->h1[j];
        st->z2[k] = z;
        st->h2[k] = train_clamp1(z);
        out += wo[k] * st->h2[k];
    }
    return out;
}

/* Backward through the stack for output gradient g: the head's gradients into gh, and acc
 * replaced by the gradient of the transformer's output (zero where it was clipped). */
TRAIN_CLONES static void train_stack_backward(const TrainModel *m, const float *hp, float *gh,
                                              float *restrict acc, const StackAct *st, float g) {
    int h2 = 2 * m->hidden, l1 = m->l1, l2 = m->l2;
    const float *b1 = hp + (size_t)l1 * h2, *w2 = b1 + l1, *b2 = w2 + (size_t)l2 * l1,
                *wo = b2 + l2;
    float *gb1 = gh + (size_t)l1 * h2, *gw2 = gb1 + l1, *gb2 = gw2 + (size_t)l2 * l1,
          *gwo = gb2 + l2;
    float d2[NNUE_MAX_L2], d1[NNUE_MAX_L1];
    gwo[l2] += g;
    for (int k = 0; k < l2; k++) {
        gwo[k] += g * st->h2[k];
        d2[k] = st->z2[k] >= 0 && st->z2[k] <= 1 ? g * wo[k] : 0;
        gb2[k] += d2[k];
    }
    for (int j = 0; j < l1; j++) d1[j] = 0;
    for (int k = 0; k < l2; k++)
        for (int j = 0; j < l1; j++) {
            gw2[(size_t)k * l1 + j] += d2[k] * st->h1[j];
            d1[j] += d2[k] * w2[(size_t)k * l1 + j];
        }
    _Alignas(64) float da[2 * NNUE_MAX_HIDDEN];
    memset(da, 0, (size_t)h2 * sizeof *da);
    for (int j = 0; j < l1; j++) {
        if (!(st->z1[j] >= 0 && st->z1[j] <= 1)) continue;
        gb1[j] += d1[j];
        train_axpy(gh + (size_t)j * h2, st->a, d1[j], h2);
        train_axpy(da, hp + (size_t)j * h2, d1[j], h2);
    }
    for (int i = 0; i < h2; i++) acc[i] = acc[i] >= 0 && acc[i] <= 1 ? da[i] : 0;
}

float train_forward(const TrainModel *m, const TrainSample *x, float *acc) {
    int h = m->hidden;
    train_gather(acc, m->ftw, m->ftb, h, x->f[0], x->n[0]);
    train_gather(acc + h, m->ftw, m->ftb, h, x->f[1], x->n[1]);
    const float *hp = m->head + (size_t)x->bucket * m->hstride;
    if (m->l1) {
        StackAct st;
        return train_stack_forward(m, hp, acc, &st);
    }
    return train_output(acc, hp, hp[2 * h], h);
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
    const float *hp = m->head + (size_t)x->bucket * m->hstride;
    float *gh = slot->ghead + (size_t)x->bucket * m->hstride;
    StackAct st;
    train_gather(acc, m->ftw, m->ftb, h, x->f[0], x->n[0]);
    train_gather(acc + h, m->ftw, m->ftb, h, x->f[1], x->n[1]);
    float out = m->l1 ? train_stack_forward(m, hp, acc, &st) : train_output(acc, hp, hp[2 * h], h);
    float p = train_sigmoid(out * out_to_sig);
    float e = p - x->target;
    slot->loss += (double)e * (double)e;
    float g = 2.0f * e * p * (1.0f - p) * out_to_sig * inv_batch;
    if (m->l1) {
        train_stack_backward(m, hp, gh, acc, &st, g);
    } else {
        gh[2 * h] += g;
        train_back_output(acc, hp, gh, g, 2 * h);
    }
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
    size_t off_b = (size_t)nf * h, off_o = off_b + (size_t)h;
    size_t nhead = (size_t)m->obuckets * m->hstride;
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
            float *gh = malloc(nhead * sizeof *gh);
            memcpy(gh, slots[0].ghead, nhead * sizeof *gh);
            for (int s = 1; s < nslots; s++)
                for (size_t i = 0; i < nhead; i++) gh[i] += slots[s].ghead[i];
            train_adam_run(m->head, gh, m->m + off_o, m->v + off_o, (int)nhead, lr_t, eps_t);
            free(gh);
            /* the stack's weights stay inside what int8 at 2^6 per unit holds */
            for (int b = 0; b < m->obuckets && m->l1; b++) {
                float *w1 = m->head + (size_t)b * m->hstride;
                float *w2 = w1 + (size_t)m->l1 * 2 * h + m->l1;
                for (size_t i = 0; i < (size_t)m->l1 * 2 * h; i++)
                    w1[i] = w1[i] > STACK_WMAX    ? STACK_WMAX
                            : w1[i] < -STACK_WMAX ? -STACK_WMAX
                                                  : w1[i];
                for (int i = 0; i < m->l2 * m->l1; i++)
                    w2[i] = w2[i] > STACK_WMAX    ? STACK_WMAX
                            : w2[i] < -STACK_WMAX ? -STACK_WMAX
                                                  : w2[i];
            }
        }
        free(g);
    }
    for (int s = 0; s < nslots; s++) {
        memset(slots[s].gftb, 0, (size_t)h * sizeof(float));
        memset(slots[s].ghead, 0, nhead * sizeof(float));
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
    int h = m->hidden, qa = net->d.qa, qb = net->d.qb, l1 = m->l1, l2 = m->l2;
    int nfile = m->nfeat - m->nfactor;
    for (int f = 0; f < nfile; f++) {
        const float *w = m->ftw + (size_t)f * h;
        const float *fw = m->nfactor ? m->ftw + (size_t)(nfile + f % m->nbase) * h : NULL;
        for (int i = 0; i < h; i++)
            net->ft_w[(size_t)f * h + i] = (int16_t)train_round(
                ((double)w[i] + (fw ? (double)fw[i] : 0.0)) * qa, 32767, &clipped);
    }
    for (int i = 0; i < h; i++)
        net->ft_b[i] = (int16_t)train_round((double)m->ftb[i] * qa, 32767, &clipped);
    const double qw = 1 << NNUE_STACK_SHIFT;
    for (int b = 0; b < m->obuckets; b++) {
        const float *hp = m->head + (size_t)b * m->hstride;
        if (!l1) {
            /* the output sum of 2h terms of at most qa * |w| stays inside int32 */
            long lim = (1L << 30) / (2L * h * qa);
            if (lim > 32767) lim = 32767;
            for (int i = 0; i < 2 * h; i++)
                net->out_w[(size_t)b * 2 * h + i] =
                    (int16_t)train_round((double)hp[i] * qb, lim, &clipped);
            net->out_b[b] = (int32_t)train_round((double)hp[2 * h] * qa * qb, 1L << 30, &clipped);
            continue;
        }
        const float *b1 = hp + (size_t)l1 * 2 * h, *w2 = b1 + l1, *b2 = w2 + (size_t)l2 * l1,
                    *wo = b2 + l2;
        for (size_t i = 0; i < (size_t)l1 * 2 * h; i++)
            net->l1_w[(size_t)b * l1 * 2 * h + i] =
                (int8_t)train_round((double)hp[i] * qw, 127, &clipped);
        for (int i = 0; i < l1; i++)
            net->l1_b[b * l1 + i] =
                (int32_t)train_round((double)b1[i] * qa * qw, 1L << 30, &clipped);
        for (int i = 0; i < l2 * l1; i++)
            net->l2_w[(size_t)b * l2 * l1 + i] =
                (int8_t)train_round((double)w2[i] * qw, 127, &clipped);
        for (int i = 0; i < l2; i++)
            net->l2_b[b * l2 + i] =
                (int32_t)train_round((double)b2[i] * qa * qw, 1L << 30, &clipped);
        for (int i = 0; i < l2; i++)
            net->out_w[(size_t)b * l2 + i] =
                (int16_t)train_round((double)wo[i] * qb, 32767, &clipped);
        net->out_b[b] = (int32_t)train_round((double)wo[l2] * qa * qb, 1L << 30, &clipped);
    }
    return clipped;
}

int train_factor_features(const NnueLayout *l, uint16_t *f, int n) {
    for (int j = 0, n0 = n; j < n0 && n < NNUE_MAX_ACTIVE; j++)
        f[n++] = (uint16_t)(l->nfeat + f[j] % l->nbase);
    return n;
}
