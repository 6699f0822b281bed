/* SPDX-License-Identifier: Apache-2.0 */
/* The C library as the Swift ABI layer sees it (private: not installed), in
 * both builds: Embedded Swift has no Glibc module, so the library imports
 * these headers through this module (NavGuardLibc) instead of Glibc, in the
 * ordinary build too (one set of names). What Glibc's Swift overlay adds on
 * top of the headers, and Swift cannot call by itself, is here as inline
 * functions: errno (a macro over a thread-local) and open (variadic). */
#ifndef NAVGUARD_LIBC_H
#define NAVGUARD_LIBC_H

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

/* The calling thread's errno. */
static inline int ngc_errno(void) { return errno; }

/* open(2) with its mode always given (open is variadic). */
static inline int ngc_open(const char *path, int flags, mode_t mode) { return open(path, flags, mode); }

#endif
