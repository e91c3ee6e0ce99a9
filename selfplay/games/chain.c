/* chain.c - the chain codec's block calls (chain.h), which pick the coding of the block's
 * version (chain_rc.c: versions 1 and 2, chain_rans.c: versions 3 to 7), and what both codings
 * share: the payload's output and the decoder's start, record, error and end checks. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chain_internal.h"
#include "record.h"

/* Appends one byte to the payload, growing it. */
void chain_out(ChainEnc *e, uint8_t b) {
    if (e->len == e->cap) {
        size_t cap = e->cap ? 2 * e->cap : 1 << 16;
        uint8_t *o = realloc(e->out, cap);
        if (!o) {
            e->oom = true;
            return;
        }
        e->out = o;
        e->cap = cap;
    }
    e->out[e->len++] = b;
}

bool chain_enc_init(ChainEnc *e, uint32_t first_id, int version) {
    memset(e, 0, sizeof *e);
    e->version = version;
    e->prev_id = first_id - 1;
    if (version >= 3) return (e->r = chain_rans_new(false)) != NULL;
    return chain_rc_enc_init(e);
}

void chain_enc_finish(ChainEnc *e) {
    if (e->version >= 3) chain_rans_enc_finish(e);
    else chain_rc_enc_finish(e);
}

void chain_enc_free(ChainEnc *e) {
    free(e->out);
    free(e->m);
    free(e->sym);
    chain_rans_free(e->r);
    memset(e, 0, sizeof *e);
}

/* Index of m in list[0..n), or -1. */
static int chain_find(const Move *list, int n, Move m) {
    for (int i = 0; i < n; i++)
        if (list[i] == m) return i;
    return -1;
}

bool chain_enc_moves(Position *pos, int version, const Game *g, int k, Move *list, int *n, int *pi,
                     int *bi, CvError *err) {
    const GamePly *p = &g->ply[k];
    *n = chain_moves(pos, version, list);
    *pi = chain_find(list, *n, p->played);
    if (*pi < 0) {
        snprintf(err->msg, sizeof err->msg, "game %u ply %d: the move played is not legal",
                 (unsigned)g->id, k + g->ply0);
        return false;
    }
    *bi = p->best != MOVE_NONE ? chain_find(list, *n, p->best) : -1;
    if (chain_pseudo(pos->var, version)) { /* version 6's chess: among the pseudo-legal */
        MoveSet ms;                        /* on the stack, as the decoder's */
        *n = chess_gen_pseudo_set(pos, &ms);
        for (int i = 0; i < *n; i++) list[i] = moveset_pick(&ms, i);
        *pi = chain_find(list, *n, p->played);
        if (*bi >= 0) *bi = chain_find(list, *n, p->best);
    }
    return true;
}

bool chain_enc_game(ChainEnc *e, const Variant *v, const Game *g, Position *pos, CvError *err) {
    if (!pos_from_fen(pos, v, g->start_fen, err)) return false;
    bool ok =
        e->version >= 3 ? chain_rans_enc_game(e, g, pos, err) : chain_rc_enc_game(e, g, pos, err);
    if (!ok) return false;
    if (e->oom) snprintf(err->msg, sizeof err->msg, "out of memory");
    return !e->oom;
}

/* ---------------------------------------------------------------- decoder */

bool chain_dec_init(ChainDec *d, const uint8_t *payload, size_t len, uint32_t first_id,
                    int version) {
    memset(d, 0, sizeof *d);
    d->version = version;
    d->in = payload;
    d->end = payload + len;
    d->prev_id = first_id - 1;
    d->start = malloc(sizeof *d->start);
    bool ok = d->start != NULL;
    if (ok && version >= 3) {
        ok = (d->r = chain_rans_new(true)) != NULL;
        if (ok) chain_rans_dec_init(d);
    } else if (ok) {
        ok = chain_rc_dec_init(d);
    }
    if (!ok) chain_dec_free(d);
    return ok;
}

void chain_dec_free(ChainDec *d) {
    free(d->m);
    free(d->start);
    chain_rans_free(d->r);
    d->m = NULL;
    d->start = NULL;
    d->r = NULL;
}

/* Sets pos to game g's start: a copy of the last start when the FEN is the same (most
 * games of a run start alike; reading a FEN costs as much as a hundred plies' replay). */
bool chain_dec_start(ChainDec *d, const Variant *v, const Game *g, bool header_ok, Position *pos,
                     CvError *err) {
    if (!header_ok) {
        snprintf(err->msg, sizeof err->msg, "game %u: its header does not read", (unsigned)g->id);
        return false;
    }
    const char *fen = g->start_fen;
    if (d->start_fen[0] && d->start->var == v && strcmp(d->start_fen, fen) == 0) {
        pos_copy(pos, d->start);
        return true;
    }
    if (!pos_from_fen(pos, v, fen, err)) return false;
    pos_copy(d->start, pos);
    snprintf(d->start_fen, sizeof d->start_fen, "%s", fen);
    return true;
}

/* The error of a coded move the rules refuse at ply k; returns false. */
bool chain_dec_illegal(const Game *g, int k, CvError *err) {
    snprintf(err->msg, sizeof err->msg,
             "game %u ply %d: the coded move is not legal here (written under other rules?)",
             (unsigned)g->id, k + g->ply0);
    return false;
}

/* Whether the game's last position has the 16 key bits coded at its end (key16); else the
 * error of a replay under other rules. */
bool chain_dec_end(const Game *g, const Position *pos, uint32_t key16, CvError *err) {
    if (key16 == (uint32_t)(pos->key >> 48)) return true;
    snprintf(err->msg, sizeof err->msg,
             "game %u ply %d: the replay ends on another position than the one written "
             "(written under other rules?)",
             (unsigned)g->id, g->nply + g->ply0);
    return false;
}

bool chain_dec_game(ChainDec *d, const Variant *v, Game *g, Position *pos, uint8_t *rec, int rsize,
                    uint64_t *nrec, CvError *err) {
    if (d->version >= 3) return chain_rans_dec_game(d, v, g, pos, rec, rsize, nrec, err);
    return chain_rc_dec_game(d, v, g, pos, rec, rsize, nrec, err);
}
