/* SPDX-License-Identifier: Apache-2.0 */
/* org.navguard.dedupe — refuses a push whose identity equals the top
 * screen's (mode "top", default) or any stacked screen's (mode "stack"), or
 * that of a push already deferred (both modes: a queued push becomes the top
 * when it applies): a double tap can never push the same screen twice, and
 * the second one is refused at once rather than queued and dropped later. */
#include <stdlib.h>
#include "../common/ngg_util.h"
#include "navguard_builtins.h"

typedef struct { const ng_guard_host *host; bool whole_stack; } dedupe;

static const char *const modes[] = { "top", "stack", NULL };
static const ng_option_decl options[] = {
    NG_OPTION_ENUM("mode", "\"top\"", modes,
                   "top: refuse a push of the screen on top; stack: of any stacked or queued screen"),
    NG_OPTION_END,
};

static void *create(const ng_guard_host *host, const char *config) {
    (void)config;
    dedupe *g = calloc(1, sizeof *g);
    if (!g) return NULL;
    g->host = host;
    g->whole_stack = ngg_streq(ngg_string(host, "mode"), "stack");
    return g;
}

static void destroy(void *inst) { free(inst); }

static ng_vote refuse(ng_verdict *v, const char *msg) {
    v->reason = NG_REASON_DUPLICATE;
    v->message = msg;
    return NG_VOTE_REFUSE;
}

static ng_vote on_request(void *inst, const ng_guard_request *r, ng_verdict *v) {
    dedupe *g = inst;
    if (r->kind != NG_REQ_PUSH || !r->screen || !r->screen->identity) return NG_VOTE_ALLOW;
    const ng_guard_host *h = g->host;
    size_t n = h->stack_count(h);
    if (n == 0) return NG_VOTE_ALLOW;
    ng_screen_info s = NG_SCREEN_INFO_INIT;
    if (!g->whole_stack) {
        if (h->stack_get(h, n - 1, &s) == NG_OK && ngg_streq(s.identity, r->screen->identity))
            return refuse(v, "the screen is already on top");
    } else {
        for (size_t i = 0; i < n; i++) {
            if (h->stack_get(h, i, &s) == NG_OK && ngg_streq(s.identity, r->screen->identity))
                return refuse(v, "the screen is already in the stack");
        }
    }
    size_t d = h->deferred_count(h);
    for (size_t i = 0; i < d; i++) {
        ng_guard_request q = NG_GUARD_REQUEST_INIT;
        if (h->deferred_get(h, i, &q) == NG_OK && q.request_id != r->request_id && q.kind == NG_REQ_PUSH &&
            q.screen && ngg_streq(q.screen->identity, r->screen->identity))
            return refuse(v, "the screen is already queued");
    }
    return NG_VOTE_ALLOW;
}

static const ng_plugin_descriptor descriptor = {
    NG_PLUGIN_DESCRIPTOR_ABI,
    .id = "org.navguard.dedupe",
    .name = "dedupe",
    .version = NGG_VERSION,
    .description = "Refuses a push of a screen whose identity is on top (mode top) or anywhere in the stack or queue (mode stack).",
    .create = create,
    .destroy = destroy,
    .on_request = on_request,
    .options = options,
};

const ng_plugin_descriptor *ngg_dedupe_descriptor(void) { return &descriptor; }
