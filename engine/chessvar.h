/* chessvar.h - the one public header of the chessvar engine library.
 *
 * Front ends (bench/, selfplay/) include only this file. It describes pieces as data,
 * variants as immutable records, the position with its undo stack, and the calls that
 * generate, make and unmake moves, read and write FEN and move notation, and count perft.
 *
 * Call engine_init() before any thread starts (a second call does nothing). A variant's
 * own tables are built when it is first looked up (variant_at, variant_by_name): once,
 * under a lock, so threads may look variants up at any time. A record returned by a lookup
 * is complete, and it and its tables stay read-only from then on: any number of threads
 * may each use their own Position, of any variant. */
#ifndef CHESSVAR_H
#define CHESSVAR_H

#include "types.h"

/* ---------------------------------------------------------------- pieces as data */

/* Kinds of movement component. Vectors are (df, dr) in White's view; a piece with
 * PF_ORIENTED has dr negated for Black. */
enum MoveCompKind {
    MC_LEAP = 0,  /* to (df, dr); the `lame` squares (relative) must be empty */
    MC_RIDE = 1,  /* slide along (df, dr) up to `range` steps (0 = to the edge) */
    MC_HOP = 2,   /* cannon: along (df, dr) over exactly one screen, to any empty square
                     beyond it up to and including the first piece beyond (capture) */
    MC_JSTEP = 3, /* jumping king step: over an occupied s+d to s+2d */
    MC_DLEAP = 4, /* two successive knight leaps; may capture on both landings */
    MC_WALK = 5   /* exactly `range` K/jK steps over the changing board */
};

/* Modality: what a component may do at its destination. */
enum { MM_MOVE = 1, MM_CAPTURE = 2, MM_BOTH = 3 };

/* Extra condition on a component. */
enum {
    MCOND_NONE = 0,
    MCOND_START_RANK = 1, /* only from the side's pawn start rank (ordinary double step) */
    MCOND_FIRST_TWO = 2   /* only from the side's first or second rank (Switching pawns) */
};

typedef struct MoveComp {
    uint8_t kind;  /* MC_* */
    uint8_t mode;  /* MM_* */
    int8_t df, dr; /* vector, White's view */
    uint8_t range; /* rides: max steps (0 = unlimited); walks: number of steps */
    uint8_t cond;  /* MCOND_* */
    uint8_t nlame; /* number of squares that must be empty */
    int8_t lame[3][2];
} MoveComp;

/* Piece flags. */
enum {
    PF_ROYAL = 1u << 0,        /* its capture (attack) decides check; never captured */
    PF_PAWN = 1u << 1,         /* ordinary pawn: double step makes an e.p. square, takes e.p. */
    PF_PROMOTES = 1u << 2,     /* must promote on its last rank */
    PF_NO_CAPTURE = 1u << 3,   /* never captures, attacks nothing */
    PF_UNCAPTURABLE = 1u << 4, /* nothing can capture it */
    PF_FREEZES = 1u << 5,      /* adjacent enemies are frozen */
    PF_PACIFIES = 1u << 6,     /* adjacent enemies are neutralised */
    PF_IMMUNE_ZONE = 1u << 7,  /* immune on its embassy squares */
    PF_DROPPABLE = 1u << 8,    /* may be held in hand and dropped */
    PF_ORIENTED = 1u << 9,     /* vectors flip for Black (pawn pieces) */
    PF_CASTLE_ROOK = 1u << 10, /* the rook partner of castling */
    PF_BLAST = 1u << 11,       /* removes capturable enemies adjacent to its landing */
    PF_PAWN_PIECE = 1u << 12   /* counts as a pawn move for the 50-move rule */
};

#define MAX_COMP 40

struct PieceDef {
    char letter; /* FEN letter, upper case */
    const char *name;
    uint32_t flags; /* PF_* */
    int value;      /* centipawns, for evaluation */
    uint8_t ncomp;
    MoveComp comp[MAX_COMP];
};

/* ---------------------------------------------------------------- variants */

enum {
    RULE_CASTLING = 1u << 0,
    RULE_EP = 1u << 1,
    RULE_SWITCH = 1u << 2,
    RULE_DROPS = 1u << 3,
    RULE_POOL = 1u << 4,
    RULE_PAWN_FIRST_RANK = 1u << 5 /* a pawn on its own first rank is legal input */
};

typedef struct NamedStart {
    const char *name;
    const char *fen;
    bool playable; /* a game may start here (else the position is for reference only) */
} NamedStart;

/* A position's legal moves kept lazily (VariantOps.gen_fast_set): groups of destinations
 * (a piece's targets, a set of pawn pushes or captures, a single move), then a tail of
 * moves written one by one. A group's moves go destination by destination, lowest square
 * first, and with mult 4 each destination's promotions queen, rook, bishop, knight:
 *
 *   group i = { to[i] (destination squares), start[i] (the moves of the groups before
 *               it), and in how[i] (MOVESET_HOW): from (or NO_SQ: each destination
 *               minus back), back, kind (MK_*), mult (1, or 4 promotions) };
 *             its moves: popcount(to[i]) * mult
 *   moves   = group 0's moves, group 1's, ..., then tail[0 .. n - ngrouped)
 * The fields are arrays of their own, so that the pick finds the group of a move from the
 * starts side by side (one vector compare) rather than walking the groups: the walk's end
 * followed the data, and its branch was mispredicted at about every pick. */
#define MOVESET_GROUPS 96 /* room for the most groups of an 8x8 orthodox position (83) */
#define MOVESET_HOW(from, back, kind, mult)                                                        \
    ((uint32_t)(from) | (uint32_t)(uint8_t)(back) << 8 | (uint32_t)(kind) << 16 |                  \
     (uint32_t)(mult) << 24)
typedef struct MoveSet {
    int n;        /* every move */
    int ngroup;   /* groups */
    int ngrouped; /* moves in the groups; tail holds the rest */
    int check;    /* whether the side to move is in check: 1 or 0, or -1 when not known */
    uint16_t start[MOVESET_GROUPS];
    uint64_t to[MOVESET_GROUPS];
    uint32_t how[MOVESET_GROUPS]; /* one store a group: its other fields are mostly constants */
    Move tail[MAX_MOVES];
} MoveSet;

/* Per-variant behaviour. The fast and the reference generators return legal moves only. */
struct VariantOps {
    void (*init)(Variant *v); /* first lookup: build v->tables; may be NULL */
    int (*gen_legal)(Position *pos, Move *list);
    uint64_t (*count_legal)(Position *pos);          /* perft bulk count at the last ply */
    int (*gen_reference)(Position *pos, Move *list); /* slow, obviously correct */
    void (*make)(Position *pos, Move m);
    void (*unmake)(Position *pos);
    bool (*in_check)(const Position *pos);                  /* side to move's royal attacked */
    bool (*royal_attacked)(const Position *pos, int color); /* any royal of colour */
    /* FEN hooks; NULL means the orthodox behaviour. */
    bool (*fen_parse_castling)(Position *pos, const char *field, CvError *err);
    int (*fen_format_castling)(const Position *pos, char *buf);
    bool (*fen_parse_extra)(Position *pos, const char *field, CvError *err); /* 7th field or NULL */
    int (*fen_format_extra)(const Position *pos, char *buf);
    bool (*validate)(Position *pos, CvError *err);
    /* Notation: NULL means UCI long algebraic. */
    int (*move_to_str)(const Position *pos, Move m, char *buf);
    Move (*move_from_str)(Position *pos, const char *s, CvError *err);
    /* Key of a leaf reached by m, without making it (NULL: make, read, unmake). */
    uint64_t (*key_after)(const Position *pos, Move m);
    /* Perft count without hash or fingerprint on a specialised path (NULL: gen_legal,
     * make and unmake with bulk counting). Must give perft's counts exactly. */
    uint64_t (*perft)(Position *pos, int depth);
    /* Game end: whether neither side can mate any more (NULL: never by material). */
    bool (*insufficient_material)(const Position *pos);
    /* A random start drawn from `draw` (such as a prelude array) into fen (NULL: one of
     * the playable named starts, or the default start). */
    bool (*random_start)(const Variant *v, uint64_t draw, char *fen, size_t n, CvError *err);
    /* Static exchange test for a search (NULL: the variant has none): whether the exchange
     * m starts on its target square gains the mover at least threshold, pieces priced by
     * value[type]. */
    bool (*see_ge)(const Position *pos, Move m, int threshold, const int *value);
    /* Legal moves that capture (e.p. included; promotions only when they capture): exactly
     * the capturing moves of gen_legal, for a quiescence search (NULL: none). */
    int (*gen_captures)(Position *pos, Move *list);
    /* Legal moves on a faster specialised path: exactly gen_legal's set, in an order of its
     * own (NULL: gen_legal), for readers that need the moves but not gen_legal's order
     * (the chain format from version 4). */
    int (*gen_fast)(Position *pos, Move *list);
    /* gen_fast's moves as a MoveSet: the same moves in the same order, most of them kept as
     * groups of destinations that moveset_pick expands one at a time (NULL: gen_fast's
     * list in the set's tail), for readers that need the count but only one or two moves. */
    int (*gen_fast_set)(Position *pos, MoveSet *ms);
};

struct Variant {
    const char *name; /* command-line name, e.g. "chess" */
    const char *title;
    uint8_t width, height;
    uint8_t npt;                /* piece types are 1..npt */
    uint32_t rules;             /* RULE_* */
    PieceDef pieces[MAX_PT];    /* index = type id; [0] unused */
    int8_t type_of_letter[128]; /* filled at the first lookup */
    const char *start_fen;
    NamedStart starts[4];       /* optional named start positions */
    uint8_t pawn_start_rank[2]; /* rank index (0-based) of the ordinary double step */
    uint8_t promo_types[10];    /* promotion choices in notation order, 0-terminated */
    int stalemate_score;        /* per mille for the side that is stalemated: 500 draw */
    /* Endings turn on zugzwang (where stalemate scores, the side that cannot move loses
     * by it): a search should not pass (null move) with fewer than two pieces besides
     * royals and pawns. */
    bool zugzwang_prone;
    /* The pieces are exactly chess's six, types 1..6 = P N B R Q K, on 8x8: terms written
     * for them (mobility, king safety) apply. */
    bool orthodox_pieces;
    /* With orthodox_pieces: a side without pawns that is at most a minor piece ahead
     * seldom wins (KR v KB, KRN v KR) or never (a lone minor; two knights against a bare
     * king), so a search scales such scores towards the draw (chess; Switching's switches
     * are not known to leave these endings drawn). */
    bool pawnless_draws;
    /* Its start arrays come from the Superchess prelude (rules section 2): prelude_random
     * and prelude_check take it. */
    bool prelude;
    const VariantOps *ops;
    const void *tables; /* attack tables built at the first lookup; read-only after */
};

/* ---------------------------------------------------------------- position */

/* What a move changed, for evaluators that update incrementally (piece-square sums, a
 * network's accumulator) without knowing how each variant makes its moves. Every make
 * writes it into its undo record; a null move leaves it empty (n = nhand = 0).
 *
 *   d[i]: piece code pc (PC_MAKE(colour, type)) left square `from` and stands on `to`;
 *         from == NO_SQ: pc appears on `to` (a drop, the result of a promotion);
 *         to == NO_SQ: pc leaves the board from `from` (captured, blasted, a promoting pawn);
 *         both squares: pc moves (castling is two such entries, a Switching swap too).
 *   h[i]: colour's count of `type` changed by delta, in the hand (which 0, pos->hand) or in
 *         the promotion pool (which 1, pos->pool).
 *
 * The entries are a set: removing every d[i].pc from its `from` and then putting every
 * d[i].pc on its `to` turns the board before the move into the board after it, in any
 * order within each of the two steps. */
#define MAX_DIRTY 16
typedef struct DirtyPiece {
    uint8_t n;     /* entries of d used */
    uint8_t nhand; /* entries of h used */
    struct {
        uint8_t pc, from, to;
    } d[MAX_DIRTY];
    struct {
        uint8_t color, type, which;
        int8_t delta;
    } h[4];
} DirtyPiece;

enum { DIRTY_HAND = 0, DIRTY_POOL = 1 };
_Static_assert(MAX_DIRTY >= MAX_VICTIMS + 4, "room for the mover, its promotion, a capture on "
                                             "`to`, one on the way and a blast's victims");

typedef struct Undo {
    Move move;
    uint32_t castle;
    uint64_t key;
    uint16_t halfmove;
    uint8_t ep;
    uint8_t captured; /* piece removed by an ordinary capture, or 0 */
    uint8_t moved;    /* the piece that moved, before any promotion */
    uint8_t nvict;    /* extra victims of a multi-capture move (in dirty, with the rest) */
    DirtyPiece dirty; /* what the move changed (see DirtyPiece) */
    uint8_t pad[8];   /* to 96 bytes: a record's address is then a shift and an add */
} Undo;
_Static_assert(sizeof(Undo) == 96, "Undo is 96 bytes (see pad)");

/* State ordered by lifetime: everything before `stack` is the current state, so a clone
 * copies that prefix plus the used part of the stack. */
struct Position {
    const Variant *var;
    uint8_t width, height, nsq, wide; /* wide: 10x10 (128-bit bitboards) */
    uint8_t side;
    uint8_t ep; /* e.p. square or NO_SQ */
    uint16_t halfmove;
    uint32_t fullmove;
    uint32_t castle; /* castling rights, meaning per variant */
    uint64_t key;
    union {
        struct {
            Bitboard type[MAX_PT];
            Bitboard color[2];
        } b8;
        struct {
            Bitboard128 type[MAX_PT];
            Bitboard128 color[2];
        } b10;
    } bb;
    uint8_t board[MAX_SQ];
    uint8_t count[64];       /* per piece code */
    uint8_t hand[2][MAX_PT]; /* reserves (drops) */
    uint8_t pool[2][MAX_PT]; /* promotion pool */
    uint32_t vflags;         /* variant-specific (not part of identity) */
    int ply;                 /* height of the undo stack */
    Undo stack[MAX_GAME_PLY];
};

/* ---------------------------------------------------------------- API */

/* Builds the tables every variant shares (keys, geometry); once, however often called. */
void engine_init(void);

int variant_count(void);
/* The registry: a variant's tables are built when it is first looked up here. */
const Variant *variant_at(int i);
const Variant *variant_by_name(const char *name);
const char *variant_name_at(int i); /* for listings: builds nothing */
/* FEN of a named start ("p0", "p1", ...) or the default when name is NULL; NULL if unknown. */
const char *variant_start(const Variant *v, const char *name);
/* The FEN of a random start for a game, chosen by `draw` as the variant's rules say (its
 * random_start hook, else one of its playable named starts, else its default start);
 * false with err filled when none can be made. */
bool variant_random_start(const Variant *v, uint64_t draw, char *fen, size_t n, CvError *err);

bool pos_from_fen(Position *pos, const Variant *v, const char *fen, CvError *err);
int pos_to_fen(const Position *pos, char *buf, size_t n);
void pos_copy(Position *dst, const Position *src);
bool pos_is_consistent(const Position *pos, char *why, size_t n);
uint64_t pos_compute_key(const Position *pos);

int move_to_str(const Position *pos, Move m, char *buf);        /* buf >= 16 */
Move move_from_str(Position *pos, const char *s, CvError *err); /* MOVE_NONE on error */
/* Standard Algebraic Notation (engine/san.c: the variants' drops, switches, castlings and
 * intermediate captures are described there). move_to_san writes m, legal in pos, with the
 * least disambiguation and a + or # suffix (pos is made and unmade, then as before);
 * move_from_san reads SAN, the usual variations of it (suffixes, annotations, 0-0, missing
 * or extra disambiguation, =Q or Q, long algebraic) or chessvar's own notation, and
 * returns MOVE_NONE with err naming the token when no legal move or more than one fits. */
#define MOVE_SAN_SIZE 48
int move_to_san(Position *pos, Move m, char *buf); /* buf >= MOVE_SAN_SIZE */
Move move_from_san(Position *pos, const char *s, CvError *err);
/* qsort order of moves by their encoding: sorted lists compare as sets, duplicates meet. */
int move_cmp(const void *a, const void *b);

static inline int pos_legal_moves(Position *pos, Move *list) {
    return pos->var->ops->gen_legal(pos, list);
}
/* The legal moves in the order of the variant's fastest generator (VariantOps.gen_fast). */
static inline int pos_legal_moves_fast(Position *pos, Move *list) {
    const VariantOps *ops = pos->var->ops;
    return ops->gen_fast ? ops->gen_fast(pos, list) : ops->gen_legal(pos, list);
}
/* gen_fast's moves as a MoveSet (VariantOps.gen_fast_set, or gen_fast's list in its tail);
 * returns their number. */
static inline int pos_legal_moves_set(Position *pos, MoveSet *ms) {
    const VariantOps *ops = pos->var->ops;
    if (ops->gen_fast_set) return ops->gen_fast_set(pos, ms);
    ms->ngroup = ms->ngrouped = 0;
    ms->check = -1;
    return ms->n = pos_legal_moves_fast(pos, ms->tail);
}
/* The k-th move (0 <= k < ms->n) of a MoveSet: the k-th of the list gen_fast writes. */
Move moveset_pick(const MoveSet *ms, int k);
/* moveset_pick by the paths of a build without AVX2 and BMI2 (a walk to the move's group, a
 * loop to its square), in any build: tests check that the two paths agree. */
Move moveset_pick_portable(const MoveSet *ms, int k);
static inline int pos_reference_moves(Position *pos, Move *list) {
    return pos->var->ops->gen_reference(pos, list);
}
/* The key pos would have after the ordinary move m, roughly (see zobrist.c): for prefetching. */
uint64_t pos_key_after(const Position *pos, Move m);
static inline void pos_make(Position *pos, Move m) { pos->var->ops->make(pos, m); }
static inline void pos_unmake(Position *pos) { pos->var->ops->unmake(pos); }
/* What the last move made (pos_make or pos_make_null) changed, for incremental evaluators:
 * its undo record's DirtyPiece, valid until that move is unmade; NULL before any move. */
static inline const DirtyPiece *pos_last_dirty(const Position *pos) {
    return pos->ply > 0 ? &pos->stack[pos->ply - 1].dirty : NULL;
}
/* Passes the turn (a search's null move): side flipped, e.p. square cleared, halfmove
 * clock reset so repetition scans stop here. Only for searches; never when in check. */
void pos_make_null(Position *pos);
/* Takes back pos_make_null. */
void pos_unmake_null(Position *pos);
static inline bool pos_in_check(const Position *pos) { return pos->var->ops->in_check(pos); }
/* Legal captures into list (VariantOps.gen_captures), or -1 where the variant has no such
 * generator. */
static inline int pos_legal_captures(Position *pos, Move *list) {
    return pos->var->ops->gen_captures ? pos->var->ops->gen_captures(pos, list) : -1;
}
/* Whether the variant has a static exchange test (VariantOps.see_ge). */
static inline bool pos_has_see(const Position *pos) { return pos->var->ops->see_ge != NULL; }
/* The static exchange test of m against threshold; only where pos_has_see. */
static inline bool pos_see_ge(const Position *pos, Move m, int threshold, const int *value) {
    return pos->var->ops->see_ge(pos, m, threshold, value);
}
/* Attack sets of the orthodox pieces on the 8x8 board with occupancy occ, for
 * evaluation terms outside the engine (mobility, king safety). */
Bitboard cv_knight_att8(int sq);
Bitboard cv_king_att8(int sq);
Bitboard cv_bishop_att8(int sq, Bitboard occ);
Bitboard cv_rook_att8(int sq, Bitboard occ);
/* Orthodox chess's moves as chain version 6 indexes them (selfplay/FORMAT.md): the legal
 * generator's without its pin and king-safety tests, as a MoveSet with the check flag;
 * and whether one of those moves is legal (only a pinned piece's move, a king's step or
 * castling, and e.p. can leave the king attacked: the others are not tested). */
int chess_gen_pseudo_set(Position *pos, MoveSet *ms);
bool chess_pseudo_is_legal(const Position *pos, Move m);
/* moveset_pick of chess_gen_pseudo_set's set when the move is legal, else MOVE_NONE: the
 * decoder's pick and test in one call, the test's usual answer (not pinned) inline. */
Move chess_pseudo_pick(const Position *pos, const MoveSet *ms, int k);
/* Makes a legal move of orthodox chess as pos_make does, but without an undo record (nor
 * the DirtyPiece in it): a replay that never takes a move back (the chain decoder's), a
 * third cheaper. pos_unmake and pos_last_dirty do not see the move. */
void chess_make_replay(Position *pos, Move m);
/* Whether neither side can mate any more, by the variant's insufficient-material rule. */
static inline bool pos_insufficient_material(const Position *pos) {
    return pos->var->ops->insufficient_material && pos->var->ops->insufficient_material(pos);
}

/* The next value of a splitmix64 stream (state advanced in place): the one generator of
 * every seeded random choice in the project (preludes, games, checker, tests). */
static inline uint64_t splitmix64_next(uint64_t *state) {
    uint64_t z = (*state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/* Serial perft with bulk counting at the last ply. */
uint64_t perft(Position *pos, int depth);
/* The same count from gen_legal, make and unmake at every node (bulk counting at the last
 * ply), whatever specialised path the variant has: the yardstick for that path. */
uint64_t perft_generic(Position *pos, int depth);
/* Reference perft: the reference generator at every node (at the last ply its move count). */
uint64_t perft_reference(Position *pos, int depth);

/* ---------------------------------------------------------------- EPD suites */

#define EPD_MAX_DEPTHS 32

/* One EPD perft line: `FEN ;D1 n ;D2 n ... [;variant NAME]`. */
typedef struct EpdEntry {
    char fen[256];
    char variant[32]; /* empty: not given on the line */
    int ndepth;
    int depth[EPD_MAX_DEPTHS];
    uint64_t nodes[EPD_MAX_DEPTHS];
} EpdEntry;

/* Parses one line: 1 = an entry, 0 = blank or comment (#), -1 = malformed (err says why). */
int epd_parse_line(const char *line, EpdEntry *e, CvError *err);

/* ---------------------------------------------------------------- perft fingerprint */

/* Result of a perft: leaf count and the order-independent leaf fingerprint (the sum,
 * modulo 2^64, of XXH3-64 (seed 0) of each leaf's 8-byte little-endian Zobrist key;
 * 0 when not requested). */
typedef struct PerftResult {
    uint64_t nodes;
    uint64_t fingerprint;
} PerftResult;

/* One leaf's share of the fingerprint: XXH3-64 (seed 0) of the key's 8 little-endian bytes. */
uint64_t perft_leaf_hash(uint64_t key);

/* Reference perft with the leaf fingerprint if asked (then every leaf is visited). */
PerftResult perft_reference_fp(Position *pos, int depth, bool fingerprint);

/* ---------------------------------------------------------------- Superchess prelude */

/* Prelude parameters. Letters are upper case; each side gets the same pool. */
typedef struct PreludeParams {
    char pool[32];    /* the prelude pool per side, e.g. "EAWMFDGOHHTTTT" */
    int min, max;     /* substitutions per choosing phase; max 0: squares and pool permitting */
    char reserves[8]; /* reserves added to each side's hand, e.g. "LX"; "" for none */
} PreludeParams;

/* The defaults of the spec: pool E A W M F D G O + 2 H + 4 T, min 1, reserves L and X. */
void prelude_defaults(PreludeParams *pp);

/* Draws a random prelude array of variant v (one with v->prelude) from seed
 * (deterministic) and writes its FEN into fen. Returns false with err filled when v has no
 * prelude or the parameters are invalid or admit no array. */
bool prelude_random(const Variant *v, const PreludeParams *pp, uint64_t seed, char *fen, size_t n,
                    CvError *err);

/* Whether fen is an array of variant v the prelude with these parameters can produce; err
 * names the first rule it breaks (or that v has no prelude). */
bool prelude_check(const Variant *v, const PreludeParams *pp, const char *fen, CvError *err);

#endif
