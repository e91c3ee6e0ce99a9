/* perft_chess.c - orthodox perft on a lean copy-make board.
 *
 * A perft that only counts needs neither the Zobrist key nor the mailbox nor an undo
 * stack: each child is a copy of eight bitboards with the move applied, and the legal
 * moves are enumerated straight into the recursion (no move list, no move encoding). The
 * generator is one always-inline function instantiated per side to move, so the pawn
 * directions, promotion ranks and castling squares are constants. At the last ply the
 * moves are counted set-wise (popcount of the target sets) without being made.
 *
 * Legality as in the tuned generator: check mask, pins split into orthogonal and
 * diagonal rays (a piece pinned on one kind of ray can only move along it, and the union
 * of the rays of one kind never lets a piece leave its own ray), king steps tested with
 * the king lifted off, e.p. tested against the real occupancy. */
#include "perft_chess.h"

#include "bitboard.h"
#include "variant.h"

enum { FP = 0, FN, FB, FR, FQ, FK }; /* index of each type in FastBoard.pc: type - 1 */
#define EP_NONE 64
/* A side with at most this many pieces besides pawns and king is counted with a lookup
 * per piece: fewer instructions than the set-wise SIMD of all eight rays (see perft_chess). */
#define SPARSE 2

/* The whole state a count needs: 66 bytes, copied for every child. */
typedef struct FastBoard {
    Bitboard pc[6];  /* both colours, by type (pawn .. king) */
    Bitboard col[2]; /* by colour */
    uint8_t ep;      /* square a pawn just passed with a double step, or EP_NONE */
    uint8_t castle;  /* CASTLE_* bits */
} FastBoard;

static uint8_t castle_keep[64]; /* rights kept when a move touches the square */
static Bitboard rook_rays[64], bishop_rays[64];

#define RANK_3 0x0000000000FF0000ULL
#define RANK_6 0x0000FF0000000000ULL
#define RANK_8 0xFF00000000000000ULL

void perft_chess_init(void) {
    for (int s = 0; s < 64; s++) {
        castle_keep[s] = 0xF;
        rook_rays[s] = rook_att8(s, 0);
        bishop_rays[s] = bishop_att8(s, 0);
    }
    castle_keep[4] = (uint8_t) ~(CASTLE_WK | CASTLE_WQ) & 0xF;
    castle_keep[0] = (uint8_t)~CASTLE_WQ & 0xF;
    castle_keep[7] = (uint8_t)~CASTLE_WK & 0xF;
    castle_keep[60] = (uint8_t) ~(CASTLE_BK | CASTLE_BQ) & 0xF;
    castle_keep[56] = (uint8_t)~CASTLE_BQ & 0xF;
    castle_keep[63] = (uint8_t)~CASTLE_BK & 0xF;
}

/* Whether colour us's opponent attacks sq, given the occupancy occ. */
static FORCE_INLINE bool fb_attacked(const FastBoard *b, int sq, const int us, Bitboard occ,
                                     const bool rooks) {
    const Bitboard bN = rooks ? 0 : b->pc[FN], bB = rooks ? 0 : b->pc[FB],
                   bQ = rooks ? 0 : b->pc[FQ];
    const Bitboard opp = b->col[us ^ 1];
    if (((knight_att8[sq] & bN) | (pawn_att8[us][sq] & b->pc[FP]) | (king_att8[sq] & b->pc[FK])) &
        opp)
        return true;
    /* the slider lookups only where an enemy slider stands on a line through sq */
    const Bitboard rq = (b->pc[FR] | bQ) & opp, bq = (bB | bQ) & opp;
    return ((rook_rays[sq] & rq) && (rook_att8(sq, occ) & rq)) ||
           ((bishop_rays[sq] & bq) && (bishop_att8(sq, occ) & bq));
}

#if defined(__AVX512F__) && defined(__AVX512VPOPCNTDQ__)
#include <immintrin.h>
#define FB_SIMD 2

/* Set-wise sliders and knights, eight directions at once in the eight lanes of one
 * vector: north, east, north-east, north-west, south, west, south-west, south-east for
 * rays; knight steps +17 +15 +10 +6 -17 -15 -10 -6. In each lane the attacks of all the
 * sources are the disjoint union of each source's ray (the nearest source behind a square
 * blocks the ones further back), so the sum of popcounts of attacks & targets over the
 * lanes is the number of moves, with no loop over pieces and no branch. A step is a
 * rotation; each lane's mask clears the squares a rotation wraps onto, so the rotated
 * occluded fill (Kogge-Stone) reads as the shifted one. */
typedef __m512i V8;
#define NOT_R1  0xFFFFFFFFFFFFFF00ULL
#define NOT_R12 0xFFFFFFFFFFFF0000ULL
#define NOT_R8  0x00FFFFFFFFFFFFFFULL
#define NOT_R78 0x0000FFFFFFFFFFFFULL

/* Orthogonal sources in lanes 0-1 and 4-5, diagonal ones in 2-3 and 6-7. */
static FORCE_INLINE V8 v8_od(Bitboard orth, Bitboard diag) {
    return _mm512_mask_blend_epi64(0xCC, _mm512_set1_epi64((long long)orth),
                                   _mm512_set1_epi64((long long)diag));
}
/* Lane values (e0 .. e7). */
#define V8_OF(e0, e1, e2, e3, e4, e5, e6, e7)                                                      \
    _mm512_setr_epi64((long long)(e0), (long long)(e1), (long long)(e2), (long long)(e3),          \
                      (long long)(e4), (long long)(e5), (long long)(e6), (long long)(e7))

/* Attacks of the sliders src (per lane) over the empty squares, all eight rays. */
static FORCE_INLINE V8 v8_slide(V8 src, Bitboard empty) {
    const V8 w = V8_OF(NOT_R1, NOT_A, NOT_A & NOT_R1, NOT_H & NOT_R1, NOT_R8, NOT_H, NOT_H & NOT_R8,
                       NOT_A & NOT_R8);
    const V8 r1 = V8_OF(8, 1, 9, 7, 56, 63, 55, 57), r2 = V8_OF(16, 2, 18, 14, 48, 62, 46, 50);
    const V8 r4 = V8_OF(32, 4, 36, 28, 32, 60, 28, 36);
    V8 g = src, p = _mm512_and_si512(_mm512_set1_epi64((long long)empty), w);
    g = _mm512_or_si512(g, _mm512_and_si512(p, _mm512_rolv_epi64(g, r1)));
    p = _mm512_and_si512(p, _mm512_rolv_epi64(p, r1));
    g = _mm512_or_si512(g, _mm512_and_si512(p, _mm512_rolv_epi64(g, r2)));
    p = _mm512_and_si512(p, _mm512_rolv_epi64(p, r2));
    g = _mm512_or_si512(g, _mm512_and_si512(p, _mm512_rolv_epi64(g, r4)));
    return _mm512_and_si512(_mm512_rolv_epi64(g, r1), w);
}

/* Knight steps of the knights n, one direction per lane. */
static FORCE_INLINE V8 v8_knights(Bitboard n) {
    const V8 r = V8_OF(17, 15, 10, 6, 47, 49, 54, 58);
    const V8 w = V8_OF(NOT_A & NOT_R12, NOT_H & NOT_R12, NOT_AB & NOT_R1, NOT_GH & NOT_R1,
                       NOT_H & NOT_R78, NOT_A & NOT_R78, NOT_GH & NOT_R8, NOT_AB & NOT_R8);
    return _mm512_and_si512(_mm512_rolv_epi64(_mm512_set1_epi64((long long)n), r), w);
}

/* The squares colour them attacks, given the occupancy occ (the attacked side's king
 * lifted off by the caller). */
static FORCE_INLINE Bitboard fb_attacks_all(const FastBoard *b, const int them, Bitboard occ) {
    const Bitboard opp = b->col[them], p = b->pc[FP] & opp;
    const V8 a8 = _mm512_or_si512(
        v8_slide(v8_od((b->pc[FR] | b->pc[FQ]) & opp, (b->pc[FB] | b->pc[FQ]) & opp), ~occ),
        v8_knights(b->pc[FN] & opp));
    Bitboard a = them == WHITE ? ((p & ~FILE_A) << 7) | ((p & ~FILE_H) << 9)
                               : ((p & ~FILE_A) >> 9) | ((p & ~FILE_H) >> 7);
    return a | king_att8[bb_lsb(b->pc[FK] & opp)] | (Bitboard)_mm512_reduce_or_epi64(a8);
}

/* Moves of the knights n and of the orthogonal and diagonal sliders onto target. */
static FORCE_INLINE uint64_t fb_count_pieces(Bitboard n, Bitboard orth, Bitboard diag, Bitboard occ,
                                             Bitboard target) {
    const V8 t = _mm512_set1_epi64((long long)target);
    const V8 c = _mm512_add_epi64(
        _mm512_popcnt_epi64(_mm512_and_si512(v8_slide(v8_od(orth, diag), ~occ), t)),
        _mm512_popcnt_epi64(_mm512_and_si512(v8_knights(n), t)));
    /* each lane's count is below 256: narrowed to bytes and summed by one SAD */
    const __m128i bytes = _mm512_cvtepi64_epi8(c);
    return (uint64_t)_mm_cvtsi128_si64(_mm_sad_epu8(bytes, _mm_setzero_si128()));
}
#elif defined(__AVX2__)
#include <immintrin.h>
#define FB_SIMD 1

/* Set-wise sliders and knights, eight directions at once in two vectors of four lanes:
 * lanes of V_UP shift left (north, east, north-east, north-west; knights +17 +15 +10 +6),
 * lanes of V_DOWN right (south, west, south-west, south-east; knights -17 -15 -10 -6).
 * In each lane the attacks of all the sources are the disjoint union of each source's
 * ray (the nearest source behind a square blocks the ones further back), so the sum of
 * popcounts of attacks & targets over the lanes is the number of moves, with no loop
 * over pieces and no branch. */
typedef __m256i V4;

/* Lane values (e0, e1, e2, e3). */
static FORCE_INLINE V4 v4(uint64_t e0, uint64_t e1, uint64_t e2, uint64_t e3) {
    return _mm256_set_epi64x((long long)e3, (long long)e2, (long long)e1, (long long)e0);
}
/* Orthogonal sources in lanes 0-1, diagonal ones in lanes 2-3. */
static FORCE_INLINE V4 v4_od(Bitboard orth, Bitboard diag) {
    return _mm256_blend_epi32(_mm256_set1_epi64x((long long)orth),
                              _mm256_set1_epi64x((long long)diag), 0xF0);
}

/* Attacks of the sliders src (per lane) over the empty squares, all eight rays. */
static FORCE_INLINE void v4_slide(V4 src, Bitboard empty, V4 *up, V4 *down) {
    const V4 wu = v4(~0ULL, NOT_A, NOT_A, NOT_H), wd = v4(~0ULL, NOT_H, NOT_H, NOT_A);
    const V4 s1 = v4(8, 1, 9, 7), s2 = v4(16, 2, 18, 14), s4 = v4(32, 4, 36, 28);
    const V4 e = _mm256_set1_epi64x((long long)empty);
    V4 gu = src, pu = _mm256_and_si256(e, wu), gd = src, pd = _mm256_and_si256(e, wd);
    gu = _mm256_or_si256(gu, _mm256_and_si256(pu, _mm256_sllv_epi64(gu, s1)));
    gd = _mm256_or_si256(gd, _mm256_and_si256(pd, _mm256_srlv_epi64(gd, s1)));
    pu = _mm256_and_si256(pu, _mm256_sllv_epi64(pu, s1));
    pd = _mm256_and_si256(pd, _mm256_srlv_epi64(pd, s1));
    gu = _mm256_or_si256(gu, _mm256_and_si256(pu, _mm256_sllv_epi64(gu, s2)));
    gd = _mm256_or_si256(gd, _mm256_and_si256(pd, _mm256_srlv_epi64(gd, s2)));
    pu = _mm256_and_si256(pu, _mm256_sllv_epi64(pu, s2));
    pd = _mm256_and_si256(pd, _mm256_srlv_epi64(pd, s2));
    gu = _mm256_or_si256(gu, _mm256_and_si256(pu, _mm256_sllv_epi64(gu, s4)));
    gd = _mm256_or_si256(gd, _mm256_and_si256(pd, _mm256_srlv_epi64(gd, s4)));
    *up = _mm256_and_si256(_mm256_sllv_epi64(gu, s1), wu);
    *down = _mm256_and_si256(_mm256_srlv_epi64(gd, s1), wd);
}

/* Knight steps of the knights n, one direction per lane. */
static FORCE_INLINE void v4_knights(Bitboard n, V4 *up, V4 *down) {
    const V4 k = _mm256_set1_epi64x((long long)n), s = v4(17, 15, 10, 6);
    *up = _mm256_and_si256(_mm256_sllv_epi64(k, s), v4(NOT_A, NOT_H, NOT_AB, NOT_GH));
    *down = _mm256_and_si256(_mm256_srlv_epi64(k, s), v4(NOT_H, NOT_A, NOT_GH, NOT_AB));
}

/* Union of the four lanes. */
static FORCE_INLINE Bitboard v4_or(V4 x) {
    __m128i h = _mm_or_si128(_mm256_castsi256_si128(x), _mm256_extracti128_si256(x, 1));
    return (Bitboard)_mm_cvtsi128_si64(_mm_or_si128(h, _mm_unpackhi_epi64(h, h)));
}

/* Sum over the lanes of the popcount of each lane. */
static FORCE_INLINE uint64_t v4_popcount(V4 x) {
    const V4 lut = _mm256_setr_epi8(0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4, 0, 1, 1, 2, 1,
                                    2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4);
    const V4 low = _mm256_set1_epi8(0x0F);
    V4 c =
        _mm256_add_epi8(_mm256_shuffle_epi8(lut, _mm256_and_si256(x, low)),
                        _mm256_shuffle_epi8(lut, _mm256_and_si256(_mm256_srli_epi64(x, 4), low)));
    x = _mm256_sad_epu8(c, _mm256_setzero_si256());
    __m128i h = _mm_add_epi64(_mm256_castsi256_si128(x), _mm256_extracti128_si256(x, 1));
    return (uint64_t)_mm_cvtsi128_si64(_mm_add_epi64(h, _mm_unpackhi_epi64(h, h)));
}

/* The squares colour them attacks, given the occupancy occ (the attacked side's king
 * lifted off by the caller). */
static FORCE_INLINE Bitboard fb_attacks_all(const FastBoard *b, const int them, Bitboard occ) {
    const Bitboard opp = b->col[them], p = b->pc[FP] & opp;
    V4 su, sd, nu, nd;
    v4_slide(v4_od((b->pc[FR] | b->pc[FQ]) & opp, (b->pc[FB] | b->pc[FQ]) & opp), ~occ, &su, &sd);
    v4_knights(b->pc[FN] & opp, &nu, &nd);
    Bitboard a = them == WHITE ? ((p & ~FILE_A) << 7) | ((p & ~FILE_H) << 9)
                               : ((p & ~FILE_A) >> 9) | ((p & ~FILE_H) >> 7);
    a |= king_att8[bb_lsb(b->pc[FK] & opp)];
    return a | v4_or(_mm256_or_si256(_mm256_or_si256(su, sd), _mm256_or_si256(nu, nd)));
}

/* Moves of the knights n and of the orthogonal and diagonal sliders onto target. */
static FORCE_INLINE uint64_t fb_count_pieces(Bitboard n, Bitboard orth, Bitboard diag, Bitboard occ,
                                             Bitboard target) {
    V4 su, sd, nu, nd;
    v4_slide(v4_od(orth, diag), ~occ, &su, &sd);
    v4_knights(n, &nu, &nd);
    const V4 t = _mm256_set1_epi64x((long long)target);
    return v4_popcount(_mm256_and_si256(su, t)) + v4_popcount(_mm256_and_si256(sd, t)) +
           v4_popcount(_mm256_and_si256(nu, t)) + v4_popcount(_mm256_and_si256(nd, t));
}
#else
#define FB_SIMD 0
#endif

/* The squares of zone that colour them attacks, given the occupancy occ (sliders whose
 * rays miss the zone are not looked up). */
static FORCE_INLINE Bitboard fb_attacks_near(const FastBoard *b, const int them, Bitboard occ,
                                             Bitboard zone, const bool rooks) {
    const Bitboard bN = rooks ? 0 : b->pc[FN], bB = rooks ? 0 : b->pc[FB],
                   bQ = rooks ? 0 : b->pc[FQ];
    const Bitboard opp = b->col[them], p = b->pc[FP] & opp;
    Bitboard a = them == WHITE ? ((p & ~FILE_A) << 7) | ((p & ~FILE_H) << 9)
                               : ((p & ~FILE_A) >> 9) | ((p & ~FILE_H) >> 7);
    a |= king_att8[bb_lsb(b->pc[FK] & opp)];
    for (Bitboard x = bN & opp; x;) a |= knight_att8[bb_pop_lsb(&x)];
    for (Bitboard x = (bB | bQ) & opp; x;) {
        int s = bb_pop_lsb(&x);
        if (bishop_rays[s] & zone) a |= bishop_att8(s, occ);
    }
    for (Bitboard x = (b->pc[FR] | bQ) & opp; x;) {
        int s = bb_pop_lsb(&x);
        if (rook_rays[s] & zone) a |= rook_att8(s, occ);
    }
    return a & zone;
}

/* Child after a move or capture of a piece of index pt from `from` to `to`. */
static FORCE_INLINE void fb_move(FastBoard *c, const FastBoard *b, const int pt, int from, int to,
                                 const int us, const bool castling, const bool rooks) {
    const Bitboard fb = sq_bb8(from), tb = sq_bb8(to), nt = ~tb;
    for (int i = 0; i < 6; i++)
        c->pc[i] = rooks && (i == FN || i == FB || i == FQ) ? 0 : b->pc[i] & nt;
    c->pc[pt] ^= fb | tb;
    c->col[us] = b->col[us] ^ (fb | tb);
    c->col[us ^ 1] = b->col[us ^ 1] & nt;
    c->ep = EP_NONE;
    c->castle = castling ? b->castle & castle_keep[from] & castle_keep[to] : 0;
}

/* Child after a pawn move to the last rank, promoting to index promo. */
static FORCE_INLINE void fb_promote(FastBoard *c, const FastBoard *b, int promo, int from, int to,
                                    const int us, const bool castling, const bool rooks) {
    const Bitboard fb = sq_bb8(from), tb = sq_bb8(to), nt = ~tb;
    for (int i = 0; i < 6; i++)
        c->pc[i] = rooks && (i == FN || i == FB || i == FQ) ? 0 : b->pc[i] & nt;
    c->pc[FP] ^= fb;
    c->pc[promo] |= tb;
    c->col[us] = b->col[us] ^ (fb | tb);
    c->col[us ^ 1] = b->col[us ^ 1] & nt;
    c->ep = EP_NONE;
    c->castle = castling ? b->castle & castle_keep[to] : 0;
}

/* Child after a double step, which leaves its passed square for e.p. */
static FORCE_INLINE void fb_double(FastBoard *c, const FastBoard *b, int from, int to,
                                   const int us) {
    const Bitboard ft = sq_bb8(from) | sq_bb8(to);
    for (int i = 0; i < 6; i++) c->pc[i] = b->pc[i] ^ (i == FP ? ft : 0);
    c->col[us] = b->col[us] ^ ft;
    c->col[us ^ 1] = b->col[us ^ 1];
    c->ep = (uint8_t)((from + to) >> 1);
    c->castle = b->castle;
}

/* Child after an e.p. capture. */
static FORCE_INLINE void fb_ep(FastBoard *c, const FastBoard *b, int from, int to, const int us) {
    const Bitboard ft = sq_bb8(from) | sq_bb8(to), cap = sq_bb8(us == WHITE ? to - 8 : to + 8);
    for (int i = 0; i < 6; i++) c->pc[i] = b->pc[i] ^ (i == FP ? ft | cap : 0);
    c->col[us] = b->col[us] ^ ft;
    c->col[us ^ 1] = b->col[us ^ 1] ^ cap;
    c->ep = EP_NONE;
    c->castle = b->castle;
}

/* Child after castling: king base+4 -> kto, rook rfrom -> rto. */
static FORCE_INLINE void fb_castle(FastBoard *c, const FastBoard *b, int kto, int rfrom, int rto,
                                   const int us) {
    const int base = us == WHITE ? 0 : 56;
    const Bitboard k = sq_bb8(base + 4) | sq_bb8(kto), r = sq_bb8(rfrom) | sq_bb8(rto);
    for (int i = 0; i < 6; i++) c->pc[i] = b->pc[i] ^ (i == FK ? k : i == FR ? r : 0);
    c->col[us] = b->col[us] ^ (k | r);
    c->col[us ^ 1] = b->col[us ^ 1];
    c->ep = EP_NONE;
    c->castle = b->castle & (us == WHITE ? (CASTLE_BK | CASTLE_BQ) : (CASTLE_WK | CASTLE_WQ));
}

/* One instantiation of the generator per side to move and mode: count_w<sfx>/count_b<sfx>
 * (the number of legal moves) and node_w<sfx>/node_b<sfx> (leaves at depth >= 2), defined
 * by DEFINE_COUNTS and DEFINE_NODES after fb_gen. */
#define DECLARE_COUNTS(sfx)                                                                        \
    static uint64_t count_w##sfx(const FastBoard *b);                                              \
    static uint64_t count_b##sfx(const FastBoard *b);
#define DECLARE_NODES(sfx)                                                                         \
    static uint64_t node_w##sfx(const FastBoard *b, int depth);                                    \
    static uint64_t node_b##sfx(const FastBoard *b, int depth);
DECLARE_COUNTS()
DECLARE_NODES()
DECLARE_COUNTS(_sparse)
DECLARE_NODES(_sparse)
DECLARE_COUNTS(_rooks)
DECLARE_NODES(_rooks)
DECLARE_NODES(_c1)
DECLARE_COUNTS(_plain)
DECLARE_NODES(_plain)

/* Instantiations of the generator, chosen once per perft call (perft_chess): with
 * castling; with castling rights for one side only (the other side's counts skip the
 * castling code); without castling rights (none come back below); sparse (no castling
 * rights and few pieces), rooks-only below it. */
enum { M_CASTLE, M_CASTLE1, M_PLAIN, M_SPARSE, M_ROOKS };

/* The count below c on the instantiation of suffix sfx, by depth and side to move. */
#define CHILD_ON(sfx)                                                                              \
    do {                                                                                           \
        if (depth == 1) return side == WHITE ? count_w##sfx(c) : count_b##sfx(c);                  \
        return side == WHITE ? node_w##sfx(c, depth) : node_b##sfx(c, depth);                      \
    } while (0)
/* Leaves below child c (whose side to move is `side`) at the given depth >= 1, on the
 * instantiation of the given mode. same: the move made no piece (no promotion), so a
 * child of a rooks-only node is rooks-only without a test. */
static FORCE_INLINE uint64_t fb_child(const FastBoard *c, int depth, const int side, const int mode,
                                      const bool same) {
    if (mode >= M_SPARSE && ((mode == M_ROOKS && same) || !(c->pc[FN] | c->pc[FB] | c->pc[FQ]))) {
        CHILD_ON(_rooks);
    }
    if (mode == M_PLAIN) {
        CHILD_ON(_plain);
    }
    if (mode >= M_SPARSE) {
        CHILD_ON(_sparse);
    }
    if (mode == M_CASTLE1) {
        /* A count makes no child: without rights of its own the side to move counts as
         * in the instantiation without castling. */
        if (depth > 1) return side == WHITE ? node_w_c1(c, depth) : node_b_c1(c, depth);
        if (!(c->castle & (side == WHITE ? CASTLE_WK | CASTLE_WQ : CASTLE_BK | CASTLE_BQ)))
            return side == WHITE ? count_w_plain(c) : count_b_plain(c);
    }
    CHILD_ON();
}
#undef CHILD_ON

/* Piece moves of index pt from `from` to every square of targets: counted, or visited. */
#define VISIT(pt, from, targets)                                                                   \
    do {                                                                                           \
        Bitboard t_ = (targets);                                                                   \
        if (leaf) {                                                                                \
            n += (uint64_t)bb_popcount(t_);                                                        \
        } else {                                                                                   \
            while (t_) {                                                                           \
                FastBoard c_;                                                                      \
                fb_move(&c_, b, pt, from, bb_pop_lsb(&t_), us, castling, rooks);                   \
                n += fb_child(&c_, depth - 1, them, mode, true);                                   \
            }                                                                                      \
        }                                                                                          \
    } while (0)

/* Pawn moves onto every square of targets, from `back` squares behind (promotions x4). */
#define VISIT_PAWNS(targets, back)                                                                 \
    do {                                                                                           \
        Bitboard t_ = (targets);                                                                   \
        if (leaf) {                                                                                \
            n += (uint64_t)bb_popcount(t_ & ~last) + 4 * (uint64_t)bb_popcount(t_ & last);         \
        } else {                                                                                   \
            while (t_) {                                                                           \
                int to_ = bb_pop_lsb(&t_);                                                         \
                FastBoard c_;                                                                      \
                if (sq_bb8(to_) & last) {                                                          \
                    for (int pr_ = FQ; pr_ >= FN; pr_--) {                                         \
                        fb_promote(&c_, b, pr_, to_ - (back), to_, us, castling, rooks);           \
                        n += fb_child(&c_, depth - 1, them, mode, false);                          \
                    }                                                                              \
                } else {                                                                           \
                    fb_move(&c_, b, FP, to_ - (back), to_, us, castling, rooks);                   \
                    n += fb_child(&c_, depth - 1, them, mode, true);                               \
                }                                                                                  \
            }                                                                                      \
        }                                                                                          \
    } while (0)

/* Legal moves of side us: counted (leaf) or each followed by the count below it. sparse
 * (no castling rights, few pieces: perft_chess): no castling, and the enemy's attack map
 * and the count of the knights and sliders by a lookup per piece (fb_attacks_near,
 * bishop_att8, rook_att8) instead of set-wise SIMD. */
static FORCE_INLINE uint64_t fb_gen(const FastBoard *b, const int depth, const int us,
                                    const bool leaf, const int mode) {
    const bool sparse = mode >= M_SPARSE, castling = mode <= M_CASTLE1, rooks = mode == M_ROOKS;
    (void)sparse; /* read by the SIMD paths only (FB_SIMD) */
    const Bitboard bN = rooks ? 0 : b->pc[FN], bB = rooks ? 0 : b->pc[FB],
                   bQ = rooks ? 0 : b->pc[FQ];
    const int them = us ^ 1;
    const Bitboard own = b->col[us], opp = b->col[them], occ = own | opp;
    const Bitboard opp_rq = (b->pc[FR] | bQ) & opp, opp_bq = (bB | bQ) & opp;
    const int ksq = bb_lsb(b->pc[FK] & own);
    uint64_t n = 0;

    /* Checkers and pins from the king outwards: an enemy slider on a ray of the king
     * checks with nothing between, pins with exactly one own piece between. */
    Bitboard checkers = ((knight_att8[ksq] & bN) | (pawn_att8[us][ksq] & b->pc[FP])) & opp;
    Bitboard pin_hv = 0, pin_d = 0;
    for (Bitboard s = rook_rays[ksq] & opp_rq; s;) {
        int sq = bb_pop_lsb(&s);
        Bitboard btw = between8[ksq][sq], bl = btw & occ;
        if (!bl) checkers |= sq_bb8(sq);
        else if (!(bl & (bl - 1)) && (bl & own)) pin_hv |= btw | sq_bb8(sq);
    }
    for (Bitboard s = bishop_rays[ksq] & opp_bq; s;) {
        int sq = bb_pop_lsb(&s);
        Bitboard btw = between8[ksq][sq], bl = btw & occ;
        if (!bl) checkers |= sq_bb8(sq);
        else if (!(bl & (bl - 1)) && (bl & own)) pin_d |= btw | sq_bb8(sq);
    }

    /* King steps and castling: the squares of `zone` attacked by the enemy, with the
     * king lifted off the board (when not in check nothing attacks through the king's
     * square, so the castling squares read the same). */
    const int base = us == WHITE ? 0 : 56;
    const unsigned castle = castling ? b->castle : 0;
    const bool king_side = !checkers && (castle & (us == WHITE ? CASTLE_WK : CASTLE_BK)) &&
                           !(occ & (3ULL << (base + 5)));
    const bool queen_side = !checkers && (castle & (us == WHITE ? CASTLE_WQ : CASTLE_BQ)) &&
                            !(occ & (7ULL << (base + 1)));
    const Bitboard zone = (king_att8[ksq] & ~own) | (king_side ? 3ULL << (base + 5) : 0) |
                          (queen_side ? 3ULL << (base + 2) : 0);
    Bitboard ban = 0, kt = king_att8[ksq] & ~own;
    if (zone & (zone - 1)) {
        /* two or more squares: one attack map is cheaper than a test per square */
#if FB_SIMD
        if (!sparse) ban = fb_attacks_all(b, them, occ ^ sq_bb8(ksq)) & zone;
        else
#endif
            ban = fb_attacks_near(b, them, occ ^ sq_bb8(ksq), zone, rooks);
        kt &= ~ban;
    } else if (kt && fb_attacked(b, bb_lsb(kt), us, occ ^ sq_bb8(ksq), rooks)) {
        kt = 0;
    }
    for (; kt;) {
        int to = bb_pop_lsb(&kt);
        if (leaf) {
            n++;
        } else {
            FastBoard c;
            fb_move(&c, b, FK, ksq, to, us, castling, rooks);
            n += fb_child(&c, depth - 1, them, mode, true);
        }
    }
    if (checkers & (checkers - 1)) return n;

    const Bitboard target = ~own & (checkers ? between8[ksq][bb_lsb(checkers)] | checkers : ~0ULL);
    const Bitboard pinned = pin_hv | pin_d;

    /* Knights and sliders, queens on both kinds of line: the unpinned ones (set-wise when
     * only counted), then those pinned to a line of their kind (which move along the pin
     * rays only). */
    const Bitboard diag = (bB | bQ) & own, orth = (b->pc[FR] | bQ) & own;
#if FB_SIMD
    if (leaf && !sparse) {
        n += fb_count_pieces(bN & own & ~pinned, orth & ~pinned, diag & ~pinned, occ, target);
    } else
#endif
    {
        for (Bitboard p = bN & own & ~pinned; p;) {
            int s = bb_pop_lsb(&p);
            VISIT(FN, s, knight_att8[s] & target);
        }
        for (Bitboard p = diag & ~pinned; p;) {
            int s = bb_pop_lsb(&p);
            VISIT((bQ >> s) & 1 ? FQ : FB, s, bishop_att8(s, occ) & target);
        }
        for (Bitboard p = orth & ~pinned; p;) {
            int s = bb_pop_lsb(&p);
            VISIT((bQ >> s) & 1 ? FQ : FR, s, rook_att8(s, occ) & target);
        }
    }
    for (Bitboard p = diag & pin_d; p;) {
        int s = bb_pop_lsb(&p);
        VISIT((bQ >> s) & 1 ? FQ : FB, s, bishop_att8(s, occ) & target & pin_d);
    }
    for (Bitboard p = orth & pin_hv; p;) {
        int s = bb_pop_lsb(&p);
        VISIT((bQ >> s) & 1 ? FQ : FR, s, rook_att8(s, occ) & target & pin_hv);
    }

    /* Pawns, set-wise. A pawn pinned on a file may only push along it, one pinned on a
     * diagonal may only capture along it. */
    {
        const Bitboard pawns = b->pc[FP] & own, empty = ~occ;
        const Bitboard last = us == WHITE ? RANK_8 : RANK_1;
        const Bitboard third = us == WHITE ? RANK_3 : RANK_6;
        const Bitboard free_p = pawns & ~pinned, hv_p = pawns & pin_hv;
        const int up = us == WHITE ? 8 : -8;
        Bitboard one, one_pin, two, two_pin;
        if (us == WHITE) {
            one = (free_p << 8) & empty;
            one_pin = (hv_p << 8) & empty & pin_hv;
            two = ((one & third) << 8) & empty;
            two_pin = ((one_pin & third) << 8) & empty & pin_hv;
        } else {
            one = (free_p >> 8) & empty;
            one_pin = (hv_p >> 8) & empty & pin_hv;
            two = ((one & third) >> 8) & empty;
            two_pin = ((one_pin & third) >> 8) & empty & pin_hv;
        }
        VISIT_PAWNS((one | one_pin) & target, up);
        if (leaf) {
            n += (uint64_t)bb_popcount((two | two_pin) & target);
        } else {
            for (Bitboard t = (two | two_pin) & target; t;) {
                int to = bb_pop_lsb(&t);
                FastBoard c;
                fb_double(&c, b, to - 2 * up, to, us);
                n += fb_child(&c, depth - 1, them, mode, true);
            }
        }
        /* Captures: free pawns anywhere, diagonally pinned ones only onto their ray. */
        Bitboard capl, capr;
        const Bitboard d_p = pawns & pin_d, f_p = free_p;
        if (us == WHITE) {
            capl = ((f_p & ~FILE_A) << 7) | (((d_p & ~FILE_A) << 7) & pin_d);
            capr = ((f_p & ~FILE_H) << 9) | (((d_p & ~FILE_H) << 9) & pin_d);
        } else {
            capl = ((f_p & ~FILE_A) >> 9) | (((d_p & ~FILE_A) >> 9) & pin_d);
            capr = ((f_p & ~FILE_H) >> 7) | (((d_p & ~FILE_H) >> 7) & pin_d);
        }
        VISIT_PAWNS(capl & opp & target, us == WHITE ? 7 : -9);
        VISIT_PAWNS(capr & opp & target, us == WHITE ? 9 : -7);

        /* En passant: the king must be safe on the real occupancy after the capture. */
        if (b->ep != EP_NONE) {
            const int ep = b->ep, cap = ep - up;
            for (Bitboard from = pawn_att8[them][ep] & pawns; from;) {
                int s = bb_pop_lsb(&from);
                Bitboard occ2 = (occ ^ sq_bb8(s) ^ sq_bb8(cap)) | sq_bb8(ep);
                if ((checkers & (bN | b->pc[FP]) & ~sq_bb8(cap)) ||
                    (rook_att8(ksq, occ2) & opp_rq) || (bishop_att8(ksq, occ2) & opp_bq))
                    continue;
                if (leaf) {
                    n++;
                } else {
                    FastBoard c;
                    fb_ep(&c, b, s, ep, us);
                    n += fb_child(&c, depth - 1, them, mode, true);
                }
            }
        }
    }

    /* Castling: not out of check, through or into an attacked square. */
    if (king_side && !(ban & (3ULL << (base + 5)))) {
        if (leaf) {
            n++;
        } else {
            FastBoard c;
            fb_castle(&c, b, base + 6, base + 7, base + 5, us);
            n += fb_child(&c, depth - 1, them, mode, true);
        }
    }
    if (queen_side && !(ban & (3ULL << (base + 2)))) {
        if (leaf) {
            n++;
        } else {
            FastBoard c;
            fb_castle(&c, b, base + 2, base, base + 3, us);
            n += fb_child(&c, depth - 1, them, mode, true);
        }
    }
    return n;
}

/* The instantiations declared above: counts are kept out of line (each is called from
 * every interior node), the interior nodes are left to the compiler. */
#define DEFINE_COUNTS(sfx, mode)                                                                   \
    static __attribute__((noinline)) uint64_t count_w##sfx(const FastBoard *b) {                   \
        return fb_gen(b, 1, WHITE, true, mode);                                                    \
    }                                                                                              \
    static __attribute__((noinline)) uint64_t count_b##sfx(const FastBoard *b) {                   \
        return fb_gen(b, 1, BLACK, true, mode);                                                    \
    }
#define DEFINE_NODES(sfx, mode)                                                                    \
    static uint64_t node_w##sfx(const FastBoard *b, int depth) {                                   \
        return fb_gen(b, depth, WHITE, false, mode);                                               \
    }                                                                                              \
    static uint64_t node_b##sfx(const FastBoard *b, int depth) {                                   \
        return fb_gen(b, depth, BLACK, false, mode);                                               \
    }
DEFINE_COUNTS(, M_CASTLE)
DEFINE_NODES(, M_CASTLE)
DEFINE_COUNTS(_sparse, M_SPARSE)
DEFINE_NODES(_sparse, M_SPARSE)
DEFINE_COUNTS(_rooks, M_ROOKS)
DEFINE_NODES(_rooks, M_ROOKS)
/* With castling rights for one side only the counts are those without castling (fb_child). */
DEFINE_NODES(_c1, M_CASTLE1)
DEFINE_COUNTS(_plain, M_PLAIN)
DEFINE_NODES(_plain, M_PLAIN)

uint64_t perft_chess(Position *p, int depth) {
    if (depth <= 0) return 1;
    FastBoard b;
    for (int t = PAWN; t <= KING; t++) b.pc[t - PAWN] = p->bb.b8.type[t];
    b.col[WHITE] = p->bb.b8.color[WHITE];
    b.col[BLACK] = p->bb.b8.color[BLACK];
    b.ep = p->ep == NO_SQ ? EP_NONE : p->ep;
    b.castle = (uint8_t)(p->castle & 0xF);
    /* Sparse: no castling rights (none come back below) and at most SPARSE knights,
     * bishops, rooks and queens a side at the root (fewer below, but for promotions,
     * which only slow the sparse path down). */
    const Bitboard pieces = b.pc[FN] | b.pc[FB] | b.pc[FR] | b.pc[FQ];
    const bool sparse = !b.castle && bb_popcount(pieces & b.col[WHITE]) <= SPARSE &&
                        bb_popcount(pieces & b.col[BLACK]) <= SPARSE;
    const bool both = (b.castle & (CASTLE_WK | CASTLE_WQ)) && (b.castle & (CASTLE_BK | CASTLE_BQ));
    return fb_child(&b, depth, p->side,
                    sparse     ? M_SPARSE
                    : both     ? M_CASTLE
                    : b.castle ? M_CASTLE1
                               : M_PLAIN,
                    false);
}
