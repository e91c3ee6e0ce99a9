/* fuzz_move.c - libFuzzer target for the move parser of every variant. Input:
 * "<variant>\n<FEN>\n<move text>" (an empty or bad FEN means the start position). Any text
 * either is rejected with a message or names a legal move whose own text names it again. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* One input: see the file comment for what must hold. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const Variant *v;
    char *rest = fuzz_split(data, size, &v, &(size_t){0});
    if (!rest) return 0;
    static _Thread_local Position p;
    static _Thread_local Move list[MAX_MOVES];
    CvError err = {{0}};
    char *text = strchr(rest, '\n');
    if (text) *text++ = 0;
    else text = rest;
    if (text == rest || !pos_from_fen(&p, v, rest, &err)) pos_from_fen(&p, v, v->start_fen, &err);
    err.msg[0] = 0;
    Move m = move_from_str(&p, text, &err);
    if (m == MOVE_NONE) {
        if (!err.msg[0]) fuzz_fail(v, "move text rejected without a message", text);
        free(rest);
        return 0;
    }
    int n = pos_legal_moves(&p, list), found = 0;
    for (int i = 0; i < n; i++) found |= list[i] == m;
    if (!found) fuzz_fail(v, "parser returned a move that is not legal", text);
    char own[32];
    move_to_str(&p, m, own);
    if (move_from_str(&p, own, &err) != m)
        fuzz_fail(v, "a move's own text does not parse back", own);
    pos_make(&p, m);
    pos_unmake(&p);
    free(rest);
    return 0;
}
