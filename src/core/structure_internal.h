// What structure.c and structure_delivery.c share: a group of springs built for its modes
// (its springs, moving particles, and the band of its mass-normalised stiffness matrix), and the
// measurement of what the stepped world delivers of its mode.
#ifndef SB_STRUCTURE_INTERNAL_H
#define SB_STRUCTURE_INTERNAL_H

#include "sb_structure.h"

#include <stdbool.h>

typedef struct element {
    int a, b;             // degrees of freedom of the ends' x (y is the next); -1 where held
    double nx, ny;        // unit direction from a to b
    double along, across; // k, and T / l
    double damping;       // c along the axis
} element;

typedef struct structure {
    const sb_world *world;
    sb_spring_id *ids;     // the group, each once
    sb_spring_id *other_ids; // the springs outside the group that reach its moving particles
    double *k;             // each group spring's stiffness now
    element *group, *others;
    int group_count, other_count;
    double *mass;          // per degree of freedom (each particle's twice)
    sb_particle_id *moving;// per particle, in degree-of-freedom order
    int particles, n, b;   // moving particles, degrees of freedom (2 each), half-bandwidth
    double *ag, *ao;       // the group's part of A at scale 1 and the others', lower band: row i, i - j at (b + 1) i + i - j
    double *work, *diag;   // a band for the factors, and their pivots
    double *x, *y, *t;     // vectors of n
    bool interrupted;
} structure;

void structure_free(structure *s);

/// What a world steps of a structure's mode: its natural frequency and damping ratio read off the
/// motion, and whether it could be read; a mode that ran away is read, at 0 Hz.
typedef struct structure_trial { double hertz, zeta; bool read, ran_away; } structure_trial;

/// Measures the mode in s->y as `def` steps it with the group's springs at scale and beta (c =
/// beta k): a copy of the structure alone (its moving particles at rest where they are, what
/// holds them fixed, the springs outside the group as they are) is run twice, plucked along the
/// mode and not, and the difference read. False if the world's interrupt stopped it.
bool structure_measure(structure *s, const sb_world_def *def, double scale, double beta, double asked_hertz,
                       structure_trial *out);
/// Brings what the stepped world delivers to the asked mode: measures at *scale and *beta (the
/// continuous-time tune), and corrects both from what it measures until the mode is within 1% and
/// 0.005 or no correction helps; where it stays out of 3% or 0.01, finds the sub-steps that would
/// deliver it. *delivery says what was found. False if the world's interrupt stopped it.
bool structure_deliver(structure *s, double hertz, double zeta, double *scale, double *beta, sb_structure_delivery *delivery);

#endif
