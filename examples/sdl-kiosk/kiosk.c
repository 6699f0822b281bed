/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sdl-kiosk — NavGuard in a real SDL2 window: Home -> Menu -> Item -> Checkout
 * with slide animations, a swipe-back from the left edge driven by the
 * finger (or the mouse), a network reply posted from a worker thread (scoped
 * to the screen it was asked from: refused as stale once the user has left
 * it), a "Leave checkout?" dialog for every path that would leave Checkout
 * (NavGuard's question, answered Yes or No), an idle timer that returns to
 * Home, and an F1 overlay showing what NavGuard holds, tracks, refuses and
 * keeps waiting.
 *
 * The app acts only on what NavGuard delivers: every SDL event goes through
 * ng_sdl2_submit, buttons press on a delivered BEGAN and fire on a delivered
 * ENDED inside their hit area, and the screen animation starts on will-show
 * and ends with ng_transition_finish.
 *
 * Usage: sdl-kiosk [--unguarded] [--stack home,menu] [--anim-ms N]
 *                  [--network-delay-ms N] [--idle-ms N] [--log FILE]
 *                  [--screenshot FILE.bmp] [--font FILE.ttf] [--software]
 *                  [--overlay] [--record FILE | --dump-dir DIR] [--journal]
 *                  [--metrics FILE]
 * --journal: a structured journal entry per guard report, watchdog action
 * and refusal (adapters/journald); --metrics FILE keeps a Prometheus
 * textfile current for node_exporter (navguard_metrics.h). The environment
 * variable NAVGUARD_JOURNAL_SOCKET, when set and not empty, names the
 * journal's socket instead of /run/systemd/journal/socket (the tests bind
 * their own).
 * --record FILE writes the whole session's flight-recorder trace (from the
 * context's creation to its destruction) for `navguard replay FILE`.
 * --dump-dir DIR records into a ring instead (not with --record): a guard's
 * report writes the ring to DIR (within the dump budget), and so does a
 * fatal signal (a crash dump); at start-up, with --journal, the crash dumps
 * in DIR not announced before get a journal entry each (and are counted in
 * --metrics' navguard_crash_dumps_total).
 * --idle-ms N: after N ms with no input (mouse, finger, key) the kiosk pops
 * to the root, animated, as kiosks return to their attract screen (0, the
 * default: never): the built-in guard org.navguard.idle-return, added to the
 * chain with after_ms N. On Checkout NavGuard asks first, as for Back;
 * nobody answering within confirm-leave's unattended timeout (10 s) goes
 * Home all the same, and the kiosk does not ask again until someone uses it.
 * Keys: F1 overlay, F12 screenshot (to --screenshot, else ./sdl-kiosk.bmp),
 *       Backspace hardware back, Escape quit. SIGUSR1 is F12; SIGTERM/SIGINT quit.
 */
#define _POSIX_C_SOURCE 200809L
#include "kiosk.h"
#include "log.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ------------------------------------------------------------------------ */
/* Routes and buttons                                                        */
/* ------------------------------------------------------------------------ */

static const char *const ROUTE_NAMES[R_COUNT] = { "home", "menu", "item", "checkout" };
static const char *const ROUTE_TITLES[R_COUNT] = { "Home", "Menu", "Item", "Checkout" };

const char *route_name(int r) { return r >= 0 && r < R_COUNT ? ROUTE_NAMES[r] : "?"; }
const char *route_title(int r) { return r >= 0 && r < R_COUNT ? ROUTE_TITLES[r] : "?"; }

static int route_parse(const char *s, size_t len) {
    for (int r = 0; r < R_COUNT; r++)
        if (strlen(ROUTE_NAMES[r]) == len && strncmp(ROUTE_NAMES[r], s, len) == 0) return r;
    return -1;
}

static const struct {
    uint64_t view;
    const char *name, *label;
    int route;
    SDL_Rect rect;
    button_shape shape;
    kiosk_action act;
} BUTTONS[] = {
    { VIEW_BACK, "back", "\xE2\x80\xB9 Back", -1, { 8, 10, 96, 40 }, SHAPE_RECT, ACT_BACK },
    { 101, "next", "Next: Menu \xE2\x80\xBA", R_HOME, { 560, 500, 210, 64 }, SHAPE_RECT, ACT_NEXT },
    { 201, "next", "Next: Item \xE2\x80\xBA", R_MENU, { 560, 500, 210, 64 }, SHAPE_RECT, ACT_NEXT },
    { 202, "network", "Network", R_MENU, { 40, 500, 220, 64 }, SHAPE_RECT, ACT_NETWORK },
    { 203, "home", "Home", R_MENU, { 292, 492, 80, 80 }, SHAPE_ROUND, ACT_HOME },
    { 301, "next", "Next: Checkout \xE2\x80\xBA", R_ITEM, { 560, 500, 210, 64 }, SHAPE_RECT, ACT_NEXT },
    { 302, "add", "+1", R_ITEM, { 70, 518, 44, 28 }, SHAPE_SMALL_ENLARGED, ACT_ADD },
    { 401, "done", "Done \xE2\x9C\x93", R_CHECKOUT, { 560, 500, 210, 64 }, SHAPE_RECT, ACT_DONE },
    /* the question's dialog (placed by dialog_layout) */
    { VIEW_YES, "yes", "Yes", ROUTE_DIALOG, { 0, 0, 0, 0 }, SHAPE_RECT, ACT_YES },
    { VIEW_NO, "no", "No", ROUTE_DIALOG, { 0, 0, 0, 0 }, SHAPE_RECT, ACT_NO },
};

button *button_for_view(app *ap, uint64_t view_id) {
    for (int i = 0; i < ap->nbuttons; i++)
        if (ap->buttons[i].view_id == view_id) return &ap->buttons[i];
    return NULL;
}

/* A button that is registered as a view right now. While the dialog is
 * open only its buttons are: it is modal (its scrim takes every other hit). */
static button *active_button(app *ap, uint64_t view_id) {
    button *b = view_id ? button_for_view(ap, view_id) : NULL;
    if (!b) return NULL;
    if (b->route == ROUTE_DIALOG) return ap->q.open ? b : NULL;
    if (ap->q.open) return NULL;
    if (b->route < 0) return ap->back_view_on ? b : NULL;
    return b->route == ap->views_route ? b : NULL;
}

double now_ms(void) { return klog_now_ms(); }

/* ------------------------------------------------------------------------ */
/* Small helpers                                                             */
/* ------------------------------------------------------------------------ */

static void check(app *ap, ng_status st, const char *call) {
    if (st == NG_OK) return;
    fprintf(stderr, "sdl-kiosk: %s: %s (%s)\n", call, ng_strstatus(st), ng_errmsg(ap->ctx));
    klog_begin("error");
    klog_str("call", call);
    klog_str("status", ng_strstatus(st));
    klog_str("message", ng_errmsg(ap->ctx));
    klog_end();
}

static void remember(app *ap, uint64_t id, int route) {
    for (size_t i = 0; i < ap->nrecs && i < SCREEN_RECS; i++)
        if (ap->recs[i].id == id) return;
    ap->recs[ap->nrecs % SCREEN_RECS] = (screen_rec){ id, route };
    ap->nrecs++;
}

int route_of_id(app *ap, uint64_t id) {
    size_t n = ap->nrecs < SCREEN_RECS ? ap->nrecs : SCREEN_RECS;
    for (size_t i = 0; i < n; i++)
        if (ap->recs[i].id == id) return ap->recs[i].route;
    return -1;
}

static size_t stack_count(app *ap) {
    size_t n = 0;
    check(ap, ng_stack_count(ap->ctx, &n), "ng_stack_count");
    return n;
}

/* Records the route of every screen on the stack (posted screens get their
 * ids on the worker thread; their routes are learnt here). */
static void remember_stack(app *ap) {
    size_t n = stack_count(ap);
    for (size_t i = 0; i < n; i++) {
        ng_screen_info s = NG_SCREEN_INFO_INIT;
        if (ng_stack_get(ap->ctx, i, &s) == NG_OK && s.route)
            remember(ap, s.id, route_parse(s.route, strlen(s.route)));
    }
}

static uint64_t stack_top(app *ap, size_t *out_count) {
    size_t n = stack_count(ap);
    if (out_count) *out_count = n;
    ng_screen_info s = NG_SCREEN_INFO_INIT;
    if (n == 0 || ng_stack_get(ap->ctx, n - 1, &s) != NG_OK) return 0;
    return s.id;
}

static void log_stack(app *ap) {
    const char *routes[64];
    size_t n = stack_count(ap), k = 0;
    for (size_t i = 0; i < n && k < 64; i++) {
        ng_screen_info s = NG_SCREEN_INFO_INIT;
        if (ng_stack_get(ap->ctx, i, &s) == NG_OK) routes[k++] = s.route;
    }
    klog_begin("stack");
    klog_strlist("routes", routes, k);
    klog_end();
}

static const char *guard_or_core(const char *g) { return g ? g : "core"; }

/* "#12"; posted requests and guards' own get ids of their own ranges from
 * NG_POSTED_ID_BASE (2^52): "#p3", "#g1" (as kiosk-sim prints them). */
const char *request_label(uint64_t id) {
    static char buf[4][32];
    static int k = 0;
    char *b = buf[k++ & 3];
    const uint64_t posted = NG_POSTED_ID_BASE, guards = NG_GUARD_ID_BASE;
    if (id >= guards) snprintf(b, sizeof buf[0], "#g%" PRIu64, (uint64_t)(id - guards + 1));
    else if (id >= posted) snprintf(b, sizeof buf[0], "#p%" PRIu64, (uint64_t)(id - posted));
    else snprintf(b, sizeof buf[0], "#%" PRIu64, id);
    return b;
}

/* A line of the overlay's "last verdicts": identical consecutive lines are
 * counted instead of repeated (a dropped drag is many dropped moves). */
static void add_verdict(app *ap, const char *fmt, ...) {
    char text[128];
    va_list va;
    va_start(va, fmt);
    vsnprintf(text, sizeof text, fmt, va);
    va_end(va);
    if (ap->nverdicts > 0 && strcmp(ap->verdicts[0].text, text) == 0) {
        ap->verdicts[0].repeat++;
        ap->verdicts[0].t_ms = now_ms();
    } else {
        memmove(&ap->verdicts[1], &ap->verdicts[0], sizeof ap->verdicts[0] * (VERDICTS - 1));
        snprintf(ap->verdicts[0].text, sizeof ap->verdicts[0].text, "%s", text);
        ap->verdicts[0].repeat = 1;
        ap->verdicts[0].t_ms = now_ms();
        ap->verdicts[0].applied = false;
        if (ap->nverdicts < VERDICTS) ap->nverdicts++;
    }
    if (ap->overlay) ap->dirty = true;
}

static const char *phase_name(int32_t p) { return ng_touch_phase_name(p); }
static const char *event_type_name(int32_t t) { return ng_event_type_name(t); }

/* ------------------------------------------------------------------------ */
/* Views: the top screen's buttons are NavGuard views                        */
/* ------------------------------------------------------------------------ */

static void view_set(app *ap, const button *b) {
    ng_view v = NG_VIEW_INIT;
    v.id = b->view_id;
    v.frame = (ng_rect){ b->rect.x, b->rect.y, b->rect.w, b->rect.h };
    v.order = b->route == ROUTE_DIALOG ? 11 : 1;   /* the dialog's in front of its scrim (10) */
    if (b->shape == SHAPE_ROUND) {
        v.shape.kind = NG_SHAPE_CIRCLE;
        v.shape.cx = b->rect.w / 2.0;
        v.shape.cy = b->rect.h / 2.0;
        v.shape.radius = b->rect.w / 2.0;
    } else if (b->shape == SHAPE_SMALL_ENLARGED) {
        v.shape.kind = NG_SHAPE_INSETS;
        v.shape.top = v.shape.bottom = -ENLARGE_Y;
        v.shape.left = v.shape.right = -ENLARGE_X;
    }
    check(ap, ng_view_set(ap->ctx, &v), "ng_view_set");
}

/* Registers the buttons of the screen on top of the stack (and Back when
 * there is something to go back to); the old top's buttons are removed, which
 * cancels a touch still pressing one of them. */
static void sync_views(app *ap) {
    size_t n = 0;
    uint64_t top = stack_top(ap, &n);
    if (top != ap->views_top) {
        int r = route_of_id(ap, top);
        if (r != ap->views_route) {
            for (int i = 0; i < ap->nbuttons; i++)
                if (ap->buttons[i].route >= 0 && ap->buttons[i].route == ap->views_route)
                    check(ap, ng_view_remove(ap->ctx, ap->buttons[i].view_id), "ng_view_remove");
            for (int i = 0; i < ap->nbuttons; i++)
                if (ap->buttons[i].route >= 0 && ap->buttons[i].route == r) view_set(ap, &ap->buttons[i]);
            ap->views_route = r;
        }
        ap->views_top = top;
    }
    bool want_back = n > 1;
    if (want_back && !ap->back_view_on) view_set(ap, button_for_view(ap, VIEW_BACK));
    else if (!want_back && ap->back_view_on) check(ap, ng_view_remove(ap->ctx, VIEW_BACK), "ng_view_remove");
    ap->back_view_on = want_back;
}

/* ------------------------------------------------------------------------ */
/* The question's dialog                                                     */
/* ------------------------------------------------------------------------ */

#define CARD_W 372
#define CARD_H 236
#define DIALOG_BUTTON_W 150
#define DIALOG_BUTTON_H 56

/* Centred in the window; left of the F1 panel (x >= 400) while it is open,
 * so both read. Moves the Yes and No views with it. */
void dialog_layout(app *ap) {
    dialog *d = &ap->q;
    int x = ap->overlay ? (400 - CARD_W) / 2 : (WIN_W - CARD_W) / 2;
    d->card = (SDL_Rect){ x, 176, CARD_W, CARD_H };
    int y = d->card.y + CARD_H - 22 - DIALOG_BUTTON_H;
    button *yes = button_for_view(ap, VIEW_YES), *no = button_for_view(ap, VIEW_NO);
    yes->rect = (SDL_Rect){ d->card.x + 24, y, DIALOG_BUTTON_W, DIALOG_BUTTON_H };
    no->rect = (SDL_Rect){ d->card.x + CARD_W - 24 - DIALOG_BUTTON_W, y, DIALOG_BUTTON_W, DIALOG_BUTTON_H };
    ap->dirty = true;
    if (!d->open) return;
    view_set(ap, yes);
    view_set(ap, no);
}

/* Modal: a scrim view over the whole window takes every touch that misses
 * the dialog's buttons, so nothing behind it is hit (touches already
 * pressing a button behind keep their view and end as usual). */
static void dialog_open(app *ap) {
    ng_view scrim = NG_VIEW_INIT;
    scrim.id = VIEW_SCRIM;
    scrim.frame = (ng_rect){ 0, 0, WIN_W, WIN_H };
    scrim.order = 10;
    check(ap, ng_view_set(ap->ctx, &scrim), "ng_view_set");
    dialog_layout(ap);
}

static void dialog_close(app *ap) {
    ap->q.open = false;
    ap->dirty = true;
    if (ap->destroying) return;   /* the context is going: its views with it */
    /* a touch still pressing Yes or No is cancelled (on_touch_cancel) */
    check(ap, ng_view_remove(ap->ctx, VIEW_YES), "ng_view_remove");
    check(ap, ng_view_remove(ap->ctx, VIEW_NO), "ng_view_remove");
    check(ap, ng_view_remove(ap->ctx, VIEW_SCRIM), "ng_view_remove");
}

/* ------------------------------------------------------------------------ */
/* Animations                                                                */
/* ------------------------------------------------------------------------ */

static bool animating(const app *ap) {
    return ap->an.kind == ANIM_PUSH || ap->an.kind == ANIM_POP ||
           (ap->an.kind == ANIM_SWIPE && ap->an.phase == SWIPE_SETTLE);
}

static void frames_log(app *ap) {
    anim *an = &ap->an;
    if (!an->frames_what) return;
    double ms = now_ms() - an->frames_start;
    klog_begin("frames");
    klog_str("anim", an->frames_what);
    klog_uint("request", an->request_id);
    klog_int("frames", an->frames);
    klog_num("ms", ms);
    klog_num("fps", ms > 0 ? an->frames * 1000.0 / ms : 0.0);
    klog_end();
    ap->last_fps = ms > 0 ? an->frames * 1000.0 / ms : 0.0;
    ap->last_fps_what = an->frames_what;
    an->frames_what = NULL;
}

static void frames_start(app *ap, const char *what) {
    ap->an.frames = 0;
    ap->an.frames_start = now_ms();
    ap->an.frames_what = what;
}

static void anim_end(app *ap) {
    if (ap->an.kind == ANIM_NONE) return;
    frames_log(ap);
    ap->an.kind = ANIM_NONE;
    ap->dirty = true;
}

static bool is_pop_kind(ng_request_kind k) {
    return k == NG_REQ_POP || k == NG_REQ_POP_TO || k == NG_REQ_POP_TO_ROOT || k == NG_REQ_BACK ||
           k == NG_REQ_INTERACTIVE_BACK;
}

/* Start settling a released swipe towards `finish` (full width) or back to 0,
 * each with its own easing; the duration follows the distance left. */
static void settle_start(app *ap, bool finish, double velocity) {
    anim *an = &ap->an;
    an->phase = SWIPE_SETTLE;
    an->finish = finish;
    an->settle_from = an->offset;
    an->settle_to = finish ? WIN_W : 0.0;
    double remaining = fabs(an->settle_to - an->settle_from);
    double dur = (finish ? 1.0 : 1.25) * ap->anim_ms * remaining / WIN_W;
    if (finish && velocity > 0) {
        double fling = 1500.0 * remaining / velocity;   /* a fling lands at about its own speed */
        if (fling < dur) dur = fling;
    }
    an->settle_dur = dur < 60.0 ? 60.0 : dur;
    an->settle_start = now_ms();
    frames_start(ap, finish ? "settle-finish" : "settle-cancel");
    ap->dirty = true;
}

static void start_anim(app *ap, const ng_transition_event *e) {
    if (ap->an.kind != ANIM_NONE) anim_end(ap);   /* the previous DID normally came first */
    size_t count = stack_count(ap);
    anim *an = &ap->an;
    memset(an, 0, sizeof *an);
    an->request_id = e->request_id;
    an->from_route = route_of_id(ap, e->from_id);
    an->to_route = route_of_id(ap, e->to_id);
    an->from_depth = ap->shown_depth;
    an->to_depth = (int)count;
    if (!(e->flags & NG_TRANSF_ANIMATED)) return;   /* its DID follows at once */
    if (e->flags & NG_TRANSF_INTERACTIVE) {
        an->kind = ANIM_SWIPE;
        an->touch = ap->edge_touch;
        an->x0 = ap->edge_x0;
        if (ap->swipe_submitting) {
            an->phase = SWIPE_DRAG;
            frames_start(ap, "drag");
        } else {
            /* An interactive back nobody drives (e.g. applied after a
             * deferral): roll it back at once. */
            check(ap, ng_interactive_release(ap->ctx, false), "ng_interactive_release");
            settle_start(ap, false, 0);
        }
    } else {
        bool pop = is_pop_kind(e->kind) || (e->kind == NG_REQ_REPLACE_STACK && an->to_depth < an->from_depth);
        an->kind = pop ? ANIM_POP : ANIM_PUSH;
        an->start_ms = now_ms();
        an->dur_ms = ap->anim_ms;
        frames_start(ap, pop ? "pop" : "push");
    }
}

static double ease_out_cubic(double t) { return 1.0 - pow(1.0 - t, 3.0); }
static double ease_in_out_quad(double t) { return t < 0.5 ? 2 * t * t : 1.0 - pow(-2.0 * t + 2.0, 2.0) / 2.0; }

/* Advances the animation to `now`; ends it (ng_transition_finish,
 * ng_interactive_complete) when it arrives. */
static void step_anim(app *ap, double now) {
    anim *an = &ap->an;
    if (an->kind == ANIM_PUSH || an->kind == ANIM_POP) {
        double t = an->dur_ms > 0 ? (now - an->start_ms) / an->dur_ms : 1.0;
        if (t >= 1.0) {
            an->p = 1.0;
            uint64_t id = an->request_id;
            ng_status st = ng_transition_finish(ap->ctx, NG_TRACK_ALL);
            if (st != NG_OK) {
                /* NG_E_NOT_FOUND: it already ended (its DID ended this animation too) */
                klog_begin("late_finish");
                klog_uint("request", id);
                klog_str("status", ng_strstatus(st));
                klog_end();
            }
            if (an->kind != ANIM_NONE && an->request_id == id) anim_end(ap);
        } else {
            an->p = ease_out_cubic(t < 0 ? 0 : t);
        }
    } else if (an->kind == ANIM_SWIPE && an->phase == SWIPE_SETTLE) {
        double t = an->settle_dur > 0 ? (now - an->settle_start) / an->settle_dur : 1.0;
        if (t >= 1.0) {
            an->offset = an->settle_to;
            an->p = an->offset / WIN_W;
            /* Read before completing: a reply that waited for the swipe is
             * applied inside the call, and its will-show starts a new
             * animation in `an`. */
            uint64_t id = an->request_id;
            bool finish = an->finish;
            ng_status st = ng_interactive_complete(ap->ctx);
            klog_begin("swipe");
            klog_str("event", "complete");
            klog_uint("request", id);
            klog_bool("finish", finish);
            klog_str("status", ng_strstatus(st));
            klog_end();
            if (an->kind != ANIM_NONE && an->request_id == id) anim_end(ap);
        } else {
            double e = an->finish ? ease_out_cubic(t) : ease_in_out_quad(t);
            an->offset = an->settle_from + (an->settle_to - an->settle_from) * e;
            an->p = an->offset / WIN_W;
        }
    }
}

/* ------------------------------------------------------------------------ */
/* Delegate                                                                  */
/* ------------------------------------------------------------------------ */

/* ------------------------------------------------------------------------ */
/* Requests that wait                                                        */
/* ------------------------------------------------------------------------ */

static void waiting_add(app *ap, waiting_req w) {
    if (ap->nwaiting == WAITING) {   /* full: forget the oldest */
        memmove(&ap->waiting[0], &ap->waiting[1], sizeof ap->waiting[0] * (WAITING - 1));
        ap->nwaiting--;
    }
    ap->waiting[ap->nwaiting++] = w;
    if (ap->overlay) ap->dirty = true;
}

/* Request `id` got its outcome: off the list. Returns how long it waited
 * (ms), or -1 when the call that first judged it decided it. */
static double waiting_take(app *ap, uint64_t id) {
    for (int i = 0; i < ap->nwaiting; i++) {
        if (ap->waiting[i].id != id) continue;
        double ms = ap->waiting[i].judged ? now_ms() - ap->waiting[i].since_ms : -1.0;
        memmove(&ap->waiting[i], &ap->waiting[i + 1], sizeof ap->waiting[0] * (size_t)(ap->nwaiting - i - 1));
        ap->nwaiting--;
        if (ap->overlay) ap->dirty = true;
        return ms;
    }
    /* A post decided by the adapter's tick before its worker handed the id
     * over: remembered, so the hand-over does not list it as waiting. */
    if (id >= NG_POSTED_ID_BASE && id < NG_GUARD_ID_BASE) ap->decided[ap->ndecided++ % WAITING] = id;
    return -1.0;
}

/* Takes the workers' posts, and ticks once if one has not been judged yet:
 * a post still without an outcome after the tick that evaluated it waits
 * (a swipe in flight, a guard's deferral). The host learns of that wait no
 * other way (ng_request_post), and the overlay lists it. */
static void waiting_judge(app *ap) {
    pthread_mutex_lock(&ap->net_mu);
    for (int i = 0; i < ap->net_ninbox; i++) {
        bool decided = false;
        for (int j = 0; j < WAITING && j < ap->ndecided; j++)
            if (ap->decided[j] == ap->net_inbox[i].id) {
                ap->decided[j] = 0;
                decided = true;
            }
        if (!decided) waiting_add(ap, ap->net_inbox[i]);
    }
    ap->net_ninbox = 0;
    pthread_mutex_unlock(&ap->net_mu);
    bool unjudged = false;
    for (int i = 0; i < ap->nwaiting; i++) unjudged |= !ap->waiting[i].judged;
    if (!unjudged) return;
    check(ap, ng_tick(ap->ctx), "ng_tick");
    for (int i = 0; i < ap->nwaiting; i++) {
        waiting_req *w = &ap->waiting[i];
        if (w->judged) continue;
        w->judged = true;
        klog_begin("waiting");
        klog_uint("id", w->id);
        klog_str("kind", ng_request_kind_name(w->kind));
        klog_str("screen", w->screen ? route_name(route_of_id(ap, w->screen)) : NULL);
        klog_num("since", w->since_ms);
        klog_end();
    }
}

static void on_outcome(void *user, ng_context *ctx, const ng_outcome *o) {
    app *ap = user;
    (void)ctx;
    double waited = waiting_take(ap, o->request_id);
    klog_begin("outcome");
    klog_uint("id", o->request_id);
    klog_str("kind", ng_request_kind_name(o->kind));
    klog_str("outcome", ng_outcome_name(o->outcome));
    klog_str("reason", ng_reason_name(o->reason));
    klog_str("guard", o->guard_id);
    klog_uint("source", o->source);
    klog_str("message", o->message);
    if (waited >= 0) klog_num("waited_ms", waited);
    klog_end();
    char after[48] = "";
    if (waited >= 0) snprintf(after, sizeof after, " after waiting %.1fs", waited / 1000.0);
    if (o->outcome == NG_OUTCOME_REFUSED || o->outcome == NG_OUTCOME_DROPPED)
        add_verdict(ap, "%s %s %s %s%s  %s", ng_request_kind_name(o->kind), request_label(o->request_id),
                    ng_outcome_name(o->outcome), ng_reason_name(o->reason), after, guard_or_core(o->guard_id));
    else if (waited >= 0) {
        add_verdict(ap, "%s %s %s%s", ng_request_kind_name(o->kind), request_label(o->request_id),
                    ng_outcome_name(o->outcome), after);
        ap->verdicts[0].applied = true;
    }
    if (o->source == SRC_NETWORK_REPLY && ap->net_pending > 0) {
        ap->net_pending--;
        ap->dirty = true;
    }
}

static void on_transition(void *user, ng_context *ctx, const ng_transition_event *e) {
    app *ap = user;
    (void)ctx;
    remember_stack(ap);
    /* Every flag: a transition cut short by quitting says "destroyed", so
     * its did is not read as a completed one; an unknown bit is shown. */
    static const struct { uint32_t bit; const char *name; } FLAGS[] = {
        { NG_TRANSF_ANIMATED, "animated" },       { NG_TRANSF_INTERACTIVE, "interactive" },
        { NG_TRANSF_INTERRUPTED, "interrupted" }, { NG_TRANSF_FORCED, "forced" },
        { NG_TRANSF_TOUCH_DRIVEN, "touch-driven" }, { NG_TRANSF_DESTROYED, "destroyed" },
    };
    const char *flags[sizeof FLAGS / sizeof FLAGS[0] + 1];
    size_t nf = 0;
    uint32_t known = 0;
    for (size_t i = 0; i < sizeof FLAGS / sizeof FLAGS[0]; i++) {
        known |= FLAGS[i].bit;
        if (e->flags & FLAGS[i].bit) flags[nf++] = FLAGS[i].name;
    }
    if (e->flags & ~known) flags[nf++] = "unknown";
    klog_begin("transition");
    klog_str("track", ng_track_name(e->track));
    klog_str("phase", ng_phase_name(e->phase));
    klog_str("kind", ng_request_kind_name(e->kind));
    klog_uint("id", e->request_id);
    klog_uint("from", e->from_id);
    klog_uint("to", e->to_id);
    klog_str("from_route", e->from_id ? route_name(route_of_id(ap, e->from_id)) : NULL);
    klog_str("to_route", e->to_id ? route_name(route_of_id(ap, e->to_id)) : NULL);
    klog_strlist("flags", flags, nf);
    klog_end();
    ap->dirty = true;
    if (e->track != NG_TRACK_SCREEN) return;
    if (e->phase == NG_PHASE_WILL) {
        start_anim(ap, e);
    } else {
        /* DID or CANCELLED: the stack is final. A DID that arrives before our
         * animation ended (interrupted, forced) jumps to the end. */
        if (ap->an.kind != ANIM_NONE && ap->an.request_id == e->request_id) anim_end(ap);
        size_t n = 0;
        uint64_t top = stack_top(ap, &n);
        ap->shown_route = route_of_id(ap, top);
        ap->shown_depth = (int)n;
        log_stack(ap);
    }
    sync_views(ap);
}

static void on_hold_end(void *user, ng_context *ctx, const ng_hold_info *h) {
    app *ap = user;
    (void)ctx;
    klog_begin("hold_end");
    klog_uint("token", h->token);
    klog_str("label", h->label);
    klog_str("reason", ng_hold_end_reason_name(h->reason));
    klog_num("ms", (double)(h->ended_ns - h->began_ns) / 1e6);
    klog_end();
    if (ap->overlay) ap->dirty = true;
}

static void on_report(void *user, ng_context *ctx, const char *guard_id, const char *text) {
    app *ap = user;
    (void)ctx;
    klog_begin("report");
    klog_str("guard", guard_id);
    klog_str("text", text);
    klog_end();
    snprintf(ap->report, sizeof ap->report, "%s", text ? text : "");
    snprintf(ap->report_guard, sizeof ap->report_guard, "%s", guard_or_core(guard_id));
    ap->report_t_ms = now_ms();
    ap->dirty = true;
}

static void on_log(void *user, ng_context *ctx, int32_t severity, const char *guard_id, const char *message) {
    (void)user;
    (void)ctx;
    if (severity < 2) return;
    klog_begin("log");
    klog_int("severity", severity);
    klog_str("guard", guard_id);
    klog_str("message", message);
    klog_end();
}

/* NavGuard asks (the confirm-leave guard: "Leave checkout?"): show the
 * dialog; a click on Yes or No answers (answer(), below). */
static void on_question(void *user, ng_context *ctx, const ng_question *q) {
    app *ap = user;
    dialog *d = &ap->q;
    /* The fields after question_id are read only when the library wrote
     * them (a struct passed out carries its own size). */
    bool full = q->size >= offsetof(ng_question, deadline_ns) + sizeof q->deadline_ns;
    SDL_Rect card = d->card;
    memset(d, 0, sizeof *d);
    d->card = card;
    d->open = true;
    d->id = q->question_id;
    d->source = ap->submitting_source;
    d->route = -1;
    d->timeout_ms = -1;
    d->deadline_ms = -1;
    d->asked_ms = now_ms();
    snprintf(d->text, sizeof d->text, "%s", full && q->text ? q->text : "Leave this screen?");
    snprintf(d->guard, sizeof d->guard, "%s", full && q->guard_id ? q->guard_id : "");
    if (full) {
        d->request_id = q->request_id;
        d->kind = q->kind;
        d->source = q->source;      /* a guard's request too (the idle return) */
        if (q->screen_id) d->route = route_of_id(ap, q->screen_id);
        if (q->deadline_ns != NG_NO_DEADLINE) {
            int64_t now = q->asked_ns;
            ng_now(ctx, &now);
            d->timeout_ms = (q->deadline_ns - q->asked_ns) / 1000000;
            d->deadline_ms = d->asked_ms + (double)(q->deadline_ns - now) / 1e6;
        }
    }
    klog_begin("question");
    klog_uint("id", d->id);
    klog_str("topic", full ? q->topic : NULL);
    klog_str("text", d->text);
    klog_str("guard", full ? q->guard_id : NULL);
    klog_uint("request", d->request_id);
    klog_str("kind", ng_request_kind_name(d->kind));
    klog_str("screen", d->route >= 0 ? route_name(d->route) : NULL);
    klog_uint("source", d->source);
    klog_int("timeout_ms", d->timeout_ms);
    klog_end();
    dialog_open(ap);
}

/* The question ended: answered, timed out or withdrawn. Close the dialog. */
static void on_question_end(void *user, ng_context *ctx, const ng_question *q, ng_answer answer) {
    app *ap = user;
    (void)ctx;
    klog_begin("question_end");
    klog_uint("id", q->question_id);
    klog_str("answer", ng_answer_name(answer));
    klog_num("open_ms", ap->q.open && ap->q.id == q->question_id ? now_ms() - ap->q.asked_ms : 0.0);
    klog_end();
    if (ap->q.open && ap->q.id == q->question_id) dialog_close(ap);
}

static void swipe_release(app *ap, double x, double t_ms, bool cancelled);

static void on_touch_cancel(void *user, ng_context *ctx, const ng_touch_info *t) {
    app *ap = user;
    (void)ctx;
    klog_begin("touch_cancel");
    klog_uint("touch", t->touch_id);
    klog_uint("view", t->view_id);
    klog_end();
    ng_sdl2_route_touch_cancel(&ap->a, t);
    if (ap->edge_on && ap->edge_touch == t->touch_id) ap->edge_on = false;
    if (ap->an.kind == ANIM_SWIPE && ap->an.phase == SWIPE_DRAG && ap->an.touch == t->touch_id && !ap->destroying)
        swipe_release(ap, 0, 0, true);
    ap->dirty = true;
}

/* A button's widget learns that its touch will get no end (adapter routing). */
static void button_cancel(void *widget, const ng_touch_info *t) {
    button *b = widget;
    if (b->pressed && b->touch == t->touch_id) b->pressed = false;
    b->app->dirty = true;
}

/* ------------------------------------------------------------------------ */
/* Requests and actions                                                      */
/* ------------------------------------------------------------------------ */

static ng_request_result submit(app *ap, const ng_request *rq) {
    ng_request_result r = NG_REQUEST_RESULT_INIT;
    ap->submitting_source = rq->source;   /* a question asked meanwhile is about it */
    ng_status st = ng_request_submit(ap->ctx, rq, &r);
    ap->submitting_source = 0;
    check(ap, st, "ng_request_submit");
    if (st == NG_OK && r.status == NG_OUTCOME_DEFERRED)
        waiting_add(ap, (waiting_req){ r.request_id, rq->kind, rq->from_screen, now_ms(), true });
    klog_begin("request");
    klog_uint("id", r.request_id);
    klog_str("kind", ng_request_kind_name(rq->kind));
    klog_uint("source", rq->source);
    klog_str("status", st == NG_OK ? ng_outcome_name(r.status) : ng_strstatus(st));
    klog_str("reason", ng_reason_name(r.reason));
    klog_str("guard", r.guard_id);
    klog_end();
    return r;
}

static uint64_t new_screen_id(app *ap) { return atomic_fetch_add(&ap->next_screen_id, 1); }

static void push_route(app *ap, int route, uint32_t source) {
    ng_request rq = NG_REQUEST_INIT(NG_REQ_PUSH);
    rq.flags = NG_REQF_ANIMATED;
    rq.source = source;
    rq.screen.id = new_screen_id(ap);
    rq.screen.route = route_name(route);
    rq.screen.identity = route_name(route);
    /* A cart that is not paid: NavGuard asks before any path leaves it. */
    if (route == R_CHECKOUT) rq.screen_flags = NG_SCREENF_CONFIRM_LEAVE;
    remember(ap, rq.screen.id, route);
    submit(ap, &rq);
}

static ng_request_result simple_request(app *ap, ng_request_kind kind, uint32_t source) {
    ng_request rq = NG_REQUEST_INIT(kind);
    rq.flags = NG_REQF_ANIMATED;
    rq.source = source;
    return submit(ap, &rq);
}

/* Done places the order: Checkout no longer asks before it is left (its
 * flag is cleared), and the kiosk returns to Home. If the pop-to-root is
 * refused (screens still sliding), the flag is set again. */
static void done(app *ap, const button *b) {
    uint64_t top = ap->views_top;
    check(ap, ng_screen_set_flags(ap->ctx, top, 0), "ng_screen_set_flags");
    ng_request_result r = simple_request(ap, NG_REQ_POP_TO_ROOT, (uint32_t)b->view_id);
    if (r.status == NG_OUTCOME_REFUSED)
        check(ap, ng_screen_set_flags(ap->ctx, top, NG_SCREENF_CONFIRM_LEAVE), "ng_screen_set_flags");
}

/* A click on Yes or No of the dialog. NavGuard ends the question inside the
 * call (on_question_end closes the dialog) and goes on: Yes applies the
 * request it held, No refuses it (declined). */
static void answer(app *ap, ng_answer a) {
    if (!ap->q.open) return;
    uint64_t id = ap->q.id;
    ng_status st = ng_question_answer(ap->ctx, id, a);
    klog_begin("answer");
    klog_uint("id", id);
    klog_str("answer", ng_answer_name(a));
    klog_str("status", ng_strstatus(st));
    klog_end();
    if (st != NG_E_NOT_FOUND) check(ap, st, "ng_question_answer");   /* NOT_FOUND: it had just timed out */
}

/* The network worker: waits --network-delay-ms (or until the app quits), then
 * posts the push of Item like a reply from a server would, scoped to the
 * screen the request was made from: if the user has left that screen by
 * then, NavGuard refuses the reply as stale instead of pushing Item onto
 * whatever screen is there now. */
typedef struct net_job {
    app *ap;
    uint64_t from_screen;
} net_job;

static void *network_worker(void *arg) {
    net_job *job = arg;
    app *ap = job->ap;
    uint64_t from_screen = job->from_screen;
    free(job);
    struct timespec until;
    clock_gettime(CLOCK_MONOTONIC, &until);
    until.tv_sec += ap->network_delay_ms / 1000;
    until.tv_nsec += (long)(ap->network_delay_ms % 1000) * 1000000L;
    if (until.tv_nsec >= 1000000000L) {
        until.tv_sec++;
        until.tv_nsec -= 1000000000L;
    }
    pthread_mutex_lock(&ap->net_mu);
    while (!ap->net_quit && pthread_cond_timedwait(&ap->net_cv, &ap->net_mu, &until) != ETIMEDOUT) {
    }
    bool quit = ap->net_quit;
    pthread_mutex_unlock(&ap->net_mu);
    if (!quit) {
        ng_request rq = NG_REQUEST_INIT(NG_REQ_PUSH);
        rq.flags = NG_REQF_ANIMATED;
        rq.source = SRC_NETWORK_REPLY;
        rq.screen.id = new_screen_id(ap);
        rq.screen.route = "item";
        rq.screen.identity = "item";
        rq.from_screen = from_screen;
        double posted = now_ms();
        uint64_t id = 0;
        ng_status st = ng_sdl2_post(&ap->a, &rq, &id);
        if (st != NG_OK) fprintf(stderr, "sdl-kiosk: ng_sdl2_post: %s\n", ng_strstatus(st));
        pthread_mutex_lock(&ap->net_mu);   /* handed to the main thread (waiting_judge) */
        if (st == NG_OK && ap->net_ninbox < WAITING)
            ap->net_inbox[ap->net_ninbox++] = (waiting_req){ id, NG_REQ_PUSH, from_screen, posted, false };
        pthread_mutex_unlock(&ap->net_mu);
    }
    pthread_mutex_lock(&ap->net_mu);
    ap->net_live--;
    pthread_cond_broadcast(&ap->net_cv);
    pthread_mutex_unlock(&ap->net_mu);
    return NULL;
}

static void start_network(app *ap) {
    net_job *job = malloc(sizeof *job);
    if (!job) {
        fprintf(stderr, "sdl-kiosk: out of memory for the network request\n");
        return;
    }
    job->ap = ap;
    job->from_screen = ap->views_top;   /* the screen whose Network was tapped */
    klog_begin("network");
    klog_int("delay_ms", ap->network_delay_ms);
    klog_uint("from_screen", job->from_screen);
    klog_str("from_route", route_name(route_of_id(ap, job->from_screen)));
    klog_end();
    pthread_t th;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_mutex_lock(&ap->net_mu);
    ap->net_live++;
    pthread_mutex_unlock(&ap->net_mu);
    if (pthread_create(&th, &attr, network_worker, job) != 0) {
        pthread_mutex_lock(&ap->net_mu);
        ap->net_live--;
        pthread_mutex_unlock(&ap->net_mu);
        free(job);
        fprintf(stderr, "sdl-kiosk: cannot start the network thread\n");
    } else {
        ap->net_pending++;
    }
    pthread_attr_destroy(&attr);
}

static void fire(app *ap, button *b) {
    klog_begin("action");
    klog_str("button", b->name);
    klog_str("screen", b->route >= 0 ? route_name(b->route) : route_name(ap->views_route));
    klog_end();
    switch (b->act) {
    case ACT_NEXT:
        if (b->route + 1 < R_COUNT) push_route(ap, b->route + 1, (uint32_t)b->view_id);
        break;
    case ACT_BACK: simple_request(ap, NG_REQ_BACK, (uint32_t)b->view_id); break;
    case ACT_HOME: simple_request(ap, NG_REQ_POP_TO_ROOT, (uint32_t)b->view_id); break;
    case ACT_DONE: done(ap, b); break;
    case ACT_NETWORK: start_network(ap); break;
    case ACT_ADD: ap->quantity++; break;
    case ACT_YES: answer(ap, NG_ANSWER_YES); break;
    case ACT_NO: answer(ap, NG_ANSWER_NO); break;
    }
    ap->dirty = true;
}

/* ------------------------------------------------------------------------ */
/* Swipe-back                                                                */
/* ------------------------------------------------------------------------ */

static void add_sample(app *ap, double t_ms, double x) {
    if (ap->nsamples == SAMPLES) {
        memmove(ap->samples, ap->samples + 1, sizeof ap->samples[0] * (SAMPLES - 1));
        ap->nsamples--;
    }
    ap->samples[ap->nsamples++] = (sample){ t_ms, x };
}

/* Velocity (px/s, positive to the right) over at least the last 80 ms: from
 * the newest sample at least 80 ms old (else the oldest) to the release. */
static double release_velocity(app *ap, double x, double t_ms) {
    if (ap->nsamples == 0) return 0;
    const sample *ref = &ap->samples[0];
    for (int i = ap->nsamples - 1; i >= 0; i--) {
        if (ap->samples[i].t_ms <= t_ms - 80.0) {
            ref = &ap->samples[i];
            break;
        }
    }
    double dt = t_ms - ref->t_ms;
    return dt > 1.0 ? (x - ref->x) * 1000.0 / dt : 0.0;
}

static void swipe_move(app *ap, double x, double t_ms) {
    anim *an = &ap->an;
    double off = x - an->x0;
    an->offset = off < 0 ? 0 : off > WIN_W ? WIN_W : off;
    an->p = an->offset / WIN_W;
    add_sample(ap, t_ms, x);
    check(ap, ng_interactive_update(ap->ctx, an->p), "ng_interactive_update");
    ap->dirty = true;
}

/* The finger let go (or its touch was cancelled): decide, release, settle. */
static void swipe_release(app *ap, double x, double t_ms, bool cancelled) {
    anim *an = &ap->an;
    double v = cancelled ? 0 : release_velocity(ap, x, t_ms);
    if (!cancelled) {
        double off = x - an->x0;
        an->offset = off < 0 ? 0 : off > WIN_W ? WIN_W : off;
    }
    double progress = an->offset / WIN_W;
    bool finish = !cancelled && (progress > 0.5 || v > 800.0);
    frames_log(ap);
    ng_status st = ng_interactive_release(ap->ctx, finish);
    klog_begin("swipe");
    klog_str("event", "release");
    klog_uint("request", an->request_id);
    klog_num("progress", progress);
    klog_num("velocity", v);
    klog_bool("finish", finish);
    klog_bool("touch_cancelled", cancelled);
    klog_str("status", ng_strstatus(st));
    klog_end();
    if (st == NG_E_NOT_FOUND) {   /* it already ended (watchdog) */
        anim_end(ap);
        return;
    }
    settle_start(ap, finish, v);
}

static void swipe_begin(app *ap, double x, double t_ms) {
    ng_request rq = NG_REQUEST_INIT(NG_REQ_INTERACTIVE_BACK);
    rq.flags = NG_REQF_ANIMATED | NG_REQF_TOUCH_DRIVEN;
    rq.source = SRC_SWIPE;
    rq.driving_touch = ap->edge_touch;
    ap->swipe_submitting = true;
    ng_request_result r = submit(ap, &rq);
    ap->swipe_submitting = false;
    ap->edge_on = false;
    klog_begin("swipe");
    klog_str("event", "begin");
    klog_uint("request", r.request_id);
    klog_str("status", ng_outcome_name(r.status));
    klog_uint("touch", ap->edge_touch);
    klog_end();
    if (r.status == NG_OUTCOME_APPLIED && ap->an.kind == ANIM_SWIPE && ap->an.phase == SWIPE_DRAG)
        swipe_move(ap, x, t_ms);
}

/* ------------------------------------------------------------------------ */
/* Input                                                                     */
/* ------------------------------------------------------------------------ */

static void handle_touch(app *ap, const ng_event *e, const ng_event_result *r) {
    double t_ms = (double)e->timestamp_ns / 1e6;
    anim *an = &ap->an;
    bool driving = an->kind == ANIM_SWIPE && an->phase == SWIPE_DRAG && an->touch == e->touch_id;
    switch (e->phase) {
    case NG_TOUCH_BEGAN: {
        button *b = active_button(ap, r->target_view);
        if (b && !b->pressed) {
            b->pressed = true;
            b->inside = true;
            b->touch = e->touch_id;
            ap->dirty = true;
        } else if (!b && !ap->q.open && e->x < EDGE_W && e->y > BAR_H && ap->an.kind == ANIM_NONE) {
            bool busy = true;
            check(ap, ng_transition_in_flight(ap->ctx, NG_TRACK_SCREEN, &busy, NULL), "ng_transition_in_flight");
            if (!busy && stack_count(ap) > 1) {
                ap->edge_on = true;
                ap->edge_touch = e->touch_id;
                ap->edge_x0 = e->x;
                ap->nsamples = 0;
                add_sample(ap, t_ms, e->x);
            }
        }
        break;
    }
    case NG_TOUCH_MOVED:
        if (driving) {
            swipe_move(ap, e->x, t_ms);
        } else if (ap->edge_on && ap->edge_touch == e->touch_id) {
            add_sample(ap, t_ms, e->x);
            if (e->x - ap->edge_x0 > EDGE_SLOP) swipe_begin(ap, e->x, t_ms);
        } else {
            for (int i = 0; i < ap->nbuttons; i++) {
                button *b = &ap->buttons[i];
                if (!b->pressed || b->touch != e->touch_id) continue;
                uint64_t hit = 0;
                check(ap, ng_hit_test(ap->ctx, e->x, e->y, &hit), "ng_hit_test");
                if (b->inside != (hit == b->view_id)) ap->dirty = true;
                b->inside = hit == b->view_id;
            }
        }
        break;
    case NG_TOUCH_ENDED:
    case NG_TOUCH_CANCELLED:
        if (driving) swipe_release(ap, e->x, t_ms, e->phase == NG_TOUCH_CANCELLED);
        if (ap->edge_on && ap->edge_touch == e->touch_id) ap->edge_on = false;
        for (int i = 0; i < ap->nbuttons; i++) {
            button *b = &ap->buttons[i];
            if (!b->pressed || b->touch != e->touch_id) continue;
            b->pressed = false;
            ap->dirty = true;
            if (e->phase != NG_TOUCH_ENDED) continue;
            uint64_t hit = 0;
            check(ap, ng_hit_test(ap->ctx, e->x, e->y, &hit), "ng_hit_test");
            if (hit == b->view_id && active_button(ap, b->view_id)) fire(ap, b);
        }
        break;
    default: break;
    }
}

/* F12 and SIGUSR1 write --screenshot, or ./sdl-kiosk.bmp without it. */
static void request_screenshot(app *ap) {
    ap->screenshot_pending = true;
    ap->dirty = true;
}

/* One NavGuard event the adapter made from `ev`, with its verdict. */
static void handle_input(app *ap, const SDL_Event *ev, const ng_sdl2_input *in) {
    const ng_event *e = &in->event;
    const ng_event_result *r = &in->result;
    bool drop = r->verdict == NG_VERDICT_DROP;
    if (e->type == NG_EVENT_TOUCH || e->type == NG_EVENT_KEY) {
        klog_begin("verdict");
        klog_str("event", event_type_name(e->type));
        if (e->type == NG_EVENT_TOUCH) {
            klog_str("phase", phase_name(e->phase));
            klog_uint("touch", e->touch_id);
            klog_num("x", e->x);
            klog_num("y", e->y);
        } else {
            klog_int("phase", e->phase);
            klog_int("code", e->code);
        }
        klog_str("verdict", drop ? "drop" : "deliver");
        klog_str("reason", ng_reason_name(r->reason));
        klog_str("guard", r->guard_id);
        klog_uint("view", r->target_view);
        klog_end();
    }
    if (drop) {
        if (e->type == NG_EVENT_TOUCH)
            add_verdict(ap, "touch %s dropped %s  %s", phase_name(e->phase), ng_reason_name(r->reason),
                        guard_or_core(r->guard_id));
        else
            add_verdict(ap, "%s dropped %s  %s", event_type_name(e->type), ng_reason_name(r->reason),
                        guard_or_core(r->guard_id));
    } else if (e->type == NG_EVENT_TOUCH) {
        handle_touch(ap, e, r);
    }
    /* The hardware back key acts only when NavGuard delivers it. */
    if (e->type == NG_EVENT_KEY && !drop && ev->type == SDL_KEYDOWN && !ev->key.repeat &&
        (ev->key.keysym.sym == SDLK_BACKSPACE || ev->key.keysym.sym == SDLK_AC_BACK))
        simple_request(ap, NG_REQ_BACK, SRC_BACK_KEY);
}

static void handle_event(app *ap, const SDL_Event *ev) {
    /* An event that ends touches (focus loss) gives one cancel per call
     * (in.more), each handled as a touch like any other. */
    ng_sdl2_input in;
    do {
        ng_status st = ng_sdl2_submit(&ap->a, ev, &in);
        check(ap, st, "ng_sdl2_submit");
        if (st == NG_OK && in.mapped) handle_input(ap, ev, &in);
    } while (in.more);
    /* Developer keys work whatever NavGuard says: they are not kiosk UI. */
    switch (ev->type) {
    case SDL_QUIT: ap->quit = true; break;
    case SDL_KEYDOWN:
        if (ev->key.repeat) break;
        if (ev->key.keysym.sym == SDLK_ESCAPE) ap->quit = true;
        else if (ev->key.keysym.sym == SDLK_F1) {
            ap->overlay = !ap->overlay;
            dialog_layout(ap);   /* the dialog steps aside for the panel */
            ap->dirty = true;
        } else if (ev->key.keysym.sym == SDLK_F12) request_screenshot(ap);
        break;
    case SDL_WINDOWEVENT:
        if (ev->window.event == SDL_WINDOWEVENT_SHOWN || ev->window.event == SDL_WINDOWEVENT_EXPOSED) ap->shown = true;
        if (ev->window.event == SDL_WINDOWEVENT_CLOSE) ap->quit = true;
        ap->dirty = true;
        break;
    default:
        if (ev->type == ap->ev_screenshot) request_screenshot(ap);
        break;
    }
}

/* ------------------------------------------------------------------------ */
/* Signals: SIGUSR1 (screenshot), SIGTERM/SIGINT (quit)                       */
/* ------------------------------------------------------------------------ */

static pthread_mutex_t g_sig_mu = PTHREAD_MUTEX_INITIALIZER;
static bool g_sig_exiting;

static void signal_set(sigset_t *set) {
    sigemptyset(set);
    sigaddset(set, SIGUSR1);
    sigaddset(set, SIGTERM);
    sigaddset(set, SIGINT);
}

/* Blocked in every thread, the signals are taken here with sigwait and turned
 * into SDL events (SDL_PushEvent is thread-safe and wakes the loop). */
static void *signal_thread(void *arg) {
    app *ap = arg;
    sigset_t set;
    signal_set(&set);
    for (;;) {
        int sig = 0;
        if (sigwait(&set, &sig) != 0) continue;
        pthread_mutex_lock(&g_sig_mu);
        bool exiting = g_sig_exiting;
        if (!exiting) {
            SDL_Event e;
            memset(&e, 0, sizeof e);
            e.type = sig == SIGUSR1 ? ap->ev_screenshot : SDL_QUIT;
            SDL_PushEvent(&e);
        }
        pthread_mutex_unlock(&g_sig_mu);
        if (exiting) return NULL;
    }
}

/* ------------------------------------------------------------------------ */
/* Setup                                                                     */
/* ------------------------------------------------------------------------ */

static void usage(FILE *f, const char *argv0) {
    fprintf(f,
            "usage: %s [--unguarded] [--stack home,menu,...] [--anim-ms N] [--network-delay-ms N]\n"
            "          [--idle-ms N] [--log FILE] [--screenshot FILE.bmp] [--font FILE.ttf] [--software]\n"
            "          [--overlay] [--record FILE | --dump-dir DIR] [--journal] [--metrics FILE]\n"
            "  --idle-ms N    after N ms with no input, return to Home (0: never, the default)\n"
            "  --record FILE  the session's flight-recorder trace, for navguard replay\n"
            "  --dump-dir DIR a flight-recorder ring, dumped to DIR by a report or a crash\n"
            "  --journal      reports, watchdog actions and refusals to the systemd journal\n"
            "                 (its socket: $NAVGUARD_JOURNAL_SOCKET, else /run/systemd/journal/socket)\n"
            "  --metrics FILE a Prometheus textfile (node_exporter), kept current\n"
            "keys: F1 overlay, F12 screenshot, Backspace hardware back, Escape quit\n",
            argv0);
}

static bool parse_int(const char *s, int lo, int hi, int *out) {
    char *end = NULL;
    long v = strtol(s, &end, 10);
    if (!s[0] || *end || v < lo || v > hi) return false;
    *out = (int)v;
    return true;
}

static void journal_unavailable(void *user, int err, const char *message) {
    (void)user;
    (void)err;
    fprintf(stderr, "sdl-kiosk: %s\n", message);
}

/* NAVGUARD_JOURNAL_SOCKET: another journal socket (a test's); NULL: the
 * system journal's. */
static const char *journal_socket(void) {
    const char *p = getenv("NAVGUARD_JOURNAL_SOCKET");
    return p && p[0] ? p : NULL;
}

/* --journal and --metrics: the sink and the counters wrap the delegate (the
 * kiosk's own callbacks still run first). */
static bool fleet_wrap(app *ap, ng_delegate *d) {
    if (ap->journal) {
        ngj_options jo = NGJ_OPTIONS_INIT;
        jo.flags = NGJ_REFUSALS;
        jo.identifier = "sdl-kiosk";
        jo.socket_path = journal_socket();
        jo.on_unavailable = journal_unavailable;
        if (!(ap->journal_sink = ngj_create(&jo))) {
            fprintf(stderr, "sdl-kiosk: --journal: %s\n", strerror(errno));
            return false;
        }
        ngj_wrap(ap->journal_sink, d);
    }
    if (ap->metrics_path) {
        if (!(ap->metrics = ngm_create(ap->metrics_path, 0))) {
            fprintf(stderr, "sdl-kiosk: --metrics: out of memory\n");
            return false;
        }
        ngm_wrap(ap->metrics, d);
        int err = ngm_write(ap->metrics);
        if (err) {
            fprintf(stderr, "sdl-kiosk: --metrics %s: %s\n", ap->metrics_path, strerror(err));
            return false;
        }
    }
    return true;
}

static int parse_args(app *ap, int argc, char **argv) {
    for (int i = 1; i < argc; i++) {
        const char *o = argv[i];
        const char *val = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(o, "--unguarded") == 0) ap->unguarded = true;
        else if (strcmp(o, "--software") == 0) ap->software = true;
        else if (strcmp(o, "--overlay") == 0) ap->overlay_at_start = true;
        else if (strcmp(o, "--journal") == 0) ap->journal = true;
        else if (val && strcmp(o, "--metrics") == 0) ap->metrics_path = argv[++i];
        else if (strcmp(o, "--help") == 0 || strcmp(o, "-h") == 0) {
            usage(stdout, argv[0]);
            exit(0);
        } else if (val && strcmp(o, "--log") == 0) ap->log_path = argv[++i];
        else if (val && strcmp(o, "--screenshot") == 0) ap->screenshot_path = argv[++i];
        else if (val && strcmp(o, "--font") == 0) ap->font_path = argv[++i];
        else if (val && strcmp(o, "--stack") == 0) ap->stack_arg = argv[++i];
        else if (val && strcmp(o, "--record") == 0) ap->record_path = argv[++i];
        else if (val && strcmp(o, "--dump-dir") == 0) ap->dump_dir = argv[++i];
        else if (val && strcmp(o, "--anim-ms") == 0) {
            if (!parse_int(argv[++i], 0, 60000, &ap->anim_ms)) return -1;
        } else if (val && strcmp(o, "--network-delay-ms") == 0) {
            if (!parse_int(argv[++i], 0, 3600000, &ap->network_delay_ms)) return -1;
        } else if (val && strcmp(o, "--idle-ms") == 0) {
            if (!parse_int(argv[++i], 0, 86400000, &ap->idle_ms)) return -1;
        } else return -1;
    }
    return ap->record_path && ap->dump_dir ? -1 : 0;   /* one recorder per context */
}

/* The initial stack: the root, then (for --stack with more screens) a
 * replace-stack without animation. */
static bool setup_stack(app *ap) {
    int routes[64];
    size_t n = 0;
    const char *s = ap->stack_arg ? ap->stack_arg : "home";
    while (*s && n < 64) {
        const char *comma = strchr(s, ',');
        size_t len = comma ? (size_t)(comma - s) : strlen(s);
        int r = route_parse(s, len);
        if (r < 0) {
            fprintf(stderr, "sdl-kiosk: --stack: unknown route '%.*s' (home, menu, item, checkout)\n", (int)len, s);
            return false;
        }
        routes[n++] = r;
        s += len + (comma ? 1 : 0);
    }
    if (n == 0) return false;
    ng_screen screens[64];
    for (size_t i = 0; i < n; i++) {
        screens[i] = (ng_screen){ new_screen_id(ap), route_name(routes[i]), route_name(routes[i]) };
        remember(ap, screens[i].id, routes[i]);
    }
    ng_status st = ng_stack_set_root(ap->ctx, &screens[0]);
    check(ap, st, "ng_stack_set_root");
    if (st != NG_OK) return false;
    ap->shown_route = routes[0];
    ap->shown_depth = 1;
    if (n > 1) {
        ng_request rq = NG_REQUEST_INIT(NG_REQ_REPLACE_STACK);
        rq.source = SRC_SETUP;
        rq.screens = screens;
        rq.screen_count = n;
        ng_request_result r = submit(ap, &rq);
        if (r.status != NG_OUTCOME_APPLIED) {
            fprintf(stderr, "sdl-kiosk: --stack: the replace-stack was %s\n", ng_outcome_name(r.status));
            return false;
        }
    }
    /* A replace-stack's screens carry no flags: Checkout gets its own now. */
    for (size_t i = 0; i < n; i++)
        if (routes[i] == R_CHECKOUT)
            check(ap, ng_screen_set_flags(ap->ctx, screens[i].id, NG_SCREENF_CONFIRM_LEAVE), "ng_screen_set_flags");
    size_t count = 0;
    ap->shown_route = route_of_id(ap, stack_top(ap, &count));
    ap->shown_depth = (int)count;
    sync_views(ap);
    if (n == 1) log_stack(ap);   /* a replace-stack logged it at its did */
    return true;
}

int main(int argc, char **argv) {
    static app A;
    app *ap = &A;
    ap->anim_ms = 300;
    ap->network_delay_ms = 2000;
    ap->views_route = -1;
    atomic_init(&ap->next_screen_id, 1);
    if (parse_args(ap, argc, argv) != 0) {
        usage(stderr, argv[0]);
        return 2;
    }
    klog_clock_start();
    if (!klog_open(ap->log_path)) {
        fprintf(stderr, "sdl-kiosk: cannot write the log '%s'\n", ap->log_path);
        return 1;
    }

    /* Before any thread exists (SDL's included), so every thread inherits
     * the mask and only signal_thread receives them. */
    sigset_t sigs;
    signal_set(&sigs);
    pthread_sigmask(SIG_BLOCK, &sigs, NULL);

    SDL_SetHint(SDL_HINT_NO_SIGNAL_HANDLERS, "1");
    if (SDL_Init(SDL_INIT_VIDEO) != 0) {
        fprintf(stderr, "sdl-kiosk: SDL_Init: %s\n", SDL_GetError());
        return 1;
    }
    if (TTF_Init() != 0) {
        fprintf(stderr, "sdl-kiosk: TTF_Init: %s\n", TTF_GetError());
        return 1;
    }
    ap->win = SDL_CreateWindow("NavGuard SDL kiosk", 0, 0, WIN_W, WIN_H, SDL_WINDOW_SHOWN);
    if (!ap->win) {
        fprintf(stderr, "sdl-kiosk: SDL_CreateWindow: %s\n", SDL_GetError());
        return 1;
    }
    if (!ap->software) ap->ren = SDL_CreateRenderer(ap->win, -1, SDL_RENDERER_ACCELERATED);
    if (!ap->ren) ap->ren = SDL_CreateRenderer(ap->win, -1, SDL_RENDERER_SOFTWARE);
    if (!ap->ren) {
        fprintf(stderr, "sdl-kiosk: SDL_CreateRenderer: %s\n", SDL_GetError());
        return 1;
    }
    SDL_RendererInfo rinfo;
    SDL_GetRendererInfo(ap->ren, &rinfo);
    if (!ui_init(ap)) return 1;
    ap->ev_screenshot = SDL_RegisterEvents(1);

    ng_options opts = NG_OPTIONS_INIT;
    opts.delegate.user = ap;
    opts.delegate.on_outcome = on_outcome;
    opts.delegate.on_transition = on_transition;
    opts.delegate.on_hold_end = on_hold_end;
    opts.delegate.on_report = on_report;
    opts.delegate.on_log = on_log;
    opts.delegate.on_touch_cancel = on_touch_cancel;
    opts.delegate.on_question = on_question;
    opts.delegate.on_question_end = on_question_end;
    if (!fleet_wrap(ap, &opts.delegate)) return 1;
    ng_status st = ng_context_create(&opts, &ap->ctx);
    if (st != NG_OK) {
        fprintf(stderr, "sdl-kiosk: ng_context_create: %s\n", ng_strstatus(st));
        return 1;
    }
    /* Before any other call on the context: only a trace recorded from the
     * creation replays exactly. */
    if (ap->record_path || ap->dump_dir) {
        ng_record_options ro = NG_RECORD_OPTIONS_INIT;
        ro.path = ap->record_path;
        if (ap->dump_dir) {
            ro.ring_records = 100000;
            ro.dump_dir = ap->dump_dir;
            ro.crash = NG_RECORD_CRASH_DUMP;
        }
        st = ng_record_start(ap->ctx, &ro);
        if (st != NG_OK) {
            fprintf(stderr, "sdl-kiosk: %s: %s (%s)\n", ap->record_path ? "--record" : "--dump-dir", ng_strstatus(st),
                    ng_errmsg(ap->ctx));
            return 1;
        }
    }
    /* The crash dumps an earlier run left, announced once. */
    if (ap->dump_dir && ap->journal_sink) {
        int n = ngj_announce_crash_dumps(ap->journal_sink, ap->dump_dir);
        if (n < 0) fprintf(stderr, "sdl-kiosk: --dump-dir %s: %s\n", ap->dump_dir, strerror(errno));
        else if (ap->metrics) ngm_add_crash_dumps(ap->metrics, (uint64_t)n);
    }
    if (!ap->unguarded) {
        /* --idle-ms: the default chain and the idle return (README, "kiosk"). */
        char chain[256];
        snprintf(chain, sizeof chain,
                 "{\"base\":\"default\",\"edits\":[{\"insert\":{\"id\":\"org.navguard.idle-return\","
                 "\"config\":{\"after_ms\":%d,\"source\":%u}}}]}", ap->idle_ms, SRC_IDLE);
        st = ng_chain_configure(ap->ctx, ap->idle_ms > 0 ? chain : NULL);
        if (st != NG_OK) {
            fprintf(stderr, "sdl-kiosk: ng_chain_configure: %s\n  %s\n  plugin dir: %s\n", ng_strstatus(st),
                    ng_errmsg(ap->ctx), ng_plugin_dir());
            return 1;
        }
    }
    check(ap, ng_chain_count(ap->ctx, &ap->guard_count), "ng_chain_count");
    st = ng_sdl2_init(&ap->a, ap->ctx, ap->win);
    if (st != NG_OK) {
        fprintf(stderr, "sdl-kiosk: ng_sdl2_init: %s (%s)\n", ng_strstatus(st), SDL_GetError());
        return 1;
    }
    /* Escape is the developer's quit key here, and the kiosk sends its own
     * Back for Backspace and AC Back (handle_input: only when the key is
     * delivered, with the kiosk's source): the adapter's Back action keeps
     * only the controller's B. */
    memset(ap->a.back_keys, 0, sizeof ap->a.back_keys);

    for (size_t i = 0; i < sizeof BUTTONS / sizeof BUTTONS[0] && i < MAX_BUTTONS; i++) {
        button *b = &ap->buttons[ap->nbuttons++];
        b->view_id = BUTTONS[i].view;
        b->name = BUTTONS[i].name;
        b->label = BUTTONS[i].label;
        b->route = BUTTONS[i].route;
        b->rect = BUTTONS[i].rect;
        b->shape = BUTTONS[i].shape;
        b->act = BUTTONS[i].act;
        b->app = ap;
        check(ap, ng_sdl2_bind_view(&ap->a, b->view_id, button_cancel, b), "ng_sdl2_bind_view");
    }

    pthread_mutex_init(&ap->net_mu, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&ap->net_cv, &ca);
    pthread_condattr_destroy(&ca);
    pthread_t sig_th;
    if (pthread_create(&sig_th, NULL, signal_thread, ap) != 0) {
        fprintf(stderr, "sdl-kiosk: cannot start the signal thread\n");
        return 1;
    }

    if (!setup_stack(ap)) return 1;
    ap->overlay = ap->overlay_at_start;
    fprintf(stderr, "sdl-kiosk: NavGuard %s, renderer %s, %s (%zu guard%s)\n", ng_version_string(), rinfo.name,
            ap->unguarded ? "UNGUARDED: empty chain" : "default chain", ap->guard_count,
            ap->guard_count == 1 ? "" : "s");
    klog_begin("start");
    klog_str("navguard", ng_version_string());
    klog_str("renderer", rinfo.name);
    klog_bool("guarded", !ap->unguarded);
    klog_uint("guards", ap->guard_count);
    klog_int("anim_ms", ap->anim_ms);
    klog_int("network_delay_ms", ap->network_delay_ms);
    klog_int("idle_ms", ap->idle_ms);
    klog_end();
    dialog_layout(ap);

    /* The loop: asleep in ng_sdl2_wait_event when nothing moves; while an
     * animation runs, woken for each frame of a fixed 60 Hz schedule. */
    const double frame_ms = 1000.0 / 60.0;
    double next_frame = now_ms();
    double start = now_ms();
    ap->dirty = true;
    while (!ap->quit) {
        double now = now_ms();
        int timeout = -1;
        if (animating(ap)) {
            double wait = next_frame - now;
            timeout = wait <= 0 ? 0 : (int)ceil(wait);
        } else if (ap->dirty) {
            timeout = 0;
        } else if (!ap->ready) {
            timeout = 20;
        }
        SDL_Event ev;
        if (ng_sdl2_wait_event(&ap->a, &ev, timeout) == 1) {
            handle_event(ap, &ev);
            for (int i = 0; i < 256 && !ap->quit && ng_sdl2_wait_event(&ap->a, &ev, 0) == 1; i++)
                handle_event(ap, &ev);
        }
        if (ap->quit) break;
        waiting_judge(ap);
        if (ap->metrics) ngm_poll(ap->metrics);
        bool was_animating = animating(ap);
        step_anim(ap, now_ms());
        now = now_ms();
        if (!was_animating && animating(ap)) next_frame = now;   /* a new animation: draw at once */
        bool due = animating(ap) ? now >= next_frame - 0.5 : ap->dirty;
        if (!ap->ready && !ap->shown && now - start > 2000) ap->shown = true;   /* no SHOWN event: go anyway */
        if (!(due || ap->screenshot_pending || (!ap->ready && ap->shown))) continue;
        ui_draw(ap);
        if (ap->screenshot_pending) {
            ap->screenshot_pending = false;
            const char *path = ap->screenshot_path ? ap->screenshot_path : "sdl-kiosk.bmp";
            if (ui_screenshot(ap, path)) fprintf(stderr, "sdl-kiosk: screenshot %s\n", path);
        }
        SDL_RenderPresent(ap->ren);
        ap->dirty = false;
        ap->last_present_ms = now;
        if (ap->an.kind != ANIM_NONE) ap->an.frames++;   /* drag frames follow the input */
        next_frame += frame_ms;
        if (next_frame < now) next_frame = now + frame_ms;   /* fell behind: do not catch up in a burst */
        if (!ap->ready && ap->shown) {
            ap->ready = true;
            klog_begin("ready");
            klog_end();
        }
    }

    /* Quit: the last frame's screenshot, then stop the workers before the
     * context goes (they may post to it until then). */
    if (ap->screenshot_path) {
        ui_draw(ap);
        ui_screenshot(ap, ap->screenshot_path);
    }
    pthread_mutex_lock(&ap->net_mu);
    ap->net_quit = true;
    pthread_cond_broadcast(&ap->net_cv);
    while (ap->net_live > 0) pthread_cond_wait(&ap->net_cv, &ap->net_mu);
    pthread_mutex_unlock(&ap->net_mu);
    klog_begin("quit");
    klog_end();
    ap->destroying = true;
    check(ap, ng_context_destroy(ap->ctx), "ng_context_destroy");
    ap->ctx = NULL;
    if (ap->metrics) ngm_write(ap->metrics);
    ngm_destroy(ap->metrics);
    ngj_destroy(ap->journal_sink);

    pthread_mutex_lock(&g_sig_mu);
    g_sig_exiting = true;
    pthread_mutex_unlock(&g_sig_mu);
    pthread_kill(sig_th, SIGUSR1);
    pthread_join(sig_th, NULL);

    ui_shutdown(ap);
    SDL_DestroyRenderer(ap->ren);
    SDL_DestroyWindow(ap->win);
    TTF_Quit();
    SDL_Quit();
    klog_close();
    return 0;
}
