/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_minimal.c — loads the quiet-hours example plugin the way a host does
 * (ng_plugin_load) and checks that it refuses a blocked route with
 * NG_REASON_POLICY, lets other routes through, logs at create, and fails
 * cleanly on a bad configuration.
 *
 *   test_minimal <path to quiet-hours.so>
 */
#include <navguard/navguard.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;
#define CHECK(cond, ...)                                                  \
    do {                                                                  \
        if (!(cond)) {                                                    \
            failures++;                                                   \
            fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                 \
            fputc('\n', stderr);                                          \
        }                                                                 \
    } while (0)

static char last_log[256];

static void on_log(void *user, ng_context *ctx, int32_t severity, const char *guard_id, const char *message) {
    (void)user; (void)ctx;
    printf("log [%d] %s: %s\n", severity, guard_id ? guard_id : "core", message);
    snprintf(last_log, sizeof last_log, "%s", message);
}

static ng_context *make_context(void) {
    ng_options opts = NG_OPTIONS_INIT;
    opts.clock = NG_CLOCK_MANUAL;
    opts.delegate.on_log = on_log;
    ng_context *ctx = NULL;
    if (ng_context_create(&opts, &ctx) != NG_OK) return NULL;
    ng_screen root = { 1, "home", NULL };
    if (ng_stack_set_root(ctx, &root) != NG_OK) return NULL;
    return ctx;
}

static ng_request_result push(ng_context *ctx, uint64_t id, const char *route) {
    ng_request req = NG_REQUEST_INIT(NG_REQ_PUSH);
    req.screen.id = id;
    req.screen.route = route;
    ng_request_result res = NG_REQUEST_RESULT_INIT;
    ng_status st = ng_request_submit(ctx, &req, &res);
    CHECK(st == NG_OK, "ng_request_submit: %s", ng_strstatus(st));
    return res;
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s <quiet-hours.so>\n", argv[0]);
        return 2;
    }
    const char *plugin = argv[1];

    /* 1. Loaded with a configuration: "settings" is refused, "about" is not. */
    ng_context *ctx = make_context();
    CHECK(ctx != NULL, "context");
    if (!ctx) return 1;
    ng_status st = ng_plugin_load(ctx, plugin, "{\"blocked_routes\": [\"settings\", \"admin\"]}");
    CHECK(st == NG_OK, "ng_plugin_load: %s: %s", ng_strstatus(st), ng_errmsg(ctx));
    CHECK(strstr(last_log, "2 routes blocked") != NULL, "create logged \"%s\"", last_log);

    const char *id = NULL;
    CHECK(ng_chain_get_id(ctx, 0, &id) == NG_OK && id && strcmp(id, "org.example.quiet-hours") == 0,
          "chain id %s", id ? id : "(null)");

    ng_request_result res = push(ctx, 2, "settings");
    CHECK(res.status == NG_OUTCOME_REFUSED, "push settings: %s", ng_outcome_name(res.status));
    CHECK(res.reason == NG_REASON_POLICY, "push settings: reason %s", ng_reason_name(res.reason));
    CHECK(res.guard_id && strcmp(res.guard_id, "org.example.quiet-hours") == 0, "refused by %s",
          res.guard_id ? res.guard_id : "(null)");
    printf("push settings: %s (%s) by %s\n", ng_outcome_name(res.status), ng_reason_name(res.reason),
           res.guard_id ? res.guard_id : "-");

    res = push(ctx, 3, "about");
    CHECK(res.status == NG_OUTCOME_APPLIED, "push about: %s", ng_outcome_name(res.status));
    printf("push about: %s\n", ng_outcome_name(res.status));

    size_t depth = 0;
    ng_stack_count(ctx, &depth);
    CHECK(depth == 2, "stack depth %zu", depth);
    CHECK(ng_context_destroy(ctx) == NG_OK, "destroy");

    /* 2. A bad configuration fails cleanly, with the guard's reason logged. */
    ctx = make_context();
    CHECK(ctx != NULL, "context");
    if (!ctx) return 1;
    st = ng_plugin_load(ctx, plugin, "{\"blocked_routes\": \"settings\"}");
    CHECK(st == NG_E_GUARD, "bad config: %s", ng_strstatus(st));
    CHECK(strstr(last_log, "must be a list of strings") != NULL, "bad config logged \"%s\"", last_log);
    printf("bad config: %s (%s)\n", ng_strstatus(st), last_log);
    ng_context_destroy(ctx);

    if (failures) {
        fprintf(stderr, "%d check(s) failed\n", failures);
        return 1;
    }
    printf("quiet-hours plugin: all checks passed\n");
    return 0;
}
