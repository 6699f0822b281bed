/* org.navguard.global-ignore — seed 000 level (c) and seed 003: all app input
 * of the types in `mask` (default touches + motion) is ignored from
 * will-show to did-show. It takes a hold for every screen transition
 * (hold_during_transitions, default true) and releases it when the
 * transition ends or is cancelled. The core then drops events in the hold's
 * mask and cancels delivered touches when touches become blocked. */
#include <stdlib.h>
#include "../common/ngg_util.h"
#include "navguard_builtins.h"

typedef struct {
    const ng_guard_host *host;
    bool during_transitions;
    uint32_t mask;
    uint64_t token;
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
    if (e->phase == NG_PHASE_WILL) {
        if (g->token == 0 && (e->flags & NG_TRANSF_ANIMATED))
            g->host->hold_begin(g->host, "global-ignore: transition", g->mask, 0, &g->token);
    } else if (g->token != 0) {
        g->host->hold_end(g->host, g->token);   /* NOT_FOUND if a watchdog ended it */
        g->token = 0;
    }
}

static void on_hold(void *inst, const ng_hold_notice *n) {
    global_ignore *g = inst;
    if (n->ended && n->token == g->token) g->token = 0;
}

static const void *get_extension(void *inst, const char *id) { (void)inst; (void)id; return NULL; }

static const ng_plugin_descriptor descriptor = {
    NG_PLUGIN_ABI_MAJOR, NG_PLUGIN_ABI_MINOR, sizeof(ng_plugin_descriptor),
    "org.navguard.global-ignore", "global-ignore", NGG_VERSION,
    "Ignores input of the types in mask (default touches + motion) from will-show to did-show by taking a hold.",
    create, destroy, NULL, NULL, NULL, on_transition, on_hold, NULL, NULL, get_extension, options,
};

const ng_plugin_descriptor *ngg_global_ignore_descriptor(void) { return &descriptor; }
