// Articulated structures' shared parts: the structures and their links (articulation.c finds
// them and orders their passes) and one direct solve of a structure with its contacts
// (articulation_solve.c).
#ifndef ARTICULATION_INTERNAL_H
#define ARTICULATION_INTERNAL_H

#include "world_internal.h"

/// Contacts a structure solves together; further ones are solved as the others are.
enum { STRUCTURE_CONTACTS_MAX = 32, ROWS_MAX = 2 * STRUCTURE_CONTACTS_MAX };
/// The springs one contact row can meet: three particles' (a particle with more is cut there).
enum { ROW_LINKS_MAX = 48 };
/// A rigid spring of a structure: its ends' indices in the structure (-1: a fixed end), their
/// world slots, its spring slot, its rest length, its unit axis a -> b at the last solve, and the
/// impulse the structure's solves gave it in this sub-step (negative: a pull, as ktension).
typedef struct art_link {
    int a, b, slot_a, slot_b, spring;
    double rest;
    sb_vec2 u;
    double impulse;      // the structure's solves' in this sub-step
    double step_impulse; // its own passes' and the solves' in this step's sub-steps
    int kernel;          // its packed index (solver.c), found at the first sub-step's end
} art_link;

/// A contact's row, its normal or its tangent: up to three particles with their gradients (along
/// x, y and the spin) and their index in the structure (-1: not in it).
typedef struct art_row { int count, slot[3], local[3]; double gx[3], gy[3], gw[3]; } art_row;

typedef struct art_structure {
    int first_particle, particle_count; // art->particles (world slots), breadth-first
    int first_link, link_count;         // art->links, breadth-first
    int band;                           // A's half-bandwidth in that order
    int first_factor;                   // art->factor: link_count * (band + 1)
    bool usable;                        // small enough to factor
    bool whole;                         // has a spring solved whole (spring_solved_whole): every sub-step, contacts or none
    int contact_count;                  // marked this step (articulations_find)
    double shortest;                    // its shortest spring's rest length
    double max_move;                    // the most a Newton step moves a particle (structure_solve)
} art_structure;

struct sb_articulations {
    art_structure *structures;
    int structure_count, structure_cap;
    int *particles, particle_count, particle_cap;
    art_link *links;
    int link_count, link_cap;
    int *incident_first, incident_first_cap; // per structure particle_count + 1: its links in `incident`
    int *incident, incident_cap;
    double *factor;
    int factor_count, factor_cap;
    // per world particle slot: its structure this step (-1: none) and its index there
    int *structure_of, *local_of, slots_cap;
    // the world's rigid springs by particle (compressed rows), rebuilt each step it is needed
    int *adj_first, *adj_spring, adj_first_cap, adj_spring_cap;
    // a solve's scratch: B and A^-1 B (links x rows), the links' right side, a motion per slot
    double *b, *y, *z;
    int b_cap, y_cap, z_cap;
    sb_vec2 *move; // per structure particle: a Newton step's move
    int move_cap;
    sb_vec2 *motion;
    int motion_cap;
    // per spring slot: its link (-1: none), to find the links' packed indices; sub-steps summed
    int *link_of_spring, link_of_spring_cap;
    bool kernels_found;
    int substeps_done;
    // rigid.version + 1 when the world's breakable springs were last found to be in no
    // structure small enough to solve (0: not known): a tearable cloth is not walked every step
    uint64_t none_solvable_at;
    // a position pass's particles, where they started, and where its last step started
    int *moved;
    sb_vec2 *origin, *step_from;
    double *turn_from;
    int moved_cap;
};

/// What the solve works on: the velocities and spins, or the positions and turns (a position
/// pass turns the moves into velocity itself, from the whole of them: project_positions).
typedef struct solve_input {
    sb_vec2 *x;
    double *spin;         // NULL: spins take no part
    // positions: the targets are the rows' errors to undo (-C), not values of J x to reach
    bool errors;
    // the position methods' friction: the tangent rows target the slide since these positions
    // and turns (the sub-step's start); NULL: the tangent rows target no slip of x itself
    const sb_vec2 *slide_from;
    const double *spin_from;
} solve_input;

/// A = L W L^T of structure `id` at the positions now, in band storage, factored (Cholesky).
void articulation_factor(sb_world *w, sb_articulations *art, int id);
/// One direct solve of structure `id` with its m contact rows (articulation_solve.c).
bool articulation_solve(sb_world *w, sb_articulations *art, int id, const solve_input *in, const art_row *rows, int m,
                        const double *target_links, const double *target_rows, const double *mu, double *lambda);
/// The normal and tangent rows of contact c (its geometry found).
void articulation_contact_rows(const sb_world *w, const sb_articulations *art, int id, const sb_contact *c, art_row *rn,
                               art_row *rt);
/// The row's gradient dotted with positions or velocities x (and spins, where given).
double articulation_row_dot(const sb_world *w, const art_row *r, const sb_vec2 *x, const double *spin);

#endif
