/*
 * cmd_convert.c - `tensorlayout convert DESC DATA -o OUT --to L`: the same
 * logical tensor, rewritten in another layout.
 *
 * The source is memory-mapped (or read whole from a pipe).  The destination
 * is written in order, through a temporary file beside OUT (cli_out), from
 * windows of a few MiB that the copy engine fills slab by slab while the
 * previous one is written (convert_stream); one that does not cut into
 * such slabs is a mapping of that file, which the engine writes straight
 * into.  Either way no full-size copy sits in between, and OUT is renamed
 * into place only when everything succeeded.
 */
#define _DEFAULT_SOURCE 1           /* MADV_HUGEPAGE */
#include <argtable2.h>
#include <cjson/cJSON.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

#define PROGRESS_OVER (256ull << 20)   /* bytes; a progress bar above this */

static const char about[] =
    "Writes the same logical tensor in the destination layout: --to takes a\n"
    "layout label or index order (packed strides), --to-strides explicit\n"
    "strides (padding allowed), --to-desc a whole description (same sizes and\n"
    "data type).  The source may be packed, padded, broadcast or overlapping;\n"
    "the destination may be neither broadcast nor overlapping.  OUT holds\n"
    "exactly the destination's elements' bytes; bytes no element reaches are\n"
    "zero, or --fill V.  OUT is written to a temporary file beside it and\n"
    "renamed into place only on success; it may be the input file, or '-'.";

struct progress {
    bool on;
    int last;
};

static void draw(uint64_t done, uint64_t total, void *ctx)
{
    struct progress *pr = ctx;
    int pct = total ? (int)(done * 100 / total) : 100;
    if (!pr->on || pct == pr->last)
        return;
    pr->last = pct;
    char bar[41];
    int fill = pct * 40 / 100;
    memset(bar, '#', (size_t)fill);
    memset(bar + fill, ' ', (size_t)(40 - fill));
    bar[40] = '\0';
    fprintf(stderr, "\rconverting [%s] %3d%%", bar, pct);
    if (pct == 100)
        fputc('\n', stderr);
}

struct options {
    const char *desc, *data, *out, *to, *to_strides, *to_desc, *fill, *out_desc, *axes, *format;
    const char *to_type;
    bool saturate;
    int threads;
    bool quiet, json;
};

/* The destination description the options ask for. */
static int destination(const struct options *o, const struct cli_desc *src, struct cli_desc *dst,
                       const enum tl_dtype *to_type)
{
    static const char cmd[] = "convert";
    struct tl_error err = { 0 };
    char q[64];
    const struct tl_desc *s = &src->d;
    if (o->to_desc) {
        int rc = cli_load_desc(o->to_desc, NULL, dst);
        if (rc)
            return rc;
        cli_desc_release(dst);
        if (o->to_type && dst->d.dtype != *to_type) {
            cli_usage_error(cmd, "--to-type %s and the dataType of --to-desc (%s) disagree: "
                            "give one", tl_dtype_name(*to_type), tl_dtype_name(dst->d.dtype));
            return CLI_USAGE;
        }
        if (dst->d.rank != s->rank || memcmp(dst->d.sizes, s->sizes, s->rank * sizeof s->sizes[0])) {
            fprintf(stderr, "tensorlayout: %s: sizes: differ from the source's sizes\n", dst->name);
            return CLI_INVALID;
        }
        return CLI_OK;
    }
    memset(dst, 0, sizeof *dst);
    dst->d = *s;
    if (to_type)
        dst->d.dtype = *to_type;
    dst->d.byte_offset = 0;
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
    if (tl_desc_validate(&dst->d, &err)) {
        fprintf(stderr, "tensorlayout: %s: %s\n", dst->name, err.msg);
        return CLI_INVALID;
    }
    tl_desc_classify(&dst->d, &dst->info);
    return CLI_OK;
}

/* Writes the destination description to path, atomically. */
static int write_desc(const char *path, const struct tl_desc *d, struct cli_out *o)
{
    cJSON *j = tl_desc_to_json(d);
    char *text = j ? cJSON_Print(j) : NULL;
    cJSON_Delete(j);
    if (!text) {
        fprintf(stderr, "tensorlayout: out of memory\n");
        return CLI_IO;
    }
    size_t len = strlen(text);
    int rc = cli_out_open(o, path, len + 1);
    if (rc == CLI_OK) {
        memcpy(o->bytes, text, len);
        o->bytes[len] = '\n';
    }
    free(text);
    return rc;
}

static void note_isa(void)
{
    const char *want = getenv("TENSORLAYOUT_SIMD");
    enum tl_isa isa;
    if (want && *want && tl_isa_from_name(want, &isa) == 0 && tl_isa_active() != isa)
        fprintf(stderr, "tensorlayout: note: TENSORLAYOUT_SIMD=%s is not supported here; using %s\n",
                want, tl_isa_name(tl_isa_active()));
}

/* Whether two path arguments name the same existing file ("-" and inline
 * JSON name none). */
static bool same_file(const char *x, const char *y)
{
    struct stat a, b;
    if (!x || !y || strcmp(x, "-") == 0 || strcmp(y, "-") == 0 || x[strspn(x, " \t\r\n")] == '{' ||
        y[strspn(y, " \t\r\n")] == '{')
        return false;
    if (strcmp(x, y) == 0)
        return true;
    return stat(x, &a) == 0 && stat(y, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

/* Says which value did not fit the destination's type: the first in
 * logical order. */
static void report_unfit(const struct cli_desc *src, const struct cli_data *data,
                         enum tl_dtype ddt)
{
    uint64_t idx[TL_MAX_RANK];
    char value[48], lo[48], hi[48];
    if (!tl_convert_find_bad(&src->d, data->bytes, ddt, idx)) {
        fprintf(stderr, "tensorlayout: %s: a value does not fit %s\n", src->name,
                tl_dtype_name(ddt));
        return;
    }
    tl_dtype_format(src->d.dtype, data->bytes + tl_desc_at(&src->d, idx), value, sizeof value);
    /* the range, as the clamped extremes */
    double big = 1e300;
    uint8_t x[8];
    tl_convert_value(TL_DT_FLOAT64, &(double){ -big }, ddt, x);
    tl_dtype_format(ddt, x, lo, sizeof lo);
    tl_convert_value(TL_DT_FLOAT64, &big, ddt, x);
    tl_dtype_format(ddt, x, hi, sizeof hi);
    fprintf(stderr, "tensorlayout: %s: the value at [", src->name);
    cli_print_u64_list(stderr, idx, src->d.rank, ",");
    if (strcmp(value, "nan") == 0)
        fprintf(stderr, "] is nan, which %s cannot hold (--saturate makes it 0)\n",
                tl_dtype_name(ddt));
    else
        fprintf(stderr, "] is %s, outside the range of %s, %s to %s (--saturate clamps it)\n",
                value, tl_dtype_name(ddt), lo, hi);
}

/* --json: the destination description and the bytes written. */
static int print_result(const struct tl_desc *d, uint64_t size)
{
    cJSON *j = tl_desc_to_json(d);
    if (j && !tl_json_add_u64(j, "bytesWritten", size)) {
        cJSON_Delete(j);
        j = NULL;
    }
    return cli_print_json(j);
}

/* Bytes of an output built at once before it is written out: small enough
 * to stay in the caches, so that write() copies it from there.  A regular
 * file is written this way too: mapping it instead costs the kernel a
 * zeroed page per 4 KiB faulted in (on tmpfs, 60% of the CPU time of a
 * 103 MB conversion went to clearing pages); written in order, its pages
 * are filled by the copy itself (CPU time 2.0x -> 1.2x cat's). */
#define WINDOW (4ull << 20)
/* Larger slabs of the destination's outermost axis than this are not
 * built in a window of their own: a regular file is mapped instead. */
#define SLAB_MAX (16ull << 20)

/* Fills the element slots of window [lo, hi) of OUT: the slots from
 * byteOffset on, whole ones before `size` (a trailing partial slot and the
 * leading byteOffset bytes stay zero).  A window the copy covers whole
 * (a packed destination, no --fill) is left as it is. */
static void fill_window(uint8_t *win, uint64_t lo, uint64_t hi, const struct tl_desc *d,
                        uint64_t size, const uint8_t *fill, bool covered)
{
    unsigned es = tl_dtype_size(d->dtype);
    if (covered)
        return;
    memset(win, 0, (size_t)(hi - lo));
    if (!fill)
        return;
    uint64_t first = lo <= d->byte_offset ? d->byte_offset
                                          : d->byte_offset + (lo - d->byte_offset + es - 1) / es * es;
    uint64_t end = d->byte_offset + (size - d->byte_offset) / es * es;   /* whole slots */
    if (end > hi)
        end = hi;
    if (first < end)
        tl_copy_fill(win + (first - lo), (end - first) / es, fill, es);
}

/* A window's memory: on 2 MiB boundaries, in whole 2 MiB, with transparent
 * huge pages asked for where the system has them.  Its pages are new to
 * the process and the copy touches each first: 8 MiB in 4 KiB pages
 * measured 2.9-4.5 ms here, in huge pages 0.8-1.6 ms, against a 60 ms
 * conversion of 103 MB. */
static uint8_t *window_alloc(size_t n)
{
    const size_t huge = (size_t)2 << 20;
    n = (n + huge - 1) / huge * huge;
    uint8_t *p = aligned_alloc(huge, n);
#ifdef MADV_HUGEPAGE
    if (p)
        madvise(p, n, MADV_HUGEPAGE);
#endif
    return p;
}

/* The destination's slabs, built window after window, into two windows in
 * turn: by a helper thread while the caller writes the other one out (the
 * copy and the kernel's copy into the file overlap), or by the caller
 * itself with one thread. */
struct slabs {
    const struct tl_desc *s, *d;
    const uint8_t *bytes, *fill;
    unsigned axis, threads;
    uint64_t n0, per, step, start, size;
    bool covered;
    uint8_t *win[2];
    uint64_t lo[2], hi[2], i1[2];
    bool full[2], stop;
    char err[256];                 /* a copy that failed, its message */
    pthread_mutex_t mu;
    pthread_cond_t cv;
};

/* Builds window number w (its slabs from w * per on) into win[w % 2]. */
static void build_window(struct slabs *b, uint64_t w)
{
    unsigned k = (unsigned)(w % 2);
    uint64_t i0 = w * b->per, i1 = b->n0 - i0 < b->per ? b->n0 : i0 + b->per;
    uint64_t lo = b->start + i0 * b->step, hi = b->start + i1 * b->step;
    if (hi > b->size)
        hi = b->size;
    fill_window(b->win[k], lo, hi, b->d, b->size, b->fill, b->covered);
    struct tl_error err = { 0 };
    int r = tl_copy_slab(b->s, b->bytes, b->d, b->axis, i0, i1, b->win[k], lo, b->threads, &err);
    pthread_mutex_lock(&b->mu);
    if (r && r != TL_E_RANGE && !b->err[0])
        snprintf(b->err, sizeof b->err, "%s", err.msg[0] ? err.msg : "cannot copy");
    b->lo[k] = lo;
    b->hi[k] = hi;
    b->i1[k] = i1;
    b->full[k] = true;
    pthread_cond_broadcast(&b->cv);
    pthread_mutex_unlock(&b->mu);
}

static void *slab_builder(void *arg)
{
    struct slabs *b = arg;
    uint64_t windows = (b->n0 + b->per - 1) / b->per;
    for (uint64_t w = 0; w < windows; w++) {
        pthread_mutex_lock(&b->mu);
        while (b->full[w % 2] && !b->stop)
            pthread_cond_wait(&b->cv, &b->mu);
        bool stop = b->stop;
        pthread_mutex_unlock(&b->mu);
        if (stop)
            break;
        build_window(b, w);
    }
    return NULL;
}

/* Writes OUT in order: the header and the leading bytes, then the
 * destination in slabs of its outermost axis, built in windows of at most
 * WINDOW bytes (or one slab), then any declared tail.  Memory stays
 * bounded whatever OUT's size.  A conversion that would not fit is found
 * before the first byte is written.  OUT is a pipe or a device, written
 * directly, or (seq) a regular file, written through a temporary file
 * that is renamed over it, after --out-desc's, only when all went well. */
static int convert_stream(const struct options *o, const struct cli_desc *src,
                          const struct cli_desc *dst, const struct cli_data *data,
                          const uint8_t *header, size_t hlen, uint64_t size, const uint8_t *fill,
                          unsigned axis, bool seq, struct progress *pr)
{
    const struct tl_desc *d = &dst->d;
    uint64_t idx[TL_MAX_RANK];
    if (src->d.dtype != d->dtype && !o->saturate && !tl_dtype_is_float(d->dtype) &&
        tl_convert_find_bad(&src->d, data->bytes, d->dtype, idx)) {
        report_unfit(src, data, d->dtype);
        return CLI_INVALID;
    }
    struct cli_out out, out_desc;
    int rc;
    if (o->out_desc) {
        if ((rc = write_desc(o->out_desc, d, &out_desc)))
            return rc;
        if (!seq && (rc = cli_out_commit(&out_desc)))
            return rc;
    }
    if ((rc = seq ? cli_out_open_seq(&out, o->out) : cli_out_open_stream(&out, o->out))) {
        if (seq && o->out_desc)
            cli_out_abort(&out_desc);
        return rc;
    }
    unsigned es = tl_dtype_size(d->dtype);
    struct tl_info info;
    tl_desc_classify(d, &info);
    unsigned threads = tl_copy_threads(o->threads > 0 ? (unsigned)o->threads : 0);
    struct slabs b = { .s = &src->d, .d = d, .bytes = data->bytes, .fill = fill, .axis = axis,
                       .threads = threads > 1 ? threads - 1 : 1, .n0 = d->sizes[axis],
                       .step = d->strides[axis] * es, .start = d->byte_offset, .size = size,
                       .covered = info.packed && !fill };
    b.per = b.step >= WINDOW ? 1 : WINDOW / b.step;
    size_t cap = (size_t)(b.per * b.step > WINDOW ? b.per * b.step : WINDOW);
    b.win[0] = window_alloc(cap);
    b.win[1] = window_alloc(cap);
    if (!b.win[0] || !b.win[1]) {
        fprintf(stderr, "tensorlayout: out of memory\n");
        rc = CLI_IO;
    }
    uint8_t *win = b.win[0];
    /* the header, then the bytes up to byteOffset, a window at a time */
    uint64_t pos = 0, start = d->byte_offset;
    while (rc == CLI_OK && pos < start) {
        uint64_t hi = start - pos > WINDOW ? pos + WINDOW : start;
        memset(win, 0, (size_t)(hi - pos));
        if (pos < hlen)
            memcpy(win, header + pos, (size_t)((hlen < hi ? hlen : hi) - pos));
        rc = cli_out_write(&out, win, hi - pos);
        pos = hi;
    }
    /* the slabs: built by a helper while the last window is written */
    pthread_mutex_init(&b.mu, NULL);
    pthread_cond_init(&b.cv, NULL);
    pthread_t helper;
    uint64_t windows = (b.n0 + b.per - 1) / b.per;
    bool helped = rc == CLI_OK && threads > 1 && windows > 1 &&
                  pthread_create(&helper, NULL, slab_builder, &b) == 0;
    for (uint64_t w = 0; rc == CLI_OK && w < windows; w++) {
        unsigned k = (unsigned)(w % 2);
        if (!helped)
            build_window(&b, w);
        pthread_mutex_lock(&b.mu);
        while (!b.full[k])
            pthread_cond_wait(&b.cv, &b.mu);
        pthread_mutex_unlock(&b.mu);
        if (b.err[0]) {
            fprintf(stderr, "tensorlayout: %s: %s\n", out.name, b.err);
            rc = CLI_INVALID;
            break;
        }
        rc = cli_out_write(&out, b.win[k], b.hi[k] - b.lo[k]);
        pos = b.hi[k];
        draw(b.i1[k], b.n0, pr);
        pthread_mutex_lock(&b.mu);
        b.full[k] = false;
        pthread_cond_broadcast(&b.cv);
        pthread_mutex_unlock(&b.mu);
    }
    if (helped) {
        pthread_mutex_lock(&b.mu);
        b.stop = true;
        pthread_cond_broadcast(&b.cv);
        pthread_mutex_unlock(&b.mu);
        pthread_join(helper, NULL);
    }
    pthread_cond_destroy(&b.cv);
    pthread_mutex_destroy(&b.mu);
    while (rc == CLI_OK && pos < size) {           /* a declared total's tail */
        uint64_t hi = size - pos > WINDOW ? pos + WINDOW / es * es : size;
        fill_window(win, pos, hi, d, size, fill, false);
        rc = cli_out_write(&out, win, hi - pos);
        pos = hi;
    }
    free(b.win[0]);
    free(b.win[1]);
    if (!seq) {
        int crc = cli_out_close_stream(&out);
        return rc ? rc : crc;
    }
    /* the description first: if anything fails, OUT must be as it was */
    if (rc == CLI_OK && o->out_desc)
        rc = cli_out_commit(&out_desc);
    else if (o->out_desc)
        cli_out_abort(&out_desc);
    if (rc == CLI_OK)
        rc = cli_out_commit(&out);
    else
        cli_out_abort(&out);
    return rc;
}

/* Whether OUT is to be a .npy file: --format, or else its name. */
static bool wants_npy(const struct options *o)
{
    if (o->format)
        return strcmp(o->format, "npy") == 0;
    size_t n = strlen(o->out);
    return n >= 4 && strcasecmp(o->out + n - 4, ".npy") == 0;
}

/* Makes dst the description of a .npy file: its header before the data.
 * header receives the header's bytes, *hlen their count. */
static int npy_destination(const struct options *o, struct cli_desc *dst, uint8_t *header,
                           size_t cap, size_t *hlen)
{
    struct tl_error err = { 0 };
    char q[128];
    if (tl_npy_header(&dst->d, header, cap, hlen, &err)) {
        fprintf(stderr, "tensorlayout: %s: cannot be a .npy file: %s: %s%s\n",
                tl_quote(o->out, q, sizeof q), err.key, err.msg,
                o->format ? "" : " (--format raw writes raw bytes)");
        return CLI_INVALID;
    }
    dst->d.byte_offset = *hlen;
    dst->d.total_given = false;        /* the file is exactly the header and the data */
    if (tl_desc_validate(&dst->d, &err)) {
        fprintf(stderr, "tensorlayout: %s: %s\n", dst->name, err.msg);
        return CLI_INVALID;
    }
    tl_desc_classify(&dst->d, &dst->info);
    return CLI_OK;
}

static int run(const struct options *o)
{
    static const char cmd[] = "convert";
    struct cli_desc src, dst;
    struct cli_data data;
    struct cli_out out, out_desc;
    struct tl_error err = { 0 };
    unsigned char fill[8] = { 0 };
    uint8_t header[4096];
    size_t hlen = 0;
    bool npy = wants_npy(o);
    int rc;

    if (o->json && strcmp(o->out, "-") == 0) {
        cli_usage_error(cmd, "--json needs standard output: give -o a file");
        return CLI_USAGE;
    }
    if (o->out_desc && strcmp(o->out_desc, "-") == 0 && (strcmp(o->out, "-") == 0 || o->json)) {
        cli_usage_error(cmd, "--out-desc - would mix the description into %s on standard "
                        "output: give --out-desc a file", o->json ? "the --json document"
                                                                  : "the data");
        return CLI_USAGE;
    }
    if (strcmp(o->out, "-") == 0 && isatty(1)) {
        cli_usage_error(cmd, "-o - would write binary data to the terminal: redirect standard "
                        "output, or give -o a file");
        return CLI_USAGE;
    }
    if (o->out_desc && same_file(o->out, o->out_desc)) {
        cli_usage_error(cmd, "-o and --out-desc name the same file: one would overwrite the "
                        "other");
        return CLI_USAGE;
    }
    if ((o->to_desc && same_file(o->out, o->to_desc)) ||
        (o->out_desc && (same_file(o->out_desc, o->desc) ||
                         (o->data && same_file(o->out_desc, o->data))))) {
        cli_usage_error(cmd, "an output would overwrite an input (%s): give it another name",
                        o->to_desc && same_file(o->out, o->to_desc) ? "OUT is --to-desc"
                                                                     : "--out-desc is an input");
        return CLI_USAGE;
    }
    if (o->data && strcmp(o->desc, "-") == 0 && strcmp(o->data, "-") == 0) {
        cli_usage_error(cmd, "DESC and DATA cannot both be standard input ('-'): give one as a "
                        "file");
        return CLI_USAGE;
    }
    if ((rc = cli_load_desc(o->desc, o->axes, &src)))
        return rc;
    /* a tensor file may be converted in place; a JSON description may not
     * become the data */
    if (src.format == TL_FMT_JSON && same_file(o->out, o->desc)) {
        cli_usage_error(cmd, "OUT is the description %s: it would be overwritten; give -o "
                        "another name", src.name);
        cli_desc_release(&src);
        return CLI_USAGE;
    }
    /* a tensor file holds its data; a JSON description needs DATA */
    if (src.format != TL_FMT_JSON && o->data) {
        char q[64];
        cli_usage_error(cmd, "%s is a tensor file (%s) and holds its own data: unexpected "
                        "argument '%s'",
                        src.name, tl_format_name(src.format), tl_quote(o->data, q, sizeof q));
        rc = CLI_USAGE;
    } else if (src.format == TL_FMT_JSON && !o->data) {
        cli_usage_error(cmd, "missing argument DATA (a JSON description needs its data file)");
        rc = CLI_USAGE;
    }
    enum tl_dtype to_type;
    if (!rc && o->to_type && tl_dtype_from_name(o->to_type, &to_type)) {
        char q[64], list[160];
        cli_usage_error(cmd, "--to-type: '%s' is not a data type (%s)",
                        tl_quote(o->to_type, q, sizeof q),
                        tl_dtype_list(TL_SPELL_NAME, list, sizeof list));
        rc = CLI_USAGE;
    }
    if (!rc)
        rc = destination(o, &src, &dst, o->to_type ? &to_type : NULL);
    if (!rc && o->fill && tl_dtype_parse_value(dst.d.dtype, o->fill, fill, &err)) {
        cli_usage_error(cmd, "--fill: %s", err.msg);
        rc = CLI_USAGE;
    }
    if (!rc && npy)
        rc = npy_destination(o, &dst, header, sizeof header, &hlen);
    struct tl_copy_plan plan;
    if (!rc && tl_copy_plan(&plan, &src.d, &dst.d, &err)) {
        fprintf(stderr, "tensorlayout: %s: %s: %s\n", dst.name, err.key, err.msg);
        rc = CLI_INVALID;
    }
    if (!rc && src.format != TL_FMT_JSON) {
        data = src.file;
        memset(&src.file, 0, sizeof src.file);
    } else if (!rc) {
        rc = cli_open_data_upto(o->data, src.info.elements_bytes, &data);
    }
    cli_desc_release(&src);
    if (rc)
        return rc;
    if ((rc = cli_require_elements(&src, &data))) {
        cli_close_data(&data);
        return rc;
    }
    cli_note_trailing(&src, &data);
    note_isa();
    /* OUT holds the destination's elements' bytes, or its declared total */
    uint64_t size = plan.dst_bytes;
    if (dst.d.total_given && dst.d.byte_offset + dst.d.total_bytes > size)
        size = dst.d.byte_offset + dst.d.total_bytes;
    unsigned axis;
    bool stream = cli_out_is_stream(o->out);
    if (tl_copy_slab_axis(&dst.d, &axis) == 0 &&
        (stream || dst.d.strides[axis] * plan.des <= SLAB_MAX)) {
        /* written in order, a window at a time: a pipe or a device, or a
         * regular file through its temporary file */
        struct progress spr = { .on = !o->quiet && plan.count * plan.es > PROGRESS_OVER &&
                                      isatty(2), .last = -1 };
        rc = convert_stream(o, &src, &dst, &data, header, hlen, size, o->fill ? fill : NULL, axis,
                            !stream, &spr);
        cli_close_data(&data);
        if (rc == CLI_OK && o->json)
            rc = print_result(&dst.d, size);
        return rc;
    }
    if ((rc = cli_out_open(&out, o->out, size))) {
        cli_close_data(&data);
        return rc;
    }
    if (o->out_desc && (rc = write_desc(o->out_desc, &dst.d, &out_desc))) {
        cli_out_abort(&out);
        cli_close_data(&data);
        return rc;
    }
    memcpy(out.bytes, header, hlen);
    if (o->fill)            /* every element-sized slot after byteOffset */
        tl_copy_fill(out.bytes + dst.d.byte_offset, (size - dst.d.byte_offset) / plan.des, fill,
                     plan.des);
    struct progress pr = { .on = !o->quiet && plan.count * plan.es > PROGRESS_OVER &&
                                 isatty(2), .last = -1 };
    int unfit = tl_copy_run(&plan, data.bytes, out.bytes, (unsigned)o->threads, draw, &pr);
    if (unfit && !o->saturate) {
        report_unfit(&src, &data, dst.d.dtype);
        cli_close_data(&data);
        if (o->out_desc)
            cli_out_abort(&out_desc);
        cli_out_abort(&out);
        return CLI_INVALID;
    }
    cli_close_data(&data);
    /* the description first: if anything fails, OUT must be as it was */
    rc = o->out_desc ? cli_out_commit(&out_desc) : CLI_OK;
    if (rc == CLI_OK)
        rc = cli_out_commit(&out);
    else
        cli_out_abort(&out);
    if (rc == CLI_OK && o->json)
        rc = print_result(&dst.d, size);
    return rc;
}

int cmd_convert(int argc, char **argv)
{
    struct arg_file *desc = arg_file1(NULL, NULL, "DESC", "source description: a JSON file, '-' or inline JSON, or a tensor file (.npy, safetensors FILE[:NAME])");
    struct arg_file *data = arg_file0(NULL, NULL, "DATA", "source data file ('-' for standard input); none with a tensor file");
    struct arg_file *out = arg_file1("o", "output", "OUT", "output file ('-' for standard output); may be DATA itself");
    struct arg_str *to = arg_str0(NULL, "to", "L", "destination layout: letters (NHWC) or indices (0,2,3,1), packed");
    struct arg_str *to_strides = arg_str0(NULL, "to-strides", "LIST", "destination strides in elements (padding allowed)");
    struct arg_file *to_desc = arg_file0(NULL, "to-desc", "DESC2", "a whole destination description");
    struct arg_str *fill = arg_str0(NULL, "fill", "V", "value for the slots no element reaches (default 0)");
    struct arg_file *out_desc = arg_file0(NULL, "out-desc", "FILE", "also write the destination description");
    struct arg_int *threads = arg_int0(NULL, "threads", "N", "threads to use (default: the online CPUs)");
    struct arg_str *axes = arg_str0(NULL, "axes", "L", "a tensor file's dimensions as logical axes, outermost first (NHWC, 0,2,3,1)");
    struct arg_str *format = arg_str0(NULL, "format", "F", "npy or raw: what OUT is (default: npy when OUT ends in .npy)");
    struct arg_str *to_type = arg_str0(NULL, "to-type", "T", "convert the values to data type T on the way (FLOAT16, UINT8, ...)");
    struct arg_lit *saturate = arg_lit0(NULL, "saturate", "with a conversion: clamp values outside T's range (NaN to 0) instead of failing");
    struct arg_lit *quiet = arg_lit0("q", "quiet", "no progress bar");
    struct arg_lit *json = arg_lit0(NULL, "json", "print the destination description and bytesWritten");
    struct arg_lit *help = arg_lit0("h", "help", "print this help and exit");
    struct arg_end *end = arg_end(5);
    void *table[] = { desc, data, out, to, to_strides, to_desc, to_type, saturate, fill, out_desc,
                      axes, format, threads, quiet, json, help, end };
    int rc = CLI_IO;
    if (arg_nullcheck(table) == 0)
        rc = cli_parse_args(argc, argv, table, about);
    if (rc == CLI_CONTINUE) {
        int forms = to->count + to_strides->count + to_desc->count;
        if (forms != 1) {
            cli_usage_error("convert", forms ? "give only one of --to, --to-strides, --to-desc"
                                             : "missing --to, --to-strides or --to-desc");
            rc = CLI_USAGE;
        } else if (format->count && strcmp(format->sval[0], "npy") != 0 &&
                   strcmp(format->sval[0], "raw") != 0) {
            char q[64];
            cli_usage_error("convert", "--format: '%s' is not npy or raw",
                            tl_quote(format->sval[0], q, sizeof q));
            rc = CLI_USAGE;
        } else if (threads->count && threads->ival[0] < 1) {
            cli_usage_error("convert", "--threads must be at least 1");
            rc = CLI_USAGE;
        } else {
            struct options o = {
                .desc = desc->filename[0], .data = data->count ? data->filename[0] : NULL,
                .out = out->filename[0],
                .to = to->count ? to->sval[0] : NULL,
                .to_strides = to_strides->count ? to_strides->sval[0] : NULL,
                .to_desc = to_desc->count ? to_desc->filename[0] : NULL,
                .fill = fill->count ? fill->sval[0] : NULL,
                .out_desc = out_desc->count ? out_desc->filename[0] : NULL,
                .axes = axes->count ? axes->sval[0] : NULL,
                .format = format->count ? format->sval[0] : NULL,
                .to_type = to_type->count ? to_type->sval[0] : NULL,
                .saturate = saturate->count > 0,
                .threads = threads->count ? threads->ival[0] : 0,
                .quiet = quiet->count > 0, .json = json->count > 0,
            };
            rc = run(&o);
        }
    }
    arg_freetable(table, sizeof table / sizeof table[0]);
    return rc;
}
