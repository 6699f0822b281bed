/* SPDX-License-Identifier: Apache-2.0 */
/* fuzz/api/transitions.c — navguard.h "Transitions": ng_transition_finish, ng_interactive_*. */
#include "ngf.h"

static bool model_interactive(const fzc *c) {
    for (int t = 0; t < 2; t++)
        if (c->inflight[t] && (c->inflight_flags[t] & NG_TRANSF_INTERACTIVE)) return true;
    return false;
}

/* 0: the interactive back in flight is not released by this host; 1: released
 * to finish; 2: released to cancel. */
static int model_released(const fzc *c) {
    if (!c->released_id || !model_interactive(c)) return 0;
    for (int t = 0; t < 2; t++)
        if (c->inflight[t] == c->released_id) return c->released_finish ? 1 : 2;
    return 0;
}

ng_track r_track(rd *r) {
    uint8_t b = r8(r);
    if (b < 240) return (ng_track)(b % 3);
    static const ng_track odd[] = { -1, 3, INT32_MIN, INT32_MAX };
    return odd[b % 4];
}

void op_finish(fzc *self, rd *r) {
    target t = pick(self, r);
    ng_track track = r_track(r);
    fzc *c = t.c;
    bool exact = !t.bad && c->cb_depth == 0;
    bool busy = exact && (track == NG_TRACK_ALL ? (c->inflight[0] || c->inflight[1])
                                                : (track >= 0 && track < 2 && c->inflight[track]));
    uint64_t was[2] = { c ? c->inflight[0] : 0, c ? c->inflight[1] : 0 };
    bool to_cancel = exact && model_released(c) == 2;
    ng_status st = CALL(ng_transition_finish, t.h, track);
    TR("ng_transition_finish(ctx#%d%s, track %" PRId32 ") -> %s", c ? c->serial : -1, t.bad ? " BAD" : "", track, stname(st));
    EXPECT_HANDLE(t, st, "ng_transition_finish");
    if (t.bad) return;
    if (track < 0 || track > NG_TRACK_ALL) { CHECK(st == NG_E_RANGE, "finish(track %" PRId32 ") returned %s", track, stname(st)); return; }
    if (exact) {
        CHECK(st == (!busy ? NG_E_NOT_FOUND : to_cancel ? NG_E_STATE : NG_OK), "ng_transition_finish(track %" PRId32 ") returned %s; the host "
              "was told track 0: %" PRIu64 ", track 1: %" PRIu64, track, stname(st), c->inflight[0], c->inflight[1]);
        /* (a deferred request may start a new transition at once: compare ids) */
        if (st == NG_OK) {
            for (int k = 0; k < 2; k++)
                if (track == NG_TRACK_ALL || track == k)
                    CHECK(!was[k] || c->inflight[k] != was[k], "finish(%" PRId32 "): request %" PRIu64
                          " is still in flight on track %d (no DID)", track, was[k], k);
        }
    }
}

void op_interactive(fzc *self, rd *r) {
    target t = pick(self, r);
    uint8_t which = r8(r);
    bool cancel = which % 3 == 0;
    double p = r_progress(r);
    fzc *c = t.c;
    bool exact = !t.bad && c->cb_depth == 0;
    bool inter = exact && model_interactive(c);
    int released = exact ? model_released(c) : 0;
    uint64_t was[2] = { c ? c->inflight[0] : 0, c ? c->inflight[1] : 0 };
    ng_status st;
    if (!cancel && which >= 200) {
        /* release (finish or cancel), or complete */
        bool complete = which >= 236, finish = which & 1;
        uint64_t id = c && model_interactive(c) ? (c->inflight[0] ? c->inflight[0] : c->inflight[1]) : 0;
        if (complete) st = CALL(ng_interactive_complete, t.h);
        else st = CALL(ng_interactive_release, t.h, finish);
        TR("ng_interactive_%s(ctx#%d%s%s) -> %s", complete ? "complete" : "release", c ? c->serial : -1,
           t.bad ? " BAD" : "", complete ? "" : finish ? ", finish" : ", cancel", stname(st));
        EXPECT_HANDLE(t, st, "ng_interactive_release/complete");
        if (!complete && st == NG_OK && c) { c->released_id = id; c->released_finish = finish; }
        if (!exact) return;
        if (complete) {
            CHECK(st == (!inter ? NG_E_NOT_FOUND : released ? NG_OK : NG_E_STATE), "ng_interactive_complete returned %s; "
                  "interactive %d, released %d", stname(st), inter, released);
            if (st == NG_OK)
                for (int k = 0; k < 2; k++)
                    CHECK(!was[k] || c->inflight[k] != was[k], "interactive complete left request %" PRIu64 " in flight", was[k]);
        } else {
            CHECK(st == (!inter ? NG_E_NOT_FOUND : released ? NG_E_STATE : NG_OK), "ng_interactive_release returned %s; "
                  "interactive %d, released %d", stname(st), inter, released);
        }
        return;
    }
    if (cancel) {
        st = CALL(ng_interactive_cancel, t.h);
        TR("ng_interactive_cancel(ctx#%d%s) -> %s", c ? c->serial : -1, t.bad ? " BAD" : "", stname(st));
    } else {
        st = CALL(ng_interactive_update, t.h, p);
        TR("ng_interactive_update(ctx#%d%s, %g) -> %s", c ? c->serial : -1, t.bad ? " BAD" : "", p, stname(st));
    }
    EXPECT_HANDLE(t, st, "ng_interactive_*");
    if (!exact) return;
    if (!cancel && !(p >= 0.0 && p <= 1.0)) {
        CHECK(st == NG_E_RANGE, "ng_interactive_update(%g) returned %s", p, stname(st));
        return;
    }
    ng_status want = !inter ? NG_E_NOT_FOUND : cancel && released == 1 ? NG_E_STATE : NG_OK;
    CHECK(st == want, "ng_interactive_%s returned %s; the host was told an interactive "
          "back is %sin flight (released %d)", cancel ? "cancel" : "update", stname(st), inter ? "" : "not ", released);
    if (cancel && st == NG_OK)
        for (int k = 0; k < 2; k++)
            CHECK(!was[k] || c->inflight[k] != was[k], "interactive cancel left request %" PRIu64 " in flight", was[k]);
}
