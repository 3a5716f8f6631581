/*
 * cmd_inspect.c - `tensorlayout inspect DESC [DATA]`: every term of a
 * description, its per-axis table and its DirectML problems.
 */
#include <argtable2.h>
#include <cjson/cJSON.h>
#include <inttypes.h>

#include <string.h>

#include "cli.h"

static const char about[] =
    "Prints everything about a tensor description: data type, sizes, strides,\n"
    "layout, element count, span, minimum implied size, declared total size,\n"
    "status (overlapping, broadcast, padded or packed), a table of the axes and\n"
    "the DirectML problems.  With DATA, also the file's size and whether it\n"
    "covers the tensor.  Exits 1 when there are problems.  For UINT4 and\n"
    "INT4 (two elements a byte) sizes and --padding are told in nibbles.";

static const char *yes(bool b) { return b ? "yes" : "no"; }

#define LABEL "%-31s"
#define PADDING_RANGES 1000    /* --padding lists at most this many ranges */

struct pad_list {
    bool json;
    const char *unit;    /* "bytes", or a 4-bit type's "nibbles" */
    cJSON *arr;
    bool failed;
};

static void pad_range(uint64_t lo, uint64_t hi, void *ctx)
{
    struct pad_list *l = ctx;
    if (!l->json) {
        printf("  %" PRIu64 "..%" PRIu64 " (%" PRIu64 " %s)\n", lo, hi, hi - lo, l->unit);
        return;
    }
    uint64_t v[2] = { lo, hi };
    cJSON *tmp = cJSON_CreateObject();
    if (!tmp || !tl_json_add_u64_array(tmp, "r", v, 2)) {
        cJSON_Delete(tmp);
        l->failed = true;
        return;
    }
    cJSON_AddItemToArray(l->arr, cJSON_DetachItemFromObject(tmp, "r"));
    cJSON_Delete(tmp);
}

/* A 4-bit type's padding is counted in nibbles: a byte would mislead. */
static bool in_nibbles(const struct tl_desc *d) { return tl_dtype_bits(d->dtype) == 4; }

/* The padding in all, in bytes (nibbles for a 4-bit type): the buffer less
 * the distinct offsets (exact when the tensor does not overlap). */
static uint64_t padding_bytes(const struct cli_desc *c)
{
    if (in_nibbles(&c->d))
        return tl_desc_extent(&c->d, &c->info) * 2 - c->info.distinct;
    return tl_desc_extent(&c->d, &c->info) - tl_dtype_bytes(c->d.dtype, c->info.distinct);
}

static void print_padding(const struct cli_desc *c)
{
    if (c->info.overlapping) {
        printf("padding\n  (an overlapping tensor: see dump --physical)\n");
        return;
    }
    if (padding_bytes(c) == 0) {
        printf(LABEL "none\n", "padding");
        return;
    }
    bool nib = in_nibbles(&c->d);
    printf(LABEL "%" PRIu64 " %s, as %s ranges [first, end)%s:\n", "padding", padding_bytes(c),
           nib ? "nibbles" : "bytes", nib ? "nibble" : "byte",
           nib ? " (nibble k: byte k/2, low when k is even)" : "");
    struct pad_list l = { .json = false, .unit = nib ? "nibbles" : "bytes" };
    int rc = tl_desc_padding(&c->d, PADDING_RANGES, pad_range, &l);
    if (rc > 0)
        printf("  ... (more than %d ranges; dump --physical shows every slot)\n", PADDING_RANGES);
    else if (rc < 0)
        printf("  (the runs of this layout are not in order: dump --physical shows every slot)\n");
}

/* A stride in bytes as text: a 4-bit type's odd stride is a byte and a
 * half ("1.5"), not a whole byte. */
static void stride_bytes(const struct tl_desc *d, uint64_t stride, char *buf, size_t n)
{
    if (in_nibbles(d))
        snprintf(buf, n, "%" PRIu64 "%s", stride / 2, stride % 2 ? ".5" : "");
    else
        snprintf(buf, n, "%" PRIu64, stride * tl_dtype_size(d->dtype));
}

/* The axes' names (SPEC 15, 19): DirectML's letters for a DirectML
 * description; for a tensor read from a model file, the letters the user
 * gave with --axes (OIHW), else its positions (0 1 2 3), and its layout
 * said as numpy would (C or Fortran order). */
static const char *axis_names(const struct cli_desc *c, const char *axes, char *names,
                              char *layout, size_t n)
{
    const struct tl_desc *d = &c->d;
    const struct tl_info *in = &c->info;
    const char *letters = tl_axis_letters(d->rank);
    int how = cli_axis_names(c, axes, names);
    bool file = how != CLI_AXES_DML, given = how == CLI_AXES_GIVEN;
    if (!file || given) {
        bool any = !file ? letters && in->layout[0] : true;
        size_t k = 0;
        for (unsigned j = 0; any && j < d->rank && k + 1 < n; j++)
            layout[k++] = names[in->axis_order[j]];
        layout[k] = '\0';
        if (!file && any)
            snprintf(layout, n, "%s", in->layout);
        return any ? layout : "-";
    }
    bool c_order = true, f_order = true;
    for (unsigned j = 0; j < d->rank; j++) {
        c_order &= in->axis_order[j] == j;
        f_order &= in->axis_order[j] == d->rank - 1 - j;
    }
    snprintf(layout, n, "%s", c_order ? "C order" : f_order ? "Fortran order" : "-");
    return layout;
}

/* A GGUF tensor of blocks (SPEC 16): how its values are stored, each
 * field of a block (ggml.c's parts: "d:0:2:f16 qs:2:16:nibbles"), as text
 * or into o. */
static bool print_blocks(const struct cli_desc *c, cJSON *o)
{
    const struct tl_ggml_type *gt = tl_ggml_type(c->ggml_type);
    uint64_t nb = c->blocks_bytes / gt->bytes;
    cJSON *st = NULL, *fields = NULL;
    if (o && (!(st = cJSON_AddObjectToObject(o, "stored")) ||
              !cJSON_AddStringToObject(st, "ggmlType", gt->name) ||
              !cJSON_AddNumberToObject(st, "blockElements", gt->block) ||
              !cJSON_AddNumberToObject(st, "blockBytes", gt->bytes) ||
              !tl_json_add_u64(st, "blocks", nb) || !tl_json_add_u64(st, "begin", c->blocks_at) ||
              !tl_json_add_u64(st, "end", c->blocks_at + c->blocks_bytes) ||
              !(fields = cJSON_AddArrayToObject(st, "fields"))))
        return false;
    if (!o) {
        printf(LABEL "%s, %" PRIu64 " block%s of %u elements in %u bytes, file bytes %" PRIu64
               "..%" PRIu64 " (decoded to FLOAT32: what follows describes the decoded values)\n",
               "stored", gt->name, nb, nb == 1 ? "" : "s", gt->block, gt->bytes, c->blocks_at,
               c->blocks_at + c->blocks_bytes);
        printf(LABEL, "blockLayout");
    }
    int k = 0;
    for (const char *p = gt->parts; p && *p; k++) {
        char name[16], what[16];
        unsigned at, len;
        if (sscanf(p, "%15[^:]:%u:%u:%15[^ ]", name, &at, &len, what) != 4)
            break;
        if (o) {
            cJSON *f = cJSON_CreateObject();
            if (!f || !cJSON_AddItemToArray(fields, f) || !cJSON_AddStringToObject(f, "field", name) ||
                !cJSON_AddNumberToObject(f, "byte", at) || !cJSON_AddNumberToObject(f, "bytes", len) ||
                !cJSON_AddStringToObject(f, "holds", what))
                return false;
        } else {
            printf("%s%s %u..%u (%s)", k ? ", " : "", name, at, at + len - 1, what);
        }
        p = strchr(p, ' ');
        p = p ? p + 1 : NULL;
    }
    if (!o)
        printf("\n");
    return true;
}

/* The axes' table: each axis's name, size, stride, stride in bytes. */
static void print_axes(const struct tl_desc *d, const char *names)
{
    printf("\n%4s  %-4s  %20s  %20s  %20s\n", "axis", "name", "size", "stride", "strideBytes");
    for (unsigned i = 0; i < d->rank; i++) {
        char name[4] = "-";
        name[0] = names[i];
        char sb[32];
        stride_bytes(d, d->strides[i], sb, sizeof sb);
        printf("%4u  %-4s  %20" PRIu64 "  %20" PRIu64 "  %20s%s\n", i, name,
               d->sizes[i], d->strides[i], sb,
               d->strides[i] == 0 && d->sizes[i] > 1 ? "  broadcast" : "");
    }
    printf("\n");
}

/* The data file's lines (whether it covers the tensor, bytes after it),
 * then the problems. */
static void print_data_and_problems(const struct cli_desc *c, const struct cli_data *data,
                                    const struct tl_problem *p, size_t np)
{
    if (data) {
        printf(LABEL "%s, %s%" PRIu64 " bytes, %s\n", "data", data->name,
               data->at_least ? "at least " : "", data->size,
               data->size >= tl_desc_bytes_needed(&c->d, &c->info) ? "covers the tensor"
                                                                   : "does not cover the tensor");
        uint64_t extra = cli_trailing_bytes(c, data);
        if (extra && data->at_least)
            printf(LABEL "at least %" PRIu64 " (the stream holds more than the tensor needs; "
                   "the rest was not read)\n", "trailingBytes", extra);
        else if (extra)
            printf(LABEL "%" PRIu64 " (the file is longer than the tensor needs)\n",
                   "trailingBytes", extra);
    }
    if (np == 0) {
        printf(LABEL "none\n", "problems");
        return;
    }
    printf("problems\n");
    for (size_t i = 0; i < np; i++) {
        char text[200];
        cli_problem_text(&p[i], text, sizeof text);
        printf("  %s\n", text);
    }
}

/* The layout line: its name, the axis order, the broadcast axes. */
static void print_layout(const struct cli_desc *c, const char *shown, const char *names)
{
    const struct tl_desc *d = &c->d;
    const struct tl_info *in = &c->info;
    const char *letters = tl_axis_letters(d->rank);
    printf(LABEL "%s (axisOrder ", "layout", shown);
    for (unsigned i = 0; i < d->rank; i++)
        printf("%s%u", i ? "," : "", in->axis_order[i]);
    if (in->broadcast_axes) {
        printf("; broadcast ");
        for (unsigned i = 0, k = 0; i < d->rank; i++) {
            if (!(in->broadcast_axes & (1u << i)))
                continue;
            if (letters || c->format != TL_FMT_JSON)
                printf("%s%c", k++ ? "," : "", names[i]);
            else
                printf("%s%u", k++ ? "," : "", i);
        }
    }
    printf(")\n");
}

static void print_text(const struct cli_desc *c, const struct cli_data *data,
                       const struct tl_problem *p, size_t np, bool padding, const char *axes)
{
    const struct tl_desc *d = &c->d;
    const struct tl_info *in = &c->info;
    unsigned es = tl_dtype_size(d->dtype);
    char names[TL_MAX_RANK + 1], layout[64];
    const char *shown = axis_names(c, axes, names, layout, sizeof layout);

    if (c->blocks)
        print_blocks(c, NULL);
    if (in_nibbles(d))
        printf(LABEL "%s (4 bits per element, two a byte, the lower offset in the low nibble)\n",
               "dataType", tl_dtype_name(d->dtype));
    else
        printf(LABEL "%s (%u byte%s per element)\n", "dataType", tl_dtype_name(d->dtype), es,
               es == 1 ? "" : "s");
    printf(LABEL, "sizes");
    cli_print_u64_list(stdout, d->sizes, d->rank, ",");
    printf("\n" LABEL, "strides");
    cli_print_u64_list(stdout, d->strides, d->rank, ",");
    if (d->strides_src == TL_STRIDES_IMPLICIT)
        printf(" (implicit: packed in logical order)");
    else if (d->strides_src == TL_STRIDES_LAYOUT)
        printf(" (computed from the layout)");
    printf("\n");
    print_layout(c, shown, names);
    printf(LABEL "%" PRIu64 "\n", "elementCount", in->element_count);
    printf(LABEL "%" PRIu64 " element%s\n", "span", in->span, in->span == 1 ? "" : "s");
    printf(LABEL "%" PRIu64 "\n", "minimumImpliedSizeInBytes", in->min_size);
    printf(LABEL "%" PRIu64 "%s\n", "totalTensorSizeInBytes", d->total_bytes,
           d->total_given ? "" : " (implied)");
    printf(LABEL "%" PRIu64 "%s\n", "guaranteedBaseOffsetAlignment", d->alignment,
           d->alignment ? "" : " (none)");
    printf(LABEL "%" PRIu64 "\n", "byteOffset", d->byte_offset);
    printf(LABEL "%" PRIu64 "\n", "fileOffset", d->file_offset);
    printf(LABEL "%s\n", "flags", d->flags ? "OWNED_BY_DML" : "NONE");
    printf(LABEL "%s (packed %s, padded %s, broadcast %s, overlapping %s)\n", "status",
           tl_status_name(in->status), yes(in->packed), yes(in->padded), yes(in->broadcast),
           yes(in->overlapping));
    print_axes(d, names);
    print_data_and_problems(c, data, p, np);
    if (padding)
        print_padding(c);
}

/* "problems" (DirectML's) and "notes" (a stride that looks like bytes,
 * the fixes of an overlap).  @return false when out of memory. */
static bool findings_json(cJSON *o, const struct cli_desc *c, const struct tl_problem *p,
                          size_t np)
{
    cJSON *probs = cJSON_AddArrayToObject(o, "problems");
    bool ok = probs != NULL;
    for (size_t i = 0; ok && i < np; i++) {
        char text[200];
        cli_problem_text(&p[i], text, sizeof text);
        cJSON *s = cJSON_CreateString(text);
        ok = s != NULL;
        if (ok)
            cJSON_AddItemToArray(probs, s);
    }
    char note[512];
    cJSON *notes = ok ? cJSON_AddArrayToObject(o, "notes") : NULL;
    ok = notes != NULL;
    if (ok && cli_byte_strides_note(c, note, sizeof note))
        ok = cJSON_AddItemToArray(notes, cJSON_CreateString(note));
    if (ok && cli_overlap_note(c, note, sizeof note))
        ok = cJSON_AddItemToArray(notes, cJSON_CreateString(note));
    return ok;
}

/* "data": the data file, whether it covers the tensor, what follows it. */
static bool data_json(cJSON *o, const struct cli_desc *c, const struct cli_data *data)
{
    cJSON *dj = cJSON_AddObjectToObject(o, "data");
    return dj && cJSON_AddStringToObject(dj, "path", data->name) &&
           tl_json_add_u64(dj, "sizeInBytes", data->size) &&
           cJSON_AddBoolToObject(dj, "covers",
                                 data->size >= tl_desc_bytes_needed(&c->d, &c->info)) &&
           tl_json_add_u64(dj, "trailingBytes", cli_trailing_bytes(c, data)) &&
           cJSON_AddBoolToObject(dj, "sizeIsLowerBound", data->at_least);
}

/* "padding" (--padding): its bytes (nibbles), its ranges, complete. */
static bool padding_json(cJSON *o, const struct cli_desc *c)
{
    cJSON *pj = cJSON_AddObjectToObject(o, "padding");
    struct pad_list l = { .json = true };
    const char *unit = in_nibbles(&c->d) ? "nibbles" : "bytes";
    bool ok = pj && (c->info.overlapping ? cJSON_AddNullToObject(pj, unit) != NULL
                                         : tl_json_add_u64(pj, unit, padding_bytes(c))) &&
              (l.arr = cJSON_AddArrayToObject(pj, "ranges")) != NULL;
    int rc = ok && !c->info.overlapping ? tl_desc_padding(&c->d, PADDING_RANGES, pad_range, &l)
                                        : -1;
    return ok && !l.failed && cJSON_AddBoolToObject(pj, "complete", rc == 0);
}

static cJSON *build_json(const struct cli_desc *c, const struct cli_data *data,
                         const struct tl_problem *p, size_t np, bool padding)
{
    const struct tl_desc *d = &c->d;
    const struct tl_info *in = &c->info;
    uint64_t order[TL_MAX_RANK], bcast[TL_MAX_RANK];
    size_t nb = 0;
    for (unsigned i = 0; i < d->rank; i++) {
        order[i] = in->axis_order[i];
        if (in->broadcast_axes & (1u << i))
            bcast[nb++] = i;
    }
    cJSON *o = cJSON_CreateObject();
    bool ok = o && cJSON_AddStringToObject(o, "dataType", tl_dtype_name(d->dtype)) &&
        (in_nibbles(d) ? cJSON_AddNumberToObject(o, "elementSize", 0.5) != NULL
                       : tl_json_add_u64(o, "elementSize", tl_dtype_size(d->dtype))) &&
        tl_json_add_u64(o, "elementBits", tl_dtype_bits(d->dtype)) &&
        tl_json_add_u64(o, "dimensionCount", d->rank) &&
        tl_json_add_u64_array(o, "sizes", d->sizes, d->rank) &&
        tl_json_add_u64_array(o, "strides", d->strides, d->rank) &&
        cJSON_AddBoolToObject(o, "stridesImplicit", d->strides_src != TL_STRIDES_GIVEN) &&
        (tl_axis_letters(d->rank) ? cJSON_AddStringToObject(o, "layout", in->layout)
                                  : cJSON_AddNullToObject(o, "layout")) &&
        tl_json_add_u64_array(o, "axisOrder", order, d->rank) &&
        tl_json_add_u64_array(o, "broadcastAxes", bcast, nb) &&
        tl_json_add_u64(o, "elementCount", in->element_count) &&
        tl_json_add_u64(o, "span", in->span) &&
        tl_json_add_u64(o, "minimumImpliedSizeInBytes", in->min_size) &&
        tl_json_add_u64(o, "totalTensorSizeInBytes", d->total_bytes) &&
        tl_json_add_u64(o, "guaranteedBaseOffsetAlignment", d->alignment) &&
        tl_json_add_u64(o, "byteOffset", d->byte_offset) &&
        tl_json_add_u64(o, "fileOffset", d->file_offset) &&
        cJSON_AddStringToObject(o, "flags", d->flags ? "OWNED_BY_DML" : "NONE") &&
        (!c->blocks || print_blocks(c, o)) &&
        cJSON_AddBoolToObject(o, "packed", in->packed) &&
        cJSON_AddBoolToObject(o, "padded", in->padded) &&
        cJSON_AddBoolToObject(o, "broadcast", in->broadcast) &&
        cJSON_AddBoolToObject(o, "overlapping", in->overlapping) &&
        cJSON_AddStringToObject(o, "status", tl_status_name(in->status)) &&
        cJSON_AddBoolToObject(o, "valid", np == 0);
    ok = ok && findings_json(o, c, p, np) && (!data || data_json(o, c, data)) &&
         (!padding || padding_json(o, c));
    if (!ok) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

/* DirectML's rules judge DirectML descriptions (JSON, or --type and
 * --sizes); a tensor read from a model file is judged by them only when
 * --dml asks (SPEC 19): else only a file too short for it is a problem. */
static size_t model_file_problems(struct tl_problem *p, size_t np)
{
    size_t k = 0;
    for (size_t i = 0; i < np; i++)
        if (p[i].code == TL_P_DATA_SHORT)
            p[k++] = p[i];
    return k;
}

static int run(const char *desc_arg, const char *data_arg, const char *axes, bool json,
               bool padding, bool dml)
{
    struct cli_desc desc;
    struct cli_data data;
    /* an encoded tensor (blocks, a group-quantized weight, ...) through
     * the streaming reader: its decoded bytes are counted, not made */
    int rc = cli_load_input_streamed(desc_arg, data_arg, axes, "inspect", true, &desc, &data);
    if (rc)
        return rc;
    struct cli_data shown = data;       /* the data as the tensor's bytes */
    if (desc.values) {
        shown.size = tl_values_size(desc.values);
        shown.at_least = false;
    }
    bool have = data_arg || desc.format != TL_FMT_JSON;
    struct tl_problem p[TL_MAX_PROBLEMS];
    size_t np = tl_desc_problems(&desc.d, &desc.info, have ? shown.size : TL_NO_DATA, p);
    if (desc.format != TL_FMT_JSON && !dml)
        np = model_file_problems(p, np);
    if (json) {
        rc = cli_print_json(build_json(&desc, have ? &shown : NULL, p, np, padding));
    } else {
        cli_note_overlap(&desc);
        print_text(&desc, have ? &shown : NULL, p, np, padding, axes);
    }
    cli_close_data(&data);
    cli_desc_release(&desc);
    return rc ? rc : np ? CLI_NO : CLI_OK;
}

int cmd_inspect(int argc, char **argv)
{
    static char gloss[512];
    struct arg_file *desc = arg_file1(NULL, NULL, "DESC", cli_formats_text("tensor description: a JSON file, '-' or inline JSON, or a tensor file (@FORMATS@, a shard index; FILE[:NAME])", gloss, sizeof gloss));
    struct arg_file *data = arg_file0(NULL, NULL, "DATA", "raw data file to check against the description");
    struct arg_str *axes = arg_str0(NULL, "axes", "L", "a tensor file's dimensions as logical axes, outermost first (NHWC, 0,2,3,1)");
    struct arg_lit *padding = arg_lit0(NULL, "padding", "list the buffer's padding as byte ranges (nibbles for 4-bit types)");
    struct arg_lit *dml = arg_lit0(NULL, "dml", "judge a tensor file's tensor by DirectML's rules too (they judge descriptions always)");
    struct arg_lit *json = arg_lit0(NULL, "json", "print one JSON document");
    struct arg_lit *help = arg_lit0("h", "help", "print this help and exit");
    struct cli_desc_opts dopt;
    cli_desc_opts_init(&dopt, "inspect", 1);
    struct arg_end *end = arg_end(5);
    void *table[] = { desc, data, dopt.type, dopt.sizes, dopt.strides, dopt.layout,
                      dopt.byte_offset, dopt.total_size, dopt.file_offset, dopt.alignment, axes, padding, dml, json, help, end };
    int rc = CLI_IO;
    if (arg_nullcheck(table) == 0)
        rc = cli_parse_args_desc(argc, argv, table, about, &dopt);
    if (rc == CLI_CONTINUE)
        rc = run(desc->filename[0], data->count ? data->filename[0] : NULL,
                 axes->count ? axes->sval[0] : NULL, json->count > 0, padding->count > 0,
                 dml->count > 0);
    arg_freetable(table, sizeof table / sizeof table[0]);
    return rc;
}
