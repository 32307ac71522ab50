// The constraints' part of the world (constraint.c): ropes, struts, angles and areas, one entry
// per place a method's sub-step solves them.
#ifndef SB_CONSTRAINT_INTERNAL_H
#define SB_CONSTRAINT_INTERNAL_H

#include "generations_internal.h"
#include "sb_constraint.h"
#include "sb_tuning.h"
#include "sb_types.h"

/// The constraints: slot arrays, dead slots reused through a free list.
typedef struct sb_constraints {
    int cap, high, alive, free_head;
    uint8_t *kind;            // sb_constraint_kind; 0xFF for a dead slot
    uint8_t *solid;           // a solid rope or strut (sb_constraint_def.solid)
    int solid_count;          // how many live ones are solid
    double *break_stretch;    // > 0: breaks past it (ropes, struts; events.c)
    int breakable;
    sb_constraint_break_event *break_events;
    int break_count, break_cap;
    int **parts, *part_count; // particle slots
    double *rest;
    sb_tuning *tuning;
    uint32_t *gen;
    sb_generations gens;      // the generations the slots have handed out: not restored
    int *next_free;
    double *load;             // its network load, added to p_load with the springs' (solver.c)
    // this sub-step: value error, effective mass, constants, gradients, accumulated impulse
    double *err, *meff, *stiff, *damp, *scale, *target, *lambda;
    uint8_t *active;          // solved this sub-step (a slack rope or strut is not)
    sb_vec2 *grad;            // gradients of every constraint, grad_first[c] onward
    int *grad_first, grad_cap;
    sb_vec2 *scratch;         // gradients at the current positions (the position-level passes)
    int scratch_cap;
} sb_constraints;

// constraint.c: the constraints' sub-step, one entry per place a method solves them.
/// Gradients, errors, effective masses and the method's constants of every constraint for this
/// sub-step (positions as they are now); accumulated impulses start at zero.
void constraints_begin_substep(sb_world *w, double h);
/// force, impulse and verlet: explicit impulses from the velocities before the pass (Jacobi), of
/// the tuned ones (before the sub-step's kicks) and of the rigid ones (after them; not verlet's).
void constraints_explicit_tuned_pass(sb_world *w, double h);
void constraints_explicit_rigid_pass(sb_world *w, double h);
/// sequential: the rest velocity of Nissen's "Stable Rigid Springs with Sequential Impulses", then one corrective iteration.
void constraints_sequential_prepare(sb_world *w, double h);
void constraints_sequential_iterate(sb_world *w, double h);
/// soft: one sequential-impulse iteration of the soft constraint; the relax of rigid ones.
void constraints_soft_iterate(sb_world *w, double h);
void constraints_soft_relax(sb_world *w, double h);
/// Rigid ones by positions, non-linear Gauss-Seidel (verlet's projection, the velocity methods'
/// position sweeps), with a slop as a fraction of the rest value's scale.
void constraints_project_rigid(sb_world *w, double slop, bool one_sided_only);
/// verlet's iteration: every rigid one projected exactly (no slop).
void constraints_project_rigid_pass(sb_world *w, double h);
/// xpbd: one iteration of every constraint at position level.
void constraints_xpbd_iterate(sb_world *w, double h);
/// The network loads of the constraints, added to w->scratch.p_load (solver.c's compute_coefficients).
void constraints_add_loads(sb_world *w, double h);
/// Ropes and struts past their break_stretch go, as events (after a committed step, events.c).
void constraints_break(sb_world *w);
/// Removes every constraint that holds particle slot i.
void constraints_remove_particle(sb_world *w, int i);
void constraints_free(sb_world *w);
/// The constraint slots both worlds have hold the same kinds over the same particles, and (`exactly`)
/// neither has more (sb_world_can_copy_state, sb_world_can_carry_state).
bool constraints_same_shape(const sb_world *a, const sb_world *b, bool exactly);

#endif
