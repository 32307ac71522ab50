// springbox core: constraints over particles besides springs. Ropes that only pull, struts that
// only push, bending angles between three particles and the area of a closed loop (pressure).
// Each takes a tuning as springs do (sb_tuning.h: hertz and damping ratio, Nissen's
// coefficients, or k and c, with hertz 0 for a rigid one), read at the constraint's effective
// mass, so one tuning gives the same motion in every method.
#ifndef SB_CONSTRAINT_H
#define SB_CONSTRAINT_H

#include "sb_api.h"

#include "sb_types.h"

#ifdef __cplusplus
extern "C" {
#endif

/// A constraint handle, with the same staleness rules as particles.
typedef struct sb_constraint_id { uint32_t index, generation; } sb_constraint_id;

typedef enum sb_constraint_kind {
    SB_CONSTRAINT_ROPE = 0, ///< |b - a| <= rest: pulls only when taut (a max distance)
    SB_CONSTRAINT_STRUT,    ///< |b - a| >= rest: pushes only when shorter (a min distance)
    SB_CONSTRAINT_ANGLE,    ///< the signed angle at b from a to c, in radians (bending)
    SB_CONSTRAINT_AREA,     ///< the signed (counter-clockwise positive) area of a closed loop, m^2
    SB_CONSTRAINT_KIND_COUNT
} sb_constraint_kind;

/// Everything that describes a constraint. Start from sb_default_constraint_def().
typedef struct sb_constraint_def {
    sb_constraint_kind kind;
    const sb_particle_id *particles; ///< 2 (rope, strut), 3 (angle: a, b the vertex, c), >= 3 (area)
    int count;
    double rest;          ///< length, angle or area; NAN: the current value
    sb_tuning tuning;     ///< rigid by default
    bool solid;           ///< ropes and struts: particles and walls' corners collide with it as a capsule (sb_spring_def.solid)
    double break_stretch; ///< ropes and struts, > 0: it breaks (is removed) once |length/rest - 1| passes it
} sb_constraint_def;

/// A rope or strut that broke in the last step: it is already removed; what it was stays.
typedef struct sb_constraint_break_event {
    sb_constraint_id constraint;
    sb_constraint_kind kind;
    sb_particle_id a, b;
    double rest;          ///< its rest length, m
    double stretch;       ///< |length/rest - 1| when it broke
} sb_constraint_break_event;

/// Defaults: a rigid rope with no particles and the rest taken from the current positions.
SB_API sb_constraint_def sb_default_constraint_def(void);
/// Adds a constraint. Rejects stale or repeated particles, a wrong count, and bad tuning;
/// *bad_field names what was wrong.
SB_API sb_constraint_id sb_world_add_constraint(sb_world *world, const sb_constraint_def *def, sb_status *status, const char **bad_field);
/// Removes a constraint (removing one of its particles removes it too).
SB_API sb_status sb_world_remove_constraint(sb_world *world, sb_constraint_id id);
/// True if the handle names a live constraint of this world.
SB_API bool sb_constraint_is_valid(const sb_world *world, sb_constraint_id id);
/// Kind, particles (up to `capacity` into `particles`), rest and tuning; returns the particle count, -1 if stale.
SB_API int sb_constraint_get(const sb_world *world, sb_constraint_id id, sb_constraint_def *out, sb_particle_id *particles, int capacity);
/// Changes the rest value and tuning.
SB_API sb_status sb_constraint_set(sb_world *world, sb_constraint_id id, double rest, const sb_tuning *tuning, const char **bad_field);
/// The constrained quantity now: a length, an angle or an area.
SB_API double sb_constraint_value(const sb_world *world, sb_constraint_id id);
/// Number of live constraints.
SB_API int sb_world_constraint_count(const sb_world *world);
/// Iterates live constraints in slot order: pass a null id to start; returns false at the end.
SB_API bool sb_world_next_constraint(const sb_world *world, sb_constraint_id *it);
/// The ropes and struts that broke in the last step (sb_world_step); valid until the next step.
SB_API int sb_world_constraint_break_events(const sb_world *world, const sb_constraint_break_event **events);
/// The kind's name ("rope", "strut", "angle", "area").
SB_API const char *sb_constraint_kind_name(sb_constraint_kind kind);

#ifdef __cplusplus
}
#endif

#endif
