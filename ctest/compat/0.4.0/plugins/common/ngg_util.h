/* SPDX-License-Identifier: Apache-2.0 */
/* Small helpers shared by the built-in guards: typed configuration reads.
 * Header-only and static so that each plugin library stays self-contained.
 *
 * Every built-in declares its options (plugin.h ng_option_decl): the host
 * checks a configuration against them before create() and answers a key that
 * is absent with its declared default, so a declared option with a default
 * always reads; the defaults live in the declarations only. */
#ifndef NGG_UTIL_H
#define NGG_UTIL_H

#include <navguard/plugin.h>
#include <stdio.h>
#include <string.h>

static inline int64_t ngg_int(const ng_guard_host *h, const char *key) {
    int64_t v = 0;
    h->config_int(h, key, &v);
    return v;
}

static inline bool ngg_bool(const ng_guard_host *h, const char *key) {
    bool v = false;
    h->config_bool(h, key, &v);
    return v;
}

/* NULL for an absent key without a default. */
static inline const char *ngg_string(const ng_guard_host *h, const char *key) {
    const char *v = NULL;
    return h->config_string(h, key, &v) == NG_OK ? v : NULL;
}

static inline bool ngg_streq(const char *a, const char *b) { return a && b && strcmp(a, b) == 0; }

/* Request kind names come from plugin.h's (navguard.h's) NG_REQUEST_KIND_MAP,
 * the one table of them; guards use it without linking libnavguard. */
#define NGG_NAME_ITEM(constant, name) name,

/* The NG_REQ_* named `name` ("push", "pop-to", ...), or -1. */
static inline int ngg_kind(const char *name) {
#define NGG_KIND_MATCH(constant, n) if (ngg_streq(name, n)) return constant;
    NG_REQUEST_KIND_MAP(NGG_KIND_MATCH)
#undef NGG_KIND_MATCH
    return -1;
}

/* "push, pop, ..., interactive-back" into `buf` (for error messages). */
static inline const char *ngg_kind_list(char *buf, size_t size) {
    static const char *const names[] = { NG_REQUEST_KIND_MAP(NGG_NAME_ITEM) };
    size_t used = 0;
    buf[0] = 0;
    for (size_t i = 0; i < sizeof names / sizeof names[0] && used < size; i++)
        used += (size_t)snprintf(buf + used, size - used, "%s%s", i ? ", " : "", names[i]);
    return buf;
}

/* Define `static const char *function(int32_t)` naming a value from a header
 * table, e.g. NGG_NAME_FUNCTION(phase_name, NG_PHASE_MAP): the library's
 * ng_*_name functions, without linking the library. */
#define NGG_NAME_CASE(constant, name) case constant: return name;
#define NGG_NAME_FUNCTION(function, map)                 \
    static const char *function(int32_t value) {         \
        switch (value) { map(NGG_NAME_CASE) default: break; } \
        return "unknown";                                \
    }

/* The kind names as an option's allowed items (NG_OPTION_STRINGS_OF). */
#define NGG_KIND_CHOICES { NG_REQUEST_KIND_MAP(NGG_NAME_ITEM) NULL }
/* The built-in guards' version: the library's. */
#define NGG_VERSION NG_VERSION_STRING
#define NGG_MS 1000000LL

#endif
