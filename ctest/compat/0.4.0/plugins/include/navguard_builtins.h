/* SPDX-License-Identifier: Apache-2.0 */
/*
 * navguard_builtins.h — descriptors of the built-in guards, for linking them
 * into a host or a test directly. Each built-in is also built as its own
 * shared library exporting only ng_plugin_entry (lib/navguard/plugins/).
 * Every guard uses nothing but navguard/plugin.h.
 */
#ifndef NAVGUARD_BUILTINS_H
#define NAVGUARD_BUILTINS_H

#include <navguard/plugin.h>

#ifdef __cplusplus
extern "C" {
#endif

const ng_plugin_descriptor *ngg_bar_should_descriptor(void);      /* org.navguard.bar-should */
const ng_plugin_descriptor *ngg_transition_descriptor(void);      /* org.navguard.transition */
const ng_plugin_descriptor *ngg_global_ignore_descriptor(void);   /* org.navguard.global-ignore */
const ng_plugin_descriptor *ngg_exclusive_touch_descriptor(void); /* org.navguard.exclusive-touch */
const ng_plugin_descriptor *ngg_watchdog_descriptor(void);        /* org.navguard.watchdog */
const ng_plugin_descriptor *ngg_dedupe_descriptor(void);          /* org.navguard.dedupe */
const ng_plugin_descriptor *ngg_throttle_descriptor(void);        /* org.navguard.throttle */
const ng_plugin_descriptor *ngg_ffi_predicate_descriptor(void);   /* org.navguard.ffi-predicate */
const ng_plugin_descriptor *ngg_confirm_leave_descriptor(void);   /* org.navguard.confirm-leave */
const ng_plugin_descriptor *ngg_idle_return_descriptor(void);     /* org.navguard.idle-return */
const ng_plugin_descriptor *ngg_device_owner_descriptor(void);    /* org.navguard.device-owner */

#ifdef __cplusplus
}
#endif
#endif
