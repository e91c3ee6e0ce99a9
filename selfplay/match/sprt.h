/* sprt.h - the generalized sequential probability ratio test (GSPRT) of a match played in
 * game pairs (one opening, both colours), as fishtest and OpenBench run it: the results
 * counted per pair (pentanomial), the log-likelihood ratio of H1 (Elo = elo1) against
 * H0 (Elo = elo0) by constrained maximum likelihood, the bounds from alpha and beta, the
 * decision, and the Elo estimate with a 95% interval from the pentanomial variance.
 *
 * A pair's score is player A's points in its two games, counted in quarter points (a
 * stalemate win scores 3/4 in some variants), so a pair falls in one of 9 classes:
 *
 *   class    0    1    2      3    4            5    6      7    8
 *   points   0   1/4  1/2    3/4   1           5/4  3/2    7/4   2
 *   pairs    LL       LD+DL      LW+DD+WL           DW+WD        WW   (the pentanomial)
 *
 * The odd classes need a stalemate win (1/4 or 3/4 of a game); without them the counts
 * are the pentanomial of classes 0, 2, 4, 6, 8. The test treats the pair's mean score
 * (class / 8) as one draw from an unknown distribution over the 9 values: no model of
 * draws or colours is assumed. */
#ifndef CHESSVAR_SELFPLAY_MATCH_SPRT_H
#define CHESSVAR_SELFPLAY_MATCH_SPRT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../games/run.h"

#define SPRT_NCLASS 9 /* pair scores 0, 1/4, ..., 2 points */
#define SPRT_NPENTA 5 /* LL, LD+DL, LW+DD+WL, DW+WD, WW */

/* What the test decides between: H0 Elo = elo0 and H1 Elo = elo1 (elo0 < elo1), with
 * the error rates alpha (accepting H1 under H0) and beta (accepting H0 under H1). Elo
 * is logistic (score = 1 / (1 + 10^(-elo/400))) or, with normalized, normalized Elo
 * (nElo = (score - 1/2) / sigma * 800 / ln 10, sigma the standard deviation of one
 * game's score estimated from the pairs: sqrt(2) times that of a pair's mean). */
typedef struct SprtSpec {
    double elo0, elo1, alpha, beta;
    bool normalized;
} SprtSpec;

enum { SPRT_H0 = -1, SPRT_CONTINUE = 0, SPRT_H1 = 1 };

/* Where a test stands after some pairs. */
typedef struct SprtStatus {
    uint64_t pairs;
    double llr, lower, upper; /* the LLR and the bounds log(beta/(1-alpha)), log((1-beta)/alpha) */
    int decision;             /* SPRT_H0 below lower, SPRT_H1 at or above upper, else CONTINUE */
    double score;             /* player A's mean score per game */
    double elo, elo_lo, elo_hi; /* Elo (logistic, or normalized with spec) and its 95% interval */
} SprtStatus;

/* Parses "elo0,elo1[,alpha,beta]" (alpha, beta default 0.05); false with a message in err
 * naming the bad part. */
bool sprt_parse(const char *text, SprtSpec *spec, char *err, size_t n);

/* The pentanomial counts of the 9 classes (their even classes). */
void sprt_pentanomial(const uint64_t cls[SPRT_NCLASS], uint64_t penta[SPRT_NPENTA]);

/* The 9 classes of pentanomial counts (odd classes 0). */
void sprt_from_pentanomial(const uint64_t penta[SPRT_NPENTA], uint64_t cls[SPRT_NCLASS]);

/* The log-likelihood ratio of the counts: the pairs' empirical distribution, every empty
 * pentanomial class given 1/1000 of a pair (fishtest's regularisation, so a short match
 * does not look certain), the most likely distribution of mean score s0 (and of s1)
 * under it, and pairs * sum p log(p1 / p0). 0 with no pairs. */
double sprt_llr(const SprtSpec *spec, const uint64_t cls[SPRT_NCLASS]);

/* The LLR, bounds, decision and the Elo estimate of the counts. */
SprtStatus sprt_status(const SprtSpec *spec, const uint64_t cls[SPRT_NCLASS]);

/* The Elo of the counts with its 95% interval from the variance of the pair scores (the
 * normal approximation of their mean; logistic unless normalized). No regularisation;
 * +-9999 at 0% or 100%. */
void sprt_elo(const uint64_t cls[SPRT_NCLASS], bool normalized, double *elo, double *lo,
              double *hi);

/* Logistic Elo of a mean score, clamped to +-9999. */
double sprt_elo_of_score(double s);

/* The pentanomial probabilities of a pair of independent games between players Elo
 * apart with a draw rate of `draws` per game (the rest split so the score is logistic);
 * false if no such split exists (draws too high for that Elo). */
bool sprt_pair_model(double elo, double draws, double penta[SPRT_NPENTA]);

/* What sprt_simulate found over its runs. */
typedef struct SprtSimResult {
    long h1;            /* runs that accepted H1 */
    long undecided;     /* runs that hit max_pairs without a decision */
    long undecided_low; /* of those, the runs whose score was at most one half (Elo <= 0) */
    double pairs_sum;   /* the pairs every run used, summed */
} SprtSimResult;

/* Plays `runs` simulated tests with pairs drawn from the pentanomial probabilities p
 * (seeded splitmix64), each until a decision or max_pairs pairs, into r; pair_counts (NULL:
 * not kept) gets each run's pairs. */
void sprt_simulate(const SprtSpec *spec, const double p[SPRT_NPENTA], uint64_t seed, long runs,
                   uint64_t max_pairs, SprtSimResult *r, uint64_t *pair_counts);

/* The test of spec (kept by pointer) as the stop rule of a paired self-play run: it stops
 * the run at a decision and shows LLR, bounds and pair counts in the progress line. */
SelfplayStopRule sprt_stop_rule(const SprtSpec *spec);

#endif
