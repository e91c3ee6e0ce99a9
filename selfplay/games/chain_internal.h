/* chain_internal.h - what the chain codec's files share (chain.c: the block's public calls,
 * the helpers both codings use and the decoder's start, record, error and end checks;
 * chain_rc.c: versions 1 and 2, the binary range coder; chain_rans.c: versions 3 to 7, rANS).
 * Private to selfplay/games/chain*.c. */
#ifndef CHESSVAR_SELFPLAY_CHAIN_INTERNAL_H
#define CHESSVAR_SELFPLAY_CHAIN_INTERNAL_H

#include <string.h>

#include "chain.h"
#include "record.h"

#define DEPTH_CTX 65 /* previous searched depth 0..63, and 64 for an unsearched ply */
/* version 7 (at most DEPTH_CTX): the last searched depth 0..15 by how the one before it
 * compares (3 each), and 48 for an unsearched ply */
#define DEPTH_CTX7 49
#define EXP_CTX    8 /* bucket of the previous score difference's size */
#define DDELTA     3 /* versions 2 and 3: depth differences -3..3 from the last searched depth */

/* Bits needed for the values 0 .. n-1. */
static inline int chain_bits(uint32_t n) { return n <= 1 ? 0 : 32 - __builtin_clz(n - 1); }

/* Size class of a score difference's magnitude: floor(log2 m) + 1, 0 for 0. */
static inline int chain_class(uint32_t m) { return m ? 32 - __builtin_clz(m) : 0; }

/* The depth's context (versions 1 to 6): the last searched depth (capped), or the
 * unsearched one. */
static inline int chain_depth_ctx(int searched, int prev_depth) {
    return searched ? (prev_depth < 63 ? prev_depth : 63) : DEPTH_CTX - 1;
}

/* Version 7's: the last searched depth (capped at 15) by whether the searched ply before it
 * (prev_depth2) reached the same, a smaller or a larger depth. The depth a search reaches
 * at a fixed node budget varies by about two bits a ply around its mean, which the depth
 * before the last tells better than the last alone (FORMAT.md: 0.4% smaller chains). */
_Static_assert(DEPTH_CTX7 <= DEPTH_CTX, "version 7's depth models fit version 6's array");
static inline int chain_depth_ctx7(int searched, int prev_depth, int prev_depth2) {
    /* same 0, smaller 1, larger 2, in arithmetic: a branch on it follows the data */
    const int ctx = 3 * (prev_depth < 15 ? prev_depth : 15) + (prev_depth2 != prev_depth) +
                    (prev_depth2 > prev_depth);
    return searched ? ctx : DEPTH_CTX7 - 1;
}

/* The five usual results by White's score per mille; 5 marks another value. */
static inline int chain_wscore_code(int ws) {
    return ws % 250 == 0 && ws >= 0 && ws <= 1000 ? ws / 250 : 5;
}

/* Next payload byte; zero past the end (a truncated payload then fails its checks). */
static inline uint32_t chain_in(ChainDec *d) { return d->in < d->end ? *d->in++ : 0; }

/* The legal moves whose indices chain version `version` codes: from version 5 in the order
 * of the variant's fastest generator (VariantOps.gen_fast); in version 4 too but for
 * Switching, whose fast generator came with version 5; before in gen_legal's. */
static inline int chain_moves(Position *pos, int version, Move *list) {
    bool fast = version >= 5 || (version == 4 && strcmp(pos->var->name, "switching") != 0);
    return fast ? pos_legal_moves_fast(pos, list) : pos_legal_moves(pos, list);
}

/* Whether chain version `version` codes v's move indices among the pseudo-legal moves
 * (version 6, orthodox chess: chess_gen_pseudo_set); else among the legal ones. */
static inline bool chain_pseudo(const Variant *v, int version) {
    return version >= 6 && strcmp(v->name, "chess") == 0;
}

/* chain_moves's moves as a MoveSet (the variant's gen_fast_set, or the list in its tail):
 * the decoder's, which needs their number and then only the one or two coded. */
static inline int chain_move_set(Position *pos, int version, MoveSet *ms) {
    bool fast = version >= 5 || (version == 4 && strcmp(pos->var->name, "switching") != 0);
    if (fast) return pos_legal_moves_set(pos, ms);
    ms->ngroup = ms->ngrouped = 0;
    ms->check = -1;
    return ms->n = pos_legal_moves(pos, ms->tail);
}

/* Appends one byte to the payload, growing it (e->oom when it cannot). */
void chain_out(ChainEnc *e, uint8_t b);
/* The encoder's step at ply k of g's replay on pos: the moves whose indices `version`
 * codes into list (*n: the legal moves; version 6's chess: chess_gen_pseudo_set's, a
 * superset), the index of the move played (*pi) and of the best move (*bi; -1 when not
 * searched or not legal); false with err naming the game and the ply when the move played
 * is not legal. */
bool chain_enc_moves(Position *pos, int version, const Game *g, int k, Move *list, int *n, int *pi,
                     int *bi, CvError *err);

/* The decoder's steps both codings share (chain.c): the game's start, once its header is
 * read (header_ok false: the error of a header that does not read); the errors of an
 * illegal coded move and of a replay that ends elsewhere. A written ply's record:
 * chain_dec_record, below. */
bool chain_dec_start(ChainDec *d, const Variant *v, const Game *g, bool header_ok, Position *pos,
                     CvError *err);
bool chain_dec_illegal(const Game *g, int k, CvError *err);

/* Fills the record of written ply k at pos (both codings' decoders), when d->keep wants it;
 * the check test only when the generator did not tell it and the hook or the record asks.
 * chess: orthodox chess's record (8x8, no holdings, rsize RECORD_FIXED_SIZE + 64), whose
 * shape is then a constant: a few stores and a copy. Inline, as record_fill: once a ply. */
static inline __attribute__((always_inline)) void
chain_dec_record(ChainDec *d, const Game *g, int k, const Position *pos, int check, uint8_t *rec,
                 int rsize, uint64_t *nrec, bool chess) {
    if (d->keep && !d->keep(d->keep_ctx, g, k, pos, &check)) return;
    if (check < 0) check = pos_in_check(pos);
    uint8_t *r = rec + *nrec * (uint64_t)rsize;
    if (chess) record_fill_shape(r, RECORD_FIXED_SIZE + 64, g, k, pos, check != 0, 64, 0);
    else record_fill(r, rsize, g, k, pos, check != 0);
    ++*nrec;
}
bool chain_dec_end(const Game *g, const Position *pos, uint32_t key16, CvError *err);

/* Versions 1 and 2 (chain_rc.c): the range coder's models and state set up, a game coded
 * (pos at its start), the block flushed; the decoder's state read from d->in, a game
 * decoded, as chain_enc_game and chain_dec_game. */
bool chain_rc_enc_init(ChainEnc *e);
bool chain_rc_enc_game(ChainEnc *e, const Game *g, Position *pos, CvError *err);
void chain_rc_enc_finish(ChainEnc *e);
bool chain_rc_dec_init(ChainDec *d);
bool chain_rc_dec_game(ChainDec *d, const Variant *v, Game *g, Position *pos, uint8_t *rec,
                       int rsize, uint64_t *nrec, CvError *err);

/* Versions 3 to 7 (chain_rans.c): every model of a block declared (NULL if out of memory) and
 * freed; a game coded, the block's symbols coded in reverse at its end; the decoder's
 * state read, a game decoded. */
ChainRans *chain_rans_new(bool decoder);
void chain_rans_free(ChainRans *r);
bool chain_rans_enc_game(ChainEnc *e, const Game *g, Position *pos, CvError *err);
void chain_rans_enc_finish(ChainEnc *e);
void chain_rans_dec_init(ChainDec *d);
bool chain_rans_dec_game(ChainDec *d, const Variant *v, Game *g, Position *pos, uint8_t *rec,
                         int rsize, uint64_t *nrec, CvError *err);

#endif
