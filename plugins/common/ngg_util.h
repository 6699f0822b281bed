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

/* The NG_REQ_* named `name` ("push", "pop-to", ...), or -1. */
static inline int ngg_kind(const char *name) {
    static const char *const kinds[NG_REQ_KIND_COUNT] = {
        "push", "pop", "pop-to", "pop-to-root", "replace-stack", "back", "interactive-back",
    };
    for (int k = 0; k < NG_REQ_KIND_COUNT; k++)
        if (ngg_streq(name, kinds[k])) return k;
    return -1;
}

#define NGG_KIND_NAMES "push, pop, pop-to, pop-to-root, replace-stack, back, interactive-back"
/* The same names as an option's allowed items (NG_OPTION_STRINGS_OF). */
#define NGG_KIND_CHOICES { "push", "pop", "pop-to", "pop-to-root", "replace-stack", "back", "interactive-back", NULL }
#define NGG_MS 1000000LL

#endif
