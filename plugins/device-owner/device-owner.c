/* SPDX-License-Identifier: Apache-2.0 */
/* org.navguard.device-owner — a screen pushed by a device belongs to it
 * while it is the top (player 1's pause menu): presses (NG_EVENT_KEY and
 * NG_EVENT_REMOTE, device = touch_id) and requests (ng_request.device) from
 * any other device are dropped / refused with NG_REASON_POLICY, "owned by
 * controller D". Devices listed in `shared` (a keyboard) are never refused.
 * A request with device 0 (a timer, the network) is never refused, and a
 * screen pushed with device 0 or by a shared device belongs to the owner of
 * the screen it covers (nobody, on an unowned one). Ownership is the top
 * screen's: it ends when that screen leaves the top (popped, or covered by
 * a screen pushed by no device), and comes back when it is the top again.
 * Only PUSH makes an owner. */
#include <stdlib.h>
#include <inttypes.h>
#include "../common/ngg_util.h"
#include "navguard_builtins.h"

#define OWNED   16   /* owned screens remembered (more than a stack's worth of menus) */
#define PENDING 8    /* device pushes awaiting their outcome */
#define SHARED  16

typedef struct { uint64_t key, device, screen; bool used; } slot;

typedef struct {
    const ng_guard_host *host;
    slot owned[OWNED];        /* key = screen id */
    slot pending[PENDING];    /* key = request id, screen = the pushed screen */
    unsigned next_owned, next_pending;
    uint64_t shared[SHARED];
    size_t shared_count;
    char message[64];
} owner;

static const ng_option_decl options[] = {
    NG_OPTION_STRINGS("shared", "[]", 0, SHARED,
                      "devices (decimal touch_id / ng_request.device) any screen accepts, e.g. a keyboard"),
    NG_OPTION_END,
};

static void *create(const ng_guard_host *host, const char *config) {
    (void)config;
    owner *g = calloc(1, sizeof *g);
    if (!g) return NULL;
    g->host = host;
    size_t n = 0;
    if (host->config_list_count(host, "shared", &n) != NG_OK) n = 0;
    for (size_t i = 0; i < n && i < SHARED; i++) {
        const char *s = NULL;
        char *end = NULL;
        if (host->config_list_get(host, "shared", i, &s) != NG_OK || !s) continue;
        unsigned long long v = strtoull(s, &end, 10);
        if (end == s || *end != 0 || s[0] == '-') {
            host->log(host, NG_LOG_ERROR, "device-owner: `shared` items are decimal device ids");
            free(g);
            return NULL;
        }
        g->shared[g->shared_count++] = (uint64_t)v;
    }
    return g;
}

static void destroy(void *inst) { free(inst); }

static slot *find(slot *table, unsigned count, uint64_t key) {
    for (unsigned i = 0; i < count; i++)
        if (table[i].used && table[i].key == key) return &table[i];
    return NULL;
}

static bool is_shared(const owner *g, uint64_t device) {
    for (size_t i = 0; i < g->shared_count; i++)
        if (g->shared[i] == device) return true;
    return false;
}

/* The device that owns the top screen, or false when nobody does. */
static bool top_owner(owner *g, uint64_t *device) {
    size_t n = g->host->stack_count(g->host);
    if (n == 0) return false;
    ng_screen_info top = NG_SCREEN_INFO_INIT;
    if (g->host->stack_get(g->host, n - 1, &top) != NG_OK) return false;
    slot *s = find(g->owned, OWNED, top.id);
    if (!s) return false;
    *device = s->device;
    return true;
}

static ng_vote refuse(owner *g, uint64_t device, ng_verdict *v) {
    snprintf(g->message, sizeof g->message, "owned by controller %" PRIu64, device);
    v->reason = NG_REASON_POLICY;
    v->message = g->message;
    return NG_VOTE_REFUSE;
}

static ng_vote on_request(void *inst, const ng_guard_request *r, ng_verdict *v) {
    owner *g = inst;
    uint64_t device = NG_HAS_FIELD(r, ng_guard_request, device) ? r->device : 0;
    bool anyone = device == 0 || is_shared(g, device);
    uint64_t own = 0;
    bool owned = top_owner(g, &own);
    if (owned && !anyone && own != device) return refuse(g, own, v);
    /* The pushed screen belongs to its device; pushed by no device or a
     * shared one (a timer's prompt, the keyboard's Options), to the owner of
     * the screen it covers. */
    uint64_t to = anyone ? (owned ? own : 0) : device;
    if (to != 0 && r->kind == NG_REQ_PUSH && r->screen && !find(g->pending, PENDING, r->request_id)) {
        slot *p = &g->pending[g->next_pending++ % PENDING];
        *p = (slot){ r->request_id, to, r->screen->id, true };
    }
    return NG_VOTE_ALLOW;
}

/* Forget owned screens that are no longer on the stack (ids may be reused). */
static void prune(owner *g) {
    size_t n = g->host->stack_count(g->host);
    for (unsigned i = 0; i < OWNED; i++) {
        if (!g->owned[i].used) continue;
        bool on = false;
        for (size_t k = 0; k < n && !on; k++) {
            ng_screen_info s = NG_SCREEN_INFO_INIT;
            on = g->host->stack_get(g->host, k, &s) == NG_OK && s.id == g->owned[i].key;
        }
        if (!on) g->owned[i].used = false;
    }
}

static void on_outcome(void *inst, const ng_outcome *o) {
    owner *g = inst;
    slot *p = find(g->pending, PENDING, o->request_id);
    prune(g);
    if (!p) return;
    p->used = false;
    if (o->outcome != NG_OUTCOME_APPLIED) return;
    slot *s = find(g->owned, OWNED, p->screen);
    if (!s) {
        for (unsigned i = 0; i < OWNED && !s; i++)
            if (!g->owned[i].used) s = &g->owned[i];
        if (!s) s = &g->owned[g->next_owned++ % OWNED];   /* all in use: replace round-robin */
    }
    *s = (slot){ p->screen, p->device, p->screen, true };
}

static void on_transition(void *inst, const ng_transition_event *e) {
    (void)e;
    prune(inst);   /* a swipe back or a restore changes the stack too */
}

static ng_vote on_event(void *inst, const ng_guard_event *e, ng_verdict *v) {
    owner *g = inst;
    const ng_event *ev = e->event;
    if (!ev || (e->flags & NG_GEVF_FINAL)) return NG_VOTE_ALLOW;
    uint64_t own;
    if (top_owner(g, &own) && own != ev->touch_id && !is_shared(g, ev->touch_id)) return refuse(g, own, v);
    return NG_VOTE_ALLOW;
}

static const ng_plugin_descriptor descriptor = {
    NG_PLUGIN_DESCRIPTOR_ABI,
    .id = "org.navguard.device-owner",
    .name = "device-owner",
    .version = NGG_VERSION,
    .description = "While a screen pushed by device D (ng_request.device) is the top, drops presses and refuses requests from other devices (NG_REASON_POLICY), except those listed in shared.",
    .create = create,
    .destroy = destroy,
    .on_request = on_request,
    .on_event = on_event,
    .on_outcome = on_outcome,
    .on_transition = on_transition,
    .options = options,
    .event_mask = NG_WANT_KEY | NG_WANT_REMOTE,
};

const ng_plugin_descriptor *ngg_device_owner_descriptor(void) { return &descriptor; }
