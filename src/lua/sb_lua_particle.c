// Particles: w:particle{...}, their fields as properties, forces and impulses.
#include "sb_lua_internal.h"

static const char *const particle_fields[] = {
    "x", "y", "vx", "vy", "mass", "radius", "fixed", "collide", "restitution", "friction",
    "rolls", "angle", "spin", "inertia", "rolling_resistance",
    "group", "category", "mask", "events", "color", "hidden", NULL,
};

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

sb_particle_def sb_lua_check_particle_def(lua_State *L, int idx, int arg)
{
    luaL_checktype(L, idx, LUA_TTABLE);
    check_keys(L, idx, arg, "particle", particle_fields);
    sb_particle_def d = sb_default_particle_def();
    for (const char *const *f = particle_fields; *f; ++f) {
        if (lua_getfield(L, idx, *f) != LUA_TNIL)
            particle_field(L, &d, *f, -1, arg);
        lua_pop(L, 1);
    }
    const char *field = NULL;
    if (sb_particle_def_check(&d, &field) != SB_OK)
        def_error(L, arg, "particle", field, SB_ERR_INVALID);
    return d;
}

// world:particle{ x =, y =, vx =, vy =, mass = 1, radius = 0.05, fixed = false, ... }
int l_world_particle(lua_State *L)
{
    sb_world *world = check_world(L, 1);
    sb_particle_def d = sb_lua_check_particle_def(L, 2, 2);
    sb_status st;
    const char *field = NULL;
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

int l_particle_index(lua_State *L)
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

int l_particle_newindex(lua_State *L)
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
    if (sb_particle_set(world, id, &d, &field) != SB_OK) {
        // the core names its own field; the property written may be another name for it
        const char *written = strcmp(key, "rolls") == 0 ? "rolling" : strcmp(key, "spin") == 0 ? "angular_velocity" : key;
        if (!field || strcmp(field, written) == 0)
            return luaL_error(L, "bad value for particle.%s: %s", key, describe(L, 3));
        return luaL_error(L, "particle.%s was not set: the particle's %s is out of its range (did it run away?)", key,
                          field);
    }
    return 0;
}

int l_particle_tostring(lua_State *L)
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
