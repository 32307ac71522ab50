// One sub-step of each spring method. Tunings become constants only through
// sb_tuning.h; each method's own algebra follows its article in shared/seeds.
#include "sb_tuning.h"
#include "world_internal.h"

// Geometry of every spring from the current positions: axis a->b, length error,
// reduced mass. A zero-length spring keeps its previous axis so it never divides by zero.
static void springs_geometry(sb_world *w)
{
    for (int s = 0; s < w->s_high; ++s) {
        int a = w->s_a[s], b = w->s_b[s];
        if (a < 0)
            continue;
        sb_vec2 d = v2_sub(w->pos[b], w->pos[a]);
        double len = v2_len(d);
        sb_vec2 u;
        if (len > 1e-12)
            u = v2_scale(d, 1.0 / len);
        else if (w->axis_prev[s].x != 0.0 || w->axis_prev[s].y != 0.0)
            u = w->axis_prev[s];
        else
            u = v2(1.0, 0.0);
        w->axis[s] = u;
        w->sep[s] = len - w->rest[s];
        w->eff_mass[s] = sb_reduced_mass(w->inv_mass[a], w->inv_mass[b]);
    }
}

static inline double spring_normal_velocity(const sb_world *w, int s)
{
    return v2_dot(v2_sub(w->vel[w->s_b[s]], w->vel[w->s_a[s]]), w->axis[s]);
}

// Equal and opposite impulses along the axis; positive pushes the ends apart.
static inline void spring_apply(sb_world *w, int s, double impulse)
{
    int a = w->s_a[s], b = w->s_b[s];
    sb_vec2 p = v2_scale(w->axis[s], impulse);
    w->vel[a] = v2_mad(w->vel[a], -w->inv_mass[a], p);
    w->vel[b] = v2_mad(w->vel[b], w->inv_mass[b], p);
}

static void integrate_positions(sb_world *w, double h)
{
    // Dead slots and fixed particles at rest have zero velocity, so no branch is needed;
    // a fixed particle given a velocity moves kinematically.
    for (int i = 0; i < w->p_high; ++i)
        w->pos[i] = v2_mad(w->pos[i], h, w->vel[i]);
}

static int busiest_end(const sb_world *w, int s)
{
    int da = w->degree[w->s_a[s]], db = w->degree[w->s_b[s]];
    return da > db ? da : db;
}

// ------------------------------------------------------------------ force, impulse

// The force spring of seed 001 and the impulse spring of seed 002 are one equation:
// Nissen shows J = -(Cs x / h + Cd v) m_red gives "the numerically exact same result" as
// f = -(Cs x / h^2 + Cd v / h) m_red under symplectic Euler, and Hooke's f = -k x - c v is
// the same with k = Cs m / h^2, c = Cd m / h. Both read the pre-step state of every spring
// (a Jacobi pass). What differs is the tuning: `force` uses k and c as given, so a stiff
// hertz can exceed the symplectic Euler limit (reported); `impulse` caps Cs and Cd at 1.
// A rigid spring uses Nissen's safe coefficient 1/(n+1) in both.
void substep_force_or_impulse(sb_world *w, double h, bool first_substep)
{
    const bool force = w->def.method == SB_METHOD_FORCE;
    springs_geometry(w);
    for (int s = 0; s < w->s_high; ++s) {
        int a = w->s_a[s], b = w->s_b[s];
        double m = w->eff_mass[s];
        if (a < 0 || m == 0.0)
            continue;
        double k, c;
        if (sb_tuning_is_rigid(&w->tuning[s])) {
            double coef = sb_nissen_safe_coefficient(busiest_end(w, s));
            k = coef * m / (h * h);
            c = coef * m / h;
        } else if (force) {
            sb_tuning_to_kc(&w->tuning[s], m, h, &k, &c);
        } else {
            double cs, cd;
            sb_tuning_to_coefficients(&w->tuning[s], m, h, &cs, &cd);
            k = cs * m / (h * h);
            c = cd * m / h;
        }
        if (force && first_substep) {
            double omega, zeta;
            sb_kc_to_omega_zeta(k, c, m, &omega, &zeta);
            double limit = sb_symplectic_omega_h_limit(zeta);
            if (omega * h >= limit) {
                sb_stats *st = &w->stats;
                st->unstable_springs += 1;
                if (omega * h / limit > st->worst_omega_h / (st->worst_omega_h_limit > 0 ? st->worst_omega_h_limit : 1)) {
                    st->worst_omega_h = omega * h;
                    st->worst_omega_h_limit = limit;
                    st->worst_spring.index = (uint32_t)s;
                    st->worst_spring.generation = w->s_gen[s];
                }
            }
        }
        double impulse = -(k * w->sep[s] + c * spring_normal_velocity(w, s)) * h;
        sb_vec2 p = v2_scale(w->axis[s], impulse);
        w->dv[a] = v2_mad(w->dv[a], -w->inv_mass[a], p);
        w->dv[b] = v2_mad(w->dv[b], w->inv_mass[b], p);
    }
    for (int i = 0; i < w->p_high; ++i) {
        w->vel[i] = v2_add(w->vel[i], w->dv[i]);
        w->dv[i] = v2(0.0, 0.0);
    }
    // Contacts are non-penetration constraints solved after the springs' pass.
    contacts_prepare(w, h, first_substep);
    contacts_warm_start(w);
    for (int it = 0; it < w->def.iterations; ++it)
        contacts_solve(w, h, true);
    integrate_positions(w, h);
    contacts_update_geometry(w);
    for (int it = 0; it < w->def.iterations; ++it)
        contacts_solve(w, h, false);
}

// ------------------------------------------------------------------ warm start

// Warm start (seed 000): the impulse of the previous sub-step projected onto the new axis,
// scaled by the warm start coefficient; if the axis turned by 90 degrees or more it is zero.
// Nissen's listing differs from a textbook warm start in two ways, and both matter:
//  - the accumulator keeps only the step's corrective impulses, not the warm start itself,
//    which damps the warm start to about half the total at coefficient 1;
//  - only tension is warm started (`if (projectedImpulse > 0.0) return;`).
// Measured on the 32x32 cloth (8 iterations, 4 sub-steps): warm starting the total impulse
// in both directions diverges (154% stretch), the listing's rule stays under 9%.
// Catto's soft constraint warm starts the total in both directions, as Box2D does
// (`nissen_listing` false): its softness keeps that stable.
static void springs_warm_start(sb_world *w, bool nissen_listing)
{
    const double fraction = w->def.warmstart;
    for (int s = 0; s < w->s_high; ++s) {
        if (w->s_a[s] < 0)
            continue;
        double turn = v2_dot(w->axis_prev[s], w->axis[s]);
        double impulse = turn > 0.0 ? w->impulse[s] * turn * fraction : 0.0;
        if (nissen_listing) {
            if (impulse > 0.0) // positive pushes the ends apart: compression
                impulse = 0.0;
            w->impulse[s] = 0.0;
        } else {
            w->impulse[s] = impulse;
        }
        if (impulse != 0.0)
            spring_apply(w, s, impulse);
    }
}

static void springs_store_axis(sb_world *w)
{
    for (int s = 0; s < w->s_high; ++s)
        w->axis_prev[s] = w->axis[s];
}

// ------------------------------------------------------------------ sequential

// Nissen's iterative solver (seed 000): the rest impulse is computed once per step from
// the impulse spring of seed 002; each iteration applies `correction` times the difference
// between it and what neighbours have already applied along the axis. Written in velocity
// form: the target relative normal velocity is vn0 - (Cs C / h + Cd vn0), which keeps the
// article's impulse error dimensionally consistent for unequal masses.
void substep_sequential(sb_world *w, double h, bool first_substep)
{
    springs_geometry(w);
    for (int s = 0; s < w->s_high; ++s) {
        if (w->s_a[s] < 0 || w->eff_mass[s] == 0.0)
            continue;
        double cs = 1.0, cd = 1.0; // rigid: the one-step spring of seed 002
        if (!sb_tuning_is_rigid(&w->tuning[s]))
            sb_tuning_to_coefficients(&w->tuning[s], w->eff_mass[s], h, &cs, &cd);
        double vn0 = spring_normal_velocity(w, s);
        w->gain_pos[s] = vn0 - (cs * w->sep[s] / h + cd * vn0);
    }
    springs_warm_start(w, true);  // Nissen's listing
    contacts_prepare(w, h, first_substep);
    contacts_warm_start(w);
    const double correction = w->def.correction;
    for (int it = 0; it < w->def.iterations; ++it) {
        for (int s = 0; s < w->s_high; ++s) {
            if (w->s_a[s] < 0 || w->eff_mass[s] == 0.0)
                continue;
            double error = spring_normal_velocity(w, s) - w->gain_pos[s];
            double impulse = -error * w->eff_mass[s] * correction;
            w->impulse[s] += impulse;
            spring_apply(w, s, impulse);
        }
        contacts_solve(w, h, true);
    }
    springs_store_axis(w);
    integrate_positions(w, h);
    contacts_update_geometry(w);
    for (int it = 0; it < w->def.iterations; ++it)
        contacts_solve(w, h, false);
}

// ------------------------------------------------------------------ soft

// Catto's soft constraint (seed 003): Jv + (beta/h) C + gamma lambda = 0, with gamma and beta
// from k = m w^2, c = 2 m zeta w. For impulses gamma is divided by h ("we need to adjust
// gamma when the physics engine deals with impulses"). Solving one sequential-impulse
// update for the impulse P gives P = -m_soft (vn + (beta/h) C + (gamma/h) P_acc) with
// m_soft = 1 / (1/m + gamma/h); written as mass and impulse scales as in Box2D v3.
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
    // With hertz tuning k and c scale with the mass, and m gamma does not depend on it.
    double k, c;
    sb_tuning t = sb_tuning_hertz(hertz, damping_ratio);
    sb_tuning_to_kc(&t, 1.0, h, &k, &c);
    return soft_from_kc(k, c, 1.0, h);
}

/// Rigid constraints in the soft solver are rigid in velocity and correct position error
/// softly, as Box2D v3's soft step does for joints: twice the contact hertz
/// (min(30 Hz, a quarter of the sub-step rate)) with damping ratio 2; a relax pass without
/// the bias then removes the velocity the correction added.
static double rigid_hertz(double h)
{
    double contact_hertz = 0.25 / h < 30.0 ? 0.25 / h : 30.0;
    return 2.0 * contact_hertz;
}

void substep_soft(sb_world *w, double h, bool first_substep)
{
    springs_geometry(w);
    const sb_soft rigid = soft_from_hertz(rigid_hertz(h), 2.0, h);
    for (int s = 0; s < w->s_high; ++s) {
        double m = w->eff_mass[s];
        if (w->s_a[s] < 0 || m == 0.0)
            continue;
        sb_soft soft = rigid;
        w->rigid[s] = sb_tuning_is_rigid(&w->tuning[s]);
        if (!w->rigid[s]) {
            double k, c;
            sb_tuning_to_kc(&w->tuning[s], m, h, &k, &c);
            soft = soft_from_kc(k, c, m, h);
        }
        w->gain_pos[s] = soft.bias_rate * w->sep[s];
        w->gain_vel[s] = soft.mass_scale * m;
        w->gain_extra[s] = soft.impulse_scale;
    }
    springs_warm_start(w, false);
    contacts_prepare(w, h, first_substep);
    contacts_warm_start(w);
    for (int it = 0; it < w->def.iterations; ++it) {
        for (int s = 0; s < w->s_high; ++s) {
            if (w->s_a[s] < 0 || w->eff_mass[s] == 0.0)
                continue;
            double vn = spring_normal_velocity(w, s);
            double impulse = -w->gain_vel[s] * (vn + w->gain_pos[s]) - w->gain_extra[s] * w->impulse[s];
            w->impulse[s] += impulse;
            spring_apply(w, s, impulse);
        }
        contacts_solve(w, h, true);
    }
    springs_store_axis(w);
    integrate_positions(w, h);
    contacts_update_geometry(w);
    for (int it = 0; it < w->def.iterations; ++it) {
        for (int s = 0; s < w->s_high; ++s) {
            if (w->s_a[s] < 0 || w->eff_mass[s] == 0.0 || !w->rigid[s])
                continue;
            double impulse = -w->eff_mass[s] * spring_normal_velocity(w, s);
            w->impulse[s] += impulse;
            spring_apply(w, s, impulse);
        }
        contacts_solve(w, h, false);
    }
}

// ------------------------------------------------------------------ verlet

// Verlet (seed 004): velocity lives in the previous position. The article's loop is
// accelerate; collide without impulse preservation; inertia; collide with it. Springs are
// distance constraints projected in the first pass, so at rest they cancel the
// acceleration just as contacts do. Velocities are stored between sub-steps so that the
// method can change between frames; prev = pos - v h rebuilds the article's state.
void substep_verlet(sb_world *w, double h)
{
    sb_vec2 *pos = w->pos, *prev = w->prev;
    for (int i = 0; i < w->p_high; ++i)
        prev[i] = v2_mad(pos[i], -h, w->vel[i]);
    apply_gravity_and_drag(w, h);
    // accelerate: moving the current position by (v_new - v_old) h is the article's x += a h^2
    for (int i = 0; i < w->p_high; ++i)
        pos[i] = v2_mad(prev[i], h, w->vel[i]);

    springs_geometry(w);
    const int iterations = w->def.iterations;
    for (int s = 0; s < w->s_high; ++s) {
        int a = w->s_a[s], b = w->s_b[s];
        double m = w->eff_mass[s];
        if (a < 0 || m == 0.0)
            continue;
        double cs = 1.0, cd = 0.0;
        if (!sb_tuning_is_rigid(&w->tuning[s]))
            sb_tuning_to_coefficients(&w->tuning[s], m, h, &cs, &cd);
        // Split Cs over the iterations so that their product gives Cs for a lone spring.
        w->gain_pos[s] = cs >= 1.0 ? 1.0 : 1.0 - pow(1.0 - cs, 1.0 / iterations);
        if (cd > 0.0) {
            // Damping removes a fraction Cd of the relative normal velocity, through prev.
            sb_vec2 u = w->axis[s];
            double vn = v2_dot(v2_sub(v2_sub(pos[b], prev[b]), v2_sub(pos[a], prev[a])), u);
            double dvn = cd * vn * m;
            prev[a] = v2_mad(prev[a], -w->inv_mass[a] * dvn, u);
            prev[b] = v2_mad(prev[b], w->inv_mass[b] * dvn, u);
        }
    }
    for (int it = 0; it < iterations; ++it) {
        for (int s = 0; s < w->s_high; ++s) {
            int a = w->s_a[s], b = w->s_b[s];
            double m = w->eff_mass[s];
            if (a < 0 || m == 0.0)
                continue;
            sb_vec2 d = v2_sub(pos[b], pos[a]);
            double len = v2_len(d);
            if (len < 1e-12)
                continue;
            double correction = w->gain_pos[s] * (len - w->rest[s]) * m / len;
            pos[a] = v2_mad(pos[a], w->inv_mass[a] * correction, d);
            pos[b] = v2_mad(pos[b], -w->inv_mass[b] * correction, d);
        }
        contacts_project(w, false, h);
    }
    // inertia
    for (int i = 0; i < w->p_high; ++i) {
        sb_vec2 next = v2_sub(v2_scale(pos[i], 2.0), prev[i]);
        prev[i] = pos[i];
        pos[i] = next;
    }
    if (w->def.verlet_preserve_impulse)
        contacts_project(w, true, h);
    else
        contacts_project(w, false, h);
    for (int i = 0; i < w->p_high; ++i)
        w->vel[i] = v2_scale(v2_sub(pos[i], prev[i]), 1.0 / h);
    springs_store_axis(w);
}

// ------------------------------------------------------------------ xpbd

// XPBD (Macklin, Mueller, Chentanez 2016; not one of the seeds): compliance alpha = 1/k,
// alpha~ = alpha / h^2, and damping gamma = alpha c / h, so that at convergence the
// constraint force is -k C - c dC/dt integrated by implicit Euler. Multipliers start at
// zero each sub-step, so small sub-steps carry the stiffness.
void substep_xpbd(sb_world *w, double h, bool first_substep)
{
    sb_vec2 *pos = w->pos, *prev = w->prev;
    contacts_prepare(w, h, first_substep);
    for (int i = 0; i < w->p_high; ++i) {
        prev[i] = pos[i];
        pos[i] = v2_mad(pos[i], h, w->vel[i]);
    }
    springs_geometry(w);
    for (int s = 0; s < w->s_high; ++s) {
        double m = w->eff_mass[s];
        if (w->s_a[s] < 0 || m == 0.0)
            continue;
        double alpha_tilde = 0.0, gamma = 0.0;
        if (!sb_tuning_is_rigid(&w->tuning[s])) {
            double k, c;
            sb_tuning_to_kc(&w->tuning[s], m, h, &k, &c);
            alpha_tilde = k > 0.0 ? 1.0 / (k * h * h) : INFINITY;
            gamma = k > 0.0 ? c / (k * h) : 0.0;
        }
        w->gain_pos[s] = alpha_tilde;
        w->gain_vel[s] = gamma;
        w->impulse[s] = 0.0; // lambda, position-level
    }
    for (int it = 0; it < w->def.iterations; ++it) {
        for (int s = 0; s < w->s_high; ++s) {
            int a = w->s_a[s], b = w->s_b[s];
            if (a < 0 || w->eff_mass[s] == 0.0 || !isfinite(w->gain_pos[s]))
                continue;
            sb_vec2 d = v2_sub(pos[b], pos[a]);
            double len = v2_len(d);
            if (len < 1e-12)
                continue;
            sb_vec2 n = v2_scale(d, 1.0 / len);
            double wsum = w->inv_mass[a] + w->inv_mass[b];
            double alpha_tilde = w->gain_pos[s], gamma = w->gain_vel[s];
            double approach = v2_dot(n, v2_sub(v2_sub(pos[b], prev[b]), v2_sub(pos[a], prev[a])));
            double dlambda = (-(len - w->rest[s]) - alpha_tilde * w->impulse[s] - gamma * approach) /
                             ((1.0 + gamma) * wsum + alpha_tilde);
            w->impulse[s] += dlambda;
            pos[a] = v2_mad(pos[a], -w->inv_mass[a] * dlambda, n);
            pos[b] = v2_mad(pos[b], w->inv_mass[b] * dlambda, n);
        }
        contacts_project_xpbd(w);
    }
    for (int i = 0; i < w->p_high; ++i)
        w->vel[i] = v2_scale(v2_sub(pos[i], prev[i]), 1.0 / h);
    contacts_xpbd_velocity(w);
    springs_store_axis(w);
}
