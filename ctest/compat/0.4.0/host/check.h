/* SPDX-License-Identifier: Apache-2.0 */
/* Counting checks shared by the C tests: every check runs and failures are
 * counted (not assert()), so one run lists every deviation. */
#ifndef NAVGUARD_TEST_CHECK_H
#define NAVGUARD_TEST_CHECK_H

#include <stdio.h>
#include <stdlib.h>

/* Built under ASan or TSan: their fatal-signal handlers run after
 * NavGuard's and end a crashed child with their report, not by the signal. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define SANITIZED 1
#endif
#endif
#ifndef SANITIZED
#define SANITIZED 0
#endif

static int g_failures = 0;
static int g_checks = 0;

#define EXPECT(cond, ...)                                                     \
    do {                                                                      \
        g_checks++;                                                           \
        if (!(cond)) {                                                        \
            g_failures++;                                                     \
            fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);   \
            fprintf(stderr, __VA_ARGS__);                                     \
            fprintf(stderr, "\n");                                            \
        }                                                                     \
    } while (0)

/* A call's status, with the context's ng_errmsg when it differs (needs
 * navguard.h). */
#define EXPECT_ST(ctx, call, want)                                                                   \
    do {                                                                                             \
        ng_status st_ = (call);                                                                      \
        g_checks++;                                                                                  \
        if (st_ != (want)) {                                                                         \
            g_failures++;                                                                            \
            fprintf(stderr, "FAIL %s:%d: %s\n    returned %s, expected %s\n    ng_errmsg: %s\n",    \
                    __FILE__, __LINE__, #call, ng_strstatus(st_), ng_strstatus(want), ng_errmsg(ctx)); \
        }                                                                                            \
    } while (0)

/* A call that must succeed for the test to go on. */
#define MUST(ctx, call)                                                                              \
    do {                                                                                             \
        ng_status st_ = (call);                                                                      \
        if (st_ != NG_OK) {                                                                          \
            fprintf(stderr, "FATAL %s:%d: %s returned %s\n    ng_errmsg: %s\n", __FILE__, __LINE__,    \
                    #call, ng_strstatus(st_), ng_errmsg(ctx));                                       \
            exit(1);                                                                                 \
        }                                                                                            \
    } while (0)

#endif
