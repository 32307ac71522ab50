// The velocity methods' contact solver: the contacts' softness (Catto's "Soft Constraints", tuned as Box2D v3's
// soft step), their masses and levers each sub-step, the warm start, the solve with friction and
// rolling (four contacts at a time with AVX2 or WebAssembly SIMD, f4.h), the relax and
// restitution. The position methods' projections are contact_project.c; impacts between two
// particles, contact_impact.c.
#include "contact_kernels.h"
#include "f4.h"

#include <stdlib.h>
#include <string.h>

/// Contact softness: a quarter of the sub-step rate (Box2D v3's bound, without its 30 Hz cap,
/// which bound at the default 6 sub-steps and set how far piles sink: 90 Hz here, a column of
/// 20 balls sinks 12 mm), damping ratio 10, and at most 3 m/s of push-out velocity. The
/// measurements: docs/decisions/2026-11-24-contacts-at-a-quarter-of-the-substep-rate.md.
static const double contact_damping_ratio = 10.0;
static const double contact_push_max = 3.0;
/// The softest a contact gets, as a fraction of the step rate: 45 Hz at 60 steps a second. At
/// one and two sub-steps the quarter of the sub-step rate is 15 and 30 Hz, and a column of 20
/// balls sank 442 and 110 mm; where this floor is above the quarter, the contacts take more
/// passes (contact_passes), which hold a stiffer contact still. A soft contact holds a load at an
/// overlap of load / (m w^2), so the floor sets how deep a pile rests at one and two sub-steps.
/// The fractions and passes tried: docs/decisions/2026-11-24-contact-stiffness-floor.md.
static const double contact_step_fraction = 0.75;

/// Whether the floor on the contacts' stiffness binds at sub-step h of step dt.
static bool contact_floor_binds(double h, double dt) { return contact_step_fraction / dt > 0.25 / h; }

/// Contact softness frequency for sub-step h of step dt: a quarter of the sub-step rate, and no
/// less than contact_step_fraction of the step rate unless an end is joined by springs
/// (contact_joined); twice that where one end cannot move (contact_held), as Box2D v3 makes its
/// contacts with static bodies (its solver context's staticSoftness, made at twice contactHertz):
/// that contact holds the whole load at the root of a pile, where one between two moving
/// particles shares it (docs/decisions/2026-11-27-held-contacts-twice-as-stiff.md). A joined end
/// keeps the quarter whatever holds the other.
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
/// and two sub-steps a pile gets the projections a step it gets at six; with one an iteration,
/// verlet's and xpbd's piles crept (docs/decisions/2026-11-24-contact-stiffness-floor.md).
int contact_passes(const sb_world *w, double h, int stiff_passes)
{
    const int n = w->def.substeps;
    return contact_floor_binds(h, w->def.dt) ? (stiff_passes + n - 1) / n : 1;
}

sb_soft contact_softness(double h, double dt, contact_kind kind)
{
    return soft_from_hertz(contact_hertz(h, dt, kind), contact_damping_ratio, h);
}

double contact_push_limit(void) { return contact_push_max; }

/// A contact's masses and levers for this sub-step (its geometry found): in the first sub-step,
/// and in every one for a solid spring's contact, whose share of each end moves (masses change
/// between steps only: retune.c ramps them there).
static inline void prepare_contact(const sb_world *w, sb_contact *c, bool first_substep)
{
    if (!first_substep && c->b2 < 0)
        return;
    c->inv_mass_a = inv_mass_a(w, c);
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
        c->collided = false;
    }
}

static void prepare_range(void *ctx, int from, int to)
{
    const contact_job *job = ctx;
    for (int k = from; k < to; ++k) {
        sb_contact *c = &job->w->contact.next[k];
        contact_geometry(job->w, c);
        prepare_contact(job->w, c, job->flag);
    }
}

void contacts_prepare(sb_world *w, double h, bool first_substep, bool geometry_current)
{
    if (geometry_current && !first_substep) {
        // nothing has moved since the geometry was found, so only a solid spring's contact has
        // anything to prepare; those are in colour 63, the last
        for (int k = w->contact.color_start[63]; k < w->contact.next_count; ++k)
            prepare_contact(w, &w->contact.next[k], false);
        return;
    }
    contact_job job = {.w = w, .h = h, .flag = first_substep};
    sb_pool_for_segments(w->pool, 64, w->contact.color_start, CONTACTS_PER_THREAD, prepare_range, &job);
    if (first_substep)
        w->contact.joined = -1; // a new step's contacts: counted when a method first asks (joined_contacts)
}

/// A contact with no friction, no rolling resistance and no tangent impulse left: its solve is
/// the normal impulse alone (friction_impulse_step would clamp the tangent to zero and the
/// spin to nothing), so it skips them.
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
/// The relax's bias for a contact that closes at vn: it holds what would close within the next
/// sub-step, but a closing faster than the restitution threshold is an impact, which the next
/// sub-step's collisions take (contacts_collide), whether the gap is still open or the sub-step
/// ended on the touch: held here it would meet them at the speed the hold left it (a ball that
/// reached a wall just as a sub-step ended stopped dead on it), and a struck row would take the
/// blow as one.
static inline double impact_ahead(const sb_world *w, const sb_contact *c, bool use_bias, double vn, double bias)
{
    return !use_bias && c->restitution > 0.0 && vn < -w->def.restitution_threshold && -vn > bias ? -vn : bias;
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
        const f4 impact = f4_and(f4_and(bouncy, f4_gt(minus_vn, bias)), f4_lt(vn, f4_splat(-w->def.restitution_threshold)));
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
        if (w->scratch.spinning) {
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

// Soft non-penetration (Catto's soft-constraint talk's soft constraint, tuned as in Box2D v3): a speculative
// contact (separation > 0) lets the gap close in one sub-step; an overlap is pushed out
// softly while use_bias is on; the relax pass (use_bias off) removes that push velocity.
// The velocity methods call it once per sub-step plus the relax pass, as Box2D v3's soft
// step does (at one and two sub-steps more: contact_passes), not once per spring iteration:
// the soft contact is a spring, and repeating it within a sub-step only stiffens it unevenly
// (a pile settles less and costs more).
// Between two particles or with a static shape, the contact's own path reads the masses and
// levers prepare copied; a solid spring's side takes the general one.
static void solve_one(const contact_job *job, sb_contact *c)
{
    sb_world *w = job->w;
    const bool use_bias = job->flag;
    const double inv_h = 1.0 / job->h;
    const bool spinning = w->scratch.spinning;
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
        bias = impact_ahead(w, c, use_bias, v2_dot(rv, n), bias);
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
    bias = impact_ahead(w, c, use_bias, rvx * nx + rvy * ny, bias);
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
// contact by contact, as the pass reaches it, is the same as a pass of its own before, and reads
// the contacts once fewer a sub-step.
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
    if (job->base != job->w->contact.color_start[63] && vector_passes_active()) {
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
    if (w->contact.joined < 0) {
        int joined = 0;
        for (int k = 0; w->s_alive > 0 && k < w->contact.next_count; ++k)
            joined += contact_joined(w, &w->contact.next[k]);
        w->contact.joined = joined;
    }
    return w->contact.joined;
}

void contacts_solve(sb_world *w, double h, bool skip_joined)
{
    solve_pass(w, h, true, skip_joined && joined_contacts(w) > 0 ? CONTACTS_FREE : CONTACTS_ALL);
}

// Nissen's sequential impulses iterate every constraint together (Nissen's "Stable Rigid Springs with Sequential Impulses"). With the contacts
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
