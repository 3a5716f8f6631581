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
#include <inttypes.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"



/* The rules of w, as the core's planner takes them. */
static struct tl_whole_rules rules_of(const struct cli_whole *w, const struct tl_file *f)
{
    return (struct tl_whole_rules){
        .to = w->to, .nto = w->nto, .select = w->select, .nselect = w->nselect,
        .exclude = w->exclude, .nexclude = w->nexclude, .only = w->only, .nonly = w->nonly,
        .drop = w->drop, .ndrop = w->ndrop, .from = f->format,
        .into = w->format->id, .allow_expand = w->allow_expand, .pair_of = w->pair_of,
    };
}

/* The core's plan of f's tensors (tl_whole_plan), its failure said. */
int cli_whole_plan(const struct cli_whole *w, const struct tl_file *f, struct tl_whole_item *it,
                   const enum tl_dtype *to_type, struct tl_rule_use *u)
{
    struct tl_whole_rules r = rules_of(w, f);
    struct tl_error err = { 0 };
    if (tl_whole_plan(&r, f, it, to_type, u, &err) == 0)
        return CLI_OK;
    cli_report(w->name, &err);
    return err.code == TL_E_NOMEM ? CLI_IO : CLI_INVALID;
}

/* Says which rule changed nothing: an error. */
static int rules_used(const struct cli_whole *w, const struct tl_rule_use *u,
                      const enum tl_dtype *to_type)
{
    char q[64];
    for (int i = 0; i < w->nselect; i++) {
        if (!u->sel[i]) {
            cli_error("%s: --select '%s' matches no tensor's name "
                    "('tensorlayout list %s' lists them)", w->name,
                    tl_quote(w->select[i], q, sizeof q), w->name);
            return CLI_INVALID;
        }
    }
    for (int i = 0; i < w->nexclude; i++) {
        if (!u->exc[i]) {
            cli_error("%s: --exclude '%s' matches no tensor's name",
                    w->name, tl_quote(w->exclude[i], q, sizeof q));
            return CLI_INVALID;
        }
    }
    for (int i = 0; i < w->nonly + w->ndrop; i++) {
        bool only = i < w->nonly;
        if (!(only ? u->only[i] : u->drop[i - w->nonly])) {
            cli_error("%s: %s '%s' matches no tensor's name ('tensorlayout list %s' lists "
                      "them)", w->name, only ? "--only" : "--drop",
                      tl_quote(only ? w->only[i] : w->drop[i - w->nonly], q, sizeof q), w->name);
            return CLI_INVALID;
        }
    }
    for (int k = 0; k < w->nto; k++) {
        if (!u->to[k]) {
            cli_error("%s: --to %s changes no tensor: none of the tensors it "
                    "applies to has that layout's rank, or they have that layout already",
                    w->name, tl_quote(w->to[k], q, sizeof q));
            return CLI_INVALID;
        }
    }
    if (to_type && !u->type) {
        cli_error("%s: --to-type %s changes no tensor: none of the "
                "floating tensors it applies to is of another type", w->name,
                tl_dtype_name(*to_type));
        return CLI_INVALID;
    }
    return CLI_OK;
}


static cJSON *report(const struct tl_whole_item *it, size_t n, enum tl_format format)
{
    cJSON *arr = cJSON_CreateArray();
    for (size_t i = 0; arr && i < n; i++) {
        uint64_t shape[TL_MAX_RANK];
        unsigned rank = tl_whole_item_shape(&it[i], shape);
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
            !cJSON_AddBoolToObject(o, "changed", it[i].layout || it[i].type) ||
            !tl_json_add_u64(o, "overflow", it[i].overflow)) {
            cJSON_Delete(o);
            cJSON_Delete(arr);
            return NULL;
        }
        cJSON_AddItemToArray(arr, o);
    }
    return arr;
}

/* The note of the values that became +-Inf: how many, in which tensors
 * (the first three named). */
static void overflow_note(const struct cli_whole *w, const struct tl_whole_item *it, size_t n)
{
    uint64_t total = 0;
    size_t tensors = 0;
    for (size_t i = 0; i < n; i++) {
        total += it[i].overflow;
        tensors += it[i].overflow > 0;
    }
    if (!total)
        return;
    char list[512] = "", q[96];
    size_t k = 0, named = 0;
    for (size_t i = 0; i < n && named < 3; i++) {
        if (!it[i].overflow)
            continue;
        k += (size_t)snprintf(list + k, k < sizeof list ? sizeof list - k : 0, "%s'%s' %" PRIu64
                              " (%s)", named ? ", " : "", tl_quote(it[i].t->name, q, sizeof q),
                              it[i].overflow, tl_dtype_name(it[i].dst.dtype));
        named++;
    }
    cli_note("%s: %" PRIu64 " value%s beyond the range of the new type became \xc2\xb1inf, in "
             "%zu tensor%s: %s%s\n", w->name, total, total == 1 ? "" : "s", tensors,
             tensors == 1 ? "" : "s", list, tensors > named ? ", ..." : "");
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
        cli_note("%s: %zu tensor%s of types the tool does not "
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
        cli_oom();
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
            cli_oom();
            return CLI_IO;
        }
        snprintf(m[k].key, len, "gguf.%s", f->meta[i].key);
        m[k++].value = f->meta[i].value;
    }
    if (cut && !w->quiet)
        cli_note("%s: %zu metadata array%s of more than %d items "
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

bool cli_whole_leaves_out(const void *ctx, const char *name)
{
    const struct cli_whole *w = ctx;
    bool in = w->nonly == 0;
    for (int i = 0; i < w->nonly && !in; i++)
        in = fnmatch(w->only[i], name, 0) == 0;
    for (int i = 0; i < w->ndrop && in; i++)
        in = fnmatch(w->drop[i], name, 0) != 0;
    return !in;
}

void cli_whole_rules(const struct cli_whole *w, char *buf, size_t n)
{
    size_t k = 0;
    buf[0] = '\0';
#define ADD(...) (k += (size_t)snprintf(buf + k, k < n ? n - k : 0, __VA_ARGS__), \
                  k = k < n ? k : n - 1)
    for (int i = 0; i < w->nto; i++)
        ADD("%s--to %s", k ? " " : "", w->to[i]);
    enum tl_dtype t;
    if (w->to_type)
        ADD("%s--to-type %s", k ? " " : "", tl_dtype_from_any(w->to_type, &t) == 0
                                                ? tl_dtype_name(t) : w->to_type);
    for (int i = 0; i < w->nselect; i++)
        ADD("%s--select %s", k ? " " : "", w->select[i]);
    for (int i = 0; i < w->nexclude; i++)
        ADD("%s--exclude %s", k ? " " : "", w->exclude[i]);
    for (int i = 0; i < w->nonly; i++)
        ADD("%s--only %s", k ? " " : "", w->only[i]);
    for (int i = 0; i < w->ndrop; i++)
        ADD("%s--drop %s", k ? " " : "", w->drop[i]);
    if (w->dequantize)
        ADD("%s--dequantize", k ? " " : "");
#undef ADD
}

/* out_meta's, with the rules of a sharded model's shard added last (its
 * keys then all to free: *out is never f->meta). */
static int out_meta_rules(const struct cli_whole *w, const struct tl_file *f,
                          struct tl_file_meta **out, size_t *n)
{
    int rc = out_meta(w, f, out, n);
    if (rc || !w->rules)
        return rc;
    struct tl_file_meta *m = calloc(*n + 1, sizeof *m);
    bool ok = m != NULL;
    for (size_t i = 0; ok && i < *n; i++) {
        m[i] = (*out)[i];
        ok = (m[i].key = strdup((*out)[i].key)) != NULL;
    }
    if (ok) {
        m[*n] = (struct tl_file_meta){ .value = (char *)w->rules };
        ok = (m[*n].key = strdup(CLI_RULES_KEY)) != NULL;
    }
    out_meta_free(f, *out, *n);
    if (!ok) {
        for (size_t i = 0; m && i <= *n; i++)
            free(m[i].key);
        free(m);
        cli_oom();
        return CLI_IO;
    }
    *out = m;
    *n += 1;
    return CLI_OK;
}

/* Writes OUT, a file of w->format holding it[0 .. n) (the library's
 * tl_whole_write through OUT's writer): *written its bytes. */
static int write_out(const struct cli_whole *w, const struct tl_file *f, const struct cli_data *in,
                     struct tl_whole_item *it, size_t n, uint64_t *written)
{
    char q[128];
    for (size_t i = 0; w->format->id == TL_FMT_GGUF && i < n; i++) {
        if (it[i].layout) {
            cli_error("%s: tensor '%s': a GGUF OUT keeps each tensor's layout (row-major): --to "
                      "is for a safetensors or .npz OUT", w->name,
                      tl_quote(it[i].t->name, q, sizeof q));
            return CLI_USAGE;
        }
    }
    struct tl_file_meta *meta;
    size_t nmeta;
    int rc = out_meta_rules(w, f, &meta, &nmeta);
    if (rc)
        return rc;
    struct cli_elsewhere other;
    if ((rc = cli_elsewhere_open(in->name, it, n, &other))) {
        out_meta_free(f, meta, nmeta);
        return rc;
    }
    struct tl_input src = cli_input(in, w->name);
    struct tl_whole_job j = { .f = f, .paired = w->paired, .in = &src, .it = it, .n = n,
                              .meta = meta, .nmeta = nmeta, .threads = w->threads };
    struct cli_writer wr;
    struct tl_error err = { 0 };
    if ((rc = cli_writer_open(&wr, w->out, 0, w->threads, whole_progress(w, in), NULL)) == 0) {
        if (w->shown)                  /* a shard: named where it will be, not where it is built */
            tl_quote(w->shown, wr.out.name, sizeof wr.out.name);
        tl_quote(w->out, q, sizeof q);
        j.out_name = q;
        rc = tl_whole_write(&j, w->format->id, &wr.o, &err);
        wr.w.blame = j.blame;
        rc = finish(w, &wr, cli_writer_status(&wr, rc, &err), j.carried);
    }
    out_meta_free(f, meta, nmeta);
    cli_elsewhere_close(&other);
    *written = j.written;
    return rc;
}

int cli_whole_to_type(const struct cli_whole *w, const char *cmd, enum tl_dtype *to_type,
                      bool *has)
{
    *has = w->to_type != NULL;
    if (w->to_type && cli_type_arg(cmd, "--to-type", w->to_type, to_type))
        return CLI_USAGE;
    if (w->to_type && !tl_dtype_is_float(*to_type)) {
        cli_usage_error(cmd, "--to-type %s: a whole file's conversion changes its "
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
    struct tl_rule_use u;
    memset(&u, 0, sizeof u);
    int rc = cli_whole_to_type(w, "convert", &to_type, &has);
    for (size_t k = 0; rc == CLI_OK && k < n; k++) {
        struct tl_whole_item *it = calloc(files[k].count ? files[k].count : 1, sizeof *it);
        if (!it) {
            cli_oom();
            return CLI_IO;
        }
        if (!rc)
            rc = cli_whole_plan(w, &files[k], it, has ? &to_type : NULL, &u);
        free(it);
    }
    return rc ? rc : rules_used(w, &u, has ? &to_type : NULL);
}

static int convert_tensors(const struct cli_whole *w, const struct tl_file *f,
                           const struct cli_data *in, uint64_t *tensor_bytes);

/* The first rows[0 .. count) of f (tl_whole_scan's) named into buf ("a, b"), or
 * quoted with their types when typed ("'a' (qint8), 'b' (qint8)"), then
 * ", ..." when there are more. */
static const char *named_rows(const struct tl_file *f, const size_t *rows, size_t count,
                              bool typed, char *buf, size_t n)
{
    char q[64];
    size_t len = 0;
    buf[0] = '\0';
    for (size_t k = 0; k < count && k < TL_WHOLE_NAMED && len < n; k++) {
        const struct tl_file_tensor *t = &f->tensors[rows[k]];
        const char *mark = typed ? "'" : "";
        len += (size_t)snprintf(buf + len, n - len, "%s%s%s%s", k ? ", " : "", mark,
                                tl_quote(t->name, q, sizeof q), mark);
        if (typed && len < n)
            len += (size_t)snprintf(buf + len, n - len, " (%s)", t->dtype);
    }
    if (count > TL_WHOLE_NAMED && len < n)
        snprintf(buf + len, n - len, ", ...");
    return buf;
}

/* The scaled pairs of f a conversion decodes: by --dequantize, and by a
 * whole file's --to-type into a floating type (SPEC 18); a scale in
 * another file where w->row_file says so.  @return CLI_OK, or a status
 * after a message. */
static int pairs_of(const struct cli_whole *w, const struct tl_file *f,
                    struct tl_scaled **pairs, size_t *npairs)
{
    struct tl_error err = { 0 };
    const struct tl_ggml_type *gt = w->to_type ? tl_ggml_type_named(w->to_type, NULL) : NULL;
    bool floating_to = w->to_type && !gt;
    bool blocks_to = gt && gt->plain < 0 && w->format->id == TL_FMT_GGUF;   /* SPEC 21 */
    *pairs = NULL;
    *npairs = 0;
    if ((w->dequantize || floating_to || blocks_to) && f->format != TL_FMT_JSON &&
        tl_scaled_find(f, pairs, npairs, &err)) {
        cli_report(w->name, &err);
        return err.code == TL_E_NOMEM ? CLI_IO : CLI_INVALID;
    }
    for (size_t k = 0; w->row_file && k < *npairs; k++) {
        struct tl_scaled *p = &(*pairs)[k];
        p->scale_file = w->row_file[p->scale];
        for (int x = 0; x < TL_SCALED_EXTRA; x++)
            p->extra_file[x] = p->extra[x] != SIZE_MAX ? w->row_file[p->extra[x]] : NULL;
    }
    for (size_t k = 0; k < *npairs; k++) {       /* the values a group's parts must hold */
        if ((*pairs)[k].kind >= TL_SCALED_GPTQ && f->bytes &&
            tl_grouped_check(f->bytes, f, &(*pairs)[k], &err)) {
            cli_report(w->name, &err);
            free(*pairs);
            *pairs = NULL;
            return CLI_INVALID;
        }
    }
    if (w->dequantize && !*npairs && !w->part) {
        cli_error("%s: --dequantize: no scaled weights here (a FLOAT8E4M3 W beside FLOAT32 "
                  "W_scale_inv, or UINT8 W_blocks beside W_scales)", w->name);
        free(*pairs);
        *pairs = NULL;
        return CLI_INVALID;
    }
    return CLI_OK;
}

/* The note of the scaled weights decoded: every one named, by kind
 * (SPEC 23), "FP8 blocks: a, b; MXFP4: c". */
static void pairs_note(const struct cli_whole *w, const struct tl_scaled *pairs, size_t n)
{
    char q[256];
    size_t cap = 64, len = 0;
    char *names = malloc(cap);
    for (int kind = TL_SCALED_FP8_BLOCK; names && kind <= TL_SCALED_PACKED; kind++) {
        bool first = true;
        for (size_t k = 0; names && k < n; k++) {
            if ((int)pairs[k].kind != kind)
                continue;
            char head[40];
            snprintf(head, sizeof head, "%s%s: ", len ? "; " : "",
                     tl_scaled_kind_name(pairs[k].kind));
            if (!first)
                snprintf(head, sizeof head, ", ");
            size_t need = len + strlen(head) + strlen(tl_quote(pairs[k].name, q, sizeof q)) + 1;
            if (need > cap) {
                char *more = realloc(names, cap = 2 * need);
                if (!more) {
                    free(names);
                    names = NULL;
                    break;
                }
                names = more;
            }
            len += (size_t)snprintf(names + len, cap - len, "%s%s", head, q);
            first = false;
        }
    }
    if (names)
        names[len] = '\0';
    bool grouped = false;
    for (size_t k = 0; k < n; k++)
        grouped |= pairs[k].kind >= TL_SCALED_GPTQ;
    cli_note("%s: %zu scaled weight%s decoded (%s), %s %s left out\n", w->name, n,
             n == 1 ? "" : "s", names ? names : "?", n == 1 ? "its" : "their",
             grouped ? "packed codes, scales and zero points" : "scales");
    free(names);
}

/* A PyTorch checkpoint's rows that are no tensor (a step count, a
 * learning rate) are not written (SPEC 17), nor the tensors the tool does
 * not decode: the rest converts, with a note naming them; views that share
 * a storage are written as tensors of their own, with a note; the scaled
 * weights decoded are named (SPEC 18). */
int cli_convert_whole(const struct cli_whole *w, const struct tl_file *f,
                      const struct cli_data *in, uint64_t *tensor_bytes)
{
    size_t npairs = 0;
    struct tl_scaled *pairs;
    struct tl_whole_scan s;
    int rc = pairs_of(w, f, &pairs, &npairs);
    if (rc == CLI_OK && tl_whole_scan(f, &s))
        rc = cli_oom();
    if (rc || (!s.leaves && !s.undecoded && !s.shared && !npairs)) {
        free(pairs);
        return rc ? rc : convert_tensors(w, f, in, tensor_bytes);
    }
    struct tl_whole_view v;
    if (tl_whole_view(f, pairs, npairs, &v)) {
        free(pairs);
        return cli_oom();
    }
    struct cli_whole wp = *w;
    wp.pair_of = v.pair_of;
    wp.paired = f;
    rc = convert_tensors(&wp, &v.file, in, tensor_bytes);
    tl_whole_view_free(&v);
    if (rc == CLI_OK && !w->quiet && npairs)
        pairs_note(w, pairs, npairs);
    free(pairs);
    char names[320];
    if (rc == CLI_OK && !w->quiet && s.leaves)
        cli_note("%s: %zu value%s that %s no tensor not written: %s\n", w->name, s.leaves,
                 s.leaves == 1 ? "" : "s", s.leaves == 1 ? "is" : "are",
                 named_rows(f, s.leaf_row, s.leaves, false, names, sizeof names));
    if (rc == CLI_OK && !w->quiet && s.undecoded)
        cli_note("%s: %zu tensor%s the tool does not decode not written: %s\n", w->name,
                 s.undecoded, s.undecoded == 1 ? "" : "s",
                 named_rows(f, s.undecoded_row, s.undecoded, true, names, sizeof names));
    if (rc == CLI_OK && !w->quiet && s.shared)
        cli_note("%s: tensors that share a storage (tied weights, views) are written as "
                 "tensors of their own\n", w->name);
    return rc;
}

/* --to-type Q8_0 or Q4_0, into a GGUF OUT: *quant that ggml type (the
 * floating tensors are quantized, wq the options without it), else
 * UINT32_MAX.  @return CLI_OK, or CLI_USAGE after the message. */
static int quant_type(const struct cli_whole *w, struct cli_whole *wq, uint32_t *quant)
{
    bool gguf = w->format->id == TL_FMT_GGUF;
    const struct tl_ggml_type *qt = w->to_type ? tl_ggml_type_named(w->to_type, quant) : NULL;
    *wq = *w;
    if (!qt || qt->plain >= 0) {
        *quant = UINT32_MAX;
        return CLI_OK;
    }
    if (!gguf || (*quant != 8 && *quant != 2 && *quant != 3)) {
        cli_usage_error("convert", "--to-type %s: %s", w->to_type, gguf
                        ? "a GGUF OUT's tensors are quantized to Q8_0, Q4_0 or Q4_1 (or are "
                          "F32, F16, BF16)"
                        : "ggml's block types are written into a GGUF OUT (-o OUT.gguf)");
        return CLI_USAGE;
    }
    wq->to_type = NULL;
    return CLI_OK;
}

/* What became of the group-quantized and scaled weights quantized into a
 * GGUF OUT (SPEC 21): those repacked to Q4_1 with the largest error of an
 * offset rounded to FLOAT16, and those requantized from their decoded
 * values, named. */
static void repack_note(const struct cli_whole *w, const struct tl_whole_item *it, size_t n,
                        uint32_t quant)
{
    char q[128], names[400] = "";
    size_t q41 = 0, requant = 0, repacked = 0, len = 0;
    double worst = 0;
    for (size_t i = 0; i < n; i++) {
        if (!it[i].pair || !it[i].quantize)
            continue;
        if (it[i].repack) {
            repacked++;
            q41 += it[i].gtype == 3;
            worst = it[i].offset_error > worst ? it[i].offset_error : worst;
        } else if (requant++ < 4 && len < sizeof names) {
            len += (size_t)snprintf(names + len, sizeof names - len, "%s'%s'", len ? ", " : "",
                                    tl_quote(it[i].t->name, q, sizeof q));
        }
    }
    if (repacked && q41)
        cli_note("%s: %zu weight%s repacked without requantizing, %zu as Q4_1 (asymmetric): "
                 "the largest error of an offset rounded to FLOAT16 is %.3g\n", w->name,
                 repacked, repacked == 1 ? "" : "s", q41, worst);
    else if (repacked)
        cli_note("%s: %zu weight%s repacked without requantizing\n", w->name, repacked,
                 repacked == 1 ? "" : "s");
    if (requant)
        cli_note("%s: %zu weight%s requantized to %s from the decoded values (act-order, not "
                 "4 bits, groups not a multiple of 32, or scales FLOAT16 lacks): %s%s\n",
                 w->name, requant, requant == 1 ? "" : "s", tl_ggml_type(quant)->name, names,
                 requant > 4 ? ", ..." : "");
}

/* convert --json of a whole file: OUT's format, each tensor, the bytes. */
static int print_report(const struct cli_whole *w, const struct tl_whole_item *it, size_t n,
                        enum tl_format from, uint64_t written)
{
    cJSON *doc = cJSON_CreateObject();
    cJSON *arr = report(it, n, from);
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
    return cli_print_json(doc);
}

static int convert_tensors(const struct cli_whole *w, const struct tl_file *f,
                           const struct cli_data *in, uint64_t *tensor_bytes)
{
    enum tl_dtype to_type;
    bool has;
    struct tl_rule_use u;
    memset(&u, 0, sizeof u);
    uint32_t quant;
    struct cli_whole wq;
    int rc = quant_type(w, &wq, &quant);
    if (rc || (rc = cli_whole_to_type(&wq, "convert", &to_type, &has)))
        return rc;
    w = &wq;
    struct tl_whole_item *it = calloc(f->count ? f->count : 1, sizeof *it);
    if (!it)
        return cli_oom();
    if ((rc = cli_whole_plan(w, f, it, has ? &to_type : NULL, &u))) {
        free(it);
        return rc;
    }
    size_t already;
    const char *first;
    size_t quantized = tl_gguf_mark_quantized(it, f->count, quant, w->paired, &already, &first);
    if (already && !w->allow_requantize) {
        char q[128];
        cli_error("%s: --to-type %s would requantize %zu tensor%s already of a ggml block type "
                  "('%s' is %s): each loses precision twice; --allow-requantize does it, or "
                  "convert the unquantized model", w->name, tl_ggml_type(quant)->name, already,
                  already == 1 ? "" : "s", tl_quote(first, q, sizeof q),
                  tl_file_find(f, first)->dtype);
        free(it);
        return CLI_INVALID;
    }
    if (quant != UINT32_MAX && !quantized && !w->part) {
        cli_error("%s: --to-type %s changes no tensor: none of the floating tensors it applies "
                  "to has rows of whole blocks of 32 values and another type", w->name,
                  tl_ggml_type(quant)->name);
        rc = CLI_INVALID;
    }
    if (!w->part && rc == CLI_OK)      /* a shard's rules are checked over the model */
        rc = rules_used(w, &u, has ? &to_type : NULL);
    /* --only and --drop: the tensors written (SPEC 23), the rest left out */
    size_t kept = 0;
    for (size_t i = 0; i < f->count; i++)
        if (it[i].written)
            it[kept++] = it[i];
    struct tl_file out = *f;
    out.count = kept;
    f = &out;
    if (rc == CLI_OK && !kept && !w->part && (w->nonly || w->ndrop)) {
        cli_error("%s: --only and --drop leave no tensor to write", w->name);
        rc = CLI_INVALID;
    }
    uint64_t written = 0;
    if (rc == CLI_OK) {
        cli_simd_note();
        rc = write_out(w, f, in, it, f->count, &written);
        if (rc == CLI_OK)
            overflow_note(w, it, f->count);
        if (rc == CLI_OK && !w->quiet && quant != UINT32_MAX)
            repack_note(w, it, f->count, quant);
        if (rc == CLI_OK && quantized && !w->quiet && quantized < f->count)
            cli_note("%s: %zu of %zu tensors quantized to %s; the others (not floating, rows "
                     "not whole blocks of 32, 1-D, or not chosen) are kept as they are\n", w->name,
                     quantized, f->count, tl_ggml_type(quant)->name);
    }
    if (tensor_bytes) {
        *tensor_bytes = 0;
        for (size_t i = 0; i < f->count; i++)
            *tensor_bytes += it[i].bytes;
    }
    if (rc == CLI_OK && w->json)
        rc = print_report(w, it, f->count, f->format, written);
    free(it);
    return rc;
}
