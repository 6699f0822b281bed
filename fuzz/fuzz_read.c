/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_read.c — NavGuard's trace and crash-dump readers under fuzzed bytes.
 *
 * The input is a file as `navguard replay` would read it: a JSON Lines trace
 * (docs/trace-format.md) or a crash dump (.ngbox, the binary header and ring
 * records Sources/NavGuardC/crash_dump.c writes). It goes to ng_replay, which
 * reads it the way every reader of the library does (Trace.read: JSON
 * Lines, or CrashDumpFile.convert then RingReader for a dump) and, when it
 * can, replays it in a context of its own against the recorded chain (the
 * built-in guards, found on the plugin search path). A trace that reads is
 * replayed a second time against the empty chain (ng_replay_options.chain):
 * the comparison that then diverges is exercised too.
 *
 * The bytes are passed in a buffer of exactly their length (no NUL after
 * them), so ASan sees any read past the end. Checked, besides "no crash, no
 * hang, no sanitizer report":
 *  - the status is in [0, NG_STATUS_COUNT) and one navguard.h documents for
 *    ng_replay (ng_status_masks.h, read from the header at build time);
 *  - out->report is never NULL and is NUL-terminated; the status NG_OK with
 *    out->identical has out->line 0, and a failure names a line when the
 *    trace had any (a crash dump or a text of no lines may name line 0 or 1);
 *  - ng_replay leaves alone the bytes it was given, and the fields of the
 *    result it does not own (size);
 *  - a replay is deterministic: the same bytes give the same status, line and
 *    identical flag the second time (checked on every 8th input).
 *
 * Built twice from this one file, like fuzz/api/harness.c: fuzz_read (libFuzzer,
 * -DNAVGUARD_FUZZ=ON, `make fuzz FUZZ_TARGET=fuzz_read`) and fuzz_read_replay
 * (with replay.c's main(): ctest fuzz_read_smoke runs fuzz/corpus-read, the
 * saved crashers of fuzz/crashers/read and generated inputs).
 */
#define _POSIX_C_SOURCE 200809L
#include <navguard/navguard.h>
#include "ng_status_masks.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int ngf_verbose = 0;

/* Open findings (fuzz/crashers/README.md, R<n>): none now (R1 is fixed and
 * its input is a regression input). A new finding that cannot be fixed at
 * once is steered around on FINDING(n), unless NGF_FINDINGS=1 (all) or
 * NGF_FINDINGS=R2,... names it (how a saved crasher reproduces). */
static unsigned g_findings = 0;
#define FINDING(n) ((g_findings >> (n)) & 1u)

__attribute__((noreturn, format(printf, 1, 2)))
static void fail(const char *fmt, ...) {
    va_list ap;
    fflush(stdout);
    fprintf(stderr, "\nNAVGUARD FUZZ (readers): invariant violated: ");
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    fflush(stderr);
    abort();
}
#define CHECK(cond, ...) do { if (!(cond)) fail(__VA_ARGS__); } while (0)

static const char *stname(ng_status st) {
#define STATUS_NAME(constant, text) case constant: return #constant;
    switch (st) { NG_STATUS_MAP(STATUS_NAME) default: return "?"; }
#undef STATUS_NAME
}

/* A crash dump (CrashDumpFile.swift) begins with its magic. */
static bool is_box(const uint8_t *d, size_t n) { return n >= 8 && memcmp(d, "NGBBOX01", 8) == 0; }
static struct {
    unsigned long long inputs, st[NG_STATUS_COUNT], identical, boxes;
} g_stats;
static int g_want_stats;

static void print_stats(void) {
    fprintf(stderr, "\nNGF_STATS: %llu inputs (%llu crash dumps), %llu replayed identically; ng_replay returned",
            g_stats.inputs, g_stats.boxes, g_stats.identical);
    for (int k = 0; k < NG_STATUS_COUNT; k++)
        if (g_stats.st[k]) fprintf(stderr, " %s:%llu", stname(k), g_stats.st[k]);
    fputc('\n', stderr);
}

/* Has the text any line (a newline or a last line without one)? */
static size_t count_lines(const uint8_t *d, size_t n) {
    size_t lines = 0;
    for (size_t i = 0; i < n; i++) lines += d[i] == '\n';
    return lines + (n > 0 && d[n - 1] != '\n');
}

typedef struct {
    ng_status st;
    bool identical;
    uint64_t line;
} outcome;

static outcome replay_once(const char *bytes, size_t n, const char *chain, size_t lines) {
    ng_replay_result res = NG_REPLAY_RESULT_INIT;
    ng_replay_options opt = NG_REPLAY_OPTIONS_INIT;
    opt.chain = chain;
    ng_status st = ng_replay(bytes, n, chain ? &opt : NULL, &res);
    CHECK(st >= 0 && st < NG_STATUS_COUNT, "ng_replay returned %" PRId32 ", outside [0, NG_STATUS_COUNT)", st);
    CHECK(NGF_STATUSES_ng_replay & NGF_STATUS_BIT(st), "ng_replay returned %s, not a status navguard.h documents for it",
          stname(st));
    CHECK(res.size == sizeof res, "ng_replay changed out->size to %" PRIu32, res.size);
    CHECK(res.report != NULL, "ng_replay (%s) gave no report", stname(st));
    size_t rlen = strlen(res.report);   /* ASan: terminated inside its allocation */
    if (ngf_verbose)
        fprintf(stderr, "ng_replay(%zu bytes, chain %s) -> %s, identical %d, line %" PRIu64 ", %" PRIu64
                " calls, %" PRIu64 " callbacks\n%s", n, chain ? chain : "recorded", stname(st), res.identical,
                res.line, res.calls, res.callbacks, res.report);
    if (st == NG_OK && res.identical) CHECK(res.line == 0, "an identical replay names line %" PRIu64, res.line);
    if (st == NG_OK && !res.identical) {
        CHECK(res.line >= 1 && res.line <= lines + 1, "a divergence at line %" PRIu64 " of a trace of %zu lines",
              res.line, lines);
        CHECK(rlen > 0, "a divergence with an empty report");
    }
    if (st != NG_OK && st != NG_E_LOAD && lines > 0 && !is_box((const uint8_t *)bytes, n))
        CHECK(res.line <= lines + 1, "ng_replay (%s) names line %" PRIu64 " of a text of %zu lines", stname(st),
              res.line, lines);
    outcome o = { st, res.identical, res.line };
    ng_free(res.report);
    if (g_want_stats) {
        g_stats.st[st]++;
        g_stats.identical += st == NG_OK && res.identical;
    }
    return o;
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    const char *v = getenv("NGF_VERBOSE");
    if (v && *v && *v != '0') ngf_verbose = 1;
    const char *s = getenv("NGF_STATS");
    if (s && *s && *s != '0' && !g_want_stats) {
        g_want_stats = 1;
        atexit(print_stats);
    }
    const char *f = getenv("NGF_FINDINGS");
    if (f && *f && *f != '0') {
        g_findings = ~0u;                           /* "1": every finding */
        if (strchr(f, 'R') || strchr(f, 'r')) {     /* "R1,R2": those */
            g_findings = 0;
            for (const char *p = f; *p; p++)
                if ((*p == 'R' || *p == 'r') && p[1] >= '0' && p[1] <= '9' && atoi(p + 1) < 32)
                    g_findings |= 1u << (unsigned)atoi(p + 1);
        }
    }
#ifdef NAVGUARD_FUZZ_PLUGIN_DIR
    /* The built-in plugins of this build (set before ng_plugin_dir is first read). */
    setenv("NAVGUARD_PLUGIN_DIR", NAVGUARD_FUZZ_PLUGIN_DIR, 0);
#endif
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static bool inited;
    static unsigned long long n_inputs;
    if (!inited) {
        inited = true;
        LLVMFuzzerInitialize(NULL, NULL);
    }
    n_inputs++;
    /* Exactly `size` bytes (malloc(0) may be NULL: ng_replay needs a pointer). */
    char *bytes = malloc(size ? size : 1);
    char *keep = malloc(size ? size : 1);
    if (!bytes || !keep) abort();
    if (size) memcpy(bytes, data, size);
    if (size) memcpy(keep, bytes, size);
    size_t lines = count_lines((const uint8_t *)bytes, size);
    if (g_want_stats) {
        g_stats.inputs++;
        g_stats.boxes += is_box((const uint8_t *)bytes, size);
    }

    outcome first = replay_once(bytes, size, NULL, lines);
    CHECK(size == 0 || memcmp(bytes, keep, size) == 0, "ng_replay changed the bytes it was given");
    if (n_inputs % 8 == 0) {
        outcome again = replay_once(bytes, size, NULL, lines);
        CHECK(again.st == first.st && again.identical == first.identical && again.line == first.line,
              "the same bytes replayed twice: %s (identical %d, line %" PRIu64 "), then %s (identical %d, line %" PRIu64 ")",
              stname(first.st), first.identical, first.line, stname(again.st), again.identical, again.line);
    }
    /* Read and replayed: again against the empty chain. */
    if (first.st == NG_OK) (void)replay_once(bytes, size, "{\"guards\":[]}", lines);
    free(bytes);
    free(keep);
    return 0;
}
