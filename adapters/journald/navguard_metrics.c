/* SPDX-License-Identifier: Apache-2.0 */
/* The kiosk-side textfile (navguard_metrics.h). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include "navguard_metrics.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* The families, in the order written; the same text as `navguard stats
 * --format prometheus` (StatsFormat.swift). */
enum { F_REFUSALS, F_DROPS, F_FORCED, F_WATCHDOG, F_CRASH, F_LONGEST, F_REPORTS, F_COUNT };
static const struct { const char *name, *type, *help, *l1, *l2; } families[F_COUNT] = {
    { "navguard_refusals_total", "counter", "Requests refused, by the guard that refused them (\"the core\" for the engine itself) and reason.", "guard", "reason" },
    { "navguard_drops_total", "counter", "Requests and input events dropped, by guard and reason.", "guard", "reason" },
    { "navguard_transitions_forced_total", "counter", "Transitions to a route that a guard (the watchdog) forced to finish.", "route", NULL },
    { "navguard_watchdog_actions_total", "counter", "What the watchdog ended: a transition (forced or rolled back), a hold (released), a touch (cancelled).", "kind", NULL },
    { "navguard_crash_dumps_total", "counter", "Crash dumps: among the traces read (navguard stats), or found at start-up (a kiosk).", NULL, NULL },
    { "navguard_longest_hold_seconds", "gauge", "The longest hold of each label, in seconds.", "label", NULL },
    { "navguard_reports_total", "counter", "Reports posted by guards, by guard id.", "guard", NULL },
};

typedef struct {
    int family;
    char *l1, *l2;
    uint64_t value;          /* a count, or for F_LONGEST nanoseconds */
} row;

struct ngm_metrics {
    char *path, *tmp;
    int64_t interval_ns, last_write_ns;
    bool dirty;
    uint64_t crash_dumps, overflow;
    size_t n;
    row rows[NGM_MAX_ROWS];
    ng_delegate inner;
};

static int64_t mono_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

ngm_metrics *ngm_create(const char *path, int64_t interval_ns) {
    if (!path) return NULL;
    ngm_metrics *m = calloc(1, sizeof *m);
    if (!m) return NULL;
    m->path = strdup(path);
    size_t n = strlen(path) + 32;
    m->tmp = malloc(n);
    if (!m->path || !m->tmp) {
        ngm_destroy(m);
        return NULL;
    }
    /* node_exporter reads *.prom only: the temporary name ends otherwise. */
    snprintf(m->tmp, n, "%s.%ld.tmp", path, (long)getpid());
    m->interval_ns = interval_ns;
    m->last_write_ns = INT64_MIN / 2;
    /* The watchdog's kinds exist from the start, at 0 (a query finds them). */
    m->dirty = true;
    return m;
}

void ngm_destroy(ngm_metrics *m) {
    if (!m) return;
    for (size_t i = 0; i < m->n; i++) {
        free(m->rows[i].l1);
        free(m->rows[i].l2);
    }
    free(m->path);
    free(m->tmp);
    free(m);
}

uint64_t ngm_overflow(const ngm_metrics *m) { return m ? m->overflow : 0; }

static row *find(ngm_metrics *m, int family, const char *l1, const char *l2) {
    if (!l1) l1 = "";
    for (size_t i = 0; i < m->n; i++) {
        row *r = &m->rows[i];
        if (r->family == family && strcmp(r->l1, l1) == 0 && (!l2 || strcmp(r->l2, l2) == 0)) return r;
    }
    if (m->n == NGM_MAX_ROWS) {
        m->overflow++;
        return NULL;
    }
    row *r = &m->rows[m->n];
    r->family = family;
    r->l1 = strdup(l1);
    r->l2 = l2 ? strdup(l2) : NULL;
    if (!r->l1 || (l2 && !r->l2)) {
        free(r->l1);
        free(r->l2);
        m->overflow++;
        return NULL;
    }
    r->value = 0;
    m->n++;
    return r;
}

static void bump(ngm_metrics *m, int family, const char *l1, const char *l2) {
    row *r = find(m, family, l1, l2);
    if (r) r->value++;
    m->dirty = true;
}

void ngm_report(ngm_metrics *m, ng_context *ctx, const char *guard_id, const char *text) {
    (void)ctx;
    (void)text;
    if (m) bump(m, F_REPORTS, guard_id ? guard_id : "?", NULL);
}

void ngm_outcome(ngm_metrics *m, ng_context *ctx, const ng_outcome *o) {
    (void)ctx;
    if (!m || !o || (o->outcome != NG_OUTCOME_REFUSED && o->outcome != NG_OUTCOME_DROPPED)) return;
    const char *reason = ng_reason_name(o->reason);
    bump(m, o->outcome == NG_OUTCOME_REFUSED ? F_REFUSALS : F_DROPS, o->guard_id ? o->guard_id : "the core",
         reason ? reason : "?");
}

void ngm_transition(ngm_metrics *m, ng_context *ctx, const ng_transition_event *e) {
    if (!m || !e || e->track != NG_TRACK_SCREEN || e->phase == NG_PHASE_WILL || !(e->flags & NG_TRANSF_FORCED)) return;
    /* The route of the screen it went to (the top now). */
    const char *route = "?";
    size_t depth = 0;
    ng_screen_info top;
    memset(&top, 0, sizeof top);
    top.size = sizeof top;
    if (ctx && ng_stack_count(ctx, &depth) == NG_OK && depth > 0 && ng_stack_get(ctx, depth - 1, &top) == NG_OK && top.route)
        route = top.route;
    bump(m, F_FORCED, route, NULL);
    bump(m, F_WATCHDOG, "transition", NULL);
}

void ngm_hold_end(ngm_metrics *m, ng_context *ctx, const ng_hold_info *h) {
    (void)ctx;
    if (!m || !h) return;
    if (h->reason == NG_HOLD_RELEASED) bump(m, F_WATCHDOG, "hold", NULL);
    row *r = find(m, F_LONGEST, h->label ? h->label : "", NULL);
    int64_t ns = h->ended_ns - h->began_ns;
    if (r && ns > 0 && (uint64_t)ns > r->value) r->value = (uint64_t)ns;
    m->dirty = true;
}

void ngm_add_crash_dumps(ngm_metrics *m, uint64_t n) {
    if (!m || !n) return;
    m->crash_dumps += n;
    m->dirty = true;
}

/* A label value escaped as the text format says: \\ \" \n. */
static void put_label(FILE *f, const char *name, const char *v) {
    fprintf(f, "%s=\"", name);
    for (; *v; v++) {
        if (*v == '\\') fputs("\\\\", f);
        else if (*v == '"') fputs("\\\"", f);
        else if (*v == '\n') fputs("\\n", f);
        else fputc(*v, f);
    }
    fputc('"', f);
}

static int cmp_rows(const void *a, const void *b) {
    const row *x = *(row *const *)a, *y = *(row *const *)b;
    int c = strcmp(x->l1, y->l1);
    return c ? c : strcmp(x->l2 ? x->l2 : "", y->l2 ? y->l2 : "");
}

int ngm_write(ngm_metrics *m) {
    if (!m) return EINVAL;
    int fd = open(m->tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (fd < 0) return errno;
    FILE *f = fdopen(fd, "w");
    if (!f) {
        int err = errno;
        close(fd);
        unlink(m->tmp);
        return err;
    }
    const char *kinds[] = { "hold", "touch", "transition" };
    for (int fam = 0; fam < F_COUNT; fam++) {
        fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", families[fam].name, families[fam].help, families[fam].name,
                families[fam].type);
        if (fam == F_CRASH) {
            fprintf(f, "%s %" PRIu64 "\n", families[fam].name, m->crash_dumps);
            continue;
        }
        if (fam == F_WATCHDOG) {
            for (int k = 0; k < 3; k++) {
                row *r = NULL;
                for (size_t i = 0; i < m->n; i++)
                    if (m->rows[i].family == F_WATCHDOG && strcmp(m->rows[i].l1, kinds[k]) == 0) r = &m->rows[i];
                fprintf(f, "%s{kind=\"%s\"} %" PRIu64 "\n", families[fam].name, kinds[k], r ? r->value : 0);
            }
            continue;
        }
        row *sorted[NGM_MAX_ROWS];
        size_t k = 0;
        for (size_t i = 0; i < m->n; i++)
            if (m->rows[i].family == fam) sorted[k++] = &m->rows[i];
        qsort(sorted, k, sizeof sorted[0], cmp_rows);
        for (size_t i = 0; i < k; i++) {
            fprintf(f, "%s{", families[fam].name);
            put_label(f, families[fam].l1, sorted[i]->l1);
            if (families[fam].l2) {
                fputc(',', f);
                put_label(f, families[fam].l2, sorted[i]->l2);
            }
            if (fam == F_LONGEST)
                fprintf(f, "} %" PRIu64 ".%09" PRIu64 "\n", sorted[i]->value / 1000000000u, sorted[i]->value % 1000000000u);
            else
                fprintf(f, "} %" PRIu64 "\n", sorted[i]->value);
        }
    }
    int err = 0;
    if (fflush(f) != 0 || fsync(fd) != 0) err = errno;
    if (fclose(f) != 0 && !err) err = errno;
    if (!err && rename(m->tmp, m->path) != 0) err = errno;
    if (err) {
        unlink(m->tmp);
        return err;
    }
    m->dirty = false;
    m->last_write_ns = mono_ns();
    return 0;
}

int ngm_poll(ngm_metrics *m) {
    if (!m || !m->dirty || mono_ns() - m->last_write_ns < m->interval_ns) return 0;
    return ngm_write(m);
}

static void w_report(void *u, ng_context *c, const char *g, const char *t) {
    ngm_metrics *m = u;
    if (m->inner.on_report) m->inner.on_report(m->inner.user, c, g, t);
    ngm_report(m, c, g, t);
}
static void w_outcome(void *u, ng_context *c, const ng_outcome *o) {
    ngm_metrics *m = u;
    if (m->inner.on_outcome) m->inner.on_outcome(m->inner.user, c, o);
    ngm_outcome(m, c, o);
}
static void w_transition(void *u, ng_context *c, const ng_transition_event *e) {
    ngm_metrics *m = u;
    if (m->inner.on_transition) m->inner.on_transition(m->inner.user, c, e);
    ngm_transition(m, c, e);
}
static void w_hold_end(void *u, ng_context *c, const ng_hold_info *h) {
    ngm_metrics *m = u;
    if (m->inner.on_hold_end) m->inner.on_hold_end(m->inner.user, c, h);
    ngm_hold_end(m, c, h);
}
static void w_log(void *u, ng_context *c, int32_t s, const char *g, const char *t) { ngm_metrics *m = u; m->inner.on_log(m->inner.user, c, s, g, t); }
static void w_touch_cancel(void *u, ng_context *c, const ng_touch_info *t) { ngm_metrics *m = u; m->inner.on_touch_cancel(m->inner.user, c, t); }
static void w_question(void *u, ng_context *c, const ng_question *q) { ngm_metrics *m = u; m->inner.on_question(m->inner.user, c, q); }
static void w_question_end(void *u, ng_context *c, const ng_question *q, ng_answer a) { ngm_metrics *m = u; m->inner.on_question_end(m->inner.user, c, q, a); }
static void w_wake(void *u, ng_context *c) { ngm_metrics *m = u; m->inner.on_wake(m->inner.user, c); }
static void w_deadline(void *u, ng_context *c, int64_t d) { ngm_metrics *m = u; m->inner.on_deadline(m->inner.user, c, d); }
static void w_press_cancel(void *u, ng_context *c, const ng_press_info *p) { ngm_metrics *m = u; m->inner.on_press_cancel(m->inner.user, c, p); }

void ngm_wrap(ngm_metrics *m, ng_delegate *d) {
    if (!m || !d) return;
    ng_delegate inner;
    memset(&inner, 0, sizeof inner);
    memcpy(&inner, d, d->size < sizeof inner ? d->size : sizeof inner);
    m->inner = inner;
    d->size = sizeof *d;
    d->user = m;
    d->on_report = w_report;
    d->on_outcome = w_outcome;
    d->on_transition = w_transition;
    d->on_hold_end = w_hold_end;
    d->on_log = inner.on_log ? w_log : NULL;
    d->on_touch_cancel = inner.on_touch_cancel ? w_touch_cancel : NULL;
    d->on_question = inner.on_question ? w_question : NULL;
    d->on_question_end = inner.on_question_end ? w_question_end : NULL;
    d->on_wake = inner.on_wake ? w_wake : NULL;
    d->on_deadline = inner.on_deadline ? w_deadline : NULL;
    d->on_press_cancel = inner.on_press_cancel ? w_press_cancel : NULL;
}
