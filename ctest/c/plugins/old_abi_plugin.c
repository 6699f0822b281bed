/* SPDX-License-Identifier: Apache-2.0 */
/*
 * old_abi_plugin.c — a guard built against the frozen plugin ABI 1.0 headers
 * (abi-1.0/navguard/, NavGuard 0.1): its descriptor has no `options`, its
 * ng_track_info ends at `progress`. test_plugins.c loads it into today's host.
 * It refuses a pop while a screen transition is in flight, read through the
 * 1.0-sized track_get (checking that the host wrote nothing past that size).
 */
#include <navguard/plugin.h>

#include <string.h>

#if NG_PLUGIN_ABI_MINOR != 0
#error "old_abi_plugin.c must be built against the ABI 1.0 headers"
#endif

typedef struct { const ng_guard_host *host; } old_guard;
static old_guard the_instance;

static void *create(const ng_guard_host *host, const char *config) {
    (void)config;
    the_instance.host = host;
    return &the_instance;
}

static void destroy(void *inst) { (void)inst; }

static ng_vote on_request(void *inst, const ng_guard_request *r, ng_verdict *v) {
    old_guard *g = inst;
    const ng_guard_host *h = g->host;
    struct { ng_track_info info; unsigned char guard_bytes[32]; } t;
    memset(&t, 0xCD, sizeof t);
    t.info.size = sizeof t.info;
    bool busy = h->track_get(h, NG_TRACK_SCREEN, &t.info);
    int clean = 1;
    for (size_t i = 0; i < sizeof t.guard_bytes; i++) clean &= t.guard_bytes[i] == 0xCD;
    if (busy) h->log(h, NG_LOG_INFO, clean ? "track 1.0-sized ok" : "track_get wrote past the 1.0 size");
    if (r->kind != NG_REQ_POP || !busy || !clean) return NG_VOTE_ALLOW;
    v->reason = NG_REASON_BUSY;
    v->message = "a screen transition is in flight (ABI 1.0 guard)";
    return NG_VOTE_REFUSE;
}

static const ng_plugin_descriptor descriptor = {
    NG_PLUGIN_ABI_MAJOR, NG_PLUGIN_ABI_MINOR, sizeof(ng_plugin_descriptor),
    "org.navguard.test.abi10", "abi10", "1.0", "a guard built for plugin ABI 1.0",
    create, destroy, on_request, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
};

__attribute__((visibility("default"))) const ng_plugin_descriptor *ng_plugin_entry(void) { return &descriptor; }
