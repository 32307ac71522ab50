// Reloading a scene, as one pipeline: read and run the file in the sandbox into a new build
// (scene_build_run), keep the last good scene where that fails, compare the build's structure
// with the running one's, then either carry the running state over into the new worlds or
// restart the file afresh, and commit (scene_adopt). Every reload, saved, asked (R) or made by
// a slider, goes through scene_reload_now.
#include "scene_internal.h"

#include <lauxlib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/// Keeps the running scene's tunable declarations (springbox.tune) while a load runs: a load
/// that fails puts them back, so the sliders of the last good scene stay.
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

/// A copy of the sliders' values (springbox.overrides), kept while a load runs: the load may let
/// the file's new defaults replace some, and a load that fails puts them back.
static int overrides_keep(lua_State *L)
{
    lua_newtable(L);
    if (lua_getfield(L, LUA_REGISTRYINDEX, "springbox.overrides") == LUA_TTABLE) {
        lua_pushnil(L);
        while (lua_next(L, -2)) {
            lua_pushvalue(L, -2);
            lua_insert(L, -2);
            lua_rawset(L, -5);
        }
    }
    lua_pop(L, 1);
    return luaL_ref(L, LUA_REGISTRYINDEX);
}

/// Read and load: the file runs in the sandbox into `b`; the running tunables and the sliders'
/// values stay if it fails.
static bool load(sb_scene *scene, scene_build *b, char *error, size_t error_size)
{
    int kept = tunables_keep(scene->L), sliders = overrides_keep(scene->L);
    bool built = scene_build_run(scene, b, error, error_size);
    tunables_restore(scene->L, kept, !built);
    if (!built) {
        lua_rawgeti(scene->L, LUA_REGISTRYINDEX, sliders);
        lua_setfield(scene->L, LUA_REGISTRYINDEX, "springbox.overrides");
    }
    luaL_unref(scene->L, LUA_REGISTRYINDEX, sliders);
    return built;
}

/// Says which sliders' values the file's new defaults replaced in the last load, after `e`'s
/// message: "; the file sets deck_hz to 7 (its slider had 4.04)".
static sb_reload_event say_file_won(sb_scene *scene, sb_reload_event e)
{
    lua_State *L = scene->L;
    const int bottom = lua_gettop(L);
    if (lua_getfield(L, LUA_REGISTRYINDEX, "springbox.tunables.file_won") == LUA_TTABLE &&
        lua_getfield(L, LUA_REGISTRYINDEX, "springbox.tunables") == LUA_TTABLE) {
        const int won = bottom + 1, declared = bottom + 2;
        lua_pushnil(L);
        while (lua_next(L, won)) { // name -> the slider's value the file replaced
            const int top = lua_gettop(L);
            if (lua_type(L, top - 1) == LUA_TSTRING && lua_getfield(L, declared, lua_tostring(L, top - 1)) == LUA_TTABLE &&
                lua_rawgeti(L, -1, 1) == LUA_TNUMBER) {
                size_t used = strlen(e.message);
                snprintf(e.message + used, sizeof e.message - used, "; the file sets %s to %.6g (its slider had %.6g)",
                         lua_tostring(L, top - 1), lua_tonumber(L, -1), lua_tonumber(L, top));
            }
            lua_settop(L, top - 1); // the name stays for lua_next
        }
    }
    lua_settop(L, bottom);
    scene_clean_text(e.message);
    return e;
}

/// The load failed: the last good scene runs on, and the files the failed run loaded are
/// watched too, so saving any of them retries.
static sb_reload_event keep_last_good(sb_scene *scene, scene_build *b, const char *error)
{
    sb_reload_event e = scene_event(SB_RELOAD_FAILED, "%s", error);
    for (int i = 0; i < b->file_count; ++i) {
        bool known = false;
        for (int k = 0; k < scene->cur.file_count && !known; ++k)
            known = strcmp(scene->cur.files[k].path, b->files[i].path) == 0;
        if (!known)
            scene_record_file(&scene->cur, b->files[i].path);
    }
    // What is on disk now has been seen, the files this run did not reach included (a module
    // deleted while the file fails before its require would otherwise reload every frame).
    for (int k = 0; k < scene->cur.file_count; ++k)
        scene_watch_stat(&scene->cur.files[k]);
    scene_build_retire(scene, b, &scene->cur);
    scene_log_close_version(scene, b->version);
    scene_build_free(scene, b);
    return e;
}

/// What a reload does with the running state.
typedef enum reload_way { CARRY, RESHAPE, RESTART } reload_way;

/// Compare: whether build `b` takes the running state as it is (CARRY), takes it into the slots
/// it shares with the running worlds (RESHAPE: the file added things after the rest or took its
/// last ones away), or must restart, and why.
static reload_way compare(sb_scene *scene, const scene_build *b, bool force_restart, char *why, size_t n)
{
    if (force_restart) {
        snprintf(why, n, "asked for");
        return RESTART;
    }
    if (b->world_count != scene->cur.world_count) {
        snprintf(why, n, "%d worlds, was %d", b->world_count, scene->cur.world_count);
        return RESTART;
    }
    for (int i = 0; i < b->world_count; ++i)
        if (scene->shapes && scene_shape_changed_while_running(&scene->shapes[i], scene->cur.worlds[i], i, why, n))
            return RESTART;
    reload_way way = CARRY;
    for (int i = 0; i < b->world_count; ++i) {
        world_shape s;
        scene_shape_of(b->worlds[i], &s);
        bool differs = scene_shape_differs(&scene->shapes[i], &s, i, why, n);
        bool extends = differs && scene_shape_extends(&scene->shapes[i], &s) &&
                       sb_world_can_carry_state(b->worlds[i], scene->cur.worlds[i]);
        scene_shape_free(&s);
        if (differs && !extends)
            return RESTART;
        if (extends)
            way = RESHAPE;
    }
    for (int i = 0; way == CARRY && i < b->world_count; ++i)
        if (!sb_world_can_copy_state(b->worlds[i], scene->cur.worlds[i])) { // slots emptied and refilled at run time
            snprintf(why, n, "world %d: the running scene added or removed particles or springs since it was loaded", i + 1);
            return RESTART;
        }
    return way;
}

/// Restart: the file runs again with an empty springbox.state (the load above saw the old one);
/// if that run fails, the first build stands. Plots and the time machine start afresh, and the
/// build is committed.
static sb_reload_event restart(sb_scene *scene, scene_build *b, bool force_restart, const char *why)
{
    lua_pushnil(scene->L);
    lua_setfield(scene->L, LUA_REGISTRYINDEX, "springbox.state.current");
    scene_build fresh;
    char ignored[sizeof(((sb_reload_event *)0)->message)];
    if (load(scene, &fresh, ignored, sizeof ignored)) {
        scene_build_retire(scene, b, &fresh);
        scene_build_free(scene, b);
        *b = fresh;
    } else {
        scene_build_retire(scene, &fresh, b);
        scene_log_close_version(scene, fresh.version);
        scene_build_free(scene, &fresh);
    }
    lua_pushnil(scene->L); // a restarted scene plots afresh: the old series free their panels
    lua_setfield(scene->L, LUA_REGISTRYINDEX, "springbox.plots");
    lua_pushnil(scene->L);
    lua_setfield(scene->L, LUA_REGISTRYINDEX, "springbox.plots.panel");
    sb_scene_history_clear(scene); // its moments are of worlds built another way
    scene_adopt(scene, b, NULL);
    if (force_restart)
        return scene_event(SB_RELOAD_RESTARTED, "restarted from the file, as asked%s", NULL);
    return scene_event(SB_RELOAD_RESTARTED, "structure changed: restarted (%s)", why);
}

/// "2 particles and 1 spring added", "1 spring taken away": how the new worlds' structure
/// differs in size from the running ones', after `text`.
static void say_reshaped(sb_scene *scene, const scene_build *b, char *text, size_t n)
{
    int particles = 0, springs = 0, constraints = 0;
    for (int i = 0; i < b->world_count; ++i) {
        particles += sb_world_particle_count(b->worlds[i]) - scene->shapes[i].particles;
        springs += sb_world_spring_count(b->worlds[i]) - scene->shapes[i].springs;
        constraints += sb_world_constraint_count(b->worlds[i]) - scene->shapes[i].constraints;
    }
    const struct { int count; const char *name; } parts[] = {
        {particles, "particle"}, {springs, "spring"}, {constraints, "constraint"}};
    size_t used = 0;
    for (int sign = 1; sign >= -1; sign -= 2) { // "2 particles and 1 spring added; 1 constraint taken away"
        int listed = 0, left = 0;
        for (int k = 0; k < 3; ++k)
            left += parts[k].count * sign > 0;
        for (int k = 0; k < 3 && used < n; ++k) {
            const int count = parts[k].count * sign;
            if (count <= 0)
                continue;
            left -= 1;
            used += (size_t)snprintf(text + used, n - used, "%s%d %s%s", listed ? (left ? ", " : " and ") : used ? "; " : "",
                                     count, parts[k].name, count == 1 ? "" : "s");
            listed += 1;
        }
        if (listed && used < n)
            used += (size_t)snprintf(text + used, n - used, " %s", sign > 0 ? "added" : "taken away");
    }
    if (used == 0)
        snprintf(text, n, "walls changed");
}

/// Carry over: the new worlds take over the running state and their tuning ramps in; the
/// recorded shapes (start positions) stay, with the new worlds' handle generations (which
/// scene_shape_changed_while_running compares at the next reload); then the build is committed.
/// Reshaped, the new worlds' own shapes are recorded (taken as built, before the state comes
/// in), and the time machine's moments, of the old structure, are forgotten.
static sb_reload_event carry_over(sb_scene *scene, scene_build *b, bool reshaped)
{
    world_shape *built = reshaped ? calloc((size_t)b->world_count, sizeof *built) : NULL;
    if (reshaped && !built)
        return restart(scene, b, false, "out of memory");
    char what[256] = "";
    if (reshaped) {
        say_reshaped(scene, b, what, sizeof what);
        for (int i = 0; i < b->world_count; ++i)
            scene_shape_of(b->worlds[i], &built[i]);
    }
    int ramps = 0;
    for (int i = 0; i < b->world_count; ++i)
        ramps += scene_carry_over(scene, b->worlds[i], scene->cur.worlds[i]);
    world_shape *shapes = scene->shapes;
    scene->shapes = NULL;
    for (int i = 0; i < b->world_count && !reshaped; ++i) {
        world_shape fresh;
        scene_shape_of(b->worlds[i], &fresh);
        if (fresh.particles < 0) // out of memory: the next reload restarts, which is safe
            continue;
        uint32_t *pg = shapes[i].p_gen, *sg = shapes[i].s_gen;
        shapes[i].p_gen = fresh.p_gen;
        shapes[i].s_gen = fresh.s_gen;
        shapes[i].c_gens = fresh.c_gens;
        shapes[i].broken_total = fresh.broken_total;
        fresh.p_gen = pg;
        fresh.s_gen = sg;
        scene_shape_free(&fresh);
    }
    if (reshaped) {
        for (int i = 0; i < b->world_count; ++i) {
            built[i].broken_total = sb_world_get_stats(b->worlds[i])->broken_springs_total;
            scene_shape_free(&shapes[i]);
        }
        free(shapes);
        shapes = built;
        sb_scene_history_clear(scene); // its moments are of worlds built another way
    }
    scene_adopt(scene, b, shapes);
    char detail[320];
    if (ramps == 0 && reshaped) {
        sb_reload_event e = scene_event(SB_RELOAD_KEPT, "%s: state kept", what);
        e.reshaped = true;
        return e;
    }
    // Only what is true: a save that changed no spring, mass or gravity (a comment, a colour,
    // a solver setting) is not a tuning
    if (ramps == 0)
        return scene_event(SB_RELOAD_KEPT, "reloaded, state kept: no spring, mass or gravity changed%s", NULL);
    snprintf(detail, sizeof detail, "%s%s%d change%s ramp in over %.2g s", what, what[0] ? "; " : "", ramps,
             ramps == 1 ? "" : "s", scene->opt.ramp_seconds);
    sb_reload_event e = scene_event(SB_RELOAD_KEPT, "tuning applied, state kept (%s)", detail);
    e.reshaped = reshaped;
    return e;
}

/// The pipeline: load -> (failed: keep the last good) -> compare -> restart or carry over.
static sb_reload_event reload(sb_scene *scene, bool force_restart)
{
    scene_build b;
    char error[sizeof(((sb_reload_event *)0)->message)];
    lua_newtable(scene->L); // the sliders whose values the file's new defaults replace (say_file_won)
    lua_setfield(scene->L, LUA_REGISTRYINDEX, "springbox.tunables.file_won");
    if (!load(scene, &b, error, sizeof error))
        return keep_last_good(scene, &b, error);
    char why[512] = "";
    const reload_way way = compare(scene, &b, force_restart, why, sizeof why);
    if (way == RESTART)
        return say_file_won(scene, restart(scene, &b, force_restart, why));
    return say_file_won(scene, carry_over(scene, &b, way == RESHAPE));
}

typedef struct reload_job { bool force_restart; sb_reload_event event; } reload_job;

static void reload_body(sb_scene *scene, void *args)
{
    reload_job *job = (reload_job *)args;
    job->event = reload(scene, job->force_restart);
}

sb_reload_event scene_reload_now(sb_scene *scene, bool force_restart)
{
    reload_job job = {force_restart, {0}};
    char error[512];
    if (!scene_host_call(scene, reload_body, &job, error, sizeof error))
        return scene_event(SB_RELOAD_FAILED, "%s", error);
    return job.event;
}
