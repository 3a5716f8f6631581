/*
 * cmd_draw.c - `tensorlayout draw DESC [DATA]`: a picture of a layout, in
 * the terminal or as SVG (SPEC section 11); the pictures themselves are
 * src/draw's.
 */
#include <argtable2.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "../draw/draw.h"
#include "cli.h"

static const char about[] =
    "Draws a tensor's layout: the logical view (the two innermost axes longer\n"
    "than one as a grid of cells, one grid per index of the others, each cell\n"
    "the element's offset,\n"
    "or with --values and DATA its value) and the physical view (the buffer's\n"
    "slots in offset order, each its element's index, or its value with\n"
    "--values; padding, slots shared\n"
    "through broadcast and overlapping slots marked).  Colour tells the\n"
    "logical position (the channel of an NCHW-family tensor, else the grid's\n"
    "rows), the same in both views.  Large tensors are cut with an ellipsis\n"
    "(a padded one keeping a row of padding in view);\n"
    "--at centres the picture on an element.  With --to, --to-strides or\n"
    "--to-desc, the destination is drawn too: where each element goes.\n"
    "-o FILE.svg (or --format svg) writes the picture as an SVG file.  A GGUF\n"
    "tensor of a block type (FILE:NAME) is drawn as its decoded values, then\n"
    "its blocks: each block's bytes in the file, the elements it holds, and\n"
    "the fields of a block (in an SVG, a box a block and a bar of the fields).\n"
    "4-bit slots (UINT4, INT4, FLOAT4E2M1) are drawn by byte: rows of whole\n"
    "bytes, the low nibble first, '|' between two bytes.";

#define DEFAULT_WIDTH 80
#define MAX_WIDTH 1000
#define SVG_WIDTH 240        /* an SVG's columns: the picture's, not a terminal's */

/* The width the terminal has: COLUMNS, else the terminal's, else 80. */
static unsigned terminal_width(void)
{
    const char *c = getenv("COLUMNS");
    uint64_t v;
    if (c && cli_parse_u64(c, &v) && v >= 20)
        return v > MAX_WIDTH ? MAX_WIDTH : (unsigned)v;
    struct winsize ws;
    if (isatty(1) && ioctl(1, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 20)
        return ws.ws_col > MAX_WIDTH ? MAX_WIDTH : ws.ws_col;
    return DEFAULT_WIDTH;
}

/* --color WHEN: always, never, or auto (a terminal, and NO_COLOR unset or
 * empty). */
static int color_arg(const char *when, bool *color)
{
    char q[64];
    const char *no = getenv("NO_COLOR");
    if (!when || strcasecmp(when, "auto") == 0)
        *color = isatty(1) && !(no && *no);
    else if (strcasecmp(when, "always") == 0)
        *color = true;
    else if (strcasecmp(when, "never") == 0)
        *color = false;
    else {
        cli_usage_error("draw", "--color: '%s' is not auto, always or never",
                        tl_quote(when, q, sizeof q));
        return CLI_USAGE;
    }
    return CLI_OK;
}

/* --at INDEX: an index of the tensor. */
static int at_arg(const char *text, const struct cli_desc *d, const struct draw_side *s,
                  struct draw_opts *o)
{
    char q[64];
    int n = cli_parse_u64_list(text, o->at, TL_MAX_RANK);
    if (n != (int)d->d.rank) {
        cli_usage_error("draw", "--at: '%s' is not %u comma-separated integers (an index of "
                        "%s)", tl_quote(text, q, sizeof q), d->d.rank, d->name);
        return CLI_USAGE;
    }
    for (unsigned a = 0; a < d->d.rank; a++) {
        if (o->at[a] >= d->d.sizes[a]) {
            char name[24], label[48];
            draw_axis_name(s, a, name, sizeof name);
            if (strncmp(name, "axis ", 5) != 0)
                snprintf(label, sizeof label, "%s (axis %u)", name, a);
            else
                snprintf(label, sizeof label, "%s", name);
            cli_error("--at: index '%s' is out of range: %s has "
                    "%llu, 0..%llu", tl_quote(text, q, sizeof q), label,
                    (unsigned long long)d->d.sizes[a], (unsigned long long)(d->d.sizes[a] - 1));
            return CLI_INVALID;
        }
    }
    o->at_given = true;
    return CLI_OK;
}

struct options {
    const char *desc, *data, *axes, *out, *format, *color, *at;
    struct cli_dest dest;
    bool values;
};

/* Whether the picture is SVG (--format, else OUT's ending) and its colour
 * and width.  @return CLI_OK, or CLI_USAGE after the message. */
static int picture_kind(const struct options *opt, struct draw_opts *o, bool *svg)
{
    char q[64];
    *svg = false;
    if (opt->format) {
        if (strcasecmp(opt->format, "svg") == 0)
            *svg = true;
        else if (strcasecmp(opt->format, "text") != 0) {
            cli_usage_error("draw", "--format: '%s' is not text or svg",
                            tl_quote(opt->format, q, sizeof q));
            return CLI_USAGE;
        }
    } else if (opt->out) {
        size_t n = strlen(opt->out);
        *svg = n >= 4 && strcasecmp(opt->out + n - 4, ".svg") == 0;
    }
    /* a picture is not a terminal: its width does not follow COLUMNS (SPEC
     * 19: at 80 columns an SVG put 3 slots a row and left most rows out) */
    if (*svg)
        o->width = SVG_WIDTH;
    int rc = color_arg(opt->color, &o->color);
    if (rc || (opt->out && (rc = cli_out_not_dir("draw", opt->out))))
        return rc;
    if (*svg || (opt->out && strcmp(opt->out, "-") != 0))
        o->color = opt->color && strcasecmp(opt->color, "always") == 0 && !*svg;
    return CLI_OK;
}

/* The picture, to standard output or written whole into OUT (a temporary
 * file renamed into place).  @return a CLI_* status. */
static int put_picture(const struct options *opt, bool svg, const struct draw_side *s,
                       const struct draw_side *dp, const struct draw_opts *o)
{
    if (!opt->out || strcmp(opt->out, "-") == 0)
        return (svg ? draw_svg(stdout, s, dp, o) : draw_text(stdout, s, dp, o)) ? cli_oom()
                                                                                : CLI_OK;
    struct cli_out out;
    char *text = NULL;
    size_t len = 0;
    int rc;
    FILE *mem = open_memstream(&text, &len);
    int dr = !mem ? TL_E_NOMEM : svg ? draw_svg(mem, s, dp, o) : draw_text(mem, s, dp, o);
    if (mem)
        fclose(mem);
    if (dr || !text)
        rc = cli_oom();
    else if ((rc = cli_out_open(&out, opt->out, len)) == CLI_OK) {
        memcpy(out.bytes, text, len);
        rc = cli_out_commit(&out);
    }
    free(text);
    return rc;
}

/* The destination's name in the picture: the rule that made it. */
static void dest_name(const struct options *opt, const struct cli_desc *dst, bool converted,
                      char *buf, size_t n)
{
    if (opt->dest.to)
        snprintf(buf, n, "--to %s", opt->dest.to);
    else if (opt->dest.to_strides)
        snprintf(buf, n, "--to-strides %s", opt->dest.to_strides);
    else
        snprintf(buf, n, "%s", converted ? dst->name : "");
}

static int run(const struct options *opt)
{
    struct cli_desc src, dst;
    struct cli_data data;
    struct draw_opts o = { .width = terminal_width(), .values = opt->values };
    bool svg;
    int rc = picture_kind(opt, &o, &svg);
    if (rc || (rc = cli_load_input(opt->desc, opt->data, opt->axes, "draw", true, &src, &data)))
        return rc;
    if (o.values && !data.bytes) {
        cli_usage_error("draw", "--values needs DATA (the values are in the data file)");
        rc = CLI_USAGE;
    } else if (o.values) {
        rc = cli_require_elements(&src, &data);
    }
    /* a model file's tensor: its axes by position, or by --axes letters;
     * --to NHWC names them N C H W, as it takes them */
    char names[TL_MAX_RANK];
    bool to_letters = opt->dest.to && opt->dest.to[0] >= 'A';
    const char *axes = cli_axis_names(&src, opt->axes, names) == CLI_AXES_DML || to_letters
                       ? NULL : names;
    struct draw_side s = { src.name, &src.d, &src.info, data.bytes, axes, NULL };
    struct draw_blocks blocks;
    if (src.blocks) {         /* a GGUF tensor of blocks (SPEC 16): its stored view too */
        const struct tl_ggml_type *gt = tl_ggml_type(src.ggml_type);
        blocks = (struct draw_blocks){ gt->name, gt->block, gt->bytes,
                                       src.blocks_bytes / gt->bytes, src.blocks_at, gt->parts };
        s.blocks = &blocks;
    }
    if (!rc && opt->at)
        rc = at_arg(opt->at, &src, &s, &o);
    bool converted = opt->dest.to || opt->dest.to_strides || opt->dest.to_desc;
    if (!rc && converted)
        rc = cli_destination("draw", &opt->dest, &src, &dst);
    if (!rc) {
        char dname[300];
        dest_name(opt, &dst, converted, dname, sizeof dname);
        struct draw_side t = { dname, &dst.d, &dst.info, NULL, axes, NULL };
        rc = put_picture(opt, svg, &s, converted ? &t : NULL, &o);
    }
    cli_close_data(&data);
    cli_desc_release(&src);
    return rc;
}

int cmd_draw(int argc, char **argv)
{
    static char gloss[512];
    struct arg_file *desc = arg_file1(NULL, NULL, "DESC", cli_formats_text("tensor description: a JSON file, '-' or inline JSON, or a tensor file (@FORMATS@, a shard index; FILE[:NAME])", gloss, sizeof gloss));
    struct arg_file *data = arg_file0(NULL, NULL, "DATA", "its data file: with --values, the cells show values");
    struct arg_lit *values = arg_lit0(NULL, "values", "cells show the elements' values (needs DATA, or a tensor file)");
    struct arg_str *color = arg_str0(NULL, "color", "WHEN", "auto (a terminal, and NO_COLOR unset), always or never");
    struct arg_str *at = arg_str0(NULL, "at", "INDEX", "centre the picture on this element (1,0,7,7)");
    struct arg_file *out = arg_file0("o", "output", "FILE", "write the picture to FILE (FILE.svg: as SVG)");
    struct arg_str *format = arg_str0(NULL, "format", "F", "text or svg (default: svg for an OUT named .svg, else text)");
    struct arg_str *to = arg_str0(NULL, "to", "L", "also draw the destination in this layout (NHWC, 0,2,3,1)");
    struct arg_str *to_strides = arg_str0(NULL, "to-strides", "LIST", "also draw the destination with these strides");
    struct arg_file *to_desc = arg_file0(NULL, "to-desc", "DESC2", "also draw this destination description");
    struct arg_str *axes = arg_str0(NULL, "axes", "L", "a tensor file's dimensions as logical axes, outermost first (NHWC, 0,2,3,1)");
    struct arg_lit *help = arg_lit0("h", "help", "print this help and exit");
    struct cli_desc_opts dopt;
    cli_desc_opts_init(&dopt, "draw", 1);
    struct arg_end *end = arg_end(5);
    void *table[] = { desc, data, dopt.type, dopt.sizes, dopt.strides, dopt.layout,
                      dopt.byte_offset, dopt.total_size, dopt.file_offset, dopt.alignment, values, color, at, out, format, to, to_strides, to_desc,
                      axes, help, end };
    int rc = CLI_IO;
    if (arg_nullcheck(table) == 0)
        rc = cli_parse_args_desc(argc, argv, table, about, &dopt);
    if (rc == CLI_CONTINUE) {
        if (to->count + to_strides->count + to_desc->count > 1) {
            cli_usage_error("draw", "give only one of --to, --to-strides, --to-desc");
            rc = CLI_USAGE;
        } else {
            struct options o = {
                .desc = desc->filename[0], .data = data->count ? data->filename[0] : NULL,
                .axes = axes->count ? axes->sval[0] : NULL,
                .out = out->count ? out->filename[0] : NULL,
                .format = format->count ? format->sval[0] : NULL,
                .color = color->count ? color->sval[0] : NULL,
                .at = at->count ? at->sval[0] : NULL,
                .values = values->count > 0,
                .dest = {
                    .to = to->count ? to->sval[0] : NULL,
                    .to_strides = to_strides->count ? to_strides->sval[0] : NULL,
                    .to_desc = to_desc->count ? to_desc->filename[0] : NULL,
                },
            };
            rc = run(&o);
        }
    }
    arg_freetable(table, sizeof table / sizeof table[0]);
    return rc;
}
