/*
 * pool.c - the worker threads the library's parallel jobs share (copies
 * and comparisons).
 *
 * Threads are started once, at the first job that wants them, and wait on
 * a condition variable between jobs: starting threads per job costs more
 * than a small copy gains from them (plan.c, thread_min_bytes).  One job at
 * a time uses the pool; a second caller meanwhile (another thread of the
 * program, or a job started from inside a job) gets threads of its own.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <time.h>

#include "copy.h"

#define POOL_MAX 255             /* pool threads at most: helpers 1 .. 255 */

/* How long a pool thread that finished a job, and a caller waiting for its
 * helpers, poll before sleeping on the condition variable: about what
 * waking a sleeping thread costs (calibrate's wake-up figure, 45-70 us on
 * the AMD guests), so that back-to-back jobs (the windows of one convert,
 * the tensors of a model) pay no wake-up, and a last job wastes no more
 * than one wake-up's worth of CPU. */
#define SPIN_NS 50000

static struct {
    pthread_mutex_t mu;
    pthread_cond_t work, idle;
    pthread_mutex_t owner;       /* held by the job using the pool */
    unsigned started, want;
    atomic_uint busy;            /* changed under mu; polled without it */
    unsigned claimed;            /* helpers that began the job */
    bool closed;                 /* a shared job its caller finished: no helper begins it */
    atomic_uint_fast64_t generation;   /* one more for every job handed out */
    tl_team_fn fn;
    void *ctx;
} pool = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, PTHREAD_COND_INITIALIZER,
           PTHREAD_MUTEX_INITIALIZER, 0, 0, 0, 0, 0, false, NULL, NULL };

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static inline void relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

/* Polls, for up to SPIN_NS, until done(arg) holds; @return whether it did. */
static bool spin_until(bool (*done)(uint64_t), uint64_t arg)
{
    uint64_t end = now_ns() + SPIN_NS;
    for (unsigned i = 1;; i++) {
        if (done(arg))
            return true;
        relax();
        if (i % 64 == 0 && now_ns() > end)
            return false;
    }
}

static bool new_job(uint64_t seen)
{
    return atomic_load_explicit(&pool.generation, memory_order_acquire) != seen;
}

static bool helpers_done(uint64_t unused)
{
    (void)unused;
    return atomic_load_explicit(&pool.busy, memory_order_acquire) == 0;
}

static void *pool_thread(void *arg)
{
    unsigned me = (unsigned)(uintptr_t)arg;
    uint64_t seen = 0;
    pthread_mutex_lock(&pool.mu);
    for (;;) {
        if (pool.generation == seen) {          /* poll a while, then sleep */
            pthread_mutex_unlock(&pool.mu);
            spin_until(new_job, seen);
            pthread_mutex_lock(&pool.mu);
        }
        while (pool.generation == seen)
            pthread_cond_wait(&pool.work, &pool.mu);
        seen = pool.generation;
        if (me >= pool.want || pool.closed)
            continue;                   /* not needed for this job, or done without me */
        pool.claimed++;
        tl_team_fn fn = pool.fn;
        void *ctx = pool.ctx;
        pthread_mutex_unlock(&pool.mu);
        fn(ctx, me + 1);
        pthread_mutex_lock(&pool.mu);
        if (--pool.busy == 0)
            pthread_cond_signal(&pool.idle);
    }
    return NULL;
}

/* Hands fn to up to `helpers` pool threads, as helpers 1, 2, ...,
 * starting threads if need be.  @return how many took it: 0 when the pool
 * is in use or no thread could be started. */
static unsigned pool_begin(unsigned helpers, tl_team_fn fn, void *ctx)
{
    if (pthread_mutex_trylock(&pool.owner) != 0)
        return 0;
    pthread_mutex_lock(&pool.mu);
    while (pool.started < helpers && pool.started < POOL_MAX) {
        pthread_t t;
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        int rc = pthread_create(&t, &attr, pool_thread, (void *)(uintptr_t)pool.started);
        pthread_attr_destroy(&attr);
        if (rc != 0)
            break;
        pool.started++;
    }
    unsigned n = helpers < pool.started ? helpers : pool.started;
    if (n == 0) {
        pthread_mutex_unlock(&pool.mu);
        pthread_mutex_unlock(&pool.owner);
        return 0;
    }
    pool.want = n;
    pool.busy = n;
    pool.claimed = 0;
    pool.closed = false;
    pool.fn = fn;
    pool.ctx = ctx;
    pool.generation++;
    pthread_cond_broadcast(&pool.work);
    pthread_mutex_unlock(&pool.mu);
    return n;
}

/* Waits for the pool's helpers to return (with shared: for those that
 * began the job; the others are left out of it), and frees the pool. */
static void pool_end(bool shared)
{
    if (shared) {
        pthread_mutex_lock(&pool.mu);
        pool.closed = true;
        pool.busy -= pool.want - pool.claimed;
        pthread_mutex_unlock(&pool.mu);
    }
    spin_until(helpers_done, 0);
    pthread_mutex_lock(&pool.mu);
    while (pool.busy > 0)
        pthread_cond_wait(&pool.idle, &pool.mu);
    pool.fn = NULL;
    pool.ctx = NULL;
    pthread_mutex_unlock(&pool.mu);
    pthread_mutex_unlock(&pool.owner);
}

/* A helper on a thread of the job's own. */
struct own {
    tl_team_fn fn;
    void *ctx;
    unsigned who;
};

static void *own_thread(void *arg)
{
    struct own *o = arg;
    o->fn(o->ctx, o->who);
    return NULL;
}

static void team_run(unsigned n, tl_team_fn fn, void *ctx, bool shared)
{
    if (n == 0)
        return;
    if (n > TL_TEAM_MAX)
        n = TL_TEAM_MAX;
    unsigned pooled = n > 1 ? pool_begin(n - 1, fn, ctx) : 0;
    pthread_t tid[TL_TEAM_MAX];
    struct own own[TL_TEAM_MAX];
    unsigned first = 1 + pooled, started = 0;
    for (unsigned who = first; who < n; who++) {
        own[started] = (struct own){ fn, ctx, who };
        if (pthread_create(&tid[started], NULL, own_thread, &own[started]) != 0)
            break;
        started++;
    }
    fn(ctx, 0);
    for (unsigned who = first + started; who < n; who++)
        fn(ctx, who);                   /* no thread could be started for it */
    if (pooled)
        pool_end(shared);
    for (unsigned t = 0; t < started; t++)
        pthread_join(tid[t], NULL);
}

void tl_team_run(unsigned n, tl_team_fn fn, void *ctx)
{
    team_run(n, fn, ctx, false);
}

void tl_team_run_shared(unsigned n, tl_team_fn fn, void *ctx)
{
    team_run(n, fn, ctx, true);
}
