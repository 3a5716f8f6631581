/*
 * tl_desc.h - tensor descriptions (DirectML's model: sizes, strides, offsets), their terms, locating and owning elements, and DirectML's problems.
 * Part of the core library's public interface; include tl.h for all of it.
 */
#ifndef TL_API_DESC_H
#define TL_API_DESC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tl_types.h"

/* ---- descriptions ------------------------------------------------------- */

/* Where a description's strides came from. */
enum tl_strides_src {
    TL_STRIDES_IMPLICIT,  /* no strides and no layout: packed, logical order */
    TL_STRIDES_LAYOUT,    /* computed from "layout" (and "broadcast") */
    TL_STRIDES_GIVEN      /* the "strides" key */
};

#define TL_FLAG_OWNED_BY_DML 1u

struct tl_desc {
    enum tl_dtype dtype;
    unsigned rank;                    /* 1 .. TL_MAX_RANK */
    uint64_t sizes[TL_MAX_RANK];      /* each >= 1 */
    uint64_t strides[TL_MAX_RANK];    /* in elements; 0 broadcasts */
    enum tl_strides_src strides_src;
    bool total_given;                 /* totalTensorSizeInBytes was given */
    uint64_t total_bytes;             /* given, or the minimum implied size */
    uint64_t alignment;               /* guaranteedBaseOffsetAlignment, 0 if none */
    uint32_t flags;                   /* TL_FLAG_* */
    uint64_t byte_offset;             /* where element 0 starts in the buffer: */
                                      /* DirectML's binding offset */
    uint64_t file_offset;             /* where the buffer starts in the data file: */
                                      /* not a DirectML notion */
};

/* Sets a packed, logical-order description of the given type and sizes.
 * @return 0, or TL_E_RANGE / TL_E_OVERFLOW (see tl_desc_validate). */
int tl_desc_init(struct tl_desc *d, enum tl_dtype dt, unsigned rank,
                 const uint64_t *sizes, struct tl_error *err);

/* Checks a filled description: rank 1..8, sizes >= 1, and that every derived
 * quantity (element count, span, minimum implied size, byteOffset plus the
 * elements' bytes, byteOffset plus the total size) fits in 64 bits.
 * When total_given is false, total_bytes is set to the minimum implied size.
 * @return 0, or TL_E_RANGE / TL_E_OVERFLOW with err->key naming the culprit. */
int tl_desc_validate(struct tl_desc *d, struct tl_error *err);

/* Parses a JSON description (SPEC section 2; both camelCase and DxDispatch's
 * PascalCase, with or without the {"Type","Desc"} wrapper) and validates it.
 * text need not be NUL-terminated.  @return 0, or a TL_E_* code with err
 * filled; d is unspecified after a failure. */
int tl_desc_parse_json(const char *text, size_t len, struct tl_desc *d,
                       struct tl_error *err);

/* The letters of a rank's logical axes: "NCHW", "NCDHW", "DHW", "HW", "W",
 * or NULL for ranks 6-8, which have no letters. */
const char *tl_axis_letters(unsigned rank);

/* Parses a layout: letters of the rank ("NHWC") or comma-separated axis
 * indices, outermost first ("0,2,3,1").  order[] receives the indices.
 * @return 0, or TL_E_VALUE when it is not a permutation of the rank's axes. */
int tl_layout_parse(unsigned rank, const char *text, unsigned *order,
                    struct tl_error *err);

/* Parses a set of axes as letters ("HW", "H,W") or indices ("2,3") into a
 * bit mask.  @return 0, or TL_E_VALUE. */
int tl_axes_parse(unsigned rank, const char *text, unsigned *mask,
                  struct tl_error *err);

/* Packed strides for an axis order (outermost first); axes in the
 * broadcast mask get stride 0 and count as size 1 (DirectML's
 * CalculateStrides, for any rank).  @return 0, or TL_E_OVERFLOW. */
int tl_strides_for_order(unsigned rank, const uint64_t *sizes,
                         const unsigned *order, unsigned broadcast_mask,
                         uint64_t *strides, struct tl_error *err);

/* Padded strides (SPEC section 13): as tl_strides_for_order, with, per
 * axis, slots[a] (0: none) giving axis a that many slots, so that the next
 * outer axis's stride is slots[a] times a's; align[a] (0: none) rounding
 * the next outer axis's stride up to a multiple of it; and pitch[a] (in
 * elements, 0: none) rounding a's own stride up to a multiple of it, as a
 * GPU row pitch does the row axis's (every constraint on one stride
 * together: up to a multiple of their lcm).  @return 0, or TL_E_VALUE
 * (fewer slots than the size, padding a broadcast or the outermost axis) /
 * TL_E_OVERFLOW with err->key naming the axis. */
struct tl_padding {
    uint64_t slots[TL_MAX_RANK], align[TL_MAX_RANK], pitch[TL_MAX_RANK];
};
int tl_strides_padded(unsigned rank, const uint64_t *sizes, const unsigned *order,
                      unsigned broadcast_mask, const struct tl_padding *pad, uint64_t *strides,
                      struct tl_error *err);

/* ---- terms -------------------------------------------------------------- */

enum tl_status { TL_ST_OVERLAPPING, TL_ST_BROADCAST, TL_ST_PADDED, TL_ST_PACKED };
const char *tl_status_name(enum tl_status st);

struct tl_info {
    uint64_t element_count;      /* product of sizes */
    uint64_t span;               /* dot(sizes - 1, strides) + 1, in elements */
    uint64_t distinct;           /* distinct offsets reached (exact unless overlapping) */
    uint64_t min_size;           /* span * element size, rounded up to 4 */
    uint64_t elements_bytes;     /* file_offset + byte_offset + the span's bytes */
    bool broadcast, overlapping, packed, padded;
    enum tl_status status;
    unsigned axis_order[TL_MAX_RANK];  /* outermost first */
    char layout[TL_MAX_RANK + 1];      /* letters of axis_order, but for the axes of */
                                       /* stride 0; "" for ranks 6-8 */
    unsigned broadcast_axes;           /* bit i: axis i has stride 0 (its index is */
                                       /* not in the buffer: named apart from layout) */
};

/* Computes every term of a validated description.  Overlap is decided
 * exactly, by solving a bounded linear Diophantine equation, never by
 * enumerating elements. */
void tl_desc_classify(const struct tl_desc *d, struct tl_info *info);

/* Two different logical indices x and y of an overlapping description
 * (through its non-zero strides) that reach the same offset, found by the
 * same solver.  @return false when it does not overlap. */
bool tl_desc_overlap_pair(const struct tl_desc *d, uint64_t *x, uint64_t *y);

/* The padding of a description's buffer, [byteOffset, byteOffset + the
 * larger of the elements' bytes and the declared total), as merged byte
 * ranges [lo, hi) of the file in increasing order, passed to fn; for a
 * 4-bit type, ranges of the file's nibbles (nibble k is in byte k / 2, the
 * low one when k is even).  It walks the runs of
 * contiguous elements, never every element.  @return 0 when all were
 * passed, 1 when it stopped after max_ranges, -1 when the layout's runs do
 * not come in increasing order (overlapping tensors, unusual strides) and
 * the ranges cannot be listed so. */
typedef void (*tl_range_fn)(uint64_t lo, uint64_t hi, void *ctx);
int tl_desc_padding(const struct tl_desc *d, uint64_t max_ranges, tl_range_fn fn, void *ctx);

/* Axis order of strides: largest stride first; ties go to the larger size,
 * then to logical order. */
void tl_axis_order(unsigned rank, const uint64_t *sizes, const uint64_t *strides,
                   unsigned *order);

/* ---- locating elements --------------------------------------------------
 * The one way to turn logical indices into element offsets and element
 * offsets into bytes of the data file.  Nothing else multiplies by an
 * element size: a type's elements may be narrower than a byte. */

/* The element offset of a logical index: its dot product with the strides
 * (the index is not checked; tl_desc_offset() checks it). */
uint64_t tl_desc_elem(const struct tl_desc *d, const uint64_t *idx);

/* Where element offset e lies in the data file: the byte holding its first
 * bit, and (when bit is not NULL) that bit's place within the byte, 0 for
 * the types of whole bytes. */
uint64_t tl_desc_byte(const struct tl_desc *d, uint64_t e, unsigned *bit);

/* Reads the element at element offset e of the data file into out, whole
 * (tl_dtype_size() bytes; a 4-bit element as its unpacked byte), and
 * writes one there from in (a 4-bit element's other nibble is kept). */
void tl_desc_get(const struct tl_desc *d, const uint8_t *file, uint64_t e, void *out);
/* The same of an element of type dt whose first bit is bit `bit` of *p
 * (tl_desc_byte's place): for bytes that are not the data file's. */
void tl_dtype_get(enum tl_dtype dt, const uint8_t *p, unsigned bit, void *out);
void tl_desc_put(const struct tl_desc *d, uint8_t *file, uint64_t e, const void *in);

/* The element at element offset e as text (tl_dtype_format).  @return its
 * length. */
int tl_desc_format(const struct tl_desc *d, const uint8_t *file, uint64_t e, char *buf, size_t n);

/* Where element 0 lies in the data file: fileOffset + byteOffset. */
uint64_t tl_desc_origin(const struct tl_desc *d);

/* The byte in the data file where the element at a logical index starts:
 * tl_desc_byte(d, tl_desc_elem(d, idx), NULL). */
uint64_t tl_desc_at(const struct tl_desc *d, const uint64_t *idx);

/* The bytes of a description's buffer from byteOffset on: the larger of
 * the span's bytes and the declared total (info from tl_desc_classify). */
uint64_t tl_desc_extent(const struct tl_desc *d, const struct tl_info *info);

/* The whole elements of a type that n bytes hold. */
uint64_t tl_dtype_count(enum tl_dtype dt, uint64_t n);

/* The next logical index in row-major order (the last axis fastest).
 * @return false, with idx back at all zeros, when idx was the last. */
bool tl_index_next(unsigned rank, const uint64_t *sizes, uint64_t *idx);

/* Element offset of a logical index (dot product with the strides), and the
 * byte offset of that element in a data file.  @return 0, or TL_E_RANGE when
 * idx[i] >= sizes[i] (err->key is "index[i]"). */
int tl_desc_offset(const struct tl_desc *d, const uint64_t *idx,
                   uint64_t *elem_offset, uint64_t *byte_offset,
                   struct tl_error *err);

/* Calls fn for each logical index whose element offset is elem_offset, in
 * logical order, until fn returns non-zero or `limit` indices were passed.
 * Runs in time independent of the element count for broadcast dimensions.
 * Finding them is a bounded subset sum: on a few descriptions it stops at a
 * work bound (about a second) having passed only the first ones; a
 * tl_finder tells when.  @return the number of indices passed to fn. */
typedef int (*tl_index_fn)(const uint64_t *idx, void *ctx);
uint64_t tl_desc_find(const struct tl_desc *d, uint64_t elem_offset,
                      uint64_t limit, tl_index_fn fn, void *ctx);

/* The same for many offsets of one description: tl_finder_new() prepares
 * (and may allocate bounded tables, at most 8 x 4096 runs, 8 bit sets of
 * 128 KiB and 16384 owners, never in proportion to the tensor) and
 * @return NULL when out of memory; tl_finder_find() answers;
 * tl_finder_free() releases.  A finder takes at most TL_FIND_WORK steps
 * (a second or so) per tl_finder_find(), or the number given to
 * tl_finder_limit(); tl_finder_complete() says whether the last find ended
 * within them (false: the indices it passed are the first ones and there
 * may be more; none passed: the offset may be owned or not). */
struct tl_finder;
#define TL_FIND_CAP 16384
#define TL_FIND_WORK (UINT64_C(1) << 25)
struct tl_finder *tl_finder_new(const struct tl_desc *d);
void tl_finder_limit(struct tl_finder *f, uint64_t steps);
uint64_t tl_finder_find(struct tl_finder *f, uint64_t elem_offset, uint64_t limit,
                        tl_index_fn fn, void *ctx);
bool tl_finder_complete(const struct tl_finder *f);
void tl_finder_free(struct tl_finder *f);


/* ---- DirectML problems -------------------------------------------------- */

enum tl_problem_code {
    TL_P_SIZE_UINT,       /* key sizes[i]: value above 2^32-1 */
    TL_P_STRIDE_UINT,     /* key strides[i]: value above 2^32-1 */
    TL_P_TOO_MANY_ELEMS,  /* a: buffer elements (total / element size) */
    TL_P_TOTAL_SMALL,     /* a: total, b: minimum implied size */
    TL_P_TOTAL_ALIGN,     /* a: total, not a multiple of 4 */
    TL_P_ALIGNMENT,       /* a: alignment, b: element size */
    TL_P_OFFSET_ALIGN,    /* a: byte offset, b: required multiple */
    TL_P_DATA_SHORT,      /* a: file size, b: bytes needed */
    TL_P_DTYPE_NOT_DML    /* key dataType: a type DirectML does not have (BFLOAT16) */
};

/* key names what the user wrote ("strides[1]"), or, for a value the tool
 * derived (derived true), what it is: "the packed stride of C", "the
 * stride of C from the layout", "the implied totalTensorSizeInBytes". */
struct tl_problem {
    enum tl_problem_code code;
    char key[48];
    bool derived;
    uint64_t a, b;
};

#define TL_NO_DATA UINT64_MAX

/* Lists the DirectML problems of a validated description; with a data file
 * of data_size bytes (TL_NO_DATA for none), also whether the file covers the
 * tensor.  out must hold TL_MAX_PROBLEMS records.  @return how many. */
size_t tl_desc_problems(const struct tl_desc *d, const struct tl_info *info,
                        uint64_t data_size, struct tl_problem *out);

/* Bytes a data file must hold for DirectML: the elements' bytes and, when
 * the description declares a total, byte_offset + total. */
uint64_t tl_desc_bytes_needed(const struct tl_desc *d, const struct tl_info *info);

/* ---- what an overlapping layout may have meant (fix.c; SPEC 19) ---------- */

/* A layout that changes one stride of an overlapping description (axis),
 * derived from axis inner, and why: just outside inner (its size times its
 * stride), that times the stride it had (a forgotten factor), just inside
 * inner (inner's stride over axis's size), or 1 (innermost); with how far
 * it is from the logical order (pairs of axes out of order) and where its
 * padding starts (0: none, else the place among the axes by stride). */
enum tl_fix_kind { TL_FIX_OUTSIDE, TL_FIX_FACTOR, TL_FIX_INSIDE, TL_FIX_INNERMOST };
struct tl_fix {
    uint64_t strides[TL_MAX_RANK];
    unsigned axis, inner;
    enum tl_fix_kind why;
    unsigned inversions, gap;
};
#define TL_MAX_FIXES 3

/* The fixes of d that do not overlap, best first (nearest the logical
 * order, then the one whose padding lies innermost), at most
 * TL_MAX_FIXES of them into out.  @return how many. */
size_t tl_desc_fixes(const struct tl_desc *d, struct tl_fix *out);

/* The axis just inside fix f's changed stride when that stride's run holds
 * more slots of it than it has elements (W padded to *slots), or d->rank
 * when none is. */
unsigned tl_fix_padded(const struct tl_desc *d, const struct tl_fix *f, uint64_t *slots);

#endif
