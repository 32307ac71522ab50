// What the springbox module's files share: the userdata types, their metatable names, and the
// argument and handle helpers (sb_lua_aux.c) every binding is written with.
#ifndef SB_LUA_INTERNAL_H
#define SB_LUA_INTERNAL_H

#include "sb_lua.h"
#include "sb_pool.h"
#include "sb_structure.h"
#include "sb_tune_source.h"
#include "sb_tuning.h"
#include <ctype.h>
#include <lauxlib.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#define WORLD_MT "springbox.world"
#define SNAPSHOT_MT "springbox.snapshot"
#define PARTICLE_MT "springbox.particle"
#define SPRING_MT "springbox.spring"
#define CONSTRAINT_MT "springbox.constraint"

// world: NULL once closed. pinned: a scene host runs it and closes it itself (as Lua's standard
// files, which "cannot close standard file"): a script cannot close it from under the host.
// retired: a scene host replaced it on a reload (sb_lua_retire_world); its handles are stale.
typedef struct lua_world { sb_world *world; int pinned; bool retired; } lua_world;
typedef struct lua_particle { sb_particle_id id; } lua_particle;   // user value 1: its world
typedef struct lua_spring { sb_spring_id id; } lua_spring;         // user value 1: its world

// ---------------------------------------------------------------- shared helpers and bindings

// Hidden: the loadable module exports luaopen_springbox alone, and nothing here can be
// interposed by a symbol of the same name elsewhere in the process.
#pragma GCC visibility push(hidden)

int arg_error(lua_State *L, int arg, const char *msg);
const char *value_name(lua_State *L, int arg, const char *kind, const char *key);
const char *describe(lua_State *L, int idx);
double check_finite_at(lua_State *L, int idx, int arg, const char *what);
bool check_bool_at(lua_State *L, int idx, int arg, const char *what);
bool is_field(const char *key, const char *const *fields);
void check_keys(lua_State *L, int tbl, int arg, const char *kind, const char *const *allowed);
bool opt_number_field(lua_State *L, int tbl, int arg, const char *name, double *out);
double array_number(lua_State *L, int idx, int i, int arg, const char *what);
sb_vec2 check_vec2_at(lua_State *L, int idx, int arg, const char *what);
sb_bounds check_bounds_at(lua_State *L, int idx, int arg, const char *what);
sb_method check_method_at(lua_State *L, int idx, int arg, const char *what);
lua_world *check_world_ud(lua_State *L, int idx);
sb_world *check_world(lua_State *L, int idx);
int def_error(lua_State *L, int arg, const char *kind, const char *field, sb_status st);
void push_vec2(lua_State *L, sb_vec2 v);
void push_cached(lua_State *L, int world_idx, int cache, uint32_t index, uint32_t generation, const char *mt);
void push_spring(lua_State *L, int world_idx, sb_spring_id id);
sb_world *check_handle(lua_State *L, int idx, const char *mt, const char *kind, sb_particle_id *id, int *world_slot);
sb_world *check_particle(lua_State *L, int idx, sb_particle_id *id, int *world_slot);
uint32_t check_color_at(lua_State *L, int idx, int arg, const char *what);
void push_color(lua_State *L, uint32_t color);
lua_Integer check_integer_in(lua_State *L, int idx, int arg, const char *what, lua_Integer lo, lua_Integer hi);
/// `removed` reads without raising (Lua's io.type for files): true once the object or its world is gone.
bool read_removed(lua_State *L, const char *mt, const char *kind);
/// True when the handle's world still runs and the object is gone (removed or broken).
bool handle_removed(lua_State *L, int idx, const char *mt, const char *kind);
sb_world *check_spring(lua_State *L, int idx, sb_spring_id *id, int *world_slot);
sb_tuning check_tuning(lua_State *L, int idx, int arg, sb_tuning base);
sb_tuning check_tuning_of(lua_State *L, int idx, int arg, sb_tuning base, const char *kind);
sb_world *check_constraint(lua_State *L, int idx, sb_constraint_id *id, int *world_slot);
/// The particle at stack index `arg`, of this world.
sb_particle_id world_particle_arg(lua_State *L, sb_world *world, int arg);
void set_num(lua_State *L, const char *k, double v);
void set_int(lua_State *L, const char *k, lua_Integer v);
int l_handle_eq(lua_State *L);
int l_world_new(lua_State *L);
int l_world_index(lua_State *L);
int l_world_newindex(lua_State *L);
int l_world_tostring(lua_State *L);
int l_world_close(lua_State *L);
int l_world_remove(lua_State *L);
int l_world_particles(lua_State *L);
int l_world_springs(lua_State *L);
int l_world_walls(lua_State *L);
int l_world_constraints(lua_State *L);
int l_world_wall(lua_State *L);
int l_world_remove_wall(lua_State *L);
int l_world_move_wall(lua_State *L);
int l_world_polyline(lua_State *L);
int l_world_step(lua_State *L);
/// Lets the host's time limit stop `world`'s long work (a structure's solve, a step) while `on`.
void sb_lua_world_guarded(lua_State *L, sb_world *world, bool on);
/// Raises the host's time-limit message (after the core said SB_ERR_INTERRUPTED).
int sb_lua_guard_error(lua_State *L);
int l_world_resume(lua_State *L);
int l_world_stats(lua_State *L);
int l_world_drag(lua_State *L);
int l_world_drag_to(lua_State *L);
int l_world_release(lua_State *L);
int l_world_pick(lua_State *L);
int l_world_query(lua_State *L);
int l_world_raycast(lua_State *L);
int l_world_hash(lua_State *L);
int l_world_gc(lua_State *L);
int l_world_particle(lua_State *L);
int l_particle_index(lua_State *L);
int l_particle_newindex(lua_State *L);
int l_particle_tostring(lua_State *L);
extern const char *const spring_fields[];
int l_world_spring(lua_State *L);
int l_world_structure_mode(lua_State *L);
int l_world_tune_structure(lua_State *L);
int l_world_chain(lua_State *L);
int l_world_box(lua_State *L);
/// A particle's def from the table at idx (world:particle's fields), errors on argument `arg`.
sb_particle_def sb_lua_check_particle_def(lua_State *L, int idx, int arg);
/// A spring's def from the options at idx (world:spring's fields; nil: the defaults), errors on argument `arg`.
sb_spring_def sb_lua_check_spring_def(lua_State *L, int idx, int arg);
/// A StructureMode table: what a tune (asked_hertz > 0) or a reading found.
int sb_lua_push_mode(lua_State *L, const sb_structure_mode *m, double asked_hertz, double asked_zeta);
/// Raises what the core's refusal of a structure means (springs at `arg`, the tuning at `tuning_arg`).
int sb_lua_structure_error(lua_State *L, int arg, int tuning_arg, sb_status st, const char *field, double hertz,
                           const sb_structure_mode *m);
int l_spring_index(lua_State *L);
int l_spring_newindex(lua_State *L);
int l_spring_tostring(lua_State *L);
int l_world_rope(lua_State *L);
int l_world_strut(lua_State *L);
int l_world_angle(lua_State *L);
int l_world_area(lua_State *L);
int l_constraint_index(lua_State *L);
int l_constraint_newindex(lua_State *L);
int l_constraint_tostring(lua_State *L);
int l_world_snapshot(lua_State *L);
int l_world_restore(lua_State *L);
extern const luaL_Reg snapshot_meta[];
int l_state(lua_State *L);
int l_tune(lua_State *L);
int l_plot(lua_State *L);
int l_keyboard_isdown(lua_State *L);
int l_paused(lua_State *L);
int l_mouse_position(lua_State *L);
int l_mouse_isdown(lua_State *L);
int l_camera_look(lua_State *L);
int l_camera_follow(lua_State *L);
int l_camera_get(lua_State *L);
int l_window_set_title(lua_State *L);

#pragma GCC visibility pop

#endif
