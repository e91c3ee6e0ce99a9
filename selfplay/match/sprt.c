/* sprt.c - the GSPRT of a match in game pairs: constrained maximum-likelihood LLR
 * (logistic or normalized Elo), bounds, decision, Elo and interval, and a simulator. */
#include "sprt.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SPRT_EPSILON    1e-3 /* pairs given to an empty pentanomial class */
#define SPRT_Z95        1.959963984540054
#define SPRT_NELO_PER_T (800.0 / 2.302585092994046) /* nElo of t = 1: 800 / ln 10 */

_Static_assert(SPRT_NCLASS == SELFPLAY_NPAIR, "a run's pair classes are the SPRT's");

/* A distribution over pair mean scores: n values a[i] with probabilities p[i]. */
typedef struct SprtPdf {
    int n;
    double a[SPRT_NCLASS], p[SPRT_NCLASS];
} SprtPdf;

bool sprt_parse(const char *text, SprtSpec *spec, char *err, size_t n) {
    double v[4] = {0, 0, 0.05, 0.05};
    int k = 0;
    const char *s = text;
    while (k < 4) {
        char *end;
        v[k] = strtod(s, &end);
        if (end == s || (*end && *end != ',')) {
            snprintf(err, n, "needs elo0,elo1[,alpha,beta] (numbers), got '%s'", text);
            return false;
        }
        k++;
        if (!*end) break;
        s = end + 1;
    }
    if (k != 2 && k != 4) {
        snprintf(err, n, "needs 2 or 4 comma-separated numbers (elo0,elo1[,alpha,beta]), got '%s'",
                 text);
        return false;
    }
    if (!(v[0] < v[1]) || fabs(v[0]) > 2000 || fabs(v[1]) > 2000) {
        snprintf(err, n, "needs elo0 < elo1 (within +-2000), got '%s'", text);
        return false;
    }
    if (!(v[2] > 0 && v[2] < 0.5 && v[3] > 0 && v[3] < 0.5)) {
        snprintf(err, n, "needs alpha and beta in (0, 0.5), got '%s'", text);
        return false;
    }
    *spec = (SprtSpec){v[0], v[1], v[2], v[3], spec->normalized};
    return true;
}

void sprt_pentanomial(const uint64_t cls[SPRT_NCLASS], uint64_t penta[SPRT_NPENTA]) {
    for (int k = 0; k < SPRT_NPENTA; k++) penta[k] = cls[2 * k];
}

void sprt_from_pentanomial(const uint64_t penta[SPRT_NPENTA], uint64_t cls[SPRT_NCLASS]) {
    memset(cls, 0, SPRT_NCLASS * sizeof *cls);
    for (int k = 0; k < SPRT_NPENTA; k++) cls[2 * k] = penta[k];
}

/* Logistic score of an Elo difference. */
static double sprt_score_of_elo(double elo) { return 1.0 / (1.0 + pow(10.0, -elo / 400.0)); }

double sprt_elo_of_score(double s) {
    if (s <= 0.0) return -9999.0;
    if (s >= 1.0) return 9999.0;
    double e = -400.0 * log10(1.0 / s - 1.0);
    return e < -9999.0 ? -9999.0 : e > 9999.0 ? 9999.0 : e;
}

/* The regularised empirical distribution of the counts; returns the number of pairs
 * (0: none). Empty odd classes are left out, empty even ones get SPRT_EPSILON. */
static double sprt_pdf(const uint64_t cls[SPRT_NCLASS], SprtPdf *pdf) {
    double total = 0, w[SPRT_NCLASS];
    uint64_t pairs = 0;
    for (int i = 0; i < SPRT_NCLASS; i++) pairs += cls[i];
    pdf->n = 0;
    if (pairs == 0) return 0;
    for (int i = 0; i < SPRT_NCLASS; i++) {
        w[i] = cls[i] ? (double)cls[i] : i % 2 == 0 ? SPRT_EPSILON : 0.0;
        total += w[i];
    }
    for (int i = 0; i < SPRT_NCLASS; i++) {
        if (w[i] == 0) continue;
        pdf->a[pdf->n] = i / 8.0;
        pdf->p[pdf->n++] = w[i] / total;
    }
    return total;
}

/* Mean and variance of a distribution. */
static void sprt_moments(const SprtPdf *pdf, double *mu, double *var) {
    double m = 0, v = 0;
    for (int i = 0; i < pdf->n; i++) m += pdf->p[i] * pdf->a[i];
    for (int i = 0; i < pdf->n; i++) v += pdf->p[i] * (pdf->a[i] - m) * (pdf->a[i] - m);
    *mu = m;
    *var = v;
}

/* Solves sum_i p[i] d[i] / (1 + x d[i]) = 0 for x with 1 + x d[i] > 0 for all i (the
 * left side falls from +inf to -inf there), by bisection to the last bit; d must have
 * both signs. */
static double sprt_secular(const SprtPdf *pdf, const double *d) {
    double dmin = 0, dmax = 0;
    for (int i = 0; i < pdf->n; i++) {
        if (d[i] < dmin) dmin = d[i];
        if (d[i] > dmax) dmax = d[i];
    }
    double lo = -1.0 / dmax, hi = -1.0 / dmin; /* the poles */
    for (int it = 0; it < 200; it++) {
        double x = 0.5 * (lo + hi), f = 0;
        if (x <= lo || x >= hi) break;
        for (int i = 0; i < pdf->n; i++) f += pdf->p[i] * d[i] / (1.0 + x * d[i]);
        if (f > 0) lo = x;
        else hi = x;
    }
    return 0.5 * (lo + hi);
}

/* The distribution q over pdf's values of largest likelihood sum p log q whose mean is s:
 * stationarity gives q[i] = p[i] / (1 + x (a[i] - s)), x from the secular equation. */
static void sprt_mle_mean(const SprtPdf *pdf, double s, SprtPdf *q) {
    double d[SPRT_NCLASS];
    for (int i = 0; i < pdf->n; i++) d[i] = pdf->a[i] - s;
    double x = sprt_secular(pdf, d);
    *q = *pdf;
    for (int i = 0; i < pdf->n; i++) q->p[i] = pdf->p[i] / (1.0 + x * d[i]);
}

/* The distribution q of largest likelihood whose (mean - 1/2) / sd is t: the gradient of
 * that constraint at the current q, phi[i] = a[i] - 1/2 - t sd (1 + ((a[i] - mu) / sd)^2) / 2,
 * satisfies sum q phi = mean - 1/2 - t sd, so q[i] = p[i] / (1 + x phi[i]) is stationary;
 * iterated from p until q stops moving (fishtest's method). */
static void sprt_mle_t(const SprtPdf *pdf, double t, SprtPdf *q) {
    *q = *pdf;
    for (int it = 0; it < 1000; it++) {
        double mu, var, phi[SPRT_NCLASS], change = 0;
        sprt_moments(q, &mu, &var);
        double sd = sqrt(var);
        for (int i = 0; i < pdf->n; i++) {
            double z = (pdf->a[i] - mu) / sd;
            phi[i] = pdf->a[i] - 0.5 - t * sd * (1.0 + z * z) / 2.0;
        }
        double x = sprt_secular(pdf, phi);
        for (int i = 0; i < pdf->n; i++) {
            double np = pdf->p[i] / (1.0 + x * phi[i]);
            change = fmax(change, fabs(np - q->p[i]));
            q->p[i] = np;
        }
        if (change < 1e-15) break;
    }
}

double sprt_llr(const SprtSpec *spec, const uint64_t cls[SPRT_NCLASS]) {
    SprtPdf pdf, q0, q1;
    double n = sprt_pdf(cls, &pdf);
    if (n == 0) return 0;
    if (spec->normalized) { /* a pair's t is sqrt(2) times a game's */
        sprt_mle_t(&pdf, sqrt(2.0) * spec->elo0 / SPRT_NELO_PER_T, &q0);
        sprt_mle_t(&pdf, sqrt(2.0) * spec->elo1 / SPRT_NELO_PER_T, &q1);
    } else {
        sprt_mle_mean(&pdf, sprt_score_of_elo(spec->elo0), &q0);
        sprt_mle_mean(&pdf, sprt_score_of_elo(spec->elo1), &q1);
    }
    double llr = 0;
    for (int i = 0; i < pdf.n; i++) llr += pdf.p[i] * log(q1.p[i] / q0.p[i]);
    return n * llr;
}

void sprt_elo(const uint64_t cls[SPRT_NCLASS], bool normalized, double *elo, double *lo,
              double *hi) {
    uint64_t pairs = 0;
    for (int i = 0; i < SPRT_NCLASS; i++) pairs += cls[i];
    *elo = *lo = *hi = 0;
    if (pairs == 0) return;
    SprtPdf pdf = {SPRT_NCLASS, {0}, {0}};
    for (int i = 0; i < SPRT_NCLASS; i++) {
        pdf.a[i] = i / 8.0;
        pdf.p[i] = (double)cls[i] / (double)pairs;
    }
    double mu, var;
    sprt_moments(&pdf, &mu, &var);
    double se = sqrt(var / (double)pairs);
    if (normalized) { /* t per game; its standard error is about 1 / sqrt(games) */
        double sd_game = sqrt(2.0 * var);
        double t = sd_game > 0 ? (mu - 0.5) / sd_game : 0;
        double dt = SPRT_Z95 / sqrt(2.0 * (double)pairs);
        *elo = t * SPRT_NELO_PER_T;
        *lo = (t - dt) * SPRT_NELO_PER_T;
        *hi = (t + dt) * SPRT_NELO_PER_T;
        return;
    }
    *elo = sprt_elo_of_score(mu);
    *lo = sprt_elo_of_score(mu - SPRT_Z95 * se);
    *hi = sprt_elo_of_score(mu + SPRT_Z95 * se);
}

SprtStatus sprt_status(const SprtSpec *spec, const uint64_t cls[SPRT_NCLASS]) {
    SprtStatus st = {0};
    double points = 0;
    for (int i = 0; i < SPRT_NCLASS; i++) {
        st.pairs += cls[i];
        points += (double)cls[i] * i / 4.0;
    }
    st.score = st.pairs ? points / (2.0 * (double)st.pairs) : 0.5;
    st.lower = log(spec->beta / (1.0 - spec->alpha));
    st.upper = log((1.0 - spec->beta) / spec->alpha);
    st.llr = sprt_llr(spec, cls);
    st.decision = st.llr >= st.upper ? SPRT_H1 : st.llr <= st.lower ? SPRT_H0 : SPRT_CONTINUE;
    sprt_elo(cls, spec->normalized, &st.elo, &st.elo_lo, &st.elo_hi);
    return st;
}

bool sprt_pair_model(double elo, double draws, double penta[SPRT_NPENTA]) {
    double s = sprt_score_of_elo(elo), w = s - draws / 2.0, l = 1.0 - w - draws;
    if (draws < 0 || draws > 1 || w < 0 || l < 0) return false;
    double g[3] = {l, draws, w}; /* one game: 0, 1/2, 1 point */
    memset(penta, 0, SPRT_NPENTA * sizeof *penta);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) penta[i + j] += g[i] * g[j];
    return true;
}

/* splitmix64 step: the simulator's random stream. */
static uint64_t sprt_rand(uint64_t *state) {
    uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

void sprt_simulate(const SprtSpec *spec, const double p[SPRT_NPENTA], uint64_t seed, long runs,
                   uint64_t max_pairs, SprtSimResult *res, uint64_t *pair_counts) {
    double cum[SPRT_NPENTA], c = 0;
    for (int k = 0; k < SPRT_NPENTA; k++) cum[k] = (c += p[k]);
    uint64_t state = seed;
    *res = (SprtSimResult){0};
    double lower = log(spec->beta / (1.0 - spec->alpha));
    double upper = log((1.0 - spec->beta) / spec->alpha);
    for (long r = 0; r < runs; r++) {
        uint64_t cls[SPRT_NCLASS] = {0}, n = 0, quarters = 0;
        int decision = SPRT_CONTINUE;
        while (decision == SPRT_CONTINUE && n < max_pairs) {
            double u = (double)(sprt_rand(&state) >> 11) * 0x1.0p-53 * c;
            int k = 0;
            while (k < SPRT_NPENTA - 1 && u >= cum[k]) k++;
            cls[2 * k]++;
            quarters += 2 * (uint64_t)k;
            n++;
            double llr = sprt_llr(spec, cls);
            decision = llr >= upper ? SPRT_H1 : llr <= lower ? SPRT_H0 : SPRT_CONTINUE;
        }
        res->h1 += decision == SPRT_H1;
        res->undecided += decision == SPRT_CONTINUE;
        res->undecided_low += decision == SPRT_CONTINUE && quarters <= 4 * n;
        res->pairs_sum += (double)n;
        if (pair_counts) pair_counts[r] = n;
    }
}

/* The stop rule's decision: any decision of the test ends the run. */
static bool sprt_rule_decide(const void *ctx, const uint64_t pairs[SELFPLAY_NPAIR]) {
    return sprt_status(ctx, pairs).decision != SPRT_CONTINUE;
}

/* The stop rule's part of the progress line: LLR, bounds, pentanomial, Elo. */
static void sprt_rule_note(const void *ctx, const uint64_t pairs[SELFPLAY_NPAIR], char *buf,
                           size_t n) {
    SprtStatus st = sprt_status(ctx, pairs);
    uint64_t q[SPRT_NPENTA];
    sprt_pentanomial(pairs, q);
    snprintf(buf, n,
             "LLR %.2f [%.2f, %.2f], pairs LL %llu LD %llu LW+DD %llu DW %llu WW %llu, "
             "Elo %+.1f [%+.1f, %+.1f]",
             st.llr, st.lower, st.upper, (unsigned long long)q[0], (unsigned long long)q[1],
             (unsigned long long)q[2], (unsigned long long)q[3], (unsigned long long)q[4], st.elo,
             st.elo_lo, st.elo_hi);
}

SelfplayStopRule sprt_stop_rule(const SprtSpec *spec) {
    return (SelfplayStopRule){sprt_rule_decide, sprt_rule_note, spec};
}
