/* SPDX-License-Identifier: Apache-2.0 */
/* The journal sink (navguard_journald.h): entries in the journal's native
 * protocol, sent without blocking. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1 /* memfd_create, F_ADD_SEALS */
#endif
#include "navguard_journald.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <unistd.h>

#define NGJ_MAX_FIELDS 16

struct ngj_sink {
    int fd;
    uint32_t flags;
    bool told;                  /* on_unavailable called since the last entry sent */
    struct sockaddr_un addr;
    socklen_t addr_len;
    char *identifier, *context_name;
    void (*on_unavailable)(void *user, int errno_value, const char *message);
    void *user;
    ng_delegate inner;          /* the host's callbacks (ngj_wrap) */
    _Atomic uint64_t sent, dropped;
};

/* One entry being built: fields point into the caller's strings (no copy). */
typedef struct {
    struct { const char *name; const char *value; size_t len; } f[NGJ_MAX_FIELDS];
    size_t n;
} entry;

static void add_n(entry *e, const char *name, const char *value, size_t len) {
    if (!value || e->n == NGJ_MAX_FIELDS) return;
    e->f[e->n].name = name;
    e->f[e->n].value = value;
    e->f[e->n].len = len;
    e->n++;
}
static void add(entry *e, const char *name, const char *value) {
    if (value) add_n(e, name, value, strlen(value));
}

static char *dup_or(const char *s, const char *fallback) {
    const char *v = s ? s : fallback;
    return v ? strdup(v) : NULL;
}

ngj_sink *ngj_create(const ngj_options *o) {
    ngj_options opt = NGJ_OPTIONS_INIT;
    if (o) memcpy(&opt, o, o->size < sizeof opt ? o->size : sizeof opt);
    const char *path = opt.socket_path ? opt.socket_path : "/run/systemd/journal/socket";
    if (strlen(path) >= sizeof(((struct sockaddr_un *)0)->sun_path)) {
        errno = ENAMETOOLONG;
        return NULL;
    }
    ngj_sink *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    s->identifier = dup_or(opt.identifier, "navguard");
    s->context_name = dup_or(opt.context_name, NULL);
    if (s->fd < 0 || !s->identifier || (opt.context_name && !s->context_name)) {
        int err = errno;
        ngj_destroy(s);
        errno = err;
        return NULL;
    }
    /* A large send buffer keeps bigger entries in one datagram (the kernel
     * caps it at wmem_max; past it, a memfd carries the entry). */
    int buf = 8 << 20;
    (void)setsockopt(s->fd, SOL_SOCKET, SO_SNDBUF, &buf, sizeof buf);
    s->addr.sun_family = AF_UNIX;
    strcpy(s->addr.sun_path, path);
    s->addr_len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + strlen(path) + 1);
    s->flags = opt.flags;
    s->on_unavailable = opt.on_unavailable;
    s->user = opt.user;
    return s;
}

void ngj_destroy(ngj_sink *s) {
    if (!s) return;
    if (s->fd >= 0) close(s->fd);
    free(s->identifier);
    free(s->context_name);
    free(s);
}

uint64_t ngj_sent(const ngj_sink *s) { return s ? atomic_load_explicit(&s->sent, memory_order_relaxed) : 0; }
uint64_t ngj_dropped(const ngj_sink *s) { return s ? atomic_load_explicit(&s->dropped, memory_order_relaxed) : 0; }

static void dropped(ngj_sink *s, int err) {
    atomic_fetch_add_explicit(&s->dropped, 1, memory_order_relaxed);
    if (s->told || !s->on_unavailable) return;
    s->told = true;
    char msg[160 + sizeof s->addr.sun_path];
    snprintf(msg, sizeof msg, "navguard journald: entries are dropped: cannot send to %s: %s", s->addr.sun_path,
             strerror(err));
    s->on_unavailable(s->user, err, msg);
}

/* Native protocol: NAME=value\n, or for a value holding a newline
 * NAME\n<64-bit little-endian length><value>\n. */
static size_t to_iovecs(const entry *e, struct iovec *iov, unsigned char (*lens)[8]) {
    size_t k = 0;
    for (size_t i = 0; i < e->n; i++) {
        bool binary = memchr(e->f[i].value, '\n', e->f[i].len) != NULL;
        iov[k++] = (struct iovec){ (void *)e->f[i].name, strlen(e->f[i].name) };
        if (binary) {
            iov[k++] = (struct iovec){ (void *)"\n", 1 };
            uint64_t n = e->f[i].len;
            for (int b = 0; b < 8; b++) lens[i][b] = (unsigned char)(n >> (8 * b));
            iov[k++] = (struct iovec){ lens[i], 8 };
        } else {
            iov[k++] = (struct iovec){ (void *)"=", 1 };
        }
        iov[k++] = (struct iovec){ (void *)e->f[i].value, e->f[i].len };
        iov[k++] = (struct iovec){ (void *)"\n", 1 };
    }
    return k;
}

/* Too large for a datagram: the entry in a sealed memfd, its descriptor
 * sent (journald reads it; it accepts only a sealed one). */
static int send_memfd(ngj_sink *s, struct iovec *iov, size_t k) {
    int fd = memfd_create("navguard-journal", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (fd < 0) return errno;
    int err = 0;
    size_t at = 0;
    while (at < k && !err) {
        ssize_t w = writev(fd, iov + at, (int)(k - at > 1024 ? 1024 : k - at));
        if (w < 0) {
            if (errno != EINTR) err = errno;
            continue;
        }
        size_t left = (size_t)w;
        while (at < k && left >= iov[at].iov_len) left -= iov[at++].iov_len;
        if (left) {
            iov[at].iov_base = (char *)iov[at].iov_base + left;
            iov[at].iov_len -= left;
        }
    }
    if (!err && fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) < 0) err = errno;
    if (!err) {
        union { struct cmsghdr h; char buf[CMSG_SPACE(sizeof(int))]; } c;
        memset(&c, 0, sizeof c);
        struct msghdr mh = { .msg_name = &s->addr, .msg_namelen = s->addr_len,
                             .msg_control = c.buf, .msg_controllen = sizeof c.buf };
        struct cmsghdr *cm = CMSG_FIRSTHDR(&mh);
        cm->cmsg_level = SOL_SOCKET;
        cm->cmsg_type = SCM_RIGHTS;
        cm->cmsg_len = CMSG_LEN(sizeof(int));
        memcpy(CMSG_DATA(cm), &fd, sizeof(int));
        if (sendmsg(s->fd, &mh, MSG_DONTWAIT | MSG_NOSIGNAL) < 0) err = errno;
    }
    close(fd);
    return err;
}

static void send_entry(ngj_sink *s, entry *e) {
    struct iovec iov[NGJ_MAX_FIELDS * 4];
    unsigned char lens[NGJ_MAX_FIELDS][8];
    size_t k = to_iovecs(e, iov, lens);
    struct msghdr mh = { .msg_name = &s->addr, .msg_namelen = s->addr_len, .msg_iov = iov, .msg_iovlen = k };
    int err = 0;
    ssize_t r;
    do r = sendmsg(s->fd, &mh, MSG_DONTWAIT | MSG_NOSIGNAL);
    while (r < 0 && errno == EINTR);
    if (r < 0) err = errno;
    if (err == EMSGSIZE || err == ENOBUFS) err = send_memfd(s, iov, k);
    if (err) {
        dropped(s, err);
        return;
    }
    s->told = false;
    atomic_fetch_add_explicit(&s->sent, 1, memory_order_relaxed);
}

/* The fields every entry has. `screen` and `ctx_name` are the caller's
 * buffers, alive until the entry is sent. */
static void common(ngj_sink *s, entry *e, ng_context *ctx, const char *message, const char *priority, const char *id,
                   char (*screen)[24], char (*ctx_name)[24]) {
    add(e, "MESSAGE", message);
    add(e, "PRIORITY", priority);
    add(e, "MESSAGE_ID", id);
    add(e, "SYSLOG_IDENTIFIER", s->identifier);
    add(e, "NAVGUARD_VERSION", ng_version_string());
    if (s->context_name) {
        add(e, "NAVGUARD_CONTEXT", s->context_name);
    } else if (ctx) {
        snprintf(*ctx_name, sizeof *ctx_name, "%p", (void *)ctx);
        add(e, "NAVGUARD_CONTEXT", *ctx_name);
    }
    size_t depth = 0;
    ng_screen_info top;
    memset(&top, 0, sizeof top);
    top.size = sizeof top;
    if (ctx && ng_stack_count(ctx, &depth) == NG_OK && depth > 0 && ng_stack_get(ctx, depth - 1, &top) == NG_OK) {
        snprintf(*screen, sizeof *screen, "%" PRIu64, top.id);
        add(e, "NAVGUARD_SCREEN", *screen);
        add(e, "NAVGUARD_ROUTE", top.route);
    }
}

static size_t first_line(const char *text) {
    const char *nl = strchr(text, '\n');
    return nl ? (size_t)(nl - text) : strlen(text);
}

void ngj_dump(ngj_sink *s, ng_context *ctx, const char *path, bool crash) {
    if (!s || !path) return;
    entry e = { .n = 0 };
    char screen[24], ctx_name[24];
    char msg[64];
    snprintf(msg, sizeof msg, "%s written: ", crash ? "crash dump" : "flight recorder dump");
    /* MESSAGE is a sentence naming the file: built in two fields would split
     * it, so the path is in NAVGUARD_DUMP and MESSAGE names it as well when
     * it fits. */
    char line[512];
    snprintf(line, sizeof line, "%s%s", msg, path);
    common(s, &e, ctx, line, crash ? "2" : "6", crash ? NGJ_MESSAGE_ID_CRASH_DUMP : NGJ_MESSAGE_ID_DUMP, &screen, &ctx_name);
    add(&e, "NAVGUARD_DUMP", path);
    send_entry(s, &e);
}

/* The report dump the recorder names at the end of a report (navguard.h,
 * ng_record_options): "flight recorder: the last records (N KiB) are in
 * <path> (binary, ...". */
static bool dump_in(const char *text, const char **path, size_t *len) {
    const char *p = strstr(text, "flight recorder: the last records (");
    if (!p) return false;
    p = strstr(p, ") are in ");
    if (!p) return false;
    p += strlen(") are in ");
    const char *end = strstr(p, " (binary");
    if (!end) return false;
    *path = p;
    *len = (size_t)(end - p);
    return *len > 0;
}

void ngj_report(ngj_sink *s, ng_context *ctx, const char *guard_id, const char *text) {
    if (!s || !text) return;
    bool watchdog = guard_id && strcmp(guard_id, NGJ_WATCHDOG_ID) == 0;
    entry e = { .n = 0 };
    char screen[24], ctx_name[24];
    common(s, &e, ctx, NULL, watchdog ? "3" : "5", watchdog ? NGJ_MESSAGE_ID_WATCHDOG : NGJ_MESSAGE_ID_REPORT,
           &screen, &ctx_name);
    add_n(&e, "MESSAGE", text, first_line(text));
    add(&e, "NAVGUARD_GUARD", guard_id);
    add(&e, "NAVGUARD_TEXT", text);
    send_entry(s, &e);
    const char *dump;
    size_t len;
    if (dump_in(text, &dump, &len)) {
        char path[4096 + 128];
        if (len < sizeof path) {
            memcpy(path, dump, len);
            path[len] = 0;
            ngj_dump(s, ctx, path, false);
        }
    }
}

void ngj_log(ngj_sink *s, ng_context *ctx, int32_t severity, const char *guard_id, const char *message) {
    (void)severity;
    if (!s || !message || !guard_id || strcmp(guard_id, NGJ_WATCHDOG_ID) != 0) return;
    if (strncmp(message, "watchdog: recovered", 19) != 0) return;
    entry e = { .n = 0 };
    char screen[24], ctx_name[24];
    common(s, &e, ctx, NULL, "3", NGJ_MESSAGE_ID_WATCHDOG, &screen, &ctx_name);
    add_n(&e, "MESSAGE", message, first_line(message));
    add(&e, "NAVGUARD_GUARD", guard_id);
    add(&e, "NAVGUARD_TEXT", message);
    send_entry(s, &e);
}

void ngj_outcome(ngj_sink *s, ng_context *ctx, const ng_outcome *o) {
    if (!s || !o) return;
    bool refused = o->outcome == NG_OUTCOME_REFUSED, drop = o->outcome == NG_OUTCOME_DROPPED;
    if (!(refused && (s->flags & NGJ_REFUSALS)) && !(drop && (s->flags & NGJ_DROPS))) return;
    entry e = { .n = 0 };
    char screen[24], ctx_name[24], request[24], line[256];
    const char *reason = ng_reason_name(o->reason), *kind = ng_request_kind_name(o->kind);
    snprintf(line, sizeof line, "request %" PRIu64 " (%s) %s by %.100s: %s", o->request_id, kind ? kind : "?",
             refused ? "refused" : "dropped", o->guard_id ? o->guard_id : "the core", reason ? reason : "?");
    for (char *c = line; *c; c++)
        if (*c == '\n') *c = ' ';   /* MESSAGE stays one line whatever the guard id holds */
    common(s, &e, ctx, line, refused ? "6" : "7", refused ? NGJ_MESSAGE_ID_REFUSAL : NGJ_MESSAGE_ID_DROP,
           &screen, &ctx_name);
    add(&e, "NAVGUARD_GUARD", o->guard_id);
    snprintf(request, sizeof request, "%" PRIu64, o->request_id);
    add(&e, "NAVGUARD_REQUEST", request);
    add(&e, "NAVGUARD_REASON", reason);
    add(&e, "NAVGUARD_KIND", kind);
    add(&e, "NAVGUARD_TEXT", o->message);
    send_entry(s, &e);
}

int ngj_announce_crash_dumps(ngj_sink *s, const char *dir) {
    if (!s) return 0;
    const char *d = dir ? dir : ".";
    DIR *dh = opendir(d);
    if (!dh) return -1;
    int n = 0;
    struct dirent *de;
    while ((de = readdir(dh)) != NULL) {
        size_t len = strlen(de->d_name);
        if (strncmp(de->d_name, "navguard-", 9) != 0 || len < 12 + 9 || strcmp(de->d_name + len - 12, "-crash.ngbox") != 0)
            continue;
        char path[4096], mark[4096 + 16];
        if ((size_t)snprintf(path, sizeof path, "%s/%s", d, de->d_name) >= sizeof path) continue;
        snprintf(mark, sizeof mark, "%s.journald", path);
        struct stat st;
        if (stat(mark, &st) == 0) continue;
        uint64_t before = ngj_sent(s);
        ngj_dump(s, NULL, path, true);
        if (ngj_sent(s) == before) continue;   /* not sent: announced again next time */
        int fd = open(mark, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
        if (fd >= 0) close(fd);
        n++;
    }
    closedir(dh);
    return n;
}

/* ngj_wrap's trampolines: the host's callback first, then the entry. */
static void w_report(void *user, ng_context *ctx, const char *guard_id, const char *text) {
    ngj_sink *s = user;
    if (s->inner.on_report) s->inner.on_report(s->inner.user, ctx, guard_id, text);
    ngj_report(s, ctx, guard_id, text);
}
static void w_log(void *user, ng_context *ctx, int32_t severity, const char *guard_id, const char *message) {
    ngj_sink *s = user;
    if (s->inner.on_log) s->inner.on_log(s->inner.user, ctx, severity, guard_id, message);
    ngj_log(s, ctx, severity, guard_id, message);
}
static void w_outcome(void *user, ng_context *ctx, const ng_outcome *o) {
    ngj_sink *s = user;
    if (s->inner.on_outcome) s->inner.on_outcome(s->inner.user, ctx, o);
    ngj_outcome(s, ctx, o);
}
/* The rest only pass the host's user on. */
static void w_transition(void *u, ng_context *c, const ng_transition_event *e) { ngj_sink *s = u; s->inner.on_transition(s->inner.user, c, e); }
static void w_hold_end(void *u, ng_context *c, const ng_hold_info *h) { ngj_sink *s = u; s->inner.on_hold_end(s->inner.user, c, h); }
static void w_touch_cancel(void *u, ng_context *c, const ng_touch_info *t) { ngj_sink *s = u; s->inner.on_touch_cancel(s->inner.user, c, t); }
static void w_question(void *u, ng_context *c, const ng_question *q) { ngj_sink *s = u; s->inner.on_question(s->inner.user, c, q); }
static void w_question_end(void *u, ng_context *c, const ng_question *q, ng_answer a) { ngj_sink *s = u; s->inner.on_question_end(s->inner.user, c, q, a); }
static void w_wake(void *u, ng_context *c) { ngj_sink *s = u; s->inner.on_wake(s->inner.user, c); }
static void w_deadline(void *u, ng_context *c, int64_t d) { ngj_sink *s = u; s->inner.on_deadline(s->inner.user, c, d); }
static void w_press_cancel(void *u, ng_context *c, const ng_press_info *p) { ngj_sink *s = u; s->inner.on_press_cancel(s->inner.user, c, p); }

void ngj_wrap(ngj_sink *s, ng_delegate *d) {
    if (!s || !d) return;
    ng_delegate inner;
    memset(&inner, 0, sizeof inner);
    memcpy(&inner, d, d->size < sizeof inner ? d->size : sizeof inner);
    s->inner = inner;
    d->size = sizeof *d;
    d->user = s;
    d->on_report = w_report;
    d->on_log = w_log;
    d->on_outcome = w_outcome;
    d->on_transition = inner.on_transition ? w_transition : NULL;
    d->on_hold_end = inner.on_hold_end ? w_hold_end : NULL;
    d->on_touch_cancel = inner.on_touch_cancel ? w_touch_cancel : NULL;
    d->on_question = inner.on_question ? w_question : NULL;
    d->on_question_end = inner.on_question_end ? w_question_end : NULL;
    d->on_wake = inner.on_wake ? w_wake : NULL;
    d->on_deadline = inner.on_deadline ? w_deadline : NULL;
    d->on_press_cancel = inner.on_press_cancel ? w_press_cancel : NULL;
}
