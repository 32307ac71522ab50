// Particles: their defaults and checks, their storage, handles with generations, and what a
// host reads, sets and applies to them.
#include "sb_tuning.h"
#include "sb_pool.h"
#include "world_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

sb_particle_def sb_default_particle_def(void)
{
    sb_particle_def d;
    memset(&d, 0, sizeof d);
    d.mass = 1.0;
    // Half the usual 0.1 m spacing of ropes and cloths: neighbours touch, and particles two
    // links apart (0.2 m, or 0.14 m across a cloth's cell) stay clear. At 0.1 m every such pair
    // touched or overlapped: a 96 x 96 sheared cloth carried 17870 contacts at rest.
    d.radius = 0.05;
    d.collide = true;
    d.restitution = -1.0;
    d.friction = -1.0;
    d.rolling = SB_ROLLING_AUTO;
    d.inertia = 0.5;
    d.rolling_resistance = -1.0;
    d.category = 1u;
    d.mask = 0xFFFFFFFFu;
    return d;
}

sb_status sb_particle_def_check(const sb_particle_def *d, const char **bad_field)
{
    if (field_bad(in_coord(d->position.x), "x", bad_field) ||
        field_bad(in_coord(d->position.y), "y", bad_field) ||
        field_bad(in_speed(d->velocity.x), "vx", bad_field) ||
        field_bad(in_speed(d->velocity.y), "vy", bad_field) ||
        field_bad(in_range(d->mass, 1e-12, 1e15), "mass", bad_field) ||
        field_bad(in_range(d->radius, 0.0, 1e6), "radius", bad_field) ||
        field_bad(isfinite(d->restitution) && d->restitution <= 1.0, "restitution", bad_field) ||
        field_bad(isfinite(d->friction) && d->friction <= 1e6, "friction", bad_field) ||
        field_bad((unsigned)d->rolling <= SB_ROLLING_OFF, "rolling", bad_field) ||
        field_bad(in_range(d->angle, -SB_MAX_COORD, SB_MAX_COORD), "angle", bad_field) ||
        field_bad(in_speed(d->angular_velocity), "angular_velocity", bad_field) ||
        field_bad(isfinite(d->inertia) && d->inertia > 0.0 && d->inertia <= 100.0, "inertia", bad_field) ||
        field_bad(isfinite(d->rolling_resistance) && d->rolling_resistance <= 1e6, "rolling_resistance", bad_field) ||
        field_bad(d->group >= -32768 && d->group <= 32767, "group", bad_field))
        return SB_ERR_INVALID;
    return SB_OK;
}


static bool particles_reserve(sb_world *w, int need)
{
    if (need <= w->p_cap)
        return true;
    int cap = w->p_cap ? w->p_cap : 64;
    while (cap < need)
        cap *= 2;
    sb_step_scratch *sc = &w->scratch;
    if (!ARRAY_GROW(w->pos, cap) || !ARRAY_GROW(w->vel, cap) || !ARRAY_GROW(w->mass, cap) || !ARRAY_GROW(w->inv_mass, cap) ||
        !ARRAY_GROW(w->radius, cap) || !ARRAY_GROW(w->restitution, cap) || !ARRAY_GROW(w->friction, cap) ||
        !ARRAY_GROW(w->angle, cap) || !ARRAY_GROW(w->omega, cap) || !ARRAY_GROW(w->inertia, cap) ||
        !ARRAY_GROW(w->rolling_resistance, cap) || !ARRAY_GROW(w->p_rolling, cap) || !ARRAY_GROW(w->p_gen, cap) ||
        !ARRAY_GROW(w->p_flags, cap) || !ARRAY_GROW(w->p_next_free, cap) || !ARRAY_GROW(w->degree, cap) ||
        !ARRAY_GROW(w->force, cap) || !ARRAY_GROW(w->group, cap) || !ARRAY_GROW(w->category, cap) ||
        !ARRAY_GROW(w->mask, cap) || !ARRAY_GROW(w->color, cap) ||
        // the step's scratch and the grid's cells, sized with the particles
        !ARRAY_GROW(sc->prev, cap) || !ARRAY_GROW(sc->start, cap) || !ARRAY_GROW(sc->hold_frac, cap) ||
        !ARRAY_GROW(sc->hold_wall, cap) || !ARRAY_GROW(sc->dv, cap) || !ARRAY_GROW(sc->reach, cap) ||
        !ARRAY_GROW(sc->inv_inertia, cap) || !ARRAY_GROW(sc->angle_prev, cap) || !ARRAY_GROW(sc->p_load, cap) ||
        !ARRAY_GROW(sc->contact_mask, cap) || !ARRAY_GROW(sc->snap_pos, cap) || !ARRAY_GROW(sc->snap_vel, cap) ||
        !ARRAY_GROW(sc->snap_spin, cap) || !ARRAY_GROW(w->broad.cell_x, cap) || !ARRAY_GROW(w->broad.cell_y, cap))
        return false;
    w->p_cap = cap;
    return true;
}

int particle_slot(const sb_world *w, sb_particle_id id)
{
    if (id.index >= (uint32_t)w->p_high || id.generation == 0)
        return -1;
    int i = (int)id.index;
    if (!particle_alive(w, i) || w->p_gen[i] != id.generation)
        return -1;
    return i;
}

bool sb_particle_is_valid(const sb_world *w, sb_particle_id id) { return particle_slot(w, id) >= 0; }

static void particle_write(sb_world *w, int i, const sb_particle_def *d)
{
    bool was_fixed = (w->p_flags[i] & (PARTICLE_ALIVE | PARTICLE_FIXED)) == (PARTICLE_ALIVE | PARTICLE_FIXED);
    if (was_fixed != d->fixed)
        rigid_graph_changed(w);
    w->pack.coef_dirty = true; // the reduced masses of its springs may change
    w->pos[i] = d->position;
    w->vel[i] = d->velocity;
    w->mass[i] = d->mass;
    w->inv_mass[i] = d->fixed ? 0.0 : 1.0 / d->mass;
    w->radius[i] = d->radius;
    w->restitution[i] = d->restitution;
    w->friction[i] = d->friction;
    w->angle[i] = d->angle;
    w->omega[i] = d->angular_velocity;
    w->inertia[i] = d->inertia;
    w->p_rolling[i] = (uint8_t)d->rolling;
    w->rolling_resistance[i] = d->rolling_resistance;
    if (w->p_flags[i] & PARTICLE_EVENTS)
        w->event_particles -= 1;
    if (d->events)
        w->event_particles += 1;
    w->group[i] = d->group;
    w->category[i] = d->category;
    w->mask[i] = d->mask;
    w->color[i] = d->color;
    w->p_flags[i] = (uint8_t)(PARTICLE_ALIVE | (d->fixed ? PARTICLE_FIXED : 0) | (d->collide ? PARTICLE_COLLIDE : 0) |
                              (d->events ? PARTICLE_EVENTS : 0) | (d->hidden ? PARTICLE_HIDDEN : 0));
}

sb_particle_id sb_world_add_particle(sb_world *w, const sb_particle_def *d, sb_status *status)
{
    sb_status st = sb_particle_def_check(d, NULL);
    int i = -1;
    if (st == SB_OK && !generations_reserve(&w->p_gens, w->p_high + 1))
        st = SB_ERR_NO_MEMORY;
    if (st == SB_OK) {
        if (w->p_free >= 0) {
            i = w->p_free;
            w->p_free = w->p_next_free[i];
        } else if (particles_reserve(w, w->p_high + 1)) {
            i = w->p_high++;
            w->p_gen[i] = 0;
        } else {
            st = SB_ERR_NO_MEMORY;
        }
    }
    if (status)
        *status = st;
    if (i < 0)
        return sb_null_particle();
    w->p_gen[i] = generations_next(&w->p_gens, i);
    w->degree[i] = 0;
    w->p_flags[i] = 0;
    w->scratch.dv[i] = v2(0.0, 0.0);
    w->force[i] = v2(0.0, 0.0);
    w->group[i] = 0;
    w->category[i] = 1u;
    w->mask[i] = 0xFFFFFFFFu;
    w->scratch.prev[i] = d->position;
    w->scratch.inv_inertia[i] = 0.0; // it turns from its first step (contacts_build)
    particle_write(w, i, d);
    w->p_alive += 1;
    sb_particle_id id = {(uint32_t)i, w->p_gen[i]};
    return id;
}

sb_status sb_world_remove_particle(sb_world *w, sb_particle_id id)
{
    int i = particle_slot(w, id);
    if (i < 0)
        return SB_ERR_STALE;
    for (int s = 0; s < w->s_high; ++s)
        if (w->s_a[s] == i || w->s_b[s] == i)
            world_free_spring_slot(w, s);
    if (w->drag.active && w->drag.id.index == (uint32_t)i)
        w->drag.active = false;
    constraints_remove_particle(w, i);
    if (w->p_flags[i] & PARTICLE_FIXED)
        rigid_graph_changed(w);
    if (w->p_flags[i] & PARTICLE_EVENTS)
        w->event_particles -= 1;
    w->p_flags[i] = 0;
    w->force[i] = v2(0.0, 0.0);
    w->inv_mass[i] = 0.0;
    w->vel[i] = v2(0.0, 0.0); // dead slots must not move: integration runs over every slot
    w->omega[i] = 0.0;
    w->p_gen[i] = generations_next(&w->p_gens, i); // every old handle to the slot is now stale
    w->p_next_free[i] = w->p_free;
    w->p_free = i;
    w->p_alive -= 1;
    return SB_OK;
}

sb_status sb_particle_get(const sb_world *w, sb_particle_id id, sb_particle_def *out)
{
    int i = particle_slot(w, id);
    if (i < 0)
        return SB_ERR_STALE;
    out->position = w->pos[i];
    out->velocity = w->vel[i];
    out->mass = w->mass[i];
    out->radius = w->radius[i];
    out->fixed = (w->p_flags[i] & PARTICLE_FIXED) != 0;
    out->collide = (w->p_flags[i] & PARTICLE_COLLIDE) != 0;
    out->restitution = w->restitution[i];
    out->friction = w->friction[i];
    out->rolling = (sb_rolling)w->p_rolling[i];
    out->angle = w->angle[i];
    out->angular_velocity = w->omega[i];
    out->inertia = w->inertia[i];
    out->rolling_resistance = w->rolling_resistance[i];
    out->group = w->group[i];
    out->category = w->category[i];
    out->mask = w->mask[i];
    out->events = (w->p_flags[i] & PARTICLE_EVENTS) != 0;
    out->color = w->color[i];
    out->hidden = (w->p_flags[i] & PARTICLE_HIDDEN) != 0;
    return SB_OK;
}

bool sb_particle_turns(const sb_world *w, sb_particle_id id)
{
    int i = particle_slot(w, id);
    return i >= 0 && (w->scratch.inv_inertia[i] > 0.0 || (w->inv_mass[i] == 0.0 && w->omega[i] != 0.0));
}

sb_status sb_particle_set(sb_world *w, sb_particle_id id, const sb_particle_def *d, const char **bad_field)
{
    int i = particle_slot(w, id);
    if (i < 0)
        return SB_ERR_STALE;
    sb_status st = sb_particle_def_check(d, bad_field);
    if (st != SB_OK)
        return st;
    particle_write(w, i, d);
    return SB_OK;
}

int sb_world_particle_count(const sb_world *w) { return w->p_alive; }

static bool force_in_range(sb_vec2 f) { return in_range(f.x, -1e15, 1e15) && in_range(f.y, -1e15, 1e15); }

sb_status sb_particle_apply_force(sb_world *w, sb_particle_id id, sb_vec2 force)
{
    int i = particle_slot(w, id);
    if (i < 0)
        return SB_ERR_STALE;
    sb_vec2 sum = v2_add(w->force[i], force);
    if (!force_in_range(force) || !force_in_range(sum))
        return SB_ERR_INVALID;
    if (w->inv_mass[i] > 0.0) {
        w->force[i] = sum;
        w->forces_pending = true;
    }
    return SB_OK;
}

sb_status sb_particle_apply_impulse(sb_world *w, sb_particle_id id, sb_vec2 impulse)
{
    int i = particle_slot(w, id);
    if (i < 0)
        return SB_ERR_STALE;
    sb_vec2 v = v2_mad(w->vel[i], w->inv_mass[i], impulse);
    if (!force_in_range(impulse) || !in_speed(v.x) || !in_speed(v.y))
        return SB_ERR_INVALID; // the velocity a particle may have (sb_particle_def_check)
    w->vel[i] = v;
    return SB_OK;
}

bool sb_world_next_particle(const sb_world *w, sb_particle_id *it)
{
    int start = it->index == SB_NULL_INDEX ? 0 : (int)it->index + 1;
    for (int i = start; i < w->p_high; ++i) {
        if (particle_alive(w, i)) {
            it->index = (uint32_t)i;
            it->generation = w->p_gen[i];
            return true;
        }
    }
    return false;
}
