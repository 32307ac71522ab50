// The files the window writes at a key (G, P): a numbered name that is never someone else's
// file, and PNGs whose every write is checked, so that a full disk or a bad path is an error that
// says so, never a file silently cut short. Files named on the command line: output_file.h.
#ifndef SB_OUTPUT_H
#define SB_OUTPUT_H

#include <SDL.h>
#include <stdbool.h>
#include <stddef.h>

/// Creates the first free "<stem>-NNNN.<ext>" (0001 to 9999) in the working folder and opens it
/// for writing: each name is created exclusively, so an existing file, or a link of that name
/// wherever it points, is passed over and never written. The descriptor, with the name in `path`;
/// -1 with the reason in `why`.
int output_create_numbered(const char *stem, const char *ext, char *path, size_t path_size, char *why, size_t n);
/// Writes `surface` as a PNG (SDL2_image) to `fd` and closes it; false with the reason (a full
/// disk, a device that takes nothing) when any byte was not written.
bool output_png(SDL_Surface *surface, int fd, char *why, size_t n);

#endif
