/* SPDX-License-Identifier: Apache-2.0 */
/* fuzz/api/context.c — navguard.h "Context": ng_context_destroy, contexts from odd options,
 * new contexts. */
#include "ngf.h"

#include <pthread.h>

void op_destroy(fzc *self, rd *r) {
    target t = pick(self, r);
    if (t.c) {
        destroy_ctx(t.c);
    } else {
        ng_status st = CALL(ng_context_destroy, t.h);
        TR("ng_context_destroy(foreign %p) -> %s", (void *)t.h, stname(st));
        CHECK(st == (t.h ? NG_E_HANDLE : NG_OK), "ng_context_destroy(%p) returned %s", (void *)t.h, stname(st));
    }
}

/* Options as the fuzz input gives them; valid ones are destroyed at once. */
void op_create_odd(rd *r) {
    ng_options o = NG_OPTIONS_INIT;
    uint8_t b = r8(r);
    o.clock = b < 200 ? NG_CLOCK_MANUAL : b < 220 ? NG_CLOCK_MONOTONIC : (ng_clock_kind)(int8_t)r8(r);
    o.manual_start_ns = r8(r) % 2 ? 0 : r_time(r);
    o.default_duration_ns = r8(r) % 2 ? 0 : r_time(r);
    static const uint32_t sizes[] = { sizeof(ng_options), 0, 4, 7, 8, 16, 24, sizeof(ng_options) + 16 };
    o.size = sizes[r8(r) % 8];
    static const uint32_t dsizes[] = { sizeof(ng_delegate), 0, 4, 16, offsetof(ng_delegate, on_touch_cancel) };
    o.delegate.size = dsizes[r8(r) % 5];
    uint8_t how = r8(r) % 4;
    ng_context *h = (ng_context *)(uintptr_t)0x1;
    ng_status st = CALL(ng_context_create, how == 0 ? NULL : &o, how == 1 ? NULL : &h);
    TR("ng_context_create(odd options: size %" PRIu32 ", clock %" PRId32 ", start %" PRId64 ") -> %s", o.size, o.clock,
       o.manual_start_ns, stname(st));
    if (how == 1) { CHECK(st == NG_E_NULL, "ng_context_create(out NULL) returned %s", stname(st)); return; }
    if (st != NG_OK) {
        CHECK(h == NULL, "ng_context_create failed (%s) but did not set *out to NULL", stname(st));
        return;
    }
    CHECK(h != NULL, "ng_context_create returned OK with NULL");
    /* a quick life: a request and an event, then destroy */
    ng_screen root = { 9, "odd", NULL };
    CALL(ng_stack_set_root, h, &root);
    ng_request q = NG_REQUEST_INIT(NG_REQ_PUSH);
    q.screen.id = 10;
    q.screen.route = "next";
    q.flags = NG_REQF_ANIMATED | NG_REQF_TIMED;
    CALL(ng_request_submit, h, &q, NULL);
    ng_event e = NG_EVENT_INIT(NG_EVENT_TOUCH);
    CALL(ng_event_submit, h, &e, NULL);
    CALL(ng_tick, h);
    check_errmsg(h);
    CHECK(CALL(ng_context_destroy, h) == NG_OK, "destroy");
}

ng_options base_options(int64_t start, int64_t duration) {
    ng_options o = NG_OPTIONS_INIT;
    o.clock = NG_CLOCK_MANUAL;
    o.manual_start_ns = start;
    o.default_duration_ns = duration;
    return o;
}

void op_recreate(rd *r) {
    int s = r8(r) % 2;
    if (g_slot[s] && !g_slot[s]->dead) return;
    ng_options o = base_options(r8(r) % 2 ? 0 : (int64_t)r16(r) * 1000000, 0);
    fzc *c = ctx_new(&o);
    if (!c) return;
    g_slot[s] = c;
    uint8_t b = r8(r);
    if (b % 4 == 1) configure_chain(c, -1);
    else if (b % 4 == 2) configure_chain(c, (int)((b >> 2) % N_GOOD_CHAIN_VARIANTS));
    if (r8(r) % 8) set_root_default(c);
}

/* Ownership moved: ng_context_detach, then ng_context_attach by this thread
 * or, first, by another one (which then owns it, so this thread's calls get
 * NG_E_THREAD until it gives it back). Posting works while detached. The
 * context is always attached to this thread again before the op ends. */
typedef struct {
    ng_context *h;
    int step;                 /* 0: attach; 1: detach */
    ng_status st;
} handoff;

static void *other_thread(void *arg) {
    handoff *o = arg;
    o->st = o->step == 0 ? ng_context_attach(o->h) : ng_context_detach(o->h);
    return NULL;
}

static ng_status on_other_thread(ng_context *h, int step) {
    handoff o = { h, step, NG_E_STATE };
    pthread_t th;
    if (pthread_create(&th, NULL, other_thread, &o) != 0) return NG_E_NO_MEMORY;
    pthread_join(th, NULL);
    return o.st;
}

void op_detach(fzc *self, rd *r) {
    target t = pick(self, r);
    fzc *c = t.c;
    uint8_t how = r8(r);
    ng_status st = CALL(ng_context_detach, t.h);
    TR("ng_context_detach(ctx#%d%s) -> %s", c ? c->serial : -1, t.bad ? " BAD" : "", stname(st));
    EXPECT_HANDLE(t, st, "ng_context_detach");
    if (t.bad || !c) {
        CHECK(CALL(ng_context_attach, t.h) == NG_E_HANDLE, "ng_context_attach(NULL/stale/foreign handle)");
        return;
    }
    if (c->cb_depth > 0) {
        CHECK(st == NG_E_CALLBACK, "ng_context_detach from the context's own callback returned %s", stname(st));
        /* Its owner's; during its destroy the handle is closing already (posts are refused). */
        st = CALL(ng_context_attach, t.h);
        CHECK(st == NG_OK || (c->destroying && st == NG_E_HANDLE), "ng_context_attach by the owner%s returned %s",
              c->destroying ? " during destroy" : "", stname(st));
        return;
    }
    CHECK(st == NG_OK, "ng_context_detach returned %s (%s)", stname(st), ng_errmsg(t.h));
    c->detached = true;
    /* No thread owns it: [owner] calls are refused, posting works. */
    size_t n = 0;
    CHECK(CALL(ng_stack_count, t.h, &n) == NG_E_THREAD, "ng_stack_count on a detached context");
    CHECK(CALL(ng_tick, t.h) == NG_E_THREAD, "ng_tick on a detached context");
    CHECK(ng_errmsg(t.h) != NULL, "ng_errmsg(detached) is NULL");
    if (how % 2) {
        ng_request q = NG_REQUEST_INIT(NG_REQ_PUSH);
        q.screen = (ng_screen){ 12, "posted-detached", NULL };
        uint64_t id = 0;
        st = CALL(ng_request_post, t.h, &q, &id);
        CHECK(st == NG_OK || st == NG_E_NO_MEMORY, "ng_request_post to a detached context returned %s", stname(st));
        if (st == NG_OK) {
            c->accepted++;
            req_rec *rec = req_get(c, id);
            CHECK(!rec->returned, "posted request id %" PRIu64 " handed out twice", id);
            rec->returned = rec->submitted = true;
            rec->kind = NG_REQ_PUSH;
            rec->source = 0;
        }
    }
    if ((how >> 1) % 4 == 0) {
        /* Another thread takes it, then gives it back. */
        st = on_other_thread(t.h, 0);
        CHECK(st == NG_OK, "ng_context_attach on another thread returned %s", stname(st));
        CHECK(CALL(ng_context_attach, t.h) == NG_E_THREAD, "ng_context_attach of a context another thread owns");
        CHECK(CALL(ng_stack_count, t.h, &n) == NG_E_THREAD, "ng_stack_count of a context another thread owns");
        CHECK(CALL(ng_context_detach, t.h) == NG_E_THREAD, "ng_context_detach of a context another thread owns");
        st = on_other_thread(t.h, 1);
        CHECK(st == NG_OK, "ng_context_detach on the other thread returned %s", stname(st));
    }
    st = CALL(ng_context_attach, t.h);
    CHECK(st == NG_OK, "ng_context_attach of a detached context returned %s", stname(st));
    CHECK(CALL(ng_context_attach, t.h) == NG_OK, "ng_context_attach by its owner");
    c->detached = false;
    CHECK(CALL(ng_stack_count, t.h, &n) == NG_OK, "ng_stack_count after ng_context_attach");
}
