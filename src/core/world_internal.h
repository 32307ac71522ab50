// springbox core internals: the world's structure-of-arrays storage (struct sb_world), built from
// parts, each with its own header: the helpers (world_math.h), contacts and walls
// (contact_internal.h), the broad phase (broad_phase_internal.h),
// methods and the sub-step (method_internal.h), constraints (constraint_internal.h), structures of
// rigid links (structures_internal.h), what happens around a step (step_internal.h) and the
// generations (generations_internal.h). Including this includes them all.
#ifndef SB_WORLD_INTERNAL_H
#define SB_WORLD_INTERNAL_H

#include "broad_phase_internal.h"
#include "constraint_internal.h"
#include "contact_internal.h"
#include "generations_internal.h"
#include "method_internal.h"
#include "sb_pool.h"
#include "sb_tuning.h"
#include "sb_world.h"
#include "step_internal.h"
#include "structures_internal.h"
#include "world_math.h"

#include <math.h>
#include <string.h>
#include <stddef.h>

enum { PARTICLE_ALIVE = 1, PARTICLE_FIXED = 2, PARTICLE_COLLIDE = 4, PARTICLE_EVENTS = 8, PARTICLE_HIDDEN = 16 };

/// A change blending in over simulated time (retune.c): a spring's rest length and tuning (with
/// settling damping), a particle's mass, or the gravity.
typedef enum { SB_RAMP_SPRING, SB_RAMP_MASS, SB_RAMP_GRAVITY } sb_ramp_kind;
typedef struct sb_ramp {
    sb_ramp_kind kind;
    uint32_t index, generation; // the spring or particle
    sb_vec2 from, to;           // rest lengths and masses in .x; gravity as vectors
    sb_tuning tuning;           // SB_RAMP_SPRING: the target tuning, before settling damping
    double seconds, elapsed;
} sb_ramp;

/// The least work a thread takes in a split pass (sb_pool.h): waking a worker costs about what
/// this many items do, so a smaller range runs on the caller; small enough that a pile's colours
/// of a few hundred contacts still split.
enum { CONTACTS_PER_THREAD = 128, SPRINGS_PER_THREAD = 256, PARTICLES_PER_THREAD = 1024 };

/// The drag constraint on one particle (drag.c).
typedef struct sb_drag {
    bool active;
    sb_particle_id id;
    sb_vec2 target;
    double hertz, damping_ratio;
} sb_drag;

/// A world: its particles and springs as slot arrays (structure of arrays), and its parts, each
/// declared beside the files that keep it. Snapshots (snapshot.c) copy what a moment holds and
/// leave out the parts a step rebuilds.
struct sb_world {
    sb_world_def def;
    struct sb_pool *pool;     // the worker threads of def.threads > 1 (pool.c); a machine resource, not state:
                              // snapshots leave it out and a restore keeps the world's own
    int pool_asked;           // the def.threads the pool was last started for: a machine that cannot start
                              // them (a browser's workers all taken) is not asked again every step

    // Particles: slot arrays, dead slots reused through a free list.
    int p_cap, p_high, p_alive, p_free;
    sb_vec2 *pos, *vel;
    double *mass, *inv_mass, *radius, *restitution, *friction;
    // Rolling: each particle's turn and spin, its inertia as a fraction of m r^2, its
    // sb_rolling mode and rolling resistance (< 0: the world's).
    double *angle, *omega, *inertia, *rolling_resistance;
    uint8_t *p_rolling;
    uint32_t *p_gen;
    sb_generations p_gens;    // the generations the particle slots have handed out: not restored
    uint8_t *p_flags;
    int *p_next_free;
    int *degree;              // springs attached to each particle
    sb_vec2 *force;           // sb_particle_apply_force: acts on each sub-step of the next step
    int32_t *group;           // collision filter (sb_particle_def.group, category, mask)
    uint32_t *category, *mask;
    uint32_t *color;          // for hosts that draw
    int event_particles;      // live particles with PARTICLE_EVENTS
    bool forces_pending;      // some force is non-zero

    // Springs: slot arrays, same scheme.
    int s_cap, s_high, s_alive, s_free;
    int *s_a, *s_b;           // particle slots; -1 for a dead slot
    double *rest;
    sb_tuning *tuning;
    uint8_t *s_collide;       // sb_spring_def.collide: the ends still collide
    uint8_t *s_solid;         // sb_spring_def.solid: a capsule other particles collide with
    int solid_springs;        // how many live springs are solid
    uint8_t *s_rigid;         // sb_tuning_is_rigid(&tuning[s]), kept with it: the per-step loops
                              // read one byte instead of the 64-byte tuning
    uint32_t *s_gen;
    sb_generations s_gens;    // the generations the spring slots have handed out: not restored
    int *s_next_free;
    double *impulse;          // accumulated impulse (warm start), N s
    double *tension;          // force of the last sub-step, N, positive pulls (sb_spring_force)
    double *break_stretch, *break_force; // 0: never breaks
    uint8_t *break_push;                 // a push past break_force breaks it too
    uint32_t *s_color;
    uint8_t *s_hidden;
    int breakable_springs;    // live springs with a break threshold
    sb_vec2 *axis_prev;       // axis of the sub-step that stored `impulse`
    int s_pair_dirty;
    uint64_t *pair_keys;      // sorted (min,max) particle pairs joined by springs
    int pair_count;

    // The parts.
    sb_spring_pack pack;          // the springs in solver order, packed for the methods (method_internal.h)
    sb_rigid_graph rigid;         // tethers and bending beads of the rigid springs (structures_internal.h)
    sb_constraints constraints;   // ropes, struts, angles and areas (constraint_internal.h)
    sb_walls walls;               // (contact_internal.h)
    sb_contact_lists contact;     // the committed contacts and this step's (contact_internal.h)
    sb_broad_phase broad;         // the grid, the pairs list and the stops' scratch (broad_phase_internal.h)
    sb_step_scratch scratch;      // per-particle arrays a step writes before it reads (step_internal.h)
    sb_events events;             // what the last step began, ended and broke (step_internal.h)
    sb_energy_ledger ledger;      // the explicit methods' energy watch (step_internal.h)
    sb_drag drag;

    bool (*interrupt)(void *ud); // sb_world_set_interrupt
    void *interrupt_ud;

    sb_ramp *ramps;           // retune.c, advanced at the start of each step
    int ramp_count, ramp_cap;

    // Groups tuned as one structure (structure_record.c): the world's, not a moment's, so
    // snapshots leave them out and a restore keeps them.
    struct sb_structure_record *structures;
    int structure_count, structure_cap;

    sb_method last_method;
    sb_stats stats;
};

static inline bool particle_alive(const sb_world *w, int i) { return (w->p_flags[i] & PARTICLE_ALIVE) != 0; }

/// The rigid springs, their breakability or the fixed particles changed: the tethers are built
/// again, and what articulation.c keeps of the structures is stale.
static inline void rigid_graph_changed(sb_world *w)
{
    w->rigid.tethers_dirty = true;
    w->rigid.version += 1;
}

// world.c
void world_free_storage(sb_world *w); // every array a world owns, not the struct (snapshot.c)

// world.c: gravity and the drag constraint as a velocity kick of one sub-step.
void apply_gravity_and_drag(sb_world *w, double h);

// ---------------------------------------------------------------- shared by the world's files

/// The energy of a particle's spin, 1/2 I omega^2 with I = inertia m r^2 (rolling, contact_solver.c).
double particle_spin_energy(const sb_world *w, int i);
int particle_slot(const sb_world *w, sb_particle_id id);
/// The drag is one soft point constraint on one particle, solved exactly once per
/// sub-step: with gamma and beta from Catto's "Soft Constraints" the velocity update equals implicit
/// Euler of a spring-damper toward the target, so it is stable at any frequency.
void drag_apply(sb_world *w, double h);
#endif
