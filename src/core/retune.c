// Retuning a running world without throwing it: ramps for a spring's tuning and rest length, a
// particle's mass and the gravity, advanced by the world's own clock in sb_world_step. The
// window's sliders, a hot reload, the Lua API (spring:retune) and C programs share them.
#include "sb_tuning.h"
#include "world_internal.h"

#include <stdlib.h>
#include <string.h>

/// Damping ratio added to a retuned spring while the structure settles into its new shape, and
/// how long it lasts in units of the ramp time: full until 2, gone at 4. A structure's slowest
/// mode is far slower than its springs (a truss of 30 Hz links sagging 0.64 m sways at about
/// 0.6 Hz, where per-spring damping ratio 1 leaves it 2% damped), so it rings after any quick
/// change; the settling damping holds that truss's overshoot from 3 Hz to 30 Hz within a few
/// percent (scene.tuning_change_does_not_throw_the_structure).
static const double settling_damping_ratio = 20.0;
static const double settling_hold = 2.0, settling_end = 4.0;

static double blend_linear(double a, double b, double t) { return a + (b - a) * t; }

// Geometric for masses, so that 1 kg to 100 kg takes as long from 1 to 10 as from 10 to 100.
static double blend_geometric(double a, double b, double t)
{
    return a > 0.0 && b > 0.0 ? a * pow(b / a, t) : blend_linear(a, b, t);
}

// The tuning plus `extra` damping ratio, in the tuning's own terms.
static sb_tuning with_extra_damping(const sb_tuning *t, double extra, double m, double h)
{
    sb_tuning r = *t;
    if (extra <= 0.0 || sb_tuning_is_rigid(t))
        return r;
    double k, c;
    sb_tuning_to_kc(t, m, h, &k, &c);
    double c_extra = 2.0 * extra * sqrt(k * m); // c = 2 m zeta w with w = sqrt(k/m)
    switch (t->mode) {
    case SB_TUNE_HERTZ: r.damping_ratio += extra; break;
    case SB_TUNE_COEFFICIENTS: r.damping = fmin(1.0, t->damping + c_extra * h / m); break;
    default: r.c += c_extra; break;
    }
    return r;
}

/// Adds a ramp, replacing one of the same kind on the same object. False without memory.
static bool ramp_put(sb_world *w, const sb_ramp *r)
{
    for (int i = 0; i < w->ramp_count; ++i) {
        sb_ramp *o = &w->ramps[i];
        if (o->kind == r->kind && o->index == r->index) {
            *o = *r;
            return true;
        }
    }
    if (!ARRAY_RESERVE(w->ramps, w->ramp_cap, w->ramp_count + 1))
        return false;
    w->ramps[w->ramp_count++] = *r;
    return true;
}

/// Sets what ramp r shows `elapsed` seconds in; returns false once it is over.
static bool ramp_apply(sb_world *w, sb_ramp *r)
{
    double T = r->seconds, u = T > 0.0 ? r->elapsed / T : settling_end;
    double t = fmin(u, 1.0), s = t * t * (3.0 - 2.0 * t); // smoothstep: no sudden start or stop
    switch (r->kind) {
    case SB_RAMP_SPRING: {
        sb_spring_id id = {r->index, r->generation};
        if (!sb_spring_is_valid(w, id))
            return false;
        double settle = u < settling_hold ? 1.0 : u >= settling_end ? 0.0 : (settling_end - u) / (settling_end - settling_hold);
        sb_tuning t2 = with_extra_damping(&r->tuning, settling_damping_ratio * settle, sb_spring_reduced_mass(w, id),
                                          w->def.dt / w->def.substeps);
        sb_spring_set(w, id, blend_linear(r->from.x, r->to.x, s), &t2, NULL);
        return u < settling_end;
    }
    case SB_RAMP_MASS: {
        sb_particle_id id = {r->index, r->generation};
        sb_particle_def d;
        if (sb_particle_get(w, id, &d) != SB_OK)
            return false;
        d.mass = blend_geometric(r->from.x, r->to.x, s);
        sb_particle_set(w, id, &d, NULL);
        return u < 1.0;
    }
    default:
        w->def.gravity.x = blend_linear(r->from.x, r->to.x, s);
        w->def.gravity.y = blend_linear(r->from.y, r->to.y, s);
        return u < 1.0;
    }
}

void ramps_advance(sb_world *w)
{
    int kept = 0;
    for (int i = 0; i < w->ramp_count; ++i) {
        sb_ramp r = w->ramps[i];
        r.elapsed += w->def.dt;
        if (ramp_apply(w, &r))
            w->ramps[kept++] = r;
    }
    w->ramp_count = kept;
}

// Re-basing: a new stiffness applied to a spring that is stretched would change its force at
// once, and a structure that sagged under soft springs would be thrown up by stiff ones, even
// with the frequency ramped, because the soft structure cannot follow the ramp. So the new
// tuning applies at once with a rest length R at which the spring's force is what it was,
// k_new (L - R) = k_old (L - L0), and R then ramps to the real rest length: the structure moves
// under its new, stiff dynamics, which follow the ramp closely, with settling damping so that its
// slow modes do not ring. A spring that was or becomes rigid has no spring force to keep: it
// ramps from its current length.
sb_status sb_spring_retune(sb_world *w, sb_spring_id id, double rest_length, const sb_tuning *t, double seconds,
                           const char **bad_field)
{
    sb_spring_def was;
    if (sb_spring_get(w, id, &was) != SB_OK)
        return SB_ERR_STALE;
    if (!isfinite(seconds) || seconds < 0.0 || seconds > 1e6) {
        if (bad_field)
            *bad_field = "seconds";
        return SB_ERR_INVALID;
    }
    sb_status st = sb_spring_set(w, id, rest_length, t, bad_field); // checks, and the target if at once
    if (st != SB_OK || seconds == 0.0)
        return st;
    // Re-base from the current state; a ramp still running is replaced from where it stands.
    double length = sb_spring_length(w, id), m = sb_spring_reduced_mass(w, id), h = w->def.dt / w->def.substeps;
    double rebased = length;
    if (!sb_tuning_is_rigid(&was.tuning) && !sb_tuning_is_rigid(t)) {
        double k_old, k_new, c;
        sb_tuning_to_kc(&was.tuning, m, h, &k_old, &c);
        sb_tuning_to_kc(t, m, h, &k_new, &c);
        rebased = k_new > 0.0 ? length - k_old * (length - was.rest_length) / k_new : rest_length;
    }
    sb_ramp r = {.kind = SB_RAMP_SPRING, .index = id.index, .generation = id.generation, .tuning = *t,
                 .seconds = seconds, .elapsed = 0.0};
    r.from.x = rebased > 0.0 ? rebased : 0.0;
    r.to.x = rest_length;
    if (!ramp_put(w, &r))
        return SB_OK; // without memory the change simply applies at once
    ramp_apply(w, &r); // the re-based start, at once
    return SB_OK;
}

sb_status sb_particle_ramp_mass(sb_world *w, sb_particle_id id, double mass, double seconds)
{
    sb_particle_def d;
    if (sb_particle_get(w, id, &d) != SB_OK)
        return SB_ERR_STALE;
    if (!isfinite(seconds) || seconds < 0.0 || seconds > 1e6 || !isfinite(mass) || mass < 1e-12 || mass > 1e15)
        return SB_ERR_INVALID;
    sb_ramp r = {.kind = SB_RAMP_MASS, .index = id.index, .generation = id.generation, .seconds = seconds};
    r.from.x = d.mass;
    r.to.x = mass;
    if (seconds == 0.0 || !ramp_put(w, &r)) {
        d.mass = mass;
        return sb_particle_set(w, id, &d, NULL);
    }
    return SB_OK;
}

sb_status sb_world_ramp_gravity(sb_world *w, sb_vec2 gravity, double seconds)
{
    if (!v2_finite(gravity) || fabs(gravity.x) >= 1e9 || fabs(gravity.y) >= 1e9 || !isfinite(seconds) || seconds < 0.0 ||
        seconds > 1e6)
        return SB_ERR_INVALID;
    sb_ramp r = {.kind = SB_RAMP_GRAVITY, .index = 0, .seconds = seconds, .from = w->def.gravity, .to = gravity};
    if (seconds == 0.0 || !ramp_put(w, &r))
        w->def.gravity = gravity;
    return SB_OK;
}

int sb_world_ramp_count(const sb_world *w) { return w->ramp_count; }

bool sb_spring_ramp_target(const sb_world *w, sb_spring_id id, double *rest_length, sb_tuning *tuning)
{
    for (int i = 0; i < w->ramp_count; ++i) {
        const sb_ramp *r = &w->ramps[i];
        if (r->kind == SB_RAMP_SPRING && r->index == id.index && r->generation == id.generation) {
            *rest_length = r->to.x;
            *tuning = r->tuning;
            return true;
        }
    }
    return false;
}

bool ramps_copy(sb_world *dst, const sb_world *src)
{
    if (!ARRAY_RESERVE(dst->ramps, dst->ramp_cap, src->ramp_count))
        return false;
    if (src->ramp_count > 0)
        memcpy(dst->ramps, src->ramps, sizeof *src->ramps * (size_t)src->ramp_count);
    dst->ramp_count = src->ramp_count;
    for (int i = 0; i < dst->ramp_count; ++i) { // same slots, the destination's generations
        sb_ramp *r = &dst->ramps[i];
        if (r->kind == SB_RAMP_SPRING)
            r->generation = r->index < (uint32_t)dst->s_high ? dst->s_gen[r->index] : 0;
        else if (r->kind == SB_RAMP_MASS)
            r->generation = r->index < (uint32_t)dst->p_high ? dst->p_gen[r->index] : 0;
    }
    return true;
}
