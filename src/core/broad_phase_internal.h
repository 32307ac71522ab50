// The broad phase's part of the world (contact_find.c builds it; the narrow phase, the stops and
// the sweeps read it): the grid of cells, the pairs list a step may reuse, and the stops' scratch.
#ifndef SB_BROAD_PHASE_INTERNAL_H
#define SB_BROAD_PHASE_INTERNAL_H

#include "contact_internal.h"
#include "sb_pool.h"
#include "sb_types.h"

/// A particle in the broad phase's grid, with what the narrow phase reads of it, so that a
/// bucket's candidates are read in memory order (contact_find.c).
typedef struct grid_entry { double x, y, vx, vy, radius, reach; int index, cx, cy; } grid_entry;
/// The velocities of a block of grid cells lie within lo..hi (contacts_build).
typedef struct velocity_box { double lo_x, hi_x, lo_y, hi_y; } velocity_box;
/// What a particle's contacts may do to it this frame (contact_stops.c): bring its velocity to
/// any in `box`, from `time` (s) into the frame on, pushed by something of inverse mass inv_pusher
/// at most (its own, or the heaviest that may push it).
typedef struct particle_stop { velocity_box box; double time, inv_pusher; } particle_stop;
/// A partner a walking particle may meet this frame, as the frame found it (contact_stops.c): the
/// unit normal from the particle to it, the squared distance between their centres (bit for bit
/// the narrow phase's), the gap between their surfaces, the partner's velocity along the normal.
typedef struct stop_partner { sb_vec2 normal; double d2, gap, along; int index; } stop_partner;

/// All of it is rebuilt by the steps that need it: a snapshot leaves it out.
typedef struct sb_broad_phase {
    // The grid, rebuilt each step by counting sort (contact_grid.h).
    int grid_size;            // buckets, power of two
    bool grid_dense;          // the occupied cells fit: bucket = row-major cell in grid_x0.. (else hashed)
    int grid_x0, grid_y0, grid_nx, grid_ny;
    int *grid_start, *grid_items, *cell_x, *cell_y; // cell_x, cell_y: per particle, sized with p_cap
    int grid_items_cap;
    grid_entry *grid_entries; // grid_items with what the narrow phase reads of each, side by side
    velocity_box *block_velocity; // grid_size: each block of cells' velocities, while things move fast
    int block_x0, block_y0, block_nx, block_ny; // the blocks' box, row by row in block_velocity (nx 0: by hash)
    double grid_cell;         // m: the side of the grid's cells when it last ran
    // The pairs list (a Verlet list): when the grid runs, each particle's partners j > i
    // within its reach plus `pair_skin`, sorted; a step reuses them, without the grid, while no
    // particle has moved, grown or widened its reach by half the skin since (contacts_build).
    int *pairs_list, pairs_list_count, pairs_list_cap;
    int *pairs_start;         // p_high + 1: where each particle's partners begin in pairs_list
    sb_vec2 *pairs_pos;       // each particle's position, reach and radius when the list was made
    double *pairs_reach, *pairs_radius;
    uint8_t *pairs_collides;  // and whether it was in the grid
    int pairs_cap;            // of the per-particle arrays above
    int pairs_p_high;         // p_high when the list was made
    double pair_skin;         // m
    double pairs_reach_cap;   // the most a pair's reach could be when the list was made (pair_reach)
    bool pairs_valid;         // the list may be reused
    int *chunk_pairs[SB_POOL_MAX_THREADS]; // the narrow phase's chunks' partners past the first
    int chunk_pair_count[SB_POOL_MAX_THREADS], chunk_pair_cap[SB_POOL_MAX_THREADS];
    bool chunk_pairs_overflow[SB_POOL_MAX_THREADS]; // a chunk could not keep all its partners (no reuse)
    // Stops that travel (contacts_build, stops_list_pairs): the velocities each particle's contacts
    // may bring it to this frame, and the scratch that carries them to its partners.
    particle_stop *stop;
    int *stop_queue;
    uint8_t *stop_queued;
    sb_contact *stop_contacts;  // the pairs and walls the stops listed, merged in by key
    int stop_contact_count, stop_contact_cap;
    int *stop_cand_at, *stop_cand_n; // each walking particle's partners in stop_cands (-1: not found yet)
    stop_partner *stop_cands;
    int stop_cand_count, stop_cand_cap;
    // What tests read and set.
    int pairs_builds;         // how many times the grid has made the list
    bool grid_simple;         // the grid at its simplest, the tests' reference: hashed cells of the fastest pair's reach
    bool stops_last_first;    // the stops' walk takes the particle queued last first (contact_stops.c)
    int wide_searches;        // particles that searched past the 3 x 3 cells around them, last step
    int chunk_wide_searches[SB_POOL_MAX_THREADS]; // the narrow phase's chunks' wide_searches
    long walls_met;           // walls the narrow phase's particles were tested against, last step
    bool walls_unindexed;     // no walls' broad phase (every particle meets every wall)
    long chunk_walls_met[SB_POOL_MAX_THREADS]; // the narrow phase's chunks' walls_met
} sb_broad_phase;
void broad_phase_free(sb_broad_phase *b); // contact_find.c

#endif
