/* nnue_stack.c - the dense stack of a version 2 network (NETWORK.md): the feature
 * transformer's halves clipped to uint8 [0, 127], the first layer (int8 weights, int32
 * sums) and the second layer and output. AVX2 kernels where the processor has them and
 * portable ones everywhere; all sums are exact integers that cannot overflow or saturate,
 * so the two give the same numbers. */
#include "nnue.h"

#include <string.h>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define NNUE_X86 1
#endif

#define QA NNUE_STACK_QA

void nnue_transform_portable(const int16_t *a0, const int16_t *a1, int h, uint8_t *x) {
    for (int half = 0; half < 2; half++) {
        const int16_t *a = half ? a1 : a0;
        for (int i = 0; i < h; i++)
            x[half * h + i] = (uint8_t)(a[i] < 0 ? 0 : a[i] > QA ? QA : a[i]);
    }
}

void nnue_l1_portable(const uint8_t *x, const int8_t *w, const int32_t *b, int h2, int n,
                      int32_t *out) {
    for (int j = 0; j < n; j++) {
        const int8_t *row = w + (size_t)j * h2;
        int32_t s = b[j];
        for (int i = 0; i < h2; i++) s += x[i] * row[i];
        out[j] = s;
    }
}

#ifdef NNUE_X86
/* 32 lanes of int16 clipped to [0, 127] and packed to uint8 in their order; an h that is
 * an odd multiple of 16 ends with 16 lanes in 128-bit registers (nothing read or written
 * beyond h lanes of each half). */
__attribute__((target("avx2"))) void nnue_transform_avx2(const int16_t *a0, const int16_t *a1,
                                                         int h, uint8_t *x) {
    const __m256i top = _mm256_set1_epi8(QA);
    for (int half = 0; half < 2; half++) {
        const int16_t *a = half ? a1 : a0;
        uint8_t *dst = x + half * h;
        int i = 0;
        for (; i + 32 <= h; i += 32) {
            __m256i lo = _mm256_loadu_si256((const __m256i *)(a + i));
            __m256i hi = _mm256_loadu_si256((const __m256i *)(a + i + 16));
            /* packus saturates to [0, 255] and interleaves the 128-bit halves */
            __m256i p = _mm256_permute4x64_epi64(_mm256_packus_epi16(lo, hi), 0xD8);
            _mm256_storeu_si256((__m256i *)(dst + i), _mm256_min_epu8(p, top));
        }
        if (i < h) { /* h % 32 == 16 */
            __m128i lo = _mm_loadu_si128((const __m128i *)(a + i));
            __m128i hi = _mm_loadu_si128((const __m128i *)(a + i + 8));
            __m128i p = _mm_packus_epi16(lo, hi);
            _mm_storeu_si128((__m128i *)(dst + i), _mm_min_epu8(p, _mm256_castsi256_si128(top)));
        }
    }
}

/* The sum of the eight int32 lanes of each of four registers, as four int32. */
__attribute__((target("avx2"))) static __m128i nnue_hadd4(__m256i a, __m256i b, __m256i c,
                                                          __m256i d) {
    a = _mm256_hadd_epi32(a, b);
    c = _mm256_hadd_epi32(c, d);
    a = _mm256_hadd_epi32(a, c);
    return _mm_add_epi32(_mm256_castsi256_si128(a), _mm256_extracti128_si256(a, 1));
}

/* Four outputs at a time: uint8 x int8 pairs (maddubs: at most 2 * 127 * 128, no
 * saturation), pairs of int16 to int32 (madd with ones), summed in int32. */
__attribute__((target("avx2"))) void nnue_l1_avx2(const uint8_t *x, const int8_t *w,
                                                  const int32_t *b, int h2, int n, int32_t *out) {
    const __m256i ones = _mm256_set1_epi16(1);
    for (int j = 0; j < n; j += 4) {
        __m256i s[4];
        for (int k = 0; k < 4; k++) s[k] = _mm256_setzero_si256();
        for (int i = 0; i < h2; i += 32) {
            __m256i xv = _mm256_loadu_si256((const __m256i *)(x + i));
            for (int k = 0; k < 4; k++) {
                __m256i wv = _mm256_loadu_si256((const __m256i *)(w + (size_t)(j + k) * h2 + i));
                __m256i p = _mm256_madd_epi16(_mm256_maddubs_epi16(xv, wv), ones);
                s[k] = _mm256_add_epi32(s[k], p);
            }
        }
        __m128i r = nnue_hadd4(s[0], s[1], s[2], s[3]);
        r = _mm_add_epi32(r, _mm_loadu_si128((const __m128i *)(b + j)));
        _mm_storeu_si128((__m128i *)(out + j), r);
    }
}

bool nnue_have_vnni(void) {
    return __builtin_cpu_supports("avx512vnni") && __builtin_cpu_supports("avx512vl");
}

/* The first layer with VNNI (vpdpbusd: four uint8 x int8 products added to an int32 lane
 * in one instruction, no intermediate int16), four outputs at a time. */
__attribute__((target("avx2,avx512vnni,avx512vl"))) void
nnue_l1_vnni(const uint8_t *x, const int8_t *w, const int32_t *b, int h2, int n, int32_t *out) {
    for (int j = 0; j < n; j += 4) {
        __m256i s[4];
        for (int k = 0; k < 4; k++) s[k] = _mm256_setzero_si256();
        for (int i = 0; i < h2; i += 32) {
            __m256i xv = _mm256_loadu_si256((const __m256i *)(x + i));
            for (int k = 0; k < 4; k++)
                s[k] = _mm256_dpbusd_epi32(
                    s[k], xv, _mm256_loadu_si256((const __m256i *)(w + (size_t)(j + k) * h2 + i)));
        }
        __m128i r = nnue_hadd4(s[0], s[1], s[2], s[3]);
        r = _mm_add_epi32(r, _mm_loadu_si128((const __m128i *)(b + j)));
        _mm_storeu_si128((__m128i *)(out + j), r);
    }
}

/* The second layer: n outputs of int8 rows of l1 (a multiple of 16) on y, four rows at a
 * time in 128-bit registers; outputs beyond a multiple of 4 one by one. */
__attribute__((target("avx2"))) static void
nnue_l2_avx2(const uint8_t *y, const int8_t *w, const int32_t *b, int l1, int n, int32_t *out) {
    const __m128i ones = _mm_set1_epi16(1);
    int k = 0;
    for (; k + 4 <= n; k += 4) {
        __m128i s[4];
        for (int r = 0; r < 4; r++) {
            s[r] = _mm_setzero_si128();
            for (int i = 0; i < l1; i += 16) {
                __m128i x = _mm_loadu_si128((const __m128i *)(y + i));
                __m128i wv = _mm_loadu_si128((const __m128i *)(w + (size_t)(k + r) * l1 + i));
                s[r] = _mm_add_epi32(s[r], _mm_madd_epi16(_mm_maddubs_epi16(x, wv), ones));
            }
        }
        __m128i t = _mm_hadd_epi32(_mm_hadd_epi32(s[0], s[1]), _mm_hadd_epi32(s[2], s[3]));
        t = _mm_add_epi32(t, _mm_loadu_si128((const __m128i *)(b + k)));
        _mm_storeu_si128((__m128i *)(out + k), t);
    }
    nnue_l1_portable(y, w + (size_t)k * l1, b + k, l1, n - k, out + k);
}
#else
bool nnue_have_vnni(void) { return false; }
void nnue_l1_vnni(const uint8_t *x, const int8_t *w, const int32_t *b, int h2, int n,
                  int32_t *out) {
    nnue_l1_portable(x, w, b, h2, n, out);
}
static void nnue_l2_avx2(const uint8_t *y, const int8_t *w, const int32_t *b, int l1, int n,
                         int32_t *out) {
    nnue_l1_portable(y, w, b, l1, n, out);
}
void nnue_transform_avx2(const int16_t *a0, const int16_t *a1, int h, uint8_t *x) {
    nnue_transform_portable(a0, a1, h, x);
}
void nnue_l1_avx2(const uint8_t *x, const int8_t *w, const int32_t *b, int h2, int n,
                  int32_t *out) {
    nnue_l1_portable(x, w, b, h2, n, out);
}
#endif

/* A dense layer's int32 sum back to an activation: divided by 2^6, rounded to the nearest
 * (halves up: add 2^5, then an arithmetic shift), and clipped to [0, 127]. */
static inline uint8_t nnue_act(int32_t s) {
    s = (s + (1 << (NNUE_STACK_SHIFT - 1))) >> NNUE_STACK_SHIFT;
    return (uint8_t)(s < 0 ? 0 : s > QA ? QA : s);
}

int32_t nnue_stack_sum(const Network *net, const int16_t *a0, const int16_t *a1, int b, int simd) {
    int h = net->d.hidden, l1 = net->d.l1, l2 = net->d.l2;
    _Alignas(32) uint8_t x[2 * NNUE_MAX_HIDDEN];
    int32_t s1[NNUE_MAX_L1];
    uint8_t y1[NNUE_MAX_L1];
    const int8_t *w1 = net->l1_w + (size_t)b * l1 * 2 * h;
    const int32_t *b1 = net->l1_b + (size_t)b * l1;
    if (simd) {
        nnue_transform_avx2(a0, a1, h, x);
        if (simd == 2) nnue_l1_vnni(x, w1, b1, 2 * h, l1, s1);
        else nnue_l1_avx2(x, w1, b1, 2 * h, l1, s1);
    } else {
        nnue_transform_portable(a0, a1, h, x);
        nnue_l1_portable(x, w1, b1, 2 * h, l1, s1);
    }
    for (int j = 0; j < l1; j++) y1[j] = nnue_act(s1[j]);
    const int8_t *w2 = net->l2_w + (size_t)b * l2 * l1;
    const int32_t *b2 = net->l2_b + (size_t)b * l2;
    const int16_t *wo = net->out_w + (size_t)b * l2;
    int32_t s2[NNUE_MAX_L2];
    if (simd && l1 % 16 == 0) nnue_l2_avx2(y1, w2, b2, l1, l2, s2);
    else nnue_l1_portable(y1, w2, b2, l1, l2, s2);
    int32_t out = 0;
    for (int k = 0; k < l2; k++) out += nnue_act(s2[k]) * wo[k];
    return out;
}
