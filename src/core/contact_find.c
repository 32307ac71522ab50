// Finding contacts each step: the broad phase, a spatial hash grid rebuilt by counting sort (so
// the cost is linear in the number of particles) whenever the pairs list it leaves (a Verlet
// list: partners within reach plus a skin) no longer holds, and the narrow phase, whose
// candidate pairs, walls and bounds become speculative contacts; contacts_build orders the
// finding. The stops and sweeps (contact_stops.c) and the solid springs (contact_segments.c) add
// theirs; contact_graph.c matches warm starts, colours and commits them.
#include "contact_find_internal.h"

#include <limits.h>
#include <stdlib.h>

static const velocity_box empty_box = {INFINITY, -INFINITY, INFINITY, -INFINITY};

bool contacts_reserve(sb_world *w)
{
    int want = 16;
    while (want < 2 * w->p_high)
        want *= 2;
    if (want > w->broad.grid_size) {
        if (!ARRAY_GROW(w->broad.grid_start, want + 1) || !ARRAY_GROW(w->broad.block_velocity, want))
            return false;
        for (int k = 0; k < want; ++k)
            w->broad.block_velocity[k] = empty_box;
        w->broad.grid_size = want;
    }
    if (w->p_high > w->broad.grid_items_cap) {
        if (!ARRAY_GROW(w->broad.grid_items, w->p_cap) || !ARRAY_GROW(w->broad.grid_entries, w->p_cap))
            return false;
        w->broad.grid_items_cap = w->p_cap;
    }
    if (w->p_high > w->broad.pairs_cap) {
        if (!ARRAY_GROW(w->broad.pairs_start, w->p_cap + 1) || !ARRAY_GROW(w->broad.pairs_pos, w->p_cap) ||
            !ARRAY_GROW(w->broad.pairs_reach, w->p_cap) || !ARRAY_GROW(w->broad.pairs_radius, w->p_cap) ||
            !ARRAY_GROW(w->broad.pairs_collides, w->p_cap) || !ARRAY_GROW(w->broad.stop, w->p_cap) ||
            !ARRAY_GROW(w->broad.stop_queue, w->p_cap) || !ARRAY_GROW(w->broad.stop_queued, w->p_cap) ||
            !ARRAY_GROW(w->broad.stop_cand_at, w->p_cap) || !ARRAY_GROW(w->broad.stop_cand_n, w->p_cap))
            return false;
        w->broad.pairs_cap = w->p_cap;
        w->broad.pairs_valid = false;
    }
    return true;
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
double contact_combined_rolling_resistance(const sb_world *w, int a, int b)
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
/// group_lo and group_hi: the lowest and highest collision group among the colliders.
typedef struct particle_scan { double vmax, rmax; int colliders, group_lo, group_hi; bool any; } particle_scan;
typedef struct scan_job { sb_world *w; particle_scan part[SB_POOL_MAX_THREADS]; } scan_job;

static void turning_range(void *ctx, int from, int to)
{
    sb_world *w = ctx;
    for (int i = from; i < to; ++i) {
        const int mode = w->p_rolling[i];
        const double r = w->radius[i], wi = w->inv_mass[i];
        const bool rolls = wi > 0.0 && r > 0.0 && mode != SB_ROLLING_OFF && (mode == SB_ROLLING_ON || w->degree[i] == 0);
        w->scratch.inv_inertia[i] = rolls ? wi / (w->inertia[i] * r * r) : 0.0;
    }
}

static void spinning_range(void *ctx, int chunk, int from, int to)
{
    scan_job *job = ctx;
    sb_world *w = job->w;
    bool spinning = false;
    for (int i = from; i < to; ++i) {
        if (w->scratch.inv_inertia[i] == 0.0 && w->inv_mass[i] > 0.0)
            w->omega[i] = 0.0;
        spinning = spinning || w->scratch.inv_inertia[i] > 0.0 || w->omega[i] != 0.0;
    }
    job->part[chunk].any = spinning;
}

static void rolling_prepare(sb_world *w)
{
    sb_pool_for(w->pool, w->p_high, 1, PARTICLES_PER_THREAD, turning_range, w);
    for (int c = 0; c < w->constraints.high; ++c) {
        if (w->constraints.kind[c] == 0xFF)
            continue;
        for (int k = 0; k < w->constraints.part_count[c]; ++k) {
            int p = w->constraints.parts[c][k];
            if (w->p_rolling[p] == SB_ROLLING_AUTO)
                w->scratch.inv_inertia[p] = 0.0;
        }
    }
    scan_job job = {.w = w};
    const int chunks = sb_pool_for_chunks(w->pool, w->p_high, PARTICLES_PER_THREAD, spinning_range, &job);
    bool spinning = false;
    for (int k = 0; k < chunks; ++k)
        spinning = spinning || job.part[k].any;
    w->scratch.spinning = spinning;
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
    int *stack = malloc(sizeof *stack * (size_t)(w->walls.high + 1));
    for (int k = 0; k < w->walls.high; ++k)
        w->walls.chain[k] = stack ? -1 : k;
    for (int k = 0; stack && k < w->walls.high; ++k) {
        if (w->walls.chain[k] >= 0)
            continue;
        int top = 0;
        stack[top++] = k;
        w->walls.chain[k] = k;
        while (top > 0) {
            const int j = stack[--top];
            for (int end = 0; end < 2; ++end) {
                const int nb = w->walls.nb[2 * j + end];
                if (nb >= 0 && w->walls.chain[nb] < 0) {
                    w->walls.chain[nb] = k;
                    stack[top++] = nb;
                }
            }
        }
    }
    free(stack);
}

static void link_walls(sb_world *w)
{
    w->walls.dirty = false;
    for (int k = 0; k < 2 * w->walls.high; ++k)
        w->walls.nb[k] = -1;
    wall_end *ends = malloc(sizeof *ends * (size_t)(2 * w->walls.high + 1));
    if (!ends) {
        chain_walls(w); // no links: every joint a corner, each wall alone
        return;
    }
    int n = 0;
    for (int k = 0; k < w->walls.high; ++k) {
        if (!w->walls.alive_flag[k])
            continue;
        ends[n++] = (wall_end){w->walls.a[k].x, w->walls.a[k].y, k, 0};
        ends[n++] = (wall_end){w->walls.b[k].x, w->walls.b[k].y, k, 1};
    }
    qsort(ends, (size_t)n, sizeof *ends, compare_ends);
    for (int i = 0; i < n;) {
        int j = i + 1;
        while (j < n && ends[j].x == ends[i].x && ends[j].y == ends[i].y)
            j += 1;
        if (j - i == 2 && ends[i].wall != ends[i + 1].wall) {
            w->walls.nb[2 * ends[i].wall + ends[i].end] = ends[i + 1].wall;
            w->walls.nb[2 * ends[i + 1].wall + ends[i + 1].end] = ends[i].wall;
        }
        i = j;
    }
    free(ends);
    chain_walls(w);
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
    int **items = chunk == 0 ? &w->broad.pairs_list : &w->broad.chunk_pairs[chunk];
    int *count = chunk == 0 ? &w->broad.pairs_list_count : &w->broad.chunk_pair_count[chunk];
    int *cap = chunk == 0 ? &w->broad.pairs_list_cap : &w->broad.chunk_pair_cap[chunk];
    if (!array_reserve((void **)items, cap, *count + n, sizeof **items)) {
        w->broad.chunk_pairs_overflow[chunk] = true; // out of memory: the list is incomplete, so not reused
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
    const double xi = w->pos[i].x, yi = w->pos[i].y, ri = w->radius[i], reach_i = w->scratch.reach[i];
    const bool fixed_i = w->inv_mass[i] == 0.0;
    const double skin = w->broad.pair_skin;
    const int cell_x = w->broad.cell_x[i], cell_y = w->broad.cell_y[i], n = scan_cells(job, i);
    const bool dense = w->broad.grid_dense;
    w->broad.chunk_wide_searches[chunk] += n > 1;
    for (int dy = -n; dy <= n; ++dy) {
        for (int dx = -n; dx <= n; ++dx) {
            int cx = cell_x + dx, cy = cell_y + dy;
            const unsigned hsh = grid_bucket(w, cx, cy);
            const int k0 = w->broad.grid_start[hsh], k1 = w->broad.grid_start[hsh + 1];
            int k = k0;
            if (dense) // a bucket is one cell, its particles in index order: those after i at its end
                for (k = k1; k > k0 && w->broad.grid_items[k - 1] > i; --k) {
                }
            for (; k < k1; ++k) {
                const grid_entry *e = &w->broad.grid_entries[k];
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
                        w->broad.chunk_pairs_overflow[chunk] = true;
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
        w->broad.pairs_start[i + 1] = kept;
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
    const double xi = w->pos[i].x, yi = w->pos[i].y, ri = w->radius[i], reach_i = w->scratch.reach[i];
    const bool fixed_i = w->inv_mass[i] == 0.0;
    for (int k = w->broad.pairs_start[i]; k < w->broad.pairs_start[i + 1]; ++k) {
        int j = w->broad.pairs_list[k];
        double reach = ri + w->radius[j] + pair_reach(job, reach_i, w->scratch.reach[j]);
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


void static_shapes_near(const sb_world *w, sb_vec2 p, double reach, static_shapes *s)
{
    // a box a little wider than the reach: rounding never leaves out a wall the geometry would take
    const double half = reach * (1.0 + 1e-6) + 1e-12 * (fabs(p.x) + fabs(p.y) + reach);
    s->near.walls = s->near.stack;
    s->near.count = 0;
    s->every = w->walls.alive > 0 && !walls_near_find(w, p.x - half, p.y - half, p.x + half, p.y + half, &s->near);
    s->at = s->bounds = 0;
}

/// The next shape (a wall's number, or SHAPE_BOUND + side); false when there are no more (and
/// what the walls took is let go).
bool static_shapes_next(const sb_world *w, static_shapes *s, uint32_t *shape)
{
    if (s->every) { // every wall
        while (s->at < w->walls.high && !w->walls.alive_flag[s->at])
            s->at += 1;
        if (s->at < w->walls.high) {
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

// The narrow phase of particles [from, to): their walls, bounds and pairs (j > i) within reach,
// each particle's in key order. Particles are independent here (each reads positions and the
// grid, writes only its own contacts), so chunks run on the world's threads.
static void narrow_range(void *ctx, int chunk, int from, int to)
{
    const narrow_job *job = ctx;
    sb_world *w = job->w;
    const bool pairs = job->pairs;
    contact_buffer buffer = chunk == 0 ? (contact_buffer){&w->contact.next, &w->contact.next_count, &w->contact.next_cap}
                                       : (contact_buffer){&w->contact.chunks[chunk], &w->contact.chunk_count[chunk],
                                                          &w->contact.chunk_cap[chunk]};
    contact_buffer *out = &buffer;
    int near[NEAR_MAX];
    sb_vec2 near_d[NEAR_MAX]; // from i to each candidate
    for (int i = from; i < to; ++i) {
        if (job->keep)
            w->broad.pairs_start[i + 1] = 0; // near_from_grid sets it where i has partners to look for
        if (!particle_alive(w, i))
            continue;
        sb_contact c = contact_of(i);
        if (w->inv_mass[i] > 0.0) {
            static_shapes s;
            const double reach = static_reach(w, i);
            static_shapes_near(w, w->pos[i], w->radius[i] + reach, &s);
            w->broad.chunk_walls_met[chunk] += s.every ? w->walls.alive : s.near.count;
            while (static_shapes_next(w, &s, &c.shape)) {
                c.side = 0;
                static_shape_geometry(w, &c);
                // a chain's corner its neighbour owns now is kept too while the wall is in reach:
                // a particle that rolls over the joint within the step meets this wall's face, which
                // the list would otherwise lack until the next step (a frame without support)
                if (c.separation < reach || (c.shape < SHAPE_BOUND && wall_ghost(w, i, &c, reach))) {
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
    const double half_skin = 0.5 * w->broad.pair_skin;
    bool broken = false;
    for (int i = from; i < to && !broken; ++i) {
        bool collides = in_grid(w, i);
        broken = collides != (bool)w->broad.pairs_collides[i];
        if (!collides || broken)
            continue;
        double grew = w->radius[i] - w->broad.pairs_radius[i], widened = w->scratch.reach[i] - w->broad.pairs_reach[i];
        double closed = v2_len(v2_sub(w->pos[i], w->broad.pairs_pos[i])) + (grew > 0.0 ? grew : 0.0) +
                        (widened > 0.0 ? widened : 0.0);
        broken = closed > half_skin;
    }
    job->part[chunk].any = broken;
}

static bool pairs_list_holds(sb_world *w)
{
    if (!w->broad.pairs_valid || w->broad.pairs_p_high != w->p_high)
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
        ok = ok && !w->broad.chunk_pairs_overflow[k];
    for (int k = 1; k < chunks && ok; ++k) {
        int n = w->broad.chunk_pair_count[k];
        if (n > 0 && !ARRAY_RESERVE(w->broad.pairs_list, w->broad.pairs_list_cap, w->broad.pairs_list_count + n))
            ok = false;
        else if (n > 0) {
            memcpy(w->broad.pairs_list + w->broad.pairs_list_count, w->broad.chunk_pairs[k], sizeof *w->broad.pairs_list * (size_t)n);
            w->broad.pairs_list_count += n;
        }
    }
    w->broad.pairs_valid = ok;
    w->broad.pairs_builds += 1;
    if (!ok)
        return;
    w->broad.pairs_start[0] = 0;
    for (int i = 0; i < w->p_high; ++i) {
        w->broad.pairs_start[i + 1] += w->broad.pairs_start[i];
        w->broad.pairs_pos[i] = w->pos[i];
        w->broad.pairs_reach[i] = w->scratch.reach[i];
        w->broad.pairs_radius[i] = w->radius[i];
        w->broad.pairs_collides[i] = in_grid(w, i);
    }
    w->broad.pairs_p_high = w->p_high;
}

/// Each particle's speed (made its reach below, once rmax is known), and each chunk's fastest
/// live particle, largest collider and count of colliders.
static void speeds_range(void *ctx, int chunk, int from, int to)
{
    scan_job *job = ctx;
    sb_world *w = job->w;
    particle_scan found = {0.0, 0.0, 0, INT_MAX, INT_MIN, false};
    for (int i = from; i < to; ++i) {
        double speed = w->scratch.reach[i] = v2_len(w->vel[i]);
        if (!particle_alive(w, i))
            continue;
        if (speed > found.vmax)
            found.vmax = speed;
        if ((w->p_flags[i] & PARTICLE_COLLIDE) && w->radius[i] > 0.0) {
            found.colliders += 1;
            found.group_lo = w->group[i] < found.group_lo ? w->group[i] : found.group_lo;
            found.group_hi = w->group[i] > found.group_hi ? w->group[i] : found.group_hi;
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
    double *reach = job->w->scratch.reach;
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
            memcpy(w->contact.next + job->at[k], w->contact.chunks[k], sizeof *w->contact.next * (size_t)w->contact.chunk_count[k]);
}

// The narrow phase's chunks after the first (which wrote into contact.next) follow it in chunk
// order, which is key order. Each chunk is copied on the thread that found it, where it is in
// cache, rather than on the caller while the other thread waits. A chunk with nothing to copy (empty, it may
// have no buffer yet), or that does not fit (out of memory), is skipped this step.
static void append_chunk_contacts(sb_world *w, int chunks)
{
    append_job job = {.w = w, .at = {-1}};
    int total = w->contact.next_count;
    for (int k = 1; k < chunks; ++k) {
        const int n = w->contact.chunk_count[k];
        const bool fits = n > 0 && ARRAY_RESERVE(w->contact.next, w->contact.next_cap, total + n);
        job.at[k] = fits ? total : -1;
        total += fits ? n : 0;
    }
    if (total > w->contact.next_count)
        sb_pool_for_chunks(w->pool, chunks, 1, append_range, &job);
    w->contact.next_count = total;
}

/// The frame's scan of the particles: the fastest speed, the largest collider and how many
/// collide, and whether they are all of one negative group (so none collides with another);
/// each particle's reach follows from them (reach_range).
typedef struct frame_scan { double rmax, vmax; int colliders; bool one_negative_group; } frame_scan;

static frame_scan scan_particles(sb_world *w)
{
    frame_scan f = {0.0, 0.0, 0, false};
    scan_job job = {.w = w};
    const int chunks = sb_pool_for_chunks(w->pool, w->p_high, PARTICLES_PER_THREAD, speeds_range, &job);
    int lo = INT_MAX, hi = INT_MIN;
    for (int k = 0; k < chunks; ++k) {
        f.vmax = job.part[k].vmax > f.vmax ? job.part[k].vmax : f.vmax;
        f.rmax = job.part[k].rmax > f.rmax ? job.part[k].rmax : f.rmax;
        f.colliders += job.part[k].colliders;
        lo = job.part[k].group_lo < lo ? job.part[k].group_lo : lo;
        hi = job.part[k].group_hi > hi ? job.part[k].group_hi : hi;
    }
    f.one_negative_group = f.colliders > 0 && lo == hi && lo < 0;
    return f;
}

/// The broad phase: the particles that collide sorted into the grid's buckets of cells `cell`
/// wide (a counting sort in particle order, so deterministic), and with `block` > 0 each block's
/// velocities bounded (block_velocity).
static void grid_build(sb_world *w, double cell, int block)
{
    const double inv_cell = 1.0 / cell;
    w->broad.grid_cell = cell;
    int size = w->broad.grid_size;
    memset(w->broad.grid_start, 0, sizeof(int) * (size_t)(size + 1));
    int x0 = INT_MAX, y0 = INT_MAX, x1 = INT_MIN, y1 = INT_MIN;
    for (int i = 0; i < w->p_high; ++i) {
        if (!in_grid(w, i))
            continue;
        const int cx = w->broad.cell_x[i] = cell_coord(w->pos[i].x, inv_cell);
        const int cy = w->broad.cell_y[i] = cell_coord(w->pos[i].y, inv_cell);
        x0 = cx < x0 ? cx : x0;
        x1 = cx > x1 ? cx : x1;
        y0 = cy < y0 ? cy : y0;
        y1 = cy > y1 ? cy : y1;
    }
    const double cells = ((double)x1 - x0 + 1.0) * ((double)y1 - y0 + 1.0);
    w->broad.grid_dense = x0 <= x1 && cells < size && !w->broad.grid_simple; // (the last bucket kept empty for the cells outside)
    w->broad.grid_x0 = x0;
    w->broad.grid_y0 = y0;
    w->broad.grid_nx = w->broad.grid_dense ? x1 - x0 + 1 : 0;
    w->broad.grid_ny = w->broad.grid_dense ? y1 - y0 + 1 : 0;
    w->broad.block_nx = w->broad.block_ny = 0;
    if (block > 0 && x0 <= x1 && !w->broad.grid_simple) {
        const int bx0 = floor_div(x0, block), by0 = floor_div(y0, block);
        // (cells reach +-1e9: the box's sides are counted in long long)
        const long long nbx = (long long)floor_div(x1, block) - bx0 + 1, nby = (long long)floor_div(y1, block) - by0 + 1;
        if ((double)nbx * (double)nby < size) { // (the last entry kept empty for the blocks outside)
            w->broad.block_x0 = bx0;
            w->broad.block_y0 = by0;
            w->broad.block_nx = (int)nbx;
            w->broad.block_ny = (int)nby;
        }
    }
    for (int i = 0; i < w->p_high; ++i)
        if (in_grid(w, i))
            w->broad.grid_start[grid_bucket(w, w->broad.cell_x[i], w->broad.cell_y[i]) + 1] += 1;
    for (int k = 0; k < size; ++k)
        w->broad.grid_start[k + 1] += w->broad.grid_start[k];
    // Counting sort into buckets; filled in particle order, so deterministic.
    for (int i = 0; i < w->p_high; ++i) {
        if (!in_grid(w, i))
            continue;
        unsigned hsh = grid_bucket(w, w->broad.cell_x[i], w->broad.cell_y[i]);
        int slot = w->broad.grid_start[hsh]++;
        w->broad.grid_items[slot] = i;
        w->broad.grid_entries[slot] = (grid_entry){w->pos[i].x, w->pos[i].y, w->vel[i].x, w->vel[i].y, w->radius[i],
                                             w->scratch.reach[i], i, w->broad.cell_x[i], w->broad.cell_y[i]};
    }
    for (int k = size; k > 0; --k) // undo the shift left by filling
        w->broad.grid_start[k] = w->broad.grid_start[k - 1];
    w->broad.grid_start[0] = 0;
    for (int i = 0; block > 0 && i < w->p_high; ++i)
        if (in_grid(w, i)) {
            int bx, by;
            block_of(w, i, block, &bx, &by);
            box_take(block_at(w, bx, by), (velocity_box){w->vel[i].x, w->vel[i].x, w->vel[i].y, w->vel[i].y});
        }
}

/// The narrow phase on the world's threads, 512 particles a chunk at the least: each chunk's
/// contacts appended in chunk order (so in key order), the pairs list kept or dropped, the
/// blocks' velocities emptied for the next step.
static void narrow_phase(sb_world *w, const narrow_job *job)
{
    memset(w->contact.chunk_count, 0, sizeof w->contact.chunk_count);
    memset(w->broad.chunk_wide_searches, 0, sizeof w->broad.chunk_wide_searches);
    memset(w->broad.chunk_walls_met, 0, sizeof w->broad.chunk_walls_met);
    if (job->keep) {
        w->broad.pairs_list_count = 0;
        memset(w->broad.chunk_pair_count, 0, sizeof w->broad.chunk_pair_count);
        memset(w->broad.chunk_pairs_overflow, 0, sizeof w->broad.chunk_pairs_overflow);
    }
    int chunks = sb_pool_for_chunks_balanced(w->pool, w->p_high, 512, narrow_range, (void *)job);
    for (int i = 0; job->block > 0 && i < w->p_high; ++i) // empty again, for the next step's blocks
        if (in_grid(w, i)) {
            int bx, by;
            block_of(w, i, job->block, &bx, &by);
            *block_at(w, bx, by) = empty_box;
        }
    w->broad.wide_searches = 0;
    w->broad.walls_met = 0;
    for (int k = 0; k < chunks; ++k) {
        w->broad.wide_searches += w->broad.chunk_wide_searches[k];
        w->broad.walls_met += w->broad.chunk_walls_met[k];
    }
    if (job->keep)
        pairs_list_finish(w, chunks);
    else if (!job->reuse)
        w->broad.pairs_valid = false;
    append_chunk_contacts(w, chunks);
}

/// Builds contact.next: the walls' tree and rolling made ready, the particles scanned and their
/// reaches set, the grid (unless the pairs list holds), the narrow phase, the stops and sweeps,
/// the solid springs' contacts, then the warm starts, the articulated contacts and the colours.
void contacts_build(sb_world *w)
{
    if (w->walls.dirty || (!w->walls.tree && w->walls.alive > 0)) {
        if (w->walls.dirty)
            link_walls(w);
        wall_tree_build(w);
    }
    rolling_prepare(w);
    w->contact.next_count = 0;
    const frame_scan scan = scan_particles(w);
    const double rmax = scan.rmax;
    // Speculative margin: what can close in one frame, within reason; beyond it, use sub-steps.
    // Each particle's own reach is twice its speed over the frame (its walls and bounds take it;
    // `margin` is the world's largest, which the solid springs take) and each pair's is twice
    // the speed its two close at (pair_margin). A margin from the world's
    // fastest particle listed 225k contacts for 31k touching in a 16000-ball pit, one fast ball
    // widening every slow pair; the larger of a pair's own reaches still listed 120k for 13k
    // touching while the pit fell, every ball beside its neighbour falling as fast.
    const double margin_cap = rmax > 0.0 ? 4.0 * rmax : 0.5, slop = 0.05 * (rmax > 0.0 ? rmax : 0.1);
    const double twice_dt = 2.0 * w->def.dt, margin = capped_margin(scan.vmax * twice_dt, margin_cap, slop);
    reach_job reaches = {w, twice_dt, margin_cap, slop};
    sb_pool_for(w->pool, w->p_high, 1, PARTICLES_PER_THREAD, reach_range, &reaches);

    // (particles all of one negative group never collide with each other: no grid, no pairs)
    const bool pairs = w->def.collisions && scan.colliders > 1 && !scan.one_negative_group;
    // Solid springs take their candidates from the grid, so with any the grid runs every step.
    const bool list_kept = pairs && w->solid_springs == 0 && w->constraints.solid_count == 0;
    const bool reuse = list_kept && margin_cap + slop <= w->broad.pairs_reach_cap && pairs_list_holds(w);
    // the most a pair's reach can be (pair_reach): the grid's cells hold it and the skin
    const double pair_reach_max = 2.0 * margin < margin_cap + slop ? 2.0 * margin : margin_cap + slop;
    // While something moves fast, cells that hold the fastest pair's reach are three times as wide
    // as the balls: each ball of a falling 16000-ball pit read 160 others a step, where its
    // neighbours fall with it. Then cells hold a slowly closing pair (slow_margin) and a particle
    // searches farther only where velocities around it differ (scan_cells); the pairs list,
    // which a fast particle would void at once, is not kept.
    const double slow_margin = 0.5 * rmax + slop;
    const bool fast = pairs && !reuse && pair_reach_max > 2.0 * slow_margin && !w->broad.grid_simple;
    const bool keep = list_kept && !reuse && !fast;
    if (!reuse) { // a quarter of the largest radius: a resting pile keeps its list for good
        w->broad.pair_skin = keep ? 0.25 * rmax : 0.0;
        w->broad.pairs_reach_cap = margin_cap + slop;
    }
    double inv_cell = 0.0, cell = 0.0;
    int block = 0;
    if (pairs && !reuse) {
        // (a pair within a cell's width of each other is in neighbouring cells, rounding aside)
        cell = fast ? (2.0 * rmax + slow_margin) * (1.0 + 1e-9) : 2.0 * rmax + pair_reach_max + w->broad.pair_skin;
        block = fast ? (int)ceil((2.0 * rmax + pair_reach_max) / cell) : 0;
        inv_cell = 1.0 / cell;
        grid_build(w, cell, block);
    }

    narrow_job job = {w, pairs, reuse, keep, twice_dt, margin_cap, slop, block, cell, rmax};
    narrow_phase(w, &job);
    if (pairs) {
        stops_list_pairs(w, &job);
        if (!reuse)
            sweeps_list_pairs(w, &job);
    }
    const bool segments = w->solid_springs > 0 || w->constraints.solid_count > 0;
    const bool segment_particles = segments && w->def.collisions && scan.colliders > 0;
    if (segment_particles || (segments && w->walls.alive > 0)) {
        const segment_sweep sweep = {twice_dt, margin_cap, slop};
        segment_contacts_build(w, inv_cell, rmax, margin, pairs, segment_particles ? &sweep : NULL);
    }
    contacts_match_warm_starts(w);
    articulations_find(w);
    contacts_color(w);
}

void broad_phase_free(sb_broad_phase *b)
{
    FREE_ARRAYS(b->grid_start, b->grid_items, b->cell_x, b->cell_y, b->grid_entries, b->block_velocity,
                b->pairs_list, b->pairs_start, b->pairs_pos, b->pairs_reach, b->pairs_radius, b->pairs_collides,
                b->stop, b->stop_queue, b->stop_queued, b->stop_contacts, b->stop_cand_at, b->stop_cand_n,
                b->stop_cands);
    for (int k = 0; k < SB_POOL_MAX_THREADS; ++k)
        free(b->chunk_pairs[k]);
}
