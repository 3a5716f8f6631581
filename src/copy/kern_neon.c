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
TL_DEFINE_FILLS(uint8x16_t, 16, ST8, SET1_8, SET1_16, SET1_32, SET1_64)

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

const struct tl_kernels tl_kernels_neon = {
    .transpose = { transpose_w1, transpose_w2, transpose_w4, transpose_w8 },
    .transpose_nt = { transpose_w1, transpose_w2, transpose_w4, transpose_w8 },
    .fill = { fill_w1, fill_w2, fill_w4, fill_w8 },
    .fill_nt = { fill_w1, fill_w2, fill_w4, fill_w8 },
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
};
