// springbox: runs a Lua scene (or a built-in sample) headless. Prints one summary line per
// second of simulated time and, with --stats, writes one JSON object per frame and one per
// reload event. Watches the scene's files and hot-reloads them while it runs.
#define _POSIX_C_SOURCE 200809L
#include "options.h"
#include "output_file.h"
#include "sb_input.h"
#include "sb_lua.h"
#include "sb_pool.h"
#include "sb_samples.h"
#include "sb_scene.h"
#include "sb_structure.h"
#include "sb_world.h"
#ifdef SPRINGBOX_HAVE_SDL
#include "window.h"
#endif

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>


/// A JSON number, or null for what JSON cannot hold (an overflowed energy is inf).
static void json_number(FILE *f, const char *key, double v, const char *format)
{
    fprintf(f, ",\"%s\":", key);
    if (isfinite(v))
        fprintf(f, format, v);
    else
        fputs("null", f);
}

/// One JSON line of the first world's figures, and each world's under "worlds" when there are several;
/// `halted` is true when any world of the scene halted.
static void write_stats_line(FILE *f, long frame, const sb_scene *scene, const sb_world *w, int reloads, bool halted)
{
    const sb_stats *st = sb_world_get_stats(w);
    fprintf(f, "{\"frame\":%ld", frame);
    json_number(f, "time", st->time, "%.6f");
    fprintf(f, ",\"hash\":\"%016llx\"", (unsigned long long)sb_world_state_hash(w)); // the first world's state bits
    json_number(f, "kinetic", st->kinetic_energy, "%.9g");
    json_number(f, "potential", st->potential_energy, "%.9g");
    json_number(f, "max_stretch", st->max_stretch, "%.9g");
    fprintf(f, ",\"contacts\":%d", st->contacts);
    json_number(f, "step_ms", st->step_ms, "%.4f");
    fprintf(f, ",\"threads\":%d", st->threads);
    fprintf(f,
            ",\"particles\":%d,\"springs\":%d,\"clamped_springs\":%d,\"overlapping_pairs\":%d,\"overlapping_walls\":%d,\"halted\":%s,"
            "\"reloads\":%d",
            st->particles, st->springs, st->clamped_springs, st->overlapping_pairs, st->overlapping_walls,
            halted ? "true" : "false", reloads);
    if (scene) { // the built-in samples have no scene
        sb_scene_write_plots_json(scene, f);
        sb_scene_write_worlds_json(scene, f);
    }
    fputs("}\n", f);
    fflush(f);
}

/// The first halted world of a scene (1-based), or 0.
static int halted_world(const sb_scene *scene)
{
    for (int k = 0; k < sb_scene_world_count(scene); ++k)
        if (sb_world_get_stats(sb_scene_world(scene, k))->halted)
            return k + 1;
    return 0;
}

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void sleep_seconds(double s)
{
    if (s <= 0.0)
        return;
    struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    nanosleep(&ts, NULL);
}

static const char *const reload_names[] = {"none", "kept", "restarted", "failed"};

typedef struct run_options {
    int frames, substeps, iterations;
    bool realtime, trusted, method_given;
    sb_method method;
    FILE *stats;
    const char *stats_path;
    output_file *stats_out; ///< where `stats` goes: placed over its target once the scene has loaded
    sb_input_log *replay;   ///< --replay: events done before the frames they were recorded at
} run_options;

/// False, saying so, when what was written to --stats did not all reach its file (a full disk,
/// a device that takes nothing): checked every frame, so that the run stops at once.
static bool stats_flushed(FILE *f, const char *path)
{
    if (fflush(f) == 0 && !ferror(f))
        return true;
    fprintf(stderr, "springbox: cannot write --stats %s: %s\n", path, strerror(errno ? errno : EIO));
    return false;
}

static bool stats_close(FILE *f, const char *path)
{
    if (ferror(f)) { // said when it happened
        fclose(f);
        return false;
    }
    bool ok = stats_flushed(f, path);
    if (fclose(f) != 0 && ok) {
        fprintf(stderr, "springbox: cannot write --stats %s: %s\n", path, strerror(errno));
        ok = false;
    }
    return ok;
}

static void apply_overrides(sb_world *w, const run_options *o)
{
    sb_world_def d = sb_world_get_def(w);
    if (o->method_given)
        d.method = o->method;
    if (o->substeps > 0)
        d.substeps = o->substeps;
    if (o->iterations > 0)
        d.iterations = o->iterations;
    sb_world_set_def(w, &d, NULL);
}

static void print_header(const char *title, const sb_world *w)
{
    sb_world_def d = sb_world_get_def(w);
    printf("springbox: %s, method %s, %d sub-steps x %d iterations, %d particles, %d springs\n", title,
           sb_method_name(d.method), d.substeps, d.iterations, sb_world_particle_count(w), sb_world_spring_count(w));
    printf("%8s %12s %12s %12s %9s %9s\n", "time s", "kinetic J", "potential J", "max stretch", "contacts", "step ms");
}

/// A row of the table; with several worlds, each world's row says which (world 1 first).
static void print_row(const sb_world *w, int world_number)
{
    const sb_stats *s = sb_world_get_stats(w);
    printf("%8.2f %12.4f %12.4f %11.4f%% %9d %9.3f", s->time, s->kinetic_energy, s->potential_energy,
           100.0 * s->max_stretch, s->contacts, s->step_ms);
    if (world_number > 0)
        printf("  world %d, %s%s%s", world_number, sb_method_name(sb_world_get_def(w).method),
               s->clamped_springs > 0 ? ", springs clamped" : "", s->halted ? ", halted" : "");
    printf("\n");
    fflush(stdout);
}

// Runs a Lua scene: frames, reload polling, update errors. Returns the exit status.
/// The console's word on what the physics cannot do as asked: clamped springs, and particles
/// that started overlapping; each world of a scene by number when it has several.
static void print_warnings(const sb_world *w, int world_number)
{
    const sb_stats *s = sb_world_get_stats(w);
    char line[512], clamp[512] = "", which[32] = "";
    if (world_number > 0)
        snprintf(which, sizeof which, "world %d: ", world_number);
    if (s->clamped_springs > 0 && sb_world_clamp_message(w, clamp, sizeof clamp) > 0)
        printf("warning: %s%s\n", which, clamp);
    if ((s->overlapping_pairs > 0 || s->overlapping_walls > 0) && sb_world_overlap_message(w, line, sizeof line) > 0)
        printf("warning: %s%s\n", which, line);
    if (sb_world_structure_message(w, line, sizeof line) > 0 && !strstr(clamp, line)) // not said with the clamp
        printf("warning: %s%s\n", which, line);
}

static int run_scene(const char *path, const run_options *o)
{
    sb_scene_options so = sb_default_scene_options();
    so.path = path;
    so.trusted = o->trusted;
    char error[4096];
    sb_scene *scene = sb_scene_open(&so, error, sizeof error);
    if (!scene) {
        fprintf(stderr, "springbox: %s\n", error);
        return 1;
    }
    if (o->stats_out && !output_file_place(o->stats_out, scene, error, sizeof error)) {
        fprintf(stderr, "springbox: cannot write the stats file '%s' (--stats): %s\n", o->stats_path, error);
        sb_scene_close(scene);
        return 2;
    }
    for (int i = 0; i < sb_scene_world_count(scene); ++i)
        apply_overrides(sb_scene_world(scene, i), o);
    print_header(sb_scene_title(scene), sb_scene_world(scene, 0));
    if (sb_scene_warning(scene)[0])
        printf("warning: %s\n", sb_scene_warning(scene));
    int reloads = 0;
    double start = now_seconds(), last_poll = 0.0;
    bool update_failed = false, warn_again = false;
    char last_failed[64] = "";
    int next_input = 0;
    for (long f = 1; o->frames == 0 || f <= o->frames; ++f) {
        sb_world *w = sb_scene_world(scene, 0);
        double dt = sb_world_get_def(w).dt;
        if (o->realtime)
            sleep_seconds(start + (double)f * dt - now_seconds());
        double now = now_seconds();
        if (o->realtime || now - last_poll > 0.02) {
            last_poll = now;
            sb_reload_event e = sb_scene_poll(scene);
            if (e.result != SB_RELOAD_NONE) {
                reloads += 1;
                update_failed = false;
                last_failed[0] = '\0';
                if (e.result == SB_RELOAD_FAILED)
                    fprintf(stderr, "reload failed, the last good scene keeps running: %s\n", e.message);
                else
                    printf("reload: %s (%.0f ms after the save)\n", e.message, e.latency_ms);
                warn_again = e.result != SB_RELOAD_FAILED;
                if (warn_again && sb_scene_warning(scene)[0])
                    printf("warning: %s\n", sb_scene_warning(scene));
                if (e.result == SB_RELOAD_RESTARTED)
                    for (int i = 0; i < sb_scene_world_count(scene); ++i)
                        apply_overrides(sb_scene_world(scene, i), o);
                fflush(stdout);
                if (o->stats) {
                    struct timespec wall;
                    clock_gettime(CLOCK_REALTIME, &wall);
                    fprintf(o->stats,
                            "{\"event\":\"reload\",\"frame\":%ld,\"wall\":%.3f,\"result\":\"%s\",\"latency_ms\":%.1f,\"message\":",
                            f, (double)wall.tv_sec + (double)wall.tv_nsec * 1e-9, reload_names[e.result], e.latency_ms);
                    sb_json_string(o->stats, e.message);
                    fputs("}\n", o->stats);
                }
            }
        }
        // --replay: what the designer did after the frame before this one, as the window did it
        for (const sb_input_event *e; (e = sb_input_log_event(o->replay, next_input)) != NULL &&
                                      e->frame <= sb_scene_frames(scene);) {
            next_input += 1;
            sb_reload_event reload;
            sb_input_apply(scene, e, &reload, error, sizeof error);
            if (error[0])
                fprintf(stderr, "replay: %s\n", error);
            if (reload.result == SB_RELOAD_FAILED)
                fprintf(stderr, "replay: %s\n", reload.message);
            else if (reload.result != SB_RELOAD_NONE)
                printf("replay: %s\n", reload.message);
        }
        if (!sb_scene_frame(scene, error, sizeof error)) {
            // each function once: it stays off until the next save, and the others keep running
            const char *fn = sb_scene_failed_function(scene);
            bool is_update = strcmp(fn, "update") == 0;
            if (is_update ? !update_failed : strcmp(fn, last_failed) != 0) {
                update_failed = update_failed || is_update;
                snprintf(last_failed, sizeof last_failed, "%s", fn);
                fprintf(stderr, "%s() failed, it stays off until the scene is saved again (the rest keep running): %s\n",
                        fn, error);
                if (o->stats) {
                    fprintf(o->stats, "{\"event\":\"%s\",\"function\":\"%s\",\"frame\":%ld,\"message\":",
                            is_update ? "update_error" : "callback_error", fn, f);
                    sb_json_string(o->stats, error);
                    fputs("}\n", o->stats);
                }
            }
        }
        w = sb_scene_world(scene, 0);
        if (f == 1 || warn_again) {
            int n = sb_scene_world_count(scene);
            for (int k = 0; k < n; ++k)
                print_warnings(sb_scene_world(scene, k), n > 1 ? k + 1 : 0);
            warn_again = false;
        }
        if (o->stats) {
            write_stats_line(o->stats, f, scene, w, reloads, halted_world(scene) > 0);
            if (!stats_flushed(o->stats, o->stats_path)) {
                sb_scene_close(scene);
                return 2;
            }
        }
        if (f % 60 == 0 || f == o->frames) {
            int n = sb_scene_world_count(scene);
            for (int k = 0; k < n; ++k)
                print_row(sb_scene_world(scene, k), n > 1 ? k + 1 : 0);
        }
    }
    int status = 0, halted = halted_world(scene);
    if (halted) { // any world of the scene: each one's message
        for (int k = 0; k < sb_scene_world_count(scene); ++k) {
            const sb_stats *st = sb_world_get_stats(sb_scene_world(scene, k));
            if (st->halted)
                fprintf(stderr, "springbox: world %d: %s\n", k + 1, st->message);
        }
        status = 3;
    }
    sb_scene_close(scene);
    return status;
}

/// `--record DIR`: the folder, made with its parents as `mkdir -p` would (the README's own
/// `--record frames/` failed in a fresh checkout). False with the reason in `why`.
static bool make_record_dir(const char *dir, char *why, size_t n)
{
    char path[4096];
    snprintf(path, sizeof path, "%s", dir);
    for (char *p = path + 1;; ++p) {
        bool end = *p == '\0';
        if (*p == '/' || end) {
            char c = *p;
            *p = '\0';
            if (path[0] && mkdir(path, 0777) != 0 && errno != EEXIST) {
                snprintf(why, n, "%s", strerror(errno));
                return false;
            }
            *p = c;
        }
        if (end)
            break;
    }
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        snprintf(why, n, "not a folder");
        return false;
    }
    if (access(dir, W_OK) != 0) {
        snprintf(why, n, "%s", strerror(errno));
        return false;
    }
    return true;
}

// A default scene: scripts/default.lua from the source tree or next to the executable.
/// The default scene: next to an installed program (<prefix>/share/springbox/scripts), then the
/// source tree it was built from, then ../scripts beside the program.
static const char *default_scene(const char *argv0)
{
    static char path[4096];
    const char *slash = strrchr(argv0, '/');
    int dir = slash ? (int)(slash - argv0) : 1;
    const char *base = slash ? argv0 : ".";
    snprintf(path, sizeof path, "%.*s/../share/springbox/scripts/default.lua", dir, base);
    if (access(path, R_OK) == 0)
        return path;
#ifdef SPRINGBOX_SCRIPTS_DIR
    snprintf(path, sizeof path, "%s/default.lua", SPRINGBOX_SCRIPTS_DIR);
    if (access(path, R_OK) == 0)
        return path;
#endif
    snprintf(path, sizeof path, "%.*s/../scripts/default.lua", dir, base);
    return access(path, R_OK) == 0 ? path : NULL;
}

// ---------------------------------------------------------------- the run's files

/// A file the run reads or writes, named by the option that gave it.
typedef struct named_file {
    const char *option, *path;
    bool output;
    output_kind kind;
} named_file;

/// What an output option writes, for messages: "the stats file", "the GIF".
static const char *output_noun(const char *option)
{
    if (strcmp(option, "--stats") == 0)
        return "the stats file";
    if (strcmp(option, "--screenshot") == 0)
        return "the screenshot";
    if (strcmp(option, "--gif") == 0)
        return "the GIF";
    return "the input recording";
}

/// False, said on stderr, when an output is one of the inputs or two outputs are one file: the
/// run would destroy what it reads, or write two things into one file.
static bool files_apart(const named_file *files, int count)
{
    for (int i = 0; i < count; ++i)
        for (int j = i + 1; j < count; ++j) {
            const named_file *a = &files[i], *b = &files[j];
            if (!a->path || !b->path || !(a->output || b->output) || !output_file_same(a->path, b->path))
                continue;
            if (!a->output) // the inputs come first: b writes over what a reads
                fprintf(stderr, "springbox: %s '%s' is %s '%s': an output never replaces what the run reads\n", b->option,
                        b->path, a->option, a->path);
            else
                fprintf(stderr, "springbox: %s '%s' and %s '%s' are one file: give each output its own\n", a->option,
                        a->path, b->option, b->path);
            return false;
        }
    return true;
}

/// The outputs named on the command line, each a temporary beside its target until placed.
typedef struct run_outputs {
    output_file stats, screenshot, gif, record_input;
    FILE *stats_stream, *record_input_stream;
} run_outputs;

/// Opens each output given: 0, or 2 with the reason said (a bad argument: 1 is for a scene that
/// fails to load).
static int outputs_open(run_outputs *out, const char *stats, const char *screenshot, const char *gif,
                        const char *record_input)
{
    struct { output_file *file; const char *option, *path; output_kind kind; FILE **stream; } all[] = {
        {&out->stats, "--stats", stats, OUTPUT_STATS, &out->stats_stream},
        {&out->screenshot, "--screenshot", screenshot, OUTPUT_PNG, NULL},
        {&out->gif, "--gif", gif, OUTPUT_GIF, NULL},
        {&out->record_input, "--record-input", record_input, OUTPUT_RECORDING, &out->record_input_stream},
    };
    for (size_t k = 0; k < sizeof all / sizeof all[0]; ++k) {
        char why[512];
        if (!all[k].path)
            continue;
        bool ok = output_file_open(all[k].file, all[k].option, all[k].path, all[k].kind, why, sizeof why);
        if (ok && all[k].stream) {
            int fd = output_file_release(all[k].file);
            if (!(*all[k].stream = fdopen(fd, "w"))) {
                snprintf(why, sizeof why, "%s", strerror(errno));
                close(fd);
                ok = false;
            }
        }
        if (!ok) {
            fprintf(stderr, "springbox: cannot write %s '%s' (%s): %s\n", output_noun(all[k].option), all[k].path,
                    all[k].option, why);
            return 2;
        }
    }
    return 0;
}

/// Closes what is still open and removes every temporary not placed: targets stay as they were.
static void outputs_discard(run_outputs *out)
{
    if (out->stats_stream)
        fclose(out->stats_stream);
    if (out->record_input_stream)
        fclose(out->record_input_stream);
    out->stats_stream = out->record_input_stream = NULL;
    output_file_discard(&out->stats);
    output_file_discard(&out->screenshot);
    output_file_discard(&out->gif);
    output_file_discard(&out->record_input);
}

/// Closes --stats, whose lines went to their file as they were written: false, said, on an error.
static bool outputs_close_stats(run_outputs *out, const char *path)
{
    FILE *f = out->stats_stream;
    out->stats_stream = NULL;
    return !f || stats_close(f, path);
}

#ifdef SPRINGBOX_HAVE_SDL
/// The window (or an offscreen render) on `wo`, with the outputs: the input recording is written
/// at the end and placed when the window ran. Returns the exit status.
static int run_window(window_options *wo, run_outputs *out)
{
    wo->stats = out->stats_stream;
    wo->stats_out = out->stats_stream ? &out->stats : NULL;
    wo->screenshot_out = out->screenshot.fd >= 0 ? &out->screenshot : NULL;
    wo->gif_out = out->gif.fd >= 0 ? &out->gif : NULL;
    wo->record_input_file = out->record_input_stream;
    bool offscreen = wo->screenshot_out || wo->gif_out || wo->record_dir;
    int status = offscreen ? window_offscreen(wo) : window_run(wo);
    if (out->record_input_stream) {
        char why[512];
        FILE *f = out->record_input_stream;
        out->record_input_stream = NULL;
        bool ok = fclose(f) == 0;
        if (!ok)
            snprintf(why, sizeof why, "%s", strerror(errno));
        // a window that never opened (status 1) recorded nothing: the file named stays as it was
        if (ok && status != 1)
            ok = output_file_place(&out->record_input, NULL, why, sizeof why);
        if (!ok && status != 1) {
            fprintf(stderr, "springbox: cannot write the input recording '%s' (--record-input): %s\n",
                    out->record_input.path, why);
            status = status ? status : 2;
        }
    }
    if (!outputs_close_stats(out, wo->stats_path) && status == 0)
        status = 2;
    return status;
}
#endif

/// A built-in C sample, headless. Returns the exit status.
static int run_sample(const char *scene_name, int size, int threads, const run_options *o, run_outputs *out)
{
    const sb_sample *sample = sb_sample_find(scene_name);
    if (!sample) {
        fprintf(stderr, "springbox: unknown scene '%s' (try --list)\n", scene_name);
        return 2;
    }
    sb_world_def def = sb_default_world_def();
    def.threads = threads;
    if (o->method_given)
        def.method = o->method;
    if (o->substeps > 0)
        def.substeps = o->substeps;
    if (o->iterations > 0)
        def.iterations = o->iterations;
    if (size > sample->max_size) {
        fprintf(stderr, "springbox: bad value for --size: '%d' (scene '%s' builds sizes 1 to %d)\n", size, scene_name,
                sample->max_size);
        return 2;
    }
    sb_world *world = sample->build(&def, size > 0 ? size : sample->default_size);
    if (!world) {
        fprintf(stderr, "springbox: could not build scene '%s'\n", scene_name);
        return 1;
    }
    char why[512];
    FILE *stats = out->stats_stream;
    if (stats && !output_file_place(&out->stats, NULL, why, sizeof why)) {
        fprintf(stderr, "springbox: cannot write the stats file '%s' (--stats): %s\n", o->stats_path, why);
        sb_world_destroy(world);
        return 2;
    }
    print_header(sample->name, world);
    int status = 0;
    double worst_stretch = 0.0, total_ms = 0.0;
    for (int f = 1; f <= o->frames; ++f) {
        sb_status st = sb_world_step(world);
        const sb_stats *s = sb_world_get_stats(world);
        if (stats) {
            write_stats_line(stats, f, NULL, world, 0, s->halted);
            if (!stats_flushed(stats, o->stats_path)) {
                status = 2;
                break;
            }
        }
        if (st == SB_ERR_HALTED) {
            fprintf(stderr, "springbox: %s\n", s->message);
            status = 3;
            break;
        }
        worst_stretch = s->max_stretch > worst_stretch ? s->max_stretch : worst_stretch;
        total_ms += s->step_ms;
        if (f % 60 == 0 || f == o->frames)
            print_row(world, 0);
        if (f == 1)
            print_warnings(world, 0);
    }
    if (status == 0 && o->frames > 0)
        printf("done: %d frames, largest stretch %.4f%%, mean step %.3f ms\n", o->frames, 100.0 * worst_stretch,
               total_ms / o->frames);
    if (!outputs_close_stats(out, o->stats_path) && status == 0)
        status = 2;
    sb_world_destroy(world);
    return status;
}

int main(int argc, char **argv)
{
    cli c = cli_defaults();
    const int parsed = cli_parse(&c, argc, argv);
    if (parsed != CLI_GO_ON)
        return parsed;
    const char *scene_name = c.scene_name, *stats_path = c.stats_path, *method_name = c.method_name, *scene_file = c.scene_file;
    const int size = c.size, frames = c.frames, substeps = c.substeps, iterations = c.iterations, threads = c.threads;
    const bool realtime = c.realtime, trusted = c.trusted, headless = c.headless;
    const char *screenshot = c.screenshot, *record_dir = c.record_dir, *gif = c.gif, *record_input = c.record_input,
               *replay_path = c.replay_path;

    sb_lua_set_default_threads(threads);
    run_options ro = {frames, substeps, iterations, realtime, trusted, false, SB_METHOD_SOFT, NULL, NULL, NULL, NULL};
    if (method_name && !sb_method_from_name(method_name, &ro.method)) {
        fprintf(stderr, "springbox: unknown method '%s' (%s)\n", method_name, cli_method_names());
        return 2;
    }
    ro.method_given = method_name != NULL;
    bool offscreen = screenshot || record_dir || gif;
    if (frames == 0 && !realtime && headless) {
        fprintf(stderr, "springbox: --frames 0 (run until killed) needs --realtime\n");
        return 2;
    }
    if (scene_name && scene_file) {
        fprintf(stderr, "springbox: --scene %s and the scene file '%s' are two scenes: give one\n", scene_name, scene_file);
        return 2;
    }
    if (!scene_name && !scene_file)
        scene_file = default_scene(argv[0]);
    if (!scene_name && !scene_file)
        scene_name = "wrecking_ball";
    if (!headless && scene_name) {
        fprintf(stderr, "springbox: built-in samples (--scene) run with --headless; the window plays Lua scenes\n");
        return 2;
    }
    // The files: inputs read first, outputs checked against them and each other, made as
    // temporaries beside their targets and placed only once the run has earned them.
    named_file files[] = {
        {"the scene file", scene_file, false, OUTPUT_STATS},
        {"--replay", replay_path, false, OUTPUT_STATS},
        {"--stats", stats_path, true, OUTPUT_STATS},
        {"--screenshot", screenshot, true, OUTPUT_PNG},
        {"--gif", gif, true, OUTPUT_GIF},
        {"--record-input", record_input, true, OUTPUT_RECORDING},
    };
    const int file_count = (int)(sizeof files / sizeof files[0]);
    if (!files_apart(files, file_count))
        return 2;
    char why[512];
    for (int k = 0; k < file_count; ++k)
        if (files[k].output && files[k].path && !output_file_check(files[k].path, files[k].kind, why, sizeof why)) {
            fprintf(stderr, "springbox: cannot write %s '%s' (%s): %s\n", output_noun(files[k].option), files[k].path,
                    files[k].option, why);
            return 2;
        }
    if (record_dir && !make_record_dir(record_dir, why, sizeof why)) {
        fprintf(stderr, "springbox: cannot write frames into '%s' (--record): %s\n", record_dir, why);
        return 2; // a bad argument (1 is for a scene that fails to load)
    }
#ifndef SPRINGBOX_HAVE_GIF
    if (gif) {
        fprintf(stderr, "springbox: --gif needs giflib: this springbox was built without libgif-dev\n");
        return 2;
    }
#endif
    if (record_input && (headless || offscreen)) {
        fprintf(stderr, "springbox: --record-input records the window's input; it needs the window (not --headless, "
                        "--screenshot, --record or --gif)\n");
        return 2;
    }
    if (replay_path && !scene_file) {
        fprintf(stderr, "springbox: --replay plays a recording into a Lua scene, not a built-in sample (--scene)\n");
        return 2;
    }
    if (replay_path && !(ro.replay = sb_input_log_read(replay_path, why, sizeof why))) {
        fprintf(stderr, "springbox: cannot replay --replay %s\n", why);
        return 2;
    }
    output_file_clean_on_signals(); // the window hands them to SDL once it opens (its loop quits cleanly)
    run_outputs out;
    memset(&out, 0, sizeof out);
    out.stats = out.screenshot = out.gif = out.record_input = output_file_none();
    int status = outputs_open(&out, stats_path, screenshot, gif, record_input);
    ro.stats_path = stats_path;
    if (status == 0 && !headless) {
#ifdef SPRINGBOX_HAVE_SDL
        window_options wo;
        memset(&wo, 0, sizeof wo);
        wo.scene_path = scene_file;
        wo.trusted = trusted;
        wo.frames = c.frames_given ? frames : (offscreen ? 60 : 0);
        wo.width = c.win_w;
        wo.height = c.win_h;
        wo.view_given = c.view_given;
        wo.view_cx = c.view[0];
        wo.view_cy = c.view[1];
        wo.view_scale = c.view[2];
        wo.record_dir = record_dir;
        wo.record_input = record_input;
        wo.stats_path = stats_path;
        wo.replay = ro.replay; // the app frees it
        ro.replay = NULL;
        wo.method_given = ro.method_given;
        wo.method = ro.method;
        wo.substeps = substeps;
        wo.iterations = iterations;
        status = run_window(&wo, &out);
#else
        fprintf(stderr, "springbox: built without SDL2; run with --headless (or install libsdl2-dev and rebuild)\n");
        status = 2;
#endif
    } else if (status == 0 && scene_file) {
        ro.stats = out.stats_stream;
        ro.stats_out = out.stats_stream ? &out.stats : NULL;
        status = run_scene(scene_file, &ro);
        if (!outputs_close_stats(&out, stats_path) && status == 0)
            status = 2;
    } else if (status == 0) {
        status = run_sample(scene_name, size, threads, &ro, &out);
    }
    sb_input_log_free(ro.replay);
    outputs_discard(&out);
    return status;
}
