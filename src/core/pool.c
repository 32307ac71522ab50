// The worker pool (sb_pool.h). Each run publishes a job: its generation and chunk count in one
// atomic word. Every thread, the caller included, claims chunks by generation (a chunk's claim
// moves from an older generation to the job's, once) and runs what it claimed: a worker tries
// its own chunk first, the caller chunk 0 and then whatever no worker has taken. So the caller
// never waits for a worker that has not started (on a busy machine a descheduled worker would
// hold every pass of a step for its time slice); it waits only for chunks a worker is running. Workers spin on the word for a short while (a
// sub-step's passes follow each other within microseconds, and a sleeping worker takes tens of
// microseconds to wake), then sleep on a condition variable. Which thread runs a chunk changes
// no bit: chunks share no data. Only integers are shared atomically: no float is ever reduced
// across threads.
#include "sb_pool.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

typedef struct worker {
    sb_pool *pool;
    int index; // 1.. threads - 1: its chunk
    pthread_t thread;
} worker;

struct sb_pool {
    int threads;
    worker workers[SB_POOL_MAX_THREADS];
    // the job of the current generation, written by the caller before it publishes `job`
    sb_range_fn *fn;
    sb_chunk_fn *chunk_fn; // instead of fn: told its chunk's number
    void *ctx;
    int count, align;
    uint64_t generation;                                 // the caller's: the last job published
    _Atomic uint64_t job;                                // generation << 16 | chunks (<= threads)
    _Atomic uint64_t claimed[SB_POOL_MAX_THREADS];       // the generation that took chunk k
    atomic_int done;                                     // chunks of the job finished
    atomic_bool stop;
    atomic_bool held;                                    // sb_pool_hold_workers
    pthread_mutex_t lock;
    pthread_cond_t wake;
    int sleepers;           // under lock: workers asleep on `wake`
};

/// Spins before sleeping: about 50 microseconds on a current core, giving the core away every
/// 64 (with more threads than cores, a spinning worker would hold up the ones with work) and
/// pausing in between, since each give-away is a system call.
enum { SPINS_BEFORE_SLEEP = 20000, SPINS_PER_YIELD = 64 };

/// A spin's pause: lets the other hyper-thread run and saves power while waiting.
static inline void spin_pause(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

/// Chunk k of `chunks` over [0, n), its boundaries multiples of `align` (empty past the last).
static void chunk_of(int n, int chunks, int align, int k, int *from, int *to)
{
    long long t = chunks, a = align > 0 ? align : 1;
    if (k >= chunks) {
        *from = *to = 0;
        return;
    }
    long long lo = n * (long long)k / t, hi = n * (long long)(k + 1) / t;
    lo -= lo % a;
    hi = k == chunks - 1 ? n : hi - hi % a;
    *from = (int)lo;
    *to = (int)hi;
}


static uint64_t job_generation(uint64_t word) { return word >> 16; }
static int job_chunks(uint64_t word) { return (int)(word & 0xffffu); }

/// Takes chunk k for job `gen` if no thread has: true once per chunk and job. A thread that
/// still holds an older job's word takes nothing, since that job ended only when all its chunks
/// were taken and done.
static bool claim(sb_pool *p, uint64_t gen, int k)
{
    uint64_t was = atomic_load_explicit(&p->claimed[k], memory_order_acquire);
    while (was < gen)
        if (atomic_compare_exchange_weak_explicit(&p->claimed[k], &was, gen, memory_order_acq_rel, memory_order_acquire))
            return true;
    return false;
}

/// Runs chunk k of the current job's `chunks` (claimed by this thread) and counts it done.
static void run_chunk(sb_pool *p, int k, int chunks)
{
    int from, to;
    chunk_of(p->count, chunks, p->align, k, &from, &to);
    if (from < to) {
        if (p->chunk_fn)
            p->chunk_fn(p->ctx, k, from, to);
        else
            p->fn(p->ctx, from, to);
    }
    atomic_fetch_add_explicit(&p->done, 1, memory_order_release);
}

static void *worker_main(void *arg)
{
    worker *me = arg;
    sb_pool *p = me->pool;
    uint64_t seen = 0;
    for (;;) {
        uint64_t word = atomic_load_explicit(&p->job, memory_order_acquire);
        for (int spin = 0; job_generation(word) == seen && spin < SPINS_BEFORE_SLEEP; ++spin) {
            if (atomic_load_explicit(&p->stop, memory_order_relaxed))
                return NULL;
            if (spin % SPINS_PER_YIELD == SPINS_PER_YIELD - 1)
                sched_yield();
            else
                spin_pause();
            word = atomic_load_explicit(&p->job, memory_order_acquire);
        }
        if (job_generation(word) == seen) {
            pthread_mutex_lock(&p->lock);
            p->sleepers += 1;
            while (job_generation(word = atomic_load_explicit(&p->job, memory_order_acquire)) == seen &&
                   !atomic_load_explicit(&p->stop, memory_order_relaxed))
                pthread_cond_wait(&p->wake, &p->lock);
            p->sleepers -= 1;
            pthread_mutex_unlock(&p->lock);
        }
        if (atomic_load_explicit(&p->stop, memory_order_relaxed))
            return NULL;
        seen = job_generation(word);
        if (atomic_load_explicit(&p->held, memory_order_relaxed))
            continue;
        const int chunks = job_chunks(word);
        for (int i = 0; i < chunks; ++i) { // its own chunk first: the same core, pass after pass
            const int k = (me->index + i) % chunks;
            if (claim(p, seen, k))
                run_chunk(p, k, chunks);
        }
    }
}

sb_pool *sb_pool_create(int threads)
{
    if (threads < 2 || threads > SB_POOL_MAX_THREADS)
        return NULL;
    sb_pool *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->threads = threads;
    atomic_init(&p->job, 0u);
    for (int k = 0; k < SB_POOL_MAX_THREADS; ++k)
        atomic_init(&p->claimed[k], 0u);
    atomic_init(&p->done, 0);
    atomic_init(&p->stop, false);
    atomic_init(&p->held, false);
    pthread_mutex_init(&p->lock, NULL);
    pthread_cond_init(&p->wake, NULL);
    for (int k = 1; k < threads; ++k) {
        p->workers[k].pool = p;
        p->workers[k].index = k;
        if (pthread_create(&p->workers[k].thread, NULL, worker_main, &p->workers[k]) != 0) {
            p->threads = k; // the ones started are stopped and joined
            sb_pool_destroy(p);
            return NULL;
        }
    }
    return p;
}

void sb_pool_destroy(sb_pool *p)
{
    if (!p)
        return;
    pthread_mutex_lock(&p->lock);
    atomic_store(&p->stop, true);
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->lock);
    for (int k = 1; k < p->threads; ++k)
        pthread_join(p->workers[k].thread, NULL);
    pthread_cond_destroy(&p->wake);
    pthread_mutex_destroy(&p->lock);
    free(p);
}

int sb_pool_threads(const sb_pool *p) { return p ? p->threads : 1; }

void sb_pool_hold_workers(sb_pool *p, bool held)
{
    if (p)
        atomic_store_explicit(&p->held, held, memory_order_relaxed);
}

/// Runs one job: fn or chunk_fn over [0, count) in `chunks` chunks. The caller takes chunk 0 and
/// then every chunk no worker has taken, and waits only for the chunks workers are running.
static void run_job(sb_pool *p, int count, int align, int chunks, sb_range_fn *fn, sb_chunk_fn *chunk_fn, void *ctx)
{
    p->fn = fn;
    p->chunk_fn = chunk_fn;
    p->ctx = ctx;
    p->count = count;
    p->align = align;
    const uint64_t gen = ++p->generation;
    atomic_store_explicit(&p->done, 0, memory_order_relaxed);
    atomic_store_explicit(&p->job, gen << 16 | (uint64_t)chunks, memory_order_release);
    pthread_mutex_lock(&p->lock);
    if (p->sleepers > 0)
        pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->lock);
    for (int k = 0; k < chunks; ++k)
        if (claim(p, gen, k))
            run_chunk(p, k, chunks);
    for (int spin = 1; atomic_load_explicit(&p->done, memory_order_acquire) < chunks; ++spin) {
        if (spin % SPINS_PER_YIELD == 0)
            sched_yield();
        else
            spin_pause();
    }
}

/// How many chunks a range of `count` takes on `threads`: one a thread, none under `min_per_thread`.
static int chunks_of(int threads, int count, int min_per_thread)
{
    int chunks = threads;
    if (min_per_thread > 0 && count / min_per_thread < chunks)
        chunks = count / min_per_thread;
    return chunks < 1 ? 1 : chunks;
}

static int chunks_for(const sb_pool *p, int count, int min_per_thread)
{
    return chunks_of(p ? p->threads : 1, count, min_per_thread);
}

void sb_pool_for(sb_pool *p, int count, int align, int min_per_thread, sb_range_fn *fn, void *ctx)
{
    if (count <= 0)
        return;
    int chunks = chunks_for(p, count, min_per_thread);
    if (chunks <= 1) {
        fn(ctx, 0, count);
        return;
    }
    run_job(p, count, align, chunks, fn, NULL, ctx);
}

/// Runs fn over [0, count) in `chunks` numbered chunks (on the caller alone for one); returns them.
static int run_chunks(sb_pool *p, int count, int chunks, sb_chunk_fn *fn, void *ctx)
{
    if (count <= 0)
        return 0;
    if (chunks <= 1) {
        fn(ctx, 0, 0, count);
        return 1;
    }
    run_job(p, count, 1, chunks, NULL, fn, ctx);
    return chunks;
}

int sb_pool_for_chunks(sb_pool *p, int count, int min_per_thread, sb_chunk_fn *fn, void *ctx)
{
    return run_chunks(p, count, chunks_for(p, count, min_per_thread), fn, ctx);
}

int sb_pool_for_chunks_balanced(sb_pool *p, int count, int min_per_chunk, sb_chunk_fn *fn, void *ctx)
{
    const int chunks = chunks_of(4 * sb_pool_threads(p), count, min_per_chunk);
    return run_chunks(p, count, !p ? 1 : chunks > SB_POOL_MAX_THREADS ? SB_POOL_MAX_THREADS : chunks, fn, ctx);
}

typedef struct segments_job {
    int threads, segments, min_per_thread;
    const int *starts;
    sb_range_fn *fn;
    void *ctx;
} segments_job;

/// Thread k's share of every segment, each cut as sb_pool_for would cut it alone.
static void segments_chunk(void *ctx, int k, int from, int to)
{
    (void)from;
    (void)to;
    const segments_job *job = ctx;
    for (int s = 0; s < job->segments; ++s) {
        const int base = job->starts[s], n = job->starts[s + 1] - base;
        if (n <= 0)
            continue;
        int lo, hi;
        chunk_of(n, chunks_of(job->threads, n, job->min_per_thread), 1, k, &lo, &hi);
        if (lo < hi)
            job->fn(job->ctx, base + lo, base + hi);
    }
}

void sb_pool_for_segments(sb_pool *p, int segments, const int *starts, int min_per_thread, sb_range_fn *fn, void *ctx)
{
    if (segments <= 0 || starts[segments] <= starts[0])
        return;
    if (!p) {
        fn(ctx, starts[0], starts[segments]);
        return;
    }
    segments_job job = {p->threads, segments, min_per_thread > 0 ? min_per_thread : 1, starts, fn, ctx};
    bool splits = false; // a segment that sb_pool_for would cut; else all of it is the caller's
    for (int s = 0; s < segments && !splits; ++s)
        splits = chunks_of(p->threads, starts[s + 1] - starts[s], job.min_per_thread) > 1;
    if (!splits) {
        fn(ctx, starts[0], starts[segments]);
        return;
    }
    run_job(p, p->threads, 1, p->threads, NULL, segments_chunk, &job);
}

int sb_machine_threads(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > SB_POOL_MAX_THREADS ? SB_POOL_MAX_THREADS : (int)n;
}
