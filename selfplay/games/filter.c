/* filter.c - marks the positions of a game that the position files leave out, and the
 * bounded table of Zobrist keys that drops positions a run has written already. */
#include "filter.h"

#include <stdio.h>
#include <stdlib.h>

#include "record.h"

/* Key 0 marks an empty slot; a position whose key is 0 is stored as this one. */
#define KEYTABLE_ZERO 0x9e3779b97f4a7c15ULL

bool keytable_init(KeyTable *t, int bits) {
    uint64_t buckets = (uint64_t)1 << (bits - 2);
    t->slot = calloc(buckets * KEYTABLE_WAYS, sizeof *t->slot);
    t->mask = buckets - 1;
    return t->slot != NULL;
}

void keytable_free(KeyTable *t) {
    free(t->slot);
    t->slot = NULL;
}

/* The bucket is chosen by the key's low bits, the way to replace by its top two bits:
 * both fixed by the key, so the same keys added in the same order give the same table. */
bool keytable_add(KeyTable *t, uint64_t key) {
    if (!key) key = KEYTABLE_ZERO;
    uint64_t *b = t->slot + (key & t->mask) * KEYTABLE_WAYS;
    for (int w = 0; w < KEYTABLE_WAYS; w++) {
        if (b[w] == key) return false;
        if (!b[w]) {
            b[w] = key;
            return true;
        }
    }
    b[key >> 62] = key;
    return true;
}

/* A position is written from min_ply on, up to (not including) the first one whose
 * search score is beyond the limit: after that the game is decided, and a trainer gains
 * little from more of it, while its result still labels the positions before. Then the
 * key table drops what the run has written already. */
uint32_t filter_game(Game *g, const FilterSpec *f, KeyTable *t, const Variant *v, Position *pos,
                     uint64_t *keys) {
    uint32_t written = 0;
    bool over = false;
    CvError err = {{0}};
    /* the start was read when the game was played, so it reads again */
    bool replay = t && pos_from_fen(pos, v, g->start_fen, &err);
    for (int k = 0; k < g->nply; k++) {
        GamePly *p = &g->ply[k];
        int a = p->score < 0 ? -p->score : p->score;
        if (f->eval_limit > 0 && a > f->eval_limit) over = true;
        p->unwritten = (uint8_t)(over || k < f->min_ply || (f->max_ply > 0 && k >= f->max_ply) ||
                                 (f->skip_draws && g->white_score == 500));
        if (replay) {
            if (!p->unwritten) {
                if (keytable_add(t, pos->key)) *keys++ = pos->key;
                else p->unwritten = 1;
            }
            pos_make(pos, p->played);
        }
        written += !p->unwritten;
    }
    return written;
}

bool filter_write_keys(const char *path, const uint64_t *keys, size_t n, CvError *err) {
    uint8_t *buf = malloc(n * 8 + 1);
    if (!buf) {
        snprintf(err->msg, sizeof err->msg, "out of memory");
        return false;
    }
    for (size_t i = 0; i < n; i++)
        for (int b = 0; b < 8; b++) buf[8 * i + (size_t)b] = (uint8_t)(keys[i] >> (8 * b));
    bool ok = file_write_atomic(path, (const char *)buf, n * 8, err);
    free(buf);
    return ok;
}

bool filter_load_keys(const char *path, KeyTable *t, uint64_t n) {
    FILE *f = fopen(path, "rb");
    if (!f) return false;
    uint64_t *keys = malloc(n * sizeof *keys + 1);
    uint8_t b[8];
    uint64_t got = 0;
    while (keys && got <= n && fread(b, 1, 8, f) == 8) {
        uint64_t k = 0;
        for (int i = 7; i >= 0; i--) k = k << 8 | b[i];
        if (got < n) keys[got] = k;
        got++;
    }
    bool ok = keys && got == n && fgetc(f) == EOF;
    fclose(f);
    for (uint64_t i = 0; ok && i < n; i++) keytable_add(t, keys[i]);
    free(keys);
    return ok;
}
