/* report.h - the rule-consistency report: per variant, how many positions were checked,
 * how often each invariant held, every failure (FEN, move, both move lists diffed) and the
 * special-rule events seen along the games (switches, drops, freezes, blasts, ...).
 *
 * Used by `chessvar check` and by `chessvar selfplay`. A front end keeps one Report per
 * thread, calls report_note_move() after every move it plays (and check_position() of
 * check.h on the positions it wants verified), merges the thread reports with
 * report_merge() and writes JSON and Markdown. Only the public engine header is used. */
#ifndef CHESSVAR_REPORT_H
#define CHESSVAR_REPORT_H

#include <stdio.h>

#include "../../engine/chessvar.h"

/* The invariants, in report order. */
typedef enum Invariant {
    INV_CONSISTENT = 0, /* mailbox, bitboards, counts and key agree (pos_is_consistent) */
    INV_KEY,            /* incremental key == key recomputed from scratch */
    INV_UNMAKE,         /* make + unmake restores the position byte for byte, key included */
    INV_MOVEGEN,        /* fast generator's move set == reference generator's */
    INV_COUNT,          /* bulk count (count_legal) == number of legal moves */
    INV_NOTATION,       /* move_to_str -> move_from_str gives the same move back */
    INV_FEN,            /* FEN -> position -> FEN is the identity, key included */
    INV_CHECK,          /* in_check == royal_attacked(side to move); the mover's royals are safe */
    INV_CAPTURE,        /* a royal some enemy move could capture is reported attacked */
    INV_FLIP,           /* colour-flipped position has the same number of legal moves */
    INV_VARIANT,        /* variant rules: royals, Protectors, pool accounting, switches */
    INV_N
} Invariant;

/* Special-rule events counted along the games. */
typedef enum ReportEvent {
    EV_MOVES = 0,       /* moves played */
    EV_CAPTURES,        /* moves that removed at least one enemy piece */
    EV_SWITCHES,        /* Switching: switch moves */
    EV_SWITCH_PROMOS,   /* switches that promoted a pawn */
    EV_DROPS,           /* drops from the hand */
    EV_EP,              /* en-passant captures */
    EV_CASTLINGS,       /* castlings (per monarch in castle_by) */
    EV_PROMOTIONS,      /* promotions (per type in promo_to) */
    EV_FREEZES,         /* enemy pieces newly frozen by a move (next to a freezer) */
    EV_NEUTRALISATIONS, /* enemy pieces newly neutralised by a move (next to a pacifier) */
    EV_IMMUNE_BLOCKS,   /* immune pieces newly standing next to an enemy freezer/pacifier */
    EV_BLASTS,          /* blasting moves that removed at least one piece */
    EV_BLAST_VICTIMS,   /* pieces those blasts removed */
    EV_DOUBLE_CAPTURES, /* moves capturing two pieces on different squares (not blasts) */
    EV_N
} ReportEvent;

#define REPORT_MAX_FAILURES 32 /* failures kept in full per variant; all are counted */
#define REPORT_MAX_VARIANTS 8

/* One invariant failure, with what is needed to reproduce it. */
typedef struct ReportFailure {
    int invariant;       /* Invariant */
    char fen[256];       /* the position where it failed */
    char move[24];       /* the move involved, "" if none */
    char detail[256];    /* one line: what differed */
    char only_fast[512]; /* moves only the fast generator gives (space separated) */
    char only_ref[512];  /* moves only the reference generator gives */
} ReportFailure;

/* Everything counted for one variant. */
typedef struct VariantReport {
    const Variant *var;
    uint64_t games;
    uint64_t positions; /* positions checked */
    uint64_t pass[INV_N];
    uint64_t fail[INV_N];
    uint64_t events[EV_N];
    uint64_t promo_to[MAX_PT];  /* promotions per piece type promoted to */
    uint64_t drop_of[MAX_PT];   /* drops per piece type */
    uint64_t castle_by[MAX_PT]; /* castlings per monarch type */
    int nfail_kept;
    ReportFailure failures[REPORT_MAX_FAILURES];
} VariantReport;

/* A report over any number of variants. */
typedef struct Report {
    int nvar;
    VariantReport v[REPORT_MAX_VARIANTS];
} Report;

/* Name of an invariant, e.g. "unmake_restores". */
const char *report_invariant_name(int inv);

/* Empties r. */
void report_init(Report *r);

/* The section of r for variant v, added on first use; NULL if r is full. */
VariantReport *report_variant(Report *r, const Variant *v);

/* Counts one pass or failure of an invariant. */
void report_pass(VariantReport *vr, int inv);

/* Counts a failure and keeps its details (while fewer than REPORT_MAX_FAILURES are kept);
 * fast/ref (may be NULL) are the two move lists at pos, stored as their difference. */
void report_fail(VariantReport *vr, int inv, Position *pos, Move m, const char *detail,
                 const Move *fast, int nfast, const Move *ref, int nref);

/* Counts the special-rule events of the move just made: pos is the position after
 * pos_make(), so the move and its undo record are on top of pos's stack. */
void report_note_move(VariantReport *vr, const Position *pos);

/* Adds src's counts and failures to dst (for per-thread reports). */
void report_merge(Report *dst, const Report *src);

/* Total failures over all variants and invariants. */
uint64_t report_failures(const Report *r);

/* Writes the report as JSON; `meta` (may be NULL) is a JSON object's members written
 * first, e.g. "\"seed\": 1". */
void report_write_json(const Report *r, FILE *f, const char *meta);

/* Writes the report as a Markdown summary under the given title. */
void report_write_markdown(const Report *r, FILE *f, const char *title, const char *intro);

#endif
