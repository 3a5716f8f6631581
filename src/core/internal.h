/* internal.h - helpers shared by the core's own files; not part of tl.h. */
#ifndef TL_INTERNAL_H
#define TL_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Sets err->key to key, cut to fit. */
struct tl_error;
void tl_error_key(struct tl_error *err, const char *key);

/* For tests: 0 lets the owner finder choose; 1 forces the logical walk
 * and 2 the enumeration by stride, each without a work bound. */
extern int tl_find_force;

/* For tests: the steps the last tl_finder_find() on this thread took (the
 * walk's nodes and candidates, the enumeration's nodes), a measure of its
 * work that does not depend on the machine. */
extern _Thread_local uint64_t tl_find_work;

/* The owner finder's table bounds: runs per suffix of axes, positions per
 * bit set, large runs one membership test looks at.  Tests lower them to
 * reach on small tensors the paths that only large ones take otherwise. */
struct tl_find_limits {
    size_t runs_max;
    uint64_t bits_max;
    size_t has_scan;
};
extern struct tl_find_limits tl_find_limits;

/* a*b and a+b into *r, false when the result does not fit in 64 bits. */
static inline bool tl_mul_ok(uint64_t a, uint64_t b, uint64_t *r)
{
    return !__builtin_mul_overflow(a, b, r);
}

static inline bool tl_add_ok(uint64_t a, uint64_t b, uint64_t *r)
{
    return !__builtin_add_overflow(a, b, r);
}

#endif
