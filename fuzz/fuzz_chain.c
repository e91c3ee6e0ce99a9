/* fuzz_chain.c - libFuzzer target for the chain codec of self-play games
 * (selfplay/games/chain.c, FORMAT.md "Chain shard"), over every variant and every chain
 * version chessvar reads. The input is "<variant>\n<bytes>"; the first byte of the rest
 * picks the version (1 to CHAIN_VERSION) and the mode:
 *   round trip (even byte): the bytes pick a game from the variant's start (each ply's move
 *     among the legal ones, best move, score, depth and flags; the header's id, ply0,
 *     result and termination); it is coded three times in one block (the next id, the
 *     same start; then another id), and the block must decode to the same fields, with a
 *     record for every written ply; then one payload byte picked by the input is changed
 *     and the block decoded again, which must end in games or in an error with a message;
 *   raw (odd byte): the bytes are a block's payload, decoded until it fails, which it must
 *     do with a message, never by reading outside it (AddressSanitizer watches).
 * The changed and (with the byte's top bit) the raw payloads are decoded as the trainer
 * decodes (ChainDec.no_legal), the round trip as a converter does.
 * A reader meets a corrupt payload only past a block's XXH3 checksum (a collision or a bug
 * of the writer); the decoder must still stay inside its buffers. */
#include "fuzz_common.h"

#include "../selfplay/games/chain.h"
#include "../selfplay/games/record.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_GAMES 3
#define FUZZ_PLIES 160

/* Reads the input byte by byte; zeros once it is used up. */
typedef struct Bytes {
    const uint8_t *p;
    size_t n, i;
} Bytes;

static uint8_t next(Bytes *b) { return b->i < b->n ? b->p[b->i++] : 0; }

static uint16_t next16(Bytes *b) {
    uint16_t lo = next(b);
    return (uint16_t)(lo | next(b) << 8);
}

/* Decodes the block's games into g; returns the games decoded, with the first error in err.
 * no_legal: as the trainer decodes (version 6's chess leaves the records' legal count). */
static int decode(const Variant *v, const uint8_t *payload, size_t len, uint32_t first_id,
                  int version, Game *g[FUZZ_GAMES], Position *pos, uint8_t *rec, int rsize,
                  uint64_t *nrec, CvError *err, bool no_legal) {
    ChainDec d;
    if (!chain_dec_init(&d, payload, len, first_id, version)) return -1;
    d.no_legal = no_legal;
    int k = 0;
    while (k < FUZZ_GAMES && chain_dec_game(&d, v, g[k], pos, rec, rsize, nrec, err)) k++;
    chain_dec_free(&d);
    return k;
}

/* Fails unless the decoded game b has every coded field of a. */
static void same_game(const Variant *v, const Game *a, const Game *b) {
    char why[160];
    if (a->id != b->id || a->ply0 != b->ply0 || a->nply != b->nply ||
        a->termination != b->termination || a->white_score != b->white_score ||
        strcmp(a->start_fen, b->start_fen) != 0) {
        snprintf(why, sizeof why, "game %u: header differs (nply %d/%d, ply0 %u/%u, result %d/%d)",
                 (unsigned)a->id, a->nply, b->nply, a->ply0, b->ply0, a->white_score,
                 b->white_score);
        fuzz_fail(v, "round trip", why);
    }
    for (int k = 0; k < a->nply; k++) {
        const GamePly *p = &a->ply[k], *q = &b->ply[k];
        if (p->played != q->played || p->best != q->best || p->score != q->score ||
            p->depth != q->depth || p->random != q->random || p->unwritten != q->unwritten) {
            snprintf(why, sizeof why,
                     "game %u ply %d: played %x/%x best %x/%x score %d/%d depth %d/%d",
                     (unsigned)a->id, k, (unsigned)p->played, (unsigned)q->played,
                     (unsigned)p->best, (unsigned)q->best, p->score, q->score, p->depth, q->depth);
            fuzz_fail(v, "round trip", why);
        }
    }
}

/* Builds a game from the bytes: legal moves from the variant's start, fields drawn. */
static void make_game(const Variant *v, Bytes *b, Game *g, Position *pos) {
    memset(g, 0, sizeof *g);
    CvError err = {{0}};
    if (!pos_from_fen(pos, v, v->start_fen, &err)) fuzz_fail(v, "start FEN", err.msg);
    pos_to_fen(pos, g->start_fen, sizeof g->start_fen);
    g->id = next16(b);
    g->ply0 = (uint8_t)next(b) < 32 ? next16(b) : 0;
    uint8_t r = next(b);
    g->white_score = r % 8 < 5 ? (r % 8) * 250 : (int)(next16(b) % 1001);
    g->termination = next(b) % TERM_COUNT;
    Move list[MAX_MOVES];
    int depth = 0;
    for (int k = 0; k < FUZZ_PLIES && b->i < b->n; k++) {
        int n = pos_legal_moves(pos, list);
        if (n == 0) break;
        GamePly *p = &g->ply[g->nply++];
        uint8_t f = next(b);
        p->played = list[next(b) % n];
        p->unwritten = f & 1;
        p->random = f >> 1 & 1;
        switch (f >> 2 & 3) {
        case 0: p->best = MOVE_NONE; break;
        case 1: p->best = p->played; break;
        case 2: p->best = list[next(b) % n]; break;
        default: p->best = (Move)(next16(b) | (uint32_t)next16(b) << 16); break;
        }
        if (p->best == MOVE_NONE) {
            p->depth = f >> 4 & 1 ? next(b) : 0;
        } else {
            depth += (f >> 4 & 7) - 3;
            if (f >> 7) depth = next(b);
            p->depth = (uint8_t)depth;
            depth = p->depth;
        }
        p->score = (int16_t)next16(b);
        pos_make(pos, p->played);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const Variant *v;
    size_t len;
    char *rest = fuzz_split(data, size, &v, &len);
    if (!rest || len == 0) {
        free(rest);
        return 0;
    }
    static _Thread_local Position pos;
    static _Thread_local uint8_t rec[FUZZ_GAMES * FUZZ_PLIES * 256];
    Game *g[FUZZ_GAMES], *in[FUZZ_GAMES];
    for (int i = 0; i < FUZZ_GAMES; i++) {
        g[i] = malloc(game_size(MAX_GAME_PLY));
        in[i] = malloc(game_size(FUZZ_PLIES));
    }
    int mode = (uint8_t)rest[0];
    int version = 1 + (mode >> 1) % CHAIN_VERSION;
    int rsize = record_size(v);
    if ((size_t)rsize > 256) fuzz_fail(v, "record size", "over the target's buffer");
    Bytes b = {(const uint8_t *)rest + 1, len - 1, 0};
    CvError err = {{0}};
    uint64_t nrec = 0;
    if (mode & 1) {
        int k = decode(v, b.p, b.n, 1, version, g, &pos, rec, rsize, &nrec, &err, mode & 128);
        if (k >= 0 && k < FUZZ_GAMES && !err.msg[0])
            fuzz_fail(v, "raw payload", "failed without a message");
    } else {
        make_game(v, &b, in[0], &pos);
        memcpy(in[1], in[0], game_size(in[0]->nply));
        in[1]->id = in[0]->id + 1; /* the next id and the same start: the short forms */
        memcpy(in[2], in[0], game_size(in[0]->nply));
        in[2]->id = in[0]->id + 7;
        in[2]->white_score = 1000 - in[0]->white_score;
        ChainEnc e;
        if (!chain_enc_init(&e, in[0]->id, version)) fuzz_fail(v, "encoder", "out of memory");
        for (int i = 0; i < FUZZ_GAMES; i++)
            if (!chain_enc_game(&e, v, in[i], &pos, &err)) fuzz_fail(v, "encoder refused", err.msg);
        chain_enc_finish(&e);
        int k =
            decode(v, e.out, e.len, in[0]->id, version, g, &pos, rec, rsize, &nrec, &err, false);
        if (k != FUZZ_GAMES) fuzz_fail(v, "own block does not decode", err.msg);
        uint64_t written = 0;
        for (int i = 0; i < FUZZ_GAMES; i++) {
            same_game(v, in[i], g[i]);
            for (int p = 0; p < in[i]->nply; p++) written += !in[i]->ply[p].unwritten;
        }
        if (nrec != written) fuzz_fail(v, "records", "not one per written ply");
        if (e.len > 0) {
            /* one byte changed: the decoder must end cleanly, whatever it reads */
            size_t at = next16(&b) % e.len;
            e.out[at] ^= (uint8_t)(next(&b) | 1);
            nrec = 0;
            err.msg[0] = 0;
            k = decode(v, e.out, e.len, in[0]->id, version, g, &pos, rec, rsize, &nrec, &err, true);
            if (k >= 0 && k < FUZZ_GAMES && !err.msg[0])
                fuzz_fail(v, "changed payload", "failed without a message");
        }
        chain_enc_free(&e);
    }
    for (int i = 0; i < FUZZ_GAMES; i++) {
        free(g[i]);
        free(in[i]);
    }
    free(rest);
    return 0;
}
