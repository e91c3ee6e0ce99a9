/* evaluator.c - the evaluator's set-up, a network's lazily updated accumulators, and the
 * choice of evaluation by name. */
#include "evaluator.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#ifndef CHESSVAR_NETS_DIR
#define CHESSVAR_NETS_DIR "selfplay/nets"
#endif

bool evaluator_init(Evaluator *e, const Variant *v, const Network *net) {
    memset(e, 0, sizeof *e);
    eval_init(&e->classical, v);
    e->net = net;
    e->psq_carried = !net && e->classical.tapered;
    if (net) {
        e->acc = aligned_alloc(_Alignof(NnueAcc), EVALUATOR_PLIES * sizeof *e->acc);
        if (!e->acc) return false;
    }
    return true;
}

void evaluator_free(Evaluator *e) {
    free(e->acc);
    e->acc = NULL;
}

void evaluator_net_refresh(Evaluator *e, const Position *pos, int ply) {
    nnue_refresh(e->net, pos, &e->acc[ply]);
    e->acc_key[ply] = pos->key;
    e->acc_ok[ply] = true;
}

/* Brings the accumulator of ply up to date from the deepest current one at or above it,
 * applying the DirtyPiece of each move in between (the undo records of the line, on pos's
 * stack), or from scratch when none is current; then the network's output. */
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
    if (!e->acc_ok[j] || ply - j > pos->ply) {
        evaluator_net_refresh(e, pos, ply);
    } else {
        for (int k = j + 1; k <= ply; k++) {
            const Undo *u = &pos->stack[pos->ply - (ply - k) - 1];
            nnue_update(e->net, &e->acc[k - 1], &e->acc[k], &u->dirty);
            e->acc_ok[k] = true;
        }
    }
    if (e->verify) {
        NnueAcc *fresh = aligned_alloc(_Alignof(NnueAcc), sizeof *fresh);
        if (fresh) {
            nnue_refresh(e->net, pos, fresh);
            int h = e->net->d.hidden;
            bool same = true;
            for (int p = 0; p < 2; p++)
                same &= memcmp(fresh->v[p], e->acc[ply].v[p], (size_t)h * sizeof(int16_t)) == 0;
            e->verified++;
            e->mismatches += !same;
            free(fresh);
        }
    }
    return nnue_evaluate(e->net, &e->acc[ply], pos);
}

/* The variants whose shipped network (CHESSVAR_NETS_DIR, the repository's selfplay/nets/)
 * is their default evaluation, as {variant, file}: those whose net beat the classical
 * evaluation beyond its 95% interval at equal time (selfplay/nets/<variant>.json). The
 * others play with the classical evaluation unless --eval (UCI: EvalFile) names a file;
 * --eval classical keeps the classical one everywhere. */
static const char *const default_networks[][2] = {
    {"chess", CHESSVAR_NETS_DIR "/chess.nnue"},           /* +190 [+155, +229], 20 ms */
    {"superchess", CHESSVAR_NETS_DIR "/superchess.nnue"}, /* +170 [+133, +210], 20 ms */
    {"supremo", CHESSVAR_NETS_DIR "/supremo.nnue"},       /* +282 [+240, +332], 20 ms */
    {"switching", CHESSVAR_NETS_DIR "/switching.nnue"},   /* +198 [+161, +239], 20 ms */
    {NULL, NULL}};

const char *evaluator_default_file(const Variant *v) {
    for (int i = 0; default_networks[i][0]; i++)
        if (strcmp(default_networks[i][0], v->name) == 0) return default_networks[i][1];
    return NULL;
}

bool evaluator_load(const char *spec, const Variant *v, Network **net, CvError *err) {
    *net = NULL;
    if (!spec) spec = evaluator_default_file(v);
    if (!spec || strcmp(spec, "classical") == 0) return true;
    *net = nnue_load(spec, v, err);
    return *net != NULL;
}

void evaluator_file_name(const char *path, char *buf, size_t n) {
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    XXH3_state_t *st = XXH3_createState();
    XXH3_64bits_reset(st);
    FILE *f = fopen(path, "rb");
    unsigned char chunk[65536];
    size_t len;
    while (f && (len = fread(chunk, 1, sizeof chunk, f)) > 0) XXH3_64bits_update(st, chunk, len);
    if (f) fclose(f);
    unsigned long long h = (unsigned long long)XXH3_64bits_digest(st);
    XXH3_freeState(st);
    int k = snprintf(buf, n, "%.48s#%016llx", base, h);
    for (int i = 0; i < k && i < (int)n - 1; i++) /* it goes into JSON and PGN as is */
        if (buf[i] == '"' || buf[i] == '\\' || (unsigned char)buf[i] < 0x20 || buf[i] == ' ')
            buf[i] = '_';
}
