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

/* A B x B register block: dst + c*ds + r*es = src + r*ss + c*es. */
typedef void (*tl_block_fn)(const uint8_t *src, size_t ss, uint8_t *dst, size_t ds);

/* The tiled transpose: TILE x TILE element tiles keep both sides in L1;
 * inside a tile, columns outermost so that destination rows are written in
 * order; full blocks go to `block`, edges to the scalar loop. */
static inline void tl_transpose_tiled(const uint8_t *src, size_t ss, uint8_t *dst, size_t ds,
                                      size_t rows, size_t cols, unsigned es, size_t B,
                                      tl_block_fn block)
{
    const size_t tile = 64;
    for (size_t cb = 0; cb < cols; cb += tile) {
        size_t ce = cols - cb < tile ? cols : cb + tile;
        for (size_t rb = 0; rb < rows; rb += tile) {
            size_t re = rows - rb < tile ? rows : rb + tile;
            size_t c = cb;
            for (; c + B <= ce; c += B) {
                size_t r = rb;
                for (; r + B <= re; r += B)
                    block(src + r * ss + c * es, ss, dst + c * ds + r * es, ds);
                if (r < re)
                    tl_transpose_scalar_es(src + r * ss + c * es, ss, dst + c * ds + r * es, ds,
                                           re - r, B, es);
            }
            if (c < ce)
                tl_transpose_scalar_es(src + rb * ss + c * es, ss, dst + c * ds + rb * es, ds,
                                       re - rb, ce - c, es);
        }
    }
}

#endif
