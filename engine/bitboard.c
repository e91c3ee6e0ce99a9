/* bitboard.c - attack tables for 8x8 and 10x10, built once by bitboard_init(). */
#include "bitboard.h"

#include <stdlib.h>
#include <string.h>

Magic rook_magic[64];
Magic bishop_magic[64];
Bitboard knight_att8[64];
Bitboard king_att8[64];
Bitboard pawn_att8[2][64];
Bitboard between8[64][64];
Bitboard line8[64][64];

static Bitboard rook_table[102400];
static Bitboard bishop_table[5248];

const int dir_df[8] = {1, -1, 0, 0, 1, -1, 1, -1};
const int dir_dr[8] = {0, 0, 1, -1, 1, 1, -1, -1};
Bitboard128 ray10[8][100];
Bitboard128 knight_att10[100];
Bitboard128 king_att10[100];
Bitboard128 board10_mask;

/* Walks the four rays of a rook or bishop on 8x8, stopping at the first blocker. */
Bitboard slide_att8_slow(int s, Bitboard occ, bool diagonal) {
    Bitboard att = 0;
    for (int d = diagonal ? 4 : 0; d < (diagonal ? 8 : 4); d++) {
        int f = s % 8 + dir_df[d], r = s / 8 + dir_dr[d];
        while (f >= 0 && f < 8 && r >= 0 && r < 8) {
            att |= (Bitboard)1 << (r * 8 + f);
            if (occ & ((Bitboard)1 << (r * 8 + f))) break;
            f += dir_df[d];
            r += dir_dr[d];
        }
    }
    return att;
}

/* Walks the four rays of a rook or bishop on 10x10, stopping at the first blocker. */
Bitboard128 slide_att10_slow(int s, Bitboard128 occ, bool diagonal) {
    Bitboard128 att = 0;
    for (int d = diagonal ? 4 : 0; d < (diagonal ? 8 : 4); d++) {
        int f = s % 10 + dir_df[d], r = s / 10 + dir_dr[d];
        while (f >= 0 && f < 10 && r >= 0 && r < 10) {
            att |= (Bitboard128)1 << (r * 10 + f);
            if (occ & ((Bitboard128)1 << (r * 10 + f))) break;
            f += dir_df[d];
            r += dir_dr[d];
        }
    }
    return att;
}

/* Deterministic 64-bit generator for the magic search (xorshift64*). */
static uint64_t magic_rand(uint64_t *s) {
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 2685821657736338717ULL;
}

/* Finds magic multipliers for one slider type; the search is seeded, so the tables are
 * identical on every run. */
static void magics_init(Magic *magics, Bitboard *table, bool diagonal) {
    static Bitboard occ[4096], ref[4096];
    static int epoch[4096];
    int cur_epoch = 0;
    uint64_t seed = diagonal ? 0x9E3779B97F4A7C15ULL : 0xD1B54A32D192ED03ULL;
    Bitboard *next = table;
    memset(epoch, 0, sizeof epoch);
    for (int s = 0; s < 64; s++) {
        Magic *m = &magics[s];
        Bitboard edges = ((0xFFULL | 0xFF00000000000000ULL) & ~(0xFFULL << (s / 8 * 8))) |
                         ((0x0101010101010101ULL | 0x8080808080808080ULL) &
                          ~(0x0101010101010101ULL << (s % 8)));
        m->mask = slide_att8_slow(s, 0, diagonal) & ~edges;
        int bits = bb_popcount(m->mask);
        m->shift = 64 - (unsigned)bits;
        m->attacks = next;
        int n = 0;
        Bitboard b = 0;
        do {
            occ[n] = b;
            ref[n] = slide_att8_slow(s, b, diagonal);
            n++;
            b = (b - m->mask) & m->mask;
        } while (b);
        Bitboard *slot = next;
        for (;;) {
            Bitboard magic;
            do {
                magic = magic_rand(&seed) & magic_rand(&seed) & magic_rand(&seed);
            } while (bb_popcount((m->mask * magic) >> 56) < 6);
            cur_epoch++;
            int i;
            for (i = 0; i < n; i++) {
                unsigned idx = (unsigned)(((occ[i] & m->mask) * magic) >> m->shift);
                if (epoch[idx] < cur_epoch) {
                    epoch[idx] = cur_epoch;
                    slot[idx] = ref[i];
                } else if (slot[idx] != ref[i]) {
                    break;
                }
            }
            if (i == n) {
                m->magic = magic;
                break;
            }
        }
        next += (size_t)1 << bits;
    }
}

/* Leaper targets of (df, dr) vectors from square s on a w x h board, as a bitmask. */
static void leaper_init(void) {
    static const int kn[8][2] = {{1, 2}, {2, 1}, {2, -1}, {1, -2}, {-1, -2}, {-2, -1}, {-2, 1}, {-1, 2}};
    for (int s = 0; s < 64; s++) {
        int f = s % 8, r = s / 8;
        for (int i = 0; i < 8; i++) {
            int nf = f + kn[i][0], nr = r + kn[i][1];
            if (nf >= 0 && nf < 8 && nr >= 0 && nr < 8) knight_att8[s] |= (Bitboard)1 << (nr * 8 + nf);
            nf = f + dir_df[i];
            nr = r + dir_dr[i];
            if (nf >= 0 && nf < 8 && nr >= 0 && nr < 8) king_att8[s] |= (Bitboard)1 << (nr * 8 + nf);
        }
        for (int c = 0; c < 2; c++) {
            int nr = r + (c == 0 ? 1 : -1);
            if (nr < 0 || nr > 7) continue;
            if (f > 0) pawn_att8[c][s] |= (Bitboard)1 << (nr * 8 + f - 1);
            if (f < 7) pawn_att8[c][s] |= (Bitboard)1 << (nr * 8 + f + 1);
        }
    }
    for (int s = 0; s < 100; s++) {
        int f = s % 10, r = s / 10;
        board10_mask |= (Bitboard128)1 << s;
        for (int i = 0; i < 8; i++) {
            int nf = f + kn[i][0], nr = r + kn[i][1];
            if (nf >= 0 && nf < 10 && nr >= 0 && nr < 10) knight_att10[s] |= (Bitboard128)1 << (nr * 10 + nf);
            nf = f + dir_df[i];
            nr = r + dir_dr[i];
            if (nf >= 0 && nf < 10 && nr >= 0 && nr < 10) king_att10[s] |= (Bitboard128)1 << (nr * 10 + nf);
        }
        for (int d = 0; d < 8; d++) {
            int nf = f + dir_df[d], nr = r + dir_dr[d];
            while (nf >= 0 && nf < 10 && nr >= 0 && nr < 10) {
                ray10[d][s] |= (Bitboard128)1 << (nr * 10 + nf);
                nf += dir_df[d];
                nr += dir_dr[d];
            }
        }
    }
}

/* between8 and line8 from the slider attacks. */
static void lines_init(void) {
    for (int a = 0; a < 64; a++)
        for (int b = 0; b < 64; b++) {
            if (a == b) continue;
            Bitboard ba = (Bitboard)1 << a, bbb = (Bitboard)1 << b;
            for (int diag = 0; diag < 2; diag++) {
                if (!(slide_att8_slow(a, 0, diag) & bbb)) continue;
                line8[a][b] = (slide_att8_slow(a, 0, diag) & slide_att8_slow(b, 0, diag)) | ba | bbb;
                between8[a][b] = slide_att8_slow(a, bbb, diag) & slide_att8_slow(b, ba, diag);
            }
        }
}

/* Builds every geometry table; called once from engine_init. */
void bitboard_init(void) {
    leaper_init();
    magics_init(rook_magic, rook_table, false);
    magics_init(bishop_magic, bishop_table, true);
    lines_init();
}
