// Builders of many particles at once: w:chain (beads along a line, linked one to the next) and
// w:box (a grid of beads braced across every cell: a jelly, tuned as a structure). They are what
// draw mode writes for a rope and a box, and what a person writes for either by hand.
#include "sb_lua_internal.h"

#include <math.h>
#include <string.h>

/// The most beads one call builds.
#define BEADS_MAX 10000

/// The options table at `arg` (nil: none) allows `allowed` only.
static void check_options(lua_State *L, int arg, const char *kind, const char *const *allowed)
{
    if (!lua_isnoneornil(L, arg)) {
        luaL_checktype(L, arg, LUA_TTABLE);
        check_keys(L, arg, arg, kind, allowed);
    }
}

/// The spacing field of the options at `arg`: in (0, 1e6] m, `fallback` when absent.
static double check_spacing(lua_State *L, int arg, double fallback)
{
    double spacing = fallback;
    if (!lua_isnoneornil(L, arg) && opt_number_field(L, arg, arg, "spacing", &spacing) && !(spacing > 0.0 && spacing <= 1e6))
        luaL_argerror(L, arg, lua_pushfstring(L, "field 'spacing' must be in (0, 1e6] m, got %f", spacing));
    return spacing;
}

/// The beads' particle def: the options' `bead` table (any particle field but x and y), or the defaults.
static sb_particle_def check_bead(lua_State *L, int arg)
{
    sb_particle_def d = sb_default_particle_def();
    if (lua_isnoneornil(L, arg) || lua_getfield(L, arg, "bead") == LUA_TNIL) {
        if (!lua_isnoneornil(L, arg))
            lua_pop(L, 1);
        return d;
    }
    const int bead = lua_gettop(L);
    if (lua_type(L, bead) != LUA_TTABLE)
        luaL_argerror(L, arg, lua_pushfstring(L, "field 'bead' must be a table of particle fields, got %s", luaL_typename(L, bead)));
    if (lua_getfield(L, bead, "x") != LUA_TNIL || lua_getfield(L, bead, "y") != LUA_TNIL)
        luaL_argerror(L, arg, "field 'bead' takes no x or y: the beads are placed by the builder");
    lua_pop(L, 2);
    d = sb_lua_check_particle_def(L, bead, arg);
    lua_pop(L, 1);
    return d;
}

/// The links' spring def: the options' `link` table (any spring field), or a rigid link.
static sb_spring_def check_link(lua_State *L, int arg)
{
    if (lua_isnoneornil(L, arg) || lua_getfield(L, arg, "link") == LUA_TNIL) {
        if (!lua_isnoneornil(L, arg))
            lua_pop(L, 1);
        return sb_default_spring_def();
    }
    if (lua_type(L, -1) != LUA_TTABLE)
        luaL_argerror(L, arg, lua_pushfstring(L, "field 'link' must be a table of spring fields, got %s", luaL_typename(L, -1)));
    sb_spring_def d = sb_lua_check_spring_def(L, lua_gettop(L), arg);
    lua_pop(L, 1);
    return d;
}

/// Adds a bead at `at` and appends its handle to the table at `list`.
static sb_particle_id add_bead(lua_State *L, sb_world *world, sb_particle_def d, sb_vec2 at, int list, int arg)
{
    d.position = at;
    sb_status st;
    sb_particle_id id = sb_world_add_particle(world, &d, &st);
    if (st != SB_OK)
        def_error(L, arg, "particle", NULL, st);
    sb_lua_push_particle(L, 1, id);
    lua_rawseti(L, list, (lua_Integer)lua_rawlen(L, list) + 1);
    return id;
}

/// Adds a link from a to b and appends its handle to the table at `list`.
static sb_spring_id add_link(lua_State *L, sb_world *world, sb_spring_def d, sb_particle_id a, sb_particle_id b, int list, int arg)
{
    d.a = a;
    d.b = b;
    sb_status st;
    const char *field = NULL;
    sb_spring_id id = sb_world_add_spring(world, &d, &st, &field);
    if (st != SB_OK)
        def_error(L, arg, "spring", field, st);
    push_spring(L, 1, id);
    lua_rawseti(L, list, (lua_Integer)lua_rawlen(L, list) + 1);
    return id;
}

// world:chain(points, {spacing = 0.2, bead = {...}, link = {...}, pin = "first" | "last" | "both"})
// Beads every `spacing` along the polyline through points {x1, y1, x2, y2, ...} (the first and
// last on its ends), each linked to the next (rigid unless `link` tunes it); `pin` fixes the ends.
int l_world_chain(lua_State *L)
{
    sb_world *world = check_world(L, 1);
    luaL_checktype(L, 2, LUA_TTABLE);
    lua_settop(L, 3); // absent options: nil, below what this pushes
    static const char *const allowed[] = {"spacing", "bead", "link", "pin", NULL};
    check_options(L, 3, "chain", allowed);
    const lua_Integer n = (lua_Integer)lua_rawlen(L, 2);
    if (n < 4 || n % 2 != 0 || n > 2 * BEADS_MAX)
        return luaL_argerror(L, 2, lua_pushfstring(L, "points must be a list {x1, y1, x2, y2, ...} of 2 to %d points, got %I "
                                                      "numbers", BEADS_MAX, n));
    const int count = (int)(n / 2);
    sb_vec2 *points = (sb_vec2 *)lua_newuserdatauv(L, sizeof *points * (size_t)count, 0);
    double length = 0.0;
    for (int i = 0; i < count; ++i) {
        points[i].x = array_number(L, 2, 2 * i + 1, 2, "points");
        points[i].y = array_number(L, 2, 2 * i + 2, 2, "points");
        if (!(fabs(points[i].x) <= SB_MAX_COORD && fabs(points[i].y) <= SB_MAX_COORD))
            return luaL_argerror(L, 2, lua_pushfstring(L, "point %d must be within 1e12 m of the origin", i + 1));
        if (i > 0)
            length += hypot(points[i].x - points[i - 1].x, points[i].y - points[i - 1].y);
    }
    const double spacing = check_spacing(L, 3, 0.2);
    const double links = ceil(length / spacing - 1e-9);
    if (!(length > 0.0))
        return luaL_argerror(L, 2, "the points must not all be the same: a chain needs a length");
    if (links + 1.0 > BEADS_MAX)
        return luaL_argerror(L, 3, lua_pushfstring(L, "field 'spacing' %f along %f m gives %f beads, more than %d", spacing, length,
                                                   links + 1.0, BEADS_MAX));
    sb_particle_def bead = check_bead(L, 3);
    const sb_spring_def link = check_link(L, 3);
    bool pin_first = false, pin_last = false;
    if (!lua_isnil(L, 3) && lua_getfield(L, 3, "pin") != LUA_TNIL) {
        const char *pin = lua_tostring(L, -1);
        pin_first = pin && (strcmp(pin, "first") == 0 || strcmp(pin, "both") == 0);
        pin_last = pin && (strcmp(pin, "last") == 0 || strcmp(pin, "both") == 0);
        if (lua_type(L, -1) != LUA_TSTRING || !(pin_first || pin_last))
            return luaL_argerror(L, 3, lua_pushfstring(L, "field 'pin' must be \"first\", \"last\" or \"both\", got %s",
                                                       describe(L, -1)));
    }
    lua_settop(L, 3);
    lua_newtable(L);
    const int beads = lua_gettop(L);
    lua_newtable(L);
    const int springs = lua_gettop(L);
    const int total = (int)links;
    sb_particle_id last = sb_null_particle();
    int segment = 0;
    double walked = 0.0; // along the polyline to the start of `segment`
    for (int k = 0; k <= total; ++k) {
        const double at = length * k / total;
        double seg = hypot(points[segment + 1].x - points[segment].x, points[segment + 1].y - points[segment].y);
        while (segment + 2 < count && walked + seg < at) {
            walked += seg;
            segment += 1;
            seg = hypot(points[segment + 1].x - points[segment].x, points[segment + 1].y - points[segment].y);
        }
        double t = seg > 0.0 ? (at - walked) / seg : 0.0;
        t = t < 0.0 ? 0.0 : t > 1.0 ? 1.0 : t;
        const sb_vec2 p = {points[segment].x + t * (points[segment + 1].x - points[segment].x),
                           points[segment].y + t * (points[segment + 1].y - points[segment].y)};
        sb_particle_def d = bead;
        d.fixed = bead.fixed || (k == 0 && pin_first) || (k == total && pin_last);
        const sb_particle_id id = add_bead(L, world, d, k == total ? points[count - 1] : p, beads, 3);
        if (k > 0)
            add_link(L, world, link, last, id, springs, 3);
        last = id;
    }
    return 2;
}

// world:box(x, y, width, height, {spacing = 0.25, bead = {...}, hertz =, damping_ratio = 1})
// A grid of beads filling the box centred on (x, y), braced along every cell's sides and both
// diagonals; with `hertz` the whole is tuned as a structure (its lowest mode at that frequency
// and damping ratio: World:tune_structure), otherwise its braces are rigid.
int l_world_box(lua_State *L)
{
    sb_world *world = check_world(L, 1);
    static const char *const names[] = {"x", "y", "width", "height"};
    double v[4];
    for (int i = 0; i < 4; ++i) {
        v[i] = luaL_checknumber(L, i + 2);
        if (!isfinite(v[i]) || fabs(v[i]) > SB_MAX_COORD || (i >= 2 && !(v[i] > 0.0)))
            return luaL_argerror(L, i + 2, lua_pushfstring(L, "%s must be %s, got %f", names[i],
                                                          i < 2 ? "finite, within 1e12 m" : "> 0 m and within 1e12 m", v[i]));
    }
    lua_settop(L, 6); // absent options: nil, below what this pushes
    static const char *const allowed[] = {"spacing", "bead", "hertz", "damping_ratio", NULL};
    check_options(L, 6, "box", allowed);
    const double spacing = check_spacing(L, 6, 0.25);
    const double columns = fmax(1.0, round(v[2] / spacing)), rows = fmax(1.0, round(v[3] / spacing));
    if ((columns + 1.0) * (rows + 1.0) > BEADS_MAX)
        return luaL_argerror(L, 6, lua_pushfstring(L, "field 'spacing' %f gives %f beads for a %f x %f m box, more than %d",
                                                   spacing, (columns + 1.0) * (rows + 1.0), v[2], v[3], BEADS_MAX));
    double hertz = 0.0, zeta = 1.0;
    const bool tuned = !lua_isnoneornil(L, 6) && opt_number_field(L, 6, 6, "hertz", &hertz);
    if (!lua_isnoneornil(L, 6))
        opt_number_field(L, 6, 6, "damping_ratio", &zeta);
    if (tuned && !(hertz > 0.0 && hertz <= 1e4))
        return luaL_argerror(L, 6, lua_pushfstring(L, "field 'hertz' must be in (0, 1e4], got %f", hertz));
    if (!(zeta >= 0.0 && zeta <= 100.0))
        return luaL_argerror(L, 6, lua_pushfstring(L, "field 'damping_ratio' must be in [0, 100], got %f", zeta));
    const sb_particle_def bead = check_bead(L, 6);
    sb_spring_def brace = sb_default_spring_def();
    if (tuned) // a start the structure's tune then scales
        brace.tuning = (sb_tuning){.mode = SB_TUNE_HERTZ, .hertz = hertz, .damping_ratio = zeta};
    const int nx = (int)columns, ny = (int)rows;
    lua_newtable(L);
    const int beads = lua_gettop(L);
    lua_newtable(L);
    const int springs = lua_gettop(L);
    sb_particle_id *grid = (sb_particle_id *)lua_newuserdatauv(L, sizeof *grid * (size_t)((nx + 1) * (ny + 1)), 0);
    sb_spring_id *braces = (sb_spring_id *)lua_newuserdatauv(L, sizeof *braces * (size_t)(4 * nx * ny + nx + ny), 0);
    int made = 0;
    for (int j = 0; j <= ny; ++j)
        for (int i = 0; i <= nx; ++i)
            grid[j * (nx + 1) + i] = add_bead(L, world, bead,
                                              (sb_vec2){v[0] - v[2] / 2 + v[2] * i / nx, v[1] - v[3] / 2 + v[3] * j / ny}, beads, 6);
    for (int j = 0; j <= ny; ++j)
        for (int i = 0; i <= nx; ++i) {
            const sb_particle_id p = grid[j * (nx + 1) + i];
            if (i < nx)
                braces[made++] = add_link(L, world, brace, p, grid[j * (nx + 1) + i + 1], springs, 6);
            if (j < ny)
                braces[made++] = add_link(L, world, brace, p, grid[(j + 1) * (nx + 1) + i], springs, 6);
            if (i < nx && j < ny) {
                braces[made++] = add_link(L, world, brace, p, grid[(j + 1) * (nx + 1) + i + 1], springs, 6);
                braces[made++] = add_link(L, world, brace, grid[j * (nx + 1) + i + 1], grid[(j + 1) * (nx + 1) + i], springs, 6);
            }
        }
    lua_pushvalue(L, beads);
    lua_pushvalue(L, springs);
    if (!tuned)
        return 2;
    sb_structure_mode m;
    const char *field = NULL;
    sb_lua_world_guarded(L, world, true);
    const sb_status st = sb_structure_tune(world, braces, made, hertz, zeta, 0.0, &m, &field);
    sb_lua_world_guarded(L, world, false);
    if (st != SB_OK)
        return sb_lua_structure_error(L, 6, 6, st, field, hertz, &m);
    return sb_lua_push_mode(L, &m, hertz, zeta) + 2;
}
