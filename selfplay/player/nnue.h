/* nnue.h - evaluation networks: the input features of every variant, the network file
 * (NETWORK.md), and int16 inference with an accumulator updated incrementally from the
 * pieces a move changed. The trainer (train.h) writes the files this module reads.
 *
 * Network: features -> feature transformer (H int16 per perspective) -> the side to move's
 * half then the other's, each clipped to [0, QA] -> one linear output (int16 weights, int32
 * bias) -> centipawns for the side to move. */
#ifndef CHESSVAR_SELFPLAY_NNUE_H
#define CHESSVAR_SELFPLAY_NNUE_H

#include "../../engine/chessvar.h"

#define NNUE_MAGIC       "CVSPNNUE"
#define NNUE_VERSION     1
#define NNUE_HEADER_SIZE 64
#define NNUE_FEATURE_SET 1     /* piece-square by perspective + count-indexed holdings */
#define NNUE_MAX_HIDDEN  1024  /* H per perspective; a multiple of 16 */
#define NNUE_HOLD_K      4     /* holding features per (colour, kind, type): "holds >= k" */
#define NNUE_MAX_ACTIVE  256   /* active features of one perspective, at most */
#define NNUE_MAX_CP      20000 /* evaluations are clamped to +-this (below mate scores) */

/* Where the features of a variant live: board features first, then holdings. */
typedef struct NnueLayout {
    int width, height, nsq, npt;
    int hold_k;           /* NNUE_HOLD_K when the variant has hands or a pool, else 0 */
    int nboard;           /* npt * 2 * nsq */
    int nfeat;            /* nboard + 2 kinds * 2 colours * npt * hold_k */
    uint8_t flip[MAX_SQ]; /* the square with its rank mirrored (Black's view) */
} NnueLayout;

/* The layout of variant v. */
void nnue_layout(const Variant *v, NnueLayout *l);

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
 * holdings [colour][type] (NULL when none): the features in board order, then holdings.
 * Returns how many were written (at most NNUE_MAX_ACTIVE). */
int nnue_features(const NnueLayout *l, int persp, const uint8_t *board, const uint8_t *hand[2],
                  const uint8_t *pool[2], uint16_t *out);

/* Active features of perspective persp of a position. */
int nnue_features_pos(const NnueLayout *l, const Position *pos, int persp, uint16_t *out);

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
} NnueDims;

typedef struct Network {
    NnueDims d;
    NnueLayout l;
    int16_t *ft_w;  /* nfeat rows of hidden, row f = the weights of feature f */
    int16_t *ft_b;  /* hidden */
    int16_t *out_w; /* 2 * hidden: the side to move's half, then the other's */
    int32_t out_b;
    bool simd; /* use the AVX2 kernels (the processor has them) */
} Network;

/* Accumulator of one ply: the feature transformer's output per perspective (WHITE, BLACK)
 * and the holding counts the count features were computed from. */
typedef struct NnueAcc {
    _Alignas(64) int16_t v[2][NNUE_MAX_HIDDEN];
    uint8_t hold[2][2][MAX_PT]; /* [which][colour][type] */
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
/* The child accumulator from the parent's and what the move changed. */
void nnue_update(const Network *net, const NnueAcc *parent, NnueAcc *child, const DirtyPiece *dp);
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
void nnue_rows_avx2(int16_t *dst, const int16_t *src, const int16_t *w, int h, const uint16_t *adds,
                    int nadd, const uint16_t *subs, int nsub);
int32_t nnue_output_avx2(const int16_t *a0, const int16_t *a1, const int16_t *w, int h, int qa);

#endif
