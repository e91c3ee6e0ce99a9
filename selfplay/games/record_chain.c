/* record_chain.c - chain shard files: writing games as checksummed blocks of the chain
 * codec, reading them back (bad blocks skipped or, strict, an error), and reading a bin
 * shard back into games so that any position file converts to any other. */
#include "record_chain.h"

#include "../files.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

bool record_is_shard_name(const char *name, const char *ext) {
    size_t n = strlen(name), e = strlen(ext);
    if (n < 8 + e || strncmp(name, "shard-", 6) != 0 || name[n - e - 1] != '.' ||
        strcmp(name + n - e, ext) != 0)
        return false;
    for (size_t i = 6; i < n - e - 1; i++)
        if (name[i] < '0' || name[i] > '9') return false;
    return true;
}

/* ---------------------------------------------------------------- writing */

/* The 64-byte chain header (FORMAT.md). */
static void chain_header(uint8_t *h, const ShardInfo *si, uint64_t positions, int version) {
    memset(h, 0, CHAIN_HEADER_SIZE);
    memcpy(h, "CVCHAIN1", 8);
    le_put16(h + 8, (uint16_t)version);
    le_put16(h + 10, CHAIN_HEADER_SIZE);
    le_put16(h + 12, CHAIN_BLOCK_HEAD);
    h[14] = 1; /* codec: the adaptive binary range coder of chain.c */
    h[16] = si->var->width;
    h[17] = si->var->height;
    h[18] = si->var->npt;
    le_put32(h + 20, si->shard);
    le_put32(h + 24, si->first_game);
    le_put32(h + 28, si->header_games ? si->header_games : si->games);
    le_put64(h + 32, positions);
    snprintf((char *)h + 40, 16, "%s", si->var->name);
    le_put64(h + 56, XXH3_64bits(h, 56));
}

/* Codes games [from, to) as one block and writes it: head, payload, XXH3-64. */
static bool chain_write_block(FILE *f, const ShardInfo *si, Game *const *games, uint32_t from,
                              uint32_t to, uint32_t index, int version, Position *pos,
                              CvError *err) {
    ChainEnc e;
    if (!chain_enc_init(&e, games[from]->id, version)) {
        snprintf(err->msg, sizeof err->msg, "out of memory");
        return false;
    }
    uint32_t plies = 0, positions = 0;
    bool ok = true;
    for (uint32_t i = from; ok && i < to; i++) {
        ok = chain_enc_game(&e, si->var, games[i], pos, err);
        plies += (uint32_t)games[i]->nply;
        for (int k = 0; k < games[i]->nply; k++) positions += !games[i]->ply[k].unwritten;
    }
    if (ok) {
        chain_enc_finish(&e);
        if (e.oom) snprintf(err->msg, sizeof err->msg, "out of memory");
        ok = !e.oom;
    }
    if (ok) {
        uint8_t head[CHAIN_BLOCK_HEAD], sum[8];
        le_put32(head, (uint32_t)e.len);
        le_put32(head + 4, index);
        le_put32(head + 8, to - from);
        le_put32(head + 12, plies);
        le_put32(head + 16, positions);
        le_put32(head + 20, games[from]->id);
        XXH3_state_t *st = XXH3_createState();
        XXH3_64bits_reset(st);
        XXH3_64bits_update(st, head, sizeof head);
        XXH3_64bits_update(st, e.out, e.len);
        le_put64(sum, XXH3_64bits_digest(st));
        XXH3_freeState(st);
        fwrite(head, 1, sizeof head, f);
        fwrite(e.out, 1, e.len, f);
        fwrite(sum, 1, sizeof sum, f);
    }
    chain_enc_free(&e);
    return ok;
}

bool record_write_chain(FILE *f, const ShardInfo *si, Game *const *games, Position *pos,
                        CvError *err) {
    return record_write_chain_version(f, si, games, CHAIN_VERSION, pos, err);
}

/* Chain shard: header, then blocks of whole games closed after CHAIN_BLOCK_PLIES plies. */
bool record_write_chain_version(FILE *f, const ShardInfo *si, Game *const *games, int version,
                                Position *pos, CvError *err) {
    uint64_t positions = 0;
    for (uint32_t i = 0; i < si->games; i++)
        for (int k = 0; k < games[i]->nply; k++) positions += !games[i]->ply[k].unwritten;
    uint8_t h[CHAIN_HEADER_SIZE];
    chain_header(h, si, positions, version);
    fwrite(h, 1, sizeof h, f);
    uint32_t from = 0, index = 0, plies = 0;
    for (uint32_t i = 0; i < si->games; i++) {
        plies += (uint32_t)games[i]->nply;
        if (plies >= CHAIN_BLOCK_PLIES || i + 1 == si->games) {
            if (!chain_write_block(f, si, games, from, i + 1, index++, version, pos, err))
                return false;
            from = i + 1;
            plies = 0;
        }
    }
    return true;
}

/* ---------------------------------------------------------------- reading */

bool chain_file_open(ChainFile *cf, const char *path, bool strict, const char *who, CvError *err) {
    memset(cf, 0, sizeof *cf);
    snprintf(cf->path, sizeof cf->path, "%s", path);
    cf->strict = strict;
    cf->who = who;
    cf->f = fopen(path, "rb");
    uint8_t h[CHAIN_HEADER_SIZE];
    if (!cf->f || fread(h, 1, sizeof h, cf->f) != sizeof h) {
        snprintf(err->msg, sizeof err->msg, "%.200s: cannot read its header", path);
        chain_file_close(cf);
        return false;
    }
    if (memcmp(h, "CVCHAIN1", 8) != 0 || XXH3_64bits(h, 56) != le_get64(h + 56)) {
        snprintf(err->msg, sizeof err->msg, "%.200s: not a chain shard or a corrupt header", path);
        chain_file_close(cf);
        return false;
    }
    char name[17] = {0};
    memcpy(name, h + 40, 16);
    cf->var = variant_by_name(name);
    cf->version = le_get16(h + 8);
    if (cf->version < 1 || cf->version > CHAIN_VERSION || h[14] != 1 ||
        le_get16(h + 12) != CHAIN_BLOCK_HEAD) {
        snprintf(err->msg, sizeof err->msg,
                 "%.200s: chain version %u codec %u, this program reads 1 to %d codec 1", path,
                 le_get16(h + 8), h[14], CHAIN_VERSION);
        chain_file_close(cf);
        return false;
    }
    if (!cf->var || h[16] != cf->var->width || h[17] != cf->var->height || h[18] != cf->var->npt) {
        snprintf(err->msg, sizeof err->msg,
                 "%.200s: unknown variant '%s' or a header that does not match it", path, name);
        chain_file_close(cf);
        return false;
    }
    cf->shard = le_get32(h + 20);
    cf->first_game = le_get32(h + 24);
    cf->games = le_get32(h + 28);
    cf->positions = le_get64(h + 32);
    return true;
}

void chain_file_close(ChainFile *cf) {
    if (cf->f) fclose(cf->f);
    free(cf->buf);
    cf->f = NULL;
    cf->buf = NULL;
}

/* Reports a bad block (and returns 0 to skip it) or, strict, fails with it (-1). */
static int chain_bad_block(ChainFile *cf, const char *what, CvError *err) {
    cf->bad_blocks++;
    if (cf->strict) {
        snprintf(err->msg, sizeof err->msg, "%.200s: block %u %s", cf->path, cf->bindex, what);
        return -1;
    }
    fprintf(stderr, "%s: %s: block %u %s, skipped\n", cf->who, cf->path, cf->bindex, what);
    return 0;
}

int chain_file_block(ChainFile *cf, ChainBlock *b, CvError *err) {
    for (;;) {
        if (!cf->f) return 0;
        uint8_t head[CHAIN_BLOCK_HEAD];
        size_t got = fread(head, 1, sizeof head, cf->f);
        if (got == 0) return 0;
        uint32_t len = got == sizeof head ? le_get32(head) : 0;
        if (got < sizeof head || len > CHAIN_MAX_PAYLOAD) {
            int r = chain_bad_block(
                cf,
                got < sizeof head ? "is truncated" : "has a corrupt length: the rest of the file",
                err);
            fclose(cf->f);
            cf->f = NULL;
            return r;
        }
        if (cf->cap < (size_t)len + 8) {
            uint8_t *p = realloc(cf->buf, (size_t)len + 8);
            if (!p) {
                snprintf(err->msg, sizeof err->msg, "out of memory");
                return -1;
            }
            cf->buf = p;
            cf->cap = (size_t)len + 8;
        }
        if (fread(cf->buf, 1, (size_t)len + 8, cf->f) != (size_t)len + 8) {
            int r = chain_bad_block(cf, "is truncated", err);
            fclose(cf->f);
            cf->f = NULL;
            return r;
        }
        XXH3_state_t *st = XXH3_createState();
        XXH3_64bits_reset(st);
        XXH3_64bits_update(st, head, sizeof head);
        XXH3_64bits_update(st, cf->buf, len);
        bool ok =
            XXH3_64bits_digest(st) == le_get64(cf->buf + len) && le_get32(head + 4) == cf->bindex;
        XXH3_freeState(st);
        if (!ok) {
            int r = chain_bad_block(cf, "fails its checksum or index", err);
            cf->bindex++;
            if (r < 0) return r;
            continue;
        }
        *b = (ChainBlock){.payload = cf->buf,
                          .len = len,
                          .index = cf->bindex++,
                          .games = le_get32(head + 8),
                          .plies = le_get32(head + 12),
                          .positions = le_get32(head + 16),
                          .first_id = le_get32(head + 20),
                          .version = cf->version};
        return 1;
    }
}

void shard_games_free(ShardGames *sg) {
    for (uint32_t i = 0; sg->games && i < sg->si.games; i++) free(sg->games[i]);
    free(sg->games);
    memset(sg, 0, sizeof *sg);
}

/* Appends a game to sg (grown by doubling); false if out of memory. */
static bool shard_games_add(ShardGames *sg, Game *g, uint32_t *cap) {
    if (sg->si.games == *cap) {
        *cap = *cap ? 2 * *cap : 64;
        Game **p = realloc(sg->games, *cap * sizeof *p);
        if (!p) return false;
        sg->games = p;
    }
    sg->games[sg->si.games++] = g;
    return true;
}

bool chain_read_games(const char *path, bool strict, ShardGames *sg, Position *pos, CvError *err) {
    memset(sg, 0, sizeof *sg);
    ChainFile cf;
    if (!chain_file_open(&cf, path, strict, "data", err)) return false;
    sg->si = (ShardInfo){
        .var = cf.var, .shard = cf.shard, .first_game = cf.first_game, .header_games = cf.games};
    Game *scratch = malloc(game_size(MAX_GAME_PLY));
    uint32_t cap = 0;
    bool ok = scratch != NULL;
    ChainBlock b;
    int r = 0;
    while (ok && (r = chain_file_block(&cf, &b, err)) > 0) {
        ChainDec d;
        ok = chain_dec_init(&d, b.payload, b.len, b.first_id, b.version);
        for (uint32_t i = 0; ok && i < b.games; i++) {
            if (!chain_dec_game(&d, cf.var, scratch, pos, NULL, 0, NULL, err)) {
                char why[200];
                snprintf(why, sizeof why, "%s", err->msg);
                snprintf(err->msg, sizeof err->msg, "%.200s: block %u: %s", path, b.index, why);
                ok = false;
                break;
            }
            Game *g = malloc(game_size(scratch->nply));
            ok = g && shard_games_add(sg, g, &cap);
            if (g) memcpy(g, scratch, game_size(scratch->nply));
            if (!ok) free(g);
        }
        chain_dec_free(&d);
    }
    if (r < 0) ok = false;
    if (ok && !scratch) snprintf(err->msg, sizeof err->msg, "out of memory");
    for (uint32_t i = 0; ok && i < sg->si.games; i++)
        for (int k = 0; k < sg->games[i]->nply; k++)
            sg->positions += !sg->games[i]->ply[k].unwritten;
    free(scratch);
    chain_file_close(&cf);
    if (!ok) shard_games_free(sg);
    return ok;
}

/* The position a bin record describes, read through its FEN (the fullmove number, which
 * records do not hold, taken from the ply); false with err when it does not read. */
static bool chain_pos_from_record(Position *pos, const Variant *v, const uint8_t *r, int hld,
                                  CvError *err) {
    memset(pos, 0, offsetof(Position, stack));
    pos->var = v;
    pos->width = v->width;
    pos->height = v->height;
    pos->nsq = (uint8_t)(v->width * v->height);
    pos->wide = v->width > 8;
    memcpy(pos->board, r + RECORD_FIXED_SIZE, pos->nsq);
    for (int s = 0; s < pos->nsq; s++) pos->count[pos->board[s] & 63]++;
    pos->side = r[20];
    pos->ep = r[21];
    pos->halfmove = (uint16_t)le_get16(r + 24);
    pos->fullmove = 1 + le_get16(r + 4) / 2;
    pos->castle = le_get32(r + 28);
    const uint8_t *h = r + RECORD_FIXED_SIZE + pos->nsq;
    for (int t = 1; t <= hld; t++) {
        pos->hand[WHITE][t] = h[t - 1];
        pos->hand[BLACK][t] = h[hld + t - 1];
        pos->pool[WHITE][t] = h[2 * hld + t - 1];
        pos->pool[BLACK][t] = h[3 * hld + t - 1];
    }
    char fen[512];
    pos_to_fen(pos, fen, sizeof fen);
    return pos_from_fen(pos, v, fen, err);
}

/* Reads and checks a bin shard's header; the variant, record size and counts. */
static bool bin_read_header(FILE *f, const char *path, ShardGames *sg, int *rsize, CvError *err) {
    uint8_t h[RECORD_HEADER_SIZE];
    if (fread(h, 1, sizeof h, f) != sizeof h || memcmp(h, "CVSPDATA", 8) != 0 ||
        XXH3_64bits(h, 56) != le_get64(h + 56) || le_get16(h + 8) != RECORD_VERSION) {
        snprintf(err->msg, sizeof err->msg,
                 "%.200s: not a version %d bin shard or a corrupt header", path, RECORD_VERSION);
        return false;
    }
    char name[17] = {0};
    memcpy(name, h + 40, 16);
    const Variant *v = variant_by_name(name);
    *rsize = (int)le_get16(h + 12);
    if (!v || *rsize != record_size(v) || le_get16(h + 14) != RECORD_BLOCK_RECORDS) {
        snprintf(err->msg, sizeof err->msg,
                 "%.200s: unknown variant '%s' or a header that does not match it", path, name);
        return false;
    }
    sg->si = (ShardInfo){.var = v,
                         .shard = le_get32(h + 20),
                         .first_game = le_get32(h + 24),
                         .header_games = le_get32(h + 28)};
    return true;
}

/* Fills ply k of g from record r (the move list of its position in list[0..n)); false
 * with err when the move played is not among the legal moves. */
static bool bin_fill_ply(Game *g, int k, const uint8_t *r, const Move *list, int n,
                         const char *path, uint64_t i, CvError *err) {
    GamePly *p = &g->ply[k];
    p->legal = (uint16_t)n;
    p->played = le_get32(r + 8);
    p->best = le_get32(r + 12);
    p->score = (int16_t)le_get16(r + 16);
    p->random = r[22] & RECFLAG_RANDOM;
    p->depth = (uint8_t)le_get16(r + 26);
    p->unwritten = 0;
    for (int m = 0; m < n; m++)
        if (list[m] == p->played) return true;
    snprintf(err->msg, sizeof err->msg,
             "%.200s: record %llu (game %u ply %u): the move played is not legal", path,
             (unsigned long long)i, (unsigned)g->id, (unsigned)(g->ply0 + k));
    return false;
}

/* Adds record r (number i of the file) to the game entry it continues (the same game, the
 * next ply, the position the last move leads to), or starts an entry at it; pos is the
 * position before the last entry's last move. False with err when the record is not a
 * position this program reads back exactly. */
static bool bin_take_record(ShardGames *sg, uint32_t *cap, const uint8_t *r, int rsize, uint64_t i,
                            Position *pos, uint8_t *check, const char *path, CvError *err) {
    const Variant *v = sg->si.var;
    Game *g = sg->si.games ? sg->games[sg->si.games - 1] : NULL;
    uint32_t id = le_get32(r), ply = le_get16(r + 4);
    Move list[MAX_MOVES];
    if (g && g->id == id && ply == (uint32_t)(g->ply0 + g->nply) && g->nply < MAX_GAME_PLY - 1) {
        pos_make(pos, g->ply[g->nply - 1].played);
        int n = pos_legal_moves(pos, list);
        if (!bin_fill_ply(g, g->nply, r, list, n, path, i, err)) return false;
        record_fill(check, rsize, g, g->nply, pos, pos_in_check(pos));
        if (memcmp(check, r, (size_t)rsize) == 0) {
            g->nply++;
            return true;
        }
    }
    if (!chain_pos_from_record(pos, v, r, record_hold_types(v), err)) {
        char why[200];
        snprintf(why, sizeof why, "%s", err->msg);
        snprintf(err->msg, sizeof err->msg, "%.200s: record %llu: %s", path, (unsigned long long)i,
                 why);
        return false;
    }
    g = malloc(game_size(MAX_GAME_PLY));
    if (!g || !shard_games_add(sg, g, cap)) {
        free(g);
        snprintf(err->msg, sizeof err->msg, "out of memory");
        return false;
    }
    memset(g, 0, sizeof *g);
    g->id = id;
    g->ply0 = (uint16_t)ply;
    pos_to_fen(pos, g->start_fen, sizeof g->start_fen);
    int res = (int)le_get16(r + 18);
    g->white_score = r[20] == WHITE ? res : 1000 - res;
    g->termination = r[23];
    int n = pos_legal_moves(pos, list);
    if (!bin_fill_ply(g, 0, r, list, n, path, i, err)) return false;
    record_fill(check, rsize, g, 0, pos, pos_in_check(pos));
    if (memcmp(check, r, (size_t)rsize) != 0 || le_get16(r + 26) > 255) {
        snprintf(err->msg, sizeof err->msg,
                 "%.200s: record %llu (game %u ply %u) is not a position this program writes back "
                 "the same (written under other rules?)",
                 path, (unsigned long long)i, (unsigned)id, (unsigned)ply);
        return false;
    }
    g->nply = 1;
    return true;
}

bool bin_read_games(const char *path, bool strict, ShardGames *sg, Position *pos, CvError *err) {
    memset(sg, 0, sizeof *sg);
    FILE *f = fopen(path, "rb");
    int rsize = 0;
    if (!f) {
        snprintf(err->msg, sizeof err->msg, "%.200s: cannot open it", path);
        return false;
    }
    if (!bin_read_header(f, path, sg, &rsize, err)) {
        fclose(f);
        return false;
    }
    size_t full = 8 + (size_t)RECORD_BLOCK_RECORDS * (size_t)rsize + 8;
    uint8_t *block = malloc(full), *check = malloc((size_t)rsize);
    uint32_t cap = 0, bindex = 0;
    uint64_t nrec = 0;
    bool ok = block && check;
    if (!ok) snprintf(err->msg, sizeof err->msg, "out of memory");
    while (ok) {
        size_t got = fread(block, 1, 8, f);
        if (got == 0) break;
        uint32_t n = got == 8 ? le_get32(block) : 0;
        size_t len = 8 + (size_t)n * (size_t)rsize;
        bool good = got == 8 && n >= 1 && n <= RECORD_BLOCK_RECORDS;
        if (good) good = fread(block + 8, 1, len, f) == len; /* the records and the sum */
        if (good)
            good =
                le_get32(block + 4) == bindex && XXH3_64bits(block, len) == le_get64(block + len);
        if (!good) {
            if (strict) {
                snprintf(err->msg, sizeof err->msg, "%.200s: block %u fails its checks", path,
                         bindex);
                ok = false;
                break;
            }
            fprintf(stderr, "data: %s: block %u fails its checks, skipped%s\n", path, bindex,
                    n >= 1 && n <= RECORD_BLOCK_RECORDS ? "" : " with the rest of the file");
            bindex++;
            if (n < 1 || n > RECORD_BLOCK_RECORDS) break;
            continue;
        }
        for (uint32_t k = 0; ok && k < n; k++, nrec++)
            ok = bin_take_record(sg, &cap, block + 8 + (size_t)k * (size_t)rsize, rsize, nrec, pos,
                                 check, path, err);
        bindex++;
    }
    free(block);
    free(check);
    fclose(f);
    for (uint32_t i = 0; ok && i < sg->si.games; i++) {
        Game *g = realloc(sg->games[i], game_size(sg->games[i]->nply));
        if (g) sg->games[i] = g;
    }
    sg->positions = nrec;
    if (!ok) shard_games_free(sg);
    return ok;
}
