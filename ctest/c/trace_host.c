/* SPDX-License-Identifier: Apache-2.0 */
/* trace_host: a kiosk session (Home -> Menu -> Item -> Checkout) recorded by
 * the flight recorder on a manual clock, for the `navguard timeline` tests
 * (ctest/cli/check_timeline.py, cmake/NavGuardCLI.cmake) and for
 * docs/timeline.svg:
 *
 *   trace_host OUT.jsonl [--ring N] [--unfinished]
 *   trace_host OUT.jsonl --incident
 *   trace_host OUT.jsonl --drive-limit
 *   trace_host OUT.jsonl --idle-return
 *   trace_host OUT.jsonl --presses
 *
 * The session: a push, a double tap refused and its touch dropped, a network
 * hold that drops a tap and a late posted reply refused, a finger-driven
 * swipe back, then a checkout push
 * whose animation never ends (taps dropped, Back refused) until the watchdog
 * forces it, and a "payment" hold the host never ends, released by the
 * watchdog. --unfinished then leaves a push in flight, a hold and a touch
 * live when the context is destroyed. --ring N records into an N-record ring
 * and dumps it to OUT.jsonl instead of writing the file as it goes.
 *
 * --incident records another session, a field incident as a kiosk's ring
 * would hold it: a mouse press (the mouse's touch id, all bits set) whose
 * release is lost, in the way of a finger on the same button (multiple
 * touch off) at 2500 ms, and a "scanner" hold nobody ends, both ended by the
 * watchdog at the same tick; then 16 s of nothing; then a network reply
 * posted from another thread that waits 80 ms for the loop's tick.
 *
 * --drive-limit records a swipe back (#2, Menu -> Home) whose finger stops
 * at 1200 ms and stays down: at 61200 ms the watchdog's drive limit (60 s)
 * cancels the finger and rolls the swipe back, so the stack stays on Menu.
 * The host goes on sending the finger's moves (7) and its release at 65 s:
 * all 8 dropped (cancelled).
 *
 * --idle-return records the unattended Checkout: Home, Menu, Item, then
 * Checkout (asks before leaving) by 1.5 s; nobody touches it; the
 * org.navguard.idle-return guard (after_ms 120 s) makes an unattended
 * pop-to-root (#g1, a guard's own request) at 121.5 s, confirm-leave asks,
 * nobody answers for its unattended timeout (10 s), and the return goes on
 * to Home at 131.5 s; 4 more minutes of nothing: no second question, no
 * report.
 *
 * --presses records a game front-end driven by two controllers and a
 * keyboard: Home (focus 11) -> Menu, pushed by controller 3's A, which is
 * still held when the push starts (cancelled: transition; its up dropped);
 * focus set on Menu (21, then 22 after a D-pad down); controller 4's B held
 * into the Back it made (cancelled: transition), Home handing back focus 11;
 * controller 3 unplugged with A down (cancelled: device-removed); keyboard
 * 0's Escape (27) pressed and released; controller 4's Start still down at
 * destroy (cancelled: destroyed).
 * `make docs` draws docs/timeline.svg from the session without --unfinished. */
#include <navguard/navguard.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MS 1000000LL
/* The manual clock starts here, not at 0, so the timeline's times must be
 * relative to the trace's start (its header's at_ns). */
#define START (1000 * 1000 * MS)

static ng_context *ctx;

static void fail(const char *what, ng_status st) {
    fprintf(stderr, "trace_host: %s: %s (%s)\n", what, ng_strstatus(st), ng_errmsg(ctx));
    exit(1);
}

/* The host's poll loop: tick at each deadline up to `ms`, then stand at it. */
static void idle_until(int64_t ms) {
    int64_t deadline;
    while (ng_next_deadline(ctx, &deadline) == NG_OK && deadline != NG_NO_DEADLINE && deadline <= START + ms * MS) {
        ng_clock_set(ctx, deadline);
        ng_tick(ctx);
    }
    ng_clock_set(ctx, START + ms * MS);
}

static void touch(int64_t ms, uint64_t id, int32_t phase, double x, double y) {
    idle_until(ms);
    ng_event e = NG_EVENT_INIT(NG_EVENT_TOUCH);
    ng_event_result r = NG_EVENT_RESULT_INIT;
    e.touch_id = id;
    e.phase = phase;
    e.x = x;
    e.y = y;
    ng_status st = ng_event_submit(ctx, &e, &r);
    if (st != NG_OK) fail("ng_event_submit", st);
}

static void tap(int64_t ms, uint64_t id, double x, double y) {
    touch(ms, id, NG_TOUCH_BEGAN, x, y);
    touch(ms + 60, id, NG_TOUCH_ENDED, x, y);
}

static void request(int64_t ms, ng_request_kind kind, uint32_t source, uint64_t screen, const char *route) {
    idle_until(ms);
    ng_request q = NG_REQUEST_INIT(kind);
    ng_request_result r = NG_REQUEST_RESULT_INIT;
    q.flags = NG_REQF_ANIMATED;
    q.source = source;
    q.screen = (ng_screen){ screen, route, NULL };
    ng_status st = ng_request_submit(ctx, &q, &r);
    if (st != NG_OK) fail("ng_request_submit", st);
}

static void finish(int64_t ms) {
    idle_until(ms);
    ng_transition_finish(ctx, NG_TRACK_ALL);
}

static void view(uint64_t id, uint64_t parent, double x, double y, double w, double h) {
    ng_view v = NG_VIEW_INIT;
    v.id = id;
    v.parent = parent;
    v.frame = (ng_rect){ x, y, w, h };
    ng_status st = ng_view_set(ctx, &v);
    if (st != NG_OK) fail("ng_view_set", st);
}

/* The --incident session (see the top of this file). */
static int incident(const char *out) {
    ng_options o = NG_OPTIONS_INIT;
    o.clock = NG_CLOCK_MANUAL;
    o.manual_start_ns = START;
    ng_status st = ng_context_create(&o, &ctx);
    if (st != NG_OK) fail("ng_context_create", st);
    ng_record_options ro = NG_RECORD_OPTIONS_INIT;
    ro.path = out;
    if ((st = ng_record_start(ctx, &ro)) != NG_OK) fail("ng_record_start", st);
    st = ng_chain_configure(ctx, "{\"base\":\"default\",\"edits\":[{\"configure\":\"org.navguard.watchdog\","
                                 "\"config\":{\"hold_limit_ms\":3000,\"touch_limit_ms\":3000}}]}");
    if (st != NG_OK) fail("ng_chain_configure", st);
    enum { WINDOW = 1, NEXT = 2 };
    view(WINDOW, 0, 0, 0, 800, 600);
    view(NEXT, WINDOW, 600, 500, 150, 60);
    ng_screen home = { 1, "home", NULL };
    if ((st = ng_stack_set_root(ctx, &home)) != NG_OK) fail("ng_stack_set_root", st);
    tap(100, 1, 650, 530);
    request(160, NG_REQ_PUSH, NEXT, 2, "menu");
    finish(510);
    /* The mouse goes down on Next and its release is lost; a barcode
     * scanner's hold is never ended. */
    touch(1000, UINT64_MAX, NG_TOUCH_BEGAN, 650, 530);
    uint64_t scanner;
    if ((st = ng_hold_begin(ctx, "scanner", NG_MASK_KEY, 0, &scanner)) != NG_OK) fail("ng_hold_begin", st);
    /* A finger on Next is refused because of the still mouse press (multiple
     * touch off): the press is in the way, so the watchdog's touch limit
     * applies to it (a press that blocks nothing is left alone). */
    tap(2500, 2, 650, 530);
    /* The watchdog ends both at 4000 ms; then nothing happens until 20 s. */
    idle_until(20000);
    ng_request reply = NG_REQUEST_INIT(NG_REQ_PUSH);
    reply.flags = NG_REQF_ANIMATED;
    reply.screen = (ng_screen){ 3, "item", NULL };
    if ((st = ng_request_post(ctx, &reply, NULL)) != NG_OK) fail("ng_request_post", st);
    /* The loop ticks 80 ms later (a frame's work, a slow network thread). */
    ng_clock_set(ctx, START + 20080 * MS);
    ng_tick(ctx);
    finish(20430);
    idle_until(21000);
    ng_context_destroy(ctx);
    return 0;
}

/* The --drive-limit session (see the top of this file). */
static int drive_limit(const char *out) {
    ng_options o = NG_OPTIONS_INIT;
    o.clock = NG_CLOCK_MANUAL;
    o.manual_start_ns = START;
    ng_status st = ng_context_create(&o, &ctx);
    if (st != NG_OK) fail("ng_context_create", st);
    ng_record_options ro = NG_RECORD_OPTIONS_INIT;
    ro.path = out;
    if ((st = ng_record_start(ctx, &ro)) != NG_OK) fail("ng_record_start", st);
    if ((st = ng_chain_configure(ctx, "{\"base\":\"default\"}")) != NG_OK) fail("ng_chain_configure", st);
    enum { WINDOW = 1, NEXT = 2 };
    view(WINDOW, 0, 0, 0, 800, 600);
    view(NEXT, WINDOW, 600, 500, 150, 60);
    ng_screen home = { 1, "home", NULL };
    if ((st = ng_stack_set_root(ctx, &home)) != NG_OK) fail("ng_stack_set_root", st);
    request(100, NG_REQ_PUSH, NEXT, 2, "menu");
    finish(450);
    /* A finger from the left edge drives a swipe back, then stops. */
    touch(1000, 7, NG_TOUCH_BEGAN, 5, 300);
    idle_until(1020);
    ng_request back = NG_REQUEST_INIT(NG_REQ_INTERACTIVE_BACK);
    ng_request_result res = NG_REQUEST_RESULT_INIT;
    back.flags = NG_REQF_ANIMATED | NG_REQF_TOUCH_DRIVEN;
    back.driving_touch = 7;
    if ((st = ng_request_submit(ctx, &back, &res)) != NG_OK) fail("interactive back", st);
    for (int i = 1; i <= 3; i++) {
        touch(1020 + 60 * i, 7, NG_TOUCH_MOVED, 5 + 100 * i, 300);
        ng_interactive_update(ctx, 0.13 * i);
    }
    /* Still from 1200 ms: the watchdog rolls the swipe back at 61200 ms. The
     * host, whatever on_touch_cancel said, sends the finger's last moves and
     * its release: NavGuard drops them (cancelled). */
    for (int i = 1; i <= 7; i++) touch(62000 + 400 * i, 7, NG_TOUCH_MOVED, 305 + 5 * i, 300);
    touch(65000, 7, NG_TOUCH_ENDED, 340, 300);
    idle_until(65500);
    ng_context_destroy(ctx);
    return 0;
}

/* The --presses session (see the top of this file). */
static void press(int64_t ms, ng_event_type type, uint64_t device, int64_t code, int32_t phase) {
    idle_until(ms);
    ng_event e = NG_EVENT_INIT(type);
    ng_event_result r = NG_EVENT_RESULT_INIT;
    e.phase = phase;
    e.touch_id = device;
    e.code = code;
    ng_status st = ng_event_submit(ctx, &e, &r);
    if (st != NG_OK) fail("ng_event_submit", st);
}

static void device_request(int64_t ms, ng_request_kind kind, uint64_t device, uint64_t screen, const char *route) {
    idle_until(ms);
    ng_request q = NG_REQUEST_INIT(kind);
    ng_request_result r = NG_REQUEST_RESULT_INIT;
    q.flags = NG_REQF_ANIMATED;
    q.device = device;
    q.screen = (ng_screen){ screen, route, NULL };
    ng_status st = ng_request_submit(ctx, &q, &r);
    if (st != NG_OK) fail("ng_request_submit", st);
}

static void focus(int64_t ms, uint64_t screen, uint64_t token) {
    idle_until(ms);
    ng_status st = ng_screen_set_focus(ctx, screen, token);
    if (st != NG_OK) fail("ng_screen_set_focus", st);
}

static int presses(const char *out) {
    ng_options o = NG_OPTIONS_INIT;
    o.clock = NG_CLOCK_MANUAL;
    o.manual_start_ns = START;
    ng_status st = ng_context_create(&o, &ctx);
    if (st != NG_OK) fail("ng_context_create", st);
    ng_record_options ro = NG_RECORD_OPTIONS_INIT;
    ro.path = out;
    if ((st = ng_record_start(ctx, &ro)) != NG_OK) fail("ng_record_start", st);
    if ((st = ng_chain_configure(ctx, NULL)) != NG_OK) fail("ng_chain_configure", st);
    ng_screen home = { 1, "home", NULL };
    if ((st = ng_stack_set_root(ctx, &home)) != NG_OK) fail("ng_stack_set_root", st);
    focus(50, 1, 11);
    press(100, NG_EVENT_REMOTE, 3, NG_BUTTON_A, NG_KEY_DOWN);
    device_request(120, NG_REQ_PUSH, 3, 2, "menu");
    press(200, NG_EVENT_REMOTE, 3, NG_BUTTON_A, NG_KEY_UP);
    finish(470);
    focus(500, 2, 21);
    press(600, NG_EVENT_REMOTE, 3, NG_BUTTON_DPAD_DOWN, NG_KEY_DOWN);
    press(650, NG_EVENT_REMOTE, 3, NG_BUTTON_DPAD_DOWN, NG_KEY_UP);
    focus(650, 2, 22);
    press(800, NG_EVENT_REMOTE, 4, NG_BUTTON_B, NG_KEY_DOWN);
    device_request(810, NG_REQ_BACK, 4, 0, NULL);
    press(900, NG_EVENT_REMOTE, 4, NG_BUTTON_B, NG_KEY_UP);
    finish(1160);
    press(1300, NG_EVENT_REMOTE, 3, NG_BUTTON_A, NG_KEY_DOWN);
    idle_until(1400);
    if ((st = ng_device_removed(ctx, NG_EVENT_REMOTE, 3)) != NG_OK) fail("ng_device_removed", st);
    press(1500, NG_EVENT_KEY, 0, 27, NG_KEY_DOWN);
    press(1550, NG_EVENT_KEY, 0, 27, NG_KEY_UP);
    press(1600, NG_EVENT_REMOTE, 4, NG_BUTTON_START, NG_KEY_DOWN);
    idle_until(1700);
    ng_context_destroy(ctx);
    return 0;
}

/* The --idle-return session (see the top of this file). */
static int idle_return(const char *out) {
    ng_options o = NG_OPTIONS_INIT;
    o.clock = NG_CLOCK_MANUAL;
    o.manual_start_ns = START;
    ng_status st = ng_context_create(&o, &ctx);
    if (st != NG_OK) fail("ng_context_create", st);
    ng_record_options ro = NG_RECORD_OPTIONS_INIT;
    ro.path = out;
    if ((st = ng_record_start(ctx, &ro)) != NG_OK) fail("ng_record_start", st);
    st = ng_chain_configure(ctx, "{\"base\":\"default\",\"edits\":[{\"insert\":{\"id\":\"org.navguard.idle-return\","
                                 "\"config\":{\"after_ms\":120000,\"source\":903}}}]}");
    if (st != NG_OK) fail("ng_chain_configure", st);
    enum { WINDOW = 1, NEXT = 2 };
    view(WINDOW, 0, 0, 0, 800, 600);
    view(NEXT, WINDOW, 600, 500, 150, 60);
    ng_screen home = { 1, "home", NULL };
    if ((st = ng_stack_set_root(ctx, &home)) != NG_OK) fail("ng_stack_set_root", st);
    tap(100, 1, 650, 530);
    request(160, NG_REQ_PUSH, NEXT, 2, "menu");
    finish(510);
    tap(600, 2, 650, 530);
    request(660, NG_REQ_PUSH, NEXT, 3, "item");
    finish(1010);
    tap(1100, 3, 650, 530);
    idle_until(1160);
    ng_request q = NG_REQUEST_INIT(NG_REQ_PUSH);
    ng_request_result r = NG_REQUEST_RESULT_INIT;
    q.flags = NG_REQF_ANIMATED;
    q.source = NEXT;
    q.screen = (ng_screen){ 4, "checkout", NULL };
    q.screen_flags = NG_SCREENF_CONFIRM_LEAVE;
    if ((st = ng_request_submit(ctx, &q, &r)) != NG_OK) fail("push checkout", st);
    finish(1510);
    /* Nobody: the idle return at 121.5 s, asked, unanswered until 131.5 s. */
    idle_until(131700);
    finish(131900);
    idle_until(371900);
    ng_context_destroy(ctx);
    return 0;
}

int main(int argc, char **argv) {
    const char *out = NULL;
    uint32_t ring = 0;
    int unfinished = 0, incident_session = 0, drive_limit_session = 0, idle_return_session = 0, presses_session = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--ring") == 0 && i + 1 < argc) ring = (uint32_t)strtoul(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--unfinished") == 0) unfinished = 1;
        else if (strcmp(argv[i], "--incident") == 0) incident_session = 1;
        else if (strcmp(argv[i], "--drive-limit") == 0) drive_limit_session = 1;
        else if (strcmp(argv[i], "--idle-return") == 0) idle_return_session = 1;
        else if (strcmp(argv[i], "--presses") == 0) presses_session = 1;
        else if (!out && argv[i][0] != '-') out = argv[i];
        else {
            fprintf(stderr, "usage: trace_host OUT.jsonl [--ring N] [--unfinished] | OUT.jsonl --incident | OUT.jsonl --drive-limit | OUT.jsonl --idle-return | OUT.jsonl --presses\n");
            return 2;
        }
    }
    if (!out) {
        fprintf(stderr, "usage: trace_host OUT.jsonl [--ring N] [--unfinished] | OUT.jsonl --incident | OUT.jsonl --drive-limit | OUT.jsonl --idle-return | OUT.jsonl --presses\n");
        return 2;
    }
    if (incident_session) return incident(out);
    if (drive_limit_session) return drive_limit(out);
    if (idle_return_session) return idle_return(out);
    if (presses_session) return presses(out);

    ng_options o = NG_OPTIONS_INIT;
    o.clock = NG_CLOCK_MANUAL;
    o.manual_start_ns = START;
    ng_status st = ng_context_create(&o, &ctx);
    if (st != NG_OK) fail("ng_context_create", st);
    ng_record_options ro = NG_RECORD_OPTIONS_INIT;
    if (ring) ro.ring_records = ring; else ro.path = out;
    /* A ring must not leave automatic dumps (one per watchdog report) in the
     * test's working directory. */
    ro.dump_dir = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    if ((st = ng_record_start(ctx, &ro)) != NG_OK) fail("ng_record_start", st);
    /* A kiosk's tuning: a forgotten hold is released after 3 s, not 10. */
    st = ng_chain_configure(ctx, "{\"base\":\"default\",\"edits\":[{\"configure\":\"org.navguard.watchdog\","
                                 "\"config\":{\"hold_limit_ms\":3000}}]}");
    if (st != NG_OK) fail("ng_chain_configure", st);

    enum { WINDOW = 1, NEXT = 2, BACK = 3, PAY = 4, NETWORK = 5 };   /* views, and request sources */
    view(WINDOW, 0, 0, 0, 800, 600);
    view(NEXT, WINDOW, 600, 500, 150, 60);
    view(BACK, WINDOW, 20, 20, 100, 50);
    view(PAY, WINDOW, 300, 400, 200, 80);
    ng_screen home = { 1, "home", NULL };
    if ((st = ng_stack_set_root(ctx, &home)) != NG_OK) fail("ng_stack_set_root", st);

    /* Next, and a double tap on it while Menu slides in. */
    tap(100, 1, 650, 530);
    request(160, NG_REQ_PUSH, NEXT, 2, "menu");
    tap(220, 2, 650, 530);
    request(280, NG_REQ_PUSH, NEXT, 2, "menu");
    finish(510);

    /* A network request blocks touches for a moment. */
    idle_until(900);
    uint64_t network;
    if ((st = ng_hold_begin(ctx, "network", NG_MASK_TOUCH, 0, &network)) != NG_OK) fail("ng_hold_begin", st);
    tap(1000, 3, 650, 530);
    idle_until(1300);
    ng_hold_end(ctx, network);
    /* Its late reply, posted (as from the network thread), would show Menu
     * again: the loop ticks at once (a post makes the deadline now), and the
     * push is refused as a duplicate. */
    ng_request reply = NG_REQUEST_INIT(NG_REQ_PUSH);
    reply.source = NETWORK;
    reply.screen = (ng_screen){ 2, "menu", NULL };
    if ((st = ng_request_post(ctx, &reply, NULL)) != NG_OK) fail("ng_request_post", st);

    tap(1400, 4, 650, 530);
    request(1460, NG_REQ_PUSH, NEXT, 3, "item");
    finish(1810);

    /* A swipe back driven by touch 5 from the left edge. */
    touch(2200, 5, NG_TOUCH_BEGAN, 5, 300);
    idle_until(2220);
    ng_request back = NG_REQUEST_INIT(NG_REQ_INTERACTIVE_BACK);
    ng_request_result res = NG_REQUEST_RESULT_INIT;
    back.flags = NG_REQF_ANIMATED | NG_REQF_TOUCH_DRIVEN;
    back.driving_touch = 5;
    if ((st = ng_request_submit(ctx, &back, &res)) != NG_OK) fail("interactive back", st);
    for (int i = 1; i <= 3; i++) {
        touch(2220 + 60 * i, 5, NG_TOUCH_MOVED, 5 + 180 * i, 300);
        ng_interactive_update(ctx, 0.22 * i);
    }
    touch(2420, 5, NG_TOUCH_ENDED, 560, 300);
    ng_interactive_release(ctx, true);
    idle_until(2600);
    ng_interactive_complete(ctx);

    tap(3000, 6, 650, 530);
    request(3060, NG_REQ_PUSH, NEXT, 3, "item");
    finish(3410);

    /* Checkout: the host's animation never reports its end. Taps are
     * dropped and Back is refused until the watchdog forces it (2 s). */
    tap(3800, 7, 650, 530);
    request(3860, NG_REQ_PUSH, NEXT, 4, "checkout");
    tap(4400, 8, 400, 440);
    tap(4900, 9, 60, 40);
    request(4960, NG_REQ_BACK, BACK, 0, NULL);
    tap(6200, 10, 400, 440);

    /* Paying: a card-reader hold the host forgets to end. */
    idle_until(6300);
    uint64_t payment;
    if ((st = ng_hold_begin(ctx, "payment", NG_MASK_TOUCH, 0, &payment)) != NG_OK) fail("ng_hold_begin", st);
    tap(7000, 11, 60, 40);
    tap(9800, 12, 60, 40);
    request(9860, NG_REQ_BACK, BACK, 0, NULL);
    finish(10210);

    if (unfinished) {
        request(10500, NG_REQ_PUSH, NEXT, 4, "checkout");
        idle_until(10600);
        uint64_t printer;
        ng_hold_begin(ctx, "printer", NG_MASK_KEY, 0, &printer);
        touch(10700, 13, NG_TOUCH_BEGAN, 650, 530);
        idle_until(11000);
    } else {
        idle_until(10500);
    }
    if (ring && (st = ng_record_dump(ctx, out)) != NG_OK) fail("ng_record_dump", st);
    ng_context_destroy(ctx);
    return 0;
}
