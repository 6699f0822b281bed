/* SPDX-License-Identifier: Apache-2.0 */
/* org.navguard.bar-should — the navigation bar's own check, as UIKit's
 * navigationBar:shouldPushItem:/shouldPopItem: make it: refuse a new bar push or pop while a bar animation is
 * in flight. The back button and an interactive-back begin are bar pops too,
 * so the implicit path is guarded exactly like an explicit pop. */
#include <stdlib.h>
#include "../common/ngg_util.h"
#include "navguard_builtins.h"

typedef struct { const ng_guard_host *host; } bar_should;

static void *create(const ng_guard_host *host, const char *config) {
    (void)config;
    bar_should *g = calloc(1, sizeof *g);
    if (g) g->host = host;
    return g;
}

static void destroy(void *inst) { free(inst); }

static bool is_bar_op(ng_request_kind k) {
    return k == NG_REQ_PUSH || k == NG_REQ_POP || k == NG_REQ_POP_TO || k == NG_REQ_POP_TO_ROOT ||
           k == NG_REQ_BACK || k == NG_REQ_INTERACTIVE_BACK;
}

static ng_vote on_request(void *inst, const ng_guard_request *r, ng_verdict *v) {
    bar_should *g = inst;
    if (!is_bar_op(r->kind) || !g->host->track_get(g->host, NG_TRACK_BAR, NULL)) return NG_VOTE_ALLOW;
    v->reason = NG_REASON_BUSY;
    v->message = "a bar animation is in flight";
    return NG_VOTE_REFUSE;
}

static const ng_option_decl options[] = { NG_OPTION_END };   /* none */

static const ng_plugin_descriptor descriptor = {
    NG_PLUGIN_DESCRIPTOR_ABI,
    .id = "org.navguard.bar-should",
    .name = "bar-should",
    .version = NGG_VERSION,
    .description = "Refuses a bar push or pop (back button and interactive back included) while the bar track is in flight.",
    .create = create,
    .destroy = destroy,
    .on_request = on_request,
    .options = options,
};

const ng_plugin_descriptor *ngg_bar_should_descriptor(void) { return &descriptor; }
