// The scene host's internals, shared by scene.c (sandbox, loading, structural diff, reload) and
// scene_program.c (callbacks: input, drawing, events, plots). See sb_scene.h.
#ifndef SB_SCENE_INTERNAL_H
#define SB_SCENE_INTERNAL_H

#include "sb_scene.h"

#include <lua.h>
#include <stdbool.h>
#include <time.h>

/// The optional callbacks of a scene table, in the order of scene_callback_names.
typedef enum scene_callback {
    CB_KEYPRESSED, CB_KEYRELEASED, CB_MOUSEPRESSED, CB_MOUSERELEASED, CB_MOUSEMOVED, CB_WHEELMOVED,
    CB_DRAW, CB_CONTACT_BEGIN, CB_CONTACT_END, CB_SPRING_BREAK, CB_LEAVE_BOUNDS, SCENE_CALLBACK_COUNT
} scene_callback;
extern const char *const scene_callback_names[SCENE_CALLBACK_COUNT];

/// A file the scene loaded: what it looked like when loaded, and a change seen since that
/// is waiting to settle (pending_since > 0).
typedef struct watched_file {
    char *path;
    struct timespec mtime;
    long long size;
    struct timespec pending_mtime;
    long long pending_size;
    double pending_since;
} watched_file;

/// The structure of a freshly built world: which slots hold particles, where they start,
/// and which particles each spring joins. Equal structures can carry state over.
typedef struct world_shape {
    int particles, springs;
    uint32_t *p_index, *s_index, *s_a, *s_b;
    uint32_t *p_gen, *s_gen;  // generations: a slot emptied and refilled at run time is a change
    sb_vec2 *start;
    int constraints;
    uint64_t c_layout;        // hash of each constraint's slot, kind and particles
    uint64_t c_gens;          // hash of their generations (changed_while_running)
} world_shape;

/// What one run of the scene file produced, before it is adopted.
typedef struct scene_build {
    int table_ref, update_ref;
    int world_count;
    sb_world **worlds;
    int *world_refs;
    char *title;
    char *warning;            // unknown fields of the returned table, or NULL
    watched_file *files;
    int file_count;
} scene_build;

struct sb_scene {
    sb_scene_options opt;
    char *path, *dir;
    lua_State *L;
    size_t memory;
    double deadline;          // CLOCK_MONOTONIC seconds; scripts past it are stopped
    const char *deadline_what;
    double deadline_limit;    // seconds the call running now was given
    scene_build cur;
    scene_build *loading;     // the build whose file is running now; NULL between loads
    world_shape *shapes;      // shapes of cur's worlds as first built
    bool update_ok;
    bool callback_off[SCENE_CALLBACK_COUNT]; // raised an error: off until the next reload
    struct scene_draw *draw;                  // scene_program.c
    struct scene_logs *logs;                  // scene_log.c: files of springbox.open_log
};

#define SCENE_LOG_MAX 8       // log files a scene may write in one session
#define SCENE_LOG_NAME_MAX 64 // characters of a log's file name
/// Adds springbox.open_log to the module table of the scene's state.
void scene_log_install(sb_scene *scene);
/// Flushes the open logs (after every frame).
void scene_log_flush(sb_scene *scene);
/// Closes the logs and frees what scene_log.c keeps; after lua_close.
void scene_log_free(sb_scene *scene);

/// Calls the function below `nargs` arguments with a traceback handler and a wall-clock limit;
/// on failure the message is in `error`.
bool protected_call(sb_scene *scene, int nargs, int nresults, double limit, const char *what, char *error, size_t error_size);

/// Checks the callback fields of the scene table at `t` (functions or nil); fills `error`.
bool scene_check_callbacks(sb_scene *scene, int t, char *error, size_t error_size);
/// Calls the events of every world's last step (breaks, contacts); false on an error.
bool scene_dispatch_events(sb_scene *scene, char *error, size_t error_size);
/// Frees what scene_program.c keeps (the draw list).
void scene_program_free(sb_scene *scene);

#endif
