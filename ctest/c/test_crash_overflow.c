/* SPDX-License-Identifier: Apache-2.0 */
/* test_crash_overflow: a stack overflow on the thread that records with
 * NG_RECORD_CRASH_DUMP still writes the crash dump. The fault of an overflow
 * leaves no stack to run a handler on: only the alternate signal stack
 * NavGuard gives the owner thread lets it run.
 *
 * Each overflow happens in a forked child (runaway recursion, one volatile
 * 1 KiB array per frame so that no compiler turns it into a loop), which
 * records into a fresh directory; the parent checks how the child ended, that
 * one *.ngbox is there, that its header reads back (magic, signal, pid, the
 * records' bytes), and, with NAVGUARD_CLI set (ctest sets it when the tool is
 * built), that `navguard convert` reads it as a ring dump naming the crash.
 * A child that hangs is ended by alarm().
 *
 * Then the alternate stack's rules, on fresh threads of another child: when
 * it is installed and removed, its size, a host's own stack left alone,
 * NG_RECORD_CRASH_NO_HANDLER, ng_context_attach.
 *
 * Under a sanitizer its own fatal-signal handler runs after NavGuard's (the
 * child ends with the sanitizer's report, not by the signal). The sanitizers
 * give threads alternate stacks of their own (AddressSanitizer every thread,
 * ThreadSanitizer the main thread), which NavGuard leaves alone: the checks
 * that need a thread without one say they skip. */
#define _GNU_SOURCE
#include <navguard/navguard.h>

#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

#define MS 1000000LL

static char g_root[256];
static char g_dir[300];   /* the case's fresh dump_dir */
static ng_context *g_ctx;

/* ------------------------------------------------------------------------ */
/* The child: records, then recurses without end                             */
/* ------------------------------------------------------------------------ */

static volatile int g_never = 0;

__attribute__((noinline)) static int recurse(int depth) {
    volatile char frame[1024];
    frame[0] = (char)depth;
    frame[sizeof frame - 1] = (char)(depth >> 8);
    if (g_never) return frame[0];
    /* Not a tail call: the frame is read after the call returns. */
    return recurse(depth + 1) + frame[(unsigned)depth % sizeof frame];
}

static void on_outcome(void *user, ng_context *ctx, const ng_outcome *o) {
    (void)user;
    (void)ctx;
    /* UI code's runaway recursion, inside the push of "overflow-here". */
    if (o->outcome == NG_OUTCOME_APPLIED && o->request_id == 2) (void)recurse(0);
}

static void child_fail(const char *what, ng_status st) {
    fprintf(stderr, "child: %s: %s (%s)\n", what, ng_strstatus(st), ng_errmsg(g_ctx));
    _exit(3);
}

static void push(uint64_t id, const char *route) {
    ng_request r = NG_REQUEST_INIT(NG_REQ_PUSH);
    r.screen = (ng_screen){ id, route, NULL };
    ng_status st = ng_request_submit(g_ctx, &r, NULL);
    if (st != NG_OK) child_fail("ng_request_submit", st);
}

/* A context recording a ring with crash dumps into g_dir, a little session. */
static void start_recording(void) {
    ng_options o = NG_OPTIONS_INIT;
    o.clock = NG_CLOCK_MANUAL;
    o.manual_start_ns = 1000 * MS;
    o.delegate.on_outcome = on_outcome;
    ng_status st = ng_context_create(&o, &g_ctx);
    if (st != NG_OK) child_fail("ng_context_create", st);
    ng_record_options ro = NG_RECORD_OPTIONS_INIT;
    ro.ring_records = 1000;
    ro.dump_dir = g_dir;
    ro.crash = NG_RECORD_CRASH_DUMP;
    if ((st = ng_record_start(g_ctx, &ro)) != NG_OK) child_fail("ng_record_start", st);
    ng_screen home = { 1, "home", NULL };
    if ((st = ng_stack_set_root(g_ctx, &home)) != NG_OK) child_fail("ng_stack_set_root", st);
    push(2, "menu");   /* request 1 */
    ng_clock_advance(g_ctx, 5 * MS);
}

static void overflow_now(void) {
    push(3, "overflow-here");   /* request 2: its outcome recurses */
    _exit(4);                   /* not reached */
}

static void *record_and_overflow(void *arg) {
    (void)arg;
    start_recording();
    overflow_now();
    return NULL;
}

static void *attach_and_overflow(void *arg) {
    (void)arg;
    ng_status st = ng_context_attach(g_ctx);
    if (st != NG_OK) child_fail("ng_context_attach", st);
    overflow_now();
    return NULL;
}

enum where { ON_MAIN_THREAD, ON_THREAD, AFTER_ATTACH };

static void child(enum where where) {
    /* A hang ends the child; no core file; a main thread's stack that
     * overflows at 2 MiB even where `ulimit -s` is unlimited. */
    alarm(30);
    struct rlimit none = { 0, 0 };
    setrlimit(RLIMIT_CORE, &none);
    struct rlimit stack;
    if (getrlimit(RLIMIT_STACK, &stack) == 0 && (stack.rlim_cur == RLIM_INFINITY || stack.rlim_cur > (2u << 20))) {
        stack.rlim_cur = 2u << 20;
        setrlimit(RLIMIT_STACK, &stack);
    }
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, 1u << 20);
    pthread_t t;
    switch (where) {
    case ON_MAIN_THREAD:
        start_recording();
        overflow_now();
        break;
    case ON_THREAD:
        pthread_create(&t, &attr, record_and_overflow, NULL);
        pthread_join(t, NULL);
        break;
    case AFTER_ATTACH:
        /* Recording starts here; the context moves to a thread of its own
         * (a host's render thread), which overflows. */
        start_recording();
        ng_status st = ng_context_detach(g_ctx);
        if (st != NG_OK) child_fail("ng_context_detach", st);
        pthread_create(&t, &attr, attach_and_overflow, NULL);
        pthread_join(t, NULL);
        break;
    }
    _exit(5);
}

/* ------------------------------------------------------------------------ */
/* The parent                                                                */
/* ------------------------------------------------------------------------ */

static unsigned char *slurp(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *b = malloc((size_t)n + 1);
    if (b && fread(b, 1, (size_t)n, f) != (size_t)n) n = 0;
    if (b) b[n] = 0;
    fclose(f);
    if (len) *len = (size_t)n;
    return b;
}

static uint64_t le(const unsigned char *p, int n) {
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; i--) v = v << 8 | p[i];
    return v;
}

/* The one *.ngbox in g_dir (its name is not fixed here), or "". */
static int find_dumps(char *out, size_t size) {
    out[0] = 0;
    int count = 0;
    DIR *d = opendir(g_dir);
    if (!d) return 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t n = strlen(e->d_name);
        if (n > 6 && strcmp(e->d_name + n - 6, ".ngbox") == 0) {
            snprintf(out, size, "%s/%s", g_dir, e->d_name);
            count++;
        }
    }
    closedir(d);
    return count;
}

/* docs/trace-format.md, "Crash dumps": the header, then the ring's bytes. */
static void check_dump(const char *what, pid_t pid) {
    char dump[600];
    int count = find_dumps(dump, sizeof dump);
    EXPECT(count == 1, "%s: one crash dump (*.ngbox) in %s, found %d", what, g_dir, count);
    if (!dump[0]) return;
    size_t n = 0;
    unsigned char *b = slurp(dump, &n);
    EXPECT(b && n > 128 && memcmp(b, "NGBBOX01", 8) == 0, "%s: %s is a crash dump (%zu bytes)", what, dump, n);
    if (b && n > 128) {
        EXPECT(le(b + 16, 4) == SIGSEGV, "%s: signal %u, expected SIGSEGV", what, (unsigned)le(b + 16, 4));
        EXPECT(le(b + 24, 8) == (uint64_t)pid, "%s: pid %llu, expected %d", what, (unsigned long long)le(b + 24, 8), (int)pid);
        uint64_t bytes = le(b + 104, 8);
        EXPECT(bytes > 0 && le(b + 8, 4) + bytes == n, "%s: %llu bytes of records after the header, file %zu bytes",
               what, (unsigned long long)bytes, n);
    }
    free(b);

    const char *cli = getenv("NAVGUARD_CLI");
    if (!cli || !*cli) {
        printf("skip: NAVGUARD_CLI is not set: %s not converted\n", dump);
        return;
    }
    char out[700], cmd[4096];
    snprintf(out, sizeof out, "%s/trace.jsonl", g_dir);
    snprintf(cmd, sizeof cmd, "'%s' convert '%s' -o '%s' > '%s.log' 2>&1", cli, dump, out, out);
    int rc = system(cmd);
    char *trace = (char *)slurp(out, NULL);
    EXPECT(rc == 0 && trace && strncmp(trace, "{\"navguard_trace\":1,", 20) == 0 && strstr(trace, "\"start\":\"ring\"") &&
               strstr(trace, "\"crash\":{") && strstr(trace, "overflow-here"),
           "%s: navguard convert reads %s as a ring dump of the crash in the push of overflow-here (exit %d, see %s.log)",
           what, dump, rc, out);
    free(trace);
}

static void overflow_case(const char *what, enum where where) {
    snprintf(g_dir, sizeof g_dir, "%s/%d", g_root, (int)where);
    mkdir(g_dir, 0755);
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) child(where);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM) {
        EXPECT(0, "%s: the child hung (ended by alarm)", what);
        return;
    }
    if (!SANITIZED) {
        EXPECT(WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV, "%s: the child was killed by SIGSEGV (status 0x%x)", what,
               status);
    } else {
        EXPECT(!(WIFEXITED(status) && WEXITSTATUS(status) == 0), "%s: the child did not end cleanly (status 0x%x)", what,
               status);
    }
    check_dump(what, pid);
}

/* ------------------------------------------------------------------------ */
/* The alternate stack's rules (in a child: its handlers stay installed)     */
/* ------------------------------------------------------------------------ */

static stack_t current_stack(void) {
    stack_t ss;
    memset(&ss, 0, sizeof ss);
    sigaltstack(NULL, &ss);
    return ss;
}

static bool has_stack(void) { return !(current_stack().ss_flags & SS_DISABLE); }

static ng_context *recording(uint32_t crash) {
    ng_context *ctx = NULL;
    ng_options o = NG_OPTIONS_INIT;
    MUST(NULL, ng_context_create(&o, &ctx));
    ng_record_options ro = NG_RECORD_OPTIONS_INIT;
    ro.ring_records = 100;
    ro.dump_dir = g_dir;
    ro.crash = crash;
    MUST(ctx, ng_record_start(ctx, &ro));
    return ctx;
}

static bool g_skip_noted = false;

/* A fresh thread has no alternate stack, except under ASan. */
static bool fresh_thread_has_none(void) {
    if (!has_stack()) return true;
    if (!g_skip_noted) printf("skip: this thread already has an alternate stack (a sanitizer's): the rules for a thread "
                              "without one are not checked\n");
    g_skip_noted = true;
    return false;
}

static void *rules_installed_and_removed(void *arg) {
    (void)arg;
    if (!fresh_thread_has_none()) {
        /* NavGuard leaves the thread's own stack alone. */
        stack_t before = current_stack();
        ng_context *ctx = recording(NG_RECORD_CRASH_DUMP);
        EXPECT(current_stack().ss_sp == before.ss_sp, "a thread's own alternate stack is kept");
        MUST(ctx, ng_context_destroy(ctx));
        EXPECT(current_stack().ss_sp == before.ss_sp && has_stack(), "and not removed");
        return NULL;
    }
    ng_context *a = recording(NG_RECORD_CRASH_DUMP);
    stack_t ss = current_stack();
    EXPECT(has_stack(), "ng_record_start with NG_RECORD_CRASH_DUMP gives the thread an alternate stack");
    size_t want = 64 << 10;
#ifdef _SC_SIGSTKSZ
    if (sysconf(_SC_SIGSTKSZ) > (long)want) want = (size_t)sysconf(_SC_SIGSTKSZ);
#endif
    EXPECT(ss.ss_size >= want, "the stack has %zu bytes, at least %zu", ss.ss_size, want);
    printf("note: NavGuard's alternate stack: %zu bytes (sysconf(_SC_SIGSTKSZ) %ld)\n", ss.ss_size,
#ifdef _SC_SIGSTKSZ
           sysconf(_SC_SIGSTKSZ)
#else
           -1L
#endif
    );
    /* A second ring on the thread shares it; the last one out removes it. */
    ng_context *b = recording(NG_RECORD_CRASH_DUMP);
    EXPECT(current_stack().ss_sp == ss.ss_sp, "a second ring on the thread shares the stack");
    MUST(a, ng_record_stop(a));
    EXPECT(current_stack().ss_sp == ss.ss_sp && has_stack(), "the stack stays while a ring on the thread holds it");
    MUST(b, ng_context_destroy(b));
    EXPECT(!has_stack(), "destroying the last recording context removes the stack");
    /* Recording again installs it again; ng_record_stop removes it. */
    MUST(a, ng_record_start(a, &(ng_record_options){ .size = sizeof(ng_record_options), .ring_records = 100,
                                                     .dump_dir = g_dir, .crash = NG_RECORD_CRASH_DUMP }));
    EXPECT(has_stack(), "a new recording installs it again");
    MUST(a, ng_record_stop(a));
    EXPECT(!has_stack(), "ng_record_stop removes it");
    /* A ring without crash dumps, or with the host's own handler: none. */
    MUST(a, ng_record_start(a, &(ng_record_options){ .size = sizeof(ng_record_options), .ring_records = 100 }));
    EXPECT(!has_stack(), "no alternate stack without NG_RECORD_CRASH_DUMP");
    MUST(a, ng_record_stop(a));
    ng_context *c = recording(NG_RECORD_CRASH_DUMP | NG_RECORD_CRASH_NO_HANDLER);
    EXPECT(!has_stack(), "no alternate stack with NG_RECORD_CRASH_NO_HANDLER (the host's handler, the host's stack)");
    MUST(c, ng_context_destroy(c));
    MUST(a, ng_context_destroy(a));
    return NULL;
}

static void *rules_host_stack(void *arg) {
    (void)arg;
    if (!fresh_thread_has_none()) return NULL;
    /* The host's own stack, set before recording: kept, and not removed. */
    stack_t host;
    memset(&host, 0, sizeof host);
    host.ss_size = 128 << 10;
    host.ss_sp = malloc(host.ss_size);
    EXPECT(sigaltstack(&host, NULL) == 0, "the host sets its own alternate stack");
    ng_context *a = recording(NG_RECORD_CRASH_DUMP);
    EXPECT(current_stack().ss_sp == host.ss_sp, "the host's stack is kept at ng_record_start");
    MUST(a, ng_record_stop(a));
    EXPECT(current_stack().ss_sp == host.ss_sp && has_stack(), "and not removed at ng_record_stop");
    /* The host replaces NavGuard's stack while recording: its own is left. */
    stack_t off = { .ss_flags = SS_DISABLE };
    sigaltstack(&off, NULL);
    MUST(a, ng_record_start(a, &(ng_record_options){ .size = sizeof(ng_record_options), .ring_records = 100,
                                                     .dump_dir = g_dir, .crash = NG_RECORD_CRASH_DUMP }));
    EXPECT(has_stack() && current_stack().ss_sp != host.ss_sp, "NavGuard's stack is installed");
    EXPECT(sigaltstack(&host, NULL) == 0, "the host replaces it");
    MUST(a, ng_context_destroy(a));
    EXPECT(current_stack().ss_sp == host.ss_sp && has_stack(), "the host's replacement stays at destroy");
    sigaltstack(&off, NULL);
    free(host.ss_sp);
    return NULL;
}

static ng_context *g_moving;
static stack_t g_first_stack;

static void *rules_attach_second(void *arg) {
    (void)arg;
    if (!fresh_thread_has_none()) return NULL;
    MUST(NULL, ng_context_attach(g_moving));
    EXPECT(has_stack() && current_stack().ss_sp != g_first_stack.ss_sp,
           "ng_context_attach gives the new owner thread its own alternate stack");
    MUST(g_moving, ng_record_stop(g_moving));
    EXPECT(!has_stack(), "ng_record_stop on the new owner thread removes it");
    MUST(g_moving, ng_context_detach(g_moving));
    return NULL;
}

static void *rules_attach(void *arg) {
    (void)arg;
    if (!fresh_thread_has_none()) return NULL;
    g_moving = recording(NG_RECORD_CRASH_DUMP);
    g_first_stack = current_stack();
    MUST(g_moving, ng_context_detach(g_moving));
    pthread_t t;
    pthread_create(&t, NULL, rules_attach_second, NULL);
    pthread_join(t, NULL);
    /* The first thread's stack is the kernel's to use until this thread ends
     * (NavGuard cannot take it away from another thread): it is still set. */
    EXPECT(current_stack().ss_sp == g_first_stack.ss_sp && has_stack(), "the first owner thread keeps its stack");
    MUST(NULL, ng_context_attach(g_moving));
    MUST(g_moving, ng_context_destroy(g_moving));
    return NULL;
}

static void rules(void) {
    snprintf(g_dir, sizeof g_dir, "%s/rules", g_root);
    mkdir(g_dir, 0755);
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        alarm(30);
        void *(*each[])(void *) = { rules_installed_and_removed, rules_host_stack, rules_attach };
        for (size_t i = 0; i < sizeof each / sizeof each[0]; i++) {
            pthread_t t;
            pthread_create(&t, NULL, each[i], NULL);
            pthread_join(t, NULL);
        }
        printf("child: %d checks, %d failures\n", g_checks, g_failures);
        fflush(NULL);
        _exit(g_failures ? 1 : 0);
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the alternate stack's rules (status 0x%x; see above)", status);
}

int main(void) {
    snprintf(g_root, sizeof g_root, "/tmp/navguard-overflow-test-%d", (int)getpid());
    mkdir(g_root, 0755);
    if (has_stack()) {
        printf("note: the main thread already has an alternate stack (a sanitizer's): its overflow case would pass "
               "without NavGuard's own\n");
    }

    overflow_case("overflow on the main thread", ON_MAIN_THREAD);
    overflow_case("overflow on a thread that records", ON_THREAD);
    overflow_case("overflow on the thread the context was attached to", AFTER_ATTACH);
    rules();

    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_root);
    if (g_failures == 0 && system(cmd) != 0) printf("note: %s left behind\n", g_root);
    printf("test_crash_overflow: %d checks, %d failures\n", g_checks, g_failures);
    return g_failures ? 1 : 0;
}
