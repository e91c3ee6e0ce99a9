/* train.h - the network trainer: float training of features -> FT (H per perspective) ->
 * clipped ReLU -> one output (or, version 2, output buckets by material, a dense stack, king
 * input buckets) on self-play records, with sparse feature-transformer updates
 * (only the rows a batch touched), Adam, OpenMP over fixed batch slices (so a seed gives the
 * same net for any thread count), a validation split, checkpoints, a loss log, and the
 * quantised network file (nnue.h) at the end. NETWORK.md describes the choices. */
#ifndef CHESSVAR_SELFPLAY_TRAIN_H
#define CHESSVAR_SELFPLAY_TRAIN_H

#include "dataset.h"
#include "../player/nnue.h"

#define TRAIN_SLOTS 4 /* a batch is cut into this many slices, each with its own gradients */

typedef struct TrainOpts {
    const char *data;       /* comma-separated run folders */
    const char *out;        /* the network file */
    const char *checkpoint; /* checkpoint file (resumed from when it exists), or NULL */
    const char *log;        /* loss log CSV, or NULL */
    const char *dump_grads; /* write one batch's parameters and gradients here and stop */
    int hidden;
    int obuckets;       /* output buckets by material (1: none) */
    int l1, l2;         /* dense stack 2H -> l1 -> l2 -> 1 (0, 0: none) */
    int kbuckets;       /* king input buckets (0: none) */
    uint8_t kb_map[32]; /* their map (NnueLayout.kb_map) */
    bool factorise;     /* king buckets share a factor: one more set of rows, trained with every
                           bucket's and added to each at export (NETWORK.md) */
    int batch;
    uint64_t positions; /* training positions to consume in all */
    double lr, lr_end;  /* Adam step size, cosine-decayed from lr to lr_end */
    double lambda;      /* target = lambda * sigmoid(score / K) + (1 - lambda) * result */
    double sig_k;       /* K of the sigmoid, centipawns */
    int scale;          /* centipawns per unit of the output */
    int qa, qb;         /* quantisation of the FT and the output weights */
    uint64_t seed;
    int threads;
    DataFilter filter;
    size_t shuffle;       /* shuffle buffer, records */
    int val_max;          /* validation positions kept in memory */
    uint64_t log_every;   /* positions between loss-log lines */
    int checkpoint_secs;  /* seconds between checkpoints */
    double progress_secs; /* seconds between progress lines, 0 = none */
    bool keep_last;       /* write the last network, not the one of the lowest validation loss */
    bool mirror;          /* see each training position with its files mirrored half the time */
    uint64_t stop_after;  /* stop once this many positions are consumed, after a checkpoint,
                             as if killed there (0: never) */
} TrainOpts;

/* Defaults of every option (the command line changes them). */
void train_defaults(TrainOpts *o);

/* Trains as o says; returns 0, or 2 with err filled on bad input or a failed write. */
int train_run(const TrainOpts *o, CvError *err);

/* ---------------------------------------------------------------- model (train_model.c) */

/* One position's inputs: feature lists of the side to move's and the other perspective,
 * and its output bucket. */
typedef struct TrainSample {
    uint16_t f[2][NNUE_MAX_ACTIVE];
    uint16_t n[2];
    uint8_t bucket;
    float target;
} TrainSample;

/* Float parameters and Adam moments. The head of output bucket b starts at head + b *
 * hstride: without a stack ow[2 hidden], ob; with one w1[l1][2 hidden], b1[l1],
 * w2[l2][l1], b2[l2], wo[l2], bo. */
typedef struct TrainModel {
    int nfeat, hidden;
    int nfactor; /* the last nfactor of the nfeat rows are the king buckets' shared factor,
                    not in the network file (0: none) */
    int nbase;   /* features of one king bucket: row f's factor is nfeat - nfactor + f %
                    nbase */
    int obuckets, l1, l2;
    size_t hsize;   /* parameters of one bucket's head */
    size_t hstride; /* hsize, rounded up to 16 floats when there is more than the v1 head */
    float *ftw, *ftb, *head; /* nfeat x hidden, hidden, obuckets x hstride */
    float *m, *v;            /* Adam moments of every parameter, in the order ftw, ftb, head */
    uint64_t steps;          /* Adam steps taken */
} TrainModel;

/* Gradients of one slice of a batch. */
typedef struct TrainSlot {
    float *gftw; /* nfeat x hidden; rows not in touched are zero */
    float *gftb, *ghead;
    uint8_t *touched; /* per feature */
    double loss;      /* sum over the slice */
    float *acc;       /* scratch: 2 x hidden */
} TrainSlot;

/* A model of nfeat features, hidden, obuckets output buckets and a stack l1, l2 (0, 0:
 * none), initialised from seed. The caller sets nfactor and nbase, and zeroes the factor's
 * rows, for a factorised model. */
bool train_model_init(TrainModel *m, int nfeat, int hidden, int obuckets, int l1, int l2,
                      uint64_t seed);
void train_model_free(TrainModel *m);
bool train_slot_init(TrainSlot *s, const TrainModel *m);
void train_slot_free(TrainSlot *s);
/* Parameters in all (FT weights, FT biases, heads). */
size_t train_nparams(const TrainModel *m);

/* The float output (units: scale centipawns) of one sample, acc filled (2 x hidden) with the
 * feature transformer's output before clipping. */
float train_forward(const TrainModel *m, const TrainSample *x, float *acc);
/* Forward and backward pass of one sample: adds its share of the gradients of the mean
 * loss over a batch (inv_batch = 1 / batch size) into slot; loss per sample
 * (sigmoid(out * out_to_sig) - target)^2, out_to_sig = scale / K. */
void train_sample(const TrainModel *m, const TrainSample *x, float inv_batch, float out_to_sig,
                  TrainSlot *slot);
/* Sums the slots' gradients, takes one Adam step on the touched FT rows and every other
 * parameter, and zeroes the slots. */
void train_adam(TrainModel *m, TrainSlot *slots, int nslots, double lr);
/* Loss of one sample under the model; acc is scratch (2 x hidden). */
double train_loss(const TrainModel *m, const TrainSample *x, float out_to_sig, float *acc);

/* --factorise: appends to the n features f[] of a king-bucket layout l the factor row of
 * each (nfeat + f mod nbase, the same feature in no bucket); returns the new count (at most
 * NNUE_MAX_ACTIVE). */
int train_factor_features(const NnueLayout *l, uint16_t *f, int n);

/* Fills net's weights from the float model (a factorised row is its own weights plus its
 * factor's); returns how many weights were clipped. */
long train_quantise(const TrainModel *m, Network *net);

#endif
