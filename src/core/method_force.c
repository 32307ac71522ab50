// The force method: explicit Hooke springs f = -k x - c v under symplectic Euler (the "Mass
// spring algorithm" note). That note and Catto's "Soft Constraints" both say what limits it: it is "only
// conditionally stable", and a stiff spring "may not be stable" at a given step. springbox keeps
// the method and its limits visible, but never lets it blow up: a spring it cannot hold is
// clamped to the stiffest setting its neighbourhood keeps stable, and reported (solver.c).
#include "springs_kernels.h"

// The discrete map. For a lone pair of reduced mass m, with a = k h^2 / m and b = c h / m,
// symplectic Euler moves (x, h v) by
//     h v' = (1 - b) h v - a x,    x' = x + h v'
// whose matrix [[1 - a, 1 - b], [-a, 1 - b]] has trace 2 - a - b and determinant 1 - b.
// Plugging k = m w^2 and c = 2 m zeta w into it gives the wrong motion at any finite step
// (10 Hz asked at one 60 Hz sub-step ran at 10.9 Hz). Matching the trace and the determinant
// of the target poles instead delivers the asked motion exactly:
//     b = 1 - det,   a = 1 + det - trace.

// The network limit of symplectic Euler: a mode with mu times the lone pair's a and b has trace
// 2 - mu (a + b) and determinant 1 - mu b, and the Jury test keeps it while mu (a + 2 b) < 4.
// Inside a network. The matching above makes a lone pair's motion exact, but its stiffness is
// a m / h^2 with a = 1 + det - trace, softer than the asked k = m omega^2 at a coarse step (15 Hz
// at damping ratio 0.1 at 120 Hz: 12% softer, so a lone spring sags 14% too far). A network's low
// modes are set by its springs' stiffness against its masses, and they go slow with it: with the
// lone matching, a chain of 1 and 100 kg beads on 15 Hz springs swings at 0.611 Hz against the
// continuous 0.651 at two sub-steps. So a spring with other springs at a free end keeps its lone
// decay per step (b = 1 - det) and its static stiffness, a = k h^2 / m = ln z1 ln z2
// (sb_poles_static_stiffness).
// Nissen's coefficients (`discrete`) are a discrete ask and stay as they are, as does a pole at 0.
sb_poles explicit_network_target(sb_poles target, bool discrete, bool *moved)
{
    *moved = false;
    double stiffness;
    if (discrete || !sb_poles_static_stiffness(target, &stiffness))
        return target;
    sb_poles p = {1.0 + target.det - stiffness, target.det};
    return p;
}

double explicit_delivered_spring(const sb_world *w, int k, double h, double *step_damping)
{
    *step_damping = w->pack.kmass[k] > 0.0 ? w->pack.kdamp[k] / w->pack.kmass[k] : 0.0;
    return w->pack.kstiff[k] / h;
}

static double force_load(sb_poles target)
{
    double a = 1.0 + target.det - target.trace, b = 1.0 - target.det;
    return a + 2.0 * b;
}

coef_result explicit_scaled(double a, double b, double load, double allowed_load, double m, double h,
                            spring_coef *out, bool already_clamped)
{
    coef_result r;
    r.clamped = already_clamped;
    if (load > allowed_load && load > 0.0) {
        double f = allowed_load / load;
        a *= f;
        b *= f;
        r.clamped = true;
    }
    r.delivered = sb_nissen_poles(a, b); // the map above is Nissen's (Nissen's "Developing a rigid, stable spring")
    out->stiff = a * m / h;
    out->damp = b * m;
    out->scale = 0.0;
    return r;
}

static coef_result force_coefficients(sb_poles target, double m, double h, double allowed_load, spring_coef *out)
{
    double a = 1.0 + target.det - target.trace, b = 1.0 - target.det;
    return explicit_scaled(a, b, a + 2.0 * b, allowed_load, m, h, out, false);
}

// Every spring reads the pre-pass velocities (Jacobi): the impulse -(k x + c v) h, written with
// the packed constants as -(stiff x + damp v), goes to the accumulator first.
/// The springs of one kind (`rigid`) from the velocities before the pass, all at once.
/// `start_axis`: each pulls along the axis its ends had when the sub-step began (spring_start_axis),
/// as verlet's do.
static void jacobi_pass(sb_world *w, bool rigid, bool start_axis)
{
    springs_geometry(w);
    for (int k = 0; k < w->pack.order_count; ++k) {
        if ((bool)w->pack.krigid[k] != rigid) {
            if (!rigid)
                w->pack.ktension[k] = 0.0; // a rigid one's comes later: its pass, or verlet's projection
            continue;
        }
        if (start_axis)
            spring_start_axis(w, k, &w->pack.kux[k], &w->pack.kuy[k]);
        double impulse = explicit_impulse(w->pack.kstiff[k], w->pack.kdamp[k], w->pack.ksep[k], spring_normal_velocity(w, k));
        w->pack.ktension[k] = impulse;
        spring_apply_to(w->scratch.dv, w, k, impulse);
    }
    for (int i = 0; i < w->p_high; ++i) {
        w->vel[i] = v2_add(w->vel[i], w->scratch.dv[i]);
        w->scratch.dv[i] = v2(0.0, 0.0);
    }
}

void springs_jacobi_pass(sb_world *w, double h)
{
    (void)h;
    jacobi_pass(w, false, false);
}

void springs_jacobi_pass_start_axis(sb_world *w, double h)
{
    (void)h;
    jacobi_pass(w, false, true);
}

// Nissen's safe spring for a rigid one reads the velocities after the sub-step's kicks, as a
// constraint answers what pulls on it: before them, a bob held by a rigid link read no load at
// all (the tether held it) and reported no force.
void springs_rigid_jacobi_pass(sb_world *w, double h)
{
    (void)h;
    jacobi_pass(w, true, false);
}

// Springs first, then contacts as non-penetration constraints (solver.c's velocity order). An
// explicit method cannot hold a rigid spring: it runs as Nissen's safe spring (method_impulse.c)
// and is reported. Projecting it after the step, as the iterative methods do, only hides the
// error: the explicit velocities keep pulling along the links, and a 12 x 12 rigid cloth at one
// sub-step ended with 40 times the kinetic energy at 32 iterations.
const sb_method_kernels force_method = {
    .name = "force",
    .order = SB_ORDER_VELOCITIES,
    .load = force_load,
    .delivered_spring = explicit_delivered_spring,
    .rigid_springs_explicit = true,
    .coefficients = force_coefficients,
    .rigid_coefficients = impulse_rigid_coefficients, // Nissen's safe spring (method_impulse.c)
    .network_target = explicit_network_target,
    .forces_before_gravity = true,
    .springs_begin = springs_jacobi_pass,
    .constraints_begin = constraints_explicit_tuned_pass,
    .springs_after_kicks = springs_rigid_jacobi_pass,
    .constraints_after_kicks = constraints_explicit_rigid_pass,
};
