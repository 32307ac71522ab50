// What render.c and render_scene.c share: the renderer's state (its circle texture, fonts, text
// cache, geometry buffers and the band geometry is clipped to) and its drawing primitives.
#ifndef SB_RENDER_INTERNAL_H
#define SB_RENDER_INTERNAL_H

#include "render.h"

enum { TEXT_CACHE = 192 };

typedef struct cached_text {
    char text[160];
    bool big;
    SDL_Color color;
    SDL_Texture *texture;
    int w, h;
    unsigned last_used;
} cached_text;

/// A drawing of one world's walls in one view: the batch's first vertices and indices.
typedef struct wall_drawing {
    uint64_t version; // sb_world_walls_version; 0: none
    sb_view view;
    SDL_Vertex *verts;
    int *indices;
    int nv, ni;
} wall_drawing;
enum { WALL_DRAWINGS = 4 };

struct render_ctx {
    SDL_Renderer *r;
    SDL_Texture *circle;
    TTF_Font *font, *font_big;
    cached_text cache[TEXT_CACHE];
    unsigned tick;
    SDL_Vertex *verts;
    int *indices;
    int vert_cap, index_cap;
    // Dense scenes: springs drawn as 1-pixel lines into `pixels`, shown through `layer`.
    SDL_Texture *layer;
    uint32_t *pixels;
    int layer_w, layer_h;
    // Particle positions by slot, gathered once per world per frame.
    SDL_FPoint *screen;
    uint8_t *joined;
    int screen_cap;
    // What geometry may reach SDL: the view being drawn and a band around it (set_guard).
    float gx0, gy0, gx1, gy1;
    SDL_FPoint *clip; // clip_polygon_to_guard's two buffers of clip_cap points each
    int clip_cap;
    // The walls in the view (sb_world_query_walls), and the last drawings of many walls, kept
    // while their world's walls and the view stay as they were (a still camera on a long polyline).
    sb_wall_id *wall_ids;
    int wall_id_cap;
    wall_drawing walls_kept[WALL_DRAWINGS];
    unsigned walls_kept_next;
    long walls_visited; // walls looked at since render_walls_visited last asked
};

/// Vertices and indices one line takes in the batch (thick_line).
enum { LINE_VERTS = 8, LINE_INDICES = 18 };

int render_text(render_ctx *rc, int x, int y, SDL_Color color, bool big, const char *text);
bool reserve_geometry(render_ctx *rc, int verts, int indices);
/// A scene's 0xRRGGBBAA colour.
SDL_Color rgba(uint32_t c);
/// Sets the band for drawing into `view`.
void set_guard(render_ctx *rc, const SDL_Rect *view);
/// A textured square of half-size `rad` at `c` (a circle sprite), cut to the band: the texture
/// coordinates are cut with it, which is exact for a square on the axes.
void sprite(render_ctx *rc, int *nv, int *ni, SDL_FPoint c, float rad, SDL_Color col);
void thick_line(render_ctx *rc, int *nv, int *ni, SDL_FPoint a, SDL_FPoint b, float width, SDL_Color c);
SDL_FPoint view_to_screen(const sb_view *v, sb_vec2 p);

#endif
