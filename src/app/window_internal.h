// What the window's files share: the app's state (its worlds side by side, the view, the
// sliders, notices, traces, revisions, rewind and GIF buffers). window.c runs the loop (window.h
// is the API); the files below it call only downward, each with its own header:
// window_keys.c, window_draw.c, window_input.c, window_sketch.c, window_time.c, window_sides.c
// (tests/layers.lua checks it).
#ifndef SB_WINDOW_INTERNAL_H
#define SB_WINDOW_INTERNAL_H

#include "window.h"

#include "render.h"
#include "sb_input.h"
#ifdef SPRINGBOX_HAVE_GIF
#include "gif.h"
#include "output.h"
#include "output_file.h"
#endif
#include "sb_scene.h"
#include "sb_structure.h"
#include "sb_tuning.h"

#include <SDL_image.h>

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { HISTORY = 300, MAX_NOTICES = 4, PANEL_WIDTH = 260, MAX_PLOTS = 12 };
/// Draw mode's most points a stroke keeps, and lines Ctrl+Y can put back.
enum { SKETCH_POINTS = 1024, SKETCH_REDO = 64 };
/// The narrowest the scene's view gets, pixels: a window narrower than the panel and this (a
/// window manager that ignores the minimum size) still has a view of the scene, drawn under it.
enum { MIN_VIEW_WIDTH = 60 };
static inline int view_width(int window_width)
{
    return window_width - PANEL_WIDTH > MIN_VIEW_WIDTH ? window_width - PANEL_WIDTH : MIN_VIEW_WIDTH;
}
/// Rewind keeps the last minute of each side's moments, within this much memory.
#define REWIND_SECONDS 60.0
#define REWIND_BYTES ((size_t)384 << 20)
/// and while keeping a moment takes at most this many milliseconds a frame, on average: a quarter of a 60 Hz frame.
#define REWIND_MS 4.0

/// One simulation shown in the window: the scene, its solver overrides and its history.
typedef struct side {
    sb_scene *scene;
    bool method_set;
    sb_method method;
    int substeps, iterations;   // > 0: set by keys, applied after every reload
    int tethers;                // -1: the scene's; 0 or 1: set by T, applied after every reload
    float energy[HISTORY], stretch[HISTORY], step_ms[HISTORY];
    int history;
    char error[4096];           // a failed reload or update(): shown over the running scene
    bool has_error;
    int told_paused;            // what the scene was last told: 0 nothing yet (or reloaded since), 1 running, 2 paused
    int draw_skipped;         // commands of the scene's draw(g) the last frame left undrawn (render_draw_list)
    const char *error_title;    // what the overlay says the error is (a reload's or a callback's)
    // the scene's springbox.plot series: names and histories
    int plots;
    char plot_name[MAX_PLOTS][40];
    char plot_panel[MAX_PLOTS][40]; // series with the same panel share one (springbox.plot's third argument)
    int hud_bottom;             // the y under the HUD's lines last frame: where a scene's screen text starts
    float plot[MAX_PLOTS][HISTORY];
} side;

typedef struct notice { char text[256]; SDL_Color color; double until; const char *kind; } notice;

/// A run as it went, frame by frame: the left side's first world's particle positions (by slot)
/// and its energy and stretch, so that a replay can show the run before it as a ghost.
typedef struct run_trace {
    float *xy;                  // frames x slots (x, y) pairs
    float *energy, *stretch;    // per frame
    int slots;                  // particle slots per frame: the world's high-water mark when it began
    long frames, cap;
} run_trace;
/// The panel's sliders: the scene's tunables (the first MAX_SLIDERS - 2, in the order they are
/// declared; the panel scrolls) and the drag's two.
enum { MAX_SLIDERS = 258 };
/// Every tunable's value after a save or a slider release: one block holds the names and values.
enum { MAX_REVISIONS = 256 };
/// The most the revisions may hold together, bytes: past it the oldest go.
#define REVISION_BYTES ((size_t)16 << 20)
typedef struct revision {
    int count;
    size_t bytes;
    const char **name;
    double *value;
} revision;

/// The most a trace may hold: past it the run's later frames have no ghost.
#define TRACE_BYTES ((size_t)64 << 20)

/// A line of the help box: what to press and what it does (window.c's table of keys).
typedef struct help_line { const char *name, *help; } help_line;
enum { MAX_HELP_LINES = 48 };

typedef struct app {
    window_options opt;
    side sides[2];
    bool compare, paused, step_once, help, running;
    bool clean;                 // the clean view: the scene alone, over the whole window (V)
    bool screenshot_asked;      // P: read from the next frame drawn, before it is shown (a browser's
                                // canvas holds nothing once a frame is shown)
    help_line key_help[MAX_HELP_LINES]; // what the help box (H) lists
    int key_help_count;
    sb_view view;               // the camera; in compare view both halves share it
    int width, height;
    // dragging: the slot of the particle in each side's world `drag_world`
    bool dragging;
    int drag_world;
    uint32_t drag_index;
    double drag_hertz, drag_zeta;
    int drag_slider;            // index of the slider being moved, -1 if none
    int panel_scroll;           // pixels the sliders are scrolled up by (the wheel over the panel)
    // draw mode (D, window_sketch.c): the tool (Tab), the stroke the left button is drawing, from
    // particle slot sketch_from (-1: empty space), and the lines Ctrl+Z took back, for Ctrl+Y
    bool sketching, sketch_down, sketch_reloading; // (reloading: a drawn line's reload, no new run)
    int sketch_tool, sketch_from, sketch_count, sketch_redo_count;
    sb_vec2 sketch_points[SKETCH_POINTS];
    char *sketch_redo[SKETCH_REDO];
    bool panning;
    int pan_x, pan_y;
    notice notices[MAX_NOTICES];
    double fps;
    double behind_until;        // physics dropped time recently: it runs slower than real time
    double physics_share;       // physics time over frame time, smoothed
    long frame;
    render_ctx *rc;
    double slider_preview;      // a scene tunable being dragged: its value so far, applied on release
    bool claimed_key[SDL_NUM_SCANCODES]; // keys the scene claimed on press: their repeats are its too
    bool claimed_click;         // the scene claimed the last press: its release and moves are not a drag
    bool view_moved;            // the designer (or the scene's camera) placed the view: it is theirs, no refit
    int fitted_rows;            // plot panel rows the view was last fitted clear of
    // the asked-versus-delivered view: a clicked spring of the left side, and its
    // stretch over the last HISTORY frames (oldest first)
    bool inspecting;
    int inspect_world, inspect_count;
    sb_spring_id inspect_spring;
    float inspect_stretch[HISTORY];
    long inspect_total;          // samples recorded since the spring was picked
    long inspect_fitted_at;      // inspect_total when inspect_release was fitted (-1: never)
    sb_release inspect_release;  // a release too damped to swing, read from its decay
    // a spring of a tuned structure: the structure's mode is what is asked and shown, its motion
    // read as the mode's share of the particles' positions (sb_structure_mode_shape)
    int inspect_structure;       // springs in it (0: the spring alone)
    double structure_hertz, structure_zeta;
    bool structure_by_stretch;   // its mode is read from its springs' stretch (else its particles' positions)
    double camera_zoom;          // the wheel's zoom over a scene's camera that sets one (1: as the scene asks)
    double structure_raw[2][HISTORY]; // its mode's coordinate, and once less its mean over a period (inspect_record)
    int structure_raw_count;
    // rewind: the scenes keep a minute of moments; rewinding shows one of
    // them, paused, and resuming runs on from it (the later ones are forgotten)
    bool rewinding, scrubbing;
    int rewind_at;              // the moment shown, in the left side's history (0 = oldest)
    // what the designer does, against the run's frame: recorded since the run
    // began, and the recording being replayed (F5, --replay) from its next event
    sb_input_log *input, *replay;
    sb_input_log *hands_before; // the hands of the run a reload restarted: F5 replays them while the new run has none
    int replay_next;
    run_trace trace, ghost;     // this run, and the run before the replay (drawn faint while it lasts)
    // the tuning history: revisions of the tunables, the one in force, and whether one is being
    // applied (its own reloads are not new revisions)
    revision *revisions;
    int revision_count, revision_at;
    bool applying_revision;
#ifdef SPRINGBOX_HAVE_GIF
    // the last GIF_SECONDS of the view, every second physics frame, for G
    struct gif_ring *gif;
    SDL_Surface *gif_frame;     // the window's pixels read back, at its size
#endif
} app;

/// The width of the scene's view: the whole window in the clean view, else what the panel leaves.
static inline int scene_view_width(const app *a) { return a->clean ? a->width : view_width(a->width); }
/// Whether window x is over the tuning panel (there is none in the clean view).
static inline bool over_panel(const app *a, int x) { return !a->clean && x >= a->width - PANEL_WIDTH; }

// ---------------------------------------------------------------- what the window's files share

/// What the inspected spring asks and what its recent motion shows: the motion is read from its
/// largest swing on (a swing starts from rest at its peak), about the mean it settles to; the
/// ideal curve is the asked tuning's response from that peak. False when nothing is inspected.
typedef struct inspection {
    bool rigid;
    double asked_hertz, asked_zeta;
    sb_oscillation measured;
    bool decay;                  // too damped to count swings: `released` holds what its decay shows
    int structure;               // springs in the structure it reads (0: the spring alone)
    bool structure_by_stretch;   // the structure's mode read from its springs' stretch (else its particles' positions)
    sb_release released;
    int from;                    // the sample the swing starts at
    double offset;               // the stretch it swings about
    float ideal[HISTORY], motion[HISTORY];
} inspection;
typedef struct slider { char name[SB_TUNABLE_NAME_MAX + 1]; double value, min, max; bool app; } slider;

#endif
