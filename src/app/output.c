// The files the app writes: see output.h.
#define _POSIX_C_SOURCE 200809L
#include "output.h"

#include <SDL_image.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int output_create_numbered(const char *stem, const char *ext, char *path, size_t path_size, char *why, size_t n)
{
    for (int number = 1; number <= 9999; ++number) { // a failed open a name taken: a keypress affords them
        snprintf(path, path_size, "%s-%04d.%s", stem, number, ext);
        // O_EXCL: fails on any existing name, a link included (dangling or not), so nothing is
        // overwritten and no link is followed
        int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
        if (fd >= 0)
            return fd;
        if (errno != EEXIST) {
            snprintf(why, n, "%s", strerror(errno));
            return -1;
        }
    }
    snprintf(why, n, "%s-0001.%s to %s-9999.%s are all taken", stem, ext, stem, ext);
    return -1;
}

/// A growing buffer behind an SDL_RWops, for the PNG SDL2_image encodes.
typedef struct memory_out { unsigned char *bytes; size_t used, cap; bool failed; } memory_out;

static size_t SDLCALL memory_write(SDL_RWops *rw, const void *data, size_t size, size_t count)
{
    memory_out *m = (memory_out *)rw->hidden.unknown.data1;
    size_t bytes = size * count;
    if (m->failed || (count && bytes / count != size))
        return 0;
    if (m->used + bytes > m->cap) {
        size_t cap = m->cap ? m->cap : 65536;
        while (cap < m->used + bytes)
            cap *= 2;
        unsigned char *grown = realloc(m->bytes, cap);
        if (!grown) {
            m->failed = true;
            return 0;
        }
        m->bytes = grown;
        m->cap = cap;
    }
    memcpy(m->bytes + m->used, data, bytes);
    m->used += bytes;
    return count;
}

static Sint64 SDLCALL memory_size(SDL_RWops *rw) { return (Sint64)((memory_out *)rw->hidden.unknown.data1)->used; }
static Sint64 SDLCALL memory_seek(SDL_RWops *rw, Sint64 offset, int whence)
{
    (void)offset;
    (void)whence;
    return memory_size(rw); // written front to back: only "where am I" is asked
}
static int SDLCALL memory_close(SDL_RWops *rw)
{
    SDL_FreeRW(rw);
    return 0;
}

bool output_png(SDL_Surface *surface, int fd, char *why, size_t n)
{
    memory_out m = {NULL, 0, 0, false};
    SDL_RWops *rw = SDL_AllocRW();
    bool ok = rw != NULL;
    if (rw) {
        rw->size = memory_size;
        rw->seek = memory_seek;
        rw->write = memory_write;
        rw->close = memory_close;
        rw->hidden.unknown.data1 = &m;
        SDL_Surface *rgb = SDL_ConvertSurfaceFormat(surface, SDL_PIXELFORMAT_RGB24, 0); // no alpha in the file
        ok = rgb && IMG_SavePNG_RW(rgb, rw, 1) == 0 && !m.failed;
        SDL_FreeSurface(rgb);
        if (!ok)
            snprintf(why, n, "%s", m.failed ? "out of memory" : SDL_GetError());
    } else {
        snprintf(why, n, "out of memory");
    }
    for (size_t done = 0; ok && done < m.used;) {
        ssize_t wrote = write(fd, m.bytes + done, m.used - done);
        if (wrote < 0 && errno == EINTR)
            continue;
        if (wrote <= 0) {
            snprintf(why, n, "%s", wrote < 0 ? strerror(errno) : "nothing was written");
            ok = false;
        } else {
            done += (size_t)wrote;
        }
    }
    if (close(fd) != 0 && ok) {
        snprintf(why, n, "%s", strerror(errno));
        ok = false;
    }
    free(m.bytes);
    return ok;
}
