// The soft method: Catto's soft constraints (Catto, "Soft Constraints: Reinventing the
// Spring"), Jv + (beta/h) C + gamma lambda = 0, solved by sequential impulses. With
// gamma = 1/(c + h k) and beta = h k/(c + h k) "we can get a solution to the soft constraint
// system that is identical to the implicit Euler solution of the harmonic oscillator".
// springs_simd.c holds its three passes over the packed springs.
#include "sb_trig.h"
#include "springs_kernels.h"

// The discrete map. Implicit Euler of m x'' = -k x - c x' moves (x, h v) by
//     h v' = alpha h v - kappa x,   x' = x + h v',   alpha = m / q,  kappa = h^2 k / q,
// with q = m + h c + h^2 k: trace 1 - kappa + alpha, determinant alpha. Plugging k = m w^2 and
// c = 2 m zeta w into it over-damps and slows every spring (10 Hz at zeta 0.05 asked at one
// 60 Hz sub-step ran at 7.5 Hz and zeta 0.45). Matching the target poles instead gives
//     k = kappa m / (det h^2),   c = m (trace - 2 det) / (det h),   kappa = 1 + det - trace,
// where c < 0 (a light damping the step's own absorption must give back) is fine within the
// network limit below.
void implicit_euler_kc(sb_poles p, double m, double h, double *k, double *c)
{
    double kappa = 1.0 + p.det - p.trace;
    *k = kappa * m / (p.det * h * h);
    *c = m * (p.trace - 2.0 * p.det) / (p.det * h);
}

// Why implicit Euler is "always stable" (Catto's "Soft Constraints"), and how far a negative c may go. A network's
// update has a pole at -1 once 4 M + 2 h C + h^2 K stops being positive definite; a spring adds
// m (2 e + g) J^T J to it, with g = h^2 k / m and e = h c / m. Every spring with 2 c + h k >= 0
// (any positive c) only helps, which is the article's unconditional stability. A light damping
// at a coarse step needs c < 0, and then its load -(2 e + g) = (3 det - trace - 1) / det must fit
// what it is allowed (world_internal.h). A lone spring always fits (load <= 2 for any target
// within four sub-steps per period); past its allowance a spring keeps its frequency (the pole
// angle theta) and gets the least damping that fits: the largest radius y with
// (3 - L) y^2 - 2 y cos(theta) - 1 <= 0 for allowed load L. In a network, c >= 0.
//
// An over-damped target (two real poles) shows no frequency: what a frame shows of it is the
// slow pole z_s (how it creeps back) and its static stiffness (how far it sags). Implicit Euler
// ties the static stiffness to the poles, k_eff = (1 - z1)(1 - z2) m / (z1 z2 h^2), and the
// exact fast pole would make it far stiffer than k (10^4 times for the reload ramp's damping
// ratio 21 at 30 Hz, enough to throw a retuned truss 20% past its new shape). So z_s is kept and the fast
// pole chosen for k_eff = k: with x^2 = h^2 k / m = ln z1 ln z2,
//     z_f = (1 - z_s) / (1 - z_s + x^2 z_s).
// Nissen's Cd = 1 (a pole at 0) reads x^2 = Cs, his k = Cs m / h^2.
static sb_poles implicit_euler_representable(sb_poles p)
{
    double disc = p.trace * p.trace - 4.0 * p.det;
    if (disc < -1e-12)
        return p; // under-damped: exact (critical damping's double pole may round either way)
    double sq = disc > 0.0 ? sqrt(disc) : 0.0, z_s = 0.5 * (p.trace + sq);
    // The other root as det / z_s: trace - sq cancels to 0 when the fast pole is tiny (1e-29 for
    // damping ratio 21 at 60 Hz, the reload ramp's settling damping), which read as Nissen's Cd = 1.
    double z_other = z_s > 0.0 ? p.det / z_s : 0.0;
    if (z_s >= 1.0 || z_s <= 0.0 || z_other < 0.0)
        return p; // not a spring's decay (no stiffness, or a flip): leave it
    double x2 = z_other > 0.0 ? log(z_s) * log(z_other) : 1.0 + p.det - p.trace;
    double z_f = (1.0 - z_s) / (1.0 - z_s + x2 * z_s);
    sb_poles r = {z_s + z_f, z_s * z_f};
    return r;
}

double implicit_euler_load(sb_poles target)
{
    sb_poles p = implicit_euler_representable(target);
    double load = (3.0 * p.det - p.trace - 1.0) / p.det;
    return load > 0.0 ? load : 0.0;
}

sb_poles poles_without_negative_damping(sb_poles p, bool *clamped)
{
    // c >= 0 reads trace >= 2 det (implicit Euler; b >= 0 for verlet reads the same). Past it the
    // spring gets c = 0 and the stiffness h^2 k / m = theta^2 of its asked angle, the article's
    // own k = m w^2: poles trace = 2 det, det = 1 / (1 + theta^2). Keeping theta exactly would
    // need det = cos^2(theta), which goes deadbeat near four sub-steps per period, and a deadbeat
    // spring in a network is a rigid one without the rigid springs' projection (a 12 x 12 cloth
    // of undamped 20 Hz springs at one sub-step would stretch 1400% at 32 iterations).
    *clamped = false;
    if (p.trace >= 2.0 * p.det)
        return p;
    double theta = sb_acos(p.trace / (2.0 * sqrt(p.det)));
    double det = 1.0 / (1.0 + theta * theta);
    sb_poles r = {2.0 * det, det};
    *clamped = true;
    return r;
}

// Inside a network (method_force.c says why for the explicit map): implicit Euler's matching of a
// lone spring gives it the static stiffness kappa / det, 34% stiffer than asked for 6 Hz at
// damping ratio 0.5 at one 60 Hz sub-step, so a hanging chain would sag 26% short of m g / k. So a
// spring with other springs keeps x^2 = h^2 k / m (sb_poles_static_stiffness) and its lone decay
// det, which needs c = m (1/det - 1 - x^2) / h: then kappa = x^2 det and trace = 1 + det (1 - x^2).
// No negative damping in a network (world_internal.h): past it, c = 0 and det = 1 / (1 + x^2).
// Nissen's coefficients keep their poles, past the same bound; an over-damped target's static
// stiffness is kept by implicit_euler_representable already.
sb_poles implicit_network_target(sb_poles target, bool discrete, bool *moved)
{
    double x2;
    bool overdamped = target.trace * target.trace >= 4.0 * target.det; // implicit_euler_representable keeps its k
    if (discrete || overdamped || !sb_poles_static_stiffness(target, &x2))
        return poles_without_negative_damping(target, moved);
    *moved = false;
    double det = target.det;
    if (1.0 / det - 1.0 - x2 < 0.0) { // lighter than the step's own damping: c = 0
        det = 1.0 / (1.0 + x2);
        *moved = true;
    }
    sb_poles p = {1.0 + det * (1.0 - x2), det};
    return p;
}

sb_poles implicit_euler_poles_within(sb_poles target, double allowed_load, bool *clamped)
{
    sb_poles p = implicit_euler_representable(target);
    *clamped = false;
    if (implicit_euler_load(p) <= allowed_load)
        return p;
    double y = sqrt(p.det), cos_theta = p.trace / (2.0 * y);
    if (cos_theta > 1.0) // real poles have no negative load; guard rounding
        return p;
    double q = 3.0 - allowed_load; // allowed_load < load <= 3, so q > 0
    double y_max = (cos_theta + sqrt(cos_theta * cos_theta + q)) / q;
    sb_poles r = {2.0 * y_max * cos_theta, y_max * y_max};
    *clamped = true;
    return r;
}

// Catto's softness for impulses, written as mass and impulse scales as in Box2D v3 (the
// contacts use it): one sequential-impulse update is P = -m_soft (vn + (beta/h) C + (gamma/h)
// P_acc) with m_soft = 1 / (1/m + gamma/h) ("we need to adjust gamma when the physics engine
// deals with impulses").
static sb_soft soft_from_kc(double k, double c, double m, double h)
{
    double beta, gamma;
    sb_softness_from_kc(k, c, h, &beta, &gamma);
    double x = m * gamma / h; // effective mass times impulse-level gamma
    sb_soft soft;
    if (!isfinite(x)) { // no spring, no damper: the constraint lets go
        soft.bias_rate = 0.0;
        soft.mass_scale = 0.0;
        soft.impulse_scale = 1.0;
        return soft;
    }
    soft.bias_rate = beta / h;
    soft.mass_scale = 1.0 / (1.0 + x);
    soft.impulse_scale = x / (1.0 + x);
    return soft;
}

sb_soft soft_from_hertz(double hertz, double damping_ratio, double h)
{
    // Contacts keep Box2D v3's direct k and c: their softness is a stabiliser, not a tuning.
    double k, c;
    sb_tuning t = sb_tuning_hertz(hertz, damping_ratio);
    sb_tuning_to_kc(&t, 1.0, h, &k, &c);
    return soft_from_kc(k, c, 1.0, h);
}

// Constants. One sequential-impulse update of the soft constraint is
//     P = -(m_soft vn + m_soft (beta/h) C) - (gamma/h) m_soft P_acc,
// stored as damp = m_soft, stiff = m_soft beta / h and scale = m_soft gamma / h. With k and c from
// the target poles (implicit_euler_kc), h (c + h k) + m = m / det, and the three become
//     m_soft = m (1 - det),   m_soft beta / h = (1 + det - trace) m / h,   scale = det,
// finite even for zero damping (det = 1), where gamma and beta alone are not.
static coef_result soft_coefficients(sb_poles target, double m, double h, double allowed_load, spring_coef *out)
{
    coef_result r;
    r.delivered = implicit_euler_poles_within(target, allowed_load, &r.clamped);
    out->damp = m * (1.0 - r.delivered.det);
    out->stiff = (1.0 + r.delivered.det - r.delivered.trace) * m / h;
    out->scale = r.delivered.det;
    return r;
}

// A rigid spring is the soft constraint's stiff limit (Catto's "Soft Constraints": "when k becomes really stiff:
// gamma goes to zero and beta goes to one"): no softness, full position feedback.
static double soft_rigid_coefficients(int springs_on_busiest_end, double m, double h, spring_coef *out)
{
    (void)springs_on_busiest_end;
    out->stiff = m / h;
    out->damp = m;
    out->scale = 0.0;
    return 0.0; // unconditionally stable: no load
}

// Per sub-step, as Box2D v3's soft step (solver.c's velocity order): warm start, `iterations`
// solves with the bias, then integrate, project, and one relax solve without the bias for rigid
// springs. springs_simd.c holds the three passes.
const sb_method_kernels soft_method = {
    .name = "soft",
    .order = SB_ORDER_VELOCITIES,
    .load = implicit_euler_load,
    .coefficients = soft_coefficients,
    .rigid_coefficients = soft_rigid_coefficients,
    .network_target = implicit_network_target,
    .tension_in_accumulator = true,
    .springs_begin = soft_prepare_pass, // with the warm start
    .springs_iterate = soft_solve_pass,
    .constraints_iterate = constraints_soft_iterate, // the same soft impulse with C and its gradients
    .project_rigid_springs = true,
    .springs_relax = soft_relax_pass,
    .constraints_relax = constraints_soft_relax,
};
