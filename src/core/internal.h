/* internal.h - helpers shared by the core's own files; not part of tl.h. */
#ifndef TL_INTERNAL_H
#define TL_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tl.h"

/* Sets err->key to key, cut to fit. */
void tl_error_key(struct tl_error *err, const char *key);

/* For tests: 0 lets the owner finder choose; 1 forces the logical walk
 * and 2 the enumeration by stride, each without a work bound. */
extern int tl_find_force;

/* For tests: the steps the last tl_finder_find() on this thread took (the
 * walk's nodes and candidates, the enumeration's nodes), a measure of its
 * work that does not depend on the machine. */
extern _Thread_local uint64_t tl_find_work;

/* For tests: the steps the overlap solver took in the last
 * tl_desc_classify() on this thread. */
extern _Thread_local uint64_t tl_overlap_work;

/* The owner finder's bounds: runs per suffix of axes, positions per bit
 * set, large runs one membership test looks at, steps one search of a
 * suffix without tables takes, runs made (then merged) to extend a table.  Tests lower them to reach on small tensors
 * the paths that only large ones take otherwise. */
struct tl_find_limits {
    size_t runs_max;
    uint64_t bits_max;
    size_t has_scan;
    uint64_t oracle_steps;
    size_t runs_work;            /* runs sorted to merge one axis into a table */
};
extern struct tl_find_limits tl_find_limits;

/* ---- tensor files -------------------------------------------------------
 * tensorfile.c sniffs a file and hands it to its format's reader; the
 * readers fill the tensor table with the helpers of desc.c. */

#define TL_FILE_HEADER_MAX (UINT64_C(100) << 20)   /* 100 MiB, for every format */
#define TL_FILE_BYTES_MAX ((uint64_t)INT64_MAX)   /* the most a file holds (off_t) */

/* The most tensors one file may hold: 131,072, above the tens of thousands
 * of the largest real checkpoints.  A row costs about 1 KiB while a file
 * is read, so a header of empty tensors (a few dozen bytes each) cannot
 * make the tool take twenty times its size in memory. */
#define TL_FILE_TENSORS_MAX (UINT64_C(1) << 17)

/* Refuses a header that declares more than TL_FILE_TENSORS_MAX tensors
 * (`what`: "tensors", "entries"), before a row is made (tensorfile.c). */
int tl_file_count_ok(uint64_t count, const char *what, struct tl_error *err);

/* One pass over a JSON text of n bytes: where it writes a NUL in a string
 * (the escape \u0000, which cJSON would cut the string at: a name or key
 * with a NUL is refused, never cut short), and where it nests deeper than
 * cJSON parses (1000 levels: said in those words, not as "malformed
 * JSON"); -1 for each when it does not.  `keys`, when not NULL, counts the
 * outermost object's keys, so a reader can refuse too many before it
 * parses (desc_json.c). */
void tl_json_scan(const char *text, size_t n, long *nul_at, long *deep_at, size_t *keys);

/* The format table's entries, each in its format's file (format.c lists
 * them). */
extern const struct tl_format_entry tl_format_json, tl_format_npy, tl_format_npz,
    tl_format_safetensors, tl_format_gguf, tl_format_pytorch, tl_format_onnx, tl_format_raw;

/* An ONNX type name ("FLOAT", "FLOAT8E4M3FN") as the type table's type
 * (onnx.c).  @return 0, or TL_E_VALUE for a name that is none or a type
 * the table lacks. */
int tl_onnx_dtype(const char *name, enum tl_dtype *dt);

/* Whether a file starts as a zip does: a local header ("PK\3\4") or an
 * empty zip's end record ("PK\5\6"). */
bool tl_zip_head(const uint8_t *head, size_t n);
extern const char tl_npy_magic[6];                  /* "\x93NUMPY" */

/* The readers (SPEC section 6): a whole file of len bytes into f.
 * @return 0, or a TL_E_* code with err filled (f is then freed by the
 * caller, tl_file_parse). */
int tl_npy_parse(const uint8_t *b, uint64_t len, struct tl_file *f, struct tl_error *err);
int tl_safetensors_parse(const uint8_t *b, uint64_t len, struct tl_file *f,
                         struct tl_error *err);
int tl_npz_parse(const uint8_t *b, uint64_t len, struct tl_file *f, struct tl_error *err);

/* A zip archive's members (npz.c), each a row named as the member is
 * ("ARCHIVE/data/0"; NAME of a member NAME.npy, wrapped), with its stored
 * bytes and encoding, checked: names that would leave their folder, names
 * twice, members whose data overlap, sizes that disagree.  The rows are
 * not decodable yet: the format's reader makes them what they hold.
 * @return 0, or a TL_E_* code with err filled (f freed by the caller). */
int tl_zip_members(const uint8_t *b, uint64_t len, struct tl_file *f, struct tl_error *err);


/* Makes row t a tensor the tool lists and does not decode (SPEC 23: a
 * checkpoint's quantized or sparse tensor; SPEC 20: ONNX's strings,
 * complex numbers, sparse initializers): leaf "a WHAT tensor of shape
 * (2, 3)", its shape, undecoded.  @return 0, or TL_E_NOMEM. */
int tl_file_listed(struct tl_file_tensor *t, const char *what, unsigned rank,
                   const uint64_t *sizes, struct tl_error *err);

/* Whether a path named inside a file (an .npz member, a shard of an index)
 * would leave the folder it belongs in: absolute, a drive ("C:"), or a
 * '..' component, with either slash. */
bool tl_path_escapes(const char *path);

/* A .npy header as read (npy.c): the version, where the data starts, and
 * the dictionary's three keys. */
struct tl_npy_hdr {
    unsigned major;
    uint64_t data_start;
    char descr[64];
    bool fortran;
    unsigned ndim;
    uint64_t shape[TL_MAX_RANK];
};

/* Reads the preamble and header of the .npy file of len bytes at b, strictly
 * (SPEC section 6), without judging its type or shape.  @return 0, or a
 * TL_E_* code with err filled. */
int tl_npy_read_header(const uint8_t *b, uint64_t len, struct tl_npy_hdr *h,
                       struct tl_error *err);

/* A .npy descr ("<f4") into a data type.  @return 0, or TL_E_VALUE with err
 * naming the type. */
int tl_npy_dtype(const char *descr, enum tl_dtype *dt, struct tl_error *err);

/* Fills the row t from h, for a .npy file of len bytes that starts at base
 * in the file: a type the tool reads, no 0 in the shape, the data inside.
 * @return 0, or a TL_E_* code with err filled. */
int tl_npy_tensor(const struct tl_npy_hdr *h, uint64_t base, uint64_t len,
                  struct tl_file_tensor *t, struct tl_error *err);

/* Fills d from a file's shape: sizes in the file's order (a 0-d array is
 * sizes {1}), packed strides, C order or Fortran's reversed one, byteOffset
 * data_start.  @return 0, or tl_desc_validate()'s error. */
int tl_desc_from_shape(struct tl_desc *d, enum tl_dtype dt, unsigned ndim,
                       const uint64_t *shape, bool fortran, uint64_t data_start,
                       struct tl_error *err);

/* Checks that a file of len bytes holds d's elements from its byteOffset
 * on.  @return 0, or TL_E_RANGE naming key. */
int tl_desc_require_data(const struct tl_desc *d, uint64_t len, const char *key,
                         struct tl_error *err);

/* gcd(a, b), with gcd(a, 0) = a. */
static inline uint64_t tl_gcd(uint64_t a, uint64_t b)
{
    while (b) {
        uint64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* x in [0, m) with a*x == 1 (mod m), for gcd(a, m) == 1 and m >= 1. */
static inline uint64_t tl_inverse(uint64_t a, uint64_t m)
{
    __int128 r0 = m, r1 = a % m, s0 = 0, s1 = 1;
    while (r1) {
        __int128 q = r0 / r1, t = r0 - q * r1;
        r0 = r1;
        r1 = t;
        t = s0 - q * s1;
        s0 = s1;
        s1 = t;
    }
    return (uint64_t)(s0 < 0 ? s0 + m : s0);
}

/* a*b and a+b into *r, false when the result does not fit in 64 bits. */
static inline bool tl_mul_ok(uint64_t a, uint64_t b, uint64_t *r)
{
    return !__builtin_mul_overflow(a, b, r);
}

static inline bool tl_add_ok(uint64_t a, uint64_t b, uint64_t *r)
{
    return !__builtin_add_overflow(a, b, r);
}

/* A tl_put_fn that fills memory (io.c): p[at ..] up to cap bytes; more
 * is cut off when clip (the first bytes of a stream, peeked at), else
 * stops the decoder with TL_PUT_FULL (never more than a row says). */
struct tl_fill {
    uint8_t *p;
    size_t at, cap;
    bool clip;
};
#define TL_PUT_FULL (-2)
int tl_put_fill(void *ctx, const uint8_t *bytes, size_t n);

/* The group-quantized weight whose packed codes are row i of f (named
 * ...qweight or ...weight_packed) into *p (grouped.c), as f->quant says
 * or its names and shapes tell.  @return 0, 1 when row i is none (or its
 * config leaves it as it is), or TL_E_VALUE naming the weight. */
int tl_grouped_find(const struct tl_file *f, const struct tl_name_index *ix, size_t i,
                    struct tl_scaled *p, struct tl_error *err);

#endif
