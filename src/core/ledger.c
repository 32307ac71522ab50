// The energy ledger: the energy an explicit method's step makes from nothing, watched per step,
// so a world that makes more than its bound halts and names the springs.
#include "sb_tuning.h"
#include "sb_pool.h"
#include "world_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// Energy from nowhere. An explicit spring can feed a motion its step cannot
// follow: a chain of four 10 cm links on undamped 15 Hz springs swinging from horizontal in the
// force method at one sub-step, every spring within its linear stability limit, reaches 2500%
// stretch and 10^5 times the energy gravity has released (the links turn and pass through each
// other within a step, which no linear limit sees), and nothing else stops it. So for the
// methods with explicit springs the world keeps a ledger over each undisturbed run: each step
// adds the energy it made beyond the work of gravity and the applied forces (floored at zero,
// so the few-percent swing of a symplectic step's energy never adds up), and once that passes
// four times the run's energy scale (its kinetic and elastic energy plus its weight times its
// extent when the watch began, plus the applied forces' work and the most energy gravity has
// released since) the world halts and names the springs. A drag, a ramp, a moving
// fixed particle, a tuned constraint (whose energy the ledger does not count), or any change
// made between steps by the scene (the step measures before and after itself) ends the run;
// the next undisturbed step starts a new one. The implicit and position methods are
// unconditionally stable (Catto's "Soft Constraints") and only lose energy; they keep no ledger.

/// The step's own energy (below), and the ledger's scale. With `damping`, also the change the
/// step's damping makes to it (below), from the state before the step.
double ledger_energy(sb_world *w, double *scale, double *gravity_energy, bool *kinematic, double *damping)
{
    double ke = 0.0, pe = 0.0, power = 0.0, weight = 0.0;
    double lo_x = INFINITY, hi_x = -INFINITY, lo_y = INFINITY, hi_y = -INFINITY;
    const sb_vec2 g = w->def.gravity;
    *kinematic = false;
    for (int i = 0; i < w->p_high; ++i) {
        if (!particle_alive(w, i))
            continue;
        if (w->inv_mass[i] == 0.0) {
            *kinematic = *kinematic || w->vel[i].x != 0.0 || w->vel[i].y != 0.0;
            continue;
        }
        double m = w->mass[i];
        sb_vec2 x = w->pos[i];
        ke += 0.5 * m * v2_dot(w->vel[i], w->vel[i]) + particle_spin_energy(w, i);
        pe -= m * v2_dot(g, x);
        weight += m;
        lo_x = fmin(lo_x, x.x);
        hi_x = fmax(hi_x, x.x);
        lo_y = fmin(lo_y, x.y);
        hi_y = fmax(hi_y, x.y);
        power += v2_dot(w->forces_pending ? v2_mad(w->force[i], m, g) : v2_scale(g, m), w->vel[i]);
    }
    // the springs' energy at the stiffness the method delivers (a clamped spring is softer than asked)
    const sb_method_kernels *kernels = method_kernels(w->def.method);
    const double h = w->def.dt / w->def.substeps;
    double elastic = 0.0;
    for (int pass = 0; pass < (damping ? 2 : 1); ++pass) {
        for (int k = 0; k < w->pack.order_count; ++k) {
            int s = w->pack.order[k], a = w->pack.ka[k], bi = w->pack.kb[k];
            if (w->s_a[s] < 0 || (w->pack.krigid[k] && !kernels->rigid_springs_explicit) || w->pack.kmass[k] <= 0.0)
                continue; // broken in this step, a constraint, or between fixed particles
            sb_vec2 d = v2_sub(w->pos[bi], w->pos[a]);
            double b, len = v2_len(d), c = len - w->pack.krest[k], stiffness = kernels->delivered_spring(w, k, h, &b);
            if (len <= 0.0)
                continue;
            sb_vec2 u = v2_scale(d, 1.0 / len);
            if (pass == 0) {
                elastic += 0.5 * stiffness * c * c;
                power -= stiffness * c * v2_dot(v2_sub(w->vel[bi], w->vel[a]), u);
                // the damping's kick, from the velocities before the step, as the methods give it
                double kick = -b * w->pack.kmass[k] * v2_dot(v2_sub(w->vel[bi], w->vel[a]), u);
                if (damping) {
                    w->scratch.dv[a] = v2_mad(w->scratch.dv[a], -w->pack.kwa[k] * kick, u);
                    w->scratch.dv[bi] = v2_mad(w->scratch.dv[bi], w->pack.kwb[k] * kick, u);
                }
            } else {
                *damping -= 0.5 * h * stiffness * c * v2_dot(v2_sub(w->scratch.dv[bi], w->scratch.dv[a]), u);
            }
        }
    }
    if (damping) {
        for (int i = 0; i < w->p_high; ++i) {
            if (w->inv_mass[i] > 0.0 && particle_alive(w, i)) {
                double m = w->mass[i];
                sb_vec2 v = w->vel[i], dv = w->scratch.dv[i], f = w->forces_pending ? v2_mad(w->force[i], m, g) : v2_scale(g, m);
                *damping += 0.5 * m * (v2_dot(v2_add(v, dv), v2_add(v, dv)) - v2_dot(v, v)) + 0.5 * h * v2_dot(dv, f);
            }
            w->scratch.dv[i] = v2(0.0, 0.0);
        }
    }
    double extent = weight > 0.0 ? (hi_x - lo_x) + (hi_y - lo_y) : 0.0;
    *scale = ke + elastic + weight * v2_len(g) * extent + 1e-9;
    *gravity_energy = pe;
    // The step's own energy: symplectic Euler (the explicit methods' map; verlet's px follows it
    // too) conserves Q = H + (h/2) v . F(x) exactly for linear and constant forces F, not H, whose
    // swing grows to ten times the energy near the stability limit the clamps allow. The damping
    // kick, taken from the same state, comes first in effect: the step is Q-conserving from
    // (x, v + damping kick), so what the damping changes in Q is exactly Q(x, v + kick) - Q(x, v),
    // which *damping returns (mostly a loss; a gain where it takes back a velocity that the cross
    // term counted against the spring, as Nissen's one-step spring does at Cd = 1).
    return ke + pe + elastic + 0.5 * h * power;
}

/// Whether this step can be watched: explicit springs with a tuning, and nothing that does work
/// the ledger does not count. Returns the energy before the step in *energy.
bool ledger_begin(sb_world *w, double *energy, double *scale, double *gravity_energy, double *damping)
{
    bool tuned = false;
    if (!method_kernels(w->def.method)->delivered_spring || w->drag.active || w->ramp_count > 0)
        return false;
    for (int s = 0; s < w->s_high && !tuned; ++s)
        tuned = w->s_a[s] >= 0 && !w->s_rigid[s];
    for (int c = 0; c < w->constraints.high && tuned; ++c)
        if (w->constraints.kind[c] != 0xFF && !sb_tuning_is_rigid(&w->constraints.tuning[c]))
            return false;
    if (!tuned)
        return false;
    bool kinematic;
    solver_pack(w); // the constants the step will use
    *damping = 0.0;
    *energy = ledger_energy(w, scale, gravity_energy, &kinematic, damping);
    return !kinematic && isfinite(*energy);
}

/// The work of the applied forces over the step (they are constant through it).
double applied_work(const sb_world *w)
{
    double work = 0.0;
    if (w->forces_pending)
        for (int i = 0; i < w->p_high; ++i)
            if (w->inv_mass[i] > 0.0)
                work += v2_dot(w->force[i], v2_sub(w->pos[i], w->scratch.snap_pos[i]));
    return work;
}

/// Adds the step's made energy; true when the run has made more than its bound (then halted).
bool ledger_end(sb_world *w, double before, double after, double scale, double gravity_before,
                       double gravity_after, double work, double damping)
{
    if (!w->ledger.tracking) {
        w->ledger.tracking = true;
        w->ledger.excess = 0.0;
        w->ledger.scale = scale;
        w->ledger.gravity_start = gravity_before;
        w->ledger.released = 0.0;
    }
    // What the damping gives back is no energy made; what it takes away earns no credit, or
    // energy a rigid spring's stabilisation makes and the damping eats (a bridge at one
    // sub-step in sequential: 1.4 J a step) would read as made. Signed, so that a contact's or a
    // constraint's give and take nets out (floored at zero it ratcheted that bridge up to 1 kJ
    // in 700 steps); banked losses count only up to the bound, so a world that lost energy early
    // still halts when it makes some later.
    w->ledger.excess =
        fmax(-0.1 * w->ledger.scale, w->ledger.excess + (after - before - work - fmax(0.0, damping)));
    // what the forces put in or took out, and the most gravity has released, are the run's too
    w->ledger.scale += fabs(work);
    if (w->ledger.gravity_start - gravity_after > w->ledger.released) {
        w->ledger.scale += w->ledger.gravity_start - gravity_after - w->ledger.released;
        w->ledger.released = w->ledger.gravity_start - gravity_after;
    }
    if (!(w->ledger.excess > 0.1 * w->ledger.scale))
        return false;
    // Name the springs: the most stretched tuned ones, against their rest lengths.
    sb_stats *st = &w->stats;
    int top[3] = {-1, -1, -1};
    double stretch[3] = {0.0, 0.0, 0.0};
    for (int s = 0; s < w->s_high; ++s) {
        if (w->s_a[s] < 0 || w->s_rigid[s] || w->rest[s] <= 0.0)
            continue;
        double e = fabs(v2_len(v2_sub(w->pos[w->s_b[s]], w->pos[w->s_a[s]])) - w->rest[s]) / w->rest[s];
        for (int r = 0; r < 3; ++r) {
            if (top[r] < 0 || e > stretch[r]) {
                for (int q = 2; q > r; --q) {
                    top[q] = top[q - 1];
                    stretch[q] = stretch[q - 1];
                }
                top[r] = s;
                stretch[r] = e;
                break;
            }
        }
    }
    st->halted = true;
    st->bad_spring = sb_null_spring();
    st->bad_particle = sb_null_particle();
    if (top[0] >= 0) {
        st->bad_spring.index = (uint32_t)top[0];
        st->bad_spring.generation = w->s_gen[top[0]];
        st->bad_particle.index = (uint32_t)w->s_b[top[0]];
        st->bad_particle.generation = w->p_gen[w->s_b[top[0]]];
    }
    char names[64] = "";
    for (int r = 0, n = 0; r < 3 && top[r] >= 0; ++r)
        n += snprintf(names + n, sizeof names - (size_t)n, "%s%d (%.0f%%)", r ? ", " : "", top[r] + 1, 100.0 * stretch[r]);
    char text[320];
    snprintf(text, sizeof text,
             "energy from nowhere at step %llu: %s at %d sub-step%s made %.3g J; springs %s. Halted: more "
             "sub-steps or soft/xpbd hold it",
             (unsigned long long)st->steps, sb_method_name(w->def.method), w->def.substeps,
             w->def.substeps == 1 ? "" : "s", w->ledger.excess, names);
    size_t n = strlen(text) < sizeof st->message ? strlen(text) : sizeof st->message - 1;
    memcpy(st->message, text, n); // the message field's length, cut as snprintf would
    st->message[n] = '\0';
    return true;
}
