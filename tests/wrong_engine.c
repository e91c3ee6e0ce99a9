/* wrong_engine.c - a UCI engine with a planted move-generation bug, for the tests of
 * `chessvar verify`: it answers `go perft` from chessvar's generator minus one kind of
 * move in some subtree, so verify must find that node and that move.
 *
 *   wrong_engine castle   White's queenside castling is missing while a Black pawn
 *                         stands on b3 (reached from Kiwipete by ... b4b3)
 *   wrong_engine promo    promotions to a knight are missing for Black
 *   wrong_engine extra    a null "move" a1a1 is listed at depth 1 right after a pawn's
 *                         double step (an extra move)
 *
 * Only what verify sends is understood: uci, isready, setoption (UCI_Variant), position,
 * go perft N, quit. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../engine/chessvar.h"

static int mode; /* 0 castle, 1 promo, 2 extra */

/* Whether the buggy generator leaves out move m in pos. */
static bool wrong_drops(const Position *pos, Move m) {
    if (mode == 0)
        return MOVE_KIND(m) == MK_CASTLE && pos->side == WHITE && MOVE_TO(m) < MOVE_FROM(m) &&
               pos->board[17] == PC_MAKE(BLACK, pos->var->type_of_letter['P']); /* b3 */
    if (mode == 1)
        return pos->side == BLACK && MOVE_PROMO(m) && MOVE_KIND(m) != MK_DROP &&
               pos->var->pieces[MOVE_PROMO(m)].letter == 'N';
    return false;
}

/* True right after a pawn's double step (the e.p. square is kept only when capturable). */
static bool after_double(const Position *pos) {
    return pos->ply > 0 && MOVE_KIND(pos->stack[pos->ply - 1].move) == MK_DOUBLE;
}

/* Perft with the planted bug at every node. */
static uint64_t wrong_perft(Position *pos, int depth) {
    Move list[MAX_MOVES];
    int n = pos_legal_moves(pos, list);
    uint64_t total = mode == 2 && depth == 1 && after_double(pos) ? 1 : 0;
    for (int i = 0; i < n; i++) {
        if (wrong_drops(pos, list[i])) continue;
        if (depth == 1) {
            total++;
            continue;
        }
        pos_make(pos, list[i]);
        total += wrong_perft(pos, depth - 1);
        pos_unmake(pos);
    }
    return total;
}

int main(int argc, char **argv) {
    engine_init();
    mode = argc > 1 && strcmp(argv[1], "promo") == 0   ? 1
           : argc > 1 && strcmp(argv[1], "extra") == 0 ? 2
                                                       : 0;
    const Variant *var = variant_by_name("chess");
    Position *pos = malloc(sizeof *pos);
    static char line[65536];
    CvError err;
    pos_from_fen(pos, var, var->start_fen, &err);
    while (fgets(line, sizeof line, stdin)) {
        line[strcspn(line, "\r\n")] = 0;
        if (strcmp(line, "uci") == 0) printf("id name wrong_engine\nuciok\n");
        else if (strcmp(line, "isready") == 0) printf("readyok\n");
        else if (strcmp(line, "quit") == 0) break;
        else if (strncmp(line, "setoption name UCI_Variant value ", 33) == 0)
            var = variant_by_name(line + 33) ? variant_by_name(line + 33) : var;
        else if (strncmp(line, "position fen ", 13) == 0) {
            char *moves = strstr(line, " moves ");
            if (moves) *moves = 0;
            if (!pos_from_fen(pos, var, line + 13, &err))
                printf("info string error: %s\n", err.msg);
            for (char *t = moves ? strtok(moves + 7, " ") : NULL; t; t = strtok(NULL, " ")) {
                Move m = move_from_str(pos, t, &err);
                if (m == MOVE_NONE) break;
                pos_make(pos, m);
            }
        } else if (strncmp(line, "go perft ", 9) == 0) {
            int depth = atoi(line + 9);
            Move list[MAX_MOVES];
            char mv[32];
            int n = pos_legal_moves(pos, list);
            uint64_t total = 0;
            for (int i = 0; i < n; i++) {
                if (wrong_drops(pos, list[i])) continue;
                uint64_t c = 1;
                if (depth > 1) {
                    pos_make(pos, list[i]);
                    c = wrong_perft(pos, depth - 1);
                    pos_unmake(pos);
                }
                move_to_str(pos, list[i], mv);
                printf("%s: %llu\n", mv, (unsigned long long)c);
                total += c;
            }
            if (mode == 2 && depth == 1 && after_double(pos)) {
                printf("a1a1: 1\n");
                total++;
            }
            printf("\nNodes searched: %llu\n\n", (unsigned long long)total);
        }
        fflush(stdout);
    }
    free(pos);
    return 0;
}
