/* cmd_size.c - `tensorlayout size DESC`: the minimum implied size in bytes. */
#include <argtable2.h>
#include <cjson/cJSON.h>
#include <inttypes.h>

#include "cli.h"

static const char about[] =
    "Prints the minimum implied size of the tensor's buffer in bytes: the span\n"
    "times the element size, rounded up to a multiple of 4 (DirectML's\n"
    "DMLCalcBufferTensorSize).";

static int run(const char *arg, const char *axes, bool json)
{
    struct cli_desc desc;
    int rc = cli_load_desc(arg, axes, &desc);
    if (rc)
        return rc;
    cli_desc_release(&desc);
    if (json) {
        cJSON *doc = cJSON_CreateObject();
        if (doc && !tl_json_add_u64(doc, "minimumImpliedSizeInBytes", desc.info.min_size)) {
            cJSON_Delete(doc);
            doc = NULL;
        }
        return cli_print_json(doc);
    }
    printf("%" PRIu64 "\n", desc.info.min_size);
    return CLI_OK;
}

int cmd_size(int argc, char **argv)
{
    static char gloss[512];
    struct arg_file *desc = arg_file1(NULL, NULL, "DESC", cli_formats_text("tensor description: a JSON file, '-' or inline JSON, or a tensor file (@FORMATS@, a shard index; FILE[:NAME])", gloss, sizeof gloss));
    struct arg_str *axes = arg_str0(NULL, "axes", "L", "a tensor file's dimensions as logical axes, outermost first (NHWC, 0,2,3,1)");
    struct arg_lit *json = arg_lit0(NULL, "json", "print {\"minimumImpliedSizeInBytes\": N}");
    struct arg_lit *help = arg_lit0("h", "help", "print this help and exit");
    struct cli_desc_opts dopt;
    cli_desc_opts_init(&dopt, "size", 1);
    struct arg_end *end = arg_end(5);
    void *table[] = { desc, dopt.type, dopt.sizes, dopt.strides, dopt.layout,
                      dopt.byte_offset, dopt.total_size, dopt.file_offset, dopt.alignment, axes, json, help, end };
    int rc = CLI_IO;
    if (arg_nullcheck(table) == 0)
        rc = cli_parse_args_desc(argc, argv, table, about, &dopt);
    if (rc == CLI_CONTINUE)
        rc = run(desc->filename[0], axes->count ? axes->sval[0] : NULL, json->count > 0);
    arg_freetable(table, sizeof table / sizeof table[0]);
    return rc;
}
