/*
 * dequant_avx2.c - ggml's block types decoded with AVX2: the same integer
 * of each element as dequant.c's twin, converted exactly, then the same
 * products and sums in the same order (a multiply and an add or subtract
 * are two roundings, never fused: -ffp-contract=off, and no FMA), so every
 * value is bit for bit the scalar one.  Built with -mavx2 -mf16c.
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

/* 8 signed bytes at the bottom of v as 8 floats, times d (then + m). */
static inline void put8(float *y, __m128i v, __m256 d)
{
    _mm256_storeu_ps(y, _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(v)), d));
}

static inline void put8_add(float *y, __m128i v, __m256 d, __m256 m)
{
    _mm256_storeu_ps(y, _mm256_add_ps(_mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(v)),
                                                    d), m));
}

static inline void put8_sub(float *y, __m128i v, __m256 d, __m256 m)
{
    _mm256_storeu_ps(y, _mm256_sub_ps(_mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(v)),
                                                    d), m));
}

/* 16 signed bytes: y[0..16) = v * d. */
static inline void put16(float *y, __m128i v, __m256 d)
{
    put8(y, v, d);
    put8(y + 8, _mm_srli_si128(v, 8), d);
}

static inline void put16_add(float *y, __m128i v, __m256 d, __m256 m)
{
    put8_add(y, v, d, m);
    put8_add(y + 8, _mm_srli_si128(v, 8), d, m);
}

static inline void put16_sub(float *y, __m128i v, __m256 d, __m256 m)
{
    put8_sub(y, v, d, m);
    put8_sub(y + 8, _mm_srli_si128(v, 8), d, m);
}

static inline void put32_sub(float *y, __m256i v, __m256 d, __m256 m)
{
    put16_sub(y, _mm256_castsi256_si128(v), d, m);
    put16_sub(y + 16, _mm256_extracti128_si256(v, 1), d, m);
}

/* The 16 bytes' low nibbles and high nibbles. */
static inline __m128i lo4(__m128i q)
{
    return _mm_and_si128(q, _mm_set1_epi8(0x0f));
}

static inline __m128i hi4(__m128i q)
{
    return _mm_and_si128(_mm_srli_epi16(q, 4), _mm_set1_epi8(0x0f));
}

void tl_dq_avx2_q4_0(const uint8_t *x, float *y, size_t nb)
{
    const __m128i eight = _mm_set1_epi8(8);
    for (size_t i = 0; i < nb; i++, x += 18, y += 32) {
        const __m256 d = _mm256_set1_ps(h2f(x));
        const __m128i q = _mm_loadu_si128((const __m128i *)(x + 2));
        put16(y, _mm_sub_epi8(lo4(q), eight), d);
        put16(y + 16, _mm_sub_epi8(hi4(q), eight), d);
    }
}

void tl_dq_avx2_q4_1(const uint8_t *x, float *y, size_t nb)
{
    for (size_t i = 0; i < nb; i++, x += 20, y += 32) {
        const __m256 d = _mm256_set1_ps(h2f(x)), m = _mm256_set1_ps(h2f(x + 2));
        const __m128i q = _mm_loadu_si128((const __m128i *)(x + 4));
        put16_add(y, lo4(q), d, m);
        put16_add(y + 16, hi4(q), d, m);
    }
}

/* The fifth bits of Q5_0 and Q5_1: 0x10 in byte e where bit e of qh is set
 * (e < 32; bytes 0..15 the low nibbles' elements, 16..31 the high ones'). */
static inline __m256i fifth_bits(const uint8_t *p)
{
    uint32_t qh;
    memcpy(&qh, p, 4);
    const __m256i spread = _mm256_shuffle_epi8(
        _mm256_set1_epi32((int)qh),
        _mm256_setr_epi8(0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1,
                         2, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3));
    const __m256i bit = _mm256_set1_epi64x((long long)0x8040201008040201ull);
    const __m256i set = _mm256_cmpeq_epi8(_mm256_and_si256(spread, bit), bit);
    return _mm256_and_si256(set, _mm256_set1_epi8(0x10));
}

static inline __m256i nibbles32(const uint8_t *p)
{
    const __m128i q = _mm_loadu_si128((const __m128i *)p);
    return _mm256_inserti128_si256(_mm256_castsi128_si256(lo4(q)), hi4(q), 1);
}

void tl_dq_avx2_q5_0(const uint8_t *x, float *y, size_t nb)
{
    const __m256i sixteen = _mm256_set1_epi8(16);
    for (size_t i = 0; i < nb; i++, x += 22, y += 32) {
        const __m256 d = _mm256_set1_ps(h2f(x));
        __m256i v = _mm256_or_si256(nibbles32(x + 6), fifth_bits(x + 2));
        v = _mm256_sub_epi8(v, sixteen);
        put16(y, _mm256_castsi256_si128(v), d);
        put16(y + 16, _mm256_extracti128_si256(v, 1), d);
    }
}

void tl_dq_avx2_q5_1(const uint8_t *x, float *y, size_t nb)
{
    for (size_t i = 0; i < nb; i++, x += 24, y += 32) {
        const __m256 d = _mm256_set1_ps(h2f(x)), m = _mm256_set1_ps(h2f(x + 2));
        const __m256i v = _mm256_or_si256(nibbles32(x + 8), fifth_bits(x + 4));
        put16_add(y, _mm256_castsi256_si128(v), d, m);
        put16_add(y + 16, _mm256_extracti128_si256(v, 1), d, m);
    }
}

void tl_dq_avx2_q8_0(const uint8_t *x, float *y, size_t nb)
{
    for (size_t i = 0; i < nb; i++, x += 34, y += 32) {
        const __m256 d = _mm256_set1_ps(h2f(x));
        put16(y, _mm_loadu_si128((const __m128i *)(x + 2)), d);
        put16(y + 16, _mm_loadu_si128((const __m128i *)(x + 18)), d);
    }
}

/* 16-entry int8 tables looked up by nibbles. */
static inline void lookup32(float *y, const uint8_t *qs, __m128i table, __m256 d)
{
    const __m128i q = _mm_loadu_si128((const __m128i *)qs);
    put16(y, _mm_shuffle_epi8(table, lo4(q)), d);
    put16(y + 16, _mm_shuffle_epi8(table, hi4(q)), d);
}

void tl_dq_avx2_iq4_nl(const uint8_t *x, float *y, size_t nb)
{
    const __m128i table = _mm_loadu_si128((const __m128i *)tl_iq4nl_values);
    for (size_t i = 0; i < nb; i++, x += 18, y += 32)
        lookup32(y, x + 2, table, _mm256_set1_ps(h2f(x)));
}

void tl_dq_avx2_mxfp4(const uint8_t *x, float *y, size_t nb)
{
    const __m128i table = _mm_loadu_si128((const __m128i *)tl_mxfp4_values);
    for (size_t i = 0; i < nb; i++, x += 17, y += 32)
        lookup32(y, x + 1, table, _mm256_set1_ps(tl_e8m0_half(x[0])));
}

void tl_dq_avx2_iq4_xs(const uint8_t *x, float *y, size_t nb)
{
    const __m128i table = _mm_loadu_si128((const __m128i *)tl_iq4nl_values);
    for (size_t i = 0; i < nb; i++, x += 136) {
        const float d = h2f(x);
        const unsigned sh = (unsigned)x[2] | (unsigned)x[3] << 8;
        for (int ib = 0; ib < 8; ib++, y += 32) {
            const int ls = ((x[4 + ib / 2] >> 4 * (ib % 2)) & 0xf) | (((sh >> 2 * ib) & 3) << 4);
            lookup32(y, x + 8 + 16 * ib, table, _mm256_set1_ps(d * (ls - 32)));
        }
    }
}

void tl_dq_avx2_q4_k(const uint8_t *x, float *y, size_t nb)
{
    const __m256i low = _mm256_set1_epi8(0x0f);
    for (size_t i = 0; i < nb; i++, x += 144) {
        const float d = h2f(x), min = h2f(x + 2);
        const uint8_t *q = x + 16;
        for (int is = 0; is < 8; is += 2, q += 32, y += 64) {
            uint8_t sc, m;
            tl_dq_scale_min_k4(is, x + 4, &sc, &m);
            const __m256 d1 = _mm256_set1_ps(d * sc), m1 = _mm256_set1_ps(min * m);
            tl_dq_scale_min_k4(is + 1, x + 4, &sc, &m);
            const __m256 d2 = _mm256_set1_ps(d * sc), m2 = _mm256_set1_ps(min * m);
            const __m256i v = _mm256_loadu_si256((const __m256i *)q);
            put32_sub(y, _mm256_and_si256(v, low), d1, m1);
            put32_sub(y + 32, _mm256_and_si256(_mm256_srli_epi16(v, 4), low), d2, m2);
        }
    }
}

void tl_dq_avx2_q5_k(const uint8_t *x, float *y, size_t nb)
{
    const __m256i low = _mm256_set1_epi8(0x0f), sixteen = _mm256_set1_epi8(16);
    for (size_t i = 0; i < nb; i++, x += 176) {
        const float d = h2f(x), min = h2f(x + 2);
        const __m256i qh = _mm256_loadu_si256((const __m256i *)(x + 16));
        const uint8_t *ql = x + 48;
        for (int is = 0; is < 8; is += 2, ql += 32, y += 64) {
            uint8_t sc, m;
            tl_dq_scale_min_k4(is, x + 4, &sc, &m);
            const __m256 d1 = _mm256_set1_ps(d * sc), m1 = _mm256_set1_ps(min * m);
            tl_dq_scale_min_k4(is + 1, x + 4, &sc, &m);
            const __m256 d2 = _mm256_set1_ps(d * sc), m2 = _mm256_set1_ps(min * m);
            const __m256i u1 = _mm256_set1_epi8((char)(1 << is)),
                          u2 = _mm256_set1_epi8((char)(2 << is));
            const __m256i h1 = _mm256_and_si256(_mm256_cmpeq_epi8(_mm256_and_si256(qh, u1), u1),
                                                sixteen);
            const __m256i h2 = _mm256_and_si256(_mm256_cmpeq_epi8(_mm256_and_si256(qh, u2), u2),
                                                sixteen);
            const __m256i v = _mm256_loadu_si256((const __m256i *)ql);
            put32_sub(y, _mm256_add_epi8(_mm256_and_si256(v, low), h1), d1, m1);
            put32_sub(y + 32, _mm256_add_epi8(_mm256_and_si256(_mm256_srli_epi16(v, 4), low), h2),
                      d2, m2);
        }
    }
}

/* 32 signed bytes in two halves of 16, each half with its own scale. */
static inline void put32_halves(float *y, __m256i v, float s0, float s1)
{
    put16(y, _mm256_castsi256_si128(v), _mm256_set1_ps(s0));
    put16(y + 16, _mm256_extracti128_si256(v, 1), _mm256_set1_ps(s1));
}

void tl_dq_avx2_q6_k(const uint8_t *x, float *y, size_t nb)
{
    const __m256i low = _mm256_set1_epi8(0x0f), three = _mm256_set1_epi8(3),
                  bias = _mm256_set1_epi8(32);
    for (size_t i = 0; i < nb; i++, x += 210) {
        const float d = h2f(x + 208);
        const uint8_t *ql = x, *qh = x + 128;
        const int8_t *sc = (const int8_t *)(x + 192);
        for (int n = 0; n < 2; n++, y += 128, ql += 64, qh += 32, sc += 8) {
            const __m256i a = _mm256_loadu_si256((const __m256i *)ql),
                          b = _mm256_loadu_si256((const __m256i *)(ql + 32)),
                          h = _mm256_loadu_si256((const __m256i *)qh);
            const __m256i h0 = _mm256_slli_epi16(_mm256_and_si256(h, three), 4),
                          h2 = _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(h, 2), three), 4),
                          h4 = _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(h, 4), three), 4),
                          h6 = _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(h, 6), three), 4);
            const __m256i q1 = _mm256_sub_epi8(_mm256_or_si256(_mm256_and_si256(a, low), h0), bias),
                          q2 = _mm256_sub_epi8(_mm256_or_si256(_mm256_and_si256(b, low), h2), bias),
                          q3 = _mm256_sub_epi8(_mm256_or_si256(
                              _mm256_and_si256(_mm256_srli_epi16(a, 4), low), h4), bias),
                          q4 = _mm256_sub_epi8(_mm256_or_si256(
                              _mm256_and_si256(_mm256_srli_epi16(b, 4), low), h6), bias);
            put32_halves(y, q1, d * sc[0], d * sc[1]);
            put32_halves(y + 32, q2, d * sc[2], d * sc[3]);
            put32_halves(y + 64, q3, d * sc[4], d * sc[5]);
            put32_halves(y + 96, q4, d * sc[6], d * sc[7]);
        }
    }
}

void tl_dq_avx2_q2_k(const uint8_t *x, float *y, size_t nb)
{
    const __m128i three = _mm_set1_epi8(3);
    for (size_t i = 0; i < nb; i++, x += 84) {
        const float d = h2f(x + 80), min = h2f(x + 82);
        const uint8_t *q = x + 16;
        int is = 0;
        for (int n = 0; n < 2; n++, q += 32) {
            const __m128i a = _mm_loadu_si128((const __m128i *)q),
                          b = _mm_loadu_si128((const __m128i *)(q + 16));
            for (int shift = 0; shift < 8; shift += 2) {
                const __m128i sh = _mm_cvtsi32_si128(shift);
                uint8_t s = x[is++];
                put16_sub(y, _mm_and_si128(_mm_srl_epi16(a, sh), three),
                          _mm256_set1_ps(d * (s & 0xf)), _mm256_set1_ps(min * (s >> 4)));
                s = x[is++];
                put16_sub(y + 16, _mm_and_si128(_mm_srl_epi16(b, sh), three),
                          _mm256_set1_ps(d * (s & 0xf)), _mm256_set1_ps(min * (s >> 4)));
                y += 32;
            }
        }
    }
}

void tl_dq_avx2_q3_k(const uint8_t *x, float *y, size_t nb)
{
    const uint32_t k1 = 0x03030303, k2 = 0x0f0f0f0f;
    const __m128i three = _mm_set1_epi8(3), four = _mm_set1_epi8(4);
    for (size_t i = 0; i < nb; i++, x += 110) {
        const float d_all = h2f(x + 108);
        uint32_t a[3], aux[4];
        memcpy(a, x + 96, 12);
        aux[0] = (a[0] & k2) | ((a[2] & k1) << 4);
        aux[1] = (a[1] & k2) | (((a[2] >> 2) & k1) << 4);
        aux[2] = ((a[0] >> 4) & k2) | (((a[2] >> 4) & k1) << 4);
        aux[3] = ((a[1] >> 4) & k2) | (((a[2] >> 6) & k1) << 4);
        int8_t scales[16];
        memcpy(scales, aux, 16);
        const __m128i hm0 = _mm_loadu_si128((const __m128i *)x),
                      hm1 = _mm_loadu_si128((const __m128i *)(x + 16));
        const uint8_t *q = x + 32;
        int is = 0, bit = 0;
        for (int n = 0; n < 2; n++, q += 32) {
            const __m128i a0 = _mm_loadu_si128((const __m128i *)q),
                          a1 = _mm_loadu_si128((const __m128i *)(q + 16));
            for (int shift = 0; shift < 8; shift += 2, bit++) {
                const __m128i sh = _mm_cvtsi32_si128(shift), m = _mm_set1_epi8((char)(1 << bit));
                /* 4 where the high bit is clear */
                const __m128i c0 = _mm_andnot_si128(_mm_cmpeq_epi8(_mm_and_si128(hm0, m), m), four),
                              c1 = _mm_andnot_si128(_mm_cmpeq_epi8(_mm_and_si128(hm1, m), m), four);
                put16(y, _mm_sub_epi8(_mm_and_si128(_mm_srl_epi16(a0, sh), three), c0),
                      _mm256_set1_ps(d_all * (scales[is] - 32)));
                put16(y + 16, _mm_sub_epi8(_mm_and_si128(_mm_srl_epi16(a1, sh), three), c1),
                      _mm256_set1_ps(d_all * (scales[is + 1] - 32)));
                is += 2;
                y += 32;
            }
        }
    }
}

void tl_dq_avx2_tq2_0(const uint8_t *x, float *y, size_t nb)
{
    const __m128i three = _mm_set1_epi8(3), one = _mm_set1_epi8(1);
    for (size_t i = 0; i < nb; i++, x += 66) {
        const __m256 d = _mm256_set1_ps(h2f(x + 64));
        for (int j = 0; j < 64; j += 32) {
            const __m128i a = _mm_loadu_si128((const __m128i *)(x + j)),
                          b = _mm_loadu_si128((const __m128i *)(x + j + 16));
            for (int l = 0; l < 4; l++, y += 32) {
                const __m128i sh = _mm_cvtsi32_si128(2 * l);
                put16(y, _mm_sub_epi8(_mm_and_si128(_mm_srl_epi16(a, sh), three), one), d);
                put16(y + 16, _mm_sub_epi8(_mm_and_si128(_mm_srl_epi16(b, sh), three), one), d);
            }
        }
    }
}

/* 8 codes (bytes of c, from the bottom) as E2M1 values doubled, times d:
 * the magnitude looked up by the code's low 3 bits, its sign bit 3. */
static inline __m256 e2m1x8(__m128i c, __m256 mag, __m256 d)
{
    const __m256i i = _mm256_cvtepu8_epi32(c);
    const __m256 v = _mm256_mul_ps(_mm256_permutevar8x32_ps(mag, i), d);
    return _mm256_or_ps(v, _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_srli_epi32(i, 3), 31)));
}

void tl_mx4_avx2(const uint8_t *q, const uint8_t *e, float *y, size_t nb)
{
    const __m256 mag = _mm256_setr_ps(0.0f, 1.0f, 2.0f, 3.0f, 4.0f, 6.0f, 8.0f, 12.0f);
    const __m128i low = _mm_set1_epi8(0x0f);
    for (size_t b = 0; b < nb; b++, q += 16, y += 32) {
        const __m256 d = _mm256_set1_ps(tl_e8m0_half(e[b]));
        const __m128i v = _mm_loadu_si128((const __m128i *)q);
        const __m128i lo = _mm_and_si128(v, low), hi = _mm_and_si128(_mm_srli_epi16(v, 4), low);
        const __m128i c0 = _mm_unpacklo_epi8(lo, hi), c1 = _mm_unpackhi_epi8(lo, hi);
        _mm256_storeu_ps(y, e2m1x8(c0, mag, d));
        _mm256_storeu_ps(y + 8, e2m1x8(_mm_srli_si128(c0, 8), mag, d));
        _mm256_storeu_ps(y + 16, e2m1x8(c1, mag, d));
        _mm256_storeu_ps(y + 24, e2m1x8(_mm_srli_si128(c1, 8), mag, d));
    }
}

/* ---- group-quantized codes (SPEC 21) ----------------------------------- */

/* The products of 16 codes of 4 bits at q: each byte's two nibbles side by
 * side as 16-bit lanes, widened to two vectors of 8 in the codes' order,
 * less the zero point, times the scale. */
static inline void products16(const uint8_t *q, __m256i z, __m256 s, __m256 *v0, __m256 *v1)
{
    __m256i b = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)(const void *)q));
    __m256i pair = _mm256_or_si256(_mm256_and_si256(b, _mm256_set1_epi32(15)),
                                   _mm256_slli_epi32(_mm256_srli_epi32(b, 4), 16));
    __m256i c0 = _mm256_cvtepu16_epi32(_mm256_castsi256_si128(pair));
    __m256i c1 = _mm256_cvtepu16_epi32(_mm256_extracti128_si256(pair, 1));
    *v0 = _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_sub_epi32(c0, z)), s);
    *v1 = _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_sub_epi32(c1, z)), s);
}

/* The products of 8 codes of 8 bits at q. */
static inline __m256 products8(const uint8_t *q, __m256i z, __m256 s)
{
    __m256i c = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)(const void *)q));
    return _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_sub_epi32(c, z)), s);
}

void tl_gq4_avx2(const uint8_t *q, size_t n, int32_t zero, float scale, float *y)
{
    const __m256i z = _mm256_set1_epi32(zero);
    const __m256 s = _mm256_set1_ps(scale);
    size_t k = 0;
    for (; k + 16 <= n; k += 16) {
        __m256 v0, v1;
        products16(q + k / 2, z, s, &v0, &v1);
        _mm256_storeu_ps(y + k, v0);
        _mm256_storeu_ps(y + k + 8, v1);
    }
    tl_gq4_scalar(q + k / 2, n - k, zero, scale, y + k);
}

void tl_gq8_avx2(const uint8_t *q, size_t n, int32_t zero, float scale, float *y)
{
    const __m256i z = _mm256_set1_epi32(zero);
    const __m256 s = _mm256_set1_ps(scale);
    size_t k = 0;
    for (; k + 8 <= n; k += 8)
        _mm256_storeu_ps(y + k, products8(q + k, z, s));
    tl_gq8_scalar(q + k, n - k, zero, scale, y + k);
}

/* The same, rounded to BFLOAT16 in the vectors: to nearest, ties to even,
 * a NaN quieted (tl_float_to_bfloat's rule); 8 values a vector. */
static inline __m128i to_bf16(__m256 f)
{
    __m256i x = _mm256_castps_si256(f);
    __m256i nan = _mm256_castps_si256(_mm256_cmp_ps(f, f, _CMP_UNORD_Q));
    __m256i odd = _mm256_and_si256(_mm256_srli_epi32(x, 16), _mm256_set1_epi32(1));
    __m256i r = _mm256_add_epi32(x, _mm256_add_epi32(odd, _mm256_set1_epi32(0x7fff)));
    __m256i q = _mm256_or_si256(x, _mm256_set1_epi32(0x400000));
    r = _mm256_srli_epi32(_mm256_blendv_epi8(r, q, nan), 16);
    return _mm_packus_epi32(_mm256_castsi256_si128(r), _mm256_extracti128_si256(r, 1));
}

/* 4-bit codes take 16 values a group: their BFLOAT16 results made once by
 * the vectors above (so each is the kernel's own), split into a table of
 * low bytes and one of high bytes, then looked up 16 codes a step by byte
 * shuffles and the two bytes of each value put side by side. */
void tl_gq4_bf16_avx2(const uint8_t *q, size_t n, int32_t zero, float scale, uint8_t *y)
{
    const __m256i z = _mm256_set1_epi32(zero);
    const __m256 s = _mm256_set1_ps(scale);
    const __m128i t0 = to_bf16(_mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_sub_epi32(
                          _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7), z)), s));
    const __m128i t1 = to_bf16(_mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_sub_epi32(
                          _mm256_setr_epi32(8, 9, 10, 11, 12, 13, 14, 15), z)), s));
    const __m128i even = _mm_setr_epi8(0, 2, 4, 6, 8, 10, 12, 14, -1, -1, -1, -1, -1, -1, -1, -1);
    const __m128i odd = _mm_setr_epi8(1, 3, 5, 7, 9, 11, 13, 15, -1, -1, -1, -1, -1, -1, -1, -1);
    const __m128i tlo = _mm_unpacklo_epi64(_mm_shuffle_epi8(t0, even), _mm_shuffle_epi8(t1, even));
    const __m128i thi = _mm_unpacklo_epi64(_mm_shuffle_epi8(t0, odd), _mm_shuffle_epi8(t1, odd));
    const __m128i m = _mm_set1_epi8(15);
    size_t k = 0;
    for (; k + 16 <= n; k += 16) {
        __m128i b = _mm_loadl_epi64((const __m128i *)(const void *)(q + k / 2));
        __m128i c = _mm_unpacklo_epi8(_mm_and_si128(b, m),
                                      _mm_and_si128(_mm_srli_epi16(b, 4), m));  /* in order */
        __m128i lo = _mm_shuffle_epi8(tlo, c), hi = _mm_shuffle_epi8(thi, c);
        _mm_storeu_si128((__m128i *)(void *)(y + 2 * k), _mm_unpacklo_epi8(lo, hi));
        _mm_storeu_si128((__m128i *)(void *)(y + 2 * k + 16), _mm_unpackhi_epi8(lo, hi));
    }
    tl_gq4_bf16_scalar(q + k / 2, n - k, zero, scale, y + 2 * k);
}

/* Runs of them: the two tables of up to 64 runs made first, none waiting
 * for another (each is a chain of dependent steps; made run by run, before
 * each run's few lookups, they cost as much as the lookups), then the
 * lookups as above. */
void tl_gq4g_bf16_avx2(const uint8_t *q, size_t ngroups, size_t glen, const int32_t *zero,
                       const float *scale, uint8_t *y, bool stream)
{
    const __m128i even = _mm_setr_epi8(0, 2, 4, 6, 8, 10, 12, 14, -1, -1, -1, -1, -1, -1, -1, -1);
    const __m128i odd = _mm_setr_epi8(1, 3, 5, 7, 9, 11, 13, 15, -1, -1, -1, -1, -1, -1, -1, -1);
    const __m256i c0 = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    const __m256i c1 = _mm256_setr_epi32(8, 9, 10, 11, 12, 13, 14, 15);
    const __m128i m = _mm_set1_epi8(15);
    __m128i tlo[64], thi[64];
    for (size_t g0 = 0; g0 < ngroups; g0 += 64) {
        size_t nr = ngroups - g0 < 64 ? ngroups - g0 : 64;
        for (size_t g = 0; g < nr; g++) {
            const __m256i z = _mm256_set1_epi32(zero[g0 + g]);
            const __m256 s = _mm256_set1_ps(scale[g0 + g]);
            __m128i t0 = to_bf16(_mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_sub_epi32(c0, z)), s));
            __m128i t1 = to_bf16(_mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_sub_epi32(c1, z)), s));
            tlo[g] = _mm_unpacklo_epi64(_mm_shuffle_epi8(t0, even), _mm_shuffle_epi8(t1, even));
            thi[g] = _mm_unpacklo_epi64(_mm_shuffle_epi8(t0, odd), _mm_shuffle_epi8(t1, odd));
        }
        for (size_t g = 0; g < nr; g++) {
            const uint8_t *qg = q + (g0 + g) * glen / 2;
            uint8_t *yg = y + (g0 + g) * glen * 2;
            bool nt = stream && (uintptr_t)yg % 16 == 0;   /* every step's two stores aligned */
            size_t k = 0;
            for (; k + 16 <= glen; k += 16) {
                __m128i b = _mm_loadl_epi64((const __m128i *)(const void *)(qg + k / 2));
                __m128i c = _mm_unpacklo_epi8(_mm_and_si128(b, m),
                                              _mm_and_si128(_mm_srli_epi16(b, 4), m));
                __m128i lo = _mm_shuffle_epi8(tlo[g], c), hi = _mm_shuffle_epi8(thi[g], c);
                __m128i v0 = _mm_unpacklo_epi8(lo, hi), v1 = _mm_unpackhi_epi8(lo, hi);
                if (nt) {
                    _mm_stream_si128((__m128i *)(void *)(yg + 2 * k), v0);
                    _mm_stream_si128((__m128i *)(void *)(yg + 2 * k + 16), v1);
                } else {
                    _mm_storeu_si128((__m128i *)(void *)(yg + 2 * k), v0);
                    _mm_storeu_si128((__m128i *)(void *)(yg + 2 * k + 16), v1);
                }
            }
            if (k < glen)
                tl_gq4_bf16_scalar(qg + k / 2, glen - k, zero[g0 + g], scale[g0 + g], yg + 2 * k);
        }
    }
}

void tl_gq8_bf16_avx2(const uint8_t *q, size_t n, int32_t zero, float scale, uint8_t *y)
{
    const __m256i z = _mm256_set1_epi32(zero);
    const __m256 s = _mm256_set1_ps(scale);
    size_t k = 0;
    for (; k + 8 <= n; k += 8)
        _mm_storeu_si128((__m128i *)(void *)(y + 2 * k), to_bf16(products8(q + k, z, s)));
    tl_gq8_bf16_scalar(q + k, n - k, zero, scale, y + 2 * k);
}

/* AWQ's words as rows of codes (copy.h's awq8): eight columns a vector,
 * the nibble matrix of each transposed by dequant.c's three rounds of
 * swaps done on every lane at once, each place's words stored as one. */
void tl_awq8_avx2(const uint8_t *src, size_t stride, size_t ncol, const uint8_t place[8],
                  uint32_t *dst, size_t dstride)
{
    static const int32_t ramp[16] = { -1, -1, -1, -1, -1, -1, -1, -1, 0, 0, 0, 0, 0, 0, 0, 0 };
    const __m256i m4 = _mm256_set1_epi32(0x0f0f0f0f), m8 = _mm256_set1_epi32(0x00ff00ff),
                  m16 = _mm256_set1_epi32(0x0000ffff);
    for (size_t c0 = 0; c0 < ncol; c0 += 8) {
        size_t n = ncol - c0 < 8 ? ncol - c0 : 8;
        const __m256i live = _mm256_loadu_si256((const __m256i *)(const void *)(ramp + 8 - n));
        __m256i a[8];
        for (unsigned r = 0; r < 8; r++)        /* the lanes past ncol not read */
            a[r] = _mm256_maskload_epi32((const int *)(const void *)(src + r * stride + c0 * 4),
                                         live);
        for (unsigned q = 0; q < 8; q += 2) {
            __m256i x = _mm256_and_si256(_mm256_xor_si256(_mm256_srli_epi32(a[q], 4), a[q + 1]), m4);
            a[q + 1] = _mm256_xor_si256(a[q + 1], x);
            a[q] = _mm256_xor_si256(a[q], _mm256_slli_epi32(x, 4));
        }
        for (unsigned q = 0; q < 8; q += q % 2 ? 3 : 1) {
            __m256i x = _mm256_and_si256(_mm256_xor_si256(_mm256_srli_epi32(a[q], 8), a[q + 2]), m8);
            a[q + 2] = _mm256_xor_si256(a[q + 2], x);
            a[q] = _mm256_xor_si256(a[q], _mm256_slli_epi32(x, 8));
        }
        for (unsigned q = 0; q < 4; q++) {
            __m256i x = _mm256_and_si256(_mm256_xor_si256(_mm256_srli_epi32(a[q], 16), a[q + 4]),
                                         m16);
            a[q + 4] = _mm256_xor_si256(a[q + 4], x);
            a[q] = _mm256_xor_si256(a[q], _mm256_slli_epi32(x, 16));
        }
        for (unsigned k = 0; k < 8; k++)
            _mm256_maskstore_epi32((int *)(void *)(dst + k * dstride + c0), live, a[place[k]]);
    }
}
