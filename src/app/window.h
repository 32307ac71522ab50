// The sandbox window (SDL2) and offscreen rendering of scenes to PNG.
#ifndef SB_WINDOW_H
#define SB_WINDOW_H

#include "sb_world.h"

#include <stdio.h>

struct output_file;

typedef struct window_options {
    const char *scene_path;
    bool trusted;
    FILE *stats;              ///< JSON lines: one per physics frame, one per event
    int frames;               ///< window: quit after this many frames (0 = never); offscreen: frame to render
    int width, height;
    bool view_given;          ///< use view_cx/cy/scale instead of fitting the scene
    double view_cx, view_cy, view_scale;
    struct output_file *stats_out;      ///< where `stats` goes: placed over its target once the scene has loaded
    struct output_file *screenshot_out; ///< offscreen: write this PNG after `frames` frames
    const char *record_dir;   ///< offscreen: write every frame as dir/frame_NNNNN.png
    struct output_file *gif_out;        ///< offscreen: write every second frame up to `frames` as an animated GIF
    const char *record_input; ///< write what the designer did to this file at exit (--record-input)
    FILE *record_input_file;  ///< a temporary beside record_input, made at the start; the caller places it
    const char *stats_path;   ///< the file `stats` writes, for its errors
    bool rewind;              ///< keep the scenes' moments for rewinding (the window; not offscreen renders)
    struct sb_input_log *replay; ///< do these recorded events again, from the run's start (--replay); the app frees it
    bool method_given;
    sb_method method;
    int substeps, iterations; ///< > 0: override the scene's
} window_options;

/// Opens the window and runs until closed. Returns the process exit status.
int window_run(const window_options *options);
/// Renders without a display (SDL's software renderer on a surface) and writes PNGs.
int window_offscreen(const window_options *options);
/// The window's inputs as a Markdown table (`springbox --keys`): the help box reads the same table.
void window_print_keys(FILE *out);

#endif
