/*
 * cmd_strides.c - `tensorlayout strides --sizes LIST --layout L`: packed
 * strides for an axis order, with broadcast axes (CalculateStrides).
 */
#include <argtable2.h>
#include <cjson/cJSON.h>

#include <string.h>

#include "cli.h"

static const char about[] =
    "Computes the strides that store a tensor of the given sizes (in logical\n"
    "order) in the given layout, packed; broadcast axes get stride 0 and count\n"
    "as size 1.  Prints them as a comma-separated list, or with --json a whole\n"
    "description that the other commands accept (dataType FLOAT32 unless\n"
    "--type says otherwise).";

static int run(const char *sizes_arg, const char *layout_arg, const char *bcast_arg,
               const char *type_arg, bool json)
{
    static const char cmd[] = "strides";
    uint64_t sizes[TL_MAX_RANK];
    struct tl_error err = { 0 };
    struct tl_desc d;
    enum tl_dtype dt = TL_DT_FLOAT32;
    unsigned order[TL_MAX_RANK], mask = 0;
    char q[64];

    int rank = cli_parse_u64_list(sizes_arg, sizes, TL_MAX_RANK);
    if (rank < 1) {
        cli_usage_error(cmd, "--sizes: '%s' is not a list of 1 to 8 integers such as 1,3,224,224",
                        tl_quote(sizes_arg, q, sizeof q));
        return CLI_USAGE;
    }
    for (int i = 0; i < rank; i++) {
        if (sizes[i] == 0) {
            cli_usage_error(cmd, "--sizes: sizes[%d] must be an integer >= 1", i);
            return CLI_USAGE;
        }
    }
    if (type_arg && cli_type_arg(cmd, "--type", type_arg, &dt))
        return CLI_USAGE;
    if (tl_layout_parse((unsigned)rank, layout_arg, order, &err)) {
        cli_usage_error(cmd, "--layout: %s", err.msg);
        return CLI_USAGE;
    }
    if (bcast_arg && tl_axes_parse((unsigned)rank, bcast_arg, &mask, &err)) {
        cli_usage_error(cmd, "--broadcast: %s", err.msg);
        return CLI_USAGE;
    }
    memset(&d, 0, sizeof d);
    d.dtype = dt;
    d.rank = (unsigned)rank;
    d.strides_src = TL_STRIDES_LAYOUT;
    memcpy(d.sizes, sizes, sizeof sizes);
    if (tl_strides_for_order(d.rank, d.sizes, order, mask, d.strides, &err) ||
        tl_desc_validate(&d, &err)) {
        fprintf(stderr, "tensorlayout: %s: --sizes: %s\n", cmd, err.msg);
        return CLI_INVALID;
    }
    if (json)
        return cli_print_json(tl_desc_to_json(&d));
    cli_print_u64_list(stdout, d.strides, d.rank, ",");
    putchar('\n');
    return CLI_OK;
}

int cmd_strides(int argc, char **argv)
{
    struct arg_str *sizes = arg_str1(NULL, "sizes", "LIST", "sizes in logical order, e.g. 1,3,224,224");
    struct arg_str *layout = arg_str1(NULL, "layout", "L", "axis order, outermost first: letters (NHWC) or indices (0,2,3,1)");
    struct arg_str *bcast = arg_str0(NULL, "broadcast", "AXES", "axes to broadcast (stride 0): letters (HW) or indices (2,3)");
    struct arg_str *type = arg_str0(NULL, "type", "T", "data type for --json (default FLOAT32)");
    struct arg_lit *json = arg_lit0(NULL, "json", "print a whole description");
    struct arg_lit *help = arg_lit0("h", "help", "print this help and exit");
    struct arg_end *end = arg_end(5);
    void *table[] = { sizes, layout, bcast, type, json, help, end };
    int rc = CLI_IO;
    if (arg_nullcheck(table) == 0)
        rc = cli_parse_args(argc, argv, table, about);
    if (rc == CLI_CONTINUE)
        rc = run(sizes->sval[0], layout->sval[0], bcast->count ? bcast->sval[0] : NULL,
                 type->count ? type->sval[0] : NULL, json->count > 0);
    arg_freetable(table, sizeof table / sizeof table[0]);
    return rc;
}
