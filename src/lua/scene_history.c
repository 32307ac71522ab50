// The scene's history: after each frame the window asks for, a snapshot of
// every world and a copy of springbox.state, the last minute of them within a memory budget,
// so that the window can go back to any kept moment and resume from it. Going back keeps the
// tuning of now (sb_world_restore_keep_tuning): a designer who saved a new damping ratio and
// rewinds sees the same moment again under the new value. A restart forgets the history.
#include "scene_internal.h"
#include "sb_lua.h"

#include <lauxlib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/// springbox.state copies, by moment number, live in this registry table.
#define HISTORY_STATES "springbox.history.states"

/// What keeping a moment may cost: the entries of springbox.state one copy may visit, and the
/// frames a recording's cost is averaged over (the host gives the milliseconds it may take).
/// Past the first, springbox.state is not rewound; past the second, no more moments are kept;
/// sb_scene_history_status says which and why.
#define HISTORY_STATE_ENTRIES 100000L
#define HISTORY_COST_FRAMES 16

typedef struct moment {
    sb_snapshot **worlds;     // one per world of the scene
    int world_count;
    size_t world_bytes, state_bytes;
    bool has_state;
    long number;              // moments recorded so far when this one was: its key in HISTORY_STATES
    unsigned version;         // the run of the scene file that was running then
    long frames;              // sb_scene_frames then
    double time;              // the first world's clock
} moment;

struct scene_history {
    moment *ring;
    int cap, first, count;
    size_t max_bytes, bytes, state_bytes;
    long recorded;
    bool state_off;           // a copy of springbox.state failed (too big, or too deep): worlds only
    bool off;                 // recording cost more than the frame can afford: no moments kept
    double cost_ms;           // a frame's recording, averaged over about HISTORY_COST_FRAMES frames
    double max_ms;            // what it may be, or as much as the physics takes
    double physics_ms;        // the worlds' step, averaged as cost_ms
    int costed;               // frames in cost_ms
    char status[256];         // what is not kept and why ("" when everything is)
};

static void forget_state_body(sb_scene *scene, void *args)
{
    const moment *m = (const moment *)args;
    if (lua_getfield(scene->L, LUA_REGISTRYINDEX, HISTORY_STATES) == LUA_TTABLE) {
        lua_pushnil(scene->L);
        lua_rawseti(scene->L, -2, m->number);
    }
    lua_pop(scene->L, 1);
}

static void moment_free(sb_scene *scene, moment *m)
{
    for (int i = 0; i < m->world_count; ++i)
        sb_snapshot_destroy(m->worlds[i]);
    free(m->worlds);
    if (m->has_state) // setting an existing integer key to nil allocates nothing; protected all the same
        scene_host_call(scene, forget_state_body, m, NULL, 0);
    memset(m, 0, sizeof *m);
}

static moment *moment_at(const struct scene_history *h, int i) { return &h->ring[(h->first + i) % h->cap]; }

static void drop_oldest(sb_scene *scene)
{
    struct scene_history *h = scene->history;
    moment *m = moment_at(h, 0);
    h->bytes -= m->world_bytes + m->state_bytes;
    h->state_bytes -= m->state_bytes;
    moment_free(scene, m);
    h->first = (h->first + 1) % h->cap;
    h->count -= 1;
}

void sb_scene_history_clear(sb_scene *scene)
{
    struct scene_history *h = scene->history;
    while (h && h->count > 0)
        drop_oldest(scene);
    if (h) {
        h->state_off = h->off = false;
        h->cost_ms = h->physics_ms = 0.0;
        h->costed = 0;
        h->status[0] = '\0';
    }
}

void sb_scene_history_enable(sb_scene *scene, double seconds, size_t max_bytes, double max_ms)
{
    if (scene->history)
        return;
    struct scene_history *h = calloc(1, sizeof *h);
    if (!h)
        return;
    double dt = sb_world_get_def(scene->cur.worlds[0]).dt;
    int cap = (int)(seconds / (dt > 0.0 ? dt : 1.0 / 60.0)) + 1;
    h->cap = cap < 2 ? 2 : cap > 1000000 ? 1000000 : cap;
    h->ring = calloc((size_t)h->cap, sizeof *h->ring);
    if (!h->ring) {
        free(h);
        return;
    }
    h->max_bytes = max_bytes;
    h->max_ms = max_ms;
    scene->history = h;
}

void scene_history_free(sb_scene *scene)
{
    if (!scene->history)
        return;
    sb_scene_history_clear(scene);
    free(scene->history->ring);
    free(scene->history);
    scene->history = NULL;
}

/// Protected: [table] -> [copy], visiting at most HISTORY_STATE_ENTRIES entries.
static int copy_protected(lua_State *L)
{
    long budget = HISTORY_STATE_ENTRIES;
    lua_newtable(L);
    lua_insert(L, 1);
    sb_lua_copy_table_within(L, 1, "springbox.state", false, NULL, 0, &budget);
    return 1;
}

/// Protected: [state, saved, data_only]: empties state and fills it with a copy of saved's
/// entries, so that the table the scene holds (springbox.state's result, kept in a local) is the
/// one that goes back. With data_only (a moment of an earlier version of the scene) what a
/// reload leaves out of springbox.state stays out: functions, coroutines and metatables.
static int refill_protected(lua_State *L)
{
    bool data_only = lua_toboolean(L, 3);
    lua_settop(L, 2);
    lua_pushnil(L);
    while (lua_next(L, 1)) { // clearing a field during traversal is allowed (lua_next)
        lua_pop(L, 1);
        lua_pushvalue(L, -1);
        lua_pushnil(L);
        lua_rawset(L, 1);
    }
    lua_newtable(L);
    int seen = lua_gettop(L), dropped = 0;
    lua_pushnil(L);
    while (lua_next(L, 2)) {
        int kt = lua_type(L, -2), vt = lua_type(L, -1);
        if (data_only && (kt == LUA_TFUNCTION || kt == LUA_TTHREAD || vt == LUA_TFUNCTION || vt == LUA_TTHREAD)) {
            lua_pop(L, 1);
            continue;
        }
        lua_pushvalue(L, -2);
        sb_lua_copy_table(L, seen, "springbox.state", data_only, &dropped, 1);
        lua_pushvalue(L, -2);
        sb_lua_copy_table(L, seen, "springbox.state", data_only, &dropped, 1);
        lua_rawset(L, 1);
        lua_pop(L, 1);
    }
    return 0;
}

typedef struct state_job { moment *m; size_t before; bool ok; char why[160]; } state_job;

/// Copies springbox.state into HISTORY_STATES[m->number]; job->ok false if it could not (too
/// big, too deep, memory), with the reason.
static void record_state_body(sb_scene *scene, void *args)
{
    state_job *job = (state_job *)args;
    lua_State *L = scene->L;
    job->ok = true;
    if (lua_getfield(L, LUA_REGISTRYINDEX, "springbox.state.current") != LUA_TTABLE)
        return; // nothing to keep
    if (lua_getfield(L, LUA_REGISTRYINDEX, HISTORY_STATES) != LUA_TTABLE) {
        lua_pop(L, 1);
        lua_newtable(L);
        lua_pushvalue(L, -1);
        lua_setfield(L, LUA_REGISTRYINDEX, HISTORY_STATES);
    }
    lua_insert(L, -2); // [states, state]
    job->before = scene->memory;
    lua_pushcfunction(L, copy_protected);
    lua_insert(L, -2);
    if (lua_pcall(L, 1, 1, 0) != LUA_OK) {
        job->ok = false;
        snprintf(job->why, sizeof job->why, "%s", lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : "error");
        lua_pop(L, 2);
        return;
    }
    lua_rawseti(L, -2, job->m->number);
    lua_pop(L, 1);
    job->m->has_state = true;
    job->m->state_bytes = scene->memory > job->before ? scene->memory - job->before : 0;
}

/// Keeps this frame's recording cost in the average; past what a frame can afford (the host's
/// allowance, or the physics' own time where that is more) the history stops keeping moments and
/// says so.
static void count_cost(sb_scene *scene, double ms)
{
    struct scene_history *h = scene->history;
    double physics = 0.0;
    for (int i = 0; i < scene->cur.world_count; ++i)
        physics += sb_world_get_stats(scene->cur.worlds[i])->step_ms;
    h->costed += h->costed < HISTORY_COST_FRAMES;
    h->cost_ms += (ms - h->cost_ms) / h->costed;
    h->physics_ms += (physics - h->physics_ms) / h->costed;
    if (h->costed < HISTORY_COST_FRAMES / 2 || h->cost_ms <= h->max_ms || h->cost_ms <= h->physics_ms)
        return;
    while (h->count > 0)
        drop_oldest(scene);
    h->off = true;
    snprintf(h->status, sizeof h->status, "rewind is off: keeping this scene's moments took %.1f ms a frame, more "
                                          "than the %.3g ms allowed and the physics' %.2f ms", h->cost_ms, h->max_ms,
             h->physics_ms);
}

void sb_scene_history_record(sb_scene *scene)
{
    struct scene_history *h = scene->history;
    if (!h || h->off)
        return;
    double start = scene_seconds();
    if (h->count == h->cap)
        drop_oldest(scene);
    moment *m = moment_at(h, h->count);
    memset(m, 0, sizeof *m);
    m->worlds = calloc((size_t)scene->cur.world_count, sizeof *m->worlds);
    if (!m->worlds)
        return;
    m->world_count = scene->cur.world_count;
    m->number = h->recorded++;
    m->version = scene->cur.version;
    m->frames = scene->frames;
    m->time = sb_world_get_stats(scene->cur.worlds[0])->time;
    for (int i = 0; i < m->world_count; ++i) {
        m->worlds[i] = sb_world_snapshot(scene->cur.worlds[i]);
        if (!m->worlds[i]) { // out of memory: this moment is not kept
            moment_free(scene, m);
            return;
        }
        m->world_bytes += sb_snapshot_bytes(m->worlds[i]);
    }
    if (!h->state_off) {
        state_job job = {m, 0, false, ""};
        if (!scene_host_call(scene, record_state_body, &job, job.why, sizeof job.why) || !job.ok) {
            h->state_off = true;
            scene_clean_text(job.why);
            snprintf(h->status, sizeof h->status, "springbox.state is not rewound: %s", job.why);
        }
    }
    h->count += 1;
    h->bytes += m->world_bytes + m->state_bytes;
    h->state_bytes += m->state_bytes;
    // The state's copies share the scene's memory limit: at most an eighth of it.
    while (h->count > 1 && (h->bytes > h->max_bytes || h->state_bytes > scene->opt.memory_limit / 8))
        drop_oldest(scene);
    count_cost(scene, (scene_seconds() - start) * 1e3);
}

int sb_scene_history_count(const sb_scene *scene) { return scene->history ? scene->history->count : 0; }

double sb_scene_history_time(const sb_scene *scene, int i)
{
    const struct scene_history *h = scene->history;
    return h && i >= 0 && i < h->count ? moment_at(h, i)->time : 0.0;
}

size_t sb_scene_history_bytes(const sb_scene *scene) { return scene->history ? scene->history->bytes : 0; }

bool sb_scene_history_keeps_state(const sb_scene *scene) { return scene->history && !scene->history->state_off; }

const char *sb_scene_history_status(const sb_scene *scene) { return scene->history ? scene->history->status : ""; }

typedef struct refill_job { const moment *m; bool data_only; } refill_job;

static void refill_body(sb_scene *scene, void *args)
{
    refill_job *job = (refill_job *)args;
    lua_State *L = scene->L;
    lua_pushcfunction(L, refill_protected);
    bool ok = lua_getfield(L, LUA_REGISTRYINDEX, "springbox.state.current") == LUA_TTABLE &&
              lua_getfield(L, LUA_REGISTRYINDEX, HISTORY_STATES) == LUA_TTABLE &&
              lua_rawgeti(L, -1, job->m->number) == LUA_TTABLE;
    if (ok) {
        lua_remove(L, -2); // [refill, state, saved]
        lua_pushboolean(L, job->data_only);
        lua_pcall(L, 3, 0, 0);
    }
}

bool sb_scene_history_go(sb_scene *scene, int i)
{
    struct scene_history *h = scene->history;
    if (!h || i < 0 || i >= h->count)
        return false;
    moment *m = moment_at(h, i);
    if (m->world_count != scene->cur.world_count)
        return false;
    for (int k = 0; k < m->world_count; ++k)
        if (sb_world_restore_keep_tuning(scene->cur.worlds[k], m->worlds[k]) != SB_OK)
            return false;
    scene->frames = m->frames;
    // a moment of an earlier version of the file comes back as data, as a reload carries it
    refill_job job = {m, m->version != scene->cur.version};
    if (m->has_state)
        scene_host_call(scene, refill_body, &job, NULL, 0);
    return true;
}

void sb_scene_history_cut(sb_scene *scene, int i)
{
    struct scene_history *h = scene->history;
    while (h && h->count > i + 1 && h->count > 0) {
        moment *m = moment_at(h, h->count - 1);
        h->bytes -= m->world_bytes + m->state_bytes;
        h->state_bytes -= m->state_bytes;
        moment_free(scene, m);
        h->count -= 1;
    }
}
