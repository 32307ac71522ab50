// springbox Lua bindings: the `springbox` module for Lua 5.4.
// Worlds, particles and springs are full userdata with metatables; their fields read and
// write as properties. A particle or spring userdata outlives its object and says so, as
// Lua's closed files do: "particle was removed", "attempt to use a closed world".
#ifndef SB_LUA_H
#define SB_LUA_H

#include "sb_world.h"

#include <lua.h>

/// The longest tunable name springbox.tune takes, in bytes: every tool of a host (sliders, W, the
/// tuning history, input recordings) keeps names this long whole.
#define SB_TUNABLE_NAME_MAX 128

/// Opens the module: require "springbox" (also the entry point of springbox.so).
int luaopen_springbox(lua_State *L);

/// The world behind the world userdata at `idx`, or NULL if it is not one or is closed.
sb_world *sb_lua_to_world(lua_State *L, int idx);
/// Pins (or unpins) the world userdata at `idx`: a pinned world cannot be closed from Lua
/// (world:close() raises "cannot close a world the running scene is using"). Pins count.
void sb_lua_pin_world(lua_State *L, int idx, bool pinned);
/// Retires the world userdata at `idx`: a scene host replaced it on a reload. Its world is
/// destroyed now, and it and its particles, springs and constraints say they are stale when used.
void sb_lua_retire_world(lua_State *L, int idx);
/// A host's time limit for long C calls: world:step asks `guard` before every frame and between
/// sub-steps; when it returns true (filling `message`), the frame in progress is undone and the
/// call raises `message`. One guard per Lua state; NULL removes it.
typedef bool (*sb_lua_guard)(void *ud, char *message, size_t size);
void sb_lua_set_guard(lua_State *L, sb_lua_guard guard, void *ud);
/// Pushes the particle userdata for `id` of the world userdata at `world_idx` (one userdata
/// per particle, so they compare equal and work as table keys).
void sb_lua_push_particle(lua_State *L, int world_idx, sb_particle_id id);
/// Pushes the spring userdata for `id` (a removed spring's too: it says "spring was removed" when
/// used, but for the last values kept with sb_lua_spring_keep_last).
void sb_lua_push_spring(lua_State *L, int world_idx, sb_spring_id id);
/// A spring's values as a table: index, a and b (nil where that particle is gone), rest_length,
/// tuning ("rigid", "hertz", "coefficients" or "raw") and its two numbers in its own terms, force
/// and stretch.
void sb_lua_push_spring_values(lua_State *L, int world_idx, const sb_world *world, uint32_t index, sb_particle_id a,
                               sb_particle_id b, double rest_length, const sb_tuning *tuning, double force,
                               double stretch);
/// Pops the table at the top (sb_lua_push_spring_values) and keeps it with the spring userdata at
/// `idx`: once the spring is gone, reading one of those fields gives its last value.
void sb_lua_spring_keep_last(lua_State *L, int idx);
/// A colour "#rrggbb" or "#rrggbbaa" as 0xRRGGBBAA; false if the text is neither.
bool sb_lua_color_from_text(const char *text, uint32_t *color);
/// Components r, g, b, a in [0, 1] as 0xRRGGBBAA.
uint32_t sb_lua_color_from_components(const double rgba[4]);
/// The particle handle of the particle userdata at `idx`, if it belongs to a live world.
bool sb_lua_to_particle(lua_State *L, int idx, sb_world **world, sb_particle_id *id);
/// Threads a springbox.world takes when its definition does not say (1 unless a host sets it:
/// springbox's own host gives its --threads, by default the machine's cores).
void sb_lua_set_default_threads(int threads);
/// Replaces the value on top of the stack, if it is a table, by a deep copy: shared and cyclic
/// tables stay so through the table at stack index `seen` (copied table -> copy). With `data_only`
/// (springbox.state across a reload) entries holding functions or coroutines are left out, counted
/// in *dropped (the first described in the registry's "springbox.state.dropped_name"), and so are
/// metatables; without it everything is kept, metatables too (a rewind's copy for the same
/// version of the scene). `path` names the table in messages (NULL: none). Raises past 100 levels.
void sb_lua_copy_table(lua_State *L, int seen, const char *path, bool data_only, int *dropped, int depth);
/// sb_lua_copy_table that visits at most *budget entries (each entry of each table copied, less
/// one from *budget): past it, it raises "springbox.state is too big to copy". NULL: no bound.
void sb_lua_copy_table_within(lua_State *L, int seen, const char *path, bool data_only, int *dropped, int depth,
                              long *budget);

#endif
