#define _POSIX_C_SOURCE 200809L /* SIGKILL */
/* match.c - an external UCI engine as a game player, and the Elo of a match. */
#include "match.h"

#include "../profile.h"

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

#define MATCH_START_TIMEOUT 30.0 /* seconds for the handshake and options of a (re)start */

bool match_engine_start(UciProc *p, const UciEngineSpec *spec, const Variant *v, CvError *err) {
    if (!uci_start(p, spec->cmd, MATCH_START_TIMEOUT, err)) {
        uci_kill(p);
        return false;
    }
    bool ok = true;
    for (int i = 0; ok && i < spec->noptions; i++)
        ok = uci_set_option(p, spec->option_name[i], spec->option_value[i], MATCH_START_TIMEOUT,
                            err);
    const char *uci_variant = profile_of(v)->uci_variant;
    if (ok && uci_variant)
        ok = uci_set_option(p, "UCI_Variant", uci_variant, MATCH_START_TIMEOUT, err);
    if (ok) ok = uci_ready(p, MATCH_START_TIMEOUT, err);
    if (!ok) uci_kill(p);
    return ok;
}

/* Monotonic wall-clock seconds: the engine's clock. */
static double match_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Logs a game an engine lost by its fault on stderr: the engine, the position (FEN) and
 * what it did (the move it played, a crash, a hang, the clock), one line, so concurrent
 * games do not interleave within it. */
static void match_log(const UciProc *p, const Position *pos, const char *reason) {
    char fen[512];
    pos_to_fen(pos, fen, sizeof fen);
    fprintf(stderr, "match: '%s' loses the game: %s in position %s\n", p->cmd, reason, fen);
}

/* Describes why the engine gave no move: its exit status when it died, else err. */
static void match_failure(UciProc *p, const CvError *err, char *reason, size_t n) {
    uci_kill(p);
    if (p->status != -1 && WIFSIGNALED(p->status) && WTERMSIG(p->status) != SIGKILL)
        snprintf(reason, n, "engine crashed (signal %d)", WTERMSIG(p->status));
    else if (p->status != -1 && WIFEXITED(p->status))
        snprintf(reason, n, "engine exited (status %d) without a move", WEXITSTATUS(p->status));
    else { /* the message without the engine's command, which the PGN names already */
        const char *m = err->msg, *q = m[0] == '\'' ? strstr(m + 1, "' ") : NULL;
        snprintf(reason, n, "engine %s", q ? q + 2 : m);
    }
}

Move match_engine_move(GamePlayer *gp, const PlayerSpec *ps, int who, Position *pos,
                       const char *start_fen, const char *movetext, bool new_game, char *reason,
                       size_t n, UciBest *best) {
    const UciEngineSpec *spec = ps->uci;
    CvError err = {{0}};
    if (!gp->engine[who]) {
        gp->engine[who] = calloc(1, sizeof *gp->engine[who]);
        if (!gp->engine[who]) {
            snprintf(reason, n, "out of memory");
            return MOVE_NONE;
        }
    }
    UciProc *p = gp->engine[who];
    if (p->pid == 0) {
        if (p->cmd[0]) gp->restarts++;
        if (!match_engine_start(p, spec, pos->var, &err)) {
            snprintf(reason, n, "engine did not start: %s", err.msg);
            return MOVE_NONE;
        }
        new_game = true;
    }
    if (new_game && (!uci_send(p, "ucinewgame") || !uci_ready(p, MATCH_START_TIMEOUT, &err))) {
        match_failure(p, &err, reason, n);
        return MOVE_NONE;
    }
    char go[160];
    double timeout = spec->timeout_s;
    int64_t *clock = &gp->clock_ms[who], other = gp->clock_ms[1 - who];
    if (other <= 0) other = *clock; /* the opponent keeps no clock: as ours */
    if (spec->tc_base_ms > 0) {
        int white = pos->side == WHITE;
        snprintf(go, sizeof go, "wtime %lld btime %lld winc %lld binc %lld",
                 (long long)(white ? *clock : other), (long long)(white ? other : *clock),
                 (long long)spec->tc_inc_ms, (long long)spec->tc_inc_ms);
        timeout += (double)*clock / 1000.0;
    } else if (ps->movetime_ms > 0) {
        snprintf(go, sizeof go, "movetime %lld", (long long)ps->movetime_ms);
        timeout += (double)ps->movetime_ms / 1000.0;
    } else if (ps->depth > 0) snprintf(go, sizeof go, "depth %d", ps->depth);
    else snprintf(go, sizeof go, "nodes %lld", (long long)ps->nodes);
    const char *text = best->move;
    double t0 = match_now();
    if (!uci_bestmove(p, start_fen, movetext, go, timeout, best, &err)) {
        match_failure(p, &err, reason, n);
        match_log(p, pos, reason);
        return MOVE_NONE;
    }
    if (spec->tc_base_ms > 0) {
        int64_t used = (int64_t)((match_now() - t0) * 1000.0);
        if (used > *clock) {
            snprintf(reason, n, "lost on time (%lld ms used, %lld ms left)", (long long)used,
                     (long long)*clock);
            match_log(p, pos, reason);
            return MOVE_NONE;
        }
        *clock += spec->tc_inc_ms - used;
    }
    Move m = uci_map_move(pos, text);
    if (m == MOVE_NONE) {
        uci_kill(p); /* its idea of the position is wrong: start afresh */
        snprintf(reason, n, "illegal move '%s'", text);
        match_log(p, pos, reason);
    }
    return m;
}

int match_engine_score(const UciBest *best) {
    if (!best->scored) return 0;
    if (best->mate) /* mate in N moves: 2N-1 plies to mate, or 2|N| plies to be mated */
        return best->score > 0 ? SEARCH_MATE - (2 * best->score - 1)
                               : -(SEARCH_MATE + 2 * best->score);
    int s = best->score;
    return s > SEARCH_MATE_BOUND    ? SEARCH_MATE_BOUND
           : s < -SEARCH_MATE_BOUND ? -SEARCH_MATE_BOUND
                                    : s;
}

void match_engines_free(GamePlayer *gp) {
    for (int i = 0; i < 2; i++) {
        if (!gp->engine[i]) continue;
        uci_quit(gp->engine[i], 1.0);
        free(gp->engine[i]);
        gp->engine[i] = NULL;
    }
}

/* match_engine_move behind the ExternalPlayer interface: the move, its score and depth. */
static Move match_uci_move(GamePlayer *gp, const PlayerSpec *ps, int who, Position *pos,
                           const char *start_fen, const char *movetext, bool new_game, char *reason,
                           size_t n, int *score, int *depth) {
    UciBest best;
    Move m = match_engine_move(gp, ps, who, pos, start_fen, movetext, new_game, reason, n, &best);
    if (m != MOVE_NONE) {
        *score = match_engine_score(&best);
        *depth = best.depth;
    }
    return m;
}

const ExternalPlayer match_uci_player = {match_uci_move, match_engines_free, uci_move_str};

/* Elo difference of a mean score s in (0, 1), clamped to +-9999 at the ends. */
static double match_elo_of(double s) {
    if (s <= 0.0) return -9999.0;
    if (s >= 1.0) return 9999.0;
    double e = -400.0 * log10(1.0 / s - 1.0);
    return e < -9999.0 ? -9999.0 : e > 9999.0 ? 9999.0 : e;
}

MatchElo match_elo(const uint32_t counts[5]) {
    MatchElo r = {0, 0.5, 0, 0, 0};
    double sum = 0, sq = 0;
    for (int k = 0; k < 5; k++) {
        r.games += counts[k];
        sum += counts[k] * (k / 4.0);
    }
    if (r.games == 0) return r;
    r.score = sum / r.games;
    for (int k = 0; k < 5; k++) sq += counts[k] * (k / 4.0 - r.score) * (k / 4.0 - r.score);
    double se = sqrt(sq / r.games / r.games);
    r.elo = match_elo_of(r.score);
    r.elo_lo = match_elo_of(r.score - 1.959964 * se);
    r.elo_hi = match_elo_of(r.score + 1.959964 * se);
    return r;
}
