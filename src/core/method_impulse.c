// The impulse method: Nissen's impulse spring (Nissen, "Developing a rigid, stable spring"),
// J = -(Cs x / h + Cd v) m_reduced with Cs and Cd in [0, 1]. Nissen shows it gives "the
// numerically exact same result" as the force spring with k = Cs m / h^2 and c = Cd m / h, so it
// shares the force method's Jacobi pass and discrete map (method_force.c); what it adds is the
// range: "above 1 the spring overshoots", so Cs and Cd never leave [0, 1].
#include "springs_kernels.h"


// Cs and Cd are the a and b of the force method's map: Cs = 1 + det - trace, Cd = 1 - det.
// A target that needs Cs or Cd past 1 (more than one sub-step's worth of correction) is
// delivered at 1 and reported.
static void nissen_range(sb_poles target, double *cs, double *cd, bool *clamped)
{
    *cs = 1.0 + target.det - target.trace;
    *cd = 1.0 - target.det;
    *clamped = *cs > 1.0 || *cd > 1.0;
    *cs = *cs > 1.0 ? 1.0 : *cs;
    *cd = *cd > 1.0 ? 1.0 : *cd;
}

double impulse_load(sb_poles target)
{
    double cs, cd;
    bool clamped;
    nissen_range(target, &cs, &cd, &clamped);
    return cs + 2.0 * cd; // the force method's network limit (method_force.c)
}

coef_result impulse_coefficients(sb_poles target, double m, double h, double allowed_load, spring_coef *out)
{
    double cs, cd;
    bool clamped;
    nissen_range(target, &cs, &cd, &clamped);
    return explicit_scaled(cs, cd, cs + 2.0 * cd, allowed_load, m, h, out, clamped);
}

// A rigid spring in a naive network: Nissen's safe coefficient 1/(n+1) for both Cs and Cd,
// n the most springs on either end (Nissen, "Limitations and pitfalls"). Returns its load.
double impulse_rigid_coefficients(int springs_on_busiest_end, double m, double h, spring_coef *out)
{
    double coef = sb_nissen_safe_coefficient(springs_on_busiest_end);
    out->stiff = coef * m / h;
    out->damp = coef * m;
    out->scale = 0.0;
    return 3.0 * coef;
}

// The force method's pass (method_force.c); only the constants differ.
const sb_method_kernels impulse_method = {
    .name = "impulse",
    .order = SB_ORDER_VELOCITIES,
    .load = impulse_load,
    .delivered_spring = explicit_delivered_spring,
    .rigid_springs_explicit = true,
    .coefficients = impulse_coefficients,
    .rigid_coefficients = impulse_rigid_coefficients,
    .network_target = explicit_network_target,
    .forces_before_gravity = true,
    .springs_begin = springs_jacobi_pass,
    .constraints_begin = constraints_explicit_tuned_pass,
    .springs_after_kicks = springs_rigid_jacobi_pass,
    .constraints_after_kicks = constraints_explicit_rigid_pass,
};
