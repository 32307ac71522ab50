// Scene host tests: a script cannot take the host down (errors, hangs, memory, bad values), and
// a fuzzer of scripts finds nothing that crashes or hangs it.
#define _DEFAULT_SOURCE
#include "sb_constraint.h"
#include "sb_input.h"
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

// ---------------------------------------------------------------- a script cannot take the host down

// A script that closes the world the host runs (from update() or from a finalizer)
// gets an error, as Lua's standard files "cannot close standard file"; the world keeps running.
TEST(scripts_cannot_close_the_running_world)
{
    char error[2048];
    sb_scene *s = open_text("close.lua",
                            "local sb = require 'springbox'\n"
                            "local w = sb.world{}\n"
                            "w:particle{ x = 0, y = 0 }\n"
                            "return { world = w, update = function(world) world:close() end }\n",
                            error, sizeof error);
    ENSURE(s);
    ENSURE(!sb_scene_frame(s, error, sizeof error));
    ENSURE(strstr(error, "cannot close a world the running scene is using") != NULL);
    for (int i = 0; i < 30; ++i)
        sb_scene_frame(s, error, sizeof error);
    ENSURE(sb_world_get_stats(sb_scene_world(s, 0))->time > 0.4);
    sb_scene_close(s);
    // A finalizer cannot be used to close it either: the sandbox has no __gc (hooks are off in
    // finalizers, so the time limit could not stop an endless one). A trusted scene's finalizer
    // that tries gets the same error, as a warning, and the world keeps running.
    s = open_text("gc.lua",
                  "local sb = require 'springbox'\nlocal w = sb.world{}\n"
                  "setmetatable({}, { __gc = function() w:close() end })\nreturn w\n",
                  error, sizeof error);
    ENSURE(s == NULL && strstr(error, "__gc finalizers are not available") != NULL);
    write_file("gc.lua", "local sb = require 'springbox'\nlocal w = sb.world{}\n"
                         "w:particle{}\n"
                         "return { world = w, update = function() setmetatable({}, { __gc = function() w:close() end }) "
                         "collectgarbage() end }\n");
    sb_scene_options o = sb_default_scene_options();
    o.path = scene_path("gc.lua");
    o.trusted = true;
    s = sb_scene_open(&o, error, sizeof error);
    ENSURE(s);
    for (int i = 0; i < 10; ++i)
        sb_scene_frame(s, error, sizeof error);
    ENSURE(sb_world_get_stats(sb_scene_world(s, 0))->time > 0.15);
    sb_scene_close(s);
    return 0;
}

// require after the load (from update) must not write into the finished load's stack frame
// (the sanitizer build catches it); it loads and is watched like any other require.
TEST(require_after_the_load)
{
    char error[2048];
    write_file("helper_mod.lua", "return { answer = 42 }\n");
    sb_scene *s = open_text("late_require.lua",
                            "local sb = require 'springbox'\n"
                            "local w = sb.world{}\n"
                            "local got\n"
                            "return { world = w, update = function()\n"
                            "  assert(not pcall(require, 'not_there'))\n"
                            "  got = require('helper_mod').answer\n"
                            "  assert(got == 42)\n"
                            "end }\n",
                            error, sizeof error);
    ENSURE(s);
    for (int i = 0; i < 5; ++i)
        ENSURE(sb_scene_frame(s, error, sizeof error));
    ENSURE(sb_scene_file_count(s) >= 3); // the scene, not_there.lua (missing), helper_mod.lua
    write_file("late_require.lua", "local sb = require 'springbox'\nreturn sb.world{}\n");
    ENSURE(sb_scene_reload(s).result != SB_RELOAD_FAILED);
    sb_scene_close(s);
    return 0;
}

// What a scene returns is read without its metamethods: an __index that raises or loops and a
// __len of 1.5 give a clear load error (or are ignored), never an abort outside a protected call.
TEST(hostile_returned_tables)
{
    const char *scenes[] = {
        "local sb = require 'springbox'\nreturn setmetatable({}, { __index = function() error('boom') end })\n",
        "local sb = require 'springbox'\nlocal t = {}\nreturn setmetatable(t, { __index = function(_, k) return t[k] end })\n",
        "local sb = require 'springbox'\nlocal w = sb.world{}\n"
        "return { world = w, worlds = setmetatable({}, { __len = function() return 1.5 end }) }\n",
        "local sb = require 'springbox'\nlocal w = sb.world{}\n"
        "return setmetatable({ world = w }, { __index = function() error('boom') end })\n",
    };
    const bool loads[] = {false, false, true, true};
    for (int i = 0; i < 4; ++i) {
        char error[2048] = "";
        sb_scene *s = open_text("hostile.lua", scenes[i], error, sizeof error);
        printf("scene %d: %s\n", i + 1, s ? "loaded" : error);
        ENSURE((s != NULL) == loads[i]);
        if (!s)
            ENSURE(strstr(error, "must return a springbox world") != NULL);
        sb_scene_close(s);
    }
    return 0;
}

// A reload after update() removed and re-added springs or particles (the same slots, new
// handles) cannot carry the state over: it restarts and says so, never "state kept".
TEST(runtime_structure_changes_restart_and_say_so)
{
    const char *kinds[] = {"spring", "particle", "both"};
    for (int k = 0; k < 3; ++k) {
        char text[1024], error[2048];
        snprintf(text, sizeof text,
                 "local sb = require 'springbox'\n"
                 "local w = sb.world{ gravity = {0, 0} }\n"
                 "local a, b = w:particle{ x = 0, y = 0 }, w:particle{ x = 1, y = 0 }\n"
                 "local s = w:spring(a, b, { hertz = %d })\n"
                 "local done = false\n"
                 "return { world = w, update = function(world)\n"
                 "  if done then return end\n"
                 "  done = true\n"
                 "  if '%s' ~= 'particle' then world:remove(s); s = world:spring(a, b, { hertz = 3 }) end\n"
                 "  if '%s' ~= 'spring' then local p = world:particle{ x = 5, y = 5 }; world:remove(p) end\n"
                 "end }\n",
                 3, kinds[k], kinds[k]);
        sb_scene *s = open_text("runtime.lua", text, error, sizeof error);
        ENSURE(s);
        run_frames(s, 10);
        char retuned[1024];
        snprintf(retuned, sizeof retuned, "%s", text);
        char *hz = strstr(retuned, "hertz = 3 })\nlocal done");
        ENSURE(hz);
        hz[8] = '4'; // hertz = 4: a tuning-only edit of the file
        write_file("runtime.lua", retuned);
        sb_reload_event e = sb_scene_reload(s);
        printf("%s: %s\n", kinds[k], e.message);
        ENSURE(e.result == SB_RELOAD_RESTARTED);
        ENSURE(strstr(e.message, "added or removed") != NULL);
        ENSURE(strstr(e.message, "state kept") == NULL);
        sb_scene_close(s);
    }
    return 0;
}

// Springs the physics broke are not the scene's doing: a reload after a spring broke
// restarts and says that it broke, not that "the running scene added or removed" springs; R (a
// forced restart) says it restarted as asked, not that the structure changed; and a save that
// changes no spring, mass or gravity is not called a tuning.
TEST(reload_messages_say_what_happened)
{
    const char *text = "local sb = require 'springbox'\n"
                       "local w = sb.world{}\n"
                       "local top = w:particle{ x = 0, y = 0, fixed = true }\n"
                       "local bob = w:particle{ x = 0, y = -1, mass = 5 }\n"
                       "w:spring(top, bob, { break_force = 1 })\n"
                       "w:spring(top, w:particle{ x = 1, y = 0 }, { hertz = 3 })\n"
                       "return { world = w }\n";
    char error[2048];
    sb_scene *s = open_text("breaks.lua", text, error, sizeof error);
    ENSURE(s);
    run_frames(s, 10);
    ENSURE(sb_world_get_stats(sb_scene_world(s, 0))->broken_springs_total == 1);
    char edited[1024];
    snprintf(edited, sizeof edited, "%s", text);
    char *hz = strstr(edited, "hertz = 3");
    ENSURE(hz);
    hz[8] = '4';
    write_file("breaks.lua", edited);
    sb_reload_event e = sb_scene_reload(s);
    printf("after a break: %s\n", e.message);
    ENSURE(e.result == SB_RELOAD_RESTARTED);
    ENSURE(strstr(e.message, "1 spring broke since it was loaded") != NULL);
    ENSURE(strstr(e.message, "added or removed") == NULL);
    sb_scene_close(s);

    const char *still = "local sb = require 'springbox'\n"
                        "local w = sb.world{ gravity = {0, 0} }\n"
                        "w:spring(w:particle{ x = 0, y = 0 }, w:particle{ x = 1, y = 0 }, { hertz = 3 })\n"
                        "return { world = w }\n";
    s = open_text("still.lua", still, error, sizeof error);
    ENSURE(s);
    run_frames(s, 5);
    char commented[1024];
    snprintf(commented, sizeof commented, "-- a comment, nothing else\n%s", still);
    write_file("still.lua", commented);
    e = sb_scene_reload(s);
    printf("a comment: %s\n", e.message);
    ENSURE(e.result == SB_RELOAD_KEPT && strstr(e.message, "tuning applied") == NULL);
    ENSURE(strstr(e.message, "no spring, mass or gravity changed") != NULL);
    e = sb_scene_restart(s);
    printf("restart: %s\n", e.message);
    ENSURE(e.result == SB_RELOAD_RESTARTED && strstr(e.message, "structure changed") == NULL);
    ENSURE(strstr(e.message, "as asked") != NULL);
    sb_scene_close(s);
    return 0;
}

// The sandbox's shared libraries are fresh and read-only for every load: one version of a
// scene cannot change ("x"):rep for the next, and string.dump is not reachable through strings.
TEST(sandbox_strings_cannot_be_poisoned)
{
    char error[2048];
    sb_scene *s = open_text("poison.lua",
                            "local sb = require 'springbox'\n"
                            "pcall(function() getmetatable('').__index.rep = function() return 'poisoned' end end)\n"
                            "assert(type(getmetatable('')) == 'string')\n"
                            "assert(('').dump == nil and not pcall(function() return string.dump end))\n"
                            "return sb.world{}\n",
                            error, sizeof error);
    if (!s)
        printf("%s\n", error);
    ENSURE(s);
    write_file("poison.lua", "local sb = require 'springbox'\nassert(('x'):rep(3) == 'xxx')\nreturn sb.world{}\n");
    sb_reload_event e = sb_scene_reload(s);
    if (e.result == SB_RELOAD_FAILED)
        printf("%s\n", e.message);
    ENSURE(e.result != SB_RELOAD_FAILED);
    sb_scene_close(s);
    // A FIFO given as the scene is refused at once instead of blocking on its read.
    char fifo[600];
    snprintf(fifo, sizeof fifo, "%s/fifo.lua", dir);
    ENSURE(mkfifo(fifo, 0600) == 0);
    sb_scene_options o = sb_default_scene_options();
    o.path = fifo;
    ENSURE(sb_scene_open(&o, error, sizeof error) == NULL);
    ENSURE(strstr(error, "not a regular file") != NULL);
    return 0;
}

// What the sandbox leaves out says so, naming --trusted; and fields of the returned
// table that springbox does not use are warned about once, with the nearest known name.
TEST(scenes_are_told_what_is_wrong)
{
    const char *reach[] = {"io.open('x')", "os.execute('true')", "string.dump(print)", "debug.traceback()",
                           "dofile('x')"};
    const char *named[] = {"'io'", "'os.execute'", "'string.dump'", "'debug'", "'dofile'"};
    for (int i = 0; i < 5; ++i) {
        char text[256], error[2048];
        snprintf(text, sizeof text, "local sb = require 'springbox'\n%s\nreturn sb.world{}\n", reach[i]);
        sb_scene *s = open_text("reach.lua", text, error, sizeof error);
        ENSURE(s == NULL);
        ENSURE(strstr(error, named[i]) && strstr(error, "--trusted") && strstr(error, "reach.lua:2:"));
    }
    char error[2048];
    sb_scene *s = open_text("fields.lua",
                            "local sb = require 'springbox'\nlocal nothing = rawget(_G, 'undefined_global')\n"
                            "assert(nothing == nil and undefined_name == nil)\n"
                            "return { world = sb.world{}, updat = function() end, colour = 1, title = 'ok' }\n",
                            error, sizeof error);
    ENSURE(s);
    printf("%s\n", sb_scene_warning(s));
    ENSURE(strstr(sb_scene_warning(s), "scene field 'updat' is not used (did you mean 'update'?)"));
    ENSURE(strstr(sb_scene_warning(s), "scene field 'colour' is not used (known:"));
    ENSURE(!strstr(sb_scene_warning(s), "'title'"));
    write_file("fields.lua", "local sb = require 'springbox'\nreturn { world = sb.world{}, update = function() end }\n");
    sb_scene_reload(s);
    ENSURE(sb_scene_warning(s)[0] == '\0'); // fixed: nothing to say
    sb_scene_close(s);
    return 0;
}

/// A scene that counts its frames in springbox.state and shows the count as particle 1's x;
/// `extra` particles change its structure, `hz` its tuning, `fail` makes the load fail after
/// touching the state.
static void write_counter(int extra, double hz, bool fail)
{
    char text[1024];
    snprintf(text, sizeof text,
             "local sb = require 'springbox'\n"
             "local state = sb.state{ frames = 0, cut = false }\n"
             "local w = sb.world{ gravity = {0, 0}, collisions = false }\n"
             "for i = 1, %d do w:particle{ x = i, y = 6 } end\n"
             "local counter = w:particle{ x = 0, y = 0, fixed = true }\n"
             "w:spring(w:particle{ x = 0, y = 1, fixed = true }, w:particle{ x = 1, y = 1 }, { hertz = %g })\n"
             "for i = 1, %d do w:particle{ x = i, y = 5 } end\n"
             "%s"
             "return { world = w, update = function() state.frames = state.frames + 1; counter.x = state.frames;"
             " assert(sb.state() == state) end }\n",
             extra < 0 ? -extra : 0, hz, extra > 0 ? extra : 0, fail ? "state.frames = -1000\nerror('after touching the state')\n" : "");
    write_file("counter.lua", text);
}

static double counter_x(sb_scene *s)
{
    sb_particle_id p = sb_null_particle();
    sb_particle_def d = {0};
    while (sb_world_next_particle(sb_scene_world(s, 0), &p)) { // the counter is the one on y = 0
        sb_particle_get(sb_scene_world(s, 0), p, &d);
        if (d.position.y == 0.0)
            break;
    }
    return d.position.x;
}

// A scene's own Lua state survives a reload that keeps the physics (a frame counter
// goes on counting), is not touched by a load that fails, and starts afresh when the scene
// restarts: the state and the physics are kept or restarted together.
TEST(scene_state_survives_reloads)
{
    char error[2048];
    write_counter(0, 4, false);
    sb_scene_options o = sb_default_scene_options();
    o.path = scene_path("counter.lua");
    sb_scene *s = sb_scene_open(&o, error, sizeof error);
    ENSURE(s);
    for (int f = 0; f < 10; ++f)
        ENSURE(sb_scene_frame(s, error, sizeof error));
    ENSURE(counter_x(s) == 10);
    write_counter(0, 6, false); // tuning only: kept
    ENSURE(sb_scene_reload(s).result == SB_RELOAD_KEPT);
    for (int f = 0; f < 5; ++f)
        ENSURE(sb_scene_frame(s, error, sizeof error));
    ENSURE(counter_x(s) == 15);
    write_counter(0, 6, true); // fails after writing the state: the running one is untouched
    ENSURE(sb_scene_reload(s).result == SB_RELOAD_FAILED);
    for (int f = 0; f < 5; ++f)
        ENSURE(sb_scene_frame(s, error, sizeof error));
    ENSURE(counter_x(s) == 20);
    write_counter(3, 6, false); // particles added after the rest: the state carries on
    ENSURE(sb_scene_reload(s).result == SB_RELOAD_KEPT);
    for (int f = 0; f < 5; ++f)
        ENSURE(sb_scene_frame(s, error, sizeof error));
    ENSURE(counter_x(s) == 25);
    write_counter(-3, 6, false); // structure changed before the rest: restarted, and so is the count
    ENSURE(sb_scene_reload(s).result == SB_RELOAD_RESTARTED);
    for (int f = 0; f < 5; ++f)
        ENSURE(sb_scene_frame(s, error, sizeof error));
    ENSURE(counter_x(s) == 5);
    sb_scene_close(s);
    return 0;
}

// ---------------------------------------------------------------- fuzzing the host

// Pieces a careless or hostile scene is made of. Each random scene is a builder, something
// done to the world while loading, and what it returns (with an update that does random harm).
static const char *const fuzz_build[] = {
    "local w = sb.world{}\n",
    "local w = sb.world{ method = 'verlet', substeps = 1, iterations = 1 }\n",
    "local w = sb.world{ method = 'force', substeps = 1000, iterations = 1000 }\n",
    "local w = sb.world{ gravity = {0, 1e8}, bounds = {-1, -1, 1, 1} }\n",
    "local w = sb.world{ dt = 1e300 }\n",
};
static const char *const fuzz_load[] = {
    "local a = w:particle{ x = 0, y = 0, fixed = true }\nlocal b = w:particle{ x = 1, y = 0 }\n"
    "local s = w:spring(a, b, { hertz = 5, damping_ratio = 0.1 })\n",
    "for i = 1, 50 do w:particle{ x = i * 0.07, y = 0, radius = 0.2 } end\n",
    "local a = w:particle{ x = 0, y = 0 }\nlocal b = w:particle{ x = 0, y = 0 }\nw:spring(a, b, { k = 1e300, c = -1 })\n",
    "w:wall(-1e308, 0, 1e308, 0)\n",
    "w:particle{ x = 0/0 }\n",
    "while true do pcall(function() while true do end end) end\n",
    "local t = {}\nfor i = 1, 1e8 do t[i] = tostring(i) end\n",
    "require('not_there')\n",
    "pcall(require, 'fuzz_helper')\n",
    "setmetatable({}, { __gc = function() w:close() end })\n",
    "w:step(1e8)\n",
    "local p = w:particle{}\nw:remove(p)\nw:remove(p)\n",
    "local a, b, c = w:particle{}, w:particle{ x = 1 }, w:particle{ y = 1 }\n"
    "w:area({ a, b, c }, { hertz = 1e6, damping_ratio = 0 })\nw:rope(a, b, { length = 0 })\nw:angle(a, b, c, { k = 1e300 })\n",
    "local r = {}\nfor i = 1, 40 do r[i] = w:particle{ x = math.cos(i), y = math.sin(i), radius = 0.3 } end\n"
    "w:area(r, { area = -5 })\nfor i = 2, 40 do w:strut(r[i - 1], r[i], { length = 3 }) end\n",
    // the surfaces: logs, require, state, constraints, error handlers, camera
    "pcall(sb.open_log, 'fuzz_dir.csv')\ncollectgarbage()\n",
    "local st = sb.state{}\nst.p = st.p or w:particle{}\nst.f = print\nst.co = coroutine.create(print)\n"
    "st.t = st.t or {}\nst.t.t = st.t\npcall(function() st.p.x = 1 end)\n",
    "local a, b, c = w:particle{}, w:particle{ x = 1 }, w:particle{ y = 1 }\nlocal k = w:angle(a, b, c, { angle = 1e12 })\n",
    "xpcall(function() while true do end end, function() while true do end end)\n",
    "xpcall(error, function() error('again') end)\n",
    "for i = 1, 1000 do pcall(require, 'fuzz_m' .. i) end\n",
    "pcall(require, 'fuzz_link')\npcall(require, 'fuzz_fifo')\n",
    "pcall(load('require(\"springbox\").tune{ a = {1, 0, 2} }', '@/etc/passwd'))\n",
    "collectgarbage('stop')\nfor i = 1, 12 do sb.plot('f' .. i, i) end\n",
    "sb.camera.look(1e12, -1e12, 1e-6)\n",
    "sb.tune{ k = {1, 0, 2}, ['odd'] = {-1, -2, 2} }\n",
    // the time machine's surfaces: snapshots and restores, a full heap, spins, odd tunables
    "local snap = w:snapshot()\nlocal q = w:particle{}\nw:restore(snap)\nlocal r = w:particle{}\nassert(r ~= q and q.removed)\n"
    "local st = sb.state{}\nst.snap = snap\nst.q = q\n",
    "for i = 1, 40 do local ok, s = pcall(w.snapshot, w); if ok then sb.state{}[i] = s end end\n",
    "local hog = {}\nwhile pcall(function() for i = 1, 1e9 do hog[#hog + 1] = { i } end end) do end\n",
    "w:particle{ spin = 1e12, rolls = true, radius = 0.1 }\nw:wall(-5, -0.1, 5, -0.1)\n",
    "sb.tune{ ['deck hz'] = {1, 0, 2}, ['%41 \\xc3\\xa9'] = {1, 0, 2}, " "a_tunable_name_of_seventy_characters_that_all_the_tools_must_keep_whole = {1, 0, 2} }\n",
    "local st = sb.state{}\nst.cells = st.cells or {}\nfor i = 1, 200000 do st.cells[i] = { i } end\n",
    "local moment = w:snapshot()\nfor i = 1, 5 do w:particle{ x = i } end\nw:restore(moment)\nw:wall(0, 0, 1, 1)\n",
};
static const char *const fuzz_update[] = {
    "function(world) world:close() end",
    "function(world) for _, p in ipairs({}) do end error('boom') end",
    "function(world) local p = world:particle{ x = math.random(), y = 1 }; world:remove(p) end",
    "function(world) local a, b = world:particle{}, world:particle{ x = 1 }; world:remove(world:spring(a, b)) end",
    "function() pcall(require, 'not_there') end",
    "function() while true do pcall(function() while true do end end) end end",
    "function(world) world:step(1e8) end",
    "function(world) for s in world:springs() do s:retune({ hertz = math.random() * 100, damping_ratio = 0.1 }, 0.2) end end",
    "function(world) for p in world:particles() do world:drag(p, 1e300, 0, 2e6) end end",
    "function(world) for p in world:particles() do p.vx = 1e12 end end",
    "function(world) world:remove(world) end",
    "function(world) for c in world:constraints() do c.hertz = math.random() * 1e4; world:remove(c) end end",
    "function() return string.rep('x', 1e9) end",
    "function() return ('a'):rep(3000):find(('.-'):rep(5) .. 'b') end",
    "function(world) local l = sb.open_log('fuzz.csv', { 'n' }); l:row(world.particle_count, {}) end",
    "function() for i = 1, 20 do sb.open_log('f' .. i .. '.txt'):write(('x'):rep(1e6)) end end",
    "function() local st = sb.state{}; if st.p then pcall(function() st.p.x = 2 end) end; if st.log then pcall(st.log.write, st.log, 'x') end end",
    "function() local st = sb.state{}; st.log = st.log or sb.open_log('fuzz_state.log') end",
    "function() xpcall(function() while true do end end, function() while true do end end) end",
    "function(world) for c in world:constraints() do pcall(function() c.angle = -1e15 end) end end",
    "function() while true do pcall(require, 'fuzz_m' .. math.random(1e9)) end end",
    "function() error('\\27[2J\\255\\0 bytes', 0) end",
    "function(world) for p in world:particles() do sb.camera.follow(p, 1e-6) end end",
    "function() for i = 1, 13 do pcall(sb.plot, 'u' .. i, i) end end",
    "function(world) local s = world:snapshot(); world:step(3); world:restore(s, { keep_tuning = true }) end",
    "function(world) local st = sb.state{}; if st.snap then pcall(world.restore, world, st.snap) end end",
    "function() local t = {} while true do t[#t + 1] = {} end end",
    "function(world) for p in world:particles() do pcall(function() p.spin = 1e12 end) end end",
    "function() local st = sb.state{}; st.f = function() end; st.m = setmetatable({}, { __index = print }) end",
    "function(world) for i = 1, 100 do pcall(sb.plot, 'p' .. math.random(1e9), i) end end",
};
static const char *const fuzz_return[] = {
    "return w\n",
    "return { world = w, keypressed = %s, draw = function(g) g.line(0, 0, 1e300, 1) end }\n",
    "return { world = w, on_spring_break = %s, on_contact_begin = %s, mousepressed = function() w:step(1e8) end }\n",
    "return { world = w, draw = %s, wheelmoved = function() while true do end end }\n",
    "return { world = w, mousemoved = function(x, y) for p in w:particles() do w:remove(p) end end, draw = function(g) for i = 1, 1e7 do g.circle('fill', 0, 0, 1) end end }\n",
    "return { world = w, update = %s }\n",
    "return setmetatable({ world = w, update = %s }, { __index = function() error('boom') end })\n",
    "return { world = w, worlds = setmetatable({ w }, { __len = function() return 1.5 end }), update = %s }\n",
    "return { world = w, worlds = { w, w, sb.world{} }, update = %s }\n",
    "return setmetatable({}, { __index = function(t, k) return t[k] end })\n",
    "return { world = 'not a world' }\n",
    "return { world = w, draw = function(g) local h = ('x'):rep(1e6) g.print(h .. h, 0, 0) g.circle('fill', 1e12, 0, 1e6) end, update = %s }\n",
    "return { world = w, on_contact_begin = %s, keypressed = function() xpcall(error, function() while true do end end) end }\n",
};

static uint64_t fuzz_state = 0x9E3779B97F4A7C15ull;
static int fuzz_pick(int n)
{
    fuzz_state ^= fuzz_state << 13;
    fuzz_state ^= fuzz_state >> 7;
    fuzz_state ^= fuzz_state << 17;
    return (int)(fuzz_state % (uint64_t)n);
}

static void fuzz_scene(char *text, size_t n)
{
#define PICK(a) a[fuzz_pick((int)(sizeof a / sizeof a[0]))]
    char ret[1024];
    snprintf(ret, sizeof ret, PICK(fuzz_return), PICK(fuzz_update), PICK(fuzz_update));
    snprintf(text, n, "local sb = require 'springbox'\n%s%s%s", PICK(fuzz_build), PICK(fuzz_load), ret);
#undef PICK
}

// Random hostile scenes, opened, run, reloaded with other random scenes and closed, with short
// limits. The sanitizer build runs it too: no crash, no memory error, no hang; every reload
// says what happened and a running scene keeps its clock moving or says why not.
// FUZZ_CASES sets the number of scenes (default 150).
TEST(fuzz_scene_host)
{
    int cases = getenv("FUZZ_CASES") ? atoi(getenv("FUZZ_CASES")) : 150;
    write_file("fuzz_helper.lua", "local sb = require 'springbox'\nreturn { world = sb.world{} }\n");
    // what the scenes reached for: a link out of the folder, a FIFO, a folder named as a log
    if (symlink("/etc/passwd", scene_path("fuzz_link.lua")) != 0 || mkfifo(scene_path("fuzz_fifo.lua"), 0644) != 0 ||
        mkdir(scene_path("fuzz_dir.csv"), 0755) != 0)
        perror("fuzz fixtures");
    int opened = 0, reloads = 0;
    for (int c = 0; c < cases; ++c) {
        char text[2048], error[2048];
        fuzz_scene(text, sizeof text);
        write_file("fuzz.lua", text);
        sb_scene_options o = sb_default_scene_options();
        o.path = scene_path("fuzz.lua");
        o.load_seconds = 0.05;
        o.update_seconds = 0.05;
        o.memory_limit = (size_t)64 << 20;
        sb_scene *s = sb_scene_open(&o, error, sizeof error);
        if (!s) {
            ENSURE(error[0] != '\0'); // a reason, always
            continue;
        }
        opened += 1;
        // the time machine: history kept each frame, gone back to and cut, the hands recorded
        sb_scene_history_enable(s, 1.0, (size_t)16 << 20, fuzz_pick(2) ? 1e9 : 1e-6);
        sb_input_log *hands = sb_input_log_create();
        for (int step = 0; step < 4; ++step) {
            for (int f = 0; f < 5; ++f) {
                sb_input_event key = {.kind = SB_INPUT_KEY, .frame = sb_scene_frames(s), .pressed = f % 2 == 0};
                snprintf(key.name, sizeof key.name, "space");
                sb_input_log_add(hands, &key);
                sb_scene_history_record(s);
                if (fuzz_pick(4) == 0 && sb_scene_history_count(s) > 0) {
                    int at = fuzz_pick(sb_scene_history_count(s));
                    sb_scene_history_go(s, at);
                    if (fuzz_pick(2))
                        sb_scene_history_cut(s, at);
                }
                (void)sb_scene_history_status(s);
                sb_draw_list list;
                sb_scene_key(s, "space", f % 2 == 0, error, sizeof error);
                sb_scene_mouse_button(s, 0.5, 0.5, 1 + f % 3, f % 2 == 0, error, sizeof error);
                sb_scene_mouse_move(s, 0.5, 0.5, 0.1, 0.1, error, sizeof error);
                sb_scene_wheel(s, 0, 1, error, sizeof error);
                sb_scene_frame(s, error, sizeof error);
                if (!sb_scene_draw(s, &list, error, sizeof error))
                    ENSURE(error[0] != '\0');
                ENSURE(list.count >= 0 && list.count <= 65536);
            }
            ENSURE(sb_scene_world_count(s) >= 1 && sb_scene_world(s, 0) != NULL);
            // the tuning history: every tunable set as a slider would, and recorded
            for (int i = 0; i < sb_scene_tunable_count(s); ++i) {
                sb_tunable t = sb_scene_tunable(s, i);
                if (!t.name)
                    continue;
                sb_input_event tune = {.kind = SB_INPUT_TUNE, .frame = sb_scene_frames(s), .value = t.min};
                snprintf(tune.name, sizeof tune.name, "%s", t.name);
                sb_input_log_add(hands, &tune);
                sb_reload_event e = sb_scene_set_tunable(s, t.name, t.min);
                ENSURE(e.message[0] != '\0');
            }
            fuzz_scene(text, sizeof text);
            write_file("fuzz.lua", text);
            sb_reload_event e = sb_scene_reload(s);
            reloads += 1;
            ENSURE(e.message[0] != '\0');
            ENSURE(e.result == SB_RELOAD_KEPT || e.result == SB_RELOAD_RESTARTED || e.result == SB_RELOAD_FAILED);
        }
        // what was recorded is read back whole and replays into the scene without harm
        char why[512];
        ENSURE(sb_input_log_write(hands, scene_path("fuzz_hands.txt"), why, sizeof why));
        sb_input_log *again = sb_input_log_read(scene_path("fuzz_hands.txt"), why, sizeof why);
        if (!again)
            printf("recording refused: %s\n", why);
        ENSURE(again && sb_input_log_count(again) == sb_input_log_count(hands));
        sb_scene_restart(s);
        for (int i = 0; i < sb_input_log_count(again); ++i) {
            sb_reload_event reload;
            sb_input_apply(s, sb_input_log_event(again, i), &reload, error, sizeof error);
            if (i % 4 == 0)
                sb_scene_frame(s, error, sizeof error);
        }
        sb_input_log_free(again);
        sb_input_log_free(hands);
        sb_scene_close(s);
    }
    printf("%d random scenes, %d opened, %d reloads\n", cases, opened, reloads);
    ENSURE(opened > 0);
    return 0;
}

static const test_entry tests[] = {
    ENTRY(scripts_cannot_close_the_running_world),
    ENTRY(require_after_the_load),
    ENTRY(hostile_returned_tables),
    ENTRY(runtime_structure_changes_restart_and_say_so),
    ENTRY(reload_messages_say_what_happened),
    ENTRY(sandbox_strings_cannot_be_poisoned),
    ENTRY(scenes_are_told_what_is_wrong),
    ENTRY(scene_state_survives_reloads),
    ENTRY(fuzz_scene_host),
};

int main(int argc, char **argv) { return run_in_scratch_folder(argc, argv, tests, sizeof tests / sizeof tests[0]); }
