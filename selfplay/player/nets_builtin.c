/* nets_builtin.c - the table of the networks built into the program (nets_builtin.h). */
#include "nets_builtin.h"

#include <string.h>

/* Start and end of each network's bytes (nets_builtin.S). */
extern const uint8_t chessvar_net_chess[], chessvar_net_chess_end[];
extern const uint8_t chessvar_net_switching[], chessvar_net_switching_end[];
extern const uint8_t chessvar_net_superchess[], chessvar_net_superchess_end[];
extern const uint8_t chessvar_net_supremo[], chessvar_net_supremo_end[];

static const struct {
    const char *name;
    const uint8_t *start, *end;
} nets[] = {
    {"chess.nnue", chessvar_net_chess, chessvar_net_chess_end},
    {"switching.nnue", chessvar_net_switching, chessvar_net_switching_end},
    {"superchess.nnue", chessvar_net_superchess, chessvar_net_superchess_end},
    {"supremo.nnue", chessvar_net_supremo, chessvar_net_supremo_end},
};

/* Looks the network up by its file name in selfplay/nets/. */
bool nets_builtin(const char *name, const uint8_t **buf, size_t *len) {
    for (size_t i = 0; i < sizeof nets / sizeof nets[0]; i++) {
        if (strcmp(nets[i].name, name) != 0) continue;
        *buf = nets[i].start;
        *len = (size_t)(nets[i].end - nets[i].start);
        return true;
    }
    return false;
}
