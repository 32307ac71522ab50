// Draw mode (D): the left button draws into the scene's file instead of dragging. A click on
// empty space adds a particle (shift+click a fixed one), a drag from one particle to another a spring, a stroke over empty
// space a ground line (a polyline simplified to a handful of points). Each is one line of Lua in
// the file's drawn block (sb_scene_sketch_write), its numbers on a grid the zoom sets, and the
// scene reloads as a save makes it. Ctrl+Z takes the last line back out, Ctrl+Y puts it back.
#include "window_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/// The grid drawn things snap to: the smallest of 1, 2 and 5 times a power of ten that is at
/// least 8 pixels at the zoom now.
static double sketch_grid(const app *a, int *decimals)
{
    const double want = 8.0 / a->view.scale;
    double g = pow(10.0, floor(log10(want)));
    g = g >= want ? g : 2.0 * g >= want ? 2.0 * g : 5.0 * g >= want ? 5.0 * g : 10.0 * g;
    const int d = (int)ceil(-log10(g) - 1e-9);
    *decimals = d > 0 ? d : 0;
    return g;
}

/// A coordinate on the grid, as a person writes it.
static void sketch_number(const app *a, char *out, size_t size, double v)
{
    int decimals;
    const double g = sketch_grid(a, &decimals);
    sb_scene_number_text(out, size, round(v / g) * g, decimals);
}

void sketch_toggle(app *a)
{
    a->sketching = !a->sketching;
    a->sketch_down = false;
    if (a->sketching)
        add_notice(a, COLOR_DRAG, "draw mode: click adds a particle (shift: fixed), a drag from a particle to another a "
                                  "spring, a stroke a ground line; each a line in %s. Ctrl+Z takes the last back; D ends it",
                   a->opt.scene_path);
    else
        add_notice(a, COLOR_DRAG, "draw mode off");
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
    if (strlen(written) <= SB_TUNABLE_NAME_MAX) { // --record-input keeps it, and --replay writes it again
        sb_input_event e = {.kind = SB_INPUT_SKETCH};
        memcpy(e.name, written, strlen(written) + 1); // (it fits: measured above)
        record_input(a, e);
    } else if (a->input) {
        add_notice(a, COLOR_WARN, "not in the input recording: the line is longer than %d characters", SB_TUNABLE_NAME_MAX);
    }
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

void sketch_release(app *a, sb_vec2 at)
{
    if (!a->sketch_down)
        return;
    a->sketch_down = false;
    sketch_move(a, at);
    const sb_vec2 from = a->sketch_points[0];
    char call[8192], x[32], y[32];
    int world = 0;
    uint32_t index = 0;
    const int to = side_pick(a, at, &world, &index, NULL) && world == 0 ? (int)index : -1;
    const double moved = hypot(at.x - from.x, at.y - from.y) * a->view.scale;
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
    // a stroke: a ground line through the points that keep its shape within 4 pixels
    bool keep[SKETCH_POINTS] = {false};
    const int n = a->sketch_count;
    keep[0] = keep[n - 1] = true;
    sketch_simplify(a->sketch_points, 0, n - 1, 4.0 / a->view.scale, keep);
    size_t used = (size_t)snprintf(call, sizeof call, "%%W:polyline{");
    char last[80] = "";
    int points = 0;
    for (int i = 0; i < n && used < sizeof call - 64; ++i) {
        if (!keep[i])
            continue;
        char pair[80];
        sketch_number(a, x, sizeof x, a->sketch_points[i].x);
        sketch_number(a, y, sizeof y, a->sketch_points[i].y);
        snprintf(pair, sizeof pair, "%s, %s", x, y);
        if (strcmp(pair, last) == 0)
            continue; // two points on one grid point
        used += (size_t)snprintf(call + used, sizeof call - used, "%s %s", points ? "," : "", pair);
        snprintf(last, sizeof last, "%s", pair);
        points += 1;
    }
    snprintf(call + used, sizeof call - used, " }");
    if (points < 2)
        add_notice(a, COLOR_DRAG, "draw mode: the stroke is shorter than the grid (zoom in to draw finer)");
    else
        sketch_write(a, call, false);
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
