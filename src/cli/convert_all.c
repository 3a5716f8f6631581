/*
 * convert_all.c - whole-file conversion (SPEC section 9): every tensor of a
 * safetensors file into a safetensors OUT in one command, `convert FILE -o
 * OUT.safetensors [--to L] [--to-type T] [--select GLOB]... [--exclude
 * GLOB]...`.
 *
 * The rules: --to applies to the tensors of its rank, --to-type to the
 * floating ones (T floating), --select and --exclude restrict both by name;
 * the others are copied as they are.  A rule that changes nothing is an
 * error.  The tensors are written in the reference writer's order (element
 * size, largest first, then name), each through the copy core and the one
 * output writer (write.c), one after the other: the input stays mapped, and
 * the pages of each tensor read are handed back as the conversion passes
 * them, so memory does not grow with the file.
 */
#include <cjson/cJSON.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

/* One tensor of the conversion: where it comes from and what it becomes. */
struct item {
    const struct tl_file_tensor *t;
    struct tl_desc dst;                 /* fileOffset set once the header is known */
    bool layout, type;                  /* what the rules change */
    uint64_t bytes, offset;             /* in OUT's data section */
};

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

/* The reference writer's order: element size, largest first, then name. */
static unsigned item_size(const struct item *x)
{
    unsigned bits = x->t->decodable ? tl_dtype_bits(x->dst.dtype) : tl_safetensors_bits(x->t->dtype);
    return bits >= 8 ? bits / 8 : 1;
}

static int by_size_then_name(const void *a, const void *b)
{
    const struct item *x = a, *y = b;
    unsigned ex = item_size(x), ey = item_size(y);
    if (ex != ey)
        return ex > ey ? -1 : 1;
    return strcmp(x->t->name, y->t->name);
}

/* Applies the rules to every tensor; says which rule changed nothing. */
static int plan_items(const struct cli_whole *w, const struct tl_file *f, struct item *it,
                      const enum tl_dtype *to_type)
{
    bool used_sel[CLI_MAX_GLOBS] = { false }, used_exc[CLI_MAX_GLOBS] = { false };
    bool any_layout = false, any_type = false;
    for (size_t i = 0; i < f->count; i++) {
        const struct tl_file_tensor *t = &f->tensors[i];
        const struct tl_desc *s = &t->desc;
        struct tl_info info;
        unsigned order[TL_MAX_RANK];
        bool chosen = (w->nselect == 0 || matches(w->select, w->nselect, t->name, used_sel)) &&
                      !matches(w->exclude, w->nexclude, t->name, used_exc);
        it[i].t = t;
        if (!t->decodable) {            /* carried byte for byte */
            it[i].bytes = t->end - t->begin;
            continue;
        }
        tl_desc_classify(s, &info);
        it[i].dst = *s;
        it[i].dst.file_offset = it[i].dst.byte_offset = 0;
        it[i].layout = chosen && w->to && tl_layout_parse(s->rank, w->to, order, NULL) == 0;
        it[i].type = chosen && to_type && tl_dtype_is_float(s->dtype) && s->dtype != *to_type;
        /* the source's memory order, packed, unless --to reorders it */
        if (!it[i].layout)
            memcpy(order, info.axis_order, sizeof order);
        tl_strides_for_order(s->rank, s->sizes, order, 0, it[i].dst.strides, NULL);
        if (it[i].type)
            it[i].dst.dtype = *to_type;
        tl_desc_validate(&it[i].dst, NULL);
        it[i].bytes = tl_dtype_bytes(it[i].dst.dtype, info.element_count);
        /* a layout it already has is no change (a map's padded or offset
         * buffer still comes out packed, as every tensor does) */
        it[i].layout = it[i].layout &&
                       memcmp(it[i].dst.strides, s->strides, s->rank * sizeof s->strides[0]) != 0;
        any_layout |= it[i].layout;
        any_type |= it[i].type;
    }
    char q[64];
    for (int i = 0; i < w->nselect; i++) {
        if (!used_sel[i]) {
            fprintf(stderr, "tensorlayout: %s: --select '%s' matches no tensor's name "
                    "('tensorlayout list %s' lists them)\n", w->name,
                    tl_quote(w->select[i], q, sizeof q), w->name);
            return CLI_INVALID;
        }
    }
    for (int i = 0; i < w->nexclude; i++) {
        if (!used_exc[i]) {
            fprintf(stderr, "tensorlayout: %s: --exclude '%s' matches no tensor's name\n",
                    w->name, tl_quote(w->exclude[i], q, sizeof q));
            return CLI_INVALID;
        }
    }
    if (w->to && !any_layout) {
        fprintf(stderr, "tensorlayout: %s: --to %s changes no tensor: none of the tensors it "
                "applies to has that layout's rank, or they have that layout already\n",
                w->name, tl_quote(w->to, q, sizeof q));
        return CLI_INVALID;
    }
    if (to_type && !any_type) {
        fprintf(stderr, "tensorlayout: %s: --to-type %s changes no tensor: none of the "
                "floating tensors it applies to is of another type\n", w->name,
                tl_dtype_name(*to_type));
        return CLI_INVALID;
    }
    return CLI_OK;
}

/* The shape an item is written with: its sizes in memory order, or as the
 * file had it for a tensor carried as it is; @return the rank. */
static unsigned item_shape(const struct item *x, uint64_t *shape)
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

static cJSON *report(const struct item *it, size_t n)
{
    cJSON *arr = cJSON_CreateArray();
    for (size_t i = 0; arr && i < n; i++) {
        uint64_t shape[TL_MAX_RANK];
        unsigned rank = item_shape(&it[i], shape);
        bool dec = it[i].t->decodable;
        cJSON *o = cJSON_CreateObject();
        if (!o || !cJSON_AddStringToObject(o, "name", it[i].t->name) ||
            !cJSON_AddStringToObject(o, "dataType", dec ? tl_dtype_name(it[i].t->desc.dtype)
                                                        : it[i].t->dtype) ||
            !cJSON_AddStringToObject(o, "toDataType", dec ? tl_dtype_name(it[i].dst.dtype)
                                                          : it[i].t->dtype) ||
            !tl_json_add_u64_array(o, "sizes", dec ? it[i].dst.sizes : it[i].t->shape,
                                   dec ? it[i].dst.rank : it[i].t->ndim) ||
            !tl_json_add_u64_array(o, "shape", shape, rank) ||
            !cJSON_AddBoolToObject(o, "changed", it[i].layout || it[i].type)) {
            cJSON_Delete(o);
            cJSON_Delete(arr);
            return NULL;
        }
        cJSON_AddItemToArray(arr, o);
    }
    return arr;
}

/* Writes OUT: the header, then every tensor in the order of it[]. */
static int write_all(const struct cli_whole *w, const struct tl_file *f,
                     const struct cli_data *in, struct item *it, uint64_t *written)
{
    size_t n = f->count;
    struct tl_st_entry *e = calloc(n ? n : 1, sizeof *e);
    struct tl_error err = { 0 };
    uint8_t *header = NULL;
    size_t hlen = 0;
    if (!e) {
        fprintf(stderr, "tensorlayout: out of memory\n");
        return CLI_IO;
    }
    uint64_t at = 0;
    for (size_t i = 0; i < n; i++) {
        e[i] = (struct tl_st_entry){ .name = it[i].t->name, .dtype = it[i].dst.dtype,
                                     .st = it[i].t->decodable ? NULL : it[i].t->dtype,
                                     .bytes = it[i].bytes };
        e[i].rank = item_shape(&it[i], e[i].shape);
        it[i].offset = at;
        at += it[i].bytes;
    }
    int rc = tl_safetensors_header(e, n, f->meta, f->nmeta, &header, &hlen, &err);
    free(e);
    if (rc) {
        char q[128];
        fprintf(stderr, "tensorlayout: %s: %s: %s\n", tl_quote(w->out, q, sizeof q), err.key,
                err.msg);
        return rc == TL_E_NOMEM ? CLI_IO : CLI_INVALID;
    }
    struct cli_writer wr;
    *written = hlen + at;
    bool progress = !w->quiet && isatty(2) && in->size > (256ull << 20);
    if ((rc = cli_writer_open(&wr, w->out, *written, w->threads, progress, NULL)))
        goto out;
    rc = cli_writer_put(&wr, header, hlen);
    size_t carried = 0;
    for (size_t i = 0; rc == CLI_OK && i < n; i++) {
        it[i].dst.file_offset = hlen + it[i].offset;
        if (!it[i].t->decodable) {
            rc = cli_writer_put(&wr, in->bytes + it[i].t->begin, it[i].bytes);
            carried++;
        } else {
            rc = cli_writer_tensor(&wr, &it[i].t->desc, in->bytes, &it[i].dst,
                                   hlen + it[i].offset + it[i].bytes, NULL);
        }
        cli_data_done_with(in, it[i].t->begin, it[i].t->end);
    }
    if (rc == CLI_OK && carried)
        fprintf(stderr, "tensorlayout: note: %s: %zu tensor%s of types the tool does not "
                "decode, or with no elements, copied as %s\n", w->name, carried,
                carried == 1 ? "" : "s", carried == 1 ? "it is" : "they are");
    if (rc == CLI_OK)
        rc = cli_writer_commit(&wr);
    else
        cli_writer_abort(&wr);
out:
    free(header);
    return rc;
}

int cli_convert_whole(const struct cli_whole *w, const struct tl_file *f,
                      const struct cli_data *in)
{
    enum tl_dtype to_type;
    char q[64];
    if (w->to_type && tl_dtype_from_name(w->to_type, &to_type)) {
        char list[160];
        cli_usage_error("convert", "--to-type: '%s' is not a data type (%s)",
                        tl_quote(w->to_type, q, sizeof q),
                        tl_dtype_list(TL_SPELL_NAME, list, sizeof list));
        return CLI_USAGE;
    }
    if (w->to_type && !tl_dtype_is_float(to_type)) {
        cli_usage_error("convert", "--to-type %s: a whole file's conversion changes its "
                        "floating tensors, so T is a floating type (FLOAT16, BFLOAT16, "
                        "FLOAT32, FLOAT64)", tl_dtype_name(to_type));
        return CLI_USAGE;
    }
    struct item *it = calloc(f->count ? f->count : 1, sizeof *it);
    if (!it) {
        fprintf(stderr, "tensorlayout: out of memory\n");
        return CLI_IO;
    }
    int rc = plan_items(w, f, it, w->to_type ? &to_type : NULL);
    uint64_t written = 0;
    if (rc == CLI_OK) {
        qsort(it, f->count, sizeof *it, by_size_then_name);
        cli_simd_note();
        rc = write_all(w, f, in, it, &written);
    }
    if (rc == CLI_OK && w->json) {
        cJSON *doc = cJSON_CreateObject();
        cJSON *arr = report(it, f->count);
        if (doc && arr && cJSON_AddStringToObject(doc, "format", "safetensors")) {
            cJSON_AddItemToObject(doc, "tensors", arr);
            arr = NULL;
            if (!tl_json_add_u64(doc, "bytesWritten", written)) {
                cJSON_Delete(doc);
                doc = NULL;
            }
        } else {
            cJSON_Delete(doc);
            doc = NULL;
        }
        cJSON_Delete(arr);
        rc = cli_print_json(doc);
    }
    free(it);
    return rc;
}
