/* evaluator.c - the evaluator's set-up, a network's lazily updated accumulators, and the
 * choice of evaluation by name. */
#include "evaluator.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "../profile.h"
#include "nets_builtin.h"

bool evaluator_init(Evaluator *e, const Variant *v, const Network *net) {
    memset(e, 0, sizeof *e);
    eval_init(&e->classical, v);
    e->net = net;
    e->psq_carried = !net && e->classical.tapered;
    if (net) {
        e->acc = aligned_alloc(_Alignof(NnueAcc), EVALUATOR_PLIES * sizeof *e->acc);
        if (!e->acc) return false;
        e->cache = nnue_cache_new(net);
        if (net->l.kb_n && !net->l.hold_k && !e->cache) return false;
    }
    return true;
}

void evaluator_free(Evaluator *e) {
    free(e->acc);
    free(e->cache);
    e->acc = NULL;
    e->cache = NULL;
}

void evaluator_net_refresh(Evaluator *e, const Position *pos, int ply) {
    nnue_refresh_cached(e->net, pos, &e->acc[ply], e->cache);
    e->acc_key[ply] = pos->key;
    e->acc_ok[ply] = true;
}

/* Brings the accumulator of ply up to date from the deepest current one at or above it,
 * applying the DirtyPiece pushed for each ply in between, or from scratch when none is
 * current; then the network's output. */
int evaluator_net_evaluate(Evaluator *e, const Position *pos, int ply) {
    if (ply >= EVALUATOR_PLIES) { /* beyond the line's state: a one-off accumulator */
        NnueAcc *tmp = aligned_alloc(_Alignof(NnueAcc), sizeof *tmp);
        if (!tmp) return 0;
        nnue_refresh(e->net, pos, tmp);
        int v = nnue_evaluate(e->net, tmp, pos);
        free(tmp);
        return v;
    }
    int j = ply;
    while (j > 0 && !e->acc_ok[j]) j--;
    if (!e->acc_ok[j]) {
        evaluator_net_refresh(e, pos, ply);
    } else {
        for (int k = j + 1; k <= ply; k++) {
            int stale = nnue_update(e->net, &e->acc[k - 1], &e->acc[k], e->dirty[k]);
            if (stale) {
                /* a king changed bucket or mirror: at ply its side is refreshed from the
                 * position; before ply (no position at hand) plies k..ply-1 stay not
                 * current and ply is refreshed whole */
                e->king_refreshes++;
                if (k < ply) {
                    evaluator_net_refresh(e, pos, ply);
                    break;
                }
                for (int p = 0; p < 2; p++)
                    if (stale >> p & 1)
                        nnue_refresh_side_cached(e->net, pos, &e->acc[k], p, e->cache);
            }
            e->acc_ok[k] = true;
        }
    }
    if (e->verify) {
        NnueAcc *fresh = aligned_alloc(_Alignof(NnueAcc), sizeof *fresh);
        if (fresh) {
            nnue_refresh(e->net, pos, fresh);
            int h = e->net->d.hidden;
            bool same = true;
            const NnueAcc *a = &e->acc[ply];
            for (int p = 0; p < 2; p++)
                same &= memcmp(fresh->v[p], a->v[p], (size_t)h * sizeof(int16_t)) == 0;
            if (e->net->d.obuckets > 1) same &= fresh->material == a->material;
            if (e->net->d.kbuckets)
                same &= fresh->kbase[0] == a->kbase[0] && fresh->kbase[1] == a->kbase[1] &&
                        fresh->kmir[0] == a->kmir[0] && fresh->kmir[1] == a->kmir[1];
            e->verified++;
            e->mismatches += !same;
            free(fresh);
        }
    }
    return nnue_evaluate(e->net, &e->acc[ply], pos);
}

const char *evaluator_default_net(const Variant *v) { return profile_of(v)->net; }

bool evaluator_load(const char *spec, const Variant *v, Network **net, CvError *err) {
    *net = NULL;
    if (!spec) {
        const char *name = evaluator_default_net(v);
        const uint8_t *buf;
        size_t len;
        if (!name) return true;
        if (!nets_builtin(name, &buf, &len)) {
            snprintf(err->msg, sizeof err->msg, "network %s: not built into this program", name);
            return false;
        }
        *net = nnue_parse(buf, len, name, v, err);
        return *net != NULL;
    }
    if (strcmp(spec, "classical") == 0) return true;
    *net = nnue_load(spec, v, err);
    return *net != NULL;
}

/* The XXH3-64 of a network's bytes, from the file at path or the built-in one named so. */
static unsigned long long evaluator_net_hash(const char *path, bool builtin) {
    const uint8_t *buf;
    size_t len;
    if (builtin)
        return nets_builtin(path, &buf, &len) ? (unsigned long long)XXH3_64bits(buf, len) : 0;
    XXH3_state_t *st = XXH3_createState();
    XXH3_64bits_reset(st);
    FILE *f = fopen(path, "rb");
    unsigned char chunk[65536];
    while (f && (len = fread(chunk, 1, sizeof chunk, f)) > 0) XXH3_64bits_update(st, chunk, len);
    if (f) fclose(f);
    unsigned long long h = (unsigned long long)XXH3_64bits_digest(st);
    XXH3_freeState(st);
    return h;
}

void evaluator_name(const char *spec, const Variant *v, char *buf, size_t n) {
    bool builtin = !spec;
    const char *path = builtin ? evaluator_default_net(v) : spec;
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    int k = snprintf(buf, n, "%.48s#%016llx", base, evaluator_net_hash(path, builtin));
    for (int i = 0; i < k && i < (int)n - 1; i++) /* it goes into JSON and PGN as is */
        if (buf[i] == '"' || buf[i] == '\\' || (unsigned char)buf[i] < 0x20 || buf[i] == ' ')
            buf[i] = '_';
}
