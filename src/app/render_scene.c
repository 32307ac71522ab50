// Drawing what a scene asks for in draw(g): its lines, circles, polygons and text, clipped to a
// band around the view before SDL sees them.
#include "render_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// ---------------------------------------------------------------- a scene's draw(g)

/// The polygon `pts` in screen pixels, cut to the band (Sutherland-Hodgman, one edge of the
/// band at a time), into rc->clip; returns its corner count, or -1 out of memory.
static int clip_polygon_to_guard(render_ctx *rc, const sb_view *v, const sb_vec2 *pts, int count)
{
    int cap = 2 * count + 8; // a convex polygon gains a corner per edge of the band; others may more
    if (cap > rc->clip_cap) {
        SDL_FPoint *c = realloc(rc->clip, sizeof *c * 2 * (size_t)cap);
        if (!c)
            return -1;
        rc->clip = c;
        rc->clip_cap = cap;
    }
    SDL_FPoint *in = rc->clip + rc->clip_cap, *out = rc->clip;
    int n = 0;
    for (int k = 0; k < count; ++k) {
        SDL_FPoint p = view_to_screen(v, pts[k]);
        if (!(isfinite(p.x) && isfinite(p.y)))
            return 0;
        in[n++] = p;
    }
    for (int edge = 0; edge < 4 && n > 0; ++edge) {
        // inside(p): p.x >= gx0, p.x <= gx1, p.y >= gy0, p.y <= gy1 for edges 0..3
        const double bound = edge == 0 ? rc->gx0 : edge == 1 ? rc->gx1 : edge == 2 ? rc->gy0 : rc->gy1;
        const double sign = edge == 0 || edge == 2 ? 1.0 : -1.0;
        int m = 0;
        for (int k = 0; k < n; ++k) {
            if (m + 2 > rc->clip_cap)
                return 0; // a tangle that crosses the band too often: not drawn
            SDL_FPoint a = in[k], b = in[(k + 1) % n];
            double da = sign * ((edge < 2 ? a.x : a.y) - bound), db = sign * ((edge < 2 ? b.x : b.y) - bound);
            if (da >= 0.0)
                out[m++] = a;
            if ((da >= 0.0) != (db >= 0.0)) {
                double t = da / (da - db);
                out[m++] = (SDL_FPoint){(float)(a.x + t * ((double)b.x - a.x)), (float)(a.y + t * ((double)b.y - a.y))};
            }
        }
        SDL_FPoint *swap = in;
        in = out;
        out = swap;
        n = m;
    }
    if (in != rc->clip)
        memcpy(rc->clip, in, sizeof *in * (size_t)n);
    return n;
}

/// Pixels of the view the box (x0, y0)-(x1, y1) covers, plus a pixel a point so that the cost of
/// what lies off the view (clipped, but walked) counts too.
static double covered(const sb_view *v, double x0, double y0, double x1, double y1, int points)
{
    double w = fmin(x1, v->rect.x + v->rect.w) - fmax(x0, v->rect.x), h = fmin(y1, v->rect.y + v->rect.h) - fmax(y0, v->rect.y);
    return (w > 0.0 && h > 0.0 ? w * h : 0.0) + points;
}

/// What drawing command c costs, in pixels: the part of the view its box covers.
static double draw_cost(const sb_view *v, const sb_draw_command *c, const sb_vec2 *pts, double text_width, int line)
{
    if (c->kind == SB_DRAW_CIRCLE) {
        SDL_FPoint ctr = view_to_screen(v, pts[0]);
        double rad = c->radius * v->scale + c->width;
        return covered(v, ctr.x - rad, ctr.y - rad, ctr.x + rad, ctr.y + rad, 32);
    }
    if (c->kind == SB_DRAW_TEXT)
        return text_width * line;
    double cost = 0.0, half = c->width * 0.5 + 1.0;
    for (int k = 0; k + 1 < c->count + (c->kind == SB_DRAW_POLYGON); ++k) { // each edge's box, or the fill's
        SDL_FPoint a = view_to_screen(v, pts[k]), b = view_to_screen(v, pts[(k + 1) % c->count]);
        cost += covered(v, fmin(a.x, b.x) - half, fmin(a.y, b.y) - half, fmax(a.x, b.x) + half, fmax(a.y, b.y) + half, 1);
    }
    if (c->kind == SB_DRAW_POLYGON && c->fill) {
        double x0 = INFINITY, y0 = INFINITY, x1 = -INFINITY, y1 = -INFINITY;
        for (int k = 0; k < c->count; ++k) {
            SDL_FPoint p = view_to_screen(v, pts[k]);
            x0 = fmin(x0, p.x), y0 = fmin(y0, p.y), x1 = fmax(x1, p.x), y1 = fmax(y1, p.y);
        }
        cost += covered(v, x0, y0, x1, y1, c->count);
    }
    return cost;
}

int render_draw_list(render_ctx *rc, const sb_view *v, const sb_draw_list *list, int screen_top)
{
    SDL_Renderer *r = rc->r;
    SDL_RenderSetClipRect(r, &v->rect);
    set_guard(rc, &v->rect);
    SDL_SetRenderDrawBlendMode(r, SDL_BLENDMODE_BLEND);
    enum { circle_segments = 32 };
    const double budget = RENDER_DRAW_SCREENS * (double)v->rect.w * v->rect.h;
    const int char_width = render_char_width(rc, false), line = render_line_height(rc, false);
    double spent = 0.0;
    for (int i = 0; i < list->count; ++i) {
        const sb_draw_command *c = &list->commands[i];
        const sb_vec2 *pts = list->points + c->first;
        SDL_Color col = rgba(c->color);
        int nv = 0, ni = 0;
        double text_width = c->kind == SB_DRAW_TEXT ? (double)strlen(list->text + c->text) * char_width * (c->big ? 2 : 1) : 0;
        spent += draw_cost(v, c, pts, text_width, c->big ? 2 * line : line);
        if (spent > budget) {
            SDL_RenderSetClipRect(r, NULL);
            return list->count - i;
        }
        switch (c->kind) {
        case SB_DRAW_LINES:
            if (!reserve_geometry(rc, LINE_VERTS * c->count, LINE_INDICES * c->count))
                return list->count - i;
            for (int k = 0; k + 1 < c->count; ++k)
                thick_line(rc, &nv, &ni, view_to_screen(v, pts[k]), view_to_screen(v, pts[k + 1]), c->width, col);
            SDL_RenderGeometry(r, NULL, rc->verts, nv, rc->indices, ni);
            break;
        case SB_DRAW_CIRCLE: {
            SDL_FPoint ctr = view_to_screen(v, pts[0]);
            float rad = (float)(c->radius * v->scale);
            if (c->fill) {
                if (!reserve_geometry(rc, 4, 6))
                    return list->count - i;
                sprite(rc, &nv, &ni, ctr, rad, col);
                SDL_RenderGeometry(r, rc->circle, rc->verts, nv, rc->indices, ni);
            } else {
                if (!reserve_geometry(rc, LINE_VERTS * circle_segments, LINE_INDICES * circle_segments))
                    return list->count - i;
                for (int k = 0; k < circle_segments; ++k) {
                    double turn = 6.283185307179586 / circle_segments, a0 = turn * k, a1 = turn * (k + 1);
                    SDL_FPoint p0 = {ctr.x + rad * (float)cos(a0), ctr.y + rad * (float)sin(a0)};
                    SDL_FPoint p1 = {ctr.x + rad * (float)cos(a1), ctr.y + rad * (float)sin(a1)};
                    thick_line(rc, &nv, &ni, p0, p1, c->width, col);
                }
                SDL_RenderGeometry(r, NULL, rc->verts, nv, rc->indices, ni);
            }
            break;
        }
        case SB_DRAW_POLYGON:
            if (!reserve_geometry(rc, LINE_VERTS * c->count + c->count, LINE_INDICES * c->count + 3 * c->count))
                return list->count - i;
            if (c->fill) { // a fan from the first point: convex polygons (as LÖVE's), cut to the band
                int n = clip_polygon_to_guard(rc, v, pts, c->count);
                if (n < 0 || !reserve_geometry(rc, n, 3 * n))
                    return list->count - i;
                for (int k = 0; k < n; ++k) {
                    SDL_Vertex *vx = &rc->verts[nv++];
                    vx->position = rc->clip[k];
                    vx->color = col;
                    vx->tex_coord = (SDL_FPoint){0, 0};
                }
                for (int k = 1; k + 1 < n; ++k) {
                    rc->indices[ni++] = 0;
                    rc->indices[ni++] = k;
                    rc->indices[ni++] = k + 1;
                }
            } else {
                for (int k = 0; k < c->count; ++k)
                    thick_line(rc, &nv, &ni, view_to_screen(v, pts[k]), view_to_screen(v, pts[(k + 1) % c->count]), c->width,
                               col);
            }
            SDL_RenderGeometry(r, NULL, rc->verts, nv, rc->indices, ni);
            break;
        case SB_DRAW_TEXT: {
            SDL_FPoint at = c->screen ? (SDL_FPoint){(float)(v->rect.x + 10 + pts[0].x), (float)(screen_top + pts[0].y)}
                                      : view_to_screen(v, pts[0]);
            if (!(at.x >= rc->gx0 && at.x <= rc->gx1 && at.y >= rc->gy0 && at.y <= rc->gy1))
                break; // off the view (and not a number an int can hold)
            if (!c->screen) {
                render_text(rc, (int)at.x, (int)at.y, col, c->big, list->text + c->text);
                break;
            }
            // screen text wraps at the view's right edge, at spaces, rather than run off it
            render_text_wrapped(rc, (int)at.x, (int)at.y, (int)((float)(v->rect.x + v->rect.w - 10) - at.x), 8, col, c->big,
                                list->text + c->text, true);
            break;
        }
        }
    }
    SDL_RenderSetClipRect(r, NULL);
    return 0;
}
