/* nnue.h - evaluation networks: the input features of every variant, the network file
 * (NETWORK.md), and int16 inference with an accumulator updated incrementally from the
 * pieces a move changed. The trainer (train.h) writes the files this module reads.
 *
 * Network (version 1): features -> feature transformer (H int16 per perspective) -> the side
 * to move's half then the other's, each clipped to [0, QA] -> one linear output (int16
 * weights, int32 bias) -> centipawns for the side to move. Version 2 adds, each optional:
 * output buckets chosen by material (one output layer, or one dense stack, per bucket), a
 * dense stack 2H -> L1 -> L2 -> 1 (int8 weights, clipped ReLU), and on 8x8 king-relative
 * input buckets with the board mirrored left-right when the king is on files e-h. */
#ifndef CHESSVAR_SELFPLAY_NNUE_H
#define CHESSVAR_SELFPLAY_NNUE_H

#include "../../engine/chessvar.h"

#define NNUE_MAGIC       "CVSPNNUE"
#define NNUE_VERSION     2     /* the newest version; version 1 files are read too */
#define NNUE_HEADER_SIZE 64    /* of a version 1 file */
#define NNUE_HEADER2     128   /* of a version 2 file */
#define NNUE_FEATURE_SET 1     /* piece-square by perspective + count-indexed holdings */
#define NNUE_FEATURE_KB  2     /* set 1 once per king bucket, mirrored by the king's file */
#define NNUE_MAX_OBUCKET 16    /* output buckets */
#define NNUE_MAX_KBUCKET 16    /* king buckets */
#define NNUE_MAX_L1      64    /* first dense layer: a multiple of 4 */
#define NNUE_MAX_L2      64    /* second dense layer */
#define NNUE_STACK_QA    127   /* the stack's activation 1.0 (FT and both dense layers) */
#define NNUE_STACK_SHIFT 6     /* dense weights are round(w * 2^6), int8 */
#define NNUE_MAX_HIDDEN  1024  /* H per perspective; a multiple of 16 */
#define NNUE_HOLD_K      4     /* holding features per (colour, kind, type): "holds >= k" */
#define NNUE_MAX_ACTIVE  256   /* active features of one perspective, at most */
#define NNUE_MAX_CP      20000 /* evaluations are clamped to +-this (below mate scores) */

/* Where the features of a variant live: board features first, then holdings. */
typedef struct NnueLayout {
    int width, height, nsq, npt;
    int hold_k;            /* NNUE_HOLD_K when the variant has hands or a pool, else 0 */
    int nboard;            /* npt * 2 * nsq */
    int nfeat;             /* nboard + 2 kinds * 2 colours * npt * hold_k */
    uint8_t flip[MAX_SQ];  /* the square with its rank mirrored (Black's view) */
    int nbase;             /* features of one king bucket (nfeat without king buckets) */
    int kb_n;              /* king buckets: 0 none (version 1 features) */
    uint8_t kb_map[32];    /* bucket of the king on rank r, file f < 4: [r * 4 + f] */
    uint8_t king_type;     /* the piece type whose square chooses the bucket, 0: none can */
    uint8_t royal[MAX_PT]; /* royal piece types (not counted as material) */
} NnueLayout;

/* The layout of variant v (no king buckets). */
void nnue_layout(const Variant *v, NnueLayout *l);
/* Turns on n king buckets with this map (32 entries, each < n) on a layout whose variant
 * allows them (king_type != 0): nfeat becomes n * nbase. */
void nnue_layout_kb(NnueLayout *l, int n, const uint8_t map[32]);
/* The type king buckets follow in v: its one royal type on 8x8, else 0 (Superchess has two
 * monarchs, Supremo is 10x10: NETWORK.md). */
int nnue_king_type(const Variant *v);
/* Non-royal pieces (board and hand) of v's start position: the material count that maps
 * to the top output bucket. */
int nnue_material_max(const Variant *v);

/* King state of perspective persp with its king on sq (NO_SQ: none): the offset of its
 * bucket's features, and 7 when the board is mirrored (king on files e-h), else 0. */
static inline void nnue_king_state(const NnueLayout *l, int persp, int sq, int *base, int *mir) {
    if (sq == NO_SQ || !l->kb_n) {
        *base = 0;
        *mir = 0;
        return;
    }
    int s = persp == 0 ? sq : l->flip[sq];
    int f = s & 7, r = s >> 3;
    *mir = f >= 4 ? 7 : 0;
    *base = l->kb_map[r * 4 + (f ^ *mir)] * l->nbase;
}

/* Feature of piece pc on sq from persp under a king state (nnue_king_state). */
static inline int nnue_board_feature_kb(const NnueLayout *l, int persp, int pc, int sq, int base,
                                        int mir) {
    int rel = PC_COLOR(pc) != persp;
    int s = (persp == 0 ? sq : l->flip[sq]) ^ mir;
    return base + ((PC_TYPE(pc) - 1) * 2 + rel) * l->nsq + s;
}

/* Feature of piece code pc on square sq seen from perspective persp: piece type, colour
 * relative to persp, square with the ranks flipped for Black. */
static inline int nnue_board_feature(const NnueLayout *l, int persp, int pc, int sq) {
    int rel = PC_COLOR(pc) != persp;
    int s = persp == WHITE ? sq : l->flip[sq];
    return ((PC_TYPE(pc) - 1) * 2 + rel) * l->nsq + s;
}

/* Feature "colour c holds at least k pieces of type t" (which: 0 hand, 1 pool), k >= 1,
 * seen from persp; only when k <= hold_k. */
static inline int nnue_hold_feature(const NnueLayout *l, int persp, int c, int which, int t,
                                    int k) {
    return l->nboard + (((which * 2 + (c != persp)) * l->npt + (t - 1)) * l->hold_k + (k - 1));
}

/* Active features of perspective persp from a board of piece codes (nsq entries) and the
 * holdings [colour][type] (NULL when none): the features in board order, then holdings;
 * with king buckets, those of the bucket of persp's king on this board. Returns how many
 * were written (at most NNUE_MAX_ACTIVE). */
int nnue_features(const NnueLayout *l, int persp, const uint8_t *board, const uint8_t *hand[2],
                  const uint8_t *pool[2], uint16_t *out);

/* Active features of perspective persp of a position. */
int nnue_features_pos(const NnueLayout *l, const Position *pos, int persp, uint16_t *out);

/* Material of a board and hands: pieces that are not royal, on the board and in hand. */
int nnue_material(const NnueLayout *l, const uint8_t *board, const uint8_t *hand[2]);

/* The quantised network's dimensions and scales, as in the file header. */
typedef struct NnueDims {
    char variant[16];
    uint8_t width, height, npt, hold_k;
    uint16_t feature_set;
    uint16_t hidden;
    uint32_t nfeat;
    uint16_t qa;    /* feature transformer scale: an activation of 1.0 is qa */
    uint16_t qb;    /* output weight scale */
    uint16_t scale; /* centipawns per unit of the float output */
    /* version 2 (a version 1 file reads as 1 bucket, no stack, no king buckets) */
    uint16_t version;
    uint8_t obuckets; /* output buckets, 1..NNUE_MAX_OBUCKET */
    uint8_t
        mat_max; /* material count of the start: bucket = min(n * obuckets / (mat_max + 1), top) */
    uint16_t l1, l2;    /* dense stack 2H -> l1 -> l2 -> 1; 0, 0: one linear output */
    uint8_t kbuckets;   /* king buckets, 0: none */
    uint8_t kb_map[32]; /* as NnueLayout.kb_map */
} NnueDims;

typedef struct Network {
    NnueDims d;
    NnueLayout l;
    int16_t *ft_w; /* nfeat rows of hidden, row f = the weights of feature f */
    int16_t *ft_b; /* hidden */
    /* per output bucket b: without a stack out_w + b * 2 * hidden (the side to move's half,
     * then the other's); with one, out_w + b * l2 */
    int16_t *out_w;
    int32_t out_b[NNUE_MAX_OBUCKET];
    int8_t *l1_w;           /* bucket b, output j: l1_w + (b * l1 + j) * 2 * hidden */
    int32_t *l1_b;          /* b * l1 + j */
    int8_t *l2_w;           /* bucket b, output k: l2_w + (b * l2 + k) * l1 */
    int32_t *l2_b;          /* b * l2 + k */
    uint8_t bucket_of[256]; /* output bucket of a material count */
    bool simd;              /* use the AVX2 kernels (the processor has them) */
    bool vnni; /* and the VNNI one for the stack's first layer (the processor has it) */
} Network;

/* Accumulator of one ply: the feature transformer's output per perspective (WHITE, BLACK)
 * and what its features were computed from: holding counts, material count, each
 * perspective's king state (with king buckets). */
typedef struct NnueAcc {
    _Alignas(64) int16_t v[2][NNUE_MAX_HIDDEN];
    uint8_t hold[2][2][MAX_PT]; /* [which][colour][type] */
    int16_t material;           /* nnue_material (output buckets) */
    uint16_t kbase[2];          /* nnue_king_state per perspective (king buckets) */
    uint8_t kmir[2];
} NnueAcc;

/* Loads and validates a network file for variant v: NULL with err filled (one line naming
 * the file and the problem: magic, version, variant, board size, features, truncated, checksum). */
Network *nnue_load(const char *path, const Variant *v, CvError *err);
/* Checks and parses a network held in memory (as nnue_load after reading the file); name
 * is what the errors call it. */
Network *nnue_parse(const uint8_t *buf, size_t len, const char *name, const Variant *v,
                    CvError *err);
void nnue_free(Network *net);

/* The file image of a network: header, payload, checksum; *len set. The caller frees it. */
uint8_t *nnue_serialise(const Network *net, size_t *len);

/* Allocates a network of these dimensions with zero weights (for the trainer's output). */
Network *nnue_alloc(const NnueDims *d, const Variant *v);

/* The accumulator computed from scratch. */
void nnue_refresh(const Network *net, const Position *pos, NnueAcc *acc);
/* The child accumulator from the parent's and what the move changed. Returns the
 * perspectives (bit 1 << colour) left stale because their king moved to another bucket or
 * mirror (king buckets): only nnue_refresh_side from the child's position gives those;
 * 0 when the child is complete (always for networks without king buckets). */
int nnue_update(const Network *net, const NnueAcc *parent, NnueAcc *child, const DirtyPiece *dp);
/* Perspective persp of acc computed from scratch (its half and king state only). */
void nnue_refresh_side(const Network *net, const Position *pos, NnueAcc *acc, int persp);

/* Accumulator cache of a network with king buckets (Stockfish's "Finny table"): per
 * perspective, king bucket and mirror, the half it last computed there and the pieces it
 * computed it from, so a refresh adds and removes only the pieces that differ. One per
 * search thread (an Evaluator). */
typedef struct NnueCacheEntry {
    _Alignas(64) int16_t v[NNUE_MAX_HIDDEN];
    Bitboard bb[2][MAX_PT]; /* [colour][type] */
} NnueCacheEntry;

/* The cache of net (2 x king buckets x 2 entries, each the biases of an empty board), or
 * NULL when net has no king buckets (or variant holdings) or out of memory. free() it. */
NnueCacheEntry *nnue_cache_new(const Network *net);
/* nnue_refresh_side and nnue_refresh through the cache (the same values). */
void nnue_refresh_side_cached(const Network *net, const Position *pos, NnueAcc *acc, int persp,
                              NnueCacheEntry *cache);
void nnue_refresh_cached(const Network *net, const Position *pos, NnueAcc *acc,
                         NnueCacheEntry *cache);
/* The evaluation in centipawns for the side to move of pos. */
int nnue_evaluate(const Network *net, const NnueAcc *acc, const Position *pos);
/* The same for side to move stm (no position needed). */
int nnue_evaluate_side(const Network *net, const NnueAcc *acc, int stm);

/* Kernels, exposed for the test that the AVX2 and portable paths agree: dst = src + the
 * rows of adds - the rows of subs (n entries of h int16); and the output layer's sum. */
void nnue_rows_portable(int16_t *dst, const int16_t *src, const int16_t *w, int h,
                        const uint16_t *adds, int nadd, const uint16_t *subs, int nsub);
int32_t nnue_output_portable(const int16_t *a0, const int16_t *a1, const int16_t *w, int h, int qa);
bool nnue_have_avx2(void);
/* The dense stack's first layer: x (2h uint8 in [0, 127]) times n rows of int8 weights
 * (2h each) plus biases, into out (n int32, n a multiple of 4). */
void nnue_l1_portable(const uint8_t *x, const int8_t *w, const int32_t *b, int h2, int n,
                      int32_t *out);
void nnue_l1_avx2(const uint8_t *x, const int8_t *w, const int32_t *b, int h2, int n, int32_t *out);
bool nnue_have_vnni(void);
void nnue_l1_vnni(const uint8_t *x, const int8_t *w, const int32_t *b, int h2, int n, int32_t *out);
/* The clipped activations of both halves, side to move first, as uint8 in [0, 127]. */
void nnue_transform_portable(const int16_t *a0, const int16_t *a1, int h, uint8_t *x);
void nnue_transform_avx2(const int16_t *a0, const int16_t *a1, int h, uint8_t *x);
/* The stack of bucket b on the halves a0 (side to move), a1: the output's int32 sum
 * (units 127 * qb); simd picks the kernels: 0 portable, 1 AVX2, 2 AVX2 with the VNNI
 * first layer. */
int32_t nnue_stack_sum(const Network *net, const int16_t *a0, const int16_t *a1, int b, int simd);
void nnue_rows_avx2(int16_t *dst, const int16_t *src, const int16_t *w, int h, const uint16_t *adds,
                    int nadd, const uint16_t *subs, int nsub);
int32_t nnue_output_avx2(const int16_t *a0, const int16_t *a1, const int16_t *w, int h, int qa);

#endif
