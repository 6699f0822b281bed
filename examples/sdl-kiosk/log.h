/* SPDX-License-Identifier: Apache-2.0 */
/* log.h — the kiosk's JSON-lines log (--log FILE): one object per line,
 * flushed per line, so a test can follow it while the app runs. Main thread
 * only. Every line starts with "t" (ms since start) and "type". */
#ifndef SDL_KIOSK_LOG_H
#define SDL_KIOSK_LOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

bool klog_open(const char *path);   /* NULL: logging off; false on error */
void klog_close(void);
double klog_now_ms(void);           /* ms since klog_clock_start() */
void klog_clock_start(void);

void klog_begin(const char *type);
void klog_str(const char *key, const char *value);     /* NULL -> null */
void klog_int(const char *key, int64_t value);
void klog_uint(const char *key, uint64_t value);
void klog_num(const char *key, double value);
void klog_bool(const char *key, bool value);
void klog_null(const char *key);
void klog_strlist(const char *key, const char *const *items, size_t count);
void klog_end(void);

#endif
