/* superchess.h - internal: Superchess with Exchess set 2 (8x8). The piece ids, the tables
 * built from the piece data, and what the Superchess files share (superchess.c: tables,
 * make/unmake, FEN hooks, the record; superchess_gen.c: status effects, the attack test
 * and the fast generator; superchess_ref.c: the reference generator; superchess_prelude.c:
 * the prelude, whose API front ends call through chessvar.h). */
#ifndef CHESSVAR_SUPERCHESS_H
#define CHESSVAR_SUPERCHESS_H

#include "variant.h"

#define BB(p) ((p)->bb.b8)

/* Piece type ids; 1..6 are the orthodox ids shared with the other 8x8 variants. */
enum {
    SC_P = 1,
    SC_N,
    SC_B,
    SC_R,
    SC_Q,
    SC_K,
    SC_E,
    SC_A,
    SC_W,
    SC_M,
    SC_F,
    SC_D,
    SC_G,
    SC_O,
    SC_H,
    SC_T,
    SC_L,
    SC_X,
    SC_NPT = SC_X
};

/* ---------------------------------------------------------------- tables */

/* A leap whose lame squares must be empty: target (or origin, in the reverse tables). */
typedef struct LameStep {
    Bitboard lame;
    uint8_t sq;
    uint8_t mode;
} LameStep;

/* Castling: one entry per token bit. */
typedef struct CastleDef {
    uint8_t color, monarch, mfrom, mto, rfrom, rto, crossed;
    Bitboard between; /* squares strictly between monarch and rook */
} CastleDef;

enum { MAX_LAME = 2 * (SC_NPT + 1) * 64 * 16 };

typedef struct ScTables {
    Bitboard leap_move[2][SC_NPT + 1][64];     /* non-lame leaps to an empty square */
    Bitboard leap_cap[2][SC_NPT + 1][64];      /* non-lame capture leaps (attacks) */
    Bitboard rev_cap[2][SC_NPT + 1][64];       /* origins whose non-lame capture hits q */
    Bitboard rev_lame_from[2][SC_NPT + 1][64]; /* origins of the reverse lame captures */
    Bitboard rev_any[2][64];                   /* union of both over the attacker types */
    uint32_t lame_at[2][SC_NPT + 1][65];       /* forward lame steps: index range */
    uint32_t rlame_at[2][SC_NPT + 1][65];      /* reverse lame captures: index range */
    LameStep lame[MAX_LAME];
    LameStep rlame[MAX_LAME];
    uint8_t orth_rider[SC_NPT + 1], diag_rider[SC_NPT + 1];
    uint8_t attackers[SC_NPT + 1]; /* types with leap captures, in order */
    int nattackers;
    /* Type sets (bit t = type t): orthogonal and diagonal riders, and from the PF_* flags
     * monarchs, freezers, pacifiers, immune-zone pieces and pieces that never capture. */
    uint32_t rook_like, bishop_like, royal, freezer, pacifier, immune, no_capture;
    CastleDef castles[8];
    uint32_t castle_clear_sq[64];              /* tokens lost when a move touches sq */
    uint32_t castle_clear_type[2][SC_NPT + 1]; /* tokens lost when this monarch moves */
} ScTables;

#define TB(p) ((const ScTables *)(p)->var->tables)

/* Vector of a component for colour c: pawn pieces turn round for Black. */
static inline int comp_dr(const PieceDef *d, int c, int dr) {
    return (d->flags & PF_ORIENTED) && c == BLACK ? -dr : dr;
}

/* Whether a (file, rank) pair lies on the 8x8 board. */
static inline bool on_board(int f, int r) { return f >= 0 && f < 8 && r >= 0 && r < 8; }

/* Whether a component's condition allows it from square s for colour c. */
static inline bool comp_cond_ok(const Variant *v, const MoveComp *mc, int c, int s) {
    if (mc->cond == MCOND_START_RANK) return s / 8 == v->pawn_start_rank[c];
    return true;
}
/* ---------------------------------------------------------------- move emission */

/* Appends a board move, expanded into one move per promotion choice when a pawn piece
 * lands on its last rank; with no choice the move is not emitted (spec 6.5). */
static inline int emit_board_move(const Position *p, Move *list, int n, int from, int to, int kind,
                                  bool promotes) {
    int us = p->side;
    if (promotes && to / 8 == (us == WHITE ? 7 : 0)) {
        for (const uint8_t *t = p->var->promo_types; *t; t++)
            if (p->pool[us][*t]) list[n++] = MOVE_MAKE(from, to, NO_SQ, *t, kind);
        if (p->hand[us][SC_X]) list[n++] = MOVE_MAKE(from, to, NO_SQ, SC_X, kind);
        return n;
    }
    list[n++] = MOVE_MAKE(from, to, NO_SQ, 0, kind);
    return n;
}

/* Plays m (board move, e.p., castling, drop, promotion); pushes what unmake restores. */
void sc_make(Position *p, Move m);
/* Takes back the last move made with sc_make. */
void sc_unmake(Position *p);
/* Whether any monarch (King or Emperor) of colour c stands on an attacked square. */
bool sc_royal_attacked(const Position *p, int c);
/* Whether the side to move is in check. */
bool sc_in_check(const Position *p);
/* Whether m (pseudo-legal) would leave a monarch of the mover attacked, without making it. */
bool sc_move_exposes(const Position *p, Move m);
/* Legal moves, fast path. */
int sc_gen_legal(Position *p, Move *list);
/* Its moves that capture, in its order (VariantOps.gen_captures). */
int sc_gen_captures(Position *p, Move *list);
/* Number of legal moves (perft's last ply). */
uint64_t sc_count_legal(Position *p);
/* Legal moves by the literal reading of the rules, status recomputed from scratch. */
int sc_gen_reference(Position *p, Move *list);

/* Builds the tables of the specialised perft path (perft_superchess.c), from sc_init. */
void perft_superchess_init(const Variant *v, const ScTables *tb);
/* Number of legal moves on the specialised path: the same count as sc_count_legal. */
uint64_t sc_count_fast(Position *p);
/* Legal moves on the specialised path: the same set as sc_gen_legal. */
int sc_gen_fast(Position *p, Move *list);
/* Its moves as a MoveSet (VariantOps.gen_fast_set): in the set's tail, with the check flag. */
int sc_gen_fast_set(Position *p, MoveSet *ms);
/* Perft on the specialised path: the same counts as perft_generic. */
uint64_t sc_perft(Position *p, int depth);

/* A random prelude array with the default parameters, drawn from `draw` (superchess_prelude.c). */
bool superchess_random_start(const Variant *v, uint64_t draw, char *fen, size_t n, CvError *err);

/* Whether the position's promotion pool equals the pool derived from the board. */
bool superchess_pool_is_derived(const Position *pos);

#endif
