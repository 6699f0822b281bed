/* org.navguard.transition — seed 000 level (b) and SafeUINavigationController:
 * while a screen transition (or an interactive back) is in flight, every
 * request is refused (mode "refuse") or deferred (mode "queue", default) and
 * applied, one at a time and in order, once the screen track is idle.
 * keep "all" (default) holds up to `limit` (default 8) requests, refusing
 * more with queue-full; keep "last" holds one, dropping the previous as
 * superseded. Every deferred request ends applied or dropped. */
#include <stdlib.h>
#include "../common/ngg_util.h"
#include "navguard_builtins.h"

#define MAX_LIMIT 64

typedef struct {
    const ng_guard_host *host;
    bool queue;
    bool keep_last;
    size_t limit;
    uint64_t ids[MAX_LIMIT];   /* deferred by us, FIFO */
    size_t count;
    uint64_t released;         /* handed back to the chain, outcome pending */
} transition;

static void *create(const ng_guard_host *host, const char *config) {
    (void)config;
    const char *mode = ngg_cfg_string(host, "mode", "queue");
    const char *keep = ngg_cfg_string(host, "keep", "all");
    int64_t limit = ngg_cfg_int(host, "limit", 8);
    if (!ngg_cfg_type_ok(host, "mode", NGG_STRING) || !(ngg_streq(mode, "refuse") || ngg_streq(mode, "queue"))) {
        host->log(host, NG_LOG_ERROR, "transition: \"mode\" must be \"refuse\" or \"queue\"");
        return NULL;
    }
    if (!ngg_cfg_type_ok(host, "keep", NGG_STRING) || !(ngg_streq(keep, "all") || ngg_streq(keep, "last"))) {
        host->log(host, NG_LOG_ERROR, "transition: \"keep\" must be \"all\" or \"last\"");
        return NULL;
    }
    if (!ngg_cfg_type_ok(host, "limit", NGG_INT) || limit < 1 || limit > MAX_LIMIT) {
        host->log(host, NG_LOG_ERROR, "transition: \"limit\" must be an integer in 1..64");
        return NULL;
    }
    transition *g = calloc(1, sizeof *g);
    if (!g) return NULL;
    g->host = host;
    g->queue = ngg_streq(mode, "queue");
    g->keep_last = ngg_streq(keep, "last");
    g->limit = g->keep_last ? 1 : (size_t)limit;
    return g;
}

static void destroy(void *inst) { free(inst); }

static bool busy(const ng_guard_host *h) { return h->track_get(h, NG_TRACK_SCREEN, NULL); }

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
    if (!g->queue) {
        v->reason = NG_REASON_BUSY;
        v->message = "a screen transition is in flight";
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
    if (e->track == NG_TRACK_SCREEN && e->phase != NG_PHASE_WILL) release_next(g);
}

static const void *get_extension(void *inst, const char *id) { (void)inst; (void)id; return NULL; }

static const ng_plugin_descriptor descriptor = {
    NG_PLUGIN_ABI_MAJOR, NG_PLUGIN_ABI_MINOR, sizeof(ng_plugin_descriptor),
    "org.navguard.transition", "transition", "0.1.0",
    "While a screen transition is in flight, refuses (mode refuse) or queues (mode queue) every request.",
    create, destroy, on_request, NULL, on_outcome, on_transition, NULL, NULL, NULL, get_extension,
};

const ng_plugin_descriptor *ngg_transition_descriptor(void) { return &descriptor; }
