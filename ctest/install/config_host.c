/* SPDX-License-Identifier: Apache-2.0 */
/*
 * config_host.c — guard configuration from a C host built against the
 * installed tree only (installed headers, pkg-config, libnavguard.so and the
 * plugins beside it): declared options checked before create, their errors
 * in ng_errmsg, chain composition, the default chain's policy and a 0.1-sized
 * request. Compiled and run by ctest installed_config_host.
 */
#include <navguard/navguard.h>
#include <navguard/plugin.h>

#include <stddef.h>
#include <stdio.h>
#include <string.h>

static int failures, checks;

#define CHECK(cond, ...)                                                       \
    do {                                                                       \
        checks++;                                                              \
        if (!(cond)) {                                                         \
            failures++;                                                        \
            fprintf(stderr, "FAIL config_host.c:%d: %s: ", __LINE__, #cond);   \
            fprintf(stderr, __VA_ARGS__);                                      \
            fprintf(stderr, "\n");                                             \
        }                                                                      \
    } while (0)

static ng_context *context(void) {
    ng_options o = NG_OPTIONS_INIT;
    o.clock = NG_CLOCK_MANUAL;
    ng_context *ctx = NULL;
    if (ng_context_create(&o, &ctx) != NG_OK) return NULL;
    ng_screen home = { 1, "home", NULL };
    ng_stack_set_root(ctx, &home);
    return ctx;
}

static void expect_config(const char *json, ng_status want, const char *says) {
    ng_context *ctx = context();
    ng_status st = ng_chain_configure(ctx, json);
    CHECK(st == want, "%s -> %s (want %s): %s", json, ng_strstatus(st), ng_strstatus(want), ng_errmsg(ctx));
    if (says) CHECK(strstr(ng_errmsg(ctx), says) != NULL, "%s: errmsg \"%s\" lacks \"%s\"", json, ng_errmsg(ctx), says);
    size_t n = 99;
    ng_chain_count(ctx, &n);
    if (want != NG_OK) CHECK(n == 0, "all or nothing: %zu guards left", n);
    ng_context_destroy(ctx);
}

static ng_outcome_kind submit(ng_context *ctx, ng_request_kind kind, uint64_t id, uint32_t source) {
    ng_request r = NG_REQUEST_INIT(kind);
    r.source = source;
    r.screen.id = id;
    r.screen.route = "screen";
    r.screen.identity = id == 2 ? "two" : "other";
    ng_request_result res = NG_REQUEST_RESULT_INIT;
    if (ng_request_submit(ctx, &r, &res) != NG_OK) return -1;
    return res.status;
}

int main(void) {
    /* The installed plugins are found beside the installed library. */
    expect_config(NULL, NG_OK, NULL);
    /* Declared options, checked before create; the reason in ng_errmsg. */
    expect_config("{\"guards\":[{\"id\":\"org.navguard.throttle\",\"config\":{\"intervl_ms\":100}}]}", NG_E_PARSE,
                  "guard org.navguard.throttle: unknown option \"intervl_ms\"; valid keys: interval_ms");
    expect_config("{\"guards\":[{\"id\":\"org.navguard.watchdog\",\"config\":{\"report\":\"yes\"}}]}", NG_E_PARSE,
                  "option \"report\" must be true or false, not \"yes\"");
    expect_config("{\"guards\":[{\"id\":\"org.navguard.transition\",\"config\":{\"limit\":0}}]}", NG_E_PARSE,
                  "option \"limit\" must be an integer in 1..64, not 0");
    expect_config("{\"guards\":[{\"id\":\"org.navguard.ffi-predicate\",\"config\":{\"symbol\":\"no_such_function_here\"}}]}",
                  NG_E_GUARD, "failed to create: ffi-predicate: symbol \"no_such_function_here\"");
    expect_config("{\"guards\":[],\"guards\":[]}", NG_E_PARSE, "duplicate object key");
    expect_config("{\"guards\":[{\"id\":\"org.navguard.nothere\"}]}", NG_E_LOAD, "guards found: org.navguard.bar-should");

    /* The default chain, edited. */
    ng_context *ctx = context();
    ng_status st = ng_chain_configure(ctx, "{\"base\":\"default\",\"edits\":[{\"remove\":\"org.navguard.throttle\"},"
                                           "{\"configure\":\"org.navguard.watchdog\",\"config\":{\"transition_limit_ms\":700}}]}");
    size_t n = 0;
    ng_chain_count(ctx, &n);
    CHECK(st == NG_OK && n == 7, "edited default chain: %s, %zu guards (%s)", ng_strstatus(st), n, ng_errmsg(ctx));
    ng_context_destroy(ctx);

    /* The default policy: a push and a timer's pop 100 ms later (source 0)
     * both apply; a second tap of the same button is throttled; a pop while a
     * transition runs is refused busy, a push queued. */
    ctx = context();
    ng_chain_configure(ctx, NULL);
    ng_clock_set(ctx, 1000000000);
    CHECK(submit(ctx, NG_REQ_PUSH, 2, 0) == NG_OUTCOME_APPLIED, "push");
    ng_clock_advance(ctx, 100000000);
    CHECK(submit(ctx, NG_REQ_POP, 0, 0) == NG_OUTCOME_APPLIED, "timer pop 100 ms later");
    CHECK(submit(ctx, NG_REQ_PUSH, 3, 7) == NG_OUTCOME_APPLIED, "button push");
    ng_clock_advance(ctx, 100000000);
    CHECK(submit(ctx, NG_REQ_PUSH, 4, 7) == NG_OUTCOME_REFUSED, "the same button 100 ms later");
    ng_request anim = NG_REQUEST_INIT(NG_REQ_PUSH);
    anim.flags = NG_REQF_ANIMATED;
    anim.source = 8;
    anim.screen.id = 5;
    anim.screen.route = "animated";
    ng_request_result res = NG_REQUEST_RESULT_INIT;
    ng_request_submit(ctx, &anim, &res);
    CHECK(res.status == NG_OUTCOME_APPLIED, "animated push");
    CHECK(submit(ctx, NG_REQ_BACK, 0, 9) == NG_OUTCOME_REFUSED, "back during the transition");
    CHECK(submit(ctx, NG_REQ_PUSH, 6, 10) == NG_OUTCOME_DEFERRED, "programmatic push during the transition");
    ng_transition_finish(ctx, NG_TRACK_ALL);
    ng_transition_finish(ctx, NG_TRACK_ALL);
    ng_stack_count(ctx, &n);
    CHECK(n == 4, "home > 3 > animated > 6: %zu screens", n);

    /* A host built with the 0.1 header: its smaller ng_request still works. */
    ng_request old = NG_REQUEST_INIT(NG_REQ_POP);
    old.size = (uint32_t)offsetof(ng_request, driving_touch);
    old.source = 11;
    res.status = -1;
    CHECK(ng_request_submit(ctx, &old, &res) == NG_OK && res.status == NG_OUTCOME_APPLIED, "0.1-sized request: %s",
          ng_outcome_name(res.status));
    CHECK(NG_REQUEST_MIN_SIZE == offsetof(ng_request, screens), "frozen minimum");
    CHECK(ng_plugin_abi_compatible(NG_PLUGIN_ABI_MAJOR, NG_PLUGIN_ABI_MINOR, NG_PLUGIN_ABI_MAJOR, 0), "1.0 plugins run");
    CHECK(!ng_plugin_abi_compatible(NG_PLUGIN_ABI_MAJOR, NG_PLUGIN_ABI_MINOR, NG_PLUGIN_ABI_MAJOR, NG_PLUGIN_ABI_MINOR + 1),
          "newer minor refused");
    ng_context_destroy(ctx);

    if (failures) {
        fprintf(stderr, "config_host: %d of %d checks FAILED\n", failures, checks);
        return 1;
    }
    printf("config_host: all %d checks passed (library %s, plugins %s)\n", checks, ng_version_string(), ng_plugin_dir());
    return 0;
}
