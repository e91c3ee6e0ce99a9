/* bitboard.c - attack tables for 8x8 and 10x10, built once by bitboard_init(). */
#include "bitboard.h"
#include "chessvar.h"
#include "lines10.h"

#include <stdlib.h>
#include <string.h>

Magic rook_magic[64];
Magic bishop_magic[64];
Bitboard knight_att8[64];
Bitboard king_att8[64];
Bitboard pawn_att8[2][64];
Bitboard between8[64][64];
Bitboard line8[64][64];
Bitboard rook_ray8[64];
Bitboard bishop_ray8[64];

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

/* Magic multipliers found once by the seeded search below (magics_init falls back to
 * that search for any square where one fails verification, so these are a speed-up of
 * start-up only, never a correctness assumption). */
static const uint64_t rook_magic_seed[64] = {
    0x1880008020104000ULL, 0x8240002001100048ULL, 0x1080200080081000ULL, 0x5080100080080104ULL,
    0x5100100800030004ULL, 0x0200011084020008ULL, 0x2080010002000080ULL, 0x05000a008240a500ULL,
    0x0040800040002081ULL, 0x0005004001008028ULL, 0x2080802000100080ULL, 0x5002000a024110a0ULL,
    0x0410800400080081ULL, 0x0002000200049088ULL, 0xc004000250244108ULL, 0x10c2000200804411ULL,
    0x4040008008204880ULL, 0x0040010040810020ULL, 0xe820010011004020ULL, 0x000892000a0040a0ULL,
    0x5224010100080010ULL, 0x0004808004010200ULL, 0x0040040021181210ULL, 0x0850020013086084ULL,
    0x9124800880244000ULL, 0x0400400240201001ULL, 0x8090002020080401ULL, 0x1080080080100081ULL,
    0x1008041100080101ULL, 0x104100090004001eULL, 0x0881002100020024ULL, 0x0410801880004100ULL,
    0x0440204005800880ULL, 0x4900401004402000ULL, 0x0890040801200120ULL, 0x0001800802801002ULL,
    0x0004000800800480ULL, 0x04ad020080800400ULL, 0x0000108204000108ULL, 0x0002004102000084ULL,
    0x0008882040008000ULL, 0x0220004000828028ULL, 0x0210100020008080ULL, 0x0806001008220040ULL,
    0x0000080004008080ULL, 0x200c000200048080ULL, 0x8424010002008080ULL, 0x0100090048a20004ULL,
    0x088008814000a580ULL, 0x100a002041088200ULL, 0x00024b9100a00100ULL, 0x8022001040886600ULL,
    0x4800040080080080ULL, 0x0520020080040080ULL, 0x0282011002484400ULL, 0x86852415004a8200ULL,
    0x0201482103108001ULL, 0x83010850a480c001ULL, 0x28051020420a0082ULL, 0x1180042008100101ULL,
    0x0202000490082082ULL, 0x0005000400080201ULL, 0x4400102102008804ULL, 0x0202002041040092ULL,
};
static const uint64_t bishop_magic_seed[64] = {
    0x10102002004a1420ULL, 0x8020040400584008ULL, 0x10510800811201c8ULL, 0x5204042080000088ULL,
    0x2204106880000002ULL, 0x1401042004000000ULL, 0x0400880410042004ULL, 0x0028208200a02020ULL,
    0x1500241990010e00ULL, 0x8001200182020a40ULL, 0x40004101030b0000ULL, 0x8002041042000100ULL,
    0x4010011041020038ULL, 0x0000010421044000ULL, 0x1500210808020a00ULL, 0x8000088400880520ULL,
    0x0405004010040100ULL, 0x1005823210040108ULL, 0x2708008102040011ULL, 0x4048200404009100ULL,
    0x0018104101400024ULL, 0x0003000601190101ULL, 0x8004803108491000ULL, 0x8014241200820800ULL,
    0x0006e080100c3040ULL, 0x0501044a11041800ULL, 0x9020300008004045ULL, 0x0894080000220040ULL,
    0x1001010083104000ULL, 0x5004030040900080ULL, 0x000400422c012400ULL, 0x0002128698404812ULL,
    0x1010108404900440ULL, 0x0928021182084100ULL, 0x2006080409020024ULL, 0x1010202020180080ULL,
    0xa010008200202200ULL, 0x2098015100019004ULL, 0x0002041440810811ULL, 0x802a02020000b098ULL,
    0x0009015090004060ULL, 0x4000821082081001ULL, 0x0100210040420800ULL, 0x0800004010488a00ULL,
    0x2000081104004040ULL, 0x4c8e029015000082ULL, 0x0420340322224842ULL, 0x1298260043400210ULL,
    0x0000822802400008ULL, 0x00008a0101600000ULL, 0x3040003412080021ULL, 0x3040290220884800ULL,
    0x4a1500401041004aULL, 0x8010200282020781ULL, 0x0020203142209091ULL, 0x0070300600902110ULL,
    0x0040808800b62048ULL, 0x0000810400c44420ULL, 0x00080400440c0441ULL, 0x8340080020840411ULL,
    0x0000000104208200ULL, 0x0000800810d00080ULL, 0x0400530411080200ULL, 0x4040702400932244ULL,
};

/* Deterministic 64-bit generator for the magic search (xorshift64*). */
static uint64_t magic_rand(uint64_t *s) {
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 2685821657736338717ULL;
}

/* Finds magic multipliers for one slider type; the search is seeded, so the tables are
 * identical on every run. With PEXT the slots are filled by PEXT index instead. */
static void magics_init(Magic *magics, Bitboard *table, bool diagonal, const uint64_t *known) {
    static Bitboard occ[4096], ref[4096];
    static int epoch[4096];
    int cur_epoch = 0;
    uint64_t seed = diagonal ? 0x9E3779B97F4A7C15ULL : 0xD1B54A32D192ED03ULL;
    Bitboard *next = table;
    memset(epoch, 0, sizeof epoch);
    for (int s = 0; s < 64; s++) {
        Magic *m = &magics[s];
        Bitboard edges =
            ((0xFFULL | 0xFF00000000000000ULL) & ~(0xFFULL << (s / 8 * 8))) |
            ((0x0101010101010101ULL | 0x8080808080808080ULL) & ~(0x0101010101010101ULL << (s % 8)));
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
        if (CHESSVAR_PEXT) {
            for (int i = 0; i < n; i++) slot[slider_index8(m, occ[i])] = ref[i];
            next += (size_t)1 << bits;
            continue;
        }
        for (int trial = 0;; trial++) {
            Bitboard magic = known[s];
            if (trial > 0) {
                do {
                    magic = magic_rand(&seed) & magic_rand(&seed) & magic_rand(&seed);
                } while (bb_popcount((m->mask * magic) >> 56) < 6);
            }
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
    static const int kn[8][2] = {{1, 2},   {2, 1},   {2, -1}, {1, -2},
                                 {-1, -2}, {-2, -1}, {-2, 1}, {-1, 2}};
    for (int s = 0; s < 64; s++) {
        int f = s % 8, r = s / 8;
        for (int i = 0; i < 8; i++) {
            int nf = f + kn[i][0], nr = r + kn[i][1];
            if (nf >= 0 && nf < 8 && nr >= 0 && nr < 8)
                knight_att8[s] |= (Bitboard)1 << (nr * 8 + nf);
            nf = f + dir_df[i];
            nr = r + dir_dr[i];
            if (nf >= 0 && nf < 8 && nr >= 0 && nr < 8)
                king_att8[s] |= (Bitboard)1 << (nr * 8 + nf);
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
            if (nf >= 0 && nf < 10 && nr >= 0 && nr < 10)
                knight_att10[s] |= (Bitboard128)1 << (nr * 10 + nf);
            nf = f + dir_df[i];
            nr = r + dir_dr[i];
            if (nf >= 0 && nf < 10 && nr >= 0 && nr < 10)
                king_att10[s] |= (Bitboard128)1 << (nr * 10 + nf);
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
    for (int a = 0; a < 64; a++) {
        rook_ray8[a] = slide_att8_slow(a, 0, false);
        bishop_ray8[a] = slide_att8_slow(a, 0, true);
    }
    for (int a = 0; a < 64; a++)
        for (int b = 0; b < 64; b++) {
            if (a == b) continue;
            Bitboard ba = (Bitboard)1 << a, bbb = (Bitboard)1 << b;
            for (int diag = 0; diag < 2; diag++) {
                if (!(slide_att8_slow(a, 0, diag) & bbb)) continue;
                line8[a][b] =
                    (slide_att8_slow(a, 0, diag) & slide_att8_slow(b, 0, diag)) | ba | bbb;
                between8[a][b] = slide_att8_slow(a, bbb, diag) & slide_att8_slow(b, ba, diag);
            }
        }
}

/* Builds every geometry table; called once from engine_init. */
void bitboard_init(void) {
    leaper_init();
    magics_init(rook_magic, rook_table, false, rook_magic_seed);
    magics_init(bishop_magic, bishop_table, true, bishop_magic_seed);
    lines_init();
    lines10_init();
}

/* The public attack sets of chessvar.h: the tables above, out of line. */
Bitboard cv_knight_att8(int sq) { return knight_att8[sq]; }
Bitboard cv_king_att8(int sq) { return king_att8[sq]; }
Bitboard cv_bishop_att8(int sq, Bitboard occ) { return bishop_att8(sq, occ); }
Bitboard cv_rook_att8(int sq, Bitboard occ) { return rook_att8(sq, occ); }
