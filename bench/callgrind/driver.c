/* SPDX-License-Identifier: Apache-2.0 */
/* callgrind driver: the event path per moved event (bench/README.md). Each mode
 * builds one scenario (50 views, one live touch), then moves it N/10 + N
 * times in run_loop, the only function callgrind collects (push, push-default:
 * N/10 + N push+finish pairs in run_push, push-ring the same recording into a
 * ring of 100000 records, collected with
 * --toggle-collect=run_push; Ir per pair = total / (1.1 x N)). Not a benchmark
 * target (not in bench/*.c): built by hand. */
#include <navguard/navguard.h>
#include <navguard/plugin.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <time.h>
static double nowns(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec*1e9+t.tv_nsec;}
#define CHECK(x) do { ng_status s_ = (x); if (s_ != NG_OK) { fprintf(stderr, "%d: %s: %s\n", __LINE__, #x, ng_strstatus(s_)); exit(1);} } while (0)
typedef struct { uint64_t seen; } tg;
static void *tg_create(const ng_guard_host *h, const char *c) { (void)h; (void)c; return calloc(1, sizeof(tg)); }
static void tg_destroy(void *i) { free(i); }
#define HOOK(n) __attribute__((noinline)) static ng_vote ev##n(void *inst, const ng_guard_event *ge, ng_verdict *v) { \
  tg *g = inst; g->seen++; if ((uint32_t)ge->event->type >= NG_EVENT_TYPE_COUNT) { v->reason = NG_REASON_POLICY; return NG_VOTE_REFUSE; } return NG_VOTE_ALLOW; }
HOOK(1) HOOK(2) HOOK(3) HOOK(4) HOOK(5)
#define DESC(n) { NG_PLUGIN_DESCRIPTOR_ABI, .id = "org.navguard.bench.trivial" #n, .name = "t" #n, .version = "1", .description = "d", .create = tg_create, .destroy = tg_destroy, .on_event = ev##n }
static const ng_plugin_descriptor td[5] = { DESC(1), DESC(2), DESC(3), DESC(4), DESC(5) };
typedef ng_vote (*hookfn)(void *, const ng_guard_event *, ng_verdict *);
static hookfn volatile fh[5] = { ev1, ev2, ev3, ev4, ev5 };
static tg fi[5];
static volatile uint64_t sink;
static bool discard(void *u, const char *d, size_t n) { (void)u; (void)d; (void)n; return true; }

__attribute__((noinline)) void run_floor(long n) {
  ng_event e = NG_EVENT_INIT(NG_EVENT_TOUCH); e.phase = NG_TOUCH_MOVED; e.touch_id = 1;
  uint64_t d = 0;
  for (long i = 0; i < n; i++) { e.x = (double)(i & 255); ng_guard_event ge = { sizeof ge, 0u, &e, 7u }; ng_verdict v = { sizeof v, 0, NULL };
    int ok = 1; for (int k = 0; k < 5; k++) if (fh[k](&fi[k], &ge, &v) != NG_VOTE_ALLOW) { ok = 0; break; } d += ok; }
  sink = d;
}
__attribute__((noinline)) void run_loop(ng_context *ctx, long n) {
  ng_event e = NG_EVENT_INIT(NG_EVENT_TOUCH); e.phase = NG_TOUCH_MOVED; e.touch_id = 1; e.y = 370;
  ng_event_result r = NG_EVENT_RESULT_INIT; uint64_t d = 0;
  for (long i = 0; i < n; i++) { e.x = 490 + (double)(i & 15); CHECK(ng_event_submit(ctx, &e, &r)); d += r.verdict == NG_VERDICT_DELIVER; }
  if (d != (uint64_t)n) { fprintf(stderr, "not delivered %llu/%ld\n", (unsigned long long)d, n); exit(1); }
}
static void on_outcome(void *u, ng_context *c, const ng_outcome *o) { (void)u; (void)c; (void)o; }
static void on_transition(void *u, ng_context *c, const ng_transition_event *t) { (void)u; (void)c; (void)t; }
/* push+finish pairs (bench (iv)): an animated push, finish, pop, finish, on
 * the manual clock advanced 301 ms before each request. */
__attribute__((noinline)) void run_push(ng_context *ctx, long n) {
  ng_request push = NG_REQUEST_INIT(NG_REQ_PUSH); push.flags = NG_REQF_ANIMATED; push.source = 1; push.screen.id = 2; push.screen.route = "item";
  ng_request pop = NG_REQUEST_INIT(NG_REQ_POP); pop.flags = NG_REQF_ANIMATED; pop.source = 1;
  ng_request_result r = NG_REQUEST_RESULT_INIT;
  for (long i = 0; i < n; i++) {
    CHECK(ng_clock_advance(ctx, 301000000LL)); CHECK(ng_request_submit(ctx, &push, &r));
    if (r.status != NG_OUTCOME_APPLIED) { fprintf(stderr, "push not applied\n"); exit(1); }
    CHECK(ng_transition_finish(ctx, NG_TRACK_ALL));
    CHECK(ng_clock_advance(ctx, 301000000LL)); CHECK(ng_request_submit(ctx, &pop, &r));
    if (r.status != NG_OUTCOME_APPLIED) { fprintf(stderr, "pop not applied\n"); exit(1); }
    CHECK(ng_transition_finish(ctx, NG_TRACK_ALL));
  }
}
int main(int argc, char **argv) {
  const char *m = argc > 1 ? argv[1] : "empty"; long n = argc > 2 ? atol(argv[2]) : 100000;
  if (!strcmp(m, "floor")) { run_floor(n/10); double t0=nowns(); run_floor(n); printf("%s %.1f ns\n", m, (nowns()-t0)/n); return 0; }
  ng_options o = NG_OPTIONS_INIT; ng_context *ctx = NULL;
  if (!strncmp(m, "push", 4)) { o.clock = NG_CLOCK_MANUAL; o.manual_start_ns = 1000000000LL; o.delegate.on_outcome = on_outcome; o.delegate.on_transition = on_transition; }
  CHECK(ng_context_create(&o, &ctx));
  ng_screen root = { 1, "home", NULL }; CHECK(ng_stack_set_root(ctx, &root));
  if (!strcmp(m, "trivial")) for (int i = 0; i < 5; i++) CHECK(ng_chain_add(ctx, &td[i], NULL));
  if (!strncmp(m, "default", 7) || !strncmp(m, "rec", 3) || !strcmp(m, "push-default") || !strcmp(m, "push-ring")) CHECK(ng_chain_configure(ctx, NULL));
  if (!strcmp(m, "push-ring")) { ng_record_options ro0 = NG_RECORD_OPTIONS_INIT; ro0.ring_records = 100000; CHECK(ng_record_start(ctx, &ro0)); }
  if (!strncmp(m, "push", 4)) { run_push(ctx, n / 10); run_push(ctx, n); CHECK(ng_context_destroy(ctx)); return 0; }
  if (!strcmp(m, "holds")) for (int i = 0; i < 1000; i++) { uint64_t t; CHECK(ng_hold_begin(ctx, "b", NG_MASK_KEY, 0, &t)); }
  ng_record_options ro = NG_RECORD_OPTIONS_INIT;
  if (!strcmp(m, "rec-ring")) { ro.ring_records = getenv("RING") ? (uint32_t)atol(getenv("RING")) : 100000; CHECK(ng_record_start(ctx, &ro)); }
  if (!strcmp(m, "rec-file")) { ro.path = "/dev/null"; CHECK(ng_record_start(ctx, &ro)); }
  if (!strcmp(m, "rec-writer")) { ro.write = discard; CHECK(ng_record_start(ctx, &ro)); }
  ng_view w = NG_VIEW_INIT; w.id = 1; w.frame.width = 1024; w.frame.height = 768; CHECK(ng_view_set(ctx, &w));
  for (int i = 0; i < 49; i++) { ng_view b = NG_VIEW_INIT; b.id = 10 + i; b.parent = 1; b.frame.x = 10 + 140.0 * (i % 7); b.frame.y = 10 + 105.0 * (i / 7); b.frame.width = 120; b.frame.height = 90; b.order = i; CHECK(ng_view_set(ctx, &b)); }
  ng_event e = NG_EVENT_INIT(NG_EVENT_TOUCH); e.phase = NG_TOUCH_BEGAN; e.touch_id = 1; e.x = 490; e.y = 370;
  ng_event_result r = NG_EVENT_RESULT_INIT; CHECK(ng_event_submit(ctx, &e, &r));
  if (r.verdict != NG_VERDICT_DELIVER) { fprintf(stderr, "began not delivered\n"); return 1; }
  run_loop(ctx, n / 10);
  { double t0=nowns(); run_loop(ctx, n); if (getenv("T")) printf("%s %.1f ns\n", m, (nowns()-t0)/n); }
  CHECK(ng_context_destroy(ctx));
  return 0;
}
