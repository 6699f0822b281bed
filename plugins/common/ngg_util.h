/* Small helpers shared by the built-in guards: typed config with defaults.
 * Header-only and static so that each plugin library stays self-contained. */
#ifndef NGG_UTIL_H
#define NGG_UTIL_H

#include <navguard/plugin.h>
#include <string.h>

static inline int64_t ngg_cfg_int(const ng_guard_host *h, const char *key, int64_t dflt) {
    int64_t v;
    return h->config_int(h, key, &v) == NG_OK ? v : dflt;
}

static inline bool ngg_cfg_bool(const ng_guard_host *h, const char *key, bool dflt) {
    bool v;
    return h->config_bool(h, key, &v) == NG_OK ? v : dflt;
}

static inline const char *ngg_cfg_string(const ng_guard_host *h, const char *key, const char *dflt) {
    const char *v;
    return h->config_string(h, key, &v) == NG_OK ? v : dflt;
}

/* A present key of the wrong type is a configuration error, not a default. */
static inline bool ngg_cfg_type_ok(const ng_guard_host *h, const char *key, int type) {
    int64_t i; bool b; const char *s;
    ng_status st = type == 0 ? h->config_int(h, key, &i)
                 : type == 1 ? h->config_bool(h, key, &b)
                 : h->config_string(h, key, &s);
    return st == NG_OK || st == NG_E_NOT_FOUND;
}
#define NGG_INT 0
#define NGG_BOOL 1
#define NGG_STRING 2

static inline bool ngg_streq(const char *a, const char *b) { return a && b && strcmp(a, b) == 0; }

#define NGG_MS 1000000LL

#endif
