/* perft.c - serial perft: bulk counting at the last ply, the reference form that uses the
 * slow generator at every node (with the leaf fingerprint if asked), and one leaf's share
 * of the perft fingerprint. (Threads,
 * the hash table and the split into work units belong to the perft harness library.) */
#include "position.h"

#include <xxhash.h>

/* Leaves of the legal-move tree of the given depth, from gen_legal, make and unmake with
 * bulk counting at the last ply (the count every specialised perft must agree with). */
uint64_t perft_generic(Position *p, int depth) {
    if (depth <= 0) return 1;
    const VariantOps *ops = p->var->ops;
    if (depth == 1) return ops->count_legal(p);
    Move list[MAX_MOVES];
    int n = ops->gen_legal(p, list);
    uint64_t total = 0;
    for (int i = 0; i < n; i++) {
        ops->make(p, list[i]);
        total += perft_generic(p, depth - 1);
        ops->unmake(p);
    }
    return total;
}

/* Leaves of the legal-move tree of the given depth: the variant's specialised count if it
 * has one, else the generic one. */
uint64_t perft(Position *p, int depth) {
    const VariantOps *ops = p->var->ops;
    return ops->perft ? ops->perft(p, depth) : perft_generic(p, depth);
}

/* The same count from the reference generator, node by node. */
uint64_t perft_reference(Position *p, int depth) {
    if (depth <= 0) return 1;
    Move list[MAX_MOVES];
    int n = p->var->ops->gen_reference(p, list);
    if (depth == 1) return (uint64_t)n;
    uint64_t total = 0;
    for (int i = 0; i < n; i++) {
        pos_make(p, list[i]);
        total += perft_reference(p, depth - 1);
        pos_unmake(p);
    }
    return total;
}

/* One leaf's share of a perft fingerprint: XXH3-64 (seed 0) of its key's 8 little-endian bytes. */
uint64_t perft_leaf_hash(uint64_t key) {
    uint8_t b[8];
    for (int i = 0; i < 8; i++) b[i] = (uint8_t)(key >> (8 * i));
    return XXH3_64bits(b, 8);
}

/* The reference count with the fingerprint of the leaves: at depth 1 the leaves are
 * visited only when their fingerprint is wanted. */
PerftResult perft_reference_fp(Position *p, int depth, bool fingerprint) {
    PerftResult r = {0, 0};
    if (!fingerprint) {
        r.nodes = perft_reference(p, depth);
        return r;
    }
    if (depth <= 0) {
        r.nodes = 1;
        r.fingerprint = perft_leaf_hash(p->key);
        return r;
    }
    Move list[MAX_MOVES];
    int n = p->var->ops->gen_reference(p, list);
    for (int i = 0; i < n; i++) {
        pos_make(p, list[i]);
        PerftResult c = perft_reference_fp(p, depth - 1, true);
        pos_unmake(p);
        r.nodes += c.nodes;
        r.fingerprint += c.fingerprint;
    }
    return r;
}
