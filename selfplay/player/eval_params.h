/* eval_params.h - evaluation parameters fitted to self-play games by
 * scripts/data/tune_eval.py (Texel method), which writes eval_params.c. A variant's profile
 * (selfplay/profile.c) names its fit; a variant without one keeps the built-in heuristic of
 * eval.c. */
#ifndef CHESSVAR_SELFPLAY_EVAL_PARAMS_H
#define CHESSVAR_SELFPLAY_EVAL_PARAMS_H

#include "../../engine/chessvar.h"

/* The fitted tables of one variant, centipawns. */
typedef struct EvalTuned {
    const char *variant;  /* the variant it was fitted for (provenance) */
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

/* The fits that matches kept (eval_params.c), one per variant: name one more here when
 * write-c generates it, and give it to the variant's profile. */
extern const EvalTuned eval_tuned_chess, eval_tuned_switching;

/* The fitted tables of v (its profile's), or NULL when v has none or they do not fit its
 * board. */
const EvalTuned *eval_tuned_find(const Variant *v);

#endif
