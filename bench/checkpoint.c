#define _DEFAULT_SOURCE /* flock, fsync, ftruncate, clock_gettime under strict C11 */
/* checkpoint.c - the perft checkpoint file: a header naming the run, then one record per
 * finished work unit, appended and synced in batches so a kill at any instant leaves a
 * readable file.
 *
 * Every record (integers little-endian):
 *
 *   0        4      5     6       8              8+L          16+L
 *   +--------+------+-----+-------+--------------+------------+
 *   | "CVPK" | type |  0  | L u16 | payload (L)  | XXH3-64    |   checksum of bytes 0..8+L
 *   +--------+------+-----+-------+--------------+------------+
 *
 *   type 'H', first and only once: the payload is text, one "name=value\n" per line:
 *     format=1 variant= fen= key= depth= fingerprint=0|1 split=MIN_UNITS/MAX_PLY units= units_hash=
 *   type 'U', one per finished unit:
 *   +-----------+-----------+-----------------+----------------------------------+
 *   | index u32 | nodes u64 | fingerprint u64 | path: its moves, space-separated |
 *   +-----------+-----------+-----------------+----------------------------------+
 *
 * A record that fails its checks and reaches the end of the file (or is followed only by
 * zero bytes, as a crash can leave them) is a torn last write and is dropped; anywhere
 * else it is corruption. */
#include "checkpoint.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <xxhash.h>

#define CKPT_FORMAT      1
#define CKPT_MAX_PAYLOAD 2048
#define CKPT_MAX_UNITS   (1 << 16)
#define CKPT_PATH_TEXT   (PERFT_UNIT_MAX_PLY * 17 + 1)

struct PerftCheckpoint {
    char path[1024];
    int fd;
    PerftUnit *units;
    PerftResult *results;
    bool *done;
    char (*text)[CKPT_PATH_TEXT]; /* each unit's path in move notation */
    int n, resumed;
    uint64_t resumed_nodes;
    unsigned char *buf; /* records not yet written */
    size_t len, cap;
    double last_flush, sync_seconds;
    size_t dropped;
    bool failed;
    char failure[512];
};

/* Monotonic seconds, for the flush interval. */
static double now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Formats "checkpoint 'PATH' ..." into err. */
static void fail(char *err, size_t errlen, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void fail(char *err, size_t errlen, const char *path, const char *fmt, ...) {
    int k = snprintf(err, errlen, "checkpoint '%s' ", path);
    va_list ap;
    va_start(ap, fmt);
    if (k >= 0 && (size_t)k < errlen) vsnprintf(err + k, errlen - (size_t)k, fmt, ap);
    va_end(ap);
}

/* Little-endian stores and loads. */
static void put_le(unsigned char *b, uint64_t v, int bytes) {
    for (int i = 0; i < bytes; i++) b[i] = (unsigned char)(v >> (8 * i));
}
static uint64_t get_le(const unsigned char *b, int bytes) {
    uint64_t v = 0;
    for (int i = 0; i < bytes; i++) v |= (uint64_t)b[i] << (8 * i);
    return v;
}

/* Appends one framed record (magic, type, length, payload, checksum) to the buffer. */
static void buf_record(PerftCheckpoint *ck, char type, const void *payload, size_t len) {
    size_t need = ck->len + len + 16;
    if (need > ck->cap) {
        ck->cap = need * 2;
        ck->buf = realloc(ck->buf, ck->cap);
    }
    unsigned char *r = ck->buf + ck->len;
    memcpy(r, "CVPK", 4);
    r[4] = (unsigned char)type;
    r[5] = 0;
    put_le(r + 6, len, 2);
    memcpy(r + 8, payload, len);
    put_le(r + 8 + len, XXH3_64bits(r, 8 + len), 8);
    ck->len = need;
}

/* Writes all of b, retrying short writes. */
static bool write_all(int fd, const unsigned char *b, size_t n) {
    while (n) {
        ssize_t w = write(fd, b, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return false;
        b += w;
        n -= (size_t)w;
    }
    return true;
}

/* Appends the buffered records and syncs them; on failure remembers why and stops. */
static void flush(PerftCheckpoint *ck) {
    ck->last_flush = now_seconds();
    if (!ck->len || ck->failed) return;
    if (!write_all(ck->fd, ck->buf, ck->len) || fsync(ck->fd) != 0) {
        ck->failed = true;
        fail(ck->failure, sizeof ck->failure, ck->path, "could not be written: %s",
             strerror(errno));
        fprintf(stderr, "chessvar perft: %s (counting goes on)\n", ck->failure);
    }
    ck->len = 0;
}

/* The run's header text: what the file is for and how the tree was split. */
static void header_text(char *out, size_t n, const Position *root, int depth, bool fp,
                        int min_units, int units, uint64_t units_hash) {
    char fen[512];
    pos_to_fen(root, fen, sizeof fen);
    snprintf(out, n,
             "format=%d\nvariant=%s\nfen=%s\nkey=%016llx\ndepth=%d\nfingerprint=%d\n"
             "split=%d/%d\nunits=%d\nunits_hash=%016llx\n",
             CKPT_FORMAT, root->var->name, fen, (unsigned long long)root->key, depth, fp ? 1 : 0,
             min_units, PERFT_UNIT_MAX_PLY, units, (unsigned long long)units_hash);
}

/* The value of `name` in header text (copied to out, at most n bytes); false if absent. */
static bool header_field(const char *text, const char *name, char *out, size_t n) {
    size_t k = strlen(name);
    for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
        if (strncmp(l, name, k) == 0 && l[k] == '=') {
            const char *v = l + k + 1, *e = strchr(v, '\n');
            size_t len = e ? (size_t)(e - v) : strlen(v);
            if (len >= n) len = n - 1;
            memcpy(out, v, len);
            out[len] = 0;
            return true;
        }
    }
    return false;
}

/* Splits the tree with min_units and writes each unit's path text; returns the unit count
 * and the XXH3 of all path texts (one line each). */
static int split_units(PerftCheckpoint *ck, const Position *root, int depth, int min_units,
                       uint64_t *hash) {
    int n = depth >= 1 ? perft_split(root, depth, min_units, ck->units, CKPT_MAX_UNITS) : 1;
    if (n < 1) n = 1, ck->units[0].len = 0;
    ck->text = malloc((size_t)n * sizeof *ck->text);
    Position *p = malloc(sizeof *p);
    XXH3_state_t *st = XXH3_createState();
    XXH3_64bits_reset(st);
    for (int i = 0; i < n; i++) {
        pos_copy(p, root);
        char *t = ck->text[i];
        t[0] = 0;
        for (int k = 0; k < ck->units[i].len; k++) {
            char ms[24];
            move_to_str(p, ck->units[i].path[k], ms);
            if (k) strcat(t, " ");
            strcat(t, ms);
            pos_make(p, ck->units[i].path[k]);
        }
        XXH3_64bits_update(st, t, strlen(t));
        XXH3_64bits_update(st, "\n", 1);
    }
    *hash = XXH3_64bits_digest(st);
    XXH3_freeState(st);
    free(p);
    return n;
}

/* Reads the whole file into a fresh buffer; NULL on a read error. */
static unsigned char *read_file(int fd, size_t *size) {
    struct stat sb;
    if (fstat(fd, &sb) != 0) return NULL;
    unsigned char *b = malloc((size_t)sb.st_size + 1);
    size_t got = 0;
    while (got < (size_t)sb.st_size) {
        ssize_t r = read(fd, b + got, (size_t)sb.st_size - got);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) break;
        got += (size_t)r;
    }
    *size = got;
    return b;
}

/* Checks the record at offset o: 1 valid (type and payload length set), 0 torn tail,
 * -1 corrupt (reason set). */
static int check_record(const unsigned char *b, size_t size, size_t o, char *type, size_t *len,
                        const char **reason) {
    bool zeros = true;
    for (size_t i = o; i < size && zeros; i++) zeros = b[i] == 0;
    if (zeros) return 0;
    size_t left = size - o;
    if (left < 4 ? memcmp(b + o, "CVPK", left) != 0 : memcmp(b + o, "CVPK", 4) != 0) {
        *reason = "no record marker";
        return -1;
    }
    if (left < 8) return 0;
    *type = (char)b[o + 4];
    *len = (size_t)get_le(b + o + 6, 2);
    if ((*type != 'H' && *type != 'U') || b[o + 5] || *len > CKPT_MAX_PAYLOAD) {
        *reason = "bad record frame";
        return -1;
    }
    if (left < *len + 16) return 0;
    if (XXH3_64bits(b + o, 8 + *len) != get_le(b + o + 8 + *len, 8)) {
        *reason = "checksum mismatch";
        for (size_t i = o + *len + 16; i < size; i++)
            if (b[i]) return -1;
        return 0; /* nothing but zeros after it: the last write, torn */
    }
    return 1;
}

/* Compares the file's header with this run; lists every difference in err. */
static bool header_matches(const char *have, const char *want, const char *path, char *err,
                           size_t errlen) {
    static const char *const names[] = {"variant", "fen", "depth", "fingerprint"};
    static const char *const what[] = {"variant", "position", "depth", "fingerprint"};
    char diff[1536] = "", a[600], b[600];
    for (int i = 0; i < 4; i++) {
        if (!header_field(have, names[i], a, sizeof a)) strcpy(a, "(none)");
        header_field(want, names[i], b, sizeof b);
        if (strcmp(a, b) == 0) continue;
        size_t k = strlen(diff);
        snprintf(diff + k, sizeof diff - k, "%s%s %s there, %s here", k ? "; " : "", what[i], a, b);
    }
    if (!diff[0]) {
        header_field(have, "key", a, sizeof a);
        header_field(want, "key", b, sizeof b);
        if (strcmp(a, b) != 0)
            snprintf(diff, sizeof diff, "position key %s there, %s here (another engine build?)", a,
                     b);
    }
    if (!diff[0]) return true;
    fail(err, errlen, path, "was made for another run: %s", diff);
    return false;
}

/* Frees a checkpoint and its arrays (the file stays as it is). */
static void ckpt_free(PerftCheckpoint *ck) {
    if (ck->fd >= 0) close(ck->fd);
    free(ck->units);
    free(ck->results);
    free(ck->done);
    free(ck->text);
    free(ck->buf);
    free(ck);
}

/* Syncs the directory holding path, so a newly created file survives a crash. */
static void sync_dir(const char *path) {
    char dir[1024];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash == dir) slash[1] = 0;
    else if (slash) *slash = 0;
    else strcpy(dir, ".");
    int fd = open(dir, O_RDONLY);
    if (fd >= 0) {
        fsync(fd);
        close(fd);
    }
}

/* Loads the unit records after the header; returns false (err set) on corruption, and
 * the offset where the valid records end in *end. */
static bool load_units(PerftCheckpoint *ck, const unsigned char *b, size_t size, size_t o,
                       size_t *end, char *err, size_t errlen) {
    for (;;) {
        *end = o;
        if (o >= size) return true;
        char type = 0;
        size_t len = 0;
        const char *reason = NULL;
        int st = check_record(b, size, o, &type, &len, &reason);
        if (st == 0) return true;
        if (st < 0) {
            fail(err, errlen, ck->path, "is corrupt: record at byte %zu: %s", o, reason);
            return false;
        }
        const unsigned char *p = b + o + 8;
        if (type != 'U' || len < 20) {
            fail(err, errlen, ck->path, "is corrupt: record at byte %zu is not a unit record", o);
            return false;
        }
        uint32_t i = (uint32_t)get_le(p, 4);
        PerftResult r = {get_le(p + 4, 8), get_le(p + 12, 8)};
        char text[CKPT_PATH_TEXT + 1];
        size_t tl = len - 20 < CKPT_PATH_TEXT ? len - 20 : CKPT_PATH_TEXT;
        memcpy(text, p + 20, tl);
        text[tl] = 0;
        if (i >= (uint32_t)ck->n || strcmp(text, ck->text[i]) != 0) {
            fail(err, errlen, ck->path,
                 "is corrupt: record at byte %zu names unit %u '%s', which is not in the split", o,
                 (unsigned)i, text);
            return false;
        }
        if (ck->done[i] &&
            (ck->results[i].nodes != r.nodes || ck->results[i].fingerprint != r.fingerprint)) {
            fail(err, errlen, ck->path,
                 "is corrupt: unit %u '%s' recorded twice with different counts", (unsigned)i,
                 text);
            return false;
        }
        if (!ck->done[i]) {
            ck->done[i] = true;
            ck->results[i] = r;
            ck->resumed++;
            ck->resumed_nodes += r.nodes;
        }
        o += len + 16;
    }
}

/* Parses and checks the file's contents (size > 0); splits the tree as its header says.
 * Returns 1 ok, 0 "treat as new" (only a torn header), -1 error. */
static int load(PerftCheckpoint *ck, const unsigned char *b, size_t size, const Position *root,
                int depth, bool fp, size_t *end, char *err, size_t errlen) {
    char type = 0;
    size_t len = 0;
    const char *reason = NULL;
    int st = check_record(b, size, 0, &type, &len, &reason);
    if (st == 0 && size <= CKPT_MAX_PAYLOAD + 16) return 0;
    if (st == 0) st = -1, reason = "no complete record";
    if (st < 0 && size >= 4 && memcmp(b, "CVPK", 4) == 0) {
        fail(err, errlen, ck->path, "is corrupt: its header record: %s", reason);
        return -1;
    }
    if (st < 0 || type != 'H') {
        fail(err, errlen, ck->path, "is not a perft checkpoint (%s at its start)",
             st < 0 ? reason : "no header record");
        return -1;
    }
    char have[CKPT_MAX_PAYLOAD + 1], want[CKPT_MAX_PAYLOAD + 1], v[64];
    memcpy(have, b + 8, len);
    have[len] = 0;
    if (!header_field(have, "format", v, sizeof v) || atoi(v) != CKPT_FORMAT) {
        fail(err, errlen, ck->path, "has format version %s; this build reads version %d",
             header_field(have, "format", v, sizeof v) ? v : "(none)", CKPT_FORMAT);
        return -1;
    }
    header_text(want, sizeof want, root, depth, fp, 0, 0, 0);
    if (!header_matches(have, want, ck->path, err, errlen)) return -1;
    int min_units = 0, max_ply = 0;
    if (!header_field(have, "split", v, sizeof v) ||
        sscanf(v, "%d/%d", &min_units, &max_ply) != 2 || min_units < 1 ||
        max_ply != PERFT_UNIT_MAX_PLY) {
        fail(err, errlen, ck->path, "has a split (%s) this build cannot make", v);
        return -1;
    }
    uint64_t hash;
    ck->n = split_units(ck, root, depth, min_units, &hash);
    header_text(want, sizeof want, root, depth, fp, min_units, ck->n, hash);
    if (strcmp(have, want) != 0) {
        char a[64] = "?";
        header_field(have, "units", a, sizeof a);
        fail(err, errlen, ck->path,
             "has another unit split (%s units there, %d here, or other paths): made by "
             "another version of the move generator?",
             a, ck->n);
        return -1;
    }
    ck->results = calloc((size_t)ck->n, sizeof *ck->results);
    ck->done = calloc((size_t)ck->n, sizeof *ck->done);
    return load_units(ck, b, size, len + 16, end, err, errlen) ? 1 : -1;
}

PerftCheckpoint *ckpt_open(const char *path, const Position *root, int depth, bool fingerprint,
                           char *err, size_t errlen) {
    PerftCheckpoint *ck = calloc(1, sizeof *ck);
    snprintf(ck->path, sizeof ck->path, "%s", path);
    ck->units = malloc(CKPT_MAX_UNITS * sizeof *ck->units);
    ck->fd = open(path, O_RDWR | O_CREAT | O_APPEND, 0644);
    if (ck->fd < 0) {
        fail(err, errlen, path, "cannot be opened: %s", strerror(errno));
        ckpt_free(ck);
        return NULL;
    }
    if (flock(ck->fd, LOCK_EX | LOCK_NB) != 0) {
        fail(err, errlen, path, "is in use by another run (locked)");
        ckpt_free(ck);
        return NULL;
    }
    size_t size = 0, end = 0;
    unsigned char *b = read_file(ck->fd, &size);
    if (!b) {
        fail(err, errlen, path, "cannot be read: %s", strerror(errno));
        ckpt_free(ck);
        return NULL;
    }
    int st = size ? load(ck, b, size, root, depth, fingerprint, &end, err, errlen) : 0;
    free(b);
    if (st < 0) {
        ckpt_free(ck);
        return NULL;
    }
    if (st == 0) {
        /* a new file (or one holding only a torn header): write the header */
        uint64_t hash;
        free(ck->text);
        ck->n = split_units(ck, root, depth, PERFT_CKPT_MIN_UNITS, &hash);
        ck->results = calloc((size_t)ck->n, sizeof *ck->results);
        ck->done = calloc((size_t)ck->n, sizeof *ck->done);
        char h[CKPT_MAX_PAYLOAD + 1];
        header_text(h, sizeof h, root, depth, fingerprint, PERFT_CKPT_MIN_UNITS, ck->n, hash);
        if ((size && ftruncate(ck->fd, 0) != 0)) {
            fail(err, errlen, path, "cannot be truncated: %s", strerror(errno));
            ckpt_free(ck);
            return NULL;
        }
        buf_record(ck, 'H', h, strlen(h));
        flush(ck);
        if (ck->failed) {
            snprintf(err, errlen, "%s", ck->failure);
            ckpt_free(ck);
            return NULL;
        }
        sync_dir(path);
    } else if (end < size) {
        ck->dropped = size - end;
        /* a torn last record: drop it so the next append starts on a record boundary */
        if (ftruncate(ck->fd, (off_t)end) != 0 || fsync(ck->fd) != 0) {
            fail(err, errlen, path, "cannot drop its torn last record: %s", strerror(errno));
            ckpt_free(ck);
            return NULL;
        }
    }
    ck->last_flush = now_seconds();
    ck->sync_seconds = PERFT_CKPT_SYNC_SECONDS;
    return ck;
}

void ckpt_set_sync(PerftCheckpoint *ck, double seconds) { ck->sync_seconds = seconds; }

size_t ckpt_dropped(const PerftCheckpoint *ck) { return ck->dropped; }

int ckpt_units(const PerftCheckpoint *ck, const PerftUnit **units, PerftResult **results,
               bool **done) {
    *units = ck->units;
    *results = ck->results;
    *done = ck->done;
    return ck->n;
}

int ckpt_resumed(const PerftCheckpoint *ck, uint64_t *nodes) {
    if (nodes) *nodes = ck->resumed_nodes;
    return ck->resumed;
}

void ckpt_unit_done(void *ctx, int index, PerftResult r) {
    PerftCheckpoint *ck = ctx;
    unsigned char p[20 + CKPT_PATH_TEXT];
    size_t tl = strlen(ck->text[index]);
    put_le(p, (uint64_t)index, 4);
    put_le(p + 4, r.nodes, 8);
    put_le(p + 12, r.fingerprint, 8);
    memcpy(p + 20, ck->text[index], tl);
    buf_record(ck, 'U', p, 20 + tl);
    ck->results[index] = r;
    ck->done[index] = true;
    if (now_seconds() - ck->last_flush >= ck->sync_seconds) flush(ck);
}

bool ckpt_close(PerftCheckpoint *ck, char *err, size_t errlen) {
    flush(ck);
    bool ok = !ck->failed;
    if (!ok) snprintf(err, errlen, "%s", ck->failure);
    ckpt_free(ck);
    return ok;
}
