/* game.c - plays one self-play game and adjudicates its end. */
#include "game.h"

#include <stdlib.h>

#include <stdio.h>
#include <string.h>
#include <xxhash.h>

#include "match.h"

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
    gp->restarts = 0;
    gp->movetext = NULL;
    for (int i = 0; i < 2; i++) {
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
    match_engines_free(gp);
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

/* Chooses the start position of game g: the fixed FEN, a random start as the variant's
 * record says (a prelude array in Superchess, one of the playable named starts), or the
 * default. */
static bool game_start(GamePlayer *gp, const GameConfig *cfg, uint64_t *rng, Game *g,
                       CvError *err) {
    const Variant *v = cfg->var;
    const char *fen = cfg->start_fen ? cfg->start_fen : v->start_fen;
    char buf[256];
    if (!cfg->start_fen && cfg->random_start) {
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

/* Plays one game from its own random stream, so it depends only on the configuration and its id. */
bool game_play(GamePlayer *gp, const GameConfig *cfg, uint32_t id, Game *g, CvError *err) {
    uint64_t key = cfg->paired ? id / 2 : id;
    uint64_t rng = XXH3_64bits_withSeed(&key, sizeof key, cfg->seed);
    g->id = id;
    g->nply = 0;
    g->nodes = 0;
    g->reason[0] = 0;
    bool engine_new[2] = {true, true};
    size_t textlen = 0;
    if (gp->movetext) gp->movetext[0] = 0;
    g->a_is_white = (id & 1) == 0;
    if (!game_start(gp, cfg, &rng, g, err)) return false;
    for (int i = 0; i < 2; i++)
        if (gp->search[i]) search_clear(gp->search[i]);
    Position *pos = &gp->pos;
    int losing_streak[2] = {0, 0}, quiet_streak = 0;
    int cap = cfg->ply_cap + pos->ply;
    Move moves[MAX_GAME_PLY];
    for (;;) {
        int n = pos_legal_moves(pos, gp->list);
        int ws;
        int term = game_adjudicate(pos, n, cap, &ws);
        if (term != TERM_NONE) {
            g->termination = term;
            g->white_score = ws;
            break;
        }
        int mover = pos->side;
        int who = (mover == WHITE) == (g->a_is_white != 0) ? 0 : 1; /* 0: player A */
        GamePly *gpl = &g->ply[g->nply];
        gpl->legal = (uint16_t)n;
        if (g->nply < cfg->random_plies || cfg->player[who].kind == PLAYER_RANDOM) {
            gpl->played = gp->list[game_rng_next(&rng) % (uint64_t)n];
            gpl->best = MOVE_NONE;
            gpl->score = 0;
            gpl->random = 1;
            gpl->depth = 0;
        } else if (cfg->player[who].kind == PLAYER_UCI) {
            UciBest best;
            Move m = match_engine_move(gp, &cfg->player[who], who, pos, g->start_fen, gp->movetext,
                                       engine_new[who], g->reason, sizeof g->reason, &best);
            engine_new[who] = false;
            if (m == MOVE_NONE) { /* crashed, hung or illegal: the engine loses */
                g->termination = TERM_ENGINE;
                g->white_score = mover == WHITE ? 0 : 1000;
                break;
            }
            gpl->played = gpl->best = m; /* the engine's own score and depth as labels */
            gpl->score = (int16_t)match_engine_score(&best);
            gpl->random = 0;
            gpl->depth = (uint8_t)(best.depth > 255 ? 255 : best.depth);
        } else {
            SearchLimits lim = {
                .nodes = cfg->player[who].nodes,
                .depth = cfg->player[who].depth,
                .movetime_ms = cfg->player[who].movetime_ms,
                .margin = cfg->temperature > 0 && g->nply < cfg->temp_plies ? cfg->temp_margin : 0,
                .margin_depth = cfg->temp_depth};
            SearchResult r = search_run(gp->search[who], pos, &lim);
            g->nodes += r.nodes;
            gpl->best = r.best;
            gpl->score = (int16_t)r.score;
            gpl->played = game_sample(&r, cfg, g->nply, &rng);
            gpl->random = 0;
            gpl->depth = (uint8_t)r.depth;
            if (cfg->resign_plies > 0) {
                losing_streak[mover] = r.score <= -cfg->resign_score ? losing_streak[mover] + 1 : 0;
                if (losing_streak[mover] >= cfg->resign_plies) {
                    g->termination = TERM_RESIGN;
                    g->white_score = mover == WHITE ? 0 : 1000;
                    break;
                }
            }
            if (cfg->draw_plies > 0) {
                int a = r.score < 0 ? -r.score : r.score;
                quiet_streak = a <= cfg->draw_score ? quiet_streak + 1 : 0;
                if (quiet_streak >= cfg->draw_plies && g->nply >= cfg->draw_min_ply) {
                    g->termination = TERM_DRAW_SCORE;
                    g->white_score = 500;
                    break;
                }
            }
        }
        moves[g->nply] = gpl->played;
        if (gp->movetext) { /* the position the UCI players are sent */
            if (textlen) gp->movetext[textlen++] = ' ';
            textlen += (size_t)uci_move_str(pos, gpl->played, gp->movetext + textlen);
            gp->movetext[textlen] = 0;
        }
        g->nply++;
        pos_make(pos, gpl->played);
    }
    uint64_t h = XXH3_64bits(g->start_fen, strlen(g->start_fen));
    g->hash = XXH3_64bits_withSeed(moves, (size_t)g->nply * sizeof moves[0], h);
    return true;
}
