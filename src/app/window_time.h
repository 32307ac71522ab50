// window_time.c's functions: reloads and the tuning history, the input recording, rewind,
// replays.
#ifndef SB_WINDOW_TIME_H
#define SB_WINDOW_TIME_H

#include "window_internal.h"

void handle_reload(app *a, side *s, sb_reload_event e, const char *which);
void record_input(app *a, sb_input_event e);
void record_drag(app *a, sb_input_kind kind, sb_vec2 target);
void drag_end(app *a);
/// After a reload that took (a save, a slider let go): a new revision if the values changed. A
/// change made while an earlier revision is in force drops the ones after it, as an editor's
/// undo does.
void revision_note(app *a);
int moments(const app *a);
/// The timeline in the tuning panel, above its key hints: a bar as wide as a slider.
SDL_Rect timeline_rect(const app *a);
void scrub_to(app *a, int x);
void draw_timeline(app *a);
void restart(app *a);
/// Out of a pause or a rewind: the run goes on from the moment shown.
void run_on(app *a);
void revision_go(app *a, int to);
/// Frees the tuning history (the app's end).
void revisions_free(app *a);
void rewind_step(app *a, int frames);
void rewind_resume(app *a);
void replay_run(app *a);
void toggle_clean(app *a);
void pause_toggle(app *a);
void step_frame(app *a);

#endif
