/* Counting checks shared by the C tests: every check runs and failures are
 * counted (not assert()), so one run lists every deviation. */
#ifndef NAVGUARD_TEST_CHECK_H
#define NAVGUARD_TEST_CHECK_H

#include <stdio.h>

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

#endif
