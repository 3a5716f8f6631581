/*
 * dequant_avx512.c - ggml's simplest block types decoded with AVX-512:
 * the same integer of each element as dequant.c's twin, converted
 * exactly, times the same scale (one rounding, never fused), sixteen
 * values a vector, so every value is bit for bit the scalar one.  The
 * other types keep their AVX2 decoders (the kernel table's upgrade).
 * Built with -mavx512f -mavx512bw -mavx512vl -mf16c.
 */
#include <immintrin.h>
#include <string.h>

#include "dequant.h"

static inline float h2f(const uint8_t *p)
{
    uint16_t h;
    memcpy(&h, p, 2);
    return _cvtsh_ss(h);     /* exact; a NaN quieted, its payload kept */
}

/* 16 signed bytes as 16 floats times d: y[0..16). */
static inline void put16(float *y, __m128i v, __m512 d)
{
    _mm512_storeu_ps(y, _mm512_mul_ps(_mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(v)), d));
}

void tl_dq_avx512_q8_0(const uint8_t *x, float *y, size_t nb)
{
    for (size_t i = 0; i < nb; i++, x += 34, y += 32) {
        const __m512 d = _mm512_set1_ps(h2f(x));
        put16(y, _mm_loadu_si128((const __m128i *)(const void *)(x + 2)), d);
        put16(y + 16, _mm_loadu_si128((const __m128i *)(const void *)(x + 18)), d);
    }
}

void tl_dq_avx512_q4_0(const uint8_t *x, float *y, size_t nb)
{
    const __m128i low = _mm_set1_epi8(0x0f), eight = _mm_set1_epi8(8);
    for (size_t i = 0; i < nb; i++, x += 18, y += 32) {
        const __m512 d = _mm512_set1_ps(h2f(x));
        const __m128i q = _mm_loadu_si128((const __m128i *)(const void *)(x + 2));
        put16(y, _mm_sub_epi8(_mm_and_si128(q, low), eight), d);
        put16(y + 16, _mm_sub_epi8(_mm_and_si128(_mm_srli_epi16(q, 4), low), eight), d);
    }
}

/* A block of 16 bytes of nibbles looked up in table (16 signed values):
 * the low nibbles are values 0..15, the high ones 16..31. */
static inline void lookup32(float *y, const uint8_t *qs, __m128i table, __m512 d)
{
    const __m128i low = _mm_set1_epi8(0x0f);
    const __m128i q = _mm_loadu_si128((const __m128i *)(const void *)qs);
    put16(y, _mm_shuffle_epi8(table, _mm_and_si128(q, low)), d);
    put16(y + 16, _mm_shuffle_epi8(table, _mm_and_si128(_mm_srli_epi16(q, 4), low)), d);
}

void tl_dq_avx512_iq4_nl(const uint8_t *x, float *y, size_t nb)
{
    const __m128i table = _mm_loadu_si128((const __m128i *)(const void *)tl_iq4nl_values);
    for (size_t i = 0; i < nb; i++, x += 18, y += 32)
        lookup32(y, x + 2, table, _mm512_set1_ps(h2f(x)));
}

void tl_dq_avx512_mxfp4(const uint8_t *x, float *y, size_t nb)
{
    const __m128i table = _mm_loadu_si128((const __m128i *)(const void *)tl_mxfp4_values);
    for (size_t i = 0; i < nb; i++, x += 17, y += 32)
        lookup32(y, x + 1, table, _mm512_set1_ps(tl_e8m0_half(x[0])));
}

/* ---- group-quantized codes (SPEC 21) ----------------------------------- */

/* The products of 32 codes of 4 bits at q, as AVX2's: 16 bytes widened at
 * once, each byte's nibbles side by side, less the zero, times the scale. */
static inline void products32(const uint8_t *q, __m512i z, __m512 s, __m512 *v0, __m512 *v1)
{
    __m512i b = _mm512_cvtepu8_epi32(_mm_loadu_si128((const __m128i *)(const void *)q));
    __m512i pair = _mm512_or_si512(_mm512_and_si512(b, _mm512_set1_epi32(15)),
                                   _mm512_slli_epi32(_mm512_srli_epi32(b, 4), 16));
    __m512i c0 = _mm512_cvtepu16_epi32(_mm512_castsi512_si256(pair));
    __m512i c1 = _mm512_cvtepu16_epi32(_mm512_extracti64x4_epi64(pair, 1));
    *v0 = _mm512_mul_ps(_mm512_cvtepi32_ps(_mm512_sub_epi32(c0, z)), s);
    *v1 = _mm512_mul_ps(_mm512_cvtepi32_ps(_mm512_sub_epi32(c1, z)), s);
}

/* The products of 16 codes of 8 bits at q. */
static inline __m512 products16(const uint8_t *q, __m512i z, __m512 s)
{
    __m512i c = _mm512_cvtepu8_epi32(_mm_loadu_si128((const __m128i *)(const void *)q));
    return _mm512_mul_ps(_mm512_cvtepi32_ps(_mm512_sub_epi32(c, z)), s);
}

void tl_gq4_avx512(const uint8_t *q, size_t n, int32_t zero, float scale, float *y)
{
    const __m512i z = _mm512_set1_epi32(zero);
    const __m512 s = _mm512_set1_ps(scale);
    size_t k = 0;
    for (; k + 32 <= n; k += 32) {
        __m512 v0, v1;
        products32(q + k / 2, z, s, &v0, &v1);
        _mm512_storeu_ps(y + k, v0);
        _mm512_storeu_ps(y + k + 16, v1);
    }
    tl_gq4_scalar(q + k / 2, n - k, zero, scale, y + k);
}

void tl_gq8_avx512(const uint8_t *q, size_t n, int32_t zero, float scale, float *y)
{
    const __m512i z = _mm512_set1_epi32(zero);
    const __m512 s = _mm512_set1_ps(scale);
    size_t k = 0;
    for (; k + 16 <= n; k += 16)
        _mm512_storeu_ps(y + k, products16(q + k, z, s));
    tl_gq8_scalar(q + k, n - k, zero, scale, y + k);
}

/* The same, rounded to BFLOAT16 in the vectors (as kern_avx512.c's
 * bf16_round_high: to nearest, ties to even, a NaN quieted). */
static inline __m256i to_bf16(__m512 f)
{
    __m512i x = _mm512_castps_si512(f);
    __mmask16 nan = _mm512_cmp_ps_mask(f, f, _CMP_UNORD_Q);
    __m512i odd = _mm512_and_si512(_mm512_srli_epi32(x, 16), _mm512_set1_epi32(1));
    __m512i r = _mm512_add_epi32(x, _mm512_add_epi32(odd, _mm512_set1_epi32(0x7fff)));
    r = _mm512_mask_or_epi32(r, nan, x, _mm512_set1_epi32(0x400000));
    return _mm512_cvtepi32_epi16(_mm512_srli_epi32(r, 16));
}

/* 4-bit codes take 16 values a group: their BFLOAT16 results made once by
 * the vectors above (so each is the kernel's own), then looked up 32 codes
 * a step by a permute of 16-bit lanes, each index a code in its own lane
 * (the same spreading of nibbles as products32). */
void tl_gq4_bf16_avx512(const uint8_t *q, size_t n, int32_t zero, float scale, uint8_t *y)
{
    const __m512i codes = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    const __m512 f = _mm512_mul_ps(_mm512_cvtepi32_ps(_mm512_sub_epi32(codes,
                                                                     _mm512_set1_epi32(zero))),
                                   _mm512_set1_ps(scale));
    const __m512i lut = _mm512_castsi256_si512(to_bf16(f)), lo = _mm512_set1_epi32(15);
    size_t k = 0;
    for (; k + 32 <= n; k += 32) {
        __m512i b = _mm512_cvtepu8_epi32(_mm_loadu_si128((const __m128i *)(const void *)(q + k / 2)));
        __m512i pair = _mm512_or_si512(_mm512_and_si512(b, lo),
                                       _mm512_slli_epi32(_mm512_srli_epi32(b, 4), 16));
        _mm512_storeu_si512((void *)(y + 2 * k), _mm512_permutexvar_epi16(pair, lut));
    }
    tl_gq4_bf16_scalar(q + k / 2, n - k, zero, scale, y + 2 * k);
}

/* Runs of them: the 16 values of up to 64 runs made first, one vector a
 * run and no run waiting for another (a run's table is a chain of a dozen
 * dependent steps: made run by run, before each run's four or so lookups,
 * they took 60 % of the time at runs of 128), then the lookups. */
void tl_gq4g_bf16_avx512(const uint8_t *q, size_t ngroups, size_t glen, const int32_t *zero,
                         const float *scale, uint8_t *y, bool stream)
{
    const __m512i codes = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    const __m512i lo = _mm512_set1_epi32(15);
    _Alignas(64) __m256i lut[64];
    for (size_t g0 = 0; g0 < ngroups; g0 += 64) {
        size_t m = ngroups - g0 < 64 ? ngroups - g0 : 64;
        for (size_t g = 0; g < m; g++)
            lut[g] = to_bf16(_mm512_mul_ps(_mm512_cvtepi32_ps(_mm512_sub_epi32(codes,
                                               _mm512_set1_epi32(zero[g0 + g]))),
                                           _mm512_set1_ps(scale[g0 + g])));
        for (size_t g = 0; g < m; g++) {
            const uint8_t *qg = q + (g0 + g) * glen / 2;
            uint8_t *yg = y + (g0 + g) * glen * 2;
            __m512i t = _mm512_castsi256_si512(lut[g]);
            bool nt = stream && (uintptr_t)yg % 64 == 0;   /* every step's store aligned */
            size_t k = 0;
            for (; k + 32 <= glen; k += 32) {
                __m512i b = _mm512_cvtepu8_epi32(_mm_loadu_si128((const __m128i *)(const void *)
                                                                 (qg + k / 2)));
                __m512i pair = _mm512_or_si512(_mm512_and_si512(b, lo),
                                               _mm512_slli_epi32(_mm512_srli_epi32(b, 4), 16));
                __m512i v = _mm512_permutexvar_epi16(pair, t);
                if (nt)
                    _mm512_stream_si512((void *)(yg + 2 * k), v);
                else
                    _mm512_storeu_si512((void *)(yg + 2 * k), v);
            }
            if (k < glen)
                tl_gq4_bf16_scalar(qg + k / 2, glen - k, zero[g0 + g], scale[g0 + g], yg + 2 * k);
        }
    }
}

void tl_gq8_bf16_avx512(const uint8_t *q, size_t n, int32_t zero, float scale, uint8_t *y)
{
    const __m512i z = _mm512_set1_epi32(zero);
    const __m512 s = _mm512_set1_ps(scale);
    size_t k = 0;
    for (; k + 16 <= n; k += 16)
        _mm256_storeu_si256((__m256i *)(void *)(y + 2 * k), to_bf16(products16(q + k, z, s)));
    tl_gq8_bf16_scalar(q + k, n - k, zero, scale, y + 2 * k);
}

/* AWQ's words as rows of codes (copy.h's awq8): the 16 columns in one
 * vector, each lane's nibble matrix transposed by dequant.c's three
 * rounds of swaps, then each place's words stored as one vector. */
void tl_awq8_avx512(const uint8_t *src, size_t stride, size_t ncol, const uint8_t place[8],
                    uint32_t *dst, size_t dstride)
{
    if (ncol > 16) {
        tl_awq8_scalar(src, stride, ncol, place, dst, dstride);
        return;
    }
    const __mmask16 live = (__mmask16)((1u << ncol) - 1);
    const __m512i m4 = _mm512_set1_epi32(0x0f0f0f0f), m8 = _mm512_set1_epi32(0x00ff00ff),
                  m16 = _mm512_set1_epi32(0x0000ffff);
    __m512i a[8];
    for (unsigned r = 0; r < 8; r++)            /* the lanes past ncol not read */
        a[r] = _mm512_maskz_loadu_epi32(live, src + r * stride);
    for (unsigned q = 0; q < 8; q += 2) {
        __m512i x = _mm512_and_si512(_mm512_xor_si512(_mm512_srli_epi32(a[q], 4), a[q + 1]), m4);
        a[q + 1] = _mm512_xor_si512(a[q + 1], x);
        a[q] = _mm512_xor_si512(a[q], _mm512_slli_epi32(x, 4));
    }
    for (unsigned q = 0; q < 8; q += q % 2 ? 3 : 1) {
        __m512i x = _mm512_and_si512(_mm512_xor_si512(_mm512_srli_epi32(a[q], 8), a[q + 2]), m8);
        a[q + 2] = _mm512_xor_si512(a[q + 2], x);
        a[q] = _mm512_xor_si512(a[q], _mm512_slli_epi32(x, 8));
    }
    for (unsigned q = 0; q < 4; q++) {
        __m512i x = _mm512_and_si512(_mm512_xor_si512(_mm512_srli_epi32(a[q], 16), a[q + 4]), m16);
        a[q + 4] = _mm512_xor_si512(a[q + 4], x);
        a[q] = _mm512_xor_si512(a[q], _mm512_slli_epi32(x, 16));
    }
    for (unsigned k = 0; k < 8; k++)
        _mm512_mask_storeu_epi32(dst + k * dstride, live, a[place[k]]);
}
