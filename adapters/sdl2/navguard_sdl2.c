/* SPDX-License-Identifier: Apache-2.0 */
/*
 * navguard_sdl2.c — NavGuard's SDL2 adapter (see navguard_sdl2.h).
 *
 * Compile this file into the host program; it uses only navguard.h and SDL2.
 *
 * Touch ids:
 *  - the mouse (left button) is NG_MOUSE_TOUCH_ID (navguard.h: all ones);
 *  - a finger is (device << 48) | (fingerId & 0xFFFFFFFFFFFF), where device
 *    is a hash of SDL's touchId reduced to 0..0xFFFE. A hash, not SDL's device
 *    index, because the index shifts when a device is unplugged mid-touch;
 *    0xFFFF is never used, so a finger id is never all ones (the mouse). Two
 *    devices colliding in 16 bits would need the same fingerId at the same
 *    time to clash.
 *
 * Clocks: SDL stamps events in Uint32 milliseconds of its own clock
 * (CLOCK_MONOTONIC_RAW on Linux), NavGuard's monotonic clock is
 * CLOCK_MONOTONIC: NTP slews one against the other (tens of ppm: seconds a
 * day), so a fixed offset measured once would drift. Each event is stamped
 * instead with its age on SDL's clock (Uint32 arithmetic: the 49-day wrap is
 * harmless) taken from ng_now: never later than the context's clock, never
 * drifting, to the millisecond. Stamps never go
 * back from one event to the next (SDL's ms truncation could make them step
 * back by < 1 ms). With a MANUAL clock an event is stamped at the manual time
 * of its conversion minus its real age.
 */
#include "navguard_sdl2.h"

#include <limits.h>
#include <math.h>
#include <string.h>

#define NS_PER_MS INT64_C(1000000)

/* ------------------------------------------------------------------------ */
/* Setup                                                                     */
/* ------------------------------------------------------------------------ */

/* The wake-up event type, registered once per process: SDL's user event
 * types are never given back (SDL_Quit does not reset them), so a type per
 * adapter would run out in a host that sets one up per context. 0: none. */
static SDL_SpinLock wake_lock;
static Uint32 wake_type;

static Uint32 wake_event_type(void) {
    SDL_AtomicLock(&wake_lock);
    if (wake_type == 0) {
        Uint32 t = SDL_RegisterEvents(1);
        if (t != (Uint32)-1) wake_type = t;
    }
    Uint32 t = wake_type;
    SDL_AtomicUnlock(&wake_lock);
    return t;
}

ng_status ng_sdl2_init(ng_sdl2 *a, ng_context *ctx, SDL_Window *window) {
    if (!a || !ctx) return NG_E_NULL;
    memset(a, 0, sizeof *a);
    int64_t now = 0;
    ng_status st = ng_now(ctx, &now);
    if (st != NG_OK) return st;
    Uint32 wake = wake_event_type();
    if (wake == 0) return NG_E_STATE;
    a->ctx = ctx;
    a->window = window;
    a->hover = true;
    a->back_buttons = 1u << SDL_CONTROLLER_BUTTON_B;
    a->back_keys[0] = SDLK_ESCAPE;
    a->back_keys[1] = SDLK_AC_BACK;
    a->back_flags = NG_REQF_ANIMATED | NG_REQF_TIMED;
    a->stick_press = 16000;
    a->stick_release = 10000;
    a->stick_repeat_delay_ms = 400;
    a->stick_repeat_ms = 100;
    a->wake_event = wake;
    return NG_OK;
}

/* ------------------------------------------------------------------------ */
/* Conversion                                                                */
/* ------------------------------------------------------------------------ */

static int64_t event_time(ng_sdl2 *a, Uint32 ts32) {
    int64_t now = a->last_ns;
    ng_now(a->ctx, &now);
    Uint32 age = (Uint32)SDL_GetTicks64() - ts32;
    /* 0 (an event the host built) or an age beyond 24 days (a stamp from the
     * future, i.e. not SDL's) is taken as "now". */
    if (ts32 == 0 || age > 0x7FFFFFFFu) age = 0;
    int64_t t = now - (int64_t)age * NS_PER_MS;
    if (t < a->last_ns) t = a->last_ns;
    a->last_ns = t;
    return t;
}

static void fill(ng_event *out, ng_event_type type, int32_t phase, uint64_t touch_id,
                 int64_t t, double x, double y, int64_t code) {
    ng_event e = NG_EVENT_INIT(type);
    e.phase = phase;
    e.touch_id = touch_id;
    e.timestamp_ns = t;
    e.x = x;
    e.y = y;
    e.code = code;
    *out = e;
}

static void mouse_touch(ng_sdl2 *a, ng_event *out, int32_t phase, Uint32 ts, double x, double y) {
    a->mouse_x = x;
    a->mouse_y = y;
    fill(out, NG_EVENT_TOUCH, phase, NG_MOUSE_TOUCH_ID, event_time(a, ts), x, y, 0);
}

static uint64_t finger_touch_id(SDL_TouchID touch, SDL_FingerID finger) {
    uint64_t h = (uint64_t)touch; /* splitmix64's finalizer: spreads small ids */
    h ^= h >> 30;
    h *= UINT64_C(0xBF58476D1CE4E5B9);
    h ^= h >> 27;
    h *= UINT64_C(0x94D049BB133111EB);
    h ^= h >> 31;
    return ((h % 0xFFFFu) << 48) | ((uint64_t)finger & UINT64_C(0xFFFFFFFFFFFF));
}

/* Trackpads (indirect devices) also move the pointer, which arrives as the
 * mouse; their 0..1 coordinates are the pad's, not the window's. Unknown ids
 * (unplugged, or events the host pushed) count as direct. Looked up without
 * SDL_GetTouchDeviceType's error on unknown ids. */
static bool finger_is_indirect(SDL_TouchID touch) {
    int n = SDL_GetNumTouchDevices();
    for (int i = 0; i < n; i++) {
        if (SDL_GetTouchDevice(i) == touch) {
            SDL_TouchDeviceType t = SDL_GetTouchDeviceType(touch);
            return t == SDL_TOUCH_DEVICE_INDIRECT_ABSOLUTE || t == SDL_TOUCH_DEVICE_INDIRECT_RELATIVE;
        }
    }
    return false;
}

/* Live fingers, for their cancel on focus loss (NG_SDL2_MAX_FINGERS). */
static size_t finger_index(const ng_sdl2 *a, uint64_t id) {
    for (size_t i = 0; i < a->finger_count; i++)
        if (a->fingers[i].touch_id == id) return i;
    return a->finger_count;
}

static void follow_finger(ng_sdl2 *a, int32_t phase, uint64_t id, Uint32 window, double x, double y) {
    size_t i = finger_index(a, id);
    if (phase == NG_TOUCH_ENDED) {
        if (i < a->finger_count) a->fingers[i] = a->fingers[--a->finger_count];
        return;
    }
    if (i == a->finger_count) {
        /* A move of a finger not followed (beyond the table, or cancelled on
         * focus loss) is not taken up again: NavGuard has ended it. */
        if (phase != NG_TOUCH_BEGAN || a->finger_count == NG_SDL2_MAX_FINGERS) return;
        a->finger_count++;
        a->fingers[i].touch_id = id;
    }
    /* A down of a followed id (SDL reused it: the old finger's up was lost)
     * is a new finger, maybe of another window. */
    if (phase == NG_TOUCH_BEGAN) a->fingers[i].window = window;
    a->fingers[i].x = x;
    a->fingers[i].y = y;
}

static bool convert_finger(ng_sdl2 *a, const SDL_TouchFingerEvent *f, int32_t phase, ng_event *out) {
    /* SDL_HINT_MOUSE_TOUCH_EVENTS makes SDL echo the mouse as a finger of
     * SDL_MOUSE_TOUCHID: the mouse is already the mouse touch. */
    if (f->touchId == SDL_MOUSE_TOUCHID || finger_is_indirect(f->touchId)) return false;
    SDL_Window *w = f->windowID ? SDL_GetWindowFromID(f->windowID) : NULL;
    if (!w) w = a->window;
    /* No window to scale to: submitting 0..1 as window points would hit the
     * wrong view. */
    if (!w) return false;
    int ww = 0, wh = 0;
    SDL_GetWindowSize(w, &ww, &wh);
    uint64_t id = finger_touch_id(f->touchId, f->fingerId);
    double x = (double)f->x * ww, y = (double)f->y * wh;
    if (!isfinite(x) || !isfinite(y)) {
        /* ng_event_submit refuses a point that is not finite (NG_E_RANGE),
         * and ng_sdl2_submit then reports DROP: a down or a move keeps its
         * point (a refused down is never followed, so NavGuard and the host
         * both never see that finger). An up must still end its touch once
         * on both sides: it becomes a cancel at the finger's last point. */
        if (phase != NG_TOUCH_ENDED) {
            fill(out, NG_EVENT_TOUCH, phase, id, event_time(a, f->timestamp), x, y, 0);
            return true;
        }
        size_t i = finger_index(a, id);
        x = i < a->finger_count ? a->fingers[i].x : 0.0;
        y = i < a->finger_count ? a->fingers[i].y : 0.0;
        follow_finger(a, NG_TOUCH_ENDED, id, f->windowID, x, y);
        fill(out, NG_EVENT_TOUCH, NG_TOUCH_CANCELLED, id, event_time(a, f->timestamp), x, y, 0);
        return true;
    }
    follow_finger(a, phase, id, f->windowID, x, y);
    fill(out, NG_EVENT_TOUCH, phase, id, event_time(a, f->timestamp), x, y, 0);
    return true;
}

/* Whether `touch_window` belongs to `window` (0 on either side: any). */
static bool same_window(Uint32 touch_window, Uint32 window) {
    return touch_window == 0 || window == 0 || touch_window == window;
}

/* The next live touch of `window` (0: every window) ended as cancelled, or
 * false when none is left. Only focus loss and going to the background end
 * touches: SDL captures the mouse while a button is down, so leaving the
 * window (SDL_WINDOWEVENT_LEAVE) still brings the release, while a window
 * that lost focus (alt-tab, another app's popup) may never get it. */
static bool cancel_next_touch(ng_sdl2 *a, Uint32 window, Uint32 ts, ng_event *out) {
    if (a->mouse_down && same_window(a->mouse_window, window)) {
        a->mouse_down = false;
        mouse_touch(a, out, NG_TOUCH_CANCELLED, ts, a->mouse_x, a->mouse_y);
        return true;
    }
    for (size_t i = 0; i < a->finger_count; i++) {
        if (!same_window(a->fingers[i].window, window)) continue;
        uint64_t id = a->fingers[i].touch_id;
        double x = a->fingers[i].x, y = a->fingers[i].y;
        a->fingers[i] = a->fingers[--a->finger_count];
        fill(out, NG_EVENT_TOUCH, NG_TOUCH_CANCELLED, id, event_time(a, ts), x, y, 0);
        return true;
    }
    return false;
}

/* SDL events that end every live touch of a window or of all windows. */
static bool ends_touches(const SDL_Event *e) {
    return (e->type == SDL_WINDOWEVENT && e->window.event == SDL_WINDOWEVENT_FOCUS_LOST) ||
           e->type == SDL_APP_WILLENTERBACKGROUND;
}

/* ------------------------------------------------------------------------ */
/* The left stick as D-pad presses                                           */
/* ------------------------------------------------------------------------ */

static int pad_index(ng_sdl2 *a, SDL_JoystickID id, bool add) {
    int free_slot = -1;
    for (int i = 0; i < NG_SDL2_MAX_PADS; i++) {
        if (a->pads[i].used && a->pads[i].id == id) return i;
        if (!a->pads[i].used && free_slot < 0) free_slot = i;
    }
    if (!add || free_slot < 0) return -1;
    a->pads[free_slot].used = true;
    a->pads[free_slot].id = id;
    a->pads[free_slot].x = a->pads[free_slot].y = 0;
    a->pads[free_slot].dir = -1;
    return free_slot;
}

/* The deflection along a D-pad direction (SDL's y grows downwards). */
static int along(int x, int y, int dir) {
    switch (dir) {
    case NG_BUTTON_DPAD_UP: return -y;
    case NG_BUTTON_DPAD_DOWN: return y;
    case NG_BUTTON_DPAD_LEFT: return -x;
    default: return x;
    }
}

/* The direction the stick asks for: the held one while it stays above the
 * release threshold, else the larger axis past the press threshold. */
static int stick_desired(const ng_sdl2 *a, int i) {
    int x = a->pads[i].x, y = a->pads[i].y, dir = a->pads[i].dir;
    if (dir >= 0 && along(x, y, dir) >= a->stick_release) return dir;
    int ax = x < 0 ? -x : x, ay = y < 0 ? -y : y;
    if ((ax > ay ? ax : ay) < a->stick_press) return -1;
    if (ax >= ay) return x > 0 ? NG_BUTTON_DPAD_RIGHT : NG_BUTTON_DPAD_LEFT;
    return y > 0 ? NG_BUTTON_DPAD_DOWN : NG_BUTTON_DPAD_UP;
}

/* One step of pad i towards what its stick asks for: an up, a down or a due
 * repeat; false when there is nothing to submit. */
static bool stick_step(ng_sdl2 *a, int i, Uint32 ts, ng_event *out) {
    int want = stick_desired(a, i);
    int dir = a->pads[i].dir;
    uint64_t device = NG_SDL2_PAD_DEVICE(a->pads[i].id);
    Uint64 now = SDL_GetTicks64();
    if (want != dir) {
        if (dir >= 0) {
            a->pads[i].dir = -1;
            fill(out, NG_EVENT_REMOTE, NG_KEY_UP, device, event_time(a, ts), 0.0, 0.0, dir);
            return true;
        }
        a->pads[i].dir = want;
        a->pads[i].next_repeat = now + a->stick_repeat_delay_ms;
        fill(out, NG_EVENT_REMOTE, NG_KEY_DOWN, device, event_time(a, ts), 0.0, 0.0, want);
        return true;
    }
    if (dir < 0 || a->stick_repeat_ms == 0 || now < a->pads[i].next_repeat) return false;
    a->pads[i].next_repeat = now + a->stick_repeat_ms;
    fill(out, NG_EVENT_REMOTE, NG_KEY_REPEAT, device, event_time(a, ts), 0.0, 0.0, dir);
    return true;
}

static bool convert_stick(ng_sdl2 *a, const SDL_ControllerAxisEvent *c, ng_event *out) {
    if (!a->stick_dpad || (c->axis != SDL_CONTROLLER_AXIS_LEFTX && c->axis != SDL_CONTROLLER_AXIS_LEFTY))
        return false;
    SDL_GameController *gc = SDL_GameControllerFromInstanceID(c->which);
    if (gc && !SDL_GameControllerGetAttached(gc)) {
        /* SDL recentres a controller that goes: no up, ng_device_removed
         * ends the press. */
        int i = pad_index(a, c->which, false);
        if (i >= 0) a->pads[i].used = false;
        return false;
    }
    int i = pad_index(a, c->which, true);
    if (i < 0) return false;
    if (c->axis == SDL_CONTROLLER_AXIS_LEFTX) a->pads[i].x = c->value;
    else a->pads[i].y = c->value;
    return stick_step(a, i, c->timestamp, out);
}

/* Whether another call with this axis event has a step to make (a turn:
 * the up was made, the down is next). */
static bool stick_pending(ng_sdl2 *a, const SDL_Event *e) {
    if (e->type != SDL_CONTROLLERAXISMOTION || !a->stick_dpad) return false;
    int i = pad_index(a, e->caxis.which, false);
    return i >= 0 && stick_desired(a, i) != a->pads[i].dir;
}

/* A held direction's repeat that is due, as an axis event of the held axis
 * (ng_sdl2_wait_event returns it); *ms_left: the wait until the next one. */
static bool stick_due(ng_sdl2 *a, SDL_Event *e, int *ms_left) {
    *ms_left = -1;
    if (!a->stick_dpad || a->stick_repeat_ms == 0) return false;
    Uint64 now = SDL_GetTicks64();
    for (int i = 0; i < NG_SDL2_MAX_PADS; i++) {
        if (!a->pads[i].used || a->pads[i].dir < 0) continue;
        if (a->pads[i].next_repeat <= now) {
            bool x = a->pads[i].dir == NG_BUTTON_DPAD_LEFT || a->pads[i].dir == NG_BUTTON_DPAD_RIGHT;
            SDL_zero(*e);
            e->type = SDL_CONTROLLERAXISMOTION;
            e->caxis.timestamp = (Uint32)now;
            e->caxis.which = a->pads[i].id;
            e->caxis.axis = x ? SDL_CONTROLLER_AXIS_LEFTX : SDL_CONTROLLER_AXIS_LEFTY;
            e->caxis.value = x ? a->pads[i].x : a->pads[i].y;
            return true;
        }
        int left = (int)(a->pads[i].next_repeat - now);
        if (*ms_left < 0 || left < *ms_left) *ms_left = left;
    }
    return false;
}

bool ng_sdl2_convert(ng_sdl2 *a, const SDL_Event *e, ng_event *out) {
    if (!a || !e || !out) return false;
    switch (e->type) {
    case SDL_MOUSEBUTTONDOWN:
    case SDL_MOUSEBUTTONUP: {
        const SDL_MouseButtonEvent *b = &e->button;
        if (b->which == SDL_TOUCH_MOUSEID || b->button != SDL_BUTTON_LEFT) return false;
        bool down = e->type == SDL_MOUSEBUTTONDOWN;
        /* An up with no down would break NavGuard's began..ended pairing of
         * the mouse touch. A down while down means the up was lost (a grab
         * lost by X11, a window hidden mid-press): it is a new touch, and
         * NavGuard ends the old one first (navguard.h: a lost end). */
        if (!down && !a->mouse_down) return false;
        a->mouse_down = down;
        if (down) a->mouse_window = b->windowID;
        mouse_touch(a, out, down ? NG_TOUCH_BEGAN : NG_TOUCH_ENDED, b->timestamp, b->x, b->y);
        return true;
    }
    case SDL_MOUSEMOTION: {
        const SDL_MouseMotionEvent *m = &e->motion;
        if (m->which == SDL_TOUCH_MOUSEID) return false;
        bool left = (m->state & SDL_BUTTON_LMASK) != 0;
        if (a->mouse_down) {
            if (left) {
                mouse_touch(a, out, NG_TOUCH_MOVED, m->timestamp, m->x, m->y);
            } else {
                /* SDL says the button is up but its release never came: end
                 * the touch as cancelled rather than leave it live forever. */
                a->mouse_down = false;
                mouse_touch(a, out, NG_TOUCH_CANCELLED, m->timestamp, m->x, m->y);
            }
            return true;
        }
        /* Motion with another button (or a press we never saw) is no hover. */
        if (m->state != 0 || !a->hover) return false;
        fill(out, NG_EVENT_HOVER, 0, 0, event_time(a, m->timestamp), m->x, m->y, 0);
        return true;
    }
    case SDL_FINGERDOWN:
        return convert_finger(a, &e->tfinger, NG_TOUCH_BEGAN, out);
    case SDL_FINGERMOTION:
        return convert_finger(a, &e->tfinger, NG_TOUCH_MOVED, out);
    case SDL_FINGERUP:
        return convert_finger(a, &e->tfinger, NG_TOUCH_ENDED, out);
    case SDL_KEYDOWN:
    case SDL_KEYUP: {
        const SDL_KeyboardEvent *k = &e->key;
        int32_t phase = e->type == SDL_KEYUP ? NG_KEY_UP
                      : k->repeat           ? NG_KEY_REPEAT
                                            : NG_KEY_DOWN;
        fill(out, NG_EVENT_KEY, phase, 0, event_time(a, k->timestamp), 0.0, 0.0, (int64_t)k->keysym.sym);
        return true;
    }
    case SDL_CONTROLLERBUTTONDOWN:
    case SDL_CONTROLLERBUTTONUP: {
        const SDL_ControllerButtonEvent *c = &e->cbutton;
        int32_t phase = e->type == SDL_CONTROLLERBUTTONDOWN ? NG_KEY_DOWN : NG_KEY_UP;
        /* When an open controller goes, SDL releases what it held (its
         * "recentering") before SDL_CONTROLLERDEVICEREMOVED: an up nobody
         * made, which must not act like a release (activate what has focus).
         * The controller reads detached by then: end its presses instead. */
        if (phase == NG_KEY_UP) {
            SDL_GameController *gc = SDL_GameControllerFromInstanceID(c->which);
            if (gc && !SDL_GameControllerGetAttached(gc)) phase = NG_KEY_DEVICE_REMOVED;
        }
        fill(out, NG_EVENT_REMOTE, phase, NG_SDL2_PAD_DEVICE(c->which), event_time(a, c->timestamp), 0.0, 0.0,
             (int64_t)c->button);
        return true;
    }
    case SDL_CONTROLLERAXISMOTION:
        return convert_stick(a, &e->caxis, out);
    case SDL_MOUSEWHEEL: {
        const SDL_MouseWheelEvent *w = &e->wheel;
        if (w->which == SDL_TOUCH_MOUSEID) return false;
        double sign = w->direction == SDL_MOUSEWHEEL_FLIPPED ? -1.0 : 1.0;
        fill(out, NG_EVENT_SCROLL, 0, 0, event_time(a, w->timestamp), sign * (double)w->preciseX,
             sign * (double)w->preciseY, 0);
        return true;
    }
    case SDL_WINDOWEVENT:
        return e->window.event == SDL_WINDOWEVENT_FOCUS_LOST &&
               cancel_next_touch(a, e->window.windowID, e->window.timestamp, out);
    case SDL_APP_WILLENTERBACKGROUND:
        return cancel_next_touch(a, 0, e->common.timestamp, out);
    default:
        return false; /* includes the adapter's wake-up event */
    }
}

/* Whether `e` (converted) is a down of the Back action: repeats and ups are
 * not, so a key held down is one Back. */
static bool is_back_down(const ng_sdl2 *a, const SDL_Event *e) {
    if (e->type == SDL_CONTROLLERBUTTONDOWN) {
        Uint8 b = e->cbutton.button;
        return b < 32 && (a->back_buttons & (1u << b)) != 0;
    }
    if (e->type == SDL_KEYDOWN && !e->key.repeat) {
        for (size_t i = 0; i < NG_SDL2_MAX_BACK_KEYS; i++)
            if (a->back_keys[i] != SDLK_UNKNOWN && a->back_keys[i] == e->key.keysym.sym) return true;
    }
    return false;
}

ng_status ng_sdl2_submit(ng_sdl2 *a, const SDL_Event *e, ng_sdl2_input *out) {
    if (!out) return NG_E_NULL;
    /* Field by field: the event is written once, by the conversion, not
     * first as a blank in a whole copy of *out (this runs for every SDL
     * event; the copy cost a moved event a fifth of its time). */
    static const ng_event none = NG_EVENT_INIT(NG_EVENT_TOUCH);
    static const ng_event_result result0 = NG_EVENT_RESULT_INIT;
    static const ng_request_result back0 = NG_REQUEST_RESULT_INIT;
    out->mapped = false;
    out->result = result0;
    out->more = false;
    out->back = false;
    out->back_result = back0;
    if (!a || !e) {
        out->event = none;
        return NG_E_NULL;
    }
    /* SDL sends no BUTTONUP for what the controller held when it went: its
     * presses end in NavGuard. The host still needs the event (to close its
     * SDL_GameController), so it is handed back unmapped. */
    if (e->type == SDL_CONTROLLERDEVICEREMOVED) {
        out->event = none;
        int i = pad_index(a, e->cdevice.which, false);
        if (i >= 0) a->pads[i].used = false;
        return ng_device_removed(a->ctx, NG_EVENT_REMOTE, NG_SDL2_PAD_DEVICE(e->cdevice.which));
    }
    if (!ng_sdl2_convert(a, e, &out->event)) {
        out->event = none;
        return NG_OK;
    }
    out->mapped = true;
    /* A cancel made from an event that ends touches: the next call makes the
     * next one, or hands the event back unmapped. */
    out->more = ends_touches(e) || stick_pending(a, e);
    ng_status st = ng_event_submit(a->ctx, &out->event, &out->result);
    if (st != NG_OK) {
        /* Not taken (a point that is not finite...), so it must not read as
         * delivered: NavGuard writes DROP itself for what it refuses, but a
         * handle or thread error leaves `result` as it was. */
        ng_event_result drop = NG_EVENT_RESULT_INIT;
        drop.verdict = NG_VERDICT_DROP;
        drop.reason = NG_REASON_INVALID;
        out->result = drop;
        return st;
    }
    /* The Back action: only once its press is delivered (a hold or a guard
     * that drops the press drops the Back with it), through the guards. */
    if (out->result.verdict == NG_VERDICT_DELIVER && is_back_down(a, e)) {
        ng_request back = NG_REQUEST_INIT(NG_REQ_BACK);
        back.source = NG_SDL2_SOURCE_BACK;
        back.flags = a->back_flags;
        /* The press's device, so org.navguard.device-owner can judge the
         * Back (a controller: NG_SDL2_PAD_DEVICE; the keyboard: 0, none). */
        back.device = out->event.touch_id;
        ng_request_result r = NG_REQUEST_RESULT_INIT;
        if (ng_request_submit(a->ctx, &back, &r) == NG_OK) {
            out->back = true;
            out->back_result = r;
        }
    }
    return st;
}

/* ------------------------------------------------------------------------ */
/* Waiting                                                                   */
/* ------------------------------------------------------------------------ */

/* ng_tick when NavGuard has work due; true when it ticked. */
static bool tick_if_due(ng_sdl2 *a) {
    int64_t now = 0, deadline = NG_NO_DEADLINE;
    if (ng_next_deadline(a->ctx, &deadline) != NG_OK || ng_now(a->ctx, &now) != NG_OK) return false;
    if (deadline > now) return false;
    ng_tick(a->ctx);
    return true;
}

int ng_sdl2_wait_event(ng_sdl2 *a, SDL_Event *e, int timeout_ms) {
    if (!a || !e) return 0;
    Uint64 start = SDL_GetTicks64();
    for (;;) {
        tick_if_due(a);
        int stick_ms = -1;
        if (stick_due(a, e, &stick_ms)) return 1;
        int64_t now = 0, deadline = NG_NO_DEADLINE;
        if (ng_next_deadline(a->ctx, &deadline) != NG_OK || ng_now(a->ctx, &now) != NG_OK)
            deadline = NG_NO_DEADLINE;

        /* NavGuard's wait, rounded up so that it is due when we wake, and at
         * least 1 ms so a deadline that stays due after a tick cannot spin. */
        int nav_ms = -1;
        if (deadline != NG_NO_DEADLINE) {
            int64_t ns = deadline - now;
            int64_t ms = ns <= 0 ? 1 : (ns - 1) / NS_PER_MS + 1;
            nav_ms = ms > INT_MAX ? INT_MAX : (int)ms;
        }
        int host_ms = -1;
        if (timeout_ms >= 0) {
            Uint64 spent = SDL_GetTicks64() - start;
            host_ms = spent >= (Uint64)timeout_ms ? 0 : timeout_ms - (int)spent;
        }
        bool nav_limited = nav_ms >= 0 && (host_ms < 0 || nav_ms < host_ms);
        int wait_ms = nav_limited ? nav_ms : host_ms;
        if (stick_ms >= 0 && (wait_ms < 0 || stick_ms < wait_ms)) wait_ms = stick_ms;

        int got = wait_ms < 0 ? SDL_WaitEvent(e) : SDL_WaitEventTimeout(e, wait_ms);
        if (got) {
            if (e->type == a->wake_event && (e->user.data1 == a || e->user.data1 == NULL)) {
                /* A post: apply it now. The host's state may have changed,
                 * so this is a frame (0), never an event. (Another adapter's
                 * wake-up is returned as an event: this one cannot tick its
                 * context.) */
                tick_if_due(a);
                return 0;
            }
            tick_if_due(a);
            return 1;
        }
        if (wait_ms < 0) return 0; /* SDL_WaitEvent failed: do not spin on it */
        if (stick_due(a, e, &stick_ms)) {
            tick_if_due(a);
            return 1;
        }
        if (tick_if_due(a) || !nav_limited) return 0;
        /* NavGuard's deadline is not due yet. A monotonic clock means SDL woke
         * early (its ms ticks truncate): wait the rest. A clock that did not
         * move while we waited is MANUAL: the host owns time, hand it back. */
        int64_t after = now;
        if (ng_now(a->ctx, &after) != NG_OK || after == now) return 0;
    }
}

ng_status ng_sdl2_post(ng_sdl2 *a, const ng_request *request, uint64_t *out_id) {
    if (!a) return NG_E_NULL;
    ng_status st = ng_request_post(a->ctx, request, out_id);
    if (st != NG_OK) return st;
    ng_sdl2_wake(a);
    return NG_OK;
}

void ng_sdl2_wake(ng_sdl2 *a) {
    /* 0: not set up (yet): the post is applied at the wait's next tick. */
    if (!a || a->wake_event == 0) return;
    SDL_Event wake;
    SDL_zero(wake);
    wake.type = a->wake_event;
    wake.user.type = a->wake_event;
    wake.user.data1 = a;
    (void)SDL_PushEvent(&wake); /* a full queue only delays the request */
}

void ng_sdl2_on_wake(void *adapter, ng_context *ctx) {
    (void)ctx;
    ng_sdl2_wake((ng_sdl2 *)adapter);
}

/* ------------------------------------------------------------------------ */
/* Touch-cancel routing                                                      */
/* ------------------------------------------------------------------------ */

static size_t binding_index(const ng_sdl2 *a, uint64_t view_id) {
    for (size_t i = 0; i < a->binding_count; i++)
        if (a->bindings[i].view_id == view_id) return i;
    return a->binding_count;
}

ng_status ng_sdl2_bind_view(ng_sdl2 *a, uint64_t view_id, ng_sdl2_cancel_fn cancel, void *widget) {
    if (!a) return NG_E_NULL;
    if (view_id == 0) return NG_E_RANGE;
    size_t i = binding_index(a, view_id);
    if (!cancel) {
        if (i < a->binding_count) a->bindings[i] = a->bindings[--a->binding_count];
        return NG_OK;
    }
    if (i == a->binding_count) {
        if (a->binding_count == NG_SDL2_MAX_BINDINGS) return NG_E_NO_MEMORY;
        a->binding_count++;
    }
    a->bindings[i].view_id = view_id;
    a->bindings[i].cancel = cancel;
    a->bindings[i].widget = widget;
    return NG_OK;
}

bool ng_sdl2_route_touch_cancel(ng_sdl2 *a, const ng_touch_info *touch) {
    if (!a || !touch || touch->view_id == 0) return false;
    size_t i = binding_index(a, touch->view_id);
    if (i == a->binding_count) return false;
    a->bindings[i].cancel(a->bindings[i].widget, touch);
    return true;
}

void ng_sdl2_on_touch_cancel(void *adapter, ng_context *ctx, const ng_touch_info *touch) {
    (void)ctx;
    ng_sdl2_route_touch_cancel((ng_sdl2 *)adapter, touch);
}
