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
    bool retyped;                       /* an empty tensor (a 0 in its shape) of a type
                                         * the table has, whose type changes: dst.dtype */
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

/* Which rules changed something, over one file or several (the shards of
 * a model). */
struct rule_use {
    bool sel[CLI_MAX_GLOBS], exc[CLI_MAX_GLOBS];
    bool layout, type;
    bool to[TL_MAX_RANK];               /* each --to changed a tensor */
};

/* Applies the rules to every tensor of f, noting in u which rules changed
 * something. */
static void plan_items(const struct cli_whole *w, const struct tl_file *f, struct item *it,
                       const enum tl_dtype *to_type, struct rule_use *u)
{
    for (size_t i = 0; i < f->count; i++) {
        const struct tl_file_tensor *t = &f->tensors[i];
        const struct tl_desc *s = &t->desc;
        struct tl_info info;
        unsigned order[TL_MAX_RANK];
        bool chosen = (w->nselect == 0 || matches(w->select, w->nselect, t->name, u->sel)) &&
                      !matches(w->exclude, w->nexclude, t->name, u->exc);
        it[i].t = t;
        if (!t->decodable) {            /* carried byte for byte */
            it[i].bytes = t->encoding != TL_ENC_PLAIN ? t->decoded_bytes : t->end - t->begin;
            /* but an empty tensor's type follows --to-type like the others'
             * (SPEC 19), into safetensors, whose header alone says it */
            enum tl_dtype dt;
            bool empty = false;
            for (unsigned k = 0; k < t->ndim; k++)
                empty |= t->shape[k] == 0;
            if (empty && chosen && to_type && w->format->many && !strcmp(w->format->name, "safetensors") &&
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
        /* the source's memory order, packed, unless --to reorders it; a
         * tensor file's array into safetensors, which has no order flag,
         * in C order, so that numpy sees the same shape (SPEC 19) */
        if (!it[i].layout && f->format != TL_FMT_JSON && strcmp(w->format->name, "safetensors") == 0) {
            for (unsigned k = 0; k < s->rank; k++)
                order[k] = k;
        } else if (!it[i].layout) {
            memcpy(order, info.axis_order, sizeof order);
        }
        tl_strides_for_order(s->rank, s->sizes, order, 0, it[i].dst.strides, NULL);
        if (it[i].type)
            it[i].dst.dtype = *to_type;
        tl_desc_validate(&it[i].dst, NULL);
        it[i].bytes = tl_dtype_bytes(it[i].dst.dtype, info.element_count);
        /* a layout it already has is no change (a map's padded or offset
         * buffer still comes out packed, as every tensor does) */
        it[i].layout = it[i].layout &&
                       memcmp(it[i].dst.strides, s->strides, s->rank * sizeof s->strides[0]) != 0;
        u->layout |= it[i].layout;
        if (it[i].layout)
            u->to[which] = true;
        u->type |= it[i].type;
    }
}

/* Says which rule changed nothing: an error. */
static int rules_used(const struct cli_whole *w, const struct rule_use *u,
                      const enum tl_dtype *to_type)
{
    char q[64];
    for (int i = 0; i < w->nselect; i++) {
        if (!u->sel[i]) {
            fprintf(stderr, "tensorlayout: %s: --select '%s' matches no tensor's name "
                    "('tensorlayout list %s' lists them)\n", w->name,
                    tl_quote(w->select[i], q, sizeof q), w->name);
            return CLI_INVALID;
        }
    }
    for (int i = 0; i < w->nexclude; i++) {
        if (!u->exc[i]) {
            fprintf(stderr, "tensorlayout: %s: --exclude '%s' matches no tensor's name\n",
                    w->name, tl_quote(w->exclude[i], q, sizeof q));
            return CLI_INVALID;
        }
    }
    for (int k = 0; k < w->nto; k++) {
        if (!u->to[k]) {
            fprintf(stderr, "tensorlayout: %s: --to %s changes no tensor: none of the tensors it "
                    "applies to has that layout's rank, or they have that layout already\n",
                    w->name, tl_quote(w->to[k], q, sizeof q));
            return CLI_INVALID;
        }
    }
    if (to_type && !u->type) {
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

static cJSON *report(const struct item *it, size_t n, enum tl_format format)
{
    cJSON *arr = cJSON_CreateArray();
    for (size_t i = 0; arr && i < n; i++) {
        uint64_t shape[TL_MAX_RANK];
        unsigned rank = item_shape(&it[i], shape);
        bool dec = it[i].t->decodable;
        enum tl_dtype known;          /* every type spelled one way, as list does */
        const char *from = dec ? tl_dtype_name(it[i].t->desc.dtype)
                         : tl_format_dtype(format, it[i].t->dtype, &known) == 0
                         ? tl_dtype_name(known) : it[i].t->dtype;
        cJSON *o = cJSON_CreateObject();
        if (!o || !cJSON_AddStringToObject(o, "name", it[i].t->name) ||
            !cJSON_AddStringToObject(o, "dataType", from) ||
            !cJSON_AddStringToObject(o, "toDataType", dec || it[i].retyped
                                                      ? tl_dtype_name(it[i].dst.dtype) : from) ||
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

/* The bytes a tensor is read from: the input's, or for a deflated .npz
 * member its .npy inflated into *tmp (close it after). */
static int source_bytes(const struct cli_data *in, const struct tl_file_tensor *t,
                        struct cli_data *tmp, const uint8_t **bytes)
{
    memset(tmp, 0, sizeof *tmp);
    *bytes = in->bytes;
    if (t->encoding == TL_ENC_PLAIN)
        return CLI_OK;
    int rc = cli_decode_tensor(in, t, tmp);
    *bytes = tmp->bytes;
    return rc;
}

/* Writes tensor x's bytes: converted through the copy core into its
 * destination (OUT's bytes up to end), or carried as they are. */
static int put_tensor(struct cli_writer *wr, const struct tl_file *f, const struct cli_data *in,
                      const struct item *x, uint64_t end)
{
    struct cli_data tmp;
    const uint8_t *bytes;
    int rc;
    if (!x->t->decodable && f->format != TL_FMT_NPZ)
        rc = cli_writer_put(wr, in->bytes + x->t->begin, x->bytes);
    else if (!x->t->decodable)
        rc = cli_writer_member(wr, in, x->t);
    else if ((rc = source_bytes(in, x->t, &tmp, &bytes)) == CLI_OK) {
        rc = cli_writer_tensor(wr, &x->t->desc, bytes, &x->dst, end, NULL);
        cli_close_data(&tmp);
    }
    cli_data_done_with(in, x->t->begin, x->t->end);
    return rc;
}

/* Commits OUT after rc == CLI_OK, with a note of the tensors carried as
 * they are, or removes it. */
static int finish(const struct cli_whole *w, struct cli_writer *wr, int rc, size_t carried)
{
    if (rc != CLI_OK) {
        cli_writer_abort(wr);
        return rc;
    }
    if (carried)
        fprintf(stderr, "tensorlayout: note: %s: %zu tensor%s of types the tool does not "
                "decode, or with no elements, copied as %s\n", w->name, carried,
                carried == 1 ? "" : "s", carried == 1 ? "it is" : "they are");
    return cli_writer_commit(wr);
}

static int whole_progress(const struct cli_whole *w, const struct cli_data *in)
{
    return !w->quiet && isatty(2) && in->size > (256ull << 20);
}

/* The __metadata__ a safetensors OUT gets: a safetensors input's as it
 * is; a GGUF input's keys as gguf.KEY, each value its JSON text, but for
 * arrays of more than TL_META_WHOLE items, left out and named in a note
 * (SPEC 16).  *out is f->meta, or an array to free (its keys too). */
static int out_meta(const struct cli_whole *w, const struct tl_file *f, struct tl_file_meta **out,
                    size_t *n)
{
    *out = f->meta;
    *n = f->nmeta;
    if (f->format != TL_FMT_GGUF)
        return CLI_OK;
    struct tl_file_meta *m = calloc(f->nmeta ? f->nmeta : 1, sizeof *m);
    if (!m) {
        fprintf(stderr, "tensorlayout: out of memory\n");
        return CLI_IO;
    }
    size_t k = 0, cut = 0;
    char q[128], names[256] = "";
    for (size_t i = 0; i < f->nmeta; i++) {
        if (f->meta[i].cut) {
            size_t len = strlen(names);
            if (cut < 3)
                snprintf(names + len, sizeof names - len, "%s%s (%llu items)", cut ? ", " : "",
                         tl_quote(f->meta[i].key, q, sizeof q),
                         (unsigned long long)f->meta[i].count);
            cut++;
            continue;
        }
        size_t len = strlen(f->meta[i].key) + 6;
        if (!(m[k].key = malloc(len))) {
            for (size_t j = 0; j < k; j++)
                free(m[j].key);
            free(m);
            fprintf(stderr, "tensorlayout: out of memory\n");
            return CLI_IO;
        }
        snprintf(m[k].key, len, "gguf.%s", f->meta[i].key);
        m[k++].value = f->meta[i].value;
    }
    if (cut && !w->quiet)
        fprintf(stderr, "tensorlayout: note: %s: %zu metadata array%s of more than %d items "
                "left out of __metadata__: %s%s\n", w->name, cut, cut == 1 ? "" : "s",
                TL_META_WHOLE, names, cut > 3 ? ", ..." : "");
    *out = m;
    *n = k;
    return CLI_OK;
}

static void out_meta_free(const struct tl_file *f, struct tl_file_meta *m, size_t n)
{
    if (m == f->meta)
        return;
    for (size_t i = 0; i < n; i++)
        free(m[i].key);
    free(m);
}

/* Writes a safetensors OUT: the header, then every tensor in the order of
 * it[]. */
static int write_safetensors(const struct cli_whole *w, const struct tl_file *f,
                             const struct cli_data *in, struct item *it, uint64_t *written)
{
    size_t n = f->count;
    struct tl_st_entry *e = calloc(n ? n : 1, sizeof *e);
    struct tl_error err = { 0 };
    uint8_t *header = NULL;
    size_t hlen = 0;
    char q[128];
    if (!e) {
        fprintf(stderr, "tensorlayout: out of memory\n");
        return CLI_IO;
    }
    uint64_t at = 0;
    for (size_t i = 0; i < n; i++) {
        if (!it[i].t->decodable && it[i].t->encoding == TL_ENC_GGML) {
            char list[256];
            fprintf(stderr, "tensorlayout: %s: tensor '%s' is of GGUF type %s, which this tool "
                    "does not decode (it decodes %s): safetensors cannot carry it\n", w->name,
                    tl_quote(it[i].t->name, q, sizeof q), it[i].t->dtype,
                    tl_ggml_decoded_list(list, sizeof list));
            free(e);
            return CLI_INVALID;
        }
        if (!it[i].t->decodable && f->format == TL_FMT_NPZ) {
            fprintf(stderr, "tensorlayout: %s: member '%s' (%s) has no safetensors form: "
                    "convert the archive into an .npz instead\n", w->name,
                    tl_quote(it[i].t->name, q, sizeof q),
                    it[i].t->dtype[0] ? it[i].t->dtype : "not a .npy file");
            free(e);
            return CLI_INVALID;
        }
        e[i] = (struct tl_st_entry){ .name = it[i].t->name, .dtype = it[i].dst.dtype,
                                     .st = it[i].t->decodable || it[i].retyped ? NULL
                                                                             : it[i].t->dtype,
                                     .bytes = it[i].bytes };
        e[i].rank = item_shape(&it[i], e[i].shape);
        it[i].offset = at;
        at += it[i].bytes;
    }
    struct tl_file_meta *meta;
    size_t nmeta;
    int rc = out_meta(w, f, &meta, &nmeta);
    if (rc) {
        free(e);
        return rc;
    }
    rc = tl_safetensors_header(e, n, meta, nmeta, &header, &hlen, &err);
    out_meta_free(f, meta, nmeta);
    free(e);
    if (rc) {
        fprintf(stderr, "tensorlayout: %s: %s: %s\n", tl_quote(w->out, q, sizeof q), err.key,
                err.msg);
        return rc == TL_E_NOMEM ? CLI_IO : CLI_INVALID;
    }
    struct cli_writer wr;
    *written = hlen + at;
    if ((rc = cli_writer_open(&wr, w->out, *written, w->threads, whole_progress(w, in), NULL)))
        goto out;
    if (w->shown)                      /* a shard: named where it will be, not where it is built */
        tl_quote(w->shown, wr.out.name, sizeof wr.out.name);
    rc = cli_writer_put(&wr, header, hlen);
    size_t carried = 0;
    for (size_t i = 0; rc == CLI_OK && i < n; i++) {
        it[i].dst.file_offset = hlen + it[i].offset;
        carried += !it[i].t->decodable;
        rc = put_tensor(&wr, f, in, &it[i], hlen + it[i].offset + it[i].bytes);
    }
    rc = finish(w, &wr, rc, carried);
out:
    free(header);
    return rc;
}

/* An .npz member's name: the tensor's with ".npy", or a member carried
 * from an .npz under its own. */
static void member_name(const struct item *x, const struct tl_file *f, char *buf, size_t n)
{
    bool other = f->format == TL_FMT_NPZ && !x->t->wrapped;
    snprintf(buf, n, "%s%s", x->t->name, other ? "" : ".npy");
}

/* Writes an .npz OUT (stored, as np.savez does) of the tensors of it[] in
 * the input's order: each a local header, its .npy (header, then the
 * tensor through the copy core), a data descriptor with the CRC-32 the
 * writer summed on the way; then the central directory. */
static int write_npz(const struct cli_whole *w, const struct tl_file *f,
                     const struct cli_data *in, struct item *it, uint64_t *written)
{
    size_t n = f->count;
    struct tl_zip_entry *e = calloc(n ? n : 1, sizeof *e);
    char **names = calloc(n ? n : 1, sizeof *names);
    uint8_t **npy = calloc(n ? n : 1, sizeof *npy);
    size_t *nlen = calloc(n ? n : 1, sizeof *nlen);
    uint8_t local[TL_ZIP_LOCAL_MAX], desc[TL_ZIP_DESCRIPTOR], *dir = NULL;
    size_t dlen = 0;
    struct tl_error err = { 0 };
    char q[128], name[TL_ZIP_NAME_MAX + 8];
    int rc = CLI_OK;
    if (!e || !names || !npy || !nlen) {
        fprintf(stderr, "tensorlayout: out of memory\n");
        rc = CLI_IO;
        goto out;
    }
    uint64_t at = 0;
    for (size_t i = 0; rc == CLI_OK && i < n; i++) {
        const struct item *x = &it[i];
        member_name(x, f, name, sizeof name);
        if (strlen(name) > TL_ZIP_NAME_MAX || !(names[i] = strdup(name))) {
            fprintf(stderr, "tensorlayout: %s: tensor '%s': its name is too long for an "
                    ".npz member\n", w->name, tl_quote(x->t->name, q, sizeof q));
            rc = CLI_INVALID;
            break;
        }
        uint64_t bytes;
        if (!x->t->decodable && f->format != TL_FMT_NPZ) {
            fprintf(stderr, "tensorlayout: %s: tensor '%s' (%s) has no .npy form: convert "
                    "the file into a safetensors OUT instead\n", w->name,
                    tl_quote(x->t->name, q, sizeof q), x->t->dtype);
            rc = CLI_INVALID;
            break;
        } else if (!x->t->decodable) {
            bytes = x->t->decoded_bytes;
        } else {
            struct tl_desc d = x->dst;
            /* a 0-d array stays 0-d; a Fortran-order array whose layout is
             * kept stays Fortran-order, so numpy loads the same shape */
            unsigned how = (x->t->scalar ? TL_NPY_SCALAR : 0) |
                           (f->format == TL_FMT_NPZ && !x->layout ? TL_NPY_FORTRAN : 0);
            if (tl_npy_header_as(&d, how, NULL, 0, &nlen[i], &err) || !(npy[i] = malloc(nlen[i])) ||
                tl_npy_header_as(&d, how, npy[i], nlen[i], &nlen[i], &err)) {
                fprintf(stderr, "tensorlayout: %s: tensor '%s' cannot be an .npy member: %s%s\n",
                        w->name, tl_quote(x->t->name, q, sizeof q), err.msg,
                        x->dst.dtype == TL_DT_BFLOAT16 ? " (numpy has no BFLOAT16: give "
                        "--to-type FLOAT32, or write safetensors)" : "");
                rc = CLI_INVALID;
                break;
            }
            bytes = nlen[i] + x->bytes;
        }
        e[i] = (struct tl_zip_entry){ names[i], bytes, at, 0 };
        at += tl_zip_local(names[i], local) + bytes + TL_ZIP_DESCRIPTOR;
    }
    if (rc == CLI_OK && tl_zip_directory(e, n, at, &dir, &dlen, &err)) {
        fprintf(stderr, "tensorlayout: out of memory\n");
        rc = CLI_IO;
    }
    if (rc)
        goto out;
    struct cli_writer wr;
    *written = at + dlen;
    if ((rc = cli_writer_open(&wr, w->out, *written, w->threads, whole_progress(w, in), NULL)))
        goto out;
    if (w->shown)                      /* a shard: named where it will be, not where it is built */
        tl_quote(w->shown, wr.out.name, sizeof wr.out.name);
    size_t carried = 0;
    for (size_t i = 0; rc == CLI_OK && i < n; i++) {
        size_t ll = tl_zip_local(names[i], local);
        rc = cli_writer_put(&wr, local, ll);
        wr.crc_on = true;
        wr.crc = 0;
        if (rc == CLI_OK && npy[i])
            rc = cli_writer_put(&wr, npy[i], nlen[i]);
        it[i].dst.file_offset = e[i].at + ll + nlen[i];
        carried += !it[i].t->decodable;
        if (rc == CLI_OK)
            rc = put_tensor(&wr, f, in, &it[i], e[i].at + ll + e[i].bytes);
        wr.crc_on = false;
        e[i].crc = wr.crc;
        if (rc == CLI_OK)
            rc = cli_writer_put(&wr, desc, tl_zip_descriptor(e[i].crc, e[i].bytes, desc));
    }
    if (rc == CLI_OK) {
        free(dir);
        dir = NULL;
        if (tl_zip_directory(e, n, at, &dir, &dlen, &err)) {
            fprintf(stderr, "tensorlayout: out of memory\n");
            rc = CLI_IO;
        } else {
            rc = cli_writer_put(&wr, dir, dlen);
        }
    }
    rc = finish(w, &wr, rc, carried);
out:
    for (size_t i = 0; names && npy && i < n; i++) {
        free(names[i]);
        free(npy[i]);
    }
    free(e);
    free(names);
    free(npy);
    free(nlen);
    free(dir);
    return rc;
}

/* --to-type T of a whole file: a floating type (*has false without it). */
static int whole_to_type(const struct cli_whole *w, enum tl_dtype *to_type, bool *has)
{
    *has = w->to_type != NULL;
    if (w->to_type && cli_type_arg("convert", "--to-type", w->to_type, to_type))
        return CLI_USAGE;
    if (w->to_type && !tl_dtype_is_float(*to_type)) {
        cli_usage_error("convert", "--to-type %s: a whole file's conversion changes its "
                        "floating tensors, so T is a floating type (FLOAT16, BFLOAT16, "
                        "FLOAT32, FLOAT64)", tl_dtype_name(*to_type));
        return CLI_USAGE;
    }
    return CLI_OK;
}

int cli_whole_check(const struct cli_whole *w, const struct tl_file *files, size_t n)
{
    enum tl_dtype to_type;
    bool has;
    struct rule_use u;
    memset(&u, 0, sizeof u);
    int rc = whole_to_type(w, &to_type, &has);
    for (size_t k = 0; rc == CLI_OK && k < n; k++) {
        struct item *it = calloc(files[k].count ? files[k].count : 1, sizeof *it);
        if (!it) {
            fprintf(stderr, "tensorlayout: out of memory\n");
            return CLI_IO;
        }
        plan_items(w, &files[k], it, has ? &to_type : NULL, &u);
        free(it);
    }
    return rc ? rc : rules_used(w, &u, has ? &to_type : NULL);
}

int cli_convert_whole(const struct cli_whole *w, const struct tl_file *f,
                      const struct cli_data *in, uint64_t *tensor_bytes)
{
    enum tl_dtype to_type;
    bool has;
    struct rule_use u;
    memset(&u, 0, sizeof u);
    int rc = whole_to_type(w, &to_type, &has);
    if (rc)
        return rc;
    struct item *it = calloc(f->count ? f->count : 1, sizeof *it);
    if (!it) {
        fprintf(stderr, "tensorlayout: out of memory\n");
        return CLI_IO;
    }
    plan_items(w, f, it, has ? &to_type : NULL, &u);
    if (!w->part)                      /* a shard's rules are checked over the model */
        rc = rules_used(w, &u, has ? &to_type : NULL);
    uint64_t written = 0;
    bool npz = strcmp(w->format->name, "npz") == 0;
    if (rc == CLI_OK) {
        if (!npz)                      /* the reference writer's order; an .npz keeps the input's */
            qsort(it, f->count, sizeof *it, by_size_then_name);
        cli_simd_note();
        rc = (npz ? write_npz : write_safetensors)(w, f, in, it, &written);
    }
    if (tensor_bytes) {
        *tensor_bytes = 0;
        for (size_t i = 0; i < f->count; i++)
            *tensor_bytes += it[i].bytes;
    }
    if (rc == CLI_OK && w->json) {
        cJSON *doc = cJSON_CreateObject();
        cJSON *arr = report(it, f->count, f->format);
        if (doc && arr && cJSON_AddStringToObject(doc, "format", w->format->name)) {
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
