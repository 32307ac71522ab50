// springbox core internals: the world's structure-of-arrays storage (struct sb_world), built from
// parts, each with its own header: the helpers (world_math.h), contacts (contact_internal.h),
// methods and the sub-step (method_internal.h), constraints (constraint_internal.h), structures of
// rigid links (structures_internal.h), what happens around a step (step_internal.h) and the
// generations (generations_internal.h). Including this includes them all.
#ifndef SB_WORLD_INTERNAL_H
#define SB_WORLD_INTERNAL_H

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

/// The step's articulated contacts and the structures they push on (articulation.c).
typedef struct sb_articulations sb_articulations;
struct sb_world {
    sb_world_def def;
    struct sb_pool *pool;     // the worker threads of def.threads > 1 (pool.c); a machine resource, not state:
                              // snapshots leave it out and a restore keeps the world's own
    int pool_asked;           // the def.threads the pool was last started for: a machine that cannot start
                              // them (a browser's workers all taken) is not asked again every step

    // Particles: slot arrays, dead slots reused through a free list.
    int p_cap, p_high, p_alive, p_free;
    sb_vec2 *pos, *vel;
    sb_vec2 *prev;            // scratch: start-of-sub-step positions (verlet, xpbd)
    sb_vec2 *start;           // scratch: positions at the start of the sub-step (walls_hold_centres)
    double *hold_frac;        // scratch: walls_hold_centres' earliest crossing along each path, and
    int *hold_wall;           //          the wall it crosses there (-1: none)
    sb_vec2 *dv;              // scratch: Jacobi accumulator (force, impulse)
    double *reach;            // scratch: how far each particle can move toward a contact in a frame (contacts_build)
    double *mass, *inv_mass, *radius, *restitution, *friction;
    // Rolling: each particle's turn and spin, its inertia as a fraction of m r^2, its
    // sb_rolling mode and rolling resistance (< 0: the world's).
    double *angle, *omega, *inertia, *rolling_resistance;
    uint8_t *p_rolling;
    double *inv_inertia;      // scratch: 1 / I of each particle that rolls in this step, else 0 (contacts_build)
    double *angle_prev;       // scratch: angles at the start of the sub-step (the position orders)
    bool spinning;            // some particle rolls or spins in this step (contacts_build)
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

    // Solver order: live springs grouped by graph colour, so that consecutive springs of a
    // colour share no particle and the CPU can overlap them (Gauss-Seidel in any order is
    // still Gauss-Seidel). Rebuilt when springs are added or removed.
    int *order, order_count, colors;
    int color_start[65];      // order positions where each colour begins; [colors] = order_count
    bool order_dirty;
    // Packed per order position k, filled at the start of each step (sb_world_step) and
    // written back at its end, so the solver loops read memory in order, without branches.
    int *ka, *kb;
    double *kwa, *kwb;        // inverse masses of the ends
    double *kmass;            // reduced mass 1/(wa + wb), 0 when both are fixed
    double *krest;
    double *kux, *kuy;        // axis a -> b of this sub-step
    double *kpux, *kpuy;      // axis that stored the warm start
    double *ksep;             // length - rest of this sub-step
    double *kturn;            // h / (2 rest length), for a rigid spring's rigid_turn_rate
    // The method's discrete constants of each spring (spring_coef; the method's file says what
    // each means). Kept between steps and recomputed by solver.c when a tuning, a mass, the
    // order, the method or the sub-step changes.
    double *kstiff, *kdamp, *kscale;
    double *kg;               // per-method value of this sub-step (bias, target, ...)
    double *kimp;             // accumulated impulse (warm start), N s
    double *ktension;         // impulse the spring gave in this sub-step, N s, positive pushes apart
    uint8_t *krigid;
    bool coef_dirty;
    double coef_h;
    sb_method coef_method;
    double *p_load;           // scratch: each particle's stability load (solver.c)
    sb_stats clamp_report;    // the clamped_* fields of the stats, from the last recompute
    int s_pair_dirty;
    uint64_t *pair_keys;      // sorted (min,max) particle pairs joined by springs
    int pair_count;

    // Tethers (tether.c): particle, its nearest fixed particle, and the rigid-path length.
    int *tether_p, *tether_anchor, tether_count;
    double *tether_length;
    bool tethers_dirty;
    uint64_t rigid_graph_version; // counts the changes rigid_graph_changed records (articulation.c's cache)
    int *bend_beads;              // bending.c: each bead of two rigid springs, with the two (3 ints each)
    int bend_count, bend_cap;
    uint64_t bend_version;        // rigid_graph_version + 1 when the beads were found (0: to find)

    // Constraints (constraint.c): ropes, struts, angles and areas, each over its own particles.
    int c_cap, c_high, c_alive, c_free;
    uint8_t *c_kind;           // sb_constraint_kind; 0xFF for a dead slot
    uint8_t *c_solid;          // a solid rope or strut (sb_constraint_def.solid)
    double *c_break_stretch;   // > 0: breaks past it (ropes, struts; events.c)
    int breakable_constraints;
    sb_constraint_break_event *c_break_events;
    int c_break_count, c_break_cap;
    int solid_constraints;     // how many live ones are solid
    int **c_parts, *c_count;   // particle slots
    double *c_rest;
    sb_tuning *c_tuning;
    uint32_t *c_gen;
    sb_generations c_gens;     // the generations the constraint slots have handed out: not restored
    int *c_next_free;
    double *c_load;            // its network load, added to p_load with the springs' (solver.c)
    // this sub-step: value error, effective mass, constants, gradients, accumulated impulse
    double *c_err, *c_meff, *c_stiff, *c_damp, *c_scale, *c_target, *c_lambda;
    uint8_t *c_active;         // solved this sub-step (a slack rope or strut is not)
    sb_vec2 *c_grad;           // gradients of every constraint, c_grad_first[c] onward
    int *c_grad_first, c_grad_cap;
    sb_vec2 *c_scratch;        // gradients at the current positions (the position-level passes)
    int c_scratch_cap;

    // Walls.
    int w_cap, w_high, w_alive;
    int walls_made;            // walls ever made: a wall's number is never given twice, restores included
    sb_vec2 *wall_a, *wall_b;
    uint32_t *w_gen;
    uint8_t *w_alive_flag;
    uint8_t *w_one_sided;      // solid only from the left of a -> b (sb_wall_set_one_sided)
    int *wall_nb;              // per wall, 2 entries: the wall sharing its end a, its end b (-1: none)
    int *wall_chain;           // per wall: the lowest number of the walls linked to it end to end (its chain)
    bool walls_dirty;          // walls added or removed: wall_nb and wall_tree are rebuilt before the next contacts
    uint64_t walls_version;    // sb_world_walls_version: the world's number in the high half, its wall changes in the low
    sb_wall_tree *wall_tree;   // scratch: the walls' broad phase (NULL: to be built)

    // Contacts: `contacts` holds the committed list of the last step, in the order its step
    // solved them (colours); `warm` the same contacts by key, what the next step's warm start
    // and the contact events read (contacts_commit). A step builds `contacts_next` and swaps
    // only once the step is finite.
    sb_contact *contacts, *contacts_next;
    int contact_count, contact_next_count, contact_cap, contact_next_cap;
    int contacts_joined;                  // how many of this step's contacts have an end springs join; -1: not counted yet (contact_solver.c)
    sb_warm *warm;                        // contact_count of them, in key order
    int warm_cap;
    int *contact_order, contact_order_cap; // the key rank of each position of contacts_next while it is in
                                          // colour order (contacts_color), for contacts_commit
    sb_contact *contacts_scratch;         // the other buffer of the colour ordering
    int contacts_scratch_cap;
    bool contacts_permuted;               // contacts_next is in colour order (contacts_color)
    int colors_unmatched;                 // scratch: contacts of this step whose last colour cannot stand (warm_range)
    sb_contact *chunk_contacts[SB_POOL_MAX_THREADS]; // scratch: the narrow phase's chunks past the first
    int chunk_contact_count[SB_POOL_MAX_THREADS], chunk_contact_cap[SB_POOL_MAX_THREADS];
    int contact_color_start[65];          // where each colour begins in contact_order; [64] = the count
    uint64_t *contact_mask;               // scratch: the colours each particle has a contact in (contacts_color)
    sb_contact *segment_contacts;  // scratch: this step's contacts with solid springs, merged in by key
    int segment_contact_count, segment_contact_cap;
    sb_articulations *art;         // scratch: this step's articulated contacts (articulation.c); NULL until one
    // Broad phase: spatial hash grid rebuilt each step by counting sort.
    int grid_size;            // buckets, power of two
    bool grid_dense;          // the occupied cells fit: bucket = row-major cell in grid_x0.. (else hashed)
    int grid_x0, grid_y0, grid_nx, grid_ny;
    int *grid_start, *grid_items, *cell_x, *cell_y;
    int grid_items_cap;
    struct grid_entry *grid_entries; // grid_items with what the narrow phase reads of each, side by side
    struct velocity_box *block_velocity; // grid_size: each block of cells' velocities, while things move fast
    int block_x0, block_y0, block_nx, block_ny; // the blocks' box, row by row in block_velocity (nx 0: by hash)
    // The pairs list (a Verlet list): when the grid runs, each particle's partners j > i
    // within its reach plus `pair_skin`, sorted; a step reuses them, without the grid, while no
    // particle has moved, grown or widened its reach by half the skin since (contacts_build).
    int *pairs_list, pairs_list_count, pairs_list_cap;
    int *pairs_start;         // p_high + 1: where each particle's partners begin in pairs_list
    sb_vec2 *pairs_pos;       // each particle's position, reach and radius when the list was made
    double *pairs_reach, *pairs_radius;
    uint8_t *pairs_collides;  // and whether it was in the grid
    int pairs_cap;            // of the per-particle arrays above
    int pairs_p_high;         // p_high when the list was made
    double pair_skin;         // m
    double pairs_reach_cap;   // the most a pair's reach could be when the list was made (pair_reach)
    bool pairs_valid;         // the list may be reused
    // Stops that travel (contacts_build, stops_list_pairs): the velocities each particle's contacts
    // may bring it to this frame, and the scratch that carries them to its partners.
    struct particle_stop *stop;
    int *stop_queue;
    uint8_t *stop_queued;
    sb_contact *stop_contacts;  // the pairs and walls the stops listed, merged in by key
    int stop_contact_count, stop_contact_cap;
    int *stop_cand_at, *stop_cand_n; // each walking particle's partners in stop_cands (-1: not found yet)
    struct stop_partner *stop_cands;
    int stop_cand_count, stop_cand_cap;
    double grid_cell;           // m: the side of the grid's cells when it last ran
    int pairs_builds;         // how many times the grid has made the list (tests)
    bool grid_as_before;      // tests: cells hold the fastest pair's reach, hashed, as before blocks and rows
    bool stops_last_first;    // tests: the stops' walk takes the particle queued last first (contact_stops.c)
    int wide_searches;        // tests: particles that searched past the 3 x 3 cells around them, last step
    int chunk_wide_searches[SB_POOL_MAX_THREADS]; // scratch: the narrow phase's chunks' wide_searches
    long walls_met;           // tests: walls the narrow phase's particles were tested against, last step
    bool walls_unindexed;     // tests: no walls' broad phase (every particle meets every wall, as before it)
    long chunk_walls_met[SB_POOL_MAX_THREADS]; // scratch: the narrow phase's chunks' walls_met
    int *chunk_pairs[SB_POOL_MAX_THREADS]; // scratch: the narrow phase's chunks' partners past the first
    int chunk_pair_count[SB_POOL_MAX_THREADS], chunk_pair_cap[SB_POOL_MAX_THREADS];
    bool chunk_pairs_overflow[SB_POOL_MAX_THREADS]; // a chunk could not keep all its partners (no reuse)

    // The energy ledger of the methods with explicit springs (world.c, energy_ledger_*).
    bool energy_tracking;      // an undisturbed run is being watched
    bool packed;               // solver_pack ran for this step (solver.c)
    double energy_excess;      // J gained beyond gravity and the applied forces' work, floored at 0
    double energy_scale;       // J: the run's energy scale (world.c, ledger_end)
    double energy_gravity_start, energy_released; // J: gravity's energy when the run began; the most it released

    // Dragging.
    bool drag_active;
    sb_particle_id drag_id;
    sb_vec2 drag_target;
    double drag_hertz, drag_damping_ratio;

    // Snapshot for non-finite containment.
    sb_vec2 *snap_pos, *snap_vel, *snap_axis, *snap_spin; // snap_spin: (angle, omega)
    double *snap_impulse;

    bool (*interrupt)(void *ud); // sb_world_set_interrupt
    void *interrupt_ud;

    // Ramps (retune.c), advanced at the start of each step.
    sb_ramp *ramps;
    int ramp_count, ramp_cap;

    // Groups tuned as one structure (structure_record.c): the world's, not a moment's, so
    // snapshots leave them out and a restore keeps them.
    struct sb_structure_record *structures;
    int structure_count, structure_cap;

    // Events of the last step (events.c): touching contacts of particles that asked, sorted by
    // contact key, and what began, ended and broke.
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

    sb_method last_method;
    sb_stats stats;
};

static inline bool particle_alive(const sb_world *w, int i) { return (w->p_flags[i] & PARTICLE_ALIVE) != 0; }

/// The rigid springs, their breakability or the fixed particles changed: the tethers are built
/// again, and what articulation.c keeps of the structures is stale.
static inline void rigid_graph_changed(sb_world *w)
{
    w->tethers_dirty = true;
    w->rigid_graph_version += 1;
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
