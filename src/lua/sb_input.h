// What a designer did to a running scene, against the frame it happened at:
// the scene's keys, clicks, moves and wheel, the window's drag, slider moves and draw mode's lines. A log is kept
// while the window runs, written with --record-input FILE, and replayed with --replay FILE (in
// the window or headless) or from the window's replay key, so the same hands can be tried
// against a new tuning.
#ifndef SB_INPUT_H
#define SB_INPUT_H

#include "sb_lua.h"
#include "sb_scene.h"

#include <stdbool.h>
#include <stddef.h>

typedef enum sb_input_kind {
    SB_INPUT_KEY,        ///< name, pressed
    SB_INPUT_BUTTON,     ///< x, y (world), button, pressed
    SB_INPUT_MOVE,       ///< x, y, dx, dy (world)
    SB_INPUT_WHEEL,      ///< dx, dy
    SB_INPUT_DRAG,       ///< world, particle (slot), x, y (the target), hertz, damping_ratio
    SB_INPUT_DRAG_TO,    ///< world, x, y
    SB_INPUT_RELEASE,    ///< world
    SB_INPUT_TUNE,       ///< name, value: a slider let go (a hot reload of that tunable)
    SB_INPUT_SKETCH,     ///< line: the line draw mode wrote into the scene file (sb_scene_sketch_write)
    SB_INPUT_TAKE_BACK,  ///< draw mode's Ctrl+Z: the last drawn line out of the scene file
} sb_input_kind;

/// One thing done, after `frame` steps of the scene's first world.
typedef struct sb_input_event {
    long frame;
    sb_input_kind kind;
    char name[SB_TUNABLE_NAME_MAX + 1]; ///< a key's or a tunable's
    const char *line;                   ///< a drawn line (at most SB_INPUT_LINE_MAX bytes); the log keeps its own copy
    bool pressed;
    int button, world;
    unsigned particle;
    double x, y, dx, dy, value, hertz, damping_ratio;
} sb_input_event;

typedef struct sb_input_log sb_input_log;

/// The longest drawn line a recording keeps, bytes.
#define SB_INPUT_LINE_MAX 8191

/// The largest recording sb_input_log_read takes, bytes (about a million events).
#define SB_INPUT_FILE_MAX (64 << 20)

/// An empty log; NULL without memory.
sb_input_log *sb_input_log_create(void);
void sb_input_log_free(sb_input_log *log);
/// Adds an event at the end, copying its drawn line. Events come in frame order: one at an earlier frame than the last
/// (the run went back, a rewind) first forgets those after its frame, back to the last drawn
/// line (after which the run may have restarted). False without memory.
bool sb_input_log_add(sb_input_log *log, const sb_input_event *event);
int sb_input_log_count(const sb_input_log *log);
const sb_input_event *sb_input_log_event(const sb_input_log *log, int i);
/// Forgets the events after `frame` (a rewound run that goes on from there), back to the last drawn line.
void sb_input_log_cut(sb_input_log *log, long frame);
void sb_input_log_clear(sb_input_log *log);
/// Writes the log as text, one event per line; false with the reason in `why`.
bool sb_input_log_write(const sb_input_log *log, const char *path, char *why, size_t n);
/// Writes the log into the file open at `f`, in place of what it held; false with the reason.
bool sb_input_log_write_file(const sb_input_log *log, FILE *f, char *why, size_t n);
/// Reads a log written by sb_input_log_write: a regular file of at most SB_INPUT_FILE_MAX bytes,
/// refused at its first line that is not an event. NULL with the file, line and reason in `why`,
/// printable ASCII.
sb_input_log *sb_input_log_read(const char *path, char *why, size_t n);
/// Does an event to a scene as the window did it when it was recorded. A tunable's reload is
/// returned in *reload (SB_RELOAD_NONE for other events); a callback's error goes to `error`.
void sb_input_apply(sb_scene *scene, const sb_input_event *event, sb_reload_event *reload, char *error, size_t n);

#endif
