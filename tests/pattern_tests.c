// The guarded pattern functions of sb_pattern.c: the same answers as Lua's own string library,
// and a guard that can stop any match, however badly it backtracks.
#define _POSIX_C_SOURCE 200809L // clock_gettime
#include "clock.h"
#include "ensure.h"
#include "sb_pattern.h"

#include <lauxlib.h>
#include <lualib.h>
#include <time.h>


typedef struct guard_state {
    double deadline; // 0: never stops
    int calls;
} guard_state;

static void test_guard(lua_State *L, void *ud)
{
    guard_state *g = (guard_state *)ud;
    g->calls += 1;
    if (g->deadline > 0.0 && test_seconds() > g->deadline)
        luaL_error(L, "time is up");
}

/// A state whose global `bounded` is a copy of the string library with the guarded functions.
static lua_State *state_with_bounded(guard_state *g)
{
    lua_State *L = luaL_newstate();
    luaL_openlibs(L);
    lua_newtable(L);
    lua_getglobal(L, "string");
    lua_pushnil(L);
    while (lua_next(L, -2)) {
        lua_pushvalue(L, -2);
        lua_insert(L, -2);
        lua_settable(L, -5);
    }
    lua_pop(L, 1);
    sb_pattern_install(L, -1, test_guard, g);
    lua_setglobal(L, "bounded");
    return L;
}

static int run_lua(lua_State *L, const char *code)
{
    if (luaL_dostring(L, code) != LUA_OK) {
        fprintf(stderr, "%s\n", lua_tostring(L, -1));
        return 1;
    }
    return 0;
}

// 20,000 random subjects and patterns (malformed ones included), through find, plain find,
// match, gmatch and gsub with string, table and function replacements.
TEST(same_results_and_errors_as_lua)
{
    guard_state g = {0};
    lua_State *L = state_with_bounded(&g);
    int status = luaL_loadfile(L, SPRINGBOX_TESTS_DIR "/lua/pattern_fuzz.lua");
    if (status == LUA_OK) {
        lua_pushinteger(L, 20261123);
        lua_pushinteger(L, 20000);
        status = lua_pcall(L, 2, 0, 0);
    }
    if (status != LUA_OK)
        fprintf(stderr, "%s\n", lua_tostring(L, -1));
    lua_close(L);
    ENSURE(status == LUA_OK);
    return 0;
}

// (".-"):rep(5) .. "b" on 3,000 characters takes hours in Lua's own matcher; every function
// that matches stops at the guard's error, soon after its deadline.
TEST(catastrophic_backtracking_stops_at_the_guard)
{
    static const char *const calls[] = {
        "return bounded.find(s, p)",
        "return bounded.match(s, p)",
        "return bounded.gsub(s, p, 'x')",
        "for m in bounded.gmatch(s, p) do end",
        "return bounded.find(s, '(.-)%1' .. ('.-'):rep(4) .. 'b')",
        "return bounded.gsub(s, '%f[a]' .. ('a-'):rep(5) .. 'b', function() end)",
    };
    for (size_t i = 0; i < sizeof calls / sizeof *calls; ++i) {
        guard_state g = {0};
        lua_State *L = state_with_bounded(&g);
        ENSURE(run_lua(L, "s = ('a'):rep(3000); p = ('.-'):rep(5) .. 'b'") == 0);
        char code[256];
        snprintf(code, sizeof code, "local ok, e = pcall(function() %s end) assert(not ok) return e", calls[i]);
        double t0 = test_seconds(), c0 = test_cpu_seconds();
        g.deadline = t0 + 0.2;
        ENSURE(luaL_dostring(L, code) == LUA_OK);
        double took = test_cpu_seconds() - c0; // what the deadline's check costs past it, on any machine
        printf("%-70s stopped after %.3f s: %s\n", calls[i], took, lua_tostring(L, -1));
        ENSURE(strstr(lua_tostring(L, -1), "time is up") != NULL);
        ENSURE(took < 0.2 + 0.3);
        lua_close(L);
    }
    return 0;
}

// A long match that is fine runs to its right answer; the guard is consulted on the way.
TEST(long_matches_finish_with_the_guard_consulted)
{
    guard_state g = {0};
    lua_State *L = state_with_bounded(&g);
    g.deadline = test_seconds() + 60.0;
    ENSURE(run_lua(L, "local s = ('a'):rep(4000000) .. 'b'\n"
                      "assert(#bounded.match(s, '^(a*)b$') == 4000000)\n"
                      "assert(select(2, bounded.gsub(s, 'a', 'c')) == 4000000)\n"
                      "assert(bounded.find(s, 'b', 1, true) == 4000001)\n"
                      "assert(bounded.find(s, 'a-b') == 1)\n") == 0);
    printf("guard called %d times\n", g.calls);
    ENSURE(g.calls >= 4000000 / SB_PATTERN_CHECK_STEPS);
    lua_close(L);
    return 0;
}

int main(int argc, char **argv)
{
    static const test_entry tests[] = {
        ENTRY(same_results_and_errors_as_lua),
        ENTRY(catastrophic_backtracking_stops_at_the_guard),
        ENTRY(long_matches_finish_with_the_guard_consulted),
    };
    return run_tests(argc, argv, tests, sizeof tests / sizeof *tests);
}
