/* eval.c - material and piece-square evaluation for every registered variant. */
#include "eval.h"

#include "eval_params.h"
#include "sets8.h"
#include "../profile.h"

#include <stdlib.h>
#include <string.h>

/* Value of piece type t: the variant record's, 0 for royal pieces. */
static int eval_value_of(const Variant *v, int t) {
    const PieceDef *pd = &v->pieces[t];
    return pd->flags & PF_ROYAL ? 0 : pd->value;
}

/* Placement bonus of type t on square sq for White: pawns gain as they advance, royals
 * stay home, other pieces like the centre. */
static int eval_placement(const Variant *v, int t, int sq) {
    const PieceDef *pd = &v->pieces[t];
    int w = v->width, h = v->height;
    int file = sq % w, rank = sq / w;
    /* twice the distance to the centre, Chebyshev: 0 on the central squares */
    int df = 2 * file - (w - 1), dr = 2 * rank - (h - 1);
    if (df < 0) df = -df;
    if (dr < 0) dr = -dr;
    int dist = (df > dr ? df : dr) / 2;
    if (pd->flags & PF_ROYAL) return -6 * rank;
    if (pd->flags & (PF_PAWN | PF_PAWN_PIECE | PF_PROMOTES)) {
        int adv = rank - 1 < 0 ? 0 : rank - 1;
        int central = (w / 2 - 1 - (df / 2)) > 0 ? 2 : 0;
        return 6 * adv + central * (rank >= 2 && rank <= h - 3 ? 4 : 0);
    }
    return 4 * ((w > h ? w : h) / 2 - 1 - dist);
}

/* Bonus of a passed pawn by the ranks it has advanced from its start (0..6): small while
 * the pieces are on, large in the ending (as in the usual hand-made tables). */
static const int16_t PASSED_MG[8] = {0, 0, 5, 10, 20, 35, 60, 0};
static const int16_t PASSED_EG[8] = {0, 10, 15, 25, 45, 75, 120, 0};
#define DOUBLED_PAWN  12 /* per pawn behind another of its colour on its file */
#define ISOLATED_PAWN 10 /* per pawn with no pawn of its colour on an adjacent file */
#define ROYAL_EG_STEP 10 /* per ring nearer the centre, at phase 0 */

/* The phase tables and pawn-structure masks of variant v (see EvalParams). */
static void eval_init_extras(EvalParams *ep, const Variant *v) {
    int w = v->width, h = v->height;
    for (int t = 1; t <= v->npt; t++) {
        uint32_t f = v->pieces[t].flags;
        ep->phase_value[t] = f & (PF_ROYAL | PF_PAWN | PF_PAWN_PIECE) ? 0 : ep->value[t];
        if (ep->phase_value[t]) ep->phase_types |= 1u << t;
        if (f & PF_ROYAL) ep->royal_types |= 1u << t;
        if ((f & PF_PAWN) && !ep->pawn_type) ep->pawn_type = t;
    }
    Position *start = malloc(sizeof *start);
    CvError err = {{0}};
    ep->phase_full = 0;
    if (start && pos_from_fen(start, v, v->start_fen, &err)) {
        for (int t = 1; t <= v->npt; t++)
            for (int c = 0; c < 2; c++)
                ep->phase_full +=
                    (start->count[PC_MAKE(c, t)] + start->hand[c][t]) * ep->phase_value[t];
    }
    free(start);
    if (ep->phase_full <= 0) ep->phase_full = 1;
    for (int sq = 0; sq < w * h; sq++) {
        int df = 2 * (sq % w) - (w - 1), dr = 2 * (sq / w) - (h - 1);
        df = df < 0 ? -df : df;
        dr = dr < 0 ? -dr : dr;
        int ring = (df > dr ? df : dr) / 2; /* 0 on the central squares */
        ep->royal_eg[sq] = (int16_t)(ROYAL_EG_STEP * ((w > h ? w : h) / 2 - 1 - 2 * ring));
    }
    if (w != 8 || h != 8) ep->pawn_type = 0; /* pawn structure: 8x8 boards only */
    ep->orthodox = v->orthodox_pieces;       /* the activity terms of eval_orthodox apply */
    memcpy(ep->passed_mg, PASSED_MG, sizeof PASSED_MG);
    memcpy(ep->passed_eg, PASSED_EG, sizeof PASSED_EG);
}

/* An opening and an ending value in one word: mg + eg * 2^32 (mod 2^64); sums of such
 * words unpack exactly while each sum fits 32 bits (eval_linear_psq). */
static uint64_t eval_pack(int mg, int eg) {
    return (uint64_t)(int64_t)mg + ((uint64_t)(int64_t)eg << 32);
}

/* The profile's fit, when its tables are the size of v's. */
const EvalTuned *eval_tuned_find(const Variant *v) {
    const EvalTuned *t = profile_of(v)->tuned;
    return t && t->npt == v->npt && t->nsq == v->width * v->height ? t : NULL;
}

void eval_piece_values(const Variant *v, int value[MAX_PT]) {
    const EvalTuned *tp = eval_tuned_find(v);
    memset(value, 0, MAX_PT * sizeof *value);
    for (int t = 1; t <= v->npt; t++) value[t] = tp ? tp->value[t] : eval_value_of(v, t);
}

/* Builds the value and piece-square tables of variant v once, so evaluation is one table lookup per
 * piece. */
void eval_init(EvalParams *ep, const Variant *v) {
    memset(ep, 0, sizeof *ep);
    ep->var = v;
    int nsq = v->width * v->height;
    const EvalTuned *tp = eval_tuned_find(v); /* fitted to self-play data, if kept */
    ep->tempo = tp ? tp->tempo : 8;
    eval_piece_values(v, ep->value);
    for (int t = 1; t <= v->npt; t++) {
        ep->hand_value[t] = tp && tp->hand ? tp->hand[t] : ep->value[t];
        for (int sq = 0; sq < nsq; sq++) {
            int file = sq % v->width, rank = sq / v->width;
            int mirror = (v->height - 1 - rank) * v->width + file;
            int w = tp ? tp->psq[t * nsq + sq] : eval_placement(v, t, sq);
            int b = tp ? tp->psq[t * nsq + mirror] : eval_placement(v, t, mirror);
            ep->psq[PC_MAKE(WHITE, t)][sq] = (int16_t)(ep->value[t] + w);
            ep->psq[PC_MAKE(BLACK, t)][sq] = (int16_t) - (ep->value[t] + b);
            if (tp && tp->psq_eg) {
                int ve = tp->value_eg[t];
                ep->psq_pk[PC_MAKE(WHITE, t)][sq] = eval_pack(
                    ep->psq[PC_MAKE(WHITE, t)][sq], (int16_t)(ve + tp->psq_eg[t * nsq + sq]));
                ep->psq_pk[PC_MAKE(BLACK, t)][sq] =
                    eval_pack(ep->psq[PC_MAKE(BLACK, t)][sq],
                              (int16_t) - (ve + tp->psq_eg[t * nsq + mirror]));
            }
        }
    }
    ep->tapered = tp && tp->psq_eg;
    eval_init_extras(ep, v);
}

/* Adds the packed opening and ending piece-square values of the pieces on the squares of
 * b to *acc. */
static inline void eval_sum_bits2(const EvalParams *ep, const Position *pos, uint64_t b, int offset,
                                  uint64_t *acc) {
    while (b) {
        int sq = __builtin_ctzll(b) + offset;
        b &= b - 1;
        *acc += ep->psq_pk[pos->board[sq]][sq];
    }
}

/* Sum of the piece-square values of the pieces on the squares of bitboard b. */
static inline int eval_sum_bits(const EvalParams *ep, const Position *pos, uint64_t b, int offset) {
    int s = 0;
    while (b) {
        int sq = __builtin_ctzll(b) + offset;
        b &= b - 1;
        s += ep->psq[pos->board[sq]][sq];
    }
    return s;
}

/* Sum of the passed-pawn bonus of the pawns in b of colour c, blended by phase. */
static int eval_passers(const EvalParams *ep, uint64_t b, int c, int phase) {
    int s = 0;
    for (; b; b &= b - 1) {
        int r = __builtin_ctzll(b) / 8, adv = c == WHITE ? r - 1 : 6 - r;
        adv = adv < 0 ? 0 : adv;
        s += (ep->passed_mg[adv] * phase + ep->passed_eg[adv] * (256 - phase)) / 256;
    }
    return s;
}

/* Pawn structure on an 8x8 board, set-wise: passed pawns (no enemy pawn ahead on their own
 * or an adjacent file) by how far they have come, opening and ending bonus blended by
 * phase; doubled pawns (an own pawn ahead on the file) and isolated pawns (no own pawn on
 * an adjacent file); White's view. */
static int eval_pawns(const EvalParams *ep, const Position *pos, int phase) {
    uint64_t pawns = pos->bb.b8.type[ep->pawn_type];
    uint64_t w = pawns & pos->bb.b8.color[WHITE], b = pawns & pos->bb.b8.color[BLACK];
    int s = eval_passers(ep, passed_white(w, b), WHITE, phase) -
            eval_passers(ep, passed_black(b, w), BLACK, phase);
    s -= DOUBLED_PAWN *
         (__builtin_popcountll(w & fill_down(w >> 8)) - __builtin_popcountll(b & fill_up(b << 8)));
    uint64_t wf = fill_up(fill_down(w)), bf = fill_up(fill_down(b));
    uint64_t w_iso = w & ~sides(wf), b_iso = b & ~sides(bf);
    s -= ISOLATED_PAWN * (__builtin_popcountll(w_iso) - __builtin_popcountll(b_iso));
    return s;
}

/* ---- Orthodox pieces on 8x8: activity and king safety (chess, Switching chess) ---- */

/* Mobility: per square a piece attacks that holds no own piece and no enemy pawn attacks,
 * centred on a typical count (opening, ending), by type N, B, R, Q. */
static const int16_t MOB_MG[7] = {0, 0, 4, 5, 2, 1, 0}, MOB_EG[7] = {0, 0, 4, 5, 4, 2, 0};
static const int8_t MOB_MID[7] = {0, 0, 4, 6, 7, 13, 0};
/* Mobility at this per cent of the weights above: a match preferred 130 to 70, 100, 150. */
#define MOB_SCALE 130
/* King safety (opening weight): attack units per zone square a piece attacks, by type. */
static const int8_t KS_UNITS[7] = {0, 0, 2, 2, 3, 5, 0};
#define KS_CAP         500 /* most a king-safety penalty can take */
#define SHIELD_PAWN    10  /* per own pawn shielding a castled king (opening) */
#define THREAT_PAWN    40  /* per enemy piece (not pawn or king) a pawn attacks */
#define THREAT_MINOR   25  /* per enemy rook or queen a knight or bishop attacks */
#define THREAT_ROOK    20  /* per enemy queen a rook attacks */
#define BISHOP_PAIR_MG 30
#define BISHOP_PAIR_EG 50
#define ROOK_OPEN_MG   20 /* rook on a file without pawns */
#define ROOK_OPEN_EG   10
#define ROOK_SEMI_MG   10 /* rook on a file without own pawns */
#define ROOK_SEMI_EG   5

/* Squares attacked by the pawns of colour c in `pawns`: the side squares one rank ahead. */
static inline uint64_t pawn_attacks(uint64_t pawns, int c) {
    return sides(c == WHITE ? pawns << 8 : pawns >> 8);
}

/* What eval_side gathers over a side's pieces. */
typedef struct SideActivity {
    int units, attackers, m, e, mm, me;
    uint64_t minor_att, rook_att;
} SideActivity;

/* The activity terms of the pieces of type ty on the squares of b (ty a constant where it
 * is called, so each type gets its own loop). */
static inline __attribute__((always_inline)) void eval_activity(int ty, uint64_t b, uint64_t occ,
                                                                uint64_t avoid, uint64_t zone,
                                                                uint64_t pawns, uint64_t own,
                                                                SideActivity *sa) {
    for (; b; b &= b - 1) {
        int sq = __builtin_ctzll(b);
        uint64_t a = ty == O_KNIGHT   ? cv_knight_att8(sq)
                     : ty == O_BISHOP ? cv_bishop_att8(sq, occ)
                     : ty == O_ROOK   ? cv_rook_att8(sq, occ)
                                      : cv_bishop_att8(sq, occ) | cv_rook_att8(sq, occ);
        int mob = __builtin_popcountll(a & ~avoid) - MOB_MID[ty];
        sa->mm += MOB_MG[ty] * mob;
        sa->me += MOB_EG[ty] * mob;
        if (ty <= O_BISHOP) sa->minor_att |= a;
        else if (ty == O_ROOK) sa->rook_att |= a;
        uint64_t hit = a & zone;
        if (hit) {
            sa->attackers++;
            sa->units += KS_UNITS[ty] * __builtin_popcountll(hit);
        }
        if (ty == O_ROOK) {
            uint64_t file = FILE_A_BB << (sq & 7);
            if (!(file & pawns)) {
                sa->m += ROOK_OPEN_MG;
                sa->e += ROOK_OPEN_EG;
            } else if (!(file & pawns & own)) {
                sa->m += ROOK_SEMI_MG;
                sa->e += ROOK_SEMI_EG;
            }
        }
    }
}

/* Colour c's activity and the safety of the enemy king, opening and ending parts in
 * *mg and *eg (c's view): mobility of knights, bishops, rooks and queens, attack units on
 * the squares around the enemy king, the bishop pair, rooks on open and half-open files,
 * threats on enemy pieces by cheaper ones, and the pawn shield of c's own king. */
static void eval_side(const Position *pos, int c, int *mg, int *eg) {
    const uint64_t *t = pos->bb.b8.type, own = pos->bb.b8.color[c], them = pos->bb.b8.color[c ^ 1];
    uint64_t occ = own | them, pawns = t[O_PAWN];
    uint64_t avoid = own | pawn_attacks(pawns & them, c ^ 1);
    int eksq = __builtin_ctzll(t[O_KING] & them);
    uint64_t zone = cv_king_att8(eksq) | (t[O_KING] & them);
    SideActivity sa = {0};
    eval_activity(O_KNIGHT, t[O_KNIGHT] & own, occ, avoid, zone, pawns, own, &sa);
    eval_activity(O_BISHOP, t[O_BISHOP] & own, occ, avoid, zone, pawns, own, &sa);
    eval_activity(O_ROOK, t[O_ROOK] & own, occ, avoid, zone, pawns, own, &sa);
    eval_activity(O_QUEEN, t[O_QUEEN] & own, occ, avoid, zone, pawns, own, &sa);
    int m = sa.m, e = sa.e;
    if (sa.attackers >= 2 && (t[O_QUEEN] & own)) {
        int pen = sa.units * sa.units / 4;
        m += pen < KS_CAP ? pen : KS_CAP;
    }
    m += sa.mm * MOB_SCALE / 100;
    e += sa.me * MOB_SCALE / 100;
    /* threats: enemy pieces attacked by a cheaper kind of c's pieces */
    int th = THREAT_PAWN *
                 __builtin_popcountll(pawn_attacks(pawns & own, c) & them & ~pawns & ~t[O_KING]) +
             THREAT_MINOR * __builtin_popcountll(sa.minor_att & them & (t[O_ROOK] | t[O_QUEEN])) +
             THREAT_ROOK * __builtin_popcountll(sa.rook_att & them & t[O_QUEEN]);
    m += th;
    e += th;
    if (__builtin_popcountll(t[O_BISHOP] & own) >= 2) {
        m += BISHOP_PAIR_MG;
        e += BISHOP_PAIR_EG;
    }
    int ksq = __builtin_ctzll(t[O_KING] & own), rank = ksq >> 3;
    if (c == WHITE ? rank == 0 : rank == 7) { /* pawns on the two ranks before a home king */
        uint64_t front = with_sides(1ULL << ksq);
        front = c == WHITE ? (front << 8) | (front << 16) : (front >> 8) | (front >> 16);
        m += SHIELD_PAWN * __builtin_popcountll(front & pawns & own);
    }
    *mg += m;
    *eg += e;
}

/* The orthodox terms for White, blended by phase (256: opening, 0: ending). */
static int eval_orthodox(const Position *pos, int phase) {
    int wm = 0, we = 0, bm = 0, be = 0;
    eval_side(pos, WHITE, &wm, &we);
    eval_side(pos, BLACK, &bm, &be);
    return ((wm - bm) * phase + (we - be) * (256 - phase)) / 256;
}

int eval_phase(const EvalParams *ep, const Position *pos) {
    int material = 0;
    for (unsigned m = ep->phase_types; m; m &= m - 1) {
        int t = __builtin_ctz(m);
        material += (pos->count[PC_MAKE(WHITE, t)] + pos->count[PC_MAKE(BLACK, t)] +
                     pos->hand[WHITE][t] + pos->hand[BLACK][t]) *
                    ep->phase_value[t];
    }
    return material >= ep->phase_full ? 256 : material * 256 / ep->phase_full;
}

static int eval_linear_psq(const EvalParams *ep, const Position *pos, int phase, uint64_t psq);

/* The terms that change with the phase: royals drawn to the centre as material goes, and
 * pawn structure; White's view. */
static int eval_phased(const EvalParams *ep, const Position *pos, int phase) {
    int s = 0;
    for (unsigned m = ep->royal_types; m; m &= m - 1) {
        int t = __builtin_ctz(m);
        for (int c = 0; c < 2; c++) {
            int r = 0;
            if (pos->wide) {
                Bitboard128 b = pos->bb.b10.type[t] & pos->bb.b10.color[c];
                for (uint64_t lo = (uint64_t)b; lo; lo &= lo - 1)
                    r += ep->royal_eg[__builtin_ctzll(lo)];
                for (uint64_t hi = (uint64_t)(b >> 64); hi; hi &= hi - 1)
                    r += ep->royal_eg[64 + __builtin_ctzll(hi)];
            } else {
                for (uint64_t b = pos->bb.b8.type[t] & pos->bb.b8.color[c]; b; b &= b - 1)
                    r += ep->royal_eg[__builtin_ctzll(b)];
            }
            s += (c == WHITE ? r : -r) * (256 - phase) / 256;
        }
    }
    if (ep->pawn_type) s += eval_pawns(ep, pos, phase);
    if (ep->orthodox) s += eval_orthodox(pos, phase);
    return s;
}

/* The whole evaluation for the side to move: the linear part and the phased terms. */
int eval_position(const EvalParams *ep, const Position *pos) {
    return eval_position_psq(ep, pos, eval_psq_sum(ep, pos));
}

/* eval_position with the piece-square sum psq of pos already known. */
int eval_position_psq(const EvalParams *ep, const Position *pos, uint64_t psq) {
    int phase = eval_phase(ep, pos), s = eval_phased(ep, pos, phase);
    return eval_linear_psq(ep, pos, phase, psq) + (pos->side == WHITE ? s : -s);
}

/* Material, placement, hand pieces and tempo, for the side to move. */
int eval_linear(const EvalParams *ep, const Position *pos) {
    return eval_linear_psq(ep, pos, eval_phase(ep, pos), eval_psq_sum(ep, pos));
}

/* The packed piece-square sum of pos (tapered tables: opening + ending * 2^32), from
 * scratch; 0 without tapered tables. */
uint64_t eval_psq_sum(const EvalParams *ep, const Position *pos) {
    uint64_t acc = 0;
    if (!ep->tapered) return 0;
    if (pos->wide) {
        Bitboard128 occ = pos->bb.b10.color[WHITE] | pos->bb.b10.color[BLACK];
        eval_sum_bits2(ep, pos, (uint64_t)occ, 0, &acc);
        eval_sum_bits2(ep, pos, (uint64_t)(occ >> 64), 64, &acc);
    } else {
        eval_sum_bits2(ep, pos, pos->bb.b8.color[WHITE] | pos->bb.b8.color[BLACK], 0, &acc);
    }
    return acc;
}

/* eval_linear at a known phase, with the packed piece-square sum psq when tapered. */
static int eval_linear_psq(const EvalParams *ep, const Position *pos, int phase, uint64_t psq) {
    int s;
    if (ep->tapered) {
        int mg = (int32_t)(uint32_t)psq,
            eg = (int32_t)(uint32_t)((psq - (uint64_t)(int64_t)mg) >> 32);
        s = (mg * phase + eg * (256 - phase)) / 256;
    } else if (pos->wide) {
        Bitboard128 occ = pos->bb.b10.color[WHITE] | pos->bb.b10.color[BLACK];
        s = eval_sum_bits(ep, pos, (uint64_t)occ, 0) +
            eval_sum_bits(ep, pos, (uint64_t)(occ >> 64), 64);
    } else {
        s = eval_sum_bits(ep, pos, pos->bb.b8.color[WHITE] | pos->bb.b8.color[BLACK], 0);
    }
    if (pos->var->rules & RULE_DROPS)
        for (int t = 1; t <= pos->var->npt; t++)
            s += (pos->hand[WHITE][t] - pos->hand[BLACK][t]) * ep->hand_value[t];
    s = pos->side == WHITE ? s : -s;
    return s + ep->tempo; /* the side to move has the initiative */
}
