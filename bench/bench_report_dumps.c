/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench_report_dumps — what a burst of guard reports costs a host whose
 * flight recorder runs in ring mode (issue 26, item 6): the ring at its
 * default size (ring_records 100000) filled by a session of touches, then
 * 200 reports in a burst (an animated push the watchdog forces, 100 ms on a
 * manual clock, ng_tick: each tick carries one report). Printed: the time of
 * each ng_tick that carried a report (mean, median, worst), the reports that
 * say a dump was written and those that say none was, and the files and
 * bytes left in dump_dir once recording stopped. Nothing is asserted: the
 * program prints figures, and fails only on an unexpected status.
 *
 * Built against any version of the header (only NG_RECORD_OPTIONS_INIT,
 * ring_records and dump_dir are set), so the same program measures the
 * library before and after.
 */
#define _GNU_SOURCE 1
#include <navguard/navguard.h>

#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MS 1000000LL
#define REPORTS 200

static int g_reports, g_dumped, g_none;

static void on_report(void *user, ng_context *ctx, const char *guard_id, const char *text) {
    (void)user;
    (void)ctx;
    (void)guard_id;
    g_reports++;
    if (strstr(text, "no dump written") || strstr(text, "could not dump")) g_none++;
    else if (strstr(text, "flight recorder: the last ")) g_dumped++;
}

static void check(ng_context *ctx, ng_status st, const char *what) {
    if (st == NG_OK) return;
    fprintf(stderr, "bench_report_dumps: %s: %s (%s)\n", what, ng_strstatus(st), ctx ? ng_errmsg(ctx) : "");
    exit(1);
}

static int64_t clock_ns(clockid_t c) {
    struct timespec ts;
    clock_gettime(c, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}
static int64_t now_ns(void) { return clock_ns(CLOCK_MONOTONIC); }
/* The owner thread's own CPU time: what a tick costs it, whatever else the
 * machine runs (a loaded machine stretches the wall time). */
static int64_t cpu_ns(void) { return clock_ns(CLOCK_THREAD_CPUTIME_ID); }

static int cmp_i64(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

static void touch(ng_context *ctx, int32_t phase, double x) {
    ng_event e = NG_EVENT_INIT(NG_EVENT_TOUCH);
    e.phase = phase;
    e.touch_id = 1;
    e.x = x;
    e.y = 10;
    check(ctx, ng_event_submit(ctx, &e, NULL), "ng_event_submit");
}

int main(int argc, char **argv) {
    char dir[] = "/tmp/navguard-bench-dumps-XXXXXX";
    if (!mkdtemp(dir)) return 1;
    ng_options o = NG_OPTIONS_INIT;
    o.clock = NG_CLOCK_MANUAL;
    o.manual_start_ns = 1000 * MS;
    o.delegate.on_report = on_report;
    ng_context *ctx = NULL;
    check(NULL, ng_context_create(&o, &ctx), "ng_context_create");
    check(ctx, ng_chain_configure(ctx, "{\"guards\":[{\"id\":\"org.navguard.watchdog\","
                                       "\"config\":{\"transition_limit_ms\":50}}]}"), "ng_chain_configure");
    ng_record_options ro = NG_RECORD_OPTIONS_INIT;
    ro.ring_records = 100000;   /* the default */
    ro.dump_dir = dir;
    check(ctx, ng_record_start(ctx, &ro), "ng_record_start");
    ng_screen root = { 1, "home", NULL };
    check(ctx, ng_stack_set_root(ctx, &root), "ng_stack_set_root");
    ng_view v = NG_VIEW_INIT;
    v.id = 7;
    v.frame = (ng_rect){ 0, 0, 800, 600 };
    check(ctx, ng_view_set(ctx, &v), "ng_view_set");
    /* A session that fills the ring: 20000 gestures of 6 events. */
    for (int i = 0; i < 20000; i++) {
        check(ctx, ng_clock_advance(ctx, MS), "ng_clock_advance");
        touch(ctx, NG_TOUCH_BEGAN, 10);
        for (int k = 0; k < 4; k++) touch(ctx, NG_TOUCH_MOVED, 10 + k);
        touch(ctx, NG_TOUCH_ENDED, 14);
    }
    static int64_t t[REPORTS], c[REPORTS];
    int64_t burst = now_ns();
    for (int i = 0; i < REPORTS; i++) {
        ng_request r = NG_REQUEST_INIT(NG_REQ_PUSH);
        r.flags = NG_REQF_ANIMATED;
        r.screen.id = 100 + (uint64_t)i;
        r.screen.route = "stuck";
        check(ctx, ng_request_submit(ctx, &r, NULL), "ng_request_submit");
        check(ctx, ng_clock_advance(ctx, 100 * MS), "ng_clock_advance");
        int before = g_reports;
        int64_t c0 = cpu_ns(), t0 = now_ns();
        check(ctx, ng_tick(ctx), "ng_tick");
        t[i] = now_ns() - t0;
        c[i] = cpu_ns() - c0;
        if (g_reports != before + 1) {
            fprintf(stderr, "bench_report_dumps: tick %d carried %d reports\n", i, g_reports - before);
            return 1;
        }
        /* Keep the stack bounded: pop what was pushed. */
        ng_request back = NG_REQUEST_INIT(NG_REQ_BACK);
        check(ctx, ng_request_submit(ctx, &back, NULL), "ng_request_submit(back)");
    }
    int64_t burst_ns = now_ns() - burst;
    int64_t stop0 = now_ns();
    check(ctx, ng_record_stop(ctx), "ng_record_stop");
    int64_t stop_ns = now_ns() - stop0;
    check(ctx, ng_context_destroy(ctx), "ng_context_destroy");

    int files = 0;
    uint64_t bytes = 0;
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        if (strncmp(e->d_name, "navguard-", 9) != 0) continue;
        char p[512];
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        struct stat st;
        if (stat(p, &st) == 0) {
            files++;
            bytes += (uint64_t)st.st_size;
        }
        unlink(p);
    }
    if (d) closedir(d);
    rmdir(dir);

    int64_t sum = 0, csum = 0;
    for (int i = 0; i < REPORTS; i++) {
        sum += t[i];
        csum += c[i];
    }
    qsort(t, REPORTS, sizeof t[0], cmp_i64);
    qsort(c, REPORTS, sizeof c[0], cmp_i64);
    printf("report dumps (%s), library %s: %d reports in a burst, default ring (100000 records)\n",
           argc > 1 ? argv[1] : "this build", ng_version_string(), REPORTS);
    printf("  ng_tick carrying a report: mean %.3f ms, median %.3f ms, worst %.3f ms (burst %.1f ms)\n",
           (double)sum / REPORTS / 1e6, (double)t[REPORTS / 2] / 1e6, (double)t[REPORTS - 1] / 1e6, (double)burst_ns / 1e6);
    printf("  its CPU time on the owner thread: mean %.3f ms, median %.3f ms, worst %.3f ms\n", (double)csum / REPORTS / 1e6,
           (double)c[REPORTS / 2] / 1e6, (double)c[REPORTS - 1] / 1e6);
    printf("  the 4 slowest: %.3f, %.3f, %.3f, %.3f ms\n", (double)t[REPORTS - 1] / 1e6, (double)t[REPORTS - 2] / 1e6,
           (double)t[REPORTS - 3] / 1e6, (double)t[REPORTS - 4] / 1e6);
    printf("  reports saying a dump was written: %d, saying none was: %d\n", g_dumped, g_none);
    printf("  files left in dump_dir: %d, %.1f MB; ng_record_stop took %.1f ms\n", files, (double)bytes / 1e6,
           (double)stop_ns / 1e6);
    return 0;
}
