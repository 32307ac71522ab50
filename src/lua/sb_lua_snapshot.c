// Snapshots: w:snapshot() and w:restore(s), within a budget of memory per Lua state.
#include "sb_lua_internal.h"

// A snapshot's memory is the core's, out of sight of Lua's collector and of the sandbox's
// memory limit, so the live snapshots of a Lua state share a budget: a snapshot that would pass
// it makes a full collection free those no longer referenced and, if that is not enough, is not
// kept: w:snapshot() refuses by name. (A scene taking one per frame and keeping none never
// reaches it.)
#define SNAPSHOT_BUDGET ((size_t)512 << 20)
static const char snapshot_bytes_key = 'S'; // registry: live snapshot bytes, as an integer

typedef struct lua_snapshot { sb_snapshot *snap; size_t bytes; } lua_snapshot;

static size_t snapshot_live_bytes(lua_State *L)
{
    lua_rawgetp(L, LUA_REGISTRYINDEX, &snapshot_bytes_key);
    size_t n = (size_t)lua_tointeger(L, -1);
    lua_pop(L, 1);
    return n;
}

static void snapshot_count_bytes(lua_State *L, size_t n)
{
    lua_pushinteger(L, (lua_Integer)n);
    lua_rawsetp(L, LUA_REGISTRYINDEX, &snapshot_bytes_key);
}

// w:snapshot() -> a snapshot of the world as it stands (w:restore puts it back)
int l_world_snapshot(lua_State *L)
{
    sb_world *world = check_world(L, 1);
    lua_snapshot *ud = (lua_snapshot *)lua_newuserdatauv(L, sizeof *ud, 0);
    ud->snap = NULL;
    ud->bytes = 0;
    luaL_setmetatable(L, SNAPSHOT_MT);
    sb_snapshot *snap = sb_world_snapshot(world);
    if (!snap)
        return luaL_error(L, "snapshot(): out of memory");
    size_t bytes = sb_snapshot_bytes(snap);
    if (snapshot_live_bytes(L) + bytes > SNAPSHOT_BUDGET)
        lua_gc(L, LUA_GCCOLLECT); // the ones nothing refers to any more go first
    size_t live = snapshot_live_bytes(L);
    if (live + bytes > SNAPSHOT_BUDGET) {
        sb_snapshot_destroy(snap);
        return luaL_error(L, "snapshot(): this one (%d MB) would bring the snapshots still referenced to %d MB, more "
                             "than the %d MB allowed; drop the ones no longer needed (a snapshot is freed once nothing "
                             "refers to it)", (int)(bytes >> 20), (int)((live + bytes) >> 20), (int)(SNAPSHOT_BUDGET >> 20));
    }
    ud->snap = snap;
    ud->bytes = bytes;
    snapshot_count_bytes(L, live + bytes);
    return 1;
}

static lua_snapshot *check_snapshot(lua_State *L, int idx)
{
    lua_snapshot *ud = (lua_snapshot *)luaL_checkudata(L, idx, SNAPSHOT_MT);
    if (!ud->snap)
        luaL_error(L, "attempt to use a freed snapshot");
    return ud;
}

// w:restore(snapshot [, {keep_tuning = true}]): the world as the snapshot holds it, structure,
// tuning and settings included; keep_tuning keeps the tuning its springs and constraints have now
int l_world_restore(lua_State *L)
{
    sb_world *world = check_world(L, 1);
    lua_snapshot *ud = check_snapshot(L, 2);
    bool keep_tuning = false;
    if (!lua_isnoneornil(L, 3)) {
        luaL_checktype(L, 3, LUA_TTABLE);
        lua_pushnil(L);
        while (lua_next(L, 3)) {
            const char *key = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : NULL;
            if (!key || strcmp(key, "keep_tuning") != 0)
                return arg_error(L, 3, lua_pushfstring(L, "restore options have no field '%s' (they have keep_tuning)",
                                                       key ? key : luaL_typename(L, -2)));
            if (!lua_isboolean(L, -1))
                return arg_error(L, 3, lua_pushfstring(L, "keep_tuning must be true or false, got %s", describe(L, -1)));
            keep_tuning = lua_toboolean(L, -1);
            lua_pop(L, 1);
        }
    }
    if ((keep_tuning ? sb_world_restore_keep_tuning(world, ud->snap) : sb_world_restore(world, ud->snap)) != SB_OK)
        return luaL_error(L, "restore(): out of memory (the world is as it was)");
    return 0;
}

static int l_snapshot_gc(lua_State *L)
{
    lua_snapshot *ud = (lua_snapshot *)luaL_checkudata(L, 1, SNAPSHOT_MT);
    if (ud->snap) {
        size_t live = snapshot_live_bytes(L);
        snapshot_count_bytes(L, live > ud->bytes ? live - ud->bytes : 0);
        sb_snapshot_destroy(ud->snap);
        ud->snap = NULL;
    }
    return 0;
}

// snapshot.time (the world's clock when it was taken, s), snapshot.bytes
static int l_snapshot_index(lua_State *L)
{
    lua_snapshot *ud = check_snapshot(L, 1);
    const char *key = lua_tostring(L, 2);
    if (key && strcmp(key, "time") == 0)
        lua_pushnumber(L, sb_snapshot_time(ud->snap));
    else if (key && strcmp(key, "bytes") == 0)
        lua_pushinteger(L, (lua_Integer)ud->bytes);
    else
        return luaL_error(L, "snapshot has no field '%s' (it has time and bytes)", key ? key : luaL_typename(L, 2));
    return 1;
}

static int l_snapshot_tostring(lua_State *L)
{
    lua_snapshot *ud = (lua_snapshot *)luaL_checkudata(L, 1, SNAPSHOT_MT);
    if (!ud->snap)
        lua_pushliteral(L, "snapshot (freed)");
    else
        lua_pushfstring(L, "snapshot at %f s (%d KB)", sb_snapshot_time(ud->snap), (int)(ud->bytes >> 10));
    return 1;
}

const luaL_Reg snapshot_meta[] = {
    {"__index", l_snapshot_index}, {"__tostring", l_snapshot_tostring}, {"__gc", l_snapshot_gc},
    {"__close", l_snapshot_gc},    {NULL, NULL},
};
