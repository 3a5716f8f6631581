/*
 * gguf.c - llama.cpp's GGUF model files (SPEC 16), read: versions 2 and 3,
 * little-endian.  The file is
 *
 *   "GGUF", version u32, tensor count u64, key/value count u64,
 *   the key/value pairs: key (a string), value type u32, value,
 *   the tensor table: name, dimension count u32, ne[] u64 (innermost
 *     first), ggml type u32, offset u64 (from the data section's start),
 *   padding to general.alignment (32 unless a u32 key says), the data.
 *
 * where a string is its length u64 and its bytes, and an array its items'
 * type u32, their count u64 and the items.  Every count and length is
 * checked against the bytes left before it is used.  A tensor's logical
 * sizes are ne[] reversed (numpy's order); its bytes are packed row-major
 * blocks of its ggml type (ggml.c): a plain type is read in place, a block
 * type is the encoding TL_ENC_GGML, decoded to FLOAT32.  The metadata's
 * values become JSON text (struct tl_file_meta).
 */
#include <cjson/cJSON.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "tl.h"
#include "tl_calib.h"
#include "tl_copy.h"
#include "tl_io.h"

#define GGUF_MAX_DIMS 4
#define GGUF_DEFAULT_ALIGNMENT 32


/* "GGUF", then the version: certain, whatever the bytes after it are (a
 * tensor count whose low byte is '{' does not make it safetensors). */
static unsigned gguf_bid(const uint8_t *head, size_t n)
{
    return n >= 4 && memcmp(head, "GGUF", 4) == 0 ? TL_BID_CERTAIN : 0;
}

/* ---- reading ------------------------------------------------------------ */

struct rd {
    const uint8_t *b;
    uint64_t len, at;
    struct tl_error *err;
    const char *what;           /* the part being read, for messages */
};

static int short_file(struct rd *r, uint64_t need)
{
    return tl_fail(r->err, TL_E_RANGE, r->what, "needs %" PRIu64 " bytes at offset %" PRIu64
                   ", but the file ends at %" PRIu64 " (truncated?)", need, r->at, r->len);
}

static int get(struct rd *r, void *out, uint64_t n)
{
    if (n > r->len - r->at)
        return short_file(r, n);
    memcpy(out, r->b + r->at, (size_t)n);
    r->at += n;
    return 0;
}

static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t le64(const uint8_t *p)
{
    return le32(p) | (uint64_t)le32(p + 4) << 32;
}

static int get_u32(struct rd *r, uint32_t *v)
{
    uint8_t b[4] = { 0 };
    int rc = get(r, b, 4);
    *v = rc ? 0 : le32(b);
    return rc;
}

static int get_u64(struct rd *r, uint64_t *v)
{
    uint8_t b[8] = { 0 };
    int rc = get(r, b, 8);
    *v = rc ? 0 : le64(b);
    return rc;
}

/* A string: its bytes in place (*s, *n). */
static int get_str(struct rd *r, const uint8_t **s, uint64_t *n)
{
    int rc = get_u64(r, n);
    if (rc)
        return rc;
    if (*n > r->len - r->at)
        return tl_fail(r->err, TL_E_RANGE, r->what, "a string of %" PRIu64 " bytes at offset %"
                       PRIu64 " runs past the end of the file (%" PRIu64 " bytes)", *n,
                       r->at - 8, r->len);
    *s = r->b + r->at;
    r->at += *n;
    return 0;
}

/* A growing text. */
struct text {
    char *p;
    size_t n, cap;
    bool nomem;
};

static void put(struct text *t, const char *s, size_t n)
{
    if (t->nomem || n == 0)
        return;
    if (t->n + n + 1 > t->cap) {
        size_t cap = t->cap ? t->cap : 64;
        while (cap < t->n + n + 1)
            cap *= 2;
        char *p = realloc(t->p, cap);
        if (!p) {
            t->nomem = true;
            return;
        }
        t->p = p;
        t->cap = cap;
    }
    memcpy(t->p + t->n, s, n);
    t->n += n;
    t->p[t->n] = '\0';
}

static void puts_(struct text *t, const char *s)
{
    put(t, s, strlen(s));
}

/* The length of the UTF-8 sequence at s (n bytes left), 0 if it is not one. */
static size_t utf8_len(const uint8_t *s, uint64_t n)
{
    size_t k = s[0] < 0x80 ? 1 : (s[0] & 0xe0) == 0xc0 ? 2 : (s[0] & 0xf0) == 0xe0 ? 3
             : (s[0] & 0xf8) == 0xf0 ? 4 : 0;
    if (k == 0 || k > n || (k == 2 && s[0] < 0xc2))
        return 0;
    for (size_t i = 1; i < k; i++)
        if ((s[i] & 0xc0) != 0x80)
            return 0;
    uint32_t c = k == 1 ? s[0] : k == 2 ? (uint32_t)(s[0] & 0x1f) << 6 | (s[1] & 0x3f)
               : k == 3 ? (uint32_t)(s[0] & 0x0f) << 12 | (uint32_t)(s[1] & 0x3f) << 6 | (s[2] & 0x3f)
               : (uint32_t)(s[0] & 0x07) << 18 | (uint32_t)(s[1] & 0x3f) << 12 |
                 (uint32_t)(s[2] & 0x3f) << 6 | (s[3] & 0x3f);
    if ((k == 3 && (c < 0x800 || (c >= 0xd800 && c < 0xe000))) || (k == 4 && (c < 0x10000 ||
                                                                             c > 0x10ffff)))
        return 0;
    return k;
}

/* A GGUF string as a JSON string; bytes that are not UTF-8 become U+FFFD. */
static void put_json_str(struct text *t, const uint8_t *s, uint64_t n)
{
    put(t, "\"", 1);
    for (uint64_t i = 0; i < n;) {
        size_t k = utf8_len(s + i, n - i);
        char esc[8];
        if (k == 0) {
            puts_(t, "\\ufffd");
            i++;
        } else if (k == 1 && (s[i] == '"' || s[i] == '\\')) {
            esc[0] = '\\';
            esc[1] = (char)s[i];
            put(t, esc, 2);
            i++;
        } else if (k == 1 && s[i] < 0x20) {
            snprintf(esc, sizeof esc, "\\u%04x", s[i]);
            puts_(t, esc);
            i++;
        } else {
            put(t, (const char *)s + i, k);
            i += k;
        }
    }
    put(t, "\"", 1);
}

enum {
    V_U8, V_I8, V_U16, V_I16, V_U32, V_I32, V_F32, V_BOOL, V_STR, V_ARR, V_U64, V_I64, V_F64,
    V_COUNT
};
static const char *const vnames[V_COUNT] = {
    "u8", "i8", "u16", "i16", "u32", "i32", "f32", "bool", "str", "arr", "u64", "i64", "f64",
};
static const unsigned vsize[V_COUNT] = { 1, 1, 2, 2, 4, 4, 4, 1, 0, 0, 8, 8, 8 };

static void put_float(struct text *t, double v, int digits)
{
    char buf[40];
    if (isnan(v))
        snprintf(buf, sizeof buf, "\"NaN\"");
    else if (isinf(v))
        snprintf(buf, sizeof buf, "\"%sInfinity\"", v < 0 ? "-" : "");
    else
        snprintf(buf, sizeof buf, "%.*g", digits, v);
    puts_(t, buf);
}

/* One value of type ty (not an array) as JSON text, or skipped (t NULL). */
static int get_scalar(struct rd *r, uint32_t ty, struct text *t)
{
    uint8_t b[8] = { 0 };
    char buf[32];
    if (ty == V_STR) {
        const uint8_t *s;
        uint64_t n;
        int rc = get_str(r, &s, &n);
        if (!rc && t)
            put_json_str(t, s, n);
        return rc;
    }
    int rc = get(r, b, vsize[ty]);
    if (rc || !t)
        return rc;
    switch (ty) {
    case V_U8:   snprintf(buf, sizeof buf, "%u", b[0]); break;
    case V_I8:   snprintf(buf, sizeof buf, "%d", (int8_t)b[0]); break;
    case V_U16:  snprintf(buf, sizeof buf, "%u", (unsigned)(b[0] | b[1] << 8)); break;
    case V_I16:  snprintf(buf, sizeof buf, "%d", (int16_t)(b[0] | b[1] << 8)); break;
    case V_U32:  snprintf(buf, sizeof buf, "%" PRIu32, le32(b)); break;
    case V_I32:  snprintf(buf, sizeof buf, "%" PRId32, (int32_t)le32(b)); break;
    case V_U64:  snprintf(buf, sizeof buf, "%" PRIu64, le64(b)); break;
    case V_I64:  snprintf(buf, sizeof buf, "%" PRId64, (int64_t)le64(b)); break;
    case V_BOOL: snprintf(buf, sizeof buf, "%s", b[0] ? "true" : "false"); break;
    case V_F32: {
        uint32_t u = le32(b);
        float f;
        memcpy(&f, &u, 4);
        put_float(t, f, 9);
        return 0;
    }
    default: {
        uint64_t u = le64(b);
        double d;
        memcpy(&d, &u, 8);
        put_float(t, d, 17);
        return 0;
    }
    }
    puts_(t, buf);
    return 0;
}

/* A key's value into m: its type's name, its JSON text, an array's count. */
static int get_value(struct rd *r, uint32_t ty, struct tl_file_meta *m, struct text *t)
{
    if (ty >= V_COUNT)
        return tl_fail(r->err, TL_E_VALUE, r->what, "value type %" PRIu32 " is not a GGUF "
                       "type (0 to %d)", ty, V_COUNT - 1);
    if (ty != V_ARR) {
        snprintf(m->type, sizeof m->type, "%s", vnames[ty]);
        return get_scalar(r, ty, t);
    }
    uint32_t et;
    uint64_t n;
    int rc = get_u32(r, &et);
    if (!rc)
        rc = get_u64(r, &n);
    if (rc)
        return rc;
    if (et >= V_COUNT)
        return tl_fail(r->err, TL_E_VALUE, r->what, "an array of value type %" PRIu32 ", which "
                       "is not a GGUF type (0 to %d)", et, V_COUNT - 1);
    if (et == V_ARR)
        return tl_fail(r->err, TL_E_VALUE, r->what, "an array of arrays, which neither ggml "
                       "nor this tool reads");
    /* each item takes at least its size (a string its 8-byte length) */
    uint64_t least = et == V_STR ? 8 : vsize[et];
    if (n > (r->len - r->at) / least)
        return tl_fail(r->err, TL_E_RANGE, r->what, "an array of %" PRIu64 " items at offset %"
                       PRIu64 " runs past the end of the file (%" PRIu64 " bytes)", n, r->at - 12,
                       r->len);
    snprintf(m->type, sizeof m->type, "arr[%s]", vnames[et]);
    m->count = n;
    m->cut = n > TL_META_WHOLE;
    put(t, "[", 1);
    for (uint64_t i = 0; i < n; i++) {
        bool shown = !m->cut || i < TL_META_SHOWN;
        if (shown && i)
            put(t, ", ", 2);
        if ((rc = get_scalar(r, et, shown ? t : NULL)))
            return rc;
    }
    put(t, "]", 1);
    return 0;
}

static int by_key(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* A key that two pairs share, found in n log n (sorted), not n^2: a file
 * of a million keys is read in a second. */
static int key_twice(struct rd *r, const struct tl_file *f)
{
    if (f->nmeta < 2)
        return 0;
    const char **keys = malloc(f->nmeta * sizeof *keys);
    if (!keys)
        return tl_fail(r->err, TL_E_NOMEM, NULL, "out of memory");
    for (size_t i = 0; i < f->nmeta; i++)
        keys[i] = f->meta[i].key;
    qsort(keys, f->nmeta, sizeof *keys, by_key);
    int rc = 0;
    for (size_t i = 1; i < f->nmeta && !rc; i++) {
        if (strcmp(keys[i - 1], keys[i]) == 0) {
            char what[96], q[64];
            snprintf(what, sizeof what, "key '%s'", tl_quote(keys[i], q, sizeof q));
            rc = tl_fail(r->err, TL_E_KEY, what, "appears twice");
        }
    }
    free(keys);
    return rc;
}

static int read_meta(struct rd *r, struct tl_file *f, uint64_t nkv, uint64_t *alignment)
{
    char what[96];
    f->meta = calloc(nkv ? (size_t)nkv : 1, sizeof *f->meta);
    if (!f->meta)
        return tl_fail(r->err, TL_E_NOMEM, NULL, "out of memory");
    for (uint64_t i = 0; i < nkv; i++) {
        const uint8_t *key;
        uint64_t klen;
        uint32_t ty;
        snprintf(what, sizeof what, "key/value %" PRIu64, i);
        r->what = what;
        int rc = get_str(r, &key, &klen);
        if (rc)
            return rc;
        if (klen == 0 || memchr(key, 0, (size_t)klen))
            return tl_fail(r->err, TL_E_VALUE, what, "its key is %s", klen ? "not text (a NUL "
                           "byte)" : "empty");
        struct tl_file_meta *m = &f->meta[f->nmeta++];
        if (!(m->key = malloc((size_t)klen + 1)))
            return tl_fail(r->err, TL_E_NOMEM, NULL, "out of memory");
        memcpy(m->key, key, (size_t)klen);
        m->key[klen] = '\0';
        char q[64];
        snprintf(what, sizeof what, "key '%s'", tl_quote(m->key, q, sizeof q));
        uint64_t value_at = r->at + 4;
        if ((rc = get_u32(r, &ty)))
            return rc;
        struct text t = { 0 };
        rc = get_value(r, ty, m, &t);
        if (!rc && t.nomem)
            rc = tl_fail(r->err, TL_E_NOMEM, NULL, "out of memory");
        m->value = t.p;
        if (rc)
            return rc;
        if (strcmp(m->key, "general.alignment") == 0) {
            if (ty != V_U32)
                return tl_fail(r->err, TL_E_TYPE, what, "must be a u32 (it is %s)", m->type);
            uint32_t a = le32(r->b + value_at);
            if (a == 0 || (a & (a - 1)))
                return tl_fail(r->err, TL_E_VALUE, what, "%" PRIu32 " is not a power of two", a);
            *alignment = a;
        }
    }
    return key_twice(r, f);
}

static int read_tensor(struct rd *r, struct tl_file_tensor *t, uint64_t *offset)
{
    const uint8_t *name;
    uint64_t nlen, ne[GGUF_MAX_DIMS];
    uint32_t ndim, ty;
    char q[64], what[128];
    int rc = get_str(r, &name, &nlen);
    if (rc)
        return rc;
    if (nlen == 0 || memchr(name, 0, (size_t)nlen))
        return tl_fail(r->err, TL_E_VALUE, r->what, "its name is %s", nlen ? "not text (a NUL "
                       "byte)" : "empty");
    if (!(t->name = malloc((size_t)nlen + 1)))
        return tl_fail(r->err, TL_E_NOMEM, NULL, "out of memory");
    memcpy(t->name, name, (size_t)nlen);
    t->name[nlen] = '\0';
    snprintf(what, sizeof what, "tensor '%s'", tl_quote(t->name, q, sizeof q));
    r->what = what;
    if ((rc = get_u32(r, &ndim)))
        return rc;
    if (ndim == 0 || ndim > GGUF_MAX_DIMS)
        return tl_fail(r->err, TL_E_RANGE, what, "has %" PRIu32 " dimensions (GGUF allows 1 to "
                       "%d)", ndim, GGUF_MAX_DIMS);
    for (uint32_t k = 0; k < ndim; k++) {
        if ((rc = get_u64(r, &ne[k])))
            return rc;
        if (ne[k] > INT64_MAX)
            return tl_fail(r->err, TL_E_RANGE, what, "ne[%" PRIu32 "] %" PRIu64 " is negative "
                           "as ggml reads it", k, ne[k]);
    }
    if ((rc = get_u32(r, &ty)) || (rc = get_u64(r, offset)))
        return rc;
    const struct tl_ggml_type *gt = tl_ggml_type(ty);
    if (!gt)
        return tl_fail(r->err, TL_E_VALUE, what, "ggml type %" PRIu32 " is not one ggml has", ty);
    t->ggml_type = ty;
    snprintf(t->dtype, sizeof t->dtype, "%s", gt->name);
    t->ndim = ndim;
    uint64_t count = 1;
    for (uint32_t k = 0; k < ndim; k++) {
        t->shape[k] = ne[ndim - 1 - k];          /* logical: outermost first */
        if (!tl_mul_ok(count, ne[k], &count) || count > INT64_MAX)
            return tl_fail(r->err, TL_E_OVERFLOW, what, "its element count does not fit in 64 "
                           "bits");
    }
    if (ne[0] % gt->block)
        return tl_fail(r->err, TL_E_VALUE, what, "ne[0] %" PRIu64 " is not a multiple of %s's "
                       "block of %u elements", ne[0], gt->name, gt->block);
    uint64_t bytes;
    if (!tl_mul_ok(count / gt->block, gt->bytes, &bytes))
        return tl_fail(r->err, TL_E_OVERFLOW, what, "its size in bytes does not fit in 64 bits");
    t->stored_bytes = bytes;
    t->encoding = gt->plain >= 0 ? TL_ENC_PLAIN : TL_ENC_GGML;
    t->decodable = gt->decodes && count > 0;
    if (gt->plain < 0 && !tl_mul_ok(count, 4, &t->decoded_bytes))
        return tl_fail(r->err, TL_E_OVERFLOW, what, "its size as FLOAT32 does not fit in 64 bits");
    if (gt->plain >= 0)
        t->decoded_bytes = bytes;
    return 0;
}

static int gguf_parse(const uint8_t *b, uint64_t len, struct tl_file *f, struct tl_error *err)
{
    struct rd r = { b, len, 0, err, "header" };
    uint8_t magic[4];
    uint32_t version;
    uint64_t ntensors, nkv, alignment = GGUF_DEFAULT_ALIGNMENT;
    int rc;
    if ((rc = get(&r, magic, 4)) || (rc = get_u32(&r, &version)))
        return rc;
    if (version != 2 && version != 3) {
        if ((version & 0xffff) == 0 && (version >> 16) != 0)
            return tl_fail(err, TL_E_VALUE, "version", "the file is big-endian GGUF (version "
                           "%" PRIu32 " read backwards); this tool reads little-endian GGUF",
                           __builtin_bswap32(version));
        return tl_fail(err, TL_E_VALUE, "version", "%" PRIu32 " is not one this tool reads "
                       "(GGUF 2 and 3)", version);
    }
    if ((rc = get_u64(&r, &ntensors)) || (rc = get_u64(&r, &nkv)))
        return rc;
    /* a key/value pair takes at least 12 bytes, a tensor's entry 32 */
    if (ntensors > (len - r.at) / 32)
        return tl_fail(err, TL_E_RANGE, "header", "claims %" PRIu64 " tensors, more than its %"
                       PRIu64 " bytes can hold", ntensors, len);
    if ((rc = tl_file_count_ok(ntensors, "tensors", err)))
        return rc;
    if (nkv > (len - r.at) / 12)
        return tl_fail(err, TL_E_RANGE, "header", "claims %" PRIu64 " key/value pairs, more "
                       "than its %" PRIu64 " bytes can hold", nkv, len);
    f->version = version;
    f->named = true;
    f->gaps_ok = true;                  /* the alignment's padding */
    f->meta_at = r.at;
    if ((rc = read_meta(&r, f, nkv, &alignment)))
        return rc;
    f->meta_len = r.at - f->meta_at;
    f->alignment = alignment;
    f->tensors = calloc(ntensors ? (size_t)ntensors : 1, sizeof *f->tensors);
    uint64_t *offsets = calloc(ntensors ? (size_t)ntensors : 1, sizeof *offsets);
    if (!f->tensors || !offsets) {
        free(offsets);
        return tl_fail(err, TL_E_NOMEM, NULL, "out of memory");
    }
    char what[64];
    for (uint64_t i = 0; i < ntensors && !rc; i++) {
        snprintf(what, sizeof what, "tensor %" PRIu64, i);
        r.what = what;
        f->tensors[i].order = i;
        f->count++;
        rc = read_tensor(&r, &f->tensors[i], &offsets[i]);
    }
    /* the data section starts at the next multiple of the alignment */
    uint64_t start = r.at + (alignment - r.at % alignment) % alignment;
    f->data_start = start <= len ? start : len;     /* a file of no tensor may end unpadded */
    bool nomem;
    const char *twice = rc ? NULL : tl_file_name_twice(f, &nomem);
    if (!rc && (twice || nomem)) {
        char key[128], q[64];
        snprintf(key, sizeof key, "tensor '%s': offset", tl_quote(twice ? twice : "", q, sizeof q));
        rc = nomem ? tl_fail(err, TL_E_NOMEM, NULL, "out of memory")
                   : tl_fail(err, TL_E_KEY, key, "the name appears twice in the tensor table");
    }
    for (size_t i = 0; i < f->count && !rc; i++) {
        struct tl_file_tensor *t = &f->tensors[i];
        char key[128], q[64];
        snprintf(key, sizeof key, "tensor '%s': offset", tl_quote(t->name, q, sizeof q));
        if (offsets[i] % alignment) {
            rc = tl_fail(err, TL_E_VALUE, key, "%" PRIu64 " is not a multiple of the "
                         "alignment %" PRIu64, offsets[i], alignment);
        } else if (start > len || offsets[i] > len - start ||
                   t->stored_bytes > len - start - offsets[i]) {
            rc = tl_fail(err, TL_E_RANGE, key, "%" PRIu64 " and its %" PRIu64 " bytes run past "
                         "the end of the file (%" PRIu64 " bytes, data from %" PRIu64 ")",
                         offsets[i], t->stored_bytes, len, start);
        } else {
            t->begin = t->stored_at = start + offsets[i];
            t->end = t->begin + t->stored_bytes;
        }
        if (rc || !t->decodable)
            continue;
        const struct tl_ggml_type *gt = tl_ggml_type(t->ggml_type);
        uint64_t at = gt->plain >= 0 ? t->begin : 0;
        if ((rc = tl_desc_from_shape(&t->desc, gt->plain >= 0 ? (enum tl_dtype)gt->plain
                                                              : TL_DT_FLOAT32,
                                     t->ndim, t->shape, false, at, err)))
            tl_error_key(err, key);
    }
    free(offsets);
    if (rc)
        return rc;
    if (tl_file_order(f, len))
        return tl_fail(err, TL_E_NOMEM, NULL, "out of memory");
    /* the alignment's padding before a tensor is no gap */
    size_t kept = 0;
    for (size_t i = 0; i < f->nproblems; i++) {
        const struct tl_file_problem *p = &f->problems[i];
        bool padding = p->kind == TL_FP_GAP && p->to - p->from < alignment &&
                       (p->b == SIZE_MAX ? p->to == len : (p->to - start) % alignment == 0);
        if (!padding)
            f->problems[kept++] = *p;
    }
    f->nproblems = kept;
    for (size_t i = 0; i < f->nproblems; i++) {
        const struct tl_file_problem *p = &f->problems[i];
        if (p->kind != TL_FP_OVERLAP)
            continue;
        char q1[64], q2[64];
        return tl_fail(err, TL_E_RANGE, "tensor table", "tensors '%s' and '%s' share bytes "
                       "%" PRIu64 " to %" PRIu64, tl_quote(f->tensors[p->b].name, q1, sizeof q1),
                       p->a < f->count ? tl_quote(f->tensors[p->a].name, q2, sizeof q2) : "?",
                       p->from, p->to);
    }
    return 0;
}

/* ---- writing ------------------------------------------------------------ */

static void put_u32(struct text *t, uint32_t v)
{
    uint8_t b[4] = { (uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24) };
    put(t, (const char *)b, 4);
}

static void put_u64(struct text *t, uint64_t v)
{
    put_u32(t, (uint32_t)v);
    put_u32(t, (uint32_t)(v >> 32));
}

int tl_gguf_header(const struct tl_gguf_entry *e, size_t n, const uint8_t *kv, size_t kv_len,
                   uint64_t nkv, uint64_t alignment, uint8_t **out, size_t *len,
                   uint64_t *offsets, uint64_t *bytes, struct tl_error *err)
{
    struct text t = { 0 };
    char key[128], q[64];
    if (alignment == 0 || (alignment & (alignment - 1)))
        return tl_fail(err, TL_E_VALUE, "alignment", "%" PRIu64 " is not a power of two",
                       alignment);
    put(&t, "GGUF", 4);
    put_u32(&t, 3);
    put_u64(&t, n);
    put_u64(&t, nkv);
    put(&t, (const char *)kv, kv_len);
    uint64_t at = 0;
    for (size_t i = 0; i < n; i++) {
        const struct tl_ggml_type *gt = tl_ggml_type(e[i].type);
        size_t nlen = strlen(e[i].name);
        snprintf(key, sizeof key, "tensor '%s'", tl_quote(e[i].name, q, sizeof q));
        if (!gt) {
            free(t.p);
            return tl_fail(err, TL_E_VALUE, key, "ggml type %" PRIu32 " is none", e[i].type);
        }
        if (nlen == 0 || nlen > TL_GGUF_NAME_MAX) {
            free(t.p);
            return tl_fail(err, TL_E_VALUE, key, "a GGUF tensor's name has 1 to %d bytes (ggml "
                           "reads no longer one); this one has %zu", TL_GGUF_NAME_MAX, nlen);
        }
        uint64_t count = 1;
        bool fits = e[i].ndim >= 1 && e[i].ndim <= GGUF_MAX_DIMS;
        for (unsigned k = 0; fits && k < e[i].ndim; k++)
            fits = tl_mul_ok(count, e[i].ne[k], &count);
        if (!fits || e[i].ne[0] % gt->block || !tl_mul_ok(count / gt->block, gt->bytes, &bytes[i])) {
            free(t.p);
            return tl_fail(err, TL_E_VALUE, key, e[i].ndim < 1 || e[i].ndim > GGUF_MAX_DIMS
                           ? "a GGUF tensor has 1 to 4 dimensions" : "its rows are not whole "
                           "blocks of %s (%u elements): ne[0] is %" PRIu64, gt->name, gt->block,
                           e[i].ne[0]);
        }
        put_u64(&t, nlen);
        put(&t, e[i].name, nlen);
        put_u32(&t, e[i].ndim);
        for (unsigned k = 0; k < e[i].ndim; k++)
            put_u64(&t, e[i].ne[k]);
        put_u32(&t, e[i].type);
        at = (at + alignment - 1) / alignment * alignment;
        offsets[i] = at;
        put_u64(&t, at);
        at += bytes[i];
    }
    while (!t.nomem && t.n % alignment)
        put(&t, "", 1);
    if (t.nomem) {
        free(t.p);
        return tl_fail(err, TL_E_NOMEM, NULL, "out of memory");
    }
    *out = (uint8_t *)t.p;
    *len = t.n;
    return 0;
}

/* A GGUF file of one tensor, named name: its header, then the packed
 * tensor, row-major; ne[] is the sizes in memory order, reversed. */
static int gguf_header(const struct tl_desc *d, const char *name, bool scalar, bool fortran,
                       uint8_t **bytes, size_t *len, struct tl_error *err)
{
    (void)fortran;
    struct tl_info info;
    tl_desc_classify(d, &info);
    if (!info.packed || d->byte_offset || d->file_offset)
        return tl_fail(err, TL_E_VALUE, "strides", "a GGUF tensor is packed and follows the "
                       "header: the destination must be packed, with byteOffset 0");
    uint32_t type = tl_ggml_of_dtype(d->dtype);
    if (type == UINT32_MAX)
        return tl_fail(err, TL_E_VALUE, "dataType", "GGUF has no %s type (it has F32, F16, "
                       "BF16, F64, I8, I16, I32, I64)", tl_dtype_name(d->dtype));
    if (d->rank > 4)
        return tl_fail(err, TL_E_VALUE, "sizes", "a GGUF tensor has at most 4 dimensions");
    struct tl_gguf_entry e = { name, type, scalar ? 1 : d->rank,
                               { 1, 1, 1, 1 } };
    for (unsigned i = 0; !scalar && i < d->rank; i++)
        e.ne[i] = d->sizes[info.axis_order[d->rank - 1 - i]];
    uint64_t off, size;
    return tl_gguf_header(&e, 1, NULL, 0, 0, 32, bytes, len, &off, &size, err);
}

/* ---- the writer of a whole file's tensors ---------------------------------- */

int tl_gguf_items(struct tl_whole_item *it, size_t n, struct tl_gguf_entry *e,
                  struct tl_error *err)
{
    char q[128];
    for (size_t i = 0; i < n; i++) {
        struct tl_whole_item *x = &it[i];
        const struct tl_file_tensor *t = x->t;
        tl_quote(t->name, q, sizeof q);
        x->raw = !x->quantize && t->encoding == TL_ENC_GGML && (!t->decodable || !x->type);
        x->gtype = x->quantize ? x->gtype : x->raw ? t->ggml_type
                 : t->decodable ? tl_ggml_of_dtype(x->dst.dtype) : UINT32_MAX;
        if (x->gtype == UINT32_MAX)
            return tl_fail(err, TL_E_VALUE, NULL, "tensor '%s' (%s) has no GGUF type (GGUF has "
                           "F32, F16, BF16, F64, I8, I16, I32, I64 and ggml's blocks)", q,
                           t->decodable ? tl_dtype_name(x->dst.dtype) : t->dtype);
        const uint64_t *sizes = t->decodable && !x->raw ? x->dst.sizes : t->shape;
        unsigned rank = t->decodable && !x->raw ? (t->scalar ? 0 : x->dst.rank) : t->ndim;
        if (rank > 4)
            return tl_fail(err, TL_E_VALUE, NULL, "tensor '%s' has %u dimensions: a GGUF tensor "
                           "has at most 4", q, rank);
        e[i] = (struct tl_gguf_entry){ t->name, x->gtype, rank ? rank : 1, { 1, 1, 1, 1 } };
        for (unsigned k = 0; k < rank; k++)
            e[i].ne[k] = sizes[rank - 1 - k];
    }
    return 0;
}

/* ---- the writer ---------------------------------------------------------- */

/* Quantizing FLOAT32 pieces (whole blocks of 32) into the writer. */
struct quant {
    struct tl_writer *w;
    uint32_t type;
    uint8_t *buf;                       /* one piece's blocks */
    size_t cap;
};

static int put_quantized(void *ctx, const uint8_t *bytes, size_t n)
{
    struct quant *q = ctx;
    size_t nb = n / 4 / 32, out = nb * tl_ggml_type(q->type)->bytes;
    if (out > q->cap) {
        uint8_t *p = realloc(q->buf, out);
        if (!p)
            return TL_E_NOMEM;
        q->buf = p;
        q->cap = out;
    }
    float *x = malloc(n ? n : 1);       /* the piece, aligned for floats */
    if (!x)
        return TL_E_NOMEM;
    memcpy(x, bytes, n);
    tl_quantize(q->type, x, q->buf, nb);
    free(x);
    return tl_writer_put(q->w, q->buf, out, NULL) ? -1 : 0;
}

/* Tensor t's values as packed FLOAT32 in C order, a slab of rows at a
 * time, quantized into q. */
static int quantize_plain(struct quant *q, const struct tl_input *in,
                          const struct tl_file_tensor *t, struct tl_error *err)
{
    struct tl_info info;
    tl_desc_classify(&t->desc, &info);
    uint64_t count = info.element_count;
    struct tl_inflated cache = { 0 };
    const uint8_t *bytes;
    int rc = tl_whole_source(in, t, &cache, &bytes, err);
    if (rc)
        return rc;
    struct tl_desc c = t->desc;
    unsigned order[TL_MAX_RANK];
    for (unsigned k = 0; k < c.rank; k++)
        order[k] = k;
    tl_strides_for_order(c.rank, c.sizes, order, 0, c.strides, NULL);
    c.dtype = TL_DT_FLOAT32;
    c.byte_offset = c.file_offset = 0;
    tl_desc_validate(&c, NULL);
    float *all = count < SIZE_MAX / 4 ? malloc(count * 4 + 4) : NULL;
    struct tl_copy_plan *plan = all ? tl_copy_plan_new(&t->desc, &c, err) : NULL;
    if (!plan) {
        rc = !all ? tl_fail(err, TL_E_NOMEM, NULL, "out of memory") : err ? err->code : TL_E_VALUE;
        if (err && rc != TL_E_NOMEM)
            err->key[0] = '\0';
    } else {
        tl_copy_run(plan, bytes, (uint8_t *)all, q->w->threads, NULL, NULL);
        tl_copy_plan_free(plan);
    }
    tl_inflated_free(in, &cache);
    for (uint64_t at = 0; plan && rc == 0 && at < count; at += 65536)
        rc = put_quantized(q, (const uint8_t *)(all + at),
                           (size_t)((count - at < 65536 ? count - at : 65536) * 4));
    free(all);
    return rc;
}

/* Writes item x quantized: its values as FLOAT32 in C order, a piece at
 * a time (decoded, or converted from its type), then into blocks. */
/* A scaled or group-quantized weight into blocks: its codes repacked
 * (x->repack: SPEC 21), else its decoded values quantized, rows at a time. */
static int quantize_pair(struct quant *q, const struct tl_input *in, const struct tl_file *paired,
                         struct tl_whole_item *x)
{
    const struct tl_scaled *p = x->pair;
    uint64_t cols = x->dst.sizes[x->dst.rank - 1], rows = x->dst.total_bytes / 4 / cols;
    uint64_t per = cols / 32 * tl_ggml_type(x->gtype)->bytes, step = (1u << 20) / (per + 1) + 1;
    float *v = malloc((size_t)(step * cols * 4));
    uint8_t *blocks = malloc((size_t)(step * per));
    int rc = v && blocks ? 0 : TL_E_NOMEM;
    struct tl_grouped_tile tile = { 0 };
    for (uint64_t r = 0; rc == 0 && r < rows; r += step) {
        uint64_t n = rows - r < step ? rows - r : step;
        if (x->repack) {
            for (uint64_t k = 0; rc == 0 && k < n; k++)
                rc = tl_grouped_blocks(in->bytes, paired, p, x->gtype, r + k, blocks + k * per,
                                       &x->offset_error, &tile);
            if (rc == 0)
                rc = tl_writer_put(q->w, blocks, (size_t)(n * per), NULL) ? -1 : 0;
        } else if ((rc = tl_scaled_decode_as(in->bytes, paired, p, r * cols, n * cols,
                                             TL_DT_FLOAT32, v, NULL)) == 0) {
            rc = put_quantized(q, (const uint8_t *)v, (size_t)(n * cols * 4));
        }
    }
    tl_grouped_tile_free(&tile);
    free(v);
    free(blocks);
    return rc;
}

static int put_quantized_tensor(struct tl_writer *w, const struct tl_input *in,
                                const struct tl_file *paired, struct tl_whole_item *x,
                                struct tl_error *err)
{
    struct quant q = { w, x->gtype, NULL, 0 };
    const struct tl_file_tensor *t = x->t;
    int rc = x->pair ? quantize_pair(&q, in, paired, x)
           : t->encoding == TL_ENC_GGML
           ? tl_file_decode(in->bytes, in->size, t, put_quantized, &q, err)
           : quantize_plain(&q, in, t, err);
    free(q.buf);
    if (rc == -1)
        return TL_E_IO;
    if (rc == TL_E_NOMEM) {
        w->blame = w->out->name;
        return tl_fail(err, TL_E_NOMEM, NULL, "out of memory");
    }
    if (rc && rc != TL_E_IO) {
        tl_error_about(err, "tensor", t->name);
        w->blame = in->name;
    }
    return rc;
}

/* A whole file's tensors as a GGUF file: the header (a GGUF input's
 * key/value pairs as they are), then each tensor at its aligned offset,
 * in the input's order: quantized, carried as stored, decoded, or through
 * the copy engine. */
static int gguf_write(struct tl_whole_job *j, const struct tl_output *out, struct tl_error *err)
{
    size_t n = j->n;
    const struct tl_file *f = j->f;
    struct tl_gguf_entry *e = calloc(n ? n : 1, sizeof *e);
    uint64_t *offs = calloc(n ? n : 1, sizeof *offs), *bytes = calloc(n ? n : 1, sizeof *bytes);
    uint8_t *header = NULL;
    size_t hlen = 0;
    int rc = !e || !offs || !bytes ? tl_fail(err, TL_E_NOMEM, NULL, "out of memory") : 0;
    j->carried = 0;                     /* a ggml type is carried as a type GGUF knows */
    if (rc == 0 && (rc = tl_gguf_items(j->it, n, e, err)))
        j->blame = j->in->name;
    bool keep = f->format == TL_FMT_GGUF;
    if (rc == 0 && (rc = tl_gguf_header(e, n, keep ? j->in->bytes + f->meta_at : NULL,
                                        keep ? (size_t)f->meta_len : 0, keep ? f->nmeta : 0,
                                        keep ? f->alignment : 32, &header, &hlen, offs, bytes,
                                        err)))
        j->blame = j->out_name;
    struct tl_writer w;
    j->written = rc ? 0 : hlen + (n ? offs[n - 1] + bytes[n - 1] : 0);
    tl_writer_init(&w, out, j->written, j->threads);
    if (rc == 0)
        rc = tl_writer_put(&w, header, hlen, err);
    static const uint8_t zeros[256];
    struct tl_inflated cache = { 0 };
    for (size_t i = 0; rc == 0 && i < n; i++) {
        struct tl_whole_item *x = &j->it[i];
        uint64_t at = hlen + offs[i];
        while (rc == 0 && w.pos < at) {
            uint64_t gap = at - w.pos;
            rc = tl_writer_put(&w, zeros, gap < sizeof zeros ? gap : sizeof zeros, err);
        }
        x->offset = offs[i];
        x->bytes = bytes[i];
        x->dst.file_offset = at;
        if (rc == 0 && x->quantize)
            rc = put_quantized_tensor(&w, x->in ? x->in : j->in, j->paired, x, err);
        else if (rc == 0 && x->raw)
            rc = tl_writer_put(&w, (x->in ? x->in : j->in)->bytes + x->t->stored_at,
                               x->t->stored_bytes, err);
        else if (rc == 0)
            rc = tl_whole_put(&w, j, x, at + bytes[i], &cache, err);
        tl_input_done_with(x->in ? x->in : j->in, x->t->begin, x->t->end);
    }
    tl_inflated_free(j->in, &cache);
    if (w.blame)
        j->blame = w.blame;
    tl_writer_free(&w);
    free(header);
    free(e);
    free(offs);
    free(bytes);
    return rc;
}

/* list: a tensor's ggml type, its block ("256 in 144 B", "-" for a plain
 * type), and in --json both and how it is stored. */
static const char *list_type(const struct tl_file_tensor *t)
{
    return tl_ggml_type(t->ggml_type)->name;
}

static void list_block(const struct tl_file_tensor *t, char *buf, size_t n)
{
    const struct tl_ggml_type *g = tl_ggml_type(t->ggml_type);
    if (g->block > 1)
        snprintf(buf, n, "%u in %u B", g->block, g->bytes);
    else
        snprintf(buf, n, "-");
}

static bool list_keys(struct cJSON *o, const struct tl_file_tensor *t)
{
    const struct tl_ggml_type *g = tl_ggml_type(t->ggml_type);
    return cJSON_AddStringToObject(o, "ggmlType", g->name) &&
           cJSON_AddNumberToObject(o, "blockElements", g->block) &&
           cJSON_AddNumberToObject(o, "blockBytes", g->bytes) &&
           cJSON_AddStringToObject(o, "encoding", tl_encoding_name(t->encoding));
}

/* Which items a GGUF OUT quantizes, and to what (tl_file.h). */
size_t tl_gguf_mark_quantized(struct tl_whole_item *it, size_t n, uint32_t quant,
                              const struct tl_file *paired, size_t *already, const char **first)
{
    size_t quantized = 0;
    *already = 0;
    *first = NULL;
    for (size_t i = 0; quant != UINT32_MAX && i < n; i++) {
        const struct tl_file_tensor *t = it[i].t;
        bool floating = it[i].chosen && t->decodable && tl_dtype_is_float(t->desc.dtype) &&
                        !it[i].layout;
        if (floating && t->desc.rank == 1 && t->encoding != TL_ENC_GGML &&
            it[i].dst.dtype != TL_DT_FLOAT32) {
            it[i].dst.dtype = TL_DT_FLOAT32;
            it[i].bytes = tl_dtype_bytes(TL_DT_FLOAT32, t->desc.sizes[0]);
            it[i].type = true;
        }
        it[i].quantize = floating && t->desc.rank >= 2 &&
                         t->desc.sizes[t->desc.rank - 1] % 32 == 0 &&
                         !(t->encoding == TL_ENC_GGML && t->ggml_type == quant);
        it[i].gtype = quant;
        if (it[i].quantize && it[i].pair && paired)    /* its codes, repacked (SPEC 21) */
            it[i].gtype = tl_grouped_gguf_type(paired->bytes, paired, it[i].pair, quant,
                                               &it[i].repack);
        quantized += it[i].quantize;
        if (it[i].quantize && t->encoding == TL_ENC_GGML && (*already)++ == 0)
            *first = t->name;
    }
    return quantized;
}

const struct tl_format_entry tl_format_gguf = {
    .id = TL_FMT_GGUF, .name = "gguf", .label = ".gguf", .title = "a GGUF file (llama.cpp)",
    .endings = ".gguf", .bid = gguf_bid, .read = gguf_parse, .spelling = TL_SPELL_SAFETENSORS,
    .many = true, .writes = 4, .header = gguf_header, .write = gguf_write,
    .type_header = "type", .type_width = 8, .type_text = list_type,
    .column = "block", .column_width = 12, .column_text = list_block, .json_keys = list_keys,
};
