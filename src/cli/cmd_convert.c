/*
 * cmd_convert.c - `tensorlayout convert DESC DATA -o OUT --to L`: the same
 * logical tensor, rewritten in another layout.
 *
 * The command: its arguments, the source (memory-mapped, or read whole from
 * a pipe), the destination description, the output format, the check that
 * every value fits the destination's type, and one call to the writer
 * (write.c), which writes OUT in order and renames it into place only when
 * everything succeeded.
 */
#include <argtable2.h>
#include <cjson/cJSON.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

/* A conversion shows a progress bar on a terminal when it reads more than
 * this: about a quarter of a second at the copy's speed here, below which
 * a bar would only flicker. */
#define PROGRESS_OVER (256ull << 20)

static const char about[] =
    "Writes the same logical tensor in the destination layout: --to takes a\n"
    "layout label or index order (packed strides), --to-strides explicit\n"
    "strides (padding allowed), --to-desc a whole description (same sizes and\n"
    "data type).  --to-type T alone keeps the source's memory order, packed.\n"
    "With none of them, a format change alone is a conversion: every tensor\n"
    "as it is, into an OUT of another format (x.npz -o x.safetensors).\n"
    "The source may be packed, padded, broadcast or overlapping;\n"
    "the destination may be neither broadcast nor overlapping.  OUT holds\n"
    "exactly the destination's elements' bytes; bytes no element reaches are\n"
    "zero, or --fill V.  OUT is written to a temporary file beside it and\n"
    "renamed into place only on success; it may be the input file, or '-'.\n"
    "A @MANY_OR@ FILE named whole converts every tensor into a\n"
    "@MANY_OR@ OUT: --to applies to the tensors of its rank,\n"
    "--to-type to the floating ones, --select and --exclude choose them by\n"
    "name, the rest are copied.  A sharded model's index converts into a\n"
    "folder, OUTDIR/: every shard, in parallel, then a new index; or with\n"
    "--shard FILE one shard (a job of many), and --index-only the index;\n"
    "--max-shard-size SIZE re-shards it (merged into one file, or split), and\n"
    "writes a whole file's tensors as shards too; --force replaces an OUTDIR\n"
    "that holds files.\n"
    "GGUF's block types (Q4_K, ...) are decoded to FLOAT32 (or --to-type\n"
    "FLOAT16, BFLOAT16); into a .gguf OUT they are carried as they are, or\n"
    "--to-type Q8_0 or Q4_0 quantizes the floating tensors as ggml does.\n"
    "UINT4, INT4 and FLOAT4E2M1 (two a byte, the lower offset in the low\n"
    "nibble) convert like any type; .npy has no packed 4-bit type and\n"
    "safetensors only F4 (FLOAT4E2M1): write the others raw (--format raw),\n"
    "or unpacked with --to-type INT8 or FLOAT16.";

struct options {
    const char *desc, *data, *out, *to, *to_strides, *to_desc, *fill, *out_desc, *axes, *format;
    const char *const *tos;             /* every --to, one a rank; to: the first */
    int nto;
    const char *to_type, *name, *shard, *to_byte_offset;
    const char *const *select, *const *exclude;
    int nselect, nexclude;
    const char *const *only, *const *drop;
    int nonly, ndrop;
    bool saturate, index_only, dequantize, allow_expand, allow_requantize, force;
    uint64_t max_shard;                 /* --max-shard-size, 0 when not given */
    int threads;
    bool quiet, json;
};

/* Writes the destination description to path, atomically. */
static int write_desc(const char *path, const struct tl_desc *d, struct cli_out *o)
{
    cJSON *j = tl_desc_to_json(d);
    char *text = j ? cJSON_Print(j) : NULL;
    cJSON_Delete(j);
    if (!text) {
        cli_oom();
        return CLI_IO;
    }
    size_t len = strlen(text);
    int rc = cli_out_open(o, path, len + 1);
    if (rc == CLI_OK) {
        memcpy(o->bytes, text, len);
        o->bytes[len] = '\n';
    }
    free(text);
    return rc;
}

/* Whether two path arguments name the same existing file ("-" and inline
 * JSON name none). */
static bool same_file(const char *x, const char *y)
{
    struct stat a, b;
    if (!x || !y || cli_desc_opts_is(x) || cli_desc_opts_is(y) || strcmp(x, "-") == 0 || strcmp(y, "-") == 0 || x[strspn(x, " \t\r\n")] == '{' ||
        y[strspn(y, " \t\r\n")] == '{')
        return false;
    if (strcmp(x, y) == 0)
        return true;
    return stat(x, &a) == 0 && stat(y, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

/* Says which value did not fit the destination's type: the first in
 * logical order. */
static void report_unfit(const struct cli_desc *src, const struct cli_data *data,
                         enum tl_dtype ddt)
{
    uint64_t idx[TL_MAX_RANK];
    char value[48], lo[48], hi[48];
    if (!tl_convert_find_bad(&src->d, data->bytes, ddt, idx)) {
        cli_error("%s: a value does not fit %s", src->name,
                tl_dtype_name(ddt));
        return;
    }
    tl_desc_format(&src->d, data->bytes, tl_desc_elem(&src->d, idx), value, sizeof value);
    /* the range, as the clamped extremes */
    double big = 1e300;
    uint8_t x[8];
    tl_convert_value(TL_DT_FLOAT64, &(double){ -big }, ddt, x);
    tl_dtype_format(ddt, x, lo, sizeof lo);
    tl_convert_value(TL_DT_FLOAT64, &big, ddt, x);
    tl_dtype_format(ddt, x, hi, sizeof hi);
    char at[CLI_U64_TEXT];
    cli_u64_text(idx, src->d.rank, at, sizeof at);
    if (strcmp(value, "nan") == 0)
        cli_error("%s: the value at [%s] is nan, which %s cannot hold (--saturate makes it 0)",
                  src->name, at, tl_dtype_name(ddt));
    else
        cli_error("%s: the value at [%s] is %s, outside the range of %s, %s to %s (--saturate "
                  "clamps it)", src->name, at, value, tl_dtype_name(ddt), lo, hi);
}

/* --json: the destination description and the bytes written. */
static int print_result(const struct tl_desc *d, uint64_t size, uint64_t overflow)
{
    cJSON *j = tl_desc_to_json(d);
    if (j && (!tl_json_add_u64(j, "bytesWritten", size) ||
              !tl_json_add_u64(j, "overflow", overflow))) {
        cJSON_Delete(j);
        j = NULL;
    }
    return cli_print_json(j);
}

/* The usage errors of OUT and --out-desc: what would mix, go to a
 * terminal, or overwrite another output or an input. */
static int check_outputs(const struct options *o)
{
    static const char cmd[] = "convert";
    if (cli_out_not_dir(cmd, o->out))
        return CLI_USAGE;
    if (o->json && strcmp(o->out, "-") == 0) {
        cli_usage_error(cmd, "--json needs standard output: give -o a file");
        return CLI_USAGE;
    }
    if (o->out_desc && strcmp(o->out_desc, "-") == 0 && (strcmp(o->out, "-") == 0 || o->json)) {
        cli_usage_error(cmd, "--out-desc - would mix the description into %s on standard "
                        "output: give --out-desc a file", o->json ? "the --json document"
                                                                  : "the data");
        return CLI_USAGE;
    }
    if (strcmp(o->out, "-") == 0 && isatty(1)) {
        cli_usage_error(cmd, "-o - would write binary data to the terminal: redirect standard "
                        "output, or give -o a file");
        return CLI_USAGE;
    }
    if (o->out_desc && same_file(o->out, o->out_desc)) {
        cli_usage_error(cmd, "-o and --out-desc name the same file: one would overwrite the "
                        "other");
        return CLI_USAGE;
    }
    if ((o->to_desc && same_file(o->out, o->to_desc)) ||
        (o->out_desc && (same_file(o->out_desc, o->desc) ||
                         (o->data && same_file(o->out_desc, o->data))))) {
        char q[128];
        bool to = o->to_desc && same_file(o->out, o->to_desc);
        cli_usage_error(cmd, "an output would overwrite an input (%s %s is %s): give it another "
                        "name", to ? "-o" : "--out-desc", tl_quote(to ? o->out : o->out_desc, q,
                                                                   sizeof q),
                        to ? "--to-desc" : same_file(o->out_desc, o->desc) ? "DESC" : "DATA");
        return CLI_USAGE;
    }
    struct stat st;
    if (o->out_desc && strcmp(o->out_desc, "-") != 0 && stat(o->out_desc, &st) == 0 &&
        S_ISDIR(st.st_mode)) {
        char q[128];
        cli_usage_error(cmd, "--out-desc %s is a directory: give it a file name in it",
                        tl_quote(o->out_desc, q, sizeof q));
        return CLI_USAGE;
    }
    return cli_check_stdin(cmd, o->desc, o->data);
}

/* The destination the options ask for, in its output format: dst, the
 * format's header (free it), and the --fill value. */
static int plan_output(const struct options *o, const struct cli_desc *src, struct cli_desc *dst,
                       uint8_t **header, size_t *hlen, uint8_t *fill)
{
    static const char cmd[] = "convert";
    struct tl_error err = { 0 };
    enum tl_dtype to_type;
    if (o->to_type && cli_type_arg(cmd, "--to-type", o->to_type, &to_type))
        return CLI_USAGE;
    const struct tl_format_entry *f = cli_format_for(o->out, o->format);
    const char *to = o->to;
    if (o->nto > 1) {                   /* one --to a rank: the source's */
        unsigned order[TL_MAX_RANK];
        to = NULL;
        for (int k = 0; k < o->nto && !to; k++)
            if (tl_layout_parse(src->d.rank, o->tos[k], order, NULL) == 0)
                to = o->tos[k];
        if (!to) {
            cli_usage_error(cmd, "--to: none of the %d layouts given has the rank of %s (%u)",
                            o->nto, src->name, src->d.rank);
            return CLI_USAGE;
        }
    }
    struct cli_dest dest = { .to = to, .to_strides = o->to_strides, .to_desc = o->to_desc,
                             .to_byte_offset = o->to_byte_offset,
                             .to_type = o->to_type ? &to_type : NULL,
                             .numpy_order = !f->header ? CLI_ORDER_KEEP
                                          : f->id == TL_FMT_NPY ? CLI_ORDER_NPY
                                          : CLI_ORDER_C };
    int rc = cli_destination("convert", &dest, src, dst);
    if (rc)
        return rc;
    if (o->fill && tl_dtype_parse_value(dst->d.dtype, o->fill, fill, &err)) {
        cli_usage_error(cmd, "--fill: %s", err.msg);
        return CLI_USAGE;
    }
    const char *name = o->name ? o->name : src->tensor[0] ? src->tensor : "tensor";
    dst->scalar = src->scalar;         /* a 0-d array stays 0-d: one element, any layout */
    if ((rc = cli_format_prepare(f, o->out, o->format != NULL, name, dst, header, hlen)))
        return rc;
    struct tl_copy_plan *plan = tl_copy_plan_new(&src->d, &dst->d, &err);
    if (!plan) {
        if (err.code == TL_E_NOMEM)
            cli_oom();
        else
            cli_error("%s: %s: %s", dst->name, err.key, err.msg);
        free(*header);
        *header = NULL;
        return err.code == TL_E_NOMEM ? CLI_IO : CLI_INVALID;
    }
    tl_copy_plan_free(plan);
    return CLI_OK;
}

/* The one check that every value fits the destination's type, before a
 * byte is written (SPEC section 7): a float destination holds every value
 * (beyond its range as an infinity), and --saturate clamps. */
static int check_values(const struct options *o, const struct cli_desc *src,
                        const struct cli_data *data, enum tl_dtype ddt)
{
    uint64_t idx[TL_MAX_RANK];
    /* a float type holds every value as a float or an infinity, but for
     * FLOAT4E2M1, which has no NaN */
    if (src->d.dtype == ddt || o->saturate || (tl_dtype_is_float(ddt) && ddt != TL_DT_FLOAT4E2M1) ||
        !tl_convert_find_bad(&src->d, data->bytes, ddt, idx))
        return CLI_OK;
    report_unfit(src, data, ddt);
    return CLI_INVALID;
}

/* The options of a whole-file conversion of the file named name. */
static struct cli_whole whole_options(const struct options *o, const char *name)
{
    return (struct cli_whole){
        .name = name, .format = cli_format_for(o->out, o->format), .out = o->out, .to = o->tos, .nto = o->nto, .to_type = o->to_type,
        .select = o->select, .exclude = o->exclude, .nselect = o->nselect,
        .only = o->only, .drop = o->drop, .nonly = o->nonly, .ndrop = o->ndrop,
        .nexclude = o->nexclude, .threads = (unsigned)o->threads, .quiet = o->quiet,
        .json = o->json, .dequantize = o->dequantize, .allow_expand = o->allow_expand,
        .allow_requantize = o->allow_requantize, .force = o->force,
    };
}

/* The first option given that names one tensor (a whole file or a sharded
 * model takes none of them; a sharded model not --format either), or NULL. */
static const char *one_tensor_option(const struct options *o, bool format)
{
    return o->to_strides ? "--to-strides" : o->to_desc ? "--to-desc"
         : o->to_byte_offset ? "--to-byte-offset"
         : o->fill ? "--fill" : o->out_desc ? "--out-desc" : o->axes ? "--axes"
         : o->name ? "--name" : format && o->format ? "--format" : NULL;
}

/* ---- what the input is, told once ------------------------------------------
 * A convert's DESC is one of four: a sharded model's index (converted into
 * a folder, shards_convert.c), a buffer map of several tensors with its
 * DATA (SPEC 14) or a safetensors or .npz file named whole (converted whole
 * into a file that holds many, convert_all.c), or one tensor.  The file is
 * opened and sniffed once, here, and handed on to whichever path takes it. */
enum input_kind { IN_ONE, IN_SHARDS, IN_MAP, IN_WHOLE, IN_RESHARD };

struct input {
    enum input_kind kind;
    bool opened;                        /* file holds DESC, a regular file */
    struct cli_data file;
    enum tl_format format;
    bool parsed;                        /* tf holds its table (IN_MAP, IN_WHOLE) */
    struct tl_file tf;
};

static void input_close(struct input *in)
{
    if (in->parsed)
        tl_file_free(&in->tf);
    if (in->opened)
        cli_close_data(&in->file);
    in->parsed = in->opened = false;
}

/* Opens DESC when it is a regular file (not options, not inline JSON). */
static int input_open(const struct options *o, struct input *in)
{
    struct stat st;
    const char *p = o->desc;
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
        p++;
    if (in->opened || cli_desc_opts_is(o->desc) || *p == '{' || stat(o->desc, &st) != 0 ||
        !S_ISREG(st.st_mode))
        return CLI_OK;
    int rc = cli_open_file(o->desc, &in->file, &in->format);
    in->opened = rc == CLI_OK;
    return rc;
}

/* The first question, before the outputs are checked (OUT may be a folder
 * only for a sharded model): is DESC a sharded model's index? */
static int classify_shards(const struct options *o, struct input *in)
{
    in->kind = IN_ONE;
    if (o->data)
        return CLI_OK;
    int rc = input_open(o, in);
    if (rc || !in->opened)
        return rc;
    if (in->format == TL_FMT_JSON &&
        tl_shard_index_looks((const char *)in->file.bytes, (size_t)in->file.size))
        in->kind = IN_SHARDS;
    else if (o->max_shard && in->format != TL_FMT_JSON && tl_format_entry(in->format)->many)
        in->kind = IN_RESHARD;          /* one file into shards (SPEC 23) */
    return CLI_OK;
}

/* A buffer map of several tensors with its DATA, into a file that holds
 * many (SPEC section 14)? */
static int classify_map(struct input *in)
{
    if (in->format != TL_FMT_JSON || cli_desc_from_file(&in->file, &in->tf, true) != CLI_OK)
        return CLI_OK;                  /* the one-tensor path says what is wrong */
    in->parsed = true;
    if (in->tf.named && in->tf.count >= 2) {
        in->kind = IN_MAP;
    } else {
        tl_file_free(&in->tf);
        in->parsed = false;
    }
    return CLI_OK;
}

/* The rest, once the outputs are checked: a map, a whole file, or one
 * tensor.  Errors that belong to none of them (options that name one
 * tensor given with a whole file, several tensors into a file that holds
 * one) are said here. */
static int classify_rest(const struct options *o, struct input *in)
{
    static const char cmd[] = "convert";
    struct tl_error err = { 0 };
    if (o->shard || o->index_only) {
        cli_usage_error(cmd, "%s is for a sharded model's index",
                        o->shard ? "--shard" : "--index-only");
        return CLI_USAGE;
    }
    if (o->max_shard || o->force) {
        cli_usage_error(cmd, "%s is for a whole file or a sharded model written into "
                        "OUTDIR/%s", o->max_shard ? "--max-shard-size" : "--force",
                        o->max_shard ? ", not for one tensor" : " (a file OUT is replaced as it is)");
        return CLI_USAGE;
    }
    const struct tl_format_entry *f = cli_format_for(o->out, o->format);
    if (cli_desc_opts_is(o->desc))
        return CLI_OK;                  /* --type, --sizes: one tensor */
    bool to_st = f->many;               /* a file that holds many */
    int rc = input_open(o, in);
    if (rc || !in->opened)
        return rc;
    if (o->data && to_st && !o->to_strides && !o->to_desc && !o->fill && !o->out_desc &&
        !o->name)
        return classify_map(in);
    const struct tl_format_entry *fe = tl_format_entry(in->format);
    if (o->data || in->format == TL_FMT_JSON || !fe->many || !fe->read)
        return CLI_OK;
    if (!to_st) {                       /* one tensor: its own path; several: say how */
        if (tl_file_parse(in->file.bytes, in->file.size, &in->tf, &err))
            return CLI_OK;              /* the one-tensor path says what is wrong */
        size_t count = in->tf.count;
        tl_file_free(&in->tf);
        if (count > 1) {
            char q[128], many[128];
            cli_formats_text("@MANY_OR@", many, sizeof many);
            if (o->format)
                cli_error("%s: holds %zu tensors: name one as %s:NAME, or "
                        "convert them all into a %s OUT (--format %s writes one tensor)",
                        in->file.name, count, in->file.name, many,
                        tl_quote(o->format, q, sizeof q));
            else
                cli_error("%s: holds %zu tensors: name one as %s:NAME, or "
                        "convert them all into a %s OUT (%s is named neither)",
                        in->file.name, count, in->file.name, many,
                        tl_quote(o->out, q, sizeof q));
            return CLI_INVALID;
        }
        return CLI_OK;
    }
    const char *bad = one_tensor_option(o, false);
    if (bad) {
        cli_usage_error(cmd, "%s names one tensor: with a whole file give --to, --to-type, "
                        "--select or --exclude (or convert FILE:NAME)", bad);
        return CLI_USAGE;
    }
    if (tl_file_parse(in->file.bytes, in->file.size, &in->tf, &err)) {
        cli_report(in->file.name, &err);
        return CLI_INVALID;
    }
    if (!in->tf.named) {                /* one unnamed tensor (an ONNX .pb): its own path */
        tl_file_free(&in->tf);
        return CLI_OK;
    }
    in->parsed = true;
    in->kind = IN_WHOLE;
    return CLI_OK;
}

/* A buffer map's tensors, whole, from DATA (SPEC section 14). */
static int run_map(const struct options *o, struct input *in)
{
    struct cli_data data;
    int rc;
    if ((rc = cli_file_sound(&in->tf, in->file.name)) != CLI_OK ||
        (rc = cli_open_data(o->data, &data)) != CLI_OK)
        return rc;
    for (size_t i = 0; rc == CLI_OK && i < in->tf.count; i++) {
        struct tl_info info;
        tl_desc_classify(&in->tf.tensors[i].desc, &info);
        if (info.elements_bytes > data.size) {
            cli_error("%s: file has %llu bytes but tensor '%s' of %s "
                    "needs %llu", data.name, (unsigned long long)data.size,
                    in->tf.tensors[i].name, in->file.name,
                    (unsigned long long)info.elements_bytes);
            rc = CLI_INVALID;
        }
    }
    struct cli_whole w = whole_options(o, in->file.name);
    if (rc == CLI_OK)
        rc = cli_convert_whole(&w, &in->tf, &data, NULL);
    cli_close_data(&data);
    return rc;
}

/* A safetensors or .npz file's tensors, whole (convert_all.c). */
static int run_whole(const struct options *o, struct input *in)
{
    int rc = cli_file_sound(&in->tf, in->file.name);
    if (rc == CLI_OK) {
        struct cli_whole w = whole_options(o, in->file.name);
        rc = cli_convert_whole(&w, &in->tf, &in->file, NULL);
    }
    return rc;
}

/* Whether OUT names a folder: OUTDIR/, or one that exists. */
static bool out_is_folder(const char *out)
{
    struct stat st;
    size_t n = strlen(out);
    return (n && out[n - 1] == '/') || (stat(out, &st) == 0 && S_ISDIR(st.st_mode));
}

/* A sharded model's index, converted whole into a folder (shards_convert.c). */
static int run_shards(const struct options *o)
{
    const char *bad = one_tensor_option(o, true);
    if (bad) {
        cli_usage_error("convert", "%s names one tensor: a sharded model converts into a "
                        "folder with --to, --to-type, --select or --exclude (or convert "
                        "INDEX:NAME)", bad);
        return CLI_USAGE;
    }
    if (!out_is_folder(o->out)) {
        cli_usage_error("convert", "a sharded model converts into a folder: give OUT as "
                        "OUTDIR/ (its shards and index are written there)");
        return CLI_USAGE;
    }
    if (o->force && (o->shard || o->index_only)) {
        cli_usage_error("convert", "--force replaces OUTDIR with the whole model converted: it "
                        "goes with neither --shard nor --index-only (their jobs share OUTDIR)");
        return CLI_USAGE;
    }
    if (o->max_shard && (o->shard || o->index_only)) {
        cli_usage_error("convert", "--max-shard-size re-shards the whole model in one run: it "
                        "goes with neither --shard nor --index-only");
        return CLI_USAGE;
    }
    struct cli_whole w = whole_options(o, o->desc);
    w.format = tl_format_entry(TL_FMT_SAFETENSORS);
    return cli_convert_shards(&w, o->desc, o->shard, o->index_only, o->max_shard);
}

/* A tensor file's tensors into a folder of shards (--max-shard-size). */
static int run_reshard(const struct options *o, struct input *in)
{
    static const char cmd[] = "convert";
    struct tl_error err = { 0 };
    const char *bad = one_tensor_option(o, true);
    if (bad) {
        cli_usage_error(cmd, "%s names one tensor: --max-shard-size writes a file's tensors "
                        "into a folder of shards", bad);
        return CLI_USAGE;
    }
    if (!out_is_folder(o->out)) {
        cli_usage_error(cmd, "--max-shard-size writes shards and their index into a folder: "
                        "give OUT as OUTDIR/");
        return CLI_USAGE;
    }
    if (tl_file_parse(in->file.bytes, in->file.size, &in->tf, &err)) {
        cli_report(in->file.name, &err);
        return CLI_INVALID;
    }
    in->parsed = true;
    if (!in->tf.named) {                /* as a .npy is: one tensor, not a model */
        cli_usage_error(cmd, "--max-shard-size is for a whole file or a sharded model written "
                        "into OUTDIR/, not for one tensor (%s holds one, unnamed)",
                        in->file.name);
        return CLI_USAGE;
    }
    int rc = cli_file_sound(&in->tf, in->file.name);
    struct cli_whole w = whole_options(o, in->file.name);
    w.format = tl_format_entry(TL_FMT_SAFETENSORS);
    return rc ? rc : cli_reshard_file(&w, &in->tf, &in->file, o->desc, o->max_shard);
}

/* The one tensor's description, from the file `in` opened, its scaled pair decoded, or DESC
 * as it is; the options that choose among a whole file's tensors are usage errors here. */
static int load_one(const struct options *o, struct input *in, struct cli_desc *src)
{
    int rc;
    if (o->nselect || o->nexclude) {
        cli_usage_error("convert", "--select and --exclude choose among the tensors of a whole "
                        "safetensors file converted into a safetensors OUT");
        return CLI_USAGE;
    }
    if (o->nonly || o->ndrop) {
        cli_usage_error("convert", "--only and --drop choose the tensors a whole file or model "
                        "writes: convert FILE, not one tensor");
        return CLI_USAGE;
    }
    if (o->dequantize) {               /* its pair, decoded: never ignored (SPEC 23) */
        input_close(in);
        rc = o->axes ? (cli_usage_error("convert", "--axes goes with no --dequantize (the "
                                                   "decoded weight's sizes are its shape)"),
                        CLI_USAGE)
                     : cli_load_dequantized(o->desc, src);
    } else if (in->opened) {
        in->opened = false;             /* src takes the file over */
        rc = cli_load_desc_file(o->desc, &in->file, in->format, o->axes, src);
    } else {
        rc = cli_load_desc(o->desc, o->axes, src);
    }
    return rc;
}

/* One tensor, from the file `in` opened (or from DESC as it is). */
static int run_one(const struct options *o, struct input *in)
{
    struct cli_desc src, dst;
    struct cli_data data;
    uint8_t fill[8] = { 0 }, *header = NULL;
    size_t hlen = 0;
    int rc = load_one(o, in, &src);
    if (rc)
        return rc;
    /* a tensor file may be converted in place; a JSON description may not
     * become the data */
    if (src.format == TL_FMT_JSON && same_file(o->out, o->desc)) {
        cli_usage_error("convert", "OUT is the description %s: it would be overwritten; give -o "
                        "another name", src.name);
        rc = CLI_USAGE;
    }
    if (!rc && !(rc = cli_check_data_arg("convert", &src, o->data, false)) &&
        !(rc = plan_output(o, &src, &dst, &header, &hlen, fill)))
        rc = cli_open_input_data(&src, o->data, src.info.elements_bytes, &data);
    cli_desc_release(&src);
    if (rc) {
        free(header);
        return rc;
    }
    if (!(rc = cli_require_elements(&src, &data))) {
        cli_note_trailing(&src, &data);
        cli_note_overlap(&src);
        cli_simd_note();
        rc = check_values(o, &src, &data, dst.d.dtype);
    }
    /* OUT holds the destination's elements' bytes, or its declared total */
    uint64_t size = dst.info.elements_bytes;
    if (dst.d.total_given && tl_desc_origin(&dst.d) + dst.d.total_bytes > size)
        size = tl_desc_origin(&dst.d) + dst.d.total_bytes;
    struct cli_out out_desc;
    struct cli_writer w;
    bool progress = !o->quiet && isatty(2) &&
                    dst.info.element_count * tl_dtype_size(src.d.dtype) > PROGRESS_OVER;
    if (!rc && o->out_desc)
        rc = write_desc(o->out_desc, &dst.d, &out_desc);
    if (!rc && (rc = cli_writer_open(&w, o->out, size, (unsigned)o->threads, progress,
                                     o->out_desc ? &out_desc : NULL)) == CLI_OK) {
        struct tl_input from = cli_input(&data, NULL);
        struct tl_error err = { 0 };
        rc = tl_writer_put(&w.w, header, hlen, &err);
        if (rc == 0)
            rc = tl_writer_tensor(&w.w, &src.d, data.bytes, &from, &dst.d, size,
                                  o->fill ? fill : NULL, &err);
        if ((rc = cli_writer_status(&w, rc, &err)) == CLI_OK)
            rc = cli_writer_commit(&w);
        else
            cli_writer_abort(&w);
    }
    free(header);
    cli_close_data(&data);
    uint64_t overflow = rc == CLI_OK ? w.w.overflow : 0;
    if (overflow)
        cli_note("%s: %" PRIu64 " value%s beyond the range of %s became \xc2\xb1inf\n", src.name,
                 overflow, overflow == 1 ? "" : "s", tl_dtype_name(dst.d.dtype));
    if (rc == CLI_OK && o->json)
        rc = print_result(&dst.d, size, overflow);
    return rc;
}

static int run(const struct options *o)
{
    struct input in;
    memset(&in, 0, sizeof in);
    /* OUT a folder: the index's question comes before the checks of a file OUT */
    int rc = classify_shards(o, &in);
    if (rc == CLI_OK && in.kind == IN_SHARDS) {
        input_close(&in);
        return run_shards(o);
    }
    if (rc == CLI_OK && in.kind == IN_RESHARD) {
        rc = run_reshard(o, &in);
        input_close(&in);
        return rc;
    }
    if (rc == CLI_OK && !(rc = check_outputs(o)) && !(rc = classify_rest(o, &in))) {
        switch (in.kind) {
        case IN_MAP:   rc = run_map(o, &in); break;
        case IN_WHOLE: rc = run_whole(o, &in); break;
        default:       rc = run_one(o, &in); break;
        }
    }
    input_close(&in);
    return rc;
}

/* convert's options, as argtable2 parses them. */
struct convert_args {
    struct arg_file *desc, *data, *out, *to_desc, *out_desc;
    struct arg_str *to, *to_strides, *to_byte_offset, *fill, *axes, *format, *select, *exclude,
                   *only, *drop, *name, *to_type, *shard, *max_shard, *external_data,
                   *size_threshold, *quant;
    struct arg_int *threads;
    struct arg_lit *saturate, *dequantize, *allow_expand, *allow_requantize, *index_only, *force,
                   *inline_data, *quiet, *json, *help;
    struct arg_end *end;
    struct cli_desc_opts dopt;
};

/* Declares convert's options into a (gloss and fgloss hold texts made
 * from the format table, and must live as long as a). */
static void declare_args(struct convert_args *a, char *gloss, size_t ng, char *fgloss, size_t nf)
{
    a->desc = arg_file1(NULL, NULL, "DESC", cli_formats_text("source description: a JSON file, '-' or inline JSON, or a tensor file (@FORMATS@, a shard index; FILE[:NAME])", gloss, ng));
    a->data = arg_file0(NULL, NULL, "DATA", "source data file ('-' for standard input); none with a tensor file");
    a->out = arg_file1("o", "output", "OUT", "output file ('-' for standard output); may be DATA itself");
    a->to = arg_strn(NULL, "to", "L", 0, TL_MAX_RANK, "destination layout: letters (NHWC) or indices (0,2,3,1), packed; one a rank (--to OHWI --to OWI)");
    a->to_strides = arg_str0(NULL, "to-strides", "LIST", "destination strides in elements (padding allowed)");
    a->to_desc = arg_file0(NULL, "to-desc", "DESC2", "a whole destination description");
    a->to_byte_offset = arg_str0(NULL, "to-byte-offset", "N", "where element 0 starts in a raw OUT (zero bytes before it; default 0)");
    a->fill = arg_str0(NULL, "fill", "V", "value for the slots no element reaches (default 0)");
    a->out_desc = arg_file0(NULL, "out-desc", "FILE", "also write the destination description");
    a->threads = arg_int0(NULL, "threads", "N", "threads to use (default: the online CPUs)");
    a->axes = arg_str0(NULL, "axes", "L", "a tensor file's dimensions as logical axes, outermost first (NHWC, 0,2,3,1)");
    a->format = arg_str0(NULL, "format", "F", cli_formats_text("@WRITES@ (any case): what OUT is (default: by OUT's name's ending, as --formats lists them, in any case; else raw)", fgloss, nf));
    a->only = arg_strn(NULL, "only", "GLOB", 0, CLI_MAX_GLOBS, "whole file: write only the tensors whose names match (repeatable; model.* out of a training checkpoint)");
    a->drop = arg_strn(NULL, "drop", "GLOB", 0, CLI_MAX_GLOBS, "whole file: leave out the tensors whose names match (repeatable)");
    a->select = arg_strn(NULL, "select", "GLOB", 0, CLI_MAX_GLOBS, "whole file: change only the tensors whose names match (repeatable)");
    a->exclude = arg_strn(NULL, "exclude", "GLOB", 0, CLI_MAX_GLOBS, "whole file: leave the tensors whose names match as they are (repeatable)");
    a->name = arg_str0(NULL, "name", "N", "the tensor's name in a safetensors OUT (default: its name in the source, else 'tensor')");
    a->to_type = arg_str0(NULL, "to-type", "T", "convert the values to data type T on the way (FLOAT16, UINT8, INT4, ...; into a .gguf OUT also Q8_0, Q4_0, Q4_1: group-quantized weights repacked where their groups allow)");
    a->saturate = arg_lit0(NULL, "saturate", "with a conversion: clamp values outside T's range (NaN to 0) instead of failing");
    a->dequantize = arg_lit0(NULL, "dequantize", "decode scaled weights (FP8 W beside W_scale_inv, MXFP4 W_blocks beside W_scales; GPTQ, AWQ and compressed-tensors P.weight from its packed parts) into W, FLOAT32 or --to-type: a whole file's, a sharded model's, or FILE:W alone");
    a->quant = arg_str0(NULL, "quant", "SCHEME", "group-quantized weights are SCHEME's: gptq, gptq-v2, awq, compressed-tensors, or none (left as their parts); default: config.json's quantization_config beside the file, else their names and shapes");
    a->allow_requantize = arg_lit0(NULL, "allow-requantize", "into a .gguf OUT with --to-type Q8_0, Q4_0 or Q4_1: requantize tensors already of a ggml block type (refused otherwise)");
    a->allow_expand = arg_lit0(NULL, "allow-expand", "whole file: write a view that spreads its stored bytes over more than 64 times as many (and 64 MiB)");
    a->shard = arg_str0(NULL, "shard", "FILE", "sharded model: convert only this shard into OUTDIR/ (one job of many)");
    a->index_only = arg_lit0(NULL, "index-only", "sharded model: write OUTDIR/'s index from the shards converted there");
    a->max_shard = arg_str0(NULL, "max-shard-size", "SIZE", "a whole file or a sharded model: into OUTDIR/ as shards of at most SIZE bytes of tensors and their index (5GB, 500MiB; one file when all fit)");
    a->external_data = arg_str0(NULL, "external-data", "FILE", "ONNX model into an .onnx OUT: its weights of at least 1 KiB (--size-threshold) moved into one data file beside OUT (FILE, default OUT.data), each at a multiple of 4096");
    a->external_data->hdr.flag |= ARG_HASOPTVALUE;
    a->size_threshold = arg_str0(NULL, "size-threshold", "N", "with --external-data: the bytes from which a weight moves out (default 1024)");
    a->inline_data = arg_lit0(NULL, "inline", "ONNX model into an .onnx OUT: its weights in external data brought into the model (refused past protocol buffers' 2 GiB)");
    a->force = arg_lit0(NULL, "force", "with OUTDIR/: replace an OUTDIR that exists and is not empty (refused otherwise)");
    a->quiet = arg_lit0("q", "quiet", "no progress bar");
    a->json = arg_lit0(NULL, "json", "print the destination description, bytesWritten and overflow (values that became +-inf)");
    a->help = arg_lit0("h", "help", "print this help and exit");
    cli_desc_opts_init(&a->dopt, "convert", 1);
    a->end = arg_end(5);
}

/* The usage errors convert's options make together (SPEC 13, 19): --to
 * twice for a rank, a --max-shard-size that is no size (else *max_bytes),
 * no rule or several, a --format it does not write, --threads below 1.
 * @return CLI_CONTINUE, or CLI_USAGE after the message. */
static int check_usage(const struct convert_args *a, uint64_t *max_bytes)
{
    int rc = CLI_CONTINUE;
    int forms = (a->to->count > 0) + a->to_strides->count + a->to_desc->count;
    /* --to once a rank (the rank whose layout it parses as) */
    int twice = -1;
    unsigned rank_of[TL_MAX_RANK] = { 0 }, order[TL_MAX_RANK];
    for (int i = 0; i < a->to->count; i++) {
        for (unsigned r = 1; r <= TL_MAX_RANK && !rank_of[i]; r++)
            if (tl_layout_parse(r, a->to->sval[i], order, NULL) == 0)
                rank_of[i] = r;
        for (int k = 0; k < i && twice < 0; k++)
            if (rank_of[i] && rank_of[i] == rank_of[k])
                twice = i;
    }
    /* no rule: a format change alone is a conversion (SPEC 19), every
     * tensor as it is, into a file whose format has a header and is not
     * the input's */
    const struct tl_format_entry *of = a->format->count ? tl_format_written(a->format->sval[0])
                                                : cli_format_for(a->out->filename[0], NULL);
    enum tl_format from = cli_sniff_arg(a->desc->filename[0]);
    bool torch = from == TL_FMT_PYTORCH || cli_index_of_pytorch(a->desc->filename[0]);
    bool format_change = (of && of->header && strcmp(of->name, tl_format_name(from)) != 0) ||
                         (torch && from == TL_FMT_JSON);    /* a PyTorch model's index */
    *max_bytes = 0;
    bool bad_size = a->max_shard->count &&
                    (!cli_parse_size(a->max_shard->sval[0], max_bytes) || !*max_bytes);
    const char *foreign;
    int none = -1;                      /* a --to that is a layout of no rank */
    for (int i = 0; i < a->to->count && none < 0; i++)
        none = rank_of[i] ? -1 : i;
    if (none >= 0) {
        struct tl_error err = { 0 };
        const char *t = a->to->sval[none];
        unsigned guess = 1;             /* the rank it reads as: letters, or indices */
        for (const char *c = t; *c; c++)
            guess += *c == ',';
        if (guess == 1 && strlen(t) <= TL_MAX_RANK)
            guess = strlen(t) ? (unsigned)strlen(t) : 1;
        tl_layout_parse(guess <= TL_MAX_RANK ? guess : TL_MAX_RANK, t, order, &err);
        cli_usage_error("convert", "--to: %s", err.msg);
        rc = CLI_USAGE;
    } else if (!a->format->count && strcmp(a->out->filename[0], "-") != 0 &&
               (foreign = tl_format_unwritten(a->out->filename[0], !torch))) {
        char q[128], names[64];
        cli_usage_error("convert", "OUT '%s' would be %s, which this tool does not write: it "
                        "writes %s (--format raw writes raw bytes under any name)%s",
                        tl_quote(a->out->filename[0], q, sizeof q), foreign,
                        tl_format_write_list(names, sizeof names),
                        from == TL_FMT_ONNX ? "; an ONNX model is rewritten with --external-data "
                                              "or --inline" : "");
        rc = CLI_USAGE;
    } else if (twice >= 0) {
        char q[64];
        cli_usage_error("convert", "--to %s: a layout of rank %u is given already (--to once "
                        "a rank)", tl_quote(a->to->sval[twice], q, sizeof q), rank_of[twice]);
        rc = CLI_USAGE;
    } else if (bad_size) {
        char q[64];
        cli_usage_error("convert", "--max-shard-size %s: not a size (a number of bytes, "
                        "more than 0, with an optional unit: 5GB, 500MB, 2GiB)",
                        tl_quote(a->max_shard->sval[0], q, sizeof q));
        rc = CLI_USAGE;
    } else if (forms > 1 || (forms == 0 && !a->to_type->count && !a->index_only->count &&
                             !a->max_shard->count && !a->only->count && !a->drop->count &&
                             !format_change && !a->dequantize->count)) {
        cli_usage_error("convert", forms ? "give only one of --to, --to-strides, --to-desc"
                                         : "missing --to, --to-strides, --to-desc or "
                                           "--to-type");
        rc = CLI_USAGE;
    } else if (a->format->count && !tl_format_written(a->format->sval[0])) {
        char q[64], names[64];
        cli_usage_error("convert", "--format: '%s' is not %s",
                        tl_quote(a->format->sval[0], q, sizeof q),
                        tl_format_write_list(names, sizeof names));
        rc = CLI_USAGE;
    } else if (a->threads->count && a->threads->ival[0] < 1) {
        cli_usage_error("convert", "--threads must be at least 1");
        rc = CLI_USAGE;
    }
    return rc;
}

/* The options a's parse gives. */
static struct options options_of(const struct convert_args *a, uint64_t max_bytes)
{
    return (struct options){
        .desc = a->desc->filename[0], .data = a->data->count ? a->data->filename[0] : NULL,
        .out = a->out->filename[0],
        .to = a->to->count ? a->to->sval[0] : NULL,
        .tos = a->to->sval, .nto = a->to->count,
        .to_strides = a->to_strides->count ? a->to_strides->sval[0] : NULL,
        .to_desc = a->to_desc->count ? a->to_desc->filename[0] : NULL,
        .to_byte_offset = a->to_byte_offset->count ? a->to_byte_offset->sval[0] : NULL,
        .fill = a->fill->count ? a->fill->sval[0] : NULL,
        .out_desc = a->out_desc->count ? a->out_desc->filename[0] : NULL,
        .axes = a->axes->count ? a->axes->sval[0] : NULL,
        .format = a->format->count ? a->format->sval[0] : NULL,
        .to_type = a->to_type->count ? a->to_type->sval[0] : NULL,
        .name = a->name->count ? a->name->sval[0] : NULL,
        .shard = a->shard->count ? a->shard->sval[0] : NULL,
        .index_only = a->index_only->count > 0, .max_shard = max_bytes,
        .select = a->select->sval, .nselect = a->select->count,
        .only = a->only->sval, .nonly = a->only->count,
        .drop = a->drop->sval, .ndrop = a->drop->count,
        .exclude = a->exclude->sval, .nexclude = a->exclude->count,
        .saturate = a->saturate->count > 0, .dequantize = a->dequantize->count > 0,
        .allow_expand = a->allow_expand->count > 0,
        .allow_requantize = a->allow_requantize->count > 0, .force = a->force->count > 0,
        .threads = a->threads->count ? a->threads->ival[0] : 0,
        .quiet = a->quiet->count > 0, .json = a->json->count > 0,
    };
}

/* --external-data or --inline: an ONNX model rewritten (onnx_rewrite.c),
 * alone: no rule, no other output, no data. */
static int onnx_rewrite(const struct convert_args *a)
{
    uint64_t threshold = 1024;
    bool external = a->external_data->count > 0;
    const char *other = a->to->count ? "--to" : a->to_type->count ? "--to-type"
                      : a->data->count ? "DATA" : a->only->count ? "--only"
                      : a->drop->count ? "--drop" : a->max_shard->count ? "--max-shard-size"
                      : a->dequantize->count ? "--dequantize" : a->format->count ? "--format"
                      : a->out_desc->count ? "--out-desc" : NULL;
    if (external && a->inline_data->count) {
        cli_usage_error("convert", "--external-data and --inline say opposite things: give one");
        return CLI_USAGE;
    }
    if (!external && !a->inline_data->count) {
        cli_usage_error("convert", "--size-threshold goes with --external-data");
        return CLI_USAGE;
    }
    if (a->size_threshold->count && !cli_parse_size(a->size_threshold->sval[0], &threshold)) {
        cli_usage_error("convert", "--size-threshold: '%s' is not a count of bytes (1024, 4KiB)",
                        a->size_threshold->sval[0]);
        return CLI_USAGE;
    }
    if (other) {
        cli_usage_error("convert", "%s rewrites an ONNX model's storage and nothing else: %s "
                        "goes with a conversion to another format", external ? "--external-data"
                        : "--inline", other);
        return CLI_USAGE;
    }
    const char *file = external && a->external_data->sval[0][0] ? a->external_data->sval[0] : NULL;
    return cli_onnx_rewrite(a->desc->filename[0], a->out->filename[0], external, file, threshold,
                            a->quiet->count > 0);
}

int cmd_convert(int argc, char **argv)
{
    static char gloss[512], fgloss[256];
    struct convert_args a;
    declare_args(&a, gloss, sizeof gloss, fgloss, sizeof fgloss);
    void *table[] = { a.desc, a.data, a.dopt.type, a.dopt.sizes, a.dopt.strides, a.dopt.layout,
                      a.dopt.byte_offset, a.dopt.total_size, a.dopt.file_offset, a.dopt.alignment,
                      a.out, a.to, a.to_strides, a.to_desc, a.to_byte_offset, a.to_type,
                      a.saturate, a.dequantize, a.allow_expand, a.allow_requantize, a.fill,
                      a.out_desc, a.axes, a.format, a.name, a.select, a.exclude, a.only, a.drop, a.shard, a.index_only, a.max_shard,
                      a.external_data, a.size_threshold, a.inline_data, a.quant,
                      a.force, a.threads, a.quiet, a.json, a.help, a.end };
    int rc = CLI_IO;
    uint64_t max_bytes = 0;
    if (arg_nullcheck(table) == 0)
        rc = cli_parse_args_desc(argc, argv, table, about, &a.dopt);
    if (rc == CLI_CONTINUE && (a.external_data->count || a.inline_data->count ||
                               a.size_threshold->count))
        rc = onnx_rewrite(&a);
    if (rc == CLI_CONTINUE)
        rc = check_usage(&a, &max_bytes);
    if (rc == CLI_CONTINUE && a.quant->count)
        rc = cli_quant_option("convert", a.quant->sval[0]);
    if (rc == CLI_CONTINUE) {
        struct options o = options_of(&a, max_bytes);
        rc = run(&o);
    }
    arg_freetable(table, sizeof table / sizeof table[0]);
    return rc;
}
