// The scene's Lua state: its memory and time limits, protected calls that quote the failing line,
// and the sandbox a scene runs in (its require, load, xpcall and the library it sees).
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


// ---------------------------------------------------------------- Lua state: memory and time limits

void *limited_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
    sb_scene *scene = (sb_scene *)ud;
    size_t old = ptr ? osize : 0;
    if (nsize == 0) {
        free(ptr);
        scene->memory -= old;
        return NULL;
    }
    // The host's own work on the state (a callback's arguments, the registry's bookkeeping) may
    // go SCENE_HOST_RESERVE past the limit, so that a scene that keeps its heap full fails in its
    // own code, where the error names it, and not in the host's.
    size_t limit = scene->opt.memory_limit + (scene->deadline_what ? 0 : SCENE_HOST_RESERVE);
    if (nsize > old && scene->memory - old + nsize > limit)
        return NULL; // Lua raises "not enough memory"; the process lives on
    // A call past its time limit gets no more memory, so it ends now (protected_call then
    // reports the time limit, the cause): with a big heap Lua spends its time in collections,
    // where no hook runs (a memory bomb ran 40 s past a 10 s limit under the sanitizers).
    // The clock is read only for allocations of 4 KiB and more, or once the heap is past 64 MiB.
    // Each refusal costs Lua a full emergency collection, so once one was refused, the error's
    // own handling (its message, the traceback) gets 1 MiB more before the next.
    if (nsize > old && scene->deadline_what && (nsize >= 4096 || scene->memory > ((size_t)64 << 20)) &&
        (!scene->starved_at || scene->memory - old + nsize > scene->starved_at + ((size_t)1 << 20)) &&
        scene_seconds() > scene->deadline) {
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

static bool past_deadline(const sb_scene *scene) { return scene->deadline_what && scene_seconds() > scene->deadline; }

void pattern_guard(lua_State *L, void *ud)
{
    const sb_scene *scene = (const sb_scene *)ud;
    if (past_deadline(scene))
        luaL_error(L, "%s took longer than its limit of %f s (in a string pattern match)", scene->deadline_what,
                   scene->deadline_limit);
}

void deadline_hook(lua_State *L, lua_Debug *ar)
{
    (void)ar;
    void *ud;
    lua_getallocf(L, &ud);
    sb_scene *scene = (sb_scene *)ud;
    if (past_deadline(scene))
        deadline_error(L, scene);
}

/// springbox's world:step asks this between frames and sub-steps (sb_lua_set_guard).
bool step_guard(void *ud, char *message, size_t size)
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
/// chunk name or a traceback can name any file. Control bytes and bytes that are not
/// UTF-8 become '?', so the message is safe for a terminal and for --stats.
void error_with_source_line(lua_State *L, const char *message, char *error, size_t error_size)
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

typedef struct host_job {
    sb_scene *scene;
    void (*body)(sb_scene *scene, void *args);
    void *args;
} host_job;

static int host_job_run(lua_State *L)
{
    host_job *job = (host_job *)lua_touserdata(L, 1);
    lua_pop(L, 1);
    job->body(job->scene, job->args);
    return 0;
}

bool scene_host_call(sb_scene *scene, void (*body)(sb_scene *scene, void *args), void *args, char *error,
                     size_t error_size)
{
    lua_State *L = scene->L;
    int top = lua_gettop(L);
    host_job job = {scene, body, args};
    // a light C function and a light userdata: neither allocates, and the call's own frame is
    // made inside the protected region
    lua_pushcfunction(L, host_job_run);
    lua_pushlightuserdata(L, &job);
    int rc = lua_pcall(L, 1, 0, 0);
    if (rc == LUA_OK)
        return true;
    if (error && error_size) {
        const char *message = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : "error";
        if (rc == LUA_ERRMEM)
            snprintf(error, error_size, "not enough memory: the scene's Lua heap is full (%.1f MiB of its limit of "
                                        "%.1f MiB)", (double)scene->memory / 1048576.0,
                     (double)scene->opt.memory_limit / 1048576.0);
        else
            snprintf(error, error_size, "%s", message);
        scene_clean_text(error);
    }
    lua_settop(L, top);
    return false;
}

typedef struct error_job { const char *message; char *error; size_t error_size; } error_job;

static void error_job_run(sb_scene *scene, void *args)
{
    error_job *job = (error_job *)args;
    error_with_source_line(scene->L, job->message, job->error, job->error_size);
}

/// The error at the top of the stack into `error`, with its source line where the heap allows:
/// quoting the line takes a few Lua strings, and a scene out of memory gets its message without it.
static void take_error(sb_scene *scene, char *error, size_t error_size)
{
    lua_State *L = scene->L;
    const char *message = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : "error (not a string)";
    error_job job = {message, error, error_size};
    if (!scene_host_call(scene, error_job_run, &job, NULL, 0)) {
        snprintf(error, error_size, "%s", message);
        scene_clean_text(error);
    }
    lua_pop(L, 1);
}

// Calls the function below `nargs` arguments with a traceback handler and a wall-clock limit.
bool protected_call(sb_scene *scene, int nargs, int nresults, double limit, const char *what,
                           char *error, size_t error_size)
{
    int base = lua_gettop(scene->L) - nargs;
    lua_pushcfunction(scene->L, traceback_handler);
    lua_insert(scene->L, base);
    scene->deadline = scene_seconds() + limit;
    scene->starved_at = 0;
    scene->deadline_what = what;
    scene->deadline_limit = limit;
    int rc = lua_pcall(scene->L, nargs, nresults, base);
    bool late = scene_seconds() > scene->deadline;
    scene->deadline_what = NULL; // no call running: nothing is past a limit
    lua_remove(scene->L, base);
    if (rc != LUA_OK && late && rc == LUA_ERRMEM) { // out of memory because it ran out of time
        snprintf(error, error_size, "%s took longer than its limit of %g s (it was still allocating memory)", what, limit);
        lua_pop(scene->L, 1);
        return false;
    }
    if (rc == LUA_ERRMEM) {
        snprintf(error, error_size, "%s: not enough memory (the scene's Lua heap is at its limit of %.1f MiB)", what,
                 (double)scene->opt.memory_limit / 1048576.0);
        lua_pop(scene->L, 1);
        return false;
    }
    if (rc != LUA_OK) {
        take_error(scene, error, error_size);
        return false;
    }
    return true;
}


// ---------------------------------------------------------------- sandbox


/// Takes what the file looks like on disk now as seen (size -1 and no time when it is gone).
void scene_watch_stat(watched_file *f)
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
void scene_record_file(scene_build *b, const char *path)
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
    if (!(f->path = scene_copy_string(path)))
        return;
    b->file_count += 1;
    scene_watch_stat(f);
}

/// Loads the scene file or a module as a text chunk named "@path": read whole through
/// scene_read_file (a regular file; with `real_dir`, one inside that folder), kept in the
/// registry's "springbox.sources" for error lines and slider order, then compiled. Like
/// luaL_loadfile it skips a UTF-8 byte order mark and a first line starting with '#'. Pushes
/// the function, or an error message; returns the lua_load status.
typedef struct source_job { const char *path, *text; size_t len; int rc; } source_job;

/// Protected: keeps the text in "springbox.sources" and compiles it; pushes the function or the
/// message. Run through lua_pcall so that the text, read with malloc, is freed whatever happens.
static int load_source_protected(lua_State *L)
{
    source_job *job = (source_job *)lua_touserdata(L, 1);
    const char *code = job->text;
    size_t len = job->len;
    if (len >= 3 && memcmp(code, "\xEF\xBB\xBF", 3) == 0)
        code += 3;
    if (*code == '#') // keep its newline, so line numbers stay
        code += strcspn(code, "\n");
    const char *chunk = lua_pushfstring(L, "@%s", job->path);
    lua_getfield(L, LUA_REGISTRYINDEX, "springbox.sources");
    lua_pushvalue(L, -2);
    lua_pushlstring(L, job->text, len);
    lua_rawset(L, -3);
    lua_pop(L, 1);
    job->rc = luaL_loadbufferx(L, code, len - (size_t)(code - job->text), chunk, "t");
    return 1;
}

int scene_load_source(sb_scene *scene, const char *path, const char *real_dir)
{
    lua_State *L = scene->L;
    char *text, why[512];
    size_t len;
    if (!scene_read_file(real_dir, path, SCENE_SOURCE_MAX, &text, &len, why, sizeof why)) {
        lua_pushfstring(L, "cannot read %s: %s", path, why);
        return LUA_ERRFILE;
    }
    source_job job = {path, text, len, LUA_OK};
    lua_pushcfunction(L, load_source_protected);
    lua_pushlightuserdata(L, &job);
    int rc = lua_pcall(L, 1, 1, 0);
    free(text);
    return rc != LUA_OK ? rc : job.rc;
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
    scene_record_file(b, file);
    // inside the scene's folder, links resolved: a module is never a way out of it
    if (scene_load_source(scene, file, scene->real_dir ? scene->real_dir : scene->dir) != LUA_OK)
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

int sandbox_protected(lua_State *L)
{
    sb_scene *scene = (sb_scene *)lua_touserdata(L, lua_upvalueindex(1));
    lua_pushvalue(L, lua_upvalueindex(2)); // the original
    lua_insert(L, 1);
    lua_callk(L, lua_gettop(L) - 1, LUA_MULTRET, (lua_KContext)scene, protected_finish);
    return protected_finish(L, LUA_OK, (lua_KContext)scene);
}

// xpcall's message handler, guarded: past the time limit it is not called. The limit's error is
// raised from the count hook, where Lua runs the handler with hooks off, so a handler that
// loops could never be stopped. Upvalues: the scene, the scene's handler.
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

int sandbox_xpcall(lua_State *L)
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
void scene_wrap_function(lua_State *L, sb_scene *scene, int env, const char *lib, const char *name, lua_CFunction fn)
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

const char *const string_safe[] = {
    "byte", "char", "find", "format", "gmatch", "gsub", "len", "lower", "match", "rep", "reverse",
    "sub", "upper", "pack", "packsize", "unpack", NULL,
};

void scene_push_environment(sb_scene *scene)
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
    scene_wrap_function(L, scene, env, NULL, "pcall", sandbox_protected);
    scene_wrap_function(L, scene, env, NULL, "xpcall", sandbox_xpcall);
    scene_wrap_function(L, scene, env, "coroutine", "resume", sandbox_protected);
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
