/* SPDX-License-Identifier: Apache-2.0 */
/* fuzz/api/time.c — navguard.h "Time": ng_tick, ng_next_deadline, ng_now, ng_clock_*. */
#include "ngf.h"

static void tick_ctx(fzc *c, ng_context *h, bool bad) {
    ng_status st = CALL(ng_tick, h);
    TR("ng_tick(ctx#%d%s) -> %s", c ? c->serial : -1, bad ? " BAD" : "", stname(st));
    if (bad) { CHECK(st == NG_E_HANDLE, "ng_tick on a bad handle returned %s", stname(st)); return; }
    if (c->cb_depth > 0) { CHECK(st == NG_E_CALLBACK, "ng_tick inside a callback returned %s", stname(st)); return; }
    CHECK(st == NG_OK, "ng_tick returned %s", stname(st));
    for (int round = 0;; round++) {
        if (!ctx_usable(c)) return;      /* destroyed by a nested call */
        int64_t d = 0;
        CHECK(CALL(ng_next_deadline, c->h, &d) == NG_OK, "ng_next_deadline");
        if (d == NG_NO_DEADLINE || d > c->now) return;
        CHECK(round < 64, "wedged: after %d ticks at now=%" PRId64 " ng_next_deadline is still %" PRId64
              " (work due that ng_tick never does)", round + 1, c->now, d);
        st = CALL(ng_tick, c->h);
        CHECK(st == NG_OK, "ng_tick returned %s", stname(st));
    }
}

void op_time(fzc *self, rd *r) {
    target t = pick(self, r);
    fzc *c = t.c;
    uint8_t what = r8(r) % 5;
    if (what == 0 || what == 1) {
        int64_t v = r_time(r);
        if (what == 1 && c && r8(r) % 2) {           /* set relative to now */
            int64_t rel = (int64_t)(int8_t)r8(r);
            v = (rel > 0 && c->now > INT64_MAX - rel) ? INT64_MAX : c->now + rel;
        }
        ng_status st = what == 0 ? CALL(ng_clock_advance, t.h, v) : CALL(ng_clock_set, t.h, v);
        TR("ng_clock_%s(ctx#%d%s, %" PRId64 ") -> %s", what == 0 ? "advance" : "set", c ? c->serial : -1,
           t.bad ? " BAD" : "", v, stname(st));
        EXPECT_HANDLE(t, st, "ng_clock_*");
        if (t.bad) return;
        bool ok;
        int64_t next = c->now;
        if (what == 0) {
            ok = v >= 0 && c->now <= INT64_MAX - v;
            if (ok) next = c->now + v;
        } else {
            ok = v >= c->now;
            if (ok) next = v;
        }
        CHECK(st == (ok ? NG_OK : NG_E_RANGE), "ng_clock_%s(%" PRId64 ") at now %" PRId64 " returned %s",
              what == 0 ? "advance" : "set", v, c->now, stname(st));
        c->now = next;
    } else if (what == 2 || what == 3) {
        tick_ctx(c, t.h, t.bad);
    } else {
        int64_t d = 0, now = 0;
        bool null_out = r8(r) >= 240;
        ng_status st = CALL(ng_next_deadline, t.h, null_out ? NULL : &d);
        EXPECT_HANDLE(t, st, "ng_next_deadline");
        ng_status st2 = CALL(ng_now, t.h, null_out ? NULL : &now);
        EXPECT_HANDLE(t, st2, "ng_now");
        if (!t.bad && null_out) CHECK(st == NG_E_NULL && st2 == NG_E_NULL, "NULL out_ns not refused");
        if (!t.bad && !null_out) CHECK(now == c->now, "ng_now %" PRId64 " != %" PRId64, now, c->now);
    }
}
