/* SPDX-License-Identifier: Apache-2.0 */
/* The flight recorder's dump files: the crash dumps (a table of the rings
 * that opted in, ng_record_options.crash, the fatal-signal handler that
 * writes them, and ng_record_crash_dump, which a host's own crash handler may
 * call), the dumps written for a guard's report (copied on the owner thread,
 * written by a writer thread), and the one rule by which every dump file is
 * created (ngc_create_new).
 *
 * In C, so that what runs inside a signal handler is plain code calling
 * async-signal-safe functions only (open, write, close, getpid,
 * clock_gettime, nanosleep, sigaction, raise): no allocation, no lock, no
 * Swift runtime. A dump is the ring's bytes as they are, behind a small
 * header (docs/trace-format.md, "Crash dumps"); `navguard` turns it into a
 * JSON Lines trace. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <malloc.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <navguard/navguard.h>

#include "navguard_c.h"

int ngc_crash_flag = 0;

#define TABLE_SIZE 64
static ngc_ring *table[TABLE_SIZE];
/* A dump is being written (unregistering waits for it). */
static int dumping = 0;

static void sleep_ms(long ms);

ngc_ring *ngc_ring_new(uint64_t capacity) {
    ngc_ring *r = calloc(1, sizeof *r);
    if (!r) return NULL;
    r->bytes = calloc(1, (size_t)capacity);
    if (!r->bytes) {
        free(r);
        return NULL;
    }
    /* Every page written now, so that the first fill of the ring takes no
     * page faults in the owner's calls (a 16 MiB ring took one every few
     * requests until it first wrapped), and a machine short of memory says
     * so here, not later. */
    for (uint64_t i = 0; i < capacity; i += 4096) ((volatile unsigned char *)r->bytes)[i] = 0;
    r->capacity = capacity;
    r->refs = 1;
    /* Drawn now: the signal handler cannot draw it. */
    r->name_key = ngc_random64();
    return r;
}

/* The last of the owner and the report dumps being written frees it. */
static void ring_release(ngc_ring *r) {
    if (__atomic_sub_fetch(&r->refs, 1, __ATOMIC_ACQ_REL) == 0) {
        free(r->spare);
        free(r);
    }
}

void ngc_ring_free(ngc_ring *r) {
    if (!r) return;
    if (r->slot) ngc_crash_unregister(r);
    /* Its report dumps are written (they hold copies): wait for them so that
     * a host that stops recording, then exits, leaves them whole. A writer
     * stuck on a dead disk is waited for 5 s at most. */
    for (int i = 0; i < 5000 && __atomic_load_n(&r->pending, __ATOMIC_ACQUIRE); i++) sleep_ms(1);
    free(r->bytes);
    r->bytes = NULL;
    ring_release(r);
}

uint64_t ngc_random64(void) {
    uint64_t v = 0;
    /* Never blocks (early boot: the pool may not be ready, then urandom). */
    if (getrandom(&v, sizeof v, GRND_NONBLOCK) == (ssize_t)sizeof v) return v;
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC | O_NOCTTY);
    if (fd >= 0) {
        ssize_t n = read(fd, &v, sizeof v);
        close(fd);
        if (n == (ssize_t)sizeof v) return v;
    }
    /* No source at all: unpredictable enough to differ, and O_EXCL still
     * refuses a planted name. */
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    v ^= (uint64_t)ts.tv_nsec * 0x9E3779B97F4A7C15u ^ (uint64_t)ts.tv_sec ^ (uint64_t)(uintptr_t)&v ^ (uint64_t)getpid() << 32;
    return v;
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
 * Per thread: sigaltstack is. The initial-exec model keeps these 24 bytes
 * in static TLS: the default (global-dynamic) would make the library need
 * __tls_get_addr from ld-linux, and libnavguard needs only libc and libm. */
#define NGC_TLS __thread __attribute__((tls_model("initial-exec")))
static NGC_TLS void *alt_map;      /* NavGuard's mapping on this thread, or NULL */
static NGC_TLS size_t alt_len;     /* its length, the guard page included */
static NGC_TLS uint32_t alt_holds; /* rings registered on this thread holding it */
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

static size_t append_hex64(char *out, size_t at, size_t cap, uint64_t v) {
    static const char hex[] = "0123456789abcdef";
    for (int i = 15; i >= 0 && at + 1 < cap; i--) out[at++] = hex[(v >> (4 * i)) & 15];
    out[at] = 0;
    return at;
}

/* ------------------------------------------------------------------------ */
/* Creating a dump file: the one rule                                        */
/* ------------------------------------------------------------------------ */

/* A new file, never an existing name: O_EXCL refuses whatever is there (a
 * file, a symbolic link planted to make a root process overwrite its
 * target, a FIFO that would block open for ever); O_NOFOLLOW says the same
 * of a link explicitly; O_NONBLOCK keeps open from waiting on anything;
 * O_CLOEXEC keeps it from a host's child. Async-signal-safe. */
int ngc_create_new(const char *file) {
    return open(file, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY, 0644);
}

/* An automatic dump: dir/navguard-<pid>-<ctx>[-<seq>]-<16 hex digits of
 * key><suffix>, created new. The key is random (another user cannot plant
 * the name ahead); a name taken anyway is passed over: key+1, key+2... 16
 * names, then -1 with errno EEXIST. The name is in `out`. Async-signal-safe. */
static int create_dump(char *out, size_t cap, const char *dir, uint32_t ctx, uint32_t seq, uint64_t key,
                       const char *suffix) {
    for (int k = 0; k < 16; k++) {
        size_t at = append(out, 0, cap, dir);
        at = append(out, at, cap, "/navguard-");
        at = append_u64(out, at, cap, (uint64_t)getpid());
        at = append(out, at, cap, "-");
        at = append_u64(out, at, cap, ctx);
        if (seq) {
            at = append(out, at, cap, "-");
            at = append_u64(out, at, cap, seq);
        }
        at = append(out, at, cap, "-");
        at = append_hex64(out, at, cap, key + (uint64_t)k);
        at = append(out, at, cap, suffix);
        if (at + 1 >= cap) {
            errno = ENAMETOOLONG;
            return -1;
        }
        int fd = ngc_create_new(out);
        if (fd >= 0 || errno != EEXIST) return fd;
    }
    return -1;
}

/* The header of docs/trace-format.md, "Crash dumps". */
#define HEADER_SIZE 128
static const char magic[8] = { 'N', 'G', 'B', 'B', 'O', 'X', '0', '1' };

/* The ring's records from head to tail: `first` bytes at head, then
 * `second` from the start. False when head or tail is out of the ring. */
static bool ring_span(ngc_ring *r, uint64_t *head, uint64_t *first, uint64_t *second) {
    uint64_t h = __atomic_load_n(&r->head, __ATOMIC_ACQUIRE);
    uint64_t t = __atomic_load_n(&r->tail, __ATOMIC_ACQUIRE);
    uint64_t cap = r->capacity;
    if (h > cap || t > cap) return false;
    *head = h;
    *first = h <= t ? t - h : cap - h;
    *second = h <= t ? 0 : t;
    return true;
}

/* A dump's header: `sig` (-1: a report's dump, no crash), the instant
 * `at_ns`, `length` bytes of records. Async-signal-safe. */
static void fill_header(unsigned char *h, ngc_ring *r, int32_t sig, uint64_t at_ns, uint64_t length) {
    memset(h, 0, HEADER_SIZE);
    memcpy(h, magic, 8);
    put32(h + 8, HEADER_SIZE);
    put32(h + 12, 1);                       /* this layout */
    put32(h + 16, (uint32_t)sig);
    put32(h + 20, r->context);
    put64(h + 24, (uint64_t)getpid());
    put64(h + 32, at_ns);
    put64(h + 40, (uint64_t)r->manual_start_ns);
    put64(h + 48, (uint64_t)r->default_duration_ns);
    put64(h + 56, r->posted_base);
    put64(h + 64, r->window_records);
    put64(h + 72, (uint64_t)r->window_ns);
    put64(h + 80, (uint64_t)__atomic_load_n(&r->last_ns, __ATOMIC_RELAXED));
    put64(h + 88, __atomic_load_n(&r->dropped_lines, __ATOMIC_RELAXED));
    put32(h + 96, (uint32_t)r->manual_clock);
    put32(h + 100, 1);                      /* the records' layout */
    put64(h + 104, length);
    const char *version = NG_VERSION_STRING;
    for (int i = 0; i < 15 && version[i]; i++) h[112 + i] = (unsigned char)version[i];
}

/* ------------------------------------------------------------------------ */
/* Crash dumps                                                               */
/* ------------------------------------------------------------------------ */

/* Static: a crash handler may run on a small alternate stack. One dump at a
 * time (`dumping`). */
static char path[sizeof ((ngc_ring *)0)->dir + 112];
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
    uint64_t head, first, second;
    if (!ring_span(r, &head, &first, &second)) return false;
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    /* A negative signal would read as a report's dump. */
    fill_header(header, r, sig < 0 ? 0 : sig, (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec, first + second);
    int fd = create_dump(path, sizeof path, r->dir, r->context, 0, r->name_key, "-crash.ngbox");
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
        if (r && !dump_one(r, signal, me)) st = NG_E_IO;
    }
    __atomic_store_n(&dumping, 0, __ATOMIC_SEQ_CST);
    return st;
}

/* ------------------------------------------------------------------------ */
/* Report dumps: copied on the owner thread, written by the writer thread    */
/* ------------------------------------------------------------------------ */

/* A dump waiting to be written: the file is created (its name is the
 * report's), the bytes copied; the writer writes, closes, then keeps
 * `dir`'s report dumps under `dir_cap` bytes. */
typedef struct {
    int fd;
    unsigned char *bytes;     /* header and records */
    size_t length;
    ngc_ring *ring;           /* its `pending` and a reference */
    uint64_t dir_cap;
    char *file;               /* dir/name, the name at `name` */
    size_t name;
} dump_job;

#define QUEUE_SIZE 8
static pthread_mutex_t queue_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t queue_cond = PTHREAD_COND_INITIALIZER;
static dump_job queue[QUEUE_SIZE];
static int queued = 0;            /* jobs in the queue and the one being written */
static int queue_first = 0;
static pid_t writer_pid = 0;      /* the process the writer runs in (a fork's child has none) */

/* A report dump's name: navguard-<pid>-<ctx>-<seq>-<hex>.ngbox (a crash
 * dump's ends with -crash.ngbox and is never removed). */
static bool is_report_dump(const char *name) {
    size_t n = strlen(name);
    return strncmp(name, "navguard-", 9) == 0 && n > 15 && strcmp(name + n - 6, ".ngbox") == 0 &&
           !(n >= 12 && strcmp(name + n - 12, "-crash.ngbox") == 0);
}

typedef struct {
    struct timespec mtime;
    uint64_t size;
    char name[256];
} dir_entry;

static int older_first(const void *a, const void *b) {
    const dir_entry *x = a, *y = b;
    if (x->mtime.tv_sec != y->mtime.tv_sec) return x->mtime.tv_sec < y->mtime.tv_sec ? -1 : 1;
    if (x->mtime.tv_nsec != y->mtime.tv_nsec) return x->mtime.tv_nsec < y->mtime.tv_nsec ? -1 : 1;
    return strcmp(x->name, y->name);
}

static bool is_queued(const char *name) {
    bool found = false;
    pthread_mutex_lock(&queue_lock);
    for (int i = 0; i < queued && !found; i++) {
        const dump_job *j = &queue[(queue_first + i) % QUEUE_SIZE];
        found = strcmp(j->file + j->name, name) == 0;
    }
    pthread_mutex_unlock(&queue_lock);
    return found;
}

/* Remove the oldest report dumps of `dir` (this user's regular files named
 * as such, whichever process wrote them) until they total `cap` bytes at
 * most; `keep`, the newest, stays, and so do the dumps still queued (their
 * files exist, empty, from the report on). */
static void enforce_cap(char *file, size_t name_at, uint64_t cap) {
    const char *keep = file + name_at;
    file[name_at - 1] = 0;
    DIR *d = opendir(file[0] ? file : "/");
    file[name_at - 1] = '/';
    if (!d) return;
    int dfd = dirfd(d);
    uid_t me = geteuid();
    size_t n = 0, room = 64;
    uint64_t total = 0;
    dir_entry *all = malloc(room * sizeof *all);
    struct dirent *e;
    while (all && (e = readdir(d))) {
        if (!is_report_dump(e->d_name) || strlen(e->d_name) >= sizeof all->name) continue;
        struct stat st;
        if (fstatat(dfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode) || st.st_uid != me) continue;
        total += (uint64_t)st.st_size;
        if (strcmp(e->d_name, keep) == 0) continue;
        if (n == room) {
            dir_entry *more = realloc(all, 2 * room * sizeof *all);
            if (!more) break;
            all = more;
            room *= 2;
        }
        all[n].mtime = st.st_mtim;
        all[n].size = (uint64_t)st.st_size;
        strcpy(all[n].name, e->d_name);
        n++;
    }
    if (all) {
        qsort(all, n, sizeof *all, older_first);
        for (size_t i = 0; i < n && total > cap; i++) {
            if (!is_queued(all[i].name) && unlinkat(dfd, all[i].name, 0) == 0) total -= all[i].size;
        }
    }
    free(all);
    closedir(d);
}

static void *writer_main(void *arg) {
    (void)arg;
    pthread_mutex_lock(&queue_lock);
    for (;;) {
        while (queued == 0) pthread_cond_wait(&queue_cond, &queue_lock);
        dump_job job = queue[queue_first];
        pthread_mutex_unlock(&queue_lock);

        bool ok = write_all(job.fd, job.bytes, job.length);
        if (close(job.fd) != 0) ok = false;
        (void)ok;   /* a cut file says so when read (the header's length) */
        /* Kept for the ring's next dump: its pages are in memory already
         * (a fresh 16 MiB buffer costs the owner thousands of page faults). */
        unsigned char *old = __atomic_exchange_n(&job.ring->spare, job.bytes, __ATOMIC_ACQ_REL);
        free(old);
        enforce_cap(job.file, job.name, job.dir_cap);
        free(job.file);
        __atomic_sub_fetch(&job.ring->pending, 1, __ATOMIC_ACQ_REL);
        ring_release(job.ring);

        pthread_mutex_lock(&queue_lock);
        queue_first = (queue_first + 1) % QUEUE_SIZE;
        queued--;
    }
    return NULL;
}

int ngc_report_dump(ngc_ring *r, int64_t at_ns, uint32_t seq, uint64_t dir_cap, char *out, size_t cap) {
    out[0] = 0;
    pthread_mutex_lock(&queue_lock);
    int busy = queued == QUEUE_SIZE;
    pthread_mutex_unlock(&queue_lock);
    if (busy) return EBUSY;

    uint64_t head, first, second;
    if (!ring_span(r, &head, &first, &second)) return EINVAL;
    size_t length = HEADER_SIZE + (size_t)(first + second);
    /* The last dump's buffer when it is large enough (a ring's used bytes
     * only grow, up to its capacity: it is, mostly). */
    unsigned char *bytes = __atomic_exchange_n(&r->spare, NULL, __ATOMIC_ACQ_REL);
    if (bytes && malloc_usable_size(bytes) < length) {
        free(bytes);
        bytes = NULL;
    }
    if (!bytes) bytes = malloc(length);
    size_t dir_len = strlen(r->dir);
    char *file = malloc(dir_len + 112);
    if (!bytes || !file) {
        free(bytes);
        free(file);
        return ENOMEM;
    }
    fill_header(bytes, r, -1, (uint64_t)at_ns, first + second);
    memcpy(bytes + HEADER_SIZE, r->bytes + head, (size_t)first);
    if (second) memcpy(bytes + HEADER_SIZE + first, r->bytes, (size_t)second);

    int fd = create_dump(file, dir_len + 112, r->dir, r->context, seq, ngc_random64(), ".ngbox");
    if (fd < 0) {
        int err = errno;
        free(bytes);
        free(file);
        return err;
    }
    size_t n = strlen(file);
    if (n + 1 > cap) n = cap - 1;
    memcpy(out, file, n);
    out[n] = 0;

    dump_job job = { fd, bytes, length, r, dir_cap, file, dir_len + 1 };
    pthread_mutex_lock(&queue_lock);
    int err = 0;
    if (writer_pid != getpid()) {
        /* First use, or a fork's child: the writer thread starts. */
        queued = 0;
        queue_first = 0;
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        /* Every signal blocked: the host's signals go to its own threads. */
        sigset_t all, old;
        sigfillset(&all);
        pthread_sigmask(SIG_SETMASK, &all, &old);
        pthread_t t;
        err = pthread_create(&t, &attr, writer_main, NULL);
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        pthread_attr_destroy(&attr);
        if (err == 0) writer_pid = getpid();
    }
    if (err == 0 && queued == QUEUE_SIZE) err = EBUSY;
    if (err == 0) {
        __atomic_add_fetch(&r->refs, 1, __ATOMIC_ACQ_REL);
        __atomic_add_fetch(&r->pending, 1, __ATOMIC_ACQ_REL);
        queue[(queue_first + queued) % QUEUE_SIZE] = job;
        queued++;
        pthread_cond_signal(&queue_cond);
    }
    pthread_mutex_unlock(&queue_lock);
    if (err) {
        close(fd);
        unlink(file);
        free(bytes);
        free(file);
        out[0] = 0;
    }
    return err;
}
