/* nets_builtin.h - the shipped networks of selfplay/nets/, built into the program
 * (nets_builtin.S, generated at configure time), found by file name. */
#ifndef CHESSVAR_SELFPLAY_NETS_BUILTIN_H
#define CHESSVAR_SELFPLAY_NETS_BUILTIN_H

#include <stddef.h>
#include <stdint.h>

#include "../../engine/chessvar.h"

/* The bytes of the built-in network named name ("chess.nnue"): true with *buf and *len
 * set, false when none has that name. */
bool nets_builtin(const char *name, const uint8_t **buf, size_t *len);

#endif
