/* fuzz_fen.c - libFuzzer target for the FEN parser of every variant: any text either is
 * rejected with a message or gives a consistent position whose FEN reads back to itself
 * and whose move generators agree. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* One input: see the file comment for what must hold. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const Variant *v;
    char *fen = fuzz_split(data, size, &v, &(size_t){0});
    if (!fen) return 0;
    static _Thread_local Position p, q;
    static _Thread_local Move a[MAX_MOVES], b[MAX_MOVES];
    CvError err = {{0}};
    char why[256], out[512], out2[512];
    if (!pos_from_fen(&p, v, fen, &err)) {
        if (!err.msg[0]) fuzz_fail(v, "rejected FEN without a message", fen);
        free(fen);
        return 0;
    }
    if (!pos_is_consistent(&p, why, sizeof why))
        fuzz_fail(v, "inconsistent position from FEN", why);
    if (pos_compute_key(&p) != p.key) fuzz_fail(v, "key differs from the recomputed key", fen);
    pos_to_fen(&p, out, sizeof out);
    if (!pos_from_fen(&q, v, out, &err)) fuzz_fail(v, "own FEN rejected", out);
    pos_to_fen(&q, out2, sizeof out2);
    if (strcmp(out, out2) != 0 || q.key != p.key) fuzz_fail(v, "FEN round trip differs", out);
    int na = pos_legal_moves(&p, a), nb = pos_reference_moves(&p, b);
    if (na != nb) {
        snprintf(why, sizeof why, "%s: fast %d moves, reference %d", out, na, nb);
        fuzz_fail(v, "generators disagree", why);
    }
    free(fen);
    return 0;
}
