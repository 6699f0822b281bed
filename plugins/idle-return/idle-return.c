/* SPDX-License-Identifier: Apache-2.0 */
/* org.navguard.idle-return — returns an unattended kiosk to its start: after
 * after_ms (default 120000) with no delivered input and no applied request,
 * it makes a pop-to-root (to "root") or a pop-to the top-most screen of the
 * route `to`, animated, with NG_REQF_UNATTENDED, through the host table
 * (request_submit): the whole chain judges it, and confirm-leave asks first
 * on a marked screen with its unattended timeout; nobody answering then lets
 * the return go on.
 *
 * The idle time restarts at every input event the guard is shown (put it
 * last in the chain: an edit's insert appends, so it sees only input every
 * guard before it and the core let through; dropped input is nobody there)
 * and at every applied request but its own. It asks once per idle time: after
 * its own request (applied, declined, dropped) it waits for someone to use
 * the kiosk, so an unattended screen never loops. A request refused because
 * the moment was wrong (a transition in flight, input blocked, a question
 * open, a full queue) is tried again after_ms later. Nothing to do (already
 * there, or the top screen's route is in `except`, a video or an attract
 * loop where the kiosk may sit) is an idle time used up, too: no deadline is
 * armed until someone comes, so an idle kiosk costs no wake-ups. */
#include <inttypes.h>
#include <stdlib.h>
#include "../common/ngg_util.h"
#include "navguard_builtins.h"

typedef struct {
    const ng_guard_host *host;
    int64_t after_ns;
    const char *to;             /* "root" or a route */
    uint32_t source;
    bool animated;
    int64_t since;              /* the idle time's start */
    int64_t armed;              /* the deadline given to the host: moved only
                                   when it passes, not at every event */
    bool spent;                 /* asked (or nothing to do) in this idle time */
    uint64_t pending;           /* its request without an outcome, or 0 */
} idle_return;

static const ng_option_decl options[] = {
    NG_OPTION_INT("after_ms", "120000", 1, 86400000,
                  "return after this long with no delivered input and no applied request, in milliseconds"),
    NG_OPTION_STRING("to", "\"root\"",
                     "where to return: \"root\" (pop-to-root) or a route on the stack (pop-to its top-most screen)"),
    NG_OPTION_STRINGS("except", "[]", 0, 64,
                      "routes where the kiosk may sit idle (a video, an attract loop): no return from them"),
    NG_OPTION_INT("source", "0", 0, 4294967295.0, "the source the return request carries (ng_request.source)"),
    NG_OPTION_BOOL("animated", "true", "make the return an animated request (NG_REQF_ANIMATED)"),
    NG_OPTION_END,
};

static void *create(const ng_guard_host *host, const char *config) {
    (void)config;
    if (!NG_HAS_FIELD(host, ng_guard_host, request_submit)) {
        host->log(host, NG_LOG_ERROR, "idle-return needs a host of plugin ABI 1.2 or later (request_submit)");
        return NULL;
    }
    idle_return *g = calloc(1, sizeof *g);
    if (!g) return NULL;
    g->host = host;
    g->after_ns = ngg_int(host, "after_ms") * NGG_MS;
    g->to = ngg_string(host, "to");
    if (!g->to || !g->to[0]) {
        host->log(host, NG_LOG_ERROR, "idle-return: \"to\" is empty (\"root\" or a route)");
        free(g);
        return NULL;
    }
    g->source = (uint32_t)ngg_int(host, "source");
    g->animated = ngg_bool(host, "animated");
    g->since = host->now(host);
    g->armed = g->since + g->after_ns;
    return g;
}

static void destroy(void *inst) { free(inst); }

/* Someone used the kiosk. The deadline the host has stays (a wake-up then
 * finds the time not up and moves it), unless none was armed. */
static void restart(idle_return *g) {
    g->since = g->host->now(g->host);
    if (g->spent || g->armed < g->since) g->armed = g->since + g->after_ns;
    g->spent = false;
}

static bool excepted(idle_return *g, const char *route) {
    size_t n = 0;
    if (!route || g->host->config_list_count(g->host, "except", &n) != NG_OK) return false;
    for (size_t i = 0; i < n; i++) {
        const char *r = NULL;
        if (g->host->config_list_get(g->host, "except", i, &r) == NG_OK && ngg_streq(r, route)) return true;
    }
    return false;
}

static ng_vote on_event(void *inst, const ng_guard_event *e, ng_verdict *v) {
    (void)e;
    (void)v;
    restart(inst);
    return NG_VOTE_ALLOW;
}

static void on_outcome(void *inst, const ng_outcome *o) {
    idle_return *g = inst;
    if (g->pending != 0 && o->request_id == g->pending) {
        g->pending = 0;
        if (o->outcome == NG_OUTCOME_APPLIED) return;           /* home: wait for someone */
        switch (o->reason) {
        case NG_REASON_BUSY: case NG_REASON_IGNORING: case NG_REASON_ASKING:
        case NG_REASON_QUEUE_FULL: case NG_REASON_THROTTLED:
            restart(g);                                         /* a wrong moment: later */
            return;
        default:
            return;                                             /* declined, stale...: wait */
        }
    }
    if (o->outcome == NG_OUTCOME_APPLIED) restart(g);
}

/* The request that returns, or false when there is nothing to do. */
static bool make_return(idle_return *g, ng_request *rq) {
    const ng_guard_host *h = g->host;
    size_t n = h->stack_count(h);
    if (n == 0) return false;
    ng_screen_info top = NG_SCREEN_INFO_INIT;
    if (h->stack_get(h, n - 1, &top) != NG_OK || excepted(g, top.route)) return false;
    if (ngg_streq(g->to, "root")) {
        if (n < 2) return false;
        *rq = (ng_request)NG_REQUEST_INIT(NG_REQ_POP_TO_ROOT);
    } else {
        size_t i = n;
        ng_screen_info s = NG_SCREEN_INFO_INIT;
        while (i-- > 0)
            if (h->stack_get(h, i, &s) == NG_OK && ngg_streq(s.route, g->to)) break;
        if (i == (size_t)-1 || i == n - 1) return false;        /* not on the stack, or there */
        *rq = (ng_request)NG_REQUEST_INIT(NG_REQ_POP_TO);
        rq->target_id = s.id;
    }
    rq->flags = NG_REQF_UNATTENDED | (g->animated ? NG_REQF_ANIMATED : 0u);
    rq->source = g->source;
    return true;
}

static void on_tick(void *inst, int64_t now_ns) {
    idle_return *g = inst;
    if (g->spent || g->pending != 0) return;
    g->armed = g->since + g->after_ns;
    if (now_ns < g->armed) return;                          /* used since: later */
    const ng_guard_host *h = g->host;
    /* A transition in flight is someone's (or the host's) doing: count again from now. */
    if (h->track_get(h, NG_TRACK_SCREEN, NULL)) {
        g->since = now_ns;
        g->armed = now_ns + g->after_ns;
        return;
    }
    g->spent = true;
    ng_request rq;
    if (!make_return(g, &rq)) return;
    uint64_t id = 0;
    if (h->request_submit(h, &rq, &id) == NG_OK) {
        g->pending = id;
        char line[160];
        snprintf(line, sizeof line, "idle for %" PRId64 " ms: return to %s (request %" PRIu64 ")",
                 (int64_t)((now_ns - g->since) / NGG_MS), g->to, id);
        h->log(h, NG_LOG_INFO, line);
    }
}

static int64_t next_deadline(void *inst) {
    idle_return *g = inst;
    if (g->spent || g->pending != 0) return NG_NO_DEADLINE;
    return g->armed;
}

static const ng_plugin_descriptor descriptor = {
    NG_PLUGIN_DESCRIPTOR_ABI,
    .id = "org.navguard.idle-return",
    .name = "idle-return",
    .version = NGG_VERSION,
    .description = "After after_ms (default 120000) with no delivered input and no applied request, returns to "
                   "the root (or the route `to`) with an unattended request; once per idle time.",
    .create = create,
    .destroy = destroy,
    .on_event = on_event,
    .on_outcome = on_outcome,
    .on_tick = on_tick,
    .next_deadline = next_deadline,
    .options = options,
    .event_mask = NG_WANT_ALL,
};

const ng_plugin_descriptor *ngg_idle_return_descriptor(void) { return &descriptor; }
