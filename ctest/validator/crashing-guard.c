/* SPDX-License-Identifier: Apache-2.0 */
/* A deliberately broken guard, for the validator's own tests
 * (navguard_cli_validate_selftest, validate_child_crashing): it exports a
 * second symbol and crashes in on_request for a pop. */
#include <navguard/plugin.h>
#include <stdlib.h>
int navguard_selftest_extra_export = 1;
static void *create(const ng_guard_host *h, const char *c) { (void)h; (void)c; return malloc(1); }
static void destroy(void *i) { free(i); }
static ng_vote on_request(void *i, const ng_guard_request *r, ng_verdict *v) {
    (void)i; (void)v;
    if (r->kind == NG_REQ_POP) { volatile int *p = NULL; *p = 1; }
    return NG_VOTE_ALLOW;
}
static const ng_plugin_descriptor d = {
    NG_PLUGIN_ABI_MAJOR, NG_PLUGIN_ABI_MINOR, sizeof d, "org.navguard.selftest.crashing",
    "crashing", "0", "crashes on pop", create, destroy, on_request,
    NULL, NULL, NULL, NULL, NULL, NULL, NULL };
const ng_plugin_descriptor *ng_plugin_entry(void) { return &d; }
