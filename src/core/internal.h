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
