/*
 * tl.h - the tensorlayout core library: tensor descriptions and their terms.
 *
 * A tensor lives in a flat buffer and is described the way DirectML describes
 * it: a data type, sizes (logical dimensions, outermost first) and strides (how
 * many elements to step to reach the next element along each dimension).
 * This header is the only public interface of the core.  The core never
 * prints, never exits and never opens a file: it takes bytes and lengths,
 * returns 0 or a TL_E_* code, and explains a failure in a caller-owned
 * struct tl_error.
 *
 * Calling sequence, for a description held in memory:
 *
 *     struct tl_desc d;
 *     struct tl_error err;
 *     if (tl_desc_parse_json(text, len, &d, &err))
 *         ... report err.key, err.line, err.col, err.msg ...
 *     struct tl_info info;
 *     tl_desc_classify(&d, &info);         // terms of SPEC section 2
 *     struct tl_problem p[TL_MAX_PROBLEMS];
 *     size_t np = tl_desc_problems(&d, &info, data_size_or_TL_NO_DATA, p);
 *
 * Every size, stride, span and offset is a uint64_t.  All arithmetic that
 * derives one from another is overflow-checked when the description is
 * validated, so once tl_desc_validate() has returned 0 the derived terms of
 * that description fit in 64 bits and the functions below may compute them
 * without further checks.
 */
#ifndef TL_H
#define TL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TL_VERSION "0.1.0"
#define TL_MAX_RANK 8
#define TL_MAX_PROBLEMS (2 * TL_MAX_RANK + 9)
#define TL_MAX_JSON_INT 9007199254740992.0 /* 2^53: the largest integer a description may hold */
#define TL_DML_UINT_MAX UINT64_C(4294967295)
#define TL_MAX_JSON_DEPTH 32   /* deeper JSON is refused before it is parsed */

struct tl_error;

/* ---- data types --------------------------------------------------------- */

enum tl_dtype {
    TL_DT_FLOAT32, TL_DT_FLOAT16, TL_DT_UINT32, TL_DT_UINT16, TL_DT_UINT8,
    TL_DT_INT32, TL_DT_INT16, TL_DT_INT8, TL_DT_FLOAT64, TL_DT_UINT64,
    TL_DT_INT64,
    TL_DT_BFLOAT16,   /* not a DirectML type: the top half of a FLOAT32 */
    TL_DT_UINT4, TL_DT_INT4,   /* two elements a byte, the lower index low (SPEC 12) */
    TL_DT_COUNT
};

/* The type table (dtype.c): one row per type, the one place that knows
 * what a type is.  Every check, file format and message reads it. */
enum tl_dtype_kind { TL_KIND_FLOAT, TL_KIND_SIGNED, TL_KIND_UNSIGNED };

struct tl_dtype_info {
    const char *name;            /* canonical name, DirectML's without its prefix */
    unsigned bits;               /* bits per element */
    enum tl_dtype_kind kind;
    bool dml;                    /* DirectML has the type */
    const char *npy;             /* numpy's .npy descr ("<f4"), NULL when numpy has none */
    const char *st;              /* safetensors' dtype ("F32"), NULL when it has none */
    unsigned order;              /* its place in the lists messages show */
};
const struct tl_dtype_info *tl_dtype_info(enum tl_dtype dt);

/* Shorthands for the row's fields: canonical name ("FLOAT32"), bits, bytes
 * an element takes (rounded up to a whole byte), and its kind. */
const char *tl_dtype_name(enum tl_dtype dt);
unsigned tl_dtype_bits(enum tl_dtype dt);
unsigned tl_dtype_size(enum tl_dtype dt);
bool tl_dtype_is_float(enum tl_dtype dt);
bool tl_dtype_is_signed(enum tl_dtype dt);
/* Whether DirectML has the type (every type but BFLOAT16). */
bool tl_dtype_is_dml(enum tl_dtype dt);

/* The bytes n consecutive elements of the type take, a partial byte
 * counted whole. */
uint64_t tl_dtype_bytes(enum tl_dtype dt, uint64_t n);

/* Look-ups by name.  tl_dtype_from_name() accepts any case, with or
 * without the "DML_TENSOR_DATA_TYPE_" prefix; tl_dtype_from_safetensors()
 * takes a safetensors dtype exactly ("BF16").  @return 0, or TL_E_VALUE
 * for a name the table does not have. */
int tl_dtype_from_name(const char *name, enum tl_dtype *out);
int tl_dtype_from_safetensors(const char *name, enum tl_dtype *out);

/* A type as the command line takes it (SPEC section 13): the tool's own
 * names as tl_dtype_from_name(), and numpy's and safetensors' in any case:
 * float32, f4, <f4, F32, fp32, float16, half, F16, bfloat16, BF16, int8,
 * I8, uint8, u1, single, double...  @return 0, or TL_E_VALUE. */
int tl_dtype_from_any(const char *name, enum tl_dtype *out);

/* The types as a message lists them, separated by spaces, into buf:
 * canonical names, .npy descrs or safetensors dtypes (only the types that
 * the format has).  @return buf. */
enum tl_dtype_spelling { TL_SPELL_NAME, TL_SPELL_NPY, TL_SPELL_SAFETENSORS };
const char *tl_dtype_list(enum tl_dtype_spelling how, char *buf, size_t n);

/* A 4-bit type's element on its own (tl_desc_get): one byte, UINT4 as
 * 0..15, INT4 as the int8 -8..7 (sign-extended), as numpy holds them once
 * unpacked.  Its value from any byte whose low nibble holds it: */
static inline int tl_int4_value(uint8_t b) { return (int)((b & 15) ^ 8) - 8; }
/* The type an element of dt is unpacked to: INT8 for INT4, UINT8 for
 * UINT4, dt itself for every other type. */
enum tl_dtype tl_dtype_unpacked(enum tl_dtype dt);

/* Decodes one element at p (any alignment, little-endian host order) and
 * writes it as text into buf: integers exactly, floats as the shortest
 * decimal that reads back to the same value ("1.5", "nan", "inf", "-inf").
 * @return the length written (always < n; n >= 32 is enough for any type). */
int tl_dtype_format(enum tl_dtype dt, const void *p, char *buf, size_t n);

/* Half-precision helpers: IEEE binary16 bits <-> float. */
float tl_half_to_float(uint16_t h);
uint16_t tl_float_to_half(float f);

/* bfloat16 (the top 16 bits of a binary32) <-> float: to nearest, ties to
 * even; a NaN stays a NaN of the same sign. */
float tl_bfloat_to_float(uint16_t b);
uint16_t tl_float_to_bfloat(float f);

/* Parses the text of one value of type dt ("1.5", "-3", "0x7f", "nan") into
 * the element's bytes at out (tl_dtype_size(dt) bytes; a 4-bit type's
 * unpacked byte).  Integers must be
 * in range for the type; floats are rounded to nearest.
 * @return 0, or TL_E_VALUE / TL_E_RANGE with err filled. */
int tl_dtype_parse_value(enum tl_dtype dt, const char *text, void *out,
                         struct tl_error *err);

/* ---- errors ------------------------------------------------------------- */

enum tl_errcode {
    TL_OK = 0,
    TL_E_JSON,      /* malformed JSON text; line and col are set */
    TL_E_KEY,       /* unknown or duplicate key */
    TL_E_TYPE,      /* a value of the wrong JSON type */
    TL_E_VALUE,     /* a value of the right type but not allowed (name, label) */
    TL_E_RANGE,     /* a number out of range, negative or fractional */
    TL_E_OVERFLOW,  /* derived size arithmetic does not fit in 64 bits */
    TL_E_MISMATCH,  /* two keys that must agree do not */
    TL_E_NOMEM      /* out of memory */
};

/* Filled by a failing core function.  key is the path of the offending key
 * as the user spelled it ("sizes[2]", "Desc.Strides"), or "" when no key is
 * to blame; line and col are 1-based positions for TL_E_JSON, else 0. */
struct tl_error {
    int code;
    char key[128];
    int line, col;
    char msg[256];
};

/* Fills err (when not NULL) and returns code: the one way core code fails.
 * fmt is printf-like; key may be NULL. */
int tl_fail(struct tl_error *err, int code, const char *key, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

/* Copies s into buf as a safe subject for a message or a report: bytes
 * outside printable ASCII become \xNN and long text is cut with "...".
 * @return buf. */
const char *tl_quote(const char *s, char *buf, size_t n);

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

/* The description as a JSON object (cJSON), as other commands read it back:
 * dataType, sizes, strides, and byteOffset, guaranteedBaseOffsetAlignment,
 * flags when not 0, totalTensorSizeInBytes when total_given.  Every integer
 * is written exactly (as raw text, never through a double).  Strides above
 * 2^53, which a description may not hold, are written as the "layout" (and
 * "broadcast") they are packed for.
 * @return the object, or NULL when out of memory.  The caller frees it. */
struct cJSON;
struct cJSON *tl_desc_to_json(const struct tl_desc *d);

/* Adds a uint64 (or an array of them) to a cJSON object, exactly.
 * @return false when out of memory. */
bool tl_json_add_u64(struct cJSON *obj, const char *key, uint64_t v);
bool tl_json_add_u64_array(struct cJSON *obj, const char *key, const uint64_t *v, size_t n);

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

/* The same for many offsets of one description: tl_finder_init() prepares
 * (and may allocate bounded tables, at most 8 x 4096 runs, 8 bit sets of
 * 128 KiB and 16384 owners, never in proportion to the tensor),
 * tl_finder_find() answers, tl_finder_free() releases.  @return of init: 0,
 * or TL_E_NOMEM. */
struct tl_reach;
struct tl_suffix;
struct tl_finder {
    const struct tl_desc *d;
    uint64_t reach[TL_MAX_RANK + 1], g[TL_MAX_RANK + 1];
    uint64_t *runs[TL_MAX_RANK + 1];    /* offsets axes i.. reach, as sorted runs */
    size_t nruns[TL_MAX_RANK + 1];      /* [lo, hi] pairs; NULL when too many */
    struct tl_reach *exact[TL_MAX_RANK + 1];   /* which offsets of runs[i] are reached, */
                                        /* where runs[i] holds more (NULL: all) */
    struct tl_suffix *oracle[TL_MAX_RANK + 1];  /* axes i.. for a search, where */
                                        /* runs[i] is NULL */
    struct tl_suffix *all;               /* all the axes, for the enumeration */
    uint64_t *solutions;                 /* room for TL_FIND_CAP of them */
    uint64_t *walked;                    /* the walk's TL_FIND_CAP indices */
    /* per axis, for stepping through the values that keep the rest solvable:
     * gcd with the later axes, modulus and inverse (logical order) */
    uint64_t rd[TL_MAX_RANK], rm[TL_MAX_RANK], rinv[TL_MAX_RANK];
    /* the steps one tl_finder_find() may take (init sets TL_FIND_WORK, a
     * second or so; the caller may change it) */
    uint64_t work_max;
    /* after tl_finder_find(): false when it stopped at work_max, so that
     * the indices it passed are the first ones and there may be more (none
     * passed: the offset may be owned or not) */
    bool complete;
};
#define TL_FIND_CAP 16384
#define TL_FIND_WORK (UINT64_C(1) << 25)
int tl_finder_init(struct tl_finder *f, const struct tl_desc *d);
uint64_t tl_finder_find(struct tl_finder *f, uint64_t elem_offset, uint64_t limit,
                        tl_index_fn fn, void *ctx);
void tl_finder_free(struct tl_finder *f);

/* ---- tensor files: the format table (format.c) ------------------------- */

/* The formats the tool tells apart.  Each is one file of the core and one
 * entry (struct tl_format_entry) of the table in format.c: adding a format
 * is writing its file and adding its entry there. */
enum tl_format {
    TL_FMT_JSON, TL_FMT_NPY, TL_FMT_SAFETENSORS, TL_FMT_NPZ, TL_FMT_GGUF, TL_FMT_PYTORCH,
    TL_FMT_COUNT
};

struct tl_file;

/* How sure a format is that a file's first bytes are its own: 0 not at
 * all, TL_BID_FALLBACK for what anything else is taken for (JSON text),
 * up to TL_BID_CERTAIN for a magic number of its own. */
#define TL_BID_FALLBACK 1u
#define TL_BID_CERTAIN 100u

/* The first bytes sniffing looks at (fewer where the file is shorter). */
#define TL_SNIFF_BYTES 256

struct tl_format_entry {
    enum tl_format id;
    const char *name;            /* "npy": list --json's "format", --format's name */
    const char *label;           /* ".npy", "safetensors": as messages list it */
    const char *title;           /* what it is, for a format not read: "a GGUF file (llama.cpp)" */
    const char *endings;         /* the file name endings it claims, space separated */
    /* its bid on a file's first n bytes (n <= TL_SNIFF_BYTES) */
    unsigned (*bid)(const uint8_t *head, size_t n);
    /* reads a whole file of len bytes into f (tl_file_parse has zeroed it);
     * NULL: recognized, not read yet */
    int (*read)(const uint8_t *b, uint64_t len, struct tl_file *f, struct tl_error *err);
    unsigned writes;             /* convert -o writes it: its place in lists of output
                                  * formats (1 first: npy, safetensors, npz); 0: not */
    bool many;                   /* it holds several named tensors */
    enum tl_dtype_spelling spelling;   /* how it spells type names */
};

/* The table's entries in the order lists show them (i < TL_FMT_COUNT), or
 * NULL past its end; the entry of a format. */
const struct tl_format_entry *tl_format_at(size_t i);
const struct tl_format_entry *tl_format_entry(enum tl_format f);

/* The entry's name ("json", "npy", "safetensors", "npz", "gguf", "pytorch"). */
const char *tl_format_name(enum tl_format f);

/* The labels of the tensor file formats the tool reads, in table order,
 * into buf: separated by ", ", the last by last (", " or " or ").
 * @return buf. */
const char *tl_format_list(char *buf, size_t n, const char *last);

/* The type table's type of a data type as format f spells it ("F32",
 * "<f4", "FLOAT32").  @return 0, or TL_E_VALUE for a type the table lacks
 * (or a spelling the format does not have). */
int tl_format_dtype(enum tl_format f, const char *spelled, enum tl_dtype *dt);

/* What a file's first n bytes say it is: every format bids, the strongest
 * bid wins (the first in the table on a tie), so a file is never taken for
 * another format because a byte of it happens to match; JSON text is the
 * fallback.  TL_SNIFF_BYTES are enough to tell. */
enum tl_format tl_file_sniff(const uint8_t *head, size_t n);

/* The encodings a tensor's stored bytes may have (encoding.c), each one
 * entry of its table: TL_ENC_PLAIN, the bytes as they are; TL_ENC_DEFLATE,
 * raw deflate (an .npz member of np.savez_compressed). */
enum tl_encoding { TL_ENC_PLAIN, TL_ENC_DEFLATE, TL_ENC_COUNT };

/* "plain", "deflate". */
const char *tl_encoding_name(enum tl_encoding e);

/* One row of a file's tensor table.  desc has the file's shape as its
 * sizes (a 0-d array is sizes {1}), packed strides for the file's order
 * (C, or Fortran's), and fileOffset = begin; [begin, end) are its bytes in
 * the file.  A safetensors tensor the tool cannot decode (a dtype the type
 * table lacks, BOOL, F8_E4M3, C64 or one it does not know, or a 0 in its
 * shape) is a row all the same, not decodable: its name, dtype as spelled,
 * shape and bytes, and no desc (its bytes are checked against its shape
 * where the dtype's size is known). */
struct tl_file_tensor {
    char *name;                 /* NULL for a .npy file */
    char dtype[24];             /* its type as the file spells it ("<f4", "BF16") */
    bool decodable;             /* desc describes it: the tool can read its values */
    bool scalar;                /* a 0-d array (shape [] or ()): desc has sizes {1} */
    unsigned ndim;              /* its shape as the file writes it */
    uint64_t shape[TL_MAX_RANK];
    struct tl_desc desc;
    uint64_t begin, end;
    size_t order;               /* its place in the header */
    /* How its bytes are stored (SPEC 15): `stored_bytes` bytes at
     * stored_at in the file, which decode (tl_file_decode) to
     * `decoded_bytes` bytes, CRC-32 `decoded_crc` where the file gives one
     * (has_crc).  TL_ENC_PLAIN: the same bytes, read in place, and desc,
     * begin and end are in the file.  Any other encoding: decoded first,
     * desc's fileOffset is then in the decoded bytes, and begin, end are
     * the stored ones.  `wrapped`: the decoded bytes are a file of their
     * own (an .npz member's .npy, named NAME.npy: the row is named NAME); a
     * member that is no .npy file (dtype "") or an .npy the tool does not
     * read is a row not decodable, carried as it is. */
    enum tl_encoding encoding;
    bool wrapped, has_crc;
    uint64_t stored_at, stored_bytes, decoded_bytes;
    uint32_t decoded_crc;
};

struct tl_file_meta {
    char *key, *value;
};

/* What lies between a safetensors file's tensors, in file order: bytes of
 * [from, to) that two tensors share (a, b: their indices), or that no
 * tensor owns (a: the tensor before them, b: the one after; SIZE_MAX for
 * the header or the end of the file). */
enum tl_file_problem_kind { TL_FP_OVERLAP, TL_FP_GAP };
struct tl_file_problem {
    enum tl_file_problem_kind kind;
    size_t a, b;
    uint64_t from, to;
};

struct tl_file {
    enum tl_format format;
    bool named;                         /* its tensors have names, and it may hold several */
    bool gaps_ok;                       /* bytes between tensors are not a problem (a map) */
    unsigned version;                   /* .npy major version */
    uint64_t data_start;                /* where the header ends */
    size_t count;
    struct tl_file_tensor *tensors;     /* in file order: by begin, then header order */
    size_t nmeta;
    struct tl_file_meta *meta;          /* safetensors __metadata__, in header order */
    size_t nproblems;
    struct tl_file_problem *problems;
};

/* Parses a whole .npy or safetensors file of len bytes (SPEC section 6):
 * headers checked strictly, every number before it is used, nothing read
 * past len; each tensor's bytes lie inside the file.  err->key names the
 * header key, prefixed with "tensor 'NAME': " for a safetensors tensor.
 * @return 0 (free with tl_file_free), or a TL_E_* code with err filled and
 * nothing to free. */
int tl_file_parse(const uint8_t *bytes, uint64_t len, struct tl_file *f, struct tl_error *err);
void tl_file_free(struct tl_file *f);

/* The tensor of that name, or NULL. */
const struct tl_file_tensor *tl_file_find(const struct tl_file *f, const char *name);

/* Whether the tool can read the values of t: @return 0, or TL_E_VALUE with
 * err saying why not (its type, or a 0 in its shape). */
int tl_file_tensor_decodable(const struct tl_file_tensor *t, struct tl_error *err);

/* Puts f's tensors in file order (by begin, then header order) and lists
 * what lies between them from data_start on (problems): bytes two tensors
 * share, and bytes no tensor owns, up to len (TL_NO_DATA: up to the last
 * tensor).  @return 0, or TL_E_NOMEM. */
int tl_file_order(struct tl_file *f, uint64_t len);

/* Parses a JSON description, or a buffer map {"tensors": [{"name": ...,
 * description keys ...}, ...]} (SPEC section 14), into a tensor table: a
 * lone description is one unnamed row (named false), a map one row per
 * entry, named, in file order.  Each row's [begin, end) is its buffer in
 * the data file: fileOffset + byteOffset up to the larger of the
 * elements' bytes and the total.  Overlaps and gaps between the rows are
 * listed (tl_file_order with TL_NO_DATA); in a map, gaps are what lies
 * between buffers (alignment), not problems (gaps_ok).  err->key is
 * prefixed with "tensors[i]." for an entry.  @return 0 (free with
 * tl_file_free), or a TL_E_* code with err filled. */
int tl_desc_table_parse_json(const char *text, size_t len, struct tl_file *f,
                             struct tl_error *err);

/* Says which logical axis each of the description's dimensions is:
 * dimension i becomes axis axes[i] (its size and stride move there), as
 * `--axes NHWC` does for a file of shape (N,H,W,C).  @return 0, or
 * TL_E_VALUE when axes is not a permutation. */
int tl_desc_assign_axes(struct tl_desc *d, const unsigned *axes, struct tl_error *err);

/* The one way to a tensor's decoded bytes, whatever its encoding: row t
 * of a table parsed from the file's len bytes at file, its stored bytes
 * decoded in pieces put(ctx, bytes, n); a put that returns non-zero stops
 * it (that value is returned).  Never decodes past decoded_bytes; the
 * decoded bytes must be exactly that many, with decoded_crc where has_crc.
 * @return 0, put's value, or TL_E_VALUE / TL_E_RANGE / TL_E_NOMEM with err
 * filled. */
typedef int (*tl_put_fn)(void *ctx, const uint8_t *bytes, size_t n);
int tl_file_decode(const uint8_t *file, uint64_t len, const struct tl_file_tensor *t,
                   tl_put_fn put, void *ctx, struct tl_error *err);

/* Writing an .npz (SPEC section 10), as np.savez does: stored members, each
 * a local header (zip64, the sizes known, its CRC-32 in the data
 * descriptor after it, as the zip format wants: the local header says 0),
 * its .npy bytes, a data descriptor; then the
 * central directory with zip64 end records.  tl_zip_local writes a local
 * header (at most TL_ZIP_LOCAL_MAX bytes: a name of at most
 * TL_ZIP_NAME_MAX bytes) and tl_zip_descriptor a descriptor
 * (TL_ZIP_DESCRIPTOR bytes); each returns its length.  tl_zip_directory
 * makes the directory of entries e[0 .. n), starting at archive offset at.
 * @return 0 with *out (free it) and *len, or TL_E_NOMEM with err filled. */
#define TL_ZIP_NAME_MAX 1023
#define TL_ZIP_LOCAL_MAX (30 + TL_ZIP_NAME_MAX + 20)
#define TL_ZIP_DESCRIPTOR 24
struct tl_zip_entry {
    const char *name;
    uint64_t bytes, at;                 /* the member's size; its local header's offset */
    uint32_t crc;
};
size_t tl_zip_local(const char *name, uint8_t *buf);
size_t tl_zip_descriptor(uint32_t crc, uint64_t bytes, uint8_t *buf);
int tl_zip_directory(const struct tl_zip_entry *e, size_t n, uint64_t at, uint8_t **out,
                     size_t *len, struct tl_error *err);

/* ---- sharded safetensors models (shards.c) ------------------------------ */

/* A shard index (model.safetensors.index.json, SPEC section 10): the shards'
 * file names (relative to the index's folder, in order of first mention),
 * and for each tensor of the weight map its name and its shard. */
struct tl_shard_index {
    size_t nshards;
    char **shards;
    size_t count;
    char **names;
    size_t *shard;
};

/* Whether JSON text names a "weight_map" (so is taken for a shard index). */
bool tl_shard_index_looks(const char *text, size_t len);

/* Parses a shard index: a JSON object whose "weight_map" maps each tensor
 * name to a shard's file name that stays in the index's folder (relative,
 * no '..'), and whose "metadata", if any, is an object.  @return 0 (free
 * with tl_shard_index_free), or a TL_E_* code with err filled. */
int tl_shard_index_parse(const char *text, size_t len, struct tl_shard_index *x,
                         struct tl_error *err);
void tl_shard_index_free(struct tl_shard_index *x);

/* The index text again with metadata.total_size set to total_size (other
 * metadata and the weight map kept).  @return 0 with *out (free it), or
 * TL_E_JSON / TL_E_NOMEM with err filled. */
int tl_shard_index_write(const char *text, size_t len, uint64_t total_size, char **out,
                         struct tl_error *err);

/* Writes the .npy header (version 1.0 unless it needs 2.0; the data starts
 * at a multiple of 64) for a packed description with byteOffset 0: the
 * array's shape is the sizes in memory order, outermost first, C order.
 * With buf NULL, only sets *len to the header's size.  @return 0 with *len
 * set, or TL_E_VALUE (a type numpy lacks, not packed, byteOffset not 0) or
 * TL_E_RANGE (cap too small) with err filled. */
int tl_npy_header(const struct tl_desc *d, uint8_t *buf, size_t cap, size_t *len,
                  struct tl_error *err);
/* The same, with how: TL_NPY_SCALAR writes a 0-d array (shape ()) of d's
 * sizes {1}; TL_NPY_FORTRAN writes a d packed in Fortran's order (its axes
 * reversed) as fortran_order True with its sizes as the shape, as numpy
 * saves such an array. */
#define TL_NPY_SCALAR 1u
#define TL_NPY_FORTRAN 2u
int tl_npy_header_as(const struct tl_desc *d, unsigned how, uint8_t *buf, size_t cap,
                     size_t *len, struct tl_error *err);

/* One tensor of a safetensors file to write: its dtype, its shape as the
 * file gives it (the sizes in memory order), and its bytes. */
struct tl_st_entry {
    const char *name;
    enum tl_dtype dtype;
    const char *st;                     /* a dtype the table lacks, as spelled; else NULL */
    unsigned rank;                      /* 0: a 0-d tensor, shape [] */
    uint64_t shape[TL_MAX_RANK];
    uint64_t bytes;
};

/* The bits per element of a safetensors dtype: the type table's, or those
 * of the dtypes the reference knows and the table lacks (BOOL, F8_*, F6_*,
 * F4, C64); 0 for a dtype it does not know. */
unsigned tl_safetensors_bits(const char *name);

/* Writes a safetensors header (SPEC section 9) for tensors t[0 .. n) laid
 * out contiguously in that order (the caller orders them: the reference
 * writer sorts by element size, largest first, then by name), with the
 * __metadata__ entries first: the 8-byte length, then the JSON padded with
 * spaces to a multiple of 8, so the data starts on 8 bytes.  @return 0
 * with *out (free it) and *len, or TL_E_VALUE (a type safetensors lacks,
 * the name __metadata__) / TL_E_NOMEM with err filled. */
int tl_safetensors_header(const struct tl_st_entry *t, size_t n, const struct tl_file_meta *meta,
                          size_t nmeta, uint8_t **out, size_t *len, struct tl_error *err);

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

/* ---- copies (src/copy/) -------------------------------------------------- */

/* ---- type conversion (convert.c; SPEC section 7) ----------------------- */

/* Converts one element of type sdt at src into type ddt at dst (any
 * alignment): floats to nearest, ties to even (+-Inf beyond the range, NaN
 * stays NaN, subnormals kept); integers to floats to nearest, ties to even;
 * floats to integers toward zero; integers exactly.  @return true when the
 * value does not fit ddt (outside its range, or a NaN or an infinity bound
 * for an integer type): dst then holds it clamped to the range, NaN as 0. */
bool tl_convert_value(enum tl_dtype sdt, const void *src, enum tl_dtype ddt, void *dst);

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

/* What a plan does, for tests and for --verbose diagnostics. */
enum tl_copy_kind {
    TL_COPY_CONTIG, TL_COPY_FILL, TL_COPY_INTERLEAVE, TL_COPY_DEINTERLEAVE,
    TL_COPY_TRANSPOSE, TL_COPY_GENERAL
};
const char *tl_copy_kind_name(enum tl_copy_kind kind);

/* A normalized copy, ready to run.  Opaque in spirit: fill it with
 * tl_copy_plan() and read only `kind`, `src_bytes` and `dst_bytes`. */
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
};

/* Plans copying every element of src into dst, converting each to dst's
 * data type when the two differ.  dst must be neither broadcast nor
 * overlapping; the sizes must match.  @return 0, or TL_E_MISMATCH /
 * TL_E_VALUE with err filled (err->key is "sizes" or "strides" of the
 * destination). */
int tl_copy_plan(struct tl_copy_plan *plan, const struct tl_desc *src,
                 const struct tl_desc *dst, struct tl_error *err);

/* The same with the choices a calibration implies (NULL: the built-in
 * rules) in place of the active one's: store kinds and thread floor are a
 * function of the shape and the calibration alone. */
struct tl_calib;
int tl_copy_plan_for(struct tl_copy_plan *plan, const struct tl_desc *src,
                     const struct tl_desc *dst, const struct tl_calib *cal,
                     struct tl_error *err);

/* Copies in slabs, for an output written in order (a pipe): a slab is the
 * range [i0, i1) of the destination's outermost axis (largest stride), and
 * its elements lie in the destination's bytes [byteOffset + i0 * stride,
 * byteOffset + i1 * stride) when the other axes reach less than one
 * stride.  tl_copy_slab_axis() names that axis: @return 0, or TL_E_VALUE
 * when the destination cannot be cut so.  tl_copy_slab() writes the slab's
 * elements into win, whose first byte is byte win_lo of the destination
 * file: @return 0, TL_E_RANGE when a converted value did not fit (clamped),
 * or a planning error. */
int tl_copy_slab_axis(const struct tl_desc *dst, unsigned *axis);
int tl_copy_slab(const struct tl_desc *src, const uint8_t *src_file, const struct tl_desc *dst,
                 unsigned axis, uint64_t i0, uint64_t i1, uint8_t *win, uint64_t win_lo,
                 unsigned threads, struct tl_error *err);

/* Writes n copies of the element at val (es bytes: 1, 2, 4 or 8) to dst,
 * with the active ISA's fill kernel. */
void tl_copy_fill(void *dst, uint64_t n, const void *val, unsigned es);

/* Progress, called from one worker now and then with the elements done so
 * far; may be NULL. */
typedef void (*tl_progress_fn)(uint64_t done, uint64_t total, void *ctx);

/* The number of threads a request for `threads` means: itself, or one per
 * online CPU for 0. */
unsigned tl_copy_threads(unsigned threads);

/* Runs a plan: reads the file image src_file (holding at least src_bytes)
 * and writes into dst_file (holding at least dst_bytes).  The buffers must
 * not overlap.  Splits the work over `threads` threads (0: one per online
 * CPU) when it is large enough to gain from them; when a thread cannot be
 * started, the others finish the copy.  @return 0, or 1 when the plan
 * converts and some value did not fit the destination's type (it was
 * clamped, NaN to 0, as tl_convert_value() says). */
int tl_copy_run(const struct tl_copy_plan *plan, const uint8_t *src_file, uint8_t *dst_file,
                unsigned threads, tl_progress_fn progress, void *ctx);

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
    TL_CAL_KINDS
};
enum tl_cal_slot {
    TL_CAL_TRANSPOSE4, TL_CAL_TRANSPOSE8,         /* transpose[w4], [w8] */
    TL_CAL_TRANSPOSE4_NT, TL_CAL_TRANSPOSE8_NT,   /* transpose_nt[w4], [w8] */
    TL_CAL_F32_F16,                               /* cvt[FLOAT32][FLOAT16] */
    TL_CAL_SLOTS
};
#define TL_CAL_NEVER UINT64_MAX

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
    /* output bytes from which a kind runs on several threads */
    uint64_t threads_from[TL_CAL_KINDS];
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

/* The built-in rules for this machine. */
void tl_calib_default(struct tl_calib *cal);

/* Measures this machine (a few seconds; `quick`: smaller sizes and fewer
 * runs, a rough answer in a fraction of the time).  note(text, ctx), when
 * not NULL, hears each step's name; debug(line, ctx), when not NULL, each
 * size's times.  Runs copies with every thread of the pool: nothing else
 * may copy meanwhile. */
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

/* ---- comparison (src/copy/compare.c; SPEC section 8) ------------------- */

struct tl_compare_opts {
    double atol, rtol;       /* a matches b when |a - b| <= atol + rtol * |b| */
    bool equal_nan;          /* NaN matches NaN */
    size_t show;             /* how many of the first mismatches to keep */
    unsigned threads;        /* 0: one per online CPU */
};

/* One mismatch: its logical index in row-major order (tl_unravel gives
 * the index), and each side's element in its own type. */
struct tl_mismatch {
    uint64_t index;
    uint8_t a[8], b[8];
};

struct tl_compare_result {
    uint64_t element_count, mismatches;
    bool int_diff;                 /* both sides are integers: differences are exact */
    bool have_abs, have_rel;       /* some mismatch has a finite difference */
    long double max_abs;           /* the largest |a - b| among the mismatches */
    double max_rel;                /* the largest |a - b| / |b| (inf where b is 0) */
    uint64_t max_abs_index, max_rel_index;   /* the first index that has it */
    struct tl_mismatch *first;     /* the first nfirst mismatches, in logical order */
    size_t nfirst;
};

/* Compares two tensors of the same sizes element by element, whatever
 * their layouts and data types: integers exactly, floats after exact
 * widening, +0 = -0, an infinity matches only itself, NaN nothing unless
 * equal_nan.  The report is the same for any number of threads.  Memory is
 * bounded by small boxes per thread, never by the tensors.  @return 0 (free
 * r with tl_compare_free), or TL_E_MISMATCH when the sizes differ, or
 * TL_E_NOMEM. */
int tl_compare(const struct tl_desc *a, const uint8_t *a_file, const struct tl_desc *b,
               const uint8_t *b_file, const struct tl_compare_opts *o,
               struct tl_compare_result *r, struct tl_error *err);
void tl_compare_free(struct tl_compare_result *r);

/* The logical index of a row-major linear index of d's sizes. */
void tl_unravel(const struct tl_desc *d, uint64_t linear_index, uint64_t *idx);

#endif
