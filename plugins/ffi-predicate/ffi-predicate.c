/* SPDX-License-Identifier: Apache-2.0 */
/* org.navguard.ffi-predicate — a policy wired by configuration alone: an
 * existing exported C function of the host (or of a library) is called
 * through libffi for every request, with the arguments named in the config,
 * and its answer decides (the design card's libffi-dev).
 *
 * Config:
 *   library      string, optional: the shared library to dlopen; absent means
 *                the host program itself (dlopen(NULL)). Loaded RTLD_NOW |
 *                RTLD_LOCAL | RTLD_NODELETE and never closed.
 *   symbol       string, required: the function to call.
 *   args         list of strings, default []: the parameters, in order:
 *                  "kind"     int32_t   request kind (NG_REQ_*)
 *                  "route"    const char *  the screen's route (NULL if none)
 *                  "identity" const char *  the screen's identity (NULL if none)
 *                  "depth"    uint64_t  screens on the stack now
 *                  "source"   uint32_t  the request's source
 *                  "target"   uint64_t  the pop-to target id (0 otherwise)
 *                  "attempt"  uint32_t  0, or n after the n-th re-evaluation
 *                The screen is the pushed one for push and the new top for
 *                replace-stack; other kinds have none (NULL).
 *   returns      "bool" (default; C bool / _Bool) or "int" (int32_t, 0 = false)
 *   refuse_when  "false" (default: refuse when it returns false / 0) or "true"
 *   kinds        list of request kind names it applies to ("push", "pop",
 *                "pop-to", "pop-to-root", "replace-stack", "back",
 *                "interactive-back"); default all. Other kinds are allowed
 *                without a call.
 *   reason       "busy", "duplicate", "throttled", "ignoring" or "policy"
 *                (default): the reason of a refusal.
 * Everything is resolved and the call interface prepared at create; any
 * problem is logged and create fails. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <dlfcn.h>
#include <ffi.h>
#include "../common/ngg_util.h"
#include "navguard_builtins.h"

#define MAX_ARGS 16

enum arg_kind { ARG_KIND, ARG_ROUTE, ARG_IDENTITY, ARG_DEPTH, ARG_SOURCE, ARG_TARGET, ARG_ATTEMPT };

static const char *const arg_names[] = { "kind", "route", "identity", "depth", "source", "target", "attempt" };
#define ARG_NAME_COUNT (sizeof arg_names / sizeof arg_names[0])

static const struct { const char *name; ng_reason reason; } reasons[] = {
    { "busy", NG_REASON_BUSY }, { "duplicate", NG_REASON_DUPLICATE }, { "throttled", NG_REASON_THROTTLED },
    { "ignoring", NG_REASON_IGNORING }, { "policy", NG_REASON_POLICY },
};

typedef struct {
    const ng_guard_host *host;
    void (*fn)(void);
    ffi_cif cif;
    ffi_type *types[MAX_ARGS];
    enum arg_kind args[MAX_ARGS];
    unsigned nargs;
    bool returns_int;
    bool refuse_when_true;
    uint32_t kind_mask;          /* bit per NG_REQ_* it applies to */
    ng_reason reason;
    char message[160];           /* the refusal message, names the symbol */
} ffi_predicate;

__attribute__((format(printf, 2, 3)))
static void fail(const ng_guard_host *h, const char *fmt, ...) {
    char buf[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    h->log(h, NG_LOG_ERROR, buf);
}

static const char *const arg_choices[] = { "kind", "route", "identity", "depth", "source", "target", "attempt", NULL };
static const char *const kind_choices[] = NGG_KIND_CHOICES;
static const char *const returns_choices[] = { "bool", "int", NULL };
static const char *const refuse_choices[] = { "false", "true", NULL };
static const char *const reason_choices[] = { "busy", "duplicate", "throttled", "ignoring", "policy", NULL };
static const ng_option_decl options[] = {
    NG_OPTION_STRING("library", NULL, "shared library to dlopen (absent: the host program itself)"),
    NG_OPTION_STRING("symbol", NULL, "the C function to call (required)"),
    NG_OPTION_STRINGS_OF("args", "[]", 0, MAX_ARGS, arg_choices, "its parameters, in order"),
    NG_OPTION_ENUM("returns", "\"bool\"", returns_choices, "its return type: C bool, or int32_t (0 = false)"),
    NG_OPTION_ENUM("refuse_when", "\"false\"", refuse_choices, "refuse when it returns this"),
    NG_OPTION_STRINGS_OF("kinds", NULL, 0, NG_REQ_KIND_COUNT, kind_choices, "request kinds it decides; absent: all"),
    NG_OPTION_ENUM("reason", "\"policy\"", reason_choices, "the reason of a refusal"),
    NG_OPTION_END,
};

static void *create(const ng_guard_host *host, const char *config) {
    (void)config;
    const ng_guard_host *h = host;
    /* Types, choices and list sizes were checked by the host (options). */
    const char *library = ngg_string(h, "library"), *symbol = ngg_string(h, "symbol");
    const char *returns = ngg_string(h, "returns"), *refuse_when = ngg_string(h, "refuse_when");
    const char *reason = ngg_string(h, "reason");
    if (!symbol) {
        fail(h, "ffi-predicate: \"symbol\" is required (the name of the C function to call)");
        return NULL;
    }
    if (symbol[0] == '\0') {
        fail(h, "ffi-predicate: \"symbol\" is empty");
        return NULL;
    }
    ng_reason why = NG_REASON_POLICY;
    for (size_t i = 0; i < sizeof reasons / sizeof reasons[0]; i++)
        if (ngg_streq(reason, reasons[i].name)) why = reasons[i].reason;

    size_t nargs = 0, nkinds = 0;
    h->config_list_count(h, "args", &nargs);
    bool has_kinds = h->config_list_count(h, "kinds", &nkinds) == NG_OK;

    ffi_predicate *g = calloc(1, sizeof *g);
    if (!g) return NULL;
    g->host = host;
    g->returns_int = ngg_streq(returns, "int");
    g->refuse_when_true = ngg_streq(refuse_when, "true");
    g->reason = why;
    g->nargs = (unsigned)nargs;

    for (size_t i = 0; i < nargs; i++) {
        const char *name = NULL;
        if (h->config_list_get(h, "args", i, &name) != NG_OK) goto bad_list;
        size_t k = 0;
        while (k < ARG_NAME_COUNT && !ngg_streq(name, arg_names[k])) k++;
        if (k == ARG_NAME_COUNT) {
            fail(h, "ffi-predicate: unknown argument \"%s\" in \"args\" (known: kind, route, identity, depth, "
                    "source, target, attempt)", name);
            goto fail_free;
        }
        g->args[i] = (enum arg_kind)k;
        switch (g->args[i]) {
        case ARG_KIND: g->types[i] = &ffi_type_sint32; break;
        case ARG_ROUTE: case ARG_IDENTITY: g->types[i] = &ffi_type_pointer; break;
        case ARG_DEPTH: case ARG_TARGET: g->types[i] = &ffi_type_uint64; break;
        case ARG_SOURCE: case ARG_ATTEMPT: g->types[i] = &ffi_type_uint32; break;
        }
    }

    if (has_kinds) {
        for (size_t i = 0; i < nkinds; i++) {
            const char *name = NULL;
            if (h->config_list_get(h, "kinds", i, &name) != NG_OK) goto bad_list;
            int k = ngg_kind(name);
            if (k < 0) {
                char known[120];
                fail(h, "ffi-predicate: unknown request kind \"%s\" in \"kinds\" (known: %s)", name,
                     ngg_kind_list(known, sizeof known));
                goto fail_free;
            }
            g->kind_mask |= 1u << k;
        }
    } else {
        g->kind_mask = (1u << NG_REQ_KIND_COUNT) - 1u;
    }

    /* Resolve the function. The handle is never closed (RTLD_NODELETE too):
     * the function pointer must outlive every instance. */
    dlerror();
    void *lib = dlopen(library, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
    if (!lib) {
        const char *err = dlerror();
        fail(h, "ffi-predicate: cannot load library \"%s\": %s", library ? library : "(host program)",
             err ? err : "unknown error");
        goto fail_free;
    }
    dlerror();
    void *sym = dlsym(lib, symbol);
    const char *err = dlerror();
    if (!sym || err) {
        char where[600];
        snprintf(where, sizeof where, "\"%s\" in %s", symbol, library ? library : "the host program");
        fail(h, "ffi-predicate: symbol %s not found: %s", where, err ? err : "it resolves to NULL");
        goto fail_free;
    }
    /* ISO C forbids converting between object and function pointers; POSIX
     * guarantees it works for dlsym results. */
    memcpy(&g->fn, &sym, sizeof g->fn);

    ffi_status fs = ffi_prep_cif(&g->cif, FFI_DEFAULT_ABI, g->nargs,
                                 g->returns_int ? &ffi_type_sint32 : &ffi_type_uint8, g->types);
    if (fs != FFI_OK) {
        fail(h, "ffi-predicate: ffi_prep_cif failed for \"%s\" (%s)", symbol,
             fs == FFI_BAD_TYPEDEF ? "bad type" : fs == FFI_BAD_ABI ? "bad ABI" : "error");
        goto fail_free;
    }
    snprintf(g->message, sizeof g->message, "the predicate %.100s() %s", symbol,
             g->refuse_when_true ? (g->returns_int ? "returned non-zero" : "returned true")
                                 : (g->returns_int ? "returned 0" : "returned false"));
    return g;

bad_list:
    fail(h, "ffi-predicate: could not read a list item from the configuration");
fail_free:
    free(g);
    return NULL;
}

static void destroy(void *inst) { free(inst); }

typedef union { int32_t i32; uint32_t u32; uint64_t u64; const char *str; } arg_value;

static ng_vote on_request(void *inst, const ng_guard_request *r, ng_verdict *v) {
    ffi_predicate *g = inst;
    if (r->kind < 0 || r->kind >= NG_REQ_KIND_COUNT || !(g->kind_mask & (1u << r->kind))) return NG_VOTE_ALLOW;
    const ng_screen *screen = r->screen;
    if (!screen && r->kind == NG_REQ_REPLACE_STACK && r->screens && r->screen_count > 0)
        screen = &r->screens[r->screen_count - 1];

    arg_value values[MAX_ARGS];
    void *ptrs[MAX_ARGS];
    for (unsigned i = 0; i < g->nargs; i++) {
        switch (g->args[i]) {
        case ARG_KIND: values[i].i32 = r->kind; break;
        case ARG_ROUTE: values[i].str = screen ? screen->route : NULL; break;
        case ARG_IDENTITY: values[i].str = screen ? (screen->identity ? screen->identity : screen->route) : NULL; break;
        case ARG_DEPTH: values[i].u64 = (uint64_t)g->host->stack_count(g->host); break;
        case ARG_SOURCE: values[i].u32 = r->source; break;
        case ARG_TARGET: values[i].u64 = r->target_id; break;
        case ARG_ATTEMPT: values[i].u32 = r->attempt; break;
        }
        ptrs[i] = &values[i];
    }
    ffi_arg result = 0;
    ffi_call(&g->cif, g->fn, &result, g->nargs ? ptrs : NULL);
    /* Small return types come back widened to a full ffi_arg. */
    bool truth = g->returns_int ? (int32_t)result != 0 : (uint8_t)result != 0;
    if (truth != g->refuse_when_true) return NG_VOTE_ALLOW;
    v->reason = g->reason;
    v->message = g->message;
    return NG_VOTE_REFUSE;
}

static const ng_plugin_descriptor descriptor = {
    NG_PLUGIN_DESCRIPTOR_ABI,
    .id = "org.navguard.ffi-predicate",
    .name = "ffi-predicate",
    .version = NGG_VERSION,
    .description = "Asks an exported C function (called through libffi with the arguments named in the config) whether to refuse a request.",
    .create = create,
    .destroy = destroy,
    .on_request = on_request,
    .options = options,
};

const ng_plugin_descriptor *ngg_ffi_predicate_descriptor(void) { return &descriptor; }
