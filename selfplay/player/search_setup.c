/* search_setup.c - the self-play player's search, its life cycle: allocation with the
 * variant-dependent switches and the reduction table (search_new), the network switch,
 * clearing between games, release, and the small queries beside them (default budget and
 * table size, hashfull, repetition). The search itself is in search.c. */
#include "search.h"
#include "search_steps.h"
#include "search_tables.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../profile.h"

/* Sets the variant-dependent switches of the selective search (see README "How the player
 * searches"): null move off with fewer than two pieces besides royals and pawns where the
 * variant's endings are zugzwang-prone (Variant.zugzwang_prone: Supremo, whose stalemate
 * scores), else with none; the capture bound victim - attacker only where every capture
 * removes exactly one piece. */
static void search_variant_setup(Search *s, const Variant *v) {
    s->null_min_pieces = v->zugzwang_prone ? 2 : 1;
    s->scale_endings = v->orthodox_pieces && v->pawnless_draws;
    s->see_bound = true;
    for (int t = 1; t <= v->npt; t++) {
        const PieceDef *pd = &v->pieces[t];
        if (pd->flags & PF_BLAST) s->see_bound = false;
        for (int c = 0; c < pd->ncomp; c++)
            if (pd->comp[c].kind == MC_DLEAP) s->see_bound = false;
    }
    s->see = v->ops->see_ge != NULL;
    s->ep_value = 0;
    for (int t = v->npt; t >= 1; t--)
        if (v->pieces[t].flags & PF_PAWN) s->ep_value = v->pieces[t].value; /* the first pawn */
    s->pawn_types = 0;
    for (int t = 1; t <= v->npt; t++)
        if (v->pieces[t].flags & PF_PAWN_PIECE) s->pawn_types |= 1u << t;
    for (int t = 1; t <= v->npt; t++)
        s->see_value[t] = v->pieces[t].flags & PF_ROYAL ? SEE_ROYAL : s->value[t];
    /* search_max_gain: the types worth something, dearest first (a stable order), the
     * promoting types, and what a promotion can add (the dearest value, at least 1). */
    s->ngain = 0;
    s->promo_types = 0;
    s->promo_gain = 1;
    for (int t = 1; t <= v->npt; t++) {
        if (v->pieces[t].flags & PF_PROMOTES) s->promo_types |= 1u << t;
        if (s->value[t] > s->promo_gain) s->promo_gain = s->value[t];
        if (s->value[t] <= 0) continue;
        int i = s->ngain++;
        for (; i > 0 && s->value[s->gain_type[i - 1]] < s->value[t]; i--)
            s->gain_type[i] = s->gain_type[i - 1];
        s->gain_type[i] = (uint8_t)t;
    }
    double ln[64];
    for (int x = 1; x < 64; x++) ln[x] = log(x);
    for (int d = 0; d < 64; d++)
        for (int i = 0; i < 64; i++) {
            double r = d && i ? LMR_BASE + ln[d] * ln[i] / LMR_DIV : 0;
            s->lmr[d][i] = (int8_t)(r > LMR_MAX ? LMR_MAX : r);
        }
}

const SearchTuneParam search_tune_params[SEARCH_TUNE_COUNT] = {
    {"RFPMargin", offsetof(SearchTune, rfp_margin), 80, 1, 1000},
    {"FutilityMargin", offsetof(SearchTune, futility_margin), 150, 1, 1000},
    {"RazorMargin", offsetof(SearchTune, razor_margin), 250, 1, 2000},
    {"QSDelta", offsetof(SearchTune, qs_delta), 200, 0, 2000},
    {"ProbCutMargin", offsetof(SearchTune, probcut_margin), 200, 1, 2000},
    {"NullEvalR", offsetof(SearchTune, null_eval_r), 200, 1, 2000},
    {"AspWindow", offsetof(SearchTune, asp_window), 30, 1, 1000},
};

SearchTune search_tune_defaults(void) {
    SearchTune t;
    for (int i = 0; i < SEARCH_TUNE_COUNT; i++) *search_tune_at(&t, i) = search_tune_params[i].def;
    return t;
}

int search_tune_index(const char *name) {
    for (int i = 0; i < SEARCH_TUNE_COUNT; i++)
        if (strcasecmp(name, search_tune_params[i].name) == 0) return i;
    return -1;
}

SearchTune search_tune_for(const Variant *v, bool network) {
    SearchTune t = search_tune_defaults();
    if (!network) return t;
    const VariantProfile *p = profile_of(v);
    for (int k = 0; k < PROFILE_MARGINS && p->net_margins[k].name; k++) {
        int i = search_tune_index(p->net_margins[k].name);
        if (i >= 0) *search_tune_at(&t, i) = p->net_margins[k].value;
    }
    return t;
}

Search *search_new(const Variant *v, int tt_bits) {
    Search *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    size_t n = (size_t)1 << tt_bits;
    s->tt = calloc(n, sizeof *s->tt);
    if (!s->tt) {
        free(s);
        return NULL;
    }
    s->tt_mask = n - 1;
    s->tune = search_tune_for(v, false);
    s->cont_n = 2 * (v->npt + 1) * v->width * v->height;
    for (int pc = 0; pc < 64; pc++)
        s->cont_base[pc] = (PC_COLOR(pc) * (v->npt + 1) + PC_TYPE(pc)) * v->width * v->height;
    s->cont = calloc((size_t)s->cont_n * s->cont_n, sizeof *s->cont);
    s->capt = calloc((size_t)s->cont_n * MAX_PT, sizeof *s->capt);
    s->eval_cache = calloc(SEARCH_EVC_SIZE, sizeof *s->eval_cache);
    if (!s->cont || !s->capt || !s->eval_cache) {
        search_free(s);
        return NULL;
    }
    if (!evaluator_init(&s->eval, v, NULL)) {
        search_free(s);
        return NULL;
    }
    eval_piece_values(v, s->value);
    search_variant_setup(s, v);
    return s;
}

bool search_set_network(Search *s, const Network *net) {
    const Variant *v = s->eval.classical.var;
    evaluator_free(&s->eval);
    s->used = true; /* the table and the evaluation cache hold the other evaluation's scores */
    search_clear(s);
    bool ok = evaluator_init(&s->eval, v, net);
    if (!ok) evaluator_init(&s->eval, v, NULL);
    s->tune = search_tune_for(v, ok && net);
    return ok;
}

/* Releases a search and its table. */
void search_free(Search *s) {
    if (!s) return;
    evaluator_free(&s->eval);
    free(s->tt);
    free(s->cont);
    free(s->capt);
    free(s->eval_cache);
    free(s);
}

/* Forgets everything learnt (table, killers, counter-moves, the histories, the evaluation
 * cache), so the next game does not depend on the previous one. */
void search_clear(Search *s) {
    if (!s->used) return; /* as allocated: all zero, and its pages not yet touched */
    s->used = false;
    memset(s->tt, 0, (s->tt_mask + 1) * sizeof *s->tt);
    memset(s->killers, 0, sizeof s->killers);
    memset(s->history, 0, sizeof s->history);
    memset(s->counter, 0, sizeof s->counter);
    memset(s->cont, 0, (size_t)s->cont_n * s->cont_n * sizeof *s->cont);
    memset(s->capt, 0, (size_t)s->cont_n * MAX_PT * sizeof *s->capt);
    memset(s->corr, 0, sizeof s->corr);
    memset(s->eval_cache, 0, SEARCH_EVC_SIZE * sizeof *s->eval_cache);
    s->gen = 0;
}

/* Default budget: from the board size and the drop rule, the two things that set the
 * branching factor (see search.h). */
int64_t search_default_nodes(const Variant *v) {
    if (v->width * v->height > 64) return SEARCH_DEFAULT_NODES_WIDE;
    return v->rules & RULE_DROPS ? SEARCH_DEFAULT_NODES_DROPS : SEARCH_DEFAULT_NODES;
}

int search_default_tt_bits(const Variant *v) {
    return v->width * v->height > 64 ? SEARCH_DEFAULT_TT_BITS_WIDE : SEARCH_DEFAULT_TT_BITS;
}

/* Per mille of the first 1000 slots (or all, if fewer) written by the current generation. */
int search_hashfull(const Search *s) {
    size_t n = s->tt_mask + 1 < 1000 ? s->tt_mask + 1 : 1000, used = 0;
    for (size_t i = 0; i < n; i++)
        if ((s->tt[i].gen_bound & 3) != BOUND_NONE && (s->tt[i].gen_bound >> 2) == s->gen) used++;
    return (int)(used * 1000 / n);
}

/* Counts earlier occurrences of the current key, same side to move, back to the last irreversible
 * move. */
bool search_repeated(const Position *pos, int times) {
    int window = pos->halfmove < pos->ply ? pos->halfmove : pos->ply;
    int seen = 0;
    for (int i = pos->ply - 2; i >= pos->ply - window; i -= 2)
        if (pos->stack[i].key == pos->key && ++seen >= times) return true;
    return false;
}
