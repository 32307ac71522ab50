// What the window draws: the scene with its camera, the HUD and its graphs, overlays, the
// tuning panel's sliders and timeline, the inspector and the help. It reads the other files'
// state and calls window_input.c, window_time.c and window_sides.c, never window.c.
#define _POSIX_C_SOURCE 200809L
#include "window_internal.h"
#include "window_draw.h"
#include "window_input.h"
#include "window_sides.h"
#include "window_sketch.h"
#include "window_time.h"

// ---------------------------------------------------------------- drawing

/// Draws `text` within `width` pixels, breaking lines at spaces (the font is monospace);
/// returns the y below it.
static int wrap_text(app *a, int x, int y, int width, SDL_Color color, const char *text, bool draw);

static int draw_wrapped(app *a, int x, int y, int width, SDL_Color color, const char *text)
{
    return wrap_text(a, x, y, width, color, text, true);
}

/// The lines `text` takes wrapped to `width` pixels, as draw_wrapped breaks them.
static int wrapped_lines(app *a, int width, const char *text)
{
    return wrap_text(a, 0, 0, width, COLOR_TEXT, text, false) / render_line_height(a->rc, false);
}

// The HUD's text: lines of at least 20 characters (render_text_wrapped).
static int wrap_text(app *a, int x, int y, int width, SDL_Color color, const char *text, bool draw)
{
    return render_text_wrapped(a->rc, x, y, width, 20, color, false, text, draw);
}

/// The side's HUD under the title: its solver line and every warning, wrapped to the area. With
/// `paint` false it only lays them out (s->hud_bottom), so the scene's screen text can start
/// under them before they are drawn over the scene.
static void draw_hud_line(app *a, side *s, SDL_Rect area, int y, const char *prefix, bool paint)
{
    int hud_top = y;
    sb_world *w = side_world(s, 0);
    sb_world_def d = sb_world_get_def(w);
    const sb_stats *st = sb_world_get_stats(w);
    int lh = render_line_height(a->rc, false);
    char first[256], second[256];
    char drawing[48] = "";
    if (a->sketching)
        snprintf(drawing, sizeof drawing, "DRAW MODE: %s (Tab)  ", sketch_tool_name(a));
    snprintf(first, sizeof first, "%s%s%s  it %d  sub %d  dt %.1f ms  tethers %s", drawing, prefix, sb_method_name(d.method), d.iterations, d.substeps, d.dt * 1e3, d.tethers ? "on" : "off");
    // the counts of the world as it is (a restart while paused has run no step to count them)
    snprintf(second, sizeof second, "particles %d  springs %d  contacts %d  physics %.2f ms  stretch %.2f%%",
             sb_world_particle_count(w), sb_world_spring_count(w), st->contacts, st->step_ms * sb_scene_world_count(s->scene),
             100.0 * st->max_stretch);
    SDL_RenderSetClipRect(render_renderer(a->rc), &area);
    int x = area.x + 10;
#define HUD_TEXT(yy, color, text) wrap_text(a, x, (yy), area.w - 20, (color), (text), paint)
    if (a->compare) { // each half is narrow: the lines wrap rather than lose their ends
        y = HUD_TEXT(y, COLOR_TEXT, first);
        y = HUD_TEXT(y, COLOR_TEXT, second) - lh;
    } else { // one line where it fits, wrapped where it does not (it ran off a narrow window)
        char line[520];
        snprintf(line, sizeof line, "%s  %s", first, second);
        y = HUD_TEXT(y, COLOR_TEXT, line) - lh;
    }
    for (int k = 1; k < sb_scene_world_count(s->scene); ++k) {
        sb_world *wk = side_world(s, k);
        char line[256];
        snprintf(line, sizeof line, "world %d: %s  stretch %.2f%%", k + 1, sb_method_name(sb_world_get_def(wk).method),
                 100.0 * sb_world_get_stats(wk)->max_stretch);
        if (paint)
            render_text(a->rc, x, y + k * lh, COLOR_TEXT, false, line);
    }
    // What the physics cannot do as asked, said where the designer looks: springs the
    // method clamps, and particles that started overlapping.
    // Every world of a comparison is named, so a warning about one world is never read as the
    // other's, nor missed because the first world has none.
    int warn_y = y + sb_scene_world_count(s->scene) * lh, worlds = sb_scene_world_count(s->scene);
    char warning[512], clamp[512], line[560];
    for (int k = 0; k < worlds; ++k) {
        sb_world *wk = side_world(s, k);
        const sb_stats *sk = sb_world_get_stats(wk);
        char which[32] = "";
        if (worlds > 1)
            snprintf(which, sizeof which, "world %d: ", k + 1);
        if (sk->halted && k > 0) { // world 1's halt has its own overlay
            snprintf(line, sizeof line, "%shalted: %s", which, sk->message);
            warn_y = HUD_TEXT(warn_y, COLOR_WARN, line);
        }
        clamp[0] = '\0';
        if (sk->clamped_springs > 0) {
            sb_world_clamp_message(wk, clamp, sizeof clamp);
            snprintf(line, sizeof line, "%s%s", which, clamp);
            warn_y = HUD_TEXT(warn_y, COLOR_WARN, line);
        }
        if (sk->overlapping_pairs > 0 || sk->overlapping_walls > 0) {
            sb_world_overlap_message(wk, warning, sizeof warning);
            snprintf(line, sizeof line, "%s%s", which, warning);
            warn_y = HUD_TEXT(warn_y, COLOR_WARN, line);
        }
        if (sb_world_structure_message(wk, warning, sizeof warning) > 0 && !strstr(clamp, warning)) { // a tuned structure not run as asked
            snprintf(line, sizeof line, "%s%s", which, warning);
            warn_y = HUD_TEXT(warn_y, COLOR_WARN, line);
        }
    }
    if (sb_scene_history_status(s->scene)[0]) // what rewind does not keep, and why
        warn_y = HUD_TEXT(warn_y, COLOR_WARN, sb_scene_history_status(s->scene));
    if (s->draw_skipped > 0) {
        snprintf(line, sizeof line, "draw(g): %d shapes not drawn: a frame draws at most %d views' worth of pixels",
                 s->draw_skipped, RENDER_DRAW_SCREENS);
        warn_y = HUD_TEXT(warn_y, COLOR_WARN, line);
    }
    if (s == &a->sides[0] && now_seconds() < a->behind_until) {
        // physics that cannot keep up, or a frame that took long for another reason (drawing, a
        // reload, a busy machine): either way the run is shown slower than real time
        if (a->physics_share > 0.5)
            snprintf(line, sizeof line, "physics is slower than real time (it takes %.0f%% of each frame): showing it "
                                        "slowed down", 100.0 * a->physics_share);
        else
            snprintf(line, sizeof line, "the window fell behind real time (physics takes %.0f%% of a frame; drawing, a "
                                        "reload or the machine the rest): showing it slowed down", 100.0 * a->physics_share);
        warn_y = HUD_TEXT(warn_y, COLOR_WARN, line);
    }
#undef HUD_TEXT
    s->hud_bottom = warn_y > hud_top ? warn_y + 4 : hud_top + 2 * lh;
    SDL_RenderSetClipRect(render_renderer(a->rc), NULL);
}

// A box with a title and a message, long lines wrapped to the box, at most 20 lines. It sits
// at the top of the area, under the HUD lines, so the scene below it stays in sight (a reload
// error is read while the last good scene runs on) and the sliders beside it stay usable.
static void draw_overlay(app *a, SDL_Rect area, SDL_Color color, const char *title, const char *body)
{
    int lh = render_line_height(a->rc, false);
    SDL_Rect box = {area.x + 20, 0, area.w - 40, 0};
    int columns = (box.w - 24) / render_char_width(a->rc, false);
    columns = columns < 20 ? 20 : columns > 290 ? 290 : columns;
    char lines[20][300];
    int n = 0;
    for (const char *p = body; *p && n < 20;) {
        size_t len = strcspn(p, "\n");
        size_t take = len < (size_t)columns ? len : (size_t)columns;
        snprintf(lines[n], sizeof lines[n], "%.*s", (int)take, p);
        for (char *t = lines[n]; *t; ++t)
            if (*t == '\t')
                *t = ' ';
        n += 1;
        p += take;
        if (take == len && *p == '\n')
            p += 1;
    }
    box.h = n * lh + 50;
    box.y = area.y + 40 + 2 * lh;
    SDL_Renderer *r = render_renderer(a->rc);
    render_panel(a->rc, box, (SDL_Color){40, 10, 12, 230});
    SDL_RenderSetClipRect(r, &box);
    render_text(a->rc, box.x + 12, box.y + 8, color, true, title);
    for (int i = 0; i < n; ++i)
        render_text(a->rc, box.x + 12, box.y + 38 + i * lh, COLOR_TEXT, false, lines[i]);
    SDL_RenderSetClipRect(r, NULL);
}

// The asked-versus-delivered view: what the clicked spring asks, what its last swing shows, and
// the two curves on one scale, the asked response from the swing's peak beside the motion. No
// peer shows this; it is how a designer sees at a glance that what they tuned is not what they get.
/// Drawn above `graphs_top`; returns its top (graphs_top when nothing is inspected).
static int draw_inspector(app *a, int graphs_top)
{
    inspection in;
    if (!inspect_read(a, &in))
        return graphs_top;
    render_ctx *rc = a->rc;
    int lh = render_line_height(rc, false), w = a->view.rect.w - 20 < 600 ? a->view.rect.w - 20 : 600, h = 5 * lh + 120;
    SDL_Rect box = {a->view.rect.x + a->view.rect.w - w - 10, graphs_top - h - 10, w, h};
    render_panel(rc, box, (SDL_Color){20, 24, 32, 235});
    SDL_RenderSetClipRect(render_renderer(rc), &box);
    const sb_world *world = side_world(&a->sides[0], a->inspect_world);
    sb_world_def d = sb_world_get_def(world);
    char line[200];
    int x = box.x + 10, y = box.y + 6;
    snprintf(line, sizeof line, "spring %u: %s, %d sub-step%s", a->inspect_spring.index + 1, sb_method_name(d.method),
             d.substeps, d.substeps == 1 ? "" : "s");
    if (sb_scene_world_count(a->sides[0].scene) > 1)
        snprintf(line + strlen(line), sizeof line - strlen(line), "  (world %d)", a->inspect_world + 1);
    render_text(rc, x, y, COLOR_TEXT, false, line);
    y += lh;
    const SDL_Color asked_color = {120, 200, 255, 255}, motion_color = {255, 190, 90, 255};
    if (in.rigid)
        snprintf(line, sizeof line, "asks to be rigid: length error %.3g m", (double)in.motion[a->inspect_count - 1] + in.offset);
    else if (in.structure > 0)
        snprintf(line, sizeof line, "asks      %.3g Hz at damping ratio %.3g  (its structure of %d springs, the mode tuned)",
                 in.asked_hertz, in.asked_zeta, in.structure);
    else
        snprintf(line, sizeof line, "asks      %.3g Hz at damping ratio %.3g", in.asked_hertz, in.asked_zeta);
    render_text(rc, x, y, asked_color, false, line);
    y += lh;
    if (in.rigid)
        line[0] = '\0';
    else if (in.measured.crossings < 3 && in.decay)
        snprintf(line, sizeof line, "shows     %.3g Hz at damping ratio %.3g  (%+.0f%%, read from its decay)",
                 in.released.hertz, in.released.zeta, 100.0 * (in.released.hertz / in.asked_hertz - 1.0));
    else if (in.measured.crossings < 3)
        snprintf(line, sizeof line, "shows     no swing to read yet: drag an end and let go");
    else if (in.measured.peaks < 2)
        snprintf(line, sizeof line, "shows     %.3g Hz (too few peaks for a damping ratio)", in.measured.hertz);
    else
        snprintf(line, sizeof line, "shows     %.3g Hz at damping ratio %.3g  (%+.0f%%)", in.measured.hertz,
                 in.measured.zeta, 100.0 * (in.measured.hertz / (in.asked_hertz * sqrt(fmax(0.0, 1.0 - in.asked_zeta * in.asked_zeta))) - 1.0));
    render_text(rc, x, y, motion_color, false, line);
    y += lh;
    const sb_stats *st = sb_world_get_stats(world);
    if (st->clamped_springs > 0 && st->clamped_spring.index == a->inspect_spring.index &&
        st->clamped_spring.generation == a->inspect_spring.generation) {
        snprintf(line, sizeof line, "%s cannot run it as asked: it gets %.3g Hz at %.3g", sb_method_name(d.method),
                 st->clamped_hertz, st->clamped_damping_ratio);
        render_text(rc, x, y, COLOR_WARN, false, line);
    } else if (in.structure > 0) { // which motion it read
        render_text(rc, x, y, COLOR_TEXT, false,
                    in.structure_by_stretch ? "read from the mode's stretch of its springs: a swing of the whole"
                                            : "read from its particles' moves along the mode's shape, as tuned");
        y += lh;
        render_text(rc, x, y, COLOR_TEXT, false,
                    in.structure_by_stretch ? "(a pendulum) leaves their lengths, so it is not counted"
                                            : "(a swing across its springs); pluck it and let go");
    } else {
        render_text(rc, x, y, COLOR_TEXT, false, "read from its largest swing on; in a network it moves with");
        y += lh;
        render_text(rc, x, y, COLOR_TEXT, false, "its neighbours: read the curves' shapes, not only the figures");
    }
    SDL_Rect graph = {box.x + 10, box.y + h - 100, w - 20, 92};
    const float *series[2] = {in.ideal, in.motion};
    const SDL_Color colors[2] = {asked_color, motion_color};
    render_graph_pair(rc, graph, series, a->inspect_count, colors);
    render_text(rc, graph.x + 4, graph.y + 2, asked_color, false, "asked");
    render_text(rc, graph.x + 4 + 7 * render_char_width(rc, false), graph.y + 2, motion_color, false, "delivered");
    SDL_RenderSetClipRect(render_renderer(rc), NULL);
    return box.y;
}

// The scene's camera (springbox.camera): a look or a follow moves the shared view, and every
// side learns what it shows, for springbox.camera.get. The left side's scene leads.
static void scene_camera(app *a)
{
    // the point asked for goes to the middle of what the HUD and the graphs leave clear, which is
    // as high as the height asked; the wheel still zooms a camera that sets the zoom (a follow)
    const SDL_Rect clear = clear_area(a, a->view.rect);
    const double offset = (clear.y + clear.h / 2.0) - (a->view.rect.y + a->view.rect.h / 2.0); // pixels below the middle
    sb_camera_request req;
    if (sb_scene_camera(a->sides[0].scene, &req)) {
        a->view_moved = true; // placed by the scene: the refit for its plots must not undo it
        if (!req.follow)
            a->camera_zoom = 1.0; // a look starts the zoom afresh
        if (req.height > 0.0 && clear.h > 0)
            a->view.scale = clear.h / req.height * (a->camera_zoom > 0.0 ? a->camera_zoom : 1.0);
        a->view.cx = req.x;
        a->view.cy = req.y + offset / a->view.scale;
    }
    for (int i = 0; i < side_count(a); ++i) // what it shows: the clear area's middle and height
        sb_scene_set_view(a->sides[i].scene, a->view.cx, a->view.cy - offset / a->view.scale, clear.h / a->view.scale);
}

void draw(app *a)
{
    scene_camera(a);
    render_ctx *rc = a->rc;
    render_clear(rc);
    int lh = render_line_height(rc, false);
    for (int i = 0; i < side_count(a); ++i) {
        side *s = &a->sides[i];
        sb_view v = a->view;
        if (a->compare) {
            v.rect.w = a->view.rect.w / 2;
            v.rect.x = i * v.rect.w;
        }
        render_marks marks = {sb_null_particle(), {0, 0}, false};
        for (int k = 0; k < sb_scene_world_count(s->scene); ++k) {
            sb_world *w = side_world(s, k);
            marks.dragging = false;
            double hz, zeta;
            if (a->dragging && k == a->drag_world)
                marks.dragging = sb_world_drag_info(w, &marks.drag, &marks.drag_target, &hz, &zeta);
            render_world(rc, &v, w, &marks);
        }
        if (i == 0) {
            draw_ghost(a, &v);
            sketch_draw(a, &v);
        }
        // The HUD's lines laid out first, so that the scene's screen text starts under them as
        // they are this frame (laid out from the last frame's, a frame whose warning had just
        // appeared, or the only frame --screenshot renders, printed the scene's text over it),
        // and drawn after the scene's drawing, on a band of their own, so nothing covers them.
        const char *prefix = a->compare ? (i == 0 ? "LEFT: " : "RIGHT: ") : "";
        if (!a->clean)
            draw_hud_line(a, s, v.rect, 34, prefix, false);
        sb_draw_list list;
        char error[4096];
        bool drew = sb_scene_draw(s->scene, &list, error, sizeof error);
        const int text_top = a->clean ? 8 : s->hud_bottom > 0 ? s->hud_bottom : 34 + 2 * lh;
        s->draw_skipped = render_draw_list(rc, &v, &list, text_top);
        if (!drew)
            callback_failed(s, error);
        if (!a->clean) {
            SDL_Rect band = {v.rect.x, 0, v.rect.w, s->hud_bottom};
            render_panel(rc, band, (SDL_Color){COLOR_BACKGROUND.r, COLOR_BACKGROUND.g, COLOR_BACKGROUND.b, 235});
            draw_hud_line(a, s, v.rect, 34, prefix, true);
        }
        const sb_stats *st = sb_world_get_stats(side_world(s, 0));
        if (st->halted) {
            char body[512];
            snprintf(body, sizeof body, "%s\npress R to restart the scene", st->message);
            draw_overlay(a, v.rect, COLOR_ERROR, "the world halted", body);
        }
        // both sides load the same file: one overlay across the whole view says it
        if (s->has_error && (i == 0 || !a->sides[0].has_error))
            draw_overlay(a, a->view.rect, COLOR_ERROR, s->error_title, s->error);
    }
    if (a->compare) {
        SDL_Renderer *r = render_renderer(rc);
        SDL_SetRenderDrawColor(r, 90, 96, 110, 255);
        SDL_RenderDrawLine(r, a->view.rect.w / 2, 0, a->view.rect.w / 2, a->height);
    }
    if (a->clean) // the scene alone: what a screenshot or a GIF of the prototype shows
        return;
    // title and status
    side *s0 = &a->sides[0];
    char status[256];
    char fps[32] = "";
    if (a->fps > 0)
        snprintf(fps, sizeof fps, "   FPS %.0f", a->fps);
    snprintf(status, sizeof status, "%s%s   t %.2f s%s", sb_scene_title(s0->scene), fps,
             sb_world_get_stats(side_world(s0, 0))->time,
             a->rewinding ? "   REWOUND (space runs on from here)" : a->paused ? "   PAUSED (space runs on)" : "");
    render_text(rc, 10, 8, COLOR_TEXT, true, status);
    // graphs, on a band of their own: the scene (a bounds line, a cloth hanging low) shows
    // above it, not through it; the view is fitted clear of it (fit_clear_of_hud)
    int gw = (a->view.rect.w - 40) / 3, gh = 70, gy = a->height - gh - 10;
    int band_top = gy - 6; // the scene's own plot rows stay translucent over it (the view is fitted clear of them)
    SDL_Rect band = {a->view.rect.x, band_top, a->view.rect.w, a->height - band_top};
    render_panel(rc, band, COLOR_BACKGROUND);
    const char *labels[3] = {"energy J", "max stretch %", "physics ms"};
    SDL_Color colors[3] = {{120, 200, 255, 255}, {255, 120, 120, 255}, {160, 230, 140, 255}};
    for (int g = 0; g < 3; ++g) {
        SDL_Rect r = {10 + g * (gw + 10), gy, gw, gh};
        const float *data = g == 0 ? s0->energy : g == 1 ? s0->stretch : s0->step_ms;
        if (g < 2 && a->ghost.frames > 0) { // a replay: the run before it, dimmed, on the same scale
            float before[HISTORY];
            ghost_series(a, g == 0 ? a->ghost.energy : a->ghost.stretch, s0->history, before);
            const float *series[2] = {data, before};
            SDL_Color pair[2] = {colors[g], {(Uint8)(colors[g].r / 2), (Uint8)(colors[g].g / 2), (Uint8)(colors[g].b / 2), 255}};
            const char *names[2] = {labels[g], run_frame(a) > a->ghost.frames ? "run before (ended)" : "run before"};
            render_graph_shared(rc, r, series, 2, s0->history, pair, names);
        } else {
            render_graph(rc, r, data, s0->history, colors[g], labels[g]);
        }
    }
    // the scene's own series (springbox.plot), in rows of three above
    int panels = plot_panels(s0);
    for (int k = 0; k < panels; ++k) {
        const float *series[MAX_PLOTS];
        const char *plot_labels[MAX_PLOTS];
        SDL_Color plot_colors[MAX_PLOTS];
        int n = 0;
        static const SDL_Color palette[] = {{240, 200, 90, 255}, {120, 200, 255, 255}, {240, 120, 200, 255},
                                            {150, 230, 140, 255}, {255, 150, 90, 255}, {190, 160, 255, 255}};
        for (int p = 0; p < s0->plots; ++p) {
            if (plot_panel_index(s0, p) != k)
                continue;
            series[n] = s0->plot[p];
            plot_labels[n] = s0->plot_name[p];
            plot_colors[n] = palette[n % 6];
            n += 1;
        }
        SDL_Rect r = {10 + (k % 3) * (gw + 10), gy - (1 + k / 3) * (gh + 10), gw, gh};
        render_graph_shared(rc, r, series, n, s0->history, plot_colors, plot_labels);
    }
    // asked vs delivered above the graphs and the scene's plots, the notices above it
    const int plots_top = gy - ((panels + 2) / 3) * (gh + 10);
    const int inspector_top = draw_inspector(a, plots_top);
    // tuning panel
    SDL_Rect panel = {a->width - PANEL_WIDTH, 0, PANEL_WIDTH, a->height};
    render_panel(rc, panel, (SDL_Color){30, 34, 42, 235});
    render_text(rc, panel.x + 12, 10, COLOR_TEXT, true, "tuning");
    sliders_scroll(a, 0); // a reload may have taken sliders away
    slider sl[MAX_SLIDERS];
    int n = sliders(a, sl, MAX_SLIDERS), above = 0, below = 0;
    SDL_Renderer *r = render_renderer(rc);
    for (int i = 0; i < n; ++i) {
        SDL_Rect bar = slider_rect(a, i);
        if (!slider_shown(a, i)) { // scrolled away: the wheel over the panel brings it
            *(bar.y < sliders_area(a).y + 20 ? &above : &below) += 1;
            continue;
        }
        if (i == a->drag_slider && !sl[i].app)
            sl[i].value = a->slider_preview; // follows the mouse; the scene reloads once, on release
        char label[128];
        snprintf(label, sizeof label, "%.60s  %.*f", sl[i].name, slider_decimals(&sl[i], bar.w),
                 slider_round(&sl[i], sl[i].value, bar.w));
        render_text(rc, bar.x, bar.y - lh - 2, sl[i].app ? COLOR_DRAG : COLOR_TEXT, false, label);
        SDL_SetRenderDrawColor(r, 70, 76, 90, 255);
        SDL_RenderFillRect(r, &bar);
        double t = (sl[i].value - sl[i].min) / (sl[i].max - sl[i].min);
        SDL_Rect knob = {bar.x + (int)(t * (bar.w - 8)), bar.y - 3, 8, bar.h + 6};
        SDL_SetRenderDrawColor(r, 230, 233, 240, 255);
        SDL_RenderFillRect(r, &knob);
    }
    if (above || below) { // how many sliders the wheel scrolls to, at the area's ends
        SDL_Rect area = sliders_area(a);
        char more[64];
        if (above) {
            snprintf(more, sizeof more, "%d more above: scroll", above);
            render_text(rc, panel.x + PANEL_WIDTH - 12 - render_char_width(rc, false) * (int)strlen(more), 10, COLOR_TEXT,
                        false, more);
        }
        if (below) {
            snprintf(more, sizeof more, "%d more below: scroll", below);
            render_text(rc, panel.x + 12, area.y + area.h + 2, COLOR_TEXT, false, more);
        }
    }
    draw_timeline(a);
    if (a->revision_count > 1) {
        char rev[96];
        snprintf(rev, sizeof rev, "tuning revision %d of %d", a->revision_at + 1, a->revision_count);
        render_text(rc, panel.x + 12, timeline_rect(a).y - 2 * lh - 8,
                    a->revision_at + 1 < a->revision_count ? COLOR_DRAG : COLOR_TEXT, false, rev);
    }
    render_text(rc, panel.x + 12, a->height - 2 * lh - 8, COLOR_TEXT, false, "W: write values to the file");
    render_text(rc, panel.x + 12, a->height - lh - 6, COLOR_TEXT, false, "H: help, keys");
    // notices
    double now = now_seconds();
    // the newest at the bottom, each wrapped to the view (a long reload message was cut at its edge)
    int notice_y = inspector_top - 6, notice_w = a->view.rect.w - 20;
    for (int i = 0; i < MAX_NOTICES; ++i) {
        if (a->notices[i].until <= now)
            continue;
        notice_y -= wrapped_lines(a, notice_w, a->notices[i].text) * lh + 4;
        draw_wrapped(a, 10, notice_y, notice_w, a->notices[i].color, a->notices[i].text);
    }
    if (a->help) { // two columns, each entry's text wrapped to the box
        int name_chars = 0, cw = render_char_width(rc, false);
        for (int i = 0; i < a->key_help_count; ++i)
            name_chars = (int)strlen(a->key_help[i].name) > name_chars ? (int)strlen(a->key_help[i].name) : name_chars;
        SDL_Rect box = {40, 70, a->view.rect.w - 80, 0};
        const int text_x = box.x + 12 + (name_chars + 2) * cw, text_w = box.x + box.w - 12 - text_x;
        int hh = 50;
        for (int i = 0; i < a->key_help_count; ++i)
            hh += wrapped_lines(a, text_w, a->key_help[i].help) * lh;
        box.h = hh;
        box.y = a->height - hh - 10 < box.y ? (a->height - hh - 10 > 10 ? a->height - hh - 10 : 10) : box.y;
        render_panel(rc, box, (SDL_Color){10, 12, 16, 255}); // over everything while it is open
        SDL_RenderSetClipRect(render_renderer(rc), &box);
        render_text(rc, box.x + 12, box.y + 8, COLOR_WARN, true, "keys");
        int y = box.y + 38;
        for (int i = 0; i < a->key_help_count; ++i) {
            render_text(rc, box.x + 12, y, COLOR_DRAG, false, a->key_help[i].name);
            y = draw_wrapped(a, text_x, y, text_w, COLOR_TEXT, a->key_help[i].help);
        }
        SDL_RenderSetClipRect(render_renderer(rc), NULL);
    }
}
