// What the finding of contacts shares between its files (contact_find.c, contact_segments.c,
// contact_stops.c, contact_graph.c): keys, the grid (contact_grid.h), the narrow phase's job and buffers,
// pair margins, the walls and bounds near a particle, and a contact's beginning.
#ifndef SB_CONTACT_FIND_INTERNAL_H
#define SB_CONTACT_FIND_INTERNAL_H

#include "contact_grid.h"
#include "sb_pool.h"
#include "world_internal.h"

#include <string.h>

/// The key of particle a's contact with shape: the contact lists' order, by particle, then shape.
static inline uint64_t contact_key(int a, uint32_t shape) { return ((uint64_t)a << 32) | shape; }

/// A speculative margin: what closes at `closing` m over the frame, within reason (up to `cap`),
/// plus the slop. A particle's own reach, the world's largest and a pair's take it (contacts_build).
static inline double capped_margin(double closing, double cap, double slop)
{
    return (closing < cap ? closing : cap) + slop;
}

static inline bool joined_by_spring(const sb_world *w, int a, int b)
{
    uint64_t key = ((uint64_t)(uint32_t)a << 32) | (uint32_t)b; // a < b
    int lo = 0, hi = w->pair_count;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (w->pair_keys[mid] < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < w->pair_count && w->pair_keys[lo] == key;
}

/// The larger of the two rolling resistances (contact_find.c).
double contact_combined_rolling_resistance(const sb_world *w, int a, int b);

static inline int compare_keys(const void *x, const void *y)
{
    uint64_t a = ((const sb_contact *)x)->key, b = ((const sb_contact *)y)->key;
    return (a > b) - (a < b);
}

/// Where a chunk of the narrow phase writes its contacts: contact.next for the first, a buffer
/// of its own for each other, appended in chunk order (so in key order) afterwards.
typedef struct contact_buffer { sb_contact **items; int *count, *cap; } contact_buffer;

static inline void push_to(contact_buffer *out, const sb_contact *c)
{
    if (!array_reserve((void **)out->items, out->cap, *out->count + 1, sizeof **out->items))
        return; // out of memory: this contact is skipped this step
    (*out->items)[(*out->count)++] = *c;
}

/// pairs: particles collide with each other this step; reuse: their candidates come from the
/// pairs list instead of the grid; keep: the grid makes the list anew. A pair's speculative
/// margin is twice the speed at which its two close over the frame, up to `cap`, plus `slop`
/// (pair_margin).
/// block: while things move fast, the cells a block of the grid has on a side, whose velocities
/// (block_velocity) tell how far each particle searches (0: 3 x 3 cells for all); cell and rmax
/// size that search (scan_cells).
typedef struct narrow_job {
    sb_world *w;
    bool pairs, reuse, keep;
    double twice_dt, cap, slop;
    int block;
    double cell, rmax;
} narrow_job;

/// How near two particles' surfaces must be for their pair to be listed this frame: what their
/// relative speed can close in it, twice over, within reason.
static inline double pair_margin(const narrow_job *job, sb_vec2 va, sb_vec2 vb)
{
    return capped_margin(v2_len(v2_sub(va, vb)) * job->twice_dt, job->cap, job->slop);
}

/// A bound on pair_margin from the two particles' own reaches (each twice its own speed over the
/// frame, capped, plus the slop): the relative speed is at most the sum of the two speeds.
static inline double pair_reach(const narrow_job *job, double reach_a, double reach_b)
{
    double r = reach_a + reach_b, most = job->cap + job->slop;
    return r < most ? r : most;
}

/// The pair's own test, once pair_reach has let it through: its surfaces are within its margin.
static inline bool within_pair_margin(const narrow_job *job, double d2, double radii, sb_vec2 va, sb_vec2 vb)
{
    const double least = radii + job->slop; // every margin is at least the slop: no square root
    if (d2 < least * least)
        return true;
    double reach = radii + pair_margin(job, va, vb);
    return d2 < reach * reach;
}

/// How many cells either side of its own particle i searches. Cells are at least as wide as two
/// radii and the margin of a pair that closes slowly (slow_margin), so a particle whose every
/// possible partner moves within that of its own velocity finds them all next door, however fast
/// the pile falls; only where velocities differ (where balls land, a ball shot through a pile)
/// does a particle search as far as its own reach and the fastest other's can take it. The
/// partners it could have are all in the 3 x 3 blocks around its own (a block is as wide as the

/// Whether particles i and j may be a contact, their margin aside: they collide (groups, masks)
/// and no spring joins them (springs own the distance between their ends; a particle with none is
/// joined to nothing). The narrow phase has already left out pairs that are both fixed.
static inline bool pair_may_touch(const sb_world *w, int i, int j)
{
    return particles_should_collide(w, i, j) &&
           !(w->degree[i] > 0 && w->degree[j] > 0 && joined_by_spring(w, i < j ? i : j, i < j ? j : i));
}

/// How far a particle reaches to the walls and the bounds: its own reach, or all that its speed
/// closes over the frame where that is more. Walls have their own broad phase (wall_tree.c), so
/// the cap that keeps a fast particle's pairs few need not hold them: without it a ball at 30 m/s
/// met a wall only once inside it, and bounced from there.
static inline double static_reach(const sb_world *w, int i)
{
    const double closing = v2_len(w->vel[i]) * 2.0 * w->def.dt;
    return closing > w->scratch.reach[i] ? closing : w->scratch.reach[i];
}

/// The walls and the bounds a particle may touch within `reach` of its centre, in shape order (walls
/// by number, then the bounds), as static_shapes_next hands them out: the walls from the walls'
/// broad phase (wall_tree.c), or, out of memory, every live wall.
typedef struct static_shapes {
    walls_near near;
    bool every;
    int at, bounds;
} static_shapes;

/// Starts the walk of the walls and the bounds within `reach` of p (contact_find.c).
void static_shapes_near(const sb_world *w, sb_vec2 p, double reach, static_shapes *s);
/// The next shape (a wall's number, or SHAPE_BOUND + side); false when there are no more (and
/// what the walls took is let go).
bool static_shapes_next(const sb_world *w, static_shapes *s, uint32_t *shape);

/// A contact of particle a with nothing yet: no partner, no segment, no impulses.
static inline sb_contact contact_of(int a)
{
    sb_contact c;
    memset(&c, 0, sizeof c);
    c.a = a;
    c.b = -1;
    c.b2 = -1;
    return c;
}

/// The first of the last step's warm starts (sorted by key) whose key is `key` or after it.
static inline int warm_lower_bound(const sb_world *w, uint64_t key)
{
    int lo = 0, hi = w->contact.count;
    while (lo < hi) {
        const int mid = lo + (hi - lo) / 2;
        if (w->contact.warm[mid].key < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/// Whether contact.next (sorted by key) holds `key`.
static inline bool listed(const sb_world *w, uint64_t key)
{
    int lo = 0, hi = w->contact.next_count;
    while (lo < hi) {
        const int mid = lo + (hi - lo) / 2;
        if (w->contact.next[mid].key < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < w->contact.next_count && w->contact.next[lo].key == key;
}

static inline void swap_contact_lists(sb_contact **a, int *a_cap, sb_contact **b, int *b_cap)
{
    sb_contact *t = *a;
    *a = *b;
    *b = t;
    int cap = *a_cap;
    *a_cap = *b_cap;
    *b_cap = cap;
}

// contact_segments.c: particles against solid springs and ropes.
/// What segment_sweeps needs of the frame: a particle moves fast when it covers more than `cap`
/// over `span` (twice the frame, as the margins); two meet within their radii and `slop`.
typedef struct segment_sweep { double span, cap, slop; } segment_sweep;
/// The solid springs' contacts: with the particles near them (`sweep` NULL where particles do not
/// collide) and with the walls' corners.
void segment_contacts_build(sb_world *w, double inv_cell, double rmax, double margin, bool grid, const segment_sweep *sweep);

// contact_stops.c: the stops that travel, and the sweeps of fast particles.
void stops_list_pairs(sb_world *w, const narrow_job *job);
void sweeps_list_pairs(sb_world *w, const narrow_job *job);

// contact_graph.c: the warm starts matched, the colours, the commit.
/// Each of contact.next takes the warm start of the last step's contact with its key.
void contacts_match_warm_starts(sb_world *w);
/// contact.next, coloured and ordered for the solver.
void contacts_color(sb_world *w);

#endif
