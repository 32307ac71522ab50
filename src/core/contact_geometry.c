// A contact's geometry, its normal and separation from the positions now: a particle against a
// particle, a wall (a face kept, a chain's corners owned by one wall), a bound, or a solid
// spring (a capsule, a side kept). Box2D v3's manifold.c holds its shapes' counterparts.
#include "contact_kernels.h"

static sb_vec2 closest_on_segment(sb_vec2 p, sb_vec2 a, sb_vec2 b)
{
    sb_vec2 ab = v2_sub(b, a);
    double len2 = v2_dot(ab, ab);
    double t = len2 > 0.0 ? v2_dot(v2_sub(p, a), ab) / len2 : 0.0;
    t = t < 0.0 ? 0.0 : t > 1.0 ? 1.0 : t;
    return v2_mad(a, t, ab);
}

/// A contact that does not touch: what static_geometry gives a corner that a neighbour owns. It
/// carries no impulse either: a warm start pushed along the stand-in normal would give a ball
/// rolling down a polyline a frame's worth of gravity at each joint it crosses.
static void no_contact(sb_contact *c)
{
    c->normal = v2(0, -1);
    c->separation = 1e30;
    c->normal_impulse = c->tangent_impulse = c->rolling_impulse = 0.0;
}

/// Where the centre p projects on wall k, as a fraction of its length (outside [0, 1]: past an end).
static double along_wall(const sb_world *w, int k, sb_vec2 p)
{
    sb_vec2 a = w->walls.a[k], ab = v2_sub(w->walls.b[k], a);
    double len2 = v2_dot(ab, ab);
    return len2 > 0.0 ? v2_dot(v2_sub(p, a), ab) / len2 : -1.0;
}

bool wall_ghost(const sb_world *w, int i, sb_contact *c, double reach)
{
    const int k = (int)c->shape;
    const sb_vec2 p = w->pos[i], a = w->walls.a[k], b = w->walls.b[k];
    if (v2_len(v2_sub(closest_on_segment(p, a, b), p)) - w->radius[i] >= reach)
        return false;
    const double t = along_wall(w, k, p);
    const int nb = t < 0.0 || t > 1.0 ? w->walls.nb[2 * k + (t > 1.0)] : -1;
    if (nb < 0)
        return false;
    // the chain's walls run one way, so its face is the side of the wall that owns the corner now
    const sb_vec2 n = wall_normal(w->walls.a[nb], w->walls.b[nb]);
    c->side = v2_dot(v2_sub(p, w->walls.a[nb]), n) >= 0.0 ? 1 : -1;
    return true;
}

/// Normal (from the particle toward the static shape) and separation of a static contact.
/// A wall has two faces, and a contact keeps the face its particle came from (`side`): a centre
/// pushed past the wall's line by a heavy pile reads as deep in the wall and is pushed back,
/// where the nearest point alone would push it on through (two of 4000 heavy circles went
/// through a floor that way). Past the wall's ends the nearest point is all there is.
void static_shape_geometry(const sb_world *w, sb_contact *c)
{
    sb_vec2 p = w->pos[c->a];
    double r = w->radius[c->a];
    if (c->shape >= SHAPE_BOUND) {
        const sb_bounds *bd = &w->def.bounds;
        switch (c->shape - SHAPE_BOUND) {
        case 0: c->normal = v2(-1, 0); c->separation = p.x - bd->xmin - r; break;
        case 1: c->normal = v2(1, 0); c->separation = bd->xmax - p.x - r; break;
        case 2: c->normal = v2(0, -1); c->separation = p.y - bd->ymin - r; break;
        default: c->normal = v2(0, 1); c->separation = bd->ymax - p.y - r; break;
        }
        return;
    }
    const int k = (int)c->shape;
    sb_vec2 a = w->walls.a[k], b = w->walls.b[k], ab = v2_sub(b, a);
    double len2 = v2_dot(ab, ab), t = len2 > 0.0 ? v2_dot(v2_sub(p, a), ab) / len2 : 0.0;
    const bool one_sided = w->walls.one_sided[k];
    if (one_sided && c->side == 0 && len2 > 0.0 && v2_dot(v2_sub(p, a), wall_normal(a, b)) < 0.0) {
        // Met from behind, a one-sided wall is not there; a contact made in front keeps its face
        // and pushes a centre that a sub-step moved behind back out, as a two-sided wall does.
        no_contact(c);
        return;
    }
    if (len2 > 0.0 && (t < 0.0 || t > 1.0)) {
        // Past an end: the corner belongs to the neighbouring wall of a chain when the centre is in
        // front of that wall's face, or to the lower-numbered wall of the two when it is past both.
        // Otherwise the joint of two walls is a corner of its own, which a circle sliding from one
        // wall onto the next meets head on (Box2D's chain shapes drop these ghost contacts too).
        int nb = w->walls.nb[2 * k + (t > 1.0)];
        if (nb >= 0) {
            double u = along_wall(w, nb, p);
            if ((u >= 0.0 && u <= 1.0) || nb < k) {
                no_contact(c);
                return;
            }
        }
    }
    if (len2 > 0.0 && t >= 0.0 && t <= 1.0) {
        sb_vec2 n = wall_normal(a, b);
        if (one_sided)
            c->side = 1;
        // The face is the one the centre is in front of when it first comes over the wall, not
        // the side of the wall's infinite line while the centre is still past its end: at a crest
        // a particle coming up one slope is below the next wall's line, and that wall would push
        // it down into the hill.
        if (c->side == 0)
            c->side = v2_dot(v2_sub(p, a), n) >= 0.0 ? 1 : -1;
        double d = v2_dot(v2_sub(p, a), n) * c->side; // > 0 on the particle's own side
        c->normal = v2_scale(n, -(double)c->side);
        c->separation = d - r;
        return;
    }
    sb_vec2 d = v2_sub(closest_on_segment(p, a, b), p);
    double len = v2_len(d);
    if (len > 1e-12) {
        c->normal = v2_scale(d, 1.0 / len);
    } else { // centre on the wall: push out along the wall's normal
        sb_vec2 n = wall_normal(a, b);
        c->normal = n.x != 0.0 || n.y != 0.0 ? v2_scale(n, -1.0) : v2(0, -1);
    }
    c->separation = len - r;
}


/// A particle against a solid spring, a capsule whose radius runs from its ends' radii: the
/// nearest point of the spring, where along it (t), and the normal from the particle toward it.
void segment_geometry(const sb_world *w, sb_contact *c)
{
    sb_vec2 p = w->pos[c->a], e0 = w->pos[c->b], d = v2_sub(w->pos[c->b2], e0);
    double len2 = v2_dot(d, d), t = len2 > 0.0 ? v2_dot(v2_sub(p, e0), d) / len2 : 0.5;
    bool along = t > 0.0 && t < 1.0;
    t = t < 0.0 ? 0.0 : t > 1.0 ? 1.0 : t;
    sb_vec2 to = v2_sub(v2_mad(e0, t, d), p);
    double len = v2_len(to), reach = w->radius[c->a] + ((1.0 - t) * w->radius[c->b] + t * w->radius[c->b2]);
    c->t = t;
    // As a wall does, the contact keeps the side of the spring the particle met it from: a ball
    // pressed past a link's line is deep in it and goes back, not on through (1 kg on 0.5 kg beads
    // slipped through a bridge at one sub-step that way).
    // The side is taken when the particle is first alongside the spring: past an end, the line's
    // side says nothing (a bead coming round a ring's bead took the inside that way, and was
    // then pushed in).
    double cross = d.x * (p.y - e0.y) - d.y * (p.x - e0.x);
    if (c->side == 0 && along && len2 > 0.0)
        c->side = cross >= 0.0 ? 1 : -1;
    if (along && len2 > 0.0 && c->side != 0 && cross * c->side < 0.0) {
        double inv = 1.0 / sqrt(len2);
        c->normal = v2_scale(v2(-d.y * inv, d.x * inv), -(double)c->side);
        c->separation = -len - reach;
        return;
    }
    if (len > 1e-12)
        c->normal = v2_scale(to, 1.0 / len);
    else if (c->normal.x == 0.0 && c->normal.y == 0.0)
        c->normal = len2 > 0.0 ? v2_scale(v2(-d.y, d.x), -(double)(c->side ? c->side : 1) / sqrt(len2)) : v2(0, 1);
    c->separation = len - reach;
}

void corner_geometry(const sb_world *w, sb_contact *c)
{
    const int k = (int)c->shape;
    const sb_vec2 corner = c->corner == 1 ? w->walls.a[k] : w->walls.b[k];
    const sb_vec2 e0 = w->pos[c->a], d = v2_sub(w->pos[c->b2], e0);
    const double len2 = v2_dot(d, d);
    double t = len2 > 0.0 ? v2_dot(v2_sub(corner, e0), d) / len2 : 0.5;
    const bool along = t > 0.0 && t < 1.0;
    t = t < 0.0 ? 0.0 : t > 1.0 ? 1.0 : t;
    c->t = t;
    const sb_vec2 q = v2_mad(e0, t, d), to = v2_sub(corner, q);
    const double len = v2_len(to), reach = radius_a(w, c);
    // a one-sided wall is solid from the left of a -> b: a spring that comes to its corner from
    // behind passes it, as a particle passes the wall
    if (c->side == 0 && w->walls.one_sided[k] && v2_dot(v2_sub(q, corner), wall_normal(w->walls.a[k], w->walls.b[k])) < 0.0) {
        no_contact(c);
        return;
    }
    // the side of the spring's line the corner came from, kept: a corner pressed past the line is
    // deep in the spring and pushes it back, not on over the corner
    const double cross = d.x * (corner.y - e0.y) - d.y * (corner.x - e0.x);
    if (c->side == 0 && along && len2 > 0.0)
        c->side = cross >= 0.0 ? 1 : -1;
    if (along && len2 > 0.0 && c->side != 0 && cross * c->side < 0.0) {
        const double inv = 1.0 / sqrt(len2);
        c->normal = v2_scale(v2(-d.y * inv, d.x * inv), (double)c->side);
        c->separation = -len - reach;
        return;
    }
    if (len > 1e-12)
        c->normal = v2_scale(to, 1.0 / len);
    else if (c->normal.x == 0.0 && c->normal.y == 0.0)
        c->normal = len2 > 0.0 ? v2_scale(v2(-d.y, d.x), (double)(c->side ? c->side : 1) / sqrt(len2)) : v2(0, 1);
    c->separation = len - reach;
}

void contact_find_geometry(const sb_world *w, sb_contact *c) { contact_geometry(w, c); }
