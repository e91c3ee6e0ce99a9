/* game.c - plays one self-play game and adjudicates its end. */
#include "game.h"

#include <stdlib.h>

#include <stdio.h>
#include <string.h>
#include <xxhash.h>

#include "book.h"

/* Bytes of the UCI move text of a game: MAX_GAME_PLY moves of up to 11 characters. */
#define GAME_MOVETEXT_SIZE (MAX_GAME_PLY * 12)

static const char *const game_term_names[TERM_COUNT] = {
    "none",    "mate",     "stalemate", "repetition", "fifty_moves",
    "ply_cap", "material", "resign",    "draw_score", "engine_failure",
};

/* Name of a termination reason as written in the data files and summaries. */
const char *game_term_name(int t) {
    return t >= 0 && t < TERM_COUNT ? game_term_names[t] : "unknown";
}

/* Allocates one search per searching player (random players need none) and the move
 * text for UCI players, whose engines start on their first move. */
bool game_player_init(GamePlayer *gp, const GameConfig *cfg) {
    memset(gp->search, 0, sizeof gp->search);
    memset(gp->engine, 0, sizeof gp->engine);
    memset(gp->driver, 0, sizeof gp->driver);
    gp->restarts = 0;
    gp->movetext = NULL;
    for (int i = 0; i < 2; i++) {
        if (cfg->player[i].kind == PLAYER_UCI) gp->driver[i] = cfg->player[i].uci->driver;
        if (cfg->player[i].kind == PLAYER_UCI && !gp->movetext &&
            !(gp->movetext = malloc(GAME_MOVETEXT_SIZE))) {
            game_player_free(gp);
            return false;
        }
        if (cfg->player[i].kind != PLAYER_SEARCH) continue;
        gp->search[i] = search_new(cfg->var, cfg->tt_bits);
        if (!gp->search[i] ||
            (cfg->player[i].net && !search_set_network(gp->search[i], cfg->player[i].net))) {
            game_player_free(gp);
            return false;
        }
    }
    return true;
}

/* Releases the searches of both players and stops their engines. */
void game_player_free(GamePlayer *gp) {
    for (int i = 0; i < 2; i++) {
        search_free(gp->search[i]);
        gp->search[i] = NULL;
    }
    for (int i = 0; i < 2; i++)
        if (gp->driver[i]) gp->driver[i]->stop(gp);
    free(gp->movetext);
    gp->movetext = NULL;
}

/* Decides whether the game is over, in the order of precedence of the rules: mate and stalemate
 * first. */
int game_adjudicate(Position *pos, int n, int ply_cap, int *white_score) {
    if (n == 0) {
        if (pos_in_check(pos)) {
            *white_score = pos->side == WHITE ? 0 : 1000;
            return TERM_MATE;
        }
        int s = pos->var->stalemate_score; /* for the stalemated side, to move */
        *white_score = pos->side == WHITE ? s : 1000 - s;
        return TERM_STALEMATE;
    }
    *white_score = 500;
    if (pos->halfmove >= 100) return TERM_FIFTY;
    if (search_repeated(pos, 2)) return TERM_REPETITION;
    if (pos_insufficient_material(pos)) return TERM_MATERIAL;
    if (pos->ply >= ply_cap) return TERM_PLY_CAP;
    return TERM_NONE;
}

/* Chooses the start position of game g: a book position drawn from the game's stream
 * (so paired games share it), the fixed FEN, a random start as the variant's record says
 * (a prelude array in Superchess, one of the playable named starts), or the default. */
static bool game_start(GamePlayer *gp, const GameConfig *cfg, uint64_t *rng, Game *g,
                       CvError *err) {
    const Variant *v = cfg->var;
    const char *fen = cfg->start_fen ? cfg->start_fen : v->start_fen;
    char buf[256];
    if (cfg->book) {
        fen = cfg->book->fen[game_rng_next(rng) % (uint64_t)cfg->book->n];
    } else if (!cfg->start_fen && cfg->random_start) {
        if (!variant_random_start(v, game_rng_next(rng), buf, sizeof buf, err)) return false;
        fen = buf;
    }
    snprintf(g->start_fen, sizeof g->start_fen, "%s", fen);
    return pos_from_fen(&gp->pos, v, fen, err);
}

/* Picks the move to play: the best, or with a temperature T one of the root moves within
 * the margin in the sampling iteration (the deepest finished one at most --temp-depth
 * deep, whose scores are exact within the margin), a move d centipawns below that
 * iteration's best with weight T^2 / (T^2 + dT + d^2/2), a rational stand-in for exp(-d/T)
 * in integers so that every machine draws the same move from the same stream. */
static Move game_sample(const SearchResult *r, const GameConfig *cfg, int ply, uint64_t *rng) {
    if (cfg->temperature <= 0 || ply >= cfg->temp_plies || r->nsample < 2) return r->best;
    int best = r->sample_score[0];
    if (best > SEARCH_MATE_BOUND || best < -SEARCH_MATE_BOUND) return r->best;
    uint64_t w[MAX_MOVES], total = 0, t = (uint64_t)cfg->temperature;
    int k = 0;
    for (; k < r->nsample && r->sample_score[k] > best - cfg->temp_margin - (k == 0); k++) {
        uint64_t d = (uint64_t)(best - r->sample_score[k]);
        w[k] = (t * t << 16) / (t * t + d * t + d * d / 2);
        total += w[k];
    }
    uint64_t u = game_rng_next(rng) % total;
    for (int i = 0; i < k; i++) {
        if (u < w[i]) return r->sample_move[i];
        u -= w[i];
    }
    return r->sample_move[k - 1];
}

/* What a game carries from move to move besides its position: the random stream, whether
 * each UCI player's engine has yet to see the game, the streaks that adjudication by score
 * counts, and the length of the UCI move text. */
typedef struct GameState {
    uint64_t rng;
    bool engine_new[2];   /* by player (0: A) */
    int losing_streak[2]; /* by colour: own moves in a row scored <= -resign_score */
    int quiet_streak;     /* plies in a row scored within +-draw_score */
    size_t textlen;
} GameState;

/* A random move: one of the opening's random plies, or a random player's. */
static void game_move_random(GamePlayer *gp, int n, GameState *st, GamePly *gpl) {
    gpl->played = gp->list[game_rng_next(&st->rng) % (uint64_t)n];
    gpl->best = MOVE_NONE;
    gpl->score = 0;
    gpl->random = 1;
    gpl->depth = 0;
}

/* A random move drawn among the search's best cfg->random_multipv root moves within
 * random_multipv_diff centipawns of the best (uniformly): the position is still labelled by
 * the search, and the ply is marked random. Returns the search's score. */
static int game_move_multipv(GamePlayer *gp, const GameConfig *cfg, int who, Game *g, GameState *st,
                             GamePly *gpl) {
    SearchLimits lim = {.nodes = cfg->player[who].nodes,
                        .depth = cfg->player[who].depth,
                        .movetime_ms = cfg->player[who].movetime_ms,
                        .margin = cfg->random_multipv_diff + 1,
                        .margin_depth = cfg->temp_depth};
    SearchResult r = search_run(gp->search[who], &gp->pos, &lim);
    g->nodes += r.nodes;
    gpl->best = r.best;
    gpl->score = (int16_t)r.score;
    gpl->depth = (uint8_t)r.depth;
    gpl->random = 1;
    int k = 0;
    while (k < r.nsample && k < cfg->random_multipv &&
           r.sample_score[k] >= r.sample_score[0] - cfg->random_multipv_diff)
        k++;
    gpl->played = k ? r.sample_move[game_rng_next(&st->rng) % (uint64_t)k] : r.best;
    return r.score;
}

/* Marks the plies of a game's random moves anywhere: cfg->random_moves distinct plies drawn
 * from the game's stream in [random_min_ply, random_max_ply] (all of them when the range
 * is smaller). Draws nothing when the option is off, so games without it do not change. */
static void game_random_plies(const GameConfig *cfg, GameState *st, uint8_t *mark) {
    int lo = cfg->random_min_ply, hi = cfg->random_max_ply;
    if (cfg->random_moves <= 0 || hi < lo) return;
    if (hi >= MAX_GAME_PLY) hi = MAX_GAME_PLY - 1;
    int span = hi - lo + 1, want = cfg->random_moves < span ? cfg->random_moves : span;
    for (int got = 0; got < want;) {
        int k = lo + (int)(game_rng_next(&st->rng) % (uint64_t)span);
        if (!mark[k]) {
            mark[k] = 1;
            got++;
        }
    }
}

/* The move of UCI player `who`, with its engine's own score and depth as labels; false
 * when the engine crashed, hung or played an illegal move (the reason is in g). */
static bool game_move_engine(GamePlayer *gp, const GameConfig *cfg, int who, Game *g, GameState *st,
                             GamePly *gpl) {
    int score = 0, depth = 0;
    Move m =
        gp->driver[who]->move(gp, &cfg->player[who], who, &gp->pos, g->start_fen, gp->movetext,
                              st->engine_new[who], g->reason, sizeof g->reason, &score, &depth);
    st->engine_new[who] = false;
    if (m == MOVE_NONE) return false;
    gpl->played = gpl->best = m;
    gpl->score = (int16_t)score;
    gpl->random = 0;
    gpl->depth = (uint8_t)(depth > 255 ? 255 : depth);
    return true;
}

/* The move of searching player `who`: its search's best move as the label, and the move
 * played drawn by game_sample; returns the search's score. */
static int game_move_search(GamePlayer *gp, const GameConfig *cfg, int who, Game *g, GameState *st,
                            GamePly *gpl) {
    SearchLimits lim = {
        .nodes = cfg->player[who].nodes,
        .depth = cfg->player[who].depth,
        .movetime_ms = cfg->player[who].movetime_ms,
        .margin = cfg->temperature > 0 && g->nply < cfg->temp_plies ? cfg->temp_margin : 0,
        .margin_depth = cfg->temp_depth};
    SearchResult r = search_run(gp->search[who], &gp->pos, &lim);
    g->nodes += r.nodes;
    gpl->best = r.best;
    gpl->score = (int16_t)r.score;
    gpl->played = game_sample(&r, cfg, g->nply, &st->rng);
    gpl->random = 0;
    gpl->depth = (uint8_t)r.depth;
    return r.score;
}

/* Adjudication by a searching player's score for the side `mover`: it resigns after
 * resign_plies own moves in a row scored <= -resign_score; the game is drawn after
 * draw_plies plies in a row scored within +-draw_score, from ply draw_min_ply on. The
 * termination (TERM_NONE: play on), with White's score in *white_score. */
static int game_adjudicate_score(const GameConfig *cfg, const Game *g, int mover, int score,
                                 GameState *st, int *white_score) {
    if (cfg->resign_plies > 0) {
        st->losing_streak[mover] = score <= -cfg->resign_score ? st->losing_streak[mover] + 1 : 0;
        if (st->losing_streak[mover] >= cfg->resign_plies) {
            *white_score = mover == WHITE ? 0 : 1000;
            return TERM_RESIGN;
        }
    }
    if (cfg->draw_plies > 0) {
        int size = score < 0 ? -score : score;
        st->quiet_streak = size <= cfg->draw_score ? st->quiet_streak + 1 : 0;
        if (st->quiet_streak >= cfg->draw_plies && g->nply >= cfg->draw_min_ply) {
            *white_score = 500;
            return TERM_DRAW_SCORE;
        }
    }
    return TERM_NONE;
}

/* Appends move m of pos to the game's move text, the position external players are sent,
 * in their notation (both players' drivers read the same: UCI). */
static void game_append_movetext(GamePlayer *gp, const Position *pos, Move m, GameState *st) {
    const ExternalPlayer *d = gp->driver[0] ? gp->driver[0] : gp->driver[1];
    if (st->textlen) gp->movetext[st->textlen++] = ' ';
    st->textlen += (size_t)d->move_text(pos, m, gp->movetext + st->textlen);
    gp->movetext[st->textlen] = 0;
}

/* Plays one game from its own random stream, so it depends only on the configuration and
 * its id: each ply, adjudication by the rules first, then the mover's player (random in
 * the opening's random plies), then for a searching player adjudication by its score. */
bool game_play(GamePlayer *gp, const GameConfig *cfg, uint32_t id, Game *g, CvError *err) {
    uint64_t key = cfg->paired ? id / 2 : id;
    GameState st = {.rng = XXH3_64bits_withSeed(&key, sizeof key, cfg->seed),
                    .engine_new = {true, true}};
    g->id = id;
    g->nply = 0;
    g->nodes = 0;
    g->reason[0] = 0;
    g->ply0 = 0;
    if (gp->movetext) gp->movetext[0] = 0;
    g->a_is_white = (id & 1) == 0;
    if (!game_start(gp, cfg, &st.rng, g, err)) return false;
    for (int i = 0; i < 2; i++) /* the clocks of players under a time control */
        gp->clock_ms[i] = cfg->player[i].kind == PLAYER_UCI ? cfg->player[i].uci->tc_base_ms : 0;
    for (int i = 0; i < 2; i++)
        if (gp->search[i]) search_clear(gp->search[i]);
    Position *pos = &gp->pos;
    int cap = cfg->ply_cap + pos->ply;
    Move moves[MAX_GAME_PLY];
    uint8_t random_at[MAX_GAME_PLY] = {0};
    game_random_plies(cfg, &st, random_at);
    for (;;) {
        int n = pos_legal_moves(pos, gp->list);
        int white_score;
        int term = game_adjudicate(pos, n, cap, &white_score);
        if (term != TERM_NONE) {
            g->termination = term;
            g->white_score = white_score;
            break;
        }
        int mover = pos->side;
        int who = (mover == WHITE) == (g->a_is_white != 0) ? 0 : 1; /* 0: player A */
        int kind = cfg->player[who].kind;
        GamePly *gpl = &g->ply[g->nply];
        gpl->legal = (uint16_t)n;
        bool random = g->nply < cfg->random_plies || random_at[g->nply];
        if (random && cfg->random_multipv > 0 && kind == PLAYER_SEARCH) {
            game_move_multipv(gp, cfg, who, g, &st, gpl);
        } else if (random || kind == PLAYER_RANDOM) {
            game_move_random(gp, n, &st, gpl);
        } else if (kind == PLAYER_UCI) {
            if (!game_move_engine(gp, cfg, who, g, &st, gpl)) { /* the engine loses */
                g->termination = TERM_ENGINE;
                g->white_score = mover == WHITE ? 0 : 1000;
                break;
            }
        } else {
            int score = game_move_search(gp, cfg, who, g, &st, gpl);
            term = game_adjudicate_score(cfg, g, mover, score, &st, &white_score);
            if (term != TERM_NONE) {
                g->termination = term;
                g->white_score = white_score;
                break;
            }
        }
        moves[g->nply] = gpl->played;
        if (gp->movetext) game_append_movetext(gp, pos, gpl->played, &st);
        g->nply++;
        pos_make(pos, gpl->played);
    }
    uint64_t h = XXH3_64bits(g->start_fen, strlen(g->start_fen));
    g->hash = XXH3_64bits_withSeed(moves, (size_t)g->nply * sizeof moves[0], h);
    return true;
}
