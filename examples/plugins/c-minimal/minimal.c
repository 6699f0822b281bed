/* SPDX-License-Identifier: Apache-2.0 */
/*
 * minimal.c — a complete NavGuard guard plugin in one C file.
 *
 * TEMPLATE FOR INTEGRATORS: copy this file, change the id, the names and the
 * policy, and build it as a shared library that exports only
 * ng_plugin_entry (see CMakeLists.txt next to this file, or the plain
 * compiler command in examples/plugins/README.md). It includes nothing but
 * <navguard/plugin.h> (which includes navguard.h) and the C library, and it
 * does not link libnavguard: everything it reads or does goes through the
 * ng_guard_host table the host hands to create().
 *
 * The guard: org.example.quiet-hours. During quiet hours a kiosk must not
 * open some screens. The configuration names them:
 *
 *     {"blocked_routes": ["settings", "admin"], "message": "closed tonight"}
 *
 *   blocked_routes  list of 0..64 strings, default []: routes whose push (or
 *                   a replace-stack whose new top is one of them) is refused
 *                   with NG_REASON_POLICY.
 *   message         string: the refusal message the host sees.
 *
 * The guard declares both options (qh_options below). The host checks every
 * configuration against them before create() runs: an unknown key, a wrong
 * type or a list too long fails ng_chain_add / ng_plugin_load with NG_E_PARSE
 * and an ng_errmsg naming the key; `navguard plugins info quiet-hours.so`
 * prints them; an absent key reads as its declared default. create() checks
 * only what a declaration cannot say (no empty route), logs why and returns
 * NULL: the host then fails with NG_E_GUARD and that reason.
 *
 * Check it with:  navguard plugins validate quiet-hours.so
 */
#include <navguard/plugin.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The largest configuration this guard accepts (it allocates nothing else). */
#define MAX_BLOCKED 64

/* One instance per context. Everything a hook needs lives here: no globals,
 * so two contexts (or two hosts in one process) never share state. */
typedef struct quiet_hours {
    const ng_guard_host *host;  /* valid from create() until destroy() returns */
    size_t blocked_count;
    /* Strings from the host's config getters stay valid until the instance is
     * destroyed, so the guard keeps the pointers instead of copying. */
    const char *blocked[MAX_BLOCKED];
    const char *message;        /* refusal message: must outlive the hook */
    unsigned long refusals;
} quiet_hours;

/* The configuration keys, with their types, ranges and defaults (plugin.h
 * ng_option_decl). Static storage; NG_OPTION_END ends the list. */
static const ng_option_decl qh_options[] = {
    NG_OPTION_STRINGS("blocked_routes", "[]", 0, MAX_BLOCKED, "routes whose push is refused"),
    NG_OPTION_STRING("message", "\"this screen is closed during quiet hours\"", "the refusal message the host sees"),
    NG_OPTION_END,
};

/* create(): read the configuration, log, allocate. No I/O. Return NULL on any
 * problem, after saying why through host->log. */
static void *qh_create(const ng_guard_host *host, const char *config_json) {
    (void)config_json;  /* the typed getters below read the same object */
    quiet_hours *g = calloc(1, sizeof *g);
    if (!g) {
        host->log(host, NG_LOG_ERROR, "quiet-hours: out of memory");
        return NULL;
    }
    g->host = host;

    /* Types and the list's length were checked by the host (qh_options). */
    size_t n = 0;
    host->config_list_count(host, "blocked_routes", &n);
    for (size_t i = 0; i < n && i < MAX_BLOCKED; i++) {
        const char *route = NULL;
        if (host->config_list_get(host, "blocked_routes", i, &route) != NG_OK || !route || !route[0]) {
            host->log(host, NG_LOG_ERROR, "quiet-hours: every \"blocked_routes\" item must be a non-empty string");
            free(g);
            return NULL;
        }
        g->blocked[g->blocked_count++] = route;
    }

    host->config_string(host, "message", &g->message);

    /* The log text is copied by the host: a stack buffer is fine. */
    char line[160];
    snprintf(line, sizeof line, "quiet-hours: %zu route%s blocked", g->blocked_count,
             g->blocked_count == 1 ? "" : "s");
    host->log(host, NG_LOG_INFO, line);
    return g;
}

/* destroy(): called once, at context destruction. */
static void qh_destroy(void *instance) {
    free(instance);
}

static int qh_is_blocked(const quiet_hours *g, const char *route) {
    if (!route) return 0;
    for (size_t i = 0; i < g->blocked_count; i++)
        if (strcmp(g->blocked[i], route) == 0) return 1;
    return 0;
}

/* on_request(): vote. Fill the verdict only when not allowing; its message
 * must be static or owned by the instance. Never block, never call the
 * navguard.h API from a hook. */
static ng_vote qh_on_request(void *instance, const ng_guard_request *request, ng_verdict *verdict) {
    quiet_hours *g = instance;
    const char *route = NULL;
    if (request->kind == NG_REQ_PUSH && request->screen) {
        route = request->screen->route;
    } else if (request->kind == NG_REQ_REPLACE_STACK && request->screens && request->screen_count > 0) {
        route = request->screens[request->screen_count - 1].route;  /* the new top */
    }
    if (!qh_is_blocked(g, route)) return NG_VOTE_ALLOW;
    g->refusals++;
    verdict->reason = NG_REASON_POLICY;
    verdict->message = g->message;
    return NG_VOTE_REFUSE;
}

/* The descriptor: static storage. NG_PLUGIN_DESCRIPTOR_ABI fills the ABI
 * version and size; designated initializers leave every hook the guard does
 * not need NULL, and keep compiling (with -Wextra) when a later plugin ABI
 * appends fields. */
static const ng_plugin_descriptor qh_descriptor = {
    NG_PLUGIN_DESCRIPTOR_ABI,
    .id = "org.example.quiet-hours",    /* reverse-DNS; file quiet-hours.so */
    .name = "quiet-hours",
    .version = "1.0.0",
    .description = "Refuses pushes of the routes listed in \"blocked_routes\" (NG_REASON_POLICY).",
    .create = qh_create,
    .destroy = qh_destroy,
    .on_request = qh_on_request,
    .options = qh_options,
};

/* The one exported symbol. The version script (cmake/navguard-plugin.map)
 * makes everything else local; visibility("default") keeps it exported even
 * when compiled with -fvisibility=hidden. */
__attribute__((visibility("default")))
const ng_plugin_descriptor *ng_plugin_entry(void) {
    return &qh_descriptor;
}
