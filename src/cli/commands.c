/*
 * commands.c - the command table, the top-level --help, --version and
 * `help CMD`, and cli_main(), which runs one command line and returns its
 * exit status (main.c's main() is its only caller in the tool; the tests'
 * batch driver calls it once per line).
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

struct command {
    const char *name;
    int (*fn)(int argc, char **argv);
    const char *summary;
};

static const struct command commands[] = {
    { "inspect", cmd_inspect, "everything about a tensor description (and a data file)" },
    { "size",    cmd_size,    "the minimum implied buffer size in bytes" },
    { "offset",  cmd_offset,  "element and byte offsets of indices, or the owners of a byte" },
    { "strides", cmd_strides, "strides for a layout (DirectML's CalculateStrides)" },
    { "dump",    cmd_dump,    "the values of a tensor, logically or in buffer order" },
    { "convert", cmd_convert, "rewrite a tensor's data in another layout" },
    { "list",    cmd_list,    "the tensors of a @FORMATS_OR@ file, a shard index or a buffer map" },
    { "compare", cmd_compare, "whether two tensors hold the same values, whatever their layouts" },
    { "draw",    cmd_draw,    "a picture of a layout: logical and physical views, text or SVG" },
    { "calibrate", cmd_calibrate, "measure this machine for the copy core, and cache it" },
};

#define NCOMMANDS (sizeof commands / sizeof commands[0])

static void usage(FILE *f)
{
    char text[512], list[256];
    fprintf(f,
        "Usage: tensorlayout COMMAND [OPTIONS] ARGS...\n"
        "       tensorlayout --help | --version | --formats | help COMMAND\n"
        "\n"
        "Inspects and converts tensors stored in flat buffers, described the way\n"
        "DirectML describes them: a data type, sizes and strides (JSON).\n"
        "\n"
        "Commands:\n");
    for (size_t i = 0; i < NCOMMANDS; i++)
        fprintf(f, "  %-9s %s\n", commands[i].name,
                cli_formats_text(commands[i].summary, text, sizeof text));
    fprintf(f,
        "\n"
        "Every command takes --help; most take --json.  DESC is a JSON file, '-'\n"
        "for standard input, or inline JSON starting with '{'; or, in place of\n"
        "DESC DATA, one tensor file (%s, a shard index) as\n"
        "FILE:NAME (FILE alone when it holds one tensor).  Or DESC as options:\n"
        "--type T --sizes LIST [--strides LIST | --layout L] [--byte-offset N],\n"
        "then DATA (tensorlayout dump --type float16 --sizes 2,3 x.bin).\n"
        "NCHW to NHWC: tensorlayout convert nchw.json nchw.bin --to NHWC -o nhwc.bin\n"
        "Exit status: 0 success, 1 the answer is no (problems found, tensors differ),\n"
        "2 usage error, 3 input/output error, 4 invalid input.  Notes on standard\n"
        "error ('tensorlayout: note: ...') are silenced by TENSORLAYOUT_NOTES=off.\n"
        "See man tensorlayout.\n",
        tl_format_list(list, sizeof list, ", "));
}

/* The format table, one row a format: what the tool reads and writes. */
static void formats(void)
{
    printf("%-12s %-5s %-6s %-18s %s\n", "format", "reads", "writes", "endings", "what");
    for (size_t i = 0; tl_format_at(i); i++) {
        const struct tl_format_entry *e = tl_format_at(i);
        bool file = e->id != TL_FMT_JSON && e->id != TL_FMT_RAW;   /* a tensor file */
        printf("%-12s %-5s %-6s %-18s %s%s\n", e->name, e->read || !file ? "yes" : "no",
               e->writes ? "yes" : "no", *e->endings ? e->endings : "-", e->title,
               e->read || !file ? "" : ": recognized, not read yet");
    }
}

static const struct command *find(const char *name)
{
    for (size_t i = 0; i < NCOMMANDS; i++) {
        if (strcmp(commands[i].name, name) == 0)
            return &commands[i];
    }
    return NULL;
}

int cli_main(int argc, char **argv)
{
    if (argc < 2) {
        cli_error("missing command (see 'tensorlayout --help')");
        return CLI_USAGE;
    }
    const char *name = argv[1];
    if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0) {
        usage(stdout);
        return cli_finish_output(CLI_OK);
    }
    cli_simd_select();
    cli_calib_select();
    if (strcmp(name, "--version") == 0) {
        printf("tensorlayout %s\nsimd: %s (supported:", TL_VERSION, tl_isa_name(tl_isa_active()));
        for (int i = 0; i < TL_ISA_COUNT; i++) {
            if (tl_isa_supported((enum tl_isa)i))
                printf(" %s", tl_isa_name((enum tl_isa)i));
        }
        printf(")\n");
        return cli_finish_output(CLI_OK);
    }
    if (strcmp(name, "--formats") == 0) {
        if (argc > 2) {
            cli_error("--formats: takes no argument");
            return CLI_USAGE;
        }
        formats();
        return cli_finish_output(CLI_OK);
    }
    if (strcmp(name, "help") == 0) {
        if (argc == 2) {
            usage(stdout);
            return cli_finish_output(CLI_OK);
        }
        const struct command *c = find(argv[2]);
        if (!c || argc > 3) {
            char q[64];
            if (c)
                cli_error("help: takes one command name");
            else
                cli_error("help: '%s' is not a command (see 'tensorlayout "
                        "--help')", tl_quote(argv[2], q, sizeof q));
            return CLI_USAGE;
        }
        char *args[] = { argv[2], "--help", NULL };
        return cli_finish_output(c->fn(2, args));
    }
    const struct command *c = find(name);
    if (!c) {
        char q[64];
        cli_error("'%s' is not a command (see 'tensorlayout --help')",
                tl_quote(name, q, sizeof q));
        return CLI_USAGE;
    }
    return cli_finish_output(c->fn(argc - 1, argv + 1));
}
