/* match_cmd.c - `chessvar match`: a match between two UCI engines, or one engine and
 * chessvar's own player, in any variant: paired openings (a book or random plies, both
 * colours each), budgets per engine (nodes, depth, movetime or a time control with
 * increment), UCI options per engine, concurrent games, PGN with Variant tags, our rules
 * judging every move (an illegal move, a crash, a hang or a loss on time loses that game,
 * is logged with the position, and the engine is restarted), a fixed number of games or an
 * SPRT that stops the match. The games are played by the self-play run (games/run.h). */
#define _POSIX_C_SOURCE 200809L /* strtok_r */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../selfplay/games/book.h"
#include "../selfplay/games/record.h"
#include "../selfplay/games/run.h"
#include "../selfplay/match/match.h"
#include "../selfplay/match/sprt.h"
#include "../selfplay/player/evaluator.h"
#include "cli.h"

#define CMD          "match"
#define MATCH_FIELDS 24 /* key=value fields of one --engine spec */

/* One --engine as given: its spec, the text its fields point into, its budget. */
typedef struct MatchEngine {
    UciEngineSpec spec;
    char text[1024];
    PlayerSpec budget; /* nodes, depth, movetime_ms */
} MatchEngine;

/* Options of one invocation. */
typedef struct MatchOpts {
    SelfplayPlan plan;
    MatchEngine eng[2];
    int nengines;
    const char *variant, *book, *eval, *tc;
    long nodes, depth, movetime, timeout, seed, progress;
    bool json;
    CliSprt sprt; /* --sprt */
    SelfplayStopRule rule;
    Book *opening_book;
    int book_plies; /* --book-plies */
    Network *net;
    char eval_name[96];
} MatchOpts;

/* Parses a time control "BASE+INC" in seconds (tc=10+0.1) into milliseconds. */
static bool match_parse_tc(const char *text, int64_t *base_ms, int64_t *inc_ms) {
    char *end;
    double b = strtod(text, &end), i = 0;
    if (end == text || !isfinite(b) || b <= 0) return false;
    if (*end == '+') {
        const char *s = end + 1;
        i = strtod(s, &end);
        if (end == s || !isfinite(i) || i < 0) return false;
    }
    if (*end || b > 1e6 || i > 1e4) return false;
    *base_ms = (int64_t)llround(b * 1000.0);
    *inc_ms = (int64_t)llround(i * 1000.0);
    return true;
}

/* Sets one field KEY=VALUE of an engine spec; false after a message naming it. */
static bool match_engine_field(MatchEngine *e, char *field, const char *whole) {
    char *eq = strchr(field, '=');
    long v;
    int budget;
    if (!eq) {
        cli_usage_error(CMD, "--engine '%s': '%s' is not KEY=VALUE", whole, field);
        return false;
    }
    *eq = 0;
    const char *key = field, *val = eq + 1;
    if (strcmp(key, "cmd") == 0) e->spec.cmd = val;
    else if (strcmp(key, "name") == 0) e->spec.label = val;
    else if (strcmp(key, "tc") == 0) {
        if (!match_parse_tc(val, &e->spec.tc_base_ms, &e->spec.tc_inc_ms)) {
            cli_usage_error(CMD, "--engine '%s': tc needs BASE+INC seconds (10+0.1), got '%s'",
                            whole, val);
            return false;
        }
    } else if ((budget = cli_budget_field(CMD, "--engine", key, val, 200, &e->budget)) != 0) {
        return budget > 0;
    } else if (strcmp(key, "timeout") == 0) {
        if (!cli_int(CMD, "--engine timeout", val, 1, 100000, &v)) return false;
        e->spec.timeout_s = (double)v;
    } else if (strncmp(key, "option.", 7) == 0 && key[7]) {
        char what[160];
        snprintf(what, sizeof what, "--engine '%.140s'", whole);
        return cli_engine_option(CMD, what, &e->spec, key + 7, val);
    } else {
        cli_usage_error(CMD,
                        "--engine '%s': unknown key '%s' (cmd, name, tc, nodes, depth, "
                        "movetime, timeout, option.NAME)",
                        whole, key);
        return false;
    }
    return true;
}

/* --engine SPEC: a command, or "cmd=COMMAND;name=N;tc=B+I;option.Hash=16;..." fields. */
static bool match_opt_engine(const char *cmd, const char *opt, const char *val, void *dst) {
    MatchOpts *o = dst;
    if (o->nengines == 2) {
        cli_usage_error(cmd, "%s is given at most twice (player A, player B)", opt);
        return false;
    }
    MatchEngine *e = &o->eng[o->nengines++];
    memset(e, 0, sizeof *e);
    e->spec.driver = &match_uci_player;
    if (strlen(val) >= sizeof e->text) {
        cli_usage_error(cmd, "%s is longer than %zu characters", opt, sizeof e->text - 1);
        return false;
    }
    snprintf(e->text, sizeof e->text, "%s", val);
    if (strncmp(val, "cmd=", 4) != 0) { /* the whole value is the command */
        e->spec.cmd = e->text;
        return true;
    }
    char *save = NULL;
    for (char *f = strtok_r(e->text, ";", &save); f; f = strtok_r(NULL, ";", &save))
        if (!match_engine_field(e, f, val)) return false;
    if (!e->spec.cmd || !e->spec.cmd[0]) {
        cli_usage_error(cmd, "%s '%s' names no command (cmd=...)", opt, val);
        return false;
    }
    return true;
}

/* Makes player i of the plan from engine e, its missing budget from the common options. */
static bool match_set_engine(MatchOpts *o, int i, MatchEngine *e) {
    PlayerSpec *p = &o->plan.game.player[i];
    memset(p, 0, sizeof *p);
    p->kind = PLAYER_UCI;
    p->uci = &e->spec;
    if (!e->spec.timeout_s) e->spec.timeout_s = (double)o->timeout;
    PlayerSpec *b = &e->budget;
    bool own = e->spec.tc_base_ms > 0 || b->nodes || b->depth || b->movetime_ms;
    if (!own && o->tc && !match_parse_tc(o->tc, &e->spec.tc_base_ms, &e->spec.tc_inc_ms)) {
        cli_usage_error(CMD, "--tc needs BASE+INC seconds (10+0.1), got '%s'", o->tc);
        return false;
    }
    if (!own && !o->tc) {
        b->nodes = o->nodes;
        b->depth = (int)o->depth;
        b->movetime_ms = o->movetime;
    }
    p->nodes = b->nodes;
    p->depth = b->depth;
    p->movetime_ms = b->movetime_ms;
    if (!e->spec.tc_base_ms && !p->nodes && !p->depth && !p->movetime_ms)
        p->nodes = search_default_nodes(o->plan.game.var);
    return true;
}

/* Starts every engine once before the match, so a wrong command is a usage error and not
 * a match of forfeited games; prints the engine's last lines on failure. */
static bool match_try_engines(const MatchOpts *o) {
    for (int i = 0; i < 2; i++) {
        const PlayerSpec *p = &o->plan.game.player[i];
        if (p->kind != PLAYER_UCI) continue;
        UciProc *u = calloc(1, sizeof *u);
        CvError err = {{0}};
        bool ok = u && match_engine_start(u, p->uci, o->plan.game.var, &err);
        if (u && !ok) {
            char tail[2048];
            uci_tail(u, tail, sizeof tail);
            cli_usage_error(CMD, "--engine '%s': %s; its last lines:\n%s", p->uci->cmd, err.msg,
                            tail);
        }
        if (u) uci_quit(u, 1.0);
        free(u);
        if (!ok) return false;
    }
    return true;
}

/* Parses argv into o; -1 to go on, else the exit status (0 after --help, 2 on bad input). */
static int match_parse(int argc, char **argv, MatchOpts *o) {
    SelfplayPlan *p = &o->plan;
    GameConfig *g = &p->game;
    *p = (SelfplayPlan){
        .threads = 1, .progress = 5, .progress_out = stderr, .check_every = 0, .command = CMD};
    *g = (GameConfig){.seed = 1, .random_plies = -1, .ply_cap = 600, .paired = true};
    o->timeout = 10;
    o->seed = 1;
    o->progress = 5;
    const CliOpt opts[] = {
        CLI_OPT_TEXT("--variant", "V", &o->variant,
                     "the variant (default chess; the list is below)"),
        CLI_OPT_CALL("--engine", "SPEC", match_opt_engine, o,
                     "a UCI engine: its command, or fields separated by ';':\n"
                     "cmd=COMMAND (required), name=NAME (for the PGN), tc=BASE+INC\n"
                     "(seconds), nodes=N, depth=D, movetime=MS, timeout=S,\n"
                     "option.NAME=VALUE (a UCI option; repeatable). Twice: player A, B;\n"
                     "once: player B against chessvar's own player"),
        CLI_OPT_TEXT("--tc", "BASE+INC", &o->tc,
                     "time control of every engine without a budget of its own\n"
                     "(chessvar's own player has none: it takes --nodes and the like)"),
        CLI_OPT_LONG("--nodes", "N", 1, 1000000000L, &o->nodes,
                     "nodes per move of every player without a budget of its own\n"
                     "(default: the variant's self-play budget)"),
        CLI_OPT_LONG("--depth", "D", 1, SEARCH_MAX_PLY / 2, &o->depth, "depth per move instead"),
        CLI_OPT_LONG("--movetime", "MS", 1, 100000000L, &o->movetime,
                     "milliseconds per move instead"),
        CLI_OPT_TEXT("--eval", "FILE", &o->eval,
                     "chessvar's own player evaluates with FILE or classical (default:\n"
                     "the variant's network)"),
        CLI_OPT_LONG("--timeout", "S", 1, 100000, &o->timeout,
                     "seconds an engine may take beyond its budget before it loses the\n"
                     "game (default 10)"),
        CLI_OPT_LONG("--games", "N", 2, SELFPLAY_MAX_GAMES, &p->games,
                     "games (even: pairs), or with --sprt the most to play (default 100;\n"
                     "20000 with --sprt)"),
        CLI_OPT_CALL("--sprt", "ELO0,ELO1[,ALPHA,BETA]", cli_opt_sprt, &o->sprt,
                     "stop at the decision of the GSPRT of player A's game pairs\n"
                     "between H0 Elo = ELO0 and H1 Elo = ELO1 (default alpha, beta 0.05)"),
        CLI_OPT_FLAG("--sprt-normalized", &o->sprt.spec.normalized,
                     "--sprt's Elo and the estimates are normalized Elo"),
        CLI_OPT_LONG("--concurrency", "N", 1, 1024, &p->threads, "games at once (default 1)"),
        CLI_OPT_TEXT("--book", "FILE", &o->book,
                     "openings: FEN or EPD lines, or the games of a PGN file (moves in\n"
                     "SAN or chessvar's notation), one per game pair, drawn from (seed,\n"
                     "pair); both colours play each (default: random plies)"),
        CLI_OPT_INT("--book-plies", "N", 0, MAX_GAME_PLY, &o->book_plies,
                    "a PGN book's openings are its games' first N plies (a shorter game:\n"
                    "all of it) (default %v: all of each game)"),
        CLI_OPT_INT("--random-plies", "N", 0, 200, &g->random_plies,
                    "random moves opening each pair's games (default 4 without\n"
                    "--book, 0 with)"),
        CLI_OPT_LONG("--seed", "S", 0, 2147483647L, &o->seed,
                     "seed of the openings (random plies, book draws) (default 1)"),
        CLI_OPT_INT("--ply-cap", "N", 1, MAX_GAME_PLY - 2 * SEARCH_MAX_PLY - 16, &g->ply_cap,
                    "adjudicate a draw at N plies (default 600)"),
        CLI_OPT_TEXT("--out", "DIR", &p->out,
                     "the match's folder: PGN (Variant tags) and the run's records\n"
                     "(required; --resume-able like selfplay)"),
        CLI_OPT_LONG("--shard-games", "N", 2, 100000, &p->shard_games,
                     "games per PGN file (even; default 10)"),
        CLI_OPT_FLAG("--resume", &p->resume, "continue the match in DIR (same options)"),
        CLI_OPT_LONG("--progress", "SEC", 0, 100000, &o->progress,
                     "seconds between progress lines on stderr, 0 = none (default 5)"),
        CLI_OPT_FLAG("--json", &o->json, "print the summary as one line of JSON"),
    };
    const CliSpec spec = {
        .cmd = CMD,
        .usage = "usage: chessvar match --variant V --engine SPEC [--engine SPEC] --out DIR "
                 "[options]\n\n"
                 "A match between two UCI engines, or an engine (player B) and chessvar's own\n"
                 "player (A), in any variant: game pairs (one opening, both colours), our rules\n"
                 "judge every move; an illegal move, a crash, a hang or a loss on time loses\n"
                 "that game (logged on stderr with the position) and the engine is restarted.\n"
                 "Engines are told the variant by `setoption name UCI_Variant` (not for chess).\n",
        .epilogue = "example: chessvar match --variant supremo --engine 'cmd=./a;tc=10+0.1' \\\n"
                    "           --engine 'cmd=./b;option.Hash=16;nodes=5000' --sprt 0,10 "
                    "--concurrency 2 --out m\n",
        .opts = opts,
        .nopts = (int)(sizeof opts / sizeof opts[0]),
        .list_variants = true};
    int rc = cli_parse(&spec, argc, argv);
    if (rc >= 0) return rc;
    if (!(g->var = cli_variant(CMD, o->variant))) return 2;
    if (!p->out) return cli_usage_error(CMD, "--out DIR is required");
    if (o->nengines == 0) return cli_usage_error(CMD, "--engine SPEC is required (once or twice)");
    if (!!o->nodes + !!o->depth + !!o->movetime + !!o->tc > 1)
        return cli_usage_error(CMD, "give at most one of --nodes, --depth, --movetime and --tc");
    if (o->sprt.spec.normalized && !o->sprt.given)
        return cli_usage_error(CMD, "--sprt-normalized needs --sprt");
    g->seed = (uint64_t)o->seed;
    p->progress = (double)o->progress;
    if (!p->shard_games) p->shard_games = 10;
    if (p->shard_games % 2) return cli_usage_error(CMD, "--shard-games needs an even number");
    if (!p->games) p->games = o->sprt.given ? 20000 : 100;
    if (p->games % 2) return cli_usage_error(CMD, "--games needs an even number (pairs)");
    if (o->sprt.given) {
        o->rule = sprt_stop_rule(&o->sprt.spec);
        p->stop_rule = &o->rule;
    }
    p->formats = FORMAT_PGN;
    g->tt_bits = search_default_tt_bits(g->var);
    g->random_start = false; /* the variant's start, a book position, then random plies */
    if (o->nengines == 1) {  /* player A: chessvar's own search */
        PlayerSpec *a = &g->player[0];
        a->kind = PLAYER_SEARCH;
        a->nodes = o->nodes;
        a->depth = (int)o->depth;
        a->movetime_ms = o->movetime;
        const PlayerSpec *b = &o->eng[0].budget;
        if (o->tc && !o->eng[0].spec.tc_base_ms && !b->nodes && !b->depth && !b->movetime_ms)
            return cli_usage_error(CMD, "--tc: chessvar's own player plays by nodes, depth or "
                                        "movetime; give the engine its tc= instead");
        if (o->tc) a->nodes = 0;
        if (!a->nodes && !a->depth && !a->movetime_ms) a->nodes = search_default_nodes(g->var);
        CvError err = {{0}};
        if (!evaluator_load(o->eval, g->var, &o->net, &err))
            return cli_usage_error(CMD, "--eval: %s", err.msg);
        a->net = o->net;
        if (o->net) {
            evaluator_name(o->eval, g->var, o->eval_name, sizeof o->eval_name);
            a->eval_name = o->eval_name;
        }
        if (!match_set_engine(o, 1, &o->eng[0])) return 2;
    } else {
        if (o->eval)
            return cli_usage_error(CMD, "--eval needs chessvar's own player (one --engine)");
        if (!match_set_engine(o, 0, &o->eng[0]) || !match_set_engine(o, 1, &o->eng[1])) return 2;
    }
    if (o->book_plies && !o->book) return cli_usage_error(CMD, "--book-plies needs --book");
    if (o->book) {
        CvError err = {{0}};
        if (!(o->opening_book = book_load(o->book, g->var, o->book_plies, &err)))
            return cli_usage_error(CMD, "--book %s", err.msg);
        g->book = o->opening_book;
    }
    if (g->random_plies < 0) g->random_plies = o->book ? 0 : 4;
    return -1;
}

/* Prints the summary: players, score, Elo (per game and from the pairs), the SPRT,
 * terminations and engine restarts; JSON or text. */
static void match_summary(const MatchOpts *o, const SelfplayTotals *t) {
    char a[160], b[160];
    selfplay_player_name(&o->plan.game.player[0], a, sizeof a);
    selfplay_player_name(&o->plan.game.player[1], b, sizeof b);
    const uint32_t *asc = t->a_by_score;
    MatchElo e = match_elo(asc);
    uint64_t q[SPRT_NPENTA];
    sprt_pentanomial(t->a_pairs, q);
    double pe, plo, phi;
    sprt_elo(t->a_pairs, false, &pe, &plo, &phi);
    if (o->json) {
        printf("{\"variant\":\"%s\",\"player_a\":", o->plan.game.var->name);
        cli_json_str(stdout, a);
        printf(",\"player_b\":");
        cli_json_str(stdout, b);
        printf(",\"games\":%llu,\"a_score\":%.4f,\"a_wins\":%u,\"a_draws\":%u,\"a_losses\":%u,"
               "\"a_score_counts\":[%u,%u,%u,%u,%u],\"elo\":%.1f,\"elo_95\":[%.1f,%.1f],"
               "\"pentanomial\":[%llu,%llu,%llu,%llu,%llu],\"elo_pairs\":%.1f,"
               "\"elo_pairs_95\":[%.1f,%.1f],",
               (unsigned long long)t->games, e.score, asc[4] + asc[3], asc[2], asc[1] + asc[0],
               asc[0], asc[1], asc[2], asc[3], asc[4], e.elo, e.elo_lo, e.elo_hi,
               (unsigned long long)q[0], (unsigned long long)q[1], (unsigned long long)q[2],
               (unsigned long long)q[3], (unsigned long long)q[4], pe, plo, phi);
        if (o->sprt.given) cli_sprt_summary(&o->sprt.spec, t->a_pairs, t->rule_stopped, true);
        printf("\"engine_restarts\":%ld,\"seconds\":%.3f,\"termination\":{", t->restarts,
               t->seconds);
        for (int k = 1; k < TERM_COUNT; k++)
            printf("%s\"%s\":%llu", k > 1 ? "," : "", game_term_name(k),
                   (unsigned long long)t->term[k]);
        printf("}}\n");
        return;
    }
    printf("match %s: %llu games, A = %s, B = %s\n", o->plan.game.var->name,
           (unsigned long long)t->games, a, b);
    printf("A scored %.1f%% (+%u =%u -%u), Elo %+.1f, 95%% interval [%+.1f, %+.1f]\n",
           100 * e.score, asc[4] + asc[3], asc[2], asc[1] + asc[0], e.elo, e.elo_lo, e.elo_hi);
    printf("pairs: LL %llu, LD %llu, LW+DD %llu, DW %llu, WW %llu; Elo %+.1f, 95%% interval "
           "from the pairs [%+.1f, %+.1f]\n",
           (unsigned long long)q[0], (unsigned long long)q[1], (unsigned long long)q[2],
           (unsigned long long)q[3], (unsigned long long)q[4], pe, plo, phi);
    if (o->sprt.given) cli_sprt_summary(&o->sprt.spec, t->a_pairs, t->rule_stopped, false);
    printf("termination:");
    for (int k = 1; k < TERM_COUNT; k++)
        if (t->term[k]) printf(" %s %llu", game_term_name(k), (unsigned long long)t->term[k]);
    printf("; engine restarts %ld; %.1f s\n", t->restarts, t->seconds);
}

/* The match subcommand: exit 0, 1 (a file could not be written) or 2 (bad input). */
int cmd_match(int argc, char **argv) {
    MatchOpts *o = calloc(1, sizeof *o);
    if (!o) return 1;
    int rc = match_parse(argc, argv, o);
    if (rc < 0 && !match_try_engines(o)) rc = 2;
    if (rc < 0) {
        SelfplayRun *run = selfplay_run_new(&o->plan, NULL);
        bool ok = run && selfplay_run_go(run);
        if (ok) {
            SelfplayTotals t;
            selfplay_run_totals(run, &t);
            if (o->plan.progress > 0 && t.seconds >= o->plan.progress) selfplay_run_progress(run);
            match_summary(o, &t);
        } else
            fprintf(stderr, "chessvar match: %s\n",
                    run ? selfplay_run_error(run) : "out of memory");
        selfplay_run_free(run);
        rc = ok ? 0 : 1;
    }
    nnue_free(o->net);
    book_free(o->opening_book);
    free(o);
    return rc;
}
