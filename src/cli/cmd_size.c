/* cmd_size.c - `tensorlayout size DESC`: the minimum implied size in bytes. */
#include <argtable2.h>
#include <cjson/cJSON.h>
#include <inttypes.h>

#include "cli.h"

static const char about[] =
    "Prints the minimum implied size of the tensor's buffer in bytes: the span\n"
    "times the element size, rounded up to a multiple of 4 (DirectML's\n"
    "DMLCalcBufferTensorSize).";

static int run(const char *arg, bool json)
{
    struct cli_desc desc;
    int rc = cli_load_desc(arg, &desc);
    if (rc)
        return rc;
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
    struct arg_file *desc = arg_file1(NULL, NULL, "DESC", "tensor description: a JSON file, '-' or inline JSON");
    struct arg_lit *json = arg_lit0(NULL, "json", "print {\"minimumImpliedSizeInBytes\": N}");
    struct arg_lit *help = arg_lit0("h", "help", "print this help and exit");
    struct arg_end *end = arg_end(5);
    void *table[] = { desc, json, help, end };
    int rc = CLI_IO;
    if (arg_nullcheck(table) == 0)
        rc = cli_parse_args(argc, argv, table, about);
    if (rc == CLI_CONTINUE)
        rc = run(desc->filename[0], json->count > 0);
    arg_freetable(table, sizeof table / sizeof table[0]);
    return rc;
}
