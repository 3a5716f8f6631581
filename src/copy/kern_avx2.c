/*
 * kern_avx2.c - AVX2 kernels: 16x16 16-bit, 8x8 32-bit and 4x4 64-bit
 * transposes, fills, and 3-channel byte (de)interleaves with byte shuffles.
 * Slots left NULL (byte transposes, 2- and 4-channel) keep the SSE2 kernels.
 * Conversions between FLOAT32 and FLOAT16 (F16C), BFLOAT16 (integer
 * rounding), and the byte types.  Compiled with -mavx2 -mf16c only.
 */
#include <immintrin.h>
#include <string.h>

#include "dequant.h"
#include "kern_drivers.h"

#define FROUND (_MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC)

/* FLOAT32 bits to BFLOAT16 in the high half of each lane (bf16_round: in
 * the low half): to nearest, ties to even; a NaN is quieted and keeps the
 * top of its payload. */
static inline __m256i bf16_round_high(__m256i x)
{
    __m256i nan = _mm256_castps_si256(_mm256_cmp_ps(_mm256_castsi256_ps(x), _mm256_castsi256_ps(x),
                                                    _CMP_UNORD_Q));
    __m256i odd = _mm256_and_si256(_mm256_srli_epi32(x, 16), _mm256_set1_epi32(1));
    __m256i r = _mm256_add_epi32(x, _mm256_add_epi32(odd, _mm256_set1_epi32(0x7fff)));
    __m256i q = _mm256_or_si256(x, _mm256_set1_epi32(0x400000));
    return _mm256_blendv_epi8(r, q, nan);
}

static inline __m256i bf16_round(__m256i x)
{
    return _mm256_srli_epi32(bf16_round_high(x), 16);
}

/* Overflow (copy.h) in three operations a vector: with y = x << 1 (the
 * sign shifted out, y = 2 |x|'s bits) and z = y - 2 at (wrapping), a lane
 * overflows iff z < 0xff000000 - 2 at, unsigned: a magnitude below at
 * wraps above that bound, and one from an infinity's up lies past it.  low
 * keeps the least z (start: ~0), and reached() says whether one is below
 * the bound: one operation fewer than a mask of the finite lanes and a
 * max. */
#define LOW_START _mm256_set1_epi32(-1)
static inline __m256i keep_low(__m256i low, __m256i x, uint32_t at)
{
    return _mm256_min_epu32(low, _mm256_sub_epi32(_mm256_slli_epi32(x, 1),
                                                  _mm256_set1_epi32((int)(2 * at))));
}

static inline bool reached(__m256i low, uint32_t at)
{
    __m256i bound = _mm256_set1_epi32((int)(0xff000000u - 2 * at - 1));
    return _mm256_movemask_epi8(_mm256_cmpeq_epi32(_mm256_min_epu32(low, bound), low)) != 0;
}

/* 8 FLOAT32 lanes stored as they are, or as 16 bytes of FLOAT16 or BFLOAT16. */
#define ST_PS(p, v) _mm256_storeu_ps((float *)(void *)(p), (v))
#define ST_F16(p, v) _mm_storeu_si128((__m128i *)(void *)(p), _mm256_cvtps_ph((v), FROUND))
static inline void st_bf16(uint8_t *p, __m256 v)
{
    __m256i r = bf16_round(_mm256_castps_si256(v));
    _mm_storeu_si128((__m128i *)(void *)p,
                     _mm_packus_epi32(_mm256_castsi256_si128(r), _mm256_extracti128_si256(r, 1)));
}

/* The 8 x 8 transpose of the 32-bit lanes of r: o[k] receives column k. */
TL_BLOCK void t8x8_w4(const __m256 r[8], __m256 o[8])
{
    __m256 t[8], s[8];
    TL_UNROLL
    for (int p = 0; p < 4; p++) {
        t[2 * p] = _mm256_unpacklo_ps(r[2 * p], r[2 * p + 1]);
        t[2 * p + 1] = _mm256_unpackhi_ps(r[2 * p], r[2 * p + 1]);
    }
    TL_UNROLL
    for (int h = 0; h < 2; h++) {      /* rows 4h..4h+3: columns k and k+4 per register */
        s[4 * h + 0] = _mm256_shuffle_ps(t[4 * h], t[4 * h + 2], 0x44);
        s[4 * h + 1] = _mm256_shuffle_ps(t[4 * h], t[4 * h + 2], 0xee);
        s[4 * h + 2] = _mm256_shuffle_ps(t[4 * h + 1], t[4 * h + 3], 0x44);
        s[4 * h + 3] = _mm256_shuffle_ps(t[4 * h + 1], t[4 * h + 3], 0xee);
    }
    TL_UNROLL
    for (int k = 0; k < 4; k++) {
        o[k] = _mm256_permute2f128_ps(s[k], s[4 + k], 0x20);
        o[k + 4] = _mm256_permute2f128_ps(s[k], s[4 + k], 0x31);
    }
}

/* An 8 x 8 block of 32-bit elements, stored row by row with STORE. */
#define DEFINE_block_w4(NAME, STORE)                                                        \
TL_BLOCK void NAME(const uint8_t *src, size_t ss, uint8_t *dst, size_t ds)                  \
{                                                                                           \
    __m256 r[8], o[8];                                                                      \
    TL_UNROLL                                                                               \
    for (int i = 0; i < 8; i++)                                                             \
        r[i] = _mm256_loadu_ps((const float *)(const void *)(src + i * ss));                \
    t8x8_w4(r, o);                                                                          \
    TL_UNROLL                                                                               \
    for (int k = 0; k < 8; k++)                                                             \
        STORE(dst + k * ds, o[k]);                                                          \
}
DEFINE_block_w4(block_w4, ST_PS)

/* The same block converted by STORE: @return whether a magnitude reached
 * the overflow threshold AT: whether a value overflowed. */
#define DEFINE_block_w4_cvt(NAME, STORE, AT)                                                \
TL_BLOCK bool NAME(const uint8_t *src, size_t ss, uint8_t *dst, size_t ds)                  \
{                                                                                           \
    __m256 r[8], o[8];                                                                      \
    __m256i big = LOW_START;                                                                \
    TL_UNROLL                                                                               \
    for (int i = 0; i < 8; i++) {                                                           \
        r[i] = _mm256_loadu_ps((const float *)(const void *)(src + i * ss));                \
        big = keep_low(big, _mm256_castps_si256(r[i]), AT);                                 \
    }                                                                                       \
    t8x8_w4(r, o);                                                                          \
    TL_UNROLL                                                                               \
    for (int k = 0; k < 8; k++)                                                             \
        STORE(dst + k * ds, o[k]);                                                          \
    return reached(big, AT);                                                                \
}
DEFINE_block_w4_cvt(block_w4_f16, ST_F16, TL_OVF_F16)
DEFINE_block_w4_cvt(block_w4_bf16, st_bf16, TL_OVF_BF16)

TL_BLOCK void block_w8(const uint8_t *src, size_t ss, uint8_t *dst, size_t ds)
{
    __m256d r0 = _mm256_loadu_pd((const double *)(const void *)src);
    __m256d r1 = _mm256_loadu_pd((const double *)(const void *)(src + ss));
    __m256d r2 = _mm256_loadu_pd((const double *)(const void *)(src + 2 * ss));
    __m256d r3 = _mm256_loadu_pd((const double *)(const void *)(src + 3 * ss));
    __m256d t0 = _mm256_unpacklo_pd(r0, r1), t1 = _mm256_unpackhi_pd(r0, r1);
    __m256d t2 = _mm256_unpacklo_pd(r2, r3), t3 = _mm256_unpackhi_pd(r2, r3);
    _mm256_storeu_pd((double *)(void *)dst, _mm256_permute2f128_pd(t0, t2, 0x20));
    _mm256_storeu_pd((double *)(void *)(dst + ds), _mm256_permute2f128_pd(t1, t3, 0x20));
    _mm256_storeu_pd((double *)(void *)(dst + 2 * ds), _mm256_permute2f128_pd(t0, t2, 0x31));
    _mm256_storeu_pd((double *)(void *)(dst + 3 * ds), _mm256_permute2f128_pd(t1, t3, 0x31));
}

/* 16-bit elements, eight columns of 16 rows at src: o[m] receives column m,
 * rows 0-15.  Each register is loaded as row i in lane 0 and row i+8 in
 * lane 1, so three stages of in-lane unpacks (16-, 32-, 64-bit units)
 * finish the transpose and no lane crossing is left: 24 unpacks and 8
 * lane inserts for 256 bytes, where unpacking whole rows and swapping lanes
 * at the end took 32 operations (make bench nchw_nhwc_f16_*, kernel
 * against kernel: 10-20% faster with ordinary stores). */
TL_BLOCK void cols8_w2(const uint8_t *src, size_t ss, __m256i o[8])
{
    __m256i a[8], t[8], u[8];
    TL_UNROLL
    for (int i = 0; i < 8; i++) {
        __m128i lo = _mm_loadu_si128((const __m128i *)(const void *)(src + i * ss));
        __m128i hi = _mm_loadu_si128((const __m128i *)(const void *)(src + (i + 8) * ss));
        a[i] = _mm256_inserti128_si256(_mm256_castsi128_si256(lo), hi, 1);
    }
    TL_UNROLL
    for (int p = 0; p < 4; p++) {
        t[2 * p] = _mm256_unpacklo_epi16(a[2 * p], a[2 * p + 1]);
        t[2 * p + 1] = _mm256_unpackhi_epi16(a[2 * p], a[2 * p + 1]);
    }
    TL_UNROLL
    for (int h = 0; h < 2; h++) {      /* rows 4h..4h+3 of each lane's eight */
        u[4 * h] = _mm256_unpacklo_epi32(t[4 * h], t[4 * h + 2]);
        u[4 * h + 1] = _mm256_unpackhi_epi32(t[4 * h], t[4 * h + 2]);
        u[4 * h + 2] = _mm256_unpacklo_epi32(t[4 * h + 1], t[4 * h + 3]);
        u[4 * h + 3] = _mm256_unpackhi_epi32(t[4 * h + 1], t[4 * h + 3]);
    }
    TL_UNROLL
    for (int q = 0; q < 4; q++) {
        o[2 * q] = _mm256_unpacklo_epi64(u[q], u[4 + q]);
        o[2 * q + 1] = _mm256_unpackhi_epi64(u[q], u[4 + q]);
    }
}

/* 16 x 16 16-bit elements. */
TL_BLOCK void block_w2(const uint8_t *src, size_t ss, uint8_t *dst, size_t ds)
{
    TL_UNROLL
    for (int k = 0; k < 16; k += 8) {
        __m256i o[8];
        cols8_w2(src + 2 * k, ss, o);
        TL_UNROLL
        for (int m = 0; m < 8; m++)
            _mm256_storeu_si256((__m256i *)(void *)(dst + (k + m) * ds), o[m]);
    }
}

/* 32 x 32 16-bit elements, one cache line by one: each destination line (32
 * rows of one column) is streamed out whole by two consecutive stores, with
 * no step buffer (kernel against kernel, 8 x 64 x 12544: 12-15% faster
 * than the buffer). */
TL_BLOCK void line_w2_nt(const uint8_t *src, size_t ss, uint8_t *dst, size_t ds)
{
    TL_UNROLL
    for (int k = 0; k < 32; k += 8) {
        __m256i x[8], y[8];
        cols8_w2(src + 2 * k, ss, x);
        cols8_w2(src + 16 * ss + 2 * k, ss, y);
        TL_UNROLL
        for (int m = 0; m < 8; m++) {
            _mm256_stream_si256((__m256i *)(void *)(dst + (k + m) * ds), x[m]);
            _mm256_stream_si256((__m256i *)(void *)(dst + (k + m) * ds + 32), y[m]);
        }
    }
}

/* 64 bytes of the L1 step buffer streamed out as one line */
#define LINE_NT_AVX2(d, s)                                                                  \
    do {                                                                                    \
        _mm256_stream_si256((__m256i *)(void *)(d),                                         \
                            _mm256_load_si256((const __m256i *)(const void *)(s)));         \
        _mm256_stream_si256((__m256i *)(void *)((d) + 32),                                  \
                            _mm256_load_si256((const __m256i *)(const void *)((s) + 32)));  \
    } while (0)

TL_DEFINE_TRANSPOSE(transpose_w2, 2, 16, block_w2)
TL_DEFINE_TRANSPOSE_ANY(transpose_w2_nt, 2, 16, block_w2, line_w2_nt, TL_LINE_ALIGNED, _mm_sfence())
TL_DEFINE_TRANSPOSE(transpose_w4, 4, 8, block_w4)
TL_DEFINE_STEP_NT(step_w4_nt, 4, 8, block_w4, LINE_NT_AVX2)
TL_DEFINE_TRANSPOSE_ANY(transpose_w4_nt, 4, 8, block_w4, step_w4_nt, TL_LINE_ALIGNED, _mm_sfence())
TL_DEFINE_TRANSPOSE(transpose_w8, 8, 4, block_w8)
TL_DEFINE_STEP_NT(step_w8_nt, 8, 4, block_w8, LINE_NT_AVX2)
TL_DEFINE_TRANSPOSE_ANY(transpose_w8_nt, 8, 4, block_w8, step_w8_nt, TL_LINE_ALIGNED, _mm_sfence())

/* A step of the converting transposes: 32 rows by 16 FLOAT32 columns.  The
 * rows are converted first and paired (PAIR), so that 8 x 8 32-bit
 * transposes finish the work: per eight columns, one for rows 0-15 and one
 * for rows 16-31, whose rows k are the two halves of column k's
 * destination line, stored one after the other with STORE.  (PAIR
 * converts two FLOAT32 rows a and b, 8 columns each, into one vector whose
 * 32-bit lanes hold a column's value from a in the low half and from b in
 * the high half.)  Measured
 * against the 8 x 8 blocks converting into an L1 step buffer that it
 * replaced, kernel against kernel over 8 x 64 x 12544 FLOAT32 values:
 * with the source in L2 (a 64 x 256 slice again and again, the work
 * alone), streamed FLOAT16 0.73 against 0.87-0.91 ms, BFLOAT16 0.93-0.96
 * against 1.31-1.35 ms, BFLOAT16 with ordinary stores 0.89-0.92 against
 * 1.12-1.14 ms; from memory, streamed, FLOAT16 1.06-1.31 against
 * 1.21-1.57 ms, BFLOAT16 1.26-1.44 against 1.55-1.98 ms.
 *
 * The step the drivers call is quick: its flag only says that some value
 * is non-finite or overflows (CHECK), for two operations a vector, and
 * its BFLOAT16 rounding skips the NaN case (which the flag covers).  Where
 * the flag fires (REDO), BFLOAT16's step is done again by NAME_exact,
 * which keeps the overflow flag exactly (keep_low, three operations a
 * vector) and rounds NaNs as bf16_round does; FLOAT16's results are right
 * already, and flag_f16 works out the exact flag alone.  Such steps are
 * rare in real data (a NaN or an infinity, or a value past the threshold,
 * in 512 values); where they are not, the steps after one that fired go
 * the exact way for a while (step_f16_nt, step_bf16 below). */
#define ST_NT_PS(p, v) _mm256_stream_ps((float *)(void *)(p), (v))
#define DEFINE_cvt_step(NAME, PAIR, STORE, START, CHECK, REDO)                              \
static __attribute__((noinline)) bool NAME(const uint8_t *src, size_t ss, uint8_t *dst,     \
                                            size_t ds)                                      \
{                                                                                           \
    __m256i hi = START, uhi = START;                                                        \
    TL_UNROLL                                                                               \
    for (int h = 0; h < 16; h += 8) {                                                       \
        __m256 r[8], x[8], y[8];                                                            \
        TL_UNROLL                                                                           \
        for (int i = 0; i < 8; i++)                                                         \
            r[i] = PAIR(src + 2 * i * ss + 4 * h, src + (2 * i + 1) * ss + 4 * h, &hi,      \
                        &uhi);                                                              \
        t8x8_w4(r, x);                                                                      \
        TL_UNROLL                                                                           \
        for (int i = 0; i < 8; i++)                                                         \
            r[i] = PAIR(src + (16 + 2 * i) * ss + 4 * h, src + (17 + 2 * i) * ss + 4 * h,   \
                        &hi, &uhi);                                                         \
        t8x8_w4(r, y);                                                                      \
        TL_UNROLL                                                                           \
        for (int k = 0; k < 8; k++) {                                                       \
            STORE(dst + (h + k) * ds, x[k]);                                                \
            STORE(dst + (h + k) * ds + 32, y[k]);                                           \
        }                                                                                   \
    }                                                                                       \
    return CHECK(hi, uhi) && REDO(src, ss, dst, ds);                                        \
}

/* The exact kind: hi keeps the least keep_low value (uhi is unused), and
 * its flag is the answer (nothing to redo). */
#define EXACT_BF16(hi, uhi) ((void)(uhi), reached(hi, TL_OVF_BF16))
#define NO_REDO(s, ss, d, ds) true
TL_BLOCK __m256 pair_bf16_exact(const uint8_t *a, const uint8_t *b, __m256i *big, __m256i *unused)
{
    (void)unused;
    __m256i va = _mm256_loadu_si256((const __m256i *)(const void *)a);
    __m256i vb = _mm256_loadu_si256((const __m256i *)(const void *)b);
    *big = keep_low(keep_low(*big, va, TL_OVF_BF16), vb, TL_OVF_BF16);
    __m256i x = bf16_round(va);
    return _mm256_castsi256_ps(_mm256_blend_epi16(x, bf16_round_high(vb), 0xaa));
}
DEFINE_cvt_step(step_bf16_exact, pair_bf16_exact, ST_PS, LOW_START, EXACT_BF16, NO_REDO)
DEFINE_cvt_step(step_bf16_nt_exact, pair_bf16_exact, ST_NT_PS, LOW_START, EXACT_BF16, NO_REDO)

/* The quick kind.  FLOAT16: the conversion itself is exact, so the flag
 * looks at its 16-bit results, two operations for 16 values: hi keeps the
 * largest signed one (a positive's bits) and uhi the largest unsigned one
 * (a negative's, where there is one); a result is an infinity or a NaN iff
 * positive and at least 0x7c00, or negative and at least 0xfc00.  Only
 * then is the exact flag worked out, by flag_f16 below. */
TL_BLOCK __m256i pair_f16_bits(__m256 a, __m256 b)
{
    __m128i x = _mm256_cvtps_ph(a, FROUND), y = _mm256_cvtps_ph(b, FROUND);
    __m256i lo = _mm256_castsi128_si256(_mm_unpacklo_epi16(x, y));
    return _mm256_inserti128_si256(lo, _mm_unpackhi_epi16(x, y), 1);
}

TL_BLOCK __m256 pair_f16(const uint8_t *a, const uint8_t *b, __m256i *hi, __m256i *uhi)
{
    __m256i v = pair_f16_bits(_mm256_loadu_ps((const float *)(const void *)a),
                              _mm256_loadu_ps((const float *)(const void *)b));
    *hi = _mm256_max_epi16(*hi, v);
    *uhi = _mm256_max_epu16(*uhi, v);
    return _mm256_castsi256_ps(v);
}

/* The exact kind, for the steps after one whose check fired (step_f16_nt):
 * low keeps the least keep_low value of the source, as flag_f16 below. */
#define EXACT_F16(low, unused) ((void)(unused), reached(low, TL_OVF_F16))
TL_BLOCK __m256 pair_f16_exact(const uint8_t *a, const uint8_t *b, __m256i *low, __m256i *unused)
{
    (void)unused;
    __m256i va = _mm256_loadu_si256((const __m256i *)(const void *)a);
    __m256i vb = _mm256_loadu_si256((const __m256i *)(const void *)b);
    *low = keep_low(keep_low(*low, va, TL_OVF_F16), vb, TL_OVF_F16);
    return _mm256_castsi256_ps(pair_f16_bits(_mm256_castsi256_ps(va), _mm256_castsi256_ps(vb)));
}

static inline bool at_least16(__m256i hi, __m256i uhi)
{
    __m256i pos = _mm256_cmpgt_epi16(hi, _mm256_set1_epi16(0x7bff));
    __m256i neg = _mm256_cmpeq_epi16(_mm256_max_epu16(uhi, _mm256_set1_epi16((short)0xfc00)), uhi);
    return _mm256_movemask_epi8(_mm256_or_si256(pos, neg)) != 0;
}

/* BFLOAT16: the flag looks at the FLOAT32 bits in the same way (hi the
 * largest signed, uhi the largest unsigned): a value at or past the
 * threshold, an infinity or a NaN, sets it, and the step is redone, so
 * the rounding here need not care for NaNs (whose payload can carry the
 * sum past the exponent).  The two rounded rows pair with a 16-bit blend;
 * pair_bf16_plain, for steps checked before (step_bf16), keeps no flag. */
TL_BLOCK __m256i round_bf16_quick(__m256i v)
{
    __m256i odd = _mm256_and_si256(_mm256_srli_epi32(v, 16), _mm256_set1_epi32(1));
    return _mm256_add_epi32(v, _mm256_add_epi32(odd, _mm256_set1_epi32(0x7fff)));
}

TL_BLOCK __m256 pair_bf16_plain(const uint8_t *a, const uint8_t *b, __m256i *hi, __m256i *uhi)
{
    (void)hi, (void)uhi;
    __m256i va = _mm256_loadu_si256((const __m256i *)(const void *)a);
    __m256i vb = _mm256_loadu_si256((const __m256i *)(const void *)b);
    __m256i x = _mm256_srli_epi32(round_bf16_quick(va), 16);
    return _mm256_castsi256_ps(_mm256_blend_epi16(x, round_bf16_quick(vb), 0xaa));
}

TL_BLOCK __m256 pair_bf16(const uint8_t *a, const uint8_t *b, __m256i *hi, __m256i *uhi)
{
    __m256i va = _mm256_loadu_si256((const __m256i *)(const void *)a);
    __m256i vb = _mm256_loadu_si256((const __m256i *)(const void *)b);
    *hi = _mm256_max_epi32(_mm256_max_epi32(*hi, va), vb);
    *uhi = _mm256_max_epu32(_mm256_max_epu32(*uhi, va), vb);
    return pair_bf16_plain(a, b, hi, uhi);
}

static inline bool at_least_bf16(__m256i hi, __m256i uhi)
{
    __m256i pos = _mm256_cmpgt_epi32(hi, _mm256_set1_epi32((int)(TL_OVF_BF16 - 1)));
    __m256i neg = _mm256_set1_epi32((int)(0x80000000u | TL_OVF_BF16));
    neg = _mm256_cmpeq_epi32(_mm256_max_epu32(uhi, neg), uhi);
    return _mm256_movemask_epi8(_mm256_or_si256(pos, neg)) != 0;
}

/* FLOAT16's exact flag, where the quick one fired: the step's results
 * are exact already, so only the flag is worked out again, from the
 * step's source (still in L1), and nothing is written twice.  (Redoing the
 * whole step streamed every line of a step with a NaN twice:
 * nchw_f32_nhwc_f16_nan, a NaN in every 97 values, ran at 0.38-0.40 of
 * memcpy against 0.83-0.87 without them; Intel Xeon family 6 model 207
 * guest, one thread.) */
static __attribute__((noinline)) bool flag_f16(const uint8_t *src, size_t ss, uint8_t *dst,
                                               size_t ds)
{
    (void)dst, (void)ds;
    __m256i low = LOW_START;
    for (int i = 0; i < 32; i++) {
        const uint8_t *row = src + i * ss;
        low = keep_low(low, _mm256_loadu_si256((const __m256i *)(const void *)row), TL_OVF_F16);
        low = keep_low(low, _mm256_loadu_si256((const __m256i *)(const void *)(row + 32)),
                       TL_OVF_F16);
    }
    return reached(low, TL_OVF_F16);
}

/* Where the check of a step fires, the thread's next SURE_STEPS steps go
 * the exact way unchecked, where a NaN or an infinity in most steps would
 * have each pay for the check and then the exact flag or step: FLOAT16
 * keeps the exact flag as it converts (nchw_f32_nhwc_f16_nan, a NaN in
 * every 97 values: 0.53-0.64 to 0.72-0.82 of memcpy on one thread,
 * 0.67-0.75 to 0.83-0.93 on two; _m the same), BFLOAT16 (below) goes the
 * exact way. */
enum { SURE_STEPS = 8 };
static _Thread_local unsigned sure;     /* steps left to go the exact way unchecked */

static bool flag_f16_sure(const uint8_t *src, size_t ss, uint8_t *dst, size_t ds)
{
    sure = SURE_STEPS;
    return flag_f16(src, ss, dst, ds);
}

#define QUICK_START _mm256_set1_epi32((int)0x80000000u)     /* below both kinds' bounds */
DEFINE_cvt_step(step_f16_nt_quick, pair_f16, ST_NT_PS, QUICK_START, at_least16, flag_f16_sure)
DEFINE_cvt_step(step_f16_nt_exact, pair_f16_exact, ST_NT_PS, LOW_START, EXACT_F16, NO_REDO)
static bool step_f16_nt(const uint8_t *src, size_t ss, uint8_t *dst, size_t ds)
{
    if (!sure)
        return step_f16_nt_quick(src, ss, dst, ds);
    sure--;
    return step_f16_nt_exact(src, ss, dst, ds);
}
/* BFLOAT16's step, quick or wary.  A quick step whose check fires stores
 * its lines twice (the redo), so a run of such steps, as in data with NaNs
 * here and there, would stream every line twice.  After one fires, the
 * next WARY_STEPS steps of the thread first check their source alone
 * (fires_bf16: 64 loads from lines the step then finds in L1, and the same
 * two operations a vector) and go either the exact way or the plain one,
 * which keeps no flag; each such step that fires starts the count again.
 * The check costs a clean step about a tenth, so the thread goes back to
 * quick steps after WARY_STEPS clean ones.  Where a wary check fires, the
 * next SURE_STEPS steps go the exact way unchecked: where most steps hold
 * a NaN, the check was a tenth more work on each (_nan below, with the
 * exact step pairing its rows by a blend as the plain one does: 0.49-0.52
 * to 0.64-0.65 on one thread, 0.48-0.58 to 0.73-0.77 on two; SURE_STEPS
 * 32 measured the same).  Every way gives the same bytes and flag
 * (copy_diff runs them all, in turn).  nchw_f32_nhwc_bf16_nan,
 * a NaN in every 97 values: 0.33-0.39 of memcpy to 0.49-0.54 on one
 * thread, 0.40-0.45 to 0.54-0.58 on two; nchw_f32_nhwc_bf16_m the same
 * within the noise (0.71-0.87; Intel Xeon family 6 model 207 guest, A/B
 * runs alternating).  Checking every step before storing it instead:
 * _nan the same, _m 0.72 against 0.82-0.86.  Also tried and not kept:
 * checking each half step before its stores with its vectors in registers
 * (spilled twice the vectors; _m 0.59-0.71), and rounding NaNs right in
 * the quick step with only the flag redone (_nan 0.34-0.37, _m
 * 0.54-0.69). */
TL_BLOCK bool fires_bf16(const uint8_t *src, size_t ss)
{
    __m256i hi[2] = { QUICK_START, QUICK_START }, uhi[2] = { QUICK_START, QUICK_START };
    TL_UNROLL
    for (int i = 0; i < 32; i++)
        pair_bf16(src + i * ss, src + i * ss + 32, &hi[i & 1], &uhi[i & 1]);
    return at_least_bf16(_mm256_max_epi32(hi[0], hi[1]), _mm256_max_epu32(uhi[0], uhi[1]));
}

enum { WARY_STEPS = 64 };
static _Thread_local unsigned wary;     /* steps left to check first */

#define NO_FLAG(hi, uhi) ((void)(hi), (void)(uhi), false)
#define DEFINE_bf16_step(NAME, STORE)                                                      \
static bool NAME##_redo(const uint8_t *src, size_t ss, uint8_t *dst, size_t ds)            \
{                                                                                          \
    wary = WARY_STEPS;                                                                     \
    return NAME##_exact(src, ss, dst, ds);                                                 \
}                                                                                          \
DEFINE_cvt_step(NAME##_quick, pair_bf16, STORE, QUICK_START, at_least_bf16, NAME##_redo)   \
DEFINE_cvt_step(NAME##_plain, pair_bf16_plain, STORE, QUICK_START, NO_FLAG, NO_REDO)       \
static bool NAME(const uint8_t *src, size_t ss, uint8_t *dst, size_t ds)                   \
{                                                                                          \
    if (!wary)                                                                             \
        return NAME##_quick(src, ss, dst, ds);                                             \
    if (sure) {                                                                            \
        sure--;                                                                            \
        return NAME##_exact(src, ss, dst, ds);                                             \
    }                                                                                      \
    if (fires_bf16(src, ss)) {                                                             \
        sure = SURE_STEPS;                                                                 \
        return NAME##_redo(src, ss, dst, ds);                                              \
    }                                                                                      \
    wary--;                                                                                \
    return NAME##_plain(src, ss, dst, ds);                                                 \
}
DEFINE_bf16_step(step_bf16, ST_PS)
DEFINE_bf16_step(step_bf16_nt, ST_NT_PS)

/* FLOAT16 with ordinary stores goes in steps of 8 rows, by 8 x 8 blocks
 * that convert the transposed rows as they store them: 0.59-0.61 ms
 * against 0.66-0.94 ms for the paired step (same measure). */
TL_BLOCK bool step_f16(const uint8_t *src, size_t ss, uint8_t *dst, size_t ds)
{
    bool a = block_w4_f16(src, ss, dst, ds);
    return block_w4_f16(src + 32, ss, dst + 8 * ds, ds) | a;
}

/* Transposes that convert FLOAT32 to FLOAT16 or BFLOAT16 in the block:
 * one pass, no staging buffer (plan.c). */
TL_DEFINE_TRANSPOSE_CVT(tcvt_f32_f16, TL_DT_FLOAT32, 4, TL_DT_FLOAT16, 2, 8, block_w4_f16, 8,
                        step_f16, step_f16_nt, _mm_sfence())
TL_DEFINE_TRANSPOSE_CVT(tcvt_f32_bf16, TL_DT_FLOAT32, 4, TL_DT_BFLOAT16, 2, 8, block_w4_bf16, 32,
                        step_bf16, step_bf16_nt, _mm_sfence())

#define LD(p) _mm256_loadu_si256((const __m256i *)(const void *)(p))
#define ST_U(p, v) _mm256_storeu_si256((__m256i *)(void *)(p), (v))
#define ST_NT(p, v) _mm256_stream_si256((__m256i *)(void *)(p), (v))
#define SET1_8(x) _mm256_set1_epi8((char)(x))
#define SET1_16(x) _mm256_set1_epi16((short)(x))
#define SET1_32(x) _mm256_set1_epi32((int)(x))
#define SET1_64(x) _mm256_set1_epi64x((long long)(x))
TL_DEFINE_FILLS(avx2, __m256i, 32, ST_U, SET1_8, SET1_16, SET1_32, SET1_64)
TL_DEFINE_STREAMING(avx2, __m256i, 32, ST_NT, LD, SET1_8, SET1_16, SET1_32, SET1_64, _mm_sfence())

/* memcpy for rows: the first and last 32 bytes unaligned, the rest in
 * stores aligned on the destination, four at a time.  Measured against
 * glibc's memcpy on 1080 rows of 7672 bytes into packed rows (unpad_rows_f32),
 * best of 180, alternating, four runs: 0.197-0.209 ms against 0.208-0.217
 * ms; as one 8.3 MB copy, 0.183-0.190 ms against 0.185-0.203 ms.  (An
 * earlier loop with unaligned stores had lost to glibc: 0.82 vs 0.99.)
 * That was an AMD guest: on an Intel Xeon guest (family 6 model 207)
 * glibc's memcpy copied the same rows at 69-77 GB/s in L2 against this
 * loop's 52-66, so calibration races the two (calib_measure.c). */
static void copy_rows(const uint8_t *src, uint8_t *dst, size_t bytes)
{
    if (bytes < 32) {
        memcpy(dst, src, bytes);
        return;
    }
    __m256i first = LD(src), last = LD(src + bytes - 32);
    size_t i = (size_t)(-(uintptr_t)dst) & 31;
    for (; i + 128 <= bytes; i += 128) {
        __m256i a = LD(src + i), b = LD(src + i + 32), c = LD(src + i + 64), e = LD(src + i + 96);
        _mm256_store_si256((__m256i *)(void *)(dst + i), a);
        _mm256_store_si256((__m256i *)(void *)(dst + i + 32), b);
        _mm256_store_si256((__m256i *)(void *)(dst + i + 64), c);
        _mm256_store_si256((__m256i *)(void *)(dst + i + 96), e);
    }
    for (; i + 32 <= bytes; i += 32)
        _mm256_store_si256((__m256i *)(void *)(dst + i), LD(src + i));
    ST_U(dst, first);
    ST_U(dst + bytes - 32, last);
}

/* Shuffle masks for 16 pixels of 3 bytes in three registers:
 * split[k][r] gathers channel k's bytes out of register r; merge[r][k]
 * places channel k's bytes into output register r.  -1 leaves a zero. */
struct masks3 { __m128i split[3][3], merge[3][3]; };

static void make_masks3(struct masks3 *m)
{
    for (int k = 0; k < 3; k++) {
        TL_UNROLL
        for (int r = 0; r < 3; r++) {
            int8_t sp[16], me[16];
            for (int t = 0; t < 16; t++) {
                int pos = 3 * t + k - 16 * r;           /* pixel t, channel k, in register r */
                sp[t] = (int8_t)(pos >= 0 && pos < 16 ? pos : -1);
                int p = 16 * r + t;                     /* output byte p of register r */
                me[t] = (int8_t)(p % 3 == k ? p / 3 : -1);
            }
            m->split[k][r] = _mm_loadu_si128((const __m128i *)(const void *)sp);
            m->merge[r][k] = _mm_loadu_si128((const __m128i *)(const void *)me);
        }
    }
}

/* The same masks in both 128-bit lanes: vpshufb works lane by lane, so one
 * 256-bit register holds pixels 0-15 in its low lane and 16-31 in its high. */
static inline __m256i both(__m128i m)
{
    return _mm256_broadcastsi128_si256(m);
}

static void interleave_c3_w1(const uint8_t *src, size_t plane, uint8_t *dst, size_t n)
{
    struct masks3 m;
    make_masks3(&m);
    __m256i mg[3][3];
    for (int r = 0; r < 3; r++)
        TL_UNROLL
        for (int k = 0; k < 3; k++)
            mg[r][k] = both(m.merge[r][k]);
    size_t i = 0;
    for (; i + 32 <= n; i += 32) {
        __m256i c[3], o[3];
        TL_UNROLL
        for (int k = 0; k < 3; k++)
            c[k] = _mm256_loadu_si256((const __m256i *)(const void *)(src + k * plane + i));
        TL_UNROLL
        for (int r = 0; r < 3; r++)   /* lane L of o[r]: bytes 16r.. of pixels 16L.. */
            o[r] = _mm256_or_si256(_mm256_or_si256(_mm256_shuffle_epi8(c[0], mg[r][0]),
                                                   _mm256_shuffle_epi8(c[1], mg[r][1])),
                                   _mm256_shuffle_epi8(c[2], mg[r][2]));
        uint8_t *d = dst + 3 * i;
        _mm256_storeu_si256((__m256i *)(void *)d, _mm256_permute2x128_si256(o[0], o[1], 0x20));
        _mm256_storeu_si256((__m256i *)(void *)(d + 32), _mm256_permute2x128_si256(o[2], o[0], 0x30));
        _mm256_storeu_si256((__m256i *)(void *)(d + 64), _mm256_permute2x128_si256(o[1], o[2], 0x31));
    }
    for (; i + 16 <= n; i += 16) {
        __m128i c[3];
        TL_UNROLL
        for (int k = 0; k < 3; k++)
            c[k] = _mm_loadu_si128((const __m128i *)(const void *)(src + k * plane + i));
        TL_UNROLL
        for (int r = 0; r < 3; r++) {
            __m128i v = _mm_or_si128(_mm_or_si128(_mm_shuffle_epi8(c[0], m.merge[r][0]),
                                                  _mm_shuffle_epi8(c[1], m.merge[r][1])),
                                     _mm_shuffle_epi8(c[2], m.merge[r][2]));
            _mm_storeu_si128((__m128i *)(void *)(dst + 3 * i + 16 * r), v);
        }
    }
    tl_interleave_scalar_es(src + i, plane, dst + 3 * i, n - i, 3, 1);
}

static void deinterleave_c3_w1(const uint8_t *src, uint8_t *dst, size_t plane, size_t n)
{
    struct masks3 m;
    make_masks3(&m);
    __m256i sp[3][3];
    for (int k = 0; k < 3; k++)
        TL_UNROLL
        for (int r = 0; r < 3; r++)
            sp[k][r] = both(m.split[k][r]);
    size_t i = 0;
    for (; i + 32 <= n; i += 32) {
        const uint8_t *s = src + 3 * i;
        __m256i v0 = _mm256_loadu_si256((const __m256i *)(const void *)s);
        __m256i v1 = _mm256_loadu_si256((const __m256i *)(const void *)(s + 32));
        __m256i v2 = _mm256_loadu_si256((const __m256i *)(const void *)(s + 64));
        /* a[r] holds chunk r (bytes 16r..) of pixels 0-15 low and 16-31 high */
        __m256i a[3] = { _mm256_permute2x128_si256(v0, v1, 0x30),
                         _mm256_permute2x128_si256(v0, v2, 0x21),
                         _mm256_permute2x128_si256(v1, v2, 0x30) };
        TL_UNROLL
        for (int k = 0; k < 3; k++) {
            __m256i c = _mm256_or_si256(_mm256_or_si256(_mm256_shuffle_epi8(a[0], sp[k][0]),
                                                        _mm256_shuffle_epi8(a[1], sp[k][1])),
                                        _mm256_shuffle_epi8(a[2], sp[k][2]));
            _mm256_storeu_si256((__m256i *)(void *)(dst + k * plane + i), c);
        }
    }
    for (; i + 16 <= n; i += 16) {
        __m128i v[3];
        TL_UNROLL
        for (int r = 0; r < 3; r++)
            v[r] = _mm_loadu_si128((const __m128i *)(const void *)(src + 3 * i + 16 * r));
        TL_UNROLL
        for (int k = 0; k < 3; k++) {
            __m128i c = _mm_or_si128(_mm_or_si128(_mm_shuffle_epi8(v[0], m.split[k][0]),
                                                  _mm_shuffle_epi8(v[1], m.split[k][1])),
                                     _mm_shuffle_epi8(v[2], m.split[k][2]));
            _mm_storeu_si128((__m128i *)(void *)(dst + k * plane + i), c);
        }
    }
    tl_deinterleave_scalar_es(src + 3 * i, dst + i, plane, n - i, 3, 1);
}

/* ---- conversions (F16C for half precision) -------------------------------
 * Each loop takes 8 elements at a time and leaves the tail to the scalar
 * converter, which rounds and reports exactly as these do. */

static bool cvt_f32_f16(const uint8_t *src, uint8_t *dst, size_t n)
{
    size_t i = 0;
    __m256i big = LOW_START;
    for (; i + 8 <= n; i += 8) {
        __m256 v = _mm256_loadu_ps((const float *)(const void *)(src + 4 * i));
        big = keep_low(big, _mm256_castps_si256(v), TL_OVF_F16);
        ST_F16(dst + 2 * i, v);
    }
    bool bad = reached(big, TL_OVF_F16);
    return tl_cvt_scalar(TL_DT_FLOAT32, TL_DT_FLOAT16, src + 4 * i, dst + 2 * i, n - i) || bad;
}

static bool cvt_f16_f32(const uint8_t *src, uint8_t *dst, size_t n)
{
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m128i h = _mm_loadu_si128((const __m128i *)(const void *)(src + 2 * i));
        _mm256_storeu_ps((float *)(void *)(dst + 4 * i), _mm256_cvtph_ps(h));
    }
    return tl_cvt_scalar(TL_DT_FLOAT16, TL_DT_FLOAT32, src + 2 * i, dst + 4 * i, n - i);
}

static bool cvt_f32_bf16(const uint8_t *src, uint8_t *dst, size_t n)
{
    size_t i = 0;
    __m256i big = LOW_START;
    for (; i + 16 <= n; i += 16) {
        __m256i a = _mm256_loadu_si256((const __m256i *)(const void *)(src + 4 * i));
        __m256i b = _mm256_loadu_si256((const __m256i *)(const void *)(src + 4 * i + 32));
        big = keep_low(keep_low(big, a, TL_OVF_BF16), b, TL_OVF_BF16);
        __m256i p = _mm256_permute4x64_epi64(_mm256_packus_epi32(bf16_round(a), bf16_round(b)),
                                             0xd8);
        _mm256_storeu_si256((__m256i *)(void *)(dst + 2 * i), p);
    }
    bool bad = reached(big, TL_OVF_BF16);
    return tl_cvt_scalar(TL_DT_FLOAT32, TL_DT_BFLOAT16, src + 4 * i, dst + 2 * i, n - i) || bad;
}

static bool cvt_bf16_f32(const uint8_t *src, uint8_t *dst, size_t n)
{
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m128i h = _mm_loadu_si128((const __m128i *)(const void *)(src + 2 * i));
        __m256i x = _mm256_slli_epi32(_mm256_cvtepu16_epi32(h), 16);
        __m256i nan = _mm256_cmpgt_epi32(_mm256_and_si256(x, _mm256_set1_epi32(0x7fffffff)),
                                         _mm256_set1_epi32(0x7f800000));
        x = _mm256_or_si256(x, _mm256_and_si256(nan, _mm256_set1_epi32(0x00400000)));  /* quiet */
        _mm256_storeu_si256((__m256i *)(void *)(dst + 4 * i), x);
    }
    return tl_cvt_scalar(TL_DT_BFLOAT16, TL_DT_FLOAT32, src + 2 * i, dst + 4 * i, n - i);
}

/* ---- 8-bit floats (SPEC 18) ----------------------------------------------
 * Built from the code's bits, 16 codes a step, exactly as the scalar
 * converter's tables (fp8_init in kern_scalar.c): E4M3's exponent and
 * mantissa moved to FLOAT32's and rebiased (its subnormals, m x 2^-9, by a
 * multiplication of normal numbers: no denormal operand, which some CPUs
 * take slowly); E5M2 is the top byte of a FLOAT16; E8M0 is FLOAT32's
 * exponent field alone (0 is 2^-127, a FLOAT32 subnormal).  Every NaN
 * comes out as the positive quiet NaN, as the scalar converter's. */

static inline __m256i e4m3_f32(__m128i codes)       /* the low 8 codes */
{
    __m256i b = _mm256_cvtepu8_epi32(codes);
    __m256i mag = _mm256_and_si256(b, _mm256_set1_epi32(0x7f));
    __m256i normal = _mm256_add_epi32(_mm256_slli_epi32(mag, 20), _mm256_set1_epi32(120 << 23));
    __m256i sub = _mm256_castps_si256(_mm256_mul_ps(_mm256_cvtepi32_ps(mag),
                                                    _mm256_set1_ps(0x1p-9f)));
    __m256i x = _mm256_blendv_epi8(normal, sub, _mm256_cmpgt_epi32(_mm256_set1_epi32(8), mag));
    x = _mm256_or_si256(x, _mm256_slli_epi32(_mm256_and_si256(b, _mm256_set1_epi32(0x80)), 24));
    return _mm256_blendv_epi8(x, _mm256_set1_epi32(0x7fc00000),
                              _mm256_cmpeq_epi32(mag, _mm256_set1_epi32(0x7f)));
}

/* The low 8 codes of E5M2 as FLOAT16 bits (a NaN quieted, positive). */
static inline __m128i e5m2_f16(__m128i codes)
{
    __m128i h = _mm_unpacklo_epi8(_mm_setzero_si128(), codes);
    __m128i nan = _mm_cmpgt_epi16(_mm_and_si128(h, _mm_set1_epi16(0x7fff)),
                                  _mm_set1_epi16(0x7c00));
    return _mm_blendv_epi8(h, _mm_set1_epi16(0x7e00), nan);
}

static inline __m256i e8m0_f32(__m128i codes)
{
    __m256i b = _mm256_cvtepu8_epi32(codes);
    __m256i x = _mm256_slli_epi32(b, 23);
    x = _mm256_blendv_epi8(x, _mm256_set1_epi32(0x00400000),
                           _mm256_cmpeq_epi32(b, _mm256_setzero_si256()));
    return _mm256_blendv_epi8(x, _mm256_set1_epi32(0x7fc00000),
                              _mm256_cmpeq_epi32(b, _mm256_set1_epi32(0xff)));
}

static inline __m256i e5m2_f32(__m128i codes)
{
    return _mm256_castps_si256(_mm256_cvtph_ps(e5m2_f16(codes)));
}

#define DEFINE_cvt_fp8_f32(NAME, SDT, WIDE)                                                \
static bool NAME(const uint8_t *src, uint8_t *dst, size_t n)                               \
{                                                                                          \
    size_t i = 0;                                                                          \
    for (; i + 16 <= n; i += 16) {                                                         \
        __m128i c = _mm_loadu_si128((const __m128i *)(const void *)(src + i));             \
        _mm256_storeu_si256((__m256i *)(void *)(dst + 4 * i), WIDE(c));                    \
        _mm256_storeu_si256((__m256i *)(void *)(dst + 4 * i + 32),                         \
                            WIDE(_mm_srli_si128(c, 8)));                                   \
    }                                                                                      \
    return tl_cvt_scalar(SDT, TL_DT_FLOAT32, src + i, dst + 4 * i, n - i);                 \
}
DEFINE_cvt_fp8_f32(cvt_e4m3_f32, TL_DT_FLOAT8E4M3, e4m3_f32)
DEFINE_cvt_fp8_f32(cvt_e5m2_f32, TL_DT_FLOAT8E5M2, e5m2_f32)
DEFINE_cvt_fp8_f32(cvt_e8m0_f32, TL_DT_FLOAT8E8M0, e8m0_f32)

/* Into a 16-bit float (BFLOAT16, FLOAT16), 16 codes a vector, each in a
 * 16-bit lane (w): a normal value's exponent and mantissa shifted into
 * place and rebiased; the few subnormal codes (m < lim) looked up, their
 * 16-bit results' low bytes at sub[m] and high bytes at sub[m + 8]; then
 * the sign, the infinities and the NaNs. */
static inline __m256i fp8_16(__m256i w, int shift, short bias, __m128i sub, short lim)
{
    __m256i mag = _mm256_and_si256(w, _mm256_set1_epi16(0x7f));
    __m256i x = _mm256_add_epi16(_mm256_sll_epi16(mag, _mm_cvtsi32_si128(shift)),
                                 _mm256_set1_epi16(bias));
    __m256i idx = _mm256_add_epi16(_mm256_or_si256(mag, _mm256_slli_epi16(mag, 8)),
                                   _mm256_set1_epi16(0x0800));
    __m256i tiny = _mm256_shuffle_epi8(_mm256_broadcastsi128_si256(sub), idx);
    x = _mm256_blendv_epi8(x, tiny, _mm256_cmpgt_epi16(_mm256_set1_epi16(lim), mag));
    return _mm256_or_si256(x, _mm256_slli_epi16(_mm256_and_si256(w, _mm256_set1_epi16(0x80)), 8));
}

/* E4M3: bias 7, 3 mantissa bits; m x 2^-9 below 8; S.1111.111 its NaN. */
static inline __m256i e4m3_16(__m256i w, bool bf16)
{
    /* m x 2^-9, m = 0..7: BFLOAT16 0, 3b00, 3b80, 3bc0, 3c00, 3c20, 3c40,
     * 3c60; FLOAT16 0, 1800, 1c00, 1e00, 2000, 2100, 2200, 2300 */
    const __m128i sub_bf = _mm_setr_epi8(0, 0, -128, -64, 0, 0x20, 0x40, 0x60,
                                         0, 0x3b, 0x3b, 0x3b, 0x3c, 0x3c, 0x3c, 0x3c);
    const __m128i sub_h = _mm_setr_epi8(0, 0, 0, 0, 0, 0, 0, 0,
                                        0, 0x18, 0x1c, 0x1e, 0x20, 0x21, 0x22, 0x23);
    __m256i x = bf16 ? fp8_16(w, 4, 120 << 7, sub_bf, 8) : fp8_16(w, 7, 8 << 10, sub_h, 8);
    __m256i nan = _mm256_cmpeq_epi16(_mm256_and_si256(w, _mm256_set1_epi16(0x7f)),
                                     _mm256_set1_epi16(0x7f));
    return _mm256_blendv_epi8(x, _mm256_set1_epi16(bf16 ? 0x7fc0 : 0x7e00), nan);
}

/* E5M2 to BFLOAT16: bias 15, 2 mantissa bits; m x 2^-16 below 4 (0,
 * 3780, 3800, 3840); S.11111.00 infinite, above it NaN. */
static inline __m256i e5m2_bf16(__m256i w)
{
    const __m128i sub = _mm_setr_epi8(0, -128, 0, 0x40, 0, 0, 0, 0,
                                      0, 0x37, 0x38, 0x38, 0, 0, 0, 0);
    __m256i x = fp8_16(w, 5, 112 << 7, sub, 4);
    __m256i mag = _mm256_and_si256(w, _mm256_set1_epi16(0x7f));
    __m256i inf = _mm256_cmpeq_epi16(mag, _mm256_set1_epi16(0x7c));
    x = _mm256_blendv_epi8(x, _mm256_or_si256(_mm256_and_si256(x, _mm256_set1_epi16(-32768)),
                                              _mm256_set1_epi16(0x7f80)), inf);
    return _mm256_blendv_epi8(x, _mm256_set1_epi16(0x7fc0),
                              _mm256_cmpgt_epi16(mag, _mm256_set1_epi16(0x7c)));
}

/* E8M0 to BFLOAT16: the exponent field; 0 is 2^-127 (0040), ff NaN. */
static inline __m256i e8m0_bf16(__m256i w)
{
    __m256i x = _mm256_slli_epi16(w, 7);
    x = _mm256_blendv_epi8(x, _mm256_set1_epi16(0x0040),
                           _mm256_cmpeq_epi16(w, _mm256_setzero_si256()));
    return _mm256_blendv_epi8(x, _mm256_set1_epi16(0x7fc0),
                              _mm256_cmpeq_epi16(w, _mm256_set1_epi16(0xff)));
}

static inline __m256i e4m3_bf16(__m256i w) { return e4m3_16(w, true); }
static inline __m256i e4m3_f16(__m256i w) { return e4m3_16(w, false); }

#define DEFINE_cvt_fp8_16(NAME, SDT, DDT, F)                                                \
static bool NAME(const uint8_t *src, uint8_t *dst, size_t n)                               \
{                                                                                          \
    size_t i = 0;                                                                          \
    for (; i + 16 <= n; i += 16) {                                                         \
        __m256i w = _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)(const void *)(src + i))); \
        _mm256_storeu_si256((__m256i *)(void *)(dst + 2 * i), F(w));                       \
    }                                                                                      \
    return tl_cvt_scalar(SDT, DDT, src + i, dst + 2 * i, n - i);                           \
}
DEFINE_cvt_fp8_16(cvt_e4m3_bf16, TL_DT_FLOAT8E4M3, TL_DT_BFLOAT16, e4m3_bf16)
DEFINE_cvt_fp8_16(cvt_e4m3_f16, TL_DT_FLOAT8E4M3, TL_DT_FLOAT16, e4m3_f16)
DEFINE_cvt_fp8_16(cvt_e5m2_bf16, TL_DT_FLOAT8E5M2, TL_DT_BFLOAT16, e5m2_bf16)
DEFINE_cvt_fp8_16(cvt_e8m0_bf16, TL_DT_FLOAT8E8M0, TL_DT_BFLOAT16, e8m0_bf16)

/* E5M2 to FLOAT16 is a shift: 16 codes a step. */
static bool cvt_e5m2_f16(const uint8_t *src, uint8_t *dst, size_t n)
{
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        __m128i c = _mm_loadu_si128((const __m128i *)(const void *)(src + i));
        _mm_storeu_si128((__m128i *)(void *)(dst + 2 * i), e5m2_f16(c));
        _mm_storeu_si128((__m128i *)(void *)(dst + 2 * i + 16), e5m2_f16(_mm_srli_si128(c, 8)));
    }
    return tl_cvt_scalar(TL_DT_FLOAT8E5M2, TL_DT_FLOAT16, src + i, dst + 2 * i, n - i);
}

/* ---- FLOAT4E2M1, a code a byte (unpacked: plan.c's 4-bit staging) --------
 * Its 16 values are exact in every wider float, and their 16-bit forms
 * are looked up a byte at a time (dequant.c's tl_fp4_* tables); FLOAT32 is
 * BFLOAT16 shifted up.  A byte's high nibble is ignored, as the scalar
 * converter ignores it. */

/* 16 codes at p as 16-bit floats: the first 8 in *a, the rest in *b. */
static inline void fp4_16(const uint8_t *p, __m128i lo_t, __m128i hi_t, __m128i *a, __m128i *b)
{
    __m128i c = _mm_and_si128(_mm_loadu_si128((const __m128i *)(const void *)p),
                              _mm_set1_epi8(0x0f));
    __m128i lo = _mm_shuffle_epi8(lo_t, c), hi = _mm_shuffle_epi8(hi_t, c);
    *a = _mm_unpacklo_epi8(lo, hi);
    *b = _mm_unpackhi_epi8(lo, hi);
}

#define DEFINE_cvt_fp4_16(NAME, DDT, LO, HI)                                                \
static bool NAME(const uint8_t *src, uint8_t *dst, size_t n)                               \
{                                                                                          \
    const __m128i lo_t = LO, hi_t = _mm_loadu_si128((const __m128i *)(const void *)HI);    \
    size_t i = 0;                                                                          \
    for (; i + 16 <= n; i += 16) {                                                         \
        __m128i a, b;                                                                      \
        fp4_16(src + i, lo_t, hi_t, &a, &b);                                               \
        _mm_storeu_si128((__m128i *)(void *)(dst + 2 * i), a);                             \
        _mm_storeu_si128((__m128i *)(void *)(dst + 2 * i + 16), b);                        \
    }                                                                                      \
    return tl_cvt_scalar(TL_DT_FLOAT4E2M1, DDT, src + i, dst + 2 * i, n - i);              \
}
DEFINE_cvt_fp4_16(cvt_fp4_bf16, TL_DT_BFLOAT16,
                  _mm_loadu_si128((const __m128i *)(const void *)tl_fp4_bf16_lo), tl_fp4_bf16_hi)
DEFINE_cvt_fp4_16(cvt_fp4_f16, TL_DT_FLOAT16, _mm_setzero_si128(), tl_fp4_f16_hi)

static bool cvt_fp4_f32(const uint8_t *src, uint8_t *dst, size_t n)
{
    const __m128i lo_t = _mm_loadu_si128((const __m128i *)(const void *)tl_fp4_bf16_lo),
                  hi_t = _mm_loadu_si128((const __m128i *)(const void *)tl_fp4_bf16_hi);
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        __m128i a, b;
        fp4_16(src + i, lo_t, hi_t, &a, &b);
        _mm256_storeu_si256((__m256i *)(void *)(dst + 4 * i),
                            _mm256_slli_epi32(_mm256_cvtepu16_epi32(a), 16));
        _mm256_storeu_si256((__m256i *)(void *)(dst + 4 * i + 32),
                            _mm256_slli_epi32(_mm256_cvtepu16_epi32(b), 16));
    }
    return tl_cvt_scalar(TL_DT_FLOAT4E2M1, TL_DT_FLOAT32, src + i, dst + 4 * i, n - i);
}

/* ---- scaled pairs (SPEC 18) to BFLOAT16, in one pass -------------------
 * MXFP4: a block's 32 codes looked up as FP4's BFLOAT16 values (the tables
 * above), then the exponent E8M0 gives added to each nonzero one's
 * exponent field: exact while the result stays a normal BFLOAT16 (E8M0
 * exponents 2..252); a block outside that goes to the scalar twin. */
static void mx4_bf16(const uint8_t *q, const uint8_t *e, uint8_t *y, size_t nb)
{
    const __m256i lo_t = _mm256_broadcastsi128_si256(
                            _mm_loadu_si128((const __m128i *)(const void *)tl_fp4_bf16_lo)),
                  hi_t = _mm256_broadcastsi128_si256(
                            _mm_loadu_si128((const __m128i *)(const void *)tl_fp4_bf16_hi));
    const __m128i low = _mm_set1_epi8(0x0f);
    const __m256i mag = _mm256_set1_epi16(0x7fff), zero = _mm256_setzero_si256();
    for (size_t b = 0; b < nb; b++, q += 16, y += 64) {
        if (e[b] < 2 || e[b] > 252) {
            tl_mx4_bf16_scalar(q, e + b, y, 1);
            continue;
        }
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)q);
        __m128i lo = _mm_and_si128(v, low), hi = _mm_and_si128(_mm_srli_epi16(v, 4), low);
        /* codes 0..15 in the low lane, 16..31 in the high one */
        __m256i c = _mm256_set_m128i(_mm_unpackhi_epi8(lo, hi), _mm_unpacklo_epi8(lo, hi));
        __m256i l = _mm256_shuffle_epi8(lo_t, c), h = _mm256_shuffle_epi8(hi_t, c);
        __m256i a = _mm256_unpacklo_epi8(l, h), d = _mm256_unpackhi_epi8(l, h);
        __m256i off = _mm256_set1_epi16((short)((e[b] - 127) * 128));
        __m256i x0 = _mm256_permute2x128_si256(a, d, 0x20), x1 = _mm256_permute2x128_si256(a, d, 0x31);
        x0 = _mm256_add_epi16(x0, _mm256_andnot_si256(
                 _mm256_cmpeq_epi16(_mm256_and_si256(x0, mag), zero), off));
        x1 = _mm256_add_epi16(x1, _mm256_andnot_si256(
                 _mm256_cmpeq_epi16(_mm256_and_si256(x1, mag), zero), off));
        _mm256_storeu_si256((__m256i *)(void *)y, x0);
        _mm256_storeu_si256((__m256i *)(void *)(y + 32), x1);
    }
}

/* Block FP8 with the scale's table (tl_fp8s_table), 16 codes a step in
 * 16-bit lanes: the value of the code's mantissa (and subnormality) looked
 * up a byte at a time, its exponent field added, the sign applied; zero
 * codes give the signed zero, NaN codes the quiet NaN, as the twin. */
static void fp8s_bf16_table(const uint8_t *c, const uint8_t *t, float scale, uint8_t *y,
                            size_t n)
{
    const __m256i tlo = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)(const void *)t)),
                  thi = _mm256_broadcastsi128_si256(
                            _mm_loadu_si128((const __m128i *)(const void *)(t + 16)));
    const __m256i zero = _mm256_setzero_si256(), low8 = _mm256_set1_epi16(0x00ff);
    const __m256i zs = _mm256_set1_epi16(scale < 0 ? (short)0x8000 : 0);
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        __m256i w = _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)(const void *)(c + i)));
        __m256i e = _mm256_and_si256(_mm256_srli_epi16(w, 3), _mm256_set1_epi16(15));
        __m256i key = _mm256_or_si256(_mm256_and_si256(w, _mm256_set1_epi16(7)),
                                      _mm256_and_si256(_mm256_cmpeq_epi16(e, zero),
                                                       _mm256_set1_epi16(8)));
        key = _mm256_or_si256(key, _mm256_slli_epi16(key, 8));     /* in both bytes */
        __m256i x = _mm256_or_si256(_mm256_and_si256(_mm256_shuffle_epi8(tlo, key), low8),
                                    _mm256_andnot_si256(low8, _mm256_shuffle_epi8(thi, key)));
        x = _mm256_add_epi16(x, _mm256_slli_epi16(e, 7));
        __m256i mag = _mm256_and_si256(w, _mm256_set1_epi16(0x7f));
        x = _mm256_blendv_epi8(x, zs, _mm256_cmpeq_epi16(mag, zero));
        x = _mm256_xor_si256(x, _mm256_slli_epi16(_mm256_and_si256(w, _mm256_set1_epi16(0x80)), 8));
        x = _mm256_blendv_epi8(x, _mm256_set1_epi16(0x7fc0),
                               _mm256_cmpeq_epi16(mag, _mm256_set1_epi16(0x7f)));
        _mm256_storeu_si256((__m256i *)(void *)(y + 2 * i), x);
    }
    tl_fp8s_bf16_scalar(c + i, t, scale, y + 2 * i, n - i);
}

/* Block FP8 without a table: 16 codes a step to FLOAT32 (e4m3_f32), times
 * the scale, and rounded to BFLOAT16 as cvt_f32_bf16 rounds. */
static void fp8s_bf16(const uint8_t *c, const uint8_t *t, float scale, uint8_t *y, size_t n)
{
    if (t) {
        fp8s_bf16_table(c, t, scale, y, n);
        return;
    }
    const __m256 s = _mm256_set1_ps(scale);
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        __m128i codes = _mm_loadu_si128((const __m128i *)(const void *)(c + i));
        __m256 a = _mm256_mul_ps(_mm256_castsi256_ps(e4m3_f32(codes)), s);
        __m256 b = _mm256_mul_ps(_mm256_castsi256_ps(e4m3_f32(_mm_srli_si128(codes, 8))), s);
        __m256i p = _mm256_packus_epi32(bf16_round(_mm256_castps_si256(a)),
                                        bf16_round(_mm256_castps_si256(b)));
        _mm256_storeu_si256((__m256i *)(void *)(y + 2 * i), _mm256_permute4x64_epi64(p, 0xd8));
    }
    tl_fp8s_bf16_scalar(c + i, t, scale, y + 2 * i, n - i);
}

/* Block FP8 to BFLOAT16 by each block's nibble tables (copy.h,
 * tl_fp8s_lut), 32 codes a step in bytes: the low and high bytes of a
 * code's value looked up by its low four bits, a subnormal code's in the
 * subnormal tables, the exponent field's high bits added to the high byte,
 * the sign applied; then the two interleaved into 32 BFLOAT16 values.  A
 * NaN code takes its table's NaN; a block without nibble tables, and the
 * codes of a block's run short of 32, go a code at a time by lo and hi.
 * The codes are asked for 1 KiB ahead, as kern_avx512.c's table kernels
 * do: make bench scaled_fp8_bf16, 0.55-0.76 of memcpy (four of six runs
 * 0.71-0.76) against 0.50-0.64 without (six alternating runs, Intel Xeon
 * family 6 model 207 guest). */
static inline __m256i table16(const uint8_t *t)
{
    return _mm256_broadcastsi128_si256(_mm_load_si128((const __m128i *)(const void *)t));
}

static void fp8s_lut(const uint8_t *c, const struct tl_fp8s_lut *lut, size_t in, uint8_t *y,
                     size_t n, bool stream)
{
    const __m256i low4 = _mm256_set1_epi8(0x0f), exp_lo = _mm256_set1_epi8(0x78),
                  seven = _mm256_set1_epi8(7), sign = _mm256_set1_epi8((char)0x80),
                  ones = _mm256_set1_epi8(-1), zero = _mm256_setzero_si256();
    for (size_t i = 0, len = in; i < n; lut++, len = 128) {
        if (len > n - i)
            len = n - i;
        size_t end = i + len;
        if (lut->nib_ok) {
            const __m256i nlo = table16(lut->nlo), nhi = table16(lut->nhi),
                          slo = table16(lut->slo), shi = table16(lut->shi);
            const __m256i nan_lo = _mm256_set1_epi8((char)lut->lo[0x7f]),
                          nan_pos = _mm256_set1_epi8((char)lut->hi[0x7f]),
                          nan_neg = _mm256_set1_epi8((char)lut->hi[0xff]);
            for (; i + 32 <= end; i += 32) {
                _mm_prefetch((const char *)c + i + 1024, _MM_HINT_T0);
                __m256i x = _mm256_loadu_si256((const __m256i *)(const void *)(c + i));
                x = _mm256_permute4x64_epi64(x, 0xd8);      /* codes 0-7 16-23 | 8-15 24-31 */
                __m256i k = _mm256_and_si256(x, low4);
                __m256i sub = _mm256_cmpeq_epi8(_mm256_and_si256(x, exp_lo), zero);
                __m256i e = _mm256_and_si256(_mm256_srli_epi16(x, 4), seven);
                __m256i lo = _mm256_blendv_epi8(_mm256_shuffle_epi8(nlo, k),
                                                _mm256_shuffle_epi8(slo, k), sub);
                __m256i hi = _mm256_blendv_epi8(_mm256_add_epi8(_mm256_shuffle_epi8(nhi, k), e),
                                                _mm256_shuffle_epi8(shi, k), sub);
                hi = _mm256_xor_si256(hi, _mm256_and_si256(x, sign));
                /* no branch: random codes have a NaN in one step of 5 */
                __m256i nan = _mm256_cmpeq_epi8(_mm256_or_si256(x, sign), ones);
                lo = _mm256_blendv_epi8(lo, nan_lo, nan);
                hi = _mm256_blendv_epi8(hi, _mm256_blendv_epi8(nan_pos, nan_neg, x), nan);
                __m256i a = _mm256_unpacklo_epi8(lo, hi), b = _mm256_unpackhi_epi8(lo, hi);
                uint8_t *o = y + 2 * i;
                if (stream && ((uintptr_t)o & 63) == 0) {
                    _mm256_stream_si256((__m256i *)(void *)o, a);
                    _mm256_stream_si256((__m256i *)(void *)(o + 32), b);
                } else {
                    _mm256_storeu_si256((__m256i *)(void *)o, a);
                    _mm256_storeu_si256((__m256i *)(void *)(o + 32), b);
                }
            }
        }
        tl_fp8s_lut_codes(c + i, lut, y + 2 * i, end - i);
        i = end;
    }
}

/* 8 bytes as 8 floats, unsigned or signed. */
static inline __m256 bytes_ps(const uint8_t *p, bool sign)
{
    __m128i b = _mm_loadl_epi64((const __m128i *)(const void *)p);
    return _mm256_cvtepi32_ps(sign ? _mm256_cvtepi8_epi32(b) : _mm256_cvtepu8_epi32(b));
}

#define DEFINE_cvt_byte(NAME, SDT, SIGN, DDT, DES, STORE)                                   \
static bool NAME(const uint8_t *src, uint8_t *dst, size_t n)                                \
{                                                                                           \
    size_t i = 0;                                                                           \
    for (; i + 8 <= n; i += 8) {                                                            \
        __m256 v = bytes_ps(src + i, SIGN);                                                 \
        STORE;                                                                              \
    }                                                                                       \
    return tl_cvt_scalar(SDT, DDT, src + i, dst + DES * i, n - i);                          \
}
DEFINE_cvt_byte(cvt_u8_f32, TL_DT_UINT8, false, TL_DT_FLOAT32, 4,
                _mm256_storeu_ps((float *)(void *)(dst + 4 * i), v))
DEFINE_cvt_byte(cvt_i8_f32, TL_DT_INT8, true, TL_DT_FLOAT32, 4,
                _mm256_storeu_ps((float *)(void *)(dst + 4 * i), v))
DEFINE_cvt_byte(cvt_u8_f16, TL_DT_UINT8, false, TL_DT_FLOAT16, 2,
                _mm_storeu_si128((__m128i *)(void *)(dst + 2 * i), _mm256_cvtps_ph(v, FROUND)))
DEFINE_cvt_byte(cvt_i8_f16, TL_DT_INT8, true, TL_DT_FLOAT16, 2,
                _mm_storeu_si128((__m128i *)(void *)(dst + 2 * i), _mm256_cvtps_ph(v, FROUND)))
/* a byte's value has at most 8 significant bits, which BFLOAT16 holds: its
 * FLOAT32's top half, no rounding (INT4 and UINT4 to BFLOAT16 come here) */
#define STORE_BF16(v)                                                                        \
    do {                                                                                     \
        __m256i x = _mm256_srli_epi32(_mm256_castps_si256(v), 16);                           \
        _mm_storeu_si128((__m128i *)(void *)(dst + 2 * i),                                   \
                         _mm_packus_epi32(_mm256_castsi256_si128(x),                         \
                                          _mm256_extracti128_si256(x, 1)));                  \
    } while (0)
DEFINE_cvt_byte(cvt_u8_bf16, TL_DT_UINT8, false, TL_DT_BFLOAT16, 2, STORE_BF16(v))
DEFINE_cvt_byte(cvt_i8_bf16, TL_DT_INT8, true, TL_DT_BFLOAT16, 2, STORE_BF16(v))

/* FLOAT32 to a byte type: toward zero; a value whose truncation lies
 * outside [lo, hi], or a NaN, is reported and clamped (NaN to 0). */
static inline bool f32_bytes(const uint8_t *src, uint8_t *dst, size_t n, float lo, float hi,
                             bool sign, enum tl_dtype ddt)
{
    const __m256 vlo = _mm256_set1_ps(lo), vhi = _mm256_set1_ps(hi);
    const __m256 below = _mm256_set1_ps(lo - 1), above = _mm256_set1_ps(hi + 1);
    __m256 ok = _mm256_castsi256_ps(_mm256_set1_epi32(-1));
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m256 v = _mm256_loadu_ps((const float *)(const void *)(src + 4 * i));
        ok = _mm256_and_ps(ok, _mm256_and_ps(_mm256_cmp_ps(v, below, _CMP_GT_OQ),
                                             _mm256_cmp_ps(v, above, _CMP_LT_OQ)));
        v = _mm256_and_ps(v, _mm256_cmp_ps(v, v, _CMP_ORD_Q));      /* NaN -> 0 */
        __m256i x = _mm256_cvttps_epi32(_mm256_min_ps(_mm256_max_ps(v, vlo), vhi));
        __m128i w = _mm_packs_epi32(_mm256_castsi256_si128(x), _mm256_extracti128_si256(x, 1));
        w = sign ? _mm_packs_epi16(w, w) : _mm_packus_epi16(w, w);
        _mm_storel_epi64((__m128i *)(void *)(dst + i), w);
    }
    bool bad = _mm256_movemask_ps(ok) != 0xff;
    return tl_cvt_scalar(TL_DT_FLOAT32, ddt, src + 4 * i, dst + i, n - i) || bad;
}

static bool cvt_f32_u8(const uint8_t *src, uint8_t *dst, size_t n)
{
    return f32_bytes(src, dst, n, 0, 255, false, TL_DT_UINT8);
}

static bool cvt_f32_i8(const uint8_t *src, uint8_t *dst, size_t n)
{
    return f32_bytes(src, dst, n, -128, 127, true, TL_DT_INT8);
}

/* Comparison scans, 32 floats or 16 doubles a step (an equal run is skipped
 * four vectors at a time). */
static size_t cmp_f32(const uint8_t *a, const uint8_t *b, size_t n)
{
    size_t i = 0;
    for (; i + 32 <= n; i += 32) {
        __m256 e = _mm256_castsi256_ps(_mm256_set1_epi32(-1));
        TL_UNROLL
        for (int k = 0; k < 4; k++)
            e = _mm256_and_ps(e, _mm256_cmp_ps(_mm256_loadu_ps((const float *)(const void *)(a + 4 * i + 32 * k)),
                                               _mm256_loadu_ps((const float *)(const void *)(b + 4 * i + 32 * k)),
                                               _CMP_EQ_OQ));
        if (_mm256_movemask_ps(e) != 0xff)
            break;
    }
    for (; i + 8 <= n; i += 8) {
        __m256 e = _mm256_cmp_ps(_mm256_loadu_ps((const float *)(const void *)(a + 4 * i)),
                                 _mm256_loadu_ps((const float *)(const void *)(b + 4 * i)), _CMP_EQ_OQ);
        if (_mm256_movemask_ps(e) != 0xff)
            break;
    }
    return tl_first_ne_f32(a, b, i, n);
}

static size_t cmp_f64(const uint8_t *a, const uint8_t *b, size_t n)
{
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        __m256d e = _mm256_castsi256_pd(_mm256_set1_epi32(-1));
        TL_UNROLL
        for (int k = 0; k < 4; k++)
            e = _mm256_and_pd(e, _mm256_cmp_pd(_mm256_loadu_pd((const double *)(const void *)(a + 8 * i + 32 * k)),
                                               _mm256_loadu_pd((const double *)(const void *)(b + 8 * i + 32 * k)),
                                               _CMP_EQ_OQ));
        if (_mm256_movemask_pd(e) != 0xf)
            break;
    }
    for (; i + 4 <= n; i += 4) {
        __m256d e = _mm256_cmp_pd(_mm256_loadu_pd((const double *)(const void *)(a + 8 * i)),
                                  _mm256_loadu_pd((const double *)(const void *)(b + 8 * i)), _CMP_EQ_OQ);
        if (_mm256_movemask_pd(e) != 0xf)
            break;
    }
    return tl_first_ne_f64(a, b, i, n);
}

/* ---- 4-bit elements ------------------------------------------------------
 * unpack: 32 bytes make 64 values, low nibbles and high nibbles split with
 * a mask and a shift and interleaved back (the unpacks work within each
 * 128-bit lane, so a lane permute puts the halves in order); INT4 is
 * sign-extended as (v ^ 8) - 8.  pack: the values are clamped to the
 * type's range (a clamped value is reported), and each 16-bit pair (lo,
 * hi) becomes lo | hi << 4 in its low byte, narrowed with packus. */
static inline void unpack4(const uint8_t *src, uint8_t *dst, size_t n, int sgn)
{
    const __m256i m = _mm256_set1_epi8(15), e = _mm256_set1_epi8(8);
    size_t i = 0;
    for (; i + 64 <= n; i += 64) {
        __m256i b = _mm256_loadu_si256((const __m256i *)(src + i / 2));
        __m256i lo = _mm256_and_si256(b, m), hi = _mm256_and_si256(_mm256_srli_epi16(b, 4), m);
        __m256i x0 = _mm256_unpacklo_epi8(lo, hi), x1 = _mm256_unpackhi_epi8(lo, hi);
        __m256i y0 = _mm256_permute2x128_si256(x0, x1, 0x20);
        __m256i y1 = _mm256_permute2x128_si256(x0, x1, 0x31);
        if (sgn) {
            y0 = _mm256_sub_epi8(_mm256_xor_si256(y0, e), e);
            y1 = _mm256_sub_epi8(_mm256_xor_si256(y1, e), e);
        }
        _mm256_storeu_si256((__m256i *)(dst + i), y0);
        _mm256_storeu_si256((__m256i *)(dst + i + 32), y1);
    }
    tl_unpack4_scalar(src + i / 2, dst + i, n - i, sgn);
}

static inline __m256i pack4_half(__m256i v, __m256i *bad, int sgn)
{
    __m256i c = sgn ? _mm256_max_epi8(_mm256_min_epi8(v, _mm256_set1_epi8(7)), _mm256_set1_epi8(-8))
                    : _mm256_min_epu8(v, _mm256_set1_epi8(15));
    *bad = _mm256_or_si256(*bad, _mm256_xor_si256(c, v));
    c = _mm256_and_si256(c, _mm256_set1_epi8(15));
    return _mm256_and_si256(_mm256_or_si256(c, _mm256_srli_epi16(c, 4)), _mm256_set1_epi16(0xff));
}

static inline bool pack4(const uint8_t *src, uint8_t *dst, size_t n, int sgn)
{
    __m256i bad = _mm256_setzero_si256();
    size_t i = 0;
    for (; i + 64 <= n; i += 64) {
        __m256i a = pack4_half(_mm256_loadu_si256((const __m256i *)(src + i)), &bad, sgn);
        __m256i b = pack4_half(_mm256_loadu_si256((const __m256i *)(src + i + 32)), &bad, sgn);
        __m256i r = _mm256_permute4x64_epi64(_mm256_packus_epi16(a, b), 0xd8);
        _mm256_storeu_si256((__m256i *)(dst + i / 2), r);
    }
    return !_mm256_testz_si256(bad, bad) | tl_pack4_scalar(src + i, dst + i / 2, n - i, sgn);
}

static void nibpair(const uint8_t *r0, const uint8_t *r1, uint8_t *lo, uint8_t *hi, size_t n)
{
    const __m256i m = _mm256_set1_epi8(15), mh = _mm256_set1_epi8((char)0xf0);
    size_t k = 0;
    for (; k + 32 <= n; k += 32) {
        __m256i a = _mm256_loadu_si256((const __m256i *)(r0 + k));
        __m256i b = _mm256_loadu_si256((const __m256i *)(r1 + k));
        __m256i l = _mm256_or_si256(_mm256_and_si256(a, m),
                                    _mm256_and_si256(_mm256_slli_epi16(b, 4), mh));
        __m256i h = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(a, 4), m),
                                    _mm256_and_si256(b, mh));
        _mm256_storeu_si256((__m256i *)(lo + k), l);
        _mm256_storeu_si256((__m256i *)(hi + k), h);
    }
    tl_nibpair_scalar(r0 + k, r1 + k, lo + k, hi + k, n - k);
}

static void unpack_u4(const uint8_t *s, uint8_t *d, size_t n) { unpack4(s, d, n, 0); }
static void unpack_s4(const uint8_t *s, uint8_t *d, size_t n) { unpack4(s, d, n, 1); }
static bool pack_u4(const uint8_t *s, uint8_t *d, size_t n) { return pack4(s, d, n, 0); }
static bool pack_s4(const uint8_t *s, uint8_t *d, size_t n) { return pack4(s, d, n, 1); }

const struct tl_kernels tl_kernels_avx2 = {
    .transpose = { NULL, transpose_w2, transpose_w4, transpose_w8 },
    /* w4 streams through step_w4_nt's one-step L1 buffer, which writes each
     * destination line whole: 8x8 blocks streamed straight out left 16
     * lines half written at once and measured 0.17-0.30 of memcpy on
     * huge-page buffers, below the ordinary-store kernel (0.55-0.74) */
    .transpose_nt = { NULL, transpose_w2_nt, transpose_w4_nt, transpose_w8_nt },
    .fill = { avx2_fill_w1, avx2_fill_w2, avx2_fill_w4, avx2_fill_w8 },
    .fill_nt = { avx2_fill_nt_w1, avx2_fill_nt_w2, avx2_fill_nt_w4, avx2_fill_nt_w8 },
    .copy = copy_rows,
    .copy_stream = avx2_copy_stream,
    .fence = avx2_store_fence,
    .interleave = { { NULL }, { interleave_c3_w1 }, { NULL } },
    .deinterleave = { { NULL }, { deinterleave_c3_w1 }, { NULL } },
    .cvt = {
        [TL_DT_FLOAT32] = { [TL_DT_FLOAT16] = cvt_f32_f16, [TL_DT_BFLOAT16] = cvt_f32_bf16,
                            [TL_DT_UINT8] = cvt_f32_u8, [TL_DT_INT8] = cvt_f32_i8 },
        [TL_DT_FLOAT16] = { [TL_DT_FLOAT32] = cvt_f16_f32 },
        [TL_DT_BFLOAT16] = { [TL_DT_FLOAT32] = cvt_bf16_f32 },
        [TL_DT_UINT8] = { [TL_DT_FLOAT32] = cvt_u8_f32, [TL_DT_FLOAT16] = cvt_u8_f16,
                          [TL_DT_BFLOAT16] = cvt_u8_bf16 },
        [TL_DT_INT8] = { [TL_DT_FLOAT32] = cvt_i8_f32, [TL_DT_FLOAT16] = cvt_i8_f16,
                         [TL_DT_BFLOAT16] = cvt_i8_bf16 },
        [TL_DT_FLOAT4E2M1] = { [TL_DT_FLOAT32] = cvt_fp4_f32, [TL_DT_FLOAT16] = cvt_fp4_f16,
                               [TL_DT_BFLOAT16] = cvt_fp4_bf16 },
        [TL_DT_FLOAT8E4M3] = { [TL_DT_FLOAT32] = cvt_e4m3_f32, [TL_DT_FLOAT16] = cvt_e4m3_f16,
                               [TL_DT_BFLOAT16] = cvt_e4m3_bf16 },
        [TL_DT_FLOAT8E5M2] = { [TL_DT_FLOAT32] = cvt_e5m2_f32, [TL_DT_FLOAT16] = cvt_e5m2_f16,
                               [TL_DT_BFLOAT16] = cvt_e5m2_bf16 },
        [TL_DT_FLOAT8E8M0] = { [TL_DT_FLOAT32] = cvt_e8m0_f32, [TL_DT_BFLOAT16] = cvt_e8m0_bf16 },
    },
    .tcvt = { [TL_DT_FLOAT32] = { [TL_DT_FLOAT16] = tcvt_f32_f16, [TL_DT_BFLOAT16] = tcvt_f32_bf16 } },
    .tcvt_nt = { [TL_DT_FLOAT32] = { [TL_DT_FLOAT16] = tcvt_f32_f16_nt,
                                     [TL_DT_BFLOAT16] = tcvt_f32_bf16_nt } },
    .cmp = { cmp_f32, cmp_f64, NULL },
    .unpack4 = { unpack_u4, unpack_s4 },
    .pack4 = { pack_u4, pack_s4 },
    .nibpair = nibpair,
    .gq = { tl_gq4_avx2, tl_gq8_avx2 },
    .gq_bf16 = { tl_gq4_bf16_avx2, tl_gq8_bf16_avx2 },
    .gq4_bf16_groups = tl_gq4g_bf16_avx2,
    .awq8 = tl_awq8_avx2,
    .dequant = TL_DEQUANT_AVX2,
    .mx4 = tl_mx4_avx2,
    .mx4_bf16 = mx4_bf16,
    .fp8s_bf16 = fp8s_bf16,
    .fp8s_lut = fp8s_lut,
};
