/* uci_cmd.c - `chessvar uci`: chessvar as a UCI engine for every variant. The main
 * thread reads and answers the input; `go` (a search or `go perft`) runs on a second
 * thread, so `stop`, `isready` and `quit` are answered at once during it. Bad input never
 * ends the program: it gets an `info string error: ...` line and the last good state
 * stays. A command that needs the engine idle (`go`, `eval`, `setoption`, `ucinewgame`)
 * while a search still runs is such a mistake: it is refused, never waited for, so a
 * client that forgets `stop` after `go infinite` cannot hang the engine. `quit` and the
 * end of the input end the process within UCI_QUIT_MS whatever runs. */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "../selfplay/player/search.h"
#include "../selfplay/match/uci_client.h"
#include "cli.h"

#define UCI_HASH_DEFAULT 16
#ifndef UCI_HASH_MAX
#define UCI_HASH_MAX 4096 /* MB; the fuzz build lowers it */
#endif
#ifndef UCI_PERFT_MAX
#define UCI_PERFT_MAX 20 /* the deepest `go perft`; the fuzz build lowers it */
#endif
#define UCI_LINE    65536 /* longest input line: a `position` with many moves */
#define UCI_QUIT_MS 50    /* how long quit waits for the search thread to end */

/* The engine's state: the last good position and options, and the running search. */
typedef struct UciEngine {
    const Variant *var;
    Position *pos;  /* the current position (last good `position`) */
    Position *spos; /* the searching thread's copy */
    Position *pv;   /* scratch for writing a PV in the variant's notation */
    Search *search;
    Network *net;        /* the network the search evaluates with (NULL: classical) */
    char eval_file[256]; /* EvalFile as set ("": the variant's default) */
    int hash_mb, multipv;
    SearchTune tune;       /* the search margins' options as set (those in tune_set) */
    unsigned tune_set;     /* bit i: search_tune_params[i] was set: kept over a new search */
    SearchTune tune_start; /* the start's margins (chess, its default evaluation) */
    pthread_mutex_t out;   /* one line at a time on stdout */
    pthread_t thread;
    bool running;     /* a search thread exists and was not joined */
    bool infinite;    /* go infinite / ponder: bestmove only after stop */
    int perft_depth;  /* the running `go` is `go perft N` (0: a search) */
    atomic_bool done; /* the search thread has printed its last line */
    atomic_bool stop;
    SearchLimits lim;
} UciEngine;

/* Prints one line on stdout under the output lock and flushes it. */
static void uci_say(UciEngine *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void uci_say(UciEngine *e, const char *fmt, ...) {
    va_list ap;
    pthread_mutex_lock(&e->out);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    fputc('\n', stdout);
    fflush(stdout);
    pthread_mutex_unlock(&e->out);
}

/* Table bits for a hash size in MB (16-byte entries). */
static int uci_tt_bits(int mb) {
    int bits = 10;
    while (bits < 40 && ((size_t)1 << (bits + 1)) * sizeof(TTEntry) <= (size_t)mb << 20) bits++;
    return bits;
}

/* Joins a search thread that has finished; false (and nothing joined) while it runs. */
static bool uci_idle(UciEngine *e) {
    if (!e->running) return true;
    if (!atomic_load(&e->done)) return false;
    pthread_join(e->thread, NULL);
    e->running = false;
    return true;
}

/* Stops a running search at once and joins it. A `go perft` cannot be stopped midway: it
 * is left to finish (and joined by the next command that needs the engine idle), so the
 * input is still read while it counts. */
static void uci_stop(UciEngine *e) {
    atomic_store(&e->stop, true);
    if (!e->running || (e->perft_depth > 0 && !atomic_load(&e->done))) return;
    pthread_join(e->thread, NULL);
    e->running = false;
}

/* For quit and the end of input: stops the search and gives it UCI_QUIT_MS to end; false
 * if it is still running then (a deep `go perft` cannot be stopped midway), and the caller
 * ends the process without joining it. */
static bool uci_stop_for_quit(UciEngine *e) {
    atomic_store(&e->stop, true);
    for (int ms = 0; e->running && !atomic_load(&e->done) && ms < UCI_QUIT_MS; ms++) {
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }
    return uci_idle(e);
}

/* Writes a score as UCI does: `cp N` or `mate N` (moves, negative when mated). */
static int uci_score(int score, char *buf, size_t n) {
    if (score > SEARCH_MATE_BOUND)
        return snprintf(buf, n, "mate %d", (SEARCH_MATE - score + 1) / 2);
    if (score < -SEARCH_MATE_BOUND) return snprintf(buf, n, "mate %d", -(SEARCH_MATE + score) / 2);
    return snprintf(buf, n, "cp %d", score);
}

/* Search callback: one `info` line per line of the iteration, PV in chessvar notation. */
static void uci_info(void *ctx, const SearchInfo *si) {
    UciEngine *e = ctx;
    char line[4096], mv[32];
    int k = snprintf(line, sizeof line, "info depth %d seldepth %d multipv %d score ", si->depth,
                     si->seldepth, si->multipv);
    k += uci_score(si->score, line + k, sizeof line - (size_t)k);
    int64_t nps = si->time_ms > 0 ? si->nodes * 1000 / si->time_ms : si->nodes * 1000;
    k += snprintf(line + k, sizeof line - (size_t)k,
                  "%s nodes %lld nps %lld hashfull %d time %lld pv",
                  si->bound == 1   ? " upperbound"
                  : si->bound == 2 ? " lowerbound"
                                   : "",
                  (long long)si->nodes, (long long)nps, si->hashfull, (long long)si->time_ms);
    pos_copy(e->pv, e->spos);
    int made = 0;
    for (int i = 0; i < si->pvlen && k < (int)sizeof line - 40; i++) {
        move_to_str(e->pv, si->pv[i], mv);
        k += snprintf(line + k, sizeof line - (size_t)k, " %s", mv);
        pos_make(e->pv, si->pv[i]);
        made++;
    }
    while (made-- > 0) pos_unmake(e->pv);
    uci_say(e, "%s", line);
}

static uint64_t uci_perft(UciEngine *e, int depth);

/* The search thread: counts `go perft`, or searches the copy, waits for stop in infinite
 * mode and prints bestmove. It marks itself done just before its last line, so a client
 * that has read that line finds the engine idle. */
static void *uci_search_main(void *arg) {
    UciEngine *e = arg;
    Move list[MAX_MOVES];
    char last[64];
    if (e->perft_depth > 0) {
        uint64_t total = uci_perft(e, e->perft_depth);
        snprintf(last, sizeof last, "\nNodes searched: %llu\n", (unsigned long long)total);
    } else if (pos_legal_moves(e->spos, list) == 0) {
        uci_say(e, "info depth 0 score %s", pos_in_check(e->spos) ? "mate 0" : "cp 0");
        while (e->infinite && !atomic_load(&e->stop)) {
            struct timespec ts = {0, 1000000};
            nanosleep(&ts, NULL);
        }
        snprintf(last, sizeof last, "bestmove (none)");
    } else {
        SearchResult r = search_run(e->search, e->spos, &e->lim);
        while (e->infinite && !atomic_load(&e->stop)) { /* UCI: no bestmove before stop */
            struct timespec ts = {0, 1000000};
            nanosleep(&ts, NULL);
        }
        char mv[32];
        move_to_str(e->spos, r.best, mv);
        snprintf(last, sizeof last, "bestmove %s", mv);
    }
    atomic_store(&e->done, true);
    uci_say(e, "%s", last);
    return NULL;
}

/* Reads the next whitespace-separated token of *s (advancing it); NULL at the end. */
static char *uci_token(char **s) {
    char *p = *s;
    while (*p && isspace((unsigned char)*p)) p++;
    if (!*p) {
        *s = p;
        return NULL;
    }
    char *t = p;
    while (*p && !isspace((unsigned char)*p)) p++;
    if (*p) *p++ = 0;
    *s = p;
    return t;
}

/* Prints `info string error: ...` for bad input. */
static void uci_error(UciEngine *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void uci_error(UciEngine *e, const char *fmt, ...) {
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    for (char *c = msg; *c; c++)
        if (*c == '\n' || *c == '\r') *c = ' ';
    uci_say(e, "info string error: %s", msg);
}

/* `uci`: identity, options, uciok. */
static void uci_hello(UciEngine *e) {
    char combo[1024];
    int k = 0;
    for (int i = 0; i < variant_count(); i++)
        k += snprintf(combo + k, sizeof combo - (size_t)k, " var %s", variant_name_at(i));
    uci_say(e, "id name chessvar");
    uci_say(e, "id author the chessvar authors");
    uci_say(e, "option name UCI_Variant type combo default chess%s", combo);
    uci_say(e, "option name Hash type spin default %d min 1 max %d", UCI_HASH_DEFAULT,
            UCI_HASH_MAX);
    uci_say(e, "option name Threads type spin default 1 min 1 max 1");
    uci_say(e, "option name MultiPV type spin default 1 min 1 max %d", SEARCH_MAX_MULTIPV);
    uci_say(e, "option name EvalFile type string default <default>");
    for (int i = 0; i < SEARCH_TUNE_COUNT; i++) {
        const SearchTuneParam *t = &search_tune_params[i];
        uci_say(e, "option name %s type spin default %d min %d max %d", t->name,
                *search_tune_at(&e->tune_start, i), t->min, t->max);
    }
    uci_say(e, "info string chessvar searches on one thread (Threads is fixed at 1)");
    uci_say(e, "uciok");
}

/* Makes a new search for the variant and hash size evaluating with net (NULL: classical),
 * which the engine then owns; false (state unchanged, net not taken) if no memory. */
static bool uci_new_search(UciEngine *e, const Variant *v, int mb, Network *net) {
    Search *s = search_new(v, uci_tt_bits(mb));
    if (!s || (net && !search_set_network(s, net))) {
        search_free(s);
        return false;
    }
    search_free(e->search);
    e->search = s;
    for (int i = 0; i < SEARCH_TUNE_COUNT; i++) /* the options set; the others: s's own */
        if (e->tune_set >> i & 1) *search_tune_at(&s->tune, i) = *search_tune_at(&e->tune, i);
    e->hash_mb = mb;
    if (net != e->net) nnue_free(e->net);
    e->net = net;
    return true;
}

/* The network of EvalFile for variant v into *net (NULL: classical); false after an error
 * line. */
static bool uci_load_eval(UciEngine *e, const char *file, const Variant *v, Network **net) {
    CvError err = {{0}};
    if (evaluator_load(file[0] && strcmp(file, "<default>") != 0 ? file : NULL, v, net, &err))
        return true;
    uci_error(e, "EvalFile: %s", err.msg);
    return false;
}

/* Parses a whole number in [lo, hi]. */
static bool uci_int(const char *text, long lo, long hi, long *out) {
    char *end;
    if (!text || !*text) return false;
    long v = strtol(text, &end, 10);
    if (*end || v < lo || v > hi) return false;
    *out = v;
    return true;
}

/* `setoption name NAME [value VALUE]`: names are case-insensitive, as in Stockfish. */
static void uci_setoption(UciEngine *e, char *args) {
    char *tok = uci_token(&args);
    if (!tok || strcmp(tok, "name") != 0) {
        uci_error(e, "setoption needs 'name NAME value VALUE'");
        return;
    }
    char name[256] = "", value[256] = "";
    bool in_value = false;
    while ((tok = uci_token(&args))) {
        if (!in_value && strcmp(tok, "value") == 0) {
            in_value = true;
            continue;
        }
        char *dst = in_value ? value : name;
        size_t len = strlen(dst);
        snprintf(dst + len, 256 - len, "%s%s", len ? " " : "", tok);
    }
    long v;
    if (strcasecmp(name, "UCI_Variant") == 0) {
        const Variant *var = variant_by_name(value);
        if (!var) {
            uci_error(e, "UCI_Variant: unknown variant '%s'", value);
            return;
        }
        CvError err = {{0}};
        Network *net = NULL;
        if (!uci_load_eval(e, e->eval_file, var, &net)) { /* it said why */
            uci_say(e, "info string EvalFile reset: %s evaluates with the classical evaluation",
                    var->name);
            e->eval_file[0] = 0;
        }
        Position *p = malloc(sizeof *p);
        if (!p || !pos_from_fen(p, var, var->start_fen, &err) ||
            !uci_new_search(e, var, e->hash_mb, net)) {
            uci_error(e, "UCI_Variant %s: %s", value, p ? err.msg : "out of memory");
            nnue_free(net);
            free(p);
            return;
        }
        e->var = var;
        pos_copy(e->pos, p);
        free(p);
    } else if (strcasecmp(name, "Hash") == 0) {
        if (!uci_int(value, 1, UCI_HASH_MAX, &v)) {
            uci_error(e, "Hash needs a whole number of MB from 1 to %d, got '%s'", UCI_HASH_MAX,
                      value);
        } else if (!uci_new_search(e, e->var, (int)v, e->net)) {
            uci_error(e, "Hash %ld: out of memory, keeping %d MB", v, e->hash_mb);
        }
    } else if (strcasecmp(name, "EvalFile") == 0) {
        Network *net = NULL;
        if (!uci_load_eval(e, value, e->var, &net)) return; /* keeps the evaluation it had */
        if (!uci_new_search(e, e->var, e->hash_mb, net)) {
            uci_error(e, "EvalFile: out of memory, keeping the evaluation it had");
            nnue_free(net);
            return;
        }
        snprintf(e->eval_file, sizeof e->eval_file, "%s", value);
    } else if (strcasecmp(name, "Threads") == 0) {
        if (!uci_int(value, 1, 1, &v))
            uci_error(e, "Threads: chessvar searches on one thread, only 1 is allowed, got '%s'",
                      value);
    } else if (strcasecmp(name, "MultiPV") == 0) {
        if (!uci_int(value, 1, SEARCH_MAX_MULTIPV, &v))
            uci_error(e, "MultiPV needs a whole number from 1 to %d, got '%s'", SEARCH_MAX_MULTIPV,
                      value);
        else e->multipv = (int)v;
    } else {
        const int i = search_tune_index(name);
        if (i < 0) {
            char margins[256];
            int k = 0;
            for (int j = 0; j < SEARCH_TUNE_COUNT; j++)
                k += snprintf(margins + k, sizeof margins - (size_t)k, "%s%s", j ? ", " : "",
                              search_tune_params[j].name);
            uci_error(e,
                      "no such option '%s' (options: UCI_Variant, Hash, Threads, MultiPV, "
                      "EvalFile, and the search margins %s)",
                      name, margins);
            return;
        }
        const SearchTuneParam *t = &search_tune_params[i];
        if (!uci_int(value, t->min, t->max, &v)) {
            uci_error(e, "%s needs a whole number from %d to %d, got '%s'", t->name, t->min, t->max,
                      value);
            return;
        }
        *search_tune_at(&e->tune, i) = *search_tune_at(&e->search->tune, i) = (int)v;
        e->tune_set |= 1u << i;
    }
}

/* `position startpos|fen FEN [moves M...]`: built on the side; kept only if all of it is good. */
static void uci_position(UciEngine *e, char *args, Position *scratch) {
    char *tok = uci_token(&args);
    CvError err = {{0}};
    char fen[512] = "";
    if (tok && strcmp(tok, "startpos") == 0) {
        snprintf(fen, sizeof fen, "%s", e->var->start_fen);
        tok = uci_token(&args);
    } else if (tok && strcmp(tok, "fen") == 0) {
        while ((tok = uci_token(&args)) && strcmp(tok, "moves") != 0) {
            size_t len = strlen(fen);
            snprintf(fen + len, sizeof fen - len, "%s%s", len ? " " : "", tok);
        }
    } else {
        uci_error(e, "position needs 'startpos' or 'fen FEN', got '%s'", tok ? tok : "");
        return;
    }
    if (!pos_from_fen(scratch, e->var, fen, &err)) {
        uci_error(e, "bad FEN '%s' for %s: %s", fen, e->var->name, err.msg);
        return;
    }
    if (tok && strcmp(tok, "moves") != 0) {
        uci_error(e, "position: expected 'moves', got '%s'", tok);
        return;
    }
    int n = 0;
    while (tok && (tok = uci_token(&args))) {
        Move m = uci_map_move(scratch, tok);
        if (m == MOVE_NONE) {
            char at[512];
            pos_to_fen(scratch, at, sizeof at);
            uci_error(e, "illegal move '%s' (move %d of the list) in %s; position unchanged", tok,
                      n + 1, at);
            return;
        }
        if (scratch->ply >= MAX_GAME_PLY - SEARCH_MAX_PLY - 8) {
            uci_error(e, "position: more than %d moves; position unchanged",
                      MAX_GAME_PLY - SEARCH_MAX_PLY - 8);
            return;
        }
        pos_make(scratch, m);
        n++;
    }
    pos_copy(e->pos, scratch);
}

/* `go perft N`: Stockfish's divide, `move: count` lines (the caller prints the blank line
 * and `Nodes searched` with the total this returns). */
static uint64_t uci_perft(UciEngine *e, int depth) {
    Move list[MAX_MOVES];
    char mv[32];
    Position *p = e->spos;
    int n = pos_legal_moves(p, list);
    uint64_t total = 0;
    for (int i = 0; i < n; i++) {
        move_to_str(p, list[i], mv);
        uint64_t c = 1;
        if (depth > 1) {
            pos_make(p, list[i]);
            c = perft(p, depth - 1);
            pos_unmake(p);
        }
        total += c;
        uci_say(e, "%s: %llu", mv, (unsigned long long)c);
    }
    return total;
}

/* Fills lim from the clock: a share of the remaining time plus most of the increment,
 * never more than a quarter of the clock. */
static void uci_clock(SearchLimits *lim, long time_ms, long inc_ms, long movestogo) {
    long mtg = movestogo > 0 ? (movestogo < 40 ? movestogo : 40) : 30;
    long soft = time_ms / mtg + inc_ms * 3 / 4;
    long hard = time_ms / 4 + inc_ms;
    if (hard > time_ms - 30) hard = time_ms - 30;
    if (hard < 1) hard = 1;
    if (soft > hard) soft = hard;
    if (soft < 1) soft = 1;
    lim->movetime_ms = hard;
    lim->soft_ms = soft;
}

/* `go ...`: perft, or a search on its own thread within the given limits. */
static void uci_go(UciEngine *e, char *args) {
    SearchLimits lim = {0};
    long v = 0, t[2] = {-1, -1}, inc[2] = {0, 0}, mtg = 0;
    bool infinite = false;
    int perft_depth = 0;
    char *tok;
    while ((tok = uci_token(&args))) {
        char *val = NULL;
        bool flag = strcmp(tok, "infinite") == 0 || strcmp(tok, "ponder") == 0;
        if (strcmp(tok, "searchmoves") == 0) {
            uci_error(e, "go searchmoves is not supported");
            return;
        }
        if (!flag && !(val = uci_token(&args))) {
            uci_error(e, "go %s needs a value", tok);
            return;
        }
        long hi = 2000000000L;
        if (val && !uci_int(val, 0, hi, &v)) {
            uci_error(e, "go %s needs a whole number, got '%s'", tok, val);
            return;
        }
        if (strcmp(tok, "perft") == 0) {
            if (v < 1 || v > UCI_PERFT_MAX) {
                uci_error(e, "go perft needs a depth from 1 to %d, got %ld", UCI_PERFT_MAX, v);
                return;
            }
            perft_depth = (int)v;
        } else if (strcmp(tok, "depth") == 0)
            lim.depth = v > SEARCH_MAX_DEPTH ? SEARCH_MAX_DEPTH : (int)v;
        else if (strcmp(tok, "nodes") == 0) lim.nodes = v;
        else if (strcmp(tok, "movetime") == 0) lim.movetime_ms = v > 0 ? v : 1;
        else if (strcmp(tok, "wtime") == 0) t[WHITE] = v;
        else if (strcmp(tok, "btime") == 0) t[BLACK] = v;
        else if (strcmp(tok, "winc") == 0) inc[WHITE] = v;
        else if (strcmp(tok, "binc") == 0) inc[BLACK] = v;
        else if (strcmp(tok, "movestogo") == 0) mtg = v;
        else if (strcmp(tok, "mate") == 0)
            lim.depth = v * 2 > SEARCH_MAX_DEPTH ? SEARCH_MAX_DEPTH : (int)(v * 2);
        else if (flag) infinite = true;
        else {
            uci_error(e,
                      "go: unknown parameter '%s' (depth, nodes, movetime, wtime, btime, "
                      "winc, binc, movestogo, mate, infinite, ponder, perft)",
                      tok);
            return;
        }
    }
    int side = e->pos->side;
    if (t[side] >= 0 && !lim.movetime_ms) uci_clock(&lim, t[side], inc[side], mtg);
    atomic_store(&e->stop, false);
    lim.stop = &e->stop;
    lim.multipv = e->multipv;
    lim.info = uci_info;
    lim.info_ctx = e;
    e->lim = lim;
    e->infinite = infinite;
    e->perft_depth = perft_depth;
    atomic_store(&e->done, false);
    pos_copy(e->spos, e->pos);
    if (pthread_create(&e->thread, NULL, uci_search_main, e) != 0) {
        uci_error(e, "go: cannot start the search thread");
        return;
    }
    e->running = true;
}

/* `d`: the board (rank 1 at the bottom), the FEN and the key, as Stockfish prints them. */
static void uci_display(UciEngine *e) {
    const Position *p = e->pos;
    char fen[512], sep[128];
    int k = snprintf(sep, sizeof sep, " ");
    for (int f = 0; f < p->width; f++) k += snprintf(sep + k, sizeof sep - (size_t)k, "+---");
    snprintf(sep + k, sizeof sep - (size_t)k, "+");
    pthread_mutex_lock(&e->out);
    printf("\n%s\n", sep);
    for (int r = p->height - 1; r >= 0; r--) {
        printf(" |");
        for (int f = 0; f < p->width; f++) {
            int pc = p->board[r * p->width + f];
            char c = ' ';
            if (pc) {
                c = p->var->pieces[PC_TYPE(pc)].letter;
                if (PC_COLOR(pc) == BLACK) c = (char)tolower((unsigned char)c);
            }
            printf(" %c |", c);
        }
        printf(" %d\n%s\n", r + 1, sep);
    }
    printf(" ");
    for (int f = 0; f < p->width; f++) printf("  %c ", 'a' + f);
    pos_to_fen(p, fen, sizeof fen);
    printf("\n\nVariant: %s\nFen: %s\nKey: %016llX\n", p->var->name, fen,
           (unsigned long long)p->key);
    fflush(stdout);
    pthread_mutex_unlock(&e->out);
}

/* `eval` (as Stockfish's): the static evaluation of the current position, for the side to
 * move and for White, and its linear part (what scripts/tune_eval.py fits) for White, in
 * centipawns, and the game phase (256 opening .. 0 ending) that blends tapered terms;
 * scripts/tune_eval.py and tests/check_eval_params.py read it. */
static void uci_eval(UciEngine *e) {
    int v = eval_position(&e->search->eval.classical, e->pos),
        l = eval_linear(&e->search->eval.classical, e->pos);
    int w = e->pos->side == WHITE ? 1 : -1;
    uci_say(e, "info string eval %d side to move, %d white, linear part %d white, phase %d", v,
            w * v, w * l, eval_phase(&e->search->eval.classical, e->pos));
}

/* Sets up the engine for chess with the default hash; false if out of memory. */
static bool uci_engine_init(UciEngine *e) {
    memset(e, 0, sizeof *e);
    pthread_mutex_init(&e->out, NULL);
    e->var = variant_by_name("chess");
    e->multipv = 1;
    e->hash_mb = UCI_HASH_DEFAULT;
    e->pos = malloc(sizeof *e->pos);
    e->spos = malloc(sizeof *e->spos);
    e->pv = malloc(sizeof *e->pv);
    CvError err = {{0}};
    Network *net = NULL;
    if (!uci_load_eval(e, "", e->var, &net)) net = NULL; /* the default's file is bad: said */
    if (!e->pos || !e->spos || !e->pv || !pos_from_fen(e->pos, e->var, e->var->start_fen, &err) ||
        !uci_new_search(e, e->var, e->hash_mb, net))
        return false;
    e->tune_start = e->search->tune;
    return true;
}

/* Prints the usage of the subcommand. */
static void uci_help(FILE *f) {
    fprintf(
        f,
        "usage: chessvar uci\n"
        "  speaks UCI on standard input and output (see README: options UCI_Variant,\n"
        "  Hash, Threads (1), MultiPV, EvalFile; go depth|nodes|movetime|wtime/btime/winc/binc/\n"
        "  movestogo|infinite|perft N; stop; d; quit). Moves use chessvar's notation.\n");
}

int cmd_uci(int argc, char **argv) {
    if (argc > 1) {
        bool help = strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0;
        uci_help(help ? stdout : stderr);
        return help ? 0 : 2;
    }
    return uci_loop(stdin);
}

int uci_loop(FILE *in) {
    UciEngine *e = malloc(sizeof *e);
    Position *scratch = malloc(sizeof *scratch);
    char *line = malloc(UCI_LINE);
    if (!e || !scratch || !line || !uci_engine_init(e)) {
        fprintf(stderr, "chessvar uci: out of memory\n");
        return 1;
    }
    uci_say(e, "chessvar by the chessvar authors");
    while (fgets(line, UCI_LINE, in)) {
        size_t len = strlen(line);
        if (len == UCI_LINE - 1 && line[len - 1] != '\n') {
            int c;
            while ((c = getc(in)) != EOF && c != '\n') {
            }
            uci_error(e, "input line longer than %d bytes ignored", UCI_LINE - 2);
            continue;
        }
        char *rest = line, *cmd = uci_token(&rest);
        if (!cmd) continue;
        if (strcmp(cmd, "quit") == 0) break;
        bool needs_idle = strcmp(cmd, "go") == 0 || strcmp(cmd, "eval") == 0 ||
                          strcmp(cmd, "ucinewgame") == 0 || strcmp(cmd, "setoption") == 0;
        if (needs_idle && !uci_idle(e)) {
            uci_error(e, "'%s' while a search is running: send stop first (ignored)", cmd);
            continue;
        }
        if (strcmp(cmd, "stop") == 0) uci_stop(e);
        else if (strcmp(cmd, "isready") == 0) uci_say(e, "readyok");
        else if (strcmp(cmd, "ponderhit") == 0) continue;
        else if (strcmp(cmd, "uci") == 0) uci_hello(e);
        else if (strcmp(cmd, "d") == 0) uci_display(e);
        else if (strcmp(cmd, "eval") == 0) uci_eval(e);
        else if (strcmp(cmd, "position") == 0) uci_position(e, rest, scratch);
        else if (strcmp(cmd, "ucinewgame") == 0) search_clear(e->search);
        else if (strcmp(cmd, "setoption") == 0) uci_setoption(e, rest);
        else if (strcmp(cmd, "go") == 0) uci_go(e, rest);
        else uci_error(e, "unknown command '%s'", cmd);
    }
    if (!uci_stop_for_quit(e)) {
        /* A `go perft` too deep to wait for: its thread still reads the engine, so the
         * process ends here instead of freeing what that thread uses (every line already
         * answered was flushed when written). */
        _exit(0);
    }
    search_free(e->search);
    nnue_free(e->net);
    free(e->pos);
    free(e->spos);
    free(e->pv);
    free(e);
    free(scratch);
    free(line);
    return 0;
}
