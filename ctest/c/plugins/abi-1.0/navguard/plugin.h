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
 * and its size. A host refuses a different major and a newer minor than its
 * own, with a message naming both. New fields and host functions are only
 * ever added at the end of their structs.
 */
#ifndef NAVGUARD_PLUGIN_H
#define NAVGUARD_PLUGIN_H

#include "navguard.h"

#ifdef __cplusplus
extern "C" {
#endif

#define NG_PLUGIN_ABI_MAJOR 1
#define NG_PLUGIN_ABI_MINOR 0
#define NG_PLUGIN_ENTRY_SYMBOL "ng_plugin_entry"

/* Guard votes (hook return values). */
typedef int32_t ng_vote;
#define NG_VOTE_ALLOW   0  /* request: let it pass; event: deliver */
#define NG_VOTE_REFUSE  1  /* request: refuse; event: drop */
#define NG_VOTE_DEFER   2  /* request only: the guard keeps its id and later
                              calls deferred_apply or deferred_drop */

/* Log severities. */
typedef int32_t ng_severity;
#define NG_LOG_DEBUG  0
#define NG_LOG_INFO   1
#define NG_LOG_WARN   2
#define NG_LOG_ERROR  3

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
} ng_guard_request;

/* Guard event flags. */
#define NG_GEVF_FINAL  0x1u  /* the ended/cancelled phase of a delivered touch:
                                always delivered; the vote is not used */

/* An event as guards see it. */
typedef struct ng_guard_event {
    uint32_t size;
    uint32_t flags;            /* NG_GEVF_* */
    const ng_event *event;
    uint64_t target_view;      /* hit view or the host's target; 0 if none */
    /* No clock reading here: the event path reads no clock unless a guard
     * asks (host->now), so a chain pays only for what it uses. */
} ng_guard_event;

/* A transition track in flight. */
typedef struct ng_track_info {
    uint32_t size;
    uint64_t request_id;
    ng_request_kind kind;
    uint32_t flags;            /* NG_TRANSF_* */
    int64_t began_ns;
    int64_t deadline_ns;       /* timed: when the core ends it; else NG_NO_DEADLINE */
    double progress;           /* interactive back progress, 0..1 */
} ng_track_info;

/* A live hold. */
typedef struct ng_hold_view {
    uint32_t size;
    uint64_t token;
    const char *label;         /* valid until the hold ends */
    uint32_t mask;
    int64_t began_ns;
    int64_t deadline_ns;       /* NG_NO_DEADLINE when unlimited */
} ng_hold_view;

/* A hold began (ended = false) or ended (ended = true, reason set). */
typedef struct ng_hold_notice {
    uint32_t size;
    uint64_t token;
    const char *label;
    uint32_t mask;
    bool ended;
    ng_hold_end_reason reason;
} ng_hold_notice;

/* The host-services table: a guard's only view of and handle on the context.
 * Every function takes the table itself as its first argument. Functions
 * returning ng_status return NG_OK or the status named; actions requested from
 * inside a hook are applied after the hook returns. */
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
    /* Live touches (delivered, withheld or cancelled-awaiting-end). */
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
    /* As ng_interactive_cancel. */
    ng_status (*interactive_cancel)(const ng_guard_host *h);
    /* Apply a request this guard deferred: the chain evaluates it again
     * (attempt + 1); a refusal then ends it DROPPED. NG_E_NOT_FOUND when the
     * id is not deferred by this guard. */
    ng_status (*deferred_apply)(const ng_guard_host *h, uint64_t request_id);
    /* Drop a request this guard deferred, with a reason and an optional
     * message (copied). NG_E_NOT_FOUND as above. */
    ng_status (*deferred_drop)(const ng_guard_host *h, uint64_t request_id, ng_reason reason,
                               const char *message);
    /* Cancel a delivered live touch (0: every delivered live touch): the host
     * gets on_touch_cancel once per touch. NG_E_NOT_FOUND when the touch is
     * not delivered and live. */
    ng_status (*touch_cancel)(const ng_guard_host *h, uint64_t touch_id);
    /* Hand a report (text copied, up to 64 KiB; NG_E_TOO_LONG beyond) to the
     * host's report callback. */
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
};

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

    /* Vote on a request. Return NG_VOTE_*; fill *verdict when not allowing. */
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
} ng_plugin_descriptor;

/* The entry point every plugin library exports, and its type. */
typedef const ng_plugin_descriptor *(*ng_plugin_entry_fn)(void);

#ifdef __cplusplus
}
#endif
#endif /* NAVGUARD_PLUGIN_H */
