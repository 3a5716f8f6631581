/*
 * tensorfile.c - the tensor files people have: numpy's .npy and safetensors.
 *
 * Both readers take the whole file as bytes and a length and never look
 * past it: every length, count and offset a header claims is checked
 * against the file (with 64-bit overflow checks) before it is used.  They
 * turn each tensor into a struct tl_desc whose byteOffset is where its data
 * starts in the file, so every term the core computes speaks of the file as
 * it lies on disk.
 *
 * .npy (numpy's format.py describes it): "\x93NUMPY", a major and a minor
 * version byte, the header length (2 bytes little-endian in 1.0, 4 in 2.0
 * and 3.0), then a Python dictionary literal with exactly the keys 'descr',
 * 'fortran_order' and 'shape', padded with spaces and a newline.  It is
 * parsed here as the literal it is, strictly: strings in quotes without
 * escapes, True or False, a tuple of decimal integers, an optional trailing
 * comma, in any key order.
 *
 * safetensors: an 8-byte little-endian header length N, N bytes of JSON (an
 * object of tensors {"dtype", "shape", "data_offsets": [begin, end]},
 * offsets relative to the end of the header, and an optional
 * "__metadata__" object of strings), then the data.  The reference
 * reader's rules are the floor: N at most 100 MiB, the header starts with
 * '{', every tensor's bytes are exactly its element count times its element
 * size and lie in the file.  Overlaps and gaps between tensors are kept as
 * problems for the caller to report.
 */
#include <cjson/cJSON.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "tl.h"

#define HEADER_MAX (UINT64_C(100) << 20)   /* 100 MiB, for both formats */
#define NPY_ALIGN 64                        /* numpy aligns the data to 64 */

static const char npy_magic[6] = { '\x93', 'N', 'U', 'M', 'P', 'Y' };

const char *tl_format_name(enum tl_format f)
{
    switch (f) {
    case TL_FMT_NPY:         return "npy";
    case TL_FMT_SAFETENSORS: return "safetensors";
    default:                 return "json";
    }
}

/* Whether a byte may stand in the text of a JSON description. */
static bool texty(uint8_t c)
{
    return (c >= 0x20 && c < 0x7f) || c == '\t' || c == '\n' || c == '\r';
}

enum tl_format tl_file_sniff(const uint8_t *head, size_t n)
{
    if (n >= sizeof npy_magic && memcmp(head, npy_magic, sizeof npy_magic) == 0)
        return TL_FMT_NPY;
    if (n >= 9 && head[8] == '{') {
        /* a header length is binary: some byte of it is not text (a JSON
         * description never holds such a byte) */
        for (int i = 0; i < 8; i++) {
            if (!texty(head[i]))
                return TL_FMT_SAFETENSORS;
        }
    }
    return TL_FMT_JSON;
}

/* ---- shapes -------------------------------------------------------------- */

/* Fills d from a file's shape: sizes in the file's order (a 0-d array is
 * sizes {1}), packed strides, C order or Fortran's reversed one. */
static int desc_from_shape(struct tl_desc *d, enum tl_dtype dt, unsigned ndim,
                           const uint64_t *shape, bool fortran, uint64_t data_start,
                           struct tl_error *err)
{
    static const uint64_t one = 1;
    if (tl_desc_init(d, dt, ndim ? ndim : 1, ndim ? shape : &one, err))
        return err ? err->code : TL_E_OVERFLOW;
    if (fortran && ndim > 1) {
        uint64_t s = 1;
        for (unsigned i = 0; i < ndim; i++) {
            d->strides[i] = s;
            s *= shape[i];              /* tl_desc_init checked the product */
        }
        d->strides_src = TL_STRIDES_LAYOUT;
    }
    d->byte_offset = data_start;
    return tl_desc_validate(d, err);
}

int tl_desc_assign_axes(struct tl_desc *d, const unsigned *axes, struct tl_error *err)
{
    uint64_t sizes[TL_MAX_RANK], strides[TL_MAX_RANK];
    unsigned seen = 0;
    for (unsigned i = 0; i < d->rank; i++) {
        if (axes[i] >= d->rank || (seen & (1u << axes[i])))
            return tl_fail(err, TL_E_VALUE, "--axes", "is not a permutation of the %u axes",
                           d->rank);
        seen |= 1u << axes[i];
        sizes[axes[i]] = d->sizes[i];
        strides[axes[i]] = d->strides[i];
    }
    memcpy(d->sizes, sizes, d->rank * sizeof sizes[0]);
    memcpy(d->strides, strides, d->rank * sizeof strides[0]);
    for (unsigned i = 0; i < d->rank; i++) {
        if (axes[i] != i)
            d->strides_src = TL_STRIDES_LAYOUT;
    }
    return tl_desc_validate(d, err);
}

/* Checks that the file holds the tensor's bytes from its byteOffset on. */
static int require_data(const struct tl_desc *d, uint64_t len, const char *key,
                        struct tl_error *err)
{
    struct tl_info info;
    tl_desc_classify(d, &info);
    if (info.elements_bytes > len)
        return tl_fail(err, TL_E_RANGE, key,
                       "data is shorter than the tensor: the file has %" PRIu64
                       " bytes but the tensor needs %" PRIu64 " (%" PRIu64
                       " of header and %" PRIu64 " of data)",
                       len, info.elements_bytes, d->byte_offset,
                       info.elements_bytes - d->byte_offset);
    return 0;
}

/* ---- .npy ---------------------------------------------------------------- */

struct lit {
    const char *p, *end;
    struct tl_error *err;
};

static void lit_space(struct lit *l)
{
    while (l->p < l->end && (*l->p == ' ' || *l->p == '\t' || *l->p == '\n' || *l->p == '\r'))
        l->p++;
}

/* The character at the cursor, quoted for a message. */
static const char *lit_here(const struct lit *l, char *buf, size_t n)
{
    if (l->p >= l->end)
        return "the end of the header";
    unsigned char c = (unsigned char)*l->p;
    if (c == '\'')
        snprintf(buf, n, "a quote");
    else if (c >= 0x20 && c < 0x7f)
        snprintf(buf, n, "'%c'", c);
    else
        snprintf(buf, n, "byte 0x%02x", c);
    return buf;
}

static int lit_expect(struct lit *l, char c, const char *what)
{
    char b[24];
    lit_space(l);
    if (l->p < l->end && *l->p == c) {
        l->p++;
        return 0;
    }
    return tl_fail(l->err, TL_E_JSON, "header", "expected %s, found %s", what,
                   lit_here(l, b, sizeof b));
}

/* A Python string literal in single or double quotes, without escapes. */
static int lit_string(struct lit *l, char *out, size_t n)
{
    char b[24];
    lit_space(l);
    if (l->p >= l->end || (*l->p != '\'' && *l->p != '"'))
        return tl_fail(l->err, TL_E_JSON, "header", "expected a quoted string, found %s",
                       lit_here(l, b, sizeof b));
    char q = *l->p++;
    size_t len = 0;
    while (l->p < l->end && *l->p != q) {
        unsigned char c = (unsigned char)*l->p;
        if (c == '\\')
            return tl_fail(l->err, TL_E_JSON, "header", "escapes in strings are not supported");
        if (c < 0x20 || c >= 0x7f)
            return tl_fail(l->err, TL_E_JSON, "header", "byte 0x%02x in a string", c);
        if (len + 1 >= n)
            return tl_fail(l->err, TL_E_JSON, "header", "a string longer than %zu characters",
                           n - 1);
        out[len++] = (char)c;
        l->p++;
    }
    if (l->p >= l->end)
        return tl_fail(l->err, TL_E_JSON, "header", "a string is not closed");
    l->p++;
    out[len] = '\0';
    return 0;
}

static bool lit_word(struct lit *l, const char *w)
{
    size_t n = strlen(w);
    if ((size_t)(l->end - l->p) >= n && memcmp(l->p, w, n) == 0) {
        const char *after = l->p + n;
        if (after == l->end || !((*after >= 'a' && *after <= 'z') || (*after >= 'A' && *after <= 'Z') ||
                                 (*after >= '0' && *after <= '9') || *after == '_')) {
            l->p = after;
            return true;
        }
    }
    return false;
}

/* A tuple of non-negative decimal integers: "()", "(5,)", "(2, 3)". */
static int lit_shape(struct lit *l, uint64_t *shape, unsigned *ndim)
{
    char b[24];
    unsigned n = 0;
    lit_space(l);
    if (l->p >= l->end || *l->p != '(')
        return tl_fail(l->err, TL_E_TYPE, "shape", "must be a tuple of integers, found %s",
                       lit_here(l, b, sizeof b));
    l->p++;
    for (;;) {
        lit_space(l);
        if (l->p < l->end && *l->p == ')') {
            l->p++;
            break;
        }
        if (l->p >= l->end || *l->p < '0' || *l->p > '9')
            return tl_fail(l->err, TL_E_TYPE, "shape", "expected a dimension, found %s",
                           lit_here(l, b, sizeof b));
        if (*l->p == '0' && l->p + 1 < l->end && l->p[1] >= '0' && l->p[1] <= '9')
            return tl_fail(l->err, TL_E_JSON, "shape", "a dimension with a leading zero");
        uint64_t v = 0;
        while (l->p < l->end && *l->p >= '0' && *l->p <= '9') {
            if (!tl_mul_ok(v, 10, &v) || !tl_add_ok(v, (uint64_t)(*l->p - '0'), &v))
                return tl_fail(l->err, TL_E_OVERFLOW, "shape", "a dimension above 2^64-1");
            l->p++;
        }
        if (l->p < l->end && (*l->p == 'L' || *l->p == 'l'))
            l->p++;                     /* Python 2's long integers */
        if (n == TL_MAX_RANK)
            return tl_fail(l->err, TL_E_RANGE, "shape", "has more than %d dimensions (at most %d)",
                           TL_MAX_RANK, TL_MAX_RANK);
        shape[n++] = v;
        lit_space(l);
        if (l->p < l->end && *l->p == ',') {
            l->p++;
            continue;
        }
        if (l->p < l->end && *l->p == ')') {
            if (n == 1)                 /* "(5)" is the integer 5, not a tuple */
                return tl_fail(l->err, TL_E_TYPE, "shape", "must be a tuple: write (%" PRIu64 ",)",
                               shape[0]);
            l->p++;
            break;
        }
        return tl_fail(l->err, TL_E_JSON, "shape", "expected ',' or ')', found %s",
                       lit_here(l, b, sizeof b));
    }
    *ndim = n;
    return 0;
}

/* A .npy descr ("<f4") into a data type, or an error naming it. */
static int npy_dtype(const char *descr, enum tl_dtype *dt, struct tl_error *err)
{
    static const struct { char kind; unsigned size; enum tl_dtype dt; } types[] = {
        { 'f', 4, TL_DT_FLOAT32 }, { 'f', 2, TL_DT_FLOAT16 }, { 'f', 8, TL_DT_FLOAT64 },
        { 'u', 1, TL_DT_UINT8 },   { 'u', 2, TL_DT_UINT16 },  { 'u', 4, TL_DT_UINT32 },
        { 'u', 8, TL_DT_UINT64 },  { 'i', 1, TL_DT_INT8 },    { 'i', 2, TL_DT_INT16 },
        { 'i', 4, TL_DT_INT32 },   { 'i', 8, TL_DT_INT64 },
    };
    char q[40];
    tl_quote(descr, q, sizeof q);
    const char *s = descr;
    char order = '=';
    if (*s == '<' || *s == '>' || *s == '|' || *s == '=')
        order = *s++;
    char kind = *s ? *s++ : '\0';
    const char *what = NULL;
    switch (kind) {
    case 'b': case '?': what = "bool"; break;
    case 'c': what = "complex"; break;
    case 'U': case 'S': case 'a': what = "string"; break;
    case 'O': what = "object"; break;
    case 'V': what = "void (structured or raw bytes)"; break;
    case 'M': case 'm': what = "datetime"; break;
    }
    if (what)
        return tl_fail(err, TL_E_VALUE, "descr", "%s data ('%s') is not supported", what, q);
    unsigned size = 0;
    bool digits = *s != '\0';
    for (; *s; s++) {
        if (*s < '0' || *s > '9' || size > 100) {
            digits = false;
            break;
        }
        size = size * 10 + (unsigned)(*s - '0');
    }
    for (size_t i = 0; digits && i < sizeof types / sizeof types[0]; i++) {
        if (types[i].kind != kind || types[i].size != size)
            continue;
        if (size > 1 && order == '>')
            return tl_fail(err, TL_E_VALUE, "descr",
                           "big-endian data ('%s') is not supported: byteswap it to '<%c%u' first",
                           q, kind, size);
        if (size > 1 && order == '|')
            break;
        *dt = types[i].dt;
        return 0;
    }
    return tl_fail(err, TL_E_VALUE, "descr", "data type '%s' is not supported (supported: <f2 "
                   "<f4 <f8 |u1 <u2 <u4 <u8 |i1 <i2 <i4 <i8)", q);
}

/* Parses a .npy file's header into one tensor. */
static int npy_parse(const uint8_t *b, uint64_t len, struct tl_file *f, struct tl_error *err)
{
    if (len < 10)
        return tl_fail(err, TL_E_JSON, "header", "truncated: the file has %" PRIu64
                       " bytes, shorter than the .npy preamble", len);
    unsigned major = b[6], minor = b[7];
    if (!((major == 1 || major == 2 || major == 3) && minor == 0))
        return tl_fail(err, TL_E_VALUE, "version", "%u.%u is not a .npy version this tool "
                       "reads (1.0, 2.0, 3.0)", major, minor);
    uint64_t start, hlen;
    if (major == 1) {
        start = 10;
        hlen = (uint64_t)b[8] | (uint64_t)b[9] << 8;
    } else {
        if (len < 12)
            return tl_fail(err, TL_E_JSON, "header", "truncated: the file has %" PRIu64
                           " bytes, shorter than the .npy %u.0 preamble", len, major);
        start = 12;
        hlen = (uint64_t)b[8] | (uint64_t)b[9] << 8 | (uint64_t)b[10] << 16 |
               (uint64_t)b[11] << 24;
    }
    if (hlen > HEADER_MAX)
        return tl_fail(err, TL_E_RANGE, "header", "claims %" PRIu64 " bytes, above the "
                       "limit of 100 MiB", hlen);
    if (hlen > len - start)
        return tl_fail(err, TL_E_RANGE, "header", "claims %" PRIu64 " bytes but the file has "
                       "only %" PRIu64 " after the preamble (truncated?)", hlen, len - start);
    struct lit l = { (const char *)b + start, (const char *)b + start + hlen, err };
    char key[32], descr[64] = "";
    bool have_descr = false, have_fortran = false, have_shape = false, fortran = false;
    uint64_t shape[TL_MAX_RANK];
    unsigned ndim = 0;
    int rc;
    if ((rc = lit_expect(&l, '{', "'{' (a Python dictionary)")))
        return rc;
    for (;;) {
        lit_space(&l);
        if (l.p < l.end && *l.p == '}') {
            l.p++;
            break;
        }
        if ((rc = lit_string(&l, key, sizeof key)) || (rc = lit_expect(&l, ':', "':'")))
            return rc;
        lit_space(&l);
        bool *have;
        if (strcmp(key, "descr") == 0) {
            have = &have_descr;
            if (l.p < l.end && *l.p == '[')
                return tl_fail(err, TL_E_VALUE, "descr", "structured data types are not supported");
            rc = lit_string(&l, descr, sizeof descr);
        } else if (strcmp(key, "fortran_order") == 0) {
            have = &have_fortran;
            if (lit_word(&l, "True"))
                fortran = true;
            else if (lit_word(&l, "False"))
                fortran = false;
            else
                rc = tl_fail(err, TL_E_TYPE, "fortran_order", "must be True or False");
        } else if (strcmp(key, "shape") == 0) {
            have = &have_shape;
            rc = lit_shape(&l, shape, &ndim);
        } else {
            char q[40];
            return tl_fail(err, TL_E_KEY, "header", "unknown key '%s' (a .npy header has "
                           "'descr', 'fortran_order' and 'shape')", tl_quote(key, q, sizeof q));
        }
        if (rc)
            return rc;
        if (*have)
            return tl_fail(err, TL_E_KEY, key, "appears twice in the header");
        *have = true;
        lit_space(&l);
        if (l.p < l.end && *l.p == ',') {
            l.p++;
            continue;
        }
        if ((rc = lit_expect(&l, '}', "',' or '}'")))
            return rc;
        break;
    }
    lit_space(&l);
    if (l.p != l.end) {
        char c[24];
        return tl_fail(err, TL_E_JSON, "header", "unexpected %s after the dictionary",
                       lit_here(&l, c, sizeof c));
    }
    const char *missing = !have_descr ? "descr" : !have_fortran ? "fortran_order"
                        : !have_shape ? "shape" : NULL;
    if (missing)
        return tl_fail(err, TL_E_KEY, missing, "is missing from the header");
    enum tl_dtype dt = TL_DT_FLOAT32;
    if ((rc = npy_dtype(descr, &dt, err)))
        return rc;
    for (unsigned i = 0; i < ndim; i++) {
        if (shape[i] == 0) {
            char k[24];
            snprintf(k, sizeof k, "shape[%u]", i);
            return tl_fail(err, TL_E_RANGE, k, "is 0: an empty array has no elements to lay out");
        }
    }
    f->tensors = calloc(1, sizeof *f->tensors);
    if (!f->tensors)
        return tl_fail(err, TL_E_NOMEM, NULL, "out of memory");
    f->count = 1;
    f->data_start = start + hlen;
    f->version = major;
    struct tl_file_tensor *t = &f->tensors[0];
    if ((rc = desc_from_shape(&t->desc, dt, ndim, shape, fortran, start + hlen, err)))
        return rc;
    if ((rc = require_data(&t->desc, len, "data", err)))
        return rc;
    struct tl_info info;
    tl_desc_classify(&t->desc, &info);
    t->begin = start + hlen;
    t->end = info.elements_bytes;
    return 0;
}

/* numpy's descr of a type, or NULL for BFLOAT16, which numpy lacks. */
static const char *npy_descr(enum tl_dtype dt)
{
    static const char *const d[TL_DT_COUNT] = {
        [TL_DT_FLOAT32] = "<f4", [TL_DT_FLOAT16] = "<f2", [TL_DT_UINT32] = "<u4",
        [TL_DT_UINT16] = "<u2",  [TL_DT_UINT8] = "|u1",   [TL_DT_INT32] = "<i4",
        [TL_DT_INT16] = "<i2",   [TL_DT_INT8] = "|i1",    [TL_DT_FLOAT64] = "<f8",
        [TL_DT_UINT64] = "<u8",  [TL_DT_INT64] = "<i8",
    };
    return d[dt];
}

int tl_npy_header(const struct tl_desc *d, uint8_t *buf, size_t cap, size_t *len,
                  struct tl_error *err)
{
    struct tl_info info;
    tl_desc_classify(d, &info);
    const char *descr = npy_descr(d->dtype);
    if (!descr)
        return tl_fail(err, TL_E_VALUE, "dataType", "%s has no .npy type (numpy has no bfloat16)",
                       tl_dtype_name(d->dtype));
    if (!info.packed)
        return tl_fail(err, TL_E_VALUE, "strides", "a .npy file holds a packed array, and "
                       "this destination is %s", tl_status_name(info.status));
    if (d->byte_offset)
        return tl_fail(err, TL_E_VALUE, "byteOffset", "a .npy file's data follows its header: "
                       "the destination's byteOffset must be 0, not %" PRIu64, d->byte_offset);
    char dict[512];
    int n = snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': (",
                     descr);
    for (unsigned i = 0; i < d->rank; i++)
        n += snprintf(dict + n, sizeof dict - (size_t)n, "%" PRIu64 "%s",
                      d->sizes[info.axis_order[i]], d->rank == 1 ? "," : i + 1 < d->rank ? ", " : "");
    n += snprintf(dict + n, sizeof dict - (size_t)n, "), }");
    /* 1.0 has a 2-byte header length; 2.0 is needed only past 65535 */
    size_t pre = 10, total = (pre + (size_t)n + 1 + NPY_ALIGN - 1) / NPY_ALIGN * NPY_ALIGN;
    if (total - pre > 65535) {
        pre = 12;
        total = (pre + (size_t)n + 1 + NPY_ALIGN - 1) / NPY_ALIGN * NPY_ALIGN;
    }
    if (total > cap)
        return tl_fail(err, TL_E_RANGE, NULL, "the .npy header needs %zu bytes", total);
    size_t hlen = total - pre;
    memcpy(buf, npy_magic, sizeof npy_magic);
    buf[6] = pre == 10 ? 1 : 2;
    buf[7] = 0;
    for (size_t i = 0; i < pre - 8; i++)
        buf[8 + i] = (uint8_t)(hlen >> (8 * i));
    memcpy(buf + pre, dict, (size_t)n);
    memset(buf + pre + n, ' ', total - pre - (size_t)n - 1);
    buf[total - 1] = '\n';
    *len = total;
    return 0;
}

/* ---- safetensors --------------------------------------------------------- */

static int st_dtype(const char *name, enum tl_dtype *dt, const char *key, struct tl_error *err)
{
    static const struct { const char *name; enum tl_dtype dt; } types[] = {
        { "F32", TL_DT_FLOAT32 }, { "F16", TL_DT_FLOAT16 }, { "F64", TL_DT_FLOAT64 },
        { "U8", TL_DT_UINT8 },    { "U16", TL_DT_UINT16 },  { "U32", TL_DT_UINT32 },
        { "U64", TL_DT_UINT64 },  { "I8", TL_DT_INT8 },     { "I16", TL_DT_INT16 },
        { "I32", TL_DT_INT32 },   { "I64", TL_DT_INT64 },   { "BF16", TL_DT_BFLOAT16 },
    };
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
        if (strcmp(name, types[i].name) == 0) {
            *dt = types[i].dt;
            return 0;
        }
    }
    char q[40];
    const char *what = strcmp(name, "BOOL") == 0 ? "bool "
                     : strncmp(name, "F8", 2) == 0 || strncmp(name, "F4", 2) == 0 ||
                       strncmp(name, "F6", 2) == 0 ? "small float "
                     : name[0] == 'C' ? "complex " : "";
    return tl_fail(err, TL_E_VALUE, key, "%sdata type '%s' is not supported (supported: F32 F16 "
                   "F64 BF16 U8 U16 U32 U64 I8 I16 I32 I64)", what, tl_quote(name, q, sizeof q));
}

/* An integer in [0, 2^53] from a JSON number. */
static int st_u64(const cJSON *v, const char *key, uint64_t *out, struct tl_error *err)
{
    if (!cJSON_IsNumber(v))
        return tl_fail(err, TL_E_TYPE, key, "must be an integer");
    double d = v->valuedouble;
    if (d < 0 || d != floor(d))
        return tl_fail(err, TL_E_RANGE, key, "must be a whole number >= 0 (is %.17g)", d);
    if (d >= TL_MAX_JSON_INT)
        return tl_fail(err, TL_E_RANGE, key, "is 2^53 or more: larger than any file");
    *out = (uint64_t)d;
    return 0;
}

/* "tensor 'NAME'" (+ ": " + sub) as a key for messages. */
static const char *st_key(const char *name, const char *sub, char *buf, size_t n)
{
    char q[64];
    tl_quote(name, q, sizeof q);
    if (sub)
        snprintf(buf, n, "tensor '%s': %.40s", q, sub);
    else
        snprintf(buf, n, "tensor '%s'", q);
    return buf;
}

static int st_tensor(const cJSON *o, uint64_t data_start, uint64_t data_len,
                     struct tl_file_tensor *t, struct tl_error *err)
{
    char key[128], sub[32];
    const char *name = o->string;
    if (!cJSON_IsObject(o))
        return tl_fail(err, TL_E_TYPE, st_key(name, NULL, key, sizeof key),
                       "must be an object with dtype, shape and data_offsets");
    const cJSON *dtype = NULL, *shape = NULL, *offs = NULL;
    for (const cJSON *c = o->child; c; c = c->next) {
        const cJSON **slot = strcmp(c->string, "dtype") == 0 ? &dtype
                           : strcmp(c->string, "shape") == 0 ? &shape
                           : strcmp(c->string, "data_offsets") == 0 ? &offs : NULL;
        if (!slot)
            continue;               /* as the reference reader: other keys are ignored */
        if (*slot)
            return tl_fail(err, TL_E_KEY, st_key(name, c->string, key, sizeof key),
                           "appears twice");
        *slot = c;
    }
    const char *missing = !dtype ? "dtype" : !shape ? "shape" : !offs ? "data_offsets" : NULL;
    if (missing)
        return tl_fail(err, TL_E_KEY, st_key(name, missing, key, sizeof key), "is missing");
    if (!cJSON_IsString(dtype))
        return tl_fail(err, TL_E_TYPE, st_key(name, "dtype", key, sizeof key), "must be a string");
    enum tl_dtype dt = TL_DT_FLOAT32;
    int rc = st_dtype(dtype->valuestring, &dt, st_key(name, "dtype", key, sizeof key), err);
    if (rc)
        return rc;
    if (!cJSON_IsArray(shape))
        return tl_fail(err, TL_E_TYPE, st_key(name, "shape", key, sizeof key),
                       "must be an array of integers");
    int ndim = cJSON_GetArraySize(shape);
    if (ndim > TL_MAX_RANK)
        return tl_fail(err, TL_E_RANGE, st_key(name, "shape", key, sizeof key),
                       "has %d dimensions (at most %d)", ndim, TL_MAX_RANK);
    uint64_t dims[TL_MAX_RANK];
    int i = 0;
    for (const cJSON *e = shape->child; e; e = e->next, i++) {
        snprintf(sub, sizeof sub, "shape[%d]", i);
        if ((rc = st_u64(e, st_key(name, sub, key, sizeof key), &dims[i], err)))
            return rc;
        if (dims[i] == 0)
            return tl_fail(err, TL_E_RANGE, key, "is 0: an empty tensor has no elements to lay out");
    }
    if (!cJSON_IsArray(offs) || cJSON_GetArraySize(offs) != 2)
        return tl_fail(err, TL_E_TYPE, st_key(name, "data_offsets", key, sizeof key),
                       "must be an array of two integers [begin, end]");
    uint64_t be[2];
    i = 0;
    for (const cJSON *e = offs->child; e; e = e->next, i++) {
        snprintf(sub, sizeof sub, "data_offsets[%d]", i);
        if ((rc = st_u64(e, st_key(name, sub, key, sizeof key), &be[i], err)))
            return rc;
    }
    st_key(name, "data_offsets", key, sizeof key);
    if (be[0] > be[1])
        return tl_fail(err, TL_E_RANGE, key, "are reversed: begin %" PRIu64 " > end %" PRIu64,
                       be[0], be[1]);
    if (be[1] > data_len)
        return tl_fail(err, TL_E_RANGE, key, "end %" PRIu64 " is outside the file: its data "
                       "section has %" PRIu64 " bytes", be[1], data_len);
    uint64_t count = 1, bytes;
    bool fits = true;
    for (int k = 0; k < ndim && fits; k++)
        fits = tl_mul_ok(count, dims[k], &count);
    if (!fits || !tl_mul_ok(count, tl_dtype_size(dt), &bytes))
        return tl_fail(err, TL_E_OVERFLOW, st_key(name, "shape", key, sizeof key),
                       "the tensor's size in bytes does not fit in 64 bits");
    if (bytes != be[1] - be[0])
        return tl_fail(err, TL_E_RANGE, key, "hold %" PRIu64 " bytes, but %" PRIu64
                       " elements of %s need %" PRIu64, be[1] - be[0], count,
                       dtype->valuestring, bytes);
    t->name = strdup(name);
    if (!t->name)
        return tl_fail(err, TL_E_NOMEM, NULL, "out of memory");
    t->begin = data_start + be[0];
    t->end = data_start + be[1];
    if ((rc = desc_from_shape(&t->desc, dt, (unsigned)ndim, dims, false, t->begin, err))) {
        tl_error_key(err, st_key(name, err->key, key, sizeof key));
        return rc;
    }
    return 0;
}

static int by_begin(const void *a, const void *b)
{
    const struct tl_file_tensor *x = a, *y = b;
    if (x->begin != y->begin)
        return x->begin < y->begin ? -1 : 1;
    return x->order < y->order ? -1 : x->order > y->order;
}

static int by_name(const void *a, const void *b)
{
    const struct tl_file_tensor *const *x = a, *const *y = b;
    return strcmp((*x)->name, (*y)->name);
}

static void add_problem(struct tl_file *f, enum tl_file_problem_kind kind, size_t a, size_t b,
                        uint64_t from, uint64_t to)
{
    struct tl_file_problem *p = &f->problems[f->nproblems++];
    p->kind = kind;
    p->a = a;
    p->b = b;
    p->from = from;
    p->to = to;
}

static int st_parse(const uint8_t *b, uint64_t len, struct tl_file *f, struct tl_error *err)
{
    if (len < 8)
        return tl_fail(err, TL_E_JSON, "header", "truncated: no 8-byte header length");
    uint64_t n = 0;
    for (int i = 0; i < 8; i++)
        n |= (uint64_t)b[i] << (8 * i);
    if (n > HEADER_MAX)
        return tl_fail(err, TL_E_RANGE, "header", "length %" PRIu64 " is above the limit of "
                       "100 MiB", n);
    if (n > len - 8)
        return tl_fail(err, TL_E_RANGE, "header", "claims %" PRIu64 " bytes but the file has "
                       "only %" PRIu64 " after the length (truncated?)", n, len - 8);
    if (n == 0 || b[8] != '{')
        return tl_fail(err, TL_E_JSON, "header", "does not start with '{'");
    const char *text = (const char *)b + 8, *end = NULL;
    for (uint64_t i = 0; i < n; i++) {
        if (text[i] == '\0')
            return tl_fail(err, TL_E_JSON, "header", "holds a NUL byte at %" PRIu64, 8 + i);
    }
    cJSON *root = cJSON_ParseWithLengthOpts(text, (size_t)n, &end, 0);
    if (!root) {
        uint64_t at = end ? (uint64_t)(end - text) : 0;
        return tl_fail(err, TL_E_JSON, "header", "malformed JSON near byte %" PRIu64, 8 + at);
    }
    int rc = 0;
    for (const char *p = end; p < text + n; p++) {
        if (*p != ' ' && *p != '\t' && *p != '\n' && *p != '\r') {
            rc = tl_fail(err, TL_E_JSON, "header", "text after the JSON object, at byte %" PRIu64,
                         (uint64_t)(8 + (p - text)));
            goto out;
        }
    }
    if (!cJSON_IsObject(root)) {
        rc = tl_fail(err, TL_E_TYPE, "header", "must be a JSON object");
        goto out;
    }
    size_t count = 0;
    const cJSON *meta = NULL;
    for (const cJSON *c = root->child; c; c = c->next) {
        if (strcmp(c->string, "__metadata__") == 0) {
            if (meta) {
                rc = tl_fail(err, TL_E_KEY, "__metadata__", "appears twice");
                goto out;
            }
            meta = c;
        } else {
            count++;
        }
    }
    f->data_start = 8 + n;
    f->tensors = calloc(count ? count : 1, sizeof *f->tensors);
    f->problems = calloc(count + 1, sizeof *f->problems);
    if (!f->tensors || !f->problems) {
        rc = tl_fail(err, TL_E_NOMEM, NULL, "out of memory");
        goto out;
    }
    for (const cJSON *c = root->child; c; c = c->next) {
        if (c == meta)
            continue;
        struct tl_file_tensor *t = &f->tensors[f->count];
        t->order = f->count;
        f->count++;
        if ((rc = st_tensor(c, 8 + n, len - 8 - n, t, err)))
            goto out;
    }
    if (meta && !cJSON_IsNull(meta)) {
        if (!cJSON_IsObject(meta)) {
            rc = tl_fail(err, TL_E_TYPE, "__metadata__", "must be an object of strings");
            goto out;
        }
        size_t m = (size_t)cJSON_GetArraySize(meta);
        f->meta = calloc(m ? m : 1, sizeof *f->meta);
        if (!f->meta) {
            rc = tl_fail(err, TL_E_NOMEM, NULL, "out of memory");
            goto out;
        }
        for (const cJSON *c = meta->child; c; c = c->next) {
            if (!cJSON_IsString(c)) {
                char key[128], q[80];
                snprintf(key, sizeof key, "__metadata__.%s", tl_quote(c->string, q, sizeof q));
                rc = tl_fail(err, TL_E_TYPE, key, "must be a string");
                goto out;
            }
            struct tl_file_meta *e = &f->meta[f->nmeta++];
            e->key = strdup(c->string);
            e->value = strdup(c->valuestring);
            if (!e->key || !e->value) {
                rc = tl_fail(err, TL_E_NOMEM, NULL, "out of memory");
                goto out;
            }
        }
    }
    /* duplicate names: cJSON keeps both */
    if (f->count > 1) {
        const struct tl_file_tensor **names = malloc(f->count * sizeof *names);
        if (!names) {
            rc = tl_fail(err, TL_E_NOMEM, NULL, "out of memory");
            goto out;
        }
        for (size_t i = 0; i < f->count; i++)
            names[i] = &f->tensors[i];
        qsort(names, f->count, sizeof *names, by_name);
        for (size_t i = 1; i < f->count; i++) {
            if (strcmp(names[i - 1]->name, names[i]->name) == 0) {
                char key[128];
                rc = tl_fail(err, TL_E_KEY, st_key(names[i]->name, NULL, key, sizeof key),
                             "appears twice in the header");
                break;
            }
        }
        free(names);
        if (rc)
            goto out;
    }
    /* file order, then what lies between the tensors */
    qsort(f->tensors, f->count, sizeof *f->tensors, by_begin);
    uint64_t reach = f->data_start;
    size_t reacher = SIZE_MAX;
    for (size_t i = 0; i < f->count; i++) {
        const struct tl_file_tensor *t = &f->tensors[i];
        if (t->begin < reach)
            add_problem(f, TL_FP_OVERLAP, reacher, i, t->begin, t->end < reach ? t->end : reach);
        else if (t->begin > reach)
            add_problem(f, TL_FP_GAP, reacher, i, reach, t->begin);
        if (t->end > reach) {
            reach = t->end;
            reacher = i;
        }
    }
    if (reach < len)
        add_problem(f, TL_FP_GAP, reacher, SIZE_MAX, reach, len);
out:
    cJSON_Delete(root);
    return rc;
}

/* ---- the file ------------------------------------------------------------ */

int tl_file_parse(const uint8_t *bytes, uint64_t len, struct tl_file *f, struct tl_error *err)
{
    memset(f, 0, sizeof *f);
    f->format = tl_file_sniff(bytes, len < 16 ? (size_t)len : 16);
    int rc;
    if (f->format == TL_FMT_NPY)
        rc = npy_parse(bytes, len, f, err);
    else if (f->format == TL_FMT_SAFETENSORS)
        rc = st_parse(bytes, len, f, err);
    else
        rc = tl_fail(err, TL_E_VALUE, NULL, "not a .npy or safetensors file");
    if (rc)
        tl_file_free(f);
    return rc;
}

void tl_file_free(struct tl_file *f)
{
    for (size_t i = 0; i < f->count; i++)
        free(f->tensors[i].name);
    for (size_t i = 0; i < f->nmeta; i++) {
        free(f->meta[i].key);
        free(f->meta[i].value);
    }
    free(f->tensors);
    free(f->meta);
    free(f->problems);
    memset(f, 0, sizeof *f);
}

const struct tl_file_tensor *tl_file_find(const struct tl_file *f, const char *name)
{
    for (size_t i = 0; i < f->count; i++) {
        if (f->tensors[i].name && strcmp(f->tensors[i].name, name) == 0)
            return &f->tensors[i];
    }
    return NULL;
}
