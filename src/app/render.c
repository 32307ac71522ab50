// Drawing. Particles are one anti-aliased circle texture drawn as batched quads; springs are
// batched quads coloured by strain. Two SDL_RenderGeometry calls draw a whole world.
#include "render_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// ---------------------------------------------------------------- head


const SDL_Color COLOR_BACKGROUND = {21, 24, 29, 255};
const SDL_Color COLOR_PARTICLE = {214, 220, 230, 255};
const SDL_Color COLOR_FIXED = {255, 162, 58, 255};
const SDL_Color COLOR_SPRING_REST = {128, 138, 156, 255};
const SDL_Color COLOR_SPRING_STRETCHED = {255, 64, 64, 255};
const SDL_Color COLOR_SPRING_COMPRESSED = {64, 150, 255, 255};
const SDL_Color COLOR_WALL = {235, 235, 235, 255};
const SDL_Color COLOR_TEXT = {230, 233, 240, 255};
const SDL_Color COLOR_WARN = {255, 200, 60, 255};
const SDL_Color COLOR_ERROR = {255, 90, 90, 255};
const SDL_Color COLOR_DRAG = {120, 255, 140, 255};
/// The spoke of a turning particle: the background's colour, half see-through, reads on any fill.
static const SDL_Color COLOR_SPOKE = {21, 24, 29, 150};

/// Strain at which a spring shows the full stretched or compressed colour.
static const double strain_full_colour = 0.10;

static const char *const font_paths[] = {
    "/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf", // fonts-dejavu-core
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/dejavu/DejaVuSansMono.ttf",
    NULL,
};

SDL_FPoint view_to_screen(const sb_view *v, sb_vec2 p)
{
    SDL_FPoint s;
    s.x = (float)(v->rect.x + v->rect.w * 0.5 + (p.x - v->cx) * v->scale);
    s.y = (float)(v->rect.y + v->rect.h * 0.5 - (p.y - v->cy) * v->scale);
    return s;
}

sb_vec2 view_to_world(const sb_view *v, double x, double y)
{
    sb_vec2 w;
    w.x = v->cx + (x - v->rect.x - v->rect.w * 0.5) / v->scale;
    w.y = v->cy - (y - v->rect.y - v->rect.h * 0.5) / v->scale;
    return w;
}

static void grow_box(double box[4], double x, double y, double r)
{
    box[0] = fmin(box[0], x - r);
    box[1] = fmin(box[1], y - r);
    box[2] = fmax(box[2], x + r);
    box[3] = fmax(box[3], y + r);
}

void view_fit(sb_view *v, sb_world *const *worlds, int count)
{
    double box[4] = {INFINITY, INFINITY, -INFINITY, -INFINITY};
    for (int k = 0; k < count; ++k) {
        const sb_world *w = worlds[k];
        sb_particle_id p = sb_null_particle();
        while (sb_world_next_particle(w, &p)) {
            sb_particle_def d;
            sb_particle_get(w, p, &d);
            grow_box(box, d.position.x, d.position.y, d.radius);
        }
        sb_wall_id wall = {SB_NULL_INDEX, 0};
        while (sb_world_next_wall(w, &wall)) {
            sb_vec2 a, b;
            sb_wall_get(w, wall, &a, &b);
            grow_box(box, a.x, a.y, 0);
            grow_box(box, b.x, b.y, 0);
        }
        sb_world_def def = sb_world_get_def(w);
        if (def.has_bounds) {
            grow_box(box, def.bounds.xmin, def.bounds.ymin, 0);
            grow_box(box, def.bounds.xmax, fmin(def.bounds.ymax, box[3] + 2.0), 0);
        }
    }
    if (!(box[0] <= box[2])) {
        box[0] = box[1] = -5;
        box[2] = box[3] = 5;
    }
    // Leave the top for the status lines and the bottom for the graphs.
    const double top = 64.0, bottom = 96.0;
    double w = fmax(box[2] - box[0], 0.5), h = fmax(box[3] - box[1], 0.5);
    double usable_h = fmax(v->rect.h - top - bottom, 100.0);
    v->scale = 0.92 * fmin(fmax(v->rect.w, 1.0) / w, usable_h / h);
    v->cx = 0.5 * (box[0] + box[2]);
    // the box's centre goes to the middle of the usable band, not of the whole rectangle
    v->cy = 0.5 * (box[1] + box[3]) + (bottom - top) * 0.5 / v->scale;
}

void view_zoom_at(sb_view *v, double factor, double x, double y)
{
    sb_vec2 before = view_to_world(v, x, y);
    v->scale = fmin(fmax(v->scale * factor, 1e-3), 1e6);
    sb_vec2 after = view_to_world(v, x, y);
    v->cx += before.x - after.x;
    v->cy += before.y - after.y;
}

// A white disk with a soft one-pixel edge and a darker rim, tinted per vertex.
static SDL_Texture *make_circle(SDL_Renderer *r)
{
    const int n = 64;
    SDL_Surface *s = SDL_CreateRGBSurfaceWithFormat(0, n, n, 32, SDL_PIXELFORMAT_RGBA32);
    if (!s)
        return NULL;
    for (int y = 0; y < n; ++y) {
        Uint8 *row = (Uint8 *)s->pixels + y * s->pitch;
        for (int x = 0; x < n; ++x) {
            double d = hypot(x + 0.5 - n / 2.0, y + 0.5 - n / 2.0);
            double alpha = fmin(fmax(n / 2.0 - d, 0.0), 1.0);
            double shade = d > n / 2.0 - 5.0 ? 0.55 : 1.0; // rim
            row[4 * x + 0] = row[4 * x + 1] = row[4 * x + 2] = (Uint8)(255 * shade);
            row[4 * x + 3] = (Uint8)(255 * alpha);
        }
    }
    SDL_Texture *t = SDL_CreateTextureFromSurface(r, s);
    SDL_FreeSurface(s);
    if (t)
        SDL_SetTextureBlendMode(t, SDL_BLENDMODE_BLEND);
    return t;
}

render_ctx *render_create(SDL_Renderer *renderer, char *error, size_t error_size)
{
    render_ctx *rc = calloc(1, sizeof *rc);
    if (!rc) {
        snprintf(error, error_size, "out of memory");
        return NULL;
    }
    rc->r = renderer;
    if (!TTF_WasInit() && TTF_Init() != 0) {
        snprintf(error, error_size, "SDL_ttf: %s", TTF_GetError());
        free(rc);
        return NULL;
    }
    for (const char *const *p = font_paths; *p && !rc->font; ++p) {
        rc->font = TTF_OpenFont(*p, 13);
        rc->font_big = TTF_OpenFont(*p, 18);
    }
    if (!rc->font || !rc->font_big) {
        snprintf(error, error_size, "no font found: install fonts-dejavu-core (%s)", font_paths[0]);
        render_destroy(rc);
        return NULL;
    }
    rc->circle = make_circle(renderer);
    if (!rc->circle) {
        snprintf(error, error_size, "cannot make the circle texture: %s", SDL_GetError());
        render_destroy(rc);
        return NULL;
    }
    SDL_SetRenderDrawBlendMode(renderer, SDL_BLENDMODE_BLEND);
    return rc;
}

void render_destroy(render_ctx *rc)
{
    if (!rc)
        return;
    for (int i = 0; i < TEXT_CACHE; ++i)
        if (rc->cache[i].texture)
            SDL_DestroyTexture(rc->cache[i].texture);
    if (rc->circle)
        SDL_DestroyTexture(rc->circle);
    if (rc->font)
        TTF_CloseFont(rc->font);
    if (rc->font_big)
        TTF_CloseFont(rc->font_big);
    if (rc->layer)
        SDL_DestroyTexture(rc->layer);
    free(rc->pixels);
    free(rc->screen);
    free(rc->joined);
    free(rc->verts);
    free(rc->indices);
    free(rc->clip);
    free(rc->wall_ids);
    for (int i = 0; i < WALL_DRAWINGS; ++i) {
        free(rc->walls_kept[i].verts);
        free(rc->walls_kept[i].indices);
    }
    free(rc);
}

SDL_Renderer *render_renderer(render_ctx *rc) { return rc->r; }

void render_clear(render_ctx *rc)
{
    SDL_SetRenderDrawColor(rc->r, COLOR_BACKGROUND.r, COLOR_BACKGROUND.g, COLOR_BACKGROUND.b, 255);
    SDL_RenderClear(rc->r);
}

bool reserve_geometry(render_ctx *rc, int verts, int indices)
{
    if (verts > rc->vert_cap) {
        SDL_Vertex *v = realloc(rc->verts, sizeof *v * (size_t)verts);
        if (!v)
            return false;
        rc->verts = v;
        rc->vert_cap = verts;
    }
    if (indices > rc->index_cap) {
        int *i = realloc(rc->indices, sizeof *i * (size_t)indices);
        if (!i)
            return false;
        rc->indices = i;
        rc->index_cap = indices;
    }
    return true;
}

static SDL_Color mix(SDL_Color a, SDL_Color b, double t)
{
    SDL_Color c;
    c.r = (Uint8)(a.r + (b.r - a.r) * t);
    c.g = (Uint8)(a.g + (b.g - a.g) * t);
    c.b = (Uint8)(a.b + (b.b - a.b) * t);
    c.a = 255;
    return c;
}

/// A scene's 0xRRGGBBAA colour.
SDL_Color rgba(uint32_t c)
{
    return (SDL_Color){(Uint8)(c >> 24), (Uint8)(c >> 16), (Uint8)(c >> 8), (Uint8)c};
}

// Geometry far off the view never reaches SDL: a scene's camera may zoom to 1e9 pixels per metre
// at 1e12 m, and SDL's software renderer allocates by a triangle's size and walks its whole box,
// clip rectangle or not, so a filled circle as big as the band stalls a frame. Everything drawn is
// clipped to this band around the view, wider than half the widest line and its feather, so that
// what is cut off lies outside the view.
enum { guard_band = 64 };

/// Sets the band for drawing into `view`.
void set_guard(render_ctx *rc, const SDL_Rect *view)
{
    rc->gx0 = (float)(view->x - guard_band);
    rc->gy0 = (float)(view->y - guard_band);
    rc->gx1 = (float)(view->x + view->w + guard_band);
    rc->gy1 = (float)(view->y + view->h + guard_band);
}

/// Clips the segment a-b to the band (Liang-Barsky); false when none of it is inside.
static bool clip_to_guard(const render_ctx *rc, SDL_FPoint *a, SDL_FPoint *b)
{
    if (!(isfinite(a->x) && isfinite(a->y) && isfinite(b->x) && isfinite(b->y)))
        return false;
    double x0 = a->x, y0 = a->y, dx = (double)b->x - x0, dy = (double)b->y - y0, t0 = 0.0, t1 = 1.0;
    const double p[4] = {-dx, dx, -dy, dy};
    const double q[4] = {x0 - rc->gx0, rc->gx1 - x0, y0 - rc->gy0, rc->gy1 - y0};
    for (int k = 0; k < 4; ++k) {
        if (p[k] == 0.0) {
            if (q[k] < 0.0)
                return false;
            continue;
        }
        double t = q[k] / p[k];
        if (p[k] < 0.0)
            t0 = t > t0 ? t : t0;
        else
            t1 = t < t1 ? t : t1;
        if (t0 > t1)
            return false;
    }
    *b = (SDL_FPoint){(float)(x0 + t1 * dx), (float)(y0 + t1 * dy)};
    *a = (SDL_FPoint){(float)(x0 + t0 * dx), (float)(y0 + t0 * dy)};
    return true;
}

void render_line(render_ctx *rc, const sb_view *v, sb_vec2 from, sb_vec2 to)
{
    set_guard(rc, &v->rect);
    SDL_FPoint a = view_to_screen(v, from), b = view_to_screen(v, to);
    if (clip_to_guard(rc, &a, &b))
        SDL_RenderDrawLineF(rc->r, a.x, a.y, b.x, b.y);
}

void render_dot(render_ctx *rc, const sb_view *v, sb_vec2 at, float size)
{
    SDL_FPoint q = view_to_screen(v, at);
    const double x0 = v->rect.x - (double)size, x1 = v->rect.x + v->rect.w + (double)size;
    const double y0 = v->rect.y - (double)size, y1 = v->rect.y + v->rect.h + (double)size;
    if (!(q.x >= x0 && q.x <= x1 && q.y >= y0 && q.y <= y1))
        return; // off the view (and not a number a pixel can hold)
    SDL_FRect dot = {q.x - 0.5f * size, q.y - 0.5f * size, size, size};
    SDL_RenderFillRectF(rc->r, &dot);
}

// Appends a quad (two triangles) to the batch.
static void quad(render_ctx *rc, int *nv, int *ni, const SDL_FPoint p[4], SDL_Color c, const SDL_FPoint *uv)
{
    int base = *nv;
    for (int k = 0; k < 4; ++k) {
        SDL_Vertex *v = &rc->verts[(*nv)++];
        v->position = p[k];
        v->color = c;
        v->tex_coord = uv ? uv[k] : (SDL_FPoint){0, 0};
    }
    static const int order[6] = {0, 1, 2, 0, 2, 3};
    for (int k = 0; k < 6; ++k)
        rc->indices[(*ni)++] = base + order[k];
}

/// A textured square of half-size `rad` at `c` (a circle sprite), cut to the band: the texture
/// coordinates are cut with it, which is exact for a square on the axes.
void sprite(render_ctx *rc, int *nv, int *ni, SDL_FPoint c, float rad, SDL_Color col)
{
    float x0 = c.x - rad, x1 = c.x + rad, y0 = c.y - rad, y1 = c.y + rad;
    if (!(x1 >= rc->gx0 && x0 <= rc->gx1 && y1 >= rc->gy0 && y0 <= rc->gy1) || !(rad > 0.0f) || !isfinite(rad))
        return;
    float cx0 = fmaxf(x0, rc->gx0), cx1 = fminf(x1, rc->gx1), cy0 = fmaxf(y0, rc->gy0), cy1 = fminf(y1, rc->gy1);
    float u0 = (cx0 - x0) / (x1 - x0), u1 = (cx1 - x0) / (x1 - x0), v0 = (cy0 - y0) / (y1 - y0), v1 = (cy1 - y0) / (y1 - y0);
    const SDL_FPoint q[4] = {{cx0, cy0}, {cx1, cy0}, {cx1, cy1}, {cx0, cy1}};
    const SDL_FPoint uv[4] = {{u0, v0}, {u1, v0}, {u1, v1}, {u0, v1}};
    quad(rc, nv, ni, q, col, uv);
}



// A line `width` pixels wide with antialiased sides: a solid core and a one
// pixel feather on each side that fades to transparent, three quads of one strip. Aliased quads
// made every spring a staircase at a slant.
void thick_line(render_ctx *rc, int *nv, int *ni, SDL_FPoint a, SDL_FPoint b, float width, SDL_Color c)
{
    if (!clip_to_guard(rc, &a, &b))
        return;
    float dx = b.x - a.x, dy = b.y - a.y, len = sqrtf(dx * dx + dy * dy);
    if (len < 1e-3f)
        return;
    float core = fmaxf(width * 0.5f, 0.5f), outer = core + 1.0f;
    float ux = -dy / len, uy = dx / len;
    SDL_Color clear = {c.r, c.g, c.b, 0};
    const float off[4] = {outer, core, -core, -outer};
    int base = *nv;
    for (int end = 0; end < 2; ++end) {
        SDL_FPoint at = end ? b : a;
        for (int k = 0; k < 4; ++k) {
            SDL_Vertex *vx = &rc->verts[(*nv)++];
            vx->position = (SDL_FPoint){at.x + ux * off[k], at.y + uy * off[k]};
            vx->color = k == 0 || k == 3 ? clear : c;
            vx->tex_coord = (SDL_FPoint){0, 0};
        }
    }
    for (int k = 0; k < 3; ++k) { // the strip between offsets k and k + 1, from a to b
        int i0 = base + k, i1 = base + k + 1, j0 = base + 4 + k, j1 = base + 4 + k + 1;
        const int tri[6] = {i0, j0, j1, i0, j1, i1};
        for (int t = 0; t < 6; ++t)
            rc->indices[(*ni)++] = tri[t];
    }
}

// Above this many springs, with springs under 2 pixels wide, the geometry path spends
// most of a frame setting up triangles (SDL's software renderer: cloth 128, 32512
// springs, 25 FPS). Lines into a pixel layer cost a few pixels each instead.
static const int dense_springs = 4096;

static bool layer_begin(render_ctx *rc, int w, int h)
{
    if (!rc->layer || rc->layer_w != w || rc->layer_h != h) {
        if (rc->layer)
            SDL_DestroyTexture(rc->layer);
        free(rc->pixels);
        rc->layer = SDL_CreateTexture(rc->r, SDL_PIXELFORMAT_ARGB8888, SDL_TEXTUREACCESS_STREAMING, w, h);
        rc->pixels = malloc(sizeof *rc->pixels * (size_t)w * (size_t)h);
        if (!rc->layer || !rc->pixels) {
            if (rc->layer)
                SDL_DestroyTexture(rc->layer);
            free(rc->pixels);
            rc->layer = NULL;
            rc->pixels = NULL;
            return false;
        }
        SDL_SetTextureBlendMode(rc->layer, SDL_BLENDMODE_BLEND);
        rc->layer_w = w;
        rc->layer_h = h;
    }
    memset(rc->pixels, 0, sizeof *rc->pixels * (size_t)w * (size_t)h);
    return true;
}

// A 1-pixel line by DDA, clipped pixel by pixel to the layer; (x, y) in layer pixels.
static void layer_line(render_ctx *rc, float x0, float y0, float x1, float y1, SDL_Color c)
{
    const int w = rc->layer_w, h = rc->layer_h;
    if (fmaxf(x0, x1) < 0.0f || fminf(x0, x1) >= (float)w || fmaxf(y0, y1) < 0.0f || fminf(y0, y1) >= (float)h)
        return; // wholly off one side of the layer
    float dx = x1 - x0, dy = y1 - y0;
    float n = fmaxf(fabsf(dx), fabsf(dy));
    if (!(n < 1e5f)) // far too long to walk, or not finite
        return;
    int steps = (int)n + 1;
    float sx = steps > 1 ? dx / (float)(steps - 1) : 0.0f, sy = steps > 1 ? dy / (float)(steps - 1) : 0.0f;
    uint32_t argb = 0xFF000000u | (uint32_t)c.r << 16 | (uint32_t)c.g << 8 | c.b;
    float x = x0 + 0.5f, y = y0 + 0.5f;
    for (int i = 0; i < steps; ++i, x += sx, y += sy) {
        int px = (int)floorf(x), py = (int)floorf(y);
        if (px >= 0 && py >= 0 && px < w && py < h)
            rc->pixels[(size_t)py * (size_t)w + (size_t)px] = argb;
    }
}

static void layer_end(render_ctx *rc, const SDL_Rect *rect)
{
    SDL_UpdateTexture(rc->layer, NULL, rc->pixels, rc->layer_w * (int)sizeof *rc->pixels);
    SDL_RenderCopy(rc->r, rc->layer, NULL, rect);
}

// Screen positions of every live particle by slot, and which ones springs join.
static bool gather_particles(render_ctx *rc, const sb_view *v, const sb_world *w)
{
    int high = 0;
    sb_particle_id p = sb_null_particle();
    while (sb_world_next_particle(w, &p))
        high = (int)p.index + 1;
    if (high > rc->screen_cap) {
        SDL_FPoint *sc = realloc(rc->screen, sizeof *sc * (size_t)high);
        if (sc)
            rc->screen = sc;
        uint8_t *j = realloc(rc->joined, (size_t)high);
        if (j)
            rc->joined = j;
        if (!sc || !j)
            return false;
        rc->screen_cap = high;
    }
    if (high > 0)
        memset(rc->joined, 0, (size_t)high);
    p = sb_null_particle();
    while (sb_world_next_particle(w, &p)) {
        sb_particle_def d;
        sb_particle_get(w, p, &d);
        rc->screen[p.index] = view_to_screen(v, d.position);
    }
    return true;
}

long render_walls_visited(render_ctx *rc)
{
    long n = rc->walls_visited;
    rc->walls_visited = 0;
    return n;
}

/// One wall line into the batch, making room for it; false without memory.
static bool wall_line(render_ctx *rc, int *nv, int *ni, SDL_FPoint a, SDL_FPoint b)
{
    if (*nv + LINE_VERTS > rc->vert_cap || *ni + LINE_INDICES > rc->index_cap) {
        if (!reserve_geometry(rc, 2 * (*nv + LINE_VERTS), 2 * (*ni + LINE_INDICES)))
            return false;
    }
    thick_line(rc, nv, ni, a, b, 3.0f, COLOR_WALL);
    return true;
}

static bool same_view(const sb_view *a, const sb_view *b)
{
    return a->cx == b->cx && a->cy == b->cy && a->scale == b->scale && a->rect.x == b->rect.x && a->rect.y == b->rect.y &&
           a->rect.w == b->rect.w && a->rect.h == b->rect.h;
}

/// The walls near the view, into the batch (its first geometry). A chain's walls shorter than a
/// pixel (a polyline of a million points across the view) are drawn joined: a line each pixel
/// and a half along the chain. Only walls the view can show are visited (the walls' broad
/// phase), and a drawing of many walls is kept while the walls and the view stay as they were.
static void walls_geometry(render_ctx *rc, const sb_view *v, const sb_world *w, int *nv, int *ni)
{
    const uint64_t version = sb_world_walls_version(w);
    for (int k = 0; k < WALL_DRAWINGS; ++k) {
        const wall_drawing *d = &rc->walls_kept[k];
        if (d->version == version && same_view(&d->view, v) && reserve_geometry(rc, d->nv, d->ni)) {
            memcpy(rc->verts, d->verts, sizeof *d->verts * (size_t)d->nv);
            memcpy(rc->indices, d->indices, sizeof *d->indices * (size_t)d->ni);
            *nv = d->nv;
            *ni = d->ni;
            return;
        }
    }
    const double margin = 4.0 / v->scale; // a wall's width past the view's edge
    sb_vec2 lo = view_to_world(v, v->rect.x, v->rect.y + v->rect.h), hi = view_to_world(v, v->rect.x + v->rect.w, v->rect.y);
    sb_bounds box = {lo.x - margin, lo.y - margin, hi.x + margin, hi.y + margin};
    int count = sb_world_query_walls(w, box, rc->wall_ids, rc->wall_id_cap);
    if (count > rc->wall_id_cap) {
        sb_wall_id *grown = realloc(rc->wall_ids, sizeof *grown * (size_t)count);
        if (!grown)
            return;
        rc->wall_ids = grown;
        rc->wall_id_cap = count;
        count = sb_world_query_walls(w, box, rc->wall_ids, rc->wall_id_cap);
    }
    SDL_FPoint pen = {0, 0}, tip = {0, 0};
    sb_vec2 chain_end = {NAN, NAN};
    bool ok = true;
    rc->walls_visited += count;
    for (int k = 0; k < count && ok; ++k) {
        sb_vec2 a, b;
        if (sb_wall_get(w, rc->wall_ids[k], &a, &b) != SB_OK)
            continue;
        if (a.x != chain_end.x || a.y != chain_end.y) { // a new chain: what is left of the last one
            if (tip.x != pen.x || tip.y != pen.y)
                ok = wall_line(rc, nv, ni, pen, tip);
            pen = view_to_screen(v, a);
        }
        tip = view_to_screen(v, b);
        chain_end = b;
        float dx = tip.x - pen.x, dy = tip.y - pen.y;
        if (!(dx * dx + dy * dy < 2.25f)) { // far enough (or not a number: thick_line leaves it out)
            ok = ok && wall_line(rc, nv, ni, pen, tip);
            pen = tip;
        }
    }
    if (ok && (tip.x != pen.x || tip.y != pen.y))
        wall_line(rc, nv, ni, pen, tip);
    if (count < 4096)
        return; // drawn again each frame at no cost worth keeping
    wall_drawing *d = &rc->walls_kept[rc->walls_kept_next++ % WALL_DRAWINGS];
    SDL_Vertex *verts = realloc(d->verts, sizeof *verts * (size_t)(*nv > 0 ? *nv : 1));
    int *indices = verts ? realloc(d->indices, sizeof *indices * (size_t)(*ni > 0 ? *ni : 1)) : NULL;
    d->verts = verts ? verts : d->verts;
    d->indices = indices ? indices : d->indices;
    d->version = 0;
    if (verts && indices) {
        memcpy(verts, rc->verts, sizeof *verts * (size_t)*nv);
        memcpy(indices, rc->indices, sizeof *indices * (size_t)*ni);
        *d = (wall_drawing){version, *v, verts, indices, *nv, *ni};
    }
}

void render_world(render_ctx *rc, const sb_view *v, const sb_world *w, const render_marks *marks)
{
    SDL_Renderer *r = rc->r;
    SDL_RenderSetClipRect(r, &v->rect);
    set_guard(rc, &v->rect);
    sb_world_def def = sb_world_get_def(w);
    const sb_stats *st = sb_world_get_stats(w);
    int np = sb_world_particle_count(w), ns = sb_world_spring_count(w);
    ns += sb_world_constraint_count(w); // ropes and struts are drawn as lines too
    int nv = 0, ni = 0;

    // walls (first: a kept drawing of them is the batch's start) and bounds
    walls_geometry(rc, v, w, &nv, &ni);
    if (!reserve_geometry(rc, nv + LINE_VERTS * (np + ns + 8), ni + LINE_INDICES * (np + ns + 8)))
        return;
    if (def.has_bounds) {
        sb_bounds bd = def.bounds;
        sb_vec2 c[4] = {{bd.xmin, bd.ymin}, {bd.xmax, bd.ymin}, {bd.xmax, bd.ymax}, {bd.xmin, bd.ymax}};
        for (int k = 0; k < 4; ++k)
            thick_line(rc, &nv, &ni, view_to_screen(v, c[k]), view_to_screen(v, c[(k + 1) % 4]), 3.0f, COLOR_WALL);
    }

    // ropes and struts as thin lines (a slack rope paler), areas as a faint outline; an angle
    // is seen in the links it bends
    sb_constraint_id con = {SB_NULL_INDEX, 0};
    while (sb_world_next_constraint(w, &con)) {
        sb_constraint_def cd;
        sb_particle_id two[2];
        int count = sb_constraint_get(w, con, &cd, two, 2);
        if (cd.kind == SB_CONSTRAINT_ANGLE || count < 2)
            continue;
        if (cd.kind == SB_CONSTRAINT_AREA) {
            sb_particle_id *all = malloc(sizeof *all * (size_t)count);
            if (!all || !reserve_geometry(rc, nv + LINE_VERTS * count, ni + LINE_INDICES * count)) {
                free(all);
                continue;
            }
            sb_constraint_get(w, con, &cd, all, count);
            // a soft body's inside, filled (rings of dots read as a debugging tool): a fan
            // from its centroid, which a squashed jelly's loop stays around; skipped off the view
            SDL_FPoint centre = {0.0f, 0.0f};
            bool on_view = true;
            for (int i = 0; i < count && on_view; ++i) {
                sb_particle_def p;
                sb_particle_get(w, all[i], &p);
                SDL_FPoint q = view_to_screen(v, p.position);
                on_view = q.x >= rc->gx0 && q.x <= rc->gx1 && q.y >= rc->gy0 && q.y <= rc->gy1;
                centre.x += q.x / (float)count;
                centre.y += q.y / (float)count;
            }
            if (on_view && reserve_geometry(rc, nv + (LINE_VERTS + 1) * count + 1, ni + (LINE_INDICES + 3) * count)) {
                const SDL_Color fill = {90, 170, 130, 90};
                int first = nv;
                rc->verts[nv++] = (SDL_Vertex){centre, fill, {0.0f, 0.0f}};
                for (int i = 0; i < count; ++i) {
                    sb_particle_def p;
                    sb_particle_get(w, all[i], &p);
                    rc->verts[nv++] = (SDL_Vertex){view_to_screen(v, p.position), fill, {0.0f, 0.0f}};
                }
                for (int i = 0; i < count; ++i) {
                    rc->indices[ni++] = first;
                    rc->indices[ni++] = first + 1 + i;
                    rc->indices[ni++] = first + 1 + (i + 1) % count;
                }
            }
            for (int i = 0; i < count; ++i) {
                sb_particle_def a, b;
                sb_particle_get(w, all[i], &a);
                sb_particle_get(w, all[(i + 1) % count], &b);
                thick_line(rc, &nv, &ni, view_to_screen(v, a.position), view_to_screen(v, b.position), 1.0f,
                           (SDL_Color){120, 200, 150, 255});
            }
            free(all);
            // the budget made at the top counted one quad per spring and constraint, not a loop's
            // fan and edges: room again for everything still to come in this batch
            if (!reserve_geometry(rc, nv + LINE_VERTS * (np + ns + 8), ni + LINE_INDICES * (np + ns + 8)))
                return;
            continue;
        }
        sb_particle_def a, b;
        sb_particle_get(w, two[0], &a);
        sb_particle_get(w, two[1], &b);
        double len = sb_constraint_value(w, con);
        bool slack_now = cd.kind == SB_CONSTRAINT_ROPE ? len < cd.rest * 0.999 : len > cd.rest * 1.001;
        SDL_Color c = cd.kind == SB_CONSTRAINT_ROPE ? (SDL_Color){200, 170, 110, 255} : (SDL_Color){150, 160, 220, 255};
        if (slack_now)
            c = mix(COLOR_BACKGROUND, c, 0.5);
        thick_line(rc, &nv, &ni, view_to_screen(v, a.position), view_to_screen(v, b.position), 1.5f, c);
    }

    // springs, coloured by strain: stretched red, compressed blue, at rest neutral
    float spring_width = (float)fmin(fmax(v->scale * 0.02, 1.5), 4.0);
    bool dense = ns >= dense_springs && spring_width <= 2.0f && gather_particles(rc, v, w) &&
                 layer_begin(rc, v->rect.w, v->rect.h);
    sb_spring_id s = sb_null_spring();
    while (sb_world_next_spring(w, &s)) {
        sb_spring_def d;
        sb_spring_get(w, s, &d);
        if (d.hidden)
            continue;
        double len = sb_spring_length(w, s);
        double strain = d.rest_length > 0.0 ? len / d.rest_length - 1.0 : 0.0;
        double t = fmin(fabs(strain) / strain_full_colour, 1.0);
        SDL_Color c = d.color ? rgba(d.color)
                              : mix(COLOR_SPRING_REST, strain > 0 ? COLOR_SPRING_STRETCHED : COLOR_SPRING_COMPRESSED, t);
        bool bad = st->halted && st->bad_spring.generation && s.index == st->bad_spring.index;
        if (dense && !bad) {
            SDL_FPoint a = rc->screen[d.a.index], b = rc->screen[d.b.index];
            rc->joined[d.a.index] = rc->joined[d.b.index] = 1;
            layer_line(rc, a.x - (float)v->rect.x, a.y - (float)v->rect.y, b.x - (float)v->rect.x, b.y - (float)v->rect.y, c);
            continue;
        }
        sb_particle_def a, b;
        sb_particle_get(w, d.a, &a);
        sb_particle_get(w, d.b, &b);
        thick_line(rc, &nv, &ni, view_to_screen(v, a.position), view_to_screen(v, b.position),
                   bad ? spring_width * 3 : spring_width, bad ? COLOR_ERROR : c);
    }
    if (dense)
        layer_end(rc, &v->rect);
    SDL_RenderGeometry(r, NULL, rc->verts, nv, rc->indices, ni);

    // particles: one textured quad each
    nv = ni = 0;
    sb_particle_id p = sb_null_particle();
    while (sb_world_next_particle(w, &p)) {
        sb_particle_def d;
        sb_particle_get(w, p, &d);
        if (d.hidden)
            continue;
        SDL_FPoint c = view_to_screen(v, d.position);
        // In a dense lattice a small free particle is the joint of its lines: drawn, the
        // dots would hide the strain colours (and cost a textured quad each).
        bool marked = (marks && marks->dragging && p.index == marks->drag.index) ||
                      (st->halted && st->bad_particle.generation && p.index == st->bad_particle.index);
        if (dense && !d.fixed && !marked && rc->joined[p.index] && d.radius * v->scale < 3.0)
            continue;
        float rad = (float)fmax(d.radius * v->scale, d.fixed ? 4.0 : 2.5);
        SDL_Color col = d.color ? rgba(d.color) : d.fixed ? COLOR_FIXED : COLOR_PARTICLE;
        if (st->halted && st->bad_particle.generation && p.index == st->bad_particle.index) {
            col = COLOR_ERROR;
            rad *= 2.0f;
        }
        if (marks && marks->dragging && p.index == marks->drag.index)
            col = COLOR_DRAG;
        sprite(rc, &nv, &ni, c, rad, col);
    }
    SDL_RenderGeometry(r, rc->circle, rc->verts, nv, rc->indices, ni);

    // a spoke on each particle that turns (rolling), big enough to show it, so a roll reads as
    // a roll and not as a slide
    nv = ni = 0;
    p = sb_null_particle();
    while (sb_world_next_particle(w, &p)) {
        if (!sb_particle_turns(w, p))
            continue;
        sb_particle_def d;
        sb_particle_get(w, p, &d);
        float rad = (float)(d.radius * v->scale);
        if (d.hidden || rad < 4.0f)
            continue;
        SDL_FPoint c = view_to_screen(v, d.position);
        float ux = (float)cos(d.angle), uy = -(float)sin(d.angle); // screen y points down
        // from a third of the radius out: the centre keeps the particle's colour
        SDL_FPoint from = {c.x + 0.35f * rad * ux, c.y + 0.35f * rad * uy};
        SDL_FPoint tip = {c.x + 0.85f * rad * ux, c.y + 0.85f * rad * uy};
        thick_line(rc, &nv, &ni, from, tip, fmaxf(1.5f, rad * 0.12f), COLOR_SPOKE);
    }
    SDL_RenderGeometry(r, NULL, rc->verts, nv, rc->indices, ni);

    // the drag: a line from the particle to the pointer
    if (marks && marks->dragging) {
        sb_particle_def d;
        if (sb_particle_get(w, marks->drag, &d) == SB_OK) {
            SDL_FPoint a = view_to_screen(v, d.position), b = view_to_screen(v, marks->drag_target);
            if (!clip_to_guard(rc, &a, &b))
                a = b = (SDL_FPoint){-1e4f, -1e4f}; // off the view: drawn nowhere
            SDL_SetRenderDrawColor(r, COLOR_DRAG.r, COLOR_DRAG.g, COLOR_DRAG.b, 200);
            SDL_RenderDrawLineF(r, a.x, a.y, b.x, b.y);
            SDL_FRect dot = {b.x - 3, b.y - 3, 6, 6};
            SDL_RenderFillRectF(r, &dot);
        }
    }
    SDL_RenderSetClipRect(r, NULL);
}
