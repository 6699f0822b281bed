/* SPDX-License-Identifier: Apache-2.0 */
/* The C part of libnavguard (private: not installed). names.c holds the name
 * functions generated from the headers' X-macro tables; this header gives the
 * Swift ABI layer what Swift cannot write itself. */
#ifndef NAVGUARD_C_H
#define NAVGUARD_C_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <pthread.h>

#include "navguard/navguard.h"

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

/* The name of one NG_WANT_* bit (plugin.h's NG_WANT_MAP), "unknown" for any
 * other value: what `navguard plugins info` shows of a guard's event_mask. */
const char *ngc_want_name(uint32_t bit);

/* ------------------------------------------------------------------------ */
/* The flight recorder's ring, as a crash dump reads it (crash_dump.c)       */
/* ------------------------------------------------------------------------ */

/* A ring of binary records (Sources/NavGuardTrace/RecordBytes.swift) and
 * what a crash dump needs to write it without help: the owner thread changes
 * it between ngc_ring_begin and ngc_ring_end; a crash dump on another thread
 * waits for `writing` to be even, and one on the owner's own thread reads
 * `head` and `tail`, which always bound whole records (head moves before
 * old records are overwritten, tail after new ones are written). */
typedef struct ngc_ring {
    unsigned char *bytes;
    uint64_t capacity;
    uint64_t head;             /* the oldest record kept */
    uint64_t tail;             /* past the newest whole record */
    uint64_t dropped_lines;    /* lines dropped since recording began */
    uint32_t writing;          /* odd while the owner changes the ring */
    uint32_t slot;             /* its crash-table entry + 1, or 0 */
    uintptr_t owner;           /* the owner thread (ngc_thread_id) */
    uintptr_t alt_thread;      /* the thread whose NavGuard alternate signal
                                  stack this ring holds (crash_dump.c), or 0 */
    void *alt_map;             /* that stack's mapping */
    bool alt_wanted;           /* NavGuard's handler dumps it: its owner
                                  thread needs an alternate stack */
    /* What a crash dump's header says (set when recording starts). */
    int32_t manual_clock;
    uint32_t context;          /* the context's registry slot */
    int64_t manual_start_ns;
    int64_t default_duration_ns;
    uint64_t posted_base;
    uint64_t window_records;   /* ng_record_options.ring_records */
    int64_t window_ns;         /* ng_record_options.ring_ns */
    int64_t last_ns;           /* the newest call's instant */
    uint64_t name_key;         /* the crash dump's name's random part */
    uint32_t pending;          /* report dumps still being written */
    uint32_t refs;             /* the owner, and each report dump being written */
    unsigned char *spare;      /* the last report dump's buffer, for the next */
    char dir[4096];            /* where crash dumps go */
} ngc_ring;

/* Set once a crash dump began: from then on no ring changes. */
extern int ngc_crash_flag;

/* Begin changing the ring: false (nothing may change) once a crash dump began. */
static inline bool ngc_ring_begin(ngc_ring *r) {
    __atomic_store_n(&r->writing, r->writing + 1, __ATOMIC_RELAXED);
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    if (__atomic_load_n(&ngc_crash_flag, __ATOMIC_RELAXED)) {
        __atomic_store_n(&r->writing, r->writing + 1, __ATOMIC_RELEASE);
        return false;
    }
    return true;
}

/* Publish where the ring now begins or ends (each before or after the bytes
 * it covers are changed: see above). */
static inline void ngc_ring_set_head(ngc_ring *r, uint64_t head) {
    __atomic_store_n(&r->head, head, __ATOMIC_RELAXED);
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
}
static inline void ngc_ring_set_tail(ngc_ring *r, uint64_t tail) {
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    __atomic_store_n(&r->tail, tail, __ATOMIC_RELAXED);
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
}

/* An 8-byte record header word, stored at once (a grown record's size). */
static inline void ngc_store_word(void *p, uint64_t w) {
    __atomic_store_n((uint64_t *)p, w, __ATOMIC_RELAXED);
}

/* What a crash dump's header reads while the owner may write it. */
static inline void ngc_ring_set_last_ns(ngc_ring *r, int64_t t) { __atomic_store_n(&r->last_ns, t, __ATOMIC_RELAXED); }
static inline void ngc_ring_count_dropped(ngc_ring *r, uint64_t lines) {
    __atomic_store_n(&r->dropped_lines, __atomic_load_n(&r->dropped_lines, __ATOMIC_RELAXED) + lines, __ATOMIC_RELAXED);
}

static inline void ngc_ring_end(ngc_ring *r) {
    __atomic_store_n(&r->writing, r->writing + 1, __ATOMIC_RELEASE);
}

/* Where the ring's crash dumps go: `n` bytes of `dir` (cut to fit). */
static inline void ngc_ring_set_dir(ngc_ring *r, const char *dir, size_t n) {
    if (n >= sizeof r->dir) n = sizeof r->dir - 1;
    for (size_t i = 0; i < n; i++) r->dir[i] = dir[i];
    r->dir[n] = 0;
}

/* A ring for `capacity` bytes (zeroed), or NULL; freed by ngc_ring_free,
 * which waits (5 s at most) for its report dumps still being written. */
ngc_ring *ngc_ring_new(uint64_t capacity);
void ngc_ring_free(ngc_ring *r);

/* ------------------------------------------------------------------------ */
/* Dump files (crash_dump.c)                                                 */
/* ------------------------------------------------------------------------ */

/* Create `path` as a new dump file (every dump: crash, report,
 * ng_record_dump): O_CREAT|O_EXCL|O_NOFOLLOW|O_NONBLOCK|O_CLOEXEC, so a name
 * taken by anything (a file, a symbolic link, a FIFO) fails with EEXIST and
 * nothing blocks. The descriptor, or -1 and errno. Async-signal-safe. */
int ngc_create_new(const char *path);

/* 64 random bits (getrandom, never blocking; /dev/urandom; the clock). */
uint64_t ngc_random64(void);

/* Dump the ring for a guard's report, on its owner thread, without writing
 * on it: the ring's records are copied behind a crash dump's header (signal
 * -1: no crash, the instant `at_ns`), the file created new in the ring's
 * `dir` as navguard-<pid>-<ctx>-<seq>-<16 random hex digits>.ngbox (its name
 * in `out`), and the writer thread writes it, then removes the oldest report
 * dumps of `dir` until they total `dir_cap` bytes at most (the newest
 * stays). 0, or an errno value: EBUSY (8 dumps wait to be written), ENOMEM,
 * or the file's creation's (EEXIST: 16 names taken). */
int ngc_report_dump(ngc_ring *r, int64_t at_ns, uint32_t seq, uint64_t dir_cap, char *out, size_t cap);

/* Enter the ring in the crash table and, unless `no_handler`, install the
 * fatal-signal handlers (once per process, chained to those in place) and
 * give the calling (owner) thread an alternate signal stack when it has
 * none, so that a stack overflow is dumped too; it is removed when the last
 * ring registered on that thread is unregistered there. False when the
 * table is full. */
bool ngc_crash_register(ngc_ring *r, bool no_handler);
/* Leave the table; waits for a crash dump in progress to end first. */
void ngc_crash_unregister(ngc_ring *r);
/* The calling thread is the ring's owner now (ng_context_attach): it is the
 * `owner` a crash dump checks, and, with NavGuard's handler, gets the
 * alternate signal stack the old owner had (see ngc_crash_register). */
void ngc_crash_adopt(ngc_ring *r);

#endif
