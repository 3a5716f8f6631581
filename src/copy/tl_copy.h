/*
 * tl_copy.h - copies and conversions (src/copy/): the exact type converter,
 * the instruction sets, copies and their plans.  Part of the library's
 * public interface (installed as <tensorlayout/tl_copy.h>); what the
 * planner chooses by, measured on the machine, stays inside the library.
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

#endif
