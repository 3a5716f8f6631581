/*
 * model.c - the public face of the tensor files (tl_model.h): a parsed
 * file behind a handle, each tensor's values read through the one decoder
 * of its encoding (tl_file_decode, the scaled pairs of scaled.c) and
 * copied by the copy core into the caller's layout, and the safetensors
 * writer through a sink.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "tl.h"
#include "tl_model.h"

/* A model's tensor: its row of the file's view (tl_whole_view: no leaves,
 * no scales decoded into their weights), and its pair when it is a scaled
 * weight decoded. */
struct row {
    const struct tl_file_tensor *t;
    const struct tl_scaled *pair;
};

struct tl_model {
    const uint8_t *bytes;
    uint64_t len;
    struct tl_file f;
    struct tl_scaled *pairs;
    size_t npairs, n;
    struct tl_whole_view view;
};

static struct row row_at(const tl_model *m, size_t i)
{
    return (struct row){ &m->view.file.tensors[i], m->view.pair_of[i] };
}

int tl_model_open(const void *bytes, uint64_t len, unsigned flags, tl_model **out,
                  struct tl_error *err)
{
    *out = NULL;
    tl_model *m = calloc(1, sizeof *m);
    if (!m)
        return tl_fail(err, TL_E_NOMEM, NULL, "out of memory");
    m->bytes = bytes;
    m->len = len;
    int rc = tl_file_parse(bytes, len, &m->f, err);
    if (rc) {
        free(m);
        return rc;
    }
    if ((flags & TL_MODEL_DEQUANTIZE) && (rc = tl_scaled_find(&m->f, &m->pairs, &m->npairs, err))) {
        tl_model_close(m);
        return rc;
    }
    for (size_t k = 0; k < m->npairs; k++) {     /* the values a group's parts must hold */
        if (m->pairs[k].kind >= TL_SCALED_GPTQ &&
            (rc = tl_grouped_check(bytes, &m->f, &m->pairs[k], err))) {
            tl_model_close(m);
            return rc;
        }
    }
    if (tl_whole_view(&m->f, m->pairs, m->npairs, &m->view)) {
        tl_model_close(m);
        return tl_fail(err, TL_E_NOMEM, NULL, "out of memory");
    }
    m->n = m->view.file.count;
    *out = m;
    return 0;
}

void tl_model_close(tl_model *m)
{
    if (!m)
        return;
    tl_whole_view_free(&m->view);
    free(m->pairs);
    tl_file_free(&m->f);
    free(m);
}

const char *tl_model_format(const tl_model *m)
{
    return tl_format_name(m->f.format);
}

size_t tl_model_count(const tl_model *m)
{
    return m->n;
}

const char *tl_model_name(const tl_model *m, size_t i)
{
    if (i >= m->n)
        return NULL;
    struct row r = row_at(m, i);
    return r.pair ? r.pair->name : r.t->name ? r.t->name : "";
}

int tl_model_desc(const tl_model *m, size_t i, struct tl_desc *d, struct tl_error *err)
{
    if (i >= m->n)
        return tl_fail(err, TL_E_RANGE, NULL, "tensor %zu of %zu", i, m->n);
    const struct row row = row_at(m, i), *r = &row;
    if (r->pair) {
        unsigned rank;
        uint64_t sizes[TL_MAX_RANK];
        tl_scaled_shape(&m->f, r->pair, &rank, sizes);
        return tl_desc_init(d, TL_DT_FLOAT32, rank, sizes, err);
    }
    int rc = tl_file_tensor_decodable(r->t, err);
    if (rc)
        return rc;
    return tl_desc_init(d, r->t->desc.dtype, r->t->desc.rank, r->t->desc.sizes, err);
}

/* tl_file_decode's pieces, gathered. */
struct gather {
    uint8_t *at;
    uint64_t room;
};

static int gather(void *ctx, const uint8_t *bytes, size_t n)
{
    struct gather *g = ctx;
    if (n > g->room)
        return TL_E_RANGE;
    memcpy(g->at, bytes, n);
    g->at += n;
    g->room -= n;
    return 0;
}

int tl_model_read(const tl_model *m, size_t i, const struct tl_desc *dst, void *out,
                  bool *clamped, struct tl_error *err)
{
    if (clamped)
        *clamped = false;
    struct tl_desc src;
    int rc = tl_model_desc(m, i, &src, err);
    if (rc)
        return rc;
    const struct row row = row_at(m, i), *r = &row;
    const uint8_t *from = m->bytes;
    uint8_t *decoded = NULL;
    if (r->pair || r->t->encoding != TL_ENC_PLAIN) {
        /* decoded whole first: the pair's FLOAT32 values, or the stored
         * bytes' decoding (desc's fileOffset then counts in them) */
        uint64_t n = r->pair ? src.total_bytes : r->t->decoded_bytes;
        if (n > SIZE_MAX || !(decoded = malloc(n ? (size_t)n : 1)))
            return tl_fail(err, TL_E_NOMEM, NULL, "out of memory");
        if (r->pair) {
            rc = tl_scaled_decode_as(m->bytes, &m->f, r->pair, 0, n / 4, TL_DT_FLOAT32, decoded,
                                     NULL);
            if (rc)
                tl_fail(err, rc, r->pair->name, "its pair is not stored plain");
        } else {
            struct gather g = { decoded, n };
            rc = tl_file_decode(m->bytes, m->len, r->t, gather, &g, err);
            if (rc == TL_E_RANGE && g.room == 0)
                tl_fail(err, rc, r->t->name, "decodes to more than its %" PRIu64 " bytes", n);
        }
        from = decoded;
    }
    if (!rc && !r->pair)
        src = r->t->desc;               /* where its values lie in `from` */
    struct tl_copy_plan *plan = rc ? NULL : tl_copy_plan_new(&src, dst, err);
    if (!rc && !plan)
        rc = err ? err->code : TL_E_VALUE;
    if (plan && tl_copy_run(plan, from, out, 1, NULL, NULL) == 1 && clamped)
        *clamped = true;
    tl_copy_plan_free(plan);
    free(decoded);
    return rc;
}

int tl_write_safetensors(size_t n, const char *const *names, const struct tl_desc *descs,
                         const void *const *values, const struct tl_sink *sink,
                         struct tl_error *err)
{
    struct tl_st_entry *e = calloc(n ? n : 1, sizeof *e);
    if (!e)
        return tl_fail(err, TL_E_NOMEM, NULL, "out of memory");
    uint64_t most = 0;
    for (size_t k = 0; k < n; k++) {
        struct tl_info info;
        tl_desc_classify(&descs[k], &info);
        e[k] = (struct tl_st_entry){ .name = names[k], .dtype = descs[k].dtype,
                                     .rank = descs[k].rank,
                                     .bytes = tl_dtype_bytes(descs[k].dtype, info.element_count) };
        memcpy(e[k].shape, descs[k].sizes, sizeof e[k].shape);
        most = e[k].bytes > most ? e[k].bytes : most;
    }
    uint8_t *header = NULL, *packed = NULL;
    size_t hlen = 0;
    int rc = tl_safetensors_header(e, n, NULL, 0, &header, &hlen, err);
    if (!rc && sink->write(sink->ctx, header, hlen))
        rc = tl_fail(err, TL_E_IO, NULL, "the sink stopped");
    if (!rc && most > SIZE_MAX)
        rc = tl_fail(err, TL_E_NOMEM, NULL, "out of memory");
    if (!rc && !(packed = malloc(most ? (size_t)most : 1)))
        rc = tl_fail(err, TL_E_NOMEM, NULL, "out of memory");
    for (size_t k = 0; !rc && k < n; k++) {
        struct tl_desc to;
        struct tl_copy_plan *plan = NULL;
        if ((rc = tl_desc_init(&to, descs[k].dtype, descs[k].rank, descs[k].sizes, err)))
            break;
        if (!(plan = tl_copy_plan_new(&descs[k], &to, err))) {
            rc = err ? err->code : TL_E_VALUE;
            break;
        }
        tl_copy_run(plan, values[k], packed, 1, NULL, NULL);
        tl_copy_plan_free(plan);
        if (e[k].bytes && sink->write(sink->ctx, packed, (size_t)e[k].bytes))
            rc = tl_fail(err, TL_E_IO, names[k], "the sink stopped");
    }
    free(packed);
    free(header);
    free(e);
    return rc;
}
