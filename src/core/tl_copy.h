/*
 * tl_copy.h - copies and conversions (src/copy/): the exact type converter, the instruction sets, copies and their plans, the calibration the planner follows.
 * Part of the core library's public interface; include tl.h for all of it.
 */
#ifndef TL_API_COPY_H
#define TL_API_COPY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tl_desc.h"

/* ---- copies (src/copy/) -------------------------------------------------- */

/* ---- type conversion (convert.c; SPEC section 7) ----------------------- */

/* Converts one element of type sdt at src into type ddt at dst (any
 * alignment): floats to nearest, ties to even (+-Inf beyond the range, NaN
 * stays NaN, subnormals kept); integers to floats to nearest, ties to even;
 * floats to integers toward zero; integers exactly.  @return true when the
 * value does not fit ddt: for an integer type (or FLOAT4E2M1) it is
 * outside the range, or a NaN or an infinity, and dst holds it clamped to
 * the range, NaN as 0; for a float type a finite value (or an integer)
 * overflowed, and dst holds +-Inf (SPEC 19: overflow is told). */
bool tl_convert_value(enum tl_dtype sdt, const void *src, enum tl_dtype ddt, void *dst);

/* The number of the tensor src's values (src_file its data file) that are
 * finite and become +-Inf as the float type ddt: the count behind a copy
 * that reported an overflow.  0 for a type other than float. */
uint64_t tl_convert_count_overflow(const struct tl_desc *src, const uint8_t *src_file,
                                   enum tl_dtype ddt);

/* The first logical index (in logical order) of the tensor src, whose data
 * file is src_file, whose value does not fit ddt.  @return false when every
 * value fits. */
bool tl_convert_find_bad(const struct tl_desc *src, const uint8_t *src_file, enum tl_dtype ddt,
                         uint64_t *idx);

/* Instruction sets the copy kernels are written for. */
enum tl_isa { TL_ISA_SCALAR, TL_ISA_SSE2, TL_ISA_AVX2, TL_ISA_AVX512, TL_ISA_NEON, TL_ISA_COUNT };

/* "scalar", "sse2", "avx2", "avx512", "neon"; tl_isa_from_name() returns
 * 0, or TL_E_VALUE for another name. */
const char *tl_isa_name(enum tl_isa isa);
int tl_isa_from_name(const char *name, enum tl_isa *out);

/* Whether this CPU (and its operating system, for the wide registers) can
 * run an ISA's kernels.  Detected once. */
bool tl_isa_supported(enum tl_isa isa);

/* The best supported ISA at or below ceiling (TL_ISA_COUNT: no ceiling).
 * tl_isa_set_ceiling() makes it the one every later copy uses and returns
 * it; call it before any copy runs (it is not thread-safe). */
enum tl_isa tl_isa_best(enum tl_isa ceiling);
enum tl_isa tl_isa_set_ceiling(enum tl_isa ceiling);
enum tl_isa tl_isa_active(void);

/* A copy planned once and run any number of times: tl_copy_plan_new()
 * plans copying every element of src into dst, converting each to dst's
 * data type when the two differ.  dst must be neither broadcast nor
 * overlapping; the sizes must match.  @return the plan, or NULL with err
 * filled: TL_E_MISMATCH or TL_E_VALUE (err->key is "sizes" or "strides"
 * of the destination), or TL_E_NOMEM.  tl_copy_plan_free() releases it. */
struct tl_copy_plan;
struct tl_copy_plan *tl_copy_plan_new(const struct tl_desc *src, const struct tl_desc *dst,
                                      struct tl_error *err);
void tl_copy_plan_free(struct tl_copy_plan *plan);

/* Whether the plan copies one run of bytes unchanged, from byte *src_at of
 * the source file to byte *dst_at of the destination's, *len bytes: a copy
 * the caller may hand to the system (copy_file_range) instead. */
bool tl_copy_plan_is_run(const struct tl_copy_plan *plan, uint64_t *src_at, uint64_t *dst_at,
                         uint64_t *len);

/* Converts n contiguous elements of type sdt at src into type ddt at dst
 * with the active ISA's kernels, on the calling thread.  @return 0, or 1
 * when some value did not fit ddt (clamped, as tl_convert_value() says). */
int tl_copy_convert(enum tl_dtype sdt, const void *src, enum tl_dtype ddt, void *dst,
                    uint64_t n);

/* Copies in slabs, for an output written in order (a pipe): a slab is the
 * range [i0, i1) of the destination's outermost axis (largest stride), and
 * its elements lie in the destination's bytes [byteOffset + i0 * stride,
 * byteOffset + i1 * stride) when the other axes reach less than one
 * stride.  tl_copy_slab_axis() names that axis: @return 0, or TL_E_VALUE
 * when the destination cannot be cut so.  tl_copy_slab() writes the slab's
 * elements into win, whose first byte is byte win_lo of the destination
 * file, from src_file, whose first byte is byte src_lo of the source file:
 * @return 0, TL_E_RANGE when a converted value did not fit (clamped),
 * or a planning error. */
int tl_copy_slab_axis(const struct tl_desc *dst, unsigned *axis);
int tl_copy_slab(const struct tl_desc *src, const uint8_t *src_file, uint64_t src_lo,
                 const struct tl_desc *dst, unsigned axis, uint64_t i0, uint64_t i1,
                 uint8_t *win, uint64_t win_lo, unsigned threads, struct tl_error *err);

/* The bytes of the source file that the slabs [i0, i1) of a copy from src
 * read: [*lo, *hi).  A caller may read them into memory of its own and pass
 * that to tl_copy_slab as src_file with src_lo = *lo (the bytes from file
 * position src_lo on; 0 and the whole file otherwise).  @return how many of
 * them hold the elements read (the rest lie between them). */
uint64_t tl_copy_slab_reach(const struct tl_desc *src, unsigned axis, uint64_t i0, uint64_t i1,
                            uint64_t *lo, uint64_t *hi);

/* Writes n copies of the element at val (es bytes: 1, 2, 4 or 8) to dst,
 * with the active ISA's fill kernel. */
void tl_copy_fill(void *dst, uint64_t n, const void *val, unsigned es);

/* Progress, called from one worker now and then with the elements done so
 * far; may be NULL. */
typedef void (*tl_progress_fn)(uint64_t done, uint64_t total, void *ctx);

/* The number of threads a request for `threads` means: itself, or one per
 * online CPU for 0. */
unsigned tl_copy_threads(unsigned threads);

/* Runs a plan: reads the file image src_file (holding every byte of the
 * source's elements) and writes into dst_file (holding the destination's).  The buffers must
 * not overlap.  Splits the work over `threads` threads (0: one per online
 * CPU) when it is large enough to gain from them; when a thread cannot be
 * started, the others finish the copy.  @return 0, or 1 when the plan
 * converts and some value did not fit the destination's type (it was
 * clamped, NaN to 0, as tl_convert_value() says). */
int tl_copy_run(const struct tl_copy_plan *plan, const uint8_t *src_file, uint8_t *dst_file,
                unsigned threads, tl_progress_fn progress, void *ctx);

/* ---- calibration (src/copy/calib.c) ------------------------------------ */

/* What the copy core chooses by, measured on the machine it runs on
 * (tl_calib_measure) or built in (tl_calib_default: rules from the L3 size
 * the system reports and figures measured on one machine).  Per kind of
 * copy, the sizes from which it streams its output past the caches and
 * from which a second thread pays; per contested kernel slot, the ISA whose
 * kernel ran fastest there. */
enum tl_cal_kind {
    TL_CAL_FLAT,              /* one contiguous run, converting or not */
    TL_CAL_ROWS,              /* rows of a padded layout, (de)interleaves */
    TL_CAL_TRANSPOSE_NARROW,  /* transposes of 1- and 2-byte elements */
    TL_CAL_TRANSPOSE_WIDE,    /* ... of 4- and 8-byte ones */
    TL_CAL_GENERAL,           /* the strided element loop */
    TL_CAL_FILL,              /* broadcast fills */
    TL_CAL_BANDS,             /* transposes of 4- and 8-byte elements from rows of
                                 two to four cache lines (NHWC of 32-64 FLOAT32
                                 channels into NCHW), whose ordinary stores go
                                 across bands of rows (kern_drivers.h) */
    TL_CAL_KINDS
};
enum tl_cal_slot {
    TL_CAL_TRANSPOSE4, TL_CAL_TRANSPOSE8,         /* transpose[w4], [w8] */
    TL_CAL_TRANSPOSE4_NT, TL_CAL_TRANSPOSE8_NT,   /* transpose_nt[w4], [w8] */
    TL_CAL_F32_F16,                               /* cvt[FLOAT32][FLOAT16] */
    TL_CAL_COPY,                                  /* copy: raced against memcpy */
    TL_CAL_SLOTS
};
#define TL_CAL_NEVER UINT64_MAX
/* Thread counts past two a calibration says a copy may use: 4, 8, ...,
 * 4 << (TL_CAL_LEVELS - 1) = 256 (TL_TEAM_MAX). */
#define TL_CAL_LEVELS 7

struct tl_calib {
    char cpu[128];                 /* the CPU it describes (tl_calib_cpu) */
    unsigned cpus;                 /* its online CPUs */
    bool measured;                 /* false: the built-in rules */
    double seconds;                /* how long measuring took */
    double memcpy_gbs[2];          /* memcpy from memory, read + write GB/s, 1 and 2 threads */
    double stream_gbs[2];          /* the same copy with streaming stores */
    double wake_us;                /* handing a job to the pool's sleeping thread */
    /* source + destination bytes above which a kind streams, on one thread
     * and on several (TL_CAL_NEVER: never) */
    uint64_t stream_from[TL_CAL_KINDS][2];
    /* output bytes from which a kind runs on several threads (two), and
     * from which on 4 << l (threads_at[k][l]: measured up to the online
     * CPUs, past them, and in the built-in rules, tl_calib_levels's rule) */
    uint64_t threads_from[TL_CAL_KINDS];
    uint64_t threads_at[TL_CAL_KINDS][TL_CAL_LEVELS];
    /* the ISA whose kernel fills the slot (TL_ISA_COUNT: the best one), and
     * the other candidate's time over its own (0: not raced) */
    enum tl_isa slot_isa[TL_CAL_SLOTS];
    double slot_ratio[TL_CAL_SLOTS];
};

const char *tl_cal_kind_name(enum tl_cal_kind kind);
const char *tl_cal_slot_name(enum tl_cal_slot slot);

/* The running CPU, as calibrations name it: vendor, family, model and
 * brand ("AuthenticAMD 26 2 AMD EPYC") from CPUID on x86-64; elsewhere the
 * name the caller handed in with tl_calib_cpu_set() before the first call
 * (the command line's is from /proc/cpuinfo: implementer, part, model
 * name), or "? ? ?". */
void tl_calib_cpu(char *out, size_t n);
void tl_calib_cpu_set(const char *name);

/* Fills threads_at[k][l] for every level l >= from of every kind by the
 * rule: each thread's share at least half the two-thread floor (4 << l
 * threads from (2 << l) x threads_from), and never below the level under
 * it.  The built-in rules take it for every level, a measured calibration
 * past the CPUs it measured. */
void tl_calib_levels(struct tl_calib *cal, unsigned from);

/* The built-in rules for this machine. */
void tl_calib_default(struct tl_calib *cal);

/* Whether a measured calibration looks taken while another program held a
 * CPU: memcpy from memory on two threads below 0.8 times its speed on one
 * (0.93-2.0 times on the idle guests recorded in tests/calib, AMD Zen 5
 * and Intel family 6 model 207; 0.51 in a make bench whose calibration
 * then kept six kinds of copy on one thread).  Its sizes from
 * which threads pay are then too high. */
bool tl_calib_disturbed(const struct tl_calib *cal);

/* Measures this machine (a few seconds; `quick`: smaller sizes and fewer
 * runs, a rough answer in a fraction of the time).  When memcpy's figures
 * say another program holds a CPU (tl_calib_disturbed), it waits a second
 * and takes them again, three times at most, before measuring the copies.
 * note(text, ctx), when not NULL, hears each step's name; debug(line, ctx),
 * when not NULL, each size's times.  Runs copies with every thread of the
 * pool: nothing else may copy meanwhile. */
void tl_calib_measure(struct tl_calib *cal, bool quick, void (*note)(const char *, void *),
                      void (*debug)(const char *, void *), void *ctx);

/* The text form (lines of "key value", a CRC-32 last): writes at most n
 * bytes, @return the length it needs, as snprintf. */
size_t tl_calib_format(const struct tl_calib *cal, char *buf, size_t n);

/* Reads the text form, checking every line and the CRC.  @return 0, or
 * TL_E_VALUE with err naming the line and what is wrong. */
int tl_calib_parse(const char *text, size_t len, struct tl_calib *cal, struct tl_error *err);

/* Whether a calibration describes this machine: the same CPU and CPU count. */
bool tl_calib_fits(const struct tl_calib *cal);

/* Makes cal (NULL: the built-in rules) the one later plans and kernel
 * tables use; call it before any copy runs (it is not thread-safe). */
void tl_calib_set(const struct tl_calib *cal);
const struct tl_calib *tl_calib_active(void);

/* Decodes nb blocks of ggml's type number `type` (a block type the tool
 * decodes: tl_ggml_type(type)->decodes) at x into FLOAT32 values at y,
 * bit for bit as ggml's dequantization, with the best kernels of the CPU
 * (decode.c).  @return 0, or TL_E_VALUE for a type it does not decode. */
int tl_dequant(uint32_t type, const uint8_t *x, float *y, size_t nb);

/* Quantizes nb blocks of 32 FLOAT32 values at x into ggml's type `type`
 * (Q8_0: 8, Q4_0: 2) at y, bit for bit as ggml's reference quantizer
 * (quantize_row_q8_0_ref, quantize_row_q4_0_ref).  @return 0, or
 * TL_E_VALUE for another type. */
int tl_quantize(uint32_t type, const float *x, uint8_t *y, size_t nb);

#endif
