// What the contact passes share (contact_solver.c, contact_impact.c, contact_project.c): a
// contact's geometry from the positions now, its kind (what its softness depends on), a pass
// over the contacts colour by colour, and the inverse masses, levers and impulses of its two
// sides. Inline, as springs_kernels.h is for the springs' passes.
#ifndef SB_CONTACT_KERNELS_H
#define SB_CONTACT_KERNELS_H

#include "sb_pool.h"
#include "world_internal.h"

/// A wall's unit normal, to the left of a -> b (0 for a wall of zero length).
static inline sb_vec2 wall_normal(sb_vec2 a, sb_vec2 b)
{
    sb_vec2 ab = v2_sub(b, a);
    double l = v2_len(ab);
    return l > 0.0 ? v2(-ab.y / l, ab.x / l) : v2(0, 0);
}

static inline void pair_geometry(const sb_world *w, sb_contact *c)
{
    sb_vec2 d = v2_sub(w->pos[c->b], w->pos[c->a]);
    double len = v2_len(d);
    if (len > 1e-12)
        c->normal = v2_scale(d, 1.0 / len);
    else if (c->normal.x == 0.0 && c->normal.y == 0.0)
        c->normal = v2(0, 1);
    c->separation = len - w->radius[c->a] - w->radius[c->b];
}

static inline void contact_geometry(const sb_world *w, sb_contact *c)
{
    if (c->b2 >= 0) // a solid spring's: a particle or a wall's corner against it
        c->corner ? corner_geometry(w, c) : segment_geometry(w, c);
    else if (c->b >= 0)
        pair_geometry(w, c);
    else
        static_shape_geometry(w, c);
}

/// A contact between particles one of which springs join (a bead of a wheel, a cloth, a net)
/// keeps the quarter-rate contact: the springs' position sweeps move their beads into what they
/// touch, and a stiffer contact turns those moves into speed (a car of bead wheels on rigid
/// spokes drives itself off at one sub-step). A particle on a solid spring keeps the floor: at
/// the quarter a ball goes through a solid bridge at one sub-step
/// (docs/decisions/2026-11-24-contacts-at-a-quarter-of-the-substep-rate.md).
static inline bool contact_joined(const sb_world *w, const sb_contact *c)
{
    return w->degree[c->a] > 0 || (c->b >= 0 && c->b2 < 0 && w->degree[c->b] > 0);
}

/// One end of the contact cannot move: a wall, a bound, a fixed particle (contact_hertz). Its
/// ends' inverse masses are the ones prepare copied.
static inline bool contact_held(const sb_contact *c)
{
    return c->b2 < 0 && (c->inv_mass_a == 0.0 || c->inv_mass_b == 0.0);
}

static inline contact_kind kind_of(const sb_world *w, const sb_contact *c)
{
    return contact_joined(w, c) ? CONTACT_JOINED : contact_held(c) ? CONTACT_HELD : CONTACT_FREE;
}

/// The contacts a solve pass takes: all of them, only those an end of which springs join
/// (contact_joined), or only the others.
typedef enum { CONTACTS_ALL, CONTACTS_JOINED, CONTACTS_FREE } contact_subset;

/// A pass over contacts, colour by colour (contacts_color): `base` is the colour's start in
/// contact.order while its range runs.
typedef struct contact_job {
    sb_world *w;
    int base;
    double h;
    bool flag;   // the pass's switch (use_bias, first_substep, preserve_impulse)
    sb_soft soft[CONTACT_KINDS]; // the solve's softness by kind_of (contact_softness)
    bool joined_differ;          // a joined contact's differs from a free one's (the floor binds)
    contact_subset subset; // which contacts a solve takes
    bool geometry_found;   // the relax's later passes: the first found it, and nothing has moved since
} contact_job;

static inline void for_each_color(sb_world *w, sb_range_fn *fn, contact_job *job)
{
    for (int color = 0; color < 64; ++color) {
        int from = w->contact.color_start[color], to = w->contact.color_start[color + 1];
        if (from == to)
            continue;
        job->base = from;
        if (color == 63)
            fn(job, 0, to - from);
        else
            sb_pool_for(w->pool, to - from, 1, CONTACTS_PER_THREAD, fn, job);
    }
}

/// The contact at position k of the colour the job runs.
static inline sb_contact *job_contact(const contact_job *job, int k) { return &job->w->contact.next[job->base + k]; }

static inline double inv_mass_of(const sb_world *w, int i) { return i >= 0 ? w->inv_mass[i] : 0.0; }

// The b side of a contact is a particle, a static shape, or a point of a solid spring at t: its
// ends share its motion by (1 - t) and t, and an impulse there by the same shares. The a side is a
// particle, or at a wall's corner (c->corner) the spring's point at t, its ends a and b2.

/// The a side's inverse mass at the contact point.
static inline double inv_mass_a(const sb_world *w, const sb_contact *c)
{
    if (!c->corner)
        return w->inv_mass[c->a];
    double u = 1.0 - c->t;
    return u * u * w->inv_mass[c->a] + c->t * c->t * w->inv_mass[c->b2];
}

/// A per-particle vector (velocities, displacements) of the a side at the contact point.
static inline sb_vec2 a_side(const sb_contact *c, const sb_vec2 *of)
{
    if (!c->corner)
        return of[c->a];
    return v2_add(v2_scale(of[c->a], 1.0 - c->t), v2_scale(of[c->b2], c->t));
}

/// The a side's radius at the contact point.
static inline double radius_a(const sb_world *w, const sb_contact *c)
{
    return c->corner ? (1.0 - c->t) * w->radius[c->a] + c->t * w->radius[c->b2] : w->radius[c->a];
}

/// The b side's inverse mass at the contact point.
static inline double inv_mass_b(const sb_world *w, const sb_contact *c)
{
    if (c->b < 0)
        return 0.0; // (a corner's b2 is on the a side)
    if (c->b2 < 0)
        return w->inv_mass[c->b];
    double u = 1.0 - c->t;
    return u * u * w->inv_mass[c->b] + c->t * c->t * w->inv_mass[c->b2];
}

/// A per-particle vector (velocities, displacements) of the b side at the contact point.
static inline sb_vec2 b_side(const sb_contact *c, const sb_vec2 *of)
{
    if (c->b < 0)
        return v2(0, 0);
    if (c->b2 < 0)
        return of[c->b];
    return v2_add(v2_scale(of[c->b], 1.0 - c->t), v2_scale(of[c->b2], c->t));
}

static inline sb_vec2 relative_velocity(const sb_world *w, const sb_contact *c)
{
    return v2_sub(b_side(c, w->vel), a_side(c, w->vel));
}

/// Adds `p` times each body's inverse mass (and share) to `out` (velocities or positions): -p for a.
/// A fixed particle is never written: contacts of one colour may share it (contacts_color), and
/// its inverse mass of 0 would only write back what it read.
static inline void apply_to(sb_world *w, const sb_contact *c, sb_vec2 p, sb_vec2 *out)
{
    if (c->corner) { // the a side's ends by their shares; the corner does not move
        out[c->a] = v2_mad(out[c->a], -w->inv_mass[c->a] * (1.0 - c->t), p);
        out[c->b2] = v2_mad(out[c->b2], -w->inv_mass[c->b2] * c->t, p);
        return;
    }
    if (w->inv_mass[c->a] > 0.0)
        out[c->a] = v2_mad(out[c->a], -w->inv_mass[c->a], p);
    if (c->b >= 0 && c->b2 < 0) {
        if (w->inv_mass[c->b] > 0.0)
            out[c->b] = v2_mad(out[c->b], w->inv_mass[c->b], p);
    } else if (c->b >= 0) {
        out[c->b] = v2_mad(out[c->b], w->inv_mass[c->b] * (1.0 - c->t), p);
        out[c->b2] = v2_mad(out[c->b2], w->inv_mass[c->b2] * c->t, p);
    }
}

static inline void apply_impulse(sb_world *w, const sb_contact *c, sb_vec2 p) { apply_to(w, c, p, w->vel); }

/// Each end's lever at the contact (its radius) and 1/I: zero for what does not turn (a wall, a
/// solid spring's side, a particle that does not roll).
typedef struct contact_levers { double ra, rb, ia, ib; bool b_turns; } contact_levers;

static inline contact_levers levers_of(const sb_world *w, const sb_contact *c)
{
    contact_levers l;
    l.b_turns = c->b >= 0 && c->b2 < 0;
    l.ra = c->corner ? 0.0 : w->radius[c->a];
    l.ia = c->corner ? 0.0 : w->scratch.inv_inertia[c->a];
    l.rb = l.b_turns ? w->radius[c->b] : 0.0;
    l.ib = l.b_turns ? w->scratch.inv_inertia[c->b] : 0.0;
    return l;
}

/// levers_of as the contact's prepare copied it (the velocity passes of a sub-step).
static inline contact_levers prepared_levers(const sb_contact *c)
{
    contact_levers l = {c->lever_a, c->lever_b, c->inv_inertia_a, c->inv_inertia_b, c->b >= 0 && c->b2 < 0};
    return l;
}

/// apply_impulse for a contact between two particles or with a static shape, with the inverse
/// masses prepare copied (the velocity passes of a sub-step).
static inline void apply_prepared(sb_world *w, const sb_contact *c, sb_vec2 p)
{
    if (c->inv_mass_a > 0.0) // a fixed particle is never written (contacts_color)
        w->vel[c->a] = v2_mad(w->vel[c->a], -c->inv_mass_a, p);
    if (c->inv_mass_b > 0.0)
        w->vel[c->b] = v2_mad(w->vel[c->b], c->inv_mass_b, p);
}

/// How fast the two surfaces' spin moves them past each other along the tangent t = (-n.y, n.x),
/// b's surface relative to a's: a point of a at ra n moves by omega_a ra t, a point of b at
/// -rb n by -omega_b rb t. A fixed particle's spin counts (a driven wheel), though contacts never
/// change it.
static inline double spin_slip(const sb_world *w, const sb_contact *c, const contact_levers *l)
{
    return -w->omega[c->a] * l->ra - (l->b_turns ? w->omega[c->b] * l->rb : 0.0);
}

/// The tangent's inverse mass: the ends' inverse masses `wsum` and what turning them adds.
static inline double tangent_sum(double wsum, const contact_levers *l)
{
    return wsum + l->ra * l->ra * l->ia + l->rb * l->rb * l->ib;
}

/// spin_slip in position form: how far this sub-step's turns moved the surfaces past each other.
static inline double turn_slip(const sb_world *w, const sb_contact *c, const contact_levers *l)
{
    return -(w->angle[c->a] - w->scratch.angle_prev[c->a]) * l->ra -
           (l->b_turns ? (w->angle[c->b] - w->scratch.angle_prev[c->b]) * l->rb : 0.0);
}

/// The contact's rolling radius: the ball's own on a wall, r_a r_b / (r_a + r_b) between two.
static inline double rolling_lever(const contact_levers *l)
{
    return l->b_turns ? l->ra * l->rb / (l->ra + l->rb) : l->ra;
}

/// Turns the ends by a tangent impulse pt (along t, on b; -pt on a) and an angular impulse pr
/// against their relative spin (on b; -pr on a).
static inline void apply_spin(sb_world *w, const sb_contact *c, const contact_levers *l, double pt, double pr)
{
    if (l->ia > 0.0)
        w->omega[c->a] -= l->ia * (l->ra * pt + pr);
    if (l->b_turns && l->ib > 0.0)
        w->omega[c->b] += l->ib * (pr - l->rb * pt);
}

#endif
