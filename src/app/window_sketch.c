// Draw mode (D): the left button draws into the scene's file instead of dragging. With the first
// tool a click on empty space adds a particle (shift+click a fixed one), a drag from one particle
// to another a spring, a stroke over empty space a ground line (a polyline simplified to a
// handful of points); Tab picks the others: a rope of beads along a stroke (w:chain; shift: its
// start pinned), a jelly box dragged corner to corner (w:box, tuned as a structure) and a ball
// dragged from its centre to its radius. Each is one line of Lua in the file's drawn block
// (sb_scene_sketch_write), its numbers on a grid the zoom sets, and the scene reloads as a save
// makes it, the running particles keeping their state. Ctrl+Z takes the last line back out,
// Ctrl+Y puts it back.
#include "web.h"
#include "window_internal.h"
#include "window_sides.h"
#include "window_sketch.h"
#include "window_time.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/// The smallest of 1, 2 and 5 times a power of ten that is at least `pixels` at the zoom now.
static double sketch_step(const app *a, double pixels, int *decimals)
{
    const double want = pixels / a->view.scale;
    double g = pow(10.0, floor(log10(want)));
    g = g >= want ? g : 2.0 * g >= want ? 2.0 * g : 5.0 * g >= want ? 5.0 * g : 10.0 * g;
    const int d = (int)ceil(-log10(g) - 1e-9);
    *decimals = d > 0 ? d : 0;
    return g;
}

/// The grid drawn things snap to: 8 pixels or more.
static double sketch_grid(const app *a, int *decimals) { return sketch_step(a, 8.0, decimals); }

/// A coordinate on the grid, as a person writes it.
static void sketch_number(const app *a, char *out, size_t size, double v)
{
    int decimals;
    const double g = sketch_grid(a, &decimals);
    sb_scene_number_text(out, size, round(v / g) * g, decimals);
}

/// A length on the grid, at least one step of it, as a person writes it; returns the length.
static double sketch_length(const app *a, char *out, size_t size, double v)
{
    int decimals;
    const double g = sketch_grid(a, &decimals), on = fmax(g, round(v / g) * g);
    sb_scene_number_text(out, size, on, decimals);
    return on;
}

enum { TOOL_DRAW, TOOL_ROPE, TOOL_BOX, TOOL_BALL, TOOLS };

static const struct { const char *name, *help; } tools[TOOLS] = {
    {"draw", "a click adds a particle (shift: fixed), a drag from a particle to another a spring, a stroke a ground line"},
    {"rope", "a stroke lays a rope of beads along it (shift: its start pinned)"},
    {"jelly box", "a drag from corner to corner fills a box with braced beads, tuned as a structure"},
    {"ball", "a drag from the centre sets the radius of a ball"},
};

const char *sketch_tool_name(const app *a) { return tools[a->sketch_tool].name; }

/// The tool and what it does, in the window's notices and, in a page, its status line (where the
/// clean view shows no HUD).
static void say_tool(app *a)
{
    add_notice(a, COLOR_DRAG, "draw mode, %s: %s; each a line in %s. Tab: the next tool; Ctrl+Z takes the last back; D ends it",
               tools[a->sketch_tool].name, tools[a->sketch_tool].help, a->opt.scene_path);
    char told[256];
    snprintf(told, sizeof told, "draw mode, %s: %s", tools[a->sketch_tool].name, tools[a->sketch_tool].help);
    web_tell("draw", told);
}

void sketch_toggle(app *a)
{
    a->sketching = !a->sketching;
    a->sketch_down = false;
    if (a->sketching)
        say_tool(a);
    else {
        add_notice(a, COLOR_DRAG, "draw mode off");
        web_tell("draw", "draw mode off");
    }
}

void sketch_next_tool(app *a, int step)
{
    if (!a->sketching) { // Tab outside draw mode starts it, with the tool it had
        sketch_toggle(a);
        return;
    }
    a->sketch_tool = (a->sketch_tool + step + TOOLS) % TOOLS;
    a->sketch_down = false;
    say_tool(a);
}

/// The drawn line written: the scene reloads as after a save.
static void sketch_reload(app *a)
{
    a->sketch_reloading = true;
    for (int k = 0; k < side_count(a); ++k)
        handle_reload(a, &a->sides[k], sb_scene_reload(a->sides[k].scene), "");
    a->sketch_reloading = false;
}

/// Writes `call` (sb_scene_sketch_write's form) and reloads; a new line clears the redo stack
/// unless it is a redo.
static bool sketch_write(app *a, const char *call, bool redo)
{
    char written[8192], message[1024];
    if (!sb_scene_sketch_write(a->sides[0].scene, call, written, sizeof written, message, sizeof message)) {
        add_notice(a, COLOR_ERROR, "%s", message);
        return false;
    }
    if (!redo) {
        for (int i = 0; i < a->sketch_redo_count; ++i)
            free(a->sketch_redo[i]);
        a->sketch_redo_count = 0;
    }
    add_notice(a, COLOR_DRAG, "drew: %s", written);
    record_input(a, (sb_input_event){.kind = SB_INPUT_SKETCH, .line = written}); // --replay writes it again
    sketch_reload(a);
    return true;
}

void sketch_press(app *a, sb_vec2 at)
{
    int world = 0;
    uint32_t index = 0;
    a->sketch_down = true;
    a->sketch_from = side_pick(a, at, &world, &index, NULL) && world == 0 ? (int)index : -1;
    a->sketch_count = 0;
    a->sketch_points[a->sketch_count++] = at;
}

void sketch_move(app *a, sb_vec2 at)
{
    if (!a->sketch_down || a->sketch_count == SKETCH_POINTS)
        return;
    const sb_vec2 last = a->sketch_points[a->sketch_count - 1];
    if (hypot(at.x - last.x, at.y - last.y) * a->view.scale >= 2.0) // a point every 2 pixels
        a->sketch_points[a->sketch_count++] = at;
}

/// Ramer-Douglas-Peucker: keeps in `keep` the points of p[first..last] that the line between
/// its ends misses by more than `tolerance`.
static void sketch_simplify(const sb_vec2 *p, int first, int last, double tolerance, bool *keep)
{
    const sb_vec2 a = p[first], b = p[last];
    const double dx = b.x - a.x, dy = b.y - a.y, len = hypot(dx, dy);
    int far = -1;
    double most = tolerance;
    for (int i = first + 1; i < last; ++i) {
        const double d = len > 0.0 ? fabs((p[i].x - a.x) * dy - (p[i].y - a.y) * dx) / len : hypot(p[i].x - a.x, p[i].y - a.y);
        if (d > most) {
            most = d;
            far = i;
        }
    }
    if (far < 0)
        return;
    keep[far] = true;
    sketch_simplify(p, first, far, tolerance, keep);
    sketch_simplify(p, far, last, tolerance, keep);
}

/// The stroke's points that keep its shape within 4 pixels, on the grid, as "x1, y1, x2, y2, ..."
/// into `out`; returns how many (two on one grid point count once).
static int sketch_stroke(app *a, char *out, size_t size)
{
    bool keep[SKETCH_POINTS] = {false};
    const int n = a->sketch_count;
    keep[0] = keep[n - 1] = true;
    sketch_simplify(a->sketch_points, 0, n - 1, 4.0 / a->view.scale, keep);
    char last[80] = "", x[32], y[32];
    size_t used = 0;
    int points = 0;
    out[0] = '\0';
    for (int i = 0; i < n && used + 80 < size; ++i) {
        if (!keep[i])
            continue;
        char pair[80];
        sketch_number(a, x, sizeof x, a->sketch_points[i].x);
        sketch_number(a, y, sizeof y, a->sketch_points[i].y);
        snprintf(pair, sizeof pair, "%s, %s", x, y);
        if (strcmp(pair, last) == 0)
            continue;
        used += (size_t)snprintf(out + used, size - used, "%s%s", points ? ", " : "", pair);
        snprintf(last, sizeof last, "%s", pair);
        points += 1;
    }
    return points;
}

/// The first tool: a particle, a spring or a ground line.
static void sketch_draw_tool(app *a, sb_vec2 at, double moved)
{
    const sb_vec2 from = a->sketch_points[0];
    char call[8192], x[32], y[32];
    int world = 0;
    uint32_t index = 0;
    const int to = side_pick(a, at, &world, &index, NULL) && world == 0 ? (int)index : -1;
    if (a->sketch_from >= 0) { // from a particle: a spring to the one let go on, or nothing
        if (to >= 0 && to != a->sketch_from) {
            snprintf(call, sizeof call, "%%W:spring(%%P%d;, %%P%d;)", a->sketch_from, to);
            sketch_write(a, call, false);
        } else if (moved >= 6.0) {
            add_notice(a, COLOR_DRAG, "draw mode: a spring goes from a particle to another; let go on one");
        }
        return;
    }
    if (moved < 6.0) { // a click on empty space: a particle (shift: a fixed one)
        sketch_number(a, x, sizeof x, from.x);
        sketch_number(a, y, sizeof y, from.y);
        snprintf(call, sizeof call, "%%W:particle{ x = %s, y = %s%s }", x, y,
                 (SDL_GetModState() & KMOD_SHIFT) ? ", fixed = true" : "");
        sketch_write(a, call, false);
        return;
    }
    char points[7900];
    if (sketch_stroke(a, points, sizeof points) < 2) {
        add_notice(a, COLOR_DRAG, "draw mode: the stroke is shorter than the grid (zoom in to draw finer)");
        return;
    }
    snprintf(call, sizeof call, "%%W:polyline{ %s }", points);
    sketch_write(a, call, false);
}

/// A rope of beads along the stroke, about 16 pixels apart (shift: its start pinned).
static void sketch_rope(app *a)
{
    char points[7800], call[8192], spacing[32], radius[64] = "";
    if (sketch_stroke(a, points, sizeof points) < 2) {
        add_notice(a, COLOR_DRAG, "draw mode: a rope is a stroke longer than the grid (zoom in to draw finer)");
        return;
    }
    int decimals;
    const double step = sketch_step(a, 16.0, &decimals);
    sb_scene_number_text(spacing, sizeof spacing, step, decimals);
    if (step < 0.2) { // the beads' default radius (5 cm) would overlap: a quarter of the spacing
        char r[32];
        sb_scene_number_text(r, sizeof r, step / 4.0, decimals + 1);
        snprintf(radius, sizeof radius, ", bead = { radius = %s }", r);
    }
    snprintf(call, sizeof call, "%%W:chain({ %s }, { spacing = %s%s%s })", points, spacing, radius,
             (SDL_GetModState() & KMOD_SHIFT) ? ", pin = \"first\"" : "");
    sketch_write(a, call, false);
}

/// A jelly box from the stroke's first corner to `at`, tuned as a structure.
static void sketch_box(app *a, sb_vec2 at, double moved)
{
    const sb_vec2 from = a->sketch_points[0];
    if (moved < 6.0) {
        add_notice(a, COLOR_DRAG, "draw mode: a jelly box is dragged from one corner to the other");
        return;
    }
    char x[32], y[32], width[32], height[32], spacing[64] = "", call[512];
    sketch_number(a, x, sizeof x, (from.x + at.x) / 2);
    sketch_number(a, y, sizeof y, (from.y + at.y) / 2);
    const double wide = sketch_length(a, width, sizeof width, fabs(at.x - from.x));
    const double high = sketch_length(a, height, sizeof height, fabs(at.y - from.y));
    if (fmin(wide, high) < 0.5) { // two cells at least across its narrow side
        int decimals;
        const double fine = sketch_step(a, 1.0, &decimals), step = fmax(fine, floor(fmin(wide, high) / 2 / fine) * fine);
        char s[32];
        sb_scene_number_text(s, sizeof s, step, decimals);
        snprintf(spacing, sizeof spacing, "spacing = %s, ", s);
    }
    snprintf(call, sizeof call, "%%W:box(%s, %s, %s, %s, { %shertz = 3, damping_ratio = 0.5 })", x, y, width, height, spacing);
    sketch_write(a, call, false);
}

/// A ball centred where the stroke began, its radius out to `at`.
static void sketch_ball(app *a, sb_vec2 at, double moved)
{
    const sb_vec2 from = a->sketch_points[0];
    if (moved < 6.0) {
        add_notice(a, COLOR_DRAG, "draw mode: a ball is dragged from its centre out to its radius");
        return;
    }
    char x[32], y[32], radius[32], call[256];
    sketch_number(a, x, sizeof x, from.x);
    sketch_number(a, y, sizeof y, from.y);
    sketch_length(a, radius, sizeof radius, hypot(at.x - from.x, at.y - from.y));
    snprintf(call, sizeof call, "%%W:particle{ x = %s, y = %s, radius = %s }", x, y, radius);
    sketch_write(a, call, false);
}

void sketch_release(app *a, sb_vec2 at)
{
    if (!a->sketch_down)
        return;
    a->sketch_down = false;
    sketch_move(a, at);
    const sb_vec2 from = a->sketch_points[0];
    const double moved = hypot(at.x - from.x, at.y - from.y) * a->view.scale;
    switch (a->sketch_tool) {
    case TOOL_ROPE: sketch_rope(a); break;
    case TOOL_BOX: sketch_box(a, at, moved); break;
    case TOOL_BALL: sketch_ball(a, at, moved); break;
    default: sketch_draw_tool(a, at, moved); break;
    }
}

void sketch_draw(app *a, const sb_view *v)
{
    if (!a->sketching || !a->sketch_down || a->sketch_count < 1)
        return;
    SDL_SetRenderDrawColor(render_renderer(a->rc), COLOR_DRAG.r, COLOR_DRAG.g, COLOR_DRAG.b, 255);
    const sb_vec2 p = a->sketch_points[0], q = a->sketch_points[a->sketch_count - 1];
    if (a->sketch_tool == TOOL_BOX) {
        const sb_vec2 c[4] = {p, {q.x, p.y}, q, {p.x, q.y}};
        for (int i = 0; i < 4; ++i)
            render_line(a->rc, v, c[i], c[(i + 1) % 4]);
    } else if (a->sketch_tool == TOOL_BALL) {
        const double r = hypot(q.x - p.x, q.y - p.y);
        for (int i = 0; i < 48; ++i) {
            const double t0 = 6.283185307179586 * i / 48, t1 = 6.283185307179586 * (i + 1) / 48;
            render_line(a->rc, v, (sb_vec2){p.x + r * cos(t0), p.y + r * sin(t0)}, (sb_vec2){p.x + r * cos(t1), p.y + r * sin(t1)});
        }
        render_line(a->rc, v, p, q);
    } else {
        for (int i = 1; i < a->sketch_count; ++i)
            render_line(a->rc, v, a->sketch_points[i - 1], a->sketch_points[i]);
    }
}

bool sketch_undo(app *a, bool redo)
{
    if (!a->sketching)
        return false;
    char line[8192], message[1024];
    if (redo) {
        if (a->sketch_redo_count == 0) {
            add_notice(a, COLOR_DRAG, "draw mode: nothing taken back to put back");
            return true;
        }
        char *again = a->sketch_redo[--a->sketch_redo_count];
        if (!sketch_write(a, again, true))
            a->sketch_redo[a->sketch_redo_count++] = again; // kept for another try
        else
            free(again);
        return true;
    }
    if (!sb_scene_sketch_take_back(a->sides[0].scene, line, sizeof line, message, sizeof message)) {
        add_notice(a, COLOR_ERROR, "%s", message);
        return true;
    }
    if (a->sketch_redo_count == SKETCH_REDO) { // the oldest goes
        free(a->sketch_redo[0]);
        memmove(a->sketch_redo, a->sketch_redo + 1, sizeof *a->sketch_redo * (SKETCH_REDO - 1));
        a->sketch_redo_count -= 1;
    }
    char *kept = malloc(strlen(line) + 1);
    if (kept)
        a->sketch_redo[a->sketch_redo_count++] = strcpy(kept, line);
    add_notice(a, COLOR_DRAG, "took back: %s", line);
    record_input(a, (sb_input_event){.kind = SB_INPUT_TAKE_BACK});
    sketch_reload(a);
    return true;
}

void sketch_free(app *a)
{
    for (int i = 0; i < a->sketch_redo_count; ++i)
        free(a->sketch_redo[i]);
    a->sketch_redo_count = 0;
}
