/* SPDX-License-Identifier: Apache-2.0 */
/* kiosk.h — state shared by the SDL kiosk's main loop (kiosk.c) and its
 * drawing (ui.c). */
#ifndef SDL_KIOSK_H
#define SDL_KIOSK_H

#include <navguard/navguard.h>
#include "navguard_sdl2.h"
#include "navguard_journald.h"
#include "navguard_metrics.h"

#include <SDL.h>
#include <SDL_ttf.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#define WIN_W 800
#define WIN_H 600
#define BAR_H 60
#define BAND_Y0 60
#define BAND_Y1 200
#define EDGE_W 24          /* a swipe-back starts within this many px of the left edge */
#define EDGE_SLOP 10.0     /* px the finger moves right before the swipe begins */

/* The flow, in order. */
enum { R_HOME, R_MENU, R_ITEM, R_CHECKOUT, R_COUNT };

typedef enum { ACT_NEXT, ACT_BACK, ACT_NETWORK, ACT_HOME, ACT_ADD, ACT_DONE, ACT_YES, ACT_NO } kiosk_action;
typedef enum { SHAPE_RECT, SHAPE_SMALL_ENLARGED, SHAPE_ROUND } button_shape;

/* Request sources (ng_request.source): each button uses its view id; these
 * are the others. The throttle guard keys on them. */
#define SRC_SETUP          1u
#define SRC_SWIPE          900u
#define SRC_NETWORK_REPLY  901u
#define SRC_BACK_KEY       902u
#define SRC_IDLE           903u   /* the idle timer's pop-to-root (--idle-ms) */

/* Stable view ids: the bar's Back, and 100 * (route + 1) + n per screen;
 * while a question is open, the dialog: a scrim over the whole window (so a
 * touch outside the dialog hits it, not the buttons behind) and its two
 * buttons in front of it. */
#define VIEW_BACK 10u
#define VIEW_SCRIM 20u
#define VIEW_YES 21u
#define VIEW_NO 22u
#define ROUTE_DIALOG (-2)   /* button.route of the dialog's buttons */

typedef struct button {
    uint64_t view_id;
    const char *name;          /* logged in "action" lines */
    const char *label;
    int route;                 /* the screen it belongs to; -1: the bar;
                                  ROUTE_DIALOG: the question's dialog */
    SDL_Rect rect;             /* the visual frame (window coordinates, page at rest) */
    button_shape shape;
    kiosk_action act;
    /* press state: the touch NavGuard delivered a BEGAN of on this view */
    bool pressed;
    bool inside;               /* the pressing touch is still inside the hit area */
    uint64_t touch;
    struct app *app;
} button;

#define MAX_BUTTONS 16

/* Hit area insets of the small enlarged button (negative: grow). */
#define ENLARGE_X 30.0
#define ENLARGE_Y 20.0

typedef enum { ANIM_NONE, ANIM_PUSH, ANIM_POP, ANIM_SWIPE } anim_kind;
typedef enum { SWIPE_DRAG, SWIPE_SETTLE } swipe_phase;

/* The screen animation on display. */
typedef struct anim {
    anim_kind kind;
    uint64_t request_id;
    int from_route, to_route;
    int from_depth, to_depth;  /* stack depth with that screen on top */
    double start_ms, dur_ms;
    double p;                  /* 0: `from` fully shown, 1: `to` fully shown */
    /* ANIM_SWIPE */
    swipe_phase phase;
    uint64_t touch;            /* the driving touch */
    double x0;                 /* the finger's x at the edge */
    double offset;             /* the top screen's x offset */
    bool finish;               /* released to finish (else to cancel) */
    double settle_from, settle_to, settle_start, settle_dur;
    /* frame counting */
    int frames;
    double frames_start;
    const char *frames_what;
} anim;

typedef struct sample { double t_ms; double x; } sample;
#define SAMPLES 32

typedef struct verdict_line {
    char text[128];
    int repeat;
    double t_ms;
    bool applied;              /* a request applied after waiting: not drawn as a refusal */
} verdict_line;
#define VERDICTS 10

typedef struct screen_rec { uint64_t id; int route; } screen_rec;

/* A request whose outcome has not come although NavGuard has judged it once
 * (the overlay's WAITING): a submit answered DEFERRED, or a post still
 * undecided after the tick that evaluated it (a reply scoped to a screen a
 * swipe is moving waits for the swipe to settle). */
typedef struct waiting_req {
    uint64_t id;
    ng_request_kind kind;
    uint64_t screen;           /* its from_screen, or 0 */
    double since_ms;           /* submitted or posted */
    bool judged;               /* false: posted, not yet seen by a tick */
} waiting_req;
#define WAITING 16

/* The question NavGuard asked (on_question) while it is open: the dialog. */
typedef struct dialog {
    bool open;
    uint64_t id;               /* ng_question.question_id */
    uint64_t request_id;
    ng_request_kind kind;
    int route;                 /* the screen it asks about (-1: unknown) */
    uint32_t source;           /* what the kiosk was submitting when asked (0: not known) */
    char text[128], guard[96];
    int64_t timeout_ms;        /* deadline - asked, or -1: none */
    double asked_ms, deadline_ms;   /* in now_ms() time (deadline_ms -1: none) */
    SDL_Rect card;             /* window coordinates (dialog_layout) */
} dialog;
#define SCREEN_RECS 256

enum { FONT_REGULAR, FONT_BOLD, FONT_TITLE, FONT_BIG, FONT_SMALL, FONT_SMALL_BOLD, FONT_MONO, FONT_MONO_BOLD, FONT_BADGE,
       FONT_COUNT };

typedef struct text_cache text_cache;

typedef struct app {
    /* options */
    const char *log_path, *screenshot_path, *font_path, *stack_arg, *record_path;
    int network_delay_ms, anim_ms;
    int idle_ms;               /* --idle-ms: pop to root after this long with no input (0: off) */
    bool unguarded, software, overlay_at_start;
    bool journal;              /* --journal: reports to the systemd journal */
    const char *metrics_path;  /* --metrics FILE: a textfile for node_exporter */
    const char *dump_dir;      /* --dump-dir DIR: a ring, its report and crash dumps there */
    ngj_sink *journal_sink;
    ngm_metrics *metrics;

    ng_context *ctx;
    ng_sdl2 a;
    SDL_Window *win;
    SDL_Renderer *ren;
    TTF_Font *font[FONT_COUNT];
    text_cache *texts;
    size_t guard_count;
    Uint32 ev_screenshot;      /* SDL user event: SIGUSR1 */

    bool quit, dirty, overlay, shown, ready;
    bool destroying;           /* inside ng_context_destroy: its callbacks get NG_E_HANDLE */
    bool screenshot_pending;
    double last_present_ms;

    /* what is on display */
    anim an;
    int shown_route, shown_depth;
    uint64_t views_top;        /* the screen whose buttons are registered as views */
    int views_route;
    bool back_view_on;
    button buttons[MAX_BUTTONS];
    int nbuttons;

    /* swipe-back */
    bool edge_on;              /* a delivered touch began at the edge */
    uint64_t edge_touch;
    double edge_x0;
    bool swipe_submitting;     /* inside ng_request_submit of an interactive back */
    uint32_t submitting_source; /* the source of the request being submitted (0: none) */
    sample samples[SAMPLES];
    int nsamples;

    /* screen ids -> routes (ids come from next_screen_id, also used by the worker) */
    screen_rec recs[SCREEN_RECS];
    size_t nrecs;
    atomic_uint_fast64_t next_screen_id;

    /* network workers */
    pthread_mutex_t net_mu;
    pthread_cond_t net_cv;
    bool net_quit;
    int net_live;              /* workers not yet finished (under net_mu) */
    int net_pending;           /* replies whose outcome has not arrived (main thread) */
    waiting_req net_inbox[WAITING];   /* posted by the workers, not yet taken (under net_mu) */
    int net_ninbox;
    uint64_t decided[WAITING]; /* posted ids whose outcome came before they were taken */
    int ndecided;

    /* requests that waited (the overlay's WAITING, the log's waited_ms) */
    waiting_req waiting[WAITING];
    int nwaiting;

    int quantity;

    /* the question's dialog */
    dialog q;

    /* overlay */
    verdict_line verdicts[VERDICTS];
    int nverdicts;             /* newest at verdicts[0] */
    char report[1024];
    char report_guard[96];
    double report_t_ms;
    double last_fps;           /* of the last animation (overlay) */
    const char *last_fps_what;
} app;

/* kiosk.c */
const char *route_name(int route);
const char *route_title(int route);
int route_of_id(app *ap, uint64_t id);
button *button_for_view(app *ap, uint64_t view_id);
void dialog_layout(app *ap);
double now_ms(void);
const char *request_label(uint64_t id);

/* ui.c */
bool ui_init(app *ap);
void ui_shutdown(app *ap);
void ui_draw(app *ap);
bool ui_screenshot(app *ap, const char *path);

#endif
