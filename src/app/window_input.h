// window_input.c's functions: the mouse, the sliders, picking, dragging and inspecting,
// captures.
#ifndef SB_WINDOW_INPUT_H
#define SB_WINDOW_INPUT_H

#include "window_internal.h"

/// The inspected spring's stretch this frame joins its history; it stops when the spring goes.
void inspect_record(app *a);
/// A spring was picked: its structure, if it was tuned as one, is what the view reads.
void inspect_pick(app *a);
bool inspect_read(app *a, inspection *in);
void set_method(app *a, int which, sb_method m);
void toggle_tethers(app *a);
void change_solver(app *a, int d_iterations, int d_substeps);
/// Keeps every second physics frame of the view in the ring (the view as drawn, before it is
/// shown), remade when the window's size changes.
void capture_gif_frame(app *a, SDL_Renderer *r);
/// G: the last seconds of the view as a GIF (a notice says where, or why not).
void save_gif(app *a);
void screenshot(app *a, SDL_Renderer *r);
/// Fits `v` to the scene in the part of its rectangle that the HUD leaves clear: below the
/// status lines and above the graphs (the scene's own plots add rows), so no text covers it.
void fit_clear_of_hud(app *a, sb_view *v);
/// The part of the view's rectangle the HUD's lines and the graphs leave clear (all of it in the
/// clean view): where a scene's camera centres what it looks at and fits its height.
SDL_Rect clear_area(const app *a, SDL_Rect rect);
void fit_view(app *a);
void toggle_compare(app *a);
/// A mouse event (window.c takes the keys and the window's own events to its key table).
void input_mouse(app *a, const SDL_Event *e);
/// Two fingers on the view: pan by (dx, dy) window pixels, then zoom by `factor` at (x, y).
void input_view_gesture(app *a, double dx, double dy, double factor, double x, double y);
int sliders(const app *a, slider *out, int max);
double slider_round(const slider *s, double value, int bar_width);
/// The decimals a slider's label shows: as many as its step (slider_round) has.
int slider_decimals(const slider *s, int bar_width);
SDL_Rect slider_rect(const app *a, int i);
/// The part of the panel the sliders scroll in (under the title, over the tuning revision).
SDL_Rect sliders_area(const app *a);
/// Whether slider i's label and bar lie wholly in the sliders' area (the others are scrolled away).
bool slider_shown(const app *a, int i);
/// Scrolls the sliders by `pixels` (down: positive), kept between the first and the last.
void sliders_scroll(app *a, int pixels);
void slider_set(app *a, int i, double value);
void write_back(app *a);

#endif
