// Scenes as programs: the callbacks a scene table may hold besides update (input, drawing,
// events) and the plots. LÖVE's model (love.keypressed, love.draw, World:setCallbacks), with
// springbox's rules: every callback runs under the update time limit, an error in one turns
// that one off until the next reload, and what the host shows is what the script last did right.
#include "scene_internal.h"
#include "sb_structure.h"
#include "sb_tuning.h"

#include "sb_lua.h"

#include <lauxlib.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const scene_callback_names[SCENE_CALLBACK_COUNT] = {
    "keypressed", "keyreleased", "mousepressed", "mousereleased", "mousemoved", "wheelmoved",
    "draw", "on_contact_begin", "on_contact_end", "on_spring_break", "on_leave_bounds", "on_constraint_break",
};

bool scene_check_callbacks(sb_scene *scene, int t, char *error, size_t error_size)
{
    lua_State *L = scene->L;
    for (int i = 0; i < SCENE_CALLBACK_COUNT; ++i) {
        lua_pushstring(L, scene_callback_names[i]);
        int type = lua_rawget(L, t);
        lua_pop(L, 1);
        if (type != LUA_TNIL && type != LUA_TFUNCTION) {
            snprintf(error, error_size, "%s: scene field '%s' must be a function, got %s", scene->path,
                     scene_callback_names[i], lua_typename(L, type));
            return false;
        }
    }
    return true;
}

/// Pushes the running scene's callback and returns true, or pushes nothing and returns false
/// when it has none or it is off.
static bool push_callback(sb_scene *scene, scene_callback cb)
{
    lua_State *L = scene->L;
    if (scene->callback_off[cb] || scene->cur.table_ref == LUA_NOREF)
        return false;
    lua_rawgeti(L, LUA_REGISTRYINDEX, scene->cur.table_ref);
    lua_pushstring(L, scene_callback_names[cb]);
    if (lua_rawget(L, -2) != LUA_TFUNCTION) {
        lua_pop(L, 2);
        return false;
    }
    lua_remove(L, -2);
    return true;
}

typedef struct has_job { scene_callback cb; bool has; } has_job;

static void has_body(sb_scene *scene, void *args)
{
    has_job *job = (has_job *)args;
    job->has = push_callback(scene, job->cb);
    if (job->has)
        lua_pop(scene->L, 1);
}

bool sb_scene_has_callback(const sb_scene *scene, const char *name)
{
    for (int i = 0; i < SCENE_CALLBACK_COUNT; ++i) {
        if (strcmp(name, scene_callback_names[i]) != 0)
            continue;
        has_job job = {(scene_callback)i, false};
        scene_host_call((sb_scene *)scene, has_body, &job, NULL, 0);
        return job.has;
    }
    return false;
}

/// Calls the callback under it with `nargs` arguments; returns its first result as a boolean
/// (a claim) and turns the callback off on an error.
static bool call_callback(sb_scene *scene, scene_callback cb, int nargs, bool *claimed, char *error, size_t error_size)
{
    char what[64];
    snprintf(what, sizeof what, "%s()", scene_callback_names[cb]);
    char message[2048];
    if (!protected_call(scene, nargs, 1, scene->opt.update_seconds, what, message, sizeof message)) {
        scene->callback_off[cb] = true;
        scene->failed = scene_callback_names[cb];
        // the limit's message names the callback already; a script error is prefixed with it
        if (strstr(message, what) == message)
            snprintf(error, error_size, "%s", message);
        else
            snprintf(error, error_size, "%s: %s", what, message);
        return false;
    }
    if (claimed)
        *claimed = lua_toboolean(scene->L, -1);
    lua_pop(scene->L, 1);
    return true;
}

// ---------------------------------------------------------------- input

/// The registry table `name`, made on first use, on the top of the stack.
static void registry_table(lua_State *L, const char *name)
{
    if (lua_getfield(L, LUA_REGISTRYINDEX, name) != LUA_TTABLE) {
        lua_pop(L, 1);
        lua_newtable(L);
        lua_pushvalue(L, -1);
        lua_setfield(L, LUA_REGISTRYINDEX, name);
    }
}

/// One input event for a callback: what it was and what the callback said.
typedef struct input_job {
    scene_callback cb;
    const char *key;
    double x, y, dx, dy;
    int button;
    bool pressed, claimed;
    char *error;
    size_t error_size;
} input_job;

static void key_body(sb_scene *scene, void *args)
{
    input_job *job = (input_job *)args;
    lua_State *L = scene->L;
    registry_table(L, "springbox.keys"); // what springbox.keyboard.isdown reads
    if (job->pressed)
        lua_pushboolean(L, 1);
    else
        lua_pushnil(L);
    lua_setfield(L, -2, job->key);
    lua_pop(L, 1);
    if (push_callback(scene, job->cb)) {
        lua_pushstring(L, job->key);
        call_callback(scene, job->cb, 1, &job->claimed, job->error, job->error_size);
    }
}

/// Runs an input job's body, its error (a full heap) in the job's error.
static bool run_input(sb_scene *scene, void (*body)(sb_scene *, void *), input_job *job)
{
    job->error[0] = '\0';
    scene_host_call(scene, body, job, job->error, job->error_size);
    return job->claimed;
}

static void paused_body(sb_scene *scene, void *args)
{
    lua_pushboolean(scene->L, *(const bool *)args);
    lua_setfield(scene->L, LUA_REGISTRYINDEX, "springbox.paused");
}

void sb_scene_set_paused(sb_scene *scene, bool paused)
{
    char error[256];
    scene_host_call(scene, paused_body, &paused, error, sizeof error); // a full heap: it stays as it was
}

bool sb_scene_key(sb_scene *scene, const char *key, bool pressed, char *error, size_t error_size)
{
    input_job job = {pressed ? CB_KEYPRESSED : CB_KEYRELEASED, key, 0, 0, 0, 0, 0, pressed, false, error, error_size};
    return run_input(scene, key_body, &job);
}

/// springbox.mouse reads {x, y, buttons held as bits}.
static void record_mouse(lua_State *L, double x, double y, int button, int pressed)
{
    registry_table(L, "springbox.mouse");
    lua_pushnumber(L, x);
    lua_rawseti(L, -2, 1);
    lua_pushnumber(L, y);
    lua_rawseti(L, -2, 2);
    if (button >= 1 && button <= 8) {
        lua_rawgeti(L, -1, 3);
        lua_Integer held = lua_tointeger(L, -1);
        lua_pop(L, 1);
        held = pressed ? held | (1 << (button - 1)) : held & ~(1 << (button - 1));
        lua_pushinteger(L, held);
        lua_rawseti(L, -2, 3);
    }
    lua_pop(L, 1);
}

static void mouse_button_body(sb_scene *scene, void *args)
{
    input_job *job = (input_job *)args;
    lua_State *L = scene->L;
    record_mouse(L, job->x, job->y, job->button, job->pressed);
    if (push_callback(scene, job->cb)) {
        lua_pushnumber(L, job->x);
        lua_pushnumber(L, job->y);
        lua_pushinteger(L, job->button);
        call_callback(scene, job->cb, 3, &job->claimed, job->error, job->error_size);
    }
}

bool sb_scene_mouse_button(sb_scene *scene, double x, double y, int button, bool pressed, char *error, size_t error_size)
{
    input_job job = {pressed ? CB_MOUSEPRESSED : CB_MOUSERELEASED, NULL, x, y, 0, 0, button, pressed, false, error,
                     error_size};
    return run_input(scene, mouse_button_body, &job);
}

static void mouse_move_body(sb_scene *scene, void *args)
{
    input_job *job = (input_job *)args;
    lua_State *L = scene->L;
    record_mouse(L, job->x, job->y, 0, 0);
    if (push_callback(scene, CB_MOUSEMOVED)) {
        lua_pushnumber(L, job->x);
        lua_pushnumber(L, job->y);
        lua_pushnumber(L, job->dx);
        lua_pushnumber(L, job->dy);
        call_callback(scene, CB_MOUSEMOVED, 4, NULL, job->error, job->error_size);
    }
}

void sb_scene_mouse_move(sb_scene *scene, double x, double y, double dx, double dy, char *error, size_t error_size)
{
    input_job job = {CB_MOUSEMOVED, NULL, x, y, dx, dy, 0, false, false, error, error_size};
    run_input(scene, mouse_move_body, &job);
}

static void wheel_body(sb_scene *scene, void *args)
{
    input_job *job = (input_job *)args;
    if (push_callback(scene, CB_WHEELMOVED)) {
        lua_pushnumber(scene->L, job->dx);
        lua_pushnumber(scene->L, job->dy);
        call_callback(scene, CB_WHEELMOVED, 2, &job->claimed, job->error, job->error_size);
    }
}

bool sb_scene_wheel(sb_scene *scene, double dx, double dy, char *error, size_t error_size)
{
    input_job job = {CB_WHEELMOVED, NULL, 0, 0, dx, dy, 0, false, false, error, error_size};
    return run_input(scene, wheel_body, &job);
}

// ---------------------------------------------------------------- events

/// Events are copied before any callback runs: a callback may step the world, which replaces
/// the world's event arrays. The copies are the scene's (scene->event_copy, kept for the next
/// frame), so that an error raised while they are handed over leaves nothing to free.
static void *copy_of(sb_scene *scene, int which, const void *p, size_t bytes)
{
    if (bytes > scene->event_copy_cap[which]) {
        void *q = realloc(scene->event_copy[which], bytes);
        if (!q)
            return NULL;
        scene->event_copy[which] = q;
        scene->event_copy_cap[which] = bytes;
    }
    if (bytes)
        memcpy(scene->event_copy[which], p, bytes);
    return scene->event_copy[which];
}

/// What broke, readable after the spring is gone: its values when it broke
/// (sb_lua_push_spring_values), which its handle also reads from then on.
static void push_break_info(lua_State *L, int world_idx, const sb_world *w, const sb_break_event *e)
{
    sb_lua_push_spring_values(L, world_idx, w, e->spring.index, e->a, e->b, e->rest_length, &e->tuning, e->force,
                              e->stretch);
}

bool scene_dispatch_events(sb_scene *scene, char *error, size_t error_size)
{
    lua_State *L = scene->L;
    bool ok = true;
    for (int wi = 0; wi < scene->cur.world_count && ok; ++wi) {
        sb_world *w = scene->cur.worlds[wi];
        const sb_break_event *breaks_in;
        int nbreak = sb_world_break_events(w, &breaks_in);
        const sb_contact_event *begins_in, *ends_in;
        int nbegin, nend;
        sb_world_contact_events(w, &begins_in, &nbegin, &ends_in, &nend);
        const sb_particle_id *leaves_in;
        int nleave = sb_world_leave_events(w, &leaves_in);
        const sb_constraint_break_event *cbreaks_in;
        int ncbreak = sb_world_constraint_break_events(w, &cbreaks_in);
        if (nbreak + nbegin + nend + nleave + ncbreak == 0)
            continue;
        sb_constraint_break_event *cbreaks = copy_of(scene, 0, cbreaks_in, sizeof *cbreaks * (size_t)ncbreak);
        sb_particle_id *leaves = copy_of(scene, 1, leaves_in, sizeof *leaves * (size_t)nleave);
        sb_break_event *breaks = copy_of(scene, 2, breaks_in, sizeof *breaks * (size_t)nbreak);
        sb_contact_event *begins = copy_of(scene, 3, begins_in, sizeof *begins * (size_t)nbegin);
        sb_contact_event *ends = copy_of(scene, 4, ends_in, sizeof *ends * (size_t)nend);
        lua_rawgeti(L, LUA_REGISTRYINDEX, scene->cur.world_refs[wi]);
        int world_idx = lua_gettop(L);
        for (int i = 0; breaks && i < nbreak && ok; ++i) {
            if (!push_callback(scene, CB_SPRING_BREAK))
                break;
            sb_lua_push_spring(L, world_idx, breaks[i].spring);
            int nargs = 1;
            for (int e = 0; e < 2; ++e) { // an end removed by an earlier callback comes as nil
                sb_particle_id p = e ? breaks[i].b : breaks[i].a;
                if (sb_particle_is_valid(w, p))
                    sb_lua_push_particle(L, world_idx, p);
                else
                    lua_pushnil(L);
                nargs += 1;
            }
            lua_pushnumber(L, breaks[i].force);
            lua_pushnumber(L, breaks[i].stretch);
            push_break_info(L, world_idx, w, &breaks[i]);
            lua_pushvalue(L, -1);
            sb_lua_spring_keep_last(L, -nargs - 4);
            ok = call_callback(scene, CB_SPRING_BREAK, nargs + 3, NULL, error, error_size);
        }
        for (int pass = 0; pass < 2 && ok; ++pass) {
            scene_callback cb = pass ? CB_CONTACT_END : CB_CONTACT_BEGIN;
            const sb_contact_event *list = pass ? ends : begins;
            int n = pass ? nend : nbegin;
            for (int i = 0; list && i < n && ok; ++i) {
                // a callback may have removed either particle since: then it is not reported
                if (!sb_particle_is_valid(w, list[i].a) || (list[i].b.generation && !sb_particle_is_valid(w, list[i].b)))
                    continue;
                if (!push_callback(scene, cb))
                    break;
                sb_lua_push_particle(L, world_idx, list[i].a);
                if (list[i].b.generation)
                    sb_lua_push_particle(L, world_idx, list[i].b);
                else if (list[i].wall.generation)
                    lua_pushinteger(L, (lua_Integer)list[i].wall.index + 1); // walls are numbers in Lua
                else
                    lua_pushnil(L); // the world's bounds
                // where and how hard: the point, the normal from a, the closing speed
                lua_createtable(L, 0, 5);
                const double fields[5] = {list[i].point.x, list[i].point.y, list[i].normal.x, list[i].normal.y,
                                          list[i].speed};
                static const char *const names[5] = {"x", "y", "nx", "ny", "speed"};
                for (int f = 0; f < 5; ++f) {
                    lua_pushnumber(L, fields[f]);
                    lua_setfield(L, -2, names[f]);
                }
                ok = call_callback(scene, cb, 3, NULL, error, error_size);
            }
        }
        for (int i = 0; cbreaks && i < ncbreak && ok; ++i) {
            if (!push_callback(scene, CB_CONSTRAINT_BREAK))
                break;
            // the rope or strut is gone (its handle says so): what it was, readable
            lua_createtable(L, 0, 6);
            lua_pushinteger(L, (lua_Integer)cbreaks[i].constraint.index + 1);
            lua_setfield(L, -2, "index");
            lua_pushstring(L, sb_constraint_kind_name(cbreaks[i].kind));
            lua_setfield(L, -2, "kind");
            for (int e = 0; e < 2; ++e) {
                sb_particle_id p = e ? cbreaks[i].b : cbreaks[i].a;
                if (sb_particle_is_valid(w, p))
                    sb_lua_push_particle(L, world_idx, p);
                else
                    lua_pushnil(L);
                lua_setfield(L, -2, e ? "b" : "a");
            }
            lua_pushnumber(L, cbreaks[i].rest);
            lua_setfield(L, -2, "length");
            lua_pushnumber(L, cbreaks[i].stretch);
            lua_setfield(L, -2, "stretch");
            ok = call_callback(scene, CB_CONSTRAINT_BREAK, 1, NULL, error, error_size);
        }
        for (int i = 0; leaves && i < nleave && ok; ++i) {
            if (!sb_particle_is_valid(w, leaves[i]))
                continue;
            if (!push_callback(scene, CB_LEAVE_BOUNDS))
                break;
            sb_lua_push_particle(L, world_idx, leaves[i]);
            ok = call_callback(scene, CB_LEAVE_BOUNDS, 1, NULL, error, error_size);
        }
        lua_pop(L, 1);
    }
    return ok;
}

// ---------------------------------------------------------------- drawing

// What one draw(g) call collects. Bounded, so a draw that loops forever adding lines ends with
// a clear error instead of eating the memory limit.
enum { draw_max_commands = 1 << 16, draw_max_points = 1 << 18, draw_max_text = 1 << 16 };

typedef struct scene_draw {
    sb_draw_command *commands;
    sb_vec2 *points;
    char *text;
    int count, point_count, text_used;
    uint32_t color;
    float width;             // pixels, for lines and outlines from g.width (LÖVE's setLineWidth)
} scene_draw;

static const uint32_t draw_default_color = 0xE6E6E6FFu;

void scene_program_free(sb_scene *scene)
{
    for (int i = 0; i < SCENE_EVENT_KINDS; ++i) {
        free(scene->event_copy[i]);
        scene->event_copy[i] = NULL;
        scene->event_copy_cap[i] = 0;
    }
    if (!scene->draw)
        return;
    free(scene->draw->commands);
    free(scene->draw->points);
    free(scene->draw->text);
    free(scene->draw);
    scene->draw = NULL;
}

static scene_draw *draw_of(lua_State *L) { return (scene_draw *)lua_touserdata(L, lua_upvalueindex(1)); }

/// Adds a command with `points` free points; raises a Lua error when the frame's list is full.
static sb_draw_command *add_command(lua_State *L, scene_draw *d, sb_draw_kind kind, int points)
{
    if (d->count >= draw_max_commands || d->point_count + points > draw_max_points)
        luaL_error(L, "draw list is full (%d commands, %d points in one frame)", draw_max_commands, draw_max_points);
    sb_draw_command *c = &d->commands[d->count++];
    memset(c, 0, sizeof *c);
    c->kind = kind;
    c->color = d->color;
    c->width = d->width;
    c->first = d->point_count;
    c->count = points;
    d->point_count += points;
    return c;
}

static double check_coord(lua_State *L, int arg)
{
    double v = luaL_checknumber(L, arg);
    if (!(fabs(v) <= SB_MAX_COORD))
        luaL_argerror(L, arg, lua_pushfstring(L, "coordinate must be finite and within 1e12, got %f", v));
    return v;
}

/// LÖVE's draw mode: "fill" or "line".
static bool check_mode(lua_State *L, int arg)
{
    static const char *const modes[] = {"line", "fill", NULL};
    return luaL_checkoption(L, arg, NULL, modes) == 1;
}

// g.color(r, g, b [, a]) in [0, 1], or g.color("#rrggbb[aa]"): the colour of what follows.
static int g_color(lua_State *L)
{
    scene_draw *d = draw_of(L);
    if (lua_type(L, 1) == LUA_TSTRING) {
        const char *t = lua_tostring(L, 1);
        if (!sb_lua_color_from_text(t, &d->color))
            return luaL_argerror(L, 1, lua_pushfstring(L, "colour must be \"#rrggbb\" or \"#rrggbbaa\", got \"%s\"", t));
        return 0;
    }
    double c[4];
    for (int i = 1; i <= 4; ++i) {
        c[i - 1] = i == 4 ? luaL_optnumber(L, 4, 1.0) : luaL_checknumber(L, i);
        if (!(c[i - 1] >= 0.0 && c[i - 1] <= 1.0))
            return luaL_argerror(L, i, lua_pushfstring(L, "colour components are in [0, 1], got %f", c[i - 1]));
    }
    d->color = sb_lua_color_from_components(c);
    return 0;
}

// g.width(pixels): the width of the lines and outlines drawn after it this frame (default 2)
static int g_width(lua_State *L)
{
    double px = luaL_checknumber(L, 1);
    if (!(px >= 0.5 && px <= 64.0))
        return luaL_argerror(L, 1, lua_pushfstring(L, "width must be in [0.5, 64] pixels, got %f", px));
    draw_of(L)->width = (float)px;
    return 0;
}

// g.line(x1, y1, x2, y2, ...): a polyline in world metres.
static int g_line(lua_State *L)
{
    int n = lua_gettop(L);
    if (n < 4 || n % 2)
        return luaL_error(L, "g.line needs x, y pairs of at least two points, got %d numbers", n);
    sb_draw_command *c = add_command(L, draw_of(L), SB_DRAW_LINES, n / 2);
    for (int i = 0; i < n / 2; ++i)
        draw_of(L)->points[c->first + i] = (sb_vec2){check_coord(L, 2 * i + 1), check_coord(L, 2 * i + 2)};
    return 0;
}

// g.polygon(mode, x1, y1, x2, y2, x3, y3, ...)
static int g_polygon(lua_State *L)
{
    bool fill = check_mode(L, 1);
    int n = lua_gettop(L) - 1;
    if (n < 6 || n % 2)
        return luaL_error(L, "g.polygon needs a mode and x, y pairs of at least three points, got %d numbers", n);
    sb_draw_command *c = add_command(L, draw_of(L), SB_DRAW_POLYGON, n / 2);
    c->fill = fill;
    for (int i = 0; i < n / 2; ++i)
        draw_of(L)->points[c->first + i] = (sb_vec2){check_coord(L, 2 * i + 2), check_coord(L, 2 * i + 3)};
    return 0;
}

// g.rectangle(mode, x, y, width, height): an axis-aligned box from its lower left corner in world
// metres (y up), as a polygon of four corners (LÖVE's rectangle, in the world's frame)
static int g_rectangle(lua_State *L)
{
    bool fill = check_mode(L, 1);
    double x = check_coord(L, 2), y = check_coord(L, 3), wd = check_coord(L, 4), ht = check_coord(L, 5);
    if (!(wd >= 0.0) || !(ht >= 0.0))
        return luaL_argerror(L, wd >= 0.0 ? 5 : 4, lua_pushfstring(L, "%s must be >= 0, got %f", wd >= 0.0 ? "height" : "width",
                                                                   wd >= 0.0 ? ht : wd));
    sb_draw_command *c = add_command(L, draw_of(L), SB_DRAW_POLYGON, 4);
    c->fill = fill;
    sb_vec2 *p = draw_of(L)->points + c->first;
    p[0] = (sb_vec2){x, y};
    p[1] = (sb_vec2){x + wd, y};
    p[2] = (sb_vec2){x + wd, y + ht};
    p[3] = (sb_vec2){x, y + ht};
    return 0;
}

// g.circle(mode, x, y, radius)
static int g_circle(lua_State *L)
{
    bool fill = check_mode(L, 1);
    double x = check_coord(L, 2), y = check_coord(L, 3), r = luaL_checknumber(L, 4);
    if (!(r >= 0.0 && r <= 1e6))
        return luaL_argerror(L, 4, lua_pushfstring(L, "radius must be in [0, 1e6], got %f", r));
    sb_draw_command *c = add_command(L, draw_of(L), SB_DRAW_CIRCLE, 1);
    c->fill = fill;
    c->radius = r;
    draw_of(L)->points[c->first] = (sb_vec2){x, y};
    return 0;
}

static int add_text(lua_State *L, bool screen)
{
    scene_draw *d = draw_of(L);
    bool big = false;
    if (!lua_isnoneornil(L, 4)) { // the size: "small" (the HUD's) or "big" (the title's), before
                                  // luaL_tolstring pushes the text above the arguments
        const char *size = luaL_checkstring(L, 4);
        if (strcmp(size, "big") != 0 && strcmp(size, "small") != 0)
            return luaL_argerror(L, 4, lua_pushfstring(L, "size must be \"small\" or \"big\", got \"%s\"", size));
        big = strcmp(size, "big") == 0;
    }
    size_t len;
    const char *t = luaL_tolstring(L, 1, &len);
    double x = check_coord(L, 2), y = check_coord(L, 3);
    if (len >= (size_t)(draw_max_text - d->text_used)) // in size_t: a 2 GiB string must not wrap an int
        return luaL_error(L, "draw list is full (%d bytes of text in one frame)", draw_max_text);
    sb_draw_command *c = add_command(L, d, SB_DRAW_TEXT, 1);
    c->screen = screen;
    c->big = big;
    c->text = d->text_used;
    memcpy(d->text + d->text_used, t, len);
    // one line of text: the renderer draws to the first newline or NUL
    for (size_t i = 0; i < len; ++i)
        if (d->text[d->text_used + (int)i] == '\0' || d->text[d->text_used + (int)i] == '\n')
            d->text[d->text_used + (int)i] = ' ';
    d->text[d->text_used + (int)len] = '\0';
    d->text_used += (int)len + 1;
    d->points[c->first] = (sb_vec2){x, y};
    return 0;
}

// g.print(text, x, y [, size]): text whose top left is at (x, y) in world metres (LÖVE's print).
static int g_print(lua_State *L) { return add_text(L, false); }
// g.print_screen(text, x, y [, size]): text at (x, y) pixels from the top left of the scene's own
// part of the window (below the HUD's lines, left of the tuning panel), for a scene's HUD.
static int g_print_screen(lua_State *L) { return add_text(L, true); }

typedef struct draw_job { scene_draw *d; char *error; size_t error_size; bool ok; } draw_job;

static void draw_body(sb_scene *scene, void *args)
{
    draw_job *job = (draw_job *)args;
    lua_State *L = scene->L;
    if (push_callback(scene, CB_DRAW)) {
        // g is made afresh for each call: what one frame does to it cannot reach the next
        static const luaL_Reg g_functions[] = {
            {"color", g_color},   {"width", g_width}, {"line", g_line},   {"polygon", g_polygon}, {"rectangle", g_rectangle},
            {"circle", g_circle}, {"print", g_print}, {"print_screen", g_print_screen}, {NULL, NULL},
        };
        lua_createtable(L, 0, 8);
        lua_pushlightuserdata(L, job->d);
        luaL_setfuncs(L, g_functions, 1);
        job->ok = call_callback(scene, CB_DRAW, 1, NULL, job->error, job->error_size);
    }
}

bool sb_scene_draw(sb_scene *scene, sb_draw_list *list, char *error, size_t error_size)
{
    error[0] = '\0';
    memset(list, 0, sizeof *list);
    if (!scene->draw) {
        scene_draw *d = calloc(1, sizeof *d);
        if (d) {
            d->commands = malloc(sizeof *d->commands * draw_max_commands);
            d->points = malloc(sizeof *d->points * draw_max_points);
            d->text = malloc(draw_max_text);
        }
        if (!d || !d->commands || !d->points || !d->text) {
            scene->draw = d;
            scene_program_free(scene);
            snprintf(error, error_size, "draw(): out of memory for the draw list");
            return false;
        }
        scene->draw = d;
    }
    scene_draw *d = scene->draw;
    d->count = d->point_count = d->text_used = 0;
    d->color = draw_default_color;
    d->width = 2.0f;
    draw_job job = {d, error, error_size, true};
    if (!scene_host_call(scene, draw_body, &job, error, error_size))
        job.ok = false;
    list->count = d->count;
    list->commands = d->commands;
    list->points = d->points;
    list->text = d->text;
    return job.ok;
}

// ---------------------------------------------------------------- plots

static void plot_count_body(sb_scene *scene, void *args)
{
    if (lua_getfield(scene->L, LUA_REGISTRYINDEX, "springbox.plots") == LUA_TTABLE)
        *(int *)args = (int)lua_rawlen(scene->L, -1);
    lua_pop(scene->L, 1);
}

int sb_scene_plot_count(const sb_scene *scene)
{
    int n = 0;
    scene_host_call((sb_scene *)scene, plot_count_body, &n, NULL, 0);
    return n;
}

typedef struct plot_job { const char *name; int i; char *out; size_t out_size; double value; bool found; } plot_job;

static void plot_panel_body(sb_scene *scene, void *args)
{
    plot_job *job = (plot_job *)args;
    lua_State *L = scene->L;
    if (lua_getfield(L, LUA_REGISTRYINDEX, "springbox.plots.panel") == LUA_TTABLE) {
        lua_pushstring(L, job->name);
        if (lua_rawget(L, -2) == LUA_TSTRING)
            snprintf(job->out, job->out_size, "%s", lua_tostring(L, -1));
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
}

void sb_scene_plot_panel(const sb_scene *scene, const char *name, char *panel, size_t panel_size)
{
    snprintf(panel, panel_size, "%s", name);
    plot_job job = {name, 0, panel, panel_size, 0.0, false};
    scene_host_call((sb_scene *)scene, plot_panel_body, &job, NULL, 0);
}

static void plot_body(sb_scene *scene, void *args)
{
    plot_job *job = (plot_job *)args;
    lua_State *L = scene->L;
    if (lua_getfield(L, LUA_REGISTRYINDEX, "springbox.plots") == LUA_TTABLE && job->i >= 0) {
        if (lua_rawgeti(L, -1, job->i + 1) == LUA_TSTRING) {
            snprintf(job->out, job->out_size, "%s", lua_tostring(L, -1));
            lua_pushvalue(L, -1);
            lua_rawget(L, -3);
            job->value = lua_tonumber(L, -1);
            lua_pop(L, 1);
            job->found = true;
        }
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
}

bool sb_scene_plot(const sb_scene *scene, int i, char *name, size_t name_size, double *value)
{
    plot_job job = {NULL, i, name, name_size, 0.0, false};
    scene_host_call((sb_scene *)scene, plot_body, &job, NULL, 0);
    if (job.found)
        *value = job.value;
    return job.found;
}

void sb_scene_write_plots_json(const sb_scene *scene, FILE *f)
{
    int n = sb_scene_plot_count(scene);
    for (int i = 0; i < n; ++i) {
        char name[64];
        double v = 0.0;
        if (!sb_scene_plot(scene, i, name, sizeof name, &v))
            break;
        fprintf(f, "%s\"%s\":", i ? "," : ",\"plots\":{", name); // springbox.plot allows no quotes or backslashes
        if (isfinite(v))
            fprintf(f, "%.9g", v);
        else
            fputs("null", f);
        if (i == n - 1)
            fputc('}', f);
    }
}

void sb_json_string(FILE *f, const char *text)
{
    fputc('"', f);
    for (const unsigned char *c = (const unsigned char *)text; *c; ++c) {
        if (*c == '"' || *c == '\\')
            fprintf(f, "\\%c", *c);
        else if (*c == '\n')
            fputs("\\n", f);
        else if (*c < 0x20)
            fprintf(f, "\\u%04x", *c);
        else
            fputc(*c, f);
    }
    fputc('"', f);
}

static void json_finite(FILE *f, const char *key, double v)
{
    fprintf(f, ",\"%s\":", key);
    if (isfinite(v))
        fprintf(f, "%.9g", v);
    else
        fputs("null", f);
}

// A comparison of worlds hides nothing: every world's clamps and halt, named.
void sb_scene_write_worlds_json(const sb_scene *scene, FILE *f)
{
    int n = sb_scene_world_count(scene);
    if (n < 2)
        return;
    fputs(",\"worlds\":[", f);
    for (int k = 0; k < n; ++k) {
        const sb_world *w = sb_scene_world((sb_scene *)scene, k);
        const sb_stats *st = sb_world_get_stats(w);
        sb_world_def d = sb_world_get_def(w);
        char clamp[256];
        sb_world_clamp_message(w, clamp, sizeof clamp);
        fprintf(f, "%s{\"world\":%d,\"method\":\"%s\",\"substeps\":%d,\"iterations\":%d", k ? "," : "", k + 1,
                sb_method_name(d.method), d.substeps, d.iterations);
        json_finite(f, "kinetic", st->kinetic_energy);
        json_finite(f, "potential", st->potential_energy);
        json_finite(f, "max_stretch", st->max_stretch);
        fprintf(f, ",\"contacts\":%d,\"clamped_springs\":%d,\"clamped_constraints\":%d,\"clamp_message\":",
                st->contacts, st->clamped_springs, st->clamped_constraints);
        sb_json_string(f, clamp);
        fprintf(f, ",\"halted\":%s,\"message\":", st->halted ? "true" : "false");
        sb_json_string(f, st->halted ? st->message : "");
        if (sb_world_structure_message(w, clamp, sizeof clamp) > 0) {
            fputs(",\"structure_message\":", f);
            sb_json_string(f, clamp);
        }
        fputc('}', f);
    }
    fputc(']', f);
}

// ---------------------------------------------------------------- camera

typedef struct camera_job { sb_camera_request *request; bool asked; } camera_job;

static void camera_body(sb_scene *scene, void *args)
{
    camera_job *job = (camera_job *)args;
    sb_camera_request *request = job->request;
    lua_State *L = scene->L;
    if (lua_getfield(L, LUA_REGISTRYINDEX, "springbox.camera") == LUA_TTABLE) {
        lua_getfield(L, -1, "height");
        request->height = lua_tonumber(L, -1);
        lua_pop(L, 1);
        sb_world *w;
        sb_particle_id id;
        lua_getfield(L, -1, "particle");
        if (lua_isnil(L, -1)) { // a look: once
            lua_rawgeti(L, -2, 1);
            lua_rawgeti(L, -3, 2);
            request->x = lua_tonumber(L, -2);
            request->y = lua_tonumber(L, -1);
            request->follow = false;
            lua_pop(L, 2);
            job->asked = true;
        } else if (sb_lua_to_particle(L, -1, &w, &id)) {
            sb_particle_def p;
            job->asked = sb_particle_get(w, id, &p) == SB_OK;
            if (job->asked) {
                request->x = p.position.x;
                request->y = p.position.y;
                request->follow = true;
            }
        }
        lua_pop(L, 1);
        if (!job->asked || !request->follow) { // done, or the particle (or its world) is gone
            lua_pushnil(L);
            lua_setfield(L, LUA_REGISTRYINDEX, "springbox.camera");
        }
    }
    lua_pop(L, 1);
}

bool sb_scene_camera(sb_scene *scene, sb_camera_request *request)
{
    camera_job job = {request, false};
    return scene_host_call(scene, camera_body, &job, NULL, 0) && job.asked;
}

static void view_body(sb_scene *scene, void *args)
{
    const double *v = (const double *)args;
    registry_table(scene->L, "springbox.view"); // what springbox.camera.get reads
    for (int i = 0; i < 3; ++i) {
        lua_pushnumber(scene->L, v[i]);
        lua_rawseti(scene->L, -2, i + 1);
    }
    lua_pop(scene->L, 1);
}

void sb_scene_set_view(sb_scene *scene, double x, double y, double height)
{
    double v[3] = {x, y, height};
    scene_host_call(scene, view_body, v, NULL, 0);
}
