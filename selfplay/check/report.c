/* report.c - the rule-consistency report model: invariant counters, kept failures,
 * special-rule event counts, and the JSON and Markdown writers. */
#include "report.h"

#include <stdlib.h>
#include <string.h>

static const char *const invariant_names[INV_N] = {
    "consistent",
    "key_incremental",
    "unmake_restores",
    "fast_equals_reference",
    "bulk_count",
    "notation_round_trip",
    "fen_round_trip",
    "check_agrees",
    "royal_capture_is_check",
    "colour_flip_count",
    "variant_rules",
};

static const char *const invariant_texts[INV_N] = {
    "mailbox, bitboards, counts and key agree",
    "incremental key equals the recomputed key",
    "make + unmake restores the position byte for byte",
    "fast generator's move set equals the reference generator's",
    "bulk count equals the number of legal moves",
    "every move's text parses back to the same move",
    "FEN -> position -> FEN is the identity (key too)",
    "in_check equals royal_attacked; the side not to move is never in check",
    "positions where an enemy move could capture a royal (royals replaced by plain pieces in a "
    "copy): royal_attacked agrees",
    "the colour-flipped position has as many legal moves",
    "variant rules (royals kept, Protectors kept, pool balance, switches keep occupancy)",
};

static const char *const event_names[EV_N] = {
    "moves",         "captures",  "switches",      "switch_promotions", "drops",
    "en_passant",    "castlings", "promotions",    "freezes",           "neutralisations",
    "immune_blocks", "blasts",    "blast_victims", "double_captures",
};

/* Name of an invariant, as used in the JSON keys. */
const char *report_invariant_name(int inv) {
    return inv >= 0 && inv < INV_N ? invariant_names[inv] : "?";
}

/* Empties a report. */
void report_init(Report *r) { memset(r, 0, sizeof *r); }

/* The section of a variant, created on first use so variants appear in play order. */
VariantReport *report_variant(Report *r, const Variant *v) {
    for (int i = 0; i < r->nvar; i++)
        if (r->v[i].var == v) return &r->v[i];
    if (r->nvar == REPORT_MAX_VARIANTS) return NULL;
    VariantReport *vr = &r->v[r->nvar++];
    memset(vr, 0, sizeof *vr);
    vr->var = v;
    return vr;
}

/* Counts one pass of an invariant. */
void report_pass(VariantReport *vr, int inv) { vr->pass[inv]++; }

/* Appends the text of move m to buf (space separated), keeping it terminated. */
static void report_append_move(const Position *pos, Move m, char *buf, size_t n) {
    char ms[32];
    move_to_str(pos, m, ms);
    size_t len = strlen(buf);
    if (len + strlen(ms) + 2 >= n) return;
    snprintf(buf + len, n - len, "%s%s", len ? " " : "", ms);
}

/* Writes the moves of a not in b, and of b not in a, as text (both lists are sorted copies). */
static void report_diff_lists(const Position *pos, const Move *a, int na, const Move *b, int nb,
                              ReportFailure *f) {
    Move *sa = malloc(sizeof(Move) * (size_t)(na + 1)),
         *sb = malloc(sizeof(Move) * (size_t)(nb + 1));
    if (!sa || !sb) {
        free(sa);
        free(sb);
        return;
    }
    memcpy(sa, a, sizeof(Move) * (size_t)na);
    memcpy(sb, b, sizeof(Move) * (size_t)nb);
    qsort(sa, (size_t)na, sizeof(Move), move_cmp);
    qsort(sb, (size_t)nb, sizeof(Move), move_cmp);
    int i = 0, j = 0;
    while (i < na || j < nb) {
        if (j == nb || (i < na && sa[i] < sb[j]))
            report_append_move(pos, sa[i++], f->only_fast, sizeof f->only_fast);
        else if (i == na || sb[j] < sa[i])
            report_append_move(pos, sb[j++], f->only_ref, sizeof f->only_ref);
        else i++, j++;
    }
    free(sa);
    free(sb);
}

/* Counts a failure and keeps its FEN, move and move-list difference for the report. */
void report_fail(VariantReport *vr, int inv, Position *pos, Move m, const char *detail,
                 const Move *fast, int nfast, const Move *ref, int nref) {
    vr->fail[inv]++;
    if (vr->nfail_kept == REPORT_MAX_FAILURES) return;
    ReportFailure *f = &vr->failures[vr->nfail_kept++];
    memset(f, 0, sizeof *f);
    f->invariant = inv;
    pos_to_fen(pos, f->fen, sizeof f->fen);
    if (m != MOVE_NONE) move_to_str(pos, m, f->move);
    snprintf(f->detail, sizeof f->detail, "%s", detail ? detail : "");
    if (fast && ref) report_diff_lists(pos, fast, nfast, ref, nref, f);
}

/* ---------------------------------------------------------------- special-rule events */

/* Piece status bits, from the rules of freezers, pacifiers and immune zones. */
enum { ST_IMMUNE = 1, ST_FROZEN = 2, ST_NEUTRAL = 4, ST_BLOCKED = 8 };

/* Whether the variant has any piece with one of the flags. */
static bool report_has_flag(const Variant *v, uint32_t flags) {
    for (int t = 1; t <= v->npt; t++)
        if (v->pieces[t].flags & flags) return true;
    return false;
}

/* Status of the piece on sq: immune on its embassy (the corners of its owner's last rank),
 * otherwise frozen / neutralised next to an enemy freezer / pacifier; ST_BLOCKED marks an
 * immune piece next to one (immunity prevents the effect). */
static int report_status(const Position *p, int sq) {
    int pc = p->board[sq], c = PC_COLOR(pc), f = sq % p->width, r = sq / p->width;
    int last = c == WHITE ? p->height - 1 : 0;
    bool immune = (p->var->pieces[PC_TYPE(pc)].flags & PF_IMMUNE_ZONE) && r == last &&
                  (f == 0 || f == p->width - 1);
    int near = 0;
    for (int dr = -1; dr <= 1; dr++)
        for (int df = -1; df <= 1; df++) {
            int nf = f + df, nr = r + dr;
            if ((!df && !dr) || nf < 0 || nf >= p->width || nr < 0 || nr >= p->height) continue;
            int q = p->board[nr * p->width + nf];
            if (!q || PC_COLOR(q) == c) continue;
            uint32_t fl = p->var->pieces[PC_TYPE(q)].flags;
            if (fl & PF_FREEZES) near |= ST_FROZEN;
            if (fl & PF_PACIFIES) near |= ST_NEUTRAL;
        }
    if (immune) return ST_IMMUNE | (near ? ST_BLOCKED : 0);
    return near;
}

/* Counts pieces whose status gained bit `bit` from before to after (a piece that moved
 * or appeared counts as new). */
static uint64_t report_new_status(const Position *before, const Position *after, int bit) {
    uint64_t n = 0;
    for (int s = 0; s < after->nsq; s++) {
        if (!after->board[s] || !(report_status(after, s) & bit)) continue;
        if (before->board[s] == after->board[s] && (report_status(before, s) & bit)) continue;
        n++;
    }
    return n;
}

/* Counts the special-rule events of the move on top of pos's undo stack. */
void report_note_move(VariantReport *vr, const Position *pos) {
    if (pos->ply <= 0) return;
    const Undo *u = &pos->stack[pos->ply - 1];
    Move m = u->move;
    int kind = MOVE_KIND(m), promo = MOVE_PROMO(m);
    vr->events[EV_MOVES]++;
    int removed = (u->captured ? 1 : 0) + u->nvict;
    if (removed) vr->events[EV_CAPTURES]++;
    if (kind == MK_SWITCH) {
        vr->events[EV_SWITCHES]++;
        if (promo) vr->events[EV_SWITCH_PROMOS]++;
    }
    if (kind == MK_DROP) {
        vr->events[EV_DROPS]++;
        vr->drop_of[promo & (MAX_PT - 1)]++;
    } else if (promo) {
        vr->events[EV_PROMOTIONS]++;
        vr->promo_to[promo & (MAX_PT - 1)]++;
    }
    if (kind == MK_EP) vr->events[EV_EP]++;
    if (kind == MK_CASTLE) {
        vr->events[EV_CASTLINGS]++;
        vr->castle_by[PC_TYPE(pos->board[MOVE_TO(m)])]++;
    }
    bool blaster =
        u->moved && (pos->var->pieces[PC_TYPE(u->moved)].flags & PF_BLAST) && kind != MK_DROP;
    if (blaster && removed) {
        vr->events[EV_BLASTS]++;
        vr->events[EV_BLAST_VICTIMS] += (uint64_t)removed;
    } else if (removed >= 2) {
        vr->events[EV_DOUBLE_CAPTURES]++;
    }
    if (!report_has_flag(pos->var, PF_FREEZES | PF_PACIFIES)) return;
    Position *before = malloc(sizeof *before);
    if (!before) return;
    pos_copy(before, pos);
    pos_unmake(before);
    vr->events[EV_FREEZES] += report_new_status(before, pos, ST_FROZEN);
    vr->events[EV_NEUTRALISATIONS] += report_new_status(before, pos, ST_NEUTRAL);
    vr->events[EV_IMMUNE_BLOCKS] += report_new_status(before, pos, ST_BLOCKED);
    free(before);
}

/* ---------------------------------------------------------------- merging and totals */

/* Adds one report into another (per-thread reports into the run's). */
void report_merge(Report *dst, const Report *src) {
    for (int i = 0; i < src->nvar; i++) {
        const VariantReport *s = &src->v[i];
        VariantReport *d = report_variant(dst, s->var);
        if (!d) continue;
        d->games += s->games;
        d->positions += s->positions;
        for (int k = 0; k < INV_N; k++) {
            d->pass[k] += s->pass[k];
            d->fail[k] += s->fail[k];
        }
        for (int k = 0; k < EV_N; k++) d->events[k] += s->events[k];
        for (int t = 0; t < MAX_PT; t++) {
            d->promo_to[t] += s->promo_to[t];
            d->drop_of[t] += s->drop_of[t];
            d->castle_by[t] += s->castle_by[t];
        }
        for (int k = 0; k < s->nfail_kept && d->nfail_kept < REPORT_MAX_FAILURES; k++)
            d->failures[d->nfail_kept++] = s->failures[k];
    }
}

/* Failures over all variants: the exit status of `check` depends on it. */
uint64_t report_failures(const Report *r) {
    uint64_t n = 0;
    for (int i = 0; i < r->nvar; i++)
        for (int k = 0; k < INV_N; k++) n += r->v[i].fail[k];
    return n;
}

/* ---------------------------------------------------------------- writers */

/* Writes s as a JSON string literal (with quotes). */
static void report_json_str(FILE *f, const char *s) {
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\') fprintf(f, "\\%c", *s);
        else if ((unsigned char)*s < 0x20) fprintf(f, "\\u%04x", *s);
        else fputc(*s, f);
    }
    fputc('"', f);
}

/* Writes {"Q": n, ...} for the non-zero per-type counts. */
static void report_json_types(FILE *f, const Variant *v, const uint64_t *per_type) {
    fputc('{', f);
    bool first = true;
    for (int t = 1; t <= v->npt; t++) {
        if (!per_type[t]) continue;
        fprintf(f, "%s\"%c\": %llu", first ? "" : ", ", v->pieces[t].letter,
                (unsigned long long)per_type[t]);
        first = false;
    }
    fputc('}', f);
}

/* Writes the whole report as one JSON object, for scripts. */
void report_write_json(const Report *r, FILE *f, const char *meta) {
    fprintf(f, "{\n");
    if (meta && *meta) fprintf(f, "  %s,\n", meta);
    fprintf(f, "  \"total_failures\": %llu,\n  \"variants\": [",
            (unsigned long long)report_failures(r));
    for (int i = 0; i < r->nvar; i++) {
        const VariantReport *vr = &r->v[i];
        fprintf(f, "%s\n    {\n      \"variant\": ", i ? "," : "");
        report_json_str(f, vr->var->name);
        fprintf(f,
                ",\n      \"games\": %llu,\n      \"positions_checked\": %llu,\n      "
                "\"invariants\": {",
                (unsigned long long)vr->games, (unsigned long long)vr->positions);
        for (int k = 0; k < INV_N; k++)
            fprintf(f, "%s\n        \"%s\": {\"pass\": %llu, \"fail\": %llu}", k ? "," : "",
                    invariant_names[k], (unsigned long long)vr->pass[k],
                    (unsigned long long)vr->fail[k]);
        fprintf(f, "\n      },\n      \"events\": {");
        for (int k = 0; k < EV_N; k++)
            fprintf(f, "%s\"%s\": %llu", k ? ", " : "", event_names[k],
                    (unsigned long long)vr->events[k]);
        fprintf(f, "},\n      \"promotions_by_type\": ");
        report_json_types(f, vr->var, vr->promo_to);
        fprintf(f, ",\n      \"drops_by_type\": ");
        report_json_types(f, vr->var, vr->drop_of);
        fprintf(f, ",\n      \"castlings_by_monarch\": ");
        report_json_types(f, vr->var, vr->castle_by);
        fprintf(f, ",\n      \"failures\": [");
        for (int k = 0; k < vr->nfail_kept; k++) {
            const ReportFailure *fl = &vr->failures[k];
            fprintf(f, "%s\n        {\"invariant\": \"%s\", \"fen\": ", k ? "," : "",
                    invariant_names[fl->invariant]);
            report_json_str(f, fl->fen);
            fprintf(f, ", \"move\": ");
            report_json_str(f, fl->move);
            fprintf(f, ", \"detail\": ");
            report_json_str(f, fl->detail);
            fprintf(f, ", \"only_fast\": ");
            report_json_str(f, fl->only_fast);
            fprintf(f, ", \"only_reference\": ");
            report_json_str(f, fl->only_ref);
            fputc('}', f);
        }
        fprintf(f, "%s]\n    }", vr->nfail_kept ? "\n      " : "");
    }
    fprintf(f, "\n  ]\n}\n");
}

/* Writes "Q 3, R 1" for the non-zero per-type counts, or "-". */
static void report_md_types(FILE *f, const Variant *v, const uint64_t *per_type) {
    bool any = false;
    for (int t = 1; t <= v->npt; t++) {
        if (!per_type[t]) continue;
        fprintf(f, "%s%c %llu", any ? ", " : "", v->pieces[t].letter,
                (unsigned long long)per_type[t]);
        any = true;
    }
    if (!any) fputc('-', f);
}

/* Writes the report as Markdown tables, for people. */
void report_write_markdown(const Report *r, FILE *f, const char *title, const char *intro) {
    fprintf(f, "# %s\n\n", title);
    if (intro && *intro) fprintf(f, "%s\n\n", intro);
    fprintf(f, "Total failures: **%llu**.\n\n", (unsigned long long)report_failures(r));
    fprintf(f, "| variant | games | positions checked | failures |\n|---|---:|---:|---:|\n");
    for (int i = 0; i < r->nvar; i++) {
        uint64_t nf = 0;
        for (int k = 0; k < INV_N; k++) nf += r->v[i].fail[k];
        fprintf(f, "| %s | %llu | %llu | %llu |\n", r->v[i].var->name,
                (unsigned long long)r->v[i].games, (unsigned long long)r->v[i].positions,
                (unsigned long long)nf);
    }
    for (int i = 0; i < r->nvar; i++) {
        const VariantReport *vr = &r->v[i];
        fprintf(f, "\n## %s\n\n| invariant | what it checks | pass | fail |\n|---|---|---:|---:|\n",
                vr->var->name);
        for (int k = 0; k < INV_N; k++)
            fprintf(f, "| %s | %s | %llu | %llu |\n", invariant_names[k], invariant_texts[k],
                    (unsigned long long)vr->pass[k], (unsigned long long)vr->fail[k]);
        fprintf(f, "\n| event | count |\n|---|---:|\n");
        for (int k = 0; k < EV_N; k++)
            fprintf(f, "| %s | %llu |\n", event_names[k], (unsigned long long)vr->events[k]);
        fprintf(f, "\nPromotions by type: ");
        report_md_types(f, vr->var, vr->promo_to);
        fprintf(f, ". Drops by type: ");
        report_md_types(f, vr->var, vr->drop_of);
        fprintf(f, ". Castlings by monarch: ");
        report_md_types(f, vr->var, vr->castle_by);
        fprintf(f, ".\n");
        if (!vr->nfail_kept) continue;
        fprintf(f, "\n### Failures (%d shown)\n", vr->nfail_kept);
        for (int k = 0; k < vr->nfail_kept; k++) {
            const ReportFailure *fl = &vr->failures[k];
            fprintf(f, "\n- **%s** at `%s`%s%s%s: %s\n", invariant_names[fl->invariant], fl->fen,
                    fl->move[0] ? ", move `" : "", fl->move, fl->move[0] ? "`" : "", fl->detail);
            if (fl->only_fast[0] || fl->only_ref[0])
                fprintf(f, "  - only fast: `%s`\n  - only reference: `%s`\n",
                        fl->only_fast[0] ? fl->only_fast : "-",
                        fl->only_ref[0] ? fl->only_ref : "-");
        }
    }
}
