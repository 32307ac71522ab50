// The broad phase's grid (contact_find.c builds it; the narrow phase, the stops and the sweeps
// read it): which particles it holds, their cells and the cells' buckets, and the blocks of cells
// whose velocities tell how far a particle searches.
#ifndef SB_CONTACT_GRID_H
#define SB_CONTACT_GRID_H

#include "world_internal.h"

#include <math.h>

static inline unsigned cell_hash(int cx, int cy, int size)
{
    return ((unsigned)cx * 73856093u ^ (unsigned)cy * 19349663u) & (unsigned)(size - 1);
}

/// Entry (x, y) of an nx x ny box kept row by row in `size` entries, or the last entry for a point
/// outside the box (nx * ny < size keeps it empty).
static inline unsigned row_or_last(long long x, long long y, int nx, int ny, int size)
{
    return x >= 0 && x < nx && y >= 0 && y < ny ? (unsigned)(y * nx + x) : (unsigned)size - 1;
}

/// The bucket of cell (cx, cy): while the occupied cells' box fits in the buckets, row by row
/// (neighbouring cells side by side in memory, and no two cells sharing a bucket), with every
/// cell outside the box in the last bucket, which stays empty; else hashed.
static inline unsigned grid_bucket(const sb_world *w, int cx, int cy)
{
    const sb_broad_phase *b = &w->broad;
    if (!b->grid_dense)
        return cell_hash(cx, cy, b->grid_size);
    return row_or_last((long long)cx - b->grid_x0, (long long)cy - b->grid_y0, b->grid_nx, b->grid_ny, b->grid_size);
}

static inline int cell_coord(double x, double inv_cell)
{
    double c = floor(x * inv_cell);
    return c < -1e9 ? -1000000000 : c > 1e9 ? 1000000000 : (int)c;
}

/// A particle that collides with particles: alive, colliding and with a radius (the grid holds it).
static inline bool in_grid(const sb_world *w, int i)
{
    return particle_alive(w, i) && (w->p_flags[i] & PARTICLE_COLLIDE) && w->radius[i] > 0.0;
}

static inline int floor_div(int a, int b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

/// The velocities of block (bx, by) of the grid: row by row while the occupied blocks' box fits
/// (a block outside it has the last entry, which stays empty), else hashed like cells (colliding
/// blocks share a box, which widens it: a particle searches farther, and finds the same pairs).
static inline velocity_box *block_at(const sb_world *w, int bx, int by)
{
    const sb_broad_phase *b = &w->broad;
    if (b->block_nx == 0)
        return &b->block_velocity[cell_hash(bx, by, b->grid_size)];
    return &b->block_velocity[row_or_last((long long)bx - b->block_x0, (long long)by - b->block_y0, b->block_nx, b->block_ny, b->grid_size)];
}

/// The block of cells that particle i is in, `block` cells a side.
static inline void block_of(const sb_world *w, int i, int block, int *bx, int *by)
{
    *bx = floor_div(w->broad.cell_x[i], block);
    *by = floor_div(w->broad.cell_y[i], block);
}

/// Widens box a to hold box b.
static inline void box_take(velocity_box *a, velocity_box b)
{
    a->lo_x = b.lo_x < a->lo_x ? b.lo_x : a->lo_x;
    a->hi_x = b.hi_x > a->hi_x ? b.hi_x : a->hi_x;
    a->lo_y = b.lo_y < a->lo_y ? b.lo_y : a->lo_y;
    a->hi_y = b.hi_y > a->hi_y ? b.hi_y : a->hi_y;
}

#endif
