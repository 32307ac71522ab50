// Finding contacts: a spatial hash grid rebuilt by counting sort, so the cost is linear in the
// number of particles, whenever the pairs list it leaves (a Verlet list: partners within reach
// plus a skin) no longer holds; candidate pairs, walls, bounds and solid springs become
// speculative contacts, warm-started from the last step, coloured so that a colour's contacts
// share no moving particle, and ordered for the solver (contact_solver.c).
#include "sb_pool.h"
#include "world_internal.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

/// Contacts closer than this count as touching in the stats.
static const double touching_slop = 1e-3;

static void contacts_color(sb_world *w);
static void swap_contact_lists(sb_contact **a, int *a_cap, sb_contact **b, int *b_cap);

static const velocity_box empty_box = {INFINITY, -INFINITY, INFINITY, -INFINITY};

bool contacts_reserve(sb_world *w)
{
    int want = 16;
    while (want < 2 * w->p_high)
        want *= 2;
    if (want > w->grid_size) {
        if (!ARRAY_GROW(w->grid_start, want + 1) || !ARRAY_GROW(w->block_velocity, want))
            return false;
        for (int k = 0; k < want; ++k)
            w->block_velocity[k] = empty_box;
        w->grid_size = want;
    }
    if (w->p_high > w->grid_items_cap) {
        if (!ARRAY_GROW(w->grid_items, w->p_cap) || !ARRAY_GROW(w->grid_entries, w->p_cap))
            return false;
        w->grid_items_cap = w->p_cap;
    }
    if (w->p_high > w->pairs_cap) {
        if (!ARRAY_GROW(w->pairs_start, w->p_cap + 1) || !ARRAY_GROW(w->pairs_pos, w->p_cap) ||
            !ARRAY_GROW(w->pairs_reach, w->p_cap) || !ARRAY_GROW(w->pairs_radius, w->p_cap) ||
            !ARRAY_GROW(w->pairs_collides, w->p_cap) || !ARRAY_GROW(w->stop, w->p_cap) ||
            !ARRAY_GROW(w->stop_queue, w->p_cap) || !ARRAY_GROW(w->stop_queued, w->p_cap) ||
            !ARRAY_GROW(w->stop_cand_at, w->p_cap) || !ARRAY_GROW(w->stop_cand_n, w->p_cap))
            return false;
        w->pairs_cap = w->p_cap;
        w->pairs_valid = false;
    }
    return true;
}

/// The key of particle a's contact with shape: the contact lists' order, by particle, then shape.
static inline uint64_t contact_key(int a, uint32_t shape) { return ((uint64_t)a << 32) | shape; }

static bool push_segment_contact(sb_world *w, const sb_contact *c)
{
    if (!array_reserve((void **)&w->segment_contacts, &w->segment_contact_cap, w->segment_contact_count + 1,
                       sizeof *w->segment_contacts))
        return false;
    w->segment_contacts[w->segment_contact_count++] = *c;
    return true;
}

static inline unsigned cell_hash(int cx, int cy, int size)
{
    return ((unsigned)cx * 73856093u ^ (unsigned)cy * 19349663u) & (unsigned)(size - 1);
}

/// The bucket of cell (cx, cy): while the occupied cells' box fits in the buckets, row by row
/// (neighbouring cells side by side in memory, and no two cells sharing a bucket), with every
/// cell outside the box in the last bucket, which stays empty; else hashed.
static inline unsigned grid_bucket(const sb_world *w, int cx, int cy)
{
    if (!w->grid_dense)
        return cell_hash(cx, cy, w->grid_size);
    const long long x = (long long)cx - w->grid_x0, y = (long long)cy - w->grid_y0;
    return x >= 0 && x < w->grid_nx && y >= 0 && y < w->grid_ny ? (unsigned)(y * w->grid_nx + x) : (unsigned)w->grid_size - 1;
}

static inline int cell_coord(double x, double inv_cell)
{
    double c = floor(x * inv_cell);
    return c < -1e9 ? -1000000000 : c > 1e9 ? 1000000000 : (int)c;
}

/// A particle that collides with particles: alive, colliding and with a radius (the grid holds it).
static inline bool in_grid(const sb_world *w, int i)
{
    return particle_alive(w, i) && (w->p_flags[i] & PARTICLE_COLLIDE) && w->radius[i] > 0.0;
}

/// A speculative margin: what closes at `closing` m over the frame, within reason (up to `cap`),
/// plus the slop. A particle's own reach, the world's largest and a pair's take it (contacts_build).
static inline double capped_margin(double closing, double cap, double slop)
{
    return (closing < cap ? closing : cap) + slop;
}

static bool joined_by_spring(const sb_world *w, int a, int b)
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

double contact_combined_restitution(const sb_world *w, int a, int b)
{
    double ea = w->restitution[a] >= 0.0 ? w->restitution[a] : w->def.restitution;
    double eb = b < 0 ? w->def.restitution : w->restitution[b] >= 0.0 ? w->restitution[b] : w->def.restitution;
    return ea > eb ? ea : eb; // the bouncier one wins, as in Box2D
}

double contact_combined_friction(const sb_world *w, int a, int b)
{
    double fa = w->friction[a] >= 0.0 ? w->friction[a] : w->def.friction;
    double fb = b < 0 ? w->def.friction : w->friction[b] >= 0.0 ? w->friction[b] : w->def.friction;
    return sqrt(fa * fb); // geometric mean, as in Box2D
}

/// The larger of the two rolling resistances (a wall has none of its own: the particle's counts).
static double contact_combined_rolling_resistance(const sb_world *w, int a, int b)
{
    double ra = w->rolling_resistance[a] >= 0.0 ? w->rolling_resistance[a] : w->def.rolling_resistance;
    if (b < 0)
        return ra;
    double rb = w->rolling_resistance[b] >= 0.0 ? w->rolling_resistance[b] : w->def.rolling_resistance;
    return ra > rb ? ra : rb;
}

// Rolling. A particle with a radius is a disc that can turn: friction at its surface
// gives it spin, so a ball rolls down a slope at g sin / (1 + I / (m r^2)) (2/3 g sin for a
// disc, 5/7 for a ball) and a column of balls falls over, where a particle that cannot turn
// slides, or stands on friction alone. Beads joined by springs or constraints do not turn unless
// asked (SB_ROLLING_ON): a cloth's or a rope's beads keep the behaviour their tuning was made
// with. Particles that do not turn keep no spin; a fixed one keeps the spin it was given (a
// driven wheel) and is not turned by contacts.
/// What each chunk of a particle pass found (its own slot: combined in chunk order afterwards,
/// and only exact operations combine them: counts, maxima, and and or).
typedef struct particle_scan { double vmax, rmax; int colliders; bool any; } particle_scan;
typedef struct scan_job { sb_world *w; particle_scan part[SB_POOL_MAX_THREADS]; } scan_job;

static void turning_range(void *ctx, int from, int to)
{
    sb_world *w = ctx;
    for (int i = from; i < to; ++i) {
        const int mode = w->p_rolling[i];
        const double r = w->radius[i], wi = w->inv_mass[i];
        const bool rolls = wi > 0.0 && r > 0.0 && mode != SB_ROLLING_OFF && (mode == SB_ROLLING_ON || w->degree[i] == 0);
        w->inv_inertia[i] = rolls ? wi / (w->inertia[i] * r * r) : 0.0;
    }
}

static void spinning_range(void *ctx, int chunk, int from, int to)
{
    scan_job *job = ctx;
    sb_world *w = job->w;
    bool spinning = false;
    for (int i = from; i < to; ++i) {
        if (w->inv_inertia[i] == 0.0 && w->inv_mass[i] > 0.0)
            w->omega[i] = 0.0;
        spinning = spinning || w->inv_inertia[i] > 0.0 || w->omega[i] != 0.0;
    }
    job->part[chunk].any = spinning;
}

static void rolling_prepare(sb_world *w)
{
    sb_pool_for(w->pool, w->p_high, 1, PARTICLES_PER_THREAD, turning_range, w);
    for (int c = 0; c < w->c_high; ++c) {
        if (w->c_kind[c] == 0xFF)
            continue;
        for (int k = 0; k < w->c_count[c]; ++k) {
            int p = w->c_parts[c][k];
            if (w->p_rolling[p] == SB_ROLLING_AUTO)
                w->inv_inertia[p] = 0.0;
        }
    }
    scan_job job = {.w = w};
    const int chunks = sb_pool_for_chunks(w->pool, w->p_high, PARTICLES_PER_THREAD, spinning_range, &job);
    bool spinning = false;
    for (int k = 0; k < chunks; ++k)
        spinning = spinning || job.part[k].any;
    w->spinning = spinning;
}

typedef struct wall_end { double x, y; int wall, end; } wall_end;

static int compare_ends(const void *p, const void *q)
{
    const wall_end *a = (const wall_end *)p, *b = (const wall_end *)q;
    if (a->x != b->x)
        return a->x < b->x ? -1 : 1;
    if (a->y != b->y)
        return a->y < b->y ? -1 : 1;
    return a->wall != b->wall ? (a->wall < b->wall ? -1 : 1) : a->end - b->end;
}

/// Which live walls share an end point exactly: the joints of chains (static_geometry). Sorted, so
/// the cost is n log n once per change of the walls. Where more than two walls meet, none is
/// linked: that point is a corner of its own.
/// Each wall's chain: the lowest number among the walls linked to it end to end (a polyline is one
/// surface: its contact events name its first wall). A wall on its own is its own chain.
static void chain_walls(sb_world *w)
{
    int *stack = malloc(sizeof *stack * (size_t)(w->w_high + 1));
    for (int k = 0; k < w->w_high; ++k)
        w->wall_chain[k] = stack ? -1 : k;
    for (int k = 0; stack && k < w->w_high; ++k) {
        if (w->wall_chain[k] >= 0)
            continue;
        int top = 0;
        stack[top++] = k;
        w->wall_chain[k] = k;
        while (top > 0) {
            const int j = stack[--top];
            for (int end = 0; end < 2; ++end) {
                const int nb = w->wall_nb[2 * j + end];
                if (nb >= 0 && w->wall_chain[nb] < 0) {
                    w->wall_chain[nb] = k;
                    stack[top++] = nb;
                }
            }
        }
    }
    free(stack);
}

static void link_walls(sb_world *w)
{
    w->walls_dirty = false;
    for (int k = 0; k < 2 * w->w_high; ++k)
        w->wall_nb[k] = -1;
    wall_end *ends = malloc(sizeof *ends * (size_t)(2 * w->w_high + 1));
    if (!ends) {
        chain_walls(w); // no links: every joint a corner, as before chains existed
        return;
    }
    int n = 0;
    for (int k = 0; k < w->w_high; ++k) {
        if (!w->w_alive_flag[k])
            continue;
        ends[n++] = (wall_end){w->wall_a[k].x, w->wall_a[k].y, k, 0};
        ends[n++] = (wall_end){w->wall_b[k].x, w->wall_b[k].y, k, 1};
    }
    qsort(ends, (size_t)n, sizeof *ends, compare_ends);
    for (int i = 0; i < n;) {
        int j = i + 1;
        while (j < n && ends[j].x == ends[i].x && ends[j].y == ends[i].y)
            j += 1;
        if (j - i == 2 && ends[i].wall != ends[i + 1].wall) {
            w->wall_nb[2 * ends[i].wall + ends[i].end] = ends[i + 1].wall;
            w->wall_nb[2 * ends[i + 1].wall + ends[i + 1].end] = ends[i].wall;
        }
        i = j;
    }
    free(ends);
    chain_walls(w);
}

static int compare_keys(const void *x, const void *y)
{
    uint64_t a = ((const sb_contact *)x)->key, b = ((const sb_contact *)y)->key;
    return (a > b) - (a < b);
}

/// Whether particle j may touch a solid spring or rope from a to b: not one of its ends, not joined by a spring to
/// either (the spring's neighbours along a chain or a net would catch on it), and allowed by
/// the collision filter of both ends.
static bool may_touch_segment(const sb_world *w, int j, int a, int b)
{
    if (j == a || j == b || (w->inv_mass[j] == 0.0 && w->inv_mass[a] == 0.0 && w->inv_mass[b] == 0.0))
        return false;
    if (w->pair_count > 0 && (joined_by_spring(w, j < a ? j : a, j < a ? a : j) || joined_by_spring(w, j < b ? j : b, j < b ? b : j)))
        return false;
    return particles_should_collide(w, j, a) && particles_should_collide(w, j, b);
}

/// Particle j against the solid segment of contact template c (ends c->b, c->b2), within the box
/// lo..hi around it: listed when it may touch and is within the speculative margin.
static void segment_candidate(sb_world *w, sb_contact *c, int j, sb_vec2 lo, sb_vec2 hi, double margin)
{
    sb_vec2 p = w->pos[j];
    if (p.x < lo.x || p.x > hi.x || p.y < lo.y || p.y > hi.y || !may_touch_segment(w, j, c->b, c->b2))
        return;
    c->a = j;
    c->normal = v2(0, 0);
    c->side = 0;
    segment_geometry(w, c);
    if (c->separation >= margin)
        return;
    c->key = contact_key(j, c->shape);
    push_segment_contact(w, c);
}

/// What segment_sweeps needs of the frame: a particle moves fast when it covers more than `cap`
/// over `span` (twice the frame, as the margins); two meet within their radii and `slop`.
typedef struct segment_sweep { double span, cap, slop; } segment_sweep;

/// A fast particle's path over the sweep's span, and the box around it.
typedef struct swept_path { double lo_x, lo_y, hi_x, hi_y; int i; } swept_path;

static int swept_path_order(const void *x, const void *y)
{
    const swept_path *a = x, *b = y;
    const int order = (a->lo_x > b->lo_x) - (a->lo_x < b->lo_x);
    return order ? order : (a->i > b->i) - (a->i < b->i);
}

/// The least distance from point p to the segment a..b.
static double point_segment_distance(sb_vec2 p, sb_vec2 a, sb_vec2 b)
{
    const sb_vec2 d = v2_sub(b, a);
    const double len2 = v2_dot(d, d);
    double t = len2 > 0.0 ? v2_dot(v2_sub(p, a), d) / len2 : 0.0;
    t = t < 0.0 ? 0.0 : t > 1.0 ? 1.0 : t;
    return v2_len(v2_sub(v2_mad(a, t, d), p));
}

/// The least distance between segments p0..p1 and q0..q1 (zero where they cross).
static double segments_distance(sb_vec2 p0, sb_vec2 p1, sb_vec2 q0, sb_vec2 q1)
{
    const sb_vec2 r = v2_sub(p1, p0), s = v2_sub(q1, q0), pq = v2_sub(q0, p0);
    const double denom = r.x * s.y - r.y * s.x;
    if (denom != 0.0) {
        const double t = (pq.x * s.y - pq.y * s.x) / denom, u = (pq.x * r.y - pq.y * r.x) / denom;
        if (t >= 0.0 && t <= 1.0 && u >= 0.0 && u <= 1.0)
            return 0.0;
    }
    double d = point_segment_distance(p0, q0, q1), e = point_segment_distance(p1, q0, q1);
    d = e < d ? e : d;
    e = point_segment_distance(q0, p0, p1);
    d = e < d ? e : d;
    e = point_segment_distance(q1, p0, p1);
    return e < d ? e : d;
}

/// Continuous collision with solid springs and ropes. The margins are capped (so that one fast
/// ball does not list every segment around it), so a particle that covers more than the cap over
/// the frame could cross a segment that no margin lists: each such particle's path, taken against
/// each segment's own motion (its ends' mean velocity), lists the segment as a speculative contact
/// when the two come within their radii and the slop, which the collisions and the solve then take
/// as any other. The fast paths are sorted along x; a segment reads those whose x range meets the
/// box it sweeps.
static void segment_sweeps(sb_world *w, const segment_sweep *sw)
{
    int fast = 0;
    for (int i = 0; i < w->p_high; ++i)
        fast += in_grid(w, i) && v2_len(w->vel[i]) * sw->span > sw->cap;
    if (fast == 0)
        return;
    swept_path *paths = malloc(sizeof *paths * (size_t)fast);
    if (!paths)
        return; // (out of memory: the margins alone this frame)
    int n = 0;
    double widest = 0.0;
    for (int i = 0; i < w->p_high; ++i) {
        if (!in_grid(w, i) || !(v2_len(w->vel[i]) * sw->span > sw->cap))
            continue;
        const sb_vec2 a = w->pos[i], b = v2_mad(a, sw->span, w->vel[i]);
        const double r = w->radius[i] + sw->slop;
        paths[n] = (swept_path){(a.x < b.x ? a.x : b.x) - r, (a.y < b.y ? a.y : b.y) - r, (a.x > b.x ? a.x : b.x) + r,
                                (a.y > b.y ? a.y : b.y) + r, i};
        widest = paths[n].hi_x - paths[n].lo_x > widest ? paths[n].hi_x - paths[n].lo_x : widest;
        n += 1;
    }
    qsort(paths, (size_t)n, sizeof *paths, swept_path_order);
    sb_contact c;
    memset(&c, 0, sizeof c);
    const int springs = w->solid_springs > 0 ? w->s_high : 0, ropes = w->solid_constraints > 0 ? w->c_high : 0;
    for (int q = 0; q < springs + ropes; ++q) {
        if (q < springs) {
            if (w->s_a[q] < 0 || !w->s_solid[q])
                continue;
            c.b = w->s_a[q];
            c.b2 = w->s_b[q];
            c.shape = SHAPE_SEGMENT | (uint32_t)q;
        } else {
            const int k = q - springs;
            if (w->c_kind[k] == 0xFF || !w->c_solid[k])
                continue;
            c.b = w->c_parts[k][0];
            c.b2 = w->c_parts[k][1];
            c.shape = SHAPE_SEGMENT_CONSTRAINT | (uint32_t)k;
        }
        const sb_vec2 pa = w->pos[c.b], pb = w->pos[c.b2];
        const sb_vec2 motion = v2_scale(v2_add(w->vel[c.b], w->vel[c.b2]), 0.5 * sw->span);
        const double r = w->radius[c.b] > w->radius[c.b2] ? w->radius[c.b] : w->radius[c.b2];
        const sb_vec2 ea = v2_mad(pa, sw->span, w->vel[c.b]), eb = v2_mad(pb, sw->span, w->vel[c.b2]);
        const double lo_x = fmin(fmin(pa.x, pb.x), fmin(ea.x, eb.x)) - r, hi_x = fmax(fmax(pa.x, pb.x), fmax(ea.x, eb.x)) + r;
        const double lo_y = fmin(fmin(pa.y, pb.y), fmin(ea.y, eb.y)) - r, hi_y = fmax(fmax(pa.y, pb.y), fmax(ea.y, eb.y)) + r;
        int lo = 0, hi = n; // the first path that may reach lo_x
        while (lo < hi) {
            const int mid = lo + (hi - lo) / 2;
            if (paths[mid].lo_x < lo_x - widest)
                lo = mid + 1;
            else
                hi = mid;
        }
        for (int k = lo; k < n && paths[k].lo_x <= hi_x; ++k) {
            const swept_path *p = &paths[k];
            if (p->hi_x < lo_x || p->lo_y > hi_y || p->hi_y < lo_y || !may_touch_segment(w, p->i, c.b, c.b2))
                continue;
            const sb_vec2 from = w->pos[p->i], to = v2_sub(v2_mad(from, sw->span, w->vel[p->i]), motion);
            if (segments_distance(from, to, pa, pb) >= w->radius[p->i] + r + sw->slop)
                continue;
            c.a = p->i;
            c.normal = v2(0, 0);
            c.side = 0;
            segment_geometry(w, &c);
            c.key = contact_key(p->i, c.shape);
            push_segment_contact(w, &c);
        }
    }
    free(paths);
}

/// Contacts of particles with solid springs, ropes and struts (their `solid`), found through the
/// particles' grid over each one's box, so the cost follows what is near it; merged into
/// contacts_next in key order, ((particle << 32) | SHAPE_SEGMENT | spring) or
/// ((particle << 32) | SHAPE_SEGMENT_CONSTRAINT | constraint).
static void segment_contacts_build(sb_world *w, double inv_cell, double rmax, double margin, bool grid, const segment_sweep *sweep)
{
    w->segment_contact_count = 0;
    sb_contact c;
    memset(&c, 0, sizeof c);
    const int springs = w->solid_springs > 0 ? w->s_high : 0, ropes = w->solid_constraints > 0 ? w->c_high : 0;
    for (int q = 0; q < springs + ropes; ++q) {
        int a, b;
        if (q < springs) {
            if (w->s_a[q] < 0 || !w->s_solid[q])
                continue;
            a = w->s_a[q];
            b = w->s_b[q];
            c.shape = SHAPE_SEGMENT | (uint32_t)q;
        } else {
            int k = q - springs;
            if (w->c_kind[k] == 0xFF || !w->c_solid[k])
                continue;
            a = w->c_parts[k][0];
            b = w->c_parts[k][1];
            c.shape = SHAPE_SEGMENT_CONSTRAINT | (uint32_t)k;
        }
        sb_vec2 pa = w->pos[a], pb = w->pos[b];
        double r = w->radius[a] > w->radius[b] ? w->radius[a] : w->radius[b], reach = r + rmax + margin;
        const sb_vec2 lo = v2((pa.x < pb.x ? pa.x : pb.x) - reach, (pa.y < pb.y ? pa.y : pb.y) - reach);
        const sb_vec2 hi = v2((pa.x < pb.x ? pb.x : pa.x) + reach, (pa.y < pb.y ? pb.y : pa.y) + reach);
        c.b = a;
        c.b2 = b;
        int cx0 = 0, cx1 = 0, cy0 = 0, cy1 = 0;
        if (grid) {
            cx0 = cell_coord(lo.x, inv_cell), cx1 = cell_coord(hi.x, inv_cell);
            cy0 = cell_coord(lo.y, inv_cell), cy1 = cell_coord(hi.y, inv_cell);
        }
        if (grid && (double)(cx1 - cx0 + 1) * (double)(cy1 - cy0 + 1) <= 4.0 * w->grid_size) {
            for (int cy = cy0; cy <= cy1; ++cy)
                for (int cx = cx0; cx <= cx1; ++cx) {
                    unsigned hsh = grid_bucket(w, cx, cy);
                    for (int k = w->grid_start[hsh]; k < w->grid_start[hsh + 1]; ++k) {
                        int j = w->grid_items[k];
                        if (w->cell_x[j] == cx && w->cell_y[j] == cy) // buckets are shared
                            segment_candidate(w, &c, j, lo, hi, margin);
                    }
                }
        } else { // no grid, or a spring longer than the grid is wide: every particle once
            for (int j = 0; j < w->p_high; ++j)
                if (in_grid(w, j))
                    segment_candidate(w, &c, j, lo, hi, margin);
        }
    }
    if (sweep)
        segment_sweeps(w, sweep);
    if (w->segment_contact_count == 0)
        return;
    qsort(w->segment_contacts, (size_t)w->segment_contact_count, sizeof *w->segment_contacts, compare_keys);
    int distinct = 0; // a swept particle may be listed twice (by its margin and by its path)
    for (int k = 0; k < w->segment_contact_count; ++k)
        if (distinct == 0 || w->segment_contacts[distinct - 1].key != w->segment_contacts[k].key)
            w->segment_contacts[distinct++] = w->segment_contacts[k];
    w->segment_contact_count = distinct;
    // merge: both sorted by key, into contacts_next
    int n = w->contact_next_count, m = w->segment_contact_count;
    if (!array_reserve((void **)&w->contacts_next, &w->contact_next_cap, n + m, sizeof *w->contacts_next))
        return; // out of memory: no spring contacts this step
    int i = n - 1, j = m - 1;
    for (int out = n + m - 1; out >= 0; --out) { // from the back, in place
        if (j < 0 || (i >= 0 && w->contacts_next[i].key > w->segment_contacts[j].key))
            w->contacts_next[out] = w->contacts_next[i--];
        else
            w->contacts_next[out] = w->segment_contacts[j--];
    }
    w->contact_next_count = n + m;
}

/// Where a chunk of the narrow phase writes its contacts: contacts_next for the first, a buffer
/// of its own for each other, appended in chunk order (so in key order) afterwards.
typedef struct contact_buffer { sb_contact **items; int *count, *cap; } contact_buffer;

static void push_to(contact_buffer *out, const sb_contact *c)
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

static inline int floor_div(int a, int b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

/// The velocities of block (bx, by) of the grid (hashed like cells: colliding blocks share a box,
/// which only widens it).
static inline velocity_box *block_at(const sb_world *w, int bx, int by)
{
    return &w->block_velocity[cell_hash(bx, by, w->grid_size)];
}

/// The block of cells that particle i is in, `block` cells a side.
static inline void block_of(const sb_world *w, int i, int block, int *bx, int *by)
{
    *bx = floor_div(w->cell_x[i], block);
    *by = floor_div(w->cell_y[i], block);
}

/// Widens box a to hold box b.
static inline void box_take(velocity_box *a, velocity_box b)
{
    a->lo_x = b.lo_x < a->lo_x ? b.lo_x : a->lo_x;
    a->hi_x = b.hi_x > a->hi_x ? b.hi_x : a->hi_x;
    a->lo_y = b.lo_y < a->lo_y ? b.lo_y : a->lo_y;
    a->hi_y = b.hi_y > a->hi_y ? b.hi_y : a->hi_y;
}

/// How many cells either side of its own particle i searches. Cells are at least as wide as two
/// radii and the margin of a pair that closes slowly (slow_margin), so a particle whose every
/// possible partner moves within that of its own velocity finds them all next door, however fast
/// the pile falls; only where velocities differ (where balls land, a ball shot through a pile)
/// does a particle search as far as its own reach and the fastest other's can take it. The
/// partners it could have are all in the 3 x 3 blocks around its own (a block is as wide as the
/// farthest search), whose velocities block_velocity bounds.
static int scan_cells(const narrow_job *job, int i)
{
    if (job->block == 0)
        return 1;
    const sb_world *w = job->w;
    int bx, by;
    block_of(w, i, job->block, &bx, &by);
    velocity_box near = empty_box;
    for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx)
            box_take(&near, *block_at(w, bx + dx, by + dy));
    const sb_vec2 v = w->vel[i];
    const double ux = v.x - near.lo_x > near.hi_x - v.x ? v.x - near.lo_x : near.hi_x - v.x;
    const double uy = v.y - near.lo_y > near.hi_y - v.y ? v.y - near.lo_y : near.hi_y - v.y;
    // the most any of i's pair_margins can be, and how far apart that pair can be listed
    const double range = w->radius[i] + job->rmax + capped_margin(sqrt(ux * ux + uy * uy) * job->twice_dt, job->cap, job->slop);
    const int n = (int)ceil(range / job->cell);
    return n < 1 ? 1 : n > job->block ? job->block : n;
}

/// Most partners within reach a particle takes in a step, and most it keeps in the pairs list
/// (past that the list is not reused).
enum { NEAR_MAX = 512, PAIRS_PER_PARTICLE = 256 };

// Appends i's partners to its chunk's part of the pairs list.
static void push_partners(sb_world *w, int chunk, const int *partners, int n)
{
    if (n == 0)
        return;
    int **items = chunk == 0 ? &w->pairs_list : &w->chunk_pairs[chunk];
    int *count = chunk == 0 ? &w->pairs_list_count : &w->chunk_pair_count[chunk];
    int *cap = chunk == 0 ? &w->pairs_list_cap : &w->chunk_pair_cap[chunk];
    if (!array_reserve((void **)items, cap, *count + n, sizeof **items)) {
        w->chunk_pairs_overflow[chunk] = true; // out of memory: the list is incomplete, so not reused
        return;
    }
    memcpy(*items + *count, partners, sizeof *partners * (size_t)n);
    *count += n;
}

// Partners within reach of i (j > i, not both fixed), from the grid, unsorted; those within reach
// plus the skin go to the pairs list, sorted, for the steps that reuse it. Returns the count.
static int near_from_grid(const narrow_job *job, int chunk, int i, int near[NEAR_MAX], sb_vec2 near_d[NEAR_MAX])
{
    sb_world *w = job->w;
    const bool keep = job->keep;
    const sb_vec2 vi = w->vel[i];
    int count = 0, kept = 0;
    int partners[PAIRS_PER_PARTICLE];
    const double xi = w->pos[i].x, yi = w->pos[i].y, ri = w->radius[i], reach_i = w->reach[i];
    const bool fixed_i = w->inv_mass[i] == 0.0;
    const double skin = w->pair_skin;
    const int cell_x = w->cell_x[i], cell_y = w->cell_y[i], n = scan_cells(job, i);
    const bool dense = w->grid_dense;
    w->chunk_wide_searches[chunk] += n > 1;
    for (int dy = -n; dy <= n; ++dy) {
        for (int dx = -n; dx <= n; ++dx) {
            int cx = cell_x + dx, cy = cell_y + dy;
            const unsigned hsh = grid_bucket(w, cx, cy);
            const int k0 = w->grid_start[hsh], k1 = w->grid_start[hsh + 1];
            int k = k0;
            if (dense) // a bucket is one cell, its particles in index order: those after i at its end
                for (k = k1; k > k0 && w->grid_items[k - 1] > i; --k) {
                }
            for (; k < k1; ++k) {
                const grid_entry *e = &w->grid_entries[k];
                int j = e->index;
                // j's own cell must be the one asked for: hashed buckets are shared by
                // colliding cells, and this keeps every pair found exactly once.
                if (!dense && (j <= i || e->cx != cx || e->cy != cy))
                    continue;
                double reach = ri + e->radius + pair_reach(job, reach_i, e->reach);
                double ddx = e->x - xi, ddy = e->y - yi, d2 = ddx * ddx + ddy * ddy;
                if (keep && d2 < (reach + skin) * (reach + skin)) {
                    if (kept < PAIRS_PER_PARTICLE)
                        partners[kept++] = j;
                    else
                        w->chunk_pairs_overflow[chunk] = true;
                }
                if ((fixed_i && w->inv_mass[j] == 0.0) || d2 >= reach * reach ||
                    !within_pair_margin(job, d2, ri + e->radius, vi, v2(e->vx, e->vy)))
                    continue;
                if (count < NEAR_MAX) {
                    near[count] = j;
                    near_d[count] = v2(ddx, ddy);
                    count += 1;
                }
            }
        }
    }
    for (int k = 1; k < kept; ++k) { // in key order, as the reuse reads them
        int j = partners[k], m = k;
        for (; m > 0 && partners[m - 1] > j; --m)
            partners[m] = partners[m - 1];
        partners[m] = j;
    }
    if (keep) {
        w->pairs_start[i + 1] = kept;
        push_partners(w, chunk, partners, kept);
    }
    return count;
}

// The same partners from the pairs list: a superset of what the grid would give (contacts_build),
// already in key order, put through the same test.
static int near_from_pairs_list(const narrow_job *job, int i, int near[NEAR_MAX], sb_vec2 near_d[NEAR_MAX])
{
    const sb_world *w = job->w;
    const sb_vec2 vi = w->vel[i];
    int count = 0;
    const double xi = w->pos[i].x, yi = w->pos[i].y, ri = w->radius[i], reach_i = w->reach[i];
    const bool fixed_i = w->inv_mass[i] == 0.0;
    for (int k = w->pairs_start[i]; k < w->pairs_start[i + 1]; ++k) {
        int j = w->pairs_list[k];
        double reach = ri + w->radius[j] + pair_reach(job, reach_i, w->reach[j]);
        double ddx = w->pos[j].x - xi, ddy = w->pos[j].y - yi, d2 = ddx * ddx + ddy * ddy;
        if ((fixed_i && w->inv_mass[j] == 0.0) || d2 >= reach * reach ||
            !within_pair_margin(job, d2, ri + w->radius[j], vi, w->vel[j]))
            continue;
        near[count] = j; // at most PAIRS_PER_PARTICLE < NEAR_MAX
        near_d[count] = v2(ddx, ddy);
        count += 1;
    }
    return count;
}

/// Whether particles i and j may be a contact, their margin aside: they collide (groups, masks)
/// and no spring joins them (springs own the distance between their ends; a particle with none is
/// joined to nothing). The narrow phase has already left out pairs that are both fixed.
static bool pair_may_touch(const sb_world *w, int i, int j)
{
    return particles_should_collide(w, i, j) && !(w->degree[i] > 0 && w->degree[j] > 0 && joined_by_spring(w, i, j));
}

/// How far a particle reaches to the walls and the bounds: its own reach, or all that its speed
/// closes over the frame where that is more. Walls have their own broad phase (wall_tree.c), so
/// the cap that keeps a fast particle's pairs few need not hold them: without it a ball at 30 m/s
/// met a wall only once inside it, and bounced from there.
static inline double static_reach(const sb_world *w, int i)
{
    const double closing = v2_len(w->vel[i]) * 2.0 * w->def.dt;
    return closing > w->reach[i] ? closing : w->reach[i];
}

/// The walls and the bounds a particle may touch within `reach` of its centre, in shape order (walls
/// by number, then the bounds), as static_shapes_next hands them out: the walls from the walls'
/// broad phase (wall_tree.c), or, out of memory, every live wall.
typedef struct static_shapes {
    walls_near near;
    bool every;
    int at, bounds;
} static_shapes;

static void static_shapes_near(const sb_world *w, sb_vec2 p, double reach, static_shapes *s)
{
    // a box a little wider than the reach: rounding never leaves out a wall the geometry would take
    const double half = reach * (1.0 + 1e-6) + 1e-12 * (fabs(p.x) + fabs(p.y) + reach);
    s->near.walls = s->near.stack;
    s->near.count = 0;
    s->every = w->w_alive > 0 && !walls_near_find(w, p.x - half, p.y - half, p.x + half, p.y + half, &s->near);
    s->at = s->bounds = 0;
}

/// The next shape (a wall's number, or SHAPE_BOUND + side); false when there are no more (and
/// what the walls took is let go).
static bool static_shapes_next(const sb_world *w, static_shapes *s, uint32_t *shape)
{
    if (s->every) { // every wall
        while (s->at < w->w_high && !w->w_alive_flag[s->at])
            s->at += 1;
        if (s->at < w->w_high) {
            *shape = (uint32_t)s->at++;
            return true;
        }
    } else if (s->at < s->near.count) {
        *shape = (uint32_t)s->near.walls[s->at++];
        return true;
    }
    walls_near_free(&s->near);
    s->at = s->near.count = 0;
    s->every = false;
    if (!w->def.has_bounds || s->bounds == 4)
        return false;
    *shape = SHAPE_BOUND + (uint32_t)s->bounds++;
    return true;
}

/// A contact of particle a with nothing yet: no partner, no segment, no impulses.
static sb_contact contact_of(int a)
{
    sb_contact c;
    memset(&c, 0, sizeof c);
    c.a = a;
    c.b = -1;
    c.b2 = -1;
    return c;
}

// The narrow phase of particles [from, to): their walls, bounds and pairs (j > i) within reach,
// each particle's in key order. Particles are independent here (each reads positions and the
// grid, writes only its own contacts), so chunks run on the world's threads.
static void narrow_range(void *ctx, int chunk, int from, int to)
{
    const narrow_job *job = ctx;
    sb_world *w = job->w;
    const bool pairs = job->pairs;
    contact_buffer buffer = chunk == 0 ? (contact_buffer){&w->contacts_next, &w->contact_next_count, &w->contact_next_cap}
                                       : (contact_buffer){&w->chunk_contacts[chunk], &w->chunk_contact_count[chunk],
                                                          &w->chunk_contact_cap[chunk]};
    contact_buffer *out = &buffer;
    int near[NEAR_MAX];
    sb_vec2 near_d[NEAR_MAX]; // from i to each candidate
    for (int i = from; i < to; ++i) {
        if (job->keep)
            w->pairs_start[i + 1] = 0; // near_from_grid sets it where i has partners to look for
        if (!particle_alive(w, i))
            continue;
        sb_contact c = contact_of(i);
        if (w->inv_mass[i] > 0.0) {
            static_shapes s;
            const double reach = static_reach(w, i);
            static_shapes_near(w, w->pos[i], w->radius[i] + reach, &s);
            w->chunk_walls_met[chunk] += s.every ? w->w_alive : s.near.count;
            while (static_shapes_next(w, &s, &c.shape)) {
                c.side = 0;
                static_shape_geometry(w, &c);
                if (c.separation < reach) {
                    c.key = contact_key(i, c.shape);
                    push_to(out, &c);
                }
            }
        }
        if (!pairs || !in_grid(w, i))
            continue;
        const double ri = w->radius[i];
        int count = job->reuse ? near_from_pairs_list(job, i, near, near_d) : near_from_grid(job, chunk, i, near, near_d);
        if (count == 0)
            continue;
        // in key order, for the warm starts' merge: a handful each, so an insertion sort (qsort's
        // calls through a pointer cost more than the sorting)
        for (int k = 1; k < count; ++k) {
            int j = near[k], m = k;
            sb_vec2 d = near_d[k];
            for (; m > 0 && near[m - 1] > j; --m) {
                near[m] = near[m - 1];
                near_d[m] = near_d[m - 1];
            }
            near[m] = j;
            near_d[m] = d;
        }
        for (int k = 0; k < count; ++k) {
            int j = near[k];
            if (!pair_may_touch(w, i, j))
                continue;
            c.b = j;
            c.shape = SHAPE_PARTICLE | (uint32_t)j;
            c.key = contact_key(i, c.shape);
            // pair_geometry's arithmetic on the distance already found
            const sb_vec2 d = near_d[k];
            const double len = v2_len(d);
            c.normal = len > 1e-12 ? v2_scale(d, 1.0 / len) : v2(0, 1);
            c.separation = len - ri - w->radius[j];
            push_to(out, &c);
        }
        c.b = -1;
    }

}

// The pairs list holds while no particle has moved, grown or widened its reach by more than half
// the skin since it was made, the same particles are in the grid and the cap on a pair's reach
// has not grown: a pair missing from it was farther apart than its radii and its pair_reach plus
// the skin, and each of its two has since closed at most half the skin of that gap.
static void holds_range(void *ctx, int chunk, int from, int to)
{
    scan_job *job = ctx;
    const sb_world *w = job->w;
    const double half_skin = 0.5 * w->pair_skin;
    bool broken = false;
    for (int i = from; i < to && !broken; ++i) {
        bool collides = in_grid(w, i);
        broken = collides != (bool)w->pairs_collides[i];
        if (!collides || broken)
            continue;
        double grew = w->radius[i] - w->pairs_radius[i], widened = w->reach[i] - w->pairs_reach[i];
        double closed = v2_len(v2_sub(w->pos[i], w->pairs_pos[i])) + (grew > 0.0 ? grew : 0.0) +
                        (widened > 0.0 ? widened : 0.0);
        broken = closed > half_skin;
    }
    job->part[chunk].any = broken;
}

static bool pairs_list_holds(sb_world *w)
{
    if (!w->pairs_valid || w->pairs_p_high != w->p_high)
        return false;
    scan_job job = {.w = w};
    const int chunks = sb_pool_for_chunks(w->pool, w->p_high, PARTICLES_PER_THREAD, holds_range, &job);
    for (int k = 0; k < chunks; ++k)
        if (job.part[k].any)
            return false;
    return true;
}

// After the grid ran: the chunks' partners appended in chunk order (particle order), the counts
// made starts, and what each particle was when the list was made.
static void pairs_list_finish(sb_world *w, int chunks)
{
    bool ok = true;
    for (int k = 0; k < chunks; ++k)
        ok = ok && !w->chunk_pairs_overflow[k];
    for (int k = 1; k < chunks && ok; ++k) {
        int n = w->chunk_pair_count[k];
        if (n > 0 && !array_reserve((void **)&w->pairs_list, &w->pairs_list_cap, w->pairs_list_count + n, sizeof *w->pairs_list))
            ok = false;
        else if (n > 0) {
            memcpy(w->pairs_list + w->pairs_list_count, w->chunk_pairs[k], sizeof *w->pairs_list * (size_t)n);
            w->pairs_list_count += n;
        }
    }
    w->pairs_valid = ok;
    w->pairs_builds += 1;
    if (!ok)
        return;
    w->pairs_start[0] = 0;
    for (int i = 0; i < w->p_high; ++i) {
        w->pairs_start[i + 1] += w->pairs_start[i];
        w->pairs_pos[i] = w->pos[i];
        w->pairs_reach[i] = w->reach[i];
        w->pairs_radius[i] = w->radius[i];
        w->pairs_collides[i] = in_grid(w, i);
    }
    w->pairs_p_high = w->p_high;
}

/// What a contact's colour was taken from (sb_warm.moves), articulation aside (articulations_find
/// marks it later): which of its ends move, and whether it is a solid spring's.
static uint8_t contact_moves(const sb_world *w, const sb_contact *c)
{
    if (c->b2 >= 0)
        return WARM_SEGMENT;
    return (uint8_t)((w->inv_mass[c->a] > 0.0 ? WARM_A_MOVES : 0) | (c->b >= 0 && w->inv_mass[c->b] > 0.0 ? WARM_B_MOVES : 0));
}

// Warm start from the last committed step: the new list and its warm starts are both sorted by
// key, so a range of the new one finds where its first key would be in the old one and walks
// both from there. Each contact on its own: on the world's threads.
static void warm_range(void *ctx, int from, int to)
{
    sb_world *w = ctx;
    if (from >= to)
        return;
    const sb_warm *warm = w->warm;
    int old = 0, hi = w->contact_count;
    const uint64_t first = w->contacts_next[from].key;
    while (old < hi) {
        int mid = (old + hi) / 2;
        if (warm[mid].key < first)
            old = mid + 1;
        else
            hi = mid;
    }
    int unmatched = 0;
    for (int k = from; k < to; ++k) {
        sb_contact *c = &w->contacts_next[k];
        while (old < w->contact_count && warm[old].key < c->key)
            old += 1;
        if (old < w->contact_count && warm[old].key == c->key) {
            c->normal_impulse = warm[old].normal_impulse;
            c->tangent_impulse = warm[old].tangent_impulse;
            c->rolling_impulse = warm[old].rolling_impulse;
            c->slip = warm[old].slip;
            if (warm[old].side != 0) // a wall's face, once taken, is kept (static_geometry)
                c->side = warm[old].side;
            c->color = warm[old].color;
            unmatched += warm[old].moves != contact_moves(w, c);
            c->fresh = false;
        } else {
            unmatched += 1;
            c->fresh = true;
        }
        c->friction = contact_combined_friction(w, c->a, c->b);
        c->restitution = contact_combined_restitution(w, c->a, c->b);
        c->rolling_resistance = contact_combined_rolling_resistance(w, c->a, c->b);
    }
    if (unmatched > 0) // an integer count: the same total whatever the order
        __atomic_fetch_add(&w->colors_unmatched, unmatched, __ATOMIC_RELAXED);
}

/// Each particle's speed (made its reach below, once rmax is known), and each chunk's fastest
/// live particle, largest collider and count of colliders.
static void speeds_range(void *ctx, int chunk, int from, int to)
{
    scan_job *job = ctx;
    sb_world *w = job->w;
    particle_scan found = {0.0, 0.0, 0, false};
    for (int i = from; i < to; ++i) {
        double speed = w->reach[i] = v2_len(w->vel[i]);
        if (!particle_alive(w, i))
            continue;
        if (speed > found.vmax)
            found.vmax = speed;
        if ((w->p_flags[i] & PARTICLE_COLLIDE) && w->radius[i] > 0.0) {
            found.colliders += 1;
            if (w->radius[i] > found.rmax)
                found.rmax = w->radius[i];
        }
    }
    job->part[chunk] = found;
}

typedef struct reach_job { sb_world *w; double twice_dt, cap, slop; } reach_job;

static void reach_range(void *ctx, int from, int to)
{
    const reach_job *job = ctx;
    double *reach = job->w->reach;
    for (int i = from; i < to; ++i)
        reach[i] = capped_margin(reach[i] * job->twice_dt, job->cap, job->slop);
}

typedef struct append_job { sb_world *w; int at[SB_POOL_MAX_THREADS]; } append_job;

static void append_range(void *ctx, int chunk, int from, int to)
{
    (void)chunk;
    append_job *job = ctx;
    sb_world *w = job->w;
    for (int k = from; k < to; ++k)
        if (job->at[k] >= 0)
            memcpy(w->contacts_next + job->at[k], w->chunk_contacts[k], sizeof *w->contacts_next * (size_t)w->chunk_contact_count[k]);
}

// The narrow phase's chunks after the first (which wrote into contacts_next) follow it in chunk
// order, which is key order. Each chunk is copied on the thread that found it, where it is in
// cache: copied on the caller, the 4000-ball pit's 1.7 MB of contacts a step were 1.5% of a
// two-thread step and left the other thread waiting. A chunk with nothing to copy (empty, it may
// have no buffer yet), or that does not fit (out of memory), is skipped this step.
static void append_chunk_contacts(sb_world *w, int chunks)
{
    append_job job = {.w = w, .at = {-1}};
    int total = w->contact_next_count;
    for (int k = 1; k < chunks; ++k) {
        const int n = w->chunk_contact_count[k];
        const bool fits = n > 0 && array_reserve((void **)&w->contacts_next, &w->contact_next_cap, total + n,
                                                 sizeof *w->contacts_next);
        job.at[k] = fits ? total : -1;
        total += fits ? n : 0;
    }
    if (total > w->contact_next_count)
        sb_pool_for_chunks(w->pool, chunks, 1, append_range, &job);
    w->contact_next_count = total;
}

// Stops that travel. A pair's margin covers the speed at which its two close when the
// frame begins (pair_margin), so two balls falling together 1 cm apart, closing at 0, were not a
// pair: when the floor stopped the lower one, the upper went 7 cm into it within the frame,
// unresisted. A block of 8 x 8 balls with 1 cm between rows, dropped 1 m, ended with balls 113%
// of a radius into each other (190% in verlet and xpbd, which pushed that out as 100 to 256% of
// the fall's energy), and a heavy ball shot into a row of light ones took them through each
// other and onto the wall. So each particle also carries what its contacts may do to it this
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
    particle_stop *p = &w->stop[j];
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
    if (walks && !(w->stop_queued[j] & STOP_WALKER)) {
        w->stop_queued[j] |= STOP_WALKER;
        changed = true;
    }
    if (!changed || !(w->stop_queued[j] & STOP_WALKER) || (w->stop_queued[j] & STOP_QUEUED))
        return;
    w->stop_queued[j] |= STOP_QUEUED;
    w->stop_queue[(s->head + s->queued++) % w->p_high] = j;
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
    push_to(&(contact_buffer){&w->stop_contacts, &w->stop_contact_count, &w->stop_contact_cap}, &c);
}

/// Particle i's partners from the grid that it may meet within the frame at any stop (the two at
/// most as fast as the fastest there is, each), that collide with it, kept for its later visits:
/// a particle walks a few times a frame, and the grid's 7 x 7 cells were most of its cost.
static bool stop_candidates(stop_walk *s, int i)
{
    sb_world *w = s->w;
    const double ri = w->radius[i], search = s->most_search + s->skin;
    const sb_vec2 pi = w->pos[i];
    const int n = (int)ceil((ri + s->job->rmax + search) / w->grid_cell);
    w->stop_cand_at[i] = w->stop_cand_count;
    w->stop_cand_n[i] = 0;
    for (int dy = -n; dy <= n; ++dy)
        for (int dx = -n; dx <= n; ++dx) {
            const int cx = w->cell_x[i] + dx, cy = w->cell_y[i] + dy;
            const unsigned hsh = grid_bucket(w, cx, cy);
            for (int k = w->grid_start[hsh]; k < w->grid_start[hsh + 1]; ++k) {
                const grid_entry *e = &w->grid_entries[k];
                const int j = e->index;
                const sb_vec2 d = v2_sub(w->pos[j], pi);
                const double d2 = v2_dot(d, d), far = ri + e->radius + search;
                if (d2 >= far * far || j == i || e->cx != cx || e->cy != cy || !in_grid(w, j) ||
                    (w->inv_mass[i] == 0.0 && w->inv_mass[j] == 0.0) || !pair_may_touch(w, i, j))
                    continue;
                if (!array_reserve((void **)&w->stop_cands, &w->stop_cand_cap, w->stop_cand_count + 1, sizeof *w->stop_cands)) {
                    w->stop_cand_at[i] = -1;
                    return false;
                }
                const double len = sqrt(d2);
                const sb_vec2 normal = len > 1e-12 ? v2_scale(d, 1.0 / len) : v2(0, 1);
                w->stop_cands[w->stop_cand_count++] =
                    (stop_partner){normal, d2, len - ri - e->radius, v2_dot(w->vel[j], normal), j};
                w->stop_cand_n[i] += 1;
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
    if (w->stop_cand_at[i] < 0 && !stop_candidates(s, i))
        return; // out of memory: i's pairs wait for the next frame
    const sb_vec2 vi = w->vel[i];
    const double ri = w->radius[i], reach_i = w->reach[i], left = s->frame - w->stop[i].time;
    const stop_partner *cand = w->stop_cands + w->stop_cand_at[i];
    for (int k = 0; k < w->stop_cand_n[i]; ++k) {
        const int j = cand[k].index;
        if (list && (w->stop_queued[j] & STOP_WALKER) && j < i) // j lists the pair
            continue;
        const sb_vec2 normal = cand[k].normal, vj = w->vel[j]; // (from i to j)
        const double gap = cand[k].gap, rj = w->radius[j], radii = ri + rj;
        // the fastest the two may close: i at any velocity its stop allows, and j too when
        // listing; walking, j at its own (what j's stop is at the time must not matter, or the
        // order of the walk would)
        const double toward = box_support(&w->stop[i].box, normal);
        const double closing = toward - (list ? -box_support(&w->stop[j].box, v2_scale(normal, -1.0)) : cand[k].along);
        const double depth = closing * left - (gap > 0.0 ? gap : 0.0); // into each other by the frame's end
        if (closing <= 0.0 || depth <= (list ? stop_tolerance * (ri < rj ? ri : rj) : 0.0))
            continue;
        if (!list) {
            // contacts push j away from i, along the normal, as fast as i may come at it
            bool walks;
            if (toward > cand[k].along) {
                const double inv_pusher = w->stop[i].inv_pusher; // i, or what pushes it
                const sb_vec2 to = pushed_velocity(w, j, normal, toward, inv_pusher, s->slight, &walks);
                stop_reach(s, j, to, w->stop[i].time + (gap > 0.0 ? gap / closing : 0.0), inv_pusher, walks);
            }
            continue;
        }
        const double reach = radii + pair_reach(job, reach_i, w->reach[j]), d2 = cand[k].d2;
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
    const double left = s->frame - w->stop[i].time, tolerance = stop_tolerance * w->radius[i];
    // what the stop's velocities can close in the time left, at most, and what the narrow phase took
    const velocity_box *v = &w->stop[i].box;
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
        if (box_support(&w->stop[i].box, c.normal) * left - c.separation <= tolerance)
            continue;
        c.key = contact_key(i, c.shape);
        push_to(&(contact_buffer){&w->stop_contacts, &w->stop_contact_count, &w->stop_contact_cap}, &c);
    }
}

/// Merges stop_contacts[0 .. count), each pair once, into contacts_next, both in key order.
static void merge_stop_contacts(sb_world *w, int count)
{
    if (count == 0)
        return;
    qsort(w->stop_contacts, (size_t)count, sizeof *w->stop_contacts, compare_keys);
    int distinct = 0;
    for (int k = 0; k < count; ++k)
        if (distinct == 0 || w->stop_contacts[distinct - 1].key != w->stop_contacts[k].key)
            w->stop_contacts[distinct++] = w->stop_contacts[k];
    const int n = w->contact_next_count;
    if (!array_reserve((void **)&w->contacts_scratch, &w->contacts_scratch_cap, n + distinct, sizeof *w->contacts_scratch))
        return; // (out of memory: the pairs wait for the next frame)
    int a = 0, b = 0, out = 0;
    while (a < n || b < distinct)
        w->contacts_scratch[out++] = b == distinct || (a < n && w->contacts_next[a].key < w->stop_contacts[b].key)
                                         ? w->contacts_next[a++]
                                         : w->stop_contacts[b++];
    swap_contact_lists(&w->contacts_next, &w->contact_next_cap, &w->contacts_scratch, &w->contacts_scratch_cap);
    w->contact_next_count = out;
}

/// The stops of this frame, from the contacts the narrow phase listed, carried over the grid to
/// the partners they reach; the pairs they bring within the tolerance are merged into the list
/// in key order. Serial: it runs only in a frame where something meets something fast (a landing,
/// a hit), over the particles the stops reach, in a fixed order, so threads do not change it.
static void stops_list_pairs(sb_world *w, const narrow_job *job)
{
    const double frame = 0.5 * job->twice_dt, slight = 4.0 * job->slop / frame;
    int first = 0; // the first contact that closes fast (none: no stops this frame)
    while (first < w->contact_next_count &&
           (w->contacts_next[first].b2 >= 0 || contact_closing(w, &w->contacts_next[first]) < slight))
        first += 1;
    if (first == w->contact_next_count || w->grid_cell <= 0.0)
        return;
    stop_walk s = {.w = w, .job = job, .frame = frame, .slight = slight,
                   .skin = job->reuse ? w->pair_skin : 0.0, .all = velocity_point(v2(0, 0))};
    for (int i = 0; i < w->p_high; ++i) {
        w->stop[i] = (particle_stop){velocity_rounded(w->vel[i], 0.25 * slight), frame, w->inv_mass[i]};
        w->stop_queued[i] = 0;
        w->stop_cand_at[i] = -1;
        box_take(&s.all, w->stop[i].box);
    }
    s.fastest = box_fastest(&s.all);
    const double meet_at_most = 2.0 * s.fastest * frame, cap = job->cap + job->slop;
    s.most_search = meet_at_most < cap ? meet_at_most : cap;
    w->stop_cand_count = 0;
    // a contact that closes may bring each end to the other's velocity (a wall's to rest), in
    // its share of the two's momentum past rest, once they meet; each end walks
    for (int k = first; k < w->contact_next_count; ++k) {
        const sb_contact *c = &w->contacts_next[k];
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
        if (w->stops_last_first) { // (tests: the order must not matter)
            s.queued -= 1;
            i = w->stop_queue[(s.head + s.queued) % w->p_high];
        } else {
            i = w->stop_queue[s.head];
            s.head = (s.head + 1) % w->p_high;
            s.queued -= 1;
        }
        w->stop_queued[i] &= (uint8_t)~STOP_QUEUED;
        if (in_grid(w, i))
            stop_visit(&s, i, false);
    }
    w->stop_contact_count = 0;
    for (int i = 0; i < w->p_high; ++i)
        if (w->stop_queued[i] & STOP_WALKER) {
            stop_list_walls(&s, i);
            if (in_grid(w, i))
                stop_visit(&s, i, true);
        }
    merge_stop_contacts(w, w->stop_contact_count);
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

/// Whether contacts_next (sorted by key) holds `key`.
static bool listed(const sb_world *w, uint64_t key)
{
    int lo = 0, hi = w->contact_next_count;
    while (lo < hi) {
        const int mid = lo + (hi - lo) / 2;
        if (w->contacts_next[mid].key < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < w->contact_next_count && w->contacts_next[lo].key == key;
}

/// A particle whose speed closes more than the pairs' margin cap over the frame could go through
/// what it meets unlisted (the pairs' margins are capped, so that one fast ball does not list
/// every pair around it): its path over twice the frame (a partner as fast, coming the other way,
/// is met halfway) is walked cell by cell through the grid, and every particle whose own motion
/// brings it within reach of it in that time is listed as a speculative contact, which the
/// collisions and the solve then take as any other (continuous collision, as the walls have).
static void sweeps_list_pairs(sb_world *w, const narrow_job *job)
{
    if (w->grid_cell <= 0.0)
        return;
    const double span = job->twice_dt, cell = w->grid_cell, inv_cell = 1.0 / cell;
    int count = 0;
    for (int i = 0; i < w->p_high; ++i) {
        if (!in_grid(w, i) || v2_len(w->vel[i]) * span <= job->cap)
            continue;
        const sb_vec2 from = w->pos[i], to = v2_mad(from, span, w->vel[i]);
        const double inflate = w->radius[i] + job->rmax + job->cap + job->slop;
        const int n = (int)ceil(inflate * inv_cell);
        // the cells along the path, a cell a step (a step of half a cell at the least): each
        // visited with the n around it, the partners tested once a cell
        const double length = v2_len(v2_sub(to, from));
        const int steps = (int)ceil(length / (0.5 * cell)) + 1;
        int last_cx = INT_MIN, last_cy = INT_MIN;
        for (int s = 0; s <= steps; ++s) {
            const sb_vec2 at = v2_mad(from, (double)s / steps, v2_sub(to, from));
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
                    for (int k = w->grid_start[hsh]; k < w->grid_start[hsh + 1]; ++k) {
                        const grid_entry *e = &w->grid_entries[k];
                        const int j = e->index;
                        if (j == i || e->cx != cx || e->cy != cy || (w->inv_mass[i] == 0.0 && w->inv_mass[j] == 0.0) ||
                            !pair_may_touch(w, i, j) || !paths_meet(w, i, j, span, job->slop))
                            continue;
                        const int a = i < j ? i : j, b = i < j ? j : i;
                        sb_contact c = contact_of(a);
                        c.b = b;
                        c.shape = SHAPE_PARTICLE | (uint32_t)b;
                        c.key = contact_key(a, c.shape);
                        if (listed(w, c.key))
                            continue;
                        const sb_vec2 d = v2_sub(w->pos[b], w->pos[a]);
                        const double len = v2_len(d);
                        c.normal = len > 1e-12 ? v2_scale(d, 1.0 / len) : v2(0, 1);
                        c.separation = len - w->radius[a] - w->radius[b];
                        push_to(&(contact_buffer){&w->stop_contacts, &count, &w->stop_contact_cap}, &c);
                    }
                }
            last_cx = ccx;
            last_cy = ccy;
        }
    }
    merge_stop_contacts(w, count); // (two fast particles may both find a pair: merged once)
}

void contacts_build(sb_world *w)
{
    if (w->walls_dirty || (!w->wall_tree && w->w_alive > 0)) {
        if (w->walls_dirty)
            link_walls(w);
        wall_tree_build(w);
    }
    rolling_prepare(w);
    w->contact_next_count = 0;
    double rmax = 0.0, vmax = 0.0;
    int colliders = 0;
    {
        scan_job job = {.w = w};
        const int chunks = sb_pool_for_chunks(w->pool, w->p_high, PARTICLES_PER_THREAD, speeds_range, &job);
        for (int k = 0; k < chunks; ++k) {
            vmax = job.part[k].vmax > vmax ? job.part[k].vmax : vmax;
            rmax = job.part[k].rmax > rmax ? job.part[k].rmax : rmax;
            colliders += job.part[k].colliders;
        }
    }
    // Speculative margin: what can close in one frame, within reason; beyond it, use sub-steps.
    // Each particle's own reach is twice its speed over the frame (its walls and bounds take it;
    // `margin` is the world's largest, which the solid springs take) and each pair's is twice
    // the speed its two close at (pair_margin). A margin from the world's
    // fastest particle listed 225k contacts for 31k touching in a 16000-ball pit, one fast ball
    // widening every slow pair; the larger of a pair's own reaches still listed 120k for 13k
    // touching while the pit fell, every ball beside its neighbour falling as fast.
    const double margin_cap = rmax > 0.0 ? 4.0 * rmax : 0.5, slop = 0.05 * (rmax > 0.0 ? rmax : 0.1);
    const double twice_dt = 2.0 * w->def.dt, margin = capped_margin(vmax * twice_dt, margin_cap, slop);
    reach_job reaches = {w, twice_dt, margin_cap, slop};
    sb_pool_for(w->pool, w->p_high, 1, PARTICLES_PER_THREAD, reach_range, &reaches);

    const bool pairs = w->def.collisions && colliders > 1;
    // Solid springs take their candidates from the grid, so with any the grid runs every step.
    const bool list_kept = pairs && w->solid_springs == 0 && w->solid_constraints == 0;
    const bool reuse = list_kept && margin_cap + slop <= w->pairs_reach_cap && pairs_list_holds(w);
    // the most a pair's reach can be (pair_reach): the grid's cells hold it and the skin
    const double pair_reach_max = 2.0 * margin < margin_cap + slop ? 2.0 * margin : margin_cap + slop;
    // While something moves fast, cells that hold the fastest pair's reach are three times as wide
    // as the balls: each ball of a falling 16000-ball pit read 160 others a step, where its
    // neighbours fall with it. Then cells hold a slowly closing pair (slow_margin) and a particle
    // searches farther only where velocities around it differ (scan_cells); the pairs list,
    // which a fast particle would void at once, is not kept.
    const double slow_margin = 0.5 * rmax + slop;
    const bool fast = pairs && !reuse && pair_reach_max > 2.0 * slow_margin && !w->grid_as_before;
    const bool keep = list_kept && !reuse && !fast;
    if (!reuse) { // a quarter of the largest radius: a resting pile keeps its list for good
        w->pair_skin = keep ? 0.25 * rmax : 0.0;
        w->pairs_reach_cap = margin_cap + slop;
    }
    double inv_cell = 0.0, cell = 0.0;
    int block = 0;
    if (pairs && !reuse) {
        // (a pair within a cell's width of each other is in neighbouring cells, rounding aside)
        cell = fast ? (2.0 * rmax + slow_margin) * (1.0 + 1e-9) : 2.0 * rmax + pair_reach_max + w->pair_skin;
        block = fast ? (int)ceil((2.0 * rmax + pair_reach_max) / cell) : 0;
        inv_cell = 1.0 / cell;
        w->grid_cell = cell;
        int size = w->grid_size;
        memset(w->grid_start, 0, sizeof(int) * (size_t)(size + 1));
        int x0 = INT_MAX, y0 = INT_MAX, x1 = INT_MIN, y1 = INT_MIN;
        for (int i = 0; i < w->p_high; ++i) {
            if (!in_grid(w, i))
                continue;
            const int cx = w->cell_x[i] = cell_coord(w->pos[i].x, inv_cell);
            const int cy = w->cell_y[i] = cell_coord(w->pos[i].y, inv_cell);
            x0 = cx < x0 ? cx : x0;
            x1 = cx > x1 ? cx : x1;
            y0 = cy < y0 ? cy : y0;
            y1 = cy > y1 ? cy : y1;
        }
        const double cells = ((double)x1 - x0 + 1.0) * ((double)y1 - y0 + 1.0);
        w->grid_dense = x0 <= x1 && cells < size && !w->grid_as_before; // (the last bucket kept empty for the cells outside)
        w->grid_x0 = x0;
        w->grid_y0 = y0;
        w->grid_nx = w->grid_dense ? x1 - x0 + 1 : 0;
        w->grid_ny = w->grid_dense ? y1 - y0 + 1 : 0;
        for (int i = 0; i < w->p_high; ++i)
            if (in_grid(w, i))
                w->grid_start[grid_bucket(w, w->cell_x[i], w->cell_y[i]) + 1] += 1;
        for (int k = 0; k < size; ++k)
            w->grid_start[k + 1] += w->grid_start[k];
        // Counting sort into buckets; filled in particle order, so deterministic.
        for (int i = 0; i < w->p_high; ++i) {
            if (!in_grid(w, i))
                continue;
            unsigned hsh = grid_bucket(w, w->cell_x[i], w->cell_y[i]);
            int slot = w->grid_start[hsh]++;
            w->grid_items[slot] = i;
            w->grid_entries[slot] = (grid_entry){w->pos[i].x, w->pos[i].y, w->vel[i].x, w->vel[i].y, w->radius[i],
                                                 w->reach[i], i, w->cell_x[i], w->cell_y[i]};
        }
        for (int k = size; k > 0; --k) // undo the shift left by filling
            w->grid_start[k] = w->grid_start[k - 1];
        w->grid_start[0] = 0;
        for (int i = 0; block > 0 && i < w->p_high; ++i)
            if (in_grid(w, i)) {
                int bx, by;
                block_of(w, i, block, &bx, &by);
                box_take(block_at(w, bx, by), (velocity_box){w->vel[i].x, w->vel[i].x, w->vel[i].y, w->vel[i].y});
            }
    }

    // The narrow phase on the world's threads, 512 particles a chunk at the least.
    narrow_job job = {w, pairs, reuse, keep, twice_dt, margin_cap, slop, block, cell, rmax};
    memset(w->chunk_contact_count, 0, sizeof w->chunk_contact_count);
    memset(w->chunk_wide_searches, 0, sizeof w->chunk_wide_searches);
    memset(w->chunk_walls_met, 0, sizeof w->chunk_walls_met);
    if (job.keep) {
        w->pairs_list_count = 0;
        memset(w->chunk_pair_count, 0, sizeof w->chunk_pair_count);
        memset(w->chunk_pairs_overflow, 0, sizeof w->chunk_pairs_overflow);
    }
    int chunks = sb_pool_for_chunks(w->pool, w->p_high, 512, narrow_range, &job);
    for (int i = 0; block > 0 && i < w->p_high; ++i) // empty again, for the next step's blocks
        if (in_grid(w, i)) {
            int bx, by;
            block_of(w, i, block, &bx, &by);
            *block_at(w, bx, by) = empty_box;
        }
    w->wide_searches = 0;
    w->walls_met = 0;
    for (int k = 0; k < chunks; ++k) {
        w->wide_searches += w->chunk_wide_searches[k];
        w->walls_met += w->chunk_walls_met[k];
    }
    if (job.keep)
        pairs_list_finish(w, chunks);
    else if (!reuse)
        w->pairs_valid = false;
    append_chunk_contacts(w, chunks);
    if (pairs) {
        stops_list_pairs(w, &job);
        if (!reuse)
            sweeps_list_pairs(w, &job);
    }

    if ((w->solid_springs > 0 || w->solid_constraints > 0) && w->def.collisions && colliders > 0) {
        const segment_sweep sweep = {twice_dt, margin_cap, slop};
        segment_contacts_build(w, inv_cell, rmax, margin, pairs, &sweep);
    }

    w->colors_unmatched = 0;
    sb_pool_for(w->pool, w->contact_next_count, 1, CONTACTS_PER_THREAD, warm_range, w);
    articulations_find(w);
    contacts_color(w);
}

// Colours: contacts of one colour share no particle that moves, so a pass
// may solve them in any order, or split over threads, and get the same bits, as the springs'
// graph colours do (solver.c). Each contact takes the lowest colour that neither of its moving
// particles has yet (greedy, in key order, with a 64-bit mask of colours per particle; a pile
// of balls takes about ten). A fixed particle or a wall is never written, so contacts may share
// it within a colour. A solid spring's contact moves three particles and an articulated one a
// whole structure (articulation.c): they go to colour 63,
// with whatever finds the first 63 taken, and colour 63 runs last, in key order, on one thread.
// Every pass runs the colours in order, each in key order: the contacts' Gauss-Seidel order is
// this one for any thread count.
static void swap_contact_lists(sb_contact **a, int *a_cap, sb_contact **b, int *b_cap)
{
    sb_contact *t = *a;
    *a = *b;
    *b = t;
    int cap = *a_cap;
    *a_cap = *b_cap;
    *b_cap = cap;
}

// Each slot written once: on the world's threads.
static void gather_range(void *ctx, int from, int to)
{
    sb_world *w = ctx;
    for (int k = from; k < to; ++k)
        w->contacts_scratch[k] = w->contacts_next[w->contact_order[k]];
}

static void contacts_color(sb_world *w)
{
    const int n = w->contact_next_count;
    w->contacts_permuted = false;
    int count[64] = {0};
    if (!array_reserve((void **)&w->contact_order, &w->contact_order_cap, n > 0 ? n : 1, sizeof *w->contact_order)) {
        w->contact_next_count = 0; // out of memory: no contacts this step (the warm starts are kept)
        memset(w->contact_color_start, 0, sizeof w->contact_color_start);
        return;
    }
    // The same contacts, in the same key order, their ends moving as they did, none articulated
    // now or then: the greedy colouring gives every one the colour it gave it last step, which
    // warm_range has put back (a pile at rest: the colouring was half of this function's time)
    const bool same = w->colors_unmatched == 0 && n == w->contact_count && !articulations_any(w);
    if (same) {
        for (int k = 0; k < n; ++k)
            count[w->contacts_next[k].color] += 1;
    } else {
        if (w->p_high > 0)
            memset(w->contact_mask, 0, sizeof *w->contact_mask * (size_t)w->p_high);
        const uint64_t below_63 = (1ull << 63) - 1ull;
        for (int k = 0; k < n; ++k) {
            sb_contact *c = &w->contacts_next[k];
            int color = 63;
            if (c->b2 < 0 && !c->art) {
                const uint8_t moves = contact_moves(w, c);
                const bool moves_a = moves & WARM_A_MOVES, moves_b = moves & WARM_B_MOVES;
                uint64_t used = (moves_a ? w->contact_mask[c->a] : 0u) | (moves_b ? w->contact_mask[c->b] : 0u);
                uint64_t open = ~used & below_63;
                if (open) {
                    color = __builtin_ctzll(open);
                    if (moves_a)
                        w->contact_mask[c->a] |= 1ull << color;
                    if (moves_b)
                        w->contact_mask[c->b] |= 1ull << color;
                }
            }
            c->color = color;
            count[color] += 1;
        }
    }
    int start = 0;
    for (int color = 0; color < 64; ++color) {
        w->contact_color_start[color] = start;
        start += count[color];
    }
    w->contact_color_start[64] = start;
    int next[64];
    memcpy(next, w->contact_color_start, sizeof next);
    for (int k = 0; k < n; ++k)
        w->contact_order[next[w->contacts_next[k].color]++] = k;
    // The contacts themselves go into colour order, so each pass reads them in memory order: through
    // an index, 150k contacts of a falling 16000-ball pit cost three times as much a step (cache
    // misses). contacts_commit keeps what the warm starts and events need by key.
    if (!array_reserve((void **)&w->contacts_scratch, &w->contacts_scratch_cap, n > 0 ? n : 1, sizeof *w->contacts_scratch)) {
        for (int k = 0; k < n; ++k) // out of memory: one colour, in key order, on one thread
            w->contacts_next[k].color = 63;
        memset(w->contact_color_start, 0, sizeof w->contact_color_start);
        w->contact_color_start[64] = n;
        return;
    }
    sb_pool_for_segments(w->pool, 64, w->contact_color_start, CONTACTS_PER_THREAD, gather_range, w);
    swap_contact_lists(&w->contacts_next, &w->contact_next_cap, &w->contacts_scratch, &w->contacts_scratch_cap);
    w->contacts_permuted = true;
}

// The committed contacts stay in the order their step solved them; their warm starts go by key,
// each with where its contact is. These 48 bytes are written through contact_order where the
// whole 200-byte contact used to be put back in key order (the 16000-ball pit 9.7 -> 9.3 ms a
// step, the 4000-ball pit 1%). Each slot written once: on the world's threads.
static void commit_range(void *ctx, int from, int to)
{
    sb_world *w = ctx;
    const bool permuted = w->contacts_permuted;
    for (int k = from; k < to; ++k) {
        const sb_contact *c = &w->contacts_next[k];
        w->warm[permuted ? w->contact_order[k] : k] =
            (sb_warm){.key = c->key, .normal_impulse = c->normal_impulse, .tangent_impulse = c->tangent_impulse,
                      .rolling_impulse = c->rolling_impulse, .slip = c->slip, .slot = k, .side = (int8_t)c->side, .color = (uint8_t)c->color,
                      .moves = (uint8_t)(contact_moves(w, c) | (c->art ? WARM_ARTICULATED : 0))};
    }
}

void contacts_commit(sb_world *w)
{
    const int n = w->contact_next_count;
    const bool keep = array_reserve((void **)&w->warm, &w->warm_cap, n > 0 ? n : 1, sizeof *w->warm);
    if (keep)
        sb_pool_for_segments(w->pool, 64, w->contact_color_start, CONTACTS_PER_THREAD, commit_range, w);
    swap_contact_lists(&w->contacts, &w->contact_cap, &w->contacts_next, &w->contact_next_cap);
    w->contact_count = keep ? n : 0; // out of memory: no warm starts next step, no contact events
    w->contacts_permuted = false;
}

void contacts_report_overlaps(sb_world *w)
{
    sb_stats *st = &w->stats;
    st->overlapping_pairs = st->overlapping_walls = 0;
    st->worst_overlap = st->worst_wall_overlap = 0.0;
    for (int k = 0; k < w->contact_next_count; ++k) {
        const sb_contact *c = &w->contacts_next[k];
        if (c->b < 0 && c->shape < SHAPE_BOUND) { // a particle inside a wall
            if (c->separation >= -0.01 * w->radius[c->a])
                continue;
            st->overlapping_walls += 1;
            if (-c->separation > st->worst_wall_overlap) {
                st->worst_wall_overlap = -c->separation;
                st->wall_overlap_particle = (sb_particle_id){(uint32_t)c->a, w->p_gen[c->a]};
                st->overlap_wall = (sb_wall_id){c->shape, w->w_gen[c->shape]};
            }
            continue;
        }
        if (c->b < 0 || c->b2 >= 0) // particles only: a spring's overlap is its contact's business
            continue;
        double smaller = w->radius[c->a] < w->radius[c->b] ? w->radius[c->a] : w->radius[c->b];
        if (c->separation >= -0.01 * smaller)
            continue;
        st->overlapping_pairs += 1;
        if (-c->separation > st->worst_overlap) {
            st->worst_overlap = -c->separation;
            st->overlap_a = (sb_particle_id){(uint32_t)c->a, w->p_gen[c->a]};
            st->overlap_b = (sb_particle_id){(uint32_t)c->b, w->p_gen[c->b]};
        }
    }
}

bool contact_is_touching(const sb_contact *c) { return c->separation < touching_slop; }

// Box2D's b2ShouldShapesCollide: a shared non-zero group decides alone; otherwise categories and
// masks must agree both ways.
bool particles_should_collide(const sb_world *w, int a, int b)
{
    if (w->group[a] == w->group[b] && w->group[a] != 0)
        return w->group[a] > 0;
    return (w->category[a] & w->mask[b]) != 0 && (w->category[b] & w->mask[a]) != 0;
}

typedef struct touching_job { const sb_world *w; int count[SB_POOL_MAX_THREADS]; } touching_job;

static void touching_range(void *ctx, int chunk, int from, int to)
{
    touching_job *job = ctx;
    int n = 0;
    for (int k = from; k < to; ++k)
        n += contact_is_touching(&job->w->contacts[k]);
    job->count[chunk] = n;
}

int contacts_touching(const sb_world *w)
{
    touching_job job = {.w = w};
    const int chunks = sb_pool_for_chunks(w->pool, w->contact_count, CONTACTS_PER_THREAD, touching_range, &job);
    int n = 0;
    for (int k = 0; k < chunks; ++k)
        n += job.count[k];
    return n;
}
