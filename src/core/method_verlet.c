// The verlet method: Verlet circles with the two-pass collide of seed 004 ("Verlet collision
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
double verlet_load(sb_poles target)
{
    double a = 1.0 + target.det - target.trace, b = target.trace - 2.0 * target.det;
    double trace_side = 3.0 * a + 2.0 * b, det_side = 2.0 * (a + b);
    return trace_side > det_side ? trace_side : det_side;
}

coef_result verlet_coefficients(sb_poles target, double m, double h, double allowed_load, spring_coef *out)
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

void substep_verlet(sb_world *w, double h)
{
    sb_vec2 *pos = w->pos, *prev = w->prev;
    for (int i = 0; i < w->p_high; ++i)
        prev[i] = v2_mad(pos[i], -h, w->vel[i]);
    // accelerate: gravity, the drag and the tuned springs change the velocity; moving the
    // current position by (v_new - v_old) h is the article's x += a h^2
    apply_gravity_and_drag(w, h);
    springs_jacobi_pass(w); // rigid springs have zero constants here
    constraints_explicit_pass(w, true); // tuned constraints likewise (constraint.c); rigid ones are projected
    for (int i = 0; i < w->p_high; ++i)
        pos[i] = v2_mad(prev[i], h, w->vel[i]);

    for (int it = 0; it < w->def.iterations; ++it) {
        for (int k = 0; k < w->order_count; ++k) {
            if (!w->krigid[k])
                continue;
            sb_vec2 *pa = &pos[w->ka[k]], *pb = &pos[w->kb[k]];
            double dx = pb->x - pa->x, dy = pb->y - pa->y;
            double len = sqrt(dx * dx + dy * dy);
            double correction = len > 1e-12 ? (len - w->krest[k]) * w->kmass[k] / len : 0.0;
            w->ktension[k] -= (len - w->krest[k]) * w->kmass[k] / h; // the move as an impulse
            pa->x += w->kwa[k] * correction * dx;
            pa->y += w->kwa[k] * correction * dy;
            pb->x -= w->kwb[k] * correction * dx;
            pb->y -= w->kwb[k] * correction * dy;
        }
        constraints_project_rigid(w, 0.0, false);
        contacts_project_verlet(w, h);
    }
    contacts_friction_verlet(w);
    // inertia
    for (int i = 0; i < w->p_high; ++i) {
        sb_vec2 next = v2_sub(v2_scale(pos[i], 2.0), prev[i]);
        prev[i] = pos[i];
        pos[i] = next;
    }
    tethers_project(w, false);
    // Ropes and struts are one-sided, as contacts are, and get the contacts' second pass after
    // inertia (seed 004): without it a strut hit at 3 m/s gave way by v h, 5 cm at one sub-step.
    constraints_project_rigid(w, 0.0, true);
    contacts_project(w, w->def.verlet_preserve_impulse, h);
    for (int i = 0; i < w->p_high; ++i)
        w->vel[i] = v2_scale(v2_sub(pos[i], prev[i]), 1.0 / h);
    contacts_confine_to_bounds(w); // the bounds' contacts are soft; no centre leaves the box
    springs_store_axis(w);
}
