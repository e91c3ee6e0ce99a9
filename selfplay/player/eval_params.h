/* eval_params.h - evaluation parameters fitted to self-play games by scripts/tune_eval.py
 * (Texel method), which writes eval_params.c. A variant without an entry keeps the
 * built-in heuristic of eval.c. */
#ifndef CHESSVAR_SELFPLAY_EVAL_PARAMS_H
#define CHESSVAR_SELFPLAY_EVAL_PARAMS_H

#include "../../engine/chessvar.h"

/* The fitted tables of one variant, centipawns. */
typedef struct EvalTuned {
    const char *variant;  /* variant name; NULL ends the list */
    int npt, nsq;         /* piece types and board squares the tables were fitted for */
    int tempo;            /* bonus of the side to move */
    const int16_t *value; /* [npt + 1] material per type (royals 0) */
    const int16_t *hand;  /* [npt + 1] value of a piece in hand (drop variants), or NULL */
    const int16_t *psq;   /* [(npt + 1) * nsq] placement for White, square = rank * W + file */
    /* Tapered fits: value and psq above are the opening's, these the ending's (blended by
     * the game phase); NULL for one set of both. */
    const int16_t *value_eg;
    const int16_t *psq_eg;
} EvalTuned;

/* Every fitted variant, ended by an entry with variant NULL. */
extern const EvalTuned eval_tuned[];

/* The fitted tables of v, or NULL when v has none (or they do not fit its board). */
const EvalTuned *eval_tuned_find(const Variant *v);

#endif
