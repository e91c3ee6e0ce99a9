/* lines10.c - the line-occupancy tables of the 10x10 board (see lines10.h). */
#include <stdlib.h>

#include "lines10.h"

Line10 line10[LINES10];
uint8_t line10_id[4][100];
uint8_t line10_pos[4][100];
uint64_t line10_table[10][1024];
uint16_t (*line10_fold[16])[1024];
Bitboard128 line10_spread[4][1024];

/* Registers the line of `kind` from `start`, `len` squares apart by `step`. */
static void line_add(int *n, int kind, int start, int step, int len) {
    Line10 *l = &line10[*n];
    l->start = (uint8_t)start;
    l->step = (uint8_t)step;
    l->len = (uint8_t)len;
    l->kind = (uint8_t)kind;
    for (int i = 0; i < len; i++) {
        int sq = start + i * step;
        if (sq < 64) {
            l->mask_lo |= 1ULL << sq;
            l->nlo++;
        } else {
            l->mask_hi |= 1ULL << (sq - 64);
        }
        line10_id[kind][sq] = (uint8_t)*n;
        line10_pos[kind][sq] = (uint8_t)i;
    }
    (*n)++;
}

/* One direction of a table entry: walk from pos by `dir` (+1 or -1) over occupancy occ. */
static uint64_t line_walk(int pos, unsigned occ, int dir) {
    uint64_t slide = 0, first = 0, hop = 0, second = 0;
    bool screen = false;
    for (int q = pos + dir; q >= 0 && q < 10; q += dir) {
        uint64_t b = 1ULL << q;
        if (!screen) {
            if (occ & b) {
                first |= b;
                screen = true;
            } else {
                slide |= b;
            }
        } else if (occ & b) {
            second |= b;
            break;
        } else {
            hop |= b;
        }
    }
    return slide | first << 10 | hop << 20 | second << 30;
}

uint16_t (*line10_fold_build(unsigned fields))[1024] {
    fields &= LINE10_FIELDS;
    if (line10_fold[fields]) return line10_fold[fields];
    uint16_t(*f)[1024] = malloc(10 * sizeof *f);
    if (!f) return NULL;
    for (int pos = 0; pos < 10; pos++)
        for (int occ = 0; occ < 1024; occ++) {
            uint64_t x = line10_table[pos][occ], m = 0;
            for (int i = 0; i < 4; i++)
                if (fields & (1u << i)) m |= x >> (10 * i);
            f[pos][occ] = (uint16_t)(m & 0x3FF);
        }
    line10_fold[fields] = f;
    return f;
}

void lines10_init(void) {
    int n = 0;
    for (int r = 0; r < 10; r++) line_add(&n, 0, 10 * r, 1, 10);
    for (int f = 0; f < 10; f++) line_add(&n, 1, f, 10, 10);
    for (int f = 0; f < 10; f++) line_add(&n, 2, f, 11, 10 - f);
    for (int r = 1; r < 10; r++) line_add(&n, 2, 10 * r, 11, 10 - r);
    for (int f = 0; f < 10; f++) line_add(&n, 3, f, 9, f + 1);
    for (int r = 1; r < 10; r++) line_add(&n, 3, 10 * r + 9, 9, 10 - r);
    for (int pos = 0; pos < 10; pos++) {
        for (unsigned occ = 0; occ < 1024; occ++)
            line10_table[pos][occ] = line_walk(pos, occ, 1) | line_walk(pos, occ, -1);
    }
    static const int steps[4] = {1, 10, 11, 9};
    for (int k = 0; k < 4; k++)
        for (unsigned x = 0; x < 1024; x++)
            for (int i = 0; i < 10; i++)
                if (x & (1u << i)) line10_spread[k][x] |= (Bitboard128)1 << (i * steps[k]);
}
