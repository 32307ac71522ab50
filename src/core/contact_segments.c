// Particles and walls' corners against solid springs and ropes: each spring or rope made solid
// is a capsule, and the particles near it (from the grid, or along a fast particle's swept path)
// and the corners of the walls near it become its speculative contacts, kept in key order beside
// the pairs'. Its ends meet the walls' faces as any particle does.
#include "contact_find_internal.h"

#include <stdlib.h>

static bool push_segment_contact(sb_world *w, const sb_contact *c)
{
    if (!ARRAY_RESERVE(w->contact.segments, w->contact.segment_cap, w->contact.segment_count + 1))
        return false;
    w->contact.segments[w->contact.segment_count++] = *c;
    return true;
}

/// Segment q of a pass over the first `springs` spring slots and then the constraints': false
/// where it is no live solid spring, rope or strut; else its ends and its shape code.
static bool solid_segment(const sb_world *w, int q, int springs, int *a, int *b, uint32_t *shape)
{
    if (q < springs) {
        if (w->s_a[q] < 0 || !w->s_solid[q])
            return false;
        *a = w->s_a[q];
        *b = w->s_b[q];
        *shape = SHAPE_SEGMENT | (uint32_t)q;
        return true;
    }
    const int k = q - springs;
    if (w->constraints.kind[k] == 0xFF || !w->constraints.solid[k])
        return false;
    *a = w->constraints.parts[k][0];
    *b = w->constraints.parts[k][1];
    *shape = SHAPE_SEGMENT_CONSTRAINT | (uint32_t)k;
    return true;
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
    const int springs = w->solid_springs > 0 ? w->s_high : 0, ropes = w->constraints.solid_count > 0 ? w->constraints.high : 0;
    for (int q = 0; q < springs + ropes; ++q) {
        if (!solid_segment(w, q, springs, &c.b, &c.b2, &c.shape))
            continue;
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

/// Whether wall k's end `end` is a corner of its own to list: a point two walls of a chain share
/// is listed once, by the lower-numbered.
static bool corner_owned(const sb_world *w, int k, int end)
{
    const int nb = w->walls.nb[2 * k + end];
    return nb < 0 || k < nb;
}

/// The side of its spring a contact took in the last step (sb_warm.side), or 0 where it had none.
static int kept_side(const sb_world *w, uint64_t key)
{
    const int at = warm_lower_bound(w, key);
    return at < w->contact.count && w->contact.warm[at].key == key ? w->contact.warm[at].side : 0;
}

/// The corners of the walls near solid segment c->a .. c->b2 (the template's shape code in
/// c->shape) that are within its capsule and `reach`, as its corner contacts. A corner past either
/// end is its end particle's own contact with the wall. Keyed apart from every particle's contact
/// (the top bit: a corner is no particle), by corner then segment.
static void corner_candidates(sb_world *w, sb_contact *t, uint32_t segment, double r, double reach)
{
    const sb_vec2 pa = w->pos[t->a], pb = w->pos[t->b2];
    const double grow = r + reach;
    walls_near near;
    const bool found = walls_near_find(w, fmin(pa.x, pb.x) - grow, fmin(pa.y, pb.y) - grow, fmax(pa.x, pb.x) + grow,
                                       fmax(pa.y, pb.y) + grow, &near);
    const int count = found ? near.count : w->walls.high;
    for (int q = 0; q < count; ++q) {
        const int k = found ? near.walls[q] : q;
        if (!found && !w->walls.alive_flag[k])
            continue;
        for (int end = 0; end < 2; ++end) {
            if (!corner_owned(w, k, end))
                continue;
            t->shape = (uint32_t)k;
            t->corner = (uint8_t)(1 + end);
            t->key = (1ull << 63) | ((uint64_t)(2u * (uint32_t)k + (uint32_t)end) << 32) | segment;
            // a corner that a step pressed past the spring's line is deep in it: the side it was on
            // says so, and keeps the contact listed until it is pushed back out
            t->side = kept_side(w, t->key);
            t->normal = v2(0, 0);
            corner_geometry(w, t);
            if (t->separation >= reach || !(t->t > 0.0 && t->t < 1.0))
                continue;
            push_segment_contact(w, t);
        }
    }
    walls_near_free(&near);
}

/// Each solid spring's, rope's and strut's contacts with the walls' corners (corner_candidates).
static void segment_corners(sb_world *w)
{
    sb_contact c;
    memset(&c, 0, sizeof c);
    c.b = -1;
    const int springs = w->solid_springs > 0 ? w->s_high : 0, ropes = w->constraints.solid_count > 0 ? w->constraints.high : 0;
    for (int q = 0; q < springs + ropes; ++q) {
        uint32_t segment;
        if (!solid_segment(w, q, springs, &c.a, &c.b2, &segment))
            continue;
        if (w->inv_mass[c.a] == 0.0 && w->inv_mass[c.b2] == 0.0)
            continue;
        const double r = w->radius[c.a] > w->radius[c.b2] ? w->radius[c.a] : w->radius[c.b2];
        const double ra = static_reach(w, c.a), rb = static_reach(w, c.b2);
        corner_candidates(w, &c, segment, r, ra > rb ? ra : rb);
    }
}

/// Contacts of particles with solid springs, ropes and struts (their `solid`), found through the
/// particles' grid over each one's box, so the cost follows what is near it; merged into
/// contact.next in key order, ((particle << 32) | SHAPE_SEGMENT | spring) or
/// ((particle << 32) | SHAPE_SEGMENT_CONSTRAINT | constraint).
void segment_contacts_build(sb_world *w, double inv_cell, double rmax, double margin, bool grid, const segment_sweep *sweep)
{
    w->contact.segment_count = 0;
    sb_contact c;
    memset(&c, 0, sizeof c);
    const int springs = !sweep ? 0 : w->solid_springs > 0 ? w->s_high : 0;
    const int ropes = !sweep ? 0 : w->constraints.solid_count > 0 ? w->constraints.high : 0;
    for (int q = 0; q < springs + ropes; ++q) {
        int a, b;
        if (!solid_segment(w, q, springs, &a, &b, &c.shape))
            continue;
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
        if (grid && (double)(cx1 - cx0 + 1) * (double)(cy1 - cy0 + 1) <= 4.0 * w->broad.grid_size) {
            for (int cy = cy0; cy <= cy1; ++cy)
                for (int cx = cx0; cx <= cx1; ++cx) {
                    unsigned hsh = grid_bucket(w, cx, cy);
                    for (int k = w->broad.grid_start[hsh]; k < w->broad.grid_start[hsh + 1]; ++k) {
                        int j = w->broad.grid_items[k];
                        if (w->broad.cell_x[j] == cx && w->broad.cell_y[j] == cy) // buckets are shared
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
    if (w->walls.alive > 0)
        segment_corners(w);
    if (w->contact.segment_count == 0)
        return;
    qsort(w->contact.segments, (size_t)w->contact.segment_count, sizeof *w->contact.segments, compare_keys);
    int distinct = 0; // a swept particle may be listed twice (by its margin and by its path)
    for (int k = 0; k < w->contact.segment_count; ++k)
        if (distinct == 0 || w->contact.segments[distinct - 1].key != w->contact.segments[k].key)
            w->contact.segments[distinct++] = w->contact.segments[k];
    w->contact.segment_count = distinct;
    // merge: both sorted by key, into contact.next
    int n = w->contact.next_count, m = w->contact.segment_count;
    if (!ARRAY_RESERVE(w->contact.next, w->contact.next_cap, n + m))
        return; // out of memory: no spring contacts this step
    int i = n - 1, j = m - 1;
    for (int out = n + m - 1; out >= 0; --out) { // from the back, in place
        if (j < 0 || (i >= 0 && w->contact.next[i].key > w->contact.segments[j].key))
            w->contact.next[out] = w->contact.next[i--];
        else
            w->contact.next[out] = w->contact.segments[j--];
    }
    w->contact.next_count = n + m;
}
