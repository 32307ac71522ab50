// Queries a scene asks between steps: which particles are in a box (picking, sensing) and what
// a segment meets first (aiming). Box2D v3's b2World_OverlapAABB and b2World_CastRay, over
// circles and wall segments. A linear pass: queries are a handful per frame, and the step's
// grid is rebuilt each step, so it is not kept between them.
#include "world_internal.h"

int sb_world_query_box(const sb_world *w, sb_bounds box, sb_particle_id *out, int capacity)
{
    int n = 0;
    for (int i = 0; i < w->p_high; ++i) {
        if (!particle_alive(w, i))
            continue;
        // the box point nearest the centre is within the radius
        sb_vec2 p = w->pos[i];
        double cx = p.x < box.xmin ? box.xmin : (p.x > box.xmax ? box.xmax : p.x);
        double cy = p.y < box.ymin ? box.ymin : (p.y > box.ymax ? box.ymax : p.y);
        double dx = p.x - cx, dy = p.y - cy, r = w->radius[i];
        if (dx * dx + dy * dy > r * r)
            continue;
        if (n < capacity)
            out[n] = (sb_particle_id){(uint32_t)i, w->p_gen[i]};
        n += 1;
    }
    return n;
}

/// The fraction t in [0, 1] where p + t d enters the circle (c, r), or a negative number.
static double ray_circle(sb_vec2 p, sb_vec2 d, sb_vec2 c, double r)
{
    sb_vec2 m = v2_sub(p, c);
    double a = v2_dot(d, d), b = v2_dot(m, d), cc = v2_dot(m, m) - r * r;
    if (cc <= 0.0)
        return 0.0; // starts inside: hit at the start (Box2D reports no hit; a sensor wants one)
    if (a == 0.0 || b > 0.0)
        return -1.0;
    double disc = b * b - a * cc;
    if (disc < 0.0)
        return -1.0;
    double t = (-b - sqrt(disc)) / a;
    return t <= 1.0 ? t : -1.0;
}

/// The fraction where p + t d crosses the segment (a, b), or a negative number.
static double ray_segment(sb_vec2 p, sb_vec2 d, sb_vec2 a, sb_vec2 b)
{
    sb_vec2 e = v2_sub(b, a), ap = v2_sub(a, p);
    double denom = d.x * e.y - d.y * e.x;
    if (denom == 0.0)
        return -1.0; // parallel: grazing a segment is not meeting it
    double t = (ap.x * e.y - ap.y * e.x) / denom, u = (ap.x * d.y - ap.y * d.x) / denom;
    return t >= 0.0 && t <= 1.0 && u >= 0.0 && u <= 1.0 ? t : -1.0;
}

sb_ray_hit sb_world_raycast(const sb_world *w, sb_vec2 p1, sb_vec2 p2)
{
    sb_ray_hit hit;
    hit.hit = false;
    hit.particle = sb_null_particle();
    hit.wall = sb_null_wall();
    hit.point = p2;
    hit.normal = v2(0.0, 0.0);
    hit.fraction = 1.0;
    sb_vec2 d = v2_sub(p2, p1);
    double best = 2.0;
    for (int i = 0; i < w->p_high; ++i) {
        if (!particle_alive(w, i))
            continue;
        double t = ray_circle(p1, d, w->pos[i], w->radius[i]);
        if (t >= 0.0 && t < best) {
            best = t;
            hit.particle = (sb_particle_id){(uint32_t)i, w->p_gen[i]};
            sb_vec2 at = v2_mad(p1, t, d), n = v2_sub(at, w->pos[i]);
            double len = v2_len(n);
            hit.normal = len > 0.0 ? v2_scale(n, 1.0 / len) : v2_scale(d, -1.0 / (v2_len(d) + 1e-300));
        }
    }
    for (int k = 0; k < w->walls.high; ++k) {
        if (!w->walls.alive_flag[k])
            continue;
        double t = ray_segment(p1, d, w->walls.a[k], w->walls.b[k]);
        if (t >= 0.0 && t < best) {
            best = t;
            hit.particle = sb_null_particle();
            hit.wall = (sb_wall_id){(uint32_t)k, w->walls.gen[k]};
            sb_vec2 e = v2_sub(w->walls.b[k], w->walls.a[k]);
            sb_vec2 n = v2(-e.y, e.x);
            if (v2_dot(n, d) > 0.0) // facing the ray
                n = v2_scale(n, -1.0);
            hit.normal = v2_scale(n, 1.0 / v2_len(n));
        }
    }
    if (best <= 1.0) {
        hit.hit = true;
        hit.fraction = best;
        hit.point = v2_mad(p1, best, d);
    }
    return hit;
}
