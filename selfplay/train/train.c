/* train.c - the training loop: data stream and validation set, batches cut into fixed
 * slices for the threads, the learning-rate schedule, progress and loss log, checkpoints
 * (resume = reload the model and replay the seeded stream to the same record), the gradient
 * dump for the autograd test, and the quantised network at the end. */
#define _POSIX_C_SOURCE 200809L
#include "train.h"

#include <math.h>
#include <omp.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <xxhash.h>

#include "../files.h"

#define CKPT_MAGIC   "CVSPTRCK"
#define CKPT_VERSION 1

void train_defaults(TrainOpts *o) {
    memset(o, 0, sizeof *o);
    o->hidden = 256;
    o->obuckets = 1;
    o->batch = 4096;
    o->positions = 10000000;
    o->lr = 0.003;
    o->lr_end = 0.0001;
    o->lambda = 1.0; /* the search score alone: results/net_lambda_{chess,superchess}.json */
    o->sig_k = 400;
    o->scale = 400;
    o->qa = 255;
    o->qb = 256;
    o->seed = 1;
    o->threads = 0;
    o->filter.skip_check = true;
    o->filter.skip_captures = true;
    o->filter.max_score = 10000;
    o->filter.val_permille = 20;
    o->shuffle = 1 << 20;
    o->val_max = 50000;
    o->log_every = 1000000;
    o->checkpoint_secs = 300;
    o->progress_secs = 5;
}

static double train_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* More passes over the data than this draw a warning: a net that has seen each position
 * this often learns them by heart (validation loss rising while training loss falls). */
#define TRAIN_PASSES_WARN 20

/* Whether the training position at stream index i (positions consumed before it) is seen
 * with its files mirrored (--mirror): a coin from the seed and the index, so the same
 * record is mirrored in some passes and not in others, the same way for any thread count
 * and after a resume. */
static bool train_mirrored(const TrainOpts *o, uint64_t i) {
    if (!o->mirror) return false;
    uint64_t k[2] = {o->seed, i};
    return XXH3_64bits(k, sizeof k) & 1;
}

/* The inputs and target of record r, its board's files mirrored when mirror is set. */
static void train_make_sample(const DataSet *ds, const NnueLayout *l, const TrainOpts *o,
                              int mat_max, const uint8_t *r, bool mirror, TrainSample *x) {
    uint8_t hand[2][MAX_PT], pool[2][MAX_PT];
    data_holdings(ds, r, hand, pool);
    const uint8_t *hp[2] = {hand[0], hand[1]}, *pp[2] = {pool[0], pool[1]};
    const uint8_t *board = r + REC_BOARD;
    uint8_t flipped[MAX_SQ];
    if (mirror) {
        for (int sq = 0; sq < l->nsq; sq++)
            flipped[sq - sq % l->width + (l->width - 1 - sq % l->width)] = board[sq];
        board = flipped;
    }
    int stm = r[REC_SIDE];
    x->bucket = 0;
    if (o->obuckets > 1) {
        int n = nnue_material(l, board, hp), nb = o->obuckets, b = n * nb / (mat_max + 1);
        x->bucket = (uint8_t)(b < nb ? b : nb - 1);
    }
    for (int k = 0; k < 2; k++) {
        int n = nnue_features(l, k == 0 ? stm : stm ^ 1, board, hp, pp, x->f[k]);
        /* --factorise: each feature also activates its factor row (king buckets are 8x8
         * without holdings: at most 64 features here) */
        if (o->factorise) n = train_factor_features(l, x->f[k], n);
        x->n[k] = (uint16_t)n;
    }
    int score = (int16_t)(r[REC_SCORE] | r[REC_SCORE + 1] << 8);
    int result = (int16_t)(r[REC_RESULT] | r[REC_RESULT + 1] << 8);
    double s = 1.0 / (1.0 + exp(-score / o->sig_k));
    x->target = (float)(o->lambda * s + (1 - o->lambda) * result / 1000.0);
}

/* The state a run carries besides its inputs. */
typedef struct TrainState {
    const TrainOpts *o;
    DataSet ds;
    NnueLayout l;
    int mat_max; /* material of the variant's start: the top output bucket */
    TrainModel model;
    TrainSlot slots[TRAIN_SLOTS];
    uint8_t *batch; /* batch records */
    uint8_t *val;   /* validation records */
    int nval;
    uint64_t consumed; /* training positions taken from the stream */
    uint64_t next_log;
    double seconds;   /* training time of earlier invocations (resume) */
    double best_val;  /* lowest validation loss at a log line so far (INFINITY: none) */
    uint64_t best_at; /* positions trained when it was reached */
} TrainState;

/* Forward and backward over the batch in TRAIN_SLOTS fixed slices; returns the loss sum. */
static double train_batch(TrainState *t, float out_to_sig) {
    const TrainOpts *o = t->o;
    int b = o->batch;
#pragma omp parallel for schedule(dynamic, 1)
    for (int s = 0; s < TRAIN_SLOTS; s++) {
        TrainSample x;
        int lo = (int)((int64_t)b * s / TRAIN_SLOTS),
            hi = (int)((int64_t)b * (s + 1) / TRAIN_SLOTS);
        for (int i = lo; i < hi; i++) {
            train_make_sample(&t->ds, &t->l, o, t->mat_max, t->batch + (size_t)i * t->ds.rsize,
                              train_mirrored(o, t->consumed + (uint64_t)i), &x);
            train_sample(&t->model, &x, 1.0f / (float)b, out_to_sig, &t->slots[s]);
        }
    }
    double loss = 0; /* in slot order, so the sum does not depend on the threads */
    for (int s = 0; s < TRAIN_SLOTS; s++) loss += t->slots[s].loss;
    return loss;
}

/* Mean loss over the validation records (NAN without any). */
static double train_val_loss(TrainState *t, float out_to_sig) {
    if (!t->nval) return NAN;
    double part[TRAIN_SLOTS] = {0};
#pragma omp parallel for schedule(dynamic, 1)
    for (int s = 0; s < TRAIN_SLOTS; s++) {
        TrainSample x;
        int lo = (int)((int64_t)t->nval * s / TRAIN_SLOTS);
        int hi = (int)((int64_t)t->nval * (s + 1) / TRAIN_SLOTS);
        for (int i = lo; i < hi; i++) {
            train_make_sample(&t->ds, &t->l, t->o, t->mat_max, t->val + (size_t)i * t->ds.rsize,
                              false, &x);
            part[s] += train_loss(&t->model, &x, out_to_sig, t->slots[s].acc);
        }
    }
    double loss = 0; /* in slot order: the same value for any thread count */
    for (int s = 0; s < TRAIN_SLOTS; s++) loss += part[s];
    return loss / t->nval;
}

/* Reads up to val_max validation records (one pass over the validation games). */
static bool train_load_val(TrainState *t, CvError *err) {
    const TrainOpts *o = t->o;
    if (!o->filter.val_permille || !o->val_max) return true;
    DataFilter vf = o->filter;
    vf.validation = true;
    DataStream vs;
    if (!stream_init(&vs, &t->ds, &vf, false, 0, o->seed, err)) return false;
    t->val = malloc((size_t)o->val_max * t->ds.rsize);
    int got = 0;
    while (t->val && t->nval < o->val_max &&
           (got = stream_next(&vs, t->val + (size_t)t->nval * t->ds.rsize, err)) > 0)
        t->nval++;
    stream_free(&vs);
    return got >= 0 && t->val;
}

/* ---------------------------------------------------------------- checkpoints */

static size_t train_param_count(const TrainModel *m) { return train_nparams(m); }

/* The version 2 options a checkpoint records (bytes 113..127; zero for version 1): output
 * buckets - 1, l1, l2, king buckets, the factoriser, and the XXH3-64 of the king bucket
 * map. */
static void train_ckpt_arch(const TrainOpts *o, uint8_t *b) {
    b[0] = (uint8_t)(o->obuckets - 1);
    b[1] = (uint8_t)o->l1;
    b[2] = (uint8_t)o->l2;
    b[3] = (uint8_t)o->kbuckets;
    b[4] = (uint8_t)o->factorise;
    uint64_t h = o->kbuckets ? XXH3_64bits(o->kb_map, sizeof o->kb_map) : 0;
    memcpy(b + 7, &h, 8);
}

/* Checkpoint: magic, version, what must match on resume, progress, the best validation
 * loss so far, parameters, moments, XXH3-64 of all before it. */
static bool train_save_checkpoint(TrainState *t, double seconds, CvError *err) {
    const TrainModel *m = &t->model;
    size_t np = train_param_count(m);
    size_t n = 128 + 3 * np * sizeof(float) + 8;
    uint8_t *b = calloc(1, n);
    if (!b) {
        snprintf(err->msg, sizeof err->msg, "out of memory writing a checkpoint");
        return false;
    }
    memcpy(b, CKPT_MAGIC, 8);
    uint64_t head[8] = {
        CKPT_VERSION, (uint64_t)m->nfeat, (uint64_t)m->hidden, t->o->seed, (uint64_t)t->o->batch,
        t->consumed,  m->steps,           t->next_log};
    memcpy(b + 8, head, sizeof head);
    memcpy(b + 72, &seconds, sizeof seconds);
    snprintf((char *)b + 80, 16, "%s", t->ds.var->name);
    memcpy(b + 96, &t->best_val, sizeof t->best_val);
    memcpy(b + 104, &t->best_at, sizeof t->best_at);
    b[112] = t->o->mirror; /* 0 in checkpoints from before --mirror */
    train_ckpt_arch(t->o, b + 113);
    uint8_t *p = b + 128;
    size_t hw = (size_t)m->nfeat * m->hidden * sizeof(float);
    memcpy(p, m->ftw, hw);
    p += hw;
    memcpy(p, m->ftb, (size_t)m->hidden * sizeof(float));
    p += (size_t)m->hidden * sizeof(float);
    size_t hh = (size_t)m->obuckets * m->hstride * sizeof(float);
    memcpy(p, m->head, hh);
    p += hh;
    memcpy(p, m->m, np * sizeof(float));
    p += np * sizeof(float);
    memcpy(p, m->v, np * sizeof(float));
    p += np * sizeof(float);
    uint64_t h = XXH3_64bits(b, (size_t)(p - b));
    memcpy(p, &h, 8);
    bool ok = file_write_atomic(t->o->checkpoint, (const char *)b, n, err);
    free(b);
    return ok;
}

/* Loads the checkpoint if it exists: 1 loaded, 0 none, -1 error (err filled). */
static int train_load_checkpoint(TrainState *t, CvError *err) {
    const char *path = t->o->checkpoint;
    FILE *f = path ? fopen(path, "rb") : NULL;
    if (!f) return 0;
    TrainModel *m = &t->model;
    size_t np = train_param_count(m);
    size_t n = 128 + 3 * np * sizeof(float) + 8;
    uint8_t *b = malloc(n + 1);
    size_t got = b ? fread(b, 1, n + 1, f) : 0;
    fclose(f);
    uint64_t head[8], h;
    int rc = -1;
    if (got != n || memcmp(b, CKPT_MAGIC, 8) != 0) {
        snprintf(err->msg, sizeof err->msg,
                 "checkpoint %s: not a checkpoint of this network shape (%zu bytes): made with "
                 "other options (hidden, output buckets, stack, king buckets or factoriser) or "
                 "not a checkpoint; remove it or use the same options",
                 path, got);
        goto done;
    }
    memcpy(head, b + 8, sizeof head);
    memcpy(&h, b + n - 8, 8);
    if (h != XXH3_64bits(b, n - 8)) {
        snprintf(err->msg, sizeof err->msg, "checkpoint %s: corrupt (checksum mismatch)", path);
        goto done;
    }
    char name[17] = {0};
    memcpy(name, b + 80, 16);
    uint8_t arch[15] = {0};
    train_ckpt_arch(t->o, arch);
    if (head[0] != CKPT_VERSION || head[1] != (uint64_t)m->nfeat ||
        head[2] != (uint64_t)m->hidden || head[3] != t->o->seed ||
        head[4] != (uint64_t)t->o->batch || strcmp(name, t->ds.var->name) != 0 ||
        b[112] != (uint8_t)t->o->mirror || memcmp(b + 113, arch, sizeof arch) != 0) {
        snprintf(err->msg, sizeof err->msg,
                 "checkpoint %s: made with other options (variant, hidden, seed, batch, "
                 "mirror, output buckets, stack, king buckets or factoriser); "
                 "remove it or use the same options",
                 path);
        goto done;
    }
    t->consumed = head[5];
    m->steps = head[6];
    t->next_log = head[7];
    memcpy(&t->seconds, b + 72, sizeof t->seconds);
    memcpy(&t->best_val, b + 96, sizeof t->best_val);
    memcpy(&t->best_at, b + 104, sizeof t->best_at);
    const uint8_t *p = b + 128;
    size_t hw = (size_t)m->nfeat * m->hidden * sizeof(float);
    memcpy(m->ftw, p, hw);
    p += hw;
    memcpy(m->ftb, p, (size_t)m->hidden * sizeof(float));
    p += (size_t)m->hidden * sizeof(float);
    size_t hh = (size_t)m->obuckets * m->hstride * sizeof(float);
    memcpy(m->head, p, hh);
    p += hh;
    memcpy(m->m, p, np * sizeof(float));
    p += np * sizeof(float);
    memcpy(m->v, p, np * sizeof(float));
    rc = 1;
done:
    free(b);
    return rc;
}

/* ---------------------------------------------------------------- gradient dump */

static void train_dump_floats(FILE *f, const char *name, const float *x, size_t n) {
    fprintf(f, "\"%s\":[", name);
    for (size_t i = 0; i < n; i++) fprintf(f, "%s%.9g", i ? "," : "", (double)x[i]);
    fprintf(f, "],\n");
}

/* Writes the model, one batch (features and targets), its mean loss and the gradients of
 * every parameter as JSON, for a check against an autograd implementation. */
static bool train_dump(TrainState *t, float out_to_sig, CvError *err) {
    const TrainOpts *o = t->o;
    TrainModel *m = &t->model;
    FILE *f = fopen(o->dump_grads, "w");
    if (!f) {
        snprintf(err->msg, sizeof err->msg, "%s: cannot write it", o->dump_grads);
        return false;
    }
    int h = m->hidden;
    size_t nhead = (size_t)m->obuckets * m->hstride;
    fprintf(f,
            "{\"nfeat\":%d,\"hidden\":%d,\"out_to_sig\":%.9g,\"batch\":%d,\"obuckets\":%d,"
            "\"l1\":%d,\"l2\":%d,\"hstride\":%zu,\"kbuckets\":%d,\"nfactor\":%d,"
            "\"nbase\":%d,\n",
            m->nfeat, h, (double)out_to_sig, o->batch, m->obuckets, m->l1, m->l2, m->hstride,
            o->kbuckets, m->nfactor, m->nbase);
    train_dump_floats(f, "ftw", m->ftw, (size_t)m->nfeat * h);
    train_dump_floats(f, "ftb", m->ftb, (size_t)h);
    train_dump_floats(f, "head", m->head, nhead);
    fprintf(f, "\"samples\":[\n");
    for (int i = 0; i < o->batch; i++) {
        TrainSample x;
        train_make_sample(&t->ds, &t->l, o, t->mat_max, t->batch + (size_t)i * t->ds.rsize, false,
                          &x);
        fprintf(f, "%s{\"t\":%.9g,\"b\":%d", i ? "," : "", (double)x.target, x.bucket);
        for (int k = 0; k < 2; k++) {
            fprintf(f, ",\"f%d\":[", k);
            for (int j = 0; j < x.n[k]; j++) fprintf(f, "%s%u", j ? "," : "", x.f[k][j]);
            fprintf(f, "]");
        }
        fprintf(f, "}\n");
    }
    double loss = train_batch(t, out_to_sig) / o->batch;
    /* the slots' sums, in slot order, as the Adam step adds them */
    float *g = calloc(train_nparams(m), sizeof *g);
    float *gw = g, *gb = g + (size_t)m->nfeat * h, *go = gb + h;
    for (int s = 0; s < TRAIN_SLOTS; s++) {
        TrainSlot *sl = &t->slots[s];
        for (size_t i = 0; i < (size_t)m->nfeat * h; i++) gw[i] += sl->gftw[i];
        for (int i = 0; i < h; i++) gb[i] += sl->gftb[i];
        for (size_t i = 0; i < nhead; i++) go[i] += sl->ghead[i];
    }
    fprintf(f, "],\n\"loss\":%.9g,\n", loss);
    train_dump_floats(f, "g_ftw", gw, (size_t)m->nfeat * h);
    train_dump_floats(f, "g_ftb", gb, (size_t)h);
    train_dump_floats(f, "g_head", go, nhead);
    fprintf(f, "\"end\":0}\n");
    free(g);
    bool ok = fclose(f) == 0;
    if (!ok) snprintf(err->msg, sizeof err->msg, "%s: write failed", o->dump_grads);
    return ok;
}

/* ---------------------------------------------------------------- batch loader */

/* A thread that reads the next batches from the stream while the model trains on the
 * current one: two buffers, filled in turn, in stream order. */
typedef struct Loader {
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    DataStream *s;
    uint8_t *buf[2];
    int ready[2]; /* 1 full, -1 the stream failed */
    bool stop;
    int batch, rsize;
    CvError err;
} Loader;

static void *loader_main(void *arg) {
    Loader *ld = arg;
    for (int k = 0;; k ^= 1) {
        pthread_mutex_lock(&ld->mu);
        while (ld->ready[k] && !ld->stop) pthread_cond_wait(&ld->cv, &ld->mu);
        bool stop = ld->stop;
        pthread_mutex_unlock(&ld->mu);
        if (stop) return NULL;
        int st = 1;
        for (int i = 0; i < ld->batch && st > 0; i++)
            st = stream_next(ld->s, ld->buf[k] + (size_t)i * ld->rsize, &ld->err);
        pthread_mutex_lock(&ld->mu);
        ld->ready[k] = st > 0 ? 1 : -1;
        pthread_cond_broadcast(&ld->cv);
        pthread_mutex_unlock(&ld->mu);
        if (st <= 0) return NULL;
    }
}

static bool loader_start(Loader *ld, DataStream *s, int batch, int rsize) {
    memset(ld, 0, sizeof *ld);
    ld->s = s;
    ld->batch = batch;
    ld->rsize = rsize;
    ld->buf[0] = malloc((size_t)batch * rsize);
    ld->buf[1] = malloc((size_t)batch * rsize);
    pthread_mutex_init(&ld->mu, NULL);
    pthread_cond_init(&ld->cv, NULL);
    return ld->buf[0] && ld->buf[1] && pthread_create(&ld->thread, NULL, loader_main, ld) == 0;
}

/* The k-th batch (k counts from 0), or NULL with err filled when the stream failed. */
static const uint8_t *loader_get(Loader *ld, uint64_t k, CvError *err) {
    int i = (int)(k & 1);
    pthread_mutex_lock(&ld->mu);
    while (!ld->ready[i]) pthread_cond_wait(&ld->cv, &ld->mu);
    int st = ld->ready[i];
    pthread_mutex_unlock(&ld->mu);
    if (st < 0) *err = ld->err;
    return st > 0 ? ld->buf[i] : NULL;
}

/* Hands the k-th batch's buffer back for refilling. */
static void loader_release(Loader *ld, uint64_t k) {
    pthread_mutex_lock(&ld->mu);
    ld->ready[k & 1] = 0;
    pthread_cond_broadcast(&ld->cv);
    pthread_mutex_unlock(&ld->mu);
}

static void loader_stop(Loader *ld, bool started) {
    if (started) {
        pthread_mutex_lock(&ld->mu);
        ld->stop = true;
        pthread_cond_broadcast(&ld->cv);
        pthread_mutex_unlock(&ld->mu);
        pthread_join(ld->thread, NULL);
    }
    pthread_mutex_destroy(&ld->mu);
    pthread_cond_destroy(&ld->cv);
    free(ld->buf[0]);
    free(ld->buf[1]);
}

/* ---------------------------------------------------------------- the run */

/* Cosine decay from lr to lr_end over the run. */
static double train_lr(const TrainOpts *o, uint64_t consumed) {
    double x = o->positions ? (double)consumed / (double)o->positions : 1.0;
    if (x > 1) x = 1;
    return o->lr_end + 0.5 * (o->lr - o->lr_end) * (1 + cos(3.14159265358979323846 * x));
}

/* "1h02m03s" or "42s". */
static void train_hms(char *buf, size_t n, double s) {
    long t = s > 0 && s < 1e9 ? (long)(s + 0.5) : 0;
    if (t >= 3600) snprintf(buf, n, "%ldh%02ldm%02lds", t / 3600, t / 60 % 60, t % 60);
    else if (t >= 60) snprintf(buf, n, "%ldm%02lds", t / 60, t % 60);
    else snprintf(buf, n, "%lds", t);
}

/* Writes the quantised network of the model to the output file. */
static bool train_write_net(TrainState *t, CvError *err) {
    const TrainOpts *o = t->o;
    NnueDims d;
    memset(&d, 0, sizeof d);
    snprintf(d.variant, sizeof d.variant, "%s", t->ds.var->name);
    d.width = (uint8_t)t->l.width;
    d.height = (uint8_t)t->l.height;
    d.npt = (uint8_t)t->l.npt;
    d.hold_k = (uint8_t)t->l.hold_k;
    d.feature_set = o->kbuckets ? NNUE_FEATURE_KB : NNUE_FEATURE_SET;
    d.hidden = (uint16_t)o->hidden;
    d.nfeat = (uint32_t)t->l.nfeat;
    d.version = o->obuckets > 1 || o->l1 || o->kbuckets ? 2 : 1;
    d.obuckets = (uint8_t)o->obuckets;
    d.mat_max = (uint8_t)(o->obuckets > 1 ? t->mat_max : 0);
    d.l1 = (uint16_t)o->l1;
    d.l2 = (uint16_t)o->l2;
    d.kbuckets = (uint8_t)o->kbuckets;
    if (o->kbuckets) memcpy(d.kb_map, o->kb_map, sizeof d.kb_map);
    d.qa = (uint16_t)(o->l1 ? NNUE_STACK_QA : o->qa);
    d.qb = (uint16_t)o->qb;
    d.scale = (uint16_t)o->scale;
    Network *net = nnue_alloc(&d, t->ds.var);
    if (!net) {
        snprintf(err->msg, sizeof err->msg, "out of memory for the network");
        return false;
    }
    long clipped = train_quantise(&t->model, net);
    if (clipped)
        fprintf(stderr, "train: %ld weights were outside the quantised range and clipped\n",
                clipped);
    size_t len;
    uint8_t *img = nnue_serialise(net, &len);
    bool ok = img && file_write_atomic(o->out, (const char *)img, len, err);
    free(img);
    nnue_free(net);
    return ok;
}

/* Frees what a run allocated. */
static void train_state_free(TrainState *t) {
    for (int s = 0; s < TRAIN_SLOTS; s++) train_slot_free(&t->slots[s]);
    train_model_free(&t->model);
    free(t->batch);
    free(t->val);
    dataset_close(&t->ds);
}

int train_run(const TrainOpts *o, CvError *err) {
    TrainState t;
    memset(&t, 0, sizeof t);
    t.o = o;
    t.best_val = INFINITY;
    int rc = 2;
    DataStream ts;
    memset(&ts, 0, sizeof ts);
    FILE *log = NULL;
    Loader ld;
    memset(&ld, 0, sizeof ld);
    bool loader_started = false;
    if (o->threads > 0) omp_set_num_threads(o->threads);
    if (o->hidden < 16 || o->hidden > NNUE_MAX_HIDDEN || o->hidden % 16) {
        snprintf(err->msg, sizeof err->msg, "hidden size %d: a multiple of 16 in 16..%d", o->hidden,
                 NNUE_MAX_HIDDEN);
        return 2;
    }
    if (o->obuckets < 1 || o->obuckets > NNUE_MAX_OBUCKET || o->l1 < 0 || o->l1 > NNUE_MAX_L1 ||
        o->l1 % 4 || o->l2 < 0 || o->l2 > NNUE_MAX_L2 || !o->l1 != !o->l2) {
        snprintf(err->msg, sizeof err->msg,
                 "output buckets %d (1..%d), stack %d,%d (L1 a multiple of 4 up to %d, L2 "
                 "1..%d)",
                 o->obuckets, NNUE_MAX_OBUCKET, o->l1, o->l2, NNUE_MAX_L1, NNUE_MAX_L2);
        return 2;
    }
    if (!dataset_open(&t.ds, o->data, err)) return 2;
    nnue_layout(t.ds.var, &t.l);
    if (o->kbuckets) {
        if (!t.l.king_type) {
            snprintf(err->msg, sizeof err->msg,
                     "--king-buckets: variant %s has none (on 8x8 with one royal piece only; "
                     "NETWORK.md)",
                     t.ds.var->name);
            dataset_close(&t.ds);
            return 2;
        }
        nnue_layout_kb(&t.l, o->kbuckets, o->kb_map);
    } else if (o->factorise) {
        snprintf(err->msg, sizeof err->msg,
                 "--factorise: needs --king-buckets (it is the king buckets' shared factor)");
        dataset_close(&t.ds);
        return 2;
    }
    t.mat_max = nnue_material_max(t.ds.var);
    if (t.mat_max > 255) t.mat_max = 255;
    int nfactor = o->factorise ? t.l.nbase : 0;
    bool ok = train_model_init(&t.model, t.l.nfeat + nfactor, o->hidden, o->obuckets, o->l1, o->l2,
                               o->seed);
    if (ok && nfactor) {
        /* the factor starts at zero: the buckets start as the model without it would */
        t.model.nfactor = nfactor;
        t.model.nbase = t.l.nbase;
        memset(t.model.ftw + (size_t)t.l.nfeat * o->hidden, 0,
               (size_t)nfactor * o->hidden * sizeof(float));
    }
    for (int s = 0; s < TRAIN_SLOTS; s++) ok = ok && train_slot_init(&t.slots[s], &t.model);
    t.batch = malloc((size_t)o->batch * t.ds.rsize);
    if (!ok || !t.batch) {
        snprintf(err->msg, sizeof err->msg, "out of memory for the model or the batch");
        goto done;
    }
    const float out_to_sig = (float)(o->scale / o->sig_k);
    if (!train_load_val(&t, err)) goto done;
    int loaded = o->dump_grads ? 0 : train_load_checkpoint(&t, err);
    if (loaded < 0) goto done;
    if (!stream_init(&ts, &t.ds, &o->filter, true, o->shuffle, o->seed, err)) goto done;
    /* a resumed run replays the stream to where the checkpoint was taken */
    for (uint64_t i = 0; i < t.consumed; i++)
        if (stream_next(&ts, t.batch, err) < 0) goto done;
    if (o->dump_grads) {
        for (int i = 0; i < o->batch; i++)
            if (stream_next(&ts, t.batch + (size_t)i * t.ds.rsize, err) < 0) goto done;
        rc = train_dump(&t, out_to_sig, err) ? 0 : 2;
        goto done;
    }
    if (o->log) {
        log = fopen(o->log, loaded ? "a" : "w");
        if (!log) {
            snprintf(err->msg, sizeof err->msg, "%s: cannot write the loss log", o->log);
            goto done;
        }
        if (!loaded)
            fprintf(log, "positions,epoch,train_loss,val_loss,lr,seconds,positions_per_second\n");
    }
    if (!loaded) t.next_log = o->log_every;
    fprintf(stderr,
            "train %s: %llu records in %d shards, %d validation positions, %d features -> "
            "2x%d, batch %d, %d threads%s\n",
            t.ds.var->name, (unsigned long long)t.ds.records, t.ds.nshards, t.nval, t.l.nfeat,
            o->hidden, o->batch, omp_get_max_threads(), loaded ? ", resumed" : "");
    if (o->obuckets > 1 || o->l1 || o->kbuckets)
        fprintf(stderr,
                "train %s: version 2: %d output buckets (material 0..%d), stack %d,%d, %d king "
                "buckets%s\n",
                t.ds.var->name, o->obuckets, t.mat_max, o->l1, o->l2, o->kbuckets,
                o->factorise ? " factorised" : "");
    uint64_t train_records = t.ds.records > (uint64_t)t.nval ? t.ds.records - (uint64_t)t.nval : 1;
    double passes = (double)o->positions / (double)train_records;
    if (passes > TRAIN_PASSES_WARN)
        fprintf(stderr,
                "train %s: warning: %llu positions are about %.0f passes over the %llu training "
                "records; the net will learn them by heart (over-fitting): give more data or "
                "fewer --positions\n",
                t.ds.var->name, (unsigned long long)o->positions, passes,
                (unsigned long long)train_records);
    double start = train_now(), last_progress = start, last_ckpt = start;
    uint64_t start_consumed = t.consumed, log_from = t.consumed;
    double log_loss = 0;
    loader_started = loader_start(&ld, &ts, o->batch, t.ds.rsize);
    if (!loader_started) {
        snprintf(err->msg, sizeof err->msg, "cannot start the data loader thread");
        goto done;
    }
    uint8_t *own_batch = t.batch;
    for (uint64_t k = 0; t.consumed < o->positions; k++) {
        if (!(t.batch = (uint8_t *)loader_get(&ld, k, err))) {
            t.batch = own_batch;
            goto done;
        }
        double lr = train_lr(o, t.consumed);
        log_loss += train_batch(&t, out_to_sig);
        loader_release(&ld, k);
        t.batch = own_batch;
        train_adam(&t.model, t.slots, TRAIN_SLOTS, lr);
        t.consumed += (uint64_t)o->batch;
        double now = train_now(), secs = now - start;
        double rate = (double)(t.consumed - start_consumed) / (secs > 0 ? secs : 1e-9);
        bool last = t.consumed >= o->positions;
        if (t.consumed >= t.next_log || last) {
            double val = train_val_loss(&t, out_to_sig);
            double tl = log_loss / (double)(t.consumed - log_from);
            if (log) {
                fprintf(log, "%llu,%d,%.6f,%.6f,%.3g,%.1f,%.0f\n", (unsigned long long)t.consumed,
                        ts.epoch, tl, val, lr, t.seconds + secs, rate);
                fflush(log);
            }
            log_from = t.consumed;
            log_loss = 0;
            if (!o->keep_last && t.nval && val < t.best_val) {
                t.best_val = val;
                t.best_at = t.consumed;
                if (!train_write_net(&t, err)) goto done;
            }
            while (t.next_log <= t.consumed) t.next_log += o->log_every;
            if (o->progress_secs > 0 || last)
                fprintf(stderr, "train %s: %llu positions, loss %.5f, validation %.5f\n",
                        t.ds.var->name, (unsigned long long)t.consumed, tl, val);
        }
        if (o->progress_secs > 0 && (now - last_progress >= o->progress_secs || last)) {
            char eta[32];
            train_hms(eta, sizeof eta, (double)(o->positions - t.consumed) / rate);
            fprintf(stderr,
                    "train %s: %llu/%llu positions (%.1f%%), epoch %d, %.0f positions/s, "
                    "lr %.3g, ETA %s\n",
                    t.ds.var->name, (unsigned long long)t.consumed,
                    (unsigned long long)o->positions, 100.0 * (double)t.consumed / o->positions,
                    ts.epoch, rate, lr, eta);
            last_progress = now;
        }
        bool stop = o->stop_after && t.consumed >= o->stop_after && !last;
        if (o->checkpoint && (now - last_ckpt >= o->checkpoint_secs || last || stop)) {
            if (!train_save_checkpoint(&t, t.seconds + secs, err)) goto done;
            last_ckpt = now;
        }
        if (stop) {
            fprintf(stderr, "train %s: stopped after %llu positions (--stop-after)\n",
                    t.ds.var->name, (unsigned long long)t.consumed);
            rc = 0;
            goto done;
        }
    }
    bool best = !o->keep_last && t.nval;
    if (!best && !train_write_net(&t, err)) goto done;
    double secs = train_now() - start;
    fprintf(stderr, "train %s: %llu positions in %.1f s this run, %.0f positions/s\n",
            t.ds.var->name, (unsigned long long)(t.consumed - start_consumed), secs,
            (double)(t.consumed - start_consumed) / (secs > 0 ? secs : 1e-9));
    if (best)
        fprintf(stderr,
                "train %s: %s holds the network of the lowest validation loss, %.6f "
                "after %llu positions\n",
                t.ds.var->name, o->out, t.best_val, (unsigned long long)t.best_at);
    else fprintf(stderr, "train %s: wrote %s, the network at the end\n", t.ds.var->name, o->out);
    rc = 0;
done:
    if (log) fclose(log);
    if (loader_started || ld.buf[0]) loader_stop(&ld, loader_started);
    stream_free(&ts);
    train_state_free(&t);
    return rc;
}
