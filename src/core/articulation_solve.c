// One direct solve of an articulated structure with its contacts (articulation.c says which and
// when): the springs' band factored by Cholesky, the contacts' Schur complement by projected
// Gauss-Seidel (Baraff, "Linear-Time Dynamics using Lagrange Multipliers", SIGGRAPH 1996).
#include "articulation_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/// Projected Gauss-Seidel sweeps over the contacts' Schur complement (a few dozen rows).
static const int schur_sweeps = 40;

/// A = L W L^T of the structure at the positions now, in band storage (row l holds columns
/// l - band .. l), factored in place: A = R R^T (Cholesky).
void articulation_factor(sb_world *w, sb_articulations *art, int id)
{
    const art_structure *st = &art->structures[id];
    art_link *links = art->links + st->first_link;
    const int nl = st->link_count, band = st->band, width = band + 1;
    double *L = art->factor + st->first_factor;
    for (int l = 0; l < nl; ++l) {
        sb_vec2 d = v2_sub(w->pos[links[l].slot_b], w->pos[links[l].slot_a]);
        double len = v2_len(d);
        links[l].u = len > 0.0 ? v2_scale(d, 1.0 / len) : v2(1.0, 0.0);
    }
    memset(L, 0, sizeof *L * (size_t)(nl * width));
    const int *row = art->incident_first + st->first_particle + id;
    for (int i = 0; i < st->particle_count; ++i) {
        const double wi = w->inv_mass[art->particles[st->first_particle + i]];
        for (int e = row[i]; e < row[i + 1]; ++e) {
            const int l = art->incident[e];
            const double sl = links[l].b == i ? 1.0 : -1.0;
            for (int f = row[i]; f < row[i + 1]; ++f) {
                const int m = art->incident[f];
                if (m > l)
                    continue;
                const double sm = links[m].b == i ? 1.0 : -1.0;
                L[l * width + (l - m)] += sl * sm * wi * v2_dot(links[l].u, links[m].u);
            }
        }
    }
    // A straight chain between two fixed particles has one spring more than it has coordinates
    // along it, so A is singular there: a pivot is kept above a billionth of its diagonal (that
    // direction asks a push no finite load does).
    for (int i = 0; i < nl; ++i) {
        const int j0 = i - band > 0 ? i - band : 0;
        for (int j = j0; j <= i; ++j) {
            double sum = L[i * width + (i - j)];
            for (int k = j0; k < j; ++k)
                sum -= L[i * width + (i - k)] * L[j * width + (j - k)];
            if (j == i) {
                const double floor = 1e-9 * L[i * width] + 1e-300;
                L[i * width] = sqrt(sum > floor ? sum : floor);
            } else {
                L[i * width + (i - j)] = sum / L[j * width];
            }
        }
    }
}

/// Solves A X = B in place for the m columns of X (row-major, nl x m) at once: each step is a
/// row of m multiply-adds, where a column at a time would be a chain of dependent ones read m
/// apart, the costliest loop of a pile of balls on a cloth.
static void band_solve_rows(const sb_articulations *art, const art_structure *st, double *X, int m)
{
    const int nl = st->link_count, band = st->band, width = band + 1;
    const double *L = art->factor + st->first_factor;
    for (int i = 0; i < nl; ++i) {
        double *xi = X + (size_t)i * m;
        for (int k = i - band > 0 ? i - band : 0; k < i; ++k) {
            const double l = L[i * width + (i - k)];
            const double *xk = X + (size_t)k * m;
            for (int c = 0; c < m; ++c)
                xi[c] -= l * xk[c];
        }
        const double d = L[i * width];
        for (int c = 0; c < m; ++c)
            xi[c] /= d;
    }
    for (int i = nl - 1; i >= 0; --i) {
        double *xi = X + (size_t)i * m;
        for (int k = i + 1; k <= i + band && k < nl; ++k) {
            const double l = L[k * width + (k - i)];
            const double *xk = X + (size_t)k * m;
            for (int c = 0; c < m; ++c)
                xi[c] -= l * xk[c];
        }
        const double d = L[i * width];
        for (int c = 0; c < m; ++c)
            xi[c] /= d;
    }
}

/// The normal and tangent rows of a contact (its geometry found): a's side has the gradient
/// -n (-t, and -r_a on its spin where it rolls), b's side +n shared by (1 - t, t) on a solid
/// spring (+t, and -r_b on a rolling particle's spin); spin_slip's convention (contact_kernels.h).
void articulation_contact_rows(const sb_world *w, const sb_articulations *art, int id, const sb_contact *c, art_row *rn, art_row *rt)
{
    const sb_vec2 n = c->normal, t = v2(-n.y, n.x);
    int slots[3] = {c->a, c->b, c->b2};
    double share[3] = {-1.0, c->b2 >= 0 ? 1.0 - c->t : 1.0, c->b2 >= 0 ? c->t : 0.0};
    const int count = c->b < 0 ? 1 : c->b2 >= 0 ? 3 : 2; // a wall or a bound: its particle alone
    rn->count = rt->count = count;
    for (int e = 0; e < count; ++e) {
        const int p = slots[e];
        const bool turns = w->scratch.inv_inertia[p] > 0.0 && (e == 0 || c->b2 < 0);
        rn->slot[e] = rt->slot[e] = p;
        rn->local[e] = rt->local[e] = art->structure_of[p] == id ? art->local_of[p] : -1;
        rn->gx[e] = share[e] * n.x;
        rn->gy[e] = share[e] * n.y;
        rn->gw[e] = 0.0;
        rt->gx[e] = share[e] * t.x;
        rt->gy[e] = share[e] * t.y;
        rt->gw[e] = turns ? -w->radius[p] : 0.0;
    }
}

double articulation_row_dot(const sb_world *w, const art_row *r, const sb_vec2 *x, const double *spin)
{
    double v = 0.0;
    for (int e = 0; e < r->count; ++e) {
        v += r->gx[e] * x[r->slot[e]].x + r->gy[e] * x[r->slot[e]].y;
        if (spin && r->gw[e] != 0.0)
            v += r->gw[e] * spin[r->slot[e]];
    }
    (void)w;
    return v;
}


/// One direct solve of structure `id` with its contacts: rows' targets in `target` (links first,
/// then each contact's normal and tangent), the contacts' friction in `mu`. Returns each contact
/// row's lambda in `lambda`.
bool articulation_solve(sb_world *w, sb_articulations *art, int id, const solve_input *in, const art_row *rows,
                            int m, const double *target_links, const double *target_rows, const double *mu, double *lambda)
{
    art_structure *st = &art->structures[id];
    const art_link *links = art->links + st->first_link;
    const int nl = st->link_count;
    if (!ARRAY_RESERVE(art->b, art->b_cap, nl * m + 1) ||
        !ARRAY_RESERVE(art->y, art->y_cap, nl * m + 1) ||
        !ARRAY_RESERVE(art->z, art->z_cap, nl + 1) ||
        !ARRAY_RESERVE(art->move, art->move_cap, st->particle_count + 1))
        return false;
    double *B = art->b, *Y = art->y, *z = art->z;
    memset(B, 0, sizeof *B * (size_t)(nl * m));
    const int *row = art->incident_first + st->first_particle + id;
    // B is sparse: a contact's row meets the springs of its two or three particles only, so each
    // row keeps the list of them, and S and the residuals read those, not every spring
    int touched[ROWS_MAX][ROW_LINKS_MAX], touched_count[ROWS_MAX];
    for (int r = 0; r < m; ++r) {
        touched_count[r] = 0;
        for (int e = 0; e < rows[r].count; ++e) {
            const int i = rows[r].local[e];
            if (i < 0)
                continue;
            const double wi = w->inv_mass[rows[r].slot[e]];
            const sb_vec2 g = v2(rows[r].gx[e], rows[r].gy[e]);
            for (int k = row[i]; k < row[i + 1]; ++k) {
                const int l = art->incident[k];
                bool listed = false;
                for (int t = 0; t < touched_count[r]; ++t)
                    listed = listed || touched[r][t] == l;
                if (!listed && touched_count[r] < ROW_LINKS_MAX)
                    touched[r][touched_count[r]++] = l;
                B[l * m + r] += (links[l].b == i ? wi : -wi) * v2_dot(links[l].u, g);
            }
        }
    }
    memcpy(Y, B, sizeof *Y * (size_t)(nl * m));
    band_solve_rows(art, st, Y, m);
    // S = D - B' A^-1 B
    double S[ROWS_MAX][ROWS_MAX];
    for (int r = 0; r < m; ++r)
        for (int q = 0; q <= r; ++q) {
            double d = 0.0;
            for (int e = 0; e < rows[r].count; ++e)
                for (int f = 0; f < rows[q].count; ++f) {
                    const int p = rows[r].slot[e];
                    if (p != rows[q].slot[f])
                        continue;
                    d += w->inv_mass[p] * (rows[r].gx[e] * rows[q].gx[f] + rows[r].gy[e] * rows[q].gy[f]);
                    if (in->spin)
                        d += w->scratch.inv_inertia[p] * rows[r].gw[e] * rows[q].gw[f];
                }
            for (int t = 0; t < touched_count[r]; ++t)
                d -= B[touched[r][t] * m + r] * Y[touched[r][t] * m + q];
            S[r][q] = S[q][r] = d;
        }
    // the residuals: the links' (then A^-1 of it) and the contacts' less what the links take
    for (int l = 0; l < nl; ++l)
        z[l] = target_links[l] - (in->errors ? 0.0 : v2_dot(links[l].u, v2_sub(in->x[links[l].slot_b], in->x[links[l].slot_a])));
    band_solve_rows(art, st, z, 1); // (one column)
    double q[ROWS_MAX];
    for (int r = 0; r < m; ++r) {
        double v = 0.0;
        if (!in->errors)
            v = articulation_row_dot(w, &rows[r], in->x, in->spin);
        else if (in->slide_from && (r & 1)) // the slide since the sub-step began
            v = articulation_row_dot(w, &rows[r], in->x, in->spin) - articulation_row_dot(w, &rows[r], in->slide_from, in->spin_from);
        q[r] = target_rows[r] - v;
        for (int t = 0; t < touched_count[r]; ++t)
            q[r] -= B[touched[r][t] * m + r] * z[touched[r][t]];
        lambda[r] = 0.0;
    }
    // the contacts' bounds: pushes >= 0, friction within mu times the push (projected Gauss-Seidel)
    for (int sweep = 0; sweep < schur_sweeps; ++sweep)
        for (int r = 0; r < m; ++r) {
            if (S[r][r] <= 0.0)
                continue;
            double res = q[r];
            for (int c = 0; c < m; ++c)
                res -= S[r][c] * lambda[c];
            double next = lambda[r] + res / S[r][r];
            if ((r & 1) == 0) {
                next = next > 0.0 ? next : 0.0;
            } else {
                const double limit = mu[r / 2] * lambda[r - 1];
                next = next < -limit ? -limit : next > limit ? limit : next;
            }
            lambda[r] = next;
        }
    // lambda_L = A^-1 r_L - A^-1 B lambda_C (into z), then x += W J^T lambda
    for (int l = 0; l < nl; ++l)
        for (int r = 0; r < m; ++r)
            z[l] -= Y[l * m + r] * lambda[r];
    double scale = 1.0;
    if (in->errors) {
        // A Newton step on positions is a linearisation: near a taut straight chain it asks for
        // moves far larger than the errors (a stretched straight chain cannot be mended to first
        // order), and taking them whole stretched the net further. The step is cut to a fifth of
        // the structure's shortest spring; the next pass goes on from there.
        double most = 0.0;
        for (int i = 0; i < st->particle_count; ++i)
            art->move[i] = v2(0.0, 0.0);
        for (int l = 0; l < nl; ++l) {
            const sb_vec2 p = v2_scale(links[l].u, z[l]);
            if (links[l].a >= 0)
                art->move[links[l].a] = v2_mad(art->move[links[l].a], -w->inv_mass[links[l].slot_a], p);
            if (links[l].b >= 0)
                art->move[links[l].b] = v2_mad(art->move[links[l].b], w->inv_mass[links[l].slot_b], p);
        }
        for (int r = 0; r < m; ++r)
            for (int e = 0; e < rows[r].count; ++e) {
                const int i = rows[r].local[e];
                const double step = w->inv_mass[rows[r].slot[e]] * lambda[r];
                if (i >= 0)
                    art->move[i] = v2_add(art->move[i], v2(rows[r].gx[e] * step, rows[r].gy[e] * step));
                else { // the heavy particle
                    double d = fabs(step) * sqrt(rows[r].gx[e] * rows[r].gx[e] + rows[r].gy[e] * rows[r].gy[e]);
                    most = d > most ? d : most;
                }
            }
        for (int i = 0; i < st->particle_count; ++i) {
            double d = v2_len(art->move[i]);
            most = d > most ? d : most;
        }
        if (most > st->max_move)
            scale = st->max_move / most;
    }
    for (int r = 0; r < m; ++r)
        lambda[r] *= scale;
    for (int l = 0; l < nl; ++l) {
        z[l] *= scale; // (links_credit reads it)
        const sb_vec2 p = v2_scale(links[l].u, z[l]);
        const int ends[2] = {links[l].slot_a, links[l].slot_b};
        for (int e = 0; e < 2; ++e) {
            const int s = ends[e];
            const double step = (e == 0 ? -1.0 : 1.0) * w->inv_mass[s];
            if (step == 0.0) // a fixed particle is never written
                continue;
            in->x[s] = v2_mad(in->x[s], step, p);
        }
    }
    for (int r = 0; r < m; ++r)
        for (int e = 0; e < rows[r].count; ++e) {
            const int s = rows[r].slot[e];
            if (w->inv_mass[s] == 0.0)
                continue;
            const sb_vec2 p = v2(rows[r].gx[e] * lambda[r], rows[r].gy[e] * lambda[r]);
            in->x[s] = v2_mad(in->x[s], w->inv_mass[s], p);
            if (in->spin && rows[r].gw[e] != 0.0)
                in->spin[s] += w->scratch.inv_inertia[s] * rows[r].gw[e] * lambda[r];
        }
    return true;
}
