/* position.c - clearing, copying, key recomputation and the consistency check. */
#include <stdio.h>
#include <string.h>

#include "bitboard.h"
#include "position.h"

/* An empty board of variant v: no pieces, White to move, no rights. */
void pos_clear(Position *p, const Variant *v) {
    memset(p, 0, offsetof(Position, stack));
    p->var = v;
    p->width = v->width;
    p->height = v->height;
    p->nsq = (uint8_t)(v->width * v->height);
    p->wide = v->width > 8 || v->height > 8;
    p->side = WHITE;
    p->ep = NO_SQ;
    p->fullmove = 1;
}

/* Copies the current state and the used part of the undo stack. */
void pos_copy(Position *dst, const Position *src) {
    memcpy(dst, src, offsetof(Position, stack) + (size_t)src->ply * sizeof(Undo));
}

/* True if the side to move has an ordinary pawn that attacks the e.p. square. */
bool pos_ep_capturable(const Position *p) {
    if (p->ep == NO_SQ) return false;
    int f = sq_file(p, p->ep), r = sq_rank(p, p->ep);
    int pr = r + (p->side == WHITE ? -1 : 1);
    if (pr < 0 || pr >= p->height) return false;
    for (int df = -1; df <= 1; df += 2) {
        int pf = f + df;
        if (pf < 0 || pf >= p->width) continue;
        int pc = p->board[sq_make(p, pf, pr)];
        if (pc && PC_COLOR(pc) == p->side && (pos_def(p, pc)->flags & PF_PAWN)) return true;
    }
    return false;
}

/* Passes the turn: pushes an undo record for MOVE_NONE and flips the side, keeping the
 * key equal to pos_compute_key of the new state. */
void pos_make_null(Position *p) {
    Undo *u = pos_push(p, MOVE_NONE);
    u->moved = 0;
    u->nvict = 0;
    if (p->ep != NO_SQ) {
        p->key ^= zob_ep[p->ep];
        p->ep = NO_SQ;
    }
    p->halfmove = 0;
    p->side ^= 1;
    p->key ^= zob_side;
}

/* Restores the state saved by pos_make_null. */
void pos_unmake_null(Position *p) {
    const Undo *u = &p->stack[--p->ply];
    p->side ^= 1;
    p->ep = u->ep;
    p->halfmove = u->halfmove;
    p->key = u->key;
}

/* Called at the end of a make (side already flipped) and after reading a FEN: keeps the
 * e.p. square only when the side to move has a legal e.p. capture, and then puts it in the
 * key; otherwise clears it. So `ep != NO_SQ` exactly when it is in the key, and two
 * positions that differ only by an e.p. square nobody can use are the same for
 * repetition. The legal generator runs only when a pawn stands beside the square. */
void pos_ep_settle(Position *p) {
    if (p->ep == NO_SQ) return;
    bool legal = false;
    if (pos_ep_capturable(p) && p->var->ops->royal_attacked(p, p->side ^ 1)) {
        p->key ^= zob_ep[p->ep]; /* an illegal position a pseudo-legal make left, to be undone */
        return;
    }
    if (pos_ep_capturable(p)) {
        Move list[MAX_MOVES];
        bool royal = false; /* the fast generators need a royal; checker positions may lack it */
        for (int t = 1; t <= p->var->npt && !royal; t++)
            royal = (p->var->pieces[t].flags & PF_ROYAL) && p->count[PC_MAKE(p->side, t)];
        int n = royal ? p->var->ops->gen_legal(p, list) : p->var->ops->gen_reference(p, list);
        for (int i = 0; i < n && !legal; i++) legal = MOVE_KIND(list[i]) == MK_EP;
    }
    if (legal) p->key ^= zob_ep[p->ep];
    else p->ep = NO_SQ;
}

/* The key of the whole state from scratch. */
uint64_t pos_compute_key(const Position *p) {
    uint64_t k = 0;
    for (int s = 0; s < p->nsq; s++)
        if (p->board[s]) k ^= zob_psq[p->board[s]][s];
    if (p->side == BLACK) k ^= zob_side;
    for (int b = 0; b < 32; b++)
        if (p->castle & (1u << b)) k ^= zob_castle[b];
    if (p->ep != NO_SQ) k ^= zob_ep[p->ep]; /* kept only when capturable (pos_ep_settle) */
    for (int c = 0; c < 2; c++)
        for (int t = 0; t < MAX_PT; t++) {
            k ^= zob_hand[c][t][p->hand[c][t] & 7];
            k ^= zob_pool[c][t][p->pool[c][t] & 15];
        }
    return k;
}

/* Recomputes bitboards, counts and key from the mailbox and compares: the debug check
 * that tests run after every make/unmake. */
bool pos_is_consistent(const Position *p, char *why, size_t n) {
    uint8_t count[64] = {0};
    for (int s = 0; s < p->nsq; s++) {
        int pc = p->board[s];
        if (!pc) continue;
        if (PC_TYPE(pc) > p->var->npt) {
            snprintf(why, n, "square %d holds unknown piece code %d", s, pc);
            return false;
        }
        count[pc]++;
    }
    for (int s = p->nsq; s < MAX_SQ; s++)
        if (p->board[s]) {
            snprintf(why, n, "piece off the board on square %d", s);
            return false;
        }
    if (memcmp(count, p->count, sizeof count) != 0) {
        snprintf(why, n, "piece counts differ from the board");
        return false;
    }
    for (int sq = 0; sq < p->nsq; sq++) {
        int pc = p->board[sq];
        for (int t = 1; t < MAX_PT; t++) {
            bool bt = p->wide ? (p->bb.b10.type[t] >> sq) & 1 : (p->bb.b8.type[t] >> sq) & 1;
            if (bt != (pc && PC_TYPE(pc) == t)) {
                snprintf(why, n, "type bitboard %d wrong on square %d", t, sq);
                return false;
            }
        }
        for (int c = 0; c < 2; c++) {
            bool bc = p->wide ? (p->bb.b10.color[c] >> sq) & 1 : (p->bb.b8.color[c] >> sq) & 1;
            if (bc != (pc && PC_COLOR(pc) == c)) {
                snprintf(why, n, "colour bitboard %d wrong on square %d", c, sq);
                return false;
            }
        }
    }
    if (p->wide ? (p->bb.b10.type[0] != 0) : (p->bb.b8.type[0] != 0)) {
        snprintf(why, n, "type-0 bitboard is not empty");
        return false;
    }
    uint64_t k = pos_compute_key(p);
    if (k != p->key) {
        snprintf(why, n, "incremental key %016llx != recomputed %016llx",
                 (unsigned long long)p->key, (unsigned long long)k);
        return false;
    }
    return true;
}

/* Square name a1..j10. */
int sq_to_str(const Position *p, int sq, char *buf) {
    return sprintf(buf, "%c%d", 'a' + sq_file(p, sq), sq_rank(p, sq) + 1);
}

/* Parses a square name; returns the characters consumed or 0. Ranks read greedily. */
int sq_from_str(const Position *p, const char *s, int *sq) {
    if (s[0] < 'a' || s[0] >= 'a' + p->width) return 0;
    if (s[1] < '1' || s[1] > '9') return 0;
    int r = s[1] - '0', len = 2;
    if (s[2] >= '0' && s[2] <= '9' && r * 10 + (s[2] - '0') <= p->height) {
        r = r * 10 + (s[2] - '0');
        len = 3;
    }
    if (r > p->height) return 0;
    *sq = sq_make(p, s[0] - 'a', r - 1);
    return len;
}

/* Whether each side has only its one royal piece and nothing in hand. */
bool pos_bare_royals(const Position *p) {
    int pieces[2] = {0, 0}, royals[2] = {0, 0};
    for (int sq = 0; sq < p->nsq; sq++) {
        int pc = p->board[sq];
        if (!pc) continue;
        pieces[PC_COLOR(pc)]++;
        if (pos_def(p, pc)->flags & PF_ROYAL) royals[PC_COLOR(pc)]++;
    }
    for (int c = 0; c < 2; c++) {
        if (pieces[c] != 1 || royals[c] != 1) return false;
        for (int t = 1; t <= p->var->npt; t++)
            if (p->hand[c][t]) return false;
    }
    return true;
}
