/* SPDX-License-Identifier: Apache-2.0 */
/* org.navguard.throttle — refuses a request closer than interval_ms
 * (default 300) to the last applied request from the same source
 * (Android's throttleFirst): a second tap of the same button. A request is
 * never refused because of another source's, and source 0 means
 * "unspecified": it is neither throttled nor throttles anything (label the
 * sources a double tap can come from). A request re-evaluated after a
 * deferral is not throttled: it was on time when it was made. */
#include <stdlib.h>
#include "../common/ngg_util.h"
#include "navguard_builtins.h"

#define SOURCES 32

typedef struct {
    const ng_guard_host *host;
    int64_t interval_ns;
    struct { uint32_t source; int64_t at; bool used; } last[SOURCES];
    unsigned next;
} throttle;

static const ng_option_decl options[] = {
    NG_OPTION_INT("interval_ms", "300", 0, 3600000,
                  "minimum time between applied requests from one (non-zero) source, in milliseconds"),
    NG_OPTION_END,
};

static void *create(const ng_guard_host *host, const char *config) {
    (void)config;
    throttle *g = calloc(1, sizeof *g);
    if (!g) return NULL;
    g->host = host;
    g->interval_ns = ngg_int(host, "interval_ms") * NGG_MS;
    return g;
}

static void destroy(void *inst) { free(inst); }

static int find(throttle *g, uint32_t source) {
    for (int i = 0; i < SOURCES; i++)
        if (g->last[i].used && g->last[i].source == source) return i;
    return -1;
}

static ng_vote on_request(void *inst, const ng_guard_request *r, ng_verdict *v) {
    throttle *g = inst;
    if (r->attempt > 0 || r->source == 0) return NG_VOTE_ALLOW;
    int i = find(g, r->source);
    if (i >= 0 && r->now_ns - g->last[i].at < g->interval_ns) {
        v->reason = NG_REASON_THROTTLED;
        v->message = "too soon after the previous request from this source";
        return NG_VOTE_REFUSE;
    }
    return NG_VOTE_ALLOW;
}

static void on_outcome(void *inst, const ng_outcome *o) {
    throttle *g = inst;
    if (o->outcome != NG_OUTCOME_APPLIED || o->source == 0) return;
    int i = find(g, o->source);
    if (i < 0) {                      /* round-robin replacement of old sources */
        i = (int)(g->next++ % SOURCES);
        g->last[i].used = true;
        g->last[i].source = o->source;
    }
    g->last[i].at = g->host->now(g->host);
}

static const ng_plugin_descriptor descriptor = {
    NG_PLUGIN_DESCRIPTOR_ABI,
    .id = "org.navguard.throttle",
    .name = "throttle",
    .version = NGG_VERSION,
    .description = "Refuses a request closer than interval_ms (default 300) to the last applied one from the same non-zero source.",
    .create = create,
    .destroy = destroy,
    .on_request = on_request,
    .on_outcome = on_outcome,
    .options = options,
};

const ng_plugin_descriptor *ngg_throttle_descriptor(void) { return &descriptor; }
