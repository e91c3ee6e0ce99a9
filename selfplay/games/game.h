/* game.h - one self-play game: players, opening randomisation, adjudication and the
 * per-ply record kept in memory until the game's shard is written. */
#ifndef CHESSVAR_SELFPLAY_GAME_H
#define CHESSVAR_SELFPLAY_GAME_H

#include "../player/search.h"

/* Why a game ended; the values are stored in the data files (see FORMAT.md). */
typedef enum Termination {
    TERM_NONE = 0,
    TERM_MATE = 1,
    TERM_STALEMATE = 2,
    TERM_REPETITION = 3,
    TERM_FIFTY = 4,
    TERM_PLY_CAP = 5,
    TERM_MATERIAL = 6,
    TERM_RESIGN = 7,
    TERM_DRAW_SCORE = 8,
    TERM_ENGINE = 9, /* an external engine crashed, hung or played an illegal move: it lost */
    TERM_COUNT = 10
} Termination;

/* Name of a termination reason, e.g. "mate". */
const char *game_term_name(int t);

enum { PLAYER_SEARCH = 0, PLAYER_RANDOM = 1, PLAYER_UCI = 2 };

#define UCI_MAX_OPTIONS 16

struct GamePlayer;
struct PlayerSpec;

/* How a game asks a player outside the process for its move, and stops it: the room of
 * matches implements it for UCI engines (match/match.h, match_uci_player), so the game loop
 * needs nothing of matches. move returns MOVE_NONE when the player failed (a crash, a hang,
 * an illegal move: reason says what), else the move with the player's score and depth. */
typedef struct ExternalPlayer {
    Move (*move)(struct GamePlayer *gp, const struct PlayerSpec *ps, int who, Position *pos,
                 const char *start_fen, const char *movetext, bool new_game, char *reason, size_t n,
                 int *score, int *depth);
    void (*stop)(struct GamePlayer *gp); /* stops every engine of gp */
    /* writes m (legal in pos) as the player reads moves into buf; returns its length */
    int (*move_text)(const Position *pos, Move m, char *buf);
} ExternalPlayer;

/* An external UCI engine as a player (selfplay/match/match.c): the command, options sent after
 * the handshake, and how long past its budget it may take before it loses the game. */
typedef struct UciEngineSpec {
    const ExternalPlayer *driver; /* how games drive it: &match_uci_player */
    const char *cmd;
    int noptions;
    const char *option_name[UCI_MAX_OPTIONS];
    const char *option_value[UCI_MAX_OPTIONS];
    double timeout_s; /* seconds allowed beyond movetime (or in all, without movetime) */
    /* a time control (tc_base_ms > 0): the engine gets `go wtime btime winc binc` from a
     * clock that starts each game at tc_base_ms and gains tc_inc_ms after each move; it
     * loses the game when a move takes longer than its clock holds */
    int64_t tc_base_ms, tc_inc_ms;
    const char *label; /* the name games give it (NULL: uci:CMD and its budget) */
} UciEngineSpec;

typedef struct PlayerSpec {
    int kind;                 /* PLAYER_* */
    int64_t nodes;            /* budget per move (0: none) */
    int depth;                /* depth per move (0: none) */
    int64_t movetime_ms;      /* wall-clock budget per move (0: none); games then depend on speed */
    const UciEngineSpec *uci; /* PLAYER_UCI: the engine */
    const Network *net;       /* PLAYER_SEARCH: the network it evaluates with (NULL: classical) */
    const char *eval_name;    /* with net: how names show it (the file and its checksum) */
} PlayerSpec;

/* Everything that decides a game besides its id: equal configs and ids give equal games. */
typedef struct GameConfig {
    const Variant *var;
    const char *start_fen; /* NULL: the variant's start, or a random start (prelude) */
    bool random_start;     /* pick the start among the variant's named starts / prelude */
    /* non-NULL: each game starts from one of the book's positions (selfplay/games/book.h) */
    const struct Book *book;
    uint64_t seed;
    int random_plies; /* uniformly random moves at the start of each game */
    /* random moves anywhere: random_moves plies drawn per game in [random_min_ply,
     * random_max_ply] are played at random (0: none) */
    int random_moves, random_min_ply, random_max_ply;
    /* > 0: a random move (of the opening or of random_moves) is drawn uniformly among the
     * search's best random_multipv moves within random_multipv_diff centipawns of the best */
    int random_multipv, random_multipv_diff;
    int temperature; /* centipawns; 0 = always the best move */
    int temp_margin; /* candidate moves: within this many centipawns of the best */
    int temp_plies;  /* temperature applies while ply < temp_plies */
    int temp_depth;  /* the sampler's scores come from iterations up to this depth; deeper
                        ones only find the best move and the label (0: every iteration) */
    int ply_cap;
    int resign_score, resign_plies;           /* 0: never resign */
    int draw_score, draw_plies, draw_min_ply; /* draw_plies 0: never adjudicate a draw */
    PlayerSpec player[2];                     /* player A (White in even games), player B */
    bool paired; /* games 2k and 2k+1 share their random stream: one opening, both colours */
    int tt_bits;
} GameConfig;

/* One ply as played. */
typedef struct GamePly {
    Move played;
    Move best;      /* MOVE_NONE when the move was not searched */
    int16_t score;  /* search score for the mover */
    uint16_t legal; /* legal moves in the position before the move */
    uint8_t random; /* 1: random move (opening randomisation or random player) */
    uint8_t depth;  /* deepest completed search iteration (0 if not searched) */

    /* 1: left out of the position files (selfplay/games/filter.h), set when the shard is written */
    uint8_t unwritten;
} GamePly;

/* A played game; `ply` holds nply entries (a game being played needs room for
 * MAX_GAME_PLY: allocate it with game_size(MAX_GAME_PLY)). */
typedef struct Game {
    uint32_t id;
    char start_fen[256];
    int nply;
    int termination; /* Termination */
    int white_score; /* per mille: 1000 White won, 0 Black won, 500 draw, 750/250 stalemate */
    int a_is_white;  /* player A had White */
    int64_t nodes;   /* search nodes spent */
    uint64_t hash;   /* XXH3 of the start and the moves: duplicate detection */
    char reason[96]; /* TERM_ENGINE: what the engine did wrong, else empty */
    /* plies of the game before start_fen: 0 for a game played; a part of a game read back
     * from a bin file whose positions skip plies starts later */
    uint16_t ply0;
    GamePly ply[];
} Game;

/* Bytes of a Game with room for nply plies. */
static inline size_t game_size(int nply) { return sizeof(Game) + (size_t)nply * sizeof(GamePly); }

/* Per-thread player state: one search per player, reused across games. */
typedef struct GamePlayer {
    Search *search[2];
    struct UciProc *engine[2];       /* PLAYER_UCI: the engine process, restarted after a failure */
    const ExternalPlayer *driver[2]; /* PLAYER_UCI: the player's driver (its spec's) */
    int restarts;                    /* engine (re)starts after the first */
    char *movetext;                  /* with a PLAYER_UCI: the game's moves in UCI notation */
    int64_t clock_ms[2];             /* PLAYER_UCI with a time control: time left, per player */
    Position pos;
    Move list[MAX_MOVES];
} GamePlayer;

/* Allocates the searches of both players; false if out of memory. */
bool game_player_init(GamePlayer *gp, const GameConfig *cfg);
void game_player_free(GamePlayer *gp);

/* Decides whether the game is over in pos (n legal moves in list) before a move is
 * chosen: returns the Termination (TERM_NONE to go on) and sets *white_score. */
int game_adjudicate(Position *pos, int n, int ply_cap, int *white_score);

/* Plays game `id` of the configuration into g (room for MAX_GAME_PLY plies); false with
 * a message in err on a bad start. */
bool game_play(GamePlayer *gp, const GameConfig *cfg, uint32_t id, Game *g, CvError *err);

/* splitmix64: the random stream of one game, derived from (seed, game id). */
static inline uint64_t game_rng_next(uint64_t *state) { return splitmix64_next(state); }

#endif
