/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_presses.c — keys and controller buttons have a life, as touches do
 * (navguard.h, "Presses"), as a C game front-end drives it:
 *  - a press gets one end: its up, or one on_press_cancel;
 *  - a down on a key still down: the old press ends first (NG_PRESS_LOST);
 *  - a removed controller ends its held buttons (ng_device_removed), only
 *    its own and only of its type;
 *  - a transition cancels a held button (NG_PRESS_TRANSITION): its repeats
 *    and up are dropped until it is pressed again (a held D-pad does not run
 *    through the new menu), with the default chain;
 *  - a key-masked hold drops downs and cancels held keys (NG_PRESS_HOLD);
 *  - destroy cancels held presses; a full table ends the oldest;
 *  - a delegate from a 0.3 header (no on_press_cancel) still gets the drops;
 *  - a recorded session with presses, a transition and a removed controller
 *    replays identically (ng_device_removed is recorded as its event);
 *  - button names.
 */
#define _POSIX_C_SOURCE 200809L   /* mkstemp */
#include <navguard/navguard.h>

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"

#define MS 1000000LL
enum { PAD1 = 0, PAD2 = 1, KEYBOARD = 0 };

typedef struct {
    int cancels;
    ng_press_info last;
    int causes[8];
} host;

static void on_press_cancel(void *user, ng_context *ctx, const ng_press_info *p) {
    host *h = user;
    (void)ctx;
    h->cancels++;
    h->last = *p;
    if (p->cause >= 0 && p->cause < 8) h->causes[p->cause]++;
}

static ng_context *game(host *h, int default_chain) {
    memset(h, 0, sizeof *h);
    ng_options o = NG_OPTIONS_INIT;
    o.clock = NG_CLOCK_MANUAL;
    o.delegate.user = h;
    o.delegate.on_press_cancel = on_press_cancel;
    ng_context *ctx = NULL;
    if (ng_context_create(&o, &ctx) != NG_OK) { fprintf(stderr, "FATAL: context\n"); exit(1); }
    if (default_chain) MUST(ctx, ng_chain_configure(ctx, NULL));
    ng_screen title = { 1, "title", NULL };
    MUST(ctx, ng_stack_set_root(ctx, &title));
    return ctx;
}

static ng_event_result ev(ng_context *ctx, ng_event_type type, int32_t phase, uint64_t device, int64_t code) {
    ng_event e = NG_EVENT_INIT(type);
    e.phase = phase;
    e.touch_id = device;
    e.code = code;
    ng_event_result r = NG_EVENT_RESULT_INIT;
    MUST(ctx, ng_event_submit(ctx, &e, &r));
    return r;
}
static ng_event_result button(ng_context *ctx, int32_t phase, uint64_t pad, int64_t b) {
    return ev(ctx, NG_EVENT_REMOTE, phase, pad, b);
}
/* Functions, not macros: each event is submitted once. */
static int DELIVERED(ng_event_result r) { return r.verdict == NG_VERDICT_DELIVER; }
static int DROPPED(ng_event_result r, ng_reason why) { return r.verdict == NG_VERDICT_DROP && r.reason == why; }

static ng_request_result push(ng_context *ctx, uint64_t id, const char *route, uint32_t source) {
    ng_request p = NG_REQUEST_INIT(NG_REQ_PUSH);
    p.flags = NG_REQF_ANIMATED;
    p.source = source;
    p.screen.id = id;
    p.screen.route = route;
    ng_request_result res = NG_REQUEST_RESULT_INIT;
    MUST(ctx, ng_request_submit(ctx, &p, &res));
    return res;
}

static void one_end_each(void) {
    host h;
    ng_context *ctx = game(&h, 0);
    EXPECT(DELIVERED(button(ctx, NG_KEY_DOWN, PAD1, NG_BUTTON_A)), "A down");
    EXPECT(DELIVERED(button(ctx, NG_KEY_REPEAT, PAD1, NG_BUTTON_A)), "A repeats while held");
    EXPECT(DELIVERED(button(ctx, NG_KEY_UP, PAD1, NG_BUTTON_A)), "A up");
    EXPECT(h.cancels == 0, "an ended press is not cancelled (%d)", h.cancels);
    /* An up with no down seen passes as before presses were tracked. */
    EXPECT(DELIVERED(button(ctx, NG_KEY_UP, PAD1, NG_BUTTON_X)), "a stray up passes");
    /* A lost up: the second down ends the first press, once. */
    EXPECT(DELIVERED(button(ctx, NG_KEY_DOWN, PAD1, NG_BUTTON_B)), "B down");
    EXPECT(DELIVERED(button(ctx, NG_KEY_DOWN, PAD1, NG_BUTTON_B)), "B down again (its up was lost)");
    EXPECT(h.cancels == 1 && h.last.cause == NG_PRESS_LOST && h.last.code == NG_BUTTON_B && h.last.device == PAD1 &&
           h.last.type == NG_EVENT_REMOTE && h.last.screen_id == 1,
           "the lost press is cancelled: %d, cause %s", h.cancels, ng_press_cause_name(h.last.cause));
    EXPECT(DELIVERED(button(ctx, NG_KEY_UP, PAD1, NG_BUTTON_B)), "the new press's up");
    EXPECT(h.cancels == 1, "and nothing more");
    /* The same code on another pad, and a key with the same code, are other presses. */
    EXPECT(DELIVERED(button(ctx, NG_KEY_DOWN, PAD1, NG_BUTTON_Y)), "pad 1 Y");
    EXPECT(DELIVERED(button(ctx, NG_KEY_DOWN, PAD2, NG_BUTTON_Y)), "pad 2 Y");
    EXPECT(DELIVERED(ev(ctx, NG_EVENT_KEY, NG_KEY_DOWN, KEYBOARD, NG_BUTTON_Y)), "keyboard key 3");
    EXPECT(h.cancels == 1, "three presses, none lost (%d)", h.cancels);
    MUST(ctx, ng_context_destroy(ctx));
    EXPECT(h.cancels == 4 && h.causes[NG_PRESS_DESTROYED] == 3, "destroy cancels the three held (%d)", h.cancels);
}

static void controller_removed(void) {
    host h;
    ng_context *ctx = game(&h, 0);
    EXPECT(DELIVERED(button(ctx, NG_KEY_DOWN, PAD1, NG_BUTTON_A)), "pad 1 A");
    EXPECT(DELIVERED(button(ctx, NG_KEY_DOWN, PAD1, NG_BUTTON_DPAD_LEFT)), "pad 1 left");
    EXPECT(DELIVERED(button(ctx, NG_KEY_DOWN, PAD2, NG_BUTTON_A)), "pad 2 A");
    EXPECT(DELIVERED(ev(ctx, NG_EVENT_KEY, NG_KEY_DOWN, KEYBOARD, 13)), "keyboard (device 0, as pad 1) Enter");
    EXPECT_ST(ctx, ng_device_removed(ctx, NG_EVENT_TOUCH, PAD1), NG_E_RANGE);
    EXPECT_ST(NULL, ng_device_removed(NULL, NG_EVENT_REMOTE, PAD1), NG_E_HANDLE);
    EXPECT(h.cancels == 0, "a refused call ends nothing");
    EXPECT_ST(ctx, ng_device_removed(ctx, NG_EVENT_REMOTE, PAD1), NG_OK);
    EXPECT(h.cancels == 2 && h.causes[NG_PRESS_DEVICE_REMOVED] == 2 && h.last.device == PAD1,
           "pad 1's two buttons are cancelled: %d", h.cancels);
    EXPECT_ST(ctx, ng_device_removed(ctx, NG_EVENT_REMOTE, PAD1), NG_OK);
    EXPECT(h.cancels == 2, "once");
    EXPECT(DELIVERED(button(ctx, NG_KEY_UP, PAD2, NG_BUTTON_A)), "pad 2 is untouched");
    EXPECT(DELIVERED(ev(ctx, NG_EVENT_KEY, NG_KEY_UP, KEYBOARD, 13)), "so is the keyboard");
    EXPECT(h.cancels == 2, "no more cancels");
    /* The event form does the same. */
    EXPECT(DELIVERED(button(ctx, NG_KEY_DOWN, PAD2, NG_BUTTON_START)), "pad 2 start");
    button(ctx, NG_KEY_DEVICE_REMOVED, PAD2, 0);
    EXPECT(h.cancels == 3 && h.last.code == NG_BUTTON_START && h.last.cause == NG_PRESS_DEVICE_REMOVED,
           "the event form ends pad 2's start");
    MUST(ctx, ng_context_destroy(ctx));
    EXPECT(h.cancels == 3, "nothing held at destroy");
}

static void held_through_a_transition(void) {
    host h;
    ng_context *ctx = game(&h, 1);
    /* A pressed on the title opens the menu while still held. */
    EXPECT(DELIVERED(button(ctx, NG_KEY_DOWN, PAD1, NG_BUTTON_A)), "A down on the title");
    EXPECT(push(ctx, 2, "menu", 1).status == NG_OUTCOME_APPLIED, "push menu");
    EXPECT(h.cancels == 1 && h.last.cause == NG_PRESS_TRANSITION && h.last.code == NG_BUTTON_A && h.last.screen_id == 1,
           "A is cancelled as the push starts: %d %s", h.cancels, ng_press_cause_name(h.last.cause));
    MUST(ctx, ng_transition_finish(ctx, NG_TRACK_ALL));
    EXPECT(DROPPED(button(ctx, NG_KEY_UP, PAD1, NG_BUTTON_A), NG_REASON_CANCELLED),
           "its release on the menu does not activate anything");
    EXPECT(DELIVERED(button(ctx, NG_KEY_DOWN, PAD1, NG_BUTTON_A)), "a new press of A on the menu");
    EXPECT(DELIVERED(button(ctx, NG_KEY_UP, PAD1, NG_BUTTON_A)), "is a press like any");

    /* A D-pad held through a push repeats nothing on the new menu. */
    EXPECT(DELIVERED(button(ctx, NG_KEY_DOWN, PAD1, NG_BUTTON_DPAD_DOWN)), "down held");
    EXPECT(DELIVERED(button(ctx, NG_KEY_REPEAT, PAD1, NG_BUTTON_DPAD_DOWN)), "repeats on the menu");
    EXPECT(push(ctx, 3, "options", 2).status == NG_OUTCOME_APPLIED, "push options");
    EXPECT(h.cancels == 2 && h.last.code == NG_BUTTON_DPAD_DOWN && h.last.screen_id == 2, "the D-pad is cancelled");
    EXPECT(DROPPED(button(ctx, NG_KEY_REPEAT, PAD1, NG_BUTTON_DPAD_DOWN), NG_REASON_CANCELLED), "no repeat mid-slide");
    MUST(ctx, ng_transition_finish(ctx, NG_TRACK_ALL));
    for (int i = 0; i < 5; i++)
        EXPECT(DROPPED(button(ctx, NG_KEY_REPEAT, PAD1, NG_BUTTON_DPAD_DOWN), NG_REASON_CANCELLED),
               "no repeat on the new menu (%d)", i);
    EXPECT(DROPPED(button(ctx, NG_KEY_UP, PAD1, NG_BUTTON_DPAD_DOWN), NG_REASON_CANCELLED), "nor its up");
    EXPECT(DELIVERED(button(ctx, NG_KEY_DOWN, PAD1, NG_BUTTON_DPAD_DOWN)), "pressed again: it moves");
    EXPECT(DELIVERED(button(ctx, NG_KEY_REPEAT, PAD1, NG_BUTTON_DPAD_DOWN)), "and repeats");
    EXPECT(h.cancels == 2, "one cancel per press (%d)", h.cancels);
    MUST(ctx, ng_context_destroy(ctx));
    EXPECT(h.cancels == 3 && h.last.cause == NG_PRESS_DESTROYED, "the last held one ends at destroy");
}

static void holds(void) {
    host h;
    ng_context *ctx = game(&h, 0);
    EXPECT(DELIVERED(ev(ctx, NG_EVENT_KEY, NG_KEY_DOWN, KEYBOARD, 'w')), "w held");
    EXPECT(DELIVERED(button(ctx, NG_KEY_DOWN, PAD1, NG_BUTTON_A)), "A held");
    uint64_t tok = 0;
    MUST(ctx, ng_hold_begin(ctx, "loading", NG_MASK_KEY, 0, &tok));
    EXPECT(h.cancels == 1 && h.last.type == NG_EVENT_KEY && h.last.cause == NG_PRESS_HOLD,
           "a key hold cancels the held key only: %d", h.cancels);
    EXPECT(DROPPED(ev(ctx, NG_EVENT_KEY, NG_KEY_UP, KEYBOARD, 'w'), NG_REASON_CANCELLED), "w's up is dropped");
    EXPECT(DROPPED(ev(ctx, NG_EVENT_KEY, NG_KEY_DOWN, KEYBOARD, 's'), NG_REASON_IGNORING), "a key down is blocked");
    EXPECT(DELIVERED(button(ctx, NG_KEY_UP, PAD1, NG_BUTTON_A)), "the button is not in the mask");
    MUST(ctx, ng_hold_end(ctx, tok));
    EXPECT(DROPPED(ev(ctx, NG_EVENT_KEY, NG_KEY_REPEAT, KEYBOARD, 's'), NG_REASON_WITHHELD), "the blocked press stays withheld");
    EXPECT(DROPPED(ev(ctx, NG_EVENT_KEY, NG_KEY_UP, KEYBOARD, 's'), NG_REASON_WITHHELD), "to its up");
    EXPECT(DELIVERED(ev(ctx, NG_EVENT_KEY, NG_KEY_DOWN, KEYBOARD, 's')), "after the hold, keys pass");
    EXPECT(DELIVERED(button(ctx, NG_KEY_DOWN, PAD1, NG_BUTTON_B)), "B held");
    MUST(ctx, ng_hold_begin(ctx, "pad", NG_MASK_REMOTE, 0, &tok));
    EXPECT(h.cancels == 2 && h.last.code == NG_BUTTON_B && h.last.cause == NG_PRESS_HOLD, "a remote hold cancels B");
    MUST(ctx, ng_context_destroy(ctx));
    EXPECT(h.cancels == 3 && h.last.type == NG_EVENT_KEY, "s is cancelled at destroy (%d)", h.cancels);
}

static void full_table(void) {
    host h;
    ng_context *ctx = game(&h, 0);
    for (int64_t k = 0; k < 64; k++) EXPECT(DELIVERED(ev(ctx, NG_EVENT_KEY, NG_KEY_DOWN, KEYBOARD, 1000 + k)), "key %lld", (long long)k);
    EXPECT(h.cancels == 0, "64 presses fit");
    EXPECT(DELIVERED(ev(ctx, NG_EVENT_KEY, NG_KEY_DOWN, KEYBOARD, 5000)), "the 65th");
    EXPECT(h.cancels == 1 && h.last.code == 1000 && h.last.cause == NG_PRESS_LOST, "ends the oldest as lost");
    MUST(ctx, ng_context_destroy(ctx));
    EXPECT(h.cancels == 65, "the 64 held are cancelled at destroy (%d)", h.cancels);
}

/* A host built against 0.3: its delegate ends before on_press_cancel. */
static int g_old_called;
static void must_not_run(void *user, ng_context *ctx, const ng_press_info *p) {
    (void)user; (void)ctx; (void)p;
    g_old_called++;
}

static void old_delegate(void) {
    ng_options o = NG_OPTIONS_INIT;
    o.clock = NG_CLOCK_MANUAL;
    o.delegate.size = (uint32_t)offsetof(ng_delegate, on_press_cancel);
    o.delegate.on_press_cancel = must_not_run;   /* past its size: never read */
    ng_context *ctx = NULL;
    MUST(ctx, ng_context_create(&o, &ctx));
    ng_screen title = { 1, "title", NULL };
    MUST(ctx, ng_stack_set_root(ctx, &title));
    EXPECT(DELIVERED(button(ctx, NG_KEY_DOWN, PAD1, NG_BUTTON_A)), "A down");
    EXPECT(push(ctx, 2, "menu", 1).status == NG_OUTCOME_APPLIED, "push");
    EXPECT(DROPPED(button(ctx, NG_KEY_UP, PAD1, NG_BUTTON_A), NG_REASON_CANCELLED), "its release is still dropped");
    MUST(ctx, ng_context_destroy(ctx));
    EXPECT(g_old_called == 0, "no callback beyond the delegate's size");
}

static char *read_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = malloc((size_t)n + 1);
    if (b && fread(b, 1, (size_t)n, f) != (size_t)n) { free(b); b = NULL; }
    fclose(f);
    if (b) { b[n] = 0; *len = (size_t)n; }
    return b;
}

static void replays_identically(void) {
    char path[] = "/tmp/navguard-presses-XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0) { fprintf(stderr, "FATAL: mkstemp\n"); exit(1); }
    close(fd);
    host h;
    ng_context *ctx = game(&h, 1);
    ng_record_options ro = NG_RECORD_OPTIONS_INIT;
    ro.path = path;
    MUST(ctx, ng_record_start(ctx, &ro));
    button(ctx, NG_KEY_DOWN, PAD1, NG_BUTTON_A);
    push(ctx, 2, "menu", 1);
    button(ctx, NG_KEY_REPEAT, PAD1, NG_BUTTON_A);
    MUST(ctx, ng_clock_advance(ctx, 400 * MS));
    MUST(ctx, ng_tick(ctx));
    button(ctx, NG_KEY_UP, PAD1, NG_BUTTON_A);
    button(ctx, NG_KEY_DOWN, PAD2, NG_BUTTON_B);
    MUST(ctx, ng_device_removed(ctx, NG_EVENT_REMOTE, PAD2));
    button(ctx, NG_KEY_DOWN, PAD1, NG_BUTTON_START);
    MUST(ctx, ng_context_destroy(ctx));
    EXPECT(h.cancels == 3, "transition, removal, destroy: %d cancels", h.cancels);
    size_t len = 0;
    char *trace = read_file(path, &len);
    unlink(path);
    EXPECT(trace != NULL, "the trace was written");
    if (!trace) return;
    ng_replay_result res = NG_REPLAY_RESULT_INIT;
    ng_status st = ng_replay(trace, len, NULL, &res);
    EXPECT(st == NG_OK && res.identical && res.calls >= 8, "replay: %s, identical %d, %llu calls\n%s",
           ng_strstatus(st), res.identical, (unsigned long long)res.calls, res.report ? res.report : "");
    ng_free(res.report);
    free(trace);
}

int main(void) {
    one_end_each();
    controller_removed();
    held_through_a_transition();
    holds();
    full_table();
    old_delegate();
    replays_identically();
    EXPECT(strcmp(ng_button_name(NG_BUTTON_B), "B") == 0 && strcmp(ng_button_name(NG_BUTTON_DPAD_UP), "dpad-up") == 0,
           "button names");
    if (g_failures) {
        fprintf(stderr, "test_presses: %d of %d checks failed\n", g_failures, g_checks);
        return 1;
    }
    printf("test_presses: all %d checks passed\n", g_checks);
    return 0;
}
