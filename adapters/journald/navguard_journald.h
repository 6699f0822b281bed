/* SPDX-License-Identifier: Apache-2.0 */
/*
 * navguard_journald.h — NavGuard's systemd-journal sink.
 *
 * One structured systemd-journal entry per guard report, watchdog action,
 * dump file written and (when asked) refusal or
 * drop. Shipped as source (like adapters/sdl2): compile navguard_journald.c
 * into the host (find_package(NavGuard COMPONENTS journald) gives
 * NavGuard::journald; pkg-config: `pkg-config --variable=journald_adapter_dir
 * navguard`). libnavguard never depends on it, and it needs no libsystemd.
 *
 * Transport: the journal's native protocol (systemd's "Native Journal
 * Protocol"), one AF_UNIX datagram per entry to /run/systemd/journal/socket,
 * sent with MSG_DONTWAIT; an entry too large for a datagram goes as a sealed
 * memfd (SCM_RIGHTS), as sd_journal_sendv does. Not sd_journal_sendv itself:
 * its socket is blocking, so a journald that is stuck or slow would stop the
 * UI thread inside a report; here a full queue drops the entry instead.
 *
 * Cost: one sendmsg of a few hundred bytes per entry, no allocation for an
 * entry below 4 KiB of fields (a larger one allocates its buffer once per
 * entry); measured by bench_journald (README "Running a fleet of kiosks").
 *
 * When the journal is not there (no socket, the queue full, any send error)
 * the entry is dropped and counted (ngj_dropped), and on_unavailable is
 * called once, on the first such entry (again after an entry went through).
 *
 * Threads: a sink is used on the context's owner thread (the delegate's
 * thread); it takes no lock. ngj_dropped/ngj_sent may be read from any thread
 * (relaxed atomics).
 *
 * Fields of every entry:
 *   MESSAGE           one line: the report's first line, or a sentence
 *   PRIORITY          syslog 0-7 (below)
 *   MESSAGE_ID        one of NGJ_MESSAGE_ID_* (32 lowercase hex digits)
 *   SYSLOG_IDENTIFIER ngj_options.identifier (default "navguard")
 *   NAVGUARD_VERSION  ng_version_string()
 *   NAVGUARD_CONTEXT  ngj_options.context_name, else the context's address
 *   NAVGUARD_SCREEN   the top screen's id (absent without a stack)
 *   NAVGUARD_ROUTE    the top screen's route (absent without a stack)
 * and, by kind:
 *   NAVGUARD_GUARD    the guard id (report, watchdog, refusal, drop), as it
 *                     is: the journal allows any bytes in a value
 *   NAVGUARD_TEXT     the whole report, every line (report, watchdog)
 *   NAVGUARD_DUMP     the dump file's path (dump, crash dump)
 *   NAVGUARD_REQUEST  the request id (refusal, drop)
 *   NAVGUARD_REASON   ng_reason_name (refusal, drop)
 *   NAVGUARD_KIND     ng_request_kind_name (refusal, drop)
 *
 * PRIORITY mapping (syslog levels):
 *   2 crit     a crash dump found (the process died on a fatal signal)
 *   3 err      a report by the watchdog (something was stuck and was ended)
 *   5 notice   a report by any other guard
 *   6 info     a report dump written; a refusal
 *   7 debug    a drop
 */
#ifndef NAVGUARD_JOURNALD_H
#define NAVGUARD_JOURNALD_H

#include <navguard/navguard.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* MESSAGE_ID per kind of entry: filter with e.g.
 * journalctl MESSAGE_ID=5f8e2a7c3b6d4e19a0c1d2e3f4a5b601 */
#define NGJ_MESSAGE_ID_REPORT     "5f8e2a7c3b6d4e19a0c1d2e3f4a5b601"
#define NGJ_MESSAGE_ID_WATCHDOG   "5f8e2a7c3b6d4e19a0c1d2e3f4a5b602"
#define NGJ_MESSAGE_ID_DUMP       "5f8e2a7c3b6d4e19a0c1d2e3f4a5b603"
#define NGJ_MESSAGE_ID_CRASH_DUMP "5f8e2a7c3b6d4e19a0c1d2e3f4a5b604"
#define NGJ_MESSAGE_ID_REFUSAL    "5f8e2a7c3b6d4e19a0c1d2e3f4a5b605"
#define NGJ_MESSAGE_ID_DROP       "5f8e2a7c3b6d4e19a0c1d2e3f4a5b606"

/* The watchdog's guard id: its reports are NGJ_MESSAGE_ID_WATCHDOG entries. */
#define NGJ_WATCHDOG_ID "org.navguard.watchdog"

/* ngj_options.flags */
#define NGJ_REFUSALS 0x1u  /* an entry per refused request */
#define NGJ_DROPS    0x2u  /* an entry per dropped request */

typedef struct ngj_options {
    uint32_t size;            /* sizeof(ngj_options) */
    uint32_t flags;           /* NGJ_* */
    const char *identifier;   /* SYSLOG_IDENTIFIER; NULL: "navguard" (copied) */
    const char *context_name; /* NAVGUARD_CONTEXT; NULL: the context's address (copied) */
    const char *socket_path;  /* NULL: /run/systemd/journal/socket (copied) */
    /* Called once when an entry is dropped because the journal is not there
     * (errno_value: ENOENT, ECONNREFUSED, EAGAIN for a full queue...), again
     * only after an entry went through. Owner thread. May be NULL. */
    void (*on_unavailable)(void *user, int errno_value, const char *message);
    void *user;
} ngj_options;
#define NGJ_OPTIONS_INIT { sizeof(ngj_options), 0u, NULL, NULL, NULL, NULL, NULL }

typedef struct ngj_sink ngj_sink;

/* Make a sink (one socket, opened here, non-blocking). Returns NULL only when
 * memory or a socket cannot be had (errno says which). `options` may be NULL. */
ngj_sink *ngj_create(const ngj_options *options);
/* Close the socket and free the sink. NULL is ignored. If the sink wraps a
 * delegate (ngj_wrap), the context must be destroyed first. */
void ngj_destroy(ngj_sink *sink);

/* Wrap `delegate` (before ng_context_create): the sink keeps a copy of the
 * host's callbacks and installs its own on_report, on_log and on_outcome,
 * which call the host's first, then write the entries. `delegate->user`
 * becomes the sink. Another wrapper (navguard_metrics.h) may wrap the result. */
void ngj_wrap(ngj_sink *sink, ng_delegate *delegate);

/* Or call these from the host's own callbacks. */
/* A report: a WATCHDOG entry for NGJ_WATCHDOG_ID, else a REPORT entry; and a
 * DUMP entry when its text says the flight recorder wrote a report dump. */
void ngj_report(ngj_sink *sink, ng_context *ctx, const char *guard_id, const char *text);
/* A watchdog configured without reports logs its action instead (a WARN line
 * "watchdog: recovered ..."): that line becomes a WATCHDOG entry. Other log
 * lines are ignored. */
void ngj_log(ngj_sink *sink, ng_context *ctx, int32_t severity, const char *guard_id, const char *message);
/* A REFUSAL or DROP entry, per ngj_options.flags; APPLIED is ignored. */
void ngj_outcome(ngj_sink *sink, ng_context *ctx, const ng_outcome *outcome);
/* A dump file written (crash: a crash dump). ctx may be NULL. */
void ngj_dump(ngj_sink *sink, ng_context *ctx, const char *path, bool crash);
/* At start-up: a CRASH_DUMP entry for each navguard-*-crash.ngbox in `dir`
 * (NULL: ".") not announced before; announcing one creates an empty
 * <file>.journald beside it (the dump budget ignores that name). Returns how
 * many were announced, or -1 when `dir` cannot be read (errno). */
int ngj_announce_crash_dumps(ngj_sink *sink, const char *dir);

/* Entries sent, and dropped (journal absent, queue full, send error). */
uint64_t ngj_sent(const ngj_sink *sink);
uint64_t ngj_dropped(const ngj_sink *sink);

#ifdef __cplusplus
}
#endif

#endif
