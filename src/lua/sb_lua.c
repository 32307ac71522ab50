// The springbox Lua module. Every argument is checked with the auxiliary library; a bad
// one raises a Lua error that names the argument (or field) and the value, never a crash.
// This file opens the module: the metatables and the functions of `springbox`.
#include "sb_lua_internal.h"

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
    {"tune_structure", l_world_tune_structure}, {"structure_mode", l_world_structure_mode},
    {"chain", l_world_chain},       {"box", l_world_box},
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
        {"world", l_world_new}, {"tune", l_tune}, {"state", l_state}, {"plot", l_plot}, {"paused", l_paused}, {NULL, NULL},
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
