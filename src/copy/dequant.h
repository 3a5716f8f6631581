/*
 * dequant.h - the decoders of ggml's block types (dequant.c): each writes
 * the FLOAT32 values of nb blocks at x to y (nb times the type's block of
 * elements), as ggml's to_float does.  The kernel table's dequant slots
 * are indexed by ggml's type number; TL_DEQUANT_SCALAR lists the scalar
 * ones for kern_scalar.c's table.
 */
#ifndef TL_DEQUANT_H
#define TL_DEQUANT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TL_DQ(name) void tl_dq_##name(const uint8_t *x, float *y, size_t nb);
#define TL_DQ_TYPES(X)                                                                     \
    X(q4_0, 2) X(q4_1, 3) X(q5_0, 6) X(q5_1, 7) X(q8_0, 8) X(q2_k, 10)          \
    X(q3_k, 11) X(q4_k, 12) X(q5_k, 13) X(q6_k, 14) X(iq4_nl, 20)              \
    X(iq4_xs, 23) X(tq1_0, 34) X(tq2_0, 35) X(mxfp4, 39) X(q1_0, 41) X(q2_0, 42)
#define TL_DQ_DECLARE(name, id) TL_DQ(name)
TL_DQ_TYPES(TL_DQ_DECLARE)
#undef TL_DQ_DECLARE

/* The scalar slots: { [2] = tl_dq_q4_0, ... }. */
#define TL_DQ_SLOT(name, id) [id] = tl_dq_##name,
#define TL_DEQUANT_SCALAR { TL_DQ_TYPES(TL_DQ_SLOT) }

/* The AVX2 decoders (dequant_avx2.c), for the types whose blocks vectorize. */
#define TL_DQ_AVX2_TYPES(X)                                                                \
    X(q4_0, 2) X(q4_1, 3) X(q5_0, 6) X(q5_1, 7) X(q8_0, 8) X(q2_k, 10) X(q3_k, 11)         \
    X(q4_k, 12) X(q5_k, 13) X(q6_k, 14) X(iq4_nl, 20) X(iq4_xs, 23) X(tq2_0, 35) X(mxfp4, 39)
#define TL_DQ_AVX2_DECLARE(name, id) void tl_dq_avx2_##name(const uint8_t *x, float *y, size_t nb);
TL_DQ_AVX2_TYPES(TL_DQ_AVX2_DECLARE)
#undef TL_DQ_AVX2_DECLARE
#define TL_DQ_AVX2_SLOT(name, id) [id] = tl_dq_avx2_##name,
#define TL_DEQUANT_AVX2 { TL_DQ_AVX2_TYPES(TL_DQ_AVX2_SLOT) }

/* The AVX-512 decoders (dequant_avx512.c), for the simplest types; the
 * others keep AVX2's. */
#define TL_DQ_AVX512_TYPES(X) X(q4_0, 2) X(q8_0, 8) X(iq4_nl, 20) X(mxfp4, 39)
#define TL_DQ_AVX512_DECLARE(name, id) \
    void tl_dq_avx512_##name(const uint8_t *x, float *y, size_t nb);
TL_DQ_AVX512_TYPES(TL_DQ_AVX512_DECLARE)
#undef TL_DQ_AVX512_DECLARE
#define TL_DQ_AVX512_SLOT(name, id) [id] = tl_dq_avx512_##name,
#define TL_DEQUANT_AVX512 { TL_DQ_AVX512_TYPES(TL_DQ_AVX512_SLOT) }

/* The NEON decoders (dequant_neon.c). */
#define TL_DQ_NEON_TYPES(X)                                                                \
    X(q4_0, 2) X(q8_0, 8) X(q4_k, 12) X(q6_k, 14) X(iq4_nl, 20) X(mxfp4, 39)
#define TL_DQ_NEON_DECLARE(name, id) void tl_dq_neon_##name(const uint8_t *x, float *y, size_t nb);
TL_DQ_NEON_TYPES(TL_DQ_NEON_DECLARE)
#undef TL_DQ_NEON_DECLARE
#define TL_DQ_NEON_SLOT(name, id) [id] = tl_dq_neon_##name,
#define TL_DEQUANT_NEON { TL_DQ_NEON_TYPES(TL_DQ_NEON_SLOT) }

/* OCP MXFP4 in gpt-oss's pair of tensors (copy.h, the mx4 slot): the
 * scalar twin and the SIMD versions. */
void tl_mx4_scalar(const uint8_t *q, const uint8_t *e, float *y, size_t nb);
void tl_mx4_avx2(const uint8_t *q, const uint8_t *e, float *y, size_t nb);
void tl_mx4_neon(const uint8_t *q, const uint8_t *e, float *y, size_t nb);
void tl_mx4_bf16_scalar(const uint8_t *q, const uint8_t *e, uint8_t *y, size_t nb);
/* Group-quantized codes (copy.h, the gq slots): 4 and 8 bits. */
void tl_gq4_scalar(const uint8_t *q, size_t n, int32_t zero, float scale, float *y);
void tl_gq8_scalar(const uint8_t *q, size_t n, int32_t zero, float scale, float *y);
void tl_gq4_avx2(const uint8_t *q, size_t n, int32_t zero, float scale, float *y);
void tl_gq8_avx2(const uint8_t *q, size_t n, int32_t zero, float scale, float *y);
void tl_gq4_avx512(const uint8_t *q, size_t n, int32_t zero, float scale, float *y);
void tl_gq4_bf16_scalar(const uint8_t *q, size_t n, int32_t zero, float scale, uint8_t *y);
void tl_gq8_bf16_scalar(const uint8_t *q, size_t n, int32_t zero, float scale, uint8_t *y);
void tl_gq4_bf16_avx2(const uint8_t *q, size_t n, int32_t zero, float scale, uint8_t *y);
void tl_gq8_bf16_avx2(const uint8_t *q, size_t n, int32_t zero, float scale, uint8_t *y);
void tl_gq4_bf16_avx512(const uint8_t *q, size_t n, int32_t zero, float scale, uint8_t *y);
void tl_gq8_bf16_avx512(const uint8_t *q, size_t n, int32_t zero, float scale, uint8_t *y);
void tl_gq8_avx512(const uint8_t *q, size_t n, int32_t zero, float scale, float *y);
/* Runs of 4-bit codes to BFLOAT16 (copy.h, the gq4_bf16_groups slot). */
void tl_gq4g_bf16_scalar(const uint8_t *q, size_t ngroups, size_t glen, const int32_t *zero,
                         const float *scale, uint8_t *y, bool stream);
void tl_gq4g_bf16_avx2(const uint8_t *q, size_t ngroups, size_t glen, const int32_t *zero,
                       const float *scale, uint8_t *y, bool stream);
void tl_gq4g_bf16_avx512(const uint8_t *q, size_t ngroups, size_t glen, const int32_t *zero,
                         const float *scale, uint8_t *y, bool stream);
/* AWQ's words as rows of codes (copy.h, the awq8 slot). */
void tl_awq8_scalar(const uint8_t *src, size_t stride, size_t ncol, const uint8_t place[8],
                    uint32_t *dst, size_t dstride);
void tl_awq8_avx2(const uint8_t *src, size_t stride, size_t ncol, const uint8_t place[8],
                  uint32_t *dst, size_t dstride);
void tl_awq8_avx512(const uint8_t *src, size_t stride, size_t ncol, const uint8_t place[8],
                    uint32_t *dst, size_t dstride);
void tl_fp8s_bf16_scalar(const uint8_t *c, const uint8_t *t, float scale, uint8_t *y,
                         size_t n);

/* A scale's table for FLOAT8E4M3 x scale as BFLOAT16 by lookup: every code
 * of magnitude m x 2^k (m in 1, 1.125, ..., 1.875, a subnormal code's
 * too) gives BFLOAT16(FLOAT32(m x scale)) with k added to its exponent
 * field, exact while every product stays a normal number.  t[key] and
 * t[16 + key] are the low and high bytes of the value for key = the
 * code's 3 mantissa bits, + 8 for a subnormal code, less 7 in the exponent
 * field (the code's exponent field added later); @return false (no table)
 * for a scale where a product could be subnormal or past BFLOAT16's
 * range, or a scale that is not a normal number. */
bool tl_fp8s_table(float scale, uint8_t t[32]);

/* Block scale's table for the fp8s_lut kernels: each code's value times
 * scale, rounded to BFLOAT16, as tl_fp8s_bf16_scalar() gives it (the
 * products by the CPU's FLOAT32 -> BFLOAT16 kernel), and its nibble tables
 * where they hold (copy.h).  @return false (no table) for a scale that is
 * not finite, or should a code's low byte depend on its sign. */
struct tl_fp8s_lut;             /* copy.h */
bool tl_fp8s_lut_make(float scale, struct tl_fp8s_lut *lut);
/* n codes at c by lut's 256 results, a code at a time, BFLOAT16 at y: what
 * the fp8s_lut kernels do where a block has no nibble tables. */
void tl_fp8s_lut_codes(const uint8_t *c, const struct tl_fp8s_lut *lut, uint8_t *y, size_t n);

/* The fp8s_lut kernel of a CPU with AVX-512 VBMI (kern_avx512.c; AVX2's
 * and AVX-512BW's are in their tables). */
void tl_fp8s_lut_vbmi(const uint8_t *c, const struct tl_fp8s_lut *lut, size_t in, uint8_t *y,
                      size_t n, bool stream);

/* The tables the decoders share with their SIMD versions. */
/* FLOAT4E2M1's 16 values as 16-bit floats, a byte at a time for lookups:
 * BFLOAT16's low and high bytes, FLOAT16's high byte (its low one is 0). */
extern const uint8_t tl_fp4_bf16_lo[16], tl_fp4_bf16_hi[16], tl_fp4_f16_hi[16];
extern const int8_t tl_iq4nl_values[16];
extern const int8_t tl_mxfp4_values[16];

/* The 6-bit scale and min of sub-block j of a Q4_K or Q5_K block, from
 * its 12 bytes of scales q (every decoder of those types reads them so). */
static inline void tl_dq_scale_min_k4(int j, const uint8_t *q, uint8_t *d, uint8_t *m)
{
    if (j < 4) {
        *d = q[j] & 63;
        *m = q[j + 4] & 63;
    } else {
        *d = (uint8_t)((q[j + 4] & 0xf) | ((q[j - 4] >> 6) << 4));
        *m = (uint8_t)((q[j + 4] >> 4) | ((q[j] >> 6) << 4));
    }
}

/* E8M0's scale, halved (ggml's GGML_E8M0_TO_FP32_HALF). */
float tl_e8m0_half(uint8_t e);

#endif
