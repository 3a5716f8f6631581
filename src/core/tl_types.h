/*
 * tl_types.h - the data types and their table, the limits, and how the core fails (struct tl_error).
 * Part of the core library's public interface; include tl.h for all of it.
 */
#ifndef TL_API_TYPES_H
#define TL_API_TYPES_H

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
    /* OCP's 8-bit floats (SPEC 18), not DirectML types: E4M3 (bias 7, no
     * infinity, S.1111.111 its NaN, largest 448), E5M2 (bias 15, IEEE-like),
     * E8M0 (an exponent alone, 2^(e - 127), 0xff NaN: microscaling's scale) */
    TL_DT_FLOAT8E4M3, TL_DT_FLOAT8E5M2, TL_DT_FLOAT8E8M0,
    /* OCP's 4-bit float, E2M1 (safetensors' F4; MXFP4's element): a sign, 2
     * exponent bits (bias 1), 1 mantissa bit: 0, 0.5, 1, 1.5, 2, 3, 4, 6;
     * no infinity and no NaN.  Two a byte, the lower index low (SPEC 12) */
    TL_DT_FLOAT4E2M1,
    /* numpy's, torch's and safetensors' bool, not a DirectML type: a byte,
     * 0 false and any other value true; what is converted into it is
     * true where it is not zero (NaN included), as numpy's astype(bool) */
    TL_DT_BOOL,
    TL_DT_COUNT
};

/* The type table (dtype.c): one row per type, the one place that knows
 * what a type is.  Every check, file format and message reads it. */
enum tl_dtype_kind { TL_KIND_FLOAT, TL_KIND_SIGNED, TL_KIND_UNSIGNED, TL_KIND_BOOL };

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
enum tl_dtype_spelling { TL_SPELL_NAME, TL_SPELL_NPY, TL_SPELL_SAFETENSORS, TL_SPELL_ONNX };
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
/* An 8-bit float's code (FLOAT8E4M3, FLOAT8E5M2, FLOAT8E8M0), or a 4-bit
 * one's (FLOAT4E2M1: the low 4 bits of code), as a double,
 * exactly; a double to the nearest code, ties to even (E4M3 saturates to
 * +-448 and E8M0 to its largest, as OCP's saturating conversion; E5M2
 * goes to +-inf; a NaN stays NaN; E8M0 of 0 is its smallest, of a negative
 * NaN). */
double tl_fp8_to_double(enum tl_dtype dt, uint8_t code);
uint8_t tl_double_to_fp8(enum tl_dtype dt, double d);
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
    TL_E_NOMEM,     /* out of memory */
    TL_E_IO         /* the caller's sink stopped a writer (tl_model.h) */
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

#endif
