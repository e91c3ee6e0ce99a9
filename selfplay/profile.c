/* profile.c - the per-variant profile records of selfplay/ (profile.h). */
#include "profile.h"

#include <string.h>

#include "player/eval_params.h"

/* One record per registered variant. The networks' Elo over the classical evaluation at
 * 20 ms a move, with their 95% intervals, are those of selfplay/nets/<variant>.json. */
static const VariantProfile profiles[] = {
    {.variant = "chess", /* net +189 [+153, +228]; generation 10, SPRT-positive over 8 */
     .net = "chess.nnue",
     .tuned = &eval_tuned_chess,
     .sfbin = true,
     .uci_variant = NULL,
     /* QSDelta 300 over 200 with net 10: +22.0 [+7.5, +36.6], SPRT 0,10 H1 in 1,440 games
      * (a first test, 400 games: +16.5 [-9.6, +42.8]) */
     .net_margins = {{"QSDelta", 300}}},
    {.variant = "switching", /* net +328 [+284, +384]; generation 11, SPRT-positive over 7 */
     .net = "switching.nnue",
     .tuned = &eval_tuned_switching,
     .uci_variant = "switching",
     /* QSDelta 300 over 200 with net 11: +25.3 [+9.1, +41.7], SPRT 0,10 H1 in 1,250 games */
     .net_margins = {{"QSDelta", 300}}},
    {.variant = "superchess", /* net +317 [+273, +371]; generation 7, SPRT-positive over 6 */
     .net = "superchess.nnue",
     /* no margins of its own: QSDelta 300 scored -16.9 [-33.9, -0.1] against 200 (SPRT 0,10
      * H0 in 1,500 games), where chess and Switching gained */
     .uci_variant = "superchess"},
    {.variant = "supremo", /* net +397 [+345, +465]; generation 6, SPRT-positive over 5 */
     .net = "supremo.nnue",
     .uci_variant = "supremo"},
    {.variant = "cannon10", .uci_variant = "cannon10"},
};

/* A variant without a record (tests/test_profile.c checks that every registered one has
 * one): the classical evaluation, no fit, no sfbin, no UCI_Variant. */
static const VariantProfile profile_none = {.variant = "(none)"};

/* Found by the variant record's registry name: the one place selfplay/ reads it. */
const VariantProfile *profile_of(const Variant *v) {
    for (size_t i = 0; i < sizeof profiles / sizeof profiles[0]; i++)
        if (strcmp(profiles[i].variant, v->name) == 0) return &profiles[i];
    return &profile_none;
}
