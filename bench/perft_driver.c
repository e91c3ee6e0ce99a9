#define _DEFAULT_SOURCE /* MAP_ANONYMOUS and madvise under strict C11 */
/* perft_driver.c - perft at scale: the shared lockless hash table, the split of the tree
 * into work units, and the threaded count over them. */
#include "harness.h"

#include <omp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <stdlib.h>
#include <string.h>

/* One table slot: three words written with relaxed atomics and verified by XOR, so a
 * torn write from another thread reads as a miss (the scheme of Hyatt and Mann).
 *
 *   w0 = key ^ w1 ^ w2
 *   w1 = nodes << 8 | depth      (nodes < 2^56)
 *   w2 = fingerprint
 */
typedef struct TTSlot {
    uint64_t w0, w1, w2;
} TTSlot;

/* Two slots a bucket: [0] keeps the deeper entry, [1] always takes the newest. A bucket
 * is one 64-byte cache line, so a probe costs one miss. */
typedef struct TTBucket {
    TTSlot slot[2];
    uint64_t pad[2];
} TTBucket;

struct PerftTT {
    TTBucket *buckets;  /* 64-byte aligned inside `block` */
    void *block;        /* an anonymous mapping (faulted in behind the count), or calloc'd */
    size_t bytes;       /* size of the mapping, 0 if calloc'd */
    size_t table_bytes; /* size of the table inside it */
    uint64_t mask;
    pthread_t filler; /* faults the table in while the count runs */
    bool filling;
    atomic_bool stop;
};

/* Faults the mapping in ahead of the counting threads, in order and in chunks, so the
 * count can start at once; a chunk the counters touched first is skipped for free. */
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23 /* Linux 5.14; older kernels say EINVAL and we stop */
#endif
#define TT_FILL_CHUNK ((size_t)32 << 20)
static void *tt_fill(void *arg) {
    PerftTT *tt = arg;
    char *base = (char *)tt->buckets;
    for (size_t off = 0; off < tt->table_bytes && !atomic_load(&tt->stop); off += TT_FILL_CHUNK) {
        size_t len = tt->table_bytes - off < TT_FILL_CHUNK ? tt->table_bytes - off : TT_FILL_CHUNK;
        if (madvise(base + off, len, MADV_POPULATE_WRITE) != 0) break;
    }
    return NULL;
}

PerftTT *perft_tt_new(size_t mb) {
    if (!mb) return NULL;
    size_t n = 1;
    while ((n << 1) * sizeof(TTBucket) <= mb * 1024 * 1024) n <<= 1;
    PerftTT *tt = malloc(sizeof *tt);
    if (!tt) return NULL;
    /* The table is usable at once: it is mapped without faulting it in, and a helper
     * thread faults it in, in order, while the count runs (the counters fault in what
     * they reach first). No MADV_HUGEPAGE: on the VM measured, huge-page faults of fresh
     * memory cost more system time than they saved (README, results/perft_deep.json). */
    tt->table_bytes = n * sizeof(TTBucket);
    tt->bytes = tt->table_bytes;
    tt->filling = false;
    atomic_init(&tt->stop, false);
    tt->block = mmap(NULL, tt->bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (tt->block == MAP_FAILED) {
        tt->bytes = 0;
        tt->block = calloc(n + 1, sizeof(TTBucket));
        tt->buckets = (TTBucket *)(((uintptr_t)tt->block + 63) & ~(uintptr_t)63);
    } else {
        tt->buckets = tt->block;
        tt->filling = pthread_create(&tt->filler, NULL, tt_fill, tt) == 0;
    }
    if (!tt->block) {
        free(tt);
        return NULL;
    }
    tt->mask = n - 1;
    return tt;
}

void perft_tt_free(PerftTT *tt) {
    if (!tt) return;
    if (tt->filling) {
        atomic_store(&tt->stop, true);
        pthread_join(tt->filler, NULL);
    }
    if (tt->bytes) munmap(tt->block, tt->bytes);
    else free(tt->block);
    free(tt);
}

/* Looks (key, depth) up; fills r on a verified hit. */
static bool tt_probe(PerftTT *tt, uint64_t key, int depth, PerftResult *r) {
    TTBucket *b = &tt->buckets[key & tt->mask];
    for (int i = 0; i < 2; i++) {
        TTSlot *s = &b->slot[i];
        uint64_t w1 = __atomic_load_n(&s->w1, __ATOMIC_RELAXED);
        uint64_t w2 = __atomic_load_n(&s->w2, __ATOMIC_RELAXED);
        uint64_t w0 = __atomic_load_n(&s->w0, __ATOMIC_RELAXED);
        if ((w0 ^ w1 ^ w2) == key && (int)(w1 & 255) == depth && w1) {
            r->nodes = w1 >> 8;
            r->fingerprint = w2;
            return true;
        }
    }
    return false;
}

/* Stores (key, depth) -> r: the deeper-keeping slot if not shallower, else the other. */
static void tt_store(PerftTT *tt, uint64_t key, int depth, const PerftResult *r) {
    TTBucket *b = &tt->buckets[key & tt->mask];
    uint64_t old = __atomic_load_n(&b->slot[0].w1, __ATOMIC_RELAXED);
    TTSlot *s = (int)(old & 255) <= depth ? &b->slot[0] : &b->slot[1];
    uint64_t w1 = r->nodes << 8 | (uint64_t)depth, w2 = r->fingerprint;
    __atomic_store_n(&s->w1, w1, __ATOMIC_RELAXED);
    __atomic_store_n(&s->w2, w2, __ATOMIC_RELAXED);
    __atomic_store_n(&s->w0, key ^ w1 ^ w2, __ATOMIC_RELAXED);
}

/* perft with optional hash and fingerprint. */
static PerftResult perft_full(Position *p, int depth, PerftTT *tt, bool fp) {
    PerftResult r = {0, 0};
    if (depth == 0) {
        r.nodes = 1;
        r.fingerprint = fp ? perft_leaf_hash(p->key) : 0;
        return r;
    }
    const VariantOps *ops = p->var->ops;
    if (depth == 1 && !fp) {
        r.nodes = ops->count_legal(p);
        return r;
    }
    if (tt && depth >= 2 && tt_probe(tt, p->key, depth, &r)) return r;
    Move list[MAX_MOVES];
    int n = ops->gen_legal(p, list);
    for (int i = 0; i < n; i++) {
        ops->make(p, list[i]);
        if (depth == 1) {
            r.fingerprint += perft_leaf_hash(p->key);
            r.nodes++;
        } else {
            PerftResult c = perft_full(p, depth - 1, tt, fp);
            r.nodes += c.nodes;
            r.fingerprint += c.fingerprint;
        }
        ops->unmake(p);
    }
    if (tt && depth >= 2) tt_store(tt, p->key, depth, &r);
    return r;
}

int perft_split(const Position *root, int depth, int min_units, PerftUnit *units, int max) {
    if (max < 1) return -1;
    Position *p = malloc(sizeof *p);
    PerftUnit *next = malloc((size_t)max * sizeof *next);
    int n = 1;
    units[0].len = 0;
    while (n < min_units && depth - units[0].len >= 3 && units[0].len < PERFT_UNIT_MAX_PLY) {
        int m = 0;
        bool overflow = false;
        for (int i = 0; i < n && !overflow; i++) {
            pos_copy(p, root);
            for (int k = 0; k < units[i].len; k++) pos_make(p, units[i].path[k]);
            Move list[MAX_MOVES];
            int c = pos_legal_moves(p, list);
            if (m + c > max) {
                overflow = true;
                break;
            }
            for (int j = 0; j < c; j++) {
                next[m] = units[i];
                next[m].path[next[m].len++] = list[j];
                m++;
            }
        }
        if (overflow) break;
        memcpy(units, next, (size_t)m * sizeof *units);
        n = m;
        if (!n) break;
    }
    free(next);
    free(p);
    return n;
}

PerftResult perft_unit(const Position *root, const PerftUnit *u, int depth,
                       const PerftConfig *cfg) {
    Position *p = malloc(sizeof *p);
    pos_copy(p, root);
    for (int k = 0; k < u->len; k++) pos_make(p, u->path[k]);
    PerftResult r;
    if (!cfg->tt && !cfg->fingerprint) {
        r.nodes = perft(p, depth - u->len);
        r.fingerprint = 0;
    } else {
        r = perft_full(p, depth - u->len, cfg->tt, cfg->fingerprint);
    }
    free(p);
    return r;
}

PerftResult perft_run_units(const Position *root, int depth, const PerftUnit *units, int n,
                            PerftResult *results, const bool *done, const PerftConfig *cfg) {
    int threads = cfg->threads > 0 ? cfg->threads : omp_get_num_procs();
    int *todo = malloc((size_t)(n > 0 ? n : 1) * sizeof *todo);
    int m = 0, ndone = 0;
    uint64_t resumed_nodes = 0, resumed_fp = 0;
    for (int i = 0; i < n; i++) {
        if (done && done[i]) {
            ndone++;
            resumed_nodes += results[i].nodes;
            resumed_fp += results[i].fingerprint;
        } else {
            todo[m++] = i;
        }
    }
    uint64_t nodes = 0, fp = 0, done_nodes = resumed_nodes;
    bool serialised = cfg->progress || cfg->unit_done;
#pragma omp parallel for num_threads(threads) schedule(dynamic, 1) reduction(+ : nodes, fp)
    for (int k = 0; k < m; k++) {
        int i = todo[k];
        PerftResult r = perft_unit(root, &units[i], depth, cfg);
        nodes += r.nodes;
        fp += r.fingerprint;
        if (results) results[i] = r;
        if (serialised) {
#pragma omp critical(perft_progress)
            {
                ndone++;
                done_nodes += r.nodes;
                if (cfg->unit_done) cfg->unit_done(cfg->unit_done_ctx, i, r);
                if (cfg->progress) cfg->progress(cfg->progress_ctx, ndone, n, done_nodes);
            }
        }
    }
    free(todo);
    PerftResult res = {nodes + resumed_nodes, fp + resumed_fp};
    return res;
}

PerftResult perft_run(const Position *root, int depth, const PerftConfig *cfg) {
    int threads = cfg->threads > 0 ? cfg->threads : omp_get_num_procs();
    int min_units = cfg->min_units > 0 ? cfg->min_units : 16 * threads;
    enum { MAX_UNITS = 1 << 16 };
    PerftUnit *units = malloc(MAX_UNITS * sizeof *units);
    int n = depth >= 1 ? perft_split(root, depth, threads > 1 || cfg->progress ? min_units : 1,
                                     units, MAX_UNITS)
                       : 1;
    if (depth < 1) units[0].len = 0;
    PerftResult res = perft_run_units(root, depth, units, n, NULL, NULL, cfg);
    free(units);
    return res;
}
