// Scene host tests of scenes as programs: load, update and the callbacks, drawing, input, the
// camera, state kept over reloads, and everything a scene asks of the host.
#define _DEFAULT_SOURCE
#include "sb_constraint.h"
#include "sb_scene.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "ensure.h"
#include "scene_helpers.h"

// ---------------------------------------------------------------- scenes as programs

// A small toy driven headless through the host API, as the window drives it: a key claimed by
// the scene and one that is not, held keys read in update, mouse positions in metres, a wheel,
// a rope cut by a key, a spring that breaks under a weight, contact events of a ball that asked,
// drawing and plots.
static const char *toy_scene =
    "local sb = require 'springbox'\n"
    "local w = sb.world{ substeps = 4 }\n"
    "w:wall(-5, 0, 5, 0)\n"
    "local top = w:particle{ x = 0, y = 3, fixed = true }\n"
    "local bob = w:particle{ x = 0, y = 2, mass = 1 }\n"
    "local rope = w:spring(top, bob, { color = '#ff0000' })\n"
    "local anchor = w:particle{ x = 2, y = 3, fixed = true }\n"
    "local weight = w:particle{ x = 2, y = 2, mass = 10 }\n"
    "w:spring(anchor, weight, { break_force = 50 })\n"  // 98 N hangs on it: it breaks
    "local ball = w:particle{ x = -2, y = 0.5, radius = 0.1, events = true }\n"
    "local s = sb.state{ keys = '', clicks = '', wheel = 0, breaks = 0, begins = 0, held = 0, moved = 0 }\n"
    "return { world = w,\n"
    "  update = function(world, dt)\n"
    "    if sb.keyboard.isdown('left') then s.held = s.held + 1; ball:apply_force(-1, 0) end\n"
    "    sb.plot('bob height', bob.y)\n"
    "    sb.plot('held', s.held)\n"
    "  end,\n"
    "  keypressed = function(key)\n"
    "    s.keys = s.keys .. key .. ','\n"
    "    if key == 'c' then w:remove(rope) end\n"
    "    return key == 'space'\n"
    "  end,\n"
    "  mousepressed = function(x, y, button) s.clicks = s.clicks .. string.format('%.1f %.1f %d;', x, y, button) end,\n"
    "  mousemoved = function(x, y, dx, dy) s.moved = s.moved + 1 end,\n"
    "  wheelmoved = function(dx, dy) s.wheel = s.wheel + dy end,\n"
    "  on_spring_break = function(spring, a, b) s.breaks = s.breaks + 1; s.broke_b = (b == weight) end,\n"
    "  on_contact_begin = function(a, b) s.begins = s.begins + 1; s.wall = b end,\n"
    "  draw = function(g)\n"
    "    g.color(1, 0, 0)\n"
    "    g.line(0, 0, 1, 1, 2, 0)\n"
    "    g.circle('fill', bob.x, bob.y, 0.2)\n"
    "    g.color('#00ff0080')\n"
    "    g.print('keys ' .. s.keys, -1, 4)\n"
    "    g.print_screen('hud', 10, 20)\n"
    "  end,\n"
    "}\n";

TEST(scene_programs_take_input_draw_and_hear_events)
{
    char error[2048];
    write_file("toy.lua", toy_scene);
    sb_scene *s = open_scene("toy.lua", 0.5);
    ENSURE(s);
    ENSURE(strcmp(sb_scene_warning(s), "") == 0); // every callback is a known field
    ENSURE(sb_scene_has_callback(s, "draw") && sb_scene_has_callback(s, "keypressed"));
    ENSURE(!sb_scene_has_callback(s, "keyreleased"));
    ENSURE(sb_scene_key(s, "space", true, error, sizeof error) == true); // claimed
    ENSURE(error[0] == '\0');
    ENSURE(sb_scene_key(s, "r", true, error, sizeof error) == false);    // the window's
    sb_scene_key(s, "r", false, error, sizeof error);
    ENSURE(sb_scene_mouse_button(s, 1.25, -0.5, 1, true, error, sizeof error) == false);
    sb_scene_mouse_move(s, 1.3, -0.4, 0.05, 0.1, error, sizeof error);
    sb_scene_wheel(s, 0, 2, error, sizeof error);
    sb_scene_key(s, "left", true, error, sizeof error);
    for (int f = 0; f < 30; ++f)
        ENSURE(sb_scene_frame(s, error, sizeof error));
    sb_scene_key(s, "left", false, error, sizeof error);
    for (int f = 0; f < 10; ++f)
        ENSURE(sb_scene_frame(s, error, sizeof error));
    double held = 0, bob = 0;
    ENSURE(plot_value(s, "held", &held) && held == 30); // isdown saw the key for 30 frames
    ENSURE(plot_value(s, "bob height", &bob) && fabs(bob - 2.0) < 0.01);
    // what the callbacks saw, through a draw: the text of g.print holds s.keys
    sb_draw_list list;
    ENSURE(sb_scene_draw(s, &list, error, sizeof error));
    ENSURE(list.count == 4);
    ENSURE(list.commands[0].kind == SB_DRAW_LINES && list.commands[0].count == 3 && list.commands[0].color == 0xFF0000FFu);
    ENSURE(list.points[list.commands[0].first + 2].x == 2.0);
    ENSURE(list.commands[1].kind == SB_DRAW_CIRCLE && list.commands[1].fill && list.commands[1].radius == 0.2);
    ENSURE(list.commands[2].kind == SB_DRAW_TEXT && !list.commands[2].screen && list.commands[2].color == 0x00FF0080u);
    ENSURE(strcmp(list.text + list.commands[2].text, "keys space,r,left,") == 0);
    ENSURE(list.commands[3].screen && strcmp(list.text + list.commands[3].text, "hud") == 0);
    // the weight broke its spring: only the rope is left
    sb_world *w = sb_scene_world(s, 0);
    ENSURE(sb_world_spring_count(w) == 1);
    // the rope is cut by a key, and the bob falls
    sb_scene_key(s, "c", true, error, sizeof error);
    ENSURE(sb_world_spring_count(w) == 0);
    for (int f = 0; f < 10; ++f)
        ENSURE(sb_scene_frame(s, error, sizeof error));
    ENSURE(plot_value(s, "bob height", &bob) && bob < 1.9);
    sb_scene_close(s);

    // The same toy reports what its callbacks counted through plots in update.
    char text[8192];
    snprintf(text, sizeof text, "%s", toy_scene);
    char *p = strstr(text, "    sb.plot('held', s.held)\n");
    ENSURE(p);
    const char *extra = "    sb.plot('held', s.held); sb.plot('breaks', s.breaks); sb.plot('begins', s.begins)\n"
                        "    sb.plot('wall', s.wall or -1); sb.plot('wheel', s.wheel); sb.plot('moved', s.moved)\n"
                        "    sb.plot('broke_b', s.broke_b and 1 or 0); sb.plot('clicks', #s.clicks)\n";
    memmove(p + strlen(extra), p + strlen("    sb.plot('held', s.held)\n"), strlen(p + strlen("    sb.plot('held', s.held)\n")) + 1);
    memcpy(p, extra, strlen(extra));
    write_file("toy2.lua", text);
    s = open_scene("toy2.lua", 0.5);
    ENSURE(s);
    sb_scene_mouse_button(s, 1.25, -0.5, 1, true, error, sizeof error);
    sb_scene_mouse_move(s, 1.3, -0.4, 0.05, 0.1, error, sizeof error);
    sb_scene_wheel(s, 0, 2, error, sizeof error);
    for (int f = 0; f < 90; ++f)
        if (!sb_scene_frame(s, error, sizeof error)) {
            fprintf(stderr, "%s\n", error);
            ENSURE(false);
        }
    double v;
    ENSURE(plot_value(s, "breaks", &v) && v == 1);
    ENSURE(plot_value(s, "broke_b", &v) && v == 1);
    ENSURE(plot_value(s, "begins", &v) && v == 1);
    ENSURE(plot_value(s, "wall", &v) && v == 1);
    ENSURE(plot_value(s, "wheel", &v) && v == 2);
    ENSURE(plot_value(s, "moved", &v) && v == 1);
    ENSURE(plot_value(s, "clicks", &v) && v == (double)strlen("1.2 -0.5 1;"));
    sb_scene_close(s);

    // A callback edited and saved takes effect at once, and the running world is kept.
    const char *edit = "local sb = require 'springbox'\n"
                       "local w = sb.world{}\n"
                       "local p = w:particle{ x = 0, y = 0 }\n"
                       "return { world = w, keypressed = function(key) sb.plot('answer', %d) end }\n";
    snprintf(text, sizeof text, edit, 1);
    write_file("edit.lua", text);
    s = open_scene("edit.lua", 0.5);
    ENSURE(s);
    for (int f = 0; f < 10; ++f)
        sb_scene_frame(s, error, sizeof error);
    sb_scene_key(s, "a", true, error, sizeof error);
    ENSURE(plot_value(s, "answer", &v) && v == 1);
    snprintf(text, sizeof text, edit, 2);
    write_file("edit.lua", text);
    ENSURE(sb_scene_reload(s).result == SB_RELOAD_KEPT);
    sb_scene_key(s, "a", true, error, sizeof error);
    ENSURE(plot_value(s, "answer", &v) && v == 2);
    ENSURE(sb_world_get_stats(sb_scene_world(s, 0))->steps == 10);
    sb_scene_close(s);
    return 0;
}

// An error in any callback is reported with file and line, turns that callback off (the
// others and the physics keep running), and a fixed file brings it back on reload, with the
// state kept: a callback edit is a tuning-only reload.
TEST(callback_errors_are_shown_and_recovered_from)
{
    static const char *names[] = {"keypressed", "keyreleased", "mousepressed", "mousereleased", "mousemoved",
                                  "wheelmoved", "draw", "on_contact_begin", "on_contact_end", "on_spring_break",
                                  "on_leave_bounds"};
    for (size_t n = 0; n < sizeof names / sizeof names[0]; ++n) {
        char text[4096];
        const char *body[2] = {"local x = nil; return x.boom", "return false"};
        sb_scene *s = NULL;
        for (int version = 0; version < 2; ++version) {
            snprintf(text, sizeof text,
                     "local sb = require 'springbox'\n"
                     "local w = sb.world{ substeps = 2, region = {-5, -1, 5, 0.6} }\n"
                     "w:wall(-5, 0, 5, 0)\n"
                     "local ball = w:particle{ x = 0, y = 0.3, radius = 0.1, events = true }\n"
                     "local a = w:particle{ x = 2, y = 2, fixed = true }\n"
                     "local b = w:particle{ x = 2, y = 1, mass = 10 }\n"
                     "w:spring(a, b, { break_force = 10 })\n"
                     "local s = sb.state{ calls = 0 }\n"
                     "return { world = w,\n"
                     "  update = function() sb.plot('calls', s.calls) end,\n"
                     "  %s = function(...) s.calls = s.calls + 1\n"
                     "    %s\n"
                     "  end }\n",
                     names[n], body[version]);
            write_file("err.lua", text);
            if (version == 0) {
                s = open_scene("err.lua", 0.5);
                ENSURE(s);
            } else {
                // The breaking spring went at run time: the reload says it restarts,
                // because a spring broke
                sb_reload_event e = sb_scene_reload(s);
                ENSURE(e.result == SB_RELOAD_RESTARTED && strstr(e.message, "broke since it was loaded"));
            }
            char error[2048] = "", first_error[2048] = "";
            // drive every callback for a while
            for (int f = 0; f < 40; ++f) {
                sb_draw_list list;
                sb_scene_key(s, "x", f % 2 == 0, error, sizeof error);
                if (error[0] && !first_error[0]) snprintf(first_error, sizeof first_error, "%s", error);
                sb_scene_mouse_button(s, 0, 0, 1, f % 2 == 0, error, sizeof error);
                if (error[0] && !first_error[0]) snprintf(first_error, sizeof first_error, "%s", error);
                sb_scene_mouse_move(s, 0, 0, 0.1, 0, error, sizeof error);
                if (error[0] && !first_error[0]) snprintf(first_error, sizeof first_error, "%s", error);
                sb_scene_wheel(s, 0, 1, error, sizeof error);
                if (error[0] && !first_error[0]) snprintf(first_error, sizeof first_error, "%s", error);
                if (!sb_scene_draw(s, &list, error, sizeof error) && !first_error[0])
                    snprintf(first_error, sizeof first_error, "%s", error);
                if (!sb_scene_frame(s, error, sizeof error) && !first_error[0])
                    snprintf(first_error, sizeof first_error, "%s", error);
                if (f == 20) { // let the ball leave the floor for a contact end
                    sb_world *w = sb_scene_world(s, 0);
                    sb_particle_id it = sb_null_particle();
                    sb_world_next_particle(w, &it);
                    sb_particle_apply_impulse(w, it, (sb_vec2){0, 5});
                }
            }
            double calls = -1;
            ENSURE(plot_value(s, "calls", &calls));
            if (version == 0) {
                // one call, one error naming the file and the line, then off
                if (!(calls == 1 && strstr(first_error, "err.lua:12:") && strstr(first_error, names[n])))
                    fprintf(stderr, "%s: calls %g, error '%s'\n", names[n], calls, first_error);
                ENSURE(calls == 1);
                ENSURE(strstr(first_error, "err.lua:12:") != NULL);
                ENSURE(strstr(first_error, names[n]) != NULL);
                ENSURE(!sb_scene_has_callback(s, names[n]));
                ENSURE(sb_world_get_stats(sb_scene_world(s, 0))->steps == 40); // the physics ran on
            } else {
                ENSURE(first_error[0] == '\0');
                ENSURE(calls >= 1); // back on
                ENSURE(sb_scene_has_callback(s, names[n]));
                ENSURE(sb_world_get_stats(sb_scene_world(s, 0))->steps == 40);
            }
        }
        sb_scene_close(s);
    }
    // a callback field that is not a function is a load error naming it
    write_file("bad_cb.lua", "local sb = require 'springbox'\nreturn { world = sb.world{}, draw = 3 }\n");
    sb_scene_options o = sb_default_scene_options();
    o.path = scene_path("bad_cb.lua");
    char error[2048];
    ENSURE(sb_scene_open(&o, error, sizeof error) == NULL);
    ENSURE(strstr(error, "scene field 'draw' must be a function, got number") != NULL);
    // a misspelt callback is warned about with the nearest name
    write_file("typo_cb.lua", "local sb = require 'springbox'\nreturn { world = sb.world{}, keypresed = function() end }\n");
    o.path = scene_path("typo_cb.lua");
    sb_scene *s = sb_scene_open(&o, error, sizeof error);
    ENSURE(s && strstr(sb_scene_warning(s), "did you mean 'keypressed'?") != NULL);
    sb_scene_close(s);
    // a draw that never ends stops at the limit with the usual message, and one that floods the
    // list ends with a clear error
    write_file("slow_draw.lua", "local sb = require 'springbox'\nreturn { world = sb.world{}, draw = function(g) while true do end end }\n");
    o.path = scene_path("slow_draw.lua");
    o.update_seconds = 0.1;
    s = sb_scene_open(&o, error, sizeof error);
    ENSURE(s);
    sb_draw_list list;
    ENSURE(!sb_scene_draw(s, &list, error, sizeof error));
    if (!strstr(error, "draw() took longer than its limit of 0.1 s"))
        fprintf(stderr, "%s\n", error);
    ENSURE(strstr(error, "draw() took longer than its limit of 0.1 s") != NULL);
    sb_scene_close(s);
    write_file("flood_draw.lua", "local sb = require 'springbox'\nreturn { world = sb.world{}, draw = function(g) for i = 1, 1e6 do g.line(0, 0, i, 1) end end }\n");
    o.path = scene_path("flood_draw.lua");
    o.update_seconds = 5;
    s = sb_scene_open(&o, error, sizeof error);
    ENSURE(s);
    ENSURE(!sb_scene_draw(s, &list, error, sizeof error));
    ENSURE(strstr(error, "draw list is full") != NULL);
    ENSURE(list.count == 65536); // what was drawn before the error is kept
    sb_scene_close(s);
    return 0;
}

// Constraints are structure too: a file that adds one restarts and says how many, a tuning edit
// of one keeps the state, and one removed at run time restarts the next reload, saying so.
TEST(constraint_changes_restart_and_say_so)
{
    const char *fmt = "local sb = require 'springbox'\n"
                      "local w = sb.world{}\n"
                      "local a, b = w:particle{ x = 0, y = 0, fixed = true }, w:particle{ x = 1, y = 0 }\n"
                      "local c = w:particle{ x = 1, y = 1 }\n"
                      "local rope = w:rope(a, b, { hertz = %d })\n"
                      "%s\n"
                      "return { world = w, keypressed = function() w:remove(rope) end }\n";
    char text[1024];
    snprintf(text, sizeof text, fmt, 3, "");
    write_file("cons.lua", text);
    sb_scene *s = open_scene("cons.lua", 0.5);
    ENSURE(s);
    char error[512];
    for (int f = 0; f < 5; ++f)
        sb_scene_frame(s, error, sizeof error);
    snprintf(text, sizeof text, fmt, 5, "");
    write_file("cons.lua", text);
    sb_reload_event e = sb_scene_reload(s);
    ENSURE(e.result == SB_RELOAD_KEPT);
    snprintf(text, sizeof text, fmt, 5, "w:area({ a, b, c })");
    write_file("cons.lua", text);
    e = sb_scene_reload(s); // a constraint added after the rest: the state carries
    ENSURE(e.result == SB_RELOAD_KEPT && e.reshaped && strstr(e.message, "1 constraint added"));
    snprintf(text, sizeof text, fmt, 5, "w:rope(a, c)"); // another in its place: restarted
    write_file("cons.lua", text);
    e = sb_scene_reload(s);
    ENSURE(e.result == SB_RELOAD_RESTARTED && strstr(e.message, "constraints are of other kinds"));
    sb_scene_key(s, "x", true, error, sizeof error); // removes the rope at run time
    e = sb_scene_reload(s);
    ENSURE(e.result == SB_RELOAD_RESTARTED && strstr(e.message, "removed constraints since it was loaded"));
    sb_scene_close(s);
    return 0;
}

/// True when a scene of `code` (with `sb` in scope) fails to load with `want` in its error;
/// logs may hold `log_limit` bytes. Says what happened otherwise.
static bool load_fails_with(const char *code, const char *want, size_t log_limit)
{
    char text[1024], error[2048];
    snprintf(text, sizeof text, "local sb = require('springbox')\n%s\nreturn sb.world{}\n", code);
    write_file("fails.lua", text);
    sb_scene_options o = sb_default_scene_options();
    o.path = scene_path("fails.lua");
    o.log_limit = log_limit;
    sb_scene *s = sb_scene_open(&o, error, sizeof error);
    bool failed = s == NULL && strstr(error, want) != NULL;
    if (!failed)
        printf("%s\n  wanted: %s\n  got: %s\n", code, want, s ? "it loaded" : error);
    sb_scene_close(s);
    return failed;
}

/// The whole of a file next to the scenes ("" if it cannot be read).
static const char *read_back(const char *name)
{
    static char text[8192];
    text[0] = '\0';
    FILE *f = fopen(scene_path(name), "r");
    if (f) {
        size_t n = fread(text, 1, sizeof text - 1, f);
        text[n] = '\0';
        fclose(f);
    }
    return text;
}

// A sandboxed scene writes a CSV next to itself with springbox.open_log; the
// header is written once, a reload appends, rows are flushed every frame, and names, sizes
// and counts are limited with errors that say so.
TEST(sandboxed_scenes_write_logs)
{
    const char *text =
        "local sb = require 'springbox'\n"
        "local w = sb.world{}\n"
        "local p = w:particle{ x = 0, y = 0 }\n"
        "local log = sb.open_log('run.csv', { 'frame', 'fixed', 'note' })\n"
        "local frame = 0\n"
        "return { world = w, update = function()\n"
        "  frame = frame + 1\n"
        "  log:row(frame, p.fixed, frame == 2 and 'said \"hi\", twice' or nil)\n"
        "end }\n";
    char error[2048];
    remove(scene_path("run.csv"));
    sb_scene *s = open_text("logger.lua", text, error, sizeof error);
    ENSURE(s != NULL);
    for (int f = 0; f < 3; ++f)
        ENSURE(sb_scene_frame(s, error, sizeof error));
    // flushed after every frame: readable while the scene runs
    ENSURE(strcmp(read_back("run.csv"), "frame,fixed,note\n1,false,\n2,false,\"said \"\"hi\"\", twice\"\n3,false,\n") == 0);
    // a tuning-only reload runs the file again: it appends, with no second header
    char edited[1024];
    snprintf(edited, sizeof edited, "-- edited\n%s", text);
    write_file("logger.lua", edited);
    ENSURE(sb_scene_reload(s).result == SB_RELOAD_KEPT);
    ENSURE(sb_scene_frame(s, error, sizeof error));
    printf("%s", read_back("run.csv"));
    ENSURE(strcmp(read_back("run.csv"), "frame,fixed,note\n1,false,\n2,false,\"said \"\"hi\"\", twice\"\n3,false,\n"
                                        "1,false,\n") == 0);
    sb_scene_close(s);
    // a new session starts the file afresh
    s = open_text("logger.lua", text, error, sizeof error);
    ENSURE(s && sb_scene_frame(s, error, sizeof error));
    ENSURE(strcmp(read_back("run.csv"), "frame,fixed,note\n1,false,\n") == 0);
    sb_scene_close(s);

    // names: a plain file next to the scene, with a text extension; the error names the value
    const char *bad_names[] = {"../x.csv", "/tmp/x.csv", "a/b.csv", ".x.csv", "x.sh", "", "run.lua", "x.csv\\0y"};
    for (size_t i = 0; i < sizeof bad_names / sizeof *bad_names; ++i) {
        char scene[512];
        snprintf(scene, sizeof scene, "require('springbox').open_log('%s')\nreturn require('springbox').world{}\n",
                 bad_names[i]);
        s = open_text("badlog.lua", scene, error, sizeof error);
        ENSURE(s == NULL);
        ENSURE(strstr(error, "bad argument #1 to 'open_log'") != NULL);
        char quoted[64];
        snprintf(quoted, sizeof quoted, "got '%.*s'", (int)strcspn(bad_names[i], "\\"), bad_names[i]);
        ENSURE(strstr(error, quoted) != NULL);
    }
    // the other errors: a full log, a closed log, a ninth log, bad values, and `io` itself
    struct {
        const char *code, *want;
    } cases[] = {
        {"local l = sb.open_log('big.txt')\nl:write(('x'):rep(60))\nl:write(('x'):rep(60))",
         "log 'big.txt' is full: it may hold 100 bytes, and this write would take it to 120"},
        {"local l = sb.open_log('c.log')\nl:close()\nl:write('x')", "attempt to use a closed log"},
        {"local a = sb.open_log('same.txt')\nlocal b = sb.open_log('same.txt')\nb:write('ok')\na:write('x')",
         "attempt to use a closed log"},
        {"for i = 1, 9 do sb.open_log('n' .. i .. '.csv') end", "at most 8 logs in a session, and 'n9.csv' would be one more"},
        {"sb.open_log('t.csv'):row({})", "bad argument #1 to 'row' (string, number, boolean or nil expected, got table)"},
        {"sb.open_log('t.csv'):write(true)", "bad argument #1 to 'write' (string or number expected, got boolean)"},
        {"io.write('x')", "'io' is not available to sandboxed scenes: run springbox with --trusted to give the scene the "
                          "full standard library, or write a file next to the scene with springbox.open_log(name)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; ++i)
        ENSURE(load_fails_with(cases[i].code, cases[i].want, 100));
    const char *big = read_back("big.txt"); // the first write whole, nothing of the second
    ENSURE(strlen(big) == 60 && strspn(big, "x") == 60);
    return 0;
}

// A scene sets the camera (look once, follow a particle until it goes) and
// retitles the window while it runs; camera.get reads what the host shows; bad values are
// named errors.
TEST(scenes_move_the_camera_and_retitle)
{
    char error[2048];
    sb_scene *s = open_text("camera.lua",
                            "local sb = require 'springbox'\n"
                            "local w = sb.world{ gravity = {0, -10}, collisions = false }\n"
                            "local p = w:particle{ x = 2, y = 5 }\n"
                            "sb.camera.follow(p, 8)\n"
                            "sb.window.set_title('falling')\n"
                            "local frames = 0\n"
                            "return { world = w, title = 'camera test', update = function()\n"
                            "  frames = frames + 1\n"
                            "  sb.plot('view_h', select(3, sb.camera.get()))\n"
                            "  if frames == 30 then w:remove(p) end\n"
                            "  if frames == 40 then sb.camera.look(-1, 3) end\n"
                            "  if frames == 50 then sb.window.set_title(nil) end\n"
                            "end }\n",
                            error, sizeof error);
    ENSURE(s != NULL);
    ENSURE(strcmp(sb_scene_title(s), "falling") == 0);
    sb_camera_request req;
    for (int f = 1; f <= 29; ++f) {
        ENSURE(sb_scene_frame(s, error, sizeof error));
        sb_particle_def p;
        sb_particle_id id = sb_null_particle();
        ENSURE(sb_world_next_particle(sb_scene_world(s, 0), &id) && sb_particle_get(sb_scene_world(s, 0), id, &p) == SB_OK);
        ENSURE(sb_scene_camera(s, &req) && req.follow && req.height == 8);
        ENSURE(req.x == p.position.x && req.y == p.position.y && p.position.y < 5.0);
    }
    sb_scene_set_view(s, 1, 2, 12);
    ENSURE(sb_scene_frame(s, error, sizeof error)); // frame 30 removes the particle
    double view_h;
    ENSURE(plot_value(s, "view_h", &view_h) && view_h == 12);
    ENSURE(!sb_scene_camera(s, &req)); // the followed particle is gone: nothing more to follow
    for (int f = 31; f <= 40; ++f)
        ENSURE(sb_scene_frame(s, error, sizeof error));
    ENSURE(sb_scene_camera(s, &req) && !req.follow && req.x == -1 && req.y == 3 && req.height == 0);
    ENSURE(!sb_scene_camera(s, &req)); // a look is handed out once
    ENSURE(strcmp(sb_scene_title(s), "falling") == 0);
    for (int f = 41; f <= 50; ++f)
        ENSURE(sb_scene_frame(s, error, sizeof error));
    ENSURE(strcmp(sb_scene_title(s), "camera test") == 0);
    sb_scene_close(s);

    struct {
        const char *code, *want;
    } bad[] = {
        {"sb.camera.look(0/0, 0)", "bad argument #1 to 'look' (must be finite and within 1e12 m, got nan)"},
        {"sb.camera.look(0, 1e13)", "bad argument #2 to 'look' (must be finite and within 1e12 m, got 10000000000000.0)"},
        {"sb.camera.look(0, 0, -1)", "bad argument #3 to 'look' (height is the metres of world the view shows"},
        {"sb.camera.follow(42)", "bad argument #1 to 'follow' (a live particle (or nil to stop following) expected, got 42)"},
        {"local w = sb.world{}\nlocal p = w:particle{}\nw:remove(p)\nsb.camera.follow(p)",
         "bad argument #1 to 'follow' (a live particle"},
        {"sb.window.set_title(('x'):rep(300))", "bad argument #1 to 'set_title' (a title has at most 200 characters"},
        {"sb.window.set_title({})", "bad argument #1 to 'set_title' (string expected, got table)"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; ++i)
        ENSURE(load_fails_with(bad[i].code, bad[i].want, sb_default_scene_options().log_limit));
    return 0;
}

// A kept reload carries the contacts' touching state: a ball resting on a wall began its contact
// once, and three kept reloads neither begin it again nor end it (they began 4 times and ended none).
TEST(kept_reloads_do_not_refire_contact_events)
{
    const char *text = "local sb = require 'springbox'\n"
                       "local state = sb.state{ begins = 0, ends = 0 }\n"
                       "local w = sb.world{}\n"
                       "w:wall(-5, 0, 5, 0)\n"
                       "local ball = w:particle{ x = 0, y = 0.1, radius = 0.1, events = true }\n"
                       "w:spring(w:particle{ x = 3, y = 3, fixed = true }, w:particle{ x = 4, y = 3 }, { hertz = 3 })\n"
                       "return { world = w,\n"
                       "  update = function() sb.plot('begins', state.begins); sb.plot('ends', state.ends) end,\n"
                       "  on_contact_begin = function() state.begins = state.begins + 1 end,\n"
                       "  on_contact_end = function() state.ends = state.ends + 1 end }\n";
    char error[2048];
    sb_scene *s = open_text("rest.lua", text, error, sizeof error);
    ENSURE(s);
    run_frames(s, 30);
    char edited[2048];
    for (int r = 0; r < 3; ++r) {
        snprintf(edited, sizeof edited, "%s", text);
        char *hz = strstr(edited, "hertz = 3");
        ENSURE(hz);
        hz[8] = (char)('4' + r);
        write_file("rest.lua", edited);
        sb_reload_event e = sb_scene_reload(s);
        ENSURE(e.result == SB_RELOAD_KEPT);
        run_frames(s, 10);
    }
    double begins = 0, ends = 0;
    ENSURE(plot_value(s, "begins", &begins) && plot_value(s, "ends", &ends));
    printf("after three kept reloads: %g begins, %g ends\n", begins, ends);
    ENSURE(begins == 1 && ends == 0);
    sb_scene_close(s);
    return 0;
}

// on_spring_break is told what broke in readable form: a sixth argument holds its index, ends,
// rest length, tuning, force and stretch, and the broken spring's handle reads the same last
// values, in the callback and after it (the handle a designer reaches for first); a field it
// did not keep and every write say it was removed. A spring taken out with w:remove reads its last
// values too.
TEST(spring_break_callbacks_get_what_broke)
{
    const char *text = "local sb = require 'springbox'\n"
                       "local w = sb.world{}\n"
                       "local top = w:particle{ x = 0, y = 0, fixed = true }\n"
                       "local bob = w:particle{ x = 0, y = -1.25, mass = 5 }\n"
                       "w:spring(top, w:particle{ x = 2, y = 0 }, { hertz = 2 })\n"
                       "w:spring(top, bob, { hertz = 7, damping_ratio = 0.25, rest_length = 1.25, break_force = 20 })\n"
                       "local seen = {}\n"
                       "return { world = w,\n"
                       "  update = function()\n"
                       "    for k, v in pairs(seen) do if type(v) == 'number' then sb.plot(k, v) end end\n"
                       "    if seen.kept then sb.plot('later', seen.kept.rest_length) end\n"
                       "  end,\n"
                       "  on_spring_break = function(spring, a, b, force, stretch, info)\n"
                       "    seen.index = info.index; seen.rest = info.rest_length; seen.hz = info.hertz\n"
                       "    seen.zeta = info.damping_ratio; seen.hertz_mode = info.tuning == 'hertz' and 1 or 0\n"
                       "    seen.ends = (info.a == top and info.b == bob) and 1 or 0\n"
                       "    seen.same = (info.force == force and info.stretch == stretch and force > 20) and 1 or 0\n"
                       "    seen.handle = (spring.rest_length == 1.25 and spring.hertz == 7 and spring.damping_ratio == 0.25\n"
                       "      and spring.a == top and spring.b == bob and spring.index == 2 and spring.force == force\n"
                       "      and spring.tuning == 'hertz' and spring.removed and not spring.rigid) and 1 or 0\n"
                       "    local ok, err = pcall(function() return spring.length end)\n"
                       "    seen.length_refused = (not ok and err:find('spring was removed', 1, true)\n"
                       "      and err:find('length', 1, true) and err:find('rest_length', 1, true)) and 1 or 0\n"
                       "    ok, err = pcall(function() spring.hertz = 3 end)\n"
                       "    seen.write_refused = (not ok and err:find('spring was removed', 1, true)) and 1 or 0\n"
                       "    seen.kept = spring\n"
                       "    local other = w:spring(top, w:particle{ x = -2, y = 0 }, { stiffness = 0.5, damping = 0.1 })\n"
                       "    w:remove(other)\n"
                       "    seen.removed = (other.stiffness == 0.5 and other.damping == 0.1 and other.rest_length == 2\n"
                       "      and other.tuning == 'coefficients' and other.removed) and 1 or 0\n"
                       "  end }\n";
    char error[2048];
    sb_scene *s = open_text("what_broke.lua", text, error, sizeof error);
    ENSURE(s);
    run_frames(s, 60);
    double v;
    ENSURE(plot_value(s, "index", &v) && v == 2);
    ENSURE(plot_value(s, "rest", &v) && v == 1.25);
    ENSURE(plot_value(s, "hz", &v) && v == 7);
    ENSURE(plot_value(s, "zeta", &v) && v == 0.25);
    ENSURE(plot_value(s, "hertz_mode", &v) && v == 1);
    ENSURE(plot_value(s, "ends", &v) && v == 1);
    ENSURE(plot_value(s, "same", &v) && v == 1);
    ENSURE(plot_value(s, "handle", &v) && v == 1);
    ENSURE(plot_value(s, "length_refused", &v) && v == 1);
    ENSURE(plot_value(s, "write_refused", &v) && v == 1);
    ENSURE(plot_value(s, "removed", &v) && v == 1);
    ENSURE(plot_value(s, "later", &v) && v == 1.25);
    sb_scene_close(s);
    return 0;
}

// An angle's value wraps at +-pi, so a plotted joint jumped; `unwrapped` runs on: a
// free arm spun around its joint for four seconds turns through several turns with no jump.
TEST(angles_unwrap_for_plots)
{
    const char *text = "local sb = require 'springbox'\n"
                       "local w = sb.world{ gravity = {0, 0}, collisions = false }\n"
                       "local a = w:particle{ x = -1, y = 0, fixed = true }\n"
                       "local b = w:particle{ x = 0, y = 0, fixed = true }\n"
                       "local c = w:particle{ x = 1, y = 0, vy = 6 }\n"
                       "w:spring(b, c)\n"
                       "local knee = w:angle(a, b, c, { hertz = 0.01 })\n"
                       "local last, jump, wraps = nil, 0, 0\n"
                       "local lastv\n"
                       "return { world = w, update = function()\n"
                       "  local u, v = knee.unwrapped, knee.value\n"
                       "  if last then jump = math.max(jump, math.abs(u - last)) end\n"
                       "  if lastv and math.abs(v - lastv) > 3 then wraps = wraps + 1 end\n"
                       "  last, lastv = u, v\n"
                       "  sb.plot('jump', jump); sb.plot('wraps', wraps); sb.plot('u', u); sb.plot('v', v)\n"
                       "end }\n";
    char error[2048];
    sb_scene *s = open_text("unwrap.lua", text, error, sizeof error);
    ENSURE(s);
    run_frames(s, 240);
    double jump, wraps, u, v;
    ENSURE(plot_value(s, "jump", &jump) && plot_value(s, "wraps", &wraps) && plot_value(s, "u", &u) &&
           plot_value(s, "v", &v));
    printf("value wrapped %g times; unwrapped %.3f (value %.3f), largest step %.3f rad\n", wraps, u, v, jump);
    ENSURE(wraps >= 2);              // the plain value jumps...
    ENSURE(jump < 0.5);              // ...the unwrapped one never does
    ENSURE(fabs(u) > 2.0 * 3.14159); // it counts the turns
    double turns = (u - v) / 6.283185307179586;
    ENSURE(fabs(turns - round(turns)) < 1e-9);
    sb_scene_close(s);
    return 0;
}

// Series can share a panel: four chain tips plotted with the panel "tips" are drawn on
// one; a series without one keeps its own; a bad panel name is refused by name.
TEST(plot_series_share_panels)
{
    const char *text = "local sb = require 'springbox'\n"
                       "local w = sb.world{}\n"
                       "w:particle{ x = 0, y = 0 }\n"
                       "return { world = w, update = function()\n"
                       "  for k = 1, 4 do sb.plot('tip ' .. k, k, 'tips') end\n"
                       "  sb.plot('alone', 5)\n"
                       "  local ok, err = pcall(sb.plot, 'x', 1, 'bad\"panel')\n"
                       "  sb.plot('refused', (not ok and err:find('panel must be')) and 1 or 0)\n"
                       "end }\n";
    char error[2048];
    sb_scene *s = open_text("panels.lua", text, error, sizeof error);
    ENSURE(s);
    run_frames(s, 2);
    char panel[64];
    for (int k = 1; k <= 4; ++k) {
        char name[16];
        snprintf(name, sizeof name, "tip %d", k);
        sb_scene_plot_panel(s, name, panel, sizeof panel);
        ENSURE(strcmp(panel, "tips") == 0);
    }
    sb_scene_plot_panel(s, "alone", panel, sizeof panel);
    ENSURE(strcmp(panel, "alone") == 0);
    double v;
    ENSURE(plot_value(s, "refused", &v) && v == 1);
    sb_scene_close(s);
    return 0;
}

// Contact callbacks say where and how hard: a ball dropped 1.25 m onto a floor begins
// its contact at the floor under it, with the normal from the ball into the floor, at the speed
// it fell (sqrt(2 g h) = 4.95 m/s, within a frame's gravity).
TEST(contact_callbacks_say_where_and_how_hard)
{
    const char *text = "local sb = require 'springbox'\n"
                       "local w = sb.world{}\n"
                       "w:wall(-5, 0, 5, 0)\n"
                       "local ball = w:particle{ x = 0.5, y = 1.35, radius = 0.1, events = true }\n"
                       "local seen = {}\n"
                       "return { world = w,\n"
                       "  update = function() for k, v in pairs(seen) do sb.plot(k, v) end end,\n"
                       "  on_contact_begin = function(a, b, info)\n"
                       "    if seen.speed then return end\n"
                       "    seen.x, seen.y, seen.nx, seen.ny, seen.speed = info.x, info.y, info.nx, info.ny, info.speed\n"
                       "  end }\n";
    char error[2048];
    sb_scene *s = open_text("hit.lua", text, error, sizeof error);
    ENSURE(s);
    run_frames(s, 90);
    double x, y, nx, ny, speed;
    ENSURE(plot_value(s, "x", &x) && plot_value(s, "y", &y) && plot_value(s, "nx", &nx) && plot_value(s, "ny", &ny) &&
           plot_value(s, "speed", &speed));
    printf("hit at (%.3f, %.3f), normal (%.2f, %.2f), %.2f m/s (sqrt(2 g h) = %.2f)\n", x, y, nx, ny, speed,
           sqrt(2 * 9.81 * 1.25));
    ENSURE(fabs(x - 0.5) < 0.01 && fabs(y) < 0.05);
    ENSURE(fabs(nx) < 1e-6 && fabs(ny + 1.0) < 1e-6);
    ENSURE(fabs(speed - sqrt(2 * 9.81 * 1.25)) < 9.81 / 60.0 + 0.05);
    sb_scene_close(s);
    return 0;
}

// Walls can be removed and moved once made: a ball on a shelf falls to the floor when
// the shelf goes, and further when the floor moves down; a removed wall's number says so.
TEST(walls_can_be_removed_and_moved)
{
    const char *text = "local sb = require 'springbox'\n"
                       "local w = sb.world{}\n"
                       "local floor = w:wall(-5, 0, 5, 0)\n"
                       "local shelf = w:wall(-1, 2, 1, 2)\n"
                       "local ball = w:particle{ x = 0, y = 2.2, radius = 0.1 }\n"
                       "local f = 0\n"
                       "return { world = w, update = function()\n"
                       "  f = f + 1\n"
                       "  if f == 59 then sb.plot('on_shelf', ball.y) end\n"
                       "  if f == 60 then w:remove_wall(shelf) end\n"
                       "  if f == 119 then sb.plot('on_floor', ball.y) end\n"
                       "  if f == 120 then w:move_wall(floor, -5, -1, 5, -1) end\n"
                       "  if f == 130 then\n"
                       "    local ok, err = pcall(w.remove_wall, w, shelf)\n"
                       "    sb.plot('stale', (not ok and err:find('no wall 2')) and 1 or 0)\n"
                       "  end\n"
                       "  sb.plot('y', ball.y)\n"
                       "end }\n";
    char error[2048];
    sb_scene *s = open_text("walls.lua", text, error, sizeof error);
    ENSURE(s);
    run_frames(s, 200);
    double shelf, floor, y, stale;
    ENSURE(plot_value(s, "on_shelf", &shelf) && plot_value(s, "on_floor", &floor) && plot_value(s, "y", &y) &&
           plot_value(s, "stale", &stale));
    printf("on the shelf at %.3f, on the floor at %.3f, on the moved floor at %.3f\n", shelf, floor, y);
    ENSURE(fabs(shelf - 2.1) < 0.01 && fabs(floor - 0.1) < 0.01 && fabs(y + 0.9) < 0.01 && stale == 1);
    sb_scene_close(s);
    return 0;
}

// Ropes and struts break: a soft rope with break_stretch 0.1 under a heavy bob goes once
// it is 10% long, on_constraint_break hears what it was (index, kind, ends, length, stretch), and
// the bob falls; an angle cannot be given break_stretch, and says so.
TEST(ropes_break_at_their_stretch)
{
    const char *text = "local sb = require 'springbox'\n"
                       "local w = sb.world{}\n"
                       "local top = w:particle{ x = 0, y = 0, fixed = true }\n"
                       "local bob = w:particle{ x = 0, y = -1, mass = 5 }\n"
                       "w:spring(top, w:particle{ x = 1, y = 0 }, { hertz = 2 })\n"
                       "w:rope(top, bob, { hertz = 1, break_stretch = 0.1 })\n"
                       "local seen = {}\n"
                       "local ok, err = pcall(w.angle, w, top, bob, w:particle{ x = 2, y = 0 }, { break_stretch = 1 })\n"
                       "seen.angle_refused = (not ok and err:find('only ropes and struts can break')) and 1 or 0\n"
                       "return { world = w,\n"
                       "  update = function() seen.bob_y = bob.y; for k, v in pairs(seen) do sb.plot(k, v) end end,\n"
                       "  on_constraint_break = function(info)\n"
                       "    seen.index = info.index; seen.rope = info.kind == 'rope' and 1 or 0\n"
                       "    seen.ends = (info.a == top and info.b == bob) and 1 or 0\n"
                       "    seen.length = info.length; seen.stretch = info.stretch\n"
                       "  end }\n";
    char error[2048];
    sb_scene *s = open_text("rope_break.lua", text, error, sizeof error);
    ENSURE(s);
    run_frames(s, 120);
    double v, stretch, y;
    ENSURE(plot_value(s, "angle_refused", &v) && v == 1);
    ENSURE(plot_value(s, "index", &v) && v == 1);
    ENSURE(plot_value(s, "rope", &v) && v == 1);
    ENSURE(plot_value(s, "ends", &v) && v == 1);
    ENSURE(plot_value(s, "length", &v) && fabs(v - 1.0) < 1e-12);
    ENSURE(plot_value(s, "stretch", &stretch) && stretch > 0.1 && stretch < 0.2);
    ENSURE(plot_value(s, "bob_y", &y) && y < -3.0); // it fell once the rope went
    ENSURE(sb_world_constraint_count(sb_scene_world(s, 0)) == 0);
    sb_scene_close(s);
    return 0;
}

// A scene's text has a size, and a bad one is refused by name; boxes are drawn with g.rectangle
// (the view).
TEST(draw_text_has_a_size)
{
    const char *text = "local sb = require 'springbox'\n"
                       "local w = sb.world{}\n"
                       "w:particle{ x = 0, y = 0 }\n"
                       "return { world = w, draw = function(g)\n"
                       "  g.print_screen('score', 10, 10, 'big'); g.print('label', 0, 0, 'small'); g.print('plain', 0, 1)\n"
                       "  g.rectangle('fill', 1, 2, 3, 4)\n"
                       "  g.width(5); g.line(0, 0, 1, 1)\n"
                       "end }\n";
    char error[2048];
    sb_scene *s = open_text("text_size.lua", text, error, sizeof error);
    ENSURE(s);
    sb_draw_list list;
    ENSURE(sb_scene_draw(s, &list, error, sizeof error));
    ENSURE(list.count == 5);
    ENSURE(list.commands[3].width == 2.0f && list.commands[4].width == 5.0f); // g.width, default 2
    ENSURE(list.commands[0].screen && list.commands[0].big && strcmp(list.text + list.commands[0].text, "score") == 0);
    ENSURE(!list.commands[1].big && !list.commands[2].big);
    // g.rectangle: a box from its lower left corner, as four corners
    const sb_draw_command *box = &list.commands[3];
    ENSURE(box->kind == SB_DRAW_POLYGON && box->fill && box->count == 4);
    ENSURE(list.points[box->first + 2].x == 4 && list.points[box->first + 2].y == 6);
    sb_scene_close(s);
    const char *bad = "local sb = require 'springbox'\n"
                      "local w = sb.world{}\n"
                      "return { world = w, draw = function(g) g.print('x', 0, 0, 'huge') end }\n";
    s = open_text("text_bad.lua", bad, error, sizeof error);
    ENSURE(s);
    ENSURE(!sb_scene_draw(s, &list, error, sizeof error));
    ENSURE(strstr(error, "size must be \"small\" or \"big\", got \"huge\"") != NULL);
    sb_scene_close(s);
    const char *wide = "local sb = require 'springbox'\n"
                       "local w = sb.world{}\n"
                       "return { world = w, draw = function(g) g.width(100) end }\n";
    s = open_text("text_wide.lua", wide, error, sizeof error);
    ENSURE(s);
    ENSURE(!sb_scene_draw(s, &list, error, sizeof error));
    ENSURE(strstr(error, "width must be in [0.5, 64] pixels, got 100") != NULL);
    sb_scene_close(s);
    return 0;
}

static const test_entry tests[] = {
    ENTRY(scene_programs_take_input_draw_and_hear_events),
    ENTRY(callback_errors_are_shown_and_recovered_from),
    ENTRY(constraint_changes_restart_and_say_so),
    ENTRY(sandboxed_scenes_write_logs),
    ENTRY(scenes_move_the_camera_and_retitle),
    ENTRY(kept_reloads_do_not_refire_contact_events),
    ENTRY(spring_break_callbacks_get_what_broke),
    ENTRY(angles_unwrap_for_plots),
    ENTRY(plot_series_share_panels),
    ENTRY(contact_callbacks_say_where_and_how_hard),
    ENTRY(walls_can_be_removed_and_moved),
    ENTRY(ropes_break_at_their_stretch),
    ENTRY(draw_text_has_a_size),
};

int main(int argc, char **argv) { return run_in_scratch_folder(argc, argv, tests, sizeof tests / sizeof tests[0]); }
