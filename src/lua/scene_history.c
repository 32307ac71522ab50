// The scene's history (issue 21 item 2): after each frame the window asks for, a snapshot of
// every world and a copy of springbox.state, the last minute of them within a memory budget,
// so that the window can go back to any kept moment and resume from it. Going back keeps the
// tuning of now (sb_world_restore_keep_tuning): a designer who saved a new damping ratio and
// rewinds sees the same moment again under the new value. A restart forgets the history.
#include "scene_internal.h"
#include "sb_lua.h"

#include <lauxlib.h>
#include <stdlib.h>
#include <string.h>

/// springbox.state copies, by moment number, live in this registry table.
#define HISTORY_STATES "springbox.history.states"

typedef struct moment {
    sb_snapshot **worlds;     // one per world of the scene
    int world_count;
    size_t world_bytes, state_bytes;
    bool has_state;
    long number;              // moments recorded so far when this one was: its key in HISTORY_STATES
    double time;              // the first world's clock
} moment;

struct scene_history {
    moment *ring;
    int cap, first, count;
    size_t max_bytes, bytes, state_bytes;
    long recorded;
    bool state_off;           // a copy of springbox.state failed (too big, or too deep): worlds only
};

static void moment_free(sb_scene *scene, moment *m)
{
    for (int i = 0; i < m->world_count; ++i)
        sb_snapshot_destroy(m->worlds[i]);
    free(m->worlds);
    if (m->has_state) {
        if (lua_getfield(scene->L, LUA_REGISTRYINDEX, HISTORY_STATES) == LUA_TTABLE) {
            lua_pushnil(scene->L);
            lua_rawseti(scene->L, -2, m->number);
        }
        lua_pop(scene->L, 1);
    }
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
    if (h)
        h->state_off = false;
}

void sb_scene_history_enable(sb_scene *scene, double seconds, size_t max_bytes)
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

/// Protected: [table] -> [copy].
static int copy_protected(lua_State *L)
{
    lua_newtable(L);
    lua_insert(L, 1);
    sb_lua_copy_table(L, 1, NULL, false, NULL, 0);
    return 1;
}

/// Protected: [state, saved]: empties state and fills it with a copy of saved's entries, so that
/// the table the scene holds (springbox.state's result, kept in a local) is the one that goes back.
static int refill_protected(lua_State *L)
{
    lua_pushnil(L);
    while (lua_next(L, 1)) { // clearing a field during traversal is allowed (lua_next)
        lua_pop(L, 1);
        lua_pushvalue(L, -1);
        lua_pushnil(L);
        lua_rawset(L, 1);
    }
    lua_newtable(L);
    int seen = lua_gettop(L);
    lua_pushnil(L);
    while (lua_next(L, 2)) {
        lua_pushvalue(L, -2);
        sb_lua_copy_table(L, seen, NULL, false, NULL, 1);
        lua_pushvalue(L, -2);
        sb_lua_copy_table(L, seen, NULL, false, NULL, 1);
        lua_rawset(L, 1);
        lua_pop(L, 1);
    }
    return 0;
}

/// Copies springbox.state into HISTORY_STATES[m->number]; false if it could not (memory, depth).
static bool record_state(sb_scene *scene, moment *m)
{
    lua_State *L = scene->L;
    int top = lua_gettop(L);
    if (lua_getfield(L, LUA_REGISTRYINDEX, "springbox.state.current") != LUA_TTABLE) {
        lua_settop(L, top);
        return true; // nothing to keep
    }
    if (lua_getfield(L, LUA_REGISTRYINDEX, HISTORY_STATES) != LUA_TTABLE) {
        lua_pop(L, 1);
        lua_newtable(L);
        lua_pushvalue(L, -1);
        lua_setfield(L, LUA_REGISTRYINDEX, HISTORY_STATES);
    }
    lua_insert(L, -2); // [states, state]
    size_t before = scene->memory;
    lua_pushcfunction(L, copy_protected);
    lua_insert(L, -2);
    if (lua_pcall(L, 1, 1, 0) != LUA_OK) {
        lua_settop(L, top);
        return false;
    }
    lua_rawseti(L, -2, m->number);
    m->has_state = true;
    m->state_bytes = scene->memory > before ? scene->memory - before : 0;
    lua_settop(L, top);
    return true;
}

void sb_scene_history_record(sb_scene *scene)
{
    struct scene_history *h = scene->history;
    if (!h)
        return;
    if (h->count == h->cap)
        drop_oldest(scene);
    moment *m = moment_at(h, h->count);
    memset(m, 0, sizeof *m);
    m->worlds = calloc((size_t)scene->cur.world_count, sizeof *m->worlds);
    if (!m->worlds)
        return;
    m->world_count = scene->cur.world_count;
    m->number = h->recorded++;
    m->time = sb_world_get_stats(scene->cur.worlds[0])->time;
    for (int i = 0; i < m->world_count; ++i) {
        m->worlds[i] = sb_world_snapshot(scene->cur.worlds[i]);
        if (!m->worlds[i]) { // out of memory: this moment is not kept
            moment_free(scene, m);
            return;
        }
        m->world_bytes += sb_snapshot_bytes(m->worlds[i]);
    }
    // The state's copies share the scene's memory limit: at most an eighth of it.
    if (!h->state_off && !record_state(scene, m))
        h->state_off = true;
    h->count += 1;
    h->bytes += m->world_bytes + m->state_bytes;
    h->state_bytes += m->state_bytes;
    while (h->count > 1 && (h->bytes > h->max_bytes || h->state_bytes > scene->opt.memory_limit / 8))
        drop_oldest(scene);
}

int sb_scene_history_count(const sb_scene *scene) { return scene->history ? scene->history->count : 0; }

double sb_scene_history_time(const sb_scene *scene, int i)
{
    const struct scene_history *h = scene->history;
    return h && i >= 0 && i < h->count ? moment_at(h, i)->time : 0.0;
}

size_t sb_scene_history_bytes(const sb_scene *scene) { return scene->history ? scene->history->bytes : 0; }

bool sb_scene_history_keeps_state(const sb_scene *scene) { return scene->history && !scene->history->state_off; }

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
    if (m->has_state) {
        lua_State *L = scene->L;
        int top = lua_gettop(L);
        lua_pushcfunction(L, refill_protected);
        bool ok = lua_getfield(L, LUA_REGISTRYINDEX, "springbox.state.current") == LUA_TTABLE &&
                  lua_getfield(L, LUA_REGISTRYINDEX, HISTORY_STATES) == LUA_TTABLE &&
                  lua_rawgeti(L, -1, m->number) == LUA_TTABLE;
        if (ok) {
            lua_remove(L, -2); // [refill, state, saved]
            lua_pcall(L, 2, 0, 0);
        }
        lua_settop(L, top);
    }
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
