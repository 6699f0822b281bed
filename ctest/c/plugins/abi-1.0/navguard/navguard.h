/* SPDX-License-Identifier: Apache-2.0 */
/*
 * navguard.h — NavGuard host API.
 *
 * NavGuard keeps a stack of screens safe from double pushes, back-button
 * races, cancelled swipe-backs, touches during transitions and stuck input
 * blocks. A host (game front-end, kiosk, embedded UI) creates one context per
 * UI, submits navigation requests and input events, and is told what happened
 * through a delegate.
 *
 * Conventions (apply to every function unless its comment says otherwise):
 *  - Every function returns an ng_status; NG_OK (0) is success. ng_strstatus()
 *    names each status; ng_errmsg() gives the detail of the last failure on a
 *    context.
 *  - Thread rule: [owner] means "the thread currently using the context":
 *    a context is used from one thread at a time. Concurrent use from a second
 *    thread is detected and refused with NG_E_THREAD (never a crash).
 *    [any-thread] functions may be called from any thread at any time.
 *  - [callback-safe] functions may be called from inside a delegate callback.
 *    Requests made inside a callback are queued and evaluated after the
 *    callback returns, in order, never recursively (run to completion).
 *  - Structs the caller fills start with `size`: set it to sizeof(the struct)
 *    (use the NG_*_INIT macros). The library reads only the fields inside
 *    `size`; new fields are only ever added at the end.
 *  - Strings passed in are NUL-terminated UTF-8, at most NG_MAX_STRING bytes,
 *    copied by the library before the call returns (the caller keeps
 *    ownership). Strings handed out are owned by the library; each says how
 *    long it stays valid. Memory the library allocates for the caller is freed
 *    with ng_free().
 *  - Every handle is checked: NULL, destroyed and foreign handles get
 *    NG_E_HANDLE, never a crash.
 *
 * Runtime note: libnavguard.so links the Swift runtime statically. If the
 * host also loads the dynamic Swift runtime (for example through a Swift
 * plugin), that runtime installs handlers for SIGILL, SIGBUS, SIGFPE, SIGTRAP
 * and SIGABRT; set SWIFT_BACKTRACE=enable=no in the environment to keep the
 * host's own crash handling.
 */
#ifndef NAVGUARD_H
#define NAVGUARD_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

#if defined(_WIN32)
#  if defined(NG_BUILDING_LIBRARY)
#    define NG_API __declspec(dllexport)
#  else
#    define NG_API __declspec(dllimport)
#  endif
#elif defined(__GNUC__)
#  define NG_API __attribute__((visibility("default")))
#else
#  define NG_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Versions. The SONAME is libnavguard.so.<NG_VERSION_MAJOR>.                */
/* ------------------------------------------------------------------------ */
#define NG_VERSION_MAJOR 0
#define NG_VERSION_MINOR 1
#define NG_VERSION_PATCH 0
#define NG_VERSION_NUMBER (NG_VERSION_MAJOR * 1000000 + NG_VERSION_MINOR * 1000 + NG_VERSION_PATCH)
#define NG_VERSION_STRING "0.1.0"

/* [any-thread] The library's NG_VERSION_NUMBER; compare with the header's. */
NG_API int32_t ng_version(void);
/* [any-thread] The library's version string; static storage. */
NG_API const char *ng_version_string(void);

/* ------------------------------------------------------------------------ */
/* Status codes                                                              */
/* ------------------------------------------------------------------------ */
typedef int32_t ng_status;
#define NG_OK              0  /* success */
#define NG_E_NULL          1  /* a required pointer argument is NULL */
#define NG_E_HANDLE        2  /* NULL, destroyed or foreign context handle */
#define NG_E_SIZE          3  /* struct `size` too small for the required fields */
#define NG_E_RANGE         4  /* enum value or number out of range */
#define NG_E_UTF8          5  /* string is not valid UTF-8 */
#define NG_E_TOO_LONG      6  /* string longer than NG_MAX_STRING / too many items */
#define NG_E_STATE         7  /* not allowed in the current state (see ng_errmsg) */
#define NG_E_NOT_FOUND     8  /* unknown id, token, screen, view or track */
#define NG_E_THREAD        9  /* context in use by another thread */
#define NG_E_NO_MEMORY    10  /* allocation failed or a fixed limit is reached */
#define NG_E_PARSE        11  /* malformed text (snapshot, JSON configuration) */
#define NG_E_CALLBACK     12  /* not callable from inside a delegate callback */
#define NG_E_GUARD        13  /* a guard descriptor is invalid, its id is a
                                 duplicate, or its create() failed */
#define NG_E_LOAD         14  /* a plugin file is missing or is not a loadable
                                 shared library */
#define NG_E_ENTRY        15  /* a plugin library lacks the ng_plugin_entry symbol
                                 or the entry returned NULL */
#define NG_E_ABI          16  /* a plugin was built for another plugin ABI major,
                                 or a newer minor than the host's */
#define NG_STATUS_COUNT   17

/* [any-thread] Static text naming a status ("NG_E_HANDLE: NULL, destroyed or
 * foreign context handle"). Never NULL: unknown values give "unknown status". */
NG_API const char *ng_strstatus(ng_status status);

/* Limits. */
#define NG_MAX_STRING      1024   /* bytes, without the terminating NUL */
#define NG_MAX_STACK       4096   /* screens in one stack */
#define NG_MAX_GUARDS      32     /* guards in one chain */
#define NG_MAX_CONTEXTS    4096   /* live contexts per process */
#define NG_NO_DEADLINE     0x7FFFFFFFFFFFFFFFLL  /* INT64_MAX, as a literal Swift imports */

/* ------------------------------------------------------------------------ */
/* Enumerations (int32_t values, never C enums in structs)                   */
/* ------------------------------------------------------------------------ */

/* Request kinds. */
typedef int32_t ng_request_kind;
#define NG_REQ_PUSH              0  /* push `screen` */
#define NG_REQ_POP               1  /* pop the top screen */
#define NG_REQ_POP_TO            2  /* pop until `target_id` is on top */
#define NG_REQ_POP_TO_ROOT       3  /* pop until only the root remains */
#define NG_REQ_REPLACE_STACK     4  /* replace the whole stack with `screens` */
#define NG_REQ_BACK              5  /* the bar's back button: an implicit pop */
#define NG_REQ_INTERACTIVE_BACK  6  /* begin an interactive (swipe) back */
#define NG_REQ_KIND_COUNT        7

/* Request flags. */
#define NG_REQF_ANIMATED   0x1u  /* run a transition the host (or a timer) ends */
#define NG_REQF_TIMED      0x2u  /* with ANIMATED: the core ends both tracks
                                    after `duration_ns` (0: context default) */

/* Immediate status / final outcome of a request. */
typedef int32_t ng_outcome_kind;
#define NG_OUTCOME_APPLIED   0  /* the stack changed (final) */
#define NG_OUTCOME_REFUSED   1  /* a guard or a rule refused it (final) */
#define NG_OUTCOME_DEFERRED  2  /* a guard holds it; later APPLIED or DROPPED */
#define NG_OUTCOME_DROPPED   3  /* a deferred or queued request ended unapplied (final) */
#define NG_OUTCOME_QUEUED    4  /* made inside a callback or posted: evaluated
                                   later; the outcome arrives by callback */

/* Reasons for a refusal or a drop. */
typedef int32_t ng_reason;
#define NG_REASON_NONE        0
#define NG_REASON_BUSY        1  /* a transition is in flight */
#define NG_REASON_DUPLICATE   2  /* the screen is already shown / stacked */
#define NG_REASON_THROTTLED   3  /* too soon after the previous request */
#define NG_REASON_IGNORING    4  /* input/navigation is blocked by a hold */
#define NG_REASON_AT_ROOT     5  /* nothing to pop */
#define NG_REASON_NOT_FOUND   6  /* pop-to target is not in the stack */
#define NG_REASON_INVALID     7  /* malformed request (see the message) */
#define NG_REASON_SUPERSEDED  8  /* a queue kept a later request instead */
#define NG_REASON_QUEUE_FULL  9  /* a bounded queue had no room */
#define NG_REASON_DESTROYED  10  /* the context was destroyed first */
#define NG_REASON_POLICY     11  /* a guard's own rule (see the message) */
/* Reasons an input event is dropped (ng_event_result.reason). */
#define NG_REASON_EXCLUSIVE  12  /* exclusive-touch rule: another view is tracking
                                    a touch, or an exclusive view is */
#define NG_REASON_MULTI_TOUCH 13 /* the view has multiple touch off and already
                                    tracks a touch */
#define NG_REASON_WITHHELD   14  /* the touch was withheld at began: its later
                                    phases are dropped */
#define NG_REASON_CANCELLED  15  /* the touch was cancelled (input blocked, view
                                    removed, watchdog): its later phases are dropped */
#define NG_REASON_COUNT      16

/* [any-thread] Static names ("push", "busy", "applied"); "unknown" otherwise. */
NG_API const char *ng_request_kind_name(ng_request_kind kind);
NG_API const char *ng_reason_name(ng_reason reason);
NG_API const char *ng_outcome_name(ng_outcome_kind outcome);

/* Transition tracks and phases. */
typedef int32_t ng_track;
#define NG_TRACK_SCREEN  0
#define NG_TRACK_BAR     1
#define NG_TRACK_ALL     2   /* only as an argument of ng_transition_finish */

typedef int32_t ng_phase;
#define NG_PHASE_WILL       0  /* screen: will-show; bar: bar-will (push/pop item) */
#define NG_PHASE_DID        1  /* screen: did-show;  bar: bar-did */
#define NG_PHASE_CANCELLED  2  /* interactive back cancelled: no DID follows */

/* Transition event flags. */
#define NG_TRANSF_ANIMATED     0x1u
#define NG_TRANSF_INTERACTIVE  0x2u
#define NG_TRANSF_INTERRUPTED  0x4u  /* ended early because a newer request was
                                        applied while it was in flight */
#define NG_TRANSF_FORCED       0x8u  /* ended by a guard (watchdog recovery) */

/* Clock kinds. */
typedef int32_t ng_clock_kind;
#define NG_CLOCK_MONOTONIC  0  /* CLOCK_MONOTONIC, nanoseconds */
#define NG_CLOCK_MANUAL     1  /* the host sets time: tests, replay */

/* Hold end reasons. */
typedef int32_t ng_hold_end_reason;
#define NG_HOLD_ENDED      0  /* ng_hold_end */
#define NG_HOLD_EXPIRED    1  /* its max duration passed */
#define NG_HOLD_RELEASED   2  /* released by a guard (watchdog) or at destroy */

/* Input event types, and masks built from them (NG_MASK(type)). */
typedef int32_t ng_event_type;
#define NG_EVENT_TOUCH    0
#define NG_EVENT_MOTION   1  /* shake / accelerometer */
#define NG_EVENT_REMOTE   2  /* remote control */
#define NG_EVENT_KEY      3  /* key / press */
#define NG_EVENT_SCROLL   4
#define NG_EVENT_HOVER    5
#define NG_EVENT_TYPE_COUNT 6
#define NG_MASK(type)     (1u << (type))
#define NG_MASK_TOUCH     0x01u
#define NG_MASK_MOTION    0x02u
#define NG_MASK_REMOTE    0x04u
#define NG_MASK_KEY       0x08u
#define NG_MASK_SCROLL    0x10u
#define NG_MASK_HOVER     0x20u
#define NG_MASK_ALL       0x3Fu
#define NG_MASK_DEFAULT   0x03u   /* touches + motion */

/* ------------------------------------------------------------------------ */
/* Handles and records                                                       */
/* ------------------------------------------------------------------------ */
typedef struct ng_context ng_context;
typedef struct ng_touch_info ng_touch_info;

/* A screen as given by the host. `route` is required; `identity` (for
 * dedupe) may be NULL, which means "the route". */
typedef struct ng_screen {
    uint64_t id;            /* host id, unique within the stack, not 0 */
    const char *route;
    const char *identity;
} ng_screen;

/* A navigation request. */
typedef struct ng_request {
    uint32_t size;
    ng_request_kind kind;
    uint32_t flags;           /* NG_REQF_* */
    uint32_t source;          /* host-defined origin (button, network...), for guards */
    ng_screen screen;         /* PUSH */
    uint64_t target_id;       /* POP_TO */
    const ng_screen *screens; /* REPLACE_STACK: bottom first */
    size_t screen_count;      /* REPLACE_STACK: 1..NG_MAX_STACK */
    int64_t duration_ns;      /* TIMED: 0 = the context default */
} ng_request;
#define NG_REQUEST_INIT(k) { sizeof(ng_request), (k), 0u, 0u, { 0u, NULL, NULL }, 0u, NULL, 0u, 0 }

/* What ng_request_submit reports at once. */
typedef struct ng_request_result {
    uint32_t size;
    ng_outcome_kind status;   /* APPLIED, REFUSED, DEFERRED or QUEUED */
    uint64_t request_id;      /* never 0 */
    ng_reason reason;         /* for REFUSED */
    const char *guard_id;     /* refusing/deferring guard, or NULL; valid until
                                 the context is destroyed */
} ng_request_result;
#define NG_REQUEST_RESULT_INIT { sizeof(ng_request_result), 0, 0u, 0, NULL }

/* The final outcome of a request, given exactly once to on_outcome. */
typedef struct ng_outcome {
    uint32_t size;
    ng_outcome_kind outcome;  /* APPLIED, REFUSED or DROPPED */
    uint64_t request_id;
    ng_request_kind kind;
    ng_reason reason;
    uint32_t source;          /* the request's source */
    const char *guard_id;     /* NULL when no guard decided */
    const char *message;      /* detail or NULL; valid during the callback */
} ng_outcome;

/* A transition phase on one track. */
typedef struct ng_transition_event {
    uint32_t size;
    ng_track track;
    ng_phase phase;
    uint32_t flags;           /* NG_TRANSF_* */
    uint64_t request_id;
    ng_request_kind kind;
    uint64_t from_id;         /* top screen before (0 if none) */
    uint64_t to_id;           /* top screen after (for CANCELLED: the screen
                                 that stays, i.e. from_id) */
} ng_transition_event;

/* A hold that ended. */
typedef struct ng_hold_info {
    uint32_t size;
    uint64_t token;
    const char *label;        /* valid during the callback */
    uint32_t mask;
    ng_hold_end_reason reason;
    int64_t began_ns;
    int64_t ended_ns;
} ng_hold_info;

/* Delegate: every pointer may be NULL. Callbacks run on the owner thread,
 * inside the API call that caused them (or inside ng_tick). A callback may
 * call [callback-safe] functions; requests it makes run after it returns.
 * It must not call ng_context_destroy on its own context (NG_E_CALLBACK). */
typedef struct ng_delegate {
    uint32_t size;
    void *user;
    void (*on_outcome)(void *user, ng_context *ctx, const ng_outcome *outcome);
    void (*on_transition)(void *user, ng_context *ctx, const ng_transition_event *event);
    void (*on_hold_end)(void *user, ng_context *ctx, const ng_hold_info *hold);
    /* A guard posted a report (e.g. the watchdog). Text valid during the call. */
    void (*on_report)(void *user, ng_context *ctx, const char *guard_id, const char *text);
    /* A guard or the core logged a message; severity is NG_LOG_* (plugin.h:
     * 0 debug, 1 info, 2 warn, 3 error). Text valid during the call. */
    void (*on_log)(void *user, ng_context *ctx, int32_t severity, const char *guard_id,
                   const char *message);
    /* A delivered, still-live touch was cancelled by NavGuard (input became
     * blocked, its view was removed, a guard such as the watchdog cancelled
     * it, or the context is being destroyed). Deliver a cancel to
     * touch->view_id; later phases of this touch are dropped. Exactly once
     * per touch, and never after its ended/cancelled was delivered. */
    void (*on_touch_cancel)(void *user, ng_context *ctx, const ng_touch_info *touch);
} ng_delegate;

/* Context options. Zero-filled fields take defaults. */
typedef struct ng_options {
    uint32_t size;
    ng_clock_kind clock;              /* NG_CLOCK_MONOTONIC (default) or MANUAL */
    int64_t manual_start_ns;          /* MANUAL: initial time (>= 0) */
    int64_t default_duration_ns;      /* TIMED transitions; 0 -> 350 ms */
    ng_delegate delegate;
} ng_options;
#define NG_OPTIONS_INIT { sizeof(ng_options), NG_CLOCK_MONOTONIC, 0, 0, { sizeof(ng_delegate), NULL, NULL, NULL, NULL, NULL, NULL, NULL } }

/* A screen read back from the stack. Strings stay valid until the stack
 * changes or the context is destroyed. */
typedef struct ng_screen_info {
    uint32_t size;
    uint64_t id;
    const char *route;
    const char *identity;
} ng_screen_info;

/* Touch phases (ng_event.phase for NG_EVENT_TOUCH). */
#define NG_TOUCH_BEGAN      0
#define NG_TOUCH_MOVED      1
#define NG_TOUCH_ENDED      2
#define NG_TOUCH_CANCELLED  3

/* Event flags. */
#define NG_EVF_HAS_TARGET   0x1u  /* the host hit-tested: `target_view` is set */

/* A live touch (delegate on_touch_cancel; plugin.h touch_get). */
struct ng_touch_info {
    uint32_t size;
    int32_t state;            /* NG_TOUCH_STATE_* */
    uint64_t touch_id;
    uint64_t view_id;         /* the view it is bound to since began (0: none) */
    int64_t began_ns;
};
#define NG_TOUCH_STATE_DELIVERED  0  /* began was delivered; still live */
#define NG_TOUCH_STATE_WITHHELD   1  /* began was dropped; later phases dropped */
#define NG_TOUCH_STATE_CANCELLED  2  /* cancelled by NavGuard; awaiting its end */

/* An input event (64 bytes). */
typedef struct ng_event {
    uint32_t size;
    ng_event_type type;
    int32_t phase;            /* touch: NG_TOUCH_*; others: host-defined subtype */
    uint32_t flags;           /* NG_EVF_* */
    uint64_t touch_id;        /* touch: the finger; others: 0 or a device id */
    int64_t timestamp_ns;
    double x, y;              /* touch/hover: point in root coordinates;
                                 scroll: delta */
    uint64_t target_view;     /* with NG_EVF_HAS_TARGET */
    int64_t code;             /* key code, remote button, motion kind */
} ng_event;

/* ------------------------------------------------------------------------ */
/* Context                                                                   */
/* ------------------------------------------------------------------------ */

/* [any-thread] Create a context. `options` may be NULL (all defaults); it is
 * read during the call only. The calling thread becomes a valid user.
 * Returns NG_OK, NG_E_NULL (out), NG_E_SIZE, NG_E_RANGE (clock kind,
 * negative time or duration), NG_E_NO_MEMORY (NG_MAX_CONTEXTS reached). */
NG_API ng_status ng_context_create(const ng_options *options, ng_context **out);

/* [owner] Destroy a context. Every request still deferred, queued or posted
 * gets its on_outcome (DROPPED, NG_REASON_DESTROYED), live holds end
 * (on_hold_end, NG_HOLD_RELEASED) and delivered live touches are cancelled
 * (on_touch_cancel), all before this returns; then guards are destroyed in
 * reverse chain order. A transition in flight ends silently. Callbacks made
 * meanwhile may not create requests that survive: those are dropped too.
 * NULL is a no-op (NG_OK). Returns NG_OK,
 * NG_E_HANDLE, NG_E_THREAD, NG_E_CALLBACK (called from one of its own
 * callbacks). The handle is invalid afterwards (later use: NG_E_HANDLE). */
NG_API ng_status ng_context_destroy(ng_context *ctx);

/* [owner, callback-safe] Detail of the last failed call on this context
 * (not cleared by success). Never NULL; static text for a bad handle. Valid
 * until the next failing call on the context. */
NG_API const char *ng_errmsg(ng_context *ctx);

/* ------------------------------------------------------------------------ */
/* Stack                                                                     */
/* ------------------------------------------------------------------------ */

/* [owner] Set the root screen of an empty stack. Returns NG_OK, NG_E_HANDLE,
 * NG_E_NULL, NG_E_RANGE (id 0), NG_E_UTF8, NG_E_TOO_LONG, NG_E_STATE (stack
 * not empty), NG_E_CALLBACK, NG_E_THREAD. */
NG_API ng_status ng_stack_set_root(ng_context *ctx, const ng_screen *root);

/* [owner, callback-safe] Number of screens (0 before the root is set).
 * Returns NG_OK, NG_E_HANDLE, NG_E_NULL, NG_E_THREAD. */
NG_API ng_status ng_stack_count(ng_context *ctx, size_t *out_count);

/* [owner, callback-safe] Screen at `index` (0 = root). Returns NG_OK,
 * NG_E_HANDLE, NG_E_NULL, NG_E_SIZE, NG_E_NOT_FOUND (index out of range). */
NG_API ng_status ng_stack_get(ng_context *ctx, size_t index, ng_screen_info *out);

/* [owner, callback-safe] Serialize the stack as JSON text
 * ({"navguard_snapshot":1,"screens":[{"id":1,"route":"home","identity":"home"}]}).
 * *out_text is NUL-terminated, allocated for the caller: free it with ng_free.
 * `out_len` may be NULL. Returns NG_OK, NG_E_HANDLE, NG_E_NULL,
 * NG_E_NO_MEMORY, NG_E_THREAD. */
NG_API ng_status ng_stack_snapshot(ng_context *ctx, char **out_text, size_t *out_len);

/* [owner] Replace the stack with a snapshot made by ng_stack_snapshot.
 * `len` bytes are read (no NUL needed). Malformed or invalid input returns
 * NG_E_PARSE or NG_E_RANGE and leaves the stack unchanged. Not allowed while
 * a transition is in flight (NG_E_STATE) or inside a callback (NG_E_CALLBACK).
 * No transition or outcome callback is fired. */
NG_API ng_status ng_stack_restore(ng_context *ctx, const char *text, size_t len);

/* [any-thread] Free memory the library allocated for the caller. NULL: no-op. */
NG_API void ng_free(void *ptr);

/* ------------------------------------------------------------------------ */
/* Requests                                                                  */
/* ------------------------------------------------------------------------ */

/* [owner, callback-safe] Submit a request. `request` is read during the call
 * (strings are copied). `out` (may be NULL; when given its `size` must be set,
 * NG_REQUEST_RESULT_INIT) receives the request id and the immediate status:
 *   APPLIED  — the stack changed; a transition started (or, without
 *              NG_REQF_ANIMATED, completed during this call);
 *   REFUSED  — with the reason and the refusing guard (NULL for the core's
 *              own rules: at-root, not-found, invalid);
 *   DEFERRED — a guard holds it; it ends APPLIED or DROPPED later;
 *   QUEUED   — made inside a callback: evaluated after the callback returns.
 * In every case on_outcome is called exactly once for the request id, with
 * the final outcome (for APPLIED/REFUSED made outside a callback: before this
 * function returns). A request that is malformed in content (bad kind, bad
 * string, unknown flags) is REFUSED with NG_REASON_INVALID and still gets an
 * id and its outcome; the return value is then NG_OK and ng_errmsg says why.
 * Returns NG_OK, NG_E_HANDLE, NG_E_NULL (request), NG_E_SIZE, NG_E_THREAD,
 * NG_E_STATE (no root set yet). */
NG_API ng_status ng_request_submit(ng_context *ctx, const ng_request *request,
                                   ng_request_result *out);

/* [any-thread] Post a request from any thread. It is copied, evaluated at the
 * owner's next ng_tick, and its outcome arrives through on_outcome on the
 * owner thread. `out_id` (may be NULL) receives its id. A context must not be
 * destroyed while another thread may still post to it; posting to a destroyed
 * context returns NG_E_HANDLE. Posted ids are unique within the context and
 * never 0 (they come from a separate range than ng_request_submit's). The
 * host learns of a deferral only through the final outcome.
 * Returns NG_OK, NG_E_HANDLE, NG_E_NULL,
 * NG_E_SIZE, NG_E_RANGE, NG_E_UTF8, NG_E_TOO_LONG, NG_E_NO_MEMORY (more than
 * 4096 posts pending). */
NG_API ng_status ng_request_post(ng_context *ctx, const ng_request *request,
                                 uint64_t *out_id);

/* ------------------------------------------------------------------------ */
/* Transitions                                                               */
/* ------------------------------------------------------------------------ */

/* [owner, callback-safe] End a track of the transition in flight (DID fires).
 * NG_TRACK_ALL ends both. For an interactive back this commits the pop.
 * Returns NG_OK, NG_E_HANDLE, NG_E_RANGE (track), NG_E_NOT_FOUND (nothing in
 * flight on that track; a late completion is harmless), NG_E_THREAD. */
NG_API ng_status ng_transition_finish(ng_context *ctx, ng_track track);

/* [owner, callback-safe] Interactive back progress in [0, 1], kept for guards
 * and reports. Returns NG_OK, NG_E_HANDLE, NG_E_RANGE (NaN or outside 0..1),
 * NG_E_NOT_FOUND (no interactive back in flight), NG_E_THREAD. */
NG_API ng_status ng_interactive_update(ng_context *ctx, double progress);

/* [owner, callback-safe] Cancel the interactive back in flight: the stack is
 * restored exactly, both tracks end with NG_PHASE_CANCELLED (no DID), nothing
 * stays in flight. The request's outcome stays APPLIED (it was applied, then
 * rolled back). Returns NG_OK, NG_E_HANDLE, NG_E_NOT_FOUND, NG_E_THREAD. */
NG_API ng_status ng_interactive_cancel(ng_context *ctx);

/* [owner, callback-safe] Whether a track is in flight; `out_request_id` (may
 * be NULL) gets its request id or 0. Returns NG_OK, NG_E_HANDLE, NG_E_NULL,
 * NG_E_RANGE. */
NG_API ng_status ng_transition_in_flight(ng_context *ctx, ng_track track, bool *out_busy,
                                         uint64_t *out_request_id);

/* ------------------------------------------------------------------------ */
/* Holds: named, counted, optionally time-limited blocks                     */
/* ------------------------------------------------------------------------ */

/* [owner, callback-safe] Begin a hold over the event types in `mask`
 * (NG_MASK_*; 0 means NG_MASK_DEFAULT). `max_duration_ns` 0 means no limit;
 * otherwise the hold expires at now + max_duration_ns (on_hold_end with
 * NG_HOLD_EXPIRED). `label` (may be NULL) names the holder in reports.
 * *out_token is never 0 and never reused within a context.
 * Returns NG_OK, NG_E_HANDLE, NG_E_NULL (out_token), NG_E_RANGE (mask bits or
 * negative duration), NG_E_UTF8, NG_E_TOO_LONG, NG_E_NO_MEMORY (1024 live
 * holds), NG_E_THREAD. */
NG_API ng_status ng_hold_begin(ng_context *ctx, const char *label, uint32_t mask,
                               int64_t max_duration_ns, uint64_t *out_token);

/* [owner, callback-safe] End a hold. An unknown or already-ended token returns
 * NG_E_NOT_FOUND and releases nothing. Returns NG_OK, NG_E_HANDLE,
 * NG_E_NOT_FOUND, NG_E_THREAD. */
NG_API ng_status ng_hold_end(ng_context *ctx, uint64_t token);

/* [owner, callback-safe] Union of the masks of the live holds (0: nothing
 * blocked) and their count. Either out pointer may be NULL. Returns NG_OK,
 * NG_E_HANDLE, NG_E_THREAD. */
NG_API ng_status ng_hold_state(ng_context *ctx, uint32_t *out_mask, size_t *out_count);

/* ------------------------------------------------------------------------ */
/* Time                                                                      */
/* ------------------------------------------------------------------------ */

/* [owner] Process everything due: posted requests, expired holds, timed
 * transitions, guard wake-ups. Callbacks run inside. Returns NG_OK,
 * NG_E_HANDLE, NG_E_THREAD, NG_E_CALLBACK. */
NG_API ng_status ng_tick(ng_context *ctx);

/* [owner, callback-safe] The earliest time (same clock as ng_now) at which
 * ng_tick has work, or NG_NO_DEADLINE. Work already due gives a time <= now
 * (posted requests give now). Returns NG_OK, NG_E_HANDLE, NG_E_NULL,
 * NG_E_THREAD. */
NG_API ng_status ng_next_deadline(ng_context *ctx, int64_t *out_ns);

/* [owner, callback-safe] Current time of the context's clock, nanoseconds.
 * Returns NG_OK, NG_E_HANDLE, NG_E_NULL, NG_E_THREAD. */
NG_API ng_status ng_now(ng_context *ctx, int64_t *out_ns);

/* [owner, callback-safe] MANUAL clock only: set the time (never backwards) or advance it.
 * Nothing is processed until ng_tick. Returns NG_OK, NG_E_HANDLE, NG_E_STATE
 * (monotonic clock), NG_E_RANGE (backwards, negative or overflowing),
 * NG_E_THREAD. */
NG_API ng_status ng_clock_set(ng_context *ctx, int64_t now_ns);
NG_API ng_status ng_clock_advance(ng_context *ctx, int64_t delta_ns);

/* ------------------------------------------------------------------------ */
/* Input: events, views and hit testing                                      */
/* ------------------------------------------------------------------------ */

/* Event verdicts. */
typedef int32_t ng_verdict_kind;
#define NG_VERDICT_DELIVER  0
#define NG_VERDICT_DROP     1

/* What ng_event_submit decided. */
typedef struct ng_event_result {
    uint32_t size;
    ng_verdict_kind verdict;
    ng_reason reason;         /* for DROP: IGNORING (a live hold's mask covers
                                 the type), EXCLUSIVE, MULTI_TOUCH, WITHHELD,
                                 CANCELLED, INVALID (phase for an unknown touch
                                 id, began twice) or a guard's reason */
    uint64_t target_view;     /* touch: the bound view (hit at began, or the
                                 host's target); hover: the hit view; 0 if none */
    const char *guard_id;     /* the dropping guard, or NULL (the core's rules);
                                 valid until the context is destroyed */
} ng_event_result;
#define NG_EVENT_RESULT_INIT { sizeof(ng_event_result), 0, 0, 0u, NULL }
#define NG_EVENT_INIT(t) { sizeof(ng_event), (t), 0, 0u, 0u, 0, 0.0, 0.0, 0u, 0 }

/* [owner, callback-safe] Submit an input event and get its verdict.
 * Rules, in order: an event whose type is in a live hold's mask is dropped
 * (IGNORING); a touch is bound at began to the view hit then (or the host's
 * target) and keeps it until it ends (no re-hit-testing); a touch dropped at
 * began is withheld for its whole life; the guard chain votes (first drop
 * wins) on began, moved and non-touch events; the ended/cancelled phase of a
 * delivered touch is always delivered to its view (guards observe it with
 * NG_GEVF_FINAL) so every delivered touch ends exactly once.
 * `out` may be NULL (the verdict is then not reported); when given, its
 * `size` must be set (NG_EVENT_RESULT_INIT).
 * Allocates nothing in steady state. Returns NG_OK (see out->verdict),
 * NG_E_HANDLE, NG_E_NULL, NG_E_SIZE, NG_E_RANGE (type, phase, flags, NaN
 * point), NG_E_THREAD. */
NG_API ng_status ng_event_submit(ng_context *ctx, const ng_event *event, ng_event_result *out);

/* View flags. The zero value is UIKit's default: interaction enabled,
 * visible, multiple touch off, exclusive touch off. */
#define NG_VIEWF_DISABLED         0x1u  /* userInteractionEnabled = NO */
#define NG_VIEWF_HIDDEN           0x2u
#define NG_VIEWF_MULTI_TOUCH      0x4u  /* multipleTouchEnabled = YES */
#define NG_VIEWF_EXCLUSIVE_TOUCH  0x8u  /* exclusiveTouch = YES */

typedef struct ng_point { double x, y; } ng_point;
typedef struct ng_rect { double x, y, width, height; } ng_rect;

/* Hit shapes, in the view's own coordinates (origin at its top-left). */
typedef int32_t ng_shape_kind;
#define NG_SHAPE_BOUNDS   0  /* [0,w) x [0,h): right and bottom edges excluded */
#define NG_SHAPE_INSETS   1  /* bounds inset per edge (UIEdgeInsets: negative
                                values grow the area, positive shrink it) */
#define NG_SHAPE_CIRCLE   2  /* center and radius */
#define NG_SHAPE_POLYGON  3  /* points (copied), nonzero winding rule: non-convex
                                and self-intersecting (a 5-point star) work */

typedef struct ng_hit_shape {
    ng_shape_kind kind;
    double top, left, bottom, right;     /* INSETS */
    double cx, cy, radius;               /* CIRCLE */
    const ng_point *points;              /* POLYGON: 3..1024 points */
    size_t point_count;
} ng_hit_shape;

/* A view of the optional view tree. */
typedef struct ng_view {
    uint32_t size;
    uint32_t flags;          /* NG_VIEWF_* */
    uint64_t id;             /* not 0 */
    uint64_t parent;         /* 0: a top-level view of the window */
    ng_rect frame;           /* in the parent's coordinates */
    int32_t order;           /* among siblings: higher is in front; ties:
                                the later added is in front */
    double alpha;            /* < 0.01 is not hit (UIKit) */
    ng_hit_shape shape;
} ng_view;
#define NG_VIEW_INIT { sizeof(ng_view), 0u, 0u, 0u, { 0.0, 0.0, 0.0, 0.0 }, 0, 1.0, \
                       { NG_SHAPE_BOUNDS, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, NULL, 0u } }

/* [owner, callback-safe] Add a view or update the view with the same id
 * (re-parenting allowed). `view` and its polygon points are copied.
 * Returns NG_OK, NG_E_HANDLE, NG_E_NULL, NG_E_SIZE, NG_E_RANGE (id 0, NaN or
 * negative size, alpha outside 0..1, bad shape), NG_E_NOT_FOUND (unknown
 * parent), NG_E_STATE (would make a cycle), NG_E_NO_MEMORY (65536 views or
 * 1024 points), NG_E_THREAD. */
NG_API ng_status ng_view_set(ng_context *ctx, const ng_view *view);

/* [owner, callback-safe] Remove a view and its subtree. Delivered live
 * touches bound to a removed view are cancelled (on_touch_cancel).
 * Returns NG_OK, NG_E_HANDLE, NG_E_NOT_FOUND, NG_E_THREAD. */
NG_API ng_status ng_view_remove(ng_context *ctx, uint64_t view_id);

/* [owner, callback-safe] Hit-test a point in window coordinates with UIKit's
 * rules; *out_view is 0 on a miss. Returns NG_OK, NG_E_HANDLE, NG_E_NULL,
 * NG_E_RANGE (NaN), NG_E_THREAD. */
NG_API ng_status ng_hit_test(ng_context *ctx, double x, double y, uint64_t *out_view);

/* [owner, callback-safe] Live touches (delivered, withheld, or cancelled and
 * awaiting their end): count, and the touch at `index` (out->size must be
 * set). Returns NG_OK, NG_E_HANDLE, NG_E_NULL, NG_E_SIZE, NG_E_NOT_FOUND
 * (index), NG_E_THREAD. */
NG_API ng_status ng_touch_count(ng_context *ctx, size_t *out_count);
NG_API ng_status ng_touch_get(ng_context *ctx, size_t index, ng_touch_info *out);

/* ------------------------------------------------------------------------ */
/* Guard chain (plugin.h defines the descriptor)                             */
/* ------------------------------------------------------------------------ */
struct ng_plugin_descriptor;

/* [owner] Append a guard to the end of the chain, created from a descriptor
 * in memory (a linked-in guard). `config_json` (may be NULL: "{}") is the
 * guard's configuration object (UTF-8 text of up to 1 MiB), read during the
 * call. The descriptor and its
 * strings must stay valid until the context is destroyed. A guard may be
 * added at any time outside a callback; it sees only what happens afterwards.
 * Returns NG_OK, NG_E_HANDLE, NG_E_NULL, NG_E_ABI (other plugin ABI major,
 * or a newer minor), NG_E_GUARD (bad descriptor, duplicate id, or create
 * failed: see ng_errmsg), NG_E_PARSE (config), NG_E_UTF8, NG_E_TOO_LONG,
 * NG_E_NO_MEMORY (NG_MAX_GUARDS), NG_E_CALLBACK, NG_E_THREAD. */
NG_API ng_status ng_chain_add(ng_context *ctx, const struct ng_plugin_descriptor *descriptor,
                              const char *config_json);

/* [owner, callback-safe] Number of guards and the id of the guard at `index`
 * (valid until the context is destroyed). Returns NG_OK, NG_E_HANDLE,
 * NG_E_NULL, NG_E_NOT_FOUND (index), NG_E_THREAD. */
NG_API ng_status ng_chain_count(ng_context *ctx, size_t *out_count);
NG_API ng_status ng_chain_get_id(ng_context *ctx, size_t index, const char **out_id);

/* ------------------------------------------------------------------------ */
/* Plugins: loading guards from shared libraries                             */
/* ------------------------------------------------------------------------ */

/* [owner] Load a guard plugin and append it to the chain. The library is
 * opened with RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE and never unloaded; its
 * exported ng_plugin_entry() gives the descriptor. `config_json` as for
 * ng_chain_add. Returns NG_OK, NG_E_HANDLE, NG_E_NULL, NG_E_UTF8,
 * NG_E_TOO_LONG, NG_E_LOAD (missing file, not a shared library, missing
 * dependency), NG_E_ENTRY (no ng_plugin_entry, or it returned NULL), NG_E_ABI
 * (other plugin ABI major, newer minor), NG_E_GUARD (bad descriptor,
 * duplicate id, create failed), NG_E_PARSE, NG_E_NO_MEMORY, NG_E_CALLBACK,
 * NG_E_THREAD. ng_errmsg names the file and the cause. */
NG_API ng_status ng_plugin_load(ng_context *ctx, const char *path, const char *config_json);

/* [owner] Build the chain from a configuration (the chain must be empty):
 *   {"guards": [ {"id": "org.navguard.transition", "config": {"mode": "queue"}},
 *                {"path": "/opt/kiosk/guards/mine.so", "config": {}} ]}
 * Guards are chained in the order listed. An entry with "id" only is a
 * built-in, loaded from the plugin directory (ng_plugin_dir) as
 * <last part of the id>.so; "path" loads any plugin (and, with "id", checks
 * that the plugin has that id). `json` NULL means the default chain
 * (ng_default_chain). All or nothing: on failure the chain stays empty.
 * Returns the statuses of ng_plugin_load, plus NG_E_PARSE (malformed
 * configuration) and NG_E_STATE (the chain is not empty). */
NG_API ng_status ng_chain_configure(ng_context *ctx, const char *json);

/* [owner] As ng_chain_configure, reading the configuration from a file.
 * Returns its statuses, plus NG_E_LOAD when the file cannot be read. */
NG_API ng_status ng_chain_configure_file(ng_context *ctx, const char *path);

/* [any-thread] The directory built-in plugins are loaded from: the
 * NAVGUARD_PLUGIN_DIR environment variable if set, else <libdir>/navguard/plugins
 * next to libnavguard.so (the install layout; the build tree has the same).
 * Static storage; never NULL (may name a directory that does not exist). */
NG_API const char *ng_plugin_dir(void);

/* [any-thread] The default chain's configuration as JSON text (static): */
#define NG_DEFAULT_CHAIN_ORDER \
    "watchdog, global-ignore, exclusive-touch, throttle, dedupe, bar-should, transition"
NG_API const char *ng_default_chain(void);

#ifdef __cplusplus
}
#endif
#endif /* NAVGUARD_H */
