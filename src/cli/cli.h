/*
 * cli.h - what the command files share: exit statuses, loading of
 * descriptions and data, messages and output helpers.
 *
 * The command line knows nothing of layout math: it asks the core
 * (core/tl.h) for every stride, span, offset and verdict, and only reads
 * files, parses options, prints and picks an exit status.
 *
 * Adding a command:
 *   1. Write src/cli/cmd_NAME.c with `int cmd_NAME(int argc, char **argv)`.
 *      argv[0] is the command name, as arg_parse() expects.  Build its
 *      argtable, call cli_parse_args() (which handles --help and usage
 *      errors), do the work, and return a CLI_* status; never exit().
 *   2. Declare it below and add a row to commands[] in commands.c.
 *   3. Document it in man/tensorlayout.1 (SYNOPSIS, COMMANDS, EXAMPLES)
 *      and add tests under tests/cli/NAME/.
 */
#ifndef TL_CLI_H
#define TL_CLI_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>
#include <stdio.h>

#include "../core/tl.h"
#include "../core/tl_io.h"

/* The one mapping from outcome to exit status (SPEC section 3). */
enum cli_status {
    CLI_OK = 0,       /* success */
    CLI_NO = 1,       /* the check ran and the answer is no: problems found, */
                      /* tensors differ, a bounded search ended incomplete */
    CLI_USAGE = 2,    /* unknown command or option, missing argument */
    CLI_IO = 3,       /* cannot open, read or write a file */
    CLI_INVALID = 4   /* invalid input: a description, a tensor file, data too */
                      /* short, a value that does not fit; nothing on stdout */
};

#define CLI_CONTINUE (-1)

/* Runs one command line (argv[0] the program's name, argv[1] the command)
 * and returns its exit status (commands.c). */
int cli_main(int argc, char **argv);

int cmd_inspect(int argc, char **argv);
int cmd_size(int argc, char **argv);
int cmd_offset(int argc, char **argv);
int cmd_strides(int argc, char **argv);
int cmd_dump(int argc, char **argv);
int cmd_convert(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_draw(int argc, char **argv);
int cmd_calibrate(int argc, char **argv);

/* convert MODEL.onnx -o OUT.onnx --external-data[=data_file] | --inline
 * (onnx_rewrite.c, SPEC 20): the model's weights of threshold bytes or
 * more moved into one data file beside OUT, or all brought in.  @return a
 * CLI_* status after any message. */
int cli_onnx_rewrite(const char *model, const char *out, bool external, const char *data_file,
                     uint64_t threshold, bool quiet);

/* ---- arguments (args.c) -------------------------------------------------- */

/* Parses argv against an argtable whose last two entries are a --help
 * arg_lit and an arg_end.  Prints the help on stdout (returns CLI_OK) when
 * --help was given; prints the first usage error on stderr (returns
 * CLI_USAGE) when parsing failed; otherwise returns CLI_CONTINUE.
 * `about` is the paragraph shown under the usage line. */
int cli_parse_args(int argc, char **argv, void **table, const char *about);

/* The same, adding excess (when not NULL) to the message of an argument
 * too many: what the command's arguments are now. */
int cli_parse_args_hint(int argc, char **argv, void **table, const char *about,
                        const char *excess);

/* Prints "tensorlayout: CMD: MESSAGE" on stderr (a usage error). */
void cli_usage_error(const char *cmd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Parses an unsigned decimal integer; false when malformed or above 2^64-1. */
bool cli_parse_u64(const char *s, uint64_t *out);

/* A number of bytes or a byte position: decimal, or hexadecimal after 0x
 * (as hex dumps show them). */
bool cli_parse_bytes(const char *s, uint64_t *out);
/* A size: a decimal count of bytes with an optional unit, B, K or KB
 * (1000), M, MB, G, GB, T, TB, or KiB, MiB, GiB, TiB (1024^n), any case,
 * as Hugging Face's max_shard_size ("5GB") reads.  @return false when s is
 * not one. */
bool cli_parse_size(const char *s, uint64_t *out);

/* A model's folder named where a file is (SPEC 19: list DIR, compare
 * DIR DIR): its model.safetensors.index.json, else its one *.index.json,
 * else its one tensor file, written into found (room for n), and *out
 * pointed at it; any other path: *out is path.  @return CLI_OK, or
 * CLI_INVALID after a message (a folder of none, or of several). */
int cli_model_path(const char *path, char *found, size_t n, const char **out);

/* The --search-steps option of a command that looks for an offset's owners:
 * its value in *steps (TL_FIND_WORK when not given); CLI_OK, or CLI_USAGE
 * after the message when it is not a positive count. */
struct arg_str;
int cli_search_steps(const char *cmd, const struct arg_str *a, uint64_t *steps);

/* Parses "1,0,1" into at most max numbers; returns how many, -2 when one
 * is negative, or -1. */
int cli_parse_u64_list(const char *s, uint64_t *out, int max);

/* TENSORLAYOUT_SIMD (see ENVIRONMENT): cli_simd_select() sets the kernels'
 * ceiling from it, once, before any command runs (a value that names no
 * ISA is noted and ignored); cli_simd_note() notes, for a command that
 * copies, that the ISA it names is not supported here. */
void cli_simd_select(void);
void cli_simd_note(void);

/* Chooses the calibration every copy uses (cmd_calibrate.c): the file
 * TENSORLAYOUT_CALIBRATION names, the built-in rules when it is 'off', or
 * this machine's cached one; a corrupt file is named in a warning. */
void cli_calib_select(void);

/* A data type named on the command line by option opt (numpy's and
 * safetensors' names too: tl_dtype_from_any).  Prints the usage error and
 * returns CLI_USAGE when it names none. */
int cli_type_arg(const char *cmd, const char *opt, const char *name, enum tl_dtype *dt);

/* ---- descriptions from options (descopts.c; SPEC section 13) ------------ */

struct cli_desc;

/* --type T --sizes LIST [--strides LIST | --layout L] [--byte-offset N]
 * in place of DESC; with sides 2 (compare), each given once (both sides)
 * or twice (A's, then B's). */
struct cli_desc_opts {
    const char *cmd;
    int sides;
    struct arg_str *type, *sizes, *strides, *layout, *byte_offset;
    struct arg_str *total_size, *file_offset, *alignment;
};

/* Makes the five argtable entries (arg_nullcheck the table for them). */
void cli_desc_opts_init(struct cli_desc_opts *o, const char *cmd, int sides);
bool cli_desc_opts_given(const struct cli_desc_opts *o);

/* cli_parse_args() for a command with one DESC: when the options were
 * given, DESC is taken to be cli_desc_opts_arg(o, 0), so that the first
 * argument is DATA. */
int cli_parse_args_desc(int argc, char **argv, void **table, const char *about,
                        struct cli_desc_opts *o);

/* The argument standing for the description the options give side 0 (A)
 * or 1 (B), which cli_load_desc() takes as any DESC; whether arg is one. */
const char *cli_desc_opts_arg(const struct cli_desc_opts *o, int side);
bool cli_desc_opts_is(const char *arg);

/* Builds the description arg stands for (format TL_FMT_JSON: it needs
 * DATA).  Prints the message naming the option and returns CLI_USAGE or
 * CLI_INVALID when it cannot; CLI_OK otherwise. */
int cli_desc_from_opts(const char *arg, struct cli_desc *out);

/* ---- inputs (load.c) ----------------------------------------------------- */

/* A data file, memory-mapped when it is a regular file, read whole when it
 * is a pipe or standard input ('-'). */
struct cli_data {
    char name[256];
    const unsigned char *bytes;
    uint64_t size;
    void *map;                /* non-NULL when mapped */
    unsigned char *heap;      /* non-NULL when read */
    bool at_least;            /* a stream read only so far: it holds more */
    bool has_fd;              /* a regular file, mapped: fd stays open, so that */
    int fd;                   /* its bytes can be copied file to file (write.c) */
};

/* A description: a JSON file, '-' (standard input), inline JSON, or one
 * tensor of a tensor file (FILE or FILE:NAME; SPEC section 6). */
struct cli_desc {
    char name[256];           /* for messages: the path, "<stdin>", "<inline>", "FILE:NAME" */
    struct tl_desc d;
    struct tl_info info;
    enum tl_format format;    /* TL_FMT_JSON, or the tensor file's format */
    bool shares_file;         /* a tensor of a file that names its tensors: others may follow */
    uint64_t map_end;         /* a tensor of a buffer map: where its map's last buffer ends */
    char tensor[256];         /* its name in its file or map, or "" */
    struct cli_data file;     /* a tensor file, mapped: it holds the data too */
    bool scalar;              /* a 0-d array of a tensor file: written back with shape () or [] */
    bool fortran;             /* a destination packed in Fortran's order that a .npy writes
                               * as such (fortran_order True, the logical shape) */
    bool options;             /* given by --type, --sizes...: DATA holds it (descopts.c) */
    /* a GGUF tensor of a block type (SPEC 16): d describes its decoded
     * FLOAT32 values; its blocks of ggml type ggml_type lie at
     * blocks_at.. blocks_at + blocks_bytes of the file */
    bool blocks;
    uint32_t ggml_type;
    uint64_t blocks_at, blocks_bytes;
    /* loaded streamed (cli_load_desc_streamed): an encoded tensor whose
     * decoded image (d's bytes) is read through this reader, file being
     * the file as it is; NULL: d's bytes are file's */
    struct tl_values *values;
};

/* The names of c's axes, one character each, into names (SPEC 15, 19):
 * DirectML's letters (N C H W; '-' for a rank it names none) for a
 * DirectML description, or a file's tensor given --axes by indices; for a
 * tensor of a model file, the letters given with --axes (OIHW, upper
 * case), else its positions (0 1 2 ...).  @return CLI_AXES_DML,
 * CLI_AXES_GIVEN or CLI_AXES_POSITIONS. */
enum { CLI_AXES_DML, CLI_AXES_GIVEN, CLI_AXES_POSITIONS };
int cli_axis_names(const struct cli_desc *c, const char *axes, char names[TL_MAX_RANK]);

/* Reads and parses DESC; axes (NULL: none) is --axes, which only a tensor
 * file takes.  On failure prints the message and returns CLI_INVALID,
 * CLI_IO or CLI_USAGE (standard input named twice, --axes with JSON);
 * CLI_OK otherwise, and then cli_desc_release() frees it. */
int cli_load_desc(const char *arg, const char *axes, struct cli_desc *out);
/* The same, with the axes given by the option axes_opt (for messages). */
/* cli_load_desc() of a file already opened as `file` (its format sniffed
 * as `format`), taken over: a file is opened and sniffed once. */
int cli_load_desc_file(const char *arg, struct cli_data *file, enum tl_format format,
                       const char *axes, struct cli_desc *out);
int cli_load_desc_as(const char *arg, const char *axes, const char *axes_opt,
                     struct cli_desc *out);
/* The same, an encoded tensor of blocks (GGUF) not decoded whole: out->values
 * reads its decoded image a window at a time (SPEC 22: dump and compare
 * stream as convert does). */
int cli_load_desc_streamed(const char *arg, const char *axes, const char *axes_opt,
                           struct cli_desc *out);
void cli_desc_release(struct cli_desc *desc);
/* FILE:NAME's scaled weight (SPEC 18, 23: convert --dequantize of one
 * tensor), decoded whole into FLOAT32: NAME is W (or an FP8 weight's own
 * row); a tensor that is no scaled weight, or a sharded model's index, is
 * refused with a message.  @return a CLI_* status. */
int cli_load_dequantized(const char *arg, struct cli_desc *out);

/* FILE:P.weight naming a group-quantized weight (SPEC 21): the file
 * mapped (file), parsed (tf), its pairs (*pairs, to free) and the one
 * named (*p).  @return CLI_OK (close and free them after), -1 when arg
 * names no such weight (nothing held), or a status after a message (a
 * weight whose parts are not sound). */
int cli_grouped_named(const char *arg, struct cli_data *file, struct tl_file *tf,
                      struct tl_scaled **pairs, const struct tl_scaled **p);

/* Whether arg names a tensor file (FILE or FILE:NAME: a regular file
 * whose first bytes are a .npy, safetensors or .npz file's), without a
 * message either way; a stream is never one here (it is read once). */
bool cli_is_tensor_file(const char *arg);
/* Whether arg names a tensor of a tensor file (FILE:NAME, or FILE of one)
 * that has a 0 in its shape and a type the table has: then its shape
 * (numpy prints such a tensor as []). */
bool cli_empty_tensor(const char *arg, unsigned *ndim, uint64_t *shape);

/* Whether arg (a file, or inline JSON; not FILE:NAME, not '-') is a whole
 * buffer map of several tensors: then *tf is its table (free it).  Quiet:
 * anything else is left to cli_load_desc() to read, or to say what is
 * wrong. */
bool cli_map_whole(const char *arg, struct tl_file *tf);

/* Splits a DESC argument into the file and the tensor name (SPEC section
 * 6) into path (n bytes): the whole argument when it names an existing
 * file, otherwise the part before the last ':' whose left part does.
 * *name is NULL when there is none (input.c). */
void cli_split_name(const char *arg, char *path, size_t n, const char **name);

/* The format arg's file (FILE[:NAME]) has by its first bytes; TL_FMT_JSON
 * for anything else (inline JSON, '-', options, a file that cannot be
 * read: its reader says why). */
enum tl_format cli_sniff_arg(const char *arg);

/* Notes (SPEC 19: every note can be silenced): cli_note() prints
 * "tensorlayout: note: " and the formatted text on standard error, unless
 * TENSORLAYOUT_NOTES=off; cli_notes_on() says whether notes are printed
 * (args.c). */
void cli_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
bool cli_notes_on(void);

/* Opens DATA.  On failure prints the message and returns CLI_IO
 * (CLI_USAGE when '-' names standard input a second time). */
int cli_open_data(const char *path, struct cli_data *out);
void cli_close_data(struct cli_data *data);

/* The same, but a stream (a pipe, a device, '-') is read only as far as
 * `need` bytes and one more, to tell that it is longer (then at_least). */
int cli_open_data_upto(const char *path, uint64_t need, struct cli_data *out);

/* The one command-line path to an encoded tensor's bytes (SPEC 15): row t
 * of the file `in`, decoded by the library (tl_input_inflate) into the
 * scratch room cli_input() gives: memory does not grow with it (an .npz
 * member deflated: the .npy file it holds).  On failure prints the message and returns CLI_INVALID (a
 * corrupt tensor) or CLI_IO. */
int cli_decode_tensor(const struct cli_data *zip, const struct tl_file_tensor *t,
                       struct cli_data *out);

/* Parses a whole file (or stream) holding a JSON description or buffer
 * map into a tensor table (tl_desc_table_parse_json; free it); says so
 * when it is empty, UTF-16, binary (with its first bytes) or other text
 * instead, asking whether DESC and DATA were swapped when as_desc.
 * @return CLI_OK, or CLI_INVALID after the message. */
int cli_desc_from_file(const struct cli_data *file, struct tl_file *tf, bool as_desc);

/* Opens a file whose first bytes say what it is (*format), as DESC is
 * read: a stream that holds a JSON description is read to at most 1 MiB
 * and a byte.  Messages and statuses as cli_open_data(). */
int cli_open_file(const char *path, struct cli_data *out, enum tl_format *format);

/* The steps of cli_load_input(), for a command that does more between
 * them: DESC and DATA both '-' is a usage error; a tensor file takes no
 * DATA and a JSON description needs one (unless optional): each prints the
 * message and returns CLI_USAGE, else CLI_OK.  cli_open_input_data() moves
 * a tensor file's mapping from desc into data, or opens DATA (a stream as
 * far as need bytes and one more); a JSON description without DATA leaves
 * data->bytes NULL.  Messages and statuses as cli_open_data(). */
int cli_check_stdin(const char *cmd, const char *desc_arg, const char *data_arg);
int cli_check_data_arg(const char *cmd, const struct cli_desc *desc, const char *data_arg,
                       bool optional);
int cli_open_input_data(struct cli_desc *desc, const char *data_arg, uint64_t need,
                        struct cli_data *data);

/* The input of a command that reads values: `DESC DATA`, or one tensor
 * file as DESC, which holds its own data (then data_arg must be NULL).
 * With optional, a JSON DESC may come without DATA: data->bytes is then
 * NULL.  On success data is open (close it) and desc loaded (release it);
 * on failure the message is printed and nothing is left to free. */
int cli_load_input(const char *desc_arg, const char *data_arg, const char *axes,
                   const char *cmd, bool optional, struct cli_desc *desc,
                   struct cli_data *data);
/* The same, an encoded tensor of blocks read through desc->values. */
int cli_load_input_streamed(const char *desc_arg, const char *data_arg, const char *axes,
                            const char *cmd, bool optional, struct cli_desc *desc,
                            struct cli_data *data);

/* Bytes of a data file beyond its tensor's buffer (fileOffset + byteOffset
 * + the larger of the elements' bytes and the total, declared or implied:
 * the bytes the padding report covers; 0 for a tensor of a file that names
 * its tensors, where others follow), and a one-line note on
 * standard error when there are some. */
uint64_t cli_trailing_bytes(const struct cli_desc *desc, const struct cli_data *data);
void cli_note_trailing(const struct cli_desc *desc, const struct cli_data *data);

/* For a description whose non-broadcast elements overlap (legal, but
 * usually a typo in strides): two indices that share an offset and, when a
 * stride looks like a forgotten factor, the strides probably meant, as
 * text into buf (@return false when it does not overlap); and the same as
 * a one-line note on standard error. */
bool cli_overlap_note(const struct cli_desc *desc, char *buf, size_t cap);
/* For given strides that look like byte counts (each a multiple of the
 * element size, the quotients a packed layout, the strides themselves
 * not), the note that says so (@return false otherwise). */
bool cli_byte_strides_note(const struct cli_desc *desc, char *buf, size_t cap);
/* The notes on a description, when they apply, each one line on standard
 * error: sizes that look given in memory order (a channels-last layout
 * whose C is large and W tiny), strides that look like byte counts, and
 * the overlap note. */
void cli_note_overlap(const struct cli_desc *desc);

/* Checks that data holds the elements' bytes of desc; prints the message
 * naming both sizes and returns CLI_INVALID when it does not. */
int cli_require_elements(const struct cli_desc *desc, const struct cli_data *data);

/* Whether the tensors of a parsed file (or buffer map) can be read: none
 * overlap, and in a tensor file no bytes lie between them unowned.  Prints
 * the message naming file and returns CLI_INVALID when they cannot. */
int cli_file_sound(struct tl_file *tf, const char *file);

/* The path (into path, n bytes) of the file holding the bytes of a weight
 * of file that lie in another (t->elsewhere: ONNX's external data),
 * checked: inside file's folder once symlinks are followed, a regular
 * file, long enough.  @return CLI_OK, or a status after the message.
 * cli_file_sound() checks every such weight of a file. */
int cli_elsewhere_path(const char *file, const struct tl_file_tensor *t, char *path, size_t n);
int cli_elsewhere_sound(struct tl_file *tf, const char *file);
/* The file holding t's bytes, opened into out (close it). */
int cli_elsewhere_open_one(const char *file, const struct tl_file_tensor *t,
                           struct cli_data *out);

/* The files that hold the bytes of items it[0 .. n) of file lying in
 * another (ONNX's external data), opened once each: every such item's
 * `in` is its file's.  @return CLI_OK (close with cli_elsewhere_close),
 * or a status after the message. */
struct cli_elsewhere {
    size_t n;
    struct cli_data *data;
    struct tl_input *in;
    const char **name;
};
int cli_elsewhere_open(const char *file, struct tl_whole_item *it, size_t n,
                       struct cli_elsewhere *e);
void cli_elsewhere_close(struct cli_elsewhere *e);

/* data as the library reads it (tl_io.h): its bytes, its descriptor,
 * and scratch room for what it inflates (an unlinked temporary file in
 * $TMPDIR, else /tmp, mapped: memory does not grow with a tensor); name
 * (NULL: data's) names it in messages. */
struct tl_input cli_input(const struct cli_data *data, const char *name);

/* ---- a destination description (dest.c) --------------------------------- */

/* What the options of a conversion say of its destination (NULL: not
 * given); one of to, to_strides, to_desc, or none (then the source's
 * memory order, packed). */
struct cli_dest {
    const char *to, *to_strides, *to_desc, *to_byte_offset;
    const enum tl_dtype *to_type;
    /* what OUT can say of a tensor file's logical shape (SPEC 19): with no
     * option that chooses a memory order, a .npy keeps a Fortran-order
     * source's order (its header says so), a file with no order flag
     * (safetensors) gets C order, so that numpy sees the same shape */
    enum { CLI_ORDER_KEEP, CLI_ORDER_NPY, CLI_ORDER_C } numpy_order;
};

/* The destination of src that o asks for, classified: the source's sizes,
 * in --to's order or --to-strides' strides, or --to-desc's description
 * (which must agree with --to-type).  Messages name cmd and the option;
 * @return CLI_OK, CLI_USAGE, CLI_INVALID or CLI_IO. */
int cli_destination(const char *cmd, const struct cli_dest *o, const struct cli_desc *src,
                    struct cli_desc *dst);

/* ---- whole-file compare (compare_all.c) --------------------------------- */

/* Whether compare A B is of two whole files: each a file of many tensors
 * (safetensors, .npz) or a sharded model's index, named whole, and not
 * both holding one tensor (those compare as tensors, as before). */
bool cli_compare_whole_wanted(const char *a, const char *b);

struct cli_whole;

/* Compares every tensor of the same name of A and B (SPEC 19), one line
 * each (--json: a record each), undecodable types byte for byte; names in
 * one only reported.  With rules (--to, --to-type, --select, --exclude;
 * NULL: none), B is compared against A converted by them (SPEC 23).  @return CLI_OK when all are equal, CLI_NO when any
 * differs or is missing, or an error status with its message printed. */
int cli_compare_whole(const char *a, const char *b, const struct tl_compare_opts *o,
                      const struct cli_whole *rules, bool json);

/* ---- whole-file conversion (convert_all.c) ------------------------------ */

#define CLI_MAX_GLOBS TL_WHOLE_MAX_GLOBS

struct cli_whole {
    const char *name;                   /* the file, for messages */
    const struct tl_format_entry *format;   /* OUT's: safetensors, npz or gguf */
    const char *out, *to_type;
    const char *const *to;              /* --to, one a rank (SPEC 19: --to OHWI --to OWI) */
    int nto;
    const char *const *select, *const *exclude;
    int nselect, nexclude;
    const char *const *only, *const *drop;     /* the tensors written (SPEC 23) */
    int nonly, ndrop;
    unsigned threads;
    bool quiet, json;
    bool part;                          /* one shard of a model: its rules are checked over all */
    bool dequantize;                    /* decode scaled weights (SPEC 18) */
    bool allow_expand;                  /* write views that spread a few bytes far */
    bool allow_requantize;              /* quantize tensors already of a block type */
    bool force;                         /* replace a model folder OUT that exists */
    /* a shard's view (shards_convert.c): for each row of the file, the
     * mapping its bytes lie in when not the input's (a scale another shard
     * holds), else NULL; NULL for a file converted alone */
    const uint8_t *const *row_file;
    /* set by cli_convert_whole for convert_all.c's planning: for each row
     * of the file converted, the scaled pair it decodes (or NULL), and the
     * file whose rows the pairs index */
    const struct tl_scaled *const *pair_of;
    const struct tl_file *paired;
    const char *shown;                  /* OUT as messages name it (a shard's final path), or NULL */
    const char *rules;                  /* a shard's: its rules' text, kept in its
                                           __metadata__ (CLI_RULES_KEY), or NULL */
};

/* The __metadata__ key of a sharded model's converted shard that holds
 * the rules it was converted with (cli_whole_rules' text): --index-only
 * checks that every shard agrees (SPEC 19). */
#define CLI_RULES_KEY "tensorlayout.rules"

/* The rules of w as one text, the same for the same rules however they
 * were spelled ("--to OHWI --to-type BFLOAT16 --select conv*"; "" for
 * none). */
void cli_whole_rules(const struct cli_whole *w, char *buf, size_t n);

/* Converts every tensor of the parsed file f (safetensors, .npz or a
 * buffer map), whose bytes are in, into OUT, a safetensors file or an
 * .npz (SPEC sections 9 and 10).  Messages are printed;
 * @return a CLI_* status. */
/* Whether w's --only and --drop leave the tensor name out (ctx: w). */
bool cli_whole_leaves_out(const void *ctx, const char *name);
int cli_convert_whole(const struct cli_whole *w, const struct tl_file *f,
                      const struct cli_data *in, uint64_t *tensor_bytes);

/* The core's plan of f's tensors under w's rules (tl_whole_plan, into
 * w->format), its failure said naming w->name.  @return a CLI_* status. */
int cli_whole_plan(const struct cli_whole *w, const struct tl_file *f, struct tl_whole_item *it,
                   const enum tl_dtype *to_type, struct tl_rule_use *u);

/* w's --to-type as a type (*has: given), a floating one, else a usage
 * error of command cmd.  @return CLI_OK or CLI_USAGE (said). */
int cli_whole_to_type(const struct cli_whole *w, const char *cmd, enum tl_dtype *to_type,
                      bool *has);

/* Checks the rules of w over the files[0 .. n) together (the shards of a
 * model): each must change some tensor of some file.  Messages are printed;
 * @return a CLI_* status. */
int cli_whole_check(const struct cli_whole *w, const struct tl_file *files, size_t n);

/* ---- sharded safetensors models (shards.c) ------------------------------- */

/* An index and its shards: each shard's file mapped and parsed. */
struct cli_shards {
    char name[256];                     /* the index, for messages */
    char dir[4096];                     /* where its shards are */
    struct cli_data index;
    struct tl_shard_index x;
    struct cli_data *data;              /* x.nshards of them */
    struct tl_file *files;
    char picked[4096 + 256];            /* cli_shards_pick's shard's path */
    bool converted;                     /* --index-only: dir holds the jobs' output */
    bool renamed;                       /* PyTorch shards, converted into safetensors ones */
    /* converted: whether the rules left the index's tensor name out (so
     * that its shard lacks it), or NULL */
    bool (*left_out)(const void *ctx, const char *name);
    const void *left_ctx;
};

/* The name shard k of s is converted under: tl_shard_safetensors_name's when the
 * model's shards are renamed (s->renamed), else its own. */
void cli_shard_written(const struct cli_shards *s, size_t k, char *out, size_t n);

/* Whether path is a shard index whose shards are PyTorch checkpoints (its
 * conversion into safetensors shards is then a format change). */
bool cli_index_of_pytorch(const char *path);

/* Opens the index at path; with all, also every shard (cli_shards_load).
 * Messages are printed; @return a CLI_* status (then nothing to close). */
int cli_shards_open(const char *path, bool all, struct cli_shards *s);
/* Opens and parses every shard from s->dir and checks them against the
 * index: each tensor it names in its shard, each shard's tensors named. */
int cli_shards_load(struct cli_shards *s);
void cli_shards_close(struct cli_shards *s);
/* Opens the shard holding tensor name (*shard, its path in s->picked) and
 * checks that it holds it. */
int cli_shards_pick(struct cli_shards *s, const char *name, size_t *shard);

/* Whole-model conversion of the index at index_path into the folder w->out:
 * every shard and a new index (into a temporary folder renamed into place),
 * or with shard only that shard (into w->out, for a job runner), or with
 * index_only the index of the shards already converted in w->out.  With
 * max_shard (not 0) the model is re-sharded: shards of at most max_shard
 * bytes of tensors (a larger tensor alone in one), or one file when all
 * fit, and the index rewritten (SPEC 19). */
int cli_convert_shards(const struct cli_whole *w, const char *index_path, const char *shard,
                       bool index_only, uint64_t max_shard);

/* One tensor file f (the file at path, mapped as in) written into the
 * folder w->out as a model of shards of at most max_shard bytes of
 * tensors each, and their index (one model.safetensors when all fit),
 * converted by w's rules on the way (SPEC 23). */
int cli_reshard_file(const struct cli_whole *w, const struct tl_file *f, const struct cli_data *in,
                     const char *path, uint64_t max_shard);

/* ---- atomic outputs (atomic.c) ----------------------------------------- */

struct cli_out {
    const char *path;         /* the file written: OUT, or a link's target */
    char target[4096];
    char name[256];           /* for messages */
    char tmp[4096 + 32];      /* the temporary file beside path */
    int fd;
    struct cli_tmp *reg;      /* the temporary file's place in the registry */
    bool direct;              /* not a regular file: written at commit */
    uint64_t size;
    unsigned char *bytes;     /* size bytes, zeroed, to fill */
    void *map;
    unsigned char *heap;
};

/* A description larger than this (1 MiB) is refused. */
#define CLI_DESC_MAX_BYTES (1u << 20)

/* Opens path ('-': standard input, once) into out as `role` ("the data", "a
 * file"): a regular file is mapped whole; a stream is read whole, up to
 * limit bytes when limit is not 0, or CLI_DESC_MAX_BYTES + 1 when its first
 * bytes are JSON and format is asked for.  *format is what the first bytes
 * say (when format is not NULL).  @return CLI_OK, or an exit status with
 * the message printed. */
int cli_open_input(const char *path, const char *role, struct cli_data *out,
                   enum tl_format *format, uint64_t limit);

/* The group-quantized weights' config (SPEC 21) for tf, a file read from
 * path: when its table has a packed weight (a name ending in qweight or
 * weight_packed), --quant's scheme (cli_quant_scheme, set by the commands
 * that take it) or else config.json's quantization_config from path's
 * folder, read once a folder, set as tf->quant.  @return CLI_OK, or
 * CLI_INVALID after a message naming config.json and its key. */
extern const char *cli_quant_scheme;
int cli_quant_for(const char *path, struct tl_file *tf);

/* --quant SCHEME of command cmd: sets cli_quant_scheme.  @return
 * CLI_CONTINUE, or CLI_USAGE after the message naming the schemes. */
int cli_quant_option(const char *cmd, const char *scheme);

/* text with the format table's lists in place of its marks (into buf, cut
 * to n): @FORMATS@ the tensor file formats the tool reads (".npy, .npz,
 * safetensors"), @FORMATS_OR@ the same with "or" last, @MANY_OR@ those
 * that hold many tensors and are written too, in the order of output
 * formats ("safetensors or .npz").  Every help text that lists
 * formats says them so.  @return buf. */
const char *cli_formats_text(const char *text, char *buf, size_t n);

/* The registry of temporary paths (atomic.c): each temporary file or
 * folder is made by cli_tmp_make() and registered from the moment it
 * exists, from any thread, until cli_tmp_forget() (after it is renamed into
 * place or removed).  A signal that ends the program (SIGINT, SIGTERM,
 * SIGHUP, a full disk's SIGBUS) removes every registered file, and every
 * registered folder with what it holds.  cli_tmp_make() fills template's
 * XXXXXX as mkstemp (dir false: *fd is the open file) or mkdtemp does;
 * name is OUT, for a message.  @return the registration, or NULL with
 * errno set.  cli_tmp_map() records an output mapping in the file (for
 * telling a full disk's SIGBUS from an input's). */
struct cli_tmp;
struct cli_tmp *cli_tmp_make(char *template, bool dir, const char *name, int *fd);
void cli_tmp_map(struct cli_tmp *t, void *lo, void *hi);
void cli_tmp_forget(struct cli_tmp *t);

/* Removes a folder and everything below it (async-signal-safe). */
void cli_remove_tree(const char *dir);

/* -o naming a directory: the same usage error (exit 2) in every command
 * that writes a file.  @return CLI_OK or CLI_USAGE (message printed). */
int cli_out_not_dir(const char *cmd, const char *path);

/* Prepares an output of exactly size zero bytes at path ("-": standard
 * output).  On failure prints the message and returns CLI_IO; nothing is
 * left behind. */
int cli_out_open(struct cli_out *o, const char *path, uint64_t size);

/* Puts the output in place (renames the temporary file over path, or
 * writes a device, FIFO or standard output).  @return CLI_OK or CLI_IO
 * (message printed; the old path is untouched). */
int cli_out_commit(struct cli_out *o);

/* Drops the output: nothing is left and path is untouched. */
void cli_out_abort(struct cli_out *o);

/* An output that cannot be renamed over ("-", a FIFO, a device) is written
 * in order, in bounded pieces: open, write as often as needed, close.
 * cli_out_open_seq() gives any output (a regular one through its temporary
 * file) to be written the same way, then committed or aborted as usual.
 * Messages are printed; @return CLI_OK or CLI_IO. */
bool cli_out_is_stream(const char *path);
int cli_out_open_stream(struct cli_out *o, const char *path);
int cli_out_open_seq(struct cli_out *o, const char *path);
int cli_out_write(struct cli_out *o, const void *p, uint64_t n);
/* The same at position `at` of a regular file's temporary file, whatever
 * its file offset (several threads write one file so); the caller says
 * why it failed (errno). */
int cli_out_pwrite(struct cli_out *o, const void *p, uint64_t n, uint64_t at);

/* Writes n bytes to fd, through short writes and EINTR.  @return 0, or -1
 * with errno set. */
int cli_write_all(int fd, const void *bytes, uint64_t n);
int cli_out_close_stream(struct cli_out *o);

/* A writable view of n bytes of an output opened to be written in order,
 * starting at pos, the bytes written so far: a mapping of its temporary
 * file, or a zeroed buffer for a stream.  cli_out_region_done() unmaps it
 * (or writes the buffer out, when keep) and puts the write position after
 * it.  Messages are printed; @return CLI_OK or CLI_IO. */
int cli_out_region(struct cli_out *o, uint64_t pos, uint64_t n, uint8_t **p);
int cli_out_region_done(struct cli_out *o, uint64_t pos, uint64_t n, uint8_t *p, bool keep);

/* ---- writing tensors (write.c) ----------------------------------------- */

/* The formats an output takes: a header before the data, or none. */
/* The format --format names (NULL when it names none), else the one OUT's
 * name asks for: the format table's (core/format.c), raw by default. */
const struct tl_format_entry *cli_format_for(const char *out, const char *format);

/* Makes dst a tensor of format f written to OUT (chosen: by --format),
 * named name where the format names tensors, header and all: *header (free
 * it) and *hlen.  @return CLI_OK, or CLI_INVALID after a message naming
 * OUT when the tensor cannot be one. */
int cli_format_prepare(const struct tl_format_entry *f, const char *out, bool chosen,
                       const char *name, struct cli_desc *dst, uint8_t **header, size_t *hlen);

/* OUT as the library's writer writes it (tl_io.h): its operations (o) on
 * a temporary file beside OUT or a stream, and a writer (w) through them.
 * See write.c for the calling sequence.  Stays where it was opened: o and
 * w point into it. */
struct cli_writer {
    struct cli_out out;
    struct cli_out *also;     /* committed before out (see write.c), or NULL */
    bool seq;                 /* a regular file, through its temporary file */
    _Atomic int last_pct;     /* the progress shown last */
    struct timespec start;    /* when it was opened: the rate, the time left */
    _Atomic bool failed;      /* a thread failed to write (then only it says so) */
    struct tl_output o;
    struct tl_writer w;
};

/* Opens OUT (path, "-" for standard output) for total bytes, written on
 * `threads` threads, with a progress bar on standard error when progress.
 * Messages are printed; @return CLI_OK or CLI_IO. */
int cli_writer_open(struct cli_writer *w, const char *path, uint64_t total, unsigned threads,
                    bool progress, struct cli_out *also);

/* A library writer's result rc as a status: CLI_OK; CLI_IO (the output
 * said why, or out of memory said); CLI_INVALID after err's message,
 * naming the file the writer blames. */
int cli_writer_status(struct cli_writer *w, int rc, const struct tl_error *err);

/* Puts OUT in place (after `also`), or removes what was written.
 * @return of commit: CLI_OK or CLI_IO. */
int cli_writer_commit(struct cli_writer *w);
void cli_writer_abort(struct cli_writer *w);

/* ---- output (out.c) ----------------------------------------------------- */

/* The one way a message reaches standard error: "tensorlayout: " and the
 * message (one line; the newline is added), so that every message of the
 * command line has the same form.  cli_oom() says "out of memory" and
 * returns CLI_IO. */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* head, the message fmt makes, tail, in one write (the family's own). */
void cli_emit(const char *head, const char *fmt, va_list ap, const char *tail)
    __attribute__((format(printf, 2, 0)));
int cli_oom(void);

/* The name among names[0 .. n) (each a const char * at stride bytes from
 * the last: a table's name field) nearest name, a typo away (one edit in
 * a name of 4 to 9 characters, two in a longer one: a letter inserted,
 * dropped, replaced or two swapped, "weigth"), or NULL. */
const char *cli_did_you_mean(const char *name, const char *const *names, size_t n,
                             size_t stride);

/* Prints a core error the GNU way: "tensorlayout: FILE:LINE:COL: KEY: msg". */
void cli_report(const char *file, const struct tl_error *err);

/* Prints "tensorlayout: FILE: msg" for an I/O failure with errno's text. */
void cli_report_errno(const char *file, const char *what);

/* The text of a DirectML problem, as both the text and --json outputs show it. */
void cli_problem_text(const struct tl_problem *p, char *buf, size_t n);

/* An element's value as JSON text, as dump --json writes it: the number,
 * or the strings "NaN", "Infinity", "-Infinity".  buf holds at least 48
 * bytes; the result is buf or a constant. */
const char *cli_value_json(enum tl_dtype dt, const void *p, char *buf, size_t n);

/* Prints "a,b,c" to f. */
void cli_print_u64_list(FILE *f, const uint64_t *v, unsigned n, const char *sep);

/* "a,b,c" into buf of len bytes (cut short at its end: TL_MAX_RANK values
 * of 20 digits fit CLI_U64_TEXT); returns buf, for a message's %s. */
#define CLI_U64_TEXT (TL_MAX_RANK * 21 + 1)
const char *cli_u64_text(const uint64_t *v, unsigned n, char *buf, size_t len);

/* Prints a cJSON document (freeing it) on one line, compact (no spaces:
 * every --json output of the tool is spelled so), and a newline on stdout.
 * @return CLI_OK, or CLI_IO when it could not be built or written. */
struct cJSON;
int cli_print_json(struct cJSON *doc);

/* A finder's callback that only counts (count: a uint64_t). */
int cli_count_one(const uint64_t *idx, void *count);

/* Flushes stdout; reports a write error (a full disk, a closed pipe).
 * @return status, or CLI_IO when the output could not be written. */
int cli_finish_output(int status);

#endif
