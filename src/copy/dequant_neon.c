/*
 * dequant_neon.c - ggml's block types decoded with NEON (AArch64): the
 * same integer of each element as dequant.c's twin, converted exactly,
 * then the same products and sums in the same order, never fused
 * (-ffp-contract=off), so every value is bit for bit the scalar one.
 */
#include <arm_neon.h>
#include <string.h>

#include "dequant.h"

static inline float h2f(const uint8_t *p)
{
    __fp16 h;
    memcpy(&h, p, 2);
    return (float)h;            /* exact; a NaN quieted, its payload kept */
}

/* 16 signed bytes times d: y[0..16). */
static inline void put16(float *y, int8x16_t v, float32x4_t d)
{
    int16x8_t lo = vmovl_s8(vget_low_s8(v)), hi = vmovl_s8(vget_high_s8(v));
    vst1q_f32(y, vmulq_f32(vcvtq_f32_s32(vmovl_s16(vget_low_s16(lo))), d));
    vst1q_f32(y + 4, vmulq_f32(vcvtq_f32_s32(vmovl_s16(vget_high_s16(lo))), d));
    vst1q_f32(y + 8, vmulq_f32(vcvtq_f32_s32(vmovl_s16(vget_low_s16(hi))), d));
    vst1q_f32(y + 12, vmulq_f32(vcvtq_f32_s32(vmovl_s16(vget_high_s16(hi))), d));
}

/* 16 signed bytes times d, minus m. */
static inline void put16_sub(float *y, int8x16_t v, float32x4_t d, float32x4_t m)
{
    int16x8_t lo = vmovl_s8(vget_low_s8(v)), hi = vmovl_s8(vget_high_s8(v));
    vst1q_f32(y, vsubq_f32(vmulq_f32(vcvtq_f32_s32(vmovl_s16(vget_low_s16(lo))), d), m));
    vst1q_f32(y + 4, vsubq_f32(vmulq_f32(vcvtq_f32_s32(vmovl_s16(vget_high_s16(lo))), d), m));
    vst1q_f32(y + 8, vsubq_f32(vmulq_f32(vcvtq_f32_s32(vmovl_s16(vget_low_s16(hi))), d), m));
    vst1q_f32(y + 12, vsubq_f32(vmulq_f32(vcvtq_f32_s32(vmovl_s16(vget_high_s16(hi))), d), m));
}

void tl_dq_neon_q4_0(const uint8_t *x, float *y, size_t nb)
{
    const uint8x16_t low = vdupq_n_u8(0x0f);
    const int8x16_t eight = vdupq_n_s8(8);
    for (size_t i = 0; i < nb; i++, x += 18, y += 32) {
        const float32x4_t d = vdupq_n_f32(h2f(x));
        const uint8x16_t q = vld1q_u8(x + 2);
        put16(y, vsubq_s8(vreinterpretq_s8_u8(vandq_u8(q, low)), eight), d);
        put16(y + 16, vsubq_s8(vreinterpretq_s8_u8(vshrq_n_u8(q, 4)), eight), d);
    }
}

void tl_dq_neon_q8_0(const uint8_t *x, float *y, size_t nb)
{
    for (size_t i = 0; i < nb; i++, x += 34, y += 32) {
        const float32x4_t d = vdupq_n_f32(h2f(x));
        put16(y, vld1q_s8((const int8_t *)(x + 2)), d);
        put16(y + 16, vld1q_s8((const int8_t *)(x + 18)), d);
    }
}

static inline void lookup32(float *y, const uint8_t *qs, int8x16_t table, float32x4_t d)
{
    const uint8x16_t q = vld1q_u8(qs);
    put16(y, vqtbl1q_s8(table, vandq_u8(q, vdupq_n_u8(0x0f))), d);
    put16(y + 16, vqtbl1q_s8(table, vshrq_n_u8(q, 4)), d);
}

void tl_dq_neon_iq4_nl(const uint8_t *x, float *y, size_t nb)
{
    const int8x16_t table = vld1q_s8(tl_iq4nl_values);
    for (size_t i = 0; i < nb; i++, x += 18, y += 32)
        lookup32(y, x + 2, table, vdupq_n_f32(h2f(x)));
}

void tl_dq_neon_mxfp4(const uint8_t *x, float *y, size_t nb)
{
    const int8x16_t table = vld1q_s8(tl_mxfp4_values);
    for (size_t i = 0; i < nb; i++, x += 17, y += 32)
        lookup32(y, x + 1, table, vdupq_n_f32(tl_e8m0_half(x[0])));
}

void tl_dq_neon_q4_k(const uint8_t *x, float *y, size_t nb)
{
    const uint8x16_t low = vdupq_n_u8(0x0f);
    for (size_t i = 0; i < nb; i++, x += 144) {
        const float d = h2f(x), min = h2f(x + 2);
        const uint8_t *q = x + 16;
        for (int is = 0; is < 8; is += 2, q += 32, y += 64) {
            uint8_t sc, m;
            tl_dq_scale_min_k4(is, x + 4, &sc, &m);
            const float32x4_t d1 = vdupq_n_f32(d * sc), m1 = vdupq_n_f32(min * m);
            tl_dq_scale_min_k4(is + 1, x + 4, &sc, &m);
            const float32x4_t d2 = vdupq_n_f32(d * sc), m2 = vdupq_n_f32(min * m);
            const uint8x16_t a = vld1q_u8(q), b = vld1q_u8(q + 16);
            put16_sub(y, vreinterpretq_s8_u8(vandq_u8(a, low)), d1, m1);
            put16_sub(y + 16, vreinterpretq_s8_u8(vandq_u8(b, low)), d1, m1);
            put16_sub(y + 32, vreinterpretq_s8_u8(vshrq_n_u8(a, 4)), d2, m2);
            put16_sub(y + 48, vreinterpretq_s8_u8(vshrq_n_u8(b, 4)), d2, m2);
        }
    }
}

void tl_dq_neon_q6_k(const uint8_t *x, float *y, size_t nb)
{
    const uint8x16_t low = vdupq_n_u8(0x0f), three = vdupq_n_u8(3);
    const int8x16_t bias = vdupq_n_s8(32);
    for (size_t i = 0; i < nb; i++, x += 210) {
        const float d = h2f(x + 208);
        const uint8_t *ql = x, *qh = x + 128;
        const int8_t *sc = (const int8_t *)(x + 192);
        for (int n = 0; n < 2; n++, y += 128, ql += 64, qh += 32, sc += 8) {
            for (int half = 0; half < 2; half++) {       /* l in [16 * half, 16 * half + 16) */
                const uint8x16_t a = vld1q_u8(ql + 16 * half), b = vld1q_u8(ql + 32 + 16 * half),
                                 h = vld1q_u8(qh + 16 * half);
                const int8x16_t q1 = vsubq_s8(vreinterpretq_s8_u8(vorrq_u8(vandq_u8(a, low),
                                              vshlq_n_u8(vandq_u8(h, three), 4))), bias);
                const int8x16_t q2 = vsubq_s8(vreinterpretq_s8_u8(vorrq_u8(vandq_u8(b, low),
                                              vshlq_n_u8(vandq_u8(vshrq_n_u8(h, 2), three), 4))), bias);
                const int8x16_t q3 = vsubq_s8(vreinterpretq_s8_u8(vorrq_u8(vshrq_n_u8(a, 4),
                                              vshlq_n_u8(vandq_u8(vshrq_n_u8(h, 4), three), 4))), bias);
                const int8x16_t q4 = vsubq_s8(vreinterpretq_s8_u8(vorrq_u8(vshrq_n_u8(b, 4),
                                              vshlq_n_u8(vshrq_n_u8(h, 6), 4))), bias);
                put16(y + 16 * half, q1, vdupq_n_f32(d * sc[half]));
                put16(y + 32 + 16 * half, q2, vdupq_n_f32(d * sc[half + 2]));
                put16(y + 64 + 16 * half, q3, vdupq_n_f32(d * sc[half + 4]));
                put16(y + 96 + 16 * half, q4, vdupq_n_f32(d * sc[half + 6]));
            }
        }
    }
}

/* 4 magnitudes m and signs s (0 or 1), widened: y[0..4) = +-m * d. */
static inline void e2m1x4(float *y, uint32x4_t m, uint32x4_t s, float32x4_t d)
{
    const float32x4_t v = vmulq_f32(vcvtq_f32_u32(m), d);
    vst1q_f32(y, vreinterpretq_f32_u32(vorrq_u32(vreinterpretq_u32_f32(v), vshlq_n_u32(s, 31))));
}

/* 16 codes c as E2M1 values doubled, times d: the magnitude looked up by
 * the code (the table repeats for the sign half), the sign from bit 3. */
static inline void e2m1x16(float *y, uint8x16_t c, uint8x16_t mag, float32x4_t d)
{
    const uint8x16_t m = vqtbl1q_u8(mag, c), s = vshrq_n_u8(c, 3);
    const uint16x8_t m0 = vmovl_u8(vget_low_u8(m)), m1 = vmovl_high_u8(m);
    const uint16x8_t s0 = vmovl_u8(vget_low_u8(s)), s1 = vmovl_high_u8(s);
    e2m1x4(y, vmovl_u16(vget_low_u16(m0)), vmovl_u16(vget_low_u16(s0)), d);
    e2m1x4(y + 4, vmovl_high_u16(m0), vmovl_high_u16(s0), d);
    e2m1x4(y + 8, vmovl_u16(vget_low_u16(m1)), vmovl_u16(vget_low_u16(s1)), d);
    e2m1x4(y + 12, vmovl_high_u16(m1), vmovl_high_u16(s1), d);
}

void tl_mx4_neon(const uint8_t *q, const uint8_t *e, float *y, size_t nb)
{
    static const uint8_t magnitudes[16] = { 0, 1, 2, 3, 4, 6, 8, 12, 0, 1, 2, 3, 4, 6, 8, 12 };
    const uint8x16_t mag = vld1q_u8(magnitudes), low = vdupq_n_u8(0x0f);
    for (size_t b = 0; b < nb; b++, q += 16, y += 32) {
        const float32x4_t d = vdupq_n_f32(tl_e8m0_half(e[b]));
        const uint8x16_t v = vld1q_u8(q);
        const uint8x16_t lo = vandq_u8(v, low), hi = vshrq_n_u8(v, 4);
        e2m1x16(y, vzip1q_u8(lo, hi), mag, d);
        e2m1x16(y + 16, vzip2q_u8(lo, hi), mag, d);
    }
}
