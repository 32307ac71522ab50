// springbox scenes: a Lua file that builds one or more worlds and returns a table
//   { world = w, worlds = {w, w2}, title = "...", update = function(world, dt) end, tune = {...} }
// (or the world alone). The host runs it in a sandbox, steps it, watches the files it
// loaded and reloads it when they change, keeping the running state when only tuning changed.
#ifndef SB_SCENE_H
#define SB_SCENE_H

#include "sb_world.h"

#include <stddef.h>

typedef struct sb_scene sb_scene;

/// How to open a scene. Start from sb_default_scene_options().
typedef struct sb_scene_options {
    const char *path;        ///< the scene file
    bool trusted;            ///< give the script the full standard library (os.execute, io, ...)
    double ramp_seconds;     ///< a reload's tuning changes blend in over this much simulated time
    double load_seconds;     ///< wall-clock limit for running the scene file
    double update_seconds;   ///< wall-clock limit for one call of update()
    size_t memory_limit;     ///< bytes the scripts may allocate
} sb_scene_options;

/// What a reload did.
typedef enum sb_reload_result {
    SB_RELOAD_NONE = 0,   ///< nothing changed on disk
    SB_RELOAD_KEPT,       ///< same structure: tuning applied, state kept
    SB_RELOAD_RESTARTED,  ///< structure changed: the scene restarted (message says why)
    SB_RELOAD_FAILED,     ///< the file has an error: the last good scene keeps running
} sb_reload_result;

typedef struct sb_reload_event {
    sb_reload_result result;
    double latency_ms;       ///< from the file's modification time to the reload
    char message[1024];      ///< "tuning applied, state kept", the restart reason, or file:line: error
} sb_reload_event;

/// One tunable value declared with springbox.tune{ name = {value, min, max} }.
typedef struct sb_tunable { const char *name; double value, min, max; } sb_tunable;

/// Defaults: untrusted, 0.5 s ramp, 10 s load limit, 1 s update limit, 4 GiB of memory.
sb_scene_options sb_default_scene_options(void);
/// Loads a scene. NULL on failure, with the error and Lua traceback in `error`.
sb_scene *sb_scene_open(const sb_scene_options *options, char *error, size_t error_size);
/// Frees a scene and its Lua state.
void sb_scene_close(sb_scene *scene);

/// Reloads if a watched file changed on disk since the last look (cheap: a stat per file).
sb_reload_event sb_scene_poll(sb_scene *scene);
/// Reloads now, whatever the files say.
sb_reload_event sb_scene_reload(sb_scene *scene);
/// Restarts the scene from its file, dropping the running state.
sb_reload_event sb_scene_restart(sb_scene *scene);

/// Runs one frame: update(world, dt), the tuning ramps, then one step of every world.
/// Returns false if update() raised; the error is in `error` and update() stays off until
/// the next reload, while the worlds keep stepping.
bool sb_scene_frame(sb_scene *scene, char *error, size_t error_size);

/// Number of worlds; world 0 is the scene's `world`.
int sb_scene_world_count(const sb_scene *scene);
/// The i-th world.
sb_world *sb_scene_world(const sb_scene *scene, int i);
/// The scene's title (its file name if it gave none).
const char *sb_scene_title(const sb_scene *scene);
/// What the running scene's file returned that springbox does not use ("scene field 'updat' is
/// not used (did you mean 'update'?)"), or "" when nothing; said once per load.
const char *sb_scene_warning(const sb_scene *scene);
/// Files the scene loaded (the scene file first).
int sb_scene_file_count(const sb_scene *scene);
const char *sb_scene_file(const sb_scene *scene, int i);

/// The declared tunables.
int sb_scene_tunable_count(const sb_scene *scene);
sb_tunable sb_scene_tunable(const sb_scene *scene, int i);
/// Sets a tunable and re-runs the scene exactly as a hot reload would (state kept).
sb_reload_event sb_scene_set_tunable(sb_scene *scene, const char *name, double value);

#endif
