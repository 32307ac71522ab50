// Drawing springbox worlds, text, graphs and panels into any SDL_Renderer: a window's, or a
// software renderer on a surface for offscreen screenshots. Colours live in render.c.
#ifndef SB_RENDER_H
#define SB_RENDER_H

#include "sb_scene.h"
#include "sb_world.h"

#include <SDL.h>
#include <SDL_ttf.h>

/// World-to-pixel mapping: metres with y up, centred on (cx, cy) in the rectangle `rect`.
typedef struct sb_view { double cx, cy, scale; SDL_Rect rect; } sb_view;

/// Pixel position of a world point.
SDL_FPoint view_to_screen(const sb_view *v, sb_vec2 p);
/// World position of a pixel.
sb_vec2 view_to_world(const sb_view *v, double x, double y);
/// Centres and scales the view on everything in the worlds (particles, walls, bounds).
void view_fit(sb_view *v, sb_world *const *worlds, int count);
/// Zooms by `factor` keeping the world point under pixel (x, y) where it is.
void view_zoom_at(sb_view *v, double factor, double x, double y);

/// What to highlight: the dragged particle and its target, a halted world's culprits.
typedef struct render_marks {
    sb_particle_id drag;
    sb_vec2 drag_target;
    bool dragging;
} render_marks;

typedef struct render_ctx render_ctx;

/// Prepares textures and fonts for a renderer; NULL with a message if the font is missing.
render_ctx *render_create(SDL_Renderer *renderer, char *error, size_t error_size);
void render_destroy(render_ctx *rc);
SDL_Renderer *render_renderer(render_ctx *rc);

/// Clears to the background colour.
void render_clear(render_ctx *rc);
/// Walls the drawing looked at since the last call: those near the view, none while a kept
/// drawing of them serves (the walls and the view as they were).
long render_walls_visited(render_ctx *rc);
/// Draws walls, bounds, springs coloured by strain, particles (fixed ones in their colour).
void render_world(render_ctx *rc, const sb_view *v, const sb_world *w, const render_marks *marks);
/// Draws text with its top-left at (x, y); returns its width in pixels. `big` picks the larger font.
int render_text(render_ctx *rc, int x, int y, SDL_Color color, bool big, const char *text);
/// Text broken at spaces into lines of `width` pixels (at least `min_chars` characters each),
/// drawn when `draw`; returns the y under the last line.
int render_text_wrapped(render_ctx *rc, int x, int y, int width, int min_chars, SDL_Color color, bool big, const char *text,
                        bool draw);
/// Width of one character of the (monospace) font.
int render_char_width(render_ctx *rc, bool big);
/// Height of a line of text.
int render_line_height(render_ctx *rc, bool big);
/// A translucent panel.
void render_panel(render_ctx *rc, SDL_Rect r, SDL_Color color);
/// A line graph of `count` samples (oldest first) scaled to its own range, with a label.
void render_graph(render_ctx *rc, SDL_Rect r, const float *samples, int count, SDL_Color color, const char *label);
/// `n` series of `count` samples (oldest first) on one panel and one scale, each in its colour,
/// with a legend of their names and latest values.
void render_graph_shared(render_ctx *rc, SDL_Rect r, const float *const *series, int n, int count,
                         const SDL_Color *colors, const char *const *labels);
/// Two series of `count` samples (oldest first) about zero on one shared scale, with a zero line;
/// the first is dashed over the second; non-finite samples are left out.
void render_graph_pair(render_ctx *rc, SDL_Rect r, const float *const series[2], int count, const SDL_Color colors[2]);

/// A one-pixel line between two points in metres, in the renderer's draw colour, cut to the view
/// like everything drawn (however far off the ends lie).
void render_line(render_ctx *rc, const sb_view *v, sb_vec2 from, sb_vec2 to);
/// A square dot `size` pixels wide at a point in metres, in the draw colour; nothing off the view.
void render_dot(render_ctx *rc, const sb_view *v, sb_vec2 at, float size);

/// The most a scene's draw(g) is drawn in one frame: this many times the view's pixels.
#define RENDER_DRAW_SCREENS 24
/// Draws what a scene's draw(g) asked for (sb_scene_draw) over its world, clipped to the view.
/// Screen texts are placed from (the view's left + 10, screen_top): the scene's own part, below the HUD.
/// A frame draws at most RENDER_DRAW_SCREENS views' worth of pixels, in order; returns how many
/// commands it left undrawn for that (0: all drawn).
int render_draw_list(render_ctx *rc, const sb_view *v, const sb_draw_list *list, int screen_top);

/// Palette, shared with the tests that look for these colours in screenshots.
extern const SDL_Color COLOR_BACKGROUND, COLOR_PARTICLE, COLOR_FIXED, COLOR_SPRING_REST,
    COLOR_SPRING_STRETCHED, COLOR_SPRING_COMPRESSED, COLOR_WALL, COLOR_TEXT, COLOR_WARN, COLOR_ERROR, COLOR_DRAG;

#endif
