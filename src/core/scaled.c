/*
 * scaled.c - tensors stored with scales beside them (SPEC 18), found by
 * their companions' names in a file's tensor table:
 *
 *   DeepSeek's block FP8: W, FLOAT8E4M3 [O, I], beside W_scale_inv, FLOAT32
 *     [ceil(O/128), ceil(I/128)]: each 128 x 128 block of W times its scale.
 *   gpt-oss's MXFP4: W_blocks, UINT8 [..., G, 16], 32 FP4 E2M1 values a
 *     block two a byte (low nibble first), beside W_scales, UINT8 [..., G],
 *     E8M0 exponents: each value times 2^(scale - 127); W is [..., G * 32].
 *
 * A pair whose companion has the wrong type or shape is an error naming
 * it.  The values are decoded by the copy core (tl_scaled_decode in
 * src/copy/decode.c), with its kernels.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "tl.h"

/* The row of f named base + suffix, found in the table's name index. */
static const struct tl_file_tensor *named(const struct tl_file *f, const struct tl_name_index *ix,
                                          const char *base, const char *suffix)
{
    char name[512];
    if (snprintf(name, sizeof name, "%s%s", base, suffix) >= (int)sizeof name)
        return NULL;
    const char *const *field = tl_name_find(ix, name);
    return field ? &f->tensors[((const char *)field - (const char *)&f->tensors[0].name) /
                               sizeof f->tensors[0]] : NULL;
}

bool tl_scaled_part_name(const char *name)
{
    static const char *const parts[] = { "_scale_inv", "_scales", "_blocks", ".qweight",
                                         ".qzeros", ".scales", ".g_idx", ".weight_packed",
                                         ".weight_scale", ".weight_zero_point",
                                         ".weight_shape" };
    for (size_t e = 0; e < sizeof parts / sizeof parts[0]; e++)
        if (tl_name_ends(name, parts[e], NULL))
            return true;
    return false;
}

int tl_scaled_find(const struct tl_file *f, struct tl_scaled **out, size_t *n,
                   struct tl_error *err)
{
    *out = NULL;
    *n = 0;
    struct tl_scaled *p = calloc(f->count ? f->count : 1, sizeof *p);
    struct tl_name_index ix;
    if (!p || tl_name_index(&ix, f->count ? &f->tensors[0].name : NULL, f->count,
                            sizeof f->tensors[0])) {
        free(p);
        return tl_fail(err, TL_E_NOMEM, NULL, "out of memory");
    }
    char key[600], q[256];
    for (size_t i = 0; i < f->count; i++) {
        const struct tl_file_tensor *t = &f->tensors[i];
        size_t stem;
        if (!t->name)
            continue;
        if (tl_name_ends(t->name, "_scale_inv", &stem)) {                /* DeepSeek FP8 */
            char base[512];
            snprintf(base, sizeof base, "%.*s", (int)stem, t->name);
            const struct tl_file_tensor *w = named(f, &ix, base, "");
            snprintf(key, sizeof key, "tensor '%s'", tl_quote(t->name, q, sizeof q));
            if (!w)
                continue;                   /* a scale of nothing here: left as it is */
            if (!w->decodable || w->desc.dtype != TL_DT_FLOAT8E4M3 || w->ndim != 2 ||
                !t->decodable || t->desc.dtype != TL_DT_FLOAT32 || t->ndim != 2 ||
                t->shape[0] != (w->shape[0] + 127) / 128 || t->shape[1] != (w->shape[1] + 127) / 128) {
                int rc = tl_fail(err, TL_E_VALUE, key, "is not the block scales of '%s': a "
                                 "FLOAT8E4M3 [O, I] weight takes FLOAT32 [ceil(O/128), "
                                 "ceil(I/128)] scales", base);
                free(p);
                tl_name_index_free(&ix);
                return rc;
            }
            memset(p[*n].extra, 0xff, sizeof p[*n].extra);
            p[*n].kind = TL_SCALED_FP8_BLOCK;
            p[*n].weight = (size_t)(w - f->tensors);
            p[*n].scale = i;
            snprintf(p[*n].name, sizeof p[*n].name, "%s", base);
            (*n)++;
        } else if (tl_name_ends(t->name, "_blocks", &stem)) {           /* gpt-oss MXFP4 */
            char base[512];
            snprintf(base, sizeof base, "%.*s", (int)stem, t->name);
            const struct tl_file_tensor *s = named(f, &ix, base, "_scales");
            snprintf(key, sizeof key, "tensor '%s'", tl_quote(t->name, q, sizeof q));
            if (!s)
                continue;
            bool ok = t->decodable && t->desc.dtype == TL_DT_UINT8 && t->ndim >= 2 &&
                      t->shape[t->ndim - 1] == 16 && s->decodable &&
                      s->desc.dtype == TL_DT_UINT8 && s->ndim == t->ndim - 1 &&
                      t->ndim <= TL_MAX_RANK;
            for (unsigned k = 0; ok && k + 1 < t->ndim; k++)
                ok = s->shape[k] == t->shape[k];
            if (!ok) {
                int rc = tl_fail(err, TL_E_VALUE, key, "and '%s_scales' are not an MXFP4 pair: "
                                 "UINT8 [..., G, 16] blocks take UINT8 [..., G] scales", base);
                free(p);
                tl_name_index_free(&ix);
                return rc;
            }
            memset(p[*n].extra, 0xff, sizeof p[*n].extra);
            p[*n].kind = TL_SCALED_MXFP4;
            p[*n].weight = i;
            p[*n].scale = (size_t)(s - f->tensors);
            snprintf(p[*n].name, sizeof p[*n].name, "%s", base);
            (*n)++;
        } else {                                                /* SPEC 21 */
            int rc = tl_grouped_find(f, &ix, i, &p[*n], err);
            if (rc == 0) {
                (*n)++;
            } else if (rc != 1) {
                free(p);
                tl_name_index_free(&ix);
                return rc;
            }
        }
    }
    tl_name_index_free(&ix);
    *out = p;
    return 0;
}

int tl_scaled_roles(size_t count, const struct tl_scaled *pairs, size_t n,
                    const struct tl_scaled ***weight_of, bool **scale)
{
    *weight_of = calloc(count ? count : 1, sizeof **weight_of);
    *scale = calloc(count ? count : 1, sizeof **scale);
    if (!*weight_of || !*scale) {
        free(*weight_of);
        free(*scale);
        return TL_E_NOMEM;
    }
    for (size_t k = 0; k < n; k++) {
        size_t rows[2 + TL_SCALED_EXTRA], m = tl_scaled_parts(&pairs[k], rows);
        (*weight_of)[pairs[k].weight] = &pairs[k];
        for (size_t j = 1; j < m; j++)  /* every part but the weight's own row */
            (*scale)[rows[j]] = true;
    }
    return 0;
}

void tl_scaled_shape(const struct tl_file *f, const struct tl_scaled *p, unsigned *rank,
                     uint64_t *sizes)
{
    const struct tl_file_tensor *w = &f->tensors[p->weight];
    *rank = p->kind == TL_SCALED_MXFP4 ? w->ndim - 1 : w->ndim;
    memcpy(sizes, w->shape, *rank * sizeof sizes[0]);
    if (p->kind >= TL_SCALED_GPTQ) {
        *rank = 2;
        sizes[0] = p->out;
        sizes[1] = p->in;
    }
    if (p->kind == TL_SCALED_MXFP4)
        sizes[*rank - 1] *= 32;
}

/* ---- scaled weights across files (SPEC 23) --------------------------------
 * A weight's scales may lie in another shard of a model than the weight
 * (DeepSeek's shards split a layer's FP8 weight and its W_scale_inv).  The
 * pairs are found over all the files at once, and each file gets a view:
 * its own tensors but the scales a weight of another file takes, and the
 * scales its own weights take from other files, each such row with the
 * bytes of the file it lies in.  A view then pairs and decodes as one
 * file does (tl_scaled_find, with scale_file set from row_file). */

void tl_scaled_views_free(struct tl_scaled_views *v)
{
    for (size_t k = 0; v->f && k < v->nfiles; k++)
        free(v->f[k].tensors);
    for (size_t k = 0; v->row_file && k < v->nfiles; k++)
        free(v->row_file[k]);
    free(v->f);
    free(v->row_file);
    memset(v, 0, sizeof *v);
}

int tl_scaled_views(const struct tl_file *files, const uint8_t *const *bytes, size_t nfiles,
                    struct tl_scaled_views *v, struct tl_error *err)
{
    size_t n = 0, m = 0, np = 0;
    for (size_t k = 0; k < nfiles; k++)
        n += files[k].count;
    struct tl_file all = { 0 };
    all.quant = nfiles ? files[0].quant : NULL;
    struct tl_scaled *pairs = NULL;
    size_t *owner = malloc((n ? n : 1) * sizeof *owner), *taker = NULL, *count = NULL;
    all.tensors = malloc((n ? n : 1) * sizeof *all.tensors);
    memset(v, 0, sizeof *v);
    v->nfiles = nfiles;
    int rc = owner && all.tensors ? 0 : TL_E_NOMEM;
    for (size_t k = 0; !rc && k < nfiles; k++) {
        for (size_t i = 0; i < files[k].count; i++, m++) {
            all.tensors[m] = files[k].tensors[i];
            owner[m] = k;
        }
    }
    all.count = n;
    if (!rc)
        rc = tl_scaled_find(&all, &pairs, &np, err);
    v->npairs = np;
    if (!rc) {
        taker = malloc((n ? n : 1) * sizeof *taker);
        count = calloc(nfiles ? nfiles : 1, sizeof *count);
        v->f = calloc(nfiles ? nfiles : 1, sizeof *v->f);
        v->row_file = calloc(nfiles ? nfiles : 1, sizeof *v->row_file);
        rc = taker && count && v->f && v->row_file ? 0 : TL_E_NOMEM;
    }
    for (size_t i = 0; !rc && i < n; i++)
        taker[i] = owner[i];            /* the file whose view holds each row */
    for (size_t k = 0; !rc && k < np; k++) {
        size_t rows[2 + TL_SCALED_EXTRA], nparts = tl_scaled_parts(&pairs[k], rows);
        for (size_t j = 1; j < nparts; j++)     /* the parts go where the weight is */
            taker[rows[j]] = owner[pairs[k].weight];
    }
    for (size_t i = 0; !rc && i < n; i++)
        count[taker[i]]++;
    for (size_t k = 0; !rc && k < nfiles; k++) {
        v->f[k] = files[k];
        v->f[k].count = 0;
        v->f[k].problems = NULL;        /* said when the file was read */
        v->f[k].nproblems = 0;
        v->f[k].tensors = malloc((count[k] ? count[k] : 1) * sizeof *v->f[k].tensors);
        v->row_file[k] = calloc(count[k] ? count[k] : 1, sizeof *v->row_file[k]);
        if (!v->f[k].tensors || !v->row_file[k])
            rc = TL_E_NOMEM;
    }
    for (size_t i = 0; !rc && i < n; i++) {
        struct tl_file *f = &v->f[taker[i]];
        v->row_file[taker[i]][f->count] = taker[i] == owner[i] ? NULL : bytes[owner[i]];
        f->tensors[f->count++] = all.tensors[i];
    }
    if (rc == TL_E_NOMEM)
        tl_fail(err, rc, NULL, "out of memory");
    if (rc)
        tl_scaled_views_free(v);
    free(pairs);
    free(owner);
    free(taker);
    free(count);
    free(all.tensors);
    return rc;
}

bool tl_scaled_views_grouped(const struct tl_scaled_views *vs)
{
    bool any = false;
    for (size_t k = 0; k < vs->nfiles && !any; k++) {
        struct tl_scaled *pairs = NULL;
        size_t n = 0;
        if (tl_scaled_find(&vs->f[k], &pairs, &n, NULL) == 0)
            for (size_t i = 0; i < n; i++)
                any |= pairs[i].kind >= TL_SCALED_GPTQ;
        free(pairs);
    }
    return any;
}
