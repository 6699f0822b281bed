/* SPDX-License-Identifier: Apache-2.0 */
/* The descriptor's event_mask (plugin ABI 1.3): a guard's on_event is called
 * only for the events it asked for; a descriptor of an older size (whatever
 * lies past its `size`) or a mask of 0 is called for every event, as before;
 * unknown bits are refused. */
#include <navguard/navguard.h>
#include <navguard/plugin.h>

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

/* Calls per NG_WANT_* bit, per guard. */
typedef struct { unsigned calls[8]; } counts;

static unsigned bit_index(uint32_t want) {
    unsigned k = 0;
    while (want > 1) { want >>= 1; k++; }
    return k;
}

static void *create(const ng_guard_host *host, const char *config) {
    (void)host;
    (void)config;
    return calloc(1, sizeof(counts));
}
static void destroy(void *inst) { free(inst); }

/* Counts the event, and refuses moves: a guard that did not ask for them
 * must not be able to drop them. */
static ng_vote on_event(void *inst, const ng_guard_event *ge, ng_verdict *v) {
    counts *c = inst;
    c->calls[bit_index(ng_event_want(ge->event->type, ge->event->phase))]++;
    if (ge->event->type == NG_EVENT_TOUCH && ge->event->phase == NG_TOUCH_MOVED) {
        v->reason = NG_REASON_POLICY;
        return NG_VOTE_REFUSE;
    }
    return NG_VOTE_ALLOW;
}

static counts *g_inst[4];
static int g_n;
static void *create_kept(const ng_guard_host *host, const char *config) {
    counts *c = create(host, config);
    g_inst[g_n++] = c;
    return c;
}

#define DESC(idv, mask)                                                                                 \
    { NG_PLUGIN_DESCRIPTOR_ABI, .id = idv, .name = "mask", .version = "1.0", .description = "test",      \
      .create = create_kept, .destroy = destroy, .on_event = on_event, .event_mask = (mask) }

static ng_status submit(ng_context *ctx, int32_t type, int32_t phase, uint64_t touch, ng_event_result *r) {
    ng_event e = NG_EVENT_INIT(type);
    e.phase = phase;
    e.touch_id = touch;
    e.x = 10;
    e.y = 10;
    *r = (ng_event_result)NG_EVENT_RESULT_INIT;
    return ng_event_submit(ctx, &e, r);
}

/* One event of every NG_WANT_* bit (both touch ends), through a chain of
 * the given descriptors; returns the contexts' verdict on the moved touch. */
static int32_t run(const ng_plugin_descriptor *const *descs, int n) {
    g_n = 0;
    ng_context *ctx = NULL;
    MUST(NULL, ng_context_create(NULL, &ctx));
    ng_screen root = { 1, "home", NULL };
    MUST(ctx, ng_stack_set_root(ctx, &root));
    for (int i = 0; i < n; i++) MUST(ctx, ng_chain_add(ctx, descs[i], NULL));
    ng_event_result r, moved;
    MUST(ctx, submit(ctx, NG_EVENT_TOUCH, NG_TOUCH_BEGAN, 1, &r));
    MUST(ctx, submit(ctx, NG_EVENT_TOUCH, NG_TOUCH_MOVED, 1, &moved));
    MUST(ctx, submit(ctx, NG_EVENT_TOUCH, NG_TOUCH_ENDED, 1, &r));
    MUST(ctx, submit(ctx, NG_EVENT_TOUCH, NG_TOUCH_BEGAN, 2, &r));
    MUST(ctx, submit(ctx, NG_EVENT_TOUCH, NG_TOUCH_CANCELLED, 2, &r));
    for (int32_t t = NG_EVENT_MOTION; t < NG_EVENT_TYPE_COUNT; t++) MUST(ctx, submit(ctx, t, 0, 0, &r));
    /* counts read before destroy frees them */
    static counts kept[4];
    for (int i = 0; i < g_n; i++) kept[i] = *g_inst[i];
    MUST(ctx, ng_context_destroy(ctx));
    for (int i = 0; i < g_n; i++) g_inst[i] = &kept[i];
    return moved.verdict;
}

static void test_want_rule(void) {
    /* Every (type, phase) has one bit, and the bits cover NG_WANT_ALL. */
    uint32_t seen = 0;
    for (int32_t p = NG_TOUCH_BEGAN; p <= NG_TOUCH_CANCELLED; p++) seen |= ng_event_want(NG_EVENT_TOUCH, p);
    for (int32_t t = NG_EVENT_MOTION; t < NG_EVENT_TYPE_COUNT; t++) {
        uint32_t w = ng_event_want(t, 0);
        EXPECT(w != 0 && (w & (w - 1)) == 0, "type %d: one bit, got 0x%x", t, w);
        EXPECT(!(seen & w), "type %d: bit 0x%x shared", t, w);
        seen |= w;
    }
    EXPECT(seen == NG_WANT_ALL, "bits 0x%x", seen);
    EXPECT(ng_event_want(NG_EVENT_TOUCH, NG_TOUCH_ENDED) == NG_WANT_TOUCH_END &&
               ng_event_want(NG_EVENT_TOUCH, NG_TOUCH_CANCELLED) == NG_WANT_TOUCH_END, "both ends are one bit");
    EXPECT(ng_event_want(NG_EVENT_KEY, NG_KEY_REPEAT) == NG_WANT_KEY, "a key's phase does not matter");
}

static void test_masked_and_old(void) {
    /* A 1.2 descriptor: its size ends before event_mask, so whatever lies
     * there (here a mask that would exclude moves) is not read. */
    static ng_plugin_descriptor old = DESC("org.navguard.test.old", NG_WANT_KEY);
    old.abi_minor = 2;
    old.size = (uint32_t)offsetof(ng_plugin_descriptor, event_mask);
    static const ng_plugin_descriptor all = DESC("org.navguard.test.all", 0);
    static const ng_plugin_descriptor masked =
        DESC("org.navguard.test.masked", NG_WANT_TOUCH_BEGAN | NG_WANT_TOUCH_END | NG_WANT_KEY);

    /* Masked alone: the moved touch reaches no guard that refuses it. */
    const ng_plugin_descriptor *m[] = { &masked };
    int32_t v = run(m, 1);
    EXPECT(v == NG_VERDICT_DELIVER, "moved not asked for: delivered (verdict %d)", v);
    counts c = *g_inst[0];
    EXPECT(c.calls[bit_index(NG_WANT_TOUCH_BEGAN)] == 2, "began: %u", c.calls[bit_index(NG_WANT_TOUCH_BEGAN)]);
    EXPECT(c.calls[bit_index(NG_WANT_TOUCH_END)] == 2, "ended and cancelled: %u", c.calls[bit_index(NG_WANT_TOUCH_END)]);
    EXPECT(c.calls[bit_index(NG_WANT_KEY)] == 1, "key: %u", c.calls[bit_index(NG_WANT_KEY)]);
    static const uint32_t not_asked[] = { NG_WANT_TOUCH_MOVED, NG_WANT_MOTION, NG_WANT_REMOTE, NG_WANT_SCROLL,
                                          NG_WANT_HOVER };
    for (size_t i = 0; i < sizeof not_asked / sizeof not_asked[0]; i++)
        EXPECT(c.calls[bit_index(not_asked[i])] == 0, "bit 0x%x not asked for: %u calls", not_asked[i],
               c.calls[bit_index(not_asked[i])]);

    /* The old-size and the mask-0 descriptor get every event, beside the
     * masked one; the old one refuses the move, as before. */
    const ng_plugin_descriptor *chain[] = { &masked, &old, &all };
    v = run(chain, 3);
    EXPECT(v == NG_VERDICT_DROP, "a guard asking for moves still drops one (verdict %d)", v);
    for (int g = 1; g <= 2; g++) {
        counts k = *g_inst[g];
        for (unsigned b = 0; b < 8; b++) {
            unsigned want = (1u << b) == NG_WANT_TOUCH_BEGAN || (1u << b) == NG_WANT_TOUCH_END ? 2 : 1;
            /* the walk stops at the old guard's refusal of the move */
            if (g == 2 && (1u << b) == NG_WANT_TOUCH_MOVED) want = 0;
            EXPECT(k.calls[b] == want, "%s guard, bit 0x%x: %u calls, expected %u", g == 1 ? "old-size" : "mask-0",
                   1u << b, k.calls[b], want);
        }
    }
    EXPECT(g_inst[0]->calls[bit_index(NG_WANT_TOUCH_MOVED)] == 0, "masked guard: no move");
}

static void test_unknown_bits(void) {
    static const ng_plugin_descriptor bad = DESC("org.navguard.test.bad", 0x100u);
    ng_context *ctx = NULL;
    MUST(NULL, ng_context_create(NULL, &ctx));
    EXPECT_ST(ctx, ng_chain_add(ctx, &bad, NULL), NG_E_GUARD);
    EXPECT(strstr(ng_errmsg(ctx), "event_mask") != NULL, "message: %s", ng_errmsg(ctx));
    MUST(ctx, ng_context_destroy(ctx));
}

int main(void) {
    test_want_rule();
    test_masked_and_old();
    test_unknown_bits();
    printf("test_event_mask: %d checks, %d failures\n", g_checks, g_failures);
    return g_failures ? 1 : 0;
}
