/* SPDX-License-Identifier: Apache-2.0 */
/* log.c — see log.h. */
#define _POSIX_C_SOURCE 200809L
#include "log.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static FILE *g_log;
static struct timespec g_t0;
static char g_line[65536];
static size_t g_len;
static bool g_first;

void klog_clock_start(void) { clock_gettime(CLOCK_MONOTONIC, &g_t0); }

double klog_now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)(t.tv_sec - g_t0.tv_sec) * 1000.0 + (double)(t.tv_nsec - g_t0.tv_nsec) / 1e6;
}

bool klog_open(const char *path) {
    if (!path) return true;
    g_log = fopen(path, "w");
    return g_log != NULL;
}

void klog_close(void) {
    if (g_log) fclose(g_log);
    g_log = NULL;
}

static void put(const char *s, size_t n) {
    if (g_len + n >= sizeof g_line - 4) n = sizeof g_line - 4 - g_len;   /* truncate, never overflow */
    memcpy(g_line + g_len, s, n);
    g_len += n;
}

static void puts_raw(const char *s) { put(s, strlen(s)); }

/* A JSON string: quotes, backslashes and control characters escaped; UTF-8
 * passes through (the library's strings are valid UTF-8). */
static void put_json_string(const char *s) {
    put("\"", 1);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        char esc[8];
        switch (*p) {
        case '"': put("\\\"", 2); break;
        case '\\': put("\\\\", 2); break;
        case '\n': put("\\n", 2); break;
        case '\r': put("\\r", 2); break;
        case '\t': put("\\t", 2); break;
        default:
            if (*p < 0x20 || *p == 0x7F) {
                snprintf(esc, sizeof esc, "\\u%04x", *p);
                put(esc, 6);
            } else {
                put((const char *)p, 1);
            }
        }
    }
    put("\"", 1);
}

static void key(const char *k) {
    if (!g_first) put(",", 1);
    g_first = false;
    put_json_string(k);
    put(":", 1);
}

void klog_begin(const char *type) {
    if (!g_log) return;
    char t[48];
    g_len = 0;
    g_first = true;
    put("{", 1);
    key("t");
    snprintf(t, sizeof t, "%.1f", klog_now_ms());
    puts_raw(t);
    key("type");
    put_json_string(type);
}

void klog_str(const char *k, const char *v) {
    if (!g_log) return;
    key(k);
    if (v) put_json_string(v);
    else puts_raw("null");
}

void klog_int(const char *k, int64_t v) {
    if (!g_log) return;
    char b[32];
    snprintf(b, sizeof b, "%" PRId64, v);
    key(k);
    puts_raw(b);
}

void klog_uint(const char *k, uint64_t v) {
    if (!g_log) return;
    char b[32];
    snprintf(b, sizeof b, "%" PRIu64, v);
    key(k);
    puts_raw(b);
}

void klog_num(const char *k, double v) {
    if (!g_log) return;
    char b[48];
    snprintf(b, sizeof b, "%.3f", v);
    key(k);
    puts_raw(b);
}

void klog_bool(const char *k, bool v) {
    if (!g_log) return;
    key(k);
    puts_raw(v ? "true" : "false");
}

void klog_null(const char *k) {
    if (!g_log) return;
    key(k);
    puts_raw("null");
}

void klog_strlist(const char *k, const char *const *items, size_t n) {
    if (!g_log) return;
    key(k);
    put("[", 1);
    for (size_t i = 0; i < n; i++) {
        if (i) put(",", 1);
        put_json_string(items[i] ? items[i] : "");
    }
    put("]", 1);
}

void klog_end(void) {
    if (!g_log) return;
    put("}\n", 2);
    fwrite(g_line, 1, g_len, g_log);
    fflush(g_log);
}
