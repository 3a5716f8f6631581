/*
 * find.c - the logical indices that own an element offset: the reverse of
 * tl_desc_offset(), for `offset --byte` and `dump --physical`.
 *
 * The owners are the solutions x of sum_i s_i x_i = t with 0 <= x_i <= u_i,
 * wanted in logical order and at most `limit` of them.  A bounded subset
 * sum, so no method is fast on every input; two methods that fail on
 * opposite inputs take turns (see tl_finder_find), and the tables of what
 * each suffix of axes can reach keep the logical walk off dead branches.
 * Every table is bounded (tl_find_limits), never in proportion to the
 * tensor.
 *
 * Arithmetic: after tl_desc_validate() every reach sum_i s_i u_i is below
 * 2^64, so no sum below overflows.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "tl.h"

typedef __int128 i128;

/* The residue classes of an axis of stride a before axes of gcd g, ready
 * for many targets: d = gcd(a, g), m = g / d, inv = (a/d)^-1 mod m.  Then
 * a*z == t (mod g) needs d | t and z == (t/d)*inv (mod m). */
static void residue_prepare(uint64_t a, uint64_t g, uint64_t *d, uint64_t *m, uint64_t *inv)
{
    if (g == 0) {
        *d = *m = *inv = 0;
        return;
    }
    *d = tl_gcd(a, g);
    *m = g / *d;
    *inv = *m == 1 ? 0 : tl_inverse(a / *d, *m);
}

/* The smallest z >= lo in the residue class of a*z == t (mod g), in *first,
 * and the class's step, in *step, from the prepared d, m, inv (for m == 0,
 * no axes after: the z with a*z == t); false when there is none. */
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

/* The moving axes of i.. (size > 1, stride > 0) into ax, largest stride
 * first (ties in logical order); returns their count. */
static unsigned moving_axes(const struct tl_desc *d, unsigned i, unsigned *ax)
{
    unsigned k = 0;
    for (unsigned j = i; j < d->rank; j++) {
        if (d->sizes[j] < 2 || d->strides[j] == 0)
            continue;
        unsigned p = k++;
        while (p > 0 && d->strides[ax[p - 1]] < d->strides[j]) {
            ax[p] = ax[p - 1];
            p--;
        }
        ax[p] = j;
    }
    return k;
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

struct tl_find_limits tl_find_limits = {
    .runs_max = 4096,
    .bits_max = UINT64_C(1) << 20,       /* 128 KiB */
    .has_scan = 64,
    .oracle_steps = 256,
    .runs_work = 1u << 16,
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
    if ((u + 1) > tl_find_limits.runs_work / n)
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
    unsigned down[TL_MAX_RANK], ax[TL_MAX_RANK], k = moving_axes(d, i, down);
    for (unsigned p = 0; p < k; p++)             /* smallest stride first */
        ax[p] = down[k - 1 - p];
    *exact = NULL;
    *out_n = 0;
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
            uint64_t g2 = tl_gcd(g, s), to = R + u * s;   /* below the reach: no overflow */
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

/* ---- whether axes i.. reach an offset, where no table says -------------- *
 *
 * A depth-first search over the axes, largest stride first, pruned by what
 * the rest reach and by their gcd, stepping through the residue class the
 * gcd allows: the overlap solver's method, which answers at its first steps
 * where strides nest.  Past oracle_steps steps it answers yes, a superset
 * that costs the walk a candidate with no completion and never an owner.
 */
struct tl_suffix {
    unsigned k, axis[TL_MAX_RANK];       /* moving axes, largest stride first */
    uint64_t s[TL_MAX_RANK], u[TL_MAX_RANK];
    uint64_t reach[TL_MAX_RANK + 1], g[TL_MAX_RANK + 1];
    uint64_t rd[TL_MAX_RANK], rm[TL_MAX_RANK], rinv[TL_MAX_RANK];
};

static struct tl_suffix *suffix_build(const struct tl_desc *d, unsigned i)
{
    struct tl_suffix *x = calloc(1, sizeof *x);
    if (!x)
        return NULL;
    x->k = moving_axes(d, i, x->axis);
    for (unsigned p = x->k; p-- > 0;) {
        x->s[p] = d->strides[x->axis[p]];
        x->u[p] = d->sizes[x->axis[p]] - 1;
        x->reach[p] = x->reach[p + 1] + x->u[p] * x->s[p];
        x->g[p] = tl_gcd(x->s[p], x->g[p + 1]);
        residue_prepare(x->s[p], x->g[p + 1], &x->rd[p], &x->rm[p], &x->rinv[p]);
    }
    return x;
}

static bool suffix_from(const struct tl_suffix *x, unsigned p, uint64_t t, uint64_t *left)
{
    if (p == x->k)
        return t == 0;
    if (t > x->reach[p] || (x->g[p] ? t % x->g[p] : t != 0))
        return false;
    if (p + 1 == x->k)                   /* t is a multiple of s within reach */
        return true;
    if (*left == 0)
        return true;                     /* given up: maybe */
    --*left;
    uint64_t s = x->s[p], u = x->u[p], r = x->reach[p + 1];
    uint64_t lo = t > r ? (t - r + s - 1) / s : 0, hi = t / s;
    if (hi > u)
        hi = u;
    i128 z, step;
    if (lo > hi || !residue_fast(s, t, x->rd[p], x->rm[p], x->rinv[p], lo, &z, &step))
        return false;
    for (; z <= (i128)hi; z += step) {
        if (suffix_from(x, p + 1, t - s * (uint64_t)z, left))
            return true;
    }
    return false;
}

/* Whether the axes of x reach t (or maybe, past the step bound); adds the
 * steps taken to *work. */
static bool suffix_reaches(const struct tl_suffix *x, uint64_t t, uint64_t *work)
{
    uint64_t left = tl_find_limits.oracle_steps;
    bool yes = suffix_from(x, 0, t, &left);
    *work += tl_find_limits.oracle_steps - left + 1;
    return yes;
}

/* A finder's tables (tl_desc.h). */
struct tl_finder {
    const struct tl_desc *d;
    uint64_t reach[TL_MAX_RANK + 1], g[TL_MAX_RANK + 1];
    uint64_t *runs[TL_MAX_RANK + 1];    /* offsets axes i.. reach, as sorted runs */
    size_t nruns[TL_MAX_RANK + 1];      /* [lo, hi] pairs; NULL when too many */
    struct tl_reach *exact[TL_MAX_RANK + 1];   /* which offsets of runs[i] are reached, */
                                        /* where runs[i] holds more (NULL: all) */
    struct tl_suffix *oracle[TL_MAX_RANK + 1];  /* axes i.. for a search, where */
                                        /* runs[i] is NULL */
    struct tl_suffix *all;               /* all the axes, for the enumeration */
    uint64_t *solutions;                 /* room for TL_FIND_CAP of them */
    uint64_t *walked;                    /* the walk's TL_FIND_CAP indices */
    /* per axis, for stepping through the values that keep the rest solvable:
     * gcd with the later axes, modulus and inverse (logical order) */
    uint64_t rd[TL_MAX_RANK], rm[TL_MAX_RANK], rinv[TL_MAX_RANK];
    /* the steps one tl_finder_find() may take (tl_finder_limit) */
    uint64_t work_max;
    /* after tl_finder_find(): false when it stopped at work_max */
    bool complete;
};

static void finder_release(struct tl_finder *f);

static int finder_init(struct tl_finder *f, const struct tl_desc *d)
{
    memset(f, 0, sizeof *f);
    f->d = d;
    f->work_max = TL_FIND_WORK;
    f->all = suffix_build(d, 0);         /* for the enumeration */
    if (!f->all)
        return TL_E_NOMEM;
    /* runs[rank] = {[0, 0]}; runs[i] = what axes i.. reach, while few */
    uint64_t *cur = malloc(2 * sizeof *cur);
    if (!cur) {
        finder_release(f);
        return TL_E_NOMEM;
    }
    cur[0] = cur[1] = 0;
    size_t n = 1;
    f->runs[d->rank] = cur;
    f->nruns[d->rank] = 1;
    for (unsigned j = d->rank; j-- > 0;) {
        /* a size-1 axis adds nothing; its stride may be any value */
        bool moves = d->sizes[j] > 1 && d->strides[j] > 0;
        f->reach[j] = f->reach[j + 1] + (moves ? (d->sizes[j] - 1) * d->strides[j] : 0);
        f->g[j] = moves ? tl_gcd(d->strides[j], f->g[j + 1]) : f->g[j + 1];
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
        if (!f->runs[j])
            f->oracle[j] = suffix_build(d, j);
    }
    return 0;
}

static void finder_release(struct tl_finder *f)
{
    free(f->solutions);
    free(f->walked);
    free(f->all);
    f->solutions = f->walked = NULL;
    f->all = NULL;
    for (unsigned i = 0; i <= TL_MAX_RANK; i++) {
        if (f->runs[i] && (i == TL_MAX_RANK || f->runs[i] != f->runs[i + 1]))
            free(f->runs[i]);
        f->runs[i] = NULL;
        reach_free(f->exact[i]);
        f->exact[i] = NULL;
        free(f->oracle[i]);
        f->oracle[i] = NULL;
    }
}

struct tl_finder *tl_finder_new(const struct tl_desc *d)
{
    struct tl_finder *f = malloc(sizeof *f);
    if (f && finder_init(f, d) != 0) {
        free(f);
        return NULL;
    }
    return f;
}

void tl_finder_limit(struct tl_finder *f, uint64_t steps)
{
    f->work_max = steps;
}

bool tl_finder_complete(const struct tl_finder *f)
{
    return f->complete;
}

void tl_finder_free(struct tl_finder *f)
{
    if (f) {
        finder_release(f);
        free(f);
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
        uint64_t rest = t - s * (uint64_t)z;
        if (f->oracle[i + 1] && !suffix_reaches(f->oracle[i + 1], rest, &q->work)) {
            if (q->budget && q->work > q->budget) {
                q->aborted = q->stop = true;
                return;
            }
            continue;
        }
        q->idx[i] = (uint64_t)z;
        find_from(q, i + 1, rest);
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
    unsigned k = e->f->all->k;
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
    const struct tl_suffix *x = f->all;
    if (j == x->k) {
        if (t != 0)
            return;
        for (unsigned m = 0, i = 0; i < d->rank; i++) {     /* back to logical order */
            for (unsigned p = 0; p < x->k; p++) {
                if (x->axis[p] == i)
                    e->vec[m++] = e->x[p];
            }
        }
        keep_smallest(e);
        return;
    }
    if (t > x->reach[j] || (x->g[j] ? t % x->g[j] : t != 0))
        return;
    uint64_t s = x->s[j], u = x->u[j];
    if (j + 1 == x->k) {                 /* the last axis is determined */
        e->x[j] = t / s;
        enum_from(e, j + 1, t - s * (t / s));
        return;
    }
    uint64_t r = x->reach[j + 1];
    uint64_t lo = t > r ? (t - r + s - 1) / s : 0, hi = t / s;
    if (hi > u)
        hi = u;
    i128 z, step;
    if (lo > hi || !residue_fast(s, t, x->rd[j], x->rm[j], x->rinv[j], lo, &z, &step))
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
static bool try_enumeration(struct tl_finder *f, uint64_t elem_offset, uint64_t limit,
                            uint64_t work, struct search *q)
{
    unsigned k = f->all->k;
    if (!f->solutions && k > 0)
        f->solutions = malloc((size_t)TL_FIND_CAP * k * sizeof *f->solutions);
    if (!f->solutions && k > 0)
        return false;
    struct enumeration e = { .f = f, .buf = f->solutions, .budget = work,
                             .K = limit < TL_FIND_CAP ? (size_t)limit : TL_FIND_CAP };
    uint64_t zero[1];
    if (k == 0) {
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
    vec_len = k;
    if (k > 0)
        qsort(e.buf, e.n, k * sizeof *e.buf, cmp_vec);
    if (e.n > 0)
        emit_from(q, e.buf, k, 0, 0, 0, e.n);
    return true;
}

/* The end of tl_finder_find(), after a walk that finished or was the last
 * one allowed: the walk goes in logical order, so what it found are the
 * first owners either way.  Passes on what it kept; returns the count. */
static uint64_t pass_on(struct tl_finder *f, const struct search *q, uint64_t passed)
{
    f->complete = !q->aborted;
    if (!q->out)
        return q->aborted ? passed : q->found;
    for (uint64_t i = 0; i < q->found; i++) {
        if (q->fn(q->out + i * f->d->rank, q->ctx))
            return i + 1;
    }
    return q->found;
}

/* The two ways of answering fail on different inputs: the walk in logical
 * order wastes time on candidates with no completion when owners are
 * sparse; the enumeration by stride wastes it listing owners when they are
 * dense.  So they take turns with budgets growing fourfold, and the first to
 * finish answers: never much slower than the better of the two.  A walk cut
 * short is run again from the start, passing on only what it had not. */
int tl_find_force;
_Thread_local uint64_t tl_find_work;

uint64_t tl_finder_find(struct tl_finder *f, uint64_t elem_offset, uint64_t limit,
                        tl_index_fn fn, void *ctx)
{
    struct search q = { .f = f, .limit = limit, .fn = fn, .ctx = ctx };
    tl_find_work = 0;
    f->complete = true;
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
    if (limit <= TL_FIND_CAP && !f->walked)
        f->walked = malloc((size_t)TL_FIND_CAP * (f->d->rank ? f->d->rank : 1) * sizeof *f->walked);
    q.out = limit <= TL_FIND_CAP ? f->walked : NULL;
    if (limit <= TL_FIND_CAP && !q.out)
        return 0;                        /* out of memory */
    uint64_t passed = 0;
    for (uint64_t budget = 1u << 14;; budget *= 4) {
        uint64_t left = f->work_max > tl_find_work ? f->work_max - tl_find_work : 1;
        q.found = 0;
        q.skip = passed;
        q.work = 0;
        q.budget = budget < left ? budget : left;        /* never 0: no bound */
        q.aborted = q.stop = false;
        find_from(&q, 0, elem_offset);
        tl_find_work += q.work;
        if (!q.aborted || tl_find_work >= f->work_max)
            return pass_on(f, &q, passed);
        if (!q.out && q.found > passed)
            passed = q.found;
        if (passed == 0) {               /* nothing passed on yet: may switch */
            struct search e = { .f = f, .limit = limit, .fn = fn, .ctx = ctx };
            left = f->work_max - tl_find_work;
            if (try_enumeration(f, elem_offset, limit, budget < left ? budget : left, &e))
                return e.found;
            if (tl_find_work >= f->work_max)
                return pass_on(f, &q, passed);
        }
    }
}

uint64_t tl_desc_find(const struct tl_desc *d, uint64_t elem_offset,
                      uint64_t limit, tl_index_fn fn, void *ctx)
{
    struct tl_finder f;
    if (finder_init(&f, d) != 0)
        return 0;
    uint64_t n = tl_finder_find(&f, elem_offset, limit, fn, ctx);
    finder_release(&f);
    return n;
}
