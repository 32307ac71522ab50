// The sandbox window: physics at a fixed step, drawing at the display rate, grab and drag,
// live tuning sliders, graphs, reload notices and error overlays, a side-by-side compare
// view, and offscreen rendering for screenshots and recordings.
#define _POSIX_C_SOURCE 200809L
#include "window.h"

#include "render.h"
#include "sb_input.h"
#ifdef SPRINGBOX_HAVE_GIF
#include "gif.h"
#endif
#include "sb_scene.h"
#include "sb_tuning.h"

#include <SDL_image.h>

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { HISTORY = 300, MAX_NOTICES = 4, PANEL_WIDTH = 260, MAX_PLOTS = 12 };
/// Rewind keeps the last minute of each side's moments, within this much memory.
#define REWIND_SECONDS 60.0
#define REWIND_BYTES ((size_t)384 << 20)

/// One simulation shown in the window: the scene, its solver overrides and its history.
typedef struct side {
    sb_scene *scene;
    bool method_set;
    sb_method method;
    int substeps, iterations;   // > 0: set by keys, applied after every reload
    int tethers;                // -1: the scene's; 0 or 1: set by T, applied after every reload
    float energy[HISTORY], stretch[HISTORY], step_ms[HISTORY];
    int history;
    char error[4096];           // a failed reload or update(): shown over the running scene
    bool has_error;
    const char *error_title;    // what the overlay says the error is (a reload's or a callback's)
    // the scene's springbox.plot series: names and histories
    int plots;
    char plot_name[MAX_PLOTS][40];
    char plot_panel[MAX_PLOTS][40]; // series with the same panel share one (springbox.plot's third argument)
    int hud_bottom;             // the y under the HUD's lines last frame: where a scene's screen text starts
    float plot[MAX_PLOTS][HISTORY];
} side;

typedef struct notice { char text[256]; SDL_Color color; double until; } notice;

/// A run as it went, frame by frame: the left side's first world's particle positions (by slot)
/// and its energy and stretch, so that a replay can show the run before it as a ghost.
typedef struct run_trace {
    float *xy;                  // frames x slots (x, y) pairs
    float *energy, *stretch;    // per frame
    int slots;                  // particle slots per frame: the world's high-water mark when it began
    long frames, cap;
} run_trace;
/// The tunables' values after a save or a slider release (issue 21 item 4).
enum { MAX_REVISIONS = 256, REVISION_TUNABLES = 32 };
typedef struct revision {
    int count;
    char name[REVISION_TUNABLES][48];
    double value[REVISION_TUNABLES];
} revision;

/// The most a trace may hold: past it the run's later frames have no ghost.
#define TRACE_BYTES ((size_t)64 << 20)

typedef struct app {
    window_options opt;
    side sides[2];
    bool compare, paused, step_once, help, running;
    sb_view view;               // the camera; in compare view both halves share it
    int width, height;
    // dragging: the slot of the particle in each side's world `drag_world`
    bool dragging;
    int drag_world;
    uint32_t drag_index;
    double drag_hertz, drag_zeta;
    int drag_slider;            // index of the slider being moved, -1 if none
    bool panning;
    int pan_x, pan_y;
    notice notices[MAX_NOTICES];
    double fps;
    double behind_until;        // physics dropped time recently: it runs slower than real time
    double physics_share;       // physics time over frame time, smoothed
    long frame;
    render_ctx *rc;
    double slider_preview;      // a scene tunable being dragged: its value so far, applied on release
    bool claimed_key[SDL_NUM_SCANCODES]; // keys the scene claimed on press: their repeats are its too
    bool claimed_click;         // the scene claimed the last press: its release and moves are not a drag
    bool view_moved;            // the designer (or the scene's camera) placed the view: it is theirs, no refit
    int fitted_rows;            // plot panel rows the view was last fitted clear of
    // the asked-versus-delivered view (issue 26 item 7): a clicked spring of the left side, and its
    // stretch over the last HISTORY frames (oldest first)
    bool inspecting;
    int inspect_world, inspect_count;
    sb_spring_id inspect_spring;
    float inspect_stretch[HISTORY];
    // rewind (issue 21 item 2): the scenes keep a minute of moments; rewinding shows one of
    // them, paused, and resuming runs on from it (the later ones are forgotten)
    bool rewinding, scrubbing;
    int rewind_at;              // the moment shown, in the left side's history (0 = oldest)
    // what the designer does, against the run's frame (issue 21 item 3): recorded since the run
    // began, and the recording being replayed (F5, --replay) from its next event
    sb_input_log *input, *replay;
    int replay_next;
    run_trace trace, ghost;     // this run, and the run before the replay (drawn faint while it lasts)
    // the tuning history: revisions of the tunables, the one in force, and whether one is being
    // applied (its own reloads are not new revisions)
    revision *revisions;
    int revision_count, revision_at;
    bool applying_revision;
#ifdef SPRINGBOX_HAVE_GIF
    // the last GIF_SECONDS of the view, every second physics frame, for G (issue 21 item 5)
    struct gif_ring *gif;
    SDL_Surface *gif_frame;     // the window's pixels read back, at its size
    long gif_last_frame;
#endif
} app;

static void draw_timeline(app *a);
static void revision_note(app *a);
static SDL_Rect timeline_rect(const app *a);

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/// A JSON string: quotes, backslashes and control characters escaped.
static void add_notice(app *a, SDL_Color color, const char *fmt, ...)
{
    notice n;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(n.text, sizeof n.text, fmt, ap);
    va_end(ap);
    n.color = color;
    n.until = now_seconds() + 4.0;
    memmove(&a->notices[1], &a->notices[0], sizeof(notice) * (MAX_NOTICES - 1));
    a->notices[0] = n;
    if (a->opt.stats) {
        fprintf(a->opt.stats, "{\"event\":\"notice\",\"frame\":%ld,\"text\":", a->frame);
        sb_json_string(a->opt.stats, n.text);
        fputs("}\n", a->opt.stats);
        fflush(a->opt.stats);
    }
}

// ---------------------------------------------------------------- sides

static void apply_overrides(side *s)
{
    for (int i = 0; i < sb_scene_world_count(s->scene); ++i) {
        sb_world *w = sb_scene_world(s->scene, i);
        sb_world_def d = sb_world_get_def(w);
        if (s->method_set)
            d.method = s->method;
        if (s->substeps > 0)
            d.substeps = s->substeps;
        if (s->iterations > 0)
            d.iterations = s->iterations;
        if (s->tethers >= 0)
            d.tethers = s->tethers != 0;
        sb_world_set_def(w, &d, NULL);
    }
}

static bool side_open(app *a, side *s, char *error, size_t error_size)
{
    sb_scene_options so = sb_default_scene_options();
    so.path = a->opt.scene_path;
    so.trusted = a->opt.trusted;
    s->scene = sb_scene_open(&so, error, error_size);
    if (!s->scene)
        return false;
    if (a->opt.rewind)
        sb_scene_history_enable(s->scene, REWIND_SECONDS, REWIND_BYTES);
    apply_overrides(s);
    if (sb_scene_warning(s->scene)[0] && s == &a->sides[0])
        add_notice(a, COLOR_WARN, "%s", sb_scene_warning(s->scene));
    return true;
}

static sb_world *side_world(const side *s, int i) { return sb_scene_world(s->scene, i); }
static int side_count(const app *a) { return a->compare ? 2 : 1; }
/// The run's frame: steps of the left side's first world (a rewind takes it back, a restart to 0).
static long run_frame(const app *a) { return (long)sb_world_get_stats(sb_scene_world(a->sides[0].scene, 0))->steps; }

/// A scene callback raised: shown over the scene until the next reload; that callback stays off.
static void callback_failed(side *s, const char *error)
{
    if (!error[0])
        return;
    snprintf(s->error, sizeof s->error, "%s() failed and stays off until the file is saved (the rest keep running):\n%.3900s",
             sb_scene_failed_function(s->scene), error);
    s->has_error = true;
    s->error_title = "a scene function failed: the scene runs on without it (save to retry)";
}

/// The panel series p is drawn in: the order its panel name first appears among the series.
static int plot_panel_index(const side *s, int p)
{
    int k = 0;
    for (int q = 0; q < p; ++q) {
        bool first = true;
        for (int r = 0; r < q && first; ++r)
            first = strcmp(s->plot_panel[r], s->plot_panel[q]) != 0;
        if (first && strcmp(s->plot_panel[q], s->plot_panel[p]) == 0)
            return k;
        k += first;
    }
    return k;
}

/// How many panels the series take.
static int plot_panels(const side *s)
{
    int n = 0;
    for (int p = 0; p < s->plots; ++p)
        n = plot_panel_index(s, p) + 1 > n ? plot_panel_index(s, p) + 1 : n;
    return n;
}

static void record_plots(side *s)
{
    int n = sb_scene_plot_count(s->scene);
    n = n < MAX_PLOTS ? n : MAX_PLOTS;
    for (int i = 0; i < n; ++i) {
        double v = 0.0;
        char name[40];
        if (!sb_scene_plot(s->scene, i, name, sizeof name, &v))
            break;
        sb_scene_plot_panel(s->scene, name, s->plot_panel[i], sizeof s->plot_panel[i]);
        if (i >= s->plots || strcmp(name, s->plot_name[i]) != 0) { // a new series starts empty
            snprintf(s->plot_name[i], sizeof s->plot_name[i], "%s", name);
            for (int k = 0; k < HISTORY; ++k)
                s->plot[i][k] = (float)v;
        }
        // shifted with the other histories (record_history), so all graphs share one time axis
        s->plot[i][s->history - 1] = (float)v;
    }
    s->plots = n;
}

static void record_history(side *s)
{
    const sb_stats *st = sb_world_get_stats(side_world(s, 0));
    if (s->history == HISTORY) {
        memmove(s->energy, s->energy + 1, sizeof(float) * (HISTORY - 1));
        memmove(s->stretch, s->stretch + 1, sizeof(float) * (HISTORY - 1));
        memmove(s->step_ms, s->step_ms + 1, sizeof(float) * (HISTORY - 1));
        for (int i = 0; i < s->plots; ++i)
            memmove(s->plot[i], s->plot[i] + 1, sizeof(float) * (HISTORY - 1));
        s->history -= 1;
    }
    s->energy[s->history] = (float)(st->kinetic_energy + st->potential_energy);
    s->stretch[s->history] = (float)(100.0 * st->max_stretch);
    s->step_ms[s->history] = (float)st->step_ms;
    s->history += 1;
    record_plots(s);
}

static void trace_free(run_trace *t)
{
    free(t->xy);
    free(t->energy);
    free(t->stretch);
    memset(t, 0, sizeof *t);
}

/// Keeps the frame the run has just made (frame f at index f - 1; a rewound run overwrites).
static void trace_record(app *a)
{
    run_trace *t = &a->trace;
    sb_world *w = sb_scene_world(a->sides[0].scene, 0);
    long f = run_frame(a) - 1;
    if (f < 0 || f > t->frames)
        return;
    if (f == 0) // a run from its start: the world may be built anew, with other slots
        trace_free(t);
    if (t->slots == 0) {
        sb_particle_id it = sb_null_particle();
        while (sb_world_next_particle(w, &it))
            t->slots = (int)it.index + 1 > t->slots ? (int)it.index + 1 : t->slots;
        if (t->slots == 0)
            return;
    }
    if (f >= t->cap) {
        long cap = t->cap ? 2 * t->cap : 512;
        if ((size_t)cap * ((size_t)t->slots * 2 + 2) * sizeof(float) > TRACE_BYTES)
            return;
        float *xy = realloc(t->xy, sizeof *xy * (size_t)cap * (size_t)t->slots * 2);
        if (xy)
            t->xy = xy;
        float *e = realloc(t->energy, sizeof *e * (size_t)cap);
        if (e)
            t->energy = e;
        float *st = realloc(t->stretch, sizeof *st * (size_t)cap);
        if (st)
            t->stretch = st;
        if (!xy || !e || !st)
            return;
        t->cap = cap;
    }
    float *row = t->xy + (size_t)f * (size_t)t->slots * 2;
    for (int i = 0; i < t->slots; ++i)
        row[2 * i] = row[2 * i + 1] = NAN;
    sb_particle_id it = sb_null_particle();
    while (sb_world_next_particle(w, &it)) {
        if ((int)it.index >= t->slots)
            continue;
        sb_particle_def d;
        sb_particle_get(w, it, &d);
        row[2 * it.index] = (float)d.position.x;
        row[2 * it.index + 1] = (float)d.position.y;
    }
    const sb_stats *st = sb_world_get_stats(w);
    t->energy[f] = (float)(st->kinetic_energy + st->potential_energy);
    t->stretch[f] = (float)(100.0 * st->max_stretch);
    t->frames = f + 1;
}

/// The run before the replay, faint, where it was at this frame: its springs and particles.
static void draw_ghost(app *a, const sb_view *v)
{
    const run_trace *g = &a->ghost;
    long f = run_frame(a) - 1;
    if (!g->xy || f < 0 || f >= g->frames)
        return;
    const float *row = g->xy + (size_t)f * (size_t)g->slots * 2;
    sb_world *w = sb_scene_world(a->sides[0].scene, 0);
    SDL_Renderer *r = render_renderer(a->rc);
    SDL_SetRenderDrawColor(r, 200, 210, 230, 70);
    sb_spring_id it = sb_null_spring();
    while (sb_world_next_spring(w, &it)) {
        sb_spring_def d;
        if (sb_spring_get(w, it, &d) != SB_OK || (int)d.a.index >= g->slots || (int)d.b.index >= g->slots)
            continue;
        const float *pa = row + 2 * d.a.index, *pb = row + 2 * d.b.index;
        if (isnan(pa[0]) || isnan(pb[0]))
            continue;
        SDL_FPoint qa = view_to_screen(v, (sb_vec2){pa[0], pa[1]}), qb = view_to_screen(v, (sb_vec2){pb[0], pb[1]});
        SDL_RenderDrawLineF(r, qa.x, qa.y, qb.x, qb.y);
    }
    SDL_SetRenderDrawColor(r, 200, 210, 230, 110);
    for (int i = 0; i < g->slots; ++i) {
        if (isnan(row[2 * i]))
            continue;
        SDL_FPoint q = view_to_screen(v, (sb_vec2){row[2 * i], row[2 * i + 1]});
        SDL_FRect dot = {q.x - 2.0f, q.y - 2.0f, 4.0f, 4.0f};
        SDL_RenderFillRectF(r, &dot);
    }
}

/// The ghost's series aligned with a graph's window, which ends at this frame; NAN where none.
static void ghost_series(const app *a, const float *of, int count, float *out)
{
    long last = run_frame(a) - 1;
    for (int i = 0; i < count; ++i) {
        long f = last - (count - 1 - i);
        out[i] = of && f >= 0 && f < a->ghost.frames ? of[f] : NAN;
    }
}

static void handle_reload(app *a, side *s, sb_reload_event e, const char *which)
{
    if (e.result == SB_RELOAD_NONE)
        return;
    if (a->opt.stats) { // as the headless runner writes them, and as the README documents
        static const char *const results[] = {"none", "kept", "restarted", "failed"};
        fprintf(a->opt.stats, "{\"event\":\"reload\",\"frame\":%ld,\"side\":\"%s\",\"result\":\"%s\",\"latency_ms\":%.1f,"
                              "\"message\":",
                a->frame, which[0] == 'l' ? "left" : which[0] == 'r' ? "right" : "main", results[e.result], e.latency_ms);
        sb_json_string(a->opt.stats, e.message);
        fputs("}\n", a->opt.stats);
        fflush(a->opt.stats);
    }
    if (e.result == SB_RELOAD_FAILED) {
        snprintf(s->error, sizeof s->error, "%s", e.message);
        s->has_error = true;
        s->error_title = "reload failed: the last good scene keeps running (save to retry)";
        add_notice(a, COLOR_ERROR, "%sreload failed: the last good scene keeps running", which);
        return;
    }
    s->has_error = false;
    apply_overrides(s);
    if (sb_scene_warning(s->scene)[0])
        add_notice(a, COLOR_WARN, "%s%s", which, sb_scene_warning(s->scene));
    if (s == &a->sides[0])
        revision_note(a);
    if (e.result == SB_RELOAD_KEPT) {
        add_notice(a, COLOR_DRAG, "%s%s", which, e.message);
    } else {
        add_notice(a, COLOR_WARN, "%s%s", which, e.message);
        s->history = 0;
        a->rewinding = false; // a restart forgets the moments (sb_scene_history_clear)
        if (s == &a->sides[0] && run_frame(a) == 0 && !a->replay)
            sb_input_log_clear(a->input); // and starts a new run
        trace_free(&a->ghost);            // whose slots the ghost's need not match (F5 sets it after)
        if (a->dragging)
            a->dragging = false;
    }
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

// The particle whose circle (grown by a few pixels) holds the point, nearest first.
static bool pick(const app *a, sb_vec2 at, int *world, uint32_t *index)
{
    double best = INFINITY, slop = 8.0 / a->view.scale;
    const side *s = &a->sides[0];
    for (int k = 0; k < sb_scene_world_count(s->scene); ++k) {
        const sb_world *w = side_world(s, k);
        sb_particle_id p = sb_null_particle();
        while (sb_world_next_particle(w, &p)) {
            sb_particle_def d;
            sb_particle_get(w, p, &d);
            double dist = hypot(d.position.x - at.x, d.position.y - at.y);
            if (dist <= d.radius + slop && dist < best) {
                best = dist;
                *world = k;
                *index = p.index;
            }
        }
    }
    return isfinite(best);
}

/// The spring of the left side nearest `at`, within 8 pixels of its segment.
static bool pick_spring(const app *a, sb_vec2 at, int *world, sb_spring_id *id)
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
    return found;
}

/// The inspected spring's stretch this frame joins its history; it stops when the spring goes.
static void inspect_record(app *a)
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
    a->inspect_stretch[a->inspect_count++] = (float)(sb_spring_length(w, a->inspect_spring) - d.rest_length);
}

/// What the inspected spring asks and what its recent motion shows: the motion is read from its
/// largest swing on (a swing starts from rest at its peak), about the mean it settles to; the
/// ideal curve is the asked tuning's response from that peak. False when nothing is inspected.
typedef struct inspection {
    bool rigid;
    double asked_hertz, asked_zeta;
    sb_oscillation measured;
    int from;                    // the sample the swing starts at
    double offset;               // the stretch it swings about
    float ideal[HISTORY], motion[HISTORY];
} inspection;

static bool inspect_read(const app *a, inspection *in)
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
    int n = a->inspect_count, from = 0;
    double sum = 0.0;
    for (int i = 0; i < n; ++i)
        sum += a->inspect_stretch[i];
    double mean_all = sum / n, biggest = -1.0;
    for (int i = 0; i < n; ++i)
        if (fabs(a->inspect_stretch[i] - mean_all) > biggest) {
            biggest = fabs(a->inspect_stretch[i] - mean_all);
            from = i;
        }
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

// ---------------------------------------------------------------- input recording


static void record_input(app *a, sb_input_event e)
{
    e.frame = run_frame(a);
    if (a->input)
        sb_input_log_add(a->input, &e);
}

static void record_drag(app *a, sb_input_kind kind, sb_vec2 target)
{
    sb_input_event e = {.kind = kind, .world = a->drag_world, .particle = a->drag_index, .x = target.x, .y = target.y,
                        .hertz = a->drag_hertz, .damping_ratio = a->drag_zeta};
    record_input(a, e);
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

static void drag_end(app *a)
{
    if (!a->dragging)
        return;
    record_input(a, (sb_input_event){.kind = SB_INPUT_RELEASE, .world = a->drag_world});
    for (int i = 0; i < side_count(a); ++i)
        if (a->drag_world < sb_scene_world_count(a->sides[i].scene))
            sb_world_drag_end(side_world(&a->sides[i], a->drag_world));
    a->dragging = false;
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

// ---------------------------------------------------------------- sliders

typedef struct slider { char name[64]; double value, min, max; bool app; } slider;

// The scene's tunables, then the drag's own frequency and damping ratio.
static int sliders(const app *a, slider *out, int max)
{
    int n = 0;
    const sb_scene *sc = a->sides[0].scene;
    for (int i = 0; i < sb_scene_tunable_count(sc) && n < max - 2; ++i) {
        sb_tunable t = sb_scene_tunable(sc, i);
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

/// One pixel of a slider's bar, as a power of ten: the step its value moves by. The label shows,
/// the scene gets and W writes the value rounded to it, so all three are the same number.
static double slider_step(const slider *s, int bar_width)
{
    return pow(10.0, floor(log10((s->max - s->min) / (bar_width > 0 ? bar_width : 1))));
}

static double slider_round(const slider *s, double value, int bar_width)
{
    double step = slider_step(s, bar_width);
    return fmin(fmax(round(value / step) * step, s->min), s->max);
}

static int slider_decimals(const slider *s, int bar_width)
{
    int d = -(int)floor(log10(slider_step(s, bar_width)) + 1e-9);
    return d > 0 ? (d < 9 ? d : 9) : 0;
}

static SDL_Rect slider_rect(const app *a, int i)
{
    SDL_Rect r = {a->width - PANEL_WIDTH + 12, 40 + i * 46 + 20, PANEL_WIDTH - 24, 10};
    return r;
}

static void slider_set(app *a, int i, double value)
{
    slider s[34];
    int n = sliders(a, s, 34);
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
static void write_back(app *a)
{
    slider s[34];
    int n = sliders(a, s, 34), count = 0;
    static char numbers[34][64];
    const char *names[34], *texts[34];
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
        snprintf(numbers[count], sizeof numbers[count], "%.*f", slider_decimals(&s[i], w), shown);
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

// ---------------------------------------------------------------- drawing

// The side's solver line; in the compare view it wraps in two so that each fits its half.
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

// Breaks text at spaces into lines of `width` pixels, drawing them when `draw`; returns the y
// under the last line.
static int wrap_text(app *a, int x, int y, int width, SDL_Color color, const char *text, bool draw)
{
    int per_line = width / render_char_width(a->rc, false), lh = render_line_height(a->rc, false);
    per_line = per_line < 20 ? 20 : per_line;
    char line[512];
    const char *p = text;
    while (*p) {
        int n = (int)strlen(p);
        if (n > per_line) {
            n = per_line;
            while (n > per_line / 2 && p[n] != ' ')
                n -= 1;
        }
        n = n < (int)sizeof line ? n : (int)sizeof line - 1;
        memcpy(line, p, (size_t)n);
        line[n] = '\0';
        if (draw)
            render_text(a->rc, x, y, color, false, line);
        y += lh;
        p += n;
        while (*p == ' ')
            p += 1;
    }
    return y;
}

static void draw_hud_line(app *a, side *s, SDL_Rect area, int y, const char *prefix)
{
    int hud_top = y;
    sb_world *w = side_world(s, 0);
    sb_world_def d = sb_world_get_def(w);
    const sb_stats *st = sb_world_get_stats(w);
    int lh = render_line_height(a->rc, false);
    char first[256], second[256];
    snprintf(first, sizeof first, "%s%s  it %d  sub %d  dt %.1f ms  tethers %s", prefix, sb_method_name(d.method),
             d.iterations, d.substeps, d.dt * 1e3, d.tethers ? "on" : "off");
    snprintf(second, sizeof second, "particles %d  springs %d  contacts %d  physics %.2f ms  stretch %.2f%%",
             st->particles, st->springs, st->contacts, st->step_ms * sb_scene_world_count(s->scene),
             100.0 * st->max_stretch);
    SDL_RenderSetClipRect(render_renderer(a->rc), &area);
    int x = area.x + 10;
    if (a->compare) { // each half is narrow: the lines wrap rather than lose their ends
        y = draw_wrapped(a, x, y, area.w - 20, COLOR_TEXT, first);
        y = draw_wrapped(a, x, y, area.w - 20, COLOR_TEXT, second) - lh;
    } else { // one line where it fits, wrapped where it does not (it ran off a narrow window)
        char line[520];
        snprintf(line, sizeof line, "%s  %s", first, second);
        y = draw_wrapped(a, x, y, area.w - 20, COLOR_TEXT, line) - lh;
    }
    for (int k = 1; k < sb_scene_world_count(s->scene); ++k) {
        sb_world *wk = side_world(s, k);
        char line[256];
        snprintf(line, sizeof line, "world %d: %s  stretch %.2f%%", k + 1, sb_method_name(sb_world_get_def(wk).method),
                 100.0 * sb_world_get_stats(wk)->max_stretch);
        render_text(a->rc, x, y + k * lh, COLOR_TEXT, false, line);
    }
    // What the physics cannot do as asked, said where the designer looks (issue 10): springs the
    // method clamps, and particles that started overlapping.
    // Every world of a comparison is named (issue 26 item 6): a designer comparing verlet with
    // soft saw only world 1's warning while verlet ran 23-33% below the asked hertz.
    int warn_y = y + sb_scene_world_count(s->scene) * lh, worlds = sb_scene_world_count(s->scene);
    char warning[256], line[300];
    for (int k = 0; k < worlds; ++k) {
        sb_world *wk = side_world(s, k);
        const sb_stats *sk = sb_world_get_stats(wk);
        char which[32] = "";
        if (worlds > 1)
            snprintf(which, sizeof which, "world %d: ", k + 1);
        if (sk->halted && k > 0) { // world 1's halt has its own overlay
            snprintf(line, sizeof line, "%shalted: %s", which, sk->message);
            warn_y = draw_wrapped(a, x, warn_y, area.w - 20, COLOR_WARN, line);
        }
        if (sk->clamped_springs > 0) {
            sb_world_clamp_message(wk, warning, sizeof warning);
            snprintf(line, sizeof line, "%s%s", which, warning);
            warn_y = draw_wrapped(a, x, warn_y, area.w - 20, COLOR_WARN, line);
        }
        if (sk->overlapping_pairs > 0) {
            sb_world_overlap_message(wk, warning, sizeof warning);
            snprintf(line, sizeof line, "%s%s", which, warning);
            warn_y = draw_wrapped(a, x, warn_y, area.w - 20, COLOR_WARN, line);
        }
    }
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
static void draw_inspector(app *a, int graphs_top)
{
    inspection in;
    if (!inspect_read(a, &in))
        return;
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
    else
        snprintf(line, sizeof line, "asks      %.3g Hz at damping ratio %.3g", in.asked_hertz, in.asked_zeta);
    render_text(rc, x, y, asked_color, false, line);
    y += lh;
    if (in.rigid)
        line[0] = '\0';
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
}

static const char *const help_lines[] = {
    "left drag      grab a particle (its twin too in compare view)",
    "left click     a spring: asked vs delivered; empty space closes it",
    "right/middle   pan          wheel  zoom at the cursor      F  fit the scene",
    "space          pause / resume               N  one frame while paused",
    "R              restart the scene from its file",
    "1 .. 6         method: force impulse sequential soft verlet xpbd",
    "shift+1 .. 6   method of the right side in compare view",
    "up / down      iterations + / -             left / right  sub-steps - / +",
    "T              tethers on / off (rigid chains held to their fixed particles)",
    "C              compare view: the same scene in two methods, in lockstep",
    "W              write the slider values back into the scene file",
    "P              screenshot to springbox-NNNN.png",
    "G              the last 8 seconds as an animated GIF, springbox-NNNN.gif",
    "F5             replay: the run again from the start with the same drags, clicks and keys",
    "Ctrl+Z, Ctrl+Y the tuning before / after: each save and slider release is a revision",
    "[ ]            back / forward one kept moment (shift: 1 s); drag the timeline to scrub;",
    "               space runs on from the moment shown (the minute before now is kept)",
    "H              this help                    Q / Esc  quit",
    "saving the scene file reloads it; the state is kept if only tuning changed",
};

// The scene's camera (springbox.camera): a look or a follow moves the shared view, and every
// side learns what it shows, for springbox.camera.get. The left side's scene leads.
static void scene_camera(app *a)
{
    sb_camera_request req;
    if (sb_scene_camera(a->sides[0].scene, &req)) {
        a->view_moved = true; // placed by the scene: the refit for its plots must not undo it
        a->view.cx = req.x;
        a->view.cy = req.y;
        if (req.height > 0.0 && a->view.rect.h > 0)
            a->view.scale = a->view.rect.h / req.height;
    }
    for (int i = 0; i < side_count(a); ++i)
        sb_scene_set_view(a->sides[i].scene, a->view.cx, a->view.cy, a->view.rect.h / a->view.scale);
}

static void draw(app *a)
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
        if (i == 0)
            draw_ghost(a, &v);
        // The HUD's lines first, so that the scene's screen text starts under them as they are
        // this frame: laid out from the last frame's, a frame whose warning had just appeared
        // (or the only frame --screenshot renders) printed the scene's text over the warning.
        draw_hud_line(a, s, v.rect, 34, a->compare ? (i == 0 ? "LEFT: " : "RIGHT: ") : "");
        sb_draw_list list;
        char error[4096];
        bool drew = sb_scene_draw(s->scene, &list, error, sizeof error);
        render_draw_list(rc, &v, &list, s->hud_bottom > 0 ? s->hud_bottom : 34 + 2 * lh);
        if (!drew)
            callback_failed(s, error);
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
    // title and status
    side *s0 = &a->sides[0];
    char status[256];
    char fps[32] = "";
    if (a->fps > 0)
        snprintf(fps, sizeof fps, "   FPS %.0f", a->fps);
    snprintf(status, sizeof status, "%s%s   t %.2f s%s", sb_scene_title(s0->scene), fps,
             sb_world_get_stats(side_world(s0, 0))->time,
             a->rewinding ? "   REWOUND (space runs on from here)" : a->paused ? "   PAUSED" : "");
    render_text(rc, 10, 8, COLOR_TEXT, true, status);
    if (now_seconds() < a->behind_until) {
        char warn[160];
        snprintf(warn, sizeof warn, "physics is slower than real time (it takes %.0f%% of each frame): showing it slowed down",
                 100.0 * a->physics_share);
        render_text(rc, 10, 34 + 2 * lh, COLOR_WARN, false, warn);
    }
    // graphs, on a band of their own: the scene (a bounds line, a cloth hanging low) shows
    // above it, not through it (issue 22); the view is fitted clear of it (fit_clear_of_hud)
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
            const char *names[2] = {labels[g], "run before"};
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
    draw_inspector(a, gy);
    // tuning panel
    SDL_Rect panel = {a->width - PANEL_WIDTH, 0, PANEL_WIDTH, a->height};
    render_panel(rc, panel, (SDL_Color){30, 34, 42, 235});
    render_text(rc, panel.x + 12, 10, COLOR_TEXT, true, "tuning");
    slider sl[34];
    int n = sliders(a, sl, 34);
    SDL_Renderer *r = render_renderer(rc);
    for (int i = 0; i < n; ++i) {
        SDL_Rect bar = slider_rect(a, i);
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
    int notice_y = a->height - gh - 30 - ((plot_panels(s0) + 2) / 3) * (gh + 10) + lh, notice_w = a->view.rect.w - 20;
    for (int i = 0; i < MAX_NOTICES; ++i) {
        if (a->notices[i].until <= now)
            continue;
        notice_y -= wrapped_lines(a, notice_w, a->notices[i].text) * lh + 4;
        draw_wrapped(a, 10, notice_y, notice_w, a->notices[i].color, a->notices[i].text);
    }
    if (a->help) {
        int hh = (int)(sizeof help_lines / sizeof help_lines[0]) * lh + 50;
        SDL_Rect box = {40, 70, a->view.rect.w - 80, hh};
        render_panel(rc, box, (SDL_Color){10, 12, 16, 235});
        render_text(rc, box.x + 12, box.y + 8, COLOR_WARN, true, "keys");
        for (size_t i = 0; i < sizeof help_lines / sizeof help_lines[0]; ++i)
            render_text(rc, box.x + 12, box.y + 38 + (int)i * lh, COLOR_TEXT, false, help_lines[i]);
    }
}

// ---------------------------------------------------------------- input

static void set_method(app *a, int which, sb_method m)
{
    side *s = &a->sides[which];
    s->method_set = true;
    s->method = m;
    apply_overrides(s);
    add_notice(a, COLOR_TEXT, "%smethod: %s", a->compare ? (which ? "right: " : "left: ") : "", sb_method_name(m));
}

// Tethers (src/core/tether.c) on both sides at once, so a designer sees what they hold.
static void toggle_tethers(app *a)
{
    bool on = !sb_world_get_def(side_world(&a->sides[0], 0)).tethers;
    for (int i = 0; i < side_count(a); ++i) {
        a->sides[i].tethers = on;
        apply_overrides(&a->sides[i]);
    }
    add_notice(a, COLOR_TEXT, "tethers %s", on ? "on" : "off (rigid chains rely on the solver alone)");
}

static void change_solver(app *a, int d_iterations, int d_substeps)
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

/// Keeps every second physics frame of the view in the ring (the view as drawn, before it is
/// shown), remade when the window's size changes.
static void capture_gif_frame(app *a, SDL_Renderer *r)
{
    if (a->frame == a->gif_last_frame || a->frame % 2 != 0)
        return;
    a->gif_last_frame = a->frame;
    int w, h;
    SDL_GetRendererOutputSize(r, &w, &h);
    if (!a->gif_frame || a->gif_frame->w != w || a->gif_frame->h != h) {
        SDL_FreeSurface(a->gif_frame);
        gif_ring_destroy(a->gif);
        a->gif_frame = SDL_CreateRGBSurfaceWithFormat(0, w, h, 24, SDL_PIXELFORMAT_RGB24);
        a->gif = a->gif_frame ? gif_ring_create(w, h, GIF_SECONDS) : NULL;
    }
    if (a->gif && SDL_RenderReadPixels(r, NULL, SDL_PIXELFORMAT_RGB24, a->gif_frame->pixels, a->gif_frame->pitch) == 0)
        gif_ring_add(a->gif, a->gif_frame);
}

static void save_gif(app *a)
{
    static int count = 0;
    char path[64], why[256];
    if (!a->gif || gif_ring_frames(a->gif) == 0) {
        add_notice(a, COLOR_ERROR, "GIF: nothing to save yet (the view is kept while the physics runs)");
        return;
    }
    snprintf(path, sizeof path, "springbox-%04d.gif", ++count);
    if (gif_ring_save(a->gif, path, why, sizeof why))
        add_notice(a, COLOR_DRAG, "GIF: %s (the last %.1f s, %d frames)", path,
                   (double)gif_ring_frames(a->gif) / GIF_FPS, gif_ring_frames(a->gif));
    else
        add_notice(a, COLOR_ERROR, "GIF %s failed: %s", path, why);
}
#else
static void save_gif(app *a) { add_notice(a, COLOR_ERROR, "GIF: this springbox was built without giflib (libgif-dev)"); }
#endif

static void screenshot(app *a, SDL_Renderer *r)
{
    static int count = 0;
    char path[64];
    snprintf(path, sizeof path, "springbox-%04d.png", ++count);
    int w, h;
    SDL_GetRendererOutputSize(r, &w, &h);
    SDL_Surface *shot = SDL_CreateRGBSurfaceWithFormat(0, w, h, 24, SDL_PIXELFORMAT_RGB24);
    bool ok = shot && SDL_RenderReadPixels(r, NULL, SDL_PIXELFORMAT_RGB24, shot->pixels, shot->pitch) == 0 &&
              IMG_SavePNG(shot, path) == 0; // SDL2_image writes the PNG
    SDL_FreeSurface(shot);
    if (ok)
        add_notice(a, COLOR_DRAG, "screenshot: %s", path);
    else
        add_notice(a, COLOR_ERROR, "screenshot failed: %s", SDL_GetError());
}

/// Fits `v` to the scene in the part of its rectangle that the HUD leaves clear: below the
/// status lines and above the graphs (the scene's own plots add rows), so no text covers it.
static void fit_clear_of_hud(app *a, sb_view *v)
{
    sb_world *ws[8];
    int n = 0;
    for (int k = 0; k < sb_scene_world_count(a->sides[0].scene) && n < 8; ++k)
        ws[n++] = side_world(&a->sides[0], k);
    int plot_rows = (plot_panels(&a->sides[0]) + 2) / 3;
    a->fitted_rows = plot_rows;
    int top = 80, bottom = 90 * (1 + plot_rows);
    sb_view inner = *v;
    inner.rect.y += top;
    inner.rect.h -= top + bottom;
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

static void fit_view(app *a)
{
    sb_view v = view_for(a, 0);
    fit_clear_of_hud(a, &v);
    a->view.cx = v.cx;
    a->view.cy = v.cy;
    a->view.scale = v.scale;
}

static void toggle_compare(app *a)
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

// ---------------------------------------------------------------- the tuning history

static revision current_tunables(const app *a)
{
    revision r;
    memset(&r, 0, sizeof r);
    sb_scene *sc = a->sides[0].scene;
    int n = sb_scene_tunable_count(sc);
    for (int i = 0; i < n && r.count < REVISION_TUNABLES; ++i) {
        sb_tunable t = sb_scene_tunable(sc, i);
        snprintf(r.name[r.count], sizeof r.name[r.count], "%s", t.name);
        r.value[r.count] = t.value;
        r.count += 1;
    }
    return r;
}

static bool revisions_equal(const revision *x, const revision *y)
{
    if (x->count != y->count)
        return false;
    for (int i = 0; i < x->count; ++i)
        if (strcmp(x->name[i], y->name[i]) != 0 || x->value[i] != y->value[i])
            return false;
    return true;
}

/// After a reload that took (a save, a slider let go): a new revision if the values changed. A
/// change made while an earlier revision is in force drops the ones after it, as an editor's
/// undo does.
static void revision_note(app *a)
{
    if (a->applying_revision || !a->revisions)
        return;
    revision now = current_tunables(a);
    if (now.count == 0 || (a->revision_count > 0 && revisions_equal(&a->revisions[a->revision_at], &now)))
        return;
    int at = a->revision_count == 0 ? 0 : a->revision_at + 1;
    if (at >= MAX_REVISIONS) { // the oldest goes
        memmove(a->revisions, a->revisions + 1, sizeof *a->revisions * (MAX_REVISIONS - 1));
        at = MAX_REVISIONS - 1;
    }
    a->revisions[at] = now;
    a->revision_at = at;
    a->revision_count = at + 1;
}

/// Puts revision `to` in force: each tunable that differs is set as a slider would set it (a
/// hot reload, state kept, the change ramping in), and a notice says what changed.
static void revision_go(app *a, int to)
{
    if (a->revision_count < 2 || to < 0 || to >= a->revision_count) {
        add_notice(a, COLOR_TEXT, a->revision_count < 2 ? "no earlier tuning yet: each save and slider release is a revision"
                                                        : to < 0 ? "this is the first tuning revision" : "this is the latest tuning revision");
        return;
    }
    const revision *want = &a->revisions[to];
    revision now = current_tunables(a);
    char changes[200] = "";
    size_t used = 0;
    a->applying_revision = true;
    for (int i = 0; i < want->count; ++i) {
        double was = NAN;
        for (int k = 0; k < now.count; ++k)
            if (strcmp(now.name[k], want->name[i]) == 0)
                was = now.value[k];
        if (was == want->value[i])
            continue;
        for (int k = 0; k < side_count(a); ++k)
            handle_reload(a, &a->sides[k], sb_scene_set_tunable(a->sides[k].scene, want->name[i], want->value[i]), "");
        if (used < sizeof changes)
            used += (size_t)snprintf(changes + used, sizeof changes - used, "%s%s %g -> %g", used ? ", " : "",
                                     want->name[i], was, want->value[i]);
    }
    a->applying_revision = false;
    a->revision_at = to;
    add_notice(a, COLOR_DRAG, "tuning revision %d of %d: %s", to + 1, a->revision_count, used ? changes : "no change");
}

// ---------------------------------------------------------------- rewind

static int moments(const app *a) { return sb_scene_history_count(a->sides[0].scene); }

/// The timeline in the tuning panel, above its key hints: a bar as wide as a slider.
static SDL_Rect timeline_rect(const app *a)
{
    int lh = render_line_height(a->rc, false);
    SDL_Rect r = {a->width - PANEL_WIDTH + 12, a->height - 3 * lh - 26, PANEL_WIDTH - 24, 8};
    return r;
}

/// Shows moment i of the left side's history (and the moment as far from the newest on the
/// right side's), paused: the worlds and springbox.state as they were, the tuning of now.
static void rewind_to(app *a, int i)
{
    int n = moments(a);
    if (n == 0)
        return;
    i = i < 0 ? 0 : i >= n ? n - 1 : i;
    drag_end(a);
    for (int k = 0; k < side_count(a); ++k) {
        int nk = sb_scene_history_count(a->sides[k].scene), j = nk - (n - i);
        sb_scene_history_go(a->sides[k].scene, j < 0 ? 0 : j);
    }
    a->rewinding = true;
    a->rewind_at = i;
    a->paused = true;
    // a replay goes on from the events of the moment shown
    long now = run_frame(a);
    for (a->replay_next = 0; a->replay && a->replay_next < sb_input_log_count(a->replay) &&
                             sb_input_log_event(a->replay, a->replay_next)->frame < now;)
        a->replay_next += 1;
}

static void rewind_step(app *a, int frames)
{
    if (moments(a) < 2) {
        add_notice(a, COLOR_TEXT, "nothing to rewind yet: moments are kept while the physics runs");
        return;
    }
    rewind_to(a, (a->rewinding ? a->rewind_at : moments(a) - 1) + frames);
}

/// Running on from the moment shown: the moments after it are forgotten.
static void rewind_resume(app *a)
{
    if (!a->rewinding)
        return;
    int n = moments(a), cut_from = n - 1 - a->rewind_at;
    for (int k = 0; k < side_count(a); ++k) {
        sb_scene *sc = a->sides[k].scene;
        sb_scene_history_cut(sc, sb_scene_history_count(sc) - 1 - cut_from);
    }
    a->rewinding = false;
    sb_input_log_cut(a->input, run_frame(a) - 1); // what was done at this moment goes again
    if (cut_from > 0)
        add_notice(a, COLOR_DRAG, "running on from %.2f s (the %.1f s after it are forgotten)",
                   sb_world_get_stats(side_world(&a->sides[0], 0))->time,
                   cut_from * sb_world_get_def(side_world(&a->sides[0], 0)).dt);
}

static void scrub_to(app *a, int x)
{
    SDL_Rect bar = timeline_rect(a);
    int n = moments(a);
    if (n < 2)
        return;
    double t = (x - bar.x) / (double)bar.w;
    t = t < 0.0 ? 0.0 : t > 1.0 ? 1.0 : t;
    rewind_to(a, (int)(t * (n - 1) + 0.5));
}

static void draw_timeline(app *a)
{
    int n = moments(a);
    if (n < 2)
        return;
    render_ctx *rc = a->rc;
    SDL_Renderer *r = render_renderer(rc);
    SDL_Rect bar = timeline_rect(a);
    int lh = render_line_height(rc, false), at = a->rewinding ? a->rewind_at : n - 1;
    sb_scene *sc = a->sides[0].scene;
    double t0 = sb_scene_history_time(sc, 0), t1 = sb_scene_history_time(sc, n - 1);
    char label[160];
    if (a->rewinding)
        snprintf(label, sizeof label, "rewound to %.2f s of %.1f..%.1f", sb_scene_history_time(sc, at), t0, t1);
    else
        snprintf(label, sizeof label, "rewind: %.1f s kept  [ ]", t1 - t0);
    render_text(rc, bar.x, bar.y - lh - 2, a->rewinding ? COLOR_DRAG : COLOR_TEXT, false, label);
    SDL_SetRenderDrawColor(r, 70, 76, 90, 255);
    SDL_RenderFillRect(r, &bar);
    SDL_Rect done = {bar.x, bar.y, (int)((double)at / (n - 1) * bar.w), bar.h};
    SDL_SetRenderDrawColor(r, 110, 150, 200, 255);
    SDL_RenderFillRect(r, &done);
    SDL_Rect knob = {bar.x + (int)((double)at / (n - 1) * (bar.w - 6)), bar.y - 3, 6, bar.h + 6};
    SDL_SetRenderDrawColor(r, 230, 233, 240, 255);
    SDL_RenderFillRect(r, &knob);
    if (!sb_scene_history_keeps_state(sc))
        render_text(rc, bar.x, bar.y + bar.h + 2, COLOR_WARN, false, "springbox.state too big: not rewound");
}

static void restart(app *a)
{
    drag_end(a);
    a->rewinding = false;
    for (int i = 0; i < side_count(a); ++i)
        handle_reload(a, &a->sides[i], sb_scene_restart(a->sides[i].scene), "");
    sb_input_log_clear(a->input); // a new run, new hands
    sb_input_log_free(a->replay);
    a->replay = NULL;
    trace_free(&a->ghost);
}

/// F5: the run again from the file's start, under the tuning of now, with the same hands: what
/// was recorded since the run began is done again at the same frames.
static void replay_run(app *a)
{
    if (sb_input_log_count(a->input) == 0) {
        add_notice(a, COLOR_TEXT, "nothing to replay yet: drag, click or type in the scene first");
        return;
    }
    // The hands, not the tuning: slider moves are left out, so the whole run is under the tuning
    // of now (replayed, a slider moved since would be put back where it was)
    sb_input_log *hands = sb_input_log_create();
    int tunes = 0;
    for (int k = 0; k < sb_input_log_count(a->input); ++k) {
        const sb_input_event *e = sb_input_log_event(a->input, k);
        if (e->kind == SB_INPUT_TUNE)
            tunes += 1;
        else if (hands)
            sb_input_log_add(hands, e);
    }
    if (!hands)
        return;
    sb_input_log_clear(a->input);
    drag_end(a);
    a->rewinding = false;
    for (int i = 0; i < side_count(a); ++i)
        handle_reload(a, &a->sides[i], sb_scene_restart(a->sides[i].scene), "");
    sb_input_log_free(a->replay);
    a->replay = hands;
    a->replay_next = 0;
    a->paused = false;
    trace_free(&a->ghost); // the run that just ended becomes the ghost
    a->ghost = a->trace;
    memset(&a->trace, 0, sizeof a->trace);
    add_notice(a, COLOR_DRAG, "replaying %d recorded inputs from the start, under the tuning of now%s",
               sb_input_log_count(hands), tunes ? " (slider moves left out)" : "");
}

static void on_key(app *a, SDL_Keysym key, SDL_Renderer *r)
{
    bool shift = (key.mod & KMOD_SHIFT) != 0;
    switch (key.sym) {
    case SDLK_ESCAPE:
    case SDLK_q: a->running = false; break;
    case SDLK_SPACE:
        if (a->paused)
            rewind_resume(a); // runs on from the moment shown
        a->paused = !a->paused;
        add_notice(a, COLOR_TEXT, a->paused ? "paused (N steps one frame, [ and ] step through the kept moments)" : "running");
        break;
    case SDLK_n:
    case SDLK_PERIOD:
        if (a->rewinding && a->rewind_at < moments(a) - 1) {
            rewind_step(a, 1); // forward through what was, not a new frame
        } else {
            rewind_resume(a);
            a->step_once = true;
        }
        break;
    case SDLK_z:
        if (key.mod & KMOD_CTRL)
            revision_go(a, shift ? a->revision_at + 1 : a->revision_at - 1);
        break;
    case SDLK_y:
        if (key.mod & KMOD_CTRL)
            revision_go(a, a->revision_at + 1);
        break;
    case SDLK_LEFTBRACKET: rewind_step(a, shift ? -60 : -1); break;
    case SDLK_RIGHTBRACKET: rewind_step(a, shift ? 60 : 1); break;
    case SDLK_r: restart(a); break;
    case SDLK_F5: replay_run(a); break;
    case SDLK_c: toggle_compare(a); break;
    case SDLK_f:
        fit_view(a);
        a->view_moved = false;
        break;
    case SDLK_h:
    case SDLK_F1: a->help = !a->help; break;
    case SDLK_p: screenshot(a, r); break;
    case SDLK_g: save_gif(a); break;
    case SDLK_w: write_back(a); break;
    case SDLK_t: toggle_tethers(a); break;
    case SDLK_UP: change_solver(a, +1, 0); break;
    case SDLK_DOWN: change_solver(a, -1, 0); break;
    case SDLK_RIGHT: change_solver(a, 0, +1); break;
    case SDLK_LEFT: change_solver(a, 0, -1); break;
    default:
        if (key.sym >= SDLK_1 && key.sym <= SDLK_6) {
            int which = shift && a->compare ? 1 : 0;
            set_method(a, which, (sb_method)(key.sym - SDLK_1));
        }
        break;
    }
}

// ---------------------------------------------------------------- the scene's input

/// SDL's key name in lower case ("left", "space", "a", "return"), as springbox.keyboard reads it.
static void key_name(SDL_Keycode key, char *out, size_t size)
{
    snprintf(out, size, "%s", SDL_GetKeyName(key));
    for (char *c = out; *c; ++c)
        *c = (char)tolower((unsigned char)*c);
}

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

static void on_event(app *a, const SDL_Event *e, SDL_Renderer *r)
{
    switch (e->type) {
    case SDL_QUIT: a->running = false; break;
    case SDL_KEYDOWN: {
        // The scene hears every key first; one its keypressed returns true for is its own, and
        // the window's binding for that key (space, R, arrows...) does not run.
        SDL_Scancode sc = e->key.keysym.scancode;
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
            on_key(a, e->key.keysym, r);
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
            a->view.rect.w = a->width - PANEL_WIDTH;
            a->view.rect.h = a->height;
        }
        break;
    case SDL_MOUSEWHEEL: {
        int x, y;
        SDL_GetMouseState(&x, &y);
        if (scene_wheel(a, e->wheel.x, e->wheel.y))
            break;
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
            if (moments(a) > 1 && x >= tl.x - 6 && x <= tl.x + tl.w + 6 && y >= tl.y - 8 && y <= tl.y + tl.h + 8) {
                a->scrubbing = true;
                scrub_to(a, x);
                break;
            }
            if (x >= a->width - PANEL_WIDTH) {
                slider sl[34];
                int n = sliders(a, sl, 34);
                for (int i = 0; i < n; ++i) {
                    SDL_Rect bar = slider_rect(a, i);
                    if (y >= bar.y - 8 && y <= bar.y + bar.h + 8) {
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
            a->claimed_click = scene_click(a, at, scene_button(e->button.button), true);
            if (a->claimed_click)
                break;
            if (pick(a, at, &a->drag_world, &a->drag_index)) {
                a->dragging = true;
                drag_update(a, at, true);
            } else { // a spring shows what it asks and what it does; empty space puts that away
                int world;
                sb_spring_id id;
                a->inspecting = pick_spring(a, at, &world, &id);
                if (a->inspecting && (world != a->inspect_world || id.index != a->inspect_spring.index ||
                                      id.generation != a->inspect_spring.generation)) {
                    a->inspect_world = world;
                    a->inspect_spring = id;
                    a->inspect_count = 0;
                }
            }
        } else if (x < a->width - PANEL_WIDTH) {
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
        if (x < a->width - PANEL_WIDTH && a->drag_slider < 0)
            scene_motion(a, x, y, e->motion.xrel, e->motion.yrel);
        if (a->drag_slider >= 0) {
            slider sl[34];
            int n = sliders(a, sl, 34);
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
            break;
        }
        if (e->button.x < a->width - PANEL_WIDTH && a->drag_slider < 0) {
            sb_view v = view_for(a, e->button.x);
            scene_click(a, view_to_world(&v, e->button.x, e->button.y), scene_button(e->button.button), false);
        }
        if (e->button.button == SDL_BUTTON_LEFT) {
            if (a->drag_slider >= 0) {
                slider sl[34];
                int n = sliders(a, sl, 34), i = a->drag_slider;
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

// ---------------------------------------------------------------- stats

static void write_frame_stats(app *a)
{
    FILE *f = a->opt.stats;
    if (!f)
        return;
    side *s = &a->sides[0];
    sb_world *w = side_world(s, 0);
    const sb_stats *st = sb_world_get_stats(w);
    sb_world_def d = sb_world_get_def(w);
    fprintf(f,
            "{\"frame\":%ld,\"time\":%.6f,\"method\":\"%s\",\"iterations\":%d,\"substeps\":%d,\"tethers\":%s,\"paused\":%s,"
            "\"compare\":%s,\"kinetic\":%.9g,\"potential\":%.9g,\"max_stretch\":%.9g,\"contacts\":%d,"
            "\"step_ms\":%.4f,\"fps\":%.1f,\"halted\":%s,\"clamped_springs\":%d,\"overlapping_pairs\":%d,"
            "\"camera\":[%.9g,%.9g,%.9g],\"view\":[%d,%d,%d,%d],\"rewound\":%s,\"moments\":%d,\"timeline\":[%d,%d,%d,%d],\"inputs\":%d,\"replaying\":%s,\"ghost_frames\":%ld,\"revision\":[%d,%d]",
            a->frame, st->time, sb_method_name(d.method), d.iterations, d.substeps, d.tethers ? "true" : "false",
            a->paused ? "true" : "false",
            a->compare ? "true" : "false", st->kinetic_energy, st->potential_energy, st->max_stretch, st->contacts,
            st->step_ms, a->fps, st->halted ? "true" : "false", st->clamped_springs, st->overlapping_pairs, a->view.cx,
            a->view.cy, a->view.scale,
            a->view.rect.x, a->view.rect.y, a->view.rect.w, a->view.rect.h, a->rewinding ? "true" : "false",
            moments(a), timeline_rect(a).x, timeline_rect(a).y, timeline_rect(a).w, timeline_rect(a).h,
            sb_input_log_count(a->input), a->replay && a->replay_next < sb_input_log_count(a->replay) ? "true" : "false",
            a->ghost.frames, a->revision_at + 1, a->revision_count);
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
                   "\"asked_damping_ratio\":%.6g,\"measured_hertz\":%.6g,\"measured_damping_ratio\":%.6g}",
                a->inspect_world + 1, a->inspect_spring.index + 1, in.rigid ? "true" : "false", in.asked_hertz,
                in.asked_zeta, in.measured.hertz, in.measured.zeta);
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

// ---------------------------------------------------------------- the loop

static bool app_start(app *a, const window_options *o, char *error, size_t error_size)
{
    memset(a, 0, sizeof *a);
    a->opt = *o;
    a->drag_hertz = 5.0;
    a->drag_zeta = 0.7;
    a->drag_slider = -1;
    a->running = true;
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
    a->view.rect = (SDL_Rect){0, 0, a->width - PANEL_WIDTH, a->height};
    if (o->view_given) {
        a->view.cx = o->view_cx;
        a->view.cy = o->view_cy;
        a->view.scale = o->view_scale;
    } else {
        fit_clear_of_hud(a, &a->view);
    }
    return true;
}

static void app_stop(app *a)
{
    if (a->opt.record_input && a->input) {
        char why[256];
        if (!sb_input_log_write(a->input, a->opt.record_input, why, sizeof why))
            fprintf(stderr, "springbox: cannot write the input recording '%s' (--record-input): %s\n", a->opt.record_input, why);
    }
    sb_input_log_free(a->input);
    sb_input_log_free(a->replay);
    a->input = a->replay = NULL;
    trace_free(&a->trace);
    trace_free(&a->ghost);
    free(a->revisions);
    a->revisions = NULL;
    for (int i = 0; i < 2; ++i)
        if (a->sides[i].scene)
            sb_scene_close(a->sides[i].scene);
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
            sb_input_apply(a->sides[i].scene, e, &reload, error, sizeof error);
            callback_failed(&a->sides[i], error);
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

// SDL and the scene: false, with the reason printed, if either cannot start.
static bool app_open(app *a, const window_options *o, Uint32 sdl_subsystems)
{
    if (SDL_Init(sdl_subsystems) != 0) {
        fprintf(stderr, "springbox: %s (%s)\n",
                sdl_subsystems ? "cannot open a display; try --headless or --screenshot" : "SDL", SDL_GetError());
        return false;
    }
    // With no display SDL falls back to a video driver without windows ("offscreen"), and the app
    // would run where nobody can see it; only a driver asked for by name is taken as meant.
    const char *driver = SDL_GetCurrentVideoDriver();
    if ((sdl_subsystems & SDL_INIT_VIDEO) && driver && !getenv("SDL_VIDEODRIVER") &&
        (strcmp(driver, "offscreen") == 0 || strcmp(driver, "dummy") == 0)) {
        fprintf(stderr, "springbox: cannot open a display (SDL found only its '%s' driver); try --headless or --screenshot\n",
                driver);
        SDL_Quit();
        return false;
    }
    char error[4096];
    if (!app_start(a, o, error, sizeof error)) {
        fprintf(stderr, "springbox: %s\n", error);
        SDL_Quit();
        return false;
    }
    return true;
}

// Tears down in dependency order: textures, renderer, window or surface, scenes, SDL.
static void app_close(app *a, SDL_Renderer *r, SDL_Window *win, SDL_Surface *surface)
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
    app_stop(a);
    TTF_Quit();
    SDL_Quit();
}

int window_run(const window_options *options)
{
    app a;
    char error[4096];
    window_options live = *options;
    live.rewind = true; // a designer at the window can go back; an offscreen render has no one to
    const window_options *o = &live;
    if (!app_open(&a, o, SDL_INIT_VIDEO))
        return 1;
    SDL_Window *win = SDL_CreateWindow("springbox", SDL_WINDOWPOS_CENTERED, SDL_WINDOWPOS_CENTERED, a.width, a.height,
                                       SDL_WINDOW_RESIZABLE);
    SDL_Renderer *r = win ? SDL_CreateRenderer(win, -1, SDL_RENDERER_ACCELERATED | SDL_RENDERER_PRESENTVSYNC) : NULL;
    if (win && !r) // no GPU: the software renderer
        r = SDL_CreateRenderer(win, -1, SDL_RENDERER_SOFTWARE);
    a.rc = r ? render_create(r, error, sizeof error) : NULL;
    if (!a.rc) {
        fprintf(stderr, "springbox: %s\n", r ? error : SDL_GetError());
        app_close(&a, r, win, NULL);
        return 1;
    }
    SDL_SetWindowTitle(win, sb_scene_title(a.sides[0].scene));
    double last = now_seconds(), accumulator = 0.0, last_poll = 0.0, fps_time = last;
    int fps_frames = 0;
    while (a.running) {
        SDL_Event e;
        while (SDL_PollEvent(&e))
            on_event(&a, &e, r);
        double now = now_seconds();
        if (now - last_poll > 0.05) {
            last_poll = now;
            for (int i = 0; i < side_count(&a); ++i)
                handle_reload(&a, &a.sides[i], sb_scene_poll(a.sides[i].scene), a.compare ? (i ? "right: " : "left: ") : "");
        }
        // Physics at its fixed step; if it cannot keep up, drop the backlog and say so.
        double dt = sb_world_get_def(side_world(&a.sides[0], 0)).dt;
        double elapsed = fmin(now - last, 0.25);
        last = now;
        int steps = 0;
        if (!a.paused) {
            accumulator += elapsed;
            double started = now_seconds();
            while (accumulator >= dt && steps < 8 && now_seconds() - started < 0.05) {
                physics_frame(&a);
                accumulator -= dt;
                steps += 1;
            }
            double spent = now_seconds() - started;
            a.physics_share = 0.9 * a.physics_share + 0.1 * (elapsed > 0 ? fmin(spent / elapsed, 1.0) : 0.0);
            if (accumulator >= 2.0 * dt) { // could not catch up: drop the backlog, keep drawing
                accumulator = fmod(accumulator, dt);
                a.behind_until = now + 1.0;
            }
        } else {
            accumulator = 0.0;
            if (a.step_once) {
                physics_frame(&a);
                a.step_once = false;
            }
            if (a.opt.stats && fps_frames % 6 == 0)
                write_frame_stats(&a); // paused: time stands still, and the stats say so
        }
        draw(&a);
#ifdef SPRINGBOX_HAVE_GIF
        capture_gif_frame(&a, r);
#endif
        SDL_RenderPresent(r);
        if (strcmp(SDL_GetWindowTitle(win), sb_scene_title(a.sides[0].scene)) != 0) // set_title
            SDL_SetWindowTitle(win, sb_scene_title(a.sides[0].scene));
        fps_frames += 1;
        if (now - fps_time > 0.5) {
            a.fps = fps_frames / (now - fps_time);
            fps_frames = 0;
            fps_time = now;
        }
        if (o->frames > 0 && a.frame >= o->frames)
            a.running = false;
    }
    app_close(&a, r, win, NULL);
    return 0;
}

// ---------------------------------------------------------------- offscreen

static bool save_surface(SDL_Surface *s, const char *path)
{
    SDL_Surface *rgb = SDL_ConvertSurfaceFormat(s, SDL_PIXELFORMAT_RGB24, 0); // no alpha in the file
    bool ok = rgb && IMG_SavePNG(rgb, path) == 0;
    SDL_FreeSurface(rgb);
    return ok;
}

int window_offscreen(const window_options *o)
{
    app a;
    char error[4096];
    if (!app_open(&a, o, 0))
        return 1;
    SDL_Surface *surface = SDL_CreateRGBSurfaceWithFormat(0, a.width, a.height, 32, SDL_PIXELFORMAT_ARGB8888);
    SDL_Renderer *r = surface ? SDL_CreateSoftwareRenderer(surface) : NULL;
    a.rc = r ? render_create(r, error, sizeof error) : NULL;
    if (!a.rc) {
        fprintf(stderr, "springbox: %s\n", r ? error : SDL_GetError());
        app_close(&a, r, NULL, surface);
        return 1;
    }
    int status = 0;
#ifdef SPRINGBOX_HAVE_GIF
    gif_writer *gif = NULL;
    if (o->gif) {
        char why[256];
        gif = gif_writer_open(o->gif, a.width, a.height, why, sizeof why);
        if (!gif) {
            fprintf(stderr, "springbox: cannot write the GIF '%s' (--gif): %s\n", o->gif, why);
            status = 2;
        }
    }
#endif
    for (int f = 0; f <= o->frames && status == 0; ++f) {
        if (f > 0)
            physics_frame(&a);
#ifdef SPRINGBOX_HAVE_GIF
        if (gif && f % 2 == 0) { // every second frame: 30 per second
            draw(&a);
            SDL_RenderPresent(r);
            if (!gif_writer_add(gif, surface))
                status = 2;
        }
#endif
        if (o->record_dir || f == o->frames) {
            draw(&a);
            SDL_RenderPresent(r);
            char path[4096];
            if (o->record_dir)
                snprintf(path, sizeof path, "%s/frame_%05d.png", o->record_dir, f);
            const char *out = o->record_dir ? path : o->screenshot;
            if (out && !save_surface(surface, out)) {
                fprintf(stderr, "springbox: cannot write %s\n", out);
                status = 2; // where to write was the argument's; 1 is for a scene that fails to load
            }
            if (o->record_dir && o->screenshot && f == o->frames && !save_surface(surface, o->screenshot))
                status = 2;
        }
    }
#ifdef SPRINGBOX_HAVE_GIF
    if (gif) {
        char why[256];
        int frames = gif_writer_frames(gif);
        if (!gif_writer_close(gif, why, sizeof why)) {
            fprintf(stderr, "springbox: cannot write the GIF '%s' (--gif): %s\n", o->gif, why);
            status = 2;
        } else {
            printf("springbox: wrote %s: %d frames, %.1f s at %d per second\n", o->gif, frames, (double)frames / GIF_FPS,
                   GIF_FPS);
        }
    }
#endif
    app_close(&a, r, NULL, surface);
    return status;
}
