// Runs a Lua test file with the springbox module linked in, so the Lua API tests also run
// under the sanitizers (a sanitized springbox.so cannot load into the stock interpreter).
#include "sb_lua.h"

#include <lauxlib.h>
#include <lualib.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: lua_host test.lua\n");
        return 2;
    }
    lua_State *L = luaL_newstate();
    luaL_openlibs(L);
    luaL_requiref(L, "springbox", luaopen_springbox, 0);
    lua_pop(L, 1);
    int status = luaL_dofile(L, argv[1]);
    if (status != LUA_OK)
        fprintf(stderr, "%s\n", lua_tostring(L, -1));
    lua_close(L);
    return status == LUA_OK ? 0 : 1;
}
