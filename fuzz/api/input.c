/* SPDX-License-Identifier: Apache-2.0 */
/* fuzz/api/input.c — navguard.h "Input events": ng_event_submit, touch storms. */
#include "ngf.h"

static bool touch_busy(const fzc *c, uint64_t id) {
    for (int i = 0; i < c->nbusy; i++)
        if (c->busy_touch[i] == id) return true;
    return false;
}

static void submit_event(target t, ng_event *e, bool null_ev, ng_event_result *out) {
    fzc *c = t.c;
    bool is_touch = !t.bad && !null_ev && e->type == NG_EVENT_TOUCH && e->size >= offsetof(ng_event, target_view);
    /* The host's view of a touch changes when the call returns; a callback
     * inside it touching the same id again would see the library ahead of the
     * model. Such a nested event uses another id. */
    if (is_touch) {
        for (;;) {
            touch_rec *o = touch_find(c, e->touch_id);
            if (!touch_busy(c, e->touch_id) && !(o && (o->owed_cancels || o->maybe_cancels))) break;
            e->touch_id += 1000003;
        }
    }
    touch_rec *tr = NULL;
    uint8_t before = T_ABSENT;
    bool tentative = false, lost_end = false;
    size_t lib_live = 0;
    if (is_touch) {
        tr = touch_find(c, e->touch_id);
        if (tr) touch_resolve(c, tr);
        before = tr ? tr->state : T_ABSENT;
        /* A began for an id the host still holds: its end was lost. */
        if (e->phase == NG_TOUCH_BEGAN && before != T_ABSENT && tr && !tr->tentative) {
            lost_end = true;
            if (before == T_DELIVERED) tr->owed_cancels++;
            tr->state = T_ABSENT;
        }
        if (e->phase == NG_TOUCH_BEGAN)
            for (size_t i = 0; i < c->ntouches; i++)
                if (c->touches[i].state == T_DELIVERED || c->touches[i].state == T_WITHHELD) lib_live++;
        if (e->phase == NG_TOUCH_BEGAN && (before == T_ABSENT || lost_end) && !(tr && tr->tentative)) {
            if (!tr) tr = touch_add(c, e->touch_id);
            tr->tentative = true;
            tr->resolved = -1;
            tr->state = T_ABSENT;
            tentative = true;
        }
    }
    if (is_touch) {
        CHECK(c->nbusy < (int)(sizeof c->busy_touch / sizeof c->busy_touch[0]), "too many nested events");
        c->busy_touch[c->nbusy++] = e->touch_id;
    }
    ng_status st = CALL(ng_event_submit, t.h, null_ev ? NULL : e, out);
    if (is_touch) c->nbusy--;
    bool known = st == NG_OK && out && out->size >= 8;
    TR("ng_event_submit(ctx#%d%s, type %" PRId32 ", phase %" PRId32 ", touch %" PRIu64 ", flags 0x%" PRIx32
       ", target %" PRIu64 ", (%g, %g), size %" PRIu32 ") -> %s %s %s", c ? c->serial : -1, t.bad ? " BAD" : "",
       e->type, e->phase, e->touch_id, e->flags, e->target_view, e->x, e->y, e->size, stname(st),
       known ? (out->verdict == NG_VERDICT_DELIVER ? "DELIVER" : "DROP") : "-",
       known && out->size >= 12 ? ng_reason_name(out->reason) : "");
    EXPECT_HANDLE(t, st, "ng_event_submit");
    if (t.bad) return;
    if (null_ev) { CHECK(st == NG_E_NULL, "ng_event_submit(NULL) returned %s", stname(st)); return; }
    if (known) CHECK(out->verdict == NG_VERDICT_DELIVER || out->verdict == NG_VERDICT_DROP, "verdict %" PRId32, out->verdict);
    if (known && out->size >= 12)
        CHECK(out->reason >= 0 && out->reason < NG_REASON_COUNT, "event drop reason %" PRId32, out->reason);
    if (!is_touch) return;
    tr = touch_find(c, e->touch_id);
    if (st != NG_OK) {
        if (tentative) {
            CHECK(tr && tr->resolved < 0, "touch %" PRIu64 ": callbacks ran for a refused began", e->touch_id);
            tr->tentative = false;
            tr->state = T_ABSENT;
            if (lost_end) {          /* refused before anything happened: the old touch stays */
                tr->state = before;
                if (before == T_DELIVERED) tr->owed_cancels--;
            }
            touch_gc(c);
        }
        return;
    }
    /* A began into a full table ends the touch idle longest first: a
     * delivered one got its cancel; a withheld one just left the library. */
    if (e->phase == NG_TOUCH_BEGAN && lib_live >= NG_LIVE_TOUCHES)
        for (size_t i = 0; i < c->ntouches; i++)
            if (c->touches[i].state == T_WITHHELD && lib_touch_state(c, c->touches[i].id) < 0)
                c->touches[i].state = T_CANCELLED;
    int verdict = known ? out->verdict : -1;
    int32_t reason = known && out->size >= 12 ? out->reason : -1;
    switch (e->phase) {
    case NG_TOUCH_BEGAN:
        if (!tentative) {           /* its began is being submitted further out */
            CHECK(verdict != NG_VERDICT_DELIVER, "a second began of touch %" PRIu64 " (%s) was delivered while its "
                  "first was being submitted", e->touch_id, tstate_name[before]);
            break;
        }
        /* No id stays blocked: a began is never refused for its id. */
        if (known && out->size >= offsetof(ng_event_result, hold_token))
            CHECK(reason != NG_REASON_INVALID || out->guard_id != NULL, "began of touch %" PRIu64 " dropped invalid by "
                  "the core: its id is blocked", e->touch_id);
        CHECK(tr && tr->tentative, "touch record lost");
        if (tr->resolved < 0) {
            if (verdict < 0 || c->cb_depth > 0) touch_resolve(c, tr);
            else {
                tr->resolved = verdict == NG_VERDICT_DELIVER ? 1 : 0;
                if (tr->resolved) tr->state = T_DELIVERED;
                else tr->state = lib_touch_state(c, tr->id) == NG_TOUCH_STATE_WITHHELD ? T_WITHHELD : T_ABSENT;
            }
        }
        if (verdict >= 0)
            CHECK((verdict == NG_VERDICT_DELIVER) == (tr->resolved == 1), "began of touch %" PRIu64 ": verdict %s but "
                  "the library holds it as %s", e->touch_id, verdict == NG_VERDICT_DELIVER ? "DELIVER" : "DROP",
                  tr->resolved == 1 ? "delivered" : "not delivered");
        tr->tentative = false;
        break;
    case NG_TOUCH_MOVED:
        if (verdict == NG_VERDICT_DELIVER)
            CHECK(before == T_DELIVERED, "moved of touch %" PRIu64 " delivered while the host holds it as %s",
                  e->touch_id, tstate_name[before]);
        break;
    default: /* ended, cancelled */
        if (verdict < 0) {
            /* No result: the end was delivered, unless the library had
             * cancelled the touch with its on_touch_cancel still queued
             * (possible only inside a callback of this context). */
            CHECK(lib_touch_state(c, e->touch_id) < 0, "touch %" PRIu64 " still live after its end", e->touch_id);
            if (tr && tr->state == T_DELIVERED && c->cb_depth > 0) tr->maybe_cancels++;
            if (tr) tr->state = T_ABSENT;
            break;
        }
        if (verdict == NG_VERDICT_DELIVER) {
            CHECK(before == T_DELIVERED && tr && tr->state == T_DELIVERED, "end of touch %" PRIu64 " delivered while the "
                  "host holds it as %s: a touch ended twice (or never began)", e->touch_id,
                  tstate_name[tr ? tr->state : T_ABSENT]);
            tr->state = T_ABSENT;
        } else if (tr && tr->state == T_DELIVERED) {
            /* F6 (crashers/README.md): inside a callback, a touch evicted
             * from the full table has its end dropped as invalid. */
            CHECK(reason == NG_REASON_CANCELLED || reason < 0 ||
                  (reason == NG_REASON_INVALID && c->cb_depth > 0 && !FINDING(6)), "end of delivered touch %" PRIu64
                  " dropped (%s): a delivered touch's end is always delivered", e->touch_id, ng_reason_name(reason));
            tr->state = T_ABSENT;
            tr->owed_cancels++;             /* its on_touch_cancel must follow */
        } else if (tr) {
            tr->state = T_ABSENT;
        }
        break;
    }
    touch_gc(c);
}

void op_event(fzc *self, rd *r) {
    target t = pick(self, r);
    ng_event e;
    memset(&e, 0, sizeof e);
    e.size = sizeof e;
    uint8_t ty = r8(r);
    e.type = ty < 160 ? NG_EVENT_TOUCH : ty < 245 ? (ng_event_type)(ty % NG_EVENT_TYPE_COUNT) : (ng_event_type)(int8_t)r8(r);
    uint8_t ph = r8(r);
    e.phase = ph < 248 ? (int32_t)(ph % 4) : (int32_t)(int8_t)r8(r) * 7;
    uint8_t fl = r8(r);
    e.flags = fl < 180 ? 0 : fl < 250 ? NG_EVF_HAS_TARGET : r32(r);
    e.touch_id = r_touch_id(r);
    e.timestamp_ns = (int64_t)r16(r);
    e.x = r_double(r);
    e.y = r_double(r);
    e.target_view = r_view_id(r);
    e.code = (int64_t)(int8_t)r8(r);
    uint8_t z = r8(r);
    if (z >= 236) {
        static const uint32_t sizes[] = { 0, 4, offsetof(ng_event, target_view) - 1, offsetof(ng_event, target_view),
                                          offsetof(ng_event, code), sizeof(ng_event) + 64, UINT32_MAX, 8 };
        e.size = sizes[z % 8];
    }
    ng_event_result res;
    memset(&res, 0x5A, sizeof res);
    res.size = sizeof res;
    ng_event_result *out = &res;
    uint8_t o = r8(r);
    if (o >= 200) {
        static const uint32_t sizes[] = { 0, 4, 8, 12, 16, 24, sizeof(ng_event_result) + 8 };
        if (o < 220) out = NULL;
        else res.size = sizes[o % 7];
    }
    bool null_ev = r8(r) >= 252;
    submit_event(t, &e, null_ev, out);
}

/* Many touches at once: the 64 live-touch limit. */
void op_touch_storm(fzc *self, rd *r) {
    target t = pick(self, r);
    static const int counts[] = { 4, 16, 63, 64, 70 };
    int n = counts[r8(r) % 5];
    bool end = r8(r) % 2;
    uint64_t base = 100 + (uint64_t)(r8(r) % 4) * 100;
    for (int pass = 0; pass < (end ? 2 : 1); pass++) {
        for (int i = 0; i < n; i++) {
            ng_event e = NG_EVENT_INIT(NG_EVENT_TOUCH);
            e.phase = pass == 0 ? NG_TOUCH_BEGAN : NG_TOUCH_ENDED;
            e.touch_id = base + (uint64_t)i;
            e.x = (double)(i % 10) * 10.0 + 1.0;
            e.y = (double)(i / 10) * 10.0 + 1.0;
            ng_event_result res = NG_EVENT_RESULT_INIT;
            submit_event(t, &e, false, &res);
            if (t.c && !ctx_usable(t.c)) return;
        }
    }
}
