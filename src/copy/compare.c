/*
 * compare.c - are two tensors the same, whatever their layouts and types?
 * (SPEC section 8)
 *
 * The logical index space is cut into boxes (a block of each axis) shaped
 * so that both sides read long runs: the block of each side's innermost
 * axis is long, the others fill a budget of BOX_BYTES.  Each side's box
 * is brought into a small buffer in the box's logical order, in a common
 * type that holds both sides' values exactly, by the copy engine's own
 * plans and kernels (tl_copy_plan of the box, tl_copy_run on one thread);
 * a box that already lies contiguous in its file, in the common type, is
 * read in place.  The two buffers are then scanned with the active ISA's
 * comparison kernel, which skips equal runs, and each element it stops at
 * is judged by numpy's isclose rule.  Workers take runs of consecutive
 * boxes from a shared counter; each keeps its own counts, maxima (ties to
 * the smaller logical index) and the K first mismatches (a heap by logical
 * index), merged at the end, so the report is the same for any number of
 * threads.  Memory is two boxes per thread, never in proportion to the
 * tensors.  The boxes' shape decides the speed across layouts: see
 * OTHER_RUN.
 *
 * Tried and not kept: comparing a transposed box in place (8 x 8 blocks
 * transposed in registers, == against the other side's rows, no staging).
 * It was faster on cached data (0.17 against 0.27 ms, 256 x 56 x 56
 * FLOAT32) but never from memory (32 x 256 x 56 x 56: 13.6-21 ms against
 * 14-15 ms, boxes of 8 K to 128 K elements, with or without prefetching
 * the next box).  Reading the two layouts at once is the limit there.
 */
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "copy.h"

/* Bytes a staged box takes at most: two boxes are 256 KiB a thread, half
 * of a 512 KiB L2 cache, while each side's rows are long runs (see
 * OTHER_RUN).  A budget of bytes, not elements: with 16 K elements, as
 * the widest common type (8 bytes) had, FLOAT32 boxes took half as much,
 * and make bench compare_nchw_nhwc_f32_l took 1.54-1.64 times convert's
 * time on one thread and 1.84-2.06 on two, against 1.39-1.54 and
 * 1.65-1.87 with 32 K (four alternating runs; Intel Xeon family 6 model
 * 207 guest, 2 MiB L2). */
#define BOX_BYTES (128 * 1024)
/* Boxes a worker takes at once, at most: consecutive boxes, so that its
 * look-ahead reads the box it will compare next, while a tensor of a few
 * hundred boxes still spreads over the threads. */
#define RUN 64

/* How the two sides are compared: the common type their values are
 * brought to, or EXACT: each in its own type, decoded value by value. */
enum common { C_F32, C_F64, C_I64, C_U64, C_SAME_INT, C_EXACT };

struct side {
    const struct tl_desc *d;
    const uint8_t *file;
    enum tl_dtype stage;         /* the type its boxes are staged in */
};

struct stats {
    uint64_t mismatches;
    bool have_abs, have_rel;
    long double max_abs;
    double max_rel;
    uint64_t abs_index, rel_index;
    struct tl_mismatch *heap;    /* the first mismatches: a max-heap by index */
    size_t nheap;
};

struct cmp_job {
    struct side a, b;
    enum common common;
    const struct tl_compare_opts *o;
    const struct tl_kernels *k;
    unsigned rank;
    uint64_t sizes[TL_MAX_RANK];
    uint64_t block[TL_MAX_RANK], grid[TL_MAX_RANK];
    uint64_t box;                /* elements a box holds at most */
    uint64_t boxes;
    uint64_t run;                /* boxes a worker takes at once */
    struct stats *st;            /* each worker's own, by team member */
    atomic_uint_fast64_t next;
    atomic_bool failed;          /* out of memory in a worker */
};

/* ---- the rule ------------------------------------------------------------ */

/* A value of either side, exactly: integers as a 128-bit integer, floats as
 * a long double (which holds every double, and every 64-bit integer). */
struct num {
    bool is_float;
    long double f;
    __int128 i;
};

static void get_num(enum tl_dtype dt, const uint8_t *p, struct num *v)
{
    /* the converter decodes exactly: an integer through INT64/UINT64, a float
     * through FLOAT64 */
    v->is_float = tl_dtype_is_float(dt);
    if (v->is_float) {
        double d;
        tl_convert_value(dt, p, TL_DT_FLOAT64, &d);
        v->f = d;
    } else if (tl_dtype_info(dt)->kind == TL_KIND_UNSIGNED) {
        uint64_t u;
        tl_convert_value(dt, p, TL_DT_UINT64, &u);
        v->i = u;
        v->f = (long double)u;
    } else {
        int64_t s;
        tl_convert_value(dt, p, TL_DT_INT64, &s);
        v->i = s;
        v->f = (long double)s;
    }
}

/* Whether a and b match; the absolute difference in *abs (valid when both
 * are finite) and the relative one in *rel. */
static bool judge(const struct num *a, const struct num *b, const struct tl_compare_opts *o,
                  bool *finite, long double *abs, double *rel)
{
    *finite = false;
    if (!a->is_float && !b->is_float) {
        __int128 d = a->i - b->i;
        if (d < 0)
            d = -d;
        *finite = true;
        *abs = (long double)d;
        *rel = b->i == 0 ? (d ? INFINITY : 0) : (double)(*abs / fabsl((long double)b->i));
        if (d == 0)
            return true;
        return o->atol > 0 || o->rtol > 0 ? *abs <= o->atol + o->rtol * fabsl((long double)b->i)
                                          : false;
    }
    long double x = a->is_float ? a->f : (long double)a->i;
    long double y = b->is_float ? b->f : (long double)b->i;
    if (x == y)
        return true;
    if (isnan(x) || isnan(y))
        return o->equal_nan && isnan(x) && isnan(y);
    *finite = true;
    *abs = fabsl(x - y);
    /* an infinite difference is infinitely far, also relative to an
     * infinity (Inf against -Inf: not inf / inf = NaN) */
    *rel = y == 0 || isinf(*abs) ? INFINITY : (double)(*abs / fabsl(y));
    if (isinf(x) || isinf(y))
        return false;
    /* numpy's isclose, in extended precision (64-bit integers are exact
     * there), so that no difference is rounded away to meet the bound */
    return *abs <= (long double)o->atol + (long double)o->rtol * fabsl(y);
}

/* ---- the first mismatches: a max-heap by logical index ------------------- */

static void heap_swap(struct tl_mismatch *h, size_t i, size_t j)
{
    struct tl_mismatch t = h[i];
    h[i] = h[j];
    h[j] = t;
}

static void heap_push(struct stats *s, size_t cap, const struct tl_mismatch *m)
{
    if (cap == 0)
        return;
    struct tl_mismatch *h = s->heap;
    if (s->nheap == cap) {
        if (m->index >= h[0].index)
            return;
        h[0] = *m;                                  /* replace the largest, sift down */
        for (size_t i = 0;;) {
            size_t l = 2 * i + 1, r = l + 1, big = i;
            if (l < cap && h[l].index > h[big].index)
                big = l;
            if (r < cap && h[r].index > h[big].index)
                big = r;
            if (big == i)
                break;
            heap_swap(h, i, big);
            i = big;
        }
        return;
    }
    size_t i = s->nheap++;
    h[i] = *m;
    while (i > 0 && h[(i - 1) / 2].index < h[i].index) {
        heap_swap(h, i, (i - 1) / 2);
        i = (i - 1) / 2;
    }
}

static void record(struct cmp_job *j, struct stats *s, uint64_t index, const uint8_t *a,
                   const uint8_t *b, bool finite, long double abs, double rel)
{
    s->mismatches++;
    if (finite) {
        if (!s->have_abs || abs > s->max_abs || (abs == s->max_abs && index < s->abs_index)) {
            s->have_abs = true;
            s->max_abs = abs;
            s->abs_index = index;
        }
        if (!s->have_rel || rel > s->max_rel || (rel == s->max_rel && index < s->rel_index)) {
            s->have_rel = true;
            s->max_rel = rel;
            s->rel_index = index;
        }
    }
    struct tl_mismatch m = { .index = index };
    memcpy(m.a, a, tl_dtype_size(j->a.d->dtype));
    memcpy(m.b, b, tl_dtype_size(j->b.d->dtype));
    heap_push(s, j->o->show, &m);
}

/* ---- boxes --------------------------------------------------------------- */

/* The logical linear index of element p of the box at origin. */
static uint64_t linear(const struct cmp_job *j, const uint64_t *origin, const uint64_t *bs,
                       uint64_t p)
{
    uint64_t idx[TL_MAX_RANK];
    for (unsigned i = j->rank; i-- > 0;) {
        idx[i] = origin[i] + p % bs[i];
        p /= bs[i];
    }
    uint64_t lin = 0;
    for (unsigned i = 0; i < j->rank; i++)
        lin = lin * j->sizes[i] + idx[i];
    return lin;
}

/* A side's plan for boxes of one shape: the copy into the staging buffer,
 * or none when such a box lies contiguous in the file already.  Boxes of
 * one shape differ only in where they start, so a plan serves them all;
 * shapes differ only at the grid's far edges (at most 2^rank of them). */
struct box_plan {
    unsigned mask;               /* the axes where the box is cut short */
    bool valid, in_place[2], ok;
    struct tl_copy_plan plan[2];
};

#define PLAN_CACHE 16

static bool make_plan(const struct side *s, const uint64_t *bs, unsigned rank,
                      struct tl_copy_plan *plan, bool *in_place)
{
    struct tl_desc src = *s->d, dst;
    for (unsigned i = 0; i < rank; i++)
        src.sizes[i] = bs[i];
    src.total_given = false;
    if (tl_desc_init(&dst, s->stage, rank, bs, NULL) != 0 || tl_copy_plan(plan, &src, &dst, NULL))
        return false;
    *in_place = !plan->convert && plan->kind == TL_COPY_CONTIG && plan->ndim == 1;
    plan->isa = tl_isa_active();
    plan->stream = plan->stream_threads = false;
    return true;
}

/* Brings one side's box at origin into buf (packed, logical order, type
 * s->stage), or returns a pointer into its file when it lies there so. */
static const uint8_t *stage(const struct side *s, const struct tl_copy_plan *plan, bool in_place,
                            const uint64_t *origin, uint8_t *buf)
{
    uint64_t at = tl_desc_at(s->d, origin);
    if (in_place)
        return s->file + at;
    struct tl_copy_plan p = *plan;
    p.src_offset = at;
    if (p.snib)                        /* a 4-bit side's place counts nibbles */
        p.src_offset = tl_desc_origin(s->d) * 2 + tl_desc_elem(s->d, origin);
    tl_copy_run(&p, s->file, buf, 1, NULL, NULL);
    return buf;
}

/* Compares n elements of the box, a and b contiguous in the staged types,
 * the first being element p0 of the box. */
static void compare_span(struct cmp_job *j, struct stats *st, const uint8_t *a, const uint8_t *b,
                         uint64_t n, uint64_t p0, const uint64_t *origin, const uint64_t *bs)
{
    unsigned as = tl_dtype_size(j->a.stage), bsz = tl_dtype_size(j->b.stage);
    uint64_t p = 0;
    while (p < n) {
        /* skip the run of equal elements: floats by ==, integers by bytes */
        switch (j->common) {
        case C_F32:
            p += j->k->cmp[TL_CMP_F32](a + p * 4, b + p * 4, (size_t)(n - p));
            break;
        case C_F64:
            p += j->k->cmp[TL_CMP_F64](a + p * 8, b + p * 8, (size_t)(n - p));
            break;
        case C_EXACT:
            break;
        default:
            p += j->k->cmp[TL_CMP_BYTES](a + p * as, b + p * as, (size_t)(n - p) * as) / as;
            break;
        }
        if (p >= n)
            break;
        struct num x, y;
        get_num(j->a.stage, a + p * as, &x);
        get_num(j->b.stage, b + p * bsz, &y);
        bool finite;
        long double abs = 0;
        double rel = 0;
        if (!judge(&x, &y, j->o, &finite, &abs, &rel)) {
            /* the values in each side's own type, as dump prints them */
            uint8_t va[8], vb[8];
            tl_convert_value(j->a.stage, a + p * as, j->a.d->dtype, va);
            tl_convert_value(j->b.stage, b + p * bsz, j->b.d->dtype, vb);
            record(j, st, linear(j, origin, bs, p0 + p), va, vb, finite, abs, rel);
        }
        p++;
    }
}

/* Box u's origin and sizes; returns its element count, and in *mask the
 * axes where it is cut short by the grid's edge. */
static uint64_t box_at(const struct cmp_job *j, uint64_t u, uint64_t *origin, uint64_t *bs,
                       unsigned *mask)
{
    uint64_t n = 1;
    *mask = 0;
    for (unsigned i = j->rank; i-- > 0;) {
        uint64_t g = u % j->grid[i];
        u /= j->grid[i];
        origin[i] = g * j->block[i];
        bs[i] = j->sizes[i] - origin[i] < j->block[i] ? j->sizes[i] - origin[i] : j->block[i];
        if (bs[i] != j->block[i])
            *mask |= 1u << i;
        n *= bs[i];
    }
    return n;
}

/* Where a staged side's box v starts in its file, when v exists and has
 * the shape `mask` (so that the plan made for that shape covers it), for
 * asking for it ahead; or NULL. */
static const uint8_t *box_start(const struct cmp_job *j, const struct side *s, uint64_t v,
                                unsigned mask)
{
    uint64_t origin[TL_MAX_RANK], bs[TL_MAX_RANK];
    unsigned m;
    if (v >= j->boxes)
        return NULL;
    box_at(j, v, origin, bs, &m);
    return m == mask ? s->file + tl_desc_at(s->d, origin) : NULL;
}

/* Compares one box. */
static void compare_box(struct cmp_job *j, uint64_t u, uint8_t *abuf, uint8_t *bbuf,
                        struct stats *st, struct box_plan *cache)
{
    uint64_t origin[TL_MAX_RANK], bs[TL_MAX_RANK];
    unsigned mask;
    uint64_t n = box_at(j, u, origin, bs, &mask);
    struct box_plan *bp = &cache[mask % PLAN_CACHE];
    if (!bp->valid || bp->mask != mask) {
        bp->valid = true;
        bp->mask = mask;
        bp->ok = make_plan(&j->a, bs, j->rank, &bp->plan[0], &bp->in_place[0]) &&
                 make_plan(&j->b, bs, j->rank, &bp->plan[1], &bp->in_place[1]);
    }
    if (!bp->ok) {
        atomic_store(&j->failed, true);
        return;
    }
    /* a side whose box is rows contiguous in its file, in the box's order,
     * is read in place row by row against the other side's staged box */
    for (int side = 0; side < 2; side++) {
        const struct tl_copy_plan *rp = &bp->plan[side];
        const struct side *sd = side ? &j->b : &j->a, *os = side ? &j->a : &j->b;
        if (bp->in_place[side] || rp->convert || rp->kind != TL_COPY_CONTIG)
            continue;
        const uint8_t *other = stage(os, &bp->plan[!side], bp->in_place[!side], origin,
                                     side ? abuf : bbuf);
        const uint8_t *row = sd->file + tl_desc_at(sd->d, origin);
        uint64_t len = rp->n[rp->a], rows = n / len, idx[TL_MAX_RANK] = { 0 };
        unsigned oes = tl_dtype_size(os->stage);
        /* each row's continuation in the file, which the next box along
         * reads when the row's axes are split over boxes, is prefetched a
         * box ahead (make bench compare_nchw_nhwc_f32_l, three alternating
         * runs: 1T 15-20 ms against 21-32 ms, 2T 12-15 against 15-19;
         * locality 2 and 3 gained less) */
        const uint64_t run = len * tl_dtype_size(sd->d->dtype);
        /* the staged side's next box, when it is one transpose (rows of
         * lines at a stride), is asked for too, a share of its lines per
         * row, so that both sides' reads from memory overlap (make bench
         * compare_nchw_nhwc_f32_l, with the runs of boxes in work(): 1T
         * 12.2-13.0 ms against 14.6-16.0, 2T 6.6-8.6 against 9.5-10.6;
         * asking into L1 instead: 21-23 ms; two boxes ahead: 13.7-14.5) */
        const struct tl_copy_plan *op = &bp->plan[!side];
        const uint8_t *next = NULL;
        uint64_t per_row = 0, lines = 0, asked = 0, col = 0;
        if (!bp->in_place[!side] && op->kind == TL_COPY_TRANSPOSE && op->ndim == 2) {
            next = box_start(j, os, u + 1, mask);
            per_row = (op->n[op->b] * op->es + 63) / 64;
            lines = per_row * op->n[op->a];
        }
        for (uint64_t r = 0; r < rows; r++) {
            const uint8_t *o = other + r * len * oes;
            for (uint64_t q = 0; q < run; q += 64)
                __builtin_prefetch(row + run + q, 0, 1);
            for (uint64_t until = next ? lines * (r + 1) / rows : 0; asked < until; asked++) {
                __builtin_prefetch(next + col * 64, 0, 1);
                if (++col == per_row) {                 /* that box's next row */
                    col = 0;
                    next += op->ss[op->a];
                }
            }
            compare_span(j, st, side ? o : row, side ? row : o, len, r * len, origin, bs);
            for (unsigned i = rp->ndim - 1; i-- > 0;) {      /* the outer axes' odometer */
                row += rp->ss[i];
                if (++idx[i] < rp->n[i])
                    break;
                row -= rp->ss[i] * rp->n[i];
                idx[i] = 0;
            }
        }
        return;
    }
    const uint8_t *a = stage(&j->a, &bp->plan[0], bp->in_place[0], origin, abuf);
    const uint8_t *b = stage(&j->b, &bp->plan[1], bp->in_place[1], origin, bbuf);
    compare_span(j, st, a, b, n, 0, origin, bs);
}

/* A team member: takes runs of boxes until none is left. */
static void work(void *arg, unsigned who)
{
    struct cmp_job *j = arg;
    struct stats *st = &j->st[who];
    uint8_t *abuf = malloc(BOX_BYTES), *bbuf = malloc(BOX_BYTES);
    struct box_plan *cache = calloc(PLAN_CACHE, sizeof *cache);
    if (!abuf || !bbuf || !cache) {
        atomic_store(&j->failed, true);
    } else {
        for (;;) {
            uint64_t u = atomic_fetch_add(&j->next, j->run);
            if (u >= j->boxes)
                break;
            for (uint64_t end = j->boxes - u < j->run ? j->boxes : u + j->run; u < end; u++)
                compare_box(j, u, abuf, bbuf, st, cache);
        }
    }
    free(cache);
    free(abuf);
    free(bbuf);
}

/* ---- planning ------------------------------------------------------------ */

/* The common type of two data types, and what each side is staged in. */
static enum common common_type(enum tl_dtype a, enum tl_dtype b, enum tl_dtype *sa,
                               enum tl_dtype *sb)
{
    /* a 4-bit side is staged unpacked (INT8, UINT8; FLOAT4E2M1, whose
     * unpacked code is no value a kernel compares, as the FLOAT32 that
     * holds its values), never read in place */
    a = tl_dtype_bits(tl_dtype_unpacked(a)) == 4 ? TL_DT_FLOAT32 : tl_dtype_unpacked(a);
    b = tl_dtype_bits(tl_dtype_unpacked(b)) == 4 ? TL_DT_FLOAT32 : tl_dtype_unpacked(b);
    bool fa = tl_dtype_is_float(a), fb = tl_dtype_is_float(b);
    unsigned ea = tl_dtype_size(a), eb = tl_dtype_size(b);
    *sa = a;
    *sb = b;
    if (a == b && !fa)
        return C_SAME_INT;                         /* integers: equal bytes, equal values */
    if (fa && fb) {
        if (ea <= 4 && eb <= 4 && a != TL_DT_FLOAT64 && b != TL_DT_FLOAT64) {
            *sa = *sb = TL_DT_FLOAT32;
            return C_F32;
        }
        *sa = *sb = TL_DT_FLOAT64;
        return C_F64;
    }
    if (fa || fb) {
        /* an integer of up to 32 bits and a float: FLOAT64 holds both */
        enum tl_dtype i = fa ? b : a;
        if (tl_dtype_size(i) <= 4) {
            *sa = *sb = TL_DT_FLOAT64;
            return C_F64;
        }
        return C_EXACT;
    }
    if (tl_dtype_info(a)->kind == TL_KIND_UNSIGNED && tl_dtype_info(b)->kind == TL_KIND_UNSIGNED) {
        *sa = *sb = TL_DT_UINT64;
        return C_U64;
    }
    if (a != TL_DT_UINT64 && b != TL_DT_UINT64) {
        *sa = *sb = TL_DT_INT64;
        return C_I64;
    }
    return C_EXACT;
}

/* The box's block per axis.  Side A's box is read in place, row by row,
 * where it can be, so its axes get the budget from the inside out; side B's
 * innermost axis, when it is another one, gets a block of OTHER_RUN
 * elements, so that B's box is a transpose of runs of 1 KiB (FLOAT32) or
 * more, whole when the axis is short, as NHWC's channels are.  With 32
 * elements (two cache lines) NCHW against NHWC {32,256,56,56} read B 128
 * bytes of every 1 KiB pixel per box and each pixel's lines in 8 passes
 * over the tensor: make bench compare_nchw_nhwc_f32_l took 1.6-2.1 times
 * convert's time; with 256 (a box of 16 K elements is a whole row of
 * pixels, 56 KiB of B in one run, and 256 rows of A that the next box
 * continues), 1.20-1.41 (AMD EPYC Zen 3, 1 and 2 threads, three runs;
 * boxes of 8 K elements and 128 or 512 were no better). */
#define OTHER_RUN 256

static void shape_boxes(struct cmp_job *j)
{
    unsigned order_a[TL_MAX_RANK], order_b[TL_MAX_RANK];
    tl_axis_order(j->rank, j->sizes, j->a.d->strides, order_a);
    tl_axis_order(j->rank, j->sizes, j->b.d->strides, order_b);
    for (unsigned i = 0; i < j->rank; i++)
        j->block[i] = 1;
    unsigned ia = order_a[j->rank - 1], ib = order_b[j->rank - 1];
    uint64_t prod = 1;
    if (ib != ia) {
        j->block[ib] = j->sizes[ib] < OTHER_RUN ? j->sizes[ib] : OTHER_RUN;
        prod = j->block[ib];
    }
    for (unsigned k = j->rank; k-- > 0;) {
        unsigned ax = order_a[k];
        if (ax == ib && ib != ia)
            continue;
        uint64_t want = j->box / prod;
        j->block[ax] = j->sizes[ax] < want ? j->sizes[ax] : want ? want : 1;
        prod *= j->block[ax];
    }
    j->boxes = 1;
    for (unsigned i = 0; i < j->rank; i++) {
        j->grid[i] = (j->sizes[i] + j->block[i] - 1) / j->block[i];
        j->boxes *= j->grid[i];
    }
}

int tl_compare(const struct tl_desc *a, const uint8_t *a_file, const struct tl_desc *b,
               const uint8_t *b_file, const struct tl_compare_opts *o,
               struct tl_compare_result *r, struct tl_error *err)
{
    memset(r, 0, sizeof *r);
    if (a->rank != b->rank || memcmp(a->sizes, b->sizes, a->rank * sizeof a->sizes[0]))
        return tl_fail(err, TL_E_MISMATCH, "sizes", "the two tensors' sizes differ");
    struct cmp_job *j = calloc(1, sizeof *j);
    if (!j)
        return tl_fail(err, TL_E_NOMEM, NULL, "out of memory");
    j->a = (struct side){ a, a_file, a->dtype };
    j->b = (struct side){ b, b_file, b->dtype };
    j->common = common_type(a->dtype, b->dtype, &j->a.stage, &j->b.stage);
    j->o = o;
    j->k = tl_kernels_for(tl_isa_active());
    j->rank = a->rank;
    memcpy(j->sizes, a->sizes, sizeof j->sizes);
    unsigned sa = tl_dtype_size(j->a.stage), sb = tl_dtype_size(j->b.stage);
    j->box = BOX_BYTES / (sa > sb ? sa : sb);
    shape_boxes(j);
    r->element_count = 1;
    for (unsigned i = 0; i < j->rank; i++)
        r->element_count *= j->sizes[i];

    unsigned threads = tl_copy_threads(o->threads);
    if (r->element_count < (1u << 20))
        threads = 1;                     /* small: not worth a thread */
    if (threads > j->boxes)
        threads = (unsigned)j->boxes;
    if (threads > 64)
        threads = 64;
    /* workers take runs of consecutive boxes, so that what a box asks for
     * ahead (the rows' continuation, the next box) is its own worker's next
     * work; eight runs a thread at least, for balance */
    j->run = j->boxes / (8 * threads);
    j->run = j->run < 1 ? 1 : j->run > RUN ? RUN : j->run;
    struct stats st[64];
    int rc = 0;
    for (unsigned t = 0; t < threads; t++) {
        st[t] = (struct stats){ 0 };
        st[t].heap = malloc((o->show ? o->show : 1) * sizeof *st[t].heap);
        if (!st[t].heap) {
            threads = t;
            rc = tl_fail(err, TL_E_NOMEM, NULL, "out of memory");
            break;
        }
    }
    j->st = st;
    if (!rc)
        tl_team_run(threads, work, j);
    if (!rc && atomic_load(&j->failed))
        rc = tl_fail(err, TL_E_NOMEM, NULL, "out of memory");
    /* merge: counts add up, maxima keep the smaller index on ties, the
     * first mismatches are the smallest indices of all */
    struct stats all = { 0 };
    all.heap = rc ? NULL : malloc((o->show ? o->show : 1) * sizeof *all.heap);
    if (!rc && !all.heap)
        rc = tl_fail(err, TL_E_NOMEM, NULL, "out of memory");
    for (unsigned t = 0; t < threads; t++) {
        struct stats *s = &st[t];
        if (!rc) {
            all.mismatches += s->mismatches;
            if (s->have_abs && (!all.have_abs || s->max_abs > all.max_abs ||
                                (s->max_abs == all.max_abs && s->abs_index < all.abs_index))) {
                all.have_abs = true;
                all.max_abs = s->max_abs;
                all.abs_index = s->abs_index;
            }
            if (s->have_rel && (!all.have_rel || s->max_rel > all.max_rel ||
                                (s->max_rel == all.max_rel && s->rel_index < all.rel_index))) {
                all.have_rel = true;
                all.max_rel = s->max_rel;
                all.rel_index = s->rel_index;
            }
            for (size_t i = 0; i < s->nheap; i++)
                heap_push(&all, o->show, &s->heap[i]);
        }
        free(s->heap);
    }
    free(j);
    if (rc) {
        free(all.heap);
        return rc;
    }
    /* the heap, sorted by index */
    for (size_t n = all.nheap; n > 1; n--) {
        heap_swap(all.heap, 0, n - 1);
        for (size_t i = 0;;) {
            size_t l = 2 * i + 1, rr = l + 1, big = i;
            if (l < n - 1 && all.heap[l].index > all.heap[big].index)
                big = l;
            if (rr < n - 1 && all.heap[rr].index > all.heap[big].index)
                big = rr;
            if (big == i)
                break;
            heap_swap(all.heap, i, big);
            i = big;
        }
    }
    r->mismatches = all.mismatches;
    r->have_abs = all.have_abs;
    r->max_abs = all.max_abs;
    r->max_abs_index = all.abs_index;
    r->have_rel = all.have_rel;
    r->max_rel = all.max_rel;
    r->max_rel_index = all.rel_index;
    r->first = all.heap;
    r->nfirst = all.nheap;
    r->int_diff = !tl_dtype_is_float(a->dtype) && !tl_dtype_is_float(b->dtype);
    return 0;
}

void tl_compare_free(struct tl_compare_result *r)
{
    free(r->first);
    r->first = NULL;
}

void tl_unravel(const struct tl_desc *d, uint64_t linear_index, uint64_t *idx)
{
    for (unsigned i = d->rank; i-- > 0;) {
        idx[i] = linear_index % d->sizes[i];
        linear_index /= d->sizes[i];
    }
}
