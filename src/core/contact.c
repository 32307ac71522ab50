// Solving contacts: their geometry, the velocity methods' soft contact (seed 003, tuned as Box2D
// v3's soft step) with friction and rolling, the bounds and the walls that no centre crosses, and
// the position methods' projections (verlet's two-pass collide, seed 004; xpbd). contact_find.c
// finds the contacts each step.
#include "f4.h"
#include "sb_pool.h"
#include "world_internal.h"

#include <stdlib.h>
#include <string.h>

/// Contact softness: a quarter of the sub-step rate (Box2D v3's bound), damping ratio 10, and
/// at most 3 m/s of push-out velocity. Box2D v3 also caps the frequency at 30 Hz, which binds at
/// its 4 sub-steps of a 60 Hz step; here it bound at the default 6 and set how far things sink
/// into each other. A soft contact holds a load F at an overlap of F / (m_eff w^2) whatever the
/// size of the particles, so a column of 20 balls of 5 cm sank 110 mm at 30 Hz (5.5 mm, 11% of a
/// radius, per contact) and 12 mm at the default 90 Hz; the 4000-ball pit's
/// deepest overlap went from 87% of a radius to 16%, it still comes to rest (KE 1.5e-5 J) and
/// steps as fast.
static const double contact_damping_ratio = 10.0;
static const double contact_push_max = 3.0;
/// The softest a contact gets, as a fraction of the step rate: 45 Hz at 60 steps a second. The
/// quarter of the sub-step rate is the stiffest contact one solve pass and one relax pass a
/// sub-step hold still (above it a column popped up), and at one and two sub-steps it is 15 and
/// 30 Hz: the column of 20 balls sank 442 and 110 mm (100 at most is the aim). Where
/// this floor is above the quarter, the contacts take more passes (contact_passes), which hold a
/// stiffer contact still; how stiff a contact a number of passes holds is about proportional to
/// it (0.075 of the step rate a pass here). A soft contact holds a load at an overlap of
/// load / (m w^2), so the floor sets how deep a pile rests at one and two sub-steps. At 0.55 of
/// the step rate with six passes, 1000-ball piles rested 22 to 33% of a radius deep at one
/// sub-step (three pours, friction 0.3 and 0; under a quarter is the aim), 2000-ball piles up
/// to 54%, and the 4000-ball pit 75% and crushed (7.9 m high, 9.0 at six sub-steps). Measured at
/// one and two sub-steps on those piles, the column, a 100 kg ball dropped on it, and the 4000-ball
/// pit (deepest overlap, kinetic energy after 10 s):
/// - 0.55, 6 passes: piles 33% / 54%, column 91 mm, pit 75%, 2.22 ms a step;
/// - 0.75, 8: 21% / 31%, 49 mm, pit 48% but 0.13 J still ringing at 10 s, 2.60 ms;
/// - 0.75, 10: 20% / 36%, 49 mm, pit 44%, every pile under 0.07 J, 2.67 ms;
/// - 0.9, 12: 18% / 26%, 34 mm, pit 41%, 2.92 ms;
/// - 0.9 with 6 or 8 passes, and 0.7 with 6: the 100 kg ball rang (5 to 1000 J) and the pit kept
///   5 J. The default 6 sub-steps (12 passes, at 90 Hz): 15%, 2.34 ms.
static const double contact_step_fraction = 0.75;
/// The contacts' solve passes a step, and as many relax passes, where the floor above binds (a
/// relax of fewer passes than the solve left a ball that rolling resistance had stopped
/// reporting 2 mm/s and a spin while it stood still: the relax's velocity is the one kept, the
/// solve's the one that moves it). The position methods project their contacts six times a step
/// there, as at six sub-steps (contact_passes); ten, as the velocity methods, rested their piles
/// better at one sub-step (4000 balls: 3.3 J at 10 s against 10.6) at a third more time a step.
enum { CONTACT_STIFF_PASSES = 10, PROJECTION_STIFF_PASSES = 6 };

/// Whether the floor on the contacts' stiffness binds at sub-step h of step dt.
static bool contact_floor_binds(double h, double dt) { return contact_step_fraction / dt > 0.25 / h; }

/// Contact softness frequency for sub-step h of step dt: a quarter of the sub-step rate, and no
/// less than contact_step_fraction of the step rate unless an end is joined by springs
/// (contact_joined); twice that where one end cannot move (contact_held), as Box2D v3 makes its
/// contacts with static bodies (its solver context's staticSoftness, made at twice contactHertz):
/// that contact holds the whole load at the root of a pile, where one between two moving
/// particles shares it. Heavy circles of 8 to 31 kg poured into a U of three walls rested
/// 50, 48 and 12% of a radius into the walls at 1, 2 and 6 sub-steps, now 10, 17 and 5%; a 20 kg
/// ball driving a row of light ones into a wall at one sub-step took the last 17% into it, now 6%.
/// A joined end keeps the quarter whatever holds the other.
double contact_hertz(double h, double dt, contact_kind kind)
{
    if (kind == CONTACT_JOINED)
        return 0.25 / h;
    const double hz = contact_floor_binds(h, dt) ? contact_step_fraction / dt : 0.25 / h;
    return kind == CONTACT_HELD ? 2.0 * hz : hz;
}

/// How many passes the contacts' solve, and their relax, take a sub-step (CONTACT_STIFF_PASSES),
/// or how many times the position methods project them each iteration
/// (PROJECTION_STIFF_PASSES): one, or a share of those a step where the floor binds. So at one
/// and two sub-steps a pile gets the projections a step it gets at six: with one an iteration,
/// verlet's and xpbd's 1000-ball piles crept (0.9 to 1.4 J after 10 s at one sub-step, 0.1 to
/// 0.2 J at two; now 0.02 to 0.3 J) and the 4000-ball pit kept 3600 and 400 J at one sub-step
/// (now 16 and 9 J; at 6 sub-steps 1.2 and 0.4).
static int contact_passes(const sb_world *w, double h, int stiff_passes)
{
    const int n = w->def.substeps;
    return contact_floor_binds(h, w->def.dt) ? (stiff_passes + n - 1) / n : 1;
}

static sb_vec2 closest_on_segment(sb_vec2 p, sb_vec2 a, sb_vec2 b)
{
    sb_vec2 ab = v2_sub(b, a);
    double len2 = v2_dot(ab, ab);
    double t = len2 > 0.0 ? v2_dot(v2_sub(p, a), ab) / len2 : 0.0;
    t = t < 0.0 ? 0.0 : t > 1.0 ? 1.0 : t;
    return v2_mad(a, t, ab);
}

/// A wall's unit normal, to the left of a -> b (0 for a wall of zero length).
static sb_vec2 wall_normal(sb_vec2 a, sb_vec2 b)
{
    sb_vec2 ab = v2_sub(b, a);
    double l = v2_len(ab);
    return l > 0.0 ? v2(-ab.y / l, ab.x / l) : v2(0, 0);
}

/// A contact that does not touch: what static_geometry gives a corner that a neighbour owns.
static void no_contact(sb_contact *c)
{
    c->normal = v2(0, -1);
    c->separation = 1e30;
}

/// Where the centre p projects on wall k, as a fraction of its length (outside [0, 1]: past an end).
static double along_wall(const sb_world *w, int k, sb_vec2 p)
{
    sb_vec2 a = w->wall_a[k], ab = v2_sub(w->wall_b[k], a);
    double len2 = v2_dot(ab, ab);
    return len2 > 0.0 ? v2_dot(v2_sub(p, a), ab) / len2 : -1.0;
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
    sb_vec2 a = w->wall_a[k], b = w->wall_b[k], ab = v2_sub(b, a);
    double len2 = v2_dot(ab, ab), t = len2 > 0.0 ? v2_dot(v2_sub(p, a), ab) / len2 : 0.0;
    const bool one_sided = w->w_one_sided[k];
    if (one_sided && c->side == 0 && len2 > 0.0 && v2_dot(v2_sub(p, a), wall_normal(a, b)) < 0.0) {
        // Met from behind, a one-sided wall is not there; a contact made in front keeps its face
        // and pushes a centre that a sub-step moved behind back out, as a two-sided wall does.
        no_contact(c);
        return;
    }
    if (len2 > 0.0 && (t < 0.0 || t > 1.0)) {
        // Past an end: the corner belongs to the neighbouring wall of a chain when the centre is in
        // front of that wall's face, or to the lower-numbered wall of the two when it is past both.
        // Without this the joint of two walls was a corner of its own, which a circle sliding from
        // one wall onto the next met head on (Box2D's chain shapes drop these ghost contacts too).
        int nb = w->wall_nb[2 * k + (t > 1.0)];
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
        // The face is the one the centre is in front of when it first comes over the wall. Taken
        // from the wall's infinite line while the centre was still past its end, it was wrong at a
        // crest: a particle coming up one slope was below the next wall's line, so that wall
        // pushed it down into the hill and it fell through.
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

static inline void contact_geometry(const sb_world *w, sb_contact *c)
{
    if (c->b2 >= 0)
        segment_geometry(w, c);
    else if (c->b >= 0)
        pair_geometry(w, c);
    else
        static_shape_geometry(w, c);
}

void contact_find_geometry(const sb_world *w, sb_contact *c) { contact_geometry(w, c); }

sb_soft contact_softness(double h, double dt, contact_kind kind)
{
    return soft_from_hertz(contact_hertz(h, dt, kind), contact_damping_ratio, h);
}

/// A contact between particles one of which springs join (a bead of a wheel, a cloth, a net)
/// keeps the quarter-rate contact: the springs' position sweeps move their beads into what they
/// touch, and the stiffer contact turned those moves into speed. At one sub-step a car of bead
/// wheels on rigid spokes (scripts/car.lua) drove itself off at 2 to 6 J with the floor on every
/// contact; with joined particles left at the quarter it stays at rest as before (1e-4 J). A
/// particle on a solid spring keeps the floor: at the quarter, with the floor's passes, a 1 kg
/// ball went through a solid bridge at one sub-step in soft.
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

double contact_push_limit(void) { return contact_push_max; }

/// The contacts a solve pass takes: all of them, only those an end of which springs join
/// (contact_joined), or only the others.
typedef enum { CONTACTS_ALL, CONTACTS_JOINED, CONTACTS_FREE } contact_subset;

/// A pass over contacts, colour by colour (contacts_color): `base` is the colour's start in
/// contact_order while its range runs.
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

static void for_each_color(sb_world *w, sb_range_fn *fn, contact_job *job)
{
    for (int color = 0; color < 64; ++color) {
        int from = w->contact_color_start[color], to = w->contact_color_start[color + 1];
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
static inline sb_contact *job_contact(const contact_job *job, int k) { return &job->w->contacts_next[job->base + k]; }

static inline double inv_mass_of(const sb_world *w, int i) { return i >= 0 ? w->inv_mass[i] : 0.0; }

// The b side of a contact is a particle, a static shape, or a point of a solid spring at t: its
// ends share its motion by (1 - t) and t, and an impulse there by the same shares.

/// The b side's inverse mass at the contact point.
static inline double inv_mass_b(const sb_world *w, const sb_contact *c)
{
    if (c->b < 0)
        return 0.0;
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
    return v2_sub(b_side(c, w->vel), w->vel[c->a]);
}

/// Adds `p` times each body's inverse mass (and share) to `out` (velocities or positions): -p for a.
/// A fixed particle is never written: contacts of one colour may share it (contacts_color), and
/// its inverse mass of 0 would only write back what it read.
static inline void apply_to(sb_world *w, const sb_contact *c, sb_vec2 p, sb_vec2 *out)
{
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
    l.ra = w->radius[c->a];
    l.ia = w->inv_inertia[c->a];
    l.rb = l.b_turns ? w->radius[c->b] : 0.0;
    l.ib = l.b_turns ? w->inv_inertia[c->b] : 0.0;
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
    return -(w->angle[c->a] - w->angle_prev[c->a]) * l->ra -
           (l->b_turns ? (w->angle[c->b] - w->angle_prev[c->b]) * l->rb : 0.0);
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

/// A contact's masses and levers for this sub-step (its geometry found): in the first sub-step,
/// and in every one for a solid spring's contact, whose share of each end moves (masses change
/// between steps only: retune.c ramps them there).
static inline void prepare_contact(const sb_world *w, sb_contact *c, bool first_substep)
{
    if (!first_substep && c->b2 < 0)
        return;
    c->inv_mass_a = inv_mass_of(w, c->a);
    c->inv_mass_b = c->b >= 0 && c->b2 < 0 ? w->inv_mass[c->b] : 0.0; // a solid spring's: unused
    double wsum = c->inv_mass_a + inv_mass_b(w, c);
    c->normal_mass = wsum > 0.0 ? 1.0 / wsum : 0.0;
    // the tangent moves the ends and turns them: its mass is lighter where they roll
    contact_levers l = levers_of(w, c);
    double tsum = tangent_sum(wsum, &l);
    c->tangent_mass = tsum > 0.0 ? 1.0 / tsum : 0.0;
    c->lever_a = l.ra;
    c->lever_b = l.rb;
    c->inv_inertia_a = l.ia;
    c->inv_inertia_b = l.ib;
    if (first_substep) {
        c->relative_velocity = v2_dot(relative_velocity(w, c), c->normal);
        c->max_normal_impulse = 0.0;
    }
}

static void prepare_range(void *ctx, int from, int to)
{
    const contact_job *job = ctx;
    for (int k = from; k < to; ++k) {
        sb_contact *c = &job->w->contacts_next[k];
        contact_geometry(job->w, c);
        prepare_contact(job->w, c, job->flag);
    }
}

void contacts_prepare(sb_world *w, double h, bool first_substep, bool geometry_current)
{
    if (geometry_current && !first_substep) {
        // nothing has moved since the geometry was found, so only a solid spring's contact has
        // anything to prepare (skipping the rest: the frictionless 4000-ball pit 1.91 -> 1.77 ms a
        // step); those are in colour 63, the last
        for (int k = w->contact_color_start[63]; k < w->contact_next_count; ++k)
            prepare_contact(w, &w->contacts_next[k], false);
        return;
    }
    contact_job job = {.w = w, .h = h, .flag = first_substep};
    sb_pool_for_segments(w->pool, 64, w->contact_color_start, CONTACTS_PER_THREAD, prepare_range, &job);
    if (first_substep)
        w->contacts_joined = -1; // a new step's contacts: counted when a method first asks (joined_contacts)
}

/// A contact with no friction, no rolling resistance and no tangent impulse left: its solve is
/// the normal impulse alone (friction_impulse_step would clamp the tangent to zero and the
/// spin to nothing). The frictionless 4000-ball pit: 2.27 -> 2.04 ms a step.
static inline bool frictionless(const sb_contact *c)
{
    return c->friction == 0.0 && c->tangent_impulse == 0.0 && c->rolling_resistance <= 0.0;
}

static void warm_start_range(void *ctx, int from, int to)
{
    const contact_job *job = ctx;
    sb_world *w = job->w;
    for (int k = from; k < to; ++k) {
        sb_contact *c = job_contact(job, k);
        if (c->art) // solved whole each time (articulation.c)
            continue;
        sb_vec2 t = v2(-c->normal.y, c->normal.x);
        sb_vec2 p = v2_add(v2_scale(c->normal, c->normal_impulse), v2_scale(t, c->tangent_impulse));
        if (c->b2 < 0)
            apply_prepared(w, c, p);
        else
            apply_impulse(w, c, p);
        if (c->rolling_resistance <= 0.0)
            c->rolling_impulse = 0.0;
        contact_levers l = prepared_levers(c);
        if ((l.ia > 0.0 || l.ib > 0.0) && !frictionless(c)) // (a frictionless one's spin is 0 exactly)
            apply_spin(w, c, &l, c->tangent_impulse, c->rolling_impulse);
    }
}

void contacts_warm_start(sb_world *w)
{
    contact_job job = {.w = w};
    for_each_color(w, warm_start_range, &job);
}

/// One soft non-penetration update of the contact's accumulated normal impulse, kept >= 0, at
/// normal velocity vn; returns the impulse to apply now.
static inline double normal_impulse_step(sb_contact *c, double vn, double bias, double mass_scale, double impulse_scale)
{
    double impulse = -c->normal_mass * mass_scale * (vn + bias) - impulse_scale * c->normal_impulse;
    double total = c->normal_impulse + impulse;
    total = total > 0.0 ? total : 0.0;
    double pn = total - c->normal_impulse;
    c->normal_impulse = total;
    if (total > c->max_normal_impulse)
        c->max_normal_impulse = total;
    return pn;
}

/// Coulomb friction at tangent slip vt, within mu times the normal impulse, through the tangent
/// mass (the normal mass where neither end turns). Returns the impulse to apply now.
static inline double friction_impulse_step(sb_contact *c, double vt)
{
    double limit = c->friction * c->normal_impulse;
    double tangent = c->tangent_impulse - c->tangent_mass * vt;
    tangent = tangent < -limit ? -limit : tangent > limit ? limit : tangent;
    double pt = tangent - c->tangent_impulse;
    c->tangent_impulse = tangent;
    return pt;
}

/// Rolling resistance: an angular impulse against the ends' relative spin, within the rolling
/// resistance times the normal impulse times the contact's rolling radius (the ball's own on a
/// wall, r_a r_b / (r_a + r_b) between two): the textbook torque c_rr N r, solved as Box2D v3
/// solves its rolling resistance (an accumulated, clamped angular impulse). Returns it.
static inline double rolling_impulse_step(const sb_world *w, sb_contact *c, const contact_levers *l)
{
    const double k = l->ia + l->ib;
    if (c->rolling_resistance <= 0.0 || k == 0.0)
        return 0.0;
    const double lever = rolling_lever(l);
    const double limit = c->rolling_resistance * lever * c->normal_impulse;
    const double relative = (l->b_turns ? w->omega[c->b] : 0.0) - w->omega[c->a];
    double total = c->rolling_impulse - relative / k;
    total = total < -limit ? -limit : total > limit ? limit : total;
    double pr = total - c->rolling_impulse;
    c->rolling_impulse = total;
    return pr;
}

// ------------------------------------------------------------------ four contacts at a time
//
// solve_one's pair path, lane by lane: its formulas are normal_impulse_step and
// friction_impulse_step, which a change must make in both (simd_matches_scalar fails otherwise).
/// The relax's bias for a speculative contact (s > 0) that closes at vn: it holds what would
/// close within the next sub-step, but a closing faster than the restitution threshold is an
/// impact, which the next sub-step's collisions take (contacts_collide): held here it would meet
/// them at the speed the hold left it, and a struck row would take the blow as one.
static inline double impact_ahead(const sb_world *w, const sb_contact *c, bool use_bias, double s, double vn, double bias)
{
    return !use_bias && s > 0.0 && c->restitution > 0.0 && vn < -w->def.restitution_threshold && -vn > bias ? -vn : bias;
}

// Contacts of one colour (0 to 62) share no moving particle, so four can be solved at once, as
// four springs are (springs_simd.c): the same IEEE operations in each lane in the scalar order
// (no fused multiply-add: CMakeLists.txt sets -ffp-contract=off), so the world is bit-identical
// to the scalar solve's (world_tests: simd_matches_scalar). A group of four goes to the vector
// path when all four are between two particles, solvable and without rolling resistance; any
// other group runs one at a time. Results are written back lane by lane, and a fixed end (shared
// by many contacts of a colour) is never written, as in the scalar path (f4.h: AVX2, or
// WebAssembly SIMD in the browser).
#ifdef F4_AVAILABLE

/// A lane of the contacts' field f: c[0]->f in lane 0.
#define LANES(c, f) f4_lanes((c)[0]->f, (c)[1]->f, (c)[2]->f, (c)[3]->f)

F4_TARGET static void solve4(const contact_job *job, sb_contact *const *c)
{
    sb_world *w = job->w;
    const sb_soft soft = job->soft[CONTACT_FREE];
    const f4 zero = f4_zero(), one = f4_splat(1.0);
    const f4 s = LANES(c, separation), positive = f4_gt(s, zero);
    const f4 wa = LANES(c, inv_mass_a), wb = LANES(c, inv_mass_b);
    f4 bias = f4_blend(zero, f4_mul(s, f4_splat(1.0 / job->h)), positive);
    f4 mass_scale = one, impulse_scale = zero;
    if (job->flag) {
        f4 rate = f4_splat(soft.bias_rate), ms = f4_splat(soft.mass_scale);
        f4 is = f4_splat(soft.impulse_scale);
        const f4 fixed_end = f4_or(f4_eq(wa, zero), f4_eq(wb, zero));
        if (job->joined_differ || f4_any(fixed_end)) { // kind_of, lane by lane
            const sb_soft s0 = job->soft[kind_of(w, c[0])], s1 = job->soft[kind_of(w, c[1])];
            const sb_soft s2 = job->soft[kind_of(w, c[2])], s3 = job->soft[kind_of(w, c[3])];
            rate = f4_lanes(s0.bias_rate, s1.bias_rate, s2.bias_rate, s3.bias_rate);
            ms = f4_lanes(s0.mass_scale, s1.mass_scale, s2.mass_scale, s3.mass_scale);
            is = f4_lanes(s0.impulse_scale, s1.impulse_scale, s2.impulse_scale, s3.impulse_scale);
        }
        const f4 floor = f4_splat(-contact_push_max);
        f4 soft_bias = f4_mul(rate, s);
        soft_bias = f4_blend(floor, soft_bias, f4_gt(soft_bias, floor));
        bias = f4_blend(soft_bias, bias, positive);
        mass_scale = f4_blend(ms, one, positive);
        impulse_scale = f4_blend(is, zero, positive);
    }
    const sb_vec2 *vel = w->vel;
    const f4 vax = f4_lanes(vel[c[0]->a].x, vel[c[1]->a].x, vel[c[2]->a].x, vel[c[3]->a].x);
    const f4 vay = f4_lanes(vel[c[0]->a].y, vel[c[1]->a].y, vel[c[2]->a].y, vel[c[3]->a].y);
    const f4 vbx = f4_lanes(vel[c[0]->b].x, vel[c[1]->b].x, vel[c[2]->b].x, vel[c[3]->b].x);
    const f4 vby = f4_lanes(vel[c[0]->b].y, vel[c[1]->b].y, vel[c[2]->b].y, vel[c[3]->b].y);
    const f4 nx = LANES(c, normal.x), ny = LANES(c, normal.y);
    const f4 tx = f4_sub(zero, ny), ty = nx; // -ny: the sign flip only, as the scalar negation
    const f4 rvx = f4_add(f4_sub(zero, vax), vbx), rvy = f4_add(f4_sub(zero, vay), vby);
    // normal_impulse_step
    const f4 vn = f4_add(f4_mul(rvx, nx), f4_mul(rvy, ny));
    if (!job->flag) { // impact_ahead, lane by lane
        const f4 minus_vn = f4_sub(zero, vn);
        const f4 bouncy = f4_gt(LANES(c, restitution), zero);
        const f4 impact = f4_and(f4_and(f4_and(positive, bouncy), f4_gt(minus_vn, bias)),
                                 f4_lt(vn, f4_splat(-w->def.restitution_threshold)));
        bias = f4_blend(bias, minus_vn, impact);
    }
    const f4 ni = LANES(c, normal_impulse);
    const f4 neg_mass = f4_sub(zero, LANES(c, normal_mass));
    const f4 impulse = f4_sub(f4_mul(f4_mul(neg_mass, mass_scale), f4_add(vn, bias)), f4_mul(impulse_scale, ni));
    f4 total = f4_add(ni, impulse);
    total = f4_blend(zero, total, f4_gt(total, zero));
    const f4 pn = f4_sub(total, ni);
    const f4 max_ni = LANES(c, max_normal_impulse);
    const f4 new_max = f4_blend(max_ni, total, f4_gt(total, max_ni));
    // a frictionless lane takes solve_one's frictionless path (the normal impulse alone); a group
    // of four such skips the tangent altogether
    const bool slides[4] = {frictionless(c[0]), frictionless(c[1]), frictionless(c[2]), frictionless(c[3])};
    const f4 ti = LANES(c, tangent_impulse);
    f4 px = f4_mul(pn, nx), py = f4_mul(pn, ny), tangent = ti, pt = zero;
    if (!(slides[0] && slides[1] && slides[2] && slides[3])) {
        // friction_impulse_step, the surfaces' spin included
        const f4 ra = LANES(c, lever_a), rb = LANES(c, lever_b);
        f4 spin = zero;
        if (w->spinning) {
            const double *om = w->omega;
            const f4 oa = f4_lanes(om[c[0]->a], om[c[1]->a], om[c[2]->a], om[c[3]->a]);
            const f4 ob = f4_lanes(om[c[0]->b], om[c[1]->b], om[c[2]->b], om[c[3]->b]);
            spin = f4_sub(f4_mul(f4_sub(zero, oa), ra), f4_mul(ob, rb));
        }
        const f4 vt = f4_add(f4_add(f4_mul(rvx, tx), f4_mul(rvy, ty)), spin);
        const f4 limit = f4_mul(LANES(c, friction), total), neg_limit = f4_sub(zero, limit);
        f4 t = f4_sub(ti, f4_mul(LANES(c, tangent_mass), vt));
        const f4 below = f4_lt(t, neg_limit);
        t = f4_blend(t, limit, f4_gt(t, limit));
        t = f4_blend(t, neg_limit, below);
        const f4 fast = f4_mask_of(slides[0], slides[1], slides[2], slides[3]);
        pt = f4_sub(t, ti);
        px = f4_blend(f4_add(px, f4_mul(pt, tx)), px, fast);
        py = f4_blend(f4_add(py, f4_mul(pt, ty)), py, fast);
        tangent = f4_blend(t, ti, fast);
    }
    double out_ax[4], out_ay[4], out_bx[4], out_by[4], out_ni[4], out_ti[4], out_max[4], out_pt[4];
    f4_store(out_ax, f4_sub(vax, f4_mul(wa, px)));
    f4_store(out_ay, f4_sub(vay, f4_mul(wa, py)));
    f4_store(out_bx, f4_add(vbx, f4_mul(wb, px)));
    f4_store(out_by, f4_add(vby, f4_mul(wb, py)));
    f4_store(out_ni, total);
    f4_store(out_ti, tangent);
    f4_store(out_max, new_max);
    f4_store(out_pt, pt);
    for (int i = 0; i < 4; ++i) {
        sb_contact *ci = c[i];
        ci->normal_impulse = out_ni[i];
        ci->tangent_impulse = out_ti[i];
        ci->max_normal_impulse = out_max[i];
        if (ci->inv_mass_a > 0.0)
            w->vel[ci->a] = v2(out_ax[i], out_ay[i]);
        if (ci->inv_mass_b > 0.0)
            w->vel[ci->b] = v2(out_bx[i], out_by[i]);
        // apply_spin with no rolling impulse (these have no rolling resistance)
        const contact_levers l = prepared_levers(ci);
        if (!slides[i] && (l.ia > 0.0 || l.ib > 0.0))
            apply_spin(w, ci, &l, out_pt[i], 0.0);
    }
}
#undef LANES
#endif

// Soft non-penetration (seed 003's soft constraint, tuned as in Box2D v3): a speculative
// contact (separation > 0) lets the gap close in one sub-step; an overlap is pushed out
// softly while use_bias is on; the relax pass (use_bias off) removes that push velocity.
// The velocity methods call it once per sub-step plus the relax pass, as Box2D v3's soft
// step does (at one and two sub-steps more: contact_passes), not once per spring iteration:
// on the 4000-ball pit that is 2.5 ms per step instead of 6.2 ms, and the pile settles further (0.09 J against 8 J), because the soft
// contact is a spring and repeating it within a sub-step only stiffens it unevenly.
// Between two particles or with a static shape, the contact's own path reads the masses and
// levers prepare copied; a solid spring's side takes the general one.
static void solve_one(const contact_job *job, sb_contact *c)
{
    sb_world *w = job->w;
    const bool use_bias = job->flag;
    const double inv_h = 1.0 / job->h;
    const bool spinning = w->spinning;
    const sb_vec2 *vel = w->vel;
    if (c->normal_mass == 0.0)
        return;
    double s = c->separation, bias = 0.0, mass_scale = 1.0, impulse_scale = 0.0;
    if (s > 0.0) {
        bias = s * inv_h;
    } else if (use_bias) {
        const sb_soft sf = job->soft[kind_of(w, c)];
        bias = sf.bias_rate * s;
        bias = bias > -contact_push_max ? bias : -contact_push_max;
        mass_scale = sf.mass_scale;
        impulse_scale = sf.impulse_scale;
    }
    if (c->b2 >= 0) { // a solid spring: the general path (its ends share the impulse)
        contact_levers l = levers_of(w, c);
        sb_vec2 n = c->normal, tn = v2(-n.y, n.x), rv = relative_velocity(w, c);
        bias = impact_ahead(w, c, use_bias, s, v2_dot(rv, n), bias);
        double pn = normal_impulse_step(c, v2_dot(rv, n), bias, mass_scale, impulse_scale);
        double pt = friction_impulse_step(c, v2_dot(rv, tn) + spin_slip(w, c, &l));
        apply_impulse(w, c, v2_add(v2_scale(n, pn), v2_scale(tn, pt)));
        if (l.ia > 0.0)
            apply_spin(w, c, &l, pt, rolling_impulse_step(w, c, &l));
        return;
    }
    const int a = c->a, b = c->b;
    const double nx = c->normal.x, ny = c->normal.y, tx = -ny, ty = nx;
    // relative velocity b - a, kept current as impulses are applied
    double rvx = -vel[a].x, rvy = -vel[a].y;
    if (b >= 0) {
        rvx += vel[b].x;
        rvy += vel[b].y;
    }
    bias = impact_ahead(w, c, use_bias, s, rvx * nx + rvy * ny, bias);
    double pn = normal_impulse_step(c, rvx * nx + rvy * ny, bias, mass_scale, impulse_scale);
    if (frictionless(c)) { // no tangent impulse, so nothing turns
        apply_prepared(w, c, v2(pn * nx, pn * ny));
        return;
    }
    // The normal impulse changes the relative velocity only along the normal, and turns
    // nothing (it passes through the centres).
    const contact_levers l = prepared_levers(c);
    double pt = friction_impulse_step(c, rvx * tx + rvy * ty + (spinning ? spin_slip(w, c, &l) : 0.0));
    apply_prepared(w, c, v2(pn * nx + pt * tx, pn * ny + pt * ty));
    if (l.ia > 0.0 || l.ib > 0.0)
        apply_spin(w, c, &l, pt, rolling_impulse_step(w, c, &l));
}

#ifdef F4_AVAILABLE
/// A contact the vector path takes: between two particles, solvable, no rolling resistance.
static inline bool simple_pair(const sb_contact *c)
{
    return c->b >= 0 && c->b2 < 0 && c->normal_mass != 0.0 && c->rolling_resistance <= 0.0;
}
#endif

// The relax (use_bias off) first finds each contact's geometry where the sub-step's positions
// left it: a contact's geometry is its own and nothing moves during the pass, so finding it
// contact by contact, as the pass reaches it, is the same as a pass of its own before, one read
// of the contacts fewer a sub-step (the 4000-ball pit: 1.95 -> 1.86 ms a step).
/// Whether a solve pass over `job->subset` takes contact c.
static inline bool subset_takes(const contact_job *job, const sb_contact *c)
{
    return job->subset == CONTACTS_ALL || contact_joined(job->w, c) == (job->subset == CONTACTS_JOINED);
}

static void solve_range(void *ctx, int from, int to)
{
    const contact_job *job = ctx;
    const bool find_geometry = !job->flag && !job->geometry_found;
    int k = from;
#ifdef F4_AVAILABLE
    const bool all = job->subset == CONTACTS_ALL;
    if (job->base != job->w->contact_color_start[63] && vector_passes_active()) {
        for (; k + 4 <= to; k += 4) {
            sb_contact *c[4] = {job_contact(job, k), job_contact(job, k + 1), job_contact(job, k + 2), job_contact(job, k + 3)};
            for (int i = 0; i < 4 && find_geometry; ++i)
                contact_geometry(job->w, c[i]);
            if (simple_pair(c[0]) && simple_pair(c[1]) && simple_pair(c[2]) && simple_pair(c[3]) &&
                (all || (subset_takes(job, c[0]) && subset_takes(job, c[1]) && subset_takes(job, c[2]) &&
                         subset_takes(job, c[3])))) {
                solve4(job, c);
            } else {
                for (int i = 0; i < 4; ++i)
                    if (subset_takes(job, c[i]))
                        solve_one(job, c[i]);
            }
        }
    }
#endif
    for (; k < to; ++k) {
        sb_contact *c = job_contact(job, k);
        if (c->art || !subset_takes(job, c)) // articulations_solve_velocities has the articulated
            continue;
        if (find_geometry)
            contact_geometry(job->w, c);
        solve_one(job, c);
    }
}

static void solve_pass(sb_world *w, double h, bool use_bias, contact_subset subset)
{
    contact_job job = {.w = w, .h = h, .flag = use_bias, .joined_differ = contact_floor_binds(h, w->def.dt), .subset = subset};
    for (int kind = 0; kind < CONTACT_KINDS; ++kind)
        job.soft[kind] = contact_softness(h, w->def.dt, (contact_kind)kind);
    const int passes = subset == CONTACTS_JOINED ? 1 : contact_passes(w, h, CONTACT_STIFF_PASSES);
    for (int pass = 0; pass < passes; ++pass) {
        for_each_color(w, solve_range, &job);
        job.geometry_found = !use_bias; // a velocity pass moves no position
    }
    if (subset != CONTACTS_JOINED)
        articulations_solve_velocities(w, h, use_bias); // the heavy contacts on structures (articulation.c)
}

/// How many of this step's contacts have an end that springs join, counted once a step and only
/// for a method that solves them apart (sb_method_kernels.joined_contacts_iterate).
static int joined_contacts(sb_world *w)
{
    if (w->contacts_joined < 0) {
        int joined = 0;
        for (int k = 0; w->s_alive > 0 && k < w->contact_next_count; ++k)
            joined += contact_joined(w, &w->contacts_next[k]);
        w->contacts_joined = joined;
    }
    return w->contacts_joined;
}

void contacts_solve(sb_world *w, double h, bool skip_joined)
{
    solve_pass(w, h, true, skip_joined && joined_contacts(w) > 0 ? CONTACTS_FREE : CONTACTS_ALL);
}

// Nissen's sequential impulses iterate every constraint together (seed 000). With the contacts
// solved once after the spring iterations, a bead wheel on rigid spokes resting on the ground at
// one sub-step took the contacts' push apart and rang (0.3 J without friction), and with friction
// it rolled off by itself at 0.3 m/s (scripts/car.lua drove off the floor's end); with the
// contacts of its beads in each iteration it rests (2e-6 J).
void contacts_solve_joined(sb_world *w, double h)
{
    if (joined_contacts(w) > 0)
        solve_pass(w, h, true, CONTACTS_JOINED);
}

void contacts_relax(sb_world *w, double h) { solve_pass(w, h, false, CONTACTS_ALL); }

// The bounds are a box the particles are confined to (sb_world_def), so the velocity
// methods also keep every centre inside it at the end of each sub-step: a soft contact
// gives way under a deep pile (300 layers in the 20000-ball pit pushed 18 circles through
// the floor), a bound must not let a particle out. Velocity into the wall is removed, as a
// rigid wall would. Only the centre is held, not the whole circle: the soft contact owns
// the overlap, and moving circles out of it by position would kick their neighbours
// (measured: a 300-ball pit that had come to rest kept popping, 0.6 J every few seconds).
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

// Continuous collision of centres with walls: a sub-step's path from w->start to the new position
// that crosses a wall's line between its ends stops just short of it, on the side it came from,
// and loses its velocity into the wall. So no centre ever ends up on the other side of a wall,
// however fast or however heavily pushed; the soft contact then sets the circle's overlap right.
// A path may cross several walls (cutting the corner of a crest crosses the slope it leaves and
// the one it meets): only the first crossing along the path counts, as a time of impact does;
// wall by wall, the later wall could hold the centre on its far side, inside the hill.
// Every method calls it at the end of each sub-step.
void walls_hold_centres(sb_world *w)
{
    if (w->w_high == 0)
        return;
    if (w->walls_dirty || !w->wall_tree) // walls changed since the step's contacts were found
        wall_tree_build(w);
    for (int i = 0; i < w->p_high; ++i) {
        w->hold_frac[i] = 2.0;
        w->hold_wall[i] = -1;
        if (w->inv_mass[i] == 0.0) // fixed (or dead) particles go where they are put
            continue;
        const sb_vec2 p0 = w->start[i], p1 = w->pos[i];
        // the walls whose boxes the path's box meets, by number: the first crossing wins a tie
        walls_near near;
        const bool found = walls_near_find(w, fmin(p0.x, p1.x), fmin(p0.y, p1.y), fmax(p0.x, p1.x), fmax(p0.y, p1.y), &near);
        for (int m = 0; m < (found ? near.count : w->w_high); ++m) { // out of memory: every wall
            const int k = found ? near.walls[m] : m;
            if (!w->w_alive_flag[k])
                continue;
            const sb_vec2 a = w->wall_a[k], b = w->wall_b[k], ab = v2_sub(b, a), n = wall_normal(a, b);
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
            if (w->w_one_sided[k] && d0 < 0.0)
                continue; // through a one-sided wall from behind: it is not there
            double f = d0 / (d0 - d1); // where along the path
            sb_vec2 q = v2_mad(p0, f, v2_sub(p1, p0));
            double t = v2_dot(v2_sub(q, a), ab) / len2;
            if (t < 0.0 || t > 1.0 || f >= w->hold_frac[i])
                continue; // past the wall's ends, or after a crossing already found
            w->hold_frac[i] = f;
            w->hold_wall[i] = k;
        }
        walls_near_free(&near);
    }
    for (int i = 0; i < w->p_high; ++i) {
        int k = w->hold_wall[i];
        if (k < 0)
            continue;
        const sb_vec2 a = w->wall_a[k], n = wall_normal(a, w->wall_b[k]);
        const sb_vec2 p0 = w->start[i];
        const double d0 = v2_dot(v2_sub(p0, a), n), side = d0 > 0.0 ? 1.0 : -1.0;
        const sb_vec2 q = v2_mad(p0, w->hold_frac[i], v2_sub(w->pos[i], p0));
        const double half = 0.5 * (d0 > 0.0 ? d0 : -d0), keep = half < 1e-6 ? half : 1e-6; // no libm in the loop
        w->pos[i] = v2_mad(q, side * keep, n); // just short of the line
        double vn = v2_dot(w->vel[i], n);
        if (vn * side < 0.0)
            w->vel[i] = v2_mad(w->vel[i], -vn, n);
    }
}

// ------------------------------------------------------------------ impacts, one pair at a time
//
// A contact whose ends close faster than the world's restitution threshold and will touch within
// this sub-step is an impact, and an impact is a collision of its two ends alone: the closing
// speed along the normal becomes e times it apart (the pair's momentum kept, e <= 1, so no energy
// is made), with Coulomb friction on the tangent and the turns, and each end is moved by what its
// old velocity would have carried it until the touch, so that it leaves from the surface (the
// time of impact in the sub-step). A collision changes its ends' velocities, so a neighbour they
// touch may now close in its turn: its contact goes next, and a push travels down a touching row
// one collision at a time, as impulse-based simulation resolves collisions (Mirtich and Canny,
// "Impulse-based simulation of rigid bodies", 1995) and as Guendelman, Bridson and Fedkiw
// ("Nonconvex rigid bodies with stacking", 2003) process collisions before contacts. Solved
// together, as the contact solver solves them, the ends of a struck row leave as one (Newton's
// cradle: the last ball of five left at 0.35 of the speed, the struck one went back at 0.13).
// The solve that follows then finds these contacts parting, and holds only what rests.

typedef struct impact_pass {
    int *of_particle, *start; // the contacts of each particle (both ends), by particle slot
    int *queue;
    uint8_t *queued;
    double *changed;          // by particle slot: when in the sub-step its velocity last changed (0: not yet)
    sb_vec2 *moved;           // by particle slot: what the collisions moved it by (collide_pair)
} impact_pass;

/// Where contact c's ends close at normal speed vn (< 0), at separation `sep`: the time of the
/// touch within sub-step h, or a negative number when it is no impact (too slow, or past h). A
/// collision cannot come before the velocities that make it: an end struck at time t closes on
/// its next neighbour from t on (`ip`, once the pass has begun).
static inline double impact_time(const sb_world *w, const impact_pass *ip, const sb_contact *c, double vn, double h)
{
    if (!(vn < -w->def.restitution_threshold) || c->art)
        return -1.0;
    double sep = c->separation;
    // Without restitution the solve and the projections take an impact, unless the ends would pass
    // through each other within the sub-step, centre past centre: no overlap is left to project
    if (c->restitution == 0.0 && -vn * h <= (sep > 0.0 ? sep : 0.0) + w->radius[c->a] + (c->b >= 0 ? w->radius[c->b] : 0.0))
        return -1.0;
    if (ip) // each end where its velocity now would have it at the sub-step's start, along the normal
        sep += v2_dot(v2_sub(b_side(c, ip->moved), ip->moved[c->a]), c->normal);
    double t = sep > 0.0 ? sep / -vn : 0.0;
    if (ip) { // not before the velocities that close them came
        t = fmax(t, ip->changed[c->a]);
        t = c->b >= 0 ? fmax(t, ip->changed[c->b]) : t;
        t = c->b2 >= 0 ? fmax(t, ip->changed[c->b2]) : t;
    }
    return t < h ? t : -1.0;
}

/// One collision of contact c's ends, at relative normal speed vn (< 0), touching at time t of the
/// sub-step; what it moves an end by is added to `moved`.
static void collide_pair(sb_world *w, sb_contact *c, double vn, double t, sb_vec2 *moved)
{
    const double wa = inv_mass_of(w, c->a), wsum = wa + inv_mass_b(w, c);
    if (wsum == 0.0)
        return;
    const double j = -(1.0 + c->restitution) * vn / wsum;
    sb_vec2 n = c->normal, tn = v2(-n.y, n.x);
    const contact_levers l = levers_of(w, c);
    double vt = v2_dot(relative_velocity(w, c), tn), tsum = wsum;
    if (w->spinning) { // the surfaces slip by their spins too, and the friction turns them
        vt += spin_slip(w, c, &l);
        tsum = tangent_sum(wsum, &l);
    }
    double jt = -vt / tsum, limit = c->friction * j;
    jt = jt < -limit ? -limit : jt > limit ? limit : jt;
    const sb_vec2 p = v2_add(v2_scale(n, j), v2_scale(tn, jt));
    // until the touch the ends move with their old velocities: x + v h + (v_old - v_new) t. Not
    // an end that springs join: its springs would take the move back as speed (a cradle's struck
    // ball on its rod left at half the speed), so it leaves up to a sub-step early instead
    if (t > 0.0 && c->b2 < 0) {
        if (w->degree[c->a] == 0 && w->inv_mass[c->a] > 0.0) {
            const sb_vec2 move = v2_scale(p, t * w->inv_mass[c->a]);
            w->pos[c->a] = v2_add(w->pos[c->a], move);
            moved[c->a] = v2_add(moved[c->a], move);
        }
        if (c->b >= 0 && w->degree[c->b] == 0 && w->inv_mass[c->b] > 0.0) {
            const sb_vec2 move = v2_scale(p, -t * w->inv_mass[c->b]);
            w->pos[c->b] = v2_add(w->pos[c->b], move);
            moved[c->b] = v2_add(moved[c->b], move);
        }
    }
    apply_impulse(w, c, p);
    if (w->spinning && c->b2 < 0)
        apply_spin(w, c, &l, jt, 0.0);
    if (j > c->max_normal_impulse) // it touched in this step (events.c)
        c->max_normal_impulse = j;
}

/// Builds the list of each particle's contacts (of contacts_next); false out of memory.
static bool impact_pass_index(sb_world *w, impact_pass *ip)
{
    const int np = w->p_high, nc = w->contact_next_count;
    ip->start = calloc((size_t)np + 1, sizeof *ip->start);
    ip->of_particle = malloc(sizeof *ip->of_particle * (size_t)(3 * nc + 1));
    ip->queue = malloc(sizeof *ip->queue * (size_t)(nc + 1));
    ip->queued = calloc((size_t)nc + 1, 1);
    ip->changed = calloc((size_t)np + 1, sizeof *ip->changed);
    ip->moved = calloc((size_t)np + 1, sizeof *ip->moved);
    if (!ip->start || !ip->of_particle || !ip->queue || !ip->queued || !ip->changed || !ip->moved)
        return false;
    for (int k = 0; k < nc; ++k) {
        const sb_contact *c = &w->contacts_next[k];
        ip->start[c->a + 1] += 1;
        if (c->b >= 0)
            ip->start[c->b + 1] += 1;
        if (c->b2 >= 0)
            ip->start[c->b2 + 1] += 1;
    }
    for (int i = 0; i < np; ++i)
        ip->start[i + 1] += ip->start[i];
    int *fill = malloc(sizeof *fill * (size_t)(np + 1));
    if (!fill)
        return false;
    memcpy(fill, ip->start, sizeof *fill * (size_t)(np + 1));
    for (int k = 0; k < nc; ++k) {
        const sb_contact *c = &w->contacts_next[k];
        ip->of_particle[fill[c->a]++] = k;
        if (c->b >= 0)
            ip->of_particle[fill[c->b]++] = k;
        if (c->b2 >= 0)
            ip->of_particle[fill[c->b2]++] = k;
    }
    free(fill);
    return true;
}

static void impact_pass_free(impact_pass *ip)
{
    free(ip->changed);
    free(ip->moved);
    free(ip->of_particle);
    free(ip->start);
    free(ip->queue);
    free(ip->queued);
}

/// Queues contact k unless it is queued: the queue is a ring of one place a contact.
static void queue_contact(const sb_world *w, impact_pass *ip, int k, int *tail)
{
    if (ip->queued[k])
        return;
    ip->queued[k] = 1;
    ip->queue[(*tail)++ % w->contact_next_count] = k;
}

/// Queues the contacts of particle i (a moving one).
static void queue_contacts_of(const sb_world *w, impact_pass *ip, int i, int *tail)
{
    if (i < 0 || w->inv_mass[i] == 0.0)
        return;
    for (int m = ip->start[i]; m < ip->start[i + 1]; ++m)
        queue_contact(w, ip, ip->of_particle[m], tail);
}

void contacts_collide(sb_world *w, double window, bool geometry_current)
{
    const double h = window;
    const int nc = w->contact_next_count;
    int first = -1;
    for (int k = 0; k < nc && first < 0; ++k) { // most sub-steps have no impact: a scan
        sb_contact *c = &w->contacts_next[k];
        if (!geometry_current)
            contact_geometry(w, c);
        if (impact_time(w, NULL, c, v2_dot(relative_velocity(w, c), c->normal), h) >= 0.0)
            first = k;
    }
    if (first < 0)
        return;
    for (int k = first + 1; !geometry_current && k < nc; ++k)
        contact_geometry(w, &w->contacts_next[k]);
    impact_pass ip = {0};
    if (!impact_pass_index(w, &ip)) { // out of memory: the contact solve takes them, as one
        impact_pass_free(&ip);
        return;
    }
    // The contacts that close, in list order, then whatever their collisions make close in turn.
    // A ball wedged between two walls would bounce between them for ever: the contacts collide
    // `rounds` times each a sub-step at most, on average, and what is left the solve takes.
    enum { rounds = 8 };
    int head = 0, tail = 0, processed = 0;
    const int budget = rounds * nc + 64;
    for (int k = first; k < nc; ++k) {
        sb_contact *c = &w->contacts_next[k];
        if (impact_time(w, &ip, c, v2_dot(relative_velocity(w, c), c->normal), h) >= 0.0)
            queue_contact(w, &ip, k, &tail);
    }
    while (head < tail && processed < budget) {
        const int k = ip.queue[head++ % nc];
        ip.queued[k] = 0;
        sb_contact *c = &w->contacts_next[k];
        const double vn = v2_dot(relative_velocity(w, c), c->normal), t = impact_time(w, &ip, c, vn, h);
        if (t < 0.0)
            continue;
        collide_pair(w, c, vn, t, ip.moved);
        ip.changed[c->a] = t;
        if (c->b >= 0)
            ip.changed[c->b] = t;
        if (c->b2 >= 0)
            ip.changed[c->b2] = t;
        processed += 1;
        queue_contacts_of(w, &ip, c->a, &tail); // the ends' other contacts may close now
        queue_contacts_of(w, &ip, c->b, &tail);
        queue_contacts_of(w, &ip, c->b2, &tail);
    }
    impact_pass_free(&ip);
}

static void restitution_range(void *ctx, int from, int to)
{
    const contact_job *job = ctx;
    sb_world *w = job->w;
    for (int k = from; k < to; ++k) {
        sb_contact *c = job_contact(job, k);
        if (c->restitution == 0.0 || c->relative_velocity > -w->def.restitution_threshold || c->max_normal_impulse == 0.0 || c->art)
            continue;
        double vn = v2_dot(relative_velocity(w, c), c->normal);
        double impulse = -c->normal_mass * (vn + c->restitution * c->relative_velocity);
        double total = c->normal_impulse + impulse;
        total = total > 0.0 ? total : 0.0;
        impulse = total - c->normal_impulse;
        c->normal_impulse = total;
        apply_impulse(w, c, v2_scale(c->normal, impulse));
    }
}

void contacts_restitution(sb_world *w)
{
    contact_job job = {.w = w};
    for_each_color(w, restitution_range, &job);
}

// Moves one end by `step` along n; in the position methods a move becomes velocity (pos - prev),
// so only the share `kept` of it does: prev follows the rest. Box2D caps its soft contact's
// push-out speed the same way; without the cap a 1 kg circle squeezed under 2000 kg left at
// 553 m/s and the pile exploded.
static void move_end(sb_world *w, int i, double step, sb_vec2 n, double kept)
{
    if (w->inv_mass[i] == 0.0) // a fixed particle is never written (contacts_color)
        return;
    w->pos[i] = v2_mad(w->pos[i], step, n);
    if (kept < 1.0)
        w->prev[i] = v2_mad(w->prev[i], (1.0 - kept) * step, n);
}

// Moves the ends of a contact between two particles or with a static shape apart by `push`
// (negative: together), inverse-mass weighted, all of each move becoming velocity.
static void push_apart(sb_world *w, const sb_contact *c, double push)
{
    move_end(w, c->a, -inv_mass_of(w, c->a) * push, c->normal, 1.0);
    if (c->b >= 0)
        move_end(w, c->b, inv_mass_of(w, c->b) * push, c->normal, 1.0);
}

// Moves the ends of a contact whose geometry was just found apart, inverse-mass weighted, if they
// overlap. Returns the push. The end that moves farthest keeps at most contact_push_max * h of
// its move as velocity, and every end keeps the same share, so the push adds no momentum (each
// end capped alone, a light ball's capped move beside a heavy one's whole move cost two verlet
// blobs that hit each other 71% of their momentum: core.momentum_conservation).
static inline double push_out(sb_world *w, sb_contact *c, double h)
{
    if (c->separation >= 0.0)
        return 0.0;
    double wa = inv_mass_of(w, c->a), wb = inv_mass_of(w, c->b), wsum = wa + inv_mass_b(w, c);
    if (wsum == 0.0)
        return 0.0;
    const bool segment = c->b >= 0 && c->b2 >= 0; // a solid spring's ends move by their shares
    double push = -c->separation / wsum, max_step = contact_push_max * h;
    double step_a = wa * push, step_b = segment ? wb * (1.0 - c->t) * push : wb * push;
    double step_b2 = segment ? w->inv_mass[c->b2] * c->t * push : 0.0;
    double farthest = step_a > step_b ? step_a : step_b;
    farthest = farthest > step_b2 ? farthest : step_b2;
    double kept = farthest > max_step ? max_step / farthest : 1.0;
    move_end(w, c->a, -step_a, c->normal, kept);
    if (c->b >= 0)
        move_end(w, c->b, step_b, c->normal, kept);
    if (segment)
        move_end(w, c->b2, step_b2, c->normal, kept);
    c->separation = 0.0;
    return push;
}

static void settle_range(void *ctx, int from, int to)
{
    const contact_job *job = ctx;
    sb_world *w = job->w;
    for (int k = from; k < to; ++k) {
        sb_contact *c = job_contact(job, k);
        if (c->art || c->b2 >= 0 || !c->fresh)
            continue;
        if (!job->flag)
            contact_geometry(w, c);
        const double deep = -c->separation;
        const double wa = inv_mass_of(w, c->a), wb = inv_mass_of(w, c->b), wsum = wa + wb;
        if (deep <= 0.0 || wsum == 0.0)
            continue;
        const double push = deep / wsum;
        if (wa > 0.0)
            w->pos[c->a] = v2_mad(w->pos[c->a], -wa * push, c->normal);
        if (c->b >= 0 && wb > 0.0)
            w->pos[c->b] = v2_mad(w->pos[c->b], wb * push, c->normal);
        c->separation += push * wsum;
    }
}

void contacts_settle_overlaps(sb_world *w, double h, bool geometry_current)
{
    contact_job job = {.w = w, .h = h, .flag = geometry_current};
    for_each_color(w, settle_range, &job);
}

/// push_out at the contact's geometry now.
static inline double separate(sb_world *w, sb_contact *c, double h)
{
    contact_geometry(w, c);
    return push_out(w, c, h);
}

// Verlet collide (seed 004). Without impulse preservation it only moves positions, which
// cancels the acceleration of bodies at rest. With it, the velocity held in prev is first
// recorded, then the normal velocities exchanged as in a collision (restitution e; the article's
// swap is the equal-mass case with e = 1), friction limiting the tangential exchange. An impact
// (an approach faster than the world's restitution_threshold) has its overlap resolved and prev moved with
// it, so that px leaves the surface with the new velocity. A resting contact changes only the
// velocity: x = px + v h, px staying where the first pass and its friction left it. Moving px by
// a resting contact's push, as impacts do, moved it along the normal by what the first pass's
// iterations left (micrometres), after the friction and outside its anchor: each push slid the
// ball against its other contacts, and 1000-ball piles crept 3 to 11 mm/s and rang at up to
// 0.19 J. The first pass of the next sub-step takes up that residue, with its
// friction.
static void project_range(void *ctx, int from, int to)
{
    const contact_job *job = ctx;
    sb_world *w = job->w;
    const bool preserve_impulse = job->flag;
    const double h = job->h;
    for (int k = from; k < to; ++k) {
        sb_contact *c = job_contact(job, k);
        if (c->art) // articulations_project
            continue;
        if (!preserve_impulse) {
            separate(w, c, h);
            continue;
        }
        contact_geometry(w, c);
        if (c->separation >= 0.0)
            continue;
        int a = c->a, b = c->b, b2 = c->b2;
        double wa = inv_mass_of(w, a), wb = inv_mass_of(w, b), wsum = wa + inv_mass_b(w, c);
        if (wsum == 0.0)
            continue;
        // the motion of this sub-step (pos - prev) of each body, kept through the push
        sb_vec2 va = v2_sub(w->pos[a], w->prev[a]);
        sb_vec2 vb = b >= 0 ? v2_sub(w->pos[b], w->prev[b]) : v2(0, 0);
        sb_vec2 vb2 = b2 >= 0 ? v2_sub(w->pos[b2], w->prev[b2]) : v2(0, 0);
        double sb = b2 >= 0 ? 1.0 - c->t : 1.0, sb2 = b2 >= 0 ? c->t : 0.0; // shares of the b side
        sb_vec2 n = c->normal, t = v2(-n.y, n.x), vside = v2_add(v2_scale(vb, sb), v2_scale(vb2, sb2));
        double vn = v2_dot(v2_sub(vside, va), n);
        if (vn >= 0.0)
            continue; // parting: the first pass of the next sub-step takes up what overlaps
        // Same threshold as the impulse methods: a slow approach is a resting contact whose
        // residual overlap must not be bounced back (it would never settle). vn is per sub-step.
        const bool impact = vn < -w->def.restitution_threshold * h;
        if (impact && c->restitution > 0.0) // the next sub-step's collisions take it, where it touches (contacts_collide)
            continue;
        if (impact)
            push_out(w, c, h); // (its geometry found above)
        double e = impact ? c->restitution : 0.0;
        double j = -(1.0 + e) * vn / wsum;
        if (j > c->max_normal_impulse) // it touched in this step (events.c)
            c->max_normal_impulse = j;
        const contact_levers l = levers_of(w, c);
        double vt = v2_dot(v2_sub(vside, va), t), tsum = wsum;
        if (w->spinning) { // the turns of this sub-step slip the surfaces, and the exchange turns them
            vt += turn_slip(w, c, &l);
            tsum = tangent_sum(wsum, &l);
        }
        double jt = -vt / tsum, limit = c->friction * j;
        jt = jt < -limit ? -limit : jt > limit ? limit : jt;
        if (w->spinning) {
            if (l.ia > 0.0)
                w->angle[a] -= l.ia * l.ra * jt;
            if (l.b_turns && l.ib > 0.0)
                w->angle[b] -= l.ib * l.rb * jt;
        }
        sb_vec2 p = v2_add(v2_scale(n, j), v2_scale(t, jt));
        va = v2_mad(va, -wa, p);
        vb = v2_mad(vb, wb * sb, p);
        if (b2 >= 0)
            vb2 = v2_mad(vb2, w->inv_mass[b2] * sb2, p);
        // an impact's px follows its pushed x; a resting contact's x follows its px (above)
        sb_vec2 *moved = impact ? w->prev : w->pos;
        const sb_vec2 *kept = impact ? w->pos : w->prev;
        const double sign = impact ? -1.0 : 1.0;
        if (wa > 0.0) // a fixed particle is never written (contacts_color)
            moved[a] = v2_mad(kept[a], sign, va);
        if (b >= 0 && w->inv_mass[b] > 0.0)
            moved[b] = v2_mad(kept[b], sign, vb);
        if (b2 >= 0 && w->inv_mass[b2] > 0.0)
            moved[b2] = v2_mad(kept[b2], sign, vb2);
    }
}

void contacts_project(sb_world *w, bool preserve_impulse, double h)
{
    contact_job job = {.w = w, .h = h, .flag = preserve_impulse};
    for_each_color(w, project_range, &job);
}

/// Rolling resistance by position: the ends' relative turn in this sub-step is taken back up to
/// the rolling resistance times the push times the rolling radius (rolling_impulse_step's bound
/// in position form).
static inline void rolling_resistance_by_position(sb_world *w, const sb_contact *c, const contact_levers *l, double push)
{
    const double k = l->ia + l->ib;
    if (c->rolling_resistance <= 0.0 || k == 0.0)
        return;
    const int a = c->a, b = c->b;
    const double lever = rolling_lever(l);
    const double limit = c->rolling_resistance * lever * push;
    const double relative = (l->b_turns ? w->angle[b] - w->angle_prev[b] : 0.0) - (w->angle[a] - w->angle_prev[a]);
    double back = -relative / k;
    back = back < -limit ? -limit : back > limit ? limit : back;
    if (l->ia > 0.0)
        w->angle[a] -= l->ia * back;
    if (l->b_turns && l->ib > 0.0)
        w->angle[b] += l->ib * back;
}

/// How far b slid past a along the tangent t in this sub-step, their turns aside (a particle's
/// or a static shape's contact).
static inline double particle_slip(const sb_world *w, const sb_contact *c, sb_vec2 t)
{
    const int a = c->a, b = c->b;
    sb_vec2 da = v2_sub(w->pos[a], w->prev[a]), db = b >= 0 ? v2_sub(w->pos[b], w->prev[b]) : v2(0, 0);
    return v2_dot(v2_sub(db, da), t);
}

/// The slip this sub-step's turns made (turn_slip; 0 in a world where nothing turns), and through
/// *tsum the tangent's inverse mass: the ends' wsum and what turning them adds. A slide's
/// correction by position turns the ends through it, the position form of the velocity methods'
/// tangent impulse.
static inline double turns_and_tangent_mass(const sb_world *w, const sb_contact *c, const contact_levers *l, double wsum,
                                            double *tsum)
{
    *tsum = w->spinning ? tangent_sum(wsum, l) : wsum;
    return w->spinning ? turn_slip(w, c, l) : 0.0;
}

/// The share of the slip static friction holds (contacts_keep_anchor) that each sub-step's
/// friction takes back. Measured on six 1000-ball piles at 1, 2, 3, 4 and 6 sub-steps in xpbd
/// (largest kinetic energy after 10 s; mean motion over the last 5 s): 1 left the piles ringing in
/// place at one sub-step (0.07 J); 0.5: 0.097 J, 0.1 mm/s; 0.25: 0.067 J, 0.1 mm/s; 0.1 let them
/// creep again (1.5 mm/s). Without the anchor: 0.26 J and 2 to 10 mm/s. Rolling balls in a pile
/// still ring in place (scripts/settle.lua, friction 0.4: 0.03 to 0.17 J at one and two
/// sub-steps, moving 0.1 mm/s; 0.1 rang less there, 0.01 to 0.02 J, and crept 1 mm/s in verlet).
static const double anchor_return = 0.25;

// Coulomb friction by position (Macklin et al., "Detailed Rigid Body Simulation with Extended
// Position Based Dynamics", 2020, static friction): the sliding of this sub-step (pos - prev,
// the motion since its start) is cancelled up to mu times the normal push. A slide shorter than
// that stops (static friction holds where mu > tan of the slope); a longer one loses mu times
// the push, the position form of mu N. What static friction held in earlier sub-steps counts too
// (slip, contacts_keep_anchor): it is taken back as well, so that what a sweep leaves at rest
// does not add up to a creep.
static inline void friction_by_position(sb_world *w, const sb_contact *c, double push)
{
    const int a = c->a, b = c->b;
    const double wa = inv_mass_of(w, a), wsum = wa + inv_mass_b(w, c);
    const sb_vec2 t = v2(-c->normal.y, c->normal.x);
    const double limit = c->friction * push;
    const contact_levers l = levers_of(w, c);
    const bool turns = w->spinning;
    double tsum;
    const double spin = turns_and_tangent_mass(w, c, &l, wsum, &tsum);
    if (tsum == 0.0)
        return;
    double slide;
    if (c->b2 >= 0) { // a solid spring: its side moves by its ends' shares (no anchor: its slip stays 0)
        slide = (v2_dot(v2_sub(v2_sub(b_side(c, w->pos), b_side(c, w->prev)), v2_sub(w->pos[a], w->prev[a])), t) + spin) / tsum;
        slide = slide < -limit ? -limit : slide > limit ? limit : slide;
        apply_to(w, c, v2_scale(t, -slide), w->pos); // a moves by +wa slide t, the b side back
    } else { // a particle or a static shape: the pit's hot path, two bodies at most
        slide = (particle_slip(w, c, t) + spin + anchor_return * c->slip) / tsum;
        slide = slide < -limit ? -limit : slide > limit ? limit : slide;
        if (wa > 0.0) // a fixed particle is never written (contacts_color)
            w->pos[a] = v2_mad(w->pos[a], wa * slide, t);
        if (b >= 0 && w->inv_mass[b] > 0.0)
            w->pos[b] = v2_mad(w->pos[b], -w->inv_mass[b] * slide, t);
    }
    if (turns) {
        if (l.ia > 0.0)
            w->angle[a] += l.ia * l.ra * slide;
        if (l.b_turns && l.ib > 0.0)
            w->angle[b] += l.ib * l.rb * slide;
        rolling_resistance_by_position(w, c, &l, push);
    }
}

// What a warm start pushed apart too far comes back together, down to touching and at most what
// was pushed (normal_impulse, the sub-step's push so far): the accumulated push stays >= 0, as
// Box2D's accumulated impulses do. Returns the (negative) push.
static double pull_back(sb_world *w, sb_contact *c)
{
    if (c->normal_impulse <= 0.0 || c->separation <= 0.0 || c->b2 >= 0)
        return 0.0;
    double wsum = inv_mass_of(w, c->a) + inv_mass_of(w, c->b);
    double push = wsum > 0.0 ? -c->separation / wsum : 0.0;
    push = push > -c->normal_impulse ? push : -c->normal_impulse;
    push_apart(w, c, push);
    c->separation += -push * wsum;
    return push;
}

// Friction by position on the push each contact got in the pass just made (tangent_impulse,
// then cleared).
static void friction_range(void *ctx, int from, int to)
{
    const contact_job *job = ctx;
    for (int k = from; k < to; ++k) {
        sb_contact *c = job_contact(job, k);
        if (c->tangent_impulse > 0.0 && c->friction > 0.0 && !c->art) // (articulations_project has its friction)
            friction_by_position(job->w, c, c->tangent_impulse);
        c->tangent_impulse = 0.0;
    }
}

/// The position methods' contacts start each sub-step from this share of the push they made in
/// the last one. Measured on a column of 20 balls and a 1000-ball pile at 1, 2 and 6 sub-steps
/// (sink; kinetic energy after 10 s), xpbd: none 134, 34, 3.7 mm and 3.0, 0.27, 0.014 J; 0.3
/// gives 94, 24, 2.6 mm and 0.96, 0.034, 0.023 J; 0.5 gives 53, 16, 1.9 mm but the column rang at
/// one sub-step and a heavy walled pile kept 8.5 J; 0.8 and 1 threw the column apart (the last
/// push holds the corrections of that sub-step's new overlaps as well as the load, and they come
/// again). verlet at 0.3: 134, 33, 3.7 -> 94, 23, 2.6 mm and 2.1, 0.19, 0.083 -> 0.97, 0.17,
/// 0.017 J.
static const double position_warm_push = 0.3;

// The position methods' normal projection (verlet's first collide pass, seed 004, without
// impulse preservation; xpbd's contacts): pushes apart what overlaps, which cancels the
// acceleration of a body at rest, and pulls back what the warm start pushed too far.
// normal_impulse holds the sub-step's push; tangent_impulse what the friction sweep that follows
// has yet to take (neither method has a tangent impulse).
static void project_by_position_range(void *ctx, int from, int to)
{
    const contact_job *job = ctx;
    sb_world *w = job->w;
    for (int k = from; k < to; ++k) {
        sb_contact *c = job_contact(job, k);
        if (c->art) // articulations_project
            continue;
        double push = separate(w, c, job->h);
        if (push == 0.0)
            push = pull_back(w, c);
        c->normal_impulse += push;
        c->tangent_impulse += push;
        if (push > c->max_normal_impulse) // it touched in this step (events.c)
            c->max_normal_impulse = push;
    }
}

// The position form of warm starting (seed 000's sequential impulses start from the last
// step's), for verlet and xpbd: the ends of each contact are pushed apart by position_warm_push
// of the last sub-step's push (normal_impulse) before the sub-step projects, so a resting pile's
// prediction already carries most of its support and the projections only mend the rest
// (Gauss-Seidel did not carry a column's load to the floor in four passes: the pile crept, 3 J
// at one sub-step). A solid spring's contacts start from nothing.
static void warm_push_range(void *ctx, int from, int to)
{
    const contact_job *job = ctx;
    sb_world *w = job->w;
    for (int k = from; k < to; ++k) {
        sb_contact *c = job_contact(job, k);
        double push = c->b2 < 0 && !c->art ? position_warm_push * c->normal_impulse : 0.0;
        c->normal_impulse = push;
        c->tangent_impulse = push; // the first friction sweep takes it
        if (push > 0.0)
            push_apart(w, c, push);
    }
}

// Static friction's anchor: a contact that sticks keeps the slip its sweeps
// left (slip), and the next sub-step's friction takes it back with its own, so the surfaces
// return to where they stuck. Each sub-step's friction took back only that sub-step's slide, and
// what the sweeps in colour order left each time, a few micrometres, became a steady creep: a
// 1000-ball pile moved 3 to 10 mm/s in verlet and xpbd (16 um/s in soft), a pyramid of three
// balls slid apart. A slip beyond what the sub-step's friction could take back (mu times its
// push) is sliding, and the anchor goes with the surfaces (slip 0), so Coulomb's sliding friction
// is as before.
// Each contact writes only its own slip: one pass over the list, not colour by colour.
static void keep_anchor_range(void *ctx, int from, int to)
{
    sb_world *w = ctx;
    for (int k = from; k < to; ++k) {
        sb_contact *c = &w->contacts_next[k];
        double held = 0.0;
        if (c->b2 < 0 && !c->art && c->normal_impulse > 0.0 && c->friction > 0.0) {
            const contact_levers l = levers_of(w, c);
            const double wsum = inv_mass_of(w, c->a) + inv_mass_b(w, c);
            double tsum, slip = c->slip + particle_slip(w, c, v2(-c->normal.y, c->normal.x));
            slip += turns_and_tangent_mass(w, c, &l, wsum, &tsum);
            held = fabs(slip) <= c->friction * c->normal_impulse * tsum ? slip : 0.0; // friction_by_position's limit
        }
        c->slip = held;
    }
}

void contacts_keep_anchor(sb_world *w)
{
    sb_pool_for(w->pool, w->contact_next_count, 1, CONTACTS_PER_THREAD, keep_anchor_range, w);
}

void contacts_warm_push(sb_world *w)
{
    contact_job job = {.w = w};
    for_each_color(w, warm_push_range, &job);
}

// One contact pass of the position methods: every normal projection first, then every contact's
// friction on the push it just got. With friction right after each contact's
// own projection, a friction correction moved the particles the next contacts were about to
// project, and xpbd's 1000-ball pile never came to rest (kinetic energy after 10 s: 9.4, 3.2 and
// 0.59 J at 1, 2 and 6 sub-steps; 2.5, 0.16 and 0.018 J with the sweeps apart). Friction once a
// sub-step on the summed push, as verlet had it (the article has no friction), rested piles as
// well but let a 100:1 net gain energy in xpbd, and let a pyramid of three balls that do not
// roll slide apart in verlet (9, 5 and 1 cm in 10 s at 1, 2 and 6 sub-steps at mu 0.16, where
// it stands for mu over 0.137): the friction came after the last projection, with no pass to
// mend what it moved. Now it holds to 0.1 mm.
void contacts_project_by_position(sb_world *w, double h)
{
    contact_job job = {.w = w, .h = h};
    const int passes = contact_passes(w, h, PROJECTION_STIFF_PASSES);
    for (int pass = 0; pass < passes; ++pass) {
        for_each_color(w, project_by_position_range, &job);
        for_each_color(w, friction_range, &job);
    }
}

static void xpbd_velocity_range(void *ctx, int from, int to)
{
    const contact_job *job = ctx;
    sb_world *w = job->w;
    for (int k = from; k < to; ++k) {
        sb_contact *c = job_contact(job, k);
        if (c->normal_impulse == 0.0 || c->normal_mass == 0.0 || c->art)
            continue;
        double vn = v2_dot(relative_velocity(w, c), c->normal);
        double target = c->relative_velocity < -w->def.restitution_threshold ? -c->restitution * c->relative_velocity : 0.0;
        if (vn < target)
            apply_impulse(w, c, v2_scale(c->normal, (target - vn) * c->normal_mass));
        // normal_impulse keeps the sub-step's push for the next one's warm start
    }
}

void contacts_xpbd_velocity(sb_world *w)
{
    contact_job job = {.w = w};
    for_each_color(w, xpbd_velocity_range, &job);
}
