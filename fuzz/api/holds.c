/* SPDX-License-Identifier: Apache-2.0 */
/* fuzz/api/holds.c — navguard.h "Holds": ng_hold_begin, ng_hold_end. */
#include "ngf.h"

void op_hold_begin(fzc *self, rd *r) {
    target t = pick(self, r);
    arena a;
    memset(&a, 0, sizeof a);
    const char *label = r_str(r, &a);
    uint8_t mb = r8(r);
    uint32_t mask = mb < 200 ? (uint32_t)(mb % 0x40) : (mb < 230 ? (uint32_t)mb : r32(r));
    int64_t dur = r8(r) % 2 ? 0 : r_time(r);
    bool null_out = r8(r) >= 245;
    uint64_t tok = 0;
    fzc *c = t.c;
    size_t known_holds = c ? c->nholds : 0;
    ng_status st = CALL(ng_hold_begin, t.h, label, mask, dur, null_out ? NULL : &tok);
    TR("ng_hold_begin(ctx#%d%s, mask 0x%" PRIx32 ", %" PRId64 " ns) -> %s token %" PRIu64, c ? c->serial : -1,
       t.bad ? " BAD" : "", mask, dur, stname(st), tok);
    EXPECT_HANDLE(t, st, "ng_hold_begin");
    if (t.bad) return;
    if (null_out) { CHECK(st == NG_E_NULL, "ng_hold_begin(out_token NULL) returned %s", stname(st)); return; }
    if (st != NG_OK) return;
    CHECK(tok != 0, "ng_hold_begin returned token 0");
    /* (a callback inside this call may already have ended it, guessing the
     * token: then its record is new) */
    uint32_t idx = map_find(&c->hold_index, tok);
    CHECK(idx == 0 || idx > known_holds, "hold token %" PRIu64 " reused", tok);
    hold_rec *h = hold_get(c, tok, true);
    CHECK(!h->host, "hold token %" PRIu64 " handed out twice", tok);
    h->host = true;
    if (tok > c->last_host_token) c->last_host_token = tok;
}

void op_hold_end(fzc *self, rd *r) {
    target t = pick(self, r);
    fzc *c = t.c;
    uint64_t tok;
    uint8_t b = r8(r);
    if (b < 160 && c && c->nholds) tok = c->holds[r8(r) % c->nholds].token;
    else if (b < 200 && c) tok = c->last_host_token + 1 + b % 3;   /* maybe a guard's hold */
    else if (b < 220) tok = 0;
    else tok = b < 240 ? UINT64_MAX : r64(r);
    hold_rec *h = c ? hold_get(c, tok, false) : NULL;
    bool exact = !t.bad && c->cb_depth == 0 && h && h->host;
    bool live = h && !h->ended;
    ng_status st = CALL(ng_hold_end, t.h, tok);
    TR("ng_hold_end(ctx#%d%s, %" PRIu64 ") -> %s", c ? c->serial : -1, t.bad ? " BAD" : "", tok, stname(st));
    EXPECT_HANDLE(t, st, "ng_hold_end");
    if (t.bad) return;
    if (exact) CHECK(st == (live ? NG_OK : NG_E_NOT_FOUND), "ng_hold_end(%" PRIu64 ") of a %s host hold returned %s",
                     tok, live ? "live" : "ended", stname(st));
    if (st == NG_OK && c->cb_depth == 0) {
        h = hold_get(c, tok, false);
        CHECK(h && h->ended, "ng_hold_end(%" PRIu64 ") returned OK but on_hold_end did not run before it returned", tok);
    }
    if (tok == 0) CHECK(st == NG_E_NOT_FOUND, "ng_hold_end(0) returned %s", stname(st));
}

/* Tick until nothing is due; a context that stays due is wedged. */
