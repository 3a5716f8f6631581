/*
 * npy.c - numpy's .npy files: the reader of one, and the header a writer
 * puts before the data.
 *
 * .npy (numpy's format.py describes it): "\x93NUMPY", a major and a minor
 * version byte, the header length (2 bytes little-endian in 1.0, 4 in 2.0
 * and 3.0), then a Python dictionary literal with exactly the keys 'descr',
 * 'fortran_order' and 'shape', padded with spaces and a newline.  It is
 * parsed here as the literal it is, strictly: strings in quotes without
 * escapes, True or False, a tuple of decimal integers, an optional trailing
 * comma, in any key order.
 *
 * The reader takes the whole file as bytes and a length and never looks
 * past it: every length and size the header claims is checked against the
 * file (with 64-bit overflow checks) before it is used.  The tensor's
 * byteOffset is where its data starts in the file.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "tl.h"

#define NPY_ALIGN 64                        /* numpy aligns the data to 64 */

const char tl_npy_magic[6] = { '\x93', 'N', 'U', 'M', 'P', 'Y' };

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
int tl_npy_dtype(const char *descr, enum tl_dtype *dt, struct tl_error *err)
{
    char q[40], list[160];
    tl_quote(descr, q, sizeof q);
    const char *s = descr;
    char order = '=';
    if (*s == '<' || *s == '>' || *s == '|' || *s == '=')
        order = *s++;
    char kind = *s ? *s++ : '\0';
    const char *what = NULL;
    if (kind == '?' && !*s) {
        kind = 'b';                     /* numpy's other spelling of its bool */
        s = "1";
    }
    switch (kind) {
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
    for (int i = 0; digits && i < TL_DT_COUNT; i++) {
        const struct tl_dtype_info *t = tl_dtype_info((enum tl_dtype)i);
        if (!t->npy || t->npy[1] != kind || t->bits != 8 * size)
            continue;
        if (size > 1 && order == '>')
            return tl_fail(err, TL_E_VALUE, "descr",
                           "big-endian data ('%s') is not supported: byteswap it to '<%c%u' first",
                           q, kind, size);
        if (size > 1 && order == '|')
            break;
        *dt = (enum tl_dtype)i;
        return 0;
    }
    return tl_fail(err, TL_E_VALUE, "descr", "data type '%s' is not supported (supported: %s)", q,
                   tl_dtype_list(TL_SPELL_NPY, list, sizeof list));
}

int tl_npy_read_header(const uint8_t *b, uint64_t len, struct tl_npy_hdr *h, struct tl_error *err)
{
    if (len < 10)
        return tl_fail(err, TL_E_JSON, "header", "truncated: the file has %" PRIu64
                       " bytes, shorter than the .npy preamble", len);
    if (memcmp(b, tl_npy_magic, sizeof tl_npy_magic) != 0)
        return tl_fail(err, TL_E_JSON, "header", "does not start with the .npy magic "
                       "'\\x93NUMPY'");
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
    if (hlen > TL_FILE_HEADER_MAX)
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
    h->major = major;
    h->data_start = start + hlen;
    snprintf(h->descr, sizeof h->descr, "%s", descr);
    h->fortran = fortran;
    h->ndim = ndim;
    memcpy(h->shape, shape, ndim * sizeof shape[0]);
    return 0;
}

int tl_npy_tensor(const struct tl_npy_hdr *h, uint64_t base, uint64_t len,
                  struct tl_file_tensor *t, struct tl_error *err)
{
    int rc;
    enum tl_dtype dt = TL_DT_FLOAT32;
    if ((rc = tl_npy_dtype(h->descr, &dt, err)))
        return rc;
    for (unsigned i = 0; i < h->ndim; i++) {
        if (h->shape[i] == 0) {
            char k[24];
            snprintf(k, sizeof k, "shape[%u]", i);
            return tl_fail(err, TL_E_RANGE, k, "is 0: an empty array has no elements to lay out");
        }
    }
    if ((rc = tl_desc_from_shape(&t->desc, dt, h->ndim, h->shape, h->fortran,
                                 base + h->data_start, err)))
        return rc;
    if ((rc = tl_desc_require_data(&t->desc, base + len, "data", err)))
        return rc;
    struct tl_info info;
    tl_desc_classify(&t->desc, &info);
    t->begin = base + h->data_start;
    t->end = info.elements_bytes;
    snprintf(t->dtype, sizeof t->dtype, "%.23s", h->descr);
    t->decodable = true;
    t->scalar = h->ndim == 0;
    t->ndim = h->ndim;
    memcpy(t->shape, h->shape, h->ndim * sizeof h->shape[0]);
    return 0;
}

/* Parses a .npy file's header into one tensor. */
int tl_npy_parse(const uint8_t *b, uint64_t len, struct tl_file *f, struct tl_error *err)
{
    struct tl_npy_hdr h;
    int rc = tl_npy_read_header(b, len, &h, err);
    if (rc)
        return rc;
    f->tensors = calloc(1, sizeof *f->tensors);
    if (!f->tensors)
        return tl_fail(err, TL_E_NOMEM, NULL, "out of memory");
    f->count = 1;
    f->data_start = h.data_start;
    f->version = h.major;
    return tl_npy_tensor(&h, 0, len, &f->tensors[0], err);
}

/* numpy's magic number is a certain bid. */
static unsigned npy_bid(const uint8_t *head, size_t n)
{
    return n >= sizeof tl_npy_magic && memcmp(head, tl_npy_magic, sizeof tl_npy_magic) == 0
           ? TL_BID_CERTAIN : 0;
}

/* A .npy file: its header, then the packed array. */
static int npy_header(const struct tl_desc *d, const char *name, bool scalar, bool fortran,
                      uint8_t **bytes, size_t *len, struct tl_error *err)
{
    (void)name;                        /* a .npy array has none */
    unsigned how = scalar ? TL_NPY_SCALAR : fortran ? TL_NPY_FORTRAN : 0;
    if (tl_npy_header_as(d, how, NULL, 0, len, err))
        return err->code;
    if (!(*bytes = malloc(*len)))
        return tl_fail(err, TL_E_NOMEM, NULL, "out of memory");
    return tl_npy_header_as(d, how, *bytes, *len, len, err);
}

const struct tl_format_entry tl_format_npy = {
    .id = TL_FMT_NPY, .name = "npy", .label = ".npy", .title = "a numpy .npy file",
    .endings = ".npy", .bid = npy_bid, .read = tl_npy_parse, .writes = 1,
    .header = npy_header,
    .spelling = TL_SPELL_NPY,
};

int tl_npy_header(const struct tl_desc *d, uint8_t *buf, size_t cap, size_t *len,
                  struct tl_error *err)
{
    return tl_npy_header_as(d, 0, buf, cap, len, err);
}

/* The .npy header of an array of descr, shape[0 .. ndim) as numpy writes
 * it (the sizes in its memory order when not fortran, else in the
 * reversed one). */
static int header_text(const char *descr, bool fortran, const uint64_t *shape, unsigned ndim,
                       uint8_t *buf, size_t cap, size_t *len, struct tl_error *err)
{
    char dict[512];
    int n = snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': %s, 'shape': (",
                     descr, fortran ? "True" : "False");
    for (unsigned i = 0; i < ndim; i++)
        n += snprintf(dict + n, sizeof dict - (size_t)n, "%" PRIu64 "%s", shape[i],
                      ndim == 1 ? "," : i + 1 < ndim ? ", " : "");
    n += snprintf(dict + n, sizeof dict - (size_t)n, "), }");
    /* 1.0 has a 2-byte header length; 2.0 is needed only past 65535 */
    size_t pre = 10, total = (pre + (size_t)n + 1 + NPY_ALIGN - 1) / NPY_ALIGN * NPY_ALIGN;
    if (total - pre > 65535) {
        pre = 12;
        total = (pre + (size_t)n + 1 + NPY_ALIGN - 1) / NPY_ALIGN * NPY_ALIGN;
    }
    *len = total;
    if (!buf)
        return 0;
    if (total > cap)
        return tl_fail(err, TL_E_RANGE, NULL, "the .npy header needs %zu bytes", total);
    size_t hlen = total - pre;
    memcpy(buf, tl_npy_magic, sizeof tl_npy_magic);
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

int tl_npy_header_as(const struct tl_desc *d, unsigned how, uint8_t *buf, size_t cap,
                     size_t *len, struct tl_error *err)
{
    bool scalar = how & TL_NPY_SCALAR, fortran = false;
    struct tl_info info;
    tl_desc_classify(d, &info);
    const char *descr = tl_dtype_info(d->dtype)->npy;
    if (!descr)
        return tl_fail(err, TL_E_VALUE, "dataType", "%s has no .npy type (numpy has no %s)",
                       tl_dtype_name(d->dtype),
                       tl_dtype_bits(d->dtype) == 4 ? "packed 4-bit type"
                       : tl_dtype_bits(d->dtype) == 8 ? "8-bit float" : "bfloat16");
    if (!info.packed)
        return tl_fail(err, TL_E_VALUE, "strides", "a .npy file holds a packed array, and "
                       "this destination is %s", tl_status_name(info.status));
    if (d->byte_offset)
        return tl_fail(err, TL_E_VALUE, "byteOffset", "a .npy file's data follows its header: "
                       "the destination's byteOffset must be 0, not %" PRIu64, d->byte_offset);
    if (d->file_offset)
        return tl_fail(err, TL_E_VALUE, "fileOffset", "a .npy file's data follows its header: "
                       "the destination's fileOffset must be 0, not %" PRIu64, d->file_offset);
    if ((how & TL_NPY_FORTRAN) && d->rank >= 2) {   /* memory order the axes reversed */
        fortran = true;
        for (unsigned i = 0; i < d->rank; i++)
            fortran &= info.axis_order[i] == d->rank - 1 - i;
    }
    uint64_t shape[TL_MAX_RANK];
    for (unsigned i = 0; i < d->rank; i++)
        shape[i] = d->sizes[fortran ? i : info.axis_order[i]];
    return header_text(descr, fortran, shape, scalar ? 0 : d->rank, buf, cap, len, err);
}

int tl_npy_header_raw(const char *descr, const uint64_t *shape, unsigned ndim, uint8_t *buf,
                      size_t cap, size_t *len, struct tl_error *err)
{
    return header_text(descr, false, shape, ndim, buf, cap, len, err);
}

