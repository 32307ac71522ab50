// World bookkeeping: storage, handles, checks, dragging, the step driver,
// non-finite containment and diagnostics. The physics lives in solver.c (the sub-step loop),
// the method_*.c files (one spring method each) and contact.c.
#define _POSIX_C_SOURCE 199309L
#include "sb_tuning.h"
#include "sb_pool.h"
#include "world_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *const method_names[SB_METHOD_COUNT] = {
    "force", "impulse", "sequential", "soft", "verlet", "xpbd",
};

const char *sb_method_name(sb_method method)
{
    return (unsigned)method < SB_METHOD_COUNT ? method_names[method] : "unknown";
}

bool sb_method_from_name(const char *name, sb_method *out)
{
    for (int m = 0; m < SB_METHOD_COUNT; ++m) {
        if (name && strcmp(name, method_names[m]) == 0) {
            *out = (sb_method)m;
            return true;
        }
    }
    return false;
}

const char *sb_status_string(sb_status status)
{
    switch (status) {
    case SB_OK: return "ok";
    case SB_ERR_STALE: return "handle refers to a removed object";
    case SB_ERR_INVALID: return "invalid argument";
    case SB_ERR_SAME_PARTICLE: return "a spring needs two different particles";
    case SB_ERR_NO_MEMORY: return "out of memory";
    case SB_ERR_HALTED: return "world halted on a non-finite value or a runaway particle";
    case SB_ERR_INTERRUPTED: return "the step was interrupted";
    }
    return "unknown status";
}

sb_particle_id sb_null_particle(void) { sb_particle_id id = {SB_NULL_INDEX, 0}; return id; }
sb_spring_id sb_null_spring(void) { sb_spring_id id = {SB_NULL_INDEX, 0}; return id; }
sb_wall_id sb_null_wall(void) { sb_wall_id id = {SB_NULL_INDEX, 0}; return id; }

sb_world_def sb_default_world_def(void)
{
    sb_world_def d;
    memset(&d, 0, sizeof d);
    d.gravity = v2(0.0, -9.81);
    d.dt = 1.0 / 60.0;
    // More sub-steps with fewer iterations converge rigid chains faster per solve (small
    // steps, Mueller et al. 2020), while contacts cost one pass per sub-step. Measured with
    // bench/ (cloth 128: largest stretch at the end; ball pit 4000: ms per step):
    // 4x8 1.55%, 2.5 ms; 6x4 0.98%, 3.0 ms; 8x2 0.75%, 3.6 ms; 4x12 0.68%, 2.5 ms but
    // 4.9 ms on the cloth against 4.1 for 6x4.
    d.substeps = 6;
    d.iterations = 4;
    d.method = SB_METHOD_SOFT;
    d.warmstart = 1.0;
    d.correction = 1.0;
    d.collisions = true;
    d.restitution = 0.0;
    d.friction = 0.3;
    d.rolling_resistance = 0.0;
    d.has_bounds = false;
    d.bounds = (sb_bounds){-1e6, -1e6, 1e6, 1e6};
    d.verlet_preserve_impulse = true;
    d.tethers = true;
    d.region = (sb_bounds){-1e6, -1e6, 1e6, 1e6};
    d.threads = 1; // as Box2D v3's workerCount: the host decides how many cores a world may take
    return d;
}

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

sb_spring_def sb_default_spring_def(void)
{
    sb_spring_def d;
    memset(&d, 0, sizeof d);
    d.a = d.b = sb_null_particle();
    d.rest_length = -1.0;
    d.tuning = sb_tuning_hertz(0.0, 1.0);
    return d;
}

/// The energy of a particle's spin, 1/2 I omega^2 with I = inertia m r^2 (rolling, contact.c).
static double particle_spin_energy(const sb_world *w, int i)
{
    double r = w->radius[i], om = w->omega[i];
    return om != 0.0 ? 0.5 * w->inertia[i] * w->mass[i] * r * r * om * om : 0.0;
}

static bool field_bad(bool ok, const char *name, const char **bad_field)
{
    if (!ok && bad_field)
        *bad_field = name;
    return !ok;
}

static bool in_range(double v, double lo, double hi) { return isfinite(v) && v >= lo && v <= hi; }
static bool in_coord(double v) { return in_range(v, -SB_MAX_COORD, SB_MAX_COORD); }
static bool in_speed(double v) { return in_range(v, -SB_MAX_SPEED, SB_MAX_SPEED); }

sb_status sb_world_def_check(const sb_world_def *d, const char **bad_field)
{
    const sb_bounds *b = &d->bounds;
    if (field_bad(v2_finite(d->gravity) && fabs(d->gravity.x) < 1e9 && fabs(d->gravity.y) < 1e9, "gravity", bad_field) ||
        field_bad(in_range(d->dt, 1e-9, 10.0), "dt", bad_field) ||
        field_bad(d->substeps >= 1 && d->substeps <= 1000, "substeps", bad_field) ||
        field_bad(d->iterations >= 1 && d->iterations <= 1000, "iterations", bad_field) ||
        field_bad((unsigned)d->method < SB_METHOD_COUNT, "method", bad_field) ||
        field_bad(in_range(d->warmstart, 0.0, 1.0), "warmstart", bad_field) ||
        field_bad(in_range(d->correction, 1e-9, 1.0), "correction", bad_field) ||
        field_bad(in_range(d->restitution, 0.0, 1.0), "restitution", bad_field) ||
        field_bad(in_range(d->friction, 0.0, 1e6), "friction", bad_field) ||
        field_bad(in_range(d->rolling_resistance, 0.0, 1e6), "rolling_resistance", bad_field) ||
        field_bad(d->threads >= 1 && d->threads <= SB_POOL_MAX_THREADS, "threads", bad_field) ||
        field_bad(!d->has_bounds || (in_coord(b->xmin) && in_coord(b->xmax) &&
                                     in_coord(b->ymin) && in_coord(b->ymax) &&
                                     b->xmin < b->xmax && b->ymin < b->ymax),
                  "bounds", bad_field) ||
        field_bad(!d->has_region || (in_coord(d->region.xmin) && in_coord(d->region.xmax) &&
                                     in_coord(d->region.ymin) && in_coord(d->region.ymax) &&
                                     d->region.xmin < d->region.xmax && d->region.ymin < d->region.ymax),
                  "region", bad_field))
        return SB_ERR_INVALID;
    return SB_OK;
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

// ---------------------------------------------------------------- storage

static void copy_array(void *dst, const void *src, size_t bytes);

bool array_grow(void **p, size_t elem, int cap)
{
    void *n = realloc(*p, elem * (size_t)cap);
    if (!n)
        return false;
    *p = n;
    return true;
}

bool array_reserve(void **p, int *cap, int need, size_t elem)
{
    if (need <= *cap)
        return true;
    int n = *cap ? *cap : 16;
    while (n < need)
        n *= 2;
    if (!array_grow(p, elem, n))
        return false;
    *cap = n;
    return true;
}

#define GROW ARRAY_GROW

static bool particles_reserve(sb_world *w, int need)
{
    if (need <= w->p_cap)
        return true;
    int cap = w->p_cap ? w->p_cap : 64;
    while (cap < need)
        cap *= 2;
    if (!GROW(w->pos, cap) || !GROW(w->vel, cap) || !GROW(w->prev, cap) || !GROW(w->dv, cap) || !GROW(w->reach, cap) ||
        !GROW(w->angle, cap) || !GROW(w->omega, cap) || !GROW(w->inertia, cap) || !GROW(w->p_rolling, cap) ||
        !GROW(w->rolling_resistance, cap) || !GROW(w->inv_inertia, cap) || !GROW(w->angle_prev, cap) ||
        !GROW(w->mass, cap) || !GROW(w->inv_mass, cap) || !GROW(w->radius, cap) ||
        !GROW(w->restitution, cap) || !GROW(w->friction, cap) || !GROW(w->p_gen, cap) ||
        !GROW(w->p_flags, cap) || !GROW(w->p_next_free, cap) || !GROW(w->degree, cap) ||
        !GROW(w->snap_pos, cap) || !GROW(w->snap_vel, cap) || !GROW(w->snap_spin, cap) || !GROW(w->contact_mask, cap) || !GROW(w->cell_x, cap) || !GROW(w->cell_y, cap) ||
        !GROW(w->p_load, cap) || !GROW(w->start, cap) || !GROW(w->hold_frac, cap) || !GROW(w->hold_wall, cap) ||
        !GROW(w->force, cap) || !GROW(w->group, cap) ||
        !GROW(w->category, cap) || !GROW(w->mask, cap) || !GROW(w->color, cap))
        return false;
    w->p_cap = cap;
    return true;
}

static bool springs_reserve(sb_world *w, int need)
{
    if (need <= w->s_cap)
        return true;
    int cap = w->s_cap ? w->s_cap : 64;
    while (cap < need)
        cap *= 2;
    if (!GROW(w->s_a, cap) || !GROW(w->s_b, cap) || !GROW(w->rest, cap) || !GROW(w->tuning, cap) ||
        !GROW(w->s_collide, cap) || !GROW(w->s_solid, cap) || !GROW(w->s_rigid, cap) || !GROW(w->s_gen, cap) || !GROW(w->s_next_free, cap) || !GROW(w->axis_prev, cap) ||
        !GROW(w->impulse, cap) || !GROW(w->snap_axis, cap) || !GROW(w->snap_impulse, cap) ||
        !GROW(w->pair_keys, cap) || !GROW(w->order, cap) || !GROW(w->ka, cap) || !GROW(w->kb, cap) ||
        !GROW(w->kwa, cap) || !GROW(w->kwb, cap) || !GROW(w->kmass, cap) || !GROW(w->krest, cap) ||
        !GROW(w->kux, cap) || !GROW(w->kuy, cap) || !GROW(w->kpux, cap) || !GROW(w->kpuy, cap) ||
        !GROW(w->ksep, cap) || !GROW(w->kstiff, cap) || !GROW(w->kdamp, cap) || !GROW(w->kscale, cap) ||
        !GROW(w->kg, cap) || !GROW(w->kimp, cap) || !GROW(w->krigid, cap) || !GROW(w->ktension, cap) ||
        !GROW(w->tension, cap) || !GROW(w->break_stretch, cap) || !GROW(w->break_force, cap) ||
        !GROW(w->s_color, cap) || !GROW(w->s_hidden, cap))
        return false;
    w->s_cap = cap;
    return true;
}

sb_world *sb_world_create(const sb_world_def *def)
{
    if (sb_world_def_check(def, NULL) != SB_OK)
        return NULL;
    sb_world *w = calloc(1, sizeof *w);
    if (!w)
        return NULL;
    w->def = *def;
    w->p_free = w->s_free = w->c_free = -1;
    w->last_method = def->method;
    w->drag_id = sb_null_particle();
    w->stats.clamped_spring = sb_null_spring();
    w->stats.overlap_a = w->stats.overlap_b = sb_null_particle();
    w->coef_dirty = true;
    w->stats.bad_particle = sb_null_particle();
    w->stats.bad_spring = sb_null_spring();
    w->stats.max_stretch_spring = -1;
    return w;
}

void world_free_storage(sb_world *w)
{
    void *arrays[] = {
        w->pos, w->vel, w->prev, w->dv, w->reach, w->angle, w->omega, w->inertia, w->p_rolling,
        w->rolling_resistance, w->inv_inertia, w->angle_prev, w->mass, w->inv_mass, w->radius, w->restitution, w->friction,
        w->p_gen, w->p_flags, w->p_next_free, w->degree, w->s_a, w->s_b, w->rest, w->tuning, w->s_collide, w->s_solid, w->s_rigid,
        w->s_gen, w->s_next_free, w->axis_prev, w->impulse, w->order, w->ka, w->kb, w->kwa, w->kwb, w->kmass,
        w->krest, w->kux, w->kuy, w->kpux, w->kpuy, w->ksep, w->kstiff, w->kdamp, w->kscale, w->kg, w->kimp,
        w->krigid, w->pair_keys, w->wall_a, w->wall_b, w->w_gen, w->w_one_sided, w->wall_nb,
        w->w_alive_flag, w->contacts, w->contacts_next, w->segment_contacts, w->grid_start, w->grid_items, w->grid_entries, w->cell_x,
        w->cell_y, w->snap_pos, w->snap_vel, w->snap_spin, w->contact_mask, w->contact_order, w->contacts_scratch, w->snap_axis, w->snap_impulse, w->tether_p,
        w->tether_anchor, w->tether_length, w->p_load, w->start, w->hold_frac, w->hold_wall, w->ramps, w->force, w->group,
        w->category, w->mask, w->color, w->ktension, w->tension, w->break_stretch, w->break_force,
        w->s_color, w->s_hidden,
    };
    for (int k = 0; k < SB_POOL_MAX_THREADS; ++k)
        free(w->chunk_contacts[k]);
    events_free(w);
    constraints_free(w);
    for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; ++i)
        free(arrays[i]);
}

void sb_world_destroy(sb_world *w)
{
    if (!w)
        return;
    sb_pool_destroy(w->pool);
    world_free_storage(w);
    free(w);
}

sb_world_def sb_world_get_def(const sb_world *w) { return w->def; }

sb_status sb_world_set_def(sb_world *w, const sb_world_def *def, const char **bad_field)
{
    sb_status st = sb_world_def_check(def, bad_field);
    if (st != SB_OK)
        return st;
    w->def = *def;
    return SB_OK;
}

// ---------------------------------------------------------------- particles

static int particle_slot(const sb_world *w, sb_particle_id id)
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
        w->tethers_dirty = true;
    w->coef_dirty = true; // the reduced masses of its springs may change
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
    w->p_gen[i] += 1;
    if (w->p_gen[i] == 0) // generation 0 is reserved for null handles
        w->p_gen[i] = 1;
    w->degree[i] = 0;
    w->p_flags[i] = 0;
    w->dv[i] = v2(0.0, 0.0);
    w->force[i] = v2(0.0, 0.0);
    w->group[i] = 0;
    w->category[i] = 1u;
    w->mask[i] = 0xFFFFFFFFu;
    w->prev[i] = d->position;
    w->inv_inertia[i] = 0.0; // it turns from its first step (contacts_build)
    particle_write(w, i, d);
    w->p_alive += 1;
    sb_particle_id id = {(uint32_t)i, w->p_gen[i]};
    return id;
}

static void spring_free_slot(sb_world *w, int s);

sb_status sb_world_remove_particle(sb_world *w, sb_particle_id id)
{
    int i = particle_slot(w, id);
    if (i < 0)
        return SB_ERR_STALE;
    for (int s = 0; s < w->s_high; ++s)
        if (w->s_a[s] == i || w->s_b[s] == i)
            spring_free_slot(w, s);
    if (w->drag_active && w->drag_id.index == (uint32_t)i)
        w->drag_active = false;
    constraints_remove_particle(w, i);
    if (w->p_flags[i] & PARTICLE_FIXED)
        w->tethers_dirty = true;
    if (w->p_flags[i] & PARTICLE_EVENTS)
        w->event_particles -= 1;
    w->p_flags[i] = 0;
    w->force[i] = v2(0.0, 0.0);
    w->inv_mass[i] = 0.0;
    w->vel[i] = v2(0.0, 0.0); // dead slots must not move: integration runs over every slot
    w->omega[i] = 0.0;
    w->p_gen[i] += 1; // every old handle to the slot is now stale
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
    return i >= 0 && (w->inv_inertia[i] > 0.0 || (w->inv_mass[i] == 0.0 && w->omega[i] != 0.0));
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

// ---------------------------------------------------------------- springs

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
    w->s_gen[s] += 1;
    w->s_next_free[s] = w->s_free;
    w->s_free = s;
    w->s_alive -= 1;
    w->s_pair_dirty = 1;
    w->order_dirty = true;
    w->tethers_dirty = true;
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
    w->s_gen[s] += 1;
    if (w->s_gen[s] == 0)
        w->s_gen[s] = 1;
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
    if (d->break_stretch > 0.0 || d->break_force > 0.0)
        w->breakable_springs += 1;
    w->s_color[s] = d->color;
    w->s_hidden[s] = d->hidden;
    w->axis_prev[s] = v2(0.0, 0.0);
    w->degree[a] += 1;
    w->degree[b] += 1;
    w->s_alive += 1;
    w->s_pair_dirty = 1;
    w->order_dirty = true;
    w->tethers_dirty = true;
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
    w->tethers_dirty = true; // breakable springs are no tether links (tether.c)
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
        w->tethers_dirty = true; // a rigid path changed length or a spring joined or left the rigid graph
    w->rest[s] = rest_length;
    w->tuning[s] = *t;
    w->s_rigid[s] = rigid;
    w->coef_dirty = true;
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

// ---------------------------------------------------------------- walls

/// Positions the world accepts: finite and within SB_MAX_COORD of the origin, as particles.
static bool in_world(sb_vec2 p) { return in_coord(p.x) && in_coord(p.y); }

sb_wall_id sb_world_add_wall(sb_world *w, sb_vec2 a, sb_vec2 b, sb_status *status)
{
    sb_wall_id id = {SB_NULL_INDEX, 0};
    if (!in_world(a) || !in_world(b)) {
        if (status)
            *status = SB_ERR_INVALID;
        return id;
    }
    if (w->w_high == w->w_cap) {
        int cap = w->w_cap ? w->w_cap * 2 : 16;
        if (!GROW(w->wall_a, cap) || !GROW(w->wall_b, cap) || !GROW(w->w_gen, cap) || !GROW(w->w_alive_flag, cap) ||
            !GROW(w->w_one_sided, cap) || !GROW(w->wall_nb, 2 * cap)) {
            if (status)
                *status = SB_ERR_NO_MEMORY;
            return id;
        }
        w->w_cap = cap;
    }
    // Walls are few; slots are never reused, so a handle is stale once removed.
    int i = w->w_high++;
    w->wall_a[i] = a;
    w->wall_b[i] = b;
    w->w_gen[i] = 1;
    w->w_alive_flag[i] = 1;
    w->w_one_sided[i] = 0;
    w->w_alive += 1;
    w->walls_dirty = true;
    if (status)
        *status = SB_OK;
    id.index = (uint32_t)i;
    id.generation = 1;
    return id;
}

static int wall_slot(const sb_world *w, sb_wall_id id)
{
    if (id.index >= (uint32_t)w->w_high || !w->w_alive_flag[id.index] || w->w_gen[id.index] != id.generation)
        return -1;
    return (int)id.index;
}

sb_status sb_world_remove_wall(sb_world *w, sb_wall_id id)
{
    int i = wall_slot(w, id);
    if (i < 0)
        return SB_ERR_STALE;
    w->w_alive_flag[i] = 0;
    w->w_gen[i] += 1;
    w->w_alive -= 1;
    w->walls_dirty = true;
    return SB_OK;
}

sb_status sb_wall_set(sb_world *w, sb_wall_id id, sb_vec2 a, sb_vec2 b)
{
    int i = wall_slot(w, id);
    if (i < 0)
        return SB_ERR_STALE;
    if (!in_world(a) || !in_world(b))
        return SB_ERR_INVALID;
    w->wall_a[i] = a;
    w->wall_b[i] = b;
    w->walls_dirty = true; // its chain joints are found again
    return SB_OK;
}

sb_status sb_wall_set_one_sided(sb_world *w, sb_wall_id id, bool one_sided)
{
    int i = wall_slot(w, id);
    if (i < 0)
        return SB_ERR_STALE;
    w->w_one_sided[i] = one_sided;
    return SB_OK;
}

bool sb_wall_is_one_sided(const sb_world *w, sb_wall_id id)
{
    int i = wall_slot(w, id);
    return i >= 0 && w->w_one_sided[i];
}

int sb_world_add_polyline(sb_world *w, const sb_vec2 *points, int count, bool closed, bool one_sided, sb_wall_id *walls,
                          sb_status *status)
{
    int n = 0, segments = count < 2 ? 0 : closed && count > 2 ? count : count - 1;
    sb_status st = count < 2 ? SB_ERR_INVALID : SB_OK;
    for (int k = 0; k < count && st == SB_OK; ++k)
        st = in_world(points[k]) ? SB_OK : SB_ERR_INVALID;
    for (int k = 0; k < segments && st == SB_OK; ++k) {
        sb_wall_id id = sb_world_add_wall(w, points[k], points[(k + 1) % count], &st);
        if (st != SB_OK)
            break;
        w->w_one_sided[id.index] = one_sided;
        if (walls)
            walls[n] = id;
        n += 1;
    }
    if (status)
        *status = st;
    return n;
}

int sb_world_wall_count(const sb_world *w) { return w->w_alive; }

sb_status sb_wall_get(const sb_world *w, sb_wall_id id, sb_vec2 *a, sb_vec2 *b)
{
    int i = wall_slot(w, id);
    if (i < 0)
        return SB_ERR_STALE;
    *a = w->wall_a[i];
    *b = w->wall_b[i];
    return SB_OK;
}

bool sb_world_next_wall(const sb_world *w, sb_wall_id *it)
{
    int start = it->index == SB_NULL_INDEX ? 0 : (int)it->index + 1;
    for (int i = start; i < w->w_high; ++i) {
        if (w->w_alive_flag[i]) {
            it->index = (uint32_t)i;
            it->generation = w->w_gen[i];
            return true;
        }
    }
    return false;
}

// ---------------------------------------------------------------- dragging

sb_status sb_world_drag_begin(sb_world *w, sb_particle_id id, sb_vec2 target, double hertz, double damping_ratio)
{
    if (particle_slot(w, id) < 0)
        return SB_ERR_STALE;
    if (!in_world(target) || !in_range(hertz, 1e-6, 1e6) || !in_range(damping_ratio, 0.0, 1e6))
        return SB_ERR_INVALID;
    w->drag_active = true;
    w->drag_id = id;
    w->drag_target = target;
    w->drag_hertz = hertz;
    w->drag_damping_ratio = damping_ratio;
    return SB_OK;
}

void sb_world_drag_move(sb_world *w, sb_vec2 target)
{
    if (in_world(target))
        w->drag_target = target;
}

void sb_world_drag_end(sb_world *w)
{
    int i = w->drag_active ? particle_slot(w, w->drag_id) : -1;
    if (i >= 0 && w->inv_mass[i] == 0.0)
        w->vel[i] = v2(0.0, 0.0);
    w->drag_active = false;
    w->drag_id = sb_null_particle();
}

sb_particle_id sb_world_drag_particle(const sb_world *w)
{
    return w->drag_active ? w->drag_id : sb_null_particle();
}

bool sb_world_drag_info(const sb_world *w, sb_particle_id *id, sb_vec2 *target, double *hertz, double *damping_ratio)
{
    if (!w->drag_active)
        return false;
    *id = w->drag_id;
    *target = w->drag_target;
    *hertz = w->drag_hertz;
    *damping_ratio = w->drag_damping_ratio;
    return true;
}

bool sb_world_can_copy_state(const sb_world *dst, const sb_world *src)
{
    if (dst->p_high != src->p_high || dst->s_high != src->s_high)
        return false;
    for (int i = 0; i < src->p_high; ++i)
        if ((dst->p_flags[i] & PARTICLE_ALIVE) != (src->p_flags[i] & PARTICLE_ALIVE))
            return false;
    for (int s = 0; s < src->s_high; ++s)
        if (dst->s_a[s] != src->s_a[s] || dst->s_b[s] != src->s_b[s])
            return false;
    return constraints_same_shape(dst, src);
}

sb_status sb_world_copy_state(sb_world *dst, const sb_world *src)
{
    if (!sb_world_can_copy_state(dst, src))
        return SB_ERR_INVALID;
    if (src->contact_count > dst->contact_cap) {
        sb_contact *c = realloc(dst->contacts, sizeof *c * (size_t)src->contact_count);
        if (!c)
            return SB_ERR_NO_MEMORY;
        dst->contacts = c;
        dst->contact_cap = src->contact_count;
    }
    copy_array(dst->pos, src->pos, sizeof *src->pos * (size_t)src->p_high);
    copy_array(dst->vel, src->vel, sizeof *src->vel * (size_t)src->p_high);
    copy_array(dst->angle, src->angle, sizeof *src->angle * (size_t)src->p_high);
    copy_array(dst->omega, src->omega, sizeof *src->omega * (size_t)src->p_high);
    copy_array(dst->impulse, src->impulse, sizeof *src->impulse * (size_t)src->s_high);
    copy_array(dst->axis_prev, src->axis_prev, sizeof *src->axis_prev * (size_t)src->s_high);
    if (!ramps_copy(dst, src))
        return SB_ERR_NO_MEMORY;
    copy_array(dst->contacts, src->contacts, sizeof *src->contacts * (size_t)src->contact_count);
    dst->contact_count = src->contact_count;
    dst->last_method = src->last_method; // warm starts stay valid only for the method that made them
    dst->drag_active = src->drag_active;
    dst->drag_id.index = src->drag_id.index;
    dst->drag_id.generation = src->drag_active ? dst->p_gen[src->drag_id.index] : 0;
    dst->drag_target = src->drag_target;
    dst->drag_hertz = src->drag_hertz;
    dst->drag_damping_ratio = src->drag_damping_ratio;
    dst->stats.steps = src->stats.steps;
    dst->stats.time = src->stats.time;
    // Contacts touching and particles outside the region stay so: without them a kept reload
    // began every resting contact again (a ball on a wall, three reloads: 4 begins, no end)
    // and left the region again (issue 22). Same slots; the destination's generations.
    if (src->touch_count > 0 &&
        array_reserve((void **)&dst->touch_keys, &dst->touch_cap, src->touch_count, sizeof *dst->touch_keys)) {
        sb_contact_event *events = realloc(dst->touch_events, sizeof *events * (size_t)src->touch_count);
        if (events) {
            dst->touch_events = events;
            for (int k = 0; k < src->touch_count; ++k) {
                sb_contact_event e = src->touch_events[k];
                e.a.generation = dst->p_gen[e.a.index];
                if (e.b.generation)
                    e.b.generation = dst->p_gen[e.b.index];
                if (e.wall.generation && (int)e.wall.index < dst->w_high)
                    e.wall.generation = dst->w_gen[e.wall.index];
                dst->touch_keys[k] = src->touch_keys[k];
                dst->touch_events[k] = e;
            }
            dst->touch_count = src->touch_count;
        }
    }
    if (src->outside_cap > 0 && src->outside &&
        (dst->outside_cap >= src->outside_cap || ARRAY_GROW(dst->outside, dst->p_cap))) {
        if (dst->outside_cap < dst->p_cap) {
            memset(dst->outside + dst->outside_cap, 0, (size_t)(dst->p_cap - dst->outside_cap));
            dst->outside_cap = dst->p_cap;
        }
        memcpy(dst->outside, src->outside, (size_t)(src->outside_cap < dst->outside_cap ? src->outside_cap : dst->outside_cap));
    }
    return SB_OK;
}

/// The drag is one soft point constraint on one particle, solved exactly once per
/// sub-step: with gamma and beta from seed 003 the velocity update equals implicit
/// Euler of a spring-damper toward the target, so it is stable at any frequency.
static void drag_apply(sb_world *w, double h)
{
    if (!w->drag_active)
        return;
    int i = particle_slot(w, w->drag_id);
    if (i < 0) {
        w->drag_active = false;
        return;
    }
    sb_vec2 error = v2_sub(w->pos[i], w->drag_target);
    double inv_m = w->inv_mass[i];
    // A fixed particle has no mass to pull: treat it as a unit mass moved kinematically.
    double m = inv_m > 0.0 ? 1.0 / inv_m : 1.0;
    double k, c, beta, gamma;
    sb_tuning t = sb_tuning_hertz(w->drag_hertz, w->drag_damping_ratio);
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

// ---------------------------------------------------------------- stepping

static uint64_t pair_key(int a, int b)
{
    uint32_t lo = (uint32_t)(a < b ? a : b), hi = (uint32_t)(a < b ? b : a);
    return ((uint64_t)lo << 32) | hi;
}

static int compare_u64(const void *x, const void *y)
{
    uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return (a > b) - (a < b);
}

static void rebuild_spring_pairs(sb_world *w)
{
    int n = 0;
    for (int s = 0; s < w->s_high; ++s)
        if (w->s_a[s] >= 0 && !w->s_collide[s])
            w->pair_keys[n++] = pair_key(w->s_a[s], w->s_b[s]);
    qsort(w->pair_keys, (size_t)n, sizeof *w->pair_keys, compare_u64);
    w->pair_count = n;
    w->s_pair_dirty = 0;
}

typedef struct kick_job { sb_world *w; double h; } kick_job;

static void kick_range(void *ctx, int from, int to)
{
    const kick_job *job = ctx;
    sb_world *w = job->w;
    const double h = job->h;
    sb_vec2 dv = v2_scale(w->def.gravity, h);
    for (int i = from; i < to; ++i)
        if (w->inv_mass[i] > 0.0)
            w->vel[i] = v2_add(w->vel[i], dv);
    if (w->forces_pending) // fixed and dead slots hold no force
        for (int i = from; i < to; ++i)
            w->vel[i] = v2_mad(w->vel[i], h * w->inv_mass[i], w->force[i]);
}

void apply_gravity_and_drag(sb_world *w, double h)
{
    kick_job job = {w, h}; // particle by particle: on the world's threads (sb_pool.h)
    sb_pool_for(w->pool, w->p_high, 1, PARTICLES_PER_THREAD, kick_range, &job);
    drag_apply(w, h);
}

// memcpy with a null pointer is undefined even for zero bytes, and an empty world has none.
static void copy_array(void *dst, const void *src, size_t bytes)
{
    if (bytes > 0)
        memcpy(dst, src, bytes);
}

static void snapshot_save(sb_world *w)
{
    copy_array(w->snap_pos, w->pos, sizeof *w->pos * (size_t)w->p_high);
    copy_array(w->snap_vel, w->vel, sizeof *w->vel * (size_t)w->p_high);
    for (int i = 0; i < w->p_high; ++i)
        w->snap_spin[i] = v2(w->angle[i], w->omega[i]);
    copy_array(w->snap_axis, w->axis_prev, sizeof *w->axis_prev * (size_t)w->s_high);
    copy_array(w->snap_impulse, w->impulse, sizeof *w->impulse * (size_t)w->s_high);
}

static void snapshot_restore(sb_world *w)
{
    w->packed = false; // the warm starts go back: a replay packs them again
    copy_array(w->pos, w->snap_pos, sizeof *w->pos * (size_t)w->p_high);
    copy_array(w->vel, w->snap_vel, sizeof *w->vel * (size_t)w->p_high);
    for (int i = 0; i < w->p_high; ++i) {
        w->angle[i] = w->snap_spin[i].x;
        w->omega[i] = w->snap_spin[i].y;
    }
    copy_array(w->axis_prev, w->snap_axis, sizeof *w->axis_prev * (size_t)w->s_high);
    copy_array(w->impulse, w->snap_impulse, sizeof *w->impulse * (size_t)w->s_high);
}

/// How far a spring is past the explicit stability limit: omega*h over the symplectic
/// Euler limit for its damping ratio (sb_tuning.h). Rigid springs count as Cs = Cd = 1.
static double spring_instability(const sb_world *w, int s, double h)
{
    double m = sb_reduced_mass(w->inv_mass[w->s_a[s]], w->inv_mass[w->s_b[s]]);
    double k = m / (h * h), c = m / h, omega, zeta;
    if (!w->s_rigid[s])
        sb_tuning_to_kc(&w->tuning[s], m, h, &k, &c);
    sb_kc_to_omega_zeta(k, c, m, &omega, &zeta);
    return omega * h / sb_symplectic_omega_h_limit(zeta);
}

static void halt(sb_world *w, int bad, bool nonfinite)
{
    sb_stats *st = &w->stats;
    st->halted = true;
    st->bad_particle.index = (uint32_t)bad;
    st->bad_particle.generation = w->p_gen[bad];
    st->bad_spring = sb_null_spring();
    const double h = w->def.dt / w->def.substeps;
    double worst = -1.0;
    for (int s = 0; s < w->s_high; ++s) {
        if (w->s_a[s] != bad && w->s_b[s] != bad)
            continue;
        double score = spring_instability(w, s, h);
        if (score > worst) {
            worst = score;
            st->bad_spring.index = (uint32_t)s;
            st->bad_spring.generation = w->s_gen[s];
        }
    }
    if (!nonfinite) // out of range but finite: pushed there by the scene (a force, a drag)
        snprintf(st->message, sizeof st->message,
                 "runaway at step %llu: particle %u passed %.0e m or %.0e m/s on an axis. Kept the last state "
                 "within range",
                 (unsigned long long)st->steps, bad + 1, SB_MAX_COORD, SB_MAX_SPEED);
    else if (st->bad_spring.generation)
        snprintf(st->message, sizeof st->message,
                 "non-finite state at step %llu: particle %u went first; its stiffest spring %u has omega*h %.3g times "
                 "the explicit limit. Kept the last finite state",
                 (unsigned long long)st->steps, bad + 1, st->bad_spring.index + 1, worst);
    else
        snprintf(st->message, sizeof st->message,
                 "non-finite state at step %llu: particle %u went first. Kept the last finite state",
                 (unsigned long long)st->steps, bad + 1);
}

static void measure(sb_world *w)
{
    sb_stats *st = &w->stats;
    double ke = 0.0, pe = 0.0;
    sb_vec2 g = w->def.gravity;
    for (int i = 0; i < w->p_high; ++i) {
        if (!particle_alive(w, i) || w->inv_mass[i] == 0.0)
            continue;
        double m = w->mass[i];
        ke += 0.5 * m * v2_dot(w->vel[i], w->vel[i]) + particle_spin_energy(w, i);
        pe -= m * v2_dot(g, w->pos[i]);
    }
    const double h = w->def.dt / w->def.substeps;
    // Stretch is against the rest length asked for: a ramping spring works at a re-based rest
    // length (retune.c) that can be a small fraction of it, and a ramp must not read as an
    // explosion. Energy is the spring's as it works.
    const double *asked = w->rest;
    double *targets = NULL;
    if (w->ramp_count > 0 && w->s_high > 0 && (targets = malloc(sizeof *targets * (size_t)w->s_high)) != NULL) {
        memcpy(targets, w->rest, sizeof *targets * (size_t)w->s_high);
        for (int r = 0; r < w->ramp_count; ++r) {
            const sb_ramp *ramp = &w->ramps[r];
            if (ramp->kind == SB_RAMP_SPRING && (int)ramp->index < w->s_high && w->s_gen[ramp->index] == ramp->generation)
                targets[ramp->index] = ramp->to.x;
        }
        asked = targets;
    }
    double max_stretch = 0.0;
    int max_s = -1;
    for (int s = 0; s < w->s_high; ++s) {
        int a = w->s_a[s], b = w->s_b[s];
        if (a < 0)
            continue;
        double len = v2_len(v2_sub(w->pos[b], w->pos[a]));
        double c = len - w->rest[s];
        if (asked[s] > 0.0 && fabs(len - asked[s]) / asked[s] > max_stretch) {
            max_stretch = fabs(len - asked[s]) / asked[s];
            max_s = s;
        }
        if (!w->s_rigid[s]) {
            double k, damper;
            sb_tuning_to_kc(&w->tuning[s], sb_reduced_mass(w->inv_mass[a], w->inv_mass[b]), h, &k, &damper);
            pe += 0.5 * k * c * c;
        }
    }
    free(targets);
    st->kinetic_energy = ke;
    st->potential_energy = pe;
    st->max_stretch = max_stretch;
    st->max_stretch_spring = max_s;
    st->contacts = contacts_touching(w);
    st->particles = w->p_alive;
    st->springs = w->s_alive;
}

// ---------------------------------------------------------------- the energy ledger

// Energy from nowhere (issue 26 item 4). An explicit spring can feed a motion its step cannot
// follow: a chain of four 10 cm links on undamped 15 Hz springs swinging from horizontal in the
// force method at one sub-step, every spring within its linear stability limit, reached 2500%
// stretch and 10^5 times the energy gravity had released (the links turn and pass through each
// other within a step, which no linear limit sees), and the world kept running. So for the
// methods with explicit springs the world keeps a ledger over each undisturbed run: each step
// adds the energy it made beyond the work of gravity and the applied forces (floored at zero,
// so the few-percent swing of a symplectic step's energy never adds up), and once that passes
// four times the run's energy scale (its kinetic and elastic energy plus its weight times its
// extent when the watch began, plus the applied forces' work and the most energy gravity has
// released since) the world halts and names the springs. A drag, a ramp, a moving
// fixed particle, a tuned constraint (whose energy the ledger does not count), or any change
// made between steps by the scene (the step measures before and after itself) ends the run;
// the next undisturbed step starts a new one. The implicit and position methods are
// unconditionally stable (seed 003) and only lose energy; they keep no ledger.

/// The step's own energy (below), and the ledger's scale. With `damping`, also the change the
/// step's damping makes to it (below), from the state before the step.
static double ledger_energy(sb_world *w, double *scale, double *gravity_energy, bool *kinematic, double *damping)
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
        for (int k = 0; k < w->order_count; ++k) {
            int s = w->order[k], a = w->ka[k], bi = w->kb[k];
            if (w->s_a[s] < 0 || (w->krigid[k] && !kernels->rigid_springs_explicit) || w->kmass[k] <= 0.0)
                continue; // broken in this step, a constraint, or between fixed particles
            sb_vec2 d = v2_sub(w->pos[bi], w->pos[a]);
            double b, len = v2_len(d), c = len - w->krest[k], stiffness = kernels->delivered_spring(w, k, h, &b);
            if (len <= 0.0)
                continue;
            sb_vec2 u = v2_scale(d, 1.0 / len);
            if (pass == 0) {
                elastic += 0.5 * stiffness * c * c;
                power -= stiffness * c * v2_dot(v2_sub(w->vel[bi], w->vel[a]), u);
                // the damping's kick, from the velocities before the step, as the methods give it
                double kick = -b * w->kmass[k] * v2_dot(v2_sub(w->vel[bi], w->vel[a]), u);
                if (damping) {
                    w->dv[a] = v2_mad(w->dv[a], -w->kwa[k] * kick, u);
                    w->dv[bi] = v2_mad(w->dv[bi], w->kwb[k] * kick, u);
                }
            } else {
                *damping -= 0.5 * h * stiffness * c * v2_dot(v2_sub(w->dv[bi], w->dv[a]), u);
            }
        }
    }
    if (damping) {
        for (int i = 0; i < w->p_high; ++i) {
            if (w->inv_mass[i] > 0.0 && particle_alive(w, i)) {
                double m = w->mass[i];
                sb_vec2 v = w->vel[i], dv = w->dv[i], f = w->forces_pending ? v2_mad(w->force[i], m, g) : v2_scale(g, m);
                *damping += 0.5 * m * (v2_dot(v2_add(v, dv), v2_add(v, dv)) - v2_dot(v, v)) + 0.5 * h * v2_dot(dv, f);
            }
            w->dv[i] = v2(0.0, 0.0);
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
static bool ledger_begin(sb_world *w, double *energy, double *scale, double *gravity_energy, double *damping)
{
    bool tuned = false;
    if (!method_kernels(w->def.method)->delivered_spring || w->drag_active || w->ramp_count > 0)
        return false;
    for (int s = 0; s < w->s_high && !tuned; ++s)
        tuned = w->s_a[s] >= 0 && !w->s_rigid[s];
    for (int c = 0; c < w->c_high && tuned; ++c)
        if (w->c_kind[c] != 0xFF && !sb_tuning_is_rigid(&w->c_tuning[c]))
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
static double applied_work(const sb_world *w)
{
    double work = 0.0;
    if (w->forces_pending)
        for (int i = 0; i < w->p_high; ++i)
            if (w->inv_mass[i] > 0.0)
                work += v2_dot(w->force[i], v2_sub(w->pos[i], w->snap_pos[i]));
    return work;
}

/// Adds the step's made energy; true when the run has made more than its bound (then halted).
static bool ledger_end(sb_world *w, double before, double after, double scale, double gravity_before,
                       double gravity_after, double work, double damping)
{
    if (!w->energy_tracking) {
        w->energy_tracking = true;
        w->energy_excess = 0.0;
        w->energy_scale = scale;
        w->energy_gravity_start = gravity_before;
        w->energy_released = 0.0;
    }
    // What the damping gives back is no energy made; what it takes away earns no credit, or
    // energy a rigid spring's stabilisation makes and the damping eats (a bridge at one
    // sub-step in sequential: 1.4 J a step) would read as made. Signed, so that a contact's or a
    // constraint's give and take nets out (floored at zero it ratcheted that bridge up to 1 kJ
    // in 700 steps); banked losses count only up to the bound, so a world that lost energy early
    // still halts when it makes some later.
    w->energy_excess =
        fmax(-0.1 * w->energy_scale, w->energy_excess + (after - before - work - fmax(0.0, damping)));
    // what the forces put in or took out, and the most gravity has released, are the run's too
    w->energy_scale += fabs(work);
    if (w->energy_gravity_start - gravity_after > w->energy_released) {
        w->energy_scale += w->energy_gravity_start - gravity_after - w->energy_released;
        w->energy_released = w->energy_gravity_start - gravity_after;
    }
    if (!(w->energy_excess > 0.1 * w->energy_scale))
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
             w->def.substeps == 1 ? "" : "s", w->energy_excess, names);
    size_t n = strlen(text) < sizeof st->message ? strlen(text) : sizeof st->message - 1;
    memcpy(st->message, text, n); // the message field's length, cut as snprintf would
    st->message[n] = '\0';
    return true;
}

static void clear_forces(sb_world *w)
{
    if (w->forces_pending && w->p_high > 0)
        memset(w->force, 0, sizeof *w->force * (size_t)w->p_high);
    w->forces_pending = false;
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

sb_status sb_world_step(sb_world *w)
{
    if (w->stats.halted) {
        clear_forces(w); // a halted world takes no step, and forces act for one step only
        return SB_ERR_HALTED;
    }
    double t0 = now_ms();
    if (w->def.method != w->last_method) {
        // Impulses mean different things to different methods: start them afresh.
        for (int s = 0; s < w->s_high; ++s)
            w->impulse[s] = 0.0;
        w->contact_count = 0;
        w->last_method = w->def.method;
    }
    if (w->ramp_count > 0)
        ramps_advance(w);
    if (w->s_pair_dirty)
        rebuild_spring_pairs(w);
    if (!contacts_reserve(w))
        return SB_ERR_NO_MEMORY;
    if (sb_pool_threads(w->pool) != w->def.threads) { // started on the first step that asks, kept after
        sb_pool_destroy(w->pool);
        w->pool = w->def.threads > 1 ? sb_pool_create(w->def.threads) : NULL; // none: the caller runs it all
    }

    double energy_before = 0.0, energy_scale = 0.0, gravity_before = 0.0, gravity_after = 0.0, damping = 0.0;
    bool watched = ledger_begin(w, &energy_before, &energy_scale, &gravity_before, &damping);
    if (!watched)
        w->energy_tracking = false; // disturbed: the next undisturbed step starts a new run
    snapshot_save(w);
    contacts_build(w);
    if (w->stats.steps == 0)
        contacts_report_overlaps(w);
    int bad = solver_run_substeps(w, false);
    if (bad == SOLVER_INTERRUPTED) {
        snapshot_restore(w); // the frame is not taken: the world is as it was
        w->contact_next_count = 0;
        w->stats.step_ms = now_ms() - t0;
        return SB_ERR_INTERRUPTED;
    }
    if (bad >= 0) {
        // Replay the frame from the snapshot, checking after every sub-step, to name
        // the particle that went first; the replay is bit-identical (determinism).
        snapshot_restore(w);
        contacts_build(w);
        bool (*interrupt)(void *) = w->interrupt; // the replay names a particle: let it finish
        w->interrupt = NULL;
        bad = solver_run_substeps(w, true);
        w->interrupt = interrupt;
        bool nonfinite = bad < 0 || !v2_finite(w->pos[bad]) || !v2_finite(w->vel[bad]);
        snapshot_restore(w);
        halt(w, bad >= 0 ? bad : 0, nonfinite);
        clear_forces(w);
        w->stats.step_ms = now_ms() - t0;
        return SB_ERR_HALTED;
    }
    // Commit: the contacts of this step become the warm start of the next.
    contacts_key_order(w);
    sb_contact *tmp = w->contacts;
    w->contacts = w->contacts_next;
    w->contacts_next = tmp;
    int tcap = w->contact_cap;
    w->contact_cap = w->contact_next_cap;
    w->contact_next_cap = tcap;
    w->contact_count = w->contact_next_count;

    w->stats.steps += 1;
    w->stats.time += w->def.dt;
    double work = 0.0, energy_after = 0.0;
    if (watched) { // with the applied forces still there: they are in the step's own energy
        double unused;
        bool kinematic;
        work = applied_work(w);
        energy_after = ledger_energy(w, &unused, &gravity_after, &kinematic, NULL);
    }
    clear_forces(w);
    events_after_step(w);
    measure(w);
    if (watched &&
        ledger_end(w, energy_before, energy_after, energy_scale, gravity_before, gravity_after, work, damping)) {
        w->stats.step_ms = now_ms() - t0;
        return SB_ERR_HALTED;
    }
    w->stats.step_ms = now_ms() - t0;
    return SB_OK;
}

const sb_stats *sb_world_get_stats(const sb_world *w) { return &w->stats; }

void sb_world_set_interrupt(sb_world *w, bool (*interrupt)(void *ud), void *ud)
{
    w->interrupt = interrupt;
    w->interrupt_ud = ud;
}

int sb_world_overlap_message(const sb_world *w, char *buf, size_t size)
{
    const sb_stats *st = &w->stats;
    if (st->overlapping_pairs == 0)
        return snprintf(buf, size, "no particles overlap at the start");
    return snprintf(buf, size,
                    "%d pair%s of particles not joined by a spring start%s overlapping (worst: particles %u and %u, "
                    "by %.3g m); contacts push them apart: give them smaller radii, join them, or set collide = false",
                    st->overlapping_pairs, st->overlapping_pairs == 1 ? "" : "s", st->overlapping_pairs == 1 ? "s" : "",
                    st->overlap_a.index + 1,
                    st->overlap_b.index + 1, st->worst_overlap);
}

int sb_world_clamp_message(const sb_world *w, char *buf, size_t size)
{
    const sb_stats *st = &w->stats;
    if (st->clamped_springs == 0)
        return snprintf(buf, size, "every spring runs as tuned");
    char asked[64];
    if (st->clamped_asked_hertz == 0.0)
        snprintf(asked, sizeof asked, "to be rigid");
    else
        snprintf(asked, sizeof asked, "%.3g Hz at damping ratio %.3g", st->clamped_asked_hertz,
                 st->clamped_asked_damping_ratio);
    return snprintf(buf, size,
                    "%d spring%s cannot run as tuned with %s at %d sub-step%s: spring %u asks %s and gets %.3g Hz at "
                    "%.3g (%s)",
                    st->clamped_springs, st->clamped_springs == 1 ? "" : "s", sb_method_name(w->def.method),
                    w->def.substeps, w->def.substeps == 1 ? "" : "s", st->clamped_spring.index + 1, asked,
                    st->clamped_hertz, st->clamped_damping_ratio,
                    st->clamped_settling               ? "settling after a retune"
                    : st->clamped_asked_hertz == 0.0 ? "an iterative method holds it"
                                                     : "more sub-steps deliver it");
}

void sb_world_clear_halt(sb_world *w)
{
    w->energy_tracking = false;
    w->stats.halted = false;
    w->stats.message[0] = '\0';
    w->stats.bad_particle = sb_null_particle();
    w->stats.bad_spring = sb_null_spring();
}

uint64_t sb_world_state_hash(const sb_world *w)
{
    uint64_t h = 1469598103934665603ull;
    for (int i = 0; i < w->p_high; ++i) {
        if (!particle_alive(w, i))
            continue;
        // a particle's turn counts only once it has one, so states without rolling hash as before
        const bool turns = w->angle[i] != 0.0 || w->omega[i] != 0.0;
        const double vals[6] = {w->pos[i].x, w->pos[i].y, w->vel[i].x, w->vel[i].y, w->angle[i], w->omega[i]};
        const unsigned char *bytes = (const unsigned char *)vals;
        for (size_t k = 0; k < (turns ? 6 : 4) * sizeof vals[0]; ++k) {
            h ^= bytes[k];
            h *= 1099511628211ull;
        }
    }
    return h;
}
