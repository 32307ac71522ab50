// The sequential method: Nissen's iterative solver with warm start (seed 000, "Stable rigid
// springs with sequential impulses"). The rest impulse of the impulse spring (seed 002) is
// computed once per sub-step; each iteration applies `correction` times the difference between
// it and what the neighbours have already applied along the axis.
#include "springs_kernels.h"

// Written in velocity form, the rest impulse asks each spring for the relative normal velocity
//     vn' = vn0 - (Cs x / h + Cd vn0),
// and at convergence every spring of a chain (or any tree) reaches exactly that, whatever its
// neighbours do. A lone spring's length error then follows the force method's map (method_force.c)
// with a = Cs and b = Cd, so the same matching delivers the target poles exactly:
//     Cs = 1 + det - trace,   Cd = 1 - det,
// kept in Nissen's [0, 1] ("above 1 the spring overshoots") like the impulse method.
// Only at convergence does each spring meet its own target whatever the network does; a few
// iterations leave it close to the impulse method's Jacobi pass, so a tuned spring carries that
// method's network load (a 12 x 12 cloth of undamped 20 Hz springs reached 60000% at 2 sub-steps
// without it). Rigid springs are constraints iterated to convergence, with no load.
static double sequential_load(sb_poles target) { return impulse_load(target); }

static coef_result sequential_coefficients(sb_poles target, double m, double h, double allowed_load, spring_coef *out)
{
    (void)m;
    (void)h;
    spring_coef c; // Cs and Cd in Nissen's range, as the impulse method clamps them
    coef_result r = impulse_coefficients(target, 1.0, 1.0, allowed_load, &c);
    out->stiff = c.stiff; // Cs (stiff = Cs m / h with m = h = 1)
    out->damp = c.damp;   // Cd
    out->scale = 0.0;
    return r;
}

/// A rigid spring is the one-step spring of seed 002: Cs = Cd = 1, iterated to convergence with no load.
static double sequential_rigid_coefficients(int springs_on_busiest_end, double m, double h, spring_coef *out)
{
    (void)springs_on_busiest_end;
    (void)m;
    (void)h;
    out->stiff = 1.0;
    out->damp = 1.0;
    out->scale = 0.0;
    return 0.0;
}

// Warm start (seed 000): the impulse of the previous sub-step projected onto the new axis,
// scaled by the warm start coefficient; if the axis turned by 90 degrees or more it is zero.
// Nissen's listing differs from a textbook warm start in two ways, and both matter:
//  - the accumulator keeps only the step's corrective impulses, not the warm start itself,
//    which damps the warm start to about half the total at coefficient 1;
//  - only tension is warm started (`if (projectedImpulse > 0.0) return;`).
// Measured on the 32x32 cloth (8 iterations, 4 sub-steps): warm starting the total impulse
// in both directions diverges (154% stretch), the listing's rule stays under 9%.
static void springs_warm_start(sb_world *w)
{
    const double fraction = w->def.warmstart, tuned = tuned_warm_fraction(w);
    for (int k = 0; k < w->order_count; ++k) {
        double impulse = spring_warm_impulse(w, k, true, w->krigid[k] ? fraction : tuned);
        w->ktension[k] = impulse; // all the sub-step gives, for sb_spring_force (kimp keeps less)
        spring_apply(w, k, impulse);
    }
}

// The rest velocities from the sub-step's start, then the warm start.
static void sequential_springs_begin(sb_world *w, double h)
{
    springs_geometry(w);
    for (int k = 0; k < w->order_count; ++k) {
        double vn0 = spring_normal_velocity(w, k);
        w->kg[k] = sequential_rest_rate(w->kstiff[k], w->kdamp[k], w->ksep[k], vn0, h);
    }
    springs_warm_start(w);
}

// One corrective impulse per spring toward its rest velocity, in colour order.
static void sequential_springs_iterate(sb_world *w, double h)
{
    (void)h;
    const double correction = w->def.correction;
    for (int k = 0; k < w->order_count; ++k) {
        double impulse = sequential_impulse(spring_normal_velocity(w, k), w->kg[k], w->kmass[k], correction);
        w->kimp[k] += impulse;
        w->ktension[k] += impulse;
        spring_apply(w, k, impulse);
    }
}

const sb_method_kernels sequential_method = {
    .order = SB_ORDER_VELOCITIES,
    .load = sequential_load,
    .coefficients = sequential_coefficients,
    .rigid_coefficients = sequential_rigid_coefficients,
    .springs_begin = sequential_springs_begin,
    .constraints_begin = constraints_sequential_prepare, // the same rest velocity with C and its gradients
    .springs_iterate = sequential_springs_iterate,
    .constraints_iterate = constraints_sequential_iterate,
    .project_rigid_springs = true,
};
