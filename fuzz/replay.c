/* SPDX-License-Identifier: Apache-2.0 */
/*
 * replay.c — a deterministic driver for a fuzz target without libFuzzer.
 *
 *   fuzz_api_replay [-n COUNT] [-seed SEED] [-max_len BYTES] [-timeout SECONDS]
 *                   [-artifact_prefix PREFIX] [-v] [FILE|DIR ...]
 *
 * Runs every file given (directories: every regular file in them but *.md,
 * sorted by name), then COUNT programs (default 0) generated from SEED (default 1):
 * random bytes, and mutations and splices of the files given (bytes changed,
 * inserted, dropped; little-endian integers of 1 to 8 bytes overwritten with
 * edge values, for binary headers), so the same command always runs the same
 * programs. An invariant violation aborts; the
 * input that failed is written to PREFIX<crash|hang>-<n>.bin (default prefix
 * "./fuzz_api_replay-") for `fuzz_api_replay -v FILE` to trace. A program
 * running longer than -timeout seconds (default 25) counts as a hang.
 *
 * It is linked with one target's file, the same file its libFuzzer target
 * uses: fuzz/api/*.c (fuzz_api_replay, ctest fuzz_api_smoke on fuzz/corpus
 * plus generated programs) or fuzz_read.c (fuzz_read_replay, ctest
 * fuzz_read_smoke on fuzz/corpus-read). Messages and the default artifact
 * prefix use the program's own name.
 */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#ifdef NAVGUARD_FUZZ_LIBFUZZER
#error "replay.c has its own main(); the libFuzzer target (fuzz_api) is fuzz/api/*.c alone"
#endif

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
extern int ngf_verbose;

typedef struct {
    uint8_t *data;
    size_t size;
    char *name;
} input;

static input *g_files;
static size_t g_nfiles, g_capfiles;

/* What is running, for the crash and hang handlers. */
static const uint8_t *volatile g_cur_data;
static volatile size_t g_cur_size;
static char g_cur_name[512];
static const char *g_prefix;
static const char *g_prog = "fuzz_api_replay";

static void write_str(const char *s) {
    ssize_t r = write(2, s, strlen(s));
    (void)r;
}

static void save_current(const char *kind) {
    char path[1024];
    snprintf(path, sizeof path, "%s%s-%ld.bin", g_prefix, kind, (long)getpid());
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
        size_t off = 0;
        while (off < g_cur_size) {
            ssize_t w = write(fd, g_cur_data + off, g_cur_size - off);
            if (w <= 0) break;
            off += (size_t)w;
        }
        close(fd);
    }
    write_str(g_prog);
    write_str(": ");
    write_str(kind);
    write_str(" in ");
    write_str(g_cur_name);
    write_str("; input saved as ");
    write_str(path);
    write_str("\n");
}

static void on_abort(int sig) {
    save_current("crash");
    signal(sig, SIG_DFL);
    raise(sig);
}

static void on_alarm(int sig) {
    (void)sig;
    save_current("hang");
    signal(SIGABRT, SIG_DFL);
    abort();
}

static void add_file(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "%s: cannot read %s: %s\n", g_prog, path, strerror(errno));
        exit(2);
    }
    size_t cap = 4096, n = 0;
    uint8_t *buf = malloc(cap);
    for (;;) {
        if (!buf) abort();
        size_t k = fread(buf + n, 1, cap - n, f);
        n += k;
        if (k == 0) break;
        if (n == cap) buf = realloc(buf, cap *= 2);
    }
    fclose(f);
    if (g_nfiles == g_capfiles) {
        g_capfiles = g_capfiles ? g_capfiles * 2 : 64;
        g_files = realloc(g_files, g_capfiles * sizeof *g_files);
        if (!g_files) abort();
    }
    g_files[g_nfiles].data = buf;
    g_files[g_nfiles].size = n;
    g_files[g_nfiles].name = strdup(path);
    g_nfiles++;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static void add_path(const char *path) {
    struct stat st;
    if (stat(path, &st) != 0) {
        fprintf(stderr, "%s: %s: %s\n", g_prog, path, strerror(errno));
        exit(2);
    }
    if (!S_ISDIR(st.st_mode)) {
        add_file(path);
        return;
    }
    DIR *d = opendir(path);
    if (!d) {
        fprintf(stderr, "%s: cannot open %s\n", g_prog, path);
        exit(2);
    }
    char **names = NULL;
    size_t n = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        size_t len0 = strlen(e->d_name);
        if (e->d_name[0] == '.' || (len0 > 3 && !strcmp(e->d_name + len0 - 3, ".md"))) continue;   /* READMEs */
        if (n == cap) {
            cap = cap ? cap * 2 : 64;
            names = realloc(names, cap * sizeof *names);
            if (!names) abort();
        }
        size_t len = strlen(path) + strlen(e->d_name) + 2;
        names[n] = malloc(len);
        if (!names[n]) abort();
        snprintf(names[n], len, "%s/%s", path, e->d_name);
        n++;
    }
    closedir(d);
    if (n) qsort(names, n, sizeof *names, cmp_str);
    for (size_t i = 0; i < n; i++) {
        struct stat fs;
        if (stat(names[i], &fs) == 0 && S_ISREG(fs.st_mode)) add_file(names[i]);
        free(names[i]);
    }
    free(names);
}

/* splitmix64 */
static uint64_t g_rng;
static uint64_t rnd(void) {
    uint64_t z = (g_rng += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* A program: random bytes, or a corpus file mutated or spliced. */
static size_t generate(uint8_t *buf, size_t max_len) {
    size_t n;
    if (g_nfiles == 0 || rnd() % 3 == 0) {
        n = 1 + rnd() % max_len;
        for (size_t i = 0; i < n; i++) buf[i] = (uint8_t)rnd();
        return n;
    }
    const input *a = &g_files[rnd() % g_nfiles];
    n = a->size < max_len ? a->size : max_len;
    memcpy(buf, a->data, n);
    if (rnd() % 4 == 0) {             /* splice: the tail of another input */
        const input *b = &g_files[rnd() % g_nfiles];
        size_t at = n ? rnd() % n : 0;
        size_t from = b->size ? rnd() % b->size : 0;
        size_t k = b->size - from;
        if (at + k > max_len) k = max_len - at;
        memcpy(buf + at, b->data + from, k);
        n = at + k;
    }
    int muts = 1 + (int)(rnd() % 8);
    for (int m = 0; m < muts; m++) {
        switch (rnd() % 6) {
        case 0: case 1:
            if (n) buf[rnd() % n] = (uint8_t)rnd();
            break;
        case 2:
            if (n) buf[rnd() % n] ^= (uint8_t)(1u << (rnd() % 8));
            break;
        case 3:                       /* insert a byte */
            if (n < max_len) {
                size_t at = rnd() % (n + 1);
                memmove(buf + at + 1, buf + at, n - at);
                buf[at] = (uint8_t)rnd();
                n++;
            }
            break;
        case 4:                       /* an edge value as a little-endian integer */
            if (n) {
                static const uint64_t edges[] = { 0, 1, 0x7F, 0x80, 0xFF, 0x7FFF, 0xFFFF, 0x7FFFFFFF, 0x80000000u,
                                                  0xFFFFFFFFu, 0x7FFFFFFFFFFFFFFFull, 0x8000000000000000ull,
                                                  0xFFFFFFFFFFFFFFFFull };
                size_t w = (size_t)1 << (rnd() % 4);
                size_t at = rnd() % n;
                uint64_t v = edges[rnd() % (sizeof edges / sizeof edges[0])];
                if (rnd() % 4 == 0) v -= rnd() % 16;
                for (size_t i = 0; i < w && at + i < n; i++) buf[at + i] = (uint8_t)(v >> (8 * i));
            }
            break;
        default:                      /* drop a byte */
            if (n > 1) {
                size_t at = rnd() % n;
                memmove(buf + at, buf + at + 1, n - at - 1);
                n--;
            }
            break;
        }
    }
    return n ? n : 1;
}

static double seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void run(const uint8_t *data, size_t size, unsigned timeout) {
    g_cur_data = data;
    g_cur_size = size;
    if (timeout) alarm(timeout);
    LLVMFuzzerTestOneInput(data, size);
    if (timeout) alarm(0);
}

static void usage(void) {
    fprintf(stderr, "usage: %s [-n COUNT] [-seed SEED] [-max_len BYTES] [-timeout SECONDS]\n"
                    "         [-artifact_prefix PREFIX] [-v] [FILE|DIR ...]\n", g_prog);
    exit(2);
}

int main(int argc, char **argv) {
    unsigned long long count = 0, seed = 1;
    size_t max_len = 512;
    unsigned timeout = 25;
    if (argc > 0 && argv[0]) {
        const char *slash = strrchr(argv[0], '/');
        g_prog = slash ? slash + 1 : argv[0];
    }
    static char prefix[300];
    snprintf(prefix, sizeof prefix, "./%s-", g_prog);
    g_prefix = prefix;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-v")) ngf_verbose = 1;
        else if (!strcmp(a, "-n") && i + 1 < argc) count = strtoull(argv[++i], NULL, 0);
        else if (!strcmp(a, "-seed") && i + 1 < argc) seed = strtoull(argv[++i], NULL, 0);
        else if (!strcmp(a, "-max_len") && i + 1 < argc) max_len = (size_t)strtoull(argv[++i], NULL, 0);
        else if (!strcmp(a, "-timeout") && i + 1 < argc) timeout = (unsigned)strtoul(argv[++i], NULL, 0);
        else if (!strcmp(a, "-artifact_prefix") && i + 1 < argc) g_prefix = argv[++i];
        else if (a[0] == '-') usage();
        else add_path(a);
    }
    if (max_len < 1) max_len = 1;
    /* invariant violations abort(); Swift runtime traps are SIGILL/SIGTRAP */
    signal(SIGABRT, on_abort);
    signal(SIGILL, on_abort);
    signal(SIGTRAP, on_abort);
    signal(SIGSEGV, on_abort);
    signal(SIGBUS, on_abort);
    signal(SIGFPE, on_abort);
    signal(SIGALRM, on_alarm);
    int v = ngf_verbose;
    LLVMFuzzerInitialize(&argc, &argv);
    if (v) ngf_verbose = 1;

    double t0 = seconds();
    size_t bytes = 0;
    for (size_t i = 0; i < g_nfiles; i++) {
        snprintf(g_cur_name, sizeof g_cur_name, "file %s", g_files[i].name);
        if (ngf_verbose) fprintf(stderr, "--- %s\n", g_cur_name);
        run(g_files[i].data, g_files[i].size, timeout);
        bytes += g_files[i].size;
    }
    double t1 = seconds();
    uint8_t *buf = malloc(max_len);
    if (!buf) abort();
    g_rng = seed;
    for (unsigned long long k = 0; k < count; k++) {
        size_t n = generate(buf, max_len);
        snprintf(g_cur_name, sizeof g_cur_name, "generated program %llu (seed %llu, max_len %zu)", k, seed, max_len);
        if (ngf_verbose) fprintf(stderr, "--- %s\n", g_cur_name);
        /* run a private copy so an overread past the program is caught by ASan */
        uint8_t *copy = malloc(n);
        if (!copy) abort();
        memcpy(copy, buf, n);
        run(copy, n, timeout);
        free(copy);
        bytes += n;
    }
    double t2 = seconds();
    printf("%s: %zu file(s) in %.2f s, %llu generated input(s) (seed %llu) in %.2f s, %zu bytes; "
           "every invariant held\n", g_prog, g_nfiles, t1 - t0, count, seed, t2 - t1, bytes);
    free(buf);
    for (size_t i = 0; i < g_nfiles; i++) {
        free(g_files[i].data);
        free(g_files[i].name);
    }
    free(g_files);
    return 0;
}
