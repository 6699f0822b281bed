/* SPDX-License-Identifier: Apache-2.0 */
/*
 * plugin.h — NavGuard guard-plugin ABI.
 *
 * A guard is a policy in the context's chain. It is defined by a descriptor:
 * a shared library exports exactly one symbol, `ng_plugin_entry`, returning
 * its descriptor; a host may also link a guard in and pass the descriptor to
 * ng_chain_add. The built-in guards use nothing but this header.
 *
 * Rules for guards:
 *  - Every hook runs on the context's owner thread, synchronously, from inside
 *    a NavGuard call. Hooks must not block and must not call the public
 *    navguard.h API on the context; they read and act only through the
 *    ng_guard_host table given to create(). Actions taken through the table
 *    inside a hook are applied after the hook returns, in order.
 *  - Pointers handed to a hook are valid for the duration of that hook only,
 *    unless stated otherwise. The `host` pointer is valid from create() until
 *    destroy() returns.
 *  - Any hook may be NULL when unused.
 *  - Strings returned by the guard (ids, names, messages, verdict messages)
 *    must be static or live as long as the instance.
 *  - Structs a guard passes to the host to be filled (ng_screen_info,
 *    ng_track_info, ng_hold_view, ng_touch_info, ng_guard_request) must have
 *    `size` set by the guard (sizeof at its build time); the host writes only
 *    the fields inside that size. Structs the host passes in carry their own
 *    `size`.
 *
 * Versioning: the descriptor starts with the ABI version it was built against
 * and its size. One rule decides compatibility, ng_plugin_abi_compatible
 * below (the loader, ng_chain_add, the validator and the Swift plugin kit all
 * call it): the same major, and the plugin's minor not newer than the host's.
 * Growth: new fields and host functions are only ever added at the end of
 * their structs; every struct has a frozen minimum size (NG_*_MIN_SIZE: its
 * ABI 1.0 layout). A reader refuses a smaller `size`, copies only `size`
 * bytes (at most its own sizeof) into a zeroed struct, and tests that a later
 * field is inside `size` (NG_HAS_FIELD) before using it. So a guard built
 * against an older minor keeps loading after the descriptor grew, and a guard
 * reads the host table only as far as the host's `size` says.
 */
#ifndef NAVGUARD_PLUGIN_H
#define NAVGUARD_PLUGIN_H

#include "navguard.h"

#ifdef __cplusplus
extern "C" {
#endif

/* History: 1.0 (NavGuard 0.1). 1.1 (NavGuard 0.2): ng_track_info grew
 * driving_touch, swipe_since_ns and swipe; touch_cancel(0) spares a touch
 * that drives an interactive back; the descriptor grew `options` (declared
 * configuration keys, checked by the host before create). 1.2 (NavGuard
 * 0.3): the host table grew request_submit, ask, withdraw,
 * hold_begin_transition and wake; the descriptor grew on_answer;
 * ng_hold_view grew owner_id and transition_id, ng_touch_info last_ns,
 * ng_screen_info flags; a touch NavGuard cancels is retired at once (no
 * longer live: touch_get no longer lists NG_TOUCH_STATE_CANCELLED). 1.3
 * (NavGuard 0.4): the descriptor grew event_mask (the events on_event is
 * called for); ng_touch_info grew in_way_ns; ng_guard_request grew device. */
#define NG_PLUGIN_ABI_MAJOR 1
#define NG_PLUGIN_ABI_MINOR 3
#define NG_PLUGIN_ENTRY_SYMBOL "ng_plugin_entry"

/* The compatibility rule (CLAP's clap_version_is_compatible): a plugin built
 * for plugin_major.plugin_minor runs on a host of host_major.host_minor. A
 * host passes its own NG_PLUGIN_ABI_* first and the descriptor's second; a
 * plugin checking the host table passes the table's first and its own
 * second. */
static inline bool ng_plugin_abi_compatible(uint32_t host_major, uint32_t host_minor,
                                            uint32_t plugin_major, uint32_t plugin_minor) {
    return host_major == plugin_major && plugin_minor <= host_minor;
}


/* Guard votes (hook return values). */
typedef int32_t ng_vote;
#define NG_VOTE_ALLOW   0  /* request: let it pass; event: deliver */
#define NG_VOTE_REFUSE  1  /* request: refuse; event: drop */
#define NG_VOTE_DEFER   2  /* request only: the guard keeps its id and later
                              calls deferred_apply or deferred_drop */
#define NG_VOTE_MAP(XX) \
    XX(NG_VOTE_ALLOW,  "allow") \
    XX(NG_VOTE_REFUSE, "refuse") \
    XX(NG_VOTE_DEFER,  "defer")

/* Log severities (NG_LOG_*, ng_severity) are in navguard.h: hosts see them
 * in on_log. */

/* Why a guard refused or dropped: filled by the guard when it does not allow. */
typedef struct ng_verdict {
    uint32_t size;           /* set by the host */
    ng_reason reason;        /* NG_REASON_* */
    const char *message;     /* static or instance-owned text, or NULL */
} ng_verdict;

/* A request as guards see it. */
typedef struct ng_guard_request {
    uint32_t size;
    uint64_t request_id;
    ng_request_kind kind;
    uint32_t flags;            /* NG_REQF_* */
    uint32_t source;
    uint32_t attempt;          /* 0 on first evaluation; n after the n-th
                                  deferred_apply re-evaluation */
    const ng_screen *screen;   /* PUSH: the screen; otherwise NULL */
    uint64_t target_id;        /* POP_TO */
    const ng_screen *screens;  /* REPLACE_STACK */
    size_t screen_count;
    int64_t now_ns;
    /* --- ABI 1.3: test NG_HAS_FIELD(r, ng_guard_request, device) --- */
    uint64_t device;           /* ng_request.device: the device that made it,
                                  or 0 for none */
} ng_guard_request;
#define NG_GUARD_REQUEST_INIT { sizeof(ng_guard_request), 0u, 0, 0u, 0u, 0u, NULL, 0u, NULL, 0u, 0, 0u }

/* Guard event flags. */
#define NG_GEVF_FINAL  0x1u  /* the ended/cancelled phase of a delivered touch:
                                always delivered; the vote is not used */

/* The events a guard's on_event is called for (ng_plugin_descriptor
 * event_mask, ABI 1.3): one bit per touch phase (ended and cancelled are one:
 * a touch's end), one per other event type. */
#define NG_WANT_TOUCH_BEGAN  0x01u
#define NG_WANT_TOUCH_MOVED  0x02u
#define NG_WANT_TOUCH_END    0x04u  /* NG_TOUCH_ENDED and NG_TOUCH_CANCELLED */
#define NG_WANT_MOTION       0x08u
#define NG_WANT_REMOTE       0x10u
#define NG_WANT_KEY          0x20u
#define NG_WANT_SCROLL       0x40u
#define NG_WANT_HOVER        0x80u
#define NG_WANT_TOUCH        0x07u  /* every touch phase */
#define NG_WANT_ALL          0xFFu  /* what an event_mask of 0 means */
#define NG_WANT_MAP(XX) \
    XX(NG_WANT_TOUCH_BEGAN, "touch-began") \
    XX(NG_WANT_TOUCH_MOVED, "touch-moved") \
    XX(NG_WANT_TOUCH_END,   "touch-end") \
    XX(NG_WANT_MOTION,      "motion") \
    XX(NG_WANT_REMOTE,      "remote") \
    XX(NG_WANT_KEY,         "key") \
    XX(NG_WANT_SCROLL,      "scroll") \
    XX(NG_WANT_HOVER,       "hover")

/* The NG_WANT_* bit of an event of a valid type and (for touches) phase: the
 * one rule by which the host picks the guards an event is shown to. */
static inline uint32_t ng_event_want(int32_t type, int32_t phase) {
    if (type == NG_EVENT_TOUCH)
        return phase == NG_TOUCH_BEGAN ? NG_WANT_TOUCH_BEGAN
             : phase == NG_TOUCH_MOVED ? NG_WANT_TOUCH_MOVED : NG_WANT_TOUCH_END;
    return NG_WANT_MOTION << (uint32_t)(type - NG_EVENT_MOTION);
}

/* An event as guards see it. */
typedef struct ng_guard_event {
    uint32_t size;
    uint32_t flags;            /* NG_GEVF_* */
    const ng_event *event;
    uint64_t target_view;      /* hit view or the host's target; 0 if none */
    /* No clock reading here: the event path reads no clock unless a guard
     * asks (host->now), so a chain pays only for what it uses. */
} ng_guard_event;

/* ng_track_info and ng_hold_view (track_get, hold_get) are defined in
 * navguard.h, which hosts use too. */

/* A hold began (ended = false) or ended (ended = true, reason set). */
typedef struct ng_hold_notice {
    uint32_t size;
    uint64_t token;
    const char *label;
    uint32_t mask;
    bool ended;
    ng_hold_end_reason reason;
} ng_hold_notice;

/* A question a guard asks the host (host->ask; navguard.h "Questions to the
 * host"). Strings are copied. */
typedef struct ng_question_spec {
    uint32_t size;             /* sizeof(ng_question_spec) at build time */
    const char *topic;         /* required: what is asked, reverse-DNS
                                  ("org.example.admin-pin") */
    const char *text;          /* a prompt the host may show, or NULL */
    uint64_t request_id;       /* the request it concerns (one this guard
                                  deferred, or refused while asking), or 0 */
    ng_request_kind kind;      /* that request's kind */
    uint32_t source;           /* that request's source */
    uint64_t screen_id;        /* the screen it concerns, or 0 */
    int64_t timeout_ns;        /* 0: no limit; else the question ends with
                                  NG_ANSWER_TIMEOUT after this long */
} ng_question_spec;
#define NG_QUESTION_SPEC_INIT { sizeof(ng_question_spec), NULL, NULL, 0u, 0, 0u, 0u, 0 }

/* The host-services table: a guard's only view of and handle on the context.
 * Every function takes the table itself as its first argument. Functions
 * returning ng_status return NG_OK or the status named; actions requested from
 * inside a hook are applied after the hook returns.
 * Threads: every function is for the context's owner thread (where hooks
 * run). Called from any other thread (a guard's own worker) it does nothing:
 * functions returning ng_status return NG_E_THREAD, the others 0 or false,
 * and log drops the message. A guard with work on its own thread hands the
 * result to its next hook (on_tick with a next_deadline of "now") and calls
 * wake, the one function for any thread.
 * Work: past NG_MAX_WORK (navguard.h), the functions that add work (touch,
 * hold, transition and deferred actions, report, request_submit, ask,
 * withdraw) return NG_E_NO_MEMORY and log drops its line, until the host's
 * call returns. What a guard adds, and what that sets off in turn (its
 * request's outcome), counts to it; the error log names the guard that set
 * off the most. */
typedef struct ng_guard_host ng_guard_host;
struct ng_guard_host {
    uint32_t size;
    uint32_t abi_major, abi_minor;   /* the host's plugin ABI */
    void *host_data;                 /* the host's; do not touch */

    /* --- reading state --- */
    int64_t (*now)(const ng_guard_host *h);
    size_t (*stack_count)(const ng_guard_host *h);
    /* NG_E_NOT_FOUND for an index out of range; strings valid until the
     * stack changes. */
    ng_status (*stack_get)(const ng_guard_host *h, size_t index, ng_screen_info *out);
    /* true and *out filled (out may be NULL) when the track is in flight. */
    bool (*track_get)(const ng_guard_host *h, ng_track track, ng_track_info *out);
    uint32_t (*hold_mask)(const ng_guard_host *h);
    size_t (*hold_count)(const ng_guard_host *h);
    ng_status (*hold_get)(const ng_guard_host *h, size_t index, ng_hold_view *out);
    /* Requests deferred by any guard, oldest first (for dedupe and reports). */
    size_t (*deferred_count)(const ng_guard_host *h);
    ng_status (*deferred_get)(const ng_guard_host *h, size_t index, ng_guard_request *out);
    /* Live touches (delivered or withheld; a cancelled touch is retired). */
    size_t (*touch_count)(const ng_guard_host *h);
    ng_status (*touch_get)(const ng_guard_host *h, size_t index, ng_touch_info *out);
    /* Delivered live touches bound to a view. */
    size_t (*view_touch_count)(const ng_guard_host *h, uint64_t view_id);
    /* A view's NG_VIEWF_* flags; NG_E_NOT_FOUND when the host registered no
     * such view (hosts that hit-test themselves). */
    ng_status (*view_flags)(const ng_guard_host *h, uint64_t view_id, uint32_t *out);

    /* --- acting --- */
    /* As ng_hold_begin; the hold belongs to this guard in reports. */
    ng_status (*hold_begin)(const ng_guard_host *h, const char *label, uint32_t mask,
                            int64_t max_duration_ns, uint64_t *out_token);
    /* Ends any live hold (NG_HOLD_RELEASED when not the guard's own);
     * NG_E_NOT_FOUND for an unknown or ended token. */
    ng_status (*hold_end)(const ng_guard_host *h, uint64_t token);
    /* As ng_transition_finish, marked NG_TRANSF_FORCED. */
    ng_status (*transition_finish)(const ng_guard_host *h, ng_track track);
    /* As ng_interactive_cancel, marked NG_TRANSF_FORCED. */
    ng_status (*interactive_cancel)(const ng_guard_host *h);
    /* Apply a request this guard deferred: the chain evaluates it again
     * (attempt + 1); a refusal then ends it DROPPED. NG_E_NOT_FOUND when the
     * id is not deferred by this guard. */
    ng_status (*deferred_apply)(const ng_guard_host *h, uint64_t request_id);
    /* Drop a request this guard deferred, with a reason and an optional
     * message (copied). NG_E_NOT_FOUND as above. */
    ng_status (*deferred_drop)(const ng_guard_host *h, uint64_t request_id, ng_reason reason,
                               const char *message);
    /* Cancel a delivered live touch: the host gets on_touch_cancel once per
     * touch. 0 means every delivered live touch except one driving an
     * interactive back (nothing but its own end, an explicit cancel of its
     * id, or destroy ends that one). NG_E_NOT_FOUND when the touch is not
     * delivered and live. */
    ng_status (*touch_cancel)(const ng_guard_host *h, uint64_t touch_id);
    /* Hand a report (text copied, up to 64 KiB; NG_E_TOO_LONG beyond) to the
     * host's report callback. The host's copy may end with the library's
     * notes: the slow votes since the last report (NG_SLOW_VOTE_MS). */
    ng_status (*report)(const ng_guard_host *h, const char *text);
    /* Log a message (copied) with a severity. */
    void (*log)(const ng_guard_host *h, ng_severity severity, const char *message);

    /* --- configuration: the guard's own config object, typed --- */
    /* NG_OK, NG_E_NOT_FOUND (no such key), NG_E_RANGE (other type or out of
     * the type's range). Strings are valid until the instance is destroyed. */
    ng_status (*config_int)(const ng_guard_host *h, const char *key, int64_t *out);
    ng_status (*config_bool)(const ng_guard_host *h, const char *key, bool *out);
    ng_status (*config_double)(const ng_guard_host *h, const char *key, double *out);
    ng_status (*config_string)(const ng_guard_host *h, const char *key, const char **out);
    /* A list of strings: count, then each item. */
    ng_status (*config_list_count)(const ng_guard_host *h, const char *key, size_t *out);
    ng_status (*config_list_get)(const ng_guard_host *h, const char *key, size_t index,
                                 const char **out);

    /* --- ABI 1.2 (NavGuard 0.3): test NG_HAS_FIELD(h, ng_guard_host, fn)
     * before calling --- */
    /* Make a navigation request as this guard (a timer's pop-to-root, the Back
     * the host agreed to): copied, then evaluated after the hook returns,
     * through the whole chain (this guard included), with its one outcome
     * delivered like any request's (the host's on_outcome, every guard's
     * on_outcome). *out_id (may be NULL) gets its id, from the
     * NG_GUARD_ID_BASE range (navguard.h, above ng_request_submit). Returns
     * NG_OK, NG_E_NULL, NG_E_SIZE, NG_E_RANGE, NG_E_UTF8, NG_E_TOO_LONG (a
     * malformed request, as ng_request_post), NG_E_STATE (the context is
     * being destroyed). */
    ng_status (*request_submit)(const ng_guard_host *h, const ng_request *request, uint64_t *out_id);
    /* Ask the host a question: the host's on_question now, and this guard's
     * on_answer exactly once when it ends (YES, NO, TIMEOUT, WITHDRAWN).
     * A question naming a request or a screen is withdrawn when the stack
     * changes before it is answered (navguard.h, "Questions to the host");
     * the request it names, if this guard deferred it, is then dropped by
     * the core (NG_REASON_STALE) before on_answer hears WITHDRAWN
     * (deferred_apply and deferred_drop of it get NG_E_NOT_FOUND).
     * One question is open per context. *out_id gets its id. Returns NG_OK,
     * NG_E_NULL, NG_E_SIZE, NG_E_RANGE (negative timeout), NG_E_UTF8,
     * NG_E_TOO_LONG, NG_E_PARSE (topic is not a reverse-DNS id), NG_E_STATE
     * (a question is open already, or the context is being destroyed). */
    ng_status (*ask)(const ng_guard_host *h, const ng_question_spec *question, uint64_t *out_id);
    /* Withdraw this guard's open question: it ends with NG_ANSWER_WITHDRAWN
     * (on_answer, the host's on_question_end). NG_E_NOT_FOUND when it is not
     * this guard's open question. */
    ng_status (*withdraw)(const ng_guard_host *h, uint64_t question_id);
    /* As hold_begin, with no time limit, tied to the transition in flight:
     * it ends (NG_HOLD_ENDED) when that transition's screen track ends (DID
     * or CANCELLED), and never apart from it: a watchdog leaves it to the
     * transition's own limit, so one stuck transition gives one report.
     * NG_E_STATE when no transition is in flight. */
    ng_status (*hold_begin_transition)(const ng_guard_host *h, const char *label, uint32_t mask,
                                       uint64_t *out_token);
    /* [any-thread] Wake the owner's loop (the host's on_wake): for a guard
     * whose own thread has a result for its next on_tick (next_deadline
     * returning "now"). The only function of this table any thread may call. */
    void (*wake)(const ng_guard_host *h);
};

/* ------------------------------------------------------------------------ */
/* Configuration options a guard declares (ABI 1.1)                          */
/* ------------------------------------------------------------------------ */
/* A guard lists the keys of its configuration object; the host checks every
 * configuration against the list before create() (an unknown key, a wrong
 * type or a value out of range fails with NG_E_PARSE and says which), the
 * typed config_* getters return a declared default for a key that is absent,
 * and `navguard plugins info` prints the list. */
typedef int32_t ng_option_type;
#define NG_OPT_INT      0  /* a JSON integer in [min, max] */
#define NG_OPT_BOOL     1
#define NG_OPT_DOUBLE   2  /* a JSON number in [min, max] */
#define NG_OPT_STRING   3
#define NG_OPT_ENUM     4  /* a string, one of `choices` */
#define NG_OPT_STRINGS  5  /* an array of strings, [min, max] items, each one
                              of `choices` when it is set */
#define NG_OPT_TYPE_COUNT 6

typedef struct ng_option_decl {
    uint32_t size;              /* sizeof(ng_option_decl) at build time; the
                                   same in every entry. Another value below
                                   NG_OPTION_DECL_MIN_SIZE or above 1024
                                   refuses the guard (NG_E_GUARD). */
    ng_option_type type;
    const char *name;           /* the key; NULL ends the list */
    const char *doc;            /* one line */
    const char *default_json;   /* the default as JSON text ("300", "true",
                                   "\"queue\"", "[]"), or NULL: no default
                                   (absent means "not set") */
    double min, max;            /* INT, DOUBLE: the value range; STRINGS: the
                                   item count; both inclusive. Ignored when
                                   min > max (unbounded). */
    const char *const *choices; /* ENUM: the allowed strings; STRINGS: the
                                   allowed items, or NULL for any string.
                                   NULL-terminated, at most 64, no repeats. */
} ng_option_decl;

/* Declarations, e.g.
 *   static const char *const modes[] = { "refuse", "queue", NULL };
 *   static const ng_option_decl options[] = {
 *       NG_OPTION_INT("limit", "8", 1, 64, "requests kept while busy"),
 *       NG_OPTION_ENUM("mode", "\"queue\"", modes, "what a busy screen does"),
 *       NG_OPTION_END };                                                    */
#define NG_OPTION_INT(name, dflt, lo, hi, doc) \
    { sizeof(ng_option_decl), NG_OPT_INT, (name), (doc), (dflt), (lo), (hi), NULL }
#define NG_OPTION_DOUBLE(name, dflt, lo, hi, doc) \
    { sizeof(ng_option_decl), NG_OPT_DOUBLE, (name), (doc), (dflt), (lo), (hi), NULL }
#define NG_OPTION_BOOL(name, dflt, doc) \
    { sizeof(ng_option_decl), NG_OPT_BOOL, (name), (doc), (dflt), 1.0, 0.0, NULL }
#define NG_OPTION_STRING(name, dflt, doc) \
    { sizeof(ng_option_decl), NG_OPT_STRING, (name), (doc), (dflt), 1.0, 0.0, NULL }
#define NG_OPTION_ENUM(name, dflt, choices, doc) \
    { sizeof(ng_option_decl), NG_OPT_ENUM, (name), (doc), (dflt), 1.0, 0.0, (choices) }
#define NG_OPTION_STRINGS(name, dflt, lo, hi, doc) \
    { sizeof(ng_option_decl), NG_OPT_STRINGS, (name), (doc), (dflt), (lo), (hi), NULL }
#define NG_OPTION_STRINGS_OF(name, dflt, lo, hi, choices, doc) \
    { sizeof(ng_option_decl), NG_OPT_STRINGS, (name), (doc), (dflt), (lo), (hi), (choices) }
#define NG_OPTION_END { sizeof(ng_option_decl), 0, NULL, NULL, NULL, 0.0, 0.0, NULL }
#define NG_MAX_OPTIONS 64   /* declarations per guard */

/* The descriptor a plugin returns. Static storage. */
typedef struct ng_plugin_descriptor {
    uint32_t abi_major;        /* NG_PLUGIN_ABI_MAJOR at build time */
    uint32_t abi_minor;        /* NG_PLUGIN_ABI_MINOR at build time */
    uint32_t size;             /* sizeof(ng_plugin_descriptor) at build time */
    const char *id;            /* reverse-DNS, e.g. "org.navguard.watchdog" */
    const char *name;
    const char *version;
    const char *description;

    /* Create an instance. `config_json` is the guard's configuration object
     * as text ("{}" when none); typed getters on `host` read the same. Must do
     * no I/O. Return NULL on failure (log why through host->log). */
    void *(*create)(const ng_guard_host *host, const char *config_json);
    /* Destroy an instance. Called once, at context destruction. */
    void (*destroy)(void *instance);

    /* Vote on a request. Return NG_VOTE_*; fill *verdict when not allowing.
     * Timed: a request whose votes take longer than NG_SLOW_VOTE_MS in all
     * is logged (NG_LOG_WARN) naming its slowest guard. */
    ng_vote (*on_request)(void *instance, const ng_guard_request *request, ng_verdict *verdict);
    /* Vote on an input event: ALLOW delivers, REFUSE drops. */
    ng_vote (*on_event)(void *instance, const ng_guard_event *event, ng_verdict *verdict);
    /* Observe the final outcome of every request. */
    void (*on_outcome)(void *instance, const ng_outcome *outcome);
    /* Observe transition phases, in delegate order, before the delegate. */
    void (*on_transition)(void *instance, const ng_transition_event *event);
    /* Observe holds beginning and ending. */
    void (*on_hold)(void *instance, const ng_hold_notice *notice);
    /* Called from ng_tick once now >= the time next_deadline returned. */
    void (*on_tick)(void *instance, int64_t now_ns);
    /* When to call on_tick next, or NG_NO_DEADLINE. */
    int64_t (*next_deadline)(void *instance);
    /* Optional capabilities by versioned id ("org.navguard.x/1"); unknown id
     * must return NULL. */
    const void *(*get_extension)(void *instance, const char *id);

    /* --- ABI 1.1 --- */
    /* The configuration keys, ended by NG_OPTION_END (at most NG_MAX_OPTIONS).
     * NULL: nothing declared, the configuration is not checked (as for a 1.0
     * guard). A guard that takes no options points at a list holding only
     * NG_OPTION_END, and then any key is refused. */
    const ng_option_decl *options;

    /* --- ABI 1.2 --- */
    /* A question this guard asked (host->ask) ended, exactly once: `answer`
     * is the host's (YES, NO), TIMEOUT or WITHDRAWN. `question` is valid
     * during the call. */
    void (*on_answer)(void *instance, const ng_question *question, ng_answer answer);

    /* --- ABI 1.3 --- */
    /* The events on_event is called for (NG_WANT_*): an event whose bit is
     * not set passes this guard as if it allowed it. 0 (as in a descriptor
     * built before 1.3, or one that leaves it out): every event. A touch's
     * end always reaches the guards that asked for NG_WANT_TOUCH_END, so a
     * guard that tracks touches asks for began and end together. */
    uint32_t event_mask;
} ng_plugin_descriptor;

/* The ABI fields every descriptor starts with, for a C designated
 * initializer (hooks left out are NULL, as any hook may be):
 *   static const ng_plugin_descriptor descriptor = {
 *       NG_PLUGIN_DESCRIPTOR_ABI,
 *       .id = "org.example.quiet-hours", .name = "quiet-hours", .version = "1.0",
 *       .description = "...", .create = create, .destroy = destroy,
 *       .on_request = on_request, .options = options,
 *   };                                                                     */
#define NG_PLUGIN_DESCRIPTOR_ABI \
    .abi_major = NG_PLUGIN_ABI_MAJOR, .abi_minor = NG_PLUGIN_ABI_MINOR, .size = sizeof(ng_plugin_descriptor)

/* Frozen minimum sizes (ABI 1.0 layouts; see Versioning above). */
enum {
    NG_PLUGIN_DESCRIPTOR_MIN_SIZE = offsetof(ng_plugin_descriptor, options),
    NG_GUARD_HOST_MIN_SIZE = offsetof(ng_guard_host, config_list_get) + sizeof(void (*)(void)),
    NG_GUARD_REQUEST_MIN_SIZE = offsetof(ng_guard_request, kind),
    NG_OPTION_DECL_MIN_SIZE = offsetof(ng_option_decl, choices) + sizeof(const char *const *),
    NG_QUESTION_SPEC_MIN_SIZE = offsetof(ng_question_spec, timeout_ns) + sizeof(int64_t)  /* ABI 1.2 */
};

/* The entry point every plugin library exports, and its type. */
typedef const ng_plugin_descriptor *(*ng_plugin_entry_fn)(void);

#ifdef __cplusplus
}
#endif
#endif /* NAVGUARD_PLUGIN_H */
