/* SPDX-License-Identifier: Apache-2.0 */
/* A kiosk host built inside a Debian root that has no Swift: gcc, the
 * installed -dev package and pkg-config only. It runs the default chain
 * (the runtime package's built-in guards), loads the guard built from the
 * C template beside it, and checks what a host would see. */
#include <navguard/navguard.h>
#include <stdio.h>
#include <string.h>

static int failures;
#define EXPECT(cond, ...) do { if (!(cond)) { failures++; printf("FAIL: " __VA_ARGS__); printf("\n"); } } while (0)

int main(int argc, char **argv) {
    const char *guard = argc > 1 ? argv[1] : NULL;
    printf("NavGuard %s, plugins in %s\n", ng_version_string(), ng_plugin_dir());
    EXPECT(ng_plugin_dir()[0] == '/', "ng_plugin_dir is not absolute: \"%s\"", ng_plugin_dir());
    ng_options o = NG_OPTIONS_INIT;
    ng_context *ctx = NULL;
    EXPECT(ng_context_create(&o, &ctx) == NG_OK, "create");
    ng_status st = ng_chain_configure(ctx, NULL);
    EXPECT(st == NG_OK, "the default chain: %s (%s)", ng_strstatus(st), ng_errmsg(ctx));
    if (guard) {
        st = ng_plugin_load(ctx, guard, NULL);
        EXPECT(st == NG_OK, "the template guard %s: %s (%s)", guard, ng_strstatus(st), ng_errmsg(ctx));
    }
    size_t n = 0;
    ng_chain_count(ctx, &n);
    printf("chain: %zu guards\n", n);
    ng_screen root = { 1, "home", NULL };
    ng_stack_set_root(ctx, &root);
    ng_request push = NG_REQUEST_INIT(NG_REQ_PUSH);
    push.flags = NG_REQF_ANIMATED;
    push.source = 1;
    push.screen.id = 2;
    push.screen.route = "menu";
    ng_request_result r = NG_REQUEST_RESULT_INIT;
    ng_request_submit(ctx, &push, &r);
    EXPECT(r.status == NG_OUTCOME_APPLIED, "first push: %s", ng_outcome_name(r.status));
    push.screen.id = 3;
    ng_request_submit(ctx, &push, &r);
    EXPECT(r.status == NG_OUTCOME_REFUSED && r.guard_id && strstr(r.guard_id, "throttle"),
           "double tap: %s by %s", ng_outcome_name(r.status), r.guard_id ? r.guard_id : "-");
    printf("double tap: %s by %s\n", ng_outcome_name(r.status), r.guard_id ? r.guard_id : "the core");
    ng_context_destroy(ctx);
    if (failures) return 1;
    printf("host: ok\n");
    return 0;
}
