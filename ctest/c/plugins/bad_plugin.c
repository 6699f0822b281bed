/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bad_plugin.c — guard plugins that are wrong on purpose, for the loader's
 * error table in test_plugins.c. One source, one variant per NGTEST_* macro
 * (see CMakeLists.txt). Never installed.
 */
#include <navguard/plugin.h>

#include <stddef.h>

#define EXPORT __attribute__((visibility("default")))

static int instance;
__attribute__((unused)) static void *create_ok(const ng_guard_host *h, const char *config) {
    (void)h;
    (void)config;
    return &instance;
}
__attribute__((unused)) static void *create_fails(const ng_guard_host *h, const char *config) {
    (void)config;
    h->log(h, NG_LOG_ERROR, "test plugin: create() fails on purpose");
    return NULL;
}
static void destroy(void *inst) { (void)inst; }

#ifndef NGTEST_ABI_MAJOR
#define NGTEST_ABI_MAJOR NG_PLUGIN_ABI_MAJOR
#endif
#ifndef NGTEST_ABI_MINOR
#define NGTEST_ABI_MINOR NG_PLUGIN_ABI_MINOR
#endif
#if defined(NGTEST_BAD_ID)
#define NGTEST_ID "no-dots"
#elif defined(NGTEST_CREATE_FAILS)
#define NGTEST_ID "org.navguard.test.fails"
#elif defined(NGTEST_NEEDS_DEP)
#define NGTEST_ID "org.navguard.test.dep"
#else
#define NGTEST_ID "org.navguard.test.good"
#endif
#if defined(NGTEST_CREATE_FAILS)
#define NGTEST_CREATE create_fails
#else
#define NGTEST_CREATE create_ok
#endif

__attribute__((unused)) static const ng_plugin_descriptor descriptor = {
    .abi_major = NGTEST_ABI_MAJOR, .abi_minor = NGTEST_ABI_MINOR, .size = sizeof(ng_plugin_descriptor),
    .id = NGTEST_ID, .name = "test", .version = "1.0", .description = "a test plugin",
    .create = NGTEST_CREATE, .destroy = destroy,
};

#if defined(NGTEST_NULL_ENTRY)
EXPORT const ng_plugin_descriptor *ng_plugin_entry(void) { return NULL; }
#elif defined(NGTEST_NO_ENTRY)
EXPORT const ng_plugin_descriptor *some_other_symbol(void) { return &descriptor; }
#else
EXPORT const ng_plugin_descriptor *ng_plugin_entry(void) { return &descriptor; }
#endif

#if defined(NGTEST_NEEDS_DEP)
extern int ngtest_dep_value(void);
EXPORT int ngtest_uses_dep(void) { return ngtest_dep_value(); }
#endif
