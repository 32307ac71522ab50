// Input logs: see sb_input.h. The file is text, a header line and then one event per line:
//   <frame> key <name> down|up          <frame> button <x> <y> <button> down|up
//   <frame> move <x> <y> <dx> <dy>       <frame> wheel <dx> <dy>
//   <frame> drag <world> <particle> <x> <y> <hertz> <damping_ratio>
//   <frame> drag_to <world> <x> <y>      <frame> release <world>
//   <frame> tune <name> <value>         <frame> sketch <line>      <frame> take_back
// Coordinates are in metres, so a replay does not depend on the window's size or camera.
// Numbers are written with 17 significant digits: a replay reads back the very doubles.

#define _POSIX_C_SOURCE 200809L
#include "sb_input.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define HEADER "springbox-input 1"

struct sb_input_log {
    sb_input_event *events;
    int count, cap;
};

sb_input_log *sb_input_log_create(void) { return calloc(1, sizeof(sb_input_log)); }

void sb_input_log_free(sb_input_log *log)
{
    if (log) {
        sb_input_log_clear(log);
        free(log->events);
    }
    free(log);
}

bool sb_input_log_add(sb_input_log *log, const sb_input_event *e)
{
    sb_input_log_cut(log, e->frame); // the run went back to this frame: what came after is not its past
    char *line = NULL;
    if (e->kind == SB_INPUT_SKETCH) {
        const size_t length = e->line ? strlen(e->line) : 0;
        if (length > SB_INPUT_LINE_MAX || !(line = malloc(length + 1)))
            return false;
        memcpy(line, e->line ? e->line : "", length + 1);
    }
    if (log->count == log->cap) {
        int cap = log->cap ? 2 * log->cap : 256;
        sb_input_event *n = realloc(log->events, sizeof *n * (size_t)cap);
        if (!n) {
            free(line);
            return false;
        }
        log->events = n;
        log->cap = cap;
    }
    log->events[log->count] = *e;
    log->events[log->count++].line = line;
    return true;
}

int sb_input_log_count(const sb_input_log *log) { return log ? log->count : 0; }

const sb_input_event *sb_input_log_event(const sb_input_log *log, int i)
{
    return log && i >= 0 && i < log->count ? &log->events[i] : NULL;
}

/// A drawn line: the scene restarts from it when it changes the structure, and frames count from
/// 0 again after it, so what comes after it may be at an earlier frame and is not a rewind.
static bool draws(const sb_input_event *e) { return e->kind == SB_INPUT_SKETCH || e->kind == SB_INPUT_TAKE_BACK; }

void sb_input_log_cut(sb_input_log *log, long frame)
{
    while (log->count > 0 && log->events[log->count - 1].frame > frame && !draws(&log->events[log->count - 1]))
        log->count -= 1; // (a drawn line, the only event with a copy to free, is never cut)
}

void sb_input_log_clear(sb_input_log *log)
{
    for (int i = 0; i < log->count; ++i)
        free((char *)log->events[i].line);
    log->count = 0;
}

/// Names go in the file as one word: bytes that would end or break it (spaces, control bytes,
/// '%', bytes past ASCII) as %XX, so that a tunable named "deck hz" or in any script comes back
/// as it was. A key name's spaces are written as '_' ("left shift" -> left_shift), as before
/// (no key name has an underscore).
static void put_name(FILE *f, const char *name, bool key)
{
    for (const unsigned char *c = (const unsigned char *)name; *c; ++c) {
        if (key && *c == ' ')
            fputc('_', f);
        else if (*c <= ' ' || *c >= 0x7F || *c == '%')
            fprintf(f, "%%%02X", *c);
        else
            fputc(*c, f);
    }
}

/// Reads a name written by put_name from the word `word`; false if it is not one.
static bool get_name(const char *word, bool key, char *name, size_t size)
{
    size_t used = 0;
    for (const char *c = word; *c; ++c) {
        int byte = (unsigned char)*c;
        if (*c == '%') {
            unsigned value;
            if (sscanf(c + 1, "%2X", &value) != 1 || !c[1] || !c[2] || value == 0)
                return false;
            byte = (int)value;
            c += 2;
        } else if (key && *c == '_') {
            byte = ' ';
        }
        if (used + 1 >= size)
            return false;
        name[used++] = (char)byte;
    }
    name[used] = '\0';
    return used > 0;
}

bool sb_input_log_write_file(const sb_input_log *log, FILE *f, char *why, size_t n)
{
    rewind(f);
    if (ftruncate(fileno(f), 0) != 0 && errno != EINVAL) { // EINVAL: not a regular file (a FIFO, a device)
        snprintf(why, n, "%s", strerror(errno));
        return false;
    }
    fprintf(f, "%s\n", HEADER);
    for (int i = 0; i < log->count; ++i) {
        const sb_input_event *e = &log->events[i];
        fprintf(f, "%ld ", e->frame);
        switch (e->kind) {
        case SB_INPUT_KEY:
            fputs("key ", f);
            put_name(f, e->name, true);
            fprintf(f, " %s\n", e->pressed ? "down" : "up");
            break;
        case SB_INPUT_BUTTON:
            fprintf(f, "button %.17g %.17g %d %s\n", e->x, e->y, e->button, e->pressed ? "down" : "up");
            break;
        case SB_INPUT_MOVE: fprintf(f, "move %.17g %.17g %.17g %.17g\n", e->x, e->y, e->dx, e->dy); break;
        case SB_INPUT_WHEEL: fprintf(f, "wheel %.17g %.17g\n", e->dx, e->dy); break;
        case SB_INPUT_DRAG:
            fprintf(f, "drag %d %u %.17g %.17g %.17g %.17g\n", e->world, e->particle, e->x, e->y, e->hertz,
                    e->damping_ratio);
            break;
        case SB_INPUT_DRAG_TO: fprintf(f, "drag_to %d %.17g %.17g\n", e->world, e->x, e->y); break;
        case SB_INPUT_RELEASE: fprintf(f, "release %d\n", e->world); break;
        case SB_INPUT_TUNE:
            fputs("tune ", f);
            put_name(f, e->name, false);
            fprintf(f, " %.17g\n", e->value);
            break;
        case SB_INPUT_SKETCH:
            fputs("sketch ", f);
            put_name(f, e->line, false);
            fputc('\n', f);
            break;
        case SB_INPUT_TAKE_BACK: fputs("take_back\n", f); break;
        }
    }
    if (fflush(f) != 0 || ferror(f)) {
        snprintf(why, n, "%s", strerror(errno ? errno : EIO));
        return false;
    }
    return true;
}

bool sb_input_log_write(const sb_input_log *log, const char *path, char *why, size_t n)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        snprintf(why, n, "%s", strerror(errno));
        return false;
    }
    bool ok = sb_input_log_write_file(log, f, why, n);
    if (fclose(f) != 0 && ok) {
        snprintf(why, n, "%s", strerror(errno));
        return false;
    }
    return ok;
}

/// The words of a line, split at spaces and tabs, in place; false past `max` words.
static bool split_words(char *line, char **words, int max, int *count)
{
    *count = 0;
    for (char *c = line; *c;) {
        while (*c == ' ' || *c == '\t')
            *c++ = '\0';
        if (!*c)
            break;
        if (*count == max)
            return false;
        words[(*count)++] = c;
        while (*c && *c != ' ' && *c != '\t')
            ++c;
    }
    return true;
}

/// A whole word as an integer in [lo, hi]: no sign tricks, no overflow, nothing after it.
static bool word_int(const char *word, long long lo, long long hi, long long *out)
{
    char *end = NULL;
    errno = 0;
    long long v = strtoll(word, &end, 10);
    if (!word[0] || *end || errno == ERANGE || v < lo || v > hi)
        return false;
    *out = v;
    return true;
}

/// A whole word as a finite number of at most `limit` either way.
static bool word_number(const char *word, double limit, double *out)
{
    char *end = NULL;
    double v = strtod(word, &end);
    if (!word[0] || *end || !isfinite(v) || fabs(v) > limit)
        return false;
    *out = v;
    return true;
}

/// "down" or "up".
static bool word_pressed(const char *word, bool *pressed)
{
    *pressed = strcmp(word, "down") == 0;
    return *pressed || strcmp(word, "up") == 0;
}

// What a field of a recording may hold: what the window can record, nothing past it.
#define POSITION_LIMIT 1e15 ///< world metres: past the farthest the camera can look (1e12 away, 1e9 wide)
#define WHEEL_LIMIT 1e6             ///< a wheel's steps in one event
#define WORLDS_LIMIT 1024           ///< a scene's worlds, numbered from 0
#define SLOT_LIMIT 2147483647LL     ///< a particle's slot in its world
#define HERTZ_LIMIT 1e6             ///< a drag's spring, as sb_world_drag_begin takes it
#define TUNABLE_LIMIT 1e300         ///< a slider's value: finite (the tunable's range is the scene's)

/// One event from a line; false with what was expected in `what`.
static bool parse_line(char *line, sb_input_event *e, long last_frame, const char **what, char *drawn)
{
    char *w[10];
    int n = 0;
    long long v = 0;
    memset(e, 0, sizeof *e);
    *what = "a frame number and an event";
    if (!split_words(line, w, 10, &n) || n < 2)
        return false;
    if (!word_int(w[0], 0, 1000000000000LL, &v) || v < last_frame) {
        *what = "... (frames from 0 to 1e12, in order)";
        return false;
    }
    e->frame = (long)v;
    const char *kind = w[1];
    char **f = w + 2; // the event's fields
    int fields = n - 2;
    long long world = 0, slot = 0, button = 0;
    bool ok;
    if (strcmp(kind, "key") == 0) {
        e->kind = SB_INPUT_KEY;
        *what = "key <name> down|up";
        ok = fields == 2 && get_name(f[0], true, e->name, sizeof e->name) && word_pressed(f[1], &e->pressed);
    } else if (strcmp(kind, "button") == 0) {
        e->kind = SB_INPUT_BUTTON;
        *what = "button <x> <y> <1..8> down|up (x and y finite metres within 1e15)";
        ok = fields == 4 && word_number(f[0], POSITION_LIMIT, &e->x) && word_number(f[1], POSITION_LIMIT, &e->y) &&
             word_int(f[2], 1, 8, &button) && word_pressed(f[3], &e->pressed);
        e->button = (int)button;
    } else if (strcmp(kind, "move") == 0) {
        e->kind = SB_INPUT_MOVE;
        *what = "move <x> <y> <dx> <dy> (finite metres within 1e15)";
        ok = fields == 4 && word_number(f[0], POSITION_LIMIT, &e->x) && word_number(f[1], POSITION_LIMIT, &e->y) &&
             word_number(f[2], POSITION_LIMIT, &e->dx) && word_number(f[3], POSITION_LIMIT, &e->dy);
    } else if (strcmp(kind, "wheel") == 0) {
        e->kind = SB_INPUT_WHEEL;
        *what = "wheel <dx> <dy> (finite steps within 1e6)";
        ok = fields == 2 && word_number(f[0], WHEEL_LIMIT, &e->dx) && word_number(f[1], WHEEL_LIMIT, &e->dy);
    } else if (strcmp(kind, "drag") == 0) {
        e->kind = SB_INPUT_DRAG;
        *what = "drag <world> <particle> <x> <y> <hertz> <damping_ratio> (world 0..1023, particle 0..2^31-1, x and y "
                "finite metres within 1e15, hertz in (0, 1e6], damping ratio in [0, 1e6])";
        ok = fields == 6 && word_int(f[0], 0, WORLDS_LIMIT - 1, &world) && word_int(f[1], 0, SLOT_LIMIT, &slot) &&
             word_number(f[2], POSITION_LIMIT, &e->x) && word_number(f[3], POSITION_LIMIT, &e->y) &&
             word_number(f[4], HERTZ_LIMIT, &e->hertz) && e->hertz > 0.0 &&
             word_number(f[5], HERTZ_LIMIT, &e->damping_ratio) && e->damping_ratio >= 0.0;
        e->particle = (unsigned)slot;
    } else if (strcmp(kind, "drag_to") == 0) {
        e->kind = SB_INPUT_DRAG_TO;
        *what = "drag_to <world> <x> <y> (world 0..1023, x and y finite metres within 1e15)";
        ok = fields == 3 && word_int(f[0], 0, WORLDS_LIMIT - 1, &world) && word_number(f[1], POSITION_LIMIT, &e->x) &&
             word_number(f[2], POSITION_LIMIT, &e->y);
    } else if (strcmp(kind, "release") == 0) {
        e->kind = SB_INPUT_RELEASE;
        *what = "release <world> (0..1023)";
        ok = fields == 1 && word_int(f[0], 0, WORLDS_LIMIT - 1, &world);
    } else if (strcmp(kind, "tune") == 0) {
        e->kind = SB_INPUT_TUNE;
        *what = "tune <name> <value> (the value finite)";
        ok = fields == 2 && strlen(f[0]) <= 3 * SB_TUNABLE_NAME_MAX && get_name(f[0], false, e->name, sizeof e->name) &&
             word_number(f[1], TUNABLE_LIMIT, &e->value);
    } else if (strcmp(kind, "sketch") == 0) {
        e->kind = SB_INPUT_SKETCH;
        *what = "sketch <line> (a line of Lua, as draw mode wrote it)";
        ok = fields == 1 && get_name(f[0], false, drawn, SB_INPUT_LINE_MAX + 1);
        e->line = drawn;
    } else if (strcmp(kind, "take_back") == 0) {
        e->kind = SB_INPUT_TAKE_BACK;
        *what = "take_back";
        ok = fields == 0;
    } else {
        *what = "key, button, move, wheel, drag, drag_to, release, tune, sketch or take_back";
        return false;
    }
    e->world = (int)world;
    return ok;
}

typedef enum line_read { LINE_OK, LINE_END, LINE_LONG, LINE_CONTROL } line_read;

/// The next line of `f` without its end ("\n" or "\r\n") into `line`, at most size - 1 bytes.
static line_read read_line(FILE *f, char *line, size_t size)
{
    size_t used = 0;
    int c = getc(f);
    if (c == EOF)
        return LINE_END;
    for (; c != EOF && c != '\n'; c = getc(f)) {
        if ((c < ' ' && c != '\t' && c != '\r') || c == 0x7F) // a NUL, an escape: not text springbox wrote
            return LINE_CONTROL;
        if (used + 1 >= size)
            return LINE_LONG;
        line[used++] = (char)c;
    }
    if (used > 0 && line[used - 1] == '\r')
        used -= 1;
    line[used] = '\0';
    return LINE_OK;
}

/// Makes a line from the file safe to print: bytes that are not printable ASCII become '?'.
static void printable(char *text)
{
    for (unsigned char *c = (unsigned char *)text; *c; ++c)
        if (*c < ' ' || *c >= 0x7F)
            *c = '?';
}

sb_input_log *sb_input_log_read(const char *path, char *why, size_t n)
{
    // A regular file only: a FIFO with no writer would block here, a device never end. Opened
    // without blocking, then checked.
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        snprintf(why, n, "%s: %s", path, fd < 0 || !S_ISREG(st.st_mode) ? (fd < 0 ? strerror(errno) : "not a regular file")
                                                                        : strerror(errno));
        if (fd >= 0)
            close(fd);
        printable(why);
        return NULL;
    }
    if (st.st_size > SB_INPUT_FILE_MAX) {
        snprintf(why, n, "%s: %lld bytes, more than a recording may have (%d MiB)", path, (long long)st.st_size,
                 SB_INPUT_FILE_MAX >> 20);
        close(fd);
        printable(why);
        return NULL;
    }
    FILE *f = fdopen(fd, "r");
    if (!f) {
        snprintf(why, n, "%s: %s", path, strerror(errno));
        close(fd);
        printable(why);
        return NULL;
    }
    // A line holds at most a drawn line, every byte written as %XX, and its frame and kind.
    enum { LINE_SIZE = 3 * SB_INPUT_LINE_MAX + 64 };
    sb_input_log *log = sb_input_log_create();
    char *line = malloc(LINE_SIZE), *words = malloc(LINE_SIZE), *drawn = malloc(SB_INPUT_LINE_MAX + 1);
    int number = 0;
    long last = 0;
    bool ok = log && line && words && drawn;
    if (!ok)
        snprintf(why, n, "out of memory");
    // Line by line, refusing at the first that is not an event: a NUL byte, a line longer than
    // any event, or one that does not parse. Nothing past it is read.
    for (line_read r; ok && (r = read_line(f, line, LINE_SIZE)) != LINE_END;) {
        number += 1;
        if (r != LINE_OK) {
            snprintf(why, n, "%s:%d: not an input recording (%s)", path, number,
                     r == LINE_CONTROL ? "a control byte" : "a line longer than any event");
            ok = false;
            break;
        }
        if (number == 1) {
            ok = strcmp(line, HEADER) == 0;
            if (!ok)
                snprintf(why, n, "%s:1: not an input recording (it starts '%.60s', not '%s')", path, line, HEADER);
            continue;
        }
        if (line[0] == '\0' || line[0] == '#')
            continue;
        sb_input_event e;
        const char *what = "";
        memcpy(words, line, strlen(line) + 1);
        if (!parse_line(words, &e, last, &what, drawn)) {
            snprintf(why, n, "%s:%d: cannot read '%.200s' (expected <frame> %s)", path, number, line, what);
            ok = false;
        } else if (!sb_input_log_add(log, &e)) {
            snprintf(why, n, "out of memory");
            ok = false;
        }
        last = draws(&e) ? 0 : e.frame; // (frames may start over after a drawn line)
    }
    if (ok && ferror(f)) {
        snprintf(why, n, "%s: %s", path, strerror(errno));
        ok = false;
    }
    if (ok && number == 0) {
        snprintf(why, n, "%s: empty (not an input recording)", path);
        ok = false;
    }
    fclose(f);
    free(line);
    free(words);
    free(drawn);
    if (!ok) {
        printable(why);
        sb_input_log_free(log);
        return NULL;
    }
    return log;
}

/// The live particle in slot `index` of a world, or a null handle.
static sb_particle_id particle_in_slot(const sb_world *w, unsigned index)
{
    sb_particle_id it = sb_null_particle();
    while (sb_world_next_particle(w, &it))
        if (it.index == index)
            return it;
    return sb_null_particle();
}

void sb_input_apply(sb_scene *scene, const sb_input_event *e, sb_reload_event *reload, char *error, size_t n)
{
    memset(reload, 0, sizeof *reload);
    error[0] = '\0';
    sb_world *w = e->world < sb_scene_world_count(scene) ? sb_scene_world(scene, e->world) : NULL;
    switch (e->kind) {
    case SB_INPUT_KEY: sb_scene_key(scene, e->name, e->pressed, error, n); break;
    case SB_INPUT_BUTTON: sb_scene_mouse_button(scene, e->x, e->y, e->button, e->pressed, error, n); break;
    case SB_INPUT_MOVE: sb_scene_mouse_move(scene, e->x, e->y, e->dx, e->dy, error, n); break;
    case SB_INPUT_WHEEL: sb_scene_wheel(scene, e->dx, e->dy, error, n); break;
    case SB_INPUT_DRAG: {
        sb_particle_id id = w ? particle_in_slot(w, e->particle) : sb_null_particle();
        if (id.generation)
            sb_world_drag_begin(w, id, (sb_vec2){e->x, e->y}, e->hertz, e->damping_ratio);
        break;
    }
    case SB_INPUT_DRAG_TO:
        if (w && sb_world_drag_particle(w).generation)
            sb_world_drag_move(w, (sb_vec2){e->x, e->y});
        break;
    case SB_INPUT_RELEASE:
        if (w)
            sb_world_drag_end(w);
        break;
    case SB_INPUT_TUNE: *reload = sb_scene_set_tunable(scene, e->name, e->value); break;
    case SB_INPUT_SKETCH:
    case SB_INPUT_TAKE_BACK: { // the scene file changes as draw mode changed it, and reloads
        char line[SB_INPUT_LINE_MAX + 1];
        const bool done = e->kind == SB_INPUT_SKETCH ? sb_scene_sketch_write(scene, e->line ? e->line : "", line, sizeof line, error, n)
                                                     : sb_scene_sketch_take_back(scene, line, sizeof line, error, n);
        if (done)
            *reload = sb_scene_reload(scene);
        break;
    }
    }
}
