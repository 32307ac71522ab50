// The sub-step loop and what the six methods share (Box2D v3's split: solver.c orchestrates,
// each joint file solves). Each method lives in its own file, method_<name>.c, with its seed, its
// discrete coefficients and its kernels in a table (sb_method_kernels); here are the colouring of
// the springs, the recompute of every spring's constants, the packing for a step, and the three
// orders of a sub-step, the only place the stages are called.
#include "sb_pool.h"
#include "springs_kernels.h"

#include <stdlib.h>
#include <string.h>

// ------------------------------------------------------------------ order

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
        w->pack.order_count = 0;
        w->pack.colors = 0; // no colours: the passes run one spring at a time
        for (int s = 0; s < w->s_high; ++s)
            if (w->s_a[s] >= 0)
                w->pack.order[w->pack.order_count++] = s;
        free(used);
        free(color);
        return;
    }
    w->pack.colors = 0;
    w->pack.color_start[0] = 0;
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
        w->pack.colors = c + 1 > w->pack.colors ? c + 1 : w->pack.colors;
    }
    int start[64], total = 0;
    for (int c = 0; c < 64; ++c) {
        start[c] = total;
        w->pack.color_start[c] = total;
        total += count[c];
    }
    w->pack.color_start[64] = total;
    w->pack.color_start[w->pack.colors] = total;
    for (int s = 0; s < w->s_high; ++s)
        if (w->s_a[s] >= 0)
            w->pack.order[start[color[s]]++] = s;
    w->pack.order_count = total;
    w->pack.order_dirty = false;
    w->pack.coef_dirty = true;
    free(used);
    free(color);
}


// ------------------------------------------------------------------ constants

/// A particle's summed load may reach this (4 is where the pole reaches -1; the rest is margin).
static const double load_limit = SB_LOAD_LIMIT;

// The methods, one file each; a seventh is one more file, and its table named here twice.
extern const sb_method_kernels force_method, impulse_method, sequential_method, soft_method, verlet_method,
    xpbd_method;
static const sb_method_kernels *const methods[SB_METHOD_COUNT] = {
    [SB_METHOD_FORCE] = &force_method,   [SB_METHOD_IMPULSE] = &impulse_method,
    [SB_METHOD_SEQUENTIAL] = &sequential_method, [SB_METHOD_SOFT] = &soft_method,
    [SB_METHOD_VERLET] = &verlet_method, [SB_METHOD_XPBD] = &xpbd_method,
};

const sb_method_kernels *method_kernels(sb_method method)
{
    return (unsigned)method < SB_METHOD_COUNT ? methods[method] : methods[SB_METHOD_SOFT];
}

/// The network load of a spring's target in this method (world_internal.h).
double method_load(sb_method method, sb_poles target) { return method_kernels(method)->load(target); }

coef_result method_coefficients(sb_method method, sb_poles target, double m, double h, double allowed_load,
                                spring_coef *c)
{
    return method_kernels(method)->coefficients(target, m, h, allowed_load, c);
}

/// A free end of spring k has other springs too.
static bool in_network(const sb_world *w, int k)
{
    return (w->pack.kwa[k] > 0.0 && w->degree[w->pack.ka[k]] > 1) || (w->pack.kwb[k] > 0.0 && w->degree[w->pack.kb[k]] > 1);
}

double method_rigid_coefficients(sb_method method, int busiest_degree, double m, double h, spring_coef *c)
{
    memset(c, 0, sizeof *c);
    const sb_method_kernels *kernels = method_kernels(method);
    return kernels->rigid_coefficients ? kernels->rigid_coefficients(busiest_degree, m, h, c) : 0.0;
}

/// A rigid spring's constants; returns its network load (only Nissen's safe spring has one).
static double rigid_coefficients(const sb_world *w, int s, double m, double h, spring_coef *c)
{
    int da = w->degree[w->s_a[s]], db = w->degree[w->s_b[s]];
    return method_rigid_coefficients(w->def.method, da > db ? da : db, m, h, c);
}

static double distance_from_ask(double hz, double zeta, double ask_hz, double ask_zeta)
{
    return fabs(log((hz + 1e-9) / (ask_hz + 1e-9))) + fabs(zeta - ask_zeta);
}

/// Counts a spring the method delivers differently from its tuning; keeps the one furthest off.
static void report_clamp(sb_world *w, int s, double m, double h, sb_poles delivered)
{
    sb_stats *st = &w->stats;
    double ask_hz, ask_zeta, hz, zeta, rest;
    // A spring in a retune asks for its target; the ramp's settling damping is the ramp's, not
    // the designer's (a warning read "asks 4 Hz at damping ratio 20" for a file saying 0.02)
    sb_tuning target = w->tuning[s];
    sb_spring_id id = {(uint32_t)s, w->s_gen[s]};
    bool settling = w->ramp_count > 0 && sb_spring_ramp_target(w, id, &rest, &target);
    sb_tuning_hertz_zeta(&target, m, h, &ask_hz, &ask_zeta);
    sb_poles_to_hertz_zeta(delivered, h, &hz, &zeta);
    st->clamped_springs += 1;
    if (st->clamped_springs == 1 ||
        distance_from_ask(hz, zeta, ask_hz, ask_zeta) >
            distance_from_ask(st->clamped_hertz, st->clamped_damping_ratio, st->clamped_asked_hertz,
                              st->clamped_asked_damping_ratio)) {
        st->clamped_spring.index = (uint32_t)s;
        st->clamped_spring.generation = w->s_gen[s];
        st->clamped_asked_hertz = ask_hz;
        st->clamped_asked_damping_ratio = ask_zeta;
        st->clamped_hertz = hz;
        st->clamped_damping_ratio = zeta;
        st->clamped_settling = settling;
    }
}

/// Each free end's Gershgorin row of M^-1/2 K M^-1/2 (symmetric, so its rows bound the modes
/// tightly for unequal masses), in units of the spring's load: k/m_a on the diagonal and
/// k/sqrt(m_a m_b) off it when the other end moves too. A lone pair's rows come to at most
/// 1.21 times its one mode (exactly its mode for equal masses or an anchored end).
static void add_load(sb_world *w, int k, double load)
{
    double m = w->pack.kmass[k], wa = w->pack.kwa[k], wb = w->pack.kwb[k], cross = sqrt(wa * wb);
    w->scratch.p_load[w->pack.ka[k]] += load * m * (wa + cross);
    w->scratch.p_load[w->pack.kb[k]] += load * m * (wb + cross);
}

/// The share of its load a spring may keep: all of it unless its busiest free end is over the limit.
static double allowed_load(const sb_world *w, int k, double load)
{
    const sb_spring_pack *p = &w->pack;
    double la = p->kwa[k] > 0.0 ? w->scratch.p_load[p->ka[k]] : 0.0, lb = p->kwb[k] > 0.0 ? w->scratch.p_load[p->kb[k]] : 0.0;
    double busiest = la > lb ? la : lb;
    return busiest > load_limit ? load * load_limit / busiest : load;
}

// Every spring's constants for the method at sub-step h, in two passes: the first finds each
// tuning's target poles and sums the network loads per particle, the second gives each spring
// its allowed load and lets the method turn target and allowance into constants. A spring the
// method cannot deliver as asked is counted and the worst one kept for the stats.
static void compute_coefficients(sb_world *w, double h)
{
    const sb_method method = w->def.method;
    const sb_method_kernels *kernels = method_kernels(method);
    sb_stats *st = &w->stats;
    st->clamped_springs = 0;
    st->clamped_spring = sb_null_spring();
    st->clamped_asked_hertz = st->clamped_asked_damping_ratio = 0.0;
    st->clamped_settling = false;
    st->clamped_hertz = st->clamped_damping_ratio = 0.0;
    if (w->p_high > 0) // an empty world has no array yet (memset of NULL is undefined, even for 0 bytes)
        memset(w->scratch.p_load, 0, sizeof *w->scratch.p_load * (size_t)w->p_high);
    // pass 1: loads (the target poles wait in kg, the limit flag in kscale)
    for (int k = 0; k < w->pack.order_count; ++k) {
        int s = w->pack.order[k];
        double m = w->pack.kmass[k], load = 0.0;
        spring_coef c = {0.0, 0.0, 0.0};
        if (m > 0.0 && w->pack.krigid[k]) {
            load = rigid_coefficients(w, s, m, h, &c);
        } else if (m > 0.0) {
            bool limited, moved = false;
            sb_poles target = sb_tuning_poles(&w->tuning[s], m, h, &limited);
            // Inside a network the method may give the spring other poles (world_internal.h)
            if (kernels->network_target && in_network(w, k))
                target = kernels->network_target(target, w->tuning[s].mode == SB_TUNE_COEFFICIENTS, &moved);
            load = kernels->load(target);
            c.stiff = target.trace;
            c.damp = target.det;
            c.scale = limited || moved ? 1.0 : 0.0; // to report
        }
        w->pack.kstiff[k] = c.stiff;
        w->pack.kdamp[k] = c.damp;
        w->pack.kscale[k] = c.scale;
        w->pack.kg[k] = load;
        if (load > 0.0)
            add_load(w, k, load);
    }
    constraints_add_loads(w, h);
    // pass 2: constants within each spring's allowance
    for (int k = 0; k < w->pack.order_count; ++k) {
        double m = w->pack.kmass[k], load = w->pack.kg[k];
        if (m == 0.0)
            continue;
        if (w->pack.krigid[k]) {
            if (load == 0.0)
                continue; // held by the method's iterations and projection
            // Nissen's safe spring (force, impulse): scaled like any explicit one, and reported,
            // since an explicit method cannot hold a rigid spring
            double allowed = allowed_load(w, k, load);
            if (allowed < load) {
                w->pack.kstiff[k] *= allowed / load;
                w->pack.kdamp[k] *= allowed / load;
            }
            report_clamp(w, w->pack.order[k], m, h, sb_nissen_poles(w->pack.kstiff[k] * h / m, w->pack.kdamp[k] / m));
            continue;
        }
        sb_poles target = {w->pack.kstiff[k], w->pack.kdamp[k]};
        bool limited = w->pack.kscale[k] != 0.0;
        spring_coef c;
        coef_result r = kernels->coefficients(target, m, h, allowed_load(w, k, load), &c);
        w->pack.kstiff[k] = c.stiff;
        w->pack.kdamp[k] = c.damp;
        w->pack.kscale[k] = c.scale;
        if (limited || r.clamped)
            report_clamp(w, w->pack.order[k], m, h, r.delivered);
    }
    w->pack.coef_dirty = false;
    w->pack.coef_h = h;
    w->pack.coef_method = method;
}

// ------------------------------------------------------------------ packing

// Fills the packed arrays for a step: ends, masses, warm starts; the constants only when
// something they depend on changed.
static void springs_pack(sb_world *w, double h)
{
    if (w->pack.order_dirty)
        build_order(w);
    for (int k = 0; k < w->pack.order_count; ++k) {
        int s = w->pack.order[k], a = w->s_a[s], b = w->s_b[s];
        double wa = w->inv_mass[a], wb = w->inv_mass[b];
        w->pack.ka[k] = a;
        w->pack.kb[k] = b;
        w->pack.kwa[k] = wa;
        w->pack.kwb[k] = wb;
        w->pack.kmass[k] = sb_reduced_mass(wa, wb);
        w->pack.krest[k] = w->rest[s];
        w->pack.kturn[k] = rigid_turn_factor(h, w->rest[s]); // a rigid spring holds its rest length
        w->pack.kimp[k] = w->impulse[s];
        w->pack.kpux[k] = w->axis_prev[s].x;
        w->pack.kpuy[k] = w->axis_prev[s].y;
        w->pack.krigid[k] = w->s_rigid[s];
    }
    if (w->pack.coef_dirty || w->pack.coef_h != h || w->pack.coef_method != w->def.method)
        compute_coefficients(w, h);
}

// Writes the warm starts back to the spring slots at the end of a step, and the force each
// spring carried in the last sub-step: ktension holds the impulse each method gave, except that
// the soft method keeps most of it in its accumulator and ktension holds the rest.
double spring_substep_impulse(const sb_world *w, int k)
{
    const bool soft = method_kernels(w->def.method)->tension_in_accumulator;
    return w->pack.ktension[k] + (soft ? w->pack.kimp[k] : 0.0);
}

static void springs_unpack(sb_world *w, double h)
{
    for (int k = 0; k < w->pack.order_count; ++k) {
        int s = w->pack.order[k];
        w->impulse[s] = w->pack.kimp[k];
        w->axis_prev[s] = v2(w->pack.kpux[k], w->pack.kpuy[k]);
        w->tension[s] = -spring_substep_impulse(w, k) / h;
    }
    articulations_add_tension(w, h); // what the structures' direct solves gave (articulation.c)
}

// ------------------------------------------------------------------ shared passes

// Passes whose items share nothing run on the world's threads (sb_pool.h): each item's
// arithmetic is the same on any thread, so the bits are the same for any count.

static void springs_geometry_range(void *ctx, int from, int to)
{
    sb_world *w = ctx;
    for (int k = from; k < to; ++k)
        spring_axis(w, k);
}

void springs_geometry(sb_world *w)
{
    sb_pool_for(w->pool, w->pack.order_count, 1, PARTICLES_PER_THREAD, springs_geometry_range, w);
}

typedef struct integrate_job { sb_world *w; double h; } integrate_job;

static void integrate_range(void *ctx, int from, int to)
{
    const integrate_job *job = ctx;
    sb_world *w = job->w;
    const double h = job->h;
    // Dead slots and fixed particles at rest have zero velocity, so no branch is needed;
    // a fixed particle given a velocity moves kinematically.
    for (int i = from; i < to; ++i)
        w->pos[i] = v2_mad(w->pos[i], h, w->vel[i]);
    if (w->scratch.spinning) // rolling (contact_solver.c): the turns follow the spins
        for (int i = from; i < to; ++i)
            w->angle[i] += h * w->omega[i];
}

static void integrate_positions(sb_world *w, double h)
{
    integrate_job job = {w, h};
    sb_pool_for(w->pool, w->p_high, 1, PARTICLES_PER_THREAD, integrate_range, &job);
}

/// The position orders turn as they move: predicted from the spin at the start of the sub-step
/// (the contacts' friction corrects the turn as it corrects positions), and the spin taken from
/// the turn at its end, as the velocity is taken from the move. A fixed particle keeps its spin.
static void turns_predict(sb_world *w, double h)
{
    if (!w->scratch.spinning)
        return;
    for (int i = 0; i < w->p_high; ++i) {
        w->scratch.angle_prev[i] = w->angle[i];
        w->angle[i] += h * w->omega[i];
    }
}

static void spins_from_turns(sb_world *w, double h)
{
    if (!w->scratch.spinning)
        return;
    for (int i = 0; i < w->p_high; ++i)
        if (w->scratch.inv_inertia[i] > 0.0)
            w->omega[i] = (w->angle[i] - w->scratch.angle_prev[i]) / h;
}

/// An angle counts turns up to SB_TURNS_KEPT either way; past them it goes back by whole turns,
/// so that a particle spun at 1e12 rad/s keeps an angle that any write of the particle accepts
/// and that still resolves a turn to 1e-9 rad. At the end of a sub-step only, where no pass
/// compares a turn with the one before it.
static void turns_wrap(sb_world *w)
{
    if (!w->scratch.spinning)
        return;
    const double two_pi = 6.28318530717958647692, kept = two_pi * SB_TURNS_KEPT;
    for (int i = 0; i < w->p_high; ++i)
        if (!(fabs(w->angle[i]) <= kept))
            w->angle[i] = remainder(w->angle[i], two_pi);
}

// A swap, not a copy: every method recomputes kux and kuy before it reads them again.
void springs_store_axis(sb_world *w)
{
    double *x = w->pack.kpux, *y = w->pack.kpuy;
    w->pack.kpux = w->pack.kux;
    w->pack.kpuy = w->pack.kuy;
    w->pack.kux = x;
    w->pack.kuy = y;
}

// Rigid springs after the velocity methods integrate: `iterations` Gauss-Seidel sweeps that
// move positions only (Box2D 2.4's position iterations, non-linear Gauss-Seidel). A velocity
// solve cannot see that links swinging fast lengthen along straight-line paths, and correcting
// that error through the bias (beta = 1) puts it back as velocity, so that on a long chain at one
// sub-step more iterations would make the stretch worse. Moving positions without touching
// velocities removes the error without adding energy, and more sweeps only remove more of it.
// Verlet keeps its article's order (projection, then inertia): moving prev along after inertia
// blows up a 100:1 cloth at 1 iteration.
static void rigid_springs_project(sb_world *w)
{
    // A sweep for every two iterations, rounded up (Box2D 2.4 runs 3 for 8): the velocity solve
    // lands turning links on their length (rigid_turn_rate), so the sweeps take up only what the
    // iterations leave.
    int sweeps = (w->def.iterations + 1) / 2;
    for (int it = 0; it < sweeps; ++it) {
        rigid_project_pass(w); // springs_simd.c: four springs of a colour at a time
        constraints_project_rigid(w, SB_RIGID_SLOP, false);
    }
}

static void run_pass(sb_pass *pass, sb_world *w, double h)
{
    if (pass)
        pass(w, h);
}

// ------------------------------------------------------------------ the orders

/// Impulses on velocities, then integrate (Nissen's articles, Catto's "Soft Constraints"; Box2D v3's soft step): the method's
/// springs and constraints begin, contacts prepare and warm start, `iterations` of springs then
/// constraints, the contacts (once, or as contact_passes says at one and two sub-steps),
/// integrate, the position sweeps, tethers, bounds, and the relax: contacts always, rigid springs
/// and constraints where the method has one.
/// The sub-step's external kicks and the method's begin passes, in the order the method's map
/// wants: an explicit spring's damper that read this sub-step's gravity kick as stretching speed
/// would carry c g h of the load, and a chain of 6 Hz, damping ratio 0.5 springs would hang 5%
/// short of m g / k at one sub-step in force (symplectic Euler takes every force from the old
/// velocity).
static void kicks_and_begin_passes(sb_world *w, const sb_method_kernels *m, double h)
{
    if (!m->forces_before_gravity)
        apply_gravity_and_drag(w, h);
    run_pass(m->springs_begin, w, h);
    run_pass(m->constraints_begin, w, h);
    if (m->forces_before_gravity)
        apply_gravity_and_drag(w, h);
    run_pass(m->springs_after_kicks, w, h);
    run_pass(m->constraints_after_kicks, w, h);
}

/// geometry_current: no particle has moved since the last sub-step found the contacts' geometry
/// (the walls' hold, between sub-steps, moves them); prepare then skips finding it again.
static void substep_velocities(sb_world *w, const sb_method_kernels *m, double h, bool first_substep, bool geometry_current)
{
    constraints_begin_substep(w, h);
    kicks_and_begin_passes(w, m, h);
    links_damp_bending(w, h); // a rope's internal damping (bending.c), before the links hold
    contacts_prepare(w, h, first_substep, geometry_current);
    contacts_collide(w, h, true);
    contacts_warm_start(w);
    if (m->springs_iterate || m->constraints_iterate) {
        for (int it = 0; it < w->def.iterations; ++it) {
            run_pass(m->springs_iterate, w, h);
            run_pass(m->constraints_iterate, w, h);
            if (m->joined_contacts_iterate)
                contacts_solve_joined(w, h);
        }
    }
    contacts_solve(w, h, m->joined_contacts_iterate);
    integrate_positions(w, h);
    if (m->project_rigid_springs)
        rigid_springs_project(w);
    articulations_sweep(w, h); // a heavy particle's structures, with it (articulation.c)
    tethers_project(w, true);
    contacts_confine_to_bounds(w);
    run_pass(m->springs_relax, w, h);
    run_pass(m->constraints_relax, w, h);
    contacts_relax(w, h); // with the contacts' geometry where the sub-step has moved them
    run_pass(m->springs_end, w, h);
    springs_store_axis(w);
}

/// Each iteration of a position order: springs, constraints, then the contacts' projection pass.
static void iterate_positions(sb_world *w, const sb_method_kernels *m, double h)
{
    for (int it = 0; it < w->def.iterations; ++it) {
        run_pass(m->springs_iterate, w, h);
        run_pass(m->constraints_iterate, w, h);
        contacts_project_by_position(w, h);
    }
}

/// Predict, project, and take the velocity from the move (XPBD: Macklin, Mueller and Chentanez
/// 2016), then the contacts' velocity pass (restitution and friction at velocity level).
static void substep_positions(sb_world *w, const sb_method_kernels *m, double h, bool first_substep)
{
    sb_vec2 *pos = w->pos, *prev = w->scratch.prev;
    constraints_begin_substep(w, h);
    apply_gravity_and_drag(w, h);
    contacts_prepare(w, h, first_substep, false);
    contacts_settle_overlaps(w, h, true);
    contacts_collide(w, h, true);
    for (int i = 0; i < w->p_high; ++i) {
        prev[i] = pos[i];
        pos[i] = v2_mad(pos[i], h, w->vel[i]);
    }
    turns_predict(w, h);
    contacts_warm_push(w);
    run_pass(m->springs_begin, w, h);
    run_pass(m->constraints_begin, w, h);
    iterate_positions(w, m, h);
    articulations_project(w, h, false); // a heavy particle's structures, with it (articulation.c)
    tethers_project(w, false);
    contacts_keep_anchor(w);
    for (int i = 0; i < w->p_high; ++i)
        w->vel[i] = v2_scale(v2_sub(pos[i], prev[i]), 1.0 / h);
    spins_from_turns(w, h);
    contacts_xpbd_velocity(w);
    contacts_confine_to_bounds(w);
    run_pass(m->springs_end, w, h);
}

/// Boesch's Verlet article's loop: accelerate; collide without impulse preservation; inertia; collide with it.
/// The article's state is a position x and a previous position px, velocity being x - px. Its
/// accelerate step moves x by a h^2 and inertia then adds x - px again, so x runs one step ahead
/// of the motion: px follows Stoermer-Verlet (px' = px + u', u' = u + a h^2) and x = px + u is
/// its extrapolation. The world keeps and shows px (after the first collide pass, so at rest it
/// touches what it rests on) and the velocity u / h; a sub-step rebuilds x = px + v h. Shown, x
/// would run a step ahead of the motion (a 10 Hz spring let go at rest 0.1 m out would seem to
/// swing to -0.2 m at one sub-step). Forces act where the article puts them, at x, so the
/// dynamics are the article's.
static void substep_verlet_order(sb_world *w, const sb_method_kernels *m, double h)
{
    sb_vec2 *pos = w->pos, *prev = w->scratch.prev;
    contacts_settle_overlaps(w, h, false);
    for (int i = 0; i < w->p_high; ++i) {
        prev[i] = pos[i];
        pos[i] = v2_mad(pos[i], h, w->vel[i]);
    }
    turns_predict(w, h);
    constraints_begin_substep(w, h); // at x, where the article's forces act
    // accelerate: gravity, the drag and the method's forces change the velocity; moving the
    // current position by (v_new - v_old) h is the article's x += a h^2
    kicks_and_begin_passes(w, m, h);
    // the accelerated velocities meet what they reach on the way from px (contacts_collide), and
    // px moves to where each impact sends it
    if (w->def.verlet_preserve_impulse && w->p_high > 0) { // the article's impulse preservation, at each impact
        memcpy(pos, prev, sizeof *pos * (size_t)w->p_high);
        contacts_collide(w, h, false);
        memcpy(prev, pos, sizeof *pos * (size_t)w->p_high);
    }
    for (int i = 0; i < w->p_high; ++i)
        pos[i] = v2_mad(prev[i], h, w->vel[i]);
    contacts_warm_push(w);
    iterate_positions(w, m, h);
    articulations_project(w, h, false); // a heavy particle's structures, with it (articulation.c)
    contacts_keep_anchor(w); // px's move in this sub-step is pos - prev (inertia starts from it)
    // inertia
    for (int i = 0; i < w->p_high; ++i) {
        sb_vec2 next = v2_sub(v2_scale(pos[i], 2.0), prev[i]);
        prev[i] = pos[i];
        pos[i] = next;
    }
    tethers_project(w, false);
    // Ropes and struts are one-sided, as contacts are, and get the contacts' second pass after
    // inertia (Boesch's "Verlet collision with impulse preservation"): without it a strut hit
    // gives way by v h at one sub-step.
    constraints_project_rigid(w, 0.0, true);
    contacts_project(w, w->def.verlet_preserve_impulse, h);
    articulations_project(w, h, w->def.verlet_preserve_impulse);
    if (w->def.verlet_preserve_impulse)
        articulations_exchange_motion(w, h);
    for (int i = 0; i < w->p_high; ++i) {
        w->vel[i] = v2_scale(v2_sub(pos[i], prev[i]), 1.0 / h);
        pos[i] = prev[i]; // px: the motion itself (above)
    }
    spins_from_turns(w, h);
    // One of the velocity orders' position sweeps, on px: the first pass leaves the residual of
    // its iterations there (one sweep, as more cost more than they take off a heavy-ended chain)
    if (m->project_rigid_springs) {
        rigid_project_pass(w);
        constraints_project_rigid(w, SB_RIGID_SLOP, false);
    }
    tethers_project(w, false); // and no particle shows farther than its rigid path
    contacts_confine_to_bounds(w); // the bounds' contacts are soft; no centre leaves the box
    run_pass(m->springs_end, w, h);
    springs_store_axis(w);
}

// ------------------------------------------------------------------ the loop

void solver_pack(sb_world *w)
{
    if (w->def.tethers && w->rigid.tethers_dirty)
        tethers_build(w);
    springs_pack(w, w->def.dt / w->def.substeps);
    w->pack.packed = true;
}

/// Whether a particle has left the world's range: non-finite, or past SB_MAX_COORD or
/// SB_MAX_SPEED on an axis. The negated comparisons are false for NaN as well.
static bool particle_runaway(const sb_world *w, int i)
{
    sb_vec2 x = w->pos[i], v = w->vel[i];
    return !(fabs(x.x) <= SB_MAX_COORD && fabs(x.y) <= SB_MAX_COORD && fabs(v.x) <= SB_MAX_SPEED &&
             fabs(v.y) <= SB_MAX_SPEED);
}

/// The first runaway particle, preferring a dynamic one: a fixed particle can only be
/// infected in the same sub-step (0 * NaN is NaN), never be the source.
typedef struct runaway_job { const sb_world *w; int dynamic[SB_POOL_MAX_THREADS], any[SB_POOL_MAX_THREADS]; } runaway_job;

static void runaway_range(void *ctx, int chunk, int from, int to)
{
    runaway_job *job = ctx;
    const sb_world *w = job->w;
    int first = -1, dynamic = -1;
    for (int i = from; i < to && dynamic < 0; ++i) {
        if (particle_alive(w, i) && particle_runaway(w, i)) {
            if (w->inv_mass[i] > 0.0)
                dynamic = i;
            else if (first < 0)
                first = i;
        }
    }
    job->dynamic[chunk] = dynamic;
    job->any[chunk] = first;
}

/// (Chunk by chunk on the world's threads: the first chunk's finds come first, as in one pass.)
static int first_runaway_particle(const sb_world *w)
{
    runaway_job job = {.w = w};
    const int chunks = sb_pool_for_chunks(w->pool, w->p_high, PARTICLES_PER_THREAD, runaway_range, &job);
    int first = -1;
    for (int k = 0; k < chunks; ++k) {
        if (job.dynamic[k] >= 0)
            return job.dynamic[k];
        if (first < 0)
            first = job.any[k];
    }
    return first;
}

int solver_run_substeps(sb_world *w, bool diagnostic)
{
    const double h = w->def.dt / w->def.substeps;
    const sb_method_kernels *kernels = method_kernels(w->def.method);
    if (!w->pack.packed)
        solver_pack(w);
    w->pack.packed = false; // the next step packs again
    const bool walls = w->walls.alive > 0 && w->p_high > 0;
    for (int sub = 0; sub < w->def.substeps; ++sub) {
        bool first = sub == 0;
        if (walls)
            memcpy(w->scratch.start, w->pos, sizeof *w->pos * (size_t)w->p_high);
        articulations_begin_substep(w);
        switch (kernels->order) {
        case SB_ORDER_VELOCITIES: substep_velocities(w, kernels, h, first, !walls); break;
        case SB_ORDER_POSITIONS: substep_positions(w, kernels, h, first); break;
        case SB_ORDER_VERLET: substep_verlet_order(w, kernels, h); break;
        }
        articulations_end_substep(w);
        if (walls)
            walls_hold_centres(w);
        turns_wrap(w);
        if (w->interrupt && w->interrupt(w->interrupt_ud)) {
            springs_unpack(w, h);
            return SOLVER_INTERRUPTED;
        }
        if (diagnostic) {
            int bad = first_runaway_particle(w);
            if (bad >= 0) {
                springs_unpack(w, h);
                return bad;
            }
        }
    }
    springs_unpack(w, h);
    return diagnostic ? -1 : first_runaway_particle(w);
}

void spring_pack_free(sb_spring_pack *p)
{
    FREE_ARRAYS(p->order, p->ka, p->kb, p->kwa, p->kwb, p->kmass, p->krest, p->kux, p->kuy, p->kpux, p->kpuy,
                p->ksep, p->kturn, p->kimp, p->krigid, p->kstiff, p->kdamp, p->kscale, p->kg, p->ktension);
}
