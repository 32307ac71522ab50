// Text, panels and graphs: the window's words in cached SDL_ttf textures, the HUD's panels, and
// the line graphs of the tuning and stats panels.
#include "render_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static cached_text *find_text(render_ctx *rc, const char *text, bool big, SDL_Color color)
{
    rc->tick += 1;
    cached_text *oldest = &rc->cache[0];
    for (int i = 0; i < TEXT_CACHE; ++i) {
        cached_text *c = &rc->cache[i];
        if (c->texture && c->big == big && c->color.r == color.r && c->color.g == color.g &&
            c->color.b == color.b && strcmp(c->text, text) == 0) {
            c->last_used = rc->tick;
            return c;
        }
        if (!c->texture || c->last_used < oldest->last_used)
            oldest = c;
    }
    if (oldest->texture)
        SDL_DestroyTexture(oldest->texture);
    oldest->texture = NULL;
    SDL_Surface *s = TTF_RenderUTF8_Blended(big ? rc->font_big : rc->font, text, color);
    if (!s)
        return NULL;
    oldest->texture = SDL_CreateTextureFromSurface(rc->r, s);
    oldest->w = s->w;
    oldest->h = s->h;
    SDL_FreeSurface(s);
    snprintf(oldest->text, sizeof oldest->text, "%s", text);
    oldest->big = big;
    oldest->color = color;
    oldest->last_used = rc->tick;
    return oldest->texture ? oldest : NULL;
}

int render_text(render_ctx *rc, int x, int y, SDL_Color color, bool big, const char *text)
{
    if (!text[0])
        return 0;
    cached_text *c = find_text(rc, text, big, color);
    if (!c)
        return 0;
    SDL_Rect dst = {x, y, c->w, c->h};
    SDL_RenderCopy(rc->r, c->texture, NULL, &dst);
    return c->w;
}

int render_text_wrapped(render_ctx *rc, int x, int y, int width, int min_chars, SDL_Color color, bool big, const char *text,
                        bool draw)
{
    int per_line = width / render_char_width(rc, big), lh = render_line_height(rc, big);
    per_line = per_line < min_chars ? min_chars : per_line;
    char line[512];
    const char *p = text;
    while (*p) {
        int n = (int)strlen(p);
        if (n > per_line) {
            n = per_line;
            while (n > per_line / 2 && p[n] != ' ')
                n -= 1;
        }
        n = n < (int)sizeof line ? n : (int)sizeof line - 1;
        memcpy(line, p, (size_t)n);
        line[n] = '\0';
        if (draw)
            render_text(rc, x, y, color, big, line);
        y += lh;
        p += n;
        while (*p == ' ')
            p += 1;
    }
    return y;
}

int render_char_width(render_ctx *rc, bool big)
{
    int w = 8, h;
    TTF_SizeUTF8(big ? rc->font_big : rc->font, "M", &w, &h);
    return w;
}

int render_line_height(render_ctx *rc, bool big) { return TTF_FontLineSkip(big ? rc->font_big : rc->font); }

void render_panel(render_ctx *rc, SDL_Rect r, SDL_Color color)
{
    SDL_SetRenderDrawColor(rc->r, color.r, color.g, color.b, color.a);
    SDL_RenderFillRect(rc->r, &r);
}

void render_graph_pair(render_ctx *rc, SDL_Rect r, const float *const series[2], int count, const SDL_Color colors[2])
{
    render_panel(rc, r, (SDL_Color){0, 0, 0, 150});
    float bound = 0.0f; // symmetric about zero, shared, so the two read against each other
    for (int k = 0; k < 2; ++k)
        for (int i = 0; i < count; ++i)
            if (isfinite(series[k][i]))
                bound = fmaxf(bound, fabsf(series[k][i]));
    if (count < 2 || !(bound > 0.0f))
        return;
    SDL_SetRenderDrawColor(rc->r, 70, 76, 90, 255);
    SDL_RenderDrawLine(rc->r, r.x, r.y + r.h / 2, r.x + r.w - 1, r.y + r.h / 2);
    SDL_FPoint pts[1024];
    int n = count < 1024 ? count : 1024, first = count - n;
    for (int k = 1; k >= 0; --k) { // the second under the first, which is dashed so both show where they agree
        int m = 0;
        for (int i = 0; i < n; ++i) {
            float v = series[k][first + i];
            if (!isfinite(v))
                continue; // the ideal curve starts at its first peak
            pts[m].x = (float)r.x + (float)r.w * (float)i / (float)(n - 1);
            pts[m].y = (float)r.y + 0.5f * (float)r.h - 0.45f * (float)r.h * v / bound;
            m += 1;
        }
        SDL_SetRenderDrawColor(rc->r, colors[k].r, colors[k].g, colors[k].b, 255);
        if (k == 1 && m > 1)
            SDL_RenderDrawLinesF(rc->r, pts, m);
        for (int i = 0; k == 0 && i + 1 < m; i += 4) // dashes of two samples
            SDL_RenderDrawLinesF(rc->r, pts + i, i + 2 < m ? 3 : 2);
    }
}

void render_graph_shared(render_ctx *rc, SDL_Rect r, const float *const *series, int n, int count,
                         const SDL_Color *colors, const char *const *labels)
{
    render_panel(rc, r, (SDL_Color){0, 0, 0, 150});
    float lo = INFINITY, hi = -INFINITY;
    for (int k = 0; k < n; ++k)
        for (int i = 0; i < count; ++i)
            if (isfinite(series[k][i])) {
                lo = fminf(lo, series[k][i]);
                hi = fmaxf(hi, series[k][i]);
            }
    const bool any = count > 0 && isfinite(lo);
    if (any) {
        // At least a ten-thousandth of the values' size, centred: a body at rest (or a float's
        // last bit) draws flat, not as a staircase that looks like jitter; the range says how flat.
        const float span = fmaxf(1e-4f * fmaxf(fabsf(lo), fabsf(hi)), 1e-9f);
        float from = lo, to = hi;
        if (to - from < span) {
            from = 0.5f * (lo + hi) - 0.5f * span;
            to = from + span;
        }
        SDL_FPoint pts[1024];
        int m = count < 1024 ? count : 1024, first = count - m;
        for (int k = 0; k < n; ++k) {
            SDL_SetRenderDrawColor(rc->r, colors[k].r, colors[k].g, colors[k].b, 255);
            int run = 0; // a series drawn where it has values (a run before a replay ends)
            for (int i = 0; i <= m; ++i) {
                float v = i < m ? series[k][first + i] : NAN;
                if (isfinite(v)) {
                    pts[run].x = (float)r.x + (float)r.w * (float)i / (float)(m > 1 ? m - 1 : 1);
                    pts[run].y = (float)(r.y + r.h - 2) - (v - from) / (to - from) * (float)(r.h - 16);
                    run += 1;
                } else if (run > 0) {
                    if (run > 1)
                        SDL_RenderDrawLinesF(rc->r, pts, run);
                    else
                        SDL_RenderDrawPointF(rc->r, pts[0].x, pts[0].y);
                    run = 0;
                }
            }
        }
    }
    // the legend: each series' name and latest value in its colour (the name alone where it has
    // none now), then the range drawn
    SDL_RenderSetClipRect(rc->r, &r);
    int x = r.x + 4;
    for (int k = 0; k < n; ++k) {
        char text[96];
        const float latest = count > 0 ? series[k][count - 1] : NAN;
        if (isfinite(latest))
            snprintf(text, sizeof text, "%s %.3g ", labels[k], latest);
        else
            snprintf(text, sizeof text, "%s ", labels[k]);
        x += render_text(rc, x, r.y + 1, colors[k], false, text);
    }
    if (any) {
        char range[64];
        snprintf(range, sizeof range, "(%.3g..%.3g)", lo, hi);
        render_text(rc, x, r.y + 1, (SDL_Color){150, 156, 170, 255}, false, range);
    }
    SDL_RenderSetClipRect(rc->r, NULL);
}

void render_graph(render_ctx *rc, SDL_Rect r, const float *samples, int count, SDL_Color color, const char *label)
{
    render_panel(rc, r, (SDL_Color){0, 0, 0, 150});
    float lo = INFINITY, hi = -INFINITY;
    for (int i = 0; i < count; ++i) {
        if (!isfinite(samples[i]))
            continue;
        lo = fminf(lo, samples[i]);
        hi = fmaxf(hi, samples[i]);
    }
    char text[128];
    if (count > 0 && isfinite(lo)) {
        if (hi - lo < 1e-9f * fmaxf(1.0f, fabsf(hi)))
            hi = lo + 1e-9f * fmaxf(1.0f, fabsf(hi)) + 1e-12f;
        SDL_FPoint pts[1024];
        int n = count < 1024 ? count : 1024, first = count - n;
        for (int i = 0; i < n; ++i) {
            float s = samples[first + i];
            float t = isfinite(s) ? (s - lo) / (hi - lo) : 0.0f;
            pts[i].x = (float)r.x + (float)r.w * (float)i / (float)(n > 1 ? n - 1 : 1);
            pts[i].y = (float)(r.y + r.h - 2) - t * (float)(r.h - 16);
        }
        SDL_SetRenderDrawColor(rc->r, color.r, color.g, color.b, 255);
        SDL_RenderDrawLinesF(rc->r, pts, n);
        snprintf(text, sizeof text, "%s %.3g  (%.2g..%.2g)", label, samples[count - 1], lo, hi);
    } else {
        snprintf(text, sizeof text, "%s", label);
    }
    SDL_RenderSetClipRect(rc->r, &r);
    render_text(rc, r.x + 4, r.y + 1, color, false, text);
    SDL_RenderSetClipRect(rc->r, NULL);
}
