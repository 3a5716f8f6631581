/*
 * whole.c - a whole file's conversion planned (SPEC 9, 19): the rules
 * (--to a rank, --to-type, --select and --exclude, the output's format)
 * applied to every tensor of a file once, each becoming an item: what it
 * is written as (its destination description and bytes), whether a rule
 * changed it, and which rules changed anything.  The writers then write
 * the items (whole_write.c).  What a file's conversion leaves out or
 * writes in place of its rows: tl_whole_scan, tl_whole_view.
 */
#include <fnmatch.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tl.h"

/* Whether name matches one of the globs, noting each that does. */
static bool matches(const char *const *globs, int n, const char *name, bool *used)
{
    bool any = false;
    for (int i = 0; i < n; i++) {
        if (fnmatch(globs[i], name, 0) == 0) {
            used[i] = true;
            any = true;
        }
    }
    return any;
}



/* A tensor written from a view may take at most this many times the bytes
 * it reads, plus the slack, unless --allow-expand (decoding the densest
 * block types into FLOAT64 is about 41 times). */
#define EXPAND_TIMES 64
#define EXPAND_SLACK (UINT64_C(64) << 20)

int tl_whole_plan(const struct tl_whole_rules *w, const struct tl_file *f,
                  struct tl_whole_item *it, const enum tl_dtype *to_type, struct tl_rule_use *u,
                  struct tl_error *err)
{
    for (size_t i = 0; i < f->count; i++) {
        const struct tl_file_tensor *t = &f->tensors[i];
        const struct tl_desc *s = &t->desc;
        struct tl_info info;
        unsigned order[TL_MAX_RANK];
        bool chosen = (w->nselect == 0 || matches(w->select, w->nselect, t->name, u->sel)) &&
                      !matches(w->exclude, w->nexclude, t->name, u->exc);
        it[i].written = (w->nonly == 0 || matches(w->only, w->nonly, t->name, u->only)) &&
                        !matches(w->drop, w->ndrop, t->name, u->drop);
        it[i].t = t;
        it[i].chosen = chosen;
        it[i].pair = w->pair_of ? w->pair_of[i] : NULL;
        if (!t->decodable) {            /* carried byte for byte */
            it[i].bytes = t->encoding != TL_ENC_PLAIN ? t->decoded_bytes : t->end - t->begin;
            /* only when its bytes are what its type and shape say (an
             * .npz member carries its .npy header too) */
            enum tl_dtype kt;
            uint64_t count = 1, want;
            for (unsigned k = 0; k < t->ndim && count; k++)
                count = t->shape[k] <= UINT64_MAX / count ? count * t->shape[k] : 0;
            if (f->format != TL_FMT_NPZ && !t->leaf &&
                tl_format_dtype(f->format, t->dtype, &kt) == 0 &&
                (want = tl_dtype_bytes(kt, count)) != it[i].bytes) {
                char q[64];
                return tl_fail(err, TL_E_VALUE, NULL, "tensor '%s' holds %" PRIu64 " bytes where "
                               "its type and shape say %" PRIu64 ": not carried",
                               tl_quote(t->name, q, sizeof q), it[i].bytes, want);
            }
            /* but an empty tensor's type follows --to-type like the others'
             * (SPEC 19), into safetensors, whose header alone says it */
            enum tl_dtype dt;
            bool empty = false;
            for (unsigned k = 0; k < t->ndim; k++)
                empty |= t->shape[k] == 0;
            if (empty && chosen && to_type && w->into == TL_FMT_SAFETENSORS &&
                tl_format_dtype(f->format, t->dtype, &dt) == 0 && tl_dtype_is_float(dt) &&
                dt != *to_type) {
                it[i].retyped = it[i].type = true;
                it[i].dst.dtype = *to_type;
                it[i].bytes = 0;
                u->type = true;
            }
            continue;
        }
        tl_desc_classify(s, &info);
        it[i].dst = *s;
        it[i].dst.file_offset = it[i].dst.byte_offset = 0;
        int which = -1;                 /* the --to of this tensor's rank */
        for (int k = 0; chosen && k < w->nto && which < 0; k++)
            if (tl_layout_parse(s->rank, w->to[k], order, NULL) == 0)
                which = k;
        it[i].layout = which >= 0;
        it[i].type = chosen && to_type && tl_dtype_is_float(s->dtype) && s->dtype != *to_type;
        u->type |= it[i].pair != NULL;     /* a scaled weight decoded: a change */
        /* the source's memory order, packed, unless --to reorders it; a
         * tensor file's array into safetensors, which has no order flag,
         * in C order, so that numpy sees the same shape (SPEC 19); and
         * into an .npz from any tensor file but an .npz (whose Fortran
         * arrays stay Fortran's): a transposed PyTorch view too */
        if (!it[i].layout && f->format != TL_FMT_JSON &&
            (w->into == TL_FMT_SAFETENSORS || f->format != TL_FMT_NPZ)) {
            for (unsigned k = 0; k < s->rank; k++)
                order[k] = k;
        } else if (!it[i].layout) {
            memcpy(order, info.axis_order, sizeof order);
        }
        tl_strides_for_order(s->rank, s->sizes, order, 0, it[i].dst.strides, NULL);
        if (it[i].type)
            it[i].dst.dtype = *to_type;
        struct tl_error verr = { 0 };
        uint64_t bits = tl_dtype_bits(it[i].dst.dtype);
        if (tl_desc_validate(&it[i].dst, &verr) ||
            info.element_count > (uint64_t)INT64_MAX / (bits >= 8 ? bits / 8 : 1)) {
            char q[64];
            return tl_fail(err, TL_E_RANGE, NULL, "tensor '%s': its %" PRIu64 " elements of %s "
                           "need more bytes than any file holds", tl_quote(t->name, q, sizeof q),
                           info.element_count, tl_dtype_name(it[i].dst.dtype));
        }
        it[i].bytes = tl_dtype_bytes(it[i].dst.dtype, info.element_count);
        /* a view spreading a few stored bytes over many (a broadcast, a
         * stride of 0) writes them all only when asked (SPEC 9) */
        uint64_t read = t->encoding == TL_ENC_PLAIN ? t->end - t->begin : t->decoded_bytes;
        if (!w->allow_expand && it[i].bytes > EXPAND_SLACK &&
            it[i].bytes - EXPAND_SLACK > EXPAND_TIMES * read) {
            char q[64];
            return tl_fail(err, TL_E_RANGE, NULL, "tensor '%s' would write %" PRIu64 " bytes "
                           "from the %" PRIu64 " it holds (a broadcast view): more than %d times "
                           "as many and 64 MiB needs --allow-expand",
                           tl_quote(t->name, q, sizeof q), it[i].bytes, read, EXPAND_TIMES);
        }
        /* a layout it already has is no change (a map's padded or offset
         * buffer still comes out packed, as every tensor does) */
        it[i].layout = it[i].layout &&
                       memcmp(it[i].dst.strides, s->strides, s->rank * sizeof s->strides[0]) != 0;
        u->layout |= it[i].layout;
        if (it[i].layout)
            u->to[which] = true;
        u->type |= it[i].type;
    }
    return 0;
}

/* The types the type table lacks that both safetensors and .npy have (SPEC
 * 19: they cross as they are): C64 is numpy's complex64, '<c8'. */
static const struct { const char *st, *npy; } crossing[] = { { "C64", "<c8" } };

static const char *safetensors_npy(const char *st)
{
    for (size_t i = 0; i < sizeof crossing / sizeof crossing[0]; i++)
        if (strcmp(st, crossing[i].st) == 0)
            return crossing[i].npy;
    return NULL;
}

static const char *npy_safetensors(const char *descr)
{
    for (size_t i = 0; i < sizeof crossing / sizeof crossing[0]; i++)
        if (strcmp(descr, crossing[i].npy) == 0)
            return crossing[i].st;
    return NULL;
}

/* The other format's spelling of a type carried as it is (SPEC 19: types
 * both formats have cross): the crossing table's (C64, '<c8'), or the type
 * table's for a type it has (an empty tensor's); NULL when none. */
const char *tl_whole_carried_as(const struct tl_file_tensor *t, enum tl_format from, bool to_npy)
{
    const char *x = to_npy ? safetensors_npy(t->dtype) : npy_safetensors(t->dtype);
    enum tl_dtype dt;
    if (!x && tl_format_dtype(from, t->dtype, &dt) == 0)
        x = to_npy ? tl_dtype_info(dt)->npy : tl_dtype_info(dt)->st;
    return x;
}

/* The shape an item is written with: its sizes in memory order, or as the
 * file had it for a tensor carried as it is; @return the rank. */
unsigned tl_whole_item_shape(const struct tl_whole_item *x, uint64_t *shape)
{
    if (!x->t->decodable) {
        memcpy(shape, x->t->shape, x->t->ndim * sizeof shape[0]);
        return x->t->ndim;
    }
    struct tl_info info;
    tl_desc_classify(&x->dst, &info);
    for (unsigned k = 0; k < x->dst.rank; k++)
        shape[k] = x->dst.sizes[info.axis_order[k]];
    return x->t->scalar ? 0 : x->dst.rank;       /* 0-d stays [] */
}

/* ---- what a conversion writes of a file (SPEC 17, 18) ------------------- */

static int by_key(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

int tl_whole_scan(const struct tl_file *f, struct tl_whole_scan *s)
{
    memset(s, 0, sizeof *s);
    const char **keys = malloc((f->count ? f->count : 1) * sizeof *keys);
    size_t nkeys = 0;
    if (!keys)
        return TL_E_NOMEM;
    for (size_t i = 0; i < f->count; i++) {
        const struct tl_file_tensor *t = &f->tensors[i];
        if (t->undecoded) {
            if (s->undecoded < TL_WHOLE_NAMED)
                s->undecoded_row[s->undecoded] = i;
            s->undecoded++;
        } else if (t->leaf) {
            if (s->leaves < TL_WHOLE_NAMED)
                s->leaf_row[s->leaves] = i;
            s->leaves++;
        } else if (t->storage[0]) {
            keys[nkeys++] = t->storage;
        }
    }
    qsort(keys, nkeys, sizeof *keys, by_key);
    for (size_t k = 1; k < nkeys && !s->shared; k++)
        s->shared = strcmp(keys[k - 1], keys[k]) == 0;
    free(keys);
    return 0;
}

void tl_whole_view_free(struct tl_whole_view *v)
{
    for (size_t k = 0; v->made && k < v->nmade; k++)
        free(v->made[k]);
    free(v->made);
    free(v->pair_of);
    free(v->kept);
    memset(v, 0, sizeof *v);
}

int tl_whole_view(const struct tl_file *f, const struct tl_scaled *pairs, size_t npairs,
                  struct tl_whole_view *v)
{
    size_t n = f->count ? f->count : 1;
    memset(v, 0, sizeof *v);
    v->file = *f;
    v->file.count = 0;
    v->file.problems = NULL;
    v->file.nproblems = 0;
    v->kept = malloc(n * sizeof *v->kept);
    v->pair_of = calloc(n, sizeof *v->pair_of);
    v->made = calloc(npairs ? npairs : 1, sizeof *v->made);
    const struct tl_scaled **weight_of = NULL;
    bool *scale = NULL;
    if (!v->kept || !v->pair_of || !v->made ||
        tl_scaled_roles(f->count, pairs, npairs, &weight_of, &scale)) {
        tl_whole_view_free(v);
        return TL_E_NOMEM;
    }
    int rc = 0;
    for (size_t i = 0; i < f->count && rc == 0; i++) {
        const struct tl_file_tensor *t = &f->tensors[i];
        const struct tl_scaled *p = weight_of[i];
        if (t->leaf || scale[i])
            continue;                   /* not written: values, and scales decoded */
        struct tl_file_tensor *r = &v->kept[v->file.count];
        *r = *t;
        if (p) {                        /* the weight, decoded: FLOAT32 of W's sizes */
            unsigned rank;
            uint64_t sizes[TL_MAX_RANK];
            tl_scaled_shape(f, p, &rank, sizes);
            if (!(v->made[v->nmade] = strdup(p->name))) {
                rc = TL_E_NOMEM;
                break;
            }
            r->name = v->made[v->nmade++];
            r->ndim = rank;
            memcpy(r->shape, sizes, rank * sizeof sizes[0]);
            r->scalar = false;
            r->decodable = tl_desc_init(&r->desc, TL_DT_FLOAT32, rank, sizes, NULL) == 0;
            r->encoding = TL_ENC_PLAIN;
        }
        v->pair_of[v->file.count++] = p;
    }
    v->file.tensors = v->kept;
    free(weight_of);
    free(scale);
    if (rc)
        tl_whole_view_free(v);
    return rc;
}
