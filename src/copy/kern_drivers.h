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

/* The 4-bit kernels' element loops (copy.h: unpack4, pack4); sgn is 1
 * for INT4. */
static inline void tl_unpack4_scalar(const uint8_t *src, uint8_t *dst, size_t n, int sgn)
{
    for (size_t i = 0; i < n; i++) {
        unsigned v = (unsigned)(src[i / 2] >> (i & 1 ? 4 : 0)) & 15;
        dst[i] = (uint8_t)(sgn ? (v ^ 8) - 8 : v);
    }
}

static inline bool tl_pack4_scalar(const uint8_t *src, uint8_t *dst, size_t n, int sgn)
{
    bool bad = false;
    for (size_t i = 0; i < n; i++) {
        int v = sgn ? (int)(int8_t)src[i] : (int)src[i];
        int lo = sgn ? -8 : 0, hi = sgn ? 7 : 15;
        int c = v < lo ? lo : v > hi ? hi : v;
        bad |= c != v;
        unsigned sh = i & 1 ? 4 : 0;
        dst[i / 2] = (uint8_t)((dst[i / 2] & ~(15u << sh)) | ((unsigned)c & 15) << sh);
    }
    return bad;
}

static inline void tl_nibpair_scalar(const uint8_t *r0, const uint8_t *r1, uint8_t *lo,
                                     uint8_t *hi, size_t n)
{
    for (size_t k = 0; k < n; k++) {
        lo[k] = (uint8_t)((r0[k] & 15) | r1[k] << 4);
        hi[k] = (uint8_t)(r0[k] >> 4 | (r1[k] & 0xf0));
    }
}

static inline void tl_fill_scalar_es(uint8_t *dst, const uint8_t *val, size_t n, unsigned es)
{
    for (size_t i = 0; i < n; i++)
        tl_copy_elem(dst + i * es, val, es);
}

/* A fill of n elements of es bytes with the string store (REP STOS), on
 * x86-64: @return false where there is none, or n is below TL_REP_MIN
 * bytes.  The string store writes whole lines without reading them first,
 * as memset does; vector stores read every line they write (for
 * ownership) before writing it.  (Measured on an AMD EPYC Zen 5 guest,
 * one thread, warm: 512 fills of 50 KB, a 25.7 MB output that stays in
 * the L3 cache, vector stores 46-48 GB/s, REP STOSD 105-107, memset
 * 105; in L2 and L1, vector stores win, 259-272 GB/s against 150-173,
 * but an output the tool writes is seldom there; each call starts up in
 * some 25 ns, so below 2 KiB it falls to 84 GB/s and less.) */
#define TL_REP_MIN 4096
static inline bool tl_fill_rep(uint8_t *dst, const uint8_t *val, size_t n, unsigned es)
{
#if defined(__x86_64__)
    if (n * es < TL_REP_MIN)
        return false;
    void *d = dst;
    switch (es) {
    case 1:
        __asm__ volatile("rep stosb" : "+D"(d), "+c"(n) : "a"(val[0]) : "memory");
        return true;
    case 2: {
        uint16_t v;
        memcpy(&v, val, 2);
        __asm__ volatile("rep stosw" : "+D"(d), "+c"(n) : "a"(v) : "memory");
        return true;
    }
    case 4: {
        uint32_t v;
        memcpy(&v, val, 4);
        __asm__ volatile("rep stosl" : "+D"(d), "+c"(n) : "a"(v) : "memory");
        return true;
    }
    default: {
        uint64_t v;
        memcpy(&v, val, 8);
        __asm__ volatile("rep stosq" : "+D"(d), "+c"(n) : "a"(v) : "memory");
        return true;
    }
    }
#else
    (void)dst, (void)val, (void)n, (void)es;
    return false;
#endif
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

/* The transpose drivers ask, before each step, for a cache line ahead of
 * the step's n source rows from s on, `ahead` bytes on.  One line ahead
 * (measured on nchw_nhwc_f32_l: 64 bytes 0.84, 128 bytes 0.83, 256 bytes
 * 0.80), except for the converting transposes, which read twice the bytes
 * they write: two lines ahead.  (2-vCPU AMD EPYC Zen 4 guest, medians of
 * three make bench runs, GB/s at 64 and 128 bytes, one thread:
 * nchw_f32_nhwc_f16_m AVX2 27.2 -> 34.6, AVX-512 29.8 -> 39.4,
 * nchw_f32_nhwc_bf16_m 26.2 -> 32.2 and 29.7 -> 34.8; two threads
 * 56 -> 64, 51 -> 54; the kernels alone from memory, 32 x 256 x 56 x 56,
 * the same 23 GB/s.  The plain transposes gained on some cases and lost
 * on others there, 20% on nchw_nhwc_f32_s, so they keep one line.) */
#define TL_PF_AHEAD 64
#define TL_PF_AHEAD_CVT 128
static inline void tl_prefetch_ahead(const uint8_t *s, size_t ss, size_t n, size_t ahead)
{
    for (size_t j = 0; j < n; j++)
        __builtin_prefetch(s + j * ss + ahead, 0, 2);
}

/* The transpose drivers' tails.  TL_DEFINE_ROWS_LEFT defines `name`(s, ss,
 * d, ds, rows): the transpose of a column line (64/ES columns) whose rows
 * do not fill a step, by whole B-row blocks and then the scalar loop, out
 * of line (see TL_DEFINE_TRANSPOSE_ANY). */
#define TL_DEFINE_ROWS_LEFT(name, ES, B, BLOCK)                                                \
    static __attribute__((noinline)) void name(const uint8_t *s, size_t ss, uint8_t *d,      \
                                               size_t ds, size_t rows)                       \
    {                                                                                        \
        enum { LINE = 64 / (ES) };                                                           \
        size_t r = 0;                                                                        \
        for (; r + (B) <= rows; r += (B)) {                                                  \
            TL_UNROLL                                                                        \
            for (size_t k = 0; k < LINE; k += (B))                                           \
                BLOCK(s + r * ss + k * (ES), ss, d + k * ds + r * (ES), ds);                 \
        }                                                                                    \
        if (r < rows)                                                                        \
            tl_transpose_scalar_es(s + r * ss, ss, d + r * (ES), ds, rows - r, LINE, ES);    \
    }

/* Defines `name`(src, ss, dst, ds, rows, cols, c): a transpose's columns
 * from c on, which do not fill a line, by B columns at a time in B x B
 * blocks BLOCK, and the last columns (fewer than B) by the scalar loop.  A
 * thin transpose is all columns left: OIHW to OHWI weights of 3 x 3 are 9
 * columns, which went element by element (26% of a whole-model
 * conversion's time, AVX2, cols 9: the blocks take 8 of every 9). */
#define TL_DEFINE_COLUMNS_LEFT(name, ES, B, BLOCK)                                              \
    static __attribute__((noinline)) void name(const uint8_t *src, size_t ss, uint8_t *dst, \
                                               size_t ds, size_t rows, size_t cols,          \
                                               size_t c)                                     \
    {                                                                                        \
        for (; c + (B) <= cols; c += (B)) {                                                  \
            size_t r = 0;                                                                    \
            for (; r + (B) <= rows; r += (B))                                                \
                BLOCK(src + r * ss + c * (ES), ss, dst + c * ds + r * (ES), ds);             \
            if (r < rows)                                                                    \
                tl_transpose_scalar_es(src + r * ss + c * (ES), ss, dst + c * ds + r * (ES), \
                                       ds, rows - r, (B), ES);                               \
        }                                                                                    \
        if (c < cols)                                                                        \
            tl_transpose_scalar_es(src + c * (ES), ss, dst + c * ds, ds, rows, cols - c, ES); \
    }

/* Defines `name`, a transpose kernel (copy.h's contract) with streaming
 * stores, over the register blocks BLOCK(src, ss, dst, ds) of B x B
 * elements of ES bytes and a streaming step STEP_NT(src, ss, dst, ds).
 *
 * The work goes in square steps of one cache line (64 bytes) by one cache
 * line: 64/ES rows by 64/ES columns.  Every source line of a step is used
 * whole once loaded.  Each destination line must be written whole by
 * consecutive streaming stores: lines left half written while others are
 * started measured 4-10x slower than ordinary stores on some machines (16
 * such lines at once: 0.10 of memcpy, where whole lines give 1.0).  So
 * STEP_NT writes each of its lines at once: a block as large as the step
 * streams its lines out itself (measured 5-30% faster than a buffer), and
 * narrower blocks go through TL_DEFINE_STEP_NT's buffer below.  Steps sweep
 * the rows innermost, so destination rows are written front to back.  When
 * NT_OK(dst, ds) holds, full steps stream and the kernel ends with FENCE;
 * otherwise they are done by BLOCK with ordinary stores.  Rows and columns
 * that do not fill a step fall back to BLOCK and then to the scalar loop.
 * The streaming and the ordinary loops and the leftover rows are functions
 * of their own: with all of them in one, GCC spilled the AVX-512 block's
 * rows to the stack (100 moves; 32 x 50176 elements, kernel against kernel,
 * 0.62 ms against 0.53-0.56 ms once apart). */
#define TL_DEFINE_TRANSPOSE_ANY(name, ES, B, BLOCK, STEP_NT, NT_OK, FENCE)                     \
    TL_DEFINE_ROWS_LEFT(name##_rows_left, ES, B, BLOCK)                                     \
    TL_DEFINE_COLUMNS_LEFT(name##_cols_left, ES, B, BLOCK)                                  \
    TL_BLOCK void name##_step(const uint8_t *s, size_t ss, uint8_t *d, size_t ds)            \
    {                                                                                        \
        for (size_t k = 0; k < 64 / (ES); k += (B))                                          \
            for (size_t j = 0; j < 64 / (ES); j += (B))                                      \
                BLOCK(s + j * ss + k * (ES), ss, d + k * ds + j * (ES), ds);                 \
    }                                                                                        \
    TL_DEFINE_SQUARE_STEPS(name##_plain, ES, name##_step, name##_rows_left, name##_cols_left, \
                           (void)0, 0)                                                      \
    TL_DEFINE_SQUARE_STEPS(name##_stream, ES, STEP_NT, name##_rows_left, name##_cols_left,  \
                           FENCE, 1)                                                        \
    static void name(const uint8_t *src, size_t ss, uint8_t *dst, size_t ds, size_t rows,    \
                     size_t cols)                                                           \
    {                                                                                        \
        (NT_OK(dst, ds) ? name##_stream : name##_plain)(src, ss, dst, ds, rows, cols);       \
    }

/* Defines `name`, TL_DEFINE_TRANSPOSE_ANY's loop over square steps with
 * STEP(src, ss, dst, ds), ROWS_LEFT for the rows of a column line that do
 * not fill a step, COLS_LEFT for the columns that do not fill a line, and
 * END last.  Each loop is a function of its own, so
 * that its step keeps its vectors in registers.
 *
 * The steps go down each column line in turn, with the next line of their
 * rows asked for ahead.  When NARROW and the source rows are two to four
 * lines long (an NHWC source of 32-64 FLOAT32 channels), they go across
 * each band of rows instead, so that the source is read front to back as
 * one run, and the streamed destination lines, written whole, go out in
 * any order.  (Measured on an AMD EPYC Zen 5 guest, 2 vCPUs: make bench's
 * nhwc_nchw_f32_c64 on one thread went from 0.81-0.83 of memcpy to
 * 0.93-1.10, and the order alone, on its 784-row slices, gave 1.05-1.13x
 * the GB/s in 7 of 7 A/B runs; two threads 0.98-1.08x.  One column line
 * (16 channels) lost 10-15% in this order, and rows of 128 channels or
 * more showed nothing beyond the noise, so both keep the column order.) */
#define TL_DEFINE_SQUARE_STEPS(name, ES, STEP, ROWS_LEFT, COLS_LEFT, END, NARROW)              \
    static __attribute__((noinline)) void name(const uint8_t *src, size_t ss, uint8_t *dst, \
                                               size_t ds, size_t rows, size_t cols)          \
    {                                                                                        \
        enum { LINE = 64 / (ES) };                                                           \
        size_t c = 0, across = cols;   /* the column lines the loop below goes down */     \
        if ((NARROW) && tl_transpose_in_bands(cols * (ES))) {                                \
            size_t cfull = cols / LINE * LINE, r = 0;                                        \
            for (; r + LINE <= rows; r += LINE)                                              \
                for (c = 0; c < cfull; c += LINE)                                            \
                    STEP(src + r * ss + c * (ES), ss, dst + c * ds + r * (ES), ds);          \
            for (c = 0; r < rows && c < cfull; c += LINE)                                    \
                ROWS_LEFT(src + r * ss + c * (ES), ss, dst + c * ds + r * (ES), ds, rows - r); \
            c = cfull;                                                                       \
            across = 0;                                                                      \
        }                                                                                    \
        for (; c + LINE <= across; c += LINE) {                                              \
            const uint8_t *s = src + c * (ES);                                               \
            uint8_t *d = dst + c * ds;                                                       \
            size_t r = 0;                                                                    \
            for (; r + LINE <= rows; r += LINE) {                                            \
                if (c + 2 * LINE <= cols)                                                    \
                    tl_prefetch_ahead(s + r * ss, ss, LINE, TL_PF_AHEAD);                    \
                STEP(s + r * ss, ss, d + r * (ES), ds);                                      \
            }                                                                                \
            if (r < rows)                                                                    \
                ROWS_LEFT(s + r * ss, ss, d + r * (ES), ds, rows - r);                       \
        }                                                                                    \
        COLS_LEFT(src, ss, dst, ds, rows, cols, c);                                          \
        END;                                                                                 \
    }

/* Defines `name`(src, ss, dst, ds), a streaming step for TL_DEFINE_TRANSPOSE_ANY
 * over B x B blocks BLOCK narrower than a line: the blocks are transposed
 * into a one-step buffer in the L1 cache, whose 64/ES lines LINE_NT(d, s)
 * then streams out one by one. */
#define TL_DEFINE_STEP_NT(name, ES, B, BLOCK, LINE_NT)                                          \
    TL_BLOCK void name(const uint8_t *src, size_t ss, uint8_t *dst, size_t ds)               \
    {                                                                                        \
        enum { LINE = 64 / (ES) };                                                           \
        _Alignas(64) uint8_t step[LINE * 64];                                                \
        for (size_t k = 0; k < LINE; k += (B))                                               \
            for (size_t j = 0; j < LINE; j += (B))                                           \
                BLOCK(src + j * ss + k * (ES), ss, step + k * 64 + j * (ES), 64);            \
        for (size_t k = 0; k < LINE; k++)                                                    \
            LINE_NT(dst + k * ds, step + k * 64);                                            \
    }

/* Defines `name`, a transpose kernel with ordinary stores.  Its steps are one
 * source cache line wide (64/ES columns) and B rows tall, as 64/(B*ES)
 * blocks side by side, so every source line is used whole once loaded; rows
 * are swept innermost, so each destination row of a step is written front
 * to back.  (Measured: for cached outputs this beats the square steps above,
 * by 2x for 16-bit elements.)  Source rows of two to four lines go across
 * each band of one line of rows instead, as the streaming kernels' do, so
 * that the source is read front to back once and no pass comes back for
 * the rest of each row: NHWC of 64 FLOAT32 channels into NCHW, 32 images
 * of 56 x 56, one thread, ordinary stores, went from 0.73-0.76 of memcpy to
 * 0.77-0.92 (medians of 48 alternating runs, three A/B pairs; make bench's
 * nhwc_nchw_f32_c64 0.70-0.76 -> 0.82-0.85), on a 2-vCPU Intel Xeon guest
 * (family 6 model 207); with 4 KiB pages, 0.72-0.76 -> 0.85-0.90.  Blocks
 * that write under half a line a row (SSE2's and NEON's 4 x 4) keep the
 * column order: SSE2's lost there, 0.65-0.81 -> 0.60-0.63.  Its store kind
 * is calibrated apart (TL_CAL_BANDS). */
#define TL_DEFINE_TRANSPOSE(name, ES, B, BLOCK)                                                \
    TL_DEFINE_COLUMNS_LEFT(name##_cols_left, ES, B, BLOCK)                                  \
    static void name##_down(const uint8_t *src, size_t ss, uint8_t *dst, size_t ds,         \
                            size_t rows, size_t cols)                                       \
    {                                                                                        \
        const size_t line = 64 / (ES), rfull = rows / (B) * (B);                             \
        size_t c = 0;                                                                        \
        for (; c + line <= cols; c += line) {                                                \
            const uint8_t *s = src + c * (ES);                                               \
            uint8_t *d = dst + c * ds;                                                       \
            size_t r = 0;                                                                    \
            for (; r < rfull; r += (B)) {                                                    \
                if (c + 2 * line <= cols)                                                    \
                    tl_prefetch_ahead(s + r * ss, ss, (B), TL_PF_AHEAD);                     \
                TL_UNROLL                                                                    \
                for (size_t k = 0; k < line; k += (B))                                       \
                    BLOCK(s + r * ss + k * (ES), ss, d + k * ds + r * (ES), ds);             \
            }                                                                                \
            if (r < rows)                                                                    \
                tl_transpose_scalar_es(s + r * ss, ss, d + r * (ES), ds, rows - r, line, ES); \
        }                                                                                    \
        name##_cols_left(src, ss, dst, ds, rows, cols, c);                                   \
    }                                                                                        \
    static void name(const uint8_t *src, size_t ss, uint8_t *dst, size_t ds, size_t rows,    \
                     size_t cols)                                                           \
    {                                                                                        \
        const size_t line = 64 / (ES);                                                       \
        size_t r = 0;                                                                        \
        if ((B) * (ES) >= 32 && tl_transpose_in_bands(cols * (ES))) {                        \
            size_t cfull = cols / line * line;                                               \
            for (; r + line <= rows; r += line)                                              \
                for (size_t c = 0; c < cfull; c += line)                                     \
                    TL_UNROLL                                                                \
                    for (size_t k = 0; k < line; k += (B))                                   \
                        TL_UNROLL                                                            \
                        for (size_t j = 0; j < line; j += (B))                               \
                            BLOCK(src + (r + j) * ss + (c + k) * (ES), ss,                   \
                                  dst + (c + k) * ds + (r + j) * (ES), ds);                  \
            name##_cols_left(src, ss, dst, ds, r, cols, cfull);                              \
        }                                                                                    \
        name##_down(src + r * ss, ss, dst + r * (ES), ds, rows - r, cols);                   \
    }

/* Defines `name`, the loop of a converting transpose (copy.h's tcvt
 * contract) from type SDT of ES bytes to DDT of DES bytes, over steps
 * STEP(src, ss, dst, ds) of TALL rows by one source line (64/ES columns),
 * so every source line is used whole once loaded; rows are swept
 * innermost.  The rows of a column line that do not fill a step go by
 * B x B blocks BLOCK(src, ss, dst, ds), then by the scalar twin, and so do
 * the columns that do not fill a line.  END comes last.  A function of its
 * own, so that its step keeps its vectors in registers.  STEP and BLOCK
 * return whether a value overflowed (copy.h). */
#define TL_DEFINE_CVT_STEPS(name, SDT, ES, DDT, DES, B, BLOCK, TALL, STEP, END)                 \
    static __attribute__((noinline)) bool name(const uint8_t *src, size_t ss, uint8_t *dst, \
                                               size_t ds, size_t rows, size_t cols)          \
    {                                                                                        \
        enum { SL = 64 / (ES) };                                                             \
        bool bad = false;                                                                    \
        size_t c = 0;                                                                        \
        for (; c + SL <= cols; c += SL) {                                                    \
            const uint8_t *s = src + c * (ES);                                               \
            uint8_t *d = dst + c * ds;                                                       \
            size_t r = 0;                                                                    \
            for (; r + (TALL) <= rows; r += (TALL)) {                                        \
                if (c + SL + TL_PF_AHEAD_CVT / (ES) <= cols)                                 \
                    tl_prefetch_ahead(s + r * ss, ss, (TALL), TL_PF_AHEAD_CVT);              \
                bad |= STEP(s + r * ss, ss, d + r * (DES), ds);                              \
            }                                                                                \
            for (; r + (B) <= rows; r += (B)) {                                              \
                TL_UNROLL                                                                    \
                for (size_t k = 0; k < SL; k += (B))                                         \
                    bad |= BLOCK(s + r * ss + k * (ES), ss, d + k * ds + r * (DES), ds);     \
            }                                                                                \
            if (r < rows)                                                                    \
                bad |= tl_tcvt_scalar(SDT, DDT, s + r * ss, ss, d + r * (DES), ds, rows - r, \
                                      SL);                                                   \
        }                                                                                    \
        if (c < cols)                                                                        \
            bad |= tl_tcvt_scalar(SDT, DDT, src + c * (ES), ss, dst + c * ds, ds, rows,      \
                                  cols - c);                                                 \
        END;                                                                                 \
        return bad;                                                                          \
    }

/* Defines `name`, a converting transpose with ordinary stores, and
 * `name`_nt, its streaming twin, from type SDT of ES bytes to DDT of DES
 * bytes.  `name` goes in steps STEP(src, ss, dst, ds) of TALL rows by one
 * source line's columns (64/ES).  The twin goes in steps STEP_NT of one
 * destination line's rows (64/DES), which write each of their 64/ES
 * destination lines whole with streaming stores (see
 * TL_DEFINE_TRANSPOSE_ANY on lines left half written), when
 * TL_LINE_ALIGNED(dst, ds) holds, and ends with FENCE; otherwise it is
 * `name`.  Rows that do not fill a step go by B x B blocks BLOCK that
 * convert as they store. */
#define TL_DEFINE_TRANSPOSE_CVT(name, SDT, ES, DDT, DES, B, BLOCK, TALL, STEP, STEP_NT, FENCE)  \
    TL_DEFINE_CVT_STEPS(name, SDT, ES, DDT, DES, B, BLOCK, TALL, STEP, (void)0)             \
    TL_DEFINE_CVT_STEPS(name##_stream, SDT, ES, DDT, DES, B, BLOCK, 64 / (DES), STEP_NT,    \
                        FENCE)                                                              \
    static bool name##_nt(const uint8_t *src, size_t ss, uint8_t *dst, size_t ds,           \
                          size_t rows, size_t cols)                                          \
    {                                                                                        \
        if (TL_LINE_ALIGNED(dst, ds))                                                        \
            return name##_stream(src, ss, dst, ds, rows, cols);                              \
        return name(src, ss, dst, ds, rows, cols);                                           \
    }

/* TL_DEFINE_FILLS(P, ...) defines, for one vector type, the fills of every
 * element width, P_fill_w1 .. P_fill_w8 (copy.h's fill slots), over
 * P_fill_vec.  TL_DEFINE_STREAMING(P, ...), after it, defines their
 * streaming twins P_fill_nt_w1 .. P_fill_nt_w8, the streaming copy
 * P_copy_stream and P_store_fence (copy.h's fill_nt, copy_stream and fence
 * slots).  VEC is the vector type and VB its size in bytes; STOREU(p, v) and
 * STREAM(p, v) store it, LOADU(p) loads it, SET1_8 .. SET1_64 broadcast a
 * value, FENCE orders streaming stores.  An ordinary fill of TL_REP_MIN
 * bytes or more is one string store (tl_fill_rep) where the machine has
 * it; otherwise, and streaming, each kernel stores whole vectors four at a
 * time, then one at a time, then finishes with the scalar loop. */
#define TL_DEFINE_FILLS(P, VEC, VB, STOREU, SET1_8, SET1_16, SET1_32, SET1_64)                \
    static void P##_fill_vec(uint8_t *dst, VEC v, size_t bytes, const uint8_t *val,         \
                             unsigned es)                                                    \
    {                                                                                        \
        if (tl_fill_rep(dst, val, bytes / es, es))                                           \
            return;                                                                          \
        size_t i = 0;                                                                        \
        for (; i + 4 * (VB) <= bytes; i += 4 * (VB)) {                                       \
            STOREU(dst + i, v);                                                              \
            STOREU(dst + i + (VB), v);                                                       \
            STOREU(dst + i + 2 * (VB), v);                                                   \
            STOREU(dst + i + 3 * (VB), v);                                                   \
        }                                                                                    \
        for (; i + (VB) <= bytes; i += (VB))                                                 \
            STOREU(dst + i, v);                                                              \
        tl_fill_scalar_es(dst + i, val, (bytes - i) / es, es);                               \
    }                                                                                        \
    static void P##_fill_w1(uint8_t *d, const uint8_t *v, size_t n)                              \
    { P##_fill_vec(d, SET1_8(v[0]), n, v, 1); }                                                  \
    static void P##_fill_w2(uint8_t *d, const uint8_t *v, size_t n)                              \
    { uint16_t x; memcpy(&x, v, 2); P##_fill_vec(d, SET1_16(x), n * 2, v, 2); }                  \
    static void P##_fill_w4(uint8_t *d, const uint8_t *v, size_t n)                              \
    { uint32_t x; memcpy(&x, v, 4); P##_fill_vec(d, SET1_32(x), n * 4, v, 4); }                  \
    static void P##_fill_w8(uint8_t *d, const uint8_t *v, size_t n)                              \
    { uint64_t x; memcpy(&x, v, 8); P##_fill_vec(d, SET1_64(x), n * 8, v, 8); }

#define TL_DEFINE_STREAMING(P, VEC, VB, STREAM, LOADU, SET1_8, SET1_16, SET1_32, SET1_64, FENCE) \
    static void P##_fill_nt_vec(uint8_t *dst, VEC v, size_t bytes, const uint8_t *val,      \
                                unsigned es)                                                 \
    {                                                                                        \
        if ((uintptr_t)dst % es) {          /* the pattern would not line up */              \
            P##_fill_vec(dst, v, bytes, val, es);                                                \
            return;                                                                          \
        }                                                                                    \
        size_t head = (size_t)(-(uintptr_t)dst) & ((VB) - 1), i;                             \
        if (head > bytes)                                                                    \
            head = bytes / es * es;                                                          \
        tl_fill_scalar_es(dst, val, head / es, es);                                          \
        for (i = head; i + 4 * (VB) <= bytes; i += 4 * (VB)) {                               \
            STREAM(dst + i, v);                                                              \
            STREAM(dst + i + (VB), v);                                                       \
            STREAM(dst + i + 2 * (VB), v);                                                   \
            STREAM(dst + i + 3 * (VB), v);                                                   \
        }                                                                                    \
        for (; i + (VB) <= bytes; i += (VB))                                                 \
            STREAM(dst + i, v);                                                              \
        tl_fill_scalar_es(dst + i, val, (bytes - i) / es, es);                               \
        FENCE;                                                                               \
    }                                                                                        \
    static void P##_fill_nt_w1(uint8_t *d, const uint8_t *v, size_t n)                           \
    { P##_fill_nt_vec(d, SET1_8(v[0]), n, v, 1); }                                               \
    static void P##_fill_nt_w2(uint8_t *d, const uint8_t *v, size_t n)                           \
    { uint16_t x; memcpy(&x, v, 2); P##_fill_nt_vec(d, SET1_16(x), n * 2, v, 2); }               \
    static void P##_fill_nt_w4(uint8_t *d, const uint8_t *v, size_t n)                           \
    { uint32_t x; memcpy(&x, v, 4); P##_fill_nt_vec(d, SET1_32(x), n * 4, v, 4); }               \
    static void P##_fill_nt_w8(uint8_t *d, const uint8_t *v, size_t n)                           \
    { uint64_t x; memcpy(&x, v, 8); P##_fill_nt_vec(d, SET1_64(x), n * 8, v, 8); }               \
    static void P##_copy_stream(const uint8_t *src, uint8_t *dst, size_t bytes)                  \
    {                                                                                        \
        size_t head = (size_t)(-(uintptr_t)dst) & ((VB) - 1), i;                             \
        if (head > bytes)                                                                    \
            head = bytes;                                                                    \
        memcpy(dst, src, head);                                                              \
        for (i = head; i + 4 * (VB) <= bytes; i += 4 * (VB)) {                               \
            VEC a = LOADU(src + i), b = LOADU(src + i + (VB));                               \
            VEC c = LOADU(src + i + 2 * (VB)), e = LOADU(src + i + 3 * (VB));                \
            STREAM(dst + i, a);                                                              \
            STREAM(dst + i + (VB), b);                                                       \
            STREAM(dst + i + 2 * (VB), c);                                                   \
            STREAM(dst + i + 3 * (VB), e);                                                   \
        }                                                                                    \
        for (; i + (VB) <= bytes; i += (VB))                                                 \
            STREAM(dst + i, LOADU(src + i));                                                 \
        memcpy(dst + i, src + i, bytes - i);                                                 \
    }                                                                                        \
    static void P##_store_fence(void)                                                            \
    {                                                                                        \
        FENCE;                                                                               \
    }

/* Streaming stores need the destination and its row stride aligned to lines. */
#define TL_LINE_ALIGNED(dst, ds) ((((uintptr_t)(dst) | (uintptr_t)(ds)) & 63) == 0)

/* The comparison scans' scalar part: from element i on, the first element
 * that is not == (as floats), or n.  The SIMD scans finish with it. */
static inline size_t tl_first_ne_f32(const uint8_t *a, const uint8_t *b, size_t i, size_t n)
{
    for (; i < n; i++) {
        float x, y;
        memcpy(&x, a + 4 * i, 4);
        memcpy(&y, b + 4 * i, 4);
        if (!(x == y))
            return i;
    }
    return n;
}

static inline size_t tl_first_ne_f64(const uint8_t *a, const uint8_t *b, size_t i, size_t n)
{
    for (; i < n; i++) {
        double x, y;
        memcpy(&x, a + 8 * i, 8);
        memcpy(&y, b + 8 * i, 8);
        if (!(x == y))
            return i;
    }
    return n;
}

#endif
