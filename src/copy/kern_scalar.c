/*
 * kern_scalar.c - the portable kernels: every slot of the table, and the
 * twin that each SIMD kernel is tested against.
 */
#include <math.h>
#include <pthread.h>

#include "dequant.h"
#include "kern_drivers.h"

#define WIDTHS(X) X(1, 0) X(2, 1) X(4, 2) X(8, 3)

#define DEFINE(W, L)                                                                       \
    static void transpose_w##W(const uint8_t *src, size_t ss, uint8_t *dst, size_t ds,     \
                               size_t rows, size_t cols)                                   \
    {                                                                                      \
        tl_transpose_scalar_es(src, ss, dst, ds, rows, cols, W);                           \
    }                                                                                      \
    static void fill_w##W(uint8_t *dst, const uint8_t *val, size_t n)                      \
    {                                                                                      \
        tl_fill_scalar_es(dst, val, n, W);                                                 \
    }                                                                                      \
    static void interleave_c2_w##W(const uint8_t *s, size_t p, uint8_t *d, size_t n)       \
    { tl_interleave_scalar_es(s, p, d, n, 2, W); }                                         \
    static void interleave_c3_w##W(const uint8_t *s, size_t p, uint8_t *d, size_t n)       \
    { tl_interleave_scalar_es(s, p, d, n, 3, W); }                                         \
    static void interleave_c4_w##W(const uint8_t *s, size_t p, uint8_t *d, size_t n)       \
    { tl_interleave_scalar_es(s, p, d, n, 4, W); }                                         \
    static void deinterleave_c2_w##W(const uint8_t *s, uint8_t *d, size_t p, size_t n)     \
    { tl_deinterleave_scalar_es(s, d, p, n, 2, W); }                                       \
    static void deinterleave_c3_w##W(const uint8_t *s, uint8_t *d, size_t p, size_t n)     \
    { tl_deinterleave_scalar_es(s, d, p, n, 3, W); }                                       \
    static void deinterleave_c4_w##W(const uint8_t *s, uint8_t *d, size_t p, size_t n)     \
    { tl_deinterleave_scalar_es(s, d, p, n, 4, W); }
WIDTHS(DEFINE)
#undef DEFINE

/* 8-bit floats to FLOAT32, FLOAT16 and BFLOAT16 (SPEC 18): every code's
 * value looked up in tables the generic converter fills once, so each is
 * exactly what tl_convert_value() gives (the differential test holds them
 * to it). */
static uint8_t fp8_out[3][3][256 * 4];   /* [E4M3, E5M2, E8M0][F32, F16, BF16][code] */
static pthread_once_t fp8_once = PTHREAD_ONCE_INIT;
static const enum tl_dtype fp8_src[3] = { TL_DT_FLOAT8E4M3, TL_DT_FLOAT8E5M2, TL_DT_FLOAT8E8M0 };
static const enum tl_dtype fp8_dst[3] = { TL_DT_FLOAT32, TL_DT_FLOAT16, TL_DT_BFLOAT16 };

static void fp8_init(void)
{
    for (int s = 0; s < 3; s++)
        for (int d = 0; d < 3; d++)
            for (int c = 0; c < 256; c++) {
                uint8_t code = (uint8_t)c;
                tl_convert_value(fp8_src[s], &code, fp8_dst[d],
                                 fp8_out[s][d] + c * tl_dtype_size(fp8_dst[d]));
            }
}

static inline bool fp8_cvt(int s, int d, const uint8_t *src, uint8_t *dst, size_t n)
{
    pthread_once(&fp8_once, fp8_init);
    const uint8_t *t = fp8_out[s][d];
    if (d == 0) {
        for (size_t i = 0; i < n; i++)
            memcpy(dst + 4 * i, t + 4 * src[i], 4);
    } else {
        for (size_t i = 0; i < n; i++)
            memcpy(dst + 2 * i, t + 2 * src[i], 2);
    }
    return false;
}

#define FP8_CVT(name, s, d)                                                \
    static bool name(const uint8_t *src, uint8_t *dst, size_t n)          \
    {                                                                      \
        return fp8_cvt(s, d, src, dst, n);                                 \
    }
FP8_CVT(cvt_e4m3_f32, 0, 0)
FP8_CVT(cvt_e4m3_f16, 0, 1)
FP8_CVT(cvt_e4m3_bf16, 0, 2)
FP8_CVT(cvt_e5m2_f32, 1, 0)
FP8_CVT(cvt_e5m2_f16, 1, 1)
FP8_CVT(cvt_e5m2_bf16, 1, 2)
FP8_CVT(cvt_e8m0_f32, 2, 0)
FP8_CVT(cvt_e8m0_bf16, 2, 2)

static void copy_plain(const uint8_t *src, uint8_t *dst, size_t bytes)
{
    memcpy(dst, src, bytes);
}

static void no_fence(void)      /* ordinary stores need none */
{
}

/* Conversions between the types users convert most, one element at a time
 * but without the generic converter's decoding; each rounds and reports
 * exactly as tl_convert_value() does (the differential test holds them to
 * it). */
static bool cvt_f32_f16(const uint8_t *src, uint8_t *dst, size_t n)
{
    bool bad = false;
    for (size_t i = 0; i < n; i++) {
        float f;
        memcpy(&f, src + 4 * i, 4);
        uint16_t h = tl_float_to_half(f);
        memcpy(dst + 2 * i, &h, 2);
        bad |= (h & 0x7fff) == 0x7c00 && isfinite(f);     /* overflowed */
    }
    return bad;
}

static bool cvt_f16_f32(const uint8_t *src, uint8_t *dst, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        uint16_t h;
        memcpy(&h, src + 2 * i, 2);
        float f = tl_half_to_float(h);
        memcpy(dst + 4 * i, &f, 4);
    }
    return false;
}

static bool cvt_f32_bf16(const uint8_t *src, uint8_t *dst, size_t n)
{
    bool bad = false;
    for (size_t i = 0; i < n; i++) {
        float f;
        memcpy(&f, src + 4 * i, 4);
        uint16_t h = tl_float_to_bfloat(f);
        memcpy(dst + 2 * i, &h, 2);
        bad |= (h & 0x7fff) == 0x7f80 && isfinite(f);     /* overflowed */
    }
    return bad;
}

static bool cvt_bf16_f32(const uint8_t *src, uint8_t *dst, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        uint16_t h;
        memcpy(&h, src + 2 * i, 2);
        uint32_t x = (uint32_t)h << 16;
        if ((x & 0x7fffffff) > 0x7f800000)
            x |= 0x00400000;                    /* a NaN is quieted */
        memcpy(dst + 4 * i, &x, 4);
    }
    return false;
}

static bool cvt_u8_f32(const uint8_t *src, uint8_t *dst, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        float f = src[i];
        memcpy(dst + 4 * i, &f, 4);
    }
    return false;
}

static bool cvt_f32_u8(const uint8_t *src, uint8_t *dst, size_t n)
{
    bool bad = false;
    for (size_t i = 0; i < n; i++) {
        float f;
        memcpy(&f, src + 4 * i, 4);
        if (f > -1.0f && f < 256.0f) {
            dst[i] = (uint8_t)f;
        } else {
            bad = true;
            dst[i] = f >= 256.0f ? 255 : 0;     /* NaN and below: 0 */
        }
    }
    return bad;
}

/* Comparison scans: the first element that is not equal. */
static size_t cmp_f32(const uint8_t *a, const uint8_t *b, size_t n)
{
    return tl_first_ne_f32(a, b, 0, n);
}

static size_t cmp_f64(const uint8_t *a, const uint8_t *b, size_t n)
{
    return tl_first_ne_f64(a, b, 0, n);
}

/* Bytes: memcmp (vectorized by the C library) on chunks, then the chunk
 * that differs byte by byte. */
static size_t cmp_bytes(const uint8_t *a, const uint8_t *b, size_t n)
{
    size_t i = 0;
    while (i + 256 <= n && memcmp(a + i, b + i, 256) == 0)
        i += 256;
    for (; i < n; i++) {
        if (a[i] != b[i])
            return i;
    }
    return n;
}

static void unpack_u4(const uint8_t *s, uint8_t *d, size_t n) { tl_unpack4_scalar(s, d, n, 0); }
static void unpack_s4(const uint8_t *s, uint8_t *d, size_t n) { tl_unpack4_scalar(s, d, n, 1); }
static bool pack_u4(const uint8_t *s, uint8_t *d, size_t n) { return tl_pack4_scalar(s, d, n, 0); }
static bool pack_s4(const uint8_t *s, uint8_t *d, size_t n) { return tl_pack4_scalar(s, d, n, 1); }
static void nibpair(const uint8_t *r0, const uint8_t *r1, uint8_t *lo, uint8_t *hi, size_t n)
{
    tl_nibpair_scalar(r0, r1, lo, hi, n);
}

const struct tl_kernels tl_kernels_scalar = {
    .transpose = { transpose_w1, transpose_w2, transpose_w4, transpose_w8 },
    .transpose_nt = { transpose_w1, transpose_w2, transpose_w4, transpose_w8 },
    .fill = { fill_w1, fill_w2, fill_w4, fill_w8 },
    .fill_nt = { fill_w1, fill_w2, fill_w4, fill_w8 },
    .copy = copy_plain,
    .copy_stream = copy_plain,
    .fence = no_fence,
    .interleave = {
        { interleave_c2_w1, interleave_c2_w2, interleave_c2_w4, interleave_c2_w8 },
        { interleave_c3_w1, interleave_c3_w2, interleave_c3_w4, interleave_c3_w8 },
        { interleave_c4_w1, interleave_c4_w2, interleave_c4_w4, interleave_c4_w8 },
    },
    .deinterleave = {
        { deinterleave_c2_w1, deinterleave_c2_w2, deinterleave_c2_w4, deinterleave_c2_w8 },
        { deinterleave_c3_w1, deinterleave_c3_w2, deinterleave_c3_w4, deinterleave_c3_w8 },
        { deinterleave_c4_w1, deinterleave_c4_w2, deinterleave_c4_w4, deinterleave_c4_w8 },
    },
    .cvt = {
        [TL_DT_FLOAT32] = { [TL_DT_FLOAT16] = cvt_f32_f16, [TL_DT_BFLOAT16] = cvt_f32_bf16,
                            [TL_DT_UINT8] = cvt_f32_u8 },
        [TL_DT_FLOAT16] = { [TL_DT_FLOAT32] = cvt_f16_f32 },
        [TL_DT_BFLOAT16] = { [TL_DT_FLOAT32] = cvt_bf16_f32 },
        [TL_DT_UINT8] = { [TL_DT_FLOAT32] = cvt_u8_f32 },
        [TL_DT_FLOAT8E4M3] = { [TL_DT_FLOAT32] = cvt_e4m3_f32, [TL_DT_FLOAT16] = cvt_e4m3_f16,
                               [TL_DT_BFLOAT16] = cvt_e4m3_bf16 },
        [TL_DT_FLOAT8E5M2] = { [TL_DT_FLOAT32] = cvt_e5m2_f32, [TL_DT_FLOAT16] = cvt_e5m2_f16,
                               [TL_DT_BFLOAT16] = cvt_e5m2_bf16 },
        [TL_DT_FLOAT8E8M0] = { [TL_DT_FLOAT32] = cvt_e8m0_f32, [TL_DT_BFLOAT16] = cvt_e8m0_bf16 },
    },
    .cmp = { cmp_f32, cmp_f64, cmp_bytes },
    .unpack4 = { unpack_u4, unpack_s4 },
    .pack4 = { pack_u4, pack_s4 },
    .nibpair = nibpair,
    .gq = { tl_gq4_scalar, tl_gq8_scalar },
    .gq_bf16 = { tl_gq4_bf16_scalar, tl_gq8_bf16_scalar },
    .gq4_bf16_groups = tl_gq4g_bf16_scalar,
    .awq8 = tl_awq8_scalar,
    .dequant = TL_DEQUANT_SCALAR,
    .mx4 = tl_mx4_scalar,
    .mx4_bf16 = tl_mx4_bf16_scalar,
    .fp8s_bf16 = tl_fp8s_bf16_scalar,
};
