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
 * unknowns, largest stride first, pruning every branch whose remaining
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
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "tl.h"

typedef __int128 i128;

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

static uint64_t gcd64(uint64_t a, uint64_t b)
{
    while (b) {
        uint64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
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

/* x with a*x == 1 (mod m), for gcd(a, m) == 1 and m >= 1. */
static i128 inverse(i128 a, i128 m)
{
    i128 r0 = m, r1 = mod(a, m), s0 = 0, s1 = 1;
    while (r1) {
        i128 q = r0 / r1, t = r0 - q * r1;
        r0 = r1;
        r1 = t;
        t = s0 - q * s1;
        s0 = s1;
        s1 = t;
    }
    return mod(s0, m);
}

/* The unknowns of the overlap equation, largest stride first, with the
 * reach and gcd of each suffix. */
struct eq {
    unsigned k;
    i128 a[TL_MAX_RANK], u[TL_MAX_RANK];
    i128 reach[TL_MAX_RANK + 1], g[TL_MAX_RANK + 1];
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
    i128 d = (i128)gcd64((uint64_t)a, (uint64_t)g);
    if (mod(t, d))
        return false;
    i128 m = g / d;
    i128 z0 = m == 1 ? 0 : mod((t / d) % m * inverse(a / d, m), m);
    *first = lo + mod(z0 - lo, m);
    *step = m;
    return true;
}

/* The residue classes of an axis of stride a before axes of gcd g, ready
 * for many targets: d = gcd(a, g), m = g / d, inv = (a/d)^-1 mod m.  Then
 * a*z == t (mod g) needs d | t and z == (t/d)*inv (mod m). */
static void residue_prepare(uint64_t a, uint64_t g, uint64_t *d, uint64_t *m, uint64_t *inv)
{
    if (g == 0) {
        *d = *m = *inv = 0;
        return;
    }
    *d = gcd64(a, g);
    *m = g / *d;
    *inv = *m == 1 ? 0 : (uint64_t)inverse((i128)(a / *d), (i128)*m);
}

/* residue() with the prepared d, m, inv; t >= 0 and lo >= 0 here. */
static bool residue_fast(uint64_t a, uint64_t t, uint64_t d, uint64_t m, uint64_t inv,
                         uint64_t lo, i128 *first, i128 *step)
{
    if (m == 0) {                      /* no unknowns after: a*z must be t */
        if (t % a)
            return false;
        *first = t / a;
        *step = 1;
        return (uint64_t)*first >= lo;
    }
    if (t % d)
        return false;
    uint64_t z0 = m == 1 ? 0 : (uint64_t)((unsigned __int128)((t / d) % m) * inv % m);
    *first = (i128)lo + (i128)((z0 + m - lo % m) % m);
    *step = m;
    return true;
}

/* Two unknowns: a*z1 + b*z2 = t with |z1| <= u1, |z2| <= u2. */
static bool solve2(i128 a, i128 u1, i128 b, i128 u2, i128 t)
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
    return lo <= hi;
}

/* Is sum_{j >= i} a_j z_j = t solvable with |z_j| <= u_j? */
static bool solve(const struct eq *e, unsigned i, i128 t)
{
    if (i == e->k)
        return t == 0;
    if (t > e->reach[i] || -t > e->reach[i] || mod(t, e->g[i]))
        return false;
    if (i + 1 == e->k)
        return true;                   /* reach and gcd checks were exact */
    if (i + 2 == e->k)
        return solve2(e->a[i], e->u[i], e->a[i + 1], e->u[i + 1], t);
    i128 r = e->reach[i + 1];
    i128 lo = ceildiv(t - r, e->a[i]), hi = floordiv(t + r, e->a[i]), z, step;
    if (lo < -e->u[i])
        lo = -e->u[i];
    if (hi > e->u[i])
        hi = e->u[i];
    if (lo > hi || !residue(e->a[i], t, e->g[i + 1], lo, &z, &step))
        return false;
    for (; z <= hi; z += step) {
        if (solve(e, i + 1, t - e->a[i] * z))
            return true;
    }
    return false;
}

/* Exact overlap test over the dimensions with size > 1 and stride > 0. */
static bool has_overlap(const struct tl_desc *d)
{
    struct eq e = { 0 };
    for (unsigned i = 0; i < d->rank; i++) {
        if (d->sizes[i] < 2 || d->strides[i] == 0)
            continue;
        unsigned j = e.k++;            /* insert, keeping strides descending */
        while (j > 0 && e.a[j - 1] < (i128)d->strides[i]) {
            e.a[j] = e.a[j - 1];
            e.u[j] = e.u[j - 1];
            j--;
        }
        e.a[j] = d->strides[i];
        e.u[j] = d->sizes[i] - 1;
    }
    e.reach[e.k] = 0;
    e.g[e.k] = 0;
    for (unsigned j = e.k; j-- > 0;) {
        e.reach[j] = e.reach[j + 1] + e.a[j] * e.u[j];
        e.g[j] = gcd64((uint64_t)e.a[j], (uint64_t)e.g[j + 1]);
    }
    for (unsigned j = 0; j + 1 < e.k; j++) {   /* equal strides: the usual overlap */
        if (e.a[j] == e.a[j + 1])
            return true;
    }
    /* By symmetry (z and -z), let the first non-zero unknown be positive. */
    for (unsigned i = 0; i < e.k; i++) {
        i128 hi = e.reach[i + 1] / e.a[i], z, step;
        if (hi > e.u[i])
            hi = e.u[i];
        if (hi < 1 || !residue(e.a[i], 0, e.g[i + 1], 1, &z, &step))
            continue;
        for (; z <= hi; z += step) {
            if (solve(&e, i + 1, -e.a[i] * z))
                return true;
        }
    }
    return false;
}

void tl_desc_classify(const struct tl_desc *d, struct tl_info *info)
{
    memset(info, 0, sizeof *info);
    uint64_t last = 0, count = 1, distinct = 1;
    unsigned es = tl_dtype_size(d->dtype);
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
    info->min_size = (info->span * es + 3) & ~(uint64_t)3;
    info->elements_bytes = d->byte_offset + info->span * es;
    info->overlapping = has_overlap(d);
    info->distinct = distinct;
    info->packed = !info->broadcast && !info->overlapping && info->span == count;
    info->padded = !info->overlapping && info->span > distinct;
    info->status = info->overlapping ? TL_ST_OVERLAPPING
                 : info->broadcast   ? TL_ST_BROADCAST
                 : info->padded      ? TL_ST_PADDED
                                     : TL_ST_PACKED;
    tl_axis_order(d->rank, d->sizes, d->strides, info->axis_order);
    const char *l = tl_axis_letters(d->rank);
    for (unsigned i = 0; l && i < d->rank; i++)
        info->layout[i] = l[info->axis_order[i]];
}

/* ---- finding the indices of an offset ----------------------------------- *
 *
 * Two ways, taking turns (see tl_finder_find):
 *
 * The walk goes depth-first over the axes in logical order, so indices come
 * out in logical order.  An axis's candidates are the values that leave a
 * target the later axes can reach.  Where the offsets the later axes reach
 * fit in runs_max runs of consecutive integers (built exactly, once per
 * description), the candidates come from those runs and every one of them
 * has a completion.  Where they do not, the large strides' sums still may,
 * and the small strides' sums fit a bit set (see reach_build): candidates
 * then come from windows around the large runs, and the bit set passes only
 * those with a completion.  Failing both, the candidates are the interval
 * the later axes span, stepped through the residue class their gcd allows.
 *
 * The enumeration goes largest stride first and keeps the `limit` smallest
 * owners, then sorts them into logical order.
 */
#define RUNS_WORK (1u << 16)

struct tl_find_limits tl_find_limits = {
    .runs_max = 4096,
    .bits_max = UINT64_C(1) << 20,       /* 128 KiB */
    .has_scan = 64,
};

static int cmp_run(const void *a, const void *b)
{
    const uint64_t *x = a, *y = b;
    return x[0] < y[0] ? -1 : x[0] > y[0];
}

/* The runs reachable as cur + s*x for 0 <= x <= u: a new sorted array of
 * merged [lo, hi] pairs, count in *out_n; NULL when past runs_max (or out
 * of memory). */
static uint64_t *runs_extend(const uint64_t *cur, size_t n, uint64_t s, uint64_t u, size_t *out_n)
{
    if (n == 1 && s <= cur[1] - cur[0] + 1) {        /* one run that the steps overlap */
        uint64_t *r = malloc(2 * sizeof *r);
        if (r) {
            r[0] = cur[0];
            r[1] = cur[1] + s * u;
            *out_n = 1;
        }
        return r;
    }
    if ((u + 1) > RUNS_WORK / n)
        return NULL;
    size_t m = (size_t)(u + 1) * n;
    uint64_t *r = malloc(2 * m * sizeof *r);
    if (!r)
        return NULL;
    size_t k = 0;
    for (uint64_t x = 0; x <= u; x++) {
        for (size_t i = 0; i < n; i++) {
            r[2 * k] = cur[2 * i] + s * x;
            r[2 * k + 1] = cur[2 * i + 1] + s * x;
            k++;
        }
    }
    qsort(r, m, 2 * sizeof *r, cmp_run);
    size_t w = 0;
    for (size_t i = 0; i < m; i++) {
        if (w > 0 && r[2 * i] <= r[2 * (w - 1) + 1] + 1) {
            if (r[2 * i + 1] > r[2 * (w - 1) + 1])
                r[2 * (w - 1) + 1] = r[2 * i + 1];
        } else {
            r[2 * w] = r[2 * i];
            r[2 * w + 1] = r[2 * i + 1];
            w++;
        }
    }
    if (w > tl_find_limits.runs_max) {
        free(r);
        return NULL;
    }
    *out_n = w;
    return r;
}

/* ---- exact reach where the runs are too many ----------------------------- *
 *
 * When the offsets axes i.. reach make more than runs_max runs, they are
 * split by stride.  The small strides' sums fill [0, span] with few holes
 * (like 4a + 5b + 7c, dense but for the ends), so they are kept as a bit
 * set over the multiples of their gcd; the few large strides' sums are kept
 * as exact runs.  The reach is every large sum plus every small one: the
 * windows [a, b + span] over the large runs hold it, and reach_has() tells
 * exactly which of their offsets it holds.
 */

struct tl_reach {
    uint64_t *large;                     /* sorted, disjoint [lo, hi] runs */
    size_t nlarge;
    uint64_t *bits;                      /* bit k: g*k is a small sum; NULL: all */
    uint64_t g, span;                    /* the small sums lie in g*[0, span/g] */
    uint64_t maxgap;                     /* widest step between set bits */
};

static bool bit_get(const uint64_t *b, uint64_t k)
{
    return b[k / 64] >> (k % 64) & 1;
}

/* b |= b << k over n words (bits past the end fall off). */
static void bits_shift_or(uint64_t *b, size_t n, uint64_t k)
{
    size_t q = (size_t)(k / 64);
    unsigned r = (unsigned)(k % 64);
    for (size_t i = n; i-- > q;) {
        uint64_t v = b[i - q] << r;
        if (r && i > q)
            v |= b[i - q - 1] >> (64 - r);
        b[i] |= v;
    }
}

/* Whether any of bits [lo, hi] is set. */
static bool bits_any(const uint64_t *b, uint64_t lo, uint64_t hi)
{
    for (uint64_t w = lo / 64; w <= hi / 64; w++) {
        uint64_t m = b[w];
        if (w == lo / 64)
            m &= ~UINT64_C(0) << (lo % 64);
        if (w == hi / 64 && hi % 64 != 63)
            m &= (UINT64_C(1) << (hi % 64 + 1)) - 1;
        if (m)
            return true;
    }
    return false;
}

static void reach_free(struct tl_reach *x)
{
    if (x) {
        free(x->large);
        free(x->bits);
        free(x);
    }
}

/* Whether axes i.. reach offset t.  Exact, but past has_scan large runs or
 * a scan of 64 words it answers yes: a superset, which costs the walk a
 * candidate with no completion and never an owner. */
static bool reach_has(const struct tl_reach *x, uint64_t t)
{
    const uint64_t *r = x->large;
    size_t l = 0, h = x->nlarge;
    uint64_t floor = t > x->span ? t - x->span : 0;
    while (l < h) {                      /* the first run with hi >= t - span */
        size_t mid = l + (h - l) / 2;
        if (r[2 * mid + 1] < floor)
            l = mid + 1;
        else
            h = mid;
    }
    for (size_t k = l, seen = 0; k < x->nlarge && r[2 * k] <= t; k++) {
        if (++seen > tl_find_limits.has_scan)
            return true;                 /* a superset answer: the walk checks */
        /* small sums t - L for L in [a, b], L <= t, as positions */
        uint64_t a = r[2 * k], b = r[2 * k + 1] < t ? r[2 * k + 1] : t;
        uint64_t dlo = t - b, dhi = t - a;
        if (dhi > x->span)
            dhi = x->span;
        uint64_t plo = (dlo + x->g - 1) / x->g, phi = dhi / x->g;
        if (dlo > dhi || plo > phi)
            continue;
        if (!x->bits || phi - plo + 1 >= x->maxgap)
            return true;
        if (phi / 64 - plo / 64 >= 64)
            return true;                 /* a long scan: a superset answer too */
        if (bits_any(x->bits, plo, phi))
            return true;
    }
    return false;
}

/* The reach of axes i.. split as above, with its windows in *win (count in
 * *out_n); NULL for both when the large sums make too many runs (or out of
 * memory).  *exact is NULL when the windows are the reach themselves. */
static uint64_t *reach_build(const struct tl_desc *d, unsigned i, size_t *out_n,
                             struct tl_reach **exact)
{
    unsigned ax[TL_MAX_RANK], k = 0;
    *exact = NULL;
    *out_n = 0;
    for (unsigned j = i; j < d->rank; j++) {     /* moving axes, smallest stride first */
        if (d->sizes[j] < 2 || d->strides[j] == 0)
            continue;
        unsigned p = k++;
        while (p > 0 && d->strides[ax[p - 1]] > d->strides[j]) {
            ax[p] = ax[p - 1];
            p--;
        }
        ax[p] = j;
    }
    struct tl_reach *x = calloc(1, sizeof *x);
    if (!x)
        return NULL;
    /* strides that nest into one interval [0, R] (each at most R + 1)... */
    uint64_t R = 0, g = 0;
    unsigned m = 0;
    while (m < k && d->strides[ax[m]] <= R + 1) {
        R += (d->sizes[ax[m]] - 1) * d->strides[ax[m]];
        g = 1;
        m++;
    }
    /* ...then, while the positions fit, the next ones as a bit set */
    unsigned nest = m;
    uint64_t have = R;                   /* the nested interval [0, have], or {0} */
    if (R < tl_find_limits.bits_max) {
        while (m < k) {
            uint64_t s = d->strides[ax[m]], u = d->sizes[ax[m]] - 1;
            uint64_t g2 = gcd64(g, s), to = R + u * s;   /* below the reach: no overflow */
            if (to / g2 >= tl_find_limits.bits_max)
                break;
            R = to;
            g = g2;
            m++;
        }
    }
    x->g = g ? g : 1;
    x->span = R;
    if (m > nest) {
        uint64_t npos = R / x->g + 1, nw = (npos + 63) / 64;
        x->bits = calloc(nw, sizeof *x->bits);
        if (!x->bits)
            goto fail;
        for (uint64_t w = 0; w <= have / 64; w++)
            x->bits[w] = w < have / 64 ? ~UINT64_C(0) : (UINT64_C(2) << (have % 64)) - 1;
        for (unsigned p = nest; p < m; p++) {    /* {0..u} * s as 1 + 2 + 4 + ... + rest */
            uint64_t s = d->strides[ax[p]] / x->g, u = d->sizes[ax[p]] - 1;
            for (uint64_t c = 1; u > 0; c *= 2) {
                uint64_t take = c < u ? c : u;
                bits_shift_or(x->bits, (size_t)nw, take * s);
                u -= take;
            }
        }
        uint64_t last = 0;
        x->maxgap = 1;
        for (uint64_t p = 1; p < npos; p++) {
            if (bit_get(x->bits, p)) {
                if (p - last > x->maxgap)
                    x->maxgap = p - last;
                last = p;
            }
        }
    }
    /* the large strides' exact sums */
    uint64_t *cur = malloc(2 * sizeof *cur);
    if (!cur)
        goto fail;
    cur[0] = cur[1] = 0;
    size_t n = 1;
    for (unsigned p = m; p < k && cur; p++) {
        uint64_t *next = runs_extend(cur, n, d->strides[ax[p]], d->sizes[ax[p]] - 1, &n);
        free(cur);
        cur = next;
    }
    if (!cur)
        goto fail;
    x->large = cur;
    x->nlarge = n;
    /* the windows: [a, b + span] merged */
    uint64_t *win = malloc(2 * n * sizeof *win);
    if (!win)
        goto fail;
    size_t w = 0;
    for (size_t p = 0; p < n; p++) {
        if (w > 0 && cur[2 * p] <= win[2 * w - 1] + 1) {
            win[2 * w - 1] = cur[2 * p + 1] + R;
        } else {
            win[2 * w] = cur[2 * p];
            win[2 * w + 1] = cur[2 * p + 1] + R;
            w++;
        }
    }
    *out_n = w;
    if (x->bits && (x->g > 1 || x->maxgap > 1))
        *exact = x;                              /* the windows hold holes */
    else
        reach_free(x);
    return win;
fail:
    reach_free(x);
    return NULL;
}

int tl_finder_init(struct tl_finder *f, const struct tl_desc *d)
{
    memset(f, 0, sizeof *f);
    f->d = d;
    /* the moving axes, largest stride first, with suffix reach and gcd */
    for (unsigned i = 0; i < d->rank; i++) {
        if (d->sizes[i] < 2 || d->strides[i] == 0)
            continue;
        unsigned j = f->k++;
        while (j > 0 && d->strides[f->axis[j - 1]] < d->strides[i]) {
            f->axis[j] = f->axis[j - 1];
            j--;
        }
        f->axis[j] = i;
    }
    for (unsigned j = f->k; j-- > 0;) {
        uint64_t s = d->strides[f->axis[j]];
        f->dreach[j] = f->dreach[j + 1] + (d->sizes[f->axis[j]] - 1) * s;
        f->dg[j] = gcd64(s, f->dg[j + 1]);
        residue_prepare(s, f->dg[j + 1], &f->srd[j], &f->srm[j], &f->srinv[j]);
    }
    /* runs[rank] = {[0, 0]}; runs[i] = what axes i.. reach, while few */
    uint64_t *cur = malloc(2 * sizeof *cur);
    if (!cur)
        return TL_E_NOMEM;
    cur[0] = cur[1] = 0;
    size_t n = 1;
    f->runs[d->rank] = cur;
    f->nruns[d->rank] = 1;
    for (unsigned j = d->rank; j-- > 0;) {
        /* a size-1 axis adds nothing; its stride may be any value */
        bool moves = d->sizes[j] > 1 && d->strides[j] > 0;
        f->reach[j] = f->reach[j + 1] + (moves ? (d->sizes[j] - 1) * d->strides[j] : 0);
        f->g[j] = moves ? gcd64(d->strides[j], f->g[j + 1]) : f->g[j + 1];
        if (moves)
            residue_prepare(d->strides[j], f->g[j + 1], &f->rd[j], &f->rm[j], &f->rinv[j]);
        if (!cur)
            continue;
        if (!moves) {
            f->runs[j] = cur;                  /* shared with j + 1 */
            f->nruns[j] = n;
            continue;
        }
        cur = runs_extend(cur, n, d->strides[j], d->sizes[j] - 1, &n);
        f->runs[j] = cur;
        f->nruns[j] = cur ? n : 0;
    }
    for (unsigned j = 1; j < d->rank; j++) {     /* too many runs: split by stride */
        if (!f->runs[j])
            f->runs[j] = reach_build(d, j, &f->nruns[j], &f->exact[j]);
    }
    return 0;
}

void tl_finder_free(struct tl_finder *f)
{
    free(f->solutions);
    free(f->walked);
    f->solutions = f->walked = NULL;
    for (unsigned i = 0; i <= TL_MAX_RANK; i++) {
        if (f->runs[i] && (i == TL_MAX_RANK || f->runs[i] != f->runs[i + 1]))
            free(f->runs[i]);
        f->runs[i] = NULL;
        reach_free(f->exact[i]);
        f->exact[i] = NULL;
    }
}

struct search {
    const struct tl_finder *f;
    uint64_t idx[TL_MAX_RANK];
    uint64_t found, limit;
    uint64_t skip;                       /* already passed to fn by an earlier try */
    uint64_t work, budget;               /* steps taken, steps allowed (walk only) */
    uint64_t *out;                       /* when not NULL, indices are kept here */
    bool aborted;
    tl_index_fn fn;
    void *ctx;
    bool stop;
};

/* Passes one index on, unless an earlier, cut-short walk already did. */
static void emit(struct search *q)
{
    unsigned rank = q->f->d->rank;
    if (q->out)
        memcpy(q->out + q->found * rank, q->idx, rank * sizeof *q->idx);
    q->found++;
    if (!q->out && q->found > q->skip && q->fn(q->idx, q->ctx))
        q->stop = true;
    if (q->found >= q->limit)
        q->stop = true;
}

static void find_from(struct search *q, unsigned i, uint64_t t)
{
    const struct tl_finder *f = q->f;
    const struct tl_desc *d = f->d;
    if (q->budget && ++q->work > q->budget) {
        q->aborted = q->stop = true;
        return;
    }
    if (i == d->rank) {
        if (t == 0)
            emit(q);
        return;
    }
    if (t > f->reach[i] || (f->g[i] ? t % f->g[i] : t != 0))
        return;
    uint64_t s = d->strides[i], u = d->sizes[i] - 1;
    if (u == 0) {
        q->idx[i] = 0;
        find_from(q, i + 1, t);
        return;
    }
    if (s == 0) {
        /* a broadcast axis: every value works or none does */
        for (uint64_t x = 0; x <= u && !q->stop; x++) {
            uint64_t before = q->found;
            q->idx[i] = x;
            find_from(q, i + 1, t);
            if (q->found == before)
                break;
        }
        return;
    }
    uint64_t r = f->reach[i + 1];
    uint64_t lo = t > r ? (t - r + s - 1) / s : 0, hi = t / s;
    if (hi > u)
        hi = u;
    if (lo > hi)
        return;
    i128 z, step;
    if (!residue_fast(s, t, f->rd[i], f->rm[i], f->rinv[i], lo, &z, &step))
        return;
    if (z > (i128)hi)
        return;
    if (f->runs[i + 1]) {
        /* from the runs the later axes reach, highest first: x ascending
         * (every x has a completion when the runs are exact) */
        const uint64_t *rr = f->runs[i + 1];
        /* only the runs meeting [t - s*hi, t - s*lo]: binary search both ends */
        uint64_t wlo = t - s * hi, whi = t - s * lo;
        size_t top = 0, bottom, n = f->nruns[i + 1];
        for (size_t l = 0, h = n; l < h;) {            /* first run with a > whi */
            size_t mid = l + (h - l) / 2;
            if (rr[2 * mid] <= whi)
                l = top = mid + 1;
            else
                h = mid;
        }
        bottom = top;
        for (size_t l = 0, h = top; l < h;) {          /* first run with b >= wlo */
            size_t mid = l + (h - l) / 2;
            if (rr[2 * mid + 1] < wlo)
                l = mid + 1;
            else
                h = bottom = mid;
        }
        for (size_t k = top; k-- > bottom && !q->stop;) {
            if (q->budget && ++q->work > q->budget) {
                q->aborted = q->stop = true;
                return;
            }
            uint64_t a = rr[2 * k], b = rr[2 * k + 1];
            if (a > t)
                continue;
            uint64_t xlo = t > b ? (t - b + s - 1) / s : 0, xhi = (t - a) / s;
            if (xlo < lo)
                xlo = lo;
            if (xhi > hi)
                xhi = hi;
            for (uint64_t x = xlo; x <= xhi && !q->stop; x++) {
                if (q->budget && ++q->work > q->budget) {
                    q->aborted = q->stop = true;
                    return;
                }
                if (f->exact[i + 1] && !reach_has(f->exact[i + 1], t - s * x))
                    continue;
                q->idx[i] = x;
                find_from(q, i + 1, t - s * x);
            }
        }
        return;
    }
    for (; z <= (i128)hi && !q->stop; z += step) {
        q->idx[i] = (uint64_t)z;
        find_from(q, i + 1, t - s * (uint64_t)z);
    }
}

/* Phase one: every solution over the moving axes, largest stride first (the
 * order in which dead branches are pruned soonest), keeping the K smallest
 * in logical order in a max-heap in e->buf.  The first `limit` logical
 * indices use only a sorted prefix of these projections (broadcast axes
 * only repeat them), so K = min(limit, TL_FIND_CAP) is enough.  Stops with
 * e->too_much after e->budget steps. */
struct enumeration {
    const struct tl_finder *f;
    uint64_t x[TL_MAX_RANK];             /* by sorted position */
    uint64_t *buf, vec[TL_MAX_RANK];
    size_t n, K;
    uint64_t work, budget;
    bool too_much;
};

static int vec_cmp(const uint64_t *a, const uint64_t *b, unsigned k)
{
    for (unsigned i = 0; i < k; i++) {
        if (a[i] != b[i])
            return a[i] < b[i] ? -1 : 1;
    }
    return 0;
}

static void vec_swap(uint64_t *a, uint64_t *b, unsigned k)
{
    for (unsigned i = 0; i < k; i++) {
        uint64_t t = a[i];
        a[i] = b[i];
        b[i] = t;
    }
}

/* Offers e->vec to the heap of the K smallest. */
static void keep_smallest(struct enumeration *e)
{
    unsigned k = e->f->k;
    uint64_t *h = e->buf;
    size_t i;
    if (e->n < e->K) {                   /* push, sift up */
        i = e->n++;
        memcpy(h + i * k, e->vec, k * sizeof *h);
        while (i > 0 && vec_cmp(h + (i - 1) / 2 * k, h + i * k, k) < 0) {
            vec_swap(h + (i - 1) / 2 * k, h + i * k, k);
            i = (i - 1) / 2;
        }
        return;
    }
    if (vec_cmp(e->vec, h, k) >= 0)      /* not smaller than the largest kept */
        return;
    memcpy(h, e->vec, k * sizeof *h);    /* replace the root, sift down */
    for (i = 0;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < e->n && vec_cmp(h + l * k, h + m * k, k) > 0)
            m = l;
        if (r < e->n && vec_cmp(h + r * k, h + m * k, k) > 0)
            m = r;
        if (m == i)
            break;
        vec_swap(h + i * k, h + m * k, k);
        i = m;
    }
}

static void enum_from(struct enumeration *e, unsigned j, uint64_t t)
{
    const struct tl_finder *f = e->f;
    const struct tl_desc *d = f->d;
    if (e->too_much)
        return;
    if (++e->work > e->budget) {
        e->too_much = true;
        return;
    }
    if (j == f->k) {
        if (t != 0)
            return;
        for (unsigned m = 0, i = 0; i < d->rank; i++) {     /* back to logical order */
            for (unsigned p = 0; p < f->k; p++) {
                if (f->axis[p] == i)
                    e->vec[m++] = e->x[p];
            }
        }
        keep_smallest(e);
        return;
    }
    if (t > f->dreach[j] || (f->dg[j] ? t % f->dg[j] : t != 0))
        return;
    uint64_t s = d->strides[f->axis[j]], u = d->sizes[f->axis[j]] - 1;
    if (j + 1 == f->k) {                 /* the last axis is determined */
        e->x[j] = t / s;
        enum_from(e, j + 1, t - s * (t / s));
        return;
    }
    uint64_t r = f->dreach[j + 1];
    uint64_t lo = t > r ? (t - r + s - 1) / s : 0, hi = t / s;
    if (hi > u)
        hi = u;
    i128 z, step;
    if (lo > hi || !residue_fast(s, t, f->srd[j], f->srm[j], f->srinv[j], lo, &z, &step))
        return;
    for (; z <= (i128)hi && !e->too_much; z += step) {
        e->x[j] = (uint64_t)z;
        enum_from(e, j + 1, t - s * (uint64_t)z);
    }
}

static _Thread_local unsigned vec_len;  /* for cmp_vec, which qsort cannot pass it */


static int cmp_vec(const void *a, const void *b)
{
    const uint64_t *x = a, *y = b;
    for (unsigned i = 0; i < vec_len; i++) {
        if (x[i] != y[i])
            return x[i] < y[i] ? -1 : 1;
    }
    return 0;
}

/* Phase two: the logical indices in logical order, from the sorted
 * solutions [lo, hi) that agree with the prefix; m counts moving axes. */
static void emit_from(struct search *q, const uint64_t *sol, unsigned k, unsigned i, unsigned m,
                      size_t lo, size_t hi)
{
    const struct tl_desc *d = q->f->d;
    if (q->stop)
        return;
    if (i == d->rank) {
        emit(q);
        return;
    }
    if (d->sizes[i] == 1) {
        q->idx[i] = 0;
        emit_from(q, sol, k, i + 1, m, lo, hi);
    } else if (d->strides[i] == 0) {
        for (uint64_t x = 0; x < d->sizes[i] && !q->stop; x++) {
            q->idx[i] = x;
            emit_from(q, sol, k, i + 1, m, lo, hi);
        }
    } else {
        for (size_t a = lo; a < hi && !q->stop;) {
            size_t b = a + 1;
            while (b < hi && sol[b * k + m] == sol[a * k + m])
                b++;
            q->idx[i] = sol[a * k + m];
            emit_from(q, sol, k, i + 1, m + 1, a, b);
            a = b;
        }
    }
}

/* Phase one, within `work` steps: true when it finished and answered. */
static bool try_enumeration(const struct tl_finder *f, uint64_t elem_offset, uint64_t limit,
                            uint64_t work, struct search *q)
{
    struct tl_finder *mf = (struct tl_finder *)f;
    if (!mf->solutions && f->k > 0)
        mf->solutions = malloc((size_t)TL_FIND_CAP * f->k * sizeof *mf->solutions);
    if (!f->solutions && f->k > 0)
        return false;
    struct enumeration e = { .f = f, .buf = f->solutions, .budget = work,
                             .K = limit < TL_FIND_CAP ? (size_t)limit : TL_FIND_CAP };
    uint64_t zero[1];
    if (f->k == 0) {
        e.n = elem_offset == 0;          /* nothing moves: offset 0 or nothing */
        e.buf = zero;
    } else {
        enum_from(&e, 0, elem_offset);
        tl_find_work += e.work;
    }
    /* with more solutions than kept and a limit beyond them, the kept ones
     * are not enough: only the walk can answer */
    bool enough = e.n < e.K || e.K == limit;
    if (e.too_much || !enough)
        return false;
    unsigned k = f->k;
    vec_len = k;
    if (k > 0)
        qsort(e.buf, e.n, k * sizeof *e.buf, cmp_vec);
    if (e.n > 0)
        emit_from(q, e.buf, k, 0, 0, 0, e.n);
    return true;
}

/* The two ways of answering fail on different inputs: the walk in logical
 * order wastes time on candidates with no completion when owners are
 * sparse; the enumeration by stride wastes it listing owners when they are
 * dense.  So they take turns with budgets growing fourfold, and the first to
 * finish answers: never much slower than the better of the two.  A walk cut
 * short is run again from the start, passing on only what it had not. */
int tl_find_force;
_Thread_local uint64_t tl_find_work;

uint64_t tl_finder_find(const struct tl_finder *f, uint64_t elem_offset, uint64_t limit,
                        tl_index_fn fn, void *ctx)
{
    struct search q = { .f = f, .limit = limit, .fn = fn, .ctx = ctx };
    tl_find_work = 0;
    if (limit == 0)
        return 0;
    if (tl_find_force == 1) {
        find_from(&q, 0, elem_offset);
        return q.found;
    }
    if (tl_find_force == 2 && limit <= TL_FIND_CAP) {
        if (try_enumeration(f, elem_offset, limit, UINT64_MAX, &q))
            return q.found;
    }
    /* a walk keeps what it finds until it finishes, so that the enumeration
     * can still take over; only a limit beyond TL_FIND_CAP passes indices on
     * as they come (and never switches once it has) */
    struct tl_finder *mf = (struct tl_finder *)f;
    if (limit <= TL_FIND_CAP && !mf->walked)
        mf->walked = malloc((size_t)TL_FIND_CAP * (f->d->rank ? f->d->rank : 1) * sizeof *mf->walked);
    q.out = limit <= TL_FIND_CAP ? f->walked : NULL;
    if (limit <= TL_FIND_CAP && !q.out)
        return 0;                        /* out of memory */
    uint64_t passed = 0;
    for (uint64_t budget = 1u << 14;; budget *= 4) {
        q.found = 0;
        q.skip = passed;
        q.work = 0;
        q.budget = budget < (UINT64_C(1) << 62) ? budget : 0;   /* 0: no bound */
        q.aborted = q.stop = false;
        find_from(&q, 0, elem_offset);
        tl_find_work += q.work;
        if (!q.aborted) {
            if (!q.out)
                return q.found;
            uint64_t n = q.found;
            for (uint64_t i = 0; i < n; i++) {
                if (fn(q.out + i * f->d->rank, ctx))
                    return i + 1;
            }
            return n;
        }
        if (!q.out && q.found > passed)
            passed = q.found;
        if (passed == 0) {               /* nothing passed on yet: may switch */
            struct search e = { .f = f, .limit = limit, .fn = fn, .ctx = ctx };
            if (try_enumeration(f, elem_offset, limit, budget, &e))
                return e.found;
        }
    }
}

uint64_t tl_desc_find(const struct tl_desc *d, uint64_t elem_offset,
                      uint64_t limit, tl_index_fn fn, void *ctx)
{
    struct tl_finder f;
    if (tl_finder_init(&f, d) != 0)
        return 0;
    uint64_t n = tl_finder_find(&f, elem_offset, limit, fn, ctx);
    tl_finder_free(&f);
    return n;
}
