/*
 * copy.h - the strided copy engine: plans, kernel tables, dispatch.
 *
 * A copy moves every element of a source tensor to the same logical index
 * of a destination tensor of the same sizes, converting its data type on
 * the way when the two types differ (convert.c).  tl_copy_plan()
 * normalizes the pair the way numpy prepares a two-array iteration: it drops
 * size-1 axes, orders the axes for the destination (largest destination
 * stride outermost), and merges neighbours that are contiguous in both.
 * Then it classifies the innermost shape and picks a kernel:
 *
 *   CONTIG       destination and source both contiguous: memcpy of rows
 *   FILL         source stride 0 along a contiguous destination: broadcast
 *   INTERLEAVE   C = 2, 3, 4 planes into packed pixels (CHW -> HWC)
 *   DEINTERLEAVE packed pixels into C = 2, 3, 4 planes (HWC -> CHW)
 *   TRANSPOSE    a 2-D transpose, tiled, with in-register SIMD blocks
 *   GENERAL      anything else: a plain strided element loop
 *
 * Kernels come from struct tl_kernels tables, one per instruction set.
 * Each kern_<isa>.c is compiled with that ISA's flags and nothing else,
 * and exports one table, const struct tl_kernels tl_kernels_<isa>, whose
 * unimplemented slots are NULL.  cpu.c builds the active table once: it
 * starts from the scalar table and, for each ISA the CPU supports up to the
 * ceiling, overwrites the slots that ISA fills (libyuv's way), so a partial
 * ISA never leaves a hole and an AVX-512 gap falls back to AVX2.
 *
 * Figures these files quote "kernel against kernel" are one kernel slot of
 * two ISAs (or two versions of a kernel) timed alternating on the same
 * buffers, as `make sweep ARGS="kernels SLOT W ROWS COLS"` times the slots
 * in the tree (tests/bench/sweep.c); a figure of a version no longer in
 * the tree stays as the reason it is not.
 *
 * Adding an ISA:
 *   1. Write src/copy/kern_<isa>.c exporting tl_kernels_<isa>; reuse the
 *      static inline drivers of kern_drivers.h for tails and tiling.
 *   2. Give the file its flags in the Makefile (%_<isa>.o: ISAFLAGS = ...).
 *   3. Add a TL_ISA_* value, its name, its detection in cpu.c and its row in
 *      the upgrade order; the differential test then covers it.
 */
#ifndef TL_COPY_H
#define TL_COPY_H

#include <stddef.h>
#include <stdint.h>

#include "../core/tl.h"

/* ---- plans (plan.c) ----------------------------------------------------- */

/* What a plan does, for tests and for --verbose diagnostics. */
enum tl_copy_kind {
    TL_COPY_CONTIG, TL_COPY_FILL, TL_COPY_INTERLEAVE, TL_COPY_DEINTERLEAVE,
    TL_COPY_TRANSPOSE, TL_COPY_GENERAL
};
const char *tl_copy_kind_name(enum tl_copy_kind kind);

/* A normalized copy, ready to run (opaque to the library's users, who
 * hold one from tl_copy_plan_new()): tl_copy_plan() fills one in place. */
struct tl_copy_plan {
    enum tl_copy_kind kind;
    unsigned es, shift;                  /* source element size, log2 of it */
    enum tl_dtype sdt, ddt;              /* the data types; they differ when converting */
    unsigned des;                        /* destination element size */
    bool convert;                        /* sdt != ddt */
    bool snib, dnib;                     /* a 4-bit side: its strides and offset count
                                            nibbles, not bytes (plan.c) */
    unsigned ndim;                       /* normalized axes, outermost first */
    uint64_t n[TL_MAX_RANK];
    uint64_t ss[TL_MAX_RANK], ds[TL_MAX_RANK];   /* strides in bytes */
    unsigned a, b;                       /* the kernel's axes (see plan.c) */
    unsigned channels;                   /* C for (de)interleave */
    uint64_t src_offset, dst_offset;     /* element 0's place in each file */
    uint64_t count;                      /* elements copied */
    uint64_t src_bytes, dst_bytes;       /* the elements' bytes of each side */
    enum tl_isa isa;                     /* the ceiling when planned */
    bool stream;                         /* streaming stores, run on one thread */
    bool stream_threads;                 /* ... and run on two threads or more */
    uint64_t threads_from;               /* output bytes from which it runs on several */
    uint64_t threads_at[TL_CAL_LEVELS];  /* ... on 4 << l (tl_calib's) */
};

/* tl_copy_plan_new()'s planning, into *plan.  @return 0, or TL_E_MISMATCH
 * / TL_E_VALUE with err filled. */
int tl_copy_plan(struct tl_copy_plan *plan, const struct tl_desc *src,
                 const struct tl_desc *dst, struct tl_error *err);

/* The same with the choices a calibration implies (NULL: the built-in
 * rules) in place of the active one's: store kinds and thread floor are a
 * function of the shape and the calibration alone. */
struct tl_calib;
int tl_copy_plan_for(struct tl_copy_plan *plan, const struct tl_desc *src,
                     const struct tl_desc *dst, const struct tl_calib *cal,
                     struct tl_error *err);

/* Whether tl_copy_run(plan, ..., threads, ...) writes with streaming
 * stores: plan->stream or plan->stream_threads, by the number of threads
 * it runs on for that request (small copies stay on one). */
bool tl_copy_streams(const struct tl_copy_plan *plan, unsigned threads);

/* How many threads tl_copy_run(plan, ..., threads, ...) runs on. */
unsigned tl_copy_threads_used(const struct tl_copy_plan *plan, unsigned threads);

/* Whether running plan with ISA ceiling a calls the same kernels as with
 * ceiling b: the same code, so any difference in their speed is the
 * machine's (make bench times such ISAs once). */
bool tl_copy_plan_same_kernels(const struct tl_copy_plan *plan, enum tl_isa a, enum tl_isa b);

/* Element sizes are indexed by log2: w1, w2, w4, w8. */
#define TL_NW 4

/* Kernel contracts (all strides and planes in bytes, any alignment):
 *
 * transpose: src holds `rows` rows of `cols` contiguous elements, row r at
 *   src + r*ss; writes dst + c*ds + r*es = src + r*ss + c*es for every r, c.
 * fill: writes n copies of the element at val to dst (contiguous).
 * interleave (C channels): for i < n, k < C:
 *   dst[(i*C + k)*es] = src[k*plane + i*es]
 * deinterleave (C channels): for i < n, k < C:
 *   dst[k*plane + i*es] = src[(i*C + k)*es]
 * copy: memcpy(dst, src, bytes) for buffers that do not overlap.
 */
typedef void (*tl_transpose_fn)(const uint8_t *src, size_t ss, uint8_t *dst, size_t ds,
                                size_t rows, size_t cols);
typedef void (*tl_fill_fn)(uint8_t *dst, const uint8_t *val, size_t n);
typedef void (*tl_interleave_fn)(const uint8_t *src, size_t plane, uint8_t *dst, size_t n);
typedef void (*tl_deinterleave_fn)(const uint8_t *src, uint8_t *dst, size_t plane, size_t n);
typedef void (*tl_copy_fn)(const uint8_t *src, uint8_t *dst, size_t bytes);

/* Whether a transpose whose source rows are row_bytes long goes across
 * bands of rows rather than down column lines: rows of two to four cache
 * lines (NHWC of 32-64 FLOAT32 channels).  The kernels' loops
 * (kern_drivers.h) take that order, and the planner calibrates such
 * copies as a kind of their own (plan.c, TL_CAL_BANDS). */
static inline bool tl_transpose_in_bands(uint64_t row_bytes)
{
    return row_bytes >= 128 && row_bytes <= 256;
}

/* cvt[S][D]: converts n contiguous elements of type S at src into type D
 * at dst, exactly as tl_convert_value() does each (SPEC section 7); returns
 * true when some value was outside D's range, or a NaN bound for an
 * integer type (it was clamped, NaN to 0).  A NULL slot falls back to
 * tl_cvt_scalar(). */
typedef bool (*tl_cvt_fn)(const uint8_t *src, uint8_t *dst, size_t n);

/* tcvt[S][D]: a converting transpose, the transpose contract with elements
 * of type S read and of type D written: dst + c*ds + r*sizeof(D) receives
 * src + r*ss + c*sizeof(S) converted as cvt does it; returns as cvt does.
 * A NULL slot: the copy transposes into an L1 staging buffer and converts
 * from there (plan.c). */
typedef bool (*tl_tcvt_fn)(const uint8_t *src, size_t ss, uint8_t *dst, size_t ds, size_t rows,
                           size_t cols);

/* 4-bit elements (SPEC 12), two a byte, the lower index in the low nibble;
 * the slot's index is 0 for UINT4, 1 for INT4.  They never enter a layout
 * kernel: a copy unpacks them to one byte each (UINT4 as 0..15, INT4 as
 * the int8 -8..7) in an L1 staging buffer, moves and converts those with
 * the byte kernels, and packs the result (plan.c).
 *
 * unpack4: writes n elements, from the low nibble of src[0] on, to dst[0..n).
 * pack4: writes the n unpacked values at src as nibbles from the low one
 *   of dst[0] on; when n is odd, the high nibble of dst[n / 2] is kept.  A
 *   value outside the type's range is clamped to it; returns true when one
 *   was. */
typedef void (*tl_unpack4_fn)(const uint8_t *src, uint8_t *dst, size_t n);
typedef bool (*tl_pack4_fn)(const uint8_t *src, uint8_t *dst, size_t n);
/* nibpair: the first step of a 4-bit transpose done in bytes.  For two
 * rows of n bytes (2n nibbles each), writes for k < n:
 *   lo[k] = (r0[k] & 15) | r1[k] << 4      (the two rows' even nibbles)
 *   hi[k] = r0[k] >> 4 | (r1[k] & 0xf0)    (their odd nibbles)
 * so that byte k of lo is the pair (row 0, row 1) of column 2k, and of hi
 * of column 2k + 1: a byte transpose of lo and hi then writes the
 * transposed rows (plan.c, run_nib). */
typedef void (*tl_nibpair_fn)(const uint8_t *r0, const uint8_t *r1, uint8_t *lo, uint8_t *hi,
                              size_t n);

/* cmp[F32], cmp[F64]: the index of the first of n elements where a[i] == b[i]
 * does not hold (as floats: +0 equals -0, a NaN equals nothing), or n.
 * cmp[BYTES]: the index of the first of n bytes that differ, or n. */
enum { TL_CMP_F32, TL_CMP_F64, TL_CMP_BYTES, TL_NCMP };
typedef size_t (*tl_cmp_fn)(const uint8_t *a, const uint8_t *b, size_t n);

/* dequant[T]: decodes nb blocks of ggml's type number T (a block type the
 * tool decodes, ggml.c) at x into FLOAT32 values at y, bit for bit as
 * ggml's to_float (dequant.c has the scalar twins). */
#define TL_GGML_SLOTS 43
typedef void (*tl_dequant_fn)(const uint8_t *x, float *y, size_t nb);

/* mx4: decodes nb blocks of OCP's MXFP4 as a pair of tensors holds them
 * (SPEC 18, gpt-oss): block b's 16 bytes at q + 16b hold its 32 FP4 E2M1
 * codes, element 2j in the low nibble of byte j and 2j + 1 in the high
 * one, and its E8M0 exponent e[b] scales them by 2^(e[b] - 127).  Writes
 * the 32 nb FLOAT32 products at y: exact (code 8 is -0), infinite only
 * past FLOAT32's range.  dequant.c has the scalar twin. */
typedef void (*tl_mx4_fn)(const uint8_t *q, const uint8_t *e, float *y, size_t nb);

/* mx4_bf16: the same blocks' values as BFLOAT16 at y (64 bytes a block,
 * any alignment): each FLOAT32 product's top half, which is exact (a
 * product has at most two significant bits).
 * fp8s_bf16: n FLOAT8E4M3 codes at c, each value times scale in FLOAT32,
 * rounded to BFLOAT16 as tl_convert_value() rounds (a NaN quiet) at y: a
 * run of one block of DeepSeek's block-scaled weights.  t is scale's
 * table (tl_fp8s_table), or NULL when it has none; a kernel may use it.
 * dequant.c has the scalar twins. */
typedef void (*tl_mx4_16_fn)(const uint8_t *q, const uint8_t *e, uint8_t *y, size_t nb);
typedef void (*tl_fp8s_fn)(const uint8_t *c, const uint8_t *t, float scale, uint8_t *y,
                           size_t n);

/* fp8s_lut: the same values of a run of several blocks, by a table of
 * each block's 256 results (tl_fp8s_lut_make): the first `in` codes at c
 * (1 to 128) by lut[0], every 128 after them by the next table; n codes
 * in all, BFLOAT16 at y.  With stream, the stores that fill a whole cache
 * line stream it out (the caller fences).  AVX-512 VBMI's looks up 128
 * table bytes at once (cpu.c); AVX-512BW's and AVX2's look up 16, in the
 * four nibble tables where the block has them (nib_ok), else a code at a
 * time. */
struct tl_fp8s_lut {
    _Alignas(64) uint8_t lo[128];       /* low byte of code k, k < 128 (the
                                           sign does not change it) */
    uint8_t hi[256];                    /* high byte of code k */
    /* Where nib_ok, code k of magnitude 8 .. 126 has the low byte
     * nlo[k & 15] and the high byte (nhi[k & 15] + (k >> 4 & 7)) ^ (k &
     * 0x80): its exponent field's high bits added to the value of its low
     * four bits; a code below 8 (zero or subnormal) slo[k & 7] and
     * shi[k & 7] ^ (k & 0x80).  A NaN code (magnitude 127) is not in them. */
    _Alignas(16) uint8_t nlo[16];
    uint8_t nhi[16], slo[16], shi[16];
    bool nib_ok;
};
typedef void (*tl_fp8s_lut_fn)(const uint8_t *c, const struct tl_fp8s_lut *lut, size_t in,
                               uint8_t *y, size_t n, bool stream);

/* gq[0], gq[1]: group-quantized codes (SPEC 21) of 4 and 8 bits: for the
 * n codes at q (4-bit: two a byte, the first in the low nibble of q[0]),
 * y[k] = (float)(code k - zero) x scale, one rounding (none where the
 * product is exact, as it is for a FLOAT16 or BFLOAT16 scale).  dequant.c
 * has the scalar twins. */
typedef void (*tl_gq_fn)(const uint8_t *q, size_t n, int32_t zero, float scale, float *y);

/* gq_bf16[0], gq_bf16[1]: the same values rounded to BFLOAT16 as
 * tl_float_to_bfloat() rounds each FLOAT32 one (y: 2 bytes a value, any
 * alignment).  dequant.c has the scalar twins. */
typedef void (*tl_gq16_fn)(const uint8_t *q, size_t n, int32_t zero, float scale, uint8_t *y);

/* gq4_bf16_groups: ngroups runs of glen 4-bit codes each (glen even),
 * one after the other from q and y, run g with zero[g] and scale[g]:
 * what gq_bf16[0] writes run by run (building each run's values apart
 * from decoding its codes lets those of several runs overlap).  With
 * stream, the vectors that start a cache line's part aligned go out with
 * non-temporal stores (the caller fences): the values written straight to
 * a large output, not staged and copied (3 to 5 % of a decode's time).
 * dequant.c has the scalar twin. */
typedef void (*tl_gq4g_fn)(const uint8_t *q, size_t ngroups, size_t glen, const int32_t *zero,
                           const float *scale, uint8_t *y, bool stream);

/* awq8: AWQ's words (SPEC 21) as rows of codes.  src holds 8 inputs'
 * words, input r's ncol (at most 16) at src + r * stride, word c holding
 * the 4-bit codes of outputs 8c .. 8c + 7, output 8c + k's in nibble
 * place[k]; for c < ncol and k < 8, dst[k * dstride + c] (dstride >= ncol)
 * becomes output 8c + k's codes of the 8 inputs, input r's in nibble r: a
 * block of whole vectors, which the caller transposes into rows (a word
 * stored to each of 128 rows, scattered, took twice the time of decoding
 * them).  Nothing else of dst is written.  dequant.c has the scalar twin. */
typedef void (*tl_awq8_fn)(const uint8_t *src, size_t stride, size_t ncol,
                           const uint8_t place[8], uint32_t *dst, size_t dstride);

/* The _nt slots do the same with non-temporal (streaming) stores where the
 * destination's alignment allows, for outputs larger than the caches: they
 * write whole cache lines without reading them first, and order their
 * stores with a fence before they return.
 *
 * copy_stream is the streaming copy without that fence: its caller calls
 * fence() after the last piece it streams out (a fence after each 4 KiB
 * piece made a staged conversion 2.3x slower, plan.c). */
typedef void (*tl_fence_fn)(void);

/* Every slot of a kernel table, written once: X(type, name, bounds), where
 * bounds are the slot's array bounds (empty for a single function).
 * struct tl_kernels is made of them, and cpu.c's upgrade walks them, so a
 * new slot is a line here (and its calls in plan.c's choose_kernels).
 * copy_stream and fence are set together: an ISA's fence orders its own
 * streaming stores.  interleave and deinterleave are [C - 2][log2 es]. */
#define TL_KERNEL_SLOTS(X)                                   \
    X(tl_transpose_fn, transpose, [TL_NW])                   \
    X(tl_transpose_fn, transpose_nt, [TL_NW])                \
    X(tl_fill_fn, fill, [TL_NW])                             \
    X(tl_fill_fn, fill_nt, [TL_NW])                          \
    X(tl_copy_fn, copy, )                                    \
    X(tl_copy_fn, copy_stream, )                             \
    X(tl_fence_fn, fence, )                                  \
    X(tl_interleave_fn, interleave, [3][TL_NW])              \
    X(tl_deinterleave_fn, deinterleave, [3][TL_NW])          \
    X(tl_cvt_fn, cvt, [TL_DT_COUNT][TL_DT_COUNT])            \
    X(tl_tcvt_fn, tcvt, [TL_DT_COUNT][TL_DT_COUNT])          \
    X(tl_tcvt_fn, tcvt_nt, [TL_DT_COUNT][TL_DT_COUNT])       \
    X(tl_cmp_fn, cmp, [TL_NCMP])                             \
    X(tl_unpack4_fn, unpack4, [2])                           \
    X(tl_pack4_fn, pack4, [2])                               \
    X(tl_nibpair_fn, nibpair, )                              \
    X(tl_dequant_fn, dequant, [TL_GGML_SLOTS])              \
    X(tl_mx4_fn, mx4, )                                      \
    X(tl_mx4_16_fn, mx4_bf16, )                              \
    X(tl_fp8s_fn, fp8s_bf16, )                               \
    X(tl_fp8s_lut_fn, fp8s_lut, )                            \
    X(tl_gq_fn, gq, [2])                                     \
    X(tl_gq16_fn, gq_bf16, [2])                              \
    X(tl_gq4g_fn, gq4_bf16_groups, )                         \
    X(tl_awq8_fn, awq8, )

#define TL_KERNEL_FIELD(type, name, bounds) type name bounds;
struct tl_kernels {
    TL_KERNEL_SLOTS(TL_KERNEL_FIELD)
};
#undef TL_KERNEL_FIELD

extern const struct tl_kernels tl_kernels_scalar;
extern const struct tl_kernels tl_kernels_sse2;
extern const struct tl_kernels tl_kernels_avx2;
extern const struct tl_kernels tl_kernels_avx512;
extern const struct tl_kernels tl_kernels_neon;

/* An ISA's own table (NULL slots and all), or NULL when this build has
 * none for it. */
const struct tl_kernels *tl_kernels_own(enum tl_isa isa);

/* The table a copy with ISA `isa` as its ceiling uses: the scalar table
 * upgraded by every supported ISA up to isa, then the slots the active
 * calibration gives to a narrower ISA (tl_kernels_build).  Built once per
 * ISA, and again by tl_kernels_rebuild() when the calibration changes. */
const struct tl_kernels *tl_kernels_for(enum tl_isa isa);
void tl_kernels_build(enum tl_isa ceiling, const struct tl_calib *cal, struct tl_kernels *out);
void tl_kernels_rebuild(void);

/* The built-in rules (tl_calib_default), made once. */
const struct tl_calib *tl_calib_builtin(void);

/* The names of calibration kinds and slots, by index (calib.c). */
extern const char *const tl_cal_kind_names[TL_CAL_KINDS];
extern const char *const tl_cal_slot_names[TL_CAL_SLOTS];

/* The generic conversion of n contiguous elements, one tl_convert_value()
 * each: the scalar twin of every cvt slot. */
bool tl_cvt_scalar(enum tl_dtype sdt, enum tl_dtype ddt, const uint8_t *src, uint8_t *dst,
                   size_t n);

/* The generic converting transpose, one tl_convert_value() per element: the
 * scalar twin of every tcvt slot and their tails. */
bool tl_tcvt_scalar(enum tl_dtype sdt, enum tl_dtype ddt, const uint8_t *src, size_t ss,
                    uint8_t *dst, size_t ds, size_t rows, size_t cols);

/* Overflow into FLOAT16 and BFLOAT16 (SPEC 19: it is told): a finite
 * FLOAT32 whose magnitude's bits are at least TL_OVF_F16 (65520, halfway
 * past 65504) or TL_OVF_BF16 becomes +-Inf.  A kernel keeps the largest
 * finite magnitude's bits it converted (a compare and a max a vector; an
 * infinity or a NaN counts as 0) and reports an overflow when that reached
 * the threshold. */
#define TL_OVF_F16 0x477ff000u
#define TL_OVF_BF16 0x7f7f8000u

/* A team: fn(ctx, who) runs once for every who < n (at most TL_TEAM_MAX),
 * concurrently: who 0 on the calling thread, the others on the worker pool
 * (pool.c: threads started once, at the first team that wants them, and
 * kept for the process), or on threads of the team's own while the pool
 * serves another team.  A helper no thread could be started for runs on
 * the calling thread after who 0 returns, so the helpers must share their
 * work (a counter they take units from), not wait for each other.
 * tl_team_run returns when every call has returned.
 * tl_team_run_shared is for members that take all their work from such a
 * counter (a copy's units): a pool thread that has not begun its call by
 * the time who 0 returns is left out and not waited for (a helper whose
 * CPU another program holds cannot make a short copy wait for it to be
 * scheduled: 3 ms against a 60 us copy). */
#define TL_TEAM_MAX 256
typedef void (*tl_team_fn)(void *ctx, unsigned who);
void tl_team_run(unsigned n, tl_team_fn fn, void *ctx);
void tl_team_run_shared(unsigned n, tl_team_fn fn, void *ctx);

/* For the sweep harness (tests/bench/sweep.c): when not 0, the output size
 * from which a copy of any kind may run on several threads, in place of
 * its kind's thread floor (plan.c, thread_min_bytes; calib.c). */
extern uint64_t tl_copy_thread_floor;

/* The reference copy: a naive loop over every logical index, never
 * optimized, converting each element when the types differ.  The
 * differential tests compare everything against it. */
void tl_copy_ref(const struct tl_desc *src, const uint8_t *src_file,
                 const struct tl_desc *dst, uint8_t *dst_file);

#endif
