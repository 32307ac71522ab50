// Threads: a world steps on any number of threads with the same bits, in every method,
// and the pool runs every item of a range exactly once, in chunks that depend only on the range.
#include "ensure.h"
#include "sb_constraint.h"
#include "sb_pool.h"
#include "sb_samples.h"
#include "sb_tuning.h"
#include "sb_world.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


static sb_vec2 v2(double x, double y) { return (sb_vec2){x, y}; }

/// A busy world: a cloth of 40 x 40 rigid and tuned springs pinned at two corners (big enough
/// that every threaded pass splits), a rope, free balls that roll in a U of walls, a driven
/// wheel, an area constraint and a drag.
static sb_world *busy_world(sb_method m, int substeps, int threads)
{
    sb_world_def def = sb_default_world_def();
    def.method = m;
    def.substeps = substeps;
    def.threads = threads;
    sb_world *w = sb_world_create(&def);
    sb_world_add_wall(w, v2(-6, -8), v2(-6, 4), NULL);
    sb_world_add_wall(w, v2(-6, -8), v2(6, -8), NULL);
    sb_world_add_wall(w, v2(6, -8), v2(6, 4), NULL);
    enum { N = 40 };
    static sb_particle_id grid[N][N];
    for (int y = 0; y < N; ++y)
        for (int x = 0; x < N; ++x) {
            sb_particle_def p = sb_default_particle_def();
            p.position = v2(-2 + 0.1 * x + 0.03 * y, 3 - 0.1 * y);
            p.radius = 0.04;
            p.fixed = y == 0 && (x == 0 || x == N - 1);
            grid[y][x] = sb_world_add_particle(w, &p, NULL);
            sb_spring_def s = sb_default_spring_def();
            if (x > 0) {
                s.a = grid[y][x - 1];
                s.b = grid[y][x];
                if ((x + y) % 3 == 0)
                    s.tuning = sb_tuning_hertz(12.0, 0.3);
                sb_world_add_spring(w, &s, NULL, NULL);
            }
            if (y > 0) {
                s = sb_default_spring_def();
                s.a = grid[y - 1][x];
                s.b = grid[y][x];
                sb_world_add_spring(w, &s, NULL, NULL);
            }
        }
    for (int i = 0; i < 60; ++i) {
        sb_particle_def p = sb_default_particle_def();
        p.position = v2(-5 + 0.35 * (i % 28), -5 + 0.4 * (i / 28));
        p.radius = 0.12;
        p.angular_velocity = i % 5 - 2.0;
        sb_world_add_particle(w, &p, NULL);
    }
    sb_particle_def wheel = sb_default_particle_def();
    wheel.position = v2(0, -7.5);
    wheel.radius = 0.4;
    wheel.fixed = true;
    wheel.angular_velocity = 5.0;
    sb_world_add_particle(w, &wheel, NULL);
    sb_particle_id ring[8];
    for (int i = 0; i < 8; ++i) {
        sb_particle_def p = sb_default_particle_def();
        p.position = v2(4 + 0.5 * cos(i * 0.785398), 0 + 0.5 * sin(i * 0.785398));
        ring[i] = sb_world_add_particle(w, &p, NULL);
        if (i > 0) {
            sb_spring_def s = sb_default_spring_def();
            s.a = ring[i - 1];
            s.b = ring[i];
            s.tuning = sb_tuning_hertz(8.0, 0.5);
            sb_world_add_spring(w, &s, NULL, NULL);
        }
    }
    sb_constraint_def area = sb_default_constraint_def();
    area.kind = SB_CONSTRAINT_AREA;
    area.particles = ring;
    area.count = 8;
    sb_world_add_constraint(w, &area, NULL, NULL);
    sb_world_drag_begin(w, grid[N - 1][N / 2], v2(1, -4), 5.0, 0.7);
    return w;
}

// Every method at 1 and 4 sub-steps: the same world on 1, 2, 3 and 8 threads has the same state
// hash after every one of 30 frames (the threaded passes: the soft springs' colours, the rigid
// sweeps, the spring geometry, integration, gravity and forces, tethers, and the contacts'
// colours in every pass of every method).
TEST(every_thread_count_gives_the_same_bits)
{
    const int counts[] = {2, 3, 8};
    for (int m = 0; m < SB_METHOD_COUNT; ++m)
        for (int substeps = 1; substeps <= 4; substeps += 3) {
            sb_world *one = busy_world((sb_method)m, substeps, 1);
            sb_world *many[3];
            for (int k = 0; k < 3; ++k)
                many[k] = busy_world((sb_method)m, substeps, counts[k]);
            for (int f = 0; f < 30; ++f) {
                sb_world_step(one);
                uint64_t want = sb_world_state_hash(one);
                for (int k = 0; k < 3; ++k) {
                    sb_world_step(many[k]);
                    if (sb_world_state_hash(many[k]) != want)
                        printf("  %s, %d sub-steps, %d threads: differs at frame %d\n", sb_method_name((sb_method)m), substeps,
                               counts[k], f);
                    ENSURE(sb_world_state_hash(many[k]) == want);
                }
            }
            ENSURE(!sb_world_get_stats(one)->halted);
            sb_world_destroy(one);
            for (int k = 0; k < 3; ++k)
                sb_world_destroy(many[k]);
        }
    return 0;
}

// The built-in 96 x 96 cloth (the benchmark's) on 1 and 2 threads, and a world whose thread
// count changes while it runs, and one restored from a snapshot taken on another count: the
// same bits.
TEST(threads_change_nothing_but_the_time)
{
    sb_world_def def = sb_default_world_def();
    const sb_sample *cloth = sb_sample_find("cloth");
    sb_world *a = cloth->build(&def, 96);
    def.threads = 2;
    sb_world *b = cloth->build(&def, 96);
    for (int f = 0; f < 60; ++f) {
        sb_world_step(a);
        sb_world_step(b);
        if (f == 20) { // b goes to 4 threads, then back to 1, then to 2
            sb_world_def d = sb_world_get_def(b);
            d.threads = 4;
            ENSURE(sb_world_set_def(b, &d, NULL) == SB_OK);
        } else if (f == 30) {
            sb_world_def d = sb_world_get_def(b);
            d.threads = 1;
            sb_world_set_def(b, &d, NULL);
        } else if (f == 40) {
            sb_world_def d = sb_world_get_def(b);
            d.threads = 2;
            sb_world_set_def(b, &d, NULL);
        }
        ENSURE(sb_world_state_hash(a) == sb_world_state_hash(b));
    }
    sb_snapshot *snap = sb_world_snapshot(a); // taken on 1 thread, restored into b (2 threads)
    for (int f = 0; f < 10; ++f)
        sb_world_step(b);
    ENSURE(sb_world_restore(b, snap) == SB_OK);
    ENSURE(sb_world_get_def(b).threads == 2); // threads are the machine's: the world keeps its own
    for (int f = 0; f < 30; ++f) {
        sb_world_step(a);
        sb_world_step(b);
        ENSURE(sb_world_state_hash(a) == sb_world_state_hash(b));
    }
    sb_snapshot_destroy(snap);
    sb_world_destroy(a);
    sb_world_destroy(b);
    sb_world_def bad = sb_default_world_def();
    const char *field = NULL;
    bad.threads = 0;
    ENSURE(sb_world_def_check(&bad, &field) != SB_OK && field && strcmp(field, "threads") == 0);
    bad.threads = SB_POOL_MAX_THREADS + 1;
    ENSURE(sb_world_def_check(&bad, &field) != SB_OK);
    return 0;
}

typedef struct tally { int *hits; int align; int bad_alignment; } tally;

static void count_range(void *ctx, int from, int to)
{
    tally *t = ctx;
    if (from % t->align != 0)
        t->bad_alignment = 1; // each chunk writes only its own items: no race on hits
    for (int i = from; i < to; ++i)
        t->hits[i] += 1;
}

// Every item of a range runs exactly once, on chunks aligned as asked, for ranges from 0 to
// 5000 on 2 to 16 threads, and for ranges too small to split.
TEST(the_pool_runs_every_item_once)
{
    for (int threads = 2; threads <= 16; threads *= 2) {
        sb_pool *pool = sb_pool_create(threads);
        ENSURE(pool && sb_pool_threads(pool) == threads);
        for (int count = 0; count <= 5000; count += count < 20 ? 1 : 997) {
            for (int align = 1; align <= 4; align *= 4) {
                int *hits = calloc((size_t)count + 1, sizeof *hits);
                tally t = {hits, align, 0};
                sb_pool_for(pool, count, align, 1, count_range, &t);
                for (int i = 0; i < count; ++i)
                    ENSURE(hits[i] == 1);
                ENSURE(!t.bad_alignment);
                free(hits);
            }
        }
        sb_pool_destroy(pool);
    }
    ENSURE(sb_pool_create(1) == NULL && sb_pool_create(SB_POOL_MAX_THREADS + 1) == NULL);
    ENSURE(sb_machine_threads() >= 1);
    return 0;
}

/// Notes each item's chunk number, and each chunk's range.
typedef struct chunk_notes { int *chunk_of; int from[SB_POOL_MAX_THREADS], to[SB_POOL_MAX_THREADS]; } chunk_notes;

static void note_chunk(void *ctx, int chunk, int from, int to)
{
    chunk_notes *n = ctx;
    n->from[chunk] = from;
    n->to[chunk] = to;
    for (int i = from; i < to; ++i)
        n->chunk_of[i] += chunk + 1; // each chunk writes only its own items
}

// A balanced range (work whose cost differs from item to item) runs every item once, in up to
// four chunks a thread, none under its least size unless the range is that small, numbered in
// the range's order: chunk k covers [from_k, from_k+1), so outputs joined in chunk order are in
// item order. Ranges from 0 to 20000 on 1 (no pool), 2, 3 and 16 threads.
TEST(a_balanced_range_runs_every_item_once_in_ordered_chunks)
{
    const int thread_counts[] = {1, 2, 3, 16};
    for (int t = 0; t < 4; ++t) {
        sb_pool *pool = thread_counts[t] > 1 ? sb_pool_create(thread_counts[t]) : NULL;
        ENSURE(thread_counts[t] == 1 || pool);
        for (int count = 0; count <= 20000; count += count < 20 ? 1 : 1999) {
            chunk_notes n = {calloc((size_t)count + 1, sizeof(int)), {0}, {0}};
            const int chunks = sb_pool_for_chunks_balanced(pool, count, 256, note_chunk, &n);
            ENSURE(count == 0 ? chunks == 0 : chunks >= 1);
            ENSURE(chunks <= 4 * thread_counts[t] && chunks <= SB_POOL_MAX_THREADS);
            ENSURE(chunks <= 1 || count / chunks >= 256 - 1);
            for (int k = 0; k < chunks; ++k) {
                ENSURE(n.from[k] == (k == 0 ? 0 : n.to[k - 1]));
                for (int i = n.from[k]; i < n.to[k]; ++i)
                    ENSURE(n.chunk_of[i] == k + 1);
            }
            ENSURE(chunks == 0 || n.to[chunks - 1] == count);
            free(n.chunk_of);
        }
        sb_pool_destroy(pool);
    }
    return 0;
}

/// Notes, for each item, the range [from, to) of the call that ran it.
typedef struct ranges { int *from, *to; } ranges;

static void note_range(void *ctx, int from, int to)
{
    ranges *r = ctx;
    for (int i = from; i < to; ++i) {
        r->from[i] = from;
        r->to[i] = to;
    }
}

// A pass over several segments at once (the contacts' colours, one job) runs every item once,
// in the chunk that the segment-by-segment pass gives it, and chunk k is the one thread k tries
// first: a colour's contacts stay in one core's cache from the passes over all of them to the
// passes colour by colour. Segments that are empty, too small to split, and as large as the
// pit's colours, on 2, 3 and 8 threads.
TEST(a_pass_over_segments_gives_each_item_the_chunk_its_segment_would)
{
    const int sizes[] = {0, 5, 2006, 0, 1881, 447, 38, 1, 129, 256, 257, 3000};
    const int segments = (int)(sizeof sizes / sizeof sizes[0]);
    int starts[sizeof sizes / sizeof sizes[0] + 1] = {0};
    for (int s = 0; s < segments; ++s)
        starts[s + 1] = starts[s] + sizes[s];
    const int total = starts[segments];
    const int threads_tried[] = {2, 3, 8};
    for (int t = 0; t < 3; ++t) {
        sb_pool *pool = sb_pool_create(threads_tried[t]);
        ENSURE(pool);
        int *hits = calloc((size_t)total, sizeof *hits);
        ranges whole = {calloc((size_t)total, sizeof(int)), calloc((size_t)total, sizeof(int))};
        ranges alone = {calloc((size_t)total, sizeof(int)), calloc((size_t)total, sizeof(int))};
        tally count = {hits, 1, 0};
        sb_pool_for_segments(pool, segments, starts, 128, count_range, &count);
        sb_pool_for_segments(pool, segments, starts, 128, note_range, &whole);
        for (int s = 0; s < segments; ++s) {
            ranges here = {alone.from + starts[s], alone.to + starts[s]};
            sb_pool_for(pool, sizes[s], 1, 128, note_range, &here);
        }
        for (int i = 0; i < total; ++i)
            ENSURE(hits[i] == 1);
        for (int s = 0; s < segments; ++s) // the same cut within each segment
            for (int i = starts[s]; i < starts[s + 1]; ++i) {
                ENSURE(whole.from[i] == alone.from[i] + starts[s]);
                ENSURE(whole.to[i] == alone.to[i] + starts[s]);
            }
        ENSURE(whole.to[starts[2]] < starts[3]); // the 2006 items were cut between threads
        free(hits);
        free(whole.from);
        free(whole.to);
        free(alone.from);
        free(alone.to);
        sb_pool_destroy(pool);
    }
    // without a pool, on the caller, in order
    int hits[10] = {0};
    const int starts_small[] = {0, 4, 4, 10};
    sb_pool_for_segments(NULL, 3, starts_small, 1, count_range, &(tally){hits, 1, 0});
    for (int i = 0; i < 10; ++i)
        ENSURE(hits[i] == 1);
    return 0;
}

typedef struct owners { pthread_t *by; } owners;

static void note_owner(void *ctx, int from, int to)
{
    owners *o = ctx;
    for (int i = from; i < to; ++i)
        o->by[i] = pthread_self();
}

// The caller never waits for a worker that has not started: with every worker held (as a busy
// machine holds a descheduled one for its time slice), ranges of every size and passes over
// segments still finish, each item once, all of them on the caller. Before, the caller waited
// for each worker to take its chunk: this test hung, and a 41-ball scene on two threads took 7.9
// ms a step against 0.06 ms on one while two other programs kept both cores busy.
TEST(the_caller_finishes_what_no_worker_takes)
{
    const int threads_tried[] = {2, 3, 8};
    for (int t = 0; t < 3; ++t) {
        sb_pool *pool = sb_pool_create(threads_tried[t]);
        ENSURE(pool);
        sb_pool_hold_workers(pool, true);
        const pthread_t me = pthread_self();
        for (int count = 1; count <= 5000; count += 499) {
            int *hits = calloc((size_t)count, sizeof *hits);
            pthread_t *by = calloc((size_t)count, sizeof *by);
            sb_pool_for(pool, count, 4, 1, count_range, &(tally){hits, 4, 0});
            sb_pool_for(pool, count, 1, 1, note_owner, &(owners){by});
            for (int i = 0; i < count; ++i) {
                ENSURE(hits[i] == 1);
                ENSURE(pthread_equal(by[i], me));
            }
            const int starts[] = {0, count / 3, count};
            sb_pool_for_segments(pool, 2, starts, 1, count_range, &(tally){hits, 1, 0});
            for (int i = 0; i < count; ++i)
                ENSURE(hits[i] == 2);
            free(hits);
            free(by);
        }
        sb_pool_hold_workers(pool, false); // and the workers take chunks again
        int hits[4000] = {0};
        for (int run = 0; run < 200; ++run)
            sb_pool_for(pool, 4000, 1, 1, count_range, &(tally){hits, 1, 0});
        for (int i = 0; i < 4000; ++i)
            ENSURE(hits[i] == 200);
        sb_pool_destroy(pool);
    }
    return 0;
}

static const test_entry tests[] = {
    ENTRY(every_thread_count_gives_the_same_bits),
    ENTRY(threads_change_nothing_but_the_time),
    ENTRY(the_pool_runs_every_item_once),
    ENTRY(a_balanced_range_runs_every_item_once_in_ordered_chunks),
    ENTRY(a_pass_over_segments_gives_each_item_the_chunk_its_segment_would),
    ENTRY(the_caller_finishes_what_no_worker_takes),
};

int main(int argc, char **argv) { return run_tests(argc, argv, tests, sizeof tests / sizeof tests[0]); }
