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
 *  - Thread rule: a context belongs to one thread, its owner: the thread that
 *    created it, or the one that attached it after its owner detached it
 *    (ng_context_detach / ng_context_attach, for hosts that create on one
 *    thread and run on another). [owner] functions called from any other
 *    thread get NG_E_THREAD, whether the owner is busy or idle, and touch
 *    nothing (never a crash, even while the owner destroys the context).
 *    [any-thread] functions may be called from any thread at any time.
 *  - [callback-safe] functions may be called from inside a delegate callback.
 *    Requests made inside a callback are queued and evaluated after the
 *    callback returns, in order, never recursively (run to completion).
 *    The work one call sets off this way (notices to guards and callbacks,
 *    requests made inside callbacks, guard actions) is capped at NG_MAX_WORK:
 *    a guard or callback that makes new work for every notice it gets (a
 *    hold begun and ended on every hold notice) would otherwise never end.
 *    Past the cap, calls made from hooks and callbacks that would add work
 *    get NG_E_NO_MEMORY; the work already queued still runs (every request
 *    still gets its outcome); an NG_LOG_ERROR line names the guard that made
 *    most of it (NULL: the host's callbacks). Work counts to whoever set it
 *    off: what a guard does through its host table, and what that sets off
 *    in turn (its request_submit's evaluation, outcome and transition
 *    notices), is the guard's; the host's own calls, from callbacks too,
 *    are the host's. The call returns NG_E_NO_MEMORY once its own effect
 *    is done (a hold begun, a request decided: its out values are set).
 *    The context stays usable.
 *  - Structs the caller fills start with `size`: set it to sizeof(the struct)
 *    (use the NG_*_INIT macros). The library reads only the fields inside
 *    `size` (a later field outside it counts as zero) and writes only inside
 *    it; new fields are only ever added at the end. Each struct has a frozen
 *    minimum size (NG_*_MIN_SIZE, below): a smaller `size` gets NG_E_SIZE, and
 *    no minimum ever grows, so a host built with an older header keeps
 *    working. Structs the library passes out (callbacks) carry their own
 *    `size`: test that a later field is inside it before reading it.
 *  - Strings passed in are NUL-terminated UTF-8, at most NG_MAX_STRING bytes,
 *    copied by the library before the call returns (the caller keeps
 *    ownership). Strings handed out are owned by the library; each says how
 *    long it stays valid. Memory the library allocates for the caller is freed
 *    with ng_free().
 *  - Every handle is checked: NULL, destroyed and foreign handles get
 *    NG_E_HANDLE, never a crash.
 *
 * Runtime note: libnavguard.so is built with Embedded Swift: it contains no
 * Swift runtime, needs only libc and libm, and installs no signal handler
 * (except, when a context asks for crash dumps, NG_RECORD_CRASH_DUMP's,
 * chained to the handler in place, and an alternate signal stack for its
 * recording thread if that has none).
 * If the host also loads the dynamic Swift runtime (for example through a
 * Swift plugin built in ordinary Swift without -static-stdlib), that runtime
 * installs handlers for SIGILL, SIGBUS, SIGFPE, SIGTRAP and SIGABRT; set
 * SWIFT_BACKTRACE=enable=no in the environment to keep the host's own crash
 * handling.
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
/* Versions. The SONAME is libnavguard.so.<NG_VERSION_MAJOR>. These lines   */
/* are the one place the version is written: CMake reads the numbers, the   */
/* built-in guards use NG_VERSION_STRING (a test checks it equals them).    */
/* ------------------------------------------------------------------------ */
#define NG_VERSION_MAJOR 0
#define NG_VERSION_MINOR 4
#define NG_VERSION_PATCH 0
#define NG_VERSION_NUMBER (NG_VERSION_MAJOR * 1000000 + NG_VERSION_MINOR * 1000 + NG_VERSION_PATCH)
#define NG_VERSION_STRING "0.4.0"

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
#define NG_E_IO           17  /* a file could not be created, opened or written,
                                 or is not what it must be (since 0.4) */
#define NG_STATUS_COUNT   18

/* Name tables. Every enumeration below has one X-macro table, one row per
 * value: XX(constant, "name"). The library's ng_*_name functions are
 * generated from these tables (as libuv's UV_ERRNO_MAP), and C code can use
 * them too, for a switch or an array:
 *     #define XX(c, name) case c: return name;
 *     switch (phase) { NG_PHASE_MAP(XX) }
 *     #undef XX
 * A value's row is added with the value, in the same header. */
#define NG_STATUS_MAP(XX) \
    XX(NG_OK,          "success") \
    XX(NG_E_NULL,      "a required pointer is NULL") \
    XX(NG_E_HANDLE,    "NULL, destroyed or foreign context handle") \
    XX(NG_E_SIZE,      "struct size too small") \
    XX(NG_E_RANGE,     "value out of range") \
    XX(NG_E_UTF8,      "string is not valid UTF-8") \
    XX(NG_E_TOO_LONG,  "string or list too long") \
    XX(NG_E_STATE,     "not allowed in the current state") \
    XX(NG_E_NOT_FOUND, "no such item") \
    XX(NG_E_THREAD,    "context in use by another thread") \
    XX(NG_E_NO_MEMORY, "out of memory or limit reached") \
    XX(NG_E_PARSE,     "malformed text") \
    XX(NG_E_CALLBACK,  "not allowed inside a callback") \
    XX(NG_E_GUARD,     "invalid guard, duplicate id or guard creation failed") \
    XX(NG_E_LOAD,      "plugin file missing or not a loadable shared library") \
    XX(NG_E_ENTRY,     "plugin lacks the ng_plugin_entry symbol") \
    XX(NG_E_ABI,       "plugin built for an incompatible plugin ABI") \
    XX(NG_E_IO,        "file cannot be created, opened or written")

/* [any-thread] Static text naming a status ("NG_E_HANDLE: NULL, destroyed or
 * foreign context handle"). Never NULL: unknown values give "unknown status". */
NG_API const char *ng_strstatus(ng_status status);

/* Whether a size-prefixed struct `*p` of type `type` reaches `field`: test it
 * before reading a field of a struct the library passes out (callbacks)
 * that is newer than the struct's first version. */
#define NG_HAS_FIELD(p, type, field) \
    ((size_t)(p)->size >= offsetof(type, field) + sizeof(((type *)0)->field))

/* Limits. */
#define NG_MAX_STRING      1024   /* bytes, without the terminating NUL */
#define NG_MAX_STACK       4096   /* screens in one stack */
#define NG_MAX_GUARDS      32     /* guards in one chain */
#define NG_MAX_CONTEXTS    4096   /* live contexts per process */
#define NG_MAX_WORK        65536  /* notices, queued requests and guard actions
                                     one call may set off (run to completion);
                                     past it, the log names who set off most */
#define NG_SLOW_VOTE_MS    100    /* a request whose guards vote longer is
                                     logged (NG_LOG_WARN), naming the slowest */
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
#define NG_REQUEST_KIND_MAP(XX) \
    XX(NG_REQ_PUSH,             "push") \
    XX(NG_REQ_POP,              "pop") \
    XX(NG_REQ_POP_TO,           "pop-to") \
    XX(NG_REQ_POP_TO_ROOT,      "pop-to-root") \
    XX(NG_REQ_REPLACE_STACK,    "replace-stack") \
    XX(NG_REQ_BACK,             "back") \
    XX(NG_REQ_INTERACTIVE_BACK, "interactive-back")

/* Request flags. */
#define NG_REQF_ANIMATED   0x1u  /* run a transition the host (or a timer) ends */
#define NG_REQF_TIMED      0x2u  /* with ANIMATED: the core ends both tracks
                                    after `duration_ns` (0: context default) */
#define NG_REQF_TOUCH_DRIVEN 0x4u /* INTERACTIVE_BACK only: `driving_touch` names
                                    the touch that drives the gesture (0.2) */
#define NG_REQF_UNATTENDED 0x8u  /* made with nobody present (an idle timer, a
                                    remote command, a scheduled reset): a
                                    question about it that goes unanswered lets
                                    it go on instead of refusing it (0.4; what
                                    the asking guard does, e.g. confirm-leave) */

/* Immediate status / final outcome of a request. */
typedef int32_t ng_outcome_kind;
#define NG_OUTCOME_APPLIED   0  /* the stack changed (final) */
#define NG_OUTCOME_REFUSED   1  /* a guard or a rule refused it (final) */
#define NG_OUTCOME_DEFERRED  2  /* a guard holds it; later APPLIED or DROPPED */
#define NG_OUTCOME_DROPPED   3  /* a deferred or queued request ended unapplied (final) */
#define NG_OUTCOME_QUEUED    4  /* made inside a callback or posted: evaluated
                                   later; the outcome arrives by callback */
#define NG_OUTCOME_COUNT 5  /* (0.4) values run from 0 to this, one past the last */
#define NG_OUTCOME_MAP(XX) \
    XX(NG_OUTCOME_APPLIED,  "applied") \
    XX(NG_OUTCOME_REFUSED,  "refused") \
    XX(NG_OUTCOME_DEFERRED, "deferred") \
    XX(NG_OUTCOME_DROPPED,  "dropped") \
    XX(NG_OUTCOME_QUEUED,   "queued")

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
/* Since 0.3: */
#define NG_REASON_STALE      16  /* the request's `from_screen` is no longer the
                                    top when it would apply (a reply for a screen
                                    the user has left), or the stack changed while
                                    the host was asked about it (see "Questions
                                    to the host") */
#define NG_REASON_DECLINED   17  /* the host answered no to a question about it
                                    (before 0.4 also: did not answer in time) */
#define NG_REASON_ASKING     18  /* the host is being asked first (a question is
                                    open; a swipe does not start while it is) */
/* Since 0.4: */
#define NG_REASON_UNANSWERED 19  /* the host was asked about it and nobody
                                    answered in time (NG_ANSWER_TIMEOUT): a
                                    person's request stays unapplied; an
                                    NG_REQF_UNATTENDED one may go on instead
                                    (the asker's rule, e.g. confirm-leave) */
#define NG_REASON_COUNT      20
#define NG_REASON_MAP(XX) \
    XX(NG_REASON_NONE,        "none") \
    XX(NG_REASON_BUSY,        "busy") \
    XX(NG_REASON_DUPLICATE,   "duplicate") \
    XX(NG_REASON_THROTTLED,   "throttled") \
    XX(NG_REASON_IGNORING,    "ignoring") \
    XX(NG_REASON_AT_ROOT,     "at-root") \
    XX(NG_REASON_NOT_FOUND,   "not-found") \
    XX(NG_REASON_INVALID,     "invalid") \
    XX(NG_REASON_SUPERSEDED,  "superseded") \
    XX(NG_REASON_QUEUE_FULL,  "queue-full") \
    XX(NG_REASON_DESTROYED,   "destroyed") \
    XX(NG_REASON_POLICY,      "policy") \
    XX(NG_REASON_EXCLUSIVE,   "exclusive") \
    XX(NG_REASON_MULTI_TOUCH, "multi-touch") \
    XX(NG_REASON_WITHHELD,    "withheld") \
    XX(NG_REASON_CANCELLED,   "cancelled") \
    XX(NG_REASON_STALE,       "stale") \
    XX(NG_REASON_DECLINED,    "declined") \
    XX(NG_REASON_ASKING,      "asking") \
    XX(NG_REASON_UNANSWERED,  "unanswered")
/* ng_request_kind_name, ng_reason_name, ng_outcome_name and the other name
 * functions are declared with the name tables' section, below. */

/* Transition tracks and phases. */
typedef int32_t ng_track;
#define NG_TRACK_SCREEN  0
#define NG_TRACK_BAR     1
#define NG_TRACK_ALL     2   /* only as an argument of ng_transition_finish */
#define NG_TRACK_COUNT 3  /* (0.4) values run from 0 to this, one past the last */
#define NG_TRACK_MAP(XX) \
    XX(NG_TRACK_SCREEN, "screen") \
    XX(NG_TRACK_BAR,    "bar") \
    XX(NG_TRACK_ALL,    "all")

typedef int32_t ng_phase;
#define NG_PHASE_WILL       0  /* screen: will-show; bar: bar-will (push/pop item) */
#define NG_PHASE_DID        1  /* screen: did-show;  bar: bar-did */
#define NG_PHASE_CANCELLED  2  /* interactive back cancelled: no DID follows */
#define NG_PHASE_COUNT 3  /* (0.4) values run from 0 to this, one past the last */
#define NG_PHASE_MAP(XX) \
    XX(NG_PHASE_WILL,      "will") \
    XX(NG_PHASE_DID,       "did") \
    XX(NG_PHASE_CANCELLED, "cancelled")

/* Transition event flags. */
#define NG_TRANSF_ANIMATED     0x1u
#define NG_TRANSF_INTERACTIVE  0x2u
#define NG_TRANSF_INTERRUPTED  0x4u  /* ended early because a newer request was
                                        applied while it was in flight */
#define NG_TRANSF_FORCED       0x8u  /* ended by a guard (watchdog recovery) */
#define NG_TRANSF_TOUCH_DRIVEN 0x10u /* interactive back driven by a touch
                                        (NG_REQF_TOUCH_DRIVEN) */
#define NG_TRANSF_DESTROYED    0x20u /* ended by ng_context_destroy (0.3) */

/* The state of an interactive (swipe) back in flight (ng_track_info.swipe).
 * A swipe begins DRIVEN (its request named a live touch) or UNDRIVEN. The
 * host releases it once (ng_interactive_release: FINISHING or CANCELLING),
 * animates the settle, then completes it (ng_interactive_complete). */
typedef int32_t ng_swipe_state;
#define NG_SWIPE_NONE        0  /* the track is not an interactive back */
#define NG_SWIPE_DRIVEN      1  /* not released; its driving touch is live */
#define NG_SWIPE_UNDRIVEN    2  /* not released; no live driving touch (none
                                   was named, or it ended or was cancelled) */
#define NG_SWIPE_FINISHING   3  /* released to finish: settling to the pop */
#define NG_SWIPE_CANCELLING  4  /* released to cancel: settling back */
#define NG_SWIPE_STATE_COUNT 5  /* (0.4) values run from 0 to this, one past the last */
#define NG_SWIPE_STATE_MAP(XX) \
    XX(NG_SWIPE_NONE,       "none") \
    XX(NG_SWIPE_DRIVEN,     "driven") \
    XX(NG_SWIPE_UNDRIVEN,   "undriven") \
    XX(NG_SWIPE_FINISHING,  "finishing") \
    XX(NG_SWIPE_CANCELLING, "cancelling")

/* Clock kinds. */
typedef int32_t ng_clock_kind;
#define NG_CLOCK_MONOTONIC  0  /* CLOCK_MONOTONIC, nanoseconds */
#define NG_CLOCK_MANUAL     1  /* the host sets time: tests, replay */
#define NG_CLOCK_KIND_MAP(XX) \
    XX(NG_CLOCK_MONOTONIC, "monotonic") \
    XX(NG_CLOCK_MANUAL,    "manual")

/* Hold end reasons. */
typedef int32_t ng_hold_end_reason;
#define NG_HOLD_ENDED      0  /* ng_hold_end */
#define NG_HOLD_EXPIRED    1  /* its max duration passed */
#define NG_HOLD_RELEASED   2  /* released by a guard (watchdog) or at destroy */
#define NG_HOLD_END_REASON_COUNT 3  /* (0.4) values run from 0 to this, one past the last */
#define NG_HOLD_END_REASON_MAP(XX) \
    XX(NG_HOLD_ENDED,    "ended") \
    XX(NG_HOLD_EXPIRED,  "expired") \
    XX(NG_HOLD_RELEASED, "released")

/* Log severities (delegate on_log; plugin.h host log). */
typedef int32_t ng_severity;
#define NG_LOG_DEBUG  0
#define NG_LOG_INFO   1
#define NG_LOG_WARN   2
#define NG_LOG_ERROR  3
#define NG_SEVERITY_COUNT 4  /* (0.4) values run from 0 to this, one past the last */
#define NG_SEVERITY_MAP(XX) \
    XX(NG_LOG_DEBUG, "debug") \
    XX(NG_LOG_INFO,  "info") \
    XX(NG_LOG_WARN,  "warn") \
    XX(NG_LOG_ERROR, "error")

/* Input event types, and masks built from them (NG_MASK(type)). */
typedef int32_t ng_event_type;
#define NG_EVENT_TOUCH    0
#define NG_EVENT_MOTION   1  /* shake / accelerometer */
#define NG_EVENT_REMOTE   2  /* remote control */
#define NG_EVENT_KEY      3  /* key / press */
#define NG_EVENT_SCROLL   4
#define NG_EVENT_HOVER    5
#define NG_EVENT_TYPE_COUNT 6
#define NG_EVENT_TYPE_MAP(XX) \
    XX(NG_EVENT_TOUCH,  "touch") \
    XX(NG_EVENT_MOTION, "motion") \
    XX(NG_EVENT_REMOTE, "remote") \
    XX(NG_EVENT_KEY,    "key") \
    XX(NG_EVENT_SCROLL, "scroll") \
    XX(NG_EVENT_HOVER,  "hover")
#define NG_MASK(type)     (1u << (type))
#define NG_MASK_TOUCH     0x01u
#define NG_MASK_MOTION    0x02u
#define NG_MASK_REMOTE    0x04u
#define NG_MASK_KEY       0x08u
#define NG_MASK_SCROLL    0x10u
#define NG_MASK_HOVER     0x20u
#define NG_MASK_ALL       0x3Fu
#define NG_MASK_DEFAULT   0x03u   /* touches + motion: what acts on a half-built screen */

/* ------------------------------------------------------------------------ */
/* Handles and records                                                       */
/* ------------------------------------------------------------------------ */
typedef struct ng_context ng_context;
typedef struct ng_touch_info ng_touch_info;
typedef struct ng_press_info ng_press_info;

/* A screen as given by the host. `route` is required; `identity` (for
 * dedupe) may be NULL, which means "the route". */

/* Screen flags (ng_request.screen_flags at push, ng_screen_set_flags later;
 * read back in ng_screen_info.flags). Since 0.3. */
#define NG_SCREENF_CONFIRM_LEAVE  0x1u   /* ask the host before any request
                                            removes this screen (the
                                            confirm-leave guard: a question,
                                            see "Questions to the host") */
#define NG_SCREENF_KNOWN          0x1u   /* the flags NavGuard defines */
#define NG_SCREENF_USER_MASK      0xFFFF0000u /* free for the host and its own
                                            guards; NavGuard never reads them */
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
    /* Since 0.2 (read only when `size` covers it): */
    uint64_t driving_touch;   /* with NG_REQF_TOUCH_DRIVEN: the touch id (of
                                 ng_event) whose finger drives the swipe. It
                                 must be live and delivered when the request is
                                 evaluated (else REFUSED, NG_REASON_INVALID).
                                 While the back is in flight that touch is
                                 exempt from holds: its moves are delivered, and
                                 only its own end or cancel, an explicit
                                 cancel of that id by a guard (the watchdog's
                                 idle limit for a driving touch) or
                                 ng_context_destroy ends it. Every other touch
                                 is blocked as usual. */
    /* Since 0.3 (read only when `size` covers it): */
    uint64_t from_screen;     /* the screen id the request was issued from (a
                                 network reply, a timer, a deep link), or 0 for
                                 no scope. When the request would apply (at
                                 once, after a deferral, or posted) and that
                                 screen is not the top, it is REFUSED (DROPPED
                                 when a guard had deferred it) with
                                 NG_REASON_STALE: a reply never lands on a
                                 screen the user has left. While a swipe back
                                 is in flight (any NG_SWIPE_* state), a
                                 request whose `from_screen` is either end of
                                 it (the screen swiped away, or the target)
                                 waits (DEFERRED, no guard) and is judged when
                                 the swipe completes, by whatever completes
                                 it: applied (through the guards) if that
                                 screen is the top it settled to, else
                                 DROPPED NG_REASON_STALE (NG_REASON_DESTROYED
                                 by ng_context_destroy). Any other screen is
                                 stale at once. */
    uint32_t screen_flags;    /* PUSH: the pushed screen's NG_SCREENF_* flags */
    /* Since 0.4 (read only when `size` covers it; else 0): */
    uint64_t device;          /* the input device that made the request (a
                                 controller: the touch_id of its presses), or
                                 0 for none (a timer, the network, a touch
                                 host). NavGuard only carries it to the guards
                                 (org.navguard.device-owner). */
} ng_request;
#define NG_REQUEST_INIT(k) { sizeof(ng_request), (k), 0u, 0u, { 0u, NULL, NULL }, 0u, NULL, 0u, 0, 0u, 0u, 0u, 0u }

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

/* A transition phase on one track. Phases are delivered after the call that
 * caused them changed the stack (run to completion), so the stack a host
 * reads during a callback is the newest one. In particular a DID marked
 * NG_TRANSF_INTERRUPTED arrives while the interrupting request is being
 * applied: the stack then already shows that request's change; `to_id` and
 * `depth` describe the stack the interrupted transition completed. */
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
    /* Since 0.3 (test NG_HAS_FIELD before reading): */
    uint32_t depth;           /* screens on the stack this transition shows
                                 (WILL, DID) or restores (CANCELLED) */
    /* Since 0.4 (test NG_HAS_FIELD before reading): */
    uint64_t focus_token;     /* the focus token of `to_id` (ng_screen_set_focus)
                                 as the stack holds it when the phase is
                                 delivered; 0 when none was set or `to_id` is
                                 not stacked. A screen that becomes the top
                                 again (a pop, a pop-to, a swipe back rolled
                                 back: CANCELLED) hands back the token it had
                                 when it was covered, so the host restores
                                 focus without a table of its own. A pushed
                                 or replaced screen is new: 0. */
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
    /* Since 0.3 (test NG_HAS_FIELD before reading): */
    const char *owner_id;     /* the guard that began it, NULL for the host;
                                 valid until the context is destroyed */
} ng_hold_info;

/* ------------------------------------------------------------------------ */
/* Questions to the host (0.3)                                               */
/* ------------------------------------------------------------------------ */
/* A guard may hold a request and ask the host first: "Leave Checkout?" before
 * any path removes a screen marked NG_SCREENF_CONFIRM_LEAVE (the built-in
 * confirm-leave guard), a PIN before an admin screen (a guard of the host's
 * own). The host is asked through on_question, shows its dialog and answers
 * later with ng_question_answer, from its own code, any time. One question
 * is open per context at a time. Every question ends exactly once, through
 * on_question_end: with the host's answer (YES, NO), TIMEOUT when the
 * asker's time limit passed first (ng_question.deadline_ns: a dialog can
 * count down to it; what becomes of the held request is the asker's rule:
 * confirm-leave drops a person's, NG_REASON_UNANSWERED, and lets an
 * NG_REQF_UNATTENDED one go on), or
 * WITHDRAWN (the asker withdrew it, the stack changed, or the context is
 * being destroyed). The host closes its dialog there.
 *
 * The stack the host was asked about is the stack the answer applies to. A
 * question that names a request or a screen (ng_question.request_id or
 * screen_id not 0) is withdrawn as soon as the stack's screens change by
 * anything but its own answer: ng_stack_restore, a request applied while it
 * is open (a replace-stack, a push or pop another guard let through), a
 * swipe rolled back. A change of flags (ng_screen_set_flags) is none. The
 * request it held is then DROPPED, NG_REASON_STALE. Both come inside the
 * call that changed the stack, each exactly once: on_question_end
 * (WITHDRAWN) first, then that request's on_outcome. A late
 * ng_question_answer gets NG_E_NOT_FOUND and changes nothing. */
typedef int32_t ng_answer;
#define NG_ANSWER_YES        0  /* the host said yes: the held request goes on */
#define NG_ANSWER_NO         1  /* the host said no: the held request is refused */
#define NG_ANSWER_TIMEOUT    2  /* no answer within the question's time limit */
#define NG_ANSWER_WITHDRAWN  3  /* the asker withdrew it, the stack changed,
                                    or destroy */
#define NG_ANSWER_COUNT 4  /* (0.4) values run from 0 to this, one past the last */
#define NG_ANSWER_MAP(XX) \
    XX(NG_ANSWER_YES,       "yes") \
    XX(NG_ANSWER_NO,        "no") \
    XX(NG_ANSWER_TIMEOUT,   "timeout") \
    XX(NG_ANSWER_WITHDRAWN, "withdrawn")

/* A question, as the host sees it (on_question, on_question_end,
 * ng_question_get). Strings are valid until the question ends (copy them to
 * keep them). */
typedef struct ng_question {
    uint32_t size;
    uint64_t question_id;     /* never 0, never reused within a context */
    const char *topic;        /* what is asked, a reverse-DNS id chosen by the
                                 asker ("org.navguard.confirm-leave") */
    const char *text;         /* a prompt the host may show ("Leave
                                 checkout?"), or NULL */
    const char *guard_id;     /* the asking guard */
    uint64_t request_id;      /* the request it concerns (held, or refused
                                 while asking), or 0 */
    ng_request_kind kind;     /* that request's kind */
    uint32_t source;          /* that request's source (the host's button,
                                 timer, network...), so the dialog can say why */
    uint64_t screen_id;       /* the screen it concerns, or 0 */
    int64_t asked_ns;
    int64_t deadline_ns;      /* when it times out, or NG_NO_DEADLINE */
} ng_question;
#define NG_QUESTION_INIT { sizeof(ng_question), 0u, NULL, NULL, NULL, 0u, 0, 0u, 0u, 0, 0 }

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
    /* A guard posted a report (e.g. the watchdog). Text valid during the call.
     * The library may add lines at its end: the slow votes since the last
     * report (NG_SLOW_VOTE_MS), where the flight recording is. */
    void (*on_report)(void *user, ng_context *ctx, const char *guard_id, const char *text);
    /* A guard or the core logged a message; severity is NG_LOG_* (an
     * ng_severity). Text valid during the call. */
    void (*on_log)(void *user, ng_context *ctx, int32_t severity, const char *guard_id,
                   const char *message);
    /* A delivered, still-live touch was cancelled by NavGuard (input became
     * blocked, its view was removed, a guard such as the watchdog cancelled
     * it, or the context is being destroyed). Deliver a cancel to
     * touch->view_id; later phases of this touch are dropped. Exactly once
     * per touch, and never after its ended/cancelled was delivered. */
    void (*on_touch_cancel)(void *user, ng_context *ctx, const ng_touch_info *touch);

    /* --- Since 0.3 (a delegate filled by an older header leaves them out:
     * its `size` says so) --- */
    /* A guard asks the host a question (see "Questions to the host"). Show a
     * dialog and answer later with ng_question_answer; you may also answer
     * from inside this callback. */
    void (*on_question)(void *user, ng_context *ctx, const ng_question *question);
    /* A question ended, exactly once per question: `answer` is the host's
     * (YES, NO), TIMEOUT or WITHDRAWN. Close the dialog. */
    void (*on_question_end)(void *user, ng_context *ctx, const ng_question *question,
                            ng_answer answer);
    /* [any-thread] Called on the POSTING thread (the only callback that is):
     * ng_request_post (or a guard's wake) left work for the owner thread,
     * and the owner has not been woken for it yet (one call per burst of
     * posts between two of the owner's ng_tick). Wake the owner's loop (a
     * queued call in Qt, an SDL user event, uv_async_send) so that it calls
     * ng_tick; call no other NavGuard function from here. */
    void (*on_wake)(void *user, ng_context *ctx);
    /* The earliest time ng_tick has work changed (libcurl's timer callback):
     * arm one timer for `deadline_ns` (ng_now's clock; NG_NO_DEADLINE:
     * disarm it) and call ng_tick when it fires; there is no need to read
     * ng_next_deadline after each call. Called on the owner thread at the
     * end of a call that changed state (not after continuous input: moved
     * touches, hover, scroll and motion events, which make no deadline
     * earlier). The time may be earlier than the work needs (a tick then
     * finds nothing due and the next deadline follows); it is never later. */
    void (*on_deadline)(void *user, ng_context *ctx, int64_t deadline_ns);

    /* --- Since 0.4 --- */
    /* A delivered key or button press, still held, was cancelled by NavGuard
     * (a transition started, a hold began, its device was removed, its
     * release was lost, or the context is being destroyed; press->cause says
     * which). Forget the press: un-highlight, and do not act on its release.
     * Its later repeats and its up are dropped (NG_REASON_CANCELLED) anyway,
     * so a host without this callback (an older delegate) acts on nothing it
     * should not; this one lets it undo what the down started. Exactly once
     * per press, and never after its up was delivered. See "Presses". */
    void (*on_press_cancel)(void *user, ng_context *ctx, const ng_press_info *press);
} ng_delegate;

/* Context options. Zero-filled fields take defaults. */
typedef struct ng_options {
    uint32_t size;
    ng_clock_kind clock;              /* NG_CLOCK_MONOTONIC (default) or MANUAL */
    int64_t manual_start_ns;          /* MANUAL: initial time (>= 0) */
    int64_t default_duration_ns;      /* TIMED transitions; 0 -> 350 ms */
    ng_delegate delegate;
} ng_options;
#define NG_OPTIONS_INIT { sizeof(ng_options), NG_CLOCK_MONOTONIC, 0, 0, \
    { sizeof(ng_delegate), NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL } }

/* A screen read back from the stack. Strings stay valid until the stack
 * changes or the context is destroyed. */
typedef struct ng_screen_info {
    uint32_t size;
    uint64_t id;
    const char *route;
    const char *identity;
    /* Since 0.3; written only when `size` covers it: */
    uint32_t flags;           /* NG_SCREENF_* */
    /* Since 0.4; written only when `size` covers it: */
    uint64_t focus_token;     /* ng_screen_set_focus's token, 0 when none */
} ng_screen_info;
#define NG_SCREEN_INFO_INIT { sizeof(ng_screen_info), 0u, NULL, NULL, 0u, 0u }

/* Touch phases (ng_event.phase for NG_EVENT_TOUCH). */
#define NG_TOUCH_BEGAN      0
#define NG_TOUCH_MOVED      1
#define NG_TOUCH_ENDED      2
#define NG_TOUCH_CANCELLED  3
#define NG_TOUCH_PHASE_COUNT 4  /* (0.4) values run from 0 to this, one past the last */
#define NG_TOUCH_PHASE_MAP(XX) \
    XX(NG_TOUCH_BEGAN,     "began") \
    XX(NG_TOUCH_MOVED,     "moved") \
    XX(NG_TOUCH_ENDED,     "ended") \
    XX(NG_TOUCH_CANCELLED, "cancelled")

/* Key and remote-button phases (ng_event.phase for NG_EVENT_KEY and
 * NG_EVENT_REMOTE; code is the host's key code, or for a game controller its
 * NG_BUTTON_*; touch_id is the device). Since 0.3; DEVICE_REMOVED since 0.4.
 * See "Presses" below for the life NavGuard gives them. */
#define NG_KEY_DOWN    0
#define NG_KEY_UP      1
#define NG_KEY_REPEAT  2   /* auto-repeat of a key held down */
#define NG_KEY_DEVICE_REMOVED 3 /* device `touch_id` of this event's type is
                                   gone: its held presses end (ng_device_removed).
                                   No guard votes on it and no hold blocks it;
                                   its verdict is DELIVER, target 0 */
#define NG_KEY_PHASE_MAP(XX) \
    XX(NG_KEY_DOWN,   "down") \
    XX(NG_KEY_UP,     "up") \
    XX(NG_KEY_REPEAT, "repeat") \
    XX(NG_KEY_DEVICE_REMOVED, "device-removed")

/* Standard game-controller buttons (ng_event.code of NG_EVENT_REMOTE), in
 * SDL's positional layout: the values are SDL_GameControllerButton's, so the
 * SDL2 adapter's `code` is already one. A is the bottom face button (Cross on
 * a PlayStation pad, B on a Nintendo one), B the right, X the left, Y the top.
 * Since 0.4. ng_button_name gives "A", "B", "dpad-up"... */
#define NG_BUTTON_A               0
#define NG_BUTTON_B               1
#define NG_BUTTON_X               2
#define NG_BUTTON_Y               3
#define NG_BUTTON_BACK            4   /* Select, View, Share */
#define NG_BUTTON_GUIDE           5   /* Home, PS, Xbox */
#define NG_BUTTON_START           6   /* Start, Menu, Options */
#define NG_BUTTON_LEFT_STICK      7   /* the left stick pressed in */
#define NG_BUTTON_RIGHT_STICK     8
#define NG_BUTTON_LEFT_SHOULDER   9
#define NG_BUTTON_RIGHT_SHOULDER  10
#define NG_BUTTON_DPAD_UP         11
#define NG_BUTTON_DPAD_DOWN       12
#define NG_BUTTON_DPAD_LEFT       13
#define NG_BUTTON_DPAD_RIGHT      14
#define NG_BUTTON_MAP(XX) \
    XX(NG_BUTTON_A,              "A") \
    XX(NG_BUTTON_B,              "B") \
    XX(NG_BUTTON_X,              "X") \
    XX(NG_BUTTON_Y,              "Y") \
    XX(NG_BUTTON_BACK,           "back") \
    XX(NG_BUTTON_GUIDE,          "guide") \
    XX(NG_BUTTON_START,          "start") \
    XX(NG_BUTTON_LEFT_STICK,     "left-stick") \
    XX(NG_BUTTON_RIGHT_STICK,    "right-stick") \
    XX(NG_BUTTON_LEFT_SHOULDER,  "left-shoulder") \
    XX(NG_BUTTON_RIGHT_SHOULDER, "right-shoulder") \
    XX(NG_BUTTON_DPAD_UP,        "dpad-up") \
    XX(NG_BUTTON_DPAD_DOWN,      "dpad-down") \
    XX(NG_BUTTON_DPAD_LEFT,      "dpad-left") \
    XX(NG_BUTTON_DPAD_RIGHT,     "dpad-right")

/* Event flags. */
#define NG_EVF_HAS_TARGET   0x1u  /* the host hit-tested: `target_view` is set */

/* A live touch (delegate on_touch_cancel; plugin.h touch_get).
 *
 * A touch lives from its began until its ended or cancelled arrives, or until
 * NavGuard ends it. Two rules keep a touch id from ever staying blocked when
 * a toolkit loses an end (a grab lost by X11, a window hidden mid-press; the
 * mouse and reused finger ids 0, 1, ... hit this at once):
 *  - a began whose id belongs to a live touch means that touch's end was
 *    lost: the old touch ends first (on_touch_cancel when it was delivered),
 *    then the began is evaluated as a new touch;
 *  - a touch NavGuard cancels (on_touch_cancel) is retired at once: it is no
 *    longer live and its id is free. Its later phases, if the host still
 *    sends them, are dropped (NG_REASON_CANCELLED) while NavGuard remembers
 *    it (the last 16 retired touches), NG_REASON_INVALID after that.
 * At most 64 touches are live; a began beyond that ends the touch that has
 * been idle longest first, as a lost end.
 *
 * A finger resting on a button is not a fault. A touch that is still (no
 * event since its last_ns) is in the way only when it blocks something:
 *  - another touch is refused because of it: a began dropped
 *    NG_REASON_EXCLUSIVE while it is live on another view, or
 *    NG_REASON_MULTI_TOUCH while it is live on the same view (in_way_ns
 *    records the latest such refusal);
 *  - a transition waits on it: it drives a swipe back (NG_SWIPE_DRIVEN),
 *    which holds the stack, and any request waiting for the swipe.
 * The watchdog (org.navguard.watchdog) acts on these and on nothing else: a
 * touch still for touch_limit_ms that has been in the way since it came to
 * rest (in_way_ns >= last_ns) is cancelled, at once when it gets in the way
 * later than that; the touch driving a swipe is cancelled, and the swipe
 * rolled back, after drive_limit_ms still. A still touch that blocks nothing
 * is left alone and nothing is reported: it ends with its own end, a new
 * began on its id, or the oldest-first rule above. (resting_touch_limit_ms,
 * off by default, cancels any still touch: see docs/guards.md.) */
struct ng_touch_info {
    uint32_t size;
    int32_t state;            /* NG_TOUCH_STATE_* */
    uint64_t touch_id;
    uint64_t view_id;         /* the view it is bound to since began (0: none) */
    int64_t began_ns;
    /* Since 0.3; written only when `size` covers it: */
    int64_t last_ns;          /* its latest event (began or moved): a touch
                                 that moves is alive; the watchdog's idle
                                 limits count from here. A moved event reads
                                 no clock: it is dated by NavGuard's next
                                 reading (never before the move; at once on
                                 a manual clock) */
    /* Since 0.4 (plugin ABI 1.3); written only when `size` covers it: */
    int64_t in_way_ns;        /* the latest began refused because of it
                                 (NG_REASON_EXCLUSIVE from another view,
                                 NG_REASON_MULTI_TOUCH on its own view), by
                                 any guard; 0: never (a refusal at instant 0
                                 of a manual clock reads 1) */
};
#define NG_TOUCH_STATE_DELIVERED  0  /* began was delivered; still live */
#define NG_TOUCH_STATE_WITHHELD   1  /* began was dropped; later phases dropped */
#define NG_TOUCH_STATE_CANCELLED  2  /* cancelled by NavGuard (on_touch_cancel's
                                        touch): retired, no longer live */
#define NG_TOUCH_STATE_COUNT 3  /* (0.4) values run from 0 to this, one past the last */
#define NG_TOUCH_STATE_MAP(XX) \
    XX(NG_TOUCH_STATE_DELIVERED, "delivered") \
    XX(NG_TOUCH_STATE_WITHHELD,  "withheld") \
    XX(NG_TOUCH_STATE_CANCELLED, "cancelled")
#define NG_TOUCH_INFO_INIT { sizeof(ng_touch_info), 0, 0u, 0u, 0, 0, 0 }

/* Presses (since 0.4). A key or controller button held down is a press, as
 * a finger is a touch: NG_EVENT_KEY and NG_EVENT_REMOTE events with the
 * NG_KEY_* phases, one press per (type, device = touch_id, code). The rules:
 *  - A press gets exactly one end: its up, or one cancel (on_press_cancel).
 *    The up of a delivered press is delivered whatever the votes and holds
 *    (as a touch's end), to the down's target_view.
 *  - A down on a (type, device, code) still down means its up was lost: the
 *    old press ends first (on_press_cancel, cause NG_PRESS_LOST, when it was
 *    delivered), then the down is evaluated as a new press.
 *  - A down dropped (by a hold or a guard) makes a withheld press: its
 *    repeats and up are dropped (NG_REASON_WITHHELD). The host never saw it
 *    begin, so it never sees it end.
 *  - When a transition starts (any applied request that changes the top
 *    screen, animated or not), every delivered press is cancelled (cause
 *    NG_PRESS_TRANSITION): it went down on the old screen, so its release
 *    must not act on the new one. A press cancelled this way, or any other,
 *    stays known until its up: its repeats and its up are dropped
 *    (NG_REASON_CANCELLED). So a key held through a transition repeats
 *    nothing on the new screen until it is pressed again (a new down).
 *  - A hold whose mask has NG_MASK_KEY (NG_MASK_REMOTE) drops key (remote)
 *    downs as it drops touches' begans (NG_REASON_IGNORING: withheld
 *    presses), and cancels the delivered key (remote) presses when it begins
 *    (cause NG_PRESS_HOLD).
 *  - A device that is gone (a controller unplugged) ends its presses:
 *    ng_device_removed (or an event with phase NG_KEY_DEVICE_REMOVED) cancels
 *    its delivered presses (cause NG_PRESS_DEVICE_REMOVED) and forgets the
 *    rest.
 *  - A down whose own evaluation starts a transition (a guard's request)
 *    is dropped (NG_REASON_CANCELLED), with no on_press_cancel: the host
 *    never saw it.
 *  - ng_context_destroy cancels delivered presses (NG_PRESS_DESTROYED).
 *  - An up or repeat NavGuard knows no press for (the key was down before
 *    the context existed, or its press was pushed out, below) is voted and
 *    delivered as any event, as before 0.4.
 * At most 64 presses are known at once, in a table the context owns (no
 * allocation per press). A down beyond that first ends the oldest press that
 * is not delivered (withheld or cancelled: forgotten, its later up then
 * passes as unknown), else the oldest delivered one, as a lost up. Other
 * phases of NG_EVENT_KEY and NG_EVENT_REMOTE are no press: voted and
 * delivered as before. */
struct ng_press_info {
    uint32_t size;
    ng_event_type type;       /* NG_EVENT_KEY or NG_EVENT_REMOTE */
    uint64_t device;          /* the down's touch_id */
    int64_t code;             /* the down's code (NG_BUTTON_* for a controller) */
    uint64_t view_id;         /* the down's target_view (0: none) */
    uint64_t screen_id;       /* the top screen when it went down (0: none) */
    int64_t down_ns;          /* when its down was submitted (ng_now) */
    int32_t cause;            /* NG_PRESS_*: why NavGuard ended it */
};
#define NG_PRESS_LOST            0  /* a new down for it: its up was lost
                                       (or more than 64 presses) */
#define NG_PRESS_TRANSITION      1  /* a transition started while it was held */
#define NG_PRESS_HOLD            2  /* a hold blocking its type began */
#define NG_PRESS_DEVICE_REMOVED  3  /* ng_device_removed */
#define NG_PRESS_DESTROYED       4  /* ng_context_destroy */
#define NG_PRESS_CAUSE_MAP(XX) \
    XX(NG_PRESS_LOST,           "lost") \
    XX(NG_PRESS_TRANSITION,     "transition") \
    XX(NG_PRESS_HOLD,           "hold") \
    XX(NG_PRESS_DEVICE_REMOVED, "device-removed") \
    XX(NG_PRESS_DESTROYED,      "destroyed")
#define NG_PRESS_INFO_INIT { sizeof(ng_press_info), 0, 0u, 0, 0u, 0u, 0, 0 }

/* A transition track in flight (ng_track_get; plugin.h track_get). */
typedef struct ng_track_info {
    uint32_t size;
    uint64_t request_id;
    ng_request_kind kind;
    uint32_t flags;            /* NG_TRANSF_* */
    int64_t began_ns;
    int64_t deadline_ns;       /* timed: when the core ends it; else NG_NO_DEADLINE */
    double progress;           /* interactive back progress, 0..1 */
    /* Since 0.2 (plugin ABI 1.1); written only when `size` covers them: */
    uint64_t driving_touch;    /* with NG_TRANSF_TOUCH_DRIVEN: the touch named
                                  by the request (live only while DRIVEN, or
                                  released before it ended) */
    int64_t swipe_since_ns;    /* when the swipe entered its state: its begin
                                  (DRIVEN, UNDRIVEN with no touch named), the
                                  driving touch's end (UNDRIVEN) or the release
                                  (FINISHING, CANCELLING) */
    ng_swipe_state swipe;      /* NG_SWIPE_* */
} ng_track_info;
#define NG_TRACK_INFO_INIT { sizeof(ng_track_info), 0u, 0, 0u, 0, 0, 0.0, 0u, 0, 0 }

/* A live hold (ng_hold_get; plugin.h hold_get). */
typedef struct ng_hold_view {
    uint32_t size;
    uint64_t token;
    const char *label;         /* NULL if none; valid until the hold ends */
    uint32_t mask;
    int64_t began_ns;
    int64_t deadline_ns;       /* NG_NO_DEADLINE when unlimited */
    /* Since 0.3 (plugin ABI 1.2); written only when `size` covers them: */
    const char *owner_id;      /* the guard that began it, NULL for the host;
                                  valid until the context is destroyed */
    uint64_t transition_id;    /* the request id of the transition it is tied
                                  to (it ends with that transition; plugin.h
                                  hold_begin_transition), or 0 */
} ng_hold_view;
#define NG_HOLD_VIEW_INIT { sizeof(ng_hold_view), 0u, NULL, 0u, 0, 0, NULL, 0u }

/* An input event (64 bytes). */
typedef struct ng_event {
    uint32_t size;
    ng_event_type type;
    int32_t phase;            /* touch: NG_TOUCH_*; key, remote: NG_KEY_*;
                                 others: host-defined subtype */
    uint32_t flags;           /* NG_EVF_* */
    uint64_t touch_id;        /* touch: the finger; others: 0 or a device id
                                 (a key's or button's press is per device) */
    int64_t timestamp_ns;     /* when it happened, on the context's clock
                                 (ng_now), or 0: not known. Passed to guards
                                 and traces; NavGuard's own timing uses
                                 ng_now. Negative: NG_E_RANGE. A time earlier
                                 than the previous event's is raised to it
                                 (clocks of two input sources may disagree):
                                 guards never see time go backwards. */
    double x, y;              /* touch/hover: point in root coordinates;
                                 scroll: delta */
    uint64_t target_view;     /* with NG_EVF_HAS_TARGET */
    int64_t code;             /* key code, remote button, motion kind */
} ng_event;

/* ------------------------------------------------------------------------ */
/* Context                                                                   */
/* ------------------------------------------------------------------------ */

/* [any-thread] Create a context. `options` may be NULL (all defaults); it is
 * read during the call only. The calling thread becomes its owner.
 * Returns NG_OK, NG_E_NULL (out), NG_E_SIZE, NG_E_RANGE (clock kind,
 * negative time or duration), NG_E_NO_MEMORY (NG_MAX_CONTEXTS reached). */
NG_API ng_status ng_context_create(const ng_options *options, ng_context **out);

/* [owner] Destroy a context. Posting to it fails from the start of the call
 * (NG_E_HANDLE). Before this returns, everything still open gets its end: a
 * transition in flight ends marked NG_TRANSF_DESTROYED (every WILL gets its
 * DID, or CANCELLED for a swipe back not released to finish, which rolls
 * back); an open question ends (on_question_end, NG_ANSWER_WITHDRAWN); every
 * request still deferred, queued or posted gets its on_outcome (DROPPED,
 * NG_REASON_DESTROYED); live holds end (on_hold_end, NG_HOLD_RELEASED) and
 * delivered live touches are cancelled (on_touch_cancel). Then guards are
 * destroyed in reverse chain order. The handle stays
 * valid for the owner's callbacks meanwhile ([callback-safe] reads work);
 * requests they make are dropped too, holds they begin are refused
 * (NG_E_STATE) and touches they begin are dropped (NG_REASON_IGNORING).
 * NULL is a no-op (NG_OK). Returns NG_OK,
 * NG_E_HANDLE, NG_E_THREAD, NG_E_CALLBACK (called from one of its own
 * callbacks). The handle is invalid afterwards (later use: NG_E_HANDLE). */
NG_API ng_status ng_context_destroy(ng_context *ctx);

/* [owner] Give the context up: from now on no thread owns it, and every
 * [owner] function gets NG_E_THREAD until a thread calls ng_context_attach.
 * Posting keeps working. Returns NG_OK, NG_E_HANDLE, NG_E_THREAD,
 * NG_E_CALLBACK (from one of its own callbacks). */
NG_API ng_status ng_context_detach(ng_context *ctx);

/* [any-thread] Make the calling thread the owner of a detached context (or
 * of a context it owns already: NG_OK). A context recording with
 * NG_RECORD_CRASH_DUMP gives the thread an alternate signal stack (see
 * there). Returns NG_OK, NG_E_HANDLE, NG_E_THREAD (another thread owns it). */
NG_API ng_status ng_context_attach(ng_context *ctx);

/* [owner, callback-safe] Detail of the last failed call on this context
 * (not cleared by success). Never NULL: a static text for a bad handle, or
 * when called from a thread that does not own the context. The text is owned
 * by the context: valid until the next failing call on it, and never after
 * ng_context_destroy (it is freed with the context): copy it to keep it. */
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
 * NG_E_HANDLE, NG_E_NULL, NG_E_SIZE, NG_E_NOT_FOUND (index out of range),
 * NG_E_THREAD. */
NG_API ng_status ng_stack_get(ng_context *ctx, size_t index, ng_screen_info *out);

/* [owner, callback-safe] Serialize the stack as JSON text
 * ({"navguard_snapshot":1,"screens":[{"id":1,"route":"home","identity":"home"}]}).
 * A screen with flags or a focus token also has "flags" and "focus" (0.4;
 * tokens above 2^63-1 as their two's-complement negative).
 * *out_text is NUL-terminated, allocated for the caller: free it with ng_free.
 * `out_len` may be NULL. Returns NG_OK, NG_E_HANDLE, NG_E_NULL,
 * NG_E_NO_MEMORY, NG_E_THREAD. */
NG_API ng_status ng_stack_snapshot(ng_context *ctx, char **out_text, size_t *out_len);

/* [owner] Replace the stack with a snapshot made by ng_stack_snapshot.
 * `len` bytes are read (no NUL needed). Malformed or invalid input (a
 * duplicate JSON key included) returns NG_E_PARSE or NG_E_RANGE and leaves
 * the stack unchanged. Not allowed while
 * a transition is in flight (NG_E_STATE) or inside a callback (NG_E_CALLBACK).
 * No transition callback is fired. An open question about the stack ends
 * (on_question_end, NG_ANSWER_WITHDRAWN) and the request it held gets its
 * on_outcome (DROPPED, NG_REASON_STALE) before this returns: the host was
 * asked about the old stack. Returns NG_OK, NG_E_HANDLE,
 * NG_E_NULL (text), NG_E_PARSE, NG_E_RANGE, NG_E_STATE, NG_E_CALLBACK,
 * NG_E_THREAD. */
NG_API ng_status ng_stack_restore(ng_context *ctx, const char *text, size_t len);

/* [owner, callback-safe] Set the NG_SCREENF_* flags of a stacked screen
 * (e.g. NG_SCREENF_CONFIRM_LEAVE once a cart has items, 0 when it is empty
 * again). Takes effect for requests evaluated from now on. Returns NG_OK,
 * NG_E_HANDLE, NG_E_RANGE (unknown bits outside NG_SCREENF_USER_MASK),
 * NG_E_NOT_FOUND (no such screen on the stack), NG_E_THREAD. */
NG_API ng_status ng_screen_set_flags(ng_context *ctx, uint64_t screen_id, uint32_t flags);

/* Focus that comes back (since 0.4). The host owns focus; NavGuard keeps
 * each stacked screen's focus token for it: any 64-bit value the host
 * chooses (a widget id, an index), 0 meaning none. A screen starts with 0
 * (pushed, replaced, set as root). When a screen becomes the top again
 * after a pop, a pop-to or a swipe back rolled back, its transition phases
 * carry its token (ng_transition_event.focus_token) and the host gives focus
 * back to that widget. Snapshots (ng_stack_snapshot, "focus") and
 * ng_stack_restore carry the tokens; traces record ng_screen_set_focus and
 * replay it. */

/* [owner, callback-safe] Set the focus token of a stacked screen, usually
 * the top as its focus moves (or a covered screen, e.g. from did-show of the
 * screen above it). While a swipe back is in flight, the stack it would
 * restore on a rollback keeps the token too. Takes no pointer. Returns
 * NG_OK, NG_E_HANDLE, NG_E_NOT_FOUND (no such screen on the stack),
 * NG_E_THREAD. */
NG_API ng_status ng_screen_set_focus(ng_context *ctx, uint64_t screen_id, uint64_t token);

/* [owner, callback-safe] Read a stacked screen's focus token into
 * `*out_token` (0 when none was set; also ng_screen_info.focus_token).
 * `out_token` is the caller's, written only on NG_OK. Returns NG_OK,
 * NG_E_HANDLE, NG_E_NULL (out_token), NG_E_NOT_FOUND (no such screen on the
 * stack), NG_E_THREAD. */
NG_API ng_status ng_screen_get_focus(ng_context *ctx, uint64_t screen_id, uint64_t *out_token);

/* [any-thread] Free memory the library allocated for the caller. NULL: no-op. */
NG_API void ng_free(void *ptr);

/* ------------------------------------------------------------------------ */
/* Requests                                                                  */
/* ------------------------------------------------------------------------ */

/* How a request is decided, in order:
 *  1. its content (kind, flags, strings, a screen id already stacked, a
 *     driving touch that is not live): REFUSED NG_REASON_INVALID or
 *     NG_REASON_DUPLICATE; and its scope: a `from_screen` that is not the
 *     top: NG_REASON_STALE. No guard is asked. A `from_screen` that is
 *     either end of a swipe back in flight is not judged yet: the request
 *     waits (DEFERRED, guard_id NULL) and is decided from step 1 when the
 *     swipe completes (ng_request.from_screen);
 *  2. the guard chain, first refusal or deferral wins;
 *  3. when it would apply (at once, or after a guard deferred it), the rules
 *     of the stack it applies to: NG_REASON_AT_ROOT, NG_REASON_NOT_FOUND,
 *     and the scope again (NG_REASON_STALE).
 * So a reply for a screen the user has left is stale whatever a guard would
 * have said, and a guard that refuses or defers decides before the stack's
 * rules: on a two-screen stack a back during a swipe is refused busy by the
 * transition guard, as on deeper stacks, not at-root.
 *
 * Ids: request ids, hold tokens and question ids fit in 53 bits, so JSON
 * readers and JavaScript (QML) read them exactly. ng_request_submit's count
 * up from 1, ng_request_post's from NG_POSTED_ID_BASE, and requests guards
 * make themselves (plugin.h request_submit: the Back the host agreed to
 * after a swipe on a screen that asks before leaving) from NG_GUARD_ID_BASE:
 * a host sees those only in callbacks. */
#define NG_POSTED_ID_BASE  0x10000000000000ull   /* 2^52 */
#define NG_GUARD_ID_BASE   0x18000000000000ull   /* 2^52 + 2^51 */

/* [owner, callback-safe] Submit a request. `request` is read during the call
 * (strings are copied). `out` (may be NULL; when given its `size` must be set,
 * NG_REQUEST_RESULT_INIT) receives the request id and the immediate status:
 *   APPLIED  — the stack changed; a transition started (or, without
 *              NG_REQF_ANIMATED, completed during this call);
 *   REFUSED  — with the reason and the refusing guard (NULL for the core's
 *              own rules: invalid, duplicate id, at-root, not-found, stale);
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
 * owner thread. The first post after the owner's last tick calls the
 * delegate's on_wake on this thread, so the owner's loop can wake without
 * polling. `out_id` (may be NULL) receives its id. A context must not be
 * destroyed while another thread may still post to it; posting to a destroyed
 * context returns NG_E_HANDLE. Posted ids are unique within the context and
 * never 0 (they count up from NG_POSTED_ID_BASE). Scope a reply with
 * `from_screen` so it never lands on a screen the user has left. The
 * host learns of a deferral only through the final outcome.
 * Returns NG_OK, NG_E_HANDLE (also once ng_context_destroy has begun),
 * NG_E_NULL, NG_E_SIZE, NG_E_RANGE, NG_E_UTF8, NG_E_TOO_LONG, NG_E_NO_MEMORY
 * (4096 posts pending, or 16 MiB of pending requests' screens and strings). */
NG_API ng_status ng_request_post(ng_context *ctx, const ng_request *request,
                                 uint64_t *out_id);

/* ------------------------------------------------------------------------ */
/* Transitions                                                               */
/* ------------------------------------------------------------------------ */

/* [owner, callback-safe] End a track of the transition in flight (DID fires).
 * NG_TRACK_ALL ends both. For an interactive back this commits the pop (both
 * tracks at once). Returns NG_OK, NG_E_HANDLE, NG_E_RANGE (track),
 * NG_E_NOT_FOUND (nothing in flight on that track; a late completion is
 * harmless), NG_E_STATE (an interactive back released to cancel: the
 * decision is kept), NG_E_THREAD. */
NG_API ng_status ng_transition_finish(ng_context *ctx, ng_track track);

/* [owner, callback-safe] Interactive back progress in [0, 1], kept for guards
 * and reports; also allowed while the released swipe settles. Returns NG_OK,
 * NG_E_HANDLE, NG_E_RANGE (NaN or outside 0..1), NG_E_NOT_FOUND (no
 * interactive back in flight), NG_E_THREAD. */
NG_API ng_status ng_interactive_update(ng_context *ctx, double progress);

/* [owner, callback-safe] Cancel the interactive back in flight: the stack is
 * restored exactly, both tracks end with NG_PHASE_CANCELLED (no DID), nothing
 * stays in flight. The request's outcome stays APPLIED (it was applied, then
 * rolled back). Returns NG_OK, NG_E_HANDLE, NG_E_NOT_FOUND, NG_E_STATE (it
 * was released to finish: the decision is kept), NG_E_THREAD. */
NG_API ng_status ng_interactive_cancel(ng_context *ctx);

/* [owner, callback-safe] The finger let go of the interactive back in flight
 * and the host decided its direction: `finish` true commits the pop, false
 * rolls it back. The swipe becomes NG_SWIPE_FINISHING or NG_SWIPE_CANCELLING;
 * nothing fires yet. The host animates the settle, then calls
 * ng_interactive_complete. The decision is kept: a later ng_transition_finish
 * of a cancelling swipe, or ng_interactive_cancel of a finishing one, gets
 * NG_E_STATE; a request applied meanwhile (no guard refusing) first completes
 * the swipe in its decided direction. The watchdog's transition limit counts
 * from the release and completes it in that direction.
 * Until the swipe completes, a request scoped (`from_screen`) to the screen
 * swiped away or to the target waits, then is judged against the stack the
 * swipe settled to (ng_request.from_screen).
 * A driving touch that ends before any release (the host forgot to call this)
 * leaves the swipe in flight, UNDRIVEN and undecided: the host may still
 * release, finish or cancel it; the watchdog's limit counts from the touch's
 * end and then cancels it (rolls back), as for any swipe nobody decided.
 * Returns NG_OK, NG_E_HANDLE, NG_E_NOT_FOUND (no interactive back in flight),
 * NG_E_STATE (already released), NG_E_THREAD. */
NG_API ng_status ng_interactive_release(ng_context *ctx, bool finish);

/* [owner, callback-safe] Complete a released interactive back in its decided
 * direction: FINISHING ends both tracks with DID (as ng_transition_finish),
 * CANCELLING rolls back with CANCELLED (as ng_interactive_cancel). A late
 * completion after the watchdog completed it gets NG_E_NOT_FOUND and fires
 * nothing. Returns NG_OK, NG_E_HANDLE, NG_E_NOT_FOUND (no interactive back in
 * flight), NG_E_STATE (not released yet), NG_E_THREAD. */
NG_API ng_status ng_interactive_complete(ng_context *ctx);

/* [owner, callback-safe] Whether a track is in flight; `out_request_id` (may
 * be NULL) gets its request id or 0. Returns NG_OK, NG_E_HANDLE, NG_E_NULL,
 * NG_E_RANGE, NG_E_THREAD. */
NG_API ng_status ng_transition_in_flight(ng_context *ctx, ng_track track, bool *out_busy,
                                         uint64_t *out_request_id);

/* [owner, callback-safe] The transition in flight on a track: its request,
 * flags, times, interactive progress and swipe state (out->size must be set:
 * NG_TRACK_INFO_INIT; only the fields inside it are written). Returns NG_OK,
 * NG_E_HANDLE, NG_E_NULL, NG_E_SIZE, NG_E_RANGE (track), NG_E_NOT_FOUND
 * (nothing in flight on that track), NG_E_THREAD. */
NG_API ng_status ng_track_get(ng_context *ctx, ng_track track, ng_track_info *out);

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
 * holds), NG_E_STATE (from a callback of ng_context_destroy), NG_E_THREAD. */
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

/* [owner, callback-safe] The live hold at `index` (0 .. count-1 of
 * ng_hold_state, oldest first), e.g. to show who blocks input
 * (out->size must be set: NG_HOLD_VIEW_INIT). out->label stays valid until
 * that hold ends. Returns NG_OK, NG_E_HANDLE, NG_E_NULL, NG_E_SIZE,
 * NG_E_NOT_FOUND (index), NG_E_THREAD. */
NG_API ng_status ng_hold_get(ng_context *ctx, size_t index, ng_hold_view *out);

/* ------------------------------------------------------------------------ */
/* Questions: answering what a guard asked (ng_question, above)              */
/* ------------------------------------------------------------------------ */

/* [owner, callback-safe] Answer the open question `question_id` with
 * NG_ANSWER_YES or NG_ANSWER_NO. The asker hears it (a held request goes on
 * or is refused, NG_REASON_DECLINED) and on_question_end follows, inside
 * this call (after the callback that called it, when called from one).
 * Returns NG_OK, NG_E_HANDLE, NG_E_RANGE (answer other than YES or NO),
 * NG_E_NOT_FOUND (no open question with that id: it timed out or was
 * withdrawn; a late answer is harmless), NG_E_THREAD. */
NG_API ng_status ng_question_answer(ng_context *ctx, uint64_t question_id, ng_answer answer);

/* [owner, callback-safe] The open question, if any (out->size must be set:
 * NG_QUESTION_INIT; its strings stay valid until it ends), e.g. to redraw a
 * dialog. Returns NG_OK, NG_E_HANDLE, NG_E_NULL, NG_E_SIZE, NG_E_NOT_FOUND
 * (no question is open), NG_E_THREAD. */
NG_API ng_status ng_question_get(ng_context *ctx, ng_question *out);

/* ------------------------------------------------------------------------ */
/* Time                                                                      */
/* ------------------------------------------------------------------------ */

/* [owner] Process everything due: posted requests, expired holds, timed
 * transitions, question time limits, guard wake-ups. Callbacks run inside.
 * A host loop needs no polling: the delegate's on_deadline gives the time
 * to arm one timer for, on_wake wakes the loop when another thread posts;
 * the loop calls ng_tick when either fires. A loop that polls instead calls
 * ng_next_deadline after each call (ng_tick when it is due).
 * Returns NG_OK, NG_E_HANDLE, NG_E_THREAD, NG_E_CALLBACK. */
NG_API ng_status ng_tick(ng_context *ctx);

/* [owner, callback-safe] The earliest time (same clock as ng_now) at which
 * ng_tick has work, or NG_NO_DEADLINE. Work already due gives a time <= now
 * (posted requests give now). Returns NG_OK, NG_E_HANDLE, NG_E_NULL,
 * NG_E_THREAD. */
NG_API ng_status ng_next_deadline(ng_context *ctx, int64_t *out_ns);

/* [owner, callback-safe] Current time of the context's clock, nanoseconds.
 * One call, one instant: a monotonic clock is read at most once per call
 * (the first time the core or a guard needs it), and every reading during
 * that call, guards' host->now included, gives that value; a call made from
 * inside a callback keeps the time of the call that made the callback.
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
#define NG_VERDICT_COUNT 2  /* (0.4) values run from 0 to this, one past the last */
#define NG_VERDICT_MAP(XX) \
    XX(NG_VERDICT_DELIVER, "deliver") \
    XX(NG_VERDICT_DROP,    "drop")

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
                                 for IGNORING, the guard that owns the hold
                                 (NULL: the host's hold); valid until the
                                 context is destroyed */
    /* Since 0.3; written only when `size` covers them: */
    uint64_t hold_token;      /* IGNORING: the live hold that blocked it (the
                                 oldest whose mask covers the type), else 0 */
    const char *hold_label;   /* IGNORING: that hold's label (NULL if none);
                                 valid until that hold ends */
} ng_event_result;
#define NG_EVENT_RESULT_INIT { sizeof(ng_event_result), 0, 0, 0u, NULL, 0u, NULL }
#define NG_EVENT_INIT(t) { sizeof(ng_event), (t), 0, 0u, 0u, 0, 0.0, 0.0, 0u, 0 }

/* [owner, callback-safe] Submit an input event and get its verdict.
 * Rules, in order: an event whose type is in a live hold's mask is dropped
 * (IGNORING); a touch is bound at began to the view hit then (or the host's
 * target) and keeps it until it ends (no re-hit-testing); a touch dropped at
 * began is withheld for its whole life; the guard chain votes (first drop
 * wins) on began, moved and non-touch events; the ended/cancelled phase of a
 * delivered touch is always delivered to its view (guards observe it with
 * NG_GEVF_FINAL) so every delivered touch ends exactly once. A touch whose
 * own began sets off its cancellation (a guard's action inside its vote
 * begins a touch-blocking hold, or cancels touches) is dropped rather than
 * delivered and then cancelled: its began gets DROP with NG_REASON_IGNORING
 * or NG_REASON_CANCELLED (guard_id NULL), it is withheld (its later phases
 * are dropped, NG_REASON_WITHHELD) and no on_touch_cancel fires for it.
 * Keys and controller buttons have the same kind of life ("Presses").
 * `out` may be NULL (the verdict is then not reported); when given, its
 * `size` must be set (NG_EVENT_RESULT_INIT).
 * Allocates nothing in steady state. Returns NG_OK (see out->verdict),
 * NG_E_HANDLE, NG_E_NULL, NG_E_SIZE, NG_E_RANGE (type, phase, flags, a NaN
 * or infinite point, negative timestamp), NG_E_THREAD. An event refused
 * with a status was not submitted: `out` then reads DROP with
 * NG_REASON_INVALID, and NavGuard keeps no state for it (a began refused so
 * starts no touch). */
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
#define NG_SHAPE_KIND_COUNT 4  /* (0.4) values run from 0 to this, one past the last */
#define NG_SHAPE_KIND_MAP(XX) \
    XX(NG_SHAPE_BOUNDS,  "bounds") \
    XX(NG_SHAPE_INSETS,  "insets") \
    XX(NG_SHAPE_CIRCLE,  "circle") \
    XX(NG_SHAPE_POLYGON, "polygon")

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

/* [owner, callback-safe] Number of live touches (delivered or withheld; a
 * touch NavGuard cancelled is retired, see ng_touch_info). Returns NG_OK,
 * NG_E_HANDLE, NG_E_NULL, NG_E_THREAD. */
NG_API ng_status ng_touch_count(ng_context *ctx, size_t *out_count);
/* [owner, callback-safe] The live touch at `index` (out->size must be set).
 * Returns NG_OK, NG_E_HANDLE, NG_E_NULL, NG_E_SIZE, NG_E_NOT_FOUND (index),
 * NG_E_THREAD. */
NG_API ng_status ng_touch_get(ng_context *ctx, size_t index, ng_touch_info *out);

/* [owner, callback-safe] A device is gone (a controller unplugged, a keyboard removed): the
 * toolkit will send no up for the keys or buttons it holds. Its presses of
 * events of `type` (NG_EVENT_KEY or NG_EVENT_REMOTE: device ids of the two
 * may overlap, as SDL's keyboard 0 and first controller 0 do) end: delivered
 * ones get on_press_cancel (cause NG_PRESS_DEVICE_REMOVED), withheld and
 * cancelled ones are forgotten. Nothing else is told (no guard votes). The
 * same as submitting an ng_event of that type with phase
 * NG_KEY_DEVICE_REMOVED and touch_id `device`, which is how the flight
 * recorder keeps it. Since 0.4. Returns NG_OK (also when the device held
 * nothing), NG_E_HANDLE, NG_E_RANGE (another type), NG_E_THREAD. */
NG_API ng_status ng_device_removed(ng_context *ctx, ng_event_type type, uint64_t device);

/* ------------------------------------------------------------------------ */
/* Writing an adapter. An adapter turns a toolkit's input into ng_event,     */
/* submits it and hands the toolkit only what NavGuard delivers; the rules  */
/* below are what every adapter keeps (adapters/sdl2, adapters/qt6).        */
/* ------------------------------------------------------------------------ */

/* The touch id of the mouse: its left button and the motion while it is down
 * are one touch with this id, in every adapter, so traces and their readers
 * (navguard timeline names it "mouse") tell the mouse from a finger whatever
 * toolkit recorded them. A finger's id is the adapter's own (a device number
 * and the toolkit's point id) and never equals it. The rules an adapter
 * keeps:
 *  - Ids: the mouse is NG_MOUSE_TOUCH_ID; fingers of two devices never share
 *    an id; events the toolkit synthesized from touches (a mouse echo of a
 *    finger) are not submitted again.
 *  - Verdicts: the toolkit sees an event only when ng_event_submit returns
 *    NG_OK with NG_VERDICT_DELIVER. A toolkit event holding several points
 *    gets a verdict per point.
 *  - Submit failures fail closed: an event ng_event_submit answers with a
 *    status (NG_E_RANGE for a point that is not finite, NG_E_HANDLE,
 *    NG_E_THREAD) is not handed to the toolkit, as `out` says (DROP,
 *    NG_REASON_INVALID), and the adapter reports the status (returns it, or
 *    logs it once). Why closed: NavGuard keeps no state for a refused event,
 *    so a began it refused is a touch it can never cancel, block during a
 *    transition or end by its watchdog; handing it on would reopen the races
 *    the adapter exists to close. The statuses are either the event's own
 *    (a broken driver's point, which the toolkit would mishandle too) or a
 *    host bug (a destroyed context, a wrong thread) that must show at once in
 *    development rather than leave a kiosk unguarded in the field. One
 *    exception keeps a touch's life the same on both sides: when the end of
 *    a touch the toolkit was given cannot be submitted, the adapter ends it
 *    in the toolkit as cancelled (its cancel routing), never leaves it
 *    pressed; an end with a point that is not finite is submitted as
 *    NG_TOUCH_CANCELLED at the touch's last point.
 *  - Ends: every began the toolkit saw gets one end. When the toolkit will
 *    not send one (focus lost, window hidden, application in the
 *    background), the adapter submits NG_TOUCH_CANCELLED for each live
 *    touch; a began for a live id means the old touch's end was lost.
 *  - Cancels: on_touch_cancel is routed to the widget holding the touch,
 *    which must forget the press (no click on release); on_press_cancel
 *    likewise for a key or button press.
 *  - Presses: keys and controller buttons are submitted with NG_KEY_DOWN,
 *    NG_KEY_UP and NG_KEY_REPEAT, the device in touch_id, a controller's
 *    button as its NG_BUTTON_* in code; a device that goes away
 *    (SDL_CONTROLLERDEVICEREMOVED) is told with ng_device_removed.
 *  - Time: ng_event.timestamp_ns is in the context's clock (ng_now) or 0
 *    when the toolkit's clock is another; never a time after ng_now.
 *  - Threads: events are submitted on the context's owner thread; requests
 *    from other threads go through ng_request_post, and the adapter wakes
 *    its loop from on_wake and arms one timer from on_deadline (or polls
 *    ng_next_deadline), so an idle kiosk uses no CPU.
 *  - Steady state allocates nothing: a moved event is converted and
 *    submitted without a heap allocation. */
#define NG_MOUSE_TOUCH_ID  0xFFFFFFFFFFFFFFFFull

/* ------------------------------------------------------------------------ */
/* Guard chain (plugin.h defines the descriptor)                             */
/* ------------------------------------------------------------------------ */
struct ng_plugin_descriptor;

/* [owner] Append a guard to the end of the chain, created from a descriptor
 * in memory (a linked-in guard). `config_json` (may be NULL: "{}") is the
 * guard's configuration object (UTF-8 text of up to 1 MiB), read during the
 * call and checked against the options the guard declares (plugin.h) before
 * its create() runs: an unknown key, a wrong type or a value out of range
 * gets NG_E_PARSE and ng_errmsg names the guard, the key and what was
 * expected (for an unknown key: the valid keys). The descriptor and its
 * strings must stay valid until the context is destroyed. A guard may be
 * added at any time outside a callback; it sees only what happens afterwards.
 * Returns NG_OK, NG_E_HANDLE, NG_E_NULL, NG_E_ABI (other plugin ABI major,
 * or a newer minor), NG_E_GUARD (bad descriptor or option declarations,
 * duplicate id, or create failed: ng_errmsg gives the reason the guard
 * logged), NG_E_PARSE (config), NG_E_UTF8, NG_E_TOO_LONG, NG_E_NO_MEMORY
 * (NG_MAX_GUARDS), NG_E_CALLBACK, NG_E_THREAD. */
NG_API ng_status ng_chain_add(ng_context *ctx, const struct ng_plugin_descriptor *descriptor,
                              const char *config_json);

/* [owner, callback-safe] Number of guards in the chain. Returns NG_OK,
 * NG_E_HANDLE, NG_E_NULL, NG_E_THREAD. */
NG_API ng_status ng_chain_count(ng_context *ctx, size_t *out_count);
/* [owner, callback-safe] The id of the guard at `index` (valid until the
 * context is destroyed). Returns NG_OK, NG_E_HANDLE, NG_E_NULL,
 * NG_E_NOT_FOUND (index), NG_E_THREAD. */
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

/* [owner] Build the chain from a configuration (the chain must be empty).
 * A full chain, guards in the order listed:
 *   {"guards": [ {"id": "org.navguard.transition", "config": {"limit": 4}},
 *                {"path": "/opt/kiosk/guards/mine.so", "config": {}} ]}
 * or the default chain edited, edits applied in order:
 *   {"base": "default",
 *    "edits": [ {"remove": "org.navguard.throttle"},
 *               {"configure": "org.navguard.watchdog", "config": {"transition_limit_ms": 5000}},
 *               {"insert": {"id": "org.example.quiet-hours"}, "before": "org.navguard.transition"},
 *               {"insert": {"path": "/opt/kiosk/guards/audit.so"}} ]}
 * ("configure" replaces the keys it gives and keeps the others; an insert
 * without "before"/"after" appends; "edits" may also follow "guards").
 * An entry with "id" only is looked up as <last part of the id>.so in the
 * directories of NAVGUARD_PLUGIN_PATH (colon-separated), then in the
 * built-in directory (ng_plugin_dir); "path" loads that file (and, with "id",
 * checks that the plugin has that id). Each guard's "config" is checked
 * against the options it declares before it is created. `json` NULL means
 * the default chain (ng_default_chain). All or nothing: on failure the chain
 * stays empty, and ng_errmsg names the guard, the key or the edit at fault.
 * Returns the statuses of ng_plugin_load, plus NG_E_PARSE (malformed
 * configuration, unknown key or edit target, duplicate JSON key, a string
 * with a NUL, a guard option of the wrong type or out of range),
 * NG_E_LOAD (an id found in no directory: the message lists the guards that
 * are there) and NG_E_STATE (the chain is not empty). */
NG_API ng_status ng_chain_configure(ng_context *ctx, const char *json);

/* [owner] As ng_chain_configure, reading the configuration from a file.
 * Returns the statuses of ng_chain_configure, plus NG_E_LOAD (the file
 * cannot be read). */
NG_API ng_status ng_chain_configure_file(ng_context *ctx, const char *path);

/* [any-thread] The directory built-in plugins are loaded from: the
 * NAVGUARD_PLUGIN_DIR environment variable if set, else <libdir>/navguard/plugins
 * next to libnavguard.so (the install layout; the build tree has the same),
 * found from the library's own file with dladdr (no /proc needed). Never a
 * path relative to the working directory: "" if the library cannot find its
 * own file. Static storage; never NULL (may name a directory that does not
 * exist). */
NG_API const char *ng_plugin_dir(void);

/* The built-in guards of the default chain, in its order. */
#define NG_DEFAULT_CHAIN_ORDER \
    "watchdog, global-ignore, exclusive-touch, throttle, dedupe, transition, bar-should, confirm-leave"
/* [any-thread] The default chain's configuration as JSON text (static
 * storage, never NULL): the guards of NG_DEFAULT_CHAIN_ORDER. */
NG_API const char *ng_default_chain(void);

/* ------------------------------------------------------------------------ */
/* Flight recorder and replay                                                */
/* ------------------------------------------------------------------------ */
/* A trace holds everything the host gives a context and everything it gets
 * back: the context's options, its chain (each guard's id, version, file and
 * configuration), every call that changes state (root, requests, posted
 * requests as they are applied, events, views, holds, transition and swipe
 * calls, restores, ticks, clock calls), the instant each call ran at, and
 * every status, verdict, result and callback. Calls that only read state are
 * not recorded. The format is JSON Lines, versioned by its first line:
 * docs/trace-format.md. `navguard replay` re-runs a trace on a manual clock
 * (ng_replay), `navguard timeline` draws it. */

/* How to record. Exactly one destination: `path` (a regular file, created,
 * or truncated when it exists; a symbolic link is not followed, and a FIFO,
 * a device other than /dev/null, a directory or a socket is refused with
 * NG_E_IO) or `write`. With `ring_records` or `ring_ns` set, records are
 * kept in memory instead, the newest at most `ring_records` (default 100000)
 * and, with `ring_ns`, only those younger than that; ng_record_dump writes
 * them, and so does a guard's report (the watchdog's or any other) within a
 * budget: its text then names the file, `dump_dir`/navguard-<pid>-<ctx>-<n>-
 * <16 random hex digits>.ngbox, a binary dump (as a crash dump, below:
 * `navguard convert` makes it a trace) that a writer thread writes, so the
 * report's call does not wait for the disk. With `path`, the report names
 * that file. A ring dump begins with the state at its first record (the
 * stack, views, holds, live touches, transitions, deferred requests), so it
 * names every screen it shows.
 *
 * The budget of report dumps, for a kiosk left alone: at most
 * `report_dumps` (default 3) per context in any `report_dump_window_ns`
 * (default 10 minutes, the context's clock), and at most `dump_dir_bytes`
 * (default 128 MiB) of report dumps in `dump_dir`, counting this user's
 * report dumps of every process there: past it the oldest are removed (the
 * newest always stays; crash dumps are never removed). A report past the
 * budget, or whose dump cannot be made, is delivered all the same: its text
 * says that no dump was written and why. Every dump file is created new
 * with a random part in its name: a name already taken (by anything: a
 * file, a symbolic link, a FIFO) is never opened; another random name is
 * tried (16 in all).
 *
 * What it costs: a recorded call writes a small binary record into memory
 * the context owns (no allocation, no text); JSON is made when the records
 * are written out: a file or writer recorder flushes at every ng_tick and
 * when its buffer fills, a ring when it is dumped. */
typedef struct ng_record_options {
    uint32_t size;
    const char *path;
    /* Called on the owner thread with whole lines (a chunk may hold several);
     * return false to stop recording. It may run inside any call on the
     * context: every [owner] call it makes on the context gets
     * NG_E_CALLBACK (ng_context_destroy and ng_context_detach included). */
    bool (*write)(void *user, const char *data, size_t len);
    void *user;
    uint32_t ring_records;
    int64_t ring_ns;
    const char *dump_dir;     /* ring mode: directory of automatic dumps (and
                                 crash dumps), or NULL for the current directory */
    /* Since 0.3 (read only when `size` covers it): */
    uint32_t crash;           /* ring mode: NG_RECORD_CRASH_* (0: none) */
    /* Since 0.4 (read only when `size` covers them; 0: the default): the
     * budget of report dumps (above). */
    int64_t report_dump_window_ns;  /* default 600 s; negative: NG_E_RANGE */
    uint64_t dump_dir_bytes;        /* default 128 MiB */
    uint32_t report_dumps;          /* per window, default 3, at most 1000 */
} ng_record_options;
#define NG_RECORD_OPTIONS_INIT { sizeof(ng_record_options), NULL, NULL, NULL, 0u, 0, NULL, 0u, 0, 0u, 0u }

/* ng_record_options.crash: a ring that survives a crash. With
 * NG_RECORD_CRASH_DUMP, a fatal signal (SIGSEGV, SIGBUS, SIGILL, SIGFPE,
 * SIGABRT) writes the ring, as it is, to a new file `dump_dir`/navguard-
 * <pid>-<ctx>-<16 random hex digits>-crash.ngbox (the random part drawn when
 * recording starts; a name taken is never opened, the next 15 are tried)
 * with async-signal-safe calls only, then the handler that was
 * in place before runs (the host's own crash reporter still works; with none
 * the process ends as the signal would have ended it). The handlers are
 * installed the first time a context asks, once per process, and stay. A
 * .ngbox file is binary: `navguard timeline` draws it and `navguard convert`
 * turns it into a JSON Lines trace. At most 64 rings at a time.
 *
 * A stack overflow leaves no stack to run a handler on, so the handlers run
 * on the thread's alternate signal stack (SA_ONSTACK): ng_record_start gives
 * the calling (owner) thread one when it has none (sigaltstack reports
 * SS_DISABLE): the larger of 64 KiB and sysconf(_SC_SIGSTKSZ), mapped with a
 * guard page below it. A thread's own alternate stack (the host's, a
 * sanitizer's) is used as it is and never changed; it should hold the dump
 * writer (a few KiB) and the host's handler. Contexts recording on one thread
 * share NavGuard's stack; ng_record_stop or ng_context_destroy of the last of
 * them removes it, unless the host has set another stack since (that one is
 * left). ng_context_attach gives the new owner thread one likewise; the old
 * owner thread keeps its stack (another thread's cannot be taken away) until
 * it ends, when its memory is freed. If the memory cannot be had, recording
 * starts all the same and an overflow on that thread writes no dump. */
#define NG_RECORD_CRASH_DUMP        0x1u
/* With NG_RECORD_CRASH_DUMP: install no handler; the host's own crash
 * handler calls ng_record_crash_dump. NavGuard installs no alternate stack
 * either: for the host's handler to run on a stack overflow, the host gives
 * its threads one (sigaltstack) and sets SA_ONSTACK. */
#define NG_RECORD_CRASH_NO_HANDLER  0x2u

/* [owner] Start recording. Recording from the context's creation (before any
 * other call) gives a trace that replays exactly; a later start records the
 * state it starts from (stack, views, chain) and the trace says whether
 * anything was live then (holds, touches, a transition, deferred requests),
 * which replay cannot recreate. Strings are copied; the ring's memory is
 * allocated here, once. Returns NG_OK, NG_E_HANDLE, NG_E_NULL, NG_E_SIZE
 * (`size` below NG_RECORD_OPTIONS_MIN_SIZE), NG_E_RANGE (no destination or
 * two, unknown `crash` bits, `crash` without a ring, a negative
 * `report_dump_window_ns`, `report_dumps` above 1000), NG_E_STATE (already
 * recording), NG_E_IO (`path` cannot be created or opened, or is not a
 * regular file: ng_errmsg names it and why), NG_E_NO_MEMORY (the
 * ring cannot be allocated, or 64 rings already keep crash dumps),
 * NG_E_UTF8, NG_E_TOO_LONG (`path` or `dump_dir`), NG_E_CALLBACK,
 * NG_E_THREAD. */
NG_API ng_status ng_record_start(ng_context *ctx, const ng_record_options *options);

/* [owner] Stop recording: flush and close the file (ring mode: discard the
 * ring, once the writer thread has written its report dumps: 5 s at most).
 * Returns NG_OK, NG_E_HANDLE, NG_E_STATE (not recording), NG_E_CALLBACK
 * (inside one of the context's callbacks), NG_E_THREAD. Destroying the context stops recording too. */
NG_API ng_status ng_record_stop(ng_context *ctx);

/* [owner, callback-safe] Write what the recorder holds: ring mode, the ring
 * as a trace (JSON Lines) to `path`, a new file: when `path` is taken (a
 * file, a symbolic link, a FIFO, anything) nothing is opened or written and
 * NG_E_IO says it exists (remove it or choose another name); file mode,
 * flush (`path` NULL). Returns NG_OK, NG_E_HANDLE, NG_E_NULL (ring mode,
 * `path` NULL), NG_E_STATE (not recording), NG_E_IO (`path` exists, or
 * cannot be created or written), NG_E_UTF8, NG_E_TOO_LONG, NG_E_THREAD. */
NG_API ng_status ng_record_dump(ng_context *ctx, const char *path);

/* [any-thread, async-signal-safe] Write the ring of every context recording
 * with NG_RECORD_CRASH_DUMP to its crash dump file (see
 * NG_RECORD_CRASH_DUMP): for a host's own crash handler, which calls it
 * before its own work (with NG_RECORD_CRASH_NO_HANDLER, NavGuard's handler
 * never does). `signal` is written into the dumps (0: none). It uses only
 * open, write, close, getpid, clock_gettime and nanosleep: it allocates
 * nothing and takes no lock. A ring its owner thread is changing on another
 * thread is waited for, 200 ms at most. From this call on, every ring stops
 * recording (the process is expected to end). Returns NG_OK (every such ring
 * written, or none to write), NG_E_IO (a file could not be created or
 * written; the others were), NG_E_STATE (a dump is already being written). */
NG_API ng_status ng_record_crash_dump(int signal);

/* How to replay. `chain`: NULL replays against the recorded chain (each guard
 * found by its id on the plugin search path, else at its recorded path); a
 * chain configuration (as ng_chain_configure) replays against that chain
 * instead: "would my new chain have refused this?". */
typedef struct ng_replay_options {
    uint32_t size;
    const char *chain;
} ng_replay_options;
#define NG_REPLAY_OPTIONS_INIT { sizeof(ng_replay_options), NULL }

typedef struct ng_replay_result {
    uint32_t size;
    bool identical;           /* every status, result and callback matched */
    uint64_t calls;           /* calls replayed */
    uint64_t callbacks;       /* callbacks compared */
    uint64_t line;            /* the first divergence's (or error's) line, 1-based; 0: none */
    char *report;             /* what happened, in context; free with ng_free */
} ng_replay_result;
#define NG_REPLAY_RESULT_INIT { sizeof(ng_replay_result), false, 0u, 0u, 0u, NULL }

/* [any-thread] Replay a trace (`len` bytes of `trace`) in a context of its
 * own, on a manual clock set to each call's recorded instant, and compare
 * every status, result and callback with the recording. Replay stops at the
 * first divergence; `out->report` shows it with the calls before it. Guards
 * that read anything but host->now (the wall clock, files, randomness)
 * cannot be replayed exactly. Returns NG_OK (replayed: see
 * out->identical), NG_E_NULL, NG_E_SIZE, NG_E_PARSE (not a trace, a
 * malformed line, or a number that is not an integer of its field's range,
 * a negative time included: out->line and the report name it), NG_E_RANGE
 * (a newer trace version), NG_E_STATE (a trace that cannot be replayed: a ring dump,
 * or one started with live state), or the statuses of ng_chain_configure
 * (configuring the chain; NG_E_LOAD: a recorded guard was not found). */
NG_API ng_status ng_replay(const char *trace, size_t len, const ng_replay_options *options,
                           ng_replay_result *out);

/* ------------------------------------------------------------------------ */
/* Names                                                                     */
/* ------------------------------------------------------------------------ */

/* [any-thread] The name of a value, from its NG_*_MAP table ("push", "busy",
 * "applied", "will", "began"...): static storage, never NULL; a value outside
 * the table gives "unknown". ng_key_phase_name and ng_answer_name are new in
 * 0.3. */
NG_API const char *ng_request_kind_name(ng_request_kind kind);
NG_API const char *ng_reason_name(ng_reason reason);
NG_API const char *ng_outcome_name(ng_outcome_kind outcome);
NG_API const char *ng_track_name(ng_track track);
NG_API const char *ng_phase_name(ng_phase phase);
NG_API const char *ng_swipe_state_name(ng_swipe_state state);
NG_API const char *ng_clock_kind_name(ng_clock_kind kind);
NG_API const char *ng_hold_end_reason_name(ng_hold_end_reason reason);
NG_API const char *ng_severity_name(ng_severity severity);
NG_API const char *ng_event_type_name(ng_event_type type);
NG_API const char *ng_touch_phase_name(int32_t phase);
NG_API const char *ng_touch_state_name(int32_t state);
NG_API const char *ng_verdict_name(ng_verdict_kind verdict);
NG_API const char *ng_shape_kind_name(ng_shape_kind kind);
NG_API const char *ng_key_phase_name(int32_t phase);
NG_API const char *ng_answer_name(ng_answer answer);
/* [any-thread] A controller button's name from NG_BUTTON_MAP ("A",
 * "dpad-up"; a code outside it: "unknown"), as above. Since 0.4. */
NG_API const char *ng_button_name(int64_t code);
/* [any-thread] An NG_PRESS_* cause's name from NG_PRESS_CAUSE_MAP, as
 * above. Since 0.4. */
NG_API const char *ng_press_cause_name(int32_t cause);

/* ------------------------------------------------------------------------ */
/* Frozen minimum sizes (bytes) of the size-prefixed structs                 */
/* ------------------------------------------------------------------------ */
/* A `size` below these gets NG_E_SIZE; they never grow. Input structs: their
 * NavGuard 0.1 layout (ng_request and ng_event: the prefix a call needs).
 * Output structs: what makes a call meaningful. */
enum {
    NG_REQUEST_MIN_SIZE        = offsetof(ng_request, screens),
    NG_REQUEST_RESULT_MIN_SIZE = offsetof(ng_request_result, request_id),
    NG_OPTIONS_MIN_SIZE        = offsetof(ng_options, manual_start_ns),
    NG_EVENT_MIN_SIZE          = offsetof(ng_event, target_view),
    NG_EVENT_RESULT_MIN_SIZE   = offsetof(ng_event_result, reason),
    NG_VIEW_MIN_SIZE           = offsetof(ng_view, shape) + sizeof(ng_hit_shape),
    NG_SCREEN_INFO_MIN_SIZE    = offsetof(ng_screen_info, route),
    NG_TOUCH_INFO_MIN_SIZE     = offsetof(ng_touch_info, touch_id),
    NG_TRACK_INFO_MIN_SIZE     = offsetof(ng_track_info, kind),
    NG_HOLD_VIEW_MIN_SIZE      = offsetof(ng_hold_view, label),
    NG_QUESTION_MIN_SIZE       = offsetof(ng_question, deadline_ns) + sizeof(int64_t), /* new in 0.3: all of it */
    NG_RECORD_OPTIONS_MIN_SIZE = offsetof(ng_record_options, crash)
};

#ifdef __cplusplus
}
#endif
#endif /* NAVGUARD_H */
