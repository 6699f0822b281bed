/* SPDX-License-Identifier: Apache-2.0 */
/* org.navguard.confirm-leave — asks the host before any request removes a
 * screen marked NG_SCREENF_CONFIRM_LEAVE ("Leave checkout?"), whatever path
 * it comes by: the Back button, the Back key, a swipe, a timer's pop-to-root,
 * a deep link's replace-stack, a posted request or one a guard made.
 *
 * It sits last in the chain, so it asks only about a request every other
 * guard let through. Such a request is deferred and the host is asked (a
 * question, topic org.navguard.confirm-leave, text "Leave <route>?"): yes
 * applies it (the chain evaluates it again), no refuses it
 * (NG_REASON_DECLINED). Nobody answering is not a person saying no: a
 * person's request unanswered within timeout_ms is dropped
 * NG_REASON_UNANSWERED (the screen stays; a report only with
 * report_unanswered, for a kiosk where someone must always answer), and a
 * request made with nobody present (NG_REQF_UNATTENDED: an idle return, a
 * remote reset) is asked with unattended_timeout_ms and, unanswered, goes on:
 * one log line, no report. A swipe back (interactive back) on a marked screen does not
 * start: the finger would be long gone by the answer. It is refused
 * NG_REASON_ASKING and the host is asked as for Back; yes makes an animated
 * Back on the swipe's behalf (request_submit). While the question is open, a
 * request that would remove a marked screen is refused NG_REASON_ASKING (a
 * second press of Back does not get round the dialog), and every other
 * request waits for the answer (deferred, up to `limit`, then queue-full):
 * the stack the host is asked about is the stack the answer applies to. The
 * host's own changes (ng_stack_restore) cannot wait: the core withdraws the
 * question then and drops the held request (stale) before on_answer hears
 * WITHDRAWN, and what waited goes on. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include "../common/ngg_util.h"
#include "navguard_builtins.h"

#define MAX_WAITING 64
#define MAX_APPROVED 8
#define TOPIC "org.navguard.confirm-leave"

NGG_NAME_FUNCTION(kind_name, NG_REQUEST_KIND_MAP)

typedef struct {
    const ng_guard_host *host;
    int64_t timeout_ns;
    int64_t unattended_timeout_ns;
    bool report_unanswered;
    size_t limit;
    /* the open question, and what it holds */
    uint64_t question;          /* 0: none open */
    uint64_t held;              /* the deferred request asked about (0: a swipe) */
    ng_request_kind held_kind;
    bool held_unattended;       /* held carries NG_REQF_UNATTENDED */
    uint32_t swipe_source;      /* the refused swipe's source, for its Back */
    char route[64];             /* the screen asked about, for messages */
    /* requests that wait for the answer, oldest first */
    uint64_t waiting[MAX_WAITING];
    size_t nwaiting;
    /* requests the host agreed to: allowed until their outcome */
    uint64_t approved[MAX_APPROVED];
    size_t napproved;
    char text[96];
} confirm_leave;

static const ng_option_decl options[] = {
    NG_OPTION_INT("timeout_ms", "30000", 0, 86400000,
                  "drop a person's held request (NG_REASON_UNANSWERED) when the host has not answered after this long; 0: wait for ever"),
    NG_OPTION_INT("unattended_timeout_ms", "10000", 0, 86400000,
                  "apply a held NG_REQF_UNATTENDED request (an idle return) when the host has not answered after this long; 0: wait for ever"),
    NG_OPTION_BOOL("report_unanswered", "false",
                   "post a report when a person's request is dropped unanswered (nobody answering is a fault here)"),
    NG_OPTION_INT("limit", "8", 1, MAX_WAITING, "requests kept waiting while a question is open"),
    NG_OPTION_END,
};

static void *create(const ng_guard_host *host, const char *config) {
    (void)config;
    if (!NG_HAS_FIELD(host, ng_guard_host, wake)) {
        host->log(host, NG_LOG_ERROR, "confirm-leave needs a host of plugin ABI 1.2 or later (questions)");
        return NULL;
    }
    confirm_leave *g = calloc(1, sizeof *g);
    if (!g) return NULL;
    g->host = host;
    g->timeout_ns = ngg_int(host, "timeout_ms") * NGG_MS;
    g->unattended_timeout_ns = ngg_int(host, "unattended_timeout_ms") * NGG_MS;
    g->report_unanswered = ngg_bool(host, "report_unanswered");
    g->limit = (size_t)ngg_int(host, "limit");
    return g;
}

static void destroy(void *inst) { free(inst); }

static bool remove_id(uint64_t *ids, size_t *n, uint64_t id) {
    for (size_t i = 0; i < *n; i++) {
        if (ids[i] == id) {
            memmove(ids + i, ids + i + 1, (*n - i - 1) * sizeof ids[0]);
            (*n)--;
            return true;
        }
    }
    return false;
}

static bool has_id(const uint64_t *ids, size_t n, uint64_t id) {
    for (size_t i = 0; i < n; i++)
        if (ids[i] == id) return true;
    return false;
}

static bool in_list(const ng_screen *screens, size_t n, uint64_t id) {
    for (size_t i = 0; i < n; i++)
        if (screens[i].id == id) return true;
    return false;
}

/* The top-most marked screen the request would remove from the stack, or
 * false. The stack rules (at-root, not-found) are the core's: a request they
 * will refuse removes nothing. */
static bool marked_removal(const ng_guard_host *h, const ng_guard_request *r, ng_screen_info *out) {
    size_t n = h->stack_count(h);
    size_t keep = n;                        /* screens [0, keep) stay */
    switch (r->kind) {
    case NG_REQ_POP: case NG_REQ_BACK: case NG_REQ_INTERACTIVE_BACK:
        keep = n > 1 ? n - 1 : n;
        break;
    case NG_REQ_POP_TO_ROOT:
        keep = n > 1 ? 1 : n;
        break;
    case NG_REQ_POP_TO:
        for (size_t i = n; i-- > 0;) {
            ng_screen_info s = NG_SCREEN_INFO_INIT;
            if (h->stack_get(h, i, &s) == NG_OK && s.id == r->target_id) { keep = i + 1; break; }
        }
        break;
    case NG_REQ_REPLACE_STACK:
        keep = 0;                           /* every screen not in the new list goes */
        break;
    default:
        return false;
    }
    for (size_t i = n; i-- > keep;) {
        ng_screen_info s = NG_SCREEN_INFO_INIT;
        if (h->stack_get(h, i, &s) != NG_OK || !(s.flags & NG_SCREENF_CONFIRM_LEAVE)) continue;
        if (r->kind == NG_REQ_REPLACE_STACK && in_list(r->screens, r->screen_count, s.id)) continue;
        *out = s;
        return true;
    }
    return false;
}

static ng_vote refuse(ng_verdict *v, ng_reason reason, const char *msg) {
    v->reason = reason;
    v->message = msg;
    return NG_VOTE_REFUSE;
}

static ng_vote on_request(void *inst, const ng_guard_request *r, ng_verdict *v) {
    confirm_leave *g = inst;
    const ng_guard_host *h = g->host;
    if (has_id(g->approved, g->napproved, r->request_id)) return NG_VOTE_ALLOW;
    ng_screen_info s = NG_SCREEN_INFO_INIT;
    bool marked = marked_removal(h, r, &s);
    if (g->question != 0) {
        if (marked) return refuse(v, NG_REASON_ASKING, "waiting for the host's answer about leaving");
        if (g->nwaiting >= g->limit) return refuse(v, NG_REASON_QUEUE_FULL, "too many requests wait for the host's answer");
        g->waiting[g->nwaiting++] = r->request_id;
        return NG_VOTE_DEFER;
    }
    if (!marked) return NG_VOTE_ALLOW;

    snprintf(g->route, sizeof g->route, "%s", s.route ? s.route : "");
    snprintf(g->text, sizeof g->text, "Leave %s?", g->route);
    ng_question_spec q = NG_QUESTION_SPEC_INIT;
    q.topic = TOPIC;
    q.text = g->text;
    q.request_id = r->request_id;
    q.kind = r->kind;
    q.source = r->source;
    q.screen_id = s.id;
    /* A swipe is a person's finger, whatever its flags. */
    bool unattended = (r->flags & NG_REQF_UNATTENDED) && r->kind != NG_REQ_INTERACTIVE_BACK;
    q.timeout_ns = unattended ? g->unattended_timeout_ns : g->timeout_ns;
    uint64_t id = 0;
    if (h->ask(h, &q, &id) != NG_OK)           /* another guard's question is open */
        return refuse(v, NG_REASON_ASKING, "another question to the host is open");
    g->question = id;
    g->held_kind = r->kind;
    g->held_unattended = unattended;
    if (r->kind == NG_REQ_INTERACTIVE_BACK) {
        g->held = 0;
        g->swipe_source = r->source;
        return refuse(v, NG_REASON_ASKING, "a swipe does not start on a screen that asks before leaving; the host is asked as for Back");
    }
    g->held = r->request_id;
    return NG_VOTE_DEFER;
}

static void approve(confirm_leave *g, uint64_t id) {
    if (g->napproved == MAX_APPROVED) remove_id(g->approved, &g->napproved, g->approved[0]);
    g->approved[g->napproved++] = id;
}

static void on_answer(void *inst, const ng_question *q, ng_answer answer) {
    confirm_leave *g = inst;
    const ng_guard_host *h = g->host;
    if (q->question_id != g->question) return;
    g->question = 0;
    char msg[256];
    if (answer == NG_ANSWER_TIMEOUT && g->held_unattended && g->held != 0) {
        /* Nobody is there: the unattended request goes on, as if answered yes. */
        snprintf(msg, sizeof msg, "no answer about leaving %s within %" PRId64 " ms; the unattended %s (request %" PRIu64 ") goes on",
                 g->route, (int64_t)(g->unattended_timeout_ns / NGG_MS), kind_name(g->held_kind), g->held);
        h->log(h, NG_LOG_INFO, msg);
        approve(g, g->held);
        h->deferred_apply(h, g->held);
    } else if (answer == NG_ANSWER_YES) {
        if (g->held != 0) {
            approve(g, g->held);
            h->deferred_apply(h, g->held);
        } else {
            /* The swipe that did not start becomes an animated Back. */
            ng_request back = NG_REQUEST_INIT(NG_REQ_BACK);
            back.flags = NG_REQF_ANIMATED;
            back.source = g->swipe_source;
            uint64_t id = 0;
            if (h->request_submit(h, &back, &id) == NG_OK) approve(g, id);
        }
    } else {
        if (answer == NG_ANSWER_NO)
            snprintf(msg, sizeof msg, "the host answered no to leaving %s", g->route);
        else if (answer == NG_ANSWER_TIMEOUT)
            snprintf(msg, sizeof msg, "no answer about leaving %s within %" PRId64 " ms", g->route,
                     (int64_t)(g->timeout_ns / NGG_MS));
        else
            snprintf(msg, sizeof msg, "the question about leaving %s was withdrawn", g->route);
        if (g->held != 0)
            h->deferred_drop(h, g->held, answer == NG_ANSWER_TIMEOUT ? NG_REASON_UNANSWERED : NG_REASON_DECLINED, msg);
        if (answer == NG_ANSWER_TIMEOUT && g->report_unanswered) {
            char report[512];
            snprintf(report, sizeof report,
                     "confirm-leave: %s; the %s (request %" PRIu64 ") was dropped unanswered and %s stays\n", msg,
                     kind_name(g->held_kind), q->request_id, g->route);
            h->report(h, report);
        }
    }
    g->held = 0;
    g->held_unattended = false;
    /* What waited for the answer goes on, in order. */
    uint64_t ids[MAX_WAITING];
    size_t n = g->nwaiting;
    memcpy(ids, g->waiting, n * sizeof ids[0]);
    g->nwaiting = 0;
    for (size_t i = 0; i < n; i++) h->deferred_apply(h, ids[i]);
}

static void on_outcome(void *inst, const ng_outcome *o) {
    confirm_leave *g = inst;
    remove_id(g->approved, &g->napproved, o->request_id);
    /* Ended elsewhere (destroy): it no longer waits. */
    remove_id(g->waiting, &g->nwaiting, o->request_id);
    if (o->request_id == g->held) g->held = 0;
}

static const ng_plugin_descriptor descriptor = {
    NG_PLUGIN_DESCRIPTOR_ABI,
    .id = "org.navguard.confirm-leave",
    .name = "confirm-leave",
    .version = NGG_VERSION,
    .description = "Asks the host before any request removes a screen marked NG_SCREENF_CONFIRM_LEAVE; "
                   "no refuses it; unanswered, a person's request is dropped and an unattended one goes on.",
    .create = create,
    .destroy = destroy,
    .on_request = on_request,
    .on_outcome = on_outcome,
    .options = options,
    .on_answer = on_answer,
};

const ng_plugin_descriptor *ngg_confirm_leave_descriptor(void) { return &descriptor; }
