// What happens around a step: the scratch it writes before it reads, events and breaks after it
// (events.c), the ramps that blend a retune in (retune.c), and the energy ledger that watches the
// explicit methods (ledger.c).
#ifndef SB_STEP_INTERNAL_H
#define SB_STEP_INTERNAL_H

#include "sb_types.h"

/// Per-particle and per-spring arrays a step writes before it reads: a snapshot leaves them out
/// and a restore zeroes them. Sized with the particles (p_cap) or springs (s_cap).
typedef struct sb_step_scratch {
    sb_vec2 *prev;            // start-of-sub-step positions (verlet, xpbd)
    sb_vec2 *start;           // positions at the start of the sub-step (walls_hold_centres)
    double *hold_frac;        // walls_hold_centres' earliest crossing along each path, and
    int *hold_wall;           // the wall it crosses there (-1: none)
    sb_vec2 *dv;              // Jacobi accumulator (force, impulse)
    double *reach;            // how far each particle can move toward a contact in a frame (contacts_build)
    double *inv_inertia;      // 1 / I of each particle that rolls in this step, else 0 (contacts_build)
    double *angle_prev;       // angles at the start of the sub-step (the position orders)
    bool spinning;            // some particle rolls or spins in this step (contacts_build)
    double *p_load;           // each particle's stability load (solver.c)
    uint64_t *contact_mask;   // the colours each particle has a contact in (contacts_color)
    // The state at the start of the step, for non-finite containment (solver.c): positions,
    // velocities, (angle, omega) of the particles; axes and impulses of the springs.
    sb_vec2 *snap_pos, *snap_vel, *snap_spin, *snap_axis;
    double *snap_impulse;
} sb_step_scratch;

/// Events of the last step (events.c): touching contacts of particles that asked, sorted by
/// contact key, and what began, ended and broke.
typedef struct sb_events {
    uint64_t *touch_keys;
    sb_contact_event *touch_events;
    int touch_count, touch_cap;
    sb_contact_event *begin_events, *end_events;
    int begin_count, end_count, begin_cap, end_cap;
    sb_break_event *break_events;
    int break_count, break_cap;
    uint8_t *outside;          // per particle slot: it was outside the region at the last step
    int outside_cap;
    sb_particle_id *leave_events;
    int leave_count, leave_cap;
} sb_events;

/// The energy ledger of the methods with explicit springs (ledger.c).
typedef struct sb_energy_ledger {
    bool tracking;             // an undisturbed run is being watched
    double excess;             // J gained beyond gravity and the applied forces' work, floored at 0
    double scale;              // J: the run's energy scale (ledger_end)
    double gravity_start, released; // J: gravity's energy when the run began; the most it released
} sb_energy_ledger;

// events.c: after a committed step, springs past their break thresholds go, and the touching
// contacts of particles that asked for events are compared with the last step's.
void events_after_step(sb_world *w);
/// No step was taken (a halted world): nothing happened in it, so no event is reported again.
void events_clear(sb_world *w);
void events_free(sb_world *w);
/// Frees a spring slot (world.c), for breaking.
void world_free_spring_slot(sb_world *w, int s);

// retune.c
void ramps_advance(sb_world *w);                       // one step of dt into every ramp
bool ramps_copy(sb_world *dst, const sb_world *src);   // same slots (sb_world_copy_state)

/// The step's own energy (below), and the ledger's scale. With `damping`, also the change the
/// step's damping makes to it (below), from the state before the step.
double ledger_energy(sb_world *w, double *scale, double *gravity_energy, bool *kinematic, double *damping);
/// Whether this step can be watched: explicit springs with a tuning, and nothing that does work
/// the ledger does not count. Returns the energy before the step in *energy.
bool ledger_begin(sb_world *w, double *energy, double *scale, double *gravity_energy, double *damping);
/// The work of the applied forces over the step (they are constant through it).
double applied_work(const sb_world *w);
/// Adds the step's made energy; true when the run has made more than its bound (then halted).
bool ledger_end(sb_world *w, double before, double after, double scale, double gravity_before, double gravity_after, double work, double damping);

#endif
