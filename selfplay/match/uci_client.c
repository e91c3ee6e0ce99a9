#define _POSIX_C_SOURCE 200809L /* fork, pipe, poll, kill, clock_gettime, nanosleep */
/* uci_client.c - another engine as a child process: pipes, deadlines, the UCI exchanges
 * of verify and matches, and the perftree calling convention. */
#include "uci_client.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Monotonic wall-clock seconds. */
static double uci_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Ignores SIGPIPE once for the process, so writing to a dead engine fails instead of killing. */
static void uci_ignore_sigpipe(void) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = SIG_IGN;
    sigaction(SIGPIPE, &sa, NULL);
}

bool uci_spawn(UciProc *p, const char *cmd, const char *const *args, CvError *err) {
    memset(p, 0, sizeof *p);
    p->to_fd = p->from_fd = -1;
    p->status = -1;
    snprintf(p->cmd, sizeof p->cmd, "%s", cmd);
    uci_ignore_sigpipe();
    int in[2], out[2];
    if (pipe(in) != 0) goto fail;
    if (pipe(out) != 0) {
        close(in[0]);
        close(in[1]);
        goto fail;
    }
    /* the parent's ends must not leak into other engines started later */
    fcntl(in[1], F_SETFD, FD_CLOEXEC);
    fcntl(out[0], F_SETFD, FD_CLOEXEC);
    char script[600];
    /* exec: the engine replaces the shell, so a kill reaches it and its exit status is its own */
    snprintf(script, sizeof script, "exec %s \"$@\"", cmd);
    const char *argv[16] = {"sh", "-c", script, "sh"};
    int argc = 4;
    for (int i = 0; args && args[i] && argc < 15; i++) argv[argc++] = args[i];
    argv[argc] = NULL;
    pid_t pid = fork();
    if (pid < 0) {
        close(in[0]);
        close(in[1]);
        close(out[0]);
        close(out[1]);
        goto fail;
    }
    if (pid == 0) {
        dup2(in[0], 0);
        dup2(out[1], 1);
        dup2(out[1], 2);
        close(in[0]);
        close(out[1]);
        signal(SIGPIPE, SIG_DFL);
        execv("/bin/sh", (char *const *)argv);
        _exit(127);
    }
    close(in[0]);
    close(out[1]);
    p->pid = pid;
    p->to_fd = in[1];
    p->from_fd = out[0];
    return true;
fail:
    snprintf(err->msg, sizeof err->msg, "cannot start '%s': %s", cmd, strerror(errno));
    return false;
}

bool uci_send(UciProc *p, const char *fmt, ...) {
    if (p->pid == 0 || p->to_fd < 0) return false;
    char line[UCI_SEND_MAX];
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(line, sizeof line - 1, fmt, ap);
    va_end(ap);
    if (k < 0) return false;
    if (k > (int)sizeof line - 2) k = (int)sizeof line - 2;
    line[k++] = '\n';
    for (int off = 0; off < k;) {
        ssize_t w = write(p->to_fd, line + off, (size_t)(k - off));
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return false;
        off += (int)w;
    }
    return true;
}

/* Remembers a line in the ring of the last lines read. */
static void uci_remember(UciProc *p, const char *line) {
    if (p->ntail == UCI_TAIL_LINES) {
        memmove(p->tail[0], p->tail[1], sizeof p->tail[0] * (UCI_TAIL_LINES - 1));
        p->ntail--;
    }
    snprintf(p->tail[p->ntail++], sizeof p->tail[0], "%s", line);
}

int uci_read_line(UciProc *p, char *line, size_t n, double timeout_s) {
    double deadline = uci_now() + timeout_s;
    for (;;) {
        char *nl = memchr(p->buf, '\n', p->len);
        if (nl || (p->eof && p->len > 0) || p->len == sizeof p->buf) {
            size_t k = nl ? (size_t)(nl - p->buf) : p->len;
            size_t c = k < n - 1 ? k : n - 1;
            memcpy(line, p->buf, c);
            line[c] = 0;
            if (c > 0 && line[c - 1] == '\r') line[c - 1] = 0;
            size_t used = nl ? k + 1 : k;
            memmove(p->buf, p->buf + used, p->len - used);
            p->len -= used;
            uci_remember(p, line);
            return 1;
        }
        if (p->eof || p->from_fd < 0) return -1;
        double left = deadline - uci_now();
        if (left <= 0) return 0;
        struct pollfd pfd = {p->from_fd, POLLIN, 0};
        int r = poll(&pfd, 1, (int)(left * 1000.0) + 1);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) return -1;
        if (r == 0) continue;
        ssize_t got = read(p->from_fd, p->buf + p->len, sizeof p->buf - p->len);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) p->eof = true;
        else p->len += (size_t)got;
    }
}

void uci_kill(UciProc *p) {
    if (p->pid <= 0) return; /* never started (a zeroed UciProc holds no descriptors) */
    if (p->to_fd >= 0) close(p->to_fd);
    if (p->from_fd >= 0) close(p->from_fd);
    p->to_fd = p->from_fd = -1;
    if (p->status == -1) {
        kill(p->pid, SIGKILL);
        int st;
        if (waitpid(p->pid, &st, 0) == p->pid) p->status = st;
    }
    p->pid = 0;
}

void uci_quit(UciProc *p, double timeout_s) {
    if (p->pid <= 0) return;
    uci_send(p, "quit");
    if (p->to_fd >= 0) close(p->to_fd);
    p->to_fd = -1;
    double deadline = uci_now() + timeout_s;
    for (;;) {
        int st;
        pid_t r = waitpid(p->pid, &st, WNOHANG);
        if (r == p->pid) p->status = st;
        if (r != 0 || uci_now() >= deadline) break;
        struct timespec ts = {0, 2000000};
        nanosleep(&ts, NULL);
    }
    uci_kill(p);
}

void uci_tail(const UciProc *p, char *buf, size_t n) {
    size_t k = 0;
    buf[0] = 0;
    for (int i = 0; i < p->ntail && k + 1 < n; i++)
        k += (size_t)snprintf(buf + k, n - k, "  | %s\n", p->tail[i]);
    if (p->ntail == 0) snprintf(buf, n, "  (the engine printed nothing)\n");
}

/* Fills err with what went wrong while waiting for `want`: timeout, exit or silence. */
static bool uci_wait_failed(UciProc *p, int r, const char *want, double timeout_s, CvError *err) {
    if (r == 0)
        snprintf(err->msg, sizeof err->msg, "'%.100s' did not answer '%s' within %.1f s", p->cmd,
                 want, timeout_s);
    else snprintf(err->msg, sizeof err->msg, "'%.100s' exited before answering '%s'", p->cmd, want);
    return false;
}

bool uci_start(UciProc *p, const char *cmd, double timeout_s, CvError *err) {
    if (!uci_spawn(p, cmd, NULL, err)) return false;
    if (!uci_send(p, "uci")) return uci_wait_failed(p, -1, "uci", timeout_s, err);
    double deadline = uci_now() + timeout_s;
    char line[UCI_LINE_MAX];
    for (;;) {
        int r = uci_read_line(p, line, sizeof line, deadline - uci_now());
        if (r <= 0) return uci_wait_failed(p, r, "uci", timeout_s, err);
        if (strncmp(line, "id name ", 8) == 0)
            snprintf(p->name, sizeof p->name, "%.120s", line + 8);
        if (strcmp(line, "uciok") == 0) return true;
    }
}

bool uci_ready(UciProc *p, double timeout_s, CvError *err) {
    if (!uci_send(p, "isready")) return uci_wait_failed(p, -1, "isready", timeout_s, err);
    double deadline = uci_now() + timeout_s;
    char line[UCI_LINE_MAX];
    for (;;) {
        int r = uci_read_line(p, line, sizeof line, deadline - uci_now());
        if (r <= 0) return uci_wait_failed(p, r, "isready", timeout_s, err);
        if (strcmp(line, "readyok") == 0) return true;
    }
}

bool uci_set_option(UciProc *p, const char *name, const char *value, double timeout_s,
                    CvError *err) {
    if (!uci_send(p, "setoption name %s value %s", name, value))
        return uci_wait_failed(p, -1, "setoption", timeout_s, err);
    if (!uci_send(p, "isready")) return uci_wait_failed(p, -1, "isready", timeout_s, err);
    double deadline = uci_now() + timeout_s;
    char line[UCI_LINE_MAX];
    bool refused = false;
    for (;;) {
        int r = uci_read_line(p, line, sizeof line, deadline - uci_now());
        if (r <= 0) return uci_wait_failed(p, r, "isready", timeout_s, err);
        if (strcmp(line, "readyok") == 0) break;
        /* Stockfish: "No such option: X"; chessvar: "info string error: ..." */
        if (strncmp(line, "No such option", 14) == 0 || strstr(line, "error")) {
            snprintf(err->msg, sizeof err->msg, "'%.60s' refused option %.40s=%.40s: %.80s", p->cmd,
                     name, value, line);
            refused = true;
        }
    }
    return !refused;
}

bool uci_parse_divide_line(const char *line, DivideEntry *e) {
    const char *sp = line;
    while (*sp && *sp != ' ' && *sp != ':') sp++;
    size_t k = (size_t)(sp - line);
    if (k == 0 || k >= sizeof e->move || !*sp) return false;
    const char *q = sp;
    if (*q == ':') q++;
    if (*q != ' ') return false;
    while (*q == ' ') q++;
    if (!isdigit((unsigned char)*q)) return false;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(q, &end, 10);
    while (*end == ' ') end++;
    if (*end || errno) return false;
    /* "Nodes searched: N" and "info ..." lines are not moves */
    if (strncmp(line, "Nodes", 5) == 0 || strncmp(line, "info", 4) == 0) return false;
    memcpy(e->move, line, k);
    e->move[k] = 0;
    e->count = v;
    return true;
}

bool uci_perft_divide(UciProc *p, const char *fen, const char *moves, int depth, double timeout_s,
                      Divide *out, CvError *err) {
    out->n = 0;
    out->total = 0;
    if (!uci_send(p, "position fen %s%s%s", fen, moves && *moves ? " moves " : "",
                  moves ? moves : "") ||
        !uci_send(p, "go perft %d", depth))
        return uci_wait_failed(p, -1, "go perft", timeout_s, err);
    double deadline = uci_now() + timeout_s;
    char line[UCI_LINE_MAX];
    bool bad = false;
    for (;;) {
        int r = uci_read_line(p, line, sizeof line, deadline - uci_now());
        if (r <= 0) return uci_wait_failed(p, r, "go perft", timeout_s, err);
        if (strncmp(line, "Nodes searched:", 15) == 0) {
            out->total = strtoull(line + 15, NULL, 10);
            return !bad;
        }
        if (strncmp(line, "info string error", 17) == 0 && !bad) { /* e.g. chessvar uci */
            snprintf(err->msg, sizeof err->msg, "'%.60s' refused the position: %.150s", p->cmd,
                     line);
            bad = true;
        }
        if (out->n < MAX_MOVES && uci_parse_divide_line(line, &out->e[out->n])) out->n++;
    }
}

bool perftree_divide(const char *cmd, const char *fen, const char *moves, int depth,
                     double timeout_s, Divide *out, char *tail, size_t tail_n, CvError *err) {
    char d[16];
    snprintf(d, sizeof d, "%d", depth);
    const char *args[] = {d, fen, moves ? moves : "", NULL};
    UciProc *p = malloc(sizeof *p);
    if (!p) return false;
    out->n = 0;
    out->total = 0;
    bool ok = uci_spawn(p, cmd, args, err);
    if (ok) {
        close(p->to_fd);
        p->to_fd = -1;
    }
    double deadline = uci_now() + timeout_s;
    char line[UCI_LINE_MAX];
    bool blank = false, have_total = false;
    while (ok) {
        int r = uci_read_line(p, line, sizeof line, deadline - uci_now());
        if (r < 0) break;
        if (r == 0) {
            ok = uci_wait_failed(p, 0, "its divide", timeout_s, err);
            break;
        }
        if (!line[0]) blank = true;
        else if (blank && !have_total && isdigit((unsigned char)line[0])) {
            out->total = strtoull(line, NULL, 10);
            have_total = true;
        } else if (!blank && out->n < MAX_MOVES && uci_parse_divide_line(line, &out->e[out->n]))
            out->n++;
    }
    if (tail) uci_tail(p, tail, tail_n);
    double left = deadline - uci_now();
    uci_quit(p, ok ? (left > 1.0 ? left : 1.0) : 0.0); /* output closed: let it exit */
    if (ok && p->status == -1) {
        snprintf(err->msg, sizeof err->msg, "'%s' did not exit after its output", cmd);
        ok = false;
    } else if (ok && (!WIFEXITED(p->status) || WEXITSTATUS(p->status) != 0)) {
        snprintf(err->msg, sizeof err->msg, "'%s %s \"%s\" \"%s\"' failed (exit status %d)", cmd, d,
                 fen, moves ? moves : "",
                 WIFEXITED(p->status) ? WEXITSTATUS(p->status) : 128 + WTERMSIG(p->status));
        ok = false;
    } else if (ok && !have_total) {
        snprintf(err->msg, sizeof err->msg,
                 "'%s' printed no total (perftree: divide lines, a blank line, the total)", cmd);
        ok = false;
    }
    free(p);
    return ok;
}

/* Reads depth and score from an info line into b (other lines leave it alone). */
static void uci_read_info(const char *line, UciBest *b) {
    if (strncmp(line, "info ", 5) != 0) return;
    const char *d = strstr(line, " depth "), *s = strstr(line, " score ");
    if (strstr(line, " multipv ") && !strstr(line, " multipv 1 ")) return; /* not the best line */
    if (d) b->depth = atoi(d + 7);
    if (s && strncmp(s + 7, "cp ", 3) == 0) {
        b->score = atoi(s + 10);
        b->scored = true;
        b->mate = false;
    } else if (s && strncmp(s + 7, "mate ", 5) == 0) {
        b->score = atoi(s + 12);
        b->scored = true;
        b->mate = true;
    }
}

bool uci_bestmove(UciProc *p, const char *fen, const char *moves, const char *goargs,
                  double timeout_s, UciBest *best, CvError *err) {
    memset(best, 0, sizeof *best);
    char *move = best->move;
    size_t n = sizeof best->move;
    if (!uci_send(p, "position fen %s%s%s", fen, moves && *moves ? " moves " : "",
                  moves ? moves : "") ||
        !uci_send(p, "go %s", goargs))
        return uci_wait_failed(p, -1, "go", timeout_s, err);
    double deadline = uci_now() + timeout_s;
    char line[UCI_LINE_MAX];
    for (;;) {
        int r = uci_read_line(p, line, sizeof line, deadline - uci_now());
        if (r <= 0) return uci_wait_failed(p, r, "go", timeout_s, err);
        uci_read_info(line, best);
        if (strncmp(line, "bestmove", 8) == 0 && (line[8] == ' ' || !line[8])) {
            const char *m = line + 8;
            while (*m == ' ') m++;
            size_t k = strcspn(m, " ");
            if (k == 0 || k >= n) {
                snprintf(err->msg, sizeof err->msg, "'%.100s' answered '%.100s'", p->cmd, line);
                return false;
            }
            memcpy(move, m, k);
            move[k] = 0;
            return true;
        }
    }
}

/* Writes a square as file letter and rank number (a1..j10). */
static int uci_sq(const Position *pos, int sq, char *buf) {
    return sprintf(buf, "%c%d", 'a' + sq % pos->width, sq / pos->width + 1);
}

int uci_move_str(const Position *pos, Move m, char *buf) {
    int k = 0;
    /* switches, and moves through a capture square (double knight leaps, commando walks),
     * which from-to alone does not name */
    if (MOVE_KIND(m) == MK_SWITCH || MOVE_MID(m) != NO_SQ) return move_to_str(pos, m, buf);
    if (MOVE_KIND(m) == MK_DROP) {
        buf[k++] = pos->var->pieces[MOVE_PROMO(m)].letter;
        buf[k++] = '@';
        k += uci_sq(pos, MOVE_TO(m), buf + k);
        return k;
    }
    k += uci_sq(pos, MOVE_FROM(m), buf + k);
    k += uci_sq(pos, MOVE_TO(m), buf + k);
    if (MOVE_PROMO(m))
        buf[k++] = (char)tolower((unsigned char)pos->var->pieces[MOVE_PROMO(m)].letter);
    buf[k] = 0;
    return k;
}

Move uci_map_move(Position *pos, const char *text) {
    Move list[MAX_MOVES];
    char buf[32];
    int n = pos_legal_moves(pos, list);
    for (int i = 0; i < n; i++) {
        move_to_str(pos, list[i], buf);
        if (strcmp(buf, text) == 0) return list[i];
    }
    for (int i = 0; i < n; i++) {
        uci_move_str(pos, list[i], buf);
        if (strcmp(buf, text) == 0) return list[i];
    }
    return MOVE_NONE;
}
