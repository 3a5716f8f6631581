/*
 * tl_compare.h - comparing two tensors element by element (src/copy/compare.c; SPEC section 8).
 * Part of the core library's public interface; include tl.h for all of it.
 */
#ifndef TL_API_COMPARE_H
#define TL_API_COMPARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tl_desc.h"

/* ---- comparison (src/copy/compare.c; SPEC section 8) ------------------- */

struct tl_compare_opts {
    double atol, rtol;       /* a matches b when |a - b| <= atol + rtol * |b| */
    bool equal_nan;          /* NaN matches NaN */
    size_t show;             /* how many of the first mismatches to keep */
    unsigned threads;        /* 0: one per online CPU */
};

/* One mismatch: its logical index in row-major order (tl_unravel gives
 * the index), and each side's element in its own type. */
struct tl_mismatch {
    uint64_t index;
    uint8_t a[8], b[8];
};

struct tl_compare_result {
    uint64_t element_count, mismatches;
    bool int_diff;                 /* both sides are integers: differences are exact */
    bool have_abs, have_rel;       /* some mismatch has a finite difference */
    long double max_abs;           /* the largest |a - b| among the mismatches */
    double max_rel;                /* the largest |a - b| / |b| (inf where b is 0) */
    uint64_t max_abs_index, max_rel_index;   /* the first index that has it */
    struct tl_mismatch *first;     /* the first nfirst mismatches, in logical order */
    size_t nfirst;
};

/* Compares two tensors of the same sizes element by element, whatever
 * their layouts and data types: integers exactly, floats after exact
 * widening, +0 = -0, an infinity matches only itself, NaN nothing unless
 * equal_nan.  The report is the same for any number of threads.  Memory is
 * bounded by small boxes per thread, never by the tensors.  @return 0 (free
 * r with tl_compare_free), or TL_E_MISMATCH when the sizes differ, or
 * TL_E_NOMEM. */
int tl_compare(const struct tl_desc *a, const uint8_t *a_file, const struct tl_desc *b,
               const uint8_t *b_file, const struct tl_compare_opts *o,
               struct tl_compare_result *r, struct tl_error *err);
void tl_compare_free(struct tl_compare_result *r);

/* The logical index of a row-major linear index of d's sizes. */
void tl_unravel(const struct tl_desc *d, uint64_t linear_index, uint64_t *idx);

#endif
