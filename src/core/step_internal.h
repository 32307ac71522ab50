// What happens around a step: events and breaks after it (events.c), the ramps that blend a
// retune in (retune.c), and the energy ledger that watches the explicit methods (ledger.c).
#ifndef SB_STEP_INTERNAL_H
#define SB_STEP_INTERNAL_H

#include "sb_types.h"

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
