/* train_cmd.c - `chessvar train`: trains an evaluation network on self-play run folders
 * (selfplay/train/train.h) and writes the quantised network file; with --net, evaluates FENs
 * with a network file instead (one centipawn score per line, for checks and scripts). */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../selfplay/files.h"
#include "../selfplay/player/nnue.h"
#include "../selfplay/train/train.h"
#include "cli.h"

#define CMD "train"

/* A whole number of up to 64 bits. */
static bool train_opt_u64(const char *cmd, const char *opt, const char *val, void *dst) {
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

/* A finite number >= 0. */
static bool train_opt_double(const char *cmd, const char *opt, const char *val, void *dst) {
    char *end;
    errno = 0;
    double d = strtod(val, &end);
    if (!*val || *end || errno || !(d >= 0) || d > 1e12) {
        cli_usage_error(cmd, "%s needs a number >= 0, got '%s'", opt, val);
        return false;
    }
    *(double *)dst = d;
    return true;
}

/* --stack: "L1,L2" or "0" (none). */
static bool train_opt_stack(const char *cmd, const char *opt, const char *val, void *dst) {
    TrainOpts *o = dst;
    int a = 0, b = 0, n = 0;
    if (strcmp(val, "0") == 0 || strcmp(val, "none") == 0) {
        o->l1 = o->l2 = 0;
        return true;
    }
    if (sscanf(val, "%d,%d%n", &a, &b, &n) != 2 || val[n] || a < 4 || a > NNUE_MAX_L1 || a % 4 ||
        b < 1 || b > NNUE_MAX_L2) {
        cli_usage_error(cmd,
                        "%s needs L1,L2 (L1 a multiple of 4 in 4..%d, L2 in 1..%d) or 0, got "
                        "'%s'",
                        opt, NNUE_MAX_L1, NNUE_MAX_L2, val);
        return false;
    }
    o->l1 = a;
    o->l2 = b;
    return true;
}

static void train_show_stack(const char *opt, const void *dst, char *buf, size_t n) {
    const TrainOpts *o = dst;
    (void)opt;
    if (o->l1) snprintf(buf, n, "%d,%d", o->l1, o->l2);
    else snprintf(buf, n, "0: none");
}

/* King bucket maps by name: the bucket of the king on each of the 32 squares of ranks 1-8
 * x files a-d (its own side's view, files e-h mirrored onto them), rank by rank. */
static const struct {
    const char *name;
    uint8_t map[32];
} kb_presets[] = {
    {"1", {0}},
    {"4", {0, 0, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3,
           3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3}},
    {"8", {0, 1, 2, 3, 4, 4, 5, 5, 6, 6, 6, 6, 7, 7, 7, 7,
           7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7}},
    {"16", {0,  1,  2,  3,  4,  5,  6,  7,  8,  8,  9,  9,  10, 10, 11, 11,
            12, 12, 13, 13, 14, 14, 14, 14, 15, 15, 15, 15, 15, 15, 15, 15}},
};

/* --king-buckets: off, a preset (1, 4, 8, 16), or 32 comma-separated buckets. */
static bool train_opt_kb(const char *cmd, const char *opt, const char *val, void *dst) {
    TrainOpts *o = dst;
    if (strcmp(val, "off") == 0 || strcmp(val, "0") == 0) {
        o->kbuckets = 0;
        memset(o->kb_map, 0, sizeof o->kb_map);
        return true;
    }
    for (size_t i = 0; i < sizeof kb_presets / sizeof *kb_presets; i++)
        if (strcmp(val, kb_presets[i].name) == 0) {
            memcpy(o->kb_map, kb_presets[i].map, sizeof o->kb_map);
            o->kbuckets = atoi(val);
            return true;
        }
    const char *p = val;
    int top = -1;
    for (int i = 0; i < 32; i++) {
        char *end;
        long b = strtol(p, &end, 10);
        if (end == p || b < 0 || b >= NNUE_MAX_KBUCKET || (i < 31 ? *end != ',' : *end != 0)) {
            cli_usage_error(cmd,
                            "%s needs off, 1, 4, 8, 16 or 32 comma-separated buckets 0..%d "
                            "(ranks 1-8 x files a-d), got '%s'",
                            opt, NNUE_MAX_KBUCKET - 1, val);
            return false;
        }
        o->kb_map[i] = (uint8_t)b;
        top = b > top ? (int)b : top;
        p = end + 1;
    }
    o->kbuckets = top + 1;
    return true;
}

static void train_show_kb(const char *opt, const void *dst, char *buf, size_t n) {
    const TrainOpts *o = dst;
    (void)opt;
    if (o->kbuckets) snprintf(buf, n, "%d buckets", o->kbuckets);
    else snprintf(buf, n, "off");
}

/* Prints the network's evaluation of every FEN line of path ("-": stdin). */
static int train_eval_fens(const char *net_path, const char *vname, const char *path) {
    const Variant *v = cli_variant(CMD, vname);
    if (!v) return 2;
    CvError err;
    Network *net = nnue_load(net_path, v, &err);
    if (!net) return cli_usage_error(CMD, "%s", err.msg);
    FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "r");
    if (!f) {
        nnue_free(net);
        return cli_usage_error(CMD, "%s: cannot read it", path);
    }
    static Position pos;
    static NnueAcc acc;
    char line[1024];
    int rc = 0;
    for (long n = 1; fgets(line, sizeof line, f); n++) {
        line[strcspn(line, "\r\n")] = 0;
        if (!line[0]) continue;
        if (!pos_from_fen(&pos, v, line, &err)) {
            rc = cli_usage_error(CMD, "%s line %ld: %s", path, n, err.msg);
            break;
        }
        nnue_refresh(net, &pos, &acc);
        printf("%d\n", nnue_evaluate(net, &acc, &pos));
    }
    if (f != stdin) fclose(f);
    nnue_free(net);
    return rc;
}

static double train_clock(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Times the network's calls on the FENs of path, each repeated reps times: refresh,
 * evaluate, and update for every quiet move (one moved piece). Prints ns per call. */
static int train_bench(const char *net_path, const char *vname, const char *path, int reps) {
    const Variant *v = cli_variant(CMD, vname);
    if (!v) return 2;
    CvError err;
    Network *net = nnue_load(net_path, v, &err);
    if (!net) return cli_usage_error(CMD, "%s", err.msg);
    FILE *f = fopen(path, "r");
    if (!f) {
        nnue_free(net);
        return cli_usage_error(CMD, "%s: cannot read it", path);
    }
    static Position pos;
    static NnueAcc acc[2];
    static Move moves[MAX_MOVES];
    char line[1024];
    /* Read through volatile pointers in every repetition: the calls are pure, and an LTO
     * build otherwise computes them once per FEN (evaluate then timed at 0 ns). */
    NnueAcc *volatile acc_in = &acc[0], *volatile acc_out = &acc[1];
    Position *volatile pos_in = &pos;
    double t_ref = 0, t_eval = 0, t_upd = 0;
    long n_ref = 0, n_eval = 0, n_upd = 0, sink = 0;
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\r\n")] = 0;
        if (!line[0] || !pos_from_fen(&pos, v, line, &err)) continue;
        double t0 = train_clock();
        for (int r = 0; r < reps; r++) nnue_refresh(net, pos_in, acc_in);
        double t1 = train_clock();
        for (int r = 0; r < reps; r++) sink += nnue_evaluate(net, acc_in, pos_in);
        double t2 = train_clock();
        t_ref += t1 - t0;
        t_eval += t2 - t1;
        n_ref += reps;
        n_eval += reps;
        int nm = pos_legal_moves(&pos, moves);
        for (int i = 0; i < nm; i++) {
            int from = MOVE_FROM(moves[i]), to = MOVE_TO(moves[i]);
            if (MOVE_KIND(moves[i]) != MK_NORMAL || MOVE_PROMO(moves[i]) || pos.board[to] ||
                MOVE_MID(moves[i]) != NO_SQ)
                continue;
            DirtyPiece dp;
            memset(&dp, 0, sizeof dp);
            dp.n = 1;
            dp.d[0].pc = pos.board[from];
            dp.d[0].from = (uint8_t)from;
            dp.d[0].to = (uint8_t)to;
            double t3 = train_clock();
            for (int r = 0; r < reps; r++) nnue_update(net, acc_in, acc_out, &dp);
            t_upd += train_clock() - t3;
            n_upd += reps;
            sink += acc[1].v[0][0];
        }
    }
    fclose(f);
    printf("{\"hidden\":%d,\"simd\":%s,\"refresh_ns\":%.1f,\"update_ns\":%.1f,"
           "\"evaluate_ns\":%.1f,\"calls\":[%ld,%ld,%ld],\"sink\":%ld}\n",
           net->d.hidden, net->simd ? "true" : "false", 1e9 * t_ref / (double)(n_ref ? n_ref : 1),
           1e9 * t_upd / (double)(n_upd ? n_upd : 1), 1e9 * t_eval / (double)(n_eval ? n_eval : 1),
           n_ref, n_upd, n_eval, sink);
    nnue_free(net);
    return 0;
}

int cmd_train(int argc, char **argv) {
    TrainOpts o;
    train_defaults(&o);
    bool keep_check = false, keep_captures = false;
    const char *net = NULL, *eval_fens = NULL, *vname = NULL;
    int bench = 0;
    long positions = (long)o.positions;
    double shuffle = (double)o.shuffle;
    const CliOpt opts[] = {
        CLI_OPT_TEXT("--data", "DIRS", &o.data,
                     "self-play run folders (comma-separated) whose shard-*.bin to train on"),
        CLI_OPT_TEXT("--out", "FILE", &o.out, "the network file to write"),
        CLI_OPT_INT("--hidden", "H", 16, NNUE_MAX_HIDDEN, &o.hidden,
                    "feature transformer outputs per perspective, a multiple of 16 (default %v)"),
        CLI_OPT_INT("--output-buckets", "N", 1, NNUE_MAX_OBUCKET, &o.obuckets,
                    "output buckets by material (non-royal pieces on the board and in hand,\n"
                    "N equal slices of the start's count; a version 2 file; default %v)"),
        CLI_OPT_CALL_SHOW("--stack", "L1,L2", train_opt_stack, train_show_stack, &o,
                          "dense layers after the feature transformer, 2H -> L1 -> L2 -> 1\n"
                          "(clipped ReLU, int8 weights; a version 2 file; default %v)"),
        CLI_OPT_CALL_SHOW("--king-buckets", "MAP", train_opt_kb, train_show_kb, &o,
                          "king input buckets, mirrored when the king is on files e-h: 1, 4,\n"
                          "8, 16 or 32 comma-separated buckets of ranks 1-8 x files a-d; chess\n"
                          "and Switching only (a version 2 file; default %v)"),
        CLI_OPT_FLAG("--factorise", &o.factorise,
                     "with --king-buckets: train one more set of features shared by every\n"
                     "king bucket, added to each bucket's weights in the file, so what one\n"
                     "bucket learns about a piece on a square the others get too (the\n"
                     "file is the same shape as without it; default off)"),
        CLI_OPT_INT("--batch", "N", 1, 1 << 22, &o.batch, "positions per step (default %v)"),
        CLI_OPT_LONG("--positions", "N", 1, 1L << 50, &positions,
                     "training positions to consume in all (default %v)"),
        CLI_OPT_CALL_SHOW("--lr", "X", train_opt_double, cli_show_double, &o.lr,
                          "Adam step size (default %v)"),
        CLI_OPT_CALL_SHOW("--lr-end", "X", train_opt_double, cli_show_double, &o.lr_end,
                          "final step size of the cosine decay (default %v)"),
        CLI_OPT_CALL_SHOW("--lambda", "X", train_opt_double, cli_show_double, &o.lambda,
                          "target = X * sigmoid(score / K) + (1 - X) * game result (default %v)"),
        CLI_OPT_CALL_SHOW("--sigmoid-k", "K", train_opt_double, cli_show_double, &o.sig_k,
                          "centipawns of the sigmoid's scale (default %v)"),
        CLI_OPT_INT("--scale", "CP", 1, 10000, &o.scale,
                    "centipawns per unit of the network's output (default %v)"),
        CLI_OPT_CALL_SHOW("--seed", "S", train_opt_u64, cli_show_u64, &o.seed,
                          "seed of the initial weights and the data order (default %v)"),
        CLI_OPT_INT("--threads", "T", 1, 1024, &o.threads, "OpenMP threads (default: all cores)"),
        CLI_OPT_INT("--val-permille", "N", 0, 1000, &o.filter.val_permille,
                    "games whose id hash falls below N of 1000 are held out for validation\n"
                    "(default %v)"),
        CLI_OPT_INT("--val-max", "N", 0, 1 << 24, &o.val_max,
                    "validation positions kept in memory (default %v)"),
        CLI_OPT_CALL_SHOW("--shuffle", "N", train_opt_double, cli_show_double, &shuffle,
                          "shuffle buffer of N records (default %v)"),
        CLI_OPT_INT("--max-score", "CP", 0, 32767, &o.filter.max_score,
                    "skip positions scored beyond +-CP (default %v: mates)"),
        CLI_OPT_FLAG("--keep-check", &keep_check,
                     "train on positions with the side to move in check too"),
        CLI_OPT_FLAG("--keep-captures", &keep_captures,
                     "train on positions whose best move captures too"),
        CLI_OPT_FLAG("--mirror", &o.mirror,
                     "see each training position with its files mirrored (a-file <-> last\n"
                     "file) half the time, by a seeded coin per position and pass: twice\n"
                     "the distinct inputs, for evaluations that are left-right symmetric\n"
                     "(the features see no castling rights; default off)"),
        CLI_OPT_FLAG("--keep-last", &o.keep_last,
                     "write the network at the end (default: the one of the lowest\n"
                     "validation loss at a loss-log line, written when reached)"),
        CLI_OPT_TEXT("--checkpoint", "FILE", &o.checkpoint,
                     "save the training state here; rerunning the same command resumes it"),
        CLI_OPT_INT("--checkpoint-secs", "S", 1, 1 << 30, &o.checkpoint_secs,
                    "seconds between checkpoints (default %v)"),
        CLI_OPT_TEXT("--log", "FILE", &o.log, "loss log (CSV) for scripts/measure/plot_loss.py"),
        CLI_OPT_CALL_SHOW("--log-every", "N", train_opt_u64, cli_show_u64, &o.log_every,
                          "positions between loss-log lines (default %v)"),
        CLI_OPT_CALL_SHOW("--progress", "SEC", train_opt_double, cli_show_double, &o.progress_secs,
                          "seconds between progress lines on stderr, 0 = none (default %v)"),
        CLI_OPT_CALL("--stop-after", "N", train_opt_u64, &o.stop_after,
                     "stop after N positions, after a checkpoint, as a kill would (for\n"
                     "the resume test)"),
        CLI_OPT_TEXT("--dump-grads", "FILE", &o.dump_grads,
                     "write the initial model, the first batch and its gradients as JSON\n"
                     "and stop (for the autograd check)"),
        CLI_OPT_TEXT("--net", "FILE", &net, "evaluate with this network file instead of training"),
        CLI_OPT_TEXT("--eval-fens", "FILE", &eval_fens,
                     "with --net: print the evaluation of each FEN line of FILE ('-': stdin)"),
        CLI_OPT_TEXT("--variant", "V", &vname, "with --net: the variant of the FENs"),
        CLI_OPT_INT("--bench", "R", 1, 1 << 24, &bench,
                    "with --net and --eval-fens: time refresh, update (quiet moves) and\n"
                    "evaluate, R times each per FEN; prints ns per call as JSON"),
    };
    const CliSpec spec = {
        .cmd = CMD,
        .usage = "usage: chessvar train --data DIRS --out FILE [options]\n"
                 "       chessvar train --net FILE --variant V --eval-fens FILE\n\n"
                 "Trains an evaluation network on self-play records (features -> 2 x H ->\n"
                 "clipped ReLU -> 1, or with --output-buckets, --stack, --king-buckets the\n"
                 "version 2 architecture; Adam, OpenMP) and writes it quantised\n"
                 "(selfplay/NETWORK.md).\n",
        .epilogue = "On a machine shared with other work, OMP_WAIT_POLICY=passive in the "
                    "environment saves\nthe CPU time waiting threads would spin.\n",
        .opts = opts,
        .nopts = (int)(sizeof opts / sizeof opts[0]),
        .list_variants = true};
    int rc = cli_parse(&spec, argc, argv);
    if (rc >= 0) return rc;
    if (net || eval_fens) {
        if (!net || !eval_fens) return cli_usage_error(CMD, "--net and --eval-fens go together");
        if (bench) return train_bench(net, vname, eval_fens, bench);
        return train_eval_fens(net, vname, eval_fens);
    }
    if (!o.data) return cli_usage_error(CMD, "--data DIRS is required");
    if (!o.out && !o.dump_grads) return cli_usage_error(CMD, "--out FILE is required");
    if (o.hidden % 16) return cli_usage_error(CMD, "--hidden %d is not a multiple of 16", o.hidden);
    if (o.lambda > 1) return cli_usage_error(CMD, "--lambda %g is above 1", o.lambda);
    if (!(o.sig_k > 0)) return cli_usage_error(CMD, "--sigmoid-k must be above 0");
    if (!o.log_every) return cli_usage_error(CMD, "--log-every must be at least 1");
    if (positions > 0) o.positions = (uint64_t)positions;
    o.shuffle = (size_t)shuffle;
    o.filter.skip_check = !keep_check;
    o.filter.skip_captures = !keep_captures;
    CvError err;
    if (o.out && !file_make_parent(o.out, &err))
        return cli_usage_error(CMD, "--out %s: %s", o.out, err.msg);
    rc = train_run(&o, &err);
    if (rc) fprintf(stderr, "chessvar train: %s\n", err.msg);
    return rc;
}
