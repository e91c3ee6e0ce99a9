#define _POSIX_C_SOURCE 200809L /* open_memstream */
/* run_files.c - the small files of a self-play run: run.json (the options that decide the
 * data), each shard's statistics file (the mark that it is complete), manifest.json and
 * the rule-consistency report. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "book.h"
#include "record.h"
#include "run_internal.h"

/* The configuration that decides the games and the data, as one line of JSON (threads
 * excluded; the rank count only where it changes the data: with a key table). */
void selfplay_config_json(const SelfplayPlan *o, int nranks, char *buf, size_t n) {
    const GameConfig *g = &o->game;
    char formats_text[64] = "";
    for (int i = 0; i < RECORD_NFORMATS; i++)
        if (o->formats & (1 << i))
            snprintf(formats_text + strlen(formats_text),
                     sizeof formats_text - strlen(formats_text), "%s%s", formats_text[0] ? "," : "",
                     record_format_name(i));
    char a[160], b[160];
    selfplay_player_name(&g->player[0], a, sizeof a);
    selfplay_player_name(&g->player[1], b, sizeof b);
    int k = snprintf(
        buf, n,
        "{\"variant\":\"%s\",\"games\":%ld,\"seed\":%llu,\"shard_games\":%ld,\"format\":\"%s\","
        "\"player_a\":\"%s\",\"player_b\":\"%s\",\"random_plies\":%d,\"temperature\":%d,"
        "\"temp_margin\":%d,\"temp_plies\":%d,\"temp_depth\":%d,\"ply_cap\":%d,\"resign\":[%d,%d],"
        "\"draw\":[%d,%d,%d]"
        ","
        "\"hash_bits\":%d,\"random_start\":%s,\"start\":",
        g->var->name, o->games, (unsigned long long)g->seed, o->shard_games, formats_text, a, b,
        g->random_plies, g->temperature, g->temp_margin, g->temp_plies, g->temp_depth, g->ply_cap,
        g->resign_score, g->resign_plies, g->draw_score, g->draw_plies, g->draw_min_ply, g->tt_bits,
        g->random_start ? "true" : "false");
    if (g->start_fen) k += snprintf(buf + k, n - (size_t)k, "\"%s\"", g->start_fen);
    else k += snprintf(buf + k, n - (size_t)k, "null");
    /* the options that select the written positions, only when one is given, so a run
     * without them keeps the run.json of the versions before them */
    if (!filter_keeps_all(&o->filter) || o->positions > 0)
        k += snprintf(buf + k, n - (size_t)k,
                      ",\"write_min_ply\":%d,\"eval_limit\":%d,\"dedup_bits\":%d,\"positions\":%ld",
                      o->filter.min_ply, o->filter.eval_limit, o->filter.dedup_bits, o->positions);
    if (o->filter.dedup_bits > 0)
        k += snprintf(buf + k, n - (size_t)k, ",\"dedup_ranks\":%d", nranks);
    /* the generator options of chain-format days, each only when given */
    if (o->filter.max_ply > 0)
        k += snprintf(buf + k, n - (size_t)k, ",\"write_max_ply\":%d", o->filter.max_ply);
    if (o->filter.skip_draws) k += snprintf(buf + k, n - (size_t)k, ",\"skip_draws\":true");
    if (g->random_moves > 0)
        k += snprintf(buf + k, n - (size_t)k, ",\"random_moves\":[%d,%d,%d]", g->random_moves,
                      g->random_min_ply, g->random_max_ply);
    if (g->random_multipv > 0)
        k += snprintf(buf + k, n - (size_t)k, ",\"random_multipv\":[%d,%d]", g->random_multipv,
                      g->random_multipv_diff);
    if (g->book) /* its content decides the games; the name is for the reader */
        k += snprintf(buf + k, n - (size_t)k,
                      ",\"book\":\"%s\",\"book_positions\":%d,\"book_xxh3\":\"%016llx\"",
                      g->book->name, g->book->n, (unsigned long long)g->book->hash);
    snprintf(buf + k, n - (size_t)k, "}");
}

/* Writes the shard's statistics file: the mark that the shard is complete. */
bool selfplay_write_stats(const SelfplayRun *run, uint32_t shard, CvError *err) {
    const ShardStats *s = &selfplay_shard(run, shard)->st;
    size_t cap = 512 + 17 * (size_t)s->games;
    char *buf = malloc(cap);
    if (!buf) return false;
    int k = snprintf(
        buf, cap,
        "{\"shard\":%u,\"first_game\":%llu,\"games\":%u,\"positions\":%llu,\"nodes\":%llu,"
        "\"white_score\":[%u,%u,%u,%u,%u],\"a_score\":%lld,\"a_score_counts\":[%u,%u,%u,%u,%u],"
        "\"termination\":[",
        (unsigned)shard, (unsigned long long)shard * (unsigned long long)run->o->shard_games,
        (unsigned)s->games, (unsigned long long)s->positions, (unsigned long long)s->nodes,
        s->by_score[0], s->by_score[1], s->by_score[2], s->by_score[3], s->by_score[4],
        (long long)s->a_score, s->a_by_score[0], s->a_by_score[1], s->a_by_score[2],
        s->a_by_score[3], s->a_by_score[4]);
    for (int t = 0; t < TERM_COUNT; t++)
        k += snprintf(buf + k, cap - (size_t)k, "%s%u", t ? "," : "", s->term[t]);
    k += snprintf(buf + k, cap - (size_t)k, "],\"hashes\":\"");
    for (uint32_t i = 0; i < s->games; i++)
        k += snprintf(buf + k, cap - (size_t)k, "%016llx", (unsigned long long)s->hashes[i]);
    k += snprintf(buf + k, cap - (size_t)k, "\"");
    if (run->filtering)
        k += snprintf(buf + k, cap - (size_t)k, ",\"plies\":%llu", (unsigned long long)s->plies);
    for (int c = 0; run->o->game.paired && c < SELFPLAY_NPAIR; c++) /* only paired: as before */
        k += snprintf(buf + k, cap - (size_t)k, "%s%u", c ? "," : ",\"a_pairs\":[", s->a_pairs[c]);
    k += snprintf(buf + k, cap - (size_t)k, "%s}\n", run->o->game.paired ? "]" : "");
    char path[1024];
    record_shard_name(path, sizeof path, run->o->out, shard, "json");
    bool ok = file_write_atomic(path, buf, (size_t)k, err);
    free(buf);
    return ok;
}

/* Loads a shard's statistics file if it exists and every data file of the shard is there;
 * returns false if the shard must be played (again). */
bool selfplay_load_stats(SelfplayRun *run, uint32_t shard) {
    char path[1024];
    for (int i = 0; i < RECORD_NFORMATS; i++) {
        if (!(run->o->formats & (1 << i))) continue;
        record_shard_name(path, sizeof path, run->o->out, shard, record_format_ext(i));
        if (access(path, R_OK) != 0) return false;
    }
    record_shard_name(path, sizeof path, run->o->out, shard, "keys");
    if (run->o->filter.dedup_bits && access(path, R_OK) != 0) return false;
    record_shard_name(path, sizeof path, run->o->out, shard, "json");
    FILE *f = fopen(path, "r");
    if (!f) return false;
    ShardStats *s = &selfplay_shard(run, shard)->st;
    unsigned sh, games, sc[SELFPLAY_NSCORE], asc[SELFPLAY_NSCORE], term[TERM_COUNT];
    unsigned long long first, pos, nodes;
    long long a;
    bool ok =
        fscanf(
            f,
            "{\"shard\":%u,\"first_game\":%llu,\"games\":%u,\"positions\":%llu,\"nodes\":%llu,"
            "\"white_score\":[%u,%u,%u,%u,%u],\"a_score\":%lld,\"a_score_counts\":[%u,%u,%u,%u,%u],"
            "\"termination\":[",
            &sh, &first, &games, &pos, &nodes, &sc[0], &sc[1], &sc[2], &sc[3], &sc[4], &a, &asc[0],
            &asc[1], &asc[2], &asc[3], &asc[4]) == 16 &&
        sh == shard &&
        first == (unsigned long long)shard * (unsigned long long)run->o->shard_games &&
        games == selfplay_shard_games(run->o, shard);
    for (int t = 0; ok && t < TERM_COUNT; t++) ok = fscanf(f, t ? ",%u" : "%u", &term[t]) == 1;
    if (ok) ok = fscanf(f, "],\"hashes\":\"") == 0;
    if (ok) {
        s->hashes = calloc(games, sizeof *s->hashes);
        ok = s->hashes != NULL;
        for (unsigned i = 0; ok && i < games; i++)
            ok = fscanf(f, "%16llx", (unsigned long long *)&s->hashes[i]) == 1;
    }
    unsigned long long plies = pos;
    if (ok && run->filtering) ok = fscanf(f, "\",\"plies\":%llu", &plies) == 1;
    unsigned pairs[SELFPLAY_NPAIR] = {0};
    if (ok && run->o->game.paired) {
        ok = fscanf(f, run->filtering ? ",\"a_pairs\":[" : "\",\"a_pairs\":[") == 0;
        for (int c = 0; ok && c < SELFPLAY_NPAIR; c++)
            ok = fscanf(f, c ? ",%u" : "%u", &pairs[c]) == 1;
    }
    fclose(f);
    if (!ok) {
        free(s->hashes);
        s->hashes = NULL;
        return false;
    }
    s->games = games;
    s->positions = pos;
    s->plies = plies;
    s->nodes = nodes;
    s->a_score = a;
    memcpy(s->by_score, sc, sizeof sc);
    memcpy(s->a_by_score, asc, sizeof asc);
    for (int c = 0; c < SELFPLAY_NPAIR; c++) s->a_pairs[c] = pairs[c];
    memcpy(s->term, term, sizeof term);
    s->done = true;
    return true;
}

/* Rewrites manifest.json from the shard table: the run's configuration and every
 * completed shard, in shard order, so its content depends only on what is done. */
bool selfplay_write_manifest(const SelfplayRun *run, CvError *err) {
    uint32_t known = selfplay_known(run);
    size_t cap = 4096 + (size_t)known * 160;
    char *buf = malloc(cap);
    if (!buf) return false;
    uint32_t done = 0;
    uint64_t games = 0, positions = 0;
    for (uint32_t i = 0; i < known; i++) {
        const ShardStats *s = &selfplay_shard(run, i)->st;
        if (s->done) {
            done++;
            games += s->games;
            positions += s->positions;
        }
    }
    /* a --positions run knows its shards once it has reached its count */
    uint32_t total = run->o->positions == 0 ? run->nshards : atomic_load(&run->stop) ? done : 0;
    int k = snprintf(
        buf, cap,
        "{\n\"format\": \"chessvar-selfplay-manifest\",\n\"version\": %d,\n\"config\": %s,\n"
        "\"shards_total\": %u,\n\"shards_done\": %u,\n\"games_done\": %llu,\n\"positions\": %llu,\n"
        "\"shards\": [",
        RECORD_VERSION, run->config, (unsigned)total, (unsigned)done, (unsigned long long)games,
        (unsigned long long)positions);
    bool first = true;
    for (uint32_t i = 0; i < selfplay_known(run); i++) {
        const ShardStats *s = &selfplay_shard(run, i)->st;
        if (!s->done) continue;
        k += snprintf(buf + k, cap - (size_t)k,
                      "%s\n  {\"shard\": %u, \"first_game\": %llu, \"games\": %u, \"positions\": "
                      "%llu, \"name\": "
                      "\"shard-%06u\"}",
                      first ? "" : ",", (unsigned)i,
                      (unsigned long long)i * (unsigned long long)run->o->shard_games,
                      (unsigned)s->games, (unsigned long long)s->positions, (unsigned)i);
        first = false;
    }
    k += snprintf(buf + k, cap - (size_t)k, "\n]\n}\n");
    char path[1024];
    snprintf(path, sizeof path, "%s/manifest.json", run->o->out);
    bool ok = file_write_atomic(path, buf, (size_t)k, err);
    free(buf);
    return ok;
}

/* Creates DIR or checks that it holds this run; writes run.json on a fresh start. */
bool selfplay_prepare_dir(SelfplayRun *run) {
    const SelfplayPlan *o = run->o;
    char path[1024];
    snprintf(path, sizeof path, "%s/run.json", o->out);
    if (!file_make_dirs(o->out, &run->err)) return false;
    FILE *f = fopen(path, "r");
    if (f) {
        char have[2100] = "";
        if (!fgets(have, sizeof have, f)) have[0] = 0;
        fclose(f);
        have[strcspn(have, "\n")] = 0;
        if (!o->resume && run->rank == 0) { /* other ranks check after rank 0 wrote it */
            snprintf(
                run->err.msg, sizeof run->err.msg,
                "%.150s already holds a run (pass --resume to continue it, or use a new folder)",
                o->out);
            return false;
        }
        if (strcmp(have, run->config) != 0) {
            snprintf(run->err.msg, sizeof run->err.msg,
                     "--resume: the options differ from the run in %.150s (see its run.json)",
                     path);
            return false;
        }
        return true;
    }
    if (run->rank != 0) return true;
    char line[2100];
    int k = snprintf(line, sizeof line, "%s\n", run->config);
    return file_write_atomic(path, line, (size_t)k, &run->err);
}

/* Writes the rule-consistency report of this invocation's games (merged over threads):
 * JSON at o->report and Markdown beside it, with "-rankR" before the extension when
 * several MPI ranks write. Returns false if a file cannot be written. */
bool selfplay_write_report(SelfplayRun *run, double secs, uint64_t *failures) {
    const SelfplayPlan *o = run->o;
    Report *r = malloc(sizeof *r);
    if (!r) return false;
    report_init(r);
    report_variant(r, o->game.var);
    for (long t = 0; t < o->threads; t++) report_merge(r, &run->parts[t]);
    *failures = report_failures(r);
    char base[900], ext[64] = "", paths[2][1000];
    snprintf(base, sizeof base, "%s", o->report);
    char *dot = strrchr(base, '.');
    if (dot && !strchr(dot, '/') && strlen(dot) < sizeof ext) {
        snprintf(ext, sizeof ext, "%s", dot);
        *dot = 0;
    }
    char rank[32] = "";
    if (run->nranks > 1) snprintf(rank, sizeof rank, "-rank%d", run->rank);
    snprintf(paths[0], sizeof paths[0], "%s%s%s", base, rank, ext[0] ? ext : ".json");
    snprintf(paths[1], sizeof paths[1], "%s%s.md", base, rank);
    uint64_t term[TERM_COUNT] = {0}, sc[SELFPLAY_NSCORE] = {0}, games = 0;
    for (uint32_t i = run->shard_lo; i < run->shard_hi && i < selfplay_known(run); i++) {
        const ShardStats *st = &selfplay_shard(run, i)->st;
        if (st->done) {
            games += st->games;
            for (int k = 0; k < TERM_COUNT; k++) term[k] += st->term[k];
            for (int k = 0; k < SELFPLAY_NSCORE; k++) sc[k] += st->by_score[k];
        }
    }
    char meta[4096], intro[2048], terms[512] = "";
    int tk = 0;
    for (int k = 1; k < TERM_COUNT; k++)
        tk += snprintf(terms + tk, sizeof terms - (size_t)tk, "%s\"%s\": %llu", k > 1 ? ", " : "",
                       game_term_name(k), (unsigned long long)term[k]);
    snprintf(meta, sizeof meta,
             "\"command\": \"selfplay\", \"config\": %s, \"rank\": %d, \"games_checked\": %ld, "
             "\"check_every\": %ld, \"replays_rejected\": %ld, \"seconds\": %.1f, "
             "\"games_completed\": %llu, "
             "\"white_score_counts\": {\"0\": %llu, \"250\": %llu, \"500\": %llu, \"750\": %llu, "
             "\"1000\": %llu}, "
             "\"termination\": {%s}",
             run->config, run->rank, (long)atomic_load(&run->games_now), o->check_every,
             (long)atomic_load(&run->replays_rejected), secs, (unsigned long long)games,
             (unsigned long long)sc[0], (unsigned long long)sc[1], (unsigned long long)sc[2],
             (unsigned long long)sc[3], (unsigned long long)sc[4], terms);
    int ik = snprintf(
        intro, sizeof intro,
        "Written by `chessvar selfplay`: the %ld %s games this invocation played (seed %llu), each "
        "replayed move by move with its special-rule events counted and one position in %ld "
        "verified "
        "(0: none); %ld replays refused a recorded move. All %llu completed games of the run: "
        "White won "
        "%llu, drawn %llu, Black won %llu, stalemate wins %llu/%llu (White/Black). Termination:",
        (long)atomic_load(&run->games_now), o->game.var->name, (unsigned long long)o->game.seed,
        o->check_every, (long)atomic_load(&run->replays_rejected), (unsigned long long)games,
        (unsigned long long)sc[4], (unsigned long long)sc[2], (unsigned long long)sc[0],
        (unsigned long long)sc[3], (unsigned long long)sc[1]);
    for (int k = 1; k < TERM_COUNT; k++)
        if (term[k])
            ik += snprintf(intro + ik, sizeof intro - (size_t)ik, " %s %llu", game_term_name(k),
                           (unsigned long long)term[k]);
    snprintf(intro + ik, sizeof intro - (size_t)ik, ".");
    bool ok = true;
    for (int k = 0; k < 2 && ok; k++) {
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        if (!f) {
            ok = false;
            break;
        }
        if (k == 0) report_write_json(r, f, meta);
        else report_write_markdown(r, f, "Self-play rule-consistency report", intro);
        fclose(f);
        ok = file_write_atomic(paths[k], buf, len, &run->err);
        free(buf);
    }
    free(r);
    return ok;
}
