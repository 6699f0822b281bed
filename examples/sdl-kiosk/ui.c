/* SPDX-License-Identifier: Apache-2.0 */
/* ui.c — drawing the kiosk: the four screens, the navigation bar, the
 * buttons in their real hit shapes, the slide animations and the F1 overlay.
 * Nothing here changes NavGuard's state; it only reads it. */
#define _POSIX_C_SOURCE 200809L
#include "kiosk.h"
#include "log.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PI 3.14159265358979323846

/* ------------------------------------------------------------------------ */
/* Colours                                                                   */
/* ------------------------------------------------------------------------ */

static const SDL_Color ROUTE_COLORS[R_COUNT] = {
    { 37, 99, 235, 255 },    /* Home: blue */
    { 22, 163, 74, 255 },    /* Menu: green */
    { 234, 118, 12, 255 },   /* Item: orange */
    { 139, 62, 200, 255 },   /* Checkout: purple */
};
static const SDL_Color C_BAR = { 24, 28, 38, 255 };
static const SDL_Color C_BAR_LINE = { 58, 64, 80, 255 };
static const SDL_Color C_PAGE = { 246, 247, 250, 255 };
static const SDL_Color C_TEXT = { 38, 42, 52, 255 };
static const SDL_Color C_TEXT2 = { 96, 104, 118, 255 };
static const SDL_Color C_WHITE = { 255, 255, 255, 255 };
static const SDL_Color C_BAND_TEXT = { 255, 255, 255, 230 };
static const SDL_Color C_SLATE = { 51, 65, 85, 255 };
static const SDL_Color C_BACK = { 147, 197, 253, 255 };
static const SDL_Color C_MUTED = { 148, 163, 184, 255 };
static const SDL_Color C_RED = { 220, 38, 38, 255 };
static const SDL_Color C_PANEL = { 14, 17, 27, 246 };
static const SDL_Color C_HEAD = { 250, 204, 21, 255 };
static const SDL_Color C_MONO = { 226, 232, 240, 255 };
static const SDL_Color C_MONO2 = { 148, 163, 184, 255 };
static const SDL_Color C_DROP = { 252, 165, 165, 255 };
static const SDL_Color C_HIT = { 236, 72, 153, 255 };

static SDL_Color darker(SDL_Color c, double k) {
    return (SDL_Color){ (Uint8)(c.r * k), (Uint8)(c.g * k), (Uint8)(c.b * k), c.a };
}

/* ------------------------------------------------------------------------ */
/* Text: rendered once per (font, colour, string), kept in a small LRU cache */
/* ------------------------------------------------------------------------ */

#define TEXT_CACHE 384

typedef struct text_entry {
    uint32_t hash;
    int font;
    SDL_Color c;
    char *s;
    SDL_Texture *tex;
    int w, h;
    uint64_t used;
} text_entry;

struct text_cache {
    text_entry e[TEXT_CACHE];
    uint64_t clock;
};

static uint32_t text_hash(int font, SDL_Color c, const char *s) {
    uint32_t h = 2166136261u ^ (uint32_t)font ^ ((uint32_t)c.r << 8) ^ ((uint32_t)c.g << 16) ^ ((uint32_t)c.b << 24);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) h = (h ^ *p) * 16777619u;
    return h;
}

static text_entry *text_get(app *ap, int font, const char *s, SDL_Color c) {
    text_cache *tc = ap->texts;
    uint32_t h = text_hash(font, c, s);
    text_entry *victim = &tc->e[0];
    tc->clock++;
    for (int i = 0; i < TEXT_CACHE; i++) {
        text_entry *e = &tc->e[i];
        if (e->s && e->hash == h && e->font == font && e->c.r == c.r && e->c.g == c.g && e->c.b == c.b &&
            strcmp(e->s, s) == 0) {
            e->used = tc->clock;
            return e;
        }
        if (!e->s || e->used < victim->used) victim = e;
        if (!victim->s) break;
    }
    if (victim->tex) SDL_DestroyTexture(victim->tex);
    free(victim->s);
    memset(victim, 0, sizeof *victim);
    SDL_Color opaque = { c.r, c.g, c.b, 255 };
    SDL_Surface *surf = TTF_RenderUTF8_Blended(ap->font[font], s, opaque);
    if (!surf) return NULL;
    victim->tex = SDL_CreateTextureFromSurface(ap->ren, surf);
    victim->w = surf->w;
    victim->h = surf->h;
    SDL_FreeSurface(surf);
    if (!victim->tex) return NULL;
    SDL_SetTextureBlendMode(victim->tex, SDL_BLENDMODE_BLEND);
    victim->s = strdup(s);
    victim->hash = h;
    victim->font = font;
    victim->c = c;
    victim->used = tc->clock;
    return victim;
}

enum { LEFT, CENTER, RIGHT };

/* Draws `s` with its top at y (x by `align`); alpha from c.a times `alpha`.
 * Returns the width. */
static int text(app *ap, int font, const char *s, SDL_Color c, double x, double y, int align, double alpha) {
    if (!s || !s[0] || alpha <= 0.0) return 0;
    text_entry *e = text_get(ap, font, s, c);
    if (!e) return 0;
    double a = alpha * c.a;
    SDL_SetTextureAlphaMod(e->tex, (Uint8)(a > 255 ? 255 : a));
    double left = align == CENTER ? x - e->w / 2.0 : align == RIGHT ? x - e->w : x;
    SDL_Rect dst = { (int)lround(left), (int)lround(y), e->w, e->h };
    SDL_RenderCopy(ap->ren, e->tex, NULL, &dst);
    return e->w;
}

static int text_h(app *ap, int font) { return TTF_FontHeight(ap->font[font]); }

/* ------------------------------------------------------------------------ */
/* Shapes                                                                    */
/* ------------------------------------------------------------------------ */

static void color(app *ap, SDL_Color c, double alpha) {
    SDL_SetRenderDrawColor(ap->ren, c.r, c.g, c.b, (Uint8)(c.a * (alpha < 0 ? 0 : alpha > 1 ? 1 : alpha)));
}

static void fill_rect(app *ap, double x, double y, double w, double h, SDL_Color c, double alpha) {
    color(ap, c, alpha);
    SDL_FRect r = { (float)x, (float)y, (float)w, (float)h };
    SDL_RenderFillRectF(ap->ren, &r);
}

/* A convex polygon as a triangle fan around its centre. */
static void fill_convex(app *ap, const SDL_FPoint *pts, int n, SDL_Color c, double alpha) {
    SDL_Vertex v[160];
    int idx[480];
    if (n > 158) n = 158;
    SDL_Color cc = { c.r, c.g, c.b, (Uint8)(c.a * alpha) };
    float cx = 0, cy = 0;
    for (int i = 0; i < n; i++) {
        cx += pts[i].x;
        cy += pts[i].y;
    }
    v[0] = (SDL_Vertex){ { cx / n, cy / n }, cc, { 0, 0 } };
    for (int i = 0; i < n; i++) v[i + 1] = (SDL_Vertex){ pts[i], cc, { 0, 0 } };
    int k = 0;
    for (int i = 0; i < n; i++) {
        idx[k++] = 0;
        idx[k++] = 1 + i;
        idx[k++] = 1 + (i + 1) % n;
    }
    SDL_RenderGeometry(ap->ren, NULL, v, n + 1, idx, k);
}

static int round_rect_points(SDL_FPoint *pts, double x, double y, double w, double h, double r) {
    const int seg = 8;
    int n = 0;
    const double cxs[4] = { x + w - r, x + w - r, x + r, x + r };
    const double cys[4] = { y + r, y + h - r, y + h - r, y + r };
    const double start[4] = { -PI / 2, 0, PI / 2, PI };
    for (int c = 0; c < 4; c++)
        for (int i = 0; i <= seg; i++) {
            double a = start[c] + (PI / 2) * i / seg;
            pts[n++] = (SDL_FPoint){ (float)(cxs[c] + r * cos(a)), (float)(cys[c] + r * sin(a)) };
        }
    return n;
}

static void fill_round(app *ap, double x, double y, double w, double h, double r, SDL_Color c, double alpha) {
    SDL_FPoint pts[40];
    int n = round_rect_points(pts, x, y, w, h, r);
    fill_convex(ap, pts, n, c, alpha);
}

static void fill_circle(app *ap, double cx, double cy, double r, SDL_Color c, double alpha) {
    SDL_FPoint pts[72];
    for (int i = 0; i < 72; i++) {
        double a = 2 * PI * i / 72;
        pts[i] = (SDL_FPoint){ (float)(cx + r * cos(a)), (float)(cy + r * sin(a)) };
    }
    fill_convex(ap, pts, 72, c, alpha);
}

static void dashed_rect(app *ap, double x, double y, double w, double h, SDL_Color c, double alpha) {
    color(ap, c, alpha);
    for (double t = 0; t < w; t += 8) {
        double e = t + 4 < w ? t + 4 : w;
        SDL_RenderDrawLineF(ap->ren, (float)(x + t), (float)y, (float)(x + e), (float)y);
        SDL_RenderDrawLineF(ap->ren, (float)(x + t), (float)(y + h - 1), (float)(x + e), (float)(y + h - 1));
    }
    for (double t = 0; t < h; t += 8) {
        double e = t + 4 < h ? t + 4 : h;
        SDL_RenderDrawLineF(ap->ren, (float)x, (float)(y + t), (float)x, (float)(y + e));
        SDL_RenderDrawLineF(ap->ren, (float)(x + w - 1), (float)(y + t), (float)(x + w - 1), (float)(y + e));
    }
}

static void dashed_circle(app *ap, double cx, double cy, double r, SDL_Color c, double alpha) {
    color(ap, c, alpha);
    for (int i = 0; i < 48; i += 2) {
        double a0 = 2 * PI * i / 48, a1 = 2 * PI * (i + 1) / 48;
        SDL_RenderDrawLineF(ap->ren, (float)(cx + r * cos(a0)), (float)(cy + r * sin(a0)), (float)(cx + r * cos(a1)),
                            (float)(cy + r * sin(a1)));
    }
}

/* ------------------------------------------------------------------------ */
/* Screens                                                                   */
/* ------------------------------------------------------------------------ */

static const char *const SUBTITLES[R_COUNT] = {
    "Welcome \xE2\x80\x94 step 1 of 4",
    "Pick a dish \xE2\x80\x94 step 2 of 4",
    "Your item \xE2\x80\x94 step 3 of 4",
    "Pay \xE2\x80\x94 step 4 of 4",
};

static const char *const BODY[R_COUNT][4] = {
    { "Tap Next. Double-tap it: NavGuard pushes once.", "F1 shows what NavGuard sees: the stack, transitions",
      "in flight, holds, refused requests and dropped touches.", NULL },
    { "Network asks a slow server for a recommended item;", "its reply, scoped to this screen, pushes Item.",
      "Hold Back while it lands: NavGuard cancels the press.", "Leave Menu first: the reply is refused as stale." },
    { "The small +1 button takes touches 30 px to each side", "and 20 px above and below (negative insets).",
      "Swipe back from the left edge: let go past half way", "or fling to go back, else it springs back." },
    { "Done places the order and returns to Home.", "Back, the Back key, a swipe from the left edge and",
      "the idle timer ask first: \xE2\x80\x9CLeave checkout?\xE2\x80\x9D", "A second tap while the screens slide is ignored." },
};

static bool button_visible_pressed(const button *b) { return b->pressed && b->inside; }

static void draw_button(app *ap, const button *b, double dx) {
    double x = b->rect.x + dx, y = b->rect.y, w = b->rect.w, h = b->rect.h;
    bool down = button_visible_pressed(b);
    SDL_Color base = b->act == ACT_NEXT || b->act == ACT_DONE ? ROUTE_COLORS[b->route] : C_SLATE;
    /* the dialog: staying is the safe answer, in the colour of the screen asked about */
    if (b->act == ACT_NO) base = ap->q.route >= 0 && ap->q.route < R_COUNT ? ROUTE_COLORS[ap->q.route] : C_SLATE;
    const char *label = b->label;
    char buf[64];
    if (b->act == ACT_NETWORK && ap->net_pending > 0) {
        snprintf(buf, sizeof buf, "Network: waiting\xE2\x80\xA6");
        label = buf;
        base = (SDL_Color){ 100, 116, 139, 255 };
    }
    if (down) base = darker(base, 0.72);
    switch (b->shape) {
    case SHAPE_ROUND: {
        double r = w / 2.0;
        fill_circle(ap, x + r + 1, y + r + 3, r, (SDL_Color){ 0, 0, 0, 40 }, 1.0);   /* soft shadow */
        fill_circle(ap, x + r, y + r, r, base, 1.0);
        text(ap, FONT_TITLE, "\xE2\x8C\x82", C_WHITE, x + r, y + r - 26, CENTER, 1.0);
        text(ap, FONT_SMALL_BOLD, label, C_WHITE, x + r, y + r + 6, CENTER, 1.0);
        break;
    }
    case SHAPE_SMALL_ENLARGED:
        fill_round(ap, x, y, w, h, 6, base, 1.0);
        text(ap, FONT_SMALL_BOLD, label, C_WHITE, x + w / 2, y + (h - text_h(ap, FONT_SMALL_BOLD)) / 2.0, CENTER, 1.0);
        break;
    case SHAPE_RECT:
        fill_round(ap, x, y + 3, w, h, 12, (SDL_Color){ 0, 0, 0, 40 }, 1.0);
        fill_round(ap, x, y, w, h, 12, base, 1.0);
        text(ap, FONT_BOLD, label, C_WHITE, x + w / 2, y + (h - text_h(ap, FONT_BOLD)) / 2.0, CENTER, 1.0);
        break;
    }
}

/* The hit area NavGuard tests, drawn faintly (overlay only). */
static void draw_hit_area(app *ap, const button *b, double dx) {
    double x = b->rect.x + dx, y = b->rect.y, w = b->rect.w, h = b->rect.h;
    if (b->shape == SHAPE_ROUND) {
        dashed_circle(ap, x + w / 2, y + h / 2, w / 2 + 3, C_HIT, 0.9);
    } else if (b->shape == SHAPE_SMALL_ENLARGED) {
        fill_rect(ap, x - ENLARGE_X, y - ENLARGE_Y, w + 2 * ENLARGE_X, h + 2 * ENLARGE_Y, C_HIT, 0.12);
        dashed_rect(ap, x - ENLARGE_X, y - ENLARGE_Y, w + 2 * ENLARGE_X, h + 2 * ENLARGE_Y, C_HIT, 0.9);
    } else {
        dashed_rect(ap, x - 3, y - 3, w + 6, h + 6, C_HIT, 0.9);
    }
}

static void draw_page(app *ap, int route, double dx) {
    if (dx >= WIN_W || dx <= -WIN_W) return;
    fill_rect(ap, dx, BAR_H, WIN_W, WIN_H - BAR_H, C_PAGE, 1.0);
    if (route < 0 || route >= R_COUNT) {
        text(ap, FONT_BIG, "?", C_TEXT2, dx + WIN_W / 2, 300, CENTER, 1.0);
        return;
    }
    fill_rect(ap, dx, BAND_Y0, WIN_W, BAND_Y1 - BAND_Y0, ROUTE_COLORS[route], 1.0);
    text(ap, FONT_BIG, route_title(route), C_WHITE, dx + 32, BAND_Y0 + 18, LEFT, 1.0);
    text(ap, FONT_REGULAR, SUBTITLES[route], C_BAND_TEXT, dx + 34, BAND_Y0 + 80, LEFT, 1.0);
    for (int i = 0; i < 4 && BODY[route][i]; i++)
        text(ap, FONT_REGULAR, BODY[route][i], C_TEXT, dx + 40, 228 + 28 * i, LEFT, 1.0);
    if (route == R_ITEM) {
        char q[48];
        snprintf(q, sizeof q, "Quantity: %d", ap->quantity + 1);
        text(ap, FONT_BOLD, q, C_TEXT, dx + 150, 520, LEFT, 1.0);
    }
    for (int i = 0; i < ap->nbuttons; i++)
        if (ap->buttons[i].route == route) draw_button(ap, &ap->buttons[i], dx);
}

/* A soft shadow left of a page edge at x. */
static void edge_shadow(app *ap, double x) {
    for (int i = 0; i < 16; i++) {
        double a = (i + 1) / 16.0;
        fill_rect(ap, x - 16 + i, BAR_H, 1, WIN_H - BAR_H, (SDL_Color){ 0, 0, 0, 255 }, 0.16 * a * a);
    }
}

/* Under and over pages of a transition at progress p (0: from, 1: to). */
static void draw_pages(app *ap) {
    const anim *an = &ap->an;
    SDL_Rect clip = { 0, BAR_H, WIN_W, WIN_H - BAR_H };
    SDL_RenderSetClipRect(ap->ren, &clip);
    if (an->kind == ANIM_NONE) {
        draw_page(ap, ap->shown_route, 0);
    } else if (an->kind == ANIM_PUSH) {
        double p = an->p;
        draw_page(ap, an->from_route, -0.3 * WIN_W * p);
        fill_rect(ap, 0, BAR_H, WIN_W, WIN_H - BAR_H, (SDL_Color){ 0, 0, 0, 255 }, 0.25 * p);
        double x = WIN_W * (1 - p);
        edge_shadow(ap, x);
        draw_page(ap, an->to_route, x);
    } else {   /* pop, swipe: the old top slides out to the right */
        double p = an->p;
        draw_page(ap, an->to_route, -0.3 * WIN_W * (1 - p));
        fill_rect(ap, 0, BAR_H, WIN_W, WIN_H - BAR_H, (SDL_Color){ 0, 0, 0, 255 }, 0.25 * (1 - p));
        double x = WIN_W * p;
        edge_shadow(ap, x);
        draw_page(ap, an->from_route, x);
    }
    SDL_RenderSetClipRect(ap->ren, NULL);
}

/* ------------------------------------------------------------------------ */
/* Navigation bar                                                            */
/* ------------------------------------------------------------------------ */

static void draw_back(app *ap, double alpha) {
    if (alpha <= 0) return;
    const button *b = button_for_view(ap, VIEW_BACK);
    if (!b) return;
    if (button_visible_pressed(b))
        fill_round(ap, b->rect.x, b->rect.y, b->rect.w, b->rect.h, 8, (SDL_Color){ 255, 255, 255, 255 }, 0.18 * alpha);
    text(ap, FONT_BOLD, b->label, C_BACK, b->rect.x + 12, b->rect.y + (b->rect.h - text_h(ap, FONT_BOLD)) / 2.0, LEFT,
         alpha);
}

static void draw_bar(app *ap) {
    const anim *an = &ap->an;
    fill_rect(ap, 0, 0, WIN_W, BAR_H, C_BAR, 1.0);
    fill_rect(ap, 0, BAR_H - 1, WIN_W, 1, C_BAR_LINE, 1.0);
    double ty = (BAR_H - text_h(ap, FONT_TITLE)) / 2.0;
    if (an->kind == ANIM_NONE) {
        text(ap, FONT_TITLE, route_title(ap->shown_route), C_WHITE, WIN_W / 2.0, ty, CENTER, 1.0);
        draw_back(ap, ap->shown_depth > 1 ? 1.0 : 0.0);
    } else {
        /* Title cross-fade: the old title leaves and is gone by 60 %, the
         * new one arrives from 40 %, so the two never read as one word. */
        double p = an->p, dir = an->kind == ANIM_PUSH ? 1.0 : -1.0;
        double out = 1.0 - p / 0.6, in = (p - 0.4) / 0.6;
        text(ap, FONT_TITLE, route_title(an->from_route), C_WHITE, WIN_W / 2.0 - dir * 120 * p, ty, CENTER, out);
        text(ap, FONT_TITLE, route_title(an->to_route), C_WHITE, WIN_W / 2.0 + dir * 120 * (1 - p), ty, CENTER, in);
        bool from_back = an->from_depth > 1, to_back = an->to_depth > 1;
        draw_back(ap, from_back && to_back ? 1.0 : from_back ? 1 - p : to_back ? p : 0.0);
    }
    if (ap->unguarded) {
        int w = 0;
        text_entry *e = text_get(ap, FONT_BADGE, "UNGUARDED", C_WHITE);
        if (e) w = e->w;
        fill_round(ap, WIN_W - 24 - w - 16, 16, w + 16, 28, 6, C_RED, 1.0);
        text(ap, FONT_BADGE, "UNGUARDED", C_WHITE, WIN_W - 32, 16 + (28 - text_h(ap, FONT_BADGE)) / 2.0, RIGHT, 1.0);
    } else {
        char s[64];
        snprintf(s, sizeof s, "NavGuard: %zu guards  \xC2\xB7  F1", ap->guard_count);
        text(ap, FONT_SMALL, s, C_MUTED, WIN_W - 16, (BAR_H - text_h(ap, FONT_SMALL)) / 2.0, RIGHT, 1.0);
    }
}

/* ------------------------------------------------------------------------ */
/* The question's dialog                                                     */
/* ------------------------------------------------------------------------ */

/* Why the kiosk is asking, from what it was submitting when NavGuard asked. */
static const char *dialog_reason(const app *ap, char *buf, size_t cap) {
    const dialog *d = &ap->q;
    switch (d->source) {
    case VIEW_BACK: return "You pressed Back.";
    case SRC_BACK_KEY: return "You pressed the Back key.";
    case SRC_SWIPE: return "You swiped back.";
    case SRC_IDLE:
        snprintf(buf, cap, "Nobody has touched the kiosk for %g s.", ap->idle_ms / 1000.0);
        return buf;
    default:
        snprintf(buf, cap, "A %s would leave this screen.", ng_request_kind_name(d->kind));
        return buf;
    }
}

/* Modal: the whole window dimmed under a card with the question, why it is
 * asked, what no answer does, and Yes / No drawn like the other buttons. */
static void draw_dialog(app *ap) {
    const dialog *d = &ap->q;
    fill_rect(ap, 0, 0, WIN_W, WIN_H, (SDL_Color){ 0, 0, 0, 255 }, 0.45);
    double x = d->card.x, y = d->card.y, w = d->card.w, h = d->card.h;
    fill_round(ap, x, y + 6, w, h, 16, (SDL_Color){ 0, 0, 0, 255 }, 0.25);
    /* the card in the asked screen's colour, white below an 8 px top edge */
    fill_round(ap, x, y, w, h, 16, d->route >= 0 && d->route < R_COUNT ? ROUTE_COLORS[d->route] : C_SLATE, 1.0);
    fill_rect(ap, x, y + 8, w, h - 8 - 16, C_WHITE, 1.0);
    fill_round(ap, x, y + h - 32, w, 32, 16, C_WHITE, 1.0);
    text(ap, FONT_TITLE, d->text, C_TEXT, x + 24, y + 26, LEFT, 1.0);
    char why[96];
    text(ap, FONT_REGULAR, dialog_reason(ap, why, sizeof why), C_TEXT, x + 24, y + 66, LEFT, 1.0);
    if (d->route == R_CHECKOUT) text(ap, FONT_REGULAR, "Your order is not paid yet.", C_TEXT2, x + 24, y + 92, LEFT, 1.0);
    if (d->timeout_ms >= 0) {
        char t[96];
        snprintf(t, sizeof t, "No answer in %lld s: you stay.", (long long)((d->timeout_ms + 500) / 1000));
        text(ap, FONT_SMALL, t, C_MUTED, x + 24, y + 122, LEFT, 1.0);
    }
    for (int i = 0; i < ap->nbuttons; i++)
        if (ap->buttons[i].route == ROUTE_DIALOG) draw_button(ap, &ap->buttons[i], 0);
}

/* ------------------------------------------------------------------------ */
/* Overlay (F1)                                                              */
/* ------------------------------------------------------------------------ */

#define PANEL_X 400
#define PANEL_Y 68
#define PANEL_W 392
#define PANEL_H 524

static const char *swipe_name(ng_swipe_state s) { return s == NG_SWIPE_NONE ? "" : ng_swipe_state_name(s); }

static void mask_text(uint32_t mask, char *buf, size_t cap) {
    buf[0] = '\0';
    size_t used = 0;
    for (int i = 0; i < NG_EVENT_TYPE_COUNT; i++)
        if (mask & NG_MASK(i)) {
            int w = snprintf(buf + used, cap - used, "%s%s", used ? "+" : "", ng_event_type_name(i));
            if (w < 0 || (size_t)w >= cap - used) break;
            used += (size_t)w;
        }
    if (!used) snprintf(buf, cap, "nothing");
}

/* dry: measure only. lines: also keep each line drawn (the screenshot's
 * log line lists the panel's text, so a test reads what it says). */
#define OVERLAY_LINES 64
typedef struct {
    app *ap;
    double y;
    bool dry;
    char (*lines)[320];
    int nlines;
} pen;

/* One line of the panel; a line too wide is wrapped at a space, the rest
 * indented under its start. */
static void line(pen *p, int font, SDL_Color c, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static void line(pen *p, int font, SDL_Color c, const char *fmt, ...) {
    char s[320];
    va_list va;
    va_start(va, fmt);
    vsnprintf(s, sizeof s, fmt, va);
    va_end(va);
    const int max_w = PANEL_W - 24;
    int indent = (int)strspn(s, " ") + 2;
    if (indent > 40) indent = 40;
    char *rest = s;
    for (int part = 0; *rest && part < 3; part++) {
        if (p->y + 15 > PANEL_Y + PANEL_H - 26) return;
        if (part == 0 && p->lines && p->nlines < OVERLAY_LINES)
            snprintf(p->lines[p->nlines++], sizeof p->lines[0], "%s", s);
        char piece[320];
        size_t pad = part ? (size_t)indent : 0, len = strlen(rest);
        if (pad + len >= sizeof piece) len = sizeof piece - 1 - pad;
        memset(piece, ' ', pad);
        memcpy(piece + pad, rest, len);
        piece[pad + len] = '\0';
        size_t cut = strlen(piece);
        int w = 0;
        while (cut > 0) {
            char save = piece[cut];
            piece[cut] = '\0';
            TTF_SizeUTF8(p->ap->font[font], piece, &w, NULL);
            piece[cut] = save;
            if (w <= max_w) break;
            do cut--; while (cut > (size_t)indent && piece[cut] != ' ');
            if (cut <= (size_t)indent) { cut = strlen(piece); break; }   /* no space: clip */
        }
        size_t used = cut - (part ? (size_t)indent : 0);
        piece[cut] = '\0';
        if (!p->dry) text(p->ap, font, piece, c, PANEL_X + 12, p->y, LEFT, 1.0);
        p->y += 16;
        rest += used;
        while (*rest == ' ') rest++;
    }
}

static void heading(pen *p, const char *s) {
    p->y += 5;
    line(p, FONT_MONO_BOLD, C_HEAD, "%s", s);
}

static void overlay_lines(pen *pp) {
    app *ap = pp->ap;
    pen p = *pp;
    line(&p, FONT_MONO_BOLD, C_WHITE, "NavGuard %s  \xC2\xB7  %s", ng_version_string(),
         ap->unguarded ? "UNGUARDED (empty chain)" : "default chain");
    if (ap->last_fps_what)
        line(&p, FONT_MONO, C_MONO2, "last animation (%s): %.0f fps", ap->last_fps_what, ap->last_fps);

    heading(&p, "STACK (bottom first)");
    {
        char s[256] = "";
        size_t n = 0, used = 0;
        ng_stack_count(ap->ctx, &n);
        for (size_t i = 0; i < n; i++) {
            ng_screen_info si = NG_SCREEN_INFO_INIT;
            if (ng_stack_get(ap->ctx, i, &si) != NG_OK) continue;
            int w = snprintf(s + used, sizeof s - used, "%s%s", i ? " \xE2\x80\xBA " : "", si.route);
            if (w < 0 || (size_t)w >= sizeof s - used) break;
            used += (size_t)w;
        }
        /* A swipe back pops when it begins, and rolls back if it is
         * cancelled: until it completes, the screen being swiped is still
         * the one on display, and the pop only a prospect. */
        ng_track_info st = NG_TRACK_INFO_INIT;
        const anim *an = &ap->an;
        bool swiping = ng_track_get(ap->ctx, NG_TRACK_SCREEN, &st) == NG_OK && st.swipe != NG_SWIPE_NONE &&
                       an->kind == ANIM_SWIPE && an->request_id == st.request_id && an->from_route >= 0;
        if (swiping) snprintf(s + used, sizeof s - used, "%s%s", n ? " \xE2\x80\xBA " : "", route_name(an->from_route));
        line(&p, FONT_MONO, C_MONO, "  %s", s);
        if (swiping) {
            const char *to = route_name(an->to_route);
            if (st.swipe == NG_SWIPE_FINISHING)
                line(&p, FONT_MONO, C_MONO2, "  swipe back finishing: %s when it settles", to);
            else if (st.swipe == NG_SWIPE_CANCELLING)
                line(&p, FONT_MONO, C_MONO2, "  swipe back rolling back: stays on %s", route_name(an->from_route));
            else
                line(&p, FONT_MONO, C_MONO2, "  swipe back undecided: %s if it finishes", to);
        }
    }

    heading(&p, "TRACKS IN FLIGHT");
    bool any = false;
    for (ng_track t = NG_TRACK_SCREEN; t <= NG_TRACK_BAR; t++) {
        ng_track_info ti = NG_TRACK_INFO_INIT;
        if (ng_track_get(ap->ctx, t, &ti) != NG_OK) continue;
        any = true;
        if (ti.swipe != NG_SWIPE_NONE)
            line(&p, FONT_MONO, C_MONO, "  %-6s %s %s  %s  p=%.2f", ng_track_name(t),
                 request_label(ti.request_id), ng_request_kind_name(ti.kind), swipe_name(ti.swipe), ti.progress);
        else
            line(&p, FONT_MONO, C_MONO, "  %-6s %s %s%s", ng_track_name(t),
                 request_label(ti.request_id), ng_request_kind_name(ti.kind), (ti.flags & NG_TRANSF_ANIMATED) ? "  animated" : "");
    }
    if (!any) line(&p, FONT_MONO, C_MONO2, "  none");

    uint32_t mask = 0;
    size_t holds = 0;
    ng_hold_state(ap->ctx, &mask, &holds);
    char mt[64];
    mask_text(mask, mt, sizeof mt);
    char hh[96];
    snprintf(hh, sizeof hh, "HOLDS (%zu, blocking %s)", holds, mt);
    heading(&p, hh);
    for (size_t i = 0; i < holds; i++) {
        ng_hold_view hv = NG_HOLD_VIEW_INIT;
        if (ng_hold_get(ap->ctx, i, &hv) != NG_OK) continue;
        mask_text(hv.mask, mt, sizeof mt);
        line(&p, FONT_MONO, C_MONO, "  #%" PRIu64 " \"%s\"  %s", hv.token, hv.label ? hv.label : "", mt);
    }
    if (holds == 0) line(&p, FONT_MONO, C_MONO2, "  none");

    ng_question q = NG_QUESTION_INIT;
    if (ng_question_get(ap->ctx, &q) == NG_OK) {
        char qh[96], left[48] = "no time limit";
        if (q.deadline_ns != NG_NO_DEADLINE && ap->q.deadline_ms >= 0)
            snprintf(left, sizeof left, "times out at %.1fs", ap->q.deadline_ms / 1000.0);
        snprintf(qh, sizeof qh, "QUESTION #%" PRIu64 " (open, %s)", q.question_id, left);
        heading(&p, qh);
        line(&p, FONT_MONO, C_MONO, "  \"%s\"  holds %s %s", q.text ? q.text : "", ng_request_kind_name(q.kind),
             request_label(q.request_id));
        line(&p, FONT_MONO, C_MONO2, "  asked by %s", q.guard_id ? q.guard_id : "?");
    }

    /* Requests judged once and still without an outcome: a reply waiting
     * for a swipe to settle, a request a guard holds. */
    if (ap->nwaiting > 0) {
        int judged = 0;
        for (int i = 0; i < ap->nwaiting; i++) judged += ap->waiting[i].judged;
        if (judged > 0) {
            heading(&p, "WAITING (no outcome yet)");
            for (int i = 0; i < ap->nwaiting; i++) {
                const waiting_req *w = &ap->waiting[i];
                if (!w->judged) continue;
                char scope[48] = "";
                if (w->screen) snprintf(scope, sizeof scope, " for %s", route_name(route_of_id(ap, w->screen)));
                line(&p, FONT_MONO, C_MONO, "  %s %s%s  since %.1fs", ng_request_kind_name(w->kind),
                     request_label(w->id), scope, w->since_ms / 1000.0);
            }
        }
    }

    heading(&p, "LAST VERDICTS (dropped, refused, waited)");
    for (int i = 0; i < ap->nverdicts; i++) {
        const verdict_line *v = &ap->verdicts[i];
        SDL_Color c = v->applied ? C_MONO : C_DROP;
        if (v->repeat > 1)
            line(&p, FONT_MONO, c, "  %5.1fs %s \xC3\x97%d", v->t_ms / 1000.0, v->text, v->repeat);
        else
            line(&p, FONT_MONO, c, "  %5.1fs %s", v->t_ms / 1000.0, v->text);
    }
    if (ap->nverdicts == 0) line(&p, FONT_MONO, C_MONO2, "  none yet");

    if (ap->report[0]) {
        char rh[160];
        snprintf(rh, sizeof rh, "REPORT at %.1fs from %s", ap->report_t_ms / 1000.0, ap->report_guard);
        heading(&p, rh);
        const char *s = ap->report;
        for (int i = 0; i < 6 && *s; i++) {
            const char *nl = strchr(s, '\n');
            int len = nl ? (int)(nl - s) : (int)strlen(s);
            line(&p, FONT_MONO, C_MONO, "  %.*s", len > 200 ? 200 : len, s);
            s += len + (nl ? 1 : 0);
        }
    }
    *pp = p;
}

static void draw_overlay(app *ap) {
    /* the hit areas of the buttons registered as views (while the dialog is
     * open, only its own: its scrim covers the others) */
    if (ap->an.kind == ANIM_NONE)
        for (int i = 0; i < ap->nbuttons; i++) {
            const button *b = &ap->buttons[i];
            bool live = ap->q.open ? b->route == ROUTE_DIALOG
                                   : (b->route == -1 && ap->back_view_on) || (b->route >= 0 && b->route == ap->views_route);
            if (live) draw_hit_area(ap, b, 0);
        }
    /* The panel is as tall as its lines, so the pages stay visible below. */
    pen m = { ap, PANEL_Y + 8, true, NULL, 0 };
    overlay_lines(&m);
    double h = m.y - PANEL_Y + 30;
    if (h > PANEL_H) h = PANEL_H;
    fill_round(ap, PANEL_X, PANEL_Y, PANEL_W, h, 10, C_PANEL, 1.0);
    SDL_Rect clip = { PANEL_X, PANEL_Y, PANEL_W - 8, (int)h };
    SDL_RenderSetClipRect(ap->ren, &clip);
    pen p = { ap, PANEL_Y + 8, false, NULL, 0 };
    overlay_lines(&p);
    SDL_RenderSetClipRect(ap->ren, NULL);
    text(ap, FONT_MONO, "F1 closes  \xC2\xB7  F12 screenshot", C_MONO2, PANEL_X + PANEL_W - 12, PANEL_Y + h - 22,
         RIGHT, 1.0);
}

/* ------------------------------------------------------------------------ */
/* Frame, screenshot, setup                                                  */
/* ------------------------------------------------------------------------ */

void ui_draw(app *ap) {
    SDL_SetRenderDrawBlendMode(ap->ren, SDL_BLENDMODE_BLEND);
    SDL_SetRenderDrawColor(ap->ren, C_PAGE.r, C_PAGE.g, C_PAGE.b, 255);
    SDL_RenderClear(ap->ren);
    draw_pages(ap);
    draw_bar(ap);
    if (ap->q.open) draw_dialog(ap);
    if (ap->overlay) draw_overlay(ap);
}

bool ui_screenshot(app *ap, const char *path) {
    int w = 0, h = 0;
    SDL_GetRendererOutputSize(ap->ren, &w, &h);
    SDL_Surface *s = SDL_CreateRGBSurfaceWithFormat(0, w, h, 32, SDL_PIXELFORMAT_ARGB8888);
    bool ok = s && SDL_RenderReadPixels(ap->ren, NULL, SDL_PIXELFORMAT_ARGB8888, s->pixels, s->pitch) == 0;
    if (ok) {
        /* the window has no alpha: make the file opaque for every viewer */
        for (int y = 0; y < h; y++) {
            Uint32 *row = (Uint32 *)((Uint8 *)s->pixels + (size_t)y * (size_t)s->pitch);
            for (int x = 0; x < w; x++) row[x] |= 0xFF000000u;
        }
        ok = SDL_SaveBMP(s, path) == 0;
    }
    if (!ok) fprintf(stderr, "sdl-kiosk: screenshot %s: %s\n", path, SDL_GetError());
    static char lines[OVERLAY_LINES][320];
    const char *texts[OVERLAY_LINES];
    pen m = { ap, PANEL_Y + 8, true, lines, 0 };
    if (ap->overlay) overlay_lines(&m);
    for (int i = 0; i < m.nlines; i++) texts[i] = lines[i];
    klog_begin("screenshot");
    klog_str("file", path);
    klog_bool("ok", ok);
    if (ap->overlay) klog_strlist("overlay", texts, (size_t)m.nlines);
    klog_end();
    SDL_FreeSurface(s);
    return ok;
}

/* The font of --font (or DejaVu Sans); bold and mono faces from its
 * directory when there, else the same file. */
static TTF_Font *open_font(const char *dir, const char *name, const char *fallback, int size) {
    char path[2048];
    TTF_Font *f = NULL;
    if (dir && name) {
        snprintf(path, sizeof path, "%s/%s", dir, name);
        f = TTF_OpenFont(path, size);
    }
    if (!f) f = TTF_OpenFont(fallback, size);
    return f;
}

bool ui_init(app *ap) {
    const char *font = ap->font_path ? ap->font_path : "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf";
    char dir[1024];
    snprintf(dir, sizeof dir, "%s", font);
    char *slash = strrchr(dir, '/');
    if (slash) *slash = '\0';
    else snprintf(dir, sizeof dir, ".");
    bool dejavu = strstr(font, "DejaVuSans.ttf") != NULL;
    const char *bold = dejavu ? "DejaVuSans-Bold.ttf" : NULL;
    const char *mono = dejavu ? "DejaVuSansMono.ttf" : NULL;
    const char *mono_bold = dejavu ? "DejaVuSansMono-Bold.ttf" : NULL;
    ap->font[FONT_REGULAR] = TTF_OpenFont(font, 17);
    if (!ap->font[FONT_REGULAR]) {
        fprintf(stderr, "sdl-kiosk: cannot open the font %s: %s\n"
                        "  (install it: apt-get install -y fonts-dejavu-core, or pass --font FILE.ttf)\n",
                font, TTF_GetError());
        return false;
    }
    ap->font[FONT_BOLD] = open_font(dir, bold, font, 18);
    ap->font[FONT_TITLE] = open_font(dir, bold, font, 22);
    ap->font[FONT_BIG] = open_font(dir, bold, font, 44);
    ap->font[FONT_SMALL] = TTF_OpenFont(font, 13);
    ap->font[FONT_SMALL_BOLD] = open_font(dir, bold, font, 15);
    ap->font[FONT_MONO] = open_font(dir, mono, font, 12);
    ap->font[FONT_MONO_BOLD] = open_font(dir, mono_bold, font, 12);
    ap->font[FONT_BADGE] = open_font(dir, bold, font, 14);
    for (int i = 0; i < FONT_COUNT; i++)
        if (!ap->font[i]) {
            fprintf(stderr, "sdl-kiosk: cannot open a font face: %s\n", TTF_GetError());
            return false;
        }
    ap->texts = calloc(1, sizeof *ap->texts);
    return ap->texts != NULL;
}

void ui_shutdown(app *ap) {
    if (ap->texts)
        for (int i = 0; i < TEXT_CACHE; i++) {
            if (ap->texts->e[i].tex) SDL_DestroyTexture(ap->texts->e[i].tex);
            free(ap->texts->e[i].s);
        }
    free(ap->texts);
    ap->texts = NULL;
    for (int i = 0; i < FONT_COUNT; i++)
        if (ap->font[i]) TTF_CloseFont(ap->font[i]);
}
