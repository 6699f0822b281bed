/* SPDX-License-Identifier: Apache-2.0 */
/* fuzz/api/recorder.c — navguard.h "Flight recorder and replay": each
 * context records from its creation through the host's writer, and its
 * trace is replayed after destroy (identically); op_record stops and starts
 * recording (writer, file, ring, the crash-dump options, sizes and
 * destinations good and bad) and dumps rings, whose dumps ng_replay must
 * read (and refuse to replay: NG_E_STATE). ng_record_crash_dump is not
 * called: after it every ring of the process stops recording. */
#include "ngf.h"

#include <dirent.h>
#include <sys/stat.h>

char g_dump_dir[64];

static void remove_dump_dir(void) {
    recorder_clean();
    if (g_dump_dir[0]) rmdir(g_dump_dir);
}

void recorder_init(void) {
    snprintf(g_dump_dir, sizeof g_dump_dir, "/tmp/ngf-dumps-XXXXXX");
    if (!mkdtemp(g_dump_dir)) {
        fprintf(stderr, "fuzz_api: cannot create a directory for dumps in /tmp\n");
        abort();
    }
    atexit(remove_dump_dir);
}

/* After each input: the files its recorders wrote (rings' automatic dumps
 * at every report, ng_record_dump, file recordings). */
void recorder_clean(void) {
    DIR *d = g_dump_dir[0] ? opendir(g_dump_dir) : NULL;
    if (!d) return;
    struct dirent *e;
    char path[512];
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.') continue;
        snprintf(path, sizeof path, "%s/%s", g_dump_dir, e->d_name);
        unlink(path);
    }
    closedir(d);
}

static char *slurp(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 1 << 16, n = 0;
    char *b = malloc(cap);
    for (;;) {
        if (!b) abort();
        size_t k = fread(b + n, 1, cap - n, f);
        n += k;
        if (k == 0) break;
        if (n == cap) b = realloc(b, cap *= 2);
    }
    fclose(f);
    *len = n;
    return b;
}

bool trace_write(void *user, const char *data, size_t len) {
    fzc *c = user;
    if (c->tlen + len > c->tcap) {
        c->tcap = (c->tlen + len) * 2;
        c->trace = realloc(c->trace, c->tcap);
        if (!c->trace) abort();
    }
    memcpy(c->trace + c->tlen, data, len);
    c->tlen += len;
    return true;
}

/* The context's whole life, recorded, replays identically (unless fuzz
 * guards, which live in this process only, were in its chain); a damaged
 * copy of the trace is refused or replayed, never a crash. */
void check_replay(fzc *c) {
    if (!c->trace || c->trace_kind == REC_OTHER) return;
    ng_replay_result res = NG_REPLAY_RESULT_INIT;
    ng_status st;
    if (c->fuzz_guards == 0 && c->trace_kind == REC_LATER && c->later_with_posted && !FINDING(5)) {
        g_stat_replays[1]++;   /* F5 (crashers/README.md): not comparable until it is fixed */
    } else if (c->fuzz_guards == 0 && c->trace_kind == REC_LATER) {
        /* Started mid-session: it replays identically, unless something
         * was live at its start (NG_E_STATE, which the trace says). */
        st = CALL(ng_replay, c->trace, c->tlen, NULL, &res);
        TR("ng_replay(trace of ctx#%d from a later start, %zu bytes) -> %s%s", c->serial, c->tlen, stname(st),
           res.identical ? " identical" : "");
        CHECK((st == NG_OK && res.identical) || st == NG_E_STATE, "the trace of context #%d, recorded from a later "
              "ng_record_start, does not replay (%s): %s", c->serial, stname(st), res.report ? res.report : "(no report)");
        ng_free(res.report);
        g_stat_replays[0]++;
    } else if (c->fuzz_guards == 0) {
        st = CALL(ng_replay, c->trace, c->tlen, NULL, &res);
        TR("ng_replay(trace of ctx#%d, %zu bytes) -> %s%s", c->serial, c->tlen, stname(st),
           res.identical ? " identical" : "");
        CHECK(st == NG_OK && res.identical, "the trace of context #%d does not replay (%s): %s", c->serial, stname(st),
              res.report ? res.report : "(no report)");
        ng_free(res.report);
        g_stat_replays[0]++;
    } else {
        g_stat_replays[1]++;
    }
    /* Cut it and flip a byte, both where the trace's own length says. */
    size_t cut = c->tlen * 3 / 4, flip = c->tlen / 3;
    if (flip < cut) c->trace[flip] ^= 0x5A;
    ng_replay_result bad = NG_REPLAY_RESULT_INIT;
    st = CALL(ng_replay, c->trace, cut, NULL, &bad);
    CHECK(st == NG_OK || st == NG_E_PARSE || st == NG_E_RANGE || st == NG_E_STATE || st == NG_E_LOAD ||
          st == NG_E_GUARD || st == NG_E_ABI || st == NG_E_ENTRY,
          "ng_replay of a damaged trace returned %s", stname(st));
    CHECK(bad.report != NULL, "ng_replay gave no report");
    ng_free(bad.report);
}

/* A ring's dump, read back: never replayable (NG_E_STATE), never a crash. */
static void replay_ring_dump(const char *path) {
    size_t n = 0;
    char *text = slurp(path, &n);
    CHECK(text != NULL, "ng_record_dump returned NG_OK but %s cannot be read", path);
    ng_replay_result res = NG_REPLAY_RESULT_INIT;
    ng_status st = CALL(ng_replay, text, n, NULL, &res);
    TR("ng_replay(ring dump, %zu bytes) -> %s", n, stname(st));
    CHECK(st == NG_E_STATE, "ng_replay of a ring dump returned %s, not NG_E_STATE: %s", stname(st),
          res.report ? res.report : "(no report)");
    CHECK(res.report != NULL, "ng_replay gave no report");
    ng_free(res.report);
    free(text);
}

void op_record(fzc *self, rd *r) {
    target t = pick(self, r);
    fzc *c = t.c;
    uint8_t what = r8(r);
    static int serial;
    char file[160];
    snprintf(file, sizeof file, "%s/op-%d.jsonl", g_dump_dir, serial++ % 8);
    ng_status st;
    if (what % 4 == 0) {                 /* ng_record_dump */
        const char *paths[] = { file, NULL, "/nonexistent/navguard/dump.jsonl", g_dump_dir, "caf\xc3.jsonl", g_str5000 };
        const char *p = paths[(what >> 2) % 6];
        st = CALL(ng_record_dump, t.h, p);
        TR("ng_record_dump(ctx#%d%s, %s) -> %s", c ? c->serial : -1, t.bad ? " BAD" : "", p == file ? "a file" : p ? "bad path" : "NULL",
           stname(st));
        EXPECT_HANDLE(t, st, "ng_record_dump");
        if (t.bad) return;
        if (!c->recording) {
            CHECK(st == NG_E_STATE, "ng_record_dump while not recording returned %s", stname(st));
            return;
        }
        if (!c->ring && !p) CHECK(st == NG_OK, "ng_record_dump(NULL) of a writer or file recorder returned %s", stname(st));
        if (c->ring && p == file) {
            CHECK(st == NG_OK, "ng_record_dump of a ring to %s returned %s (%s)", file, stname(st), ng_errmsg(t.h));
            replay_ring_dump(file);
        }
        if (c->ring && p == g_str5000) CHECK(st == NG_E_TOO_LONG, "ng_record_dump(5000-byte path) returned %s", stname(st));
        return;
    }
    if (what % 4 == 1) {                 /* ng_record_stop */
        st = CALL(ng_record_stop, t.h);
        TR("ng_record_stop(ctx#%d%s) -> %s", c ? c->serial : -1, t.bad ? " BAD" : "", stname(st));
        EXPECT_HANDLE(t, st, "ng_record_stop");
        if (t.bad) return;
        if (c->cb_depth > 0) {
            CHECK(st == NG_E_CALLBACK, "ng_record_stop inside a callback returned %s", stname(st));
            return;
        }
        CHECK(st == (c->recording ? NG_OK : NG_E_STATE), "ng_record_stop (recording %d) returned %s", c->recording,
              stname(st));
        c->recording = false;
        c->ring = false;
        c->trace_kind = REC_OTHER;
        return;
    }
    /* ng_record_start: the writer again, a file, or a ring with or
     * without crash dumps; bad sizes, destinations and crash bits. */
    ng_record_options o = NG_RECORD_OPTIONS_INIT;
    uint8_t mode = r8(r) % 8;
    bool writer = false, ring = false, valid = true;
    switch (mode) {
    case 0: case 1: o.write = trace_write; o.user = c; writer = true; break;
    case 2: o.path = file; break;
    case 3: case 4: case 5: {
        static const uint32_t records[] = { 0, 1, 40, 100000 };
        static const int64_t ns[] = { 0, 1000000, INT64_MAX, -1 };
        uint8_t k = r8(r);
        o.ring_records = records[k % 4];
        o.ring_ns = ns[(k >> 2) % 4];
        o.dump_dir = g_dump_dir;
        ring = true;
        if (o.ring_records == 0 && o.ring_ns == 0) o.ring_records = 8;
        if (o.ring_ns < 0) valid = false;
        static const uint32_t crash[] = { 0, NG_RECORD_CRASH_DUMP | NG_RECORD_CRASH_NO_HANDLER, 0,
                                          NG_RECORD_CRASH_DUMP | NG_RECORD_CRASH_NO_HANDLER, NG_RECORD_CRASH_NO_HANDLER,
                                          0x4u, NG_RECORD_CRASH_DUMP, 0 };
        o.crash = crash[(k >> 4) % 8];
        if (o.crash & ~(NG_RECORD_CRASH_DUMP | NG_RECORD_CRASH_NO_HANDLER)) valid = false;
        if (o.crash && !(o.crash & NG_RECORD_CRASH_DUMP)) valid = false;   /* NO_HANDLER needs DUMP */
        break;
    }
    case 6: o.write = trace_write; o.user = c; o.path = file; valid = false; break;   /* two destinations */
    default: o.crash = NG_RECORD_CRASH_DUMP | NG_RECORD_CRASH_NO_HANDLER;              /* no destination */
             valid = false; break;
    }
    uint8_t sz = r8(r) % 8;
    bool small = false;
    if (sz == 0) { o.size = 0; small = true; }
    else if (sz == 1) { o.size = NG_RECORD_OPTIONS_MIN_SIZE - 1; small = true; }
    else if (sz == 2) {                  /* before 0.3: crash is not read */
        o.size = offsetof(ng_record_options, crash);
        o.crash = 0x80u;
        if (ring) valid = o.ring_ns >= 0;
    }
    ng_record_options *op = r8(r) == 255 ? NULL : &o;
    uint64_t keep = c ? c->tlen : 0;
    if (c && writer) c->tlen = 0;   /* a new trace, if it starts */
    st = CALL(ng_record_start, t.h, op);
    TR("ng_record_start(ctx#%d%s, mode %u, size %" PRIu32 ", crash 0x%" PRIx32 ") -> %s", c ? c->serial : -1,
       t.bad ? " BAD" : "", mode, o.size, o.crash, stname(st));
    EXPECT_HANDLE(t, st, "ng_record_start");
    if (t.bad) return;
    if (st != NG_OK && writer) c->tlen = keep;
    if (!op) CHECK(st == NG_E_NULL, "ng_record_start(NULL) returned %s", stname(st));
    else if (c->cb_depth > 0) CHECK(st == NG_E_CALLBACK || st == NG_E_STATE || st == NG_E_SIZE || st == NG_E_RANGE,
                                    "ng_record_start inside a callback returned %s", stname(st));
    else if (c->recording) CHECK(st == NG_E_STATE || st == NG_E_SIZE || st == NG_E_RANGE,
                                 "ng_record_start while recording returned %s", stname(st));
    else if (small) CHECK(st == NG_E_SIZE, "ng_record_start(size %" PRIu32 ") returned %s", o.size, stname(st));
    else if (!valid) CHECK(st == NG_E_RANGE, "ng_record_start of invalid options (mode %u, crash 0x%" PRIx32 ") returned %s",
                           mode, o.crash, stname(st));
    else if (mode == 2 || writer) CHECK(st == NG_OK, "ng_record_start (mode %u) returned %s (%s)", mode, stname(st),
                                        ng_errmsg(t.h));
    else CHECK(st == NG_OK || st == NG_E_NO_MEMORY, "ng_record_start of a ring returned %s (%s)", stname(st),
               ng_errmsg(t.h));
    if (st != NG_OK) return;
    c->recording = true;
    c->ring = ring;
    c->trace_kind = writer ? REC_LATER : REC_OTHER;
    /* Requests still without an outcome (posted ones among them, whose ids
     * the harness may not know): F5 is steered around for all of them. */
    size_t ended = 0;
    for (size_t i = 0; i < c->nreqs; i++) ended += c->reqs[i].outcomes > 0;
    c->later_with_posted = writer && c->accepted > ended;
}
