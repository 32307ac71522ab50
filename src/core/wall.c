// Walls: segments and polylines a particle's centre never crosses (contact_bounds.c holds them), with
// their handles.
#include "sb_tuning.h"
#include "sb_pool.h"
#include "world_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

sb_wall_id sb_world_add_wall(sb_world *w, sb_vec2 a, sb_vec2 b, sb_status *status)
{
    sb_wall_id id = {SB_NULL_INDEX, 0};
    if (!in_world(a) || !in_world(b)) {
        if (status)
            *status = SB_ERR_INVALID;
        return id;
    }
    // Walls are few; slots are never reused, so a handle is stale once removed. A wall made after a
    // restore takes the next number never given (walls.made), the slots between staying empty.
    int i = w->walls.high > w->walls.made ? w->walls.high : w->walls.made;
    if (i >= w->walls.cap) {
        int cap = w->walls.cap ? w->walls.cap : 16;
        while (cap <= i)
            cap *= 2;
        sb_walls *ws = &w->walls;
        if (!ARRAY_GROW(ws->a, cap) || !ARRAY_GROW(ws->b, cap) || !ARRAY_GROW(ws->gen, cap) || !ARRAY_GROW(ws->alive_flag, cap) ||
            !ARRAY_GROW(ws->one_sided, cap) || !ARRAY_GROW(ws->nb, 2 * cap) || !ARRAY_GROW(ws->chain, cap)) {
            if (status)
                *status = SB_ERR_NO_MEMORY;
            return id;
        }
        w->walls.cap = cap;
    }
    for (int k = w->walls.high; k < i; ++k) {
        w->walls.a[k] = w->walls.b[k] = v2(0.0, 0.0);
        w->walls.gen[k] = 1;
        w->walls.alive_flag[k] = 0;
        w->walls.one_sided[k] = 0;
        w->walls.nb[2 * k] = w->walls.nb[2 * k + 1] = -1;
        w->walls.chain[k] = k;
    }
    w->walls.high = w->walls.made = i + 1;
    w->walls.a[i] = a;
    w->walls.b[i] = b;
    w->walls.gen[i] = 1;
    w->walls.alive_flag[i] = 1;
    w->walls.one_sided[i] = 0;
    w->walls.chain[i] = i; // linked to its neighbours before the next contacts (link_walls)
    w->walls.alive += 1;
    w->walls.dirty = true;
    w->walls.version += 1;
    if (status)
        *status = SB_OK;
    id.index = (uint32_t)i;
    id.generation = 1;
    return id;
}

static int wall_slot(const sb_world *w, sb_wall_id id)
{
    if (id.index >= (uint32_t)w->walls.high || !w->walls.alive_flag[id.index] || w->walls.gen[id.index] != id.generation)
        return -1;
    return (int)id.index;
}

sb_status sb_world_remove_wall(sb_world *w, sb_wall_id id)
{
    int i = wall_slot(w, id);
    if (i < 0)
        return SB_ERR_STALE;
    w->walls.alive_flag[i] = 0;
    w->walls.gen[i] += 1;
    w->walls.alive -= 1;
    w->walls.dirty = true;
    w->walls.version += 1;
    return SB_OK;
}

sb_status sb_wall_set(sb_world *w, sb_wall_id id, sb_vec2 a, sb_vec2 b)
{
    int i = wall_slot(w, id);
    if (i < 0)
        return SB_ERR_STALE;
    if (!in_world(a) || !in_world(b))
        return SB_ERR_INVALID;
    w->walls.a[i] = a;
    w->walls.b[i] = b;
    w->walls.dirty = true; // its chain joints are found again
    w->walls.version += 1;
    return SB_OK;
}

sb_status sb_wall_set_one_sided(sb_world *w, sb_wall_id id, bool one_sided)
{
    int i = wall_slot(w, id);
    if (i < 0)
        return SB_ERR_STALE;
    w->walls.one_sided[i] = one_sided;
    return SB_OK;
}

bool sb_wall_is_one_sided(const sb_world *w, sb_wall_id id)
{
    int i = wall_slot(w, id);
    return i >= 0 && w->walls.one_sided[i];
}

int sb_world_add_polyline(sb_world *w, const sb_vec2 *points, int count, bool closed, bool one_sided, sb_wall_id *walls,
                          sb_status *status)
{
    int n = 0, segments = count < 2 ? 0 : closed && count > 2 ? count : count - 1;
    sb_status st = count < 2 ? SB_ERR_INVALID : SB_OK;
    for (int k = 0; k < count && st == SB_OK; ++k)
        st = in_world(points[k]) ? SB_OK : SB_ERR_INVALID;
    for (int k = 0; k < segments && st == SB_OK; ++k) {
        sb_wall_id id = sb_world_add_wall(w, points[k], points[(k + 1) % count], &st);
        if (st != SB_OK)
            break;
        w->walls.one_sided[id.index] = one_sided;
        if (walls)
            walls[n] = id;
        n += 1;
    }
    if (status)
        *status = st;
    return n;
}

int sb_world_wall_count(const sb_world *w) { return w->walls.alive; }

uint64_t sb_world_walls_version(const sb_world *w) { return w->walls.version; }

int sb_world_query_walls(const sb_world *w, sb_bounds box, sb_wall_id *out, int capacity)
{
    int n = 0;
    if (w->walls.tree && !w->walls.dirty) { // the broad phase, as the last step built it
        int *slots = capacity > 0 ? malloc(sizeof *slots * (size_t)capacity) : NULL;
        n = wall_tree_query(w, box.xmin, box.ymin, box.xmax, box.ymax, slots, slots ? capacity : 0);
        for (int k = 0; k < n && k < capacity; ++k)
            out[k] = (sb_wall_id){(uint32_t)slots[k], w->walls.gen[slots[k]]};
        free(slots);
        return n;
    }
    for (int i = 0; i < w->walls.high; ++i) { // walls changed since: each one
        sb_vec2 a = w->walls.a[i], b = w->walls.b[i];
        if (!w->walls.alive_flag[i] || fmax(a.x, b.x) < box.xmin || fmin(a.x, b.x) > box.xmax || fmax(a.y, b.y) < box.ymin ||
            fmin(a.y, b.y) > box.ymax)
            continue;
        if (n < capacity)
            out[n] = (sb_wall_id){(uint32_t)i, w->walls.gen[i]};
        n += 1;
    }
    return n;
}

sb_status sb_wall_get(const sb_world *w, sb_wall_id id, sb_vec2 *a, sb_vec2 *b)
{
    int i = wall_slot(w, id);
    if (i < 0)
        return SB_ERR_STALE;
    *a = w->walls.a[i];
    *b = w->walls.b[i];
    return SB_OK;
}

bool sb_world_next_wall(const sb_world *w, sb_wall_id *it)
{
    int start = it->index == SB_NULL_INDEX ? 0 : (int)it->index + 1;
    for (int i = start; i < w->walls.high; ++i) {
        if (w->walls.alive_flag[i]) {
            it->index = (uint32_t)i;
            it->generation = w->walls.gen[i];
            return true;
        }
    }
    return false;
}

void walls_free(sb_world *w)
{
    sb_walls *ws = &w->walls;
    FREE_ARRAYS(ws->a, ws->b, ws->gen, ws->alive_flag, ws->one_sided, ws->nb, ws->chain);
    wall_tree_free(w);
}
