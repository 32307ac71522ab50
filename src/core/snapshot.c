// Snapshots: a deep copy of everything a world holds, structure included, so that a
// restored world continues bit-identically to the run it was taken from. Only what is in use is
// copied, and not the scratch a step rebuilds, so that a window can keep a snapshot of every
// frame for a minute of rewind. Also the lighter copy of the moving state between two worlds of
// the same structure (sb_world_copy_state).
#include "sb_constraint.h"
#include "world_internal.h"

#include <stdlib.h>
#include <string.h>

struct sb_snapshot {
    sb_world world;
    size_t bytes;
};

typedef struct copier {
    bool ok;
    size_t bytes;
} copier;

static void *dup_bytes(copier *cp, const void *src, size_t n)
{
    if (!src || n == 0)
        return NULL;
    void *p = malloc(n);
    if (!p) {
        cp->ok = false;
        return NULL;
    }
    memcpy(p, src, n);
    cp->bytes += n;
    return p;
}

#define DUP(field, count) dst->field = dup_bytes(&cp, src->field, sizeof *src->field * (size_t)(count))
// Scratch that every step writes before it reads: not kept in a snapshot, zeroed on a restore.
#define SCRATCH(field, count) \
    dst->field = with_scratch && (count) > 0 ? zeroed(&cp, sizeof *src->field * (size_t)(count)) : NULL

static void *zeroed(copier *cp, size_t n)
{
    void *p = calloc(1, n);
    if (!p)
        cp->ok = false;
    return p;
}

/// Copies src into *dst, which shares nothing with it afterwards. Each array is cut to what is
/// in use (its capacity becomes its high-water mark: the world grows it again by doubling when
/// it needs more), and the step's scratch arrays are left out, or zeroed when `with_scratch` (a
/// world that steps, rather than a snapshot). On failure *dst holds what was copied so far, safe
/// to free with world_free_storage, and 0 is returned; else the bytes owned.
static size_t world_clone_into(sb_world *dst, const sb_world *src, bool with_scratch)
{
    copier cp = {true, sizeof *dst};
    *dst = *src;
    dst->pool = NULL;
    dst->pool_asked = 0;
    dst->structures = NULL; // the world's, not the moment's (sb_world_restore keeps the world's)
    dst->structure_count = dst->structure_cap = 0;
    // particles
    const int pc = src->p_high;
    dst->p_cap = pc;
    DUP(pos, pc); DUP(vel, pc); DUP(mass, pc); DUP(inv_mass, pc); DUP(radius, pc); DUP(restitution, pc);
    DUP(friction, pc); DUP(p_gen, pc); DUP(p_flags, pc); DUP(p_next_free, pc); DUP(degree, pc); DUP(force, pc);
    DUP(group, pc); DUP(category, pc); DUP(mask, pc); DUP(color, pc);
    DUP(angle, pc); DUP(omega, pc); DUP(inertia, pc); DUP(rolling_resistance, pc); DUP(p_rolling, pc);
    // the generations handed out: a snapshot keeps its own, a restore takes the higher of the two
    bool gens = generations_copy(&dst->p_gens, &src->p_gens);
    gens = generations_copy(&dst->s_gens, &src->s_gens) && gens;
    gens = generations_copy(&dst->constraints.gens, &src->constraints.gens) && gens;
    cp.ok = cp.ok && gens;
    // springs
    const int sc = src->s_high;
    dst->s_cap = sc;
    DUP(s_a, sc); DUP(s_b, sc); DUP(rest, sc); DUP(tuning, sc); DUP(s_collide, sc); DUP(s_solid, sc);
    DUP(s_rigid, sc); DUP(s_gen, sc); DUP(s_next_free, sc); DUP(impulse, sc); DUP(tension, sc);
    DUP(break_stretch, sc); DUP(break_force, sc); DUP(break_push, sc); DUP(s_color, sc); DUP(s_hidden, sc); DUP(axis_prev, sc);
    DUP(pair_keys, sc);
    // the step's scratch, sized with the particles and the springs
    SCRATCH(scratch.prev, pc); SCRATCH(scratch.start, pc); SCRATCH(scratch.hold_frac, pc); SCRATCH(scratch.hold_wall, pc);
    SCRATCH(scratch.dv, pc); SCRATCH(scratch.reach, pc); SCRATCH(scratch.inv_inertia, pc); SCRATCH(scratch.angle_prev, pc);
    SCRATCH(scratch.p_load, pc); SCRATCH(scratch.contact_mask, pc); SCRATCH(scratch.snap_pos, pc); SCRATCH(scratch.snap_vel, pc);
    SCRATCH(scratch.snap_spin, pc); SCRATCH(scratch.snap_axis, sc); SCRATCH(scratch.snap_impulse, sc);
    // the solver's order and the methods' constants outlive a step; the rest of the pack is the step's
    DUP(pack.order, sc); DUP(pack.kstiff, sc); DUP(pack.kdamp, sc); DUP(pack.kscale, sc); DUP(pack.kg, sc); DUP(pack.ktension, sc);
    SCRATCH(pack.ka, sc); SCRATCH(pack.kb, sc); SCRATCH(pack.kwa, sc); SCRATCH(pack.kwb, sc); SCRATCH(pack.kmass, sc);
    SCRATCH(pack.krest, sc); SCRATCH(pack.kux, sc); SCRATCH(pack.kuy, sc); SCRATCH(pack.kpux, sc); SCRATCH(pack.kpuy, sc);
    SCRATCH(pack.ksep, sc); SCRATCH(pack.kturn, sc); SCRATCH(pack.kimp, sc); SCRATCH(pack.krigid, sc);
    // the rigid graph: the tethers; the bending beads are found again by the first step that needs them
    const int tc = src->rigid.tether_count;
    DUP(rigid.tether_p, tc); DUP(rigid.tether_anchor, tc); DUP(rigid.tether_length, tc);
    dst->rigid.bend_beads = NULL;
    dst->rigid.bend_count = dst->rigid.bend_cap = 0;
    dst->rigid.bend_version = 0;
    // constraints: each one's particle list is its own allocation
    const sb_constraints *scon = &src->constraints;
    const int cc = scon->high;
    dst->constraints.cap = cc;
    DUP(constraints.kind, cc); DUP(constraints.solid, cc); DUP(constraints.break_stretch, cc); DUP(constraints.part_count, cc);
    DUP(constraints.rest, cc); DUP(constraints.tuning, cc); DUP(constraints.gen, cc); DUP(constraints.next_free, cc);
    DUP(constraints.load, cc); DUP(constraints.err, cc); DUP(constraints.meff, cc); DUP(constraints.stiff, cc);
    DUP(constraints.damp, cc); DUP(constraints.scale, cc); DUP(constraints.target, cc); DUP(constraints.lambda, cc);
    DUP(constraints.active, cc); DUP(constraints.grad_first, cc);
    DUP(constraints.grad, scon->grad_cap); DUP(constraints.scratch, scon->scratch_cap);
    DUP(constraints.break_events, scon->break_cap);
    DUP(constraints.parts, cc);
    if (dst->constraints.parts)
        for (int c = 0; c < cc; ++c)
            dst->constraints.parts[c] = scon->parts[c] && cp.ok
                ? dup_bytes(&cp, scon->parts[c], sizeof **scon->parts * (size_t)scon->part_count[c])
                : NULL;
    else
        dst->constraints.high = 0; // nothing of the lists to free
    // walls; their broad phase is built again by the first step that needs it
    const int wc = src->walls.high;
    dst->walls.cap = wc;
    DUP(walls.a, wc); DUP(walls.b, wc); DUP(walls.gen, wc); DUP(walls.alive_flag, wc); DUP(walls.one_sided, wc);
    DUP(walls.nb, 2 * wc); DUP(walls.chain, wc);
    dst->walls.tree = NULL;
    // contacts: the committed list (the warm starts); what a step builds from it (the next list,
    // the solid springs' contacts, the broad phase) starts empty and grows as it does
    const sb_contact_lists *scl = &src->contact;
    dst->contact = (sb_contact_lists){.count = scl->count, .joined = scl->joined, .colors_unmatched = scl->colors_unmatched};
    DUP(contact.list, scl->count);
    DUP(contact.warm, scl->count);
    dst->contact.cap = dst->contact.warm_cap = scl->count;
    const sb_broad_phase *sbp = &src->broad;
    dst->broad = (sb_broad_phase){.pairs_builds = sbp->pairs_builds, .grid_simple = sbp->grid_simple,
                                  .stops_last_first = sbp->stops_last_first, .walls_unindexed = sbp->walls_unindexed};
    SCRATCH(broad.cell_x, pc); SCRATCH(broad.cell_y, pc);
    // ramps and events
    DUP(ramps, src->ramp_count);
    dst->ramp_cap = src->ramp_count;
    const sb_events *sev = &src->events;
    DUP(events.touch_keys, sev->touch_count); DUP(events.touch_events, sev->touch_count); // rebuilt each step at its count
    dst->events.touch_cap = sev->touch_count;
    DUP(events.begin_events, sev->begin_cap); DUP(events.end_events, sev->end_cap); DUP(events.break_events, sev->break_cap);
    DUP(events.outside, sev->outside_cap); DUP(events.leave_events, sev->leave_cap);
    return cp.ok ? cp.bytes : 0;
}

#undef SCRATCH
#undef DUP

sb_snapshot *sb_world_snapshot(const sb_world *w)
{
    sb_snapshot *s = malloc(sizeof *s);
    if (!s)
        return NULL;
    s->bytes = world_clone_into(&s->world, w, false);
    if (s->bytes == 0) {
        world_free_storage(&s->world);
        free(s);
        return NULL;
    }
    s->world.interrupt = NULL; // the host's, not the snapshot's
    s->world.interrupt_ud = NULL;
    return s;
}

sb_status sb_world_restore(sb_world *w, const sb_snapshot *s)
{
    if (!s)
        return SB_ERR_INVALID;
    sb_world copy;
    if (world_clone_into(&copy, &s->world, true) == 0) {
        world_free_storage(&copy);
        return SB_ERR_NO_MEMORY; // w is untouched
    }
    // What was handed out since the moment stays handed out: a handle that went stale in the
    // restore never names what is made after it.
    if (!generations_merge(&copy.p_gens, &w->p_gens) || !generations_merge(&copy.s_gens, &w->s_gens) ||
        !generations_merge(&copy.constraints.gens, &w->constraints.gens)) {
        world_free_storage(&copy);
        return SB_ERR_NO_MEMORY;
    }
    copy.walls.made = w->walls.made > copy.walls.made ? w->walls.made : copy.walls.made;
    copy.walls.version = w->walls.version + 1; // the walls may be others: a version the world never had
    copy.interrupt = w->interrupt;
    copy.interrupt_ud = w->interrupt_ud;
    copy.pool = w->pool; // threads are the machine's, not the moment's: the world keeps its own
    copy.pool_asked = w->pool_asked;
    copy.def.threads = w->def.threads;
    copy.structures = w->structures; // so are the structures it was tuned as
    copy.structure_count = w->structure_count;
    copy.structure_cap = w->structure_cap;
    world_free_storage(w);
    *w = copy;
    return SB_OK;
}

typedef struct kept_tuning {
    uint32_t index, generation;
    double rest;
    sb_tuning tuning;
} kept_tuning;

/// Drops the spring ramps of the springs in `kept` (their tuning is the one kept, not the ramp's).
static void drop_kept_ramps(sb_world *w, const kept_tuning *kept, int n)
{
    int out = 0;
    for (int i = 0; i < w->ramp_count; ++i) {
        const sb_ramp *r = &w->ramps[i];
        bool drop = false;
        for (int k = 0; k < n && r->kind == SB_RAMP_SPRING && !drop; ++k)
            drop = kept[k].index == r->index && kept[k].generation == r->generation;
        if (!drop)
            w->ramps[out++] = *r;
    }
    w->ramp_count = out;
}

// The tuning loop's restore: the designer went back in time to see the same moment again under
// the tuning they have now, so the springs and constraints present in both keep today's rest
// and tuning (a ramp's target where one runs), applied at once, without re-basing: at the
// snapshot's positions the new tuning starts exactly as if it had been set then.
sb_status sb_world_restore_keep_tuning(sb_world *w, const sb_snapshot *s)
{
    if (!s)
        return SB_ERR_INVALID;
    int ns = 0, nc = 0;
    kept_tuning *springs = malloc(sizeof *springs * (size_t)(w->s_high + 1));
    kept_tuning *constraints = malloc(sizeof *constraints * (size_t)(w->constraints.high + 1));
    if (!springs || !constraints) {
        free(springs);
        free(constraints);
        return SB_ERR_NO_MEMORY;
    }
    for (int k = 0; k < w->s_high; ++k) {
        sb_spring_id id = {(uint32_t)k, w->s_gen[k]};
        if (!sb_spring_is_valid(w, id))
            continue;
        kept_tuning *t = &springs[ns++];
        t->index = id.index;
        t->generation = id.generation;
        if (!sb_spring_ramp_target(w, id, &t->rest, &t->tuning)) {
            t->rest = w->rest[k];
            t->tuning = w->tuning[k];
        }
    }
    for (int c = 0; c < w->constraints.high; ++c) {
        sb_constraint_id id = {(uint32_t)c, w->constraints.gen[c]};
        if (w->constraints.kind[c] == 0xFF)
            continue;
        constraints[nc++] = (kept_tuning){id.index, id.generation, w->constraints.rest[c], w->constraints.tuning[c]};
    }
    sb_status st = sb_world_restore(w, s);
    if (st == SB_OK) {
        // Only what differs is set, so that the rest keep their warm starts exactly.
        int kept = 0;
        for (int k = 0; k < ns; ++k) {
            sb_spring_id id = {springs[k].index, springs[k].generation};
            int i = (int)id.index;
            bool ramping = false;
            for (int r = 0; r < w->ramp_count && !ramping; ++r)
                ramping = w->ramps[r].kind == SB_RAMP_SPRING && w->ramps[r].index == id.index;
            if (!sb_spring_is_valid(w, id) || (!ramping && w->rest[i] == springs[k].rest &&
                                                 memcmp(&w->tuning[i], &springs[k].tuning, sizeof springs[k].tuning) == 0))
                continue;
            if (sb_spring_set(w, id, springs[k].rest, &springs[k].tuning, NULL) == SB_OK)
                springs[kept++] = springs[k];
        }
        drop_kept_ramps(w, springs, kept);
        for (int k = 0; k < nc; ++k) {
            sb_constraint_id id = {constraints[k].index, constraints[k].generation};
            int c = (int)id.index;
            if (sb_constraint_is_valid(w, id) && (w->constraints.rest[c] != constraints[k].rest ||
                                                  memcmp(&w->constraints.tuning[c], &constraints[k].tuning, sizeof constraints[k].tuning) != 0))
                sb_constraint_set(w, id, constraints[k].rest, &constraints[k].tuning, NULL);
        }
    }
    free(springs);
    free(constraints);
    return st;
}

size_t sb_snapshot_bytes(const sb_snapshot *s) { return s ? s->bytes + sizeof *s - sizeof s->world : 0; }

double sb_snapshot_time(const sb_snapshot *s) { return s ? s->world.stats.time : 0.0; }

void sb_snapshot_destroy(sb_snapshot *s)
{
    if (!s)
        return;
    world_free_storage(&s->world);
    free(s);
}

// ---------------------------------------------------------------- state copies between worlds

/// Whether the particle, spring and constraint slots both worlds have are live alike and joined
/// alike, and (`exactly`) neither has more.
static bool slots_agree(const sb_world *dst, const sb_world *src, bool exactly)
{
    if (exactly && (dst->p_high != src->p_high || dst->s_high != src->s_high))
        return false;
    const int particles = dst->p_high < src->p_high ? dst->p_high : src->p_high;
    const int springs = dst->s_high < src->s_high ? dst->s_high : src->s_high;
    for (int i = 0; i < particles; ++i)
        if ((dst->p_flags[i] & PARTICLE_ALIVE) != (src->p_flags[i] & PARTICLE_ALIVE))
            return false;
    for (int s = 0; s < springs; ++s)
        if (dst->s_a[s] != src->s_a[s] || dst->s_b[s] != src->s_b[s])
            return false;
    return constraints_same_shape(dst, src, exactly);
}

bool sb_world_can_copy_state(const sb_world *dst, const sb_world *src) { return slots_agree(dst, src, true); }

bool sb_world_can_carry_state(const sb_world *dst, const sb_world *src) { return slots_agree(dst, src, false); }

sb_status sb_world_copy_state(sb_world *dst, const sb_world *src)
{
    return sb_world_can_copy_state(dst, src) ? sb_world_carry_state(dst, src) : SB_ERR_INVALID;
}

sb_status sb_world_carry_state(sb_world *dst, const sb_world *src)
{
    if (!sb_world_can_carry_state(dst, src))
        return SB_ERR_INVALID;
    // Contacts name particles, springs, constraints and walls by slot: they carry only into a
    // world that has every slot of the source's (the step finds the others' afresh).
    const bool contacts = dst->p_high >= src->p_high && dst->s_high >= src->s_high && dst->constraints.high >= src->constraints.high &&
                          dst->walls.high >= src->walls.high;
    const int count = contacts ? src->contact.count : 0;
    if (!ARRAY_RESERVE(dst->contact.list, dst->contact.cap, count) ||
        !ARRAY_RESERVE(dst->contact.warm, dst->contact.warm_cap, count))
        return SB_ERR_NO_MEMORY;
    const size_t particles = (size_t)(dst->p_high < src->p_high ? dst->p_high : src->p_high);
    const size_t springs = (size_t)(dst->s_high < src->s_high ? dst->s_high : src->s_high);
    copy_array(dst->pos, src->pos, sizeof *src->pos * particles);
    copy_array(dst->vel, src->vel, sizeof *src->vel * particles);
    copy_array(dst->angle, src->angle, sizeof *src->angle * particles);
    copy_array(dst->omega, src->omega, sizeof *src->omega * particles);
    copy_array(dst->impulse, src->impulse, sizeof *src->impulse * springs);
    copy_array(dst->axis_prev, src->axis_prev, sizeof *src->axis_prev * springs);
    if (!ramps_copy(dst, src))
        return SB_ERR_NO_MEMORY;
    copy_array(dst->contact.list, src->contact.list, sizeof *src->contact.list * (size_t)count);
    copy_array(dst->contact.warm, src->contact.warm, sizeof *src->contact.warm * (size_t)count);
    dst->contact.count = count;
    dst->last_method = src->last_method; // warm starts stay valid only for the method that made them
    dst->stats.steps = src->stats.steps;
    dst->stats.time = src->stats.time;
    if (src->drag.active && (int)src->drag.id.index < dst->p_high && (dst->p_flags[src->drag.id.index] & PARTICLE_ALIVE)) {
        dst->drag.active = true;
        dst->drag.id.index = src->drag.id.index;
        dst->drag.id.generation = dst->p_gen[src->drag.id.index];
        dst->drag.target = src->drag.target;
        dst->drag.hertz = src->drag.hertz;
        dst->drag.damping_ratio = src->drag.damping_ratio;
    } else {
        dst->drag.active = false;
        dst->drag.id.generation = 0;
    }
    if (!contacts)
        return SB_OK;
    // Contacts touching and particles outside the region stay so: without them a kept reload
    // began every resting contact again (a ball on a wall, three reloads: 4 begins, no end)
    // and left the region again. Same slots; the destination's generations.
    if (src->events.touch_count > 0 &&
        ARRAY_RESERVE(dst->events.touch_keys, dst->events.touch_cap, src->events.touch_count)) {
        sb_contact_event *events = realloc(dst->events.touch_events, sizeof *events * (size_t)src->events.touch_count);
        if (events) {
            dst->events.touch_events = events;
            for (int k = 0; k < src->events.touch_count; ++k) {
                sb_contact_event e = src->events.touch_events[k];
                e.a.generation = dst->p_gen[e.a.index];
                if (e.b.generation)
                    e.b.generation = dst->p_gen[e.b.index];
                if (e.wall.generation && (int)e.wall.index < dst->walls.high)
                    e.wall.generation = dst->walls.gen[e.wall.index];
                dst->events.touch_keys[k] = src->events.touch_keys[k];
                dst->events.touch_events[k] = e;
            }
            dst->events.touch_count = src->events.touch_count;
        }
    }
    if (src->events.outside_cap > 0 && src->events.outside &&
        (dst->events.outside_cap >= src->events.outside_cap || ARRAY_GROW(dst->events.outside, dst->p_cap))) {
        if (dst->events.outside_cap < dst->p_cap) {
            memset(dst->events.outside + dst->events.outside_cap, 0, (size_t)(dst->p_cap - dst->events.outside_cap));
            dst->events.outside_cap = dst->p_cap;
        }
        const int n = src->events.outside_cap < dst->events.outside_cap ? src->events.outside_cap : dst->events.outside_cap;
        memcpy(dst->events.outside, src->events.outside, (size_t)n);
    }
    return SB_OK;
}
