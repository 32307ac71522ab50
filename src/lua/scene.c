// The scene host: sandboxed loading, hot reload with state carried over, tuning ramps,
// file watching. See sb_scene.h.
#define _POSIX_C_SOURCE 200809L
#include "scene_internal.h"

#include "sb_lua.h"
#include "sb_pattern.h"
#include "sb_tune_source.h"
#include "sb_tuning.h"

#include <lauxlib.h>
#include <lualib.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>


// ---------------------------------------------------------------- small helpers

static double monotonic_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static char *copy_string(const char *s)
{
    size_t n = strlen(s) + 1;
    char *c = malloc(n);
    if (c)
        memcpy(c, s, n);
    return c;
}

static sb_reload_event make_event(sb_reload_result r, const char *fmt, const char *detail)
{
    sb_reload_event e;
    memset(&e, 0, sizeof e);
    e.result = r;
    snprintf(e.message, sizeof e.message, fmt, detail ? detail : "");
    scene_clean_text(e.message);
    return e;
}

// ---------------------------------------------------------------- Lua state: memory and time limits

static void *limited_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
    sb_scene *scene = (sb_scene *)ud;
    size_t old = ptr ? osize : 0;
    if (nsize == 0) {
        free(ptr);
        scene->memory -= old;
        return NULL;
    }
    if (nsize > old && scene->memory - old + nsize > scene->opt.memory_limit)
        return NULL; // Lua raises "not enough memory"; the process lives on
    // A call past its time limit gets no more memory, so it ends now (protected_call then
    // reports the time limit, the cause): with a big heap Lua spends its time in collections,
    // where no hook runs (a memory bomb ran 40 s past a 10 s limit under the sanitizers, issue 20).
    // The clock is read only for allocations of 4 KiB and more, or once the heap is past 64 MiB.
    // Each refusal costs Lua a full emergency collection, so once one was refused, the error's
    // own handling (its message, the traceback) gets 1 MiB more before the next.
    if (nsize > old && scene->deadline_what && (nsize >= 4096 || scene->memory > ((size_t)64 << 20)) &&
        (!scene->starved_at || scene->memory - old + nsize > scene->starved_at + ((size_t)1 << 20)) &&
        monotonic_seconds() > scene->deadline) {
        scene->starved_at = scene->memory;
        return NULL;
    }
    void *p = realloc(ptr, nsize);
    if (p)
        scene->memory = scene->memory - old + nsize;
    return p;
}

/// The one message for a scene past its time limit, wherever it is caught.
static int deadline_error(lua_State *L, const sb_scene *scene)
{
    return luaL_error(L, "%s took longer than its limit of %f s (an endless loop?)", scene->deadline_what,
                      scene->deadline_limit);
}

static bool past_deadline(const sb_scene *scene) { return scene->deadline_what && monotonic_seconds() > scene->deadline; }

static void pattern_guard(lua_State *L, void *ud)
{
    const sb_scene *scene = (const sb_scene *)ud;
    if (past_deadline(scene))
        luaL_error(L, "%s took longer than its limit of %f s (in a string pattern match)", scene->deadline_what,
                   scene->deadline_limit);
}

static void deadline_hook(lua_State *L, lua_Debug *ar)
{
    (void)ar;
    void *ud;
    lua_getallocf(L, &ud);
    sb_scene *scene = (sb_scene *)ud;
    if (past_deadline(scene))
        deadline_error(L, scene);
}

/// springbox's world:step asks this between frames and sub-steps (sb_lua_set_guard).
static bool step_guard(void *ud, char *message, size_t size)
{
    const sb_scene *scene = (const sb_scene *)ud;
    if (!past_deadline(scene))
        return false;
    snprintf(message, size, "%s took longer than its limit of %g s (in world:step)", scene->deadline_what,
             scene->deadline_limit);
    return true;
}

static int traceback_handler(lua_State *L)
{
    const char *msg = lua_tostring(L, 1);
    if (!msg)
        msg = lua_pushfstring(L, "(error object is a %s value)", luaL_typename(L, 1));
    luaL_traceback(L, L, msg, 1);
    return 1;
}

/// Copies a Lua error into `error`, with the text of the line it names after its first line:
/// "scene.lua:3: syntax error near 'sb'" gains "    3 | locl sb = require 'springbox'", so a
/// designer sees what Lua saw without opening the file. The text comes from what the host loaded
/// for the scene (the registry's "springbox.sources"), never from a file the message names: a
/// chunk name or a traceback can name any file (issue 20). Control bytes and bytes that are not
/// UTF-8 become '?', so the message is safe for a terminal and for --stats.
static void error_with_source_line(lua_State *L, const char *message, char *error, size_t error_size)
{
    snprintf(error, error_size, "%s", message);
    scene_clean_text(error);
    // the location Lua writes first: "<file>:<line>:", the file up to the first ":<digits>:"
    const char *colon = message;
    long line = 0;
    while ((colon = strchr(colon, ':')) != NULL) {
        char *end;
        line = strtol(colon + 1, &end, 10);
        if (end > colon + 1 && *end == ':' && line > 0)
            break;
        colon += 1;
    }
    if (!colon || colon == message || (size_t)(colon - message) >= 1024 || memchr(message, '\n', (size_t)(colon - message)))
        return;
    lua_getfield(L, LUA_REGISTRYINDEX, "springbox.sources");
    lua_pushfstring(L, "@%s", lua_pushlstring(L, message, (size_t)(colon - message)));
    size_t len = 0;
    const char *source = lua_istable(L, -3) && lua_rawget(L, -3) == LUA_TSTRING ? lua_tolstring(L, -1, &len) : NULL;
    char text[512] = "";
    bool found = false;
    if (source) {
        const char *at = source + sb_text_line_start(source, len, line), *end = source + len;
        if (at < end) {
            size_t take = strcspn(at, "\r\n");
            take = take < (size_t)(end - at) ? take : (size_t)(end - at);
            take = take < sizeof text - 1 ? take : sizeof text - 1;
            memcpy(text, at, take);
            text[take] = '\0';
            found = true;
        }
    }
    lua_pop(L, 3);
    if (!found)
        return;
    for (char *t = text; *t; ++t)
        if (*t == '\t')
            *t = ' ';
    scene_clean_text(text);
    size_t first = strcspn(error, "\n");
    char rest[4096];
    snprintf(rest, sizeof rest, "%s", error + first);
    snprintf(error + first, error_size - first, "\n%6ld | %.200s%s", line, text, rest);
}

// Calls the function below `nargs` arguments with a traceback handler and a wall-clock limit.
bool protected_call(sb_scene *scene, int nargs, int nresults, double limit, const char *what,
                           char *error, size_t error_size)
{
    int base = lua_gettop(scene->L) - nargs;
    lua_pushcfunction(scene->L, traceback_handler);
    lua_insert(scene->L, base);
    scene->deadline = monotonic_seconds() + limit;
    scene->starved_at = 0;
    scene->deadline_what = what;
    scene->deadline_limit = limit;
    int rc = lua_pcall(scene->L, nargs, nresults, base);
    bool late = monotonic_seconds() > scene->deadline;
    scene->deadline_what = NULL; // no call running: nothing is past a limit
    lua_remove(scene->L, base);
    if (rc != LUA_OK && late && rc == LUA_ERRMEM) { // out of memory because it ran out of time
        snprintf(error, error_size, "%s took longer than its limit of %g s (it was still allocating memory)", what, limit);
        lua_pop(scene->L, 1);
        return false;
    }
    if (rc != LUA_OK) {
        error_with_source_line(scene->L, lua_tostring(scene->L, -1) ? lua_tostring(scene->L, -1) : "error", error, error_size);
        lua_pop(scene->L, 1);
        return false;
    }
    return true;
}

// ---------------------------------------------------------------- sandbox

/// Takes what the file looks like on disk now as seen (size -1 and no time when it is gone).
static void watch_stat(watched_file *f)
{
    struct stat st;
    f->size = -1;
    memset(&f->mtime, 0, sizeof f->mtime);
    if (stat(f->path, &st) == 0) {
        f->mtime = st.st_mtim;
        f->size = (long long)st.st_size;
    }
    f->pending_since = 0.0;
}

/// Watches `path` for this build: once per path, and at most SCENE_WATCH_MAX files (a require
/// in a loop of ever new names must not grow the list, and every frame stats each one).
static void record_file(scene_build *b, const char *path)
{
    for (int i = 0; i < b->file_count; ++i)
        if (strcmp(b->files[i].path, path) == 0)
            return;
    if (b->file_count >= SCENE_WATCH_MAX)
        return;
    watched_file *f = realloc(b->files, sizeof *f * (size_t)(b->file_count + 1));
    if (!f)
        return;
    b->files = f;
    f = &b->files[b->file_count];
    memset(f, 0, sizeof *f);
    if (!(f->path = copy_string(path)))
        return;
    b->file_count += 1;
    watch_stat(f);
}

/// Loads the scene file or a module as a text chunk named "@path": read whole through
/// scene_read_file (a regular file; with `real_dir`, one inside that folder), kept in the
/// registry's "springbox.sources" for error lines and slider order, then compiled. Like
/// luaL_loadfile it skips a UTF-8 byte order mark and a first line starting with '#'. Pushes
/// the function, or an error message; returns the lua_load status.
static int load_source(sb_scene *scene, const char *path, const char *real_dir)
{
    lua_State *L = scene->L;
    char *text, why[512];
    size_t len;
    if (!scene_read_file(real_dir, path, SCENE_SOURCE_MAX, &text, &len, why, sizeof why)) {
        lua_pushfstring(L, "cannot read %s: %s", path, why);
        return LUA_ERRFILE;
    }
    const char *code = text;
    if (len >= 3 && memcmp(code, "\xEF\xBB\xBF", 3) == 0)
        code += 3;
    if (*code == '#') // keep its newline, so line numbers stay
        code += strcspn(code, "\n");
    const char *chunk = lua_pushfstring(L, "@%s", path);
    lua_getfield(L, LUA_REGISTRYINDEX, "springbox.sources");
    lua_pushvalue(L, -2);
    lua_pushlstring(L, text, len);
    lua_rawset(L, -3);
    lua_pop(L, 1);
    int rc = luaL_loadbufferx(L, code, len - (size_t)(code - text), chunk, "t");
    lua_remove(L, -2); // the chunk name
    free(text);
    return rc;
}

// require inside a sandboxed scene: "springbox", or a Lua file next to the scene
// (dots become slashes), run in the same sandbox and watched for reloads.
static int sandbox_require(lua_State *L)
{
    const char *name = luaL_checkstring(L, 1);
    sb_scene *scene = (sb_scene *)lua_touserdata(L, lua_upvalueindex(1));
    // A require while the file loads belongs to that build; one from update() or a callback
    // later belongs to the running build (never to a finished load's stack frame).
    scene_build *b = scene->loading ? scene->loading : &scene->cur;
    if (strcmp(name, "springbox") == 0) {
        // A fresh copy per require, so a script that overwrites a module field cannot
        // change what the next reload sees.
        luaL_getsubtable(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);
        lua_getfield(L, -1, "springbox");
        lua_newtable(L);
        lua_pushnil(L);
        while (lua_next(L, -3)) {
            lua_pushvalue(L, -2);
            lua_insert(L, -2);
            lua_settable(L, -4);
        }
        return 1;
    }
    for (const char *c = name; *c; ++c)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '_' || *c == '.'))
            return luaL_argerror(L, 1, lua_pushfstring(L, "module name '%s' may only hold letters, digits, '_' and '.'", name));
    // per-load cache
    lua_pushvalue(L, lua_upvalueindex(3));
    if (lua_getfield(L, -1, name) != LUA_TNIL)
        return 1;
    lua_pop(L, 1);
    luaL_Buffer path;
    luaL_buffinit(L, &path);
    luaL_addstring(&path, scene->dir);
    luaL_addchar(&path, '/');
    for (const char *c = name; *c; ++c)
        luaL_addchar(&path, *c == '.' ? '/' : *c);
    luaL_addstring(&path, ".lua");
    luaL_pushresult(&path);
    const char *file = lua_tostring(L, -1);
    record_file(b, file);
    // inside the scene's folder, links resolved: a module is never a way out of it
    if (load_source(scene, file, scene->real_dir ? scene->real_dir : scene->dir) != LUA_OK)
        return lua_error(L);
    lua_pushvalue(L, lua_upvalueindex(2)); // the sandbox environment
    lua_setupvalue(L, -2, 1);
    lua_pushstring(L, name);
    lua_call(L, 1, 1);
    if (lua_isnil(L, -1)) {
        lua_pop(L, 1);
        lua_pushboolean(L, 1);
    }
    lua_pushvalue(L, -1);
    lua_setfield(L, -4, name);
    return 1;
}

// load() inside the sandbox: text only, and the sandbox as the default environment.
static int sandbox_load(lua_State *L)
{
    size_t len;
    const char *chunk = luaL_checklstring(L, 1, &len);
    const char *chunkname = luaL_optstring(L, 2, "=(load)");
    if (luaL_loadbufferx(L, chunk, len, chunkname, "t") != LUA_OK) {
        lua_pushnil(L);
        lua_insert(L, -2);
        return 2;
    }
    lua_pushvalue(L, lua_isnoneornil(L, 4) ? lua_upvalueindex(1) : 4);
    lua_setupvalue(L, -2, 1);
    return 1;
}

static void copy_library(lua_State *L, int env, const char *lib, const char *const *only)
{
    lua_getglobal(L, lib);
    int src = lua_gettop(L);
    lua_newtable(L);
    if (only) {
        for (const char *const *f = only; *f; ++f) {
            lua_getfield(L, src, *f);
            lua_setfield(L, -2, *f);
        }
    } else {
        lua_pushnil(L);
        while (lua_next(L, src)) {
            lua_pushvalue(L, -2);
            lua_insert(L, -2);
            lua_settable(L, -4);
        }
    }
    lua_setfield(L, env, lib);
    lua_pop(L, 1);
}

// Pushes the environment a scene runs in. Untrusted scenes get the pure parts of the
// standard library: no io, no os.execute/remove/exit/getenv, no package/loadlib, no
// dofile/loadfile, no string.dump, and load() limited to text chunks.
// pcall, xpcall and coroutine.resume in the sandbox: as the originals, except that a scene past
// its time limit cannot swallow the limit's error (while true do pcall(loop) end stops too).
static int protected_finish(lua_State *L, int status, lua_KContext ctx)
{
    (void)status;
    const sb_scene *scene = (const sb_scene *)ctx;
    if (!lua_toboolean(L, 1) && past_deadline(scene))
        return deadline_error(L, scene);
    return lua_gettop(L);
}

static int sandbox_protected(lua_State *L)
{
    sb_scene *scene = (sb_scene *)lua_touserdata(L, lua_upvalueindex(1));
    lua_pushvalue(L, lua_upvalueindex(2)); // the original
    lua_insert(L, 1);
    lua_callk(L, lua_gettop(L) - 1, LUA_MULTRET, (lua_KContext)scene, protected_finish);
    return protected_finish(L, LUA_OK, (lua_KContext)scene);
}

// xpcall's message handler, guarded: past the time limit it is not called. The limit's error is
// raised from the count hook, where Lua runs the handler with hooks off, so a handler that
// loops could never be stopped (issue 20). Upvalues: the scene, the scene's handler.
static int guarded_message_handler(lua_State *L)
{
    const sb_scene *scene = (const sb_scene *)lua_touserdata(L, lua_upvalueindex(1));
    if (past_deadline(scene)) {
        lua_settop(L, 1);
        return 1;
    }
    lua_pushvalue(L, lua_upvalueindex(2));
    lua_insert(L, 1);
    lua_call(L, lua_gettop(L) - 1, 1);
    return 1;
}

static int sandbox_xpcall(lua_State *L)
{
    if (lua_type(L, 2) == LUA_TFUNCTION) { // anything else: the original says what is wrong
        lua_pushvalue(L, lua_upvalueindex(1));
        lua_pushvalue(L, 2);
        lua_pushcclosure(L, guarded_message_handler, 2);
        lua_replace(L, 2);
    }
    return sandbox_protected(L);
}

// setmetatable in the sandbox: no __gc. Lua runs finalizers with hooks off, so an endless loop
// in one could never be stopped by the time limit.
static int sandbox_setmetatable(lua_State *L)
{
    if (lua_istable(L, 2)) {
        lua_pushliteral(L, "__gc");
        if (lua_rawget(L, 2) != LUA_TNIL)
            return luaL_argerror(L, 2, "__gc finalizers are not available to sandboxed scenes (the time limit could not "
                                       "stop one; --trusted allows them)");
        lua_pop(L, 1);
    }
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, lua_gettop(L) - 1, LUA_MULTRET);
    return lua_gettop(L);
}

/// Replaces env[name] (or env.lib[name]) with `fn` closed over the scene and the original.
static void wrap_function(lua_State *L, sb_scene *scene, int env, const char *lib, const char *name, lua_CFunction fn)
{
    int table = env;
    if (lib) {
        lua_getfield(L, env, lib);
        table = lua_gettop(L);
    }
    lua_pushlightuserdata(L, scene);
    lua_getfield(L, table, name);
    lua_pushcclosure(L, fn, 2);
    lua_setfield(L, table, name);
    if (lib)
        lua_pop(L, 1);
}

// A sandboxed scene that reaches for what the sandbox leaves out gets an error naming --trusted,
// not a bare nil: `io`, `debug`, `package`, `dofile`, `loadfile` as globals, and the missing
// members of `os` and `string`. Upvalue 1: what the table holds ("" for the globals, else "os.").
static int sandbox_missing(lua_State *L)
{
    static const char *const removed[] = {
        "io", "debug", "package", "dofile", "loadfile", "execute", "remove", "exit", "getenv", "rename",
        "tmpname", "setlocale", "dump", NULL,
    };
    const char *key = lua_tostring(L, 2);
    for (const char *const *r = removed; key && *r; ++r)
        if (strcmp(key, *r) == 0)
            return luaL_error(L, "'%s%s' is not available to sandboxed scenes: run springbox with --trusted to give "
                                 "the scene the full standard library%s",
                              lua_tostring(L, lua_upvalueindex(1)), key,
                              strcmp(key, "io") == 0 ? ", or write a file next to the scene with springbox.open_log(name)"
                                                     : "");
    return 0; // any other missing name reads nil, as usual
}

/// Gives the table at `t` an __index that names what the sandbox left out.
static void say_what_is_missing(lua_State *L, int t, const char *prefix)
{
    t = lua_absindex(L, t);
    lua_newtable(L);
    lua_pushstring(L, prefix);
    lua_pushcclosure(L, sandbox_missing, 1);
    lua_setfield(L, -2, "__index");
    lua_setmetatable(L, t);
}

static const char *const string_safe[] = {
    "byte", "char", "find", "format", "gmatch", "gsub", "len", "lower", "match", "rep", "reverse",
    "sub", "upper", "pack", "packsize", "unpack", NULL,
};

static void push_environment(sb_scene *scene)
{
    lua_State *L = scene->L;
    if (scene->opt.trusted) {
        lua_pushglobaltable(L);
        return;
    }
    lua_newtable(L);
    int env = lua_gettop(L);
    static const char *const safe_globals[] = {
        "assert", "error", "ipairs", "next", "pairs", "pcall", "print", "rawequal", "rawget", "rawlen",
        "rawset", "select", "setmetatable", "getmetatable", "tonumber", "tostring", "type", "xpcall",
        "_VERSION", "collectgarbage", NULL,
    };
    for (const char *const *g = safe_globals; *g; ++g) {
        lua_getglobal(L, *g);
        lua_setfield(L, env, *g);
    }
    copy_library(L, env, "math", NULL);
    copy_library(L, env, "table", NULL);
    copy_library(L, env, "utf8", NULL);
    copy_library(L, env, "coroutine", NULL);
    wrap_function(L, scene, env, NULL, "pcall", sandbox_protected);
    wrap_function(L, scene, env, NULL, "xpcall", sandbox_xpcall);
    wrap_function(L, scene, env, "coroutine", "resume", sandbox_protected);
    lua_getglobal(L, "setmetatable");
    lua_pushcclosure(L, sandbox_setmetatable, 1);
    lua_setfield(L, env, "setmetatable");
    copy_library(L, env, "string", string_safe);
    static const char *const os_safe[] = {"clock", "time", "date", "difftime", NULL};
    copy_library(L, env, "os", os_safe);
    say_what_is_missing(L, env, "");
    lua_getfield(L, env, "os");
    say_what_is_missing(L, -1, "os.");
    lua_pop(L, 1);
    lua_getfield(L, env, "string");
    say_what_is_missing(L, -1, "string.");
    lua_pop(L, 1);
    lua_pushvalue(L, env);
    lua_setfield(L, env, "_G");
    lua_pushvalue(L, env);
    lua_pushcclosure(L, sandbox_load, 1);
    lua_setfield(L, env, "load");
    lua_pushlightuserdata(L, scene);
    lua_pushvalue(L, env);
    lua_newtable(L); // modules loaded by this run
    lua_pushcclosure(L, sandbox_require, 3);
    lua_setfield(L, env, "require");
}

// ---------------------------------------------------------------- building

/// Retires the worlds of `gone` that `stays` does not hold: a reload replaced them, so their
/// handles (kept in springbox.state, say) must say they are stale instead of writing to a
/// world nobody steps (issue 20).
static void retire_worlds(sb_scene *scene, const scene_build *gone, const scene_build *stays)
{
    for (int i = 0; i < gone->world_count; ++i) {
        bool kept = false;
        for (int k = 0; stays && k < stays->world_count && !kept; ++k)
            kept = stays->worlds[k] == gone->worlds[i];
        if (kept)
            continue;
        lua_rawgeti(scene->L, LUA_REGISTRYINDEX, gone->world_refs[i]);
        sb_lua_retire_world(scene->L, -1);
        lua_pop(scene->L, 1);
    }
}

static void build_free(sb_scene *scene, scene_build *b)
{
    if (scene->L) {
        luaL_unref(scene->L, LUA_REGISTRYINDEX, b->table_ref);
        luaL_unref(scene->L, LUA_REGISTRYINDEX, b->update_ref);
        for (int i = 0; i < b->world_count; ++i) {
            lua_rawgeti(scene->L, LUA_REGISTRYINDEX, b->world_refs[i]);
            sb_lua_pin_world(scene->L, -1, false);
            lua_pop(scene->L, 1);
            luaL_unref(scene->L, LUA_REGISTRYINDEX, b->world_refs[i]);
        }
    }
    for (int i = 0; i < b->file_count; ++i)
        free(b->files[i].path);
    free(b->files);
    free(b->worlds);
    free(b->world_refs);
    free(b->title);
    free(b->warning);
    memset(b, 0, sizeof *b);
    b->table_ref = b->update_ref = LUA_NOREF;
}

// Adds the world userdata at idx to the build; false if it is not a live world.
static bool build_add_world(sb_scene *scene, scene_build *b, int idx)
{
    sb_world *w = sb_lua_to_world(scene->L, idx);
    if (!w)
        return false;
    for (int i = 0; i < b->world_count; ++i)
        if (b->worlds[i] == w)
            return true;
    sb_world **ws = realloc(b->worlds, sizeof *ws * (size_t)(b->world_count + 1));
    int *refs = realloc(b->world_refs, sizeof *refs * (size_t)(b->world_count + 1));
    if (ws)
        b->worlds = ws;
    if (refs)
        b->world_refs = refs;
    if (!ws || !refs)
        return false;
    lua_pushvalue(scene->L, idx);
    sb_lua_pin_world(scene->L, -1, true); // the host steps it: no script may close it
    b->world_refs[b->world_count] = luaL_ref(scene->L, LUA_REGISTRYINDEX);
    b->worlds[b->world_count++] = w;
    return true;
}

/// Letters to change to turn a into b (Levenshtein), for "did you mean".
static int edit_distance(const char *a, const char *b)
{
    int la = (int)strlen(a), lb = (int)strlen(b), row[64];
    if (la > 62 || lb > 62)
        return 99;
    for (int j = 0; j <= lb; ++j)
        row[j] = j;
    for (int i = 1; i <= la; ++i) {
        int diag = row[0];
        row[0] = i;
        for (int j = 1; j <= lb; ++j) {
            int up = row[j], best = diag + (a[i - 1] != b[j - 1]);
            best = best < up + 1 ? best : up + 1;
            best = best < row[j - 1] + 1 ? best : row[j - 1] + 1;
            diag = up;
            row[j] = best;
        }
    }
    return row[lb];
}

/// The fields of the returned scene table that springbox does not use, each with the nearest
/// known name when one is close: "scene field 'updat' is not used (did you mean 'update'?)".
/// NULL when there are none. Read raw, like the rest of the table.
static char *unknown_fields(lua_State *L, int t, const char *path)
{
    static const char *const base[] = {"world", "worlds", "title", "update", "tune"};
    const char *known[sizeof base / sizeof base[0] + SCENE_CALLBACK_COUNT + 1];
    size_t nk = 0;
    for (size_t i = 0; i < sizeof base / sizeof base[0]; ++i)
        known[nk++] = base[i];
    for (int i = 0; i < SCENE_CALLBACK_COUNT; ++i)
        known[nk++] = scene_callback_names[i];
    known[nk] = NULL;
    char text[1024] = "";
    size_t used = 0;
    lua_pushnil(L);
    while (lua_next(L, t)) {
        lua_pop(L, 1);
        if (lua_type(L, -1) != LUA_TSTRING)
            continue;
        const char *key = lua_tostring(L, -1), *nearest = NULL;
        bool is_known = false;
        int best = 3;
        for (const char *const *k = known; *k; ++k) {
            int d = edit_distance(key, *k);
            is_known = is_known || d == 0;
            if (d < best) {
                best = d;
                nearest = *k;
            }
        }
        if (is_known || used >= sizeof text - 1)
            continue;
        int n = nearest ? snprintf(text + used, sizeof text - used, "%sscene field '%s' is not used (did you mean '%s'?)",
                                   used ? "; " : "", key, nearest)
                        : snprintf(text + used, sizeof text - used, "%sscene field '%s' is not used (known: world, "
                                   "worlds, title, update, tune, the callbacks in README)", used ? "; " : "", key);
        used += n > 0 ? (size_t)n : 0;
        used = used < sizeof text ? used : sizeof text - 1;
    }
    if (!used)
        return NULL;
    const char *slash = strrchr(path, '/');
    size_t size = strlen(text) + strlen(path) + 4;
    char *w = malloc(size);
    if (w)
        snprintf(w, size, "%s: %s", slash ? slash + 1 : path, text);
    return w;
}

/// lua_getfield without metamethods: pushes t[k] by rawget and returns its type.
static int lua_getfield_raw(lua_State *L, int t, const char *k)
{
    t = lua_absindex(L, t);
    lua_pushstring(L, k);
    return lua_rawget(L, t);
}

// Runs the scene file and checks what it returned. On failure fills `error`.
static bool build_scene(sb_scene *scene, scene_build *b, char *error, size_t error_size)
{
    lua_State *L = scene->L;
    memset(b, 0, sizeof *b);
    b->table_ref = b->update_ref = LUA_NOREF;
    record_file(b, scene->path);
    // Tunables declared by this run start empty; so does its springbox.state (springbox.state).
    lua_newtable(L);
    lua_setfield(L, LUA_REGISTRYINDEX, "springbox.tunables");
    lua_pushnil(L);
    lua_setfield(L, LUA_REGISTRYINDEX, "springbox.state.next");
    int top = lua_gettop(L);
    b->version = ++scene->versions;
    lua_pushnil(L);
    lua_setfield(L, LUA_REGISTRYINDEX, "springbox.state.dropped");
    lua_pushnil(L);
    lua_setfield(L, LUA_REGISTRYINDEX, "springbox.state.dropped_name");
    // Each run starts with the collector as the host set it: one version's collectgarbage("stop")
    // or ("generational") is not the next one's.
    lua_gc(L, LUA_GCRESTART);
    lua_gc(L, LUA_GCINC, 0, 0, 0);
    if (load_source(scene, scene->path, NULL) != LUA_OK) { // the designer named it: anywhere, but a regular file
        error_with_source_line(L, lua_tostring(L, -1), error, error_size);
        lua_settop(L, top);
        return false;
    }
    push_environment(scene);
    lua_setupvalue(L, -2, 1);
    scene->loading = b;
    lua_pushboolean(L, 1);
    lua_setfield(L, LUA_REGISTRYINDEX, "springbox.loading");
    bool loaded = protected_call(scene, 0, 1, scene->opt.load_seconds, "loading the scene", error, error_size);
    scene->loading = NULL;
    lua_pushboolean(L, 0);
    lua_setfield(L, LUA_REGISTRYINDEX, "springbox.loading");
    if (!loaded) { // a failed load's state goes with it
        lua_pushnil(L);
        lua_setfield(L, LUA_REGISTRYINDEX, "springbox.state.next");
    }
    if (!loaded) {
        lua_settop(L, top);
        return false;
    }
    // What the file returned is read raw: its metamethods (__index, __len) could raise or loop,
    // and this runs outside any protected call.
    int result = lua_gettop(L);
    if (sb_lua_to_world(L, result)) {
        build_add_world(scene, b, result);
        lua_createtable(L, 0, 1);
        lua_pushvalue(L, result);
        lua_setfield(L, -2, "world");
        lua_replace(L, result);
    } else if (lua_istable(L, result)) {
        lua_getfield_raw(L, result, "world");
        bool ok = build_add_world(scene, b, -1);
        lua_pop(L, 1);
        if (lua_getfield_raw(L, result, "worlds") == LUA_TTABLE) {
            lua_Integer n = (lua_Integer)lua_rawlen(L, -1);
            for (lua_Integer i = 1; i <= n; ++i) {
                lua_rawgeti(L, -1, i);
                if (!build_add_world(scene, b, -1)) {
                    snprintf(error, error_size, "%s: scene field 'worlds' must hold open springbox worlds; item %d is a %s",
                             scene->path, (int)i, luaL_typename(L, -1));
                    lua_settop(L, top);
                    return false;
                }
                lua_pop(L, 1);
            }
            ok = ok || b->world_count > 0;
        }
        lua_pop(L, 1);
        if (!ok) {
            lua_getfield_raw(L, result, "world");
            snprintf(error, error_size, "%s: the scene must return a springbox world or a table with field 'world' (a springbox world), got %s for 'world'",
                     scene->path, luaL_typename(L, -1));
            lua_settop(L, top);
            return false;
        }
        int t = lua_getfield_raw(L, result, "update");
        if (t == LUA_TFUNCTION) {
            b->update_ref = luaL_ref(L, LUA_REGISTRYINDEX);
        } else {
            lua_pop(L, 1);
            if (t != LUA_TNIL) {
                snprintf(error, error_size, "%s: scene field 'update' must be a function, got %s", scene->path, lua_typename(L, t));
                lua_settop(L, top);
                return false;
            }
        }
        if (lua_getfield_raw(L, result, "title") == LUA_TSTRING)
            b->title = copy_string(lua_tostring(L, -1));
        lua_pop(L, 1);
        if (!scene_check_callbacks(scene, result, error, error_size)) {
            lua_settop(L, top);
            return false;
        }
        // Tunables listed in the returned table count as declared too.
        if (lua_getfield_raw(L, result, "tune") == LUA_TTABLE) {
            lua_getfield(L, LUA_REGISTRYINDEX, "springbox.tunables");
            lua_pushnil(L);
            while (lua_next(L, -3)) {
                if (lua_type(L, -2) == LUA_TSTRING && lua_istable(L, -1)) {
                    lua_pushvalue(L, -2);
                    if (lua_rawget(L, -4) == LUA_TNIL) {
                        lua_pop(L, 1);
                        lua_pushvalue(L, -2);
                        lua_pushvalue(L, -2);
                        lua_rawset(L, -5);
                    } else {
                        lua_pop(L, 1);
                    }
                }
                lua_pop(L, 1);
            }
            lua_pop(L, 1);
        }
        lua_pop(L, 1);
    } else {
        snprintf(error, error_size, "%s: the scene must return a springbox world or a table with field 'world', got %s",
                 scene->path, luaL_typename(L, result));
        lua_settop(L, top);
        return false;
    }
    if (lua_istable(L, -1))
        b->warning = unknown_fields(L, lua_gettop(L), scene->path);
    lua_getfield(L, LUA_REGISTRYINDEX, "springbox.state.dropped");
    lua_Integer dropped = lua_tointeger(L, -1);
    lua_getfield(L, LUA_REGISTRYINDEX, "springbox.state.dropped_name");
    if (dropped > 0 && lua_isstring(L, -1)) { // said beside the unknown fields, once per load
        char note[512];
        snprintf(note, sizeof note, "%s%s%s and %d other functions or coroutines: springbox.state carries data "
                                    "across a reload, not code, so they were left out",
                 b->warning ? b->warning : "", b->warning ? "; " : "", lua_tostring(L, -1), (int)dropped - 1);
        free(b->warning);
        b->warning = copy_string(note);
    }
    lua_pop(L, 2);
    b->table_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    if (!b->title) {
        const char *slash = strrchr(scene->path, '/');
        b->title = copy_string(slash ? slash + 1 : scene->path);
    }
    if (b->title) // what a scene names goes to a terminal and to --stats: printable UTF-8 only
        scene_clean_text(b->title);
    if (b->warning)
        scene_clean_text(b->warning);
    lua_settop(L, top);
    return true;
}

// ---------------------------------------------------------------- structure

static void shape_free(world_shape *s)
{
    free(s->p_index);
    free(s->s_index);
    free(s->s_a);
    free(s->s_b);
    free(s->p_gen);
    free(s->s_gen);
    free(s->start);
    memset(s, 0, sizeof *s);
}

static void shape_of(const sb_world *w, world_shape *s)
{
    memset(s, 0, sizeof *s);
    int np = sb_world_particle_count(w), ns = sb_world_spring_count(w);
    s->p_index = malloc(sizeof *s->p_index * (size_t)(np + 1));
    s->start = malloc(sizeof *s->start * (size_t)(np + 1));
    s->s_index = malloc(sizeof *s->s_index * (size_t)(ns + 1));
    s->s_a = malloc(sizeof *s->s_a * (size_t)(ns + 1));
    s->s_b = malloc(sizeof *s->s_b * (size_t)(ns + 1));
    s->p_gen = malloc(sizeof *s->p_gen * (size_t)(np + 1));
    s->s_gen = malloc(sizeof *s->s_gen * (size_t)(ns + 1));
    if (!s->p_index || !s->start || !s->s_index || !s->s_a || !s->s_b || !s->p_gen || !s->s_gen) {
        shape_free(s);
        s->particles = -1; // never equal to anything
        return;
    }
    s->broken_total = sb_world_get_stats(w)->broken_springs_total;
    sb_particle_id p = sb_null_particle();
    while (sb_world_next_particle(w, &p)) {
        sb_particle_def d;
        sb_particle_get(w, p, &d);
        s->p_index[s->particles] = p.index;
        s->p_gen[s->particles] = p.generation;
        s->start[s->particles++] = d.position;
    }
    sb_spring_id sp = sb_null_spring();
    while (sb_world_next_spring(w, &sp)) {
        sb_spring_def d;
        sb_spring_get(w, sp, &d);
        s->s_index[s->springs] = sp.index;
        s->s_gen[s->springs] = sp.generation;
        s->s_a[s->springs] = d.a.index;
        s->s_b[s->springs++] = d.b.index;
    }
    // constraints: counted and hashed (FNV-1a), which is all a reload needs to tell them apart
    uint64_t layout = 1469598103934665603ull, gens = 1469598103934665603ull;
    sb_constraint_id c = {SB_NULL_INDEX, 0};
    while (sb_world_next_constraint(w, &c)) {
        sb_constraint_def d;
        sb_particle_id ids[8];
        int count = sb_constraint_get(w, c, &d, ids, 8);
        uint64_t words[4] = {c.index, (uint64_t)d.kind, (uint64_t)count, 0};
        for (int i = 0; i < count && i < 8; ++i)
            words[3] = words[3] * 1000003u + ids[i].index;
        for (int k = 0; k < 4; ++k)
            layout = (layout ^ words[k]) * 1099511628211ull;
        gens = (gens ^ c.generation) * 1099511628211ull;
        s->constraints += 1;
    }
    s->c_layout = layout;
    s->c_gens = gens;
}

// Why two shapes differ, or false if they are the same structure.
/// True when the running world's particles and springs are no longer the ones it was built with
/// (update() or a callback removed or added some, or emptied a slot and filled it again): its
/// state then cannot be matched to a new build's, and a reload must restart and say so.
static bool changed_while_running(const world_shape *built, const sb_world *w, int world, char *why, size_t n)
{
    world_shape now;
    shape_of(w, &now);
    bool changed = now.particles != built->particles || now.springs != built->springs;
    for (int i = 0; !changed && i < now.particles; ++i)
        changed = now.p_index[i] != built->p_index[i] || now.p_gen[i] != built->p_gen[i];
    for (int i = 0; !changed && i < now.springs; ++i)
        changed = now.s_index[i] != built->s_index[i] || now.s_gen[i] != built->s_gen[i];
    bool constraints = now.constraints != built->constraints || now.c_layout != built->c_layout || now.c_gens != built->c_gens;
    // Springs the physics broke are not the scene's doing: say so (issue 22). The shape was taken
    // when the world was built (its total then is 0) or carried over (the total carries too).
    uint64_t total = sb_world_get_stats(w)->broken_springs_total;
    uint64_t broke = total > built->broken_total ? total - built->broken_total : 0;
    bool particles_same = now.particles == built->particles;
    for (int i = 0; particles_same && i < now.particles; ++i)
        particles_same = now.p_index[i] == built->p_index[i] && now.p_gen[i] == built->p_gen[i];
    if (changed && particles_same && broke > 0 && (uint64_t)(built->springs - now.springs) == broke)
        snprintf(why, n, "world %d: %llu spring%s broke since it was loaded (%d left of %d)", world + 1,
                 (unsigned long long)broke, broke == 1 ? "" : "s", now.springs, built->springs);
    else if (changed)
        snprintf(why, n, "world %d: the running scene added or removed particles or springs since it was loaded "
                         "(%d particles and %d springs, built with %d and %d)",
                 world + 1, now.particles, now.springs, built->particles, built->springs);
    else if (constraints)
        snprintf(why, n, "world %d: the running scene added or removed constraints since it was loaded (%d, built with %d)",
                 world + 1, now.constraints, built->constraints);
    changed = changed || constraints;
    shape_free(&now);
    return changed;
}

static bool shape_differs(const world_shape *old, const world_shape *new_, int world, char *why, size_t n)
{
    if (old->particles != new_->particles) {
        snprintf(why, n, "world %d: %d particles, was %d", world + 1, new_->particles, old->particles);
        return true;
    }
    if (old->springs != new_->springs) {
        snprintf(why, n, "world %d: %d springs, was %d", world + 1, new_->springs, old->springs);
        return true;
    }
    for (int i = 0; i < old->particles; ++i) {
        if (old->p_index[i] != new_->p_index[i]) {
            snprintf(why, n, "world %d: particles were added or removed differently", world + 1);
            return true;
        }
        if (old->start[i].x != new_->start[i].x || old->start[i].y != new_->start[i].y) {
            snprintf(why, n, "world %d: particle %d starts at (%g, %g), was (%g, %g)", world + 1, i + 1,
                     new_->start[i].x, new_->start[i].y, old->start[i].x, old->start[i].y);
            return true;
        }
    }
    for (int i = 0; i < old->springs; ++i) {
        if (old->s_index[i] != new_->s_index[i] || old->s_a[i] != new_->s_a[i] || old->s_b[i] != new_->s_b[i]) {
            snprintf(why, n, "world %d: spring %d joins particles %u and %u, was %u and %u", world + 1, i + 1,
                     new_->s_a[i] + 1, new_->s_b[i] + 1, old->s_a[i] + 1, old->s_b[i] + 1);
            return true;
        }
    }
    if (old->constraints != new_->constraints) {
        snprintf(why, n, "world %d: %d constraints, was %d", world + 1, new_->constraints, old->constraints);
        return true;
    }
    if (old->c_layout != new_->c_layout) {
        snprintf(why, n, "world %d: constraints are of other kinds or hold other particles", world + 1);
        return true;
    }
    return false;
}

// ---------------------------------------------------------------- carrying state over

static bool same_tuning(const sb_tuning *a, const sb_tuning *b)
{
    if (a->mode != b->mode)
        return false;
    switch (a->mode) {
    case SB_TUNE_HERTZ: return a->hertz == b->hertz && a->damping_ratio == b->damping_ratio;
    case SB_TUNE_COEFFICIENTS: return a->stiffness == b->stiffness && a->damping == b->damping;
    default: return a->k == b->k && a->c == b->c;
    }
}

// The new world takes the old world's state and starts from where it stands: every spring's
// rest length and tuning, every mass and the gravity as they are now, ramps in progress
// included. What the file changed then blends in through the core's ramps (retune.c), which
// re-base a retuned spring so that the structure is not thrown. Returns the ramps it started.
static int carry_over(sb_scene *scene, sb_world *dst, const sb_world *src)
{
    const double T = scene->opt.ramp_seconds;
    int started = 0;
    sb_world_copy_state(dst, src);
    // The structures match slot for slot (checked by the caller); each world has its own handles.
    sb_spring_id s = sb_null_spring(), t = sb_null_spring();
    while (sb_world_next_spring(dst, &s) && sb_world_next_spring(src, &t)) {
        sb_spring_def now, was;
        sb_spring_get(dst, s, &now);
        sb_spring_get(src, t, &was);
        double target_rest = was.rest_length;
        sb_tuning target = was.tuning;
        sb_spring_ramp_target(src, t, &target_rest, &target);
        sb_spring_set(dst, s, was.rest_length, &was.tuning, NULL);
        if (!same_tuning(&now.tuning, &target) || now.rest_length != target_rest) {
            sb_spring_retune(dst, s, now.rest_length, &now.tuning, T, NULL);
            started += 1;
        }
    }
    sb_particle_id p = sb_null_particle(), q = sb_null_particle();
    while (sb_world_next_particle(dst, &p) && sb_world_next_particle(src, &q)) {
        sb_particle_def now, was;
        sb_particle_get(dst, p, &now);
        sb_particle_get(src, q, &was);
        if (now.mass != was.mass) {
            double mass = now.mass;
            now.mass = was.mass;
            sb_particle_set(dst, p, &now, NULL);
            sb_particle_ramp_mass(dst, p, mass, T);
            started += 1;
        }
    }
    sb_world_def now = sb_world_get_def(dst), was = sb_world_get_def(src);
    if (now.gravity.x != was.gravity.x || now.gravity.y != was.gravity.y) {
        sb_vec2 g = now.gravity;
        now.gravity = was.gravity;
        sb_world_set_def(dst, &now, NULL);
        sb_world_ramp_gravity(dst, g, T);
        started += 1;
    }
    return started;
}

// ---------------------------------------------------------------- adopting a build

// Makes `b` the running scene. With `shapes` the structure of the new worlds is taken as
// given (a kept reload: the worlds already run the old state); otherwise it is measured
// from the freshly built worlds.
static void adopt(sb_scene *scene, scene_build *b, world_shape *shapes)
{
    for (int i = 0; scene->shapes && i < scene->cur.world_count; ++i)
        shape_free(&scene->shapes[i]);
    free(scene->shapes);
    scene->shapes = shapes;
    if (!shapes) {
        scene->shapes = calloc((size_t)b->world_count, sizeof *scene->shapes);
        for (int i = 0; i < b->world_count && scene->shapes; ++i)
            shape_of(b->worlds[i], &scene->shapes[i]);
    }
    retire_worlds(scene, &scene->cur, b);
    build_free(scene, &scene->cur);
    scene->cur = *b;
    scene->update_ok = true;
    scene_log_keep_only(scene, b->version); // a reload closes the replaced version's logs
    lua_newtable(scene->L); // which plot series this version writes (an old one's give way when full)
    lua_setfield(scene->L, LUA_REGISTRYINDEX, "springbox.plots.fresh");
    memset(scene->callback_off, 0, sizeof scene->callback_off);
    // The adopted load's springbox.state becomes the running state.
    lua_getfield(scene->L, LUA_REGISTRYINDEX, "springbox.state.next");
    lua_setfield(scene->L, LUA_REGISTRYINDEX, "springbox.state.current");
    lua_pushnil(scene->L);
    lua_setfield(scene->L, LUA_REGISTRYINDEX, "springbox.state.next");
    lua_gc(scene->L, LUA_GCCOLLECT); // the old worlds go now, not at some later collection
}

/// Keeps the running scene's tunable declarations (springbox.tune) while a load runs: a load
/// that fails puts them back, so the sliders of the last good scene stay (issue 14 item 5).
static int tunables_keep(lua_State *L)
{
    lua_getfield(L, LUA_REGISTRYINDEX, "springbox.tunables");
    return luaL_ref(L, LUA_REGISTRYINDEX);
}

static void tunables_restore(lua_State *L, int kept, bool restore)
{
    if (restore) {
        lua_rawgeti(L, LUA_REGISTRYINDEX, kept);
        lua_setfield(L, LUA_REGISTRYINDEX, "springbox.tunables");
    }
    luaL_unref(L, LUA_REGISTRYINDEX, kept);
}

static sb_reload_event reload(sb_scene *scene, bool force_restart)
{
    scene_build b;
    char error[sizeof(((sb_reload_event *)0)->message)];
    int kept = tunables_keep(scene->L);
    bool built = build_scene(scene, &b, error, sizeof error);
    tunables_restore(scene->L, kept, !built);
    if (!built) {
        // Keep watching what the failed run loaded, so saving any of those files retries.
        sb_reload_event e = make_event(SB_RELOAD_FAILED, "%s", error);
        for (int i = 0; i < b.file_count; ++i) {
            bool known = false;
            for (int k = 0; k < scene->cur.file_count && !known; ++k)
                known = strcmp(scene->cur.files[k].path, b.files[i].path) == 0;
            if (!known) {
                record_file(&scene->cur, b.files[i].path);
            }
        }
        // What is on disk now has been seen, the files this run did not reach included (a module
        // deleted while the file fails before its require would otherwise reload every frame).
        for (int k = 0; k < scene->cur.file_count; ++k)
            watch_stat(&scene->cur.files[k]);
        retire_worlds(scene, &b, &scene->cur);
        scene_log_close_version(scene, b.version);
        build_free(scene, &b);
        return e;
    }
    char why[512] = "";
    bool restart = force_restart;
    if (force_restart)
        snprintf(why, sizeof why, "asked for");
    if (!restart && b.world_count != scene->cur.world_count) {
        snprintf(why, sizeof why, "%d worlds, was %d", b.world_count, scene->cur.world_count);
        restart = true;
    }
    for (int i = 0; i < b.world_count && !restart; ++i)
        restart = scene->shapes && changed_while_running(&scene->shapes[i], scene->cur.worlds[i], i, why, sizeof why);
    for (int i = 0; i < b.world_count && !restart; ++i) {
        world_shape s;
        shape_of(b.worlds[i], &s);
        restart = shape_differs(&scene->shapes[i], &s, i, why, sizeof why);
        shape_free(&s);
    }
    for (int i = 0; i < b.world_count && !restart; ++i) {
        restart = !sb_world_can_copy_state(b.worlds[i], scene->cur.worlds[i]);
        if (restart) // slots emptied and refilled, or added and removed, at run time
            snprintf(why, sizeof why,
                     "world %d: the running scene added or removed particles or springs since it was loaded", i + 1);
    }
    if (restart) {
        // A restart starts the scene's own state afresh too: the file runs again with an empty
        // springbox.state (the load above saw the old one). If that run fails, the first stands.
        lua_pushnil(scene->L);
        lua_setfield(scene->L, LUA_REGISTRYINDEX, "springbox.state.current");
        scene_build fresh;
        char ignored[sizeof error];
        kept = tunables_keep(scene->L);
        built = build_scene(scene, &fresh, ignored, sizeof ignored);
        tunables_restore(scene->L, kept, !built);
        if (built) {
            retire_worlds(scene, &b, &fresh);
            build_free(scene, &b);
            b = fresh;
        } else {
            retire_worlds(scene, &fresh, &b);
            scene_log_close_version(scene, fresh.version);
            build_free(scene, &fresh);
        }
        lua_pushnil(scene->L); // a restarted scene plots afresh: the old series free their panels
        lua_setfield(scene->L, LUA_REGISTRYINDEX, "springbox.plots");
        sb_scene_history_clear(scene); // its moments are of worlds built another way
        adopt(scene, &b, NULL);
        if (force_restart)
            return make_event(SB_RELOAD_RESTARTED, "restarted from the file, as asked%s", NULL);
        return make_event(SB_RELOAD_RESTARTED, "structure changed: restarted (%s)", why);
    }
    // Same structure: the new worlds take over the running state; tuning ramps in.
    int ramps = 0;
    for (int i = 0; i < b.world_count; ++i)
        ramps += carry_over(scene, b.worlds[i], scene->cur.worlds[i]);
    // The structure is unchanged, so the recorded shapes (start positions) stay; the handles'
    // generations are the new worlds' (changed_while_running compares them at the next reload).
    world_shape *shapes = scene->shapes;
    scene->shapes = NULL;
    for (int i = 0; i < b.world_count; ++i) {
        world_shape fresh;
        shape_of(b.worlds[i], &fresh);
        if (fresh.particles < 0) // out of memory: the next reload restarts, which is safe
            continue;
        uint32_t *pg = shapes[i].p_gen, *sg = shapes[i].s_gen;
        shapes[i].p_gen = fresh.p_gen;
        shapes[i].s_gen = fresh.s_gen;
        shapes[i].c_gens = fresh.c_gens;
        shapes[i].broken_total = fresh.broken_total;
        fresh.p_gen = pg;
        fresh.s_gen = sg;
        shape_free(&fresh);
    }
    adopt(scene, &b, shapes);
    // Only what is true: a save that changed no spring, mass or gravity (a comment, a colour,
    // a solver setting) is not a tuning
    if (ramps == 0)
        return make_event(SB_RELOAD_KEPT, "reloaded, state kept: no spring, mass or gravity changed%s", NULL);
    char detail[64];
    snprintf(detail, sizeof detail, "%d change%s ramp in over %.2g s", ramps, ramps == 1 ? "" : "s",
             scene->opt.ramp_seconds);
    return make_event(SB_RELOAD_KEPT, "tuning applied, state kept (%s)", detail);
}

// ---------------------------------------------------------------- public API

sb_scene_options sb_default_scene_options(void)
{
    sb_scene_options o;
    memset(&o, 0, sizeof o);
    o.ramp_seconds = 0.5;
    o.load_seconds = 10.0;
    o.update_seconds = 1.0;
    o.memory_limit = (size_t)4 << 30;
    o.log_limit = (size_t)64 << 20;
    return o;
}

sb_scene *sb_scene_open(const sb_scene_options *options, char *error, size_t error_size)
{
    sb_scene *scene = calloc(1, sizeof *scene);
    if (!scene) {
        snprintf(error, error_size, "out of memory");
        return NULL;
    }
    scene->opt = *options;
    scene->path = copy_string(options->path);
    scene->dir = copy_string(options->path);
    scene->cur.table_ref = scene->cur.update_ref = LUA_NOREF;
    char *slash = strrchr(scene->dir, '/');
    if (slash)
        *slash = '\0';
    else
        strcpy(scene->dir, ".");
    scene->L = lua_newstate(limited_alloc, scene);
    if (!scene->L) {
        snprintf(error, error_size, "cannot create a Lua state");
        sb_scene_close(scene);
        return NULL;
    }
    luaL_openlibs(scene->L);
    // string.find and friends match in C, out of the hook's reach: these check the limit
    lua_getglobal(scene->L, "string");
    sb_pattern_install(scene->L, -1, pattern_guard, scene);
    lua_pop(scene->L, 1);
    luaL_requiref(scene->L, "springbox", luaopen_springbox, 0);
    lua_pop(scene->L, 1);
    scene_log_install(scene);
    if (!scene->opt.trusted) {
        // Strings share one metatable for the state's whole life, reachable as getmetatable("")
        // and through every method call ("x"):rep. In the sandbox its __index is a table of the
        // safe functions that no scene can reach (the metatable is locked), so one version of a
        // scene cannot change ("x"):rep for the next, and ("").dump does not exist.
        lua_State *L = scene->L;
        lua_pushliteral(L, "");
        lua_getmetatable(L, -1);
        lua_newtable(L);
        lua_getglobal(L, "string");
        for (const char *const *f = string_safe; *f; ++f) {
            lua_getfield(L, -1, *f);
            lua_setfield(L, -3, *f);
        }
        lua_pop(L, 1);
        lua_setfield(L, -2, "__index");
        lua_pushliteral(L, "the string metatable is locked in the sandbox");
        lua_setfield(L, -2, "__metatable");
        lua_pop(L, 2);
    }
    lua_sethook(scene->L, deadline_hook, LUA_MASKCOUNT, 100000);
    sb_lua_set_guard(scene->L, step_guard, scene);
    lua_newtable(scene->L);
    lua_setfield(scene->L, LUA_REGISTRYINDEX, "springbox.overrides");
    lua_newtable(scene->L);
    lua_setfield(scene->L, LUA_REGISTRYINDEX, "springbox.sources");
    scene->real_dir = scene_real_dir(scene->dir);
    if (scene->opt.trusted) { // the full library, but the time limit holds through these too
        lua_pushglobaltable(scene->L);
        wrap_function(scene->L, scene, lua_gettop(scene->L), NULL, "pcall", sandbox_protected);
        wrap_function(scene->L, scene, lua_gettop(scene->L), NULL, "xpcall", sandbox_xpcall);
        wrap_function(scene->L, scene, lua_gettop(scene->L), "coroutine", "resume", sandbox_protected);
        lua_pop(scene->L, 1);
    }
    scene_build b;
    if (!build_scene(scene, &b, error, error_size)) {
        build_free(scene, &b);
        sb_scene_close(scene);
        return NULL;
    }
    adopt(scene, &b, NULL);
    return scene;
}

void sb_scene_close(sb_scene *scene)
{
    if (!scene)
        return;
    for (int i = 0; scene->shapes && i < scene->cur.world_count; ++i)
        shape_free(&scene->shapes[i]);
    free(scene->shapes);
    scene_history_free(scene); // before the worlds and the Lua state it refers to
    build_free(scene, &scene->cur);
    scene_program_free(scene);
    if (scene->L)
        lua_close(scene->L);
    scene_log_free(scene);
    free(scene->path);
    free(scene->dir);
    free(scene->real_dir);
    free(scene);
}

/// Editors (and shells) truncate a file and then write it, so a change is taken only once
/// the file looked the same on two looks this far apart. File times are no help here: a
/// truncation can show the old modification time (seen under load).
static const double quiet_seconds = 0.03;

sb_reload_event sb_scene_poll(sb_scene *scene)
{
    double now = monotonic_seconds();
    sb_reload_event none = make_event(SB_RELOAD_NONE, "%s", "");
    double first_seen = now;
    bool changed = false, settling = false;
    for (int i = 0; i < scene->cur.file_count; ++i) {
        watched_file *f = &scene->cur.files[i];
        struct stat st;
        long long size = -1;
        struct timespec mtime = {0, 0};
        if (stat(f->path, &st) == 0) {
            size = (long long)st.st_size;
            mtime = st.st_mtim;
        }
        if (size == f->size && mtime.tv_sec == f->mtime.tv_sec && mtime.tv_nsec == f->mtime.tv_nsec) {
            f->pending_since = 0.0; // back as it was loaded
            continue;
        }
        changed = true;
        bool same_as_pending = f->pending_since > 0.0 && size == f->pending_size &&
                               mtime.tv_sec == f->pending_mtime.tv_sec && mtime.tv_nsec == f->pending_mtime.tv_nsec;
        if (!same_as_pending) {
            f->pending_mtime = mtime;
            f->pending_size = size;
            f->pending_since = now;
        }
        if (now - f->pending_since < quiet_seconds)
            settling = true;
        first_seen = f->pending_since < first_seen ? f->pending_since : first_seen;
    }
    if (!changed || settling)
        return none;
    sb_reload_event e = reload(scene, false);
    // Latency from the first look that saw the change; polls every 20 ms add up to that.
    e.latency_ms = (monotonic_seconds() - first_seen) * 1e3;
    return e;
}

sb_reload_event sb_scene_reload(sb_scene *scene) { return reload(scene, false); }
sb_reload_event sb_scene_restart(sb_scene *scene) { return reload(scene, true); }

bool sb_scene_frame(sb_scene *scene, char *error, size_t error_size)
{
    lua_State *L = scene->L;
    bool ok = true;
    sb_world *primary = scene->cur.worlds[0];
    double dt = sb_world_get_def(primary).dt;
    if (scene->update_ok && scene->cur.update_ref != LUA_NOREF) {
        lua_rawgeti(L, LUA_REGISTRYINDEX, scene->cur.update_ref);
        lua_rawgeti(L, LUA_REGISTRYINDEX, scene->cur.world_refs[0]);
        lua_pushnumber(L, dt);
        if (!protected_call(scene, 2, 0, scene->opt.update_seconds, "update()", error, error_size)) {
            scene->update_ok = false; // until the next reload
            scene->failed = "update";
            ok = false;
        }
    }
    for (int i = 0; i < scene->cur.world_count; ++i)
        sb_world_step(scene->cur.worlds[i]);
    if (ok && !scene_dispatch_events(scene, error, error_size))
        ok = false;
    else if (!ok) {
        char ignored[256];
        scene_dispatch_events(scene, ignored, sizeof ignored); // update's error is the one to show
        scene->failed = "update";
    }
    scene_log_flush(scene);
    return ok;
}

const char *sb_scene_failed_function(const sb_scene *scene) { return scene->failed ? scene->failed : "update"; }
int sb_scene_world_count(const sb_scene *scene) { return scene->cur.world_count; }
sb_world *sb_scene_world(const sb_scene *scene, int i)
{
    return i >= 0 && i < scene->cur.world_count ? scene->cur.worlds[i] : NULL;
}
const char *sb_scene_title(const sb_scene *scene)
{
    const char *title = NULL;
    if (lua_getfield(scene->L, LUA_REGISTRYINDEX, "springbox.title") == LUA_TSTRING)
        title = lua_tostring(scene->L, -1);
    lua_pop(scene->L, 1);
    if (!title)
        return scene->cur.title;
    snprintf(((sb_scene *)scene)->title_shown, sizeof scene->title_shown, "%s", title);
    scene_clean_text(((sb_scene *)scene)->title_shown);
    return scene->title_shown;
}
const char *sb_scene_warning(const sb_scene *scene) { return scene->cur.warning ? scene->cur.warning : ""; }
int sb_scene_file_count(const sb_scene *scene) { return scene->cur.file_count; }
size_t sb_scene_memory(const sb_scene *scene) { return scene->memory; }
const char *sb_scene_file(const sb_scene *scene, int i)
{
    return i >= 0 && i < scene->cur.file_count ? scene->cur.files[i].path : NULL;
}

// The declarations live in the registry table "springbox.tunables" as name -> {value, min, max},
// filled by springbox.tune during the last successful run.
int sb_scene_tunable_count(const sb_scene *scene)
{
    lua_State *L = scene->L;
    lua_getfield(L, LUA_REGISTRYINDEX, "springbox.tunables");
    int n = 0;
    lua_pushnil(L);
    while (lua_next(L, -2)) {
        n += 1;
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
    return n;
}

/// A tunable's name and its order key (springbox.tune: the order the names were written in).
typedef struct tunable_order { const char *name; double order; } tunable_order;

static int compare_tunables(const void *a, const void *b)
{
    const tunable_order *x = (const tunable_order *)a, *y = (const tunable_order *)b;
    if (x->order != y->order)
        return x->order < y->order ? -1 : 1;
    return strcmp(x->name, y->name);
}

sb_tunable sb_scene_tunable(const sb_scene *scene, int i)
{
    sb_tunable t = {NULL, 0, 0, 0};
    lua_State *L = scene->L;
    int n = sb_scene_tunable_count(scene);
    if (i < 0 || i >= n)
        return t;
    // In the order they were declared (springbox.tune), then by name: stable whatever the table's.
    tunable_order *names = malloc(sizeof *names * (size_t)n);
    if (!names)
        return t;
    lua_getfield(L, LUA_REGISTRYINDEX, "springbox.tunables");
    int k = 0;
    lua_pushnil(L);
    while (lua_next(L, -2)) {
        lua_rawgeti(L, -1, 4);
        names[k].order = lua_isnumber(L, -1) ? lua_tonumber(L, -1) : 1e300; // from a returned `tune` table: last
        lua_pop(L, 2);
        names[k++].name = lua_tostring(L, -1); // the keys stay anchored in the table
    }
    qsort(names, (size_t)n, sizeof *names, compare_tunables);
    t.name = names[i].name;
    lua_getfield(L, -1, t.name);
    double v[3] = {0, 0, 0};
    for (int j = 0; j < 3; ++j) {
        lua_rawgeti(L, -1, j + 1);
        v[j] = lua_tonumber(L, -1);
        lua_pop(L, 1);
    }
    lua_pop(L, 2);
    // A current override wins over the declared default.
    lua_getfield(L, LUA_REGISTRYINDEX, "springbox.overrides");
    if (lua_getfield(L, -1, t.name) == LUA_TNUMBER)
        v[0] = lua_tonumber(L, -1);
    lua_pop(L, 2);
    free(names);
    t.value = v[0];
    t.min = v[1];
    t.max = v[2];
    return t;
}

sb_reload_event sb_scene_set_tunable(sb_scene *scene, const char *name, double value)
{
    lua_State *L = scene->L;
    if (!isfinite(value))
        return make_event(SB_RELOAD_FAILED, "tunable '%s' must be finite", name);
    lua_getfield(L, LUA_REGISTRYINDEX, "springbox.overrides");
    lua_pushnumber(L, value);
    lua_setfield(L, -2, name);
    lua_pop(L, 1);
    return reload(scene, false);
}

// ---------------------------------------------------------------- W: writing tunables back

/// Pushes tunable `name`'s declaration {value, min, max, order, chunk, offset, length, declared}
/// when W can write it (fields 5..8 set), else nothing; returns whether it pushed.
static bool push_written_tunable(lua_State *L, const char *name)
{
    lua_getfield(L, LUA_REGISTRYINDEX, "springbox.tunables");
    if (!lua_istable(L, -1) || lua_getfield(L, -1, name) != LUA_TTABLE) {
        lua_pop(L, lua_istable(L, -1) ? 2 : 1);
        return false;
    }
    lua_remove(L, -2);
    lua_rawgeti(L, -1, 5);
    bool written = lua_type(L, -1) == LUA_TSTRING;
    lua_pop(L, written ? 1 : 2);
    return written;
}

bool sb_scene_tunable_declared(sb_scene *scene, const char *name, double *declared)
{
    if (!push_written_tunable(scene->L, name))
        return false;
    lua_rawgeti(scene->L, -1, 8);
    *declared = lua_tonumber(scene->L, -1);
    lua_pop(scene->L, 2);
    return true;
}

typedef struct pending_edit { char file[1024]; scene_edit edit; } pending_edit;

static int compare_edits(const void *a, const void *b)
{
    const pending_edit *x = (const pending_edit *)a, *y = (const pending_edit *)b;
    int c = strcmp(x->file, y->file);
    return c ? c : x->edit.offset < y->edit.offset ? -1 : x->edit.offset > y->edit.offset;
}

int sb_scene_write_tunables(sb_scene *scene, int count, const char *const *names, const char *const *texts,
                            char *message, size_t message_size)
{
    lua_State *L = scene->L;
    message[0] = '\0';
    if (count <= 0)
        return 0;
    pending_edit *edits = calloc((size_t)count, sizeof *edits);
    if (!edits) {
        snprintf(message, message_size, "out of memory");
        return -1;
    }
    int n = 0, result = -1;
    for (int i = 0; i < count; ++i) {
        char *end;
        if (strtod(texts[i], &end) == 0.0 && end == texts[i]) {
            snprintf(message, message_size, "'%s' is not a number to write for tunable '%s'", texts[i], names[i]);
            goto done;
        }
        if (!push_written_tunable(L, names[i])) {
            snprintf(message, message_size, "tunable '%s' is not written as a number in springbox.tune{ %s = {<number>, min, "
                                            "max} } (a variable or an expression?), so W cannot write it: edit the file",
                     names[i], names[i]);
            goto done;
        }
        lua_rawgeti(L, -1, 5);
        const char *chunk = lua_tostring(L, -1);
        snprintf(edits[n].file, sizeof edits[n].file, "%s", chunk + 1);
        lua_rawgeti(L, -2, 6);
        lua_rawgeti(L, -3, 7);
        edits[n].edit.offset = (size_t)lua_tointeger(L, -2);
        edits[n].edit.length = (size_t)lua_tointeger(L, -1);
        edits[n].edit.text = texts[i];
        lua_pop(L, 4);
        // only the scene's own files: a chunk can be named after any file
        bool own = false;
        for (int k = 0; k < scene->cur.file_count && !own; ++k)
            own = strcmp(scene->cur.files[k].path, edits[n].file) == 0;
        if (!own) {
            snprintf(message, message_size, "tunable '%s' is declared in %s, which is not a file of the scene", names[i],
                     edits[n].file);
            goto done;
        }
        n += 1;
    }
    qsort(edits, (size_t)n, sizeof *edits, compare_edits);
    result = 0;
    for (int first = 0; first < n;) {
        int last = first;
        while (last < n && strcmp(edits[last].file, edits[first].file) == 0)
            last += 1;
        scene_edit *group = malloc(sizeof *group * (size_t)(last - first));
        if (!group) {
            snprintf(message, message_size, "out of memory");
            result = -1;
            break;
        }
        for (int k = first; k < last; ++k)
            group[k - first] = edits[k].edit;
        lua_getfield(L, LUA_REGISTRYINDEX, "springbox.sources");
        lua_pushfstring(L, "@%s", edits[first].file);
        size_t len = 0;
        const char *loaded = lua_rawget(L, -2) == LUA_TSTRING ? lua_tolstring(L, -1, &len) : NULL;
        char why[512] = "the scene's text of it is not known";
        bool ok = loaded && scene_replace_in_file(edits[first].file, group, last - first, loaded, len, why, sizeof why);
        lua_pop(L, 2);
        free(group);
        if (!ok) {
            snprintf(message, message_size, "W did not write %s: %s", edits[first].file, why);
            scene_clean_text(message);
            result = -1;
            break;
        }
        result += last - first;
        first = last;
    }
done:
    free(edits);
    return result;
}
