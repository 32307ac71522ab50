// Animated GIFs of the view, through Debian's giflib: a writer that streams
// frames into a file, and a ring that keeps the last seconds of a window so that one key saves
// them. Frames are box-filtered down to at most GIF_MAX_WIDTH pixels wide and quantised to 256
// colours each (giflib's median cut, a local colour map per frame).
#ifndef SB_GIF_H
#define SB_GIF_H

#include <SDL.h>
#include <stdbool.h>
#include <stddef.h>

/// Widest GIF frame, pixels: a window is scaled down by a whole factor to fit.
#define GIF_MAX_WIDTH 480
/// Frames per second kept and written: every second frame of the 60 Hz view.
#define GIF_FPS 30

typedef struct gif_writer gif_writer;
typedef struct gif_ring gif_ring;

/// The size frames of a `width` x `height` view take in a GIF.
void gif_frame_size(int width, int height, int *out_width, int *out_height);

/// Starts a looping GIF of frames from a `width` x `height` view in the file open at `fd` (its
/// own from now on: closed by gif_writer_close, or here on a failure); NULL with the reason.
gif_writer *gif_writer_open(int fd, int width, int height, char *why, size_t n);
/// Adds a frame from an RGB24 or ARGB8888 surface of the view's size; false on a write error.
bool gif_writer_add(gif_writer *g, SDL_Surface *frame);
/// Frames written so far.
int gif_writer_frames(const gif_writer *g);
/// Finishes and closes the file; false (with the reason in `why`) if anything failed.
bool gif_writer_close(gif_writer *g, char *why, size_t n);

/// A ring of the last `seconds` of the run's time, as frames of a `width` x `height` view at most
/// GIF_FPS a second; NULL without memory.
gif_ring *gif_ring_create(int width, int height, double seconds);
/// Whether a frame at the run's `time` (s) is one the ring keeps: a GIF_FPS-th of a second after
/// the last, or earlier than it (the run went back).
bool gif_ring_wants(const gif_ring *r, double time);
/// Keeps a frame of the run at `time` (the oldest goes when the ring is full; an earlier time
/// than the last forgets every frame kept).
void gif_ring_add(gif_ring *r, SDL_Surface *frame, double time);
/// Frames kept within the last seconds (what gif_ring_save writes).
int gif_ring_frames(const gif_ring *r);
/// The run's time the frames kept span, at most the ring's seconds, s.
double gif_ring_seconds(const gif_ring *r);
/// Writes the frames of the last seconds kept, oldest first, each shown until the next one's
/// time (a slow window's GIF plays its run's time), to the file open at `fd` (closed after);
/// false with the reason.
bool gif_ring_save(const gif_ring *r, int fd, char *why, size_t n);
/// Forgets every frame (a restart, a resize).
void gif_ring_clear(gif_ring *r);
void gif_ring_destroy(gif_ring *r);

#endif
