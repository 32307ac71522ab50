// What a scene says to its host: springbox.state, tune, plot, the keyboard, the mouse, the camera
// and the window's title.
#include "sb_lua_internal.h"

// springbox.state(defaults) -> the scene's own table, kept across hot reloads. The first call of a
// load (a scene host sets springbox.loading) makes it: a copy of the running scene's state
// (springbox.state.current) or a new table, plus every default it lacks; later calls of the same
// load return it. The host makes it current when the load is kept and drops it otherwise. Called
// outside a load (from update(), or without a host) it returns the running state.
int l_state(lua_State *L)
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
        sb_lua_copy_table(L, seen, "springbox.state", true, &count, 0);
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
        // FIFO or a device. Without a host, a regular file is read.
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

// springbox.tune{ name = {value, min, max}, ... } -> { name = current value, ... }
// Declares values a designer can tune live; the host shows them as sliders and re-runs the
// scene with a new value as a hot reload would. Outside the host the defaults come back.
int l_tune(lua_State *L)
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
        size_t name_length;
        const char *name = lua_tolstring(L, -2, &name_length);
        if (name_length < 1 || name_length > SB_TUNABLE_NAME_MAX || strlen(name) != name_length)
            return luaL_argerror(L, 1, lua_pushfstring(L, "tunable names have 1 to %d bytes and no zeros, got one of %d",
                                                       SB_TUNABLE_NAME_MAX, (int)name_length));
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
        // A default the file changed since the last run wins over a slider's value for it (the
        // latest change is the designer's); one the file left as it was keeps the slider's.
        if (lua_getfield(L, LUA_REGISTRYINDEX, "springbox.tunables.before") == LUA_TTABLE &&
            lua_getfield(L, -1, name) == LUA_TTABLE && lua_rawgeti(L, -1, 9) == LUA_TNUMBER &&
            lua_tonumber(L, -1) != declared && lua_getfield(L, over, name) == LUA_TNUMBER) {
            if (lua_getfield(L, LUA_REGISTRYINDEX, "springbox.tunables.file_won") == LUA_TTABLE) {
                lua_pushvalue(L, -2); // the slider's value it replaces
                lua_setfield(L, -2, name);
            }
            lua_pop(L, 2);
            lua_pushnil(L);
            lua_setfield(L, over, name);
        }
        lua_settop(L, spec);
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
        lua_pushnumber(L, declared); // 9: the default as the file gives it, for the next run to compare
        lua_rawseti(L, -2, 9);
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
int l_plot(lua_State *L)
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
    }
    lua_settop(L, 3);
    luaL_getsubtable(L, LUA_REGISTRYINDEX, "springbox.plots.panel"); // 4: series -> panel, of the series kept
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
            lua_rawgeti(L, plots, i); // and its panel
            lua_pushnil(L);
            lua_rawset(L, 4);
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
    if (!lua_isnil(L, 3)) { // a series kept: its panel
        lua_pushvalue(L, 1);
        lua_pushvalue(L, 3);
        lua_rawset(L, 4);
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
/// springbox.paused(): whether the host's run is paused or rewound (sb_scene_set_paused); false
/// without a host that pauses.
int l_paused(lua_State *L)
{
    lua_getfield(L, LUA_REGISTRYINDEX, "springbox.paused");
    lua_pushboolean(L, lua_toboolean(L, -1));
    return 1;
}

int l_keyboard_isdown(lua_State *L)
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
int l_mouse_position(lua_State *L)
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

int l_mouse_isdown(lua_State *L)
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
int l_camera_look(lua_State *L)
{
    double x = luaL_checknumber(L, 1), y = luaL_checknumber(L, 2);
    for (int i = 1; i <= 2; ++i)
        if (!(fabs(lua_tonumber(L, i)) <= SB_MAX_COORD))
            arg_error(L, i, lua_pushfstring(L, "must be finite and within 1e12 m, got %s", describe(L, i)));
    set_camera_request(L, x, y, check_view_height(L, 3), 0);
    return 0;
}

// springbox.camera.follow(p [, height]): keep particle p centred every frame; nil stops.
int l_camera_follow(lua_State *L)
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
int l_camera_get(lua_State *L)
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
int l_window_set_title(lua_State *L)
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
