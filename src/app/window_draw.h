// window_draw.c's function: the window's frame drawn.
#ifndef SB_WINDOW_DRAW_H
#define SB_WINDOW_DRAW_H

#include "window_internal.h"

void draw(app *a);

#endif
