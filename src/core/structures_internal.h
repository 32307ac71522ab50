// Structures of rigid links: a heavy particle's contacts with a light structure solved with it
// (articulation.c), and the long range attachments that hold chains to their fixed particles
// (tether.c).
#ifndef SB_STRUCTURES_INTERNAL_H
#define SB_STRUCTURES_INTERNAL_H

#include "sb_types.h"

#include <stdint.h>

/// What the world keeps of its rigid springs' graph: the tethers (tether.c), each particle's
/// nearest fixed particle and the rigid path's length to it, and the bending beads (bending.c).
typedef struct sb_rigid_graph {
    int *tether_p, *tether_anchor, tether_count;
    double *tether_length;
    bool tethers_dirty;
    uint64_t version;         // counts the changes rigid_graph_changed records (articulation.c's cache)
    int *bend_beads;          // each bead of two rigid springs, with the two (3 ints each)
    int bend_count, bend_cap;
    uint64_t bend_version;    // version + 1 when the beads were found (0: to find)
} sb_rigid_graph;

// articulation.c: a heavy particle's contacts with a light structure of rigid springs.
/// Marks this step's articulated contacts (contact.next, before the colours) and finds their structures.
void articulations_find(sb_world *w);
/// This step has articulated contacts (after articulations_find).
bool articulations_any(const sb_world *w);
/// The velocity methods' contact pass over the articulated contacts (after every other contact):
/// each structure's rigid springs and its contacts solved together for the velocities now.
void articulations_solve_velocities(sb_world *w, double h, bool use_bias);
/// The position methods' contact pass over them: one Newton step of each structure's rigid
/// springs and its contacts at the positions now. keep_motion: the moves change pos and prev alike.
void articulations_project(sb_world *w, double h, bool keep_motion);
/// The velocity methods' position sweep over them, after integrating (rigid_springs_project's):
/// one Newton step of each structure's springs and contacts on positions alone.
void articulations_sweep(sb_world *w, double h);
/// verlet's second pass, after articulations_project(keep_motion): the contacts' exchange on the
/// motion pos - prev (inelastic, with friction), through the structures.
void articulations_exchange_motion(sb_world *w, double h);
/// A sub-step begins: the structures' springs have given no impulse in it yet.
void articulations_begin_substep(sb_world *w);
/// A sub-step ends: each solved structure's springs add what it gave them, their own passes' and
/// the structure's solves', to the step's sum.
void articulations_end_substep(sb_world *w);
/// After springs_unpack: each solved structure's springs carry the step's mean force, their own
/// passes' and the structure's solves' (sb_spring_force, breaking).
void articulations_add_tension(sb_world *w, double h);
void articulations_free(sb_world *w);
/// Particle i is in a structure that is solved directly this step (its tethers wait: they would
/// move it without the heavy particle on it).
bool articulation_holds(const sb_world *w, int i);

// tether.c: long range attachments, and the rigid links they (and articulation.c) follow.
/// A rope's internal damping (bending.c): each bead's bend damped at its links' damping ratio.
void links_damp_bending(sb_world *w, double h);

/// A link of tethers and structures: a spring that is rigid and unbreakable.
bool spring_is_rigid_link(const sb_world *w, int s);
/// The rigid links by particle, compressed rows: particle i's are (*links)[(*first)[i] ..
/// (*first)[i + 1]), spring slots in slot order; the arrays grow as needed. With `breakable_too`
/// the breakable rigid springs are taken as well. False when memory is short.
bool rigid_links_by_particle(const sb_world *w, bool breakable_too, int **first, int *first_cap, int **links, int *links_cap);
void tethers_build(sb_world *w);
void tethers_project(sb_world *w, bool velocities);

#endif
