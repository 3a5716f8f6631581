/*
 * kern_drivers.h - what every kern_<isa>.c shares: scalar element loops
 * (the tails of SIMD kernels and the whole of the scalar ones) and the
 * tiled transpose driver.  Everything here is static inline, so each ISA
 * file gets its own copy compiled with its own flags and no wide code can
 * leak into baseline objects.
 */
#ifndef TL_KERN_DRIVERS_H
#define TL_KERN_DRIVERS_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "copy.h"

/* Copies one element of es bytes; constant sizes become single moves. */
static inline void tl_copy_elem(uint8_t *d, const uint8_t *s, unsigned es)
{
    switch (es) {
    case 1: *d = *s; break;
    case 2: memcpy(d, s, 2); break;
    case 4: memcpy(d, s, 4); break;
    default: memcpy(d, s, 8); break;
    }
}

static inline void tl_transpose_scalar_es(const uint8_t *src, size_t ss, uint8_t *dst,
                                          size_t ds, size_t rows, size_t cols, unsigned es)
{
    for (size_t c = 0; c < cols; c++) {
        uint8_t *d = dst + c * ds;
        const uint8_t *s = src + c * es;
        for (size_t r = 0; r < rows; r++)
            tl_copy_elem(d + r * es, s + r * ss, es);
    }
}

static inline void tl_fill_scalar_es(uint8_t *dst, const uint8_t *val, size_t n, unsigned es)
{
    for (size_t i = 0; i < n; i++)
        tl_copy_elem(dst + i * es, val, es);
}

static inline void tl_interleave_scalar_es(const uint8_t *src, size_t plane, uint8_t *dst,
                                           size_t n, unsigned C, unsigned es)
{
    for (size_t i = 0; i < n; i++)
        for (unsigned k = 0; k < C; k++)
            tl_copy_elem(dst + (i * C + k) * es, src + k * plane + i * es, es);
}

static inline void tl_deinterleave_scalar_es(const uint8_t *src, uint8_t *dst, size_t plane,
                                             size_t n, unsigned C, unsigned es)
{
    for (size_t i = 0; i < n; i++)
        for (unsigned k = 0; k < C; k++)
            tl_copy_elem(dst + k * plane + i * es, src + (i * C + k) * es, es);
}

/* Register blocks are forced inline and their short loops unrolled, so
 * that the block's vectors live in registers rather than on the stack. */
#define TL_BLOCK static inline __attribute__((always_inline))
#if defined(__clang__)
#define TL_UNROLL _Pragma("unroll")
#elif defined(__GNUC__)
#define TL_UNROLL _Pragma("GCC unroll 16")
#else
#define TL_UNROLL
#endif

/* Defines `name`, a transpose kernel (copy.h's contract) over the register
 * block BLOCK(src, ss, dst, ds) of B x B elements of ES bytes.
 *
 * Each step takes one source cache line's worth of columns (64 bytes) from
 * B rows, as 64/(B*ES) blocks side by side, so every source line is used
 * whole once loaded; rows are swept innermost, so each destination row of
 * the step is written front to back.  Columns that do not fill a line and
 * rows that do not fill a block go to the scalar loop. */
#define TL_DEFINE_TRANSPOSE(name, ES, B, BLOCK)                                                \
    static void name(const uint8_t *src, size_t ss, uint8_t *dst, size_t ds, size_t rows,    \
                     size_t cols)                                                           \
    {                                                                                        \
        const size_t cstep = 64 / (ES), rfull = rows / (B) * (B);                            \
        size_t c = 0;                                                                        \
        for (; c + cstep <= cols; c += cstep) {                                              \
            const uint8_t *s = src + c * (ES);                                               \
            uint8_t *d = dst + c * ds;                                                       \
            size_t r = 0;                                                                    \
            for (; r < rfull; r += (B)) {                                                    \
                TL_UNROLL                                                                    \
                for (size_t k = 0; k < cstep; k += (B))                                      \
                    BLOCK(s + r * ss + k * (ES), ss, d + k * ds + r * (ES), ds);             \
            }                                                                                \
            if (r < rows)                                                                    \
                tl_transpose_scalar_es(s + r * ss, ss, d + r * (ES), ds, rows - r, cstep, ES); \
        }                                                                                    \
        if (c < cols)                                                                        \
            tl_transpose_scalar_es(src + c * (ES), ss, dst + c * ds, ds, rows, cols - c, ES); \
    }

#endif
