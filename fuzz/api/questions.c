/* SPDX-License-Identifier: Apache-2.0 */
/* fuzz/api/questions.c — navguard.h "Questions": ng_question_answer,
 * ng_question_get, and the delegate's on_question and on_question_end. The
 * built-in confirm-leave guard (the default chain) asks before a screen
 * flagged NG_SCREENF_CONFIRM_LEAVE (stack.c, op_screen_flags) is left.
 *
 * Checked: ids never 0 nor reused; one question open at a time; every
 * question ends exactly once (at destroy: WITHDRAWN, before destroy
 * returns); an answer NG_OK ends its question with that answer, inside the
 * call (after the callback that called it, when called from one);
 * ng_question_get agrees with what on_question told the host. */
#include "ngf.h"

void cb_question(void *user, ng_context *ctx, const ng_question *q) {
    fzc *c = cb_enter(user, ctx, "on_question");
    CHECK(q != NULL, "on_question: question is NULL");
    CHECK(q->size >= NG_QUESTION_MIN_SIZE, "on_question: size %" PRIu32, q->size);
    CHECK(q->question_id != 0, "on_question: question id 0");
    CHECK(map_find(&c->question_index, q->question_id) == 0, "question id %" PRIu64 " asked twice", q->question_id);
    CHECK(c->question_open == 0, "on_question %" PRIu64 " while question %" PRIu64 " is open (one at a time)",
          q->question_id, c->question_open);
    CHECK(!c->destroying, "on_question during ng_context_destroy");
    CHECK(q->topic != NULL && read_str(q->topic, 4096) > 0, "on_question: no topic");
    CHECK(q->guard_id != NULL, "on_question: no guard id");
    if (q->text) (void)read_str(q->text, 1 << 16);
    map_set(&c->question_index, q->question_id, 1);
    c->question_open = q->question_id;
    c->questions_asked++;
    TR("on_question(ctx#%d, %" PRIu64 ", %s, request %" PRIu64 ")", c->serial, q->question_id, q->topic, q->request_id);
    /* The open question, as ng_question_get shows it (callback-safe). */
    ng_question g = NG_QUESTION_INIT;
    ng_status st = CALL(ng_question_get, c->h, &g);
    CHECK(st == NG_OK && g.question_id == q->question_id, "ng_question_get in on_question: %s, id %" PRIu64, stname(st),
          g.question_id);
    nested(c, K_QUESTION);
    cb_leave(c);
}

void cb_question_end(void *user, ng_context *ctx, const ng_question *q, ng_answer answer) {
    fzc *c = cb_enter(user, ctx, "on_question_end");
    CHECK(q != NULL, "on_question_end: question is NULL");
    TR("on_question_end(ctx#%d, %" PRIu64 ", %s)", c->serial, q->question_id, ng_answer_name(answer));
    CHECK(q->question_id != 0 && q->question_id == c->question_open,
          "on_question_end for question %" PRIu64 ", the open one is %" PRIu64 " (each ends once, after it was asked)",
          q->question_id, c->question_open);
    CHECK(answer >= NG_ANSWER_YES && answer <= NG_ANSWER_WITHDRAWN, "on_question_end: answer %" PRId32, answer);
    if (c->destroying) CHECK(answer == NG_ANSWER_WITHDRAWN, "a question ended %s during destroy, not withdrawn",
                             ng_answer_name(answer));
    if (answer == NG_ANSWER_YES || answer == NG_ANSWER_NO) {
        CHECK(c->pending_answer_id == q->question_id && c->pending_answer == answer,
              "question %" PRIu64 " ended %s, but the host answered %s to %" PRIu64, q->question_id,
              ng_answer_name(answer), ng_answer_name(c->pending_answer), c->pending_answer_id);
    }
    if (c->pending_answer_id == q->question_id) c->pending_answer_id = 0;
    c->question_open = 0;
    c->questions_ended++;
    c->last_end_id = q->question_id;
    c->last_end_answer = answer;
    cb_leave(c);
}

/* At a checkpoint (no callback on the stack) and after destroy. */
void check_questions(fzc *c) {
    CHECK(c->pending_answer_id == 0, "question %" PRIu64 " was answered (NG_OK) but its on_question_end never came",
          c->pending_answer_id);
    if (c->dead) {
        CHECK(c->question_open == 0, "context #%d destroyed: question %" PRIu64 " never got on_question_end", c->serial,
              c->question_open);
        CHECK(c->questions_asked == c->questions_ended, "%" PRIu64 " questions asked, %" PRIu64 " ended",
              c->questions_asked, c->questions_ended);
        return;
    }
    ng_question g = NG_QUESTION_INIT;
    ng_status st = CALL(ng_question_get, c->h, &g);
    if (c->question_open) {
        CHECK(st == NG_OK && g.question_id == c->question_open, "question %" PRIu64 " is open (on_question), "
              "ng_question_get says %s, id %" PRIu64, c->question_open, stname(st), g.question_id);
        CHECK(g.topic && g.guard_id, "ng_question_get: no topic or guard id");
    } else {
        CHECK(st == NG_E_NOT_FOUND, "no question is open, ng_question_get says %s (id %" PRIu64 ")", stname(st),
              g.question_id);
    }
}

void op_question(fzc *self, rd *r) {
    target t = pick(self, r);
    fzc *c = t.c;
    uint8_t what = r8(r);
    if (what % 3 == 0) {   /* ng_question_get, out and sizes good and bad */
        ng_question g = NG_QUESTION_INIT;
        static const uint32_t sizes[] = { sizeof(ng_question), 0, 4, NG_QUESTION_MIN_SIZE - 1, sizeof(ng_question) + 8 };
        g.size = sizes[(what >> 2) % 5];
        bool null_out = (what >> 5) == 7;
        ng_status st = CALL(ng_question_get, t.h, null_out ? NULL : &g);
        TR("ng_question_get(ctx#%d%s, size %" PRIu32 ") -> %s %" PRIu64, c ? c->serial : -1, t.bad ? " BAD" : "", g.size,
           stname(st), g.question_id);
        EXPECT_HANDLE(t, st, "ng_question_get");
        if (t.bad) return;
        if (null_out) { CHECK(st == NG_E_NULL, "ng_question_get(NULL) returned %s", stname(st)); return; }
        if (g.size < NG_QUESTION_MIN_SIZE) { CHECK(st == NG_E_SIZE, "ng_question_get(size %" PRIu32 ") returned %s", g.size, stname(st)); return; }
        if (g_depth == 0 && !c->destroying) {
            if (c->question_open) CHECK(st == NG_OK && g.question_id == c->question_open, "ng_question_get: %s, id %"
                                        PRIu64 ", the open question is %" PRIu64, stname(st), g.question_id, c->question_open);
            else CHECK(st == NG_E_NOT_FOUND, "ng_question_get with no open question returned %s", stname(st));
        }
        return;
    }
    /* ng_question_answer: the open question's id or another, good and bad answers */
    uint64_t id;
    uint8_t b = r8(r);
    uint64_t open = c ? c->question_open : 0;
    if (c && !t.bad && b % 8 >= 5 && !open) {   /* what ng_question_get says (a question not told yet) */
        ng_question g = NG_QUESTION_INIT;
        if (CALL(ng_question_get, t.h, &g) == NG_OK) open = g.question_id;
    }
    switch (b % 8) {
    case 0: id = 0; break;
    case 1: id = open + 1; break;
    case 2: id = c ? c->last_end_id : 1; break;
    case 3: id = r64(r); break;
    default: id = open; break;
    }
    static const ng_answer answers[] = { NG_ANSWER_YES, NG_ANSWER_NO, NG_ANSWER_YES, NG_ANSWER_NO, NG_ANSWER_TIMEOUT,
                                         NG_ANSWER_WITHDRAWN, -1, 99 };
    ng_answer a = answers[(b >> 3) % 8];
    bool valid = a == NG_ANSWER_YES || a == NG_ANSWER_NO;
    bool inside = c && c->cb_depth > 0;
    /* Expected before the call: ours is the open question, at top level. */
    bool expect_ok = c && !t.bad && valid && id != 0 && id == c->question_open && g_depth == 0 && !c->destroying;
    uint64_t ended_before = c ? c->questions_ended : 0;
    if (c && valid && id != 0) {   /* its end may come inside the call */
        c->pending_answer_id = id;
        c->pending_answer = a;
    }
    ng_status st = CALL(ng_question_answer, t.h, id, a);
    TR("ng_question_answer(ctx#%d%s, %" PRIu64 ", %s) -> %s", c ? c->serial : -1, t.bad ? " BAD" : "", id,
       ng_answer_name(a), stname(st));
    EXPECT_HANDLE(t, st, "ng_question_answer");
    if (!c) return;
    if (st != NG_OK && c->pending_answer_id == id) c->pending_answer_id = 0;
    if (t.bad) return;
    if (!valid) CHECK(st == NG_E_RANGE || st == NG_E_NOT_FOUND, "ng_question_answer(%s) returned %s", ng_answer_name(a), stname(st));
    if (valid && id == 0) CHECK(st == NG_E_NOT_FOUND, "ng_question_answer(id 0) returned %s", stname(st));
    if (expect_ok) {
        CHECK(st == NG_OK, "ng_question_answer of the open question %" PRIu64 " returned %s (%s)", id, stname(st),
              ng_errmsg(t.h));
    }
    if (st == NG_OK && !inside) {
        /* Its end came inside the call. */
        CHECK(c->questions_ended > ended_before && c->pending_answer_id != id,
              "ng_question_answer(%" PRIu64 ") returned NG_OK without on_question_end", id);
    }
    if (st == NG_OK && g_depth == 0) CHECK(c->pending_answer_id == 0, "answer pending after the call");
}
