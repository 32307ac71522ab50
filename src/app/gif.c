// Animated GIFs through giflib (gif_lib.h): see gif.h. Frames are kept as three colour planes,
// already scaled down, so the ring of a 1280 x 720 window holds 8 s in 74 MB.
#include "gif.h"

#include <fcntl.h>
#include <gif_lib.h>
#include <stdint.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <unistd.h>

struct gif_writer {
    GifFileType *file;
    int view_w, view_h, w, h, frames;
    GifByteType *planes; // r, g, b planes of one frame, then its quantised pixels
    bool failed;
    char error[128];
};

struct gif_ring {
    int view_w, view_h, w, h, cap, first, count;
    GifByteType *frames; // cap frames of 3 planes each
    double *times;       // the run's time at each frame, s
    double seconds;      // how much of the run the ring keeps
};

void gif_frame_size(int width, int height, int *out_width, int *out_height)
{
    int scale = (width + GIF_MAX_WIDTH - 1) / GIF_MAX_WIDTH;
    scale = scale < 1 ? 1 : scale;
    *out_width = width / scale > 0 ? width / scale : 1;
    *out_height = height / scale > 0 ? height / scale : 1;
}

/// Box-filters a surface of the view's size into three planes of w x h.
static void planes_from_surface(SDL_Surface *frame, int w, int h, GifByteType *planes)
{
    SDL_Surface *rgb = frame->format->format == SDL_PIXELFORMAT_RGB24
                           ? frame
                           : SDL_ConvertSurfaceFormat(frame, SDL_PIXELFORMAT_RGB24, 0);
    GifByteType *r = planes, *g = planes + (size_t)w * h, *b = g + (size_t)w * h;
    if (!rgb) {
        memset(planes, 0, (size_t)w * h * 3);
        return;
    }
    int scale = rgb->w / w > 0 ? rgb->w / w : 1, area = scale * scale;
    const uint8_t *px = rgb->pixels;
    for (int y = 0; y < h; ++y) {
        for (int x = 0; x < w; ++x) {
            unsigned sr = 0, sg = 0, sb = 0;
            for (int dy = 0; dy < scale; ++dy) {
                const uint8_t *row = px + (size_t)(y * scale + dy) * rgb->pitch + (size_t)x * scale * 3;
                for (int dx = 0; dx < scale; ++dx) {
                    sr += row[3 * dx];
                    sg += row[3 * dx + 1];
                    sb += row[3 * dx + 2];
                }
            }
            size_t k = (size_t)y * w + x;
            r[k] = (GifByteType)(sr / area);
            g[k] = (GifByteType)(sg / area);
            b[k] = (GifByteType)(sb / area);
        }
    }
    if (rgb != frame)
        SDL_FreeSurface(rgb);
}

gif_writer *gif_writer_open(int fd, int width, int height, char *why, size_t n)
{
    gif_writer *g = calloc(1, sizeof *g);
    if (!g) {
        snprintf(why, n, "out of memory");
        close(fd);
        return NULL;
    }
    g->view_w = width;
    g->view_h = height;
    gif_frame_size(width, height, &g->w, &g->h);
    g->planes = malloc((size_t)g->w * g->h * 4);
    int err = 0;
    g->file = g->planes ? EGifOpenFileHandle(fd, &err) : NULL;
    if (!g->file) {
        snprintf(why, n, "%s", !g->planes ? "out of memory" : GifErrorString(err));
        close(fd);
        free(g->planes);
        free(g);
        return NULL;
    }
    EGifSetGifVersion(g->file, true); // GIF89a: frame delays and looping
    if (EGifPutScreenDesc(g->file, g->w, g->h, 8, 0, NULL) == GIF_ERROR) {
        g->failed = true;
    } else { // NETSCAPE2.0: loop for ever
        static const GifByteType loop[3] = {1, 0, 0};
        g->failed = EGifPutExtensionLeader(g->file, APPLICATION_EXT_FUNC_CODE) == GIF_ERROR ||
                    EGifPutExtensionBlock(g->file, 11, "NETSCAPE2.0") == GIF_ERROR ||
                    EGifPutExtensionBlock(g->file, 3, loop) == GIF_ERROR ||
                    EGifPutExtensionTrailer(g->file) == GIF_ERROR;
    }
    if (g->failed)
        snprintf(g->error, sizeof g->error, "%s", GifErrorString(g->file->Error));
    return g;
}

/// Quantises the planes at g->planes and writes them as the next frame, shown for `delay`
/// hundredths of a second.
static bool write_planes(gif_writer *g, const GifByteType *planes, int delay)
{
    if (g->failed)
        return false;
    size_t npx = (size_t)g->w * g->h;
    GifByteType *pixels = g->planes + 3 * npx;
    GifColorType colors[256];
    int count = 256;
    // GifQuantizeBuffer reads its inputs only; the casts drop a const giflib does not declare
    if (GifQuantizeBuffer((unsigned)g->w, (unsigned)g->h, &count, (GifByteType *)planes, (GifByteType *)planes + npx,
                          (GifByteType *)planes + 2 * npx, pixels, colors) == GIF_ERROR) {
        g->failed = true;
        snprintf(g->error, sizeof g->error, "cannot reduce a frame to 256 colours");
        return false;
    }
    ColorMapObject *map = GifMakeMapObject(256, colors);
    GraphicsControlBlock gcb = {.DisposalMode = DISPOSE_DO_NOT, .UserInputFlag = false, .DelayTime = delay,
                                .TransparentColor = NO_TRANSPARENT_COLOR};
    GifByteType ext[4];
    size_t len = EGifGCBToExtension(&gcb, ext);
    bool ok = map && EGifPutExtension(g->file, GRAPHICS_EXT_FUNC_CODE, (int)len, ext) != GIF_ERROR &&
              EGifPutImageDesc(g->file, 0, 0, g->w, g->h, false, map) != GIF_ERROR;
    for (int y = 0; ok && y < g->h; ++y)
        ok = EGifPutLine(g->file, pixels + (size_t)y * g->w, g->w) != GIF_ERROR;
    GifFreeMapObject(map);
    if (!ok) {
        g->failed = true;
        snprintf(g->error, sizeof g->error, "%s", g->file->Error ? GifErrorString(g->file->Error) : "out of memory");
        return false;
    }
    g->frames += 1;
    return true;
}

bool gif_writer_add(gif_writer *g, SDL_Surface *frame)
{
    if (g->failed)
        return false;
    planes_from_surface(frame, g->w, g->h, g->planes);
    // GIF delays are in 1/100 s: 3, 3, 4, ... averages 1/GIF_FPS s
    return write_planes(g, g->planes, g->frames % 3 == 2 ? 4 : 3);
}

int gif_writer_frames(const gif_writer *g) { return g->frames; }

bool gif_writer_close(gif_writer *g, char *why, size_t n)
{
    int err = 0;
    bool ok = !g->failed && g->frames > 0;
    if (!g->failed && g->frames == 0)
        snprintf(g->error, sizeof g->error, "no frames");
    if (EGifCloseFile(g->file, &err) == GIF_ERROR && ok) {
        ok = false;
        snprintf(g->error, sizeof g->error, "%s", GifErrorString(err));
    }
    if (!ok)
        snprintf(why, n, "%s", g->error);
    free(g->planes);
    free(g);
    return ok;
}

gif_ring *gif_ring_create(int width, int height, double seconds)
{
    gif_ring *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    r->view_w = width;
    r->view_h = height;
    r->seconds = seconds;
    gif_frame_size(width, height, &r->w, &r->h);
    r->cap = (int)(seconds * GIF_FPS + 0.5);
    r->cap = r->cap < 1 ? 1 : r->cap;
    r->frames = malloc((size_t)r->cap * r->w * r->h * 3);
    r->times = malloc(sizeof *r->times * (size_t)r->cap);
    if (!r->frames || !r->times) {
        free(r->frames);
        free(r->times);
        free(r);
        return NULL;
    }
    return r;
}

bool gif_ring_wants(const gif_ring *r, double time)
{
    return r->count == 0 || time >= r->times[(r->first + r->count - 1) % r->cap] + 1.0 / GIF_FPS - 1e-9 ||
           time < r->times[(r->first + r->count - 1) % r->cap];
}

void gif_ring_add(gif_ring *r, SDL_Surface *frame, double time)
{
    if (r->count > 0 && time < r->times[(r->first + r->count - 1) % r->cap])
        gif_ring_clear(r); // the run went back: what the ring held is not its past now
    size_t size = (size_t)r->w * r->h * 3;
    int slot = (r->first + r->count) % r->cap;
    if (r->count == r->cap)
        r->first = (r->first + 1) % r->cap;
    else
        r->count += 1;
    planes_from_surface(frame, r->w, r->h, r->frames + (size_t)slot * size);
    r->times[slot] = time;
}


/// The first frame kept that lies within the ring's seconds of the last one's end.
static int first_in_span(const gif_ring *r)
{
    double end = r->times[(r->first + r->count - 1) % r->cap] + 1.0 / GIF_FPS;
    int k = 0;
    while (k < r->count - 1 && r->times[(r->first + k) % r->cap] < end - r->seconds - 1e-9)
        k += 1;
    return k;
}

int gif_ring_frames(const gif_ring *r) { return r->count > 0 ? r->count - first_in_span(r) : 0; }

double gif_ring_seconds(const gif_ring *r)
{
    if (r->count == 0)
        return 0.0;
    double end = r->times[(r->first + r->count - 1) % r->cap] + 1.0 / GIF_FPS;
    return end - r->times[(r->first + first_in_span(r)) % r->cap];
}

bool gif_ring_save(const gif_ring *r, int fd, char *why, size_t n)
{
    gif_writer *g = gif_writer_open(fd, r->view_w, r->view_h, why, n);
    if (!g)
        return false;
    size_t size = (size_t)r->w * r->h * 3;
    // each frame shows until the next one's time, in the file's hundredths of a second: the GIF
    // plays the run's time whatever the window's frame rate was
    for (int k = first_in_span(r); k < r->count; ++k) {
        double t = r->times[(r->first + k) % r->cap];
        double next = k + 1 < r->count ? r->times[(r->first + k + 1) % r->cap] : t + 1.0 / GIF_FPS;
        int delay = (int)lround(next * 100.0) - (int)lround(t * 100.0);
        if (!write_planes(g, r->frames + (size_t)((r->first + k) % r->cap) * size, delay > 2 ? delay : 2))
            break;
    }
    return gif_writer_close(g, why, n);
}

void gif_ring_clear(gif_ring *r) { r->first = r->count = 0; }

void gif_ring_destroy(gif_ring *r)
{
    if (r) {
        free(r->times);
        free(r->frames);
    }
    free(r);
}
