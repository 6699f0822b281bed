/* SPDX-License-Identifier: Apache-2.0 */
/* Where libnavguard itself was loaded from, without /proc (a chroot or a
 * minimal container may not mount it): dladdr of a function in the library,
 * made absolute. Swift's Glibc module does not expose dladdr (_GNU_SOURCE),
 * hence C. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>

#include "navguard_c.h"

/* Any address inside the library does; an object's avoids converting a
 * function pointer (not ISO C). */
static const char anchor = 0;

bool ngc_library_path(char *out, size_t size) {
    Dl_info info;
    if (!dladdr(&anchor, &info) || !info.dli_fname) return false;
    /* Linked into a program, glibc names the program by argv[0], which may
     * have no directory: the file execve ran is AT_EXECFN. */
    const char *name = info.dli_fname;
    if (!strchr(name, '/')) name = (const char *)getauxval(AT_EXECFN);
    if (!name || !name[0]) return false;
    char resolved[PATH_MAX];
    if (!realpath(name, resolved)) return false;
    if (strlen(resolved) >= size) return false;
    strcpy(out, resolved);
    return true;
}
