#define _POSIX_C_SOURCE 200809L /* strdup */
/* data_cmd.c - `chessvar data`: the position files of a run folder converted between bin,
 * chain, JSONL, PGN and the Stockfish formats (to a folder or, as one stream, to stdout),
 * summarised (stats), re-labelled by another search or network (rescore) and timed
 * (speed: decoding chains into the trainer's records). */
#include <dirent.h>
#include <errno.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../selfplay/files.h"
#include "../selfplay/player/evaluator.h"
#include "../selfplay/player/nnue.h"
#include "../selfplay/games/record_chain.h"
#include "../selfplay/player/search.h"
#include "cli.h"
#include "mpi_start.h"

#define CMD "data"

/* The options of every data subcommand (each takes the ones it needs). */
typedef struct DataOpts {
    const char *sub, *in, *out, *to, *from, *eval;
    bool strict, json;
    long nodes, threads;
    int depth, hash_bits;
    double progress;
    long repeat;
} DataOpts;

/* The shards of a folder in one format, sorted by name. */
typedef struct ShardList {
    char **path;
    int n;
    int format; /* FORMAT_BIN or FORMAT_CHAIN */
} ShardList;

static int data_cmp_str(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Lists dir's shards: chain shards when it has any (or --from chain), else bin shards.
 * False after a message naming the folder. */
static bool data_list(const char *dir, const char *from, ShardList *l) {
    memset(l, 0, sizeof *l);
    DIR *d = opendir(dir);
    if (!d) {
        cli_usage_error(CMD, "%s: cannot open the folder: %s", dir, strerror(errno));
        return false;
    }
    int cap = 0, nchain = 0, nbin = 0;
    for (struct dirent *e; (e = readdir(d));) {
        nchain += record_is_shard_name(e->d_name, "chain");
        nbin += record_is_shard_name(e->d_name, "bin");
    }
    l->format = from ? (strcmp(from, "chain") == 0 ? FORMAT_CHAIN : FORMAT_BIN)
                     : (nchain ? FORMAT_CHAIN : FORMAT_BIN);
    const char *ext = l->format == FORMAT_CHAIN ? "chain" : "bin";
    rewinddir(d);
    for (struct dirent *e; (e = readdir(d));) {
        if (!record_is_shard_name(e->d_name, ext)) continue;
        if (l->n == cap) {
            cap = cap ? 2 * cap : 64;
            l->path = realloc(l->path, (size_t)cap * sizeof *l->path);
        }
        size_t n = strlen(dir) + strlen(e->d_name) + 2;
        l->path[l->n] = malloc(n);
        snprintf(l->path[l->n++], n, "%s/%s", dir, e->d_name);
    }
    closedir(d);
    if (!l->n) {
        cli_usage_error(CMD, "%s: no shard-*.%s files", dir, ext);
        return false;
    }
    qsort(l->path, (size_t)l->n, sizeof *l->path, data_cmp_str);
    return true;
}

static void data_list_free(ShardList *l) {
    for (int i = 0; i < l->n; i++) free(l->path[i]);
    free(l->path);
}

/* Reads one shard of the list into games. */
static bool data_read(const ShardList *l, int i, bool strict, ShardGames *sg, Position *pos,
                      CvError *err) {
    return l->format == FORMAT_CHAIN ? chain_read_games(l->path[i], strict, sg, pos, err)
                                     : bin_read_games(l->path[i], strict, sg, pos, err);
}

/* Parses a comma list of format names into FORMAT_* bits; 0 after a message. */
static int data_formats(const char *list) {
    char buf[128];
    snprintf(buf, sizeof buf, "%s", list ? list : "");
    int bits = 0;
    char *save = NULL;
    for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        int i = 0;
        while (i < RECORD_NFORMATS && strcmp(t, record_format_name(i)) != 0) i++;
        if (i == RECORD_NFORMATS) {
            cli_usage_error(CMD, "--to takes bin, chain, jsonl, pgn, plain, sfbin, got '%s'", t);
            return 0;
        }
        bits |= 1 << i;
    }
    if (!bits) cli_usage_error(CMD, "--to needs a format (bin, chain, jsonl, pgn, plain, sfbin)");
    return bits;
}

/* Creates the output folder and its missing parents; false after a message. */
static bool data_mkdir(const char *dir) {
    CvError err = {{0}};
    if (file_make_dirs(dir, &err)) return true;
    cli_usage_error(CMD, "%s", err.msg);
    return false;
}

/* convert: every shard read back into games and written in the --to formats. */
static int data_convert(const DataOpts *o) {
    if (!o->in || !o->out || !o->to)
        return cli_usage_error(CMD, "convert needs --in DIR, --out DIR (or -) and --to FORMATS");
    int formats = data_formats(o->to);
    bool stream = strcmp(o->out, "-") == 0;
    if (!formats) return 2;
    if (stream && (formats & (formats - 1)))
        return cli_usage_error(CMD, "--out - takes one format, got '%s'", o->to);
    ShardList l;
    if (!data_list(o->in, o->from, &l) || (!stream && !data_mkdir(o->out))) return 2;
    Position *pos = malloc(sizeof *pos);
    int rc = 0;
    uint64_t positions = 0;
    double t0 = cli_now();
    for (int i = 0; i < l.n && pos && rc == 0; i++) {
        ShardGames sg;
        CvError err = {{0}};
        if (!data_read(&l, i, o->strict, &sg, pos, &err)) {
            rc = cli_usage_error(CMD, "%s", err.msg);
            break;
        }
        if (!record_formats_supported(sg.si.var, formats, &err))
            rc = cli_usage_error(CMD, "%s", err.msg);
        else if (stream ? !record_write_stream(stdout, formats, &sg.si, sg.games, pos, &err)
                        : !record_write_shard(o->out, formats, &sg.si, sg.games, pos, &err))
            rc = cli_usage_error(CMD, "%s", err.msg);
        positions += sg.positions;
        shard_games_free(&sg);
        if (o->progress > 0 && !stream)
            fprintf(stderr, "data convert: %d/%d shards, %llu positions, %.1f s\n", i + 1, l.n,
                    (unsigned long long)positions, cli_now() - t0);
    }
    if (!pos) rc = cli_usage_error(CMD, "out of memory");
    if (stream && fflush(stdout) != 0) rc = 1;
    free(pos);
    data_list_free(&l);
    return rc;
}

#define DATA_HIST 23 /* score buckets: < -1000, 100 cp wide up to 1000, > 1000, mate */

/* Bucket of a score: 0 below -1000, 1..20 in steps of 100, 21 above 1000, 22 a mate. */
static int data_bucket(int s) {
    if (s > 29000 || s < -29000) return 22;
    if (s < -1000) return 0;
    if (s >= 1000) return 21;
    return 1 + (s + 1000) / 100;
}

/* stats: games, positions, results, terminations, score histogram, bytes per position. */
static int data_stats(const DataOpts *o) {
    if (!o->in) return cli_usage_error(CMD, "stats needs --in DIR");
    ShardList l;
    if (!data_list(o->in, o->from, &l)) return 2;
    Position *pos = malloc(sizeof *pos);
    uint64_t games = 0, entries = 0, positions = 0, plies = 0, searched = 0, bytes = 0;
    uint64_t wscore[5] = {0}, term[TERM_COUNT] = {0}, hist[DATA_HIST] = {0};
    const char *variant = "?";
    int rc = 0;
    for (int i = 0; i < l.n && pos; i++) {
        ShardGames sg;
        CvError err = {{0}};
        if (!data_read(&l, i, o->strict, &sg, pos, &err)) {
            rc = cli_usage_error(CMD, "%s", err.msg);
            break;
        }
        struct stat st;
        if (stat(l.path[i], &st) == 0) bytes += (uint64_t)st.st_size;
        variant = sg.si.var->name;
        games += sg.si.header_games;
        for (uint32_t k = 0; k < sg.si.games; k++) {
            const Game *g = sg.games[k];
            entries++;
            if (g->ply0 == 0) {
                int ws = g->white_score;
                if (ws % 250 == 0 && ws >= 0 && ws <= 1000) wscore[ws / 250]++;
                term[g->termination < TERM_COUNT ? g->termination : 0]++;
            }
            plies += (uint64_t)g->nply;
            for (int p = 0; p < g->nply; p++) {
                if (g->ply[p].unwritten) continue;
                positions++;
                if (g->ply[p].best == MOVE_NONE) continue;
                searched++;
                hist[data_bucket(g->ply[p].score)]++;
            }
        }
        shard_games_free(&sg);
    }
    free(pos);
    if (rc) {
        data_list_free(&l);
        return rc;
    }
    double bpp = positions ? (double)bytes / (double)positions : 0;
    printf("{\"folder\": ");
    cli_json_str(stdout, o->in);
    printf(", \"format\": \"%s\", \"variant\": \"%s\", \"shards\": %d, \"games\": %llu, "
           "\"game_entries\": %llu, \"plies\": %llu, \"positions\": %llu, \"searched\": %llu, "
           "\"bytes\": %llu, \"bytes_per_position\": %.3f,\n \"white_score\": {\"0\": %llu, "
           "\"250\": %llu, \"500\": %llu, \"750\": %llu, \"1000\": %llu},\n \"termination\": {",
           l.format == FORMAT_CHAIN ? "chain" : "bin", variant, l.n, (unsigned long long)games,
           (unsigned long long)entries, (unsigned long long)plies, (unsigned long long)positions,
           (unsigned long long)searched, (unsigned long long)bytes, bpp,
           (unsigned long long)wscore[0], (unsigned long long)wscore[1],
           (unsigned long long)wscore[2], (unsigned long long)wscore[3],
           (unsigned long long)wscore[4]);
    for (int t = 1; t < TERM_COUNT; t++)
        printf("%s\"%s\": %llu", t > 1 ? ", " : "", game_term_name(t), (unsigned long long)term[t]);
    printf("},\n \"score_histogram\": {\"below_-1000\": %llu", (unsigned long long)hist[0]);
    for (int b = 1; b <= 20; b++)
        printf(", \"%d..%d\": %llu", -1000 + 100 * (b - 1), -1000 + 100 * b - 1,
               (unsigned long long)hist[b]);
    printf(", \"1000_and_above\": %llu, \"mate\": %llu}}\n", (unsigned long long)hist[21],
           (unsigned long long)hist[22]);
    data_list_free(&l);
    return 0;
}

/* speed: decodes every shard of the folder into the trainer's records on one core, the
 * files read into memory first, and prints positions per second. */
static int data_speed(const DataOpts *o) {
    if (!o->in) return cli_usage_error(CMD, "speed needs --in DIR");
    ShardList l;
    if (!data_list(o->in, o->from, &l)) return 2;
    if (l.format != FORMAT_CHAIN) {
        data_list_free(&l);
        return cli_usage_error(CMD, "speed times chain shards; %s has none", o->in);
    }
    /* every block's payload, read once */
    typedef struct Blk {
        uint8_t *p;
        ChainBlock b;
        const Variant *v;
    } Blk;
    Blk *blk = NULL;
    int nblk = 0, cap = 0, rc = 0;
    size_t maxplies = 0;
    for (int i = 0; i < l.n && rc == 0; i++) {
        ChainFile cf;
        CvError err = {{0}};
        if (!chain_file_open(&cf, l.path[i], true, "data", &err)) {
            rc = cli_usage_error(CMD, "%s", err.msg);
            break;
        }
        ChainBlock b;
        int r;
        while ((r = chain_file_block(&cf, &b, &err)) > 0) {
            if (nblk == cap) {
                cap = cap ? 2 * cap : 64;
                blk = realloc(blk, (size_t)cap * sizeof *blk);
            }
            blk[nblk].p = malloc(b.len);
            memcpy(blk[nblk].p, b.payload, b.len);
            blk[nblk].b = b;
            blk[nblk].b.payload = blk[nblk].p;
            blk[nblk++].v = cf.var;
            if (b.plies > maxplies) maxplies = b.plies;
        }
        if (r < 0) rc = cli_usage_error(CMD, "%s", err.msg);
        chain_file_close(&cf);
    }
    Position *pos = malloc(sizeof *pos);
    Game *g = malloc(game_size(MAX_GAME_PLY));
    int rsize = nblk ? record_size(blk[0].v) : 8;
    uint8_t *rec = malloc((maxplies + 1) * (size_t)rsize);
    uint64_t positions = 0, check = 0;
    double t0 = cli_now();
    clock_t c0 = clock();
    for (long rep = 0; rc == 0 && rep < o->repeat; rep++)
        for (int i = 0; i < nblk && rc == 0; i++) {
            ChainDec d;
            CvError err = {{0}};
            chain_dec_init(&d, blk[i].b.payload, blk[i].b.len, blk[i].b.first_id, blk[i].b.version);
            d.no_legal = true; /* as the trainer decodes */
            uint64_t n = 0;
            for (uint32_t k = 0; k < blk[i].b.games && rc == 0; k++)
                if (!chain_dec_game(&d, blk[i].v, g, pos, rec, rsize, &n, &err))
                    rc = cli_usage_error(CMD, "block %d: %s", i, err.msg);
            chain_dec_free(&d);
            for (uint64_t k = 0; k < n; k++) check += rec[k * (uint64_t)rsize + 40];
            positions += n;
        }
    double secs = cli_now() - t0, cpu = (double)(clock() - c0) / CLOCKS_PER_SEC;
    if (rc == 0)
        printf("{\"folder\": \"%s\", \"variant\": \"%s\", \"positions\": %llu, \"seconds\": %.3f, "
               "\"cpu_seconds\": %.3f, \"positions_per_second\": %.0f, "
               "\"positions_per_cpu_second\": %.0f, \"checksum\": %llu}\n",
               o->in, nblk ? blk[0].v->name : "?", (unsigned long long)positions, secs, cpu,
               secs > 0 ? (double)positions / secs : 0, cpu > 0 ? (double)positions / cpu : 0,
               (unsigned long long)check);
    for (int i = 0; i < nblk; i++) free(blk[i].p);
    free(blk);
    free(pos);
    free(g);
    free(rec);
    data_list_free(&l);
    return rc;
}

/* The labels of a game searched again: every written position, on the position its moves
 * reach (so repetitions are seen), the search's table cleared at the game's start. */
static void data_rescore_game(Search *s, Game *g, Position *pos, const SearchLimits *lim,
                              uint64_t *nodes) {
    CvError err = {{0}};
    if (!pos_from_fen(pos, pos->var, g->start_fen, &err)) return;
    search_clear(s);
    for (int k = 0; k < g->nply; k++) {
        GamePly *p = &g->ply[k];
        if (!p->unwritten) {
            SearchResult r = search_run(s, pos, lim);
            *nodes += (uint64_t)r.nodes;
            p->best = r.best;
            p->score = (int16_t)r.score;
            p->depth = (uint8_t)(r.depth > 255 ? 255 : r.depth);
        }
        pos_make(pos, p->played);
    }
}

/* Whether every output file of shard sh exists: the shard was rescored before a kill. */
static bool data_shard_done(const char *dir, uint32_t sh, int formats) {
    char path[1024];
    for (int i = 0; i < RECORD_NFORMATS; i++) {
        if (!(formats & (1 << i))) continue;
        record_shard_name(path, sizeof path, dir, sh, record_format_ext(i));
        if (access(path, R_OK) != 0) return false;
    }
    return true;
}

/* Writes rescore.json (the options that decide the labels) or, on a rerun, checks that
 * the folder's matches; false after a message. */
static bool data_rescore_config(const DataOpts *o, const char *variant, long nodes, int formats) {
    char cfg[1024], path[1100], have[1024] = "";
    snprintf(cfg, sizeof cfg,
             "{\"command\":\"data rescore\",\"variant\":\"%s\",\"nodes\":%ld,\"depth\":%d,"
             "\"eval\":\"%s\",\"hash_bits\":%d,\"formats\":%d}\n",
             variant, nodes, o->depth, o->eval ? o->eval : "default", o->hash_bits, formats);
    snprintf(path, sizeof path, "%s/rescore.json", o->out);
    FILE *f = fopen(path, "r");
    if (f) {
        if (!fgets(have, sizeof have, f)) have[0] = 0;
        fclose(f);
        if (strcmp(have, cfg) != 0) {
            cli_usage_error(CMD, "%s holds a rescore with other options (see its rescore.json)",
                            o->out);
            return false;
        }
        return true;
    }
    CvError err = {{0}};
    if (!file_write_atomic(path, cfg, strlen(cfg), &err)) {
        cli_usage_error(CMD, "%s", err.msg);
        return false;
    }
    return true;
}

/* rescore: each shard read, its games' written positions searched again on every thread
 * (one game per thread at a time), and written atomically; shards already in --out are
 * skipped, so a killed rescore goes on where it stopped. Under mpirun shard i of the
 * sorted list is rank i % ranks's (the same split on every rerun, so a resume under any
 * rank count keeps what is done); rank 0 writes rescore.json, prints progress (its own
 * shards) and the summary of all ranks. */
static int data_rescore(const DataOpts *o, int rank, int ranks) {
    if (!o->in || !o->out) return cli_usage_error(CMD, "rescore needs --in DIR and --out DIR");
    ShardList l;
    if (!data_list(o->in, o->from, &l)) return 2;
    int formats = o->to ? data_formats(o->to) : l.format;
    if (!formats || !data_mkdir(o->out)) {
        data_list_free(&l);
        return 2;
    }
    Position *pos = malloc(sizeof *pos);
    ShardGames sg;
    CvError err = {{0}};
    /* the first shard names the variant */
    if (!pos || !data_read(&l, 0, o->strict, &sg, pos, &err)) {
        free(pos);
        data_list_free(&l);
        return cli_usage_error(CMD, "%s", pos ? err.msg : "out of memory");
    }
    const Variant *v = sg.si.var;
    shard_games_free(&sg);
    Network *net = NULL;
    if (!evaluator_load(o->eval, v, &net, &err)) {
        free(pos);
        data_list_free(&l);
        return cli_usage_error(CMD, "--eval: %s", err.msg);
    }
    SearchLimits lim = {.nodes = o->depth   ? 0
                                 : o->nodes ? o->nodes
                                            : search_default_nodes(v),
                        .depth = o->depth};
    int tt_bits = o->hash_bits ? o->hash_bits : search_default_tt_bits(v);
    /* rank 0 checks or writes rescore.json before any rank writes a shard */
    int rc = rank == 0 && !data_rescore_config(o, v->name, (long)lim.nodes, formats) ? 2 : 0;
    rc = cli_mpi_bcast_int(rc);
    uint64_t positions = 0, nodes = 0, skipped = 0;
    int mine = 0, done = 0; /* shards of this rank, and those finished */
    for (int i = rank; i < l.n; i += ranks) mine++;
    double t0 = cli_now(), last = t0;
    clock_t c0 = clock();
    for (int i = rank; i < l.n && rc == 0; i += ranks) {
        if (!data_read(&l, i, o->strict, &sg, pos, &err)) {
            rc = cli_usage_error(CMD, "%s", err.msg);
            break;
        }
        if (sg.si.var != v) {
            rc = cli_usage_error(CMD, "%s: variant %s, the first shard's is %s", l.path[i],
                                 sg.si.var->name, v->name);
            shard_games_free(&sg);
            break;
        }
        done++;
        if (data_shard_done(o->out, sg.si.shard, formats)) {
            skipped++;
            shard_games_free(&sg);
            continue;
        }
        int failed = 0;
#pragma omp parallel num_threads((int)o->threads) reduction(+ : nodes)
        {
            Search *s = search_new(v, tt_bits);
            Position *tp = malloc(sizeof *tp);
            if (!s || !tp || (net && !search_set_network(s, net))) {
#pragma omp atomic write
                failed = 1;
            } else {
                tp->var = v;
#pragma omp for schedule(dynamic, 1)
                for (uint32_t k = 0; k < sg.si.games; k++)
                    data_rescore_game(s, sg.games[k], tp, &lim, &nodes);
            }
            search_free(s);
            free(tp);
        }
        if (failed) rc = cli_usage_error(CMD, "out of memory");
        else if (!record_write_shard(o->out, formats, &sg.si, sg.games, pos, &err))
            rc = cli_usage_error(CMD, "%s", err.msg);
        positions += sg.positions;
        shard_games_free(&sg);
        double now = cli_now();
        if (rank == 0 && o->progress > 0 && (now - last >= o->progress || done == mine)) {
            char who[64] = "";
            if (ranks > 1) snprintf(who, sizeof who, " (rank 0 of %d: its own shards)", ranks);
            fprintf(stderr,
                    "data rescore%s: %d/%d shards (%llu kept from before), %llu positions, "
                    "%.0f positions/s, %.1f s\n",
                    who, done, mine, (unsigned long long)skipped, (unsigned long long)positions,
                    (double)positions / (now - t0), now - t0);
            last = now;
        }
    }
    /* this rank's CPU time before the collectives: a rank that is done waits in them */
    long cpu_us = (long)((double)(clock() - c0) * 1e6 / CLOCKS_PER_SEC);
    double secs = cli_mpi_max_double(cli_now() - t0);
    /* every rank's counts and CPU microseconds, summed; an error on any rank fails all */
    long sum[5] = {(long)positions, (long)nodes, (long)skipped, cpu_us, rc != 0};
    cli_mpi_sum_long(sum, 5);
    double cpu = (double)sum[3] / 1e6;
    if (sum[4] && rc == 0) rc = 1;
    if (rc == 0 && rank == 0)
        printf("{\"variant\": \"%s\", \"nodes\": %lld, \"depth\": %d, \"threads\": %ld, "
               "\"ranks\": %d, \"shards\": %d, \"shards_kept\": %ld, \"positions\": %ld, "
               "\"search_nodes\": %ld, \"seconds\": %.3f, \"cpu_seconds\": %.3f, "
               "\"positions_per_cpu_second\": %.1f}\n",
               v->name, (long long)lim.nodes, o->depth, o->threads, ranks, l.n, sum[2], sum[0],
               sum[1], secs, cpu, cpu > 0 ? (double)sum[0] / cpu : 0);
    nnue_free(net);
    free(pos);
    data_list_free(&l);
    return rc;
}

/* --progress SEC: seconds, a decimal >= 0. */
static bool data_opt_seconds(const char *cmd, const char *opt, const char *val, void *dst) {
    char *end;
    double v = strtod(val, &end);
    if (!*val || *end || v < 0) {
        cli_usage_error(cmd, "%s needs seconds >= 0, got '%s'", opt, val);
        return false;
    }
    *(double *)dst = v;
    return true;
}

/* Appends v to f as a LEB128 varint (7 bits a byte, low first). */
static void data_varint(FILE *f, uint32_t v) {
    while (v >= 0x80) {
        fputc((int)(v & 0x7f) | 0x80, f);
        v >>= 7;
    }
    fputc((int)v, f);
}

/* layout: the fields a chain holds in a plain byte layout on stdout, for measuring what a
 * general-purpose compressor makes of them (scripts/measure/chain_data.py runs zstd on it).
 * Per game: the start FEN and a NUL, varints of id, first ply, plies, White's score and
 * termination; per ply: a flags byte (random, unwritten, searched, played == best), the
 * best move's index among the legal moves (varint; 0xFFFF when not legal), the played
 * move's index when it differs, the score as a zigzag varint of its difference from minus
 * the previous ply's, and the depth byte. */
static int data_layout(const DataOpts *o) {
    if (!o->in) return cli_usage_error(CMD, "layout needs --in DIR");
    ShardList l;
    if (!data_list(o->in, o->from, &l)) return 2;
    Position *pos = malloc(sizeof *pos);
    Move list[MAX_MOVES];
    int rc = 0;
    for (int i = 0; i < l.n && pos && rc == 0; i++) {
        ShardGames sg;
        CvError err = {{0}};
        if (!data_read(&l, i, o->strict, &sg, pos, &err)) {
            rc = cli_usage_error(CMD, "%s", err.msg);
            break;
        }
        for (uint32_t k = 0; k < sg.si.games; k++) {
            const Game *g = sg.games[k];
            fputs(g->start_fen, stdout);
            fputc(0, stdout);
            data_varint(stdout, g->id);
            data_varint(stdout, g->ply0);
            data_varint(stdout, (uint32_t)g->nply);
            data_varint(stdout, (uint32_t)g->white_score);
            data_varint(stdout, (uint32_t)g->termination);
            pos_from_fen(pos, sg.si.var, g->start_fen, &err);
            int prev = 0;
            for (int p = 0; p < g->nply; p++) {
                const GamePly *gp = &g->ply[p];
                int n = pos_legal_moves(pos, list), bi = 0xFFFF, pi = 0;
                for (int m = 0; m < n; m++) {
                    if (list[m] == gp->best) bi = m;
                    if (list[m] == gp->played) pi = m;
                }
                bool searched = gp->best != MOVE_NONE, same = gp->played == gp->best;
                fputc((gp->random ? 1 : 0) | (gp->unwritten ? 2 : 0) | (searched ? 4 : 0) |
                          (same ? 8 : 0),
                      stdout);
                if (searched) data_varint(stdout, (uint32_t)bi);
                if (!same) data_varint(stdout, (uint32_t)pi);
                int d = gp->score + prev;
                data_varint(stdout, d >= 0 ? 2u * (uint32_t)d : 2u * (uint32_t)(-d) - 1);
                fputc(gp->depth, stdout);
                prev = gp->score;
                pos_make(pos, gp->played);
            }
        }
        shard_games_free(&sg);
    }
    free(pos);
    data_list_free(&l);
    return rc;
}

int cmd_data(int argc, char **argv) {
    DataOpts o = {.progress = 5, .threads = omp_get_num_procs(), .repeat = 1};
    const CliOpt opts[] = {
        CLI_OPT_TEXT("--in", "DIR", &o.in, "the folder read (a run's folder or a converted one)"),
        CLI_OPT_TEXT("--out", "DIR", &o.out,
                     "the folder written (convert, rescore); convert: - writes one\n"
                     "stream of shards to stdout (one format)"),
        CLI_OPT_TEXT("--to", "LIST", &o.to,
                     "convert: formats written, comma list of bin, chain, jsonl, pgn,\n"
                     "plain, sfbin; rescore: default the format read"),
        CLI_OPT_TEXT("--from", "FMT", &o.from,
                     "read the bin or the chain shards of --in (default chain when\n"
                     "the folder has any)"),
        CLI_OPT_FLAG("--strict", &o.strict,
                     "a corrupt or truncated block is an error (default: skipped\n"
                     "with a message naming the file and the block)"),
        CLI_OPT_LONG("--nodes", "N", 1, 1000000000L, &o.nodes,
                     "rescore: search nodes per position (default: the variant's\n"
                     "self-play budget)"),
        CLI_OPT_INT("--depth", "D", 1, 64, &o.depth, "rescore: search depth D instead"),
        CLI_OPT_TEXT("--eval", "FILE", &o.eval,
                     "rescore: the network FILE or classical (default: the variant's\n"
                     "net in selfplay/nets/)"),
        CLI_OPT_LONG("--threads", "T", 1, 1024, &o.threads,
                     "rescore: OpenMP threads (default: all cores)"),
        CLI_OPT_INT("--hash-bits", "B", 10, 26, &o.hash_bits,
                    "rescore: transposition table of 2^B entries per thread (default:\n"
                    "the variant's self-play size)"),
        CLI_OPT_LONG("--repeat", "N", 1, 1000, &o.repeat,
                     "speed: decode the data N times (default 1)"),
        CLI_OPT_CALL("--progress", "SEC", data_opt_seconds, &o.progress,
                     "seconds between progress lines on stderr, 0 = none (default 5)"),
    };
    const CliSpec spec = {
        .cmd = CMD,
        .usage =
            "usage: chessvar data convert --in DIR --out DIR|- --to LIST [--from bin|chain]\n"
            "       chessvar data stats --in DIR [--from bin|chain]\n"
            "       chessvar data rescore --in DIR --out DIR [--nodes N | --depth D] [--eval "
            "FILE]\n"
            "       chessvar data speed --in DIR [--repeat N]\n"
            "       chessvar data layout --in DIR > FILE\n"
            "convert: position files between formats (lossless where the target holds the\n"
            "fields: bin -> chain -> bin gives the same bytes); stats: one JSON summary;\n"
            "rescore: every written position searched again, the moves kept, the labels (best\n"
            "move, score, depth) replaced; shards done are kept on a rerun (resume); speed:\n"
            "chain decoding into the trainer's records on one core; layout: the chain's fields\n"
            "in a plain byte layout on stdout, to measure a general compressor on them.\n",
        .epilogue =
            "MPI: mpirun -np K chessvar data rescore ... gives rank r the shards r, r + K,\n"
            "r + 2K, ... of the sorted list (--threads each); the output is the same\n"
            "files as one process writes, and a rerun under any K resumes.\n",
        .opts = opts,
        .nopts = (int)(sizeof opts / sizeof opts[0]),
        .positional = &o.sub};
    int rc = cli_parse(&spec, argc, argv);
    if (rc >= 0) return rc;
    if (o.from && strcmp(o.from, "bin") != 0 && strcmp(o.from, "chain") != 0)
        return cli_usage_error(CMD, "--from takes bin or chain, got '%s'", o.from);
    if (!o.sub)
        return cli_usage_error(CMD,
                               "needs convert, stats, rescore or speed (chessvar data --help)");
    if (strcmp(o.sub, "convert") == 0) return data_convert(&o);
    if (strcmp(o.sub, "stats") == 0) return data_stats(&o);
    if (strcmp(o.sub, "rescore") == 0) {
        int ranks = 1, rank = 0;
        if (cli_mpi_available() && cli_mpi_launched()) {
            ranks = cli_mpi_begin();
            rank = cli_mpi_rank();
        }
        rc = data_rescore(&o, rank, ranks);
        cli_mpi_end();
        return rc;
    }
    if (strcmp(o.sub, "speed") == 0) return data_speed(&o);
    if (strcmp(o.sub, "layout") == 0) return data_layout(&o);
    return cli_usage_error(CMD, "unknown subcommand '%s' (convert, stats, rescore, speed, layout)",
                           o.sub);
}
