// Tethers: long range attachments (Kim, Chentanez, Mueller, "Long Range Attachments - A
// Method to Simulate Inextensible Clothing in Computer Games", SCA 2012; PhysX cloth calls
// them tether constraints). Not one of the seeds.
//
// Why: an iterative solver passes load along a chain of rigid springs one link per
// iteration, so a long chain hanging from a fixed particle stretches with its length
// (docs/performance.md gives the cloth's stretch with and without them). If particle p is
// joined to a fixed particle a by a path of rigid springs whose rest lengths sum to L, then
// no configuration that satisfies those springs has |p - a| > L. The tether enforces that
// inequality directly, once per sub-step, so the bottom of the chain learns in one step
// what the iterations would take the whole chain to tell it. It is redundant with the
// springs: where they hold, it never acts, so it changes convergence, not the physics.
//
// L is the shortest path over rigid springs (Dijkstra from every fixed particle at once);
// each particle is tethered to its nearest fixed particle. Hertz springs do not take part:
// they are meant to stretch; nor do springs that can break (spring_is_rigid_link).
#include "sb_pool.h"
#include "world_internal.h"

#include <stdlib.h>

// A breakable spring is no link (spring_is_rigid_link): a tether beside it would carry load the
// spring never feels, and a rope rated for a load would hold any load (in the explicit methods
// the tethers hold half of a hanging weight). articulation.c solves its structure whole instead.

typedef struct heap_item { double dist; int node; } heap_item;

// Nearer first; ties by particle slot, so the tethers do not depend on the heap's history.
static inline bool heap_before(heap_item a, heap_item b)
{
    return a.dist < b.dist || (a.dist == b.dist && a.node < b.node);
}

static void heap_push(heap_item *heap, int *n, heap_item item)
{
    int i = (*n)++;
    while (i > 0) {
        int parent = (i - 1) / 2;
        if (heap_before(heap[parent], item))
            break;
        heap[i] = heap[parent];
        i = parent;
    }
    heap[i] = item;
}

static heap_item heap_pop(heap_item *heap, int *n)
{
    heap_item top = heap[0], last = heap[--(*n)];
    int i = 0;
    for (;;) {
        int child = 2 * i + 1;
        if (child >= *n)
            break;
        if (child + 1 < *n && heap_before(heap[child + 1], heap[child]))
            child += 1;
        if (heap_before(last, heap[child]))
            break;
        heap[i] = heap[child];
        i = child;
    }
    heap[i] = last;
    return top;
}

static void tethers_clear(sb_world *w)
{
    w->rigid.tether_count = 0;
    w->rigid.tethers_dirty = false;
}

bool spring_is_rigid_link(const sb_world *w, int s)
{
    return w->s_a[s] >= 0 && w->s_rigid[s] && w->break_stretch[s] == 0.0 && w->break_force[s] == 0.0;
}

/// A rigid spring, breakable or not, where `breakable_too`; else spring_is_rigid_link.
static bool takes_link(const sb_world *w, int s, bool breakable_too)
{
    return breakable_too ? w->s_a[s] >= 0 && w->s_rigid[s] : spring_is_rigid_link(w, s);
}

bool rigid_links_by_particle(const sb_world *w, bool breakable_too, int **first, int *first_cap, int **links, int *links_cap)
{
    const int n = w->p_high;
    if (!array_reserve((void **)first, first_cap, n + 1, sizeof **first))
        return false;
    int *row = *first;
    memset(row, 0, sizeof *row * (size_t)(n + 1));
    int ends = 0;
    for (int s = 0; s < w->s_high; ++s)
        if (takes_link(w, s, breakable_too)) {
            row[w->s_a[s] + 1] += 1;
            row[w->s_b[s] + 1] += 1;
            ends += 2;
        }
    if (!array_reserve((void **)links, links_cap, ends > 0 ? ends : 1, sizeof **links))
        return false;
    for (int i = 0; i < n; ++i)
        row[i + 1] += row[i];
    for (int s = 0; s < w->s_high; ++s)
        if (takes_link(w, s, breakable_too)) {
            (*links)[row[w->s_a[s]]++] = s;
            (*links)[row[w->s_b[s]]++] = s;
        }
    for (int i = n; i > 0; --i) // the fill moved each row start to the next row's start
        row[i] = row[i - 1];
    row[0] = 0;
    return true;
}

// Rebuilds the tethers from the rigid springs and the fixed particles. Without memory the
// world simply runs without tethers (they only speed convergence).
void tethers_build(sb_world *w)
{
    tethers_clear(w);
    const int n = w->p_high;
    if (n == 0)
        return;
    int *first = NULL, *links = NULL, first_cap = 0, links_cap = 0;
    const bool adjacency = rigid_links_by_particle(w, false, &first, &first_cap, &links, &links_cap);
    const int ends = adjacency ? first[n] : 0;
    double *dist = malloc(sizeof *dist * (size_t)n);
    int *source = malloc(sizeof *source * (size_t)n);
    heap_item *heap = malloc(sizeof *heap * (size_t)(ends + n + 1));
    bool grown = ARRAY_GROW(w->rigid.tether_p, n);
    grown = ARRAY_GROW(w->rigid.tether_anchor, n) && grown;
    grown = ARRAY_GROW(w->rigid.tether_length, n) && grown;
    if (!adjacency || !dist || !source || !heap || !grown)
        goto done;

    int heap_n = 0;
    for (int i = 0; i < n; ++i) {
        bool anchor = particle_alive(w, i) && (w->p_flags[i] & PARTICLE_FIXED) != 0;
        dist[i] = anchor ? 0.0 : INFINITY;
        source[i] = anchor ? i : -1;
        if (anchor)
            heap_push(heap, &heap_n, (heap_item){0.0, i});
    }
    while (heap_n > 0) {
        heap_item top = heap_pop(heap, &heap_n);
        if (top.dist > dist[top.node])
            continue; // a stale entry: the node was reached by a shorter path
        for (int e = first[top.node]; e < first[top.node + 1]; ++e) {
            const int s = links[e], next = w->s_a[s] == top.node ? w->s_b[s] : w->s_a[s];
            double d = top.dist + w->rest[s];
            if (d < dist[next]) {
                dist[next] = d;
                source[next] = source[top.node];
                heap_push(heap, &heap_n, (heap_item){d, next});
            }
        }
    }
    for (int i = 0; i < n; ++i) {
        if (source[i] < 0 || source[i] == i || !particle_alive(w, i) || w->inv_mass[i] == 0.0)
            continue;
        w->rigid.tether_p[w->rigid.tether_count] = i;
        w->rigid.tether_anchor[w->rigid.tether_count] = source[i];
        w->rigid.tether_length[w->rigid.tether_count] = dist[i];
        w->rigid.tether_count += 1;
    }
done:
    free(first);
    free(links);
    free(dist);
    free(source);
    free(heap);
}

// Moves each tethered particle that is farther from its anchor than its tether back onto
// the circle, and with `velocities` also removes its velocity away from the anchor (the
// velocity methods; the position methods derive velocity from the positions afterwards).
typedef struct tether_job { sb_world *w; bool velocities; double reach; } tether_job;

// Each tether moves only its own particle (one tether a particle, its anchor fixed), so tethers
// run on the world's threads (sb_pool.h) with the same bits for any count.
static void tethers_range(void *ctx, int from, int to)
{
    const tether_job *job = ctx;
    sb_world *w = job->w;
    const bool velocities = job->velocities;
    sb_vec2 *pos = w->pos, *vel = w->vel;
    for (int t = from; t < to; ++t) {
        int p = w->rigid.tether_p[t], a = w->rigid.tether_anchor[t];
        if (w->contact.art && articulation_holds(w, p))
            continue;
        double dx = pos[p].x - pos[a].x, dy = pos[p].y - pos[a].y;
        double d2 = dx * dx + dy * dy, L = w->rigid.tether_length[t] * job->reach;
        if (d2 <= L * L)
            continue;
        double d = sqrt(d2), ux = dx / d, uy = dy / d;
        pos[p].x = pos[a].x + ux * L;
        pos[p].y = pos[a].y + uy * L;
        if (velocities) {
            double away = (vel[p].x - vel[a].x) * ux + (vel[p].y - vel[a].y) * uy;
            if (away > 0.0) {
                vel[p].x -= away * ux;
                vel[p].y -= away * uy;
            }
        }
    }
}

void tethers_project(sb_world *w, bool velocities)
{
    if (!w->def.tethers || w->rigid.tether_count == 0)
        return;
    // Where the method holds rigid springs itself, a tether leaves the springs their slop (a
    // thousandth of the length, as their position sweeps do): it is there to bound what the
    // iterations leave, and reaching into the slop it would pull the last bead of a straight
    // swinging chain in at every sub-step, against its links, and slow the swing. The explicit methods' rigid springs are Nissen's safe springs, which the tethers hold.
    const double reach = method_kernels(w->def.method)->rigid_springs_explicit ? 1.0 : 1.0 + SB_RIGID_SLOP;
    tether_job job = {w, velocities, reach};
    sb_pool_for(w->pool, w->rigid.tether_count, 1, PARTICLES_PER_THREAD, tethers_range, &job);
}
