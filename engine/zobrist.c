/* zobrist.c - Zobrist keys generated deterministically with XXH3 from fixed seeds, so
 * every machine and every run computes the same keys. */
#include <xxhash.h>

#include "position.h"

uint64_t zob_psq[64][MAX_SQ];
uint64_t zob_side;
uint64_t zob_castle[32];
uint64_t zob_ep[MAX_SQ];
uint64_t zob_hand[2][MAX_PT][8];
uint64_t zob_pool[2][MAX_PT][16];

/* Key number i of table `table`: XXH3 of the pair, under the project's fixed seed. */
static uint64_t zob_key(uint32_t table, uint32_t i) {
    uint32_t in[2] = {table, i};
    return XXH3_64bits_withSeed(in, sizeof in, 0x43485653564152ULL /* "CHVSVAR" */);
}

/* Fills every key table; count 0 of hand and pool hashes to 0 so empty holdings are free. */
void zobrist_init(void) {
    for (uint32_t pc = 0; pc < 64; pc++)
        for (uint32_t s = 0; s < MAX_SQ; s++)
            zob_psq[pc][s] = PC_TYPE(pc) ? zob_key(1, pc * MAX_SQ + s) : 0;
    zob_side = zob_key(2, 0);
    for (uint32_t i = 0; i < 32; i++) zob_castle[i] = zob_key(3, i);
    for (uint32_t s = 0; s < MAX_SQ; s++) zob_ep[s] = zob_key(4, s);
    for (uint32_t c = 0; c < 2; c++)
        for (uint32_t t = 0; t < MAX_PT; t++) {
            for (uint32_t n = 0; n < 8; n++)
                zob_hand[c][t][n] = n ? zob_key(5, (c * MAX_PT + t) * 8 + n) : 0;
            for (uint32_t n = 0; n < 16; n++)
                zob_pool[c][t][n] = n ? zob_key(6, (c * MAX_PT + t) * 16 + n) : 0;
        }
}

/* The key after m as far as the moving piece, a piece on the target square and the side
 * to move tell (not castling rights, e.p. squares, promotions, drops or extra victims):
 * close enough to ask for a table slot before the move is made. */
uint64_t pos_key_after(const Position *p, Move m) {
    int from = MOVE_FROM(m), to = MOVE_TO(m), pc = p->board[from];
    return p->key ^ zob_side ^ zob_psq[p->board[to]][to] ^ zob_psq[pc][from] ^ zob_psq[pc][to];
}
