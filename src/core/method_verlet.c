// The verlet method: Verlet circles with the two-pass collide of Boesch ("Verlet collision
// with impulse preservation"). The article's loop is accelerate; collide without impulse
// preservation; inertia; collide with it. Velocity lives in the previous position; velocities
// are stored between sub-steps so the method can change between frames (prev = pos - v h
// rebuilds the article's state).
//
// Rigid springs are distance constraints projected with the first collide pass, so at rest
// they cancel the acceleration just as contacts do. Springs with a tuning are forces, added in
// the accelerate step like gravity: projecting them partially, as position based dynamics does,
// ties their stiffness and damping to the iteration count (10 Hz asked ran at 30 Hz at one
// sub-step).
#include "springs_kernels.h"

// The discrete map. The accelerate step moves the position by D = -a x - b u (u = v h,
// a = k h^2 / m, b = c h / m); inertia then gives x' = 2 (x + D) - (x - u) = x + u + 2 D and
// u' = x' - (x + D) = u + D. Its matrix [[1 - 2a, 1 - 2b], [-a, 1 - b]] has trace 2 - 2a - b and
// determinant 1 - a - b, so the target poles need
//     a = 1 + det - trace,   b = trace - 2 det,
// b < 0 giving back what the scheme itself absorbs. Network modes (mu times a and b) stay
// stable while mu (3a + 2b) < 4 and mu (a + b) < 2: verlet_load is the larger share.
static double verlet_load(sb_poles target)
{
    double a = 1.0 + target.det - target.trace, b = target.trace - 2.0 * target.det;
    double trace_side = 3.0 * a + 2.0 * b, det_side = 2.0 * (a + b);
    return trace_side > det_side ? trace_side : det_side;
}

// Inside a network: the shown motion px follows the force method's map with a and a + b
// (solver.c's verlet order), so a spring's static stiffness is a = 1 + det - trace, 4 times softer
// than asked for 6 Hz at damping ratio 20 at 6 sub-steps (a retune's settling damping: a hanging
// chain sagged 4.2 times too far, and swung twice the reference after a retune). As in the force
// method it keeps a = x^2 = h^2 k / m and its lone decay det; b = 1 - det - x^2 may not be negative
// in a network (world_internal.h): past it, b = 0, a = x^2 (det = 1 - x^2, trace = 2 - 2 x^2).
static sb_poles verlet_network_target(sb_poles target, bool discrete, bool *moved)
{
    double x2;
    if (discrete || !sb_poles_static_stiffness(target, &x2) || x2 >= 1.0)
        return poles_without_negative_damping(target, moved);
    *moved = false;
    sb_poles p = {1.0 + target.det - x2, target.det};
    if (p.trace < 2.0 * p.det) { // b < 0
        p.trace = 2.0 - 2.0 * x2;
        p.det = 1.0 - x2;
        *moved = true;
    }
    return p;
}

static coef_result verlet_coefficients(sb_poles target, double m, double h, double allowed_load, spring_coef *out)
{
    coef_result r = {target, false};
    double a = 1.0 + target.det - target.trace, b = target.trace - 2.0 * target.det;
    double load = verlet_load(target);
    if (load > allowed_load && load > 0.0) { // scaled down together: the stiffest stable setting
        double f = allowed_load / load;
        a *= f;
        b *= f;
        r.delivered.trace = 2.0 - 2.0 * a - b;
        r.delivered.det = 1.0 - a - b;
        r.clamped = true;
    }
    out->stiff = a * m / h;
    out->damp = b * m;
    out->scale = 0.0;
    return r;
}

// Rigid springs as distance constraints, one Gauss-Seidel sweep per iteration; the move is kept
// as an impulse for the spring's force. Each moves its ends along the axis they had at px, to its
// exact length: SHAKE's position step (shake_length_move), so that the pull is central where the
// motion is counted and a spinning body keeps its spin (moved along the axis at x, a step
// ahead, a spinning dumbbell loses angular momentum at every sub-step).
static void verlet_project_rigid_springs(sb_world *w, double h)
{
    sb_vec2 *pos = w->pos;
    for (int k = 0; k < w->pack.order_count; ++k) {
        if (!w->pack.krigid[k])
            continue;
        sb_vec2 *pa = &pos[w->pack.ka[k]], *pb = &pos[w->pack.kb[k]];
        const double dx = pb->x - pa->x, dy = pb->y - pa->y;
        double ux, uy, move;
        if (!spring_start_axis(w, k, &ux, &uy) || !shake_length_move(dx, dy, ux, uy, w->pack.krest[k], &move)) {
            const double len = sqrt(dx * dx + dy * dy); // along the axis at x
            if (len <= 1e-12)
                continue;
            ux = dx / len;
            uy = dy / len;
            move = w->pack.krest[k] - len;
        }
        const double s = move * w->pack.kmass[k];
        w->pack.ktension[k] += s / h; // the move as an impulse
        pa->x -= w->pack.kwa[k] * s * ux;
        pa->y -= w->pack.kwa[k] * s * uy;
        pb->x += w->pack.kwb[k] * s * ux;
        pb->y += w->pack.kwb[k] * s * uy;
    }
}

// In the shown positions px the map is the force method's with a and a + b (solver.c's verlet
// order), for the energy ledger.
static double verlet_delivered_spring(const sb_world *w, int k, double h, double *step_damping)
{
    double stiffness = explicit_delivered_spring(w, k, h, step_damping);
    *step_damping += w->pack.kmass[k] > 0.0 ? w->pack.kstiff[k] * h / w->pack.kmass[k] : 0.0;
    return stiffness;
}

// solver.c's verlet order: accelerate (gravity, the drag, the tuned springs and constraints as
// forces), the first collide pass with the rigid springs and constraints each iteration, inertia,
// then the second, impulse-preserving pass (ropes and struts with it).
const sb_method_kernels verlet_method = {
    .name = "verlet",
    .order = SB_ORDER_VERLET,
    .load = verlet_load,
    .delivered_spring = verlet_delivered_spring,
    .coefficients = verlet_coefficients,
    .network_target = verlet_network_target,
    .forces_before_gravity = true,
    .springs_begin = springs_jacobi_pass_start_axis, // the tuned ones (method_force.c); rigid ones are projected
    .constraints_begin = constraints_explicit_tuned_pass,
    .springs_iterate = verlet_project_rigid_springs,
    .constraints_iterate = constraints_project_rigid_pass,
    .project_rigid_springs = true,
};
