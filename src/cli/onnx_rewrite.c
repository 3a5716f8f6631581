/*
 * onnx_rewrite.c - convert model.onnx -o out.onnx --external-data[=FILE] |
 * --inline (SPEC 20): the command line's part of the library's
 * tl_onnx_rewrite.  It opens the model and the external data files it
 * names (checked to stay in the model's folder), the two outputs (the data
 * file beside OUT, then OUT, put in place together), and says what moved.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* The data file's path beside OUT, and its name as the model says it:
 * FILE as given (a name in OUT's folder), or OUT's name with ".data". */
static int data_names(const char *out, const char *given, char *path, size_t n,
                      const char **location)
{
    const char *slash = strrchr(out, '/');
    const char *base = slash ? slash + 1 : out;
    int dir = slash ? (int)(slash - out + 1) : 0;
    if (given && (!given[0] || strchr(given, '/') || strcmp(given, "..") == 0 ||
                  strcmp(given, ".") == 0)) {
        cli_usage_error("convert", "--external-data=%s: the data file is named by a file name "
                        "alone, in OUT's folder (the model names it relative to itself)", given);
        return CLI_USAGE;
    }
    snprintf(path, n, "%.*s%s%s", dir, out, given ? given : base, given ? "" : ".data");
    *location = path + dir;
    return CLI_OK;
}

/* The external data files of the model's weights, one input each row that
 * has one (NULL for the others). */
static int inputs_of(const char *model, const struct tl_file *f, struct cli_elsewhere *e,
                     const struct tl_input ***row_in)
{
    struct tl_whole_item *it = calloc(f->count ? f->count : 1, sizeof *it);
    *row_in = calloc(f->count ? f->count : 1, sizeof **row_in);
    if (!it || !*row_in) {
        free(it);
        free(*row_in);
        return cli_oom();
    }
    for (size_t k = 0; k < f->count; k++)
        it[k].t = &f->tensors[k];
    int rc = cli_elsewhere_open(model, it, f->count, e);
    for (size_t k = 0; rc == CLI_OK && k < f->count; k++)
        (*row_in)[k] = it[k].in;
    free(it);
    return rc;
}

int cli_onnx_rewrite(const char *model, const char *out, bool external, const char *data_file,
                     uint64_t threshold, bool quiet)
{
    struct cli_data in;
    enum tl_format format;
    struct tl_file f;
    struct tl_error err = { 0 };
    char data_path[4096];
    const char *location = NULL;
    int rc = external ? data_names(out, data_file, data_path, sizeof data_path, &location)
                      : CLI_OK;
    if (rc)
        return rc;
    if (cli_out_is_stream(out)) {
        cli_usage_error("convert", "a rewritten ONNX model is written into a file, with its "
                        "data file beside it: give -o OUT.onnx");
        return CLI_USAGE;
    }
    if ((rc = cli_open_file(model, &in, &format)))
        return rc;
    if (format != TL_FMT_ONNX) {
        cli_usage_error("convert", "--external-data and --inline rewrite an ONNX model; %s is "
                        "%s", in.name, tl_format_entry(format)->title);
        cli_close_data(&in);
        return CLI_USAGE;
    }
    if (tl_file_parse(in.bytes, in.size, &f, &err)) {
        cli_report(in.name, &err);
        cli_close_data(&in);
        return CLI_INVALID;
    }
    if (f.named == false) {
        cli_usage_error("convert", "%s is one serialized tensor, not a model: nothing to "
                        "rewrite", in.name);
        tl_file_free(&f);
        cli_close_data(&in);
        return CLI_USAGE;
    }
    struct cli_elsewhere other = { 0 };
    const struct tl_input **row_in = NULL;
    if (!(rc = cli_elsewhere_sound(&f, in.name)))
        rc = inputs_of(in.name, &f, &other, &row_in);
    struct tl_input src = cli_input(&in, NULL);
    struct tl_onnx_rewrite job = {
        .f = &f, .model = &src, .row_in = row_in, .external = external,
        .threshold = threshold, .location = location,
    };
    struct cli_writer data, mw;
    if (rc == CLI_OK && external) {
        rc = cli_writer_open(&data, data_path, 0, 1, false, NULL);
        if (rc)
            tl_writer_free(&data.w);
    }
    if (rc == CLI_OK) {
        /* OUT waits for the data file: both are put in place, or neither */
        rc = cli_writer_open(&mw, out, 0, 1, false, external ? &data.out : NULL);
        if (rc == CLI_OK) {
            int lib = tl_onnx_rewrite(&job, &mw.w, external ? &data.w : NULL, &err);
            if (lib && !mw.w.blame)
                mw.w.blame = in.name;
            if ((rc = cli_writer_status(&mw, lib, &err)) == CLI_OK)
                rc = cli_writer_commit(&mw);
            else
                cli_writer_abort(&mw);
        } else {
            tl_writer_free(&mw.w);      /* the data file was removed with it */
        }
        if (external)
            tl_writer_free(&data.w);
    }
    if (rc == CLI_OK && !quiet)
        cli_note("%s: %zu weight%s moved into %s (%" PRIu64 " bytes), %zu brought into the "
                 "model (%" PRIu64 " bytes)\n", out, job.moved, job.moved == 1 ? "" : "s",
                 external ? location : "no data file", job.data_bytes, job.brought,
                 job.model_bytes);
    free(row_in);
    cli_elsewhere_close(&other);
    tl_file_free(&f);
    cli_close_data(&in);
    return rc;
}
