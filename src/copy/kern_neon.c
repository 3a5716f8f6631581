/*
 * kern_neon.c - NEON kernels for AArch64, where NEON is the baseline:
 * transposes of 16x16 bytes, 8x8 16-bit, 4x4 32-bit and 2x2 64-bit blocks
 * (zip1/zip2 are the unpack-low/high of the SSE2 networks), fills, and
 * 2-, 3- and 4-channel (de)interleaves of every element size with the
 * structure loads and stores vld2/3/4 and vst2/3/4.  AArch64 has no
 * streaming vector store worth the name, so the _nt slots are the same
 * kernels.  Tested on x86-64 hosts under qemu-aarch64 (make test-neon).
 */
#include <arm_neon.h>

#include "dequant.h"
#include "kern_drivers.h"

#define LD8(p) vld1q_u8((const uint8_t *)(p))
#define ST8(p, v) vst1q_u8((uint8_t *)(p), (v))

TL_BLOCK void block_w1(const uint8_t *src, size_t ss, uint8_t *dst, size_t ds)
{
    uint8x16_t r[16];
    uint16x8_t a[16];
    uint32x4_t b[4][4];
    uint64x2_t c[2][8];
    TL_UNROLL
    for (int i = 0; i < 16; i++)
        r[i] = LD8(src + i * ss);
    TL_UNROLL
    for (int p = 0; p < 8; p++) {
        a[2 * p] = vreinterpretq_u16_u8(vzip1q_u8(r[2 * p], r[2 * p + 1]));
        a[2 * p + 1] = vreinterpretq_u16_u8(vzip2q_u8(r[2 * p], r[2 * p + 1]));
    }
    TL_UNROLL
    for (int g = 0; g < 4; g++) {
        b[g][0] = vreinterpretq_u32_u16(vzip1q_u16(a[4 * g], a[4 * g + 2]));
        b[g][1] = vreinterpretq_u32_u16(vzip2q_u16(a[4 * g], a[4 * g + 2]));
        b[g][2] = vreinterpretq_u32_u16(vzip1q_u16(a[4 * g + 1], a[4 * g + 3]));
        b[g][3] = vreinterpretq_u32_u16(vzip2q_u16(a[4 * g + 1], a[4 * g + 3]));
    }
    TL_UNROLL
    for (int h = 0; h < 2; h++) {
        TL_UNROLL
        for (int q = 0; q < 4; q++) {
            c[h][2 * q] = vreinterpretq_u64_u32(vzip1q_u32(b[2 * h][q], b[2 * h + 1][q]));
            c[h][2 * q + 1] = vreinterpretq_u64_u32(vzip2q_u32(b[2 * h][q], b[2 * h + 1][q]));
        }
    }
    TL_UNROLL
    for (int m = 0; m < 8; m++) {
        ST8(dst + (2 * m) * ds, vreinterpretq_u8_u64(vzip1q_u64(c[0][m], c[1][m])));
        ST8(dst + (2 * m + 1) * ds, vreinterpretq_u8_u64(vzip2q_u64(c[0][m], c[1][m])));
    }
}

TL_BLOCK void block_w2(const uint8_t *src, size_t ss, uint8_t *dst, size_t ds)
{
    uint16x8_t r[8];
    uint32x4_t t[8];
    uint64x2_t u[8];
    TL_UNROLL
    for (int i = 0; i < 8; i++)
        r[i] = vld1q_u16((const uint16_t *)(const void *)(src + i * ss));
    TL_UNROLL
    for (int p = 0; p < 4; p++) {
        t[2 * p] = vreinterpretq_u32_u16(vzip1q_u16(r[2 * p], r[2 * p + 1]));
        t[2 * p + 1] = vreinterpretq_u32_u16(vzip2q_u16(r[2 * p], r[2 * p + 1]));
    }
    TL_UNROLL
    for (int h = 0; h < 2; h++) {
        u[4 * h + 0] = vreinterpretq_u64_u32(vzip1q_u32(t[4 * h], t[4 * h + 2]));
        u[4 * h + 1] = vreinterpretq_u64_u32(vzip2q_u32(t[4 * h], t[4 * h + 2]));
        u[4 * h + 2] = vreinterpretq_u64_u32(vzip1q_u32(t[4 * h + 1], t[4 * h + 3]));
        u[4 * h + 3] = vreinterpretq_u64_u32(vzip2q_u32(t[4 * h + 1], t[4 * h + 3]));
    }
    TL_UNROLL
    for (int m = 0; m < 4; m++) {
        vst1q_u64((uint64_t *)(void *)(dst + (2 * m) * ds), vzip1q_u64(u[m], u[4 + m]));
        vst1q_u64((uint64_t *)(void *)(dst + (2 * m + 1) * ds), vzip2q_u64(u[m], u[4 + m]));
    }
}

TL_BLOCK void block_w4(const uint8_t *src, size_t ss, uint8_t *dst, size_t ds)
{
    uint32x4_t r0 = vld1q_u32((const uint32_t *)(const void *)src);
    uint32x4_t r1 = vld1q_u32((const uint32_t *)(const void *)(src + ss));
    uint32x4_t r2 = vld1q_u32((const uint32_t *)(const void *)(src + 2 * ss));
    uint32x4_t r3 = vld1q_u32((const uint32_t *)(const void *)(src + 3 * ss));
    uint64x2_t t0 = vreinterpretq_u64_u32(vzip1q_u32(r0, r1));   /* r0[0] r1[0] r0[1] r1[1] */
    uint64x2_t t1 = vreinterpretq_u64_u32(vzip2q_u32(r0, r1));   /* r0[2] r1[2] r0[3] r1[3] */
    uint64x2_t t2 = vreinterpretq_u64_u32(vzip1q_u32(r2, r3));
    uint64x2_t t3 = vreinterpretq_u64_u32(vzip2q_u32(r2, r3));
    vst1q_u64((uint64_t *)(void *)dst, vzip1q_u64(t0, t2));
    vst1q_u64((uint64_t *)(void *)(dst + ds), vzip2q_u64(t0, t2));
    vst1q_u64((uint64_t *)(void *)(dst + 2 * ds), vzip1q_u64(t1, t3));
    vst1q_u64((uint64_t *)(void *)(dst + 3 * ds), vzip2q_u64(t1, t3));
}

TL_BLOCK void block_w8(const uint8_t *src, size_t ss, uint8_t *dst, size_t ds)
{
    uint64x2_t r0 = vld1q_u64((const uint64_t *)(const void *)src);
    uint64x2_t r1 = vld1q_u64((const uint64_t *)(const void *)(src + ss));
    vst1q_u64((uint64_t *)(void *)dst, vzip1q_u64(r0, r1));
    vst1q_u64((uint64_t *)(void *)(dst + ds), vzip2q_u64(r0, r1));
}

TL_DEFINE_TRANSPOSE(transpose_w1, 1, 16, block_w1)
TL_DEFINE_TRANSPOSE(transpose_w2, 2, 8, block_w2)
TL_DEFINE_TRANSPOSE(transpose_w4, 4, 4, block_w4)
TL_DEFINE_TRANSPOSE(transpose_w8, 8, 2, block_w8)

#define SET1_8(x) vdupq_n_u8(x)
#define SET1_16(x) vreinterpretq_u8_u16(vdupq_n_u16(x))
#define SET1_32(x) vreinterpretq_u8_u32(vdupq_n_u32(x))
#define SET1_64(x) vreinterpretq_u8_u64(vdupq_n_u64(x))
TL_DEFINE_FILLS(neon, uint8x16_t, 16, ST8, SET1_8, SET1_16, SET1_32, SET1_64)

/* (De)interleaves with structure loads and stores: C planes of one vector
 * each <-> C-element pixels, L lanes a step. */
#define DEFINE_INTERLEAVE(C, W, T, L, X)                                                     \
    static void interleave_c##C##_w##W(const uint8_t *src, size_t plane, uint8_t *dst,     \
                                       size_t n)                                            \
    {                                                                                       \
        size_t i = 0;                                                                       \
        for (; i + (L) <= n; i += (L)) {                                                    \
            T##x##L##x##C##_t v;                                                            \
            for (int k = 0; k < (C); k++)                                                   \
                v.val[k] = vld1q_##X((const T##_t *)(const void *)(src + k * plane + i * (W))); \
            vst##C##q_##X((T##_t *)(void *)(dst + i * (C) * (W)), v);                       \
        }                                                                                   \
        tl_interleave_scalar_es(src + i * (W), plane, dst + i * (C) * (W), n - i, C, W);    \
    }                                                                                       \
    static void deinterleave_c##C##_w##W(const uint8_t *src, uint8_t *dst, size_t plane,   \
                                         size_t n)                                          \
    {                                                                                       \
        size_t i = 0;                                                                       \
        for (; i + (L) <= n; i += (L)) {                                                    \
            T##x##L##x##C##_t v = vld##C##q_##X((const T##_t *)(const void *)(src + i * (C) * (W))); \
            for (int k = 0; k < (C); k++)                                                   \
                vst1q_##X((T##_t *)(void *)(dst + k * plane + i * (W)), v.val[k]);          \
        }                                                                                   \
        tl_deinterleave_scalar_es(src + i * (C) * (W), dst + i * (W), plane, n - i, C, W);  \
    }

#define DEFINE_ALL_C(W, T, L, X) \
    DEFINE_INTERLEAVE(2, W, T, L, X) DEFINE_INTERLEAVE(3, W, T, L, X) DEFINE_INTERLEAVE(4, W, T, L, X)
DEFINE_ALL_C(1, uint8, 16, u8)
DEFINE_ALL_C(2, uint16, 8, u16)
DEFINE_ALL_C(4, uint32, 4, u32)
DEFINE_ALL_C(8, uint64, 2, u64)

/* ---- conversions -----------------------------------------------------------
 * FLOAT32 <-> FLOAT16 with FCVTN/FCVTL (AArch64's baseline; NaNs are
 * quieted with the top of their payload, as the scalar converter does),
 * BFLOAT16 by integer rounding, the byte types through 32-bit lanes.
 * Tails go to the scalar converter. */

/* Overflow (copy.h): big keeps the largest finite magnitude's bits seen. */
static inline uint32x4_t keep_big(uint32x4_t big, uint32x4_t x)
{
    uint32x4_t a = vandq_u32(x, vdupq_n_u32(0x7fffffff));
    return vmaxq_u32(big, vandq_u32(a, vcltq_u32(a, vdupq_n_u32(0x7f800000))));
}

static bool cvt_f32_f16(const uint8_t *src, uint8_t *dst, size_t n)
{
    size_t i = 0;
    uint32x4_t big = vdupq_n_u32(0);
    for (; i + 4 <= n; i += 4) {
        uint32x4_t x = vld1q_u32((const uint32_t *)(const void *)(src + 4 * i));
        big = keep_big(big, x);
        float16x4_t h = vcvt_f16_f32(vreinterpretq_f32_u32(x));
        vst1_u16((uint16_t *)(void *)(dst + 2 * i), vreinterpret_u16_f16(h));
    }
    bool bad = vmaxvq_u32(big) >= TL_OVF_F16;
    return tl_cvt_scalar(TL_DT_FLOAT32, TL_DT_FLOAT16, src + 4 * i, dst + 2 * i, n - i) || bad;
}

static bool cvt_f16_f32(const uint8_t *src, uint8_t *dst, size_t n)
{
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        float16x4_t h = vreinterpret_f16_u16(vld1_u16((const uint16_t *)(const void *)(src + 2 * i)));
        vst1q_f32((float *)(void *)(dst + 4 * i), vcvt_f32_f16(h));
    }
    return tl_cvt_scalar(TL_DT_FLOAT16, TL_DT_FLOAT32, src + 2 * i, dst + 4 * i, n - i);
}

static bool cvt_f32_bf16(const uint8_t *src, uint8_t *dst, size_t n)
{
    size_t i = 0;
    uint32x4_t big = vdupq_n_u32(0);
    for (; i + 4 <= n; i += 4) {
        uint32x4_t x = vld1q_u32((const uint32_t *)(const void *)(src + 4 * i));
        big = keep_big(big, x);
        uint32x4_t nan = vcgtq_u32(vandq_u32(x, vdupq_n_u32(0x7fffffff)), vdupq_n_u32(0x7f800000));
        uint32x4_t odd = vandq_u32(vshrq_n_u32(x, 16), vdupq_n_u32(1));
        uint32x4_t r = vshrq_n_u32(vaddq_u32(vaddq_u32(x, vdupq_n_u32(0x7fff)), odd), 16);
        uint32x4_t q = vorrq_u32(vshrq_n_u32(x, 16), vdupq_n_u32(0x40));
        vst1_u16((uint16_t *)(void *)(dst + 2 * i), vmovn_u32(vbslq_u32(nan, q, r)));
    }
    bool bad = vmaxvq_u32(big) >= TL_OVF_BF16;
    return tl_cvt_scalar(TL_DT_FLOAT32, TL_DT_BFLOAT16, src + 4 * i, dst + 2 * i, n - i) || bad;
}

static bool cvt_bf16_f32(const uint8_t *src, uint8_t *dst, size_t n)
{
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        uint32x4_t x = vshll_n_u16(vld1_u16((const uint16_t *)(const void *)(src + 2 * i)), 16);
        uint32x4_t nan = vcgtq_u32(vandq_u32(x, vdupq_n_u32(0x7fffffff)), vdupq_n_u32(0x7f800000));
        x = vorrq_u32(x, vandq_u32(nan, vdupq_n_u32(0x00400000)));     /* quiet */
        vst1q_u32((uint32_t *)(void *)(dst + 4 * i), x);
    }
    return tl_cvt_scalar(TL_DT_BFLOAT16, TL_DT_FLOAT32, src + 2 * i, dst + 4 * i, n - i);
}

/* 8 bytes as two vectors of 4 floats. */
static inline void bytes_f32x8(const uint8_t *p, bool sign, float32x4_t out[2])
{
    if (sign) {
        int16x8_t w = vmovl_s8(vld1_s8((const int8_t *)p));
        out[0] = vcvtq_f32_s32(vmovl_s16(vget_low_s16(w)));
        out[1] = vcvtq_f32_s32(vmovl_s16(vget_high_s16(w)));
    } else {
        uint16x8_t w = vmovl_u8(vld1_u8(p));
        out[0] = vcvtq_f32_u32(vmovl_u16(vget_low_u16(w)));
        out[1] = vcvtq_f32_u32(vmovl_u16(vget_high_u16(w)));
    }
}

#define DEFINE_cvt_byte(NAME, SDT, SIGN, DDT, DES, STORE)                                   \
static bool NAME(const uint8_t *src, uint8_t *dst, size_t n)                                \
{                                                                                           \
    size_t i = 0;                                                                           \
    for (; i + 8 <= n; i += 8) {                                                            \
        float32x4_t v[2];                                                                   \
        bytes_f32x8(src + i, SIGN, v);                                                      \
        for (int k = 0; k < 2; k++)                                                         \
            STORE;                                                                          \
    }                                                                                       \
    return tl_cvt_scalar(SDT, DDT, src + i, dst + DES * i, n - i);                          \
}
DEFINE_cvt_byte(cvt_u8_f32, TL_DT_UINT8, false, TL_DT_FLOAT32, 4,
                vst1q_f32((float *)(void *)(dst + 4 * i + 16 * k), v[k]))
DEFINE_cvt_byte(cvt_i8_f32, TL_DT_INT8, true, TL_DT_FLOAT32, 4,
                vst1q_f32((float *)(void *)(dst + 4 * i + 16 * k), v[k]))
DEFINE_cvt_byte(cvt_u8_f16, TL_DT_UINT8, false, TL_DT_FLOAT16, 2,
                vst1_u16((uint16_t *)(void *)(dst + 2 * i + 8 * k), vreinterpret_u16_f16(vcvt_f16_f32(v[k]))))
DEFINE_cvt_byte(cvt_i8_f16, TL_DT_INT8, true, TL_DT_FLOAT16, 2,
                vst1_u16((uint16_t *)(void *)(dst + 2 * i + 8 * k), vreinterpret_u16_f16(vcvt_f16_f32(v[k]))))

static inline bool f32_bytes(const uint8_t *src, uint8_t *dst, size_t n, float lo, float hi,
                             bool sign, enum tl_dtype ddt)
{
    const float32x4_t vlo = vdupq_n_f32(lo), vhi = vdupq_n_f32(hi);
    const float32x4_t below = vdupq_n_f32(lo - 1), above = vdupq_n_f32(hi + 1);
    uint32x4_t ok = vdupq_n_u32(~0u);
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        int32x4_t x[2];
        for (int k = 0; k < 2; k++) {
            float32x4_t v = vld1q_f32((const float *)(const void *)(src + 4 * i + 16 * k));
            ok = vandq_u32(ok, vandq_u32(vcgtq_f32(v, below), vcltq_f32(v, above)));
            v = vreinterpretq_f32_u32(vandq_u32(vreinterpretq_u32_f32(v), vceqq_f32(v, v)));
            x[k] = vcvtq_s32_f32(vminq_f32(vmaxq_f32(v, vlo), vhi));   /* toward zero */
        }
        int16x8_t w = vcombine_s16(vmovn_s32(x[0]), vmovn_s32(x[1]));
        if (sign)
            vst1_s8((int8_t *)(dst + i), vmovn_s16(w));
        else
            vst1_u8(dst + i, vmovn_u16(vreinterpretq_u16_s16(w)));
    }
    bool bad = vminvq_u32(ok) == 0;
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

/* ---- 8-bit floats (SPEC 18) ----------------------------------------------
 * As kern_avx2.c's: each code in a 16-bit lane, its exponent and mantissa
 * shifted into a 16-bit float's and rebiased, the subnormal codes looked
 * up (low bytes of the results at sub[m], high bytes at sub[m + 8]), then
 * the sign, infinities and NaNs (every NaN the positive quiet NaN, as the
 * scalar converter's).  FLOAT32 is the BFLOAT16 widened: every value of
 * these types is a BFLOAT16. */
static inline uint16x8_t fp8_16(uint16x8_t w, int16_t shift, uint16_t bias, uint8x16_t sub,
                                uint16_t lim)
{
    uint16x8_t mag = vandq_u16(w, vdupq_n_u16(0x7f));
    uint16x8_t x = vaddq_u16(vshlq_u16(mag, vdupq_n_s16(shift)), vdupq_n_u16(bias));
    uint16x8_t idx = vaddq_u16(vorrq_u16(mag, vshlq_n_u16(mag, 8)), vdupq_n_u16(0x0800));
    uint16x8_t tiny = vreinterpretq_u16_u8(vqtbl1q_u8(sub, vreinterpretq_u8_u16(idx)));
    x = vbslq_u16(vcltq_u16(mag, vdupq_n_u16(lim)), tiny, x);
    return vorrq_u16(x, vshlq_n_u16(vandq_u16(w, vdupq_n_u16(0x80)), 8));
}

static inline uint16x8_t e4m3_16(uint16x8_t w, bool bf16)
{
    static const uint8_t sub_bf[16] = { 0, 0, 0x80, 0xc0, 0, 0x20, 0x40, 0x60,
                                        0, 0x3b, 0x3b, 0x3b, 0x3c, 0x3c, 0x3c, 0x3c };
    static const uint8_t sub_h[16] = { 0, 0, 0, 0, 0, 0, 0, 0,
                                       0, 0x18, 0x1c, 0x1e, 0x20, 0x21, 0x22, 0x23 };
    uint16x8_t x = bf16 ? fp8_16(w, 4, 120 << 7, vld1q_u8(sub_bf), 8)
                        : fp8_16(w, 7, 8 << 10, vld1q_u8(sub_h), 8);
    uint16x8_t nan = vceqq_u16(vandq_u16(w, vdupq_n_u16(0x7f)), vdupq_n_u16(0x7f));
    return vbslq_u16(nan, vdupq_n_u16(bf16 ? 0x7fc0 : 0x7e00), x);
}

static inline uint16x8_t e4m3_bf16(uint16x8_t w) { return e4m3_16(w, true); }
static inline uint16x8_t e4m3_f16(uint16x8_t w) { return e4m3_16(w, false); }

static inline uint16x8_t e5m2_bf16(uint16x8_t w)
{
    static const uint8_t sub[16] = { 0, 0x80, 0, 0x40, 0, 0, 0, 0,
                                     0, 0x37, 0x38, 0x38, 0, 0, 0, 0 };
    uint16x8_t x = fp8_16(w, 5, 112 << 7, vld1q_u8(sub), 4);
    uint16x8_t mag = vandq_u16(w, vdupq_n_u16(0x7f));
    x = vbslq_u16(vceqq_u16(mag, vdupq_n_u16(0x7c)),
                  vorrq_u16(vandq_u16(x, vdupq_n_u16(0x8000)), vdupq_n_u16(0x7f80)), x);
    return vbslq_u16(vcgtq_u16(mag, vdupq_n_u16(0x7c)), vdupq_n_u16(0x7fc0), x);
}

static inline uint16x8_t e5m2_f16(uint16x8_t w)
{
    uint16x8_t x = vshlq_n_u16(w, 8);
    uint16x8_t nan = vcgtq_u16(vandq_u16(x, vdupq_n_u16(0x7fff)), vdupq_n_u16(0x7c00));
    return vbslq_u16(nan, vdupq_n_u16(0x7e00), x);
}

static inline uint16x8_t e8m0_bf16(uint16x8_t w)
{
    uint16x8_t x = vshlq_n_u16(w, 7);
    x = vbslq_u16(vceqq_u16(w, vdupq_n_u16(0)), vdupq_n_u16(0x0040), x);
    return vbslq_u16(vceqq_u16(w, vdupq_n_u16(0xff)), vdupq_n_u16(0x7fc0), x);
}

#define DEFINE_cvt_fp8_16(NAME, SDT, DDT, F)                                                \
static bool NAME(const uint8_t *src, uint8_t *dst, size_t n)                               \
{                                                                                          \
    size_t i = 0;                                                                          \
    for (; i + 16 <= n; i += 16) {                                                         \
        uint8x16_t c = vld1q_u8(src + i);                                                  \
        vst1q_u16((uint16_t *)(void *)(dst + 2 * i), F(vmovl_u8(vget_low_u8(c))));         \
        vst1q_u16((uint16_t *)(void *)(dst + 2 * i + 16), F(vmovl_u8(vget_high_u8(c))));   \
    }                                                                                      \
    return tl_cvt_scalar(SDT, DDT, src + i, dst + 2 * i, n - i);                           \
}
DEFINE_cvt_fp8_16(cvt_e4m3_bf16, TL_DT_FLOAT8E4M3, TL_DT_BFLOAT16, e4m3_bf16)
DEFINE_cvt_fp8_16(cvt_e4m3_f16, TL_DT_FLOAT8E4M3, TL_DT_FLOAT16, e4m3_f16)
DEFINE_cvt_fp8_16(cvt_e5m2_bf16, TL_DT_FLOAT8E5M2, TL_DT_BFLOAT16, e5m2_bf16)
DEFINE_cvt_fp8_16(cvt_e5m2_f16, TL_DT_FLOAT8E5M2, TL_DT_FLOAT16, e5m2_f16)
DEFINE_cvt_fp8_16(cvt_e8m0_bf16, TL_DT_FLOAT8E8M0, TL_DT_BFLOAT16, e8m0_bf16)

#define DEFINE_cvt_fp8_f32(NAME, SDT, F)                                                    \
static bool NAME(const uint8_t *src, uint8_t *dst, size_t n)                               \
{                                                                                          \
    size_t i = 0;                                                                          \
    for (; i + 16 <= n; i += 16) {                                                         \
        uint8x16_t c = vld1q_u8(src + i);                                                  \
        uint16x8_t b[2] = { F(vmovl_u8(vget_low_u8(c))), F(vmovl_u8(vget_high_u8(c))) };   \
        uint32_t *d = (uint32_t *)(void *)(dst + 4 * i);                                   \
        for (int k = 0; k < 2; k++) {                                                      \
            vst1q_u32(d + 8 * k, vshll_n_u16(vget_low_u16(b[k]), 16));                     \
            vst1q_u32(d + 8 * k + 4, vshll_n_u16(vget_high_u16(b[k]), 16));                \
        }                                                                                  \
    }                                                                                      \
    return tl_cvt_scalar(SDT, TL_DT_FLOAT32, src + i, dst + 4 * i, n - i);                 \
}
DEFINE_cvt_fp8_f32(cvt_e4m3_f32, TL_DT_FLOAT8E4M3, e4m3_bf16)
DEFINE_cvt_fp8_f32(cvt_e5m2_f32, TL_DT_FLOAT8E5M2, e5m2_bf16)
DEFINE_cvt_fp8_f32(cvt_e8m0_f32, TL_DT_FLOAT8E8M0, e8m0_bf16)

/* FLOAT4E2M1, a code a byte (plan.c's 4-bit staging): its 16 values are
 * exact in every wider float; their 16-bit forms looked up a byte at a
 * time (dequant.c's tl_fp4_* tables), FLOAT32 as
 * BFLOAT16 shifted up.  A byte's high nibble is ignored, as the scalar
 * converter ignores it. */

static inline uint16x8_t fp4_bf16(uint16x8_t w)
{
    uint8x8_t c = vand_u8(vmovn_u16(w), vdup_n_u8(0x0f));
    return vorrq_u16(vmovl_u8(vqtbl1_u8(vld1q_u8(tl_fp4_bf16_lo), c)),
                     vshll_n_u8(vqtbl1_u8(vld1q_u8(tl_fp4_bf16_hi), c), 8));
}

static inline uint16x8_t fp4_f16(uint16x8_t w)
{
    uint8x8_t c = vand_u8(vmovn_u16(w), vdup_n_u8(0x0f));
    return vshll_n_u8(vqtbl1_u8(vld1q_u8(tl_fp4_f16_hi), c), 8);
}

DEFINE_cvt_fp8_16(cvt_fp4_bf16, TL_DT_FLOAT4E2M1, TL_DT_BFLOAT16, fp4_bf16)
DEFINE_cvt_fp8_16(cvt_fp4_f16, TL_DT_FLOAT4E2M1, TL_DT_FLOAT16, fp4_f16)
DEFINE_cvt_fp8_f32(cvt_fp4_f32, TL_DT_FLOAT4E2M1, fp4_bf16)

/* Scaled pairs to BFLOAT16 in one pass, as kern_avx2.c's: MXFP4 blocks by
 * FP4's BFLOAT16 values with E8M0's exponent added (exponents 2..252; a
 * block outside them goes to the twin); block FP8 by its scale's table
 * (tl_fp8s_table), 16 codes a step (no table: the twin). */
static inline uint16x8_t mx4_half(uint8x16_t lo_t, uint8x16_t hi_t, uint8x8_t c, uint16x8_t off)
{
    uint16x8_t x = vorrq_u16(vmovl_u8(vqtbl1_u8(lo_t, c)), vshll_n_u8(vqtbl1_u8(hi_t, c), 8));
    uint16x8_t nz = vtstq_u16(x, vdupq_n_u16(0x7fff));
    return vaddq_u16(x, vandq_u16(nz, off));
}

static void mx4_bf16(const uint8_t *q, const uint8_t *e, uint8_t *y, size_t nb)
{
    const uint8x16_t lo_t = vld1q_u8(tl_fp4_bf16_lo), hi_t = vld1q_u8(tl_fp4_bf16_hi);
    const uint8x16_t low = vdupq_n_u8(0x0f);
    for (size_t b = 0; b < nb; b++, q += 16, y += 64) {
        if (e[b] < 2 || e[b] > 252) {
            tl_mx4_bf16_scalar(q, e + b, y, 1);
            continue;
        }
        uint8x16_t v = vld1q_u8(q);
        uint8x16_t lo = vandq_u8(v, low), hi = vshrq_n_u8(v, 4);
        uint8x16_t c0 = vzip1q_u8(lo, hi), c1 = vzip2q_u8(lo, hi);
        uint16x8_t off = vdupq_n_u16((uint16_t)((e[b] - 127) * 128));
        uint16_t *o = (uint16_t *)(void *)y;
        vst1q_u16(o, mx4_half(lo_t, hi_t, vget_low_u8(c0), off));
        vst1q_u16(o + 8, mx4_half(lo_t, hi_t, vget_high_u8(c0), off));
        vst1q_u16(o + 16, mx4_half(lo_t, hi_t, vget_low_u8(c1), off));
        vst1q_u16(o + 24, mx4_half(lo_t, hi_t, vget_high_u8(c1), off));
    }
}

static inline uint16x8_t fp8s_8(uint8x8_t codes, uint8x16_t tlo, uint8x16_t thi, uint16x8_t zs)
{
    uint16x8_t w = vmovl_u8(codes);
    uint8x8_t e = vand_u8(vshr_n_u8(codes, 3), vdup_n_u8(15));
    uint8x8_t key = vorr_u8(vand_u8(codes, vdup_n_u8(7)),
                            vand_u8(vceq_u8(e, vdup_n_u8(0)), vdup_n_u8(8)));
    uint16x8_t x = vorrq_u16(vmovl_u8(vqtbl1_u8(tlo, key)), vshll_n_u8(vqtbl1_u8(thi, key), 8));
    x = vaddq_u16(x, vshlq_n_u16(vmovl_u8(e), 7));
    uint16x8_t mag = vandq_u16(w, vdupq_n_u16(0x7f));
    x = vbslq_u16(vceqq_u16(mag, vdupq_n_u16(0)), zs, x);
    x = veorq_u16(x, vshlq_n_u16(vandq_u16(w, vdupq_n_u16(0x80)), 8));
    return vbslq_u16(vceqq_u16(mag, vdupq_n_u16(0x7f)), vdupq_n_u16(0x7fc0), x);
}

static void fp8s_bf16(const uint8_t *c, const uint8_t *t, float scale, uint8_t *y, size_t n)
{
    size_t i = 0;
    if (t) {
        const uint8x16_t tlo = vld1q_u8(t), thi = vld1q_u8(t + 16);
        const uint16x8_t zs = vdupq_n_u16(scale < 0 ? 0x8000 : 0);
        for (; i + 16 <= n; i += 16) {
            uint8x16_t codes = vld1q_u8(c + i);
            uint16_t *o = (uint16_t *)(void *)(y + 2 * i);
            vst1q_u16(o, fp8s_8(vget_low_u8(codes), tlo, thi, zs));
            vst1q_u16(o + 8, fp8s_8(vget_high_u8(codes), tlo, thi, zs));
        }
    }
    tl_fp8s_bf16_scalar(c + i, t, scale, y + 2 * i, n - i);
}

const struct tl_kernels tl_kernels_neon = {
    .transpose = { transpose_w1, transpose_w2, transpose_w4, transpose_w8 },
    .transpose_nt = { transpose_w1, transpose_w2, transpose_w4, transpose_w8 },
    .fill = { neon_fill_w1, neon_fill_w2, neon_fill_w4, neon_fill_w8 },
    .fill_nt = { neon_fill_w1, neon_fill_w2, neon_fill_w4, neon_fill_w8 },
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
                            [TL_DT_UINT8] = cvt_f32_u8, [TL_DT_INT8] = cvt_f32_i8 },
        [TL_DT_FLOAT16] = { [TL_DT_FLOAT32] = cvt_f16_f32 },
        [TL_DT_BFLOAT16] = { [TL_DT_FLOAT32] = cvt_bf16_f32 },
        [TL_DT_UINT8] = { [TL_DT_FLOAT32] = cvt_u8_f32, [TL_DT_FLOAT16] = cvt_u8_f16 },
        [TL_DT_INT8] = { [TL_DT_FLOAT32] = cvt_i8_f32, [TL_DT_FLOAT16] = cvt_i8_f16 },
        [TL_DT_FLOAT4E2M1] = { [TL_DT_FLOAT32] = cvt_fp4_f32, [TL_DT_FLOAT16] = cvt_fp4_f16,
                               [TL_DT_BFLOAT16] = cvt_fp4_bf16 },
        [TL_DT_FLOAT8E4M3] = { [TL_DT_FLOAT32] = cvt_e4m3_f32, [TL_DT_FLOAT16] = cvt_e4m3_f16,
                               [TL_DT_BFLOAT16] = cvt_e4m3_bf16 },
        [TL_DT_FLOAT8E5M2] = { [TL_DT_FLOAT32] = cvt_e5m2_f32, [TL_DT_FLOAT16] = cvt_e5m2_f16,
                               [TL_DT_BFLOAT16] = cvt_e5m2_bf16 },
        [TL_DT_FLOAT8E8M0] = { [TL_DT_FLOAT32] = cvt_e8m0_f32, [TL_DT_BFLOAT16] = cvt_e8m0_bf16 },
    },
    .dequant = TL_DEQUANT_NEON,
    .mx4 = tl_mx4_neon,
    .mx4_bf16 = mx4_bf16,
    .fp8s_bf16 = fp8s_bf16,
};
