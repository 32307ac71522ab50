// Time in the window: reloads and the tuning history (revisions, Ctrl+Z and Ctrl+Y), the
// recording of what the designer does, rewind and the timeline, restarts and replays. It calls
// window_sides.c only.
#define _POSIX_C_SOURCE 200809L
#include "window_internal.h"
#include "window_sides.h"
#include "window_time.h"
#include "web.h"

// ---------------------------------------------------------------- reloads and the recording

// a reload's notice replaces the last one still shown (of its side, in the compare view: the
// side's name is its kind)
static const char NOTICE_RELOAD[] = "reload";

/// A reload's outcome: the side's error or none, a notice, the --stats event and a revision.
void handle_reload(app *a, side *s, sb_reload_event e, const char *which)
{
    if (e.result == SB_RELOAD_NONE)
        return;
    static const char *const results[] = {"none", "kept", "restarted", "failed"};
    if (s == &a->sides[0])
        web_tell(results[e.result], e.message);
    if (a->opt.stats) { // as the headless runner writes them, and as the README documents
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
        add_notice_as(a, which[0] ? which : NOTICE_RELOAD, COLOR_ERROR, "%sreload failed: the last good scene keeps running", which);
        return;
    }
    s->has_error = false;
    s->told_paused = 0; // a new build may have a new state: told again
    apply_overrides(s);
    if (sb_scene_warning(s->scene)[0])
        add_notice(a, COLOR_WARN, "%s%s", which, sb_scene_warning(s->scene));
    if (s == &a->sides[0])
        revision_note(a);
    if (e.result == SB_RELOAD_KEPT) {
        add_notice_as(a, which[0] ? which : NOTICE_RELOAD, COLOR_DRAG, "%s%s", which, e.message);
        if (e.reshaped) { // the moments were of the old structure (sb_scene_history_clear), as the ghost's slots
            s->history = 0;
            a->rewinding = false;
            trace_free(&a->ghost);
            if (a->dragging && a->drag_world < sb_scene_world_count(s->scene) &&
                !sb_world_drag_particle(side_world(s, a->drag_world)).generation)
                a->dragging = false; // the particle held was taken away
        }
    } else {
        add_notice_as(a, which[0] ? which : NOTICE_RELOAD, COLOR_WARN, "%s%s", which, e.message);
        s->history = 0;
        a->rewinding = false; // a restart forgets the moments (sb_scene_history_clear)
        if (s == &a->sides[0] && run_frame(a) == 0 && !a->replay && !a->sketch_reloading && sb_input_log_count(a->input) > 0) {
            // a new run; the hands of the one the reload ended are what F5 replays under the new file
            // (a drawn line's restart is no new run: the drawing is part of the hands)
            sb_input_log_free(a->hands_before);
            a->hands_before = a->input;
            a->input = sb_input_log_create();
        }
        trace_free(&a->ghost);            // whose slots the ghost's need not match (F5 sets it after)
        if (a->dragging)
            a->dragging = false;
    }
}

void record_input(app *a, sb_input_event e)
{
    e.frame = run_frame(a);
    if (a->input)
        sb_input_log_add(a->input, &e);
}

void record_drag(app *a, sb_input_kind kind, sb_vec2 target)
{
    sb_input_event e = {.kind = kind, .world = a->drag_world, .particle = a->drag_index, .x = target.x, .y = target.y,
                        .hertz = a->drag_hertz, .damping_ratio = a->drag_zeta};
    record_input(a, e);
}

void drag_end(app *a)
{
    if (!a->dragging)
        return;
    record_input(a, (sb_input_event){.kind = SB_INPUT_RELEASE, .world = a->drag_world});
    for (int i = 0; i < side_count(a); ++i)
        if (a->drag_world < sb_scene_world_count(a->sides[i].scene))
            sb_world_drag_end(side_world(&a->sides[i], a->drag_world));
    a->dragging = false;
}

// ---------------------------------------------------------------- the tuning history

/// Every tunable's value now, in one block (count 0 without memory or tunables).
static revision current_tunables(const app *a)
{
    revision r = {0, 0, NULL, NULL};
    sb_scene *sc = a->sides[0].scene;
    int n = sb_scene_tunable_count(sc);
    sb_tunable *all = n > 0 ? malloc(sizeof *all * (size_t)n) : NULL;
    n = all ? sb_scene_tunables(sc, all, n) : 0;
    size_t bytes = (sizeof(char *) + sizeof(double)) * (size_t)n;
    for (int i = 0; i < n; ++i)
        bytes += strlen(all[i].name) + 1;
    char *block = n > 0 ? malloc(bytes) : NULL;
    if (block) {
        r.value = (double *)block;
        r.name = (const char **)(block + sizeof(double) * (size_t)n);
        char *text = block + (sizeof(char *) + sizeof(double)) * (size_t)n;
        for (int i = 0; i < n; ++i) {
            size_t len = strlen(all[i].name) + 1;
            memcpy(text, all[i].name, len);
            r.name[i] = text;
            r.value[i] = all[i].value;
            text += len;
        }
        r.count = n;
        r.bytes = bytes;
    }
    free(all);
    return r;
}

static void revision_free(revision *r)
{
    free(r->value); // the block's start
    *r = (revision){0, 0, NULL, NULL};
}

void revisions_free(app *a)
{
    for (int i = 0; a->revisions && i < a->revision_count; ++i)
        revision_free(&a->revisions[i]);
    free(a->revisions);
    a->revisions = NULL;
    a->revision_count = a->revision_at = 0;
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

/// Forgets the oldest revision.
static void revision_drop_oldest(app *a)
{
    revision_free(&a->revisions[0]);
    memmove(a->revisions, a->revisions + 1, sizeof *a->revisions * (size_t)(a->revision_count - 1));
    a->revision_count -= 1;
    a->revision_at = a->revision_at > 0 ? a->revision_at - 1 : 0;
}

/// After a reload that took (a save, a slider let go): a new revision if the values changed. A
/// change made while an earlier revision is in force drops the ones after it, as an editor's
/// undo does. Every tunable takes part, whether it has a slider or not.
void revision_note(app *a)
{
    if (a->applying_revision || !a->revisions)
        return;
    revision now = current_tunables(a);
    if (now.count == 0 || (a->revision_count > 0 && revisions_equal(&a->revisions[a->revision_at], &now))) {
        revision_free(&now);
        return;
    }
    while (a->revision_count > a->revision_at + 1) // the ones after the revision in force
        revision_free(&a->revisions[--a->revision_count]);
    size_t held = now.bytes;
    for (int i = 0; i < a->revision_count; ++i)
        held += a->revisions[i].bytes;
    for (int i = 0; a->revision_count > 0 && (a->revision_count >= MAX_REVISIONS || held > REVISION_BYTES); ++i) {
        held -= a->revisions[0].bytes;
        revision_drop_oldest(a);
    }
    a->revisions[a->revision_count] = now;
    a->revision_at = a->revision_count;
    a->revision_count += 1;
}

/// Puts revision `to` in force: each tunable that differs is set as a slider would set it (a
/// hot reload, state kept, the change ramping in), and a notice says what changed.
void revision_go(app *a, int to)
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
    revision_free(&now);
    a->revision_at = to;
    add_notice(a, COLOR_DRAG, "tuning revision %d of %d: %s", to + 1, a->revision_count, used ? changes : "no change");
}


// ---------------------------------------------------------------- rewind


int moments(const app *a) { return sb_scene_history_count(a->sides[0].scene); }

/// The timeline in the tuning panel, above its key hints: a bar as wide as a slider.
SDL_Rect timeline_rect(const app *a)
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

void rewind_step(app *a, int frames)
{
    if (moments(a) < 2) {
        add_notice(a, COLOR_TEXT, "nothing to rewind yet: moments are kept while the physics runs");
        return;
    }
    rewind_to(a, (a->rewinding ? a->rewind_at : moments(a) - 1) + frames);
}

/// Running on from the moment shown: the moments after it are forgotten.
void rewind_resume(app *a)
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

void scrub_to(app *a, int x)
{
    SDL_Rect bar = timeline_rect(a);
    int n = moments(a);
    if (n < 2)
        return;
    double t = (x - bar.x) / (double)bar.w;
    t = t < 0.0 ? 0.0 : t > 1.0 ? 1.0 : t;
    rewind_to(a, (int)(t * (n - 1) + 0.5));
}

void draw_timeline(app *a)
{
    int n = moments(a);
    render_ctx *rc = a->rc;
    SDL_Rect bar = timeline_rect(a);
    if (n < 2)
        return;
    SDL_Renderer *r = render_renderer(rc);
    int lh = render_line_height(rc, false), at = a->rewinding ? a->rewind_at : n - 1;
    sb_scene *sc = a->sides[0].scene;
    double t0 = sb_scene_history_time(sc, 0), t1 = sb_scene_history_time(sc, n - 1);
    char label[160];
    const size_t fits = (size_t)(bar.w / render_char_width(rc, false)); // the longest label that fits, never cut
    if (a->rewinding) {
        snprintf(label, sizeof label, "rewound to %.2f s of %.1f..%.1f", sb_scene_history_time(sc, at), t0, t1);
        if (strlen(label) > fits)
            snprintf(label, sizeof label, "rewound to %.2f s", sb_scene_history_time(sc, at));
        if (strlen(label) > fits)
            snprintf(label, sizeof label, "at %.2f s", sb_scene_history_time(sc, at));
    } else {
        snprintf(label, sizeof label, "rewind: %.1f s kept  [ ]", t1 - t0);
    }
    render_text(rc, bar.x, bar.y - lh - 2, a->rewinding ? COLOR_DRAG : COLOR_TEXT, false, label);
    SDL_SetRenderDrawColor(r, 70, 76, 90, 255);
    SDL_RenderFillRect(r, &bar);
    SDL_Rect done = {bar.x, bar.y, (int)((double)at / (n - 1) * bar.w), bar.h};
    SDL_SetRenderDrawColor(r, 110, 150, 200, 255);
    SDL_RenderFillRect(r, &done);
    SDL_Rect knob = {bar.x + (int)((double)at / (n - 1) * (bar.w - 6)), bar.y - 3, 6, bar.h + 6};
    SDL_SetRenderDrawColor(r, 230, 233, 240, 255);
    SDL_RenderFillRect(r, &knob);
}

void restart(app *a)
{
    drag_end(a);
    a->rewinding = false;
    for (int i = 0; i < side_count(a); ++i)
        handle_reload(a, &a->sides[i], sb_scene_restart(a->sides[i].scene), "");
    sb_input_log_clear(a->input); // a new run, new hands
    sb_input_log_free(a->replay);
    sb_input_log_free(a->hands_before);
    a->replay = a->hands_before = NULL;
    trace_free(&a->ghost);
    a->paused = false; // a restart runs, paused or not before
}

void run_on(app *a)
{
    rewind_resume(a);
    a->paused = false;
    add_notice(a, COLOR_TEXT, "running");
}

/// F5: the run again from the file's start, under the tuning of now, with the same hands: what
/// was recorded since the run began is done again at the same frames.
void replay_run(app *a)
{
    // the run's own hands; with none since a reload restarted it, those of the run before
    const sb_input_log *from = sb_input_log_count(a->input) > 0 ? a->input : a->hands_before;
    if (sb_input_log_count(from) == 0) {
        add_notice(a, COLOR_TEXT, "nothing to replay yet: drag, click or type in the scene first");
        return;
    }
    // The hands, not the tuning: slider moves are left out, so the whole run is under the tuning
    // of now (replayed, a slider moved since would be put back where it was)
    sb_input_log *hands = sb_input_log_create();
    int tunes = 0;
    for (int k = 0; k < sb_input_log_count(from); ++k) {
        const sb_input_event *e = sb_input_log_event(from, k);
        if (e->kind == SB_INPUT_TUNE)
            tunes += 1;
        else if (hands && e->kind != SB_INPUT_SKETCH && e->kind != SB_INPUT_TAKE_BACK) // (the file has the drawing)
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

/// V: the scene alone over the whole window (no HUD, panel, graphs or notices), so that a
/// screenshot or a GIF shows the prototype; V again brings the window back. The window's title
/// says how while it is on.
void toggle_clean(app *a)
{
    a->clean = !a->clean;
    a->help = false;
    a->view.rect.w = scene_view_width(a);
    if (!a->clean)
        add_notice(a, COLOR_TEXT, "the window is back (V: the scene alone)");
}

/// Space and Pause: pause, or run on (from the moment shown when rewound).
void pause_toggle(app *a)
{
    if (a->paused)
        rewind_resume(a); // runs on from the moment shown
    a->paused = !a->paused;
    add_notice(a, COLOR_TEXT, a->paused ? "paused (N steps one frame, [ and ] step through the kept moments)" : "running");
}

/// N: one frame while paused, or forward through the kept moments when rewound.
void step_frame(app *a)
{
    if (a->rewinding && a->rewind_at < moments(a) - 1) {
        rewind_step(a, 1); // forward through what was, not a new frame
    } else {
        rewind_resume(a);
        a->step_once = true;
    }
}
