/*
 * safetensors.c - safetensors files: the reader and the writer.
 *
 * safetensors: an 8-byte little-endian header length N, N bytes of JSON (an
 * object of tensors {"dtype", "shape", "data_offsets": [begin, end]},
 * offsets relative to the end of the header, and an optional
 * "__metadata__" object of strings), then the data.  The reference
 * reader's rules are the floor: N at most 100 MiB, the header starts with
 * '{', every tensor's bytes are exactly its element count times its element
 * size and lie in the file.  Overlaps and gaps between tensors are kept as
 * problems for the caller to report.
 *
 * The reader takes the whole file as bytes and a length and never looks
 * past it: every length, count and offset the header claims is checked
 * against the file (with 64-bit overflow checks) before it is used.  Each
 * tensor's byteOffset is where its data starts in the file.
 */
#include <cjson/cJSON.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "tl.h"
#include "tl_io.h"

unsigned tl_safetensors_bits(const char *name)
{
    enum tl_dtype dt;
    if (tl_dtype_from_safetensors(name, &dt) == 0)
        return tl_dtype_bits(dt);
    static const struct { const char *name; unsigned bits; } other[] = {
        { "F6_E2M3", 6 }, { "F6_E3M2", 6 }, { "C64", 64 },
    };
    for (size_t i = 0; i < sizeof other / sizeof other[0]; i++) {
        if (strcmp(name, other[i].name) == 0)
            return other[i].bits;
    }
    return 0;
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
    bool known = tl_dtype_from_safetensors(dtype->valuestring, &dt) == 0;
    unsigned bits = tl_safetensors_bits(dtype->valuestring);
    int rc;
    if (!dtype->valuestring[0] || strlen(dtype->valuestring) >= sizeof t->dtype) {
        char q[40];
        return tl_fail(err, TL_E_VALUE, st_key(name, "dtype", key, sizeof key),
                       "'%s' is not a dtype name", tl_quote(dtype->valuestring, q, sizeof q));
    }
    if (bits == 0) {              /* not a dtype of the format: refused, as its reader does */
        char q[40], list[160];
        return tl_fail(err, TL_E_VALUE, st_key(name, "dtype", key, sizeof key),
                       "data type '%s' is not supported (supported: %s)",
                       tl_quote(dtype->valuestring, q, sizeof q),
                       tl_dtype_list(TL_SPELL_SAFETENSORS, list, sizeof list));
    }
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
            known = false;          /* no elements: listed and carried, not decoded */
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
    uint64_t count = 1, bytes = 0;
    bool fits = true;
    for (int k = 0; k < ndim && fits; k++)
        fits = tl_mul_ok(count, dims[k], &count);
    if (fits && bits)
        fits = tl_mul_ok(count / 8, bits, &bytes) && tl_add_ok(bytes, (count % 8 * bits + 7) / 8,
                                                               &bytes);
    if (!fits)
        return tl_fail(err, TL_E_OVERFLOW, st_key(name, "shape", key, sizeof key),
                       "the tensor's size in bytes does not fit in 64 bits");
    if (bits && bytes != be[1] - be[0])
        return tl_fail(err, TL_E_RANGE, key, "hold %" PRIu64 " bytes, but %" PRIu64
                       " elements of %s need %" PRIu64, be[1] - be[0], count,
                       dtype->valuestring, bytes);
    t->name = strdup(name);
    if (!t->name)
        return tl_fail(err, TL_E_NOMEM, NULL, "out of memory");
    t->begin = data_start + be[0];
    t->end = data_start + be[1];
    snprintf(t->dtype, sizeof t->dtype, "%s", dtype->valuestring);
    t->scalar = ndim == 0;
    t->ndim = (unsigned)ndim;
    memcpy(t->shape, dims, (size_t)ndim * sizeof dims[0]);
    t->decodable = known;
    if (!known)
        return 0;               /* name, dtype, shape and bytes: no description */
    if ((rc = tl_desc_from_shape(&t->desc, dt, (unsigned)ndim, dims, false, t->begin, err))) {
        tl_error_key(err, st_key(name, err->key, key, sizeof key));
        return rc;
    }
    return 0;
}

int tl_safetensors_parse(const uint8_t *b, uint64_t len, struct tl_file *f, struct tl_error *err)
{
    if (len < 8)
        return tl_fail(err, TL_E_JSON, "header", "truncated: no 8-byte header length");
    uint64_t n = 0;
    for (int i = 0; i < 8; i++)
        n |= (uint64_t)b[i] << (8 * i);
    if (n > TL_FILE_HEADER_MAX)
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
    long nul, deep;
    size_t keys;
    tl_json_scan(text, (size_t)n, &nul, &deep, &keys);
    if (deep >= 0)
        return tl_fail(err, TL_E_JSON, "header", "nests deeper than %d levels (at byte %ld)",
                       CJSON_NESTING_LIMIT, 8 + deep);
    if (nul >= 0)
        return tl_fail(err, TL_E_JSON, "header", "a string holds a NUL (\\u0000) at byte %ld: "
                       "no tensor name or key may", 8 + nul);
    bool has_meta = false;                  /* a key counted that is no tensor */
    for (uint64_t i = 0; i + 14 <= n && !has_meta; i++)
        has_meta = memcmp(text + i, "\"__metadata__\"", 14) == 0;
    int rc = tl_file_count_ok(keys - (has_meta && keys > 0), "tensors", err);
    if (rc)
        return rc;
    cJSON *root = cJSON_ParseWithLengthOpts(text, (size_t)n, &end, 0);
    if (!root) {
        uint64_t at = end ? (uint64_t)(end - text) : 0;
        return tl_fail(err, TL_E_JSON, "header", "malformed JSON near byte %" PRIu64, 8 + at);
    }
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
    f->named = true;
    f->tensors = calloc(count ? count : 1, sizeof *f->tensors);
    if (!f->tensors) {
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
    bool nomem;
    const char *twice = tl_file_name_twice(f, &nomem);
    if (nomem || twice) {
        char key[128];
        rc = nomem ? tl_fail(err, TL_E_NOMEM, NULL, "out of memory")
                   : tl_fail(err, TL_E_KEY, st_key(twice, NULL, key, sizeof key),
                             "appears twice in the header");
        goto out;
    }
    /* file order, then what lies between the tensors */
    if (tl_file_order(f, len) != 0)
        rc = tl_fail(err, TL_E_NOMEM, NULL, "out of memory");
out:
    cJSON_Delete(root);
    return rc;
}


/* ---- the writer ------------------------------------------------------------ */

int tl_safetensors_header(const struct tl_st_entry *t, size_t n, const struct tl_file_meta *meta,
                          size_t nmeta, uint8_t **out, size_t *len, struct tl_error *err)
{
    char key[128];
    cJSON *root = cJSON_CreateObject();
    bool ok = root != NULL;
    /* __metadata__ first, as the reference writes it: the source's, and
     * "format": "pt" where it says no format (transformers refuses a
     * safetensors file without one, SPEC 23) */
    bool has_format = false;
    for (size_t i = 0; i < nmeta; i++)
        has_format |= strcmp(meta[i].key, "format") == 0;
    cJSON *m = ok ? cJSON_AddObjectToObject(root, "__metadata__") : NULL;
    ok = m && (has_format || cJSON_AddStringToObject(m, "format", "pt"));
    for (size_t i = 0; ok && i < nmeta; i++)
        ok = cJSON_AddStringToObject(m, meta[i].key, meta[i].value) != NULL;
    uint64_t at = 0;
    for (size_t i = 0; ok && i < n; i++) {
        const char *st = t[i].st ? t[i].st : tl_dtype_info(t[i].dtype)->st;
        if (!st) {
            cJSON_Delete(root);
            return tl_fail(err, TL_E_VALUE, st_key(t[i].name, "dtype", key, sizeof key),
                           "%s has no safetensors dtype%s", tl_dtype_name(t[i].dtype),
                           tl_dtype_bits(t[i].dtype) == 4 ? " (safetensors has no packed 4-bit one)"
                                                          : "");
        }
        if (strcmp(t[i].name, "__metadata__") == 0) {
            cJSON_Delete(root);
            return tl_fail(err, TL_E_VALUE, st_key(t[i].name, NULL, key, sizeof key),
                           "is the name of the header's metadata, not a tensor's");
        }
        cJSON *o = cJSON_AddObjectToObject(root, t[i].name);
        uint64_t offs[2] = { at, at + t[i].bytes };
        ok = o && cJSON_AddStringToObject(o, "dtype", st) &&
             tl_json_add_u64_array(o, "shape", t[i].shape, t[i].rank) &&
             tl_json_add_u64_array(o, "data_offsets", offs, 2);
        at += t[i].bytes;
    }
    char *text = ok ? cJSON_PrintUnformatted(root) : NULL;
    cJSON_Delete(root);
    if (!text)
        return tl_fail(err, TL_E_NOMEM, NULL, "out of memory");
    size_t tlen = strlen(text), hlen = (tlen + 7) / 8 * 8;   /* the data starts on 8 bytes */
    *out = malloc(8 + hlen);
    if (!*out) {
        free(text);
        return tl_fail(err, TL_E_NOMEM, NULL, "out of memory");
    }
    for (int i = 0; i < 8; i++)
        (*out)[i] = (uint8_t)((uint64_t)hlen >> (8 * i));
    memcpy(*out + 8, text, tlen);
    memset(*out + 8 + tlen, ' ', hlen - tlen);
    free(text);
    *len = 8 + hlen;
    return 0;
}

/* ---- the writer of a whole file's tensors ---------------------------------- */

int tl_safetensors_items(struct tl_whole_item *it, size_t n, enum tl_format from,
                         struct tl_st_entry *e, uint64_t *data_bytes, struct tl_error *err)
{
    char q[128];
    uint64_t at = 0;
    for (size_t i = 0; i < n; i++) {
        const struct tl_file_tensor *t = it[i].t;
        if (!t->decodable && t->encoding == TL_ENC_GGML) {
            char list[256];
            return tl_fail(err, TL_E_VALUE, NULL, "tensor '%s' is of GGUF type %s, which this "
                           "tool does not decode (it decodes %s): safetensors cannot carry it",
                           tl_quote(t->name, q, sizeof q), t->dtype,
                           tl_ggml_decoded_list(list, sizeof list));
        }
        const char *st = t->decodable || it[i].retyped ? NULL : t->dtype;
        if (!t->decodable && !it[i].retyped && from == TL_FMT_NPZ) {
            /* its .npy data as it is, C order: the header says the rest */
            st = t->dtype[0] ? tl_whole_carried_as(t, from, false) : NULL;
            uint64_t npy = t->encoding == TL_ENC_PLAIN ? t->end - t->begin : t->decoded_bytes;
            it[i].bytes = npy - t->npy_data;
            it[i].cross = true;
            if (!st || (t->npy_fortran && t->ndim >= 2 && it[i].bytes))
                return tl_fail(err, TL_E_VALUE, NULL, "member '%s' (%s) has no safetensors "
                               "form%s: convert the archive into an .npz instead",
                               tl_quote(t->name, q, sizeof q),
                               t->dtype[0] ? t->dtype : "not a .npy file",
                               st ? " in Fortran order (numpy's ascontiguousarray first)" : "");
        }
        e[i] = (struct tl_st_entry){ .name = t->name, .dtype = it[i].dst.dtype, .st = st,
                                     .bytes = it[i].bytes };
        e[i].rank = tl_whole_item_shape(&it[i], e[i].shape);
        it[i].offset = at;
        at += it[i].bytes;
    }
    *data_bytes = at;
    return 0;
}


/* An 8-byte header length (binary: some byte of it is not text, which a
 * JSON description never holds) followed by '{'.  Not certain: another
 * format's ninth byte may be '{' too (a GGUF file's tensor count). */
static unsigned safetensors_bid(const uint8_t *head, size_t n)
{
    if (n < 9 || head[8] != '{')
        return 0;
    for (int i = 0; i < 8; i++) {
        uint8_t c = head[i];
        if (!((c >= 0x20 && c < 0x7f) || c == '\t' || c == '\n' || c == '\r'))
            return 60;
    }
    return 0;
}

/* A safetensors file of one tensor, named name: its header, then the
 * packed tensor; the shape is the sizes in memory order, as for .npy. */
static int st_header(const struct tl_desc *d, const char *name, bool scalar, bool fortran,
                     uint8_t **bytes, size_t *len, struct tl_error *err)
{
    (void)fortran;                     /* safetensors has no order flag */
    struct tl_info info;
    tl_desc_classify(d, &info);
    if (!info.packed)
        return tl_fail(err, TL_E_VALUE, "strides", "a safetensors tensor is packed, and this "
                       "destination is %s", tl_status_name(info.status));
    if (d->byte_offset || d->file_offset)
        return tl_fail(err, TL_E_VALUE, "byteOffset", "a safetensors tensor's data follows "
                       "the header: the destination's byteOffset and fileOffset must be 0");
    struct tl_st_entry e = { .name = name, .dtype = d->dtype, .rank = scalar ? 0 : d->rank,
                             .bytes = tl_dtype_bytes(d->dtype, info.element_count) };
    for (unsigned i = 0; i < d->rank; i++)
        e.shape[i] = d->sizes[info.axis_order[i]];
    return tl_safetensors_header(&e, 1, NULL, 0, bytes, len, err);
}

/* The reference writer's order: element size, largest first, then name. */
static unsigned item_size(const struct tl_whole_item *x)
{
    unsigned bits = x->t->decodable ? tl_dtype_bits(x->dst.dtype) : tl_safetensors_bits(x->t->dtype);
    return bits >= 8 ? bits / 8 : 1;
}

static int by_size_then_name(const void *a, const void *b)
{
    const struct tl_whole_item *x = a, *y = b;
    unsigned ex = item_size(x), ey = item_size(y);
    if (ex != ey)
        return ex > ey ? -1 : 1;
    return strcmp(x->t->name, y->t->name);
}

/* A whole file's tensors as a safetensors file: the header, then every
 * tensor, in the reference writer's order (j->it sorted so), on several
 * threads where the output lets them write at their places. */
static int st_write(struct tl_whole_job *j, const struct tl_output *out, struct tl_error *err)
{
    qsort(j->it, j->n, sizeof *j->it, by_size_then_name);
    struct tl_st_entry *e = calloc(j->n ? j->n : 1, sizeof *e);
    uint8_t *header = NULL;
    size_t hlen = 0;
    uint64_t at = 0;
    if (!e)
        return tl_fail(err, TL_E_NOMEM, NULL, "out of memory");
    int rc = tl_safetensors_items(j->it, j->n, j->f->format, e, &at, err);
    if (rc)
        j->blame = j->in->name;
    else if ((rc = tl_safetensors_header(e, j->n, j->meta, j->nmeta, &header, &hlen, err)))
        j->blame = j->out_name;
    free(e);
    if (rc)
        return rc;
    struct tl_writer w;
    j->written = hlen + at;
    tl_writer_init(&w, out, j->written, j->threads);
    rc = tl_writer_put(&w, header, hlen, err);
    free(header);
    for (size_t i = 0; i < j->n; i++)
        j->it[i].dst.file_offset = hlen + j->it[i].offset;
    struct tl_writer_shared shared = { .done = hlen };
    bool *done = NULL;
    if (rc == 0)
        rc = tl_whole_crew(&w, j, hlen, &done, &shared, err);
    struct tl_inflated cache = { 0 };
    for (size_t i = 0; rc == 0 && i < j->n; i++) {
        if (done && done[i])
            continue;
        if (done)
            rc = tl_writer_seek(&w, hlen + j->it[i].offset);
        if (rc == 0)
            rc = tl_whole_put(&w, j, &j->it[i], hlen + j->it[i].offset + j->it[i].bytes, &cache,
                              err);
    }
    tl_inflated_free(j->in, &cache);
    if (rc == 0 && done)
        rc = tl_writer_seek(&w, j->written);
    free(done);
    j->blame = w.blame;
    tl_writer_free(&w);
    return rc;
}

const struct tl_format_entry tl_format_safetensors = {
    .id = TL_FMT_SAFETENSORS, .name = "safetensors", .label = "safetensors",
    .title = "a safetensors file", .endings = ".safetensors", .bid = safetensors_bid,
    .read = tl_safetensors_parse, .writes = 2, .many = true, .header = st_header,
    .write = st_write,
    .spelling = TL_SPELL_SAFETENSORS,
};
