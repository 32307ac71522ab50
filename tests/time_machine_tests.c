// The time machine keeps its promises: rewinding brings back data, never an old version's code;
// keeping history costs what a frame can afford and says when it stops; whatever springbox
// records (keys that restore snapshots, tunables of any legal name, many of them) it replays to
// the same bits; a file that is not a recording is refused at its first bad line, in printable
// words; plots refused for a full panel leave nothing behind; a snapshot past the budget is not
// taken. Both CI builds run them.
#define _DEFAULT_SOURCE
#include "sb_input.h"
#include "scene_helpers.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>

/// True when `text` holds only printable ASCII.
static bool printable(const char *text)
{
    for (const unsigned char *c = (const unsigned char *)text; *c; ++c)
        if (*c < ' ' || *c >= 0x7F)
            return false;
    return true;
}

/// A version of a scene whose state holds data and, in version 1, a function, a coroutine and a
/// table with a metatable; `hz` tunes its spring.
static void write_state_scene(int version, double hz)
{
    char text[2048];
    snprintf(text, sizeof text,
             "local sb = require 'springbox'\n"
             "local w = sb.world{ gravity = {0, -9.81} }\n"
             "local top = w:particle{ x = 0, y = 0, fixed = true }\n"
             "local bob = w:particle{ x = 1, y = 0 }\n"
             "w:spring(top, bob, { hertz = %g })\n"
             "local s = sb.state{ frames = 0, log = {} }\n"
             "if %d == 1 then\n"
             "  s.code = function() return 'version 1' end\n"
             "  s.co = coroutine.create(function() end)\n"
             "  s.meta = setmetatable({}, { __index = function() return 'version 1' end })\n"
             "end\n"
             "return { world = w, update = function()\n"
             "  s.frames = s.frames + 1\n"
             "  s.log[#s.log + 1] = s.frames\n"
             "  sb.plot('code', s.code and 1 or 0)\n"
             "  sb.plot('co', s.co and 1 or 0)\n"
             "  sb.plot('meta', s.meta and getmetatable(s.meta) and 1 or 0)\n"
             "  sb.plot('frames', s.frames)\n"
             "end }\n",
             hz, version);
    write_file("state.lua", text);
}

static double plotted(sb_scene *s, const char *name)
{
    double v;
    return plot_value(s, name, &v) ? v : NAN;
}

// springbox.state is data in every path: a kept reload leaves out the old version's functions,
// coroutines and metatables, and going back to a moment the old version recorded does not bring
// them back; a moment of the running version comes back whole.
TEST(rewinding_brings_back_data_never_an_old_versions_code)
{
    char error[2048];
    write_state_scene(1, 2.0);
    sb_scene *s = open_scene("state.lua", 0.5);
    ENSURE(s);
    sb_scene_history_enable(s, 60.0, (size_t)64 << 20, 1e9);
    for (int f = 0; f < 30; ++f) {
        ENSURE(sb_scene_frame(s, error, sizeof error));
        sb_scene_history_record(s);
    }
    ENSURE(plotted(s, "code") == 1 && plotted(s, "co") == 1 && plotted(s, "meta") == 1);
    // the same version goes back whole
    ENSURE(sb_scene_history_go(s, 10));
    ENSURE(sb_scene_frame(s, error, sizeof error));
    ENSURE(plotted(s, "code") == 1 && plotted(s, "meta") == 1 && plotted(s, "frames") == 12);
    sb_scene_history_cut(s, 11);
    // a kept reload: version 2 runs on without version 1's code
    write_state_scene(2, 3.0);
    sb_reload_event e = sb_scene_reload(s);
    ENSURE(e.result == SB_RELOAD_KEPT);
    ENSURE(strstr(sb_scene_warning(s), "left out"));
    for (int f = 0; f < 5; ++f) {
        ENSURE(sb_scene_frame(s, error, sizeof error));
        sb_scene_history_record(s);
    }
    ENSURE(plotted(s, "code") == 0 && plotted(s, "co") == 0 && plotted(s, "meta") == 0);
    // back to a moment version 1 recorded: its data, not its code
    ENSURE(sb_scene_history_go(s, 5));
    ENSURE(sb_scene_frame(s, error, sizeof error));
    printf("back to frame 6 of version 1 under version 2: code %g, coroutine %g, metatable %g, frames %g\n",
           plotted(s, "code"), plotted(s, "co"), plotted(s, "meta"), plotted(s, "frames"));
    ENSURE(plotted(s, "code") == 0 && plotted(s, "co") == 0 && plotted(s, "meta") == 0);
    ENSURE(plotted(s, "frames") == 7);
    // and a moment of version 2 comes back as it was
    int last = sb_scene_history_count(s) - 1;
    ENSURE(sb_scene_history_go(s, last));
    ENSURE(plotted(s, "code") == 0);
    sb_scene_close(s);
    return 0;
}

// Keeping history costs what a frame can afford: a springbox.state of a million small tables is
// not copied (one copy stops early, the heap does not double, and the history says why), and when
// keeping the worlds costs more than the host allows, the history stops keeping moments and says
// so; a restart keeps everything again.
TEST(history_costs_what_a_frame_can_afford_and_says_when_it_stops)
{
    char error[2048];
    write_file("big.lua", "local sb = require 'springbox'\n"
                          "local w = sb.world{}\n"
                          "w:particle{ x = 0, y = 0 }\n"
                          "local s = sb.state{ cells = {} }\n"
                          "if #s.cells == 0 then for i = 1, 1000000 do s.cells[i] = { i } end end\n"
                          "return { world = w, update = function() s.cells[1][1] = s.cells[1][1] + 1 end }\n");
    sb_scene *s = open_scene("big.lua", 0.5);
    ENSURE(s);
    sb_scene_history_enable(s, 60.0, (size_t)256 << 20, 1e9);
    size_t before = sb_scene_memory(s);
    double start = (double)clock() / CLOCKS_PER_SEC;
    for (int f = 0; f < 30; ++f) {
        ENSURE(sb_scene_frame(s, error, sizeof error));
        sb_scene_history_record(s);
    }
    double cpu = (double)clock() / CLOCKS_PER_SEC - start;
    printf("state of a million tables: heap %zu -> %zu bytes, %d moments, 30 frames in %.2f s of CPU: %s\n", before,
           sb_scene_memory(s), sb_scene_history_count(s), cpu, sb_scene_history_status(s));
    ENSURE(!sb_scene_history_keeps_state(s));
    ENSURE(strstr(sb_scene_history_status(s), "springbox.state is not rewound") &&
           strstr(sb_scene_history_status(s), "too big"));
    ENSURE(sb_scene_memory(s) < before + before / 5); // no copy of it kept, none half made
    ENSURE(sb_scene_history_count(s) == 30);           // the worlds still go back
    sb_scene_close(s);

    // a host that can afford no time for it: the history stops and says so
    s = open_scene("big.lua", 0.5);
    ENSURE(s);
    sb_scene_history_enable(s, 60.0, (size_t)256 << 20, 1e-6);
    for (int f = 0; f < 20; ++f) {
        ENSURE(sb_scene_frame(s, error, sizeof error));
        sb_scene_history_record(s);
    }
    printf("history at 1e-6 ms a frame: %d moments: %s\n", sb_scene_history_count(s), sb_scene_history_status(s));
    ENSURE(sb_scene_history_count(s) == 0);
    ENSURE(strstr(sb_scene_history_status(s), "rewind is off"));
    ENSURE(!sb_scene_history_go(s, 0));
    sb_scene_restart(s);
    ENSURE(sb_scene_history_status(s)[0] == '\0');
    sb_scene_close(s);
    return 0;
}

/// Records what a window does: a key, a slider, after the frames of the run so far.
static void record(sb_input_log *log, sb_scene *s, sb_input_event e)
{
    e.frame = sb_scene_frames(s);
    sb_input_log_add(log, &e);
}

/// Does the recorded events due before the next frame, as the window and --replay do.
static void replay_due(sb_scene *s, const sb_input_log *log, int *next)
{
    const sb_input_event *e;
    char error[512];
    while ((e = sb_input_log_event(log, *next)) != NULL && e->frame <= sb_scene_frames(s)) {
        *next += 1;
        sb_reload_event reload;
        sb_input_apply(s, e, &reload, error, sizeof error);
    }
}

/// A scene whose A key restores a snapshot (same_drop.lua's pattern), with `count` tunables whose
/// names are not plain identifiers, 70 characters long, or both.
static void write_restoring_scene(int count)
{
    char text[65536];
    int n = snprintf(text, sizeof text, "local sb = require 'springbox'\nlocal t = sb.tune{\n");
    for (int i = 0; i < count; ++i)
        n += snprintf(text + n, sizeof text - (size_t)n,
                      i % 3 == 0   ? "  [\"deck hz %d\"] = {2, 1, 10},\n"
                      : i % 3 == 1 ? "  tunable_with_a_long_name_that_says_what_it_tunes_in_the_scene_%05d = {2, 1, 10},\n"
                                   : "  [\"%%%d ~ \\xc3\\xa9\"] = {2, 1, 10},\n",
                      i);
    n += snprintf(text + n, sizeof text - (size_t)n,
                  "}\n"
                  "local w = sb.world{ gravity = {0, -9.81} }\n"
                  "w:wall(-3, 0, 3, 0)\n"
                  "local hz = 0\n"
                  "for _, v in pairs(t) do hz = hz + v end\n"
                  "local top = w:particle{ x = 0, y = 2, fixed = true }\n"
                  "local bob = w:particle{ x = 0.5, y = 1.5, radius = 0.1 }\n"
                  "w:spring(top, bob, { hertz = hz / %d })\n"
                  "local moment = w:snapshot()\n"
                  "return { world = w, keypressed = function(key)\n"
                  "  if key == 'a' then w:restore(moment, { keep_tuning = true }) return true end\n"
                  "end }\n",
                  count);
    write_file("restore.lua", text);
}

// Whatever springbox records, it replays: keys that put the world back to a snapshot (its clock
// goes back, the recording's frames do not), sliders of tunables named with spaces, '%', UTF-8 or
// 70 characters, 32 of them; written, read back and replayed, the run is the same bits every frame.
TEST(whatever_springbox_records_it_replays)
{
    char error[2048], why[512];
    write_restoring_scene(32);
    sb_scene *live = open_scene("restore.lua", 0.5);
    ENSURE(live);
    ENSURE(sb_scene_tunable_count(live) == 32);
    sb_input_log *log = sb_input_log_create();
    enum { frames = 200 };
    uint64_t hash[frames + 1];
    for (int f = 1; f <= frames; ++f) {
        if (f % 40 == 0) { // A: back to the snapshot
            sb_input_event e = {.kind = SB_INPUT_KEY, .pressed = true};
            snprintf(e.name, sizeof e.name, "a");
            record(log, live, e);
            sb_scene_key(live, "a", true, error, sizeof error);
            e.pressed = false;
            record(log, live, e);
            sb_scene_key(live, "a", false, error, sizeof error);
        }
        if (f % 25 == 0) { // a slider let go
            sb_tunable t = sb_scene_tunable(live, f / 25 * 5 % 32);
            sb_input_event e = {.kind = SB_INPUT_TUNE, .value = 2.0 + f / 25};
            snprintf(e.name, sizeof e.name, "%s", t.name);
            ENSURE(strcmp(e.name, t.name) == 0); // whole
            record(log, live, e);
            ENSURE(sb_scene_set_tunable(live, t.name, e.value).result == SB_RELOAD_KEPT);
        }
        ENSURE(sb_scene_frame(live, error, sizeof error));
        hash[f] = sb_world_state_hash(sb_scene_world(live, 0));
    }
    ENSURE(sb_world_get_stats(sb_scene_world(live, 0))->time < frames / 60.0 - 1.0); // the clock went back
    ENSURE(sb_input_log_write(log, scene_path("hands.txt"), why, sizeof why));
    sb_input_log *read = sb_input_log_read(scene_path("hands.txt"), why, sizeof why);
    if (!read)
        printf("refused: %s\n", why);
    ENSURE(read);
    ENSURE(sb_input_log_count(read) == sb_input_log_count(log));
    for (int i = 0; i < sb_input_log_count(log); ++i)
        ENSURE(strcmp(sb_input_log_event(read, i)->name, sb_input_log_event(log, i)->name) == 0);
    sb_scene *again = open_scene("restore.lua", 0.5);
    ENSURE(again);
    int next = 0;
    for (int f = 1; f <= frames; ++f) {
        replay_due(again, read, &next);
        ENSURE(sb_scene_frame(again, error, sizeof error));
        if (sb_world_state_hash(sb_scene_world(again, 0)) != hash[f]) {
            printf("the replay differs at frame %d\n", f);
            return 1;
        }
    }
    printf("%d events over %d frames, restores and 32 odd tunable names: replayed to the same bits\n",
           sb_input_log_count(read), frames);
    sb_input_log_free(read);
    sb_input_log_free(log);
    sb_scene_close(live);
    sb_scene_close(again);
    return 0;
}

static void write_bytes(const char *name, const char *bytes, size_t len)
{
    FILE *f = fopen(scene_path(name), "wb");
    fwrite(bytes, 1, len, f);
    fclose(f);
}

static void on_alarm(int sig)
{
    (void)sig;
    static const char message[] = "a read blocked\n";
    if (write(2, message, sizeof message - 1) < 0)
        _exit(3);
    _exit(3);
}

// What is not a recording is refused at its first bad line, by file and line, in printable words:
// a header and then NUL bytes (a gigabyte of them is not read), escape sequences, a line longer
// than any event, a file past the size a recording has, a FIFO with no writer (never blocks), a
// device.
TEST(what_is_not_a_recording_is_refused_at_its_first_bad_line)
{
    char why[512];
    signal(SIGALRM, on_alarm);
    alarm(60);
    // a header and NUL bytes: refused at line 2, whatever follows
    FILE *f = fopen(scene_path("nul.txt"), "wb");
    fputs("springbox-input 1\n", f);
    static char zeros[1 << 20];
    for (int k = 0; k < 32; ++k)
        fwrite(zeros, 1, sizeof zeros, f);
    fclose(f);
    struct {
        const char *name;
        const char *bytes;
        size_t len;
        const char *says;
    } cases[] = {
        {"escapes.txt", "springbox-input 1\n5 key \x1b[31mred\x1b]0;title\x07 down\n", 0, ":2: not an input recording (a control byte)"},
        {"header.txt", "\x1b[2Jspringbox\n", 0, ":1: not an input recording"},
        {"order.txt", "springbox-input 1\n5 key a down\n4 key a up\n", 0, ":3: cannot read"},
        {"name.txt", "springbox-input 1\n5 tune %zz 3\n", 0, ":2: cannot read"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i)
        write_bytes(cases[i].name, cases[i].bytes, strlen(cases[i].bytes));
    char long_line[40000]; // longer than a drawn line of SB_INPUT_LINE_MAX bytes, each written as %XX
    memset(long_line, 'x', sizeof long_line);
    memcpy(long_line, "springbox-input 1\n5 key ", 24);
    write_bytes("long.txt", long_line, sizeof long_line);
    ENSURE(truncate(scene_path("huge.txt"), 0) == 0 || errno == ENOENT);
    f = fopen(scene_path("huge.txt"), "wb");
    fputs("springbox-input 1\n", f);
    fclose(f);
    ENSURE(truncate(scene_path("huge.txt"), (off_t)SB_INPUT_FILE_MAX + 1) == 0); // sparse
    ENSURE(mkfifo(scene_path("fifo.txt"), 0644) == 0);
    const char *refused[][2] = {
        {"nul.txt", ":2: not an input recording (a control byte)"},
        {"long.txt", ":2: not an input recording (a line longer than any event)"},
        {"huge.txt", "more than a recording may have"},
        {"fifo.txt", "not a regular file"},
        {"/dev/zero", "not a regular file"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0] + sizeof refused / sizeof refused[0]; ++i) {
        bool listed = i < sizeof cases / sizeof cases[0];
        const char *name = listed ? cases[i].name : refused[i - sizeof cases / sizeof cases[0]][0];
        const char *says = listed ? cases[i].says : refused[i - sizeof cases / sizeof cases[0]][1];
        const char *path = name[0] == '/' ? name : scene_path(name);
        sb_input_log *log = sb_input_log_read(path, why, sizeof why);
        printf("%s: %s\n", name, why);
        ENSURE(!log);
        ENSURE(strstr(why, says));
        ENSURE(printable(why));
    }
    alarm(0);
    return 0;
}

// A recording is read as springbox writes it: every number a field holds is finite and in the
// range the window can record, every count of fields is exact, and a line that is not is refused
// by its line number, never wrapped (a world 2^32 is not world 0) or passed on as nan or inf.
TEST(every_field_of_a_recording_is_checked)
{
    const char *lines[] = {
        "3 drag 4294967296 0 0 0 5 1", "3 drag 0 4294967296 0 0 5 1", "3 drag -1 0 0 0 5 1", "3 drag 0 0 nan 0 5 1",
        "3 drag 0 0 0 0 0 1", "3 drag 0 0 0 0 5 -1", "3 drag 0 0 0 0 inf 1", "3 drag 0 0 0 0 5 1 7",
        "3 drag_to 0 1e999 0", "3 drag_to 99999 0 0", "3 release -1", "3 release 0x1", "3 release",
        "3 move nan nan nan nan", "3 move 1e999 0 0 0", "3 move 0 0 0", "3 button inf -inf 1 down",
        "3 button 0 0 9 down", "3 button 0 0 1 sideways", "3 wheel nan inf", "3 wheel 1e7 0", "3 tune x 1e400",
        "3 tune x nan", "3 key a pressed", "99999999999999999999 key a down", "-1 key a down", "3 key", "3 fly 1 2",
    };
    char why[512];
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; ++i) {
        char text[256];
        snprintf(text, sizeof text, "springbox-input 1\n1 key a down\n%s\n", lines[i]);
        write_bytes("field.txt", text, strlen(text));
        sb_input_log *log = sb_input_log_read(scene_path("field.txt"), why, sizeof why);
        printf("%s -> %s\n", lines[i], log ? "accepted" : why);
        ENSURE(!log);
        ENSURE(strstr(why, "field.txt:3: cannot read"));
        sb_input_log_free(log);
    }
    // the extremes the window can record are read back as they were written
    const char *good = "springbox-input 1\n0 drag 1023 2147483647 -1e15 1e15 1e6 0\n0 drag_to 0 1e15 -1e15\n"
                       "0 move -1e15 1e15 1e15 -1e15\n0 wheel 1e6 -1e6\n0 button 1e15 -1e15 8 up\n0 tune x -1e300\n"
                       "0 release 1023\n";
    write_bytes("good.txt", good, strlen(good));
    sb_input_log *log = sb_input_log_read(scene_path("good.txt"), why, sizeof why);
    ENSURE(log && sb_input_log_count(log) == 7);
    const sb_input_event *drag = sb_input_log_event(log, 0);
    ENSURE(drag->world == 1023 && drag->particle == 2147483647u && drag->x == -1e15 && drag->hertz == 1e6);
    ENSURE(sb_input_log_event(log, 5)->value == -1e300);
    sb_input_log_free(log);
    return 0;
}

// Plot series refused for a full panel leave nothing behind: eight versions, each plotting a
// hundred series of new names every frame, keep the heap as it was after the first.
TEST(refused_plots_leave_nothing_behind)
{
    char error[2048], text[1024];
    size_t heap[9];
    sb_scene *s = NULL;
    for (int v = 0; v < 9; ++v) {
        snprintf(text, sizeof text,
                 "local sb = require 'springbox'\n"
                 "local w = sb.world{}\n"
                 "w:particle{ x = 0, y = 0 }\n"
                 "local n = 0\n"
                 "return { world = w, update = function()\n"
                 "  n = n + 1\n"
                 "  for i = 1, 100 do pcall(sb.plot, ('v%d series %%d %%d'):format(n, i), i, 'panel ' .. i) end\n"
                 "end }\n",
                 v);
        write_file("plots.lua", text);
        if (!s)
            s = open_scene("plots.lua", 0.5);
        else
            ENSURE(sb_scene_reload(s).result == SB_RELOAD_KEPT);
        ENSURE(s);
        for (int f = 0; f < 60; ++f)
            ENSURE(sb_scene_frame(s, error, sizeof error));
        ENSURE(sb_scene_plot_count(s) == 12);
        heap[v] = sb_scene_memory(s);
    }
    printf("the heap after each version: %zu %zu %zu %zu %zu %zu %zu %zu %zu bytes\n", heap[0], heap[1], heap[2], heap[3],
           heap[4], heap[5], heap[6], heap[7], heap[8]);
    for (int v = 2; v < 9; ++v)
        ENSURE(heap[v] < heap[1] + heap[1] / 4);
    sb_scene_close(s);
    return 0;
}

// A snapshot that would take the snapshots still referenced past their budget is not taken.
TEST(a_snapshot_past_the_budget_is_not_taken)
{
    char error[2048];
    write_file("snaps.lua", "local sb = require 'springbox'\n"
                            "local w = sb.world{ gravity = {0, 0} }\n"
                            "for i = 1, 40000 do w:particle{ x = i % 200, y = i // 200, radius = 0.2 } end\n"
                            "local kept, refused, message = {}, 0, ''\n"
                            "for i = 1, 400 do\n"
                            "  local ok, s = pcall(w.snapshot, w)\n"
                            "  if ok then kept[#kept + 1] = s else refused = refused + 1; message = s end\n"
                            "end\n"
                            "local bytes = 0\n"
                            "for _, s in ipairs(kept) do bytes = bytes + s.bytes end\n"
                            "sb.plot('kept MB', bytes / 2^20)\n"
                            "sb.plot('refused', refused)\n"
                            "assert(refused > 0 and message:find('more than the 512 MB allowed'), message)\n"
                            "return w\n");
    sb_scene_options o = sb_default_scene_options();
    o.path = scene_path("snaps.lua");
    o.load_seconds = 120.0;
    sb_scene *s = sb_scene_open(&o, error, sizeof error);
    if (!s)
        printf("%s\n", error);
    ENSURE(s);
    double kept = NAN;
    ENSURE(plot_value(s, "kept MB", &kept));
    printf("snapshots kept: %.1f MB, %g refused\n", kept, plotted(s, "refused"));
    ENSURE(kept <= 512.0);
    sb_scene_close(s);
    return 0;
}

static const test_entry tests[] = {
    ENTRY(rewinding_brings_back_data_never_an_old_versions_code),
    ENTRY(history_costs_what_a_frame_can_afford_and_says_when_it_stops),
    ENTRY(whatever_springbox_records_it_replays),
    ENTRY(what_is_not_a_recording_is_refused_at_its_first_bad_line),
    ENTRY(every_field_of_a_recording_is_checked),
    ENTRY(refused_plots_leave_nothing_behind),
    ENTRY(a_snapshot_past_the_budget_is_not_taken),
};

int main(int argc, char **argv) { return run_in_scratch_folder(argc, argv, tests, sizeof tests / sizeof tests[0]); }
