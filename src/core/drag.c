// Dragging: the one particle a host's mouse holds, pulled toward a target by a soft point
// constraint (Catto's "Soft Constraints") once per sub-step.
#include "sb_tuning.h"
#include "sb_pool.h"
#include "world_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

sb_status sb_world_drag_begin(sb_world *w, sb_particle_id id, sb_vec2 target, double hertz, double damping_ratio)
{
    if (particle_slot(w, id) < 0)
        return SB_ERR_STALE;
    if (!in_world(target) || !in_range(hertz, 1e-6, 1e6) || !in_range(damping_ratio, 0.0, 1e6))
        return SB_ERR_INVALID;
    w->drag.active = true;
    w->drag.id = id;
    w->drag.target = target;
    w->drag.hertz = hertz;
    w->drag.damping_ratio = damping_ratio;
    return SB_OK;
}

void sb_world_drag_move(sb_world *w, sb_vec2 target)
{
    if (in_world(target))
        w->drag.target = target;
}

void sb_world_drag_end(sb_world *w)
{
    int i = w->drag.active ? particle_slot(w, w->drag.id) : -1;
    if (i >= 0 && w->inv_mass[i] == 0.0)
        w->vel[i] = v2(0.0, 0.0);
    w->drag.active = false;
    w->drag.id = sb_null_particle();
}

sb_particle_id sb_world_drag_particle(const sb_world *w)
{
    return w->drag.active ? w->drag.id : sb_null_particle();
}

bool sb_world_drag_info(const sb_world *w, sb_particle_id *id, sb_vec2 *target, double *hertz, double *damping_ratio)
{
    if (!w->drag.active)
        return false;
    *id = w->drag.id;
    *target = w->drag.target;
    *hertz = w->drag.hertz;
    *damping_ratio = w->drag.damping_ratio;
    return true;
}

/// The drag is one soft point constraint on one particle, solved exactly once per
/// sub-step: with gamma and beta from Catto's "Soft Constraints" the velocity update equals implicit
/// Euler of a spring-damper toward the target, so it is stable at any frequency.
void drag_apply(sb_world *w, double h)
{
    if (!w->drag.active)
        return;
    int i = particle_slot(w, w->drag.id);
    if (i < 0) {
        w->drag.active = false;
        return;
    }
    sb_vec2 error = v2_sub(w->pos[i], w->drag.target);
    double inv_m = w->inv_mass[i];
    // A fixed particle has no mass to pull: treat it as a unit mass moved kinematically.
    double m = inv_m > 0.0 ? 1.0 / inv_m : 1.0;
    double k, c, beta, gamma;
    sb_tuning t = sb_tuning_hertz(w->drag.hertz, w->drag.damping_ratio);
    sb_tuning_to_kc(&t, m, h, &k, &c);
    sb_softness_from_kc(k, c, h, &beta, &gamma);
    if (inv_m == 0.0) {
        w->vel[i] = v2_scale(error, -beta / h);
        return;
    }
    double soft_mass = 1.0 / (inv_m + gamma / h);
    sb_vec2 impulse = v2_scale(v2_mad(w->vel[i], beta / h, error), -soft_mass);
    w->vel[i] = v2_mad(w->vel[i], inv_m, impulse);
}
