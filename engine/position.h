/* position.h - internal: the three board primitives, Zobrist tables and helpers that
 * keep every representation of a Position (mailbox, bitboards, counts, key) in step.
 * Every board change in every variant goes through pos_put / pos_remove / pos_move. */
#ifndef CHESSVAR_POSITION_H
#define CHESSVAR_POSITION_H

#include "chessvar.h"

/* Zobrist tables, generated deterministically with XXH3 from fixed seeds (zobrist.c). */
extern uint64_t zob_psq[64][MAX_SQ];     /* [piece code][square] */
extern uint64_t zob_side;                /* Black to move */
extern uint64_t zob_castle[32];          /* per castling-right bit */
extern uint64_t zob_ep[MAX_SQ];          /* e.p. square (only when a capture is possible) */
extern uint64_t zob_hand[2][MAX_PT][8];  /* [colour][type][count] */
extern uint64_t zob_pool[2][MAX_PT][16]; /* [colour][type][count] */
void zobrist_init(void);

static inline Bitboard sq_bb8(int sq) { return (Bitboard)1 << sq; }
static inline Bitboard128 sq_bb10(int sq) { return (Bitboard128)1 << sq; }

/* The three 8x8 primitives without the key: takebacks use them directly, since they
 * restore the key whole from the undo record afterwards. */
static inline void pos_put8_nokey(Position *p, int sq, int pc) {
    Bitboard b = sq_bb8(sq);
    p->board[sq] = (uint8_t)pc;
    p->bb.b8.type[PC_TYPE(pc)] |= b;
    p->bb.b8.color[PC_COLOR(pc)] |= b;
    p->count[pc]++;
}
static inline int pos_remove8_nokey(Position *p, int sq) {
    int pc = p->board[sq];
    Bitboard b = sq_bb8(sq);
    p->board[sq] = PC_EMPTY;
    p->bb.b8.type[PC_TYPE(pc)] ^= b;
    p->bb.b8.color[PC_COLOR(pc)] ^= b;
    p->count[pc]--;
    return pc;
}
static inline void pos_move8_nokey(Position *p, int from, int to) {
    int pc = p->board[from];
    Bitboard b = sq_bb8(from) | sq_bb8(to);
    p->board[from] = PC_EMPTY;
    p->board[to] = (uint8_t)pc;
    p->bb.b8.type[PC_TYPE(pc)] ^= b;
    p->bb.b8.color[PC_COLOR(pc)] ^= b;
}

/* Put piece pc on empty square sq (8x8 geometry). */
static inline void pos_put8(Position *p, int sq, int pc) {
    pos_put8_nokey(p, sq, pc);
    p->key ^= zob_psq[pc][sq];
}

/* Remove the piece on occupied square sq (8x8 geometry); returns it. */
static inline int pos_remove8(Position *p, int sq) {
    int pc = pos_remove8_nokey(p, sq);
    p->key ^= zob_psq[pc][sq];
    return pc;
}

/* Move the piece on from to the empty square to (8x8 geometry). */
static inline void pos_move8(Position *p, int from, int to) {
    int pc = p->board[from];
    pos_move8_nokey(p, from, to);
    p->key ^= zob_psq[pc][from] ^ zob_psq[pc][to];
}

static inline void pos_put10(Position *p, int sq, int pc) {
    Bitboard128 b = sq_bb10(sq);
    p->board[sq] = (uint8_t)pc;
    p->bb.b10.type[PC_TYPE(pc)] |= b;
    p->bb.b10.color[PC_COLOR(pc)] |= b;
    p->count[pc]++;
    p->key ^= zob_psq[pc][sq];
}

static inline int pos_remove10(Position *p, int sq) {
    int pc = p->board[sq];
    Bitboard128 b = sq_bb10(sq);
    p->board[sq] = PC_EMPTY;
    p->bb.b10.type[PC_TYPE(pc)] ^= b;
    p->bb.b10.color[PC_COLOR(pc)] ^= b;
    p->count[pc]--;
    p->key ^= zob_psq[pc][sq];
    return pc;
}

static inline void pos_move10(Position *p, int from, int to) {
    int pc = p->board[from];
    Bitboard128 b = sq_bb10(from) | sq_bb10(to);
    p->board[from] = PC_EMPTY;
    p->board[to] = (uint8_t)pc;
    p->bb.b10.type[PC_TYPE(pc)] ^= b;
    p->bb.b10.color[PC_COLOR(pc)] ^= b;
    p->key ^= zob_psq[pc][from] ^ zob_psq[pc][to];
}

/* Geometry-independent forms (one predictable branch). */
static inline void pos_put(Position *p, int sq, int pc) {
    if (p->wide) pos_put10(p, sq, pc);
    else pos_put8(p, sq, pc);
}
static inline int pos_remove(Position *p, int sq) {
    return p->wide ? pos_remove10(p, sq) : pos_remove8(p, sq);
}
static inline void pos_move(Position *p, int from, int to) {
    if (p->wide) pos_move10(p, from, to);
    else pos_move8(p, from, to);
}

/* Holdings and pool change through these so the key follows. */
static inline void pos_set_hand(Position *p, int c, int t, int n) {
    p->key ^= zob_hand[c][t][p->hand[c][t] & 7] ^ zob_hand[c][t][n & 7];
    p->hand[c][t] = (uint8_t)n;
}
static inline void pos_set_pool(Position *p, int c, int t, int n) {
    p->key ^= zob_pool[c][t][p->pool[c][t] & 15] ^ zob_pool[c][t][n & 15];
    p->pool[c][t] = (uint8_t)n;
}
static inline void pos_set_castle(Position *p, uint32_t rights) {
    uint32_t diff = p->castle ^ rights;
    while (diff) {
        int b = __builtin_ctz(diff);
        p->key ^= zob_castle[b];
        diff &= diff - 1;
    }
    p->castle = rights;
}

static inline int sq_file(const Position *p, int sq) { return sq % p->width; }
static inline int sq_rank(const Position *p, int sq) { return sq / p->width; }
static inline int sq_make(const Position *p, int f, int r) { return r * p->width + f; }

/* Clear a position to an empty board of variant v (no key, no pieces). */
void pos_clear(Position *p, const Variant *v);

/* Key of the whole state recomputed from scratch (board, side, castling, e.p. when
 * capturable, hand, pool). pos_is_consistent compares it with the incremental key. */
uint64_t pos_compute_key(const Position *p);

/* True if the side to move has an ordinary pawn that could capture on p->ep (decides
 * whether the e.p. square is part of the key). Generic over geometry. */
bool pos_ep_capturable(const Position *p);
/* Keeps the e.p. square (in the key) only if an e.p. capture is legal; see position.c. */
void pos_ep_settle(Position *p);

/* Piece definition of a piece code. */
static inline const PieceDef *pos_def(const Position *p, int pc) {
    return &p->var->pieces[PC_TYPE(pc)];
}

/* Whether square sq holds a piece of colour c with one of the flags PF_* in `flags`. */
static inline bool pos_piece_has(const Position *p, int sq, int c, uint32_t flags) {
    int pc = p->board[sq];
    return pc && PC_COLOR(pc) == c && (pos_def(p, pc)->flags & flags);
}

/* Insufficient material when each side has only its one royal piece and nothing in hand
 * (the rule of Superchess and Supremo). */
bool pos_bare_royals(const Position *p);

/* Generic UCI square text (a1..j10): writes into buf, returns length. */
int sq_to_str(const Position *p, int sq, char *buf);
/* Parses a square at s; returns characters consumed, 0 if none. */
int sq_from_str(const Position *p, const char *s, int *sq);

/* Default notation: from, to, promotion letter (lower case); drops `X@e4`. */
int move_to_str_uci(const Position *pos, Move m, char *buf);
/* Default parser: matches the text against move_to_str of every legal move. */
Move move_from_str_generic(Position *pos, const char *s, CvError *err);

/* Push a fresh undo record (copies the state that unmake restores) and return it. */
static inline Undo *pos_push(Position *p, Move m) {
    Undo *u = &p->stack[p->ply++];
    u->move = m;
    u->castle = p->castle;
    u->key = p->key;
    u->halfmove = p->halfmove;
    u->ep = p->ep;
    u->captured = 0;
    u->nvict = 0;
    u->dirty.n = 0;
    u->dirty.nhand = 0;
    return u;
}

/* Adds to the move's DirtyPiece that pc went from `from` to `to` (NO_SQ: off the board). */
static inline void dirty_add(Undo *u, int pc, int from, int to) {
    DirtyPiece *d = &u->dirty;
    d->d[d->n].pc = (uint8_t)pc;
    d->d[d->n].from = (uint8_t)from;
    d->d[d->n].to = (uint8_t)to;
    d->n++;
}

/* Sets entry i of the move's DirtyPiece (a make that knows its entries' places writes them
 * with constant indices and then the count, fewer instructions than dirty_add). */
static inline void dirty_set(Undo *u, int i, int pc, int from, int to) {
    u->dirty.d[i].pc = (uint8_t)pc;
    u->dirty.d[i].from = (uint8_t)from;
    u->dirty.d[i].to = (uint8_t)to;
}

/* Adds to the move's DirtyPiece that colour c's count of type t in the hand (DIRTY_HAND) or
 * the promotion pool (DIRTY_POOL) changed by delta. */
static inline void dirty_add_hand(Undo *u, int c, int t, int which, int delta) {
    DirtyPiece *d = &u->dirty;
    d->h[d->nhand].color = (uint8_t)c;
    d->h[d->nhand].type = (uint8_t)t;
    d->h[d->nhand].which = (uint8_t)which;
    d->h[d->nhand].delta = (int8_t)delta;
    d->nhand++;
}

#endif
