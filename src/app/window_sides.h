// window_sides.c's functions: the scene's sides, their history and traces, notices (it calls
// none of the other panels).
#ifndef SB_WINDOW_SIDES_H
#define SB_WINDOW_SIDES_H

#include "window_internal.h"

double now_seconds(void);
/// A notice over the scene for a few seconds, in `color` (printf-style).
void add_notice(app *a, SDL_Color color, const char *fmt, ...);
/// A notice of a kind ("reload"): it takes the place of the last one of that kind still shown, so
/// that a run of saves shows one line, the latest.
void add_notice_as(app *a, const char *kind, SDL_Color color, const char *fmt, ...);
void apply_overrides(side *s);
bool side_open(app *a, side *s, char *error, size_t error_size);
sb_world *side_world(const side *s, int i);
int side_count(const app *a);
/// The left side's particle whose circle (grown by a few pixels) holds the point, nearest first;
/// *gap, if given, how far the point is outside its circle (0 inside it).
bool side_pick(const app *a, sb_vec2 at, int *world, uint32_t *index, double *gap);
/// The run's frame: steps of the left side's first world (a rewind takes it back, a restart to 0).
long run_frame(const app *a);
/// A scene callback raised: shown over the scene until the next reload; that callback stays off.
void callback_failed(side *s, const char *error);
/// The panel series p is drawn in: the order its panel name first appears among the series.
int plot_panel_index(const side *s, int p);
/// How many panels the series take.
int plot_panels(const side *s);
void record_history(side *s);
void trace_free(run_trace *t);
/// Keeps the frame the run has just made (frame f at index f - 1; a rewound run overwrites).
void trace_record(app *a);
/// The run before the replay, faint, where it was at this frame: its springs and particles.
void draw_ghost(app *a, const sb_view *v);
/// The ghost's series aligned with a graph's window, which ends at this frame; NAN where none.
void ghost_series(const app *a, const float *of, int count, float *out);

#endif
