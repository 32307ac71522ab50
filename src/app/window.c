// The sandbox window: physics at a fixed step, drawing at the display rate, grab and drag,
// live tuning sliders, graphs, reload notices and error overlays, a side-by-side compare
// view, and offscreen rendering for screenshots and recordings. This file holds the loop (run by
// the browser's animation frames in the web build), the events, the table of the window's keys
// (window_keys.c), the --stats lines and the offscreen renders. The other files provide the panels and call only downward:
// window_draw.c, then window_input.c, window_time.c and window_sides.c (window_internal.h).
#define _POSIX_C_SOURCE 200809L
#include "window_internal.h"
#include "window_draw.h"
#include "window_input.h"
#include "window_keys.h"
#include "window_sides.h"
#include "window_sketch.h"
#include "window_time.h"

#include <errno.h>

// ---------------------------------------------------------------- the --stats lines

/// The frame's --stats line: the first side's figures, the view and the time machine's state.
static void write_frame_stats(app *a)
{
    FILE *f = a->opt.stats;
    if (!f)
        return;
    side *s = &a->sides[0];
    sb_world *w = side_world(s, 0);
    const sb_stats *st = sb_world_get_stats(w);
    sb_world_def d = sb_world_get_def(w);
    char camera[3][32]; // JSON has no inf or nan: a number, or null
    const double view[3] = {a->view.cx, a->view.cy, a->view.scale};
    for (int k = 0; k < 3; ++k)
        if (isfinite(view[k]))
            snprintf(camera[k], sizeof camera[k], "%.9g", view[k]);
        else
            snprintf(camera[k], sizeof camera[k], "null");
    fprintf(f,
            "{\"frame\":%ld,\"time\":%.6f,\"method\":\"%s\",\"iterations\":%d,\"substeps\":%d,\"tethers\":%s,\"paused\":%s,"
            "\"compare\":%s,\"kinetic\":%.9g,\"potential\":%.9g,\"max_stretch\":%.9g,\"contacts\":%d,"
            "\"step_ms\":%.4f,\"threads\":%d,\"fps\":%.1f,\"halted\":%s,\"particles\":%d,\"springs\":%d,\"clamped_springs\":%d,\"overlapping_pairs\":%d,"
            "\"camera\":[%s,%s,%s],\"view\":[%d,%d,%d,%d],\"rewound\":%s,\"moments\":%d,\"timeline\":[%d,%d,%d,%d],\"inputs\":%d,\"replaying\":%s,\"ghost_frames\":%ld,\"revision\":[%d,%d]",
            a->frame, st->time, sb_method_name(d.method), d.iterations, d.substeps, d.tethers ? "true" : "false",
            a->paused ? "true" : "false",
            a->compare ? "true" : "false", st->kinetic_energy, st->potential_energy, st->max_stretch, st->contacts,
            st->step_ms, st->threads, a->fps, st->halted ? "true" : "false", st->particles, st->springs, st->clamped_springs,
            st->overlapping_pairs, camera[0],
            camera[1], camera[2],
            a->view.rect.x, a->view.rect.y, a->view.rect.w, a->view.rect.h, a->rewinding ? "true" : "false",
            moments(a), timeline_rect(a).x, timeline_rect(a).y, timeline_rect(a).w, timeline_rect(a).h,
            sb_input_log_count(a->input), a->replay && a->replay_next < sb_input_log_count(a->replay) ? "true" : "false",
            a->ghost.frames, a->revision_at + 1, a->revision_count);
    { // the panel: how far its sliders scroll and the first and last shown (1-based, the drag's two last)
        slider sl[MAX_SLIDERS];
        int n = sliders(a, sl, MAX_SLIDERS), first = 0, shown_last = 0;
        for (int i = 0; i < n; ++i)
            if (slider_shown(a, i)) {
                first = first ? first : i + 1;
                shown_last = i + 1;
            }
        fprintf(f, ",\"sliders\":[%d,%d,%d,%d]", n, a->panel_scroll, first, shown_last);
        fprintf(f, ",\"walls_visited\":%ld", a->rc ? render_walls_visited(a->rc) : 0L);
        int shown = 0; // the notices over the scene now
        for (int i = 0; i < MAX_NOTICES; ++i)
            shown += a->notices[i].until > now_seconds();
        fprintf(f, ",\"notices\":%d", shown);
    }
    if (a->compare)
        fprintf(f, ",\"right_method\":\"%s\",\"right_tethers\":%s",
                sb_method_name(sb_world_get_def(side_world(&a->sides[1], 0)).method),
                sb_world_get_def(side_world(&a->sides[1], 0)).tethers ? "true" : "false");
    sb_particle_id id;
    sb_vec2 target;
    double hz, zeta;
    sb_particle_def p;
    if (a->dragging && sb_world_drag_info(side_world(s, a->drag_world), &id, &target, &hz, &zeta) &&
        sb_particle_get(side_world(s, a->drag_world), id, &p) == SB_OK)
        fprintf(f, ",\"drag\":{\"index\":%u,\"x\":%.9g,\"y\":%.9g,\"target\":[%.9g,%.9g]}", id.index + 1,
                p.position.x, p.position.y, target.x, target.y);
    inspection in;
    if (inspect_read(a, &in)) {
        fprintf(f, ",\"inspect\":{\"world\":%d,\"spring\":%u,\"rigid\":%s,\"asked_hertz\":%.6g,"
                   "\"asked_damping_ratio\":%.6g,\"measured_hertz\":%.6g,\"measured_damping_ratio\":%.6g,"
                   "\"read_from\":\"%s\",\"structure\":%d,\"structure_read\":\"%s\"}",
                a->inspect_world + 1, a->inspect_spring.index + 1, in.rigid ? "true" : "false", in.asked_hertz,
                in.asked_zeta, in.decay ? in.released.hertz : in.measured.hertz,
                in.decay ? in.released.zeta : in.measured.zeta, in.decay ? "decay" : "swings", in.structure,
                in.structure == 0 ? "" : in.structure_by_stretch ? "stretch" : "positions");
    }
    fprintf(f, ",\"hash\":\"%016llx\"", (unsigned long long)sb_world_state_hash(w));
    fputs(",\"tunables\":{", f);
    for (int i = 0; i < sb_scene_tunable_count(s->scene); ++i) {
        sb_tunable t = sb_scene_tunable(s->scene, i);
        if (i)
            fputc(',', f);
        sb_json_string(f, t.name);
        fprintf(f, ":%.9g", t.value);
    }
    fputc('}', f);
    sb_scene_write_plots_json(s->scene, f);
    sb_scene_write_worlds_json(s->scene, f);
    fputs("}\n", f);
    fflush(f);
}

// ---------------------------------------------------------------- events

/// SDL's key name in lower case ("left", "space", "a", "return"), as springbox.keyboard reads it.
static void key_name(SDL_Keycode key, char *out, size_t size)
{
    snprintf(out, size, "%s", SDL_GetKeyName(key));
    for (char *c = out; *c; ++c)
        *c = (char)tolower((unsigned char)*c);
}

/// One SDL event: the keys (the scene hears them first), the window's size, and the mouse
/// (input_mouse).
static void on_event(app *a, const SDL_Event *e, SDL_Renderer *r)
{
    switch (e->type) {
    case SDL_QUIT: a->running = false; break;
    case SDL_KEYDOWN: {
        // The scene hears every key first; one its keypressed returns true for is its own, and
        // the window's binding for that key (space, R, arrows...) does not run. Except the
        // window's own: ctrl+space and Pause at any time, and the time keys while the run is
        // paused or rewound, so that a scene claiming space or R never keeps the designer there.
        SDL_Scancode sc = e->key.keysym.scancode;
        if (window_keys_owned(a, e->key.keysym)) {
            a->claimed_key[sc] = false;
            window_keys_press(a, e->key.keysym, r);
            break;
        }
        if (!e->key.repeat) {
            char name[64], error[4096];
            key_name(e->key.keysym.sym, name, sizeof name);
            sb_input_event ev = {.kind = SB_INPUT_KEY, .pressed = true};
            snprintf(ev.name, sizeof ev.name, "%s", name);
            if (e->key.keysym.sym != SDLK_F5) // the replay key starts a replay; it is not part of one
                record_input(a, ev);
            bool claimed = false;
            for (int i = 0; i < side_count(a); ++i) {
                claimed = sb_scene_key(a->sides[i].scene, name, true, error, sizeof error) || claimed;
                callback_failed(&a->sides[i], error);
            }
            a->claimed_key[sc] = claimed;
        }
        if (!a->claimed_key[sc])
            window_keys_press(a, e->key.keysym, r);
        break;
    }
    case SDL_KEYUP: {
        char name[64], error[4096];
        key_name(e->key.keysym.sym, name, sizeof name);
        sb_input_event ev = {.kind = SB_INPUT_KEY, .pressed = false};
        snprintf(ev.name, sizeof ev.name, "%s", name);
        if (e->key.keysym.sym != SDLK_F5)
            record_input(a, ev);
        for (int i = 0; i < side_count(a); ++i) {
            sb_scene_key(a->sides[i].scene, name, false, error, sizeof error);
            callback_failed(&a->sides[i], error);
        }
        a->claimed_key[e->key.keysym.scancode] = false;
        break;
    }
    case SDL_WINDOWEVENT:
        if (e->window.event == SDL_WINDOWEVENT_SIZE_CHANGED) {
            a->width = e->window.data1;
            a->height = e->window.data2;
            a->view.rect.w = scene_view_width(a);
            a->view.rect.h = a->height;
        }
        break;
    case SDL_MOUSEWHEEL:
    case SDL_MOUSEBUTTONDOWN:
    case SDL_MOUSEMOTION:
    case SDL_MOUSEBUTTONUP: input_mouse(a, e); break;
    default: break;
    }
}

// ---------------------------------------------------------------- the loop

static bool app_start(app *a, const window_options *o, char *error, size_t error_size)
{
    memset(a, 0, sizeof *a);
    a->camera_zoom = 1.0;
    a->opt = *o;
    a->drag_hertz = 5.0;
    a->drag_zeta = 0.7;
    a->drag_slider = -1;
    a->running = true;
    const char *name, *help;
    for (int i = 0; a->key_help_count < MAX_HELP_LINES && window_keys_help(i, &name, &help); ++i)
        a->key_help[a->key_help_count++] = (help_line){name, help};
    side *s = &a->sides[0];
    s->method_set = o->method_given;
    s->method = o->method;
    s->substeps = o->substeps;
    s->iterations = o->iterations;
    s->tethers = -1;
    a->sides[1].tethers = -1;
    if (!side_open(a, s, error, error_size))
        return false;
    a->input = sb_input_log_create();
    a->replay = o->replay; // taken over: freed with the app
    a->revisions = calloc(MAX_REVISIONS, sizeof *a->revisions);
    revision_note(a); // the tuning the file starts with
    a->width = o->width;
    a->height = o->height;
    a->view.rect = (SDL_Rect){0, 0, scene_view_width(a), a->height};
    if (o->view_given) {
        a->view.cx = o->view_cx;
        a->view.cy = o->view_cy;
        a->view.scale = o->view_scale;
    } else {
        fit_clear_of_hud(a, &a->view);
    }
    return true;
}

/// Ends the run; false (said on stderr) when the input recording could not be written.
static bool app_stop(app *a)
{
    bool ok = true;
    sketch_free(a);
    if (a->opt.record_input_file && a->input) {
        char why[256];
        ok = sb_input_log_write_file(a->input, a->opt.record_input_file, why, sizeof why);
        if (!ok)
            fprintf(stderr, "springbox: cannot write the input recording '%s' (--record-input): %s\n", a->opt.record_input, why);
    }
    sb_input_log_free(a->input);
    sb_input_log_free(a->replay);
    sb_input_log_free(a->hands_before);
    a->input = a->replay = a->hands_before = NULL;
    trace_free(&a->trace);
    trace_free(&a->ghost);
    revisions_free(a);
    for (int i = 0; i < 2; ++i)
        if (a->sides[i].scene)
            sb_scene_close(a->sides[i].scene);
    return ok;
}

// One physics frame of every side, in lockstep.
/// The replayed events of this frame, done to every side as the window did them, and recorded
/// again (the new run's recording is the old one's hands plus whatever is done live on top).
static void replay_due(app *a)
{
    if (!a->replay)
        return;
    long now = run_frame(a);
    char error[4096];
    const sb_input_event *e;
    while ((e = sb_input_log_event(a->replay, a->replay_next)) != NULL && e->frame <= now) {
        a->replay_next += 1;
        if (a->input)
            sb_input_log_add(a->input, e);
        for (int i = 0; i < side_count(a); ++i) {
            sb_reload_event reload;
            const bool drawn = e->kind == SB_INPUT_SKETCH || e->kind == SB_INPUT_TAKE_BACK;
            error[0] = '\0';
            if (drawn && i > 0) // the file is written once: the other side reloads it
                reload = sb_scene_reload(a->sides[i].scene);
            else
                sb_input_apply(a->sides[i].scene, e, &reload, error, sizeof error);
            if (!drawn)
                callback_failed(&a->sides[i], error);
            else if (error[0]) // draw mode's refusal, not a scene function's
                add_notice(a, COLOR_ERROR, "%s", error);
            handle_reload(a, &a->sides[i], reload, "");
        }
    }
}

static void physics_frame(app *a)
{
    char error[4096];
    replay_due(a);
    for (int i = 0; i < side_count(a); ++i) {
        side *s = &a->sides[i];
        if (!sb_scene_frame(s->scene, error, sizeof error))
            callback_failed(s, error);
        sb_scene_history_record(s->scene);
        record_history(s);
    }
    trace_record(a);
    inspect_record(a);
    // Plots appear once update runs, after the first fit: the view moves clear of their panels
    // (they covered the scene) unless the designer has placed it or the command line did
    if (!a->view_moved && !a->opt.view_given && (plot_panels(&a->sides[0]) + 2) / 3 > a->fitted_rows)
        fit_view(a);
    a->frame += 1;
    write_frame_stats(a);
}

// SDL and the scene: 0, or the exit status with the reason printed if either cannot start (1), or
// if the --stats file the scene has now earned cannot take the place of its target (2).
static int app_open(app *a, const window_options *o, Uint32 sdl_subsystems)
{
#ifdef __EMSCRIPTEN__
    SDL_SetHint(SDL_HINT_EMSCRIPTEN_KEYBOARD_ELEMENT, "#canvas"); // the page's editor keeps its own keys
#endif
    if (sdl_subsystems & SDL_INIT_VIDEO) // SDL takes SIGINT and SIGTERM only from their default action
        output_file_signals_to_default();
    if (SDL_Init(sdl_subsystems) != 0) {
        fprintf(stderr, "springbox: %s (%s)\n",
                sdl_subsystems ? "cannot open a display; try --headless or --screenshot" : "SDL", SDL_GetError());
        return 1;
    }
    // With no display SDL falls back to a video driver without windows ("offscreen"), and the app
    // would run where nobody can see it; only a driver asked for by name is taken as meant.
    const char *driver = SDL_GetCurrentVideoDriver();
    if ((sdl_subsystems & SDL_INIT_VIDEO) && driver && !getenv("SDL_VIDEODRIVER") &&
        (strcmp(driver, "offscreen") == 0 || strcmp(driver, "dummy") == 0)) {
        fprintf(stderr, "springbox: cannot open a display (SDL found only its '%s' driver); try --headless or --screenshot\n",
                driver);
        SDL_Quit();
        return 1;
    }
    char error[4096];
    if (!app_start(a, o, error, sizeof error)) {
        fprintf(stderr, "springbox: %s\n", error);
        SDL_Quit();
        return 1;
    }
    // the scene has loaded: its --stats file replaces the one the designer named
    if (o->stats_out && !output_file_place(o->stats_out, a->sides[0].scene, error, sizeof error)) {
        fprintf(stderr, "springbox: cannot write the stats file '%s' (--stats): %s\n", o->stats_out->path, error);
        app_stop(a);
        SDL_Quit();
        return 2;
    }
    return 0;
}

/// Whether what --stats wrote failed to reach its file (said on stderr): the run then ends at once.
static bool stats_failed(app *a)
{
    if (!a->opt.stats || (fflush(a->opt.stats) == 0 && !ferror(a->opt.stats)))
        return false;
    fprintf(stderr, "springbox: cannot write --stats %s: %s\n", a->opt.stats_path ? a->opt.stats_path : "",
            strerror(errno ? errno : EIO));
    return true;
}

// Tears down in dependency order: textures, renderer, window or surface, scenes, SDL. False
// when the input recording could not be written.
static bool app_close(app *a, SDL_Renderer *r, SDL_Window *win, SDL_Surface *surface)
{
#ifdef SPRINGBOX_HAVE_GIF
    gif_ring_destroy(a->gif);
    SDL_FreeSurface(a->gif_frame);
#endif
    render_destroy(a->rc);
    if (r)
        SDL_DestroyRenderer(r);
    if (win)
        SDL_DestroyWindow(win);
    if (surface)
        SDL_FreeSurface(surface);
    bool ok = app_stop(a);
    TTF_Quit();
    SDL_Quit();
    return ok;
}

/// The window's run between frames: the app, its window and renderer, and the clocks.
typedef struct window_loop {
    app a;
    window_options live;
    SDL_Window *win;
    SDL_Renderer *r;
    int status;
    double last, accumulator, last_poll, fps_time;
    int fps_frames;
} window_loop;

/// 0 when the window runs, or the exit status (the reason printed).
static int loop_open(window_loop *l, const window_options *options)
{
    char error[4096];
    l->live = *options;
    l->live.rewind = true; // a designer at the window can go back; an offscreen render has no one to
    const window_options *o = &l->live;
    app *a = &l->a;
    int status = app_open(a, o, SDL_INIT_VIDEO);
    if (status != 0)
        return status;
    l->win = SDL_CreateWindow("springbox", SDL_WINDOWPOS_CENTERED, SDL_WINDOWPOS_CENTERED, a->width, a->height,
                              SDL_WINDOW_RESIZABLE);
    if (l->win) // the scene keeps a view beside the tuning panel
        SDL_SetWindowMinimumSize(l->win, PANEL_WIDTH + MIN_VIEW_WIDTH, 240);
    l->r = l->win ? SDL_CreateRenderer(l->win, -1, SDL_RENDERER_ACCELERATED | SDL_RENDERER_PRESENTVSYNC) : NULL;
    if (l->win && !l->r) // no GPU: the software renderer
        l->r = SDL_CreateRenderer(l->win, -1, SDL_RENDERER_SOFTWARE);
    a->rc = l->r ? render_create(l->r, error, sizeof error) : NULL;
    if (!a->rc) {
        fprintf(stderr, "springbox: %s\n", l->r ? error : SDL_GetError());
        app_close(a, l->r, l->win, NULL);
        return 1;
    }
    SDL_SetWindowTitle(l->win, sb_scene_title(a->sides[0].scene));
    l->status = 0;
    l->last = l->fps_time = now_seconds();
    l->accumulator = l->last_poll = 0.0;
    l->fps_frames = 0;
    return 0;
}

/// One frame: events, reloads, the physics steps the clock owes, the drawing.
static void loop_frame(window_loop *l)
{
    app *a = &l->a;
    SDL_Renderer *r = l->r;
    SDL_Event e;
    while (SDL_PollEvent(&e))
        on_event(a, &e, r);
    for (int i = 0; i < side_count(a); ++i) { // springbox.paused()
        const int paused = a->paused || a->rewinding ? 2 : 1;
        if (a->sides[i].told_paused != paused)
            sb_scene_set_paused(a->sides[i].scene, paused == 2);
        a->sides[i].told_paused = paused;
    }
    double now = now_seconds();
    if (now - l->last_poll > 0.05) {
        l->last_poll = now;
        for (int i = 0; i < side_count(a); ++i)
            handle_reload(a, &a->sides[i], sb_scene_poll(a->sides[i].scene), a->compare ? (i ? "right: " : "left: ") : "");
    }
    // Physics at its fixed step; if it cannot keep up, drop the backlog and say so.
    double dt = sb_world_get_def(side_world(&a->sides[0], 0)).dt;
    double elapsed = fmin(now - l->last, 0.25);
    l->last = now;
    int steps = 0;
    if (!a->paused) {
        l->accumulator += elapsed;
        double started = now_seconds();
        while (l->accumulator >= dt && steps < 8 && now_seconds() - started < 0.05) {
            physics_frame(a);
            l->accumulator -= dt;
            steps += 1;
        }
        double spent = now_seconds() - started;
        a->physics_share = 0.9 * a->physics_share + 0.1 * (elapsed > 0 ? fmin(spent / elapsed, 1.0) : 0.0);
        if (l->accumulator >= 2.0 * dt) { // could not catch up: drop the backlog, keep drawing
            l->accumulator = fmod(l->accumulator, dt);
            a->behind_until = now + 1.0;
        }
    } else {
        l->accumulator = 0.0;
        if (a->step_once) {
            physics_frame(a);
            a->step_once = false;
        }
        if (a->opt.stats && l->fps_frames % 6 == 0)
            write_frame_stats(a); // paused: time stands still, and the stats say so
    }
    draw(a);
#ifdef SPRINGBOX_HAVE_GIF
    capture_gif_frame(a, r);
#endif
    if (a->screenshot_asked) {
        a->screenshot_asked = false;
        screenshot(a, r);
    }
    SDL_RenderPresent(r);
    // The clean view draws no notices: the window's title says how to leave it, and the newest
    // notice (a GIF or a screenshot saved, a reload)
    char title[600];
    const notice *newest = a->clean && a->notices[0].until > now ? &a->notices[0] : NULL;
    snprintf(title, sizeof title, "%s%s%s%s", sb_scene_title(a->sides[0].scene),
             a->clean ? "  (clean view: V brings the window back)" : "", newest ? "  " : "", newest ? newest->text : "");
    if (strcmp(SDL_GetWindowTitle(l->win), title) != 0) // set_title, the clean view
        SDL_SetWindowTitle(l->win, title);
    l->fps_frames += 1;
    if (now - l->fps_time > 0.5) {
        a->fps = l->fps_frames / (now - l->fps_time);
        l->fps_frames = 0;
        l->fps_time = now;
    }
    if (a->opt.frames > 0 && a->frame >= a->opt.frames)
        a->running = false;
    if (stats_failed(a)) {
        l->status = 2;
        a->running = false;
    }
}

static int loop_close(window_loop *l)
{
    if (!app_close(&l->a, l->r, l->win, NULL))
        l->status = 2;
    return l->status;
}

#ifdef __EMSCRIPTEN__
#include <emscripten.h>
#include <unistd.h>

// In a browser the page owns the loop: the window's frame runs at each animation frame, and
// between frames the page opens other scenes (window_web_open) and reloads (window_web_reload).
static window_loop *web_loop;

/// The running scene replaced by the file at `path`, as if springbox had been started on it; the
/// renderer, the window's size and the GIF ring carry over. False, with the running scene kept,
/// when the new one does not open.
static bool app_replace_scene(app *a, const char *path, char *error, size_t error_size)
{
    app *fresh = malloc(sizeof *fresh);
    window_options o = a->opt;
    o.scene_path = strdup(path); // kept for the page's life: the options point at it
    o.replay = NULL;
    o.width = a->width;
    o.height = a->height;
    if (!fresh || !o.scene_path || !app_start(fresh, &o, error, error_size)) {
        if (!fresh || !o.scene_path)
            snprintf(error, error_size, "out of memory opening %s", path);
        free(fresh);
        return false;
    }
    fresh->rc = a->rc;
#ifdef SPRINGBOX_HAVE_GIF
    fresh->gif = a->gif;
    fresh->gif_frame = a->gif_frame;
    a->gif = NULL;
    a->gif_frame = NULL;
#endif
    app_stop(a);
    *a = *fresh;
    free(fresh);
    return true;
}

static void web_frame(void *arg)
{
    window_loop *l = arg;
    FILE *stats = l->a.opt.stats;
    if (stats && ftell(stats) > 65536) { // the page reads the latest frame: the file keeps the last few
        fflush(stats);
        rewind(stats);
        if (ftruncate(fileno(stats), 0) != 0)
            clearerr(stats);
    }
    loop_frame(l);
    if (!l->a.running) {
        emscripten_cancel_main_loop();
        loop_close(l);
        web_loop = NULL;
    }
}

/// Whether the window runs (its first scene opened).
EMSCRIPTEN_KEEPALIVE int window_web_running(void) { return web_loop != NULL; }

/// Opens the scene file at `path` in place of the running one: "" when it runs, else why not
/// (the running scene stays).
EMSCRIPTEN_KEEPALIVE const char *window_web_open(const char *path)
{
    static char error[4096];
    error[0] = 0;
    if (!web_loop)
        snprintf(error, sizeof error, "springbox is not running");
    else if (!app_replace_scene(&web_loop->a, path, error, sizeof error) && !error[0])
        snprintf(error, sizeof error, "%s does not open", path);
    return error;
}

/// The window's own binding for the key SDL names `name` ("space", "F5", "[", "1"), with the
/// modifiers `mod` (KMOD_*), as if pressed with the run paused: the page's buttons for a touch
/// screen. 1 when the window has such a key.
EMSCRIPTEN_KEEPALIVE int window_web_key(const char *name, int mod)
{
    SDL_Keysym k = {.scancode = SDL_SCANCODE_UNKNOWN, .sym = SDL_GetKeyFromName(name), .mod = (Uint16)mod};
    return web_loop && window_keys_press(&web_loop->a, k, web_loop->r);
}

/// The window resized to w x h pixels, as a desktop window is when dragged: the page's layout
/// gives the canvas its room (a phone turned, a browser window resized).
EMSCRIPTEN_KEEPALIVE void window_web_resize(int w, int h)
{
    if (web_loop && w >= 64 && h >= 64 && w <= 8192 && h <= 8192)
        SDL_SetWindowSize(web_loop->win, w, h);
}

/// The view as JSON: its centre (m), scale (pixels per metre) and the window's size (pixels).
EMSCRIPTEN_KEEPALIVE const char *window_web_view_state(void)
{
    static char json[160];
    if (!web_loop)
        return "null";
    const app *a = &web_loop->a;
    snprintf(json, sizeof json, "{\"cx\":%.9g,\"cy\":%.9g,\"scale\":%.9g,\"width\":%d,\"height\":%d}", a->view.cx,
             a->view.cy, a->view.scale, a->width, a->height);
    return json;
}

/// Two fingers on the window: pan by (dx, dy) and zoom by `factor` at (x, y), window pixels.
EMSCRIPTEN_KEEPALIVE void window_web_view(double dx, double dy, double factor, double x, double y)
{
    if (web_loop)
        input_view_gesture(&web_loop->a, dx, dy, factor, x, y);
}

/// Reloads the running scene's files now, as a save does: the reload's result ("kept",
/// "restarted", "failed" or "none" when nothing changed) and its message, as JSON.
EMSCRIPTEN_KEEPALIVE const char *window_web_reload(void)
{
    static char *json;
    static const char *const results[] = {"none", "kept", "restarted", "failed"};
    if (!web_loop)
        return "{\"result\":\"failed\",\"message\":\"springbox is not running\"}";
    app *a = &web_loop->a;
    sb_reload_event e = sb_scene_reload(a->sides[0].scene);
    handle_reload(a, &a->sides[0], e, "");
    free(json);
    size_t size = 0;
    FILE *f = open_memstream(&json, &size);
    if (!f)
        return "{\"result\":\"failed\",\"message\":\"out of memory\"}";
    fprintf(f, "{\"result\":\"%s\",\"message\":", results[e.result]);
    sb_json_string(f, e.message);
    fputs("}", f);
    fclose(f);
    return json;
}

int window_run(const window_options *options)
{
    static window_loop loop; // lives as long as the page
    int status = loop_open(&loop, options);
    if (status != 0)
        return status;
    web_loop = &loop;
    emscripten_set_main_loop_arg(web_frame, &loop, 0, 1);
    return 0;
}
#else
int window_run(const window_options *options)
{
    window_loop *l = calloc(1, sizeof *l);
    int status = l ? loop_open(l, options) : 1;
    if (status != 0) {
        free(l);
        return status;
    }
    while (l->a.running)
        loop_frame(l);
    status = loop_close(l);
    free(l);
    return status;
}
#endif

// ---------------------------------------------------------------- offscreen

/// One of --record's frames: frame_NNNNN.png in the folder, made beside and renamed over an
/// earlier run's frame as any output is. False, said on stderr, when it cannot be written.
static bool record_frame(SDL_Surface *surface, const char *dir, int frame)
{
    char path[4096], why[512];
    snprintf(path, sizeof path, "%s/frame_%05d.png", dir, frame);
    output_file out;
    bool ok = output_file_open(&out, "--record", path, OUTPUT_PNG, why, sizeof why) &&
              output_png(surface, output_file_release(&out), why, sizeof why) && output_file_place(&out, NULL, why, sizeof why);
    if (!ok)
        fprintf(stderr, "springbox: cannot write %s (--record %s): %s\n", path, dir, why);
    output_file_discard(&out);
    return ok;
}

int window_offscreen(const window_options *o)
{
    app a;
    char error[4096];
    int status = app_open(&a, o, 0);
    if (status != 0)
        return status;
    SDL_Surface *surface = SDL_CreateRGBSurfaceWithFormat(0, a.width, a.height, 32, SDL_PIXELFORMAT_ARGB8888);
    SDL_Renderer *r = surface ? SDL_CreateSoftwareRenderer(surface) : NULL;
    a.rc = r ? render_create(r, error, sizeof error) : NULL;
    if (!a.rc) {
        fprintf(stderr, "springbox: %s\n", r ? error : SDL_GetError());
        app_close(&a, r, NULL, surface);
        return 1;
    }
    char why[512];
#ifdef SPRINGBOX_HAVE_GIF
    gif_writer *gif = NULL;
    if (o->gif_out) {
        gif = gif_writer_open(output_file_release(o->gif_out), a.width, a.height, why, sizeof why);
        if (!gif) {
            fprintf(stderr, "springbox: cannot write the GIF '%s' (--gif): %s\n", o->gif_out->path, why);
            status = 2;
        }
    }
#endif
    for (int f = 0; f <= o->frames && status == 0; ++f) {
        if (f > 0)
            physics_frame(&a);
        if (stats_failed(&a))
            status = 2;
#ifdef SPRINGBOX_HAVE_GIF
        if (gif && f % 2 == 0) { // every second frame: 30 per second
            draw(&a);
            SDL_RenderPresent(r);
            if (!gif_writer_add(gif, surface)) {
                gif_writer_close(gif, why, sizeof why);
                gif = NULL;
                fprintf(stderr, "springbox: cannot write the GIF '%s' (--gif): %s\n", o->gif_out->path, why);
                status = 2;
            }
        }
#endif
        if (status == 0 && (o->record_dir || f == o->frames)) {
            draw(&a);
            SDL_RenderPresent(r);
            // where to write was an argument's: status 2 (1 is for a scene that fails to load)
            if (o->record_dir && !record_frame(surface, o->record_dir, f))
                status = 2;
            output_file *shot = o->screenshot_out;
            if (status == 0 && shot && f == o->frames &&
                !(output_png(surface, output_file_release(shot), why, sizeof why) &&
                  output_file_place(shot, a.sides[0].scene, why, sizeof why))) {
                fprintf(stderr, "springbox: cannot write the screenshot '%s' (--screenshot): %s\n", shot->path, why);
                status = 2;
            }
        }
    }
#ifdef SPRINGBOX_HAVE_GIF
    if (gif) {
        int frames = gif_writer_frames(gif);
        if (!gif_writer_close(gif, why, sizeof why) || (status == 0 && !output_file_place(o->gif_out, a.sides[0].scene, why, sizeof why))) {
            fprintf(stderr, "springbox: cannot write the GIF '%s' (--gif): %s\n", o->gif_out->path, why);
            status = 2;
        } else if (status == 0) {
            printf("springbox: wrote %s: %d frames, %.1f s at %d per second\n", o->gif_out->path, frames,
                   (double)frames / GIF_FPS, GIF_FPS);
        }
    }
#endif
    app_close(&a, r, NULL, surface);
    return status;
}
