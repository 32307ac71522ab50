// window_sketch.c's functions: draw mode (D), its tools and the lines it writes into the scene
// file.
#ifndef SB_WINDOW_SKETCH_H
#define SB_WINDOW_SKETCH_H

#include "window_internal.h"

void sketch_toggle(app *a);
void sketch_next_tool(app *a, int step); // Tab: the next tool (shift: the one before)
const char *sketch_tool_name(const app *a);
void sketch_draw(app *a, const sb_view *v); // the stroke being drawn, as what it will write
void sketch_press(app *a, sb_vec2 at);   // the left button down, in draw mode
void sketch_move(app *a, sb_vec2 at);
void sketch_release(app *a, sb_vec2 at); // the thing drawn is written into the scene file
/// Ctrl+Z (Ctrl+Y: redo) in draw mode: the last drawn line out of the file (back in); false when
/// draw mode is off (the key is the tuning history's).
bool sketch_undo(app *a, bool redo);
void sketch_free(app *a);

#endif
