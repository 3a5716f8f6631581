/*
 * classify.c - the terms of a description: span, layout, and whether the
 * tensor is packed, padded, broadcast or overlapping.
 *
 * Overlap is decided exactly.  Two different logical indices x != y reach
 * the same offset through the non-zero strides a_i exactly when
 *
 *     sum_i a_i z_i = 0   for some integer z != 0 with |z_i| <= sizes_i - 1
 *
 * (z = x - y).  That is a bounded linear Diophantine equation in at most
 * eight unknowns.  has_overlap() solves it by depth-first search over the
 * unknowns, largest stride first (and, taking turns with it, smallest range
 * first: see has_overlap), pruning every branch whose remaining
 * target lies outside what the other unknowns can reach or is not a multiple
 * of their gcd, stepping each unknown only through the residue class that
 * the gcd allows, and solving the last two unknowns in closed form with the
 * extended Euclidean algorithm.  For the usual tensor, whose strides nest
 * (each stride exceeds the reach of all smaller ones), the search ends at
 * its first step, so an 8-D tensor of 2^40 elements is classified at once.
 * numpy's solve_may_have_internal_overlap() poses the same problem; this
 * solver is written from the equation, not from numpy.
 *
 * Arithmetic: after tl_desc_validate() every reach sum_i a_i u_i is below
 * 2^64, so the signed 128-bit intermediates below cannot overflow.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "tl.h"

typedef __int128 i128;

_Thread_local uint64_t tl_overlap_work;

const char *tl_status_name(enum tl_status st)
{
    static const char *const names[] = { "overlapping", "broadcast", "padded", "packed" };
    return names[st];
}

void tl_axis_order(unsigned rank, const uint64_t *sizes, const uint64_t *strides,
                   unsigned *order)
{
    for (unsigned i = 0; i < rank; i++)
        order[i] = i;
    for (unsigned i = 1; i < rank; i++) {        /* insertion sort: stable */
        unsigned a = order[i], j = i;
        while (j > 0) {
            unsigned b = order[j - 1];
            bool before = strides[a] > strides[b] ||
                          (strides[a] == strides[b] && sizes[a] > sizes[b]);
            if (!before)
                break;
            order[j] = b;
            j--;
        }
        order[j] = a;
    }
}

static i128 floordiv(i128 a, i128 b)   /* b > 0 */
{
    i128 q = a / b;
    return (a % b != 0 && a < 0) ? q - 1 : q;
}

static i128 ceildiv(i128 a, i128 b)    /* b > 0 */
{
    i128 q = a / b;
    return (a % b != 0 && a > 0) ? q + 1 : q;
}

static i128 mod(i128 a, i128 m)        /* m > 0; result in [0, m) */
{
    i128 r = a % m;
    return r < 0 ? r + m : r;
}

/* The unknowns of the overlap equation, largest stride first, with the
 * reach and gcd of each suffix. */
struct eq {
    unsigned k;
    i128 a[TL_MAX_RANK], u[TL_MAX_RANK];
    unsigned axis[TL_MAX_RANK];        /* the description's axis of each unknown */
    i128 z[TL_MAX_RANK];               /* the solution found, unknown by unknown */
    i128 reach[TL_MAX_RANK + 1], g[TL_MAX_RANK + 1];
    uint64_t work, budget;             /* steps taken, steps allowed */
    bool aborted;                      /* past the budget: no answer */
};

/* Smallest z >= lo with a*z == t (mod m*...): the residue class of the
 * unknown i for target t, given the gcd g of the unknowns after it.
 * Sets *first and *step; false when no z can satisfy the congruence. */
static bool residue(i128 a, i128 t, i128 g, i128 lo, i128 *first, i128 *step)
{
    if (g == 0) {                      /* no unknowns after: a*z must be t */
        if (mod(t, a))
            return false;
        *first = t / a;
        *step = 1;
        return *first >= lo;
    }
    i128 d = (i128)tl_gcd((uint64_t)a, (uint64_t)g);
    if (mod(t, d))
        return false;
    i128 m = g / d;
    i128 z0 = m == 1 ? 0 : mod((t / d) % m * (i128)tl_inverse((uint64_t)mod(a / d, m), (uint64_t)m), m);
    *first = lo + mod(z0 - lo, m);
    *step = m;
    return true;
}

/* Two unknowns: a*z1 + b*z2 = t with |z1| <= u1, |z2| <= u2; a solution
 * in *s1, *s2. */
static bool solve2(i128 a, i128 u1, i128 b, i128 u2, i128 t, i128 *s1, i128 *s2)
{
    i128 z1, m;
    if (!residue(a, t, b, -u1, &z1, &m) || z1 > u1)
        return false;
    /* z1 runs through z1 + j*m for 0 <= j <= jmax; z2 falls by a*m/b a step */
    i128 jmax = (u1 - z1) / m;
    i128 z2 = (t - a * z1) / b, dz = a * m / b;
    i128 lo = ceildiv(z2 - u2, dz), hi = floordiv(z2 + u2, dz);
    if (lo < 0)
        lo = 0;
    if (hi > jmax)
        hi = jmax;
    *s1 = z1 + lo * m;
    *s2 = z2 - lo * dz;
    return lo <= hi;
}

/* Is sum_{j >= i} a_j z_j = t solvable with |z_j| <= u_j? */
static bool solve(struct eq *e, unsigned i, i128 t)
{
    if (++e->work > e->budget) {
        e->aborted = true;
        return false;
    }
    if (i == e->k)
        return t == 0;
    if (t > e->reach[i] || -t > e->reach[i] || mod(t, e->g[i]))
        return false;
    if (i + 1 == e->k) {
        e->z[i] = t / e->a[i];
        return true;                   /* reach and gcd checks were exact */
    }
    if (i + 2 == e->k)
        return solve2(e->a[i], e->u[i], e->a[i + 1], e->u[i + 1], t, &e->z[i], &e->z[i + 1]);
    i128 r = e->reach[i + 1];
    i128 lo = ceildiv(t - r, e->a[i]), hi = floordiv(t + r, e->a[i]), z, step;
    if (lo < -e->u[i])
        lo = -e->u[i];
    if (hi > e->u[i])
        hi = e->u[i];
    if (lo > hi || !residue(e->a[i], t, e->g[i + 1], lo, &z, &step))
        return false;
    for (; z <= hi && !e->aborted; z += step) {
        e->z[i] = z;
        if (solve(e, i + 1, t - e->a[i] * z))
            return true;
    }
    return false;
}

/* The suffix reaches and gcds of e's unknowns, in e's order. */
static void eq_finish(struct eq *e)
{
    e->reach[e->k] = 0;
    e->g[e->k] = 0;
    for (unsigned j = e->k; j-- > 0;) {
        e->reach[j] = e->reach[j + 1] + e->a[j] * e->u[j];
        e->g[j] = tl_gcd((uint64_t)e->a[j], (uint64_t)e->g[j + 1]);
    }
}

/* Whether the equation has a solution z != 0, searching the unknowns in e's
 * order within e->budget steps (past it: false, with e->aborted).  By
 * symmetry (z and -z), the first non-zero unknown is positive. */
static bool overlap_in(struct eq *e)
{
    for (unsigned i = 0; i < e->k && !e->aborted; i++) {
        i128 hi = e->reach[i + 1] / e->a[i], z, step;
        if (hi > e->u[i])
            hi = e->u[i];
        if (hi < 1 || !residue(e->a[i], 0, e->g[i + 1], 1, &z, &step))
            continue;
        for (; z <= hi && !e->aborted; z += step) {
            memset(e->z, 0, sizeof e->z);  /* the unknowns before i are 0 */
            e->z[i] = z;
            if (solve(e, i + 1, -e->a[i] * z))
                return true;
        }
    }
    return false;
}

/* Exact overlap test over the dimensions with size > 1 and stride > 0.
 * Two orders of the unknowns fail on different equations: largest stride
 * first prunes nested strides at once, but where a small unknown's parity
 * decides, it enumerates the large ones' products first; smallest range
 * first leaves the two widest ranges to the closed form.  They take turns
 * with budgets growing fourfold, and the first to finish answers. */
static bool has_overlap(const struct tl_desc *d, int64_t *diff)
{
    struct eq e = { 0 };
    for (unsigned i = 0; i < d->rank; i++) {
        if (d->sizes[i] < 2 || d->strides[i] == 0)
            continue;
        unsigned j = e.k++;            /* insert, keeping strides descending */
        while (j > 0 && e.a[j - 1] < (i128)d->strides[i]) {
            e.a[j] = e.a[j - 1];
            e.u[j] = e.u[j - 1];
            e.axis[j] = e.axis[j - 1];
            j--;
        }
        e.a[j] = d->strides[i];
        e.u[j] = d->sizes[i] - 1;
        e.axis[j] = i;
    }
    for (unsigned j = 0; j + 1 < e.k; j++) {   /* equal strides: the usual overlap */
        if (e.a[j] == e.a[j + 1]) {
            if (diff) {
                diff[e.axis[j]] = 1;
                diff[e.axis[j + 1]] = -1;
            }
            return true;
        }
    }
    struct eq r = e;                   /* ranges ascending, then strides descending */
    for (unsigned i = 1; i < r.k; i++) {
        i128 a = r.a[i], u = r.u[i];
        unsigned ax = r.axis[i], j = i;
        for (; j > 0 && r.u[j - 1] > u; j--) {
            r.a[j] = r.a[j - 1];
            r.u[j] = r.u[j - 1];
            r.axis[j] = r.axis[j - 1];
        }
        r.a[j] = a;
        r.u[j] = u;
        r.axis[j] = ax;
    }
    eq_finish(&e);
    eq_finish(&r);
    tl_overlap_work = 0;
    for (uint64_t budget = 1u << 12;; budget = budget > UINT64_MAX / 4 ? UINT64_MAX : budget * 4) {
        struct eq *turn[2] = { &e, &r };
        for (int t = 0; t < 2; t++) {
            turn[t]->work = 0;
            turn[t]->budget = budget;
            turn[t]->aborted = false;
            bool yes = overlap_in(turn[t]);
            tl_overlap_work += turn[t]->work;
            if (yes && diff) {
                for (unsigned j = 0; j < turn[t]->k; j++)
                    diff[turn[t]->axis[j]] = (int64_t)turn[t]->z[j];
            }
            if (yes)
                return true;           /* a solution is one, cut short or not */
            if (!turn[t]->aborted)
                return false;
        }
    }
}

void tl_desc_classify(const struct tl_desc *d, struct tl_info *info)
{
    memset(info, 0, sizeof *info);
    uint64_t last = 0, count = 1, distinct = 1;
    for (unsigned i = 0; i < d->rank; i++) {
        count *= d->sizes[i];
        last += (d->sizes[i] - 1) * d->strides[i];
        if (d->strides[i])
            distinct *= d->sizes[i];
        else if (d->sizes[i] > 1)
            info->broadcast = true;
    }
    info->element_count = count;
    info->span = last + 1;
    info->min_size = (tl_dtype_bytes(d->dtype, info->span) + 3) & ~(uint64_t)3;
    info->elements_bytes = tl_desc_origin(d) + tl_dtype_bytes(d->dtype, info->span);
    info->overlapping = has_overlap(d, NULL);
    info->distinct = distinct;
    info->packed = !info->broadcast && !info->overlapping && info->span == count;
    info->padded = !info->overlapping && info->span > distinct;
    info->status = info->overlapping ? TL_ST_OVERLAPPING
                 : info->broadcast   ? TL_ST_BROADCAST
                 : info->padded      ? TL_ST_PADDED
                                     : TL_ST_PACKED;
    tl_axis_order(d->rank, d->sizes, d->strides, info->axis_order);
    const char *l = tl_axis_letters(d->rank);
    unsigned n = 0;
    for (unsigned i = 0; i < d->rank; i++) {
        unsigned ax = info->axis_order[i];
        if (d->strides[ax] == 0)
            info->broadcast_axes |= 1u << ax;
        else if (l)
            info->layout[n++] = l[ax];
    }
}

/* ---- padding as byte ranges ----------------------------------------------- */

int tl_desc_padding(const struct tl_desc *d, uint64_t max_ranges, tl_range_fn fn, void *ctx)
{
    struct tl_info info;
    tl_desc_classify(d, &info);
    /* positions in bytes of the file, or a 4-bit type's in its nibbles
     * (nibble k: byte k / 2, the low one when k is even) */
    unsigned per = tl_dtype_bits(d->dtype) == 4 ? 2 : 1;
    uint64_t end = (tl_desc_origin(d) + tl_desc_extent(d, &info)) * per;
    /* the axes that move, largest stride first; the innermost ones that are
     * packed inside each other make one contiguous run.  The runs' starts
     * are the elements of `runs`, those axes alone, in that order. */
    struct tl_desc runs = *d;
    unsigned n = 0;
    for (unsigned k = 0; k < d->rank; k++) {
        unsigned a = info.axis_order[k];
        if (d->sizes[a] > 1 && d->strides[a] > 0) {
            runs.sizes[n] = d->sizes[a];
            runs.strides[n++] = d->strides[a];
        }
    }
    uint64_t run = 1;                    /* elements in a run */
    while (n > 0 && runs.strides[n - 1] == run) {
        run *= runs.sizes[n - 1];
        n--;
    }
    runs.rank = n;
    uint64_t run_bytes = per == 2 ? run : tl_dtype_bytes(d->dtype, run);
    uint64_t idx[TL_MAX_RANK] = { 0 }, at = tl_desc_origin(d) * per, prev = 0, found = 0;
    do {
        uint64_t lo = per == 2 ? tl_desc_origin(d) * 2 + tl_desc_elem(&runs, idx)
                               : tl_desc_at(&runs, idx);
        if (lo < prev)                   /* the runs do not come in order */
            return -1;
        prev = lo;
        if (lo > at) {
            if (found == max_ranges)
                return 1;
            fn(at, lo, ctx);
            found++;
        }
        if (lo + run_bytes > at)
            at = lo + run_bytes;
    } while (tl_index_next(runs.rank, runs.sizes, idx));
    if (at < end) {
        if (found == max_ranges)
            return 1;
        fn(at, end, ctx);
    }
    return 0;
}

uint64_t tl_desc_extent(const struct tl_desc *d, const struct tl_info *info)
{
    uint64_t span_bytes = tl_dtype_bytes(d->dtype, info->span);
    return d->total_bytes > span_bytes ? d->total_bytes : span_bytes;
}

bool tl_desc_overlap_pair(const struct tl_desc *d, uint64_t *x, uint64_t *y)
{
    int64_t diff[TL_MAX_RANK] = { 0 };
    if (!has_overlap(d, diff))
        return false;
    /* z = x - y: x takes the positive parts, y the negative ones */
    for (unsigned i = 0; i < d->rank; i++) {
        x[i] = diff[i] > 0 ? (uint64_t)diff[i] : 0;
        y[i] = diff[i] < 0 ? (uint64_t)-diff[i] : 0;
    }
    return true;
}

int tl_desc_require_data(const struct tl_desc *d, uint64_t len, const char *key,
                        struct tl_error *err)
{
    struct tl_info info;
    tl_desc_classify(d, &info);
    if (info.elements_bytes > len)
        return tl_fail(err, TL_E_RANGE, key,
                       "data is shorter than the tensor: the file has %" PRIu64
                       " bytes but the tensor needs %" PRIu64 " (%" PRIu64
                       " of header and %" PRIu64 " of data)",
                       len, info.elements_bytes, tl_desc_origin(d),
                       info.elements_bytes - tl_desc_origin(d));
    return 0;
}
