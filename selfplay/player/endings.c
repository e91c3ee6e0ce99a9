/* endings.c - scale factors of chess endings (endings.h). */
#include "endings.h"

#include "sets8.h"

enum { P = 1, N = 2, B = 3, R = 4, Q = 5, K = 6 };

#define DARK_SQ   0xAA55AA55AA55AA55ULL /* a1, c1, ..., b2, ...: (file + rank) even */
#define QUEENSIDE (FILE_A_BB * 0x0F)    /* files a-d */
#define KINGSIDE  (FILE_A_BB * 0xF0)    /* files e-h */

static Bitboard pieces(const Position *pos, int c, int t) {
    return pos->bb.b8.type[t] & pos->bb.b8.color[c];
}

static int distance(int a, int b) {
    int df = (a & 7) - (b & 7), dr = (a >> 3) - (b >> 3);
    df = df < 0 ? -df : df;
    dr = dr < 0 ? -dr : dr;
    return df > dr ? df : dr;
}

/* Number of c's passed pawns. */
static int passed_pawns(const Position *pos, int c) {
    Bitboard own = pieces(pos, c, P), theirs = pieces(pos, !c, P);
    return __builtin_popcountll(c == WHITE ? passed_white(own, theirs) : passed_black(own, theirs));
}

/* The scale factor (of 64) of pos for the side strong, npm[c] the value of c's pieces
 * besides pawns and king. */
static int scale_factor(const Position *pos, const int value[MAX_PT], int strong,
                        const int npm[2]) {
    int weak = !strong;
    int minor = value[N] > value[B] ? value[N] : value[B];
    int pawns = pos->count[PC_MAKE(strong, P)];
    if (!pawns) {
        if (npm[strong] - npm[weak] <= minor)
            return npm[strong] < value[R] ? 0 : npm[weak] <= minor ? 4 : 14;
        bool two_knights = pos->count[PC_MAKE(strong, N)] == 2 && npm[strong] == 2 * value[N];
        return two_knights && npm[weak] == 0 && !pos->count[PC_MAKE(weak, P)] ? 0
                                                                              : ENDING_SCALE_NORMAL;
    }
    Bitboard sp = pieces(pos, strong, P);
    bool lone_bishop = pos->count[PC_MAKE(strong, B)] == 1 && npm[strong] == value[B];
    if (lone_bishop && npm[weak] == 0 && (!(sp & ~FILE_A_BB) || !(sp & ~FILE_H_BB))) {
        int file = sp & FILE_A_BB ? 0 : 7;
        int queen_sq = strong == WHITE ? 56 + file : file;
        bool bishop_dark = (pieces(pos, strong, B) & DARK_SQ) != 0;
        bool square_dark = ((DARK_SQ >> queen_sq) & 1) != 0;
        int king = __builtin_ctzll(pieces(pos, weak, K));
        if (bishop_dark != square_dark && distance(king, queen_sq) <= 1) return 0;
    }
    if (lone_bishop && npm[weak] == value[B] && pos->count[PC_MAKE(weak, B)] == 1) {
        bool dark_s = (pieces(pos, strong, B) & DARK_SQ) != 0;
        bool dark_w = (pieces(pos, weak, B) & DARK_SQ) != 0;
        if (dark_s != dark_w) {
            int sf = 18 + 4 * passed_pawns(pos, strong);
            return sf < ENDING_SCALE_NORMAL ? sf : ENDING_SCALE_NORMAL;
        }
    }
    int sf = 36 + 7 * pawns < ENDING_SCALE_NORMAL ? 36 + 7 * pawns : ENDING_SCALE_NORMAL;
    return sf - 4 * (!(sp & QUEENSIDE) || !(sp & KINGSIDE));
}

int ending_scale_score(const Position *pos, const int value[MAX_PT], int v) {
    if (v == 0) return 0;
    int npm[2] = {0, 0};
    for (int c = 0; c < 2; c++)
        for (int t = N; t <= Q; t++) npm[c] += pos->count[PC_MAKE(c, t)] * value[t];
    /* The phase, as Stockfish's tapered evaluation has it: 128 at the midgame limit (95%
     * of the pieces of the start) and above, 0 at the endgame limit (a quarter of that)
     * and below; the scale factor weighs only the ending's share. */
    int start = 2 * (value[Q] + 2 * (value[R] + value[B] + value[N]));
    int mg = start * 95 / 100, eg = mg / 4, total = npm[0] + npm[1];
    int phase = total >= mg ? 128 : total <= eg ? 0 : (total - eg) * 128 / (mg - eg);
    if (phase == 128) return v * (200 - pos->halfmove) / 200;
    int sf = scale_factor(pos, value, v > 0 ? pos->side : !pos->side, npm);
    return (int)((int64_t)v * (phase * ENDING_SCALE_NORMAL + (128 - phase) * sf) *
                 (200 - pos->halfmove) / (128 * ENDING_SCALE_NORMAL * 200));
}
