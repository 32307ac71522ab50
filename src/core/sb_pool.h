// springbox core: a small fixed pool of worker threads, Box2D v3's pattern of a task
// system reduced to one operation: run a range, split in fixed chunks, and wait for all of it.
#ifndef SB_POOL_H
#define SB_POOL_H

#include <stdbool.h>

/// Worker threads and the caller, running one range at a time. Opaque.
typedef struct sb_pool sb_pool;

/// The work on one chunk [from, to) of a range.
typedef void sb_range_fn(void *ctx, int from, int to);

/// The most threads a pool runs (the caller included).
#define SB_POOL_MAX_THREADS 64

/// Starts threads - 1 workers (threads in 2..SB_POOL_MAX_THREADS); NULL if they cannot start.
sb_pool *sb_pool_create(int threads);
/// Stops and joins the workers.
void sb_pool_destroy(sb_pool *pool);
/// The caller plus the workers.
int sb_pool_threads(const sb_pool *pool);
/// Runs fn over [0, count) in contiguous chunks, one a thread at most and none smaller than
/// `min_per_thread` items (a range of fewer runs on the caller alone), the caller taking the
/// first, and returns when every chunk is done. Every boundary is a multiple of `align`. Items
/// that share no data give the same bits however the range is cut, so for any thread count.
void sb_pool_for(sb_pool *pool, int count, int align, int min_per_thread, sb_range_fn *fn, void *ctx);
/// The work on chunk number `chunk` of a range (chunks are numbered in the range's order).
typedef void sb_chunk_fn(void *ctx, int chunk, int from, int to);
/// sb_pool_for with the chunk's number, for work that writes each chunk's output apart and joins
/// them in order afterwards; returns how many chunks there were (1 on the caller alone).
int sb_pool_for_chunks(sb_pool *pool, int count, int min_per_thread, sb_chunk_fn *fn, void *ctx);
/// sb_pool_for_chunks for work whose cost differs from item to item (a few fast particles among
/// slow ones): up to four chunks a thread, none under `min_per_chunk` items, each taken by the
/// first thread free, so one costly stretch does not keep the others waiting.
int sb_pool_for_chunks_balanced(sb_pool *pool, int count, int min_per_chunk, sb_chunk_fn *fn, void *ctx);
/// sb_pool_for over consecutive segments [starts[s], starts[s + 1]) for s < segments, in one run:
/// each thread takes the chunk of every segment that sb_pool_for would give it for that segment
/// alone, so a pass over a whole range touches, on each thread, what the segment-by-segment
/// passes before and after it touch there (a colour's contacts stay in one core's cache).
void sb_pool_for_segments(sb_pool *pool, int segments, const int *starts, int min_per_thread, sb_range_fn *fn, void *ctx);
/// For tests: while held, workers take no chunk, and the caller runs every range alone.
void sb_pool_hold_workers(sb_pool *pool, bool held);
/// The number of threads the machine has online (at least 1).
int sb_machine_threads(void);

#endif
