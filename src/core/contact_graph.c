// The contact graph, as Box2D v3's constraint_graph.c: each contact takes the last step's warm
// start with its key, then a colour that no other contact of its moving particles has, so a pass
// solves a colour in any order or on any thread with the same bits; the commit keeps the list
// for the next step's warm starts, and the first step's overlaps and the touching count are read.
#include "contact_find_internal.h"
#include "contact_kernels.h"

#include <stdio.h>
#include <stdlib.h>

static const double touching_slop = 1e-3;

/// What a contact's colour was taken from (sb_warm.moves), articulation aside (articulations_find
/// marks it later): which of its ends move, and whether it is a solid spring's.
static uint8_t contact_moves(const sb_world *w, const sb_contact *c)
{
    if (c->b2 >= 0)
        return WARM_SEGMENT;
    return (uint8_t)((w->inv_mass[c->a] > 0.0 ? WARM_A_MOVES : 0) | (c->b >= 0 && w->inv_mass[c->b] > 0.0 ? WARM_B_MOVES : 0));
}

// Warm start from the last committed step: the new list and its warm starts are both sorted by
// key, so a range of the new one finds where its first key would be in the old one and walks
// both from there. Each contact on its own: on the world's threads.
static void warm_range(void *ctx, int from, int to)
{
    sb_world *w = ctx;
    if (from >= to)
        return;
    const sb_warm *warm = w->contact.warm;
    int old = warm_lower_bound(w, w->contact.next[from].key), unmatched = 0;
    for (int k = from; k < to; ++k) {
        sb_contact *c = &w->contact.next[k];
        while (old < w->contact.count && warm[old].key < c->key)
            old += 1;
        if (old < w->contact.count && warm[old].key == c->key) {
            c->normal_impulse = warm[old].normal_impulse;
            c->tangent_impulse = warm[old].tangent_impulse;
            c->rolling_impulse = warm[old].rolling_impulse;
            c->slip = warm[old].slip;
            if (warm[old].side != 0) // a wall's face, once taken, is kept (static_geometry)
                c->side = warm[old].side;
            c->color = warm[old].color;
            unmatched += warm[old].moves != contact_moves(w, c);
            c->fresh = false;
            c->was_touching = warm[old].touching;
            c->was_articulated = (warm[old].moves & WARM_ARTICULATED) != 0;
        } else {
            unmatched += 1;
            c->fresh = true;
            c->was_touching = false;
            c->was_articulated = false;
        }
        c->friction = contact_combined_friction(w, c->a, c->b);
        c->restitution = contact_combined_restitution(w, c->a, c->b);
        c->rolling_resistance = contact_combined_rolling_resistance(w, c->a, c->b);
    }
    if (unmatched > 0) // an integer count: the same total whatever the order
        __atomic_fetch_add(&w->contact.colors_unmatched, unmatched, __ATOMIC_RELAXED);
}

void contacts_match_warm_starts(sb_world *w)
{
    w->contact.colors_unmatched = 0;
    sb_pool_for(w->pool, w->contact.next_count, 1, CONTACTS_PER_THREAD, warm_range, w);
}

// Colours: contacts of one colour share no particle that moves, so a pass
// may solve them in any order, or split over threads, and get the same bits, as the springs'
// graph colours do (solver.c). Each contact takes the lowest colour that neither of its moving
// particles has yet (greedy, in key order, with a 64-bit mask of colours per particle; a pile
// of balls takes about ten). A fixed particle or a wall is never written, so contacts may share
// it within a colour. A solid spring's contact moves three particles and an articulated one a
// whole structure (articulation.c): they go to colour 63,
// with whatever finds the first 63 taken, and colour 63 runs last, in key order, on one thread.
// Every pass runs the colours in order, each in key order: the contacts' Gauss-Seidel order is
// this one for any thread count.

// Each slot written once: on the world's threads.
static void gather_range(void *ctx, int from, int to)
{
    sb_world *w = ctx;
    for (int k = from; k < to; ++k)
        w->contact.scratch[k] = w->contact.next[w->contact.order[k]];
}

void contacts_color(sb_world *w)
{
    const int n = w->contact.next_count;
    w->contact.permuted = false;
    int count[64] = {0};
    if (!ARRAY_RESERVE(w->contact.order, w->contact.order_cap, n > 0 ? n : 1)) {
        w->contact.next_count = 0; // out of memory: no contacts this step (the warm starts are kept)
        memset(w->contact.color_start, 0, sizeof w->contact.color_start);
        return;
    }
    // The same contacts, in the same key order, their ends moving as they did, none articulated
    // now or then: the greedy colouring gives every one the colour it gave it last step, which
    // warm_range has put back (a pile at rest: the colouring was half of this function's time)
    const bool same = w->contact.colors_unmatched == 0 && n == w->contact.count && !articulations_any(w);
    if (same) {
        for (int k = 0; k < n; ++k)
            count[w->contact.next[k].color] += 1;
    } else {
        if (w->p_high > 0)
            memset(w->scratch.contact_mask, 0, sizeof *w->scratch.contact_mask * (size_t)w->p_high);
        const uint64_t below_63 = (1ull << 63) - 1ull;
        for (int k = 0; k < n; ++k) {
            sb_contact *c = &w->contact.next[k];
            int color = 63;
            if (c->b2 < 0 && !c->art) {
                const uint8_t moves = contact_moves(w, c);
                const bool moves_a = moves & WARM_A_MOVES, moves_b = moves & WARM_B_MOVES;
                uint64_t used = (moves_a ? w->scratch.contact_mask[c->a] : 0u) | (moves_b ? w->scratch.contact_mask[c->b] : 0u);
                uint64_t open = ~used & below_63;
                if (open) {
                    color = __builtin_ctzll(open);
                    if (moves_a)
                        w->scratch.contact_mask[c->a] |= 1ull << color;
                    if (moves_b)
                        w->scratch.contact_mask[c->b] |= 1ull << color;
                }
            }
            c->color = color;
            count[color] += 1;
        }
    }
    int start = 0;
    for (int color = 0; color < 64; ++color) {
        w->contact.color_start[color] = start;
        start += count[color];
    }
    w->contact.color_start[64] = start;
    int next[64];
    memcpy(next, w->contact.color_start, sizeof next);
    for (int k = 0; k < n; ++k)
        w->contact.order[next[w->contact.next[k].color]++] = k;
    // The contacts themselves go into colour order, so each pass reads them in memory order: through
    // an index, 150k contacts of a falling 16000-ball pit cost three times as much a step (cache
    // misses). contacts_commit keeps what the warm starts and events need by key.
    if (!ARRAY_RESERVE(w->contact.scratch, w->contact.scratch_cap, n > 0 ? n : 1)) {
        for (int k = 0; k < n; ++k) // out of memory: one colour, in key order, on one thread
            w->contact.next[k].color = 63;
        memset(w->contact.color_start, 0, sizeof w->contact.color_start);
        w->contact.color_start[64] = n;
        return;
    }
    sb_pool_for_segments(w->pool, 64, w->contact.color_start, CONTACTS_PER_THREAD, gather_range, w);
    swap_contact_lists(&w->contact.next, &w->contact.next_cap, &w->contact.scratch, &w->contact.scratch_cap);
    w->contact.permuted = true;
}

// The committed contacts stay in the order their step solved them; their warm starts go by key,
// each with where its contact is: 48 bytes written through contact.order, rather than the whole
// 200-byte contact put back in key order. Each slot written once: on the world's threads.
static void commit_range(void *ctx, int from, int to)
{
    sb_world *w = ctx;
    const bool permuted = w->contact.permuted;
    for (int k = from; k < to; ++k) {
        const sb_contact *c = &w->contact.next[k];
        w->contact.warm[permuted ? w->contact.order[k] : k] =
            (sb_warm){.key = c->key, .normal_impulse = c->normal_impulse, .tangent_impulse = c->tangent_impulse,
                      .rolling_impulse = c->rolling_impulse, .slip = c->slip, .slot = k, .side = (int8_t)c->side, .color = (uint8_t)c->color,
                      .moves = (uint8_t)(contact_moves(w, c) | (c->art ? WARM_ARTICULATED : 0))};
    }
}

void contacts_commit(sb_world *w)
{
    const int n = w->contact.next_count;
    const bool keep = ARRAY_RESERVE(w->contact.warm, w->contact.warm_cap, n > 0 ? n : 1);
    if (keep)
        sb_pool_for_segments(w->pool, 64, w->contact.color_start, CONTACTS_PER_THREAD, commit_range, w);
    swap_contact_lists(&w->contact.list, &w->contact.cap, &w->contact.next, &w->contact.next_cap);
    w->contact.count = keep ? n : 0; // out of memory: no warm starts next step, no contact events
    w->contact.permuted = false;
}

void contacts_report_overlaps(sb_world *w)
{
    sb_stats *st = &w->stats;
    st->overlapping_pairs = st->overlapping_walls = 0;
    st->worst_overlap = st->worst_wall_overlap = 0.0;
    for (int k = 0; k < w->contact.next_count; ++k) {
        const sb_contact *c = &w->contact.next[k];
        if (c->b < 0 && !c->corner && c->shape < SHAPE_BOUND) { // a particle inside a wall
            if (c->separation >= -0.01 * w->radius[c->a])
                continue;
            st->overlapping_walls += 1;
            if (-c->separation > st->worst_wall_overlap) {
                st->worst_wall_overlap = -c->separation;
                st->wall_overlap_particle = (sb_particle_id){(uint32_t)c->a, w->p_gen[c->a]};
                st->overlap_wall = (sb_wall_id){c->shape, w->walls.gen[c->shape]};
            }
            continue;
        }
        if (c->b < 0 || c->b2 >= 0) // particles only: a spring's overlap is its contact's business
            continue;
        double smaller = w->radius[c->a] < w->radius[c->b] ? w->radius[c->a] : w->radius[c->b];
        if (c->separation >= -0.01 * smaller)
            continue;
        st->overlapping_pairs += 1;
        if (-c->separation > st->worst_overlap) {
            st->worst_overlap = -c->separation;
            st->overlap_a = (sb_particle_id){(uint32_t)c->a, w->p_gen[c->a]};
            st->overlap_b = (sb_particle_id){(uint32_t)c->b, w->p_gen[c->b]};
        }
    }
}


// Box2D's b2ShouldShapesCollide: a shared non-zero group decides alone; otherwise categories and
// masks must agree both ways.
bool particles_should_collide(const sb_world *w, int a, int b)
{
    if (w->group[a] == w->group[b] && w->group[a] != 0)
        return w->group[a] > 0;
    return (w->category[a] & w->mask[b]) != 0 && (w->category[b] & w->mask[a]) != 0;
}

typedef struct touching_job { sb_world *w; int count[SB_POOL_MAX_THREADS]; } touching_job;

static void touching_range(void *ctx, int chunk, int from, int to)
{
    touching_job *job = ctx;
    sb_world *w = job->w;
    int n = 0;
    for (int k = from; k < to; ++k) {
        sb_warm *warm = &w->contact.warm[k];
        sb_contact now = w->contact.list[warm->slot];
        contact_geometry(w, &now);
        warm->touching = now.separation < (now.was_touching ? 2.0 : 1.0) * touching_slop;
        n += warm->touching;
    }
    job->count[chunk] = n;
}

int contacts_touching(sb_world *w)
{
    touching_job job = {.w = w};
    const int chunks = sb_pool_for_chunks(w->pool, w->contact.count, CONTACTS_PER_THREAD, touching_range, &job);
    int n = 0;
    for (int k = 0; k < chunks; ++k)
        n += job.count[k];
    return n;
}

void contact_lists_free(sb_world *w)
{
    sb_contact_lists *c = &w->contact;
    FREE_ARRAYS(c->list, c->next, c->warm, c->order, c->scratch, c->segments);
    for (int k = 0; k < SB_POOL_MAX_THREADS; ++k)
        free(c->chunks[k]);
    articulations_free(w);
}
