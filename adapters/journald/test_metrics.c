/* SPDX-License-Identifier: Apache-2.0 */
/* test_metrics: writes the kiosk-side textfile for a real context (a refusal,
 * a transition the watchdog forces, a hold the watchdog releases, reports,
 * a crash dump) and labels with quotes, backslashes and newlines, to
 * argv[1]; check_prometheus.py then checks the file (the format's rules,
 * promtool when installed, and the values this program prints it expects). */
#include "navguard_metrics.h"

#include <stdio.h>
#include <string.h>

#include "check.h"

#define MS 1000000LL

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: test_metrics FILE\n");
        return 2;
    }
    ngm_metrics *m = ngm_create(argv[1], 0);
    ng_options o = NG_OPTIONS_INIT;
    o.clock = NG_CLOCK_MANUAL;
    ngm_wrap(m, &o.delegate);
    ng_context *ctx = NULL;
    MUST(ctx, ng_context_create(&o, &ctx));
    MUST(ctx, ng_chain_configure(ctx, "{\"base\":\"default\"}"));
    ng_screen home = { 1, "home", NULL };
    MUST(ctx, ng_stack_set_root(ctx, &home));
    ng_request pop = NG_REQUEST_INIT(NG_REQ_POP);
    ng_request_result res = NG_REQUEST_RESULT_INIT;
    MUST(ctx, ng_request_submit(ctx, &pop, &res));   /* refused: the root */
    MUST(ctx, ng_request_submit(ctx, &pop, &res));
    ng_request push = NG_REQUEST_INIT(NG_REQ_PUSH);
    push.flags = NG_REQF_ANIMATED;
    push.screen.id = 2;
    push.screen.route = "check\"out";
    MUST(ctx, ng_request_submit(ctx, &push, &res));
    MUST(ctx, ng_clock_set(ctx, 2500 * MS));
    MUST(ctx, ng_tick(ctx));                          /* the watchdog forces it */
    uint64_t token = 0;
    MUST(ctx, ng_hold_begin(ctx, "pay\\ment \"card\"\nreader", NG_MASK_ALL, 0, &token));
    MUST(ctx, ng_clock_set(ctx, 20000 * MS));
    MUST(ctx, ng_tick(ctx));                          /* the watchdog releases it */
    ngm_report(m, ctx, "com.example.odd\"\\\nguard", "text");
    ngm_add_crash_dumps(m, 2);
    EXPECT(ngm_write(m) == 0, "written");
    ng_context_destroy(ctx);
    ngm_destroy(m);
    printf("%d checks, %d failures\n", g_checks, g_failures);
    return g_failures ? 1 : 0;
}
