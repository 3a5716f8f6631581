/*
 * cmd_compare.c - `tensorlayout compare A B`: whether two tensors hold the
 * same values at every logical index, whatever their layouts, padding,
 * broadcast and data types; where they differ and by how much.
 *
 * A and B are each `DESC DATA` or one tensor file, told apart by content:
 * a JSON description takes the next argument as its data, a tensor file
 * holds its own.  The work is the copy engine's (tl_compare); this file
 * reads the arguments and prints the report.
 */
#include <argtable2.h>
#include <cjson/cJSON.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"

static const char about[] =
    "Decides whether tensors A and B hold the same values at every logical\n"
    "index, whatever their layouts, padding, broadcast and data types.  A and\n"
    "B are each DESC DATA or one tensor file (@FORMATS@ or a\n"
    "shard index: FILE[:NAME]).\n"
    "Two values match when |a - b| <= atol + rtol * |b| (numpy's isclose;\n"
    "both 0 by default: equal as numbers, +0 = -0, NaN matches nothing unless\n"
    "--equal-nan).  Prints 'equal (N elements)', or the mismatch count, the\n"
    "largest differences and the first mismatches in logical order.  Exits 0\n"
    "when equal, 1 when not.  Two files of many tensors (or shard indexes)\n"
    "named whole compare every tensor of the same name, one line each; types\n"
    "the tool does not decode byte for byte; names in one file only reported;\n"
    "--to, --to-type, --select and --exclude compare B against A converted\n"
    "by those rules, as convert writes it (compare A B --to OHWI).";

struct input {
    struct cli_desc desc;
    struct cli_data data;
};

/* Loads one side from args[*i...], a tensor file's dimensions read as the
 * logical axes `axes` (NULL: in order), which option axes_opt gave;
 * advances *i past what it took. */
static int load_side(const char *label, const char *axes, const char *axes_opt,
                     const char **args, int nargs, int *i, struct input *in)
{
    if (*i >= nargs) {
        cli_usage_error("compare", "missing argument %s (DESC DATA, or a tensor file)", label);
        return CLI_USAGE;
    }
    int rc = cli_load_desc_streamed(args[*i], axes, axes_opt, &in->desc);
    if (rc)
        return rc;
    (*i)++;
    if (in->desc.format != TL_FMT_JSON) {
        in->data = in->desc.file;
        memset(&in->desc.file, 0, sizeof in->desc.file);
    } else {
        if (*i >= nargs) {
            cli_usage_error("compare", "missing the DATA of %s (%s is a JSON description)", label,
                            in->desc.name);
            return CLI_USAGE;
        }
        if ((rc = cli_open_data_upto(args[*i], in->desc.info.elements_bytes, &in->data)))
            return rc;
        (*i)++;
    }
    return cli_require_elements(&in->desc, &in->data);
}

static void release(struct input *in)
{
    cli_close_data(&in->data);
    cli_desc_release(&in->desc);
}

/* The largest absolute difference as text: exact for integers. */
static const char *diff_text(const struct tl_compare_result *r, char *buf, size_t n)
{
    if (r->int_diff) {
        unsigned __int128 v = (unsigned __int128)r->max_abs;
        char tmp[48];
        size_t k = 0;
        do {
            tmp[k++] = (char)('0' + (int)(v % 10));
            v /= 10;
        } while (v && k < sizeof tmp);
        for (size_t i = 0; i < k && i + 1 < n; i++)
            buf[i] = tmp[k - 1 - i];
        buf[k < n ? k : n - 1] = '\0';
        return buf;
    }
    double d = (double)r->max_abs;
    tl_dtype_format(TL_DT_FLOAT64, &d, buf, n);
    return buf;
}

/* The two values of a mismatch as text, each in its own type as dump
 * prints it; when the two texts are the same (a FLOAT16 and a FLOAT32 of
 * "the same" decimal), each is written exactly, as a FLOAT64, so that the
 * difference shows. */
static void pair_text(const struct input *a, const struct input *b, const struct tl_mismatch *m,
                      char *va, char *vb, size_t n)
{
    tl_dtype_format(a->desc.d.dtype, m->a, va, n);
    tl_dtype_format(b->desc.d.dtype, m->b, vb, n);
    if (strcmp(va, vb) == 0 && tl_dtype_is_float(a->desc.d.dtype) &&
        tl_dtype_is_float(b->desc.d.dtype)) {
        double x, y;
        tl_convert_value(a->desc.d.dtype, m->a, TL_DT_FLOAT64, &x);
        tl_convert_value(b->desc.d.dtype, m->b, TL_DT_FLOAT64, &y);
        tl_dtype_format(TL_DT_FLOAT64, &x, va, n);
        tl_dtype_format(TL_DT_FLOAT64, &y, vb, n);
    }
}

/* A logical index as "i,j,k" into buf; @return its length. */
static int index_text(const struct tl_desc *d, uint64_t linear, char *buf, size_t size)
{
    uint64_t idx[TL_MAX_RANK];
    tl_unravel(d, linear, idx);
    int n = 0;
    for (unsigned k = 0; k < d->rank && n < (int)size; k++)
        n += snprintf(buf + n, size - (size_t)n, "%s%" PRIu64, k ? "," : "", idx[k]);
    return n;
}

static void print_index(FILE *f, const struct tl_desc *d, uint64_t linear)
{
    uint64_t idx[TL_MAX_RANK];
    tl_unravel(d, linear, idx);
    cli_print_u64_list(f, idx, d->rank, ",");
}

static void print_text(const struct input *a, const struct input *b,
                       const struct tl_compare_result *r)
{
    const struct tl_desc *d = &a->desc.d;
    char buf[64], va[48], vb[48];
    if (r->mismatches == 0) {
        printf("equal (%" PRIu64 " element%s)\n", r->element_count,
               r->element_count == 1 ? "" : "s");
        return;
    }
    printf("different: %" PRIu64 " of %" PRIu64 " elements (%.3g%%)\n", r->mismatches,
           r->element_count, 100.0 * (double)r->mismatches / (double)r->element_count);
    if (r->have_abs) {
        printf("max abs diff: %s at ", diff_text(r, buf, sizeof buf));
        print_index(stdout, d, r->max_abs_index);
        tl_dtype_format(TL_DT_FLOAT64, &r->max_rel, buf, sizeof buf);
        printf("\nmax rel diff: %s at ", buf);
        print_index(stdout, d, r->max_rel_index);
        printf("\n");
    } else {
        printf("max abs diff: - (every mismatch involves a NaN)\n");
    }
    if (r->nfirst == 0)
        return;
    /* the first mismatches, aligned in three columns: measured, then printed */
    int wi = 5, wa = 1;
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 1)
            printf("%-*s  %*s  %s\n", wi, "index", wa, "a", "b");
        for (size_t i = 0; i < r->nfirst; i++) {
            char ib[TL_MAX_RANK * 21];
            int n = index_text(d, r->first[i].index, ib, sizeof ib);
            pair_text(a, b, &r->first[i], va, vb, sizeof va);
            int l = (int)strlen(va);
            if (pass == 1) {
                printf("%-*s  %*s  %s\n", wi, ib, wa, va, vb);
            } else {
                wi = n > wi ? n : wi;
                wa = l > wa ? l : wa;
            }
        }
    }
}

static cJSON *index_json(const struct tl_desc *d, uint64_t linear)
{
    uint64_t idx[TL_MAX_RANK];
    tl_unravel(d, linear, idx);
    cJSON *o = cJSON_CreateObject();
    if (!o || !tl_json_add_u64_array(o, "i", idx, d->rank)) {
        cJSON_Delete(o);
        return NULL;
    }
    cJSON *arr = cJSON_DetachItemFromObject(o, "i");
    cJSON_Delete(o);
    return arr;
}

static cJSON *build_json(const struct input *a, const struct input *b,
                         const struct tl_compare_result *r)
{
    const struct tl_desc *d = &a->desc.d;
    char buf[64];
    cJSON *o = cJSON_CreateObject(), *first = NULL;
    bool ok = o && cJSON_AddBoolToObject(o, "equal", r->mismatches == 0) &&
              tl_json_add_u64(o, "elementCount", r->element_count) &&
              tl_json_add_u64(o, "mismatches", r->mismatches);
    if (ok && r->have_abs) {
        double rel = r->max_rel;
        double abs = (double)r->max_abs;          /* an infinity as JSON has it: a string */
        ok = cJSON_AddRawToObject(o, "maxAbsDiff", r->int_diff ? diff_text(r, buf, sizeof buf)
                                  : cli_value_json(TL_DT_FLOAT64, &abs, buf, sizeof buf)) != NULL;
        cJSON *i1 = index_json(d, r->max_abs_index), *i2 = index_json(d, r->max_rel_index);
        ok = ok && i1 && i2;
        if (ok) {
            cJSON_AddItemToObject(o, "maxAbsDiffIndex", i1);
            ok = cJSON_AddRawToObject(o, "maxRelDiff", cli_value_json(TL_DT_FLOAT64, &rel, buf,
                                                                      sizeof buf)) != NULL;
            cJSON_AddItemToObject(o, "maxRelDiffIndex", i2);
        } else {
            cJSON_Delete(i1);
            cJSON_Delete(i2);
        }
    } else if (ok) {
        ok = cJSON_AddNullToObject(o, "maxAbsDiff") && cJSON_AddNullToObject(o, "maxAbsDiffIndex") &&
             cJSON_AddNullToObject(o, "maxRelDiff") && cJSON_AddNullToObject(o, "maxRelDiffIndex");
    }
    ok = ok && (first = cJSON_AddArrayToObject(o, "first")) != NULL;
    for (size_t i = 0; ok && i < r->nfirst; i++) {
        cJSON *m = cJSON_CreateObject(), *idx = index_json(d, r->first[i].index);
        ok = m && idx;
        if (!ok) {
            cJSON_Delete(m);
            cJSON_Delete(idx);
            break;
        }
        cJSON_AddItemToArray(first, m);
        cJSON_AddItemToObject(m, "index", idx);
        ok = cJSON_AddRawToObject(m, "a", cli_value_json(a->desc.d.dtype, r->first[i].a, buf,
                                                         sizeof buf)) &&
             cJSON_AddRawToObject(m, "b", cli_value_json(b->desc.d.dtype, r->first[i].b, buf,
                                                         sizeof buf));
    }
    if (!ok) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

/* Whether sizes y are sizes x in another order. */
static bool permuted(const struct tl_desc *x, const struct tl_desc *y)
{
    if (x->rank != y->rank)
        return false;
    bool used[TL_MAX_RANK] = { false };
    for (unsigned i = 0; i < x->rank; i++) {
        unsigned k = 0;
        while (k < y->rank && (used[k] || y->sizes[k] != x->sizes[i]))
            k++;
        if (k == y->rank)
            return false;
        used[k] = true;
    }
    return true;
}

/* Whether the sizes of d and of `to` are the same but for axes of size 1;
 * then d becomes a view with to's sizes (its strides for the axes of more
 * than one element, in order; 0 for the others), to compare against. */
static bool squeeze_as(struct cli_desc *d, const struct tl_desc *to)
{
    unsigned from[TL_MAX_RANK], n = 0, k = 0;
    for (unsigned i = 0; i < d->d.rank; i++)
        if (d->d.sizes[i] != 1)
            from[n++] = i;
    struct tl_desc v = d->d;
    v.rank = to->rank;
    for (unsigned i = 0; i < to->rank; i++) {
        if (to->sizes[i] == 1) {
            v.sizes[i] = 1;
            v.strides[i] = 0;
            continue;
        }
        if (k == n || d->d.sizes[from[k]] != to->sizes[i])
            return false;
        v.sizes[i] = to->sizes[i];
        v.strides[i] = d->d.strides[from[k++]];
    }
    if (k != n || tl_desc_validate(&v, NULL))
        return false;
    d->d = v;
    tl_desc_classify(&d->d, &d->info);
    return true;
}

/* Sizes that differ: the answer (no), on standard output, as text or as
 * JSON; and a note when they are the same sizes in another order (most
 * often a tensor file written in another layout, read as its shape).
 * @return CLI_NO, or rc when it is a failure already, or the printing's. */
static int sizes_differ(const struct input *a, const struct input *b, const char *axes_a,
                        const char *axes_b, bool json, int rc)
{
    if (json) {
        cJSON *o = cJSON_CreateObject();
        cJSON *sa = cJSON_CreateArray(), *sb = cJSON_CreateArray();
        bool ok = o && sa && sb && cJSON_AddBoolToObject(o, "equal", false) &&
                  cJSON_AddStringToObject(o, "reason", "sizes");
        for (unsigned k = 0; ok && k < a->desc.d.rank; k++)
            ok = cJSON_AddItemToArray(sa, cJSON_CreateNumber((double)a->desc.d.sizes[k]));
        for (unsigned k = 0; ok && k < b->desc.d.rank; k++)
            ok = cJSON_AddItemToArray(sb, cJSON_CreateNumber((double)b->desc.d.sizes[k]));
        if (ok) {
            cJSON_AddItemToObject(o, "sizesA", sa);
            cJSON_AddItemToObject(o, "sizesB", sb);
            rc = cli_print_json(o);
        } else {
            cJSON_Delete(sa);
            cJSON_Delete(sb);
            cJSON_Delete(o);
            rc = cli_oom();
        }
    } else {
        printf("different: sizes [");
        cli_print_u64_list(stdout, a->desc.d.sizes, a->desc.d.rank, ",");
        printf("] and [");
        cli_print_u64_list(stdout, b->desc.d.sizes, b->desc.d.rank, ",");
        printf("]\n");
    }
    bool fa = a->desc.format != TL_FMT_JSON && !axes_a;
    bool fb = b->desc.format != TL_FMT_JSON && !axes_b;
    fflush(stdout);                     /* the answer, then the note, in a terminal too */
    if (permuted(&a->desc.d, &b->desc.d) && (fa || fb))
        cli_note("compare: %s and %s hold the same sizes in another order: a tensor file in "
                 "another layout is read with %s L, e.g. %s NHWC for an (N,H,W,C) array\n",
                 a->desc.name, b->desc.name,
                 fa && fb ? "--axes-a or --axes-b" : fa ? "--axes-a" : "--axes-b",
                 fb ? "--axes-b" : "--axes-a");
    return rc ? rc : CLI_NO;
}

static int run(const char **args, int nargs, const char *axes_a, const char *axes_b,
               const struct tl_compare_opts *opts, bool json)
{
    struct input a = { 0 }, b = { 0 };
    int i = 0;
    int rc = load_side("A", axes_a, "--axes-a", args, nargs, &i, &a);
    if (!rc)
        rc = load_side("B", axes_b, "--axes-b", args, nargs, &i, &b);
    if (!rc && i < nargs) {
        char q[64];
        cli_usage_error("compare", "unexpected argument '%s' (A and B are each DESC DATA or "
                        "one tensor file)", tl_quote(args[i], q, sizeof q));
        rc = CLI_USAGE;
    }
    bool differ = !rc && (a.desc.d.rank != b.desc.d.rank ||
                          memcmp(a.desc.d.sizes, b.desc.d.sizes,
                                 a.desc.d.rank * sizeof a.desc.d.sizes[0]));
    struct tl_desc b_was = b.desc.d;
    if (differ && squeeze_as(&b.desc, &a.desc.d)) {
        /* the same sizes but for axes of size 1 ([16] and [1,16,1,1]) */
        char sa[CLI_U64_TEXT], sb[CLI_U64_TEXT];
        cli_note("compare: %s has sizes %s and %s has %s: compared without their axes of size "
                 "1\n", a.desc.name, cli_u64_text(a.desc.d.sizes, a.desc.d.rank, sa, sizeof sa),
                 b.desc.name, cli_u64_text(b_was.sizes, b_was.rank, sb, sizeof sb));
        differ = false;
    }
    if (differ) {                       /* the answer is no (SPEC 8), on stdout */
        rc = sizes_differ(&a, &b, axes_a, axes_b, json, rc);
        release(&a);
        release(&b);
        return rc;
    }
    struct tl_compare_result r;
    struct tl_error err = { 0 };
    if (!rc && tl_compare_values(&a.desc.d, a.data.bytes, a.desc.values, &b.desc.d,
                                 b.data.bytes, b.desc.values, opts, &r, &err)) {
        cli_error("compare: %s", err.msg);
        rc = CLI_IO;
    } else if (!rc) {
        if (json)
            rc = cli_print_json(build_json(&a, &b, &r));
        else
            print_text(&a, &b, &r);
        if (!rc && r.mismatches)
            rc = CLI_NO;
        tl_compare_free(&r);
    }
    release(&a);
    release(&b);
    return rc;
}

/* A tolerance: a finite number >= 0. */
static bool parse_tol(const char *s, double *out)
{
    char *end;
    double v = strtod(s, &end);
    if (*s == '\0' || *end != '\0' || !(v >= 0) || isinf(v))
        return false;
    *out = v;
    return true;
}

/* CLI_IO after "cannot open" when path names no file (neither '-',
 * inline JSON, nor FILE:NAME of a file that is there), else CLI_OK. */
static int missing(const char *path)
{
    struct stat st;
    const char *p = path, *name;
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
        p++;
    if (strcmp(path, "-") == 0 || *p == '{' || stat(path, &st) == 0)
        return CLI_OK;
    int why = errno;
    char file[4096], q[128];
    cli_split_name(path, file, sizeof file, &name);
    if (name)
        return CLI_OK;
    cli_error("%s: cannot open: %s", tl_quote(path, q, sizeof q),
            strerror(why));
    return CLI_IO;
}

/* The usage errors of compare's numbers: --atol, --rtol, --show,
 * --threads, into o.  @return CLI_OK, or CLI_USAGE after the message. */
static int numbers(const struct arg_str *atol, const struct arg_str *rtol,
                   const struct arg_int *show, const struct arg_int *threads,
                   struct tl_compare_opts *o)
{
    char q[64];
    if (atol->count && !parse_tol(atol->sval[0], &o->atol)) {
        cli_usage_error("compare", "--atol: '%s' is not a number >= 0",
                        tl_quote(atol->sval[0], q, sizeof q));
        return CLI_USAGE;
    }
    if (rtol->count && !parse_tol(rtol->sval[0], &o->rtol)) {
        cli_usage_error("compare", "--rtol: '%s' is not a number >= 0",
                        tl_quote(rtol->sval[0], q, sizeof q));
        return CLI_USAGE;
    }
    if (show->count && show->ival[0] < 0) {
        cli_usage_error("compare", "--show must be 0 or more");
        return CLI_USAGE;
    }
    if (threads->count && threads->ival[0] < 1) {
        cli_usage_error("compare", "--threads must be at least 1");
        return CLI_USAGE;
    }
    if (show->count)
        o->show = (size_t)show->ival[0];
    if (threads->count)
        o->threads = (unsigned)threads->ival[0];
    return CLI_OK;
}

/* The two sides as files: a side that names no file is said first (not a
 * complaint about the other, which the one-tensor path would make), and a
 * model's folder stands for its index, or its one file.  @return a CLI_*
 * status. */
static int side_files(struct arg_file *sides)
{
    static char found[2][4096 + 1024];
    int rc = CLI_OK;
    for (int i = 0; rc == CLI_OK && i < sides->count && i < 2; i++)
        rc = missing(sides->filename[i]);
    for (int i = 0; rc == CLI_OK && i < sides->count && i < 2; i++) {
        const char *p;
        if ((rc = cli_model_path(sides->filename[i], found[i], sizeof found[i], &p)))
            break;
        sides->filename[i] = p;
    }
    return rc;
}

/* With --type and --sizes, A and B are two DATA files they describe, or
 * one is a tensor file, which describes itself: the arguments the
 * one-tensor path takes, into args (*nargs).  @return CLI_OK, or CLI_USAGE
 * after the message. */
static int described_sides(const struct arg_file *sides, const struct cli_desc_opts *dopt,
                           const char **args, int *nargs)
{
    bool tfile[2] = { false, false };
    *nargs = 0;
    for (int i = 0; i < sides->count && i < 2; i++)
        tfile[i] = cli_is_tensor_file(sides->filename[i]);
    for (int i = 0; i < sides->count && i < 2; i++) {
        if (!tfile[i])
            args[(*nargs)++] = cli_desc_opts_arg(dopt, i);
        args[(*nargs)++] = sides->filename[i];
    }
    if (sides->count == 2 && !(tfile[0] && tfile[1]))
        return CLI_OK;
    cli_usage_error("compare", sides->count != 2
                    ? "with --type and --sizes, give two DATA files (A's, then B's), or a "
                      "tensor file and a DATA file, and no DESC"
                    : "both arguments are tensor files: --type and --sizes describe a raw DATA "
                      "file, and there is none");
    return CLI_USAGE;
}

/* The rules are for whole files, the axes for one tensor each.  @return
 * CLI_OK, or CLI_USAGE after the message. */
static int whole_usage(bool whole, bool rules, bool axes)
{
    if (whole && axes) {
        cli_usage_error("compare", "--axes-a and --axes-b name one tensor's axes: for two whole "
                        "files give --to L (B is A converted by it), as convert takes it");
        return CLI_USAGE;
    }
    if (!whole && rules) {
        cli_usage_error("compare", "--to, --to-type, --select and --exclude are for two whole "
                        "files (B is A converted by them); for one tensor give --axes-a or "
                        "--axes-b");
        return CLI_USAGE;
    }
    return CLI_OK;
}

int cmd_compare(int argc, char **argv)
{
    static char gloss[512];
    struct arg_file *sides = arg_filen(NULL, NULL, "TENSOR", 1, 4, cli_formats_text("A, then B: each DESC DATA, or one tensor file (@FORMATS@, a shard index; FILE[:NAME]); with --type and --sizes, A's DATA and B's (or a tensor file for one of them)", gloss, sizeof gloss));
    struct arg_str *atol = arg_str0(NULL, "atol", "X", "absolute tolerance (default 0)");
    struct arg_str *rtol = arg_str0(NULL, "rtol", "X", "relative tolerance, times |b| (default 0)");
    struct arg_lit *equal_nan = arg_lit0(NULL, "equal-nan", "NaN matches NaN");
    struct arg_int *show = arg_int0(NULL, "show", "K", "list the first K mismatches (default 10)");
    struct arg_str *axes_a = arg_str0(NULL, "axes-a", "L", "A's dimensions as logical axes, when A is a tensor file (NHWC, 0,2,3,1)");
    struct arg_str *axes_b = arg_str0(NULL, "axes-b", "L", "B's dimensions as logical axes, when B is a tensor file");
    struct arg_str *to = arg_strn(NULL, "to", "L", 0, TL_MAX_RANK, "whole files: B is A converted to layout L (one a rank), as convert --to writes it");
    struct arg_str *to_type = arg_str0(NULL, "to-type", "T", "whole files: B is A's floating tensors converted to type T");
    struct arg_str *select = arg_strn(NULL, "select", "GLOB", 0, CLI_MAX_GLOBS, "whole files: the rules change only the tensors whose names match (repeatable)");
    struct arg_str *exclude = arg_strn(NULL, "exclude", "GLOB", 0, CLI_MAX_GLOBS, "whole files: the rules leave the tensors whose names match as they are (repeatable)");
    struct arg_int *threads = arg_int0(NULL, "threads", "N", "threads to use (default: the online CPUs)");
    struct arg_lit *json = arg_lit0(NULL, "json", "print one JSON document");
    struct arg_lit *help = arg_lit0("h", "help", "print this help and exit");
    struct cli_desc_opts dopt;
    cli_desc_opts_init(&dopt, "compare", 2);
    struct arg_end *end = arg_end(5);
    void *table[] = { sides, dopt.type, dopt.sizes, dopt.strides, dopt.layout, dopt.byte_offset, dopt.total_size, dopt.file_offset, dopt.alignment,
                      atol, rtol, equal_nan, show, axes_a, axes_b, to, to_type, select, exclude,
                      threads, json, help, end };
    int rc = CLI_IO;
    if (arg_nullcheck(table) == 0)
        rc = cli_parse_args_desc(argc, argv, table, about, &dopt);
    if (rc != CLI_CONTINUE) {           /* --help, or a usage error said */
        arg_freetable(table, sizeof table / sizeof table[0]);
        return rc;
    }
    struct tl_compare_opts o = { .show = 10, .equal_nan = equal_nan->count > 0 };
    bool opts = cli_desc_opts_given(&dopt);
    const char *args[4];
    int nargs = 0;
    rc = numbers(atol, rtol, show, threads, &o);
    if (rc == CLI_OK && !opts && sides->count == 1) {     /* one side: B is missing, */
        cli_usage_error("compare", "missing argument B (DESC DATA, or a tensor file)");
        rc = CLI_USAGE;                 /* whatever A holds (SPEC 23) */
    }
    if (rc == CLI_OK)
        rc = opts ? described_sides(sides, &dopt, args, &nargs) : side_files(sides);
    struct cli_whole w = {
        .name = "compare", .to = to->sval, .nto = to->count,
        .to_type = to_type->count ? to_type->sval[0] : NULL, .select = select->sval,
        .nselect = select->count, .exclude = exclude->sval, .nexclude = exclude->count,
    };
    bool rules = to->count || to_type->count || select->count || exclude->count;
    bool whole = rc == CLI_OK && !opts && sides->count == 2 &&
                 cli_compare_whole_wanted(sides->filename[0], sides->filename[1]);
    if (rc == CLI_OK && (rc = whole_usage(whole, rules, axes_a->count || axes_b->count)))
        ;
    else if (whole)
        rc = cli_compare_whole(sides->filename[0], sides->filename[1], &o, rules ? &w : NULL,
                               json->count > 0);
    else if (rc == CLI_OK)
        rc = run(opts ? args : sides->filename, opts ? nargs : sides->count,
                 axes_a->count ? axes_a->sval[0] : NULL, axes_b->count ? axes_b->sval[0] : NULL,
                 &o, json->count > 0);
    arg_freetable(table, sizeof table / sizeof table[0]);
    return rc;
}
