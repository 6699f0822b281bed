/* SPDX-License-Identifier: Apache-2.0 */
/*
 * navguard_metrics.h — NavGuard's Prometheus textfile for a running host.
 *
 * NavGuard's counters for node_exporter's textfile collector, kept by a
 * running kiosk from its delegate's callbacks (no trace read): the same
 * families, names and labels as `navguard stats --format prometheus`, those a
 * host can see as they happen:
 *   navguard_refusals_total{guard,reason}     a refused request (on_outcome)
 *   navguard_drops_total{guard,reason}        a dropped request (on_outcome;
 *                                             dropped input events are not
 *                                             delegate callbacks: stats only)
 *   navguard_transitions_forced_total{route}  a transition ended by a guard
 *                                             (NG_TRANSF_FORCED; route: the top)
 *   navguard_watchdog_actions_total{kind}     kind transition (forced by the
 *                                             watchdog), hold (released by it)
 *   navguard_crash_dumps_total                ngm_add_crash_dumps
 *   navguard_longest_hold_seconds{label}      the longest hold per label
 *   navguard_reports_total{guard}             on_report
 * navguard_transitions_stuck_total is not here: a transition is "stuck" only
 * when a trace ends with it unfinished; a live kiosk has the watchdog's
 * forced count instead. Shipped as source with the journal sink
 * (NavGuard::journald).
 *
 * The file is written whole to <path>.tmp then renamed into place, so
 * node_exporter never reads half of it: by ngm_write, and by ngm_poll when
 * something changed and `interval_ns` has passed since the last write.
 * Threads: owner thread only (the delegate's). Allocation: a row is
 * allocated the first time its labels are seen (at most NGM_MAX_ROWS rows;
 * past that, new label sets are counted in ngm_overflow), never after. */
#ifndef NAVGUARD_METRICS_H
#define NAVGUARD_METRICS_H

#include <navguard/navguard.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define NGM_MAX_ROWS 512

typedef struct ngm_metrics ngm_metrics;

/* `path`: the textfile (e.g. /var/lib/prometheus/node-exporter/navguard.prom;
 * copied). `interval_ns`: ngm_poll writes at most this often (0: every poll
 * with a change). Returns NULL when memory cannot be had or path is NULL. */
ngm_metrics *ngm_create(const char *path, int64_t interval_ns);
void ngm_destroy(ngm_metrics *m);

/* Wrap `delegate` (as ngj_wrap does): the host's callbacks are called first,
 * then counted. on_report, on_outcome, on_transition and on_hold_end are
 * installed. */
void ngm_wrap(ngm_metrics *m, ng_delegate *delegate);

/* Or call these from the host's own callbacks. */
void ngm_report(ngm_metrics *m, ng_context *ctx, const char *guard_id, const char *text);
void ngm_outcome(ngm_metrics *m, ng_context *ctx, const ng_outcome *outcome);
void ngm_transition(ngm_metrics *m, ng_context *ctx, const ng_transition_event *event);
void ngm_hold_end(ngm_metrics *m, ng_context *ctx, const ng_hold_info *hold);
void ngm_add_crash_dumps(ngm_metrics *m, uint64_t n);

/* Write the file now. Returns 0, or an errno value (the file is left as it
 * was). */
int ngm_write(ngm_metrics *m);
/* From the host's loop: write if something changed and interval_ns has
 * passed (CLOCK_MONOTONIC). Returns 0 or ngm_write's error. */
int ngm_poll(ngm_metrics *m);
/* Label sets not counted because the table was full. */
uint64_t ngm_overflow(const ngm_metrics *m);

#ifdef __cplusplus
}
#endif

#endif
