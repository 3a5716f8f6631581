/*
 * dequant.c - ggml's block types decoded to FLOAT32 (SPEC 16), one block
 * after another, in the order of ggml's own dequantization, operation for
 * operation, so that every value comes out bit for bit as ggml's to_float
 * gives it: the same products in the same order, no fused multiply-add
 * (the Makefile builds with -ffp-contract=off).  These are the scalar
 * twins of the SIMD decoders (kern_avx2.c) and the kernel table's scalar
 * slots (kern_scalar.c).  The block layouts are listed in ggml.c.
 */
#include <math.h>
#include <pthread.h>
#include <string.h>

#include "copy.h"
#include "dequant.h"

/* FP16 to FP32, exactly (a NaN quieted, its payload kept, as ggml does). */
static inline float h2f(const uint8_t *p)
{
    uint32_t h = (uint32_t)p[0] | (uint32_t)p[1] << 8;
    uint32_t sign = (h & 0x8000u) << 16, exp = (h >> 10) & 0x1f, man = h & 0x3ff, bits;
    if (exp == 0x1f) {
        bits = sign | 0x7f800000u | man << 13 | (man ? 0x400000u : 0);
    } else if (exp) {
        bits = sign | (exp + 112) << 23 | man << 13;
    } else if (!man) {
        bits = sign;
    } else {
        uint32_t e = 113;
        while (!(man & 0x400)) {
            man <<= 1;
            e--;
        }
        bits = sign | e << 23 | (man & 0x3ff) << 13;
    }
    float f;
    memcpy(&f, &bits, 4);
    return f;
}

static inline uint32_t rd32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

const int8_t tl_iq4nl_values[16] = {
    -127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113,
};

/* FP4 E2M1's values, doubled (ggml's kvalues_mxfp4): the scale is halved. */
const int8_t tl_mxfp4_values[16] = {
    0, 1, 2, 3, 4, 6, 8, 12, 0, -1, -2, -3, -4, -6, -8, -12,
};

float tl_e8m0_half(uint8_t e)
{
    uint32_t bits = e < 2 ? 0x00200000u << e : (uint32_t)(e - 1) << 23;
    float f;
    memcpy(&f, &bits, 4);
    return f;
}

const uint8_t tl_fp4_bf16_lo[16] = { 0, 0, 0x80, 0xc0, 0, 0x40, 0x80, 0xc0,
                                     0, 0, 0x80, 0xc0, 0, 0x40, 0x80, 0xc0 };
const uint8_t tl_fp4_bf16_hi[16] = { 0, 0x3f, 0x3f, 0x3f, 0x40, 0x40, 0x40, 0x40,
                                     0x80, 0xbf, 0xbf, 0xbf, 0xc0, 0xc0, 0xc0, 0xc0 };
const uint8_t tl_fp4_f16_hi[16] = { 0, 0x38, 0x3c, 0x3e, 0x40, 0x42, 0x44, 0x46,
                                    0x80, 0xb8, 0xbc, 0xbe, 0xc0, 0xc2, 0xc4, 0xc6 };

/* FP4 E2M1's values (OCP: code 8 is -0), doubled, for tl_e8m0_half's
 * scale 2^(e - 128): a product is exact, or infinite past FLOAT32. */
static const float e2m1_x2[16] = {
    0.0f, 1.0f, 2.0f, 3.0f, 4.0f, 6.0f, 8.0f, 12.0f,
    -0.0f, -1.0f, -2.0f, -3.0f, -4.0f, -6.0f, -8.0f, -12.0f,
};

void tl_mx4_scalar(const uint8_t *q, const uint8_t *e, float *y, size_t nb)
{
    for (size_t b = 0; b < nb; b++, q += 16, y += 32) {
        const float d = tl_e8m0_half(e[b]);
        for (int j = 0; j < 16; j++) {
            y[2 * j] = e2m1_x2[q[j] & 15] * d;
            y[2 * j + 1] = e2m1_x2[q[j] >> 4] * d;
        }
    }
}

void tl_mx4_bf16_scalar(const uint8_t *q, const uint8_t *e, uint8_t *y, size_t nb)
{
    float v[32];
    for (size_t b = 0; b < nb; b++, y += 64) {
        tl_mx4_scalar(q + 16 * b, e + b, v, 1);
        for (int j = 0; j < 32; j++) {
            uint32_t x;
            memcpy(&x, &v[j], 4);
            uint16_t h = (uint16_t)(x >> 16);       /* exact: the low half is 0 */
            memcpy(y + 2 * j, &h, 2);
        }
    }
}

void tl_fp8s_bf16_scalar(const uint8_t *c, const uint8_t *t, float scale, uint8_t *y,
                         size_t n)
{
    (void)t;
    for (size_t i = 0; i < n; i++) {
        float f;
        tl_convert_value(TL_DT_FLOAT8E4M3, c + i, TL_DT_FLOAT32, &f);
        f *= scale;
        tl_convert_value(TL_DT_FLOAT32, &f, TL_DT_BFLOAT16, y + 2 * i);
    }
}

bool tl_fp8s_table(float scale, uint8_t t[32])
{
    /* a subnormal code M x 2^-9 as (1 + M'/8) x 2^k */
    static const uint8_t msub[8] = { 0, 0, 0, 4, 0, 2, 4, 6 };
    static const int ksub[8] = { 0, -9, -8, -8, -7, -7, -7, -7 };
    uint32_t bits;
    memcpy(&bits, &scale, 4);
    unsigned fs = (bits >> 23) & 0xff;
    if (fs == 0 || fs == 255)
        return false;
    uint16_t p[8];
    for (int m = 0; m < 8; m++) {
        float f = (1.0f + (float)m / 8.0f) * scale;
        tl_convert_value(TL_DT_FLOAT32, &f, TL_DT_BFLOAT16, &p[m]);
        unsigned fe = (p[m] >> 7) & 0xff;
        if (fe < 10 || fe > 246)            /* exponents -9 .. +8 must stay normal */
            return false;
    }
    for (int k = 0; k < 16; k++) {
        uint16_t v = k < 8 ? (uint16_t)(p[k] - 7 * 128)
                           : (uint16_t)(p[msub[k - 8]] + ksub[k - 8] * 128);
        t[k] = (uint8_t)(v & 0xff);
        t[16 + k] = (uint8_t)(v >> 8);
    }
    return true;
}

/* FLOAT8E4M3's 256 values in FLOAT32, worked out once. */
static float e4m3[256];
static pthread_once_t e4m3_once = PTHREAD_ONCE_INIT;

static void e4m3_fill(void)
{
    for (int k = 0; k < 256; k++) {
        uint8_t c = (uint8_t)k;
        tl_convert_value(TL_DT_FLOAT8E4M3, &c, TL_DT_FLOAT32, &e4m3[k]);
    }
}

/* The nibble tables of lut (copy.h), from its codes 16 .. 31 (exponent
 * field 2 and 3) and 0 .. 7, kept where they give every code but NaN as
 * lo and hi do: where no product is subnormal or near BFLOAT16's end. */
static void nib_tables(struct tl_fp8s_lut *lut)
{
    for (int j = 0; j < 16; j++) {
        lut->nlo[j] = lut->lo[16 + j];
        lut->nhi[j] = (uint8_t)(lut->hi[16 + j] - 1);
        lut->slo[j] = lut->lo[j & 7];
        lut->shi[j] = lut->hi[j & 7];
    }
    bool ok = true;                     /* a row of codes k = 16 e + j at a time */
    for (int e = 0; e < 16 && ok; e++) {
        int m0 = 16 * (e & 7);
        uint8_t lo[16], hi[16];
        for (int j = 0; j < 16; j++) {
            bool sub = m0 == 0 && j < 8;
            lo[j] = sub ? lut->slo[j] : lut->nlo[j];
            hi[j] = (uint8_t)((sub ? lut->shi[j] : lut->nhi[j] + (e & 7)) ^ (e & 8) << 4);
        }
        size_t len = (e & 7) == 7 ? 15 : 16;        /* not the NaN code */
        ok = memcmp(lo, lut->lo + m0, len) == 0 && memcmp(hi, lut->hi + 16 * e, len) == 0;
    }
    lut->nib_ok = ok;
}

bool tl_fp8s_lut_make(float scale, struct tl_fp8s_lut *lut)
{
    if (!isfinite(scale))
        return false;           /* a NaN's sign and payload from either side */
    pthread_once(&e4m3_once, e4m3_fill);
    _Alignas(64) float v[256];
    _Alignas(64) uint16_t h[256];
    for (int k = 0; k < 256; k++)
        v[k] = e4m3[k] * scale;
    tl_cvt_fn cvt = tl_kernels_for(tl_isa_active())->cvt[TL_DT_FLOAT32][TL_DT_BFLOAT16];
    if (cvt)
        cvt((const uint8_t *)v, (uint8_t *)h, 256);
    else
        tl_cvt_scalar(TL_DT_FLOAT32, TL_DT_BFLOAT16, (const uint8_t *)v, (uint8_t *)h, 256);
    for (int k = 0; k < 128; k++) {
        lut->lo[k] = (uint8_t)h[k];
        if ((uint8_t)h[k + 128] != lut->lo[k])
            return false;
    }
    for (int k = 0; k < 256; k++)
        lut->hi[k] = (uint8_t)(h[k] >> 8);
    nib_tables(lut);
    return true;
}

void tl_fp8s_lut_codes(const uint8_t *c, const struct tl_fp8s_lut *lut, uint8_t *y, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        y[2 * i] = lut->lo[c[i] & 0x7f];
        y[2 * i + 1] = lut->hi[c[i]];
    }
}

void tl_dq_q4_0(const uint8_t *x, float *y, size_t nb)
{
    for (size_t i = 0; i < nb; i++, x += 18, y += 32) {
        const float d = h2f(x);
        for (int j = 0; j < 16; j++) {
            const int x0 = (x[2 + j] & 0x0f) - 8, x1 = (x[2 + j] >> 4) - 8;
            y[j] = x0 * d;
            y[j + 16] = x1 * d;
        }
    }
}

void tl_dq_q4_1(const uint8_t *x, float *y, size_t nb)
{
    for (size_t i = 0; i < nb; i++, x += 20, y += 32) {
        const float d = h2f(x), m = h2f(x + 2);
        for (int j = 0; j < 16; j++) {
            const int x0 = x[4 + j] & 0x0f, x1 = x[4 + j] >> 4;
            y[j] = x0 * d + m;
            y[j + 16] = x1 * d + m;
        }
    }
}

void tl_dq_q5_0(const uint8_t *x, float *y, size_t nb)
{
    for (size_t i = 0; i < nb; i++, x += 22, y += 32) {
        const float d = h2f(x);
        const uint32_t qh = rd32(x + 2);
        for (int j = 0; j < 16; j++) {
            const uint8_t h0 = ((qh >> j) << 4) & 0x10, h1 = (qh >> (j + 12)) & 0x10;
            const int32_t x0 = ((x[6 + j] & 0x0f) | h0) - 16, x1 = ((x[6 + j] >> 4) | h1) - 16;
            y[j] = x0 * d;
            y[j + 16] = x1 * d;
        }
    }
}

void tl_dq_q5_1(const uint8_t *x, float *y, size_t nb)
{
    for (size_t i = 0; i < nb; i++, x += 24, y += 32) {
        const float d = h2f(x), m = h2f(x + 2);
        const uint32_t qh = rd32(x + 4);
        for (int j = 0; j < 16; j++) {
            const uint8_t h0 = ((qh >> j) << 4) & 0x10, h1 = (qh >> (j + 12)) & 0x10;
            const int x0 = (x[8 + j] & 0x0f) | h0, x1 = (x[8 + j] >> 4) | h1;
            y[j] = x0 * d + m;
            y[j + 16] = x1 * d + m;
        }
    }
}

void tl_dq_q8_0(const uint8_t *x, float *y, size_t nb)
{
    for (size_t i = 0; i < nb; i++, x += 34, y += 32) {
        const float d = h2f(x);
        for (int j = 0; j < 32; j++)
            y[j] = (int8_t)x[2 + j] * d;
    }
}

void tl_dq_q2_k(const uint8_t *x, float *y, size_t nb)
{
    for (size_t i = 0; i < nb; i++, x += 84) {
        const uint8_t *sc = x, *q = x + 16;
        const float d = h2f(x + 80), min = h2f(x + 82);
        int is = 0;
        for (int n = 0; n < 256; n += 128, q += 32) {
            for (int shift = 0; shift < 8; shift += 2) {
                for (int half = 0; half < 32; half += 16) {
                    const uint8_t s = sc[is++];
                    const float dl = d * (s & 0xf), ml = min * (s >> 4);
                    for (int l = 0; l < 16; l++)
                        *y++ = dl * (int8_t)((q[half + l] >> shift) & 3) - ml;
                }
            }
        }
    }
}

void tl_dq_q3_k(const uint8_t *x, float *y, size_t nb)
{
    const uint32_t m1 = 0x03030303, m2 = 0x0f0f0f0f;
    for (size_t i = 0; i < nb; i++, x += 110) {
        const uint8_t *hm = x, *q = x + 32;
        const float d_all = h2f(x + 108);
        uint32_t a0 = rd32(x + 96), a1 = rd32(x + 100), tmp = rd32(x + 104), aux[4];
        aux[0] = (a0 & m2) | ((tmp & m1) << 4);
        aux[1] = (a1 & m2) | (((tmp >> 2) & m1) << 4);
        aux[2] = ((a0 >> 4) & m2) | (((tmp >> 4) & m1) << 4);
        aux[3] = ((a1 >> 4) & m2) | (((tmp >> 6) & m1) << 4);
        int8_t scales[16];
        for (int k = 0; k < 16; k++)
            scales[k] = (int8_t)(aux[k / 4] >> (8 * (k % 4)));
        int is = 0;
        uint8_t m = 1;
        for (int n = 0; n < 256; n += 128, q += 32) {
            for (int shift = 0; shift < 8; shift += 2, m <<= 1) {
                for (int half = 0; half < 32; half += 16) {
                    const float dl = d_all * (scales[is++] - 32);
                    for (int l = 0; l < 16; l++)
                        *y++ = dl * ((int8_t)((q[half + l] >> shift) & 3) -
                                     ((hm[half + l] & m) ? 0 : 4));
                }
            }
        }
    }
}

void tl_dq_q4_k(const uint8_t *x, float *y, size_t nb)
{
    for (size_t i = 0; i < nb; i++, x += 144) {
        const float d = h2f(x), min = h2f(x + 2);
        const uint8_t *scales = x + 4, *q = x + 16;
        for (int is = 0; is < 8; is += 2, q += 32) {
            uint8_t sc, m;
            tl_dq_scale_min_k4(is, scales, &sc, &m);
            const float d1 = d * sc, m1 = min * m;
            tl_dq_scale_min_k4(is + 1, scales, &sc, &m);
            const float d2 = d * sc, m2 = min * m;
            for (int l = 0; l < 32; l++)
                *y++ = d1 * (q[l] & 0xf) - m1;
            for (int l = 0; l < 32; l++)
                *y++ = d2 * (q[l] >> 4) - m2;
        }
    }
}

void tl_dq_q5_k(const uint8_t *x, float *y, size_t nb)
{
    for (size_t i = 0; i < nb; i++, x += 176) {
        const float d = h2f(x), min = h2f(x + 2);
        const uint8_t *scales = x + 4, *qh = x + 16, *ql = x + 48;
        uint8_t u1 = 1, u2 = 2;
        for (int is = 0; is < 8; is += 2, ql += 32, u1 <<= 2, u2 <<= 2) {
            uint8_t sc, m;
            tl_dq_scale_min_k4(is, scales, &sc, &m);
            const float d1 = d * sc, m1 = min * m;
            tl_dq_scale_min_k4(is + 1, scales, &sc, &m);
            const float d2 = d * sc, m2 = min * m;
            for (int l = 0; l < 32; l++)
                *y++ = d1 * ((ql[l] & 0xf) + (qh[l] & u1 ? 16 : 0)) - m1;
            for (int l = 0; l < 32; l++)
                *y++ = d2 * ((ql[l] >> 4) + (qh[l] & u2 ? 16 : 0)) - m2;
        }
    }
}

void tl_dq_q6_k(const uint8_t *x, float *y, size_t nb)
{
    for (size_t i = 0; i < nb; i++, x += 210) {
        const float d = h2f(x + 208);
        const uint8_t *ql = x, *qh = x + 128;
        const int8_t *sc = (const int8_t *)(x + 192);
        for (int n = 0; n < 256; n += 128, y += 128, ql += 64, qh += 32, sc += 8) {
            for (int l = 0; l < 32; l++) {
                const int is = l / 16;
                const int8_t q1 = (int8_t)((ql[l] & 0xf) | (((qh[l] >> 0) & 3) << 4)) - 32;
                const int8_t q2 = (int8_t)((ql[l + 32] & 0xf) | (((qh[l] >> 2) & 3) << 4)) - 32;
                const int8_t q3 = (int8_t)((ql[l] >> 4) | (((qh[l] >> 4) & 3) << 4)) - 32;
                const int8_t q4 = (int8_t)((ql[l + 32] >> 4) | (((qh[l] >> 6) & 3) << 4)) - 32;
                y[l] = d * sc[is] * q1;
                y[l + 32] = d * sc[is + 2] * q2;
                y[l + 64] = d * sc[is + 4] * q3;
                y[l + 96] = d * sc[is + 6] * q4;
            }
        }
    }
}

void tl_dq_iq4_nl(const uint8_t *x, float *y, size_t nb)
{
    for (size_t i = 0; i < nb; i++, x += 18, y += 32) {
        const float d = h2f(x);
        for (int j = 0; j < 16; j++) {
            y[j] = d * tl_iq4nl_values[x[2 + j] & 0xf];
            y[j + 16] = d * tl_iq4nl_values[x[2 + j] >> 4];
        }
    }
}

void tl_dq_iq4_xs(const uint8_t *x, float *y, size_t nb)
{
    for (size_t i = 0; i < nb; i++, x += 136) {
        const float d = h2f(x);
        const unsigned sh = (unsigned)x[2] | (unsigned)x[3] << 8;
        const uint8_t *sl = x + 4, *qs = x + 8;
        for (int ib = 0; ib < 8; ib++, qs += 16, y += 32) {
            const int ls = ((sl[ib / 2] >> 4 * (ib % 2)) & 0xf) | (((sh >> 2 * ib) & 3) << 4);
            const float dl = d * (ls - 32);
            for (int j = 0; j < 16; j++) {
                y[j] = dl * tl_iq4nl_values[qs[j] & 0xf];
                y[j + 16] = dl * tl_iq4nl_values[qs[j] >> 4];
            }
        }
    }
}

/* A base-3 digit of a TQ1_0 byte: the digits are kept as a fraction of
 * 243, so that multiplying by 3^n brings digit n to the top. */
static inline float tq1_digit(uint8_t b, uint8_t pow3, float d)
{
    const uint8_t q = (uint8_t)(b * pow3);
    const int16_t xi = (int16_t)(((uint16_t)q * 3) >> 8);
    return (float)(xi - 1) * d;
}

void tl_dq_tq1_0(const uint8_t *x, float *y, size_t nb)
{
    static const uint8_t pow3[6] = { 1, 3, 9, 27, 81, 243 };
    for (size_t i = 0; i < nb; i++, x += 54) {
        const float d = h2f(x + 52);
        const uint8_t *qs = x, *qh = x + 48;
        for (int n = 0; n < 5; n++)
            for (int m = 0; m < 32; m++)
                *y++ = tq1_digit(qs[m], pow3[n], d);
        for (int n = 0; n < 5; n++)
            for (int m = 0; m < 16; m++)
                *y++ = tq1_digit(qs[32 + m], pow3[n], d);
        for (int n = 0; n < 4; n++)
            for (int j = 0; j < 4; j++)
                *y++ = tq1_digit(qh[j], pow3[n], d);
    }
}

void tl_dq_tq2_0(const uint8_t *x, float *y, size_t nb)
{
    for (size_t i = 0; i < nb; i++, x += 66) {
        const float d = h2f(x + 64);
        for (int j = 0; j < 64; j += 32)
            for (int l = 0; l < 4; l++)
                for (int m = 0; m < 32; m++)
                    *y++ = (float)((int8_t)((x[j + m] >> (l * 2)) & 3) - 1) * d;
    }
}

void tl_dq_mxfp4(const uint8_t *x, float *y, size_t nb)
{
    for (size_t i = 0; i < nb; i++, x += 17, y += 32) {
        const float d = tl_e8m0_half(x[0]);
        for (int j = 0; j < 16; j++) {
            y[j] = tl_mxfp4_values[x[1 + j] & 0xf] * d;
            y[j + 16] = tl_mxfp4_values[x[1 + j] >> 4] * d;
        }
    }
}

void tl_dq_q1_0(const uint8_t *x, float *y, size_t nb)
{
    for (size_t i = 0; i < nb; i++, x += 18, y += 128) {
        const float d = h2f(x), neg = -d;
        for (int j = 0; j < 128; j++)
            y[j] = (x[2 + j / 8] >> (j % 8)) & 1 ? d : neg;
    }
}

void tl_dq_q2_0(const uint8_t *x, float *y, size_t nb)
{
    for (size_t i = 0; i < nb; i++, x += 18, y += 64) {
        const float d = h2f(x);
        for (int j = 0; j < 64; j++)
            y[j] = ((int)((x[2 + j / 4] >> (j % 4 * 2)) & 3) - 1) * d;
    }
}

/* ---- group-quantized codes (SPEC 21) ----------------------------------- */

void tl_gq4_scalar(const uint8_t *q, size_t n, int32_t zero, float scale, float *y)
{
    for (size_t k = 0; k < n; k++)
        y[k] = (float)((int32_t)(q[k / 2] >> (k % 2 * 4) & 15) - zero) * scale;
}

void tl_gq8_scalar(const uint8_t *q, size_t n, int32_t zero, float scale, float *y)
{
    for (size_t k = 0; k < n; k++)
        y[k] = (float)((int32_t)q[k] - zero) * scale;
}

static void put_bf16(uint8_t *y, float f)
{
    uint16_t h = tl_float_to_bfloat(f);
    memcpy(y, &h, 2);
}

void tl_gq4_bf16_scalar(const uint8_t *q, size_t n, int32_t zero, float scale, uint8_t *y)
{
    for (size_t k = 0; k < n; k++)
        put_bf16(y + 2 * k, (float)((int32_t)(q[k / 2] >> (k % 2 * 4) & 15) - zero) * scale);
}

void tl_gq8_bf16_scalar(const uint8_t *q, size_t n, int32_t zero, float scale, uint8_t *y)
{
    for (size_t k = 0; k < n; k++)
        put_bf16(y + 2 * k, (float)((int32_t)q[k] - zero) * scale);
}

void tl_gq4g_bf16_scalar(const uint8_t *q, size_t ngroups, size_t glen, const int32_t *zero,
                         const float *scale, uint8_t *y, bool stream)
{
    (void)stream;                       /* ordinary stores */
    for (size_t g = 0; g < ngroups; g++)
        tl_gq4_bf16_scalar(q + g * glen / 2, glen, zero[g], scale[g], y + g * glen * 2);
}

/* Eight words as an 8 x 8 matrix of nibbles (a[r] nibble c) transposed in
 * place by three rounds of swaps (nibbles, bytes, halves): a[c] nibble r
 * is then what a[r] nibble c was. */
static void nibble_transpose(uint32_t a[8])
{
    for (unsigned q = 0; q < 8; q += 2) {
        uint32_t x = ((a[q] >> 4) ^ a[q + 1]) & 0x0f0f0f0fu;
        a[q + 1] ^= x, a[q] ^= x << 4;
    }
    for (unsigned q = 0; q < 8; q += q % 2 ? 3 : 1) {
        uint32_t x = ((a[q] >> 8) ^ a[q + 2]) & 0x00ff00ffu;
        a[q + 2] ^= x, a[q] ^= x << 8;
    }
    for (unsigned q = 0; q < 4; q++) {
        uint32_t x = ((a[q] >> 16) ^ a[q + 4]) & 0x0000ffffu;
        a[q + 4] ^= x, a[q] ^= x << 16;
    }
}

void tl_awq8_scalar(const uint8_t *src, size_t stride, size_t ncol, const uint8_t place[8],
                    uint32_t *dst, size_t dstride)
{
    for (size_t c = 0; c < ncol; c++) {
        uint32_t a[8];
        for (unsigned r = 0; r < 8; r++)
            memcpy(&a[r], src + r * stride + c * 4, 4);
        nibble_transpose(a);
        for (unsigned k = 0; k < 8; k++)
            dst[k * dstride + c] = a[place[k]];
    }
}

/* ---- the reverse: ggml's reference quantizers ------------------------------
 * Q8_0, Q4_0 and Q4_1 blocks from FLOAT32 values, as ggml's quantize_row_*_ref
 * makes them (what ggml_quantize_chunk does without an importance
 * matrix), step for step: the scale's FP16 rounded to nearest even. */

static void put_half(uint8_t *p, float f)
{
    uint16_t h = tl_float_to_half(f);
    p[0] = (uint8_t)h;
    p[1] = (uint8_t)(h >> 8);
}

/* A float's conversion to an integer as x86's cvttss2si makes it: a NaN
 * or a value out of range is INT32_MIN (C leaves it undefined). */
static inline int32_t trunc_i32(float f)
{
    return f == f && f > -2147483648.0f && f < 2147483648.0f ? (int32_t)f : INT32_MIN;
}

static void q8_0(const float *x, uint8_t *y, size_t nb)
{
    for (size_t i = 0; i < nb; i++, x += 32, y += 34) {
        float amax = 0.0f;
        for (int j = 0; j < 32; j++) {
            const float a = fabsf(x[j]);
            amax = amax > a ? amax : a;
        }
        const float d = amax / 127, id = d ? 1.0f / d : 0.0f;
        put_half(y, d);
        for (int j = 0; j < 32; j++)
            y[2 + j] = (uint8_t)(int8_t)trunc_i32(roundf(x[j] * id));
    }
}

static void q4_0(const float *x, uint8_t *y, size_t nb)
{
    for (size_t i = 0; i < nb; i++, x += 32, y += 18) {
        float amax = 0.0f, max = 0.0f;
        for (int j = 0; j < 32; j++) {
            if (amax < fabsf(x[j])) {
                amax = fabsf(x[j]);
                max = x[j];
            }
        }
        const float d = max / -8, id = d ? 1.0f / d : 0.0f;
        put_half(y, d);
        for (int j = 0; j < 16; j++) {
            const int8_t a = (int8_t)trunc_i32(x[j] * id + 8.5f),
                         b = (int8_t)trunc_i32(x[16 + j] * id + 8.5f);
            const uint8_t x0 = (uint8_t)(a < 15 ? a : 15), x1 = (uint8_t)(b < 15 ? b : 15);
            y[2 + j] = (uint8_t)(x0 | x1 << 4);
        }
    }
}

static void q4_1(const float *x, uint8_t *y, size_t nb)
{
    for (size_t i = 0; i < nb; i++, x += 32, y += 20) {
        float min = 3.402823466e+38f, max = -3.402823466e+38f;
        for (int j = 0; j < 32; j++) {
            min = x[j] < min ? x[j] : min;
            max = x[j] > max ? x[j] : max;
        }
        const float d = (max - min) / 15, id = d ? 1.0f / d : 0.0f;
        put_half(y, d);
        put_half(y + 2, min);
        for (int j = 0; j < 16; j++) {
            const int8_t a = (int8_t)trunc_i32((x[j] - min) * id + 0.5f),
                         b = (int8_t)trunc_i32((x[16 + j] - min) * id + 0.5f);
            const uint8_t x0 = (uint8_t)(a < 15 ? a : 15), x1 = (uint8_t)(b < 15 ? b : 15);
            y[4 + j] = (uint8_t)(x0 | x1 << 4);
        }
    }
}

int tl_quantize(uint32_t type, const float *x, uint8_t *y, size_t nb)
{
    switch (type) {
    case 8: q8_0(x, y, nb); return 0;
    case 2: q4_0(x, y, nb); return 0;
    case 3: q4_1(x, y, nb); return 0;
    default: return TL_E_VALUE;
    }
}
