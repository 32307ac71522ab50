// springbox scenes: a Lua file that builds one or more worlds and returns a table
//   { world = w, worlds = {w, w2}, title = "...", update = function(world, dt) end, tune = {...} }
// (or the world alone). The host runs it in a sandbox, steps it, watches the files it
// loaded and reloads it when they change, keeping the running state when only tuning changed.
#ifndef SB_SCENE_H
#define SB_SCENE_H

#include "sb_world.h"

#include <stddef.h>
#include <stdio.h>

typedef struct sb_scene sb_scene;

/// How to open a scene. Start from sb_default_scene_options().
typedef struct sb_scene_options {
    const char *path;        ///< the scene file
    bool trusted;            ///< give the script the full standard library (os.execute, io, ...)
    double ramp_seconds;     ///< a reload's tuning changes blend in over this much simulated time
    double load_seconds;     ///< wall-clock limit for running the scene file
    double update_seconds;   ///< wall-clock limit for one call of update()
    size_t memory_limit;     ///< bytes the scripts may allocate
    size_t log_limit;        ///< bytes one springbox.open_log file may take in a session
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
    bool reshaped;           ///< kept, with things added after the rest or the last ones taken away:
                             ///< the time machine's moments, of the old structure, are gone
    char message[1024];      ///< "tuning applied, state kept", the restart reason, or file:line: error
} sb_reload_event;

/// One tunable value declared with springbox.tune{ name = {value, min, max} }.
typedef struct sb_tunable { const char *name; double value, min, max; } sb_tunable;

/// Defaults: untrusted, 0.5 s ramp, 10 s load limit, 1 s update limit, 4 GiB of memory,
/// 64 MiB per log file.
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

/// Frames this run has taken: sb_scene_frame calls since the scene was opened or last restarted
/// (a rewind takes it back with the moment). What the scene does to its worlds' clocks (a
/// restore, an extra step) does not change it: recordings of input count their frames by it.
long sb_scene_frames(const sb_scene *scene);
/// Number of worlds; world 0 is the scene's `world`.
/// The function whose error made the last sb_scene_frame fail: "update" or a callback's name
/// ("on_spring_break"); it stays off until the next reload, the rest keep running.
const char *sb_scene_failed_function(const sb_scene *scene);
int sb_scene_world_count(const sb_scene *scene);
/// The i-th world.
sb_world *sb_scene_world(const sb_scene *scene, int i);
/// The scene's title: what it last gave springbox.window.set_title, else its table's `title`,
/// else its file name.
const char *sb_scene_title(const sb_scene *scene);
/// What the running scene's file returned that springbox does not use ("scene field 'updat' is
/// not used (did you mean 'update'?)"), or "" when nothing; said once per load.
const char *sb_scene_warning(const sb_scene *scene);
/// Bytes the scene's Lua state holds now (its scripts' tables, strings, closures).
size_t sb_scene_memory(const sb_scene *scene);
/// Files the scene loaded (the scene file first).
int sb_scene_file_count(const sb_scene *scene);
const char *sb_scene_file(const sb_scene *scene, int i);

/// The declared tunables.
int sb_scene_tunable_count(const sb_scene *scene);
sb_tunable sb_scene_tunable(const sb_scene *scene, int i);
/// The first `max` tunables in the order they were declared, into `out` (their names valid until
/// the next reload); how many.
int sb_scene_tunables(const sb_scene *scene, sb_tunable *out, int max);
/// Where W can write tunable `name`: true when its number is written as a plain numeral in
/// springbox.tune{ name = {<number>, min, max} } in one of the scene's files, with *declared the
/// value written there; false when it is not (declared through a variable or an expression).
bool sb_scene_tunable_declared(sb_scene *scene, const char *name, double *declared);
/// A number as a person writes it, with at most `decimals` decimals: 5, 5.5, 5.05 (not 5.00), 0
/// (not -0). What W and draw mode write into a scene file.
void sb_scene_number_text(char *out, size_t size, double v, int decimals);
/// W: writes `texts[i]` (a number, as the slider shows it) in place of the number written for
/// tunable `names[i]`, and changes nothing else, byte for byte. Each file is written atomically
/// (a temporary file beside it, then rename), only while it is plain UTF-8 text and still what
/// the scene loaded. Returns how many it wrote, or -1 with the reason in `message` (no file changed).
int sb_scene_write_tunables(sb_scene *scene, int count, const char *const *names, const char *const *texts,
                            char *message, size_t message_size);
/// Draw mode: writes `call` as one line into the scene file's drawn block (made before its last
/// line starting with `return` when it has none), %W standing for the scene's world variable
/// (from its `local NAME = sb.world{`) and %P<slot>; for NAME:pick(x, y) at where the first
/// world's particle in that slot was built. Only the scene's own file, atomically, only while it
/// is what the scene loaded (as W writes). True with the line written in `written`; false with
/// the reason in `message`, the file untouched. The scene takes it at its next reload.
bool sb_scene_sketch_write(sb_scene *scene, const char *call, char *written, size_t written_size, char *message, size_t message_size);
/// Takes the last line of the drawn block back out of the scene file (into `taken`, for a redo).
bool sb_scene_sketch_take_back(sb_scene *scene, char *taken, size_t taken_size, char *message, size_t message_size);
/// Sets a tunable and re-runs the scene exactly as a hot reload would (state kept).
sb_reload_event sb_scene_set_tunable(sb_scene *scene, const char *name, double value);

// ---------------------------------------------------------------- scenes as programs
// A scene table may also hold callbacks, each optional, called by the host (LÖVE's names):
//   keypressed(key) keyreleased(key) mousepressed(x, y, button) mousereleased(x, y, button)
//   mousemoved(x, y, dx, dy) wheelmoved(dx, dy) draw(g)
//   on_contact_begin(a, b) on_contact_end(a, b) on_spring_break(spring, a, b, force, stretch)
//   on_leave_bounds(p) (a particle with events left the world's region)
// Positions are world metres. An error in a callback is reported like update()'s, and that
// callback stays off until the next reload while the rest keep running.

/// Tells the scene whether the host's run is paused or rewound: springbox.paused() says so to its
/// callbacks (a scene that claims space can leave it to the window while paused).
void sb_scene_set_paused(sb_scene *scene, bool paused);
/// A key went down or up (SDL's key name in lower case: "left", "space", "a"). The scene's
/// keypressed / keyreleased runs; returns true when it returned true, claiming the key from the
/// host's own bindings. springbox.keyboard.isdown sees the key from now on. On an error
/// `error` is filled (else it is set to "").
bool sb_scene_key(sb_scene *scene, const char *key, bool pressed, char *error, size_t error_size);
/// A mouse button (1 left, 2 right, 3 middle) went down or up at (x, y) in world metres;
/// returns true when the scene's callback returned true (the host then leaves the click alone).
bool sb_scene_mouse_button(sb_scene *scene, double x, double y, int button, bool pressed, char *error, size_t error_size);
/// The mouse moved to (x, y), by (dx, dy), in world metres.
void sb_scene_mouse_move(sb_scene *scene, double x, double y, double dx, double dy, char *error, size_t error_size);
/// The wheel turned (LÖVE's wheelmoved: x right, y away from the user); true when the scene's
/// callback returned true (the host then does not zoom).
bool sb_scene_wheel(sb_scene *scene, double dx, double dy, char *error, size_t error_size);
/// True if the scene has this callback ("draw", "keypressed", ...), and it is not off after an error.
bool sb_scene_has_callback(const sb_scene *scene, const char *name);

/// What the scene asks of the camera (springbox.camera): look at a point once, or follow a
/// particle. `height` is the metres of world to show; 0 keeps the zoom.
typedef struct sb_camera_request { double x, y, height; bool follow; } sb_camera_request;
/// The scene's camera request for this frame, if any: a look is handed out once; a follow
/// every frame, at the particle's position now, until it is stopped or the particle goes.
bool sb_scene_camera(sb_scene *scene, sb_camera_request *request);
/// What the window shows now (centre and height in metres), for springbox.camera.get.
void sb_scene_set_view(sb_scene *scene, double x, double y, double height);

/// What a scene's draw(g) asked to draw this frame.
typedef enum sb_draw_kind { SB_DRAW_LINES, SB_DRAW_CIRCLE, SB_DRAW_POLYGON, SB_DRAW_TEXT } sb_draw_kind;
typedef struct sb_draw_command {
    sb_draw_kind kind;
    uint32_t color;          ///< 0xRRGGBBAA
    bool screen;             ///< positions are pixels from the window's top left, not world metres
    bool fill;               ///< circles and polygons
    int first, count;        ///< its points: the polyline or polygon, a circle's centre, a text's place
    double radius;           ///< circles, in metres
    int text;                ///< texts: offset of the text in sb_draw_list.text
    bool big;                ///< texts: the larger font
    float width;             ///< lines and outlines, pixels (g.width)
} sb_draw_command;
typedef struct sb_draw_list {
    int count;
    const sb_draw_command *commands;
    const sb_vec2 *points;
    const char *text;
} sb_draw_list;
/// Runs the scene's draw(g) and hands back what it drew (valid until the next call). Returns
/// false on an error (in `error`), with what was drawn before it; a scene without draw draws nothing.
bool sb_scene_draw(sb_scene *scene, sb_draw_list *list, char *error, size_t error_size);

/// The series given to springbox.plot, in the order they first came, with their latest values.
int sb_scene_plot_count(const sb_scene *scene);
/// The i-th series; false past the end.
bool sb_scene_plot(const sb_scene *scene, int i, char *name, size_t name_size, double *value);
/// The panel series `name` is drawn in: the one springbox.plot gave it, or its own name.
void sb_scene_plot_panel(const sb_scene *scene, const char *name, char *panel, size_t panel_size);
/// Writes `,"plots":{"name":value,...}` for a --stats JSON line (nothing when there are none).
void sb_scene_write_plots_json(const sb_scene *scene, FILE *f);
/// Writes `,"worlds":[{...},...]` for a --stats JSON line of a scene with several worlds: each
/// world's number, method, figures, clamps and halt, with their messages (nothing for one world).
void sb_scene_write_worlds_json(const sb_scene *scene, FILE *f);

/// Keeps the scene's history for rewinding: after each sb_scene_history_record, a snapshot of
/// every world and a copy of springbox.state, the last `seconds` of them within `max_bytes`, while
/// a frame's recording takes on average at most `max_ms`, or as long as the frame's physics where
/// that is longer (past both, the history stops keeping moments; sb_scene_history_status says so).
void sb_scene_history_enable(sb_scene *scene, double seconds, size_t max_bytes, double max_ms);
/// Records the moment after a frame (call it after sb_scene_frame).
void sb_scene_history_record(sb_scene *scene);
/// Moments kept, oldest first; 0 when the history is off or empty.
int sb_scene_history_count(const sb_scene *scene);
/// The first world's clock at moment i, seconds.
double sb_scene_history_time(const sb_scene *scene, int i);
/// Bytes the moments hold.
size_t sb_scene_history_bytes(const sb_scene *scene);
/// Whether springbox.state goes back with the worlds (false once a copy of it failed).
bool sb_scene_history_keeps_state(const sb_scene *scene);
/// What the history does not keep and why ("springbox.state is not rewound: ...", "rewind is
/// off: ..."), or "" when it keeps everything. A restart keeps everything again.
const char *sb_scene_history_status(const sb_scene *scene);
/// Puts every world and springbox.state back to moment i, keeping the tuning of now; false if
/// there is no such moment.
bool sb_scene_history_go(sb_scene *scene, int i);
/// Forgets the moments after i: the run resumes from moment i.
void sb_scene_history_cut(sb_scene *scene, int i);
/// Forgets every moment (a restart does).
void sb_scene_history_clear(sb_scene *scene);

/// Writes `text` as a JSON string, quoted and escaped.
void sb_json_string(FILE *f, const char *text);

#endif
