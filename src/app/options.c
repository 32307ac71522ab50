// The command line's options, one table: each entry's name, its value's placeholder, its help
// and what it does. The parser, --help and --options (docs/running.md's table) read it.
#define _POSIX_C_SOURCE 200809L
#include "options.h"

#include "sb_lua.h"
#include "sb_pool.h"
#include "sb_samples.h"
#include "sb_world.h"
#ifdef SPRINGBOX_HAVE_SDL
#include "window.h"
#endif

#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *cli_method_names(void)
{
    static char list[128];
    if (!list[0])
        for (int m = 0; m < SB_METHOD_COUNT; ++m)
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", m ? "|" : "", sb_method_name((sb_method)m));
    return list;
}

cli cli_defaults(void)
{
    return (cli){.size = -1, .frames = 300, .substeps = -1, .iterations = -1, .threads = sb_machine_threads(),
                 .win_w = 1280, .win_h = 720};
}

/// A whole word as an integer in [lo, hi].
static bool parse_int(const char *text, int lo, int hi, int *out)
{
    char *end = NULL;
    long v = strtol(text, &end, 10);
    if (!text[0] || *end || v < lo || v > hi)
        return false;
    *out = (int)v;
    return true;
}

// What each option does with its value (NULL for a flag); false: a bad value.
static bool take_headless(cli *c, const char *v) { (void)v; return c->headless = true; }
static bool take_realtime(cli *c, const char *v) { (void)v; return c->realtime = true; }
static bool take_trusted(cli *c, const char *v) { (void)v; return c->trusted = true; }
static bool take_screenshot(cli *c, const char *v) { c->screenshot = v; return v[0] != '\0'; }
static bool take_record(cli *c, const char *v) { c->record_dir = v; return v[0] != '\0'; }
static bool take_gif(cli *c, const char *v) { c->gif = v; return v[0] != '\0'; }
static bool take_record_input(cli *c, const char *v) { c->record_input = v; return v[0] != '\0'; }
static bool take_replay(cli *c, const char *v) { c->replay_path = v; return v[0] != '\0'; }
static bool take_stats(cli *c, const char *v) { c->stats_path = v; return v[0] != '\0'; }
static bool take_method(cli *c, const char *v) { c->method_name = v; return true; }
static bool take_substeps(cli *c, const char *v) { return parse_int(v, 1, 1000, &c->substeps); }
static bool take_iterations(cli *c, const char *v) { return parse_int(v, 1, 1000, &c->iterations); }
static bool take_threads(cli *c, const char *v) { return parse_int(v, 1, SB_POOL_MAX_THREADS, &c->threads); }
static bool take_size(cli *c, const char *v) { return parse_int(v, 1, 1000000, &c->size); }
static bool take_scene(cli *c, const char *v) { c->scene_name = v; return sb_sample_find(v) != NULL; }

static bool take_frames(cli *c, const char *v)
{
    c->frames_given = true;
    return parse_int(v, 0, 100000000, &c->frames);
}

static bool take_window(cli *c, const char *v)
{
    char *end;
    long w = strtol(v, &end, 10);
    long h = *end == 'x' ? strtol(end + 1, &end, 10) : 0;
    c->win_w = (int)w;
    c->win_h = (int)h;
    return !*end && w >= 320 && w <= 8192 && h >= 240 && h <= 8192;
}

/// Three finite numbers and nothing after them; the scale positive.
static bool take_view(cli *c, const char *v)
{
    int used = 0;
    c->view_given = true;
    double *x = c->view;
    return sscanf(v, "%lf,%lf,%lf%n", &x[0], &x[1], &x[2], &used) == 3 && v[used] == '\0' && isfinite(x[0]) &&
           isfinite(x[1]) && isfinite(x[2]) && fabs(x[0]) <= 1e12 && fabs(x[1]) <= 1e12 && x[2] > 0 && x[2] <= 1e9;
}

// Options that print and end the run: their exit status.
static int print_version(void)
{
    printf("springbox %s\n", SPRINGBOX_VERSION);
    return 0;
}

static int print_help(void)
{
    cli_usage(stdout);
    return 0;
}

static int print_options(void)
{
    cli_print_markdown(stdout);
    return 0;
}

static int print_keys(void)
{
#ifdef SPRINGBOX_HAVE_SDL
    window_print_keys(stdout);
    return 0;
#else
    fprintf(stderr, "springbox: built without the window (libsdl2-dev): no keys to list\n");
    return 2;
#endif
}

static int print_samples(void)
{
    int n;
    const sb_sample *all = sb_samples(&n);
    for (int k = 0; k < n; ++k)
        printf("%-14s %s\n", all[k].name, all[k].description);
    return 0;
}

typedef struct cli_option {
    const char *name, *value, *help; ///< value: its placeholder, NULL for a flag or a printing option
    bool (*take)(cli *c, const char *value);
    int (*print)(void);              ///< an option that prints and ends the run
} cli_option;

#define METHODS_HELP "the method every world starts with: "

static const cli_option options[] = {
    {"--headless", NULL, "run without a window, printing diagnostics", take_headless, NULL},
    {"--screenshot", "F", "render frame --frames N without a display and write PNG F", take_screenshot, NULL},
    {"--record", "DIR", "render every frame up to --frames N as DIR/frame_NNNNN.png", take_record, NULL},
    {"--gif", "F", "render every second frame up to --frames N as an animated GIF F", take_gif, NULL},
    {"--record-input", "F", "write what was done in the window (drags, clicks, keys, sliders, drawing) to F", take_record_input, NULL},
    {"--replay", "F", "do a recorded input again, at the same frames (window or --headless)", take_replay, NULL},
    {"--window", "WxH", "window or image size (default 1280x720)", take_window, NULL},
    {"--view", "X,Y,S", "camera centre (m) and scale (pixels per metre) instead of fitting", take_view, NULL},
    {"--frames", "N", "frames to run (default 300; 0 with --realtime runs until killed)", take_frames, NULL},
    {"--realtime", NULL, "pace frames to wall-clock time, so a hot reload can be watched", take_realtime, NULL},
    {"--stats", "FILE", "write diagnostics as JSON lines: one per frame, one per reload", take_stats, NULL},
    {"--trusted", NULL, "give the scene the full standard library (io, os.execute, ...)", take_trusted, NULL},
    {"--method", "M", METHODS_HELP, take_method, NULL},
    {"--substeps", "N", "the sub-steps every world starts with (1-1000)", take_substeps, NULL},
    {"--iterations", "N", "the iterations every world starts with (1-1000)", take_iterations, NULL},
    {"--threads", "N", "threads a world steps on when the scene does not say (default: the machine's cores); the "
                       "same bits for any N", take_threads, NULL},
    {"--scene", "NAME", "a built-in C sample instead of a file (with --headless); --list shows them", take_scene, NULL},
    {"--size", "N", "the built-in sample's size", take_size, NULL},
    {"--list", NULL, "the built-in samples, and exit", NULL, print_samples},
    {"--keys", NULL, "the window's keys and mouse as a Markdown table (as docs/window.md has it), and exit", NULL, print_keys},
    {"--options", NULL, "these options as a Markdown table (as docs/running.md has it), and exit", NULL, print_options},
    {"--version", NULL, "the version, and exit", NULL, print_version},
    {"--help", NULL, "this text, and exit (also -h)", NULL, print_help},
};
enum { OPTION_COUNT = sizeof options / sizeof options[0] };

/// An option's help, the methods' names added to --method's.
static void option_help(const cli_option *o, char *out, size_t n)
{
    snprintf(out, n, "%s%s", o->help, strcmp(o->help, METHODS_HELP) == 0 ? cli_method_names() : "");
}

void cli_usage(FILE *out)
{
    fprintf(out, "usage: springbox [options] [scene.lua]\n"
                 "  scene.lua            a Lua scene (default: scripts/default.lua); reloaded when saved\n"
                 "  (no option)          open the window; H in the window lists the keys\n");
    for (int k = 0; k < OPTION_COUNT; ++k) {
        char name[48], help[256];
        snprintf(name, sizeof name, "%s%s%s", options[k].name, options[k].value ? " " : "", options[k].value ? options[k].value : "");
        option_help(&options[k], help, sizeof help);
        fprintf(out, "  %-20s %s\n", name, help);
    }
}

void cli_print_markdown(FILE *out)
{
    fputs("| option | does |\n|---|---|\n", out);
    for (int k = 0; k < OPTION_COUNT; ++k) {
        char help[256];
        option_help(&options[k], help, sizeof help);
        for (char *bar = strchr(help, '|'); bar; bar = strchr(bar + 2, '|')) { // the methods' '|', escaped for the table
            memmove(bar + 1, bar, strlen(bar) + 1);
            *bar = '\\';
        }
        fprintf(out, "| `%s%s%s` | %s |\n", options[k].name, options[k].value ? " " : "", options[k].value ? options[k].value : "", help);
    }
}

static const cli_option *find_option(const char *name)
{
    if (strcmp(name, "-h") == 0)
        name = "--help";
    for (int k = 0; k < OPTION_COUNT; ++k)
        if (strcmp(options[k].name, name) == 0)
            return &options[k];
    return NULL;
}

int cli_parse(cli *c, int argc, char **argv)
{
    for (int i = 1; i < argc; ++i) {
        const char *arg = argv[i], *value = i + 1 < argc ? argv[i + 1] : NULL;
        if (arg[0] != '-') {
            if (c->scene_file) {
                fprintf(stderr, "springbox: one scene file at a time, got '%s' and '%s'\n", c->scene_file, arg);
                return 2;
            }
            c->scene_file = arg;
            continue;
        }
        const cli_option *o = find_option(arg);
        if (!o) {
            fprintf(stderr, "springbox: unknown option '%s'\n", arg);
            cli_usage(stderr);
            return 2;
        }
        if (o->print)
            return o->print();
        if (!o->value) {
            o->take(c, NULL);
            continue;
        }
        if (!value || !o->take(c, value)) {
            if (value && o->take == take_scene)
                fprintf(stderr, "springbox: bad value for --scene: '%s' is not a built-in sample (--list shows them)\n", value);
            else
                fprintf(stderr, "springbox: bad value for %s: '%s'\n", arg, value ? value : "(missing)");
            return 2;
        }
        i += 1;
    }
    return CLI_GO_ON;
}
