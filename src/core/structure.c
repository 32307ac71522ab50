// A group of springs tuned as one structure (sb_structure.h): the group's stiffness matrix at its
// current shape, its lowest mode, and the one factor on the group's stiffnesses that puts that
// mode at the asked frequency.
//
// Small motions u about the shape satisfy M u'' + K u = 0: M holds each moving particle's mass
// twice (x and y), and a spring of stiffness k, length l, unit direction n and tension
// T = k (l - rest) adds k n n^T + (T / l)(I - n n^T) between its ends (the stiffness along it,
// and the string's across it). The modes are K v = w^2 M v; with M diagonal that is the ordinary
// symmetric problem A y = w^2 y, A = M^-1/2 K M^-1/2.
//
// A spring joins two particles, so A is sparse; numbered in reverse Cuthill-McKee order (a
// breadth-first walk from a far particle, fewest neighbours first) its entries lie in a narrow
// band about the diagonal: a chain's within 3 of it, a braced jelly's within about twice its
// width. The band's LDL^T factors cost n b^2, and by Sylvester's law of inertia the negative
// pivots of A - sI count the eigenvalues below s (the Sturm count structural engineers use to
// find a frame's modes). Bisection on that count finds the lowest eigenvalue a spring resists,
// inverse iteration from just below it its vector, and the Rayleigh quotient its value to
// rounding. The work stays within what a frame affords (STRUCTURE_COST), and a world's
// interrupt (a scene's time limit) is heard between factorisations.
#include "sb_structure.h"

#include "structure_internal.h"
#include "structure_record.h"
#include "world_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const double two_pi = 6.28318530717958647692;

/// The most work one tune may take, in multiply-adds of one factorisation (n b^2); a tune
/// factorises 30 to 80 times. A chain of 50,000 beads takes a thirtieth of it, a braced jelly of
/// 30 x 30 beads all of it.
#define STRUCTURE_COST 3e7

void structure_free(structure *s)
{
    void *all[] = {s->ids, s->other_ids, s->k, s->group, s->others, s->mass, s->moving, s->ag, s->ao, s->work, s->diag, s->x, s->y, s->t};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; ++i)
        free(all[i]);
    memset(s, 0, sizeof *s);
}

// ---------------------------------------------------------------- building

/// An element for spring d, its ends' degrees of freedom from `dof` (-1: held).
static element element_of(const sb_world *w, const sb_spring_def *d, const int *dof, int dof_size, double k, double c)
{
    sb_particle_def pa, pb;
    sb_particle_get(w, d->a, &pa);
    sb_particle_get(w, d->b, &pb);
    double dx = pb.position.x - pa.position.x, dy = pb.position.y - pa.position.y, l = sqrt(dx * dx + dy * dy);
    element e;
    e.a = (int)d->a.index < dof_size ? dof[d->a.index] : -1;
    e.b = (int)d->b.index < dof_size ? dof[d->b.index] : -1;
    e.nx = l > 0.0 ? dx / l : 1.0;
    e.ny = l > 0.0 ? dy / l : 0.0;
    e.along = k;
    e.across = l > 0.0 ? k * (l - d->rest_length) / l : 0.0;
    e.damping = c;
    return e;
}

/// Numbers the particles (each pair of degrees of freedom) in reverse Cuthill-McKee order, so
/// that the elements' entries lie near the diagonal: `order[new] = old`. False without memory.
static bool band_order(structure *s, int *order)
{
    const int p = s->particles;
    int *degree = calloc((size_t)p + 1, sizeof *degree), *start = calloc((size_t)p + 2, sizeof *start);
    int *seen = calloc((size_t)p, sizeof *seen), *adj = NULL;
    const int total = s->group_count + s->other_count;
    bool ok = degree && start && seen;
    for (int k = 0; ok && k < total; ++k) {
        const element *e = k < s->group_count ? &s->group[k] : &s->others[k - s->group_count];
        if (e->a >= 0 && e->b >= 0) {
            degree[e->a / 2] += 1;
            degree[e->b / 2] += 1;
        }
    }
    for (int i = 0; ok && i < p; ++i)
        start[i + 1] = start[i] + degree[i];
    adj = ok ? malloc(sizeof *adj * (size_t)(start[p] > 0 ? start[p] : 1)) : NULL;
    ok = ok && adj;
    if (ok) {
        int *fill = seen; // the next free place of each particle's list, then reset
        for (int i = 0; i < p; ++i)
            fill[i] = start[i];
        for (int k = 0; k < total; ++k) {
            const element *e = k < s->group_count ? &s->group[k] : &s->others[k - s->group_count];
            if (e->a >= 0 && e->b >= 0) {
                adj[fill[e->a / 2]++] = e->b / 2;
                adj[fill[e->b / 2]++] = e->a / 2;
            }
        }
        memset(seen, 0, sizeof *seen * (size_t)p);
        int placed = 0;
        while (placed < p) {
            int root = -1; // a new part: its particle of fewest neighbours, the lowest number of those
            for (int i = 0; i < p; ++i)
                if (!seen[i] && (root < 0 || degree[i] < degree[root]))
                    root = i;
            int head = placed;
            order[placed++] = root;
            seen[root] = 1;
            while (head < placed) {
                int at = order[head++], first = placed;
                for (int k = start[at]; k < start[at + 1]; ++k)
                    if (!seen[adj[k]]) {
                        seen[adj[k]] = 1;
                        order[placed++] = adj[k];
                    }
                for (int i = first + 1; i < placed; ++i) { // fewest neighbours first (insertion: lists are short)
                    int v = order[i], m = i;
                    for (; m > first && (degree[order[m - 1]] > degree[v] ||
                                         (degree[order[m - 1]] == degree[v] && order[m - 1] > v));
                         --m)
                        order[m] = order[m - 1];
                    order[m] = v;
                }
            }
        }
        for (int i = 0; i < p / 2; ++i) { // reversed
            int t = order[i];
            order[i] = order[p - 1 - i];
            order[p - 1 - i] = t;
        }
    }
    free(degree);
    free(start);
    free(seen);
    free(adj);
    return ok;
}

/// The band's entry (i, j), j <= i <= j + b.
static inline double *band_at(const structure *s, double *band, int i, int j)
{
    return &band[(size_t)(s->b + 1) * (size_t)i + (size_t)(i - j)];
}

/// Adds element e times `scale` (its stiffness, or its damping) into the lower band of A.
static void add_element(const structure *s, double *band, const element *e, double scale, bool damping)
{
    const double n[2] = {e->nx, e->ny};
    for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 2; ++j) {
            const double nn = n[i] * n[j];
            const double v = damping ? scale * e->damping * nn : scale * (e->along * nn + e->across * ((i == j) - nn));
            const int ends[2] = {e->a, e->b};
            for (int u = 0; u < 2; ++u)
                for (int w = 0; w < 2; ++w) {
                    if (ends[u] < 0 || ends[w] < 0)
                        continue;
                    int r = ends[u] + i, c = ends[w] + j;
                    if (c > r)
                        continue; // the lower band holds the symmetric matrix
                    *band_at(s, band, r, c) += (u == w ? v : -v) / sqrt(s->mass[r] * s->mass[c]);
                }
        }
}

/// Builds the group: its springs, moving particles, and the springs outside it that reach them;
/// numbers them in band order and assembles A's two parts. A rigid spring outside the group
/// holds as a spring 1e4 times stiffer than the structure's stiffest.
static sb_status build(const sb_world *w, const sb_spring_id *springs, int n, structure *s, const char **bad_field)
{
    memset(s, 0, sizeof *s);
    s->world = w;
    if (n <= 0 || !springs) {
        *bad_field = "springs";
        return SB_ERR_INVALID;
    }
    const sb_world_def def = sb_world_get_def(w);
    const double h = def.dt / def.substeps;
    const int slots = w->p_high > 0 ? w->p_high : 1;
    int *dof = malloc(sizeof *dof * (size_t)slots);
    uint32_t *in_group = calloc((size_t)(w->s_high > 0 ? w->s_high : 1), sizeof *in_group); // slot -> generation + 1
    sb_spring_def *defs = malloc(sizeof *defs * (size_t)n);
    s->ids = malloc(sizeof *s->ids * (size_t)n);
    s->k = malloc(sizeof *s->k * (size_t)n);
    s->group = malloc(sizeof *s->group * (size_t)n);
    s->mass = malloc(sizeof *s->mass * 2 * (size_t)slots);
    s->moving = malloc(sizeof *s->moving * (size_t)slots);
    sb_status st = dof && in_group && defs && s->ids && s->k && s->group && s->mass && s->moving ? SB_OK : SB_ERR_NO_MEMORY;
    for (int i = 0; st == SB_OK && i < slots; ++i)
        dof[i] = -1;
    for (int i = 0; st == SB_OK && i < n; ++i) {
        sb_spring_def d;
        if (sb_spring_get(w, springs[i], &d) != SB_OK) {
            *bad_field = "springs";
            st = SB_ERR_STALE;
        } else if (sb_tuning_is_rigid(&d.tuning)) { // a rigid spring has no stiffness to scale
            *bad_field = "springs";
            st = SB_ERR_INVALID;
        } else if (in_group[springs[i].index] != springs[i].generation + 1) { // listed once
            in_group[springs[i].index] = springs[i].generation + 1;
            s->ids[s->group_count] = springs[i];
            defs[s->group_count++] = d;
            const sb_particle_id ends[2] = {d.a, d.b};
            for (int e = 0; e < 2; ++e) {
                sb_particle_def pd;
                sb_particle_get(w, ends[e], &pd);
                if (!pd.fixed && dof[ends[e].index] < 0) {
                    dof[ends[e].index] = 2 * s->particles;
                    s->mass[2 * s->particles] = s->mass[2 * s->particles + 1] = pd.mass;
                    s->moving[s->particles++] = ends[e];
                }
            }
        }
    }
    if (st == SB_OK && (s->particles > SB_STRUCTURE_MAX_PARTICLES || s->particles == 0)) {
        *bad_field = "springs";
        st = SB_ERR_INVALID;
    }
    s->n = 2 * s->particles;
    double stiffest = 0.0;
    for (int i = 0; st == SB_OK && i < s->group_count; ++i) {
        double k, c;
        sb_tuning_to_kc(&defs[i].tuning, sb_spring_reduced_mass(w, s->ids[i]), h, &k, &c);
        s->k[i] = k;
        s->group[i] = element_of(w, &defs[i], dof, slots, k, c);
        stiffest = fmax(stiffest, k);
    }
    int other_cap = 0;
    for (sb_spring_id it = sb_null_spring(); st == SB_OK && sb_world_next_spring(w, &it);) {
        if (in_group[it.index] == it.generation + 1)
            continue;
        sb_spring_def d;
        sb_spring_get(w, it, &d);
        if (((int)d.a.index >= slots || dof[d.a.index] < 0) && ((int)d.b.index >= slots || dof[d.b.index] < 0))
            continue; // reaches none of the group's moving particles
        double k, c;
        if (sb_tuning_is_rigid(&d.tuning)) {
            k = 1e4 * stiffest;
            c = 0.0;
        } else {
            sb_tuning_to_kc(&d.tuning, sb_spring_reduced_mass(w, it), h, &k, &c);
        }
        if (s->other_count == other_cap) {
            other_cap = other_cap ? 2 * other_cap : 16;
            element *grown = realloc(s->others, sizeof *grown * (size_t)other_cap);
            sb_spring_id *grown_ids = grown ? realloc(s->other_ids, sizeof *grown_ids * (size_t)other_cap) : NULL;
            s->others = grown ? grown : s->others;
            if (!grown || !grown_ids) {
                st = SB_ERR_NO_MEMORY;
                break;
            }
            s->other_ids = grown_ids;
        }
        s->other_ids[s->other_count] = it;
        s->others[s->other_count++] = element_of(w, &d, dof, slots, k, c);
    }
    free(dof);
    free(in_group);
    free(defs);
    if (st != SB_OK)
        return st;
    // band order: renumber the particles, then measure the band
    int *order = malloc(sizeof *order * (size_t)s->particles), *where = malloc(sizeof *where * (size_t)s->particles);
    double *mass = malloc(sizeof *mass * (size_t)s->n);
    sb_particle_id *moving = malloc(sizeof *moving * (size_t)s->particles);
    if (!order || !where || !mass || !moving || !band_order(s, order)) {
        free(order);
        free(where);
        free(mass);
        free(moving);
        return SB_ERR_NO_MEMORY;
    }
    for (int i = 0; i < s->particles; ++i) {
        where[order[i]] = i;
        moving[i] = s->moving[order[i]];
        mass[2 * i] = mass[2 * i + 1] = s->mass[2 * order[i]];
    }
    int reach = 0;
    for (int k = 0; k < s->group_count + s->other_count; ++k) {
        element *e = k < s->group_count ? &s->group[k] : &s->others[k - s->group_count];
        e->a = e->a >= 0 ? 2 * where[e->a / 2] : -1;
        e->b = e->b >= 0 ? 2 * where[e->b / 2] : -1;
        if (e->a >= 0 && e->b >= 0)
            reach = abs(e->a - e->b) > reach ? abs(e->a - e->b) : reach;
    }
    free(order);
    free(where);
    free(s->mass);
    free(s->moving);
    s->mass = mass;
    s->moving = moving;
    s->b = reach + 1; // x and y of the farther end
    if ((double)s->n * (double)(s->b + 1) * (double)(s->b + 1) > STRUCTURE_COST) {
        *bad_field = "cost";
        return SB_ERR_INVALID;
    }
    const size_t band = (size_t)s->n * (size_t)(s->b + 1);
    s->ag = calloc(band, sizeof *s->ag);
    s->ao = calloc(band, sizeof *s->ao);
    s->work = malloc(sizeof *s->work * band);
    s->diag = malloc(sizeof *s->diag * (size_t)s->n);
    s->x = malloc(sizeof *s->x * (size_t)s->n);
    s->y = malloc(sizeof *s->y * (size_t)s->n);
    s->t = malloc(sizeof *s->t * (size_t)s->n);
    if (!s->ag || !s->ao || !s->work || !s->diag || !s->x || !s->y || !s->t)
        return SB_ERR_NO_MEMORY;
    for (int k = 0; k < s->group_count; ++k)
        add_element(s, s->ag, &s->group[k], 1.0, false);
    for (int k = 0; k < s->other_count; ++k)
        add_element(s, s->ao, &s->others[k], 1.0, false);
    return SB_OK;
}

// ---------------------------------------------------------------- the band's algebra

/// Gershgorin's bound on the eigenvalues of scale A_group + A_others: no eigenvalue is farther
/// from zero.
static double spread_at(const structure *s, double scale)
{
    double most = 0.0;
    double *row = s->t;
    memset(row, 0, sizeof *row * (size_t)s->n);
    for (int i = 0; i < s->n; ++i)
        for (int j = i - s->b > 0 ? i - s->b : 0; j <= i; ++j) {
            double v = fabs(scale * *band_at(s, s->ag, i, j) + *band_at(s, s->ao, i, j));
            row[i] += v;
            if (j != i)
                row[j] += v;
        }
    for (int i = 0; i < s->n; ++i)
        most = fmax(most, row[i]);
    return most;
}

/// Factorises scale A_group + A_others - shift I as L D L^T (L's band in s->work, D in s->diag)
/// and counts D's negative pivots: the eigenvalues below `shift`. A pivot that rounds to nothing
/// is taken as the smallest the matrix's scale tells from zero, its sign kept. -1 when the
/// world's interrupt asks to stop.
static int factor_count(structure *s, double scale, double shift)
{
    const sb_world *w = s->world;
    if (w->interrupt && w->interrupt(w->interrupt_ud)) {
        s->interrupted = true;
        return -1;
    }
    const int n = s->n, b = s->b;
    const double spread = spread_at(s, scale), tiny = 1e-14 * (spread > 0.0 ? spread : 1.0);
    double *L = s->work, *d = s->diag;
    int negative = 0;
    for (int i = 0; i < n; ++i) {
        const int lo = i - b > 0 ? i - b : 0;
        for (int j = lo; j < i; ++j) { // L[i][j] = (A[i][j] - sum_k L[i][k] d[k] L[j][k]) / d[j]
            const int from = (j - b > lo ? j - b : lo);
            double sum = scale * *band_at(s, s->ag, i, j) + *band_at(s, s->ao, i, j);
            for (int k = from; k < j; ++k)
                sum -= *band_at(s, L, i, k) * d[k] * *band_at(s, L, j, k);
            *band_at(s, L, i, j) = sum / d[j];
        }
        double pivot = scale * *band_at(s, s->ag, i, i) + *band_at(s, s->ao, i, i) - shift;
        for (int k = lo; k < i; ++k) {
            const double l = *band_at(s, L, i, k);
            pivot -= l * l * d[k];
        }
        if (fabs(pivot) < tiny)
            pivot = pivot < 0.0 ? -tiny : tiny;
        d[i] = pivot;
        negative += pivot < 0.0;
    }
    return negative;
}

/// Solves L D L^T x = r in place (the last factor_count's factors).
static void factor_solve(const structure *s, double *x)
{
    const int n = s->n, b = s->b;
    double *L = s->work;
    for (int i = 0; i < n; ++i)
        for (int k = i - b > 0 ? i - b : 0; k < i; ++k)
            x[i] -= *band_at(s, L, i, k) * x[k];
    for (int i = 0; i < n; ++i)
        x[i] /= s->diag[i];
    for (int i = n - 1; i >= 0; --i)
        for (int k = i + 1; k <= i + b && k < n; ++k)
            x[i] -= *band_at(s, L, k, i) * x[k];
}

/// y = (scale A_group + A_others) x; with `group_only`, y = A_group x.
static void multiply(const structure *s, double scale, const double *x, double *y, bool group_only)
{
    memset(y, 0, sizeof *y * (size_t)s->n);
    for (int i = 0; i < s->n; ++i)
        for (int j = i - s->b > 0 ? i - s->b : 0; j <= i; ++j) {
            double v = group_only ? *band_at(s, s->ag, i, j) : scale * *band_at(s, s->ag, i, j) + *band_at(s, s->ao, i, j);
            y[i] += v * x[j];
            if (j != i)
                y[j] += v * x[i];
        }
}

static double dot(const double *x, const double *y, int n)
{
    double sum = 0.0;
    for (int i = 0; i < n; ++i)
        sum += x[i] * y[i];
    return sum;
}

/// The eigenvalue nearest above `shift` and its unit vector (into s->y): inverse iteration on
/// A - shift I from a fixed start, and the Rayleigh quotient. NAN if interrupted.
static double nearest_mode(structure *s, double scale, double shift)
{
    if (factor_count(s, scale, shift) < 0)
        return NAN;
    double *y = s->y;
    for (int i = 0; i < s->n; ++i) // every mode has a share of it: no two entries alike
        y[i] = 1.0 + 0.5 * sin(1.0 + 0.7 * i);
    double lambda = NAN;
    for (int it = 0; it < 60; ++it) {
        factor_solve(s, y);
        double norm = sqrt(dot(y, y, s->n));
        for (int i = 0; i < s->n; ++i)
            y[i] /= norm;
        multiply(s, scale, y, s->x, false);
        double next = dot(y, s->x, s->n);
        if (it > 2 && fabs(next - lambda) <= 1e-15 * fabs(next))
            return next;
        lambda = next;
    }
    return lambda;
}

/// The eigenvalue of index `index` (from 0, ascending) at `scale`, to a millionth, between the
/// Sturm counts: [*lo, *hi) brackets it. False if interrupted.
static bool bracket_eigenvalue(structure *s, double scale, int index, double *lo, double *hi)
{
    while (*hi > *lo * (1.0 + 1e-6)) {
        const double mid = *lo > 0.0 ? sqrt(*lo * *hi) : 0.5 * (*lo + *hi); // geometric halves: the spread is wide
        int below = factor_count(s, scale, mid);
        if (below < 0)
            return false;
        *(below > index ? hi : lo) = mid;
    }
    return true;
}

// ---------------------------------------------------------------- the modes

/// The lowest mode a spring resists at `scale`: its eigenvalue (returned), its unit vector in
/// s->y (of the mass-normalised problem: d = M^-1/2 y has sum m |d|^2 = 1), and the motions
/// passed over as free in *free (those with eigenvalue 0 to rounding, a ten-billionth of the
/// largest). On failure NAN, with *bad_field "buckles" (a mode below zero by more: springs
/// pushed shorter than they rest), "free" (no spring resists any motion) or NULL (interrupted).
static double lowest_mode(structure *s, double scale, int *free, const char **bad_field)
{
    const double spread = spread_at(s, scale), tol = 1e-10 * spread;
    int below = factor_count(s, scale, -tol);
    int zero = below < 0 ? -1 : factor_count(s, scale, tol);
    *free = zero;
    if (below < 0 || zero < 0) {
        *bad_field = NULL;
        return NAN;
    }
    if (below > 0 || zero >= s->n || !(spread > 0.0)) {
        *bad_field = below > 0 ? "buckles" : "free";
        return NAN;
    }
    double lo = tol, hi = 1.01 * spread;
    if (!bracket_eigenvalue(s, scale, zero, &lo, &hi)) {
        *bad_field = NULL;
        return NAN;
    }
    double lambda = nearest_mode(s, scale, lo * (1.0 - 1e-6));
    if (isnan(lambda))
        *bad_field = NULL;
    return lambda;
}

/// The mode in s->y at `scale`, of eigenvalue lambda: its frequency and damping ratio (the
/// dampers on the mode shape: y is unit, so d^T C d = 2 zeta w with d = M^-1/2 y).
static double along_share(const structure *s, const element *e)
{
    const double *y = s->y;
    double ax = e->a >= 0 ? y[e->a] / sqrt(s->mass[e->a]) : 0.0, ay = e->a >= 0 ? y[e->a + 1] / sqrt(s->mass[e->a]) : 0.0;
    double bx = e->b >= 0 ? y[e->b] / sqrt(s->mass[e->b]) : 0.0, by = e->b >= 0 ? y[e->b + 1] / sqrt(s->mass[e->b]) : 0.0;
    const double stretch = e->nx * (bx - ax) + e->ny * (by - ay);
    return stretch * stretch;
}

static double mode_damping(const structure *s, double scale)
{
    double sum = 0.0;
    for (int k = 0; k < s->group_count; ++k)
        sum += scale * s->group[k].damping * along_share(s, &s->group[k]);
    for (int k = 0; k < s->other_count; ++k)
        sum += s->others[k].damping * along_share(s, &s->others[k]);
    return sum;
}

static void describe(const structure *s, double scale, double lambda, int free, sb_structure_mode *mode)
{
    if (!mode)
        return;
    const double w = sqrt(lambda);
    mode->hertz = w / two_pi;
    mode->damping_ratio = mode_damping(s, scale) / (2.0 * w);
    mode->scale = scale;
    mode->particles = s->particles;
    mode->springs = s->group_count;
    mode->free = free;
}

/// The beta of c = beta k that gives mode y at `scale` the damping ratio zeta: its damping ratio
/// is y^T D y / (2 w), D the dampers along the springs, and the group's part is linear in beta.
/// Along the springs (a chain's stretch) the group's part is beta w^2, so beta = 2 zeta / w: damping
/// in proportion to stiffness. A mode that moves across its springs (a string's sideways swing)
/// stretches them little and their dampers barely reach it: beta is held to the proportional one
/// (more only damps the springs' own fast motion, which the methods then run less well), and the
/// mode keeps what that gives (sb_structure_mode.damping_ratio says).
static double damping_for(const structure *s, double scale, double w, double zeta)
{
    double reach = 0.0, theirs = 0.0;
    for (int k = 0; k < s->group_count; ++k)
        reach += scale * s->group[k].along * along_share(s, &s->group[k]);
    for (int k = 0; k < s->other_count; ++k)
        theirs += s->others[k].damping * along_share(s, &s->others[k]);
    return fmax(0.0, 2.0 * zeta * w - theirs) / fmax(reach, w * w);
}

/// What a failed solve says: the field, or the interrupt's status.
static sb_status refused(const structure *s, const char *field, const char **bad_field)
{
    if (s->interrupted || !field)
        return SB_ERR_INTERRUPTED;
    *bad_field = field;
    return SB_ERR_INVALID;
}

sb_status sb_structure_mode_of(const sb_world *world, const sb_spring_id *springs, int n, sb_structure_mode *mode,
                               const char **bad_field)
{
    const char *ignored;
    bad_field = bad_field ? bad_field : &ignored;
    *bad_field = NULL;
    structure s;
    sb_status st = build(world, springs, n, &s, bad_field);
    if (st == SB_OK) {
        int free;
        const char *why = NULL;
        double lambda = lowest_mode(&s, 1.0, &free, &why);
        if (isnan(lambda))
            st = refused(&s, why, bad_field);
        else
            describe(&s, 1.0, lambda, free, mode);
    }
    if (mode && st != SB_OK) {
        memset(mode, 0, sizeof *mode);
        mode->particles = s.particles;
    }
    structure_free(&s);
    return st;
}

/// Eigenvalue `index` at `scale`, below `above`; NAN if interrupted.
static double eigenvalue_at(structure *s, double scale, int index, double above)
{
    double lo = 1e-10 * spread_at(s, scale), hi = above;
    return bracket_eigenvalue(s, scale, index, &lo, &hi) ? nearest_mode(s, scale, lo * (1.0 - 1e-6)) : NAN;
}

/// The scale of the group's springs that puts eigenvalue `index` at w2 while the springs outside
/// keep theirs (w^2 grows with the scale), from `guess` (the scale were they the group's too):
/// brackets it by factors of 8 within 1e8 either way of the guess (past that the outside springs
/// are lost in the group's rounding, or the group's in theirs), bisects on the Sturm count at w2,
/// then takes Newton's steps on the mode's eigenvalue (its slope is the group's share
/// y^T A_group y). NAN with *bad_field "hertz" (the springs outside alone hold the mode faster:
/// *limit its floor, w^2) or "ceiling" (no scale lifts it that far: *limit its ceiling), or NULL
/// (interrupted).
static double scale_for(structure *s, int index, double w2, double guess, double *limit, const char **bad_field)
{
    *bad_field = NULL;
    int below = factor_count(s, guess, w2);
    if (below < 0)
        return NAN;
    const bool stiffer = below > index; // the mode is below w2 at the guess
    double lo = guess, hi = guess;
    for (;;) {
        double next = stiffer ? hi * 8.0 : lo / 8.0;
        if (stiffer ? next > guess * 1e8 : next < guess * 1e-8) { // as far as it goes: its floor or ceiling
            const double at = stiffer ? hi : lo;
            *limit = eigenvalue_at(s, at, index, stiffer ? w2 : 1.01 * spread_at(s, at));
            *bad_field = isnan(*limit) ? NULL : stiffer ? "ceiling" : "hertz";
            return NAN;
        }
        below = factor_count(s, next, w2);
        if (below < 0)
            return NAN;
        *(stiffer ? &lo : &hi) = *(stiffer ? &hi : &lo);
        *(stiffer ? &hi : &lo) = next;
        if ((below > index) != stiffer)
            break;
    }
    while (hi > lo * (1.0 + 1e-6)) {
        const double mid = sqrt(lo * hi); // geometric halves: square roots, the same bits everywhere
        below = factor_count(s, mid, w2);
        if (below < 0)
            return NAN;
        *(below > index ? &lo : &hi) = mid;
    }
    double scale = sqrt(lo * hi);
    for (int step = 0; step < 4; ++step) {
        double lambda = nearest_mode(s, scale, w2 * (1.0 - 1e-4));
        if (isnan(lambda))
            return NAN;
        multiply(s, scale, s->y, s->x, true);
        const double slope = dot(s->y, s->x, s->n);
        if (!(slope > 0.0))
            break;
        const double next = scale + (w2 - lambda) / slope;
        if (!(next > lo * (1.0 - 1e-5) && next < hi * (1.0 + 1e-5)))
            break; // left the bracket: the bisection's answer stands
        scale = next;
    }
    return scale;
}

/// Keeps the tuned group with what it asked, what it delivers and the mode's shape as found: each
/// spring's stretch in it, each particle's move, and whether its energy is mostly stretch.
static bool remember(sb_world *world, const structure *s, double scale, double lambda, double hertz, double zeta,
                     const sb_structure_delivery *delivery)
{
    double *stretch = malloc(sizeof *stretch * (size_t)s->group_count), *shape = malloc(sizeof *shape * (size_t)s->n);
    bool ok = stretch && shape;
    double along = 0.0;
    for (int k = 0; ok && k < s->group_count; ++k) {
        const element *e = &s->group[k];
        const double *y = s->y;
        double ax = e->a >= 0 ? y[e->a] / sqrt(s->mass[e->a]) : 0.0, ay = e->a >= 0 ? y[e->a + 1] / sqrt(s->mass[e->a]) : 0.0;
        double bx = e->b >= 0 ? y[e->b] / sqrt(s->mass[e->b]) : 0.0, by = e->b >= 0 ? y[e->b + 1] / sqrt(s->mass[e->b]) : 0.0;
        stretch[k] = e->nx * (bx - ax) + e->ny * (by - ay);
        along += scale * e->along * stretch[k] * stretch[k];
    }
    for (int k = 0; ok && k < s->other_count; ++k)
        along += s->others[k].along * along_share(s, &s->others[k]);
    for (int i = 0; ok && i < s->n; ++i)
        shape[i] = s->y[i] / sqrt(s->mass[i]);
    const structure_shape found = {stretch, s->moving, shape, s->particles, along > 0.5 * lambda};
    ok = ok && structure_remember(world, s->ids, s->group_count, hertz, zeta, delivery, &found);
    free(stretch);
    free(shape);
    return ok;
}

sb_status sb_structure_tune(sb_world *world, const sb_spring_id *springs, int n, double hertz, double damping_ratio,
                            double seconds, sb_structure_mode *mode, const char **bad_field)
{
    const char *ignored;
    bad_field = bad_field ? bad_field : &ignored;
    *bad_field = NULL;
    if (!(hertz > 0.0 && hertz <= 1e4)) {
        *bad_field = "hertz";
        return SB_ERR_INVALID;
    }
    if (!(damping_ratio >= 0.0 && damping_ratio <= 100.0)) {
        *bad_field = "damping_ratio";
        return SB_ERR_INVALID;
    }
    if (!(seconds >= 0.0 && seconds <= 1e6)) {
        *bad_field = "seconds";
        return SB_ERR_INVALID;
    }
    structure s;
    sb_status st = build(world, springs, n, &s, bad_field);
    const double w = two_pi * hertz, w2 = w * w;
    double scale = NAN, lambda = NAN, limit = NAN;
    int free = 0;
    if (st == SB_OK) {
        // the mode to tune: the first one a spring resists as the group is now (motions free at
        // this scale are free at any), followed by its index through the scales tried
        const char *why = NULL;
        double at_one = lowest_mode(&s, 1.0, &free, &why);
        if (isnan(at_one)) {
            st = refused(&s, why, bad_field);
        } else if (s.other_count == 0) { // the whole stiffness scales: so does w^2, and the mode's shape stays
            scale = w2 / at_one;
            lambda = at_one * scale;
        } else {
            scale = scale_for(&s, free, w2, w2 / at_one, &limit, &why);
            if (isnan(scale))
                st = refused(&s, why, bad_field);
            else
                lambda = lowest_mode(&s, scale, &free, &why);
            if (st == SB_OK && isnan(lambda))
                st = refused(&s, why, bad_field);
        }
    }
    sb_structure_delivery delivery;
    double beta = 0.0;
    if (st == SB_OK) {
        beta = damping_for(&s, scale, w, damping_ratio); // dampers leave the shape as it is
        // the damping the springs' dampers can give the mode (a swing across them, less than asked)
        double reach = 0.0;
        for (int k = 0; k < s.group_count; ++k)
            reach += scale * beta * s.k[k] * along_share(&s, &s.group[k]);
        for (int k = 0; k < s.other_count; ++k)
            reach += s.others[k].damping * along_share(&s, &s.others[k]);
        const double reachable = fmin(damping_ratio, reach / (2.0 * sqrt(lambda)));
        // what the world, stepped as it is set, delivers of it: measured, and corrected
        const double continuous = scale;
        if (!structure_deliver(&s, hertz, reachable, &scale, &beta, &delivery))
            st = SB_ERR_INTERRUPTED;
        delivery.damping_reachable = reachable;
        if (st == SB_OK && scale != continuous) { // the group's stiffness scaled again: its mode with it
            const char *why = NULL;
            lambda = s.other_count == 0 ? lambda * scale / continuous : lowest_mode(&s, scale, &free, &why);
            if (isnan(lambda))
                st = refused(&s, why, bad_field);
        }
    }
    if (st == SB_OK) {
        for (int i = 0; i < s.group_count && st == SB_OK; ++i) {
            sb_spring_def d;
            sb_spring_get(world, s.ids[i], &d);
            double rest = d.rest_length;
            sb_tuning target = d.tuning;
            sb_spring_ramp_target(world, s.ids[i], &rest, &target); // a ramp running: its end
            const sb_tuning t = sb_tuning_raw(scale * s.k[i], beta * scale * s.k[i]);
            st = seconds > 0.0 ? sb_spring_retune(world, s.ids[i], rest, &t, seconds, bad_field)
                               : sb_spring_set(world, s.ids[i], rest, &t, bad_field);
            s.group[i].damping = beta * s.k[i]; // at scale 1, as the group's stiffness (describe scales it)
        }
        if (st == SB_OK && !remember(world, &s, scale, lambda, hertz, damping_ratio, &delivery))
            st = SB_ERR_NO_MEMORY;
        if (st == SB_OK) {
            describe(&s, scale, lambda, free, mode);
            if (mode)
                mode->delivery = delivery;
        }
    }
    if (mode && st != SB_OK) { // what the refusal says: the particles, and the mode's floor or ceiling
        memset(mode, 0, sizeof *mode);
        mode->particles = s.particles;
        mode->hertz = isnan(limit) ? 0.0 : sqrt(limit) / two_pi;
    }
    structure_free(&s);
    return st;
}

void structures_follow_def(sb_world *w)
{
    const sb_world_def def = w->def;
    int n = 0;
    for (int i = 0; i < w->structure_count; ++i) {
        const sb_structure_delivery *d = &w->structures[i].delivery;
        n += d->method != def.method || d->substeps != def.substeps || d->iterations != def.iterations;
    }
    if (n == 0)
        return;
    // each tune replaces its record: what they ask is copied first
    typedef struct asked { double hertz, zeta; sb_spring_id *springs; int count; } asked;
    asked *all = calloc((size_t)n, sizeof *all);
    int count = 0;
    for (int i = 0; all && i < w->structure_count; ++i) {
        const sb_structure_record *r = &w->structures[i];
        const sb_structure_delivery *d = &r->delivery;
        if (d->method == def.method && d->substeps == def.substeps && d->iterations == def.iterations)
            continue;
        all[count].springs = malloc(sizeof *r->springs * (size_t)r->count);
        if (!all[count].springs)
            break;
        memcpy(all[count].springs, r->springs, sizeof *r->springs * (size_t)r->count);
        all[count].count = r->count;
        all[count].hertz = r->hertz;
        all[count++].zeta = r->damping_ratio;
    }
    for (int i = 0; i < count; ++i) {
        sb_structure_tune(w, all[i].springs, all[i].count, all[i].hertz, all[i].zeta, 0.0, NULL, NULL);
        free(all[i].springs);
    }
    free(all);
}

sb_status sb_structure_mode_shape(const sb_world *world, const sb_spring_id *springs, int n, sb_particle_id *particles,
                                  double *shape, int capacity, int *count)
{
    const char *field;
    *count = 0;
    structure s;
    sb_status st = build(world, springs, n, &s, &field);
    if (st == SB_OK && s.particles > capacity)
        st = SB_ERR_INVALID;
    if (st == SB_OK) {
        int free;
        const char *why = NULL;
        if (isnan(lowest_mode(&s, 1.0, &free, &why)))
            st = refused(&s, why, &field);
    }
    for (int i = 0; st == SB_OK && i < s.particles; ++i) {
        particles[i] = s.moving[i];
        shape[2 * i] = s.y[2 * i] / sqrt(s.mass[2 * i]);
        shape[2 * i + 1] = s.y[2 * i + 1] / sqrt(s.mass[2 * i + 1]);
        *count = s.particles;
    }
    structure_free(&s);
    return st;
}
