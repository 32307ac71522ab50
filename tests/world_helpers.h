// The C tests' helpers for building and reading worlds through the public API: a particle or a
// spring in one call, a particle read back, a world of the defaults with a method, sub-steps and
// gravity. Shared by the core, physics, contact, rolling and program tests.
#ifndef SB_WORLD_HELPERS_H
#define SB_WORLD_HELPERS_H

#include "sb_tuning.h"
#include "sb_world.h"

/// A particle of the defaults at (x, y) with this mass, fixed or not.
static inline sb_particle_id add_particle(sb_world *w, double x, double y, double mass, bool fixed)
{
    sb_particle_def p = sb_default_particle_def();
    p.position = (sb_vec2){x, y};
    p.mass = mass;
    p.fixed = fixed;
    return sb_world_add_particle(w, &p, NULL);
}

/// A spring from a to b with this tuning and rest length (< 0: the distance between them now).
static inline sb_spring_id add_spring(sb_world *w, sb_particle_id a, sb_particle_id b, double rest, sb_tuning t)
{
    sb_spring_def s = sb_default_spring_def();
    s.a = a;
    s.b = b;
    s.rest_length = rest;
    s.tuning = t;
    return sb_world_add_spring(w, &s, NULL, NULL);
}

/// The particle as it is now.
static inline sb_particle_def particle_now(const sb_world *w, sb_particle_id id)
{
    sb_particle_def d;
    sb_particle_get(w, id, &d);
    return d;
}

/// The world defaults with this method and sub-step count.
static inline sb_world_def def_with(sb_method method, int substeps)
{
    sb_world_def def = sb_default_world_def();
    def.method = method;
    def.substeps = substeps;
    return def;
}

/// A world of the defaults with this method, sub-step count and gravity.
static inline sb_world *world_with(sb_method method, int substeps, sb_vec2 gravity)
{
    sb_world_def def = def_with(method, substeps);
    def.gravity = gravity;
    return sb_world_create(&def);
}

#endif
