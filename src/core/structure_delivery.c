// What the stepped world delivers of a tuned structure's mode (structure_internal.h). The tune
// puts the mode at the asked frequency in continuous time; the world steps it with a method, a
// sub-step and a number of iterations, and a stiff network in few sub-steps or iterations moves
// slower than its springs' continuous stiffness says (Gauss-Seidel passes that have not
// converged, an implicit step's lag). So the tune measures: a copy of the structure alone is run
// twice as the world would step it, once plucked along the mode and once not, and the difference
// of the two runs along the mode's shape is the mode's own motion, whatever else the structure
// does (a rope built unstretched sags under its weight in both runs alike). Its zero crossings and
// decay give the frequency and damping ratio delivered; the group's stiffness and damping are
// corrected from them, and where no correction reaches the asked mode within 3% and 0.01, the
// sub-steps that would are found, so that what cannot be delivered is said in the structure's
// terms.
#include "structure_internal.h"

#include "world_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/// The most a tune's measurements may cost, in springs times sub-steps times frames stepped.
#define DELIVERY_BUDGET 3e7
/// Frames a measurement runs: five and a half periods of the asked mode, within these.
enum { TRIAL_FRAMES_MIN = 40, TRIAL_FRAMES_MAX = 720 };

typedef struct scratch {
    sb_world *world;
    sb_particle_id *moving; // the structure's moving particles, in the band's order
} scratch;

/// A world that holds the structure alone, as `def` steps it: the moving particles at rest where
/// they are, the particles its springs reach that do not move held fixed, the group's springs at
/// scale and beta (unbreakable), and the springs outside the group as they are.
static bool scratch_make(const structure *s, const sb_world_def *def, double scale, double beta, scratch *out)
{
    const sb_world *w = s->world;
    sb_world_def d = *def;
    d.collisions = false;
    d.has_bounds = false;
    d.threads = 1;
    out->world = sb_world_create(&d);
    out->moving = malloc(sizeof *out->moving * (size_t)(s->particles > 0 ? s->particles : 1));
    int slots = w->p_high > 0 ? w->p_high : 1;
    sb_particle_id *copy = malloc(sizeof *copy * (size_t)slots);
    bool ok = out->world && out->moving && copy;
    for (int i = 0; ok && i < slots; ++i)
        copy[i] = sb_null_particle();
    for (int i = 0; ok && i < s->particles; ++i) {
        sb_particle_def p;
        sb_particle_get(w, s->moving[i], &p);
        p.velocity = (sb_vec2){0.0, 0.0};
        p.angular_velocity = 0.0;
        p.events = false;
        copy[s->moving[i].index] = out->moving[i] = sb_world_add_particle(out->world, &p, NULL);
        ok = out->moving[i].generation != 0;
    }
    for (int k = 0; ok && k < s->group_count + s->other_count; ++k) {
        const bool in_group = k < s->group_count;
        const sb_spring_id id = in_group ? s->ids[k] : s->other_ids[k - s->group_count];
        sb_spring_def sd;
        sb_spring_get(w, id, &sd);
        sb_particle_id *ends[2] = {&sd.a, &sd.b};
        for (int e = 0; e < 2 && ok; ++e) {
            sb_particle_id *at = &copy[ends[e]->index];
            if (!at->generation) { // an end that does not move: held where it is
                sb_particle_def p;
                sb_particle_get(w, *ends[e], &p);
                p.fixed = true;
                p.velocity = (sb_vec2){0.0, 0.0};
                p.events = false;
                *at = sb_world_add_particle(out->world, &p, NULL);
                ok = at->generation != 0;
            }
            *ends[e] = *at;
        }
        if (in_group) {
            double rest = sd.rest_length;
            sb_tuning target = sd.tuning;
            sb_spring_ramp_target(w, id, &rest, &target); // a ramp running: its end
            sd.rest_length = rest;
            sd.tuning = sb_tuning_raw(scale * s->k[k], beta * scale * s->k[k]);
        }
        sd.break_force = sd.break_stretch = 0.0; // a pluck measures; it never breaks what it runs
        sb_status st = SB_OK;
        ok = ok && sb_world_add_spring(out->world, &sd, &st, NULL).generation != 0 && st == SB_OK;
    }
    free(copy);
    if (!ok) {
        sb_world_destroy(out->world);
        free(out->moving);
        out->world = NULL;
        out->moving = NULL;
    }
    return ok;
}

static void scratch_free(scratch *c)
{
    if (c->world)
        sb_world_destroy(c->world);
    free(c->moving);
    c->world = NULL;
    c->moving = NULL;
}

/// Frames a measurement of a mode at `hertz` runs (five and a half periods); 0 where the frames
/// cannot show it.
static int trial_frames(double hertz, double dt)
{
    if (!(hertz * dt < 0.2))
        return 0;
    int frames = (int)ceil(5.5 / (hertz * dt));
    return frames < TRIAL_FRAMES_MIN ? TRIAL_FRAMES_MIN : frames > TRIAL_FRAMES_MAX ? TRIAL_FRAMES_MAX : frames;
}

/// What one measurement costs against DELIVERY_BUDGET: the settling and the two runs.
static double trial_cost(const structure *s, const sb_world_def *def, int frames)
{
    const int settle = def->substeps > 8 ? def->substeps : 8;
    return (double)(s->group_count + s->other_count + s->particles) * (2.0 * def->substeps + settle) * frames;
}

/// Sets the group's springs in the scratch world (the first of its springs) to scale and beta.
static void scratch_tune(const structure *s, scratch *c, double scale, double beta)
{
    sb_spring_id it = sb_null_spring();
    for (int k = 0; k < s->group_count && sb_world_next_spring(c->world, &it); ++k) {
        sb_spring_def d;
        sb_spring_get(c->world, it, &d);
        const sb_tuning t = sb_tuning_raw(scale * s->k[k], beta * scale * s->k[k]);
        sb_spring_set(c->world, it, d.rest_length, &t, NULL);
    }
}

/// Lets the scratch world come to rest under its loads where it hangs or sags: the soft method at
/// 8 sub-steps and iterations or more (stable whatever the stiffness), the mode critically damped
/// (c = 2 k / w gives every mode a damping ratio of 1 or more, and each then settles at w / 2 at
/// least), for three of its periods. False if the world's interrupt stopped it.
static bool scratch_settle(structure *s, scratch *c, const sb_world_def *def, double scale, double hertz)
{
    sb_world_def settle = *def;
    settle.method = SB_METHOD_SOFT;
    settle.substeps = def->substeps > 8 ? def->substeps : 8;
    settle.iterations = def->iterations > 8 ? def->iterations : 8;
    sb_world_set_def(c->world, &settle, NULL);
    scratch_tune(s, c, scale, 2.0 / (6.28318530717958647692 * hertz));
    int frames = (int)ceil(3.0 / (hertz * def->dt));
    frames = frames > 3 * TRIAL_FRAMES_MAX / 2 ? 3 * TRIAL_FRAMES_MAX / 2 : frames;
    for (int f = 0; f < frames; ++f) {
        if (s->world->interrupt && s->world->interrupt(s->world->interrupt_ud)) {
            s->interrupted = true;
            return false;
        }
        sb_world_step(c->world);
    }
    sb_world_set_def(c->world, def, NULL);
    for (int i = 0; i < s->particles; ++i) { // at rest, as the measurement starts
        sb_particle_def p;
        sb_particle_get(c->world, c->moving[i], &p);
        p.velocity = (sb_vec2){0.0, 0.0};
        sb_particle_set(c->world, c->moving[i], &p, NULL);
    }
    return true;
}

bool structure_measure(structure *s, const sb_world_def *def, double scale, double beta, double asked_hertz,
                       structure_trial *out)
{
    memset(out, 0, sizeof *out);
    const int frames = trial_frames(asked_hertz, def->dt);
    if (frames == 0)
        return true;
    scratch base = {0}, plucked = {0};
    double *q = malloc(sizeof *q * (size_t)frames);
    bool made = q && scratch_make(s, def, scale, beta, &base) && scratch_make(s, def, scale, beta, &plucked);
    bool interrupted = made && !scratch_settle(s, &base, def, scale, asked_hertz);
    sb_snapshot *rest = made && !interrupted ? sb_world_snapshot(base.world) : NULL;
    made = made && !interrupted && rest && sb_world_restore(plucked.world, rest) == SB_OK;
    sb_snapshot_destroy(rest);
    if (made) {
        scratch_tune(s, &base, scale, beta);
        scratch_tune(s, &plucked, scale, beta);
    }
    // plucked along the mode's shape d = M^-1/2 y, its largest move a thousandth of the structure's
    // springs' mean length: small enough to stay linear, far above rounding
    double length = 0.0, largest = 0.0;
    for (int k = 0; made && k < s->group_count; ++k)
        length += sb_spring_length(s->world, s->ids[k]) / s->group_count;
    for (int i = 0; made && i < s->n; ++i)
        largest = fmax(largest, fabs(s->y[i]) / sqrt(s->mass[i]));
    const double amplitude = largest > 0.0 ? 1e-3 * fmax(length, 1e-6) / largest : 0.0;
    for (int i = 0; made && i < s->particles; ++i) {
        sb_particle_def p;
        sb_particle_get(plucked.world, plucked.moving[i], &p);
        p.position.x += amplitude * s->y[2 * i] / sqrt(s->mass[2 * i]);
        p.position.y += amplitude * s->y[2 * i + 1] / sqrt(s->mass[2 * i + 1]);
        sb_particle_set(plucked.world, plucked.moving[i], &p, NULL);
    }
    bool halted = false;
    for (int f = 0; made && f < frames && !interrupted && !halted; ++f) {
        if (s->world->interrupt && s->world->interrupt(s->world->interrupt_ud)) {
            interrupted = s->interrupted = true;
            break;
        }
        halted = sb_world_step(base.world) != SB_OK || sb_world_step(plucked.world) != SB_OK;
        double sum = 0.0; // the mode's share of the difference, in units of the pluck
        for (int i = 0; i < s->particles && !halted; ++i) {
            sb_particle_def a, b;
            sb_particle_get(plucked.world, plucked.moving[i], &a);
            sb_particle_get(base.world, base.moving[i], &b);
            sum += sqrt(s->mass[2 * i]) * (s->y[2 * i] * (a.position.x - b.position.x) +
                                           s->y[2 * i + 1] * (a.position.y - b.position.y));
        }
        q[f] = amplitude > 0.0 ? sum / amplitude : 0.0;
        halted = halted || !isfinite(q[f]) || fabs(q[f]) > 1e3; // it ran away: nothing delivered
    }
    if (made && !interrupted && halted) { // it ran away: read as what it is, a mode the world cannot hold
        out->read = out->ran_away = true;
    } else if (made && !interrupted) {
        // read from the second period on: the faster modes a pluck along the continuous mode's
        // shape also starts (the stepped mode's shape is not quite it) have died down by then
        int skip = (int)(1.0 / (asked_hertz * def->dt));
        skip = skip < frames / 4 ? skip : frames / 4;
        sb_oscillation o = sb_measure_oscillation(q + skip, frames - skip, def->dt);
        if (o.crossings >= 5 && o.zeta < 0.3) { // the natural frequency, from the damped one it swings at
            out->zeta = o.peaks >= 2 ? o.zeta : 0.0;
            out->hertz = o.hertz / sqrt(fmax(1.0 - out->zeta * out->zeta, 1e-6));
            out->read = o.peaks >= 2;
        } else { // too damped to count swings: the release's closed form, fitted
            sb_release r = sb_measure_release(q, frames, def->dt); // from the pluck: it fits the release whole
            out->hertz = r.hertz;
            out->zeta = r.zeta;
            out->read = r.fit > 0.9 && r.hertz > 0.0;
        }
    }
    scratch_free(&base);
    scratch_free(&plucked);
    free(q);
    return !interrupted;
}

/// Whether a measurement is within the promise: 3% of the hertz, 0.01 of the damping ratio.
static bool within(const structure_trial *t, double hertz, double zeta)
{
    return t->read && fabs(t->hertz / hertz - 1.0) <= 0.03 && fabs(t->zeta - zeta) <= 0.01;
}

/// How far a measurement is from the asked mode, for keeping the best (a run away the worst read).
static double miss(const structure_trial *t, double hertz, double zeta)
{
    if (!t->read)
        return INFINITY;
    return t->ran_away ? 1e300 : fabs(t->hertz / hertz - 1.0) / 0.03 + fabs(t->zeta - zeta) / 0.01;
}

bool structure_deliver(structure *s, double hertz, double zeta, double *scale, double *beta, sb_structure_delivery *delivery)
{
    const sb_world_def def = sb_world_get_def(s->world);
    memset(delivery, 0, sizeof *delivery);
    delivery->method = def.method;
    delivery->substeps = def.substeps;
    delivery->iterations = def.iterations;
    const int frames = trial_frames(hertz, def.dt);
    double budget = DELIVERY_BUDGET;
    if (frames == 0 || trial_cost(s, &def, frames) > budget / 2.0)
        return true; // not measured: too fast for the frames, or too large to try twice
    const double s_continuous = *scale, b_continuous = *beta;
    double s_try = *scale, b_try = *beta, best_miss = INFINITY;
    double s_last = 0.0, h_last = 0.0, b_last = 0.0, z_last = 0.0;
    bool damping_helps = true;
    structure_trial best = {0}, t;
    // A few tries, each from the last two: the frequency as a power of the scale (1/2 for a spring
    // alone; near 0 where more stiffness no longer helps), the damping ratio in proportion to beta
    // while it answers. The best try is kept: a stepped network's answer need not be smooth.
    for (int round = 0; round < 5 && budget >= trial_cost(s, &def, frames); ++round) {
        if (!structure_measure(s, &def, s_try, b_try, hertz, &t))
            return false;
        budget -= trial_cost(s, &def, frames);
        if (miss(&t, hertz, zeta) < best_miss) {
            best_miss = miss(&t, hertz, zeta);
            best = t;
            *scale = s_try;
            *beta = b_try;
        }
        const bool hertz_near = fabs(t.hertz / hertz - 1.0) <= 0.01, zeta_near = fabs(t.zeta - zeta) <= 0.005;
        if (!t.read || t.ran_away || (hertz_near && zeta_near) || (round == 0 && within(&t, hertz, zeta)))
            break; // the continuous tune delivers as promised: it stands
        double power = 0.5;
        if (fabs(log(s_try / s_last)) > 0.01 && t.hertz > 0.0 && h_last > 0.0)
            power = log(t.hertz / h_last) / log(s_try / s_last);
        if (fabs(b_try - b_last) > 0.2 * b_try && fabs(t.zeta - z_last) < 0.1 * fabs(zeta - z_last))
            damping_helps = false; // more damping no longer reaches the mode (a method's limit)
        const bool stiffness_helps = power > 0.2; // below: a mode its loads' tension sets, not its stiffness
        if (!(hertz_near || stiffness_helps) && !(zeta_near || damping_helps))
            break;
        double next_scale = s_try, next_beta = b_try;
        if (!hertz_near && stiffness_helps)
            next_scale = s_try * pow(hertz / t.hertz, 1.0 / fmin(power, 1.0));
        if (!zeta_near && damping_helps)
            next_beta = zeta == 0.0 ? 0.0 : t.zeta > 1e-4 ? b_try * fmin(fmax(zeta / t.zeta, 0.2), 5.0) : 2.0 * b_try;
        s_last = s_try;
        h_last = t.hertz;
        b_last = b_try;
        z_last = t.zeta;
        s_try = fmin(fmax(next_scale, s_continuous / 30.0), s_continuous * 30.0);
        b_try = fmin(next_beta, 10.0 * b_continuous + 1e-12);
        if (s_try == s_last && b_try == b_last)
            break;
    }
    delivery->measured = best.read;
    delivery->ran_away = best.ran_away;
    delivery->hertz = best.hertz;
    delivery->damping_ratio = best.zeta;
    delivery->delivered = within(&best, hertz, zeta);
    if (!best.read || delivery->delivered)
        return true;
    // not delivered: the fewest sub-steps that would, doubling while the budget lasts, at the
    // continuous-time tune
    sb_world_def more = def;
    for (int sub = def.substeps * 2; sub <= 64; sub *= 2) {
        more.substeps = sub;
        if (budget < trial_cost(s, &more, frames))
            break;
        if (!structure_measure(s, &more, s_continuous, b_continuous, hertz, &t))
            return false;
        budget -= trial_cost(s, &more, frames);
        if (within(&t, hertz, zeta)) {
            delivery->substeps_needed = sub;
            break;
        }
    }
    return true;
}
