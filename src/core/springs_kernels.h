// One spring at a time: the per-spring arithmetic that the method_*.c files and
// springs_simd.c (the soft method's scalar path) share. springs_simd.c's vector lanes
// restate it in the same order; simd_matches_scalar holds them to bit-identical results.
#ifndef SB_SPRINGS_KERNELS_H
#define SB_SPRINGS_KERNELS_H

#include "world_internal.h"

// The methods' update rules, one place each. A spring applies them to its length error and the
// relative velocity along its axis; a constraint (constraint.c) to its C, its rate sum g . v and
// its effective mass. The method files say where each comes from and derive the constants.

/// force, impulse and verlet's tuned springs: -(k x + c v) h written with the packed constants (the "Mass spring algorithm" note).
static inline double explicit_impulse(double stiff, double damp, double error, double rate)
{
    return -(stiff * error + damp * rate);
}

/// sequential: the rest velocity of Nissen's "Stable Rigid Springs with Sequential Impulses", rate - (Cs C / h + Cd rate), asked once per sub-step.
static inline double sequential_rest_rate(double cs, double cd, double error, double rate, double h)
{
    return rate - (cs * error / h + cd * rate);
}

/// sequential: one corrective impulse toward the rest velocity (Nissen's sequential-impulse article's correction factor).
static inline double sequential_impulse(double rate, double rest_rate, double mass, double correction)
{
    return -(rate - rest_rate) * mass * correction;
}

/// soft: one sequential-impulse update of the soft constraint (Catto's "Soft Constraints", method_soft.c),
/// P = -(m_soft rate + m_soft (beta/h) C) - (gamma/h) m_soft P_acc, with the bias term precomputed.
static inline double soft_impulse(double mass, double bias, double scale, double rate, double accumulated)
{
    return -(mass * rate + bias) - scale * accumulated;
}

/// xpbd: d lambda = (-C - alpha~ lambda - gamma (how far C moved this sub-step)) / ((1 + gamma) w + alpha~).
static inline double xpbd_delta_lambda(double error, double alpha, double lambda, double gamma, double moved, double wsum)
{
    return (-error - alpha * lambda - gamma * moved) / ((1.0 + gamma) * wsum + alpha);
}

/// Axis a -> b and length error of packed spring k from the current positions. A
/// zero-length spring keeps its previous axis so it never divides by zero.
static inline void spring_axis(sb_world *w, int k)
{
    const sb_vec2 pa = w->pos[w->pack.ka[k]], pb = w->pos[w->pack.kb[k]];
    double dx = pb.x - pa.x, dy = pb.y - pa.y;
    double len = sqrt(dx * dx + dy * dy);
    double ux = 1.0, uy = 0.0;
    if (len > 1e-12) {
        ux = dx / len;
        uy = dy / len;
    } else if (w->pack.kpux[k] != 0.0 || w->pack.kpuy[k] != 0.0) {
        ux = w->pack.kpux[k];
        uy = w->pack.kpuy[k];
    }
    w->pack.kux[k] = ux;
    w->pack.kuy[k] = uy;
    w->pack.ksep[k] = len - w->pack.krest[k];
}

/// Relative velocity of the ends along the axis (positive: separating).
static inline double spring_normal_velocity(const sb_world *w, int k)
{
    const sb_vec2 va = w->vel[w->pack.ka[k]], vb = w->vel[w->pack.kb[k]];
    return (vb.x - va.x) * w->pack.kux[k] + (vb.y - va.y) * w->pack.kuy[k];
}

/// The rate along the axis at which a rigid link must close for its length after the sub-step's
/// straight position update to stay its length: ends that turn about each other at relative speed
/// vt across the link lengthen it on that straight path, by h^2 vt^2 / (2 len) to second order,
/// which closing at h vt^2 / (2 len) takes back. Asking the velocity solve for this rate instead
/// of zero lands the ends on the circle they turn on, as SHAKE's position step does (Ryckaert,
/// Ciccotti and Berendsen 1977; RATTLE, Andersen 1983, is its velocity form): the turn is then
/// made by an impulse across the chord, which keeps the speed along it, where closing at zero made
/// the link long and had the next sub-step take the ends' speed across the new axis away, about
/// h^2 vt^2 / len^2 of the swing's energy a sub-step. `rel` is the relative velocity b - a, `vn`
/// its part along the axis, `turn` h / (2 len). A turn the sub-steps do not resolve (over a fifth
/// of a radian a sub-step) asks nothing, and the rate fades out from a tenth of a radian: there an
/// energy-keeping step gained energy (a 4-link chain at one sub-step and 32 iterations).
static inline double rigid_turn_rate(double rel_x, double rel_y, double vn, double turn)
{
    const double rate = -(rel_x * rel_x + rel_y * rel_y - vn * vn) * turn, quarter_turn_squared = -rate * turn;
    const double share = (0.01 - quarter_turn_squared) * (1.0 / 0.0075); // 1 up to a tenth, 0 from a fifth
    return rate * fmax(0.0, fmin(1.0, share));
}

/// rigid_turn_rate's `turn`, h / (2 len), for a link of length len; 0 for a link with no length.
static inline double rigid_turn_factor(double h, double len) { return len > 1e-12 ? 0.5 * h / len : 0.0; }

/// SHAKE's position step for a length (Ryckaert, Ciccotti and Berendsen 1977): how far the ends'
/// separation d must grow along the unit axis n they had when the sub-step began for its length
/// to be `rest`. False where that axis is more than about a fifth of a radian off d (the ends
/// turned further than the sub-steps resolve; the caller solves along d instead: an energy-keeping
/// step of such a turn gained energy, a 4-link chain at one sub-step and 32 iterations) or cannot
/// reach `rest`.
static inline bool shake_length_move(double dx, double dy, double nx, double ny, double rest, double *move)
{
    const double along = dx * nx + dy * ny, dd = dx * dx + dy * dy, room = along * along - dd + rest * rest;
    if (!(along > 0.0 && along * along >= 0.96 * dd && room >= 0.0))
        return false;
    *move = sqrt(room) - along;
    return true;
}

/// The unit axis a -> b of packed spring k where its ends were when the sub-step began (w->scratch.prev,
/// in the position orders), into *ux, *uy: the axis a position method moves the ends along, as
/// SHAKE does, so that the pair's pull is central where the step's angular momentum is counted
/// (prev x pos) and a spinning body keeps its spin (moved along the axis predicted a sub-step
/// ahead, a spinning wheel of springs loses angular momentum at every sub-step). False where the ends sat on each other, or the axis turned more than about
/// a fifth of a radian within the sub-step (then the predicted axis, as shake_length_move).
static inline bool spring_start_axis(const sb_world *w, int k, double *ux, double *uy)
{
    const int a = w->pack.ka[k], b = w->pack.kb[k];
    const sb_vec2 pa = w->scratch.prev[a], pb = w->scratch.prev[b], qa = w->pos[a], qb = w->pos[b];
    const double nx = pb.x - pa.x, ny = pb.y - pa.y, n = sqrt(nx * nx + ny * ny);
    const double dx = qb.x - qa.x, dy = qb.y - qa.y, along = (dx * nx + dy * ny) / (n > 0.0 ? n : 1.0);
    if (!(n > 1e-12 && along > 0.0 && along * along >= 0.96 * (dx * dx + dy * dy)))
        return false;
    *ux = nx / n;
    *uy = ny / n;
    return true;
}

/// rigid_turn_rate of packed spring k from its ends' velocities now, along its axis.
static inline double spring_turn_rate(const sb_world *w, int k)
{
    const sb_vec2 va = w->vel[w->pack.ka[k]], vb = w->vel[w->pack.kb[k]];
    const double rx = vb.x - va.x, ry = vb.y - va.y;
    return rigid_turn_rate(rx, ry, rx * w->pack.kux[k] + ry * w->pack.kuy[k], w->pack.kturn[k]);
}

/// Equal and opposite impulses along the axis into `v` (velocities, or the Jacobi
/// accumulator); positive pushes the ends apart.
static inline void spring_apply_to(sb_vec2 *v, const sb_world *w, int k, double impulse)
{
    double px = w->pack.kux[k] * impulse, py = w->pack.kuy[k] * impulse;
    sb_vec2 *va = &v[w->pack.ka[k]], *vb = &v[w->pack.kb[k]];
    va->x -= w->pack.kwa[k] * px;
    va->y -= w->pack.kwa[k] * py;
    vb->x += w->pack.kwb[k] * px;
    vb->y += w->pack.kwb[k] * py;
}

/// spring_apply_to the velocities (Gauss-Seidel).
static inline void spring_apply(sb_world *w, int k, double impulse) { spring_apply_to(w->vel, w, k, impulse); }

/// The warm-start fraction of a tuned (non-rigid) spring. At one iteration nothing corrects a
/// stale guess, and a stiff tuned spring's impulse turns around within a few sub-steps: warm
/// starting it then fed energy into a 12 x 12 cloth of 20 Hz springs at one sub-step (soft) and
/// into a 100:1 cloth of 5 Hz springs (sequential). A lone spring converges in one iteration from
/// any start, so it is exact either way. Rigid springs always use the world's fraction.
static inline double tuned_warm_fraction(const sb_world *w)
{
    return w->def.iterations > 1 ? w->def.warmstart : 0.0;
}

/// The warm-start impulse of spring k (method_sequential.c, springs_warm_start, says why each rule):
/// the last impulse projected on the new axis, zero past a 90 degree turn; with Nissen's
/// listing only tension, and the accumulator restarts at zero. Updates the accumulator.
static inline double spring_warm_impulse(sb_world *w, int k, bool nissen_listing, double fraction)
{
    double turn = w->pack.kpux[k] * w->pack.kux[k] + w->pack.kpuy[k] * w->pack.kuy[k];
    double impulse = turn > 0.0 ? w->pack.kimp[k] * turn * fraction : 0.0;
    if (nissen_listing) {
        if (impulse > 0.0) // positive pushes the ends apart: compression
            impulse = 0.0;
        w->pack.kimp[k] = 0.0;
    } else {
        w->pack.kimp[k] = impulse;
    }
    return impulse;
}

#endif
