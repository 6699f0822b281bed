/* SPDX-License-Identifier: Apache-2.0 */
/* org.navguard.transition — one screen transition at a time:
 * while a transition is in flight (either track, or an interactive back),
 * a request of a kind listed in `queue` (default: push and replace-stack,
 * what programs request) is deferred and applied, one at a time and in
 * order, once both tracks are idle; every other kind (pop, pop-to,
 * pop-to-root, back, interactive back: what a user's tap or swipe requests)
 * is refused busy. `mode` "queue" or "refuse" sets the policy of every kind
 * at once. keep "all" (default) holds up to `limit` (default 8) requests,
 * refusing more with queue-full; keep "last" holds one, dropping the previous
 * as superseded. Every deferred request ends applied or dropped. */
#include <stdio.h>
#include <stdlib.h>
#include "../common/ngg_util.h"
#include "navguard_builtins.h"

#define MAX_LIMIT 64

typedef struct {
    const ng_guard_host *host;
    uint32_t queue_kinds;      /* bit per NG_REQ_* deferred while busy */
    bool keep_last;
    size_t limit;
    uint64_t ids[MAX_LIMIT];   /* deferred by us, FIFO */
    size_t count;
    uint64_t released;         /* handed back to the chain, outcome pending */
} transition;

static const char *const kinds[] = NGG_KIND_CHOICES;
static const char *const modes[] = { "refuse", "queue", NULL };
static const char *const keeps[] = { "all", "last", NULL };
static const ng_option_decl options[] = {
    NG_OPTION_STRINGS_OF("queue", "[\"push\",\"replace-stack\"]", 0, NG_REQ_KIND_COUNT, kinds,
                         "request kinds deferred while busy; the others are refused busy"),
    NG_OPTION_ENUM("mode", NULL, modes, "every kind at once: queue all, or refuse all (overrides queue)"),
    NG_OPTION_ENUM("keep", "\"all\"", keeps, "all: keep up to limit deferred requests; last: keep only the newest"),
    NG_OPTION_INT("limit", "8", 1, MAX_LIMIT, "deferred requests kept with keep all"),
    NG_OPTION_END,
};

static void *create(const ng_guard_host *host, const char *config) {
    (void)config;
    uint32_t kinds = 0;
    const char *mode = ngg_string(host, "mode");
    if (mode) {
        kinds = ngg_streq(mode, "queue") ? (1u << NG_REQ_KIND_COUNT) - 1u : 0u;
    } else {
        size_t n = 0;
        host->config_list_count(host, "queue", &n);
        for (size_t i = 0; i < n; i++) {
            const char *name = NULL;
            host->config_list_get(host, "queue", i, &name);
            int k = ngg_kind(name);
            if (k < 0) {
                char msg[200], known[120];
                snprintf(msg, sizeof msg, "transition: \"queue\" has \"%.60s\", which is not a request kind (%s)",
                         name ? name : "", ngg_kind_list(known, sizeof known));
                host->log(host, NG_LOG_ERROR, msg);
                return NULL;
            }
            kinds |= 1u << k;
        }
    }
    transition *g = calloc(1, sizeof *g);
    if (!g) return NULL;
    g->host = host;
    g->queue_kinds = kinds;
    g->keep_last = ngg_streq(ngg_string(host, "keep"), "last");
    g->limit = g->keep_last ? 1 : (size_t)ngg_int(host, "limit");
    return g;
}

static void destroy(void *inst) { free(inst); }

static bool busy(const ng_guard_host *h) {
    return h->track_get(h, NG_TRACK_SCREEN, NULL) || h->track_get(h, NG_TRACK_BAR, NULL);
}

/* Hand the oldest deferred request back to the chain when idle. */
static void release_next(transition *g) {
    const ng_guard_host *h = g->host;
    while (g->released == 0 && g->count > 0 && !busy(h)) {
        uint64_t id = g->ids[0];
        memmove(g->ids, g->ids + 1, (g->count - 1) * sizeof g->ids[0]);
        g->count--;
        if (h->deferred_apply(h, id) == NG_OK) g->released = id;
    }
}

static ng_vote on_request(void *inst, const ng_guard_request *r, ng_verdict *v) {
    transition *g = inst;
    if (r->request_id == g->released) g->released = 0;
    if (!busy(g->host)) return NG_VOTE_ALLOW;
    if (r->kind < 0 || r->kind >= NG_REQ_KIND_COUNT || !(g->queue_kinds & (1u << r->kind))) {
        v->reason = NG_REASON_BUSY;
        v->message = "a transition is in flight";
        return NG_VOTE_REFUSE;
    }
    if (g->keep_last) {
        while (g->count > 0) {
            g->host->deferred_drop(g->host, g->ids[--g->count], NG_REASON_SUPERSEDED, "a later request replaced it");
        }
    } else if (g->count >= g->limit) {
        v->reason = NG_REASON_QUEUE_FULL;
        v->message = "the transition queue is full";
        return NG_VOTE_REFUSE;
    }
    if (r->attempt > 0 && g->count < MAX_LIMIT) {
        /* A released request found the screen busy again: it keeps its turn. */
        memmove(g->ids + 1, g->ids, g->count * sizeof g->ids[0]);
        g->ids[0] = r->request_id;
    } else {
        g->ids[g->count] = r->request_id;
    }
    g->count++;
    return NG_VOTE_DEFER;
}

static void on_outcome(void *inst, const ng_outcome *o) {
    transition *g = inst;
    if (o->request_id == g->released) g->released = 0;
    /* A request deferred by us that ended elsewhere (destroy) leaves the queue. */
    for (size_t i = 0; i < g->count; i++) {
        if (g->ids[i] == o->request_id) {
            memmove(g->ids + i, g->ids + i + 1, (g->count - i - 1) * sizeof g->ids[0]);
            g->count--;
            break;
        }
    }
    release_next(g);
}

static void on_transition(void *inst, const ng_transition_event *e) {
    transition *g = inst;
    if (e->phase != NG_PHASE_WILL) release_next(g);
}

static const ng_plugin_descriptor descriptor = {
    NG_PLUGIN_DESCRIPTOR_ABI,
    .id = "org.navguard.transition",
    .name = "transition",
    .version = NGG_VERSION,
    .description = "While a transition is in flight, queues the kinds in `queue` (push, replace-stack) and refuses the others busy.",
    .create = create,
    .destroy = destroy,
    .on_request = on_request,
    .on_outcome = on_outcome,
    .on_transition = on_transition,
    .options = options,
};

const ng_plugin_descriptor *ngg_transition_descriptor(void) { return &descriptor; }
