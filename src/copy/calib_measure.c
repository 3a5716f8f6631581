/*
 * calib_measure.c - measuring the running machine into a struct tl_calib
 * (`tensorlayout calibrate`): the copies themselves, timed both ways.
 *
 * Per kind of copy (a flat FLOAT32 copy, the rows of a padded FLOAT32
 * layout (1918 elements of every 1920), transposes of 64 FLOAT16 and 128
 * FLOAT32 rows both ways, a stride-3 FLOAT32 gather, a FLOAT32 fill, and
 * NHWC of 64 FLOAT32 channels into NCHW alone), at 256 KiB to 128 MiB
 * of source + destination, the copy with ordinary and with streaming
 * stores, on one thread and on two, taking turns (measure_kind says how the
 * sizes are read off the times); and per contested slot, the kernels of the
 * two widest ISAs on the same buffers in turns.  Medians throughout: the
 * machines are shared.  Over the planner (plan.c) and the kernel tables
 * (cpu.c), which read what it finds.
 */
#define _DEFAULT_SOURCE 1      /* MAP_ANONYMOUS, MADV_HUGEPAGE */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "copy.h"

/* ---- measuring ------------------------------------------------------------- */

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Buffers as numpy allocates large arrays: page-aligned, huge pages
 * advised, touched once so that no page fault is timed. */
static uint8_t *big_alloc(size_t n)
{
    void *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return NULL;
#ifdef MADV_HUGEPAGE
    madvise(p, n, MADV_HUGEPAGE);
#endif
    memset(p, 1, n);
    return p;
}

/* The tensor pair of a kind whose source + destination hold about `bytes`
 * (a fill: its destination), 64-element aligned. */
static void kind_pair(enum tl_cal_kind kind, uint64_t bytes, struct tl_desc *s, struct tl_desc *d)
{
    memset(s, 0, sizeof *s);
    memset(d, 0, sizeof *d);
    enum tl_dtype dt = kind == TL_CAL_TRANSPOSE_NARROW ? TL_DT_FLOAT16 : TL_DT_FLOAT32;
    uint64_t es = tl_dtype_size(dt);
    uint64_t n = bytes / (kind == TL_CAL_FILL ? es : kind == TL_CAL_GENERAL ? 4 * es : 2 * es);
    /* 64 channels of a multiple of 56 x 56 pixels, as images have: a
     * power-of-two row length would time cache-set conflicts that real
     * shapes do not have (a FLOAT16 64 x 16384 transpose with ordinary
     * stores ran 5x slower than one of 64 x 16317 here), and one with no
     * power of two in it would miss those they do */
    n = n / (64 * 3136) * (64 * 3136);
    if (n < 64 * 3136)
        n = 64 * 3136;
    /* a 4-byte transpose of 64 channels into NCHW reads rows of 256
     * bytes, which the planner sends to the bands kind
     * (tl_transpose_in_bands): the wide kind times 128, which it sends
     * here (n stays a multiple of 128 x 1568 = 28 x 56 pixels) */
    uint64_t ch = kind == TL_CAL_TRANSPOSE_WIDE ? 128 : 64;
    s->dtype = d->dtype = dt;
    s->rank = d->rank = 2;
    s->sizes[0] = d->sizes[0] = ch;                      /* channels of an image */
    s->sizes[1] = d->sizes[1] = n / ch;
    d->strides[0] = n / ch;
    d->strides[1] = 1;
    switch (kind) {
    case TL_CAL_FLAT:
        s->strides[0] = n / ch;
        s->strides[1] = 1;
        break;
    case TL_CAL_ROWS:               /* unpadding rows of 1918 of 1920: its lines cut */
        s->sizes[0] = d->sizes[0] = n / 1918;
        s->sizes[1] = d->sizes[1] = 1918;
        s->strides[0] = 1920;
        s->strides[1] = d->strides[1] = 1;
        d->strides[0] = 1918;
        break;
    case TL_CAL_TRANSPOSE_NARROW:
    case TL_CAL_TRANSPOSE_WIDE:                        /* NHWC into NCHW's rows */
    case TL_CAL_BANDS:                                 /* ... of 64 channels: 256 bytes */
        s->strides[0] = 1;
        s->strides[1] = ch;
        break;
    case TL_CAL_GENERAL:                               /* every third element */
        s->strides[0] = 3 * (n / ch);
        s->strides[1] = 3;
        break;
    default:                                           /* one value everywhere */
        break;
    }
}

/* A calibration forcing one store kind and one thread count on every
 * kind: what the measurements run under. */
static void forced(struct tl_calib *f, bool stream, bool threads)
{
    tl_calib_default(f);
    for (int k = 0; k < TL_CAL_KINDS; k++) {
        f->stream_from[k][0] = f->stream_from[k][1] = stream ? 0 : TL_CAL_NEVER;
        f->threads_from[k] = threads ? 0 : TL_CAL_NEVER;
        for (int l = 0; l < TL_CAL_LEVELS; l++)
            f->threads_at[k][l] = threads ? 0 : TL_CAL_NEVER;
    }
}

struct meter {
    uint8_t *src, *dst;
    size_t cap;                     /* bytes of each buffer */
    int runs;
};

/* Runs a plan until its time stops falling (by 3% a run, at most
 * WARM_MAX runs): where the last variant's streaming stores left the
 * destination out of the caches, a large L3 takes the copy back a few
 * runs at a time (Intel Xeon guest, family 6 model 207: ordinary stores
 * unpadding 16 MiB of rows took 1.36, 1.03, 0.67, 0.63 ms in turn after
 * a streamed run, a 61 MiB one eight runs to settle, 5.5 -> 2.3 ms), and
 * timing those runs had the calibration stream what make bench's warm
 * blocks, which settle, found faster with ordinary stores (1T unpadding
 * of 16 MiB: 0.68-0.72 of memcpy streamed, 0.97-1.01 not). */
#define WARM_MAX 12
static void warm(const struct meter *m, struct tl_copy_plan *plan, unsigned threads)
{
    double last = 0;
    for (int k = 0; k < WARM_MAX; k++) {
        double t0 = now();
        tl_copy_run(plan, m->src, m->dst, threads, NULL, NULL);
        double t = now() - t0;
        if (k > 0 && t > last * 0.97)
            break;
        last = t;
    }
}

/* Times the variants (plans of one copy) in turns: ROUNDS rounds, in each
 * a block of every variant, warmed (warm()) and then runs / 2 timed runs
 * (as make bench times its cases: a copy repeated finds what its own last
 * runs left in the caches, not what another variant's did); t[] gets the
 * medians, in seconds. */
#define ROUNDS 3
static void race(const struct meter *m, struct tl_copy_plan *plans, const unsigned *threads,
                 int nv, double *t)
{
    double v[8][ROUNDS * 16];
    int per = m->runs / 2 < 1 ? 1 : m->runs / 2 > 16 ? 16 : m->runs / 2, n = 0;
    for (int r = 0; r < ROUNDS; r++) {
        for (int i = 0; i < nv; i++) {
            warm(m, &plans[i], threads[i]);
            for (int k = 0; k < per; k++) {
                double t0 = now();
                tl_copy_run(&plans[i], m->src, m->dst, threads[i], NULL, NULL);
                v[i][n + k] = now() - t0;
            }
        }
        n += per;
    }
    for (int i = 0; i < nv; i++)
        t[i] = median(v[i], n);
}

/* A plan of the kind's pair; `back`: a transpose the other way (NCHW
 * into NHWC: reading 64 rows, writing pixels of 64 channels). */
static int plan_with(struct tl_copy_plan *p, enum tl_cal_kind kind, uint64_t bytes,
                     const struct tl_calib *f, bool back)
{
    struct tl_desc s, d;
    struct tl_error err;
    kind_pair(kind, bytes, &s, &d);
    if (back) {
        uint64_t t[2] = { s.strides[0], s.strides[1] };
        memcpy(s.strides, d.strides, sizeof t);
        memcpy(d.strides, t, sizeof t);
    }
    int rc = tl_copy_plan_for(p, &s, &d, f, &err);
    p->isa = tl_isa_best(TL_ISA_COUNT);        /* whatever TENSORLAYOUT_SIMD says */
    return rc;
}

#define NSIZES 12

/* The output size from which more threads pay, from times t[i][0] (fewer
 * threads) and t[i][1] (more) at sizes whose outputs are out[i]: the
 * smallest size where more win by 3% and lose by no more than 5% at any
 * larger one; TL_CAL_NEVER when none. */
static uint64_t more_pay_from(const double t[][2], const uint64_t *out, int ns)
{
    uint64_t from = TL_CAL_NEVER;
    for (int i = ns; i-- > 0;) {
        if (t[i][1] > t[i][0] * 1.05)
            break;
        if (t[i][1] < t[i][0] * 0.97)
            from = out[i];
    }
    return from;
}

/* Where between lo, where streaming lost on tt + 1 threads, and hi, where
 * it won, the kind starts to stream: measured once more halfway (1.5 lo),
 * and 7/8 of the way into the half where the change lies (a wrong stream
 * near the cache's size costs more than a wrong ordinary store).  Doubling
 * sizes alone left 16 to 32 MiB a guess: an AMD EPYC Zen 4 guest (family
 * 25 model 17) streamed FLOAT32 transposes from 30 MiB on two threads, and
 * make bench's ncdhw_ndhwc_f32 (24.5 MiB) ran there at 30-35 GB/s against
 * 52 streamed, slower than on one thread. */
static uint64_t between(enum tl_cal_kind kind, const struct meter *m,
                        struct tl_calib f[2][2], int tt, bool both, uint64_t lo, uint64_t hi)
{
    uint64_t mid = lo + lo / 2;
    if (mid >= hi)
        return lo + (hi - lo) / 8 * 7;
    struct tl_copy_plan p[4];
    unsigned th[4];
    double tv[4];
    int nv = both ? 4 : 2;
    for (int v = 0; v < nv; v++) {
        plan_with(&p[v], kind, mid, &f[v & 1][tt], v >= 2);
        th[v] = tt ? 2 : 1;
    }
    struct meter mm = *m;
    if (mid < (8u << 20))
        mm.runs *= 3;
    race(&mm, p, th, nv, tv);
    double cached = tv[0] + (both ? tv[2] : 0), streamed = tv[1] + (both ? tv[3] : 0);
    return streamed < cached * 0.97 ? lo + (mid - lo) / 8 * 7 : mid + (hi - mid) / 8 * 7;
}

/* One kind, at sizes doubling from 256 KiB of source + destination to the
 * meter's capacity, each copy four ways (ordinary or streaming stores, one
 * thread or two) in turns.  Per thread count, from the largest size down,
 * it finds the first size where streaming did not win by 3% (a draw goes
 * to ordinary stores, which leave the output in the caches for whatever
 * reads it next), measures once more halfway to the next size, where it
 * won, and streams from 7/8 of the way across the half where it changed
 * (between()): near the cache's size a wrong stream costs far more than a
 * wrong ordinary store
 * (make bench broadcast_bias_f32, a 25.7 MB fill between a 16 MiB loss
 * and a 32 MiB win, AMD EPYC Zen 5 guest: 4.32 of memcpy with ordinary
 * stores, 1.26 streamed).
 * Then, each thread count with that store kind, two threads run from the
 * smallest size where they win by 3% and lose by no more than 5% (the
 * noise of these machines) at any larger size: draws are allowed, since
 * where memory is the limit, as for a large fill, a second thread gains
 * nothing and costs nothing. */
static void measure_kind(struct tl_calib *cal, enum tl_cal_kind kind, const struct meter *m,
                         void (*debug)(const char *, void *), void *ctx)
{
    struct tl_calib f[2][2];                  /* [stream][threads] */
    for (int st = 0; st < 2; st++)
        for (int th = 0; th < 2; th++)
            forced(&f[st][th], st, th);
    uint64_t sizes[NSIZES] = { 256u << 10 }, out[NSIZES];
    int ns = 1;
    while (sizes[ns - 1] * 2 <= m->cap && ns < NSIZES) {
        sizes[ns] = sizes[ns - 1] * 2;
        ns++;
    }
    /* a transpose both ways: each writes its own way (whole lines of
     * pixels, or 64 rows of parts of lines), and either is common */
    bool both = kind == TL_CAL_TRANSPOSE_NARROW || kind == TL_CAL_TRANSPOSE_WIDE;
    int nv = both ? 8 : 4;
    double t[NSIZES][4];                      /* [size][threads * 2 + stream] */
    for (int i = 0; i < ns; i++) {
        struct tl_copy_plan p[8];
        unsigned th[8];
        double tv[8];
        for (int v = 0; v < nv; v++) {
            plan_with(&p[v], kind, sizes[i], &f[v & 1][v >> 1 & 1], v >= 4);
            th[v] = v >> 1 & 1 ? 2 : 1;
        }
        out[i] = p[0].dst_bytes;
        struct meter mm = *m;
        if (sizes[i] < (8u << 20))
            mm.runs *= 3;                     /* short copies: more of them */
        race(&mm, p, th, nv, tv);
        for (int v = 0; v < 4; v++)
            t[i][v] = tv[v] + (both ? tv[v + 4] : 0);
    }
    double best[NSIZES][2];
    for (int tt = 0; tt < 2; tt++) {
        bool lost = false;
        uint64_t from = 0;
        for (int i = ns; i-- > 0;) {
            double cached = t[i][2 * tt], streamed = t[i][2 * tt + 1];
            if (!lost && streamed > cached * 0.97) {
                lost = true;
                from = i + 1 < ns ? between(kind, m, f, tt, both, sizes[i], sizes[i + 1])
                                  : sizes[i];
            }
            best[i][tt] = lost ? cached : streamed;
        }
        cal->stream_from[kind][tt] = !lost ? 0 : from >= sizes[ns - 1] ? TL_CAL_NEVER : from;
    }
    cal->threads_from[kind] = more_pay_from(best, out, ns);
    /* 4, 8, ... threads, up to the online CPUs: each count against half as
     * many, with the stores several threads use at the size, by the same
     * rule (issue 50: more threads never slower than fewer) */
    for (unsigned l = 0; l < TL_CAL_LEVELS && (4u << l) <= cal->cpus; l++) {
        double tt[NSIZES][2];
        for (int i = 0; i < ns; i++) {
            struct tl_copy_plan p[4];
            unsigned th[4];
            double tv[4];
            int st = sizes[i] > cal->stream_from[kind][1];
            for (int v = 0; v < (both ? 4 : 2); v++) {
                plan_with(&p[v], kind, sizes[i], &f[st][1], v >= 2);
                th[v] = v & 1 ? 4u << l : 2u << l;
            }
            struct meter mm = *m;
            if (sizes[i] < (8u << 20))
                mm.runs *= 3;
            race(&mm, p, th, both ? 4 : 2, tv);
            tt[i][0] = tv[0] + (both ? tv[2] : 0);
            tt[i][1] = tv[1] + (both ? tv[3] : 0);
        }
        uint64_t from = more_pay_from(tt, out, ns);
        uint64_t under = l ? cal->threads_at[kind][l - 1] : cal->threads_from[kind];
        cal->threads_at[kind][l] = from > under ? from : under;
        for (int i = 0; debug && i < ns; i++) {
            char line[160];
            snprintf(line, sizeof line, "%-10s %6.1f MiB  %uT %8.3f ms  %uT %8.3f ms",
                     tl_cal_kind_names[kind], sizes[i] / 1048576.0, 2u << l, tt[i][0] * 1e3,
                     4u << l, tt[i][1] * 1e3);
            debug(line, ctx);
        }
    }
    for (int i = 0; debug && i < ns; i++) {
        char line[160];
        snprintf(line, sizeof line, "%-10s %6.1f MiB  1T %8.3f ms (streamed %8.3f)  "
                 "2T %8.3f ms (streamed %8.3f)", tl_cal_kind_names[kind], sizes[i] / 1048576.0,
                 t[i][0] * 1e3, t[i][1] * 1e3, t[i][2] * 1e3, t[i][3] * 1e3);
        debug(line, ctx);
    }
}

/* A plain copy of n bytes split over `threads` threads, for the memcpy
 * figures: each thread copies its half with the given kernel. */
struct split_copy {
    const uint8_t *src;
    uint8_t *dst;
    size_t n;
    unsigned parts;
    tl_copy_fn copy;
    tl_fence_fn fence;
};

static void split_copy_part(void *ctx, unsigned who)
{
    const struct split_copy *c = ctx;
    size_t lo = c->n / c->parts * who / 64 * 64;
    size_t hi = who + 1 == c->parts ? c->n : c->n / c->parts * (who + 1) / 64 * 64;
    c->copy(c->src + lo, c->dst + lo, hi - lo);
    if (c->fence)
        c->fence();
}

static double copy_gbs(const struct meter *m, size_t n, unsigned threads, bool stream)
{
    const struct tl_kernels *k = tl_kernels_for(tl_isa_best(TL_ISA_COUNT));
    struct split_copy c = { m->src, m->dst, n, threads, stream ? k->copy_stream : k->copy,
                            stream ? k->fence : NULL };
    double v[32];
    int runs = m->runs > 32 ? 32 : m->runs;
    tl_team_run(threads, split_copy_part, &c);
    for (int r = 0; r < runs; r++) {
        double t0 = now();
        tl_team_run(threads, split_copy_part, &c);
        v[r] = now() - t0;
    }
    return 2.0 * n / median(v, runs) / 1e9;
}

static void nothing(void *ctx, unsigned who)
{
    (void)ctx;
    (void)who;
}

/* The pool's wake-up: a team of two doing nothing, after a pause long
 * enough for its thread to sleep. */
static double wake_us(int runs)
{
    double v[32];
    if (runs > 32)
        runs = 32;
    tl_team_run(2, nothing, NULL);
    for (int r = 0; r < runs; r++) {
        struct timespec pause = { 0, 2000000 };
        nanosleep(&pause, NULL);
        double t0 = now();
        tl_team_run(2, nothing, NULL);
        v[r] = now() - t0;
    }
    return median(v, runs) * 1e6;
}

/* Races the slot's kernel of ISA a against b's on shapes of its kind;
 * @return b's total time over a's. */
static double race_slot(enum tl_cal_slot slot, enum tl_isa a, enum tl_isa b,
                        const struct meter *m, bool quick)
{
    const struct tl_kernels *ka = tl_kernels_own(a), *kb = tl_kernels_own(b);
    int runs = m->runs * 2 > 32 ? 32 : m->runs * 2;
    double total[2] = { 0, 0 };
    if (slot == TL_CAL_F32_F16) {
        tl_cvt_fn f[2] = { ka->cvt[TL_DT_FLOAT32][TL_DT_FLOAT16],
                           kb->cvt[TL_DT_FLOAT32][TL_DT_FLOAT16] };
        if (!f[0] || !f[1])
            return 0;
        double v[2][32];
        for (uint32_t i = 0; i < 16384; i++) {   /* normal numbers: no denormal assists */
            float x = (float)i * 0.37f - 3000.0f;
            memcpy(m->src + 4 * i, &x, 4);
        }
        for (int r = 0; r < runs; r++) {
            for (int i = 0; i < 2; i++) {
                double t0 = now();
                for (int rep = 0; rep < 16; rep++)       /* 16 x 64 KiB in L1/L2 */
                    f[i](m->src, m->dst, 16384);
                v[i][r] = now() - t0;
            }
        }
        return median(v[1], runs) / median(v[0], runs);
    }
    unsigned w = slot == TL_CAL_TRANSPOSE4 || slot == TL_CAL_TRANSPOSE4_NT ? 2 : 3;
    bool nt = slot == TL_CAL_TRANSPOSE4_NT || slot == TL_CAL_TRANSPOSE8_NT;
    tl_transpose_fn f[2] = { (nt ? ka->transpose_nt : ka->transpose)[w],
                             (nt ? kb->transpose_nt : kb->transpose)[w] };
    if (!f[0] || !f[1])
        return 0;
    /* in the caches for ordinary stores, far beyond them for streaming:
     * images of 64 channels both ways, and a square */
    uint64_t elems = (nt ? (quick ? 4u : 16u) << 20 : 128u << 10) >> w;
    size_t shapes[3][2] = { { 64, elems / 64 }, { elems / 64, 64 }, { 0, 0 } };
    size_t side = 64;
    while (side * side * 4 <= elems)
        side *= 2;
    shapes[2][0] = shapes[2][1] = side;
    for (int s = 0; s < 3; s++) {
        size_t rows = shapes[s][0], cols = shapes[s][1];
        double v[2][32];
        for (int i = 0; i < 2; i++)
            f[i](m->src, cols << w, m->dst, rows << w, rows, cols);
        for (int r = 0; r < runs; r++) {
            for (int i = 0; i < 2; i++) {
                double t0 = now();
                f[i](m->src, cols << w, m->dst, rows << w, rows, cols);
                v[i][r] = now() - t0;
            }
        }
        total[0] += median(v[0], runs);
        total[1] += median(v[1], runs);
    }
    if (nt) {
        const struct tl_kernels *k = tl_kernels_for(tl_isa_best(TL_ISA_COUNT));
        if (k->fence)
            k->fence();
    }
    return total[1] / total[0];
}

/* Races the copy slot of the widest ISA's table against the C library's
 * memcpy (the scalar table's) on the rows of a padded FLOAT32 layout, 7672
 * bytes of every 7680, one thread, ordinary stores, at 256 KiB (L2),
 * 4 MiB and (but quick) 32 MiB of source + destination; @return the mean
 * over the sizes of memcpy's time over the kernel's, 0 when the two are
 * one function.  Which wins differs by machine: on an Intel Xeon guest
 * (family 6 model 207) glibc's memcpy copied such rows at 77 GB/s in L2
 * where the AVX2 loop took 57-66, while on the AMD guests the loop was
 * 3-5% ahead of it (kern_avx2.c). */
static double race_copy(const struct meter *m, bool quick)
{
    tl_copy_fn f[2] = { tl_kernels_for(tl_isa_best(TL_ISA_COUNT))->copy,
                        tl_kernels_own(TL_ISA_SCALAR)->copy };
    if (!f[0] || !f[1] || f[0] == f[1])
        return 0;
    const size_t row = 7672, stride = 7680;
    size_t sizes[3] = { 256u << 10, 4u << 20, 32u << 20 };
    int ns = quick ? 2 : 3, runs = m->runs * 2 > 32 ? 32 : m->runs * 2;
    double sum = 0;
    for (int s = 0; s < ns; s++) {
        size_t rows = sizes[s] / 2 / stride;
        if (rows * stride > m->cap)
            rows = m->cap / stride;
        double v[2][32];
        for (int r = -1; r < runs; r++) {          /* run -1 warms both */
            for (int i = 0; i < 2; i++) {
                double t0 = now();
                for (size_t k = 0; k < rows; k++)
                    f[i](m->src + k * stride, m->dst + k * row, row);
                if (r >= 0)
                    v[i][r] = now() - t0;
            }
        }
        sum += median(v[1], runs) / median(v[0], runs);
    }
    return sum / ns;
}

void tl_calib_measure(struct tl_calib *cal, bool quick, void (*note)(const char *, void *),
                      void (*debug)(const char *, void *),
                      void *ctx)
{
    double t0 = now();
    tl_calib_default(cal);
    cal->measured = true;
    struct meter m = { .cap = quick ? 16u << 20 : 128u << 20, .runs = quick ? 3 : 5 };
    /* the largest copy reads a buffer of `cap` (a stride-3 gather, three
     * times its output) and writes one */
    m.src = big_alloc(m.cap * 2);
    m.dst = big_alloc(m.cap);
    if (!m.src || !m.dst) {
        if (m.src)
            munmap(m.src, m.cap * 2);
        if (m.dst)
            munmap(m.dst, m.cap);
        cal->measured = false;       /* no memory to measure with: the rules */
        return;
    }
    struct tl_calib saved = *tl_calib_active();
    bool was_set = tl_calib_active() != tl_calib_builtin();
    tl_calib_set(NULL);              /* every kernel slot at its widest ISA */

    /* the copy slot first: the kinds are then measured with the copy their
     * plans will call (a row copy streams from where streaming beats it) */
    if (note)
        note(tl_cal_slot_names[TL_CAL_COPY], ctx);
    double rc = race_copy(&m, quick);
    cal->slot_ratio[TL_CAL_COPY] = rc;
    if (rc > 0 && rc < 0.97) {             /* memcpy, when faster by 3% or more */
        struct tl_calib with = *tl_calib_builtin();
        cal->slot_isa[TL_CAL_COPY] = with.slot_isa[TL_CAL_COPY] = TL_ISA_SCALAR;
        tl_calib_set(&with);
    }

    for (int attempt = 0; attempt < 3; attempt++) {
        if (attempt)
            sleep(1);                /* another program held a CPU: let it pass */
        if (note)
            note(attempt ? "memcpy again (two threads were slower than one)" : "memcpy", ctx);
        for (unsigned t = 0; t < 2; t++) {
            cal->memcpy_gbs[t] = copy_gbs(&m, m.cap, t + 1, false);
            cal->stream_gbs[t] = copy_gbs(&m, m.cap, t + 1, true);
        }
        if (!tl_calib_disturbed(cal))
            break;
    }
    for (int k = 0; k < TL_CAL_KINDS; k++) {
        if (note)
            note(tl_cal_kind_names[k], ctx);
        measure_kind(cal, (enum tl_cal_kind)k, &m, debug, ctx);
    }
    unsigned measured = 0;              /* the levels past the CPUs: the rule's */
    while (measured < TL_CAL_LEVELS && (4u << measured) <= cal->cpus)
        measured++;
    tl_calib_levels(cal, measured);
    if (note)
        note("pool", ctx);
    cal->wake_us = wake_us(quick ? 9 : 31);
    /* the slots: the widest ISA against the next one down */
    enum tl_isa top = tl_isa_best(TL_ISA_COUNT), next = TL_ISA_SCALAR;
    for (int i = 0; i < (int)top; i++)
        if (tl_isa_supported((enum tl_isa)i) && i != TL_ISA_SSE2)
            next = (enum tl_isa)i;
    for (int s = 0; s < TL_CAL_COPY; s++) {
        if (top != TL_ISA_AVX512 || next != TL_ISA_AVX2)
            break;
        if (note)
            note(tl_cal_slot_names[s], ctx);
        double r = race_slot((enum tl_cal_slot)s, top, next, &m, quick);
        cal->slot_ratio[s] = r;
        /* the narrower ISA's kernel when it is faster by 3% or more */
        if (r > 0 && r < 0.97)
            cal->slot_isa[s] = next;
    }
    munmap(m.src, m.cap * 2);
    munmap(m.dst, m.cap);
    tl_calib_set(was_set ? &saved : NULL);
    cal->seconds = now() - t0;
}
