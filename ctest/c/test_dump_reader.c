/* SPDX-License-Identifier: Apache-2.0 */
/* test_dump_reader: reading crash dumps whose header does not describe the
 * file (docs/trace-format.md, "Crash dumps"). A child records a ring and
 * calls ng_record_crash_dump; the parent reads the dump back through
 * ng_replay (a ring dump: NG_E_STATE once it is read), then changes one
 * header field at a time and expects NG_E_PARSE (NG_E_RANGE for a newer
 * layout) with the field named in the report, never a trap. The first case
 * is the reported one: dropped_lines near 2^64 with ring_records below the
 * lines the ring holds made the reader's sum overflow (SIGILL in the host).
 *
 * With NAVGUARD_CLI set (ctest sets it), a second child crashes on another
 * thread while its owner thread is inside ng_tick: `navguard timeline` must
 * not say the process crashed inside tick, only that the owner was there.
 *
 *   test_dump_reader            the test
 *   test_dump_reader --dump DIR write one crash dump into DIR and exit
 *                               (ctest/cli/check_readers.py crafts its
 *                               files from it) */
#define _GNU_SOURCE
#include <navguard/navguard.h>

#include <dirent.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

#define MS 1000000LL

static ng_context *g_ctx;

static void child_fail(const char *what, ng_status st) {
    fprintf(stderr, "child: %s: %s (%s)\n", what, ng_strstatus(st), ng_errmsg(g_ctx));
    _exit(3);
}

static void touch(int32_t phase, uint64_t id) {
    ng_event e = NG_EVENT_INIT(NG_EVENT_TOUCH);
    e.phase = phase;
    e.touch_id = id;
    e.x = 10;
    e.y = 10;
    ng_status st = ng_event_submit(g_ctx, &e, NULL);
    if (st != NG_OK) child_fail("ng_event_submit", st);
}

static void start(const char *dir, uint32_t crash, ng_delegate delegate) {
    ng_options o = NG_OPTIONS_INIT;
    o.clock = NG_CLOCK_MANUAL;
    o.manual_start_ns = 1000 * MS;
    o.delegate = delegate;
    ng_status st = ng_context_create(&o, &g_ctx);
    if (st != NG_OK) child_fail("ng_context_create", st);
    ng_record_options ro = NG_RECORD_OPTIONS_INIT;
    ro.ring_records = 20;   /* fewer than the ring holds: its window starts late */
    ro.dump_dir = dir;
    ro.crash = crash;
    if ((st = ng_record_start(g_ctx, &ro)) != NG_OK) child_fail("ng_record_start", st);
    ng_view v = NG_VIEW_INIT;
    v.id = 7;
    v.frame = (ng_rect){ 0, 0, 800, 600 };
    if ((st = ng_view_set(g_ctx, &v)) != NG_OK) child_fail("ng_view_set", st);
    ng_screen home = { 1, "home", NULL };
    if ((st = ng_stack_set_root(g_ctx, &home)) != NG_OK) child_fail("ng_stack_set_root", st);
    for (int i = 0; i < 40; i++) {
        ng_clock_advance(g_ctx, MS);
        touch(NG_TOUCH_BEGAN, 5);
        touch(NG_TOUCH_ENDED, 5);
    }
}

/* A child that records, then dumps its ring as a host's crash handler would. */
static void child_dump(const char *dir) {
    ng_options o = NG_OPTIONS_INIT;
    start(dir, NG_RECORD_CRASH_DUMP | NG_RECORD_CRASH_NO_HANDLER, o.delegate);
    ng_status st = ng_record_crash_dump(SIGSEGV);
    _exit(st == NG_OK ? 0 : 5);
}

/* The owner thread is inside ng_tick (in the outcome of a posted request)
 * when another thread crashes. */
static volatile int g_in_tick = 0;

static void *crash_soon(void *arg) {
    (void)arg;
    volatile int *volatile nowhere = NULL;
    *nowhere = 1;
    return NULL;
}

static void outcome_in_tick(void *user, ng_context *ctx, const ng_outcome *o) {
    (void)user;
    (void)ctx;
    (void)o;
    if (!g_in_tick) return;
    pthread_t t;
    pthread_create(&t, NULL, crash_soon, NULL);
    for (;;) pause();   /* the owner stays inside the tick until the process ends */
}

static void child_other_thread_in_tick(const char *dir) {
    ng_options o = NG_OPTIONS_INIT;
    ng_delegate d = o.delegate;
    d.on_outcome = outcome_in_tick;
    start(dir, NG_RECORD_CRASH_DUMP, d);
    ng_request r = NG_REQUEST_INIT(NG_REQ_PUSH);
    r.screen = (ng_screen){ 2, "menu", NULL };
    ng_status st = ng_request_post(g_ctx, &r, NULL);
    if (st != NG_OK) child_fail("ng_request_post", st);
    g_in_tick = 1;
    ng_tick(g_ctx);
    _exit(4);   /* not reached */
}

/* The one .ngbox file in `dir` (a fresh directory per child). */
static int find_dump(const char *dir, char *out, size_t size) {
    out[0] = 0;
    DIR *d = opendir(dir);
    if (!d) return 0;
    struct dirent *e;
    int found = 0;
    while ((e = readdir(d))) {
        size_t n = strlen(e->d_name);
        if (n > 6 && strcmp(e->d_name + n - 6, ".ngbox") == 0) {
            snprintf(out, size, "%s/%s", dir, e->d_name);
            found++;
        }
    }
    closedir(d);
    return found == 1;
}

static int fork_child(void (*body)(const char *), const char *dir) {
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) body(dir);
    int status = 0;
    waitpid(pid, &status, 0);
    return status;
}

static unsigned char *slurp(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *b = malloc((size_t)n + 1);
    if (b && fread(b, 1, (size_t)n, f) != (size_t)n) n = 0;
    fclose(f);
    *len = (size_t)n;
    return b;
}

static void put64(unsigned char *p, uint64_t v) {
    for (int i = 0; i < 8; i++) p[i] = (unsigned char)(v >> (8 * i));
}

static void put32(unsigned char *p, uint32_t v) {
    for (int i = 0; i < 4; i++) p[i] = (unsigned char)(v >> (8 * i));
}

/* ng_replay on `len` bytes: its status, and whether its report holds `want`. */
static ng_status replay(const unsigned char *b, size_t len, const char *want, int *named, char *report, size_t size) {
    ng_replay_result out = NG_REPLAY_RESULT_INIT;
    ng_status st = ng_replay((const char *)b, len, NULL, &out);
    *named = out.report && want && strstr(out.report, want) != NULL;
    snprintf(report, size, "%s", out.report ? out.report : "(no report)");
    ng_free(out.report);
    return st;
}

/* One header field changed: `width` bytes at `offset` set to `value`. */
struct craft {
    const char *field;
    size_t offset;
    int width;
    uint64_t value;
    ng_status want;
};

static void check_crafted(const unsigned char *dump, size_t n, const struct craft *c) {
    unsigned char *b = malloc(n);
    memcpy(b, dump, n);
    if (c->width == 8) put64(b + c->offset, c->value); else put32(b + c->offset, (uint32_t)c->value);
    int named = 0;
    char report[600];
    ng_status st = replay(b, n, c->field, &named, report, sizeof report);
    EXPECT(st == c->want && named, "%s (offset %zu) = %llu: ng_replay returned %s, expected %s naming the field; report: %s",
           c->field, c->offset, (unsigned long long)c->value, ng_strstatus(st), ng_strstatus(c->want), report);
    free(b);
}

int main(int argc, char **argv) {
    if (argc == 3 && strcmp(argv[1], "--dump") == 0) {
        mkdir(argv[2], 0755);
        int status = fork_child(child_dump, argv[2]);
        return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
    }
    char dir[256], path[600];
    snprintf(dir, sizeof dir, "/tmp/navguard-dump-reader-%d", (int)getpid());
    mkdir(dir, 0755);
    char one[300];
    snprintf(one, sizeof one, "%s/dump", dir);
    mkdir(one, 0755);

    int status = fork_child(child_dump, one);
    EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the child dumped its ring (status 0x%x)", status);
    EXPECT(find_dump(one, path, sizeof path), "one .ngbox in %s", one);
    size_t n = 0;
    unsigned char *dump = path[0] ? slurp(path, &n) : NULL;
    EXPECT(dump && n > 128 && memcmp(dump, "NGBBOX01", 8) == 0, "%s: a crash dump (%zu bytes)", path, n);
    if (!dump || n <= 128) return 1;

    /* The dump as written reads: a ring dump, which replay refuses as such. */
    int named = 0;
    char report[600];
    ng_status st = replay(dump, n, "ring dump", &named, report, sizeof report);
    EXPECT(st == NG_E_STATE, "the dump as written: ng_replay returned %s (NG_E_STATE: a ring dump); report: %s",
           ng_strstatus(st), report);

    const struct craft crafts[] = {
        /* The reported file: ~2^64 lines dropped, a window smaller than the ring. */
        { "dropped_lines", 88, 8, UINT64_MAX, NG_E_PARSE },
        { "dropped_lines", 88, 8, (1ull << 63) - 1, NG_E_PARSE },
        { "dropped_lines", 88, 8, (1ull << 53) + 1, NG_E_PARSE },
        { "header_size", 8, 4, 0xFFFFFFFFu, NG_E_PARSE },
        { "header_size", 8, 4, 64, NG_E_PARSE },
        { "layout", 12, 4, 2, NG_E_RANGE },
        { "pid", 24, 8, 0, NG_E_PARSE },
        { "pid", 24, 8, UINT64_MAX, NG_E_PARSE },
        { "dump_ns", 32, 8, UINT64_MAX, NG_E_PARSE },
        { "manual_start_ns", 40, 8, 1ull << 63, NG_E_PARSE },
        { "default_duration_ns", 48, 8, UINT64_MAX, NG_E_PARSE },
        { "posted_base", 56, 8, UINT64_MAX, NG_E_PARSE },
        { "ring_records", 64, 8, 0, NG_E_PARSE },
        { "ring_records", 64, 8, UINT64_MAX, NG_E_PARSE },
        { "ring_records", 64, 8, 1ull << 32, NG_E_PARSE },
        { "ring_ns", 72, 8, UINT64_MAX, NG_E_PARSE },
        { "last_ns", 80, 8, 1ull << 63, NG_E_PARSE },
        { "manual_clock", 96, 4, 2, NG_E_PARSE },
        { "records of layout", 100, 4, 7, NG_E_RANGE },
        { "records_bytes", 104, 8, UINT64_MAX, NG_E_PARSE },
        { "records_bytes", 104, 8, (64ull << 20) + 8, NG_E_PARSE },
        { "records_bytes", 104, 8, 12, NG_E_PARSE },
        { "records_bytes", 104, 8, 8, NG_E_PARSE },   /* less than the bytes that follow */
        { "library", 112, 8, 0xFFFFFFFFFFFFFFFFull, NG_E_PARSE },
        { "library", 120, 8, 0x4141414141414141ull, NG_E_PARSE },   /* no NUL at its end */
    };
    for (size_t i = 0; i < sizeof crafts / sizeof crafts[0]; i++) check_crafted(dump, n, &crafts[i]);

    /* ring_records of 1 with the dropped lines at the bound: read, the sum
     * stays exact (2^53 + the lines before the window). */
    {
        unsigned char *b = malloc(n);
        memcpy(b, dump, n);
        put64(b + 64, 1);
        put64(b + 88, 1ull << 53);
        st = replay(b, n, "ring dump", &named, report, sizeof report);
        EXPECT(st == NG_E_STATE, "dropped_lines 2^53, ring_records 1: read (%s); report: %s", ng_strstatus(st), report);
        free(b);
    }
    /* Too short for the header, and cut short inside the records (a dump
     * whose writer was killed: read, with a note). */
    st = replay(dump, 100, "too short", &named, report, sizeof report);
    EXPECT(st == NG_E_PARSE && named, "100 bytes: %s; report: %s", ng_strstatus(st), report);
    st = replay(dump, n - 8, "ring dump", &named, report, sizeof report);
    EXPECT(st == NG_E_STATE, "a dump cut short is read (%s); report: %s", ng_strstatus(st), report);
    /* Longer than its header says. */
    {
        unsigned char *b = calloc(1, n + 64);
        memcpy(b, dump, n);
        st = replay(b, n + 64, "records_bytes", &named, report, sizeof report);
        EXPECT(st == NG_E_PARSE && named, "64 bytes more than records_bytes: %s; report: %s", ng_strstatus(st), report);
        free(b);
    }
    free(dump);

    /* Another thread crashes while the owner is inside ng_tick. */
    const char *cli = getenv("NAVGUARD_CLI");
    char two[300];
    snprintf(two, sizeof two, "%s/tick", dir);
    mkdir(two, 0755);
    if (!cli || !*cli) {
        printf("skip: NAVGUARD_CLI is not set: the timeline of a crash on another thread is not drawn\n");
    } else {
        status = fork_child(child_other_thread_in_tick, two);
        EXPECT(!(WIFEXITED(status) && WEXITSTATUS(status) == 0), "the child crashed (status 0x%x)", status);
        EXPECT(find_dump(two, path, sizeof path), "one .ngbox in %s", two);
        char cmd[2000], log[400];
        snprintf(log, sizeof log, "%s/timeline.log", dir);
        snprintf(cmd, sizeof cmd, "'%s' timeline '%s' -o '%s/tl' > '%s' 2>&1", cli, path, dir, log);
        int rc = system(cmd);
        size_t len = 0;
        unsigned char *text = slurp(log, &len);
        if (text) text[len] = 0;
        const char *t = text ? (const char *)text : "";
        EXPECT(rc == 0, "navguard timeline: exit %d: %s", rc, t);
        EXPECT(strstr(t, "crashed (SIGSEGV) while the owner thread was inside tick") != NULL
                   && strstr(t, "may have been on another thread") != NULL && strstr(t, "crashed (SIGSEGV) inside") == NULL,
               "the headline says where the owner was, not that the crash was there: %s", t);
        free(text);
    }

    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (g_failures == 0 && system(cmd) != 0) printf("note: %s left behind\n", dir);
    printf("test_dump_reader: %d checks, %d failures\n", g_checks, g_failures);
    return g_failures ? 1 : 0;
}
