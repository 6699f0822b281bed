/* SPDX-License-Identifier: Apache-2.0 */
/* org.navguard.global-ignore — UIKit's ignoring of interaction events around
 * a transition, made safe: all app input
 * of the types in `mask` (default touches + motion) is ignored from
 * will-show to did-show. It takes a hold for every screen transition
 * (hold_during_transitions, default true), tied to that transition
 * (hold_begin_transition): the hold lives exactly as long as the transition,
 * a swipe back held half way included, and is never timed out apart from
 * it. The core then drops events in the hold's mask (naming this guard) and
 * cancels delivered touches when touches become blocked. */
#include <stdlib.h>
#include "../common/ngg_util.h"
#include "navguard_builtins.h"

typedef struct {
    const ng_guard_host *host;
    bool during_transitions;
    uint32_t mask;
    uint64_t token;
    bool tied;          /* the hold ends with its transition by itself */
} global_ignore;

static const ng_option_decl options[] = {
    NG_OPTION_INT("mask", "3", 1, NG_MASK_ALL,
                  "event types ignored during a transition: NG_MASK_* bits (1 touch, 2 motion, 4 remote, 8 key, "
                  "16 scroll, 32 hover)"),
    NG_OPTION_BOOL("hold_during_transitions", "true", "take the hold from will-show to did-show"),
    NG_OPTION_END,
};

static void *create(const ng_guard_host *host, const char *config) {
    (void)config;
    global_ignore *g = calloc(1, sizeof *g);
    if (!g) return NULL;
    g->host = host;
    g->mask = (uint32_t)ngg_int(host, "mask");
    g->during_transitions = ngg_bool(host, "hold_during_transitions");
    return g;
}

static void destroy(void *inst) { free(inst); }

static void on_transition(void *inst, const ng_transition_event *e) {
    global_ignore *g = inst;
    if (!g->during_transitions || e->track != NG_TRACK_SCREEN) return;
    const ng_guard_host *h = g->host;
    if (e->phase == NG_PHASE_WILL) {
        if (g->token != 0 || !(e->flags & NG_TRANSF_ANIMATED)) return;
        g->tied = NG_HAS_FIELD(h, ng_guard_host, hold_begin_transition);
        if (g->tied)
            h->hold_begin_transition(h, "global-ignore: transition", g->mask, &g->token);
        else   /* a host older than plugin ABI 1.2: ended below */
            h->hold_begin(h, "global-ignore: transition", g->mask, 0, &g->token);
    } else if (g->token != 0) {
        if (!g->tied) h->hold_end(h, g->token);   /* a tied hold has ended with its transition */
        g->token = 0;
    }
}

static void on_hold(void *inst, const ng_hold_notice *n) {
    global_ignore *g = inst;
    if (n->ended && n->token == g->token) g->token = 0;
}

static const ng_plugin_descriptor descriptor = {
    NG_PLUGIN_DESCRIPTOR_ABI,
    .id = "org.navguard.global-ignore",
    .name = "global-ignore",
    .version = NGG_VERSION,
    .description = "Ignores input of the types in mask (default touches + motion) from will-show to did-show by taking a hold.",
    .create = create,
    .destroy = destroy,
    .on_transition = on_transition,
    .on_hold = on_hold,
    .options = options,
};

const ng_plugin_descriptor *ngg_global_ignore_descriptor(void) { return &descriptor; }
