/* selfplay_cmd.c - `chessvar selfplay`: parses the options into a self-play plan, runs it
 * (selfplay/games/run.h: threads, MPI ranks, shards, resume, manifest, report) and prints the
 * summary. */
#define _POSIX_C_SOURCE 200809L /* strtok_r */
#include <errno.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "../selfplay/games/book.h"
#include "../selfplay/match/match.h"
#include "../selfplay/match/sprt.h"
#include "../selfplay/games/record.h"
#include "../selfplay/games/run.h"
#include "cli.h"
#include "mpi_start.h"

/* search.h's default budgets, spelled out for the --nodes help. */
#define NODES_8X8_TEXT   CLI_STR(SEARCH_DEFAULT_NODES)
#define NODES_DROPS_TEXT CLI_STR(SEARCH_DEFAULT_NODES_DROPS)
#define NODES_WIDE_TEXT  CLI_STR(SEARCH_DEFAULT_NODES_WIDE)
/* and its default table sizes, for the --hash-bits help */
#define TT_BITS_TEXT      CLI_STR(SEARCH_DEFAULT_TT_BITS)
#define TT_BITS_WIDE_TEXT CLI_STR(SEARCH_DEFAULT_TT_BITS_WIDE)

/* Games in a run without --games (with --positions: SELFPLAY_MAX_GAMES). */
#define SELFPLAY_GAMES 100
/* Games per shard file without --shard-games; with --sprt (which decides on whole
 * shards) fewer, and games at most without --games. */
#define SELFPLAY_SHARD_GAMES      50
#define SELFPLAY_SPRT_SHARD_GAMES 10
#define SELFPLAY_SPRT_GAMES       20000

#define CMD    "selfplay"
#define NSCORE SELFPLAY_NSCORE

/* Options of one invocation: the plan, and what only the command line needs. */
typedef struct SelfplayOpts {
    SelfplayPlan plan;
    bool json, fixed_start;
    const char *variant, *opponent, *opponent_budget, *formats, *book;
    const char *eval, *opponent_eval; /* --eval, --opponent-eval: FILE or classical */
    Network *net[2];                  /* the networks loaded for them */
    char eval_name[2][96];
    char option_text[UCI_MAX_OPTIONS][128];
    UciEngineSpec engine;  /* --opponent uci:CMD */
    Book *opening_book;    /* --book, read and checked */
    int book_plies;        /* --book-plies */
    CliSprt sprt;          /* --sprt */
    SelfplayStopRule rule; /* the SPRT as the run's stop rule */
} SelfplayOpts;

/* Parses a player spec: "random", "nodes=N", "depth=D" or "movetime=MS". */
static bool selfplay_parse_player(const char *text, PlayerSpec *p) {
    memset(p, 0, sizeof *p);
    if (strcmp(text, "random") == 0) {
        p->kind = PLAYER_RANDOM;
        return true;
    }
    p->kind = PLAYER_SEARCH;
    char key[16];
    const char *eq = strchr(text, '=');
    int got = 0;
    if (eq && eq - text < (long)sizeof key) {
        snprintf(key, sizeof key, "%.*s", (int)(eq - text), text);
        got = cli_budget_field(CMD, "--opponent", key, eq + 1, SEARCH_MAX_PLY / 2, p);
    }
    if (got == 0)
        cli_usage_error(CMD, "needs random, nodes=N, depth=D, movetime=MS or uci:CMD, got '%s'",
                        text);
    return got > 0;
}

/* Parses "a,b[,c]" into up to three whole numbers. */
static bool selfplay_parse_list(const char *opt, const char *text, int *out, int want) {
    char buf[64];
    snprintf(buf, sizeof buf, "%s", text);
    char *save = NULL, *tok = strtok_r(buf, ",", &save);
    for (int i = 0; i < want; i++) {
        long v;
        if (!tok || !cli_int(CMD, opt, tok, 0, 100000, &v)) {
            if (!tok)
                cli_usage_error(CMD, "%s needs %d comma-separated numbers, got '%s'", opt, want,
                                text);
            return false;
        }
        out[i] = (int)v;
        tok = strtok_r(NULL, ",", &save);
    }
    return true;
}

/* --seed: a whole number of up to 64 bits. */
static bool selfplay_opt_seed(const char *cmd, const char *opt, const char *val, void *dst) {
    char *end;
    errno = 0;
    unsigned long long s = strtoull(val, &end, 10);
    if (!*val || *end || errno || *val == '-') {
        cli_usage_error(cmd, "%s needs a whole number, got '%s'", opt, val);
        return false;
    }
    *(uint64_t *)dst = s;
    return true;
}

/* --nodes, --depth, --movetime: player A's budget (the last one given wins). */
static bool selfplay_opt_budget(const char *cmd, const char *opt, const char *val, void *dst) {
    PlayerSpec *p = dst;
    p->nodes = p->depth = 0;
    p->movetime_ms = 0;
    return cli_budget_field(cmd, NULL, opt + 2, val, SEARCH_MAX_PLY / 2, p) > 0;
}

/* --resign CP,PLIES. */
static bool selfplay_opt_resign(const char *cmd, const char *opt, const char *val, void *dst) {
    (void)cmd;
    GameConfig *g = dst;
    int x[2];
    if (!selfplay_parse_list(opt, val, x, 2)) return false;
    g->resign_score = x[0];
    g->resign_plies = x[1];
    return true;
}

/* --draw CP,PLIES,MIN. */
static bool selfplay_opt_draw(const char *cmd, const char *opt, const char *val, void *dst) {
    (void)cmd;
    GameConfig *g = dst;
    int x[3];
    if (!selfplay_parse_list(opt, val, x, 3)) return false;
    g->draw_score = x[0];
    g->draw_plies = x[1];
    g->draw_min_ply = x[2];
    return true;
}

/* --progress SEC and --opponent-timeout S: whole seconds into a double. */
static bool selfplay_opt_seconds(const char *cmd, const char *opt, const char *val, void *dst) {
    long v;
    if (!cli_int(cmd, opt, val, strcmp(opt, "--progress") == 0 ? 0 : 1, 100000, &v)) return false;
    *(double *)dst = (double)v;
    return true;
}

/* --opponent-option NAME=VALUE (repeatable). */
static bool selfplay_opt_engine_option(const char *cmd, const char *opt, const char *val,
                                       void *dst) {
    SelfplayOpts *o = dst;
    const char *eq = strchr(val, '=');
    size_t n = strlen(val);
    int k = o->engine.noptions;
    if (!eq || eq == val || n >= sizeof o->option_text[0]) {
        cli_usage_error(cmd, "%s needs NAME=VALUE (at most %zu characters), got '%s'", opt,
                        sizeof o->option_text[0] - 1, val);
        return false;
    }
    if (k == UCI_MAX_OPTIONS) return cli_engine_option(cmd, opt, &o->engine, val, val); /* full */
    char *name = o->option_text[k];
    memcpy(name, val, n + 1);
    name[eq - val] = 0;
    return cli_engine_option(cmd, opt, &o->engine, name, name + (eq - val) + 1);
}

/* Sets player B from --opponent and --opponent-budget; false after a message. */
static bool selfplay_set_opponent(SelfplayOpts *o) {
    GameConfig *g = &o->plan.game;
    const char *opponent = o->opponent;
    g->player[1] = g->player[0];
    if (opponent && strncmp(opponent, "uci:", 4) == 0) {
        if (!opponent[4]) {
            cli_usage_error(CMD, "--opponent uci: needs the engine's command");
            return false;
        }
        o->engine.cmd = opponent + 4;
        o->engine.driver = &match_uci_player;
        g->player[1].kind = PLAYER_UCI;
        g->player[1].uci = &o->engine;
        g->paired = true;
        if (o->opponent_budget) {
            PlayerSpec b;
            if (!selfplay_parse_player(o->opponent_budget, &b)) return false;
            if (b.kind != PLAYER_SEARCH) {
                cli_usage_error(CMD, "--opponent-budget needs nodes=N, depth=D or movetime=MS");
                return false;
            }
            g->player[1].nodes = b.nodes;
            g->player[1].depth = b.depth;
            g->player[1].movetime_ms = b.movetime_ms;
        }
    } else if (opponent) {
        if (!selfplay_parse_player(opponent, &g->player[1])) return false;
        g->player[1].net = g->player[0].net; /* as player A's unless --opponent-eval */
        g->player[1].eval_name = g->player[0].eval_name;
    }
    if (!(opponent && strncmp(opponent, "uci:", 4) == 0) &&
        (o->opponent_budget || o->engine.noptions)) {
        cli_usage_error(CMD, "--opponent-budget and --opponent-option need --opponent uci:CMD");
        return false;
    }
    return true;
}

/* Loads the evaluation of --eval (i 0, player A) or --opponent-eval (i 1, player B) into
 * the player; false after a one-line message. */
static bool selfplay_load_eval(SelfplayOpts *o, int i, const char *opt, const char *spec) {
    PlayerSpec *p = &o->plan.game.player[i];
    CvError err = {{0}};
    if (!evaluator_load(spec, o->plan.game.var, &o->net[i], &err)) {
        cli_usage_error(CMD, "%s: %s", opt, err.msg);
        return false;
    }
    p->net = o->net[i];
    p->eval_name = NULL;
    if (o->net[i]) {
        evaluator_name(spec, o->plan.game.var, o->eval_name[i], sizeof o->eval_name[i]);
        p->eval_name = o->eval_name[i];
    }
    return true;
}

/* Sets the plan's formats from the --format list; false after a message. */
static bool selfplay_set_formats(SelfplayOpts *o) {
    char fbuf[64];
    snprintf(fbuf, sizeof fbuf, "%s", o->formats);
    char *save = NULL;
    for (char *t = strtok_r(fbuf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        int i = 0;
        while (i < RECORD_NFORMATS && strcmp(t, record_format_name(i)) != 0) i++;
        if (i == RECORD_NFORMATS) {
            cli_usage_error(
                CMD,
                "--format takes bin, jsonl, pgn, plain, sfbin, chain (comma-separated), got '%s'",
                t);
            return false;
        }
        o->plan.formats |= 1 << i;
    }
    if (!o->plan.formats) {
        cli_usage_error(
            CMD, "--format needs at least one of bin, jsonl, pgn, plain, sfbin, chain, got '%s'",
            o->formats);
        return false;
    }
    CvError err = {{0}};
    if (!record_formats_supported(o->plan.game.var, o->plan.formats, &err)) {
        cli_usage_error(CMD, "%s", err.msg);
        return false;
    }
    return true;
}

/* Parses argv into o; returns -1 to go on, else the exit status (0 after --help, 2 on bad
 * input). */
static int selfplay_parse(int argc, char **argv, SelfplayOpts *o) {
    memset(o, 0, sizeof *o);
    SelfplayPlan *p = &o->plan;
    GameConfig *g = &p->game;
    *p = (SelfplayPlan){.games = 0, /* SELFPLAY_GAMES, or with --positions no limit */
                        .threads = omp_get_num_procs(),
                        .shard_games = 0, /* SELFPLAY_SHARD_GAMES, or _SPRT_ with --sprt */
                        .progress = 5,
                        .progress_out = stderr,
                        .check_every = 20};
    *g = (GameConfig){.seed = 1,
                      .random_plies = 4,
                      .temperature = 30,
                      .temp_margin = 40,
                      .temp_plies = 30,
                      .temp_depth = 4,
                      .random_max_ply = 100,
                      .random_multipv_diff = 100,
                      .ply_cap = 600,
                      .tt_bits = 0, /* 0: the variant's default (search_default_tt_bits) */
                      .random_start = true};
    g->player[0].kind = PLAYER_SEARCH;
    g->player[0].nodes = 0; /* 0: the variant's default (search_default_nodes) */
    o->engine.timeout_s = 10;
    o->formats = "bin";
    const CliOpt opts[] = {
        CLI_OPT_TEXT("--variant", "V", &o->variant,
                     "the variant (default chess; the list is below)"),
        CLI_OPT_LONG("--games", "N", 1, SELFPLAY_MAX_GAMES, &p->games,
                     "games in the run (default " CLI_STR(
                         SELFPLAY_GAMES) "; with --positions, the most to play)"),
        CLI_OPT_LONG("--positions", "N", 1, 1000000000000L, &p->positions,
                     "instead of a number of games: play until the shards written hold\n"
                     "N positions, then stop (the shard that reaches N is written whole,\n"
                     "none after it; one process only, no mpirun) (default: off)"),
        CLI_OPT_TEXT("--out", "DIR", &p->out, "the run's folder (required)"),
        CLI_OPT_LONG("--threads", "T", 1, 1024, &p->threads,
                     "OpenMP worker threads (default: all cores)"),
        CLI_OPT_CALL_SHOW("--seed", "S", selfplay_opt_seed, cli_show_u64, &g->seed,
                          "run seed; game g uses a stream derived from (S, g) (default %v)"),
        CLI_OPT_CALL("--nodes", "N", selfplay_opt_budget, &g->player[0],
                     "budget per move of player A: N search nodes (default " NODES_8X8_TEXT
                     " on 8x8,\n" NODES_DROPS_TEXT " with drops (Superchess), " NODES_WIDE_TEXT
                     " on 10x10)"),
        CLI_OPT_CALL("--depth", "D", selfplay_opt_budget, &g->player[0],
                     "budget per move of player A: depth D instead"),
        CLI_OPT_CALL("--movetime", "MS", selfplay_opt_budget, &g->player[0],
                     "budget per move of player A: MS milliseconds instead (games then\n"
                     "depend on machine speed)"),
        CLI_OPT_TEXT("--eval", "FILE", &o->eval,
                     "player A evaluates with the network in FILE, or classical (the\n"
                     "hand-written evaluation); default: the variant's net in selfplay/nets/"),
        CLI_OPT_TEXT("--opponent-eval", "FILE", &o->opponent_eval,
                     "player B's evaluation: a network FILE or classical (default: as\n"
                     "player A)"),
        CLI_OPT_TEXT("--opponent", "SPEC", &o->opponent,
                     "player B: random, nodes=N, depth=D, movetime=MS or uci:CMD\n"
                     "(an external UCI engine; default: as player A)"),
        CLI_OPT_TEXT("--opponent-budget", "SPEC", &o->opponent_budget,
                     "budget of a uci: opponent: nodes=N, depth=D or movetime=MS\n"
                     "(default: player A's budget)"),
        CLI_OPT_CALL("--opponent-option", "NAME=VALUE", selfplay_opt_engine_option, o,
                     "UCI option for the engine (repeatable)"),
        CLI_OPT_CALL_SHOW("--opponent-timeout", "S", selfplay_opt_seconds, cli_show_double,
                          &o->engine.timeout_s,
                          "seconds a uci: opponent may take beyond its movetime before\n"
                          "it loses the game (default %v; the whole wait without movetime)"),
        CLI_OPT_FLAG("--paired", &g->paired,
                     "games 2k, 2k+1 play one opening with colours swapped (default\n"
                     "with a uci: opponent)"),
        CLI_OPT_INT("--random-plies", "N", 0, 200, &g->random_plies,
                    "uniformly random moves opening each game (default %v)"),
        CLI_OPT_INT("--random-moves", "N", 0, 1000, &g->random_moves,
                    "N random moves anywhere: at N plies drawn per game between\n"
                    "--random-min-ply and --random-max-ply (0 = none; default %v)"),
        CLI_OPT_INT("--random-min-ply", "P", 0, MAX_GAME_PLY, &g->random_min_ply,
                    "first ply a --random-moves move may fall on (default %v)"),
        CLI_OPT_INT("--random-max-ply", "P", 0, MAX_GAME_PLY, &g->random_max_ply,
                    "last ply a --random-moves move may fall on (default %v)"),
        CLI_OPT_INT("--random-multipv", "N", 0, 256, &g->random_multipv,
                    "a random move (opening or --random-moves) is drawn among the\n"
                    "search's best N moves within --random-multipv-diff of the best,\n"
                    "labelled by that search (0 = uniform over all moves; default %v)"),
        CLI_OPT_INT("--random-multipv-diff", "CP", 0, 10000, &g->random_multipv_diff,
                    "centipawns below the best a --random-multipv move may be (default %v)"),
        CLI_OPT_INT("--temperature", "CP", 0, 10000, &g->temperature,
                    "sampling temperature in centipawns, 0 = best move (default %v)"),
        CLI_OPT_INT("--temp-margin", "CP", 0, 10000, &g->temp_margin,
                    "candidates within CP of the best (default %v)"),
        CLI_OPT_INT("--temp-plies", "N", 0, 2000, &g->temp_plies,
                    "temperature applies to the first N plies (default %v)"),
        CLI_OPT_INT("--temp-depth", "D", 0, 64, &g->temp_depth,
                    "the sampler draws from the scores of the iteration at depth D\n"
                    "(or the deepest shallower one); deeper iterations only look for\n"
                    "the best move and the label (0 = every iteration; default %v)"),
        CLI_OPT_TEXT("--start", "FEN", &g->start_fen,
                     "play every game from FEN (default: the variant's start;\n"
                     "Superchess: a random prelude array or named start per game)"),
        CLI_OPT_FLAG("--fixed-start", &o->fixed_start, "always the variant's default start"),
        CLI_OPT_TEXT("--book", "FILE", &o->book,
                     "start each game from a position of FILE (one FEN or EPD per\n"
                     "line; # comments; or a PGN file: each game's position after\n"
                     "--book-plies plies, moves in SAN or chessvar's notation), drawn\n"
                     "from (seed, game); paired games share it (selfplay/books/ has one\n"
                     "per variant; default: no book)"),
        CLI_OPT_INT("--book-plies", "N", 0, MAX_GAME_PLY, &o->book_plies,
                    "a PGN book's openings are its games' first N plies (a shorter game:\n"
                    "all of it) (default %v: all of each game)"),
        CLI_OPT_INT("--ply-cap", "N", 1, MAX_GAME_PLY - 2 * SEARCH_MAX_PLY - 16, &g->ply_cap,
                    "adjudicate a draw at N plies (default %v)"),
        CLI_OPT_CALL("--resign", "CP,PLIES", selfplay_opt_resign, g,
                     "a side resigns after PLIES own moves scored <= -CP (default off)"),
        CLI_OPT_CALL("--draw", "CP,PLIES,MIN", selfplay_opt_draw, g,
                     "draw after PLIES plies with |score| <= CP, from ply MIN (default off)"),
        CLI_OPT_TEXT("--format", "LIST", &o->formats,
                     "comma list of bin, jsonl, pgn, plain (Stockfish tools text),\n"
                     "sfbin (Stockfish PackedSfenValue, chess only), chain (whole games,\n"
                     "about 2 bytes a position; FORMAT.md) (default %v)"),
        CLI_OPT_INT("--write-min-ply", "N", 0, MAX_GAME_PLY, &p->filter.min_ply,
                    "leave the positions before ply N of each game out of the\n"
                    "position files (bin, jsonl, plain, sfbin) (default %v)"),
        CLI_OPT_INT("--write-max-ply", "N", 0, MAX_GAME_PLY, &p->filter.max_ply,
                    "leave the positions from ply N of each game on out of the\n"
                    "position files (0 = off; default %v)"),
        CLI_OPT_FLAG("--skip-draws", &p->filter.skip_draws,
                     "leave every position of a drawn game out of the position files\n"
                     "(default: draws kept)"),
        CLI_OPT_INT("--eval-limit", "CP", 0, 100000, &p->filter.eval_limit,
                    "stop writing a game's positions at the first whose |score|\n"
                    "exceeds CP; the game is still played out (0 = off; default %v)"),
        CLI_OPT_INT("--dedup-bits", "B", 0, 30, &p->filter.dedup_bits,
                    "write each position (Zobrist key) once per run, remembering up to\n"
                    "2^B keys (8 * 2^B bytes: B = 24 is 128 MB); the same data for any\n"
                    "thread count and after --resume (0 = off; default %v)"),
        CLI_OPT_LONG("--shard-games", "N", 1, 100000, &p->shard_games,
                     "games per shard file (default " CLI_STR(SELFPLAY_SHARD_GAMES) "; " CLI_STR(
                         SELFPLAY_SPRT_SHARD_GAMES) " with --sprt, which decides\n"
                                                    "on complete shards; even with --sprt)"),
        CLI_OPT_CALL("--sprt", "ELO0,ELO1[,ALPHA,BETA]", cli_opt_sprt, &o->sprt,
                     "a match that stops itself: the GSPRT of player A's game pairs\n"
                     "(pentanomial) between H0 Elo = ELO0 and H1 Elo = ELO1 (alpha,\n"
                     "beta default 0.05); stops at a decision, --games being the most\n"
                     "to play (default then " CLI_STR(SELFPLAY_SPRT_GAMES) "); implies --paired"),
        CLI_OPT_FLAG("--sprt-normalized", &o->sprt.spec.normalized,
                     "--sprt ELO0, ELO1 and the estimates are normalized Elo"),
        CLI_OPT_INT("--hash-bits", "B", 10, 26, &g->tt_bits,
                    "transposition table of 2^B entries per player: a game's recent\n"
                    "searches, kept in cache (default " TT_BITS_TEXT " on 8x8, " TT_BITS_WIDE_TEXT
                    " on 10x10)"),
        CLI_OPT_FLAG("--resume", &p->resume,
                     "continue the run in DIR (same options) without losing or\n"
                     "repeating games"),
        CLI_OPT_CALL_SHOW("--progress", "SEC", selfplay_opt_seconds, cli_show_double, &p->progress,
                          "seconds between progress lines on stderr, 0 = none (default %v)"),
        CLI_OPT_FLAG("--json", &o->json, "print the summary as JSON"),
        CLI_OPT_TEXT("--report", "PATH", &p->report,
                     "rule-consistency report of the games played by this\n"
                     "invocation: PATH (JSON) and PATH with .md (Markdown)"),
        CLI_OPT_LONG("--check-every", "N", 0, 1000000, &p->check_every,
                     "in the report, verify every N-th position of each game\n"
                     "(invariants of chessvar check; default %v, 0 = events only)"),
    };
    const CliSpec spec = {
        .cmd = CMD,
        .usage = "usage: chessvar selfplay --variant V --games N --out DIR [options]\n",
        .epilogue = "MPI: mpirun -np K chessvar selfplay ... gives each rank a disjoint range of "
                    "shards.\n",
        .opts = opts,
        .nopts = (int)(sizeof opts / sizeof opts[0]),
        .list_variants = true};
    int rc = cli_parse(&spec, argc, argv);
    if (rc >= 0) return rc;
    if (o->fixed_start) g->random_start = false;
    if (o->sprt.spec.normalized && !o->sprt.given)
        return cli_usage_error(CMD, "--sprt-normalized needs --sprt");
    if (o->sprt.given) {
        if (p->positions > 0 || p->filter.dedup_bits > 0)
            return cli_usage_error(CMD, "--sprt excludes --positions and --dedup-bits");
        if (p->shard_games % 2)
            return cli_usage_error(CMD, "--sprt needs an even --shard-games (whole pairs), got %ld",
                                   p->shard_games);
        g->paired = true;
        o->rule = sprt_stop_rule(&o->sprt.spec);
        p->stop_rule = &o->rule;
        if (!p->games) p->games = SELFPLAY_SPRT_GAMES;
    }
    if (!p->shard_games)
        p->shard_games = o->sprt.given ? SELFPLAY_SPRT_SHARD_GAMES : SELFPLAY_SHARD_GAMES;
    if (!p->games) p->games = p->positions > 0 ? SELFPLAY_MAX_GAMES : SELFPLAY_GAMES;
    if (p->filter.dedup_bits > 0 && p->filter.dedup_bits < 8)
        return cli_usage_error(CMD, "--dedup-bits needs 0 (off) or 8 to 30, got %d",
                               p->filter.dedup_bits);
    if (!(g->var = cli_variant(CMD, o->variant))) return 2;
    if (!p->out) return cli_usage_error(CMD, "--out DIR is required");
    if (!g->player[0].nodes && !g->player[0].depth && !g->player[0].movetime_ms)
        g->player[0].nodes = search_default_nodes(g->var);
    if (!g->tt_bits) g->tt_bits = search_default_tt_bits(g->var);
    if (!selfplay_load_eval(o, 0, "--eval", o->eval)) return 2;
    if (!selfplay_set_opponent(o) || !selfplay_set_formats(o)) return 2;
    if (o->book_plies && !o->book) return cli_usage_error(CMD, "--book-plies needs --book");
    if (o->book && g->start_fen)
        return cli_usage_error(CMD, "--book and --start exclude each other");
    if (o->book) {
        CvError err = {{0}};
        if (!(o->opening_book = book_load(o->book, g->var, o->book_plies, &err)))
            return cli_usage_error(CMD, "--book %s", err.msg);
        g->book = o->opening_book;
    }
    if (o->opponent_eval) {
        if (g->player[1].kind != PLAYER_SEARCH)
            return cli_usage_error(CMD, "--opponent-eval needs player B to be chessvar's search");
        if (!selfplay_load_eval(o, 1, "--opponent-eval", o->opponent_eval)) return 2;
    }
    if (g->start_fen) {
        Position *pos = malloc(sizeof *pos);
        CvError err = {{0}};
        bool ok = pos && pos_from_fen(pos, g->var, g->start_fen, &err);
        free(pos);
        if (!ok) return cli_usage_error(CMD, "--start: %s", err.msg);
    }
    return -1;
}

/* The figures both forms of the summary print, from the totals of every completed shard. */
typedef struct SummaryFigures {
    double games;              /* games, at least 1 (a divisor) */
    double white_score;        /* White's mean score, 0..1 */
    double a_score;            /* player A's mean score, 0..1 */
    unsigned a_wins, a_losses; /* player A's wins and losses (draws: a_by_score[2]) */
    double positions_per_s;    /* of this invocation */
    double nodes_per_s;
    MatchElo elo;        /* player A's, from its score counts */
    char a[160], b[160]; /* the players' names */
} SummaryFigures;

/* Derives the summary's figures from the totals t. */
static void selfplay_summary_figures(const SelfplayOpts *op, const SelfplayTotals *t,
                                     SummaryFigures *f) {
    const uint64_t *sc = t->by_score; /* White's score 0, 1/4, 1/2, 3/4, 1 */
    const uint32_t *asc = t->a_by_score;
    f->games = t->games ? (double)t->games : 1;
    f->white_score =
        ((double)sc[4] + 0.75 * (double)sc[3] + 0.5 * (double)sc[2] + 0.25 * (double)sc[1]) /
        f->games;
    f->a_score = (double)t->a_score / 1000.0 / f->games;
    f->a_wins = asc[4] + asc[3];
    f->a_losses = asc[1] + asc[0];
    f->positions_per_s = t->seconds > 0 ? (double)t->positions_now / t->seconds : 0;
    f->nodes_per_s = t->seconds > 0 ? (double)t->nodes_now / t->seconds : 0;
    f->elo = match_elo(asc);
    selfplay_player_name(&op->plan.game.player[0], f->a, sizeof f->a);
    selfplay_player_name(&op->plan.game.player[1], f->b, sizeof f->b);
}

/* Paired runs: the pair counts and the Elo interval from their variance, and the SPRT's
 * state with --sprt, as members of the JSON summary (each followed by a comma). */
static void selfplay_summary_pairs_json(const SelfplayOpts *op, const SelfplayTotals *t) {
    uint64_t q[SPRT_NPENTA];
    const uint64_t *c = t->a_pairs;
    sprt_pentanomial(c, q);
    double elo, lo, hi;
    sprt_elo(c, false, &elo, &lo, &hi);
    printf("\"pentanomial\":[%llu,%llu,%llu,%llu,%llu],\"pair_classes\":[",
           (unsigned long long)q[0], (unsigned long long)q[1], (unsigned long long)q[2],
           (unsigned long long)q[3], (unsigned long long)q[4]);
    for (int k = 0; k < SPRT_NCLASS; k++) printf("%s%llu", k ? "," : "", (unsigned long long)c[k]);
    printf("],\"elo_pairs\":%.1f,\"elo_pairs_95\":[%.1f,%.1f],", elo, lo, hi);
    if (op->sprt.given) cli_sprt_summary(&op->sprt.spec, c, t->rule_stopped, true);
}

/* Paired runs: the pair counts, the Elo interval from them and the SPRT as text lines. */
static void selfplay_summary_pairs_text(const SelfplayOpts *op, const SelfplayTotals *t) {
    uint64_t q[SPRT_NPENTA];
    sprt_pentanomial(t->a_pairs, q);
    double elo, lo, hi;
    sprt_elo(t->a_pairs, false, &elo, &lo, &hi);
    printf("pairs (A's points): LL %llu, LD %llu, LW+DD %llu, DW %llu, WW %llu; Elo %+.0f, 95%% "
           "interval from the pairs [%+.0f, %+.0f]\n",
           (unsigned long long)q[0], (unsigned long long)q[1], (unsigned long long)q[2],
           (unsigned long long)q[3], (unsigned long long)q[4], elo, lo, hi);
    if (op->sprt.given) cli_sprt_summary(&op->sprt.spec, t->a_pairs, t->rule_stopped, false);
}

/* The summary as one line of JSON. */
static void selfplay_summary_json(const SelfplayOpts *op, const SelfplayTotals *t, int nranks,
                                  const SummaryFigures *f) {
    const SelfplayPlan *o = &op->plan;
    const uint32_t *asc = t->a_by_score;
    printf("{\"variant\":\"%s\",\"threads\":%ld,\"ranks\":%d,", o->game.var->name, o->threads,
           nranks);
    printf("\"games\":%llu,\"games_this_run\":%ld,\"positions\":%llu,\"search_nodes\":%llu,",
           (unsigned long long)t->games, t->games_now, (unsigned long long)t->positions,
           (unsigned long long)t->nodes);
    printf("\"seconds\":%.3f,\"positions_this_run\":%ld,\"positions_per_second\":%.1f,"
           "\"nodes_per_second\":%.1f,",
           t->seconds, t->positions_now, f->positions_per_s, f->nodes_per_s);
    printf("\"avg_plies\":%.2f,\"white_score\":%.4f,", (double)t->plies / f->games, f->white_score);
    printf("\"player_a\":\"%s\",\"player_b\":\"%s\",\"a_score\":%.4f,\"a_wins\":%u,"
           "\"a_draws\":%u,\"a_losses\":%u,",
           f->a, f->b, f->a_score, f->a_wins, asc[2], f->a_losses);
    printf("\"a_score_counts\":[%u,%u,%u,%u,%u],", asc[0], asc[1], asc[2], asc[3], asc[4]);
    printf("\"elo\":%.1f,\"elo_95\":[%.1f,%.1f],\"engine_restarts\":%ld,", f->elo.elo,
           f->elo.elo_lo, f->elo.elo_hi, t->restarts);
    printf("\"duplicates\":%llu,\"duplicate_rate\":%.4f,", (unsigned long long)t->duplicates,
           (double)t->duplicates / f->games);
    if (o->game.paired) selfplay_summary_pairs_json(op, t);
    printf("\"white_score_counts\":{");
    for (int k = 0; k < NSCORE; k++) /* by White's score in per mille */
        printf("%s\"%d\":%llu", k ? "," : "", 250 * k, (unsigned long long)t->by_score[k]);
    printf("},\"termination\":{");
    for (int k = 1; k < TERM_COUNT; k++)
        printf("%s\"%s\":%llu", k > 1 ? "," : "", game_term_name(k),
               (unsigned long long)t->term[k]);
    printf("}}\n");
}

/* The summary as text, one line per subject. */
static void selfplay_summary_text(const SelfplayOpts *op, const SelfplayTotals *t, int nranks,
                                  const SummaryFigures *f) {
    const SelfplayPlan *o = &op->plan;
    const uint64_t *sc = t->by_score;
    printf("selfplay %s: %llu games (%ld this run, %ld threads, %d ranks), %llu positions\n",
           o->game.var->name, (unsigned long long)t->games, t->games_now, o->threads, nranks,
           (unsigned long long)t->positions);
    printf("results: White won %llu, drawn %llu, Black won %llu, stalemate wins %llu/%llu (W/B); "
           "White score %.1f%%\n",
           (unsigned long long)sc[4], (unsigned long long)sc[2], (unsigned long long)sc[0],
           (unsigned long long)sc[3], (unsigned long long)sc[1], 100 * f->white_score);
    printf("players: A = %s, B = %s; A scored %.1f%% (+%u =%u -%u), Elo %+.0f, 95%% interval "
           "[%+.0f, %+.0f]\n",
           f->a, f->b, 100.0 * f->a_score, f->a_wins, t->a_by_score[2], f->a_losses, f->elo.elo,
           f->elo.elo_lo, f->elo.elo_hi);
    if (o->game.paired) selfplay_summary_pairs_text(op, t);
    if (t->restarts)
        printf("engine restarts: %ld (failures are in the termination counts)\n", t->restarts);
    printf("termination:");
    for (int k = 1; k < TERM_COUNT; k++)
        if (t->term[k]) printf(" %s %llu", game_term_name(k), (unsigned long long)t->term[k]);
    printf("\naverage length %.1f plies; duplicate games %llu (%.2f%%)\n",
           (double)t->plies / f->games, (unsigned long long)t->duplicates,
           100.0 * (double)t->duplicates / f->games);
    printf("speed: %ld positions in %.2f s = %.0f positions/s, %.0f search nodes/s\n",
           t->positions_now, t->seconds, f->positions_per_s, f->nodes_per_s);
}

/* Prints the summary of every completed shard (all ranks) and this invocation's speed. */
static void selfplay_summary(const SelfplayOpts *op, const SelfplayTotals *t, int nranks) {
    SummaryFigures f;
    selfplay_summary_figures(op, t, &f);
    if (op->json) selfplay_summary_json(op, t, nranks, &f);
    else selfplay_summary_text(op, t, nranks, &f);
}

/* Starts the uci: opponent once before the run, so a wrong command is a usage error and
 * not a run of forfeited games; prints the engine's last lines on failure. */
static bool selfplay_try_engine(const SelfplayOpts *o) {
    UciProc *p = calloc(1, sizeof *p);
    CvError err = {{0}};
    bool ok = p && match_engine_start(p, &o->engine, o->plan.game.var, &err);
    if (p && !ok) {
        char tail[2048];
        uci_tail(p, tail, sizeof tail);
        cli_usage_error(CMD, "--opponent: %s; its last lines:\n%s", err.msg, tail);
    }
    if (p) uci_quit(p, 1.0);
    free(p);
    return ok;
}

/* Runs the parsed plan: start MPI when launched by it, run, summarise. */
static int selfplay_main(SelfplayOpts *o) {
    if (o->plan.game.player[1].kind == PLAYER_UCI && !selfplay_try_engine(o)) return 2;
    SelfplayRanks ranks = {.rank = 0,
                           .size = 1,
                           .bcast_int = cli_mpi_bcast_int,
                           .min_int = cli_mpi_min_int,
                           .max_double = cli_mpi_max_double,
                           .sum_long = cli_mpi_sum_long};
    if (cli_mpi_available() && cli_mpi_launched()) {
        ranks.size = cli_mpi_begin();
        ranks.rank = cli_mpi_rank();
    }
    if (o->plan.positions > 0 && ranks.size > 1) { /* the count needs every shard in order */
        if (ranks.rank == 0)
            cli_usage_error(CMD, "--positions runs in one process, not under mpirun");
        cli_mpi_end();
        return 2;
    }
    SelfplayRun *run = selfplay_run_new(&o->plan, &ranks);
    if (!run) {
        fprintf(stderr, "chessvar selfplay: out of memory\n");
        cli_mpi_end();
        return 1;
    }
    bool ok = selfplay_run_go(run);
    SelfplayTotals t;
    selfplay_run_totals(run, &t);
    if (ok && ranks.rank == 0) {
        if (o->plan.progress > 0 && t.seconds >= o->plan.progress) selfplay_run_progress(run);
        selfplay_summary(o, &t, ranks.size);
    }
    bool error_shown = false;
    if (ok && o->plan.report) {
        if (selfplay_run_report_failed(run))
            fprintf(stderr, "chessvar selfplay: report: %s\n", selfplay_run_error(run));
        else if (t.report_failures || t.replays_rejected)
            fprintf(stderr,
                    "chessvar selfplay: the report lists %llu invariant failures and %ld refused "
                    "replays\n",
                    (unsigned long long)t.report_failures, t.replays_rejected);
        error_shown = true;
        ok = !selfplay_run_report_failed(run) && t.report_failures == 0 && t.replays_rejected == 0;
    }
    if (!ok && !error_shown && selfplay_run_error(run)[0])
        fprintf(stderr, "chessvar selfplay: %s\n", selfplay_run_error(run));
    selfplay_run_free(run);
    cli_mpi_end();
    return ok ? 0 : 1;
}

/* The selfplay subcommand: parse, start MPI when launched by it, run, summarise; exit 0,
 * 1 (failure or report findings) or 2 (bad input). */
int cmd_selfplay(int argc, char **argv) {
    SelfplayOpts o;
    int rc = selfplay_parse(argc, argv, &o);
    if (rc < 0) rc = selfplay_main(&o);
    nnue_free(o.net[0]);
    nnue_free(o.net[1]);
    book_free(o.opening_book);
    return rc;
}
