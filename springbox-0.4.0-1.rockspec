-- springbox's Lua module as a rock: `luarocks make` in this directory builds and installs it.
-- The version must be the CMake project version (CMakeLists.txt); app.rockspec checks it.
rockspec_format = "3.0"
package = "springbox"
version = "0.4.0-1"
source = { url = "git+https://github.com/springbox/springbox.git", tag = "v0.4.0" }
description = {
  summary = "A 2D physics sandbox for people who tune springs: particles, springs and collisions",
  detailed = [[
Six spring solvers (explicit Hooke forces, Nissen's impulse and sequential-impulse springs,
Catto's soft constraints, Verlet, XPBD) under one tuning model: a spring asked for a frequency
and damping ratio moves that way in every method. Worlds, particles, springs and walls are
userdata; see springbox.meta.lua for the whole API.]],
  license = "MIT",
}
dependencies = { "lua >= 5.4, < 5.5" }
build = {
  type = "builtin",
  modules = {
    springbox = {
      sources = {
        "src/lua/sb_lua.c",
        "src/lua/sb_lua_aux.c",
        "src/lua/sb_lua_world.c",
        "src/lua/sb_lua_particle.c",
        "src/lua/sb_lua_spring.c",
        "src/lua/sb_lua_build.c",
        "src/lua/sb_lua_constraint.c",
        "src/lua/sb_lua_snapshot.c",
        "src/lua/sb_lua_host.c",
        "src/lua/sb_tune_source.c",
        "src/core/tuning.c", "src/core/world.c", "src/core/particle.c", "src/core/spring.c",
        "src/core/wall.c", "src/core/drag.c", "src/core/ledger.c", "src/core/solver.c", "src/core/retune.c", "src/core/snapshot.c",
        "src/core/generations.c", "src/core/wall_tree.c",
        "src/core/method_force.c", "src/core/method_impulse.c", "src/core/method_sequential.c",
        "src/core/method_soft.c", "src/core/method_verlet.c", "src/core/method_xpbd.c",
        "src/core/springs_simd.c", "src/core/contact_solver.c", "src/core/contact_geometry.c",
        "src/core/contact_bounds.c", "src/core/contact_impact.c", "src/core/contact_project.c", "src/core/contact_find.c", "src/core/contact_segments.c",
        "src/core/contact_stops.c", "src/core/contact_graph.c", "src/core/tether.c", "src/core/bending.c", "src/core/articulation.c", "src/core/articulation_solve.c", "src/core/samples.c",
        "src/core/events.c", "src/core/query.c", "src/core/constraint.c", "src/core/pool.c", "src/core/trig.c",
        "src/core/structure.c", "src/core/structure_delivery.c", "src/core/oscillation.c",
        "src/core/structure_record.c",
      },
      incdirs = { "include/springbox", "src/core", "src/lua" },
      defines = { "SPRINGBOX_VERSION=\"0.4.0\"" },
      libraries = { "m", "pthread" },
    },
  },
  copy_directories = {},
}
