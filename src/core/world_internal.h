// springbox core internals: the world's structure-of-arrays storage, shared by world.c
// (bookkeeping), solver.c (the sub-step loop), the method_*.c files (one spring method each)
// and contact.c.
#ifndef SB_WORLD_INTERNAL_H
#define SB_WORLD_INTERNAL_H

#include "sb_tuning.h"
#include "sb_pool.h"
#include "sb_world.h"

#include <math.h>
#include <string.h>
#include <stddef.h>

enum { PARTICLE_ALIVE = 1, PARTICLE_FIXED = 2, PARTICLE_COLLIDE = 4, PARTICLE_EVENTS = 8, PARTICLE_HIDDEN = 16 };

/// A contact between particle a and either particle b or a static shape. The normal
/// points from a to b; separation is centre distance minus radii (negative = overlap).
typedef struct sb_contact {
    uint64_t key;              // (a << 32) | shape code, emitted in increasing order
    int a, b;                  // b = -1 for a static shape
    int b2;                    // a solid spring's contact: the other end (b the first); else -1
    int art;                   // 1 + its record when articulated (articulation.c: a heavy particle on a structure); 0: not
    double t;                  // where along the spring b -> b2 the contact is (b2's share of it)
    uint32_t shape;            // wall slot, SHAPE_BOUND + side, or SHAPE_PARTICLE | b
    sb_vec2 normal;
    double separation;
    double normal_mass, friction, restitution;
    // verlet and xpbd: normal_impulse is the sub-step's push (kept for the next one's warm start),
    // and xpbd's tangent_impulse what of it its friction sweep has yet to take
    double normal_impulse, tangent_impulse, max_normal_impulse;
    double slip;               // verlet and xpbd: the tangent slip static friction holds since it stuck (contacts_keep_anchor)
    double tangent_mass;       // 1 / (wa + wb + ra^2 / Ia + rb^2 / Ib): the normal mass unless an end rolls
    double rolling_resistance, rolling_impulse; // angular impulse against relative spin, N m s (warm started)
    double relative_velocity;  // normal velocity when the step began (for restitution)
    // copied at each sub-step's prepare, so the velocity passes read them with the contact and not
    // from four particle arrays: the ends' inverse masses, and their levers and inverse inertias
    double inv_mass_a, inv_mass_b, lever_a, lever_b, inv_inertia_a, inv_inertia_b;
    int side;                  // walls: the side of the wall's line the particle came from (+1, -1)
    bool fresh;                // the last step had no such contact (warm_range): it may start inside
    int color;                 // contacts_color: 0..62 share no moving particle within a colour; 63 runs in order
} sb_contact;

#define SHAPE_SEGMENT 0x40000000u // | spring slot: a solid spring (sb_spring_def.solid)
#define SHAPE_SEGMENT_CONSTRAINT 0x60000000u // | constraint slot: a solid rope or strut
#define SHAPE_BOUND 0x7FFFFFF0u
#define SHAPE_PARTICLE 0x80000000u

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

/// Softness in Box2D v3's impulse form of Catto's gamma/beta (seed 003): see method_soft.c.
typedef struct sb_soft { double bias_rate, mass_scale, impulse_scale; } sb_soft;

/// The least work a thread takes in a split pass (sb_pool.h): waking a worker costs about what
/// this many items do, so a smaller range runs on the caller. A job costs about 0.45 us with the
/// workers spinning (about 50 contacts' pass); at 256 contacts the 4000-ball pit's sixth colour
/// (445 of its 8700 contacts) ran on the caller alone in every pass, and two threads took 1.15 ms
/// a step against 1.09 at 128 and 1.08 at 64 (six alternating runs each).
enum { CONTACTS_PER_THREAD = 128, SPRINGS_PER_THREAD = 256, PARTICLES_PER_THREAD = 1024 };

/// A particle in the broad phase's grid, with what the narrow phase reads of it, so that a
/// bucket's candidates are read in memory order (contact.c).
typedef struct grid_entry { double x, y, vx, vy, radius, reach; int index, cx, cy; } grid_entry;
/// A committed contact as the next step's warm start needs it, and where it is in `contacts`.
typedef struct sb_warm {
    uint64_t key;
    double normal_impulse, tangent_impulse, rolling_impulse, slip;
    int slot;
    int8_t side;
    uint8_t color; // the colour it took (contacts_color), and what that colour was taken from:
    uint8_t moves; // WARM_* below
} sb_warm;
/// sb_warm.moves: which ends moved when the contact was coloured, and whether it was a solid
/// spring's or articulated (colour 63).
enum { WARM_A_MOVES = 1, WARM_B_MOVES = 2, WARM_SEGMENT = 4, WARM_ARTICULATED = 8 };
/// The velocities of a block of grid cells lie within lo..hi (contacts_build).
typedef struct velocity_box { double lo_x, hi_x, lo_y, hi_y; } velocity_box;
/// What a particle's contacts may do to it this frame (contact_find.c, stops): bring its velocity to
/// any in `box`, from `time` (s) into the frame on, pushed by something of inverse mass inv_pusher
/// at most (its own, or the heaviest that may push it).
typedef struct particle_stop { velocity_box box; double time, inv_pusher; } particle_stop;
/// A partner a walking particle may meet this frame, as the frame found it (contact_find.c): the
/// unit normal from the particle to it, the squared distance between their centres (bit for bit
/// the narrow phase's), the gap between their surfaces, the partner's velocity along the normal.
typedef struct stop_partner { sb_vec2 normal; double d2, gap, along; int index; } stop_partner;
/// The step's articulated contacts and the structures they push on (articulation.c).
typedef struct sb_articulations sb_articulations;
/// The walls' broad phase (wall_tree.c): a bounding volume hierarchy over the live walls.
typedef struct sb_wall_tree sb_wall_tree;
/// Builds it again from the live walls; false out of memory (queries then take every wall).
bool wall_tree_build(sb_world *w);
void wall_tree_free(sb_world *w);
/// The live walls whose boxes meet the box (lo_x, lo_y)-(hi_x, hi_y), in increasing order, into
/// `out`; returns their count, which past `cap` says only how many there are (ask again with room).
int wall_tree_query(const sb_world *w, double lo_x, double lo_y, double hi_x, double hi_y, int *out, int cap);
/// The walls one query of a contact pass keeps on its stack; more go on the heap.
enum { WALLS_NEAR_MAX = 64 };
/// The walls near a box, in increasing order: on the stack, or on the heap when there are many
/// (walls_near_free lets those go).
typedef struct walls_near { int stack[WALLS_NEAR_MAX]; int *walls, count; } walls_near;
/// Finds them; false out of memory (near->walls then NULL).
bool walls_near_find(const sb_world *w, double lo_x, double lo_y, double hi_x, double hi_y, walls_near *near);
void walls_near_free(walls_near *near);

/// The highest generation each slot of one kind ever handed out (generations.c): `count` slots.
typedef struct sb_generations { uint32_t *max; int count; } sb_generations;
/// Covers slots [0, count); false out of memory.
bool generations_reserve(sb_generations *g, int count);
/// A generation for `slot` (reserved) that no handle to it has had: never 0.
uint32_t generations_next(sb_generations *g, int slot);
/// Each slot of `into` keeps the higher of its own and `from`'s; false out of memory.
bool generations_merge(sb_generations *into, const sb_generations *from);
/// `dst` becomes a copy of `src` (its old arrays are not freed); false out of memory.
bool generations_copy(sb_generations *dst, const sb_generations *src);
void generations_free(sb_generations *g);

struct sb_world {
    sb_world_def def;
    struct sb_pool *pool;     // the worker threads of def.threads > 1 (pool.c); a machine resource, not state:
                              // snapshots leave it out and a restore keeps the world's own

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
    sb_wall_tree *wall_tree;   // scratch: the walls' broad phase (NULL: to be built)

    // Contacts: `contacts` holds the committed list of the last step, in the order its step
    // solved them (colours); `warm` the same contacts by key, what the next step's warm start
    // and the contact events read (contacts_commit). A step builds `contacts_next` and swaps
    // only once the step is finite.
    sb_contact *contacts, *contacts_next;
    int contact_count, contact_next_count, contact_cap, contact_next_cap;
    int contacts_joined;                  // how many of this step's contacts have an end springs join; -1: not counted yet (contact.c)
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
    struct velocity_box *block_velocity; // grid_size: each block of cells' velocities, by hash, while things move fast
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
    bool stops_last_first;    // tests: the stops' walk takes the particle queued last first (contact_find.c)
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

static inline sb_vec2 v2(double x, double y) { sb_vec2 r = {x, y}; return r; }
static inline sb_vec2 v2_add(sb_vec2 a, sb_vec2 b) { return v2(a.x + b.x, a.y + b.y); }
static inline sb_vec2 v2_sub(sb_vec2 a, sb_vec2 b) { return v2(a.x - b.x, a.y - b.y); }
static inline sb_vec2 v2_scale(sb_vec2 a, double s) { return v2(a.x * s, a.y * s); }
static inline sb_vec2 v2_mad(sb_vec2 a, double s, sb_vec2 b) { return v2(a.x + s * b.x, a.y + s * b.y); }
static inline double v2_dot(sb_vec2 a, sb_vec2 b) { return a.x * b.x + a.y * b.y; }
static inline double v2_len(sb_vec2 a) { return sqrt(a.x * a.x + a.y * a.y); }
static inline bool v2_finite(sb_vec2 a) { return isfinite(a.x) && isfinite(a.y); }

/// realloc *p to `cap` elements of `elem` bytes; false, with *p unchanged, when memory is short.
bool array_grow(void **p, size_t elem, int cap);
#define ARRAY_GROW(arr, cap) array_grow((void **)&(arr), sizeof *(arr), (cap))
/// Makes room for `need` elements, doubling *cap from 16; false when memory is short.
bool array_reserve(void **p, int *cap, int need, size_t elem);

static inline bool particle_alive(const sb_world *w, int i) { return (w->p_flags[i] & PARTICLE_ALIVE) != 0; }

// world.c
void world_free_storage(sb_world *w); // every array a world owns, not the struct (snapshot.c)

// contact.c
bool contacts_reserve(sb_world *w);
void contacts_report_overlaps(sb_world *w);      // the first step's sb_stats.overlapping_pairs
void contacts_build(sb_world *w);                 // broad + narrow phase into contacts_next, in colour order
void contacts_commit(sb_world *w);                // contacts_next becomes the committed list, with its warm starts by key
void contacts_prepare(sb_world *w, double h, bool first_substep, bool geometry_current);
void contacts_warm_start(sb_world *w);
/// Impacts, one pair at a time, before the sub-step's solve: ends closing faster than the
/// restitution threshold that will touch within `window` seconds collide (contact.c): the sub-step,
/// or for verlet, whose collide passes act a sub-step ahead (seed 004's x), two. The contacts'
/// geometry is found here unless `geometry_current` (prepare found it).
void contacts_collide(sb_world *w, double window, bool geometry_current);
/// verlet and xpbd, at a sub-step's start: the overlap of a contact the last step did not have (a
/// particle made inside another or a wall, or moved there) is moved apart by position alone, so
/// that it never becomes velocity, as Box2D's relax removes the push velocity (contact.c).
void contacts_settle_overlaps(sb_world *w, double h, bool geometry_current);
void contacts_solve(sb_world *w, double h, bool skip_joined); // the soft non-penetration impulses, biased
void contacts_solve_joined(sb_world *w, double h); // those of contacts an end of which springs join, once
void contacts_relax(sb_world *w, double h);      // the geometry where positions are now, then unbiased
void contacts_restitution(sb_world *w);
void contacts_confine_to_bounds(sb_world *w);   // hold particle centres inside the bounds
void walls_hold_centres(sb_world *w);           // no centre crosses a wall in a sub-step (from w->start)
void contacts_project(sb_world *w, bool preserve_impulse, double h); // verlet second pass (seed 004)
void contacts_warm_push(sb_world *w);  // verlet and xpbd: a share of the last sub-step's push
void contacts_project_by_position(sb_world *w, double h); // verlet and xpbd: a projection pass, then friction
void contacts_keep_anchor(sb_world *w); // verlet and xpbd: static friction's slip, after their passes
void contacts_xpbd_velocity(sb_world *w);
int contacts_touching(const sb_world *w);
double contact_combined_restitution(const sb_world *w, int a, int b);
double contact_combined_friction(const sb_world *w, int a, int b);
sb_soft soft_from_hertz(double hertz, double damping_ratio, double h);
/// What a contact's softness depends on (contact_hertz): an end joined by springs, one end that
/// cannot move (a wall, a bound, a fixed particle), or neither.
typedef enum { CONTACT_FREE, CONTACT_JOINED, CONTACT_HELD, CONTACT_KINDS } contact_kind;
double contact_hertz(double h, double dt, contact_kind kind);

/// Touching: a contact closer than the slop (what sb_stats.contacts and the events count).
bool contact_is_touching(const sb_contact *c);
/// Box2D's filter: may particles a and b collide?
bool particles_should_collide(const sb_world *w, int a, int b);

// constraint.c: the constraints' sub-step, one entry per place a method solves them.
/// Gradients, errors, effective masses and the method's constants of every constraint for this
/// sub-step (positions as they are now); accumulated impulses start at zero.
void constraints_begin_substep(sb_world *w, double h);
/// force, impulse and verlet: explicit impulses from the velocities before the pass (Jacobi), of
/// the tuned ones (before the sub-step's kicks) and of the rigid ones (after them; not verlet's).
void constraints_explicit_tuned_pass(sb_world *w, double h);
void constraints_explicit_rigid_pass(sb_world *w, double h);
/// sequential: the rest velocity of seed 000, then one corrective iteration.
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
/// The network loads of the constraints, added to w->p_load (solver.c's compute_coefficients).
void constraints_add_loads(sb_world *w, double h);
/// Ropes and struts past their break_stretch go, as events (after a committed step, events.c).
void constraints_break(sb_world *w);
/// Removes every constraint that holds particle slot i.
void constraints_remove_particle(sb_world *w, int i);
void constraints_free(sb_world *w);
/// Same constraint slots over the same particles (sb_world_can_copy_state).
bool constraints_same_shape(const sb_world *a, const sb_world *b);

// events.c: after a committed step, springs past their break thresholds go, and the touching
// contacts of particles that asked for events are compared with the last step's.
void events_after_step(sb_world *w);
void events_free(sb_world *w);
/// Frees a spring slot (world.c), for breaking.
void world_free_spring_slot(sb_world *w, int s);

// articulation.c: a heavy particle's contacts with a light structure of rigid springs.
/// Marks this step's articulated contacts (contacts_next, before the colours) and finds their structures.
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
void articulations_free(sb_world *w);
/// Particle i is in a structure that is solved directly this step (its tethers wait: they would
/// move it without the heavy particle on it).
bool articulation_holds(const sb_world *w, int i);

// tether.c: long range attachments, and the rigid links they (and articulation.c) follow.
/// A link of tethers and structures: a spring that is rigid and unbreakable.
bool spring_is_rigid_link(const sb_world *w, int s);
/// The rigid links by particle, compressed rows: particle i's are (*links)[(*first)[i] ..
/// (*first)[i + 1]), spring slots in slot order; the arrays grow as needed. False when memory is short.
bool rigid_links_by_particle(const sb_world *w, int **first, int *first_cap, int **links, int *links_cap);
void tethers_build(sb_world *w);
void tethers_project(sb_world *w, bool velocities);

// retune.c
void ramps_advance(sb_world *w);                       // one step of dt into every ramp
bool ramps_copy(sb_world *dst, const sb_world *src);   // same slots (sb_world_copy_state)

// world.c: gravity and the drag constraint as a velocity kick of one sub-step.
void apply_gravity_and_drag(sb_world *w, double h);

// solver.c: the sub-step loop and what the methods share.
/// Runs one frame's sub-steps; in diagnostic mode stops at the first sub-step that made a
/// particle a runaway (non-finite, or past SB_MAX_COORD / SB_MAX_SPEED) and returns its slot
/// (else -1). SOLVER_INTERRUPTED if the interrupt
/// callback stopped it.
int solver_run_substeps(sb_world *w, bool diagnostic);
/// Packs the springs (and tethers) for this step ahead of solver_run_substeps, which then uses
/// them as they are (world.c's energy ledger reads the packed constants).
void solver_pack(sb_world *w);
#define SOLVER_INTERRUPTED (-2)
/// Axis and length error of every packed spring from the current positions.
void springs_geometry(sb_world *w);
/// The axes of this sub-step become the warm-start axes of the next.
void springs_store_axis(sb_world *w);

/// A non-rigid spring's discrete constants for one method at one sub-step. Every method reads
/// the same target poles (sb_tuning_poles) and turns them into its own constants, so that an
/// isolated spring moves as asked in every method; the method's file derives its map.
typedef struct spring_coef { double stiff, damp, scale; } spring_coef;
/// What a method's coefficient function returns: the poles it delivers for the spring alone
/// and whether it had to move them from the target (a limit of the method at this step).
typedef struct coef_result { sb_poles delivered; bool clamped; } coef_result;

// Networks. A network can be unstable where a lone spring is not (seed 002, "Limitations and
// pitfalls"). Every method's update flips sign and grows (a pole at -1) once a matrix of the form
// 4 M - sum_s m_s load_s J_s^T J_s stops being positive definite; the Gershgorin rows of M^-1
// times that sum bound it, so solver.c adds up each spring's `load` at its free ends and gives
// each spring the share its busiest end leaves (a lone spring keeps its whole load). Each method
// then meets its allowed load its own way, and reports what it delivers. Where a free end of the
// spring has other springs too, the method may give it other poles (network_target): the
// implicit and position methods take away negative damping (the matching of a lone spring may
// ask for it), because a network solved by a few Gauss-Seidel iterations does not have the modes
// the loads assume (measured: xpbd at 1 iteration and verlet at 1 sub-step blew up a 12 x 12
// cloth of undamped 20 Hz springs with it); the explicit methods keep the spring's static
// stiffness, which a network's low modes see (method_force.c).
// Explicit constants (force, impulse, verlet's springs) are a = k h^2 / m and b = c h / m per
// unit of reduced mass, stored as stiff = a m / h and damp = b m: an impulse per metre of
// stretch and per metre per second.

/// A pass over the springs or the constraints at sub-step h.
typedef void sb_pass(sb_world *w, double h);

/// The order a method's sub-step follows; solver.c writes each order once.
typedef enum sb_step_order {
    SB_ORDER_VELOCITIES, ///< impulses on velocities, then integrate (seeds 000-003, Box2D v3's soft step)
    SB_ORDER_POSITIONS,  ///< predict positions, project, velocities from the move (XPBD)
    SB_ORDER_VERLET,     ///< seed 004's loop: accelerate, collide, inertia, collide with impulse kept
} sb_step_order;

/// What a method hands the solver (Chipmunk's constraint class; Box2D v3's joint functions):
/// its discrete constants and its kernels. Only solver.c orders the stages of a sub-step and
/// calls these; a method file calls no stage and not the solver. A NULL pass does nothing.
/// A seventh method is one file with one of these and an entry in solver.c's table.
typedef struct sb_method_kernels {
    const char *name; ///< what scenes, the window and the tests call it (sb_method_name)
    sb_step_order order;
    /// The network load of a target (summed per particle by solver.c).
    double (*load)(sb_poles target);
    /// A tuned spring's constants within its allowed load; returns the poles it delivers alone.
    coef_result (*coefficients)(sb_poles target, double m, double h, double allowed_load, spring_coef *out);
    /// A rigid spring's constants, returning its network load; NULL: held by projection, no constants.
    double (*rigid_coefficients)(int springs_on_busiest_end, double m, double h, spring_coef *out);
    /// The poles a spring with other springs at a free end is given instead of its lone target
    /// (`discrete`: Nissen's coefficients were asked); sets *moved when that is a limit to report.
    /// NULL: a lone spring's.
    sb_poles (*network_target)(sb_poles target, bool discrete, bool *moved);
    /// Its tuned springs are explicit (forces or Nissen's impulses): the world watches its energy
    /// (world.c), reading each packed spring's delivered stiffness in N/m from this, and the share
    /// b of its relative velocity one step of the force method's map takes away. NULL: none.
    double (*delivered_spring)(const sb_world *w, int k, double h, double *step_damping);
    /// Its rigid springs are explicit too (Nissen's safe spring), stiffness from delivered_stiffness.
    bool rigid_springs_explicit;
    /// Most of a spring's impulse stays in its accumulator (kimp) rather than ktension (the soft method).
    bool tension_in_accumulator;
    /// Once per sub-step before the iterations (SB_ORDER_VERLET: in the accelerate step).
    sb_pass *springs_begin, *constraints_begin;
    /// The begin passes are explicit forces: they read the velocities from before this sub-step's
    /// gravity and drag, as symplectic Euler does (solver.c says why); these come after the kicks.
    bool forces_before_gravity;
    sb_pass *springs_after_kicks, *constraints_after_kicks;
    /// Each iteration, springs then constraints (then the contacts, for the position orders).
    sb_pass *springs_iterate, *constraints_iterate;
    /// SB_ORDER_VELOCITIES: the contacts of particles that springs join are solved in each
    /// iteration after the springs and constraints, the others once after the iterations.
    bool joined_contacts_iterate;
    /// SB_ORDER_VELOCITIES: position sweeps over the rigid springs after integrating (Box2D 2.4's NGS).
    bool project_rigid_springs;
    /// SB_ORDER_VELOCITIES: after the sweeps, one solve without bias (Box2D v3's relax).
    sb_pass *springs_relax, *constraints_relax;
    /// At the end of the sub-step (read the multipliers back).
    sb_pass *springs_end;
} sb_method_kernels;

/// The method's table (solver.c).
const sb_method_kernels *method_kernels(sb_method method);
/// The network load of a target in the world's method, and its constants within an allowance
/// (through the method's table); constraint.c uses them as springs do.
double method_load(sb_method method, sb_poles target);
coef_result method_coefficients(sb_method method, sb_poles target, double m, double h, double allowed_load, spring_coef *c);
/// A rigid constraint's constants at effective mass m; returns its network load.
double method_rigid_coefficients(sb_method method, int busiest_degree, double m, double h, spring_coef *c);
/// A particle's summed load may reach this (solver.c).
#define SB_LOAD_LIMIT 3.6
/// The length error, as a share of the rest length, that the rigid springs' and constraints'
/// position sweeps leave alone (springs_simd.c says why), and that the tethers leave them.
#define SB_RIGID_SLOP 1e-3

extern const sb_method_kernels force_method, impulse_method, sequential_method, soft_method, verlet_method,
    xpbd_method;

// method_force.c (seed 001)
/// An explicit method's a and b, scaled down together until `load` fits `allowed_load` (the
/// stiffest stable setting), as constants; returns the poles they deliver alone.
coef_result explicit_scaled(double a, double b, double load, double allowed_load, double m, double h,
                            spring_coef *out, bool already_clamped);
/// Every tuned spring's explicit impulse from the velocities before the pass (Jacobi).
void springs_jacobi_pass(sb_world *w, double h);
/// The same for the rigid springs (Nissen's safe spring in force and impulse), after the kicks.
void springs_rigid_jacobi_pass(sb_world *w, double h);
/// delivered_spring of constants stored as stiff = a m / h, damp = b m (force, impulse): stiff / h, b.
double explicit_delivered_spring(const sb_world *w, int k, double h, double *step_damping);
// method_impulse.c (seed 002)
double impulse_load(sb_poles target);
coef_result impulse_coefficients(sb_poles target, double m, double h, double allowed_load, spring_coef *out);
/// Nissen's safe coefficient for a rigid spring in a naive network; returns its load.
double impulse_rigid_coefficients(int springs_on_busiest_end, double m, double h, spring_coef *out);
// method_soft.c (seed 003)
double implicit_euler_load(sb_poles target);
sb_poles implicit_euler_poles_within(sb_poles target, double allowed_load, bool *clamped);
sb_poles poles_without_negative_damping(sb_poles target, bool *clamped);
/// network_target of the implicit Euler methods (soft, xpbd): static stiffness and decay, c >= 0.
sb_poles implicit_network_target(sb_poles target, bool discrete, bool *moved);
// method_force.c
/// network_target of the explicit methods: the lone spring's decay with its static stiffness.
sb_poles explicit_network_target(sb_poles target, bool discrete, bool *moved);
void implicit_euler_kc(sb_poles p, double m, double h, double *k, double *c);

// springs_simd.c: the soft method's passes over the packed springs, four springs of a colour
// at a time where the CPU has AVX2, bit-identical to one at a time.
void soft_prepare_pass(sb_world *w, double h);
void soft_solve_pass(sb_world *w, double h);
void soft_relax_pass(sb_world *w, double h);
/// One position sweep over the rigid springs (solver.c, rigid_springs_project).
void rigid_project_pass(sb_world *w);
/// Tests: force the scalar passes of springs and contacts (false) or allow the vector ones (true, the default).
void vector_passes_allow(bool allow);
/// True when the vector passes (springs here, contacts in contact.c) run on this CPU.
bool vector_passes_active(void);

// ---------------------------------------------------------------- shared by the world's files

static inline bool field_bad(bool ok, const char *name, const char **bad_field)
{
    if (!ok && bad_field)
        *bad_field = name;
    return !ok;
}

static inline bool in_range(double v, double lo, double hi) { return isfinite(v) && v >= lo && v <= hi; }

static inline bool in_coord(double v) { return in_range(v, -SB_MAX_COORD, SB_MAX_COORD); }

static inline bool in_speed(double v) { return in_range(v, -SB_MAX_SPEED, SB_MAX_SPEED); }

/// Positions the world accepts: finite and within SB_MAX_COORD of the origin, as particles.
static inline bool in_world(sb_vec2 p) { return in_coord(p.x) && in_coord(p.y); }

// memcpy with a null pointer is undefined even for zero bytes, and an empty world has none.
static inline void copy_array(void *dst, const void *src, size_t bytes)
{
    if (bytes > 0)
        memcpy(dst, src, bytes);
}

/// The energy of a particle's spin, 1/2 I omega^2 with I = inertia m r^2 (rolling, contact.c).
double particle_spin_energy(const sb_world *w, int i);
int particle_slot(const sb_world *w, sb_particle_id id);
/// The drag is one soft point constraint on one particle, solved exactly once per
/// sub-step: with gamma and beta from seed 003 the velocity update equals implicit
/// Euler of a spring-damper toward the target, so it is stable at any frequency.
void drag_apply(sb_world *w, double h);
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

// contact.c: the geometry of a contact (normal and separation) from the positions now; the
// finding of contacts (contact_find.c) uses it for walls, bounds and solid springs.
void static_shape_geometry(const sb_world *w, sb_contact *c);
void segment_geometry(const sb_world *w, sb_contact *c);
void contact_find_geometry(const sb_world *w, sb_contact *c); // any contact's
/// The contacts' softness at sub-step h of step dt (contact_hertz) and the most they push out, m/s.
sb_soft contact_softness(double h, double dt, contact_kind kind);
double contact_push_limit(void);

#endif
