/* SPDX-License-Identifier: Apache-2.0 */
/*
 * kiosk_host — the smallest host of NavGuard's SDL2 adapter: a context with
 * the default guard chain, one view, SDL events through ng_sdl2_submit and
 * their verdicts. Runs headless (SDL's dummy video driver unless
 * SDL_VIDEODRIVER says otherwise); prints "kiosk_host: ok" and exits 0 when
 * every verdict is the expected one.
 */
#include <navguard_sdl2.h>

#include <stdio.h>

static int failures = 0;

static void submit(ng_sdl2 *a, SDL_Event *ev, const char *what, ng_verdict_kind want) {
    SDL_PushEvent(ev); /* through SDL's queue, as a real event */
    SDL_Event e;
    while (SDL_PollEvent(&e)) {
        ng_sdl2_input in;
        do { /* again while in.more: a focus loss ends each live touch in turn */
            ng_status st = ng_sdl2_submit(a, &e, &in);
            if (st != NG_OK) {
                printf("%s: %s (%s)\n", what, ng_strstatus(st), ng_errmsg(a->ctx));
                failures++;
            } else if (in.mapped) {
                printf("%-22s -> %s", what, in.result.verdict == NG_VERDICT_DELIVER ? "deliver" : "drop");
                if (in.result.verdict == NG_VERDICT_DROP)
                    printf(" (%s%s%s)", ng_reason_name(in.result.reason), in.result.guard_id ? ", " : "",
                           in.result.guard_id ? in.result.guard_id : "");
                if (in.result.target_view) printf(", view %llu", (unsigned long long)in.result.target_view);
                printf("\n");
                if (in.result.verdict != want) failures++;
            }
        } while (in.more);
    }
}

int main(void) {
    SDL_SetHint(SDL_HINT_VIDEODRIVER, "dummy"); /* the environment overrides it */
    if (SDL_Init(SDL_INIT_VIDEO) != 0) {
        fprintf(stderr, "SDL_Init: %s\n", SDL_GetError());
        return 1;
    }
    SDL_Window *win = SDL_CreateWindow("kiosk", 0, 0, 800, 600, 0);
    ng_context *ctx = NULL;
    ng_sdl2 a;
    if (!win || ng_context_create(NULL, &ctx) != NG_OK || ng_chain_configure(ctx, NULL) != NG_OK ||
        ng_sdl2_init(&a, ctx, win) != NG_OK) {
        fprintf(stderr, "setup failed: %s / %s\n", SDL_GetError(), ctx ? ng_errmsg(ctx) : "no context");
        return 1;
    }
    printf("NavGuard %s, SDL2 adapter, default chain loaded from %s\n", ng_version_string(), ng_plugin_dir());

    ng_view button = NG_VIEW_INIT;
    button.id = 7;
    button.frame = (ng_rect){ 100, 100, 200, 80 };
    ng_view_set(ctx, &button);

    SDL_Event ev = { 0 };
    ev.type = SDL_MOUSEBUTTONDOWN;
    ev.button.button = SDL_BUTTON_LEFT;
    ev.button.state = SDL_PRESSED;
    ev.button.x = 150;
    ev.button.y = 120;
    submit(&a, &ev, "mouse down on view 7", NG_VERDICT_DELIVER);
    ev.type = SDL_MOUSEBUTTONUP;
    ev.button.state = SDL_RELEASED;
    submit(&a, &ev, "mouse up", NG_VERDICT_DELIVER);

    ev = (SDL_Event){ 0 };
    ev.type = SDL_KEYDOWN;
    ev.key.keysym.sym = SDLK_ESCAPE;
    submit(&a, &ev, "key down (escape)", NG_VERDICT_DELIVER);

    uint64_t hold = 0;
    ng_hold_begin(ctx, "loading", NG_MASK_TOUCH, 0, &hold);
    ev = (SDL_Event){ 0 };
    ev.type = SDL_MOUSEBUTTONDOWN;
    ev.button.button = SDL_BUTTON_LEFT;
    ev.button.x = 150;
    ev.button.y = 120;
    submit(&a, &ev, "mouse down, held", NG_VERDICT_DROP);
    ng_hold_end(ctx, hold);

    ng_context_destroy(ctx);
    SDL_DestroyWindow(win);
    SDL_Quit();
    if (failures) {
        printf("kiosk_host: %d unexpected verdict(s)\n", failures);
        return 1;
    }
    printf("kiosk_host: ok\n");
    return 0;
}
