/* SPDX-License-Identifier: Apache-2.0 */
/* arc4random_buf for Embedded Swift's standard library, which seeds its
 * hashing (Dictionary, Set) with it once per process. glibc has it only
 * since 2.36; the rest of libnavguard needs 2.34 (Debian 12 has 2.36,
 * Ubuntu 22.04 2.35): this one, hidden in the library, keeps the
 * requirement there. getrandom(2) (glibc 2.25); if the kernel refuses it,
 * the clock and an address (a hash seed needs to differ between processes,
 * not to be secret). Linked into the Embedded build only. */
#define _GNU_SOURCE
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/random.h>
#include <sys/types.h>
#include <time.h>

__attribute__((visibility("hidden")))
void arc4random_buf(void *buf, size_t n) {
    unsigned char *p = buf;
    while (n > 0) {
        ssize_t got = getrandom(p, n, 0);
        if (got > 0) {
            p += got;
            n -= (size_t)got;
        } else if (got < 0 && errno != EINTR) {
            break;
        }
    }
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    uint64_t x = (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 32) ^ (uint64_t)(uintptr_t)&ts;
    for (; n > 0; n--) {   /* splitmix64, one byte per step */
        x += 0x9E3779B97F4A7C15u;
        uint64_t z = x;
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
        *p++ = (unsigned char)(z ^ (z >> 31));
    }
}
