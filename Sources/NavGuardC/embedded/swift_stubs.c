/* SPDX-License-Identifier: Apache-2.0 */
/* What Embedded Swift's standard library calls but does not provide
 * (Swift 6.3), linked into the Embedded build of libnavguard only: the
 * ordinary Swift runtime has its own (Package.swift excludes this folder).
 *
 * _swift_stdlib_strtod_clocale: Double(String) parses through it (the JSON
 * parser's numbers that are not integers). As the ordinary runtime's: strtod
 * in the C locale, whatever the host's locale; returns where parsing stopped
 * (Double(String) succeeds only if that is the string's end). */
#define _GNU_SOURCE
#include <locale.h>
#include <pthread.h>
#include <stdlib.h>

static locale_t c_locale;
static pthread_once_t c_locale_once = PTHREAD_ONCE_INIT;

static void make_c_locale(void) { c_locale = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0); }

__attribute__((visibility("hidden")))
const char *_swift_stdlib_strtod_clocale(const char *text, double *out) {
    char *end;
    pthread_once(&c_locale_once, make_c_locale);
    *out = c_locale ? strtod_l(text, &end, c_locale) : strtod(text, &end);
    return end;
}
