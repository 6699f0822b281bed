/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_sdl2_adapter — the SDL2 adapter (navguard_sdl2.c) against its header:
 * every conversion field, submit verdicts, ng_sdl2_wait_event's ticking and
 * wake-ups, ng_sdl2_post from another thread (scoped replies refused stale
 * or applied), ng_sdl2_on_wake as the delegate's on_wake, touch-cancel
 * routing, lost releases (a second down of the mouse or of a finger id),
 * and game controllers: SDL 2.26's virtual controllers
 * (SDL_JoystickAttachVirtualEx) unplugged while a button is held (one
 * on_press_cancel, no release), B and Escape as the guarded Back action, B
 * mashed during the slide (one level), and the left stick as D-pad presses
 * (dead zone, hysteresis, a turn in one event, repeats from
 * ng_sdl2_wait_event, unplugged while held).
 * Runs under SDL's dummy video driver. Events go through SDL's queue
 * (SDL_PushEvent, then SDL_PollEvent) so SDL stamps them as real ones.
 */
#define _POSIX_C_SOURCE 200809L
#include "navguard_sdl2.h"
#include "check.h"

#include <navguard/plugin.h>

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MS INT64_C(1000000)

/* ------------------------------------------------------------------------ */
/* Helpers                                                                   */
/* ------------------------------------------------------------------------ */

static SDL_Window *g_win;      /* 800x600 */
static SDL_Window *g_small;    /* 400x300 */
static Uint32 g_win_id;

static int64_t wall_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void drain(void) {
    SDL_Event e;
    while (SDL_PollEvent(&e)) {
    }
}

/* Push `in` through SDL's queue and get it back, stamped by SDL. */
static SDL_Event roundtrip(SDL_Event in) {
    drain();
    Uint32 type = in.type;
    SDL_Event out;
    memset(&out, 0, sizeof out);
    if (SDL_PushEvent(&in) != 1) {
        fprintf(stderr, "SDL_PushEvent(type 0x%x): %s\n", (unsigned)type, SDL_GetError());
        exit(2);
    }
    for (int polls = 0; polls < 4; polls++) /* SDL's poll sentinel may end a batch early */
        while (SDL_PollEvent(&out))
            if (out.type == type) return out;
    fprintf(stderr, "event type 0x%x did not come back from SDL's queue\n", (unsigned)type);
    exit(2);
}

/* Convert `in` after a round trip through SDL; checks the timestamp against
 * the context clock: not later than ng_now, at most 50 ms earlier, never
 * going back (g_last_ts: reset for each new adapter). */
static int64_t g_last_ts;
static bool conv(ng_sdl2 *a, const SDL_Event *in, ng_event *out) {
    SDL_Event e = roundtrip(*in);
    memset(out, 0x5A, sizeof *out);
    bool mapped = ng_sdl2_convert(a, &e, out);
    if (mapped) {
        int64_t now = 0;
        ng_now(a->ctx, &now);
        EXPECT(out->timestamp_ns <= now && out->timestamp_ns > now - 50 * MS,
               "timestamp %lld vs ng_now %lld", (long long)out->timestamp_ns, (long long)now);
        EXPECT(out->timestamp_ns >= g_last_ts, "timestamp %lld went back from %lld",
               (long long)out->timestamp_ns, (long long)g_last_ts);
        g_last_ts = out->timestamp_ns;
    }
    return mapped;
}

static void expect_event(const char *what, const ng_event *e, ng_event_type type, int32_t phase,
                         uint64_t touch_id, double x, double y, int64_t code) {
    EXPECT(e->size == sizeof(ng_event), "%s: size %u", what, (unsigned)e->size);
    EXPECT(e->type == type, "%s: type %d, want %d", what, (int)e->type, (int)type);
    EXPECT(e->phase == phase, "%s: phase %d, want %d", what, (int)e->phase, (int)phase);
    EXPECT(e->flags == 0, "%s: flags 0x%x", what, (unsigned)e->flags);
    EXPECT(e->touch_id == touch_id, "%s: touch id 0x%llx, want 0x%llx", what,
           (unsigned long long)e->touch_id, (unsigned long long)touch_id);
    EXPECT(e->x == x && e->y == y, "%s: point (%g, %g), want (%g, %g)", what, e->x, e->y, x, y);
    EXPECT(e->target_view == 0, "%s: target_view %llu", what, (unsigned long long)e->target_view);
    EXPECT(e->code == code, "%s: code %lld, want %lld", what, (long long)e->code, (long long)code);
}

static SDL_Event mouse_button(Uint32 type, Uint8 button, Uint32 which, Sint32 x, Sint32 y) {
    SDL_Event e;
    memset(&e, 0, sizeof e);
    e.type = type;
    e.button.windowID = g_win_id;
    e.button.which = which;
    e.button.button = button;
    e.button.state = type == SDL_MOUSEBUTTONDOWN ? SDL_PRESSED : SDL_RELEASED;
    e.button.clicks = 1;
    e.button.x = x;
    e.button.y = y;
    return e;
}

static SDL_Event mouse_motion(Uint32 state, Uint32 which, Sint32 x, Sint32 y) {
    SDL_Event e;
    memset(&e, 0, sizeof e);
    e.type = SDL_MOUSEMOTION;
    e.motion.windowID = g_win_id;
    e.motion.which = which;
    e.motion.state = state;
    e.motion.x = x;
    e.motion.y = y;
    return e;
}

static SDL_Event finger(Uint32 type, SDL_TouchID touch, SDL_FingerID id, Uint32 window, float x, float y) {
    SDL_Event e;
    memset(&e, 0, sizeof e);
    e.type = type;
    e.tfinger.touchId = touch;
    e.tfinger.fingerId = id;
    e.tfinger.windowID = window;
    e.tfinger.x = x;
    e.tfinger.y = y;
    e.tfinger.pressure = 1.0f;
    return e;
}

static SDL_Event key(Uint32 type, SDL_Keycode sym, Uint8 repeat) {
    SDL_Event e;
    memset(&e, 0, sizeof e);
    e.type = type;
    e.key.windowID = g_win_id;
    e.key.state = type == SDL_KEYDOWN ? SDL_PRESSED : SDL_RELEASED;
    e.key.repeat = repeat;
    e.key.keysym.sym = sym;
    e.key.keysym.scancode = SDL_GetScancodeFromKey(sym);
    return e;
}

static SDL_Event window_event(Uint8 event, Uint32 window) {
    SDL_Event e;
    memset(&e, 0, sizeof e);
    e.type = SDL_WINDOWEVENT;
    e.window.event = event;
    e.window.windowID = window;
    return e;
}

/* Delegate records (main context). */
static int g_hold_ends;
static ng_hold_end_reason g_hold_reason;
static int g_outcomes;
static ng_outcome_kind g_outcome;
static ng_reason g_reason;
static uint64_t g_outcome_id;
static pthread_t g_main_thread;
static bool g_outcome_on_main;

static void on_hold_end(void *user, ng_context *ctx, const ng_hold_info *hold) {
    (void)user, (void)ctx;
    g_hold_ends++;
    g_hold_reason = hold->reason;
}

static void on_outcome(void *user, ng_context *ctx, const ng_outcome *o) {
    (void)user, (void)ctx;
    g_outcomes++;
    g_outcome = o->outcome;
    g_reason = o->reason;
    g_outcome_id = o->request_id;
    g_outcome_on_main = pthread_equal(pthread_self(), g_main_thread) != 0;
}

static ng_context *make_context(ng_clock_kind clock, void *user,
                                void (*touch_cancel)(void *, ng_context *, const ng_touch_info *)) {
    ng_options o = NG_OPTIONS_INIT;
    o.clock = clock;
    o.delegate.user = user;
    o.delegate.on_hold_end = on_hold_end;
    o.delegate.on_outcome = on_outcome;
    o.delegate.on_touch_cancel = touch_cancel;
    ng_context *ctx = NULL;
    ng_status st = ng_context_create(&o, &ctx);
    if (st != NG_OK) {
        fprintf(stderr, "ng_context_create: %s\n", ng_strstatus(st));
        exit(2);
    }
    return ctx;
}

static void add_view(ng_context *ctx, uint64_t id, double x, double y, double w, double h) {
    ng_view v = NG_VIEW_INIT;
    v.id = id;
    v.frame = (ng_rect){ x, y, w, h };
    ng_status st = ng_view_set(ctx, &v);
    EXPECT(st == NG_OK, "ng_view_set(%llu): %s", (unsigned long long)id, ng_strstatus(st));
}

/* ------------------------------------------------------------------------ */
/* init                                                                      */
/* ------------------------------------------------------------------------ */

static void test_init(ng_context *ctx) {
    ng_sdl2 a;
    EXPECT(ng_sdl2_init(NULL, ctx, g_win) == NG_E_NULL, "init(NULL adapter)");
    EXPECT(ng_sdl2_init(&a, NULL, g_win) == NG_E_NULL, "init(NULL context)");
    memset(&a, 0xA5, sizeof a);
    ng_status st = ng_sdl2_init(&a, ctx, g_win);
    EXPECT(st == NG_OK, "init: %s", ng_strstatus(st));
    EXPECT(a.ctx == ctx && a.window == g_win, "init: ctx/window not stored");
    EXPECT(a.hover, "init: hover must default to true");
    EXPECT(!a.mouse_down && a.binding_count == 0, "init: state not zeroed");
    EXPECT(a.wake_event >= SDL_USEREVENT && a.wake_event != (Uint32)-1, "init: wake event 0x%x",
           (unsigned)a.wake_event);
    ng_sdl2 b;
    ng_sdl2_init(&b, ctx, NULL);
    EXPECT(b.wake_event == a.wake_event, "adapters share one wake-up event type");
    /* An adapter per context for a long-running host: SDL has 32,767 user
     * event types and never gives one back, so each init must not take one. */
    int failed = 0;
    for (int i = 0; i < 40000; i++)
        if (ng_sdl2_init(&b, ctx, NULL) != NG_OK || b.wake_event != a.wake_event) failed++;
    EXPECT(failed == 0, "%d of 40,000 inits failed or got another wake-up type", failed);
    EXPECT(SDL_RegisterEvents(1) != (Uint32)-1, "SDL's user events were used up");
    EXPECT(!ng_sdl2_convert(NULL, NULL, NULL), "convert(NULL)");
}

/* ------------------------------------------------------------------------ */
/* Conversion                                                                */
/* ------------------------------------------------------------------------ */

static void test_mouse(ng_context *ctx) {
    ng_sdl2 a;
    ng_sdl2_init(&a, ctx, g_win);
    g_last_ts = 0;
    ng_event ev;
    SDL_Event e;

    e = mouse_button(SDL_MOUSEBUTTONDOWN, SDL_BUTTON_LEFT, 0, 10, 20);
    EXPECT(conv(&a, &e, &ev), "left down not mapped");
    expect_event("left down", &ev, NG_EVENT_TOUCH, NG_TOUCH_BEGAN, NG_SDL2_MOUSE_TOUCH_ID, 10, 20, 0);
    EXPECT(a.mouse_down, "mouse_down after left down");
    /* A second down while down: the up was lost, this is a new touch
     * (NavGuard ends the old one; test_lost_release submits it). */
    e = mouse_button(SDL_MOUSEBUTTONDOWN, SDL_BUTTON_LEFT, 0, 11, 21);
    EXPECT(conv(&a, &e, &ev), "a second left down while down (its up was lost) not mapped");
    expect_event("left down again", &ev, NG_EVENT_TOUCH, NG_TOUCH_BEGAN, NG_SDL2_MOUSE_TOUCH_ID, 11, 21, 0);
    EXPECT(a.mouse_down, "mouse_down after the second down");
    e = mouse_motion(SDL_BUTTON_LMASK, 0, 15, 25);
    EXPECT(conv(&a, &e, &ev), "drag not mapped");
    expect_event("drag", &ev, NG_EVENT_TOUCH, NG_TOUCH_MOVED, NG_SDL2_MOUSE_TOUCH_ID, 15, 25, 0);
    e = mouse_button(SDL_MOUSEBUTTONDOWN, SDL_BUTTON_RIGHT, 0, 15, 25);
    EXPECT(!conv(&a, &e, &ev), "right down while dragging must be ignored");
    e = mouse_button(SDL_MOUSEBUTTONUP, SDL_BUTTON_LEFT, 0, 16, 26);
    EXPECT(conv(&a, &e, &ev), "left up not mapped");
    expect_event("left up", &ev, NG_EVENT_TOUCH, NG_TOUCH_ENDED, NG_SDL2_MOUSE_TOUCH_ID, 16, 26, 0);
    EXPECT(!a.mouse_down, "mouse_down after left up");
    e = mouse_button(SDL_MOUSEBUTTONUP, SDL_BUTTON_LEFT, 0, 16, 26);
    EXPECT(!conv(&a, &e, &ev), "an up while not down must be ignored");

    e = mouse_motion(0, 0, 30, 40);
    EXPECT(conv(&a, &e, &ev), "motion without button not mapped (hover)");
    expect_event("hover", &ev, NG_EVENT_HOVER, 0, 0, 30, 40, 0);
    a.hover = false;
    EXPECT(!conv(&a, &e, &ev), "hover with a->hover = false must not be mapped");
    a.hover = true;
    e = mouse_motion(SDL_BUTTON_RMASK, 0, 31, 41);
    EXPECT(!conv(&a, &e, &ev), "motion with the right button held is no hover");
    e = mouse_motion(SDL_BUTTON_LMASK, 0, 31, 41);
    EXPECT(!conv(&a, &e, &ev), "left drag whose down was never seen must be ignored");

    e = mouse_button(SDL_MOUSEBUTTONDOWN, SDL_BUTTON_RIGHT, 0, 1, 2);
    EXPECT(!conv(&a, &e, &ev), "right down must be ignored");
    e = mouse_button(SDL_MOUSEBUTTONUP, SDL_BUTTON_RIGHT, 0, 1, 2);
    EXPECT(!conv(&a, &e, &ev), "right up must be ignored");
    e = mouse_button(SDL_MOUSEBUTTONDOWN, SDL_BUTTON_MIDDLE, 0, 1, 2);
    EXPECT(!conv(&a, &e, &ev), "middle down must be ignored");

    /* Mouse events SDL synthesizes from touches. */
    e = mouse_button(SDL_MOUSEBUTTONDOWN, SDL_BUTTON_LEFT, SDL_TOUCH_MOUSEID, 5, 5);
    EXPECT(!conv(&a, &e, &ev), "touch-synthesized down must be ignored");
    EXPECT(!a.mouse_down, "touch-synthesized down changed the mouse state");
    e = mouse_motion(SDL_BUTTON_LMASK, SDL_TOUCH_MOUSEID, 6, 6);
    EXPECT(!conv(&a, &e, &ev), "touch-synthesized motion must be ignored");
    e = mouse_motion(0, SDL_TOUCH_MOUSEID, 6, 6);
    EXPECT(!conv(&a, &e, &ev), "touch-synthesized hover must be ignored");
    e = mouse_button(SDL_MOUSEBUTTONUP, SDL_BUTTON_LEFT, SDL_TOUCH_MOUSEID, 5, 5);
    EXPECT(!conv(&a, &e, &ev), "touch-synthesized up must be ignored");

    /* The release was lost: motion says the button is up. */
    e = mouse_button(SDL_MOUSEBUTTONDOWN, SDL_BUTTON_LEFT, 0, 50, 60);
    EXPECT(conv(&a, &e, &ev) && ev.phase == NG_TOUCH_BEGAN, "down");
    e = mouse_motion(0, 0, 70, 80);
    EXPECT(conv(&a, &e, &ev), "motion with the button up while down not mapped");
    expect_event("lost release", &ev, NG_EVENT_TOUCH, NG_TOUCH_CANCELLED, NG_SDL2_MOUSE_TOUCH_ID, 70, 80, 0);
    EXPECT(!a.mouse_down, "mouse_down after a lost release");

    /* SDL's stamps map to the context clock: 5 ms ago stays 5 ms ago (on a
     * fresh adapter: stamps never go back from the previous one). Events the
     * host builds itself (timestamp 0) and stamps from the future are "now". */
    ng_sdl2 f;
    ng_sdl2_init(&f, ctx, g_win);
    int64_t before = 0, after = 0;
    /* SDL's clock starts at SDL_Init: before 6 ms, "5 ms ago" would be stamp
     * 0 (the host's own event) or wrap. */
    while (SDL_GetTicks64() < 6) SDL_Delay(1);
    e = mouse_motion(0, 0, 1, 1);
    e.motion.timestamp = (Uint32)SDL_GetTicks64() - 5;
    ng_now(ctx, &before);
    EXPECT(ng_sdl2_convert(&f, &e, &ev), "hover");
    ng_now(ctx, &after);
    EXPECT(ev.timestamp_ns <= after - 4 * MS && ev.timestamp_ns >= before - 7 * MS,
           "a 5 ms old stamp gave %lld ns before now", (long long)(after - ev.timestamp_ns));
    e.motion.timestamp = 0;
    ng_now(ctx, &before);
    EXPECT(ng_sdl2_convert(&f, &e, &ev), "hover");
    ng_now(ctx, &after);
    EXPECT(ev.timestamp_ns >= before && ev.timestamp_ns <= after, "timestamp 0 gave %lld, now %lld",
           (long long)ev.timestamp_ns, (long long)after);
    e.motion.timestamp = (Uint32)SDL_GetTicks64() + 1000;
    ng_now(ctx, &before);
    EXPECT(ng_sdl2_convert(&f, &e, &ev), "hover");
    ng_now(ctx, &after);
    EXPECT(ev.timestamp_ns >= before && ev.timestamp_ns <= after, "a stamp 1 s ahead gave %lld, now %lld",
           (long long)ev.timestamp_ns, (long long)after);
    e.motion.timestamp = (Uint32)SDL_GetTicks64() - 3;
    int64_t prev = ev.timestamp_ns;
    EXPECT(ng_sdl2_convert(&f, &e, &ev) && ev.timestamp_ns == prev,
           "an older stamp went back: %lld after %lld", (long long)ev.timestamp_ns, (long long)prev);
}

static void test_fingers(ng_context *ctx) {
    ng_sdl2 a;
    ng_sdl2_init(&a, ctx, g_small);
    g_last_ts = 0;
    ng_event ev;
    SDL_Event e;
    uint64_t ids[4];

    e = finger(SDL_FINGERDOWN, 5, 1, g_win_id, 0.25f, 0.5f);
    EXPECT(conv(&a, &e, &ev), "finger down not mapped");
    ids[0] = ev.touch_id;
    expect_event("finger down", &ev, NG_EVENT_TOUCH, NG_TOUCH_BEGAN, ids[0], 200, 300, 0);
    e = finger(SDL_FINGERMOTION, 5, 1, g_win_id, 0.5f, 0.75f);
    EXPECT(conv(&a, &e, &ev), "finger motion not mapped");
    expect_event("finger motion", &ev, NG_EVENT_TOUCH, NG_TOUCH_MOVED, ids[0], 400, 450, 0);
    e = finger(SDL_FINGERDOWN, 5, 2, g_win_id, 1.0f, 1.0f);
    EXPECT(conv(&a, &e, &ev), "second finger not mapped");
    ids[1] = ev.touch_id;
    expect_event("second finger", &ev, NG_EVENT_TOUCH, NG_TOUCH_BEGAN, ids[1], 800, 600, 0);
    e = finger(SDL_FINGERDOWN, 6, 1, g_win_id, 0.0f, 0.0f);
    EXPECT(conv(&a, &e, &ev), "finger of another device not mapped");
    ids[2] = ev.touch_id;
    expect_event("other device", &ev, NG_EVENT_TOUCH, NG_TOUCH_BEGAN, ids[2], 0, 0, 0);
    /* No window named: a->window (400x300). */
    e = finger(SDL_FINGERDOWN, 5, 3, 0, 0.5f, 0.5f);
    EXPECT(conv(&a, &e, &ev), "finger without window not mapped");
    ids[3] = ev.touch_id;
    expect_event("finger, a->window", &ev, NG_EVENT_TOUCH, NG_TOUCH_BEGAN, ids[3], 200, 150, 0);
    e = finger(SDL_FINGERUP, 5, 1, g_win_id, 0.5f, 0.75f);
    EXPECT(conv(&a, &e, &ev), "finger up not mapped");
    expect_event("finger up", &ev, NG_EVENT_TOUCH, NG_TOUCH_ENDED, ids[0], 400, 450, 0);
    for (int i = 0; i < 4; i++) {
        EXPECT(ids[i] != NG_SDL2_MOUSE_TOUCH_ID, "finger %d has the mouse's touch id", i);
        for (int j = i + 1; j < 4; j++)
            EXPECT(ids[i] != ids[j], "fingers %d and %d share touch id 0x%llx", i, j, (unsigned long long)ids[i]);
    }
    /* Extreme ids stay distinct from the mouse. */
    e = finger(SDL_FINGERDOWN, -2, -1, g_win_id, 0.1f, 0.1f);
    EXPECT(conv(&a, &e, &ev) && ev.touch_id != NG_SDL2_MOUSE_TOUCH_ID, "finger (-2, -1) gave the mouse id");
    e = finger(SDL_FINGERDOWN, INT64_MIN, INT64_MAX, g_win_id, 0.1f, 0.1f);
    EXPECT(conv(&a, &e, &ev) && ev.touch_id != NG_SDL2_MOUSE_TOUCH_ID, "finger (min, max) gave the mouse id");
    /* The mouse echoed as a finger (SDL_HINT_MOUSE_TOUCH_EVENTS) is not a second touch. */
    e = finger(SDL_FINGERDOWN, SDL_MOUSE_TOUCHID, 0, g_win_id, 0.1f, 0.1f);
    EXPECT(!conv(&a, &e, &ev), "a finger of SDL_MOUSE_TOUCHID must be ignored");
    a.window = NULL;
    e = finger(SDL_FINGERDOWN, 5, 4, 0, 0.5f, 0.5f);
    EXPECT(!conv(&a, &e, &ev), "a finger with no window at all cannot be scaled: not mapped");
}

static void test_keys_remote_wheel(ng_context *ctx) {
    ng_sdl2 a;
    ng_sdl2_init(&a, ctx, g_win);
    g_last_ts = 0;
    ng_event ev;
    SDL_Event e;

    /* The adapter's older names are navguard.h's key phases, values kept. */
    EXPECT(NG_SDL2_PRESS_DOWN == NG_KEY_DOWN && NG_SDL2_PRESS_UP == NG_KEY_UP &&
               NG_SDL2_PRESS_REPEAT == NG_KEY_REPEAT && NG_SDL2_PRESS_DOWN == 0 && NG_SDL2_PRESS_UP == 1 &&
               NG_SDL2_PRESS_REPEAT == 2,
           "NG_SDL2_PRESS_* are not NG_KEY_* with their 0.2 values");
    e = key(SDL_KEYDOWN, SDLK_a, 0);
    EXPECT(conv(&a, &e, &ev), "key down not mapped");
    expect_event("key down", &ev, NG_EVENT_KEY, NG_KEY_DOWN, 0, 0, 0, SDLK_a);
    e = key(SDL_KEYDOWN, SDLK_a, 1);
    EXPECT(conv(&a, &e, &ev), "key repeat not mapped");
    expect_event("key repeat", &ev, NG_EVENT_KEY, NG_KEY_REPEAT, 0, 0, 0, SDLK_a);
    e = key(SDL_KEYUP, SDLK_a, 0);
    EXPECT(conv(&a, &e, &ev), "key up not mapped");
    expect_event("key up", &ev, NG_EVENT_KEY, NG_KEY_UP, 0, 0, 0, SDLK_a);
    e = key(SDL_KEYDOWN, SDLK_AC_BACK, 0);
    EXPECT(conv(&a, &e, &ev), "AC back not mapped");
    expect_event("AC back", &ev, NG_EVENT_KEY, NG_SDL2_PRESS_DOWN, 0, 0, 0, SDLK_AC_BACK);

    memset(&e, 0, sizeof e);
    e.type = SDL_CONTROLLERBUTTONDOWN;
    e.cbutton.which = 3;
    e.cbutton.button = SDL_CONTROLLER_BUTTON_B;
    e.cbutton.state = SDL_PRESSED;
    EXPECT(conv(&a, &e, &ev), "controller down not mapped");
    /* Instance id 3 is device 4 (NG_SDL2_PAD_DEVICE: + 1, never the keyboard's 0). */
    expect_event("controller down", &ev, NG_EVENT_REMOTE, NG_KEY_DOWN, 4, 0, 0, SDL_CONTROLLER_BUTTON_B);
    e.type = SDL_CONTROLLERBUTTONUP;
    e.cbutton.state = SDL_RELEASED;
    e.cbutton.which = 4;
    EXPECT(conv(&a, &e, &ev), "controller up not mapped");
    expect_event("controller up", &ev, NG_EVENT_REMOTE, NG_KEY_UP, 5, 0, 0, SDL_CONTROLLER_BUTTON_B);
    /* The first controller (instance 0) and the keyboard never share a device. */
    e.cbutton.which = 0;
    EXPECT(conv(&a, &e, &ev) && ev.touch_id == 1, "instance 0: device %llu, want 1", (unsigned long long)ev.touch_id);

    memset(&e, 0, sizeof e);
    e.type = SDL_MOUSEWHEEL;
    e.wheel.windowID = g_win_id;
    e.wheel.x = 1;
    e.wheel.y = -2;
    e.wheel.preciseX = 1.5f;
    e.wheel.preciseY = -2.25f;
    e.wheel.direction = SDL_MOUSEWHEEL_NORMAL;
    EXPECT(conv(&a, &e, &ev), "wheel not mapped");
    expect_event("wheel", &ev, NG_EVENT_SCROLL, 0, 0, 1.5, -2.25, 0);
    e.wheel.direction = SDL_MOUSEWHEEL_FLIPPED;
    EXPECT(conv(&a, &e, &ev), "flipped wheel not mapped");
    expect_event("flipped wheel", &ev, NG_EVENT_SCROLL, 0, 0, -1.5, 2.25, 0);
    e.wheel.which = SDL_TOUCH_MOUSEID;
    EXPECT(!conv(&a, &e, &ev), "touch-synthesized wheel must be ignored");

    memset(&e, 0, sizeof e);
    e.type = SDL_QUIT;
    EXPECT(!conv(&a, &e, &ev), "SDL_QUIT must not be mapped");
    e = window_event(SDL_WINDOWEVENT_FOCUS_LOST, g_win_id);
    EXPECT(!conv(&a, &e, &ev), "focus lost with no mouse touch must not be mapped");
    e = window_event(SDL_WINDOWEVENT_LEAVE, g_win_id);
    EXPECT(!conv(&a, &e, &ev), "leave must not be mapped");
}

/* ------------------------------------------------------------------------ */
/* Submit                                                                    */
/* ------------------------------------------------------------------------ */

static void test_submit(ng_context *ctx) {
    ng_sdl2 a;
    ng_sdl2_init(&a, ctx, g_win);
    add_view(ctx, 1, 0, 0, 100, 100);
    ng_sdl2_input in;
    SDL_Event e;
    memset(&e, 0, sizeof e);

    EXPECT(ng_sdl2_submit(&a, &e, NULL) == NG_E_NULL, "submit(out NULL)");
    memset(&in, 0x5A, sizeof in);
    EXPECT(ng_sdl2_submit(NULL, &e, &in) == NG_E_NULL && !in.mapped, "submit(NULL adapter)");

    e = roundtrip((SDL_Event){ .type = SDL_QUIT });
    memset(&in, 0x5A, sizeof in);
    EXPECT(ng_sdl2_submit(&a, &e, &in) == NG_OK && !in.mapped, "SDL_QUIT: mapped");
    EXPECT(in.result.size == sizeof(ng_event_result) && in.event.size == sizeof(ng_event),
           "unmapped: out not initialized");
    e = roundtrip((SDL_Event){ .type = a.wake_event });
    EXPECT(ng_sdl2_submit(&a, &e, &in) == NG_OK && !in.mapped, "the wake-up event: mapped");

    e = roundtrip(mouse_button(SDL_MOUSEBUTTONDOWN, SDL_BUTTON_LEFT, 0, 50, 50));
    EXPECT(ng_sdl2_submit(&a, &e, &in) == NG_OK && in.mapped, "down on view 1");
    EXPECT(in.result.verdict == NG_VERDICT_DELIVER && in.result.target_view == 1,
           "down on view 1: verdict %d, view %llu", (int)in.result.verdict, (unsigned long long)in.result.target_view);
    expect_event("submitted down", &in.event, NG_EVENT_TOUCH, NG_TOUCH_BEGAN, NG_SDL2_MOUSE_TOUCH_ID, 50, 50, 0);
    e = roundtrip(mouse_motion(SDL_BUTTON_LMASK, 0, 150, 60));
    EXPECT(ng_sdl2_submit(&a, &e, &in) == NG_OK && in.mapped && in.result.verdict == NG_VERDICT_DELIVER &&
               in.result.target_view == 1, "drag off the view keeps view 1 (bound at began)");

    /* Focus lost while pressed: the touch is cancelled, to its view. */
    e = roundtrip(window_event(SDL_WINDOWEVENT_FOCUS_LOST, g_win_id + 1000));
    EXPECT(ng_sdl2_submit(&a, &e, &in) == NG_OK && !in.mapped, "focus lost of another window: mapped");
    e = roundtrip(window_event(SDL_WINDOWEVENT_FOCUS_LOST, g_win_id));
    EXPECT(ng_sdl2_submit(&a, &e, &in) == NG_OK && in.mapped, "focus lost while pressed: not mapped");
    expect_event("focus lost", &in.event, NG_EVENT_TOUCH, NG_TOUCH_CANCELLED, NG_SDL2_MOUSE_TOUCH_ID, 150, 60, 0);
    EXPECT(in.result.verdict == NG_VERDICT_DELIVER && in.result.target_view == 1,
           "focus lost: verdict %d (%s), view %llu", (int)in.result.verdict, ng_reason_name(in.result.reason),
           (unsigned long long)in.result.target_view);
    EXPECT(!a.mouse_down, "mouse_down after focus lost");
    size_t touches = 99;
    ng_touch_count(ctx, &touches);
    EXPECT(touches == 0, "NavGuard still has %zu live touch(es) after the cancel", touches);
    e = roundtrip(mouse_button(SDL_MOUSEBUTTONUP, SDL_BUTTON_LEFT, 0, 150, 60));
    EXPECT(ng_sdl2_submit(&a, &e, &in) == NG_OK && !in.mapped, "a late up after the cancel: mapped");

    /* A touch-blocking hold drops a began (IGNORING). */
    uint64_t hold = 0;
    EXPECT(ng_hold_begin(ctx, "test", NG_MASK_TOUCH, 0, &hold) == NG_OK, "hold_begin");
    e = roundtrip(mouse_button(SDL_MOUSEBUTTONDOWN, SDL_BUTTON_LEFT, 0, 10, 10));
    EXPECT(ng_sdl2_submit(&a, &e, &in) == NG_OK && in.mapped, "held down");
    EXPECT(in.result.verdict == NG_VERDICT_DROP && in.result.reason == NG_REASON_IGNORING,
           "held down: verdict %d reason %s", (int)in.result.verdict, ng_reason_name(in.result.reason));
    e = roundtrip(key(SDL_KEYDOWN, SDLK_RETURN, 0));
    EXPECT(ng_sdl2_submit(&a, &e, &in) == NG_OK && in.mapped && in.result.verdict == NG_VERDICT_DELIVER,
           "a key is not in the hold's mask");
    ng_hold_end(ctx, hold);
    e = roundtrip(mouse_button(SDL_MOUSEBUTTONUP, SDL_BUTTON_LEFT, 0, 10, 10));
    EXPECT(ng_sdl2_submit(&a, &e, &in) == NG_OK && in.mapped && in.result.verdict == NG_VERDICT_DROP &&
               in.result.reason == NG_REASON_WITHHELD,
           "up of the withheld touch: verdict %d reason %s", (int)in.result.verdict, ng_reason_name(in.result.reason));
    ng_view_remove(ctx, 1);
}

/* A finger whose point is not finite (NaN, or infinite: a broken driver)
 * never reaches the host as delivered, and each touch ends once on both
 * sides. Before, a refused NaN event read DELIVER (the host delivered what
 * NavGuard never saw), a NaN up left NavGuard's touch live until the
 * watchdog cancelled it (two ends), and +-inf was accepted and delivered. */
static size_t live_touches(ng_context *ctx) {
    size_t n = 99;
    ng_touch_count(ctx, &n);
    return n;
}

static void test_non_finite(ng_context *ctx) {
    ng_sdl2 a;
    ng_sdl2_init(&a, ctx, g_win);
    add_view(ctx, 1, 0, 0, 800, 600);
    ng_sdl2_input in;
    SDL_Event e;
    const SDL_TouchID dev = 41;
    struct { const char *what; float x, y; } bad[] = {
        { "NaN x", NAN, 0.5f }, { "NaN y", 0.5f, NAN }, { "+inf", INFINITY, 0.5f }, { "-inf", 0.5f, -INFINITY },
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        /* A down: refused, dropped; NavGuard has no touch, and the finger's
         * later phases are dropped as an unknown touch's: the host delivers
         * nothing of it, began or end. */
        e = roundtrip(finger(SDL_FINGERDOWN, dev, 1, g_win_id, bad[k].x, bad[k].y));
        ng_status st = ng_sdl2_submit(&a, &e, &in);
        EXPECT(st == NG_E_RANGE && in.mapped && in.result.verdict == NG_VERDICT_DROP &&
                   in.result.reason == NG_REASON_INVALID,
               "%s down: %s, mapped %d, verdict %d, reason %s", bad[k].what, ng_strstatus(st), in.mapped,
               (int)in.result.verdict, ng_reason_name(in.result.reason));
        EXPECT(live_touches(ctx) == 0 && a.finger_count == 0, "%s down: %zu live touches, %zu fingers followed",
               bad[k].what, live_touches(ctx), a.finger_count);
        e = roundtrip(finger(SDL_FINGERMOTION, dev, 1, g_win_id, 0.5f, 0.5f));
        EXPECT(ng_sdl2_submit(&a, &e, &in) == NG_OK && in.mapped && in.result.verdict == NG_VERDICT_DROP,
               "%s: the refused finger's move delivered", bad[k].what);
        e = roundtrip(finger(SDL_FINGERUP, dev, 1, g_win_id, 0.5f, 0.5f));
        EXPECT(ng_sdl2_submit(&a, &e, &in) == NG_OK && in.mapped && in.result.verdict == NG_VERDICT_DROP,
               "%s: the refused finger's up delivered", bad[k].what);

        /* A live finger: a move with such a point is dropped and the touch
         * goes on; an up with one ends it as a cancel at its last point. */
        e = roundtrip(finger(SDL_FINGERDOWN, dev, 2, g_win_id, 0.25f, 0.5f));
        EXPECT(ng_sdl2_submit(&a, &e, &in) == NG_OK && in.mapped && in.result.verdict == NG_VERDICT_DELIVER,
               "%s: a good down", bad[k].what);
        uint64_t id = in.event.touch_id;
        e = roundtrip(finger(SDL_FINGERMOTION, dev, 2, g_win_id, bad[k].x, bad[k].y));
        st = ng_sdl2_submit(&a, &e, &in);
        EXPECT(st == NG_E_RANGE && in.mapped && in.result.verdict == NG_VERDICT_DROP, "%s move: %s, verdict %d",
               bad[k].what, ng_strstatus(st), (int)in.result.verdict);
        EXPECT(live_touches(ctx) == 1 && a.finger_count == 1, "%s move: the touch goes on", bad[k].what);
        e = roundtrip(finger(SDL_FINGERUP, dev, 2, g_win_id, bad[k].x, bad[k].y));
        st = ng_sdl2_submit(&a, &e, &in);
        EXPECT(st == NG_OK && in.mapped && in.result.verdict == NG_VERDICT_DELIVER, "%s up: %s, verdict %d (%s)",
               bad[k].what, ng_strstatus(st), (int)in.result.verdict, ng_reason_name(in.result.reason));
        expect_event("up with a bad point", &in.event, NG_EVENT_TOUCH, NG_TOUCH_CANCELLED, id, 200, 300, 0);
        EXPECT(live_touches(ctx) == 0 && a.finger_count == 0,
               "%s up: NavGuard ended the touch with the host (%zu live): the watchdog has nothing to cancel later",
               bad[k].what, live_touches(ctx));
    }
    /* The wheel's deltas too. */
    SDL_Event w;
    memset(&w, 0, sizeof w);
    w.type = SDL_MOUSEWHEEL;
    w.wheel.windowID = g_win_id;
    w.wheel.y = 1;
    w.wheel.preciseY = NAN;
    e = roundtrip(w);
    EXPECT(ng_sdl2_submit(&a, &e, &in) == NG_E_RANGE && in.mapped && in.result.verdict == NG_VERDICT_DROP,
           "a NaN scroll delivered");
    ng_view_remove(ctx, 1);
}

/* Submit `e` as the header says (again while out->more); returns how many
 * NavGuard events it became. *last gets the last mapped one; the final call
 * must hand the SDL event back unmapped. */
static unsigned submit_all(ng_sdl2 *a, const SDL_Event *e, ng_sdl2_input *last) {
    unsigned n = 0;
    ng_sdl2_input in;
    memset(last, 0, sizeof *last);
    for (int calls = 0; calls < 1000; calls++) {
        ng_status st = ng_sdl2_submit(a, e, &in);
        EXPECT(st == NG_OK, "submit: %s", ng_strstatus(st));
        if (in.mapped) {
            n++;
            *last = in;
        }
        if (!in.more) {
            EXPECT(!in.mapped || n == 1, "an event that ended %u touches ended mapped", n);
            return n;
        }
    }
    EXPECT(false, "out->more stayed set for 1000 calls");
    return n;
}

/* Focus loss and going to the background end every live touch SDL will
 * not end: the mouse and each finger, one cancel each, each to its view. */
static void test_focus_loss(ng_context *ctx) {
    ng_sdl2 a;
    ng_sdl2_init(&a, ctx, g_win);
    add_view(ctx, 1, 0, 0, 400, 600);
    add_view(ctx, 2, 400, 0, 400, 600);
    ng_sdl2_input in;
    SDL_Event e;
    size_t touches = 99;

    e = roundtrip(mouse_button(SDL_MOUSEBUTTONDOWN, SDL_BUTTON_LEFT, 0, 50, 50));
    EXPECT(ng_sdl2_submit(&a, &e, &in) == NG_OK && !in.more && in.result.verdict == NG_VERDICT_DELIVER,
           "mouse down: more %d, verdict %d", (int)in.more, (int)in.result.verdict);
    uint64_t f[3];
    float fx[3] = { 0.1f, 0.75f, 0.9f };
    for (int i = 0; i < 3; i++) {
        e = roundtrip(finger(SDL_FINGERDOWN, 7, 10 + i, g_win_id, fx[i], 0.5f));
        EXPECT(ng_sdl2_submit(&a, &e, &in) == NG_OK && in.mapped && in.result.verdict == NG_VERDICT_DELIVER,
               "finger %d down: verdict %d (%s)", i, (int)in.result.verdict, ng_reason_name(in.result.reason));
        f[i] = in.event.touch_id;
    }
    e = roundtrip(finger(SDL_FINGERMOTION, 7, 11, g_win_id, 0.625f, 0.25f));
    EXPECT(ng_sdl2_submit(&a, &e, &in) == NG_OK && in.result.verdict == NG_VERDICT_DELIVER, "finger 1 moved");
    e = roundtrip(finger(SDL_FINGERUP, 7, 12, g_win_id, 0.9f, 0.5f));
    EXPECT(ng_sdl2_submit(&a, &e, &in) == NG_OK && in.result.verdict == NG_VERDICT_DELIVER, "finger 2 up");
    /* A finger of the small window stays: its window keeps its focus. */
    e = roundtrip(finger(SDL_FINGERDOWN, 7, 20, SDL_GetWindowID(g_small), 0.5f, 0.5f));
    EXPECT(ng_sdl2_submit(&a, &e, &in) == NG_OK && in.mapped, "finger of the small window down");
    uint64_t other = in.event.touch_id;
    ng_touch_count(ctx, &touches);
    EXPECT(touches == 4, "%zu live touches before the focus loss, want 4", touches);

    e = roundtrip(window_event(SDL_WINDOWEVENT_FOCUS_LOST, g_win_id));
    /* Each call makes one cancel and says there may be more. */
    ng_sdl2_input first;
    EXPECT(ng_sdl2_submit(&a, &e, &first) == NG_OK && first.mapped && first.more,
           "focus lost, first call: mapped %d, more %d", (int)first.mapped, (int)first.more);
    expect_event("focus lost, first cancel", &first.event, NG_EVENT_TOUCH, NG_TOUCH_CANCELLED,
                 NG_SDL2_MOUSE_TOUCH_ID, 50, 50, 0);
    EXPECT(first.result.verdict == NG_VERDICT_DELIVER && first.result.target_view == 1,
           "the mouse's cancel: verdict %d, view %llu", (int)first.result.verdict,
           (unsigned long long)first.result.target_view);
    unsigned n = submit_all(&a, &e, &in);
    EXPECT(n == 2, "focus lost: %u more cancels, want 2 (fingers 0 and 1)", n);
    ng_touch_count(ctx, &touches);
    EXPECT(touches == 1, "%zu live touches after the focus loss, want 1 (the small window's)", touches);
    ng_touch_info ti = NG_TOUCH_INFO_INIT;
    EXPECT(ng_touch_get(ctx, 0, &ti) == NG_OK && ti.touch_id == other, "the small window's finger was cancelled");
    /* The last cancel is finger 1's (the table keeps fingers in order until
     * one is removed), at its last point, to the view it began on. */
    expect_event("focus lost, last cancel", &in.event, NG_EVENT_TOUCH, NG_TOUCH_CANCELLED, f[1], 500, 150, 0);
    EXPECT(in.result.verdict == NG_VERDICT_DELIVER && in.result.target_view == 2,
           "finger 1's cancel: verdict %d, view %llu", (int)in.result.verdict,
           (unsigned long long)in.result.target_view);
    e = roundtrip(window_event(SDL_WINDOWEVENT_FOCUS_LOST, g_win_id));
    EXPECT(ng_sdl2_submit(&a, &e, &in) == NG_OK && !in.mapped && !in.more,
           "a second focus loss: mapped %d, more %d", (int)in.mapped, (int)in.more);
    /* SDL sends finger 0's end after all: NavGuard has ended it, so it drops it. */
    e = roundtrip(finger(SDL_FINGERUP, 7, 10, g_win_id, 0.1f, 0.5f));
    EXPECT(ng_sdl2_submit(&a, &e, &in) == NG_OK && in.mapped && in.result.verdict == NG_VERDICT_DROP,
           "a late finger up after its cancel: verdict %d", (int)in.result.verdict);
    ng_touch_count(ctx, &touches);
    EXPECT(touches == 1, "%zu live touches after the late up", touches);

    /* Going to the background ends the touches of every window. */
    e = roundtrip(mouse_button(SDL_MOUSEBUTTONDOWN, SDL_BUTTON_LEFT, 0, 500, 50));
    ng_sdl2_submit(&a, &e, &in);
    memset(&e, 0, sizeof e);
    e.type = SDL_APP_WILLENTERBACKGROUND;
    e = roundtrip(e);
    n = submit_all(&a, &e, &in);
    EXPECT(n == 2, "background: %u cancels, want 2 (the mouse and the small window's finger)", n);
    ng_touch_count(ctx, &touches);
    EXPECT(touches == 0 && !a.mouse_down && a.finger_count == 0, "%zu live touches after the background",
           touches);

    /* More fingers than the table follows: all convert; the followed ones
     * are cancelled on focus loss. */
    int delivered = 0;
    for (int i = 0; i < NG_SDL2_MAX_FINGERS + 4; i++) {
        e = roundtrip(finger(SDL_FINGERDOWN, 8, 100 + i, g_win_id, 0.25f, 0.25f));
        if (ng_sdl2_submit(&a, &e, &in) == NG_OK && in.mapped) delivered++;
    }
    EXPECT(delivered == NG_SDL2_MAX_FINGERS + 4 && a.finger_count == NG_SDL2_MAX_FINGERS,
           "%d fingers converted, %zu followed", delivered, a.finger_count);
    e = roundtrip(window_event(SDL_WINDOWEVENT_FOCUS_LOST, g_win_id));
    n = submit_all(&a, &e, &in);
    EXPECT(n == NG_SDL2_MAX_FINGERS, "focus lost with a full table: %u cancels", n);
    ng_touch_count(ctx, &touches);
    EXPECT(touches == 4, "%zu live touches left (4 were beyond the table)", touches);
    for (int i = NG_SDL2_MAX_FINGERS; i < NG_SDL2_MAX_FINGERS + 4; i++) {
        e = roundtrip(finger(SDL_FINGERUP, 8, 100 + i, g_win_id, 0.25f, 0.25f));
        ng_sdl2_submit(&a, &e, &in);
    }
    ng_touch_count(ctx, &touches);
    EXPECT(touches == 0, "%zu live touches after the rest ended", touches);

    /* Another adapter's wake-up is not this adapter's: returned as an event. */
    ng_sdl2 b;
    ng_sdl2_init(&b, ctx, NULL);
    drain();
    SDL_Event w;
    memset(&w, 0, sizeof w);
    w.type = b.wake_event;
    w.user.data1 = &b;
    SDL_PushEvent(&w);
    int r = ng_sdl2_wait_event(&a, &e, 500);
    EXPECT(r == 1 && e.type == b.wake_event && e.user.data1 == &b, "another adapter's wake-up: %d, type 0x%x", r,
           (unsigned)e.type);
    EXPECT(ng_sdl2_submit(&a, &e, &in) == NG_OK && !in.mapped, "another adapter's wake-up: mapped");
    ng_view_remove(ctx, 1);
    ng_view_remove(ctx, 2);
}

/* ------------------------------------------------------------------------ */
/* Waiting, posting                                                          */
/* ------------------------------------------------------------------------ */

typedef struct {
    ng_sdl2 *a;
    ng_status status;
    uint64_t id;
} poster;

static void *post_thread(void *arg) {
    poster *p = arg;
    struct timespec d = { 0, 50 * 1000000L };
    nanosleep(&d, NULL);
    ng_request r = NG_REQUEST_INIT(NG_REQ_PUSH);
    r.screen.id = 2;
    r.screen.route = "posted";
    p->status = ng_sdl2_post(p->a, &r, &p->id);
    return NULL;
}

/* Unblocks a stuck infinite wait after 5 s so the test fails instead of
 * hanging; told to stop otherwise (not cancelled: ThreadSanitizer reports a
 * thread cancelled inside its sleep). */
static pthread_mutex_t g_rescue_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_rescue_cond = PTHREAD_COND_INITIALIZER;
static bool g_rescue_stop;

static void *rescue_thread(void *arg) {
    (void)arg;
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += 5;
    pthread_mutex_lock(&g_rescue_lock);
    int rc = 0;
    while (!g_rescue_stop && rc != ETIMEDOUT) rc = pthread_cond_timedwait(&g_rescue_cond, &g_rescue_lock, &until);
    bool fire = !g_rescue_stop;
    pthread_mutex_unlock(&g_rescue_lock);
    if (fire) {
        SDL_Event q;
        memset(&q, 0, sizeof q);
        q.type = SDL_QUIT;
        SDL_PushEvent(&q);
    }
    return NULL;
}

static void stop_rescue(pthread_t t) {
    pthread_mutex_lock(&g_rescue_lock);
    g_rescue_stop = true;
    pthread_cond_signal(&g_rescue_cond);
    pthread_mutex_unlock(&g_rescue_lock);
    pthread_join(t, NULL);
    g_rescue_stop = false;
}

static void test_wait(ng_context *ctx) {
    ng_sdl2 a;
    ng_sdl2_init(&a, ctx, g_win);
    SDL_Event e;
    drain();

    /* No events: 0 after the timeout. */
    int64_t t0 = wall_ms();
    int r = ng_sdl2_wait_event(&a, &e, 100);
    int64_t dt = wall_ms() - t0;
    EXPECT(r == 0, "idle wait returned %d", r);
    EXPECT(dt >= 95 && dt < 3000, "idle wait of 100 ms took %lld ms", (long long)dt);
    EXPECT(ng_sdl2_wait_event(&a, &e, 0) == 0, "poll with nothing queued");

    /* A queued event comes back at once. */
    SDL_Event k = key(SDL_KEYDOWN, SDLK_b, 0);
    SDL_PushEvent(&k);
    r = ng_sdl2_wait_event(&a, &e, 1000);
    EXPECT(r == 1 && e.type == SDL_KEYDOWN && e.key.keysym.sym == SDLK_b, "queued key: %d, type 0x%x", r,
           (unsigned)e.type);

    /* NavGuard's deadline ends the wait and is ticked: a 30 ms hold expires
     * during a wait of 2 s. */
    g_hold_ends = 0;
    uint64_t hold = 0;
    ng_hold_begin(ctx, "timed", NG_MASK_TOUCH, 30 * MS, &hold);
    t0 = wall_ms();
    while (g_hold_ends == 0 && wall_ms() - t0 < 2000) ng_sdl2_wait_event(&a, &e, 2000);
    dt = wall_ms() - t0;
    EXPECT(g_hold_ends == 1 && g_hold_reason == NG_HOLD_EXPIRED, "timed hold: %d end(s), reason %d", g_hold_ends,
           (int)g_hold_reason);
    EXPECT(dt >= 25 && dt < 1500, "the 30 ms hold ended after %lld ms", (long long)dt);

    /* Wake-ups are consumed, never returned. */
    SDL_Event w;
    memset(&w, 0, sizeof w);
    w.type = a.wake_event;
    SDL_PushEvent(&w);
    k = key(SDL_KEYUP, SDLK_c, 0);
    SDL_PushEvent(&k);
    int events = 0, wakes = 0;
    for (int i = 0; i < 10; i++) {
        r = ng_sdl2_wait_event(&a, &e, 50);
        if (r == 1) {
            events++;
            if (e.type == a.wake_event) wakes++;
            EXPECT(e.type == SDL_KEYUP, "unexpected event 0x%x", (unsigned)e.type);
        } else if (events > 0) {
            break;
        }
    }
    EXPECT(events == 1 && wakes == 0, "%d event(s), %d wake-up(s) returned", events, wakes);

    /* ng_sdl2_post from another thread wakes an infinite wait, and the
     * request is applied on this thread. */
    ng_screen root = { 1, "home", NULL };
    EXPECT(ng_stack_set_root(ctx, &root) == NG_OK, "set root");
    g_outcomes = 0;
    g_main_thread = pthread_self();
    poster p = { &a, -1, 0 };
    pthread_t th, rescue;
    pthread_create(&th, NULL, post_thread, &p);
    pthread_create(&rescue, NULL, rescue_thread, NULL);
    t0 = wall_ms();
    while (g_outcomes == 0) {
        r = ng_sdl2_wait_event(&a, &e, -1);
        if (r == 1) {
            EXPECT(e.type != a.wake_event, "a wake-up was returned");
            if (e.type == SDL_QUIT) break;
        }
    }
    dt = wall_ms() - t0;
    pthread_join(th, NULL);
    stop_rescue(rescue);
    EXPECT(p.status == NG_OK && p.id != 0, "ng_sdl2_post: %s", ng_strstatus(p.status));
    EXPECT(g_outcomes == 1 && g_outcome == NG_OUTCOME_APPLIED && g_outcome_on_main,
           "posted push: %d outcome(s), outcome %s, on main %d", g_outcomes, ng_outcome_name(g_outcome),
           (int)g_outcome_on_main);
    EXPECT(dt < 2000, "the infinite wait woke after %lld ms (post at 50 ms)", (long long)dt);
    size_t count = 0;
    ng_stack_count(ctx, &count);
    EXPECT(count == 2, "stack has %zu screens after the posted push", count);
    EXPECT(ng_sdl2_post(&a, NULL, NULL) == NG_E_NULL, "post(NULL request)");
    EXPECT(ng_sdl2_post(NULL, NULL, NULL) == NG_E_NULL, "post(NULL adapter)");
    drain();
}

/* MANUAL clock: the deadline's distance is waited as wall time; the wait
 * returns 0 without ticking until the host advances the clock. */
static void test_wait_manual(void) {
    ng_context *ctx = make_context(NG_CLOCK_MANUAL, NULL, NULL);
    ng_sdl2 a;
    ng_sdl2_init(&a, ctx, g_win);
    SDL_Event e;
    drain();
    g_hold_ends = 0;
    uint64_t hold = 0;
    ng_hold_begin(ctx, "manual", NG_MASK_TOUCH, 20 * MS, &hold);
    int64_t t0 = wall_ms();
    int r = ng_sdl2_wait_event(&a, &e, -1);
    int64_t dt = wall_ms() - t0;
    EXPECT(r == 0 && g_hold_ends == 0, "manual clock, not advanced: %d, %d hold end(s)", r, g_hold_ends);
    EXPECT(dt >= 15 && dt < 2000, "manual wait of a 20 ms deadline took %lld ms", (long long)dt);
    ng_clock_advance(ctx, 20 * MS);
    r = ng_sdl2_wait_event(&a, &e, 0);
    EXPECT(r == 0 && g_hold_ends == 1 && g_hold_reason == NG_HOLD_EXPIRED, "after advancing: %d, %d hold end(s)", r,
           g_hold_ends);
    ng_context_destroy(ctx);
}

/* ------------------------------------------------------------------------ */
/* Binding views to widgets                                                  */
/* ------------------------------------------------------------------------ */

typedef struct {
    int cancels;
    uint64_t touch_id, view_id;
} widget;

static void widget_cancel(void *w, const ng_touch_info *touch) {
    widget *wd = w;
    wd->cancels++;
    wd->touch_id = touch->touch_id;
    wd->view_id = touch->view_id;
}

static ng_sdl2 g_bound; /* the delegate's user */

static void press_then_block(ng_context *ctx, Sint32 x, Sint32 y) {
    ng_sdl2_input in;
    SDL_Event e = roundtrip(mouse_button(SDL_MOUSEBUTTONDOWN, SDL_BUTTON_LEFT, 0, x, y));
    EXPECT(ng_sdl2_submit(&g_bound, &e, &in) == NG_OK && in.mapped && in.result.verdict == NG_VERDICT_DELIVER,
           "press at (%d, %d)", (int)x, (int)y);
    uint64_t hold = 0;
    ng_hold_begin(ctx, "block", NG_MASK_TOUCH, 0, &hold); /* cancels the delivered touch */
    ng_hold_end(ctx, hold);
    e = roundtrip(mouse_button(SDL_MOUSEBUTTONUP, SDL_BUTTON_LEFT, 0, x, y));
    EXPECT(ng_sdl2_submit(&g_bound, &e, &in) == NG_OK && in.mapped && in.result.verdict == NG_VERDICT_DROP &&
               in.result.reason == NG_REASON_CANCELLED,
           "the up of a cancelled touch: verdict %d reason %s", (int)in.result.verdict,
           ng_reason_name(in.result.reason));
}

static void test_bindings(void) {
    ng_context *ctx = make_context(NG_CLOCK_MONOTONIC, &g_bound, ng_sdl2_on_touch_cancel);
    ng_sdl2_init(&g_bound, ctx, g_win);
    add_view(ctx, 5, 0, 0, 100, 100);
    add_view(ctx, 6, 200, 0, 100, 100);
    widget w1 = { 0, 0, 0 }, w2 = { 0, 0, 0 };

    EXPECT(ng_sdl2_bind_view(NULL, 5, widget_cancel, &w1) == NG_E_NULL, "bind(NULL adapter)");
    EXPECT(ng_sdl2_bind_view(&g_bound, 0, widget_cancel, &w1) == NG_E_RANGE, "bind(view 0)");
    EXPECT(ng_sdl2_bind_view(&g_bound, 5, widget_cancel, &w1) == NG_OK, "bind 5");

    press_then_block(ctx, 10, 10);
    EXPECT(w1.cancels == 1 && w1.touch_id == NG_SDL2_MOUSE_TOUCH_ID && w1.view_id == 5,
           "bound widget: %d cancel(s), touch 0x%llx, view %llu", w1.cancels, (unsigned long long)w1.touch_id,
           (unsigned long long)w1.view_id);

    /* An unbound view: nobody takes it. */
    press_then_block(ctx, 210, 10);
    EXPECT(w1.cancels == 1, "the cancel of view 6 reached view 5's widget");
    ng_touch_info t6 = NG_TOUCH_INFO_INIT;
    t6.touch_id = 9;
    t6.view_id = 6;
    EXPECT(!ng_sdl2_route_touch_cancel(&g_bound, &t6), "route to an unbound view returned true");
    t6.view_id = 0;
    EXPECT(!ng_sdl2_route_touch_cancel(&g_bound, &t6), "route of a touch bound to no view returned true");
    EXPECT(!ng_sdl2_route_touch_cancel(&g_bound, NULL), "route(NULL touch)");

    /* Rebinding replaces the widget. */
    EXPECT(ng_sdl2_bind_view(&g_bound, 5, widget_cancel, &w2) == NG_OK, "rebind 5");
    EXPECT(g_bound.binding_count == 1, "rebinding added a binding (%zu)", g_bound.binding_count);
    press_then_block(ctx, 20, 20);
    EXPECT(w1.cancels == 1 && w2.cancels == 1, "after rebinding: w1 %d, w2 %d", w1.cancels, w2.cancels);

    /* Unbinding (cancel NULL). */
    EXPECT(ng_sdl2_bind_view(&g_bound, 5, NULL, NULL) == NG_OK, "unbind 5");
    EXPECT(ng_sdl2_bind_view(&g_bound, 5, NULL, NULL) == NG_OK, "unbind an unbound view");
    press_then_block(ctx, 30, 30);
    EXPECT(w2.cancels == 1 && g_bound.binding_count == 0, "after unbinding: w2 %d", w2.cancels);

    /* The table: NG_SDL2_MAX_BINDINGS views, then NG_E_NO_MEMORY; unbinding
     * swaps the last into the hole without losing it. */
    widget many[NG_SDL2_MAX_BINDINGS];
    memset(many, 0, sizeof many);
    for (uint64_t v = 1; v <= NG_SDL2_MAX_BINDINGS; v++)
        EXPECT(ng_sdl2_bind_view(&g_bound, 100 + v, widget_cancel, &many[v - 1]) == NG_OK, "bind %llu",
               (unsigned long long)(100 + v));
    EXPECT(ng_sdl2_bind_view(&g_bound, 99, widget_cancel, &w1) == NG_E_NO_MEMORY, "binding 257 views");
    EXPECT(ng_sdl2_bind_view(&g_bound, 101, widget_cancel, &w1) == NG_OK, "rebinding with a full table");
    EXPECT(ng_sdl2_bind_view(&g_bound, 101, NULL, NULL) == NG_OK, "unbind the first");
    ng_touch_info t = NG_TOUCH_INFO_INIT;
    t.view_id = 100 + NG_SDL2_MAX_BINDINGS;
    EXPECT(ng_sdl2_route_touch_cancel(&g_bound, &t) && many[NG_SDL2_MAX_BINDINGS - 1].cancels == 1,
           "the last binding was lost when the first was unbound");
    t.view_id = 101;
    EXPECT(!ng_sdl2_route_touch_cancel(&g_bound, &t), "an unbound view still routed");
    EXPECT(ng_sdl2_bind_view(&g_bound, 99, widget_cancel, &w1) == NG_OK, "bind after a slot was freed");
    ng_context_destroy(ctx);
}

/* ------------------------------------------------------------------------ */
/* Lost releases                                                             */
/* ------------------------------------------------------------------------ */

/* A press whose release never came (a grab lost by X11, a window hidden
 * mid-press; xdotool cannot lose one, synthetic SDL events can) must not
 * leave the mouse or a reused finger id dead: the next down is a new touch,
 * the old touch gets exactly one cancel through its widget, and the new
 * press is delivered. On the default chain, as in the reported repro. */
static ng_sdl2 g_lost; /* the delegate's user */

static void press(ng_sdl2 *a, const char *what, SDL_Event e, int32_t phase, uint64_t view) {
    ng_sdl2_input in;
    e = roundtrip(e);
    ng_status st = ng_sdl2_submit(a, &e, &in);
    EXPECT(st == NG_OK && in.mapped && in.event.phase == phase, "%s: %s, mapped %d, phase %s", what,
           ng_strstatus(st), (int)in.mapped, ng_touch_phase_name(in.event.phase));
    EXPECT(in.result.verdict == NG_VERDICT_DELIVER && in.result.target_view == view,
           "%s: verdict %s (%s by %s), view %llu, want delivered to view %llu", what,
           ng_verdict_name(in.result.verdict), ng_reason_name(in.result.reason),
           in.result.guard_id ? in.result.guard_id : "the core", (unsigned long long)in.result.target_view,
           (unsigned long long)view);
}

static void test_lost_release(void) {
    ng_context *ctx = make_context(NG_CLOCK_MONOTONIC, &g_lost, ng_sdl2_on_touch_cancel);
    MUST(ctx, ng_chain_configure(ctx, NULL));
    ng_sdl2_init(&g_lost, ctx, g_win);
    add_view(ctx, 5, 0, 0, 100, 100);
    add_view(ctx, 6, 200, 0, 100, 100);
    widget w5 = { 0, 0, 0 }, w6 = { 0, 0, 0 };
    ng_sdl2_bind_view(&g_lost, 5, widget_cancel, &w5);
    ng_sdl2_bind_view(&g_lost, 6, widget_cancel, &w6);
    size_t touches = 99;

    /* The mouse: down on view 5, its up lost, down on view 6. */
    press(&g_lost, "mouse down on 5", mouse_button(SDL_MOUSEBUTTONDOWN, SDL_BUTTON_LEFT, 0, 10, 10),
          NG_TOUCH_BEGAN, 5);
    press(&g_lost, "mouse down on 6, the up on 5 lost",
          mouse_button(SDL_MOUSEBUTTONDOWN, SDL_BUTTON_LEFT, 0, 210, 10), NG_TOUCH_BEGAN, 6);
    EXPECT(w5.cancels == 1 && w5.touch_id == NG_SDL2_MOUSE_TOUCH_ID && w5.view_id == 5,
           "the touch whose up was lost: %d cancel(s) at view 5's widget (touch 0x%llx, view %llu), want 1",
           w5.cancels, (unsigned long long)w5.touch_id, (unsigned long long)w5.view_id);
    EXPECT(w6.cancels == 0, "the new press was cancelled (%d)", w6.cancels);
    ng_touch_count(ctx, &touches);
    EXPECT(touches == 1, "%zu live touches after the second down, want 1 (the new press)", touches);
    press(&g_lost, "mouse up on 6", mouse_button(SDL_MOUSEBUTTONUP, SDL_BUTTON_LEFT, 0, 210, 10), NG_TOUCH_ENDED,
          6);
    /* and the id stays free: a whole click on view 5 */
    press(&g_lost, "mouse down on 5 again", mouse_button(SDL_MOUSEBUTTONDOWN, SDL_BUTTON_LEFT, 0, 20, 20),
          NG_TOUCH_BEGAN, 5);
    press(&g_lost, "mouse up on 5", mouse_button(SDL_MOUSEBUTTONUP, SDL_BUTTON_LEFT, 0, 20, 20), NG_TOUCH_ENDED, 5);
    EXPECT(w5.cancels == 1 && w6.cancels == 0, "after the clicks: view 5 %d cancel(s), view 6 %d; want 1 and 0",
           w5.cancels, w6.cancels);
    ng_touch_count(ctx, &touches);
    EXPECT(touches == 0 && !g_lost.mouse_down, "%zu live touches after the mouse's clicks", touches);

    /* A finger id SDL reuses: FINGERDOWN twice with the same fingerId. */
    w5 = (widget){ 0, 0, 0 };
    press(&g_lost, "finger down on 5", finger(SDL_FINGERDOWN, 9, 0, g_win_id, 0.05f, 0.05f), NG_TOUCH_BEGAN, 5);
    uint64_t id = g_lost.fingers[0].touch_id;
    press(&g_lost, "finger 0 down again on 6, its up lost", finger(SDL_FINGERDOWN, 9, 0, g_win_id, 0.3f, 0.05f),
          NG_TOUCH_BEGAN, 6);
    EXPECT(w5.cancels == 1 && w5.touch_id == id && w5.view_id == 5,
           "the finger whose up was lost: %d cancel(s) at view 5's widget (touch 0x%llx, want 0x%llx), want 1",
           w5.cancels, (unsigned long long)w5.touch_id, (unsigned long long)id);
    EXPECT(w6.cancels == 0, "the new finger was cancelled (%d)", w6.cancels);
    EXPECT(g_lost.finger_count == 1, "%zu fingers followed, want 1 (the id is one finger)", g_lost.finger_count);
    press(&g_lost, "finger 0 moves", finger(SDL_FINGERMOTION, 9, 0, g_win_id, 0.32f, 0.06f), NG_TOUCH_MOVED, 6);
    press(&g_lost, "finger 0 up", finger(SDL_FINGERUP, 9, 0, g_win_id, 0.32f, 0.06f), NG_TOUCH_ENDED, 6);
    EXPECT(w5.cancels == 1 && w6.cancels == 0, "after the finger: view 5 %d cancel(s), view 6 %d; want 1 and 0",
           w5.cancels, w6.cancels);
    ng_touch_count(ctx, &touches);
    EXPECT(touches == 0 && g_lost.finger_count == 0, "%zu live touches, %zu fingers followed at the end", touches,
           g_lost.finger_count);
    ng_context_destroy(ctx);
    EXPECT(w5.cancels == 1 && w6.cancels == 0, "destroy cancelled a touch that had ended");
}

/* ------------------------------------------------------------------------ */
/* Scoped posts, and waking on the delegate's on_wake                        */
/* ------------------------------------------------------------------------ */

typedef struct {
    ng_context *ctx;
    ng_sdl2 *a;                /* ng_sdl2_post through it; NULL: plain ng_request_post */
    ng_request request;
    int delay_ms;
    ng_status status;
    uint64_t id;
} scoped_poster;

static void *scoped_post_thread(void *arg) {
    scoped_poster *p = arg;
    struct timespec d = { 0, (long)p->delay_ms * 1000000L };
    nanosleep(&d, NULL);
    p->status = p->a ? ng_sdl2_post(p->a, &p->request, &p->id) : ng_request_post(p->ctx, &p->request, &p->id);
    return NULL;
}

/* Posts `push` (item, scoped to `from`) from a thread, runs `meanwhile` on
 * this thread once it is posted, then waits for its outcome. */
static void post_reply(ng_context *ctx, ng_sdl2 *a, uint64_t screen_id, uint64_t from, ng_request_kind meanwhile) {
    scoped_poster p = { ctx, a, NG_REQUEST_INIT(NG_REQ_PUSH), 0, -1, 0 };
    p.request.screen.id = screen_id;
    p.request.screen.route = "item";
    p.request.from_screen = from;
    pthread_t th;
    pthread_create(&th, NULL, scoped_post_thread, &p);
    pthread_join(th, NULL);
    EXPECT(p.status == NG_OK, "ng_sdl2_post of a scoped reply: %s", ng_strstatus(p.status));
    if (meanwhile != NG_REQ_KIND_COUNT) {
        /* the user acts before the owner loop picks the reply up */
        ng_request r = NG_REQUEST_INIT(meanwhile);
        ng_request_result res = NG_REQUEST_RESULT_INIT;
        ng_request_submit(ctx, &r, &res);
        EXPECT(res.status == NG_OUTCOME_APPLIED, "the user's %s: %s", ng_request_kind_name(meanwhile),
               ng_outcome_name(res.status));
    }
    g_outcomes = 0;
    g_outcome_id = 0;
    SDL_Event e;
    int64_t t0 = wall_ms();
    while (g_outcome_id != p.id && wall_ms() - t0 < 2000) ng_sdl2_wait_event(a, &e, 100);
    EXPECT(g_outcome_id == p.id, "the scoped reply %llu got no outcome", (unsigned long long)p.id);
}

static uint64_t top_id(ng_context *ctx, size_t *count) {
    ng_stack_count(ctx, count);
    ng_screen_info s = NG_SCREEN_INFO_INIT;
    if (*count == 0 || ng_stack_get(ctx, *count - 1, &s) != NG_OK) return 0;
    return s.id;
}

/* ng_sdl2_post carries ng_request.from_screen: a reply scoped to Menu is
 * refused stale when the user went back to Home before it applied, and
 * applied when the user stayed on Menu. */
static void test_post_scoped(void) {
    ng_context *ctx = make_context(NG_CLOCK_MONOTONIC, NULL, NULL);
    MUST(ctx, ng_chain_configure(ctx, NULL));
    ng_sdl2 a;
    ng_sdl2_init(&a, ctx, g_win);
    drain();
    ng_screen home = { 1, "home", NULL };
    MUST(ctx, ng_stack_set_root(ctx, &home));
    ng_request push = NG_REQUEST_INIT(NG_REQ_PUSH);
    push.screen.id = 2;
    push.screen.route = "menu";
    ng_request_result res = NG_REQUEST_RESULT_INIT;
    ng_request_submit(ctx, &push, &res);
    size_t count = 0;
    EXPECT(res.status == NG_OUTCOME_APPLIED && top_id(ctx, &count) == 2, "push menu: %s",
           ng_outcome_name(res.status));

    /* Network on Menu (2); the user pops back to Home; the reply lands. */
    post_reply(ctx, &a, 3, 2, NG_REQ_POP);
    EXPECT(g_outcome == NG_OUTCOME_REFUSED && g_reason == NG_REASON_STALE,
           "a reply for a screen the user left: %s %s, want refused stale", ng_outcome_name(g_outcome),
           ng_reason_name(g_reason));
    uint64_t top = top_id(ctx, &count);
    EXPECT(top == 1 && count == 1, "after the stale reply: top %llu, %zu screens; want Home alone",
           (unsigned long long)top, count);

    /* Home again to a new Menu (4): the old Menu's reply would still be
     * stale; a reply scoped to the new one, the user staying, is applied. */
    push.screen.id = 4;
    ng_request_submit(ctx, &push, &res);
    post_reply(ctx, &a, 5, 2, NG_REQ_KIND_COUNT);
    EXPECT(g_outcome == NG_OUTCOME_REFUSED && g_reason == NG_REASON_STALE,
           "a reply for the old Menu on a new Menu: %s %s, want refused stale", ng_outcome_name(g_outcome),
           ng_reason_name(g_reason));
    post_reply(ctx, &a, 6, 4, NG_REQ_KIND_COUNT);
    EXPECT(g_outcome == NG_OUTCOME_APPLIED, "a reply for the screen the user stayed on: %s %s, want applied",
           ng_outcome_name(g_outcome), ng_reason_name(g_reason));
    top = top_id(ctx, &count);
    EXPECT(top == 6 && count == 3, "after the applied reply: top %llu, %zu screens; want Home, Menu, Item",
           (unsigned long long)top, count);
    ng_context_destroy(ctx);
    drain();
}

/* ng_sdl2_on_wake as the delegate's on_wake: a thread posting with plain
 * ng_request_post wakes an infinite ng_sdl2_wait_event. */
static ng_sdl2 g_woken; /* the delegate's user */

static void test_on_wake(void) {
    ng_options o = NG_OPTIONS_INIT;
    o.delegate.user = &g_woken;
    o.delegate.on_outcome = on_outcome;
    o.delegate.on_wake = ng_sdl2_on_wake;
    ng_context *ctx = NULL;
    EXPECT(ng_context_create(&o, &ctx) == NG_OK, "create");
    ng_sdl2_init(&g_woken, ctx, g_win);
    ng_screen home = { 1, "home", NULL };
    MUST(ctx, ng_stack_set_root(ctx, &home));
    drain();

    /* Before its init an adapter's wake pushes nothing; NULL is harmless. */
    ng_sdl2 blank;
    memset(&blank, 0, sizeof blank);
    ng_sdl2_wake(&blank);
    ng_sdl2_wake(NULL);
    SDL_PumpEvents();
    EXPECT(SDL_PeepEvents(NULL, 0, SDL_PEEKEVENT, SDL_FIRSTEVENT, SDL_LASTEVENT) == 0,
           "a wake of an adapter not set up queued an event");
    /* ng_sdl2_wake queues one wake-up naming the adapter. */
    ng_sdl2_wake(&g_woken);
    SDL_Event e;
    EXPECT(SDL_PeepEvents(&e, 1, SDL_GETEVENT, SDL_FIRSTEVENT, SDL_LASTEVENT) == 1 &&
               e.type == g_woken.wake_event && e.user.data1 == &g_woken,
           "ng_sdl2_wake: no wake-up event for the adapter");

    g_outcomes = 0;
    g_main_thread = pthread_self();
    scoped_poster p = { ctx, NULL, NG_REQUEST_INIT(NG_REQ_PUSH), 50, -1, 0 };
    p.request.screen.id = 2;
    p.request.screen.route = "posted";
    pthread_t th, rescue;
    pthread_create(&th, NULL, scoped_post_thread, &p);
    pthread_create(&rescue, NULL, rescue_thread, NULL);
    int64_t t0 = wall_ms();
    while (g_outcomes == 0) {
        int r = ng_sdl2_wait_event(&g_woken, &e, -1);
        if (r == 1) {
            EXPECT(e.type != g_woken.wake_event, "a wake-up was returned");
            if (e.type == SDL_QUIT) break;
        }
    }
    int64_t dt = wall_ms() - t0;
    pthread_join(th, NULL);
    pthread_cancel(rescue);
    pthread_join(rescue, NULL);
    EXPECT(p.status == NG_OK, "ng_request_post: %s", ng_strstatus(p.status));
    EXPECT(g_outcomes == 1 && g_outcome == NG_OUTCOME_APPLIED && g_outcome_on_main,
           "plain post: %d outcome(s), outcome %s, on main %d", g_outcomes, ng_outcome_name(g_outcome),
           (int)g_outcome_on_main);
    EXPECT(dt < 2000, "the infinite wait woke after %lld ms (post at 50 ms): on_wake did not wake it",
           (long long)dt);
    ng_context_destroy(ctx);
    drain();
}

/* navguard.h's adapter rules: the mouse is NG_MOUSE_TOUCH_ID, and an event
 * ng_event_submit answers with a status fails closed, whatever the status:
 * a destroyed context's press reads DROP and the status comes back. */
static void test_adapter_rules(void) {
    EXPECT(NG_SDL2_MOUSE_TOUCH_ID == NG_MOUSE_TOUCH_ID, "the SDL mouse id is not NG_MOUSE_TOUCH_ID");
    ng_context *ctx = make_context(NG_CLOCK_MONOTONIC, NULL, NULL);
    ng_sdl2 a;
    ng_sdl2_init(&a, ctx, g_win);
    add_view(ctx, 1, 0, 0, 100, 100);
    SDL_Event e = mouse_button(SDL_MOUSEBUTTONDOWN, SDL_BUTTON_LEFT, 0, 10, 10);
    ng_sdl2_input in;
    EXPECT(ng_sdl2_submit(&a, &e, &in) == NG_OK && in.mapped && in.event.touch_id == NG_MOUSE_TOUCH_ID &&
           in.result.verdict == NG_VERDICT_DELIVER, "a live context's press");
    e = mouse_button(SDL_MOUSEBUTTONUP, SDL_BUTTON_LEFT, 0, 10, 10);
    ng_sdl2_submit(&a, &e, &in);
    ng_context_destroy(ctx);
    e = mouse_button(SDL_MOUSEBUTTONDOWN, SDL_BUTTON_LEFT, 0, 10, 10);
    ng_status st = ng_sdl2_submit(&a, &e, &in);
    EXPECT(st == NG_E_HANDLE && in.mapped && in.result.verdict == NG_VERDICT_DROP &&
           in.result.reason == NG_REASON_INVALID,
           "a destroyed context's press: %s, verdict %d (want NG_E_HANDLE, DROP: fail closed)",
           ng_strstatus(st), in.result.verdict);
}

/* ------------------------------------------------------------------------ */
/* Game controllers: SDL 2.26's virtual controllers, as SDL makes them        */
/* ------------------------------------------------------------------------ */

static int g_press_cancels;
static ng_press_info g_press_cancel;

static void on_press_cancel(void *user, ng_context *ctx, const ng_press_info *press) {
    (void)user, (void)ctx;
    g_press_cancels++;
    g_press_cancel = *press;
}

/* A guard that only watches: the device of the last Back it was asked about
 * (the adapter sets ng_request.device on its Back). */
static uint64_t g_back_device = UINT64_MAX;
static int g_spy_instance;
static void *spy_create(const ng_guard_host *host, const char *config) {
    (void)host; (void)config;
    return &g_spy_instance;
}
static void spy_destroy(void *instance) { (void)instance; }
static ng_vote spy_request(void *instance, const ng_guard_request *r, ng_verdict *v) {
    (void)instance; (void)v;
    if (r->kind == NG_REQ_BACK) g_back_device = NG_HAS_FIELD(r, ng_guard_request, device) ? r->device : UINT64_MAX;
    return NG_VOTE_ALLOW;
}
static const ng_plugin_descriptor g_spy = {
    .abi_major = NG_PLUGIN_ABI_MAJOR, .abi_minor = NG_PLUGIN_ABI_MINOR, .size = sizeof(ng_plugin_descriptor),
    .id = "test.back-device-spy", .name = "back-device-spy", .version = "1", .description = "watches Back's device",
    .create = spy_create, .destroy = spy_destroy, .on_request = spy_request,
};

static ng_context *make_game_context(void) {
    ng_options o = NG_OPTIONS_INIT;
    o.clock = NG_CLOCK_MANUAL;
    o.manual_start_ns = 1000 * MS;
    o.delegate.on_outcome = on_outcome;
    o.delegate.on_press_cancel = on_press_cancel;
    ng_context *ctx = NULL;
    if (ng_context_create(&o, &ctx) != NG_OK) {
        fprintf(stderr, "ng_context_create failed\n");
        exit(2);
    }
    MUST(ctx, ng_chain_configure(ctx, NULL));
    MUST(ctx, ng_chain_add(ctx, &g_spy, NULL));
    static const char *routes[] = { "title", "menu", "options" };
    ng_screen title = { 1, "title", NULL };
    MUST(ctx, ng_stack_set_root(ctx, &title));
    for (uint64_t i = 1; i < 3; i++) {
        ng_request r = NG_REQUEST_INIT(NG_REQ_PUSH);
        r.screen.id = i + 1;
        r.screen.route = routes[i];
        ng_request_result rr = NG_REQUEST_RESULT_INIT;
        ng_status st = ng_request_submit(ctx, &r, &rr);
        EXPECT(st == NG_OK && rr.status == NG_OUTCOME_APPLIED, "push %s: %s (%s), %s", routes[i], ng_strstatus(st), ng_errmsg(ctx), ng_outcome_name(rr.status));
    }
    return ctx;
}

/* A virtual controller (SDL_JoystickAttachVirtualEx) opened as a game
 * controller; returns its device index, *gc and *id set. */
static int attach_pad(SDL_GameController **gc, SDL_JoystickID *id) {
    SDL_VirtualJoystickDesc d;
    SDL_zero(d);
    d.version = SDL_VIRTUAL_JOYSTICK_DESC_VERSION;
    d.type = SDL_JOYSTICK_TYPE_GAMECONTROLLER;
    d.naxes = SDL_CONTROLLER_AXIS_MAX;
    d.nbuttons = SDL_CONTROLLER_BUTTON_MAX;
    d.name = "navguard test pad";
    int index = SDL_JoystickAttachVirtualEx(&d);
    if (index < 0 || !SDL_IsGameController(index) || !(*gc = SDL_GameControllerOpen(index))) {
        fprintf(stderr, "virtual controller: %s\n", SDL_GetError());
        exit(2);
    }
    *id = SDL_JoystickInstanceID(SDL_GameControllerGetJoystick(*gc));
    drain();
    return index;
}

/* Pump SDL and submit every controller event it gives through the adapter;
 * returns how many mapped events, the last in *last; *removed counts
 * SDL_CONTROLLERDEVICEREMOVED returned unmapped; *backs the Backs sent. */
static int pump(ng_sdl2 *a, ng_sdl2_input *last, int *removed, int *backs) {
    int n = 0;
    SDL_Event e;
    SDL_GameControllerUpdate();
    while (SDL_PollEvent(&e)) {
        if (e.type != SDL_CONTROLLERBUTTONDOWN && e.type != SDL_CONTROLLERBUTTONUP &&
            e.type != SDL_CONTROLLERDEVICEREMOVED && e.type != SDL_KEYDOWN && e.type != SDL_KEYUP)
            continue;
        ng_sdl2_input in;
        ng_status st = ng_sdl2_submit(a, &e, &in);
        EXPECT(st == NG_OK, "submit of SDL event 0x%x: %s", (unsigned)e.type, ng_strstatus(st));
        if (in.mapped) {
            n++;
            if (last) *last = in;
        } else if (e.type == SDL_CONTROLLERDEVICEREMOVED && removed) {
            (*removed)++;
        }
        if (in.back && backs) (*backs)++;
    }
    return n;
}

static size_t stack_depth(ng_context *ctx) {
    size_t n = 0;
    ng_stack_count(ctx, &n);
    return n;
}

static void set_button(SDL_GameController *gc, SDL_GameControllerButton b, Uint8 down) {
    SDL_JoystickSetVirtualButton(SDL_GameControllerGetJoystick(gc), b, down);
}

static void test_game_controllers(void) {
    /* The dummy driver's windows never have focus, and SDL drops controller
     * input for an unfocused program unless told otherwise. */
    SDL_SetHint(SDL_HINT_JOYSTICK_ALLOW_BACKGROUND_EVENTS, "1");
    if (SDL_InitSubSystem(SDL_INIT_GAMECONTROLLER) != 0) {
        fprintf(stderr, "SDL_INIT_GAMECONTROLLER: %s\n", SDL_GetError());
        exit(2);
    }
    ng_context *ctx = make_game_context();
    ng_sdl2 a;
    ng_sdl2_init(&a, ctx, g_win);
    EXPECT(a.back_buttons == (1u << SDL_CONTROLLER_BUTTON_B) && a.back_keys[0] == SDLK_ESCAPE &&
               a.back_keys[1] == SDLK_AC_BACK && a.back_keys[2] == 0 &&
               a.back_flags == (NG_REQF_ANIMATED | NG_REQF_TIMED),
           "the Back action's defaults");
    SDL_GameController *gc = NULL;
    SDL_JoystickID id = -1;
    int index = attach_pad(&gc, &id);
    ng_sdl2_input in;
    int removed = 0, backs = 0;

    /* A held, then the controller unplugged: SDL sends no BUTTONUP, the
     * adapter tells NavGuard, which ends the press with one cancel. */
    g_press_cancels = 0;
    set_button(gc, SDL_CONTROLLER_BUTTON_A, 1);
    EXPECT(pump(&a, &in, &removed, &backs) == 1 && in.event.type == NG_EVENT_REMOTE &&
               in.event.phase == NG_KEY_DOWN && in.event.code == NG_BUTTON_A &&
               in.event.touch_id == NG_SDL2_PAD_DEVICE(id) && in.event.touch_id != 0 &&
               in.result.verdict == NG_VERDICT_DELIVER && !in.back,
           "A down from the virtual controller: device %llu (want instance id %d + 1, never the keyboard's 0), verdict %d",
           (unsigned long long)in.event.touch_id, (int)id, in.result.verdict);
    SDL_JoystickDetachVirtual(index);
    memset(&in, 0, sizeof in);
    pump(&a, &in, &removed, &backs);
    /* SDL's own up for the held A (its recentering) is no release. */
    EXPECT(in.mapped && in.event.phase == NG_KEY_DEVICE_REMOVED && in.event.touch_id == NG_SDL2_PAD_DEVICE(id) &&
               in.result.verdict == NG_VERDICT_DELIVER,
           "the up SDL makes for A as the controller goes: phase %d (want NG_KEY_DEVICE_REMOVED)", in.event.phase);
    EXPECT(removed == 1, "SDL_CONTROLLERDEVICEREMOVED handed back unmapped %d time(s), want 1", removed);
    EXPECT(g_press_cancels == 1 && g_press_cancel.cause == NG_PRESS_DEVICE_REMOVED &&
               g_press_cancel.type == NG_EVENT_REMOTE && g_press_cancel.code == NG_BUTTON_A &&
               g_press_cancel.device == NG_SDL2_PAD_DEVICE(id),
           "unplugged while A is held: %d on_press_cancel (want 1, cause device-removed), cause %d",
           g_press_cancels, g_press_cancel.cause);
    SDL_GameControllerClose(gc);
    pump(&a, NULL, &removed, &backs);
    EXPECT(g_press_cancels == 1, "a second cancel after the removal: %d", g_press_cancels);
    EXPECT(stack_depth(ctx) == 3, "the stack moved: %zu", stack_depth(ctx));

    /* A controller that goes with no up from SDL (one the host never
     * opened): SDL_CONTROLLERDEVICEREMOVED alone ends its presses. */
    g_press_cancels = 0;
    SDL_Event c;
    SDL_zero(c);
    c.type = SDL_CONTROLLERBUTTONDOWN;
    c.cbutton.which = 77;
    c.cbutton.button = SDL_CONTROLLER_BUTTON_X;
    c.cbutton.state = SDL_PRESSED;
    ng_sdl2_submit(&a, &c, &in);
    EXPECT(in.mapped && in.result.verdict == NG_VERDICT_DELIVER && in.event.touch_id == 78, "X down of instance 77: device 78");
    SDL_zero(c);
    c.type = SDL_CONTROLLERDEVICEREMOVED;
    c.cdevice.which = 77;
    ng_status st = ng_sdl2_submit(&a, &c, &in);
    EXPECT(st == NG_OK && !in.mapped && g_press_cancels == 1 && g_press_cancel.device == 78 &&
               g_press_cancel.code == NG_BUTTON_X && g_press_cancel.cause == NG_PRESS_DEVICE_REMOVED,
           "SDL_CONTROLLERDEVICEREMOVED of 77: %s, mapped %d, %d cancel(s) (want unmapped, 1)", ng_strstatus(st),
           in.mapped, g_press_cancels);

    /* B: one guarded Back, the press cancelled by its transition, its up
     * dropped. Mashed during the slide: still one level. */
    index = attach_pad(&gc, &id);
    g_press_cancels = 0;
    backs = 0;
    set_button(gc, SDL_CONTROLLER_BUTTON_B, 1);
    pump(&a, &in, &removed, &backs);
    EXPECT(backs == 1 && in.back && in.back_result.status == NG_OUTCOME_APPLIED &&
               in.event.code == NG_BUTTON_B && in.result.verdict == NG_VERDICT_DELIVER,
           "B: %d Back(s) (want 1), status %d", backs, in.back_result.status);
    EXPECT(g_back_device == NG_SDL2_PAD_DEVICE(id),
           "B's Back request: device %llu (want the controller's, %llu), for org.navguard.device-owner",
           (unsigned long long)g_back_device, (unsigned long long)NG_SDL2_PAD_DEVICE(id));
    EXPECT(g_press_cancels == 1 && g_press_cancel.cause == NG_PRESS_TRANSITION && g_press_cancel.code == NG_BUTTON_B,
           "B's press after its Back started: %d cancel(s), cause %d (want 1, transition)", g_press_cancels,
           g_press_cancel.cause);
    set_button(gc, SDL_CONTROLLER_BUTTON_B, 0);
    pump(&a, &in, &removed, &backs);
    EXPECT(in.event.phase == NG_KEY_UP && in.result.verdict == NG_VERDICT_DROP && !in.back,
           "B's up after its Back: verdict %d (want DROP)", in.result.verdict);
    /* Mashed during the slide (350 ms, the default duration): every 80 ms,
     * the last at 320 ms, past the throttle's 300 ms, so the slide itself
     * must refuse it. */
    int refused_by_slide = 0;
    for (int i = 0; i < 5; i++) {
        set_button(gc, SDL_CONTROLLER_BUTTON_B, 1);
        pump(&a, &in, &removed, &backs);
        EXPECT(!in.back || in.back_result.status != NG_OUTCOME_APPLIED,
               "B #%d during the slide applied a Back", i + 2);
        if (getenv("NG_TEST_VERBOSE"))
            printf("B #%d during the slide: back %d, %s by %s, reason %s\n", i + 2, in.back,
                   ng_outcome_name(in.back_result.status),
                   in.back_result.guard_id ? in.back_result.guard_id : "the core",
                   ng_reason_name(in.back_result.reason));
        if (in.back && in.back_result.status == NG_OUTCOME_REFUSED && in.back_result.reason == NG_REASON_BUSY)
            refused_by_slide++;
        set_button(gc, SDL_CONTROLLER_BUTTON_B, 0);
        pump(&a, &in, &removed, &backs);
        ng_clock_advance(ctx, 80 * MS);
        ng_tick(ctx);
    }
    EXPECT(refused_by_slide >= 1, "no B during the slide was refused busy (the slide did not hold)");
    ng_clock_advance(ctx, 1000 * MS);
    ng_tick(ctx);
    EXPECT(stack_depth(ctx) == 2, "B mashed during the slide: stack %zu (want 2: one level)", stack_depth(ctx));

    /* Escape: the keyboard's Back; a repeat is no second Back. */
    backs = 0;
    SDL_Event k = key(SDL_KEYDOWN, SDLK_ESCAPE, 0);
    ng_sdl2_submit(&a, &k, &in);
    EXPECT(in.back && in.back_result.status == NG_OUTCOME_APPLIED && in.event.type == NG_EVENT_KEY,
           "Escape: back %d, status %d", in.back, in.back_result.status);
    EXPECT(g_back_device == 0 && in.event.touch_id == 0,
           "Escape's Back request: device %llu, key device %llu (want 0: the keyboard)",
           (unsigned long long)g_back_device, (unsigned long long)in.event.touch_id);
    k = key(SDL_KEYDOWN, SDLK_ESCAPE, 1);
    ng_sdl2_submit(&a, &k, &in);
    EXPECT(!in.back && in.event.phase == NG_KEY_REPEAT, "Escape's repeat sent a Back");
    k = key(SDL_KEYUP, SDLK_ESCAPE, 0);
    ng_sdl2_submit(&a, &k, &in);
    EXPECT(!in.back, "Escape's up sent a Back");
    ng_clock_advance(ctx, 1000 * MS);
    ng_tick(ctx);
    EXPECT(stack_depth(ctx) == 1, "Escape: stack %zu (want 1)", stack_depth(ctx));

    /* Back action off: B is an ordinary button. */
    a.back_buttons = 0;
    set_button(gc, SDL_CONTROLLER_BUTTON_B, 1);
    pump(&a, &in, &removed, &backs);
    EXPECT(!in.back && in.result.verdict == NG_VERDICT_DELIVER, "B with back_buttons 0 sent a Back");
    set_button(gc, SDL_CONTROLLER_BUTTON_B, 0);
    pump(&a, &in, &removed, &backs);

    SDL_GameControllerClose(gc);
    SDL_JoystickDetachVirtual(index);
    drain();
    ng_context_destroy(ctx);
}

/* The left stick as D-pad presses. */
static ng_event g_stick[16];
static int g_stick_n;

static void submit_stick(ng_sdl2 *a, const SDL_Event *e) {
    ng_sdl2_input in;
    do {
        ng_sdl2_submit(a, e, &in);
        if (in.mapped && g_stick_n < 16) g_stick[g_stick_n++] = in.event;
        if (in.mapped)
            EXPECT(in.result.verdict == NG_VERDICT_DELIVER, "stick press dropped (%s)", ng_reason_name(in.result.reason));
    } while (in.more);
}

static void stick(ng_sdl2 *a, SDL_GameController *gc, SDL_GameControllerAxis axis, Sint16 v) {
    g_stick_n = 0;
    SDL_JoystickSetVirtualAxis(SDL_GameControllerGetJoystick(gc), axis, v);
    SDL_GameControllerUpdate();
    SDL_Event e;
    while (SDL_PollEvent(&e))
        if (e.type == SDL_CONTROLLERAXISMOTION) submit_stick(a, &e);
}

static bool stick_is(int i, int32_t phase, int64_t code, SDL_JoystickID id) {
    return i < g_stick_n && g_stick[i].type == NG_EVENT_REMOTE && g_stick[i].phase == phase &&
           g_stick[i].code == code && g_stick[i].touch_id == NG_SDL2_PAD_DEVICE(id);
}

static void test_stick_dpad(void) {
    ng_context *ctx = make_game_context();
    ng_sdl2 a;
    ng_sdl2_init(&a, ctx, g_win);
    EXPECT(!a.stick_dpad && a.stick_press == 16000 && a.stick_release == 10000 && a.stick_repeat_delay_ms == 400 &&
               a.stick_repeat_ms == 100,
           "the stick's defaults");
    SDL_GameController *gc = NULL;
    SDL_JoystickID id = -1;
    int index = attach_pad(&gc, &id);

    stick(&a, gc, SDL_CONTROLLER_AXIS_LEFTX, 30000);
    EXPECT(g_stick_n == 0, "stick_dpad off: the stick made %d press event(s)", g_stick_n);
    stick(&a, gc, SDL_CONTROLLER_AXIS_LEFTX, 0);
    a.stick_dpad = true;

    stick(&a, gc, SDL_CONTROLLER_AXIS_LEFTX, 15000);
    EXPECT(g_stick_n == 0, "inside the dead zone: %d event(s)", g_stick_n);
    stick(&a, gc, SDL_CONTROLLER_AXIS_LEFTX, 20000);
    EXPECT(g_stick_n == 1 && stick_is(0, NG_KEY_DOWN, NG_BUTTON_DPAD_RIGHT, id), "stick right: %d event(s)", g_stick_n);
    stick(&a, gc, SDL_CONTROLLER_AXIS_LEFTX, 12000);
    EXPECT(g_stick_n == 0, "back under the press threshold, above release: %d event(s) (hysteresis)", g_stick_n);
    stick(&a, gc, SDL_CONTROLLER_AXIS_LEFTX, 9000);
    EXPECT(g_stick_n == 1 && stick_is(0, NG_KEY_UP, NG_BUTTON_DPAD_RIGHT, id), "under release: %d event(s)", g_stick_n);
    stick(&a, gc, SDL_CONTROLLER_AXIS_LEFTX, -30000);
    EXPECT(g_stick_n == 1 && stick_is(0, NG_KEY_DOWN, NG_BUTTON_DPAD_LEFT, id), "stick left");
    /* Left to right in one SDL event: an up, then a down (`more`). */
    stick(&a, gc, SDL_CONTROLLER_AXIS_LEFTX, 30000);
    EXPECT(g_stick_n == 2 && stick_is(0, NG_KEY_UP, NG_BUTTON_DPAD_LEFT, id) &&
               stick_is(1, NG_KEY_DOWN, NG_BUTTON_DPAD_RIGHT, id),
           "left to right at once: %d event(s) (want up left, down right)", g_stick_n);
    /* A held direction's larger rival axis does not take over until the
     * held one falls under release. */
    stick(&a, gc, SDL_CONTROLLER_AXIS_LEFTY, -32000);
    EXPECT(g_stick_n == 0, "up while right is held above release: %d event(s)", g_stick_n);
    /* Up's press starts in this call: its repeats count from no earlier. */
    Uint64 down = SDL_GetTicks64();
    stick(&a, gc, SDL_CONTROLLER_AXIS_LEFTX, 0);
    EXPECT(g_stick_n == 2 && stick_is(0, NG_KEY_UP, NG_BUTTON_DPAD_RIGHT, id) &&
               stick_is(1, NG_KEY_DOWN, NG_BUTTON_DPAD_UP, id),
           "right let go with up held: %d event(s)", g_stick_n);

    /* Repeats, from ng_sdl2_wait_event: none before the delay, then one per
     * period (lower bounds only: a slow machine only makes them later). */
    Uint64 at[2] = { 0, 0 };
    int repeats = 0;
    g_stick_n = 0;
    while (repeats < 2 && SDL_GetTicks64() - down < 5000) {
        SDL_Event e;
        if (ng_sdl2_wait_event(&a, &e, 50) != 1) continue;
        int before = g_stick_n;
        submit_stick(&a, &e);
        if (g_stick_n > before && stick_is(before, NG_KEY_REPEAT, NG_BUTTON_DPAD_UP, id)) at[repeats++] = SDL_GetTicks64();
    }
    EXPECT(repeats == 2, "%d repeat(s) of a held stick in 5 s", repeats);
    /* at[] is read after each repeat was made, the next one being due 100 ms
     * after it was made: a tick that moved between making and reading (under
     * an emulator, a few) shortens the gap read, never the gap kept. */
    EXPECT(at[0] >= down + 400 && at[1] + 3 >= at[0] + 100, "repeats at +%llu and +%llu ms (want >= 400, then +100)",
           (unsigned long long)(at[0] - down), (unsigned long long)(at[1] - down));
    for (int i = 0; i < g_stick_n; i++)
        EXPECT(g_stick[i].phase == NG_KEY_REPEAT, "the wait made a %s", ng_key_phase_name(g_stick[i].phase));

    /* Unplugged while up is held: one cancel, no up. */
    g_press_cancels = 0;
    SDL_JoystickDetachVirtual(index);
    SDL_GameControllerUpdate();
    SDL_Event e;
    g_stick_n = 0;
    while (SDL_PollEvent(&e)) submit_stick(&a, &e);
    EXPECT(g_stick_n == 0 || g_stick[0].phase != NG_KEY_UP, "the unplugged stick made an up");
    EXPECT(g_press_cancels == 1 && g_press_cancel.code == NG_BUTTON_DPAD_UP &&
               g_press_cancel.cause == NG_PRESS_DEVICE_REMOVED,
           "unplugged with the stick up: %d cancel(s)", g_press_cancels);
    SDL_GameControllerClose(gc);
    drain();
    ng_context_destroy(ctx);
}

int main(void) {
    if (SDL_Init(SDL_INIT_VIDEO | SDL_INIT_EVENTS) != 0) {
        fprintf(stderr, "SDL_Init: %s (SDL_VIDEODRIVER=%s)\n", SDL_GetError(),
                getenv("SDL_VIDEODRIVER") ? getenv("SDL_VIDEODRIVER") : "(unset)");
        return 2;
    }
    g_win = SDL_CreateWindow("navguard test", 0, 0, 800, 600, 0);
    g_small = SDL_CreateWindow("navguard test small", 0, 0, 400, 300, 0);
    if (!g_win || !g_small) {
        fprintf(stderr, "SDL_CreateWindow: %s\n", SDL_GetError());
        return 2;
    }
    g_win_id = SDL_GetWindowID(g_win);
    printf("SDL %d.%d.%d, video driver %s\n", SDL_MAJOR_VERSION, SDL_MINOR_VERSION, SDL_PATCHLEVEL,
           SDL_GetCurrentVideoDriver());

    ng_context *ctx = make_context(NG_CLOCK_MONOTONIC, NULL, NULL);
    test_init(ctx);
    test_mouse(ctx);
    test_fingers(ctx);
    test_keys_remote_wheel(ctx);
    test_submit(ctx);
    test_focus_loss(ctx);
    test_non_finite(ctx);
    test_wait(ctx);
    ng_context_destroy(ctx);
    test_wait_manual();
    test_bindings();
    test_lost_release();
    test_post_scoped();
    test_on_wake();
    test_adapter_rules();
    test_game_controllers();
    test_stick_dpad();

    SDL_DestroyWindow(g_small);
    SDL_DestroyWindow(g_win);
    SDL_Quit();
    printf("%d checks, %d failure(s)\n", g_checks, g_failures);
    return g_failures ? 1 : 0;
}
