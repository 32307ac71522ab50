// springbox: Lua's string pattern functions with a time guard.
//
// The stock string.find / match / gmatch / gsub match in C, where no Lua hook runs, so one
// call with catastrophic backtracking (string.find(("a"):rep(3000), (".-"):rep(5) .. "b"))
// ran for hours past any time limit. These are the same functions, written to the Lua 5.4
// manual (section 6.4.1, "Patterns"), that call a guard every few thousand matching steps;
// the guard may raise a Lua error, which ends the match.
#ifndef SB_PATTERN_H
#define SB_PATTERN_H

#include <lua.h>

/// Called every SB_PATTERN_CHECK_STEPS steps of a match; raising an error (lua_error)
/// stops the match. `ud` is what sb_pattern_install was given.
typedef void (*sb_pattern_guard)(lua_State *L, void *ud);

/// Matching steps between two calls of the guard (about a millisecond of matching).
#define SB_PATTERN_CHECK_STEPS 65536

/// Sets find, match, gmatch and gsub in the table at `idx` (the string library) to the
/// guarded versions. Results and error messages are those of Lua 5.4's own.
void sb_pattern_install(lua_State *L, int idx, sb_pattern_guard guard, void *ud);

#endif
