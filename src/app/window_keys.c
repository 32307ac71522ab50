// The window's keys: one table that the key handling, the help box, `springbox --keys` and
// docs/window.md all read, and which keys the window keeps from a scene.
#include "window_internal.h"
#include "window_draw.h"
#include "window_input.h"
#include "window_keys.h"
#include "window_sides.h"
#include "window_sketch.h"
#include "window_time.h"

#include <stdio.h>

/// When the window keeps a key from the scene: a scene's keypressed hears every other key first
/// and can claim it. The time keys stay the window's while the run is paused or rewound, so a
/// scene that takes space or R never keeps the designer there.
typedef enum key_owner { KEY_SCENE_FIRST, KEY_WINDOW_WHEN_STOPPED, KEY_WINDOW } key_owner;

typedef void (*key_action)(app *a, SDL_Keysym key, SDL_Renderer *r);

/// One of the window's inputs: the keys key..last (0: an input that is not a key, listed for
/// the help), another key that does the same, the modifier it needs, who hears it first, what it
/// does, and how the help and the manual name it.
typedef struct window_key {
    SDL_Keycode key, last, alt;
    Uint16 needs;
    key_owner owner;
    key_action action;
    const char *name, *help;
} window_key;

static void key_quit(app *a, SDL_Keysym k, SDL_Renderer *r)
{
    (void)k, (void)r;
#ifdef __EMSCRIPTEN__ // the page holds the window: it stays, and says how to leave
    add_notice(a, COLOR_DRAG, "Q and Esc close the desktop window; in a browser, close the tab");
#else
    a->running = false;
#endif
}
static void key_pause(app *a, SDL_Keysym k, SDL_Renderer *r) { (void)k, (void)r; pause_toggle(a); }
static void key_step(app *a, SDL_Keysym k, SDL_Renderer *r) { (void)k, (void)r; step_frame(a); }
static void key_restart(app *a, SDL_Keysym k, SDL_Renderer *r) { (void)k, (void)r; restart(a); }
static void key_replay(app *a, SDL_Keysym k, SDL_Renderer *r) { (void)k, (void)r; replay_run(a); }
static void key_undo(app *a, SDL_Keysym k, SDL_Renderer *r)
{
    (void)r;
    if (!sketch_undo(a, (k.mod & KMOD_SHIFT) != 0))
        revision_go(a, k.mod & KMOD_SHIFT ? a->revision_at + 1 : a->revision_at - 1);
}
static void key_redo(app *a, SDL_Keysym k, SDL_Renderer *r)
{
    (void)k, (void)r;
    if (!sketch_undo(a, true))
        revision_go(a, a->revision_at + 1);
}
static void key_sketch(app *a, SDL_Keysym k, SDL_Renderer *r) { (void)k, (void)r; sketch_toggle(a); }
static void key_sketch_tool(app *a, SDL_Keysym k, SDL_Renderer *r)
{
    (void)r;
    sketch_next_tool(a, (k.mod & KMOD_SHIFT) ? -1 : 1);
}
static void key_back(app *a, SDL_Keysym k, SDL_Renderer *r) { (void)r; rewind_step(a, k.mod & KMOD_SHIFT ? -60 : -1); }
static void key_forward(app *a, SDL_Keysym k, SDL_Renderer *r) { (void)r; rewind_step(a, k.mod & KMOD_SHIFT ? 60 : 1); }
static void key_compare(app *a, SDL_Keysym k, SDL_Renderer *r) { (void)k, (void)r; toggle_compare(a); }
static void key_fit(app *a, SDL_Keysym k, SDL_Renderer *r)
{
    (void)k, (void)r;
    fit_view(a);
    a->view_moved = false;
}
static void key_help(app *a, SDL_Keysym k, SDL_Renderer *r) { (void)k, (void)r; a->help = !a->help && !a->clean; }
static void key_clean(app *a, SDL_Keysym k, SDL_Renderer *r) { (void)k, (void)r; toggle_clean(a); }
static void key_screenshot(app *a, SDL_Keysym k, SDL_Renderer *r) { (void)k, (void)r; a->screenshot_asked = true; }
static void key_gif(app *a, SDL_Keysym k, SDL_Renderer *r) { (void)k, (void)r; save_gif(a); }
static void key_write(app *a, SDL_Keysym k, SDL_Renderer *r) { (void)k, (void)r; write_back(a); }
static void key_tethers(app *a, SDL_Keysym k, SDL_Renderer *r) { (void)k, (void)r; toggle_tethers(a); }
static void key_iterations(app *a, SDL_Keysym k, SDL_Renderer *r) { (void)r; change_solver(a, k.sym == SDLK_UP ? 1 : -1, 0); }
static void key_substeps(app *a, SDL_Keysym k, SDL_Renderer *r) { (void)r; change_solver(a, 0, k.sym == SDLK_RIGHT ? 1 : -1); }
static void key_method(app *a, SDL_Keysym k, SDL_Renderer *r)
{
    (void)r;
    set_method(a, (k.mod & KMOD_SHIFT) && a->compare ? 1 : 0, (sb_method)(k.sym - SDLK_1));
}

static const window_key window_keys[] = {
    {0, 0, 0, 0, KEY_SCENE_FIRST, NULL, "left drag", "grab a particle (its twin too in compare view); let go keeps its velocity"},
    {0, 0, 0, 0, KEY_SCENE_FIRST, NULL, "left click", "a spring: asked vs delivered; empty space closes it"},
    {0, 0, 0, 0, KEY_SCENE_FIRST, NULL, "right/middle drag, wheel", "pan, zoom at the cursor"},
    {SDLK_f, 0, 0, 0, KEY_SCENE_FIRST, key_fit, "F", "fit the scene in the view"},
    {SDLK_SPACE, 0, 0, 0, KEY_WINDOW_WHEN_STOPPED, key_pause, "space", "pause / resume (rewound: run on from the moment shown)"},
    {SDLK_PAUSE, 0, 0, 0, KEY_WINDOW, key_pause, "ctrl+space, Pause",
     "pause / resume, even where the scene takes space (no scene hears these)"},
    {SDLK_n, 0, SDLK_PERIOD, 0, KEY_WINDOW_WHEN_STOPPED, key_step, "N", "one frame while paused; rewound, one kept moment on"},
    {SDLK_r, 0, 0, 0, KEY_WINDOW_WHEN_STOPPED, key_restart, "R", "restart the scene from its file (and run)"},
    {SDLK_1, SDLK_1 + SB_METHOD_COUNT - 1, 0, 0, KEY_SCENE_FIRST, key_method, NULL, NULL}, // named from the methods' table
    {SDLK_UP, 0, SDLK_DOWN, 0, KEY_SCENE_FIRST, key_iterations, "up / down", "iterations + / -"},
    {SDLK_LEFT, 0, SDLK_RIGHT, 0, KEY_SCENE_FIRST, key_substeps, "left / right", "sub-steps - / +"},
    {SDLK_t, 0, 0, 0, KEY_SCENE_FIRST, key_tethers, "T", "tethers on / off (rigid chains held to their fixed particles)"},
    {SDLK_c, 0, 0, 0, KEY_SCENE_FIRST, key_compare, "C, shift+1 .. 6",
     "compare view: the same scene in two methods, in lockstep, the right side impulse (soft when the left is "
     "impulse: the article's naive spring against Catto's); shift+1 .. 6 the right side's method"},
    {SDLK_w, 0, 0, 0, KEY_SCENE_FIRST, key_write, "W", "write the slider values back into the scene file"},
    {SDLK_z, 0, 0, KMOD_CTRL, KEY_SCENE_FIRST, key_undo, "Ctrl+Z, Ctrl+Y",
     "the tuning before / after: each save and slider release is a revision"},
    {SDLK_y, 0, 0, KMOD_CTRL, KEY_SCENE_FIRST, key_redo, NULL, NULL},
    {SDLK_LEFTBRACKET, 0, 0, 0, KEY_WINDOW_WHEN_STOPPED, key_back, "[ ]",
     "back / forward one kept moment (shift: 1 s); drag the timeline to scrub"},
    {SDLK_RIGHTBRACKET, 0, 0, 0, KEY_WINDOW_WHEN_STOPPED, key_forward, NULL, NULL},
    {SDLK_F5, 0, 0, 0, KEY_WINDOW_WHEN_STOPPED, key_replay, "F5",
     "replay: the run again from the start, under the tuning of now, with the same hands"},
    {SDLK_p, 0, 0, 0, KEY_SCENE_FIRST, key_screenshot, "P", "screenshot to springbox-NNNN.png"},
    {SDLK_g, 0, 0, 0, KEY_SCENE_FIRST, key_gif, "G", "the last 8 seconds as an animated GIF, springbox-NNNN.gif"},
    {SDLK_v, 0, 0, 0, KEY_SCENE_FIRST, key_clean, "V", "clean view: the scene alone, for screenshots and GIFs (V again: back)"},
    {SDLK_d, 0, 0, 0, KEY_SCENE_FIRST, key_sketch, "D",
     "draw mode: click a particle (shift: fixed), drag a spring between two, stroke a ground line; each a line in the scene file, Ctrl+Z takes it back"},
    {SDLK_TAB, 0, 0, 0, KEY_SCENE_FIRST, key_sketch_tool, "Tab",
     "draw mode's next tool (shift: the one before): draw; rope, a stroke of beads (shift: pinned); jelly box, corner to corner; ball, centre to radius"},
    {SDLK_h, 0, SDLK_F1, 0, KEY_SCENE_FIRST, key_help, "H", "this help"},
    {SDLK_q, 0, SDLK_ESCAPE, 0, KEY_SCENE_FIRST, key_quit, "Q / Esc", "quit"},
};
enum { WINDOW_KEY_COUNT = sizeof window_keys / sizeof window_keys[0] };
_Static_assert((int)WINDOW_KEY_COUNT <= (int)MAX_HELP_LINES, "the help box has a line for each of the window's keys");

/// The entry for this key press, or NULL.
static const window_key *key_entry(SDL_Keysym k)
{
    if (k.sym == SDLK_UNKNOWN)
        return NULL; // (an entry without a second key has alt 0: it is no key)
    for (int i = 0; i < WINDOW_KEY_COUNT; ++i) {
        const window_key *e = &window_keys[i];
        const bool in = e->key != 0 && (k.sym == e->key || k.sym == e->alt ||
                                         (e->last != 0 && k.sym >= e->key && k.sym <= e->last));
        if (in && (!e->needs || (k.mod & e->needs)))
            return e;
    }
    return NULL;
}

bool window_keys_press(app *a, SDL_Keysym key, SDL_Renderer *r)
{
    const window_key *e = key_entry(key); // ctrl+space is space's entry: pause / resume
    if (!e || !e->action)
        return false;
    e->action(a, key, r);
    return true;
}

/// Whether the window keeps this key from the scene (window_keys: ctrl+space and Pause always,
/// the time keys while the run is paused or rewound).
bool window_keys_owned(const app *a, SDL_Keysym key)
{
    if (key.sym == SDLK_SPACE && (key.mod & KMOD_CTRL))
        return true; // ctrl+space: the window's at any time
    const window_key *e = key_entry(key);
    return e && (e->owner == KEY_WINDOW || (e->owner == KEY_WINDOW_WHEN_STOPPED && (a->paused || a->rewinding)));
}

/// How the help names entry e (the methods' keys from the methods' own table), or false for an
/// entry that shares the line before it.
static bool key_text(const window_key *e, const char **name, const char **help)
{
    static char method_keys[16], methods[160];
    if (e->action == key_method) {
        snprintf(method_keys, sizeof method_keys, "1 .. %d", SB_METHOD_COUNT);
        int used = snprintf(methods, sizeof methods, "method:");
        for (int m = 0; m < SB_METHOD_COUNT && used < (int)sizeof methods; ++m)
            used += snprintf(methods + used, sizeof methods - (size_t)used, " %s", sb_method_name((sb_method)m));
        *name = method_keys;
        *help = methods;
        return true;
    }
    *name = e->name;
    *help = e->help;
    return e->name != NULL;
}

bool window_keys_help(int i, const char **name, const char **help)
{
    int n = -1;
    for (int k = 0; k < WINDOW_KEY_COUNT; ++k)
        if (key_text(&window_keys[k], name, help) && ++n == i)
            return true;
    if (++n != i)
        return false;
    *name = "a save";
    *help = "reloads the scene file; the state is kept if only tuning changed or things were added after the rest";
    return true;
}

void window_print_keys(FILE *out)
{
    fputs("| input | does |\n|---|---|\n", out);
    const char *name, *help;
    for (int i = 0; window_keys_help(i, &name, &help); ++i)
        fprintf(out, "| %s | %s |\n", name, help);
}
