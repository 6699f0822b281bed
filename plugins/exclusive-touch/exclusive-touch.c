/* SPDX-License-Identifier: Apache-2.0 */
/* org.navguard.exclusive-touch — UIKit's exclusiveTouch and
 * multipleTouchEnabled rules (Apple's event-handling guide):
 *  - a touch on an exclusive view is delivered only if no other view is
 *    tracking a touch;
 *  - a touch on any view is withheld while an exclusive view tracks one;
 *  - with multiple touch off, a second concurrent touch on the same view is
 *    not delivered (and not passed to another view).
 * every_view_exclusive (default false) treats every view as exclusive, as
 * an app that sets exclusiveTouch on every control does. Views the host did not register have UIKit's defaults. */
#include <stdlib.h>
#include "../common/ngg_util.h"
#include "navguard_builtins.h"

typedef struct { const ng_guard_host *host; bool every_view; } exclusive_touch;

static const ng_option_decl options[] = {
    NG_OPTION_BOOL("every_view_exclusive", "false", "treat every view as exclusive-touch (as if every control set it)"),
    NG_OPTION_END,
};

static void *create(const ng_guard_host *host, const char *config) {
    (void)config;
    exclusive_touch *g = calloc(1, sizeof *g);
    if (!g) return NULL;
    g->host = host;
    g->every_view = ngg_bool(host, "every_view_exclusive");
    return g;
}

static void destroy(void *inst) { free(inst); }

static uint32_t flags_of(const ng_guard_host *h, uint64_t view) {
    uint32_t f = 0;
    return h->view_flags(h, view, &f) == NG_OK ? f : 0;
}

static ng_vote on_event(void *inst, const ng_guard_event *ge, ng_verdict *v) {
    exclusive_touch *g = inst;
    const ng_event *e = ge->event;
    if (e->type != NG_EVENT_TOUCH || e->phase != NG_TOUCH_BEGAN || ge->target_view == 0) return NG_VOTE_ALLOW;
    const ng_guard_host *h = g->host;
    uint64_t target = ge->target_view;
    uint32_t tf = flags_of(h, target);
    bool target_exclusive = g->every_view || (tf & NG_VIEWF_EXCLUSIVE_TOUCH);
    size_t n = h->touch_count(h);
    for (size_t i = 0; i < n; i++) {
        ng_touch_info t = NG_TOUCH_INFO_INIT;
        if (h->touch_get(h, i, &t) != NG_OK || t.state != NG_TOUCH_STATE_DELIVERED || t.view_id == 0) continue;
        if (t.view_id == target) {
            if (!(tf & NG_VIEWF_MULTI_TOUCH)) {
                v->reason = NG_REASON_MULTI_TOUCH;
                v->message = "the view has multiple touch off and already tracks a touch";
                return NG_VOTE_REFUSE;
            }
            continue;
        }
        if (target_exclusive) {
            v->reason = NG_REASON_EXCLUSIVE;
            v->message = "exclusive view: another view is tracking a touch";
            return NG_VOTE_REFUSE;
        }
        if (g->every_view || (flags_of(h, t.view_id) & NG_VIEWF_EXCLUSIVE_TOUCH)) {
            v->reason = NG_REASON_EXCLUSIVE;
            v->message = "an exclusive view is tracking a touch";
            return NG_VOTE_REFUSE;
        }
    }
    return NG_VOTE_ALLOW;
}

static const ng_plugin_descriptor descriptor = {
    NG_PLUGIN_DESCRIPTOR_ABI,
    .id = "org.navguard.exclusive-touch",
    .name = "exclusive-touch",
    .version = NGG_VERSION,
    .description = "UIKit's exclusive-touch and multiple-touch-off rules; every_view_exclusive makes every view exclusive.",
    .create = create,
    .destroy = destroy,
    .on_event = on_event,
    .options = options,
    .event_mask = NG_WANT_TOUCH_BEGAN,   /* it decides at began only */
};

const ng_plugin_descriptor *ngg_exclusive_touch_descriptor(void) { return &descriptor; }
