// The world: its settings, defaults and checks, its creation and storage, the step driver with
// non-finite containment, and its diagnostics (stats, messages, the state hash). Particles,
// springs, walls, dragging and the energy ledger each have a file; the physics lives in solver.c
// (the sub-step loop), the method_*.c files (one spring method each) and the contact_*.c files.
#define _POSIX_C_SOURCE 199309L
#include "sb_tuning.h"
#include "sb_pool.h"
#include "structure_record.h"
#include "world_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

const char *sb_method_name(sb_method method)
{
    return (unsigned)method < SB_METHOD_COUNT ? method_kernels(method)->name : "unknown";
}

bool sb_method_from_name(const char *name, sb_method *out)
{
    for (int m = 0; m < SB_METHOD_COUNT; ++m) {
        if (name && strcmp(name, method_kernels((sb_method)m)->name) == 0) {
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
    // steps, Mueller et al. 2020), while contacts cost one pass per sub-step: 6 x 4 is the
    // balance of a cloth's stretch against a pile's cost (docs/decisions/2026-11-29-figures-behind-the-constants.md).
    d.substeps = 6;
    d.iterations = 4;
    d.method = SB_METHOD_SOFT;
    d.warmstart = 1.0;
    d.correction = 1.0;
    d.collisions = true;
    d.restitution = 0.0;
    d.restitution_threshold = 1.0; // Box2D v3's, for a scene in metres: a 1 mm scene takes 1e-3
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

/// The energy of a particle's spin, 1/2 I omega^2 with I = inertia m r^2 (rolling, contact_solver.c).
double particle_spin_energy(const sb_world *w, int i)
{
    double r = w->radius[i], om = w->omega[i];
    return om != 0.0 ? 0.5 * w->inertia[i] * w->mass[i] * r * r * om * om : 0.0;
}

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
        field_bad(in_range(d->restitution_threshold, 0.0, 1e6), "restitution_threshold", bad_field) ||
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

void free_arrays(void *const *arrays, size_t n)
{
    for (size_t i = 0; i < n; ++i)
        free(arrays[i]);
}

sb_world *sb_world_create(const sb_world_def *def)
{
    if (sb_world_def_check(def, NULL) != SB_OK)
        return NULL;
    sb_world *w = calloc(1, sizeof *w);
    if (!w)
        return NULL;
    w->def = *def;
    w->p_free = w->s_free = w->constraints.free_head = -1;
    w->last_method = def->method;
    w->drag.id = sb_null_particle();
    w->stats.clamped_spring = sb_null_spring();
    w->stats.overlap_a = w->stats.overlap_b = w->stats.wall_overlap_particle = sb_null_particle();
    w->stats.overlap_wall = sb_null_wall();
    w->pack.coef_dirty = true;
    w->stats.bad_particle = sb_null_particle();
    w->stats.bad_spring = sb_null_spring();
    w->stats.max_stretch_spring = -1;
    static uint32_t worlds_made; // one number a world, so that no two worlds' walls versions meet
    w->walls.version = (uint64_t)__atomic_add_fetch(&worlds_made, 1, __ATOMIC_RELAXED) << 32;
    return w;
}

void world_free_storage(sb_world *w)
{
    FREE_ARRAYS(w->pos, w->vel, w->mass, w->inv_mass, w->radius, w->restitution, w->friction, w->angle, w->omega,
                w->inertia, w->rolling_resistance, w->p_rolling, w->p_gen, w->p_flags, w->p_next_free, w->degree,
                w->force, w->group, w->category, w->mask, w->color);
    FREE_ARRAYS(w->s_a, w->s_b, w->rest, w->tuning, w->s_collide, w->s_solid, w->s_rigid, w->s_gen, w->s_next_free,
                w->impulse, w->tension, w->break_stretch, w->break_force, w->break_push, w->s_color, w->s_hidden,
                w->axis_prev, w->pair_keys);
    const sb_step_scratch *sc = &w->scratch;
    FREE_ARRAYS(sc->prev, sc->start, sc->hold_frac, sc->hold_wall, sc->dv, sc->reach, sc->inv_inertia, sc->angle_prev,
                sc->p_load, sc->contact_mask, sc->snap_pos, sc->snap_vel, sc->snap_spin, sc->snap_axis, sc->snap_impulse);
    FREE_ARRAYS(w->rigid.tether_p, w->rigid.tether_anchor, w->rigid.tether_length, w->rigid.bend_beads, w->ramps);
    generations_free(&w->p_gens);
    generations_free(&w->s_gens);
    spring_pack_free(&w->pack);
    constraints_free(w);
    walls_free(w);
    contact_lists_free(w);
    broad_phase_free(&w->broad);
    events_free(w);
}

void sb_world_destroy(sb_world *w)
{
    if (!w)
        return;
    sb_pool_destroy(w->pool);
    structure_records_free(w);
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
    structures_follow_def(w); // a structure delivers its mode as the world now steps
    return SB_OK;
}


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
    if (n > 1)
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

static void snapshot_particles_range(void *ctx, int from, int to)
{
    sb_world *w = ctx;
    copy_array(w->scratch.snap_pos + from, w->pos + from, sizeof *w->pos * (size_t)(to - from));
    copy_array(w->scratch.snap_vel + from, w->vel + from, sizeof *w->vel * (size_t)(to - from));
    for (int i = from; i < to; ++i)
        w->scratch.snap_spin[i] = v2(w->angle[i], w->omega[i]);
}

static void snapshot_save(sb_world *w)
{
    sb_pool_for(w->pool, w->p_high, 1, PARTICLES_PER_THREAD, snapshot_particles_range, w);
    copy_array(w->scratch.snap_axis, w->axis_prev, sizeof *w->axis_prev * (size_t)w->s_high);
    copy_array(w->scratch.snap_impulse, w->impulse, sizeof *w->impulse * (size_t)w->s_high);
}

static void snapshot_restore(sb_world *w)
{
    w->pack.packed = false; // the warm starts go back: a replay packs them again
    copy_array(w->pos, w->scratch.snap_pos, sizeof *w->pos * (size_t)w->p_high);
    copy_array(w->vel, w->scratch.snap_vel, sizeof *w->vel * (size_t)w->p_high);
    for (int i = 0; i < w->p_high; ++i) {
        w->angle[i] = w->scratch.snap_spin[i].x;
        w->omega[i] = w->scratch.snap_spin[i].y;
    }
    copy_array(w->axis_prev, w->scratch.snap_axis, sizeof *w->axis_prev * (size_t)w->s_high);
    copy_array(w->impulse, w->scratch.snap_impulse, sizeof *w->impulse * (size_t)w->s_high);
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
    st->particles = w->p_alive;
    st->springs = w->s_alive;
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
    events_clear(w); // what a step tells is what happened in it: a step that halts or is not taken tells nothing
    if (w->stats.halted) {
        clear_forces(w); // a halted world takes no step, and forces act for one step only
        return SB_ERR_HALTED;
    }
    double t0 = now_ms();
    if (w->def.method != w->last_method) {
        // Impulses mean different things to different methods: start them afresh.
        for (int s = 0; s < w->s_high; ++s)
            w->impulse[s] = 0.0;
        w->contact.count = 0;
        w->last_method = w->def.method;
    }
    if (w->ramp_count > 0)
        ramps_advance(w);
    if (w->s_pair_dirty)
        rebuild_spring_pairs(w);
    if (!contacts_reserve(w))
        return SB_ERR_NO_MEMORY;
    if (w->pool_asked != w->def.threads) { // started on the first step that asks, kept after
        sb_pool_destroy(w->pool);
        w->pool = w->def.threads > 1 ? sb_pool_create(w->def.threads) : NULL; // none: the caller runs it all
        w->pool_asked = w->def.threads;
    }
    w->stats.threads = sb_pool_threads(w->pool);

    double energy_before = 0.0, energy_scale = 0.0, gravity_before = 0.0, gravity_after = 0.0, damping = 0.0;
    bool watched = ledger_begin(w, &energy_before, &energy_scale, &gravity_before, &damping);
    if (!watched)
        w->ledger.tracking = false; // disturbed: the next undisturbed step starts a new run
    snapshot_save(w);
    contacts_build(w);
    if (w->stats.steps == 0)
        contacts_report_overlaps(w);
    int bad = solver_run_substeps(w, false);
    if (bad == SOLVER_INTERRUPTED) {
        snapshot_restore(w); // the frame is not taken: the world is as it was
        w->contact.next_count = 0;
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
    contacts_commit(w);
    w->stats.contacts = contacts_touching(w);

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
    if (st->overlapping_pairs == 0 && st->overlapping_walls == 0)
        return snprintf(buf, size, "no particles overlap at the start");
    char walls[256] = "";
    if (st->overlapping_walls > 0)
        snprintf(walls, sizeof walls, "%d particle%s start%s inside walls (worst: particle %u, %.3g m into wall %u)%s",
                    st->overlapping_walls, st->overlapping_walls == 1 ? "" : "s", st->overlapping_walls == 1 ? "s" : "",
                    st->wall_overlap_particle.index + 1, st->worst_wall_overlap, st->overlap_wall.index + 1,
                    st->overlapping_pairs > 0 ? "; " : ": contacts move them out: place them clear of the walls");
    if (st->overlapping_pairs == 0)
        return snprintf(buf, size, "%s", walls);
    return snprintf(buf, size,
                       "%s%d pair%s of particles not joined by a spring start%s overlapping (worst: particles %u and %u, "
                       "by %.3g m); contacts push them apart: give them smaller radii, join them, or set collide = false",
                       walls, st->overlapping_pairs, st->overlapping_pairs == 1 ? "" : "s", st->overlapping_pairs == 1 ? "s" : "",
                       st->overlap_a.index + 1, st->overlap_b.index + 1, st->worst_overlap);
}

int sb_world_clamp_message(const sb_world *w, char *buf, size_t size)
{
    const sb_stats *st = &w->stats;
    if (st->clamped_springs == 0)
        return snprintf(buf, size, "every spring runs as tuned");
    char asked[64];
    // a spring of a tuned structure: what the designer asked is the structure's mode, not the
    // spring's own hertz the tune gave it
    char structure[256];
    if (structure_record_say(w, st->clamped_spring, structure, sizeof structure) > 0)
        return snprintf(buf, size, "%d spring%s cannot run as tuned with %s at %d sub-step%s, among them %s",
                           st->clamped_springs, st->clamped_springs == 1 ? "" : "s", sb_method_name(w->def.method),
                           w->def.substeps, w->def.substeps == 1 ? "" : "s", structure);
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
                       st->clamped_settling                  ? "settling after a retune"
                       : st->clamped_asked_hertz == 0.0 ? "an iterative method holds it"
                                                                 : "more sub-steps deliver it");
}

void sb_world_clear_halt(sb_world *w)
{
    w->ledger.tracking = false;
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
        // a particle's turn counts only once it has one, so a world without rolling hashes its
        // positions and velocities alone
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
