// Articulated structures: a heavy particle on a light structure of rigid springs, a chain with a
// breakable link, and a weight hung on light beads, each solved whole. Not one of the seeds.
//
// Why: every method passes a contact's load to the bead it touches, and the bead passes it on
// one link an iteration. Between a 100 kg ball and 0.1 kg beads a contact's pass gives the ball
// a thousandth of the push that would stop it and the bead the rest, which the links then take
// back from the bead, so a ball dropped on a net of rigid links went through it; and a chain
// built at rest under gravity sagged in its first sub-steps and rang past its static load. The
// history and the figures: docs/decisions/2026-11-24-heavy-on-light-articulation.md and
// docs/decisions/2026-11-28-breakable-chains-solved-whole.md.
//
// What: the rigid springs of the structure and the heavy contacts on it are solved together,
// directly, as one system (constrained dynamics with Lagrange multipliers: Baraff, "Linear-Time
// Dynamics using Lagrange Multipliers", SIGGRAPH 1996; Catto's J M^-1 J^T of Nissen's "Stable Rigid Springs with Sequential Impulses" for all of
// the rows at once). With the springs' rows L (unit axis u, u . (x_b - x_a)) and the contacts'
// rows C (normal and tangent of each), W the inverse masses and inertias:
//     [A  B] [lambda_L]   [r_L]      A = L W L^T, B = L W C^T, D = C W C^T,
//     [B' D] [lambda_C] = [r_C],     r = target - J x for the velocities or positions x now.
// A is banded (the springs in breadth-first order: 2 for a chain, about twice the width for a
// cloth) and factored by Cholesky; the contacts' part is its Schur complement
// S = D - B' A^-1 B, small and dense, where the contacts' bounds (a push is >= 0, friction within
// mu times it) are met by projected Gauss-Seidel; then lambda_L = A^-1 (r_L - B lambda_C). The
// springs' rows hold exactly, so a load goes through the links to the fixed particles at once.
// Where the sub-step solves it:
// - the velocity methods, after their other contacts: the springs close at the rate their turn
//   needs (rigid_turn_rate), the contacts at their soft push-out; again in the relax, without it
//   (Box2D v3's soft step). After integrating, a sweep takes Newton steps of the same system on
//   positions, each move becoming velocity as in xpbd: a hanging net that the ball pulls taut is
//   rigid only at second order (a straight chain can lengthen sideways to first order), so
//   velocities alone let it stretch under the ball.
// - the position methods, after their iterations: the same Newton steps, with friction on the
//   slide since the sub-step began; verlet also in its second pass, keeping the motion, then the
//   exchange on the motion pos - prev.
// A fixed particle ends a structure: its springs are rows with one end. The tethers of a
// structure solved this step wait (tether.c): they would move its beads without the ball.
//
// Which structures: those with a contact between a particle and a particle or solid spring on
// a side at least articulate_mass_ratio times lighter and joined by rigid springs (breakable or
// not; a hertz spring is meant to give), up to structure_cost_max; and those with a breakable
// rigid spring or a rigid spring whose ends are articulate_mass_ratio apart in mass
// (spring_solved_whole), contact or none, up to whole_cost_max. The springs of a solved structure
// report what their own passes and the solves gave them together, as the step's mean force
// (articulations_add_tension), which is what breaking reads.
//
// Limits: a straight taut chain between two fixed particles cannot take a load at all without
// stretching (a ball dropped on one rocks on it); at one sub-step a net stretches under a heavy
// ball and xpbd drops it. Ropes are not links (taking them as links threw the ball in xpbd).
#include "articulation_internal.h"
#include "springs_kernels.h"

#include <math.h>
#include <stdlib.h>

/// A contact is articulated where the heavier side is at least this many times the lighter's
/// mass; below it the springs' own passes hold a dropped ball within about half a percent
/// (docs/decisions/2026-11-24-heavy-on-light-articulation.md).
static const double articulate_mass_ratio = 20.0;
/// The most multiply-adds a structure's factorization may take (springs x band^2): five times a
/// 20 x 20 cloth with diagonals (1121 springs, band 59: 4e6). A larger structure's contacts are
/// solved as the others are.
static const double structure_cost_max = 2e7;
/// The most a structure solved whole without a contact (spring_solved_whole) may take: a chain
/// (band 1 or 2) of thousands of links, a small net; a tearable cloth is left to the springs' own
/// passes.
static const double whole_cost_max = 2e5;
/// Newton steps a position pass takes at most (it stops once the errors are a hundred-thousandth
/// of the shortest spring), each at most this share of the shortest spring for any particle, and
/// halved up to three times where it made the errors worse (a line search: a full step overshot
/// near a straight stretch of net). The steps and shares tried are in the decision record.
enum { newton_steps = 8 };
static const double newton_step_most = 0.5;

void articulations_free(sb_world *w)
{
    sb_articulations *art = w->contact.art;
    if (!art)
        return;
    free(art->structures);
    free(art->particles);
    free(art->links);
    free(art->incident_first);
    free(art->incident);
    free(art->factor);
    free(art->structure_of);
    free(art->local_of);
    free(art->adj_first);
    free(art->adj_spring);
    free(art->b);
    free(art->y);
    free(art->z);
    free(art->motion);
    free(art->move);
    free(art->moved);
    free(art->origin);
    free(art->step_from);
    free(art->turn_from);
    free(art->link_of_spring);
    free(art);
    w->contact.art = NULL;
}

static bool build_adjacency(sb_world *w, sb_articulations *art)
{
    return rigid_links_by_particle(w, true, &art->adj_first, &art->adj_first_cap, &art->adj_spring, &art->adj_spring_cap);
}

bool articulations_any(const sb_world *w) { return w->contact.art && w->contact.art->structure_count > 0; }

bool articulation_holds(const sb_world *w, int i)
{
    const sb_articulations *art = w->contact.art;
    if (!art || i >= art->slots_cap || art->structure_of[i] < 0)
        return false;
    return art->structures[art->structure_of[i]].contact_count > 0;
}

static bool has_links(const sb_articulations *art, int i) { return art->adj_first[i + 1] > art->adj_first[i]; }

/// The structure of rigid springs that particle `start` is in, breadth-first; -1 when memory is short.
/// Appends the particles and rigid springs reached from `start` to structure `id`, breadth-first.
static bool structure_walk(sb_world *w, sb_articulations *art, int id, int start)
{
    art_structure *st = &art->structures[id];
    if (!ARRAY_RESERVE(art->particles, art->particle_cap, art->particle_count + 1))
        return false;
    art->particles[art->particle_count++] = start;
    art->structure_of[start] = id;
    art->local_of[start] = 0;
    for (int q = st->first_particle; q < art->particle_count; ++q) {
        const int i = art->particles[q], local_i = q - st->first_particle;
        for (int e = art->adj_first[i]; e < art->adj_first[i + 1]; ++e) {
            const int s = art->adj_spring[e];
            const int o = w->s_a[s] == i ? w->s_b[s] : w->s_a[s];
            const bool fixed = w->inv_mass[o] == 0.0;
            if (!fixed && art->structure_of[o] != id) { // found: it joins the queue
                if (!ARRAY_RESERVE(art->particles, art->particle_cap, art->particle_count + 1))
                    return false;
                art->structure_of[o] = id;
                art->local_of[o] = art->particle_count - st->first_particle;
                art->particles[art->particle_count++] = o;
            }
            // each spring once: from the end taken from the queue first (or its one free end)
            if (!fixed && art->local_of[o] < local_i)
                continue;
            if (!ARRAY_RESERVE(art->links, art->link_cap, art->link_count + 1))
                return false;
            const bool i_is_a = w->s_a[s] == i;
            const int local_o = fixed ? -1 : art->local_of[o];
            art->links[art->link_count++] = (art_link){i_is_a ? local_i : local_o, i_is_a ? local_o : local_i,
                                                       w->s_a[s], w->s_b[s], s, w->rest[s], {0, 0}, 0.0, 0.0, -1};
        }
    }
    return true;
}

static int structure_build(sb_world *w, sb_articulations *art, int start)
{
    if (!ARRAY_RESERVE(art->structures, art->structure_cap, art->structure_count + 1))
        return -1;
    const int id = art->structure_count;
    art_structure *st = &art->structures[id];
    memset(st, 0, sizeof *st);
    st->first_particle = art->particle_count;
    st->first_link = art->link_count;
    // The band is narrowest when the walk starts at an end of the structure (Cuthill and McKee's
    // ordering from a pseudo-peripheral particle: the last one a first walk reaches): from the
    // middle of a cloth the fronts are twice as wide, and the factorization 4 times the work.
    if (!structure_walk(w, art, id, start))
        return -1;
    const int far = art->particles[art->particle_count - 1];
    for (int q = st->first_particle; q < art->particle_count; ++q)
        art->structure_of[art->particles[q]] = -1;
    art->particle_count = st->first_particle;
    art->link_count = st->first_link;
    if (!structure_walk(w, art, id, far))
        return -1;
    st->particle_count = art->particle_count - st->first_particle;
    st->link_count = art->link_count - st->first_link;

    // Each particle's springs, and the band: the farthest apart two springs of one particle are.
    const int np = st->particle_count, nl = st->link_count;
    const int first_incident = st->first_particle + id; // one more row start per structure
    if (!ARRAY_RESERVE(art->incident_first, art->incident_first_cap, first_incident + np + 1) ||
        !ARRAY_RESERVE(art->incident, art->incident_cap, 2 * (st->first_link + nl) + 1))
        return -1;
    int *row = art->incident_first + first_incident;
    memset(row, 0, sizeof *row * (size_t)(np + 1));
    const art_link *links = art->links + st->first_link;
    for (int l = 0; l < nl; ++l) {
        if (links[l].a >= 0)
            row[links[l].a + 1] += 1;
        if (links[l].b >= 0)
            row[links[l].b + 1] += 1;
    }
    row[0] = 2 * st->first_link;
    for (int i = 0; i < np; ++i)
        row[i + 1] += row[i];
    int *fill = malloc(sizeof *fill * (size_t)(np > 0 ? np : 1));
    if (!fill)
        return -1;
    memcpy(fill, row, sizeof *fill * (size_t)np);
    for (int l = 0; l < nl; ++l) {
        if (links[l].a >= 0)
            art->incident[fill[links[l].a]++] = l;
        if (links[l].b >= 0)
            art->incident[fill[links[l].b]++] = l;
    }
    free(fill);
    int band = 0;
    for (int i = 0; i < np; ++i)
        for (int e = row[i]; e < row[i + 1]; ++e)
            for (int f = row[i]; f < e; ++f) {
                int d = abs(art->incident[e] - art->incident[f]);
                band = d > band ? d : band;
            }
    st->band = band;
    double shortest = INFINITY;
    for (int l = 0; l < nl; ++l)
        shortest = links[l].rest < shortest ? links[l].rest : shortest;
    st->shortest = shortest > 0.0 && shortest < INFINITY ? shortest : 0.01;
    st->max_move = newton_step_most * st->shortest;
    st->usable = nl > 0 && (double)nl * (band + 1.0) * (band + 1.0) <= structure_cost_max;
    if (st->usable) {
        st->first_factor = art->factor_count;
        if (!ARRAY_RESERVE(art->factor, art->factor_cap, art->factor_count + nl * (band + 1)))
            return -1;
        art->factor_count += nl * (band + 1);
    }
    art->structure_count += 1;
    return id;
}

/// Solved this step: a contact marked it (only a usable structure takes one) or it has a spring
/// solved whole.
static bool structure_solved(const art_structure *st) { return st->whole || st->contact_count > 0; }

static sb_articulations *articulations_get(sb_world *w)
{
    if (!w->contact.art)
        w->contact.art = calloc(1, sizeof *w->contact.art);
    return w->contact.art;
}

static bool reserve_slots(sb_world *w, sb_articulations *art)
{
    if (art->slots_cap >= w->p_high)
        return true;
    int cap = art->slots_cap;
    if (!ARRAY_RESERVE(art->structure_of, cap, w->p_high))
        return false;
    cap = art->slots_cap;
    if (!ARRAY_RESERVE(art->local_of, cap, w->p_high))
        return false;
    for (int i = art->slots_cap; i < cap; ++i)
        art->structure_of[i] = -1;
    art->slots_cap = cap;
    return true;
}


/// The inverse mass of a contact's side: a particle's, or a solid spring's lighter end's.
static double side_inverse_mass(const sb_world *w, const sb_contact *c, int side)
{
    if (side == 0)
        return w->inv_mass[c->a];
    double wb = w->inv_mass[c->b];
    return c->b2 < 0 ? wb : (w->inv_mass[c->b2] > wb ? w->inv_mass[c->b2] : wb);
}

/// The contact's side that a structure takes: the lighter, where it is articulate_mass_ratio
/// times lighter and joined by rigid springs; -1 for none.
static int light_side(const sb_world *w, const sb_articulations *art, const sb_contact *c)
{
    if (c->b < 0)
        return -1; // a wall or a bound: nothing to be heavy against
    const double wa = side_inverse_mass(w, c, 0), wb = side_inverse_mass(w, c, 1);
    if (c->b2 < 0 && wb > 0.0 && wa >= articulate_mass_ratio * wb && has_links(art, c->a))
        return 0;
    const int free_b = c->b2 >= 0 && w->inv_mass[c->b] == 0.0 ? c->b2 : c->b;
    if (wa > 0.0 && wb >= articulate_mass_ratio * wa && has_links(art, free_b))
        return 1;
    return -1;
}

/// Whether rigid spring s is solved with its whole structure every sub-step: it is breakable (a
/// chain built at rest carries its static load from the first step, and breaks at one link), or
/// its ends are articulate_mass_ratio or more apart in mass (a weight on a chain of light beads:
/// the beads' passes hand its load on one link an iteration, and a chain over a table's corner
/// with a 10 kg weight on 0.1 kg beads slid and stretched where a straight one held).
static bool spring_solved_whole(const sb_world *w, int s)
{
    if (w->s_a[s] < 0 || !w->s_rigid[s])
        return false;
    if (w->break_force[s] > 0.0 || w->break_stretch[s] > 0.0)
        return true;
    const double wa = w->inv_mass[w->s_a[s]], wb = w->inv_mass[w->s_b[s]];
    return wa > 0.0 && wb > 0.0 && (wa >= articulate_mass_ratio * wb || wb >= articulate_mass_ratio * wa);
}

/// Whether the world has a rigid spring whose ends' masses are articulate_mass_ratio apart.
static bool heavy_links_any(const sb_world *w)
{
    for (int s = 0; s < w->s_high; ++s)
        if (w->s_a[s] >= 0 && w->s_rigid[s] && spring_solved_whole(w, s) && w->break_force[s] <= 0.0 &&
            w->break_stretch[s] <= 0.0)
            return true;
    return false;
}

/// The structures with a spring solved whole (spring_solved_whole), small enough to solve every
/// sub-step; whether any is.
static bool whole_structures_find(sb_world *w, sb_articulations *art)
{
    bool any = false;
    for (int s = 0; s < w->s_high; ++s) {
        if (!spring_solved_whole(w, s))
            continue;
        const int start = w->inv_mass[w->s_a[s]] > 0.0 ? w->s_a[s] : w->s_b[s];
        if (w->inv_mass[start] == 0.0)
            continue; // between two fixed particles: nothing moves
        int id = art->structure_of[start];
        if (id < 0 && (id = structure_build(w, art, start)) < 0)
            return true; // memory is short: the rest are solved as before (and looked for again)
        art_structure *st = &art->structures[id];
        st->whole = st->usable && (double)st->link_count * (st->band + 1.0) * (st->band + 1.0) <= whole_cost_max;
        any = any || st->whole;
    }
    return any;
}

/// A wall contact waiting to join its structure's solve, by the push it made last step, twice
/// that if it was in the solve then.
typedef struct wall_candidate { double push; int index; } wall_candidate;

static int wall_candidate_order(const void *x, const void *y)
{
    const wall_candidate *a = x, *b = y;
    return a->push != b->push ? (a->push > b->push ? -1 : 1) : a->index - b->index;
}

/// The wall and bound contacts of the structures solved whole join their solve as rows, those
/// that pushed hardest last step first, a contact in the solve then counting twice its push (one
/// that comes and goes with every small change shook a chain lying on a table), up to
/// STRUCTURE_CONTACTS_MAX a structure: a chain over a
/// table's corner is held by the corner and its links at once (solved apart, the corner pushed
/// the beads out and the links pulled them back in, and at one sub-step the weight slid a metre).
static void wall_contacts_mark(sb_world *w, sb_articulations *art)
{
    wall_candidate *list = NULL;
    int n = 0, cap = 0;
    for (int k = 0; k < w->contact.next_count; ++k) {
        const sb_contact *c = &w->contact.next[k];
        if (c->b >= 0 || c->corner || c->art) // (a corner's solid spring is solved as any other)
            continue;
        const int s = art->structure_of[c->a];
        if (s < 0 || !art->structures[s].whole)
            continue;
        if (!ARRAY_RESERVE(list, cap, n + 1))
            break; // memory is short: the rest are solved as the others are
        list[n++] = (wall_candidate){(c->was_articulated ? 2.0 : 1.0) * c->normal_impulse, k};
    }
    if (n > 1)
        qsort(list, (size_t)n, sizeof *list, wall_candidate_order);
    for (int q = 0; q < n; ++q) {
        sb_contact *c = &w->contact.next[list[q].index];
        art_structure *st = &art->structures[art->structure_of[c->a]];
        if (st->contact_count == STRUCTURE_CONTACTS_MAX)
            continue;
        st->contact_count += 1;
        c->art = art->structure_of[c->a] + 1;
    }
    free(list);
}

void articulations_find(sb_world *w)
{
    sb_articulations *art = w->contact.art;
    if (art) { // last step's marks go
        for (int k = 0; k < art->particle_count; ++k)
            if (art->particles[k] < art->slots_cap)
                art->structure_of[art->particles[k]] = -1;
        art->structure_count = art->particle_count = art->link_count = art->factor_count = 0;
        art->kernels_found = false;
        art->substeps_done = 0;
    }
    if (w->s_alive == 0)
        return;
    bool far_apart = false; // a contact of two particles far apart in mass first: the pits pay only this
    for (int k = 0; k < w->contact.next_count && !far_apart; ++k) {
        const sb_contact *c = &w->contact.next[k];
        if (c->b < 0)
            continue;
        const double wa = side_inverse_mass(w, c, 0), wb = side_inverse_mass(w, c, 1);
        far_apart = (wb > 0.0 && wa >= articulate_mass_ratio * wb) || (wa > 0.0 && wb >= articulate_mass_ratio * wa);
    }
    // Without a heavy contact the walk starts from the same particles as last step, so a graph
    // that has not changed since none of its structures was small enough still has none.
    const uint64_t graph = w->rigid.version + 1;
    const bool heavy_links = heavy_links_any(w); // masses change without the graph: looked for each step
    const bool whole = heavy_links || (w->breakable_springs > 0 && (far_apart || !art || art->none_solvable_at != graph));
    if ((!far_apart && !whole) || !(art = articulations_get(w)) || !reserve_slots(w, art) || !build_adjacency(w, art))
        return;
    for (int k = 0; far_apart && k < w->contact.next_count; ++k) {
        sb_contact *c = &w->contact.next[k];
        if (c->b < 0)
            continue;
        const int side = light_side(w, art, c);
        if (side < 0)
            continue;
        // (a solid spring's side starts from its free end: a fixed one is no part of a structure)
        const int light = side == 0 ? c->a : c->b2 >= 0 && w->inv_mass[c->b] == 0.0 ? c->b2 : c->b;
        const int heavy = side == 0 ? c->b : c->a;
        int s = art->structure_of[light];
        if (s < 0 && (s = structure_build(w, art, light)) < 0)
            return; // memory is short: the rest are solved as before
        art_structure *st = &art->structures[s];
        if (!st->usable || art->structure_of[heavy] == s || st->contact_count == STRUCTURE_CONTACTS_MAX)
            continue; // too large, the heavy one is in it (the springs' passes hold that), or full
        if (c->b2 >= 0 && ((art->structure_of[c->b2] != s && w->inv_mass[c->b2] > 0.0) ||
                           (art->structure_of[c->b] != s && w->inv_mass[c->b] > 0.0)))
            continue; // a solid spring across two structures (a hertz spring's): as before
        st->contact_count += 1;
        c->art = s + 1;
    }
    if (whole) {
        const bool any = whole_structures_find(w, art);
        art->none_solvable_at = !far_apart && !heavy_links && !any ? graph : 0;
        if (any)
            wall_contacts_mark(w, art);
    }
}

void articulations_begin_substep(sb_world *w)
{
    sb_articulations *art = w->contact.art;
    for (int l = 0; art && l < art->link_count; ++l)
        art->links[l].impulse = 0.0;
}

/// Each solved link's packed index; false when memory is short (the springs keep their own force).
static bool find_kernels(sb_world *w, sb_articulations *art)
{
    if (!ARRAY_RESERVE(art->link_of_spring, art->link_of_spring_cap, w->s_high + 1))
        return false;
    for (int s = 0; s < w->s_high; ++s)
        art->link_of_spring[s] = -1;
    for (int id = 0; id < art->structure_count; ++id) {
        const art_structure *st = &art->structures[id];
        for (int l = st->first_link; structure_solved(st) && l < st->first_link + st->link_count; ++l)
            art->link_of_spring[art->links[l].spring] = l;
    }
    for (int k = 0; k < w->pack.order_count; ++k) {
        const int l = art->link_of_spring[w->pack.order[k]];
        if (l >= 0)
            art->links[l].kernel = k;
    }
    art->kernels_found = true;
    return true;
}

void articulations_end_substep(sb_world *w)
{
    sb_articulations *art = w->contact.art;
    if (!art || art->link_count == 0 || (!art->kernels_found && !find_kernels(w, art)))
        return;
    for (int l = 0; l < art->link_count; ++l) {
        art_link *link = &art->links[l];
        if (link->kernel >= 0)
            link->step_impulse += spring_substep_impulse(w, link->kernel) + link->impulse;
    }
    art->substeps_done += 1;
}

// A solved structure's links report the step's mean force (Box2D v3's joint force is the step's
// impulse over its time step too): a rigid link takes a jerk in one sub-step, and the last
// sub-step's force would miss it, where the step's impulse does not depend on the sub-steps.
void articulations_add_tension(sb_world *w, double h)
{
    sb_articulations *art = w->contact.art;
    if (!art || art->substeps_done == 0)
        return;
    for (int l = 0; l < art->link_count; ++l)
        if (art->links[l].kernel >= 0)
            w->tension[art->links[l].spring] = -art->links[l].step_impulse / (h * art->substeps_done);
}

/// Adds `share` of the links' last solve (art->z, impulses or moves times mass) to their impulses.
static void links_credit(sb_articulations *art, int id, double share)
{
    const art_structure *st = &art->structures[id];
    for (int l = 0; l < st->link_count; ++l)
        art->links[st->first_link + l].impulse += share * art->z[l];
}

/// Runs `fn` on each structure with contacts this step, and each with a breakable spring, with
/// the rows of its contacts (their geometry found now) and their positions in contact.next.
typedef void structure_fn(sb_world *w, int id, art_row *rows, sb_contact **contacts, int k, void *ctx);

static void for_each_structure(sb_world *w, structure_fn *fn, void *ctx)
{
    sb_articulations *art = w->contact.art;
    if (!art || art->structure_count == 0)
        return;
    for (int id = 0; id < art->structure_count; ++id) {
        const art_structure *st = &art->structures[id];
        if (!structure_solved(st))
            continue;
        art_row rows[ROWS_MAX];
        sb_contact *contacts[STRUCTURE_CONTACTS_MAX];
        int k = 0;
        for (int j = w->contact.color_start[63]; j < w->contact.next_count && k < STRUCTURE_CONTACTS_MAX; ++j) {
            sb_contact *c = &w->contact.next[j];
            if (c->art != id + 1)
                continue;
            contact_find_geometry(w, c);
            articulation_contact_rows(w, art, id, c, &rows[2 * k], &rows[2 * k + 1]);
            contacts[k++] = c;
        }
        if (k > 0 || st->whole)
            fn(w, id, rows, contacts, k, ctx);
    }
}

static double link_stretch(const sb_world *w, const art_link *l) { return v2_len(v2_sub(w->pos[l->slot_b], w->pos[l->slot_a])) - l->rest; }

typedef struct velocity_pass { double h; bool use_bias; } velocity_pass;

// The velocity methods: the links close their stretch and the contacts their overlap at the
// contacts' soft rate (contact_hertz), a speculative contact lets its gap close
// (Catto's soft-constraint talk's speculative contacts), and the relax targets no push-out at all (Box2D v3).
static void solve_velocities(sb_world *w, int id, art_row *rows, sb_contact **contacts, int k, void *ctx)
{
    const velocity_pass *pass = ctx;
    sb_articulations *art = w->contact.art;
    const art_structure *st = &art->structures[id];
    const sb_soft soft = contact_softness(pass->h, w->def.dt, CONTACT_JOINED); // a structure's beads are joined
    double *target_links = malloc(sizeof *target_links * (size_t)(st->link_count + 1));
    if (!target_links)
        return;
    // The springs close at the rate their turn needs (rigid_turn_rate: the ends land on the circle
    // they turn on, as the springs' own passes ask), and their stretch is mended by
    // articulations_sweep, with the velocity it takes. The relax keeps the solve's factor, the
    // springs having turned by v h since, where contacts share it; a structure alone takes its
    // springs' axes now and no speed along them (RATTLE's velocity step, as the springs' relax).
    const bool alone = k == 0;
    if (pass->use_bias || alone)
        articulation_factor(w, art, id);
    for (int l = 0; l < st->link_count; ++l) {
        const art_link *link = &art->links[st->first_link + l];
        const sb_vec2 rel = v2_sub(w->vel[link->slot_b], w->vel[link->slot_a]);
        target_links[l] = pass->use_bias ? rigid_turn_rate(rel.x, rel.y, v2_dot(rel, link->u), rigid_turn_factor(pass->h, link->rest)) : 0.0;
    }
    double target[ROWS_MAX] = {0}, mu[STRUCTURE_CONTACTS_MAX] = {0}, lambda[ROWS_MAX] = {0};
    for (int i = 0; i < k; ++i) {
        const double s = contacts[i]->separation;
        double push = 0.0;
        if (s > 0.0)
            push = -s / pass->h;
        else if (pass->use_bias && !(contacts[i]->fresh && art->substeps_done == 0)) // (one that starts inside: the sweep settles it)
            push = -soft.bias_rate * s < contact_push_limit() ? -soft.bias_rate * s : contact_push_limit();
        target[2 * i] = push;
        target[2 * i + 1] = 0.0;
        mu[i] = contacts[i]->friction;
    }
    solve_input in = {w->vel, w->scratch.spinning ? w->omega : NULL, false, NULL, NULL};
    const bool ok = articulation_solve(w, art, id, &in, rows, 2 * k, target_links, target, mu, lambda);
    if (ok)
        links_credit(art, id, 1.0);
    if (ok)
        for (int i = 0; i < k; ++i) {
            contacts[i]->normal_impulse = lambda[2 * i];
            contacts[i]->tangent_impulse = lambda[2 * i + 1];
            if (lambda[2 * i] > contacts[i]->max_normal_impulse)
                contacts[i]->max_normal_impulse = lambda[2 * i];
        }
    free(target_links);
}

void articulations_solve_velocities(sb_world *w, double h, bool use_bias)
{
    velocity_pass pass = {h, use_bias};
    for_each_structure(w, solve_velocities, &pass);
}

typedef struct position_pass { bool keep_motion, motion, sweep; double h; } position_pass;

// The position methods: one Newton step to the links' rest lengths and out of every overlap,
// with friction cancelling the contacts' slide since the sub-step began, within mu times the push.
/// The worst error of a structure and its contacts at the positions now (their geometry and rows
/// found again): a spring's stretch over its rest length, a contact's overlap (and, where
/// friction acts, its slide since the sub-step began) over the shortest spring.
static double group_error(sb_world *w, const sb_articulations *art, int id, art_row *rows, sb_contact **contacts,
                          int k, const position_pass *pass, const solve_input *in)
{
    const art_structure *st = &art->structures[id];
    double worst = 0.0;
    for (int l = 0; l < st->link_count; ++l) {
        const art_link *link = &art->links[st->first_link + l];
        worst = fmax(worst, fabs(link_stretch(w, link)) / link->rest);
    }
    const bool friction = !pass->keep_motion && !pass->sweep;
    for (int i = 0; i < k; ++i) {
        contact_find_geometry(w, contacts[i]);
        articulation_contact_rows(w, art, id, contacts[i], &rows[2 * i], &rows[2 * i + 1]);
        double e = -contacts[i]->separation;
        if (friction && contacts[i]->friction > 0.0 && e > -1e-3 * st->shortest) // touching: its slide too
            e = fmax(e, fabs(articulation_row_dot(w, &rows[2 * i + 1], w->pos, in->spin) -
                             articulation_row_dot(w, &rows[2 * i + 1], w->scratch.prev, in->spin_from)));
        worst = fmax(worst, e / st->shortest);
    }
    return worst;
}

static void project_positions(sb_world *w, int id, art_row *rows, sb_contact **contacts, int k, void *ctx)
{
    const position_pass *pass = ctx;
    // verlet's second pass and exchange are its contacts': a structure without one keeps what its
    // first pass made (moving both ends of the motion along the links took a spinning wheel on a
    // heavy hub's spin, half of it in 10 s at two sub-steps)
    if ((pass->keep_motion || pass->motion) && k == 0)
        return;
    sb_articulations *art = w->contact.art;
    const art_structure *st = &art->structures[id];
    double *target_links = malloc(sizeof *target_links * (size_t)(st->link_count + 1));
    if (!target_links)
        return;
    double target[ROWS_MAX] = {0}, mu[STRUCTURE_CONTACTS_MAX] = {0}, lambda[ROWS_MAX] = {0};
    // (verlet's second pass keeps the motion and leaves friction to the exchange; the velocity
    // methods' sweep has no friction either)
    solve_input in = {w->pos, w->scratch.spinning ? w->angle : NULL, true, pass->keep_motion ? NULL : w->scratch.prev,
                      w->scratch.spinning ? w->scratch.angle_prev : NULL};
    if (pass->sweep)
        in = (solve_input){w->pos, NULL, true, NULL, NULL};
    if (pass->motion) { // verlet's exchange: the motion pos - prev keeps the links and closes no contact
        sb_vec2 *motion = art->motion;
        for (int l = 0; l < st->link_count; ++l)
            target_links[l] = 0.0;
        for (int i = 0; i < k; ++i) {
            target[2 * i] = target[2 * i + 1] = 0.0;
            mu[i] = contacts[i]->friction;
        }
        in = (solve_input){motion, NULL, false, NULL, NULL};
        articulation_factor(w, art, id);
        if (!articulation_solve(w, art, id, &in, rows, 2 * k, target_links, target, mu, lambda)) {
            free(target_links);
            return;
        }
        links_credit(art, id, 1.0 / pass->h); // a move of the motion over h is a velocity
    } else {
        // The particles the steps move: the structure's and the contacts' other ends. Where they
        // start, for the velocity the moves make (below), and where each step starts, to take
        // back half of a step that made the errors worse (a line search: a full Newton step
        // near a straight, taut stretch of net overshoots).
        const int most = st->particle_count + 2 * k + 1;
        if (art->moved_cap < most) {
            // (each array keeps its old block if its growing fails: all are freed with the rest)
            bool grown = ARRAY_GROW(art->moved, most);
            grown = ARRAY_GROW(art->origin, most) && grown;
            grown = ARRAY_GROW(art->step_from, most) && grown;
            grown = ARRAY_GROW(art->turn_from, most) && grown;
            if (!grown) {
                free(target_links);
                return; // memory is short: this pass leaves the structure as it is
            }
            art->moved_cap = most;
        }
        int *moved = art->moved, count = 0;
        for (int i = 0; i < st->particle_count; ++i)
            moved[count++] = art->particles[st->first_particle + i];
        for (int r = 0; r < 2 * k; r += 2)
            for (int e = 0; e < rows[r].count; ++e)
                if (rows[r].local[e] < 0 && w->inv_mass[rows[r].slot[e]] > 0.0) {
                    bool listed = false;
                    for (int q = st->particle_count; q < count; ++q)
                        listed = listed || moved[q] == rows[r].slot[e];
                    if (!listed)
                        moved[count++] = rows[r].slot[e];
                }
        sb_vec2 *origin = art->origin, *step_from = art->step_from;
        double *turn_from = art->turn_from;
        for (int q = 0; q < count; ++q)
            origin[q] = w->pos[moved[q]];
        // A contact that starts inside at the step's first sub-step (a bucket built 2 cm into a
        // wall) is settled, as contacts_settle_overlaps settles the others': the pass's moves do not
        // become velocity (they left the bucket at 7 m/s). Otherwise a wall's overlap is left at
        // the contacts' push speed at most, as every wall contact's is.
        bool settle = false;
        for (int i = 0; i < k && art->substeps_done == 0; ++i)
            settle = settle || (contacts[i]->fresh && contacts[i]->separation < 0.0);
        double goal[STRUCTURE_CONTACTS_MAX];
        for (int i = 0; i < k; ++i)
            goal[i] = settle || contacts[i]->b >= 0 ? 0.0 : fmin(0.0, contacts[i]->separation + contact_push_limit() * pass->h);
        double worst = group_error(w, art, id, rows, contacts, k, pass, &in);
        for (int it = 0; it < newton_steps && worst >= 1e-5; ++it) {
            // (done once every spring is within a hundred-thousandth of its length and no contact
            // overlaps by more: at rest the sweeps mostly stop before factoring)
            for (int q = 0; q < count; ++q) {
                step_from[q] = w->pos[moved[q]];
                turn_from[q] = in.spin ? in.spin[moved[q]] : 0.0;
            }
            articulation_factor(w, art, id);
            for (int l = 0; l < st->link_count; ++l)
                target_links[l] = -link_stretch(w, &art->links[st->first_link + l]);
            for (int i = 0; i < k; ++i) {
                target[2 * i] = goal[i] - contacts[i]->separation;
                target[2 * i + 1] = 0.0;
                mu[i] = pass->keep_motion || pass->sweep ? 0.0 : contacts[i]->friction;
            }
            if (!articulation_solve(w, art, id, &in, rows, 2 * k, target_links, target, mu, lambda)) {
                free(target_links);
                return;
            }
            double after = group_error(w, art, id, rows, contacts, k, pass, &in), taken = 1.0;
            for (int half = 0; half < 3 && after > worst; ++half) {
                taken *= 0.5;
                for (int q = 0; q < count; ++q) {
                    w->pos[moved[q]] = v2_add(step_from[q], v2_scale(v2_sub(w->pos[moved[q]], step_from[q]), 0.5));
                    if (in.spin)
                        in.spin[moved[q]] = turn_from[q] + 0.5 * (in.spin[moved[q]] - turn_from[q]);
                }
                for (int i = 0; i < k; ++i)
                    lambda[2 * i] *= 0.5;
                after = group_error(w, art, id, rows, contacts, k, pass, &in);
            }
            links_credit(art, id, taken / pass->h); // the move over h is the velocity it makes
            worst = after;
        }
        for (int q = 0; q < count; ++q) { // the moves' velocity: xpbd's rule for the velocity methods' sweep
            const sb_vec2 d = v2_sub(w->pos[moved[q]], origin[q]);
            if (pass->sweep && !settle)
                w->vel[moved[q]] = v2_mad(w->vel[moved[q]], 1.0 / pass->h, d);
            else if (pass->keep_motion || (settle && !pass->sweep)) // verlet's second pass, a settle: the motion is kept
                w->scratch.prev[moved[q]] = v2_add(w->scratch.prev[moved[q]], d);
        }
        for (int i = 0; i < k && !pass->sweep; ++i) // the push (the next sub-step's warm start, the events)
            contacts[i]->normal_impulse = lambda[2 * i];
    }
    free(target_links);
}

void articulations_project(sb_world *w, double h, bool keep_motion)
{
    (void)h;
    position_pass pass = {keep_motion, false, false, h};
    for_each_structure(w, project_positions, &pass);
}

void articulations_sweep(sb_world *w, double h)
{
    position_pass pass = {false, false, true, h};
    for_each_structure(w, project_positions, &pass);
}

void articulations_exchange_motion(sb_world *w, double h)
{
    (void)h;
    sb_articulations *art = w->contact.art;
    if (!art || art->structure_count == 0)
        return;
    if (!ARRAY_RESERVE(art->motion, art->motion_cap, w->p_high))
        return;
    for (int i = 0; i < w->p_high; ++i)
        art->motion[i] = v2_sub(w->pos[i], w->scratch.prev[i]);
    position_pass pass = {false, true, false, h};
    for_each_structure(w, project_positions, &pass);
    // prev follows the new motion where it changed: the structures' particles and their contacts' other ends
    for (int j = w->contact.color_start[63]; j < w->contact.next_count; ++j) {
        const sb_contact *c = &w->contact.next[j];
        if (c->art && w->inv_mass[c->a] > 0.0)
            w->scratch.prev[c->a] = v2_sub(w->pos[c->a], art->motion[c->a]);
        if (c->art && c->b >= 0 && w->inv_mass[c->b] > 0.0)
            w->scratch.prev[c->b] = v2_sub(w->pos[c->b], art->motion[c->b]);
    }
    for (int k = 0; k < art->particle_count; ++k) {
        const int i = art->particles[k];
        w->scratch.prev[i] = v2_sub(w->pos[i], art->motion[i]);
    }
}
