/*
 * load.c - descriptions as the commands take them: a JSON file, '-' or
 * inline JSON, a tensor file (FILE[:NAME], any format of the format table),
 * a sharded model's index, or --type/--sizes options; the checks of a
 * description against its data, and the notes about them.  Opening input
 * files is input.c's.
 */
#define _DEFAULT_SOURCE 1           /* madvise */
#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"


/* Parses JSON text, a description or a buffer map, into a tensor table. */
static int parse_json(const unsigned char *text, size_t len, const char *name,
                      struct tl_file *tf)
{
    struct tl_error err = { 0 };
    if (len > CLI_DESC_MAX_BYTES) {
        cli_error("%s: description is larger than 1 MiB", name);
        return CLI_INVALID;
    }
    if (tl_desc_table_parse_json((const char *)text, len, tf, &err)) {
        cli_report(name, &err);
        return CLI_INVALID;
    }
    return CLI_OK;
}

/* What a binary file's first bytes look like: up to 8 of them in hex, and
 * what they start when they are a format people often try here. */
static void first_bytes(const unsigned char *t, uint64_t size, char *buf, size_t cap)
{
    static const struct { const char *magic; size_t n; const char *what; } known[] = {
        { "\x7f" "ELF", 4, "an executable" },
        { "\x1f\x8b", 2, "gzip" },
        { "\x89PNG", 4, "a PNG image" },
        { "\x89HDF", 4, "HDF5, as Keras' .h5" },
        { "\x80\x02", 2, "a Python pickle" },
        { "%PDF", 4, "a PDF" },
        { "\x08", 1, "perhaps protocol buffers, as ONNX" },
    };
    size_t n = (size_t)snprintf(buf, cap, "first bytes");
    for (size_t i = 0; i < 8 && i < size && n < cap; i++)
        n += (size_t)snprintf(buf + n, cap - n, " %02x", t[i]);
    for (size_t k = 0; k < sizeof known / sizeof known[0] && n < cap; k++) {
        if (size >= known[k].n && memcmp(t, known[k].magic, known[k].n) == 0) {
            snprintf(buf + n, cap - n, ": %s", known[k].what);
            break;
        }
    }
}

int cli_desc_from_file(const struct cli_data *file, struct tl_file *tf, bool as_desc)
{
    const unsigned char *t = file->bytes;
    unsigned char c = file->size ? t[0] : ' ';
    bool bom = file->size >= 3 && t[0] == 0xef && t[1] == 0xbb && t[2] == 0xbf;
    if (file->size == 0) {
        char list[128];
        cli_error("%s: is empty, not a JSON description, a %s file",
                file->name, tl_format_list(list, sizeof list, " or "));
        return CLI_INVALID;
    }
    if (file->size >= 2 && ((t[0] == 0xff && t[1] == 0xfe) || (t[0] == 0xfe && t[1] == 0xff))) {
        cli_error("%s: is UTF-16 text, and a description must be UTF-8 "
                "(iconv -f UTF-16 -t UTF-8 converts it)", file->name);
        return CLI_INVALID;
    }
    /* binary: its first byte, or several control bytes in its first 4 KiB
     * (one stray byte in a text is a JSON error with its line and column) */
    size_t control = (c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7f ? 4 : 0;
    for (size_t i = 0; i < file->size && i < 4096; i++) {
        unsigned char b = t[i];
        control += (b < 0x20 && b != '\t' && b != '\n' && b != '\r') || b == 0x7f;
    }
    if (control >= 4 || (c >= 0x80 && !bom)) {
        char head[64], list[128];
        first_bytes(t, file->size, head, sizeof head);
        cli_error("%s: holds binary data (%s), not a file this tool reads "
                "(%s, %s%s)", file->name, head, tl_format_entry(TL_FMT_JSON)->label,
                tl_format_list(list, sizeof list, ", "),
                as_desc ? "; DESC and DATA swapped?" : "");
        return CLI_INVALID;
    }
    /* text that no JSON value starts with (a README, a Makefile, a CSV of
     * names): not a file of any format the tool reads */
    size_t i = bom ? 3 : 0;
    while (i < file->size && (t[i] == ' ' || t[i] == '\t' || t[i] == '\n' || t[i] == '\r'))
        i++;
    const char *rest = (const char *)t + i;
    size_t left = (size_t)file->size - i;
    bool word = (left >= 4 && (memcmp(rest, "true", 4) == 0 || memcmp(rest, "null", 4) == 0)) ||
                (left >= 5 && memcmp(rest, "false", 5) == 0);
    if (i < file->size && !strchr("{[\"-0123456789", t[i]) && !word) {
        cli_error("%s: is text, not a file this tool reads (a JSON "
                "description or buffer map, a sharded model's index, .npy, .npz, "
                "safetensors)", file->name);
        return CLI_INVALID;
    }
    return parse_json(file->bytes, (size_t)file->size, file->name, tf);
}

bool cli_empty_tensor(const char *arg, unsigned *ndim, uint64_t *shape)
{
    char path[4096];
    const char *name;
    enum tl_format format = cli_sniff_arg(arg);
    if (format == TL_FMT_JSON)
        return false;
    cli_split_name(arg, path, sizeof path, &name);
    struct cli_data file;
    struct tl_file tf;
    enum tl_format f;
    if (cli_open_file(path, &file, &f))
        return false;
    bool empty = false;
    struct tl_error err = { 0 };
    if (tl_file_parse(file.bytes, file.size, &tf, &err) == 0) {
        const struct tl_file_tensor *t = name ? tl_file_find(&tf, name)
                                       : tf.count == 1 ? &tf.tensors[0] : NULL;
        enum tl_dtype dt;
        for (unsigned i = 0; t && i < t->ndim; i++)
            empty |= t->shape[i] == 0;
        empty &= t && tl_format_dtype(format, t->dtype, &dt) == 0;
        if (empty) {
            *ndim = t->ndim;
            memcpy(shape, t->shape, t->ndim * sizeof shape[0]);
        }
        tl_file_free(&tf);
    }
    cli_close_data(&file);
    return empty;
}

int cli_axis_names(const struct cli_desc *c, const char *axes, char names[TL_MAX_RANK])
{
    const struct tl_desc *d = &c->d;
    const char *letters = tl_axis_letters(d->rank);
    bool file = c->format != TL_FMT_JSON && !c->options;
    unsigned order[TL_MAX_RANK];
    bool given = file && axes && strlen(axes) == d->rank &&
                 tl_layout_parse(d->rank, axes, order, NULL) == 0;
    for (unsigned i = 0; given && i < d->rank; i++)
        given = (axes[i] >= 'A' && axes[i] <= 'Z') || (axes[i] >= 'a' && axes[i] <= 'z');
    if (file && axes && !given)
        file = false;           /* --axes by indices: DirectML's logical axes, named so */
    for (unsigned i = 0; i < d->rank; i++)
        names[i] = !file && letters ? letters[i] : !file ? '-' : (char)('0' + i % 10);
    for (unsigned k = 0; given && k < d->rank; k++)
        names[order[k]] = (char)(axes[k] >= 'a' ? axes[k] - 'a' + 'A' : axes[k]);
    return !file ? CLI_AXES_DML : given ? CLI_AXES_GIVEN : CLI_AXES_POSITIONS;
}

bool cli_map_whole(const char *arg, struct tl_file *tf)
{
    const char *p = arg;
    struct stat st;
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
        p++;
    bool inline_json = *p == '{' && stat(arg, &st) != 0;
    if (!inline_json && (strcmp(arg, "-") == 0 || cli_desc_opts_is(arg) || stat(arg, &st) != 0 ||
                         !S_ISREG(st.st_mode) || cli_sniff_arg(arg) != TL_FMT_JSON))
        return false;
    struct cli_data file;
    memset(&file, 0, sizeof file);
    if (!inline_json) {
        enum tl_format f;
        if (cli_open_file(arg, &file, &f))
            return false;
    }
    const char *text = inline_json ? arg : (const char *)file.bytes;
    size_t len = inline_json ? strlen(arg) : (size_t)file.size;
    struct tl_error err = { 0 };
    bool map = len > 0 && !tl_shard_index_looks(text, len) &&     /* an empty file: no map */
               tl_desc_table_parse_json(text, len, tf, &err) == 0;
    cli_close_data(&file);
    if (map && (!tf->named || tf->count < 2)) {
        tl_file_free(tf);
        map = false;
    }
    return map;
}

/* Picks the tensor of a parsed file that the argument names (*picked). */
static int pick_tensor(struct tl_file *tf, const char *file, const char *tname,
                       struct cli_desc *out, const struct tl_file_tensor **picked)
{
    char q[128];
    const struct tl_file_tensor *t = NULL;
    int rc = cli_file_sound(tf, file);
    if (rc)
        return rc;
    if (!tf->named) {
        if (tname && tf->format == TL_FMT_JSON) {
            cli_error("%s: is a JSON description, not a safetensors "
                    "file or a buffer map: ':%s' names nothing", file,
                    tl_quote(tname, q, sizeof q));
            return CLI_USAGE;
        }
        if (tname) {
            cli_error("%s: a .%s file holds one unnamed tensor, so ':%s' "
                    "names nothing", file, tl_format_name(tf->format),
                    tl_quote(tname, q, sizeof q));
            return CLI_USAGE;
        }
        t = &tf->tensors[0];
    } else if (tname) {
        t = tl_file_find(tf, tname);
        if (!t) {
            const char *near = cli_did_you_mean(tname, (const char *const *)&tf->tensors[0].name, tf->count,
                                                sizeof tf->tensors[0]);
            char q2[128];
            cli_error("%s: holds no tensor named '%s' (%s%s%s'tensorlayout list %s' lists "
                      "them)", file, tl_quote(tname, q, sizeof q), near ? "did you mean '" : "",
                      near ? tl_quote(near, q2, sizeof q2) : "", near ? "'? " : "", file);
            return CLI_INVALID;
        }
    } else if (tf->count == 1) {
        t = &tf->tensors[0];
    } else if (strcmp(file, "<inline>") == 0 || strcmp(file, "<stdin>") == 0) {
        cli_error("%s: holds %zu tensors: give the map as a file and name "
                "one as FILE:NAME", file, tf->count);
        return CLI_INVALID;
    } else {
        cli_error("%s: holds %zu tensors: name one as %s:NAME "
                "('tensorlayout list %s%s' lists them)", file, tf->count, file, file,
                tf->format == TL_FMT_JSON ? " DATA" : "");
        return CLI_INVALID;
    }
    struct tl_error err = { 0 };
    if (tl_file_tensor_decodable(t, &err)) {
        cli_report(file, &err);
        return CLI_INVALID;
    }
    *picked = t;
    out->d = t->desc;
    out->scalar = t->scalar;
    out->blocks = t->encoding == TL_ENC_GGML;
    out->ggml_type = t->ggml_type;
    out->blocks_at = t->stored_at;
    out->blocks_bytes = t->stored_bytes;
    out->shares_file = tf->named && tf->format != TL_FMT_JSON;
    for (size_t i = 0; tf->format == TL_FMT_JSON && tf->named && i < tf->count; i++) {
        if (tf->tensors[i].end > out->map_end)
            out->map_end = tf->tensors[i].end;
    }
    if (t->name) {
        snprintf(out->name, sizeof out->name, "%.120s:%s", file, tl_quote(t->name, q, sizeof q));
        snprintf(out->tensor, sizeof out->tensor, "%s", t->name);
    }
    return CLI_OK;
}

/* Tensor NAME of a sharded model, from its index: the shard that holds it,
 * opened as a tensor file. */
static int load_from_index(const char *path, const char *tname, struct cli_desc *out,
                           const struct tl_file_tensor **picked)
{
    struct cli_shards s;
    size_t k;
    int rc = cli_shards_open(path, false, &s);
    if (rc)
        return rc;
    if (!tname) {
        cli_error("%s: a sharded model's index holds %zu tensors: name one "
                "as %s:NAME ('tensorlayout list %s' lists them)", s.name, s.x.count, s.name,
                s.name);
        rc = CLI_INVALID;
    } else if ((rc = cli_shards_pick(&s, tname, &k)) == CLI_OK) {
        rc = pick_tensor(&s.files[k], s.data[k].name, tname, out, picked);
        if (rc == CLI_OK) {
            out->file = s.data[k];       /* the shard's mapping moves to out */
            memset(&s.data[k], 0, sizeof s.data[k]);
            out->format = TL_FMT_SAFETENSORS;
        }
    }
    cli_shards_close(&s);
    *picked = NULL;                      /* it was the shard's table's */
    return rc;
}

int cli_load_desc(const char *arg, const char *axes, struct cli_desc *out)
{
    return cli_load_desc_as(arg, axes, "--axes", out);
}

/* cli_load_desc_as(), and with `opened` the file arg names, opened already
 * (taken over: closed or kept in out). */
static int load_desc(const char *arg, const char *axes, const char *axes_opt,
                     struct cli_data *opened, enum tl_format opened_format, bool stream,
                     struct cli_desc *out);

int cli_load_desc_as(const char *arg, const char *axes, const char *axes_opt,
                     struct cli_desc *out)
{
    return load_desc(arg, axes, axes_opt, NULL, TL_FMT_JSON, false, out);
}

int cli_load_desc_streamed(const char *arg, const char *axes, const char *axes_opt,
                           struct cli_desc *out)
{
    return load_desc(arg, axes, axes_opt, NULL, TL_FMT_JSON, true, out);
}

int cli_load_desc_file(const char *arg, struct cli_data *file, enum tl_format format,
                       const char *axes, struct cli_desc *out)
{
    return load_desc(arg, axes, "--axes", file, format, false, out);
}


static int decode_pair(struct cli_data *file, struct tl_file *tf, const struct tl_scaled *p,
                       bool stream, struct cli_desc *out);

/* The group-quantized weight of tf named tname (SPEC 21: P.weight, no row
 * of the table), decoded into out as FLOAT32 (see decode_pair), so that
 * dump, compare and inspect read its values.  @return -1 when tname names
 * none, else a CLI_* status (after a message naming the weight). */
static int load_grouped(struct cli_data *file, struct tl_file *tf, const char *tname,
                        bool stream, struct cli_desc *out)
{
    struct tl_scaled *pairs = NULL;
    size_t n = 0;
    struct tl_error err = { 0 };
    if (tl_scaled_find(tf, &pairs, &n, &err)) {
        cli_report(file->name, &err);
        return err.code == TL_E_NOMEM ? CLI_IO : CLI_INVALID;
    }
    int rc = -1;
    for (size_t k = 0; k < n && rc == -1; k++) {
        if (pairs[k].kind < TL_SCALED_GPTQ || strcmp(pairs[k].name, tname) != 0)
            continue;
        out->format = tf->format;
        rc = decode_pair(file, tf, &pairs[k], stream, out);
    }
    free(pairs);
    return rc;
}

/* The tensor a file names (FILE or FILE:NAME, or '-'), the file opened
 * as `opened` when not NULL: a sharded model's index (its tensor's
 * shard), a JSON description or buffer map, or a tensor file (an encoded
 * tensor decoded).  @return a CLI_* status. */
static int load_file(const char *arg, struct cli_data *opened, enum tl_format opened_format,
                     bool stream, struct cli_desc *out)
{
    char path[4096];
    const char *tname = NULL;
    const struct tl_file_tensor *t = NULL;
    struct cli_data file;
    struct tl_file tf;
    int rc;
    if (strcmp(arg, "-") != 0)
        cli_split_name(arg, path, sizeof path, &tname);
    else
        snprintf(path, sizeof path, "-");
    if (opened) {
        file = *opened;
        memset(opened, 0, sizeof *opened);
        out->format = opened_format;
    } else if ((rc = cli_open_input(path, "a description", &file, &out->format, 0))) {
        return rc;
    }
    snprintf(out->name, sizeof out->name, "%s", file.name);
    if (out->format == TL_FMT_JSON &&
        tl_shard_index_looks((const char *)file.bytes, (size_t)file.size)) {
        cli_close_data(&file);          /* a sharded model's index: its tensor's shard */
        return load_from_index(path, tname, out, &t);
    }
    if (out->format == TL_FMT_JSON) {
        rc = cli_desc_from_file(&file, &tf, true);
        cli_close_data(&file);
        if (!rc) {
            char name[256];
            snprintf(name, sizeof name, "%s", out->name);
            rc = pick_tensor(&tf, name, tname, out, &t);
            tl_file_free(&tf);
        }
        return rc;
    }
    struct tl_error err = { 0 };
    if (tl_file_parse(file.bytes, file.size, &tf, &err)) {
        cli_report(file.name, &err);
        cli_close_data(&file);
        return CLI_INVALID;
    }
    if (tname && !tl_file_find(&tf, tname) && (rc = cli_file_sound(&tf, file.name)) == CLI_OK &&
        (rc = load_grouped(&file, &tf, tname, stream, out)) != -1) {
        tl_file_free(&tf);              /* a group-quantized weight, decoded (SPEC 21) */
        cli_close_data(&file);
        return rc;
    }
    if (rc > 0) {
        tl_file_free(&tf);
        cli_close_data(&file);
        return rc;
    }
    rc = pick_tensor(&tf, file.name, tname, out, &t);
    if (!rc && t->elsewhere) {         /* ONNX's external data: the file beside it holds it */
        cli_close_data(&file);
        rc = cli_elsewhere_open_one(path, t, &file);
    }
    if (!rc && stream && t->encoding != TL_ENC_PLAIN) {
        out->file = file;               /* decoded as it is read (values.c) */
        struct tl_input in = cli_input(&out->file, NULL);
        if ((rc = tl_values_open(&in, t, &out->values, &err))) {
            cli_report(file.name, &err);
            rc = rc == TL_E_NOMEM ? CLI_IO : CLI_INVALID;
        }
    } else if (!rc && t->encoding != TL_ENC_PLAIN) {       /* its .npy, inflated */
        rc = cli_decode_tensor(&file, t, &out->file);
        cli_close_data(&file);
    } else if (!rc) {
        out->file = file;
    }
    tl_file_free(&tf);
    if (rc)
        cli_close_data(&file);
    return rc;
}

/* --axes NHWC: a tensor file's dimensions as logical axes.
 * @return CLI_OK, or CLI_USAGE after the message. */
static int assign_axes(struct cli_desc *out, const char *axes, const char *axes_opt)
{
    struct tl_error err = { 0 };
    unsigned order[TL_MAX_RANK];
    if (out->format == TL_FMT_JSON) {
        cli_error("%s: says how a tensor file's dimensions map to logical axes; %s is a JSON "
                  "description (its sizes are already logical)", axes_opt, out->name);
        return CLI_USAGE;
    }
    if (tl_layout_parse(out->d.rank, axes, order, &err)) {
        cli_error("%s: %s (%s has %u dimensions)", axes_opt, err.msg, out->name, out->d.rank);
        cli_desc_release(out);
        return CLI_USAGE;
    }
    tl_desc_assign_axes(&out->d, order, NULL);
    return CLI_OK;
}

static int load_desc(const char *arg, const char *axes, const char *axes_opt,
                     struct cli_data *opened, enum tl_format opened_format, bool stream,
                     struct cli_desc *out)
{
    const char *p = arg;
    const struct tl_file_tensor *t = NULL;
    memset(out, 0, sizeof *out);
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
        p++;
    int rc;
    if (cli_desc_opts_is(arg)) {
        if ((rc = cli_desc_from_opts(arg, out)))
            return rc;
        if (axes) {
            cli_error("%s: says how a tensor file's dimensions map to logical axes; --sizes are "
                      "logical already (--layout gives the memory order)", axes_opt);
            return CLI_USAGE;
        }
    } else if (*p == '{') {
        struct tl_file tf;
        snprintf(out->name, sizeof out->name, "<inline>");
        rc = parse_json((const unsigned char *)arg, strlen(arg), out->name, &tf);
        if (!rc) {
            rc = pick_tensor(&tf, out->name, NULL, out, &t);
            tl_file_free(&tf);
        }
    } else {
        rc = load_file(arg, opened, opened_format, stream, out);
    }
    if (rc || (axes && (rc = assign_axes(out, axes, axes_opt))))
        return rc;
    tl_desc_classify(&out->d, &out->info);
    return CLI_OK;
}

/* The pair of tf whose weight is named tname (W, or an FP8 weight's own
 * row) into *p (in *pairs, to free).  @return CLI_OK, or a status after a
 * message naming what is no scaled weight. */
static int pair_named(const struct tl_file *tf, const char *file, const char *tname,
                      struct tl_scaled **pairs, const struct tl_scaled **p)
{
    char q[128], list[300];
    size_t n = 0;
    struct tl_error err = { 0 };
    *p = NULL;
    if (tl_scaled_find(tf, pairs, &n, &err)) {
        cli_report(file, &err);
        return err.code == TL_E_NOMEM ? CLI_IO : CLI_INVALID;
    }
    for (size_t k = 0; tname && k < n && !*p; k++)
        if (strcmp((*pairs)[k].name, tname) == 0 ||
            strcmp(tf->tensors[(*pairs)[k].weight].name, tname) == 0)
            *p = &(*pairs)[k];
    if (*p)
        return CLI_OK;
    if (n)
        snprintf(list, sizeof list, "it holds %zu ('tensorlayout list %.200s' names them)", n,
                 file);
    else
        snprintf(list, sizeof list, "it holds none");
    cli_error("%s: --dequantize: %s%s%s is no scaled weight (an FP8 W beside W_scale_inv, or "
              "MXFP4 W_blocks beside W_scales, named W); %s", file, tname ? "'" : "",
              tname ? tl_quote(tname, q, sizeof q) : "the file", tname ? "'" : "", list);
    return CLI_INVALID;
}

/* Pair p of tf (in file's bytes) decoded into out: FLOAT32, packed, of W's
 * sizes.  Streamed, through a reader a window at a time (file and tf move
 * into out: the caller's are left empty); else whole, in memory of its
 * own.  @return a CLI_* status. */
static int decode_pair(struct cli_data *file, struct tl_file *tf, const struct tl_scaled *p,
                       bool stream, struct cli_desc *out)
{
    char q[128];
    unsigned rank = 0;
    uint64_t sizes[TL_MAX_RANK];
    struct tl_error err = { 0 };
    tl_scaled_shape(tf, p, &rank, sizes);
    if (p->kind >= TL_SCALED_GPTQ && tl_grouped_check(file->bytes, tf, p, &err)) {
        cli_report(file->name, &err);   /* values its parts must hold (SPEC 21) */
        return CLI_INVALID;
    }
    if (tl_desc_init(&out->d, TL_DT_FLOAT32, rank, sizes, &err)) {
        cli_report(file->name, &err);
        return CLI_INVALID;
    }
    snprintf(out->name, sizeof out->name, "%.120s:%s", file->name, tl_quote(p->name, q, sizeof q));
    snprintf(out->tensor, sizeof out->tensor, "%.255s", p->name);
    out->shares_file = true;
    tl_desc_classify(&out->d, &out->info);
    uint64_t count = out->d.total_bytes / 4;
    if (stream) {
        out->file = *file;
        struct tl_input in = cli_input(&out->file, NULL);
        if (tl_values_open_scaled(&in, tf, p, &out->values, &err)) {
            memset(&out->file, 0, sizeof out->file);
            return cli_oom();
        }
        memset(file, 0, sizeof *file);
        return CLI_OK;
    }
    if (count > SIZE_MAX / 4 || !(out->file.heap = malloc(count ? (size_t)count * 4 : 1)))
        return cli_oom();
    if (tl_scaled_decode_as(file->bytes, tf, p, 0, count, TL_DT_FLOAT32, out->file.heap, NULL)) {
        cli_error("%s: '%s' cannot be decoded (its tensors are not stored plain)", file->name,
                  tl_quote(p->name, q, sizeof q));
        return CLI_INVALID;
    }
    out->file.bytes = out->file.heap;
    out->file.size = count * 4;
    snprintf(out->file.name, sizeof out->file.name, "%s", file->name);
    return CLI_OK;
}

int cli_load_dequantized(const char *arg, struct cli_desc *out)
{
    char path[4096];
    const char *tname = NULL;
    struct cli_data file;
    struct tl_file tf;
    struct tl_error err = { 0 };
    memset(out, 0, sizeof *out);
    cli_split_name(arg, path, sizeof path, &tname);
    int rc = cli_open_input(path, "a description", &file, &out->format, 0);
    if (rc)
        return rc;
    if (out->format == TL_FMT_JSON) {
        bool index = tl_shard_index_looks((const char *)file.bytes, (size_t)file.size);
        cli_error("%s: --dequantize decodes a scaled weight of a tensor file; %s", file.name,
                  index ? "of a sharded model, convert the index whole with --dequantize (its "
                          "pairs are found across shards)" : "this is a JSON description");
        cli_close_data(&file);
        return CLI_USAGE;
    }
    if (tl_file_parse(file.bytes, file.size, &tf, &err)) {
        cli_report(file.name, &err);
        cli_close_data(&file);
        return CLI_INVALID;
    }
    if ((rc = cli_quant_for(file.name, &tf))) {
        tl_file_free(&tf);
        cli_close_data(&file);
        return rc;
    }
    struct tl_scaled *pairs = NULL;
    const struct tl_scaled *p;
    rc = pair_named(&tf, file.name, tname, &pairs, &p);
    if (rc == CLI_OK)
        rc = decode_pair(&file, &tf, p, false, out);
    if (rc)
        cli_close_data(&out->file);
    free(pairs);
    tl_file_free(&tf);
    cli_close_data(&file);
    return rc;
}

void cli_desc_release(struct cli_desc *desc)
{
    tl_values_close(desc->values);
    desc->values = NULL;
    cli_close_data(&desc->file);
}

int cli_check_stdin(const char *cmd, const char *desc_arg, const char *data_arg)
{
    if (data_arg && strcmp(desc_arg, "-") == 0 && strcmp(data_arg, "-") == 0) {
        cli_usage_error(cmd, "DESC and DATA cannot both be standard input ('-'): give one as a "
                        "file");
        return CLI_USAGE;
    }
    return CLI_OK;
}

int cli_check_data_arg(const char *cmd, const struct cli_desc *desc, const char *data_arg,
                       bool optional)
{
    if (desc->format != TL_FMT_JSON && data_arg) {
        char q[64];
        cli_usage_error(cmd, "%s is a tensor file (%s) and holds its own data: unexpected "
                        "argument '%s'", desc->name, tl_format_name(desc->format),
                        tl_quote(data_arg, q, sizeof q));
        return CLI_USAGE;
    }
    if (desc->format == TL_FMT_JSON && !data_arg && !optional) {
        cli_usage_error(cmd, desc->options ? "missing argument DATA (the file --type and "
                        "--sizes describe)" : "missing argument DATA (a JSON description "
                        "needs its data file)");
        return CLI_USAGE;
    }
    return CLI_OK;
}

int cli_open_input_data(struct cli_desc *desc, const char *data_arg, uint64_t need,
                        struct cli_data *data)
{
    memset(data, 0, sizeof *data);
    if (desc->format != TL_FMT_JSON) {
        *data = desc->file;
        memset(&desc->file, 0, sizeof desc->file);
        return CLI_OK;
    }
    return data_arg ? cli_open_data_upto(data_arg, need, data) : CLI_OK;
}

static int load_input(const char *desc_arg, const char *data_arg, const char *axes,
                      const char *cmd, bool optional, bool stream, struct cli_desc *desc,
                      struct cli_data *data)
{
    memset(data, 0, sizeof *data);
    int rc = cli_check_stdin(cmd, desc_arg, data_arg);
    if (rc || (rc = load_desc(desc_arg, axes, "--axes", NULL, TL_FMT_JSON, stream, desc)))
        return rc;
    if (!(rc = cli_check_data_arg(cmd, desc, data_arg, optional)))
        rc = cli_open_input_data(desc, data_arg, tl_desc_bytes_needed(&desc->d, &desc->info),
                                 data);
    if (rc)
        cli_desc_release(desc);
    return rc;
}

int cli_load_input(const char *desc_arg, const char *data_arg, const char *axes,
                   const char *cmd, bool optional, struct cli_desc *desc, struct cli_data *data)
{
    return load_input(desc_arg, data_arg, axes, cmd, optional, false, desc, data);
}

int cli_load_input_streamed(const char *desc_arg, const char *data_arg, const char *axes,
                            const char *cmd, bool optional, struct cli_desc *desc,
                            struct cli_data *data)
{
    return load_input(desc_arg, data_arg, axes, cmd, optional, true, desc, data);
}

int cli_require_elements(const struct cli_desc *desc, const struct cli_data *data)
{
    if (desc->values ? tl_values_size(desc->values) >= desc->info.elements_bytes
                     : data->size >= desc->info.elements_bytes)
        return CLI_OK;
    /* numpy's strides count bytes: when the strides divided by the element
     * size would fit, say so */
    char hint[200] = "";
    const struct tl_desc *d = &desc->d;
    unsigned es = tl_dtype_size(d->dtype);
    bool bytes = es > 1 && d->strides_src == TL_STRIDES_GIVEN;
    for (unsigned i = 0; bytes && i < d->rank; i++)
        bytes = d->strides[i] % es == 0;
    if (bytes) {
        struct tl_desc e = *d;
        struct tl_info info;
        for (unsigned i = 0; i < d->rank; i++)
            e.strides[i] = d->strides[i] / es;
        if (tl_desc_validate(&e, NULL) == 0) {
            tl_desc_classify(&e, &info);
            if (info.elements_bytes <= data->size) {
                int n = snprintf(hint, sizeof hint, "; strides count elements, not bytes: did "
                                 "you mean [");
                for (unsigned i = 0; i < d->rank && n < (int)sizeof hint; i++)
                    n += snprintf(hint + n, sizeof hint - (size_t)n, "%s%llu", i ? "," : "",
                                  (unsigned long long)e.strides[i]);
                if (n < (int)sizeof hint)
                    snprintf(hint + n, sizeof hint - (size_t)n, "]?");
            }
        }
    }
    /* a file exactly half what the tensor needs: a dump of a type half
     * as wide (a FLOAT16 file read as FLOAT32) */
    if (!hint[0] && !d->file_offset && !d->byte_offset && data->size &&
        desc->info.elements_bytes % data->size == 0) {
        uint64_t k = desc->info.elements_bytes / data->size;
        unsigned want = tl_dtype_bits(d->dtype) / (unsigned)(k ? k : 1);
        int n = 0;
        for (int t = 0; k == 2 && t < TL_DT_COUNT && n >= 0 && n < (int)sizeof hint; t++) {
            enum tl_dtype dt = (enum tl_dtype)t;
            if (tl_dtype_bits(dt) == want && want >= 8 &&
                tl_dtype_is_float(dt) == tl_dtype_is_float(d->dtype))
                n += snprintf(hint + n, sizeof hint - (size_t)n, "%s%s", n ? " or " : "; as ",
                              tl_dtype_name(dt));
        }
        if (n > 0 && n < (int)sizeof hint)
            snprintf(hint + n, sizeof hint - (size_t)n, ", the file would hold it exactly: "
                     "data of another type?");
        else
            hint[0] = '\0';
    }
    char file_offset[48] = "";
    if (desc->d.file_offset)
        snprintf(file_offset, sizeof file_offset, "fileOffset %llu + ",
                 (unsigned long long)desc->d.file_offset);
    char per[48];
    if (tl_dtype_bits(d->dtype) == 4)
        snprintf(per, sizeof per, "%llu nibble%s, two a byte",
                 (unsigned long long)desc->info.span, desc->info.span == 1 ? "" : "s");
    else
        snprintf(per, sizeof per, "%llu x %u bytes", (unsigned long long)desc->info.span, es);
    cli_error("%s: file has %llu bytes but the tensor needs %llu "
            "(%sbyteOffset %llu + span %s)%s", data->name,
            (unsigned long long)data->size, (unsigned long long)desc->info.elements_bytes,
            file_offset, (unsigned long long)desc->d.byte_offset, per, hint);
    return CLI_INVALID;
}

uint64_t cli_trailing_bytes(const struct cli_desc *desc, const struct cli_data *data)
{
    if (desc->shares_file || desc->values)
        return 0;                       /* other tensors follow, or the bytes are a
                                         * container's, read decoded: not trailing */
    /* the buffer: up to the declared total, or to the minimum implied size
     * (the span rounded up to 4, DMLCalcBufferTensorSize): a readback of
     * exactly that is exact, and the padding report ends there too */
    uint64_t need = tl_desc_origin(&desc->d) + tl_desc_extent(&desc->d, &desc->info);
    if (desc->map_end > need)           /* the other tensors of its map */
        need = desc->map_end;
    return data->size > need ? data->size - need : 0;
}

/* The bytes of a padded layout's whole box, from its origin: each stored
 * axis its size times its stride, the largest of them (a padded row's
 * padding after its last element included): a buffer of exactly that is
 * what a GPU readback of padded rows gives. */
static uint64_t padded_box(const struct tl_desc *d)
{
    uint64_t box = 0, e;
    for (unsigned i = 0; i < d->rank; i++) {
        if (!__builtin_mul_overflow(d->sizes[i], d->strides[i], &e) && e > box)
            box = e;
    }
    return tl_desc_origin(d) + tl_dtype_bytes(d->dtype, box);
}

void cli_note_trailing(const struct cli_desc *desc, const struct cli_data *data)
{
    uint64_t extra = cli_trailing_bytes(desc, data);
    /* explained by the layout: the last row's padding, up to the box */
    if (extra && !data->at_least && desc->info.padded && !desc->map_end &&
        data->size <= padded_box(&desc->d))
        return;
    if (extra && data->at_least)
        cli_note("%s: the stream holds more than the %llu bytes "
                "the tensor of %s needs (the rest was not read); is the description right?\n",
                data->name, (unsigned long long)(data->size - extra), desc->name);
    else if (extra)
        cli_note("%s: the file has %llu bytes, %llu more than the "
                "tensor of %s needs; is the description right?\n", data->name,
                (unsigned long long)data->size, (unsigned long long)extra, desc->name);
}

/* indices as "i,j,k" into buf at *n. */
static void put_index(char *buf, size_t cap, size_t *n, const uint64_t *x, unsigned rank)
{
    for (unsigned i = 0; i < rank && *n < cap; i++)
        *n += (size_t)snprintf(buf + *n, cap - *n, "%s%" PRIu64, i ? "," : "", x[i]);
}

/* The axis just inside fix f's changed stride `now`, when its run of `now`
 * elements holds more slots than it has elements (tl_fix_padded): "<sep>W
 * padded to 64" into pad, else "". */
static void padded_inside(const struct tl_desc *d, const struct tl_fix *f, const char *sep,
                          char *pad, size_t cap)
{
    const char *letters = tl_axis_letters(d->rank);
    uint64_t slots;
    unsigned in = tl_fix_padded(d, f, &slots);
    pad[0] = '\0';
    if (in < d->rank)
        snprintf(pad, cap, "%s%c padded to %" PRIu64, sep,
                 letters ? letters[in] : (char)('0' + in), slots);
}

/* What a fix changes and why, into buf at *n. */
static void put_fix(char *buf, size_t cap, size_t *n, const struct tl_desc *d,
                    const struct tl_fix *f)
{
    const char *letters = tl_axis_letters(d->rank);
    char o[8], i[8];
    snprintf(o, sizeof o, "%c", letters ? letters[f->axis] : (char)('0' + f->axis));
    snprintf(i, sizeof i, "%c", letters ? letters[f->inner] : (char)('0' + f->inner));
    *n += (size_t)snprintf(buf + *n, *n < cap ? cap - *n : 0, "strides ");
    put_index(buf, cap, n, f->strides, d->rank);
    uint64_t was = d->strides[f->axis], now = f->strides[f->axis];
    if (*n >= cap)
        return;
    if (f->why == TL_FIX_INNERMOST)
        *n += (size_t)snprintf(buf + *n, cap - *n, " (%s innermost: its stride %" PRIu64
                               " as 1)", o, was);
    else if (f->why == TL_FIX_FACTOR) {
        char pad[64];
        padded_inside(d, f, ", ", pad, sizeof pad);
        *n += (size_t)snprintf(buf + *n, cap - *n, " (the stride of %s, %" PRIu64 ", looks "
                               "like it lacks a factor: times %s's size %" PRIu64 " it is %"
                               PRIu64 "%s)", o, was, i, d->sizes[f->inner] * d->strides[f->inner],
                               now, pad);
    }
    else if (f->why == TL_FIX_INSIDE) {
        char pad[64];                   /* the outer stride agrees */
        padded_inside(d, f, ": ", pad, sizeof pad);
        *n += (size_t)snprintf(buf + *n, cap - *n, " (the stride of %s, %" PRIu64 ", as %s's "
                               "stride %" PRIu64 " implies, %s's size %" PRIu64 " times %"
                               PRIu64 "%s)", o, was, i, d->strides[f->inner], o,
                               d->sizes[f->axis], now, pad);
    }
    else if (was && now % was == 0)
        *n += (size_t)snprintf(buf + *n, cap - *n, " (the stride of %s, %" PRIu64 ", looks "
                               "like it lacks a factor: %s's size %" PRIu64 " times its stride %"
                               PRIu64 " is %" PRIu64 ")", o, was, i, d->sizes[f->inner],
                               d->strides[f->inner], now);
    else
        *n += (size_t)snprintf(buf + *n, cap - *n, " (the stride of %s, %" PRIu64 ", looks "
                               "wrong: %s's size %" PRIu64 " times its stride %" PRIu64 " is %"
                               PRIu64 ")", o, was, i, d->sizes[f->inner], d->strides[f->inner],
                               now);
}

bool cli_overlap_note(const struct cli_desc *desc, char *buf, size_t cap)
{
    const struct tl_desc *d = &desc->d;
    uint64_t x[TL_MAX_RANK], y[TL_MAX_RANK];
    struct tl_fix fixes[TL_MAX_FIXES];
    if (!desc->info.overlapping || !tl_desc_overlap_pair(d, x, y))
        return false;
    uint64_t off = 0;
    for (unsigned i = 0; i < d->rank; i++)
        off += x[i] * d->strides[i];
    size_t n = (size_t)snprintf(buf, cap, "elements [");
    put_index(buf, cap, &n, x, d->rank);
    n += (size_t)snprintf(buf + n, n < cap ? cap - n : 0, "] and [");
    put_index(buf, cap, &n, y, d->rank);
    n += (size_t)snprintf(buf + n, n < cap ? cap - n : 0, "] share element offset %" PRIu64
                          ": the layout overlaps (DirectML allows it; a typo in strides?)", off);
    size_t nf = n < cap ? tl_desc_fixes(d, fixes) : 0;
    if (nf == 1) {
        n += (size_t)snprintf(buf + n, n < cap ? cap - n : 0, "; ");
        size_t at = n;
        put_fix(buf, cap, &n, d, &fixes[0]);
        /* "strides X would not overlap (why)" */
        char *why = n < cap ? strstr(buf + at, " (") : NULL;
        if (why) {
            char tail[256];
            snprintf(tail, sizeof tail, "%s", why);
            n = (size_t)(why - buf);
            n += (size_t)snprintf(buf + n, n < cap ? cap - n : 0, " would not overlap%s", tail);
        }
    } else if (nf > 1) {
        n += (size_t)snprintf(buf + n, n < cap ? cap - n : 0, "; these would not overlap: ");
        for (size_t k = 0; k < nf && n < cap; k++) {
            if (k)
                n += (size_t)snprintf(buf + n, cap - n, k + 1 == nf ? ", or " : ", ");
            put_fix(buf, cap, &n, d, &fixes[k]);
        }
    }
    return true;
}

bool cli_byte_strides_note(const struct cli_desc *desc, char *buf, size_t cap)
{
    const struct tl_desc *d = &desc->d;
    unsigned bits = tl_dtype_bits(d->dtype), size = bits / 8;
    if (d->strides_src != TL_STRIDES_GIVEN || bits % 8 || size < 2 || desc->info.packed)
        return false;
    struct tl_desc e = *d;
    bool any = false;
    for (unsigned i = 0; i < d->rank; i++) {
        if (d->strides[i] % size)
            return false;
        e.strides[i] = d->strides[i] / size;
        any |= d->sizes[i] > 1 && d->strides[i] > 0;
    }
    struct tl_info ei;
    if (!any || tl_desc_validate(&e, NULL))
        return false;
    tl_desc_classify(&e, &ei);
    if (!ei.packed)
        return false;
    size_t n = (size_t)snprintf(buf, cap, "strides ");
    put_index(buf, cap, &n, d->strides, d->rank);
    n += (size_t)snprintf(buf + n, n < cap ? cap - n : 0, " look like byte counts: divided by "
                          "%s's %u bytes they are ", tl_dtype_name(d->dtype), size);
    put_index(buf, cap, &n, e.strides, d->rank);
    if (n < cap)
        snprintf(buf + n, cap - n, ", a packed layout (strides count elements, not bytes)");
    return true;
}

/* Sizes that look given in memory order: a channels-last layout (C's
 * stride the smallest, from "layout") whose C is large and W tiny, as
 * NHWC's [1,224,224,3] read as N,C,H,W.  Sizes are logical (NCHW). */
static bool memory_order_note(const struct cli_desc *desc, char *buf, size_t cap)
{
    const struct tl_desc *d = &desc->d;
    if (d->strides_src != TL_STRIDES_LAYOUT || (d->rank != 4 && d->rank != 5))
        return false;
    unsigned c = 1, w = d->rank - 1;
    for (unsigned a = 0; a < d->rank; a++)
        if (a != c && d->sizes[a] > 1 && d->strides[a] <= d->strides[c])
            return false;                       /* C is not innermost */
    if (d->sizes[c] < 16 || d->sizes[w] > 4 || d->sizes[w] >= d->sizes[c])
        return false;
    /* read as memory order (N, spatial..., C): the logical sizes */
    uint64_t want[TL_MAX_RANK];
    want[0] = d->sizes[0];
    want[1] = d->sizes[w];
    for (unsigned a = 2; a < d->rank; a++)
        want[a] = d->sizes[a - 1];
    size_t n = (size_t)snprintf(buf, cap, "sizes [");
    put_index(buf, cap, &n, d->sizes, d->rank);
    n += (size_t)snprintf(buf + n, n < cap ? cap - n : 0, "] look given in memory order (C %"
                          PRIu64 ", W %" PRIu64 "): sizes are logical, N,C,%s whatever the "
                          "layout; did you mean [", d->sizes[c], d->sizes[w],
                          d->rank == 5 ? "D,H,W" : "H,W");
    put_index(buf, cap, &n, want, d->rank);
    if (n < cap)
        snprintf(buf + n, cap - n, "]?");
    return true;
}

void cli_note_overlap(const struct cli_desc *desc)
{
    char order[512];
    if (memory_order_note(desc, order, sizeof order))
        cli_note("%s: %s\n", desc->name, order);
    char bytes[512];
    if (cli_byte_strides_note(desc, bytes, sizeof bytes))
        cli_note("%s: %s\n", desc->name, bytes);
    char text[512];
    if (cli_overlap_note(desc, text, sizeof text))
        cli_note("%s: %s\n", desc->name, text);
}

int cli_grouped_named(const char *arg, struct cli_data *file, struct tl_file *tf,
                      struct tl_scaled **pairs, const struct tl_scaled **p)
{
    char path[4096];
    const char *tname = NULL;
    size_t n = 0;
    struct tl_error err = { 0 };
    *pairs = NULL;
    *p = NULL;
    cli_split_name(arg, path, sizeof path, &tname);
    if (!tname || strcmp(path, "-") == 0 || cli_open_data(path, file) != CLI_OK)
        return -1;
    if (tl_file_parse(file->bytes, file->size, tf, &err) != 0) {
        cli_close_data(file);
        return -1;
    }
    int rc = tl_file_find(tf, tname) ? -1 : cli_file_sound(tf, file->name);
    if (rc == CLI_OK && tl_scaled_find(tf, pairs, &n, &err) == 0) {
        for (size_t k = 0; k < n && !*p; k++)
            if ((*pairs)[k].kind >= TL_SCALED_GPTQ && strcmp((*pairs)[k].name, tname) == 0)
                *p = &(*pairs)[k];
        if (*p && tl_grouped_check(file->bytes, tf, *p, &err)) {
            cli_report(file->name, &err);
            rc = CLI_INVALID;
        }
    } else if (rc == CLI_OK) {
        cli_report(file->name, &err);
        rc = CLI_INVALID;
    }
    if (rc == CLI_OK && *p)
        return CLI_OK;
    free(*pairs);
    *pairs = NULL;
    tl_file_free(tf);
    cli_close_data(file);
    return rc == CLI_OK ? -1 : rc;
}
