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
    CB_DRAW, CB_CONTACT_BEGIN, CB_CONTACT_END, CB_SPRING_BREAK, CB_LEAVE_BOUNDS, CB_CONSTRAINT_BREAK, SCENE_CALLBACK_COUNT
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
    uint64_t broken_total;    // the world's sb_stats.broken_springs_total when this was taken
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
    unsigned version;         // which run of the scene file made it (logs opened by it carry it)
} scene_build;

/// The kinds of events a frame hands to callbacks: constraint breaks, leaves, spring breaks, begins, ends.
#define SCENE_EVENT_KINDS 5

struct sb_scene {
    sb_scene_options opt;
    char *path, *dir;
    char *real_dir;           // dir with links resolved: what a sandboxed scene's files must lie in
    unsigned versions;        // runs of the scene file so far
    long frames;              // sb_scene_frame calls since the run began (sb_scene_frames)
    lua_State *L;
    size_t memory;
    double deadline;          // CLOCK_MONOTONIC seconds; scripts past it are stopped
    const char *deadline_what;
    double deadline_limit;    // seconds the call running now was given
    char title_shown[256];    // the title a scene set, made printable (sb_scene_title)
    size_t starved_at;        // memory when an allocation past the deadline was refused (0: none yet)
    scene_build cur;
    scene_build *loading;     // the build whose file is running now; NULL between loads
    world_shape *shapes;      // shapes of cur's worlds as first built
    bool update_ok;
    const char *failed;        // the function the last failed frame names: "update" or a callback
    bool callback_off[SCENE_CALLBACK_COUNT]; // raised an error: off until the next reload
    struct scene_draw *draw;                  // scene_program.c
    void *event_copy[SCENE_EVENT_KINDS];      // scene_program.c: a world's events, copied before its callbacks
    size_t event_copy_cap[SCENE_EVENT_KINDS];
    struct scene_logs *logs;                  // scene_log.c: files of springbox.open_log
    struct scene_history *history;            // scene_history.c: the moments kept for rewind, or NULL
};

#define SCENE_LOG_MAX 8       // log files a scene may write in one session
#define SCENE_LOG_NAME_MAX 64 // characters of a log's file name
/// Adds springbox.open_log to the module table of the scene's state.
void scene_log_install(sb_scene *scene);
/// Closes the logs that the run `version` of the scene file opened (a load that failed).
void scene_log_close_version(sb_scene *scene, unsigned version);
/// Frees the history (scene_history.c).
void scene_history_free(sb_scene *scene);
/// Closes every log but those the run `version` opened (a reload closes the replaced version's).
void scene_log_keep_only(sb_scene *scene, unsigned version);
/// Flushes the open logs (after every frame).
void scene_log_flush(sb_scene *scene);
/// Closes the logs and frees what scene_log.c keeps; after lua_close.
void scene_log_free(sb_scene *scene);

// scene_files.c: the files the host opens for a scene.
/// The folder with links resolved (malloc'd), or NULL.
char *scene_real_dir(const char *dir);
/// Reads a regular file of at most `max_bytes` whole (malloc'd, NUL-terminated); with `real_dir`,
/// only one whose resolved path lies inside that folder. false with the reason in `why`.
bool scene_read_file(const char *real_dir, const char *path, size_t max_bytes, char **text, size_t *len, char *why,
                     size_t why_size);
/// Opens log `name` (a plain name) in `real_dir` for writing: never through a link, never a file
/// with another name or a non-regular file; truncated unless `append`. NULL with the reason in `why`.
FILE *scene_open_log_file(const char *real_dir, const char *name, bool append, char *why, size_t why_size);
/// One change W makes: `length` bytes at `offset` become `text`.
typedef struct scene_edit { size_t offset, length; const char *text; } scene_edit;
/// Makes the edits (in order of offset, apart) in the file at `path`, atomically (a temporary
/// file beside it, then rename), only if the file is plain UTF-8 text and still exactly
/// `expected_text` (what the scene loaded). false with the reason in `why`: the file is untouched.
bool scene_replace_in_file(const char *path, const scene_edit *edits, int count, const char *expected_text,
                           size_t expected_len, char *why, size_t why_size);
/// Makes text safe to print and to put in JSON: control bytes (but tab and newline) and bytes
/// that are not UTF-8 become '?'. In place.
void scene_clean_text(char *text);
/// The most bytes a scene's source or module may have.
#define SCENE_SOURCE_MAX ((size_t)16 << 20)
/// The most files a scene's loads are watched through (the scene file and its modules).
#define SCENE_WATCH_MAX 256

/// Bytes the host's own work on the scene's state may take past the scene's memory limit.
#define SCENE_HOST_RESERVE ((size_t)4 << 20)
/// Runs `body(scene, args)`, the host's own work on the scene's Lua state (pushing a callback's
/// arguments, reading the registry, copying springbox.state), in protected mode, as lua.c runs
/// its pmain: an error the Lua API raises there ("not enough memory" when a scene keeps its heap
/// full) comes back as false with the message in `error` (when not NULL); Lua never panics.
bool scene_host_call(sb_scene *scene, void (*body)(sb_scene *scene, void *args), void *args, char *error,
                     size_t error_size);
/// Calls the function below `nargs` arguments with a traceback handler and a wall-clock limit;
/// on failure the message is in `error`.
bool protected_call(sb_scene *scene, int nargs, int nresults, double limit, const char *what, char *error, size_t error_size);

/// Checks the callback fields of the scene table at `t` (functions or nil); fills `error`.
bool scene_check_callbacks(sb_scene *scene, int t, char *error, size_t error_size);
/// Calls the events of every world's last step (breaks, contacts); false on an error.
bool scene_dispatch_events(sb_scene *scene, char *error, size_t error_size);
/// Frees what scene_program.c keeps (the draw list).
void scene_program_free(sb_scene *scene);

// ---------------------------------------------------------------- shared by scene.c, scene_sandbox.c, scene_build.c and scene_reload.c

double scene_seconds(void);
char *scene_copy_string(const char *s);
sb_reload_event scene_event(sb_reload_result r, const char *fmt, const char *detail);
void *limited_alloc(void *ud, void *ptr, size_t osize, size_t nsize);
void pattern_guard(lua_State *L, void *ud);
void deadline_hook(lua_State *L, lua_Debug *ar);
/// springbox's world:step asks this between frames and sub-steps (sb_lua_set_guard).
bool step_guard(void *ud, char *message, size_t size);
/// Copies a Lua error into `error`, with the text of the line it names after its first line:
/// "scene.lua:3: syntax error near 'sb'" gains "    3 | locl sb = require 'springbox'", so a
/// designer sees what Lua saw without opening the file. The text comes from what the host loaded
/// for the scene (the registry's "springbox.sources"), never from a file the message names: a
/// chunk name or a traceback can name any file. Control bytes and bytes that are not
/// UTF-8 become '?', so the message is safe for a terminal and for --stats.
void error_with_source_line(lua_State *L, const char *message, char *error, size_t error_size);
/// Takes what the file looks like on disk now as seen (size -1 and no time when it is gone).
void scene_watch_stat(watched_file *f);
/// Watches `path` for this build: once per path, and at most SCENE_WATCH_MAX files (a require
/// in a loop of ever new names must not grow the list, and every frame stats each one).
void scene_record_file(scene_build *b, const char *path);
/// Loads the scene file or a module as a text chunk named "@path": read whole through
/// scene_read_file (a regular file; with `real_dir`, one inside that folder), kept in the
/// registry's "springbox.sources" for error lines and slider order, then compiled. Like
/// luaL_loadfile it skips a UTF-8 byte order mark and a first line starting with '#'. Pushes
/// the function, or an error message; returns the lua_load status.
int scene_load_source(sb_scene *scene, const char *path, const char *real_dir);
int sandbox_protected(lua_State *L);
int sandbox_xpcall(lua_State *L);
/// Replaces env[name] (or env.lib[name]) with `fn` closed over the scene and the original.
void scene_wrap_function(lua_State *L, sb_scene *scene, int env, const char *lib, const char *name, lua_CFunction fn);
extern const char *const string_safe[];
void scene_push_environment(sb_scene *scene);
void scene_build_free(sb_scene *scene, scene_build *b);
bool scene_build_run(sb_scene *scene, scene_build *b, char *error, size_t error_size);
void scene_shape_free(world_shape *s);
void scene_adopt(sb_scene *scene, scene_build *b, world_shape *shapes);
/// Retires the worlds of `gone` that `stays` does not hold (their handles then say they are stale).
void scene_build_retire(sb_scene *scene, const scene_build *gone, const scene_build *stays);
/// World w's structure as a reload compares it (out of memory: particles < 0).
void scene_shape_of(const sb_world *w, world_shape *s);
/// Whether the running world changed its structure since it was built as `built`; why, if so.
bool scene_shape_changed_while_running(const world_shape *built, const sb_world *w, int world, char *why, size_t n);
/// Whether a new build's structure differs from the running one's; why, if so.
bool scene_shape_differs(const world_shape *old, const world_shape *new_, int world, char *why, size_t n);
/// Whether one of two structures begins with all of the other's particles (built where they
/// were) and springs: a file that added things after the rest, or took its last ones away.
bool scene_shape_extends(const world_shape *old, const world_shape *new_);
/// The running state of src into dst, its tuning ramped in; returns how many changes ramp.
int scene_carry_over(sb_scene *scene, sb_world *dst, const sb_world *src);
// scene_reload.c: the reload pipeline.
sb_reload_event scene_reload_now(sb_scene *scene, bool force_restart);

#endif
