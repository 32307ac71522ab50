// The scene's worlds side by side: opening them, their plots and history, the ghost of the last
// run, and the notices over the scene. The lowest of the window's files: it calls none of the
// others.
#define _POSIX_C_SOURCE 200809L
#include "window_internal.h"
#include "window_sides.h"
#include "web.h"

// ---------------------------------------------------------------- notices

double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/// A notice over the scene for a few seconds, in `color` (printf-style).
static void push_notice(app *a, const char *kind, SDL_Color color, const char *fmt, va_list ap)
{
    notice n;
    vsnprintf(n.text, sizeof n.text, fmt, ap);
    n.color = color;
    n.until = now_seconds() + 4.0;
    n.kind = kind;
    int drop = MAX_NOTICES - 1; // the oldest goes, or the one of this kind it replaces
    for (int i = 0; kind && i < MAX_NOTICES; ++i)
        if (a->notices[i].kind == kind && a->notices[i].until > now_seconds()) {
            drop = i;
            break;
        }
    memmove(&a->notices[1], &a->notices[0], sizeof(notice) * (size_t)drop);
    a->notices[0] = n;
    if (a->opt.stats) {
        fprintf(a->opt.stats, "{\"event\":\"notice\",\"frame\":%ld,\"text\":", a->frame);
        sb_json_string(a->opt.stats, n.text);
        fputs("}\n", a->opt.stats);
        fflush(a->opt.stats);
    }
}

void add_notice(app *a, SDL_Color color, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    push_notice(a, NULL, color, fmt, ap);
    va_end(ap);
}

void add_notice_as(app *a, const char *kind, SDL_Color color, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    push_notice(a, kind, color, fmt, ap);
    va_end(ap);
}

// ---------------------------------------------------------------- sides

void apply_overrides(side *s)
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

bool side_open(app *a, side *s, char *error, size_t error_size)
{
    sb_scene_options so = sb_default_scene_options();
    so.path = a->opt.scene_path;
    so.trusted = a->opt.trusted;
    s->scene = sb_scene_open(&so, error, error_size);
    if (!s->scene)
        return false;
    if (a->opt.rewind)
        sb_scene_history_enable(s->scene, REWIND_SECONDS, REWIND_BYTES, REWIND_MS);
    apply_overrides(s);
    if (sb_scene_warning(s->scene)[0] && s == &a->sides[0])
        add_notice(a, COLOR_WARN, "%s", sb_scene_warning(s->scene));
    return true;
}

sb_world *side_world(const side *s, int i) { return sb_scene_world(s->scene, i); }
int side_count(const app *a) { return a->compare ? 2 : 1; }
/// The run's frame: steps of the left side's first world (a rewind takes it back, a restart to 0).
long run_frame(const app *a) { return sb_scene_frames(a->sides[0].scene); }

/// A scene callback raised: shown over the scene until the next reload; that callback stays off.
void callback_failed(side *s, const char *error)
{
    if (!error[0])
        return;
    snprintf(s->error, sizeof s->error, "%s() failed and stays off until the file is saved (the rest keep running):\n%.3900s",
             sb_scene_failed_function(s->scene), error);
    s->has_error = true;
    s->error_title = "a scene function failed: the scene runs on without it (save to retry)";
    web_tell("error", s->error);
}

/// The panel series p is drawn in: the order its panel name first appears among the series.
int plot_panel_index(const side *s, int p)
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
int plot_panels(const side *s)
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

void record_history(side *s)
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

void trace_free(run_trace *t)
{
    free(t->xy);
    free(t->energy);
    free(t->stretch);
    memset(t, 0, sizeof *t);
}

/// Keeps the frame the run has just made (frame f at index f - 1; a rewound run overwrites).
void trace_record(app *a)
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
void draw_ghost(app *a, const sb_view *v)
{
    const run_trace *g = &a->ghost;
    long f = run_frame(a) - 1;
    if (!g->xy || f < 0 || f >= g->frames)
        return;
    const float *row = g->xy + (size_t)f * (size_t)g->slots * 2;
    sb_world *w = sb_scene_world(a->sides[0].scene, 0);
    SDL_Renderer *r = render_renderer(a->rc);
    SDL_RenderSetClipRect(r, &v->rect); // the view's part of the window, not the panel beside it
    SDL_SetRenderDrawColor(r, 200, 210, 230, 70);
    sb_spring_id it = sb_null_spring();
    while (sb_world_next_spring(w, &it)) {
        sb_spring_def d;
        if (sb_spring_get(w, it, &d) != SB_OK || (int)d.a.index >= g->slots || (int)d.b.index >= g->slots)
            continue;
        const float *pa = row + 2 * d.a.index, *pb = row + 2 * d.b.index;
        if (isnan(pa[0]) || isnan(pb[0]))
            continue;
        render_line(a->rc, v, (sb_vec2){pa[0], pa[1]}, (sb_vec2){pb[0], pb[1]});
    }
    SDL_SetRenderDrawColor(r, 200, 210, 230, 110);
    for (int i = 0; i < g->slots; ++i) {
        if (isnan(row[2 * i]))
            continue;
        render_dot(a->rc, v, (sb_vec2){row[2 * i], row[2 * i + 1]}, 4.0f);
    }
    SDL_RenderSetClipRect(r, NULL);
}

/// The ghost's series aligned with a graph's window, which ends at this frame; NAN where none.
void ghost_series(const app *a, const float *of, int count, float *out)
{
    long last = run_frame(a) - 1;
    for (int i = 0; i < count; ++i) {
        long f = last - (count - 1 - i);
        out[i] = of && f >= 0 && f < a->ghost.frames ? of[f] : NAN;
    }
}

bool side_pick(const app *a, sb_vec2 at, int *world, uint32_t *index, double *gap)
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
                if (gap)
                    *gap = dist > d.radius ? dist - d.radius : 0.0;
            }
        }
    }
    return isfinite(best);
}
