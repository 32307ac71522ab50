// springbox core internals: the world's structure-of-arrays storage, shared by
// world.c (bookkeeping), springs.c (the six spring methods) and contact.c.
#ifndef SB_WORLD_INTERNAL_H
#define SB_WORLD_INTERNAL_H

#include "sb_world.h"

#include <math.h>
#include <stddef.h>

enum { PARTICLE_ALIVE = 1, PARTICLE_FIXED = 2, PARTICLE_COLLIDE = 4 };

/// A contact between particle a and either particle b or a static shape. The normal
/// points from a to b; separation is centre distance minus radii (negative = overlap).
typedef struct sb_contact {
    uint64_t key;              // (a << 32) | shape code, emitted in increasing order
    int a, b;                  // b = -1 for a static shape
    uint32_t shape;            // wall slot, SHAPE_BOUND + side, or SHAPE_PARTICLE | b
    sb_vec2 normal;
    double separation;
    double normal_mass, friction, restitution;
    double normal_impulse, tangent_impulse, max_normal_impulse;
    double relative_velocity;  // normal velocity when the step began (for restitution)
} sb_contact;

#define SHAPE_BOUND 0x7FFFFFF0u
#define SHAPE_PARTICLE 0x80000000u

/// Softness in Box2D v3's impulse form of Catto's gamma/beta (seed 003): see springs.c.
typedef struct sb_soft { double bias_rate, mass_scale, impulse_scale; } sb_soft;

struct sb_world {
    sb_world_def def;

    // Particles: slot arrays, dead slots reused through a free list.
    int p_cap, p_high, p_alive, p_free;
    sb_vec2 *pos, *vel;
    sb_vec2 *prev;            // scratch: start-of-sub-step positions (verlet, xpbd)
    sb_vec2 *dv;              // scratch: Jacobi accumulator (force, impulse)
    double *mass, *inv_mass, *radius, *restitution, *friction;
    uint32_t *p_gen;
    uint8_t *p_flags;
    int *p_next_free;
    int *degree;              // springs attached to each particle

    // Springs: slot arrays, same scheme.
    int s_cap, s_high, s_alive, s_free;
    int *s_a, *s_b;           // particle slots; -1 for a dead slot
    double *rest;
    sb_tuning *tuning;
    uint8_t *s_rigid;         // sb_tuning_is_rigid(&tuning[s]), kept with it: the per-step loops
                              // read one byte instead of the 64-byte tuning
    uint32_t *s_gen;
    int *s_next_free;
    double *impulse;          // accumulated impulse (warm start), N s
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
    double *kc1, *kc2, *kc3;  // per-method constants of this step (springs.c says which)
    double *kg;               // per-method value of this sub-step (bias, target, ...)
    double *kimp;             // accumulated impulse (warm start), N s
    uint8_t *krigid;
    int s_pair_dirty;
    uint64_t *pair_keys;      // sorted (min,max) particle pairs joined by springs
    int pair_count;

    // Tethers (tether.c): particle, its nearest fixed particle, and the rigid-path length.
    int *tether_p, *tether_anchor, tether_count;
    double *tether_length;
    bool tethers_dirty;

    // Walls.
    int w_cap, w_high, w_alive;
    sb_vec2 *wall_a, *wall_b;
    uint32_t *w_gen;
    uint8_t *w_alive_flag;

    // Contacts: `contacts` holds the committed list of the last step (warm start);
    // a step builds `contacts_next` and swaps only once the step is finite.
    sb_contact *contacts, *contacts_next;
    int contact_count, contact_next_count, contact_cap, contact_next_cap;
    // Broad phase: spatial hash grid rebuilt each step by counting sort.
    int grid_size;            // buckets, power of two
    int *grid_start, *grid_items, *cell_x, *cell_y;
    int grid_items_cap;

    // Dragging.
    bool drag_active;
    sb_particle_id drag_id;
    sb_vec2 drag_target;
    double drag_hertz, drag_damping_ratio;

    // Snapshot for non-finite containment.
    sb_vec2 *snap_pos, *snap_vel, *snap_axis;
    double *snap_impulse;

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

static inline bool particle_alive(const sb_world *w, int i) { return (w->p_flags[i] & PARTICLE_ALIVE) != 0; }

// contact.c
bool contacts_reserve(sb_world *w);
void contacts_build(sb_world *w);                 // broad + narrow phase into contacts_next
void contacts_update_geometry(sb_world *w);       // normal and separation from positions
void contacts_prepare(sb_world *w, double h, bool first_substep);
void contacts_warm_start(sb_world *w);
void contacts_solve(sb_world *w, double h, bool use_bias);
void contacts_restitution(sb_world *w);
void contacts_confine_to_bounds(sb_world *w);   // velocity methods: hold particles inside the bounds
void contacts_project(sb_world *w, bool preserve_impulse, double h); // verlet passes
void contacts_project_xpbd(sb_world *w);
void contacts_xpbd_velocity(sb_world *w);
int contacts_touching(const sb_world *w);
double contact_combined_restitution(const sb_world *w, int a, int b);
double contact_combined_friction(const sb_world *w, int a, int b);
sb_soft soft_from_hertz(double hertz, double damping_ratio, double h);
double contact_hertz(double h);

// tether.c: long range attachments.
void tethers_build(sb_world *w);
void tethers_project(sb_world *w, bool velocities);

// world.c: gravity and the drag constraint as a velocity kick of one sub-step.
void apply_gravity_and_drag(sb_world *w, double h);

// springs.c: packing for a step, and one sub-step of each method.
void springs_pack(sb_world *w, double h);
void springs_unpack(sb_world *w);
void substep_force_or_impulse(sb_world *w, double h, bool first_substep);
void substep_sequential(sb_world *w, double h, bool first_substep);
void substep_soft(sb_world *w, double h, bool first_substep);
void substep_verlet(sb_world *w, double h);
void substep_xpbd(sb_world *w, double h, bool first_substep);

// springs_simd.c: the soft method's passes over the packed springs, four springs of a colour
// at a time where the CPU has AVX2, bit-identical to one at a time.
void soft_prepare_pass(sb_world *w);
void soft_solve_pass(sb_world *w);
void soft_relax_pass(sb_world *w);
/// Tests: force the scalar passes (false) or allow the vector ones (true, the default).
void springs_simd_allow(bool allow);
/// True when the vector passes run on this CPU.
bool springs_simd_active(void);

#endif
