// The position methods' contacts: overlaps a new contact starts with settled by position,
// verlet's two-pass collide (Boesch's "Verlet collision with impulse preservation") and xpbd's projections with friction by position and the
// anchor static friction keeps, the warm push, and xpbd's velocity pass (restitution, friction).
#include "contact_kernels.h"

#include <stdlib.h>
#include <string.h>

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
        w->scratch.prev[i] = v2_mad(w->scratch.prev[i], (1.0 - kept) * step, n);
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
// overlap. Returns the push. The end that moves farthest keeps at most contact_push_limit() h of
// its move as velocity, and every end keeps the same share, so the push adds no momentum (capped
// alone, a light ball's capped move beside a heavy one's whole move would take momentum from
// two verlet blobs that hit each other: core.momentum_conservation).
static inline double push_out(sb_world *w, sb_contact *c, double h)
{
    if (c->separation >= 0.0)
        return 0.0;
    double wa = inv_mass_of(w, c->a), wb = inv_mass_of(w, c->b), wsum = inv_mass_a(w, c) + inv_mass_b(w, c);
    if (wsum == 0.0)
        return 0.0;
    // a solid spring's ends move by their shares: b2 with b on the b side, with a at a corner
    const bool segment = c->b2 >= 0;
    const double share_a = c->corner ? 1.0 - c->t : 1.0, share_b = segment ? 1.0 - c->t : 1.0;
    double push = -c->separation / wsum, max_step = contact_push_limit() * h;
    double step_a = wa * share_a * push, step_b = wb * share_b * push;
    double step_b2 = segment ? w->inv_mass[c->b2] * c->t * push : 0.0;
    double farthest = step_a > step_b ? step_a : step_b;
    farthest = farthest > step_b2 ? farthest : step_b2;
    double kept = farthest > max_step ? max_step / farthest : 1.0;
    move_end(w, c->a, -step_a, c->normal, kept);
    if (c->b >= 0)
        move_end(w, c->b, step_b, c->normal, kept);
    if (segment)
        move_end(w, c->b2, c->corner ? -step_b2 : step_b2, c->normal, kept);
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

// Verlet collide (Boesch's "Verlet collision with impulse preservation"). Without impulse preservation it only moves positions, which
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
        double wa = inv_mass_of(w, a), wb = inv_mass_of(w, b), wsum = inv_mass_a(w, c) + inv_mass_b(w, c);
        if (wsum == 0.0)
            continue;
        // the motion of this sub-step (pos - prev) of each body, kept through the push
        sb_vec2 va = v2_sub(w->pos[a], w->scratch.prev[a]);
        sb_vec2 vb = b >= 0 ? v2_sub(w->pos[b], w->scratch.prev[b]) : v2(0, 0);
        sb_vec2 vb2 = b2 >= 0 ? v2_sub(w->pos[b2], w->scratch.prev[b2]) : v2(0, 0);
        // the shares of a solid spring's ends: b and b2 on the b side, or a and b2 at a corner
        const double sa = c->corner ? 1.0 - c->t : 1.0, sb = b2 >= 0 ? 1.0 - c->t : 1.0, sb2 = b2 >= 0 ? c->t : 0.0;
        sb_vec2 n = c->normal, t = v2(-n.y, n.x);
        sb_vec2 vside = c->corner ? v2(0, 0) : v2_add(v2_scale(vb, sb), v2_scale(vb2, sb2));
        sb_vec2 aside = c->corner ? v2_add(v2_scale(va, sa), v2_scale(vb2, sb2)) : va;
        double vn = v2_dot(v2_sub(vside, aside), n);
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
        double vt = v2_dot(v2_sub(vside, aside), t), tsum = wsum;
        if (w->scratch.spinning) { // the turns of this sub-step slip the surfaces, and the exchange turns them
            vt += turn_slip(w, c, &l);
            tsum = tangent_sum(wsum, &l);
        }
        double jt = -vt / tsum, limit = c->friction * j;
        jt = jt < -limit ? -limit : jt > limit ? limit : jt;
        if (w->scratch.spinning) {
            if (l.ia > 0.0)
                w->angle[a] -= l.ia * l.ra * jt;
            if (l.b_turns && l.ib > 0.0)
                w->angle[b] -= l.ib * l.rb * jt;
        }
        sb_vec2 p = v2_add(v2_scale(n, j), v2_scale(t, jt));
        va = v2_mad(va, -wa * sa, p);
        vb = v2_mad(vb, wb * sb, p);
        if (b2 >= 0)
            vb2 = v2_mad(vb2, (c->corner ? -1.0 : 1.0) * w->inv_mass[b2] * sb2, p);
        // an impact's px follows its pushed x; a resting contact's x follows its px (above)
        sb_vec2 *moved = impact ? w->scratch.prev : w->pos;
        const sb_vec2 *kept = impact ? w->pos : w->scratch.prev;
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
    const double relative = (l->b_turns ? w->angle[b] - w->scratch.angle_prev[b] : 0.0) - (w->angle[a] - w->scratch.angle_prev[a]);
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
    sb_vec2 da = v2_sub(w->pos[a], w->scratch.prev[a]), db = b >= 0 ? v2_sub(w->pos[b], w->scratch.prev[b]) : v2(0, 0);
    return v2_dot(v2_sub(db, da), t);
}

/// The slip this sub-step's turns made (turn_slip; 0 in a world where nothing turns), and through
/// *tsum the tangent's inverse mass: the ends' wsum and what turning them adds. A slide's
/// correction by position turns the ends through it, the position form of the velocity methods'
/// tangent impulse.
static inline double turns_and_tangent_mass(const sb_world *w, const sb_contact *c, const contact_levers *l, double wsum,
                                            double *tsum)
{
    *tsum = w->scratch.spinning ? tangent_sum(wsum, l) : wsum;
    return w->scratch.spinning ? turn_slip(w, c, l) : 0.0;
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
    const double wa = inv_mass_of(w, a), wsum = inv_mass_a(w, c) + inv_mass_b(w, c);
    const sb_vec2 t = v2(-c->normal.y, c->normal.x);
    const double limit = c->friction * push;
    const contact_levers l = levers_of(w, c);
    const bool turns = w->scratch.spinning;
    double tsum;
    const double spin = turns_and_tangent_mass(w, c, &l, wsum, &tsum);
    if (tsum == 0.0)
        return;
    double slide;
    if (c->b2 >= 0) { // a solid spring: its side moves by its ends' shares (no anchor: its slip stays 0)
        const sb_vec2 moved_a = v2_sub(a_side(c, w->pos), a_side(c, w->scratch.prev));
        slide = (v2_dot(v2_sub(v2_sub(b_side(c, w->pos), b_side(c, w->scratch.prev)), moved_a), t) + spin) / tsum;
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

// The position methods' normal projection (verlet's first collide pass, Boesch's "Verlet collision with impulse preservation", without
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

// The position form of warm starting (Nissen's sequential-impulse article's sequential impulses start from the last
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
// return to where they stuck. Were each sub-step's friction to take back only that sub-step's
// slide, what the sweeps in colour order leave each time, a few micrometres, would add up to a
// steady creep (a pile flowing at millimetres a second, a pyramid of three balls sliding apart).
// A slip beyond what the sub-step's friction can take back (mu times its push) is sliding, and
// the anchor goes with the surfaces (slip 0): there friction is Coulomb's sliding friction.
// Each contact writes only its own slip: one pass over the list, not colour by colour.
static void keep_anchor_range(void *ctx, int from, int to)
{
    sb_world *w = ctx;
    for (int k = from; k < to; ++k) {
        sb_contact *c = &w->contact.next[k];
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
    sb_pool_for(w->pool, w->contact.next_count, 1, CONTACTS_PER_THREAD, keep_anchor_range, w);
}

void contacts_warm_push(sb_world *w)
{
    contact_job job = {.w = w};
    for_each_color(w, warm_push_range, &job);
}

// One contact pass of the position methods: every normal projection first, then every contact's
// friction on the push it just got. Friction right after each contact's own projection would
// move the particles the next contacts are about to project, and a pile never comes to rest;
// friction once a sub-step on the summed push (the article has no friction) comes after the
// last projection, with no pass to mend what it moves, and lets a pyramid of balls that do not
// roll slide apart (docs/decisions/2026-11-24-static-friction-anchor.md).
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
        double target = !c->collided && c->relative_velocity < -w->def.restitution_threshold ? -c->restitution * c->relative_velocity : 0.0;
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
