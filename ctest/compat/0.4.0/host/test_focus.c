/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_focus.c — focus that comes back (ng_screen_set_focus), as a C host
 * sees it through navguard.h:
 *  - ng_screen_get_focus and ng_screen_info.focus_token read the token back;
 *    unknown screens get NG_E_NOT_FOUND, a NULL out pointer NG_E_NULL;
 *  - a pop, a pop-to and a swipe back rolled back (CANCELLED) hand the
 *    token of the screen that becomes the top again to on_transition
 *    (ng_transition_event.focus_token), a pushed screen hands back 0;
 *  - a token set on the covered screen while a swipe is in flight is the
 *    one its rollback hands back;
 *  - snapshots carry the tokens ("focus", 64-bit, high bit included) and
 *    ng_stack_restore brings them back, into another context too;
 *  - the session is recorded: it replays identically, and a trace whose
 *    ng_screen_set_focus token was changed diverges (the transitions carry
 *    the tokens).
 */
#define _POSIX_C_SOURCE 200809L
#include <navguard/navguard.h>

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"

#define HIGH_TOKEN 0xFFFFFFFFFFFFFFF2ull   /* above 2^63: JSON's negative form */

typedef struct {
    int count;                 /* phases seen */
    ng_phase phase;            /* the last one on the screen track */
    uint64_t to_id;
    uint64_t focus;
} seen;

static void on_transition(void *user, ng_context *ctx, const ng_transition_event *e) {
    seen *s = user;
    (void)ctx;
    if (e->track != NG_TRACK_SCREEN) return;
    s->count++;
    s->phase = e->phase;
    s->to_id = e->to_id;
    s->focus = NG_HAS_FIELD(e, ng_transition_event, focus_token) ? e->focus_token : 0xBAD;
}

static ng_context *make(seen *s) {
    memset(s, 0, sizeof *s);
    ng_options o = NG_OPTIONS_INIT;
    o.clock = NG_CLOCK_MANUAL;
    o.delegate.user = s;
    o.delegate.on_transition = on_transition;
    ng_context *ctx = NULL;
    if (ng_context_create(&o, &ctx) != NG_OK) { fprintf(stderr, "FATAL: context\n"); exit(1); }
    return ctx;
}

static ng_request_result submit(ng_context *ctx, ng_request *r) {
    ng_request_result res = NG_REQUEST_RESULT_INIT;
    MUST(ctx, ng_request_submit(ctx, r, &res));
    if (res.status != NG_OUTCOME_APPLIED) {
        fprintf(stderr, "FATAL: request kind %d: %s\n", (int)r->kind, ng_outcome_name(res.status));
        exit(1);
    }
    return res;
}

static void push(ng_context *ctx, uint64_t id, const char *route) {
    ng_request r = NG_REQUEST_INIT(NG_REQ_PUSH);
    r.screen.id = id;
    r.screen.route = route;
    submit(ctx, &r);
}

static uint64_t focus_of(ng_context *ctx, uint64_t id) {
    uint64_t t = 0xDEAD;
    MUST(ctx, ng_screen_get_focus(ctx, id, &t));
    return t;
}

static char *read_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    if (fread(buf, 1, (size_t)n, f) != (size_t)n) n = 0;
    buf[n] = 0;
    fclose(f);
    *len = (size_t)n;
    return buf;
}

int main(void) {
    char dir[] = "/tmp/navguard-focus-XXXXXX";
    if (!mkdtemp(dir)) return 1;
    char path[256];
    snprintf(path, sizeof path, "%s/focus.jsonl", dir);

    seen s;
    ng_context *ctx = make(&s);
    ng_record_options ro = NG_RECORD_OPTIONS_INIT;
    ro.path = path;
    MUST(ctx, ng_record_start(ctx, &ro));
    ng_screen home = { 1, "home", NULL };
    MUST(ctx, ng_stack_set_root(ctx, &home));
    push(ctx, 2, "menu");
    push(ctx, 3, "options");
    EXPECT(s.to_id == 3 && s.focus == 0, "a pushed screen hands back no token: to %llu, focus %llu",
           (unsigned long long)s.to_id, (unsigned long long)s.focus);

    /* Setting and reading. */
    EXPECT(focus_of(ctx, 2) == 0, "a screen starts without a token");
    MUST(ctx, ng_screen_set_focus(ctx, 1, 11));
    MUST(ctx, ng_screen_set_focus(ctx, 2, HIGH_TOKEN));
    MUST(ctx, ng_screen_set_focus(ctx, 3, 33));
    EXPECT(focus_of(ctx, 2) == HIGH_TOKEN, "get_focus(2) = %llx", (unsigned long long)focus_of(ctx, 2));
    ng_screen_info info = NG_SCREEN_INFO_INIT;
    MUST(ctx, ng_stack_get(ctx, 2, &info));
    EXPECT(info.id == 3 && info.focus_token == 33, "ng_screen_info of 3: focus %llu", (unsigned long long)info.focus_token);
    uint64_t t = 0;
    EXPECT_ST(ctx, ng_screen_set_focus(ctx, 99, 1), NG_E_NOT_FOUND);
    EXPECT_ST(ctx, ng_screen_get_focus(ctx, 99, &t), NG_E_NOT_FOUND);
    EXPECT_ST(ctx, ng_screen_get_focus(ctx, 2, NULL), NG_E_NULL);
    EXPECT_ST(NULL, ng_screen_set_focus(NULL, 2, 1), NG_E_HANDLE);

    /* A pop: menu is the top again, with its token. */
    ng_request pop = NG_REQUEST_INIT(NG_REQ_POP);
    submit(ctx, &pop);
    EXPECT(s.phase == NG_PHASE_DID && s.to_id == 2 && s.focus == HIGH_TOKEN,
           "pop: phase %d to %llu focus %llx", (int)s.phase, (unsigned long long)s.to_id, (unsigned long long)s.focus);

    /* A pop-to the root past a new screen. */
    push(ctx, 4, "detail");
    EXPECT(s.to_id == 4 && s.focus == 0, "push of 4: focus %llu", (unsigned long long)s.focus);
    ng_request popto = NG_REQUEST_INIT(NG_REQ_POP_TO);
    popto.target_id = 1;
    submit(ctx, &popto);
    EXPECT(s.phase == NG_PHASE_DID && s.to_id == 1 && s.focus == 11,
           "pop-to: phase %d to %llu focus %llu", (int)s.phase, (unsigned long long)s.to_id, (unsigned long long)s.focus);

    /* A swipe back rolled back: the swiped screen stays, with the token set
     * on it while the swipe was in flight. */
    push(ctx, 5, "game");
    MUST(ctx, ng_screen_set_focus(ctx, 5, 55));
    ng_request back = NG_REQUEST_INIT(NG_REQ_INTERACTIVE_BACK);
    back.flags = NG_REQF_ANIMATED;
    submit(ctx, &back);
    EXPECT(s.phase == NG_PHASE_WILL && s.to_id == 1 && s.focus == 11,
           "swipe's will: phase %d to %llu focus %llu", (int)s.phase, (unsigned long long)s.to_id, (unsigned long long)s.focus);
    MUST(ctx, ng_interactive_update(ctx, 0.4));
    MUST(ctx, ng_screen_set_focus(ctx, 5, 56));
    MUST(ctx, ng_interactive_cancel(ctx));
    EXPECT(s.phase == NG_PHASE_CANCELLED && s.to_id == 5 && s.focus == 56,
           "cancelled swipe: phase %d to %llu focus %llu", (int)s.phase, (unsigned long long)s.to_id, (unsigned long long)s.focus);
    EXPECT(focus_of(ctx, 5) == 56 && focus_of(ctx, 1) == 11, "tokens after the rollback");

    /* Snapshot and restore carry the tokens. */
    MUST(ctx, ng_screen_set_focus(ctx, 1, HIGH_TOKEN));
    char *snap = NULL;
    size_t snap_len = 0;
    MUST(ctx, ng_stack_snapshot(ctx, &snap, &snap_len));
    EXPECT(strstr(snap, "\"focus\":56") != NULL && strstr(snap, "\"focus\":-14") != NULL, "snapshot: %s", snap);
    MUST(ctx, ng_screen_set_focus(ctx, 1, 0));
    MUST(ctx, ng_screen_set_focus(ctx, 5, 0));
    MUST(ctx, ng_stack_restore(ctx, snap, snap_len));
    EXPECT(focus_of(ctx, 1) == HIGH_TOKEN && focus_of(ctx, 5) == 56, "restored: %llx, %llu",
           (unsigned long long)focus_of(ctx, 1), (unsigned long long)focus_of(ctx, 5));
    ng_request pop2 = NG_REQUEST_INIT(NG_REQ_POP);
    submit(ctx, &pop2);
    EXPECT(s.to_id == 1 && s.focus == HIGH_TOKEN, "pop after restore: focus %llx", (unsigned long long)s.focus);

    /* Into another context; a malformed token changes nothing. */
    seen s2;
    ng_context *other = make(&s2);
    MUST(other, ng_stack_restore(other, snap, snap_len));
    EXPECT(focus_of(other, 1) == HIGH_TOKEN && focus_of(other, 5) == 56, "restored elsewhere");
    const char *bad = "{\"navguard_snapshot\":1,\"screens\":[{\"id\":1,\"route\":\"home\",\"focus\":\"x\"}]}";
    EXPECT_ST(other, ng_stack_restore(other, bad, strlen(bad)), NG_E_RANGE);
    EXPECT(focus_of(other, 5) == 56, "a bad snapshot leaves the stack");
    MUST(other, ng_context_destroy(other));
    ng_free(snap);

    MUST(ctx, ng_context_destroy(ctx));

    /* The trace: the calls are recorded, the session replays identically. */
    size_t len = 0;
    char *trace = read_file(path, &len);
    EXPECT(trace != NULL, "no trace at %s", path);
    if (!trace) return 1;
    EXPECT(strstr(trace, "\"fn\":\"screen_focus\"") != NULL, "ng_screen_set_focus is in the trace");
    EXPECT(strstr(trace, "\"focus\":56") != NULL, "the rollback's token is in the trace");
    ng_replay_result res = NG_REPLAY_RESULT_INIT;
    ng_status st = ng_replay(trace, len, NULL, &res);
    EXPECT(st == NG_OK && res.identical, "replay: %s, identical %d\n%s", ng_strstatus(st), res.identical,
           res.report ? res.report : "");
    ng_free(res.report);

    /* Tampered: the token set during the swipe becomes 57. */
    char *at = strstr(trace, "\"token\":56");
    EXPECT(at != NULL, "the swipe's set_focus line");
    if (at) {
        at[9] = '7';
        ng_replay_result diff = NG_REPLAY_RESULT_INIT;
        st = ng_replay(trace, len, NULL, &diff);
        EXPECT(st == NG_OK && !diff.identical, "a changed token must diverge: %s, identical %d", ng_strstatus(st),
               diff.identical);
        ng_free(diff.report);
    }
    free(trace);
    unlink(path);
    rmdir(dir);

    printf("test_focus: %d checks, %d failures\n", g_checks, g_failures);
    return g_failures ? 1 : 0;
}
