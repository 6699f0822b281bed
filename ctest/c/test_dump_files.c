/* SPDX-License-Identifier: Apache-2.0 */
/* test_dump_files: the flight recorder's files, where another user, a
 * mistake or a long unattended run puts something in the way (issue 26):
 *  - a FIFO or a symbolic link planted at a crash dump's old, predictable
 *    name: the crashed process still ends (no hang in open) and the link's
 *    target is left alone; the dump is in a new file of its own;
 *  - the same at a report dump's old name;
 *  - ng_record_start with `path` a FIFO, a link, a directory: NG_E_IO and a
 *    message naming the path and why, no hang; a regular file is
 *    truncated; /dev/null is accepted;
 *  - ng_record_dump to a FIFO, a link, an existing file: NG_E_IO ("exists"),
 *    nothing opened or overwritten; to a new name: the ring as a trace;
 *  - the budget of report dumps: past `report_dumps` per window the report
 *    is delivered and says no dump was written; the window passes and dumps
 *    resume; `dump_dir_bytes` removes the oldest report dumps (never a
 *    crash dump, never another file); report dumps are .ngbox files with
 *    signal -1.
 * Each FIFO case is under alarm(): before the fix they blocked for ever. */
#define _GNU_SOURCE
#include <navguard/navguard.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
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
static const char *g_victim_text = "precious: not a dump\n";

static void on_alarm(int sig) {
    (void)sig;
    static const char msg[] = "FAIL test_dump_files: a call blocked (a FIFO was opened blocking)\n";
    ssize_t n = write(2, msg, sizeof msg - 1);
    (void)n;
    _exit(2);
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

static void write_text(const char *path, const char *text) {
    FILE *f = fopen(path, "wb");
    if (!f) {
        perror(path);
        exit(1);
    }
    fputs(text, f);
    fclose(f);
}

static int victim_intact(const char *victim) {
    char *t = slurp(victim, NULL);
    int ok = t && strcmp(t, g_victim_text) == 0;
    free(t);
    return ok;
}

/* Files of g_dir whose name begins with `prefix` and ends with `suffix`. */
static int count_files(const char *prefix, const char *suffix, char *last, size_t size) {
    int n = 0;
    DIR *d = opendir(g_dir);
    if (!d) return 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t len = strlen(e->d_name), sl = strlen(suffix);
        if (strncmp(e->d_name, prefix, strlen(prefix)) == 0 && len >= sl && strcmp(e->d_name + len - sl, suffix) == 0) {
            struct stat st;
            char p[600];
            snprintf(p, sizeof p, "%s/%s", g_dir, e->d_name);
            if (lstat(p, &st) == 0 && S_ISREG(st.st_mode)) {
                n++;
                if (last) snprintf(last, size, "%s", p);
            }
        }
    }
    closedir(d);
    return n;
}

typedef struct {
    int reports;
    int dumped;
    int refused;
    char last[2048];
} host;

static void on_report(void *user, ng_context *ctx, const char *guard_id, const char *text) {
    (void)ctx;
    (void)guard_id;
    host *h = user;
    h->reports++;
    snprintf(h->last, sizeof h->last, "%s", text);
    if (strstr(text, "flight recorder: the last records (")) h->dumped++;
    if (strstr(text, "flight recorder: no dump written: ")) h->refused++;
}

static ng_context *kiosk(host *h) {
    ng_options o = NG_OPTIONS_INIT;
    o.clock = NG_CLOCK_MANUAL;
    o.manual_start_ns = 1000 * MS;
    o.delegate.user = h;
    o.delegate.on_report = on_report;
    ng_context *ctx = NULL;
    MUST(NULL, ng_context_create(&o, &ctx));
    MUST(ctx, ng_chain_configure(ctx, "{\"guards\":[{\"id\":\"org.navguard.watchdog\","
                                      "\"config\":{\"transition_limit_ms\":50}}]}"));
    ng_screen root = { 1, "home", NULL };
    MUST(ctx, ng_stack_set_root(ctx, &root));
    return ctx;
}

/* A push whose transition never finishes: the watchdog forces it and
 * reports (one report each). */
static void stuck_push(ng_context *ctx, uint64_t id) {
    ng_request r = NG_REQUEST_INIT(NG_REQ_PUSH);
    r.flags = NG_REQF_ANIMATED;
    r.screen.id = id;
    r.screen.route = "stuck";
    MUST(ctx, ng_request_submit(ctx, &r, NULL));
    MUST(ctx, ng_clock_advance(ctx, 100 * MS));
    MUST(ctx, ng_tick(ctx));
}

/* Plant `what` ('f' a FIFO, 'l' a link to `victim`) at every name a
 * context slot 0..7 of process `pid` would have used before the fix. */
static void plant(char what, pid_t pid, const char *fmt, const char *victim) {
    for (int slot = 0; slot < 8; slot++) {
        char name[128], p[600];
        snprintf(name, sizeof name, fmt, (int)pid, slot);
        snprintf(p, sizeof p, "%s/%s", g_dir, name);
        unlink(p);
        int rc = what == 'f' ? mkfifo(p, 0666) : symlink(victim, p);
        if (rc != 0) perror(p);
    }
}

static void unplant(pid_t pid, const char *fmt) {
    for (int slot = 0; slot < 8; slot++) {
        char name[128], p[600];
        snprintf(name, sizeof name, fmt, (int)pid, slot);
        snprintf(p, sizeof p, "%s/%s", g_dir, name);
        unlink(p);
    }
}

/* ------------------------------------------------------------------------ */
/* 1. Crash dumps: a FIFO or a link at the old name                          */
/* ------------------------------------------------------------------------ */

static void crash_child(int pipe_fd) {
    /* Wait for the parent to plant (it knows the pid only now). */
    char go;
    if (read(pipe_fd, &go, 1) != 1) _exit(5);
    host h = { 0 };
    ng_context *ctx = kiosk(&h);
    ng_record_options ro = NG_RECORD_OPTIONS_INIT;
    ro.ring_records = 500;
    ro.dump_dir = g_dir;
    ro.crash = NG_RECORD_CRASH_DUMP;
    if (ng_record_start(ctx, &ro) != NG_OK) _exit(6);
    stuck_push(ctx, 2);
    volatile int *volatile nowhere = NULL;
    *nowhere = 1;
    _exit(7);
}

static void crash_case(char what) {
    char victim[400];
    snprintf(victim, sizeof victim, "%s/victim-crash", g_dir);
    write_text(victim, g_victim_text);
    int p[2];
    if (pipe(p) != 0) exit(1);
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        close(p[1]);
        alarm(20);   /* a child stuck in open() ends here, with SIGALRM */
        crash_child(p[0]);
    }
    close(p[0]);
    plant(what, pid, "navguard-%d-%d-crash.ngbox", victim);
    if (write(p[1], "g", 1) != 1) exit(1);
    close(p[1]);
    int status = 0;
    waitpid(pid, &status, 0);
    /* Under a sanitizer its own handler runs after NavGuard's and ends the
     * child with its report (ASan exits 1, TSan 66): not stuck either. */
    bool ended = (WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV) ||
                 (SANITIZED && WIFEXITED(status) && WEXITSTATUS(status) != 0 && WEXITSTATUS(status) != 7);
    EXPECT(ended,
           "%s planted: the crashed child ended by its SIGSEGV, not stuck in open() (status 0x%x%s)",
           what == 'f' ? "a FIFO" : "a link", status,
           WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM ? ": SIGALRM, it hung" : "");
    EXPECT(victim_intact(victim), "a link at the crash dump's name: its target %s was not overwritten", victim);
    char prefix[64], dump[600] = "";
    snprintf(prefix, sizeof prefix, "navguard-%d-", (int)pid);
    EXPECT(count_files(prefix, "-crash.ngbox", dump, sizeof dump) == 1, "the crash dump is in a new file of its own");
    size_t n = 0;
    unsigned char *b = (unsigned char *)(dump[0] ? slurp(dump, &n) : NULL);
    EXPECT(b && n > 128 && memcmp(b, "NGBBOX01", 8) == 0 && b[16] == SIGSEGV, "%s: a crash dump", dump);
    free(b);
    if (dump[0]) unlink(dump);
    unplant(pid, "navguard-%d-%d-crash.ngbox");
    unlink(victim);
}

/* ------------------------------------------------------------------------ */
/* 2. ng_record_start and ng_record_dump: what the host names                */
/* ------------------------------------------------------------------------ */

static void host_paths(void) {
    host h = { 0 };
    ng_context *ctx = kiosk(&h);
    char fifo[400], link[400], victim[400], file[400], fresh[400];
    snprintf(fifo, sizeof fifo, "%s/a-fifo", g_dir);
    snprintf(link, sizeof link, "%s/a-link", g_dir);
    snprintf(victim, sizeof victim, "%s/victim-host", g_dir);
    snprintf(file, sizeof file, "%s/existing.jsonl", g_dir);
    snprintf(fresh, sizeof fresh, "%s/fresh.jsonl", g_dir);
    write_text(victim, g_victim_text);
    if (mkfifo(fifo, 0666) != 0 || symlink(victim, link) != 0) {
        perror("mkfifo/symlink");
        exit(1);
    }

    ng_record_options ro = NG_RECORD_OPTIONS_INIT;
    alarm(10);
    ro.path = fifo;
    EXPECT_ST(ctx, ng_record_start(ctx, &ro), NG_E_IO);
    EXPECT(strstr(ng_errmsg(ctx), fifo) && strstr(ng_errmsg(ctx), "FIFO"), "names the path and why: %s", ng_errmsg(ctx));
    ro.path = link;
    EXPECT_ST(ctx, ng_record_start(ctx, &ro), NG_E_IO);
    EXPECT(strstr(ng_errmsg(ctx), link) && strstr(ng_errmsg(ctx), "symbolic link"), "a link: %s", ng_errmsg(ctx));
    EXPECT(victim_intact(victim), "ng_record_start(path: a link) left its target alone");
    ro.path = g_dir;
    EXPECT_ST(ctx, ng_record_start(ctx, &ro), NG_E_IO);
    EXPECT(strstr(ng_errmsg(ctx), "directory"), "a directory: %s", ng_errmsg(ctx));
    alarm(0);
    /* The host's own regular file: truncated, as before. */
    write_text(file, "old contents that must go\n");
    ro.path = file;
    MUST(ctx, ng_record_start(ctx, &ro));
    MUST(ctx, ng_record_stop(ctx));
    char *t = slurp(file, NULL);
    EXPECT(t && strncmp(t, "{\"navguard_trace\":1,", 20) == 0 && !strstr(t, "old contents"), "an existing file is truncated");
    free(t);
    ro.path = "/dev/null";
    EXPECT_ST(ctx, ng_record_start(ctx, &ro), NG_OK);
    MUST(ctx, ng_record_stop(ctx));

    /* ng_record_dump writes a new file only. */
    ro.path = NULL;
    ro.ring_records = 100;
    MUST(ctx, ng_record_start(ctx, &ro));
    alarm(10);
    EXPECT_ST(ctx, ng_record_dump(ctx, fifo), NG_E_IO);
    EXPECT(strstr(ng_errmsg(ctx), "exists"), "a FIFO: %s", ng_errmsg(ctx));
    alarm(0);
    EXPECT_ST(ctx, ng_record_dump(ctx, link), NG_E_IO);
    EXPECT(victim_intact(victim), "ng_record_dump(a link) left its target alone");
    EXPECT_ST(ctx, ng_record_dump(ctx, file), NG_E_IO);
    EXPECT(strstr(ng_errmsg(ctx), file) && strstr(ng_errmsg(ctx), "exists"), "an existing file: %s", ng_errmsg(ctx));
    char nodir[400];
    snprintf(nodir, sizeof nodir, "%s/no-such-dir/x.jsonl", g_dir);
    EXPECT_ST(ctx, ng_record_dump(ctx, nodir), NG_E_IO);
    EXPECT_ST(ctx, ng_record_dump(ctx, fresh), NG_OK);
    t = slurp(fresh, NULL);
    EXPECT(t && strstr(t, "\"start\":\"ring\""), "ng_record_dump to a new name: the ring as a trace");
    free(t);
    EXPECT_ST(ctx, ng_record_dump(ctx, fresh), NG_E_IO);
    MUST(ctx, ng_record_stop(ctx));
    MUST(ctx, ng_context_destroy(ctx));
    EXPECT(strstr(ng_strstatus(NG_E_IO), "NG_E_IO") != NULL, "ng_strstatus(NG_E_IO): %s", ng_strstatus(NG_E_IO));
    unlink(fifo);
    unlink(link);
    unlink(victim);
    unlink(file);
    unlink(fresh);
}

/* ------------------------------------------------------------------------ */
/* 3. Report dumps: planted names, the budget, the directory's cap           */
/* ------------------------------------------------------------------------ */

static void report_dumps(void) {
    char victim[400], prefix[64];
    snprintf(victim, sizeof victim, "%s/victim-report", g_dir);
    snprintf(prefix, sizeof prefix, "navguard-%d-", (int)getpid());
    write_text(victim, g_victim_text);
    /* The names 0.3 used for the first two dumps: links to the victim. */
    plant('l', getpid(), "navguard-%d-%d-1.jsonl", victim);

    host h = { 0 };
    ng_context *ctx = kiosk(&h);
    ng_record_options ro = NG_RECORD_OPTIONS_INIT;
    ro.ring_records = 1000;
    ro.dump_dir = g_dir;
    MUST(ctx, ng_record_start(ctx, &ro));
    /* A burst of 10 reports: the default budget dumps 3. */
    for (int i = 0; i < 10; i++) stuck_push(ctx, 10 + (uint64_t)i);
    EXPECT(h.reports == 10, "10 reports delivered (%d)", h.reports);
    EXPECT(h.dumped == 3 && h.refused == 7, "3 dumped, 7 past the budget (%d, %d): %s", h.dumped, h.refused, h.last);
    EXPECT(strstr(h.last, "3 dumps in the last 600 s"), "the report says why: %s", h.last);
    /* Ten minutes later: dumps again. */
    MUST(ctx, ng_clock_advance(ctx, 600000 * MS));
    stuck_push(ctx, 30);
    EXPECT(h.dumped == 4, "the window passed: dumped again (%s)", h.last);
    char named[600] = "";
    const char *at = strstr(h.last, " are in ");
    if (at) sscanf(at + 8, "%599s", named);
    MUST(ctx, ng_record_stop(ctx));   /* waits for the writer */
    EXPECT(victim_intact(victim), "links at the old report dump names: their target was not overwritten");
    char last[600] = "";
    EXPECT(count_files(prefix, ".ngbox", last, sizeof last) == 4, "4 report dumps in %s", g_dir);
    size_t n = 0;
    unsigned char *b = (unsigned char *)(named[0] ? slurp(named, &n) : NULL);
    EXPECT(b && n > 128 && memcmp(b, "NGBBOX01", 8) == 0 && b[16] == 0xFF && b[19] == 0xFF,
           "the report named %s: a binary dump, signal -1 (%zu bytes)", named, n);
    if (b && n > 128) {
        uint64_t length = 0;
        for (int i = 0; i < 8; i++) length |= (uint64_t)b[104 + i] << (8 * i);
        EXPECT(length == n - 128, "the dump is whole: %llu bytes of records, %zu in the file", (unsigned long long)length, n - 128);
    }
    free(b);
    unplant(getpid(), "navguard-%d-%d-1.jsonl");

    /* The directory's cap: 1 byte keeps only the newest report dump; a
     * crash dump and other files stay. */
    char crash[400], other[400];
    snprintf(crash, sizeof crash, "%s/navguard-1-0-0123456789abcdef-crash.ngbox", g_dir);
    snprintf(other, sizeof other, "%s/notes.ngbox.txt", g_dir);
    write_text(crash, "a crash dump");
    write_text(other, "the host's");
    ro.report_dumps = 20;
    ro.dump_dir_bytes = 1;
    MUST(ctx, ng_record_start(ctx, &ro));
    for (int i = 0; i < 5; i++) stuck_push(ctx, 40 + (uint64_t)i);
    MUST(ctx, ng_record_stop(ctx));
    EXPECT(h.dumped == 9, "5 more dumps (%d)", h.dumped);
    EXPECT(count_files(prefix, ".ngbox", NULL, 0) == 1, "dump_dir_bytes 1: the newest report dump only (%d)",
           count_files(prefix, ".ngbox", NULL, 0));
    EXPECT(access(crash, F_OK) == 0 && access(other, F_OK) == 0, "a crash dump and the host's file stay");

    /* Bad budgets. */
    ro.report_dumps = 1001;
    EXPECT_ST(ctx, ng_record_start(ctx, &ro), NG_E_RANGE);
    ro.report_dumps = 0;
    ro.report_dump_window_ns = -1;
    EXPECT_ST(ctx, ng_record_start(ctx, &ro), NG_E_RANGE);
    MUST(ctx, ng_context_destroy(ctx));
    unlink(crash);
    unlink(other);
    unlink(victim);
}

int main(void) {
    signal(SIGALRM, on_alarm);
    snprintf(g_dir, sizeof g_dir, "/tmp/navguard-dump-files-%d", (int)getpid());
    mkdir(g_dir, 0755);

    crash_case('f');
    crash_case('l');
    host_paths();
    report_dumps();

    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
    if (g_failures == 0 && system(cmd) != 0) printf("note: %s left behind\n", g_dir);
    printf("test_dump_files: %d checks, %d failures\n", g_checks, g_failures);
    return g_failures ? 1 : 0;
}
