/* record_sf.c - the training formats of the Stockfish / Fairy-Stockfish data tools: the
 * plain text format (every variant, moves in the variant's notation) and Stockfish's
 * 40-byte PackedSfenValue records (orthodox chess), which nnue-pytorch reads as .bin.
 * Layouts in FORMAT.md. */
#include <string.h>

#include "record.h"

#define SF_VALUE_MATE 32000 /* Stockfish's VALUE_MATE: mate in k plies = 32000 - k */
#define SF_VALUE_NONE 32002 /* no score: the trainers skip the position */
#define SF_RECORD     40

/* Score in the Stockfish tools' convention for the side to move: centipawns as searched,
 * mates re-based on VALUE_MATE, VALUE_NONE when the move was not searched. */
static int sf_score(const GamePly *p) {
    if (!p->best) return SF_VALUE_NONE;
    int s = p->score;
    if (s > SEARCH_MATE_BOUND) return SF_VALUE_MATE - (SEARCH_MATE - s);
    if (s < -SEARCH_MATE_BOUND) return -SF_VALUE_MATE + (SEARCH_MATE + s);
    return s;
}

/* Game result for the side to move: 1 win, 0 draw, -1 loss (a Supremo stalemate's 750
 * counts as a win, 250 as a loss). */
static int sf_result(const Game *g, int side) {
    int r = record_result_for(g->white_score, side);
    return r > 500 ? 1 : r < 500 ? -1 : 0;
}

/* The move a trainer sees: the search's best move (the first PV move, as the Stockfish
 * generators store it), the move played when nothing was searched. */
static Move sf_move(const GamePly *p) { return p->best ? p->best : p->played; }

/* Plain text: fen, move, score, ply, result and `e` lines per position. */
bool record_write_plain(FILE *f, const ShardInfo *si, Game *const *games, Position *pos,
                        CvError *err) {
    char fen[512], mv[32];
    for (uint32_t i = 0; i < si->games; i++) {
        const Game *g = games[i];
        if (!pos_from_fen(pos, si->var, g->start_fen, err)) return false;
        for (int k = 0; k < g->nply; k++) {
            const GamePly *p = &g->ply[k];
            if (p->unwritten) {
                pos_make(pos, p->played);
                continue;
            }
            pos_to_fen(pos, fen, sizeof fen);
            move_to_str(pos, sf_move(p), mv);
            fprintf(f, "fen %s\nmove %s\nscore %d\nply %d\nresult %d\ne\n", fen, mv, sf_score(p), k,
                    sf_result(g, pos->side));
            pos_make(pos, p->played);
        }
    }
    return true;
}

/* A bit writer over a zeroed buffer, least significant bit of each byte first. */
typedef struct SfBits {
    uint8_t *data;
    int cursor;
} SfBits;

/* Writes the n low bits of v, lowest first (Stockfish's BitStream::write_n_bit). */
static void sf_put(SfBits *b, unsigned v, int n) {
    for (int i = 0; i < n; i++, b->cursor++)
        if ((v >> i) & 1) b->data[b->cursor / 8] |= (uint8_t)(1u << (b->cursor & 7));
}

/* Stockfish piece type (1 pawn .. 6 king) of variant type t, by its letter. */
static int sf_type(const Variant *v, int t) {
    const char *p = strchr("PNBRQK", v->pieces[t].letter);
    return p && *p ? (int)(p - "PNBRQK") + 1 : 0;
}

/* The 32-byte packed position: side, king squares, Huffman-coded board from a8 to h1
 * without the kings, castling rights, e.p. square, rule-50 and fullmove counters. */
static void sf_pack(const Position *pos, const char *fen, uint8_t *out) {
    /* Huffman codes of empty, P, N, B, R, Q (written lowest bit first) and their lengths */
    static const uint8_t code[6] = {0, 1, 3, 5, 7, 9}, bits[6] = {1, 4, 4, 4, 4, 4};
    const Variant *v = pos->var;
    SfBits b = {out, 0};
    memset(out, 0, 32);
    sf_put(&b, pos->side, 1);
    int ksq[2] = {0, 0};
    for (int sq = 0; sq < 64; sq++)
        if (pos->board[sq] && sf_type(v, pos->board[sq] & 31) == 6) ksq[pos->board[sq] >> 5] = sq;
    sf_put(&b, (unsigned)ksq[WHITE], 6);
    sf_put(&b, (unsigned)ksq[BLACK], 6);
    for (int r = 7; r >= 0; r--)
        for (int file = 0; file < 8; file++) {
            int pc = pos->board[r * 8 + file], t = pc ? sf_type(v, pc & 31) : 0;
            if (t == 6) continue;
            sf_put(&b, code[t], bits[t]);
            if (t) sf_put(&b, (unsigned)(pc >> 5), 1);
        }
    const char *castling = strchr(fen, ' ') + 3; /* third FEN field */
    for (const char *c = "KQkq"; *c; c++) {
        const char *hit = strchr(castling, *c);
        sf_put(&b, hit && hit < strchr(castling, ' '), 1);
    }
    sf_put(&b, pos->ep != NO_SQ, 1);
    if (pos->ep != NO_SQ) sf_put(&b, pos->ep, 6);
    sf_put(&b, pos->halfmove, 6);
    sf_put(&b, pos->fullmove, 8);
    sf_put(&b, pos->fullmove >> 8, 8);
    sf_put(&b, (unsigned)pos->halfmove >> 6, 1);
}

/* A move in Stockfish's 16 bits: to (0-5), from (6-11), promotion type - knight (12-13),
 * kind (14-15: 1 promotion, 2 e.p., 3 castling as the king taking its own rook). */
static uint16_t sf_move16(const Variant *v, Move m) {
    int from = MOVE_FROM(m), to = MOVE_TO(m), flag = 0, promo = 0;
    switch (MOVE_KIND(m)) {
    case MK_EP: flag = 2; break;
    case MK_CASTLE:
        flag = 3;
        to = to > from ? from + 3 : from - 4;
        break;
    default:
        if (MOVE_PROMO(m)) {
            flag = 1;
            promo = sf_type(v, MOVE_PROMO(m)) - 2;
        }
    }
    return (uint16_t)(flag << 14 | promo << 12 | from << 6 | to);
}

/* PackedSfenValue records: packed position, score i16, move u16, game ply u16, result i8,
 * padding u8, all little-endian. */
bool record_write_sfbin(FILE *f, const ShardInfo *si, Game *const *games, Position *pos,
                        CvError *err) {
    char fen[512];
    uint8_t r[SF_RECORD];
    for (uint32_t i = 0; i < si->games; i++) {
        const Game *g = games[i];
        if (!pos_from_fen(pos, si->var, g->start_fen, err)) return false;
        for (int k = 0; k < g->nply; k++) {
            const GamePly *p = &g->ply[k];
            if (p->unwritten) {
                pos_make(pos, p->played);
                continue;
            }
            pos_to_fen(pos, fen, sizeof fen);
            sf_pack(pos, fen, r);
            int score = sf_score(p);
            uint16_t mv = sf_move16(si->var, sf_move(p));
            r[32] = (uint8_t)score;
            r[33] = (uint8_t)((unsigned)score >> 8);
            r[34] = (uint8_t)mv;
            r[35] = (uint8_t)(mv >> 8);
            r[36] = (uint8_t)k;
            r[37] = (uint8_t)(k >> 8);
            r[38] = (uint8_t)(int8_t)sf_result(g, pos->side);
            r[39] = 0;
            fwrite(r, 1, sizeof r, f);
            pos_make(pos, p->played);
        }
    }
    return true;
}
