// The springbox Lua module. Every argument is checked with the auxiliary library; a bad
// one raises a Lua error that names the argument (or field) and the value, never a crash.
#include "sb_lua.h"
#include "sb_pool.h"

#include "sb_tune_source.h"
#include "sb_tuning.h"

#include <ctype.h>
#include <lauxlib.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#define WORLD_MT "springbox.world"
#define SNAPSHOT_MT "springbox.snapshot"
#define PARTICLE_MT "springbox.particle"
#define SPRING_MT "springbox.spring"
#define CONSTRAINT_MT "springbox.constraint"

// world: NULL once closed. pinned: a scene host runs it and closes it itself (as Lua's standard
// files, which "cannot close standard file"): a script cannot close it from under the host.
// retired: a scene host replaced it on a reload (sb_lua_retire_world); its handles are stale.
typedef struct lua_world { sb_world *world; int pinned; bool retired; } lua_world;
typedef struct lua_particle { sb_particle_id id; } lua_particle;   // user value 1: its world
typedef struct lua_spring { sb_spring_id id; } lua_spring;         // user value 1: its world

// ---------------------------------------------------------------- argument helpers

// Errors name what was wrong: an argument (arg > 0, through luaL_argerror) or a property
// being assigned (arg == 0, where `msg` already starts with "world.gravity ..." and the like).
static int arg_error(lua_State *L, int arg, const char *msg)
{
    if (arg > 0)
        return luaL_argerror(L, arg, msg);
    return luaL_error(L, "%s", msg);
}

// How a value is named in messages: "field 'mass'" in a definition, "particle.mass" when assigned.
static const char *value_name(lua_State *L, int arg, const char *kind, const char *key)
{
    return arg > 0 ? lua_pushfstring(L, "field '%s'", key) : lua_pushfstring(L, "%s.%s", kind, key);
}

// The value at idx as text for an error message ("nan", "-1", "'abc'", "table").
static const char *describe(lua_State *L, int idx)
{
    idx = lua_absindex(L, idx);
    switch (lua_type(L, idx)) {
    case LUA_TSTRING: return lua_pushfstring(L, "'%s'", lua_tostring(L, idx));
    case LUA_TNUMBER: {
        double v = lua_tonumber(L, idx);
        if (isnan(v))
            return lua_pushliteral(L, "nan");
        return luaL_tolstring(L, idx, NULL);
    }
    default: return luaL_tolstring(L, idx, NULL);
    }
}

// A finite number from the value at idx; `what` names it in the error, e.g. "field 'mass'".
static double check_finite_at(lua_State *L, int idx, int arg, const char *what)
{
    if (lua_type(L, idx) != LUA_TNUMBER) {
        const char *got = describe(L, idx);
        arg_error(L, arg, lua_pushfstring(L, "%s must be a number, got %s", what, got));
    }
    double v = lua_tonumber(L, idx);
    if (!isfinite(v)) {
        const char *got = describe(L, idx);
        arg_error(L, arg, lua_pushfstring(L, "%s must be finite, got %s", what, got));
    }
    return v;
}

static bool check_bool_at(lua_State *L, int idx, int arg, const char *what)
{
    if (lua_type(L, idx) != LUA_TBOOLEAN) {
        const char *got = describe(L, idx);
        arg_error(L, arg, lua_pushfstring(L, "%s must be a boolean, got %s", what, got));
    }
    return lua_toboolean(L, idx);
}

// True if `key` is one of `fields` (NULL-terminated).
static bool is_field(const char *key, const char *const *fields)
{
    for (const char *const *f = fields; key && *f; ++f)
        if (strcmp(key, *f) == 0)
            return true;
    return false;
}

// Rejects keys of table `tbl` that are not in `allowed` (NULL-terminated): a typo in a
// definition must not be silently ignored.
static void check_keys(lua_State *L, int tbl, int arg, const char *kind, const char *const *allowed)
{
    tbl = lua_absindex(L, tbl);
    lua_pushnil(L);
    while (lua_next(L, tbl)) {
        lua_pop(L, 1);
        bool ok = false;
        if (lua_type(L, -1) == LUA_TSTRING) {
            const char *key = lua_tostring(L, -1);
            for (const char *const *a = allowed; *a && !ok; ++a)
                ok = strcmp(key, *a) == 0;
        }
        if (!ok) {
            luaL_Buffer b;
            luaL_buffinit(L, &b);
            for (const char *const *a = allowed; *a; ++a) {
                luaL_addstring(&b, *a);
                if (a[1])
                    luaL_addstring(&b, ", ");
            }
            luaL_pushresult(&b);
            const char *expected = lua_tostring(L, -1);
            const char *key = describe(L, -2);
            arg_error(L, arg, lua_pushfstring(L, "unknown %s field %s (expected one of: %s)", kind, key, expected));
        }
    }
}

// Reads optional number field `name` of the table at tbl into *out.
static bool opt_number_field(lua_State *L, int tbl, int arg, const char *name, double *out)
{
    bool present = lua_getfield(L, tbl, name) != LUA_TNIL;
    int value = lua_gettop(L);
    if (present)
        *out = check_finite_at(L, value, arg, value_name(L, arg, "spring", name)); // only springs use it
    lua_settop(L, value - 1);
    return present;
}

// Element i of the array at idx, as a finite number; `what` names the whole value.
static double array_number(lua_State *L, int idx, int i, int arg, const char *what)
{
    lua_rawgeti(L, idx, i);
    int value = lua_gettop(L);
    double v = check_finite_at(L, value, arg, lua_pushfstring(L, "%s[%d]", what, i));
    lua_settop(L, value - 1);
    return v;
}

// A vector given as {x, y}.
static sb_vec2 check_vec2_at(lua_State *L, int idx, int arg, const char *what)
{
    idx = lua_absindex(L, idx);
    if (!lua_istable(L, idx) || lua_rawlen(L, idx) != 2) {
        const char *got = describe(L, idx);
        arg_error(L, arg, lua_pushfstring(L, "%s must be a table {x, y}, got %s", what, got));
    }
    sb_vec2 v;
    v.x = array_number(L, idx, 1, arg, what);
    v.y = array_number(L, idx, 2, arg, what);
    return v;
}

static sb_bounds check_bounds_at(lua_State *L, int idx, int arg, const char *what)
{
    idx = lua_absindex(L, idx);
    if (!lua_istable(L, idx) || lua_rawlen(L, idx) != 4) {
        const char *got = describe(L, idx);
        arg_error(L, arg, lua_pushfstring(L, "%s must be a table {xmin, ymin, xmax, ymax}, got %s", what, got));
    }
    double v[4];
    for (int i = 0; i < 4; ++i)
        v[i] = array_number(L, idx, i + 1, arg, what);
    if (!(v[0] < v[2] && v[1] < v[3]))
        arg_error(L, arg, lua_pushfstring(L, "%s must have xmin < xmax and ymin < ymax, got {%f, %f, %f, %f}", what, v[0], v[1], v[2], v[3]));
    sb_bounds b = {v[0], v[1], v[2], v[3]};
    return b;
}

static sb_method check_method_at(lua_State *L, int idx, int arg, const char *what)
{
    sb_method m;
    const char *name = lua_type(L, idx) == LUA_TSTRING ? lua_tostring(L, idx) : NULL;
    if (!name || !sb_method_from_name(name, &m)) {
        const char *got = describe(L, idx);
        arg_error(L, arg, lua_pushfstring(L, "%s must be force, impulse, sequential, soft, verlet or xpbd, got %s", what, got));
    }
    return m;
}

// ---------------------------------------------------------------- worlds

static lua_world *check_world_ud(lua_State *L, int idx)
{
    return (lua_world *)luaL_checkudata(L, idx, WORLD_MT);
}

static sb_world *check_world(lua_State *L, int idx)
{
    lua_world *w = check_world_ud(L, idx);
    if (!w->world)
        luaL_error(L, w->retired ? "attempt to use a world that no longer runs (the scene was reloaded: a world kept "
                                   "from an earlier version is stale; use the one the scene has now)"
                                 : "attempt to use a closed world");
    return w->world;
}

sb_world *sb_lua_to_world(lua_State *L, int idx)
{
    lua_world *w = (lua_world *)luaL_testudata(L, idx, WORLD_MT);
    return w ? w->world : NULL;
}

// Reports a definition the core rejected; the core names the field.
static int def_error(lua_State *L, int arg, const char *kind, const char *field, sb_status st)
{
    if (st == SB_ERR_NO_MEMORY)
        return luaL_error(L, "out of memory");
    return arg_error(L, arg, lua_pushfstring(L, "%s field '%s' is out of range", kind, field ? field : "?"));
}

static const char *const world_fields[] = {
    "gravity", "dt", "substeps", "iterations", "method", "warmstart", "correction", "collisions",
    "restitution", "friction", "rolling_resistance", "bounds", "verlet_preserve_impulse", "tethers", "region",
    "threads", NULL,
};

/// Threads a world takes when its definition does not say (sb_lua_set_default_threads).
static int default_threads = 1;

void sb_lua_set_default_threads(int threads)
{
    default_threads = threads < 1 ? 1 : threads > SB_POOL_MAX_THREADS ? SB_POOL_MAX_THREADS : threads;
}

static void check_world_value(lua_State *L, sb_world_def *d, const char *key, int vidx, int arg);

// springbox.world{ gravity = {0, -9.81}, dt = 1/60, substeps, iterations, method, ... }
static int l_world_new(lua_State *L)
{
    sb_world_def def = sb_default_world_def();
    def.threads = default_threads;
    if (!lua_isnoneornil(L, 1)) {
        luaL_checktype(L, 1, LUA_TTABLE);
        check_keys(L, 1, 1, "world", world_fields);
        for (const char *const *f = world_fields; *f; ++f) {
            if (lua_getfield(L, 1, *f) != LUA_TNIL)
                check_world_value(L, &def, *f, -1, 1);
            lua_pop(L, 1);
        }
    }
    const char *field = NULL;
    sb_status st = sb_world_def_check(&def, &field);
    if (st != SB_OK)
        return def_error(L, 1, "world", field, st);
    lua_world *w = (lua_world *)lua_newuserdatauv(L, sizeof *w, 1);
    w->world = NULL;
    w->pinned = 0;
    w->retired = false;
    luaL_setmetatable(L, WORLD_MT);
    // Caches of particle and spring userdata by slot, weak so unreferenced ones are collected.
    lua_createtable(L, 3, 0);
    for (int i = 1; i <= 3; ++i) { // particles, springs, constraints
        lua_newtable(L);
        lua_createtable(L, 0, 1);
        lua_pushliteral(L, "v");
        lua_setfield(L, -2, "__mode");
        lua_setmetatable(L, -2);
        lua_rawseti(L, -2, i);
    }
    lua_setiuservalue(L, -2, 1);
    w->world = sb_world_create(&def);
    if (!w->world)
        return luaL_error(L, "out of memory creating a world");
    return 1;
}

// Applies world setting `key` from the value at vidx (for the constructor and for properties).
static void check_world_value(lua_State *L, sb_world_def *d, const char *key, int vidx, int arg)
{
    vidx = lua_absindex(L, vidx);
    const char *what = value_name(L, arg, "world", key);
    if (strcmp(key, "gravity") == 0) {
        d->gravity = check_vec2_at(L, vidx, arg, what);
    } else if (strcmp(key, "dt") == 0) {
        d->dt = check_finite_at(L, vidx, arg, what);
        if (d->dt <= 0.0 || d->dt > 10.0)
            arg_error(L, arg, lua_pushfstring(L, "%s must be in (0, 10] seconds, got %f", what, d->dt));
    } else if (strcmp(key, "substeps") == 0 || strcmp(key, "iterations") == 0) {
        double v = check_finite_at(L, vidx, arg, what);
        if (v != floor(v) || v < 1 || v > 1000)
            arg_error(L, arg, lua_pushfstring(L, "%s must be an integer from 1 to 1000, got %s", what, describe(L, vidx)));
        *(key[0] == 's' ? &d->substeps : &d->iterations) = (int)v;
    } else if (strcmp(key, "method") == 0) {
        d->method = check_method_at(L, vidx, arg, what);
    } else if (strcmp(key, "warmstart") == 0 || strcmp(key, "restitution") == 0) {
        double v = check_finite_at(L, vidx, arg, what);
        if (v < 0.0 || v > 1.0)
            arg_error(L, arg, lua_pushfstring(L, "%s must be in [0, 1], got %s", what, describe(L, vidx)));
        *(key[0] == 'w' ? &d->warmstart : &d->restitution) = v;
    } else if (strcmp(key, "correction") == 0) {
        double v = check_finite_at(L, vidx, arg, what);
        if (v <= 0.0 || v > 1.0)
            arg_error(L, arg, lua_pushfstring(L, "%s must be in (0, 1], got %s", what, describe(L, vidx)));
        d->correction = v;
    } else if (strcmp(key, "friction") == 0 || strcmp(key, "rolling_resistance") == 0) {
        double v = check_finite_at(L, vidx, arg, what);
        if (v < 0.0)
            arg_error(L, arg, lua_pushfstring(L, "%s must be >= 0, got %s", what, describe(L, vidx)));
        *(key[0] == 'f' ? &d->friction : &d->rolling_resistance) = v;
    } else if (strcmp(key, "threads") == 0) {
        double v = check_finite_at(L, vidx, arg, what);
        if (v != floor(v) || v < 1 || v > SB_POOL_MAX_THREADS)
            arg_error(L, arg, lua_pushfstring(L, "%s must be an integer from 1 to %d, got %s", what, SB_POOL_MAX_THREADS,
                                              describe(L, vidx)));
        d->threads = (int)v;
    } else if (strcmp(key, "collisions") == 0) {
        d->collisions = check_bool_at(L, vidx, arg, what);
    } else if (strcmp(key, "verlet_preserve_impulse") == 0) {
        d->verlet_preserve_impulse = check_bool_at(L, vidx, arg, what);
    } else if (strcmp(key, "tethers") == 0) {
        d->tethers = check_bool_at(L, vidx, arg, what);
    } else if (strcmp(key, "bounds") == 0 || strcmp(key, "region") == 0) {
        bool region = key[0] == 'r';
        if (lua_isnil(L, vidx) || (lua_isboolean(L, vidx) && !lua_toboolean(L, vidx))) {
            *(region ? &d->has_region : &d->has_bounds) = false;
        } else {
            *(region ? &d->region : &d->bounds) = check_bounds_at(L, vidx, arg, what);
            *(region ? &d->has_region : &d->has_bounds) = true;
        }
    }
    lua_pop(L, 1);
}

static void push_vec2(lua_State *L, sb_vec2 v)
{
    lua_createtable(L, 2, 0);
    lua_pushnumber(L, v.x);
    lua_rawseti(L, -2, 1);
    lua_pushnumber(L, v.y);
    lua_rawseti(L, -2, 2);
}

static int world_get_property(lua_State *L, sb_world *world, const char *key)
{
    sb_world_def d = sb_world_get_def(world);
    const sb_stats *st = sb_world_get_stats(world);
    if (strcmp(key, "gravity") == 0) push_vec2(L, d.gravity);
    else if (strcmp(key, "dt") == 0) lua_pushnumber(L, d.dt);
    else if (strcmp(key, "substeps") == 0) lua_pushinteger(L, d.substeps);
    else if (strcmp(key, "iterations") == 0) lua_pushinteger(L, d.iterations);
    else if (strcmp(key, "method") == 0) lua_pushstring(L, sb_method_name(d.method));
    else if (strcmp(key, "warmstart") == 0) lua_pushnumber(L, d.warmstart);
    else if (strcmp(key, "correction") == 0) lua_pushnumber(L, d.correction);
    else if (strcmp(key, "collisions") == 0) lua_pushboolean(L, d.collisions);
    else if (strcmp(key, "restitution") == 0) lua_pushnumber(L, d.restitution);
    else if (strcmp(key, "friction") == 0) lua_pushnumber(L, d.friction);
    else if (strcmp(key, "rolling_resistance") == 0) lua_pushnumber(L, d.rolling_resistance);
    else if (strcmp(key, "threads") == 0) lua_pushinteger(L, d.threads);
    else if (strcmp(key, "verlet_preserve_impulse") == 0) lua_pushboolean(L, d.verlet_preserve_impulse);
    else if (strcmp(key, "tethers") == 0) lua_pushboolean(L, d.tethers);
    else if (strcmp(key, "bounds") == 0 || strcmp(key, "region") == 0) {
        bool region = key[0] == 'r';
        if (!(region ? d.has_region : d.has_bounds)) {
            lua_pushnil(L);
        } else {
            sb_bounds b = region ? d.region : d.bounds;
            lua_createtable(L, 4, 0);
            double v[4] = {b.xmin, b.ymin, b.xmax, b.ymax};
            for (int i = 0; i < 4; ++i) {
                lua_pushnumber(L, v[i]);
                lua_rawseti(L, -2, i + 1);
            }
        }
    }
    else if (strcmp(key, "time") == 0) lua_pushnumber(L, st->time);
    else if (strcmp(key, "steps") == 0) lua_pushinteger(L, (lua_Integer)st->steps);
    else if (strcmp(key, "halted") == 0) lua_pushboolean(L, st->halted);
    else if (strcmp(key, "particle_count") == 0) lua_pushinteger(L, sb_world_particle_count(world));
    else if (strcmp(key, "spring_count") == 0) lua_pushinteger(L, sb_world_spring_count(world));
    else if (strcmp(key, "constraint_count") == 0) lua_pushinteger(L, sb_world_constraint_count(world));
    else return 0;
    return 1;
}

static int l_world_index(lua_State *L)
{
    check_world_ud(L, 1);
    // methods first
    lua_getmetatable(L, 1);
    lua_pushvalue(L, 2);
    if (lua_rawget(L, -2) != LUA_TNIL)
        return 1;
    lua_pop(L, 2);
    const char *key = lua_type(L, 2) == LUA_TSTRING ? lua_tostring(L, 2) : NULL;
    sb_world *world = check_world(L, 1);
    if (key && world_get_property(L, world, key))
        return 1;
    return luaL_error(L, "unknown world property %s", describe(L, 2));
}

static int l_world_newindex(lua_State *L)
{
    sb_world *world = check_world(L, 1);
    const char *key = lua_type(L, 2) == LUA_TSTRING ? lua_tostring(L, 2) : NULL;
    if (!is_field(key, world_fields)) {
        const char *what = describe(L, 2);
        return luaL_error(L, "cannot set world property %s (settable: gravity, dt, substeps, iterations, method, warmstart, correction, collisions, restitution, friction, rolling_resistance, bounds, verlet_preserve_impulse, tethers, threads)", what);
    }
    sb_world_def d = sb_world_get_def(world);
    check_world_value(L, &d, key, 3, 0);
    const char *field = NULL;
    if (sb_world_set_def(world, &d, &field) != SB_OK)
        return luaL_error(L, "bad value for world.%s", field ? field : key);
    return 0;
}

static int l_world_tostring(lua_State *L)
{
    lua_world *w = check_world_ud(L, 1);
    if (!w->world)
        lua_pushstring(L, w->retired ? "springbox.world (no longer runs: the scene was reloaded)" : "springbox.world (closed)");
    else
        lua_pushfstring(L, "springbox.world (%s, %d particles, %d springs)",
                        sb_method_name(sb_world_get_def(w->world).method),
                        sb_world_particle_count(w->world), sb_world_spring_count(w->world));
    return 1;
}

static int l_world_close(lua_State *L)
{
    lua_world *w = check_world_ud(L, 1);
    if (w->pinned)
        return luaL_error(L, "cannot close a world the running scene is using (it closes with the scene)");
    sb_world_destroy(w->world);
    w->world = NULL;
    return 0;
}

void sb_lua_retire_world(lua_State *L, int idx)
{
    lua_world *w = (lua_world *)luaL_testudata(L, idx, WORLD_MT);
    if (!w || !w->world)
        return;
    sb_world_destroy(w->world);
    w->world = NULL;
    w->pinned = 0;
    w->retired = true;
}

void sb_lua_pin_world(lua_State *L, int idx, bool pinned)
{
    lua_world *w = (lua_world *)luaL_testudata(L, idx, WORLD_MT);
    if (w)
        w->pinned = pinned ? w->pinned + 1 : (w->pinned > 0 ? w->pinned - 1 : 0);
}

// ---------------------------------------------------------------- particles

static void push_cached(lua_State *L, int world_idx, int cache, uint32_t index, uint32_t generation, const char *mt)
{
    world_idx = lua_absindex(L, world_idx);
    lua_getiuservalue(L, world_idx, 1);
    lua_rawgeti(L, -1, cache);
    if (lua_rawgeti(L, -1, (lua_Integer)index) == LUA_TUSERDATA) {
        // Both handle types start with {index, generation}.
        const sb_particle_id *id = (const sb_particle_id *)lua_touserdata(L, -1);
        if (id->generation == generation) {
            lua_replace(L, -3);
            lua_pop(L, 1);
            return;
        }
    }
    lua_pop(L, 1);
    sb_particle_id *id = (sb_particle_id *)lua_newuserdatauv(L, sizeof(sb_particle_id), 1);
    id->index = index;
    id->generation = generation;
    luaL_setmetatable(L, mt);
    lua_pushvalue(L, world_idx);
    lua_setiuservalue(L, -2, 1);
    lua_pushvalue(L, -1);
    lua_rawseti(L, -3, (lua_Integer)index);
    lua_replace(L, -3);
    lua_pop(L, 1);
}

void sb_lua_push_particle(lua_State *L, int world_idx, sb_particle_id id)
{
    push_cached(L, world_idx, 1, id.index, id.generation, PARTICLE_MT);
}

void sb_lua_push_spring(lua_State *L, int world_idx, sb_spring_id id)
{
    push_cached(L, world_idx, 2, id.index, id.generation, SPRING_MT);
}

static void push_spring(lua_State *L, int world_idx, sb_spring_id id) { sb_lua_push_spring(L, world_idx, id); }

/// True if the handle of this kind ("particle", "spring" or "constraint") names a live object.
static bool handle_alive(const sb_world *world, const char *kind, sb_particle_id h)
{
    switch (kind[0]) {
    case 'p': return sb_particle_is_valid(world, h);
    case 's': return sb_spring_is_valid(world, (sb_spring_id){h.index, h.generation});
    default: return sb_constraint_is_valid(world, (sb_constraint_id){h.index, h.generation});
    }
}

// The world of a particle or spring userdata at idx (metatable `mt`); errors if its world is
// closed or the object was removed, as Lua's closed files do. Both handle types start with
// {index, generation}. With `world_slot` the world userdata is left on the stack there.
static sb_world *check_handle(lua_State *L, int idx, const char *mt, const char *kind, sb_particle_id *id, int *world_slot)
{
    const sb_particle_id *h = (const sb_particle_id *)luaL_checkudata(L, idx, mt);
    lua_getiuservalue(L, idx, 1);
    lua_world *w = (lua_world *)lua_touserdata(L, -1);
    if (world_slot)
        *world_slot = lua_gettop(L);
    else
        lua_pop(L, 1);
    if (w && w->retired)
        luaL_error(L, "attempt to use a stale %s: its world no longer runs (the scene was reloaded; a handle kept in "
                      "springbox.state from an earlier version is stale: find the %s again in the running world)",
                   kind, kind);
    if (!w || !w->world)
        luaL_error(L, "attempt to use a %s of a closed world", kind);
    if (!handle_alive(w->world, kind, *h))
        luaL_error(L, "%s was removed", kind);
    *id = *h;
    return w->world;
}

static sb_world *check_particle(lua_State *L, int idx, sb_particle_id *id, int *world_slot)
{
    return check_handle(L, idx, PARTICLE_MT, "particle", id, world_slot);
}

bool sb_lua_to_particle(lua_State *L, int idx, sb_world **world, sb_particle_id *id)
{
    lua_particle *p = (lua_particle *)luaL_testudata(L, idx, PARTICLE_MT);
    if (!p)
        return false;
    lua_getiuservalue(L, idx, 1);
    lua_world *w = (lua_world *)lua_touserdata(L, -1);
    lua_pop(L, 1);
    if (!w || !w->world || !sb_particle_is_valid(w->world, p->id))
        return false;
    *world = w->world;
    *id = p->id;
    return true;
}

static const char *const particle_fields[] = {
    "x", "y", "vx", "vy", "mass", "radius", "fixed", "collide", "restitution", "friction",
    "rolls", "angle", "spin", "inertia", "rolling_resistance",
    "group", "category", "mask", "events", "color", "hidden", NULL,
};

// Colours as LÖVE gives them, {r, g, b [, a]} in [0, 1], or as "#rrggbb" / "#rrggbbaa"; false
// means the host's own colour. Stored as 0xRRGGBBAA (0 = the host's own).
bool sb_lua_color_from_text(const char *t, uint32_t *color)
{
    size_t n = strlen(t);
    uint32_t v = 0;
    bool ok = t[0] == '#' && (n == 7 || n == 9);
    for (size_t i = 1; ok && i < n; ++i) {
        char c = t[i];
        int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
        ok = d >= 0;
        v = v * 16u + (uint32_t)(d < 0 ? 0 : d);
    }
    if (ok)
        *color = n == 7 ? (v << 8) | 0xFFu : v;
    return ok;
}

uint32_t sb_lua_color_from_components(const double rgba[4])
{
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i)
        v = (v << 8) | (uint32_t)lround(rgba[i] * 255.0);
    return v;
}

static uint32_t check_color_at(lua_State *L, int idx, int arg, const char *what)
{
    idx = lua_absindex(L, idx);
    if (lua_isboolean(L, idx) && !lua_toboolean(L, idx))
        return 0;
    uint32_t text_color;
    if (lua_type(L, idx) == LUA_TSTRING) {
        if (sb_lua_color_from_text(lua_tostring(L, idx), &text_color))
            return text_color;
    } else if (lua_istable(L, idx)) {
        double c[4] = {0, 0, 0, 1};
        lua_Integer n = (lua_Integer)lua_rawlen(L, idx);
        bool ok = n == 3 || n == 4;
        for (int i = 0; ok && i < n; ++i) {
            lua_rawgeti(L, idx, i + 1);
            int isnum;
            c[i] = lua_tonumberx(L, -1, &isnum);
            ok = isnum && c[i] >= 0.0 && c[i] <= 1.0;
            lua_pop(L, 1);
        }
        if (ok) {
            uint32_t v = sb_lua_color_from_components(c);
            return v ? v : 1u; // transparent black is still a colour, not "the host's own"
        }
    }
    arg_error(L, arg, lua_pushfstring(L, "%s must be {r, g, b [, a]} in [0, 1], \"#rrggbb\", \"#rrggbbaa\" or false, got %s",
                                      what, describe(L, idx)));
    return 0;
}

static void push_color(lua_State *L, uint32_t color)
{
    if (color == 0) {
        lua_pushnil(L);
        return;
    }
    char text[10];
    snprintf(text, sizeof text, "#%08x", (unsigned)color);
    lua_pushstring(L, text);
}

static lua_Integer check_integer_in(lua_State *L, int idx, int arg, const char *what, lua_Integer lo, lua_Integer hi)
{
    int isint;
    lua_Integer v = lua_tointegerx(L, idx, &isint);
    if (!isint || v < lo || v > hi)
        arg_error(L, arg, lua_pushfstring(L, "%s must be an integer in [%I, %I], got %s", what, lo, hi, describe(L, idx)));
    return v;
}

// Reads one particle field from the value at vidx into d.
static void particle_field(lua_State *L, sb_particle_def *d, const char *key, int vidx, int arg)
{
    const char *what = value_name(L, arg, "particle", key);
    vidx = vidx < 0 ? vidx - 1 : vidx;
    if (strcmp(key, "fixed") == 0 || strcmp(key, "collide") == 0 || strcmp(key, "events") == 0 || strcmp(key, "hidden") == 0) {
        bool v = check_bool_at(L, vidx, arg, what);
        *(key[0] == 'f' ? &d->fixed : key[0] == 'c' ? &d->collide : key[0] == 'e' ? &d->events : &d->hidden) = v;
        lua_pop(L, 1);
        return;
    }
    if (strcmp(key, "color") == 0) {
        d->color = check_color_at(L, vidx, arg, what);
        lua_pop(L, 1);
        return;
    }
    if (strcmp(key, "rolls") == 0) { // true, false or "auto" (rolls while nothing joins it)
        if (lua_isboolean(L, vidx))
            d->rolling = lua_toboolean(L, vidx) ? SB_ROLLING_ON : SB_ROLLING_OFF;
        else if (lua_type(L, vidx) == LUA_TSTRING && strcmp(lua_tostring(L, vidx), "auto") == 0)
            d->rolling = SB_ROLLING_AUTO;
        else
            arg_error(L, arg, lua_pushfstring(L, "%s must be true, false or \"auto\", got %s", what, describe(L, vidx)));
        lua_pop(L, 1);
        return;
    }
    if (strcmp(key, "group") == 0) {
        d->group = (int32_t)check_integer_in(L, vidx, arg, what, -32768, 32767);
        lua_pop(L, 1);
        return;
    }
    if (strcmp(key, "category") == 0 || strcmp(key, "mask") == 0) {
        uint32_t v = (uint32_t)check_integer_in(L, vidx, arg, what, 0, 0xFFFFFFFF);
        *(key[0] == 'c' ? &d->category : &d->mask) = v;
        lua_pop(L, 1);
        return;
    }
    double v = check_finite_at(L, vidx, arg, what);
    if (strcmp(key, "mass") == 0 && v <= 0.0)
        arg_error(L, arg, lua_pushfstring(L, "%s must be > 0, got %s", what, describe(L, vidx)));
    if ((strcmp(key, "radius") == 0 || strcmp(key, "friction") == 0 || strcmp(key, "rolling_resistance") == 0) && v < 0.0)
        arg_error(L, arg, lua_pushfstring(L, "%s must be >= 0, got %s", what, describe(L, vidx)));
    if (strcmp(key, "inertia") == 0 && !(v > 0.0 && v <= 100.0))
        arg_error(L, arg, lua_pushfstring(L, "%s (the moment of inertia over m r^2: 0.5 a disc, 0.4 a ball, 1 a ring) must be in "
                                          "(0, 100], got %s", what, describe(L, vidx)));
    if (strcmp(key, "spin") == 0 && fabs(v) > SB_MAX_SPEED)
        arg_error(L, arg, lua_pushfstring(L, "%s must be within 1e12 rad/s, got %s", what, describe(L, vidx)));
    if (strcmp(key, "restitution") == 0 && (v < 0.0 || v > 1.0))
        arg_error(L, arg, lua_pushfstring(L, "%s must be in [0, 1], got %s", what, describe(L, vidx)));
    switch (key[0]) {
    case 'x': d->position.x = v; break;
    case 'y': d->position.y = v; break;
    case 'v': *(key[1] == 'x' ? &d->velocity.x : &d->velocity.y) = v; break;
    case 'm': d->mass = v; break;
    case 'r': *(key[2] == 'd' ? &d->radius : key[2] == 's' ? &d->restitution : &d->rolling_resistance) = v; break;
    case 'a': d->angle = v; break;
    case 's': d->angular_velocity = v; break;
    case 'i': d->inertia = v; break;
    default: d->friction = v; break;
    }
    lua_pop(L, 1);
}

// world:particle{ x =, y =, vx =, vy =, mass = 1, radius = 0.05, fixed = false, ... }
static int l_world_particle(lua_State *L)
{
    sb_world *world = check_world(L, 1);
    luaL_checktype(L, 2, LUA_TTABLE);
    check_keys(L, 2, 2, "particle", particle_fields);
    sb_particle_def d = sb_default_particle_def();
    for (const char *const *f = particle_fields; *f; ++f) {
        if (lua_getfield(L, 2, *f) != LUA_TNIL)
            particle_field(L, &d, *f, -1, 2);
        lua_pop(L, 1);
    }
    sb_status st;
    const char *field = NULL;
    if (sb_particle_def_check(&d, &field) != SB_OK)
        return def_error(L, 2, "particle", field, SB_ERR_INVALID);
    sb_particle_id id = sb_world_add_particle(world, &d, &st);
    if (st != SB_OK)
        return def_error(L, 2, "particle", field, st);
    sb_lua_push_particle(L, 1, id);
    return 1;
}

// particle:apply_force(fx, fy): acts on every sub-step of the next step (sb_particle_apply_force).
static int l_particle_apply_force(lua_State *L)
{
    sb_particle_id id;
    sb_world *world = check_particle(L, 1, &id, NULL);
    sb_vec2 f = {check_finite_at(L, 2, 2, "fx"), check_finite_at(L, 3, 3, "fy")};
    if (sb_particle_apply_force(world, id, f) != SB_OK)
        return luaL_error(L, "particle:apply_force: the force (%f, %f) takes the particle's total past 1e15 N", f.x, f.y);
    return 0;
}

// particle:apply_impulse(ix, iy): velocity changes by impulse / mass now.
static int l_particle_apply_impulse(lua_State *L)
{
    sb_particle_id id;
    sb_world *world = check_particle(L, 1, &id, NULL);
    sb_vec2 j = {check_finite_at(L, 2, 2, "ix"), check_finite_at(L, 3, 3, "iy")};
    if (sb_particle_apply_impulse(world, id, j) != SB_OK)
        return luaL_error(L, "particle:apply_impulse: the impulse (%f, %f) would take the velocity past 1e12 m/s", j.x, j.y);
    return 0;
}

// particle:move_to(x, y): a fixed (kinematic) particle gets the velocity that takes it to (x, y)
// over the next frame, so it pushes what it meets with that velocity instead of jumping.
static int l_particle_move_to(lua_State *L)
{
    sb_particle_id id;
    sb_world *world = check_particle(L, 1, &id, NULL);
    double x = check_finite_at(L, 2, 2, "x"), y = check_finite_at(L, 3, 3, "y");
    sb_particle_def d;
    sb_particle_get(world, id, &d);
    if (!d.fixed)
        return luaL_error(L, "particle:move_to moves fixed (kinematic) particles; this one is free (set fixed = true, or set x and y)");
    double dt = sb_world_get_def(world).dt;
    d.velocity.x = (x - d.position.x) / dt;
    d.velocity.y = (y - d.position.y) / dt;
    const char *field = NULL;
    if (sb_particle_set(world, id, &d, &field) != SB_OK)
        return luaL_error(L, "particle:move_to: (%f, %f) is too far for one frame (the speed would pass 1e12 m/s)", x, y);
    return 0;
}

/// `removed` reads without raising (Lua's io.type for files): true once the object or its world is gone.
static bool read_removed(lua_State *L, const char *mt, const char *kind)
{
    const sb_particle_id *h = (const sb_particle_id *)luaL_checkudata(L, 1, mt);
    if (lua_type(L, 2) != LUA_TSTRING || strcmp(lua_tostring(L, 2), "removed") != 0)
        return false;
    lua_getiuservalue(L, 1, 1);
    lua_world *w = (lua_world *)lua_touserdata(L, -1);
    lua_pop(L, 1);
    lua_pushboolean(L, !(w && w->world && handle_alive(w->world, kind, *h)));
    return true;
}

static int l_particle_index(lua_State *L)
{
    if (read_removed(L, PARTICLE_MT, "particle"))
        return 1;
    sb_particle_id id;
    int world_slot;
    sb_world *world = check_particle(L, 1, &id, &world_slot);
    const char *key = luaL_checkstring(L, 2);
    sb_particle_def d;
    sb_particle_get(world, id, &d);
    if (strcmp(key, "x") == 0) lua_pushnumber(L, d.position.x);
    else if (strcmp(key, "y") == 0) lua_pushnumber(L, d.position.y);
    else if (strcmp(key, "vx") == 0) lua_pushnumber(L, d.velocity.x);
    else if (strcmp(key, "vy") == 0) lua_pushnumber(L, d.velocity.y);
    else if (strcmp(key, "mass") == 0) lua_pushnumber(L, d.mass);
    else if (strcmp(key, "radius") == 0) lua_pushnumber(L, d.radius);
    else if (strcmp(key, "fixed") == 0) lua_pushboolean(L, d.fixed);
    else if (strcmp(key, "collide") == 0) lua_pushboolean(L, d.collide);
    else if (strcmp(key, "restitution") == 0) { if (d.restitution < 0) lua_pushnil(L); else lua_pushnumber(L, d.restitution); }
    else if (strcmp(key, "friction") == 0) { if (d.friction < 0) lua_pushnil(L); else lua_pushnumber(L, d.friction); }
    else if (strcmp(key, "rolls") == 0) { if (d.rolling == SB_ROLLING_AUTO) lua_pushliteral(L, "auto"); else lua_pushboolean(L, d.rolling == SB_ROLLING_ON); }
    else if (strcmp(key, "turning") == 0) lua_pushboolean(L, sb_particle_turns(world, id));
    else if (strcmp(key, "angle") == 0) lua_pushnumber(L, d.angle);
    else if (strcmp(key, "spin") == 0) lua_pushnumber(L, d.angular_velocity);
    else if (strcmp(key, "inertia") == 0) lua_pushnumber(L, d.inertia);
    else if (strcmp(key, "rolling_resistance") == 0) { if (d.rolling_resistance < 0) lua_pushnil(L); else lua_pushnumber(L, d.rolling_resistance); }
    else if (strcmp(key, "group") == 0) lua_pushinteger(L, d.group);
    else if (strcmp(key, "category") == 0) lua_pushinteger(L, (lua_Integer)d.category);
    else if (strcmp(key, "mask") == 0) lua_pushinteger(L, (lua_Integer)d.mask);
    else if (strcmp(key, "events") == 0) lua_pushboolean(L, d.events);
    else if (strcmp(key, "hidden") == 0) lua_pushboolean(L, d.hidden);
    else if (strcmp(key, "color") == 0) push_color(L, d.color);
    else if (strcmp(key, "apply_force") == 0) lua_pushcfunction(L, l_particle_apply_force);
    else if (strcmp(key, "apply_impulse") == 0) lua_pushcfunction(L, l_particle_apply_impulse);
    else if (strcmp(key, "move_to") == 0) lua_pushcfunction(L, l_particle_move_to);
    else if (strcmp(key, "index") == 0) lua_pushinteger(L, (lua_Integer)id.index + 1);
    else if (strcmp(key, "world") == 0) lua_pushvalue(L, world_slot);
    else return luaL_error(L, "unknown particle property '%s' (x, y, vx, vy, mass, radius, fixed, collide, restitution, friction, rolls, turning, angle, spin, inertia, rolling_resistance, group, category, mask, events, color, hidden, apply_force, apply_impulse, move_to, index, world, removed)", key);
    return 1;
}

static int l_particle_newindex(lua_State *L)
{
    sb_particle_id id;
    sb_world *world = check_particle(L, 1, &id, NULL);
    const char *key = luaL_checkstring(L, 2);
    if (!is_field(key, particle_fields))
        return luaL_error(L, "cannot set particle property '%s' (settable: x, y, vx, vy, mass, radius, fixed, collide, restitution, friction, rolls, angle, spin, inertia, rolling_resistance, group, category, mask, events, color, hidden)", key);
    sb_particle_def d;
    sb_particle_get(world, id, &d);
    particle_field(L, &d, key, 3, 0);
    const char *field = NULL;
    if (sb_particle_set(world, id, &d, &field) != SB_OK)
        return luaL_error(L, "bad value for particle.%s: %s", field ? field : key, describe(L, 3));
    return 0;
}

static int l_particle_tostring(lua_State *L)
{
    lua_particle *p = (lua_particle *)luaL_checkudata(L, 1, PARTICLE_MT);
    sb_world *world;
    sb_particle_id id;
    if (!sb_lua_to_particle(L, 1, &world, &id)) {
        lua_pushfstring(L, "springbox.particle %d (removed)", (int)p->id.index + 1);
        return 1;
    }
    sb_particle_def d;
    sb_particle_get(world, id, &d);
    lua_pushfstring(L, "springbox.particle %d at (%f, %f)", (int)id.index + 1, d.position.x, d.position.y);
    return 1;
}

// ---------------------------------------------------------------- springs

static sb_world *check_spring(lua_State *L, int idx, sb_spring_id *id, int *world_slot)
{
    sb_particle_id h;
    sb_world *w = check_handle(L, idx, SPRING_MT, "spring", &h, world_slot);
    id->index = h.index;
    id->generation = h.generation;
    return w;
}

static const char *const spring_fields[] = {
    "hertz", "damping_ratio", "stiffness", "damping", "k", "c", "rest_length", "collide", "solid",
    "break_stretch", "break_force", "color", "hidden", NULL,
};

/// A spring's break_stretch or break_force: a number >= 0 (0 = never), named otherwise.
static double check_break_at(lua_State *L, int idx, int arg, const char *key)
{
    idx = lua_absindex(L, idx);
    const char *what = lua_pushfstring(L, "spring.%s", key);
    double v = check_finite_at(L, idx, arg, what);
    if (v < 0.0 || v > 1e12)
        arg_error(L, arg, lua_pushfstring(L, "%s must be in [0, 1e12] (0: never breaks), got %s", what, describe(L, idx)));
    lua_pop(L, 1);
    return v;
}

/// The style and break fields of a spring's options table at idx.
static void spring_extras(lua_State *L, int idx, int arg, sb_spring_def *d)
{
    idx = lua_absindex(L, idx);
    if (lua_getfield(L, idx, "break_stretch") != LUA_TNIL)
        d->break_stretch = check_break_at(L, -1, arg, "break_stretch");
    if (lua_getfield(L, idx, "break_force") != LUA_TNIL)
        d->break_force = check_break_at(L, -1, arg, "break_force");
    if (lua_getfield(L, idx, "color") != LUA_TNIL)
        d->color = check_color_at(L, -1, arg, "spring.color");
    if (lua_getfield(L, idx, "hidden") != LUA_TNIL)
        d->hidden = check_bool_at(L, -1, arg, "spring.hidden");
    lua_pop(L, 4);
}

/// A spring's `collide` field: a boolean, named in the error otherwise.
static bool check_collide(lua_State *L, int idx, int arg)
{
    if (!lua_isboolean(L, idx))
        arg_error(L, arg, lua_pushfstring(L, "spring.collide must be a boolean, got %s", luaL_typename(L, idx)));
    return lua_toboolean(L, idx);
}

// Reads a tuning from the options table at idx: exactly one of the three ways.
static sb_tuning check_tuning_of(lua_State *L, int idx, int arg, sb_tuning base, const char *kind);
static sb_tuning check_tuning(lua_State *L, int idx, int arg, sb_tuning base)
{
    return check_tuning_of(L, idx, arg, base, "spring");
}

static sb_tuning check_tuning_of(lua_State *L, int idx, int arg, sb_tuning base, const char *kind)
{
    double v[6];
    bool has[6];
    for (int i = 0; i < 6; ++i)
        has[i] = opt_number_field(L, idx, arg, spring_fields[i], &v[i]);
    int ways = (has[0] || has[1]) + (has[2] || has[3]) + (has[4] || has[5]);
    if (ways > 1)
        arg_error(L, arg, "give one tuning: hertz/damping_ratio, stiffness/damping (Nissen's Cs/Cd) or k/c");
    sb_tuning t = base;
    if (has[0] || has[1]) {
        double hz = 0.0, zeta = 1.0;
        if (base.mode == SB_TUNE_HERTZ) {
            hz = base.hertz;
            zeta = base.damping_ratio;
        }
        t = sb_tuning_hertz(has[0] ? v[0] : hz, has[1] ? v[1] : zeta);
    } else if (has[2] || has[3]) {
        double cs = 1.0, cd = 1.0;
        if (base.mode == SB_TUNE_COEFFICIENTS) {
            cs = base.stiffness;
            cd = base.damping;
        }
        t = sb_tuning_coefficients(has[2] ? v[2] : cs, has[3] ? v[3] : cd);
    } else if (has[4] || has[5]) {
        double k = 0.0, c = 0.0;
        if (base.mode == SB_TUNE_RAW) {
            k = base.k;
            c = base.c;
        }
        t = sb_tuning_raw(has[4] ? v[4] : k, has[5] ? v[5] : c);
    }
    const char *field = NULL;
    if (sb_tuning_check(&t, &field) != SB_OK) {
        double bad = 0.0;
        for (int i = 0; i < 6; ++i)
            if (strcmp(spring_fields[i], field) == 0)
                bad = has[i] ? v[i] : bad;
        const char *range = strcmp(field, "stiffness") == 0 || strcmp(field, "damping") == 0 ? "in [0, 1]" : ">= 0";
        arg_error(L, arg, lua_pushfstring(L, "%s must be %s, got %f", value_name(L, arg, kind, field), range, bad));
    }
    return t;
}

// world:spring(a, b [, {hertz =, damping_ratio =} | {stiffness =, damping =} | {k =, c =}, rest_length =])
static int l_world_spring(lua_State *L)
{
    sb_world *world = check_world(L, 1);
    sb_particle_id a, b;
    sb_world *wa = check_particle(L, 2, &a, NULL), *wb = check_particle(L, 3, &b, NULL);
    if (wa != world)
        return luaL_argerror(L, 2, "particle belongs to another world");
    if (wb != world)
        return luaL_argerror(L, 3, "particle belongs to another world");
    if (a.index == b.index)
        return luaL_argerror(L, 3, "a spring needs two different particles, got the same one twice");
    sb_spring_def d = sb_default_spring_def();
    d.a = a;
    d.b = b;
    if (!lua_isnoneornil(L, 4)) {
        luaL_checktype(L, 4, LUA_TTABLE);
        check_keys(L, 4, 4, "spring", spring_fields);
        d.tuning = check_tuning(L, 4, 4, d.tuning);
        if (opt_number_field(L, 4, 4, "rest_length", &d.rest_length) && d.rest_length < 0.0)
            return luaL_argerror(L, 4, lua_pushfstring(L, "field 'rest_length' must be >= 0, got %f", d.rest_length));
        if (lua_getfield(L, 4, "collide") != LUA_TNIL)
            d.collide = check_collide(L, -1, 4);
        lua_pop(L, 1);
        if (lua_getfield(L, 4, "solid") != LUA_TNIL)
            d.solid = check_bool_at(L, -1, 4, "spring.solid");
        lua_pop(L, 1);
        spring_extras(L, 4, 4, &d);
    }
    sb_status st;
    const char *field = NULL;
    sb_spring_id id = sb_world_add_spring(world, &d, &st, &field);
    if (st != SB_OK)
        return def_error(L, 4, "spring", field, st);
    push_spring(L, 1, id);
    return 1;
}

// spring:retune({hertz =, damping_ratio =} | {stiffness =, damping =} | {k =, c =}, rest_length =} [, seconds])
// The core's retune (retune.c): the spring keeps its force at the switch and the change blends
// in over `seconds` (default 0.5) of simulated time, so a structure is not thrown.
static int l_spring_retune(lua_State *L)
{
    sb_spring_id id;
    sb_world *world = check_spring(L, 1, &id, NULL);
    luaL_checktype(L, 2, LUA_TTABLE);
    check_keys(L, 2, 2, "spring", spring_fields);
    sb_spring_def d;
    sb_spring_get(world, id, &d);
    sb_tuning t = check_tuning(L, 2, 2, d.tuning);
    double rest = d.rest_length;
    if (opt_number_field(L, 2, 2, "rest_length", &rest) && rest < 0.0)
        return luaL_argerror(L, 2, lua_pushfstring(L, "field 'rest_length' must be >= 0, got %f", rest));
    double seconds = luaL_optnumber(L, 3, 0.5);
    if (!(seconds >= 0.0 && seconds <= 1e6))
        return luaL_argerror(L, 3, lua_pushfstring(L, "seconds must be in [0, 1e6], got %f", seconds));
    const char *field = NULL;
    sb_status st = sb_spring_retune(world, id, rest, &t, seconds, &field);
    if (st != SB_OK)
        return luaL_error(L, "bad value for spring.%s", field ? field : "retune");
    return 0;
}

static int l_spring_index(lua_State *L)
{
    if (read_removed(L, SPRING_MT, "spring"))
        return 1;
    sb_spring_id id;
    int world_slot;
    sb_world *world = check_spring(L, 1, &id, &world_slot);
    const char *key = luaL_checkstring(L, 2);
    sb_spring_def d;
    sb_spring_get(world, id, &d);
    sb_world_def wd = sb_world_get_def(world);
    double h = wd.dt / wd.substeps;
    double m = sb_spring_reduced_mass(world, id);
    const sb_tuning *t = &d.tuning;
    bool rigid = sb_tuning_is_rigid(t);
    // Any tuning reads in every form: the stored one exactly, the others converted at the
    // current masses and sub-step (sb_tuning.h), so a designer can compare.
    double k = 0, c = 0, hertz = 0, zeta = 0, cs = 1, cd = 1;
    if (!rigid) {
        sb_tuning_to_kc(t, m, h, &k, &c);
        sb_kc_to_hertz_zeta(k, c, m, &hertz, &zeta);
        sb_tuning_to_coefficients(t, m, h, &cs, &cd);
    }
    if (strcmp(key, "a") == 0) sb_lua_push_particle(L, world_slot, d.a);
    else if (strcmp(key, "b") == 0) sb_lua_push_particle(L, world_slot, d.b);
    else if (strcmp(key, "length") == 0) lua_pushnumber(L, sb_spring_length(world, id));
    else if (strcmp(key, "rest_length") == 0) lua_pushnumber(L, d.rest_length);
    else if (strcmp(key, "stretch") == 0) lua_pushnumber(L, d.rest_length > 0 ? sb_spring_length(world, id) / d.rest_length - 1.0 : 0.0);
    else if (strcmp(key, "impulse") == 0) lua_pushnumber(L, sb_spring_impulse(world, id));
    else if (strcmp(key, "rigid") == 0) lua_pushboolean(L, rigid);
    else if (strcmp(key, "collide") == 0) lua_pushboolean(L, d.collide);
    else if (strcmp(key, "solid") == 0) lua_pushboolean(L, d.solid);
    else if (strcmp(key, "force") == 0) lua_pushnumber(L, sb_spring_force(world, id));
    else if (strcmp(key, "break_stretch") == 0) lua_pushnumber(L, d.break_stretch);
    else if (strcmp(key, "break_force") == 0) lua_pushnumber(L, d.break_force);
    else if (strcmp(key, "color") == 0) push_color(L, d.color);
    else if (strcmp(key, "hidden") == 0) lua_pushboolean(L, d.hidden);
    else if (strcmp(key, "retune") == 0) lua_pushcfunction(L, l_spring_retune);
    else if (strcmp(key, "tuning") == 0) lua_pushstring(L, t->mode == SB_TUNE_HERTZ ? "hertz" : t->mode == SB_TUNE_COEFFICIENTS ? "coefficients" : "raw");
    else if (strcmp(key, "hertz") == 0) lua_pushnumber(L, t->mode == SB_TUNE_HERTZ ? t->hertz : hertz);
    else if (strcmp(key, "damping_ratio") == 0) lua_pushnumber(L, t->mode == SB_TUNE_HERTZ ? t->damping_ratio : zeta);
    else if (strcmp(key, "stiffness") == 0) lua_pushnumber(L, t->mode == SB_TUNE_COEFFICIENTS ? t->stiffness : cs);
    else if (strcmp(key, "damping") == 0) lua_pushnumber(L, t->mode == SB_TUNE_COEFFICIENTS ? t->damping : cd);
    else if (strcmp(key, "k") == 0) lua_pushnumber(L, rigid ? HUGE_VAL : k);
    else if (strcmp(key, "c") == 0) lua_pushnumber(L, rigid ? HUGE_VAL : c);
    else if (strcmp(key, "index") == 0) lua_pushinteger(L, (lua_Integer)id.index + 1);
    else if (strcmp(key, "world") == 0) lua_pushvalue(L, world_slot);
    else return luaL_error(L, "unknown spring property '%s' (a, b, length, rest_length, stretch, impulse, force, rigid, collide, break_stretch, break_force, color, hidden, retune, tuning, hertz, damping_ratio, stiffness, damping, k, c, index, world, removed)", key);
    return 1;
}

/// The spring's tuning expressed in the form `key` belongs to (hertz/damping_ratio,
/// stiffness/damping or k/c), converted at its current masses and sub-step as the getters read.
static sb_tuning tuning_in_form(sb_world *world, sb_spring_id id, const sb_tuning *t, const char *key)
{
    sb_tuning_mode mode = strcmp(key, "hertz") == 0 || strcmp(key, "damping_ratio") == 0       ? SB_TUNE_HERTZ
                          : strcmp(key, "stiffness") == 0 || strcmp(key, "damping") == 0 ? SB_TUNE_COEFFICIENTS
                          : strcmp(key, "k") == 0 || strcmp(key, "c") == 0                ? SB_TUNE_RAW
                                                                                          : t->mode;
    if (mode == t->mode || sb_tuning_is_rigid(t))
        return *t;
    sb_world_def wd = sb_world_get_def(world);
    double h = wd.dt / wd.substeps, m = sb_spring_reduced_mass(world, id), k, c;
    sb_tuning_to_kc(t, m, h, &k, &c);
    if (mode == SB_TUNE_RAW)
        return sb_tuning_raw(k, c);
    if (mode == SB_TUNE_COEFFICIENTS) {
        double cs, cd;
        sb_tuning_to_coefficients(t, m, h, &cs, &cd);
        return sb_tuning_coefficients(cs, cd);
    }
    double hz, zeta;
    sb_kc_to_hertz_zeta(k, c, m, &hz, &zeta);
    return sb_tuning_hertz(hz, zeta);
}

static int l_spring_newindex(lua_State *L)
{
    sb_spring_id id;
    sb_world *world = check_spring(L, 1, &id, NULL);
    const char *key = luaL_checkstring(L, 2);
    if (!is_field(key, spring_fields))
        return luaL_error(L, "cannot set spring property '%s' (settable: hertz, damping_ratio, stiffness, damping, k, c, rest_length, collide, solid, break_stretch, break_force, color, hidden)", key);
    if (strcmp(key, "collide") == 0) {
        sb_spring_set_collide(world, id, check_collide(L, 3, 0));
        return 0;
    }
    if (strcmp(key, "solid") == 0) {
        sb_spring_set_solid(world, id, check_bool_at(L, 3, 0, "spring.solid"));
        return 0;
    }
    if (strncmp(key, "break_", 6) == 0 || strcmp(key, "color") == 0 || strcmp(key, "hidden") == 0) {
        sb_spring_def d;
        sb_spring_get(world, id, &d);
        lua_settop(L, 3);
        lua_createtable(L, 0, 1);
        lua_pushvalue(L, 3);
        lua_setfield(L, -2, key);
        spring_extras(L, 4, 0, &d);
        sb_spring_set_break(world, id, d.break_stretch, d.break_force, NULL);
        sb_spring_set_style(world, id, d.color, d.hidden);
        return 0;
    }
    if (lua_isnil(L, 3))
        return luaL_error(L, "spring.%s cannot be set to nil (give a number)", key);
    sb_spring_def d;
    sb_spring_get(world, id, &d);
    // Setting one of a pair keeps the other as the spring reads now in that form: damping_ratio
    // on a spring tuned by k and c keeps its frequency (it does not fall back to rigid).
    d.tuning = tuning_in_form(world, id, &d.tuning, key);
    // Reuse the table reader: {key = value}
    lua_createtable(L, 0, 1);
    lua_pushvalue(L, 3);
    lua_setfield(L, -2, key);
    int tbl = lua_gettop(L);
    if (strcmp(key, "rest_length") == 0) {
        double v = check_finite_at(L, 3, 0, "spring.rest_length");
        if (v < 0.0)
            return luaL_error(L, "spring.rest_length must be >= 0, got %f", v);
        d.rest_length = v;
    } else {
        d.tuning = check_tuning(L, tbl, 0, d.tuning);
    }
    const char *field = NULL;
    if (sb_spring_set(world, id, d.rest_length, &d.tuning, &field) != SB_OK)
        return luaL_error(L, "bad value for spring.%s: %s", field ? field : key, describe(L, 3));
    return 0;
}

static int l_spring_tostring(lua_State *L)
{
    lua_spring *s = (lua_spring *)luaL_checkudata(L, 1, SPRING_MT);
    lua_pushfstring(L, "springbox.spring %d", (int)s->id.index + 1);
    return 1;
}

// ---------------------------------------------------------------- world methods

// world:remove(particle or spring)
static int l_world_remove(lua_State *L)
{
    sb_world *world = check_world(L, 1);
    if (luaL_testudata(L, 2, PARTICLE_MT)) {
        sb_particle_id id;
        if (check_particle(L, 2, &id, NULL) != world)
            return luaL_argerror(L, 2, "particle belongs to another world");
        sb_world_remove_particle(world, id);
    } else if (luaL_testudata(L, 2, SPRING_MT)) {
        sb_spring_id id;
        if (check_spring(L, 2, &id, NULL) != world)
            return luaL_argerror(L, 2, "spring belongs to another world");
        sb_world_remove_spring(world, id);
    } else if (luaL_testudata(L, 2, CONSTRAINT_MT)) {
        sb_particle_id h;
        if (check_handle(L, 2, CONSTRAINT_MT, "constraint", &h, NULL) != world)
            return luaL_argerror(L, 2, "constraint belongs to another world");
        sb_world_remove_constraint(world, (sb_constraint_id){h.index, h.generation});
    } else {
        return luaL_argerror(L, 2, lua_pushfstring(L, "particle, spring or constraint expected, got %s", describe(L, 2)));
    }
    return 0;
}

enum { ITER_PARTICLES = 1, ITER_SPRINGS, ITER_WALLS, ITER_CONSTRAINTS };

// The iterator of world:particles(), springs() and walls(): upvalues are the world, the
// last slot seen and the kind. Handles of every kind start with {index, generation}.
static int handle_iter(lua_State *L)
{
    sb_world *world = check_world(L, lua_upvalueindex(1));
    uint32_t last = (uint32_t)lua_tointeger(L, lua_upvalueindex(2));
    int kind = (int)lua_tointeger(L, lua_upvalueindex(3));
    sb_particle_id p = {last, 0};
    sb_spring_id s = {last, 0};
    sb_wall_id wall = {last, 0};
    sb_constraint_id c = {last, 0};
    bool more = kind == ITER_PARTICLES ? sb_world_next_particle(world, &p)
              : kind == ITER_SPRINGS   ? sb_world_next_spring(world, &s)
              : kind == ITER_WALLS     ? sb_world_next_wall(world, &wall)
                                       : sb_world_next_constraint(world, &c);
    if (!more)
        return 0;
    uint32_t index = kind == ITER_PARTICLES ? p.index : kind == ITER_SPRINGS ? s.index : kind == ITER_WALLS ? wall.index : c.index;
    lua_pushinteger(L, (lua_Integer)index);
    lua_replace(L, lua_upvalueindex(2));
    if (kind == ITER_PARTICLES) {
        sb_lua_push_particle(L, lua_upvalueindex(1), p);
        return 1;
    }
    if (kind == ITER_SPRINGS) {
        push_spring(L, lua_upvalueindex(1), s);
        return 1;
    }
    if (kind == ITER_CONSTRAINTS) {
        push_cached(L, lua_upvalueindex(1), 3, c.index, c.generation, CONSTRAINT_MT);
        return 1;
    }
    sb_vec2 a, b;
    sb_wall_get(world, wall, &a, &b);
    lua_pushnumber(L, a.x);
    lua_pushnumber(L, a.y);
    lua_pushnumber(L, b.x);
    lua_pushnumber(L, b.y);
    return 4;
}

static int make_iter(lua_State *L, int kind)
{
    check_world(L, 1);
    lua_settop(L, 1);
    lua_pushinteger(L, (lua_Integer)SB_NULL_INDEX);
    lua_pushinteger(L, kind);
    lua_pushcclosure(L, handle_iter, 3);
    return 1;
}

static int l_world_particles(lua_State *L) { return make_iter(L, ITER_PARTICLES); }
static int l_world_springs(lua_State *L) { return make_iter(L, ITER_SPRINGS); }
static int l_world_walls(lua_State *L) { return make_iter(L, ITER_WALLS); }
static int l_world_constraints(lua_State *L) { return make_iter(L, ITER_CONSTRAINTS); }

// ---------------------------------------------------------------- constraints

static const char *const constraint_fields[] = {
    "hertz", "damping_ratio", "stiffness", "damping", "k", "c", "length", "angle", "area", NULL,
};

/// The name of a kind's rest value in Lua: ropes and struts have a length, angles an angle, areas an area.
static const char *rest_name(sb_constraint_kind kind)
{
    return kind == SB_CONSTRAINT_ANGLE ? "angle" : kind == SB_CONSTRAINT_AREA ? "area" : "length";
}

static sb_world *check_constraint(lua_State *L, int idx, sb_constraint_id *id, int *world_slot)
{
    sb_particle_id h;
    sb_world *w = check_handle(L, idx, CONSTRAINT_MT, "constraint", &h, world_slot);
    id->index = h.index;
    id->generation = h.generation;
    return w;
}

/// Adds a constraint of `kind` over the particles in `ids`, with the options table at `opt`
/// (its rest value under the kind's name, and a tuning), and pushes its userdata.
static int add_constraint(lua_State *L, sb_world *world, sb_constraint_kind kind, sb_particle_id *ids, int count, int opt)
{
    sb_constraint_def d = sb_default_constraint_def();
    d.kind = kind;
    d.particles = ids;
    d.count = count;
    if (!lua_isnoneornil(L, opt)) {
        luaL_checktype(L, opt, LUA_TTABLE);
        static const char *const allowed[] = {"hertz", "damping_ratio", "stiffness", "damping", "k",     "c",
                                              "length", "angle",         "area",      "solid",   "break_stretch", NULL};
        check_keys(L, opt, opt, sb_constraint_kind_name(kind), allowed);
        if (lua_getfield(L, opt, "solid") != LUA_TNIL) {
            d.solid = check_bool_at(L, -1, opt, "solid");
            if (d.solid && kind != SB_CONSTRAINT_ROPE && kind != SB_CONSTRAINT_STRUT)
                return luaL_argerror(L, opt, lua_pushfstring(L, "only ropes and struts can be solid (a capsule has two "
                                                                "ends), not an %s", sb_constraint_kind_name(kind)));
        }
        lua_pop(L, 1);
        for (int k = 6; k < 9; ++k) { // only the kind's own rest field
            if (strcmp(constraint_fields[k], rest_name(kind)) == 0)
                continue;
            if (lua_getfield(L, opt, constraint_fields[k]) != LUA_TNIL)
                return luaL_argerror(L, opt, lua_pushfstring(L, "a %s has no field '%s' (its rest value is '%s')",
                                                            sb_constraint_kind_name(kind), constraint_fields[k], rest_name(kind)));
            lua_pop(L, 1);
        }
        d.tuning = check_tuning_of(L, opt, opt, d.tuning, sb_constraint_kind_name(kind));
        double limit;
        if (opt_number_field(L, opt, opt, "break_stretch", &limit)) {
            if (kind != SB_CONSTRAINT_ROPE && kind != SB_CONSTRAINT_STRUT)
                return luaL_argerror(L, opt, lua_pushfstring(L, "only ropes and struts can break by stretch, not an %s",
                                                                sb_constraint_kind_name(kind)));
            if (!(limit > 0.0))
                return luaL_argerror(L, opt, lua_pushfstring(L, "field 'break_stretch' must be > 0, got %f", limit));
            d.break_stretch = limit;
        }
        double rest;
        if (opt_number_field(L, opt, opt, rest_name(kind), &rest)) {
            if (kind != SB_CONSTRAINT_ANGLE && kind != SB_CONSTRAINT_AREA && rest < 0.0)
                return luaL_argerror(L, opt, lua_pushfstring(L, "field 'length' must be >= 0, got %f", rest));
            d.rest = rest;
        }
    }
    sb_status st;
    const char *field = NULL;
    sb_constraint_id id = sb_world_add_constraint(world, &d, &st, &field);
    if (st == SB_ERR_SAME_PARTICLE)
        return luaL_argerror(L, 2, lua_pushfstring(L, "an %s's particles must all differ; one is listed twice", sb_constraint_kind_name(kind)));
    if (st != SB_OK)
        return def_error(L, opt, sb_constraint_kind_name(kind), field && strcmp(field, "rest") == 0 ? rest_name(kind) : field, st);
    push_cached(L, 1, 3, id.index, id.generation, CONSTRAINT_MT);
    return 1;
}

/// The particle at stack index `arg`, of this world.
static sb_particle_id world_particle_arg(lua_State *L, sb_world *world, int arg)
{
    sb_particle_id id;
    if (check_particle(L, arg, &id, NULL) != world)
        luaL_argerror(L, arg, "particle belongs to another world");
    return id;
}

// world:rope(a, b [, {length =, hertz =, ...}]): pulls only, when longer than `length` (default: now)
static int l_world_rope(lua_State *L)
{
    sb_world *world = check_world(L, 1);
    sb_particle_id ids[2] = {world_particle_arg(L, world, 2), world_particle_arg(L, world, 3)};
    if (ids[0].index == ids[1].index)
        return luaL_argerror(L, 3, "a rope needs two different particles, got the same one twice");
    return add_constraint(L, world, SB_CONSTRAINT_ROPE, ids, 2, 4);
}

// world:strut(a, b [, {length =, ...}]): pushes only, when shorter than `length`
static int l_world_strut(lua_State *L)
{
    sb_world *world = check_world(L, 1);
    sb_particle_id ids[2] = {world_particle_arg(L, world, 2), world_particle_arg(L, world, 3)};
    if (ids[0].index == ids[1].index)
        return luaL_argerror(L, 3, "a strut needs two different particles, got the same one twice");
    return add_constraint(L, world, SB_CONSTRAINT_STRUT, ids, 2, 4);
}

// world:angle(a, b, c [, {angle =, hertz =, ...}]): the angle at b from a to c (radians, default: now)
static int l_world_angle(lua_State *L)
{
    sb_world *world = check_world(L, 1);
    sb_particle_id ids[3];
    for (int i = 0; i < 3; ++i)
        ids[i] = world_particle_arg(L, world, i + 2);
    if (ids[0].index == ids[1].index || ids[1].index == ids[2].index || ids[0].index == ids[2].index)
        return luaL_argerror(L, 4, "an angle needs three different particles");
    return add_constraint(L, world, SB_CONSTRAINT_ANGLE, ids, 3, 5);
}

// world:area({p1, p2, p3, ...} [, {area =, hertz =, ...}]): the area of the closed loop (default: now)
static int l_world_area(lua_State *L)
{
    sb_world *world = check_world(L, 1);
    luaL_checktype(L, 2, LUA_TTABLE);
    lua_settop(L, 3); // the options (or nil) stay at 3, below the scratch list
    lua_Integer n = (lua_Integer)lua_rawlen(L, 2);
    if (n < 3 || n > 100000)
        return luaL_argerror(L, 2, lua_pushfstring(L, "an area needs a list of 3 to 100000 particles, got %I", n));
    sb_particle_id *ids = (sb_particle_id *)lua_newuserdatauv(L, sizeof *ids * (size_t)n, 0);
    int scratch = lua_gettop(L);
    for (lua_Integer i = 1; i <= n; ++i) {
        lua_rawgeti(L, 2, i);
        sb_world *w;
        if (!sb_lua_to_particle(L, -1, &w, &ids[i - 1]) || w != world)
            return luaL_argerror(L, 2, lua_pushfstring(L, "item %I must be a live particle of this world, got %s", i, describe(L, -1)));
        lua_pop(L, 1);
    }
    (void)scratch; // the ids stay on the stack, and alive, through the call
    return add_constraint(L, world, SB_CONSTRAINT_AREA, ids, (int)n, 3);
}

/// An angle constraint's value without the wrap at +-pi, for plots of a joint that turns past it
/// (issue 22): each read is taken as the nearest turn to the last read of the same handle, so a
/// scene that reads it every frame sees it run on continuously (it turns less than half a turn a
/// frame). Kept per handle in a weak registry table; other kinds push their value.
static void push_unwrapped(lua_State *L, int handle, double value, bool angle)
{
    if (!angle) {
        lua_pushnumber(L, value);
        return;
    }
    if (lua_getfield(L, LUA_REGISTRYINDEX, "springbox.unwrapped") != LUA_TTABLE) {
        lua_pop(L, 1);
        lua_newtable(L);
        lua_createtable(L, 0, 1);
        lua_pushliteral(L, "k");
        lua_setfield(L, -2, "__mode");
        lua_setmetatable(L, -2);
        lua_pushvalue(L, -1);
        lua_setfield(L, LUA_REGISTRYINDEX, "springbox.unwrapped");
    }
    lua_pushvalue(L, handle);
    double unwrapped = value;
    if (lua_rawget(L, -2) == LUA_TNUMBER) { // the last unwrapped value read
        double last = lua_tonumber(L, -1), two_pi = 6.283185307179586;
        unwrapped = value + two_pi * floor((last - value) / two_pi + 0.5);
    }
    lua_pop(L, 1);
    lua_pushvalue(L, handle);
    lua_pushnumber(L, unwrapped);
    lua_rawset(L, -3);
    lua_pop(L, 1);
    lua_pushnumber(L, unwrapped);
}

static int l_constraint_index(lua_State *L)
{
    if (read_removed(L, CONSTRAINT_MT, "constraint"))
        return 1;
    sb_constraint_id id;
    int world_slot;
    sb_world *world = check_constraint(L, 1, &id, &world_slot);
    const char *key = luaL_checkstring(L, 2);
    sb_constraint_def d;
    sb_particle_id ids[3];
    int n = sb_constraint_get(world, id, &d, ids, 3);
    const sb_tuning *t = &d.tuning;
    if (strcmp(key, "kind") == 0) lua_pushstring(L, sb_constraint_kind_name(d.kind));
    else if (strcmp(key, rest_name(d.kind)) == 0) lua_pushnumber(L, d.rest);
    else if (strcmp(key, "value") == 0) lua_pushnumber(L, sb_constraint_value(world, id));
    else if (strcmp(key, "unwrapped") == 0) push_unwrapped(L, 1, sb_constraint_value(world, id), d.kind == SB_CONSTRAINT_ANGLE);
    else if (strcmp(key, "rigid") == 0) lua_pushboolean(L, sb_tuning_is_rigid(t));
    else if (strcmp(key, "tuning") == 0) lua_pushstring(L, t->mode == SB_TUNE_HERTZ ? "hertz" : t->mode == SB_TUNE_COEFFICIENTS ? "coefficients" : "raw");
    else if (strcmp(key, "hertz") == 0 && t->mode == SB_TUNE_HERTZ) lua_pushnumber(L, t->hertz);
    else if (strcmp(key, "damping_ratio") == 0 && t->mode == SB_TUNE_HERTZ) lua_pushnumber(L, t->damping_ratio);
    else if (strcmp(key, "stiffness") == 0 && t->mode == SB_TUNE_COEFFICIENTS) lua_pushnumber(L, t->stiffness);
    else if (strcmp(key, "damping") == 0 && t->mode == SB_TUNE_COEFFICIENTS) lua_pushnumber(L, t->damping);
    else if (strcmp(key, "k") == 0 && t->mode == SB_TUNE_RAW) lua_pushnumber(L, t->k);
    else if (strcmp(key, "c") == 0 && t->mode == SB_TUNE_RAW) lua_pushnumber(L, t->c);
    else if (strcmp(key, "particles") == 0) {
        sb_particle_id *all = (sb_particle_id *)lua_newuserdatauv(L, sizeof *all * (size_t)n, 0);
        sb_constraint_get(world, id, &d, all, n);
        lua_createtable(L, n, 0);
        for (int i = 0; i < n; ++i) {
            sb_lua_push_particle(L, world_slot, all[i]);
            lua_rawseti(L, -2, i + 1);
        }
    }
    else if (strcmp(key, "index") == 0) lua_pushinteger(L, (lua_Integer)id.index + 1);
    else if (strcmp(key, "world") == 0) lua_pushvalue(L, world_slot);
    else if (strcmp(key, "solid") == 0) lua_pushboolean(L, d.solid);
    else if (is_field(key, constraint_fields) && strcmp(key, "length") && strcmp(key, "angle") && strcmp(key, "area"))
        return luaL_error(L, "constraint.%s: this %s is tuned by %s", key, sb_constraint_kind_name(d.kind),
                          t->mode == SB_TUNE_HERTZ ? "hertz and damping_ratio" : t->mode == SB_TUNE_COEFFICIENTS ? "stiffness and damping" : "k and c");
    else return luaL_error(L, "unknown %s property '%s' (kind, %s, value, unwrapped, rigid, tuning, hertz, damping_ratio, stiffness, damping, k, c, particles, index, world, removed)",
                           sb_constraint_kind_name(d.kind), key, rest_name(d.kind));
    return 1;
}

static int l_constraint_newindex(lua_State *L)
{
    sb_constraint_id id;
    sb_world *world = check_constraint(L, 1, &id, NULL);
    const char *key = luaL_checkstring(L, 2);
    sb_constraint_def d;
    sb_particle_id ids[3];
    sb_constraint_get(world, id, &d, ids, 3);
    const char *kind = sb_constraint_kind_name(d.kind);
    bool rest = strcmp(key, rest_name(d.kind)) == 0;
    if (!rest && (!is_field(key, constraint_fields) || !strcmp(key, "length") || !strcmp(key, "angle") || !strcmp(key, "area")))
        return luaL_error(L, "cannot set %s property '%s' (settable: %s, hertz, damping_ratio, stiffness, damping, k, c)", kind, key, rest_name(d.kind));
    if (lua_isnil(L, 3))
        return luaL_error(L, "%s.%s cannot be set to nil (give a number)", kind, key);
    lua_createtable(L, 0, 1);
    lua_pushvalue(L, 3);
    lua_setfield(L, -2, key);
    int tbl = lua_gettop(L);
    if (rest) {
        double v = d.rest;
        opt_number_field(L, tbl, 0, key, &v);
        d.rest = v;
    } else {
        d.tuning = check_tuning_of(L, tbl, 0, d.tuning, kind);
    }
    const char *field = NULL;
    if (sb_constraint_set(world, id, d.rest, &d.tuning, &field) != SB_OK)
        return luaL_error(L, "bad value for %s.%s: %s", kind, field ? (strcmp(field, "rest") == 0 ? rest_name(d.kind) : field) : key, describe(L, 3));
    return 0;
}

static int l_constraint_tostring(lua_State *L)
{
    const sb_particle_id *h = (const sb_particle_id *)luaL_checkudata(L, 1, CONSTRAINT_MT);
    lua_pushfstring(L, "springbox.constraint %d", (int)h->index + 1);
    return 1;
}

/// The options table of a wall or polyline at `arg` ({one_sided =, closed =}): returns one_sided;
/// `closed` is allowed (and read) only for polylines.
static bool wall_options(lua_State *L, int arg, bool *closed)
{
    if (lua_isnoneornil(L, arg))
        return false;
    luaL_checktype(L, arg, LUA_TTABLE);
    static const char *const wall_fields[] = {"one_sided", NULL}, *const polyline_fields[] = {"one_sided", "closed", NULL};
    check_keys(L, arg, arg, closed ? "polyline" : "wall", closed ? polyline_fields : wall_fields);
    bool one_sided = false;
    if (lua_getfield(L, arg, "one_sided") != LUA_TNIL)
        one_sided = check_bool_at(L, -1, arg, "one_sided");
    lua_pop(L, 1);
    if (closed && lua_getfield(L, arg, "closed") != LUA_TNIL)
        *closed = check_bool_at(L, -1, arg, "closed");
    if (closed)
        lua_pop(L, 1);
    return one_sided;
}

// world:wall(x1, y1, x2, y2 [, {one_sided = true}])
static int l_world_wall(lua_State *L)
{
    sb_world *world = check_world(L, 1);
    static const char *const names[] = {"x1", "y1", "x2", "y2"};
    double v[4];
    for (int i = 0; i < 4; ++i) {
        if (lua_isnoneornil(L, i + 2))
            luaL_argerror(L, i + 2, lua_pushfstring(L, "%s must be a number, got nil", names[i]));
        v[i] = check_finite_at(L, i + 2, i + 2, names[i]);
    }
    bool one_sided = wall_options(L, 6, NULL);
    sb_status st;
    sb_wall_id id = sb_world_add_wall(world, (sb_vec2){v[0], v[1]}, (sb_vec2){v[2], v[3]}, &st);
    if (st != SB_OK)
        return luaL_error(L, "could not add wall: %s", sb_status_string(st));
    sb_wall_set_one_sided(world, id, one_sided);
    lua_pushinteger(L, (lua_Integer)id.index + 1);
    return 1;
}

/// The wall numbered at `arg` (walls are numbers in Lua, their slot + 1; slots are never reused).
static sb_wall_id check_wall(lua_State *L, sb_world *world, int arg)
{
    lua_Integer n = luaL_checkinteger(L, arg);
    sb_wall_id id = sb_null_wall();
    sb_wall_id it = sb_null_wall();
    while (sb_world_next_wall(world, &it))
        if ((lua_Integer)it.index + 1 == n)
            id = it;
    if (id.generation == 0)
        luaL_argerror(L, arg, lua_pushfstring(L, "no wall %I in this world (removed, or never made)", n));
    return id;
}

// world:remove_wall(n): the wall goes; its number is never given to another
static int l_world_remove_wall(lua_State *L)
{
    sb_world *world = check_world(L, 1);
    sb_world_remove_wall(world, check_wall(L, world, 2));
    return 0;
}

// world:move_wall(n, x1, y1, x2, y2): the wall moves there at once (walls are static to the
// solver: one moved over a particle does not push it)
static int l_world_move_wall(lua_State *L)
{
    sb_world *world = check_world(L, 1);
    sb_wall_id id = check_wall(L, world, 2);
    static const char *const names[] = {"x1", "y1", "x2", "y2"};
    double v[4];
    for (int i = 0; i < 4; ++i) {
        v[i] = check_finite_at(L, i + 3, i + 3, names[i]);
        if (!(fabs(v[i]) <= SB_MAX_COORD))
            return luaL_argerror(L, i + 3, lua_pushfstring(L, "%s must be within 1e12 m of the origin, got %f", names[i], v[i]));
    }
    sb_wall_set(world, id, (sb_vec2){v[0], v[1]}, (sb_vec2){v[2], v[3]});
    return 0;
}

// world:polyline({x1, y1, x2, y2, ...} [, {closed =, one_sided =}]) -> {wall, ...}: walls through
// the points that collide as one smooth chain.
static int l_world_polyline(lua_State *L)
{
    sb_world *world = check_world(L, 1);
    luaL_checktype(L, 2, LUA_TTABLE);
    bool closed = false;
    bool one_sided = wall_options(L, 3, &closed);
    lua_Integer n = (lua_Integer)lua_rawlen(L, 2);
    if (n < 4 || n % 2 != 0 || n > 2 * 1000000)
        return luaL_argerror(L, 2, lua_pushfstring(L, "points must be a list {x1, y1, x2, y2, ...} of 2 or more points, "
                                                      "got %I numbers", n));
    sb_vec2 *points = (sb_vec2 *)lua_newuserdatauv(L, sizeof *points * (size_t)(n / 2), 0);
    for (lua_Integer i = 0; i < n; ++i) {
        lua_rawgeti(L, 2, i + 1);
        const char *what = lua_pushfstring(L, "points[%I]", i + 1);
        double v = check_finite_at(L, -2, 2, what);
        if (!(fabs(v) <= SB_MAX_COORD))
            return luaL_argerror(L, 2, lua_pushfstring(L, "points[%I] must be within 1e12 m of the origin, got %f", i + 1, v));
        lua_pop(L, 2);
        if (i % 2 == 0)
            points[i / 2].x = v;
        else
            points[i / 2].y = v;
    }
    int count = (int)(n / 2);
    sb_wall_id *ids = (sb_wall_id *)lua_newuserdatauv(L, sizeof *ids * (size_t)count, 0);
    sb_status st;
    int made = sb_world_add_polyline(world, points, count, closed, one_sided, ids, &st);
    if (st != SB_OK)
        return luaL_error(L, "could not add the polyline: %s", sb_status_string(st));
    lua_createtable(L, made, 0);
    for (int i = 0; i < made; ++i) {
        lua_pushinteger(L, (lua_Integer)ids[i].index + 1);
        lua_rawseti(L, -2, i + 1);
    }
    return 1;
}

typedef struct lua_guard { sb_lua_guard fn; void *ud; } lua_guard;

void sb_lua_set_guard(lua_State *L, sb_lua_guard guard, void *ud)
{
    lua_guard *g = (lua_guard *)lua_newuserdatauv(L, sizeof *g, 0);
    g->fn = guard;
    g->ud = ud;
    lua_setfield(L, LUA_REGISTRYINDEX, "springbox.guard");
}

static const lua_guard *get_guard(lua_State *L)
{
    lua_getfield(L, LUA_REGISTRYINDEX, "springbox.guard");
    const lua_guard *g = (const lua_guard *)lua_touserdata(L, -1); // kept alive by the registry
    lua_pop(L, 1);
    return g && g->fn ? g : NULL;
}

static bool guard_interrupt(void *ud)
{
    const lua_guard *g = (const lua_guard *)ud;
    char unused[8];
    return g->fn(g->ud, unused, sizeof unused);
}

// world:step([frames]) -> true, or false and the halt message. Under a host's time limit a long
// call stops between frames or sub-steps and raises the limit's message.
static int l_world_step(lua_State *L)
{
    sb_world *world = check_world(L, 1);
    lua_Integer n = luaL_optinteger(L, 2, 1);
    if (n < 0 || n > 100000000)
        return luaL_argerror(L, 2, lua_pushfstring(L, "frames must be from 0 to 1e8, got %I", n));
    const lua_guard *g = get_guard(L);
    char message[256];
    if (g)
        sb_world_set_interrupt(world, guard_interrupt, (void *)g);
    for (lua_Integer i = 0; i < n; ++i) {
        bool stop = g && g->fn(g->ud, message, sizeof message);
        sb_status st = stop ? SB_ERR_INTERRUPTED : sb_world_step(world);
        if (st == SB_ERR_INTERRUPTED) {
            sb_world_set_interrupt(world, NULL, NULL);
            if (!stop)
                g->fn(g->ud, message, sizeof message);
            return luaL_error(L, "%s", message);
        }
        if (st == SB_ERR_HALTED) {
            sb_world_set_interrupt(world, NULL, NULL);
            lua_pushboolean(L, 0);
            lua_pushstring(L, sb_world_get_stats(world)->message);
            return 2;
        }
    }
    sb_world_set_interrupt(world, NULL, NULL);
    lua_pushboolean(L, 1);
    return 1;
}

static int l_world_resume(lua_State *L)
{
    sb_world_clear_halt(check_world(L, 1));
    return 0;
}

static void set_num(lua_State *L, const char *k, double v) { lua_pushnumber(L, v); lua_setfield(L, -2, k); }
static void set_int(lua_State *L, const char *k, lua_Integer v) { lua_pushinteger(L, v); lua_setfield(L, -2, k); }

// world:stats() -> { kinetic, potential, energy, max_stretch, contacts, step_ms, ... }
static int l_world_stats(lua_State *L)
{
    sb_world *world = check_world(L, 1);
    const sb_stats *st = sb_world_get_stats(world);
    lua_createtable(L, 0, 16);
    set_int(L, "steps", (lua_Integer)st->steps);
    set_num(L, "time", st->time);
    set_num(L, "kinetic", st->kinetic_energy);
    set_num(L, "potential", st->potential_energy);
    set_num(L, "energy", st->kinetic_energy + st->potential_energy);
    set_num(L, "max_stretch", st->max_stretch);
    set_int(L, "contacts", st->contacts);
    set_num(L, "step_ms", st->step_ms);
    set_int(L, "particles", st->particles);
    set_int(L, "springs", st->springs);
    set_int(L, "clamped_springs", st->clamped_springs);
    set_int(L, "clamped_constraints", st->clamped_constraints);
    set_int(L, "broken_springs", st->broken_springs);
    set_int(L, "constraints", sb_world_constraint_count(world));
    if (st->clamped_springs > 0) {
        if (sb_spring_is_valid(world, st->clamped_spring)) {
            push_spring(L, 1, st->clamped_spring);
            lua_setfield(L, -2, "clamped_spring");
        }
        set_num(L, "asked_hertz", st->clamped_asked_hertz);
        set_num(L, "asked_damping_ratio", st->clamped_asked_damping_ratio);
        set_num(L, "delivered_hertz", st->clamped_hertz);
        set_num(L, "delivered_damping_ratio", st->clamped_damping_ratio);
    }
    set_int(L, "overlapping_pairs", st->overlapping_pairs);
    if (st->overlapping_pairs > 0)
        set_num(L, "worst_overlap", st->worst_overlap);
    lua_pushboolean(L, st->halted);
    lua_setfield(L, -2, "halted");
    if (st->halted) {
        lua_pushstring(L, st->message);
        lua_setfield(L, -2, "message");
        if (sb_particle_is_valid(world, st->bad_particle)) {
            sb_lua_push_particle(L, 1, st->bad_particle);
            lua_setfield(L, -2, "bad_particle");
        }
        if (sb_spring_is_valid(world, st->bad_spring)) {
            push_spring(L, 1, st->bad_spring);
            lua_setfield(L, -2, "bad_spring");
        }
    }
    return 1;
}

/// A drag target from arguments xarg and xarg + 1: finite, within SB_MAX_COORD of the origin.
static sb_vec2 check_target(lua_State *L, int xarg)
{
    double x = check_finite_at(L, xarg, xarg, "x"), y = check_finite_at(L, xarg + 1, xarg + 1, "y");
    if (fabs(x) > SB_MAX_COORD || fabs(y) > SB_MAX_COORD)
        luaL_argerror(L, fabs(x) > SB_MAX_COORD ? xarg : xarg + 1,
                      lua_pushfstring(L, "the target must be within 1e12 m of the origin, got (%f, %f)", x, y));
    return (sb_vec2){x, y};
}

// world:drag(particle, x, y [, hertz = 5, damping_ratio = 0.7])
static int l_world_drag(lua_State *L)
{
    sb_world *world = check_world(L, 1);
    sb_particle_id id;
    if (check_particle(L, 2, &id, NULL) != world)
        return luaL_argerror(L, 2, "particle belongs to another world");
    sb_vec2 target = check_target(L, 3);
    double hz = lua_isnoneornil(L, 5) ? 5.0 : check_finite_at(L, 5, 5, "hertz");
    double zeta = lua_isnoneornil(L, 6) ? 0.7 : check_finite_at(L, 6, 6, "damping_ratio");
    if (!(hz >= 1e-6 && hz <= 1e6))
        return luaL_argerror(L, 5, lua_pushfstring(L, "hertz must be in [1e-6, 1e6], got %f", hz));
    if (!(zeta >= 0.0 && zeta <= 1e6))
        return luaL_argerror(L, 6, lua_pushfstring(L, "damping_ratio must be in [0, 1e6], got %f", zeta));
    if (sb_world_drag_begin(world, id, target, hz, zeta) != SB_OK)
        return luaL_error(L, "drag failed: %s", "the particle was removed");
    return 0;
}

static int l_world_drag_to(lua_State *L)
{
    sb_world *world = check_world(L, 1);
    sb_world_drag_move(world, check_target(L, 2));
    return 0;
}

static int l_world_release(lua_State *L)
{
    sb_world_drag_end(check_world(L, 1));
    return 0;
}

// world:pick(x, y [, slop]) -> the particle whose circle (grown by slop) holds the point, nearest first
static int l_world_pick(lua_State *L)
{
    sb_world *world = check_world(L, 1);
    double x = check_finite_at(L, 2, 2, "x"), y = check_finite_at(L, 3, 3, "y");
    double slop = lua_isnoneornil(L, 4) ? 0.0 : check_finite_at(L, 4, 4, "slop");
    sb_particle_id it = sb_null_particle(), best = sb_null_particle();
    double best_d = HUGE_VAL;
    while (sb_world_next_particle(world, &it)) {
        sb_particle_def d;
        sb_particle_get(world, it, &d);
        double dist = hypot(d.position.x - x, d.position.y - y);
        if (dist <= d.radius + slop && dist < best_d) {
            best_d = dist;
            best = it;
        }
    }
    if (best.generation == 0)
        return 0;
    sb_lua_push_particle(L, 1, best);
    return 1;
}

// world:query(xmin, ymin, xmax, ymax) -> the particles whose circles overlap the box, in slot order
static int l_world_query(lua_State *L)
{
    sb_world *world = check_world(L, 1);
    static const char *const names[] = {"xmin", "ymin", "xmax", "ymax"};
    double v[4];
    for (int i = 0; i < 4; ++i)
        v[i] = check_finite_at(L, i + 2, i + 2, names[i]);
    if (v[0] > v[2])
        return luaL_argerror(L, 4, lua_pushfstring(L, "xmax must be >= xmin (%f), got %f", v[0], v[2]));
    if (v[1] > v[3])
        return luaL_argerror(L, 5, lua_pushfstring(L, "ymax must be >= ymin (%f), got %f", v[1], v[3]));
    sb_bounds box = {v[0], v[1], v[2], v[3]};
    int n = sb_world_query_box(world, box, NULL, 0);
    sb_particle_id *ids = (sb_particle_id *)lua_newuserdatauv(L, sizeof *ids * (size_t)(n > 0 ? n : 1), 0);
    n = sb_world_query_box(world, box, ids, n);
    lua_createtable(L, n, 0);
    for (int i = 0; i < n; ++i) {
        sb_lua_push_particle(L, 1, ids[i]);
        lua_rawseti(L, -2, i + 1);
    }
    return 1;
}

// world:raycast(x1, y1, x2, y2) -> nil, or {particle =, wall =, x =, y =, nx =, ny =, fraction =}
static int l_world_raycast(lua_State *L)
{
    sb_world *world = check_world(L, 1);
    static const char *const names[] = {"x1", "y1", "x2", "y2"};
    double v[4];
    for (int i = 0; i < 4; ++i)
        v[i] = check_finite_at(L, i + 2, i + 2, names[i]);
    sb_ray_hit hit = sb_world_raycast(world, (sb_vec2){v[0], v[1]}, (sb_vec2){v[2], v[3]});
    if (!hit.hit)
        return 0;
    lua_createtable(L, 0, 7);
    if (hit.particle.generation) {
        sb_lua_push_particle(L, 1, hit.particle);
        lua_setfield(L, -2, "particle");
    }
    if (hit.wall.generation) {
        lua_pushinteger(L, (lua_Integer)hit.wall.index + 1);
        lua_setfield(L, -2, "wall");
    }
    set_num(L, "x", hit.point.x);
    set_num(L, "y", hit.point.y);
    set_num(L, "nx", hit.normal.x);
    set_num(L, "ny", hit.normal.y);
    set_num(L, "fraction", hit.fraction);
    return 1;
}

static int l_world_hash(lua_State *L)
{
    char text[17];
    snprintf(text, sizeof text, "%016llx", (unsigned long long)sb_world_state_hash(check_world(L, 1)));
    lua_pushstring(L, text);
    return 1;
}

static int l_world_gc(lua_State *L)
{
    lua_world *w = check_world_ud(L, 1); // unreachable now, so no host holds it any more
    sb_world_destroy(w->world);
    w->world = NULL;
    return 0;
}

static int l_handle_eq(lua_State *L)
{
    // Particles and springs are cached per world, so equal handles are the same userdata;
    // this only compares handles of the same kind that were created apart.
    // A particle and a spring in the same slot are not equal: the kinds (metatables) must match.
    const sb_particle_id *a = (const sb_particle_id *)lua_touserdata(L, 1);
    const sb_particle_id *b = (const sb_particle_id *)lua_touserdata(L, 2);
    bool same_kind = lua_getmetatable(L, 1) && lua_getmetatable(L, 2) && lua_rawequal(L, -1, -2);
    lua_getiuservalue(L, 1, 1);
    lua_getiuservalue(L, 2, 1);
    lua_pushboolean(L, same_kind && a && b && a->index == b->index && a->generation == b->generation &&
                           lua_rawequal(L, -1, -2));
    return 1;
}

// ---------------------------------------------------------------- module

// ---------------------------------------------------------------- snapshots

// A snapshot's memory is the core's, out of sight of Lua's collector and of the sandbox's
// memory limit, so the live snapshots of a Lua state share a budget: past it, a full collection
// frees those no longer referenced and, if that is not enough, w:snapshot() refuses by name.
// (A scene taking one per frame and keeping none never reaches it.)
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
static int l_world_snapshot(lua_State *L)
{
    sb_world *world = check_world(L, 1);
    if (snapshot_live_bytes(L) > SNAPSHOT_BUDGET)
        lua_gc(L, LUA_GCCOLLECT);
    size_t live = snapshot_live_bytes(L);
    if (live > SNAPSHOT_BUDGET)
        return luaL_error(L, "snapshot(): the snapshots still referenced hold %d MB, more than the %d MB allowed; "
                             "drop the ones no longer needed (a snapshot is freed once nothing refers to it)",
                          (int)(live >> 20), (int)(SNAPSHOT_BUDGET >> 20));
    lua_snapshot *ud = (lua_snapshot *)lua_newuserdatauv(L, sizeof *ud, 0);
    ud->snap = NULL;
    ud->bytes = 0;
    luaL_setmetatable(L, SNAPSHOT_MT);
    ud->snap = sb_world_snapshot(world);
    if (!ud->snap)
        return luaL_error(L, "snapshot(): out of memory");
    ud->bytes = sb_snapshot_bytes(ud->snap);
    snapshot_count_bytes(L, live + ud->bytes);
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
static int l_world_restore(lua_State *L)
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

static const luaL_Reg snapshot_meta[] = {
    {"__index", l_snapshot_index}, {"__tostring", l_snapshot_tostring}, {"__gc", l_snapshot_gc},
    {"__close", l_snapshot_gc},    {NULL, NULL},
};

static const luaL_Reg world_methods[] = {
    {"particle", l_world_particle}, {"spring", l_world_spring}, {"wall", l_world_wall}, {"polyline", l_world_polyline},
    {"remove_wall", l_world_remove_wall}, {"move_wall", l_world_move_wall},
    {"remove", l_world_remove},     {"particles", l_world_particles}, {"springs", l_world_springs},
    {"walls", l_world_walls},       {"step", l_world_step},       {"stats", l_world_stats},
    {"drag", l_world_drag},         {"drag_to", l_world_drag_to}, {"release", l_world_release},
    {"pick", l_world_pick},         {"hash", l_world_hash},       {"resume", l_world_resume},
    {"close", l_world_close},       {"query", l_world_query},     {"raycast", l_world_raycast},
    {"rope", l_world_rope},         {"strut", l_world_strut},     {"angle", l_world_angle},
    {"area", l_world_area},         {"constraints", l_world_constraints},
    {"snapshot", l_world_snapshot}, {"restore", l_world_restore},
    {NULL, NULL},
};

static const luaL_Reg world_meta[] = {
    {"__index", l_world_index}, {"__newindex", l_world_newindex}, {"__tostring", l_world_tostring},
    {"__gc", l_world_gc},       {"__close", l_world_gc},          {NULL, NULL},
};

static const luaL_Reg particle_meta[] = {
    {"__index", l_particle_index}, {"__newindex", l_particle_newindex},
    {"__tostring", l_particle_tostring}, {"__eq", l_handle_eq}, {NULL, NULL},
};

static const luaL_Reg constraint_meta[] = {
    {"__index", l_constraint_index}, {"__newindex", l_constraint_newindex},
    {"__tostring", l_constraint_tostring}, {"__eq", l_handle_eq}, {NULL, NULL},
};

static const luaL_Reg spring_meta[] = {
    {"__index", l_spring_index}, {"__newindex", l_spring_newindex},
    {"__tostring", l_spring_tostring}, {"__eq", l_handle_eq}, {NULL, NULL},
};

// springbox.tune{ name = {value, min, max}, ... } -> { name = current value, ... }
// Declares values a designer can tune live; the host shows them as sliders and re-runs the
// scene with a new value as a hot reload would. Outside the host the defaults come back.
/// Replaces the table on top of the stack by a copy of its data: strings, numbers, booleans,
/// springbox handles (which say they are stale once their world is replaced) and tables of
/// them, shared and cyclic tables kept so; functions and coroutines are left out (counted in
/// *dropped, and the first named in the registry's "springbox.state.dropped_name"), and so are
/// metatables. `seen` maps each copied table to its copy.
static void state_copy(lua_State *L, int seen, const char *path, int *dropped, int depth)
{
    if (depth > 100)
        luaL_error(L, "springbox.state is nested more than 100 tables deep at %s", path);
    luaL_checkstack(L, 8, "springbox.state");
    int from = lua_gettop(L);
    lua_pushvalue(L, from);
    if (lua_rawget(L, seen) == LUA_TTABLE) {
        lua_replace(L, from);
        return;
    }
    lua_pop(L, 1);
    lua_newtable(L);
    int to = lua_gettop(L);
    lua_pushvalue(L, from);
    lua_pushvalue(L, to);
    lua_rawset(L, seen);
    lua_pushnil(L);
    while (lua_next(L, from)) {
        int kt = lua_type(L, -2), vt = lua_type(L, -1);
        bool code = kt == LUA_TFUNCTION || kt == LUA_TTHREAD || vt == LUA_TFUNCTION || vt == LUA_TTHREAD;
        if (code) {
            if (*dropped == 0) {
                lua_pushfstring(L, "%s.%s holds a %s", path,
                                kt == LUA_TSTRING ? lua_tostring(L, -2) : lua_typename(L, kt),
                                lua_typename(L, vt == LUA_TFUNCTION || vt == LUA_TTHREAD ? vt : kt));
                lua_setfield(L, LUA_REGISTRYINDEX, "springbox.state.dropped_name");
            }
            *dropped += 1;
            lua_pop(L, 1);
            continue;
        }
        const char *sub = kt == LUA_TSTRING ? lua_pushfstring(L, "%s.%s", path, lua_tostring(L, -2))
                                            : lua_pushfstring(L, "%s[...]", path);
        int subpath = lua_gettop(L);
        lua_pushvalue(L, -3); // key
        if (kt == LUA_TTABLE)
            state_copy(L, seen, sub, dropped, depth + 1);
        lua_pushvalue(L, subpath - 1); // value
        if (vt == LUA_TTABLE)
            state_copy(L, seen, sub, dropped, depth + 1);
        lua_rawset(L, to);
        lua_pop(L, 2); // the path and the value; the key stays for lua_next
    }
    lua_replace(L, from);
}

// springbox.state(defaults) -> the scene's own table, kept across hot reloads. The first call of a
// load (a scene host sets springbox.loading) makes it: a copy of the running scene's state
// (springbox.state.current) or a new table, plus every default it lacks; later calls of the same
// load return it. The host makes it current when the load is kept and drops it otherwise. Called
// outside a load (from update(), or without a host) it returns the running state.
static int l_state(lua_State *L)
{
    if (!lua_isnoneornil(L, 1))
        luaL_checktype(L, 1, LUA_TTABLE);
    lua_getfield(L, LUA_REGISTRYINDEX, "springbox.loading");
    bool loading = lua_toboolean(L, -1);
    lua_pop(L, 1);
    const char *key = loading ? "springbox.state.next" : "springbox.state.current"; // at run time: the running one
    if (lua_getfield(L, LUA_REGISTRYINDEX, key) == LUA_TTABLE)
        goto defaults;
    lua_pop(L, 1);
    if (lua_getfield(L, LUA_REGISTRYINDEX, "springbox.state.current") == LUA_TTABLE) {
        // A copy of the data: a failed load cannot change the running state, and the old
        // version's code (functions, coroutines, metatables) does not travel into the new one.
        int from = lua_gettop(L);
        lua_newtable(L); // tables already copied, for shared and cyclic ones
        int seen = lua_gettop(L);
        int count = 0;
        lua_pushvalue(L, from);
        state_copy(L, seen, "springbox.state", &count, 0);
        lua_replace(L, from);
        lua_pushinteger(L, count);
        lua_setfield(L, LUA_REGISTRYINDEX, "springbox.state.dropped");
        lua_settop(L, from);
    } else {
        lua_pop(L, 1);
        lua_newtable(L);
    }
    lua_pushvalue(L, -1);
    lua_setfield(L, LUA_REGISTRYINDEX, key);
defaults:
    if (lua_istable(L, 1)) {
        lua_pushnil(L);
        while (lua_next(L, 1)) {
            lua_pushvalue(L, -2);
            if (lua_rawget(L, -4) == LUA_TNIL) {
                lua_pop(L, 1);
                lua_pushvalue(L, -2);
                lua_insert(L, -2);
                lua_rawset(L, -4);
            } else {
                lua_pop(L, 2);
            }
        }
    }
    return 1;
}


/// The caller's source from the line of its springbox.tune call on (at most 64 KiB), pushed as a
/// string; nil when it cannot be read. A table constructor keeps no order, so the sliders take
/// the order the designer wrote the names in from here. Then pushes the chunk's name when the
/// text is one a scene host loaded ("@path"; W writes there), else nil, with `*base` the
/// offset of the call's line in that file.
static void push_call_source(lua_State *L, size_t *base)
{
    lua_Debug ar;
    *base = 0;
    if (!lua_getstack(L, 1, &ar) || !lua_getinfo(L, "Sl", &ar) || ar.currentline < 1) {
        lua_pushnil(L);
        lua_pushnil(L);
        return;
    }
    bool hosted = false;
    enum { window = 64 * 1024 };
    char *text = NULL;
    size_t len = 0;
    if (ar.source[0] == '@') {
        // A scene host keeps the text of each file it loaded for the scene ("springbox.sources"):
        // the file a chunk name points to is never opened here, as it could name any file, a
        // FIFO or a device (issue 20). Without a host, a regular file is read.
        if (lua_getfield(L, LUA_REGISTRYINDEX, "springbox.sources") == LUA_TTABLE) {
            lua_getfield(L, -1, ar.source);
            lua_remove(L, -2);
            if (!lua_isstring(L, -1)) { // nil: not one of the scene's files
                lua_pushnil(L);
                return;
            }
            text = (char *)lua_tolstring(L, -1, &len);
            hosted = true;
        } else {
            lua_pop(L, 1);
            struct stat st;
            FILE *f = stat(ar.source + 1, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 && st.st_size <= (4l << 20)
                          ? fopen(ar.source + 1, "rb")
                          : NULL;
            if (!f) {
                lua_pushnil(L);
                lua_pushnil(L);
                return;
            }
            text = (char *)lua_newuserdatauv(L, (size_t)st.st_size, 0);
            len = fread(text, 1, (size_t)st.st_size, f);
            fclose(f);
        }
    } else if (ar.source[0] != '=') { // a chunk loaded from a string holds its text
        text = (char *)ar.source;
        len = ar.srclen;
        lua_pushnil(L); // keep the stack shape of the file case
    } else {
        lua_pushnil(L);
        lua_pushnil(L);
        return;
    }
    const char *at = text + sb_text_line_start(text, len, ar.currentline), *end = text + len;
    size_t take = (size_t)(end - at) < window ? (size_t)(end - at) : window;
    lua_pushlstring(L, at, take);
    lua_remove(L, -2);
    *base = (size_t)(at - text);
    if (hosted)
        lua_pushstring(L, ar.source);
    else
        lua_pushnil(L);
}

static int l_tune(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_settop(L, 1);
    size_t base;
    push_call_source(L, &base); // 2: the text from the call's line, 3: its file's chunk name
    // 4: where each entry is written: the sliders' order, and W's numbers (these only in a file a
    // scene host loaded)
    enum { max_found = 256 };
    sb_tune_entry *found = (sb_tune_entry *)lua_newuserdatauv(L, sizeof *found * max_found, 0);
    size_t window_len = 0;
    const char *window = lua_tolstring(L, 2, &window_len);
    const bool hosted = lua_isstring(L, 3);
    int found_count = window ? sb_tune_find_entries(window, window_len, found, max_found) : 0;
    lua_newtable(L);
    int result = lua_gettop(L);
    luaL_getsubtable(L, LUA_REGISTRYINDEX, "springbox.tunables");
    int decl = lua_gettop(L);
    luaL_getsubtable(L, LUA_REGISTRYINDEX, "springbox.overrides");
    int over = lua_gettop(L);
    // order keys: this call's names come after every earlier call's, in the order written
    double call_base = 0.0;
    lua_pushnil(L);
    while (lua_next(L, decl)) {
        call_base += 1e7;
        lua_pop(L, 1);
    }
    lua_pushnil(L);
    while (lua_next(L, 1)) {
        if (lua_type(L, -2) != LUA_TSTRING)
            return luaL_argerror(L, 1, lua_pushfstring(L, "tunable names must be strings, got %s", describe(L, -2)));
        const char *name = lua_tostring(L, -2);
        if (!lua_istable(L, -1) || lua_rawlen(L, -1) != 3)
            return luaL_argerror(L, 1, lua_pushfstring(L, "tunable '%s' must be {value, min, max}, got %s", name, describe(L, -1)));
        int spec = lua_gettop(L);
        const char *what = lua_pushfstring(L, "tunable '%s'", name);
        double value = array_number(L, spec, 1, 1, what), lo = array_number(L, spec, 2, 1, what),
               hi = array_number(L, spec, 3, 1, what);
        if (!(lo <= value && value <= hi))
            return luaL_argerror(L, 1, lua_pushfstring(L, "tunable '%s' needs min <= value <= max, got {%f, %f, %f}", name, value, lo, hi));
        lua_pop(L, 1);
        const double declared = value;
        if (lua_getfield(L, over, name) == LUA_TNUMBER) {
            double v = lua_tonumber(L, -1);
            value = v < lo ? lo : v > hi ? hi : v;
        }
        lua_pop(L, 1);
        const sb_tune_entry *entry = NULL;
        for (int k = 0; k < found_count && !entry; ++k)
            if (found[k].name_length == strlen(name) && memcmp(window + found[k].name_offset, name, found[k].name_length) == 0)
                entry = &found[k];
        lua_createtable(L, 4, 0);
        lua_pushnumber(L, value);
        lua_rawseti(L, -2, 1);
        lua_pushnumber(L, lo);
        lua_rawseti(L, -2, 2);
        lua_pushnumber(L, hi);
        lua_rawseti(L, -2, 3);
        lua_pushnumber(L, call_base + (entry ? (double)entry->name_offset : 9e6)); // unfound: last, by name
        lua_rawseti(L, -2, 4);
        // 5..8: the file, offset and length of its number as written, and the value written there,
        // when that number is the value the call got
        if (hosted && entry && entry->value_length > 0) {
            lua_pushlstring(L, window + entry->value_offset, entry->value_length);
            bool number = lua_stringtonumber(L, lua_tostring(L, -1)) != 0;
            bool same = number && lua_tonumber(L, -1) == declared;
            lua_pop(L, number ? 2 : 1);
            if (same) {
                lua_pushvalue(L, 3);
                lua_rawseti(L, -2, 5);
                lua_pushinteger(L, (lua_Integer)(base + entry->value_offset));
                lua_rawseti(L, -2, 6);
                lua_pushinteger(L, (lua_Integer)entry->value_length);
                lua_rawseti(L, -2, 7);
                lua_pushnumber(L, declared);
                lua_rawseti(L, -2, 8);
            }
        }
        lua_setfield(L, decl, name);
        lua_pushnumber(L, value);
        lua_setfield(L, result, name);
        lua_pop(L, 1);
    }
    lua_settop(L, result);
    return 1;
}

// springbox.plot(name, value [, panel]): one sample of a named series for this frame. A host draws
// each series as a live graph (series given the same panel share one, overlaid on one scale) and
// writes it into --stats; without a host it is kept and ignored.
// Series live in the registry table "springbox.plots": names in the order they first came
// (array part) and each one's latest value (hash part).
enum { plot_max_series = 12, plot_max_name = 32 };
static int l_plot(lua_State *L)
{
    size_t len;
    const char *name = luaL_checklstring(L, 1, &len);
    if (len == 0 || len > plot_max_name)
        return luaL_argerror(L, 1, lua_pushfstring(L, "name must have 1 to %d characters, got %d", plot_max_name, (int)len));
    for (size_t i = 0; i < len; ++i) // names go into JSON and onto the HUD as they are
        if ((unsigned char)name[i] < 0x20 || name[i] == '"' || name[i] == '\\' || (unsigned char)name[i] >= 0x7F)
            return luaL_argerror(L, 1, lua_pushfstring(L, "name must be printable ASCII without quotes or backslashes, got \"%s\"", name));
    double v = check_finite_at(L, 2, 2, "value");
    if (!lua_isnoneornil(L, 3)) { // the panel: printable like a name; kept per series
        size_t plen;
        const char *panel = luaL_checklstring(L, 3, &plen);
        bool printable = plen > 0 && plen <= plot_max_name;
        for (size_t i = 0; printable && i < plen; ++i)
            printable = (unsigned char)panel[i] >= 0x20 && (unsigned char)panel[i] < 0x7F && panel[i] != '"' && panel[i] != '\\';
        if (!printable)
            return luaL_argerror(L, 3, lua_pushfstring(L, "panel must be 1 to %d printable ASCII characters without quotes "
                                                          "or backslashes, got \"%s\"", plot_max_name, panel));
        if (lua_getfield(L, LUA_REGISTRYINDEX, "springbox.plots.panel") != LUA_TTABLE) {
            lua_pop(L, 1);
            lua_newtable(L);
            lua_pushvalue(L, -1);
            lua_setfield(L, LUA_REGISTRYINDEX, "springbox.plots.panel");
        }
        lua_pushvalue(L, 1);
        lua_pushvalue(L, 3);
        lua_rawset(L, -3);
        lua_pop(L, 1);
    }
    if (lua_getfield(L, LUA_REGISTRYINDEX, "springbox.plots") != LUA_TTABLE) {
        lua_pop(L, 1);
        lua_newtable(L);
        lua_pushvalue(L, -1);
        lua_setfield(L, LUA_REGISTRYINDEX, "springbox.plots");
    }
    int plots = lua_gettop(L);
    // "springbox.plots.fresh": the names plotted since the last reload, when a host reloaded.
    bool reloaded = lua_getfield(L, LUA_REGISTRYINDEX, "springbox.plots.fresh") == LUA_TTABLE;
    int fresh = lua_gettop(L);
    lua_pushvalue(L, 1);
    if (lua_rawget(L, plots) == LUA_TNIL) {
        lua_Integer n = (lua_Integer)lua_rawlen(L, plots);
        // Full: a series the running version has not plotted (an earlier version's) gives way.
        for (lua_Integer i = 1; n >= plot_max_series && reloaded && i <= n; ++i) {
            lua_rawgeti(L, plots, i);
            bool stale = lua_rawget(L, fresh) == LUA_TNIL;
            lua_pop(L, 1);
            if (!stale)
                continue;
            lua_rawgeti(L, plots, i);
            lua_pushnil(L);
            lua_rawset(L, plots);
            for (lua_Integer k = i; k < n; ++k) {
                lua_rawgeti(L, plots, k + 1);
                lua_rawseti(L, plots, k);
            }
            lua_pushnil(L);
            lua_rawseti(L, plots, n);
            n -= 1;
        }
        if (n >= plot_max_series)
            return luaL_error(L, "springbox.plot: at most %d series, and '%s' would be one more", plot_max_series, name);
        lua_pushvalue(L, 1);
        lua_rawseti(L, plots, n + 1);
    }
    if (reloaded) {
        lua_pushvalue(L, 1);
        lua_pushboolean(L, 1);
        lua_rawset(L, fresh);
    }
    lua_settop(L, plots);
    lua_pushvalue(L, 1);
    lua_pushnumber(L, v);
    lua_rawset(L, plots);
    return 0;
}

// springbox.keyboard.isdown(key, ...): true if any of the keys is held (LÖVE's
// love.keyboard.isDown). Key names are SDL's in lower case: "left", "space", "a", "return".
// A host keeps the held keys in the registry table "springbox.keys"; without one none are held.
static int l_keyboard_isdown(lua_State *L)
{
    int n = lua_gettop(L);
    if (n == 0)
        return luaL_argerror(L, 1, "key name expected, got no value");
    bool down = false;
    bool have = lua_getfield(L, LUA_REGISTRYINDEX, "springbox.keys") == LUA_TTABLE;
    for (int i = 1; i <= n; ++i) {
        luaL_checkstring(L, i);
        if (have) {
            lua_pushvalue(L, i);
            down = down || lua_rawget(L, n + 1) != LUA_TNIL;
            lua_pop(L, 1);
        }
    }
    lua_pushboolean(L, down);
    return 1;
}

// springbox.mouse.position() -> x, y in world metres (0, 0 without a host);
// springbox.mouse.isdown(button, ...) with buttons 1 left, 2 right, 3 middle, as LÖVE.
static int l_mouse_position(lua_State *L)
{
    double x = 0.0, y = 0.0;
    if (lua_getfield(L, LUA_REGISTRYINDEX, "springbox.mouse") == LUA_TTABLE) {
        lua_rawgeti(L, -1, 1);
        lua_rawgeti(L, -2, 2);
        x = lua_tonumber(L, -2);
        y = lua_tonumber(L, -1);
    }
    lua_pushnumber(L, x);
    lua_pushnumber(L, y);
    return 2;
}

static int l_mouse_isdown(lua_State *L)
{
    int n = lua_gettop(L);
    if (n == 0)
        return luaL_argerror(L, 1, "button expected, got no value");
    bool have = lua_getfield(L, LUA_REGISTRYINDEX, "springbox.mouse") == LUA_TTABLE;
    lua_Integer held = 0;
    if (have) {
        lua_rawgeti(L, -1, 3);
        held = lua_tointeger(L, -1);
    }
    bool down = false;
    for (int i = 1; i <= n; ++i) {
        lua_Integer b = luaL_checkinteger(L, i);
        if (b < 1 || b > 8)
            return luaL_argerror(L, i, lua_pushfstring(L, "button must be 1 to 8, got %I", b));
        down = down || (held >> (b - 1) & 1);
    }
    lua_pushboolean(L, down);
    return 1;
}

// springbox.camera: what the window shows. A host reads the request from the registry table
// "springbox.camera" ({x, y, height} to look at once, or {particle = p, height} to follow)
// and writes what it shows to "springbox.view" ({x, y, height}); without one nothing moves.
/// The optional height of world the view shows, in metres, at `arg`; 0 when absent.
static double check_view_height(lua_State *L, int arg)
{
    if (lua_isnoneornil(L, arg))
        return 0.0;
    double h = luaL_checknumber(L, arg);
    if (!(h >= 1e-6 && h <= 1e9))
        arg_error(L, arg, lua_pushfstring(L, "height is the metres of world the view shows, in [1e-6, 1e9], got %s",
                                          describe(L, arg)));
    return h;
}

static void set_camera_request(lua_State *L, double x, double y, double height, int particle)
{
    lua_createtable(L, 3, 2);
    if (particle) {
        lua_pushvalue(L, particle);
        lua_setfield(L, -2, "particle");
    } else {
        lua_pushnumber(L, x);
        lua_rawseti(L, -2, 1);
        lua_pushnumber(L, y);
        lua_rawseti(L, -2, 2);
    }
    lua_pushnumber(L, height);
    lua_setfield(L, -2, "height");
    lua_setfield(L, LUA_REGISTRYINDEX, "springbox.camera");
}

// springbox.camera.look(x, y [, height]): centre the view on (x, y) once.
static int l_camera_look(lua_State *L)
{
    double x = luaL_checknumber(L, 1), y = luaL_checknumber(L, 2);
    for (int i = 1; i <= 2; ++i)
        if (!(fabs(lua_tonumber(L, i)) <= SB_MAX_COORD))
            arg_error(L, i, lua_pushfstring(L, "must be finite and within 1e12 m, got %s", describe(L, i)));
    set_camera_request(L, x, y, check_view_height(L, 3), 0);
    return 0;
}

// springbox.camera.follow(p [, height]): keep particle p centred every frame; nil stops.
static int l_camera_follow(lua_State *L)
{
    if (lua_isnoneornil(L, 1)) {
        lua_pushnil(L);
        lua_setfield(L, LUA_REGISTRYINDEX, "springbox.camera");
        return 0;
    }
    sb_world *w;
    sb_particle_id id;
    if (!sb_lua_to_particle(L, 1, &w, &id))
        return arg_error(L, 1, lua_pushfstring(L, "a live particle (or nil to stop following) expected, got %s",
                                               describe(L, 1)));
    set_camera_request(L, 0.0, 0.0, check_view_height(L, 2), 1);
    return 0;
}

// springbox.camera.get() -> x, y, height: what the view shows (0, 0, 0 without a host).
static int l_camera_get(lua_State *L)
{
    double v[3] = {0.0, 0.0, 0.0};
    if (lua_getfield(L, LUA_REGISTRYINDEX, "springbox.view") == LUA_TTABLE)
        for (int i = 0; i < 3; ++i) {
            lua_rawgeti(L, -1, i + 1);
            v[i] = lua_tonumber(L, -1);
            lua_pop(L, 1);
        }
    for (int i = 0; i < 3; ++i)
        lua_pushnumber(L, v[i]);
    return 3;
}

// springbox.window.set_title(text): the window's title while the scene runs (a score, a
// state); nil goes back to the scene table's title. The registry's "springbox.title".
static int l_window_set_title(lua_State *L)
{
    if (!lua_isnoneornil(L, 1)) {
        size_t len;
        luaL_checklstring(L, 1, &len);
        if (len > 200 || strlen(lua_tostring(L, 1)) != len)
            return arg_error(L, 1, lua_pushfstring(L, "a title has at most 200 characters and no zeros, got %d characters",
                                                   (int)len));
    }
    lua_settop(L, 1);
    lua_setfield(L, LUA_REGISTRYINDEX, "springbox.title");
    return 0;
}

static int l_methods(lua_State *L)
{
    lua_createtable(L, SB_METHOD_COUNT, 0);
    for (int m = 0; m < SB_METHOD_COUNT; ++m) {
        lua_pushstring(L, sb_method_name((sb_method)m));
        lua_rawseti(L, -2, m + 1);
    }
    return 1;
}

int luaopen_springbox(lua_State *L)
{
    luaL_checkversion(L);
    if (luaL_newmetatable(L, WORLD_MT)) {
        luaL_setfuncs(L, world_meta, 0);
        luaL_setfuncs(L, world_methods, 0); // methods live in the metatable; __index looks there first
        lua_pushliteral(L, WORLD_MT); // getmetatable() sees this, so scripts cannot swap __gc
        lua_setfield(L, -2, "__metatable");
    }
    lua_pop(L, 1);
    if (luaL_newmetatable(L, PARTICLE_MT)) {
        luaL_setfuncs(L, particle_meta, 0);
        lua_pushliteral(L, PARTICLE_MT);
        lua_setfield(L, -2, "__metatable");
    }
    lua_pop(L, 1);
    if (luaL_newmetatable(L, SPRING_MT)) {
        luaL_setfuncs(L, spring_meta, 0);
        lua_pushliteral(L, SPRING_MT);
        lua_setfield(L, -2, "__metatable");
    }
    lua_pop(L, 1);
    if (luaL_newmetatable(L, SNAPSHOT_MT)) {
        luaL_setfuncs(L, snapshot_meta, 0);
        lua_pushliteral(L, SNAPSHOT_MT);
        lua_setfield(L, -2, "__metatable");
    }
    lua_pop(L, 1);
    if (luaL_newmetatable(L, CONSTRAINT_MT)) {
        luaL_setfuncs(L, constraint_meta, 0);
        lua_pushliteral(L, CONSTRAINT_MT);
        lua_setfield(L, -2, "__metatable");
    }
    lua_pop(L, 1);

    static const luaL_Reg functions[] = {
        {"world", l_world_new}, {"tune", l_tune}, {"state", l_state}, {"plot", l_plot}, {NULL, NULL},
    };
    static const luaL_Reg keyboard[] = {{"isdown", l_keyboard_isdown}, {NULL, NULL}};
    static const luaL_Reg mouse[] = {{"position", l_mouse_position}, {"isdown", l_mouse_isdown}, {NULL, NULL}};
    static const luaL_Reg camera[] = {
        {"look", l_camera_look}, {"follow", l_camera_follow}, {"get", l_camera_get}, {NULL, NULL},
    };
    static const luaL_Reg window[] = {{"set_title", l_window_set_title}, {NULL, NULL}};
    static const struct { const char *name; const luaL_Reg *functions; } parts[] = {
        {"keyboard", keyboard}, {"mouse", mouse}, {"camera", camera}, {"window", window},
    };
    luaL_newlib(L, functions);
    for (size_t i = 0; i < sizeof parts / sizeof *parts; ++i) {
        lua_newtable(L);
        luaL_setfuncs(L, parts[i].functions, 0);
        lua_setfield(L, -2, parts[i].name);
    }
    l_methods(L);
    lua_setfield(L, -2, "methods");
    lua_pushliteral(L, SPRINGBOX_VERSION); // the CMake project version
    lua_setfield(L, -2, "version");
    return 1;
}
