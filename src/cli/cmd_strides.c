/*
 * cmd_strides.c - `tensorlayout strides --sizes LIST --layout L`: packed
 * strides for an axis order, with broadcast axes (CalculateStrides), or
 * padded (--pad, --align, --pitch: SPEC section 13).
 */
#include <argtable2.h>
#include <cjson/cJSON.h>

#include <string.h>

#include "cli.h"

static const char about[] =
    "Computes the strides that store a tensor of the given sizes (in logical\n"
    "order) in the given layout, packed; broadcast axes get stride 0 and count\n"
    "as size 1.  Padded too: --pad AXIS=N gives AXIS N slots, --align AXIS=N\n"
    "rounds the next outer axis's stride up to a multiple of N elements, and\n"
    "--pitch BYTES rounds the stride of the row axis, H (the logical axis just\n"
    "outside W, whatever the memory order), up to a multiple of BYTES, as a GPU\n"
    "row pitch (--pitch AXIS=BYTES another axis's; --type is then required);\n"
    "outer strides follow.\n"
    "Prints them as a comma-separated list, or with --json a whole\n"
    "description that the other commands accept (dataType FLOAT32 unless\n"
    "--type says otherwise).";

/* "AXIS=N" of --pad or --align: the axis (a letter of the rank, or an
 * index) and N >= 1. */
static int axis_value(const char *cmd, const char *opt, unsigned rank, const char *text,
                      unsigned *axis, uint64_t *n)
{
    char name[16], q[64];
    struct tl_error err = { 0 };
    const char *eq = strchr(text, '=');
    unsigned mask = 0;
    uint64_t v;
    if (!eq || (size_t)(eq - text) >= sizeof name || cli_parse_u64_list(eq + 1, &v, 1) != 1 ||
        v == 0) {
        cli_usage_error(cmd, "%s: '%s' is not AXIS=N (such as W=64)", opt,
                        tl_quote(text, q, sizeof q));
        return CLI_USAGE;
    }
    snprintf(name, sizeof name, "%.*s", (int)(eq - text), text);
    if (tl_axes_parse(rank, name, &mask, &err) || !mask || (mask & (mask - 1))) {
        cli_usage_error(cmd, "%s: '%s' is not one axis of a rank-%u tensor (%s)", opt,
                        tl_quote(name, q, sizeof q), rank, err.msg[0] ? err.msg : "one letter");
        return CLI_USAGE;
    }
    *axis = (unsigned)__builtin_ctz(mask);
    *n = v;
    return CLI_OK;
}

struct pads {
    const char *const *pad, *const *align;
    int npad, nalign;
    const char *pitch;
};

/* --pad, --align and --pitch (SPEC 13) as a padding of rank axes of type
 * dt (typed: --type was given, which a pitch in bytes needs).
 * @return CLI_OK, or CLI_USAGE after the message. */
static int padding(const struct pads *p, unsigned rank, enum tl_dtype dt, bool typed,
                   struct tl_padding *pad)
{
    static const char cmd[] = "strides";
    char q[64];
    memset(pad, 0, sizeof *pad);
    for (int i = 0; i < p->npad + p->nalign; i++) {
        bool is_pad = i < p->npad;
        unsigned axis;
        uint64_t n;
        if (axis_value(cmd, is_pad ? "--pad" : "--align", rank,
                       is_pad ? p->pad[i] : p->align[i - p->npad], &axis, &n))
            return CLI_USAGE;
        (is_pad ? pad->slots : pad->align)[axis] = n;
    }
    if (!p->pitch)
        return CLI_OK;
    uint64_t bytes;
    unsigned es = tl_dtype_size(dt), axis = rank - 2;
    if (!typed) {
        cli_usage_error(cmd, "--pitch needs --type: a pitch is a count of bytes, and bytes "
                        "mean nothing without an element size");
        return CLI_USAGE;
    }
    if (strchr(p->pitch, '=')) {
        if (axis_value(cmd, "--pitch", rank, p->pitch, &axis, &bytes))
            return CLI_USAGE;
    } else if (rank < 2) {
        cli_usage_error(cmd, "--pitch: a rank-1 tensor has no row axis (H): name the axis "
                        "as AXIS=BYTES");
        return CLI_USAGE;
    } else if (cli_parse_u64_list(p->pitch, &bytes, 1) != 1) {
        bytes = 0;
    }
    if (bytes == 0 || bytes % es) {
        cli_usage_error(cmd, "--pitch: '%s' is not a count of bytes >= 1 that is a multiple "
                        "of the element size (%u bytes of %s)", tl_quote(p->pitch, q, sizeof q),
                        es, tl_dtype_name(dt));
        return CLI_USAGE;
    }
    pad->pitch[axis] = tl_dtype_count(dt, bytes);  /* elements: two a byte for 4-bit types */
    return CLI_OK;
}

static int run(const char *sizes_arg, const char *layout_arg, const char *bcast_arg,
               const char *type_arg, const struct pads *p, bool json)
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
    struct tl_padding pad;
    if (padding(p, (unsigned)rank, dt, type_arg != NULL, &pad))
        return CLI_USAGE;
    memset(&d, 0, sizeof d);
    d.dtype = dt;
    d.rank = (unsigned)rank;
    d.strides_src = p->npad || p->nalign || p->pitch ? TL_STRIDES_GIVEN : TL_STRIDES_LAYOUT;
    memcpy(d.sizes, sizes, sizeof sizes);
    bool padded = d.strides_src == TL_STRIDES_GIVEN;
    if (tl_strides_padded(d.rank, d.sizes, order, mask, padded ? &pad : NULL, d.strides, &err) ||
        tl_desc_validate(&d, &err)) {
        bool axis = strcmp(err.key, "sizes") != 0 && strcmp(err.key, "pitch") != 0;
        cli_error("%s: %s%s: %s", cmd, axis ? "axis " : "--",
                err.key, err.msg);
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
    struct arg_str *type = arg_str0(NULL, "type", "T", "data type (default FLOAT32): of --json, and of --pitch's bytes");
    struct arg_str *pad = arg_strn(NULL, "pad", "AXIS=N", 0, TL_MAX_RANK, "give AXIS N slots: the next outer stride is N times AXIS's (repeatable)");
    struct arg_str *align = arg_strn(NULL, "align", "AXIS=N", 0, TL_MAX_RANK, "round the next outer axis's stride up to a multiple of N elements (repeatable)");
    struct arg_str *pitch = arg_str0(NULL, "pitch", "[AXIS=]BYTES", "round the row axis's stride (H, or AXIS's) up to a multiple of BYTES (a GPU row pitch; needs --type)");
    struct arg_lit *json = arg_lit0(NULL, "json", "print a whole description");
    struct arg_lit *help = arg_lit0("h", "help", "print this help and exit");
    struct arg_end *end = arg_end(5);
    void *table[] = { sizes, layout, bcast, type, pad, align, pitch, json, help, end };
    int rc = CLI_IO;
    if (arg_nullcheck(table) == 0)
        rc = cli_parse_args(argc, argv, table, about);
    if (rc == CLI_CONTINUE) {
        struct pads p = { pad->sval, align->sval, pad->count, align->count,
                          pitch->count ? pitch->sval[0] : NULL };
        rc = run(sizes->sval[0], layout->sval[0], bcast->count ? bcast->sval[0] : NULL,
                 type->count ? type->sval[0] : NULL, &p, json->count > 0);
    }
    arg_freetable(table, sizeof table / sizeof table[0]);
    return rc;
}
