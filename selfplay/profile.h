/* profile.h - what selfplay/ knows of each variant beyond its rules, in one record per
 * variant: the network it plays with by default, the evaluation tables fitted for it, the
 * record formats that can hold its positions, its name for outside engines and the search
 * margins its networks search with. No code of selfplay/ or cli/ compares a variant's name
 * to decide these: it reads the profile. */
#ifndef CHESSVAR_SELFPLAY_PROFILE_H
#define CHESSVAR_SELFPLAY_PROFILE_H

#include "../engine/chessvar.h"

struct EvalTuned;

/* A search margin (a UCI option of search_tune_params: "QSDelta", ...) and its value. */
typedef struct ProfileMargin {
    const char *name;
    int value;
} ProfileMargin;

#define PROFILE_MARGINS 4 /* the most net_margins a profile holds */

typedef struct VariantProfile {
    const char *variant; /* the registry's name of the variant it describes */
    /* The shipped network it evaluates with by default (a file of selfplay/nets/, built
     * into the program), or NULL: the classical evaluation. A net is the default when it
     * beat the classical evaluation beyond its 95% interval at equal time
     * (selfplay/nets/<variant>.json). */
    const char *net;
    /* The classical evaluation's tables fitted to self-play games where a match kept them
     * (player/eval_params.c), else NULL: eval.c's heuristic. */
    const struct EvalTuned *tuned;
    /* Stockfish's PackedSfenValue (--format sfbin) holds its positions: the orthodox
     * pieces and moves only. */
    bool sfbin;
    /* The value of UCI_Variant that outside engines know it by, or NULL: send none (the
     * engines' default variant, orthodox chess). */
    const char *uci_variant;
    /* The search margins that differ from search_tune_params' defaults when the search
     * evaluates with a network in this variant (search_tune_for), each kept by a match of
     * the shipped network against the defaults (results/margin_tune_<variant>.json); the
     * list ends at the first NULL name. The classical evaluation keeps the defaults. */
    ProfileMargin net_margins[PROFILE_MARGINS];
} VariantProfile;

/* The profile of v, never NULL: a variant without a record gets defaults (the classical
 * evaluation, no fit, no sfbin, no UCI_Variant). */
const VariantProfile *profile_of(const Variant *v);

#endif
