// Constraints besides springs: ropes, struts, bending angles and areas (sb_constraint.h).
//
// Each is one scalar function C(x) of its particles, with gradients g_i, solved the way its
// world's method solves a spring, since a spring is the case C = |b - a| - rest with g = -u, u:
// the same impulse along sum_i w_i g_i, the same effective mass m = 1 / sum_i w_i |g_i|^2 in
// place of the reduced mass, and the same constants from the same target poles
// (method_coefficients, each method's file derives them). A tuning therefore gives the
// constrained quantity the motion it gives a spring's length: m C'' = -k C - c C' with k and c
// from the hertz and damping ratio at the effective mass (Catto's "Soft Constraints" builds every soft
// joint that way, and Box2D v3's joints read their hertz the same way). A rigid one is the
// method's rigid spring. Ropes and struts are one-sided, as contacts are: a rope's accumulated
// impulse can only pull, a strut's only push, and a slack one is not solved unless it is rigid
// and would overshoot in this sub-step (a speculative contact's rule).
//
// Gradients are taken at the start of each sub-step for the velocity solves (springs keep their
// sub-step's axis the same way) and afresh for every position projection.
#include "sb_trig.h"
#include "springs_kernels.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const double pi = 3.14159265358979323846;

sb_constraint_def sb_default_constraint_def(void)
{
    sb_constraint_def d;
    memset(&d, 0, sizeof d);
    d.kind = SB_CONSTRAINT_ROPE;
    d.rest = NAN;
    d.tuning = sb_tuning_hertz(0.0, 1.0);
    return d;
}

const char *sb_constraint_kind_name(sb_constraint_kind kind)
{
    static const char *const names[] = {"rope", "strut", "angle", "area"};
    return (unsigned)kind < SB_CONSTRAINT_KIND_COUNT ? names[kind] : "?";
}

// ---------------------------------------------------------------- geometry

/// The angle in (-pi, pi]. A turn or two is taken off one at a time (exact: Sterbenz); a rest
/// angle of 1e12 would take 1.6e11 turns that way (the host spun on it), so far-off
/// angles go through remainder(), which is exact too.
static double wrap_angle(double a)
{
    if (!(fabs(a) < 16.0 * pi)) {
        if (!isfinite(a))
            return a;
        a = remainder(a, 2.0 * pi);
    }
    while (a > pi)
        a -= 2.0 * pi;
    while (a <= -pi)
        a += 2.0 * pi;
    return a;
}

/// The constrained value and, when `grad` is given, its gradient for each particle.
static double constraint_value(const sb_world *w, int c, sb_vec2 *grad)
{
    const int *p = w->constraints.parts[c];
    const sb_vec2 *x = w->pos;
    switch ((sb_constraint_kind)w->constraints.kind[c]) {
    case SB_CONSTRAINT_ROPE:
    case SB_CONSTRAINT_STRUT: {
        sb_vec2 d = v2_sub(x[p[1]], x[p[0]]);
        double len = v2_len(d);
        if (grad) {
            sb_vec2 u = len > 1e-12 ? v2_scale(d, 1.0 / len) : v2(1.0, 0.0);
            grad[0] = v2_scale(u, -1.0);
            grad[1] = u;
        }
        return len;
    }
    case SB_CONSTRAINT_ANGLE: {
        // theta = angle(v) - angle(u) with u = a - b, v = c - b; d angle(u) / du = perp(u) / |u|^2
        sb_vec2 u = v2_sub(x[p[0]], x[p[1]]), v = v2_sub(x[p[2]], x[p[1]]);
        double theta = sb_atan2(u.x * v.y - u.y * v.x, v2_dot(u, v));
        if (grad) {
            double uu = v2_dot(u, u), vv = v2_dot(v, v);
            grad[0] = uu > 1e-24 ? v2(u.y / uu, -u.x / uu) : v2(0.0, 0.0);
            grad[2] = vv > 1e-24 ? v2(-v.y / vv, v.x / vv) : v2(0.0, 0.0);
            grad[1] = v2(-grad[0].x - grad[2].x, -grad[0].y - grad[2].y);
        }
        return theta;
    }
    default: { // the shoelace formula; dA/dx_i = (y_{i+1} - y_{i-1}) / 2, dA/dy_i = (x_{i-1} - x_{i+1}) / 2
        int n = w->constraints.part_count[c];
        double area = 0.0;
        for (int i = 0; i < n; ++i) {
            sb_vec2 a = x[p[i]], b = x[p[(i + 1) % n]];
            area += a.x * b.y - b.x * a.y;
            if (grad) {
                sb_vec2 prev = x[p[(i + n - 1) % n]];
                grad[i] = v2(0.5 * (b.y - prev.y), 0.5 * (prev.x - b.x));
            }
        }
        return 0.5 * area;
    }
    }
}

/// The error C = value - rest; angles wrap to (-pi, pi].
static double constraint_error(const sb_world *w, int c, double value)
{
    double e = value - w->constraints.rest[c];
    return w->constraints.kind[c] == SB_CONSTRAINT_ANGLE ? wrap_angle(e) : e;
}

/// The least and the most accumulated impulse a kind allows (positive pushes a rope's ends apart).
static void impulse_range(const sb_world *w, int c, double *lo, double *hi)
{
    *lo = -INFINITY;
    *hi = INFINITY;
    if (w->constraints.kind[c] == SB_CONSTRAINT_ROPE)
        *hi = 0.0;
    else if (w->constraints.kind[c] == SB_CONSTRAINT_STRUT)
        *lo = 0.0;
}

/// True when a one-sided constraint holds with room to spare: C < 0 for a rope, C > 0 for a strut.
static bool slack(const sb_world *w, int c, double err)
{
    return (w->constraints.kind[c] == SB_CONSTRAINT_ROPE && err < 0.0) || (w->constraints.kind[c] == SB_CONSTRAINT_STRUT && err > 0.0);
}

/// sum_i g_i . v_i
static double constraint_rate(const sb_world *w, int c, const sb_vec2 *g)
{
    double r = 0.0;
    for (int i = 0; i < w->constraints.part_count[c]; ++i)
        r += v2_dot(g[i], w->vel[w->constraints.parts[c][i]]);
    return r;
}

/// v_i += w_i g_i impulse, into `v` (velocities or the Jacobi accumulator).
static void constraint_apply(sb_world *w, int c, const sb_vec2 *g, double impulse, sb_vec2 *v)
{
    for (int i = 0; i < w->constraints.part_count[c]; ++i) {
        int p = w->constraints.parts[c][i];
        v[p] = v2_mad(v[p], w->inv_mass[p] * impulse, g[i]);
    }
}

/// Adds `impulse` to the accumulator within the kind's range; returns what was really added.
static double accumulate(sb_world *w, int c, double impulse)
{
    double lo, hi;
    impulse_range(w, c, &lo, &hi);
    double old = w->constraints.lambda[c], now = old + impulse;
    now = now < lo ? lo : (now > hi ? hi : now);
    w->constraints.lambda[c] = now;
    return now - old;
}

static double inverse_mass_sum(const sb_world *w, int c, const sb_vec2 *g)
{
    double s = 0.0;
    for (int i = 0; i < w->constraints.part_count[c]; ++i)
        s += w->inv_mass[w->constraints.parts[c][i]] * v2_dot(g[i], g[i]);
    return s;
}

// ---------------------------------------------------------------- storage

#define GROW ARRAY_GROW

static bool constraints_reserve(sb_world *w, int need)
{
    if (need <= w->constraints.cap)
        return true;
    int cap = w->constraints.cap ? w->constraints.cap * 2 : 16;
    while (cap < need)
        cap *= 2;
    sb_constraints *c = &w->constraints;
    if (!GROW(c->kind, cap) || !GROW(c->solid, cap) || !GROW(c->break_stretch, cap) || !GROW(c->parts, cap) ||
        !GROW(c->part_count, cap) || !GROW(c->rest, cap) || !GROW(c->tuning, cap) || !GROW(c->gen, cap) ||
        !GROW(c->next_free, cap) || !GROW(c->load, cap) || !GROW(c->err, cap) || !GROW(c->meff, cap) ||
        !GROW(c->stiff, cap) || !GROW(c->damp, cap) || !GROW(c->scale, cap) || !GROW(c->target, cap) ||
        !GROW(c->lambda, cap) || !GROW(c->active, cap) || !GROW(c->grad_first, cap))
        return false;
    w->constraints.cap = cap;
    return true;
}

static int constraint_slot(const sb_world *w, sb_constraint_id id)
{
    if (id.index >= (uint32_t)w->constraints.high || id.generation == 0)
        return -1;
    int c = (int)id.index;
    return w->constraints.kind[c] != 0xFF && w->constraints.gen[c] == id.generation ? c : -1;
}

bool sb_constraint_is_valid(const sb_world *w, sb_constraint_id id) { return constraint_slot(w, id) >= 0; }

/// The particles a constraint of this kind needs.
static bool count_fits(sb_constraint_kind kind, int count)
{
    switch (kind) {
    case SB_CONSTRAINT_ROPE:
    case SB_CONSTRAINT_STRUT: return count == 2;
    case SB_CONSTRAINT_ANGLE: return count == 3;
    default: return count >= 3 && count <= 100000;
    }
}

sb_constraint_id sb_world_add_constraint(sb_world *w, const sb_constraint_def *d, sb_status *status, const char **bad_field)
{
    sb_constraint_id none = {SB_NULL_INDEX, 0};
    sb_status st = SB_OK;
    const char *bad = NULL;
    int *parts = NULL;
    if ((unsigned)d->kind >= SB_CONSTRAINT_KIND_COUNT) {
        st = SB_ERR_INVALID;
        bad = "kind";
    } else if (!d->particles || !count_fits(d->kind, d->count)) {
        st = SB_ERR_INVALID;
        bad = "particles";
    } else if (d->solid && d->kind != SB_CONSTRAINT_ROPE && d->kind != SB_CONSTRAINT_STRUT) {
        st = SB_ERR_INVALID;
        bad = "solid"; // a capsule has two ends: ropes and struts
    } else if (!(d->break_stretch >= 0.0 && d->break_stretch <= 1e12) ||
               (d->break_stretch > 0.0 && d->kind != SB_CONSTRAINT_ROPE && d->kind != SB_CONSTRAINT_STRUT)) {
        st = SB_ERR_INVALID;
        bad = "break_stretch"; // a length's stretch: ropes and struts
    } else if (!(isnan(d->rest) || (isfinite(d->rest) && fabs(d->rest) <= 1e12)) ||
               ((d->kind == SB_CONSTRAINT_ROPE || d->kind == SB_CONSTRAINT_STRUT) && d->rest < 0.0)) {
        st = SB_ERR_INVALID;
        bad = "rest";
    } else {
        st = sb_tuning_check(&d->tuning, &bad);
    }
    if (st == SB_OK) {
        parts = malloc(sizeof *parts * (size_t)d->count);
        if (!parts)
            st = SB_ERR_NO_MEMORY;
        for (int i = 0; parts && i < d->count && st == SB_OK; ++i) {
            sb_particle_id id = d->particles[i];
            bool alive = id.index < (uint32_t)w->p_high && id.generation != 0 && particle_alive(w, (int)id.index) &&
                         w->p_gen[id.index] == id.generation;
            if (!alive) {
                st = SB_ERR_STALE;
                bad = "particles";
                break;
            }
            parts[i] = (int)id.index;
            for (int k = 0; k < i; ++k)
                if (parts[k] == parts[i]) {
                    st = SB_ERR_SAME_PARTICLE;
                    bad = "particles";
                }
        }
    }
    int c = -1;
    if (st == SB_OK && !generations_reserve(&w->constraints.gens, w->constraints.high + 1))
        st = SB_ERR_NO_MEMORY;
    if (st == SB_OK) {
        if (w->constraints.free_head >= 0) {
            c = w->constraints.free_head;
            w->constraints.free_head = w->constraints.next_free[c];
        } else if (constraints_reserve(w, w->constraints.high + 1)) {
            c = w->constraints.high++;
            w->constraints.gen[c] = 0;
        } else {
            st = SB_ERR_NO_MEMORY;
        }
    }
    if (status)
        *status = st;
    if (bad_field && bad)
        *bad_field = bad;
    if (c < 0) {
        free(parts);
        return none;
    }
    w->constraints.gen[c] = generations_next(&w->constraints.gens, c);
    w->constraints.kind[c] = (uint8_t)d->kind;
    w->constraints.solid[c] = d->solid;
    w->constraints.solid_count += d->solid;
    w->constraints.break_stretch[c] = d->break_stretch;
    w->constraints.breakable += d->break_stretch > 0.0;
    w->constraints.parts[c] = parts;
    w->constraints.part_count[c] = d->count;
    w->constraints.tuning[c] = d->tuning;
    w->constraints.rest[c] = isnan(d->rest) ? constraint_value(w, c, NULL) : d->rest;
    w->constraints.load[c] = 0.0;
    w->constraints.alive += 1;
    w->pack.coef_dirty = true; // its load joins the springs'
    sb_constraint_id id = {(uint32_t)c, w->constraints.gen[c]};
    return id;
}

static void constraint_free_slot(sb_world *w, int c)
{
    w->constraints.solid_count -= w->constraints.solid[c];
    w->constraints.breakable -= w->constraints.break_stretch[c] > 0.0;
    w->constraints.break_stretch[c] = 0.0;
    w->constraints.solid[c] = 0;
    w->constraints.active[c] = 0;
    free(w->constraints.parts[c]);
    w->constraints.parts[c] = NULL;
    w->constraints.kind[c] = 0xFF;
    w->constraints.part_count[c] = 0;
    w->constraints.gen[c] = generations_next(&w->constraints.gens, c);
    w->constraints.next_free[c] = w->constraints.free_head;
    w->constraints.free_head = c;
    w->constraints.alive -= 1;
    w->pack.coef_dirty = true;
}

sb_status sb_world_remove_constraint(sb_world *w, sb_constraint_id id)
{
    int c = constraint_slot(w, id);
    if (c < 0)
        return SB_ERR_STALE;
    constraint_free_slot(w, c);
    return SB_OK;
}

void constraints_remove_particle(sb_world *w, int i)
{
    for (int c = 0; c < w->constraints.high; ++c) {
        if (w->constraints.kind[c] == 0xFF)
            continue;
        for (int k = 0; k < w->constraints.part_count[c]; ++k)
            if (w->constraints.parts[c][k] == i) {
                constraint_free_slot(w, c);
                break;
            }
    }
}

void constraints_free(sb_world *w)
{
    sb_constraints *c = &w->constraints;
    for (int k = 0; k < c->high; ++k)
        free(c->parts[k]);
    FREE_ARRAYS(c->kind, c->solid, c->break_stretch, c->parts, c->part_count, c->rest, c->tuning, c->gen, c->next_free,
                c->load, c->err, c->meff, c->stiff, c->damp, c->scale, c->target, c->lambda, c->active, c->grad,
                c->grad_first, c->scratch, c->break_events);
    generations_free(&c->gens);
}

int sb_constraint_get(const sb_world *w, sb_constraint_id id, sb_constraint_def *out, sb_particle_id *particles, int capacity)
{
    int c = constraint_slot(w, id);
    if (c < 0)
        return -1;
    out->kind = (sb_constraint_kind)w->constraints.kind[c];
    out->count = w->constraints.part_count[c];
    out->particles = NULL;
    out->rest = w->constraints.rest[c];
    out->tuning = w->constraints.tuning[c];
    out->solid = w->constraints.solid[c];
    out->break_stretch = w->constraints.break_stretch[c];
    for (int i = 0; i < w->constraints.part_count[c] && i < capacity; ++i) {
        int p = w->constraints.parts[c][i];
        particles[i] = (sb_particle_id){(uint32_t)p, w->p_gen[p]};
    }
    return w->constraints.part_count[c];
}

sb_status sb_constraint_set(sb_world *w, sb_constraint_id id, double rest, const sb_tuning *tuning, const char **bad_field)
{
    int c = constraint_slot(w, id);
    if (c < 0)
        return SB_ERR_STALE;
    bool one_sided = w->constraints.kind[c] == SB_CONSTRAINT_ROPE || w->constraints.kind[c] == SB_CONSTRAINT_STRUT;
    if (!isfinite(rest) || fabs(rest) > 1e12 || (one_sided && rest < 0.0)) {
        if (bad_field)
            *bad_field = "rest";
        return SB_ERR_INVALID;
    }
    sb_status st = sb_tuning_check(tuning, bad_field);
    if (st != SB_OK)
        return st;
    w->constraints.rest[c] = rest;
    w->constraints.tuning[c] = *tuning;
    w->pack.coef_dirty = true;
    return SB_OK;
}

int sb_world_constraint_break_events(const sb_world *w, const sb_constraint_break_event **events)
{
    *events = w->constraints.break_events;
    return w->constraints.break_count;
}

// A rope or strut breaks on the step after the one that stretched it past its threshold, as a
// spring does (events.c): the event keeps what it was, then it goes.
void constraints_break(sb_world *w)
{
    w->constraints.break_count = 0;
    if (w->constraints.breakable == 0)
        return;
    for (int c = 0; c < w->constraints.high; ++c) {
        if (w->constraints.kind[c] == 0xFF || !(w->constraints.break_stretch[c] > 0.0) || w->constraints.rest[c] <= 0.0)
            continue;
        double stretch = fabs(constraint_value(w, c, NULL) / w->constraints.rest[c] - 1.0);
        if (!(stretch > w->constraints.break_stretch[c]))
            continue;
        if (!ARRAY_RESERVE(w->constraints.break_events, w->constraints.break_cap, w->constraints.break_count + 1))
            return; // out of memory: it breaks at the next step
        sb_constraint_break_event *e = &w->constraints.break_events[w->constraints.break_count++];
        int a = w->constraints.parts[c][0], b = w->constraints.parts[c][1];
        e->constraint = (sb_constraint_id){(uint32_t)c, w->constraints.gen[c]};
        e->kind = (sb_constraint_kind)w->constraints.kind[c];
        e->a = (sb_particle_id){(uint32_t)a, w->p_gen[a]};
        e->b = (sb_particle_id){(uint32_t)b, w->p_gen[b]};
        e->rest = w->constraints.rest[c];
        e->stretch = stretch;
        sb_world_remove_constraint(w, e->constraint);
    }
}

double sb_constraint_value(const sb_world *w, sb_constraint_id id)
{
    int c = constraint_slot(w, id);
    return c < 0 ? NAN : constraint_value(w, c, NULL);
}

int sb_world_constraint_count(const sb_world *w) { return w->constraints.alive; }

bool sb_world_next_constraint(const sb_world *w, sb_constraint_id *it)
{
    int c = it->index == SB_NULL_INDEX ? 0 : (int)it->index + 1;
    for (; c < w->constraints.high; ++c)
        if (w->constraints.kind[c] != 0xFF) {
            it->index = (uint32_t)c;
            it->generation = w->constraints.gen[c];
            return true;
        }
    return false;
}

bool constraints_same_shape(const sb_world *a, const sb_world *b, bool exactly)
{
    if (exactly && a->constraints.high != b->constraints.high)
        return false;
    const int both = a->constraints.high < b->constraints.high ? a->constraints.high : b->constraints.high;
    for (int c = 0; c < both; ++c) {
        if (a->constraints.kind[c] != b->constraints.kind[c] || a->constraints.part_count[c] != b->constraints.part_count[c])
            return false;
        for (int i = 0; i < a->constraints.part_count[c]; ++i)
            if (a->constraints.parts[c][i] != b->constraints.parts[c][i])
                return false;
    }
    return true;
}

// ---------------------------------------------------------------- the sub-step

/// Gradients for every live constraint, laid out one after another.
static bool gradients_reserve(sb_world *w)
{
    int total = 0;
    for (int c = 0; c < w->constraints.high; ++c) {
        w->constraints.grad_first[c] = total;
        total += w->constraints.kind[c] == 0xFF ? 0 : w->constraints.part_count[c];
    }
    if (total > w->constraints.grad_cap) {
        if (!GROW(w->constraints.grad, total))
            return false;
        w->constraints.grad_cap = total;
    }
    return true;
}

static int busiest_degree(const sb_world *w, int c)
{
    int d = 1;
    for (int i = 0; i < w->constraints.part_count[c]; ++i)
        d = w->degree[w->constraints.parts[c][i]] + 1 > d ? w->degree[w->constraints.parts[c][i]] + 1 : d;
    return d;
}

/// The share of its load a constraint may keep: as a spring's (solver.c), from its busiest free particle.
static double allowed_share(const sb_world *w, int c, double load)
{
    double busiest = 0.0;
    for (int i = 0; i < w->constraints.part_count[c]; ++i) {
        int p = w->constraints.parts[c][i];
        if (w->inv_mass[p] > 0.0 && w->scratch.p_load[p] > busiest)
            busiest = w->scratch.p_load[p];
    }
    return busiest > SB_LOAD_LIMIT ? load * SB_LOAD_LIMIT / busiest : load;
}

void constraints_add_loads(sb_world *w, double h)
{
    if (w->constraints.alive == 0 || !gradients_reserve(w))
        return;
    for (int c = 0; c < w->constraints.high; ++c) {
        w->constraints.load[c] = 0.0;
        if (w->constraints.kind[c] == 0xFF)
            continue;
        sb_vec2 *g = w->constraints.grad + w->constraints.grad_first[c];
        constraint_value(w, c, g);
        double wsum = inverse_mass_sum(w, c, g);
        if (wsum <= 0.0)
            continue;
        double m = 1.0 / wsum, load;
        spring_coef k;
        if (sb_tuning_is_rigid(&w->constraints.tuning[c])) {
            load = method_rigid_coefficients(w->def.method, busiest_degree(w, c), m, h, &k);
        } else {
            bool limited;
            load = method_load(w->def.method, sb_tuning_poles(&w->constraints.tuning[c], m, h, &limited));
        }
        w->constraints.load[c] = load;
        // each particle's Gershgorin row of M^-1/2 J^T m J M^-1/2 (solver.c's add_load for springs)
        double row_sum = 0.0;
        for (int i = 0; i < w->constraints.part_count[c]; ++i)
            row_sum += sqrt(w->inv_mass[w->constraints.parts[c][i]]) * v2_len(g[i]);
        for (int i = 0; i < w->constraints.part_count[c]; ++i) {
            int p = w->constraints.parts[c][i];
            w->scratch.p_load[p] += load * m * sqrt(w->inv_mass[p]) * v2_len(g[i]) * row_sum;
        }
    }
}

void constraints_begin_substep(sb_world *w, double h)
{
    // Nothing is solved unless this sub-step says so: slots emptied since the last one (or all
    // of them, when the last constraint went) must not keep their flags.
    if (w->constraints.high > 0)
        memset(w->constraints.active, 0, (size_t)w->constraints.high);
    if (w->constraints.alive == 0 || !gradients_reserve(w))
        return;
    const sb_method method = w->def.method;
    w->stats.clamped_constraints = 0;
    for (int c = 0; c < w->constraints.high; ++c) {
        w->constraints.active[c] = 0;
        w->constraints.lambda[c] = 0.0;
        if (w->constraints.kind[c] == 0xFF)
            continue;
        sb_vec2 *g = w->constraints.grad + w->constraints.grad_first[c];
        double err = constraint_error(w, c, constraint_value(w, c, g));
        double wsum = inverse_mass_sum(w, c, g);
        bool rigid = sb_tuning_is_rigid(&w->constraints.tuning[c]);
        w->constraints.err[c] = err;
        if (wsum <= 0.0 || (slack(w, c, err) && !rigid))
            continue; // nothing can move it, or a slack one-sided spring: no force
        double m = 1.0 / wsum;
        spring_coef k;
        if (rigid) {
            method_rigid_coefficients(method, busiest_degree(w, c), m, h, &k);
            if (method_kernels(method)->rigid_springs_explicit) { // Nissen's safe spring, scaled as springs are
                double share = w->constraints.load[c] > 0.0 ? allowed_share(w, c, w->constraints.load[c]) / w->constraints.load[c] : 1.0;
                k.stiff *= share;
                k.damp *= share;
            }
        } else {
            bool limited;
            sb_poles target = sb_tuning_poles(&w->constraints.tuning[c], m, h, &limited);
            coef_result r = method_coefficients(method, target, m, h, allowed_share(w, c, method_load(method, target)), &k);
            w->stats.clamped_constraints += r.clamped || limited; // as a spring would be (solver.c)
        }
        w->constraints.meff[c] = m;
        w->constraints.stiff[c] = k.stiff;
        w->constraints.damp[c] = k.damp;
        w->constraints.scale[c] = k.scale;
        w->constraints.active[c] = 1;
    }
}

// force, impulse (the "Mass spring algorithm" note, Nissen's rigid-spring article) and verlet's tuned ones (Boesch's "Verlet collision with impulse preservation"): -(stiff C + damp C') from
// the velocities before the pass, all at once, as springs_jacobi_pass.
static void explicit_pass(sb_world *w, bool rigid)
{
    if (w->constraints.alive == 0)
        return;
    for (int c = 0; c < w->constraints.high; ++c) {
        if (!w->constraints.active[c] || sb_tuning_is_rigid(&w->constraints.tuning[c]) != rigid)
            continue;
        const sb_vec2 *g = w->constraints.grad + w->constraints.grad_first[c];
        double impulse = explicit_impulse(w->constraints.stiff[c], w->constraints.damp[c], w->constraints.err[c], constraint_rate(w, c, g));
        constraint_apply(w, c, g, accumulate(w, c, impulse), w->scratch.dv);
    }
    for (int i = 0; i < w->p_high; ++i) {
        w->vel[i] = v2_add(w->vel[i], w->scratch.dv[i]);
        w->scratch.dv[i] = v2(0.0, 0.0);
    }
}

void constraints_explicit_tuned_pass(sb_world *w, double h)
{
    (void)h;
    explicit_pass(w, false);
}

void constraints_explicit_rigid_pass(sb_world *w, double h)
{
    (void)h;
    explicit_pass(w, true); // Nissen's safe spring (force, impulse); verlet projects them
}

// sequential (Nissen's "Stable Rigid Springs with Sequential Impulses"): the rest velocity C'_0 - (Cs C / h + Cd C'_0) once, then corrections
// for the rigid ones; a tuned one gives its whole rest impulse once, from the sub-step's starting
// velocities, as a tuned spring does (method_sequential.c says why).
void constraints_sequential_prepare(sb_world *w, double h)
{
    if (w->constraints.alive == 0)
        return;
    for (int c = 0; c < w->constraints.high; ++c) {
        if (!w->constraints.active[c])
            continue;
        const sb_vec2 *g = w->constraints.grad + w->constraints.grad_first[c];
        double rate = constraint_rate(w, c, g);
        w->constraints.target[c] = sequential_rest_rate(w->constraints.stiff[c], w->constraints.damp[c], w->constraints.err[c], rate, h);
        if (!sb_tuning_is_rigid(&w->constraints.tuning[c]))
            constraint_apply(w, c, g, accumulate(w, c, sequential_impulse(rate, w->constraints.target[c], w->constraints.meff[c], 1.0)),
                             w->scratch.dv);
    }
    for (int i = 0; i < w->p_high; ++i) {
        w->vel[i] = v2_add(w->vel[i], w->scratch.dv[i]);
        w->scratch.dv[i] = v2(0.0, 0.0);
    }
}

/// A rigid rope's or strut's rigid_turn_rate (springs_kernels.h) from the velocities now, along
/// its sub-step's axis g[1]; zero for the other kinds.
static double constraint_turn_rate(const sb_world *w, int c, const sb_vec2 *g, double h)
{
    if (w->constraints.kind[c] != SB_CONSTRAINT_ROPE && w->constraints.kind[c] != SB_CONSTRAINT_STRUT)
        return 0.0;
    const sb_vec2 rel = v2_sub(w->vel[w->constraints.parts[c][1]], w->vel[w->constraints.parts[c][0]]);
    const double turn = rigid_turn_factor(h, w->constraints.rest[c] + w->constraints.err[c]);
    return turn > 0.0 ? rigid_turn_rate(rel.x, rel.y, v2_dot(rel, g[1]), turn) : 0.0;
}

// The rigid ones' rest rate also asks the rate a rope's or strut's turn needs, each iteration,
// as a rigid spring's does (method_sequential.c).
void constraints_sequential_iterate(sb_world *w, double h)
{
    const double correction = w->def.correction;
    for (int c = 0; c < w->constraints.high; ++c) {
        if (!w->constraints.active[c] || !sb_tuning_is_rigid(&w->constraints.tuning[c]))
            continue;
        const sb_vec2 *g = w->constraints.grad + w->constraints.grad_first[c];
        const double target = w->constraints.target[c] + constraint_turn_rate(w, c, g, h);
        double impulse = sequential_impulse(constraint_rate(w, c, g), target, w->constraints.meff[c], correction);
        constraint_apply(w, c, g, accumulate(w, c, impulse), w->vel);
    }
}

// soft (Catto's "Soft Constraints"): P = -(m_soft C' + m_soft (beta/h) C) - (gamma/h) m_soft P_acc (method_soft.c);
// a rigid rope's or strut's bias also asks the rate its turn needs, as a rigid spring's does.
void constraints_soft_iterate(sb_world *w, double h)
{
    for (int c = 0; c < w->constraints.high; ++c) {
        if (!w->constraints.active[c])
            continue;
        const sb_vec2 *g = w->constraints.grad + w->constraints.grad_first[c];
        double bias = w->constraints.stiff[c] * w->constraints.err[c];
        if (sb_tuning_is_rigid(&w->constraints.tuning[c]))
            bias -= w->constraints.damp[c] * constraint_turn_rate(w, c, g, h);
        const sb_constraints *cs = &w->constraints;
        double impulse = soft_impulse(cs->damp[c], bias, cs->scale[c], constraint_rate(w, c, g), cs->lambda[c]);
        constraint_apply(w, c, g, accumulate(w, c, impulse), w->vel);
    }
}

/// Constraint c's gradients at the positions as they are now, for the position-level passes,
/// in a scratch of the world's: the velocity solves keep the sub-step's own in constraints.grad.
static sb_vec2 *gradients_now(sb_world *w, int c)
{
    if (!ARRAY_RESERVE(w->constraints.scratch, w->constraints.scratch_cap, w->constraints.part_count[c]))
        return NULL;
    return w->constraints.scratch;
}

// A rope's or strut's relax is along its axis where the position update has put its ends, as a
// rigid spring's is (springs_simd.c, relax_one).
void constraints_soft_relax(sb_world *w, double h)
{
    (void)h;
    for (int c = 0; c < w->constraints.high; ++c) {
        // a slack rope or strut is left alone: the relax removes the bias's velocity, and a slack
        // one had only the speculative bound, which must still hold (Box2D keeps it in its relax)
        if (!w->constraints.active[c] || !sb_tuning_is_rigid(&w->constraints.tuning[c]) || slack(w, c, w->constraints.err[c]))
            continue;
        const sb_vec2 *g = w->constraints.grad + w->constraints.grad_first[c];
        if (w->constraints.kind[c] == SB_CONSTRAINT_ROPE || w->constraints.kind[c] == SB_CONSTRAINT_STRUT) {
            sb_vec2 *now = gradients_now(w, c);
            if (now) {
                constraint_value(w, c, now);
                g = now;
            }
        }
        constraint_apply(w, c, g, accumulate(w, c, -w->constraints.meff[c] * constraint_rate(w, c, g)), w->vel);
    }
}

/// The scale of a constraint's value, for its slop: a length, one radian, or the area's square root.
static double value_scale(const sb_world *w, int c)
{
    switch ((sb_constraint_kind)w->constraints.kind[c]) {
    case SB_CONSTRAINT_ANGLE: return 1.0;
    case SB_CONSTRAINT_AREA: return fabs(w->constraints.rest[c]);
    default: return w->constraints.rest[c];
    }
}

void constraints_project_rigid(sb_world *w, double slop, bool one_sided_only)
{
    if (w->constraints.alive == 0)
        return;
    for (int c = 0; c < w->constraints.high; ++c) {
        if (w->constraints.kind[c] == 0xFF || !sb_tuning_is_rigid(&w->constraints.tuning[c]) ||
            (one_sided_only && w->constraints.kind[c] != SB_CONSTRAINT_ROPE && w->constraints.kind[c] != SB_CONSTRAINT_STRUT))
            continue;
        sb_vec2 *grad = gradients_now(w, c);
        if (!grad)
            continue; // out of memory: this one waits for the next pass
        double err = constraint_error(w, c, constraint_value(w, c, grad));
        double allowed = slop * value_scale(w, c);
        if (slack(w, c, err))
            continue;
        double excess = err > allowed ? err - allowed : (err < -allowed ? err + allowed : 0.0);
        double wsum = inverse_mass_sum(w, c, grad);
        if (excess == 0.0 || wsum <= 0.0)
            continue;
        double step = -excess / wsum;
        for (int i = 0; i < w->constraints.part_count[c]; ++i) {
            int p = w->constraints.parts[c][i];
            w->pos[p] = v2_mad(w->pos[p], w->inv_mass[p] * step, grad[i]);
        }
    }
}

void constraints_project_rigid_pass(sb_world *w, double h)
{
    (void)h;
    constraints_project_rigid(w, 0.0, false);
}

/// xpbd: a rigid rope or strut moves its ends along the axis they had when the sub-step began,
/// to its length, as a rigid spring does (method_xpbd.c, shake_one); false where that does not
/// apply (other kinds, or shake_length_move says no). `grad` is overwritten with that axis.
static bool shake_constraint(sb_world *w, int c, double wsum, sb_vec2 *grad)
{
    if (w->constraints.kind[c] != SB_CONSTRAINT_ROPE && w->constraints.kind[c] != SB_CONSTRAINT_STRUT)
        return false;
    const int a = w->constraints.parts[c][0], b = w->constraints.parts[c][1];
    const sb_vec2 n0 = v2_sub(w->scratch.prev[b], w->scratch.prev[a]), d = v2_sub(w->pos[b], w->pos[a]);
    const double n = v2_len(n0);
    double move;
    if (n < 1e-12 || !shake_length_move(d.x, d.y, n0.x / n, n0.y / n, w->constraints.rest[c], &move))
        return false;
    const double step = accumulate(w, c, move / wsum);
    grad[1] = v2_scale(n0, 1.0 / n);
    grad[0] = v2_scale(grad[1], -1.0);
    for (int i = 0; i < 2; ++i) {
        int p = w->constraints.parts[c][i];
        w->pos[p] = v2_mad(w->pos[p], w->inv_mass[p] * step, grad[i]);
    }
    return true;
}

// xpbd: the spring's update (method_xpbd.c) with C and its gradients:
// d lambda = (-C - alpha~ lambda - gamma sum g . (x - x_prev)) / ((1 + gamma) sum w |g|^2 + alpha~).
void constraints_xpbd_iterate(sb_world *w, double h)
{
    (void)h;
    if (w->constraints.alive == 0)
        return;
    for (int c = 0; c < w->constraints.high; ++c) {
        if (!w->constraints.active[c])
            continue;
        sb_vec2 *grad = gradients_now(w, c);
        if (!grad)
            continue; // out of memory: this one waits for the next pass
        double err = constraint_error(w, c, constraint_value(w, c, grad));
        bool rigid = sb_tuning_is_rigid(&w->constraints.tuning[c]);
        double alpha = rigid ? 0.0 : w->constraints.stiff[c]; // alpha~, from the effective mass (xpbd_coefficients)
        double gamma = rigid ? 0.0 : w->constraints.damp[c];
        if (!rigid && !isfinite(alpha))
            continue;
        double moved = 0.0, wsum = 0.0;
        for (int i = 0; i < w->constraints.part_count[c]; ++i) {
            int p = w->constraints.parts[c][i];
            moved += v2_dot(grad[i], v2_sub(w->pos[p], w->scratch.prev[p]));
            wsum += w->inv_mass[p] * v2_dot(grad[i], grad[i]);
        }
        if (wsum <= 0.0)
            continue;
        double d = xpbd_delta_lambda(err, alpha, w->constraints.lambda[c], gamma, moved, wsum);
        if (rigid && !slack(w, c, err) && shake_constraint(w, c, wsum, grad))
            continue;
        d = accumulate(w, c, d);
        for (int i = 0; i < w->constraints.part_count[c]; ++i) {
            int p = w->constraints.parts[c][i];
            w->pos[p] = v2_mad(w->pos[p], w->inv_mass[p] * d, grad[i]);
        }
    }
}
