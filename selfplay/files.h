/* files.h - files that every room of selfplay/ writes the same way: atomically (a temp file
 * beside the target, fsync, rename, fsync of the folder), so a file is either absent or
 * complete after a crash at any moment, and folders made with their missing parents. */
#ifndef CHESSVAR_SELFPLAY_FILES_H
#define CHESSVAR_SELFPLAY_FILES_H

#include <stdint.h>
#include <stdio.h>

#include "../engine/chessvar.h"

/* Little-endian loads and stores: every file of selfplay/ (records, chains, networks) is
 * the same bytes on every machine. */
static inline uint32_t le_get16(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8; }
static inline uint32_t le_get32(const uint8_t *p) { return le_get16(p) | le_get16(p + 2) << 16; }
static inline uint64_t le_get64(const uint8_t *p) {
    return le_get32(p) | (uint64_t)le_get32(p + 4) << 32;
}
static inline void le_put16(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}
static inline void le_put32(uint8_t *p, uint32_t v) {
    le_put16(p, v & 0xffff);
    le_put16(p + 2, v >> 16);
}
static inline void le_put64(uint8_t *p, uint64_t v) {
    le_put32(p, (uint32_t)v);
    le_put32(p + 4, (uint32_t)(v >> 32));
}

/* Opens the temp file beside path (path + ".tmp", its name in tmp) for an atomic write;
 * NULL with err naming it. */
FILE *file_open_tmp(const char *path, char *tmp, size_t n, CvError *err);

/* Flushes, syncs and closes the temp file, renames it to path and syncs the folder; false
 * with err (the temp file removed). */
bool file_commit(FILE *f, const char *tmp, const char *path, CvError *err);

/* Writes len bytes of text to path atomically. */
bool file_write_atomic(const char *path, const char *text, size_t len, CvError *err);

/* Makes folder dir and its missing parents (mode 0777 less the umask); false with err
 * naming the first that cannot be made. An existing folder is fine. */
bool file_make_dirs(const char *dir, CvError *err);

/* Makes the folder that file path is in, with its missing parents (nothing for a bare
 * file name); false with err. */
bool file_make_parent(const char *path, CvError *err);

#endif
