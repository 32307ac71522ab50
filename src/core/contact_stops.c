// The stops that travel: what a particle's contacts may do to its velocity within the frame,
// walked from partner to partner so that pairs the frame's margins missed are listed; and the
// sweeps that list what a fast particle's path meets.
#include "contact_find_internal.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>

// Stops that travel. A pair's margin covers the speed at which its two close when the
// frame begins (pair_margin), so two balls falling together 1 cm apart, closing at 0, are not a
// pair: when the floor stops the lower one, the upper would go into it within the frame,
// unresisted, and a heavy ball shot into a row of light ones would take them through each other
// and onto the wall (docs/decisions/2026-11-25-stops-that-travel.md). So each particle also carries what its contacts may do to it this
// frame, its stop: the velocities they may bring it to (a box), from when, and the heaviest thing
// that may push it. A listed contact that closes may bring each end toward the other's velocity
// along its normal (pushed_velocity), from when they meet. A particle slowed that way, or pushed
// by something heavier, walks: each partner it can meet within the frame (i at any velocity in
// its box, the partner at its own) may be brought toward i's box in turn, from when they meet. A
// stop so travels up a falling column, or down a row a heavy ball drives, as far as its gaps
// close within the frame. Boxes only widen (speeds never add up along a ring of partners) and
// are rounded, so the walk ends, where it would in any order. Then each pair, and each wall, that
// a walker's stop can bring more than a tenth of the smaller radius into each other within the
// frame, which the narrow phase did not list, is listed.

/// How fast contact c's two ends approach along its normal (negative: they separate).
static double contact_closing(const sb_world *w, const sb_contact *c)
{
    const sb_vec2 vb = c->b >= 0 ? w->vel[c->b] : v2(0, 0);
    return v2_dot(v2_sub(w->vel[c->a], vb), c->normal);
}

/// The overlap, as a fraction of the smaller radius, that a pair no stop listed may reach within
/// the frame (the next frame's contact takes it up, as it does the slop).
static const double stop_tolerance = 0.1;

typedef struct stop_walk {
    sb_world *w;
    const narrow_job *job;
    double frame;  // s
    double slight; // a stop under it closes less than four slops (a fifth of the largest radius) in the frame: left alone
    double skin;   // how far a particle may be from where the grid has it (reused: its skin)
    velocity_box all; // every particle's velocity and rest: contacts bring none outside it
    double fastest;   // the largest speed in `all`
    double most_search; // how far past both radii any two may meet within the frame (the margin's cap at most)
    int head, queued;
} stop_walk;

static velocity_box velocity_point(sb_vec2 v) { return (velocity_box){v.x, v.x, v.y, v.y}; }

/// The fastest any velocity in box b goes along n.
static double box_support(const velocity_box *b, sb_vec2 n)
{
    return (n.x > 0.0 ? b->hi_x : b->lo_x) * n.x + (n.y > 0.0 ? b->hi_y : b->lo_y) * n.y;
}

/// The largest speed in box b (at its farthest corner).
static double box_fastest(const velocity_box *b)
{
    const double x = -b->lo_x > b->hi_x ? -b->lo_x : b->hi_x, y = -b->lo_y > b->hi_y ? -b->lo_y : b->hi_y;
    return sqrt(x * x + y * y);
}

enum { STOP_QUEUED = 1, STOP_WALKER = 2 }; // stop_queued: in the queue; walks (and lists its pairs)

/// j, moving at v, pushed along n by something that moves along it at up to `toward` and whose
/// inverse mass is inv_pusher, may be brought to this velocity; *walks: whether that is a stop that
/// travels on from j: j slowed by the slight speed or more, or pushed that much by something
/// heavier. Slowing may take all of j's speed along n (what pushes may be held by a wall); past
/// rest, j takes its share of the pusher's momentum (an inelastic hit: two equal balls part at
/// half the speed; a ball pushed by one 20 times heavier, at 20/21 of it). A push by an equal or
/// lighter ball does not travel on: in a pile it spreads over more balls at each row, which this
/// bound cannot follow, and carried on it listed four times the pairs of the 4000-ball pit while
/// it fell.
static sb_vec2 pushed_velocity(const sb_world *w, int j, sb_vec2 n, double toward, double inv_pusher, double slight, bool *walks)
{
    const sb_vec2 v = w->vel[j];
    const double along = v2_dot(v, n);
    double after = along < 0.0 ? (toward < 0.0 ? toward : 0.0) : along;
    const double slowed = after - along;
    if (toward > after)
        after += (toward - after) * w->inv_mass[j] / (w->inv_mass[j] + inv_pusher);
    *walks = slowed >= slight || (after - along >= slight && inv_pusher < w->inv_mass[j]);
    return v2_add(v, v2_scale(n, after - along));
}

/// The box of the q-grid around v (v on a line of the grid: that line). A stop's box starts as its
/// particle's own velocity rounded so: a push lands on the segment from that velocity along the
/// normal, so its rounded box is within the rounded ends', and the box does not depend on which
/// pushes came first (with the velocity itself unrounded it did: the same pit ended with other bits
/// when the walk took particles in another order).
static velocity_box velocity_rounded(sb_vec2 v, double q)
{
    return (velocity_box){floor(v.x / q) * q, ceil(v.x / q) * q, floor(v.y / q) * q, ceil(v.y / q) * q};
}

/// j may be brought to `velocity` from `time` on, pushed by something with inverse mass
/// inv_pusher: its stop widens, starts sooner, or takes a heavier pusher, which j passes on as its
/// own push (a heavy ball drives a row of light ones before it). j walks once `walks`
/// (pushed_velocity), and again whenever its stop changes. Velocities are rounded out to a
/// quarter of the slight speed, times down to an eighth of the frame, and pushers are particles: a stop
/// takes finitely many values, each only grows, and the walk ends where it would in any order
/// (the grid's layout, the pile's numbering, threads).
static void stop_reach(stop_walk *s, int j, sb_vec2 velocity, double time, double inv_pusher, bool walks)
{
    sb_world *w = s->w;
    if (w->inv_mass[j] == 0.0 || time >= s->frame)
        return; // a fixed particle is not moved; a stop after the frame is the next frame's
    particle_stop *p = &w->broad.stop[j];
    const double q = 0.25 * s->slight, tq = s->frame / 8.0;
    // (inelastic contacts mix velocities: none goes outside what there is)
    velocity.x = velocity.x < s->all.lo_x ? s->all.lo_x : velocity.x > s->all.hi_x ? s->all.hi_x : velocity.x;
    velocity.y = velocity.y < s->all.lo_y ? s->all.lo_y : velocity.y > s->all.hi_y ? s->all.hi_y : velocity.y;
    const velocity_box before = p->box;
    box_take(&p->box, velocity_rounded(velocity, q));
    time = floor(time / tq) * tq;
    bool changed = time < p->time || inv_pusher < p->inv_pusher || memcmp(&before, &p->box, sizeof before) != 0;
    p->time = time < p->time ? time : p->time;
    p->inv_pusher = inv_pusher < p->inv_pusher ? inv_pusher : p->inv_pusher;
    if (walks && !(w->broad.stop_queued[j] & STOP_WALKER)) {
        w->broad.stop_queued[j] |= STOP_WALKER;
        changed = true;
    }
    if (!changed || !(w->broad.stop_queued[j] & STOP_WALKER) || (w->broad.stop_queued[j] & STOP_QUEUED))
        return;
    w->broad.stop_queued[j] |= STOP_QUEUED;
    w->broad.stop_queue[(s->head + s->queued++) % w->p_high] = j;
}

static void stop_list(sb_world *w, int i, int j, sb_vec2 normal, double separation)
{
    const int a = i < j ? i : j, b = i < j ? j : i;
    sb_contact c = contact_of(a);
    c.b = b;
    c.shape = SHAPE_PARTICLE | (uint32_t)b;
    c.key = contact_key(a, c.shape);
    c.normal = a == i ? normal : v2_scale(normal, -1.0);
    c.separation = separation;
    push_to(&(contact_buffer){&w->broad.stop_contacts, &w->broad.stop_contact_count, &w->broad.stop_contact_cap}, &c);
}

/// Particle i's partners from the grid that it may meet within the frame at any stop (the two at
/// most as fast as the fastest there is, each), that collide with it, kept for its later visits:
/// a particle walks a few times a frame, and the grid's 7 x 7 cells were most of its cost.
static bool stop_candidates(stop_walk *s, int i)
{
    sb_world *w = s->w;
    const double ri = w->radius[i], search = s->most_search + s->skin;
    const sb_vec2 pi = w->pos[i];
    const int n = (int)ceil((ri + s->job->rmax + search) / w->broad.grid_cell);
    w->broad.stop_cand_at[i] = w->broad.stop_cand_count;
    w->broad.stop_cand_n[i] = 0;
    for (int dy = -n; dy <= n; ++dy)
        for (int dx = -n; dx <= n; ++dx) {
            const int cx = w->broad.cell_x[i] + dx, cy = w->broad.cell_y[i] + dy;
            const unsigned hsh = grid_bucket(w, cx, cy);
            for (int k = w->broad.grid_start[hsh]; k < w->broad.grid_start[hsh + 1]; ++k) {
                const grid_entry *e = &w->broad.grid_entries[k];
                const int j = e->index;
                const sb_vec2 d = v2_sub(w->pos[j], pi);
                const double d2 = v2_dot(d, d), far = ri + e->radius + search;
                if (d2 >= far * far || j == i || e->cx != cx || e->cy != cy || !in_grid(w, j) ||
                    (w->inv_mass[i] == 0.0 && w->inv_mass[j] == 0.0) || !pair_may_touch(w, i, j))
                    continue;
                if (!ARRAY_RESERVE(w->broad.stop_cands, w->broad.stop_cand_cap, w->broad.stop_cand_count + 1)) {
                    w->broad.stop_cand_at[i] = -1;
                    return false;
                }
                const double len = sqrt(d2);
                const sb_vec2 normal = len > 1e-12 ? v2_scale(d, 1.0 / len) : v2(0, 1);
                w->broad.stop_cands[w->broad.stop_cand_count++] =
                    (stop_partner){normal, d2, len - ri - e->radius, v2_dot(w->vel[j], normal), j};
                w->broad.stop_cand_n[i] += 1;
            }
        }
    return true;
}

/// Particle i's partners in the grid that can meet it within the frame, stops counted: walking,
/// each partner's stop takes i's from when they meet; listing, each pair that can overlap past
/// the tolerance and that the narrow phase did not list is listed.
static void stop_visit(stop_walk *s, int i, bool list)
{
    sb_world *w = s->w;
    const narrow_job *job = s->job;
    if (w->broad.stop_cand_at[i] < 0 && !stop_candidates(s, i))
        return; // out of memory: i's pairs wait for the next frame
    const sb_vec2 vi = w->vel[i];
    const double ri = w->radius[i], reach_i = w->scratch.reach[i], left = s->frame - w->broad.stop[i].time;
    const stop_partner *cand = w->broad.stop_cands + w->broad.stop_cand_at[i];
    for (int k = 0; k < w->broad.stop_cand_n[i]; ++k) {
        const int j = cand[k].index;
        if (list && (w->broad.stop_queued[j] & STOP_WALKER) && j < i) // j lists the pair
            continue;
        const sb_vec2 normal = cand[k].normal, vj = w->vel[j]; // (from i to j)
        const double gap = cand[k].gap, rj = w->radius[j], radii = ri + rj;
        // the fastest the two may close: i at any velocity its stop allows, and j too when
        // listing; walking, j at its own (what j's stop is at the time must not matter, or the
        // order of the walk would)
        const double toward = box_support(&w->broad.stop[i].box, normal);
        const double closing = toward - (list ? -box_support(&w->broad.stop[j].box, v2_scale(normal, -1.0)) : cand[k].along);
        const double depth = closing * left - (gap > 0.0 ? gap : 0.0); // into each other by the frame's end
        if (closing <= 0.0 || depth <= (list ? stop_tolerance * (ri < rj ? ri : rj) : 0.0))
            continue;
        if (!list) {
            // contacts push j away from i, along the normal, as fast as i may come at it
            bool walks;
            if (toward > cand[k].along) {
                const double inv_pusher = w->broad.stop[i].inv_pusher; // i, or what pushes it
                const sb_vec2 to = pushed_velocity(w, j, normal, toward, inv_pusher, s->slight, &walks);
                stop_reach(s, j, to, w->broad.stop[i].time + (gap > 0.0 ? gap / closing : 0.0), inv_pusher, walks);
            }
            continue;
        }
        const double reach = radii + pair_reach(job, reach_i, w->scratch.reach[j]), d2 = cand[k].d2;
        if (d2 < reach * reach && within_pair_margin(job, d2, radii, vi, vj))
            continue; // the narrow phase listed it
        stop_list(w, i, j, normal, gap);
    }
}

/// Walls and bounds that i's stop may bring it more than the tolerance into within the frame, which
/// the narrow phase did not list (it lists them from i's own speed): a ball pushed toward a wall
/// by one that hits it.
static void stop_list_walls(stop_walk *s, int i)
{
    sb_world *w = s->w;
    const double left = s->frame - w->broad.stop[i].time, tolerance = stop_tolerance * w->radius[i];
    // what the stop's velocities can close in the time left, at most, and what the narrow phase took
    const velocity_box *v = &w->broad.stop[i].box;
    const double speed = fmax(fabs(v->lo_x), fabs(v->hi_x)) + fmax(fabs(v->lo_y), fabs(v->hi_y));
    static_shapes near;
    const double reach = static_reach(w, i);
    static_shapes_near(w, w->pos[i], w->radius[i] + fmax(reach, speed * left), &near);
    sb_contact c = contact_of(i);
    while (static_shapes_next(w, &near, &c.shape)) {
        c.side = 0;
        static_shape_geometry(w, &c);
        if (c.separation < reach) // listed already
            continue;
        if (box_support(&w->broad.stop[i].box, c.normal) * left - c.separation <= tolerance)
            continue;
        c.key = contact_key(i, c.shape);
        push_to(&(contact_buffer){&w->broad.stop_contacts, &w->broad.stop_contact_count, &w->broad.stop_contact_cap}, &c);
    }
}

/// Merges broad.stop_contacts[0 .. count), each pair once, into contact.next, both in key order.
static void merge_stop_contacts(sb_world *w, int count)
{
    if (count == 0)
        return;
    qsort(w->broad.stop_contacts, (size_t)count, sizeof *w->broad.stop_contacts, compare_keys);
    int distinct = 0;
    for (int k = 0; k < count; ++k)
        if (distinct == 0 || w->broad.stop_contacts[distinct - 1].key != w->broad.stop_contacts[k].key)
            w->broad.stop_contacts[distinct++] = w->broad.stop_contacts[k];
    const int n = w->contact.next_count;
    if (!ARRAY_RESERVE(w->contact.scratch, w->contact.scratch_cap, n + distinct))
        return; // (out of memory: the pairs wait for the next frame)
    int a = 0, b = 0, out = 0;
    while (a < n || b < distinct)
        w->contact.scratch[out++] = b == distinct || (a < n && w->contact.next[a].key < w->broad.stop_contacts[b].key)
                                         ? w->contact.next[a++]
                                         : w->broad.stop_contacts[b++];
    swap_contact_lists(&w->contact.next, &w->contact.next_cap, &w->contact.scratch, &w->contact.scratch_cap);
    w->contact.next_count = out;
}

/// The stops of this frame, from the contacts the narrow phase listed, carried over the grid to
/// the partners they reach; the pairs they bring within the tolerance are merged into the list
/// in key order. Serial: it runs only in a frame where something meets something fast (a landing,
/// a hit), over the particles the stops reach, in a fixed order, so threads do not change it.
void stops_list_pairs(sb_world *w, const narrow_job *job)
{
    const double frame = 0.5 * job->twice_dt, slight = 4.0 * job->slop / frame;
    int first = 0; // the first contact that closes fast (none: no stops this frame)
    while (first < w->contact.next_count &&
           (w->contact.next[first].b2 >= 0 || contact_closing(w, &w->contact.next[first]) < slight))
        first += 1;
    if (first == w->contact.next_count || w->broad.grid_cell <= 0.0)
        return;
    stop_walk s = {.w = w, .job = job, .frame = frame, .slight = slight,
                   .skin = job->reuse ? w->broad.pair_skin : 0.0, .all = velocity_point(v2(0, 0))};
    for (int i = 0; i < w->p_high; ++i) {
        w->broad.stop[i] = (particle_stop){velocity_rounded(w->vel[i], 0.25 * slight), frame, w->inv_mass[i]};
        w->broad.stop_queued[i] = 0;
        w->broad.stop_cand_at[i] = -1;
        box_take(&s.all, w->broad.stop[i].box);
    }
    s.fastest = box_fastest(&s.all);
    const double meet_at_most = 2.0 * s.fastest * frame, cap = job->cap + job->slop;
    s.most_search = meet_at_most < cap ? meet_at_most : cap;
    w->broad.stop_cand_count = 0;
    // a contact that closes may bring each end to the other's velocity (a wall's to rest), in
    // its share of the two's momentum past rest, once they meet; each end walks
    for (int k = first; k < w->contact.next_count; ++k) {
        const sb_contact *c = &w->contact.next[k];
        const double closing = c->b2 < 0 ? contact_closing(w, c) : 0.0;
        if (closing < slight)
            continue;
        const double meet = c->separation > 0.0 ? c->separation / closing : 0.0;
        const sb_vec2 n = c->normal, back = v2_scale(n, -1.0);
        const double inv_a = w->inv_mass[c->a], inv_b = c->b >= 0 ? w->inv_mass[c->b] : 0.0;
        bool walks;
        const sb_vec2 to_a = pushed_velocity(w, c->a, back, c->b >= 0 ? v2_dot(w->vel[c->b], back) : 0.0, inv_b, slight, &walks);
        // (a wall or a fixed particle holds, which slowing already allows: it is no pusher to pass on)
        stop_reach(&s, c->a, to_a, meet, inv_b > 0.0 ? inv_b : inv_a, true);
        if (c->b >= 0)
            stop_reach(&s, c->b, pushed_velocity(w, c->b, n, v2_dot(w->vel[c->a], n), inv_a, slight, &walks), meet, inv_a, true);
    }
    while (s.queued > 0) {
        int i;
        if (w->broad.stops_last_first) { // (tests: the order must not matter)
            s.queued -= 1;
            i = w->broad.stop_queue[(s.head + s.queued) % w->p_high];
        } else {
            i = w->broad.stop_queue[s.head];
            s.head = (s.head + 1) % w->p_high;
            s.queued -= 1;
        }
        w->broad.stop_queued[i] &= (uint8_t)~STOP_QUEUED;
        if (in_grid(w, i))
            stop_visit(&s, i, false);
    }
    w->broad.stop_contact_count = 0;
    for (int i = 0; i < w->p_high; ++i)
        if (w->broad.stop_queued[i] & STOP_WALKER) {
            stop_list_walls(&s, i);
            if (in_grid(w, i))
                stop_visit(&s, i, true);
        }
    merge_stop_contacts(w, w->broad.stop_contact_count);
}

// ---------------------------------------------------------------- sweeps

/// Whether particles i and j, moving as they do now, come within their radii and the slop of each
/// other over `span` seconds: the least distance of the segment their relative motion draws.
static bool paths_meet(const sb_world *w, int i, int j, double span, double slop)
{
    const sb_vec2 d = v2_sub(w->pos[j], w->pos[i]), u = v2_scale(v2_sub(w->vel[j], w->vel[i]), span);
    const double uu = v2_dot(u, u);
    double t = uu > 0.0 ? -v2_dot(d, u) / uu : 0.0;
    t = t < 0.0 ? 0.0 : t > 1.0 ? 1.0 : t;
    const sb_vec2 closest = v2_mad(d, t, u);
    const double reach = w->radius[i] + w->radius[j] + slop;
    return v2_dot(closest, closest) < reach * reach;
}

/// Particle i's sweep meets particle j: their pair is listed, unless it is already.
static void sweep_candidate(const sb_world *w, const narrow_job *job, int i, int j, contact_buffer *out)
{
    if (j == i || (w->inv_mass[i] == 0.0 && w->inv_mass[j] == 0.0) || !pair_may_touch(w, i, j) ||
        !paths_meet(w, i, j, job->twice_dt, job->slop))
        return;
    const int a = i < j ? i : j, b = i < j ? j : i;
    sb_contact c = contact_of(a);
    c.b = b;
    c.shape = SHAPE_PARTICLE | (uint32_t)b;
    c.key = contact_key(a, c.shape);
    if (listed(w, c.key))
        return;
    const sb_vec2 d = v2_sub(w->pos[b], w->pos[a]);
    const double len = v2_len(d);
    c.normal = len > 1e-12 ? v2_scale(d, 1.0 / len) : v2(0, 1);
    c.separation = len - w->radius[a] - w->radius[b];
    push_to(out, &c);
}

/// Whether grid entry e moves fast enough against velocity v to close more than the pairs'
/// margin cap over the sweep: a slower pair that can meet is within its own margin, which the
/// narrow phase listed it by (pair_margin), so the sweep need not test it.
static inline bool outruns_margin(const grid_entry *e, sb_vec2 v, double most2)
{
    const double dx = e->vx - v.x, dy = e->vy - v.y;
    return dx * dx + dy * dy > most2;
}

/// The sweeps of particles [from, to): chunk 0 writes into stop_contacts, the others into the
/// narrow phase's chunk buffers (free again once it has appended them), joined afterwards.
static void sweeps_range(void *ctx, int chunk, int from, int to)
{
    const narrow_job *job = ctx;
    sb_world *w = job->w;
    contact_buffer buffer = chunk == 0 ? (contact_buffer){&w->broad.stop_contacts, &w->broad.stop_contact_count, &w->broad.stop_contact_cap}
                                       : (contact_buffer){&w->contact.chunks[chunk], &w->contact.chunk_count[chunk],
                                                          &w->contact.chunk_cap[chunk]};
    contact_buffer *out = &buffer;
    const double span = job->twice_dt, cell = w->broad.grid_cell, inv_cell = 1.0 / cell;
    const double most = job->cap / span, most2 = most * most;
    const int entries = w->broad.grid_start[w->broad.grid_size];
    for (int i = from; i < to; ++i) {
        if (!in_grid(w, i) || v2_len(w->vel[i]) * span <= job->cap)
            continue;
        const sb_vec2 vi = w->vel[i], start = w->pos[i], end = v2_mad(start, span, vi);
        const double inflate = w->radius[i] + job->rmax + job->cap + job->slop;
        const int n = (int)ceil(inflate * inv_cell);
        // the cells along the path, a cell a step (a step of half a cell at the least): each
        // visited with the n around it, the partners tested once a cell; or every particle in the
        // grid, where there are fewer of them than cells to visit
        const double walk = ceil(v2_len(v2_sub(end, start)) / (0.5 * cell)) + 1.0; // (a path may be far longer than an int counts)
        if ((walk + 1.0) * (2.0 * n + 1.0) * (2.0 * n + 1.0) > (double)entries) {
            for (int k = 0; k < entries; ++k)
                if (outruns_margin(&w->broad.grid_entries[k], vi, most2))
                    sweep_candidate(w, job, i, w->broad.grid_entries[k].index, out);
            continue;
        }
        const int steps = (int)walk;
        int last_cx = INT_MIN, last_cy = INT_MIN;
        for (int s = 0; s <= steps; ++s) {
            const sb_vec2 at = v2_mad(start, (double)s / steps, v2_sub(end, start));
            const int ccx = cell_coord(at.x, inv_cell), ccy = cell_coord(at.y, inv_cell);
            if (ccx == last_cx && ccy == last_cy)
                continue;
            for (int dy = -n; dy <= n; ++dy)
                for (int dx = -n; dx <= n; ++dx) {
                    const int cx = ccx + dx, cy = ccy + dy;
                    // cells the last visit covered are not read twice
                    if (last_cx != INT_MIN && abs(cx - last_cx) <= n && abs(cy - last_cy) <= n)
                        continue;
                    const unsigned hsh = grid_bucket(w, cx, cy);
                    for (int k = w->broad.grid_start[hsh]; k < w->broad.grid_start[hsh + 1]; ++k) {
                        const grid_entry *e = &w->broad.grid_entries[k];
                        if (e->cx == cx && e->cy == cy && outruns_margin(e, vi, most2))
                            sweep_candidate(w, job, i, e->index, out);
                    }
                }
            last_cx = ccx;
            last_cy = ccy;
        }
    }
}

/// A particle whose speed closes more than the pairs' margin cap over the frame could go through
/// what it meets unlisted (the pairs' margins are capped, so that one fast ball does not list
/// every pair around it): its path over twice the frame (a partner as fast, coming the other way,
/// is met halfway) is walked cell by cell through the grid, and every particle moving fast
/// against it whose own motion brings it within reach of it in that time is listed as a
/// speculative contact, which the collisions and the solve then take as any other (continuous
/// collision, as the walls have). A swinging cloth's beads are fast, but their neighbours move
/// with them: those are passed over at the cost of reading their velocities.
/// The particles are swept on every thread, in chunks taken by whichever thread is free (the
/// fast ones bunch: a cloth's swinging hem); the pairs are merged in key order, the same bits
/// however they were cut.
void sweeps_list_pairs(sb_world *w, const narrow_job *job)
{
    if (w->broad.grid_cell <= 0.0)
        return;
    w->broad.stop_contact_count = 0;
    memset(w->contact.chunk_count, 0, sizeof w->contact.chunk_count);
    const int chunks = sb_pool_for_chunks_balanced(w->pool, w->p_high, 256, sweeps_range, (void *)job);
    int count = w->broad.stop_contact_count;
    for (int k = 1; k < chunks; ++k) {
        const int n = w->contact.chunk_count[k];
        if (n > 0 && ARRAY_RESERVE(w->broad.stop_contacts, w->broad.stop_contact_cap, count + n)) {
            memcpy(w->broad.stop_contacts + count, w->contact.chunks[k], sizeof *w->broad.stop_contacts * (size_t)n);
            count += n;
        }
    }
    merge_stop_contacts(w, count); // (two fast particles may both find a pair: merged once)
}
