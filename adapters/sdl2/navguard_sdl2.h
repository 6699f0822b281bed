/* SPDX-License-Identifier: Apache-2.0 */
/*
 * navguard_sdl2.h — NavGuard's SDL2 adapter.
 *
 * Compile navguard_sdl2.c into your program (the way Dear ImGui ships its
 * backends): it sits on the host side of navguard.h, knows nothing of the
 * library's internals and needs only SDL2 (2.0.22 or later) and libnavguard.
 * Installed as <prefix>/share/navguard/adapters/sdl2/navguard_sdl2.{h,c};
 * with CMake, find_package(NavGuard COMPONENTS sdl2) gives the target
 * NavGuard::sdl2, which compiles it into whatever links it.
 *
 * What it does:
 *  - converts SDL events to ng_event and submits them, returning the verdict
 *    (ng_sdl2_submit): the left mouse button and motion while it is down are
 *    one touch with a fixed id (NG_SDL2_MOUSE_TOUCH_ID); mouse events SDL
 *    synthesized from touches (which == SDL_TOUCH_MOUSEID) are ignored, the
 *    fingers themselves arrive as SDL_FINGER* and are scaled from SDL's
 *    normalized 0..1 to window coordinates (fingers of trackpads, SDL's
 *    indirect touch devices, and the mouse echoed as SDL_MOUSE_TOUCHID
 *    fingers are ignored: their pointer is the mouse); motion with no
 *    button is HOVER; keys are NG_EVENT_KEY, game-controller buttons
 *    NG_EVENT_REMOTE, the wheel NG_EVENT_SCROLL; timestamps are SDL's, in
 *    the context's clock (to the millisecond, never later than ng_now);
 *  - sleeps until the next SDL event, NavGuard's next deadline or the host's
 *    next frame, and ticks NavGuard when due (ng_sdl2_wait_event): an idle
 *    kiosk uses no CPU;
 *  - ends every touch whose end SDL will not send: on focus loss of its
 *    window (SDL_WINDOWEVENT_FOCUS_LOST) and when the application goes to the
 *    background (SDL_APP_WILLENTERBACKGROUND), the mouse touch and every
 *    live finger are submitted as NG_TOUCH_CANCELLED, so NavGuard keeps no
 *    touch until its watchdog's limit and every began gets one end;
 *  - keeps a finger whose point is not finite (NaN or infinite: a broken
 *    driver) from reaching the host as delivered, and keeps each touch's life
 *    the same for NavGuard and the host: ng_event_submit refuses such a
 *    point (NG_E_RANGE) and ng_sdl2_submit then reports the event mapped
 *    with a DROP verdict (NG_REASON_INVALID), as for every refused event
 *    (fail closed: navguard.h, "Writing an adapter", says why). A
 *    down so refused starts no touch on either side (its later phases are
 *    dropped as phases of an unknown touch); a move so refused is dropped
 *    and its touch goes on; an up with such a point is submitted as
 *    NG_TOUCH_CANCELLED at the finger's last point, so its touch ends once
 *    on both sides;
 *  - submits a down whose predecessor's up was lost (the mouse pressed
 *    again while its touch is live, a finger id SDL reuses) as a new
 *    touch's began: NavGuard ends the old touch first (one on_touch_cancel,
 *    routed to its widget) and evaluates the press as usual, so a lost
 *    release never leaves the mouse or a finger id dead;
 *  - posts a request from any thread and wakes the loop (ng_sdl2_post), or
 *    wakes it from the delegate's on_wake for hosts that post with plain
 *    ng_request_post (ng_sdl2_on_wake, ng_sdl2_wake);
 *  - routes NavGuard's on_touch_cancel to the widget bound to the view
 *    (ng_sdl2_bind_view, ng_sdl2_route_touch_cancel);
 *  - gives controllers and keys their life in NavGuard (navguard.h,
 *    "Presses"): a controller button is NG_EVENT_REMOTE with code =
 *    SDL_GameControllerButton (= NG_BUTTON_*) and touch_id = the controller's
 *    device, NG_SDL2_PAD_DEVICE(instance id) = instance id + 1 (SDL_JoystickID:
 *    it never changes while the controller is plugged in, unlike its device
 *    index; + 1 because SDL numbers the first controller 0, which is the
 *    keyboard's device and ng_request.device's "none"); a key is
 *    NG_EVENT_KEY, device 0, SDL's repeats NG_KEY_REPEAT. A controller unplugged while a button is
 *    held ends that press with a cancel, never a release: SDL (2.26) sends
 *    a BUTTONUP for each held button of an open controller that goes (its
 *    "recentering"), then SDL_CONTROLLERDEVICEREMOVED. Such an up (its
 *    controller reads detached) is converted to phase
 *    NG_KEY_DEVICE_REMOVED, which ends the controller's presses in NavGuard
 *    (one on_press_cancel each, cause NG_PRESS_DEVICE_REMOVED; its verdict
 *    is DELIVER, target 0: the host must not treat it as a release). On
 *    SDL_CONTROLLERDEVICEREMOVED itself, ng_sdl2_submit calls
 *    ng_device_removed(ctx, NG_EVENT_REMOTE, NG_SDL2_PAD_DEVICE(which)) (for a
 *    controller the
 *    host never opened, or an SDL that sends no ups) and returns the event
 *    unmapped, for the host to close its SDL_GameController. (An up the
 *    user made just before unplugging, still queued, is then a cancel too.)
 *  - optionally turns the left stick into D-pad presses (ng_sdl2.stick_dpad;
 *    see "The left stick" below);
 *  - turns the Back action (by default the controller's B, Escape and AC
 *    Back; see ng_sdl2.back_buttons, back_keys) into a guarded Back: see
 *    "The Back action" below.
 *
 * The Back action. A down of a Back button or key is first submitted as the
 * press it is (so NavGuard gives it its life: a hold drops it, a guard may
 * refuse it, it gets exactly one end), and only when that down is DELIVERED
 * does the adapter submit an NG_REQ_BACK request (ng_request_submit, source
 * NG_SDL2_SOURCE_BACK, flags ng_sdl2.back_flags, device = the press's
 * device: NG_SDL2_PAD_DEVICE of the controller, 0 for a key) through the guard chain. ng_sdl2_input.back says it
 * did, back_result how the request went (APPLIED, REFUSED, DEFERRED...).
 * So the Back is sent besides delivering the press, not instead: the host
 * must treat an input with `back` set as handled (not act on the press
 * again), and when the Back is applied NavGuard cancels the press (its
 * transition started: on_press_cancel, cause NG_PRESS_TRANSITION) and drops
 * its repeats and up, so nothing of it acts on the screen Back reveals.
 * Repeats and ups never send Back (a key held down is one Back). B mashed
 * during a slide sends a Back per press, and the default chain's guards
 * (org.navguard.bar-should) refuse those that arrive while the bar
 * track is in flight: one level. A host that wants Back on the release, or
 * B to be an ordinary button, clears back_buttons and back_keys and sends
 * its own requests.
 *
 * The left stick (ng_sdl2.stick_dpad, off by default). SDL reports the
 * stick as axes; menus want D-pad presses. With stick_dpad set, the left
 * stick's SDL_CONTROLLERAXISMOTION events of each controller become
 * NG_EVENT_REMOTE presses of NG_BUTTON_DPAD_UP/DOWN/LEFT/RIGHT, device =
 * NG_SDL2_PAD_DEVICE(instance id), as the D-pad's own would be: a direction goes down when the
 * stick leaves the dead zone (stick_press) along it (the larger axis wins),
 * and up only when it comes back under stick_release (hysteresis: a stick
 * resting at the edge does not chatter); a turn from one direction to
 * another is an up then a down (two events from one SDL event: the `more`
 * loop of ng_sdl2_submit). A direction held repeats (NG_KEY_REPEAT) after
 * stick_repeat_delay_ms, then every stick_repeat_ms, in wall time:
 * ng_sdl2_wait_event wakes for them and returns each as an
 * SDL_CONTROLLERAXISMOTION of the held axis (its value unchanged), which
 * ng_sdl2_submit turns into the repeat (an axis event from SDL that finds
 * a repeat due makes it too). The presses then have the life of
 * any press (a transition cancels a direction held through it, and its
 * repeats are dropped until the stick is pushed again). The axes of a
 * controller that has gone are ignored (its presses end with
 * ng_device_removed). At most NG_SDL2_MAX_PADS controllers are followed.
 * Other axis events are not mapped.
 *
 * Thread rule: every function is [owner] (the thread that runs the context and
 * the SDL event loop), except ng_sdl2_post, ng_sdl2_wake and ng_sdl2_on_wake,
 * which are [any-thread] once ng_sdl2_init has returned.
 */
#ifndef NAVGUARD_SDL2_H
#define NAVGUARD_SDL2_H

#include <navguard/navguard.h>
#include <SDL.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The touch id of the mouse (left button): navguard.h's NG_MOUSE_TOUCH_ID,
 * the same in every adapter. Finger touch ids never equal it. */
#define NG_SDL2_MOUSE_TOUCH_ID  NG_MOUSE_TOUCH_ID

/* ng_event.phase for NG_EVENT_KEY and NG_EVENT_REMOTE: navguard.h's key
 * phases (NG_KEY_DOWN, NG_KEY_UP, NG_KEY_REPEAT for a key held down, SDL's
 * repeat). These names, from before navguard.h had them, are aliases with
 * the same values, kept so that hosts written against 0.2 still build. */
#define NG_SDL2_PRESS_DOWN    NG_KEY_DOWN
#define NG_SDL2_PRESS_UP      NG_KEY_UP
#define NG_SDL2_PRESS_REPEAT  NG_KEY_REPEAT

/* The device of a controller's presses (ng_event.touch_id), of its Back
 * requests (ng_request.device) and of ng_device_removed: its SDL instance id
 * + 1. SDL gives the first controller instance id 0, and device 0 is the
 * keyboard's (its keys' touch_id) and ng_request.device's "none", so a
 * controller never shares a device with the keyboard: with
 * org.navguard.device-owner, list "0" in `shared` to let the keyboard in
 * everywhere, and a screen pushed by controller 0 belongs to device 1.
 * (The adapter's first version used the instance id itself, which collided
 * with the keyboard for controller 0.) A host that pushes
 * on a controller's press sets ng_request.device to the press's touch_id. */
#define NG_SDL2_PAD_DEVICE(instance_id) ((uint64_t)(Uint32)(instance_id) + 1u)

/* ng_request.source of the Back requests the adapter sends ("sdl2-back"). */
#define NG_SDL2_SOURCE_BACK   0x53444C42u

/* Keys that make the Back action (ng_sdl2.back_keys). */
#define NG_SDL2_MAX_BACK_KEYS 4

/* Controllers whose left stick the adapter follows (ng_sdl2.stick_dpad). */
#define NG_SDL2_MAX_PADS      8

/* Views that can be bound to a widget (ng_sdl2_bind_view). */
#define NG_SDL2_MAX_BINDINGS  256

/* Live fingers the adapter follows to cancel them on focus loss. A finger
 * beyond this many is still converted and submitted; only its cancel on
 * focus loss is left to the watchdog's touch limit. */
#define NG_SDL2_MAX_FINGERS   32

/* A widget's cancel handler: the touch it was tracking will get no end. */
typedef void (*ng_sdl2_cancel_fn)(void *widget, const ng_touch_info *touch);

/* The adapter's state. Allocate it yourself (static, stack or heap) and set
 * it up with ng_sdl2_init; set the fields above "private" after it (or
 * leave their defaults), and treat the rest as private. */
typedef struct ng_sdl2 {
    ng_context *ctx;
    SDL_Window *window;        /* fingers are scaled to this window when their
                                  event names none (NULL: the event's window) */
    bool hover;                /* submit mouse motion with no button as
                                  NG_EVENT_HOVER (default true) */
    uint32_t back_buttons;     /* controller buttons that make the Back action,
                                  bit (1u << SDL_GameControllerButton)
                                  (default: 1u << SDL_CONTROLLER_BUTTON_B);
                                  0: none */
    SDL_Keycode back_keys[NG_SDL2_MAX_BACK_KEYS];
                               /* keys that make the Back action; 0 (SDLK_UNKNOWN)
                                  entries are unused (default: SDLK_ESCAPE,
                                  SDLK_AC_BACK) */
    uint32_t back_flags;       /* NG_REQF_* of the Back requests (default
                                  NG_REQF_ANIMATED | NG_REQF_TIMED: a slide
                                  the core ends after the context's default
                                  duration; ANIMATED alone: the host ends it) */
    bool stick_dpad;           /* the left stick as D-pad presses (default
                                  false): see "The left stick" below */
    Sint16 stick_press;        /* dead zone: a direction goes down past this
                                  deflection (default 16000 of 32767) */
    Sint16 stick_release;      /* hysteresis: it goes up below this (default
                                  10000; below stick_press) */
    Uint32 stick_repeat_delay_ms; /* first NG_KEY_REPEAT after the down
                                  (default 400) */
    Uint32 stick_repeat_ms;    /* then one every this many ms (default 100;
                                  0: no repeats) */
    /* private */
    bool mouse_down;
    Uint32 mouse_window;       /* window of the mouse touch's began */
    double mouse_x, mouse_y;   /* its last point (for a cancel on focus loss) */
    Uint32 wake_event;         /* SDL user event type of ng_sdl2_post (one
                                  per process, shared by every adapter; its
                                  user.data1 names the adapter) */
    int64_t last_ns;           /* latest event timestamp (they never go back) */
    size_t finger_count;
    struct {
        uint64_t touch_id;
        Uint32 window;         /* SDL window id of its down (0: none named) */
        double x, y;           /* its last point */
    } fingers[NG_SDL2_MAX_FINGERS];
    struct {
        bool used;
        SDL_JoystickID id;
        Sint16 x, y;           /* the left stick's latest axes */
        int dir;               /* the NG_BUTTON_DPAD_* held, -1: none */
        Uint64 next_repeat;    /* SDL_GetTicks64 of its next repeat */
    } pads[NG_SDL2_MAX_PADS];
    size_t binding_count;
    struct {
        uint64_t view_id;
        ng_sdl2_cancel_fn cancel;
        void *widget;
    } bindings[NG_SDL2_MAX_BINDINGS];
} ng_sdl2;

/* What ng_sdl2_submit did with one SDL event. */
typedef struct ng_sdl2_input {
    bool mapped;               /* false: not NavGuard input (window events,
                                  quit, touch-synthesized mouse, right button,
                                  the adapter's wake-up, a controller
                                  removed...): nothing was submitted as an
                                  event, handle it as usual */
    ng_event event;            /* the converted event (window coordinates,
                                  nanoseconds) when mapped */
    ng_event_result result;    /* the verdict when mapped */
    bool more;                 /* call ng_sdl2_submit again with the same SDL
                                  event: it ended a touch (focus loss, see
                                  ng_sdl2_convert) and may end more; the
                                  last call returns it unmapped, for the
                                  host's own handling */
    bool back;                 /* the event was a delivered down of the Back
                                  action and the adapter submitted a Back
                                  request: the input is handled, do not act
                                  on the press (see "The Back action") */
    ng_request_result back_result; /* that request's result when `back` */
} ng_sdl2_input;

/* [owner] Set up `a` for `ctx` (and optionally `window`). Call after
 * SDL_Init(SDL_INIT_VIDEO or SDL_INIT_EVENTS). The first call in a process
 * registers one SDL user event, which every adapter shares (so a host may
 * set up an adapter for each new context without using SDL's user events
 * up); nothing needs releasing. Returns NG_OK, NG_E_NULL (a or ctx),
 * NG_E_STATE (SDL has no user event left; SDL_GetError says more), or a
 * status of ng_now (e.g. NG_E_HANDLE). */
ng_status ng_sdl2_init(ng_sdl2 *a, ng_context *ctx, SDL_Window *window);

/* [owner] Convert one SDL event without submitting it. Returns true and fills
 * *out when it is NavGuard input (see ng_sdl2_input.mapped); updates the
 * adapter's mouse and finger state. A touch whose end SDL will not send ends
 * as NG_TOUCH_CANCELLED: the mouse touch on motion reporting the left button
 * up; the mouse touch and every live finger of a window on its
 * SDL_WINDOWEVENT_FOCUS_LOST, and of every window on
 * SDL_APP_WILLENTERBACKGROUND. Such an event can end several touches: each
 * call returns the next one's cancel, so call again with the same event
 * until it returns false (ng_sdl2_submit does). A left-button down while
 * the mouse touch is live, and a finger down of a live finger id, convert to
 * NG_TOUCH_BEGAN (a new touch: navguard.h's lost-end rule ends the old one);
 * an up with no live touch is not mapped. SDL_CONTROLLERDEVICEREMOVED is
 * not mapped (ng_sdl2_submit calls ng_device_removed for it; a host that
 * converts and submits itself must call ng_device_removed(ctx,
 * NG_EVENT_REMOTE, e->cdevice.which) itself). A finger's up whose point is not
 * finite is converted to NG_TOUCH_CANCELLED at its last point; a down or
 * move keeps such a point: ng_event_submit refuses it (NG_E_RANGE), and an
 * event NavGuard refused must not be delivered. */
bool ng_sdl2_convert(ng_sdl2 *a, const SDL_Event *e, ng_event *out);

/* [owner] Convert and submit one SDL event (ng_event_submit). *out is always
 * written (when `out` is not NULL). Returns NG_OK (see out->mapped and
 * out->result), NG_E_NULL, or a failing status of ng_event_submit (ng_errmsg
 * says why; e.g. NG_E_RANGE for a finger whose point is not finite): the
 * event is then still mapped, and out->result says DROP (NG_REASON_INVALID),
 * so the loop below never delivers what NavGuard refused. At most one NavGuard event per call: an SDL event that ends
 * touches (focus loss, see ng_sdl2_convert) gives one touch's cancel per
 * call with out->more set, then itself unmapped. So submit each SDL event as
 *     do {
 *         ng_sdl2_submit(&a, &e, &in);
 *         if (in.mapped) use(&in.event, &in.result); else handle(&e);
 *     } while (in.more);
 * and every touch SDL will not end gets its cancel, each through the host's
 * usual touch handling. (A host that submits once ends one touch per such
 * event; the watchdog's touch limit ends the rest.) SDL_CONTROLLERDEVICEREMOVED
 * calls ng_device_removed (NG_EVENT_REMOTE, the instance id) and is returned
 * unmapped; a status ng_device_removed fails with is returned. A delivered
 * down of the Back action also submits a Back request (out->back,
 * out->back_result; see "The Back action"); its status is not returned (the
 * event's is), a failed submit leaves out->back false. */
ng_status ng_sdl2_submit(ng_sdl2 *a, const SDL_Event *e, ng_sdl2_input *out);

/* [owner] Wait for the next SDL event: sleeps until an event arrives,
 * NavGuard's next deadline (ng_next_deadline) or `timeout_ms` (the host's
 * own next frame; -1 for none), whichever comes first. Runs ng_tick whenever
 * NavGuard's deadline has passed, also just before returning an event, and
 * consumes the adapter's wake-up events. Returns 1 with *e filled, 0 when the
 * wait ended without an event (time for a frame, or NavGuard ticked: after
 * its deadline, or a wake-up of ng_sdl2_post). With a MANUAL clock the
 * deadline's distance in manual time is waited as wall time, and the wait
 * returns 0 when it passes without the host advancing the clock. */
int ng_sdl2_wait_event(ng_sdl2 *a, SDL_Event *e, int timeout_ms);

/* [any-thread] ng_request_post, then wake the owner's ng_sdl2_wait_event so
 * the request is applied at once (not at its next timeout). The request is
 * passed through whole: scope a reply with `from_screen` (navguard.h) and
 * it is refused as stale when the user has left that screen by the time it
 * applies. Returns the statuses of ng_request_post; a failed wake-up (SDL's
 * queue full) still returns NG_OK: the request is applied at the next wait. */
ng_status ng_sdl2_post(ng_sdl2 *a, const ng_request *request, uint64_t *out_id);

/* [any-thread] Wake the owner's ng_sdl2_wait_event (push the adapter's SDL
 * user event): it returns 0 after ticking NavGuard. A wake before
 * ng_sdl2_init (or with `a` NULL) does nothing; a full SDL queue only
 * delays it to the wait's next timeout. */
void ng_sdl2_wake(ng_sdl2 *a);

/* [any-thread] A ready-made ng_delegate.on_wake (navguard.h) for hosts whose
 * delegate `user` is the adapter: every thread may then post with plain
 * ng_request_post and the SDL loop still wakes at once. A host whose `user`
 * is its own state calls ng_sdl2_wake(&its_adapter) from its on_wake. With
 * it wired, ng_sdl2_post may wake the loop twice for one post (harmless: a
 * wake-up finding nothing due ticks nothing). Posts must start only once
 * ng_sdl2_init has returned (the adapter is set up after the context). */
void ng_sdl2_on_wake(void *adapter, ng_context *ctx);

/* [owner] Bind a view to a widget: when NavGuard cancels a touch bound to
 * the view, `cancel(widget, touch)` is called (through
 * ng_sdl2_route_touch_cancel). Binding a bound view replaces its widget;
 * `cancel` NULL unbinds it. Returns NG_OK, NG_E_NULL (a), NG_E_RANGE (view 0),
 * NG_E_NO_MEMORY (NG_SDL2_MAX_BINDINGS views bound). */
ng_status ng_sdl2_bind_view(ng_sdl2 *a, uint64_t view_id, ng_sdl2_cancel_fn cancel, void *widget);

/* [owner] Route a cancelled touch to its view's widget; call it from your
 * delegate's on_touch_cancel. Returns true when a bound widget took it. */
bool ng_sdl2_route_touch_cancel(ng_sdl2 *a, const ng_touch_info *touch);

/* [owner] A ready-made ng_delegate.on_touch_cancel for hosts whose delegate
 * `user` is the adapter. */
void ng_sdl2_on_touch_cancel(void *adapter, ng_context *ctx, const ng_touch_info *touch);

#ifdef __cplusplus
}
#endif
#endif /* NAVGUARD_SDL2_H */
