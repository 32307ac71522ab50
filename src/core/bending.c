// A rope's internal damping, for the velocity orders: where a particle joins exactly two rigid
// springs (a bead of a chain or a rope), the rate at which the two links turn against each other
// (the chain bending at the bead) is damped, as a real rope's fibres rub. A chain turning as one
// (a pendulum, a whole rope swinging) does not bend and keeps its motion; a rope's ringing (its
// beads shaking across the line, the load bobbing on a V, a tension that never settles) is the
// bending and dies out. Each link's damping ratio sets how fast: a link of damping ratio zeta
// takes the bend's rate down by 1 - exp(-zeta h / BEND_TIME) a sub-step at its bead (the weaker
// of the two links), so 0 keeps a chain undamped. The impulses come in pairs that turn the two
// links against each other about the bead, so they change neither momentum nor angular momentum.
// The position orders (verlet, xpbd) project positions and take the velocity from the move, which
// leaves no such ringing; they do not run this.
#include "world_internal.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

/// The time a link of damping ratio 1 takes a bend's rate down by e, s: ringing of a few hertz
/// dies within a few of its periods, a chain's slow swing loses little.
#define BEND_TIME 0.05

/// The particle of spring s other than `at`.
static inline int other_end(const sb_world *w, int s, int at) { return w->s_a[s] == at ? w->s_b[s] : w->s_a[s]; }

/// The beads: each particle that joins exactly two rigid springs, with the two, in slot order;
/// found again when the rigid springs change. False without memory.
static bool find_beads(sb_world *w)
{
    if (w->rigid.bend_version == w->rigid.version + 1)
        return true;
    uint8_t *count = calloc((size_t)(w->p_high > 0 ? w->p_high : 1), 1);
    int *links = malloc(sizeof *links * 2 * (size_t)(w->p_high > 0 ? w->p_high : 1));
    bool ok = count && links;
    for (int s = 0; ok && s < w->s_high; ++s) {
        if (w->s_a[s] < 0 || !w->s_rigid[s])
            continue;
        const int ends[2] = {w->s_a[s], w->s_b[s]};
        for (int e = 0; e < 2; ++e) {
            const int p = ends[e];
            if (count[p] < 2)
                links[2 * p + count[p]] = s;
            count[p] = count[p] < 3 ? count[p] + 1 : 3;
        }
    }
    int beads = 0;
    for (int p = 0; ok && p < w->p_high; ++p)
        beads += count[p] == 2;
    if (ok && beads > w->rigid.bend_cap) {
        int *grown = realloc(w->rigid.bend_beads, sizeof *grown * 3 * (size_t)beads);
        ok = grown != NULL;
        if (ok) {
            w->rigid.bend_beads = grown;
            w->rigid.bend_cap = beads;
        }
    }
    if (ok) {
        w->rigid.bend_count = 0;
        for (int p = 0; p < w->p_high; ++p)
            if (count[p] == 2) {
                int *b = &w->rigid.bend_beads[3 * w->rigid.bend_count++];
                b[0] = p;
                b[1] = links[2 * p];
                b[2] = links[2 * p + 1];
            }
        w->rigid.bend_version = w->rigid.version + 1;
    }
    free(count);
    free(links);
    return ok;
}

void links_damp_bending(sb_world *w, double h)
{
    if (!find_beads(w))
        return; // without memory a rope rings as it would undamped
    for (int n = 0; n < w->rigid.bend_count; ++n) { // in slot order: the same bits on any machine
        const int *bead = &w->rigid.bend_beads[3 * n];
        const int j = bead[0], s1 = bead[1], s2 = bead[2], i = other_end(w, s1, j), k = other_end(w, s2, j);
        const double zeta = fmin(w->tuning[s1].damping_ratio, w->tuning[s2].damping_ratio);
        if (w->inv_mass[j] == 0.0 || !(zeta > 0.0))
            continue;
        const sb_vec2 d1 = v2_sub(w->pos[j], w->pos[i]), d2 = v2_sub(w->pos[k], w->pos[j]);
        const double l1 = v2_dot(d1, d1), l2 = v2_dot(d2, d2);
        if (!(l1 > 0.0) || !(l2 > 0.0))
            continue;
        // the bend's rate b = w2 - w1, each link's turn rate (d x (v_end - v_start)) / |d|^2: b = J v
        const sb_vec2 ji = v2_scale(v2(-d1.y, d1.x), 1.0 / l1), jk = v2_scale(v2(-d2.y, d2.x), 1.0 / l2);
        const sb_vec2 jj = v2_scale(v2_add(ji, jk), -1.0);
        const double b = v2_dot(ji, w->vel[i]) + v2_dot(jj, w->vel[j]) + v2_dot(jk, w->vel[k]);
        // each end's share of the correction, in masses relative to the bead's (a world with every
        // mass scaled moves alike)
        const double ri = w->inv_mass[i] / w->inv_mass[j], rk = w->inv_mass[k] / w->inv_mass[j];
        const double inv = ri * v2_dot(ji, ji) + v2_dot(jj, jj) + rk * v2_dot(jk, jk);
        const double lambda = -(1.0 - exp(-zeta * h / BEND_TIME)) * b / inv;
        w->vel[i] = v2_add(w->vel[i], v2_scale(ji, lambda * ri));
        w->vel[j] = v2_add(w->vel[j], v2_scale(jj, lambda));
        w->vel[k] = v2_add(w->vel[k], v2_scale(jk, lambda * rk));
    }
}
