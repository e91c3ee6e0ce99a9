/* match.h - matches against external UCI engines: the engine as a game player (started on
 * first use, options set, one move per call, any failure a lost game and a restart) and
 * the Elo estimate of a match score with its 95% interval. */
#ifndef CHESSVAR_SELFPLAY_MATCH_H
#define CHESSVAR_SELFPLAY_MATCH_H

#include "../games/game.h"
#include "uci_client.h"

/* Starts the engine of spec, sends its options and `isready`; err names the failure. */
bool match_engine_start(UciProc *p, const UciEngineSpec *spec, const Variant *v, CvError *err);

/* Converts the engine's last reported score to chessvar's scale (mates as +-(SEARCH_MATE -
 * plies)), clamped to int16; 0 when it reported none. */
int match_engine_score(const UciBest *best);

/* Asks player `who` (a PLAYER_UCI) for its move in pos, reached from start_fen by the
 * moves in movetext (UCI notation, space-separated). new_game: send `ucinewgame` first.
 * best gets the engine's answer (its move text, depth and score).
 * On a crash, a hang past its deadline or an illegal move the engine is killed (the next
 * call restarts it), reason says what happened and the result is MOVE_NONE. */
Move match_engine_move(GamePlayer *gp, const PlayerSpec *ps, int who, Position *pos,
                       const char *start_fen, const char *movetext, bool new_game, char *reason,
                       size_t n, UciBest *best);

/* Stops every engine of gp (quit, then kill). */
void match_engines_free(GamePlayer *gp);

/* The UCI engine as a game's external player (game.h): match_engine_move with the engine's
 * score converted by match_engine_score, and match_engines_free. */
extern const ExternalPlayer match_uci_player;

/* Score and Elo of a match from the counts of one player's per-game results (0, 1/4,
 * 1/2, 3/4, 1: counts[0..4]): the mean score, the Elo difference and the bounds of its
 * 95% interval (normal approximation of the mean; +-inf as +-9999 at 0% or 100%). */
typedef struct MatchElo {
    uint32_t games;
    double score, elo, elo_lo, elo_hi;
} MatchElo;
MatchElo match_elo(const uint32_t counts[5]);

#endif
