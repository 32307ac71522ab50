// Springs: their defaults, storage, handles, tuning and break limits, and what a host reads and
// sets on them (the methods that move them are the method_*.c files, ordered by solver.c).
#include "sb_tuning.h"
#include "sb_pool.h"
#include "world_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

sb_spring_def sb_default_spring_def(void)
{
    sb_spring_def d;
    memset(&d, 0, sizeof d);
    d.a = d.b = sb_null_particle();
    d.rest_length = -1.0;
    d.tuning = sb_tuning_hertz(0.0, 1.0);
    return d;
}

static bool springs_reserve(sb_world *w, int need)
{
    if (need <= w->s_cap)
        return true;
    int cap = w->s_cap ? w->s_cap : 64;
    while (cap < need)
        cap *= 2;
    sb_spring_pack *k = &w->pack;
    if (!ARRAY_GROW(w->s_a, cap) || !ARRAY_GROW(w->s_b, cap) || !ARRAY_GROW(w->rest, cap) || !ARRAY_GROW(w->tuning, cap) ||
        !ARRAY_GROW(w->s_collide, cap) || !ARRAY_GROW(w->s_solid, cap) || !ARRAY_GROW(w->s_rigid, cap) ||
        !ARRAY_GROW(w->s_gen, cap) || !ARRAY_GROW(w->s_next_free, cap) || !ARRAY_GROW(w->axis_prev, cap) ||
        !ARRAY_GROW(w->impulse, cap) || !ARRAY_GROW(w->tension, cap) || !ARRAY_GROW(w->break_stretch, cap) ||
        !ARRAY_GROW(w->break_force, cap) || !ARRAY_GROW(w->break_push, cap) || !ARRAY_GROW(w->s_color, cap) ||
        !ARRAY_GROW(w->s_hidden, cap) || !ARRAY_GROW(w->pair_keys, cap) ||
        !ARRAY_GROW(w->scratch.snap_axis, cap) || !ARRAY_GROW(w->scratch.snap_impulse, cap) ||
        // the solver's order and packed arrays, sized with the springs
        !ARRAY_GROW(k->order, cap) || !ARRAY_GROW(k->ka, cap) || !ARRAY_GROW(k->kb, cap) || !ARRAY_GROW(k->kwa, cap) ||
        !ARRAY_GROW(k->kwb, cap) || !ARRAY_GROW(k->kmass, cap) || !ARRAY_GROW(k->krest, cap) || !ARRAY_GROW(k->kux, cap) ||
        !ARRAY_GROW(k->kuy, cap) || !ARRAY_GROW(k->kpux, cap) || !ARRAY_GROW(k->kpuy, cap) || !ARRAY_GROW(k->ksep, cap) ||
        !ARRAY_GROW(k->kturn, cap) || !ARRAY_GROW(k->kstiff, cap) || !ARRAY_GROW(k->kdamp, cap) ||
        !ARRAY_GROW(k->kscale, cap) || !ARRAY_GROW(k->kg, cap) || !ARRAY_GROW(k->kimp, cap) || !ARRAY_GROW(k->krigid, cap) ||
        !ARRAY_GROW(k->ktension, cap))
        return false;
    w->s_cap = cap;
    return true;
}

static int spring_slot(const sb_world *w, sb_spring_id id)
{
    if (id.index >= (uint32_t)w->s_high || id.generation == 0)
        return -1;
    int s = (int)id.index;
    if (w->s_a[s] < 0 || w->s_gen[s] != id.generation)
        return -1;
    return s;
}

bool sb_spring_is_valid(const sb_world *w, sb_spring_id id) { return spring_slot(w, id) >= 0; }

static void spring_free_slot(sb_world *w, int s)
{
    if (w->s_a[s] < 0)
        return;
    if (w->break_stretch[s] > 0.0 || w->break_force[s] > 0.0)
        w->breakable_springs -= 1;
    w->solid_springs -= w->s_solid[s];
    w->s_solid[s] = 0;
    w->degree[w->s_a[s]] -= 1;
    w->degree[w->s_b[s]] -= 1;
    w->s_a[s] = w->s_b[s] = -1;
    w->s_gen[s] = generations_next(&w->s_gens, s);
    w->s_next_free[s] = w->s_free;
    w->s_free = s;
    w->s_alive -= 1;
    w->s_pair_dirty = 1;
    w->pack.order_dirty = true;
    rigid_graph_changed(w);
}

sb_spring_id sb_world_add_spring(sb_world *w, const sb_spring_def *d, sb_status *status, const char **bad_field)
{
    sb_status st = SB_OK;
    int a = particle_slot(w, d->a), b = particle_slot(w, d->b);
    if (a < 0 || b < 0) {
        st = SB_ERR_STALE;
        if (bad_field)
            *bad_field = a < 0 ? "a" : "b";
    } else if (a == b) {
        st = SB_ERR_SAME_PARTICLE;
        if (bad_field)
            *bad_field = "b";
    } else if (!isfinite(d->rest_length) || d->rest_length > 1e12) {
        st = SB_ERR_INVALID;
        if (bad_field)
            *bad_field = "rest_length";
    } else if (!(d->break_stretch >= 0.0 && d->break_stretch <= 1e12)) { // NaN fails too
        st = SB_ERR_INVALID;
        if (bad_field)
            *bad_field = "break_stretch";
    } else if (!(d->break_force >= 0.0 && d->break_force <= 1e15)) {
        st = SB_ERR_INVALID;
        if (bad_field)
            *bad_field = "break_force";
    } else {
        st = sb_tuning_check(&d->tuning, bad_field);
    }
    int s = -1;
    if (st == SB_OK && !generations_reserve(&w->s_gens, w->s_high + 1))
        st = SB_ERR_NO_MEMORY;
    if (st == SB_OK) {
        if (w->s_free >= 0) {
            s = w->s_free;
            w->s_free = w->s_next_free[s];
        } else if (springs_reserve(w, w->s_high + 1)) {
            s = w->s_high++;
            w->s_gen[s] = 0;
        } else {
            st = SB_ERR_NO_MEMORY;
        }
    }
    if (status)
        *status = st;
    if (s < 0)
        return sb_null_spring();
    w->s_gen[s] = generations_next(&w->s_gens, s);
    w->s_a[s] = a;
    w->s_b[s] = b;
    w->rest[s] = d->rest_length >= 0.0 ? d->rest_length : v2_len(v2_sub(w->pos[b], w->pos[a]));
    w->tuning[s] = d->tuning;
    w->s_collide[s] = d->collide;
    w->s_solid[s] = d->solid;
    w->solid_springs += d->solid;
    w->s_rigid[s] = sb_tuning_is_rigid(&d->tuning);
    w->impulse[s] = 0.0;
    w->tension[s] = 0.0;
    w->break_stretch[s] = d->break_stretch;
    w->break_force[s] = d->break_force;
    w->break_push[s] = d->break_push;
    if (d->break_stretch > 0.0 || d->break_force > 0.0)
        w->breakable_springs += 1;
    w->s_color[s] = d->color;
    w->s_hidden[s] = d->hidden;
    w->axis_prev[s] = v2(0.0, 0.0);
    w->degree[a] += 1;
    w->degree[b] += 1;
    w->s_alive += 1;
    w->s_pair_dirty = 1;
    w->pack.order_dirty = true;
    rigid_graph_changed(w);
    sb_spring_id id = {(uint32_t)s, w->s_gen[s]};
    return id;
}

sb_status sb_world_remove_spring(sb_world *w, sb_spring_id id)
{
    int s = spring_slot(w, id);
    if (s < 0)
        return SB_ERR_STALE;
    spring_free_slot(w, s);
    return SB_OK;
}

sb_status sb_spring_get(const sb_world *w, sb_spring_id id, sb_spring_def *out)
{
    int s = spring_slot(w, id);
    if (s < 0)
        return SB_ERR_STALE;
    out->a.index = (uint32_t)w->s_a[s];
    out->a.generation = w->p_gen[w->s_a[s]];
    out->b.index = (uint32_t)w->s_b[s];
    out->b.generation = w->p_gen[w->s_b[s]];
    out->rest_length = w->rest[s];
    out->tuning = w->tuning[s];
    out->collide = w->s_collide[s];
    out->solid = w->s_solid[s];
    out->break_stretch = w->break_stretch[s];
    out->break_force = w->break_force[s];
    out->break_push = w->break_push[s];
    out->color = w->s_color[s];
    out->hidden = w->s_hidden[s];
    return SB_OK;
}

sb_status sb_spring_set_break(sb_world *w, sb_spring_id id, double stretch, double force, const char **bad_field)
{
    int s = spring_slot(w, id);
    if (s < 0)
        return SB_ERR_STALE;
    if (field_bad(stretch >= 0.0 && stretch <= 1e12, "break_stretch", bad_field) ||
        field_bad(force >= 0.0 && force <= 1e15, "break_force", bad_field))
        return SB_ERR_INVALID;
    bool was = w->break_stretch[s] > 0.0 || w->break_force[s] > 0.0, now = stretch > 0.0 || force > 0.0;
    w->breakable_springs += (int)now - (int)was;
    w->break_stretch[s] = stretch;
    w->break_force[s] = force;
    rigid_graph_changed(w); // breakable springs are no tether links (tether.c)
    return SB_OK;
}

sb_status sb_spring_set_break_push(sb_world *w, sb_spring_id id, bool push)
{
    int s = spring_slot(w, id);
    if (s < 0)
        return SB_ERR_STALE;
    w->break_push[s] = push;
    return SB_OK;
}

sb_status sb_spring_set_style(sb_world *w, sb_spring_id id, uint32_t color, bool hidden)
{
    int s = spring_slot(w, id);
    if (s < 0)
        return SB_ERR_STALE;
    w->s_color[s] = color;
    w->s_hidden[s] = hidden;
    return SB_OK;
}

double sb_spring_force(const sb_world *w, sb_spring_id id)
{
    int s = spring_slot(w, id);
    return s < 0 ? 0.0 : w->tension[s];
}

void world_free_spring_slot(sb_world *w, int s) { spring_free_slot(w, s); }

sb_status sb_spring_set_solid(sb_world *w, sb_spring_id id, bool solid)
{
    int s = spring_slot(w, id);
    if (s < 0)
        return SB_ERR_STALE;
    w->solid_springs += (int)solid - (int)w->s_solid[s];
    w->s_solid[s] = solid;
    return SB_OK;
}

sb_status sb_spring_set_collide(sb_world *w, sb_spring_id id, bool collide)
{
    int s = spring_slot(w, id);
    if (s < 0)
        return SB_ERR_STALE;
    w->s_collide[s] = collide;
    w->s_pair_dirty = 1;
    return SB_OK;
}

double sb_spring_reduced_mass(const sb_world *w, sb_spring_id id)
{
    int s = spring_slot(w, id);
    return s < 0 ? 0.0 : sb_reduced_mass(w->inv_mass[w->s_a[s]], w->inv_mass[w->s_b[s]]);
}

double sb_spring_length(const sb_world *w, sb_spring_id id)
{
    int s = spring_slot(w, id);
    if (s < 0)
        return NAN;
    return v2_len(v2_sub(w->pos[w->s_b[s]], w->pos[w->s_a[s]]));
}

sb_status sb_spring_set(sb_world *w, sb_spring_id id, double rest_length, const sb_tuning *t, const char **bad_field)
{
    int s = spring_slot(w, id);
    if (s < 0)
        return SB_ERR_STALE;
    if (!in_range(rest_length, 0.0, 1e12)) {
        if (bad_field)
            *bad_field = "rest_length";
        return SB_ERR_INVALID;
    }
    sb_status st = sb_tuning_check(t, bad_field);
    if (st != SB_OK)
        return st;
    bool rigid = sb_tuning_is_rigid(t);
    if (w->s_rigid[s] != rigid || (rigid && w->rest[s] != rest_length))
        rigid_graph_changed(w); // a rigid path changed length or a spring joined or left the rigid graph
    w->rest[s] = rest_length;
    w->tuning[s] = *t;
    w->s_rigid[s] = rigid;
    w->pack.coef_dirty = true;
    return SB_OK;
}

double sb_spring_impulse(const sb_world *w, sb_spring_id id)
{
    int s = spring_slot(w, id);
    return s < 0 ? 0.0 : w->impulse[s];
}

sb_status sb_spring_set_impulse(sb_world *w, sb_spring_id id, double impulse)
{
    int s = spring_slot(w, id);
    if (s < 0)
        return SB_ERR_STALE;
    if (!isfinite(impulse))
        return SB_ERR_INVALID;
    w->impulse[s] = impulse;
    return SB_OK;
}

int sb_world_spring_count(const sb_world *w) { return w->s_alive; }

bool sb_world_next_spring(const sb_world *w, sb_spring_id *it)
{
    int start = it->index == SB_NULL_INDEX ? 0 : (int)it->index + 1;
    for (int s = start; s < w->s_high; ++s) {
        if (w->s_a[s] >= 0) {
            it->index = (uint32_t)s;
            it->generation = w->s_gen[s];
            return true;
        }
    }
    return false;
}
