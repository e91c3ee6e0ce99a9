/* supremo.h - internal: Supremo Superchess (10x10). The piece ids, the tables built from
 * the piece data, the helpers and operations that the three Supremo files share
 * (supremo.c: tables, make/unmake, FEN and notation, the records; supremo_gen.c: the fast
 * generator and attack test; supremo_ref.c: the reference generator), and the two attack
 * tests, so tests can compare the fast test with the literal one on any position. */
#ifndef CHESSVAR_SUPREMO_H
#define CHESSVAR_SUPREMO_H

#include "variant.h"

/* Piece type ids of Supremo Superchess. */
enum {
    SUP_PAWN = 1,
    SUP_KNIGHT,
    SUP_BISHOP,
    SUP_ROOK,
    SUP_QUEEN,
    SUP_KING,
    SUP_TERMINATOR,
    SUP_COMMANDO,
    SUP_PROTECTOR
};

/* Piece type ids of cannon10 (Supremo's generator, Fairy-Stockfish's piece set). */
enum { CAN_PAWN = 1, CAN_BISHOP, CAN_ROOK, CAN_QUEEN, CAN_KING, CAN_CANNON };

extern Variant variant_supremo;
extern Variant variant_cannon10;

/* Eight directions: 0 E, 1 N, 2 NE, 3 NW (index grows), 4 W, 5 S, 6 SW, 7 SE; d ^ 4 is the
 * opposite direction. */
static const int SUP_DF[8] = {1, 0, 1, -1, -1, 0, -1, 1};
static const int SUP_DR[8] = {0, 1, 1, 1, 0, -1, -1, -1};

#define SUP_ALL_DIRS  0xFFu
#define SUP_ORTH_DIRS 0x33u /* E N W S */
#define SUP_DIAG_DIRS 0xCCu /* NE NW SW SE */

/* Tables built once per variant from its piece data (read-only afterwards). */
typedef struct SupTables {
    u128 full; /* the 100 squares */
    u128 not_file_a, not_file_j;
    u128 last_rank[2];
    u128 kmask[MAX_SQ];      /* K-step neighbours */
    u128 box[10][MAX_SQ];    /* Chebyshev distance <= r */
    u128 ray[8][MAX_SQ];     /* squares beyond s in direction d, to the edge */
    u128 lines[MAX_SQ];      /* union of the 8 rays */
    uint8_t over[MAX_SQ][8]; /* s + d (the K-step / jumped square), NO_SQ off board */
    uint8_t land[MAX_SQ][8]; /* s + 2d (the jK landing), NO_SQ off board */
    uint32_t flags[MAX_PT];
    u128 leap_mv[MAX_PT][2][MAX_SQ];   /* unconditional leaps that may move */
    u128 leap_cp[MAX_PT][2][MAX_SQ];   /* unconditional leaps that may capture */
    u128 leap_from[MAX_PT][2][MAX_SQ]; /* squares whose piece leap-captures onto sq */
    uint8_t nslow[MAX_PT];             /* lame or conditional leaps, walked per piece */
    uint8_t slow[MAX_PT][MAX_COMP];
    uint8_t ride_mv[MAX_PT], ride_cp[MAX_PT], hop_mv[MAX_PT], hop_cp[MAX_PT];
    uint8_t ride_range[MAX_PT][8]; /* 9 = unlimited */
    uint8_t jstep_mv[MAX_PT], jstep_cp[MAX_PT];
    uint8_t dleap_mode[MAX_PT];
    u128 dleap_base[MAX_PT][MAX_SQ]; /* one leap of the double-leap family */
    uint8_t walk_range[MAX_PT], walk_mode[MAX_PT];
    uint8_t reach[MAX_PT];    /* Chebyshev radius of every non-line attack */
    uint8_t zone[MAX_PT];     /* radius of the squares whose contents such an attack
                                 depends on (0: none; leaps depend on no square) */
    uint8_t has_leap[MAX_PT]; /* any unconditional leap (skip the tables if not) */
    uint8_t npromo;           /* number of promotion choices */
    uint8_t royal_type;
    /* Types the attack test visits: with unconditional leaps, with capturing rides or hops,
     * and with any other capture (double leap, blast, walk, lame or conditional leap, jK
     * step), each in type order. */
    uint8_t n_leap_types, leap_types[MAX_PT];
    uint8_t n_line_types, line_types[MAX_PT];
    uint8_t n_near_types, near_types[MAX_PT];
    /* Types whose only moves are unconditional leaps are counted set-wise, one shift per
     * distinct leap vector: sw_n vectors (0: not this type), each a shift of the square
     * index per colour, its modality, and the squares it does not leave the board from. */
    uint8_t sw_n[MAX_PT];
    int8_t sw_shift[MAX_PT][2][16];
    uint8_t sw_mode[MAX_PT][16];
    u128 sw_src[MAX_PT][2][16];
    uint8_t by_lines[MAX_PT];   /* rides and hops by line lookup (supremo_gen.c); 2: and
                                   nothing else */
    uint8_t line_kinds[MAX_PT]; /* line kinds (bit k: lines10 kind k) it moves along */
    const uint16_t (*line_fold[MAX_PT][4])[1024]; /* per kind: line10_fold of its fields */
    /* The pieces are Supremo's own: the legal generator tests its moves and the check with
     * the lean tests of perft_supremo.c (supremo_lean_*), not make, the table-driven test
     * and unmake. */
    bool lean;
} SupTables;

/* Decides, for type t, whether its rides and hops go by line lookup, and which fields. */
void supremo_lines_prepare(SupTables *T, const Variant *v, int t);
/* Decides whether type t's moves are counted set-wise (only plain leaps), and with which
 * vectors. */
void supremo_setwise_prepare(SupTables *T, const Variant *v, int t);

/* ------------------------------------------------------------------ small helpers */

/* Bit of one square. */
static inline u128 sup_bit(int sq) { return (u128)1 << sq; }

/* Whether (f, r) lies on a width x height board. */
static inline bool sup_on(int f, int r, int w, int h) { return f >= 0 && f < w && r >= 0 && r < h; }

/* Whether the piece code pc can be captured by a piece of colour `by`. */
static inline bool sup_capturable(const Variant *v, int pc, int by) {
    return pc != PC_EMPTY && PC_COLOR(pc) != by &&
           !(v->pieces[PC_TYPE(pc)].flags & PF_UNCAPTURABLE);
}

/* Squares of the pieces, of either colour, that can never be captured. */
static inline u128 sup_uncapturable(const Position *pos, const SupTables *T) {
    u128 b = 0;
    for (int t = 1; t <= pos->var->npt; t++)
        if (T->flags[t] & PF_UNCAPTURABLE) b |= pos->bb.b10.type[t];
    return b;
}

/* The square of colour c's royal piece, or NO_SQ. */
static inline int sup_royal_sq(const Position *pos, const SupTables *T, int c) {
    u128 b = pos->bb.b10.type[T->royal_type] & pos->bb.b10.color[c];
    return b ? bb128_lsb(b) : NO_SQ;
}

/* Squares one K or jK step (over a square of occ) from any square of x, any contents, and
 * some squares off the board (above square 99), which the callers mask: the eight
 * directions in straight-line code; the diagonal steps are the horizontal ones moved a
 * rank, so only the horizontal ones need a file mask. The legal generator's step, and the
 * lean counter's without AVX2 (perft_supremo_attack.h step_any). */
static FORCE_INLINE u128 sup_step_any(const SupTables *T, u128 x, u128 occ) {
    const u128 A = T->not_file_a, J = T->not_file_j;
    const u128 e = (x << 1) & A, w = (x >> 1) & J, n = x << 10, s = x >> 10;
    const u128 ne = e << 10, nw = w << 10, se = e >> 10, sw = w >> 10;
    u128 r = e | w | n | s | ne | nw | se | sw;
    r |= (((e & occ) << 1) | ((ne & occ) << 11) | ((se & occ) >> 9)) & A;
    r |= (((w & occ) >> 1) | ((nw & occ) << 9) | ((sw & occ) >> 11)) & J;
    return r | ((n & occ) << 10) | ((s & occ) >> 10);
}

/* Larger of two ints (Chebyshev distances). */
static inline int sup_max(int a, int b) { return a > b ? a : b; }

/* Absolute value of a file or rank difference. */
static inline int sup_abs(int a) { return a < 0 ? -a : a; }

/* The symmetric images of the leap (a, b), without repeats; returns how many. */
int sup_leap_images(int a, int b, int out[8][2]);

/* ------------------------------------------------------------------ operations */

/* Plays m: removes the intermediate victim, captures on `to`, promotes, and for a
 * blasting piece removes every capturable enemy next to its landing square. */
void supremo_make(Position *pos, Move m);
/* Takes back the last move, restoring every victim from the undo record. */
void supremo_unmake(Position *pos);
/* Legal moves from the fast generator. */
int supremo_gen_legal(Position *pos, Move *list);
/* Its moves as a MoveSet (VariantOps.gen_fast_set): in the set's tail, with the check flag. */
int supremo_gen_set(Position *pos, MoveSet *ms);
/* Its moves that capture, in its order (VariantOps.gen_captures). */
int supremo_gen_captures(Position *pos, Move *list);
/* Number of legal moves (perft's last ply), counted without writing most of them. */
uint64_t supremo_count_legal(Position *pos);
/* Whether colour c's royal piece is attacked. */
bool supremo_royal_attacked(const Position *pos, int c);
/* Whether the side to move is in check. */
bool supremo_in_check(const Position *pos);
/* Legal moves by the literal walker (make, literal attack test, unmake). */
int supremo_gen_reference(Position *pos, Move *list);

/* Whether side `by` has a pseudo-legal move that captures the piece on sq (table driven). */
bool supremo_attacked_fast(const Position *pos, int sq, int by);

/* The same question answered by generating every pseudo-legal move of `by` on the
 * mailbox and looking for one that removes the piece on sq. */
bool supremo_attacked_reference(const Position *pos, int sq, int by);

/* Pseudo-legal moves of the side to move from the fast generator (deduplicated). */
int supremo_pseudo_fast(Position *pos, Move *list);

/* Pseudo-legal moves of `side` from the literal mailbox walker (deduplicated). */
int supremo_pseudo_reference(const Position *pos, int side, Move *list);

/* Whether side `by` has a pseudo-legal move that captures the piece on sq: the test of
 * perft_supremo.c written for Supremo's pieces (variants with T->lean only). */
bool supremo_lean_attacked(const Position *pos, int sq, int by);

/* Whether the side to move's pseudo-legal move m leaves its King (on k) unattacked: the
 * same test on the bitboards as they would be after m, without making it (variants with
 * T->lean only). */
bool supremo_lean_move_safe(const Position *pos, Move m, int k);

/* Which moves of the side to move the lean count (perft_supremo.c) tests, and which it
 * takes without a test, as sets: out of check (count_prepare) a move that vacates no square
 * of vac lands safely off fill (and, a Terminator, off blast); one that vacates only its
 * origin, on a King's line (not on vac_other), lands safely off fill, and where the origin
 * is in lpinned only on lallow[from]. In check (check_prepare) a move other than the King's
 * that starts off vac and passes no victim on chk_mid can be legal only landing on chk_to
 * (a Terminator: or on chk_blast). The King's moves are always tested. */
typedef struct SupRisk {
    bool check;
    u128 vac, fill, blast, vac_other, lpinned;
    u128 chk_to, chk_mid, chk_blast;
    u128 lallow[MAX_SQ]; /* written for the squares of lpinned only */
} SupRisk;

/* Fills r for the side to move of pos, its King on k, in check or not (T->lean only). */
void supremo_lean_risk(const Position *pos, int k, bool check, SupRisk *r);

/* Builds the tables of Supremo's lean perft from Supremo's own tables (perft_supremo.c). */
void supremo_perft_init(const SupTables *T);
/* Leaves of the legal-move tree of a Supremo position (Supremo's pieces only): the last
 * ply counted on the bitboards by a counter written for those pieces. */
uint64_t supremo_perft(Position *pos, int depth);

/* Builds the tables of cannon10's perft kernel (perft_cannon10.c); false when out of
 * memory. */
bool cannon10_perft_init(const SupTables *T);
/* Leaves of the legal-move tree of a cannon10 position: a lean copy-make board with a
 * legal generator written for its six pieces, bulk counting at the last ply. */
uint64_t cannon10_perft(Position *pos, int depth);

#endif
