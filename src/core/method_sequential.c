// The sequential method: Nissen's iterative solver with warm start (Nissen, "Stable rigid
// springs with sequential impulses"). The rest impulse of the impulse spring (Nissen's "Developing a rigid, stable spring") is
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
//
// That convergence is what a rigid spring (Cs = Cd = 1) wants and what the article iterates for.
// For a spring with a tuning it is wrong: each spring of a network then decays on its own as if
// its ends were alone, so a network loses its modes (two 5 Hz springs in series, whose slow mode
// is 2.71 Hz, ran at 4.99 Hz at 6 sub-steps, and at 2.37 to 3.37 Hz from 1 to 8 iterations at one
// sub-step; a hanging 3 Hz chain sagged half as far as it should). A tuned spring therefore gives
// its rest impulse once per sub-step, J = -(Cs x / h + Cd vn0) m, from the sub-step's starting
// velocities: Nissen's impulse spring (Nissen's "Developing a rigid, stable spring"), which he shows is "numerically exact" the force
// spring with k = Cs m / h^2, c = Cd m / h, so a network of them has the modes its k and c give
// whatever the iteration count. The iterations then correct the rigid springs, the constraints
// and the contacts against it. It carries the impulse method's network load.
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

/// Nissen's k = Cs m / h^2 and b = Cd (Nissen's "Developing a rigid, stable spring"), for the energy ledger.
static double sequential_delivered_spring(const sb_world *w, int k, double h, double *step_damping)
{
    *step_damping = w->pack.kdamp[k];
    return w->pack.kstiff[k] * w->pack.kmass[k] / (h * h);
}

/// A rigid spring is the one-step spring of Nissen's "Developing a rigid, stable spring": Cs = Cd = 1, iterated to convergence with no load.
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

// Warm start (Nissen's "Stable Rigid Springs with Sequential Impulses"): the impulse of the previous sub-step projected onto the new axis,
// scaled by the warm start coefficient; if the axis turned by 90 degrees or more it is zero.
// Nissen's listing differs from a textbook warm start in two ways, and both matter:
//  - the accumulator keeps only the step's corrective impulses, not the warm start itself,
//    which damps the warm start to about half the total at coefficient 1;
//  - only tension is warm started (`if (projectedImpulse > 0.0) return;`).
// Warm starting the total impulse in both directions makes a 32x32 cloth at 8 iterations and
// 4 sub-steps diverge; the listing's rule holds it.
static void springs_warm_start(sb_world *w)
{
    const double fraction = w->def.warmstart;
    for (int k = 0; k < w->pack.order_count; ++k) {
        if (!w->pack.krigid[k])
            continue; // a tuned spring gave its whole impulse already
        double impulse = spring_warm_impulse(w, k, true, fraction);
        w->pack.ktension[k] = impulse; // all the sub-step gives, for sb_spring_force (kimp keeps less)
        spring_apply(w, k, impulse);
    }
}

// The rest velocities from the sub-step's start; the tuned springs' rest impulses, all from the
// same velocities (Jacobi, as the impulse method); then the rigid springs' warm start.
static void sequential_springs_begin(sb_world *w, double h)
{
    springs_geometry(w);
    for (int k = 0; k < w->pack.order_count; ++k) {
        double vn0 = spring_normal_velocity(w, k);
        w->pack.kg[k] = sequential_rest_rate(w->pack.kstiff[k], w->pack.kdamp[k], w->pack.ksep[k], vn0, h);
        if (!w->pack.krigid[k]) {
            double impulse = sequential_impulse(vn0, w->pack.kg[k], w->pack.kmass[k], 1.0); // the whole rest impulse
            w->pack.kimp[k] = 0.0;
            w->pack.ktension[k] = impulse;
            spring_apply_to(w->scratch.dv, w, k, impulse);
        }
    }
    for (int i = 0; i < w->p_high; ++i) {
        w->vel[i] = v2_add(w->vel[i], w->scratch.dv[i]);
        w->scratch.dv[i] = v2(0.0, 0.0);
    }
    springs_warm_start(w);
}

// One corrective impulse per rigid spring toward its rest velocity, in colour order.
// The rest velocity also asks the rate the spring's turn needs for its length after the position
// update to be its length (rigid_turn_rate), from the velocities each iteration finds: the
// iterations then converge on the turn the chain makes, where the rate taken once from the
// sub-step's start velocities missed the turns the other links and gravity's kick add, and a
// 4-link chain gained energy over minutes at 16 iterations and more.
static void sequential_springs_iterate(sb_world *w, double h)
{
    (void)h;
    const double correction = w->def.correction;
    for (int k = 0; k < w->pack.order_count; ++k) {
        if (!w->pack.krigid[k])
            continue;
        const double rest = w->pack.kg[k] + spring_turn_rate(w, k);
        double impulse = sequential_impulse(spring_normal_velocity(w, k), rest, w->pack.kmass[k], correction);
        w->pack.kimp[k] += impulse;
        w->pack.ktension[k] += impulse;
        spring_apply(w, k, impulse);
    }
}

const sb_method_kernels sequential_method = {
    .name = "sequential",
    .order = SB_ORDER_VELOCITIES,
    .load = sequential_load,
    .delivered_spring = sequential_delivered_spring,
    .coefficients = sequential_coefficients,
    .rigid_coefficients = sequential_rigid_coefficients,
    .network_target = explicit_network_target,
    .forces_before_gravity = true,
    .springs_begin = sequential_springs_begin,
    .constraints_begin = constraints_sequential_prepare, // the same rest velocity with C and its gradients
    .springs_iterate = sequential_springs_iterate,
    .constraints_iterate = constraints_sequential_iterate,
    .joined_contacts_iterate = true, // the article iterates every constraint together (contact_solver.c)
    .project_rigid_springs = true,
};
