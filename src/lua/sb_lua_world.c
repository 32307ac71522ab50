// springbox.world: making a world, its settings as properties, stepping it, its walls, dragging,
// queries, its stats and its hash.
#include "sb_lua_internal.h"

static const char *const world_fields[] = {
    "gravity", "dt", "substeps", "iterations", "method", "warmstart", "correction", "collisions",
    "restitution", "restitution_threshold", "friction", "rolling_resistance", "bounds", "verlet_preserve_impulse", "tethers", "region",
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
int l_world_new(lua_State *L)
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
    } else if (strcmp(key, "restitution_threshold") == 0) {
        double v = check_finite_at(L, vidx, arg, what);
        if (v < 0.0 || v > 1e6)
            arg_error(L, arg, lua_pushfstring(L, "%s must be in [0, 1e6] m/s, got %s", what, describe(L, vidx)));
        d->restitution_threshold = v;
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
    else if (strcmp(key, "restitution_threshold") == 0) lua_pushnumber(L, d.restitution_threshold);
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

int l_world_index(lua_State *L)
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

int l_world_newindex(lua_State *L)
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

int l_world_tostring(lua_State *L)
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

int l_world_close(lua_State *L)
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


// world:remove(particle or spring)
int l_world_remove(lua_State *L)
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
        sb_spring_def d;
        sb_spring_get(world, id, &d);
        const double length = sb_spring_length(world, id);
        sb_lua_push_spring_values(L, 1, world, id.index, d.a, d.b, d.rest_length, &d.tuning, sb_spring_force(world, id),
                                  d.rest_length > 0.0 ? length / d.rest_length - 1.0 : 0.0);
        sb_lua_spring_keep_last(L, 2);
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

int l_world_particles(lua_State *L) { return make_iter(L, ITER_PARTICLES); }
int l_world_springs(lua_State *L) { return make_iter(L, ITER_SPRINGS); }
int l_world_walls(lua_State *L) { return make_iter(L, ITER_WALLS); }
int l_world_constraints(lua_State *L) { return make_iter(L, ITER_CONSTRAINTS); }


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
int l_world_wall(lua_State *L)
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
int l_world_remove_wall(lua_State *L)
{
    sb_world *world = check_world(L, 1);
    sb_world_remove_wall(world, check_wall(L, world, 2));
    return 0;
}

// world:move_wall(n, x1, y1, x2, y2): the wall moves there at once (walls are static to the
// solver: one moved over a particle does not push it)
int l_world_move_wall(lua_State *L)
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
int l_world_polyline(lua_State *L)
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

void sb_lua_world_guarded(lua_State *L, sb_world *world, bool on)
{
    const lua_guard *g = on ? get_guard(L) : NULL;
    sb_world_set_interrupt(world, g ? guard_interrupt : NULL, (void *)g);
}

int sb_lua_guard_error(lua_State *L)
{
    const lua_guard *g = get_guard(L);
    char message[256] = "stopped by the host";
    if (g)
        g->fn(g->ud, message, sizeof message);
    return luaL_error(L, "%s", message);
}

// world:step([frames]) -> true, or false and the halt message. Under a host's time limit a long
// call stops between frames or sub-steps and raises the limit's message.
int l_world_step(lua_State *L)
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

int l_world_resume(lua_State *L)
{
    sb_world_clear_halt(check_world(L, 1));
    return 0;
}

// world:stats() -> { kinetic, potential, energy, max_stretch, contacts, step_ms, ... }
int l_world_stats(lua_State *L)
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
    set_int(L, "threads", st->threads);
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
    set_int(L, "overlapping_walls", st->overlapping_walls);
    if (st->overlapping_walls > 0)
        set_num(L, "worst_wall_overlap", st->worst_wall_overlap);
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
int l_world_drag(lua_State *L)
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

int l_world_drag_to(lua_State *L)
{
    sb_world *world = check_world(L, 1);
    sb_world_drag_move(world, check_target(L, 2));
    return 0;
}

int l_world_release(lua_State *L)
{
    sb_world_drag_end(check_world(L, 1));
    return 0;
}

// world:pick(x, y [, slop]) -> the particle whose circle (grown by slop) holds the point, nearest first
int l_world_pick(lua_State *L)
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
int l_world_query(lua_State *L)
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
int l_world_raycast(lua_State *L)
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

int l_world_hash(lua_State *L)
{
    char text[17];
    snprintf(text, sizeof text, "%016llx", (unsigned long long)sb_world_state_hash(check_world(L, 1)));
    lua_pushstring(L, text);
    return 1;
}

int l_world_gc(lua_State *L)
{
    lua_world *w = check_world_ud(L, 1); // unreachable now, so no host holds it any more
    sb_world_destroy(w->world);
    w->world = NULL;
    return 0;
}
