// Springs: w:spring(a, b, tuning), their fields and tuning as properties, and retunes.
#include "sb_lua_internal.h"

const char *const spring_fields[] = {
    "hertz", "damping_ratio", "stiffness", "damping", "k", "c", "rest_length", "collide", "solid",
    "break_stretch", "break_force", "break_push", "color", "hidden", NULL,
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
    if (lua_getfield(L, idx, "break_push") != LUA_TNIL)
        d->break_push = check_bool_at(L, -1, arg, "spring.break_push");
    if (lua_getfield(L, idx, "color") != LUA_TNIL)
        d->color = check_color_at(L, -1, arg, "spring.color");
    if (lua_getfield(L, idx, "hidden") != LUA_TNIL)
        d->hidden = check_bool_at(L, -1, arg, "spring.hidden");
    lua_pop(L, 5);
}

/// A spring's `collide` field: a boolean, named in the error otherwise.
static bool check_collide(lua_State *L, int idx, int arg)
{
    if (!lua_isboolean(L, idx))
        arg_error(L, arg, lua_pushfstring(L, "spring.collide must be a boolean, got %s", luaL_typename(L, idx)));
    return lua_toboolean(L, idx);
}

sb_spring_def sb_lua_check_spring_def(lua_State *L, int idx, int arg)
{
    sb_spring_def d = sb_default_spring_def();
    if (lua_isnoneornil(L, idx))
        return d;
    luaL_checktype(L, idx, LUA_TTABLE);
    check_keys(L, idx, arg, "spring", spring_fields);
    d.tuning = check_tuning(L, idx, arg, d.tuning);
    if (opt_number_field(L, idx, arg, "rest_length", &d.rest_length) && d.rest_length < 0.0)
        luaL_argerror(L, arg, lua_pushfstring(L, "field 'rest_length' must be >= 0, got %f", d.rest_length));
    if (lua_getfield(L, idx, "collide") != LUA_TNIL)
        d.collide = check_collide(L, -1, arg);
    lua_pop(L, 1);
    if (lua_getfield(L, idx, "solid") != LUA_TNIL)
        d.solid = check_bool_at(L, -1, arg, "spring.solid");
    lua_pop(L, 1);
    spring_extras(L, idx, arg, &d);
    return d;
}

// world:spring(a, b [, {hertz =, damping_ratio =} | {stiffness =, damping =} | {k =, c =}, rest_length =])
int l_world_spring(lua_State *L)
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
    sb_spring_def d = sb_lua_check_spring_def(L, 4, 4);
    d.a = a;
    d.b = b;
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

void sb_lua_push_spring_values(lua_State *L, int world_idx, const sb_world *world, uint32_t index, sb_particle_id a,
                               sb_particle_id b, double rest_length, const sb_tuning *t, double force, double stretch)
{
    world_idx = lua_absindex(L, world_idx);
    lua_createtable(L, 0, 10);
    lua_pushinteger(L, (lua_Integer)index + 1);
    lua_setfield(L, -2, "index");
    for (int k = 0; k < 2; ++k) {
        sb_particle_id p = k ? b : a;
        if (sb_particle_is_valid(world, p))
            sb_lua_push_particle(L, world_idx, p);
        else
            lua_pushnil(L);
        lua_setfield(L, -2, k ? "b" : "a");
    }
    lua_pushnumber(L, rest_length);
    lua_setfield(L, -2, "rest_length");
    lua_pushnumber(L, force);
    lua_setfield(L, -2, "force");
    lua_pushnumber(L, stretch);
    lua_setfield(L, -2, "stretch");
    bool rigid = sb_tuning_is_rigid(t);
    lua_pushboolean(L, rigid);
    lua_setfield(L, -2, "rigid");
    lua_pushstring(L, rigid ? "rigid" : t->mode == SB_TUNE_HERTZ ? "hertz" : t->mode == SB_TUNE_COEFFICIENTS ? "coefficients" : "raw");
    lua_setfield(L, -2, "tuning");
    if (!rigid) {
        const char *names[2] = {t->mode == SB_TUNE_HERTZ ? "hertz" : t->mode == SB_TUNE_COEFFICIENTS ? "stiffness" : "k",
                                t->mode == SB_TUNE_HERTZ ? "damping_ratio" : t->mode == SB_TUNE_COEFFICIENTS ? "damping" : "c"};
        double values[2] = {t->mode == SB_TUNE_HERTZ ? t->hertz : t->mode == SB_TUNE_COEFFICIENTS ? t->stiffness : t->k,
                            t->mode == SB_TUNE_HERTZ ? t->damping_ratio : t->mode == SB_TUNE_COEFFICIENTS ? t->damping : t->c};
        for (int k = 0; k < 2; ++k) {
            lua_pushnumber(L, values[k]);
            lua_setfield(L, -2, names[k]);
        }
    }
}

void sb_lua_spring_keep_last(lua_State *L, int idx)
{
    idx = lua_absindex(L, idx);
    if (luaL_testudata(L, idx, SPRING_MT))
        lua_setiuservalue(L, idx, 2);
    else
        lua_pop(L, 1);
}

/// The spring at 1 is gone: its last value of field `key` (sb_lua_spring_keep_last), or an error
/// that says it was removed and which fields it kept.
static int read_last(lua_State *L, const char *key)
{
    if (lua_getiuservalue(L, 1, 2) != LUA_TTABLE)
        return luaL_error(L, "spring was removed");
    if (lua_getfield(L, -1, key) != LUA_TNIL)
        return 1;
    lua_pop(L, 1);
    const int last = lua_gettop(L);
    const char *order[] = {"index", "a", "b", "rest_length", "rigid", "tuning", "hertz", "damping_ratio", "stiffness",
                           "damping", "k", "c", "force", "stretch", NULL};
    char kept[160] = "";
    for (int i = 0; order[i]; ++i) {
        bool end = strcmp(order[i], "a") == 0 || strcmp(order[i], "b") == 0; // nil where that particle is gone
        bool has = lua_getfield(L, last, order[i]) != LUA_TNIL || end;
        lua_pop(L, 1);
        if (has)
            snprintf(kept + strlen(kept), sizeof kept - strlen(kept), "%s%s", kept[0] ? ", " : "", order[i]);
    }
    lua_pushstring(L, kept);
    return luaL_error(L, "spring was removed: '%s' is not kept (its last values: %s)", key, lua_tostring(L, -1));
}

int l_spring_index(lua_State *L)
{
    if (read_removed(L, SPRING_MT, "spring"))
        return 1;
    if (handle_removed(L, 1, SPRING_MT, "spring"))
        return read_last(L, luaL_checkstring(L, 2));
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
    else if (strcmp(key, "break_push") == 0) lua_pushboolean(L, d.break_push);
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
    else return luaL_error(L, "unknown spring property '%s' (a, b, length, rest_length, stretch, impulse, force, rigid, collide, break_stretch, break_force, break_push, color, hidden, retune, tuning, hertz, damping_ratio, stiffness, damping, k, c, index, world, removed)", key);
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

int l_spring_newindex(lua_State *L)
{
    sb_spring_id id;
    sb_world *world = check_spring(L, 1, &id, NULL);
    const char *key = luaL_checkstring(L, 2);
    if (!is_field(key, spring_fields))
        return luaL_error(L, "cannot set spring property '%s' (settable: hertz, damping_ratio, stiffness, damping, k, c, rest_length, collide, solid, break_stretch, break_force, break_push, color, hidden)", key);
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
        sb_spring_set_break_push(world, id, d.break_push);
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

int l_spring_tostring(lua_State *L)
{
    lua_spring *s = (lua_spring *)luaL_checkudata(L, 1, SPRING_MT);
    lua_pushfstring(L, "springbox.spring %d", (int)s->id.index + 1);
    return 1;
}

// ---------------------------------------------------------------- structures

/// The springs listed at `arg` (a sequence), every one a live spring of `world`, into a buffer
/// left on the stack (freed with it, error or not); *n of them.
static sb_spring_id *check_spring_list(lua_State *L, sb_world *world, int arg, int *n)
{
    luaL_checktype(L, arg, LUA_TTABLE);
    lua_Integer len = luaL_len(L, arg);
    if (len < 1)
        luaL_argerror(L, arg, "a structure needs at least one spring, got an empty list");
    if (len > 1000000)
        luaL_argerror(L, arg, lua_pushfstring(L, "at most a million springs, got %I", len));
    sb_spring_id *ids = (sb_spring_id *)lua_newuserdatauv(L, sizeof *ids * (size_t)len, 0);
    for (lua_Integer i = 1; i <= len; ++i) {
        lua_geti(L, arg, i);
        if (!luaL_testudata(L, -1, SPRING_MT))
            luaL_argerror(L, arg, lua_pushfstring(L, "springs[%I] must be a spring, got %s", i, describe(L, -1)));
        if (handle_removed(L, lua_gettop(L), SPRING_MT, "spring"))
            luaL_argerror(L, arg, lua_pushfstring(L, "springs[%I] was removed", i));
        sb_spring_id id;
        if (check_spring(L, -1, &id, NULL) != world)
            luaL_argerror(L, arg, lua_pushfstring(L, "springs[%I] belongs to another world", i));
        sb_spring_def d;
        sb_spring_get(world, id, &d);
        if (sb_tuning_is_rigid(&d.tuning))
            luaL_argerror(L, arg, lua_pushfstring(L, "springs[%I] is rigid (hertz 0): a structure scales its springs' "
                                                     "stiffness, and a rigid one has none to scale", i));
        ids[i - 1] = id;
        lua_pop(L, 1);
    }
    *n = (int)len;
    return ids;
}

/// A structure's mode as a table: hertz, damping_ratio, scale, and the particles, springs and
/// free motions it counted; for a tune (`asked` > 0), what the stepped world delivers: measured,
/// delivered, delivered_hertz, delivered_damping_ratio, substeps_needed and, where it is not
/// delivered, a warning in the structure's terms.
int sb_lua_push_mode(lua_State *L, const sb_structure_mode *m, double asked_hertz, double asked_zeta)
{
    const char *const numbers[] = {"hertz", "damping_ratio", "scale"}, *const counts[] = {"particles", "springs", "free"};
    const double number_values[] = {m->hertz, m->damping_ratio, m->scale};
    const int count_values[] = {m->particles, m->springs, m->free};
    lua_createtable(L, 0, 12);
    for (int k = 0; k < 3; ++k) {
        lua_pushnumber(L, number_values[k]);
        lua_setfield(L, -2, numbers[k]);
        lua_pushinteger(L, count_values[k]);
        lua_setfield(L, -2, counts[k]);
    }
    if (asked_hertz <= 0.0)
        return 1;
    const sb_structure_delivery *d = &m->delivery;
    lua_pushboolean(L, d->measured);
    lua_setfield(L, -2, "measured");
    lua_pushboolean(L, d->delivered);
    lua_setfield(L, -2, "delivered");
    lua_pushnumber(L, d->hertz);
    lua_setfield(L, -2, "delivered_hertz");
    lua_pushnumber(L, d->damping_ratio);
    lua_setfield(L, -2, "delivered_damping_ratio");
    lua_pushinteger(L, d->substeps_needed);
    lua_setfield(L, -2, "substeps_needed");
    if (d->measured && (!d->delivered || d->damping_reachable < asked_zeta - 0.01)) {
        char warning[512], needed[48] = "up to 64 sub-steps do not";
        if (d->substeps_needed > 0)
            snprintf(needed, sizeof needed, "%d would do", d->substeps_needed);
        char delivers[96], across[128] = "";
        if (d->ran_away)
            snprintf(delivers, sizeof delivers, "runs away");
        else
            snprintf(delivers, sizeof delivers, "delivers %.3g Hz at %.3g", d->hertz, d->damping_ratio);
        if (d->delivered)
            snprintf(needed, sizeof needed, "as its springs allow");
        if (d->damping_reachable < asked_zeta - 0.01)
            snprintf(across, sizeof across, " (its dampers, along its springs, give a swing across them %.3g at most)",
                     d->damping_reachable);
        snprintf(warning, sizeof warning, "asked %.3g Hz at damping ratio %.3g, %s with %s at %d sub-step%s: %s%s", asked_hertz,
                 asked_zeta, delivers, sb_method_name(d->method), d->substeps, d->substeps == 1 ? "" : "s", needed, across);
        lua_pushstring(L, warning);
        lua_setfield(L, -2, "warning");
    }
    return 1;
}

/// What the core's refusal of a structure means, as an error on argument `arg` (the springs) or
/// `tuning_arg`, in the structure's own terms: `m` says what the core found.
int sb_lua_structure_error(lua_State *L, int arg, int tuning_arg, sb_status st, const char *field, double hertz, const sb_structure_mode *m)
{
    if (st == SB_ERR_NO_MEMORY)
        return luaL_error(L, "not enough memory for the structure");
    if (st == SB_ERR_INTERRUPTED)
        return sb_lua_guard_error(L);
    field = field ? field : "";
    if (strcmp(field, "cost") == 0)
        return luaL_argerror(L, arg, lua_pushfstring(L, "the structure's springs join its %d particles too widely to "
                                                        "solve within a frame: tune smaller groups (a strip, one "
                                                        "arm), or its springs by hertz",
                                                     m->particles));
    if (strcmp(field, "springs") == 0)
        return luaL_argerror(L, arg, lua_pushfstring(L, "the structure has no moving particle, or more than %d: tune "
                                                        "a smaller group",
                                                     SB_STRUCTURE_MAX_PARTICLES));
    if (strcmp(field, "hertz") == 0)
        return luaL_argerror(L, tuning_arg, lua_pushfstring(L, "its lowest mode runs at %f Hz or more with the group's "
                                                            "springs as soft as they go: the springs outside the group "
                                                            "alone hold it faster than %f Hz; ask for more, or add them "
                                                            "to the group", m->hertz, hertz));
    if (strcmp(field, "ceiling") == 0)
        return luaL_argerror(L, tuning_arg, lua_pushfstring(L, "its lowest mode cannot go past %f Hz, however stiff the "
                                                            "group's springs: in it the group moves as a whole against "
                                                            "springs outside the group, which keep their stiffness; ask "
                                                            "for less than %f Hz, or add those springs to the group",
                                                         m->hertz, m->hertz));
    if (strcmp(field, "buckles") == 0)
        return luaL_argerror(L, arg, "the structure buckles: springs pushed shorter than they rest give it a mode "
                                     "below 0 Hz; lengthen their rest lengths or let it settle first");
    return luaL_argerror(L, arg, "no spring of the structure resists any of its motions (its springs are slack and "
                                 "it moves freely): pull them taut, or join it to something");
}

// world:structure_mode(springs): the lowest mode of the group as it is now (sb_structure.h)
int l_world_structure_mode(lua_State *L)
{
    sb_world *world = check_world(L, 1);
    int n;
    sb_spring_id *ids = check_spring_list(L, world, 2, &n);
    sb_structure_mode m;
    const char *field = NULL;
    sb_lua_world_guarded(L, world, true); // a scene's time limit reaches a long solve
    sb_status st = sb_structure_mode_of(world, ids, n, &m, &field);
    sb_lua_world_guarded(L, world, false);
    return st == SB_OK ? sb_lua_push_mode(L, &m, 0.0, 0.0) : sb_lua_structure_error(L, 2, 3, st, field, 0.0, &m);
}

/// Raises "field 'name' must be in RANGE, got V" on argument arg unless `ok`.
static void field_in_range(lua_State *L, int arg, const char *name, double v, bool ok, const char *range)
{
    if (!ok)
        luaL_argerror(L, arg, lua_pushfstring(L, "field '%s' must be in %s, got %f", name, range, v));
}

// world:tune_structure(springs, {hertz =, damping_ratio = 1, seconds = 0}): the group's lowest
// mode at that frequency and damping ratio (sb_structure.h); returns what was found.
int l_world_tune_structure(lua_State *L)
{
    sb_world *world = check_world(L, 1);
    int n;
    sb_spring_id *ids = check_spring_list(L, world, 2, &n);
    luaL_checktype(L, 3, LUA_TTABLE);
    static const char *const allowed[] = {"hertz", "damping_ratio", "seconds", NULL};
    check_keys(L, 3, 3, "structure", allowed);
    double hertz = 0.0, zeta = 1.0, seconds = 0.0;
    if (!opt_number_field(L, 3, 3, "hertz", &hertz))
        return luaL_argerror(L, 3, "field 'hertz' is required: the frequency of the structure's lowest mode, Hz");
    opt_number_field(L, 3, 3, "damping_ratio", &zeta);
    opt_number_field(L, 3, 3, "seconds", &seconds);
    field_in_range(L, 3, "hertz", hertz, hertz > 0.0 && hertz <= 1e4, "(0, 1e4]");
    field_in_range(L, 3, "damping_ratio", zeta, zeta >= 0.0 && zeta <= 100.0, "[0, 100]");
    field_in_range(L, 3, "seconds", seconds, seconds >= 0.0 && seconds <= 1e6, "[0, 1e6]");
    sb_structure_mode m;
    const char *field = NULL;
    sb_lua_world_guarded(L, world, true);
    sb_status st = sb_structure_tune(world, ids, n, hertz, zeta, seconds, &m, &field);
    sb_lua_world_guarded(L, world, false);
    return st == SB_OK ? sb_lua_push_mode(L, &m, hertz, zeta) : sb_lua_structure_error(L, 2, 3, st, field, hertz, &m);
}
