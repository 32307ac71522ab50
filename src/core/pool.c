// The worker pool (sb_pool.h). Each run publishes a job and bumps a generation number; workers
// spin on it for a short while (a sub-step's passes follow each other within microseconds, and a
// sleeping worker takes tens of microseconds to wake), then sleep on a condition variable. The
// caller runs the first chunk and spins until every worker has reported. Only integers are
// shared atomically: no float is ever reduced across threads.
#include "sb_pool.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
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
    // the job of the current generation
    sb_range_fn *fn;
    sb_chunk_fn *chunk_fn; // instead of fn: told its chunk's number
    void *ctx;
    int count, align, chunks; // chunks <= threads: a small range takes fewer threads
    atomic_uint generation; // bumped to start a job
    atomic_int pending;     // workers still on the current job
    atomic_bool stop;
    pthread_mutex_t lock;
    pthread_cond_t wake;
    int sleepers;           // under lock: workers asleep on `wake`
};

/// Spins before sleeping: about 50 microseconds on a current core, giving the core away every
/// 64 (with more threads than cores, a spinning worker would hold up the ones with work) and
/// pausing in between (each give-away is a system call: the caller's wait giving it away at every
/// spin took 16% of a two-thread cloth step; pausing instead made two threads 10% faster).
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

static void chunk(const sb_pool *p, int k, int *from, int *to) { chunk_of(p->count, p->chunks, p->align, k, from, to); }

static void *worker_main(void *arg)
{
    worker *me = arg;
    sb_pool *p = me->pool;
    unsigned seen = 0;
    for (;;) {
        unsigned gen = atomic_load_explicit(&p->generation, memory_order_acquire);
        for (int spin = 0; gen == seen && spin < SPINS_BEFORE_SLEEP; ++spin) {
            if (atomic_load_explicit(&p->stop, memory_order_relaxed))
                return NULL;
            if (spin % SPINS_PER_YIELD == SPINS_PER_YIELD - 1)
                sched_yield();
            else
                spin_pause();
            gen = atomic_load_explicit(&p->generation, memory_order_acquire);
        }
        if (gen == seen) {
            pthread_mutex_lock(&p->lock);
            p->sleepers += 1;
            while ((gen = atomic_load_explicit(&p->generation, memory_order_acquire)) == seen &&
                   !atomic_load_explicit(&p->stop, memory_order_relaxed))
                pthread_cond_wait(&p->wake, &p->lock);
            p->sleepers -= 1;
            pthread_mutex_unlock(&p->lock);
        }
        if (atomic_load_explicit(&p->stop, memory_order_relaxed))
            return NULL;
        seen = gen;
        int from, to;
        chunk(p, me->index, &from, &to);
        if (from < to) {
            if (p->chunk_fn)
                p->chunk_fn(p->ctx, me->index, from, to);
            else
                p->fn(p->ctx, from, to);
        }
        atomic_fetch_sub_explicit(&p->pending, 1, memory_order_acq_rel);
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
    atomic_init(&p->generation, 0u);
    atomic_init(&p->pending, 0);
    atomic_init(&p->stop, false);
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

/// Runs one job: fn or chunk_fn over [0, count) in `chunks` chunks; the caller takes chunk 0.
static void run_job(sb_pool *p, int count, int align, int chunks, sb_range_fn *fn, sb_chunk_fn *chunk_fn, void *ctx)
{
    p->chunks = chunks;
    p->fn = fn;
    p->chunk_fn = chunk_fn;
    p->ctx = ctx;
    p->count = count;
    p->align = align;
    atomic_store_explicit(&p->pending, p->threads - 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&p->generation, 1u, memory_order_release);
    pthread_mutex_lock(&p->lock);
    if (p->sleepers > 0)
        pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->lock);
    int from, to;
    chunk(p, 0, &from, &to);
    if (from < to) {
        if (chunk_fn)
            chunk_fn(ctx, 0, from, to);
        else
            fn(ctx, from, to);
    }
    for (int spin = 1; atomic_load_explicit(&p->pending, memory_order_acquire) > 0; ++spin) {
        if (spin % SPINS_PER_YIELD == 0)
            sched_yield();
        else
            spin_pause();
    }
}

/// How many chunks a range of `count` takes: one a thread, none under `min_per_thread`.
static int chunks_for(const sb_pool *p, int count, int min_per_thread)
{
    int chunks = p ? p->threads : 1;
    if (min_per_thread > 0 && count / min_per_thread < chunks)
        chunks = count / min_per_thread;
    return chunks < 1 ? 1 : chunks;
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

int sb_pool_for_chunks(sb_pool *p, int count, int min_per_thread, sb_chunk_fn *fn, void *ctx)
{
    if (count <= 0)
        return 0;
    int chunks = chunks_for(p, count, min_per_thread);
    if (chunks <= 1) {
        fn(ctx, 0, 0, count);
        return 1;
    }
    run_job(p, count, 1, chunks, NULL, fn, ctx);
    return chunks;
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
        int chunks = job->threads;
        if (n / job->min_per_thread < chunks)
            chunks = n / job->min_per_thread < 1 ? 1 : n / job->min_per_thread;
        int lo, hi;
        chunk_of(n, chunks, 1, k, &lo, &hi);
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
    run_job(p, p->threads, 1, p->threads, NULL, segments_chunk, &job);
}

int sb_machine_threads(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > SB_POOL_MAX_THREADS ? SB_POOL_MAX_THREADS : (int)n;
}
