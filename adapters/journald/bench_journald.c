/* SPDX-License-Identifier: Apache-2.0 */
/* bench_journald: what one journal entry costs the UI thread, beside its
 * floor, one sendmsg of the same bytes (the kernel's copy into a datagram
 * socket's queue): ns per entry for a watchdog-sized report (~1 KiB, as the
 * watchdog writes one) and for a refusal, and the ratio. Entries go to a
 * socket this program binds and drains between batches of 8 (a datagram
 * socket's queue holds few; journald drains it likewise). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include "navguard_journald.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "bench_measure.h"

#define BATCH 8
#define BATCHES 500

static int g_rx = -1;
static void drain(void) {
    char buf[65536];
    while (recv(g_rx, buf, sizeof buf, MSG_DONTWAIT) >= 0) {}
}

int main(void) {
    char dir[] = "/tmp/navguard-bench-journald-XXXXXX";
    if (!mkdtemp(dir)) return 1;
    char path[96];
    snprintf(path, sizeof path, "%s/socket", dir);
    g_rx = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    struct sockaddr_un a = { .sun_family = AF_UNIX };
    memcpy(a.sun_path, path, strlen(path) + 1);   /* short: /tmp/... */
    if (bind(g_rx, (struct sockaddr *)&a, sizeof a) != 0) return 1;

    /* A report like the watchdog's: a first line, the stack, the recovery. */
    char report[1100];
    size_t n = (size_t)snprintf(report, sizeof report, "watchdog: transition stuck for 2500 ms (limit 2000 ms): forced to finish\nstate found:\n");
    while (n + 60 < sizeof report) n += (size_t)snprintf(report + n, sizeof report - n, "  1: id 7 route \"checkout\" identity \"checkout\"\n");
    ngj_options jo = NGJ_OPTIONS_INIT;
    jo.socket_path = path;
    jo.flags = NGJ_REFUSALS;
    ngj_sink *sink = ngj_create(&jo);
    ng_outcome o = { sizeof o, NG_OUTCOME_REFUSED, 42, NG_REQ_POP, 0, 0, "org.navguard.throttle", NULL };

    /* The floor: the bytes of that report's entry, in one sendmsg. */
    char floor_bytes[2048];
    int fl = snprintf(floor_bytes, sizeof floor_bytes, "MESSAGE=watchdog: transition stuck\nPRIORITY=3\nMESSAGE_ID=%s\nSYSLOG_IDENTIFIER=navguard\nNAVGUARD_VERSION=0.4.0\nNAVGUARD_GUARD=org.navguard.watchdog\nNAVGUARD_TEXT\n", NGJ_MESSAGE_ID_WATCHDOG);
    memset(floor_bytes + fl, 'x', n + 9);
    fl += (int)n + 9;
    int tx = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);

    double v_report[RUNS], v_refusal[RUNS], v_floor[RUNS];
    for (int run = -1; run < RUNS; run++) {
        int64_t t_rep = 0, t_ref = 0, t_floor = 0;
        for (int b = 0; b < BATCHES; b++) {
            int64_t t0 = mono_ns();
            for (int i = 0; i < BATCH; i++) ngj_report(sink, NULL, "org.navguard.watchdog", report);
            t_rep += mono_ns() - t0;
            drain();
            t0 = mono_ns();
            for (int i = 0; i < BATCH; i++) ngj_outcome(sink, NULL, &o);
            t_ref += mono_ns() - t0;
            drain();
            t0 = mono_ns();
            for (int i = 0; i < BATCH; i++)
                (void)sendto(tx, floor_bytes, (size_t)fl, MSG_DONTWAIT | MSG_NOSIGNAL, (struct sockaddr *)&a, sizeof a);
            t_floor += mono_ns() - t0;
            drain();
        }
        if (run >= 0) {
            v_report[run] = (double)t_rep / (BATCH * BATCHES);
            v_refusal[run] = (double)t_ref / (BATCH * BATCHES);
            v_floor[run] = (double)t_floor / (BATCH * BATCHES);
        }
    }
    figure *fr = record("journal entry: watchdog report (1 KiB)", v_report, 0);
    figure *ff = record("floor: one sendmsg of those bytes", v_floor, 0);
    figure *fo = record("journal entry: refusal", v_refusal, 0);
    for (int i = 0; i < g_nfig; i++)
        printf("%-44s %9.0f ns  (min %.0f, max %.0f)\n", g_fig[i].name, g_fig[i].median, g_fig[i].min, g_fig[i].max);
    printf("ratio report entry / sendmsg floor: %.2f; refusal entry / floor: %.2f\n", fr->median / ff->median,
           fo->median / ff->median);
    printf("sent %llu, dropped %llu\n", (unsigned long long)ngj_sent(sink), (unsigned long long)ngj_dropped(sink));
    ngj_destroy(sink);
    close(tx);
    close(g_rx);
    unlink(path);
    rmdir(dir);
    return 0;
}
