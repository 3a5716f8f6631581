/*
 * fix.c - the strides an overlapping description may have meant (SPEC 19):
 * the candidates that change one stride and keep the rest, best first, for
 * a message to offer (the command line words them).  A typo is one
 * stride: for axis A, the stride that puts it just outside another axis I
 * (I's size times I's stride), that stride times A's own (a forgotten
 * factor: W padded to 64 and the channels' count forgotten), the stride
 * just inside another axis, or 1.  A fix must not overlap, and must keep
 * the outermost axis outermost (its stride was computed last, from the
 * rest); only when no other fits is the outermost stride itself changed,
 * to the smallest that fits.
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "tl.h"

/* The pairs of stored axes whose strides are out of logical order (an
 * outer axis with the smaller stride): 0 for the logical order itself. */
static unsigned inversions(const struct tl_desc *d)
{
    unsigned n = 0;
    for (unsigned a = 0; a < d->rank; a++)
        for (unsigned b = a + 1; b < d->rank; b++)
            n += d->sizes[a] > 1 && d->sizes[b] > 1 && d->strides[a] < d->strides[b];
    return n;
}

/* How far out a layout's padding lies: its axes (of size > 1) in stride
 * order, the outermost place where a stride is not the next inner axis's
 * size times its stride; 0 when every one is.  A fix whose padding is a
 * row's (W padded to 64, which N's stride then agrees with) comes before
 * one that leaves a gap between the outer blocks. */
static unsigned outer_gap(const struct tl_desc *d)
{
    unsigned ax[TL_MAX_RANK], m = 0, gap = 0;
    for (unsigned a = 0; a < d->rank; a++) {
        if (d->strides[a] == 0)
            continue;
        unsigned k = m++;
        while (k > 0 && d->strides[ax[k - 1]] > d->strides[a]) {
            ax[k] = ax[k - 1];
            k--;
        }
        ax[k] = a;
    }
    for (unsigned k = 1; k < m; k++)
        if (d->strides[ax[k]] != d->sizes[ax[k - 1]] * d->strides[ax[k - 1]])
            gap = k;
    return gap;
}

/* Whether fix f is listed before g. */
static bool fix_before(const struct tl_fix *f, const struct tl_fix *g)
{
    return f->inversions != g->inversions ? f->inversions < g->inversions : f->gap < g->gap;
}

/* Adds f to the fixes out[*n] unless it is there, best first (nearest the
 * logical order, then the one whose padding lies innermost: consistent
 * with the strides outside it), at most TL_MAX_FIXES. */
static void add_fix(struct tl_fix *out, size_t *n, const struct tl_fix *f)
{
    for (size_t k = 0; k < *n; k++)
        if (memcmp(out[k].strides, f->strides, sizeof f->strides) == 0)
            return;
    size_t at = *n < TL_MAX_FIXES ? (*n)++ : TL_MAX_FIXES;
    if (at == TL_MAX_FIXES) {
        if (!fix_before(f, &out[TL_MAX_FIXES - 1]))
            return;
        at = TL_MAX_FIXES - 1;
    }
    while (at > 0 && fix_before(f, &out[at - 1])) {
        out[at] = out[at - 1];
        at--;
    }
    out[at] = *f;
}

size_t tl_desc_fixes(const struct tl_desc *d, struct tl_fix *out)
{
    size_t n = 0;
    uint64_t top = 0;
    for (unsigned a = 0; a < d->rank; a++)
        if (d->sizes[a] > 1 && d->strides[a] > top)
            top = d->strides[a];
    for (int pass = 0; pass < 2 && n == 0; pass++) {
        for (unsigned a = 0; a < d->rank; a++) {
            if (d->sizes[a] < 2 || d->strides[a] == 0 || (pass == 0) != (d->strides[a] < top))
                continue;
            uint64_t cand[4 * TL_MAX_RANK + 1];
            unsigned from[4 * TL_MAX_RANK + 1], why[4 * TL_MAX_RANK + 1], nc = 0;
            cand[nc] = 1, from[nc] = a, why[nc++] = TL_FIX_INNERMOST;
            for (int kind = TL_FIX_OUTSIDE; kind <= TL_FIX_INSIDE; kind++) {
                for (unsigned i = 0; i < d->rank; i++) {
                    uint64_t v;
                    if (kind == TL_FIX_INSIDE) {   /* just inside axis i: i's stride / A's size */
                        if (i != a && d->strides[i] &&
                            d->strides[i] % d->sizes[a] == 0)
                            cand[nc] = d->strides[i] / d->sizes[a], from[nc] = i,
                            why[nc++] = TL_FIX_INSIDE;
                        continue;
                    }
                    if (i == a || d->sizes[i] < 2 || d->strides[i] == 0 ||
                        __builtin_mul_overflow(d->sizes[i], d->strides[i], &v))
                        continue;
                    if (kind == TL_FIX_FACTOR &&
                        (d->strides[a] < 2 || __builtin_mul_overflow(v, d->strides[a], &v)))
                        continue;
                    cand[nc] = v, from[nc] = i, why[nc++] = (unsigned)kind;
                }
            }
            struct tl_fix best = { .axis = a };
            bool have = false;
            for (unsigned c = 0; c < nc; c++) {
                struct tl_desc t = *d;
                struct tl_info ti;
                uint64_t reach;
                t.strides[a] = cand[c];
                if (cand[c] == d->strides[a] || tl_desc_validate(&t, NULL) ||
                    __builtin_mul_overflow(cand[c], d->sizes[a], &reach))
                    continue;
                if (pass == 0 && reach > top)          /* the outermost stays outermost */
                    continue;
                tl_desc_classify(&t, &ti);
                if (ti.overlapping)
                    continue;
                struct tl_fix f = { .axis = a, .inner = from[c], .why = why[c],
                                 .inversions = inversions(&t), .gap = outer_gap(&t) };
                memcpy(f.strides, t.strides, sizeof f.strides);
                /* the outermost changed: only its smallest fit, and those
                 * an outer stride implies (N's, of a batch of 1 too) */
                if (pass == 1 && why[c] != TL_FIX_INSIDE) {
                    if (!have || cand[c] < best.strides[a])
                        best = f;
                    have = true;
                    continue;
                }
                add_fix(out, &n, &f);
            }
            if (pass == 1 && have)
                add_fix(out, &n, &best);
        }
    }
    return n;
}

unsigned tl_fix_padded(const struct tl_desc *d, const struct tl_fix *f, uint64_t *slots)
{
    uint64_t now = f->strides[f->axis];
    unsigned in = f->axis;
    for (unsigned k = 0; k < d->rank; k++) {
        if (k != f->axis && d->sizes[k] > 1 && f->strides[k] && f->strides[k] < now &&
            (in == f->axis || f->strides[k] > f->strides[in]))
            in = k;
    }
    *slots = 0;
    if (in == f->axis || now % f->strides[in] != 0 || now / f->strides[in] <= d->sizes[in])
        return d->rank;
    *slots = now / f->strides[in];
    return in;
}
