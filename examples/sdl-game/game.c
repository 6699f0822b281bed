/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sdl-game — a game front-end on NavGuard: a title screen, a main menu
 * (Continue / New game / Options / Quit), Options (Video / Audio / Controls,
 * Apply) with a "Discard changes?" question when leaving unsaved changes
 * (org.navguard.confirm-leave), a running scene and a pause menu that Start
 * opens and that belongs to the controller that paused
 * (org.navguard.device-owner, the keyboard shared). Keyboard or game
 * controllers; built against navguard.h and the SDL2 adapter only.
 *
 * Input (the SDL2 adapter gives presses their life in NavGuard):
 *   D-pad / arrows move the focus (a D-pad held repeats: the game's own
 *   repeat, submitted as NG_KEY_REPEAT so NavGuard drops the repeats of a
 *   press a transition cancelled); A / Enter / Space activate on release;
 *   on the title any A, Start or Enter goes on, on press; Start (or P)
 *   pauses and resumes; B / Escape / Backspace are the adapter's Back
 *   action (a guarded Back carrying the controller's device); Ctrl+Q quits,
 *   F12 writes the screenshot.
 *
 * The host owns focus and tells NavGuard as it moves (ng_screen_set_focus,
 * token = item index + 1); a screen that becomes the top again gets it back
 * in its transition's focus_token: no table of its own.
 *
 * Options: --unguarded (empty chain), --record FILE (trace), --log FILE
 * (JSON lines), --screenshot FILE (BMP at exit), --anim-ms N (slides),
 * --confirm-timeout-ms N (how long the discard question waits), and for
 * tests only: --pads N (attach N virtual controllers) and --control FIFO
 * (lines "pad N down|up BUTTON", "pad N unplug", "attach", "shot FILE",
 * "quit", applied on the UI thread).
 */
#include "navguard_sdl2.h"
#include "log.h"

#include <SDL_ttf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define W 800
#define H 600
#define FONT "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
#define SRC_MENU 1u
#define MAX_IDS 1024
#define MAX_PADS 4
#define MAX_HELD 8

enum route { R_TITLE, R_MAIN, R_OPTIONS, R_VIDEO, R_AUDIO, R_CONTROLS, R_GAME, R_PAUSE, R_COUNT };
static const char *const ROUTES[R_COUNT] = { "title", "main", "options", "video", "audio", "controls", "game", "pause" };
static const char *const TITLES[R_COUNT] = { "NAVGUARD QUEST", "Main menu", "Options", "Video", "Audio", "Controls",
                                             "", "Paused" };
static const char *const ITEMS[R_COUNT][4] = {
    { "Press A or Enter" }, { "Continue", "New game", "Options", "Quit" }, { "Video", "Audio", "Controls", "Apply" },
    { "Low", "Medium", "High" }, { "Off", "Half", "Full" }, { "Default", "Southpaw" }, { NULL },
    { "Resume", "Options", "Quit to title" },
};
static const int NITEMS[R_COUNT] = { 1, 4, 4, 3, 3, 2, 0, 3 };
/* Screen colours (a test reads them back from the screenshot). */
static const SDL_Color BG[R_COUNT] = { { 30, 64, 175, 255 },  { 21, 128, 61, 255 }, { 124, 58, 237, 255 },
                                       { 194, 65, 12, 255 },  { 194, 65, 12, 255 }, { 194, 65, 12, 255 },
                                       { 15, 23, 42, 255 },   { 51, 65, 85, 255 } };
static const SDL_Color FOCUS = { 250, 204, 21, 255 };
static const SDL_Color ROW = { 255, 255, 255, 60 };

typedef struct {
    ng_context *ctx;
    ng_sdl2 a;
    SDL_Window *win;
    SDL_Renderer *ren;
    TTF_Font *big, *font;
    bool unguarded, running, dirty;
    const char *record, *shot_path;
    int anim_ms, confirm_ms;
    uint64_t next_id;
    uint8_t route_of[MAX_IDS];         /* host id -> route (ids are never reused) */
    uint64_t options_id;               /* the Options screen on the stack, 0: none */
    int focus;                         /* the top screen's focused item */
    struct {
        bool on;
        bool pop;                      /* the top goes (pop) or comes (push) */
        uint64_t from, to;
        int from_focus, to_focus;
        Uint64 start;
    } an;
    struct {
        bool open;
        uint64_t id;
        int focus;                     /* 0 Yes, 1 No */
    } q;
    int saved[3], pending[3];          /* video, audio, controls */
    SDL_GameController *pads[MAX_PADS];
    int pad_index[MAX_PADS];           /* their virtual device index, -1 gone */
    int npads;
    struct {
        bool used;
        uint64_t device;
        int64_t code;
        Uint64 next;
    } held[MAX_HELD];                  /* D-pad buttons held: the game's repeat */
    int ctl_fd;
    char ctl_buf[512];
    size_t ctl_len;
    int activations;
    uint64_t pause_owner;              /* the device that paused (drawn) */
} game;

/* ------------------------------------------------------------------------ */
/* Stack                                                                     */
/* ------------------------------------------------------------------------ */

static int route_of(game *g, uint64_t id) { return id && id < MAX_IDS ? g->route_of[id] : -1; }

static uint64_t top_id(game *g) {
    size_t n = 0;
    ng_screen_info si = NG_SCREEN_INFO_INIT;
    if (ng_stack_count(g->ctx, &n) != NG_OK || n == 0 || ng_stack_get(g->ctx, n - 1, &si) != NG_OK) return 0;
    return si.id;
}

static void log_stack(game *g) {
    size_t n = 0;
    ng_stack_count(g->ctx, &n);
    const char *names[32];
    size_t k = 0;
    for (size_t i = 0; i < n && k < 32; i++) {
        ng_screen_info si = NG_SCREEN_INFO_INIT;
        if (ng_stack_get(g->ctx, i, &si) == NG_OK) names[k++] = ROUTES[route_of(g, si.id)];
    }
    klog_begin("stack");
    klog_strlist("routes", names, k);
    klog_int("focus", g->focus);
    klog_end();
}

static void submit(game *g, ng_request *r, const char *what) {
    r->source = SRC_MENU;
    ng_request_result rr = NG_REQUEST_RESULT_INIT;
    ng_status st = ng_request_submit(g->ctx, r, &rr);
    klog_begin("request");
    klog_str("what", what);
    klog_uint("device", r->device);
    klog_str("status", st == NG_OK ? ng_outcome_name(rr.status) : ng_strstatus(st));
    klog_end();
}

static void push(game *g, int route, uint64_t device) {
    uint64_t id = ++g->next_id;
    if (id >= MAX_IDS) return;
    g->route_of[id] = (uint8_t)route;
    ng_request r = NG_REQUEST_INIT(NG_REQ_PUSH);
    r.flags = NG_REQF_ANIMATED | NG_REQF_TIMED;
    r.screen.id = id;
    r.screen.route = ROUTES[route];
    r.device = device;
    submit(g, &r, ROUTES[route]);
}

static void back(game *g, uint64_t device) {
    ng_request r = NG_REQUEST_INIT(NG_REQ_BACK);
    r.flags = NG_REQF_ANIMATED | NG_REQF_TIMED;
    r.device = device;
    submit(g, &r, "back");
}

static void pop_to_title(game *g, uint64_t device) {
    ng_screen_info si = NG_SCREEN_INFO_INIT;
    if (ng_stack_get(g->ctx, 0, &si) != NG_OK) return;
    ng_request r = NG_REQUEST_INIT(NG_REQ_POP_TO);
    r.flags = NG_REQF_ANIMATED | NG_REQF_TIMED;
    r.target_id = si.id;
    r.device = device;
    submit(g, &r, "title");
}

static void set_focus(game *g, int f) {
    uint64_t top = top_id(g);
    g->focus = f;
    ng_screen_set_focus(g->ctx, top, (uint64_t)f + 1);
    klog_begin("focus");
    klog_str("screen", ROUTES[route_of(g, top)]);
    klog_int("index", f);
    klog_end();
    g->dirty = true;
}

static void log_settings(game *g, const char *why) {
    klog_begin("settings");
    klog_str("why", why);
    klog_int("saved_video", g->saved[0]);
    klog_int("pending_video", g->pending[0]);
    klog_bool("unsaved", memcmp(g->saved, g->pending, sizeof g->saved) != 0);
    klog_end();
}

/* ------------------------------------------------------------------------ */
/* Actions                                                                   */
/* ------------------------------------------------------------------------ */

static void activate(game *g, uint64_t device) {
    int route = route_of(g, top_id(g));
    if (route < 0 || g->focus >= NITEMS[route]) return;
    g->activations++;
    klog_begin("activate");
    klog_str("screen", ROUTES[route]);
    klog_str("item", ITEMS[route][g->focus]);
    klog_uint("device", device);
    klog_int("count", g->activations);
    klog_end();
    switch (route) {
    case R_MAIN:
        if (g->focus <= 1) push(g, R_GAME, device);
        else if (g->focus == 2) push(g, R_OPTIONS, device);
        else g->running = false;
        break;
    case R_OPTIONS:
        if (g->focus < 3) push(g, R_VIDEO + g->focus, device);
        else {
            memcpy(g->saved, g->pending, sizeof g->saved);
            if (g->options_id) ng_screen_set_flags(g->ctx, g->options_id, 0);
            log_settings(g, "applied");
        }
        break;
    case R_VIDEO: case R_AUDIO: case R_CONTROLS:
        g->pending[route - R_VIDEO] = g->focus;
        /* Unsaved changes: leaving Options asks first (confirm-leave). */
        if (g->options_id)
            ng_screen_set_flags(g->ctx, g->options_id,
                                memcmp(g->saved, g->pending, sizeof g->saved) ? NG_SCREENF_CONFIRM_LEAVE : 0);
        log_settings(g, "changed");
        break;
    case R_PAUSE:
        if (g->focus == 0) back(g, device);
        else if (g->focus == 1) push(g, R_OPTIONS, device);
        else pop_to_title(g, device);
        break;
    default:
        break;
    }
    g->dirty = true;
}

enum act { ACT_NONE, ACT_UP, ACT_DOWN, ACT_LEFT, ACT_RIGHT, ACT_A, ACT_START };

static enum act action_of(const ng_event *e) {
    if (e->type == NG_EVENT_REMOTE) {
        switch (e->code) {
        case NG_BUTTON_DPAD_UP: return ACT_UP;
        case NG_BUTTON_DPAD_DOWN: return ACT_DOWN;
        case NG_BUTTON_DPAD_LEFT: return ACT_LEFT;
        case NG_BUTTON_DPAD_RIGHT: return ACT_RIGHT;
        case NG_BUTTON_A: return ACT_A;
        case NG_BUTTON_START: return ACT_START;
        default: return ACT_NONE;
        }
    }
    switch (e->code) {
    case SDLK_UP: return ACT_UP;
    case SDLK_DOWN: return ACT_DOWN;
    case SDLK_LEFT: return ACT_LEFT;
    case SDLK_RIGHT: return ACT_RIGHT;
    case SDLK_RETURN: case SDLK_SPACE: return ACT_A;
    case SDLK_p: return ACT_START;
    default: return ACT_NONE;
    }
}

/* A delivered key or button: what it does on the top screen. */
static void act(game *g, const ng_event *e) {
    enum act k = action_of(e);
    bool down = e->phase == NG_KEY_DOWN, rep = e->phase == NG_KEY_REPEAT, up = e->phase == NG_KEY_UP;
    if (k == ACT_NONE) return;
    if (g->q.open) {
        if ((down || rep) && k >= ACT_UP && k <= ACT_RIGHT) {
            g->q.focus = !g->q.focus;
            g->dirty = true;
        } else if (up && k == ACT_A) {
            ng_answer ans = g->q.focus == 0 ? NG_ANSWER_YES : NG_ANSWER_NO;
            klog_begin("answer");
            klog_str("answer", ng_answer_name(ans));
            klog_end();
            ng_question_answer(g->ctx, g->q.id, ans);
        }
        return;
    }
    int route = route_of(g, top_id(g));
    if (route == R_TITLE) {
        if (down && (k == ACT_A || k == ACT_START)) push(g, R_MAIN, e->touch_id);
        return;
    }
    if (route == R_GAME) {
        if (down && k == ACT_START) {
            g->pause_owner = e->touch_id;
            push(g, R_PAUSE, e->touch_id);
        }
        return;
    }
    if (route == R_PAUSE && down && k == ACT_START) {
        back(g, e->touch_id);
        return;
    }
    if (route < 0 || NITEMS[route] == 0) return;
    if ((down || rep) && (k == ACT_UP || k == ACT_DOWN)) {
        int f = g->focus + (k == ACT_DOWN ? 1 : -1);
        if (f >= 0 && f < NITEMS[route]) set_focus(g, f);
    } else if (up && k == ACT_A) {
        activate(g, e->touch_id);
    }
}

static void log_input(const ng_event *e, const ng_event_result *r, const char *from) {
    static const char *const PH[] = { "down", "up", "repeat", "device-removed" };
    klog_begin("input");
    klog_str("from", from);
    klog_str("event", e->type == NG_EVENT_REMOTE ? "remote" : "key");
    klog_uint("device", e->touch_id);
    klog_str("code", e->type == NG_EVENT_REMOTE ? ng_button_name(e->code) : SDL_GetKeyName((SDL_Keycode)e->code));
    klog_str("phase", e->phase >= 0 && e->phase < 4 ? PH[e->phase] : "other");
    klog_str("verdict", ng_verdict_name(r->verdict));
    klog_str("reason", ng_reason_name(r->reason));
    klog_str("guard", r->guard_id);
    klog_end();
}

static bool is_dpad(const ng_event *e) {
    return e->type == NG_EVENT_REMOTE && e->code >= NG_BUTTON_DPAD_UP && e->code <= NG_BUTTON_DPAD_RIGHT;
}

/* The game's own D-pad repeat (SDL gives none for controllers). */
static void held_set(game *g, const ng_event *e, bool on) {
    for (int i = 0; i < MAX_HELD; i++)
        if (g->held[i].used && g->held[i].device == e->touch_id && g->held[i].code == e->code) g->held[i].used = false;
    if (!on) return;
    for (int i = 0; i < MAX_HELD; i++)
        if (!g->held[i].used) {
            g->held[i].used = true;
            g->held[i].device = e->touch_id;
            g->held[i].code = e->code;
            g->held[i].next = SDL_GetTicks64() + 300;
            return;
        }
}

static void repeats(game *g) {
    Uint64 now = SDL_GetTicks64();
    for (int i = 0; i < MAX_HELD; i++) {
        if (!g->held[i].used || g->held[i].next > now) continue;
        g->held[i].next = now + 90;
        ng_event e = NG_EVENT_INIT(NG_EVENT_REMOTE);
        e.phase = NG_KEY_REPEAT;
        e.touch_id = g->held[i].device;
        e.code = g->held[i].code;
        ng_event_result r = NG_EVENT_RESULT_INIT;
        if (ng_event_submit(g->ctx, &e, &r) != NG_OK) continue;
        log_input(&e, &r, "repeat");
        if (r.verdict == NG_VERDICT_DELIVER) act(g, &e);
    }
}

static int repeat_wait(game *g) {
    int ms = -1;
    Uint64 now = SDL_GetTicks64();
    for (int i = 0; i < MAX_HELD; i++) {
        if (!g->held[i].used) continue;
        int left = g->held[i].next > now ? (int)(g->held[i].next - now) : 0;
        if (ms < 0 || left < ms) ms = left;
    }
    return ms;
}

static void on_input(game *g, const ng_sdl2_input *in) {
    const ng_event *e = &in->event;
    if (e->type != NG_EVENT_KEY && e->type != NG_EVENT_REMOTE) return;
    log_input(e, &in->result, "sdl");
    if (is_dpad(e)) held_set(g, e, e->phase == NG_KEY_DOWN && in->result.verdict == NG_VERDICT_DELIVER);
    if (e->phase == NG_KEY_DEVICE_REMOVED) {
        for (int i = 0; i < MAX_HELD; i++)
            if (g->held[i].device == e->touch_id) g->held[i].used = false;
        return;
    }
    if (in->back) {
        klog_begin("back");
        klog_uint("device", e->touch_id);
        klog_str("status", ng_outcome_name(in->back_result.status));
        klog_str("reason", ng_reason_name(in->back_result.reason));
        klog_str("guard", in->back_result.guard_id);
        klog_end();
        return;
    }
    if (in->result.verdict == NG_VERDICT_DELIVER) act(g, e);
}

/* ------------------------------------------------------------------------ */
/* NavGuard's delegate                                                       */
/* ------------------------------------------------------------------------ */

static void on_transition(void *user, ng_context *ctx, const ng_transition_event *e) {
    game *g = user;
    (void)ctx;
    uint64_t token = NG_HAS_FIELD(e, ng_transition_event, focus_token) ? e->focus_token : 0;
    klog_begin("transition");
    klog_str("track", ng_track_name(e->track));
    klog_str("phase", ng_phase_name(e->phase));
    klog_str("kind", ng_request_kind_name(e->kind));
    klog_str("from", e->from_id ? ROUTES[route_of(g, e->from_id)] : NULL);
    klog_str("to", e->to_id ? ROUTES[route_of(g, e->to_id)] : NULL);
    klog_uint("focus_token", token);
    klog_end();
    if (e->track != NG_TRACK_SCREEN) return;
    int to_focus = token ? (int)token - 1 : 0;
    if (e->phase == NG_PHASE_WILL) {
        g->an.on = true;
        g->an.pop = e->kind == NG_REQ_BACK || e->kind == NG_REQ_POP_TO;
        g->an.from = e->from_id;
        g->an.to = e->to_id;
        g->an.from_focus = g->focus;
        g->an.to_focus = to_focus;
        g->an.start = SDL_GetTicks64();
        g->focus = to_focus;     /* input goes to the new top from now on */
    } else {
        g->an.on = false;
        g->focus = to_focus;     /* did-show: the focus comes back */
        if (route_of(g, e->from_id) == R_OPTIONS && e->phase == NG_PHASE_DID && e->from_id == g->options_id &&
            g->an.pop) {
            /* Options left: unsaved changes are discarded. */
            if (memcmp(g->saved, g->pending, sizeof g->saved)) {
                memcpy(g->pending, g->saved, sizeof g->saved);
                log_settings(g, "discarded");
            }
        }
        /* The Options screen on the stack (for its flags). */
        g->options_id = 0;
        size_t n = 0;
        ng_stack_count(g->ctx, &n);
        for (size_t i = 0; i < n; i++) {
            ng_screen_info si = NG_SCREEN_INFO_INIT;
            if (ng_stack_get(g->ctx, i, &si) == NG_OK && route_of(g, si.id) == R_OPTIONS) g->options_id = si.id;
        }
        log_stack(g);
    }
    g->dirty = true;
}

static void on_outcome(void *user, ng_context *ctx, const ng_outcome *o) {
    (void)user;
    (void)ctx;
    klog_begin("outcome");
    klog_uint("id", o->request_id);
    klog_str("kind", ng_request_kind_name(o->kind));
    klog_str("outcome", ng_outcome_name(o->outcome));
    klog_str("reason", ng_reason_name(o->reason));
    klog_str("guard", o->guard_id);
    klog_str("message", o->message);
    klog_end();
}

static void on_press_cancel(void *user, ng_context *ctx, const ng_press_info *p) {
    game *g = user;
    (void)ctx;
    klog_begin("press_cancel");
    klog_uint("device", p->device);
    klog_str("code", p->type == NG_EVENT_REMOTE ? ng_button_name(p->code) : SDL_GetKeyName((SDL_Keycode)p->code));
    klog_str("cause", ng_press_cause_name(p->cause));
    klog_end();
    /* A D-pad still held keeps repeating (the game's timer follows the
     * button, as a real game's does): NavGuard drops those repeats until the
     * button is pressed again. */
    (void)g;
}

static void on_question(void *user, ng_context *ctx, const ng_question *q) {
    game *g = user;
    (void)ctx;
    g->q.open = true;
    g->q.id = q->question_id;
    g->q.focus = 1;
    klog_begin("question");
    klog_uint("id", q->question_id);
    klog_str("text", "Discard changes?");
    klog_end();
    g->dirty = true;
}

static void on_question_end(void *user, ng_context *ctx, const ng_question *q, ng_answer answer) {
    game *g = user;
    (void)ctx;
    klog_begin("question_end");
    klog_uint("id", q->question_id);
    klog_str("answer", ng_answer_name(answer));
    klog_end();
    if (g->q.id == q->question_id) g->q.open = false;
    g->dirty = true;
}

/* ------------------------------------------------------------------------ */
/* Drawing                                                                   */
/* ------------------------------------------------------------------------ */

static void text(game *g, TTF_Font *f, const char *s, int x, int y, SDL_Color c, bool centre) {
    if (!s || !*s) return;
    SDL_Surface *surf = TTF_RenderUTF8_Blended(f, s, c);
    if (!surf) return;
    SDL_Texture *t = SDL_CreateTextureFromSurface(g->ren, surf);
    SDL_Rect r = { centre ? x - surf->w / 2 : x, y, surf->w, surf->h };
    SDL_RenderCopy(g->ren, t, NULL, &r);
    SDL_DestroyTexture(t);
    SDL_FreeSurface(surf);
}

static void fill(game *g, SDL_Rect r, SDL_Color c) {
    SDL_SetRenderDrawColor(g->ren, c.r, c.g, c.b, c.a);
    SDL_RenderFillRect(g->ren, &r);
}

static const SDL_Color WHITE = { 255, 255, 255, 255 }, DARK = { 15, 23, 42, 255 };

static void draw_game_scene(game *g, int dx) {
    fill(g, (SDL_Rect){ dx, 0, W, H }, BG[R_GAME]);
    /* A runner going round: the scene runs. */
    int t = (int)(SDL_GetTicks64() / 8 % 600);
    fill(g, (SDL_Rect){ dx + 100 + t, 420, 40, 40 }, (SDL_Color){ 34, 197, 94, 255 });
    fill(g, (SDL_Rect){ dx, 460, W, 140 }, (SDL_Color){ 30, 41, 59, 255 });
    text(g, g->font, "Running. Start (or P) pauses", dx + 30, 30, WHITE, false);
}

static void draw_screen(game *g, uint64_t id, int focus, int dx) {
    int route = route_of(g, id);
    if (route < 0) return;
    if (route == R_GAME) {
        draw_game_scene(g, dx);
        return;
    }
    if (route == R_PAUSE) {
        draw_game_scene(g, dx);
        fill(g, (SDL_Rect){ dx, 0, W, H }, (SDL_Color){ 0, 0, 0, 140 });
        fill(g, (SDL_Rect){ dx + 240, 130, 320, 370 }, BG[R_PAUSE]);
        text(g, g->big, TITLES[R_PAUSE], dx + 400, 142, WHITE, true);
        char owner[64];
        if (g->pause_owner) snprintf(owner, sizeof owner, "controller %llu's menu", (unsigned long long)g->pause_owner);
        else snprintf(owner, sizeof owner, "the keyboard's menu");
        text(g, g->font, owner, dx + 400, 194, (SDL_Color){ 203, 213, 225, 255 }, true);
        for (int i = 0; i < NITEMS[R_PAUSE]; i++) {
            SDL_Rect r = { dx + 270, 250 + i * 70, 260, 54 };
            fill(g, r, i == focus ? FOCUS : ROW);
            text(g, g->font, ITEMS[R_PAUSE][i], dx + 400, r.y + 13, i == focus ? DARK : WHITE, true);
        }
        return;
    }
    fill(g, (SDL_Rect){ dx, 0, W, H }, BG[route]);
    text(g, g->big, TITLES[route], dx + 40, 36, WHITE, false);
    if (route == R_TITLE) {
        text(g, g->font, ITEMS[R_TITLE][0], dx + 400, 380, WHITE, true);
        return;
    }
    for (int i = 0; i < NITEMS[route]; i++) {
        SDL_Rect r = { dx + 60, 140 + i * 76, 560, 60 };
        fill(g, r, i == focus ? FOCUS : ROW);
        char label[64];
        if (route >= R_VIDEO && route <= R_CONTROLS)
            snprintf(label, sizeof label, "%s%s", ITEMS[route][i], g->pending[route - R_VIDEO] == i ? "  *" : "");
        else if (route == R_OPTIONS && i < 3)
            snprintf(label, sizeof label, "%s: %s", ITEMS[route][i], ITEMS[R_VIDEO + i][g->pending[i]]);
        else
            snprintf(label, sizeof label, "%s", ITEMS[route][i]);
        text(g, g->font, label, r.x + 24, r.y + 16, i == focus ? DARK : WHITE, false);
    }
    if (route == R_OPTIONS && memcmp(g->saved, g->pending, sizeof g->saved))
        text(g, g->font, "Unsaved changes", dx + 60, 460, FOCUS, false);
}

static void draw(game *g) {
    SDL_SetRenderDrawBlendMode(g->ren, SDL_BLENDMODE_BLEND);
    if (g->an.on) {
        double p = (double)(SDL_GetTicks64() - g->an.start) / (g->anim_ms > 0 ? g->anim_ms : 1);
        if (p > 1) p = 1;
        int off = (int)(p * W);
        if (g->an.pop) {
            draw_screen(g, g->an.to, g->an.to_focus, -(W - off) / 4);
            draw_screen(g, g->an.from, g->an.from_focus, off);
        } else {
            draw_screen(g, g->an.from, g->an.from_focus, -off / 4);
            draw_screen(g, g->an.to, g->focus, W - off);
        }
    } else {
        draw_screen(g, top_id(g), g->focus, 0);
    }
    if (g->q.open) {
        fill(g, (SDL_Rect){ 0, 0, W, H }, (SDL_Color){ 0, 0, 0, 140 });
        fill(g, (SDL_Rect){ 200, 200, 400, 200 }, WHITE);
        text(g, g->big, "Discard changes?", 400, 225, DARK, true);
        for (int i = 0; i < 2; i++) {
            SDL_Rect r = { 230 + i * 190, 310, 150, 56 };
            fill(g, r, i == g->q.focus ? FOCUS : (SDL_Color){ 203, 213, 225, 255 });
            text(g, g->font, i == 0 ? "Yes" : "No", r.x + 75, r.y + 14, DARK, true);
        }
    }
    text(g, g->font, g->unguarded ? "UNGUARDED" : "guarded", W - 130, H - 34, WHITE, false);
    SDL_RenderPresent(g->ren);
    g->dirty = false;
}

static void screenshot(game *g, const char *path) {
    draw(g);
    SDL_Surface *s = SDL_CreateRGBSurfaceWithFormat(0, W, H, 32, SDL_PIXELFORMAT_ARGB8888);
    if (!s) return;
    /* Read back what draw() just presented (the software renderer keeps it). */
    if (SDL_RenderReadPixels(g->ren, NULL, SDL_PIXELFORMAT_ARGB8888, s->pixels, s->pitch) == 0) SDL_SaveBMP(s, path);
    SDL_FreeSurface(s);
    size_t n = 0;
    ng_stack_count(g->ctx, &n);
    klog_begin("shot");
    klog_str("path", path);
    klog_str("top", ROUTES[route_of(g, top_id(g))]);
    klog_int("focus", g->focus);
    klog_bool("question", g->q.open);
    klog_end();
}

/* ------------------------------------------------------------------------ */
/* Test controllers                                                          */
/* ------------------------------------------------------------------------ */

static int attach_pad(game *g) {
    if (g->npads >= MAX_PADS) return -1;
    SDL_VirtualJoystickDesc d;
    SDL_zero(d);
    d.version = SDL_VIRTUAL_JOYSTICK_DESC_VERSION;
    d.type = SDL_JOYSTICK_TYPE_GAMECONTROLLER;
    d.naxes = SDL_CONTROLLER_AXIS_MAX;
    d.nbuttons = SDL_CONTROLLER_BUTTON_MAX;
    d.name = "sdl-game virtual pad";
    int index = SDL_JoystickAttachVirtualEx(&d);
    if (index < 0) {
        fprintf(stderr, "sdl-game: virtual controller: %s\n", SDL_GetError());
        return -1;
    }
    SDL_GameController *gc = SDL_GameControllerOpen(index);
    if (!gc) return -1;
    int n = g->npads++;
    g->pads[n] = gc;
    g->pad_index[n] = index;
    klog_begin("pad");
    klog_int("n", n + 1);
    klog_uint("device", NG_SDL2_PAD_DEVICE(SDL_JoystickInstanceID(SDL_GameControllerGetJoystick(gc))));
    klog_end();
    return n;
}

static void control_line(game *g, char *line) {
    int n = 0;
    char verb[16] = "", arg[256] = "";
    if (sscanf(line, "pad %d %15s %255s", &n, verb, arg) >= 2) {
        if (n < 1 || n > g->npads || !g->pads[n - 1]) return;
        SDL_Joystick *j = SDL_GameControllerGetJoystick(g->pads[n - 1]);
        if (strcmp(verb, "unplug") == 0) {
            /* The joystick's own index (device indices shift as pads go). */
            for (int i = 0; i < SDL_NumJoysticks(); i++)
                if (SDL_JoystickGetDeviceInstanceID(i) == SDL_JoystickInstanceID(j)) SDL_JoystickDetachVirtual(i);
            return;
        }
        SDL_GameControllerButton b = SDL_GameControllerGetButtonFromString(arg);
        if (b == SDL_CONTROLLER_BUTTON_INVALID) {
            if (strcmp(arg, "A") == 0) b = SDL_CONTROLLER_BUTTON_A;
            else if (strcmp(arg, "B") == 0) b = SDL_CONTROLLER_BUTTON_B;
            else return;
        }
        SDL_JoystickSetVirtualButton(j, b, strcmp(verb, "down") == 0);
    } else if (strcmp(line, "attach") == 0) {
        attach_pad(g);
    } else if (sscanf(line, "shot %255s", arg) == 1) {
        screenshot(g, arg);
    } else if (strcmp(line, "quit") == 0) {
        g->running = false;
    }
}

static void control_poll(game *g) {
    if (g->ctl_fd < 0) return;
    for (;;) {
        ssize_t r = read(g->ctl_fd, g->ctl_buf + g->ctl_len, sizeof g->ctl_buf - 1 - g->ctl_len);
        if (r <= 0) break;
        g->ctl_len += (size_t)r;
        char *nl;
        while ((nl = memchr(g->ctl_buf, '\n', g->ctl_len))) {
            *nl = 0;
            control_line(g, g->ctl_buf);
            size_t used = (size_t)(nl - g->ctl_buf) + 1;
            memmove(g->ctl_buf, nl + 1, g->ctl_len - used);
            g->ctl_len -= used;
        }
        if (g->ctl_len == sizeof g->ctl_buf - 1) g->ctl_len = 0;
    }
}

/* ------------------------------------------------------------------------ */
/* Main                                                                      */
/* ------------------------------------------------------------------------ */

static int usage(const char *argv0) {
    fprintf(stderr,
            "usage: %s [--unguarded] [--record FILE] [--log FILE] [--screenshot FILE] [--anim-ms N]\n"
            "          [--confirm-timeout-ms N] [--pads N] [--control FIFO]\n"
            "  --pads and --control are for tests: virtual controllers, and a FIFO of lines\n"
            "  \"pad N down|up BUTTON\", \"pad N unplug\", \"attach\", \"shot FILE\", \"quit\".\n",
            argv0);
    return 2;
}

int main(int argc, char **argv) {
    static game G;
    game *g = &G;
    const char *log_path = NULL, *ctl_path = NULL;
    int npads = 0;
    g->anim_ms = 300;
    g->confirm_ms = 30000;
    g->ctl_fd = -1;
    for (int i = 1; i < argc; i++) {
        const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(o, "--unguarded") == 0) g->unguarded = true;
        else if (strcmp(o, "--record") == 0 && v) g->record = argv[++i];
        else if (strcmp(o, "--log") == 0 && v) log_path = argv[++i];
        else if (strcmp(o, "--screenshot") == 0 && v) g->shot_path = argv[++i];
        else if (strcmp(o, "--anim-ms") == 0 && v) g->anim_ms = atoi(argv[++i]);
        else if (strcmp(o, "--confirm-timeout-ms") == 0 && v) g->confirm_ms = atoi(argv[++i]);
        else if (strcmp(o, "--pads") == 0 && v) npads = atoi(argv[++i]);
        else if (strcmp(o, "--control") == 0 && v) ctl_path = argv[++i];
        else return usage(argv[0]);
    }
    if (g->anim_ms < 1) g->anim_ms = 1;
    klog_clock_start();
    if (!klog_open(log_path)) {
        fprintf(stderr, "sdl-game: --log %s: %s\n", log_path, strerror(errno));
        return 1;
    }
    if (ctl_path && (g->ctl_fd = open(ctl_path, O_RDWR | O_NONBLOCK)) < 0) {
        fprintf(stderr, "sdl-game: --control %s: %s\n", ctl_path, strerror(errno));
        return 1;
    }
    /* Virtual controllers are driven from this process: their input must
     * count when the window has no focus (Xvfb has no window manager). */
    SDL_SetHint(SDL_HINT_JOYSTICK_ALLOW_BACKGROUND_EVENTS, "1");
    if (SDL_Init(SDL_INIT_VIDEO | SDL_INIT_GAMECONTROLLER | SDL_INIT_EVENTS) != 0 || TTF_Init() != 0) {
        fprintf(stderr, "sdl-game: SDL_Init: %s\n", SDL_GetError());
        return 1;
    }
    g->win = SDL_CreateWindow("sdl-game (NavGuard)", 0, 0, W, H, SDL_WINDOW_SHOWN);
    if (!g->win || !(g->ren = SDL_CreateRenderer(g->win, -1, SDL_RENDERER_SOFTWARE))) {
        fprintf(stderr, "sdl-game: window: %s\n", SDL_GetError());
        return 1;
    }
    g->big = TTF_OpenFont(FONT, 40);
    g->font = TTF_OpenFont(FONT, 24);
    if (!g->big || !g->font) {
        fprintf(stderr, "sdl-game: %s: %s (apt-get install fonts-dejavu-core)\n", FONT, TTF_GetError());
        return 1;
    }

    ng_options opts = NG_OPTIONS_INIT;
    opts.default_duration_ns = (int64_t)g->anim_ms * 1000000;
    opts.delegate.user = g;
    opts.delegate.on_transition = on_transition;
    opts.delegate.on_outcome = on_outcome;
    opts.delegate.on_press_cancel = on_press_cancel;
    opts.delegate.on_question = on_question;
    opts.delegate.on_question_end = on_question_end;
    if (ng_context_create(&opts, &g->ctx) != NG_OK) {
        fprintf(stderr, "sdl-game: ng_context_create failed\n");
        return 1;
    }
    /* Before any other call on the context: only a trace recorded from the
     * creation replays exactly. */
    if (g->record) {
        ng_record_options ro = NG_RECORD_OPTIONS_INIT;
        ro.path = g->record;
        if (ng_record_start(g->ctx, &ro) != NG_OK) {
            fprintf(stderr, "sdl-game: --record: %s\n", ng_errmsg(g->ctx));
            return 1;
        }
    }
    if (!g->unguarded) {
        /* The default chain, the confirm-leave question's time limit, and the
         * pause menu's owner: device-owner, the keyboard (device 0) shared. */
        char chain[512];
        snprintf(chain, sizeof chain,
                 "{\"base\":\"default\",\"edits\":["
                 "{\"configure\":\"org.navguard.confirm-leave\",\"config\":{\"timeout_ms\":%d}},"
                 "{\"insert\":{\"id\":\"org.navguard.device-owner\",\"config\":{\"shared\":[\"0\"]}}}]}",
                 g->confirm_ms);
        if (ng_chain_configure(g->ctx, chain) != NG_OK) {
            fprintf(stderr, "sdl-game: ng_chain_configure: %s (plugin dir %s)\n", ng_errmsg(g->ctx), ng_plugin_dir());
            return 1;
        }
    }
    if (ng_sdl2_init(&g->a, g->ctx, g->win) != NG_OK) return 1;
    g->a.hover = false;
    g->a.back_keys[0] = SDLK_ESCAPE;
    g->a.back_keys[1] = SDLK_BACKSPACE;
    g->a.back_keys[2] = SDLK_AC_BACK;
    ng_screen title = { ++g->next_id, ROUTES[R_TITLE], NULL };
    g->route_of[title.id] = R_TITLE;
    ng_stack_set_root(g->ctx, &title);
    for (int i = 0; i < npads; i++) attach_pad(g);

    size_t guards = 0;
    ng_chain_count(g->ctx, &guards);
    klog_begin("ready");
    klog_bool("guarded", !g->unguarded);
    klog_uint("guards", guards);
    klog_int("pads", g->npads);
    klog_end();
    log_stack(g);

    g->running = true;
    g->dirty = true;
    while (g->running) {
        control_poll(g);
        repeats(g);
        /* Frames while something moves (a slide, the running scene, which
         * the pause menu stops); otherwise sleep until input: 0 % CPU. */
        bool moving = g->an.on || route_of(g, top_id(g)) == R_GAME;
        if (g->dirty || moving) draw(g);
        int timeout = moving ? 16 : -1;
        int rw = repeat_wait(g);
        if (rw >= 0 && (timeout < 0 || rw < timeout)) timeout = rw;
        if (g->ctl_fd >= 0 && (timeout < 0 || timeout > 10)) timeout = 10;
        SDL_Event e;
        if (!ng_sdl2_wait_event(&g->a, &e, timeout)) continue;
        if (e.type == SDL_QUIT) {
            g->running = false;
            continue;
        }
        if (e.type == SDL_CONTROLLERDEVICEADDED) {
            /* A real controller plugged in (the virtual ones are open). */
            if (!SDL_GameControllerFromInstanceID(SDL_JoystickGetDeviceInstanceID(e.cdevice.which)))
                SDL_GameControllerOpen(e.cdevice.which);
            continue;
        }
        if (e.type == SDL_KEYDOWN && (e.key.keysym.mod & KMOD_CTRL) && e.key.keysym.sym == SDLK_q) {
            g->running = false;
            continue;
        }
        if (e.type == SDL_KEYDOWN && e.key.keysym.sym == SDLK_F12 && g->shot_path) screenshot(g, g->shot_path);
        if (e.type == SDL_WINDOWEVENT) g->dirty = true;
        ng_sdl2_input in;
        do {
            ng_sdl2_submit(&g->a, &e, &in);
            if (in.mapped) on_input(g, &in);
        } while (in.more);
        if (e.type == SDL_CONTROLLERDEVICEREMOVED) {
            klog_begin("unplugged");
            klog_uint("device", NG_SDL2_PAD_DEVICE(e.cdevice.which));
            klog_end();
            SDL_GameController *gc = SDL_GameControllerFromInstanceID(e.cdevice.which);
            for (int i = 0; i < g->npads; i++)
                if (g->pads[i] == gc) g->pads[i] = NULL;
            if (gc) SDL_GameControllerClose(gc);
        }
    }
    if (g->shot_path) screenshot(g, g->shot_path);
    log_stack(g);
    klog_begin("quit");
    klog_int("activations", g->activations);
    klog_end();
    ng_context_destroy(g->ctx);
    klog_close();
    TTF_Quit();
    SDL_Quit();
    return 0;
}
