// The spring methods' part of the world: the constants a method turns a tuning into, the table
// each method_*.c file fills (sb_method_kernels) and solver.c reads, and the passes the methods
// share (springs_simd.c, solver.c).
#ifndef SB_METHOD_INTERNAL_H
#define SB_METHOD_INTERNAL_H

#include "sb_tuning.h"
#include "sb_types.h"

/// A non-rigid spring's discrete constants for one method at one sub-step. Every method reads
/// the same target poles (sb_tuning_poles) and turns them into its own constants, so that an
/// isolated spring moves as asked in every method; the method's file derives its map.
typedef struct spring_coef { double stiff, damp, scale; } spring_coef;
/// What a method's coefficient function returns: the poles it delivers for the spring alone
/// and whether it had to move them from the target (a limit of the method at this step).
typedef struct coef_result { sb_poles delivered; bool clamped; } coef_result;

/// The springs in solver order (solver.c): live springs grouped by graph colour, so that
/// consecutive springs of a colour share no particle and the CPU can overlap them (Gauss-Seidel
/// in any order is still Gauss-Seidel), rebuilt when springs are added or removed; and what the
/// methods read of each, packed per order position k, so the loops read memory in order.
typedef struct sb_spring_pack {
    int *order, order_count, colors;
    int color_start[65];      // order positions where each colour begins; [colors] = order_count
    bool order_dirty;
    bool packed;              // solver_pack ran for this step
    // Filled at the start of each step and written back at its end: a step's scratch.
    int *ka, *kb;
    double *kwa, *kwb;        // inverse masses of the ends
    double *kmass;            // reduced mass 1/(wa + wb), 0 when both are fixed
    double *krest;
    double *kux, *kuy;        // axis a -> b of this sub-step
    double *kpux, *kpuy;      // axis that stored the warm start
    double *ksep;             // length - rest of this sub-step
    double *kturn;            // h / (2 rest length), for a rigid spring's rigid_turn_rate
    double *kimp;             // accumulated impulse (warm start), N s
    uint8_t *krigid;
    // The method's discrete constants of each spring (spring_coef; the method's file says what
    // each means). Kept between steps and recomputed when a tuning, a mass, the order, the
    // method or the sub-step changes.
    double *kstiff, *kdamp, *kscale;
    double *kg;               // per-method value of this sub-step (bias, target, ...)
    double *ktension;         // impulse the spring gave in this sub-step, N s, positive pushes apart
    bool coef_dirty;
    double coef_h;
    sb_method coef_method;
} sb_spring_pack;
void spring_pack_free(sb_spring_pack *p); // solver.c

// Networks. A network can be unstable where a lone spring is not (Nissen, "Limitations and
// pitfalls"). Every method's update flips sign and grows (a pole at -1) once a matrix of the form
// 4 M - sum_s m_s load_s J_s^T J_s stops being positive definite; the Gershgorin rows of M^-1
// times that sum bound it, so solver.c adds up each spring's `load` at its free ends and gives
// each spring the share its busiest end leaves (a lone spring keeps its whole load). Each method
// then meets its allowed load its own way, and reports what it delivers. Where a free end of the
// spring has other springs too, the method may give it other poles (network_target): the
// implicit and position methods take away negative damping (the matching of a lone spring may
// ask for it), because a network solved by a few Gauss-Seidel iterations does not have the modes
// the loads assume (with it, an undamped stiff cloth blows up in xpbd at 1 iteration and in
// verlet at 1 sub-step); the explicit methods keep the spring's static
// stiffness, which a network's low modes see (method_force.c).
// Explicit constants (force, impulse, verlet's springs) are a = k h^2 / m and b = c h / m per
// unit of reduced mass, stored as stiff = a m / h and damp = b m: an impulse per metre of
// stretch and per metre per second.

/// A pass over the springs or the constraints at sub-step h.
typedef void sb_pass(sb_world *w, double h);

/// The order a method's sub-step follows; solver.c writes each order once.
typedef enum sb_step_order {
    SB_ORDER_VELOCITIES, ///< impulses on velocities, then integrate (Nissen's articles, Catto's "Soft Constraints", Box2D v3's soft step)
    SB_ORDER_POSITIONS,  ///< predict positions, project, velocities from the move (XPBD)
    SB_ORDER_VERLET,     ///< Boesch's Verlet article's loop: accelerate, collide, inertia, collide with impulse kept
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

// method_force.c (the "Mass spring algorithm" note)
/// An explicit method's a and b, scaled down together until `load` fits `allowed_load` (the
/// stiffest stable setting), as constants; returns the poles they deliver alone.
coef_result explicit_scaled(double a, double b, double load, double allowed_load, double m, double h,
                            spring_coef *out, bool already_clamped);
/// Every tuned spring's explicit impulse from the velocities before the pass (Jacobi).
void springs_jacobi_pass(sb_world *w, double h);
/// springs_jacobi_pass with each spring pulling along the axis its ends had when the sub-step began
/// (spring_start_axis; verlet, where the forces act a step ahead of the shown positions).
void springs_jacobi_pass_start_axis(sb_world *w, double h);
/// The same for the rigid springs (Nissen's safe spring in force and impulse), after the kicks.
void springs_rigid_jacobi_pass(sb_world *w, double h);
/// delivered_spring of constants stored as stiff = a m / h, damp = b m (force, impulse): stiff / h, b.
double explicit_delivered_spring(const sb_world *w, int k, double h, double *step_damping);
// method_impulse.c (Nissen's "Developing a rigid, stable spring")
double impulse_load(sb_poles target);
coef_result impulse_coefficients(sb_poles target, double m, double h, double allowed_load, spring_coef *out);
/// Nissen's safe coefficient for a rigid spring in a naive network; returns its load.
double impulse_rigid_coefficients(int springs_on_busiest_end, double m, double h, spring_coef *out);
// method_soft.c (Catto's "Soft Constraints")
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
/// True when the vector passes (springs here, contacts in contact_solver.c) run on this CPU.
bool vector_passes_active(void);

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
/// The impulse packed spring k's own passes gave it in the sub-step just done (negative: a pull).
double spring_substep_impulse(const sb_world *w, int k);
/// Axis and length error of every packed spring from the current positions.
void springs_geometry(sb_world *w);
/// The axes of this sub-step become the warm-start axes of the next.
void springs_store_axis(sb_world *w);

#endif
