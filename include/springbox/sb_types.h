// springbox core: public types shared by every module.
// Pure C11, no Lua, no SDL. Units are SI: metres, kilograms, seconds; y points up.
#ifndef SB_TYPES_H
#define SB_TYPES_H

#include "sb_api.h"

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// A 2D vector in metres (or metres per second).
typedef struct sb_vec2 { double x, y; } sb_vec2;

/// A world: owns particles, springs, walls and the solver state. Opaque.
typedef struct sb_world sb_world;

/// A particle handle: slot index plus generation. A handle to a removed particle
/// is stale and is rejected; it never points at a newer particle in the same slot.
typedef struct sb_particle_id { uint32_t index, generation; } sb_particle_id;

/// A spring handle, with the same staleness rules as particles.
typedef struct sb_spring_id { uint32_t index, generation; } sb_spring_id;

/// A static wall segment handle.
typedef struct sb_wall_id { uint32_t index, generation; } sb_wall_id;

/// The range of the world's numbers: particle coordinates (m) and velocities (m/s) are
/// accepted within it, per axis, and a particle that leaves it halts the world (a runaway:
/// at 1e12 m a double resolves only 0.1 mm, and no scene means to go there).
#define SB_MAX_COORD 1e12
#define SB_MAX_SPEED 1e12
/// A particle's angle counts this many turns either way; past them it goes back by whole turns.
#define SB_TURNS_KEPT 1048576

/// The null handle: generation 0 is never issued.
#define SB_NULL_INDEX UINT32_MAX

/// Result of an API call that can fail.
typedef enum sb_status {
    SB_OK = 0,
    SB_ERR_STALE,        ///< the handle names a removed (or never created) object
    SB_ERR_INVALID,      ///< an argument is out of range or not finite; see the bad field name
    SB_ERR_SAME_PARTICLE,///< a spring from a particle to itself
    SB_ERR_NO_MEMORY,    ///< allocation failed; the world is unchanged
    SB_ERR_HALTED,       ///< the world stopped on a non-finite value; see sb_stats
    SB_ERR_INTERRUPTED,  ///< the interrupt callback stopped the step; the frame was not taken
} sb_status;

/// How springs are solved. Each follows one article in docs/references.md (docs/methods.md).
typedef enum sb_method {
    SB_METHOD_FORCE = 0, ///< explicit Hooke forces, symplectic Euler (the "Mass spring algorithm" note)
    SB_METHOD_IMPULSE,   ///< Nissen's impulse spring, one Jacobi pass (Nissen's "Developing a rigid, stable spring")
    SB_METHOD_SEQUENTIAL,///< Nissen's sequential impulses with warm start (Nissen's "Stable Rigid Springs with Sequential Impulses")
    SB_METHOD_SOFT,      ///< Catto's soft constraints, sequential impulses (Catto's "Soft Constraints")
    SB_METHOD_VERLET,    ///< Verlet, projection, two-pass collide (Boesch's "Verlet collision with impulse preservation")
    SB_METHOD_XPBD,      ///< extended position based dynamics (springbox's own)
    SB_METHOD_COUNT
} sb_method;

/// How a spring's tuning is given. Every method converts it with the pair's
/// reduced mass and the sub-step (sb_tuning.h), so one tuning fits all methods.
typedef enum sb_tuning_mode {
    SB_TUNE_HERTZ = 0,   ///< frequency (Hz) and damping ratio; hertz 0 = rigid
    SB_TUNE_COEFFICIENTS,///< Nissen's stiffness Cs and damping Cd, both in [0,1]
    SB_TUNE_RAW,         ///< spring constant k (N/m) and damper c (N s/m)
} sb_tuning_mode;

/// A spring's tuning. Only the fields of `mode` are read.
typedef struct sb_tuning {
    sb_tuning_mode mode;
    double hertz, damping_ratio; ///< SB_TUNE_HERTZ
    double stiffness, damping;   ///< SB_TUNE_COEFFICIENTS: Cs, Cd
    double k, c;                 ///< SB_TUNE_RAW
} sb_tuning;

/// An axis-aligned box, used for the optional world bounds.
typedef struct sb_bounds { double xmin, ymin, xmax, ymax; } sb_bounds;

/// Everything needed to create a world. Start from sb_default_world_def().
typedef struct sb_world_def {
    sb_vec2 gravity;       ///< m/s^2
    double dt;             ///< seconds per frame (one sb_world_step)
    int substeps;          ///< sub-steps per frame, >= 1
    int iterations;        ///< solver iterations per sub-step, >= 1
    sb_method method;
    double warmstart;      ///< sequential: warm start fraction in [0,1]
    double correction;     ///< sequential: correction factor in (0,1]
    bool collisions;       ///< particle-particle collisions on/off
    double restitution;    ///< default restitution in [0,1]
    double restitution_threshold; ///< m/s: slower approaches do not bounce (Box2D v3's restitutionThreshold); scale it with the scene
    double friction;       ///< default Coulomb friction, >= 0
    double rolling_resistance; ///< default rolling resistance of particles that roll, >= 0 (0: none)
    bool has_bounds;       ///< confine particles to `bounds`
    sb_bounds bounds;
    bool verlet_preserve_impulse; ///< verlet: run the article's impulse-preserving pass
    bool tethers;          ///< bound each particle's distance to its nearest fixed particle by its
                           ///< rigid-spring path (long range attachments; see tether.c)
    bool has_region;       ///< report particles with events that leave `region` (it does not confine)
    sb_bounds region;
    int threads;           ///< threads that step it, 1..64, default 1: the results are the same bits for any count
} sb_world_def;

/// Whether a particle turns: friction at its surface spins it, so a ball rolls down a
/// slope and a column of balls falls over instead of standing on friction.
typedef enum sb_rolling {
    SB_ROLLING_AUTO = 0, ///< rolls while no spring or constraint joins it (beads of ropes and cloths do not)
    SB_ROLLING_ON,       ///< always rolls
    SB_ROLLING_OFF,      ///< never turns: friction acts on its centre alone
} sb_rolling;

/// Everything that describes a particle. Start from sb_default_particle_def().
typedef struct sb_particle_def {
    sb_vec2 position, velocity;
    double mass;           ///< kg, > 0 (kept while fixed, used when unfixed)
    double radius;         ///< m, >= 0; 0 means a point that never collides with particles
    bool fixed;            ///< infinite mass; moves only if given a velocity
    bool collide;          ///< takes part in particle-particle collisions
    double restitution;    ///< < 0: use the world default
    double friction;       ///< < 0: use the world default
    sb_rolling rolling;    ///< default SB_ROLLING_AUTO
    double angle;          ///< rad, counter-clockwise: how far it has turned, within SB_TURNS_KEPT turns (only drawn; nothing depends on it)
    double angular_velocity; ///< rad/s, counter-clockwise; a fixed particle keeps it (a driven wheel)
    double inertia;        ///< moment of inertia over m r^2, in (0, 100]: 0.5 a solid disc (default), 0.4 a ball, 1 a ring
    double rolling_resistance; ///< < 0: use the world default; a torque of up to this times the normal force times the radius
    /// Collision filtering with Box2D's rules: two particles of the same non-zero group always
    /// collide (group > 0) or never do (group < 0); otherwise they collide when each one's
    /// category has a bit in the other's mask. Walls and bounds meet every particle.
    int32_t group;
    uint32_t category;     ///< default 1
    uint32_t mask;         ///< default all bits
    bool events;           ///< report its contacts' begin and end (sb_world_contact_events)
    uint32_t color;        ///< 0xRRGGBBAA for a host that draws; 0 = the host's own colour
    bool hidden;           ///< a host that draws leaves it out
} sb_particle_def;

/// Everything that describes a spring. Start from sb_default_spring_def().
typedef struct sb_spring_def {
    sb_particle_id a, b;
    double rest_length;    ///< m; < 0 means the current distance between a and b
    sb_tuning tuning;
    bool collide;          ///< its ends still collide with each other (Box2D's collideConnected); default false
    bool solid;            ///< particles and walls' corners collide with it as a capsule of its ends' radii; default false
    double break_stretch;  ///< > 0: the spring breaks (is removed) once |length - rest| / rest passes it
    double break_force;    ///< > 0: the spring breaks once the pull it carries passes it (N)
    bool break_push;       ///< a push past break_force breaks it too; default false (a pull only)
    uint32_t color;        ///< 0xRRGGBBAA for a host that draws; 0 = the host's own colour
    bool hidden;           ///< a host that draws leaves it out
} sb_spring_def;

/// A contact that began or ended in the last step, between a particle that asked for events
/// (sb_particle_def.events) and another particle or a wall. For a wall `b` is null and `wall`
/// names it; for the world's bounds both are null.
typedef struct sb_contact_event {
    sb_particle_id a, b;
    sb_wall_id wall;
    sb_vec2 point;         ///< where it touches: a's surface toward b (or the wall), m
    sb_vec2 normal;        ///< unit, from a toward b (or the wall)
    double speed;          ///< m/s at which they closed along the normal when the step began (0 if parting)
} sb_contact_event;

/// A spring that broke in the last step: it is already removed; its ends and what broke it stay.
typedef struct sb_break_event {
    sb_spring_id spring;
    sb_particle_id a, b;
    double stretch;        ///< |length - rest| / rest when it broke
    double force;          ///< the force it carried, N (positive pulls)
    double rest_length;    ///< m, as it was
    sb_tuning tuning;      ///< as it was
} sb_break_event;

/// What the last step measured. Energies in joules.
typedef struct sb_stats {
    uint64_t steps;           ///< frames stepped so far
    double time;              ///< simulated seconds
    double kinetic_energy;
    double potential_energy;  ///< gravity (relative to y = 0) plus elastic energy of non-rigid springs
    double max_stretch;       ///< largest |length - rest| / rest over springs
    int max_stretch_spring;   ///< slot of that spring, -1 if none
    int contacts;             ///< touching contacts in the last sub-step
    double step_ms;           ///< wall-clock time of the last step
    int threads;              ///< threads the last step ran on: def.threads, or 1 where the machine could not start them
    int particles, springs;
    int broken_springs;       ///< springs that broke in the last step (sb_world_break_events)
    uint64_t broken_springs_total; ///< springs that broke since the world was made
    int clamped_constraints;  ///< constraints (sb_constraint.h) the method cannot deliver as tuned, as clamped_springs
    /// springs this method cannot deliver as tuned at this sub-step (a frequency past four
    /// sub-steps per period, a Nissen coefficient past 1, an explicit network past its stable
    /// limit, an implicit one past its energy bound): each runs at the nearest setting it can
    int clamped_springs;
    sb_spring_id clamped_spring;          ///< the clamped spring furthest from its tuning
    double clamped_asked_hertz, clamped_asked_damping_ratio; ///< what it asks for
    double clamped_hertz, clamped_damping_ratio;             ///< what the method delivers
    bool clamped_settling;    ///< that spring is in a retune: it delivers the ramp's settling damping for now
    /// measured once, at the first step: pairs of particles not joined by a spring that start
    /// overlapping (by more than 1% of the smaller radius); contacts will push them apart
    int overlapping_pairs;
    double worst_overlap;                 ///< m, the deepest of them
    sb_particle_id overlap_a, overlap_b;  ///< the pair that overlaps most
    /// the same for particles that start inside a wall (by more than 1% of their radius)
    int overlapping_walls;
    double worst_wall_overlap;            ///< m, the deepest of them
    sb_particle_id wall_overlap_particle; ///< the particle deepest in a wall
    sb_wall_id overlap_wall;              ///< and that wall
    /// non-finite containment: on a non-finite value, or a particle past SB_MAX_COORD or
    /// SB_MAX_SPEED (a runaway), the world stops and keeps its last good state
    bool halted;
    sb_particle_id bad_particle;
    sb_spring_id bad_spring;  ///< the most stretched spring on bad_particle, if any
    char message[160];
} sb_stats;

#ifdef __cplusplus
}
#endif

#endif
