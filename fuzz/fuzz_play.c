/* fuzz_play.c - libFuzzer target playing move sequences: after "<variant>\n", each input
 * byte picks a legal move (byte modulo the number of moves) from the variant's start
 * position, and every position on the way must pass every invariant of the consistency
 * checker (representations, keys, make/unmake, fast == reference, round trips, check
 * agreement, colour flip, variant rules). */
#include "fuzz_common.h"

#include "../selfplay/check/check.h"

/* Plies per input (8x8, 10x10): enough to reach captures, drops and switches, few enough
 * that the slow reference checks (seconds per 10x10 input under the sanitizers) leave
 * many inputs per minute; longer games come from `chessvar check`. */
#define FUZZ_MAX_PLIES_8  24
#define FUZZ_MAX_PLIES_10 6

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* One input: see the file comment for what must hold. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const Variant *v;
    size_t n;
    char *moves = fuzz_split(data, size, &v, &n);
    if (!moves) return 0;
    static _Thread_local Position p;
    static _Thread_local Move list[MAX_MOVES];
    static _Thread_local VariantReport vr;
    memset(&vr, 0, sizeof vr);
    vr.var = v;
    CvError err = {{0}};
    int nstart = 1;
    while (nstart < 5 && v->starts[nstart - 1].name) nstart++;
    int pick = n ? (unsigned char)moves[0] % nstart : 0;
    const char *fen = pick ? v->starts[pick - 1].fen : v->start_fen;
    if (!pos_from_fen(&p, v, fen, &err)) fuzz_fail(v, "start FEN rejected", err.msg);
    size_t max_plies = v->width > 8 ? FUZZ_MAX_PLIES_10 : FUZZ_MAX_PLIES_8;
    for (size_t i = 0; i < n && i < max_plies; i++) {
        if (check_position(&vr, &p) > 0) {
            const ReportFailure *f = &vr.failures[0];
            char why[1400];
            snprintf(why, sizeof why, "%s at %s move '%s': %s (only fast: %s; only reference: %s)",
                     report_invariant_name(f->invariant), f->fen, f->move, f->detail, f->only_fast,
                     f->only_ref);
            fuzz_fail(v, "invariant failed", why);
        }
        int nm = pos_legal_moves(&p, list);
        if (!nm) break;
        pos_make(&p, list[(unsigned char)moves[i] % (unsigned)nm]);
        report_note_move(&vr, &p);
    }
    free(moves);
    return 0;
}
