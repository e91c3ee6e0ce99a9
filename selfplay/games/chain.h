/* chain.h - the chain codec of self-play games (FORMAT.md, "Chain shard"): each game as
 * its start position and, per ply, the move as its index among the legal moves in the
 * order of the variant's fastest generator (versions 4 to 6; before, gen_legal's; version
 * 6's orthodox chess: among chess_gen_pseudo_set's moves), the best move
 * where it differs, the score as a difference from the previous ply's, the depth and the
 * flags, coded (versions 3 to 7) by rANS over adaptive frequency models, one symbol per
 * field, or (versions 1 and 2, still read) by an adaptive binary range coder; the models start
 * afresh in every block, so each block decodes on its own. */
#ifndef CHESSVAR_SELFPLAY_CHAIN_H
#define CHESSVAR_SELFPLAY_CHAIN_H

#include "game.h"

#define CHAIN_VERSION     7 /* written; versions 1 to 6 are still read */
#define CHAIN_HEADER_SIZE 64
#define CHAIN_BLOCK_HEAD  24          /* bytes before a block's payload */
#define CHAIN_BLOCK_PLIES 16384       /* a block is closed after the game that reaches this */
#define CHAIN_MAX_PAYLOAD (64u << 20) /* a longer payload field marks a corrupt block */

typedef struct ChainModel ChainModel;
typedef struct ChainRans ChainRans;

/* Version 3's record of one coded symbol, kept until the block ends: rANS codes the
 * block's symbols in reverse at its end, so the decoder reads them forwards. */
typedef struct ChainSym {
    uint16_t start, freq; /* its slice of the model's 2^prec slots */
    uint8_t prec;
} ChainSym;

/* Encoder of one block: the range coder's state, its output and its models. */
typedef struct ChainEnc {
    uint64_t low;
    uint32_t range;
    uint8_t cache;
    uint64_t cache_size;
    uint8_t *out;
    size_t len, cap;
    bool oom;
    ChainModel *m;
    uint32_t prev_id; /* id of the game before (the block's first game id - 1 at the start) */
    char prev_fen[256];
    int version; /* the chain version coded (FORMAT.md): 1 to 7 */
    /* versions 3 to 7: the adaptive frequency models and the symbols coded so far */
    ChainRans *r;
    ChainSym *sym;
    size_t nsym, capsym;
} ChainEnc;

/* Decoder of one block. */
typedef struct ChainDec {
    uint32_t range, code;
    const uint8_t *in, *end;
    ChainModel *m;
    uint32_t prev_id;
    char prev_fen[256];
    Position *start;     /* the last start read from its FEN, copied for the next game */
    char start_fen[256]; /* its FEN ("" before the first) */
    int version;         /* the chain version read: 1 to 7 */
    ChainRans *r;        /* versions 3 to 7: the adaptive frequency models */
    uint32_t x;          /* versions 3 to 7: the rANS state */
    bool in_tail;        /* versions 3 to 7: in and end point into tail */
    uint8_t tail[64];    /* the payload's last bytes and zeros, where the ply loop reads
                          * near the end (chain_rans.c, dec3_tail) */
    bool no_legal;       /* version 6's chess: leave the records' `legal` 0 (the trainer's
                          * reader, which never reads it: its moves no longer need the legal
                          * moves, and counting them would cost a third of a ply) */
    /* With rec given to chain_dec_game: whether a written ply's record is wanted (NULL:
     * every one), asked before the record is filled, so a reader that filters positions
     * does not fill the ones it drops. *check is whether pos is in check, -1 when the
     * generator did not tell it: a hook that needs it sets it (pos_in_check). */
    bool (*keep)(void *ctx, const Game *g, int k, const Position *pos, int *check);
    void *keep_ctx;
} ChainDec;

/* Starts a block of chain version `version` (CHAIN_VERSION, or 1 to 6 to write an old coding)
 * whose first game has id first_id; false if out of memory. */
bool chain_enc_init(ChainEnc *e, uint32_t first_id, int version);
/* Codes game g (its plies replayed on pos, scratch); false with err naming the game and
 * the ply when a move played is not legal there or the start does not read. */
bool chain_enc_game(ChainEnc *e, const Variant *v, const Game *g, Position *pos, CvError *err);
/* Ends the block: flushes the coder; the payload is e->out[0..e->len). */
void chain_enc_finish(ChainEnc *e);
void chain_enc_free(ChainEnc *e);

/* Starts decoding a block's payload of chain version `version` (1 to 7); false if out of
 * memory. */
bool chain_dec_init(ChainDec *d, const uint8_t *payload, size_t len, uint32_t first_id,
                    int version);
/* Decodes the next game into g (room for MAX_GAME_PLY plies), replaying it on pos (left
 * at the game's last position). With rec non-NULL, also fills a record (record.h) of
 * rsize bytes for each written ply there (that d->keep, if set, wants) and adds their
 * number to *nrec. False with err naming the game and ply when a move is not legal or the
 * data ends early. */
bool chain_dec_game(ChainDec *d, const Variant *v, Game *g, Position *pos, uint8_t *rec, int rsize,
                    uint64_t *nrec, CvError *err);
void chain_dec_free(ChainDec *d);

#endif
