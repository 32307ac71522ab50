// Walls and bounds hold particle centres: each sub-step ends with every centre inside the
// bounds and on the side of each wall its path came from (continuous collision of centres with
// walls). The soft contacts own the circles' overlaps; this only keeps centres where they belong.
#include "contact_kernels.h"

// The bounds are a box the particles are confined to (sb_world_def), so the velocity
// methods also keep every centre inside it at the end of each sub-step: a soft contact
// gives way under a deep pile (300 layers in the 20000-ball pit pushed 18 circles through
// the floor), a bound must not let a particle out. Velocity into the wall is removed, as a
// rigid wall would. Only the centre is held, not the whole circle: the soft contact owns
// the overlap, and moving circles out of it by position would kick their neighbours (a pile at
// rest would keep popping).
// One axis of the box: a coordinate past [lo, hi] goes back onto the wall and stops
// moving outward.
static inline void confine_axis(double *p, double *v, double lo, double hi)
{
    if (*p < lo) {
        *p = lo;
        *v = *v < 0.0 ? 0.0 : *v;
    } else if (*p > hi) {
        *p = hi;
        *v = *v > 0.0 ? 0.0 : *v;
    }
}

static void confine_range(void *ctx, int from, int to)
{
    sb_world *w = ctx;
    const sb_bounds b = w->def.bounds;
    for (int i = from; i < to; ++i) {
        if (w->inv_mass[i] == 0.0) // fixed (or dead) particles stay where they are put
            continue;
        confine_axis(&w->pos[i].x, &w->vel[i].x, b.xmin, b.xmax);
        confine_axis(&w->pos[i].y, &w->vel[i].y, b.ymin, b.ymax);
    }
}

// Each particle on its own: on the world's threads.
void contacts_confine_to_bounds(sb_world *w)
{
    if (w->def.has_bounds)
        sb_pool_for(w->pool, w->p_high, 1, PARTICLES_PER_THREAD, confine_range, w);
}

// Continuous collision of centres with walls: a sub-step's path from w->scratch.start to the new position
// that crosses a wall's line between its ends stops just short of it, on the side it came from,
// and loses its velocity into the wall. So no centre ever ends up on the other side of a wall,
// however fast or however heavily pushed; the soft contact then sets the circle's overlap right.
// A path may cross several walls (cutting the corner of a crest crosses the slope it leaves and
// the one it meets): only the first crossing along the path counts, as a time of impact does;
// wall by wall, the later wall could hold the centre on its far side, inside the hill.
// Every method calls it at the end of each sub-step.
void walls_hold_centres(sb_world *w)
{
    if (w->walls.high == 0)
        return;
    if (w->walls.dirty || !w->walls.tree) // walls changed since the step's contacts were found
        wall_tree_build(w);
    for (int i = 0; i < w->p_high; ++i) {
        w->scratch.hold_frac[i] = 2.0;
        w->scratch.hold_wall[i] = -1;
        if (w->inv_mass[i] == 0.0) // fixed (or dead) particles go where they are put
            continue;
        const sb_vec2 p0 = w->scratch.start[i], p1 = w->pos[i];
        // the walls whose boxes the path's box meets, by number: the first crossing wins a tie
        walls_near near;
        const bool found = walls_near_find(w, fmin(p0.x, p1.x), fmin(p0.y, p1.y), fmax(p0.x, p1.x), fmax(p0.y, p1.y), &near);
        for (int m = 0; m < (found ? near.count : w->walls.high); ++m) { // out of memory: every wall
            const int k = found ? near.walls[m] : m;
            if (!w->walls.alive_flag[k])
                continue;
            const sb_vec2 a = w->walls.a[k], b = w->walls.b[k], ab = v2_sub(b, a), n = wall_normal(a, b);
            const double len2 = v2_dot(ab, ab);
            if (len2 == 0.0)
                continue;
            const double xmin = a.x < b.x ? a.x : b.x, xmax = a.x < b.x ? b.x : a.x;
            const double ymin = a.y < b.y ? a.y : b.y, ymax = a.y < b.y ? b.y : a.y;
            if ((p0.x > p1.x ? p0.x : p1.x) < xmin || (p0.x < p1.x ? p0.x : p1.x) > xmax ||
                (p0.y > p1.y ? p0.y : p1.y) < ymin || (p0.y < p1.y ? p0.y : p1.y) > ymax)
                continue;
            double d0 = v2_dot(v2_sub(p0, a), n), d1 = v2_dot(v2_sub(p1, a), n);
            if (d0 == 0.0 || (d0 > 0.0) == (d1 > 0.0))
                continue; // no crossing of the line (a path starting on it picks its side now)
            if (w->walls.one_sided[k] && d0 < 0.0)
                continue; // through a one-sided wall from behind: it is not there
            double f = d0 / (d0 - d1); // where along the path
            sb_vec2 q = v2_mad(p0, f, v2_sub(p1, p0));
            double t = v2_dot(v2_sub(q, a), ab) / len2;
            if (t < 0.0 || t > 1.0 || f >= w->scratch.hold_frac[i])
                continue; // past the wall's ends, or after a crossing already found
            w->scratch.hold_frac[i] = f;
            w->scratch.hold_wall[i] = k;
        }
        walls_near_free(&near);
    }
    for (int i = 0; i < w->p_high; ++i) {
        int k = w->scratch.hold_wall[i];
        if (k < 0)
            continue;
        const sb_vec2 a = w->walls.a[k], n = wall_normal(a, w->walls.b[k]);
        const sb_vec2 p0 = w->scratch.start[i];
        const double d0 = v2_dot(v2_sub(p0, a), n), side = d0 > 0.0 ? 1.0 : -1.0;
        const sb_vec2 q = v2_mad(p0, w->scratch.hold_frac[i], v2_sub(w->pos[i], p0));
        const double half = 0.5 * (d0 > 0.0 ? d0 : -d0), keep = half < 1e-6 ? half : 1e-6; // no libm in the loop
        w->pos[i] = v2_mad(q, side * keep, n); // just short of the line
        double vn = v2_dot(w->vel[i], n);
        if (vn * side < 0.0)
            w->vel[i] = v2_mad(w->vel[i], -vn, n);
    }
}
