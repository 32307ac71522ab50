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
    // the generations handed out: a snapshot keeps its own, a restore takes the higher of the two
    bool gens = generations_copy(&dst->p_gens, &src->p_gens);
    gens = generations_copy(&dst->s_gens, &src->s_gens) && gens;
    gens = generations_copy(&dst->c_gens, &src->c_gens) && gens;
    cp.ok = cp.ok && gens;
    DUP(angle, pc); DUP(omega, pc); DUP(inertia, pc); DUP(rolling_resistance, pc); DUP(p_rolling, pc);
    SCRATCH(inv_inertia, pc); SCRATCH(angle_prev, pc);
    SCRATCH(prev, pc); SCRATCH(start, pc); SCRATCH(hold_frac, pc); SCRATCH(hold_wall, pc); SCRATCH(dv, pc); SCRATCH(reach, pc);
    SCRATCH(snap_pos, pc); SCRATCH(snap_vel, pc); SCRATCH(snap_spin, pc); SCRATCH(contact_mask, pc); SCRATCH(cell_x, pc); SCRATCH(cell_y, pc); SCRATCH(p_load, pc);
    // springs; of the solver's packed arrays only the constants outlive a step (solver.c)
    const int sc = src->s_high;
    dst->s_cap = sc;
    DUP(s_a, sc); DUP(s_b, sc); DUP(rest, sc); DUP(tuning, sc); DUP(s_collide, sc); DUP(s_solid, sc);
    DUP(s_rigid, sc); DUP(s_gen, sc); DUP(s_next_free, sc); DUP(impulse, sc); DUP(tension, sc);
    DUP(break_stretch, sc); DUP(break_force, sc); DUP(break_push, sc); DUP(s_color, sc); DUP(s_hidden, sc); DUP(axis_prev, sc);
    DUP(order, sc); DUP(kstiff, sc); DUP(kdamp, sc); DUP(kscale, sc); DUP(kg, sc); DUP(ktension, sc);
    DUP(pair_keys, sc);
    SCRATCH(ka, sc); SCRATCH(kb, sc); SCRATCH(kwa, sc); SCRATCH(kwb, sc); SCRATCH(kmass, sc); SCRATCH(krest, sc);
    SCRATCH(kux, sc); SCRATCH(kuy, sc); SCRATCH(kpux, sc); SCRATCH(kpuy, sc); SCRATCH(ksep, sc); SCRATCH(kturn, sc); SCRATCH(kimp, sc);
    SCRATCH(krigid, sc); SCRATCH(snap_axis, sc); SCRATCH(snap_impulse, sc);
    // tethers
    DUP(tether_p, src->tether_count); DUP(tether_anchor, src->tether_count); DUP(tether_length, src->tether_count);
    // constraints: each one's particle list is its own allocation
    const int cc = src->c_high;
    dst->c_cap = cc;
    DUP(c_kind, cc); DUP(c_solid, cc); DUP(c_break_stretch, cc); DUP(c_count, cc); DUP(c_rest, cc);
    DUP(c_tuning, cc); DUP(c_gen, cc); DUP(c_next_free, cc); DUP(c_load, cc); DUP(c_err, cc); DUP(c_meff, cc);
    DUP(c_stiff, cc); DUP(c_damp, cc); DUP(c_scale, cc); DUP(c_target, cc); DUP(c_lambda, cc); DUP(c_active, cc);
    DUP(c_grad_first, cc);
    DUP(c_grad, src->c_grad_cap); DUP(c_scratch, src->c_scratch_cap); DUP(c_break_events, src->c_break_cap);
    DUP(c_parts, cc);
    if (dst->c_parts)
        for (int c = 0; c < src->c_high; ++c)
            dst->c_parts[c] = src->c_parts[c] && cp.ok
                                  ? dup_bytes(&cp, src->c_parts[c], sizeof **src->c_parts * (size_t)src->c_count[c])
                                  : NULL;
    else
        dst->c_high = 0; // nothing of the lists to free
    // walls
    const int wc = src->w_high;
    dst->w_cap = wc;
    DUP(wall_a, wc); DUP(wall_b, wc); DUP(w_gen, wc); DUP(w_alive_flag, wc); DUP(w_one_sided, wc);
    DUP(wall_nb, 2 * wc); DUP(wall_chain, wc);
    // contacts: the committed list (the warm starts); what a step builds from it (the next list,
    // the solid springs' contacts, the broad phase's grid) starts empty and grows as it does
    DUP(contacts, src->contact_count);
    dst->contact_cap = src->contact_count;
    DUP(warm, src->contact_count);
    dst->warm_cap = src->contact_count;
    dst->contacts_next = NULL;
    dst->contact_order = NULL;
    dst->contact_order_cap = 0;
    dst->contacts_scratch = NULL;
    dst->contacts_scratch_cap = 0;
    dst->contacts_permuted = false;
    memset(dst->chunk_contacts, 0, sizeof dst->chunk_contacts);
    memset(dst->chunk_contact_cap, 0, sizeof dst->chunk_contact_cap);
    memset(dst->contact_color_start, 0, sizeof dst->contact_color_start);
    dst->contact_next_cap = dst->contact_next_count = 0;
    dst->segment_contacts = NULL;
    dst->art = NULL;
    dst->bend_beads = NULL; // found again by the first step that needs them
    dst->bend_count = dst->bend_cap = 0;
    dst->bend_version = 0;
    dst->wall_tree = NULL; // built again by the first step that needs it
    dst->segment_contact_cap = dst->segment_contact_count = 0;
    dst->grid_start = NULL;
    dst->grid_items = NULL;
    dst->grid_entries = NULL;
    dst->block_velocity = NULL;
    dst->grid_size = dst->grid_items_cap = 0;
    dst->pairs_list = dst->pairs_start = NULL;
    dst->pairs_pos = NULL;
    dst->pairs_reach = dst->pairs_radius = NULL;
    dst->pairs_collides = NULL;
    dst->stop = NULL;
    dst->stop_queue = NULL;
    dst->stop_queued = NULL;
    dst->stop_contacts = NULL;
    dst->stop_contact_count = dst->stop_contact_cap = 0;
    dst->stop_cand_at = dst->stop_cand_n = NULL;
    dst->stop_cands = NULL;
    dst->stop_cand_count = dst->stop_cand_cap = 0;
    dst->pairs_list_count = dst->pairs_list_cap = dst->pairs_cap = dst->pairs_p_high = 0;
    dst->pairs_valid = false;
    memset(dst->chunk_pairs, 0, sizeof dst->chunk_pairs);
    memset(dst->chunk_pair_cap, 0, sizeof dst->chunk_pair_cap);
    // ramps and events
    DUP(ramps, src->ramp_count);
    dst->ramp_cap = src->ramp_count;
    DUP(touch_keys, src->touch_count); DUP(touch_events, src->touch_count); // rebuilt each step at its count
    dst->touch_cap = src->touch_count;
    DUP(begin_events, src->begin_cap);
    DUP(end_events, src->end_cap); DUP(break_events, src->break_cap); DUP(outside, src->outside_cap);
    DUP(leave_events, src->leave_cap);
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
        !generations_merge(&copy.c_gens, &w->c_gens)) {
        world_free_storage(&copy);
        return SB_ERR_NO_MEMORY;
    }
    copy.walls_made = w->walls_made > copy.walls_made ? w->walls_made : copy.walls_made;
    copy.walls_version = w->walls_version + 1; // the walls may be others: a version the world never had
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
    kept_tuning *constraints = malloc(sizeof *constraints * (size_t)(w->c_high + 1));
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
    for (int c = 0; c < w->c_high; ++c) {
        sb_constraint_id id = {(uint32_t)c, w->c_gen[c]};
        if (w->c_kind[c] == 0xFF)
            continue;
        constraints[nc++] = (kept_tuning){id.index, id.generation, w->c_rest[c], w->c_tuning[c]};
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
            if (sb_constraint_is_valid(w, id) && (w->c_rest[c] != constraints[k].rest ||
                                                  memcmp(&w->c_tuning[c], &constraints[k].tuning, sizeof constraints[k].tuning) != 0))
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
    const bool contacts = dst->p_high >= src->p_high && dst->s_high >= src->s_high && dst->c_high >= src->c_high &&
                          dst->w_high >= src->w_high;
    const int count = contacts ? src->contact_count : 0;
    if (!array_reserve((void **)&dst->contacts, &dst->contact_cap, count, sizeof *dst->contacts) ||
        !array_reserve((void **)&dst->warm, &dst->warm_cap, count, sizeof *dst->warm))
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
    copy_array(dst->contacts, src->contacts, sizeof *src->contacts * (size_t)count);
    copy_array(dst->warm, src->warm, sizeof *src->warm * (size_t)count);
    dst->contact_count = count;
    dst->last_method = src->last_method; // warm starts stay valid only for the method that made them
    dst->stats.steps = src->stats.steps;
    dst->stats.time = src->stats.time;
    if (src->drag_active && (int)src->drag_id.index < dst->p_high && (dst->p_flags[src->drag_id.index] & PARTICLE_ALIVE)) {
        dst->drag_active = true;
        dst->drag_id.index = src->drag_id.index;
        dst->drag_id.generation = dst->p_gen[src->drag_id.index];
        dst->drag_target = src->drag_target;
        dst->drag_hertz = src->drag_hertz;
        dst->drag_damping_ratio = src->drag_damping_ratio;
    } else {
        dst->drag_active = false;
        dst->drag_id.generation = 0;
    }
    if (!contacts)
        return SB_OK;
    // Contacts touching and particles outside the region stay so: without them a kept reload
    // began every resting contact again (a ball on a wall, three reloads: 4 begins, no end)
    // and left the region again. Same slots; the destination's generations.
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
