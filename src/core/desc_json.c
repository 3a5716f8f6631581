/*
 * desc_json.c - JSON text <-> struct tl_desc, with cJSON.
 *
 * Keys match case-insensitively, so camelCase descriptions and DxDispatch's
 * PascalCase DML_TENSOR_DESC (optionally wrapped as {"Type", "Desc"}) read
 * alike.  Every error names the key as the user spelled it, with its path
 * ("Desc.Sizes[2]").  Numbers are checked on valuedouble (integral, >= 0,
 * <= 2^53); valueint is never used, it saturates.
 */
#include <cjson/cJSON.h>
#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "internal.h"
#include "tl.h"

enum key {
    K_DTYPE, K_SIZES, K_STRIDES, K_LAYOUT, K_BROADCAST, K_TOTAL, K_ALIGN,
    K_FLAGS, K_DIMS, K_OFFSET, K_FILE_OFFSET, K_COUNT
};

static const char *const key_names[K_COUNT] = {
    "dataType", "sizes", "strides", "layout", "broadcast", "totalTensorSizeInBytes",
    "guaranteedBaseOffsetAlignment", "flags", "dimensionCount", "byteOffset", "fileOffset"
};

struct parser {
    const char *prefix;                /* "" or "Desc." */
    const cJSON *type;                 /* DxDispatch's collapsed form: its "Type", skipped */
    const cJSON *name;                 /* a buffer map entry's "name", skipped */
    bool big_literal;                  /* an integer literal above 2^53 is in the text */
    const cJSON *item[K_COUNT];        /* NULL when absent or null */
    const char *spelled[K_COUNT];      /* the key as written */
    struct tl_error *err;
};

/* "prefix" + spelled name (+ "[i]" when i >= 0) into buf. */
static const char *path(const struct parser *p, enum key k, int i, char *buf, size_t n)
{
    char q[40];
    tl_quote(p->spelled[k] ? p->spelled[k] : key_names[k], q, sizeof q);
    if (i >= 0)
        snprintf(buf, n, "%s%s[%d]", p->prefix, q, i);
    else
        snprintf(buf, n, "%s%s", p->prefix, q);
    return buf;
}

/* Line and column (1-based) of pos in text. */
static void line_col(const char *text, const char *pos, int *line, int *col)
{
    *line = 1;
    *col = 1;
    for (const char *c = text; c < pos; c++) {
        if (*c == '\n') {
            ++*line;
            *col = 1;
        } else {
            ++*col;
        }
    }
}

/* An integer in [0, 2^53] from a JSON number. */
static int get_u64(struct parser *p, const cJSON *v, const char *key, uint64_t *out)
{
    if (!cJSON_IsNumber(v))
        return tl_fail(p->err, TL_E_TYPE, key, "must be an integer");
    double d = v->valuedouble;
    if (d < 0)
        return tl_fail(p->err, TL_E_RANGE, key, "must not be negative (is %.17g)", d);
    if (d != floor(d))
        return tl_fail(p->err, TL_E_RANGE, key, "must be a whole number (is %.17g)", d);
    /* 2^53 + 1 reads as 2^53: the text tells them apart */
    if (d > TL_MAX_JSON_INT || (d == TL_MAX_JSON_INT && p->big_literal))
        return tl_fail(p->err, TL_E_RANGE, key, "must be at most 2^53 (9007199254740992)");
    *out = (uint64_t)d;
    return 0;
}

/* A JSON array of integers, one per axis, into v[]. */
static int get_u64_array(struct parser *p, enum key k, uint64_t *v, unsigned *n)
{
    char key[64];
    const cJSON *a = p->item[k];
    if (!cJSON_IsArray(a))
        return tl_fail(p->err, TL_E_TYPE, path(p, k, -1, key, sizeof key),
                       "must be an array of integers");
    int count = cJSON_GetArraySize(a);
    if (count < 1 || count > TL_MAX_RANK)
        return tl_fail(p->err, TL_E_RANGE, path(p, k, -1, key, sizeof key),
                       "must have 1 to %d entries, not %d", TL_MAX_RANK, count);
    int i = 0;
    for (const cJSON *e = a->child; e; e = e->next, i++) {
        int rc = get_u64(p, e, path(p, k, i, key, sizeof key), &v[i]);
        if (rc)
            return rc;
    }
    *n = (unsigned)count;
    return 0;
}

/* "layout": letters, or an array of axis indices, outermost first. */
static int get_layout(struct parser *p, unsigned rank, unsigned *order)
{
    char key[64];
    const cJSON *l = p->item[K_LAYOUT];
    path(p, K_LAYOUT, -1, key, sizeof key);
    if (cJSON_IsString(l)) {
        int rc = tl_layout_parse(rank, l->valuestring, order, p->err);
        if (rc)
            tl_error_key(p->err, key);
        return rc;
    }
    if (!cJSON_IsArray(l))
        return tl_fail(p->err, TL_E_TYPE, key, "must be a string of axis letters or an array of axis indices");
    if (cJSON_GetArraySize(l) != (int)rank)
        return tl_fail(p->err, TL_E_RANGE, key, "must list all %u axes, not %d", rank,
                       cJSON_GetArraySize(l));
    unsigned seen = 0, i = 0;
    for (const cJSON *e = l->child; e; e = e->next, i++) {
        uint64_t v;
        int rc = get_u64(p, e, path(p, K_LAYOUT, (int)i, key, sizeof key), &v);
        if (rc)
            return rc;
        if (v >= rank || (seen & (1u << v)))
            return tl_fail(p->err, TL_E_VALUE, key,
                           "%" PRIu64 " is not a new axis index of 0..%u", v, rank - 1);
        seen |= 1u << v;
        order[i] = (unsigned)v;
    }
    return 0;
}

/* "broadcast": a string of axes, or an array of axis letters or indices. */
static int get_broadcast(struct parser *p, unsigned rank, unsigned *mask)
{
    char key[64];
    const cJSON *b = p->item[K_BROADCAST];
    path(p, K_BROADCAST, -1, key, sizeof key);
    *mask = 0;
    if (cJSON_IsString(b)) {
        int rc = tl_axes_parse(rank, b->valuestring, mask, p->err);
        if (rc)
            tl_error_key(p->err, key);
        return rc;
    }
    if (!cJSON_IsArray(b))
        return tl_fail(p->err, TL_E_TYPE, key, "must be axis letters or an array of axes");
    int i = 0;
    for (const cJSON *e = b->child; e; e = e->next, i++) {
        unsigned m;
        path(p, K_BROADCAST, i, key, sizeof key);
        if (cJSON_IsString(e)) {
            if (tl_axes_parse(rank, e->valuestring, &m, p->err)) {
                tl_error_key(p->err, key);
                return p->err->code;
            }
        } else {
            uint64_t v;
            int rc = get_u64(p, e, key, &v);
            if (rc)
                return rc;
            if (v >= rank)
                return tl_fail(p->err, TL_E_VALUE, key, "%" PRIu64 " is not an axis index of 0..%u",
                               v, rank - 1);
            m = 1u << v;
        }
        *mask |= m;
    }
    return 0;
}

/* One flag name, with or without its prefix. */
static int flag_bit(const char *name, size_t len, uint32_t *bit)
{
    static const char prefix[] = "DML_TENSOR_FLAG_";
    if (len >= sizeof prefix - 1 && strncasecmp(name, prefix, sizeof prefix - 1) == 0) {
        name += sizeof prefix - 1;
        len -= sizeof prefix - 1;
    }
    if (len == 4 && strncasecmp(name, "NONE", 4) == 0)
        *bit = 0;
    else if (len == 12 && strncasecmp(name, "OWNED_BY_DML", 12) == 0)
        *bit = TL_FLAG_OWNED_BY_DML;
    else
        return -1;
    return 0;
}

/* "A|B" names into bits. */
static int flag_names(struct parser *p, const char *s, const char *key, uint32_t *flags)
{
    char q[40];
    const char *start = s;
    for (;;) {
        while (*s == ' ')
            s++;
        const char *e = s;
        while (*e && *e != '|' && *e != ' ')
            e++;
        uint32_t bit;
        if (flag_bit(s, (size_t)(e - s), &bit))
            return tl_fail(p->err, TL_E_VALUE, key,
                           "'%s' is not a flag: use NONE or OWNED_BY_DML", tl_quote(start, q, sizeof q));
        *flags |= bit;
        while (*e == ' ')
            e++;
        if (!*e)
            return 0;
        if (*e != '|')
            return tl_fail(p->err, TL_E_VALUE, key,
                           "'%s' is not a flag: use NONE or OWNED_BY_DML", tl_quote(start, q, sizeof q));
        s = e + 1;
    }
}

static int get_flags(struct parser *p, uint32_t *flags)
{
    char key[64];
    const cJSON *f = p->item[K_FLAGS];
    path(p, K_FLAGS, -1, key, sizeof key);
    *flags = 0;
    if (cJSON_IsString(f))
        return flag_names(p, f->valuestring, key, flags);
    if (cJSON_IsNumber(f)) {
        uint64_t v;
        int rc = get_u64(p, f, key, &v);
        if (rc)
            return rc;
        if (v & ~(uint64_t)TL_FLAG_OWNED_BY_DML)
            return tl_fail(p->err, TL_E_VALUE, key,
                           "%" PRIu64 " has bits other than OWNED_BY_DML (1)", v);
        *flags = (uint32_t)v;
        return 0;
    }
    if (!cJSON_IsArray(f))
        return tl_fail(p->err, TL_E_TYPE, key, "must be a flag name, an array of names or an integer");
    int i = 0;
    for (const cJSON *e = f->child; e; e = e->next, i++) {
        path(p, K_FLAGS, i, key, sizeof key);
        if (!cJSON_IsString(e))
            return tl_fail(p->err, TL_E_TYPE, key, "must be a flag name");
        int rc = flag_names(p, e->valuestring, key, flags);
        if (rc)
            return rc;
    }
    return 0;
}

/* Edit distance of two short names, ignoring case, a swap of two
 * neighbours counting as one edit (for "did you mean"). */
static unsigned distance(const char *a, const char *b)
{
    size_t m = strlen(a), n = strlen(b);
    unsigned d[24][24];
    if (m >= 24 || n >= 24)
        return 99;
    for (size_t i = 0; i <= m; i++)
        d[i][0] = (unsigned)i;
    for (size_t j = 0; j <= n; j++)
        d[0][j] = (unsigned)j;
    for (size_t i = 1; i <= m; i++) {
        for (size_t j = 1; j <= n; j++) {
            int x = tolower((unsigned char)a[i - 1]), y = tolower((unsigned char)b[j - 1]);
            unsigned v = d[i - 1][j - 1] + (x != y);
            if (d[i - 1][j] + 1 < v)
                v = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < v)
                v = d[i][j - 1] + 1;
            if (i > 1 && j > 1 && x == tolower((unsigned char)b[j - 2]) &&
                tolower((unsigned char)a[i - 2]) == y && d[i - 2][j - 2] + 1 < v)
                v = d[i - 2][j - 2] + 1;
            d[i][j] = v;
        }
    }
    return d[m][n];
}

/* The known name nearest to s: an alias, or one edit away; NULL if none. */
static const char *nearest(const char *s, const char *const *names, size_t n,
                           const char *const (*aliases)[2], size_t naliases)
{
    for (size_t i = 0; i < naliases; i++) {
        if (strcasecmp(s, aliases[i][0]) == 0)
            return aliases[i][1];
    }
    const char *best = NULL;
    unsigned bd = 2;
    for (size_t i = 0; i < n; i++) {
        unsigned d = distance(s, names[i]);
        if (d < bd) {
            bd = d;
            best = names[i];
        }
    }
    return best;
}

static const char *const key_aliases[][2] = {
    { "stride", "strides" }, { "offset", "byteOffset" }, { "dtype", "dataType" },
    { "type", "dataType" }, { "data_type", "dataType" }, { "shape", "sizes" },
    { "size", "sizes" }, { "dims", "sizes" }, { "order", "layout" }, { "format", "layout" },
};

static const char *const dtype_aliases[][2] = {
    { "half", "FLOAT16" }, { "fp16", "FLOAT16" }, { "f16", "FLOAT16" }, { "float16_t", "FLOAT16" },
    { "float", "FLOAT32" }, { "fp32", "FLOAT32" }, { "f32", "FLOAT32" }, { "single", "FLOAT32" },
    { "double", "FLOAT64" }, { "fp64", "FLOAT64" }, { "f64", "FLOAT64" }, { "bf16", "BFLOAT16" },
    { "u8", "UINT8" }, { "uint8_t", "UINT8" }, { "byte", "UINT8" }, { "i8", "INT8" },
    { "int", "INT32" }, { "i32", "INT32" }, { "long", "INT64" }, { "i64", "INT64" },
};

/* Sorts an object's members into p->item[], refusing unknown and duplicate keys. */
static int collect(struct parser *p, const cJSON *obj)
{
    char key[64], q[40], q2[40];
    for (const cJSON *c = obj->child; c; c = c->next) {
        if (c == p->type || c == p->name)
            continue;
        int k = 0;
        while (k < K_COUNT && strcasecmp(c->string, key_names[k]) != 0)
            k++;
        snprintf(key, sizeof key, "%s%s", p->prefix, tl_quote(c->string, q, sizeof q));
        if (k == K_COUNT) {
            const char *near = nearest(c->string, key_names, K_COUNT, key_aliases,
                                       sizeof key_aliases / sizeof key_aliases[0]);
            if (near)
                return tl_fail(p->err, TL_E_KEY, key, "unknown key (did you mean \"%s\"?)", near);
            return tl_fail(p->err, TL_E_KEY, key, "unknown key (the keys: dataType, sizes, "
                           "strides, layout, broadcast, byteOffset, fileOffset, totalTensorSizeInBytes, "
                           "guaranteedBaseOffsetAlignment, flags, dimensionCount)");
        }
        if (p->spelled[k])
            return tl_fail(p->err, TL_E_KEY, key, "duplicate key (also given as '%s')",
                           tl_quote(p->spelled[k], q2, sizeof q2));
        p->spelled[k] = c->string;
        p->item[k] = cJSON_IsNull(c) ? NULL : c;
    }
    return 0;
}

/* Unwraps DxDispatch's {"Type": "DML_TENSOR_TYPE_BUFFER", "Desc": {...}},
 * and accepts its collapsed form, {"Type": "DML_TENSOR_TYPE_BUFFER",
 * "DataType": ..., ...}, the type beside the fields (DxDispatch's own
 * parser reads both). */
static int unwrap(struct parser *p, const cJSON *root, const cJSON **desc)
{
    const cJSON *type = NULL, *inner = NULL;
    char q[40];
    *desc = root;
    for (const cJSON *c = root->child; c; c = c->next) {
        if (strcasecmp(c->string, "type") == 0 && !type)
            type = c;
        else if (strcasecmp(c->string, "desc") == 0 && !inner)
            inner = c;
        else if (strcasecmp(c->string, "type") == 0 || strcasecmp(c->string, "desc") == 0)
            return tl_fail(p->err, TL_E_KEY, tl_quote(c->string, q, sizeof q), "duplicate key");
    }
    if (!type && !inner)
        return 0;
    if (type && !inner) {
        bool buffer = cJSON_IsString(type) &&
                      (strcasecmp(type->valuestring, "DML_TENSOR_TYPE_BUFFER") == 0 ||
                       strcasecmp(type->valuestring, "BUFFER") == 0);
        enum tl_dtype dt;
        if (cJSON_IsString(type) && tl_dtype_from_name(type->valuestring, &dt) == 0)
            return tl_fail(p->err, TL_E_KEY, tl_quote(type->string, q, sizeof q),
                           "is DxDispatch's tensor type, \"DML_TENSOR_TYPE_BUFFER\"; a data "
                           "type's key is \"dataType\"");
        if (!buffer)
            return tl_fail(p->err, TL_E_VALUE, tl_quote(type->string, q, sizeof q),
                           "must be \"DML_TENSOR_TYPE_BUFFER\"");
        p->type = type;         /* collapsed: the fields are beside it */
        return 0;
    }
    for (const cJSON *c = root->child; c; c = c->next) {
        if (c != type && c != inner && c != p->name)
            return tl_fail(p->err, TL_E_KEY, tl_quote(c->string, q, sizeof q),
                           "unknown key beside 'Type' and 'Desc'");
    }
    if (!type)
        return tl_fail(p->err, TL_E_KEY, "Type", "missing: a wrapped description needs \"Type\": \"DML_TENSOR_TYPE_BUFFER\"");
    if (!cJSON_IsString(type) || (strcasecmp(type->valuestring, "DML_TENSOR_TYPE_BUFFER") != 0 &&
                                  strcasecmp(type->valuestring, "BUFFER") != 0))
        return tl_fail(p->err, TL_E_VALUE, type->string, "must be \"DML_TENSOR_TYPE_BUFFER\"");
    if (!inner)
        return tl_fail(p->err, TL_E_KEY, "Desc", "missing: a wrapped description needs \"Desc\"");
    if (!cJSON_IsObject(inner))
        return tl_fail(p->err, TL_E_TYPE, inner->string, "must be an object");
    p->prefix = "Desc.";
    *desc = inner;
    return 0;
}

static int fill(struct parser *p, const cJSON *root, struct tl_desc *d)
{
    char key[64];
    const cJSON *obj;
    int rc;
    if ((rc = unwrap(p, root, &obj)) || (rc = collect(p, obj)))
        return rc;
    memset(d, 0, sizeof *d);
    /* dataType */
    const cJSON *dt = p->item[K_DTYPE];
    path(p, K_DTYPE, -1, key, sizeof key);
    if (!dt)
        return tl_fail(p->err, TL_E_KEY, key, "missing required key");
    if (!cJSON_IsString(dt))
        return tl_fail(p->err, TL_E_TYPE, key, "must be a string such as \"FLOAT32\"");
    if (tl_dtype_from_name(dt->valuestring, &d->dtype)) {
        char q[40];
        const char *names[TL_DT_COUNT];
        for (int i = 0; i < TL_DT_COUNT; i++)
            names[i] = tl_dtype_name((enum tl_dtype)i);
        const char *near = nearest(dt->valuestring, names, TL_DT_COUNT, dtype_aliases,
                                   sizeof dtype_aliases / sizeof dtype_aliases[0]);
        if (near)
            return tl_fail(p->err, TL_E_VALUE, key, "unknown data type '%s' (did you mean %s?)",
                           tl_quote(dt->valuestring, q, sizeof q), near);
        char list[160];
        return tl_fail(p->err, TL_E_VALUE, key, "unknown data type '%s' (the types: %s)",
                       tl_quote(dt->valuestring, q, sizeof q),
                       tl_dtype_list(TL_SPELL_NAME, list, sizeof list));
    }
    /* sizes, dimensionCount */
    if (!p->item[K_SIZES])
        return tl_fail(p->err, TL_E_KEY, path(p, K_SIZES, -1, key, sizeof key), "missing required key");
    if ((rc = get_u64_array(p, K_SIZES, d->sizes, &d->rank)))
        return rc;
    for (unsigned i = 0; i < d->rank; i++) {
        if (d->sizes[i] == 0)
            return tl_fail(p->err, TL_E_RANGE, path(p, K_SIZES, (int)i, key, sizeof key),
                           "must be an integer >= 1");
    }
    if (p->item[K_DIMS]) {
        uint64_t n;
        if ((rc = get_u64(p, p->item[K_DIMS], path(p, K_DIMS, -1, key, sizeof key), &n)))
            return rc;
        if (n != d->rank)
            return tl_fail(p->err, TL_E_MISMATCH, key, "is %" PRIu64 " but sizes has %u entries",
                           n, d->rank);
    }
    /* strides, layout, broadcast */
    unsigned n;
    d->strides_src = TL_STRIDES_IMPLICIT;
    if (p->item[K_STRIDES]) {
        if ((rc = get_u64_array(p, K_STRIDES, d->strides, &n)))
            return rc;
        if (n != d->rank)
            return tl_fail(p->err, TL_E_MISMATCH, path(p, K_STRIDES, -1, key, sizeof key),
                           "has %u entries but sizes has %u", n, d->rank);
        d->strides_src = TL_STRIDES_GIVEN;
    }
    unsigned order[TL_MAX_RANK], mask = 0;
    for (unsigned i = 0; i < d->rank; i++)
        order[i] = i;
    if (p->item[K_LAYOUT] && (rc = get_layout(p, d->rank, order)))
        return rc;
    if (p->item[K_BROADCAST] && (rc = get_broadcast(p, d->rank, &mask)))
        return rc;
    if (p->item[K_LAYOUT] || p->item[K_BROADCAST] || !p->item[K_STRIDES]) {
        uint64_t computed[TL_MAX_RANK];
        if ((rc = tl_strides_for_order(d->rank, d->sizes, order, mask, computed, p->err))) {
            tl_error_key(p->err, path(p, p->item[K_LAYOUT] ? K_LAYOUT : K_SIZES, -1, key, sizeof key));
            return rc;
        }
        if (d->strides_src == TL_STRIDES_GIVEN) {
            for (unsigned i = 0; i < d->rank; i++) {
                if (computed[i] != d->strides[i])
                    return tl_fail(p->err, TL_E_MISMATCH, path(p, K_STRIDES, (int)i, key, sizeof key),
                                   "is %" PRIu64 " but %s gives %" PRIu64, d->strides[i],
                                   p->item[K_LAYOUT] ? "layout" : "broadcast", computed[i]);
            }
        } else {
            memcpy(d->strides, computed, sizeof computed);
            if (p->item[K_LAYOUT] || p->item[K_BROADCAST])
                d->strides_src = TL_STRIDES_LAYOUT;
        }
    }
    /* the rest */
    if (p->item[K_TOTAL]) {
        if ((rc = get_u64(p, p->item[K_TOTAL], path(p, K_TOTAL, -1, key, sizeof key), &d->total_bytes)))
            return rc;
        d->total_given = true;
    }
    if (p->item[K_ALIGN] &&
        (rc = get_u64(p, p->item[K_ALIGN], path(p, K_ALIGN, -1, key, sizeof key), &d->alignment)))
        return rc;
    if (p->item[K_OFFSET] &&
        (rc = get_u64(p, p->item[K_OFFSET], path(p, K_OFFSET, -1, key, sizeof key), &d->byte_offset)))
        return rc;
    if (p->item[K_FILE_OFFSET] &&
        (rc = get_u64(p, p->item[K_FILE_OFFSET], path(p, K_FILE_OFFSET, -1, key, sizeof key),
                      &d->file_offset)))
        return rc;
    if (p->item[K_FLAGS] && (rc = get_flags(p, &d->flags)))
        return rc;
    if ((rc = tl_desc_validate(d, p->err))) {
        /* name the key as the user spelled it */
        for (int k = 0; k < K_COUNT; k++) {
            size_t len = strlen(key_names[k]);
            if (strncmp(p->err->key, key_names[k], len) == 0 &&
                (p->err->key[len] == '\0' || p->err->key[len] == '[')) {
                char spelled[48], full[72];
                path(p, (enum key)k, -1, spelled, sizeof spelled);
                snprintf(full, sizeof full, "%s%s", spelled, p->err->key + len);
                tl_error_key(p->err, full);
                break;
            }
        }
    }
    return rc;
}

/* Is the integer literal [s, e) above 2^53? */
static bool above_2_53(const char *s, const char *e)
{
    static const char limit[] = "9007199254740992";
    while (s < e && *s == '0' && s + 1 < e)
        s++;
    size_t n = (size_t)(e - s);
    return n > sizeof limit - 1 || (n == sizeof limit - 1 && memcmp(s, limit, n) > 0);
}

/* One pass over the text before cJSON sees it: returns where it nests
 * deeper than TL_MAX_JSON_DEPTH or holds a control character that JSON does
 * not allow (cJSON would take a NUL or a form feed for white space), with
 * *why set; or NULL.  Notes integer literals above 2^53, which a double
 * cannot always tell from 2^53. */
static const char *prescan(struct parser *p, const char *text, size_t len, const char **why)
{
    int depth = 0;
    bool in_string = false;
    for (const char *c = text; c < text + len; c++) {
        unsigned char u = (unsigned char)*c;
        if (u < 0x20 && (in_string || (u != ' ' && u != '\t' && u != '\n' && u != '\r'))) {
            *why = "malformed JSON: control character in the text";
            return c;
        }
        if (!in_string && *c >= '0' && *c <= '9') {
            const char *start = c;
            while (c + 1 < text + len && c[1] >= '0' && c[1] <= '9')
                c++;
            if (above_2_53(start, c + 1))
                p->big_literal = true;
            continue;
        }
        if (in_string) {
            if (*c == '\\' && c + 1 < text + len)
                c++;
            else if (*c == '"')
                in_string = false;
        } else if (*c == '"') {
            in_string = true;
        } else if (*c == '[' || *c == '{') {
            if (++depth > TL_MAX_JSON_DEPTH) {
                *why = "JSON nests deeper than 32 levels";
                return c;
            }
        } else if (*c == ']' || *c == '}') {
            depth--;
        }
    }
    return NULL;
}

static bool only_space(const char *p, const char *end)
{
    while (p < end && isspace((unsigned char)*p))
        p++;
    return p == end;
}

/* What a person most often gets wrong in JSON, found before cJSON's
 * verdict is used: single quotes, comments, a comma before a closing
 * bracket.  @return where, with *why, or NULL. */
static const char *diagnose(const char *text, size_t len, const char **why)
{
    static _Thread_local char missing[160];
    char open[TL_MAX_JSON_DEPTH + 1];   /* the brackets open, outermost first */
    size_t depth = 0;
    bool in_string = false;
    for (const char *c = text; c < text + len; c++) {
        if (in_string) {
            if (*c == '\\' && c + 1 < text + len)
                c++;
            else if (*c == '"')
                in_string = false;
            continue;
        }
        if ((*c == '{' || *c == '[') && depth < sizeof open) {
            open[depth++] = *c;
        } else if ((*c == '}' || *c == ']') && depth > 0) {
            depth--;
        } else if (*c == '"') {
            in_string = true;
        } else if (*c == '\'') {
            *why = "malformed JSON: strings need double quotes, not single ones";
            return c;
        } else if (*c == '/' && c + 1 < text + len && (c[1] == '/' || c[1] == '*')) {
            *why = "malformed JSON: comments are not JSON";
            return c;
        } else if (*c == ',') {
            const char *n = c + 1;
            while (n < text + len && isspace((unsigned char)*n))
                n++;
            if (n < text + len && (*n == '}' || *n == ']')) {
                *why = "malformed JSON: a trailing comma before a closing bracket";
                return c;
            }
        }
    }
    if (in_string) {                    /* cut short: say what would close it */
        *why = "malformed JSON: it ends inside a string (a closing '\"' is missing)";
        return text + len - 1;          /* its last character (len > 0 here) */
    }
    if (depth > 0 && depth < sizeof open) {
        size_t o = (size_t)snprintf(missing, sizeof missing, "malformed JSON: it ends before "
                                    "its closing brackets: '");
        for (size_t k = depth; k-- > 0 && o + 3 < sizeof missing;)
            missing[o++] = open[k] == '{' ? '}' : ']';
        snprintf(missing + o, sizeof missing - o, "' %s missing", depth > 1 ? "are" : "is");
        *why = missing;
        return text + len - 1;
    }
    return NULL;
}

/* Parses the text of a description (or a map) into *root, checked as JSON
 * and as one object.  @return 0 (free *root), or TL_E_JSON / TL_E_TYPE. */
static int parse_text(struct parser *pp, const char *text, size_t len, cJSON **root_out)
{
    struct parser p = *pp;
    const char *why = NULL;
    const char *end = prescan(&p, text, len, &why);
    if (end) {
        tl_fail(p.err, TL_E_JSON, NULL, "%s", why);
        line_col(text, end, &p.err->line, &p.err->col);
        return TL_E_JSON;
    }
    if (only_space(text, text + len)) {
        tl_fail(p.err, TL_E_JSON, NULL, "empty: no description in it");
        return TL_E_JSON;
    }
    long nul, deep;
    tl_json_scan(text, len, &nul, &deep, NULL);
    if (nul >= 0) {
        tl_fail(p.err, TL_E_JSON, NULL, "a string holds a NUL (\\u0000): no name or key may");
        line_col(text, text + nul, &p.err->line, &p.err->col);
        return TL_E_JSON;
    }
    cJSON *root = cJSON_ParseWithLengthOpts(text, len, &end, 0);
    const char *mistake = root ? NULL : diagnose(text, len, &why);
    if (mistake) {
        tl_fail(p.err, TL_E_JSON, NULL, "%s", why);
        line_col(text, mistake, &p.err->line, &p.err->col);
        return TL_E_JSON;
    }
    if (!root) {
        int line, col;
        if (!end || end < text || end > text + len)
            end = text + len;
        /* cJSON points at the last byte when the text ends too soon */
        bool at_end = end == text + len || only_space(end, text + len);
        line_col(text, end, &line, &col);
        tl_fail(p.err, TL_E_JSON, NULL, at_end ? "malformed JSON: unexpected end of text"
                                               : "malformed JSON");
        p.err->line = line;
        p.err->col = col;
        return TL_E_JSON;
    }
    while (end < text + len && isspace((unsigned char)*end))
        end++;
    int rc;
    if (end != text + len) {
        int line, col;
        line_col(text, end, &line, &col);
        rc = tl_fail(p.err, TL_E_JSON, NULL, "malformed JSON: unexpected text after the description");
        p.err->line = line;
        p.err->col = col;
    } else if (!cJSON_IsObject(root)) {
        rc = tl_fail(p.err, TL_E_TYPE, NULL, "a description must be a JSON object");
    } else {
        *pp = p;                     /* what the prescan noted */
        *root_out = root;
        return 0;
    }
    cJSON_Delete(root);
    return rc;
}

int tl_desc_parse_json(const char *text, size_t len, struct tl_desc *d, struct tl_error *err)
{
    struct tl_error dummy;
    struct parser p = { .prefix = "", .err = err ? err : &dummy };
    cJSON *root = NULL;
    int rc = parse_text(&p, text, len, &root);
    if (rc == 0) {
        const cJSON *c = root->child;
        while (c && strcasecmp(c->string, "tensors") != 0)
            c = c->next;
        if (c)
            rc = tl_fail(p.err, TL_E_KEY, "tensors", "a buffer map of several tensors is "
                         "not one description");
        else
            rc = fill(&p, root, d);
    }
    cJSON_Delete(root);
    return rc;
}

/* One entry of a buffer map into row t. */
static int map_entry(const struct parser *map, const cJSON *e, int i, struct tl_file_tensor *t)
{
    char key[64];
    struct tl_error *err = map->err;
    struct parser p = { .prefix = "", .err = err, .big_literal = map->big_literal };
    snprintf(key, sizeof key, "tensors[%d]", i);
    if (!cJSON_IsObject(e))
        return tl_fail(err, TL_E_TYPE, key, "must be a description object with a \"name\"");
    for (const cJSON *c = e->child; c; c = c->next) {
        if (strcasecmp(c->string, "name") != 0)
            continue;
        if (p.name)
            return tl_fail(err, TL_E_KEY, key, "has two names");
        p.name = c;
    }
    snprintf(key, sizeof key, "tensors[%d].name", i);
    if (!p.name)
        return tl_fail(err, TL_E_KEY, key, "is missing: each tensor of a map is named");
    if (!cJSON_IsString(p.name) || !p.name->valuestring[0])
        return tl_fail(err, TL_E_TYPE, key, "must be a non-empty string");
    int rc = fill(&p, e, &t->desc);
    if (rc) {
        char full[160];
        snprintf(full, sizeof full, "tensors[%d].%.120s", i, err->key);
        tl_error_key(err, full);
        return rc;
    }
    if (!(t->name = strdup(p.name->valuestring)))
        return tl_fail(err, TL_E_NOMEM, NULL, "out of memory");
    struct tl_info info;
    tl_desc_classify(&t->desc, &info);
    t->begin = tl_desc_origin(&t->desc);
    t->end = t->begin + tl_desc_extent(&t->desc, &info);
    snprintf(t->dtype, sizeof t->dtype, "%s", tl_dtype_name(t->desc.dtype));
    t->decodable = true;
    t->order = (size_t)i;
    return 0;
}

int tl_desc_table_parse_json(const char *text, size_t len, struct tl_file *f,
                             struct tl_error *err)
{
    struct tl_error dummy;
    struct parser p = { .prefix = "", .err = err ? err : &dummy };
    memset(f, 0, sizeof *f);
    f->format = TL_FMT_JSON;
    cJSON *root = NULL;
    int rc = parse_text(&p, text, len, &root);
    if (rc)
        return rc;
    const cJSON *list = NULL;
    for (const cJSON *c = root->child; c; c = c->next) {
        if (strcasecmp(c->string, "tensors") == 0)
            list = c;
    }
    if (!list) {                     /* one description */
        f->tensors = calloc(1, sizeof *f->tensors);
        if (!f->tensors)
            rc = tl_fail(p.err, TL_E_NOMEM, NULL, "out of memory");
        else if ((rc = fill(&p, root, &f->tensors[0].desc)) == 0) {
            struct tl_file_tensor *t = &f->tensors[0];
            struct tl_info info;
            tl_desc_classify(&t->desc, &info);
            t->begin = tl_desc_origin(&t->desc);
            t->end = info.elements_bytes;        /* a lone tensor: its elements' bytes */
            snprintf(t->dtype, sizeof t->dtype, "%s", tl_dtype_name(t->desc.dtype));
            t->decodable = true;
            f->count = 1;
        }
        goto out;
    }
    for (const cJSON *c = root->child; c; c = c->next) {
        if (c != list) {
            char q[40];
            rc = tl_fail(p.err, TL_E_KEY, tl_quote(c->string, q, sizeof q),
                         "unknown key beside \"tensors\" (a map holds only its tensors)");
            goto out;
        }
    }
    int n = cJSON_IsArray(list) ? cJSON_GetArraySize(list) : 0;
    if (!cJSON_IsArray(list) || n == 0) {
        rc = tl_fail(p.err, TL_E_TYPE, "tensors", "must be a non-empty array of descriptions");
        goto out;
    }
    f->named = f->gaps_ok = true;
    f->tensors = calloc((size_t)n, sizeof *f->tensors);
    if (!f->tensors) {
        rc = tl_fail(p.err, TL_E_NOMEM, NULL, "out of memory");
        goto out;
    }
    int i = 0;
    for (const cJSON *e = list->child; e; e = e->next, i++) {
        if ((rc = map_entry(&p, e, i, &f->tensors[i])))
            goto out;
        f->count++;
        for (int j = 0; j < i; j++) {
            if (strcmp(f->tensors[j].name, f->tensors[i].name) == 0) {
                char key[40], q[64];
                snprintf(key, sizeof key, "tensors[%d].name", i);
                rc = tl_fail(p.err, TL_E_KEY, key, "'%s' is also the name of tensors[%d]",
                             tl_quote(f->tensors[i].name, q, sizeof q), j);
                goto out;
            }
        }
    }
    if (tl_file_order(f, TL_NO_DATA))
        rc = tl_fail(p.err, TL_E_NOMEM, NULL, "out of memory");
out:
    cJSON_Delete(root);
    if (rc)
        tl_file_free(f);
    return rc;
}

/* ---- output ------------------------------------------------------------- */

bool tl_json_add_u64(cJSON *obj, const char *key, uint64_t v)
{
    char buf[24];
    snprintf(buf, sizeof buf, "%" PRIu64, v);
    return cJSON_AddRawToObject(obj, key, buf) != NULL;
}

bool tl_json_add_u64_array(cJSON *obj, const char *key, const uint64_t *v, size_t n)
{
    cJSON *a = cJSON_AddArrayToObject(obj, key);
    if (!a)
        return false;
    for (size_t i = 0; i < n; i++) {
        char buf[24];
        snprintf(buf, sizeof buf, "%" PRIu64, v[i]);
        cJSON *item = cJSON_CreateRaw(buf);
        if (!item)
            return false;
        cJSON_AddItemToArray(a, item);
    }
    return true;
}

/* Strides above 2^53 cannot be read back, so a description whose strides
 * are packed for an axis order (with broadcast axes) is written as that
 * order instead.  @return true when order[] and *mask say so. */
static bool as_layout(const struct tl_desc *d, unsigned *order, unsigned *mask)
{
    bool big = false;
    for (unsigned i = 0; i < d->rank; i++)
        big |= d->strides[i] > (uint64_t)TL_MAX_JSON_INT;
    if (!big)
        return false;
    uint64_t again[TL_MAX_RANK];
    tl_axis_order(d->rank, d->sizes, d->strides, order);
    *mask = 0;
    for (unsigned i = 0; i < d->rank; i++) {
        if (d->strides[i] == 0)
            *mask |= 1u << i;
    }
    return tl_strides_for_order(d->rank, d->sizes, order, *mask, again, NULL) == 0 &&
           memcmp(again, d->strides, d->rank * sizeof again[0]) == 0;
}

cJSON *tl_desc_to_json(const struct tl_desc *d)
{
    cJSON *o = cJSON_CreateObject();
    unsigned order[TL_MAX_RANK], mask;
    bool ok = o && cJSON_AddStringToObject(o, "dataType", tl_dtype_name(d->dtype)) &&
              tl_json_add_u64_array(o, "sizes", d->sizes, d->rank);
    if (ok && as_layout(d, order, &mask)) {
        uint64_t o64[TL_MAX_RANK] = { 0 }, axes[TL_MAX_RANK] = { 0 };
        size_t nb = 0;
        for (unsigned i = 0; i < d->rank; i++) {
            o64[i] = order[i];
            if (mask & (1u << i))
                axes[nb++] = i;
        }
        ok = tl_json_add_u64_array(o, "layout", o64, d->rank) &&
             (nb == 0 || tl_json_add_u64_array(o, "broadcast", axes, nb));
    } else if (ok) {
        ok = tl_json_add_u64_array(o, "strides", d->strides, d->rank);
    }
    if (ok && d->total_given)
        ok = tl_json_add_u64(o, "totalTensorSizeInBytes", d->total_bytes);
    if (ok && d->alignment)
        ok = tl_json_add_u64(o, "guaranteedBaseOffsetAlignment", d->alignment);
    if (ok && d->flags)
        ok = cJSON_AddStringToObject(o, "flags", "OWNED_BY_DML") != NULL;
    if (ok && d->byte_offset)
        ok = tl_json_add_u64(o, "byteOffset", d->byte_offset);
    if (ok && d->file_offset)
        ok = tl_json_add_u64(o, "fileOffset", d->file_offset);
    if (!ok) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

/* JSON text is what a file no other format claims is taken for: its
 * parser (tl_desc_table_parse_json) says what is wrong with it. */
static unsigned json_bid(const uint8_t *head, size_t n)
{
    (void)head;
    (void)n;
    return TL_BID_FALLBACK;
}

const struct tl_format_entry tl_format_json = {
    .id = TL_FMT_JSON, .name = "json", .label = "a JSON description or buffer map",
    .title = "a JSON description", .endings = ".json", .bid = json_bid,
    .spelling = TL_SPELL_NAME,
};

void tl_json_scan(const char *text, size_t n, long *nul_at, long *deep_at, size_t *keys)
{
    bool in_string = false;
    long depth = 0;
    *nul_at = *deep_at = -1;
    if (keys)
        *keys = 0;
    for (size_t i = 0; i < n && (keys || *nul_at < 0 || *deep_at < 0); i++) {
        char c = text[i];
        if (in_string) {
            if (c == '\\' && i + 1 < n) {
                if (text[i + 1] == 'u' && i + 5 < n && strncmp(text + i + 2, "0000", 4) == 0 &&
                    *nul_at < 0)
                    *nul_at = (long)i;
                i++;                    /* the escaped character */
            } else if (c == '"') {
                in_string = false;
            }
        } else if (c == '"') {
            in_string = true;
        } else if (c == '[' || c == '{') {
            if (++depth > CJSON_NESTING_LIMIT && *deep_at < 0)
                *deep_at = (long)i;
        } else if (c == ']' || c == '}') {
            depth--;
        } else if (c == ':' && depth == 1 && keys) {
            (*keys)++;
        }
    }
}
