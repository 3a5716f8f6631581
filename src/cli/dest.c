/*
 * dest.c - the destination description that --to, --to-strides, --to-desc,
 * --to-type and --to-byte-offset ask for: convert's, and the one draw
 * pictures beside its source.
 */
#include <string.h>

#include "cli.h"

/* --to-desc: the whole destination, which must agree with the other
 * options and have the source's sizes.  @return a CLI_* status. */
static int given_dest(const char *cmd, const struct cli_dest *o, const struct tl_desc *s,
                      struct cli_desc *dst)
{
    int rc = cli_load_desc(o->to_desc, NULL, dst);
    if (rc)
        return rc;
    cli_desc_release(dst);
    if (o->to_byte_offset) {
        cli_usage_error(cmd, "--to-byte-offset and --to-desc: give the byteOffset in --to-desc");
        return CLI_USAGE;
    }
    if (o->to_type && dst->d.dtype != *o->to_type) {
        cli_usage_error(cmd, "--to-type %s and the dataType of --to-desc (%s) disagree: give one",
                        tl_dtype_name(*o->to_type), tl_dtype_name(dst->d.dtype));
        return CLI_USAGE;
    }
    if (dst->d.rank != s->rank || memcmp(dst->d.sizes, s->sizes, s->rank * sizeof s->sizes[0])) {
        cli_error("%s: sizes: differ from the source's sizes", dst->name);
        return CLI_INVALID;
    }
    return CLI_OK;
}

/* --to-type alone: the source's memory order, packed; a tensor file's
 * logical shape kept for numpy (a Fortran-order .npy stays one, a file
 * without an order flag gets C order). */
static void kept_order(const struct cli_dest *o, const struct cli_desc *src,
                       struct cli_desc *dst)
{
    const struct tl_desc *s = &src->d;
    const unsigned *order = src->info.axis_order;
    unsigned c_order[TL_MAX_RANK];
    bool file = src->format != TL_FMT_JSON && !src->options && s->rank > 1;
    snprintf(dst->name, sizeof dst->name, "--to-type");
    if (file && o->numpy_order == CLI_ORDER_C) {
        for (unsigned i = 0; i < s->rank; i++)
            c_order[i] = i;
        order = c_order;
    }
    tl_strides_for_order(s->rank, s->sizes, order, 0, dst->d.strides, NULL);
    dst->d.strides_src = TL_STRIDES_LAYOUT;
    if (file && o->numpy_order == CLI_ORDER_NPY) {
        bool reversed = true;
        for (unsigned i = 0; i < s->rank; i++)
            reversed &= order[i] == s->rank - 1 - i;
        dst->fortran = reversed;
    }
}

int cli_destination(const char *cmd, const struct cli_dest *o, const struct cli_desc *src,
                    struct cli_desc *dst)
{
    struct tl_error err = { 0 };
    char q[64];
    const struct tl_desc *s = &src->d;
    if (o->to_desc)
        return given_dest(cmd, o, s, dst);
    memset(dst, 0, sizeof *dst);
    dst->d = *s;
    if (o->to_type)
        dst->d.dtype = *o->to_type;
    dst->d.byte_offset = dst->d.file_offset = 0;
    dst->d.total_given = false;
    dst->d.alignment = 0;
    if (o->to) {
        unsigned order[TL_MAX_RANK];
        snprintf(dst->name, sizeof dst->name, "--to");
        if (tl_layout_parse(s->rank, o->to, order, &err)) {
            cli_usage_error(cmd, "--to: %s", err.msg);
            return CLI_USAGE;
        }
        tl_strides_for_order(s->rank, s->sizes, order, 0, dst->d.strides, NULL);
        dst->d.strides_src = TL_STRIDES_LAYOUT;
    } else if (!o->to_strides) {
        kept_order(o, src, dst);
    } else {
        snprintf(dst->name, sizeof dst->name, "--to-strides");
        int n = cli_parse_u64_list(o->to_strides, dst->d.strides, TL_MAX_RANK);
        if (n != (int)s->rank) {
            cli_usage_error(cmd, "--to-strides: '%s' must be %u comma-separated integers",
                            tl_quote(o->to_strides, q, sizeof q), s->rank);
            return CLI_USAGE;
        }
        dst->d.strides_src = TL_STRIDES_GIVEN;
    }
    if (o->to_byte_offset && !cli_parse_bytes(o->to_byte_offset, &dst->d.byte_offset)) {
        cli_usage_error(cmd, "--to-byte-offset: '%s' is not a number of bytes",
                        tl_quote(o->to_byte_offset, q, sizeof q));
        return CLI_USAGE;
    }
    if (tl_desc_validate(&dst->d, &err)) {
        cli_error("%s: %s", dst->name, err.msg);
        return CLI_INVALID;
    }
    tl_desc_classify(&dst->d, &dst->info);
    return CLI_OK;
}

