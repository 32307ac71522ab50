// One sub-step of each spring method. Tunings become constants only through
// sb_tuning.h, once per step in springs_pack; each method's own algebra follows its
// article in shared/seeds. The loops run over the packed arrays in colour order.
#include "sb_tuning.h"
#include "springs_kernels.h"

#include <stdlib.h>
#include <string.h>

// ------------------------------------------------------------------ order and packing

// Greedy graph colouring: each spring takes the lowest colour not yet used at either of
// its particles (colours past 63 share the last one, which is only slower, never wrong).
// Springs are then listed colour by colour, in slot order within a colour, so the order is
// deterministic.
static void build_order(sb_world *w)
{
    uint64_t *used = calloc((size_t)(w->p_high > 0 ? w->p_high : 1), sizeof *used);
    uint8_t *color = malloc((size_t)(w->s_high > 0 ? w->s_high : 1));
    int count[64] = {0};
    if (!used || !color) { // without memory the slot order still solves correctly
        w->order_count = 0;
        w->colors = 0; // no colours: the passes run one spring at a time
        for (int s = 0; s < w->s_high; ++s)
            if (w->s_a[s] >= 0)
                w->order[w->order_count++] = s;
        free(used);
        free(color);
        return;
    }
    w->colors = 0;
    w->color_start[0] = 0;
    for (int s = 0; s < w->s_high; ++s) {
        if (w->s_a[s] < 0)
            continue;
        uint64_t taken = used[w->s_a[s]] | used[w->s_b[s]];
        int c = 0;
        while (c < 63 && (taken >> c) & 1u)
            c += 1;
        color[s] = (uint8_t)c;
        used[w->s_a[s]] |= (uint64_t)1 << c;
        used[w->s_b[s]] |= (uint64_t)1 << c;
        count[c] += 1;
        w->colors = c + 1 > w->colors ? c + 1 : w->colors;
    }
    int start[64], total = 0;
    for (int c = 0; c < 64; ++c) {
        start[c] = total;
        w->color_start[c] = total;
        total += count[c];
    }
    w->color_start[64] = total;
    w->color_start[w->colors] = total;
    for (int s = 0; s < w->s_high; ++s)
        if (w->s_a[s] >= 0)
            w->order[start[color[s]]++] = s;
    w->order_count = total;
    w->order_dirty = false;
    free(used);
    free(color);
}

static int busiest_end(const sb_world *w, int s)
{
    int da = w->degree[w->s_a[s]], db = w->degree[w->s_b[s]];
    return da > db ? da : db;
}

static void report_explicit_limit(sb_world *w, int s, double k, double c, double m, double h)
{
    double omega, zeta;
    sb_kc_to_omega_zeta(k, c, m, &omega, &zeta);
    double limit = sb_symplectic_omega_h_limit(zeta);
    if (omega * h < limit)
        return;
    sb_stats *st = &w->stats;
    st->unstable_springs += 1;
    double worst = st->worst_omega_h_limit > 0 ? st->worst_omega_h / st->worst_omega_h_limit : 0.0;
    if (omega * h / limit > worst) {
        st->worst_omega_h = omega * h;
        st->worst_omega_h_limit = limit;
        st->worst_spring.index = (uint32_t)s;
        st->worst_spring.generation = w->s_gen[s];
    }
}

static sb_soft soft_from_kc(double k, double c, double m, double h);

// Fills the packed arrays for a step: ends, masses, warm starts, and each method's
// constants from the tuning (masses and the sub-step do not change within a step).
void springs_pack(sb_world *w, double h)
{
    if (w->order_dirty)
        build_order(w);
    const sb_method method = w->def.method;
    // A rigid spring is the soft constraint's stiff limit (seed 003: "when k becomes really
    // stiff: gamma goes to zero and beta goes to one"): no softness, full position feedback.
    const sb_soft rigid_soft = {1.0 / h, 1.0, 0.0};
    for (int k = 0; k < w->order_count; ++k) {
        int s = w->order[k], a = w->s_a[s], b = w->s_b[s];
        double wa = w->inv_mass[a], wb = w->inv_mass[b];
        double m = sb_reduced_mass(wa, wb);
        const sb_tuning *t = &w->tuning[s]; // read only for hertz springs below
        bool rigid = w->s_rigid[s];
        w->ka[k] = a;
        w->kb[k] = b;
        w->kwa[k] = wa;
        w->kwb[k] = wb;
        w->kmass[k] = m;
        w->krest[k] = w->rest[s];
        w->kimp[k] = w->impulse[s];
        w->kpux[k] = w->axis_prev[s].x;
        w->kpuy[k] = w->axis_prev[s].y;
        w->krigid[k] = rigid;
        w->kc1[k] = w->kc2[k] = w->kc3[k] = 0.0;
        if (m == 0.0)
            continue; // both ends fixed: every constant stays 0 and the spring applies nothing
        double kk, c, cs = 1.0, cd = 1.0;
        switch (method) {
        case SB_METHOD_FORCE:
        case SB_METHOD_IMPULSE:
            // See substep_force_or_impulse: impulse = -(k C + c vn) h.
            if (rigid) {
                double coef = sb_nissen_safe_coefficient(busiest_end(w, s));
                kk = coef * m / (h * h);
                c = coef * m / h;
            } else if (method == SB_METHOD_FORCE) {
                sb_tuning_to_kc(t, m, h, &kk, &c);
                report_explicit_limit(w, s, kk, c, m, h);
            } else {
                sb_tuning_to_coefficients(t, m, h, &cs, &cd);
                kk = cs * m / (h * h);
                c = cd * m / h;
            }
            w->kc1[k] = kk * h;
            w->kc2[k] = c * h;
            break;
        case SB_METHOD_SEQUENTIAL:
            if (!rigid) // rigid: the one-step spring of seed 002, Cs = Cd = 1
                sb_tuning_to_coefficients(t, m, h, &cs, &cd);
            w->kc1[k] = cs;
            w->kc2[k] = cd;
            break;
        case SB_METHOD_SOFT: {
            sb_soft soft = rigid_soft;
            if (!rigid) {
                sb_tuning_to_kc(t, m, h, &kk, &c);
                soft = soft_from_kc(kk, c, m, h);
            }
            w->kc1[k] = soft.bias_rate;
            w->kc2[k] = soft.mass_scale * m;
            w->kc3[k] = soft.impulse_scale;
            break;
        }
        case SB_METHOD_VERLET:
            cd = 0.0;
            if (!rigid)
                sb_tuning_to_coefficients(t, m, h, &cs, &cd);
            // Split Cs over the iterations so that their product gives Cs for a lone spring.
            w->kc1[k] = cs >= 1.0 ? 1.0 : 1.0 - pow(1.0 - cs, 1.0 / w->def.iterations);
            w->kc2[k] = cd * m;
            break;
        case SB_METHOD_XPBD:
            if (!rigid) {
                sb_tuning_to_kc(t, m, h, &kk, &c);
                w->kc1[k] = kk > 0.0 ? 1.0 / (kk * h * h) : INFINITY; // alpha~ = alpha / h^2
                w->kc2[k] = kk > 0.0 ? c / (kk * h) : 0.0;           // gamma = alpha c / h
            }
            break;
        default: break;
        }
    }
}

// Writes the warm starts back to the spring slots at the end of a step.
void springs_unpack(sb_world *w)
{
    for (int k = 0; k < w->order_count; ++k) {
        int s = w->order[k];
        w->impulse[s] = w->kimp[k];
        w->axis_prev[s] = v2(w->kpux[k], w->kpuy[k]);
    }
}

// Geometry of every spring from the current positions (spring_axis).
static void springs_geometry(sb_world *w)
{
    for (int k = 0; k < w->order_count; ++k)
        spring_axis(w, k);
}

static void integrate_positions(sb_world *w, double h)
{
    // Dead slots and fixed particles at rest have zero velocity, so no branch is needed;
    // a fixed particle given a velocity moves kinematically.
    for (int i = 0; i < w->p_high; ++i)
        w->pos[i] = v2_mad(w->pos[i], h, w->vel[i]);
}

// The axes of this sub-step become the warm-start axes of the next. A swap, not a copy:
// every method recomputes kux and kuy before it reads them again.
static void springs_store_axis(sb_world *w)
{
    double *x = w->kpux, *y = w->kpuy;
    w->kpux = w->kux;
    w->kpuy = w->kuy;
    w->kux = x;
    w->kuy = y;
}

// The end of a sub-step of the velocity methods (Box2D v3's soft step): keep the axes for
// the next warm start, move the particles, then one relax pass without position bias, for
// contacts and, with `relax_rigid_springs`, for rigid springs.
static void integrate_and_relax(sb_world *w, double h, bool relax_rigid_springs)
{
    integrate_positions(w, h);
    tethers_project(w, true);
    contacts_confine_to_bounds(w);
    contacts_update_geometry(w);
    if (relax_rigid_springs)
        soft_relax_pass(w);
    contacts_solve(w, h, false);
    springs_store_axis(w);
}

// ------------------------------------------------------------------ force, impulse

// The force spring of seed 001 and the impulse spring of seed 002 are one equation:
// Nissen shows J = -(Cs x / h + Cd v) m_red gives "the numerically exact same result" as
// f = -(Cs x / h^2 + Cd v / h) m_red under symplectic Euler, and Hooke's f = -k x - c v is
// the same with k = Cs m / h^2, c = Cd m / h. Both read the pre-step state of every spring
// (a Jacobi pass). What differs is the tuning (springs_pack): `force` uses k and c as given,
// so a stiff hertz can exceed the symplectic Euler limit (reported); `impulse` caps Cs and
// Cd at 1. A rigid spring uses Nissen's safe coefficient 1/(n+1) in both.
void substep_force_or_impulse(sb_world *w, double h, bool first_substep)
{
    springs_geometry(w);
    for (int k = 0; k < w->order_count; ++k) {
        double impulse = -(w->kc1[k] * w->ksep[k] + w->kc2[k] * spring_normal_velocity(w, k));
        spring_apply_to(w->dv, w, k, impulse); // Jacobi: every spring reads the pre-pass velocities
    }
    for (int i = 0; i < w->p_high; ++i) {
        w->vel[i] = v2_add(w->vel[i], w->dv[i]);
        w->dv[i] = v2(0.0, 0.0);
    }
    // Contacts are non-penetration constraints solved after the springs' pass.
    contacts_prepare(w, h, first_substep);
    contacts_warm_start(w);
    for (int it = 0; it < w->def.iterations; ++it)
        if (it == w->def.iterations - 1)
            contacts_solve(w, h, true); // once per sub-step (see contacts_solve)
    integrate_and_relax(w, h, false);
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
// Catto's soft constraint warm starts the total in both directions, as Box2D does: its
// softness keeps that stable (springs_simd.c). A rigid spring has no softness, so in the
// soft method too it follows the listing; with the total warm started, the soft method's
// rigid cloth 128 reaches 37% stretch (89% during the run), with the listing 1.6%.
static void springs_warm_start(sb_world *w)
{
    const double fraction = w->def.warmstart;
    for (int k = 0; k < w->order_count; ++k)
        spring_apply(w, k, spring_warm_impulse(w, k, true, fraction));
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
    for (int k = 0; k < w->order_count; ++k) {
        double vn0 = spring_normal_velocity(w, k);
        w->kg[k] = vn0 - (w->kc1[k] * w->ksep[k] / h + w->kc2[k] * vn0);
    }
    springs_warm_start(w); // Nissen's listing
    contacts_prepare(w, h, first_substep);
    contacts_warm_start(w);
    const double correction = w->def.correction;
    for (int it = 0; it < w->def.iterations; ++it) {
        for (int k = 0; k < w->order_count; ++k) {
            double error = spring_normal_velocity(w, k) - w->kg[k];
            double impulse = -error * w->kmass[k] * correction;
            w->kimp[k] += impulse;
            spring_apply(w, k, impulse);
        }
        if (it == w->def.iterations - 1)
            contacts_solve(w, h, true); // once per sub-step (see contacts_solve)
    }
    integrate_and_relax(w, h, false);
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

// Per sub-step, as Box2D v3's soft step: warm start, `iterations` solves with the bias,
// integrate positions, then one relax solve without the bias for rigid springs.
void substep_soft(sb_world *w, double h, bool first_substep)
{
    soft_prepare_pass(w);
    contacts_prepare(w, h, first_substep);
    contacts_warm_start(w);
    for (int it = 0; it < w->def.iterations; ++it) {
        soft_solve_pass(w);
        if (it == w->def.iterations - 1)
            contacts_solve(w, h, true); // once per sub-step (see contacts_solve)
    }
    integrate_and_relax(w, h, true);
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
    for (int k = 0; k < w->order_count; ++k) {
        if (w->kc2[k] == 0.0)
            continue;
        // Damping removes a fraction Cd of the relative normal velocity, through prev.
        int a = w->ka[k], b = w->kb[k];
        sb_vec2 u = v2(w->kux[k], w->kuy[k]);
        double vn = v2_dot(v2_sub(v2_sub(pos[b], prev[b]), v2_sub(pos[a], prev[a])), u);
        double dvn = w->kc2[k] * vn; // Cd m vn
        prev[a] = v2_mad(prev[a], -w->kwa[k] * dvn, u);
        prev[b] = v2_mad(prev[b], w->kwb[k] * dvn, u);
    }
    for (int it = 0; it < w->def.iterations; ++it) {
        for (int k = 0; k < w->order_count; ++k) {
            sb_vec2 *pa = &pos[w->ka[k]], *pb = &pos[w->kb[k]];
            double dx = pb->x - pa->x, dy = pb->y - pa->y;
            double len = sqrt(dx * dx + dy * dy);
            double correction = len > 1e-12 ? w->kc1[k] * (len - w->krest[k]) * w->kmass[k] / len : 0.0;
            pa->x += w->kwa[k] * correction * dx;
            pa->y += w->kwa[k] * correction * dy;
            pb->x -= w->kwb[k] * correction * dx;
            pb->y -= w->kwb[k] * correction * dy;
        }
        contacts_project(w, false, h);
    }
    // inertia
    for (int i = 0; i < w->p_high; ++i) {
        sb_vec2 next = v2_sub(v2_scale(pos[i], 2.0), prev[i]);
        prev[i] = pos[i];
        pos[i] = next;
    }
    tethers_project(w, false);
    contacts_project(w, w->def.verlet_preserve_impulse, h);
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
    for (int k = 0; k < w->order_count; ++k)
        w->kg[k] = 0.0; // lambda, position-level
    for (int it = 0; it < w->def.iterations; ++it) {
        for (int k = 0; k < w->order_count; ++k) {
            double wsum = w->kwa[k] + w->kwb[k], alpha_tilde = w->kc1[k], gamma = w->kc2[k];
            if (wsum == 0.0 || !isfinite(alpha_tilde))
                continue;
            int a = w->ka[k], b = w->kb[k];
            double dx = pos[b].x - pos[a].x, dy = pos[b].y - pos[a].y;
            double len = sqrt(dx * dx + dy * dy);
            if (len < 1e-12)
                continue;
            double nx = dx / len, ny = dy / len;
            double approach = nx * ((pos[b].x - prev[b].x) - (pos[a].x - prev[a].x)) +
                              ny * ((pos[b].y - prev[b].y) - (pos[a].y - prev[a].y));
            double dlambda = (-(len - w->krest[k]) - alpha_tilde * w->kg[k] - gamma * approach) /
                             ((1.0 + gamma) * wsum + alpha_tilde);
            w->kg[k] += dlambda;
            pos[a].x -= w->kwa[k] * dlambda * nx;
            pos[a].y -= w->kwa[k] * dlambda * ny;
            pos[b].x += w->kwb[k] * dlambda * nx;
            pos[b].y += w->kwb[k] * dlambda * ny;
        }
        contacts_project_xpbd(w);
    }
    tethers_project(w, false);
    for (int i = 0; i < w->p_high; ++i)
        w->vel[i] = v2_scale(v2_sub(pos[i], prev[i]), 1.0 / h);
    contacts_xpbd_velocity(w);
    for (int k = 0; k < w->order_count; ++k)
        w->kimp[k] = w->kg[k]; // reads back as the spring's impulse
}
