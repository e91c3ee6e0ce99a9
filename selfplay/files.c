/* files.c - atomic file writes and folder creation shared by the rooms of selfplay/. */
#define _POSIX_C_SOURCE 200809L
#include "files.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Opens the temp file beside path for an atomic write. */
FILE *file_open_tmp(const char *path, char *tmp, size_t n, CvError *err) {
    snprintf(tmp, n, "%s.tmp", path);
    FILE *f = fopen(tmp, "wb");
    if (!f) snprintf(err->msg, sizeof err->msg, "cannot create %.200s: %s", tmp, strerror(errno));
    return f;
}

/* Flushes, syncs and closes the temp file, renames it to path and syncs the folder, so
 * path is either absent or complete after a crash at any moment. */
bool file_commit(FILE *f, const char *tmp, const char *path, CvError *err) {
    bool ok = fflush(f) == 0 && !ferror(f) && fsync(fileno(f)) == 0;
    ok = (fclose(f) == 0) && ok;
    if (ok) ok = rename(tmp, path) == 0;
    if (!ok) {
        snprintf(err->msg, sizeof err->msg, "cannot write %.200s: %s", path, strerror(errno));
        remove(tmp);
        return false;
    }
    char dir[1024];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash) *slash = 0;
    else snprintf(dir, sizeof dir, ".");
    int fd = open(dir, O_RDONLY);
    if (fd >= 0) {
        fsync(fd);
        close(fd);
    }
    return true;
}

/* Writes a small text file with the same atomic commit as the shards. */
bool file_write_atomic(const char *path, const char *text, size_t len, CvError *err) {
    char tmp[1100];
    FILE *f = file_open_tmp(path, tmp, sizeof tmp, err);
    if (!f) return false;
    fwrite(text, 1, len, f);
    return file_commit(f, tmp, path, err);
}

/* mkdir -p: each prefix of dir that ends at a slash, then dir itself. */
bool file_make_dirs(const char *dir, CvError *err) {
    char buf[1024];
    size_t n = strlen(dir);
    if (n == 0 || n >= sizeof buf) {
        snprintf(err->msg, sizeof err->msg, "bad folder name '%.200s'", dir);
        return false;
    }
    memcpy(buf, dir, n + 1);
    for (size_t i = 1; i <= n; i++) {
        if (buf[i] != '/' && buf[i] != 0) continue;
        char c = buf[i];
        buf[i] = 0;
        struct stat st;
        if (stat(buf, &st) != 0) {
            if (mkdir(buf, 0777) != 0 && errno != EEXIST) {
                snprintf(err->msg, sizeof err->msg, "cannot create %.200s: %s", buf,
                         strerror(errno));
                return false;
            }
        } else if (!S_ISDIR(st.st_mode)) {
            snprintf(err->msg, sizeof err->msg, "cannot create %.200s: %s is not a folder", dir,
                     buf);
            return false;
        }
        buf[i] = c;
    }
    return true;
}

/* The folder part of path, made as file_make_dirs does. */
bool file_make_parent(const char *path, CvError *err) {
    char dir[1024];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (!slash || slash == dir) return true;
    *slash = 0;
    return file_make_dirs(dir, err);
}
