/*
 * kern_avx512.c - AVX-512 (F+BW+VL) kernels: 16x16 32-bit and 8x8 64-bit
 * transposes by butterfly stages of two-source permutes, 64-byte fills,
 * and 16-lane conversions.  Other slots keep the AVX2 and SSE2 kernels.
 * Compiled with -mavx512f -mavx512bw -mavx512vl only; the one kernel that
 * needs VBMI's byte permutes says so itself (and cpu.c checks the CPU).
 *
 * The butterfly: for block sizes b = B/2, B/4, ..., 1, rows i and i+b (bit
 * b of i clear) swap their off-diagonal b x b blocks.  An element (i, j)
 * moves to (i^b, j^b) in exactly the stages where bits b of i and j
 * differ, so after all stages it sits at (j, i).
 */
#include <immintrin.h>

#include "dequant.h"
#include "kern_drivers.h"

/* Permute indices of the butterfly stages, b = B/2 down to 1 (see above). */
static const int32_t idx16[4][2][16] __attribute__((aligned(64))) = {
    { { 0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23 },
      { 8, 9, 10, 11, 12, 13, 14, 15, 24, 25, 26, 27, 28, 29, 30, 31 } },
    { { 0, 1, 2, 3, 16, 17, 18, 19, 8, 9, 10, 11, 24, 25, 26, 27 },
      { 4, 5, 6, 7, 20, 21, 22, 23, 12, 13, 14, 15, 28, 29, 30, 31 } },
    { { 0, 1, 16, 17, 4, 5, 20, 21, 8, 9, 24, 25, 12, 13, 28, 29 },
      { 2, 3, 18, 19, 6, 7, 22, 23, 10, 11, 26, 27, 14, 15, 30, 31 } },
    { { 0, 16, 2, 18, 4, 20, 6, 22, 8, 24, 10, 26, 12, 28, 14, 30 },
      { 1, 17, 3, 19, 5, 21, 7, 23, 9, 25, 11, 27, 13, 29, 15, 31 } },
};
static const int64_t idx8[3][2][8] __attribute__((aligned(64))) = {
    { { 0, 1, 2, 3, 8, 9, 10, 11 },
      { 4, 5, 6, 7, 12, 13, 14, 15 } },
    { { 0, 1, 8, 9, 4, 5, 12, 13 },
      { 2, 3, 10, 11, 6, 7, 14, 15 } },
    { { 0, 8, 2, 10, 4, 12, 6, 14 },
      { 1, 9, 3, 11, 5, 13, 7, 15 } },
};

#define FROUND (_MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC)

/* FLOAT32 bits rounded to BFLOAT16 in the high half of each lane: to
 * nearest, ties to even; a NaN is quieted and keeps the top of its payload. */
static inline __m512i bf16_round_high(__m512i x)
{
    __mmask16 nan = _mm512_cmp_ps_mask(_mm512_castsi512_ps(x), _mm512_castsi512_ps(x), _CMP_UNORD_Q);
    __m512i odd = _mm512_and_si512(_mm512_srli_epi32(x, 16), _mm512_set1_epi32(1));
    __m512i r = _mm512_add_epi32(x, _mm512_add_epi32(odd, _mm512_set1_epi32(0x7fff)));
    return _mm512_mask_or_epi32(r, nan, x, _mm512_set1_epi32(0x400000));
}

/* Overflow (copy.h): big keeps the largest finite magnitude's bits seen,
 * and reached() says whether it got to the threshold at. */
static inline __m512i keep_big(__m512i big, __m512i x)
{
    __m512i a = _mm512_and_si512(x, _mm512_set1_epi32(0x7fffffff));
    return _mm512_mask_max_epu32(big, _mm512_cmplt_epu32_mask(a, _mm512_set1_epi32(0x7f800000)),
                                 big, a);
}

static inline bool reached(__m512i big, uint32_t at)
{
    return _mm512_cmpge_epu32_mask(big, _mm512_set1_epi32((int)at)) != 0;
}

/* 16 FLOAT32 lanes stored as 32 bytes of FLOAT16 or BFLOAT16. */
#define ST_F16(p, v) \
    _mm256_storeu_si256((__m256i *)(void *)(p), _mm512_cvtps_ph(_mm512_castsi512_ps(v), FROUND))
#define ST_BF16(p, v) \
    _mm256_storeu_si256((__m256i *)(void *)(p), \
                        _mm512_cvtepi32_epi16(_mm512_srli_epi32(bf16_round_high(v), 16)))

/* The butterfly of N rows of one 64-byte vector in r: N = 16 32-bit or 8
 * 64-bit elements, IDX the stages' permute indices, PERMUTE the two-source
 * permute of that element width.  NAME loads the rows from src first;
 * NAME_regs works on rows already in r. */
#define DEFINE_butterfly(NAME, N, IDX, PERMUTE)                             \
TL_BLOCK void NAME##_regs(__m512i r[N])                                     \
{                                                                           \
    TL_UNROLL                                                               \
    for (int st = 0, b = (N) / 2; b >= 1; st++, b >>= 1) {                  \
        __m512i ilo = _mm512_load_si512((const void *)IDX[st][0]);          \
        __m512i ihi = _mm512_load_si512((const void *)IDX[st][1]);          \
        TL_UNROLL                                                           \
        for (int i = 0; i < (N); i++) {                                     \
            if (i & b)                                                      \
                continue;                                                   \
            __m512i a = r[i], c = r[i + b];                                 \
            r[i] = PERMUTE(a, ilo, c);                                      \
            r[i + b] = PERMUTE(a, ihi, c);                                  \
        }                                                                   \
    }                                                                       \
}                                                                           \
TL_BLOCK void NAME(const uint8_t *src, size_t ss, __m512i r[N])             \
{                                                                           \
    TL_UNROLL                                                               \
    for (int i = 0; i < (N); i++)                                           \
        r[i] = _mm512_loadu_si512((const void *)(src + i * ss));            \
    NAME##_regs(r);                                                         \
}
DEFINE_butterfly(butterfly_w4, 16, idx16, _mm512_permutex2var_epi32)
DEFINE_butterfly(butterfly_w8, 8, idx8, _mm512_permutex2var_epi64)

/* A block of N rows by one vector: the butterfly BUTTERFLY, each row then
 * stored with STORE, an ordinary, a streaming or a converting store. */
#define DEFINE_block(NAME, N, BUTTERFLY, STORE)                             \
TL_BLOCK void NAME(const uint8_t *src, size_t ss, uint8_t *dst, size_t ds)  \
{                                                                           \
    __m512i r[N];                                                           \
    BUTTERFLY(src, ss, r);                                                  \
    TL_UNROLL                                                               \
    for (int i = 0; i < (N); i++)                                           \
        STORE((void *)(dst + i * ds), r[i]);                                \
}
DEFINE_block(block_w4, 16, butterfly_w4, _mm512_storeu_si512)
DEFINE_block(block_w4_nt, 16, butterfly_w4, _mm512_stream_si512)
DEFINE_block(block_w8, 8, butterfly_w8, _mm512_storeu_si512)
DEFINE_block(block_w8_nt, 8, butterfly_w8, _mm512_stream_si512)

/* The same converted by STORE: @return whether a magnitude reached the
 * overflow threshold AT: whether a value overflowed. */
#define DEFINE_block_cvt(NAME, N, BUTTERFLY, STORE, AT)                     \
TL_BLOCK bool NAME(const uint8_t *src, size_t ss, uint8_t *dst, size_t ds)  \
{                                                                           \
    __m512i r[N], big = _mm512_setzero_si512();                             \
    BUTTERFLY(src, ss, r);                                                  \
    TL_UNROLL                                                               \
    for (int i = 0; i < (N); i++) {                                         \
        big = keep_big(big, r[i]);                                          \
        STORE((void *)(dst + i * ds), r[i]);                                \
    }                                                                       \
    return reached(big, AT);                                                \
}
DEFINE_block_cvt(block_w4_f16, 16, butterfly_w4, ST_F16, TL_OVF_F16)
DEFINE_block_cvt(block_w4_bf16, 16, butterfly_w4, ST_BF16, TL_OVF_BF16)

/* Both blocks span whole lines and stream them out themselves: no step buffer. */
TL_DEFINE_TRANSPOSE(transpose_w4, 4, 16, block_w4)
TL_DEFINE_TRANSPOSE_ANY(transpose_w4_nt, 4, 16, block_w4, block_w4_nt, TL_LINE_ALIGNED, _mm_sfence())
TL_DEFINE_TRANSPOSE(transpose_w8, 8, 8, block_w8)
TL_DEFINE_TRANSPOSE_ANY(transpose_w8_nt, 8, 8, block_w8, block_w8_nt, TL_LINE_ALIGNED, _mm_sfence())

/* Two FLOAT32 rows a and b, 16 columns each, converted and paired: each
 * 32-bit lane holds a column's value from a in its low half and from b in
 * its high half.  FLOAT16 lanes come in the column order of cols_f16 (the
 * in-lane word unpacks of the two 8-column halves); BFLOAT16 lanes in
 * order. */
static const uint8_t cols_f16[16] = { 0, 1, 2, 3, 8, 9, 10, 11, 4, 5, 6, 7, 12, 13, 14, 15 };
#define COL_F16(j) cols_f16[j]
#define COL_BF16(j) (j)

TL_BLOCK __m512i pair_bf16_exact(const uint8_t *a, const uint8_t *b, __m512i *big, __m512i *unused)
{
    (void)unused;
    __m512i va = _mm512_loadu_si512((const void *)a), vb = _mm512_loadu_si512((const void *)b);
    *big = keep_big(keep_big(*big, va), vb);
    __m512i x = bf16_round_high(va);
    __m512i y = bf16_round_high(vb);
    return _mm512_mask_blend_epi16(0xaaaaaaaau, _mm512_srli_epi32(x, 16), y);
}

/* The quick kinds, as AVX2's (kern_avx2.c): two operations a vector keep
 * the largest signed value (a positive's bits) in hi and the largest
 * unsigned one (a negative's, where there is one) in uhi, where keep_big
 * takes three; a step where they reach the threshold has its exact flag
 * worked out (FLOAT16) or is done by the exact step instead (BFLOAT16).
 * FLOAT16 looks at its exact 16-bit results (an infinity or a NaN);
 * BFLOAT16 at the FLOAT32 bits (a value that overflows, an infinity or a
 * NaN), so its rounding skips the NaN case. */
TL_BLOCK __m512i pair_f16_bits(__m512 a, __m512 b)
{
    __m256i x = _mm512_cvtps_ph(a, FROUND), y = _mm512_cvtps_ph(b, FROUND);
    return _mm512_inserti64x4(_mm512_castsi256_si512(_mm256_unpacklo_epi16(x, y)),
                              _mm256_unpackhi_epi16(x, y), 1);
}

TL_BLOCK __m512i pair_f16(const uint8_t *a, const uint8_t *b, __m512i *hi, __m512i *uhi)
{
    __m512i v = pair_f16_bits(_mm512_loadu_ps((const void *)a), _mm512_loadu_ps((const void *)b));
    *hi = _mm512_max_epi16(*hi, v);
    *uhi = _mm512_max_epu16(*uhi, v);
    return v;
}

/* FLOAT16's exact kind: big keeps the largest finite magnitude of the
 * source (keep_big), as flag_f16 below does after a quick step. */
TL_BLOCK __m512i pair_f16_exact(const uint8_t *a, const uint8_t *b, __m512i *big, __m512i *unused)
{
    (void)unused;
    __m512i va = _mm512_loadu_si512((const void *)a), vb = _mm512_loadu_si512((const void *)b);
    *big = keep_big(keep_big(*big, va), vb);
    return pair_f16_bits(_mm512_castsi512_ps(va), _mm512_castsi512_ps(vb));
}

static inline bool f16_odd(__m512i hi, __m512i uhi)
{
    return (_mm512_cmpge_epi16_mask(hi, _mm512_set1_epi16(0x7c00)) |
            _mm512_cmpge_epu16_mask(uhi, _mm512_set1_epi16((short)0xfc00))) != 0;
}

TL_BLOCK __m512i round_bf16_quick(__m512i v)
{
    __m512i odd = _mm512_and_si512(_mm512_srli_epi32(v, 16), _mm512_set1_epi32(1));
    return _mm512_add_epi32(v, _mm512_add_epi32(odd, _mm512_set1_epi32(0x7fff)));
}

TL_BLOCK __m512i pair_bf16(const uint8_t *a, const uint8_t *b, __m512i *hi, __m512i *uhi)
{
    __m512i va = _mm512_loadu_si512((const void *)a), vb = _mm512_loadu_si512((const void *)b);
    *hi = _mm512_max_epi32(_mm512_max_epi32(*hi, va), vb);
    *uhi = _mm512_max_epu32(_mm512_max_epu32(*uhi, va), vb);
    return _mm512_mask_blend_epi16(0xaaaaaaaau, _mm512_srli_epi32(round_bf16_quick(va), 16),
                                   round_bf16_quick(vb));
}

static inline bool bf16_odd(__m512i hi, __m512i uhi)
{
    return (_mm512_cmpge_epi32_mask(hi, _mm512_set1_epi32((int)TL_OVF_BF16)) |
            _mm512_cmpge_epu32_mask(uhi, _mm512_set1_epi32((int)(0x80000000u | TL_OVF_BF16)))) != 0;
}

/* A step of the converting transposes: 32 rows by 16 FLOAT32 columns.  The
 * rows are converted first and paired (PAIR), so that one 16 x 16 32-bit
 * butterfly transposes them: its row j is the destination line of column
 * COL(j), 32 16-bit values, stored whole with STORE.  Measured against two
 * butterflies of the FLOAT32 rows packed after (and, with ordinary
 * stores, 16 x 16 blocks converting half lines), kernel against kernel
 * over 8 x 64 x 12544 FLOAT32 values: with the source in L2 (a 64 x 256
 * slice again and again, the work alone), streamed FLOAT16 0.54-0.55
 * against 0.74-0.97 ms, BFLOAT16 0.65-0.66 against 1.04-1.06 ms, with
 * ordinary stores FLOAT16 0.53 against 0.69-0.96 ms, BFLOAT16 0.64
 * against 1.11 ms; from memory, streamed, FLOAT16 1.06-1.09 against
 * 1.27-1.59 ms, BFLOAT16 1.21-1.25 against 1.42 ms.  Out of line:
 * inlined into its loop, an earlier step had GCC keep the 32 row
 * addresses on the stack.  Where CHECK fires, REDO(src, ss, dst, ds)
 * gives the exact flag: after the stores, or, when EARLY, before them and
 * instead of them (REDO then does the step's work). */
#define DEFINE_cvt_step(NAME, PAIR, COL, STORE, START, CHECK, REDO, EARLY)               \
static __attribute__((noinline)) bool NAME(const uint8_t *src, size_t ss, uint8_t *dst, \
                                            size_t ds)                                  \
{                                                                                       \
    __m512i r[16], hi = START, uhi = _mm512_setzero_si512();                            \
    TL_UNROLL                                                                           \
    for (int i = 0; i < 16; i++)                                                        \
        r[i] = PAIR(src + 2 * i * ss, src + (2 * i + 1) * ss, &hi, &uhi);               \
    if ((EARLY) && CHECK(hi, uhi))                                                      \
        return REDO(src, ss, dst, ds);                                                  \
    butterfly_w4_regs(r);                                                               \
    TL_UNROLL                                                                           \
    for (int j = 0; j < 16; j++)                                                        \
        STORE((void *)(dst + COL(j) * ds), r[j]);                                       \
    return !(EARLY) && CHECK(hi, uhi) && REDO(src, ss, dst, ds);                        \
}

/* The exact BFLOAT16 steps: hi keeps the largest finite magnitude
 * (keep_big; uhi is unused), and their flag is the answer (nothing to
 * redo). */
#define EXACT_BF16(hi, uhi) ((void)(uhi), reached(hi, TL_OVF_BF16))
#define EXACT_F16(hi, uhi) ((void)(uhi), reached(hi, TL_OVF_F16))
#define NO_REDO(s, ss, d, ds) true
#define ZERO _mm512_setzero_si512()
DEFINE_cvt_step(step_bf16_exact, pair_bf16_exact, COL_BF16, _mm512_storeu_si512, ZERO, EXACT_BF16,
                NO_REDO, 0)
DEFINE_cvt_step(step_bf16_nt_exact, pair_bf16_exact, COL_BF16, _mm512_stream_si512, ZERO,
                EXACT_BF16, NO_REDO, 0)
DEFINE_cvt_step(step_f16_exact, pair_f16_exact, COL_F16, _mm512_storeu_si512, ZERO, EXACT_F16,
                NO_REDO, 0)
DEFINE_cvt_step(step_f16_nt_exact, pair_f16_exact, COL_F16, _mm512_stream_si512, ZERO, EXACT_F16,
                NO_REDO, 0)

/* FLOAT16's exact flag where the quick one fired, from the step's source
 * alone: its results are right already (kern_avx2.c's flag_f16). */
static __attribute__((noinline)) bool flag_f16(const uint8_t *src, size_t ss, uint8_t *dst,
                                               size_t ds)
{
    (void)dst, (void)ds;
    __m512i big = _mm512_setzero_si512();
    for (int i = 0; i < 32; i++)
        big = keep_big(big, _mm512_loadu_si512((const void *)(src + i * ss)));
    return reached(big, TL_OVF_F16);
}

/* The steps the drivers call: quick, and where the quick check fires
 * (rare in real data: kern_avx2.c) the exact flag (FLOAT16) or step
 * (BFLOAT16).  BFLOAT16's quick results can be wrong (a NaN's), so its
 * step checks before it stores, and where the check fires, the exact step
 * does the work instead: no line is written twice.  (Redoing the step
 * after its stores streamed each line of a step with a NaN twice:
 * nchw_f32_nhwc_bf16_nan, a NaN in every 97 values, ran at 0.37-0.45 of
 * memcpy; Intel Xeon family 6 model 207 guest, one thread.)  After a step
 * whose check fires, the thread's next SURE_STEPS steps go the exact way
 * unchecked, as AVX2's do: where most steps hold a NaN, each paid for the
 * quick pass and then the exact one.  _nan 0.59-0.61 to 0.74-0.75 of
 * memcpy on one thread, 0.64-0.69 to 0.84-0.91 on two (BFLOAT16);
 * 0.60-0.69 to 0.74-0.82, and 0.74-0.83 to 0.89-0.97 (FLOAT16); the _m
 * cases the same. */
#define LEAST _mm512_set1_epi32(INT32_MIN)
enum { SURE_STEPS = 8 };
static _Thread_local unsigned sure;     /* steps left to go the exact way unchecked */
#define DEFINE_sure_step(NAME, PAIR, COL, STORE, CHECK, REDO, EARLY)                       \
static bool NAME##_fired(const uint8_t *src, size_t ss, uint8_t *dst, size_t ds)           \
{                                                                                          \
    sure = SURE_STEPS;                                                                     \
    return REDO(src, ss, dst, ds);                                                         \
}                                                                                          \
DEFINE_cvt_step(NAME##_quick, PAIR, COL, STORE, LEAST, CHECK, NAME##_fired, EARLY)         \
static bool NAME(const uint8_t *src, size_t ss, uint8_t *dst, size_t ds)                   \
{                                                                                          \
    if (!sure)                                                                             \
        return NAME##_quick(src, ss, dst, ds);                                             \
    sure--;                                                                                \
    return NAME##_exact(src, ss, dst, ds);                                                 \
}
DEFINE_sure_step(step_f16, pair_f16, COL_F16, _mm512_storeu_si512, f16_odd, flag_f16, 0)
DEFINE_sure_step(step_f16_nt, pair_f16, COL_F16, _mm512_stream_si512, f16_odd, flag_f16, 0)
DEFINE_sure_step(step_bf16, pair_bf16, COL_BF16, _mm512_storeu_si512, bf16_odd, step_bf16_exact, 1)
DEFINE_sure_step(step_bf16_nt, pair_bf16, COL_BF16, _mm512_stream_si512, bf16_odd,
                 step_bf16_nt_exact, 1)

/* Transposes that convert FLOAT32 to FLOAT16 or BFLOAT16 in the block:
 * one pass, no staging buffer (plan.c). */
TL_DEFINE_TRANSPOSE_CVT(tcvt_f32_f16, TL_DT_FLOAT32, 4, TL_DT_FLOAT16, 2, 16, block_w4_f16, 32,
                        step_f16, step_f16_nt, _mm_sfence())
TL_DEFINE_TRANSPOSE_CVT(tcvt_f32_bf16, TL_DT_FLOAT32, 4, TL_DT_BFLOAT16, 2, 16, block_w4_bf16, 32,
                        step_bf16, step_bf16_nt, _mm_sfence())

#define LD(p) _mm512_loadu_si512((const void *)(p))
#define ST_U(p, v) _mm512_storeu_si512((void *)(p), (v))
#define ST_NT(p, v) _mm512_stream_si512((void *)(p), (v))
#define SET1_8(x) _mm512_set1_epi8((char)(x))
#define SET1_16(x) _mm512_set1_epi16((short)(x))
#define SET1_32(x) _mm512_set1_epi32((int)(x))
#define SET1_64(x) _mm512_set1_epi64((long long)(x))
TL_DEFINE_FILLS(avx512, __m512i, 64, ST_U, SET1_8, SET1_16, SET1_32, SET1_64)
TL_DEFINE_STREAMING(avx512, __m512i, 64, ST_NT, LD, SET1_8, SET1_16, SET1_32, SET1_64, _mm_sfence())

/* ---- conversions, 16 lanes ------------------------------------------------
 * FLOAT32 to FLOAT16 with the AVX-512F conversion; to BFLOAT16 by integer
 * rounding, not with AVX-512 BF16's VCVT(NE2)PS2BF16, which flushes subnormal
 * inputs to zero where SPEC section 7 keeps them.  Tried with a guard
 * (VFPCLASSPS on every input, a step holding a subnormal redone by the
 * integer step): faster on cached data (the streamed step 0.58 against 0.67
 * ms), even from memory, and about 10% slower in make bench at 1 thread,
 * whose random-byte sources put a subnormal in most steps, so they paid for
 * both.  FLOAT16 and BFLOAT16 to FLOAT32 keep AVX2's kernels: 16-lane
 * versions, though faster on data in L1, made the streamed conversions
 * slower (make bench, 1 thread: f16_f32_flat_l 23-25 against 35-39 GB/s,
 * the same from BFLOAT16 33 against 39 GB/s).  Tails go to the scalar
 * converter. */

/* FLOAT32 into FLOAT16 or BFLOAT16 (DDT) by STORE, 16 lanes a step, the
 * overflow flag kept on the way (copy.h). */
#define DEFINE_cvt_narrow(NAME, STORE, AT, DDT)                                             \
static bool NAME(const uint8_t *src, uint8_t *dst, size_t n)                                \
{                                                                                           \
    size_t i = 0;                                                                           \
    __m512i big = _mm512_setzero_si512();                                                   \
    for (; i + 16 <= n; i += 16) {                                                          \
        __m512i v = _mm512_loadu_si512(src + 4 * i);                                        \
        big = keep_big(big, v);                                                             \
        STORE(dst + 2 * i, v);                                                              \
    }                                                                                       \
    bool bad = reached(big, AT);                                                            \
    return (i < n && tl_cvt_scalar(TL_DT_FLOAT32, DDT, src + 4 * i, dst + 2 * i, n - i)) || \
           bad;                                                                             \
}
DEFINE_cvt_narrow(cvt_f32_f16, ST_F16, TL_OVF_F16, TL_DT_FLOAT16)
DEFINE_cvt_narrow(cvt_f32_bf16, ST_BF16, TL_OVF_BF16, TL_DT_BFLOAT16)

static inline __m512 bytes_ps(const uint8_t *p, bool sign)
{
    __m128i b = _mm_loadu_si128((const __m128i *)(const void *)p);
    return _mm512_cvtepi32_ps(sign ? _mm512_cvtepi8_epi32(b) : _mm512_cvtepu8_epi32(b));
}

#define DEFINE_cvt_byte(NAME, SDT, SIGN, DDT, DES, STORE)                                   \
static bool NAME(const uint8_t *src, uint8_t *dst, size_t n)                                \
{                                                                                           \
    size_t i = 0;                                                                           \
    for (; i + 16 <= n; i += 16) {                                                          \
        __m512 v = bytes_ps(src + i, SIGN);                                                 \
        STORE;                                                                              \
    }                                                                                       \
    return tl_cvt_scalar(SDT, DDT, src + i, dst + DES * i, n - i);                          \
}
/* The first m of 16 bytes at p (the others not read) as FLOAT32. */
static inline __m512 bytes_ps_mask(const uint8_t *p, __mmask16 m, bool sign)
{
    __m128i b = _mm_maskz_loadu_epi8(m, p);
    return _mm512_cvtepi32_ps(sign ? _mm512_cvtepi8_epi32(b) : _mm512_cvtepu8_epi32(b));
}

/* Bytes to FLOAT32 store a whole line at a time: a first store under a
 * mask up to a line's start (where the output's elements are aligned),
 * the rest under a mask too.  Stores across lines made make bench
 * hwc_u8_chw_f32 (whose pieces of rows start anywhere in a line) run
 * behind AVX2's kernel: 0.75-0.83 of memcpy against its 0.86-0.88 on one
 * thread, four alternating runs; aligned, 0.72-0.88 against 0.69-0.88,
 * and u8_f32_flat 0.92-0.96 against 0.81-0.92 (Intel Xeon family 6 model
 * 207 guest). */
#define DEFINE_cvt_byte_f32(NAME, SIGN)                                                     \
static bool NAME(const uint8_t *src, uint8_t *dst, size_t n)                                \
{                                                                                           \
    size_t i = 0;                                                                           \
    if (((uintptr_t)dst & 3) == 0 && ((uintptr_t)dst & 63) != 0 && n) {                     \
        size_t k = (64 - ((uintptr_t)dst & 63)) / 4;                                        \
        i = k < n ? k : n;                                                                  \
        __mmask16 m = (__mmask16)((1u << i) - 1);                                           \
        _mm512_mask_storeu_ps(dst, m, bytes_ps_mask(src, m, SIGN));                         \
    }                                                                                       \
    for (; i + 16 <= n; i += 16)                                                            \
        _mm512_storeu_ps(dst + 4 * i, bytes_ps(src + i, SIGN));                             \
    if (i < n) {                                                                            \
        __mmask16 m = (__mmask16)((1u << (n - i)) - 1);                                     \
        _mm512_mask_storeu_ps(dst + 4 * i, m, bytes_ps_mask(src + i, m, SIGN));             \
    }                                                                                       \
    return false;                  /* every byte's value is exact in FLOAT32 */             \
}
DEFINE_cvt_byte_f32(cvt_u8_f32, false)
DEFINE_cvt_byte_f32(cvt_i8_f32, true)
DEFINE_cvt_byte(cvt_u8_f16, TL_DT_UINT8, false, TL_DT_FLOAT16, 2,
                _mm256_storeu_si256((__m256i *)(void *)(dst + 2 * i), _mm512_cvtps_ph(v, FROUND)))
DEFINE_cvt_byte(cvt_i8_f16, TL_DT_INT8, true, TL_DT_FLOAT16, 2,
                _mm256_storeu_si256((__m256i *)(void *)(dst + 2 * i), _mm512_cvtps_ph(v, FROUND)))
/* a byte's value is exact in BFLOAT16: its FLOAT32's top half (kern_avx2.c) */
#define STORE_BF16(v)                                                                        \
    _mm256_storeu_si256((__m256i *)(void *)(dst + 2 * i),                                    \
                        _mm512_cvtepi32_epi16(_mm512_srli_epi32(_mm512_castps_si512(v), 16)))
DEFINE_cvt_byte(cvt_u8_bf16, TL_DT_UINT8, false, TL_DT_BFLOAT16, 2, STORE_BF16(v))
DEFINE_cvt_byte(cvt_i8_bf16, TL_DT_INT8, true, TL_DT_BFLOAT16, 2, STORE_BF16(v))

static inline bool f32_bytes(const uint8_t *src, uint8_t *dst, size_t n, float lo, float hi,
                             enum tl_dtype ddt)
{
    const __m512 vlo = _mm512_set1_ps(lo), vhi = _mm512_set1_ps(hi);
    const __m512 below = _mm512_set1_ps(lo - 1), above = _mm512_set1_ps(hi + 1);
    __mmask16 ok = 0xffff;
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        __m512 v = _mm512_loadu_ps(src + 4 * i);
        ok &= _mm512_cmp_ps_mask(v, below, _CMP_GT_OQ) & _mm512_cmp_ps_mask(v, above, _CMP_LT_OQ);
        v = _mm512_maskz_mov_ps(_mm512_cmp_ps_mask(v, v, _CMP_ORD_Q), v);    /* NaN -> 0 */
        __m512i x = _mm512_cvttps_epi32(_mm512_min_ps(_mm512_max_ps(v, vlo), vhi));
        _mm_storeu_si128((__m128i *)(void *)(dst + i), _mm512_cvtepi32_epi8(x));
    }
    bool bad = ok != 0xffff;
    return tl_cvt_scalar(TL_DT_FLOAT32, ddt, src + 4 * i, dst + i, n - i) || bad;
}

static bool cvt_f32_u8(const uint8_t *src, uint8_t *dst, size_t n)
{
    return f32_bytes(src, dst, n, 0, 255, TL_DT_UINT8);
}

static bool cvt_f32_i8(const uint8_t *src, uint8_t *dst, size_t n)
{
    return f32_bytes(src, dst, n, -128, 127, TL_DT_INT8);
}

/* ---- 4-bit elements (as kern_avx2.c's, 64 bytes at a time) --------------
 * unpack interleaves within 128-bit lanes and puts the lanes in order with
 * a two-source qword permute; pack narrows each 16-bit pair's low byte
 * with vpmovwb, which keeps the order. */
static inline void unpack4(const uint8_t *src, uint8_t *dst, size_t n, int sgn)
{
    const __m512i m = _mm512_set1_epi8(15), e = _mm512_set1_epi8(8);
    const __m512i i0 = _mm512_set_epi64(11, 10, 3, 2, 9, 8, 1, 0);
    const __m512i i1 = _mm512_set_epi64(15, 14, 7, 6, 13, 12, 5, 4);
    size_t i = 0;
    for (; i + 128 <= n; i += 128) {
        __m512i b = _mm512_loadu_si512((const void *)(src + i / 2));
        __m512i lo = _mm512_and_si512(b, m), hi = _mm512_and_si512(_mm512_srli_epi16(b, 4), m);
        __m512i x0 = _mm512_unpacklo_epi8(lo, hi), x1 = _mm512_unpackhi_epi8(lo, hi);
        __m512i y0 = _mm512_permutex2var_epi64(x0, i0, x1);
        __m512i y1 = _mm512_permutex2var_epi64(x0, i1, x1);
        if (sgn) {
            y0 = _mm512_sub_epi8(_mm512_xor_si512(y0, e), e);
            y1 = _mm512_sub_epi8(_mm512_xor_si512(y1, e), e);
        }
        _mm512_storeu_si512((void *)(dst + i), y0);
        _mm512_storeu_si512((void *)(dst + i + 64), y1);
    }
    /* the rest, a run of 64 among them (a transpose's tile rows often
     * are), by AVX2's kernel, 32 bytes at once, not element by element
     * (i4_transpose: 0.02 -> 0.09 of memcpy) */
    tl_kernels_avx2.unpack4[sgn](src + i / 2, dst + i, n - i);
}

static inline bool pack4(const uint8_t *src, uint8_t *dst, size_t n, int sgn)
{
    __m512i bad = _mm512_setzero_si512();
    size_t i = 0;
    for (; i + 64 <= n; i += 64) {
        __m512i v = _mm512_loadu_si512((const void *)(src + i));
        __m512i c = sgn ? _mm512_max_epi8(_mm512_min_epi8(v, _mm512_set1_epi8(7)),
                                          _mm512_set1_epi8(-8))
                        : _mm512_min_epu8(v, _mm512_set1_epi8(15));
        bad = _mm512_or_si512(bad, _mm512_xor_si512(c, v));
        c = _mm512_and_si512(c, _mm512_set1_epi8(15));
        __m512i w = _mm512_or_si512(c, _mm512_srli_epi16(c, 4));
        _mm256_storeu_si256((__m256i *)(dst + i / 2), _mm512_cvtepi16_epi8(w));
    }
    return (_mm512_test_epi64_mask(bad, bad) != 0) | tl_pack4_scalar(src + i, dst + i / 2, n - i, sgn);
}

static void unpack_u4(const uint8_t *s, uint8_t *d, size_t n) { unpack4(s, d, n, 0); }
static void unpack_s4(const uint8_t *s, uint8_t *d, size_t n) { unpack4(s, d, n, 1); }
static bool pack_u4(const uint8_t *s, uint8_t *d, size_t n) { return pack4(s, d, n, 0); }
static bool pack_s4(const uint8_t *s, uint8_t *d, size_t n) { return pack4(s, d, n, 1); }

/* Block FP8 to BFLOAT16 by the scale's table (tl_fp8s_table), 32 codes a
 * step in 16-bit lanes, as kern_avx2.c's fp8s_bf16_table; a scale without
 * a table goes to the scalar twin. */
static void fp8s_bf16(const uint8_t *c, const uint8_t *t, float scale, uint8_t *y, size_t n)
{
    size_t i = 0;
    if (t) {
        const __m512i tlo = _mm512_broadcast_i32x4(_mm_loadu_si128((const __m128i *)(const void *)t)),
                      thi = _mm512_broadcast_i32x4(
                                _mm_loadu_si128((const __m128i *)(const void *)(t + 16)));
        const __m512i zs = _mm512_set1_epi16(scale < 0 ? (short)0x8000 : 0);
        for (; i + 32 <= n; i += 32) {
            __m512i w = _mm512_cvtepu8_epi16(_mm256_loadu_si256((const __m256i *)(const void *)(c + i)));
            __m512i e = _mm512_and_si512(_mm512_srli_epi16(w, 3), _mm512_set1_epi16(15));
            __mmask32 sub = _mm512_cmpeq_epi16_mask(e, _mm512_setzero_si512());
            __m512i key = _mm512_and_si512(w, _mm512_set1_epi16(7));
            key = _mm512_mask_add_epi16(key, sub, key, _mm512_set1_epi16(8));
            key = _mm512_or_si512(key, _mm512_slli_epi16(key, 8));  /* in both bytes */
            __m512i x = _mm512_mask_blend_epi8(0xaaaaaaaaaaaaaaaaull, _mm512_shuffle_epi8(tlo, key),
                                               _mm512_shuffle_epi8(thi, key));
            x = _mm512_add_epi16(x, _mm512_slli_epi16(e, 7));
            __m512i mag = _mm512_and_si512(w, _mm512_set1_epi16(0x7f));
            x = _mm512_mask_blend_epi16(_mm512_cmpeq_epi16_mask(mag, _mm512_setzero_si512()), x, zs);
            x = _mm512_xor_si512(x, _mm512_slli_epi16(_mm512_and_si512(w, _mm512_set1_epi16(0x80)), 8));
            x = _mm512_mask_blend_epi16(_mm512_cmpeq_epi16_mask(mag, _mm512_set1_epi16(0x7f)), x,
                                        _mm512_set1_epi16(0x7fc0));
            _mm512_storeu_si512((void *)(y + 2 * i), x);
        }
    }
    tl_fp8s_bf16_scalar(c + i, t, scale, y + 2 * i, n - i);
}

/* Block FP8 to BFLOAT16 by each block's table of 256 results (copy.h,
 * fp8s_lut), 64 codes a step with AVX-512 VBMI's byte permutes: the low
 * bytes looked up by the code's 7 low bits in a 128-byte table, the high
 * bytes in the two halves of a 256-byte one chosen by the code's sign,
 * then the two interleaved into 64 BFLOAT16 values.  The table lives in
 * registers for its block's 128 codes.  Not in the table below: cpu.c
 * sets it where the CPU has VBMI. */
#define VBMI __attribute__((target("avx512f,avx512bw,avx512vbmi")))

static const uint8_t zip_idx[2][64] __attribute__((aligned(64))) = {
#define Z(j) (j) / 2 + ((j) % 2) * 64
#define Z8(j) Z(j), Z(j + 1), Z(j + 2), Z(j + 3), Z(j + 4), Z(j + 5), Z(j + 6), Z(j + 7)
    { Z8(0), Z8(8), Z8(16), Z8(24), Z8(32), Z8(40), Z8(48), Z8(56) },
#undef Z
#define Z(j) 32 + (j) / 2 + ((j) % 2) * 64
    { Z8(0), Z8(8), Z8(16), Z8(24), Z8(32), Z8(40), Z8(48), Z8(56) },
#undef Z
#undef Z8
};

static inline void lut_store(uint8_t *y, __m512i v, __mmask64 m, bool stream)
{
    if (m != ~0ull)
        _mm512_mask_storeu_epi8(y, m, v);
    else if (stream && ((uintptr_t)y & 63) == 0)
        _mm512_stream_si512((void *)y, v);
    else
        _mm512_storeu_si512((void *)y, v);
}

VBMI void tl_fp8s_lut_vbmi(const uint8_t *c, const struct tl_fp8s_lut *lut, size_t in,
                           uint8_t *y, size_t n, bool stream)
{
    const __m512i z0 = _mm512_load_si512((const void *)zip_idx[0]),
                  z1 = _mm512_load_si512((const void *)zip_idx[1]);
    for (size_t i = 0, len = in; i < n; lut++, len = 128) {
        if (len > n - i)
            len = n - i;
        const __m512i l0 = _mm512_load_si512((const void *)lut->lo),
                      l1 = _mm512_load_si512((const void *)(lut->lo + 64)),
                      h0 = _mm512_load_si512((const void *)lut->hi),
                      h1 = _mm512_load_si512((const void *)(lut->hi + 64)),
                      h2 = _mm512_load_si512((const void *)(lut->hi + 128)),
                      h3 = _mm512_load_si512((const void *)(lut->hi + 192));
        for (size_t end = i + len; i < end;) {
            size_t k = end - i < 64 ? end - i : 64;
            __mmask64 m = k == 64 ? ~0ull : (1ull << k) - 1;
            /* the codes' stream ahead of the loads: 0.81 of memcpy without, 0.96 with (Zen 4) */
            _mm_prefetch((const char *)c + i + 1024, _MM_HINT_T0);
            __m512i x = _mm512_maskz_loadu_epi8(m, c + i);
            __m512i lo = _mm512_permutex2var_epi8(l0, x, l1);
            __m512i hi = _mm512_mask_blend_epi8(_mm512_movepi8_mask(x),
                                                _mm512_permutex2var_epi8(h0, x, h1),
                                                _mm512_permutex2var_epi8(h2, x, h3));
            __m512i a = _mm512_permutex2var_epi8(lo, z0, hi), b = _mm512_permutex2var_epi8(lo, z1, hi);
            lut_store(y + 2 * i, a, k >= 32 ? ~0ull : (1ull << 2 * k) - 1, stream);
            if (k > 32)
                lut_store(y + 2 * i + 64, b, k == 64 ? ~0ull : (1ull << 2 * (k - 32)) - 1, stream);
            i += k;
        }
    }
}

/* Block FP8 to BFLOAT16 by each block's nibble tables (copy.h,
 * tl_fp8s_lut) with AVX-512BW's in-lane byte shuffles, for a CPU without
 * VBMI (cpu.c gives the kernel above to one with it): kern_avx2.c's
 * fp8s_lut 64 codes a step, its selections by mask registers, and the
 * codes of a block's run short of 64 loaded and stored under a mask.  A
 * block without nibble tables goes a code at a time by lo and hi.  Timed
 * on a CPU with VBMI, with cpu.c's choice of the VBMI kernel switched off
 * (make bench scaled_fp8_bf16, three alternating runs, Intel Xeon family
 * 6 model 207 guest): 0.73-0.78 of memcpy, where the VBMI kernel gave
 * 0.70-0.75 and AVX2's, which such a CPU ran before, 0.47-0.61; without
 * asking for the codes ahead, 0.54-0.72. */
static inline __m512i table16(const uint8_t *t)
{
    return _mm512_broadcast_i32x4(_mm_load_si128((const __m128i *)(const void *)t));
}

static void fp8s_lut(const uint8_t *c, const struct tl_fp8s_lut *lut, size_t in, uint8_t *y,
                     size_t n, bool stream)
{
    /* quadwords 0 4 1 5 2 6 3 7: lane j holds codes 8j.. and 32 + 8j.., so
     * that the in-lane interleaves give codes 0-31, then 32-63, in order */
    const __m512i spread = _mm512_set_epi64(7, 3, 6, 2, 5, 1, 4, 0);
    const __m512i low4 = _mm512_set1_epi8(0x0f), exp_lo = _mm512_set1_epi8(0x78),
                  seven = _mm512_set1_epi8(7), sign = _mm512_set1_epi8((char)0x80),
                  mag = _mm512_set1_epi8(0x7f);
    for (size_t i = 0, len = in; i < n; lut++, len = 128) {
        if (len > n - i)
            len = n - i;
        size_t end = i + len;
        if (!lut->nib_ok) {
            tl_fp8s_lut_codes(c + i, lut, y + 2 * i, len);
            i = end;
            continue;
        }
        const __m512i nlo = table16(lut->nlo), nhi = table16(lut->nhi), slo = table16(lut->slo),
                      shi = table16(lut->shi);
        const __m512i nan_lo = _mm512_set1_epi8((char)lut->lo[0x7f]),
                      nan_pos = _mm512_set1_epi8((char)lut->hi[0x7f]),
                      nan_neg = _mm512_set1_epi8((char)lut->hi[0xff]);
        while (i < end) {
            size_t k = end - i < 64 ? end - i : 64;
            __mmask64 m = k == 64 ? ~0ull : (1ull << k) - 1;
            _mm_prefetch((const char *)c + i + 1024, _MM_HINT_T0);     /* as above */
            __m512i x = _mm512_permutexvar_epi64(spread, _mm512_maskz_loadu_epi8(m, c + i));
            __m512i ki = _mm512_and_si512(x, low4);
            __mmask64 sub = _mm512_testn_epi8_mask(x, exp_lo);
            __mmask64 neg = _mm512_movepi8_mask(x);
            __mmask64 nan = _mm512_cmpeq_epi8_mask(_mm512_and_si512(x, mag), mag);
            __m512i e = _mm512_and_si512(_mm512_srli_epi16(x, 4), seven);
            __m512i lo = _mm512_mask_blend_epi8(sub, _mm512_shuffle_epi8(nlo, ki),
                                                _mm512_shuffle_epi8(slo, ki));
            __m512i hi = _mm512_mask_blend_epi8(sub,
                                                _mm512_add_epi8(_mm512_shuffle_epi8(nhi, ki), e),
                                                _mm512_shuffle_epi8(shi, ki));
            hi = _mm512_ternarylogic_epi32(hi, x, sign, 0x78);      /* hi ^ (x & sign) */
            lo = _mm512_mask_mov_epi8(lo, nan, nan_lo);
            hi = _mm512_mask_mov_epi8(hi, nan, _mm512_mask_blend_epi8(neg, nan_pos, nan_neg));
            __m512i a = _mm512_unpacklo_epi8(lo, hi), b = _mm512_unpackhi_epi8(lo, hi);
            lut_store(y + 2 * i, a, k >= 32 ? ~0ull : (1ull << 2 * k) - 1, stream);
            if (k > 32)
                lut_store(y + 2 * i + 64, b, k == 64 ? ~0ull : (1ull << 2 * (k - 32)) - 1, stream);
            i += k;
        }
    }
}

const struct tl_kernels tl_kernels_avx512 = {
    /* 16-bit transposes keep AVX2's: two-source word permutes (vpermt2w)
     * measured 10-20% slower than its unpacks on every machine tried */
    .transpose = { NULL, NULL, transpose_w4, transpose_w8 },
    .transpose_nt = { NULL, NULL, transpose_w4_nt, transpose_w8_nt },
    .fill = { avx512_fill_w1, avx512_fill_w2, avx512_fill_w4, avx512_fill_w8 },
    .fill_nt = { avx512_fill_nt_w1, avx512_fill_nt_w2, avx512_fill_nt_w4, avx512_fill_nt_w8 },
    .copy_stream = avx512_copy_stream,     /* .copy: 512-bit stores measured slower than AVX2's */
    .fence = avx512_store_fence,
    .cvt = {
        [TL_DT_FLOAT32] = { [TL_DT_FLOAT16] = cvt_f32_f16, [TL_DT_BFLOAT16] = cvt_f32_bf16,
                            [TL_DT_UINT8] = cvt_f32_u8, [TL_DT_INT8] = cvt_f32_i8 },
        [TL_DT_UINT8] = { [TL_DT_FLOAT32] = cvt_u8_f32, [TL_DT_FLOAT16] = cvt_u8_f16,
                          [TL_DT_BFLOAT16] = cvt_u8_bf16 },
        [TL_DT_INT8] = { [TL_DT_FLOAT32] = cvt_i8_f32, [TL_DT_FLOAT16] = cvt_i8_f16,
                         [TL_DT_BFLOAT16] = cvt_i8_bf16 },
    },
    .tcvt = { [TL_DT_FLOAT32] = { [TL_DT_FLOAT16] = tcvt_f32_f16, [TL_DT_BFLOAT16] = tcvt_f32_bf16 } },
    .tcvt_nt = { [TL_DT_FLOAT32] = { [TL_DT_FLOAT16] = tcvt_f32_f16_nt,
                                     [TL_DT_BFLOAT16] = tcvt_f32_bf16_nt } },
    .unpack4 = { unpack_u4, unpack_s4 },
    .pack4 = { pack_u4, pack_s4 },
    .gq = { tl_gq4_avx512, tl_gq8_avx512 },
    .gq_bf16 = { tl_gq4_bf16_avx512, tl_gq8_bf16_avx512 },
    .gq4_bf16_groups = tl_gq4g_bf16_avx512,
    .awq8 = tl_awq8_avx512,
    .dequant = TL_DEQUANT_AVX512,
    .fp8s_bf16 = fp8s_bf16,
    .fp8s_lut = fp8s_lut,
};
