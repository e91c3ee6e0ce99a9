/* uci_client.h - talking to another engine process: spawn it through /bin/sh, send lines,
 * read lines with a deadline, keep its last lines for error reports, kill and restart it;
 * on top of that the few UCI exchanges chessvar needs (handshake, options, `go perft`
 * divides, `go` to a bestmove) and the perftree calling convention.
 *
 * Used by `chessvar verify` (cli/) and by matches against UCI engines (selfplay/games/game.c).
 * It lives in selfplay/ because both users may include selfplay/ while bench/ may not, and
 * the engine library stays free of processes. Every wait has a timeout; nothing here
 * depends on how fast the other engine is, only on whether it answers in time.
 *
 * Writing to an engine that died would raise SIGPIPE: the first spawn sets SIGPIPE to
 * ignored for the whole process, so a dead engine shows as a failed write instead. */
#ifndef CHESSVAR_SELFPLAY_UCI_CLIENT_H
#define CHESSVAR_SELFPLAY_UCI_CLIENT_H

#include <sys/types.h>

#include "../../engine/chessvar.h"

#define UCI_TAIL_LINES 12
#define UCI_LINE_MAX   4096
#define UCI_SEND_MAX   32768 /* a `position` line of a long game */

/* One engine process and its pipes. Zero-initialised means "not running". */
typedef struct UciProc {
    pid_t pid;     /* 0: not running */
    int to_fd;     /* its standard input */
    int from_fd;   /* its standard output and error */
    char cmd[512]; /* the shell command it was started with */
    char name[128];
    char buf[UCI_LINE_MAX];
    size_t len;
    bool eof;
    char tail[UCI_TAIL_LINES][160]; /* last lines read, oldest first after rotation */
    int ntail;
    int status; /* exit status once reaped (-1: still running or unknown) */
} UciProc;

/* Starts `sh -c 'exec CMD "$@"' sh ARGS...` with pipes (stderr joins stdout); args may be NULL. */
bool uci_spawn(UciProc *p, const char *cmd, const char *const *args, CvError *err);
/* Writes one line (a newline is added); false if the engine is gone. */
bool uci_send(UciProc *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Reads one line into line (without newline): 1 read, 0 timed out, -1 end of output. */
int uci_read_line(UciProc *p, char *line, size_t n, double timeout_s);
/* Kills the process (SIGKILL) if it still runs and reaps it; closes the pipes. */
void uci_kill(UciProc *p);
/* Asks the engine to quit, waits up to timeout_s for it to exit, then kills it. */
void uci_quit(UciProc *p, double timeout_s);
/* The last lines the engine printed, one per line, for error reports. */
void uci_tail(const UciProc *p, char *buf, size_t n);

/* Spawns the engine and does the handshake (`uci` ... `uciok`); err names the failure. */
bool uci_start(UciProc *p, const char *cmd, double timeout_s, CvError *err);
/* `setoption name NAME value VALUE`; errors the engine reports come back in err. */
bool uci_set_option(UciProc *p, const char *name, const char *value, double timeout_s,
                    CvError *err);
/* `isready` ... `readyok`. */
bool uci_ready(UciProc *p, double timeout_s, CvError *err);

/* One root move of a divide as the other engine wrote it, with its count. */
typedef struct DivideEntry {
    char move[32];
    uint64_t count;
} DivideEntry;

typedef struct Divide {
    int n;
    DivideEntry e[MAX_MOVES];
    uint64_t total; /* the total the engine printed */
} Divide;

/* Parses a divide line, `e2e4: 20` (UCI) or `e2e4 20` (perftree); false if it is none. */
bool uci_parse_divide_line(const char *line, DivideEntry *e);

/* `position fen FEN [moves ...]`, `go perft DEPTH`, reads the divide up to
 * `Nodes searched: N`. moves is a space-separated list in the engine's notation or "". */
bool uci_perft_divide(UciProc *p, const char *fen, const char *moves, int depth, double timeout_s,
                      Divide *out, CvError *err);
/* Runs `CMD DEPTH "FEN" "MOVES"` (the perftree convention) and reads its divide lines,
 * a blank line and the total until it exits. tail (may be NULL) gets its last lines. */
bool perftree_divide(const char *cmd, const char *fen, const char *moves, int depth,
                     double timeout_s, Divide *out, char *tail, size_t tail_n, CvError *err);

/* An engine's answer to `go`: its move as text and what its last `info` line said. */
typedef struct UciBest {
    char move[32];
    int depth;   /* last info depth (0: none) */
    int score;   /* centipawns, or moves to mate when mate is true */
    bool scored; /* an info line gave a score */
    bool mate;
} UciBest;

/* `position fen FEN [moves ...]`, `go GOARGS`, waits for `bestmove`. */
bool uci_bestmove(UciProc *p, const char *fen, const char *moves, const char *goargs,
                  double timeout_s, UciBest *best, CvError *err);

/* Maps move text of another engine to a legal move of pos: chessvar's own notation first,
 * then UCI long algebraic (from, to, lower-case promotion letter; drops `X@sq`).
 * MOVE_NONE if nothing matches. */
Move uci_map_move(Position *pos, const char *text);
/* A move in UCI long algebraic as Stockfish-family engines write it (buf >= 16). */
int uci_move_str(const Position *pos, Move m, char *buf);

#endif
