// What a person does in the window with the mouse and the panel: the sliders and W's write-back,
// picking, dragging and inspecting, the solver's keys' actions, GIF and screenshots, the compare
// view, and the mouse events (the scene hears them first). It calls window_time.c and
// window_sides.c, never a file above it.
#define _POSIX_C_SOURCE 200809L
#include "window_internal.h"
#include "window_input.h"
#include "window_sides.h"
#include "window_sketch.h"
#include "window_time.h"

// ---------------------------------------------------------------- sliders

// The scene's tunables, then the drag's own frequency and damping ratio.
int sliders(const app *a, slider *out, int max)
{
    sb_tunable all[MAX_SLIDERS];
    int count = sb_scene_tunables(a->sides[0].scene, all, max - 2 < MAX_SLIDERS ? max - 2 : MAX_SLIDERS), n = 0;
    for (int i = 0; i < count; ++i) {
        sb_tunable t = all[i];
        snprintf(out[n].name, sizeof out[n].name, "%s", t.name);
        out[n].value = t.value;
        out[n].min = t.min;
        out[n].max = t.max;
        out[n++].app = false;
    }
    out[n] = (slider){"drag hertz", a->drag_hertz, 0.5, 30.0, true};
    n += 1;
    out[n] = (slider){"drag damping ratio", a->drag_zeta, 0.0, 2.0, true};
    return n + 1;
}

/// The step a slider's value moves by: the smallest of 1, 2 and 5 times a power of ten that is a
/// pixel of its bar or more, so that a pixel off still lands on the round value aimed at (5, not
/// 5.01). The label shows, the scene gets and W writes the value rounded to it, so all three are
/// the same number.
static double slider_step(const slider *s, int bar_width)
{
    const double pixel = (s->max - s->min) / (bar_width > 0 ? bar_width : 1);
    const double decade = pow(10.0, floor(log10(pixel)));
    return pixel <= decade * (1.0 + 1e-9) ? decade : pixel <= 2.0 * decade ? 2.0 * decade : pixel <= 5.0 * decade ? 5.0 * decade : 10.0 * decade;
}

double slider_round(const slider *s, double value, int bar_width)
{
    double step = slider_step(s, bar_width);
    return fmin(fmax(round(value / step) * step, s->min), s->max);
}

int slider_decimals(const slider *s, int bar_width)
{
    int d = -(int)floor(log10(slider_step(s, bar_width)) + 1e-9);
    return d > 0 ? (d < 9 ? d : 9) : 0;
}

enum { SLIDER_PITCH = 46 }; // pixels from one slider to the next

SDL_Rect slider_rect(const app *a, int i)
{
    SDL_Rect r = {a->width - PANEL_WIDTH + 12, 40 + i * SLIDER_PITCH + 20 - a->panel_scroll, PANEL_WIDTH - 24, 10};
    return r;
}

SDL_Rect sliders_area(const app *a)
{
    int lh = render_line_height(a->rc, false), top = 34, bottom = timeline_rect(a).y - 3 * lh - 14;
    SDL_Rect r = {a->width - PANEL_WIDTH, top, PANEL_WIDTH, bottom > top ? bottom - top : 0};
    return r;
}

bool slider_shown(const app *a, int i)
{
    SDL_Rect area = sliders_area(a), bar = slider_rect(a, i);
    int lh = render_line_height(a->rc, false);
    return bar.y - lh - 2 >= area.y && bar.y + bar.h + 3 <= area.y + area.h;
}

void sliders_scroll(app *a, int pixels)
{
    slider s[MAX_SLIDERS];
    int n = sliders(a, s, MAX_SLIDERS);
    int most = n * SLIDER_PITCH + 8 - sliders_area(a).h;
    a->panel_scroll += pixels;
    a->panel_scroll = a->panel_scroll > most ? most : a->panel_scroll;
    a->panel_scroll = a->panel_scroll < 0 ? 0 : a->panel_scroll;
}

void slider_set(app *a, int i, double value)
{
    slider s[MAX_SLIDERS];
    int n = sliders(a, s, MAX_SLIDERS);
    if (i < 0 || i >= n)
        return;
    value = slider_round(&s[i], value, slider_rect(a, i).w);
    if (s[i].app) {
        if (strcmp(s[i].name, "drag hertz") == 0)
            a->drag_hertz = value;
        else
            a->drag_zeta = value;
        if (a->dragging) {
            for (int k = 0; k < side_count(a); ++k) {
                sb_world *w = side_world(&a->sides[k], a->drag_world);
                sb_particle_id id;
                sb_vec2 target;
                double hz, zeta;
                if (sb_world_drag_info(w, &id, &target, &hz, &zeta)) {
                    sb_world_drag_begin(w, id, target, a->drag_hertz, a->drag_zeta);
                    if (k == 0)
                        record_drag(a, SB_INPUT_DRAG, target);
                }
            }
        }
        return;
    }
    // A tunable re-runs the scene exactly as a hot reload would: state kept.
    sb_input_event e = {.kind = SB_INPUT_TUNE, .value = value};
    snprintf(e.name, sizeof e.name, "%s", s[i].name);
    record_input(a, e);
    for (int k = 0; k < side_count(a); ++k)
        handle_reload(a, &a->sides[k], sb_scene_set_tunable(a->sides[k].scene, s[i].name, value), "");
}

// W: writes the sliders that moved into the scene's files, each number at its declaration in
// springbox.tune{ name = {value, ...} } and nothing else (sb_scene_write_tunables: byte for
// byte, atomically, only while the file is plain text and what the scene loaded). A slider
// that shows the value written in the file is left as it is written (6 stays 6, not 6.0).
void write_back(app *a)
{
    slider s[MAX_SLIDERS];
    int n = sliders(a, s, MAX_SLIDERS), count = 0;
    static char numbers[MAX_SLIDERS][64];
    const char *names[MAX_SLIDERS], *texts[MAX_SLIDERS];
    char message[1024];
    for (int i = 0; i < n; ++i) {
        double declared;
        if (s[i].app)
            continue;
        int w = slider_rect(a, i).w;
        double shown = slider_round(&s[i], s[i].value, w);
        if (!sb_scene_tunable_declared(a->sides[0].scene, s[i].name, &declared)) {
            add_notice(a, COLOR_ERROR, "W cannot write '%s': it is not written as a number in springbox.tune{ %s = "
                                       "{<number>, min, max} }", s[i].name, s[i].name);
            continue;
        }
        if (shown == declared || s[i].value == declared)
            continue; // not moved
        sb_scene_number_text(numbers[count], sizeof numbers[count], shown, slider_decimals(&s[i], w));
        names[count] = s[i].name;
        texts[count] = numbers[count];
        count += 1;
    }
    if (count == 0) {
        add_notice(a, COLOR_DRAG, "W: no slider has moved from the values in %s", a->opt.scene_path);
        return;
    }
    int written = sb_scene_write_tunables(a->sides[0].scene, count, names, texts, message, sizeof message);
    if (written < 0)
        add_notice(a, COLOR_ERROR, "%s", message);
    else
        add_notice(a, COLOR_DRAG, "wrote %d slider value%s into %s", written, written == 1 ? "" : "s", a->opt.scene_path);
}

// ---------------------------------------------------------------- dragging

static sb_particle_id slot_particle(const sb_world *w, uint32_t index)
{
    sb_particle_id it = sb_null_particle();
    while (sb_world_next_particle(w, &it))
        if (it.index == index)
            return it;
    return sb_null_particle();
}

/// The spring of the left side nearest `at`, within 8 pixels of its segment; *distance how far.
static bool pick_spring(const app *a, sb_vec2 at, int *world, sb_spring_id *id, double *distance)
{
    double best = 8.0 / a->view.scale;
    bool found = false;
    const side *s = &a->sides[0];
    for (int k = 0; k < sb_scene_world_count(s->scene); ++k) {
        const sb_world *w = side_world(s, k);
        sb_spring_id it = sb_null_spring();
        while (sb_world_next_spring(w, &it)) {
            sb_spring_def d;
            sb_particle_def pa, pb;
            if (sb_spring_get(w, it, &d) != SB_OK || d.hidden || sb_particle_get(w, d.a, &pa) != SB_OK ||
                sb_particle_get(w, d.b, &pb) != SB_OK)
                continue;
            double ex = pb.position.x - pa.position.x, ey = pb.position.y - pa.position.y, len2 = ex * ex + ey * ey;
            double t = len2 > 0.0 ? ((at.x - pa.position.x) * ex + (at.y - pa.position.y) * ey) / len2 : 0.0;
            t = t < 0.0 ? 0.0 : t > 1.0 ? 1.0 : t;
            double dist = hypot(pa.position.x + t * ex - at.x, pa.position.y + t * ey - at.y);
            if (dist < best) {
                best = dist;
                *world = k;
                *id = it;
                found = true;
            }
        }
    }
    *distance = best;
    return found;
}

/// The inspected spring's stretch this frame joins its history; it stops when the spring goes.
void inspect_record(app *a)
{
    if (!a->inspecting)
        return;
    const side *s = &a->sides[0];
    if (a->inspect_world >= sb_scene_world_count(s->scene) ||
        !sb_spring_is_valid(side_world(s, a->inspect_world), a->inspect_spring)) {
        a->inspecting = false; // broken, removed, or the scene restarted
        return;
    }
    const sb_world *w = side_world(s, a->inspect_world);
    sb_spring_def d;
    sb_spring_get(w, a->inspect_spring, &d);
    if (a->inspect_count == HISTORY) {
        memmove(a->inspect_stretch, a->inspect_stretch + 1, sizeof a->inspect_stretch[0] * (HISTORY - 1));
        a->inspect_count -= 1;
    }
    double value = sb_spring_length(w, a->inspect_spring) - d.rest_length;
    bool by_stretch;
    if (a->inspect_structure > 0 && sb_structure_coordinate(w, a->inspect_spring, &value, &by_stretch)) {
        // The structure's tuned mode: where it stands along it, less its mean over the last period
        // of the asked mode, twice, so that motion far slower than the mode (a pendulum's pull on
        // its springs at twice its swing, a ball rolling on a bed) is taken out and the mode's
        // own swing stays whole: a mean over a whole period of it is nothing. Nothing is added: a
        // mode that runs slower than asked still shows, at its own frequency.
        if (a->structure_raw_count == HISTORY) {
            for (int k = 0; k < 2; ++k)
                memmove(a->structure_raw[k], a->structure_raw[k] + 1, sizeof a->structure_raw[k][0] * (HISTORY - 1));
            a->structure_raw_count -= 1;
        }
        const int n = ++a->structure_raw_count;
        int period = (int)lround(1.0 / (a->structure_hertz * sb_world_get_def(w).dt));
        period = period < 1 ? 1 : period > n ? n : period;
        for (int k = 0; k < 2; ++k) {
            a->structure_raw[k][n - 1] = value;
            double mean = 0.0;
            for (int i = n - period; i < n; ++i)
                mean += a->structure_raw[k][i] / period;
            value -= mean;
        }
    }
    a->inspect_stretch[a->inspect_count++] = (float)value;
    a->inspect_total += 1;
}

void inspect_pick(app *a)
{
    a->inspect_structure = 0;
    a->structure_raw_count = 0;
    const sb_world *w = side_world(&a->sides[0], a->inspect_world);
    const sb_spring_id *group;
    int n;
    double q;
    if (sb_structure_of(w, a->inspect_spring, &a->structure_hertz, &a->structure_zeta, &group, &n) &&
        sb_structure_coordinate(w, a->inspect_spring, &q, &a->structure_by_stretch))
        a->inspect_structure = n;
}

/// The decay of a release too damped to count swings is fitted every this many samples (a fit
/// takes about a millisecond; sb_measure_release).
enum { INSPECT_FIT_EVERY = 15 };

bool inspect_read(app *a, inspection *in)
{
    if (!a->inspecting || a->inspect_count < 2)
        return false;
    const sb_world *w = side_world(&a->sides[0], a->inspect_world);
    sb_spring_def d;
    if (sb_spring_get(w, a->inspect_spring, &d) != SB_OK)
        return false;
    sb_world_def def = sb_world_get_def(w);
    double h = def.dt / def.substeps, rest, m = sb_spring_reduced_mass(w, a->inspect_spring);
    sb_tuning asked = d.tuning;
    sb_spring_ramp_target(w, a->inspect_spring, &rest, &asked); // a retune asks for its target
    in->rigid = sb_tuning_is_rigid(&asked);
    in->asked_hertz = in->asked_zeta = 0.0;
    if (!in->rigid)
        sb_tuning_hertz_zeta(&asked, m, h, &in->asked_hertz, &in->asked_zeta);
    in->structure = a->inspect_structure;
    in->structure_by_stretch = a->structure_by_stretch;
    if (in->structure > 0) { // what the structure asked, not what its springs take for it
        in->asked_hertz = a->structure_hertz;
        in->asked_zeta = a->structure_zeta;
    }
    int n = a->inspect_count, from = 0;
    double sum = 0.0;
    for (int i = 0; i < n; ++i)
        sum += a->inspect_stretch[i];
    // the swing starts where the stretch was furthest out, at the last frame of that stretch held
    // (a drag holds it there until it lets go)
    double mean_all = sum / n, biggest = -1.0;
    for (int i = 0; i < n; ++i)
        if (fabs(a->inspect_stretch[i] - mean_all) > biggest) {
            biggest = fabs(a->inspect_stretch[i] - mean_all);
            from = i;
        }
    while (from + 1 < n && fabs(a->inspect_stretch[from + 1] - mean_all) >= 0.99 * biggest)
        from += 1;
    sum = 0.0;
    for (int i = from; i < n; ++i)
        sum += a->inspect_stretch[i];
    in->from = from;
    in->offset = sum / (n - from);
    double x[HISTORY];
    for (int i = 0; i < n; ++i) {
        in->motion[i] = (float)(a->inspect_stretch[i] - in->offset);
        x[i] = in->motion[i];
    }
    in->measured = sb_measure_oscillation(x + from, n - from, def.dt);
    in->decay = false;
    if (in->measured.crossings < 3 && !in->rigid && n - from >= 20 && fabs(x[from]) > 1e-6) {
        if (a->inspect_fitted_at < 0 || a->inspect_total - a->inspect_fitted_at >= INSPECT_FIT_EVERY) {
            a->inspect_release = sb_measure_release(x + from, n - from, def.dt);
            a->inspect_fitted_at = a->inspect_total;
        }
        in->released = a->inspect_release;
        in->decay = in->released.fit > 0.98;
    }
    // the asked response from rest at the swing's peak: x0 e^(-zeta w t)(cos wd t + zeta w / wd sin wd t)
    double omega = 6.283185307179586 * in->asked_hertz, zeta = in->asked_zeta, x0 = x[from];
    double wd = omega * sqrt(fmax(1e-12, 1.0 - zeta * zeta));
    for (int i = 0; i < n; ++i) {
        double t = (i - from) * def.dt;
        in->ideal[i] = i < from || in->rigid ? NAN
                                             : (float)(x0 * exp(-zeta * omega * t) * (cos(wd * t) + zeta * omega / wd * sin(wd * t)));
    }
    return true;
}

static void drag_update(app *a, sb_vec2 target, bool begin)
{
    record_drag(a, begin ? SB_INPUT_DRAG : SB_INPUT_DRAG_TO, target);
    for (int i = 0; i < side_count(a); ++i) {
        side *s = &a->sides[i];
        if (a->drag_world >= sb_scene_world_count(s->scene))
            continue;
        sb_world *w = side_world(s, a->drag_world);
        sb_particle_id id = slot_particle(w, a->drag_index);
        if (!id.generation)
            continue;
        if (begin || sb_world_drag_particle(w).generation == 0)
            sb_world_drag_begin(w, id, target, a->drag_hertz, a->drag_zeta);
        else
            sb_world_drag_move(w, target);
    }
}

// Which camera a pixel belongs to: in compare view each half has the shared camera.
static sb_view view_for(const app *a, int x)
{
    sb_view v = a->view;
    if (a->compare) {
        v.rect.w = a->view.rect.w / 2;
        if (x >= v.rect.w)
            v.rect.x = v.rect.w;
    }
    return v;
}

// ---------------------------------------------------------------- the solver, captures and the compare view

void set_method(app *a, int which, sb_method m)
{
    side *s = &a->sides[which];
    s->method_set = true;
    s->method = m;
    apply_overrides(s);
    add_notice(a, COLOR_TEXT, "%smethod: %s", a->compare ? (which ? "right: " : "left: ") : "", sb_method_name(m));
}

// Tethers (src/core/tether.c) on both sides at once, so a designer sees what they hold.
void toggle_tethers(app *a)
{
    bool on = !sb_world_get_def(side_world(&a->sides[0], 0)).tethers;
    for (int i = 0; i < side_count(a); ++i) {
        a->sides[i].tethers = on;
        apply_overrides(&a->sides[i]);
    }
    add_notice(a, COLOR_TEXT, "tethers %s", on ? "on" : "off (rigid chains rely on the solver alone)");
}

void change_solver(app *a, int d_iterations, int d_substeps)
{
    for (int i = 0; i < side_count(a); ++i) {
        side *s = &a->sides[i];
        sb_world_def d = sb_world_get_def(side_world(s, 0));
        if (d_iterations)
            s->iterations = d.iterations + d_iterations < 1 ? 1 : d.iterations + d_iterations > 200 ? 200 : d.iterations + d_iterations;
        if (d_substeps)
            s->substeps = d.substeps + d_substeps < 1 ? 1 : d.substeps + d_substeps > 64 ? 64 : d.substeps + d_substeps;
        apply_overrides(s);
    }
    sb_world_def d = sb_world_get_def(side_world(&a->sides[0], 0));
    add_notice(a, COLOR_TEXT, "iterations %d, sub-steps %d", d.iterations, d.substeps);
}

#ifdef SPRINGBOX_HAVE_GIF
enum { GIF_SECONDS = 8 };

/// Keeps the view as drawn, before it is shown, at most GIF_FPS times a second of the run's time
/// (the first world's), in the ring, remade when the window's size changes.
void capture_gif_frame(app *a, SDL_Renderer *r)
{
    double time = sb_world_get_stats(side_world(&a->sides[0], 0))->time;
    if (a->gif && !gif_ring_wants(a->gif, time))
        return;
    int w, h;
    SDL_GetRendererOutputSize(r, &w, &h);
    if (!a->gif_frame || a->gif_frame->w != w || a->gif_frame->h != h) {
        SDL_FreeSurface(a->gif_frame);
        gif_ring_destroy(a->gif);
        a->gif_frame = SDL_CreateRGBSurfaceWithFormat(0, w, h, 24, SDL_PIXELFORMAT_RGB24);
        a->gif = a->gif_frame ? gif_ring_create(w, h, GIF_SECONDS) : NULL;
    }
    if (a->gif && SDL_RenderReadPixels(r, NULL, SDL_PIXELFORMAT_RGB24, a->gif_frame->pixels, a->gif_frame->pitch) == 0)
        gif_ring_add(a->gif, a->gif_frame, time);
}

void save_gif(app *a)
{
    char path[64], why[256];
    if (!a->gif || gif_ring_frames(a->gif) == 0) {
        add_notice(a, COLOR_ERROR, "GIF: nothing to save yet (the view is kept while the physics runs)");
        return;
    }
    int fd = output_create_numbered("springbox", "gif", path, sizeof path, why, sizeof why);
    if (fd < 0) {
        add_notice(a, COLOR_ERROR, "GIF not saved: %s", why);
    } else if (gif_ring_save(a->gif, fd, why, sizeof why)) {
        add_notice(a, COLOR_DRAG, "GIF: %s (the last %.1f s, %d frames)", path, gif_ring_seconds(a->gif),
                   gif_ring_frames(a->gif));
    } else {
        remove(path); // made by this save, exclusively: nobody else's file
        add_notice(a, COLOR_ERROR, "GIF %s failed: %s", path, why);
    }
}
#else
void save_gif(app *a) { add_notice(a, COLOR_ERROR, "GIF: this springbox was built without giflib (libgif-dev)"); }
#endif

void screenshot(app *a, SDL_Renderer *r)
{
    char path[64], why[256] = "";
    int w, h;
    SDL_GetRendererOutputSize(r, &w, &h);
    SDL_Surface *shot = SDL_CreateRGBSurfaceWithFormat(0, w, h, 24, SDL_PIXELFORMAT_RGB24);
    bool read = shot && SDL_RenderReadPixels(r, NULL, SDL_PIXELFORMAT_RGB24, shot->pixels, shot->pitch) == 0;
    int fd = read ? output_create_numbered("springbox", "png", path, sizeof path, why, sizeof why) : -1;
    if (!read)
        add_notice(a, COLOR_ERROR, "screenshot failed: %s", SDL_GetError());
    else if (fd < 0)
        add_notice(a, COLOR_ERROR, "screenshot not saved: %s", why);
    else if (output_png(shot, fd, why, sizeof why))
        add_notice(a, COLOR_DRAG, "screenshot: %s", path);
    else {
        remove(path); // made by this save, exclusively: nobody else's file
        add_notice(a, COLOR_ERROR, "screenshot %s failed: %s", path, why);
    }
    SDL_FreeSurface(shot);
}

/// Fits `v` to the scene in the part of its rectangle that the HUD leaves clear: below the
/// status lines and above the graphs (the scene's own plots add rows), so no text covers it.
SDL_Rect clear_area(const app *a, SDL_Rect rect)
{
    if (a->clean)
        return rect;
    const int plot_rows = (plot_panels(&a->sides[0]) + 2) / 3, top = 80, bottom = 90 * (1 + plot_rows);
    rect.y += top;
    rect.h -= top + bottom;
    return rect;
}

void fit_clear_of_hud(app *a, sb_view *v)
{
    sb_world *ws[8];
    int n = 0;
    for (int k = 0; k < sb_scene_world_count(a->sides[0].scene) && n < 8; ++k)
        ws[n++] = side_world(&a->sides[0], k);
    a->fitted_rows = (plot_panels(&a->sides[0]) + 2) / 3;
    sb_view inner = *v;
    inner.rect = clear_area(a, v->rect);
    if (inner.rect.h < v->rect.h / 3) { // a small window: the whole rectangle
        view_fit(v, ws, n);
        return;
    }
    view_fit(&inner, ws, n);
    // the same world point at the inner rectangle's centre, as a centre for the whole one
    double inner_mid = inner.rect.y + inner.rect.h / 2.0, mid = v->rect.y + v->rect.h / 2.0;
    v->scale = inner.scale;
    v->cx = inner.cx;
    v->cy = inner.cy + (inner_mid - mid) / inner.scale;
}

void fit_view(app *a)
{
    sb_view v = view_for(a, 0);
    fit_clear_of_hud(a, &v);
    a->view.cx = v.cx;
    a->view.cy = v.cy;
    a->view.scale = v.scale;
}

void toggle_compare(app *a)
{
    if (!a->compare) {
        char error[4096];
        side *s = &a->sides[1];
        memset(s, 0, sizeof *s);
        s->tethers = a->sides[0].tethers; // before it opens: the open applies the overrides
        if (!side_open(a, s, error, sizeof error)) {
            add_notice(a, COLOR_ERROR, "compare view: the scene does not load now");
            return;
        }
        // the right side starts from the left's state, in the method that differs
        for (int k = 0; k < sb_scene_world_count(s->scene) && k < sb_scene_world_count(a->sides[0].scene); ++k)
            sb_world_copy_state(side_world(s, k), side_world(&a->sides[0], k));
        sb_method left = sb_world_get_def(side_world(&a->sides[0], 0)).method;
        s->method_set = true;
        s->method = left == SB_METHOD_IMPULSE ? SB_METHOD_SOFT : SB_METHOD_IMPULSE;
        s->iterations = a->sides[0].iterations;
        s->substeps = a->sides[0].substeps;
        s->tethers = a->sides[0].tethers;
        apply_overrides(s);
        a->compare = true;
        if (!a->opt.view_given)
            fit_view(a);
        add_notice(a, COLOR_TEXT, "compare view: left %s, right %s (shift+1..6 picks the right)", sb_method_name(left),
                   sb_method_name(s->method));
    } else {
        drag_end(a);
        sb_scene_close(a->sides[1].scene);
        a->sides[1].scene = NULL;
        a->compare = false;
        if (!a->opt.view_given)
            fit_view(a);
        add_notice(a, COLOR_TEXT, "compare view off");
    }
}

// ---------------------------------------------------------------- the mouse

/// LÖVE's button numbers: 1 left, 2 right, 3 middle (SDL has middle 2 and right 3).
static int scene_button(Uint8 button)
{
    return button == SDL_BUTTON_RIGHT ? 2 : button == SDL_BUTTON_MIDDLE ? 3 : button;
}

static bool scene_click(app *a, sb_vec2 at, int button, bool pressed)
{
    char error[4096];
    bool claimed = false;
    record_input(a, (sb_input_event){.kind = SB_INPUT_BUTTON, .x = at.x, .y = at.y, .button = button, .pressed = pressed});
    for (int i = 0; i < side_count(a); ++i) {
        claimed = sb_scene_mouse_button(a->sides[i].scene, at.x, at.y, button, pressed, error, sizeof error) || claimed;
        callback_failed(&a->sides[i], error);
    }
    return claimed;
}

static void scene_motion(app *a, int x, int y, int dx, int dy)
{
    char error[4096];
    sb_view v = view_for(a, x);
    sb_vec2 at = view_to_world(&v, x, y);
    record_input(a, (sb_input_event){.kind = SB_INPUT_MOVE, .x = at.x, .y = at.y, .dx = dx / v.scale, .dy = -dy / v.scale});
    for (int i = 0; i < side_count(a); ++i) {
        sb_scene_mouse_move(a->sides[i].scene, at.x, at.y, dx / v.scale, -dy / v.scale, error, sizeof error);
        callback_failed(&a->sides[i], error);
    }
}

static bool scene_wheel(app *a, double dx, double dy)
{
    char error[4096];
    bool claimed = false;
    record_input(a, (sb_input_event){.kind = SB_INPUT_WHEEL, .dx = dx, .dy = dy});
    for (int i = 0; i < side_count(a); ++i) {
        claimed = sb_scene_wheel(a->sides[i].scene, dx, dy, error, sizeof error) || claimed;
        callback_failed(&a->sides[i], error);
    }
    return claimed;
}

void input_view_gesture(app *a, double dx, double dy, double factor, double x, double y)
{
    if (!(isfinite(dx) && isfinite(dy) && isfinite(x) && isfinite(y) && isfinite(factor) && factor > 0.0))
        return;
    factor = factor < 0.2 ? 0.2 : factor > 5.0 ? 5.0 : factor; // one gesture's step, not a leap
    a->view.cx -= dx / a->view.scale;
    a->view.cy += dy / a->view.scale;
    a->camera_zoom *= factor;
    sb_view v = view_for(a, (int)x);
    view_zoom_at(&v, factor, x, y);
    a->view_moved = true;
    a->view.cx = v.cx;
    a->view.cy = v.cy;
    a->view.scale = v.scale;
}

/// A mouse event: the timeline, the sliders, then the scene (its own click first), a drag, a
/// spring to inspect, or the camera.
void input_mouse(app *a, const SDL_Event *e)
{
    switch (e->type) {
    case SDL_MOUSEWHEEL: {
        int x, y;
        SDL_GetMouseState(&x, &y);
        if (over_panel(a, x)) { // the sliders scroll; the scene's view stays
            sliders_scroll(a, -e->wheel.y * SLIDER_PITCH);
            break;
        }
        if (scene_wheel(a, e->wheel.x, e->wheel.y))
            break;
        a->camera_zoom *= pow(1.15, e->wheel.y); // a scene's camera that sets the zoom keeps this share of it
        sb_view v = view_for(a, x);
        view_zoom_at(&v, pow(1.15, e->wheel.y), x, y);
        a->view_moved = true;
        a->view.cx = v.cx;
        a->view.cy = v.cy;
        a->view.scale = v.scale;
        break;
    }
    case SDL_MOUSEBUTTONDOWN: {
        int x = e->button.x, y = e->button.y;
        if (e->button.button == SDL_BUTTON_LEFT) {
            SDL_Rect tl = timeline_rect(a);
            if (!a->clean && moments(a) > 1 && x >= tl.x - 6 && x <= tl.x + tl.w + 6 && y >= tl.y - 8 && y <= tl.y + tl.h + 8) {
                a->scrubbing = true;
                scrub_to(a, x);
                break;
            }
            if (over_panel(a, x)) {
                slider sl[MAX_SLIDERS];
                int n = sliders(a, sl, MAX_SLIDERS);
                for (int i = 0; i < n; ++i) {
                    SDL_Rect bar = slider_rect(a, i);
                    if (slider_shown(a, i) && y >= bar.y - 8 && y <= bar.y + bar.h + 8) {
                        a->drag_slider = i;
                        double v = sl[i].min + (sl[i].max - sl[i].min) * (x - bar.x) / (double)bar.w;
                        if (sl[i].app)
                            slider_set(a, i, v); // the window's own: no reload, so live
                        else
                            a->slider_preview = slider_round(&sl[i], v, bar.w);
                    }
                }
                break;
            }
            sb_view v = view_for(a, x);
            sb_vec2 at = view_to_world(&v, x, y);
            if (a->sketching) { // draw mode: the left button draws, and the scene hears nothing of it
                sketch_press(a, at);
                break;
            }
            a->claimed_click = scene_click(a, at, scene_button(e->button.button), true);
            if (a->claimed_click)
                break;
            // a particle under the pointer is dragged; near one but nearer a spring's line (a dense
            // body, a rope of beads), the spring is inspected, paused or not
            int world = 0, drag_world = 0;
            uint32_t drag_index = 0;
            sb_spring_id id = sb_null_spring();
            double particle_gap = INFINITY, spring_distance = INFINITY;
            const bool particle = side_pick(a, at, &drag_world, &drag_index, &particle_gap);
            const bool spring = pick_spring(a, at, &world, &id, &spring_distance);
            if (particle && (!spring || particle_gap == 0.0 || particle_gap <= spring_distance)) {
                a->drag_world = drag_world;
                a->drag_index = drag_index;
                a->dragging = true;
                drag_update(a, at, true);
            } else { // a spring shows what it asks and what it does; empty space puts that away
                a->inspecting = spring;
                if (a->inspecting && (world != a->inspect_world || id.index != a->inspect_spring.index ||
                                      id.generation != a->inspect_spring.generation)) {
                    a->inspect_world = world;
                    a->inspect_spring = id;
                    a->inspect_count = 0;
                    a->inspect_total = 0;
                    a->inspect_fitted_at = -1;
                    inspect_pick(a);
                }
            }
        } else if (!over_panel(a, x)) {
            sb_view v = view_for(a, x);
            a->claimed_click = scene_click(a, view_to_world(&v, x, y), scene_button(e->button.button), true);
            if (a->claimed_click)
                break;
            a->panning = true;
            a->view_moved = true;
            a->pan_x = x;
            a->pan_y = y;
        }
        break;
    }
    case SDL_MOUSEMOTION: {
        int x = e->motion.x, y = e->motion.y;
        if (a->scrubbing) {
            scrub_to(a, x);
            break;
        }
        if (a->sketch_down) {
            sb_view v = view_for(a, x);
            sketch_move(a, view_to_world(&v, x, y));
            break;
        }
        if (!over_panel(a, x) && a->drag_slider < 0)
            scene_motion(a, x, y, e->motion.xrel, e->motion.yrel);
        if (a->drag_slider >= 0) {
            slider sl[MAX_SLIDERS];
            int n = sliders(a, sl, MAX_SLIDERS);
            int i = a->drag_slider;
            if (i < n) {
                SDL_Rect bar = slider_rect(a, i);
                double v = sl[i].min + (sl[i].max - sl[i].min) * (x - bar.x) / (double)bar.w;
                if (sl[i].app)
                    slider_set(a, i, v);
                else
                    a->slider_preview = slider_round(&sl[i], v, bar.w); // one reload, on release
            }
        } else if (a->dragging) {
            sb_view v = view_for(a, x);
            drag_update(a, view_to_world(&v, x, y), false);
        } else if (a->panning) {
            a->view.cx -= (x - a->pan_x) / a->view.scale;
            a->view.cy += (y - a->pan_y) / a->view.scale;
            a->pan_x = x;
            a->pan_y = y;
        }
        break;
    }
    case SDL_MOUSEBUTTONUP:
        if (a->scrubbing) {
            a->scrubbing = false;
            if (a->rewinding && a->rewind_at >= moments(a) - 1)
                run_on(a); // let go at the timeline's end: the run goes on from now
            break;
        }
        if (a->sketch_down && e->button.button == SDL_BUTTON_LEFT) {
            sb_view v = view_for(a, e->button.x);
            sketch_release(a, view_to_world(&v, e->button.x, e->button.y));
            break;
        }
        if (!over_panel(a, e->button.x) && a->drag_slider < 0) {
            sb_view v = view_for(a, e->button.x);
            scene_click(a, view_to_world(&v, e->button.x, e->button.y), scene_button(e->button.button), false);
        }
        if (e->button.button == SDL_BUTTON_LEFT) {
            if (a->drag_slider >= 0) {
                slider sl[MAX_SLIDERS];
                int n = sliders(a, sl, MAX_SLIDERS), i = a->drag_slider;
                if (i < n && !sl[i].app) {
                    SDL_Rect bar = slider_rect(a, i);
                    slider_set(a, i, sl[i].min + (sl[i].max - sl[i].min) * (e->button.x - bar.x) / (double)bar.w);
                }
                a->drag_slider = -1;
            }
            drag_end(a);
        } else {
            a->panning = false;
        }
        break;
    default: break;
    }
}
