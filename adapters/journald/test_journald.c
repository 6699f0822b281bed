/* SPDX-License-Identifier: Apache-2.0 */
/* journald_sink: the sink's entries as journald would receive them. The test
 * binds its own AF_UNIX datagram socket, points the sink at it
 * (ngj_options.socket_path), and parses every datagram (or memfd) back with
 * the native protocol's rules, field by field: a real context's watchdog
 * report and the report dump it names, a real refusal, a crash dump found at
 * start-up, and bad input (a report of 1 MiB, newlines, every non-NUL byte, a
 * guard id with odd characters). Also a sink with no journal: entries dropped,
 * counted, the host told once. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include "navguard_journald.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "check.h"

#define MS 1000000LL

/* One received entry: fields in order, values with their lengths. */
typedef struct {
    size_t n;
    char *name[64];
    char *value[64];
    size_t len[64];
    bool via_memfd;
} entry;

static int g_sock = -1;
static char g_dir[256], g_path[300];

static void entry_free(entry *e) {
    for (size_t i = 0; i < e->n; i++) {
        free(e->name[i]);
        free(e->value[i]);
    }
    memset(e, 0, sizeof *e);
}

/* The native protocol, strictly: NAME=value\n or NAME\n<le64><bytes>\n;
 * names of A-Z, 0-9, _ not starting with _, at most 64 bytes. */
static bool parse(const unsigned char *b, size_t n, entry *e) {
    size_t at = 0;
    while (at < n) {
        size_t k = at;
        while (k < n && b[k] != '=' && b[k] != '\n') k++;
        if (k == n || k == at || k - at > 64 || b[at] == '_' || e->n == 64) return false;
        for (size_t i = at; i < k; i++)
            if (!((b[i] >= 'A' && b[i] <= 'Z') || (b[i] >= '0' && b[i] <= '9') || b[i] == '_')) return false;
        char *name = strndup((const char *)b + at, k - at);
        size_t vlen;
        const unsigned char *v;
        if (b[k] == '=') {
            const unsigned char *nl = memchr(b + k + 1, '\n', n - k - 1);
            if (!nl) { free(name); return false; }
            v = b + k + 1;
            vlen = (size_t)(nl - v);
            at = (size_t)(nl - b) + 1;
        } else {
            if (n - k - 1 < 8) { free(name); return false; }
            uint64_t l = 0;
            for (int i = 7; i >= 0; i--) l = (l << 8) | b[k + 1 + i];
            if (l > n - k - 9 - 1 || b[k + 9 + l] != '\n') { free(name); return false; }
            v = b + k + 9;
            vlen = (size_t)l;
            at = k + 9 + l + 1;
        }
        e->name[e->n] = name;
        e->value[e->n] = malloc(vlen + 1);
        memcpy(e->value[e->n], v, vlen);
        e->value[e->n][vlen] = 0;
        e->len[e->n] = vlen;
        e->n++;
    }
    return true;
}

/* The next entry on the test's socket (false: none waiting). */
static bool receive(entry *e) {
    static unsigned char buf[4 << 20];
    memset(e, 0, sizeof *e);
    struct iovec iov = { buf, sizeof buf };
    union { struct cmsghdr h; char b[CMSG_SPACE(sizeof(int))]; } c;
    struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = c.b, .msg_controllen = sizeof c.b };
    ssize_t r = recvmsg(g_sock, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
    if (r < 0) return false;
    struct cmsghdr *cm = CMSG_FIRSTHDR(&mh);
    if (cm && cm->cmsg_type == SCM_RIGHTS) {
        /* journald's rule: a memfd, sealed, the datagram itself empty. */
        int fd;
        memcpy(&fd, CMSG_DATA(cm), sizeof fd);
        int seals = fcntl(fd, F_GET_SEALS);
        EXPECT(r == 0 && (seals & (F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE)) == (F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE),
               "memfd sealed (seals %d), datagram empty (%zd)", seals, r);
        struct stat st;
        fstat(fd, &st);
        unsigned char *m = malloc((size_t)st.st_size);
        ssize_t got = pread(fd, m, (size_t)st.st_size, 0);
        close(fd);
        bool ok = got == st.st_size && parse(m, (size_t)got, e);
        free(m);
        e->via_memfd = true;
        EXPECT(ok, "memfd entry parses");
        return ok;
    }
    bool ok = parse(buf, (size_t)r, e);
    EXPECT(ok, "datagram parses (%zd bytes)", r);
    return ok;
}

/* The value of `name` (NULL if absent); every field appears at most once. */
static const char *field(const entry *e, const char *name, size_t *len) {
    const char *found = NULL;
    for (size_t i = 0; i < e->n; i++)
        if (strcmp(e->name[i], name) == 0) {
            EXPECT(!found, "%s once", name);
            found = e->value[i];
            if (len) *len = e->len[i];
        }
    return found;
}

#define EXPECT_FIELD(e, name, want)                                                                   \
    do {                                                                                             \
        const char *v_ = field((e), (name), NULL);                                                   \
        EXPECT(v_ && strcmp(v_, (want)) == 0, "%s=%s, want %s", (name), v_ ? v_ : "(absent)", (want)); \
    } while (0)

static void dump_entry(const entry *e) {
    for (size_t i = 0; i < e->n; i++) {
        if (e->len[i] > 200 || memchr(e->value[i], '\n', e->len[i]))
            printf("    %s=[%zu bytes%s]\n", e->name[i], e->len[i], memchr(e->value[i], '\n', e->len[i]) ? ", several lines" : "");
        else
            printf("    %s=%s\n", e->name[i], e->value[i]);
    }
}

/* The host's own callbacks, which the wrapper must still call. */
typedef struct {
    int reports, outcomes;
    ng_outcome last;
    char guard[128];
} host;

static void on_report(void *user, ng_context *ctx, const char *guard_id, const char *text) {
    (void)ctx;
    (void)text;
    host *h = user;
    h->reports++;
    snprintf(h->guard, sizeof h->guard, "%s", guard_id ? guard_id : "");
}
static void on_outcome(void *user, ng_context *ctx, const ng_outcome *o) {
    (void)ctx;
    host *h = user;
    h->outcomes++;
    h->last = *o;
}

static void test_context(void) {
    ngj_options jo = NGJ_OPTIONS_INIT;
    jo.flags = NGJ_REFUSALS | NGJ_DROPS;
    jo.socket_path = g_path;
    jo.context_name = "kiosk-7";
    jo.identifier = "navguard-test";
    ngj_sink *sink = ngj_create(&jo);
    EXPECT(sink, "ngj_create: %s", strerror(errno));
    if (!sink) return;

    host h;
    memset(&h, 0, sizeof h);
    ng_options o = NG_OPTIONS_INIT;
    o.clock = NG_CLOCK_MANUAL;
    o.delegate.user = &h;
    o.delegate.on_report = on_report;
    o.delegate.on_outcome = on_outcome;
    ngj_wrap(sink, &o.delegate);
    ng_context *ctx = NULL;
    MUST(ctx, ng_context_create(&o, &ctx));
    MUST(ctx, ng_chain_configure(ctx, "{\"base\":\"default\"}"));
    ng_record_options ro = NG_RECORD_OPTIONS_INIT;
    ro.ring_records = 1000;
    ro.dump_dir = g_dir;
    MUST(ctx, ng_record_start(ctx, &ro));
    ng_screen home = { 1, "home", NULL };
    MUST(ctx, ng_stack_set_root(ctx, &home));

    /* A refusal: popping the root. */
    ng_request pop = NG_REQUEST_INIT(NG_REQ_POP);
    ng_request_result res = NG_REQUEST_RESULT_INIT;
    MUST(ctx, ng_request_submit(ctx, &pop, &res));
    EXPECT(res.status == NG_OUTCOME_REFUSED, "pop of the root refused (%d)", (int)res.status);
    EXPECT(h.outcomes == 1 && h.last.outcome == NG_OUTCOME_REFUSED, "the host's on_outcome still called");
    entry e;
    EXPECT(receive(&e), "a refusal entry");
    printf("refusal entry:\n");
    dump_entry(&e);
    EXPECT_FIELD(&e, "MESSAGE_ID", NGJ_MESSAGE_ID_REFUSAL);
    EXPECT_FIELD(&e, "PRIORITY", "6");
    EXPECT_FIELD(&e, "SYSLOG_IDENTIFIER", "navguard-test");
    EXPECT_FIELD(&e, "NAVGUARD_CONTEXT", "kiosk-7");
    EXPECT_FIELD(&e, "NAVGUARD_VERSION", ng_version_string());
    EXPECT_FIELD(&e, "NAVGUARD_SCREEN", "1");
    EXPECT_FIELD(&e, "NAVGUARD_ROUTE", "home");
    EXPECT_FIELD(&e, "NAVGUARD_REASON", ng_reason_name(h.last.reason));
    EXPECT_FIELD(&e, "NAVGUARD_KIND", "pop");
    char id[32];
    snprintf(id, sizeof id, "%llu", (unsigned long long)h.last.request_id);
    EXPECT_FIELD(&e, "NAVGUARD_REQUEST", id);
    if (h.last.guard_id) EXPECT_FIELD(&e, "NAVGUARD_GUARD", h.last.guard_id);
    else EXPECT(!field(&e, "NAVGUARD_GUARD", NULL), "no guard: no NAVGUARD_GUARD");
    const char *msg = field(&e, "MESSAGE", NULL);
    EXPECT(msg && strstr(msg, "refused") && !strchr(msg, '\n'), "MESSAGE one line: %s", msg ? msg : "(absent)");
    entry_free(&e);

    /* A watchdog action: a transition nobody finishes, past the limit. */
    ng_request push = NG_REQUEST_INIT(NG_REQ_PUSH);
    push.flags = NG_REQF_ANIMATED;
    push.screen.id = 2;
    push.screen.route = "checkout";
    MUST(ctx, ng_request_submit(ctx, &push, &res));
    MUST(ctx, ng_clock_set(ctx, 2500 * MS));
    MUST(ctx, ng_tick(ctx));
    EXPECT(h.reports == 1 && strcmp(h.guard, NGJ_WATCHDOG_ID) == 0, "the watchdog reported (%d, %s)", h.reports, h.guard);
    EXPECT(receive(&e), "a watchdog entry");
    printf("watchdog entry:\n");
    dump_entry(&e);
    EXPECT_FIELD(&e, "MESSAGE_ID", NGJ_MESSAGE_ID_WATCHDOG);
    EXPECT_FIELD(&e, "PRIORITY", "3");
    EXPECT_FIELD(&e, "NAVGUARD_GUARD", NGJ_WATCHDOG_ID);
    EXPECT_FIELD(&e, "NAVGUARD_ROUTE", "checkout");   /* forced to finish: the top now */
    EXPECT_FIELD(&e, "NAVGUARD_SCREEN", "2");
    size_t tlen = 0;
    const char *text = field(&e, "NAVGUARD_TEXT", &tlen);
    msg = field(&e, "MESSAGE", NULL);
    EXPECT(text && msg && strchr(text, '\n') && strncmp(text, msg, strlen(msg)) == 0 && text[strlen(msg)] == '\n',
           "MESSAGE is the report's first line, NAVGUARD_TEXT all of it");
    /* The path the report names, copied: the entry is freed next. */
    char named_path[1024] = "";
    const char *at = text ? strstr(text, " are in ") : NULL;
    if (at) snprintf(named_path, sizeof named_path, "%s", at + 8);
    entry_free(&e);

    /* The report dump the report names. */
    EXPECT(receive(&e), "a dump entry");
    printf("dump entry:\n");
    dump_entry(&e);
    EXPECT_FIELD(&e, "MESSAGE_ID", NGJ_MESSAGE_ID_DUMP);
    EXPECT_FIELD(&e, "PRIORITY", "6");
    const char *dump = field(&e, "NAVGUARD_DUMP", NULL);
    EXPECT(dump && strncmp(dump, g_dir, strlen(g_dir)) == 0 && strstr(dump, ".ngbox"), "the dump in dump_dir: %s", dump ? dump : "(absent)");
    EXPECT(dump && named_path[0] && strncmp(named_path, dump, strlen(dump)) == 0, "the path the report names");
    entry_free(&e);
    EXPECT(!receive(&e), "nothing more");

    ng_context_destroy(ctx);
    EXPECT(ngj_dropped(sink) == 0 && ngj_sent(sink) == 3, "3 sent, none dropped (%llu, %llu)",
           (unsigned long long)ngj_sent(sink), (unsigned long long)ngj_dropped(sink));
    ngj_destroy(sink);
}

/* A watchdog told not to report logs its recovery instead: that line is the
 * watchdog entry. */
static void test_watchdog_log(void) {
    ngj_options jo = NGJ_OPTIONS_INIT;
    jo.socket_path = g_path;
    ngj_sink *sink = ngj_create(&jo);
    ng_options o = NG_OPTIONS_INIT;
    o.clock = NG_CLOCK_MANUAL;
    ngj_wrap(sink, &o.delegate);
    ng_context *ctx = NULL;
    MUST(ctx, ng_context_create(&o, &ctx));
    MUST(ctx, ng_chain_configure(ctx, "{\"base\":\"default\",\"edits\":[{\"configure\":\"org.navguard.watchdog\","
                                      "\"config\":{\"report\":false}}]}"));
    ng_screen home = { 1, "home", NULL };
    MUST(ctx, ng_stack_set_root(ctx, &home));
    ng_request push = NG_REQUEST_INIT(NG_REQ_PUSH);
    push.flags = NG_REQF_ANIMATED;
    push.screen.id = 2;
    push.screen.route = "menu";
    ng_request_result res = NG_REQUEST_RESULT_INIT;
    MUST(ctx, ng_request_submit(ctx, &push, &res));
    MUST(ctx, ng_clock_set(ctx, 2500 * MS));
    MUST(ctx, ng_tick(ctx));
    entry e;
    EXPECT(receive(&e), "a watchdog entry from its log line");
    EXPECT_FIELD(&e, "MESSAGE_ID", NGJ_MESSAGE_ID_WATCHDOG);
    EXPECT_FIELD(&e, "PRIORITY", "3");
    EXPECT_FIELD(&e, "NAVGUARD_GUARD", NGJ_WATCHDOG_ID);
    EXPECT_FIELD(&e, "NAVGUARD_ROUTE", "menu");
    const char *msg = field(&e, "MESSAGE", NULL);
    EXPECT(msg && strncmp(msg, "watchdog: recovered 1 stuck item", 32) == 0, "MESSAGE: %s", msg ? msg : "(absent)");
    entry_free(&e);
    EXPECT(!receive(&e), "nothing more (no refusal entries unasked)");
    ng_context_destroy(ctx);
    ngj_destroy(sink);
}

static void test_crash_dump(void) {
    ngj_options jo = NGJ_OPTIONS_INIT;
    jo.socket_path = g_path;
    ngj_sink *sink = ngj_create(&jo);
    char crash[512];
    snprintf(crash, sizeof crash, "%s/navguard-4242-1-0123456789abcdef-crash.ngbox", g_dir);
    int fd = open(crash, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    close(fd);
    EXPECT(ngj_announce_crash_dumps(sink, g_dir) == 1, "one crash dump announced");
    entry e;
    EXPECT(receive(&e), "a crash entry");
    printf("crash dump entry:\n");
    dump_entry(&e);
    EXPECT_FIELD(&e, "MESSAGE_ID", NGJ_MESSAGE_ID_CRASH_DUMP);
    EXPECT_FIELD(&e, "PRIORITY", "2");
    EXPECT_FIELD(&e, "NAVGUARD_DUMP", crash);
    EXPECT_FIELD(&e, "SYSLOG_IDENTIFIER", "navguard");
    EXPECT(!field(&e, "NAVGUARD_CONTEXT", NULL), "no context: no NAVGUARD_CONTEXT");
    entry_free(&e);
    EXPECT(ngj_announce_crash_dumps(sink, g_dir) == 0 && !receive(&e), "announced once only");
    ngj_destroy(sink);
}

static void test_bad_input(void) {
    ngj_options jo = NGJ_OPTIONS_INIT;
    jo.socket_path = g_path;
    ngj_sink *sink = ngj_create(&jo);
    /* 1 MiB, every byte 1..255, newlines among them. */
    size_t n = 1 << 20;
    char *text = malloc(n + 1);
    for (size_t i = 0; i < n; i++) text[i] = (char)(1 + i % 255);
    text[n] = 0;
    const char *guard = "com.example.odd \"guard\" \\ = \xc3\xa9\n second line\t\x01";
    ngj_report(sink, NULL, guard, text);
    entry e;
    EXPECT(receive(&e), "the 1 MiB report");
    size_t len = 0;
    const char *v = field(&e, "NAVGUARD_TEXT", &len);
    EXPECT(v && len == n && memcmp(v, text, n) == 0, "NAVGUARD_TEXT whole: %zu of %zu bytes", len, n);
    v = field(&e, "NAVGUARD_GUARD", &len);
    EXPECT(v && len == strlen(guard) && memcmp(v, guard, len) == 0, "guard id whole");
    v = field(&e, "MESSAGE", &len);
    EXPECT(v && len == 9 && memcmp(v, text, 9) == 0, "MESSAGE up to the first newline (%zu bytes)", len);
    EXPECT_FIELD(&e, "MESSAGE_ID", NGJ_MESSAGE_ID_REPORT);
    EXPECT_FIELD(&e, "PRIORITY", "5");
    printf("1 MiB report: %s\n", e.via_memfd ? "sent as a memfd" : "sent as one datagram");
    entry_free(&e);

    /* Past any datagram's size (the send buffer is at most 8 MiB): a sealed
     * memfd carries it, as journald accepts. */
    size_t big = 12u << 20;
    char *huge = malloc(big + 1);
    for (size_t i = 0; i < big; i++) huge[i] = (char)('a' + i % 26);
    huge[big] = 0;
    ngj_report(sink, NULL, "org.example.guard", huge);
    EXPECT(receive(&e) && e.via_memfd, "a 12 MiB report goes as a memfd");
    v = field(&e, "NAVGUARD_TEXT", &len);
    EXPECT(v && len == big && memcmp(v, huge, big) == 0, "12 MiB whole (%zu bytes)", len);
    entry_free(&e);
    free(huge);

    /* An ordinary small report with a newline in it: one datagram. */
    ngj_report(sink, NULL, "org.example.guard", "first line\nsecond line\n");
    EXPECT(receive(&e) && !e.via_memfd, "a small report in one datagram");
    EXPECT_FIELD(&e, "MESSAGE", "first line");
    EXPECT_FIELD(&e, "NAVGUARD_TEXT", "first line\nsecond line\n");
    EXPECT_FIELD(&e, "NAVGUARD_GUARD", "org.example.guard");
    entry_free(&e);
    free(text);
    ngj_destroy(sink);
}

static int g_told;
static int g_told_errno;
static void unavailable(void *user, int err, const char *message) {
    (void)user;
    g_told++;
    g_told_errno = err;
    printf("told: %s\n", message);
}

static void test_no_journal(void) {
    char missing[320];
    snprintf(missing, sizeof missing, "%s/no-such-socket", g_dir);
    ngj_options jo = NGJ_OPTIONS_INIT;
    jo.socket_path = missing;
    jo.on_unavailable = unavailable;
    ngj_sink *sink = ngj_create(&jo);
    for (int i = 0; i < 3; i++) ngj_report(sink, NULL, "g", "a report");
    EXPECT(ngj_dropped(sink) == 3 && ngj_sent(sink) == 0, "3 dropped (%llu)", (unsigned long long)ngj_dropped(sink));
    EXPECT(g_told == 1 && g_told_errno == ENOENT, "told once (%d), ENOENT (%d)", g_told, g_told_errno);
    ngj_destroy(sink);
}

/* A journald that does not read (stuck, or slow): sd_journal_sendv blocks
 * once the socket's queue is full (net.unix.max_dgram_qlen datagrams); the
 * sink drops, counts and tells once, and returns. */
static void test_full_queue(void) {
    char path[320];
    snprintf(path, sizeof path, "%s/stuck.socket", g_dir);
    int rx = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    struct sockaddr_un a = { .sun_family = AF_UNIX };
    if (strlen(path) >= sizeof a.sun_path) return;
    memcpy(a.sun_path, path, strlen(path) + 1);
    EXPECT(bind(rx, (struct sockaddr *)&a, sizeof a) == 0, "bind %s", path);
    ngj_options jo = NGJ_OPTIONS_INIT;
    jo.socket_path = path;
    jo.on_unavailable = unavailable;
    ngj_sink *sink = ngj_create(&jo);
    g_told = 0;
    for (int i = 0; i < 2000; i++) ngj_report(sink, NULL, "g", "a report");
    printf("stuck journal: %llu sent before the queue filled, %llu dropped\n", (unsigned long long)ngj_sent(sink),
           (unsigned long long)ngj_dropped(sink));
    EXPECT(ngj_dropped(sink) > 0 && ngj_sent(sink) + ngj_dropped(sink) == 2000, "the rest dropped, every one counted");
    EXPECT(g_told == 1 && g_told_errno == EAGAIN, "told once (%d), EAGAIN (%d)", g_told, g_told_errno);
    /* Once journald reads again, entries go through and a later outage is
     * told again. */
    char buf[65536];
    while (recv(rx, buf, sizeof buf, MSG_DONTWAIT) >= 0) {}
    uint64_t sent = ngj_sent(sink);
    ngj_report(sink, NULL, "g", "a report");
    EXPECT(ngj_sent(sink) == sent + 1, "sent again once drained");
    for (int i = 0; i < 2000; i++) ngj_report(sink, NULL, "g", "a report");
    EXPECT(g_told == 2, "a new outage is told (%d)", g_told);
    ngj_destroy(sink);
    close(rx);
}

int main(void) {
    snprintf(g_dir, sizeof g_dir, "%s/navguard-journald-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(g_dir)) {
        perror("mkdtemp");
        return 1;
    }
    snprintf(g_path, sizeof g_path, "%s/journal.socket", g_dir);
    g_sock = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    struct sockaddr_un a = { .sun_family = AF_UNIX };
    if (strlen(g_path) >= sizeof a.sun_path) return 1;
    memcpy(a.sun_path, g_path, strlen(g_path) + 1);
    int rcv = 8 << 20;
    setsockopt(g_sock, SOL_SOCKET, SO_RCVBUF, &rcv, sizeof rcv);
    if (bind(g_sock, (struct sockaddr *)&a, sizeof a) != 0) {
        perror("bind");
        return 1;
    }
    test_context();
    test_watchdog_log();
    test_crash_dump();
    test_bad_input();
    test_no_journal();
    test_full_queue();
    close(g_sock);
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", g_dir);
    printf("%d checks, %d failures\n", g_checks, g_failures);
    return g_failures ? 1 : 0;
}
