// A minimal PNG writer (8-bit RGB, zlib-compressed), so screenshots need no image library.
#ifndef SB_PNG_H
#define SB_PNG_H

#include <stdbool.h>
#include <stdint.h>

/// Writes `width` x `height` pixels of packed RGB (3 bytes each, rows `pitch` bytes apart).
bool png_write_rgb(const char *path, const uint8_t *rgb, int width, int height, int pitch);

#endif
