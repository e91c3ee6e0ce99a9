/* test_san.c - SAN (engine/san.c) and PGN opening books (selfplay/games/book_pgn.c).
 *
 * SAN: hand-checked texts of orthodox positions (disambiguation by file, rank and both,
 * e.p., promotions, castling, check and mate); then, in random games of all four variants,
 * every legal move's SAN is unique in its position and reads back to the move, and so do
 * the variations PGN files out there write (long algebraic, =Q or Q, 0-0, annotations,
 * chessvar's own notation), each built here from the move's squares.
 *
 * PGN books: the PGN chessvar's own selfplay writes (Superchess, Supremo) read as a book at
 * several cuts gives the positions the run's JSONL holds at those plies; the same games
 * rewritten here in SAN with comments, NAGs and variations give the same positions; bad
 * books are refused with the file, the game, the line and the token. */
#define _XOPEN_SOURCE 700
#include "../selfplay/games/book.h"
#include "selfplay_util.h"
#include "test_util.h"

TestSuite(san, .init = engine_init, .timeout = 300);
TestSuite(pgnbook, .init = engine_init, .timeout = 300);

/* The move of position fen whose chessvar notation is uci. */
static Move san_move(Position *p, const char *uci) {
    CvError err = {{0}};
    Move m = move_from_str(p, uci, &err);
    cr_assert_neq(m, MOVE_NONE, "%s: %s", uci, err.msg);
    return m;
}

Test(san, orthodox_texts_are_standard) {
    static const struct {
        const char *fen, *uci, *san;
    } cases[] = {
        {"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "e2e4", "e4"},
        {"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "g1f3", "Nf3"},
        {"rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 2", "e4d5", "exd5"},
        {"4k3/8/8/8/8/8/8/1N1K1N2 w - - 0 1", "b1d2", "Nbd2"},
        {"4k3/8/8/8/8/8/8/1N1K1N2 w - - 0 1", "f1d2", "Nfd2"},
        {"4k3/8/8/8/R7/8/8/R3K3 w Q - 0 1", "a1a2", "R1a2"},
        {"4k3/8/8/8/R7/8/8/R3K3 w Q - 0 1", "a4a2", "R4a2"},
        {"4k3/8/8/8/R7/8/8/R3K3 w Q - 0 1", "e1c1", "O-O-O"},
        {"2k5/8/8/8/4Q2Q/K7/8/7Q w - - 0 1", "h4e1", "Qh4e1"},
        {"2k5/8/8/8/4Q2Q/K7/8/7Q w - - 0 1", "e4e1", "Qee1"},
        {"2k5/8/8/8/4Q2Q/K7/8/7Q w - - 0 1", "h1e1", "Q1e1"},
        {"4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 2", "e5d6", "exd6"},
        {"4k3/1P6/8/8/8/8/8/4K3 w - - 0 1", "b7b8q", "b8=Q+"},
        {"4k3/1P6/8/8/8/8/8/4K3 w - - 0 1", "b7b8n", "b8=N"},
        {"r1bqkbnr/pppp1ppp/2n5/4p3/2B1P3/5Q2/PPPP1PPP/RNB1K1NR w KQkq - 2 4", "f3f7", "Qxf7#"},
        {"r3k2r/8/8/8/8/8/8/4K3 b kq - 0 1", "e8g8", "O-O"},
    };
    const Variant *v = variant_by_name("chess");
    Position *p = malloc(sizeof *p);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tu_fen(p, v, cases[i].fen);
        Move m = san_move(p, cases[i].uci);
        char text[MOVE_SAN_SIZE];
        move_to_san(p, m, text);
        cr_expect_str_eq(text, cases[i].san, "%s in %s", cases[i].uci, cases[i].fen);
        CvError err = {{0}};
        cr_expect_eq(move_from_san(p, cases[i].san, &err), m, "%s: %s", cases[i].san, err.msg);
    }
    /* what other programs write, and what no legal move or more than one fits */
    tu_fen(p, v, "4k3/8/8/8/8/8/8/1N1K1N2 w - - 0 1");
    CvError err = {{0}};
    cr_expect_eq(move_from_san(p, "Nb1-d2", &err), san_move(p, "b1d2"));
    cr_expect_eq(move_from_san(p, "N1d2", &err), MOVE_NONE, "both knights stand on rank 1");
    cr_expect(strstr(err.msg, "ambiguous move 'N1d2'"), "%s", err.msg);
    cr_expect_eq(move_from_san(p, "Ne4", &err), MOVE_NONE);
    cr_expect(strstr(err.msg, "illegal or unknown move 'Ne4'"), "%s", err.msg);
    tu_fen(p, v, "4k3/1P6/8/8/8/8/8/4K3 w - - 0 1");
    cr_expect_eq(move_from_san(p, "b8Q", &err), san_move(p, "b7b8q"));
    cr_expect_eq(move_from_san(p, "b8", &err), MOVE_NONE, "a promotion names its piece");
    tu_fen(p, v, "4k3/8/8/8/R7/8/8/R3K3 w Q - 0 1");
    cr_expect_eq(move_from_san(p, "0-0-0", &err), san_move(p, "e1c1"));
    cr_expect_eq(move_from_san(p, "O-O", &err), MOVE_NONE, "no kingside rook");
    free(p);
}

/* What the walks met, so that each kind of move is known to have been read back. */
typedef struct SanSeen {
    long moves, castles, drops, switches, mids, promos, hinted, checks;
} SanSeen;

/* The long algebraic text of board move m: letter (none for a pawn), from, x or -, the
 * intermediate capture, to, =promotion; built from the board, not from the writer. */
static void san_long(const Position *p, Move m, char *buf) {
    int from = MOVE_FROM(m), to = MOVE_TO(m), mid = MOVE_MID(m), pc = p->board[from];
    char letter = p->var->pieces[PC_TYPE(pc)].letter, sq[3][8];
    int tpc = p->board[to];
    bool takes = MOVE_KIND(m) == MK_EP || (tpc && PC_COLOR(tpc) != p->side);
    int sqs[3] = {from, mid, to};
    for (int k = 0; k < 3; k++)
        if (sqs[k] != NO_SQ)
            snprintf(sq[k], sizeof sq[k], "%c%d", 'a' + sqs[k] % p->width, sqs[k] / p->width + 1);
    int n = letter == 'P' ? 0 : sprintf(buf, "%c", letter);
    n += sprintf(buf + n, "%s", sq[0]);
    if (mid != NO_SQ) n += sprintf(buf + n, "x%s", sq[1]);
    n += sprintf(buf + n, "%c%s", takes ? 'x' : '-', sq[2]);
    if (MOVE_PROMO(m)) sprintf(buf + n, "=%c", p->var->pieces[MOVE_PROMO(m)].letter);
}

/* Every legal move of p: its SAN is unique, leaves p as it was, and it and its variations
 * read back to the move. */
static void san_check_position(Position *p, SanSeen *seen) {
    static char text[MAX_MOVES][MOVE_SAN_SIZE];
    Move list[MAX_MOVES];
    int n = pos_legal_moves(p, list);
    char fen[512], var[2 * MOVE_SAN_SIZE];
    pos_to_fen(p, fen, sizeof fen);
    uint64_t key = p->key;
    int ply = p->ply;
    for (int i = 0; i < n; i++) {
        Move m = list[i];
        int len = move_to_san(p, m, text[i]);
        cr_assert(len > 0 && len < MOVE_SAN_SIZE && (int)strlen(text[i]) == len, "%s", fen);
        cr_assert(p->key == key && p->ply == ply, "move_to_san changed %s", fen);
        for (int j = 0; j < i; j++)
            cr_assert_str_neq(text[i], text[j], "two moves read %s in %s", text[j], fen);
        CvError err = {{0}};
        cr_assert_eq(move_from_san(p, text[i], &err), m, "%s in %s: %s", text[i], fen, err.msg);
        /* the check suffix: the move leaves the other side's royal attacked */
        pos_make(p, m);
        bool check = pos_in_check(p);
        pos_unmake(p);
        char last = text[i][len - 1];
        cr_assert_eq(check, last == '+' || last == '#', "%s in %s", text[i], fen);
        seen->checks += check;
        /* annotated, and without its suffix */
        snprintf(var, sizeof var, "%s!?", text[i]);
        cr_assert_eq(move_from_san(p, var, &err), m, "%s in %s: %s", var, fen, err.msg);
        snprintf(var, sizeof var, "%.*s", len - (check ? 1 : 0), text[i]);
        cr_assert_eq(move_from_san(p, var, &err), m, "%s in %s: %s", var, fen, err.msg);
        /* chessvar's notation */
        move_to_str(p, m, var);
        cr_assert_eq(move_from_san(p, var, &err), m, "%s in %s: %s", var, fen, err.msg);
        int kind = MOVE_KIND(m);
        seen->moves++;
        if (kind == MK_CASTLE) {
            seen->castles++;
            snprintf(var, sizeof var, "%s",
                     MOVE_TO(m) % p->width > MOVE_FROM(m) % p->width ? "0-0" : "0-0-0");
            cr_assert_eq(move_from_san(p, var, &err), m, "%s in %s: %s", var, fen, err.msg);
        } else if (kind == MK_DROP) seen->drops++;
        else if (kind == MK_SWITCH) seen->switches++;
        else {
            san_long(p, m, var);
            cr_assert_eq(move_from_san(p, var, &err), m, "%s (SAN %s) in %s: %s", var, text[i], fen,
                         err.msg);
            seen->mids += MOVE_MID(m) != NO_SQ;
            char letter = p->var->pieces[PC_TYPE(p->board[MOVE_FROM(m)])].letter;
            /* a hint: after the piece letter a rank, or a file not followed by a rank */
            char c1 = text[i][1], c2 = c1 ? text[i][2] : 0;
            bool file = c1 >= 'a' && c1 < 'a' + p->width;
            seen->hinted += letter != 'P' &&
                            ((file && !isdigit((unsigned char)c2)) || isdigit((unsigned char)c1));
        }
        if (MOVE_PROMO(m) && kind != MK_DROP) {
            seen->promos++;
            char *eq = strchr(text[i], '='); /* Q without = */
            if (eq) {
                snprintf(var, sizeof var, "%.*s%s", (int)(eq - text[i]), text[i], eq + 1);
                cr_assert_eq(move_from_san(p, var, &err), m, "%s in %s: %s", var, fen, err.msg);
            }
        }
    }
}

/* Random games of variant name from its random starts; returns what they met. */
static SanSeen san_walks(const char *name, int games, int plies) {
    const Variant *v = variant_by_name(name);
    cr_assert_not_null(v);
    Position *p = malloc(sizeof *p);
    SanSeen seen = {0};
    uint64_t rng = 0x5a17 + (uint64_t)games;
    for (int g = 0; g < games; g++) {
        char fen[512];
        CvError err = {{0}};
        cr_assert(variant_random_start(v, (uint64_t)g, fen, sizeof fen, &err), "%s", err.msg);
        tu_fen(p, v, fen);
        for (int k = 0; k < plies; k++) {
            san_check_position(p, &seen);
            Move list[MAX_MOVES];
            int n = pos_legal_moves(p, list);
            if (!n) break;
            pos_make(p, list[tu_rand(&rng) % (uint64_t)n]);
        }
    }
    free(p);
    return seen;
}

Test(san, every_legal_move_reads_back_in_chess) {
    SanSeen s = san_walks("chess", 12, 200);
    cr_expect(s.castles > 0 && s.promos > 0 && s.hinted > 0 && s.checks > 0,
              "castles %ld promotions %ld hinted %ld checks %ld of %ld moves", s.castles, s.promos,
              s.hinted, s.checks, s.moves);
}

Test(san, every_legal_move_reads_back_in_switching) {
    SanSeen s = san_walks("switching", 10, 200);
    /* switches move kings and rooks early, so random games seldom keep a castling right */
    Position *p = malloc(sizeof *p);
    tu_fen(p, variant_by_name("switching"), "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1");
    san_check_position(p, &s);
    free(p);
    cr_expect(s.switches > 0 && s.castles > 0 && s.checks > 0,
              "switches %ld castles %ld checks %ld of %ld moves", s.switches, s.castles, s.checks,
              s.moves);
}

Test(san, every_legal_move_reads_back_in_superchess) {
    SanSeen s = san_walks("superchess", 10, 200);
    cr_expect(s.drops > 0 && s.promos > 0 && s.checks > 0,
              "drops %ld promotions %ld checks %ld of %ld moves", s.drops, s.promos, s.checks,
              s.moves);
}

Test(san, every_legal_move_reads_back_in_supremo) {
    SanSeen s = san_walks("supremo", 5, 150);
    cr_expect(s.mids > 0 && s.hinted > 0 && s.checks > 0,
              "intermediate captures %ld hinted %ld checks %ld of %ld moves", s.mids, s.hinted,
              s.checks, s.moves);
}

/* ------------------------------------------------------------------ PGN books */

/* One game of a selfplay run, from its JSONL: the FEN before each ply. */
typedef struct RunGame {
    int nply;
    char fen[400][256];
} RunGame;

/* Reads the run's shard-000000.jsonl into games[]; returns the number of games. */
static int san_read_jsonl(const char *dir, RunGame *games, int max) {
    char path[700], line[2048], fen[256];
    snprintf(path, sizeof path, "%s/shard-000000.jsonl", dir);
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f, "%s", path);
    int n = 0;
    unsigned g;
    int ply;
    while (fgets(line, sizeof line, f)) {
        cr_assert_eq(sscanf(line, "{\"game\":%u,\"ply\":%d,\"fen\":\"%255[^\"]\"", &g, &ply, fen),
                     3);
        cr_assert(g < (unsigned)max && ply < 400, "%s", line);
        if ((int)g >= n) n = (int)g + 1;
        snprintf(games[g].fen[ply], sizeof games[g].fen[ply], "%s", fen);
        games[g].nply = ply + 1;
    }
    fclose(f);
    return n;
}

/* The book of path cut at plies must hold, game by game, the positions the run reached. */
static void san_expect_book(const char *path, const Variant *v, int plies, RunGame *games, int n) {
    CvError err = {{0}};
    Book *b = book_load(path, v, plies, &err);
    cr_assert_not_null(b, "%s at %d plies: %s", path, plies, err.msg);
    cr_assert_eq(b->n, n, "%s: %d games, the run played %d", path, b->n, n);
    for (int g = 0; g < n; g++)
        cr_expect_str_eq(b->fen[g], games[g].fen[plies], "%s: game %d at ply %d", path, g, plies);
    book_free(b);
}

/* Rewrites the selfplay PGN at src into SAN at dst, with comments, NAGs, annotations,
 * variations and a few moves in other spellings; the tags as they were. */
static void san_rewrite_pgn(const char *src, const char *dst, const Variant *v) {
    FILE *in = fopen(src, "r"), *out = fopen(dst, "w");
    cr_assert(in && out, "%s / %s", src, dst);
    Position *p = malloc(sizeof *p);
    char line[4096], fen[300];
    int k = 0;
    while (fgets(line, sizeof line, in)) {
        if (line[0] == '[') {
            if (sscanf(line, "[FEN \"%299[^\"]\"]", fen) == 1) tu_fen(p, v, fen);
            fputs(line, out);
            continue;
        }
        char *save = NULL;
        for (char *t = strtok_r(line, " \n", &save); t; t = strtok_r(NULL, " \n", &save)) {
            if (strchr(t, '.') || strchr(t, '-') == t + 1 || strcmp(t, "1/2-1/2") == 0 ||
                strcmp(t, "*") == 0) {
                if (!strchr(t, '.')) fprintf(out, "%s\n\n", t); /* the result */
                continue;
            }
            CvError err = {{0}};
            Move m = move_from_str(p, t, &err);
            cr_assert_neq(m, MOVE_NONE, "%s: %s", t, err.msg);
            char san[MOVE_SAN_SIZE];
            move_to_san(p, m, san);
            if (p->side == WHITE) fprintf(out, "%u. ", (unsigned)p->fullmove);
            else if (k % 7 == 0) fprintf(out, "%u... ", (unsigned)p->fullmove);
            fprintf(out, "%s%s ", san, k % 5 == 0 ? "!?" : "");
            if (k % 6 == 0) fprintf(out, "{a comment (with a paren} ");
            if (k % 9 == 0) fprintf(out, "$%d ", k % 20);
            if (k % 11 == 0) fprintf(out, "(%s {inside} (%s)) ", san, san);
            if (k % 13 == 0) fprintf(out, "; to the end of the line ( }\n");
            k++;
            pos_make(p, m);
        }
    }
    free(p);
    fclose(in);
    fclose(out);
}

/* The PGN of a selfplay run of variant name, read as a book at several cuts, and the same
 * games rewritten in SAN. */
static void san_selfplay_pgn_as_book(const char *name) {
    const Variant *v = variant_by_name(name);
    char d[512], run[600], pgn[700], sanpgn[700], vname[32];
    snprintf(vname, sizeof vname, "%s", name);
    su_temp_dir(d, sizeof d);
    snprintf(run, sizeof run, "%s/run", d);
    cr_assert_eq(
        su_run(SU_SP("--variant", vname, "--games", "6", "--threads", "2", "--seed", "5", "--nodes",
                     "200", "--out", run, "--format", "pgn,jsonl", "--progress", "0")),
        0);
    RunGame *games = calloc(6, sizeof *games);
    int n = san_read_jsonl(run, games, 6), shortest = 400;
    cr_assert_eq(n, 6);
    for (int g = 0; g < n; g++)
        if (games[g].nply < shortest) shortest = games[g].nply;
    cr_assert_gt(shortest, 4, "%s: a game of %d plies", name, shortest);
    snprintf(pgn, sizeof pgn, "%s/shard-000000.pgn", run);
    snprintf(sanpgn, sizeof sanpgn, "%s/san.pgn", d);
    san_rewrite_pgn(pgn, sanpgn, v);
    int cuts[] = {1, 2, shortest / 2, shortest - 1};
    for (size_t c = 0; c < sizeof cuts / sizeof cuts[0]; c++) {
        san_expect_book(pgn, v, cuts[c], games, n);
        san_expect_book(sanpgn, v, cuts[c], games, n);
    }
    free(games);
    su_remove_dir(d);
}

Test(pgnbook, selfplay_pgn_replays_in_superchess) { san_selfplay_pgn_as_book("superchess"); }

Test(pgnbook, selfplay_pgn_replays_in_supremo) { san_selfplay_pgn_as_book("supremo"); }

Test(pgnbook, bad_books_name_file_game_line_and_token) {
    static const struct {
        const char *text, *expect;
    } cases[] = {
        {"1. e4 e5 *\n\n[Variant \"supremo\"]\n1. e4 *\n",
         "book.pgn: game 2 (line 3): Variant \"supremo\" is not chess"},
        {"[Event \"a\"]\n1. e4 e5 2. Nf3\nNc6 3. Nf9 *\n",
         "book.pgn: game 1 (line 3): ply 5: illegal or unknown move 'Nf9'"},
        {"[FEN \"4k3/8/8/8/8/8/8/1N1K1N2 w - - 0 1\"]\n\n1. Nd2 *\n",
         "book.pgn: game 1 (line 3): ply 1: ambiguous move 'Nd2'"},
        {"1. e4 {never closed\n", "book.pgn: game 1 (line 1): comment '{' not closed"},
        {"1. e4 (1. d4 d5\n*\n", "book.pgn: game 1 (line 1): variation '(' not closed"},
        {"[SetUp \"1\"]\n1. e4 *\n", "book.pgn: game 1 (line 1): SetUp \"1\" without a FEN tag"},
        {"[FEN \"8/8/8/8/8/8/8/8 w - - 0 1\"]\n1. e4 *\n",
         "book.pgn: game 1 (line 1): bad FEN tag"},
        {"1. e4 *\n1. f3 e5 2. g4 Qh4# 0-1\n",
         "book.pgn: game 2 (line 2): after ply 4: the side to move has no legal move"},
        {"[Event \"x\n1. e4 *\n", "book.pgn: game 1 (line 1): tag Event: its value has no closing"},
        {"1. e4 e5 ) *\n", "book.pgn: game 1 (line 1): ')' without its opening"},
        {"\n%% an escape line\n\n", "book.pgn holds no game"},
    };
    char d[512], book[600], err[600], out[600];
    su_temp_dir(d, sizeof d);
    snprintf(book, sizeof book, "%s/book.pgn", d);
    snprintf(err, sizeof err, "%s/stderr", d);
    snprintf(out, sizeof out, "%s/run", d);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        FILE *f = fopen(book, "w");
        fputs(cases[i].text, f);
        fclose(f);
        su_expect_bad_book(book, err, out, cases[i].expect, i);
    }
    /* the last game of a book is cut at --book-plies even when it ends in mate; an EPD book
     * cannot be cut */
    FILE *f = fopen(book, "w");
    fputs("1. f3 e5 2. g4 Qh4# 0-1\n", f);
    fclose(f);
    CvError e = {{0}};
    Book *b = book_load(book, variant_by_name("chess"), 3, &e);
    cr_assert_not_null(b, "%s", e.msg);
    cr_expect_str_eq(b->fen[0], "rnbqkbnr/pppp1ppp/8/4p3/6P1/5P2/PPPPP2P/RNBQKBNR b KQkq - 0 2");
    book_free(b);
    snprintf(book, sizeof book, "%s/book.epd", d);
    f = fopen(book, "w");
    fputs("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1\n", f);
    fclose(f);
    cr_expect_null(book_load(book, variant_by_name("chess"), 3, &e));
    cr_expect(strstr(e.msg, "only a PGN book's games are cut"), "%s", e.msg);
    su_remove_dir(d);
}
