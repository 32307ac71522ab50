// The bindings' auxiliary layer (as Lua's lauxlib under its libraries): argument checks that name
// the argument and the value, and the handles of worlds, particles, springs and constraints.
#include "sb_lua_internal.h"

// Errors name what was wrong: an argument (arg > 0, through luaL_argerror) or a property
// being assigned (arg == 0, where `msg` already starts with "world.gravity ..." and the like).
int arg_error(lua_State *L, int arg, const char *msg)
{
    if (arg > 0)
        return luaL_argerror(L, arg, msg);
    return luaL_error(L, "%s", msg);
}

// How a value is named in messages: "field 'mass'" in a definition, "particle.mass" when assigned.
const char *value_name(lua_State *L, int arg, const char *kind, const char *key)
{
    return arg > 0 ? lua_pushfstring(L, "field '%s'", key) : lua_pushfstring(L, "%s.%s", kind, key);
}

// The value at idx as text for an error message ("nan", "-1", "'abc'", "table").
const char *describe(lua_State *L, int idx)
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
double check_finite_at(lua_State *L, int idx, int arg, const char *what)
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

bool check_bool_at(lua_State *L, int idx, int arg, const char *what)
{
    if (lua_type(L, idx) != LUA_TBOOLEAN) {
        const char *got = describe(L, idx);
        arg_error(L, arg, lua_pushfstring(L, "%s must be a boolean, got %s", what, got));
    }
    return lua_toboolean(L, idx);
}

// True if `key` is one of `fields` (NULL-terminated).
bool is_field(const char *key, const char *const *fields)
{
    for (const char *const *f = fields; key && *f; ++f)
        if (strcmp(key, *f) == 0)
            return true;
    return false;
}

// Rejects keys of table `tbl` that are not in `allowed` (NULL-terminated): a typo in a
// definition must not be silently ignored.
void check_keys(lua_State *L, int tbl, int arg, const char *kind, const char *const *allowed)
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
bool opt_number_field(lua_State *L, int tbl, int arg, const char *name, double *out)
{
    bool present = lua_getfield(L, tbl, name) != LUA_TNIL;
    int value = lua_gettop(L);
    if (present)
        *out = check_finite_at(L, value, arg, value_name(L, arg, "spring", name)); // only springs use it
    lua_settop(L, value - 1);
    return present;
}

// Element i of the array at idx, as a finite number; `what` names the whole value.
double array_number(lua_State *L, int idx, int i, int arg, const char *what)
{
    lua_rawgeti(L, idx, i);
    int value = lua_gettop(L);
    double v = check_finite_at(L, value, arg, lua_pushfstring(L, "%s[%d]", what, i));
    lua_settop(L, value - 1);
    return v;
}

// A vector given as {x, y}.
sb_vec2 check_vec2_at(lua_State *L, int idx, int arg, const char *what)
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

sb_bounds check_bounds_at(lua_State *L, int idx, int arg, const char *what)
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

sb_method check_method_at(lua_State *L, int idx, int arg, const char *what)
{
    sb_method m = SB_METHOD_SOFT; // (arg_error does not return)
    const char *name = lua_type(L, idx) == LUA_TSTRING ? lua_tostring(L, idx) : NULL;
    if (!name || !sb_method_from_name(name, &m)) {
        const char *got = describe(L, idx);
        arg_error(L, arg, lua_pushfstring(L, "%s must be force, impulse, sequential, soft, verlet or xpbd, got %s", what, got));
    }
    return m;
}


lua_world *check_world_ud(lua_State *L, int idx)
{
    return (lua_world *)luaL_checkudata(L, idx, WORLD_MT);
}

sb_world *check_world(lua_State *L, int idx)
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
int def_error(lua_State *L, int arg, const char *kind, const char *field, sb_status st)
{
    if (st == SB_ERR_NO_MEMORY)
        return luaL_error(L, "out of memory");
    return arg_error(L, arg, lua_pushfstring(L, "%s field '%s' is out of range", kind, field ? field : "?"));
}

void push_vec2(lua_State *L, sb_vec2 v)
{
    lua_createtable(L, 2, 0);
    lua_pushnumber(L, v.x);
    lua_rawseti(L, -2, 1);
    lua_pushnumber(L, v.y);
    lua_rawseti(L, -2, 2);
}

void push_cached(lua_State *L, int world_idx, int cache, uint32_t index, uint32_t generation, const char *mt)
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
    // user value 1: the world; 2: a removed spring's last values (sb_lua_spring_keep_last)
    sb_particle_id *id = (sb_particle_id *)lua_newuserdatauv(L, sizeof(sb_particle_id), 2);
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

void push_spring(lua_State *L, int world_idx, sb_spring_id id) { sb_lua_push_spring(L, world_idx, id); }

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
sb_world *check_handle(lua_State *L, int idx, const char *mt, const char *kind, sb_particle_id *id, int *world_slot)
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

sb_world *check_particle(lua_State *L, int idx, sb_particle_id *id, int *world_slot)
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

uint32_t check_color_at(lua_State *L, int idx, int arg, const char *what)
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

void push_color(lua_State *L, uint32_t color)
{
    if (color == 0) {
        lua_pushnil(L);
        return;
    }
    char text[10];
    snprintf(text, sizeof text, "#%08x", (unsigned)color);
    lua_pushstring(L, text);
}

lua_Integer check_integer_in(lua_State *L, int idx, int arg, const char *what, lua_Integer lo, lua_Integer hi)
{
    int isint;
    lua_Integer v = lua_tointegerx(L, idx, &isint);
    if (!isint || v < lo || v > hi)
        arg_error(L, arg, lua_pushfstring(L, "%s must be an integer in [%I, %I], got %s", what, lo, hi, describe(L, idx)));
    return v;
}

/// `removed` reads without raising (Lua's io.type for files): true once the object or its world is gone.
bool read_removed(lua_State *L, const char *mt, const char *kind)
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

bool handle_removed(lua_State *L, int idx, const char *mt, const char *kind)
{
    const sb_particle_id *h = (const sb_particle_id *)luaL_checkudata(L, idx, mt);
    lua_getiuservalue(L, idx, 1);
    lua_world *w = (lua_world *)lua_touserdata(L, -1);
    lua_pop(L, 1);
    return w && w->world && !w->retired && !handle_alive(w->world, kind, *h);
}

sb_world *check_spring(lua_State *L, int idx, sb_spring_id *id, int *world_slot)
{
    sb_particle_id h;
    sb_world *w = check_handle(L, idx, SPRING_MT, "spring", &h, world_slot);
    id->index = h.index;
    id->generation = h.generation;
    return w;
}

sb_tuning check_tuning(lua_State *L, int idx, int arg, sb_tuning base)
{
    return check_tuning_of(L, idx, arg, base, "spring");
}

sb_tuning check_tuning_of(lua_State *L, int idx, int arg, sb_tuning base, const char *kind)
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

sb_world *check_constraint(lua_State *L, int idx, sb_constraint_id *id, int *world_slot)
{
    sb_particle_id h;
    sb_world *w = check_handle(L, idx, CONSTRAINT_MT, "constraint", &h, world_slot);
    id->index = h.index;
    id->generation = h.generation;
    return w;
}

/// The particle at stack index `arg`, of this world.
sb_particle_id world_particle_arg(lua_State *L, sb_world *world, int arg)
{
    sb_particle_id id;
    if (check_particle(L, arg, &id, NULL) != world)
        luaL_argerror(L, arg, "particle belongs to another world");
    return id;
}

void set_num(lua_State *L, const char *k, double v) { lua_pushnumber(L, v); lua_setfield(L, -2, k); }
void set_int(lua_State *L, const char *k, lua_Integer v) { lua_pushinteger(L, v); lua_setfield(L, -2, k); }

int l_handle_eq(lua_State *L)
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

void sb_lua_copy_table(lua_State *L, int seen, const char *path, bool data_only, int *dropped, int depth)
{
    sb_lua_copy_table_within(L, seen, path, data_only, dropped, depth, NULL);
}

void sb_lua_copy_table_within(lua_State *L, int seen, const char *path, bool data_only, int *dropped, int depth,
                              long *budget)
{
    if (lua_type(L, -1) != LUA_TTABLE)
        return;
    if (depth > 100)
        luaL_error(L, "springbox.state is nested more than 100 tables deep%s%s", path ? " at " : "", path ? path : "");
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
        if (budget && --*budget < 0)
            luaL_error(L, "springbox.state is too big to copy");
        int kt = lua_type(L, -2), vt = lua_type(L, -1);
        if (data_only && (kt == LUA_TFUNCTION || kt == LUA_TTHREAD || vt == LUA_TFUNCTION || vt == LUA_TTHREAD)) {
            if (*dropped == 0) {
                lua_pushfstring(L, "%s.%s holds a %s", path ? path : "?",
                                kt == LUA_TSTRING ? lua_tostring(L, -2) : lua_typename(L, kt),
                                lua_typename(L, vt == LUA_TFUNCTION || vt == LUA_TTHREAD ? vt : kt));
                lua_setfield(L, LUA_REGISTRYINDEX, "springbox.state.dropped_name");
            }
            *dropped += 1;
            lua_pop(L, 1);
            continue;
        }
        // the entry's path, for messages (a copy without one keeps nil in its place)
        const char *sub = NULL;
        if (!path)
            lua_pushnil(L);
        else if (kt == LUA_TSTRING)
            sub = lua_pushfstring(L, "%s.%s", path, lua_tostring(L, -2));
        else
            sub = lua_pushfstring(L, "%s[...]", path);
        int entry = lua_gettop(L); // key at entry - 2, value at entry - 1
        lua_pushvalue(L, entry - 2);
        sb_lua_copy_table_within(L, seen, sub, data_only, dropped, depth + 1, budget);
        lua_pushvalue(L, entry - 1);
        sb_lua_copy_table_within(L, seen, sub, data_only, dropped, depth + 1, budget);
        lua_rawset(L, to);
        lua_pop(L, 2); // the path and the value; the key stays for lua_next
    }
    if (!data_only && lua_getmetatable(L, from))
        lua_setmetatable(L, to);
    lua_replace(L, from);
}
