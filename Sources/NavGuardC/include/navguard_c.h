/* The C part of libnavguard (private: not installed). names.c holds the name
 * functions generated from the headers' X-macro tables; this header gives the
 * Swift ABI layer what Swift cannot write itself. */
#ifndef NAVGUARD_C_H
#define NAVGUARD_C_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <pthread.h>

/* The calling thread's identity, unique among live threads: the thread
 * pointer, one register read (an owner check runs on every host-table call a
 * guard makes, so it must cost less than a call into libc). With glibc it is
 * also pthread_self()'s value. */
static inline uintptr_t ngc_thread_id(void) {
#if defined(__x86_64__) || defined(__aarch64__)
    return (uintptr_t)__builtin_thread_pointer();
#else
    return (uintptr_t)pthread_self();
#endif
}

/* The absolute path of the file this library was loaded from (libnavguard.so,
 * or the program NavGuard is linked into), found with dladdr: no /proc
 * needed. False when it cannot be found or does not fit `size`. */
bool ngc_library_path(char *out, size_t size);

#endif
