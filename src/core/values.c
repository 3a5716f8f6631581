/*
 * values.c - one streaming reader of a tensor's decoded bytes (tl_io.h,
 * SPEC 22): a plain tensor's bytes in place; ggml blocks decoded a window
 * at a time, only the blocks that hold what is asked for (in any order:
 * each block decodes alone); a deflated member inflated once into the
 * caller's scratch room (a deflate stream does not decode from its
 * middle); a scaled pair or a group-quantized weight (SPEC 18, 21)
 * decoded to FLOAT32 a window at a time, from any value on.  Commands read
 * encoded tensors through it and compare them a slab of rows at a time, so
 * memory stays a window, not the tensor.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "tl_compare.h"
#include "tl_io.h"

/* Decoded bytes of ggml blocks held at once: the blocks of a few rows. */
#define WINDOW (256u << 10)

struct tl_values {
    struct tl_input in;
    struct tl_file_tensor t;
    const struct tl_ggml_type *gt;      /* ggml blocks decoded by window, or NULL */
    bool plain;
    struct tl_scratch whole;            /* a member inflated whole (!plain && !gt && !pf) */
    struct tl_file *pf;                 /* a scaled pair's file (owned), or NULL */
    struct tl_scaled pair;
    struct tl_scaled_cache *cache;
    uint8_t *win;                       /* decoded bytes [lo, hi) */
    uint64_t lo, hi;
    size_t cap;
};

int tl_values_open(const struct tl_input *in, const struct tl_file_tensor *t,
                   struct tl_values **out, struct tl_error *err)
{
    struct tl_values *v = calloc(1, sizeof *v);
    struct tl_file_tensor part;
    *out = NULL;
    if (!v)
        return tl_fail(err, TL_E_NOMEM, NULL, "out of memory");
    v->in = *in;
    v->t = *t;
    v->plain = t->encoding == TL_ENC_PLAIN;
    if (!v->plain && t->stored_bytes && t->stored_at <= in->size &&
        t->stored_bytes <= in->size - t->stored_at && tl_file_piece(t, 0, 1, &part))
        v->gt = tl_ggml_type(t->ggml_type);
    int rc = v->plain || v->gt ? 0 : tl_input_inflate(in, t, &v->whole, err);
    if (rc) {
        free(v);
        return rc;
    }
    *out = v;
    return 0;
}

int tl_values_open_scaled(const struct tl_input *in, struct tl_file *f,
                          const struct tl_scaled *p, struct tl_values **out, struct tl_error *err)
{
    struct tl_values *v = calloc(1, sizeof *v);
    struct tl_file *pf = malloc(sizeof *pf);
    *out = NULL;
    if (!v || !pf) {
        free(v);
        free(pf);
        return tl_fail(err, TL_E_NOMEM, NULL, "out of memory");
    }
    unsigned rank;
    uint64_t sizes[TL_MAX_RANK], count = 1;
    tl_scaled_shape(f, p, &rank, sizes);
    for (unsigned k = 0; k < rank; k++)
        count *= sizes[k];
    v->in = *in;
    v->pair = *p;
    v->t.decoded_bytes = count * 4;
    *pf = *f;                           /* f's rows move into the reader */
    memset(f, 0, sizeof *f);
    v->pf = pf;
    *out = v;
    return 0;
}

void tl_values_close(struct tl_values *v)
{
    if (!v)
        return;
    if (v->pf) {
        tl_scaled_cache_free(v->cache);
        tl_file_free(v->pf);
        free(v->pf);
    }
    tl_input_inflated_free(&v->in, &v->whole);
    free(v->win);
    free(v);
}

uint64_t tl_values_size(const struct tl_values *v)
{
    return v->plain ? v->in.size : v->t.decoded_bytes;
}

/* Room for len bytes of window. */
static int window_room(struct tl_values *v, size_t len, struct tl_error *err)
{
    if (len <= v->cap)
        return 0;
    uint8_t *p = realloc(v->win, len);
    if (!p)
        return tl_fail(err, TL_E_NOMEM, NULL, "out of memory");
    v->win = p;
    v->cap = len;
    return 0;
}

/* Decodes the pair's FLOAT32 values that hold bytes [at, at + n) and those
 * after them, a window's worth, into v->win. */
static int decode_scaled(struct tl_values *v, uint64_t at, uint64_t n, struct tl_error *err)
{
    uint64_t total = v->t.decoded_bytes / 4, first = at / 4;
    uint64_t want = ((at + n + 3) / 4 - first) > WINDOW / 4 ? (at + n + 3) / 4 - first : WINDOW / 4;
    if (want > total - first)
        want = total - first;
    if (want * 4 > SIZE_MAX)
        return tl_fail(err, TL_E_NOMEM, NULL, "out of memory");
    int rc = window_room(v, (size_t)(want * 4), err);
    v->lo = v->hi = 0;
    if (rc)
        return rc;
    rc = tl_scaled_decode_as(v->in.bytes, v->pf, &v->pair, first, want, TL_DT_FLOAT32, v->win,
                             &v->cache);
    if (rc == TL_E_NOMEM)
        return tl_fail(err, rc, NULL, "out of memory");
    if (rc)
        return tl_fail(err, rc, "data", "'%s' cannot be decoded (its tensors are not stored "
                       "plain)", v->pair.name);
    v->lo = first * 4;
    v->hi = v->lo + want * 4;
    return 0;
}

/* Decodes the blocks that hold decoded bytes [at, at + n) and those after
 * them, a window's worth, into v->win. */
static int decode_window(struct tl_values *v, uint64_t at, uint64_t n, struct tl_error *err)
{
    uint64_t db = (uint64_t)v->gt->block * 4, total = v->t.decoded_bytes / db;
    uint64_t b0 = at / db, b1 = (at + n + db - 1) / db, want = WINDOW / db;
    if (want < b1 - b0)
        want = b1 - b0;
    if (want > total - b0)
        want = total - b0;
    if (want * db > SIZE_MAX)
        return tl_fail(err, TL_E_NOMEM, NULL, "out of memory");
    size_t len = (size_t)(want * db);
    if (window_room(v, len, err))
        return TL_E_NOMEM;
    struct tl_file_tensor part;
    uint64_t from = b0 * v->gt->bytes, stored = tl_file_piece(&v->t, from, want * v->gt->bytes,
                                                               &part);
    struct tl_fill f = { v->win, 0, len, false };
    int rc = stored ? tl_file_decode(v->in.bytes + v->t.stored_at + from, stored, &part,
                                     tl_put_fill, &f, err)
                    : tl_fail(err, TL_E_VALUE, "data", "its blocks do not cut into pieces");
    v->lo = v->hi = 0;
    if (rc == TL_PUT_FULL || (rc == 0 && f.at != len))
        rc = tl_fail(err, TL_E_VALUE, "data", "its blocks decode to another size than its "
                     "row says");
    if (rc == 0) {
        v->lo = b0 * db;
        v->hi = v->lo + len;
    }
    return rc;
}

const uint8_t *tl_values_at(struct tl_values *v, uint64_t at, uint64_t n, struct tl_error *err)
{
    uint64_t size = tl_values_size(v);
    if (at > size || n > size - at) {
        tl_fail(err, TL_E_RANGE, "data", "bytes %llu..%llu lie past the tensor's %llu",
                (unsigned long long)at, (unsigned long long)(at + n), (unsigned long long)size);
        return NULL;
    }
    static const uint8_t none[1];
    if (v->plain)
        return v->in.bytes + at;
    if (!v->gt && !v->pf)
        return v->whole.bytes + at;
    if (n == 0)
        return none;                    /* nothing to decode, and no window yet */
    if (at < v->lo || at + n > v->hi) {
        if (v->pf ? decode_scaled(v, at, n, err) : decode_window(v, at, n, err))
            return NULL;
    }
    return v->win + (at - v->lo);
}

/* ---- comparing, a slab of rows at a time ---------------------------------- */

/* The rows [i0, i1) of d's first axis, as a description of their own
 * over the bytes at *p: d's bytes in place (file), or the reader's (v). */
static int rows_of(const struct tl_desc *d, const uint8_t *file, struct tl_values *v,
                   uint64_t i0, uint64_t i1, struct tl_desc *sub, const uint8_t **p,
                   struct tl_error *err)
{
    unsigned bits = tl_dtype_bits(d->dtype);
    *sub = *d;
    sub->sizes[0] = i1 - i0;
    sub->total_given = false;
    if (!v) {
        sub->byte_offset += i0 * d->strides[0] * bits / 8;
        *p = file;
        return tl_desc_validate(sub, err);
    }
    /* the reader's window holds the slab's span, from its first byte */
    sub->file_offset = sub->byte_offset = 0;
    int rc = tl_desc_validate(sub, err);
    if (rc)
        return rc;
    struct tl_info info;
    tl_desc_classify(sub, &info);
    uint64_t at = tl_desc_origin(d) + i0 * d->strides[0] * bits / 8;
    *p = tl_values_at(v, at, tl_dtype_bytes(d->dtype, info.span), err);
    return *p ? 0 : err ? err->code : TL_E_VALUE;
}

/* Adds slab result s, whose first element is linear index base, to r. */
static int add_result(struct tl_compare_result *r, const struct tl_compare_result *s,
                      uint64_t base, size_t show)
{
    r->element_count += s->element_count;
    r->mismatches += s->mismatches;
    r->int_diff = s->int_diff;
    if (s->have_abs && (!r->have_abs || s->max_abs > r->max_abs)) {
        r->max_abs = s->max_abs;
        r->max_abs_index = s->max_abs_index + base;
    }
    if (s->have_rel && (!r->have_rel || s->max_rel > r->max_rel)) {
        r->max_rel = s->max_rel;
        r->max_rel_index = s->max_rel_index + base;
    }
    r->have_abs |= s->have_abs;
    r->have_rel |= s->have_rel;
    for (size_t k = 0; k < s->nfirst && r->nfirst < show; k++) {
        if (!r->first && !(r->first = calloc(show, sizeof *r->first)))
            return TL_E_NOMEM;
        r->first[r->nfirst] = s->first[k];
        r->first[r->nfirst++].index += base;
    }
    return 0;
}

int tl_compare_values(const struct tl_desc *a, const uint8_t *a_file, struct tl_values *av,
                      const struct tl_desc *b, const uint8_t *b_file, struct tl_values *bv,
                      const struct tl_compare_opts *o, struct tl_compare_result *r,
                      struct tl_error *err)
{
    struct tl_info ia;
    tl_desc_classify(a, &ia);
    if (!av && !bv)
        return tl_compare(a, a_file, b, b_file, o, r, err);
    if (a->rank != b->rank || memcmp(a->sizes, b->sizes, a->rank * sizeof a->sizes[0]))
        return tl_fail(err, TL_E_MISMATCH, NULL, "the sizes differ");
    memset(r, 0, sizeof *r);
    uint64_t inner = a->sizes[0] ? ia.element_count / a->sizes[0] : 0;
    uint64_t rows = inner ? (WINDOW / 4 + inner - 1) / inner : 1;
    /* a slab of a 4-bit side starts on a whole byte */
    if (rows & 1 && ((tl_dtype_bits(a->dtype) == 4 && a->strides[0] & 1) ||
                     (tl_dtype_bits(b->dtype) == 4 && b->strides[0] & 1)))
        rows++;
    int rc = 0;
    for (uint64_t i0 = 0; rc == 0 && i0 < a->sizes[0]; i0 += rows) {
        uint64_t i1 = a->sizes[0] - i0 < rows ? a->sizes[0] : i0 + rows;
        struct tl_desc sa, sb;
        const uint8_t *pa, *pb;
        struct tl_compare_result s;
        if ((rc = rows_of(a, a_file, av, i0, i1, &sa, &pa, err)) ||
            (rc = rows_of(b, b_file, bv, i0, i1, &sb, &pb, err)) ||
            (rc = tl_compare(&sa, pa, &sb, pb, o, &s, err)))
            break;
        rc = add_result(r, &s, i0 * inner, o->show);
        tl_compare_free(&s);
        if (rc)
            rc = tl_fail(err, TL_E_NOMEM, NULL, "out of memory");
    }
    if (rc)
        tl_compare_free(r);
    return rc;
}
