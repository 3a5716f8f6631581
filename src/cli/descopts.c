/*
 * descopts.c - a description given by options instead of DESC (SPEC
 * section 13): --type T --sizes LIST [--strides LIST | --layout L]
 * [--byte-offset N] [--total-size N] [--file-offset N] [--alignment N],
 * after which the first argument is DATA.
 *
 * A command that takes DESC adds the five options to its argtable
 * (cli_desc_opts_init) and parses with cli_parse_args_desc().  When any of
 * them was given, DESC is a marker argument of ours (cli_desc_opts_arg),
 * which cli_load_desc() recognises by its address and turns into a
 * description through cli_desc_from_opts().  No JSON is written and read
 * back: every message names the option that is wrong.
 */
#include <argtable2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* What DESC is when the options give it: side 0 (A) or 1 (B).  Told
 * apart by address, so that no argument a user types can be taken for it. */
static char marker[2][16] = { "<options>", "<options B>" };
static const struct cli_desc_opts *given;

void cli_desc_opts_init(struct cli_desc_opts *o, const char *cmd, int sides)
{
    o->cmd = cmd;
    o->sides = sides;
    if (sides == 1) {
        o->type = arg_str0(NULL, "type", "T", "in place of DESC, with --sizes: the data type "
                           "(FLOAT32, float16, BF16, u8, INT4...)");
        o->sizes = arg_str0(NULL, "sizes", "LIST", "in place of DESC: the sizes in logical "
                            "order (1,3,224,224)");
        o->strides = arg_str0(NULL, "strides", "LIST", "in place of DESC: strides in elements "
                              "(default: packed in logical order)");
        o->layout = arg_str0(NULL, "layout", "L", "in place of DESC: packed in this memory "
                             "order (NHWC, 0,2,3,1); not with --strides");
        o->byte_offset = arg_str0(NULL, "byte-offset", "N", "in place of DESC: where element 0 "
                                  "starts in DATA (default 0)");
        o->total_size = arg_str0(NULL, "total-size", "N", "in place of DESC: "
                                 "totalTensorSizeInBytes (default: the minimum implied)");
        o->file_offset = arg_str0(NULL, "file-offset", "N", "in place of DESC: where the "
                                  "buffer starts in DATA (a readback of several)");
        o->alignment = arg_str0(NULL, "alignment", "N", "in place of DESC: "
                                "guaranteedBaseOffsetAlignment in bytes");
        return;
    }
    o->type = arg_strn(NULL, "type", "T", 0, 2, "instead of DESCs: the data type of both "
                       "DATA files (once), or of A's then B's (twice)");
    o->sizes = arg_strn(NULL, "sizes", "LIST", 0, 2, "instead of DESCs: the sizes, once for "
                        "both or twice");
    o->strides = arg_strn(NULL, "strides", "LIST", 0, 2, "instead of DESCs: strides in "
                          "elements, once for both or twice");
    o->layout = arg_strn(NULL, "layout", "L", 0, 2, "instead of DESCs: memory order, packed "
                         "(NHWC), once for both or twice");
    o->byte_offset = arg_strn(NULL, "byte-offset", "N", 0, 2, "instead of DESCs: where "
                              "element 0 starts, once for both or twice");
    o->total_size = arg_strn(NULL, "total-size", "N", 0, 2, "instead of DESCs: "
                             "totalTensorSizeInBytes, once for both or twice");
    o->file_offset = arg_strn(NULL, "file-offset", "N", 0, 2, "instead of DESCs: where the "
                              "buffer starts, once for both or twice");
    o->alignment = arg_strn(NULL, "alignment", "N", 0, 2, "instead of DESCs: "
                            "guaranteedBaseOffsetAlignment, once for both or twice");
}

bool cli_desc_opts_given(const struct cli_desc_opts *o)
{
    return o->type->count || o->sizes->count || o->strides->count || o->layout->count ||
           o->byte_offset->count || o->total_size->count || o->file_offset->count ||
           o->alignment->count;
}

const char *cli_desc_opts_arg(const struct cli_desc_opts *o, int side)
{
    given = o;
    return marker[side];
}

int cli_parse_args_desc(int argc, char **argv, void **table, const char *about,
                        struct cli_desc_opts *o)
{
    /* A first, silent pass tells whether the options were given (argtable
     * resolves abbreviations as getopt does); then DESC is our marker,
     * put first among the arguments, so that the first one typed is DATA. */
    arg_parse(argc, argv, table);
    /* "--sizes 2, 3": the list ends at the space, and 3 would be DATA */
    const struct arg_str *lists[2] = { o->sizes, o->strides };
    for (int i = 0; i < 2; i++) {
        for (int k = 0; k < lists[i]->count; k++) {
            const char *v = lists[i]->sval[k];
            if (*v && v[strlen(v) - 1] == ',') {
                char q[64];
                cli_usage_error(argv[0], "--%s: '%s' ends with a comma: write the list without "
                                "spaces (2,3,4)", i ? "strides" : "sizes",
                                tl_quote(v, q, sizeof q));
                return CLI_USAGE;
            }
        }
    }
    if (!cli_desc_opts_given(o) || o->sides != 1)
        return cli_parse_args(argc, argv, table, about);
    char **args = malloc(((size_t)argc + 2) * sizeof *args);
    if (!args) {
        cli_oom();
        return CLI_IO;
    }
    args[0] = argv[0];
    args[1] = (char *)cli_desc_opts_arg(o, 0);
    memcpy(args + 2, argv + 1, (size_t)argc * sizeof *args);   /* and the NULL */
    /* the first argument typed is DATA: a DESC as well is one too many.
     * The hint names an option that was given, and DESC's key for it. */
    const struct {
        const struct arg_str *opt;
        const char *name, *key;
    } keys[] = {
        { o->strides, "strides", "strides" },
        { o->layout, "layout", "layout" },
        { o->byte_offset, "byte-offset", "byteOffset" },
        { o->total_size, "total-size", "totalTensorSizeInBytes" },
        { o->file_offset, "file-offset", "fileOffset" },
        { o->alignment, "alignment", "guaranteedBaseOffsetAlignment" },
    };
    char hint[200] = "--type and --sizes describe DATA: give them or DESC, not both";
    for (size_t i = 0; !o->type->count && !o->sizes->count && i < sizeof keys / sizeof keys[0];
         i++) {
        if (keys[i].opt->count) {
            snprintf(hint, sizeof hint, "--%s is part of a description given by options "
                     "(with --type and --sizes): with DESC, write its key \"%s\" into DESC",
                     keys[i].name, keys[i].key);
            break;
        }
    }
    int rc = cli_parse_args_hint(argc + 1, args, table, about, hint);
    free(args);       /* argtable keeps pointers to the strings, not to args */
    return rc;
}

/* Option opt's value for side (given once: both sides'), or NULL. */
static const char *value(const struct arg_str *a, int side)
{
    if (a->count == 0)
        return NULL;
    return a->sval[a->count == 1 ? 0 : side];
}

static int opt_error(const char *cmd, const char *opt, const char *what, const char *v)
{
    char q[64];
    if (v)
        cli_usage_error(cmd, "%s: '%s' %s", opt, tl_quote(v, q, sizeof q), what);
    else
        cli_usage_error(cmd, "%s", what);
    return CLI_USAGE;
}

/* --layout (packed strides in that memory order) or --strides (given)
 * into d, or neither (implicit: packed, logical order).
 * @return CLI_OK, or CLI_USAGE after the message. */
static int strides_of(const char *cmd, const char *layout, const char *strides, unsigned rank,
                      struct tl_desc *d)
{
    struct tl_error err = { 0 };
    d->strides_src = TL_STRIDES_IMPLICIT;
    if (layout) {
        unsigned order[TL_MAX_RANK];
        if (tl_layout_parse(rank, layout, order, &err)) {
            cli_usage_error(cmd, "--layout: %s", err.msg);
            return CLI_USAGE;
        }
        tl_strides_for_order(rank, d->sizes, order, 0, d->strides, NULL);
        d->strides_src = TL_STRIDES_LAYOUT;
    } else if (strides) {
        int got = cli_parse_u64_list(strides, d->strides, TL_MAX_RANK);
        if (got != (int)rank) {
            char msg[160];
            snprintf(msg, sizeof msg, "must be %u comma-separated integers, as --sizes has%s",
                     rank, got == -2 ? ", none negative (DirectML's strides are unsigned)" : "");
            return opt_error(cmd, "--strides", msg, strides);
        }
        d->strides_src = TL_STRIDES_GIVEN;
    }
    return CLI_OK;
}

int cli_desc_from_opts(const char *arg, struct cli_desc *out)
{
    const struct cli_desc_opts *o = given;
    const char *cmd = o->cmd;
    int side = arg == marker[1];
    const char *type = value(o->type, side), *sizes = value(o->sizes, side);
    const char *strides = value(o->strides, side), *layout = value(o->layout, side);
    const char *offset = value(o->byte_offset, side), *total = value(o->total_size, side);
    const char *foffset = value(o->file_offset, side), *align = value(o->alignment, side);
    struct tl_error err = { 0 };
    uint64_t n[TL_MAX_RANK + 1];
    enum tl_dtype dt;

    memset(out, 0, sizeof *out);
    snprintf(out->name, sizeof out->name, "%s", marker[side]);
    out->format = TL_FMT_JSON;
    out->options = true;
    if (!type || !sizes)
        return opt_error(cmd, NULL, o->sides == 1
                         ? "a description from options needs --type and --sizes (or give DESC)"
                         : "descriptions from options need --type and --sizes (or give DESCs)",
                         NULL);
    if (strides && layout)
        return opt_error(cmd, NULL, "give --strides or --layout, not both: --layout is packed "
                         "strides in that memory order", NULL);
    if (cli_type_arg(cmd, "--type", type, &dt))
        return CLI_USAGE;
    int rank = cli_parse_u64_list(sizes, n, TL_MAX_RANK + 1);
    if (rank == -2)
        return opt_error(cmd, "--sizes", "holds a negative size: every size is at least 1",
                         sizes);
    if (rank < 1 || rank > TL_MAX_RANK)
        return opt_error(cmd, "--sizes", "is not 1 to 8 comma-separated integers", sizes);
    for (int i = 0; i < rank; i++) {
        if (n[i] == 0)
            return opt_error(cmd, "--sizes", "has a size of 0: every size is at least 1",
                             sizes);
    }
    if (tl_desc_init(&out->d, dt, (unsigned)rank, n, &err)) {
        cli_error("--sizes: %s", err.msg);
        return CLI_INVALID;
    }
    int rc = strides_of(cmd, layout, strides, (unsigned)rank, &out->d);
    if (rc)
        return rc;
    if (offset && !cli_parse_bytes(offset, &out->d.byte_offset))
        return opt_error(cmd, "--byte-offset", "is not a number of bytes", offset);
    if (total && !cli_parse_bytes(total, &out->d.total_bytes))
        return opt_error(cmd, "--total-size", "is not a number of bytes", total);
    out->d.total_given = total != NULL;
    if (foffset && !cli_parse_bytes(foffset, &out->d.file_offset))
        return opt_error(cmd, "--file-offset", "is not a number of bytes", foffset);
    if (align && !cli_parse_bytes(align, &out->d.alignment))
        return opt_error(cmd, "--alignment", "is not a number of bytes", align);
    if (tl_desc_validate(&out->d, &err)) {
        const char *key = strcmp(err.key, "byteOffset") == 0 ? "byte-offset"
                        : strcmp(err.key, "totalTensorSizeInBytes") == 0 ? "total-size"
                        : strcmp(err.key, "fileOffset") == 0 ? "file-offset"
                        : strcmp(err.key, "guaranteedBaseOffsetAlignment") == 0 ? "alignment"
                        : err.key;
        cli_error("%s: --%s: %s", out->name, key, err.msg);
        return CLI_INVALID;
    }
    return CLI_OK;
}

bool cli_desc_opts_is(const char *arg)
{
    return arg == marker[0] || arg == marker[1];
}
