/* SPDX-License-Identifier: Apache-2.0 */
/* fuzz/api/stack.c — navguard.h "Stack": ng_stack_set_root, queries, snapshots and restores. */
#include "ngf.h"

void op_set_root(fzc *self, rd *r) {
    target t = pick(self, r);
    arena a;
    memset(&a, 0, sizeof a);
    ng_screen s = { r_screen_id(r), r_str(r, &a), r8(r) % 3 ? NULL : r_str(r, &a) };
    bool null_root = r8(r) >= 240;
    fzc *c = t.c;
    ng_status st = CALL(ng_stack_set_root, t.h, null_root ? NULL : &s);
    TR("ng_stack_set_root(ctx#%d%s, id %" PRIu64 ") -> %s", c ? c->serial : -1, t.bad ? " BAD" : "", s.id, stname(st));
    EXPECT_HANDLE(t, st, "ng_stack_set_root");
    if (t.bad) return;
    if (null_root) { CHECK(st == NG_E_NULL, "ng_stack_set_root(NULL) returned %s", stname(st)); return; }
    if (c->cb_depth > 0) { CHECK(st == NG_E_CALLBACK, "ng_stack_set_root inside a callback returned %s", stname(st)); return; }
    if (st == NG_OK) {
        CHECK(!c->root_set, "ng_stack_set_root succeeded on a non-empty stack");
        c->root_set = true;
    } else if (c->root_set && s.id != 0 && s.route && s.route[0] && st != NG_E_UTF8 && st != NG_E_TOO_LONG) {
        CHECK(st == NG_E_STATE, "ng_stack_set_root on a non-empty stack returned %s", stname(st));
    }
}

void op_query(fzc *self, rd *r) {
    target t = pick(self, r);
    fzc *c = t.c;
    uint8_t q = r8(r) % 9;
    bool null_out = r8(r) >= 240;
    ng_status st = NG_OK;
    switch (q) {
    case 0: {
        size_t n = 0;
        st = CALL(ng_stack_count, t.h, null_out ? NULL : &n);
        if (!t.bad && st == NG_OK && c->root_set) CHECK(n >= 1, "ng_stack_count is %zu after the root was set", n);
        break;
    }
    case 1: {
        size_t n = 0;
        if (!t.bad) CALL(ng_stack_count, t.h, &n);
        static const uint32_t sizes[] = { sizeof(ng_screen_info), 0, 4, 8, 12, 16, 24, sizeof(ng_screen_info) + 8 };
        ng_screen_info si;
        memset(&si, 0x77, sizeof si);
        si.size = sizes[r8(r) % 8];
        uint8_t ib = r8(r);
        size_t idx = ib < 200 ? (n ? ib % n : 0) : ib < 230 ? n : SIZE_MAX - (ib % 2);
        st = CALL(ng_stack_get, t.h, idx, null_out ? NULL : &si);
        if (!t.bad && !null_out && si.size >= sizeof si && st == NG_OK) {
            CHECK(si.route && si.identity && si.id != 0, "ng_stack_get(%zu) gave a NULL route/identity or id 0", idx);
            CHECK(read_str(si.route, 4096) <= NG_MAX_STRING, "route longer than NG_MAX_STRING");
            (void)read_str(si.identity, 4096);
        }
        if (!t.bad && !null_out && si.size >= 16 && idx >= n) CHECK(st == NG_E_NOT_FOUND, "ng_stack_get(%zu) of %zu returned %s", idx, n, stname(st));
        break;
    }
    case 2: {
        bool busy;
        uint64_t id;
        ng_track tk = r_track(r);
        st = CALL(ng_transition_in_flight, t.h, tk, null_out ? NULL : &busy, r8(r) % 2 ? &id : NULL);
        if (!t.bad && !null_out && (tk < 0 || tk > 1)) CHECK(st == NG_E_RANGE, "in_flight(track %" PRId32 ") returned %s", tk, stname(st));
        /* ng_track_get agrees with ng_transition_in_flight */
        ng_track_info ti = NG_TRACK_INFO_INIT;
        ng_status st2 = CALL(ng_track_get, t.h, tk, null_out ? NULL : &ti);
        EXPECT_HANDLE(t, st2, "ng_track_get");
        if (!t.bad && st == NG_OK && !null_out) {
            CHECK(st2 == (busy ? NG_OK : NG_E_NOT_FOUND), "ng_track_get returned %s, in_flight said %d", stname(st2), busy);
            if (st2 == NG_OK) {
                CHECK(ti.swipe >= NG_SWIPE_NONE && ti.swipe <= NG_SWIPE_CANCELLING, "swipe state %" PRId32, ti.swipe);
                CHECK((ti.swipe != NG_SWIPE_NONE) == ((ti.flags & NG_TRANSF_INTERACTIVE) != 0), "swipe %" PRId32
                      " with flags 0x%" PRIx32, ti.swipe, ti.flags);
            }
        }
        if (!t.bad && null_out) CHECK(st2 == NG_E_NULL, "ng_track_get(NULL) returned %s", stname(st2));
        break;
    }
    case 3: {
        size_t n = 0;
        st = CALL(ng_touch_count, t.h, null_out ? NULL : &n);
        ng_touch_info ti;
        memset(&ti, 0, sizeof ti);
        static const uint32_t sizes[] = { sizeof(ng_touch_info), 0, 4, 5, 8, 16, sizeof(ng_touch_info) + 8 };
        ti.size = sizes[r8(r) % 7];
        uint8_t ib = r8(r);
        ng_status st2 = CALL(ng_touch_get, t.h, ib < 200 && n ? ib % n : ib, null_out ? NULL : &ti);
        EXPECT_HANDLE(t, st2, "ng_touch_get");
        break;
    }
    case 4: {
        size_t n = 0;
        st = CALL(ng_chain_count, t.h, null_out ? NULL : &n);
        const char *id = NULL;
        uint8_t ib = r8(r);
        ng_status st2 = CALL(ng_chain_get_id, t.h, ib < 200 && n ? ib % n : (size_t)ib + n, null_out ? NULL : &id);
        EXPECT_HANDLE(t, st2, "ng_chain_get_id");
        if (st2 == NG_OK) CHECK(id && read_str(id, 4096) > 0, "ng_chain_get_id gave an empty id");
        break;
    }
    case 5: {
        uint32_t mask = 0;
        size_t n = 0;
        bool want_mask = r8(r) % 2, want_n = r8(r) % 2;
        st = CALL(ng_hold_state, t.h, want_mask ? &mask : NULL, want_n ? &n : NULL);
        if (!want_mask) mask = NG_MASK_ALL;
        if (st == NG_OK) CHECK((mask & ~NG_MASK_ALL) == 0, "hold mask 0x%" PRIx32, mask);
        /* ng_hold_get: the last live hold, and one past it */
        for (size_t i = n ? n - 1 : 0; i <= n; i++) {
            ng_hold_view hv = NG_HOLD_VIEW_INIT;
            ng_status st2 = CALL(ng_hold_get, t.h, i, &hv);
            EXPECT_HANDLE(t, st2, "ng_hold_get");
            if (t.bad || st != NG_OK || !n) continue;
            CHECK(st2 == (i < n ? NG_OK : NG_E_NOT_FOUND), "ng_hold_get(%zu) of %zu returned %s", i, n, stname(st2));
            if (st2 == NG_OK) {
                CHECK(hv.token != 0 && (hv.mask & ~NG_MASK_ALL) == 0 && (hv.mask & mask) == hv.mask, "hold view");
                if (hv.label) (void)read_str(hv.label, 4096);
            }
        }
        break;
    }
    case 6: {
        check_errmsg(t.h);
        int32_t v = (int32_t)r32(r);
        CHECK(ng_strstatus(v) && ng_reason_name(v) && ng_outcome_name(v) && ng_request_kind_name(v),
              "a name function returned NULL for %" PRId32, v);
        CHECK(ng_version() == NG_VERSION_NUMBER && ng_version_string() && ng_plugin_dir() && ng_default_chain(),
              "version/plugin dir/default chain");
        break;
    }
    case 7: {
        /* the snapshot and restore round trip */
        char *text = NULL;
        size_t len = 0;
        st = CALL(ng_stack_snapshot, t.h, null_out ? NULL : &text, r8(r) % 4 ? &len : NULL);
        TR("ng_stack_snapshot(ctx#%d%s) -> %s", c ? c->serial : -1, t.bad ? " BAD" : "", stname(st));
        if (st == NG_OK) {
            CHECK(text != NULL, "ng_stack_snapshot returned NULL text");
            size_t n = strlen(text);
            if (len) CHECK(len == n, "snapshot out_len %zu, strlen %zu", len, n);
            if (!t.bad && c->cb_depth == 0 && !c->inflight[0] && !c->inflight[1] && c->root_set) {
                ng_status rs = CALL(ng_stack_restore, t.h, text, n);
                TR("ng_stack_restore(ctx#%d, own snapshot) -> %s", c->serial, stname(rs));
                CHECK(rs == NG_OK, "ng_stack_restore of the context's own snapshot returned %s (%s); snapshot: %.300s",
                      stname(rs), ng_errmsg(t.h), text);
                char *again = NULL;
                CHECK(CALL(ng_stack_snapshot, t.h, &again, NULL) == NG_OK, "snapshot");
                CHECK(strcmp(again, text) == 0, "restore(snapshot) changed the stack:\n before %.300s\n after  %.300s",
                      text, again);
                ng_free(again);
            }
        }
        ng_free(text);
        ng_free(NULL);
        break;
    }
    default: {
        int64_t d = 0;
        st = CALL(ng_next_deadline, t.h, null_out ? NULL : &d);
        break;
    }
    }
    TR("query %u (ctx#%d%s) -> %s", q, c ? c->serial : -1, t.bad ? " BAD" : "", stname(st));
    if (q != 6) EXPECT_HANDLE(t, st, "query");
    if (!t.bad && null_out && q != 5 && q != 6) CHECK(st == NG_E_NULL, "query %u with NULL out returned %s", q, stname(st));
}

void op_restore(fzc *self, rd *r) {
    target t = pick(self, r);
    fzc *c = t.c;
    char buf[2048];
    size_t n = 0;
    char *snap = NULL;
    uint8_t kind = r8(r) % 12;
    switch (kind) {
    case 0: case 1: case 2: {
        /* the current snapshot, mutated */
        if (!t.bad && CALL(ng_stack_snapshot, t.h, &snap, NULL) == NG_OK) {
            n = strlen(snap);
            if (n >= sizeof buf) n = sizeof buf - 1;
            memcpy(buf, snap, n);
            int muts = kind;
            for (int i = 0; i < muts && n; i++) {
                size_t at = r16(r) % n;
                uint8_t how = r8(r);
                if (how % 3 == 0) buf[at] = (char)r8(r);
                else if (how % 3 == 1) n = at;     /* truncate */
                else {
                    static const char json_chars[] = "{}[]\",:0-9eE\\u";
                    buf[at] = json_chars[r8(r) % (sizeof json_chars - 1)];
                }
            }
        }
        break;
    }
    case 3: {
        static const char *const tmpl[] = {
            "{\"navguard_snapshot\":1,\"screens\":[{\"id\":1,\"route\":\"home\"}]}",
            ("{\"navguard_snapshot\":1,\"screens\":[{\"id\":1,\"route\":\"home\",\"identity\":null},"
             "{\"id\":-1,\"route\":\"max\",\"identity\":\"m\"}]}"),
            "{\"navguard_snapshot\":1,\"screens\":[]}",
            "{\"navguard_snapshot\":2,\"screens\":[{\"id\":1,\"route\":\"home\"}]}",
            "{\"navguard_snapshot\":1,\"screens\":[{\"id\":1,\"route\":\"a\"},{\"id\":1,\"route\":\"b\"}]}",
            "{\"navguard_snapshot\":1,\"screens\":[{\"id\":0,\"route\":\"a\"}]}",
            "{\"navguard_snapshot\":1,\"screens\":[{\"id\":1.5,\"route\":\"a\"}]}",
            "{\"navguard_snapshot\":1,\"screens\":[{\"id\":18446744073709551615,\"route\":\"a\"}]}",
            "{\"navguard_snapshot\":1,\"screens\":[{\"id\":9223372036854775808,\"route\":\"a\"}]}",
            "{\"navguard_snapshot\":1,\"screens\":[{\"id\":1e3,\"route\":\"a\"}]}",
            "{\"navguard_snapshot\":1,\"screens\":[{\"id\":1,\"route\":\"a\\u0000b\"}]}",
            "{\"navguard_snapshot\":1,\"screens\":[{\"id\":1,\"route\":\"\\ud800\"}]}",
            "{\"navguard_snapshot\":1,\"screens\":[{\"id\":1,\"route\":\"\\ud83d\\ude00\"}]}",
            "{\"navguard_snapshot\":1,\"screens\":[{\"id\":1,\"route\":\"\"}]}",
            "{\"navguard_snapshot\":1,\"screens\":[{\"id\":1,\"route\":7}]}",
            "{\"navguard_snapshot\":1,\"screens\":[{\"id\":1,\"route\":\"x\",\"identity\":[]}]}",
            "{\"navguard_snapshot\":1e999,\"screens\":[]}",
            "{\"navguard_snapshot\":1,\"navguard_snapshot\":1,\"screens\":[{\"id\":2,\"route\":\"dup keys\"}]}",
            "{\"navguard_snapshot\":1,\"screens\":[{\"id\":1,\"route\":\"caf\xc3\"}]}",
            "{\"navguard_snapshot\":-0,\"screens\":[{\"id\":-0,\"route\":\"z\"}]}",
            "  {\"navguard_snapshot\" : 1 , \"screens\" : [ { \"id\" : 3 , \"route\" : \"ws\" } ] }  ",
            "{\"navguard_snapshot\":1,\"screens\":[{\"id\":1,\"route\":\"home\"}]} trailing",
            "null", "", "{", "[", "\"", "1", "{\"a\":}",
        };
        const char *s = tmpl[r8(r) % (sizeof tmpl / sizeof tmpl[0])];
        n = strlen(s);
        memcpy(buf, s, n);
        break;
    }
    case 4: {
        /* deep nesting */
        static const char open[] = "[{\"a\":";
        size_t depth = 1 + r16(r) % 300;
        for (size_t i = 0; i < depth && n < sizeof buf; i++) buf[n++] = r8(r) % 2 ? '[' : open[r8(r) % 6];
        break;
    }
    case 5: {
        /* a long route, escaped */
        n = (size_t)snprintf(buf, sizeof buf, "{\"navguard_snapshot\":1,\"screens\":[{\"id\":5,\"route\":\"");
        size_t len = 1000 + r8(r) % 60;
        for (size_t i = 0; i < len && n < sizeof buf - 8; i++) buf[n++] = i % 7 == 0 ? 'x' : 'y';
        memcpy(buf + n, "\"}]}", 4);
        n += 4;
        break;
    }
    default: {
        n = r8(r) % 64;
        for (size_t i = 0; i < n; i++) buf[i] = (char)r8(r);
        break;
    }
    }
    ng_free(snap);
    /* exactly n bytes, no NUL after them */
    char *text = malloc(n ? n : 1);
    if (!text) abort();
    memcpy(text, buf, n);
    bool null_text = r8(r) >= 248;
    char *before = NULL;
    bool exact = !t.bad && c->cb_depth == 0;
    if (exact) CALL(ng_stack_snapshot, t.h, &before, NULL);
    ng_status st = CALL(ng_stack_restore, t.h, null_text ? NULL : text, n);
    TR("ng_stack_restore(ctx#%d%s, %zu bytes \"%.*s\") -> %s", c ? c->serial : -1, t.bad ? " BAD" : "", n,
       (int)(n > 120 ? 120 : n), text, stname(st));
    free(text);
    EXPECT_HANDLE(t, st, "ng_stack_restore");
    if (!t.bad) {
        if (null_text) CHECK(st == NG_E_NULL, "ng_stack_restore(NULL) returned %s", stname(st));
        else if (c->cb_depth > 0) CHECK(st == NG_E_CALLBACK, "ng_stack_restore inside a callback returned %s", stname(st));
        if (st == NG_OK) {
            CHECK(!c->inflight[0] && !c->inflight[1], "ng_stack_restore succeeded with a transition in flight");
            c->root_set = true;
        }
        if (exact && st != NG_OK && before) {
            char *after = NULL;
            CHECK(CALL(ng_stack_snapshot, t.h, &after, NULL) == NG_OK, "snapshot");
            CHECK(strcmp(before, after) == 0, "a failed ng_stack_restore (%s) changed the stack", stname(st));
            ng_free(after);
        }
    }
    ng_free(before);
}

/* ng_screen_set_flags on a stacked screen (the top one most often: the
 * confirm-leave guard then asks before it is left) or another id, with
 * known, host (NG_SCREENF_USER_MASK) and unknown bits. */
void op_screen_flags(fzc *self, rd *r) {
    target t = pick(self, r);
    fzc *c = t.c;
    uint8_t b = r8(r);
    static const uint32_t flags_pool[] = { NG_SCREENF_CONFIRM_LEAVE, 0, NG_SCREENF_CONFIRM_LEAVE, 0x10000u,
                                           NG_SCREENF_CONFIRM_LEAVE | 0xABC0000u, 0x2u, 0x8000u, UINT32_MAX };
    uint32_t flags = (b >> 5) == 7 ? r32(r) : flags_pool[b >> 5];
    size_t n = 0, at = SIZE_MAX;
    uint64_t id = 0;
    if (!t.bad && CALL(ng_stack_count, t.h, &n) == NG_OK && n > 0 && b % 4 != 0) {
        at = b % 4 == 1 ? n - 1 : (size_t)r8(r) % n;
        ng_screen_info si = NG_SCREEN_INFO_INIT;
        CHECK(CALL(ng_stack_get, t.h, at, &si) == NG_OK, "ng_stack_get(%zu) of %zu", at, n);
        id = si.id;
    } else {
        id = r_screen_id(r);
        for (size_t i = 0; !t.bad && i < n; i++) {   /* is it stacked? */
            ng_screen_info si = NG_SCREEN_INFO_INIT;
            if (CALL(ng_stack_get, t.h, i, &si) == NG_OK && si.id == id) { at = i; break; }
        }
    }
    ng_status st = CALL(ng_screen_set_flags, t.h, id, flags);
    TR("ng_screen_set_flags(ctx#%d%s, %" PRIu64 ", 0x%" PRIx32 ") -> %s", c ? c->serial : -1, t.bad ? " BAD" : "", id,
       flags, stname(st));
    EXPECT_HANDLE(t, st, "ng_screen_set_flags");
    if (t.bad) return;
    bool known = (flags & ~(NG_SCREENF_KNOWN | NG_SCREENF_USER_MASK)) == 0;
    if (!known) {
        CHECK(st == NG_E_RANGE || (at == SIZE_MAX && st == NG_E_NOT_FOUND),
              "ng_screen_set_flags(0x%" PRIx32 ", unknown bits) returned %s", flags, stname(st));
        return;
    }
    if (at == SIZE_MAX) {
        CHECK(st == NG_E_NOT_FOUND, "ng_screen_set_flags(%" PRIu64 ", not stacked) returned %s", id, stname(st));
        return;
    }
    CHECK(st == NG_OK, "ng_screen_set_flags(stacked screen %" PRIu64 ", 0x%" PRIx32 ") returned %s (%s)", id, flags,
          stname(st), ng_errmsg(t.h));
    /* Inside a callback nothing else ran since: the screen shows its flags. */
    ng_screen_info si = NG_SCREEN_INFO_INIT;
    CHECK(CALL(ng_stack_get, t.h, at, &si) == NG_OK && si.id == id, "ng_stack_get(%zu) after ng_screen_set_flags", at);
    CHECK(si.flags == flags, "screen %" PRIu64 " has flags 0x%" PRIx32 " after ng_screen_set_flags(0x%" PRIx32 ")", id,
          si.flags, flags);
    /* Then leave it (a pop or a back, through op_submit and its checks): the
     * confirm-leave guard of the default chain asks first; the host answers
     * at once, or leaves the question open for a later op (or destroy). */
    uint8_t leave = r8(r);
    if (!(flags & NG_SCREENF_CONFIRM_LEAVE) || at != n - 1 || leave % 4 == 0 || !ctx_usable(c)) return;
    if (n == 1 && c->cb_depth == 0) {
        /* Only the root: push a screen (11, not animated) to leave, flagged too. */
        uint8_t push[] = { 0, NG_REQ_PUSH, 0, 0, 11, 5, 1, 0, 1, 1, 0, 0, 0 };
        rd pp = { push, sizeof push, 0 };
        op_submit(c, &pp);
        if (!ctx_usable(c) || CALL(ng_stack_count, c->h, &n) != NG_OK || n < 2) return;
        ng_screen_info top = NG_SCREEN_INFO_INIT;
        if (CALL(ng_stack_get, c->h, n - 1, &top) != NG_OK) return;
        st = CALL(ng_screen_set_flags, c->h, top.id, NG_SCREENF_CONFIRM_LEAVE);
        CHECK(st == NG_OK, "ng_screen_set_flags(the top screen %" PRIu64 ") returned %s", top.id, stname(st));
    }
    uint8_t prog[] = { 0, leave % 2 ? NG_REQ_POP : NG_REQ_BACK, 0, 0, 0, 1, 1, 0, 1, 1, 0, 0, 0 };
    rd pr = { prog, sizeof prog, 0 };
    op_submit(c, &pr);
    if (!ctx_usable(c) || !c->question_open || leave % 4 == 1) return;
    uint64_t q = c->question_open;
    ng_answer a = (leave >> 2) % 2 ? NG_ANSWER_YES : NG_ANSWER_NO;
    if (c->cb_depth == 0) {
        c->pending_answer_id = q;
        c->pending_answer = a;
    }
    st = CALL(ng_question_answer, c->h, q, a);
    TR("ng_question_answer(ctx#%d, %" PRIu64 ", %s) -> %s", c->serial, q, ng_answer_name(a), stname(st));
    if (st != NG_OK && c->pending_answer_id == q) c->pending_answer_id = 0;
    if (g_depth == 0 && !c->destroying) {
        CHECK(st == NG_OK, "ng_question_answer of the open question %" PRIu64 " returned %s", q, stname(st));
        CHECK(c->pending_answer_id == 0 && c->question_open != q, "question %" PRIu64 " answered (NG_OK) but "
              "on_question_end did not come inside the call", q);
    }
}
