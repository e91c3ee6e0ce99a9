/* test_chain.c - the chain format and `chessvar data`: bin -> chain -> bin gives the same
 * bytes on runs of every variant, a corrupt or truncated block is skipped with a message
 * naming the file and the block (an error when strict), a replay under other rules is an
 * error naming the game, and the generator options of selfplay (random moves anywhere,
 * random multi-PV, --write-max-ply, --skip-draws) do what their help says, each checked
 * against the JSONL of a run; rescore under mpirun writes what one process writes and
 * resumes after a kill; the trainer makes the same network from a chain as from the bin
 * of the same games. */
#define _XOPEN_SOURCE 700
#include <signal.h>
#include <time.h>
#include <xxhash.h>

#include "../engine/chessvar.h"
#include "selfplay_util.h"

TestSuite(chain, .init = engine_init, .timeout = 300);

#define SU_DATA(...) ((char *const[]){CHESSVAR_BINARY, "data", __VA_ARGS__, NULL})

/* Whether dir_a/name and dir_b/name hold the same bytes from byte `from` on (both files
 * at least that long). */
static bool same_from(const char *dir_a, const char *dir_b, const char *name, long from) {
    char pa[1024], pb[1024];
    snprintf(pa, sizeof pa, "%s/%s", dir_a, name);
    snprintf(pb, sizeof pb, "%s/%s", dir_b, name);
    long la = 0, lb = 0;
    char *a = su_slurp(pa, &la), *b = su_slurp(pb, &lb);
    cr_assert(a && b && la >= from && lb >= from, "%s or %s missing or short", pa, pb);
    bool same = la == lb && memcmp(a + from, b + from, (size_t)(la - from)) == 0;
    free(a);
    free(b);
    return same;
}

/* Asserts that dir_a/name and dir_b/name hold the same bytes. */
static void same_file(const char *dir_a, const char *dir_b, const char *name) {
    cr_expect(same_from(dir_a, dir_b, name, 0), "%s/%s and %s/%s differ", dir_a, name, dir_b, name);
}

/* Size of a file in bytes. */
static long file_size(const char *dir, const char *name) {
    char p[1024];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    struct stat st;
    cr_assert_eq(stat(p, &st), 0, "%s", p);
    return (long)st.st_size;
}

/* The chain version in the header of dir/name. */
static int chain_version(const char *dir, const char *name) {
    char p[1024];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    long n = 0;
    unsigned char *h = (unsigned char *)su_slurp(p, &n);
    cr_assert(h && n >= 64, "%s: no header", p);
    int version = h[8] | h[9] << 8;
    free(h);
    return version;
}

/* One short run of variant v in bin and chain (and JSONL) with one more option, then both
 * conversions back; whole: every position is written, so the bin converts to the chain
 * self-play wrote. */
static void round_trip(char *v, char *opt, char *val, bool whole) {
    char run[512], a[512], b[512];
    su_temp_dir(run, sizeof run);
    su_temp_dir(a, sizeof a);
    su_temp_dir(b, sizeof b);
    cr_assert_eq(
        su_run(SU_SP("--variant", v, "--games", "3", "--nodes", "200", "--ply-cap", "160",
                     "--format", "bin,chain,jsonl", "--out", run, "--threads", "2", opt, val)),
        0, "selfplay %s", v);
    cr_assert_eq(su_run(SU_DATA("convert", "--in", run, "--from", "bin", "--to", "bin,chain",
                                "--out", a, "--progress", "0")),
                 0);
    cr_assert_eq(su_run(SU_DATA("convert", "--in", run, "--from", "chain", "--to", "bin,jsonl",
                                "--out", b, "--progress", "0")),
                 0);
    same_file(run, a, "shard-000000.bin");              /* bin -> games -> bin */
    if (whole) same_file(run, a, "shard-000000.chain"); /* bin -> chain, as self-play wrote it */
    same_file(run, b, "shard-000000.bin");              /* chain -> bin */
    same_file(run, b, "shard-000000.jsonl");
    cr_expect_eq(chain_version(run, "shard-000000.chain"), 7, "%s: self-play writes version 7", v);
    /* the chain is a small fraction of the bin: at most 5 bytes a position of 104+ */
    cr_expect_lt(file_size(run, "shard-000000.chain") * 20, file_size(run, "shard-000000.bin"),
                 "%s: chain %ld bytes, bin %ld", v, file_size(run, "shard-000000.chain"),
                 file_size(run, "shard-000000.bin"));
    su_remove_dir(run);
    su_remove_dir(a);
    su_remove_dir(b);
}

Test(chain, bin_chain_bin_is_byte_identical_in_every_variant) {
    round_trip("chess", "--seed", "5", true);
    round_trip("switching", "--seed", "5", true);
    round_trip("superchess", "--seed", "5", true);
    round_trip("supremo", "--seed", "5", true);
}

/* Chains of the older versions convert to the bin written beside the version 1 chains
 * (tests/data/chain_v1, made at f02319c; tests/data/chain_v2 to chain_v6 hold the same
 * games as version 2, converted by 45d322b, version 3, by e5b489d, version 4, by
 * d80116d, version 5, by 4d56c3a, and version 6, by 8801366), directly and through a
 * version 7 chain. */
Test(chain, version_1_to_6_chains_still_read_as_the_bin_written_with_them) {
    char *variants[] = {"chess", "switching", "superchess", "supremo"};
    for (int version = 1; version <= 6; version++)
        for (int i = 0; i < 4; i++) {
            char in[1024], bin[1024], a[512], b[512], c[512];
            snprintf(in, sizeof in, "%s/chain_v%d/%s", CHESSVAR_TEST_DATA, version, variants[i]);
            snprintf(bin, sizeof bin, "%s/chain_v1/%s", CHESSVAR_TEST_DATA, variants[i]);
            cr_assert_eq(chain_version(in, "shard-000000.chain"), version, "%s", in);
            su_temp_dir(a, sizeof a);
            su_temp_dir(b, sizeof b);
            su_temp_dir(c, sizeof c);
            cr_assert_eq(su_run(SU_DATA("convert", "--in", in, "--from", "chain", "--to",
                                        "bin,chain", "--out", a, "--progress", "0")),
                         0, "%s", in);
            same_file(bin, a, "shard-000000.bin");
            cr_expect_eq(chain_version(a, "shard-000000.chain"), 7);
            cr_assert_eq(su_run(SU_DATA("convert", "--in", a, "--from", "chain", "--to", "bin",
                                        "--out", b, "--progress", "0")),
                         0, "%s", a);
            same_file(bin, b, "shard-000000.bin");
            /* and bin -> chain writes version 7, the same as from the older chain */
            cr_assert_eq(su_run(SU_DATA("convert", "--in", bin, "--from", "bin", "--to", "chain",
                                        "--out", c, "--progress", "0")),
                         0, "%s", bin);
            same_file(a, c, "shard-000000.chain");
            su_remove_dir(a);
            su_remove_dir(b);
            su_remove_dir(c);
        }
}

/* Versions 4 and 5 code each move's index in the order of the variant's fastest
 * generator: Superchess's specialised path from version 4, Switching's set-wise switches
 * from version 5; those orders differ from gen_legal's, so those blocks differ from the
 * version before; Supremo has no faster generator and keeps version 3's blocks. Version 6
 * codes chess's among chess_gen_pseudo_set's moves (so its chess blocks differ from every
 * older one) and keeps version 5's blocks in the other variants (checked on the version 6
 * chains that 8801366 wrote, tests/data/chain_v6). Version 7 codes the depth in the context of the
 * last two searched depths, in every variant, so its blocks differ from every older version's. */
Test(chain, versions_4_to_7_change_the_blocks_only_where_they_say) {
    char *variants[] = {"chess", "switching", "superchess", "supremo"};
    bool differ[3][4] = {{true, true, true, false},    /* version 6's blocks against 3's */
                         {true, true, false, false},   /* against 4's */
                         {true, false, false, false}}; /* against 5's */
    for (int i = 0; i < 4; i++)
        for (int from = 3; from <= 5; from++) { /* version 6 as 8801366 wrote it */
            char in[1024], v6[1024];
            snprintf(in, sizeof in, "%s/chain_v%d/%s", CHESSVAR_TEST_DATA, from, variants[i]);
            snprintf(v6, sizeof v6, "%s/chain_v6/%s", CHESSVAR_TEST_DATA, variants[i]);
            cr_assert_eq(chain_version(v6, "shard-000000.chain"), 6, "%s", v6);
            bool d = differ[from - 3][i];
            cr_expect_eq(same_from(in, v6, "shard-000000.chain", 64), !d,
                         "%s: version 6's blocks %s version %d's", variants[i],
                         d ? "should differ from" : "should equal", from);
        }
    for (int i = 0; i < 4; i++)
        for (int from = 3; from <= 6; from++) {
            char in[1024], a[512];
            snprintf(in, sizeof in, "%s/chain_v%d/%s", CHESSVAR_TEST_DATA, from, variants[i]);
            cr_assert_eq(chain_version(in, "shard-000000.chain"), from, "%s", in);
            su_temp_dir(a, sizeof a);
            cr_assert_eq(su_run(SU_DATA("convert", "--in", in, "--from", "chain", "--to", "chain",
                                        "--out", a, "--progress", "0")),
                         0, "%s", in);
            cr_assert_eq(chain_version(a, "shard-000000.chain"), 7);
            /* the blocks, after the 64-byte headers, each with its own checksum */
            cr_expect(!same_from(in, a, "shard-000000.chain", 64),
                      "%s: version 7's blocks should differ from version %d's", variants[i], from);
            su_remove_dir(a);
        }
}

Test(chain, dedup_keeps_duplicates_in_the_chain_marked_not_for_training) {
    /* written positions skip plies: the bin reads back as parts of games */
    round_trip("chess", "--dedup-bits", "8", false);
}

/* Runs `chessvar data convert` from dir's chains to bin in out, stderr to err_path. */
static int convert_err(const char *dir, const char *out, const char *err_path, bool strict) {
    char *const argv[] = {CHESSVAR_BINARY,
                          "data",
                          "convert",
                          "--in",
                          (char *)dir,
                          "--to",
                          "bin",
                          "--out",
                          (char *)out,
                          "--progress",
                          "0",
                          strict ? "--strict" : NULL,
                          NULL};
    return su_run_err(argv, err_path);
}

/* Writes buf[0..len) to path, replacing the file. */
static void write_bytes(const char *path, const void *buf, long len) {
    FILE *f = fopen(path, "wb");
    cr_assert(f && fwrite(buf, 1, (size_t)len, f) == (size_t)len && fclose(f) == 0,
              "cannot write %s", path);
}

/* Stores the XXH3-64 of buf[from..from + n) at buf + at, little-endian, as FORMAT.md's
 * header and block checksums are stored. */
static void put_xxh3(uint8_t *buf, long from, long n, long at) {
    uint64_t h = XXH3_64bits(buf + from, (size_t)n);
    for (int i = 0; i < 8; i++) buf[at + i] = (uint8_t)(h >> (8 * i));
}

/* Expects converting run's chains to fail (exit status 2) with a message naming `where`
 * (the file, the block and the game) and a replay under other rules. */
static void expect_other_rules(const char *run, const char *out, const char *errp,
                               const char *where) {
    cr_expect_eq(convert_err(run, out, errp, false), 2);
    long el = 0;
    char *e = su_slurp(errp, &el);
    cr_expect(e && strstr(e, where) && strstr(e, "other rules"), "message: %s", e ? e : "(none)");
    free(e);
}

Test(chain, a_corrupt_or_truncated_block_is_named_and_skipped_or_strictly_an_error) {
    char run[512], out[512], errp[600];
    su_temp_dir(run, sizeof run);
    su_temp_dir(out, sizeof out);
    snprintf(errp, sizeof errp, "%s/err.txt", out);
    cr_assert_eq(su_run(SU_SP("--variant", "chess", "--games", "4", "--nodes", "200",
                              "--shard-games", "2", "--format", "chain", "--out", run)),
                 0);
    cr_assert_eq(chain_version(run, "shard-000001.chain"), 7);
    char path[1024];
    snprintf(path, sizeof path, "%s/shard-000001.chain", run);
    long len = 0;
    char *buf = su_slurp(path, &len);
    cr_assert(buf && len > 200);
    buf[100] ^= 0x10; /* inside block 0's payload */
    write_bytes(path, buf, len);
    cr_expect_eq(convert_err(run, out, errp, false), 0);
    long el = 0;
    char *e = su_slurp(errp, &el);
    cr_expect(e && strstr(e, "shard-000001.chain: block 0 fails its checksum") &&
                  strstr(e, "skipped"),
              "message: %s", e ? e : "(none)");
    free(e);
    cr_expect_eq(convert_err(run, out, errp, true), 2, "strict reader goes on");
    e = su_slurp(errp, &el);
    cr_expect(e && strstr(e, "shard-000001.chain: block 0"), "message: %s", e ? e : "(none)");
    free(e);
    /* truncated: the file ends inside the block */
    buf[100] ^= 0x10;
    write_bytes(path, buf, len - 5);
    cr_expect_eq(convert_err(run, out, errp, false), 0);
    e = su_slurp(errp, &el);
    cr_expect(e && strstr(e, "shard-000001.chain: block 0 is truncated"), "message: %s",
              e ? e : "(none)");
    free(e);
    free(buf);
    su_remove_dir(run);
    su_remove_dir(out);
}

/* A payload changed under a valid checksum: version 7's chess decoder (version 6's moves) meets a
 * move its rules refuse (the index picks a pseudo-legal move it tests) or a replay that ends
 * elsewhere, an error naming the game, never a crash or a silent success. */
Test(chain, a_changed_version_7_payload_under_its_checksum_is_an_error_naming_the_game) {
    char run[512], out[512], errp[600];
    su_temp_dir(run, sizeof run);
    su_temp_dir(out, sizeof out);
    snprintf(errp, sizeof errp, "%s/err.txt", out);
    cr_assert_eq(su_run(SU_SP("--variant", "chess", "--games", "2", "--nodes", "200", "--format",
                              "chain", "--out", run)),
                 0);
    cr_assert_eq(chain_version(run, "shard-000000.chain"), 7);
    char path[1024];
    snprintf(path, sizeof path, "%s/shard-000000.chain", run);
    long len = 0;
    uint8_t *buf = (uint8_t *)su_slurp(path, &len);
    cr_assert(buf && len > 200);
    uint32_t plen = buf[64] | buf[65] << 8 | (uint32_t)buf[66] << 16 | (uint32_t)buf[67] << 24;
    cr_assert_eq(64 + 24 + (long)plen + 8, len, "one block");
    buf[64 + 24 + plen / 3] ^= 0x5A; /* a third of the way into block 0's payload */
    put_xxh3(buf, 64, 24 + plen, 64 + 24 + plen);
    write_bytes(path, buf, len);
    free(buf);
    expect_other_rules(run, out, errp, "shard-000000.chain: block 0: game ");
    su_remove_dir(run);
    su_remove_dir(out);
}

Test(chain, a_replay_under_other_rules_is_an_error_naming_the_game) {
    char run[512], out[512], errp[600];
    su_temp_dir(run, sizeof run);
    su_temp_dir(out, sizeof out);
    snprintf(errp, sizeof errp, "%s/err.txt", out);
    cr_assert_eq(su_run(SU_SP("--variant", "chess", "--games", "2", "--nodes", "200",
                              "--fixed-start", "--format", "chain", "--out", run)),
                 0);
    char path[1024];
    snprintf(path, sizeof path, "%s/shard-000000.chain", run);
    long len = 0;
    uint8_t *buf = (uint8_t *)su_slurp(path, &len);
    /* the same header, variant switching: a valid file whose moves mean other moves */
    memset(buf + 40, 0, 16);
    memcpy(buf + 40, "switching", 9);
    put_xxh3(buf, 0, 56, 56);
    write_bytes(path, buf, len);
    free(buf);
    expect_other_rules(run, out, errp, "shard-000000.chain: block 0: game 0 ply ");
    su_remove_dir(run);
    su_remove_dir(out);
}

/* ---------------------------------------------------------------- generator options */

/* One JSONL position's fields the option tests read. */
typedef struct Pos {
    unsigned game;
    int ply, result;
    bool random, searched;
    char move[32], best[32];
} Pos;

/* Reads every JSONL shard of dir; returns the count. */
static int load(const char *dir, Pos **out) {
    int n = 0, cap = 4096;
    Pos *p = malloc((size_t)cap * sizeof *p);
    char line[2048];
    for (int shard = 0;; shard++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/shard-%06d.jsonl", dir, shard);
        FILE *f = fopen(path, "r");
        if (!f) break;
        while (fgets(line, sizeof line, f)) {
            if (n == cap) p = realloc(p, (size_t)(cap *= 2) * sizeof *p);
            Pos *x = &p[n++];
            cr_assert_eq(sscanf(line, "{\"game\":%u,\"ply\":%d", &x->game, &x->ply), 2);
            cr_assert_eq(sscanf(strstr(line, "\"move\":"), "\"move\":\"%31[^\"]", x->move), 1);
            x->searched = sscanf(strstr(line, "\"best\":"), "\"best\":\"%31[^\"]", x->best) == 1;
            x->random = strstr(line, "\"random\":true") != NULL;
            cr_assert_eq(sscanf(strstr(line, "\"result\":"), "\"result\":%d", &x->result), 1);
        }
        fclose(f);
    }
    *out = p;
    return n;
}

#define GEN                                                                                        \
    "--variant", "chess", "--nodes", "200", "--games", "6", "--seed", "1", "--format", "jsonl"

Test(chain, random_moves_fall_in_their_ply_range_and_multipv_draws_among_the_best) {
    char a[512], b[512];
    su_temp_dir(a, sizeof a);
    su_temp_dir(b, sizeof b);
    cr_assert_eq(su_run(SU_SP(GEN, "--random-moves", "3", "--random-min-ply", "20",
                              "--random-max-ply", "40", "--out", a)),
                 0);
    Pos *p;
    int n = load(a, &p), per_game[6] = {0}, last[6] = {0}, longest = 0;
    for (int i = 0; i < n; i++) {
        if (p[i].ply > longest) longest = p[i].ply;
        if (p[i].ply > last[p[i].game]) last[p[i].game] = p[i].ply;
        if (!p[i].random || p[i].ply < 4) continue; /* the 4 opening plies are random too */
        cr_expect(p[i].ply >= 20 && p[i].ply <= 40, "game %u: random move at ply %d", p[i].game,
                  p[i].ply);
        cr_expect(!p[i].searched, "a uniform random move has no label");
        per_game[p[i].game]++;
    }
    for (int g = 0; g < 6; g++) /* a game over before ply 40 may miss some */
        cr_expect(last[g] > 40 ? per_game[g] == 3 : per_game[g] <= 3, "game %d: %d random moves", g,
                  per_game[g]);
    cr_expect_gt(longest, 40, "no game reached ply 40: the test shows nothing");
    free(p);
    cr_assert_eq(
        su_run(SU_SP(GEN, "--random-moves", "3", "--random-min-ply", "20", "--random-max-ply", "40",
                     "--random-multipv", "3", "--random-multipv-diff", "60", "--out", b)),
        0);
    n = load(b, &p);
    int drawn = 0, other = 0;
    for (int i = 0; i < n; i++) {
        if (!p[i].random) continue;
        drawn++;
        cr_expect(p[i].searched, "game %u ply %d: a multi-PV move is labelled by its search",
                  p[i].game, p[i].ply);
        other += p[i].searched && strcmp(p[i].move, p[i].best) != 0;
    }
    cr_expect_gt(drawn, 0);
    cr_expect_gt(other, 0, "every multi-PV draw was the best move: no draw among several");
    cr_expect_lt(other, drawn, "no multi-PV draw was the best move");
    free(p);
    su_remove_dir(a);
    su_remove_dir(b);
}

Test(chain, write_max_ply_and_skip_draws_leave_out_exactly_their_positions) {
    char all[512], capd[512], nodraw[512];
    su_temp_dir(all, sizeof all);
    su_temp_dir(capd, sizeof capd);
    su_temp_dir(nodraw, sizeof nodraw);
    /* A ply cap of 100 makes the long games draws whatever the evaluation plays (the shipped
     * chess net mates or is mated in all six games of this run without one). */
    cr_assert_eq(su_run(SU_SP(GEN, "--ply-cap", "100", "--out", all)), 0);
    cr_assert_eq(su_run(SU_SP(GEN, "--ply-cap", "100", "--write-max-ply", "30", "--out", capd)), 0);
    cr_assert_eq(su_run(SU_SP(GEN, "--ply-cap", "100", "--skip-draws", "--out", nodraw)), 0);
    Pos *a, *c, *d;
    int na = load(all, &a), nc = load(capd, &c), nd = load(nodraw, &d);
    int k = 0, m = 0, draws = 0;
    for (int i = 0; i < na; i++) {
        if (a[i].ply < 30) {
            cr_assert_lt(k, nc);
            cr_expect(c[k].game == a[i].game && c[k].ply == a[i].ply);
            k++;
        }
        if (a[i].result == 500) {
            draws++;
            continue;
        }
        cr_assert_lt(m, nd);
        cr_expect(d[m].game == a[i].game && d[m].ply == a[i].ply);
        m++;
    }
    cr_expect_eq(k, nc, "--write-max-ply 30: %d positions expected, %d written", k, nc);
    cr_expect_eq(m, nd, "--skip-draws: %d positions expected, %d written", m, nd);
    cr_expect_gt(draws, 0, "no drawn game: the test shows nothing");
    cr_expect_lt(nc, na);
    free(a);
    free(c);
    free(d);
    su_remove_dir(all);
    su_remove_dir(capd);
    su_remove_dir(nodraw);
}

Test(chain, resume_rewrites_a_missing_chain_shard_the_same) {
    char a[512], b[512], path[1024];
    su_temp_dir(a, sizeof a);
    su_temp_dir(b, sizeof b);
    cr_assert_eq(su_run(SU_SP("--variant", "chess", "--games", "4", "--nodes", "200",
                              "--shard-games", "2", "--format", "chain", "--out", a)),
                 0);
    cr_assert_eq(su_run(SU_SP("--variant", "chess", "--games", "4", "--nodes", "200",
                              "--shard-games", "2", "--format", "chain", "--out", b)),
                 0);
    snprintf(path, sizeof path, "%s/shard-000001.chain", b); /* as if killed before it */
    cr_assert_eq(remove(path), 0);
    cr_assert_eq(su_run(SU_SP("--variant", "chess", "--games", "4", "--nodes", "200",
                              "--shard-games", "2", "--format", "chain", "--out", b, "--resume")),
                 0);
    cr_expect_gt(su_same_dirs(a, b), 4);
    su_remove_dir(a);
    su_remove_dir(b);
}

/* The "move" values of every JSONL line of dir, in order, joined by spaces. */
static char *moves_of(const char *dir, int *depth_two, int *lines) {
    Pos *p;
    int n = load(dir, &p);
    char *s = calloc((size_t)n * 33 + 1, 1);
    for (int i = 0; i < n; i++) {
        strcat(s, p[i].move);
        strcat(s, " ");
    }
    *lines = n;
    *depth_two = 0;
    char path[1024], line[2048];
    for (int shard = 0;; shard++) {
        snprintf(path, sizeof path, "%s/shard-%06d.jsonl", dir, shard);
        FILE *f = fopen(path, "r");
        if (!f) break;
        while (fgets(line, sizeof line, f)) *depth_two += strstr(line, "\"depth\":2,") != NULL;
        fclose(f);
    }
    free(p);
    return s;
}

Test(chain, rescore_keeps_the_moves_relabels_every_position_and_resumes) {
    char run[512], out[512], ja[512], jb[512], path[1024];
    su_temp_dir(run, sizeof run);
    su_temp_dir(out, sizeof out);
    su_temp_dir(ja, sizeof ja);
    su_temp_dir(jb, sizeof jb);
    cr_assert_eq(su_run(SU_SP("--variant", "chess", "--games", "2", "--nodes", "3000",
                              "--shard-games", "1", "--format", "chain", "--out", run)),
                 0);
    cr_assert_eq(su_run(SU_DATA("rescore", "--in", run, "--out", out, "--depth", "2", "--threads",
                                "2", "--progress", "0")),
                 0);
    cr_assert_eq(
        su_run(SU_DATA("convert", "--in", run, "--to", "jsonl", "--out", ja, "--progress", "0")),
        0);
    cr_assert_eq(
        su_run(SU_DATA("convert", "--in", out, "--to", "jsonl", "--out", jb, "--progress", "0")),
        0);
    int da, db, na, nb;
    char *ma = moves_of(ja, &da, &na), *mb = moves_of(jb, &db, &nb);
    cr_expect_str_eq(ma, mb, "rescore changed the moves played");
    /* every position now has a depth-2 label (a mate found shallower is the exception) */
    cr_expect_gt(db, nb * 9 / 10, "%d of %d positions labelled at depth 2", db, nb);
    cr_expect_lt(da, na / 10, "the self-play labels were depth 2 already: the test shows nothing");
    free(ma);
    free(mb);
    /* resume: a shard missing from the output is rescored again, the same */
    snprintf(path, sizeof path, "%s/shard-000001.chain", out);
    long len = 0;
    char *before = su_slurp(path, &len);
    cr_assert_eq(remove(path), 0);
    cr_assert_eq(su_run(SU_DATA("rescore", "--in", run, "--out", out, "--depth", "2", "--threads",
                                "1", "--progress", "0")),
                 0);
    long len2 = 0;
    char *after = su_slurp(path, &len2);
    cr_expect(after && len == len2 && memcmp(before, after, (size_t)len) == 0,
              "the resumed shard differs");
    free(before);
    free(after);
    /* other options into the same folder are refused */
    cr_expect_eq(
        su_run(SU_DATA("rescore", "--in", run, "--out", out, "--depth", "3", "--progress", "0")),
        2);
    su_remove_dir(run);
    su_remove_dir(out);
    su_remove_dir(ja);
    su_remove_dir(jb);
}

/* Number of files in dir whose names end in ext. */
static int count_ext(const char *dir, const char *ext) {
    DIR *d = opendir(dir);
    int n = 0;
    size_t e = strlen(ext);
    for (struct dirent *x; d && (x = readdir(d));) {
        size_t l = strlen(x->d_name);
        n += l > e && strcmp(x->d_name + l - e, ext) == 0;
    }
    if (d) closedir(d);
    return n;
}

Test(chain, rescore_under_mpi_writes_what_one_process_writes_and_resumes_after_a_kill,
     .timeout = 600) {
    char mpirun[1024];
    if (!su_find_mpirun(mpirun, sizeof mpirun))
        cr_skip_test("mpirun is not installed (scripts/setup.sh installs openmpi-bin)");
    setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 1);
    setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 1);
    char run[512], one[512], two[512], cut[512], mark[1100];
    su_temp_dir(run, sizeof run);
    su_temp_dir(one, sizeof one);
    su_temp_dir(two, sizeof two);
    su_temp_dir(cut, sizeof cut);
    cr_assert_eq(
        su_run(SU_SP("--variant", "chess", "--games", "10", "--nodes", "200", "--shard-games", "1",
                     "--ply-cap", "120", "--format", "chain", "--out", run)),
        0);
#define RESCORE                                                                                    \
    "data", "rescore", "--in", run, "--nodes", "20000", "--threads", "1", "--progress", "0"
    cr_assert_eq(su_run((char *const[]){CHESSVAR_BINARY, RESCORE, "--out", one, NULL}), 0);
    cr_assert_eq(su_run((char *const[]){mpirun, "--oversubscribe", "-np", "2", CHESSVAR_BINARY,
                                        RESCORE, "--out", two, NULL}),
                 0);
    cr_expect_eq(su_same_dirs(one, two), 11, "ten shards and rescore.json");
    /* killed (mpirun takes its ranks down) once the first shard is written, then rerun */
    char *argv[] = {mpirun,  "--oversubscribe", "-np", "2", CHESSVAR_BINARY,
                    RESCORE, "--out",           cut,   NULL};
    pid_t pid = su_spawn(argv, NULL);
    snprintf(mark, sizeof mark, "%s/shard-000000.chain", cut);
    struct timespec pause = {0, 2000000};
    int st;
    while (access(mark, F_OK) != 0) {
        cr_assert_eq(waitpid(pid, &st, WNOHANG), 0, "the rescore ended before a shard was written");
        nanosleep(&pause, NULL);
    }
    kill(pid, SIGTERM);
    waitpid(pid, &st, 0);
    int kept = count_ext(cut, ".chain");
    cr_expect(kept >= 1 && kept < 10, "%d of 10 shards written before the kill", kept);
    cr_assert_eq(su_run(argv), 0, "the resumed rescore failed");
    cr_expect_eq(su_same_dirs(one, cut), 11);
#undef RESCORE
    su_remove_dir(run);
    su_remove_dir(one);
    su_remove_dir(two);
    su_remove_dir(cut);
}

Test(chain, the_trainer_reads_a_chain_as_it_reads_the_bin_of_the_same_games) {
    char run_bin[512], run_chain[512], nets[512], net_a[1100], net_b[1100];
    su_temp_dir(run_bin, sizeof run_bin);
    su_temp_dir(run_chain, sizeof run_chain);
    su_temp_dir(nets, sizeof nets);
    /* the same seeded games, once as bin and once as chain (two shards each) */
#define GAMES                                                                                      \
    "--variant", "chess", "--games", "8", "--nodes", "200", "--shard-games", "4", "--ply-cap", "120"
    cr_assert_eq(su_run(SU_SP(GAMES, "--format", "bin", "--out", run_bin)), 0);
    cr_assert_eq(su_run(SU_SP(GAMES, "--format", "chain", "--out", run_chain)), 0);
#undef GAMES
    snprintf(net_a, sizeof net_a, "%s/bin.nnue", nets);
    snprintf(net_b, sizeof net_b, "%s/chain.nnue", nets);
#define TRAIN                                                                                      \
    "--positions", "20000", "--hidden", "32", "--batch", "256", "--shuffle", "2048", "--threads",  \
        "1", "--progress", "0"
    cr_assert_eq(su_run((char *const[]){CHESSVAR_BINARY, "train", "--data", run_bin, "--out", net_a,
                                        TRAIN, NULL}),
                 0);
    cr_assert_eq(su_run((char *const[]){CHESSVAR_BINARY, "train", "--data", run_chain, "--out",
                                        net_b, TRAIN, NULL}),
                 0);
#undef TRAIN
    long la = 0, lb = 0;
    char *a = su_slurp(net_a, &la), *b = su_slurp(net_b, &lb);
    cr_assert(a && b, "%s or %s missing", net_a, net_b);
    cr_expect(la == lb && memcmp(a, b, (size_t)la) == 0,
              "the networks trained from the bin and from the chain differ");
    free(a);
    free(b);
    su_remove_dir(run_bin);
    su_remove_dir(run_chain);
    su_remove_dir(nets);
}
