/* SPDX-License-Identifier: Apache-2.0 */
/* test_crash_dump: a host that crashes while its flight recorder runs in
 * ring mode with NG_RECORD_CRASH_DUMP. Each case forks a child that records
 * and then crashes on purpose; the parent checks how the child ended (the
 * handler in place before NavGuard's still ran: the host's crash reporter,
 * or the default action), that the dump is in dump_dir, and, with
 * NAVGUARD_CLI set (ctest sets it), that `navguard timeline` draws the dump's
 * last records and names the crash; `navguard convert` turns it into a trace.
 *
 * Under a sanitizer (its own fatal-signal handlers come first) a child's
 * exit is only required not to be a clean one. */
#define _GNU_SOURCE
#include <navguard/navguard.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

#define MS 1000000LL

static char g_dir[256];
static ng_context *g_ctx;
static const char *g_crash_route = "crash-here";

/* ------------------------------------------------------------------------ */
/* The child: a kiosk that records, then crashes                             */
/* ------------------------------------------------------------------------ */

enum how { SEGV_IN_CALLBACK, ABORT_IN_CALLBACK, SEGV_ON_OTHER_THREAD };

static volatile enum how g_how;

static void crash_now(void) {
    if (g_how == ABORT_IN_CALLBACK) abort();
    /* A write through a null pointer, as a host's bug would. */
    volatile int *volatile nowhere = NULL;
    *nowhere = 1;
}

static void on_outcome(void *user, ng_context *ctx, const ng_outcome *o) {
    (void)user;
    (void)ctx;
    /* The crash is inside the submit of the screen named g_crash_route. */
    if (o->outcome == NG_OUTCOME_APPLIED && o->request_id == 3) crash_now();
}

static void child_fail(const char *what, ng_status st) {
    fprintf(stderr, "child: %s: %s (%s)\n", what, ng_strstatus(st), ng_errmsg(g_ctx));
    _exit(3);
}

static void touch(int32_t phase, uint64_t id, double x, double y) {
    ng_event e = NG_EVENT_INIT(NG_EVENT_TOUCH);
    e.phase = phase;
    e.touch_id = id;
    e.x = x;
    e.y = y;
    ng_status st = ng_event_submit(g_ctx, &e, NULL);
    if (st != NG_OK) child_fail("ng_event_submit", st);
}

static void push(uint64_t id, const char *route) {
    ng_request r = NG_REQUEST_INIT(NG_REQ_PUSH);
    r.screen = (ng_screen){ id, route, NULL };
    ng_status st = ng_request_submit(g_ctx, &r, NULL);
    if (st != NG_OK) child_fail("ng_request_submit", st);
}

static void *crash_later(void *arg) {
    (void)arg;
    struct timespec ts = { 0, 50 * MS };
    nanosleep(&ts, NULL);
    crash_now();
    return NULL;
}

/* Record a little session (a root, a push, taps, many moves so the ring
 * wraps), then crash as asked. */
static void child(enum how how, uint32_t crash_flags, uint32_t ring_records) {
    g_how = how;
    ng_options o = NG_OPTIONS_INIT;
    o.clock = NG_CLOCK_MANUAL;
    o.manual_start_ns = 1000 * MS;
    o.delegate.on_outcome = on_outcome;
    ng_status st = ng_context_create(&o, &g_ctx);
    if (st != NG_OK) child_fail("ng_context_create", st);
    ng_record_options ro = NG_RECORD_OPTIONS_INIT;
    ro.ring_records = ring_records;
    ro.dump_dir = g_dir;
    ro.crash = crash_flags;
    if ((st = ng_record_start(g_ctx, &ro)) != NG_OK) child_fail("ng_record_start", st);
    ng_view v = NG_VIEW_INIT;
    v.id = 7;
    v.frame = (ng_rect){ 0, 0, 800, 600 };
    if ((st = ng_view_set(g_ctx, &v)) != NG_OK) child_fail("ng_view_set", st);
    ng_screen home = { 1, "home", NULL };
    if ((st = ng_stack_set_root(g_ctx, &home)) != NG_OK) child_fail("ng_stack_set_root", st);
    push(2, "menu");   /* request 1 */
    for (int i = 0; i < 3000; i++) {
        ng_clock_advance(g_ctx, MS);
        touch(NG_TOUCH_BEGAN, 5, 10, 10);
        for (int k = 0; k < 5; k++) touch(NG_TOUCH_MOVED, 5, 10 + k, 10);
        touch(NG_TOUCH_ENDED, 5, 15, 10);
    }
    push(3, "item");   /* request 2 */
    if (how == SEGV_ON_OTHER_THREAD) {
        pthread_t t;
        pthread_create(&t, NULL, crash_later, NULL);
        /* The owner keeps recording while another thread crashes. */
        for (;;) {
            ng_clock_advance(g_ctx, MS);
            touch(NG_TOUCH_BEGAN, 6, 10, 10);
            touch(NG_TOUCH_ENDED, 6, 10, 10);
        }
    }
    push(4, g_crash_route);   /* request 3: its outcome crashes */
    _exit(4);                 /* not reached */
}

/* The host's own crash reporter: what was in place before NavGuard's. */
static void host_reporter(int sig) {
    char path[300];
    snprintf(path, sizeof path, "%s/host-reporter-ran", g_dir);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) close(fd);
    _exit(40 + (sig == SIGABRT ? 2 : 0));
}

/* A host whose own handler calls NavGuard (NG_RECORD_CRASH_NO_HANDLER). */
static void host_handler_calls_navguard(int sig) {
    ng_status st = ng_record_crash_dump(sig);
    _exit(st == NG_OK ? 43 : 44);
}

static void set_handler(int sig, void (*h)(int)) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = h;
    sigemptyset(&sa.sa_mask);
    sigaction(sig, &sa, NULL);
}

/* ------------------------------------------------------------------------ */
/* The parent                                                                */
/* ------------------------------------------------------------------------ */

/* The dump the child `pid` left, or "" when there is none. */
static void find_dump(pid_t pid, char *out, size_t size) {
    out[0] = 0;
    char prefix[64];
    snprintf(prefix, sizeof prefix, "navguard-%d-", (int)pid);
    DIR *d = opendir(g_dir);
    if (!d) return;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t n = strlen(e->d_name);
        if (strncmp(e->d_name, prefix, strlen(prefix)) == 0 && n > 12 && strcmp(e->d_name + n - 12, "-crash.ngbox") == 0) {
            snprintf(out, size, "%s/%s", g_dir, e->d_name);
        }
    }
    closedir(d);
}

static char *slurp(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = malloc((size_t)n + 1);
    if (b && fread(b, 1, (size_t)n, f) != (size_t)n) n = 0;
    if (b) b[n] = 0;
    fclose(f);
    if (len) *len = (size_t)n;
    return b;
}

static uint32_t le32(const unsigned char *p) { return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24; }

/* The dump's header: its magic, the signal, the pid. */
static void check_header(const char *path, int sig, pid_t pid) {
    size_t n = 0;
    unsigned char *b = (unsigned char *)slurp(path, &n);
    EXPECT(b && n > 128 && memcmp(b, "NGBBOX01", 8) == 0, "%s: a crash dump (%zu bytes)", path, n);
    if (b && n > 128) {
        EXPECT(le32(b + 16) == (uint32_t)sig, "%s: signal %u, expected %d", path, le32(b + 16), sig);
        EXPECT(le32(b + 24) == (uint32_t)pid, "%s: pid %u, expected %d", path, le32(b + 24), (int)pid);
    }
    free(b);
}

/* `navguard timeline DUMP` draws it: the records before the crash are there. */
static void check_timeline(const char *dump, const char *name, const char *const *must) {
    const char *cli = getenv("NAVGUARD_CLI");
    if (!cli || !*cli) {
        printf("skip: NAVGUARD_CLI is not set: %s not drawn\n", dump);
        return;
    }
    char out[400], cmd[1400];
    snprintf(out, sizeof out, "%s/%s", g_dir, name);
    snprintf(cmd, sizeof cmd, "'%s' timeline '%s' -o '%s' > '%s.log' 2>&1", cli, dump, out, out);
    int rc = system(cmd);
    EXPECT(rc == 0, "navguard timeline %s: exit %d (see %s.log)", dump, rc, out);
    char html[420];
    snprintf(html, sizeof html, "%s.html", out);
    char *page = slurp(html, NULL);
    EXPECT(page != NULL, "%s written", html);
    for (int i = 0; page && must[i]; i++) EXPECT(strstr(page, must[i]) != NULL, "%s: has %s", html, must[i]);
    free(page);
    snprintf(cmd, sizeof cmd, "'%s' convert '%s' -o '%s.jsonl' 2>/dev/null", cli, dump, out);
    rc = system(cmd);
    char jsonl[420];
    snprintf(jsonl, sizeof jsonl, "%s.jsonl", out);
    char *trace = slurp(jsonl, NULL);
    EXPECT(rc == 0 && trace && strncmp(trace, "{\"navguard_trace\":1,", 20) == 0 && strstr(trace, "\"start\":\"ring\"")
               && strstr(trace, "\"crash\":{"), "navguard convert %s: a ring dump naming the crash", dump);
    free(trace);
}

static int run_child(enum how how, uint32_t flags, uint32_t records, void (*previous)(int), int sig, pid_t *out_pid) {
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        if (previous) set_handler(sig, previous);
        child(how, flags, records);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    *out_pid = pid;
    return status;
}

int main(void) {
    snprintf(g_dir, sizeof g_dir, "/tmp/navguard-crash-test-%d", (int)getpid());
    mkdir(g_dir, 0755);
    char dump[512];
    pid_t pid;

    /* 1. The host's crash reporter was there first: NavGuard's handler
     *    writes the dump, then the host's runs (it exits 40). */
    int status = run_child(SEGV_IN_CALLBACK, NG_RECORD_CRASH_DUMP, 500, host_reporter, SIGSEGV, &pid);
    if (!SANITIZED) {
        EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == 40, "the host's reporter ran after NavGuard's handler (status 0x%x)", status);
        char marker[300];
        snprintf(marker, sizeof marker, "%s/host-reporter-ran", g_dir);
        EXPECT(access(marker, F_OK) == 0, "the host's reporter ran");
        unlink(marker);
    } else {
        EXPECT(!(WIFEXITED(status) && WEXITSTATUS(status) == 0), "the child did not end cleanly (status 0x%x)", status);
    }
    find_dump(pid, dump, sizeof dump);
    EXPECT(dump[0], "a SIGSEGV inside on_outcome left a dump in %s", g_dir);
    if (dump[0]) {
        check_header(dump, SIGSEGV, pid);
        /* The last records: the crashing push's call (no ret: the process
         * died in it) and the outcome callback it died in; the screens named
         * by the ring's checkpoint ("menu" was pushed thousands of records
         * before the 500 the ring keeps). */
        const char *const must[] = { "crash-here", "crashed (SIGSEGV)", "inside submit", "Crash dump", "touch 5", "menu", NULL };
        check_timeline(dump, "segv", must);
    }

    /* 2. Nothing was there before: the process ends by the signal, as
     *    without NavGuard. */
    status = run_child(SEGV_IN_CALLBACK, NG_RECORD_CRASH_DUMP, 100000, NULL, 0, &pid);
    if (!SANITIZED) EXPECT(WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV, "killed by SIGSEGV (status 0x%x)", status);
    find_dump(pid, dump, sizeof dump);
    EXPECT(dump[0], "a dump with the default action");
    if (dump[0]) check_header(dump, SIGSEGV, pid);

    /* 3. NG_RECORD_CRASH_NO_HANDLER: the host's own handler calls
     *    ng_record_crash_dump (an abort). */
    status = run_child(ABORT_IN_CALLBACK, NG_RECORD_CRASH_DUMP | NG_RECORD_CRASH_NO_HANDLER, 500,
                       host_handler_calls_navguard, SIGABRT, &pid);
    EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == 43, "the host's handler called ng_record_crash_dump: NG_OK (status 0x%x)", status);
    find_dump(pid, dump, sizeof dump);
    EXPECT(dump[0], "ng_record_crash_dump wrote the dump");
    if (dump[0]) {
        check_header(dump, SIGABRT, pid);
        const char *const must[] = { "crash-here", "crashed (SIGABRT)", NULL };
        check_timeline(dump, "abort", must);
    }

    /* 4. Another thread crashes while the owner records: the owner stops
     *    at its next record, the dump is whole. */
    status = run_child(SEGV_ON_OTHER_THREAD, NG_RECORD_CRASH_DUMP, 2000, NULL, 0, &pid);
    if (!SANITIZED) EXPECT(WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV, "killed by SIGSEGV (status 0x%x)", status);
    find_dump(pid, dump, sizeof dump);
    EXPECT(dump[0], "a dump when another thread crashed");
    if (dump[0]) {
        check_header(dump, SIGSEGV, pid);
        const char *const must[] = { "crashed (SIGSEGV)", "touch 6", NULL };
        check_timeline(dump, "thread", must);
    }

    /* 5. A ring that did not opt in leaves nothing. */
    status = run_child(SEGV_IN_CALLBACK, 0, 500, NULL, 0, &pid);
    find_dump(pid, dump, sizeof dump);
    EXPECT(!dump[0], "no dump without NG_RECORD_CRASH_DUMP: %s", dump);

    /* 6. The options: a crash dump needs a ring; unknown bits are refused;
     *    with no ring opted in, ng_record_crash_dump has nothing to do. */
    ng_context *ctx = NULL;
    ng_options o = NG_OPTIONS_INIT;
    MUST(NULL, ng_context_create(&o, &ctx));
    ng_record_options ro = NG_RECORD_OPTIONS_INIT;
    ro.path = "/dev/null";
    ro.crash = NG_RECORD_CRASH_DUMP;
    EXPECT_ST(ctx, ng_record_start(ctx, &ro), NG_E_RANGE);
    ro.path = NULL;
    ro.ring_records = 10;
    ro.crash = 0x80;
    EXPECT_ST(ctx, ng_record_start(ctx, &ro), NG_E_RANGE);
    ro.crash = NG_RECORD_CRASH_NO_HANDLER;
    EXPECT_ST(ctx, ng_record_start(ctx, &ro), NG_E_RANGE);
    /* A 0.2 host's struct, without `crash`, is read as before. */
    ro.size = NG_RECORD_OPTIONS_MIN_SIZE;
    ro.crash = 0x80;
    EXPECT_ST(ctx, ng_record_start(ctx, &ro), NG_OK);
    MUST(ctx, ng_record_stop(ctx));
    ro.size = NG_RECORD_OPTIONS_MIN_SIZE - 4;
    EXPECT_ST(ctx, ng_record_start(ctx, &ro), NG_E_SIZE);
    MUST(ctx, ng_context_destroy(ctx));

    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
    if (g_failures == 0 && system(cmd) != 0) printf("note: %s left behind\n", g_dir);
    printf("test_crash_dump: %d checks, %d failures\n", g_checks, g_failures);
    return g_failures ? 1 : 0;
}
