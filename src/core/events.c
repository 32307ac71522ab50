// What happened in a step, for hosts that react to it (Box2D v3's contact begin/end events,
// LÖVE's beginContact/endContact): springs that broke, and contacts that began or ended.
// Both run after a step is committed, so what they report is what the world now shows.
// Only particles that asked (sb_particle_def.events) are followed: a pile of thousands pays
// one counter test per step.
#include "contact_kernels.h"

#include <stdlib.h>
#include <string.h>

// ---------------------------------------------------------------- breaking

// A spring breaks on the step after the one that stretched or loaded it past its threshold,
// like a rope parting under a load: the force is the one its last sub-step carried
// (sb_spring_force; a pull, and a push too where break_push asks), the stretch the one the step
// ended with.
//
// Of the springs of one structure (particles joined by springs) that are past their threshold in
// a step, only the one furthest past it breaks: as in a real chain, the weakest link goes and the
// rest see the unloaded chain in the next step. A hanging chain jerked past its rating carries
// nearly the same load in every link, and all of them parted in the same step.

/// How far past its threshold spring s is (> 1: past it), 0 where it cannot break; its stretch.
static double overload(const sb_world *w, int s, double *stretch_out)
{
    int a = w->s_a[s], b = w->s_b[s];
    double len = v2_len(v2_sub(w->pos[b], w->pos[a]));
    double stretch = w->rest[s] > 0.0 ? fabs(len - w->rest[s]) / w->rest[s] : 0.0;
    double force = w->break_push[s] ? fabs(w->tension[s]) : w->tension[s]; // tension: positive pulls
    double by_stretch = w->break_stretch[s] > 0.0 ? stretch / w->break_stretch[s] : 0.0;
    double by_force = w->break_force[s] > 0.0 ? force / w->break_force[s] : 0.0;
    *stretch_out = stretch;
    return by_stretch > by_force ? by_stretch : by_force;
}

/// Spring s's overload, 0 for a free slot or a spring that cannot break.
static double overload_of(const sb_world *w, int s)
{
    double stretch;
    return w->s_a[s] >= 0 && (w->break_stretch[s] > 0.0 || w->break_force[s] > 0.0) ? overload(w, s, &stretch) : 0.0;
}

static int structure_root(int *parent, int i)
{
    while (parent[i] != i) {
        parent[i] = parent[parent[i]];
        i = parent[i];
    }
    return i;
}

static void break_spring(sb_world *w, int s)
{
    if (!ARRAY_RESERVE(w->events.break_events, w->events.break_cap, w->events.break_count + 1))
        return; // out of memory: it breaks at the next step
    int a = w->s_a[s], b = w->s_b[s];
    sb_break_event *e = &w->events.break_events[w->events.break_count++];
    e->spring = (sb_spring_id){(uint32_t)s, w->s_gen[s]};
    e->a = (sb_particle_id){(uint32_t)a, w->p_gen[a]};
    e->b = (sb_particle_id){(uint32_t)b, w->p_gen[b]};
    overload(w, s, &e->stretch);
    e->force = w->tension[s];
    e->rest_length = w->rest[s];
    e->tuning = w->tuning[s];
    world_free_spring_slot(w, s);
}

static void break_springs(sb_world *w)
{
    w->events.break_count = 0;
    if (w->breakable_springs == 0)
        return;
    bool any = false;
    for (int s = 0; s < w->s_high && !any; ++s)
        any = overload_of(w, s) > 1.0;
    if (!any)
        return;
    // each structure's furthest past (ties: the lower slot), through a union-find of the particles
    int *parent = malloc(sizeof *parent * (size_t)w->p_high), *worst = malloc(sizeof *worst * (size_t)w->p_high);
    double *past = malloc(sizeof *past * (size_t)w->p_high);
    if (parent && worst && past) {
        for (int i = 0; i < w->p_high; ++i) {
            parent[i] = i;
            worst[i] = -1;
        }
        for (int s = 0; s < w->s_high; ++s)
            if (w->s_a[s] >= 0) {
                int ra = structure_root(parent, w->s_a[s]), rb = structure_root(parent, w->s_b[s]);
                parent[ra < rb ? rb : ra] = ra < rb ? ra : rb;
            }
        for (int s = 0; s < w->s_high; ++s) {
            double o = overload_of(w, s);
            int r = o > 1.0 ? structure_root(parent, w->s_a[s]) : -1;
            if (r >= 0 && (worst[r] < 0 || o > past[r])) {
                worst[r] = s;
                past[r] = o;
            }
        }
        for (int i = 0; i < w->p_high; ++i) // in particle order: the events' order does not depend on the slots' history
            if (worst[i] >= 0)
                break_spring(w, worst[i]);
    } // out of memory: they break at a later step
    free(parent);
    free(worst);
    free(past);
}

// ---------------------------------------------------------------- contacts

/// The particle a contact's events name first: its own, or at a wall's corner the spring's nearer end.
static int event_particle(const sb_contact *c) { return c->corner && c->t > 0.5 ? c->b2 : c->a; }

static sb_contact_event event_of(const sb_world *w, const sb_contact *c)
{
    sb_contact_event e;
    const int a = event_particle(c);
    e.a = (sb_particle_id){(uint32_t)a, w->p_gen[a]};
    e.b = sb_null_particle();
    e.wall = sb_null_wall();
    if (c->b >= 0) { // a solid spring: its nearer end
        int b = c->b2 >= 0 && c->t > 0.5 ? c->b2 : c->b;
        e.b = (sb_particle_id){(uint32_t)b, w->p_gen[b]};
    }
    else if (c->shape < SHAPE_BOUND) // the wall it touches (a chain of walls is one surface: event_key)
        e.wall = (sb_wall_id){c->shape, w->walls.gen[c->shape]};
    // where and how hard, for a sound or a spark: the velocities the step began with
    // (the world's snapshot), as the contact has already stopped them
    e.normal = c->normal;
    e.point = c->corner ? (c->corner == 1 ? w->walls.a[c->shape] : w->walls.b[c->shape])
                        : v2_mad(w->pos[c->a], w->radius[c->a], c->normal);
    sb_vec2 vb = v2(0.0, 0.0);
    if (c->b >= 0 && c->b2 >= 0)
        vb = v2_add(v2_scale(w->scratch.snap_vel[c->b], 1.0 - c->t), v2_scale(w->scratch.snap_vel[c->b2], c->t));
    else if (c->b >= 0)
        vb = w->scratch.snap_vel[c->b];
    double closing = -v2_dot(v2_sub(vb, a_side(c, w->scratch.snap_vel)), c->normal);
    e.speed = closing > 0.0 ? closing : 0.0;
    return e;
}

static bool wants_events(const sb_world *w, const sb_contact *c)
{
    return (w->p_flags[c->a] & PARTICLE_EVENTS) || (c->b >= 0 && (w->p_flags[c->b] & PARTICLE_EVENTS)) ||
           (c->corner && (w->p_flags[c->b2] & PARTICLE_EVENTS));
}

/// The generation of the first wall of the chain that wall `id` is in, as a touch's surface is
/// known (0 for no wall, and for a wall since removed: a touch of it has ended).
static uint32_t chain_generation(const sb_world *w, sb_wall_id id)
{
    if (id.generation == 0)
        return 0;
    if ((int)id.index >= w->walls.high || w->walls.gen[id.index] != id.generation)
        return UINT32_MAX;
    return w->walls.gen[w->walls.chain[id.index]];
}

static bool still_alive(const sb_world *w, const sb_contact_event *e)
{
    return sb_particle_is_valid(w, e->a) && (e->b.generation == 0 || sb_particle_is_valid(w, e->b));
}

/// A contact's events are keyed as the contact is (its particle, then what it meets), with a
/// chain of walls one surface: a ball on a polyline's vertex touches two of its walls and one
/// surface.
static uint64_t event_key(const sb_world *w, const sb_contact *c)
{
    if (c->b < 0 && c->shape < SHAPE_BOUND)
        return ((uint64_t)(uint32_t)event_particle(c) << 32) | (uint32_t)w->walls.chain[c->shape];
    return c->key;
}

/// One surface a particle met in the step: touching at its end, or only during it (a bounce within
/// the frame: a contact that pushed, and parted again).
typedef struct touch { uint64_t key; sb_contact_event event; bool touching; int order; } touch;

static int compare_touches(const void *x, const void *y)
{
    const touch *a = (const touch *)x, *b = (const touch *)y;
    return a->key != b->key ? (a->key < b->key ? -1 : 1) : a->order - b->order;
}

static void add_event(sb_contact_event **events, int *count, int *cap, const sb_contact_event *e)
{
    if (array_reserve((void **)events, cap, *count + 1, sizeof **events))
        (*events)[(*count)++] = *e;
}

// What each particle that listens met this step, by key, against what touched when the last step
// ended (sorted by key too): one merge finds what began (not touching before) and what ended (not
// touching now). A contact that began and ended within the step (a bounce between two frames)
// is both, in this step; a surface met by several contacts at once (a chain's walls) is one.
static void contact_events(sb_world *w)
{
    w->events.begin_count = w->events.end_count = 0;
    if (w->event_particles == 0 && w->events.touch_count == 0)
        return;
    int old_count = w->events.touch_count;
    uint64_t *old_keys = w->events.touch_keys;
    sb_contact_event *old_events = w->events.touch_events;
    touch *met = NULL;
    int n = 0, cap = 0;
    for (int k = 0; w->event_particles > 0 && k < w->contact.count; ++k) { // in key order
        const sb_contact *c = &w->contact.list[w->contact.warm[k].slot];
        const bool touching = w->contact.warm[k].touching; // contacts_touching
        if (!(touching || c->max_normal_impulse > 0.0) || !wants_events(w, c))
            continue;
        if (!ARRAY_RESERVE(met, cap, n + 1))
            break; // out of memory: the list is short this step
        met[n] = (touch){event_key(w, c), event_of(w, c), touching, n};
        n += 1;
    }
    // a chain's walls map to one key: in order again, and one entry a key (touching if any is)
    if (n > 1)
        qsort(met, (size_t)n, sizeof *met, compare_touches);
    int distinct = 0;
    for (int i = 0; i < n; ++i) {
        if (distinct > 0 && met[distinct - 1].key == met[i].key) {
            touch *kept = &met[distinct - 1];
            if (met[i].touching && !kept->touching)
                kept->event = met[i].event; // the one that touches says where
            kept->touching = kept->touching || met[i].touching;
            continue;
        }
        met[distinct++] = met[i];
    }
    uint64_t *keys = NULL;
    sb_contact_event *events = NULL;
    int count = 0, kcap = 0, ecap = 0;
    int i = 0, j = 0;
    while (i < distinct || j < old_count) {
        bool take_new = j >= old_count || (i < distinct && met[i].key < old_keys[j]);
        bool take_old = i >= distinct || (j < old_count && old_keys[j] < met[i].key);
        if (take_old) {
            // A removed particle's contacts end with it, unreported: its handle is stale.
            if (still_alive(w, &old_events[j]))
                add_event(&w->events.end_events, &w->events.end_count, &w->events.end_cap, &old_events[j]);
            j += 1;
            continue;
        }
        const touch *t = &met[i];
        // The same key can name a new particle in a reused slot: then one ended, one began.
        const bool same = !take_new && old_events[j].a.generation == t->event.a.generation &&
                          old_events[j].b.generation == t->event.b.generation &&
                          chain_generation(w, old_events[j].wall) == chain_generation(w, t->event.wall);
        if (!take_new && !same && still_alive(w, &old_events[j]))
            add_event(&w->events.end_events, &w->events.end_count, &w->events.end_cap, &old_events[j]);
        if (!same)
            add_event(&w->events.begin_events, &w->events.begin_count, &w->events.begin_cap, &t->event);
        if (t->touching) { // touching as the step ends: kept for the next
            int kc = kcap;
            if (ARRAY_RESERVE(keys, kcap, count + 1) &&
                ARRAY_RESERVE(events, ecap, count + 1)) {
                keys[count] = t->key;
                events[count++] = t->event;
            } else {
                kcap = kc;
            }
        } else { // met and parted within the step
            add_event(&w->events.end_events, &w->events.end_count, &w->events.end_cap, &t->event);
        }
        i += 1;
        j += take_new ? 0 : 1;
    }
    free(met);
    free(old_keys);
    free(old_events);
    w->events.touch_keys = keys;
    w->events.touch_events = events;
    w->events.touch_count = count;
    w->events.touch_cap = kcap;
}

// ---------------------------------------------------------------- leaving the region

static void leave_events(sb_world *w)
{
    w->events.leave_count = 0;
    if (!w->def.has_region || w->event_particles == 0)
        return;
    if (w->p_high > w->events.outside_cap) {
        if (!ARRAY_GROW(w->events.outside, w->p_cap))
            return;
        memset(w->events.outside + w->events.outside_cap, 0, (size_t)(w->p_cap - w->events.outside_cap)); // new slots start inside
        w->events.outside_cap = w->p_cap;
    }
    const sb_bounds r = w->def.region;
    for (int i = 0; i < w->p_high; ++i) {
        if (!(w->p_flags[i] & PARTICLE_EVENTS)) {
            w->events.outside[i] = 0; // a particle that starts to listen (or a reused slot) starts inside
            continue;
        }
        sb_vec2 p = w->pos[i];
        bool out = p.x < r.xmin || p.x > r.xmax || p.y < r.ymin || p.y > r.ymax;
        if (out && !w->events.outside[i] &&
            ARRAY_RESERVE(w->events.leave_events, w->events.leave_cap, w->events.leave_count + 1))
            w->events.leave_events[w->events.leave_count++] = (sb_particle_id){(uint32_t)i, w->p_gen[i]};
        w->events.outside[i] = out;
    }
}

void events_clear(sb_world *w)
{
    w->events.break_count = 0;
    w->stats.broken_springs = 0;
    w->constraints.break_count = 0;
    w->events.begin_count = w->events.end_count = 0;
    w->events.leave_count = 0;
}

void events_after_step(sb_world *w)
{
    break_springs(w);
    w->stats.broken_springs = w->events.break_count;
    w->stats.broken_springs_total += (uint64_t)w->events.break_count;
    constraints_break(w); // constraint.c
    contact_events(w);
    leave_events(w);
}

int sb_world_leave_events(const sb_world *w, const sb_particle_id **events)
{
    *events = w->events.leave_events;
    return w->events.leave_count;
}

void events_free(sb_world *w)
{
    const sb_events *e = &w->events;
    FREE_ARRAYS(e->touch_keys, e->touch_events, e->begin_events, e->end_events, e->break_events, e->outside, e->leave_events);
}

void sb_world_contact_events(const sb_world *w, const sb_contact_event **begins, int *begin_count,
                             const sb_contact_event **ends, int *end_count)
{
    *begins = w->events.begin_events;
    *begin_count = w->events.begin_count;
    *ends = w->events.end_events;
    *end_count = w->events.end_count;
}

int sb_world_break_events(const sb_world *w, const sb_break_event **events)
{
    *events = w->events.break_events;
    return w->events.break_count;
}
