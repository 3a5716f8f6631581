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

/* The table's rows by name (tl_scaled_find looks a companion up for each
 * candidate: a model's tens of thousands of rows in log time, not by a
 * scan each, issue 73). */
struct by_name {
    const struct tl_file_tensor **row;  /* the named rows, sorted by name */
    size_t n;
};

static int row_cmp(const void *a, const void *b)
{
    return strcmp((*(const struct tl_file_tensor *const *)a)->name,
                  (*(const struct tl_file_tensor *const *)b)->name);
}

static const struct tl_file_tensor *named(const struct by_name *ix, const char *base,
                                          const char *suffix)
{
    char name[512];
    if (snprintf(name, sizeof name, "%s%s", base, suffix) >= (int)sizeof name)
        return NULL;
    size_t lo = 0, hi = ix->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(ix->row[mid]->name, name);
        if (c == 0)
            return ix->row[mid];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

static bool ends(const char *s, const char *suffix, size_t *stem)
{
    size_t n = strlen(s), k = strlen(suffix);
    *stem = n - k;
    return n > k && strcmp(s + n - k, suffix) == 0;
}

int tl_scaled_find(const struct tl_file *f, struct tl_scaled **out, size_t *n,
                   struct tl_error *err)
{
    *out = NULL;
    *n = 0;
    struct tl_scaled *p = calloc(f->count ? f->count : 1, sizeof *p);
    struct by_name ix = { malloc((f->count ? f->count : 1) * sizeof *ix.row), 0 };
    if (!p || !ix.row) {
        free(p);
        free(ix.row);
        return tl_fail(err, TL_E_NOMEM, NULL, "out of memory");
    }
    for (size_t i = 0; i < f->count; i++)
        if (f->tensors[i].name)
            ix.row[ix.n++] = &f->tensors[i];
    qsort(ix.row, ix.n, sizeof *ix.row, row_cmp);
    char key[600], q[256];
    for (size_t i = 0; i < f->count; i++) {
        const struct tl_file_tensor *t = &f->tensors[i];
        size_t stem;
        if (!t->name)
            continue;
        if (ends(t->name, "_scale_inv", &stem)) {                /* DeepSeek FP8 */
            char base[512];
            snprintf(base, sizeof base, "%.*s", (int)stem, t->name);
            const struct tl_file_tensor *w = named(&ix, base, "");
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
                free(ix.row);
                return rc;
            }
            p[*n].kind = TL_SCALED_FP8_BLOCK;
            p[*n].weight = (size_t)(w - f->tensors);
            p[*n].scale = i;
            snprintf(p[*n].name, sizeof p[*n].name, "%s", base);
            (*n)++;
        } else if (ends(t->name, "_blocks", &stem)) {           /* gpt-oss MXFP4 */
            char base[512];
            snprintf(base, sizeof base, "%.*s", (int)stem, t->name);
            const struct tl_file_tensor *s = named(&ix, base, "_scales");
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
                free(ix.row);
                return rc;
            }
            p[*n].kind = TL_SCALED_MXFP4;
            p[*n].weight = i;
            p[*n].scale = (size_t)(s - f->tensors);
            snprintf(p[*n].name, sizeof p[*n].name, "%s", base);
            (*n)++;
        }
    }
    free(ix.row);
    *out = p;
    return 0;
}

void tl_scaled_shape(const struct tl_file *f, const struct tl_scaled *p, unsigned *rank,
                     uint64_t *sizes)
{
    const struct tl_file_tensor *w = &f->tensors[p->weight];
    *rank = p->kind == TL_SCALED_MXFP4 ? w->ndim - 1 : w->ndim;
    memcpy(sizes, w->shape, *rank * sizeof sizes[0]);
    if (p->kind == TL_SCALED_MXFP4)
        sizes[*rank - 1] *= 32;
}
