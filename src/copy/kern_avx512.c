/*
 * kern_avx512.c - AVX-512 (F+BW+VL) kernels: 16x16 32-bit, 8x8 64-bit and
 * 16x16 16-bit transposes by butterfly stages of two-source permutes, and
 * 64-byte fills.  Other slots keep the AVX2 and SSE2 kernels.
 * Compiled with -mavx512f -mavx512bw -mavx512vl only.
 *
 * The butterfly: for block sizes b = B/2, B/4, ..., 1, rows i and i+b (bit
 * b of i clear) swap their off-diagonal b x b blocks.  An element (i, j)
 * moves to (i^b, j^b) in exactly the stages where bits b of i and j
 * differ, so after all stages it sits at (j, i).
 */
#include <immintrin.h>

#include "kern_drivers.h"

/* Permute indices for one stage: lo keeps row i's columns with bit b clear
 * and takes row i+b's columns with bit b clear into the set positions. */
static inline void stage_index(int B, int b, int *lo, int *hi)
{
    for (int j = 0; j < B; j++) {
        lo[j] = (j & b) ? B + (j - b) : j;
        hi[j] = (j & b) ? B + j : j + b;
    }
}

static void block_w4(const uint8_t *src, size_t ss, uint8_t *dst, size_t ds)
{
    __m512 r[16];
    for (int i = 0; i < 16; i++)
        r[i] = _mm512_loadu_ps((const void *)(src + i * ss));
    for (int b = 8; b >= 1; b >>= 1) {
        int lo[16], hi[16];
        stage_index(16, b, lo, hi);
        __m512i ilo = _mm512_loadu_si512((const void *)lo), ihi = _mm512_loadu_si512((const void *)hi);
        for (int i = 0; i < 16; i++) {
            if (i & b)
                continue;
            __m512 a = r[i], c = r[i + b];
            r[i] = _mm512_permutex2var_ps(a, ilo, c);
            r[i + b] = _mm512_permutex2var_ps(a, ihi, c);
        }
    }
    for (int i = 0; i < 16; i++)
        _mm512_storeu_ps((void *)(dst + i * ds), r[i]);
}

static void block_w8(const uint8_t *src, size_t ss, uint8_t *dst, size_t ds)
{
    __m512d r[8];
    for (int i = 0; i < 8; i++)
        r[i] = _mm512_loadu_pd((const void *)(src + i * ss));
    for (int b = 4; b >= 1; b >>= 1) {
        int lo[8], hi[8];
        long long lo64[8], hi64[8];
        stage_index(8, b, lo, hi);
        for (int j = 0; j < 8; j++) {
            lo64[j] = lo[j];
            hi64[j] = hi[j];
        }
        __m512i ilo = _mm512_loadu_si512((const void *)lo64), ihi = _mm512_loadu_si512((const void *)hi64);
        for (int i = 0; i < 8; i++) {
            if (i & b)
                continue;
            __m512d a = r[i], c = r[i + b];
            r[i] = _mm512_permutex2var_pd(a, ilo, c);
            r[i + b] = _mm512_permutex2var_pd(a, ihi, c);
        }
    }
    for (int i = 0; i < 8; i++)
        _mm512_storeu_pd((void *)(dst + i * ds), r[i]);
}

static void block_w2(const uint8_t *src, size_t ss, uint8_t *dst, size_t ds)
{
    __m256i r[16];
    for (int i = 0; i < 16; i++)
        r[i] = _mm256_loadu_si256((const __m256i *)(const void *)(src + i * ss));
    for (int b = 8; b >= 1; b >>= 1) {
        int lo[16], hi[16];
        short lo16[16], hi16[16];
        stage_index(16, b, lo, hi);
        for (int j = 0; j < 16; j++) {
            lo16[j] = (short)lo[j];
            hi16[j] = (short)hi[j];
        }
        __m256i ilo = _mm256_loadu_si256((const __m256i *)(const void *)lo16);
        __m256i ihi = _mm256_loadu_si256((const __m256i *)(const void *)hi16);
        for (int i = 0; i < 16; i++) {
            if (i & b)
                continue;
            __m256i a = r[i], c = r[i + b];
            r[i] = _mm256_permutex2var_epi16(a, ilo, c);
            r[i + b] = _mm256_permutex2var_epi16(a, ihi, c);
        }
    }
    for (int i = 0; i < 16; i++)
        _mm256_storeu_si256((__m256i *)(void *)(dst + i * ds), r[i]);
}

static void transpose_w2(const uint8_t *s, size_t ss, uint8_t *d, size_t ds, size_t r, size_t c)
{ tl_transpose_tiled(s, ss, d, ds, r, c, 2, 16, block_w2); }
static void transpose_w4(const uint8_t *s, size_t ss, uint8_t *d, size_t ds, size_t r, size_t c)
{ tl_transpose_tiled(s, ss, d, ds, r, c, 4, 16, block_w4); }
static void transpose_w8(const uint8_t *s, size_t ss, uint8_t *d, size_t ds, size_t r, size_t c)
{ tl_transpose_tiled(s, ss, d, ds, r, c, 8, 8, block_w8); }

static void fill_vec(uint8_t *dst, __m512i v, size_t bytes, const uint8_t *val, unsigned es)
{
    size_t i = 0;
    for (; i + 256 <= bytes; i += 256) {
        _mm512_storeu_si512((void *)(dst + i), v);
        _mm512_storeu_si512((void *)(dst + i + 64), v);
        _mm512_storeu_si512((void *)(dst + i + 128), v);
        _mm512_storeu_si512((void *)(dst + i + 192), v);
    }
    for (; i + 64 <= bytes; i += 64)
        _mm512_storeu_si512((void *)(dst + i), v);
    tl_fill_scalar_es(dst + i, val, (bytes - i) / es, es);
}

static void fill_w1(uint8_t *d, const uint8_t *v, size_t n)
{ fill_vec(d, _mm512_set1_epi8((char)v[0]), n, v, 1); }
static void fill_w2(uint8_t *d, const uint8_t *v, size_t n)
{ uint16_t x; memcpy(&x, v, 2); fill_vec(d, _mm512_set1_epi16((short)x), n * 2, v, 2); }
static void fill_w4(uint8_t *d, const uint8_t *v, size_t n)
{ uint32_t x; memcpy(&x, v, 4); fill_vec(d, _mm512_set1_epi32((int)x), n * 4, v, 4); }
static void fill_w8(uint8_t *d, const uint8_t *v, size_t n)
{ uint64_t x; memcpy(&x, v, 8); fill_vec(d, _mm512_set1_epi64((long long)x), n * 8, v, 8); }

const struct tl_kernels tl_kernels_avx512 = {
    .transpose = { NULL, transpose_w2, transpose_w4, transpose_w8 },
    .fill = { fill_w1, fill_w2, fill_w4, fill_w8 },
};
