/*
 * kern_sse2.c - SSE2 kernels: transposes of 16x16 bytes, 8x8 16-bit,
 * 4x4 32-bit and 2x2 64-bit blocks; fills; 2- and 4-channel byte
 * (de)interleaves; BFLOAT16 and byte conversions.  Compiled with -msse2
 * only.
 */
#include <emmintrin.h>

#include "kern_drivers.h"

#define LD(p) _mm_loadu_si128((const __m128i *)(const void *)(p))
#define ST(p, v) _mm_storeu_si128((__m128i *)(void *)(p), (v))
#define ST_NT(p, v) _mm_stream_si128((__m128i *)(void *)(p), (v))

TL_BLOCK void block_w1(const uint8_t *src, size_t ss, uint8_t *dst, size_t ds)
{
    __m128i r[16], a[16], b[4][4], c[2][8];
    TL_UNROLL
    for (int i = 0; i < 16; i++)
        r[i] = LD(src + i * ss);
    TL_UNROLL
    for (int p = 0; p < 8; p++) {              /* byte pairs of rows 2p, 2p+1 */
        a[2 * p] = _mm_unpacklo_epi8(r[2 * p], r[2 * p + 1]);
        a[2 * p + 1] = _mm_unpackhi_epi8(r[2 * p], r[2 * p + 1]);
    }
    TL_UNROLL
    for (int g = 0; g < 4; g++) {              /* 4-row groups, column quads */
        b[g][0] = _mm_unpacklo_epi16(a[4 * g], a[4 * g + 2]);
        b[g][1] = _mm_unpackhi_epi16(a[4 * g], a[4 * g + 2]);
        b[g][2] = _mm_unpacklo_epi16(a[4 * g + 1], a[4 * g + 3]);
        b[g][3] = _mm_unpackhi_epi16(a[4 * g + 1], a[4 * g + 3]);
    }
    TL_UNROLL
    for (int h = 0; h < 2; h++) {              /* 8-row halves, column pairs */
        TL_UNROLL
        for (int q = 0; q < 4; q++) {
            c[h][2 * q] = _mm_unpacklo_epi32(b[2 * h][q], b[2 * h + 1][q]);
            c[h][2 * q + 1] = _mm_unpackhi_epi32(b[2 * h][q], b[2 * h + 1][q]);
        }
    }
    TL_UNROLL
    for (int m = 0; m < 8; m++) {
        ST(dst + (2 * m) * ds, _mm_unpacklo_epi64(c[0][m], c[1][m]));
        ST(dst + (2 * m + 1) * ds, _mm_unpackhi_epi64(c[0][m], c[1][m]));
    }
}

TL_BLOCK void block_w2(const uint8_t *src, size_t ss, uint8_t *dst, size_t ds)
{
    __m128i r[8], t[8], u[8];
    TL_UNROLL
    for (int i = 0; i < 8; i++)
        r[i] = LD(src + i * ss);
    TL_UNROLL
    for (int p = 0; p < 4; p++) {
        t[2 * p] = _mm_unpacklo_epi16(r[2 * p], r[2 * p + 1]);
        t[2 * p + 1] = _mm_unpackhi_epi16(r[2 * p], r[2 * p + 1]);
    }
    TL_UNROLL
    for (int h = 0; h < 2; h++) {              /* rows 4h..4h+3 */
        u[4 * h + 0] = _mm_unpacklo_epi32(t[4 * h], t[4 * h + 2]);      /* cols 0,1 */
        u[4 * h + 1] = _mm_unpackhi_epi32(t[4 * h], t[4 * h + 2]);      /* cols 2,3 */
        u[4 * h + 2] = _mm_unpacklo_epi32(t[4 * h + 1], t[4 * h + 3]);  /* cols 4,5 */
        u[4 * h + 3] = _mm_unpackhi_epi32(t[4 * h + 1], t[4 * h + 3]);  /* cols 6,7 */
    }
    TL_UNROLL
    for (int m = 0; m < 4; m++) {
        ST(dst + (2 * m) * ds, _mm_unpacklo_epi64(u[m], u[4 + m]));
        ST(dst + (2 * m + 1) * ds, _mm_unpackhi_epi64(u[m], u[4 + m]));
    }
}

TL_BLOCK void block_w4(const uint8_t *src, size_t ss, uint8_t *dst, size_t ds)
{
    __m128 r0 = _mm_loadu_ps((const float *)(const void *)src);
    __m128 r1 = _mm_loadu_ps((const float *)(const void *)(src + ss));
    __m128 r2 = _mm_loadu_ps((const float *)(const void *)(src + 2 * ss));
    __m128 r3 = _mm_loadu_ps((const float *)(const void *)(src + 3 * ss));
    _MM_TRANSPOSE4_PS(r0, r1, r2, r3);
    _mm_storeu_ps((float *)(void *)dst, r0);
    _mm_storeu_ps((float *)(void *)(dst + ds), r1);
    _mm_storeu_ps((float *)(void *)(dst + 2 * ds), r2);
    _mm_storeu_ps((float *)(void *)(dst + 3 * ds), r3);
}

TL_BLOCK void block_w8(const uint8_t *src, size_t ss, uint8_t *dst, size_t ds)
{
    __m128d r0 = _mm_loadu_pd((const double *)(const void *)src);
    __m128d r1 = _mm_loadu_pd((const double *)(const void *)(src + ss));
    _mm_storeu_pd((double *)(void *)dst, _mm_unpacklo_pd(r0, r1));
    _mm_storeu_pd((double *)(void *)(dst + ds), _mm_unpackhi_pd(r0, r1));
}

/* 64 bytes of the L1 step buffer streamed out as one line */
#define LINE_NT_SSE2(d, s)                                                  \
    do {                                                                    \
        for (int q_ = 0; q_ < 4; q_++)                                      \
            ST_NT((d) + 16 * q_, _mm_load_si128((const __m128i *)(const void *)((s) + 16 * q_))); \
    } while (0)

TL_DEFINE_TRANSPOSE(transpose_w1, 1, 16, block_w1)
TL_DEFINE_STEP_NT(step_w1_nt, 1, 16, block_w1, LINE_NT_SSE2)
TL_DEFINE_TRANSPOSE_ANY(transpose_w1_nt, 1, 16, block_w1, step_w1_nt, TL_LINE_ALIGNED, _mm_sfence())
TL_DEFINE_TRANSPOSE(transpose_w2, 2, 8, block_w2)
TL_DEFINE_STEP_NT(step_w2_nt, 2, 8, block_w2, LINE_NT_SSE2)
TL_DEFINE_TRANSPOSE_ANY(transpose_w2_nt, 2, 8, block_w2, step_w2_nt, TL_LINE_ALIGNED, _mm_sfence())
TL_DEFINE_TRANSPOSE(transpose_w4, 4, 4, block_w4)
TL_DEFINE_STEP_NT(step_w4_nt, 4, 4, block_w4, LINE_NT_SSE2)
TL_DEFINE_TRANSPOSE_ANY(transpose_w4_nt, 4, 4, block_w4, step_w4_nt, TL_LINE_ALIGNED, _mm_sfence())
TL_DEFINE_TRANSPOSE(transpose_w8, 8, 2, block_w8)
TL_DEFINE_STEP_NT(step_w8_nt, 8, 2, block_w8, LINE_NT_SSE2)
TL_DEFINE_TRANSPOSE_ANY(transpose_w8_nt, 8, 2, block_w8, step_w8_nt, TL_LINE_ALIGNED, _mm_sfence())

#define SET1_8(x) _mm_set1_epi8((char)(x))
#define SET1_16(x) _mm_set1_epi16((short)(x))
#define SET1_32(x) _mm_set1_epi32((int)(x))
#define SET1_64(x) _mm_set1_epi64x((long long)(x))
TL_DEFINE_FILLS(sse2, __m128i, 16, ST, SET1_8, SET1_16, SET1_32, SET1_64)
TL_DEFINE_STREAMING(sse2, __m128i, 16, ST_NT, LD, SET1_8, SET1_16, SET1_32, SET1_64, _mm_sfence())

/* Byte (de)interleaves for 2 and 4 channels, 16 pixels a step. */
static void interleave_c2_w1(const uint8_t *src, size_t plane, uint8_t *dst, size_t n)
{
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        __m128i a = LD(src + i), b = LD(src + plane + i);
        ST(dst + 2 * i, _mm_unpacklo_epi8(a, b));
        ST(dst + 2 * i + 16, _mm_unpackhi_epi8(a, b));
    }
    tl_interleave_scalar_es(src + i, plane, dst + 2 * i, n - i, 2, 1);
}

static void interleave_c4_w1(const uint8_t *src, size_t plane, uint8_t *dst, size_t n)
{
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        __m128i a = LD(src + i), b = LD(src + plane + i);
        __m128i c = LD(src + 2 * plane + i), d = LD(src + 3 * plane + i);
        __m128i ab0 = _mm_unpacklo_epi8(a, b), ab1 = _mm_unpackhi_epi8(a, b);
        __m128i cd0 = _mm_unpacklo_epi8(c, d), cd1 = _mm_unpackhi_epi8(c, d);
        ST(dst + 4 * i, _mm_unpacklo_epi16(ab0, cd0));
        ST(dst + 4 * i + 16, _mm_unpackhi_epi16(ab0, cd0));
        ST(dst + 4 * i + 32, _mm_unpacklo_epi16(ab1, cd1));
        ST(dst + 4 * i + 48, _mm_unpackhi_epi16(ab1, cd1));
    }
    tl_interleave_scalar_es(src + i, plane, dst + 4 * i, n - i, 4, 1);
}

/* Even and odd bytes of 32 bytes. */
static inline void split2(__m128i v0, __m128i v1, __m128i *even, __m128i *odd)
{
    const __m128i lo = _mm_set1_epi16(0x00ff);
    *even = _mm_packus_epi16(_mm_and_si128(v0, lo), _mm_and_si128(v1, lo));
    *odd = _mm_packus_epi16(_mm_srli_epi16(v0, 8), _mm_srli_epi16(v1, 8));
}

static void deinterleave_c2_w1(const uint8_t *src, uint8_t *dst, size_t plane, size_t n)
{
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        __m128i e, o;
        split2(LD(src + 2 * i), LD(src + 2 * i + 16), &e, &o);
        ST(dst + i, e);
        ST(dst + plane + i, o);
    }
    tl_deinterleave_scalar_es(src + 2 * i, dst + i, plane, n - i, 2, 1);
}

static void deinterleave_c4_w1(const uint8_t *src, uint8_t *dst, size_t plane, size_t n)
{
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        __m128i e01, o01, e23, o23, c0, c1, c2, c3;
        split2(LD(src + 4 * i), LD(src + 4 * i + 16), &e01, &o01);       /* c0c2.., c1c3.. */
        split2(LD(src + 4 * i + 32), LD(src + 4 * i + 48), &e23, &o23);
        split2(e01, e23, &c0, &c2);
        split2(o01, o23, &c1, &c3);
        ST(dst + i, c0);
        ST(dst + plane + i, c1);
        ST(dst + 2 * plane + i, c2);
        ST(dst + 3 * plane + i, c3);
    }
    tl_deinterleave_scalar_es(src + 4 * i, dst + i, plane, n - i, 4, 1);
}

/* ---- conversions, 4 lanes --------------------------------------------------
 * BFLOAT16 by integer rounding, the byte types; SSE2 has no half-precision
 * conversion, so FLOAT16 keeps the scalar loops.  Tails go to the scalar
 * converter. */

/* The low 16 bits of each 32-bit lane of a and b, in order (values below
 * 2^16): SSE2 has only a signed saturating pack, so shift into its range. */
static inline __m128i pack_lo16(__m128i a, __m128i b)
{
    const __m128i k = _mm_set1_epi32(0x8000);
    __m128i p = _mm_packs_epi32(_mm_sub_epi32(a, k), _mm_sub_epi32(b, k));
    return _mm_add_epi16(p, _mm_set1_epi16((short)0x8000));
}

static inline __m128i bf16_round(__m128i x)
{
    __m128i nan = _mm_cmpgt_epi32(_mm_and_si128(x, _mm_set1_epi32(0x7fffffff)),
                                  _mm_set1_epi32(0x7f800000));
    __m128i odd = _mm_and_si128(_mm_srli_epi32(x, 16), _mm_set1_epi32(1));
    __m128i r = _mm_srli_epi32(_mm_add_epi32(_mm_add_epi32(x, _mm_set1_epi32(0x7fff)), odd), 16);
    __m128i q = _mm_or_si128(_mm_srli_epi32(x, 16), _mm_set1_epi32(0x40));
    return _mm_or_si128(_mm_and_si128(nan, q), _mm_andnot_si128(nan, r));
}

/* Lanes of x that are finite and whose magnitude's bits reach at: the
 * values that overflow (copy.h; signed compares: a magnitude's bits are
 * below 2^31). */
static inline __m128i reach(__m128i x, uint32_t at)
{
    __m128i a = _mm_and_si128(x, _mm_set1_epi32(0x7fffffff));
    return _mm_and_si128(_mm_cmpgt_epi32(a, _mm_set1_epi32((int)(at - 1))),
                         _mm_cmpgt_epi32(_mm_set1_epi32(0x7f800000), a));
}

static bool cvt_f32_bf16(const uint8_t *src, uint8_t *dst, size_t n)
{
    size_t i = 0;
    __m128i big = _mm_setzero_si128();
    for (; i + 8 <= n; i += 8) {
        __m128i a = LD(src + 4 * i), b = LD(src + 4 * i + 16);
        big = _mm_or_si128(big, _mm_or_si128(reach(a, TL_OVF_BF16), reach(b, TL_OVF_BF16)));
        ST(dst + 2 * i, pack_lo16(bf16_round(a), bf16_round(b)));
    }
    bool bad = _mm_movemask_epi8(big) != 0;
    return tl_cvt_scalar(TL_DT_FLOAT32, TL_DT_BFLOAT16, src + 4 * i, dst + 2 * i, n - i) || bad;
}

static bool cvt_bf16_f32(const uint8_t *src, uint8_t *dst, size_t n)
{
    const __m128i zero = _mm_setzero_si128(), abs = _mm_set1_epi32(0x7fffffff);
    const __m128i inf = _mm_set1_epi32(0x7f800000), quiet = _mm_set1_epi32(0x00400000);
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m128i h = LD(src + 2 * i);
        __m128i a = _mm_unpacklo_epi16(zero, h), b = _mm_unpackhi_epi16(zero, h);
        a = _mm_or_si128(a, _mm_and_si128(_mm_cmpgt_epi32(_mm_and_si128(a, abs), inf), quiet));
        b = _mm_or_si128(b, _mm_and_si128(_mm_cmpgt_epi32(_mm_and_si128(b, abs), inf), quiet));
        ST(dst + 4 * i, a);
        ST(dst + 4 * i + 16, b);
    }
    return tl_cvt_scalar(TL_DT_BFLOAT16, TL_DT_FLOAT32, src + 2 * i, dst + 4 * i, n - i);
}

/* 16 bytes as four vectors of 4 int32, unsigned or signed. */
static inline void bytes_epi32(__m128i b, bool sign, __m128i out[4])
{
    const __m128i zero = _mm_setzero_si128();
    if (sign) {
        __m128i lo = _mm_srai_epi16(_mm_unpacklo_epi8(b, b), 8);
        __m128i hi = _mm_srai_epi16(_mm_unpackhi_epi8(b, b), 8);
        out[0] = _mm_srai_epi32(_mm_unpacklo_epi16(lo, lo), 16);
        out[1] = _mm_srai_epi32(_mm_unpackhi_epi16(lo, lo), 16);
        out[2] = _mm_srai_epi32(_mm_unpacklo_epi16(hi, hi), 16);
        out[3] = _mm_srai_epi32(_mm_unpackhi_epi16(hi, hi), 16);
    } else {
        __m128i lo = _mm_unpacklo_epi8(b, zero), hi = _mm_unpackhi_epi8(b, zero);
        out[0] = _mm_unpacklo_epi16(lo, zero);
        out[1] = _mm_unpackhi_epi16(lo, zero);
        out[2] = _mm_unpacklo_epi16(hi, zero);
        out[3] = _mm_unpackhi_epi16(hi, zero);
    }
}

static inline bool bytes_f32(const uint8_t *src, uint8_t *dst, size_t n, bool sign,
                             enum tl_dtype sdt)
{
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        __m128i q[4];
        bytes_epi32(LD(src + i), sign, q);
        TL_UNROLL
        for (int k = 0; k < 4; k++)
            _mm_storeu_ps((float *)(void *)(dst + 4 * i + 16 * k), _mm_cvtepi32_ps(q[k]));
    }
    return tl_cvt_scalar(sdt, TL_DT_FLOAT32, src + i, dst + 4 * i, n - i);
}

static bool cvt_u8_f32(const uint8_t *src, uint8_t *dst, size_t n)
{
    return bytes_f32(src, dst, n, false, TL_DT_UINT8);
}

static bool cvt_i8_f32(const uint8_t *src, uint8_t *dst, size_t n)
{
    return bytes_f32(src, dst, n, true, TL_DT_INT8);
}

static inline bool f32_bytes(const uint8_t *src, uint8_t *dst, size_t n, float lo, float hi,
                             bool sign, enum tl_dtype ddt)
{
    const __m128 vlo = _mm_set1_ps(lo), vhi = _mm_set1_ps(hi);
    const __m128 below = _mm_set1_ps(lo - 1), above = _mm_set1_ps(hi + 1);
    __m128 ok = _mm_castsi128_ps(_mm_set1_epi32(-1));
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m128i x[2];
        TL_UNROLL
        for (int k = 0; k < 2; k++) {
            __m128 v = _mm_loadu_ps((const float *)(const void *)(src + 4 * i + 16 * k));
            ok = _mm_and_ps(ok, _mm_and_ps(_mm_cmpgt_ps(v, below), _mm_cmplt_ps(v, above)));
            v = _mm_and_ps(v, _mm_cmpord_ps(v, v));                 /* NaN -> 0 */
            x[k] = _mm_cvttps_epi32(_mm_min_ps(_mm_max_ps(v, vlo), vhi));
        }
        __m128i w = _mm_packs_epi32(x[0], x[1]);
        w = sign ? _mm_packs_epi16(w, w) : _mm_packus_epi16(w, w);
        _mm_storel_epi64((__m128i *)(void *)(dst + i), w);
    }
    bool bad = _mm_movemask_ps(ok) != 0xf;
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

const struct tl_kernels tl_kernels_sse2 = {
    .transpose = { transpose_w1, transpose_w2, transpose_w4, transpose_w8 },
    .transpose_nt = { transpose_w1_nt, transpose_w2_nt, transpose_w4_nt, transpose_w8_nt },
    .fill = { sse2_fill_w1, sse2_fill_w2, sse2_fill_w4, sse2_fill_w8 },
    .fill_nt = { sse2_fill_nt_w1, sse2_fill_nt_w2, sse2_fill_nt_w4, sse2_fill_nt_w8 },
    .copy_stream = sse2_copy_stream,
    .fence = sse2_store_fence,
    .interleave = { { interleave_c2_w1 }, { NULL }, { interleave_c4_w1 } },
    .deinterleave = { { deinterleave_c2_w1 }, { NULL }, { deinterleave_c4_w1 } },
    .cvt = {
        [TL_DT_FLOAT32] = { [TL_DT_BFLOAT16] = cvt_f32_bf16, [TL_DT_UINT8] = cvt_f32_u8,
                            [TL_DT_INT8] = cvt_f32_i8 },
        [TL_DT_BFLOAT16] = { [TL_DT_FLOAT32] = cvt_bf16_f32 },
        [TL_DT_UINT8] = { [TL_DT_FLOAT32] = cvt_u8_f32 },
        [TL_DT_INT8] = { [TL_DT_FLOAT32] = cvt_i8_f32 },
    },
};
