/* SPDX-License-Identifier: Apache-2.0 */
/* fuzz/api/requests.c — navguard.h "Requests": ng_request_submit, ng_request_post. */
#include "ngf.h"

ng_screen g_big_screens[NG_MAX_STACK + 1];

typedef struct {
    ng_request req;
    ng_screen list[6];
    arena a;
} req_buf;

static void build_request(rd *r, req_buf *b) {
    ng_request *q = &b->req;
    memset(q, 0, sizeof *q);
    q->size = sizeof *q;
    uint8_t k = r8(r);
    q->kind = k < 240 ? (ng_request_kind)(k % NG_REQ_KIND_COUNT) : (ng_request_kind)(int8_t)r8(r) * 1000003;
    uint8_t f = r8(r);
    q->flags = f < 250 ? (uint32_t)(f % 4) : r32(r);
    q->source = r8(r) % 4;
    q->screen.id = r_screen_id(r);
    q->screen.route = r_str(r, &b->a);
    q->screen.identity = r8(r) % 3 ? NULL : r_str(r, &b->a);
    q->target_id = r_screen_id(r);
    q->duration_ns = r8(r) % 2 ? 0 : r_time(r);
    /* A swipe driven by one of the usual touch ids (0..5): bit 2 of the flag
     * byte, so no byte is read that older inputs did not read. */
    if (q->kind == NG_REQ_INTERACTIVE_BACK && f < 250 && (f & 4)) {
        q->flags |= NG_REQF_TOUCH_DRIVEN;
        q->driving_touch = q->target_id % 6;
    }
    uint8_t s = r8(r);
    switch (s % 16) {
    case 0: q->screens = NULL; q->screen_count = 2; break;
    case 1: q->screens = b->list; q->screen_count = 0; break;
    case 2:
        if (r8(r) % 8 == 0) { q->screens = g_big_screens; q->screen_count = NG_MAX_STACK; }
        else { q->screens = g_big_screens; q->screen_count = NG_MAX_STACK + 1; }
        break;
    case 3: q->screens = b->list; q->screen_count = SIZE_MAX; break;
    default: {
        size_t n = 1 + s % 5;
        for (size_t i = 0; i < n; i++) {
            b->list[i].id = r_screen_id(r);
            b->list[i].route = r8(r) % 4 ? "r" : r_str(r, &b->a);
            b->list[i].identity = r8(r) % 4 ? NULL : r_str(r, &b->a);
        }
        q->screens = b->list;
        q->screen_count = n;
        break;
    }
    }
    uint8_t z = r8(r);
    if (z >= 232) {
        static const uint32_t sizes[] = { 0, 4, offsetof(ng_request, screens) - 1, offsetof(ng_request, screens),
                                          offsetof(ng_request, duration_ns), sizeof(ng_request) + 8, UINT32_MAX, 1 };
        q->size = sizes[z % 8];
    }
}

/* The out struct of a submit: NULL or a size variant. */
static ng_request_result *pick_result(rd *r, ng_request_result *res) {
    memset(res, 0xA5, sizeof *res);
    uint8_t b = r8(r);
    if (b < 200) { res->size = sizeof *res; return res; }
    static const uint32_t sizes[] = { 0, 4, 7, 8, 16, 20, sizeof(ng_request_result) + 16 };
    if (b < 216) return NULL;
    res->size = sizes[b % 7];
    return res;
}

void op_submit(fzc *self, rd *r) {
    target t = pick(self, r);
    req_buf b;
    memset(&b, 0, sizeof b);
    build_request(r, &b);
    ng_request_result res;
    ng_request_result *out = pick_result(r, &res);
    bool null_req = r8(r) >= 250;
    fzc *c = t.c;
    int depth_before = c ? c->cb_depth : 0;
    ng_status st = CALL(ng_request_submit, t.h, null_req ? NULL : &b.req, out);
    TR("ng_request_submit(ctx#%d%s, kind %" PRId32 ", flags 0x%" PRIx32 ", size %" PRIu32 ", out size %d) -> %s id %" PRIu64
       " status %s", c ? c->serial : -1, t.bad ? " BAD" : "", b.req.kind, b.req.flags, b.req.size,
       out ? (int)out->size : -1, stname(st), out && out->size >= 16 ? res.request_id : 0,
       out && out->size >= 8 ? ng_outcome_name(res.status) : "-");
    EXPECT_HANDLE(t, st, "ng_request_submit");
    if (t.bad) return;
    check_errmsg(t.h);
    if (null_req) { CHECK(st == NG_E_NULL, "ng_request_submit(NULL request) returned %s", stname(st)); return; }
    if (b.req.size < offsetof(ng_request, screens)) {
        CHECK(st == NG_E_SIZE, "ng_request_submit with request size %" PRIu32 " returned %s", b.req.size, stname(st));
        return;
    }
    if (!c->root_set) { CHECK(st == NG_E_STATE, "ng_request_submit before the root returned %s", stname(st)); return; }
    if (out && out->size < 8) { CHECK(st == NG_E_SIZE, "ng_request_submit with result size %" PRIu32 " returned %s", out->size, stname(st)); return; }
    CHECK(st == NG_OK, "ng_request_submit of a well-formed call returned %s", stname(st));
    c->accepted++;
    if (!out || out->size < 16) return;
    uint64_t id = res.request_id;
    CHECK(id != 0, "ng_request_submit returned request id 0");
    CHECK(id < NG_POSTED_ID_BASE, "ng_request_submit returned an id from the posted range: %" PRIu64, id);
    req_rec *rec = req_get(c, id);
    CHECK(!rec->returned, "request id %" PRIu64 " handed out twice", id);
    rec->returned = true;
    rec->submitted = true;
    rec->kind = b.req.kind;
    rec->source = b.req.source;
    if (rec->outcomes) {
        CHECK(rec->out_kind_seen == rec->kind && rec->out_source == rec->source,
              "outcome of request %" PRIu64 " has kind/source %" PRId32 "/%" PRIu32 ", submitted %" PRId32 "/%" PRIu32,
              id, rec->out_kind_seen, rec->out_source, rec->kind, rec->source);
    }
    ng_outcome_kind s = res.status;
    CHECK(s == NG_OUTCOME_APPLIED || s == NG_OUTCOME_REFUSED || s == NG_OUTCOME_DEFERRED || s == NG_OUTCOME_QUEUED,
          "ng_request_submit immediate status %" PRId32, s);
    if (depth_before > 0) {
        CHECK(s == NG_OUTCOME_QUEUED, "ng_request_submit inside a callback returned %s, not QUEUED", ng_outcome_name(s));
        CHECK(rec->outcomes == 0, "queued request %" PRIu64 " got its outcome before the callback returned", id);
    } else {
        CHECK(s != NG_OUTCOME_QUEUED, "ng_request_submit outside any callback of its context returned QUEUED");
        if (s == NG_OUTCOME_APPLIED || s == NG_OUTCOME_REFUSED) {
            CHECK(rec->outcomes == 1, "request %" PRIu64 " was %s but on_outcome did not run before submit returned", id,
                  ng_outcome_name(s));
            CHECK(rec->out_outcome == s, "request %" PRIu64 ": submit said %s, on_outcome said %s", id,
                  ng_outcome_name(s), ng_outcome_name(rec->out_outcome));
            if (s == NG_OUTCOME_REFUSED && out->size >= 20)
                CHECK(rec->out_reason == res.reason, "request %" PRIu64 ": refused for %s, on_outcome says %s", id,
                      ng_reason_name(res.reason), ng_reason_name(rec->out_reason));
        }
    }
    if (out->size >= sizeof res && res.guard_id) (void)read_str(res.guard_id, 4096);
}

void op_post(fzc *self, rd *r) {
    target t = pick(self, r);
    req_buf b;
    memset(&b, 0, sizeof b);
    build_request(r, &b);
    uint64_t id = 0;
    bool want_id = r8(r) < 220;
    bool null_req = r8(r) >= 250;
    ng_status st = CALL(ng_request_post, t.h, null_req ? NULL : &b.req, want_id ? &id : NULL);
    TR("ng_request_post(ctx#%d%s, kind %" PRId32 ") -> %s id %" PRIu64, t.c ? t.c->serial : -1, t.bad ? " BAD" : "",
       b.req.kind, stname(st), id);
    EXPECT_HANDLE(t, st, "ng_request_post");
    if (t.bad || st != NG_OK) return;
    fzc *c = t.c;
    c->accepted++;
    if (want_id) {
        CHECK(id > NG_POSTED_ID_BASE && id < (NG_POSTED_ID_BASE << 1), "ng_request_post returned id %" PRIu64
              " (never 0, from the posted range, below 2^53)", id);
        req_rec *rec = req_get(c, id);
        CHECK(!rec->returned, "posted request id %" PRIu64 " handed out twice", id);
        CHECK(rec->outcomes == 0, "posted request %" PRIu64 " got its outcome before any tick", id);
        rec->returned = true;
        rec->submitted = true;
        rec->kind = b.req.kind;
        rec->source = b.req.source;
    }
    if (c->cb_depth == 0) {
        int64_t d = 0;
        CHECK(CALL(ng_next_deadline, c->h, &d) == NG_OK, "ng_next_deadline");
        CHECK(d <= c->now, "a request is posted but ng_next_deadline is %" PRId64 " > now %" PRId64, d, c->now);
    }
}
