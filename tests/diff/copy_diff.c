/*
 * copy_diff.c - the randomized differential test of the copy engine.
 *
 * 1. Kernels: every slot of every ISA table the CPU supports is called with
 *    sizes 0 to past two vectors and a few larger ones, misaligned, on
 *    buffers that end at a guard page, and compared byte for byte (canaries
 *    included) with its scalar twin.
 * 2. Plans: random copies (ranks 1-8, sizes 1 and primes, sources packed in
 *    any order, padded, broadcast or overlapping, destinations packed or
 *    padded, element sizes 1/2/4/8, byte offsets) run through tl_copy_plan
 *    and tl_copy_run with each supported ISA as the ceiling, on 1 and 2
 *    threads, and compared with the naive reference copy.  Targeted cases
 *    make sure every kernel kind and element size is reached.
 * 3. compare: equal tensors in random layouts and types, and differences
 *    planted at known indices, on 1 and 3 threads.
 * 4. Teams (the worker pool): every member runs once, also when two teams
 *    run at once or one starts inside another.
 *
 * ISAs the CPU lacks are reported as skipped.  TL_SEED and TL_ITERS replay
 * a run; a failing copy is printed as two JSON descriptions.
 */
#define _DEFAULT_SOURCE 1
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "../../src/copy/copy.h"
#include "../../src/copy/dequant.h"

static uint64_t rng;
static int failures, checks;

static uint64_t rnd(uint64_t n)
{
    rng ^= rng >> 12;
    rng ^= rng << 25;
    rng ^= rng >> 27;
    return n ? (rng * 0x2545f4914f6cdd1dULL) % n : 0;
}

/* ---- buffers that end at a guard page ------------------------------------ */

struct buf {
    uint8_t *p;       /* n usable bytes */
    size_t n;
    void *map;
    size_t maplen;
};

/* at_end: the buffer's last byte is the last before a PROT_NONE page;
 * otherwise it starts `mis` bytes past a 64-byte boundary and 64 canary
 * bytes follow it. */
static void buf_alloc(struct buf *b, size_t n, bool at_end, unsigned mis)
{
    size_t pg = (size_t)sysconf(_SC_PAGESIZE);
    size_t body = (n + 64 + 64 + pg - 1) / pg * pg;
    b->maplen = body + pg;
    b->map = mmap(NULL, b->maplen, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (b->map == MAP_FAILED) {
        perror("mmap");
        exit(2);
    }
    mprotect((uint8_t *)b->map + body, pg, PROT_NONE);
    b->n = n;
    b->p = at_end ? (uint8_t *)b->map + body - n : (uint8_t *)b->map + mis;
    for (size_t i = 0; i < body; i++)
        ((uint8_t *)b->map)[i] = (uint8_t)(i * 131 + 7);
}

static void buf_free(struct buf *b)
{
    munmap(b->map, b->maplen);
}

static void randomize(uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (uint8_t)rnd(256);
}

static bool same(const struct buf *a, const struct buf *b)
{
    size_t pg = (size_t)sysconf(_SC_PAGESIZE);
    return memcmp(a->map, b->map, a->maplen - pg) == 0;
}

static void fail(const char *what)
{
    failures++;
    if (failures <= 20)
        fprintf(stderr, "FAIL %s\n", what);
}

/* ---- 1. kernels ---------------------------------------------------------- */

/* The buffers of a transpose check, rows x cols from elements of es bytes
 * to elements of des: the source, and two destinations alike, with rows a
 * few elements apart, misaligned, at a guard page or among canaries; or,
 * when aligned, the destination and its row stride on cache lines, as the
 * streaming kernels need to take their streaming path. */
struct tbufs {
    size_t ss, ds;
    struct buf s, d1, d2;
};

static void tbufs_alloc(struct tbufs *t, size_t rows, size_t cols, unsigned es, unsigned des,
                        bool aligned)
{
    t->ss = (cols + rnd(3)) * es;
    t->ds = (rows + rnd(3)) * des;
    if (aligned)
        t->ds = (t->ds + 63) / 64 * 64;
    size_t sn = rows ? (rows - 1) * t->ss + cols * es : 0;
    size_t dn = cols ? (cols - 1) * t->ds + rows * des : 0;
    bool at_end = aligned ? true : rnd(2);
    unsigned mis = (unsigned)rnd(64), dmis = aligned ? 0 : (unsigned)rnd(64);
    buf_alloc(&t->s, sn, at_end, mis);
    buf_alloc(&t->d1, dn, !at_end, dmis);
    buf_alloc(&t->d2, dn, !at_end, dmis);
}

static void tbufs_free(struct tbufs *t)
{
    buf_free(&t->s);
    buf_free(&t->d1);
    buf_free(&t->d2);
}

static void check_transpose(const char *isa, tl_transpose_fn fn, tl_transpose_fn twin,
                            unsigned w, size_t rows, size_t cols, bool aligned)
{
    unsigned es = 1u << w;
    struct tbufs t;
    tbufs_alloc(&t, rows, cols, es, es, aligned);
    randomize(t.s.p, t.s.n);
    fn(t.s.p, t.ss, t.d1.p, t.ds, rows, cols);
    twin(t.s.p, t.ss, t.d2.p, t.ds, rows, cols);
    checks++;
    if (!same(&t.d1, &t.d2)) {
        char what[128];
        snprintf(what, sizeof what, "%s transpose w%u rows %zu cols %zu", isa, es, rows, cols);
        fail(what);
    }
    tbufs_free(&t);
}

static void check_fill(const char *isa, tl_fill_fn fn, tl_fill_fn twin, unsigned w, size_t n)
{
    unsigned es = 1u << w;
    uint8_t val[8];
    randomize(val, sizeof val);
    struct buf d1, d2;
    bool at_end = rnd(2);
    unsigned mis = (unsigned)rnd(64);
    buf_alloc(&d1, n * es, at_end, mis);
    buf_alloc(&d2, n * es, at_end, mis);
    fn(d1.p, val, n);
    twin(d2.p, val, n);
    checks++;
    if (!same(&d1, &d2)) {
        char what[96];
        snprintf(what, sizeof what, "%s fill w%u n %zu", isa, es, n);
        fail(what);
    }
    buf_free(&d1);
    buf_free(&d2);
}

static void check_interleave(const char *isa, int c, unsigned w, size_t n,
                             tl_interleave_fn il, tl_interleave_fn il_twin,
                             tl_deinterleave_fn de, tl_deinterleave_fn de_twin)
{
    unsigned es = 1u << w, C = (unsigned)c + 2;
    size_t plane = (n + rnd(5)) * es, planes = (C - 1) * plane + n * es, packed = n * C * es;
    bool at_end = rnd(2);
    struct buf s, d1, d2;
    if (il) {
        buf_alloc(&s, planes, at_end, (unsigned)rnd(64));
        randomize(s.p, planes);
        buf_alloc(&d1, packed, !at_end, 3);
        buf_alloc(&d2, packed, !at_end, 3);
        il(s.p, plane, d1.p, n);
        il_twin(s.p, plane, d2.p, n);
        checks++;
        if (!same(&d1, &d2)) {
            char what[96];
            snprintf(what, sizeof what, "%s interleave c%u w%u n %zu", isa, C, es, n);
            fail(what);
        }
        buf_free(&s);
        buf_free(&d1);
        buf_free(&d2);
    }
    if (de) {
        buf_alloc(&s, packed, at_end, (unsigned)rnd(64));
        randomize(s.p, packed);
        buf_alloc(&d1, planes, !at_end, 5);
        buf_alloc(&d2, planes, !at_end, 5);
        de(s.p, d1.p, plane, n);
        de_twin(s.p, d2.p, plane, n);
        checks++;
        if (!same(&d1, &d2)) {
            char what[96];
            snprintf(what, sizeof what, "%s deinterleave c%u w%u n %zu", isa, C, es, n);
            fail(what);
        }
        buf_free(&s);
        buf_free(&d1);
        buf_free(&d2);
    }
}

static void check_copy_kernel(const char *isa, tl_copy_fn fn, tl_fence_fn fence, size_t n)
{
    struct buf s, d1, d2;
    bool at_end = rnd(2);
    buf_alloc(&s, n, at_end, (unsigned)rnd(64));
    randomize(s.p, n);
    unsigned mis = (unsigned)rnd(64);
    buf_alloc(&d1, n, !at_end, mis);
    buf_alloc(&d2, n, !at_end, mis);
    fn(s.p, d1.p, n);
    if (fence)
        fence();
    memcpy(d2.p, s.p, n);
    checks++;
    if (!same(&d1, &d2)) {
        char what[96];
        snprintf(what, sizeof what, "%s copy n %zu", isa, n);
        fail(what);
    }
    buf_free(&s);
    buf_free(&d1);
    buf_free(&d2);
}

/* The 4-bit kernels against their scalar twins (kern_drivers.h): n values,
 * misaligned, at a guard page or among canaries; pack gets values in and
 * out of the type's range, and must keep the nibble after an odd count. */
static void check_nibble_kernels(const char *isa, const struct tl_kernels *k, int sgn, size_t n)
{
    struct buf s, d1, d2;
    bool at_end = rnd(2);
    unsigned mis = (unsigned)rnd(64);
    if (k->nibpair && sgn == 0) {       /* two rows of n bytes: lo and hi side by side */
        struct buf t;
        buf_alloc(&s, n, at_end, (unsigned)rnd(64));
        buf_alloc(&t, n, !at_end, (unsigned)rnd(64));
        randomize(s.p, n);
        randomize(t.p, n);
        buf_alloc(&d1, 2 * n, !at_end, mis);
        buf_alloc(&d2, 2 * n, !at_end, mis);
        k->nibpair(s.p, t.p, d1.p, d1.p + n, n);
        tl_kernels_scalar.nibpair(s.p, t.p, d2.p, d2.p + n, n);
        checks++;
        if (!same(&d1, &d2)) {
            char what[96];
            snprintf(what, sizeof what, "%s nibpair n %zu", isa, n);
            fail(what);
        }
        buf_free(&s);
        buf_free(&t);
        buf_free(&d1);
        buf_free(&d2);
    }
    if (k->unpack4[sgn]) {
        buf_alloc(&s, (n + 1) / 2, at_end, (unsigned)rnd(64));
        randomize(s.p, (n + 1) / 2);
        buf_alloc(&d1, n, !at_end, mis);
        buf_alloc(&d2, n, !at_end, mis);
        k->unpack4[sgn](s.p, d1.p, n);
        tl_kernels_scalar.unpack4[sgn](s.p, d2.p, n);
        checks++;
        if (!same(&d1, &d2)) {
            char what[96];
            snprintf(what, sizeof what, "%s unpack4 %s n %zu", isa, sgn ? "INT4" : "UINT4", n);
            fail(what);
        }
        buf_free(&s);
        buf_free(&d1);
        buf_free(&d2);
    }
    if (k->pack4[sgn]) {
        buf_alloc(&s, n, at_end, (unsigned)rnd(64));
        bool wide = rnd(2);                 /* some values out of range, or none */
        for (size_t i = 0; i < n; i++)
            s.p[i] = wide && rnd(8) == 0 ? (uint8_t)rnd(256)
                                         : (uint8_t)(sgn ? (int)rnd(16) - 8 : (int)rnd(16));
        buf_alloc(&d1, (n + 1) / 2, !at_end, mis);
        buf_alloc(&d2, (n + 1) / 2, !at_end, mis);
        bool b1 = k->pack4[sgn](s.p, d1.p, n), b2 = tl_kernels_scalar.pack4[sgn](s.p, d2.p, n);
        checks++;
        if (!same(&d1, &d2) || b1 != b2) {
            char what[96];
            snprintf(what, sizeof what, "%s pack4 %s n %zu: %s", isa, sgn ? "INT4" : "UINT4", n,
                     b1 != b2 ? "the fit flag differs" : "bytes differ");
            fail(what);
        }
        buf_free(&s);
        buf_free(&d1);
        buf_free(&d2);
    }
}

/* A conversion kernel against the scalar converter: n elements of src
 * (n * ses bytes), misaligned, the output at a guard page or among
 * canaries; the bytes and the "did not fit" answer must agree. */
static void check_cvt_on(const char *isa, tl_cvt_fn fn, enum tl_dtype sdt, enum tl_dtype ddt,
                         const uint8_t *src, size_t n)
{
    unsigned des = tl_dtype_size(ddt);
    bool at_end = rnd(2);
    unsigned mis = (unsigned)rnd(64);
    struct buf got, want;
    buf_alloc(&got, n * des, at_end, mis);
    buf_alloc(&want, n * des, at_end, mis);
    bool bg = fn(src, got.p, n), bw = tl_cvt_scalar(sdt, ddt, src, want.p, n);
    checks++;
    if (bg != bw || !same(&got, &want)) {
        char what[128];
        size_t at = 0;
        while (at < n * des && got.p[at] == want.p[at])
            at++;
        snprintf(what, sizeof what, "cvt %s -> %s (%s), n %zu: %s at element %zu", tl_dtype_name(sdt),
                 tl_dtype_name(ddt), isa, n, bg != bw ? "the fit flag differs" : "bytes differ",
                 at / des);
        fail(what);
    }
    buf_free(&got);
    buf_free(&want);
}

/* Values at the edges of every type, as the bytes of type dt. */
static void edge_values(enum tl_dtype dt, uint8_t *p, size_t n)
{
    static const double f[] = { 0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 0.9999, -0.9999, 1.5, 2.5, -2.5,
                                127.0, 127.5, 128.0, 128.5, -128.0, -128.5, -129.0, 255.0,
                                255.9, 256.0, -1.0001, 32767.0, 32768.0, -32769.0, 65535.0,
                                65536.0, 65504.0, 65519.99, 65520.0, 6.1035156e-05, 5.96e-08,
                                2.98e-08, 2147483647.0, 2147483648.0, -2147483649.0,
                                4294967296.0, 9.2233720368547758e18, -9.2233720368547758e18,
                                1.8446744073709552e19, 3.4028234663852886e38, 3.4e38, 1e39,
                                1.1754943508222875e-38, 1e-45, 1e-40, 1e300, -1e300 };
    unsigned es = tl_dtype_size(dt);
    for (size_t i = 0; i < n; i++) {
        uint8_t *e = p + i * es;
        int pick = (int)rnd(4);
        if (pick == 0) {
            randomize(e, es);          /* any bits: NaNs with payloads, subnormals */
        } else if (pick == 1 && tl_dtype_is_float(dt)) {
            uint64_t special[] = { 0x7ff0000000000000ull, 0xfff0000000000000ull,
                                   0x7ff8000000000001ull, 0xfff4000000000000ull };
            double d;
            uint64_t b = special[rnd(4)];
            memcpy(&d, &b, 8);
            tl_convert_value(TL_DT_FLOAT64, &d, dt, e);
        } else if (pick == 1) {
            /* an integer type's own extremes, and one past them */
            double d = rnd(2) ? 1e300 : -1e300;
            tl_convert_value(TL_DT_FLOAT64, &d, dt, e);
            if (rnd(2)) {
                uint64_t v = 0;
                memcpy(&v, e, es);
                v += rnd(2) ? 1 : (uint64_t)-1;
                memcpy(e, &v, es);
            }
        } else {
            double d = f[rnd(sizeof f / sizeof f[0])] * (rnd(8) == 0 ? -1 : 1);
            tl_convert_value(TL_DT_FLOAT64, &d, dt, e);
        }
    }
}

/* Values that fit every float type (|v| < 1000), with an infinity and a
 * NaN now and then (they are no overflow), and with one chance in two a
 * single value that overflows FLOAT16 and BFLOAT16 at a random place: the
 * overflow flag (SPEC 19) is checked both ways, not only on buffers where
 * the edge values make it true. */
static void tame_values(enum tl_dtype dt, uint8_t *p, size_t n)
{
    unsigned es = tl_dtype_size(dt);
    for (size_t i = 0; i < n; i++) {
        double d = ((double)rnd(2000000) - 1000000.0) / 1000.0;
        if (rnd(50) == 0)
            d = rnd(2) ? INFINITY : NAN;
        tl_convert_value(TL_DT_FLOAT64, &d, dt, p + i * es);
    }
    if (n && rnd(2)) {
        double big = rnd(2) ? -3.4e38 : 3.4e38;
        tl_convert_value(TL_DT_FLOAT64, &big, dt, p + rnd(n) * es);
    }
}

/* Finite values that fit every float type, and with one chance in two a
 * single value at a random place that the kernels' quick checks must
 * catch (an overflow exactly at either threshold, a NaN whose payload
 * would carry a rounding past the exponent, an infinity) or must let pass
 * (the largest magnitudes that do not overflow): most of the buffer's
 * steps are clean, so the quick paths are taken, and one step is not. */
static void clean_values(enum tl_dtype dt, uint8_t *p, size_t n)
{
    unsigned es = tl_dtype_size(dt);
    for (size_t i = 0; i < n; i++) {
        double d = ((double)rnd(2000000) - 1000000.0) / 1000.0;
        tl_convert_value(TL_DT_FLOAT64, &d, dt, p + i * es);
    }
    static const uint32_t odd[] = { TL_OVF_F16, TL_OVF_F16 - 1, TL_OVF_BF16, TL_OVF_BF16 - 1,
                                    0x7fffffffu, 0x7f800001u, 0x7fc00000u, 0x7f800000u };
    if (n && dt == TL_DT_FLOAT32 && rnd(2)) {
        uint32_t v = odd[rnd(sizeof odd / sizeof odd[0])] | (rnd(2) ? 0x80000000u : 0);
        memcpy(p + rnd(n) * es, &v, 4);
    }
}

static void check_cvt(const char *isa, tl_cvt_fn fn, enum tl_dtype sdt, enum tl_dtype ddt)
{
    unsigned ses = tl_dtype_size(sdt);
    static const size_t big[] = { 255, 1000, 4099 };
    for (size_t k = 0; k < 40 + sizeof big / sizeof big[0]; k++) {
        size_t n = k < 40 ? k : big[k - 40];
        struct buf src;
        buf_alloc(&src, n * ses, rnd(2), (unsigned)rnd(64));
        if (tl_dtype_is_float(sdt) && rnd(2))
            tame_values(sdt, src.p, n);
        else
            edge_values(sdt, src.p, n);
        check_cvt_on(isa, fn, sdt, ddt, src.p, n);
        buf_free(&src);
    }
    /* exhaustively: every 16-bit and byte pattern; FLOAT32 sources over
     * every sign, exponent and top mantissa bits with the low bits at and
     * around the halfway points of FLOAT16 and BFLOAT16 */
    if (ses <= 2) {
        size_t n = (size_t)1 << (8 * ses);
        struct buf src;
        buf_alloc(&src, n * ses, true, 0);
        for (size_t i = 0; i < n; i++) {
            uint16_t v = (uint16_t)i;
            memcpy(src.p + i * ses, &v, ses);
        }
        check_cvt_on(isa, fn, sdt, ddt, src.p, n);
        buf_free(&src);
    } else if (sdt == TL_DT_FLOAT32) {
        static const uint32_t low[] = { 0, 1, 0xfff, 0x1000, 0x1001, 0x1fff, 0x7fff, 0x8000,
                                        0x8001, 0xffff };
        size_t n = ((size_t)1 << 16) * (sizeof low / sizeof low[0]);
        struct buf src;
        buf_alloc(&src, n * 4, true, 0);
        size_t i = 0;
        for (uint32_t top = 0; top < 0x10000; top++)
            for (size_t l = 0; l < sizeof low / sizeof low[0]; l++, i++) {
                uint32_t v = top << 16 | low[l];
                if (ddt == TL_DT_FLOAT16)      /* the halfway points of FLOAT16 sit lower */
                    v = (top << 16 | low[l] >> 3) ^ (uint32_t)(l & 1);
                memcpy(src.p + i * 4, &v, 4);
            }
        check_cvt_on(isa, fn, sdt, ddt, src.p, n);
        buf_free(&src);
    }
}

/* A converting transpose against its scalar twin: rows x cols of edge
 * values (NaNs, subnormals, halfway points; pick 0), tame (1) or clean
 * ones (2, above), or any of them (-1), any strides and alignment, or the
 * destination on cache lines as the streaming kind needs. */
static void check_tcvt(const char *isa, tl_tcvt_fn fn, enum tl_dtype sdt, enum tl_dtype ddt,
                       size_t rows, size_t cols, bool aligned, int pick)
{
    unsigned es = tl_dtype_size(sdt);
    struct tbufs t;
    tbufs_alloc(&t, rows, cols, es, tl_dtype_size(ddt), aligned);
    if (!tl_dtype_is_float(sdt))
        pick = 0;
    else if (pick < 0)
        pick = (int)rnd(3);
    if (pick == 1)
        tame_values(sdt, t.s.p, t.s.n / es);
    else if (pick == 2)
        clean_values(sdt, t.s.p, t.s.n / es);
    else
        edge_values(sdt, t.s.p, t.s.n / es);
    bool bg = fn(t.s.p, t.ss, t.d1.p, t.ds, rows, cols);
    bool bw = tl_tcvt_scalar(sdt, ddt, t.s.p, t.ss, t.d2.p, t.ds, rows, cols);
    checks++;
    if (bg != bw || !same(&t.d1, &t.d2)) {
        char what[160];
        snprintf(what, sizeof what, "%s transpose %s -> %s rows %zu cols %zu%s: %s", isa,
                 tl_dtype_name(sdt), tl_dtype_name(ddt), rows, cols, aligned ? " (aligned)" : "",
                 bg != bw ? "the fit flag differs" : "bytes differ");
        fail(what);
    }
    tbufs_free(&t);
}

/* A decoder of ggml's blocks against its scalar twin: nb blocks of random
 * bytes (every scale's bit pattern: subnormals, infinities, NaNs), from
 * and into buffers at every misalignment, the source's last byte the last
 * before an unreadable page; the values bit for bit, a NaN matching any
 * NaN (which NaN a product keeps is the compiler's choice of operands). */
static void check_dequant(const char *isa, tl_dequant_fn fn, tl_dequant_fn twin, unsigned type,
                          size_t nb, unsigned mis)
{
    const struct tl_ggml_type *gt = tl_ggml_type(type);
    struct buf src, out;
    size_t n = nb * gt->block;
    buf_alloc(&src, nb * gt->bytes, true, 0);
    buf_alloc(&out, n * 4, false, mis * 4);         /* floats, off the vectors' alignment */
    randomize(src.p, src.n);
    float *want = malloc(n * 4 + 4);
    twin(src.p, want, nb);
    fn(src.p, (float *)(void *)out.p, nb);
    for (size_t i = 0; i < n; i++) {
        uint32_t x, y;
        float fx;
        memcpy(&x, out.p + 4 * i, 4);
        memcpy(&y, &want[i], 4);
        memcpy(&fx, &x, 4);
        if (x != y && !(fx != fx && want[i] != want[i])) {
            char what[160];
            snprintf(what, sizeof what, "%s dequant %s: %zu blocks, value %zu: %08x, scalar "
                     "%08x", isa, gt->name, nb, i, (unsigned)x, (unsigned)y);
            fail(what);
            break;
        }
    }
    /* nothing written past the last value */
    for (size_t i = 0; i < 64; i++) {
        size_t at = (size_t)(out.p - (uint8_t *)out.map) + n * 4 + i;
        if (((uint8_t *)out.map)[at] != (uint8_t)(at * 131 + 7)) {
            char what[160];
            snprintf(what, sizeof what, "%s dequant %s: %zu blocks: wrote past the end", isa,
                     gt->name, nb);
            fail(what);
            break;
        }
    }
    free(want);
    buf_free(&src);
    buf_free(&out);
}

/* The MXFP4 pair decoder against its scalar twin: nb blocks of random
 * codes, their exponents every E8M0 value in turn from a random start (0
 * and 1 give subnormal scales, 255 infinities), each source ending at an
 * unreadable page, the floats written off the vectors' alignment; bit for
 * bit (no product is a NaN). */
static void check_mx4(const char *isa, tl_mx4_fn fn, size_t nb, unsigned mis)
{
    struct buf q, e, out;
    size_t n = nb * 32;
    buf_alloc(&q, nb * 16, true, 0);
    buf_alloc(&e, nb, true, 0);
    buf_alloc(&out, n * 4, false, mis * 4);
    randomize(q.p, q.n);
    unsigned from = (unsigned)rnd(256);
    for (size_t b = 0; b < nb; b++)
        e.p[b] = (uint8_t)(from + b);
    float *want = malloc(n * 4 + 4);
    tl_mx4_scalar(q.p, e.p, want, nb);
    fn(q.p, e.p, (float *)(void *)out.p, nb);
    checks++;
    if (memcmp(out.p, want, n * 4) != 0) {
        size_t i = 0;
        while (memcmp(out.p + 4 * i, &want[i], 4) == 0)
            i++;
        uint32_t x, y;
        memcpy(&x, out.p + 4 * i, 4);
        memcpy(&y, &want[i], 4);
        char what[160];
        snprintf(what, sizeof what, "%s mx4: %zu blocks, value %zu (exponent %u): %08x, scalar "
                 "%08x", isa, nb, i, (unsigned)e.p[i / 32], (unsigned)x, (unsigned)y);
        fail(what);
    }
    for (size_t i = 0; i < 64; i++) {
        size_t at = (size_t)(out.p - (uint8_t *)out.map) + n * 4 + i;
        if (((uint8_t *)out.map)[at] != (uint8_t)(at * 131 + 7)) {
            char what[160];
            snprintf(what, sizeof what, "%s mx4: %zu blocks: wrote past the end", isa, nb);
            fail(what);
            break;
        }
    }
    free(want);
    buf_free(&q);
    buf_free(&e);
    buf_free(&out);
}

/* The fused BFLOAT16 decoders of scaled pairs against their twins: MXFP4
 * blocks with every exponent in turn (0, 1 and 253..255 go the slow way);
 * FP8 runs of every length with edge codes (NaN, subnormals, 448) and
 * scales at FLOAT32's edges (subnormal, huge: products overflow and
 * underflow); sources ending at an unreadable page, outputs misaligned. */
static void check_scaled_bf16(const char *isa, const struct tl_kernels *k, size_t n,
                              unsigned mis)
{
    struct buf q, e, out, want;
    size_t nb = n / 32 + 1;
    buf_alloc(&q, nb * 16 > n ? nb * 16 : n, true, 0);
    buf_alloc(&e, nb, true, 0);
    buf_alloc(&out, nb * 64 > 2 * n ? nb * 64 : 2 * n, false, mis);
    buf_alloc(&want, nb * 64 > 2 * n ? nb * 64 : 2 * n, false, mis);
    randomize(q.p, q.n);
    unsigned from = (unsigned)rnd(256);
    for (size_t b = 0; b < nb; b++)
        e.p[b] = (uint8_t)(from + b);
    char what[160];
    if (k->mx4_bf16 && k->mx4_bf16 != tl_kernels_scalar.mx4_bf16) {
        tl_mx4_bf16_scalar(q.p, e.p, want.p, nb);
        k->mx4_bf16(q.p, e.p, out.p, nb);
        checks++;
        if (!same(&out, &want)) {
            snprintf(what, sizeof what, "%s mx4_bf16: %zu blocks: bytes differ", isa, nb);
            fail(what);
        }
    }
    if (k->fp8s_bf16 && k->fp8s_bf16 != tl_kernels_scalar.fp8s_bf16) {
        static const uint32_t scales[] = { 0x3f800000, 0x3a800000, 0x00000001, 0x00400000,
                                           0x7f000000, 0x7f7fffff, 0xbf123456, 0x7fc00000,
                                           0x7f800000, 0x00000000 };
        int pick = (int)rnd(3);               /* edge, any bits, or DeepSeek's sort */
        uint32_t bits = pick == 0 ? scales[rnd(sizeof scales / sizeof scales[0])]
                                  : (uint32_t)rnd(1u << 31) * 2 + (uint32_t)rnd(2);
        float scale;
        memcpy(&scale, &bits, 4);
        if (pick == 2) {
            scale = (float)(1 + rnd(100000)) / 448000.0f;
            memcpy(&bits, &scale, 4);
        }
        uint8_t *c = q.p + q.n - n;
        for (size_t i = 0; i < n && rnd(4) == 0; i++)       /* some edge codes */
            c[rnd(n)] = (uint8_t)(rnd(2) ? 0x7f : rnd(2) ? 0x7e : rnd(8));
        uint8_t t[32];
        bool table = tl_fp8s_table(scale, t);
        tl_fp8s_bf16_scalar(c, NULL, scale, want.p, n);
        k->fp8s_bf16(c, NULL, scale, out.p, n);     /* without the table, then with it */
        if (table && same(&out, &want))
            k->fp8s_bf16(c, t, scale, out.p, n);
        checks++;
        if (!same(&out, &want)) {
            snprintf(what, sizeof what, "%s fp8s_bf16: %zu codes, scale %08x: bytes differ", isa,
                     n, (unsigned)bits);
            fail(what);
        }
    }
    buf_free(&q);
    buf_free(&e);
    buf_free(&out);
    buf_free(&want);
}

/* The block FP8 table kernel (fp8s_lut) against the scalar twin block by
 * block: n codes from `in` codes before a block's end, each block's scale
 * an edge one, any bits, or DeepSeek's sort; edge codes; codes ending at
 * an unreadable page, outputs misaligned, streamed or not.  A scale
 * without a table (not finite) is refused by tl_fp8s_lut_make; one of
 * DeepSeek's sort has nibble tables (copy.h). */
static void check_fp8s_lut(const char *isa, const struct tl_kernels *k, size_t n, size_t in,
                           unsigned mis, bool stream)
{
    static const uint32_t edges[] = { 0x3f800000, 0x3a800000, 0x00000001, 0x00400000,
                                      0x7f000000, 0x7f7fffff, 0xbf123456, 0x80000000,
                                      0x00000000, 0xff7fffff };
    size_t nb = (n + 128 - in) / 128 + 1;
    struct buf c, out, want;
    buf_alloc(&c, n, true, 0);
    buf_alloc(&out, 2 * n, false, mis);
    buf_alloc(&want, 2 * n, false, mis);
    randomize(c.p, n);
    for (size_t i = 0; i < n && rnd(4) == 0; i++)
        c.p[rnd(n)] = (uint8_t)(rnd(2) ? 0x7f | rnd(2) << 7 : rnd(2) ? 0x7e : rnd(8) | rnd(2) << 7);
    struct tl_fp8s_lut *lut = aligned_alloc(64, nb * sizeof *lut);
    if (!lut) {
        fail("out of memory");
        exit(2);
    }
    char what[160];
    for (size_t b = 0, at = 0; b < nb; b++) {
        int pick = (int)rnd(3);
        uint32_t bits = pick == 0 ? edges[rnd(sizeof edges / sizeof edges[0])]
                                  : (uint32_t)rnd(1u << 31) * 2 + (uint32_t)rnd(2);
        float scale;
        memcpy(&scale, &bits, 4);
        if (pick == 2 || !isfinite(scale))
            scale = (float)(1 + rnd(100000)) / 448000.0f;
        memcpy(&bits, &scale, 4);
        if (!tl_fp8s_lut_make(scale, &lut[b])) {
            snprintf(what, sizeof what, "%s fp8s_lut: no table for scale %08x", isa,
                     (unsigned)bits);
            fail(what);
        } else if (pick == 2 && !lut[b].nib_ok) {   /* their products are all normal */
            snprintf(what, sizeof what, "%s fp8s_lut: no nibble tables for scale %08x", isa,
                     (unsigned)bits);
            fail(what);
        }
        size_t len = b == 0 ? in : 128;
        if (len > n - at)
            len = n - at;
        tl_fp8s_bf16_scalar(c.p + at, NULL, scale, want.p + 2 * at, len);
        at += len;
    }
    k->fp8s_lut(c.p, lut, in, out.p, n, stream);
    if (stream && k->fence)
        k->fence();
    checks++;
    if (!same(&out, &want)) {
        size_t i = 0;
        while (i < n && memcmp(out.p + 2 * i, want.p + 2 * i, 2) == 0)
            i++;
        snprintf(what, sizeof what, "%s fp8s_lut: %zu codes from %zu before a block's end%s: "
                 "value %zu differs (or bytes past the end)", isa, n, in,
                 stream ? ", streamed" : "", i);
        fail(what);
    }
    if (tl_fp8s_lut_make(NAN, &lut[0]) || tl_fp8s_lut_make(-INFINITY, &lut[0]))
        fail("tl_fp8s_lut_make: a table for a scale that is not finite");
    free(lut);
    buf_free(&c);
    buf_free(&out);
    buf_free(&want);
}

/* The group-quantized code kernels (gq, SPEC 21) against their scalar
 * twins: n random codes of 4 or 8 bits (every length to 70, then long
 * runs), each source ending at an unreadable page, the floats written off
 * the vectors' alignment, a zero point anywhere in the codes' range and
 * beyond, a scale of FLOAT16's, BFLOAT16's or any bits; bit for bit. */
static void check_gq(const char *isa, tl_gq_fn fn, tl_gq_fn twin, tl_gq16_fn fn16,
                     tl_gq16_fn twin16, unsigned bits, size_t n, unsigned mis)
{
    struct buf q, out, want;
    size_t bytes = bits == 4 ? (n + 1) / 2 : n;
    buf_alloc(&q, bytes ? bytes : 1, true, 0);
    buf_alloc(&out, n * 4 + 4, false, mis * 4);
    buf_alloc(&want, n * 4 + 4, false, mis * 4);
    randomize(q.p, q.n);
    int32_t zero = (int32_t)rnd(bits == 4 ? 18 : 258) - 1;
    uint32_t sb = rnd(3) == 0 ? (uint32_t)rnd(1u << 31) * 2 + (uint32_t)rnd(2)
                : rnd(2) ? (uint32_t)(rnd(0x7f00) + 0x100) << 16 : 0x3a000000u + (uint32_t)rnd(1 << 20) * 8192;
    float scale;
    memcpy(&scale, &sb, 4);
    const uint8_t *src = q.p + q.n - bytes;
    if (fn16) {                         /* the BFLOAT16 slot: 2 bytes a value */
        twin16(src, n, zero, scale, want.p);
        fn16(src, n, zero, scale, out.p);
    } else {
        twin(src, n, zero, scale, (float *)(void *)want.p);
        fn(src, n, zero, scale, (float *)(void *)out.p);
    }
    checks++;
    if (!same(&out, &want)) {
        char what[160];
        snprintf(what, sizeof what, "%s gq%u%s: %zu codes, zero %d, scale %08x: values or the "
                 "bytes after them differ", isa, bits, fn16 ? "_bf16" : "", n, (int)zero,
                 (unsigned)sb);
        fail(what);
    }
    buf_free(&q);
    buf_free(&out);
    buf_free(&want);
}

/* Runs of 4-bit codes to BFLOAT16 (gq4_bf16_groups, SPEC 21) against the
 * scalar twin: ngroups runs of glen codes (even, a multiple of 32 or
 * not), each with its own zero point (inside the codes' range and beyond)
 * and scale (FLOAT16's, BFLOAT16's or any bits), the codes ending at an
 * unreadable page, the values off their alignment or on a cache line's
 * start or middle, with streaming stores or without; bit for bit. */
static void check_gq4g(const char *isa, tl_gq4g_fn fn, tl_gq4g_fn twin, tl_fence_fn fence,
                       size_t ngroups, size_t glen)
{
    struct buf q, out, want;
    size_t bytes = ngroups * glen / 2, n = ngroups * glen;
    buf_alloc(&q, bytes ? bytes : 1, true, 0);
    unsigned mis = rnd(2) ? (unsigned)rnd(16) * 2 : (unsigned)rnd(3) * 16;
    bool stream = rnd(2);
    buf_alloc(&out, n * 2 + 4, false, mis);
    buf_alloc(&want, n * 2 + 4, false, mis);
    randomize(q.p, q.n);
    int32_t zero[150];
    float scale[150];
    for (size_t g = 0; g < ngroups; g++) {
        zero[g] = (int32_t)rnd(18) - 1;
        uint32_t sb = rnd(3) == 0 ? (uint32_t)rnd(1u << 31) * 2 + (uint32_t)rnd(2)
                    : rnd(2) ? (uint32_t)(rnd(0x7f00) + 0x100) << 16
                             : 0x3a000000u + (uint32_t)rnd(1 << 20) * 8192;
        memcpy(&scale[g], &sb, 4);
    }
    const uint8_t *src = q.p + q.n - bytes;
    twin(src, ngroups, glen, zero, scale, want.p, false);
    fn(src, ngroups, glen, zero, scale, out.p, stream);
    if (stream && fence)
        fence();
    checks++;
    if (!same(&out, &want)) {
        char what[160];
        snprintf(what, sizeof what, "%s gq4_bf16_groups: %zu runs of %zu codes: values or the "
                 "bytes after them differ", isa, ngroups, glen);
        fail(what);
    }
    buf_free(&q);
    buf_free(&out);
    buf_free(&want);
}

/* AWQ's words as rows of codes (awq8, SPEC 21) against the scalar twin:
 * 8 inputs of ncol random words (0 to 16) at a random stride, the last
 * ending at an unreadable page, into 8 rows (one a place) of a random pitch
 * whose other words must stay as they were; a random place order. */
static void check_awq8(const char *isa, tl_awq8_fn fn, tl_awq8_fn twin, size_t ncol)
{
    size_t stride = ncol * 4 + 4 * rnd(20), pitch = ncol + rnd(40), n = (8 * pitch + 1) * 4;
    struct buf src, out, want;
    buf_alloc(&src, 7 * stride + ncol * 4 + 1, true, 0);
    buf_alloc(&out, n, false, 4 * (unsigned)rnd(16));
    buf_alloc(&want, n, false, (unsigned)(out.p - (uint8_t *)out.map));
    randomize(src.p, src.n);
    randomize(out.p, n);
    memcpy(want.p, out.p, n);
    uint8_t place[8] = { 0, 1, 2, 3, 4, 5, 6, 7 };
    for (unsigned k = 7; k > 0; k--) {
        unsigned j = (unsigned)rnd(k + 1);
        uint8_t t = place[k];
        place[k] = place[j], place[j] = t;
    }
    const uint8_t *from = src.p + 1;    /* the words off their alignment */
    twin(from, stride, ncol, place, (uint32_t *)(void *)want.p, pitch);
    fn(from, stride, ncol, place, (uint32_t *)(void *)out.p, pitch);
    checks++;
    if (!same(&out, &want)) {
        char what[160];
        snprintf(what, sizeof what, "%s awq8: %zu columns, stride %zu, pitch %zu: rows differ",
                 isa, ncol, stride, pitch);
        fail(what);
    }
    buf_free(&src);
    buf_free(&out);
    buf_free(&want);
}

/* Every slot a table fills, against the scalar table's twin. */
static void check_table(const char *isa, const struct tl_kernels *k)
{
    const struct tl_kernels *z = &tl_kernels_scalar;
    static const size_t big[] = { 63, 64, 65, 127, 200, 1000 };
    for (unsigned ty = 0; ty < TL_GGML_SLOTS; ty++) {
        if (!k->dequant[ty])
            continue;
        if (!z->dequant[ty]) {
            fail("a dequant slot without a scalar twin");
            continue;
        }
        for (size_t nb = 0; nb <= 9; nb++)
            check_dequant(isa, k->dequant[ty], z->dequant[ty], ty, nb, (unsigned)rnd(16));
        for (int r = 0; r < 20; r++)
            check_dequant(isa, k->dequant[ty], z->dequant[ty], ty, 10 + rnd(200),
                          (unsigned)rnd(16));
    }
    for (size_t n = 0; n <= 70; n++)
        check_scaled_bf16(isa, k, n, (unsigned)rnd(16));
    for (int r = 0; r < 40; r++)
        check_scaled_bf16(isa, k, 100 + rnd(20000), (unsigned)rnd(16));
    for (int r = 0; k->fp8s_lut && r < 120; r++) {
        size_t n = r < 70 ? (size_t)r : 100 + rnd(r < 100 ? 400 : 20000);
        check_fp8s_lut(isa, k, n, 1 + rnd(128), (unsigned)(rnd(4) ? rnd(64) : 0), rnd(2));
    }
    for (unsigned b = 0; b < 4; b++) {
        bool bf = b >= 2;
        tl_gq_fn f = bf ? NULL : k->gq[b % 2];
        tl_gq16_fn f16 = bf ? k->gq_bf16[b % 2] : NULL;
        if (bf ? !f16 || f16 == z->gq_bf16[b % 2] : !f || f == z->gq[b % 2])
            continue;
        for (size_t n = 0; n <= 70; n++)
            check_gq(isa, f, z->gq[b % 2], f16, z->gq_bf16[b % 2], b % 2 ? 8 : 4, n,
                     (unsigned)rnd(16));
        for (int r = 0; r < 40; r++)
            check_gq(isa, f, z->gq[b % 2], f16, z->gq_bf16[b % 2], b % 2 ? 8 : 4,
                     71 + rnd(5000), (unsigned)rnd(16));
    }
    for (int r = 0; k->gq4_bf16_groups && k->gq4_bf16_groups != z->gq4_bf16_groups && r < 200;
         r++)
        check_gq4g(isa, k->gq4_bf16_groups, z->gq4_bf16_groups, k->fence, (size_t)rnd(r < 100 ? 4 : 150),
                   r % 2 ? 32 * (1 + rnd(8)) : 2 * (1 + rnd(150)));
    for (int r = 0; k->awq8 && k->awq8 != z->awq8 && r < 200; r++)
        check_awq8(isa, k->awq8, z->awq8, r < 17 ? (size_t)r : (size_t)rnd(17));
    if (k->mx4 && k->mx4 != z->mx4) {
        for (size_t nb = 0; nb <= 9; nb++)
            check_mx4(isa, k->mx4, nb, (unsigned)rnd(16));
        for (int r = 0; r < 20; r++)
            check_mx4(isa, k->mx4, 10 + rnd(600), (unsigned)rnd(16));
    }
    for (int sdt = 0; sdt < TL_DT_COUNT; sdt++)
        for (int ddt = 0; ddt < TL_DT_COUNT; ddt++)
            if (k->cvt[sdt][ddt])
                check_cvt(isa, k->cvt[sdt][ddt], (enum tl_dtype)sdt, (enum tl_dtype)ddt);
    for (int sdt = 0; sdt < TL_DT_COUNT; sdt++) {
        for (int ddt = 0; ddt < TL_DT_COUNT; ddt++) {
            for (int nt = 0; nt < 2; nt++) {
                tl_tcvt_fn f = (nt ? k->tcvt_nt : k->tcvt)[sdt][ddt];
                if (!f)
                    continue;
                for (size_t r = 0; r <= 2 * 64 + 1; r += 1 + rnd(5))
                    for (size_t c = 0; c <= 2 * 16 + 1; c += 1 + rnd(3))
                        check_tcvt(isa, f, (enum tl_dtype)sdt, (enum tl_dtype)ddt, r, c,
                                   nt && rnd(2), -1);
                for (size_t i = 0; i < sizeof big / sizeof big[0]; i++)
                    check_tcvt(isa, f, (enum tl_dtype)sdt, (enum tl_dtype)ddt, big[i],
                               big[5 - i] / 3 + 1, nt, -1);
                /* a kernel may choose its steps' way by what the steps
                 * before it met (AVX2's and AVX-512's SURE_STEPS, AVX2's
                 * WARY_STEPS): runs of clean steps, more than such a
                 * memory lasts, around ones that meet edge values */
                static const int runs[] = { 2, 0, 2, 2, 1, 0, 0, 2 };
                for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++)
                    check_tcvt(isa, f, (enum tl_dtype)sdt, (enum tl_dtype)ddt, 64,
                               runs[i] ? 16 * 48 + 3 : 16 * 4, nt, runs[i]);
            }
        }
    }
    for (int sgn = 0; sgn < 2; sgn++) {
        for (size_t n = 0; n <= 2 * 128 + 1; n++)
            check_nibble_kernels(isa, k, sgn, n);
        check_nibble_kernels(isa, k, sgn, 4099);
    }
    for (int kind = 0; kind < 2; kind++) {     /* copy, copy_stream then fence */
        tl_copy_fn f = kind == 0 ? k->copy : k->copy_stream;
        tl_fence_fn fence = kind == 1 ? k->fence : NULL;
        if (!f)
            continue;
        for (size_t n = 0; n <= 2 * 256 + 1; n++)
            check_copy_kernel(isa, f, fence, n);
        check_copy_kernel(isa, f, fence, 100003);
    }
    for (unsigned w = 0; w < TL_NW; w++) {
        size_t B = 64 >> w;            /* past two blocks of the widest kernel */
        if (k->transpose[w]) {
            for (size_t r = 0; r <= 2 * B + 1; r += 1 + rnd(3))
                for (size_t c = 0; c <= 2 * B + 1; c += 1 + rnd(5))
                    check_transpose(isa, k->transpose[w], z->transpose[w], w, r, c, false);
            for (size_t i = 0; i < sizeof big / sizeof big[0]; i++)
                check_transpose(isa, k->transpose[w], z->transpose[w], w, big[i], big[5 - i] / 3 + 1, false);
            for (size_t c = 1; c < B; c += 1 + rnd(2))     /* thin and tall: 3 x 3 weights */
                check_transpose(isa, k->transpose[w], z->transpose[w], w, 517 + rnd(9), c, false);
            /* rows of two to four lines (NHWC of 32-64 FLOAT32 channels),
             * which go across bands of rows, and a few past that size;
             * rows and columns left over */
            for (size_t c = 2 * B - 1; c <= 4 * B + 2; c += 1 + rnd(4))
                check_transpose(isa, k->transpose[w], z->transpose[w], w, 3 * B + rnd(B + 1), c,
                                false);
        }
        if (k->transpose_nt[w]) {
            for (size_t r = 0; r <= 2 * B + 1; r += 1 + rnd(3))
                for (size_t c = 0; c <= 2 * B + 1; c += 1 + rnd(5))
                    check_transpose(isa, k->transpose_nt[w], z->transpose[w], w, r, c, rnd(2));
            for (size_t i = 0; i < sizeof big / sizeof big[0]; i++)
                check_transpose(isa, k->transpose_nt[w], z->transpose[w], w, big[i], big[5 - i] / 3 + 1, true);
            for (size_t c = 1; c < B; c += 1 + rnd(2))
                check_transpose(isa, k->transpose_nt[w], z->transpose[w], w, 517 + rnd(9), c, rnd(2));
            /* shapes about the edges where AVX2's and AVX-512's streaming
             * transposes trade places on AMD Zen 4 (calib.c races them) */
            static const size_t edge[][2] = { { 95, 600 }, { 96, 512 }, { 200, 511 },
                                              { 200, 777 }, { 512, 530 }, { 513, 520 } };
            for (size_t i = 0; i < sizeof edge / sizeof edge[0]; i++)
                check_transpose(isa, k->transpose_nt[w], z->transpose[w], w, edge[i][0], edge[i][1],
                                true);
            /* source rows of two to four lines, and just past: the streaming
             * driver then goes across bands of rows (TL_DEFINE_SQUARE_STEPS) */
            size_t line = 64 >> w;
            static const size_t tall[] = { 0, 1, 15, 16, 17, 63, 64, 100 };
            for (size_t c = 2 * line - 1; c <= 5 * line + 1; c += 1 + rnd(3))
                for (size_t i = 0; i < sizeof tall / sizeof tall[0]; i++)
                    check_transpose(isa, k->transpose_nt[w], z->transpose[w], w,
                                    tall[i] + (i + 1 == sizeof tall / sizeof tall[0]) * rnd(64),
                                    c, i % 4 != 3);
        }
        for (int nt = 0; nt < 2; nt++) {
            tl_fill_fn f = nt ? k->fill_nt[w] : k->fill[w];
            if (!f)
                continue;
            for (size_t n = 0; n <= 2 * (256u >> w) + 1; n++)
                check_fill(isa, f, z->fill[w], w, n);
            for (size_t n = (4096u >> w) - 2; n <= (4096u >> w) + 2; n++)   /* TL_REP_MIN's edge */
                check_fill(isa, f, z->fill[w], w, n);
            check_fill(isa, f, z->fill[w], w, 100003);
        }
        for (int c = 0; c < 3; c++) {
            tl_interleave_fn il = k->interleave[c][w];
            tl_deinterleave_fn de = k->deinterleave[c][w];
            if (!il && !de)
                continue;
            for (size_t n = 0; n <= 2 * 32 + 1; n++)
                check_interleave(isa, c, w, n, il, z->interleave[c][w], de, z->deinterleave[c][w]);
            check_interleave(isa, c, w, 4099, il, z->interleave[c][w], de, z->deinterleave[c][w]);
        }
    }
}

/* ---- 2. whole copies ------------------------------------------------------- */

static const uint64_t odd_sizes[] = { 1, 2, 3, 5, 7, 11, 13, 17, 31, 67 };

static void packed_order(unsigned rank, const uint64_t *sizes, uint64_t *strides, bool pad,
                         unsigned bmask)
{
    unsigned order[TL_MAX_RANK];
    for (unsigned i = 0; i < rank; i++)
        order[i] = i;
    for (unsigned i = rank; i > 1; i--) {
        unsigned j = (unsigned)rnd(i), t = order[i - 1];
        order[i - 1] = order[j];
        order[j] = t;
    }
    uint64_t step = 1;
    for (unsigned k = rank; k-- > 0;) {
        unsigned ax = order[k];
        if (bmask & (1u << ax)) {
            strides[ax] = 0;
            continue;
        }
        strides[ax] = step;
        step = step * sizes[ax] + (pad && rnd(3) == 0 ? 1 + rnd(4) : 0);
    }
}

static void print_desc(const struct tl_desc *d)
{
    fprintf(stderr, "{\"dataType\": \"%s\", \"sizes\": [", tl_dtype_name(d->dtype));
    for (unsigned i = 0; i < d->rank; i++)
        fprintf(stderr, "%s%" PRIu64, i ? ", " : "", d->sizes[i]);
    fprintf(stderr, "], \"strides\": [");
    for (unsigned i = 0; i < d->rank; i++)
        fprintf(stderr, "%s%" PRIu64, i ? ", " : "", d->strides[i]);
    fprintf(stderr, "], \"byteOffset\": %" PRIu64 "}\n", d->byte_offset);
}

static int kinds_seen[6][TL_NW];
static int converted[TL_DT_COUNT][TL_DT_COUNT];

/* Copies src into dst with every supported ceiling and 1 and 2 threads. */
static void check_copy(struct tl_desc *src, struct tl_desc *dst)
{
    struct tl_error err;
    if (tl_desc_validate(src, &err) || tl_desc_validate(dst, &err))
        return;
    struct tl_copy_plan plan;
    if (tl_copy_plan(&plan, src, dst, &err))
        return;                        /* an overlapping destination, say */
    kinds_seen[plan.kind][plan.shift]++;
    struct buf s, want;
    bool at_end = rnd(2);
    buf_alloc(&s, plan.src_bytes, at_end, (unsigned)rnd(64));
    randomize(s.p, plan.src_bytes);
    unsigned dmis = (unsigned)rnd(64);
    buf_alloc(&want, plan.dst_bytes, !at_end, dmis);
    tl_copy_ref(src, s.p, dst, want.p);
    uint64_t first[TL_MAX_RANK];
    int want_unfit = src->dtype != dst->dtype && tl_convert_find_bad(src, s.p, dst->dtype, first);
    if (src->dtype != dst->dtype)
        converted[src->dtype][dst->dtype]++;
    for (int isa = 0; isa < TL_ISA_COUNT; isa++) {
        if (!tl_isa_supported((enum tl_isa)isa))
            continue;
        for (unsigned threads = 1; threads <= 2; threads++) {
            struct buf got;
            buf_alloc(&got, plan.dst_bytes, !at_end, dmis);
            plan.isa = (enum tl_isa)isa;
            plan.stream = rnd(2);      /* both store kinds, whatever the size */
            plan.stream_threads = rnd(2);
            int unfit = tl_copy_run(&plan, s.p, got.p, threads, NULL, NULL);
            checks++;
            if (!same(&got, &want) || unfit != want_unfit) {
                char what[128];
                snprintf(what, sizeof what, "copy (%s, %s, %u threads, streaming: %s on one thread, "
                         "%s on more):", tl_copy_kind_name(plan.kind), tl_isa_name((enum tl_isa)isa),
                         threads, plan.stream ? "yes" : "no", plan.stream_threads ? "yes" : "no");
                fail(what);
                if (failures <= 20) {
                    print_desc(src);
                    print_desc(dst);
                }
            }
            buf_free(&got);
        }
    }
    buf_free(&s);
    buf_free(&want);
}

/* tl_copy_plan_same_kernels() against the table slots each kind of plan
 * calls: make bench times ISAs it calls the same once, so a wrong "same"
 * would hide a variant. */
static void check_same_kernels(void)
{
    static const uint64_t nchw[4] = { 2, 64, 8, 9 };
    unsigned to_nhwc[4] = { 0, 2, 3, 1 }, id[4] = { 0, 1, 2, 3 };
    struct tl_desc a = { .dtype = TL_DT_FLOAT32, .rank = 4 }, b = a, g = a;
    memcpy(a.sizes, nchw, sizeof nchw);
    memcpy(b.sizes, nchw, sizeof nchw);
    tl_strides_for_order(4, nchw, id, 0, a.strides, NULL);
    tl_strides_for_order(4, nchw, to_nhwc, 0, b.strides, NULL);
    struct tl_desc h = b;              /* NHWC FLOAT16: a converting transpose */
    h.dtype = TL_DT_FLOAT16;
    g.rank = 1;                        /* every third element: general */
    g.sizes[0] = 100;
    g.strides[0] = 3;
    struct tl_desc gd = g;
    gd.strides[0] = 1;
    struct { struct tl_desc *s, *d; enum tl_copy_kind kind; } cases[] = {
        { &a, &a, TL_COPY_CONTIG }, { &a, &b, TL_COPY_TRANSPOSE }, { &g, &gd, TL_COPY_GENERAL },
        { &a, &h, TL_COPY_TRANSPOSE },
    };
    int differ = 0, isas = 0;
    bool wants[2][TL_ISA_COUNT][TL_ISA_COUNT];
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        struct tl_copy_plan p;
        struct tl_error err;
        if (tl_copy_plan(&p, cases[c].s, cases[c].d, &err) || p.kind != cases[c].kind) {
            fail("same kernels: a test plan is not of its kind");
            continue;
        }
        for (int st = 0; st < 2; st++) {
            p.stream = p.stream_threads = st;
            isas = 0;
            for (int i = 0; i < TL_ISA_COUNT; i++) {
                if (!tl_isa_supported((enum tl_isa)i))
                    continue;
                isas++;
                const struct tl_kernels *ki = tl_kernels_for((enum tl_isa)i);
                for (int j = 0; j < TL_ISA_COUNT; j++) {
                    if (!tl_isa_supported((enum tl_isa)j))
                        continue;
                    const struct tl_kernels *kj = tl_kernels_for((enum tl_isa)j);
                    bool want = true, same_out = ki->copy_stream == kj->copy_stream &&
                                                 ki->fence == kj->fence;
                    const int F = TL_DT_FLOAT32, H = TL_DT_FLOAT16;
                    tl_tcvt_fn ti = (st ? ki->tcvt_nt : ki->tcvt)[F][H];
                    tl_tcvt_fn tj = (st ? kj->tcvt_nt : kj->tcvt)[F][H];
                    if (p.convert)     /* a fused kernel, or transpose then convert */
                        want = ti || tj ? ti == tj
                                        : ki->transpose[2] == kj->transpose[2] &&
                                              ki->cvt[F][H] == kj->cvt[F][H] && (!st || same_out);
                    else if (p.kind == TL_COPY_CONTIG)
                        want = st ? same_out : ki->copy == kj->copy;
                    else if (p.kind == TL_COPY_TRANSPOSE)
                        want = st ? ki->transpose_nt[2] == kj->transpose_nt[2]
                                  : ki->transpose[2] == kj->transpose[2];
                    checks++;
                    differ += !want;
                    wants[st][i][j] = want;
                    if (tl_copy_plan_same_kernels(&p, (enum tl_isa)i, (enum tl_isa)j) != want)
                        fail("same kernels: the answer does not match the table slots");
                }
            }
        }
        /* a plan whose store kind depends on the thread count calls the
         * same kernels only when both kinds do */
        for (int st = 0; st < 2; st++) {
            p.stream = st;
            p.stream_threads = !st;
            for (int i = 0; i < TL_ISA_COUNT; i++) {
                for (int j = 0; j < TL_ISA_COUNT; j++) {
                    if (!tl_isa_supported((enum tl_isa)i) || !tl_isa_supported((enum tl_isa)j))
                        continue;
                    checks++;
                    if (tl_copy_plan_same_kernels(&p, (enum tl_isa)i, (enum tl_isa)j) !=
                        (wants[0][i][j] && wants[1][i][j]))
                        fail("same kernels: a plan with both store kinds is answered for one");
                }
            }
        }
    }
    if (isas > 1 && differ == 0)
        fail("same kernels: no pair of ISAs differed (the transposes should)");
    printf("same kernels: %d pairs of ISAs differ on the test plans\n", differ);
}

/* The dispatch as a function of (shape, calibration): for the built-in
 * rules, the recorded calibrations of tests/calib/ (an AMD Zen 5 guest,
 * measured at two moments: when its second core added 16% of memcpy's
 * bandwidth, and when it doubled it; an Intel Xeon guest, from the
 * figures of issue 37) and a
 * made-up one that gives every contested slot to AVX2, plans of each kind
 * of copy from 1 to 192 MiB must stream exactly above the calibration's
 * size for their kind and thread count, run on two threads exactly from
 * its thread floor, and run the kernel the calibration names for each
 * contested slot.  Planning only: the kernels themselves are checked above,
 * every ISA's, so whichever a calibration picks has been run. */
static bool read_calibration(const char *name, struct tl_calib *cal)
{
#ifdef TL_NO_ZLIB
    /* built without the text form (make test-neon): the built-in rules
     * stand in, and the checks that name a machine are left to the native
     * run */
    (void)name;
    tl_calib_default(cal);
    return false;
#else
    const char *dir = getenv("TL_CALIB_DIR") ? getenv("TL_CALIB_DIR") : "tests/calib";
    char path[512], text[8192];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "rb");
    size_t n = f ? fread(text, 1, sizeof text, f) : 0;
    if (f)
        fclose(f);
    struct tl_error err;
    if (!f || tl_calib_parse(text, n, cal, &err)) {
        printf("  %s: %s\n", path, f ? err.msg : "cannot read");
        fail("calibrations: a recorded calibration does not read");
        return false;
    }
    return true;
#endif
}

static void check_calibrated_choices(void)
{
    struct tl_calib cals[8];
    const char *names[8] = { "built-in", "amd-epyc-zen5.txt", "intel-xeon-issue37.txt", "avx2 slots",
                             "amd-epyc-zen5-2x.txt", "intel-xeon-16core-issue50.txt",
                             "intel-xeon-emr-2x.txt", "amd-epyc-zen4-2x.txt" };
    tl_calib_default(&cals[0]);
    bool recorded = read_calibration(names[1], &cals[1]) &&
                    read_calibration(names[2], &cals[2]) && read_calibration(names[4], &cals[4]) &&
                    read_calibration(names[5], &cals[5]) && read_calibration(names[6], &cals[6]) &&
                    read_calibration(names[7], &cals[7]);
#ifndef TL_NO_ZLIB
    if (!recorded)
        return;
#endif
    cals[3] = cals[1];
    for (int s = 0; s < TL_CAL_SLOTS; s++)
        cals[3].slot_isa[s] = TL_ISA_AVX2;
    cals[3].slot_isa[TL_CAL_COPY] = TL_ISA_SCALAR;           /* the C library's memcpy */
    cals[3].stream_from[TL_CAL_ROWS][0] = 0;                  /* both ends of a size */
    cals[3].stream_from[TL_CAL_ROWS][1] = TL_CAL_NEVER;
    cals[3].threads_from[TL_CAL_FILL] = 0;
    struct kind {
        const char *name;
        enum tl_dtype s, d;
        unsigned ch;                   /* C: an HWC source of C channels into CHW; 0: flat */
        bool bcast;                    /* a stride-0 source: a fill */
        bool transpose;                /* NCHW into NHWC */
        bool gather;                   /* every third source element */
        enum tl_copy_kind kind;
        enum tl_cal_kind ck;
    } kinds[] = {
        { "flat copy", TL_DT_FLOAT32, TL_DT_FLOAT32, 0, false, false, false, TL_COPY_CONTIG, TL_CAL_FLAT },
        { "widening", TL_DT_FLOAT16, TL_DT_FLOAT32, 0, false, false, false, TL_COPY_CONTIG, TL_CAL_FLAT },
        { "unpadding", TL_DT_FLOAT32, TL_DT_FLOAT32, 0, false, false, false, TL_COPY_CONTIG, TL_CAL_ROWS },
        { "deinterleave", TL_DT_UINT8, TL_DT_FLOAT32, 3, false, false, false, TL_COPY_DEINTERLEAVE, TL_CAL_ROWS },
        { "fill", TL_DT_FLOAT32, TL_DT_FLOAT32, 0, true, false, false, TL_COPY_FILL, TL_CAL_FILL },
        { "transpose", TL_DT_FLOAT32, TL_DT_FLOAT32, 0, false, true, false, TL_COPY_TRANSPOSE, TL_CAL_TRANSPOSE_WIDE },
        { "transpose16", TL_DT_FLOAT16, TL_DT_FLOAT16, 0, false, true, false, TL_COPY_TRANSPOSE, TL_CAL_TRANSPOSE_NARROW },
        { "general", TL_DT_FLOAT32, TL_DT_FLOAT32, 0, false, false, true, TL_COPY_GENERAL, TL_CAL_GENERAL },
        { "bands", TL_DT_FLOAT32, TL_DT_FLOAT32, 64, false, false, false, TL_COPY_TRANSPOSE, TL_CAL_BANDS },
    };
    for (int c = 0; c < (recorded ? 8 : 5); c++) {
        const struct tl_calib *cal = &cals[c];
        for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
            const struct kind *q = &kinds[k];
            for (uint64_t mib = 1; mib <= 192; mib += mib < 16 ? 1 : 7) {
                uint64_t bytes = mib << 20, per = tl_dtype_size(q->s) + tl_dtype_size(q->d);
                uint64_t n = bytes / per / 64 * 64;        /* elements */
                if (q->bcast)
                    n = bytes / tl_dtype_size(q->d) / 64 * 64;
                struct tl_desc a = { .dtype = q->s, .rank = 3 }, b = { .dtype = q->d, .rank = 3 };
                uint64_t sz[3] = { q->ch ? q->ch : 64, 1, n / (q->ch ? q->ch : 64) };
                unsigned id[3] = { 0, 1, 2 }, hwc[3] = { 1, 2, 0 };
                memcpy(a.sizes, sz, sizeof sz);
                memcpy(b.sizes, sz, sizeof sz);
                tl_strides_for_order(3, sz, q->ch ? hwc : id, 0, a.strides, NULL);
                tl_strides_for_order(3, sz, q->transpose ? hwc : id, 0, b.strides, NULL);
                if (q->bcast)
                    a.strides[0] = a.strides[1] = a.strides[2] = 0;
                if (q->gather)
                    for (int i = 0; i < 3; i++)
                        a.strides[i] *= 3;
                if (q->ck == TL_CAL_ROWS && !q->ch)       /* a pitch of 1.25 rows */
                    a.strides[0] = a.strides[0] / 64 * 80;
                struct tl_copy_plan p, again;
                struct tl_error err;
                checks++;
                if (tl_copy_plan_for(&p, &a, &b, cal, &err) || p.kind != q->kind) {
                    fail("calibrations: a test plan is not of its kind");
                    printf("  %s at %" PRIu64 " MiB: %s\n", q->name, mib, tl_copy_kind_name(p.kind));
                    break;
                }
                /* a pure function: the same inputs, the same plan */
                tl_copy_plan_for(&again, &a, &b, cal, &err);
                if (memcmp(&p, &again, sizeof p))
                    fail("calibrations: planning twice gave two plans");
                uint64_t io = p.src_bytes + p.dst_bytes;
                uint64_t out = p.count * (p.es > p.des ? p.es : p.des);
                bool st1 = io > cal->stream_from[q->ck][0], st2 = io > cal->stream_from[q->ck][1];
                unsigned want = out >= cal->threads_from[q->ck] ? 2 : 1;
                if (p.stream != st1 || p.stream_threads != st2 ||
                    tl_copy_streams(&p, 1) != st1 || tl_copy_streams(&p, 2) != (want > 1 ? st2 : st1) ||
                    tl_copy_threads_used(&p, 2) != want || tl_copy_threads_used(&p, 1) != 1) {
                    fail("calibrations: a plan does not follow its calibration");
                    printf("  %s, %s at %" PRIu64 " MiB: streams %d/%d (want %d/%d), %u threads "
                           "(want %u)\n", names[c], q->name, mib, p.stream, p.stream_threads, st1,
                           st2, tl_copy_threads_used(&p, 2), want);
                }
                /* past two threads: never more than the size's level pays
                 * for (issue 50), whatever is asked */
                for (unsigned ask = 3; ask <= 64; ask = ask * 2 + 1) {
                    unsigned most = want;
                    for (unsigned l = 0; want > 1 && l < TL_CAL_LEVELS; l++)
                        if (out >= cal->threads_at[q->ck][l])
                            most = 4u << l;
                    unsigned got = tl_copy_threads_used(&p, ask);
                    checks++;
                    if (got > (ask < most ? ask : most) || (want == 1 && got != 1)) {
                        fail("calibrations: a plan takes more threads than its size's level");
                        printf("  %s, %s at %" PRIu64 " MiB: %u threads of %u asked (at most "
                               "%u)\n", names[c], q->name, mib, got, ask, most);
                    }
                }
            }
        }
        /* the kernel table: each contested slot is the named ISA's when
         * the CPU has it, else the widest ISA's */
        enum tl_isa best = tl_isa_best(TL_ISA_COUNT);
        struct tl_kernels plain, k;
        tl_kernels_build(best, NULL, &plain);
        tl_kernels_build(best, cal, &k);
        for (int s = 0; s < TL_CAL_SLOTS; s++) {
            enum tl_isa isa = cal->slot_isa[s];
            struct tl_kernels narrow;
            const struct tl_kernels *from = &plain;
            if (isa < best && tl_isa_supported(isa)) {
                tl_kernels_build(isa, NULL, &narrow);
                from = &narrow;
            }
            const void *got, *want;
            switch (s) {
            case TL_CAL_TRANSPOSE4:    got = (const void *)k.transpose[2]; want = (const void *)from->transpose[2]; break;
            case TL_CAL_TRANSPOSE8:    got = (const void *)k.transpose[3]; want = (const void *)from->transpose[3]; break;
            case TL_CAL_TRANSPOSE4_NT: got = (const void *)k.transpose_nt[2]; want = (const void *)from->transpose_nt[2]; break;
            case TL_CAL_TRANSPOSE8_NT: got = (const void *)k.transpose_nt[3]; want = (const void *)from->transpose_nt[3]; break;
            case TL_CAL_COPY:          got = (const void *)k.copy; want = (const void *)from->copy; break;
            default: got = (const void *)k.cvt[TL_DT_FLOAT32][TL_DT_FLOAT16];
                     want = (const void *)from->cvt[TL_DT_FLOAT32][TL_DT_FLOAT16]; break;
            }
            checks++;
            if (got != want) {
                fail("calibrations: a kernel slot is not the calibration's ISA's");
                printf("  %s: slot %s\n", names[c], tl_cal_slot_name((enum tl_cal_slot)s));
            }
        }
        if (k.copy_stream != plain.copy_stream || k.fill[2] != plain.fill[2])
            fail("calibrations: a slot no calibration contests changed");
    }
    if (!recorded) {
        printf("calibrations: the built-in rules and a made-up one (no recorded files in "
               "this build)\n");
        return;
    }
    /* what the two machines imply, case by case (make bench's names) */
    struct tl_desc s = { .dtype = TL_DT_FLOAT32, .rank = 4, .sizes = { 1, 64, 112, 112 } };
    struct tl_desc d = s;
    unsigned nchw[4] = { 0, 1, 2, 3 }, nhwc[4] = { 0, 2, 3, 1 };
    tl_strides_for_order(4, s.sizes, nchw, 0, s.strides, NULL);
    tl_strides_for_order(4, d.sizes, nhwc, 0, d.strides, NULL);
    struct tl_copy_plan pb, pa, pi;
    struct tl_error err;
    tl_copy_plan_for(&pb, &s, &d, &cals[0], &err);
    tl_copy_plan_for(&pi, &s, &d, &cals[2], &err);
    checks++;
    /* nchw_nhwc_f32_s (3.2 MB): on the Intel guest, where the second core
     * doubles the bandwidth, two threads with ordinary stores; the AMD
     * guest measured its streamed FLOAT32 transposes faster from 2 MiB on
     * one thread, and streams it there */
    tl_copy_plan_for(&pa, &s, &d, &cals[1], &err);
    if (tl_copy_threads_used(&pi, 2) != 2 || pi.stream || pi.stream_threads || !pa.stream ||
        pa.stream_threads || pb.stream)
        fail("calibrations: nchw_nhwc_f32_s's choices do not follow the calibrations");
    /* nchw_nhwc_f16_m (12.8 MB a side): every one streams it on one thread,
     * the AMD guest on two as well (above 16 MiB), the Intel guest too */
    s.dtype = d.dtype = TL_DT_FLOAT16;
    s.sizes[0] = d.sizes[0] = 8;
    tl_strides_for_order(4, s.sizes, nchw, 0, s.strides, NULL);
    tl_strides_for_order(4, d.sizes, nhwc, 0, d.strides, NULL);
    tl_copy_plan_for(&pa, &s, &d, &cals[1], &err);
    tl_copy_plan_for(&pi, &s, &d, &cals[2], &err);
    checks++;
    if (!pa.stream || !pa.stream_threads || !pi.stream || tl_copy_threads_used(&pa, 2) != 2)
        fail("calibrations: nchw_nhwc_f16_m's store kinds do not follow the calibrations");
    /* the 16-core Intel Xeon of issue 50, asked for 16 threads: the 3.2 MB
     * FLOAT32 NCHW -> NHWC on 4 (8 and 16 lost most of it), the 25.7 MB one
     * on 16, a 1080p frame's bytes HWC -> CHW on one; the built-in rules
     * never send more than 4 threads at the 3.2 MB copy either */
    s.dtype = d.dtype = TL_DT_FLOAT32;
    s.sizes[0] = d.sizes[0] = 1;
    tl_strides_for_order(4, s.sizes, nchw, 0, s.strides, NULL);
    tl_strides_for_order(4, d.sizes, nhwc, 0, d.strides, NULL);
    struct tl_copy_plan p16;
    tl_copy_plan_for(&p16, &s, &d, &cals[5], &err);
    tl_copy_plan_for(&pb, &s, &d, &cals[0], &err);
    unsigned small16 = tl_copy_threads_used(&p16, 16), small_builtin = tl_copy_threads_used(&pb, 16);
    s.sizes[0] = d.sizes[0] = 8;
    tl_strides_for_order(4, s.sizes, nchw, 0, s.strides, NULL);
    tl_strides_for_order(4, d.sizes, nhwc, 0, d.strides, NULL);
    tl_copy_plan_for(&p16, &s, &d, &cals[5], &err);
    unsigned large16 = tl_copy_threads_used(&p16, 16);
    struct tl_desc hwc = { .dtype = TL_DT_UINT8, .rank = 3, .sizes = { 3, 1080, 1920 } }, chw = hwc;
    unsigned id3[3] = { 0, 1, 2 }, hwc3[3] = { 1, 2, 0 };
    tl_strides_for_order(3, hwc.sizes, hwc3, 0, hwc.strides, NULL);
    tl_strides_for_order(3, chw.sizes, id3, 0, chw.strides, NULL);
    tl_copy_plan_for(&p16, &hwc, &chw, &cals[5], &err);
    unsigned frame16 = tl_copy_threads_used(&p16, 16);
    checks++;
    if (small16 != 4 || large16 != 16 || frame16 != 1 || small_builtin > 4) {
        fail("calibrations: the 16-core machine's thread counts do not follow its calibration");
        printf("  3.2 MB: %u threads (want 4; built-in rules %u, want <= 4), 25.7 MB: %u (want "
               "16), 1080p HWC -> CHW: %u (want 1)\n", small16, small_builtin, large16, frame16);
    }
    /* the AMD EPYC Zen 4 guest (family 25 model 17), where make bench
     * measured two threads at 1.66-2.57 of one on nchw_nhwc_f32_s (3.2
     * MB), and on ncdhw_ndhwc_f32 (12.8 MB a side) 1.64-1.73 of one with
     * streaming stores but 0.68-0.90 with ordinary ones: both on two
     * threads, the 5-D one streamed there */
    s.sizes[0] = d.sizes[0] = 1;
    tl_strides_for_order(4, s.sizes, nchw, 0, s.strides, NULL);
    tl_strides_for_order(4, d.sizes, nhwc, 0, d.strides, NULL);
    tl_copy_plan_for(&pa, &s, &d, &cals[7], &err);
    unsigned small4 = tl_copy_threads_used(&pa, 2);
    struct tl_desc s5 = { .dtype = TL_DT_FLOAT32, .rank = 5, .sizes = { 2, 32, 16, 56, 56 } };
    struct tl_desc d5 = s5;
    unsigned ncdhw[5] = { 0, 1, 2, 3, 4 }, ndhwc[5] = { 0, 2, 3, 4, 1 };
    tl_strides_for_order(5, s5.sizes, ncdhw, 0, s5.strides, NULL);
    tl_strides_for_order(5, d5.sizes, ndhwc, 0, d5.strides, NULL);
    tl_copy_plan_for(&pa, &s5, &d5, &cals[7], &err);
    checks++;
    if (small4 != 2 || tl_copy_threads_used(&pa, 2) != 2 || !tl_copy_streams(&pa, 2)) {
        fail("calibrations: the Zen 4 guest's two-thread choices do not follow its calibration");
        printf("  3.2 MB: %u threads (want 2); 5-D 12.8 MB: %u threads (want 2), %s (want "
               "streamed)\n", small4, tl_copy_threads_used(&pa, 2),
               tl_copy_streams(&pa, 2) ? "streamed" : "ordinary stores");
    }
    printf("calibrations: %s, %s, %s, %s, %s, %s, %s and %s followed by plans of 8 kinds, "
           "1-192 MiB, 1-64 threads\n", names[0], names[1], names[4], names[7], names[2],
           names[5], names[6], names[3]);
}

static void random_copy(void)
{
    struct tl_desc src = { 0 }, dst = { 0 };
    static const enum tl_dtype types[] = { TL_DT_UINT8, TL_DT_FLOAT16, TL_DT_FLOAT32, TL_DT_FLOAT64,
                                           TL_DT_INT4, TL_DT_UINT4 };
    src.dtype = dst.dtype = types[rnd(6)];
    if (rnd(2)) {                      /* a conversion: any pair of the 14 types */
        src.dtype = (enum tl_dtype)rnd(TL_DT_COUNT);
        dst.dtype = (enum tl_dtype)rnd(TL_DT_COUNT);
    }
    src.rank = dst.rank = 1 + (unsigned)rnd(rnd(4) == 0 ? 8 : 5);
    uint64_t total = 1;
    for (unsigned i = 0; i < src.rank; i++) {
        uint64_t s = odd_sizes[rnd(total > 4000 ? 3 : 10)];
        src.sizes[i] = dst.sizes[i] = s;
        total *= s;
    }
    int style = (int)rnd(5);
    unsigned bmask = style == 2 ? (unsigned)rnd(1u << src.rank) : 0;
    packed_order(src.rank, src.sizes, src.strides, style == 1, bmask);
    if (style == 3) {                  /* overlapping: shrink one stride */
        unsigned ax = (unsigned)rnd(src.rank);
        src.strides[ax] = src.strides[ax] / 2 + rnd(2);
    }
    if (style == 4) {                  /* arbitrary strides */
        for (unsigned i = 0; i < src.rank; i++)
            src.strides[i] = rnd(40);
    }
    packed_order(dst.rank, dst.sizes, dst.strides, rnd(3) == 0, 0);
    src.byte_offset = rnd(3) == 0 ? rnd(100) : 0;
    dst.byte_offset = rnd(3) == 0 ? rnd(100) : 0;
    check_copy(&src, &dst);
}

/* An NCHW and an NHWC description of the same random sizes, c channels
 * and a width of 7 + rnd(wmax), of types s (a) and d (b): a is the NHWC
 * one, or the NCHW one with dir 1. */
static void nchw_nhwc(struct tl_desc *a, struct tl_desc *b, enum tl_dtype s, enum tl_dtype d,
                      uint64_t c, uint64_t wmax, int dir)
{
    unsigned nchw[4] = { 0, 1, 2, 3 }, nhwc[4] = { 0, 2, 3, 1 };
    memset(a, 0, sizeof *a);
    memset(b, 0, sizeof *b);
    a->dtype = s;
    b->dtype = d;
    a->rank = b->rank = 4;
    uint64_t sizes[4] = { 1 + rnd(2), c, 5 + rnd(40), 7 + rnd(wmax) };
    memcpy(a->sizes, sizes, sizeof sizes);
    memcpy(b->sizes, sizes, sizeof sizes);
    tl_strides_for_order(4, sizes, dir ? nchw : nhwc, 0, a->strides, NULL);
    tl_strides_for_order(4, sizes, dir ? nhwc : nchw, 0, b->strides, NULL);
}

/* The copies each NCHW / NHWC pair goes through: a into b; then a
 * broadcast over H and W, and a source with padded rows, into a packed
 * NCHW b; with back, that padded one as the destination too. */
static void nchw_variants(struct tl_desc *a, struct tl_desc *b, bool back)
{
    unsigned nchw[4] = { 0, 1, 2, 3 };
    const uint64_t *sizes = a->sizes;
    check_copy(a, b);
    tl_strides_for_order(4, sizes, nchw, 0xc, a->strides, NULL);
    tl_strides_for_order(4, sizes, nchw, 0, b->strides, NULL);
    check_copy(a, b);
    tl_strides_for_order(4, sizes, nchw, 0, a->strides, NULL);
    a->strides[2] += 1 + rnd(9);
    a->strides[1] = a->strides[2] * sizes[2];
    a->strides[0] = a->strides[1] * sizes[1];
    check_copy(a, b);
    if (back)
        check_copy(b, a);
}

/* 4-bit copies (plan.c, run_nib): every kernel kind, odd sizes, odd and
 * padded strides, broadcast sources, conversions both ways, with the
 * thread floor lowered so that even small copies run on two threads where
 * the destination's bytes allow it (and must come out the same). */
static void targeted_nibbles(void)
{
    static const enum tl_dtype pairs[][2] = {
        { TL_DT_INT4, TL_DT_INT4 }, { TL_DT_UINT4, TL_DT_UINT4 }, { TL_DT_INT4, TL_DT_FLOAT16 },
        { TL_DT_UINT4, TL_DT_FLOAT32 }, { TL_DT_FLOAT32, TL_DT_INT4 }, { TL_DT_INT8, TL_DT_INT4 },
        { TL_DT_UINT4, TL_DT_INT4 }, { TL_DT_INT4, TL_DT_UINT8 }, { TL_DT_INT4, TL_DT_BFLOAT16 },
        { TL_DT_FLOAT16, TL_DT_UINT4 }, { TL_DT_UINT8, TL_DT_UINT4 }, { TL_DT_INT4, TL_DT_INT8 },
    };
    uint64_t floor_was = tl_copy_thread_floor;
    tl_copy_thread_floor = 1;
    for (size_t t = 0; t < sizeof pairs / sizeof pairs[0]; t++) {
        for (int c = 1; c <= 67; c += (c < 5 ? 1 : 31)) {
            for (int dir = 0; dir < 2; dir++) {
                struct tl_desc a, b;
                nchw_nhwc(&a, &b, pairs[t][0], pairs[t][1], (uint64_t)c, 60, dir);
                b.byte_offset = rnd(3);
                nchw_variants(&a, &b, true);      /* padded rows of odd length on either side */
            }
        }
        /* a weight to column-major, large enough for several tiles */
        struct tl_desc a = { .dtype = pairs[t][0], .rank = 2 }, b = a;
        b.dtype = pairs[t][1];
        a.sizes[0] = b.sizes[0] = 129 + rnd(200);
        a.sizes[1] = b.sizes[1] = 131 + rnd(300);
        unsigned rm[2] = { 0, 1 }, cm[2] = { 1, 0 };
        tl_strides_for_order(2, a.sizes, rm, 0, a.strides, NULL);
        tl_strides_for_order(2, b.sizes, cm, 0, b.strides, NULL);
        check_copy(&a, &b);
        check_copy(&b, &a);
    }
    tl_copy_thread_floor = floor_was;
}

/* Shapes that must reach each kernel: NCHW <-> NHWC, CHW <-> HWC with
 * C = 2, 3, 4, broadcast rows, padded rows; every element size. */
static void targeted(void)
{
    static const enum tl_dtype types[] = { TL_DT_UINT8, TL_DT_FLOAT16, TL_DT_FLOAT32, TL_DT_FLOAT64 };
    for (int t = 0; t < 4; t++) {
        for (int c = 1; c <= 70; c += (c < 5 ? 1 : 13)) {
            for (int dir = 0; dir < 2; dir++) {
                struct tl_desc a, b;
                nchw_nhwc(&a, &b, types[t], types[t], (uint64_t)c, 60, dir);
                nchw_variants(&a, &b, false);
            }
        }
    }
    /* conversions through every kernel kind: NCHW -> NHWC, HWC <-> CHW,
     * broadcast and padded, for the pairs with SIMD kernels and a few more */
    static const enum tl_dtype pairs[][2] = {
        { TL_DT_FLOAT32, TL_DT_FLOAT16 }, { TL_DT_FLOAT16, TL_DT_FLOAT32 },
        { TL_DT_FLOAT32, TL_DT_BFLOAT16 }, { TL_DT_BFLOAT16, TL_DT_FLOAT32 },
        { TL_DT_UINT8, TL_DT_FLOAT32 }, { TL_DT_INT8, TL_DT_FLOAT16 },
        { TL_DT_FLOAT32, TL_DT_UINT8 }, { TL_DT_FLOAT32, TL_DT_INT8 },
        { TL_DT_INT64, TL_DT_BFLOAT16 }, { TL_DT_FLOAT64, TL_DT_INT16 },
    };
    for (size_t t = 0; t < sizeof pairs / sizeof pairs[0]; t++) {
        for (int c = 2; c <= 70; c += (c < 5 ? 1 : 31)) {
            for (int dir = 0; dir < 2; dir++) {
                struct tl_desc a, b;
                nchw_nhwc(&a, &b, pairs[t][0], pairs[t][1], (uint64_t)c, 300, dir);
                const uint64_t *sizes = a.sizes;
                unsigned nchw[4] = { 0, 1, 2, 3 };
                check_copy(&a, &b);
                tl_strides_for_order(4, sizes, nchw, 0, a.strides, NULL);
                tl_strides_for_order(4, sizes, nchw, 0, b.strides, NULL);
                check_copy(&a, &b);
                tl_strides_for_order(4, sizes, nchw, 0xc, a.strides, NULL);
                check_copy(&a, &b);
                a.strides[3] = 1;
                a.strides[2] = sizes[3] + 1 + rnd(5);
                a.strides[1] = a.strides[2] * sizes[2];
                a.strides[0] = a.strides[1] * sizes[1];
                check_copy(&a, &b);
            }
        }
    }
    /* every pair of the 12 types, through a transpose and a padded source */
    for (int st = 0; st < TL_DT_COUNT; st++) {
        for (int dt = 0; dt < TL_DT_COUNT; dt++) {
            struct tl_desc a = { 0 }, b = { 0 };
            a.dtype = (enum tl_dtype)st;
            b.dtype = (enum tl_dtype)dt;
            a.rank = b.rank = 3;
            uint64_t sizes[3] = { 2, 3 + rnd(20), 5 + rnd(40) };
            memcpy(a.sizes, sizes, sizeof sizes);
            memcpy(b.sizes, sizes, sizeof sizes);
            packed_order(3, sizes, a.strides, true, 0);
            packed_order(3, sizes, b.strides, false, 0);
            check_copy(&a, &b);
        }
    }
    /* one copy large enough to be split over threads (NCHW -> NHWC, 5 MiB) */
    struct tl_desc a = { 0 }, b = { 0 };
    uint64_t sizes[4] = { 1, 37, 129, 277 };
    unsigned nchw[4] = { 0, 1, 2, 3 }, nhwc[4] = { 0, 2, 3, 1 };
    a.dtype = b.dtype = TL_DT_FLOAT32;
    a.rank = b.rank = 4;
    memcpy(a.sizes, sizes, sizeof sizes);
    memcpy(b.sizes, sizes, sizeof sizes);
    tl_strides_for_order(4, sizes, nchw, 0, a.strides, NULL);
    tl_strides_for_order(4, sizes, nhwc, 0, b.strides, NULL);
    check_copy(&a, &b);
    check_copy(&b, &a);
    /* large copies of many short rows, which threads take in runs of rows
     * (the last run shorter): padded rows to packed ones, the same while
     * converting, and a broadcast */
    uint64_t rows[4] = { 1, 3, 1031, 457 };
    memcpy(a.sizes, rows, sizeof rows);
    memcpy(b.sizes, rows, sizeof rows);
    uint64_t padded[4] = { 3 * 1031 * 461, 1031 * 461, 461, 1 };
    memcpy(a.strides, padded, sizeof padded);
    tl_strides_for_order(4, rows, nchw, 0, b.strides, NULL);
    check_copy(&a, &b);
    b.dtype = TL_DT_FLOAT16;
    check_copy(&a, &b);
    b.dtype = TL_DT_FLOAT32;
    uint64_t bias[4] = { 0, 1, 0, 0 };
    memcpy(a.strides, bias, sizeof bias);
    check_copy(&a, &b);
}

/* ---- 3. compare ----------------------------------------------------------- */

/* A random description of the given sizes: packed in a random order, or
 * padded, or (when allowed) broadcast along size-1... axes. */
static void random_layout(struct tl_desc *d, bool pad)
{
    packed_order(d->rank, d->sizes, d->strides, pad, 0);
    d->byte_offset = rnd(3) == 0 ? rnd(40) : 0;
}

static bool same_result(const struct tl_compare_result *x, const struct tl_compare_result *y)
{
    if (x->mismatches != y->mismatches || x->nfirst != y->nfirst || x->have_abs != y->have_abs ||
        x->have_rel != y->have_rel)
        return false;
    if (x->have_abs && (x->max_abs != y->max_abs || x->max_abs_index != y->max_abs_index))
        return false;
    if (x->have_rel && (x->max_rel != y->max_rel || x->max_rel_index != y->max_rel_index))
        return false;
    for (size_t i = 0; i < x->nfirst; i++)
        if (x->first[i].index != y->first[i].index)
            return false;
    return true;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Random pairs of layouts and types holding the same small integers, which
 * every type holds exactly: equal; then differences planted at known
 * indices, counted and listed exactly, in logical order, with 1 and 3
 * threads alike. */
static void random_compare(bool large)
{
    struct tl_desc a = { 0 }, b = { 0 };
    a.dtype = (enum tl_dtype)rnd(TL_DT_COUNT);
    b.dtype = (enum tl_dtype)rnd(TL_DT_COUNT);
    a.rank = b.rank = large ? 4 : 1 + (unsigned)rnd(5);
    uint64_t count = 1;
    for (unsigned i = 0; i < a.rank; i++) {
        uint64_t n = large ? (uint64_t[]){ 2, 37, 129, 131 }[i] : odd_sizes[rnd(8)];
        a.sizes[i] = b.sizes[i] = n;
        count *= n;
    }
    random_layout(&a, rnd(2));
    if (!large && rnd(4) == 0) {                 /* a broadcast A */
        unsigned ax = (unsigned)rnd(a.rank);
        a.strides[ax] = 0;
    }
    random_layout(&b, rnd(2));
    struct tl_info ai, bi;
    if (tl_desc_validate(&a, NULL) || tl_desc_validate(&b, NULL))
        return;
    tl_desc_classify(&a, &ai);
    tl_desc_classify(&b, &bi);
    uint8_t *af = calloc(1, ai.elements_bytes + 1), *bf = calloc(1, bi.elements_bytes + 1);
    /* values A holds, and planted ones outside them, that every type
     * holds: 0..99 and 101..120, or 0..3 and 4..7 with a 4-bit side or an
     * 8-bit float (E5M2 holds the integers to 8 exactly), or 1, 2 and 4
     * with E8M0 (powers of two alone); with BOOL, 0 and 1, a planted
     * difference the other of the two */
    bool pow2 = a.dtype == TL_DT_FLOAT8E8M0 || b.dtype == TL_DT_FLOAT8E8M0;
    bool bin = a.dtype == TL_DT_BOOL || b.dtype == TL_DT_BOOL;
    bool nib = tl_dtype_bits(a.dtype) == 4 || tl_dtype_bits(b.dtype) == 4 || pow2 ||
               a.dtype == TL_DT_FLOAT8E4M3 || b.dtype == TL_DT_FLOAT8E4M3 ||
               a.dtype == TL_DT_FLOAT8E5M2 || b.dtype == TL_DT_FLOAT8E5M2;
    for (uint64_t off = 0; off < ai.span; off++) {
        double v = pow2 ? (double)(1 << rnd(2)) : (double)rnd(bin ? 2 : nib ? 4 : 100);
        if (pow2 && bin)
            v = 1;                        /* E8M0 has no 0: all true */
        uint8_t x[8];
        tl_convert_value(TL_DT_FLOAT64, &v, a.dtype, x);
        tl_desc_put(&a, af, off, x);
    }
    tl_copy_ref(&a, af, &b, bf);                 /* the same values, converted */
    /* plant k differences in B */
    uint64_t k = rnd(count < 20 ? count : 20), planted[20];
    size_t np = 0;
    for (uint64_t t = 0; t < k; t++) {
        uint64_t lin = rnd(count), idx[TL_MAX_RANK];
        bool dup = false;
        for (size_t q = 0; q < np; q++)
            dup |= planted[q] == lin;
        if (dup)
            continue;
        planted[np++] = lin;
        tl_unravel(&b, lin, idx);
        uint64_t off = 0;
        for (unsigned i = 0; i < b.rank; i++)
            off += idx[i] * b.strides[i];
        double v = pow2 ? 4.0 : nib ? 4.0 + (double)rnd(4) : 101.0 + (double)rnd(20);
        uint8_t x[8];
        if (bin) {                        /* the other of 0 and 1 */
            tl_desc_get(&b, bf, off, x);
            tl_convert_value(b.dtype, x, TL_DT_FLOAT64, &v);
            v = v != 0 ? 0 : 1;           /* (E8M0 takes 0 to 2^-127: not 1 either) */
        }
        tl_convert_value(TL_DT_FLOAT64, &v, b.dtype, x);
        tl_desc_put(&b, bf, off, x);
    }
    qsort(planted, np, sizeof planted[0], cmp_u64);
    struct tl_compare_opts o = { .show = 5, .threads = 1 };
    struct tl_compare_result r1, r3;
    checks++;
    if (tl_compare(&a, af, &b, bf, &o, &r1, NULL)) {
        fail("compare failed to run");
    } else {
        bool ok = r1.mismatches == np && r1.element_count == count &&
                  r1.nfirst == (np < 5 ? np : 5);
        for (size_t i = 0; ok && i < r1.nfirst; i++)
            ok = r1.first[i].index == planted[i];
        o.threads = 3;
        if (tl_compare(&a, af, &b, bf, &o, &r3, NULL) == 0) {
            ok = ok && same_result(&r1, &r3);
            tl_compare_free(&r3);
        }
        if (!ok) {
            char what[96];
            snprintf(what, sizeof what, "compare %s with %s: %" PRIu64 " mismatches, %zu planted",
                     tl_dtype_name(a.dtype), tl_dtype_name(b.dtype), r1.mismatches, np);
            fail(what);
            if (failures <= 20) {
                print_desc(&a);
                print_desc(&b);
            }
        }
        tl_compare_free(&r1);
    }
    free(af);
    free(bf);
}

/* One value against another, as 1x1 tensors of their types. */
static bool one(enum tl_dtype ta, const void *va, enum tl_dtype tb, const void *vb,
                const struct tl_compare_opts *o, struct tl_compare_result *r)
{
    struct tl_desc a, b;
    uint64_t n = 1;
    tl_desc_init(&a, ta, 1, &n, NULL);
    tl_desc_init(&b, tb, 1, &n, NULL);
    tl_compare(&a, va, &b, vb, o, r, NULL);
    bool equal = r->mismatches == 0;
    tl_compare_free(r);
    return equal;
}

static void compare_edges(void)
{
    struct tl_compare_opts o = { .show = 1 };
    struct tl_compare_result r;
    double one_, one_less, one_half = 1.5, z = 0.0, nz = -0.0, inf = INFINITY, ninf = -INFINITY;
    double nan = NAN, big = 1e308, two = 2.0;
    one_ = 1.0;
    one_less = nextafter(1.0, 0.0);
#define EDGE(cond) do { checks++; if (!(cond)) fail("compare edge: " #cond); } while (0)
    o.atol = 0.5;                               /* |1 - 1.5| = 0.5 <= 0.5 matches */
    EDGE(one(TL_DT_FLOAT64, &one_, TL_DT_FLOAT64, &one_half, &o, &r));
    EDGE(!one(TL_DT_FLOAT64, &one_less, TL_DT_FLOAT64, &one_half, &o, &r));
    o.atol = 0;
    o.rtol = 0.5;                               /* |1 - 2| = 1 <= 0.5 * 2 */
    EDGE(one(TL_DT_FLOAT64, &one_, TL_DT_FLOAT64, &two, &o, &r));
    EDGE(!one(TL_DT_FLOAT64, &one_less, TL_DT_FLOAT64, &two, &o, &r));
    o.rtol = 0;
    EDGE(one(TL_DT_FLOAT64, &z, TL_DT_FLOAT64, &nz, &o, &r));
    EDGE(one(TL_DT_FLOAT64, &inf, TL_DT_FLOAT64, &inf, &o, &r));
    EDGE(!one(TL_DT_FLOAT64, &inf, TL_DT_FLOAT64, &ninf, &o, &r));
    o.atol = INFINITY;
    EDGE(!one(TL_DT_FLOAT64, &inf, TL_DT_FLOAT64, &big, &o, &r));
    o.atol = 0;
    EDGE(!one(TL_DT_FLOAT64, &nan, TL_DT_FLOAT64, &nan, &o, &r));
    o.equal_nan = true;
    EDGE(one(TL_DT_FLOAT64, &nan, TL_DT_FLOAT64, &nan, &o, &r));
    EDGE(!one(TL_DT_FLOAT64, &nan, TL_DT_FLOAT64, &one_, &o, &r));
    o.equal_nan = false;
    /* 64-bit integers a double would merge */
    int64_t i1 = INT64_MAX, i2 = INT64_MAX - 1, m1 = -1;
    uint64_t u1 = UINT64_MAX, u53 = (1ull << 53) + 1;
    double d53 = 9007199254740992.0;
    EDGE(!one(TL_DT_INT64, &i1, TL_DT_INT64, &i2, &o, &r));
    struct tl_desc da, db;
    uint64_t n = 1;
    tl_desc_init(&da, TL_DT_INT64, 1, &n, NULL);
    tl_desc_init(&db, TL_DT_INT64, 1, &n, NULL);
    tl_compare(&da, (const uint8_t *)&i1, &db, (const uint8_t *)&i2, &o, &r, NULL);
    EDGE(r.int_diff && r.max_abs == 1);
    tl_compare_free(&r);
    EDGE(!one(TL_DT_UINT64, &u1, TL_DT_INT64, &m1, &o, &r));
    EDGE(!one(TL_DT_UINT64, &u53, TL_DT_FLOAT64, &d53, &o, &r));
    EDGE(one(TL_DT_INT64, &i1, TL_DT_INT64, &i1, &o, &r));
    uint16_t h = 0x3c00;                        /* 1 in FLOAT16 */
    uint8_t b1 = 1;
    EDGE(one(TL_DT_FLOAT16, &h, TL_DT_UINT8, &b1, &o, &r));
#undef EDGE
}

/* ---- 4. teams ------------------------------------------------------------ */

struct team_log {
    atomic_uint runs[TL_TEAM_MAX + 8];   /* how often each member ran */
    unsigned nested;                     /* a team member 0 starts inside, or 0 */
    struct team_log *inner;
};

static void team_member(void *ctx, unsigned who)
{
    struct team_log *t = ctx;
    if (who < TL_TEAM_MAX + 8)
        atomic_fetch_add(&t->runs[who], 1);
    if (who == 0 && t->nested)
        tl_team_run(t->nested, team_member, t->inner);   /* the pool is busy: own threads */
}

/* Whether members 0 .. n-1 of t each ran once and no other did. */
static bool team_ran(struct team_log *t, unsigned n)
{
    for (unsigned w = 0; w < TL_TEAM_MAX + 8; w++)
        if (atomic_load(&t->runs[w]) != (w < n ? 1u : 0u))
            return false;
    return true;
}

static void *team_thread(void *arg)
{
    tl_team_run(7, team_member, arg);
    return NULL;
}

/* A shared team's work: units taken from a counter, each marked once. */
struct shared_work {
    atomic_uint_fast64_t next;
    atomic_uint done[4096];
    atomic_uint runs[TL_TEAM_MAX];
    uint64_t units;
};

static void shared_member(void *ctx, unsigned who)
{
    struct shared_work *w = ctx;
    atomic_fetch_add(&w->runs[who], 1);
    for (uint64_t u; (u = atomic_fetch_add(&w->next, 1)) < w->units;)
        atomic_fetch_add(&w->done[u], 1);
}

/* tl_team_run_shared: every unit done once, member 0 always, a helper at
 * most once and never after the call returned (a helper not yet begun is
 * left out, not run late on a finished job); the pool then still serves
 * whole teams. */
static void check_shared_teams(void)
{
    static struct shared_work w;
    static struct team_log a;
    for (int round = 0; round < 400; round++) {
        memset(&w, 0, sizeof w);
        w.units = round % 7 == 0 ? 0 : 1 + (uint64_t)rnd(4096);
        unsigned n = 1 + (unsigned)rnd(8);
        tl_team_run_shared(n, shared_member, &w);
        unsigned seen[TL_TEAM_MAX];
        bool ok = atomic_load(&w.runs[0]) == 1;
        for (unsigned k = 0; k < TL_TEAM_MAX; k++) {
            seen[k] = atomic_load(&w.runs[k]);
            ok &= seen[k] <= (k < n ? 1u : 0u);
        }
        for (uint64_t u = 0; u < 4096; u++)
            ok &= atomic_load(&w.done[u]) == (u < w.units ? 1u : 0u);
        if (round % 50 == 0) {
            struct timespec pause = { 0, 2000000 };
            nanosleep(&pause, NULL);
            for (unsigned k = 0; k < TL_TEAM_MAX; k++)
                ok &= atomic_load(&w.runs[k]) == seen[k];
            memset(&a, 0, sizeof a);
            tl_team_run(8, team_member, &a);
            ok &= team_ran(&a, 8);
        }
        checks++;
        if (!ok)
            fail("team: a shared team did a unit twice, lost one, or ran a member late");
    }
}

static void check_teams(void)
{
    check_shared_teams();
    static struct team_log a, b, c;
    static const unsigned sizes[] = { 0, 1, 2, 3, 8, 33, TL_TEAM_MAX };
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        memset(&a, 0, sizeof a);
        tl_team_run(sizes[i], team_member, &a);
        checks++;
        if (!team_ran(&a, sizes[i]))
            fail("team: a member did not run exactly once");
    }
    memset(&a, 0, sizeof a);
    tl_team_run(TL_TEAM_MAX + 5, team_member, &a);      /* capped */
    checks++;
    if (!team_ran(&a, TL_TEAM_MAX))
        fail("team: more than TL_TEAM_MAX members ran");
    /* a team started inside another, and two callers at once */
    for (int round = 0; round < 50; round++) {
        memset(&a, 0, sizeof a);
        memset(&b, 0, sizeof b);
        memset(&c, 0, sizeof c);
        a.nested = 5;
        a.inner = &b;
        pthread_t other;
        bool two = pthread_create(&other, NULL, team_thread, &c) == 0;
        tl_team_run(3, team_member, &a);
        if (two)
            pthread_join(other, NULL);
        checks++;
        if (!team_ran(&a, 3) || !team_ran(&b, 5) || (two && !team_ran(&c, 7)))
            fail("team: nested or concurrent teams did not each run once");
    }
    printf("teams: checked\n");
}

int main(void)
{
    const char *seed = getenv("TL_SEED"), *iters = getenv("TL_ITERS");
    rng = seed ? strtoull(seed, NULL, 0) : 0x5eed1234abcdULL;
    long n = iters ? atol(iters) : 3000;
    const char *only = getenv("TL_ONLY");
    if (only && strcmp(only, "threads") == 0) {     /* make test-tsan */
        targeted_nibbles();
        check_shared_teams();
        uint64_t floor_was = tl_copy_thread_floor;
        tl_copy_thread_floor = 1;
        for (long i = 0; i < 300; i++)
            random_copy();
        tl_copy_thread_floor = floor_was;
        printf("diff (threads): %d passed, %d failed\n", checks - failures, failures);
        return failures != 0;
    }
    printf("diff: seed 0x%" PRIx64 ", %ld random copies\n", rng, n);
    for (int isa = 1; isa < TL_ISA_COUNT; isa++) {
        const char *name = tl_isa_name((enum tl_isa)isa);
        if (!tl_isa_supported((enum tl_isa)isa)) {
            printf("skip: %s (not supported by this CPU or build)\n", name);
            continue;
        }
        check_table(name, tl_kernels_own((enum tl_isa)isa));
        check_table(name, tl_kernels_for((enum tl_isa)isa));
        printf("kernels: %s checked\n", name);
    }
    check_table("scalar", &tl_kernels_scalar);
    targeted();
    targeted_nibbles();
    check_same_kernels();
    check_calibrated_choices();
    check_teams();
    for (long i = 0; i < n; i++)
        random_copy();
    static const char *const kinds[] = { "contiguous", "fill", "interleave", "deinterleave",
                                         "transpose", "general" };
    for (int k = 0; k < 6; k++) {
        printf("  %-12s", kinds[k]);
        for (int w = 0; w < TL_NW; w++) {
            printf(" w%d:%-5d", 1 << w, kinds_seen[k][w]);
            if (kinds_seen[k][w] == 0 && (k != 0 || w == 0))
                fail("a kernel kind was never reached");
        }
        printf("\n");
    }
    int pairs_seen = 0;
    for (int a = 0; a < TL_DT_COUNT; a++)
        for (int b = 0; b < TL_DT_COUNT; b++)
            pairs_seen += a != b && converted[a][b] > 0;
    printf("  conversions: %d of %d type pairs\n", pairs_seen, TL_DT_COUNT * (TL_DT_COUNT - 1));
    if (pairs_seen != TL_DT_COUNT * (TL_DT_COUNT - 1))
        fail("a pair of data types was never converted");
    /* compare, under every supported ceiling */
    for (int isa = 0; isa < TL_ISA_COUNT; isa++) {
        if (!tl_isa_supported((enum tl_isa)isa))
            continue;
        tl_isa_set_ceiling((enum tl_isa)isa);
        compare_edges();
        for (int i = 0; i < (n > 1000 ? 400 : 100); i++)
            random_compare(false);
        random_compare(true);
    }
    printf("diff: %d passed, %d failed\n", checks - failures, failures);
    return failures != 0;
}
