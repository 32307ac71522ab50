// The scene host: opening a scene, its frames, polling its files for a hot reload, its tunables,
// and W writing them back. See sb_scene.h; the sandbox is scene_sandbox.c, building and reloading
// scene_build.c.
#define _POSIX_C_SOURCE 200809L
#include "scene_internal.h"

#include "sb_lua.h"
#include "sb_pattern.h"
#include "sb_trig.h"
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


double scene_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

char *scene_copy_string(const char *s)
{
    size_t n = strlen(s) + 1;
    char *c = malloc(n);
    if (c)
        memcpy(c, s, n);
    return c;
}

sb_reload_event scene_event(sb_reload_result r, const char *fmt, const char *detail)
{
    sb_reload_event e;
    memset(&e, 0, sizeof e);
    e.result = r;
    snprintf(e.message, sizeof e.message, fmt, detail ? detail : "");
    scene_clean_text(e.message);
    return e;
}


// ---------------------------------------------------------------- Lua state: memory and time limits



// ---------------------------------------------------------------- public API

sb_scene_options sb_default_scene_options(void)
{
    sb_scene_options o;
    memset(&o, 0, sizeof o);
    o.ramp_seconds = 0.5;
    o.load_seconds = 10.0;
    o.update_seconds = 1.0;
    o.memory_limit = (size_t)1 << (sizeof(size_t) >= 8 ? 32 : 29); // 4 GiB; a browser tab's 512 MiB (wasm32)
    o.log_limit = (size_t)64 << 20;
    return o;
}

typedef struct open_job { char *error; size_t error_size; bool ok; } open_job;

// math.sin and its kin from sb_trig.h: a scene that places particles with them builds the same
// bits in every build, the browser's included (the C libraries differ in the last bit).
static int math_sin(lua_State *L) { lua_pushnumber(L, sb_sin(luaL_checknumber(L, 1))); return 1; }
static int math_cos(lua_State *L) { lua_pushnumber(L, sb_cos(luaL_checknumber(L, 1))); return 1; }
static int math_tan(lua_State *L) { lua_pushnumber(L, sb_tan(luaL_checknumber(L, 1))); return 1; }
static int math_asin(lua_State *L) { lua_pushnumber(L, sb_asin(luaL_checknumber(L, 1))); return 1; }
static int math_acos(lua_State *L) { lua_pushnumber(L, sb_acos(luaL_checknumber(L, 1))); return 1; }
static int math_atan(lua_State *L) // as Lua's: atan(y [, x]), x 1 by default
{
    lua_pushnumber(L, sb_atan2(luaL_checknumber(L, 1), luaL_optnumber(L, 2, 1.0)));
    return 1;
}

static void use_same_math_everywhere(lua_State *L)
{
    static const luaL_Reg trig[] = {{"sin", math_sin},   {"cos", math_cos},   {"tan", math_tan},
                                    {"asin", math_asin}, {"acos", math_acos}, {"atan", math_atan},
                                    {NULL, NULL}};
    lua_getglobal(L, "math");
    luaL_setfuncs(L, trig, 0);
    // math.random starts from the same seed in every run (Lua seeds it from the clock), so a
    // run, its replay and the browser's run of it are the same bits; math.randomseed() gives
    // another
    lua_getfield(L, -1, "randomseed");
    lua_pushinteger(L, 0);
    lua_call(L, 1, 0);
    lua_pop(L, 1);
}

/// The scene's state made ready (the libraries, the sandbox's string metatable, the limits) and
/// its first build adopted.
static void open_body(sb_scene *scene, void *args)
{
    open_job *job = (open_job *)args;
    luaL_openlibs(scene->L);
    use_same_math_everywhere(scene->L);
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
        scene_wrap_function(scene->L, scene, lua_gettop(scene->L), NULL, "pcall", sandbox_protected);
        scene_wrap_function(scene->L, scene, lua_gettop(scene->L), NULL, "xpcall", sandbox_xpcall);
        scene_wrap_function(scene->L, scene, lua_gettop(scene->L), "coroutine", "resume", sandbox_protected);
        lua_pop(scene->L, 1);
    }
    scene_build b;
    if (!scene_build_run(scene, &b, job->error, job->error_size)) {
        scene_build_free(scene, &b);
        return;
    }
    scene_adopt(scene, &b, NULL);
    job->ok = true;
}

sb_scene *sb_scene_open(const sb_scene_options *options, char *error, size_t error_size)
{
    sb_scene *scene = calloc(1, sizeof *scene);
    if (!scene) {
        snprintf(error, error_size, "out of memory");
        return NULL;
    }
    scene->opt = *options;
    scene->path = scene_copy_string(options->path);
    scene->dir = scene_copy_string(options->path);
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
    open_job job = {error, error_size, false};
    if (!scene_host_call(scene, open_body, &job, error, error_size) || !job.ok) {
        sb_scene_close(scene);
        return NULL;
    }
    return scene;
}

void sb_scene_close(sb_scene *scene)
{
    if (!scene)
        return;
    for (int i = 0; scene->shapes && i < scene->cur.world_count; ++i)
        scene_shape_free(&scene->shapes[i]);
    free(scene->shapes);
    scene_history_free(scene); // before the worlds and the Lua state it refers to
    scene_build_free(scene, &scene->cur);
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
/// An empty file waits longer: a shell's > truncates it before its writer starts, which a loaded
/// machine can take longer than quiet_seconds to do, and no scene is empty.
static const double empty_quiet_seconds = 0.5;

sb_reload_event sb_scene_poll(sb_scene *scene)
{
    double now = scene_seconds();
    sb_reload_event none = scene_event(SB_RELOAD_NONE, "%s", "");
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
        if (now - f->pending_since < (size == 0 ? empty_quiet_seconds : quiet_seconds))
            settling = true;
        first_seen = f->pending_since < first_seen ? f->pending_since : first_seen;
    }
    if (!changed || settling)
        return none;
    sb_reload_event e = scene_reload_now(scene, false);
    // Latency from the first look that saw the change; polls every 20 ms add up to that.
    e.latency_ms = (scene_seconds() - first_seen) * 1e3;
    return e;
}

sb_reload_event sb_scene_reload(sb_scene *scene) { return scene_reload_now(scene, false); }
sb_reload_event sb_scene_restart(sb_scene *scene) { return scene_reload_now(scene, true); }

typedef struct frame_job { char *error; size_t error_size; bool ok; } frame_job;

static void update_body(sb_scene *scene, void *args)
{
    frame_job *job = (frame_job *)args;
    lua_State *L = scene->L;
    lua_rawgeti(L, LUA_REGISTRYINDEX, scene->cur.update_ref);
    lua_rawgeti(L, LUA_REGISTRYINDEX, scene->cur.world_refs[0]);
    lua_pushnumber(L, sb_world_get_def(scene->cur.worlds[0]).dt);
    job->ok = protected_call(scene, 2, 0, scene->opt.update_seconds, "update()", job->error, job->error_size);
}

static void events_body(sb_scene *scene, void *args)
{
    frame_job *job = (frame_job *)args;
    job->ok = scene_dispatch_events(scene, job->error, job->error_size);
}

long sb_scene_frames(const sb_scene *scene) { return scene->frames; }

bool sb_scene_frame(sb_scene *scene, char *error, size_t error_size)
{
    bool ok = true;
    scene->frames += 1;
    if (scene->update_ok && scene->cur.update_ref != LUA_NOREF) {
        frame_job job = {error, error_size, false};
        if (!scene_host_call(scene, update_body, &job, error, error_size) || !job.ok) {
            scene->update_ok = false; // until the next reload
            scene->failed = "update";
            ok = false;
        }
    }
    for (int i = 0; i < scene->cur.world_count; ++i)
        sb_world_step(scene->cur.worlds[i]);
    char ignored[256]; // update's error is the one to show when both fail
    frame_job events = {ok ? error : ignored, ok ? error_size : sizeof ignored, false};
    bool handed = scene_host_call(scene, events_body, &events, events.error, events.error_size);
    if (!handed) // the events could not be handed over (a full heap): no callback of them ran
        scene->failed = "events";
    if (ok && !(handed && events.ok))
        ok = false;
    else if (!ok)
        scene->failed = "update";
    scene_log_flush(scene);
    return ok;
}

const char *sb_scene_failed_function(const sb_scene *scene) { return scene->failed ? scene->failed : "update"; }
int sb_scene_world_count(const sb_scene *scene) { return scene->cur.world_count; }
sb_world *sb_scene_world(const sb_scene *scene, int i)
{
    return i >= 0 && i < scene->cur.world_count ? scene->cur.worlds[i] : NULL;
}
static void title_body(sb_scene *scene, void *args)
{
    const char **title = (const char **)args;
    if (lua_getfield(scene->L, LUA_REGISTRYINDEX, "springbox.title") == LUA_TSTRING) {
        snprintf(scene->title_shown, sizeof scene->title_shown, "%s", lua_tostring(scene->L, -1));
        scene_clean_text(scene->title_shown);
        *title = scene->title_shown;
    }
    lua_pop(scene->L, 1);
}

const char *sb_scene_title(const sb_scene *scene)
{
    const char *title = scene->cur.title;
    scene_host_call((sb_scene *)scene, title_body, &title, NULL, 0);
    return title;
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
static void tunable_count_body(sb_scene *scene, void *args)
{
    lua_State *L = scene->L;
    int *n = (int *)args;
    if (lua_getfield(L, LUA_REGISTRYINDEX, "springbox.tunables") == LUA_TTABLE) {
        lua_pushnil(L);
        while (lua_next(L, -2)) {
            *n += 1;
            lua_pop(L, 1);
        }
    }
    lua_pop(L, 1);
}

int sb_scene_tunable_count(const sb_scene *scene)
{
    int n = 0;
    scene_host_call((sb_scene *)scene, tunable_count_body, &n, NULL, 0);
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

typedef struct tunable_job { tunable_order *names; int n; sb_tunable *out; int max, got; } tunable_job;

static void tunable_body(sb_scene *scene, void *args)
{
    tunable_job *job = (tunable_job *)args;
    lua_State *L = scene->L;
    if (lua_getfield(L, LUA_REGISTRYINDEX, "springbox.tunables") != LUA_TTABLE)
        return;
    int k = 0;
    lua_pushnil(L);
    while (lua_next(L, -2)) {
        lua_rawgeti(L, -1, 4);
        double order = lua_isnumber(L, -1) ? lua_tonumber(L, -1) : 1e300; // from a returned `tune` table: last
        lua_pop(L, 2);
        if (k < job->n)
            job->names[k++] = (tunable_order){lua_tostring(L, -1), order}; // the keys stay anchored in the table
    }
    if (k < job->n)
        return;
    qsort(job->names, (size_t)job->n, sizeof *job->names, compare_tunables);
    lua_getfield(L, LUA_REGISTRYINDEX, "springbox.overrides");
    const int decl = lua_gettop(L) - 1, over = lua_gettop(L);
    for (int i = 0; i < job->n && i < job->max; ++i) {
        const char *name = job->names[i].name;
        lua_pushstring(L, name);
        lua_rawget(L, decl);
        double v[3] = {0, 0, 0};
        for (int j = 0; j < 3; ++j) {
            lua_rawgeti(L, -1, j + 1);
            v[j] = lua_tonumber(L, -1);
            lua_pop(L, 1);
        }
        lua_pop(L, 1);
        // a current override wins over the declared default
        lua_pushstring(L, name);
        if (lua_rawget(L, over) == LUA_TNUMBER)
            v[0] = lua_tonumber(L, -1);
        lua_pop(L, 1);
        job->out[i] = (sb_tunable){name, v[0], v[1], v[2]};
        job->got = i + 1;
    }
    lua_pop(L, 2);
}

int sb_scene_tunables(const sb_scene *scene, sb_tunable *out, int max)
{
    int n = sb_scene_tunable_count(scene);
    if (n == 0 || max <= 0)
        return 0;
    // In the order they were declared (springbox.tune), then by name: stable whatever the table's.
    tunable_job job = {malloc(sizeof *job.names * (size_t)n), n, out, max, 0};
    if (job.names)
        scene_host_call((sb_scene *)scene, tunable_body, &job, NULL, 0);
    free(job.names);
    return job.got;
}

sb_tunable sb_scene_tunable(const sb_scene *scene, int i)
{
    sb_tunable none = {NULL, 0, 0, 0};
    int n = sb_scene_tunable_count(scene);
    if (i < 0 || i >= n)
        return none;
    sb_tunable *all = malloc(sizeof *all * (size_t)n);
    sb_tunable t = all && sb_scene_tunables(scene, all, n) > i ? all[i] : none;
    free(all);
    return t;
}

typedef struct override_job { const char *name; double value; } override_job;

static void override_body(sb_scene *scene, void *args)
{
    override_job *job = (override_job *)args;
    lua_getfield(scene->L, LUA_REGISTRYINDEX, "springbox.overrides");
    lua_pushnumber(scene->L, job->value);
    lua_setfield(scene->L, -2, job->name);
    lua_pop(scene->L, 1);
}

sb_reload_event sb_scene_set_tunable(sb_scene *scene, const char *name, double value)
{
    if (!isfinite(value))
        return scene_event(SB_RELOAD_FAILED, "tunable '%s' must be finite", name);
    char error[512];
    override_job job = {name, value};
    if (!scene_host_call(scene, override_body, &job, error, sizeof error))
        return scene_event(SB_RELOAD_FAILED, "%s", error);
    return scene_reload_now(scene, false);
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

typedef struct declared_job { const char *name; double value; bool written; } declared_job;

static void declared_body(sb_scene *scene, void *args)
{
    declared_job *job = (declared_job *)args;
    if (!push_written_tunable(scene->L, job->name))
        return;
    lua_rawgeti(scene->L, -1, 8);
    job->value = lua_tonumber(scene->L, -1);
    job->written = true;
    lua_pop(scene->L, 2);
}

bool sb_scene_tunable_declared(sb_scene *scene, const char *name, double *declared)
{
    declared_job job = {name, 0.0, false};
    if (!scene_host_call(scene, declared_body, &job, NULL, 0) || !job.written)
        return false;
    *declared = job.value;
    return true;
}

typedef struct pending_edit { char file[1024]; scene_edit edit; } pending_edit;

static int compare_edits(const void *a, const void *b)
{
    const pending_edit *x = (const pending_edit *)a, *y = (const pending_edit *)b;
    int c = strcmp(x->file, y->file);
    return c ? c : x->edit.offset < y->edit.offset ? -1 : x->edit.offset > y->edit.offset;
}

typedef struct write_job {
    int count;
    const char *const *names, *const *texts;
    char *message;
    size_t message_size;
    pending_edit *edits;
    scene_edit *group;
    int result;
} write_job;

static void write_body(sb_scene *scene, void *args)
{
    write_job *job = (write_job *)args;
    lua_State *L = scene->L;
    const char *const *names = job->names, *const *texts = job->texts;
    char *message = job->message;
    size_t message_size = job->message_size;
    pending_edit *edits = job->edits;
    int n = 0;
    job->result = -1;
    for (int i = 0; i < job->count; ++i) {
        char *end;
        if (strtod(texts[i], &end) == 0.0 && end == texts[i]) {
            snprintf(message, message_size, "'%s' is not a number to write for tunable '%s'", texts[i], names[i]);
            return;
        }
        if (!push_written_tunable(L, names[i])) {
            snprintf(message, message_size, "tunable '%s' is not written as a number in springbox.tune{ %s = {<number>, min, "
                                            "max} } (a variable or an expression?), so W cannot write it: edit the file",
                     names[i], names[i]);
            return;
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
            return;
        }
        n += 1;
    }
    qsort(edits, (size_t)n, sizeof *edits, compare_edits);
    job->result = 0;
    for (int first = 0; first < n;) {
        int last = first;
        while (last < n && strcmp(edits[last].file, edits[first].file) == 0)
            last += 1;
        for (int k = first; k < last; ++k)
            job->group[k - first] = edits[k].edit;
        lua_getfield(L, LUA_REGISTRYINDEX, "springbox.sources");
        lua_pushfstring(L, "@%s", edits[first].file);
        size_t len = 0;
        const char *loaded = lua_rawget(L, -2) == LUA_TSTRING ? lua_tolstring(L, -1, &len) : NULL;
        char why[512] = "the scene's text of it is not known";
        bool ok = loaded && scene_replace_in_file(edits[first].file, job->group, last - first, loaded, len, why, sizeof why);
        lua_pop(L, 2);
        if (!ok) {
            snprintf(message, message_size, "W did not write %s: %s", edits[first].file, why);
            scene_clean_text(message);
            job->result = -1;
            return;
        }
        job->result += last - first;
        first = last;
    }
}

int sb_scene_write_tunables(sb_scene *scene, int count, const char *const *names, const char *const *texts,
                            char *message, size_t message_size)
{
    message[0] = '\0';
    if (count <= 0)
        return 0;
    write_job job = {count, names, texts, message, message_size, calloc((size_t)count, sizeof *job.edits),
                     calloc((size_t)count, sizeof *job.group), -1};
    if (!job.edits || !job.group)
        snprintf(message, message_size, "out of memory");
    else if (!scene_host_call(scene, write_body, &job, message, message_size))
        job.result = -1;
    free(job.edits);
    free(job.group);
    return job.result;
}
