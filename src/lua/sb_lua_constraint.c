// Constraints: ropes, struts, angles and areas, and their fields as properties.
#include "sb_lua_internal.h"

static const char *const constraint_fields[] = {
    "hertz", "damping_ratio", "stiffness", "damping", "k", "c", "length", "angle", "area", NULL,
};

/// The name of a kind's rest value in Lua: ropes and struts have a length, angles an angle, areas an area.
static const char *rest_name(sb_constraint_kind kind)
{
    return kind == SB_CONSTRAINT_ANGLE ? "angle" : kind == SB_CONSTRAINT_AREA ? "area" : "length";
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

// world:rope(a, b [, {length =, hertz =, ...}]): pulls only, when longer than `length` (default: now)
int l_world_rope(lua_State *L)
{
    sb_world *world = check_world(L, 1);
    sb_particle_id ids[2] = {world_particle_arg(L, world, 2), world_particle_arg(L, world, 3)};
    if (ids[0].index == ids[1].index)
        return luaL_argerror(L, 3, "a rope needs two different particles, got the same one twice");
    return add_constraint(L, world, SB_CONSTRAINT_ROPE, ids, 2, 4);
}

// world:strut(a, b [, {length =, ...}]): pushes only, when shorter than `length`
int l_world_strut(lua_State *L)
{
    sb_world *world = check_world(L, 1);
    sb_particle_id ids[2] = {world_particle_arg(L, world, 2), world_particle_arg(L, world, 3)};
    if (ids[0].index == ids[1].index)
        return luaL_argerror(L, 3, "a strut needs two different particles, got the same one twice");
    return add_constraint(L, world, SB_CONSTRAINT_STRUT, ids, 2, 4);
}

// world:angle(a, b, c [, {angle =, hertz =, ...}]): the angle at b from a to c (radians, default: now)
int l_world_angle(lua_State *L)
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
int l_world_area(lua_State *L)
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
///: each read is taken as the nearest turn to the last read of the same handle, so a
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

int l_constraint_index(lua_State *L)
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

int l_constraint_newindex(lua_State *L)
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

int l_constraint_tostring(lua_State *L)
{
    const sb_particle_id *h = (const sb_particle_id *)luaL_checkudata(L, 1, CONSTRAINT_MT);
    lua_pushfstring(L, "springbox.constraint %d", (int)h->index + 1);
    return 1;
}
