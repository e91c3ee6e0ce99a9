/* selfplay_util.h - helpers of the tests that run `chessvar selfplay` as a program: fresh
 * folders, running the binary, reading and comparing the files it writes. */
#ifndef CHESSVAR_TEST_SELFPLAY_UTIL_H
#define CHESSVAR_TEST_SELFPLAY_UTIL_H

#include <criterion/criterion.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* A fresh empty folder in the build's test folder. */
static inline void su_temp_dir(char *buf, size_t n) {
    snprintf(buf, n, "%s/chessvar-data-XXXXXX", CHESSVAR_TEST_WORK);
    cr_assert_not_null(mkdtemp(buf), "mkdtemp %s", buf);
}

/* Starts argv (argv[0] a path) with stdout discarded and stderr to err_path (NULL:
 * discarded); returns the pid. */
static inline pid_t su_spawn(char *const argv[], const char *err_path) {
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {
        int fd = open("/dev/null", O_WRONLY);
        int fe = err_path ? open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644) : fd;
        dup2(fd, 1);
        dup2(fe < 0 ? fd : fe, 2);
        execv(argv[0], argv);
        _exit(127);
    }
    return pid;
}

/* Runs argv to the end (stderr to err_path, or discarded); returns its exit status (-1
 * if it died of a signal). */
static inline int su_run_err(char *const argv[], const char *err_path) {
    int st;
    pid_t pid = su_spawn(argv, err_path);
    waitpid(pid, &st, 0);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static inline int su_run(char *const argv[]) { return su_run_err(argv, NULL); }

/* Reads a whole file (NUL-terminated); NULL if it cannot be opened. */
static inline char *su_slurp(const char *path, long *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    *len = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = malloc((size_t)*len + 1);
    *len = (long)fread(b, 1, (size_t)*len, f);
    b[*len] = 0;
    fclose(f);
    return b;
}

/* Asserts that folders a and b hold the same file names with the same bytes; returns
 * how many files were compared. */
static inline int su_same_dirs(const char *a, const char *b) {
    int count[2] = {0, 0};
    const char *dirs[2] = {a, b};
    for (int side = 0; side < 2; side++) {
        DIR *d = opendir(dirs[side]);
        cr_assert_not_null(d, "%s", dirs[side]);
        struct dirent *e;
        while ((e = readdir(d))) {
            if (e->d_name[0] == '.') continue;
            count[side]++;
            if (side == 1) continue;
            char pa[2048], pb[2048];
            snprintf(pa, sizeof pa, "%s/%s", a, e->d_name);
            snprintf(pb, sizeof pb, "%s/%s", b, e->d_name);
            long la = 0, lb = 0;
            char *ca = su_slurp(pa, &la), *cb = su_slurp(pb, &lb);
            cr_assert_not_null(cb, "%s exists but %s does not", pa, pb);
            cr_expect(la == lb && memcmp(ca, cb, (size_t)la) == 0, "%s and %s differ", pa, pb);
            free(ca);
            free(cb);
        }
        closedir(d);
    }
    cr_expect_eq(count[0], count[1], "%s has %d files, %s has %d", a, count[0], b, count[1]);
    return count[0];
}

/* Removes a folder of plain files made by su_temp_dir. */
static inline void su_remove_dir(const char *path) {
    DIR *d = opendir(path);
    if (!d) return;
    struct dirent *e;
    char p[2048];
    while ((e = readdir(d))) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
        snprintf(p, sizeof p, "%s/%s", path, e->d_name);
        unlink(p);
    }
    closedir(d);
    rmdir(path);
}

/* Path of mpirun on PATH, or NULL. */
static inline const char *su_find_mpirun(char *buf, size_t n) {
    const char *path = getenv("PATH");
    if (!path) return NULL;
    char dirs[4096];
    snprintf(dirs, sizeof dirs, "%s", path);
    char *save = NULL;
    for (char *d = strtok_r(dirs, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
        snprintf(buf, n, "%s/mpirun", d);
        if (access(buf, X_OK) == 0) return buf;
    }
    return NULL;
}

/* Runs selfplay with a bad --book (the file at book): it must exit 2 with one line on
 * stderr (kept at err_path) that holds expect, and make no run folder at out. */
static inline void su_expect_bad_book(const char *book, const char *err_path, const char *out,
                                      const char *expect, size_t i) {
    char *const argv[] = {CHESSVAR_BINARY, "selfplay",   "--variant", "chess",     "--games", "2",
                          "--book",        (char *)book, "--out",     (char *)out, NULL};
    cr_expect_eq(su_run_err(argv, err_path), 2, "case %zu", i);
    long len = 0;
    char *msg = su_slurp(err_path, &len);
    cr_expect_not_null(strstr(msg, expect), "case %zu: %s", i, msg);
    cr_expect(len > 0 && strchr(msg, '\n') == msg + len - 1, "case %zu: not one line: %s", i, msg);
    free(msg);
    cr_expect_neq(access(out, F_OK), 0, "case %zu: the run started", i);
}

#define SU_SP(...) ((char *const[]){CHESSVAR_BINARY, "selfplay", __VA_ARGS__, NULL})

#endif
