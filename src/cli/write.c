/*
 * write.c - OUT as the library's writer sees it (tl_io.h): a temporary
 * file beside it, or a stream (a pipe, a device, '-'), whose operations
 * the writer calls; progress drawn on a terminal; the commit or the
 * removal.  Every command that writes tensors opens OUT through it.
 *
 * Calling sequence:
 *
 *     struct cli_writer wr;
 *     cli_writer_open(&wr, path, total_bytes, threads, progress, also)
 *     rc = tl_writer_put(&wr.w, header, hlen, &err)      (the library's
 *     rc = tl_writer_tensor(&wr.w, ...)                   writer, or
 *     rc = tl_whole_write(&job, format, &wr.o, &err)      a whole file's)
 *     rc = cli_writer_status(&wr, rc, &err)               the message
 *     cli_writer_commit(&wr)  or  cli_writer_abort(&wr)
 *
 * `also` is another output that goes with OUT (convert's --out-desc): it
 * is committed before OUT, so that after a failure OUT is as it was; for a
 * stream, which cannot wait, it is committed before the first byte.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

/* ---- formats: the one table (core/format.c) ---------------------------- */

const struct tl_format_entry *cli_format_for(const char *out, const char *format)
{
    return format ? tl_format_written(format) : tl_format_for_path(out);
}

int cli_format_prepare(const struct tl_format_entry *f, const char *out, bool chosen,
                       const char *name, struct cli_desc *dst, uint8_t **header, size_t *hlen)
{
    struct tl_error err = { 0 };
    char q[128];
    *header = NULL;
    *hlen = 0;
    if (!f->header)
        return CLI_OK;
    if (f->header(&dst->d, name, dst->scalar, dst->fortran, header, hlen, &err)) {
        free(*header);
        *header = NULL;
        bool nib = tl_dtype_bits(dst->d.dtype) == 4;
        cli_error("%s: cannot be a .%s file: %s: %s%s",
                tl_quote(out, q, sizeof q), f->name, err.key, err.msg,
                nib ? ": --format raw writes the packed nibbles, --to-type INT8 one value a byte"
                    : chosen ? "" : " (--format raw writes raw bytes)");
        return err.code == TL_E_NOMEM ? CLI_IO : CLI_INVALID;
    }
    dst->d.file_offset = *hlen;
    dst->d.total_given = false;        /* the file is exactly the header and the data */
    if (tl_desc_validate(&dst->d, &err)) {
        cli_error("%s: %s", dst->name, err.msg);
        free(*header);
        *header = NULL;
        return CLI_INVALID;
    }
    tl_desc_classify(&dst->d, &dst->info);
    return CLI_OK;
}

/* ---- progress ------------------------------------------------------------ */

/* n bytes as the progress line shows them: "812 MB", "2.8 GB". */
static void human(uint64_t n, char *buf, size_t cap)
{
    if (n >= 10000000000ull)
        snprintf(buf, cap, "%.0f GB", n / 1e9);
    else if (n >= 1000000000ull)
        snprintf(buf, cap, "%.1f GB", n / 1e9);
    else
        snprintf(buf, cap, "%.0f MB", n / 1e6);
}

static double seconds_since(const struct timespec *t0)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)(t.tv_sec - t0->tv_sec) + (double)(t.tv_nsec - t0->tv_nsec) / 1e9;
}

/* The progress line on a terminal (SPEC 23): a bar, the percentage, the
 * bytes done of all, the rate, the time left and the tensor being
 * written, in 79 columns, redrawn in place. */
static void show_progress(void *ctx, uint64_t done, uint64_t total, const char *label)
{
    struct cli_writer *w = ctx;
    int pct = total ? (int)(done * 100 / total) : 100;
    /* of several threads, the one that moves the percentage draws */
    if (pct <= atomic_load(&w->last_pct) || atomic_exchange(&w->last_pct, pct) >= pct)
        return;
    char bar[21], line[256], a[16], b[16], rate[24] = "", left[24] = "";
    int fill = pct * 20 / 100;
    memset(bar, '#', (size_t)fill);
    memset(bar + fill, ' ', (size_t)(20 - fill));
    bar[20] = '\0';
    human(done, a, sizeof a);
    human(total, b, sizeof b);
    double t = seconds_since(&w->start), r = t > 0.05 ? done / t : 0;
    if (r > 0 && pct < 100) {           /* the last line says what was written, no more */
        human((uint64_t)r, rate, sizeof rate);
        strcat(rate, "/s  ");
        snprintf(left, sizeof left, "%.0f s left  ", (double)(total - done) / r);
    }
    int n = snprintf(line, sizeof line, "converting [%s] %3d%%  %s of %s  %s%s%s", bar, pct,
                     a, b, rate, left, label && pct < 100 ? label : "");
    while (n > 0 && line[n - 1] == ' ')
        n--;
    if (n > 79)
        n = 79;
    fprintf(stderr, "\r%.*s\033[K", n, line);         /* the rest of the old line erased */
    if (pct == 100)
        fputc('\n', stderr);
}

/* ---- opening and committing ---------------------------------------------- */

/* The output's operations (struct tl_output), on OUT. */
static int out_write(void *ctx, const void *p, uint64_t n)
{
    return cli_out_write(&((struct cli_writer *)ctx)->out, p, n) ? -1 : 0;
}

static int out_write_at(void *ctx, const void *p, uint64_t n, uint64_t at)
{
    struct cli_writer *w = ctx;
    if (cli_out_pwrite(&w->out, p, n, at) == CLI_OK)
        return 0;
    if (!atomic_exchange(&w->failed, true))
        cli_report_errno(w->out.name, "cannot write");     /* the first thread to fail */
    return -1;
}

static int out_resize(void *ctx, uint64_t size)
{
    struct cli_writer *w = ctx;
    if (ftruncate(w->out.fd, (off_t)size) == 0)
        return 0;
    cli_report_errno(w->out.name, "cannot write");
    return -1;
}

static int out_seek(void *ctx, uint64_t pos)
{
    struct cli_writer *w = ctx;
    if (lseek(w->out.fd, (off_t)pos, SEEK_SET) >= 0)
        return 0;
    cli_report_errno(w->out.name, "cannot write");
    return -1;
}

static int out_region(void *ctx, uint64_t at, uint64_t n, uint8_t **p)
{
    return cli_out_region(&((struct cli_writer *)ctx)->out, at, n, p) ? -1 : 0;
}

static int out_region_done(void *ctx, uint64_t at, uint64_t n, uint8_t *p, bool keep)
{
    return cli_out_region_done(&((struct cli_writer *)ctx)->out, at, n, p, keep) ? -1 : 0;
}

int cli_writer_open(struct cli_writer *w, const char *path, uint64_t total, unsigned threads,
                    bool progress, struct cli_out *also)
{
    memset(w, 0, sizeof *w);
    w->seq = !cli_out_is_stream(path);
    w->last_pct = -1;
    clock_gettime(CLOCK_MONOTONIC, &w->start);
    w->o = (struct tl_output){
        .name = w->out.name, .ctx = w, .write = out_write, .seekable = w->seq, .fd = -1,
        .write_at = w->seq ? out_write_at : NULL, .resize = w->seq ? out_resize : NULL,
        .seek = w->seq ? out_seek : NULL, .region = out_region,
        .region_done = out_region_done, .progress = progress ? show_progress : NULL,
    };
    w->also = also;
    int rc;
    if (also && !w->seq && (rc = cli_out_commit(also)))
        return rc;
    if (also && !w->seq)
        w->also = NULL;                /* a stream cannot wait: it is in place */
    rc = w->seq ? cli_out_open_seq(&w->out, path) : cli_out_open_stream(&w->out, path);
    if (rc && w->also)
        cli_out_abort(w->also);
    w->o.fd = w->seq ? w->out.fd : -1;
    tl_writer_init(&w->w, &w->o, total, threads);
    return rc;
}

int cli_writer_status(struct cli_writer *w, int rc, const struct tl_error *err)
{
    if (rc == 0)
        return CLI_OK;
    if (rc == TL_E_IO)
        return CLI_IO;                  /* the output said why */
    if (rc == TL_E_NOMEM)
        return cli_oom();
    cli_report(w->w.blame ? w->w.blame : w->out.name, err);
    return CLI_INVALID;
}

int cli_writer_commit(struct cli_writer *w)
{
    tl_writer_free(&w->w);
    if (!w->seq)
        return cli_out_close_stream(&w->out);
    int rc = w->also ? cli_out_commit(w->also) : CLI_OK;
    if (rc == CLI_OK)
        rc = cli_out_commit(&w->out);
    else
        cli_out_abort(&w->out);
    return rc;
}

void cli_writer_abort(struct cli_writer *w)
{
    tl_writer_free(&w->w);
    if (!w->seq) {
        cli_out_close_stream(&w->out);
        return;
    }
    if (w->also)
        cli_out_abort(w->also);
    cli_out_abort(&w->out);
}
