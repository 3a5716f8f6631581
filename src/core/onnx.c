/*
 * onnx.c - ONNX models and serialized tensors (SPEC 20): the protobuf wire
 * format walked in place, with bounded memory (a row a weight, never the
 * model decoded), for every weight its name, type, dims and where its bytes
 * are.  Weights are a graph's initializers, its sparse initializers (listed,
 * not decoded), the `value` tensors of Constant nodes (named by the node's
 * output) and those of subgraphs (an If's branches, a Loop's body), named
 * NODE/ATTRIBUTE/NAME so that two never collide.  A file that is one
 * TensorProto (a `.pb` of ONNX's test data) is one row.
 *
 * Storage: raw_data and float_data / double_data (fixed-width, little
 * endian) are read in place; int32_data, int64_data and uint64_data hold
 * varints, one a value (one a packed byte of two values for the 4-bit
 * types), decoded by the varint encoding (TL_ENC_VARINT); external_data
 * names a file beside the model (`elsewhere`), which the caller opens: the
 * library opens no file.  A location that is absolute or climbs out of the
 * model's folder is refused here; the caller checks where a symlink leads.
 *
 * Field numbers are onnx.proto's (ModelProto, GraphProto, NodeProto,
 * AttributeProto, TensorProto, SparseTensorProto, StringStringEntryProto,
 * OperatorSetIdProto).
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "tl.h"
#include "tl_io.h"

/* Graphs inside graphs (an If in a Loop's body...): deeper is refused. */
#define ONNX_DEPTH_MAX 32

enum { WIRE_VARINT = 0, WIRE_I64 = 1, WIRE_LEN = 2, WIRE_I32 = 5 };

/* One field of a message: its number and wire type, and its value (a
 * varint, or a fixed-width one) or bytes [s, s + n). */
struct field {
    uint32_t num;
    unsigned wire;
    uint64_t v;
    const uint8_t *s;
    uint64_t n;
};

/* A message's bytes, read from p on. */
struct msg {
    const uint8_t *p, *end;
};

struct rd {
    const uint8_t *base;
    uint64_t len;
    struct tl_file *f;
    size_t cap;
    struct tl_error *err;
    char what[192];                     /* the part being read, for messages */
};

static int varint(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
    uint64_t x = 0;
    for (unsigned shift = 0; shift < 70; shift += 7) {
        if (*p >= end)
            return -1;                  /* cut short */
        uint8_t b = *(*p)++;
        if (shift == 63 && b > 1)
            return -2;                  /* more than 64 bits */
        x |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) {
            *v = x;
            return 0;
        }
    }
    return -2;
}

static int bad(struct rd *r, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int bad(struct rd *r, int code, const char *fmt, ...)
{
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return tl_fail(r->err, code, r->what, "%s", msg);
}

/* The next field of m into *fl: @return 1 when there is one, 0 at the
 * message's end, or a TL_E_* code with the error said. */
static int next(struct rd *r, struct msg *m, struct field *fl)
{
    if (m->p >= m->end)
        return 0;
    uint64_t tag, at = (uint64_t)(m->p - r->base);
    if (varint(&m->p, m->end, &tag))
        return bad(r, TL_E_RANGE, "a field's tag at byte %" PRIu64 " is cut short or overlong", at);
    fl->num = (uint32_t)(tag >> 3);
    fl->wire = (unsigned)(tag & 7);
    if (tag >> 3 == 0 || tag >> 3 > 536870911u)
        return bad(r, TL_E_VALUE, "byte %" PRIu64 ": field number %" PRIu64 " is none", at,
                   tag >> 3);
    switch (fl->wire) {
    case WIRE_VARINT:
        if (varint(&m->p, m->end, &fl->v))
            return bad(r, TL_E_RANGE, "field %" PRIu32 " at byte %" PRIu64 ": its varint is cut "
                       "short or longer than 10 bytes", fl->num, at);
        return 1;
    case WIRE_I64:
    case WIRE_I32: {
        unsigned w = fl->wire == WIRE_I64 ? 8 : 4;
        if ((uint64_t)(m->end - m->p) < w)
            return bad(r, TL_E_RANGE, "field %" PRIu32 " at byte %" PRIu64 " runs past the end "
                       "of its message", fl->num, at);
        fl->v = 0;
        for (unsigned k = 0; k < w; k++)
            fl->v |= (uint64_t)m->p[k] << (8 * k);
        m->p += w;
        return 1;
    }
    case WIRE_LEN:
        if (varint(&m->p, m->end, &fl->n))
            return bad(r, TL_E_RANGE, "field %" PRIu32 " at byte %" PRIu64 ": its length is cut "
                       "short", fl->num, at);
        if (fl->n > (uint64_t)(m->end - m->p))
            return bad(r, TL_E_RANGE, "field %" PRIu32 " at byte %" PRIu64 ": its length %"
                       PRIu64 " runs past the end of its message (%" PRIu64 " bytes left)",
                       fl->num, at, fl->n, (uint64_t)(m->end - m->p));
        fl->s = m->p;
        m->p += fl->n;
        return 1;
    default:
        return bad(r, TL_E_VALUE, "field %" PRIu32 " at byte %" PRIu64 " has wire type %u, "
                   "which ONNX does not use (not a protocol buffer, or a damaged one)",
                   fl->num, at, fl->wire);
    }
}

/* Field fl must have wire type `want`. */
static int want(struct rd *r, const struct field *fl, unsigned wire, const char *name)
{
    static const char *const wires[8] = { "a varint", "8 bytes", "bytes", "a group", "a group",
                                          "4 bytes", "?", "?" };
    if (fl->wire == wire)
        return 0;
    return bad(r, TL_E_VALUE, "%s (field %" PRIu32 ") holds %s, not %s", name, fl->num,
               wires[fl->wire & 7], wires[wire]);
}

/* ---- the types ------------------------------------------------------------ */

/* ONNX's data types by number (TensorProto.DataType): their names, ours
 * (-1: listed, not decoded), and the typed field a value is kept in when
 * not in raw_data (4 float_data, 5 int32_data, 7 int64_data, 10
 * double_data, 11 uint64_data, 6 string_data). */
static const struct {
    const char *name;
    int dt;
    unsigned field;
    const char *why;                    /* why it is not decoded */
} types[] = {
    [1] = { "FLOAT", TL_DT_FLOAT32, 4, NULL },
    [2] = { "UINT8", TL_DT_UINT8, 5, NULL },
    [3] = { "INT8", TL_DT_INT8, 5, NULL },
    [4] = { "UINT16", TL_DT_UINT16, 5, NULL },
    [5] = { "INT16", TL_DT_INT16, 5, NULL },
    [6] = { "INT32", TL_DT_INT32, 5, NULL },
    [7] = { "INT64", TL_DT_INT64, 7, NULL },
    [8] = { "STRING", -1, 6, "strings, no numbers" },
    [9] = { "BOOL", TL_DT_BOOL, 5, NULL },
    [10] = { "FLOAT16", TL_DT_FLOAT16, 5, NULL },
    [11] = { "DOUBLE", TL_DT_FLOAT64, 10, NULL },
    [12] = { "UINT32", TL_DT_UINT32, 11, NULL },
    [13] = { "UINT64", TL_DT_UINT64, 11, NULL },
    [14] = { "COMPLEX64", -1, 4, "complex numbers, which the type table does not hold" },
    [15] = { "COMPLEX128", -1, 10, "complex numbers, which the type table does not hold" },
    [16] = { "BFLOAT16", TL_DT_BFLOAT16, 5, NULL },
    [17] = { "FLOAT8E4M3FN", TL_DT_FLOAT8E4M3, 5, NULL },
    [18] = { "FLOAT8E4M3FNUZ", -1, 5, "an 8-bit float with no negative zero (its NaN is 0x80), "
             "which the type table does not hold" },
    [19] = { "FLOAT8E5M2", TL_DT_FLOAT8E5M2, 5, NULL },
    [20] = { "FLOAT8E5M2FNUZ", -1, 5, "an 8-bit float with no negative zero (its NaN is 0x80), "
             "which the type table does not hold" },
    [21] = { "UINT4", TL_DT_UINT4, 5, NULL },
    [22] = { "INT4", TL_DT_INT4, 5, NULL },
    [23] = { "FLOAT4E2M1", TL_DT_FLOAT4E2M1, 5, NULL },
};
#define NTYPES (sizeof types / sizeof types[0])

static const char *field_name(unsigned num)
{
    switch (num) {
    case 4:  return "float_data";
    case 5:  return "int32_data";
    case 6:  return "string_data";
    case 7:  return "int64_data";
    case 9:  return "raw_data";
    case 10: return "double_data";
    case 11: return "uint64_data";
    default: return "?";
    }
}

/* The bits of a stored element of ONNX type number ty (0: none known). */
static unsigned type_bits(uint64_t ty)
{
    if (ty >= NTYPES || !types[ty].name)
        return 0;
    if (types[ty].dt >= 0)
        return tl_dtype_bits((enum tl_dtype)types[ty].dt);
    return ty == 14 ? 64 : ty == 15 ? 128 : ty == 8 ? 0 : 8;
}

int tl_onnx_dtype(const char *name, enum tl_dtype *dt)
{
    for (size_t i = 0; i < NTYPES; i++) {
        if (types[i].name && types[i].dt >= 0 && strcmp(types[i].name, name) == 0) {
            *dt = (enum tl_dtype)types[i].dt;
            return 0;
        }
    }
    return TL_E_VALUE;
}

/* ---- rows ------------------------------------------------------------------ */

static struct tl_file_tensor *new_row(struct rd *r)
{
    struct tl_file *f = r->f;
    if (f->count == r->cap) {
        if (tl_file_count_ok(f->count + 1, "weights", r->err))
            return NULL;
        size_t cap = r->cap ? 2 * r->cap : 16;
        struct tl_file_tensor *t = realloc(f->tensors, cap * sizeof *t);
        if (!t) {
            tl_fail(r->err, TL_E_NOMEM, NULL, "out of memory");
            return NULL;
        }
        f->tensors = t;
        r->cap = cap;
    }
    struct tl_file_tensor *t = &f->tensors[f->count];
    memset(t, 0, sizeof *t);
    t->order = f->count++;
    return t;
}

/* n bytes of the file as a string: strndup (a NUL in them shows as a
 * shorter string, which the callers refuse). */
static char *dup_bytes(const uint8_t *s, uint64_t n)
{
    return strndup((const char *)s, (size_t)n);
}

/* A new row named prefix + name (name_n bytes; NULL: none), for a weight
 * of the graph prefix is of.  @return the row, or NULL with err said. */
static struct tl_file_tensor *named_row(struct rd *r, const char *prefix, const char *name,
                                        size_t name_n)
{
    struct tl_file_tensor *t = new_row(r);
    if (!t)
        return NULL;
    size_t pl = strlen(prefix);
    if (!(t->name = malloc(pl + name_n + 1))) {
        tl_fail(r->err, TL_E_NOMEM, NULL, "out of memory");
        return NULL;
    }
    memcpy(t->name, prefix, pl);
    memcpy(t->name + pl, name ? name : "", name_n);
    t->name[pl + name_n] = '\0';
    return t;
}

/* A TensorProto as read. */
struct tp {
    uint64_t dims[TL_MAX_RANK];
    unsigned ndim;
    bool deep;                          /* more dims than TL_MAX_RANK */
    uint64_t type;
    const uint8_t *name;
    uint64_t name_n;
    unsigned data_field;                /* the field its values are in, 0: none */
    const uint8_t *data;
    uint64_t data_n;
    uint64_t strings;                   /* string_data's entries */
    bool external;                      /* data_location EXTERNAL, or external_data given */
    const uint8_t *location;
    uint64_t location_n, offset, length;
    bool has_length;
};

static int add_dim(struct rd *r, struct tp *x, uint64_t v)
{
    if ((int64_t)v < 0)
        return bad(r, TL_E_VALUE, "dims: %" PRId64 " is negative", (int64_t)v);
    if (x->ndim == TL_MAX_RANK) {
        x->deep = true;
        return 0;
    }
    x->dims[x->ndim++] = v;
    return 0;
}

/* A dims field: one varint, or packed varints. */
static int dims_field(struct rd *r, const struct field *fl, struct tp *x)
{
    if (fl->wire == WIRE_VARINT)
        return add_dim(r, x, fl->v);
    int rc = want(r, fl, WIRE_LEN, "dims");
    if (rc)
        return rc;
    const uint8_t *p = fl->s, *e = fl->s + fl->n;
    uint64_t v;
    while (!rc && p < e)
        rc = varint(&p, e, &v) ? bad(r, TL_E_RANGE, "dims: a varint is cut short")
                               : add_dim(r, x, v);
    return rc;
}

/* One StringStringEntryProto of external_data. */
static int external_entry(struct rd *r, const uint8_t *s, uint64_t n, struct tp *x)
{
    struct msg m = { s, s + n };
    struct field fl;
    const uint8_t *key = NULL, *val = NULL;
    uint64_t kn = 0, vn = 0;
    int rc;
    while ((rc = next(r, &m, &fl)) == 1) {
        rc = 0;
        if (fl.num == 1 || fl.num == 2) {
            if ((rc = want(r, &fl, WIRE_LEN, fl.num == 1 ? "external_data key" : "external_data "
                           "value")))
                return rc;
            if (fl.num == 1)
                key = fl.s, kn = fl.n;
            else
                val = fl.s, vn = fl.n;
        }
    }
    if (rc)
        return rc;
    if (!key)
        return 0;
    x->external = true;
    if (kn == 8 && memcmp(key, "location", 8) == 0) {
        x->location = val ? val : (const uint8_t *)"";
        x->location_n = vn;
        return 0;
    }
    bool off = kn == 6 && memcmp(key, "offset", 6) == 0;
    if (!off && !(kn == 6 && memcmp(key, "length", 6) == 0))
        return 0;                       /* checksum, and what the format adds later */
    uint64_t v = 0;
    if (!val || vn == 0 || vn > 19)
        return bad(r, TL_E_VALUE, "external_data %s: '%.*s' is not a count of bytes",
                   off ? "offset" : "length", (int)(vn < 40 ? vn : 40), val ? (const char *)val : "");
    for (uint64_t i = 0; i < vn; i++) {
        if (val[i] < '0' || val[i] > '9')
            return bad(r, TL_E_VALUE, "external_data %s: '%.*s' is not a count of bytes",
                       off ? "offset" : "length", (int)(vn < 40 ? vn : 40), (const char *)val);
        v = v * 10 + (uint64_t)(val[i] - '0');
    }
    if (off) {
        x->offset = v;
    } else {
        x->length = v;
        x->has_length = true;
    }
    return 0;
}

static int read_tp(struct rd *r, const uint8_t *s, uint64_t n, struct tp *x)
{
    struct msg m = { s, s + n };
    struct field fl;
    int rc;
    memset(x, 0, sizeof *x);
    while ((rc = next(r, &m, &fl)) == 1) {
        rc = 0;
        switch (fl.num) {
        case 1:
            rc = dims_field(r, &fl, x);
            break;
        case 2:
            rc = want(r, &fl, WIRE_VARINT, "data_type");
            x->type = fl.v;
            break;
        case 3:
            rc = bad(r, TL_E_VALUE, "segment: a tensor stored in segments is not one this tool "
                     "reads");
            break;
        case 6:
            rc = want(r, &fl, WIRE_LEN, "string_data");
            x->strings++;
            break;
        case 4: case 5: case 7: case 9: case 10: case 11:
            if (fl.wire != WIRE_LEN)
                rc = bad(r, TL_E_VALUE, "%s is not packed (one value a field): not a form "
                         "onnx writes, and not one this tool reads", field_name(fl.num));
            else if (x->data_field)
                rc = bad(r, TL_E_VALUE, "holds its values twice (%s and %s)",
                         field_name(x->data_field), field_name(fl.num));
            x->data_field = fl.num;
            x->data = fl.s;
            x->data_n = fl.n;
            break;
        case 8:
            rc = want(r, &fl, WIRE_LEN, "name");
            x->name = fl.s;
            x->name_n = fl.n;
            break;
        case 13:
            if (!(rc = want(r, &fl, WIRE_LEN, "external_data")))
                rc = external_entry(r, fl.s, fl.n, x);
            break;
        case 14:
            if (!(rc = want(r, &fl, WIRE_VARINT, "data_location")) && fl.v == 1)
                x->external = true;
            break;
        default:
            break;                      /* doc_string, metadata_props, what comes later */
        }
        if (rc)
            return rc;
    }
    return rc;
}

/* "a STRING tensor of shape (2, 3)", for a row listed, not decoded. */
static int listed_only(struct rd *r, struct tl_file_tensor *t, const struct tp *x,
                       const char *kind, const char *type)
{
    char what[64];
    snprintf(what, sizeof what, "%s%s", kind, type);
    return tl_file_listed(t, what, x->ndim, x->dims, r->err);
}

/* Where the row's values lie, checked against its dims and type. */
static int place(struct rd *r, struct tl_file_tensor *t, const struct tp *x, uint64_t count,
                 uint64_t bytes)
{
    unsigned bits = type_bits(x->type);
    if (x->external) {
        if (x->data_field)
            return bad(r, TL_E_VALUE, "is stored externally and holds %s too",
                       field_name(x->data_field));
        if (!x->location)
            return bad(r, TL_E_VALUE, "external_data names no location");
        if (!(t->elsewhere = dup_bytes(x->location, x->location_n)))
            return tl_fail(r->err, TL_E_NOMEM, NULL, "out of memory");
        if (x->location_n == 0 || strlen(t->elsewhere) != x->location_n)
            return bad(r, TL_E_VALUE, "external_data location is empty or holds a NUL byte");
        if (tl_path_escapes(t->elsewhere))
            return bad(r, TL_E_VALUE, "external_data location '%.80s' %s: refused, nothing "
                       "outside the model's folder is read", t->elsewhere,
                       strchr("/\\", t->elsewhere[0]) || t->elsewhere[1] == ':'
                           ? "is absolute" : "climbs out of the model's folder ('..')");
        if (x->has_length && x->length != bytes)
            return bad(r, TL_E_VALUE, "external_data length %" PRIu64 " is not the %" PRIu64
                       " bytes its dims and type make", x->length, bytes);
        if (!tl_add_ok(x->offset, bytes, &t->end))
            return bad(r, TL_E_RANGE, "external_data offset %" PRIu64 " is past any file",
                       x->offset);
        t->begin = t->stored_at = x->offset;
        t->stored_bytes = t->decoded_bytes = bytes;
        snprintf(t->stored, sizeof t->stored, "external");
        return 0;
    }
    if (!x->data_field) {
        if (count)
            return bad(r, TL_E_VALUE, "holds no values (no raw_data, no typed field, no "
                       "external_data) for its %" PRIu64 " elements", count);
        t->begin = t->end = t->stored_at = 0;
        snprintf(t->stored, sizeof t->stored, "none");
        return 0;
    }
    const char *fname = field_name(x->data_field);
    unsigned expect = x->type < NTYPES && types[x->type].name ? types[x->type].field : 0;
    if (x->data_field != 9 && x->data_field != expect)
        return bad(r, TL_E_VALUE, "a %s tensor's values are in %s, not in %s (onnx's own "
                   "rule)", types[x->type].name, field_name(expect), fname);
    snprintf(t->stored, sizeof t->stored, "%s", fname);
    t->stored_at = t->begin = (uint64_t)(x->data - r->base);
    t->stored_bytes = x->data_n;
    t->end = t->begin + x->data_n;
    t->decoded_bytes = bytes;
    if (x->data_field == 9 || x->data_field == 4 || x->data_field == 10) {
        /* fixed width: the bytes themselves */
        if (x->data_n != bytes)
            return bad(r, TL_E_VALUE, "%s holds %" PRIu64 " bytes; its dims and type make %"
                       PRIu64, fname, x->data_n, bytes);
        return 0;
    }
    /* varints: one a value (a byte of two values for the 4-bit types) */
    uint64_t n = 0, v;
    for (const uint8_t *p = x->data, *e = x->data + x->data_n; p < e; n++)
        if (varint(&p, e, &v))
            return bad(r, TL_E_RANGE, "%s: value %" PRIu64 " is a varint cut short or longer "
                       "than 10 bytes", fname, n);
    uint64_t need = bits == 4 ? (count + 1) / 2 : count;
    if (n != need)
        return bad(r, TL_E_VALUE, "%s holds %" PRIu64 " values; its dims and type make %"
                   PRIu64, fname, n, need);
    t->encoding = TL_ENC_VARINT;
    return 0;
}

/* Names the weight a TensorProto at [s, s + n) is (its name field, read
 * before the rest: dims come first) in what messages say. */
static void about(struct rd *r, const uint8_t *s, uint64_t n, const char *prefix,
                  const char *name, size_t name_n)
{
    struct msg m = { s, s + n };
    struct field fl;
    struct tl_error quiet = { 0 }, *was = r->err;
    r->err = &quiet;
    while (!name && next(r, &m, &fl) == 1)
        if (fl.num == 8 && fl.wire == WIRE_LEN) {
            name = (const char *)fl.s;
            name_n = (size_t)fl.n;
        }
    r->err = was;
    char full[192], q[128];
    snprintf(full, sizeof full, "%s%.*s", prefix, name ? (int)(name_n < 150 ? name_n : 150) : 0,
             name ? name : "");
    snprintf(r->what, sizeof r->what, "weight '%s'", tl_quote(full, q, sizeof q));
}

/* A TensorProto at [s, s + n) as a row named name (or its own name when
 * name is NULL), prefix (a subgraph's) before it. */
static int tensor_row(struct rd *r, const uint8_t *s, uint64_t n, const char *prefix,
                      const char *name, size_t name_n)
{
    struct tp x;
    about(r, s, n, prefix, name, name_n);
    int rc = read_tp(r, s, n, &x);
    if (rc)
        return rc;
    if (!name) {
        name = (const char *)x.name;
        name_n = x.name ? (size_t)x.name_n : 0;
    }
    struct tl_file_tensor *t = named_row(r, prefix, name, name_n);
    if (!t)
        return r->err->code;
    size_t pl = strlen(prefix);
    char q[96];
    snprintf(r->what, sizeof r->what, "weight '%s'", tl_quote(t->name, q, sizeof q));
    if (strlen(t->name) != pl + name_n)
        return bad(r, TL_E_VALUE, "its name holds a NUL byte");
    if (x.deep)
        return bad(r, TL_E_VALUE, "dims: more than %d of them, more than this tool reads",
                   TL_MAX_RANK);
    if (x.type == 0 || x.type >= NTYPES || !types[x.type].name)
        return bad(r, TL_E_VALUE, "data_type %" PRIu64 " is no ONNX type this tool knows",
                   x.type);
    snprintf(t->dtype, sizeof t->dtype, "%s", types[x.type].name);
    uint64_t count = 1, bytes;
    for (unsigned k = 0; k < x.ndim; k++)
        if (!tl_mul_ok(count, x.dims[k], &count) || count > TL_FILE_BYTES_MAX)
            return bad(r, TL_E_RANGE, "dims: their product overflows");
    unsigned bits = type_bits(x.type);
    if (!tl_mul_ok(count, bits ? bits : 8, &bytes))
        return bad(r, TL_E_RANGE, "dims: their product overflows");
    bytes = (bytes + 7) / 8;
    t->ndim = x.ndim;
    memcpy(t->shape, x.dims, x.ndim * sizeof x.dims[0]);
    t->scalar = x.ndim == 0;
    if (types[x.type].dt < 0) {
        if (x.type == 8 && x.strings != count && !x.external)
            return bad(r, TL_E_VALUE, "string_data holds %" PRIu64 " strings; its dims make %"
                       PRIu64, x.strings, count);
        if ((rc = listed_only(r, t, &x, "", types[x.type].name)))
            return rc;
        if (x.type != 8 && (rc = place(r, t, &x, count, bytes)))
            return rc;
        snprintf(t->stored, sizeof t->stored, "%s", x.type == 8 ? "string_data" : t->stored);
        return 0;
    }
    if ((rc = place(r, t, &x, count, bytes)))
        return rc;
    if (count == 0)
        return 0;                       /* listed; a 0 in its shape is not decoded */
    uint64_t at = t->encoding == TL_ENC_PLAIN ? t->begin : 0;
    if ((rc = tl_desc_from_shape(&t->desc, (enum tl_dtype)types[x.type].dt, x.ndim, x.dims, false,
                                 at, r->err))) {
        tl_error_key(r->err, r->what);
        return rc;
    }
    t->decodable = true;
    return 0;
}

/* A SparseTensorProto: listed by its values' name, not decoded. */
static int sparse_row(struct rd *r, const uint8_t *s, uint64_t n, const char *prefix,
                      const char *name, size_t name_n)
{
    struct msg m = { s, s + n };
    struct field fl;
    struct tp values = { 0 }, dense = { 0 };
    bool have = false;
    int rc;
    snprintf(r->what, sizeof r->what, "a sparse initializer");
    while ((rc = next(r, &m, &fl)) == 1) {
        rc = 0;
        if (fl.num == 1 && !(rc = want(r, &fl, WIRE_LEN, "sparse values"))) {
            rc = read_tp(r, fl.s, fl.n, &values);
            have = true;
        } else if (fl.num == 3) {
            rc = dims_field(r, &fl, &dense);
        }
        if (rc)
            return rc;
    }
    if (rc)
        return rc;
    if (!have)
        return bad(r, TL_E_VALUE, "a sparse initializer holds no values tensor");
    if (!name) {
        name = (const char *)values.name;
        name_n = values.name ? (size_t)values.name_n : 0;
    }
    struct tl_file_tensor *t = named_row(r, prefix, name, name_n);
    if (!t)
        return r->err->code;
    const char *type = values.type < NTYPES && types[values.type].name ? types[values.type].name
                                                                       : "?";
    snprintf(t->dtype, sizeof t->dtype, "%s", type);
    snprintf(t->stored, sizeof t->stored, "sparse");
    if (dense.deep)
        return bad(r, TL_E_VALUE, "dims: more than %d of them, more than this tool reads",
                   TL_MAX_RANK);
    return listed_only(r, t, &dense, "sparse ", type);
}

/* ---- graphs ---------------------------------------------------------------- */

static int graph(struct rd *r, const uint8_t *s, uint64_t n, const char *prefix, unsigned depth);

/* An attribute of a node: a Constant's value, or a subgraph's weights. */
static int attribute(struct rd *r, const uint8_t *s, uint64_t n, const char *node,
                     bool constant, const uint8_t *out, uint64_t out_n, const char *prefix,
                     unsigned depth)
{
    struct msg m = { s, s + n };
    struct field fl;
    const uint8_t *name = (const uint8_t *)"";
    uint64_t name_n = 0;
    int rc;
    while ((rc = next(r, &m, &fl)) == 1) {
        rc = 0;
        if (fl.num == 1 && !(rc = want(r, &fl, WIRE_LEN, "attribute name"))) {
            name = fl.s;
            name_n = fl.n;
        }
        if (rc)
            return rc;
    }
    if (rc)
        return rc;
    m.p = s;
    size_t k = 0;
    while ((rc = next(r, &m, &fl)) == 1) {
        rc = 0;
        bool value = name_n == 5 && memcmp(name, "value", 5) == 0;
        bool sparse = name_n == 12 && memcmp(name, "sparse_value", 12) == 0;
        if (constant && out && fl.num == 5 && value && fl.wire == WIRE_LEN)
            rc = tensor_row(r, fl.s, fl.n, prefix, (const char *)out, (size_t)out_n);
        else if (constant && out && fl.num == 22 && sparse && fl.wire == WIRE_LEN)
            rc = sparse_row(r, fl.s, fl.n, prefix, (const char *)out, (size_t)out_n);
        else if ((fl.num == 6 || fl.num == 11) && !(rc = want(r, &fl, WIRE_LEN, "graph"))) {
            char sub[512];
            if (fl.num == 6)
                snprintf(sub, sizeof sub, "%s%s/%.*s/", prefix, node, (int)name_n, name);
            else
                snprintf(sub, sizeof sub, "%s%s/%.*s[%zu]/", prefix, node, (int)name_n, name,
                         k++);
            char was[sizeof r->what];
            memcpy(was, r->what, sizeof was);
            snprintf(r->what, sizeof r->what, "graph '%.150s'", sub);
            rc = graph(r, fl.s, fl.n, sub, depth + 1);
            if (!rc)
                memcpy(r->what, was, sizeof was);
        }
        if (rc)
            return rc;
    }
    return rc;
}

static int node(struct rd *r, const uint8_t *s, uint64_t n, size_t index, const char *prefix,
                unsigned depth)
{
    struct msg m = { s, s + n };
    struct field fl;
    const uint8_t *out = NULL, *name = NULL, *op = NULL;
    uint64_t out_n = 0, name_n = 0, op_n = 0;
    int rc;
    while ((rc = next(r, &m, &fl)) == 1) {
        rc = 0;
        const uint8_t **to = fl.num == 2 ? &out : fl.num == 3 ? &name : fl.num == 4 ? &op : NULL;
        uint64_t *to_n = fl.num == 2 ? &out_n : fl.num == 3 ? &name_n : &op_n;
        if (!to || (fl.num == 2 && out))
            continue;
        if ((rc = want(r, &fl, WIRE_LEN, fl.num == 2 ? "node output" : fl.num == 3 ? "node name"
                                                                                 : "op_type")))
            return rc;
        *to = fl.s;
        *to_n = fl.n;
    }
    if (rc)
        return rc;
    char id[160];
    if (name && name_n)
        snprintf(id, sizeof id, "%.*s", (int)(name_n < 150 ? name_n : 150), name);
    else
        snprintf(id, sizeof id, "node#%zu", index);
    bool constant = op && op_n == 8 && memcmp(op, "Constant", 8) == 0;
    m.p = s;
    while ((rc = next(r, &m, &fl)) == 1) {
        rc = 0;
        if (fl.num != 5)
            continue;
        if ((rc = want(r, &fl, WIRE_LEN, "attribute")) ||
            (rc = attribute(r, fl.s, fl.n, id, constant, out, out_n, prefix, depth)))
            return rc;
    }
    return rc;
}

static int graph(struct rd *r, const uint8_t *s, uint64_t n, const char *prefix, unsigned depth)
{
    if (depth > ONNX_DEPTH_MAX)
        return bad(r, TL_E_VALUE, "graphs nest deeper than %d levels", ONNX_DEPTH_MAX);
    struct msg m = { s, s + n };
    struct field fl;
    size_t nodes = 0;
    int rc;
    while ((rc = next(r, &m, &fl)) == 1) {
        rc = 0;
        if (fl.num != 1 && fl.num != 5 && fl.num != 15)
            continue;
        char was[sizeof r->what];
        memcpy(was, r->what, sizeof was);
        if ((rc = want(r, &fl, WIRE_LEN, fl.num == 1 ? "node" : "initializer")))
            return rc;
        if (fl.num == 1)
            rc = node(r, fl.s, fl.n, nodes++, prefix, depth);
        else if (fl.num == 5)
            rc = tensor_row(r, fl.s, fl.n, prefix, NULL, 0);
        else
            rc = sparse_row(r, fl.s, fl.n, prefix, NULL, 0);
        if (rc)
            return rc;
        memcpy(r->what, was, sizeof was);
    }
    return rc;
}

/* ---- the model's own fields: list --metadata --------------------------------- */

static int add_meta(struct rd *r, const char *key, size_t kn, const char *val, size_t vn)
{
    struct tl_file *f = r->f;
    struct tl_file_meta *m = realloc(f->meta, (f->nmeta + 1) * sizeof *m);
    if (!m)
        return tl_fail(r->err, TL_E_NOMEM, NULL, "out of memory");
    f->meta = m;
    m = &f->meta[f->nmeta];
    memset(m, 0, sizeof *m);
    m->key = dup_bytes((const uint8_t *)key, kn);
    m->value = dup_bytes((const uint8_t *)val, vn);
    f->nmeta++;
    if (!m->key || !m->value)
        return tl_fail(r->err, TL_E_NOMEM, NULL, "out of memory");
    if (strlen(m->key) != kn || strlen(m->value) != vn)
        return bad(r, TL_E_VALUE, "metadata '%s' holds a NUL byte", m->key);
    return 0;
}

/* opset_import's entries, "ai.onnx 13, com.microsoft 1", into *text. */
static int opset(struct rd *r, const uint8_t *s, uint64_t n, char *text, size_t cap)
{
    struct msg m = { s, s + n };
    struct field fl;
    const uint8_t *domain = NULL;
    uint64_t dn = 0, version = 0;
    int rc;
    while ((rc = next(r, &m, &fl)) == 1) {
        rc = 0;
        if (fl.num == 1 && !(rc = want(r, &fl, WIRE_LEN, "opset domain")))
            domain = fl.s, dn = fl.n;
        else if (fl.num == 2 && !(rc = want(r, &fl, WIRE_VARINT, "opset version")))
            version = fl.v;
        if (rc)
            return rc;
    }
    size_t at = strlen(text);
    if (at < cap)
        snprintf(text + at, cap - at, "%s%.*s %" PRIu64, at ? ", " : "",
                 dn ? (int)(dn < 100 ? dn : 100) : 7, dn ? (const char *)domain : "ai.onnx",
                 version);
    return 0;
}

static int model(struct rd *r)
{
    struct msg m = { r->base, r->base + r->len };
    struct field fl;
    char opsets[512] = "", num[24];
    bool graphs = false;
    int rc;
    snprintf(r->what, sizeof r->what, "model");
    while ((rc = next(r, &m, &fl)) == 1) {
        rc = 0;
        static const char *const strs[] = { [2] = "producer_name", [3] = "producer_version",
                                            [4] = "domain" };
        switch (fl.num) {
        case 1:
        case 5:
            if ((rc = want(r, &fl, WIRE_VARINT, fl.num == 1 ? "ir_version" : "model_version")))
                return rc;
            snprintf(num, sizeof num, "%" PRIu64, fl.v);
            rc = add_meta(r, fl.num == 1 ? "ir_version" : "model_version", fl.num == 1 ? 10 : 13,
                          num, strlen(num));
            break;
        case 2: case 3: case 4:
            if (!(rc = want(r, &fl, WIRE_LEN, strs[fl.num])))
                rc = add_meta(r, strs[fl.num], strlen(strs[fl.num]), (const char *)fl.s,
                              (size_t)fl.n);
            break;
        case 7:
            if (graphs)
                return bad(r, TL_E_VALUE, "holds two graphs");
            graphs = true;
            if (!(rc = want(r, &fl, WIRE_LEN, "graph"))) {
                rc = graph(r, fl.s, fl.n, "", 0);
                snprintf(r->what, sizeof r->what, "model");
            }
            break;
        case 8:
            if (!(rc = want(r, &fl, WIRE_LEN, "opset_import")))
                rc = opset(r, fl.s, fl.n, opsets, sizeof opsets);
            break;
        case 14: {
            if ((rc = want(r, &fl, WIRE_LEN, "metadata_props")))
                return rc;
            struct msg e = { fl.s, fl.s + fl.n };
            struct field kv;
            const uint8_t *k = (const uint8_t *)"", *v = (const uint8_t *)"";
            uint64_t kn = 0, vn = 0;
            while ((rc = next(r, &e, &kv)) == 1) {
                rc = 0;
                if ((kv.num == 1 || kv.num == 2) &&
                    (rc = want(r, &kv, WIRE_LEN, "metadata_props entry")))
                    return rc;
                if (kv.num == 1)
                    k = kv.s, kn = kv.n;
                else if (kv.num == 2)
                    v = kv.s, vn = kv.n;
            }
            if (!rc)
                rc = add_meta(r, (const char *)k, (size_t)kn, (const char *)v, (size_t)vn);
            break;
        }
        default:
            break;
        }
        if (rc)
            return rc;
    }
    if (rc)
        return rc;
    if (opsets[0] && (rc = add_meta(r, "opset_import", 12, opsets, strlen(opsets))))
        return rc;
    if (!graphs)
        return bad(r, TL_E_VALUE, "holds no graph: not an ONNX model (or an empty one)");
    return 0;
}

/* Whether the top-level message is a TensorProto (a .pb of ONNX's test
 * data): its field 2 is data_type, a varint, where a model's is
 * producer_name, bytes. */
static bool one_tensor(struct rd *r)
{
    struct msg m = { r->base, r->base + r->len };
    struct field fl;
    struct tl_error quiet = { 0 }, *was = r->err;
    bool tensor = false;
    r->err = &quiet;
    while (next(r, &m, &fl) == 1)
        if (fl.num == 2) {
            tensor = fl.wire == WIRE_VARINT;
            break;
        }
    r->err = was;
    return tensor;
}

static int onnx_parse(const uint8_t *b, uint64_t len, struct tl_file *f, struct tl_error *err)
{
    struct rd r = { .base = b, .len = len, .f = f, .err = err };
    int rc;
    f->gaps_ok = true;                  /* a model's other fields lie between its weights */
    if (one_tensor(&r)) {
        snprintf(r.what, sizeof r.what, "tensor");
        if ((rc = tensor_row(&r, b, len, "", NULL, 0)))
            return rc;
        f->named = f->tensors[0].name[0] != '\0';
        if (!f->named) {
            free(f->tensors[0].name);
            f->tensors[0].name = NULL;
        }
        return 0;
    }
    f->named = true;
    if ((rc = model(&r)))
        return rc;
    bool nomem;
    const char *twice = tl_file_name_twice(f, &nomem);
    if (nomem)
        return tl_fail(err, TL_E_NOMEM, NULL, "out of memory");
    if (twice) {
        char q[96], key[128];
        snprintf(key, sizeof key, "weight '%s'", tl_quote(twice, q, sizeof q));
        return tl_fail(err, TL_E_KEY, key, "the name is given to two weights of one graph");
    }
    return 0;
}

/* A protocol buffer's first fields, as a model or a tensor begins: a
 * model's ir_version (field 1) or producer_name (2), a tensor's dims (1)
 * or data_type (2); every field of the first bytes well formed. */
static unsigned onnx_bid(const uint8_t *head, size_t n)
{
    if (n < 2 || (head[0] != 0x08 && head[0] != 0x0a && head[0] != 0x10 && head[0] != 0x12))
        return 0;
    struct rd r = { .base = head, .len = n };
    struct tl_error quiet = { 0 };
    r.err = &quiet;
    struct msg m = { head, head + n };
    struct field fl;
    unsigned fields = 0;
    for (;;) {
        const uint8_t *was = m.p;
        int rc = next(&r, &m, &fl);
        if (rc == 0)
            break;
        if (rc < 0 || rc > 1) {
            /* the head cuts a field of bytes short (a model's graph): fine,
             * what came before was sound */
            const uint8_t *p = was;
            uint64_t tag;
            if (quiet.code == TL_E_RANGE && fields >= 1 && n == TL_SNIFF_BYTES &&
                varint(&p, head + n, &tag) == 0 && (tag & 7) == WIRE_LEN && tag >> 3 <= 32) {
                fields++;
                break;
            }
            return 0;
        }
        if (fl.num > 32)
            return 0;
        if (fl.num == 2 && fl.wire == WIRE_VARINT && (fl.v == 0 || fl.v >= NTYPES))
            return 0;
        fields++;
    }
    return fields >= 2 ? 40 : 0;
}

const struct tl_format_entry tl_format_onnx = {
    .id = TL_FMT_ONNX, .name = "onnx", .label = "ONNX", .title = "an ONNX model",
    .endings = ".onnx .pb", .bid = onnx_bid, .read = onnx_parse, .spelling = TL_SPELL_ONNX,
    .many = true,
};

/* ---- rewriting a model: its weights moved out, or brought in ------------- *
 *
 * The model is walked again in the reader's order, so that the k-th weight
 * met is row k; every message on the way to a weight is written anew (its
 * length changes with the weight's), every other field carried byte for
 * byte.  A weight moved out keeps its TensorProto's other fields, with
 * external_data (location, offset, length) and data_location EXTERNAL in
 * place of its values; one brought in gets raw_data.  A first pass of the
 * same walk counts each message's bytes (the sizes come before the bytes
 * in the wire format); the data file's offsets are known before either. */

enum { KEEP, OUT_OF, INTO };            /* what happens to a weight */

struct rw {
    struct tl_onnx_rewrite *job;
    struct rd r;
    unsigned char *act;                 /* each row's KEEP, OUT_OF or INTO */
    uint64_t *at;                       /* a moved-out row's offset in the data file */
    struct tl_writer *w;                /* NULL: counting */
    uint64_t n;                         /* bytes written (or counted) */
    struct tl_error *err;
};

static int put_bytes(struct rw *x, const void *p, uint64_t n)
{
    x->n += n;
    return x->w ? tl_writer_put(x->w, p, n, x->err) : 0;
}

static int put_varint(struct rw *x, uint64_t v)
{
    uint8_t b[10];
    unsigned k = 0;
    do {
        b[k++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
        v >>= 7;
    } while (v);
    return put_bytes(x, b, k);
}

static int put_len(struct rw *x, uint32_t num, uint64_t len)
{
    int rc = put_varint(x, (uint64_t)num << 3 | WIRE_LEN);
    return rc ? rc : put_varint(x, len);
}

static unsigned varint_size(uint64_t v)
{
    unsigned k = 1;
    while (v > 0x7f) {
        v >>= 7;
        k++;
    }
    return k;
}

static int put_decoded(void *ctx, const uint8_t *bytes, size_t n)
{
    return tl_writer_put(ctx, bytes, n, NULL) ? -1 : 0;
}

/* Row t's values as bytes (raw_data's): read where they lie, or decoded. */
static int put_values(struct rw *x, const struct tl_file_tensor *t, const struct tl_input *in)
{
    x->n += t->decoded_bytes;
    if (!x->w)
        return 0;
    if (t->encoding == TL_ENC_VARINT) {
        int rc = tl_file_decode(x->r.base, x->r.len, t, put_decoded, x->w, x->err);
        return rc == -1 ? TL_E_IO : rc;
    }
    return tl_writer_carry(x->w, in, t->stored_at, t->decoded_bytes, x->err);
}

typedef int (*walk_fn)(struct rw *x, const uint8_t *s, uint64_t n, size_t *row, void *ctx);

/* A submessage written anew: its length (counted by the same walk), then
 * its bytes. */
static int put_sub(struct rw *x, uint32_t num, walk_fn fn, const uint8_t *s, uint64_t n,
                   size_t *row, void *ctx)
{
    struct rw count = *x;
    size_t at = *row;
    count.w = NULL;
    count.n = 0;
    int rc = fn(&count, s, n, &at, ctx);
    if (rc == 0)
        rc = put_len(x, num, count.n);
    return rc ? rc : fn(x, s, n, row, ctx);
}

/* Walks message [s, s + n): each field as it is, but those fn says to
 * write anew (a submessage holding weights); fn returns 1 to carry. */
typedef int (*field_fn)(struct rw *x, const struct field *fl, size_t *row, void *ctx);

static int rw_fields(struct rw *x, const uint8_t *s, uint64_t n, size_t *row, field_fn fn,
                     void *ctx)
{
    struct msg m = { s, s + n };
    struct field fl;
    int rc;
    for (;;) {
        const uint8_t *start = m.p;
        if ((rc = next(&x->r, &m, &fl)) != 1)
            return rc;
        rc = fn(x, &fl, row, ctx);
        if (rc == 1)
            rc = put_bytes(x, start, (uint64_t)(m.p - start));
        if (rc)
            return rc;
    }
}

static int put_text(struct rw *x, uint32_t num, const char *text)
{
    int rc = put_len(x, num, strlen(text));
    return rc ? rc : put_bytes(x, text, strlen(text));
}

/* A StringStringEntryProto of external_data. */
static int put_entry(struct rw *x, const char *key, const char *value)
{
    uint64_t kl = strlen(key), vl = strlen(value);
    uint64_t len = 1 + varint_size(kl) + kl + 1 + varint_size(vl) + vl;
    int rc = put_len(x, 13, len);
    if (!rc)
        rc = put_text(x, 1, key);
    return rc ? rc : put_text(x, 2, value);
}

/* A moved weight's TensorProto: every field but its values and where they
 * were; the new ones after. */
static int tensor_field(struct rw *x, const struct field *fl, size_t *row, void *ctx)
{
    (void)x, (void)row, (void)ctx;
    bool values = fl->num == 4 || fl->num == 5 || fl->num == 7 || fl->num == 9 ||
                  fl->num == 10 || fl->num == 11 || fl->num == 13 || fl->num == 14;
    return values ? 0 : 1;
}

static int rw_tensor(struct rw *x, const uint8_t *s, uint64_t n, size_t *row, void *ctx)
{
    (void)ctx;
    size_t k = (*row)++;
    if (x->act[k] == KEEP)
        return put_bytes(x, s, n);
    const struct tl_file_tensor *t = &x->job->f->tensors[k];
    int rc = rw_fields(x, s, n, row, tensor_field, NULL);
    if (rc)
        return rc;
    if (x->act[k] == INTO) {
        const struct tl_input *in = t->elsewhere ? x->job->row_in[k] : x->job->model;
        rc = put_len(x, 9, t->decoded_bytes);
        return rc ? rc : put_values(x, t, in);
    }
    char num[24];
    snprintf(num, sizeof num, "%" PRIu64, x->at[k]);
    rc = put_entry(x, "location", x->job->location);
    if (!rc)
        rc = put_entry(x, "offset", num);
    snprintf(num, sizeof num, "%" PRIu64, t->decoded_bytes);
    if (!rc)
        rc = put_entry(x, "length", num);
    if (!rc)
        rc = put_varint(x, 14u << 3 | WIRE_VARINT);
    return rc ? rc : put_varint(x, 1);
}

static int rw_graph(struct rw *x, const uint8_t *s, uint64_t n, size_t *row, void *ctx);

/* An attribute: a Constant's value (a weight), a sparse value (a row,
 * carried), subgraphs. */
struct attr_ctx {
    bool constant, out;
    const uint8_t *name;
    uint64_t name_n;
};

static int attr_field(struct rw *x, const struct field *fl, size_t *row, void *ctx)
{
    const struct attr_ctx *a = ctx;
    bool value = a->name_n == 5 && memcmp(a->name, "value", 5) == 0;
    bool sparse = a->name_n == 12 && memcmp(a->name, "sparse_value", 12) == 0;
    if (a->constant && a->out && fl->num == 5 && value && fl->wire == WIRE_LEN)
        return put_sub(x, 5, rw_tensor, fl->s, fl->n, row, NULL);
    if (a->constant && a->out && fl->num == 22 && sparse && fl->wire == WIRE_LEN) {
        (*row)++;                       /* listed, carried */
        return 1;
    }
    if ((fl->num == 6 || fl->num == 11) && fl->wire == WIRE_LEN)
        return put_sub(x, fl->num, rw_graph, fl->s, fl->n, row, NULL);
    return 1;
}

/* An attribute of a node whose op and output ctx (struct attr_ctx) says:
 * its name read first, as the reader does. */
static int rw_attr(struct rw *x, const uint8_t *s, uint64_t n, size_t *row, void *ctx)
{
    struct attr_ctx *a = ctx;
    struct msg m = { s, s + n };
    struct field fl;
    a->name = (const uint8_t *)"";
    a->name_n = 0;
    while (next(&x->r, &m, &fl) == 1)
        if (fl.num == 1 && fl.wire == WIRE_LEN) {
            a->name = fl.s;
            a->name_n = fl.n;
        }
    return rw_fields(x, s, n, row, attr_field, a);
}

static int node_field(struct rw *x, const struct field *fl, size_t *row, void *ctx)
{
    if (fl->num != 5 || fl->wire != WIRE_LEN)
        return 1;
    return put_sub(x, 5, rw_attr, fl->s, fl->n, row, ctx);
}

static int rw_node(struct rw *x, const uint8_t *s, uint64_t n, size_t *row, void *ctx)
{
    (void)ctx;
    struct msg m = { s, s + n };
    struct field fl;
    struct attr_ctx a = { 0 };
    while (next(&x->r, &m, &fl) == 1) {
        if (fl.num == 2 && fl.wire == WIRE_LEN)
            a.out = true;
        if (fl.num == 4 && fl.wire == WIRE_LEN)
            a.constant = fl.n == 8 && memcmp(fl.s, "Constant", 8) == 0;
    }
    return rw_fields(x, s, n, row, node_field, &a);
}

static int graph_field(struct rw *x, const struct field *fl, size_t *row, void *ctx)
{
    (void)ctx;
    if (fl->wire != WIRE_LEN)
        return 1;
    if (fl->num == 1)
        return put_sub(x, 1, rw_node, fl->s, fl->n, row, NULL);
    if (fl->num == 5)
        return put_sub(x, 5, rw_tensor, fl->s, fl->n, row, NULL);
    if (fl->num == 15)
        (*row)++;                       /* a sparse initializer: listed, carried */
    return 1;
}

static int rw_graph(struct rw *x, const uint8_t *s, uint64_t n, size_t *row, void *ctx)
{
    (void)ctx;
    return rw_fields(x, s, n, row, graph_field, NULL);
}

static int model_field(struct rw *x, const struct field *fl, size_t *row, void *ctx)
{
    (void)ctx;
    if (fl->num == 7 && fl->wire == WIRE_LEN)
        return put_sub(x, 7, rw_graph, fl->s, fl->n, row, NULL);
    return 1;
}

/* Whether row t's values can move: bytes of their own (not strings, not a
 * sparse tensor's). */
static bool movable(const struct tl_file_tensor *t)
{
    return strcmp(t->stored, "string_data") != 0 && strcmp(t->stored, "sparse") != 0 &&
           strcmp(t->stored, "none") != 0 && strcmp(t->dtype, "STRING") != 0;
}

int tl_onnx_rewrite(struct tl_onnx_rewrite *job, struct tl_writer *model, struct tl_writer *data,
                    struct tl_error *err)
{
    const struct tl_file *f = job->f;
    struct rw x = { .job = job, .err = err };
    x.r = (struct rd){ .base = job->model->bytes, .len = job->model->size, .err = err };
    snprintf(x.r.what, sizeof x.r.what, "model");
    x.act = calloc(f->count ? f->count : 1, 1);
    x.at = calloc(f->count ? f->count : 1, sizeof *x.at);
    if (!x.act || !x.at) {
        free(x.act);
        free(x.at);
        return tl_fail(err, TL_E_NOMEM, NULL, "out of memory");
    }
    uint64_t end = 0;
    job->moved = job->brought = 0;
    for (size_t k = 0; k < f->count; k++) {
        const struct tl_file_tensor *t = &f->tensors[k];
        bool out = job->external && movable(t) && t->decoded_bytes >= job->threshold;
        x.act[k] = out ? OUT_OF : t->elsewhere ? INTO : KEEP;
        if (out) {
            x.at[k] = (end + TL_ONNX_ALIGN - 1) / TL_ONNX_ALIGN * TL_ONNX_ALIGN;
            end = x.at[k] + t->decoded_bytes;
            job->moved++;
        }
        job->brought += x.act[k] == INTO;
    }
    /* the model's size first: protobuf's limit */
    size_t row = 0;
    int rc = rw_fields(&x, x.r.base, x.r.len, &row, model_field, NULL);
    job->model_bytes = x.n;
    if (rc == 0 && x.n > TL_ONNX_MAX) {
        rc = tl_fail(err, TL_E_VALUE, NULL, "the model would be %" PRIu64 " bytes, past "
                     "protocol buffers' limit of 2 GiB (%" PRIu64 "): keep its weights in "
                     "external data (--external-data)", x.n, (uint64_t)TL_ONNX_MAX);
    }
    /* the data file: each weight moved out at its offset */
    static const uint8_t zeros[4096];
    struct rw d = x;
    d.w = data;
    d.n = 0;
    for (size_t k = 0; rc == 0 && k < f->count; k++) {
        if (x.act[k] != OUT_OF)
            continue;
        const struct tl_file_tensor *t = &f->tensors[k];
        if (d.n < x.at[k])
            rc = put_bytes(&d, zeros, x.at[k] - d.n);
        if (rc == 0)
            rc = put_values(&d, t, t->elsewhere ? job->row_in[k] : job->model);
        if (rc == 0 && data)
            tl_input_done_with(t->elsewhere ? job->row_in[k] : job->model, t->begin, t->end);
    }
    job->data_bytes = d.n;
    /* then the model, its weights' new places in it */
    row = 0;
    x.w = model;
    x.n = 0;
    if (rc == 0)
        rc = rw_fields(&x, x.r.base, x.r.len, &row, model_field, NULL);
    free(x.act);
    free(x.at);
    return rc;
}
