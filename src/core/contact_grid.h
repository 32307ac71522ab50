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
    if (!w->grid_dense)
        return cell_hash(cx, cy, w->grid_size);
    return row_or_last((long long)cx - w->grid_x0, (long long)cy - w->grid_y0, w->grid_nx, w->grid_ny, w->grid_size);
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
    if (w->block_nx == 0)
        return &w->block_velocity[cell_hash(bx, by, w->grid_size)];
    return &w->block_velocity[row_or_last((long long)bx - w->block_x0, (long long)by - w->block_y0, w->block_nx, w->block_ny, w->grid_size)];
}

/// The block of cells that particle i is in, `block` cells a side.
static inline void block_of(const sb_world *w, int i, int block, int *bx, int *by)
{
    *bx = floor_div(w->cell_x[i], block);
    *by = floor_div(w->cell_y[i], block);
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
