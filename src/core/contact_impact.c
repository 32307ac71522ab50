// Impacts, one pair at a time: a contact that closes faster than the restitution threshold and
// touches within the sub-step collides its two ends alone, at the time of the touch, and the
// collision travels on to the neighbours it sets closing (a Newton's cradle passes its blow).
#include "contact_kernels.h"

#include <stdlib.h>
#include <string.h>

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

/// An impact waiting its turn: contact k touching at time t, the seq-th queued (earlier first
/// among equal times, so a row touching at once passes its blow in list order).
typedef struct impact_entry { double t; int k, seq; } impact_entry;

typedef struct impact_pass {
    int *of_particle, *start; // the contacts of each particle (both ends), by particle slot
    impact_entry *heap;       // the impacts to come, earliest first (a binary heap)
    int *stamp;               // by contact: the seq of its latest entry (older ones are stale)
    int count, cap, seq;
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
    if (c->restitution == 0.0 && -vn * h <= (sep > 0.0 ? sep : 0.0) + radius_a(w, c) + (c->b >= 0 ? w->radius[c->b] : 0.0))
        return -1.0;
    if (ip) // each end where its velocity now would have it at the sub-step's start, along the normal
        sep += v2_dot(v2_sub(b_side(c, ip->moved), a_side(c, ip->moved)), c->normal);
    double t = sep > 0.0 ? sep / -vn : 0.0;
    if (ip) { // not before the velocities that close them came
        t = fmax(t, ip->changed[c->a]);
        t = c->b >= 0 ? fmax(t, ip->changed[c->b]) : t;
        t = c->b2 >= 0 ? fmax(t, ip->changed[c->b2]) : t;
    }
    return t < h ? t : -1.0;
}

/// What gravity and the step's forces give a particle's velocity a second (0 for a fixed one or a
/// static shape, i < 0).
static sb_vec2 acceleration_of(const sb_world *w, int i)
{
    if (i < 0 || w->inv_mass[i] == 0.0)
        return v2(0.0, 0.0);
    return v2_mad(w->def.gravity, w->inv_mass[i], w->force[i]);
}

/// The normal speed a collision leaves with, for the relative normal speed vn (< 0) it meets at,
/// at time t of a sub-step h long, under a relative normal acceleration an (what gravity and the
/// step's forces give the ends apart along the normal; 0 for two under gravity alone). The
/// velocities already hold the sub-step's whole kick, which the integration then carries on: in
/// free flight it keeps E = v^2 / 2 + G s - G h v / 2 (G = -an, s the gap, v its rate) exactly,
/// and a perfectly elastic collision keeps it too, so a ball of restitution 1 on a floor climbs
/// back to the height it fell from, as the gap it flies over would have it (reflecting the kicked
/// speed alone would lift it higher at every bounce). With the gap at the
/// sub-step's end s_end = s_start + vn t + v' (h - t), E(start) = E(end) is a quadratic in v';
/// restitution e scales what leaves.
static double leaving_speed(double vn, double an, double t, double h, double e)
{
    const double G = -an;
    if (!(G > 0.0))
        return -e * vn;
    const double v_start = vn + G * h, half = 0.5 * h - t;
    double d = G * G * half * half - 2.0 * G * vn * t + v_start * v_start - G * h * v_start;
    d = d > 0.0 ? d : 0.0;
    const double elastic = -G * half + sqrt(d);
    return e * (elastic > 0.0 ? elastic : -vn);
}

/// One collision of contact c's ends, at relative normal speed vn (< 0), touching at time t of the
/// sub-step (h long); what it moves an end by is added to `moved`.
static void collide_pair(sb_world *w, sb_contact *c, double vn, double t, double h, sb_vec2 *moved)
{
    const double wa = inv_mass_a(w, c), wsum = wa + inv_mass_b(w, c);
    if (wsum == 0.0)
        return;
    const sb_vec2 ab = c->b2 >= 0 ? v2(0.0, 0.0) : v2_sub(acceleration_of(w, c->b), acceleration_of(w, c->a));
    const double j = (leaving_speed(vn, v2_dot(ab, c->normal), t, h, c->restitution) - vn) / wsum;
    sb_vec2 n = c->normal, tn = v2(-n.y, n.x);
    const contact_levers l = levers_of(w, c);
    double vt = v2_dot(relative_velocity(w, c), tn), tsum = wsum;
    if (w->scratch.spinning) { // the surfaces slip by their spins too, and the friction turns them
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
    if (w->scratch.spinning && c->b2 < 0)
        apply_spin(w, c, &l, jt, 0.0);
    if (j > c->max_normal_impulse) // it touched in this step (events.c)
        c->max_normal_impulse = j;
    c->collided = true;
}

/// Builds the list of each particle's contacts (of contact.next); false out of memory.
static bool impact_pass_index(sb_world *w, impact_pass *ip)
{
    const int np = w->p_high, nc = w->contact.next_count;
    ip->start = calloc((size_t)np + 1, sizeof *ip->start);
    ip->of_particle = malloc(sizeof *ip->of_particle * (size_t)(3 * nc + 1));
    ip->cap = 64; // grown as impacts come: most sub-steps have a few
    ip->heap = malloc(sizeof *ip->heap * (size_t)ip->cap);
    ip->stamp = malloc(sizeof *ip->stamp * (size_t)(nc + 1));
    ip->changed = calloc((size_t)np + 1, sizeof *ip->changed);
    ip->moved = calloc((size_t)np + 1, sizeof *ip->moved);
    if (!ip->start || !ip->of_particle || !ip->heap || !ip->stamp || !ip->changed || !ip->moved)
        return false;
    for (int k = 0; k < nc; ++k)
        ip->stamp[k] = -1;
    for (int k = 0; k < nc; ++k) {
        const sb_contact *c = &w->contact.next[k];
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
        const sb_contact *c = &w->contact.next[k];
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
    free(ip->heap);
    free(ip->stamp);
}

static bool entry_before(const impact_entry *x, const impact_entry *y)
{
    return x->t < y->t || (x->t == y->t && x->seq < y->seq);
}

/// Queues contact k at its impact time t; its earlier entry, if any, goes stale. False out of
/// memory (the solve then takes what is left).
static bool queue_impact(impact_pass *ip, int k, double t)
{
    if (ip->count == ip->cap) {
        const int cap = 2 * ip->cap;
        impact_entry *heap = realloc(ip->heap, sizeof *heap * (size_t)cap);
        if (!heap)
            return false;
        ip->heap = heap;
        ip->cap = cap;
    }
    impact_entry e = {t, k, ip->seq++};
    ip->stamp[k] = e.seq;
    int i = ip->count++;
    while (i > 0 && entry_before(&e, &ip->heap[(i - 1) / 2])) {
        ip->heap[i] = ip->heap[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    ip->heap[i] = e;
    return true;
}

/// The earliest impact to come; false when none is left.
static bool next_impact(impact_pass *ip, impact_entry *out)
{
    while (ip->count > 0) {
        *out = ip->heap[0];
        const impact_entry last = ip->heap[--ip->count];
        int i = 0;
        for (;;) {
            int child = 2 * i + 1;
            if (child >= ip->count)
                break;
            if (child + 1 < ip->count && entry_before(&ip->heap[child + 1], &ip->heap[child]))
                child += 1;
            if (!entry_before(&ip->heap[child], &last))
                break;
            ip->heap[i] = ip->heap[child];
            i = child;
        }
        if (ip->count > 0)
            ip->heap[i] = last;
        if (ip->stamp[out->k] == out->seq)
            return true;
    }
    return false;
}

/// Queues contact k at its impact time now, if it is one.
static bool queue_contact(const sb_world *w, impact_pass *ip, int k, double h)
{
    const sb_contact *c = &w->contact.next[k];
    const double t = impact_time(w, ip, c, v2_dot(relative_velocity(w, c), c->normal), h);
    if (t < 0.0) {
        ip->stamp[k] = -1;
        return true;
    }
    return queue_impact(ip, k, t);
}

/// Queues the contacts of particle i (a moving one) at their impact times now.
static bool queue_contacts_of(const sb_world *w, impact_pass *ip, int i, double h)
{
    if (i < 0 || w->inv_mass[i] == 0.0)
        return true;
    for (int m = ip->start[i]; m < ip->start[i + 1]; ++m)
        if (!queue_contact(w, ip, ip->of_particle[m], h))
            return false;
    return true;
}

void contacts_collide(sb_world *w, double window, bool geometry_current)
{
    const double h = window;
    const int nc = w->contact.next_count;
    int first = -1;
    for (int k = 0; k < nc && first < 0; ++k) { // most sub-steps have no impact: a scan
        sb_contact *c = &w->contact.next[k];
        if (!geometry_current)
            contact_geometry(w, c);
        if (impact_time(w, NULL, c, v2_dot(relative_velocity(w, c), c->normal), h) >= 0.0)
            first = k;
    }
    if (first < 0)
        return;
    for (int k = first + 1; !geometry_current && k < nc; ++k)
        contact_geometry(w, &w->contact.next[k]);
    impact_pass ip = {0};
    if (!impact_pass_index(w, &ip)) { // out of memory: the contact solve takes them, as one
        impact_pass_free(&ip);
        return;
    }
    // The contacts that close, earliest touch first, then whatever their collisions make close in
    // turn, each at its time: a ball that meets two walls in one sub-step meets them in the order
    // it reaches them. A ball wedged between two walls would bounce between them for ever: the
    // contacts collide `rounds` times each a sub-step at most, on average, and what is left the
    // solve takes.
    enum { rounds = 8 };
    int processed = 0;
    const int budget = rounds * nc + 64;
    bool room = true;
    for (int k = first; k < nc && room; ++k)
        room = queue_contact(w, &ip, k, h);
    impact_entry e;
    while (room && processed < budget && next_impact(&ip, &e)) {
        sb_contact *c = &w->contact.next[e.k];
        const double vn = v2_dot(relative_velocity(w, c), c->normal), t = impact_time(w, &ip, c, vn, h);
        ip.stamp[e.k] = -1;
        if (t < 0.0)
            continue;
        collide_pair(w, c, vn, t, h, ip.moved);
        ip.changed[c->a] = t;
        if (c->b >= 0)
            ip.changed[c->b] = t;
        if (c->b2 >= 0)
            ip.changed[c->b2] = t;
        processed += 1;
        room = queue_contacts_of(w, &ip, c->a, h) && queue_contacts_of(w, &ip, c->b, h) &&
               queue_contacts_of(w, &ip, c->b2, h); // the ends' other contacts may close now
    }
    // An end moved to where its new velocity leaves the touch from starts the sub-step there: its
    // contacts' gaps move with it along their normals, so the solve that follows reads how far the
    // new velocity may go (a ball struck back between two bumpers otherwise met the far one at
    // the gap the sub-step began with, and was stopped short of where the bounce sends it)
    for (int k = 0; k < nc; ++k) {
        sb_contact *c = &w->contact.next[k];
        c->separation += v2_dot(v2_sub(b_side(c, ip.moved), a_side(c, ip.moved)), c->normal);
    }
    impact_pass_free(&ip);
}
