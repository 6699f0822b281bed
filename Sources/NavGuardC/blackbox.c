/* SPDX-License-Identifier: Apache-2.0 */
/* The flight recorder's crash dumps: a table of the rings that opted in
 * (ng_record_options.crash), the fatal-signal handler that writes them, and
 * ng_record_crash_dump, which a host's own crash handler may call.
 *
 * In C, so that what runs inside a signal handler is plain code calling
 * async-signal-safe functions only (open, write, close, getpid,
 * clock_gettime, nanosleep, sigaction, raise): no allocation, no lock, no
 * Swift runtime. A dump is the ring's bytes as they are, behind a small
 * header (docs/trace-format.md, "Crash dumps"); `navguard` turns it into a
 * JSON Lines trace. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <navguard/navguard.h>

#include "navguard_c.h"

int ngc_crash_flag = 0;

#define TABLE_SIZE 64
static ngc_ring *table[TABLE_SIZE];
/* A dump is being written (unregistering waits for it). */
static int dumping = 0;

ngc_ring *ngc_ring_new(uint64_t capacity) {
    ngc_ring *r = calloc(1, sizeof *r);
    if (!r) return NULL;
    r->bytes = calloc(1, (size_t)capacity);
    if (!r->bytes) {
        free(r);
        return NULL;
    }
    r->capacity = capacity;
    return r;
}

void ngc_ring_free(ngc_ring *r) {
    if (!r) return;
    if (r->slot) ngc_crash_unregister(r);
    free(r->bytes);
    free(r);
}

/* ------------------------------------------------------------------------ */
/* Signals                                                                   */
/* ------------------------------------------------------------------------ */

static const int fatal[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT };
#define NFATAL (sizeof fatal / sizeof fatal[0])
static struct sigaction previous[NFATAL];
static int installed = 0;

static void on_fatal(int sig, siginfo_t *info, void *uctx) {
    int saved = errno;
    (void)ng_record_crash_dump(sig);
    errno = saved;
    /* Chain: what was in place before runs as it would have. */
    for (size_t i = 0; i < NFATAL; i++) {
        if (fatal[i] != sig) continue;
        struct sigaction *old = &previous[i];
        if (old->sa_flags & SA_SIGINFO) {
            if (old->sa_sigaction) {
                old->sa_sigaction(sig, info, uctx);
                return;
            }
        } else if (old->sa_handler == SIG_IGN) {
            sigaction(sig, old, NULL);
            return;
        } else if (old->sa_handler != SIG_DFL) {
            old->sa_handler(sig);
            return;
        }
    }
    /* The default action: the process ends as it would have (the signal is
     * blocked in here: raised again, it is delivered when this returns; a
     * fault's instruction would raise it again anyway). */
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    sigaction(sig, &dfl, NULL);
    raise(sig);
}

static void install(void) {
    if (__atomic_exchange_n(&installed, 1, __ATOMIC_SEQ_CST)) return;
    for (size_t i = 0; i < NFATAL; i++) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_sigaction = on_fatal;
        sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
        sigemptyset(&sa.sa_mask);
        sigaction(fatal[i], &sa, &previous[i]);
    }
}

/* ------------------------------------------------------------------------ */
/* The owner thread's alternate signal stack                                 */
/* ------------------------------------------------------------------------ */

/* A stack overflow faults with no stack left to run a handler on: without
 * an alternate stack (the handlers are SA_ONSTACK) the kernel kills the
 * process and no dump is written. So a thread that keeps a ring for crash
 * dumps gets one from NavGuard when it has none: mapped with a guard page
 * below it (a handler that overflows it faults instead of writing over other
 * memory), held by the rings registered on that thread, and removed when the
 * last of them leaves, if it is still the thread's alternate stack. A stack
 * the thread already had (the host's, a sanitizer's) is never touched.
 * Per thread: sigaltstack is. */
static __thread void *alt_map;     /* NavGuard's mapping on this thread, or NULL */
static __thread size_t alt_len;    /* its length, the guard page included */
static __thread uint32_t alt_holds; /* rings registered on this thread holding it */
static pthread_key_t alt_key;
static pthread_once_t alt_once = PTHREAD_ONCE_INIT;
static bool alt_key_ok = false;

/* The stack without its guard page. */
static stack_t alt_stack_of(void *map, size_t len, size_t page) {
    stack_t ss;
    memset(&ss, 0, sizeof ss);
    ss.ss_sp = (char *)map + page;
    ss.ss_size = len - page;
    return ss;
}

/* Unmap the thread's stack, first taking it out of the kernel's hands if it
 * is still this thread's alternate stack (not while running on it). */
static void alt_remove(void) {
    if (!alt_map) return;
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    stack_t cur, ours = alt_stack_of(alt_map, alt_len, page);
    if (sigaltstack(NULL, &cur) != 0) return;
    if (cur.ss_sp == ours.ss_sp && !(cur.ss_flags & SS_DISABLE)) {
        if (cur.ss_flags & SS_ONSTACK) return;
        stack_t off;
        memset(&off, 0, sizeof off);
        off.ss_flags = SS_DISABLE;
        if (sigaltstack(&off, NULL) != 0) return;
    }
    munmap(alt_map, alt_len);
    alt_map = NULL;
    alt_len = 0;
    alt_holds = 0;
}

/* A thread that ends still holding NavGuard's stack (its ring was stopped on
 * the thread it was attached to, or never stopped) gives its memory back. */
static void alt_thread_ends(void *unused) {
    (void)unused;
    alt_remove();
}

static void alt_key_create(void) { alt_key_ok = pthread_key_create(&alt_key, alt_thread_ends) == 0; }

/* The size: the system's idea of a signal stack (glibc's is dynamic: it
 * grows with the CPU's register state), at least 64 KiB so that the dump
 * writer and the handler chained after it fit, in whole pages. */
static size_t alt_size(size_t page) {
    size_t size = 64 << 10;
#ifdef _SC_SIGSTKSZ
    long sys = sysconf(_SC_SIGSTKSZ);
    if (sys > 0 && (size_t)sys > size) size = (size_t)sys;
#endif
    if ((size_t)SIGSTKSZ > size) size = (size_t)SIGSTKSZ;
    return (size + page - 1) / page * page;
}

/* Ring `r`, just registered on the calling thread, holds the thread's
 * NavGuard stack (installed now when the thread has no alternate stack);
 * nothing when the thread has its own. Best effort: without the memory, an
 * overflow on this thread writes no dump. */
static void alt_hold(ngc_ring *r) {
    uintptr_t me = ngc_thread_id();
    if (r->alt_thread == me) return;
    if (!alt_map) {
        stack_t cur;
        if (sigaltstack(NULL, &cur) != 0 || !(cur.ss_flags & SS_DISABLE)) return;
        pthread_once(&alt_once, alt_key_create);
        if (!alt_key_ok) return;
        size_t page = (size_t)sysconf(_SC_PAGESIZE);
        size_t len = alt_size(page) + page;
        int flags = MAP_PRIVATE | MAP_ANONYMOUS;
#ifdef MAP_STACK
        flags |= MAP_STACK;
#endif
        void *map = mmap(NULL, len, PROT_READ | PROT_WRITE, flags, -1, 0);
        if (map == MAP_FAILED) return;
        stack_t ss = alt_stack_of(map, len, page);
        if (mprotect(map, page, PROT_NONE) != 0 || sigaltstack(&ss, NULL) != 0) {
            munmap(map, len);
            return;
        }
        alt_map = map;
        alt_len = len;
        pthread_setspecific(alt_key, map);
    }
    alt_holds++;
    r->alt_thread = me;
    r->alt_map = alt_map;
}

/* Ring `r` lets go of the stack it holds, if it holds one on this thread:
 * the last ring to let go removes it. A hold taken on another thread (the
 * context was attached here since) stays with that thread until it ends. */
static void alt_release(ngc_ring *r) {
    if (!r->alt_thread) return;
    /* The same thread, not a later one at the same address. */
    bool mine = r->alt_thread == ngc_thread_id() && r->alt_map == alt_map;
    r->alt_thread = 0;
    r->alt_map = NULL;
    if (!mine || !alt_map || alt_holds == 0) return;
    if (--alt_holds == 0) {
        alt_remove();
        if (!alt_map && alt_key_ok) pthread_setspecific(alt_key, NULL);
    }
}

void ngc_crash_adopt(ngc_ring *r) {
    uintptr_t me = ngc_thread_id();
    r->owner = me;
    if (!r->slot || !r->alt_wanted || r->alt_thread == me) return;
    alt_release(r);
    alt_hold(r);
}

bool ngc_crash_register(ngc_ring *r, bool no_handler) {
    for (int i = 0; i < TABLE_SIZE; i++) {
        ngc_ring *expected = NULL;
        if (__atomic_compare_exchange_n(&table[i], &expected, r, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
            r->slot = (uint32_t)i + 1;
            if (!no_handler) {
                install();
                r->alt_wanted = true;
                alt_hold(r);
            }
            return true;
        }
    }
    return false;
}

static void sleep_ms(long ms) {
    struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {}
}

void ngc_crash_unregister(ngc_ring *r) {
    if (!r->slot) return;
    __atomic_store_n(&table[r->slot - 1], NULL, __ATOMIC_SEQ_CST);
    r->slot = 0;
    /* A dump that found this ring in the table may still be reading it. */
    for (int i = 0; i < 5000 && __atomic_load_n(&dumping, __ATOMIC_SEQ_CST); i++) sleep_ms(1);
    alt_release(r);
    r->alt_wanted = false;
}

/* ------------------------------------------------------------------------ */
/* Writing a dump                                                            */
/* ------------------------------------------------------------------------ */

static bool write_all(int fd, const void *p, size_t n) {
    const unsigned char *b = p;
    while (n > 0) {
        ssize_t k = write(fd, b, n);
        if (k < 0) {
            if (errno == EINTR) continue;
            return false;
        }
        b += k;
        n -= (size_t)k;
    }
    return true;
}

static size_t append(char *out, size_t at, size_t cap, const char *s) {
    while (*s && at + 1 < cap) out[at++] = *s++;
    out[at] = 0;
    return at;
}

static size_t append_u64(char *out, size_t at, size_t cap, uint64_t v) {
    char digits[24];
    int n = 0;
    do {
        digits[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    while (n > 0 && at + 1 < cap) out[at++] = digits[--n];
    out[at] = 0;
    return at;
}

static void put64(unsigned char *p, uint64_t v) {
    for (int i = 0; i < 8; i++) p[i] = (unsigned char)(v >> (8 * i));
}

static void put32(unsigned char *p, uint32_t v) {
    for (int i = 0; i < 4; i++) p[i] = (unsigned char)(v >> (8 * i));
}

/* The header of docs/trace-format.md, "Crash dumps". */
#define HEADER_SIZE 128
static const char magic[8] = { 'N', 'G', 'B', 'B', 'O', 'X', '0', '1' };

/* Static: a crash handler may run on a small alternate stack. One dump at a
 * time (`dumping`). */
static char path[sizeof ((ngc_ring *)0)->dir + 64];
static unsigned char header[HEADER_SIZE];

static bool dump_one(ngc_ring *r, int sig, uintptr_t me) {
    /* Another thread's owner may be writing: wait for it to stop (it stops
     * at its next change: ngc_crash_flag). Its own thread crashed inside a
     * change: head and tail still bound whole records. */
    if (r->owner != me) {
        for (int settled = 0, i = 0; i < 200 && settled < 2; i++) {
            sleep_ms(1);
            settled = (__atomic_load_n(&r->writing, __ATOMIC_ACQUIRE) & 1u) ? 0 : settled + 1;
        }
    }
    uint64_t head = __atomic_load_n(&r->head, __ATOMIC_ACQUIRE);
    uint64_t tail = __atomic_load_n(&r->tail, __ATOMIC_ACQUIRE);
    uint64_t cap = r->capacity;
    if (head > cap || tail > cap) return false;
    uint64_t first = head <= tail ? tail - head : cap - head;
    uint64_t second = head <= tail ? 0 : tail;

    size_t at = append(path, 0, sizeof path, r->dir);
    at = append(path, at, sizeof path, "/navguard-");
    at = append_u64(path, at, sizeof path, (uint64_t)getpid());
    at = append(path, at, sizeof path, "-");
    at = append_u64(path, at, sizeof path, r->context);
    at = append(path, at, sizeof path, "-crash.ngbox");

    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    memset(header, 0, sizeof header);
    memcpy(header, magic, 8);
    put32(header + 8, HEADER_SIZE);
    put32(header + 12, 1);                       /* this layout */
    put32(header + 16, (uint32_t)sig);
    put32(header + 20, r->context);
    put64(header + 24, (uint64_t)getpid());
    put64(header + 32, (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec);
    put64(header + 40, (uint64_t)r->manual_start_ns);
    put64(header + 48, (uint64_t)r->default_duration_ns);
    put64(header + 56, r->posted_base);
    put64(header + 64, r->window_records);
    put64(header + 72, (uint64_t)r->window_ns);
    put64(header + 80, (uint64_t)__atomic_load_n(&r->last_ns, __ATOMIC_RELAXED));
    put64(header + 88, __atomic_load_n(&r->dropped_lines, __ATOMIC_RELAXED));
    put32(header + 96, (uint32_t)r->manual_clock);
    put32(header + 100, 1);                      /* the records' layout */
    put64(header + 104, first + second);
    const char *version = NG_VERSION_STRING;
    for (int i = 0; i < 15 && version[i]; i++) header[112 + i] = (unsigned char)version[i];

    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) return false;
    bool ok = write_all(fd, header, sizeof header) && write_all(fd, r->bytes + head, (size_t)first) &&
              (second == 0 || write_all(fd, r->bytes, (size_t)second));
    if (close(fd) != 0) ok = false;
    return ok;
}

ng_status ng_record_crash_dump(int signal) {
    if (__atomic_exchange_n(&dumping, 1, __ATOMIC_SEQ_CST)) return NG_E_STATE;
    __atomic_store_n(&ngc_crash_flag, 1, __ATOMIC_SEQ_CST);
    uintptr_t me = ngc_thread_id();
    ng_status st = NG_OK;
    for (int i = 0; i < TABLE_SIZE; i++) {
        ngc_ring *r = __atomic_load_n(&table[i], __ATOMIC_SEQ_CST);
        if (r && !dump_one(r, signal, me)) st = NG_E_LOAD;
    }
    __atomic_store_n(&dumping, 0, __ATOMIC_SEQ_CST);
    return st;
}
