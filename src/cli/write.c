/*
 * write.c - the one output writer: OUT opened (a temporary file beside it,
 * or a stream: a pipe, a device, '-'), a format's header, the copy engine's
 * windows written in order, progress on a terminal, and the commit or the
 * removal.  Every command that writes tensors writes them through it.
 *
 * Calling sequence:
 *
 *     struct cli_writer w;
 *     cli_writer_open(&w, path, total_bytes, threads, progress, also)
 *     cli_writer_put(&w, header, hlen)                 bytes as they are
 *     cli_writer_tensor(&w, &src, src_file, &dst, end, fill)
 *     ...                                              (more puts and tensors)
 *     cli_writer_commit(&w)  or  cli_writer_abort(&w)
 *
 * A tensor is written from its destination description, whose byteOffset
 * is a position in OUT at or after what was written so far.  Its bytes are
 * built in windows of at most WINDOW bytes, slab by slab of its outermost
 * axis (tl_copy_slab), by a helper thread while the caller writes the
 * previous window out, so no full-size copy sits in between.  A
 * destination that does not cut into such slabs is copied straight into a
 * mapping of that part of OUT's temporary file (a buffer for a stream).
 *
 * `also` is another output that goes with OUT (convert's --out-desc): it
 * is committed before OUT, so that after a failure OUT is as it was; for a
 * stream, which cannot wait, it is committed before the first byte.
 */
#define _GNU_SOURCE 1               /* MADV_HUGEPAGE, copy_file_range */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "cli.h"

/* Bytes of an output built at once before it is written out: small enough
 * to stay in the caches, so that write() copies it from there.  A regular
 * file is written this way too: mapping it instead costs the kernel a
 * zeroed page per 4 KiB faulted in (on tmpfs, 60% of the CPU time of a
 * 103 MB conversion went to clearing pages); written in order, its pages
 * are filled by the copy itself (CPU time 2.0x -> 1.2x cat's).  Two windows
 * of 512 KiB stay in a core's L2 cache (AMD EPYC Zen 3, 512 KiB L2 per
 * core), and a tensor of a few MB is several windows, so building one
 * overlaps writing the last: a 1.1 GB model, OIHW -> OHWI + BFLOAT16 (4.7 MB
 * a tensor), farm-bench medians against cat: 4 MiB windows 1.04x cat's
 * time, 512 KiB 0.76x; FLOAT32 -> BFLOAT16 0.86x -> 0.81x. */
#define WINDOW (512ull << 10)

/* The input file's bytes that a window's slabs read, when they are no more
 * than this (and no more than 4 times the elements' own bytes), are read
 * into memory of the writer's own (cli_data_read) and the window is built
 * from there: a 103 MB FLOAT32 NCHW file on tmpfs converted to NHWC in
 * 81 ms through the mapping, in 42 ms so, against cat's 33-40 (AMD EPYC Zen
 * 5 guest). */
#define STAGE_MAX (16ull << 20)

/* A slab (one index of the destination's outermost axis) larger than this
 * is not built in a window of its own: a window holds at least one slab,
 * and two windows of 16 MiB, as large as a last-level cache, are as much
 * memory as the writer takes; such a destination is copied into a mapping
 * of OUT's temporary file instead. */
#define SLAB_MAX (16ull << 20)

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
static void show_progress(struct cli_writer *w, uint64_t done)
{
    if (!w->progress)
        return;
    if (w->shared)
        done = atomic_load(&w->shared->done);
    int pct = w->total ? (int)(done * 100 / w->total) : 100;
    if (pct <= w->last_pct)
        return;
    w->last_pct = pct;
    /* of several forks, the one that moves the shared percentage draws */
    if (w->shared && atomic_exchange(&w->shared->last_pct, pct) >= pct)
        return;
    char bar[21], line[256], a[16], b[16], rate[24] = "", left[24] = "";
    int fill = pct * 20 / 100;
    memset(bar, '#', (size_t)fill);
    memset(bar + fill, ' ', (size_t)(20 - fill));
    bar[20] = '\0';
    human(done, a, sizeof a);
    human(w->total, b, sizeof b);
    double t = seconds_since(&w->start), r = t > 0.05 ? done / t : 0;
    if (r > 0 && pct < 100) {           /* the last line says what was written, no more */
        human((uint64_t)r, rate, sizeof rate);
        strcat(rate, "/s  ");
        snprintf(left, sizeof left, "%.0f s left  ", (double)(w->total - done) / r);
    }
    const char *label = w->shared ? atomic_load(&w->shared->label) : w->label;
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

void cli_writer_label(struct cli_writer *w, const char *name)
{
    w->label = name;
    if (w->shared)
        atomic_store(&w->shared->label, name);
}

/* ---- opening and committing ---------------------------------------------- */

int cli_writer_open(struct cli_writer *w, const char *path, uint64_t total, unsigned threads,
                    bool progress, struct cli_out *also)
{
    memset(w, 0, sizeof *w);
    w->seq = !cli_out_is_stream(path);
    w->total = total;
    w->threads = tl_copy_threads(threads);
    w->progress = progress;
    w->last_pct = -1;
    clock_gettime(CLOCK_MONOTONIC, &w->start);
    w->also = also;
    int rc;
    if (also && !w->seq && (rc = cli_out_commit(also)))
        return rc;
    if (also && !w->seq)
        w->also = NULL;                /* a stream cannot wait: it is in place */
    rc = w->seq ? cli_out_open_seq(&w->out, path) : cli_out_open_stream(&w->out, path);
    if (rc && w->also)
        cli_out_abort(w->also);
    return rc;
}

/* Frees the memory windows are built in. */
static void drop_windows(struct cli_writer *w)
{
    free(w->win[0]);
    free(w->win[1]);
    cli_buf_free(&w->stage);
    w->win[0] = w->win[1] = NULL;
    w->cap = 0;
}

int cli_writer_commit(struct cli_writer *w)
{
    drop_windows(w);
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
    drop_windows(w);
    if (!w->seq) {
        cli_out_close_stream(&w->out);
        return;
    }
    if (w->also)
        cli_out_abort(w->also);
    cli_out_abort(&w->out);
}

int cli_writer_presize(struct cli_writer *w)
{
    if (w->seq && ftruncate(w->out.fd, (off_t)w->total) != 0) {
        cli_report_errno(w->out.name, "cannot write");
        return CLI_IO;
    }
    return CLI_OK;
}

void cli_writer_fork(const struct cli_writer *w, struct cli_writer *fork,
                     struct cli_shared_progress *shared)
{
    *fork = *w;
    fork->at = true;
    fork->also = NULL;
    fork->threads = 1;
    fork->win[0] = fork->win[1] = NULL;
    fork->cap = 0;
    fork->stage = (struct cli_buf){ NULL, 0 };
    fork->crc_on = false;
    fork->shared = shared;
    fork->overflow = 0;
}

void cli_writer_release(struct cli_writer *fork)
{
    drop_windows(fork);
}

int cli_writer_seek(struct cli_writer *w, uint64_t pos)
{
    if (!w->seq || (!w->at && lseek(w->out.fd, (off_t)pos, SEEK_SET) < 0)) {
        cli_report_errno(w->out.name, "cannot write");
        return CLI_IO;
    }
    w->pos = pos;
    if (!w->at)
        show_progress(w, pos);          /* after forks: where they left it */
    return CLI_OK;
}

/* ---- bytes --------------------------------------------------------------- */

/* Makes sure both windows hold at least n bytes. */
static int windows(struct cli_writer *w, size_t n)
{
    if (n <= w->cap)
        return CLI_OK;
    free(w->win[0]);
    free(w->win[1]);
    w->win[0] = cli_huge_alloc(n);
    w->win[1] = cli_huge_alloc(n);
    w->cap = w->win[0] && w->win[1] ? n : 0;
    if (!w->cap) {
        cli_oom();
        return CLI_IO;
    }
    return CLI_OK;
}

int cli_writer_put(struct cli_writer *w, const void *p, uint64_t n)
{
    int rc = w->at ? cli_out_pwrite(&w->out, p, n, w->pos) : cli_out_write(&w->out, p, n);
    if (rc != CLI_OK && w->at && !atomic_exchange(&w->shared->failed, true))
        cli_report_errno(w->out.name, "cannot write");     /* the first fork to fail */
    if (rc == CLI_OK)
        w->pos += n;
    if (rc == CLI_OK && w->shared)
        atomic_fetch_add(&w->shared->done, n);
    if (rc == CLI_OK && w->crc_on)
        w->crc = (uint32_t)crc32_z(w->crc, p, (size_t)n);
    return rc;
}

/* Bytes a copy_file_range() call moves at most: the progress bar's step. */
#define CARRY_STEP (64ull << 20)

int cli_writer_carry(struct cli_writer *w, const struct cli_data *in, uint64_t at, uint64_t n)
{
    /* A CRC (a stored .npz member) needs the bytes in hand; a stream is
     * not a regular file.  Where the kernel cannot copy these two files
     * (an old kernel across file systems; EXDEV, EINVAL, EOPNOTSUPP), the
     * rest goes through write(), which reports a real failure itself. */
    while (w->seq && !w->crc_on && in->has_fd && n > 0) {
        off_t off = (off_t)at, to = (off_t)w->pos;
        ssize_t r = copy_file_range(in->fd, &off, w->out.fd, w->at ? &to : NULL,
                                    (size_t)(n < CARRY_STEP ? n : CARRY_STEP), 0);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        at += (uint64_t)r;
        n -= (uint64_t)r;
        w->pos += (uint64_t)r;
        if (w->shared)
            atomic_fetch_add(&w->shared->done, (uint64_t)r);
        show_progress(w, w->pos);
    }
    return n ? cli_writer_put(w, in->bytes + at, n) : CLI_OK;
}

static int put_writer(void *ctx, const uint8_t *bytes, size_t n)
{
    return cli_writer_put(ctx, bytes, n) == CLI_OK ? 0 : -1;
}

int cli_writer_member(struct cli_writer *w, const struct cli_data *zip,
                      const struct tl_file_tensor *t)
{
    struct tl_error err = { 0 };
    char q[64];
    int rc = tl_file_decode(zip->bytes, zip->size, t, put_writer, w, &err);
    if (rc == -1)
        return CLI_IO;             /* cli_out_write said why */
    if (rc)
        cli_error("%s: member '%s': %s: %s", zip->name,
                tl_quote(t->name, q, sizeof q), err.key, err.msg);
    return rc == 0 ? CLI_OK : rc == TL_E_NOMEM ? CLI_IO : CLI_INVALID;
}

/* Writes zero bytes up to position `to`. */
static int zeros_to(struct cli_writer *w, uint64_t to)
{
    int rc = CLI_OK;
    while (rc == CLI_OK && w->pos < to) {
        uint64_t n = to - w->pos > WINDOW ? WINDOW : to - w->pos;
        if ((rc = windows(w, WINDOW)) == CLI_OK) {
            memset(w->win[0], 0, (size_t)n);
            rc = cli_writer_put(w, w->win[0], n);
        }
    }
    return rc;
}

/* Fills the element slots of [lo, hi) of OUT, held at win: the slots of d
 * from its byteOffset on, whole ones before `end` (a trailing partial slot
 * stays zero), with fill; the other bytes zero.  A window the copy covers
 * whole (a packed destination, no fill) is left as it is. */
static void fill_window(uint8_t *win, uint64_t lo, uint64_t hi, const struct tl_desc *d,
                        uint64_t end, const uint8_t *fill, bool covered)
{
    unsigned es = tl_dtype_size(d->dtype);
    uint64_t origin = tl_desc_origin(d);
    if (covered)
        return;
    memset(win, 0, (size_t)(hi - lo));
    if (!fill)
        return;
    uint64_t first = lo <= origin ? origin : origin + (lo - origin + es - 1) / es * es;
    uint64_t last = origin + (end - origin) / es * es;   /* whole slots */
    if (last > hi)
        last = hi;
    if (first < last)
        tl_copy_fill(win + (first - lo), (last - first) / es, fill, es);
}

/* ---- a tensor, in windows of slabs --------------------------------------- */

/* The destination's slabs, built window after window, into two windows in
 * turn: by a helper thread while the caller writes the other one out (the
 * copy and the kernel's copy into the file overlap), or by the caller
 * itself with one thread. */
struct slabs {
    const struct tl_desc *s, *d;
    const uint8_t *bytes, *fill;
    const struct cli_data *in;     /* the input file whose mapping bytes is, or NULL */
    struct cli_writer *w;          /* its stage */
    unsigned axis, threads;
    uint64_t n0, per, step, start, end;
    bool covered;
    uint8_t *win[2];
    uint64_t lo[2], hi[2];
    bool full[2], stop;
    bool overflowed;               /* a conversion made a finite value +-Inf */
    char err[256];                 /* a copy that failed, its message */
    pthread_mutex_t mu;
    pthread_cond_t cv;
};

/* The input's bytes that slabs [i0, i1) read, in the writer's stage
 * (STAGE_MAX says when), with *at the file position of its first byte; or
 * NULL: the slabs read the input's mapping. */
static const uint8_t *stage_slabs(struct slabs *b, uint64_t i0, uint64_t i1, uint64_t *at)
{
    uint64_t lo, hi;
    if (!b->in)
        return NULL;
    uint64_t used = tl_copy_slab_reach(b->s, b->axis, i0, i1, &lo, &hi), n = hi - lo;
    if (n > STAGE_MAX || n / 4 > used)
        return NULL;
    *at = lo;
    return cli_data_read(b->in, lo, n, &b->w->stage);
}

/* Builds window number k (its slabs from k * per on) into win[k % 2]. */
static void build_window(struct slabs *b, uint64_t k)
{
    unsigned h = (unsigned)(k % 2);
    uint64_t i0 = k * b->per, i1 = b->n0 - i0 < b->per ? b->n0 : i0 + b->per;
    uint64_t lo = b->start + i0 * b->step, hi = b->start + i1 * b->step;
    if (hi > b->end)
        hi = b->end;
    fill_window(b->win[h], lo, hi, b->d, b->end, b->fill, b->covered);
    struct tl_error err = { 0 };
    uint64_t at = 0;
    const uint8_t *from = stage_slabs(b, i0, i1, &at);
    if (!from) {
        from = b->bytes;
        at = 0;
    }
    int r = tl_copy_slab(b->s, from, at, b->d, b->axis, i0, i1, b->win[h], lo, b->threads, &err);
    pthread_mutex_lock(&b->mu);
    if (r && r != TL_E_RANGE && !b->err[0])
        snprintf(b->err, sizeof b->err, "%s", err.msg[0] ? err.msg : "cannot copy");
    b->overflowed |= r == TL_E_RANGE;
    b->lo[h] = lo;
    b->hi[h] = hi;
    b->full[h] = true;
    pthread_cond_broadcast(&b->cv);
    pthread_mutex_unlock(&b->mu);
}

static void *slab_builder(void *arg)
{
    struct slabs *b = arg;
    uint64_t count = (b->n0 + b->per - 1) / b->per;
    for (uint64_t k = 0; k < count; k++) {
        pthread_mutex_lock(&b->mu);
        while (b->full[k % 2] && !b->stop)
            pthread_cond_wait(&b->cv, &b->mu);
        bool stop = b->stop;
        pthread_mutex_unlock(&b->mu);
        if (stop)
            break;
        build_window(b, k);
    }
    return NULL;
}

/* Writes the slabs of d's axis, from d's byteOffset on. */
static int write_slabs(struct cli_writer *w, struct slabs *b)
{
    int rc = windows(w, (size_t)(b->per * b->step > WINDOW ? b->per * b->step : WINDOW));
    if (rc)
        return rc;
    b->win[0] = w->win[0];
    b->win[1] = w->win[1];
    pthread_mutex_init(&b->mu, NULL);
    pthread_cond_init(&b->cv, NULL);
    pthread_t helper;
    uint64_t count = (b->n0 + b->per - 1) / b->per;
    bool helped = w->threads > 1 && count > 1 &&
                  pthread_create(&helper, NULL, slab_builder, b) == 0;
    for (uint64_t k = 0; rc == CLI_OK && k < count; k++) {
        unsigned h = (unsigned)(k % 2);
        if (!helped)
            build_window(b, k);
        pthread_mutex_lock(&b->mu);
        while (!b->full[h])
            pthread_cond_wait(&b->cv, &b->mu);
        pthread_mutex_unlock(&b->mu);
        if (b->err[0]) {
            cli_error("%s: %s", w->out.name, b->err);
            rc = CLI_INVALID;
            break;
        }
        rc = cli_writer_put(w, b->win[h], b->hi[h] - b->lo[h]);
        show_progress(w, w->pos);
        pthread_mutex_lock(&b->mu);
        b->full[h] = false;
        pthread_cond_broadcast(&b->cv);
        pthread_mutex_unlock(&b->mu);
    }
    if (helped) {
        pthread_mutex_lock(&b->mu);
        b->stop = true;
        pthread_cond_broadcast(&b->cv);
        pthread_mutex_unlock(&b->mu);
        pthread_join(helper, NULL);
    }
    pthread_cond_destroy(&b->cv);
    pthread_mutex_destroy(&b->mu);
    return rc;
}

/* ---- a tensor, whole ------------------------------------------------------ */

struct region_progress {
    struct cli_writer *w;
    uint64_t lo, len;
};

static void region_progress(uint64_t done, uint64_t total, void *ctx)
{
    struct region_progress *r = ctx;
    show_progress(r->w, r->lo + (total ? (uint64_t)((unsigned __int128)r->len * done / total)
                                       : r->len));
}

/* Copies the tensor into OUT's bytes [d's byteOffset, end) at once: a
 * mapping of the temporary file, or a buffer for a stream. */
static int write_whole(struct cli_writer *w, const struct tl_desc *src, const uint8_t *src_file,
                       const struct tl_desc *d, uint64_t end, const uint8_t *fill)
{
    uint64_t lo = w->pos, len = end - lo;
    unsigned es = tl_dtype_size(d->dtype);
    uint8_t *p;
    int rc = cli_out_region(&w->out, lo, len, &p);
    if (rc)
        return rc;
    if (fill && tl_dtype_bits(d->dtype) == 4)   /* every nibble after byteOffset */
        memset(p, (fill[0] & 15) * 0x11, (size_t)len);
    else if (fill)          /* every element-sized slot after byteOffset */
        tl_copy_fill(p, len / es, fill, es);
    struct tl_desc at = *d;
    at.byte_offset = at.file_offset = 0;     /* the region starts at element 0's place */
    struct tl_error err = { 0 };
    struct tl_copy_plan *plan = tl_copy_plan_new(src, &at, &err);
    if (!plan) {
        if (err.code == TL_E_NOMEM)
            cli_oom();
        else
            cli_error("%s: %s: %s", w->out.name, err.key, err.msg);
        cli_out_region_done(&w->out, lo, len, p, false);
        return err.code == TL_E_NOMEM ? CLI_IO : CLI_INVALID;
    }
    struct region_progress rp = { w, lo, len };
    if (tl_copy_run(plan, src_file, p, w->threads, region_progress, &rp) == 1)
        w->overflow = tl_convert_count_overflow(src, src_file, d->dtype);
    tl_copy_plan_free(plan);
    if (w->crc_on)
        w->crc = (uint32_t)crc32_z(w->crc, p, (size_t)len);
    if ((rc = cli_out_region_done(&w->out, lo, len, p, true)) == CLI_OK)
        w->pos = end;
    return rc;
}

/* Each decoded piece of FLOAT32 values, converted into the destination's
 * type (convert_piece), then written. */
struct decoded {
    struct cli_writer *w;
    enum tl_dtype dt;
    bool typed;                         /* the pieces are of type dt already */
    uint64_t overflow;                  /* values that became +-Inf as dt */
};

/* n bytes of FLOAT32 values at bytes (x->typed: of type x->dt), as x->dt
 * into out (room for WINDOW bytes): @return the bytes, or 0 when they do
 * not fit. */
static size_t convert_piece(struct decoded *x, const uint8_t *bytes, size_t n, uint8_t *out)
{
    uint64_t count = n / 4, len = x->typed ? n : tl_dtype_bytes(x->dt, count);
    if (len > WINDOW)
        return 0;
    if (x->dt == TL_DT_FLOAT32 || x->typed) {
        memcpy(out, bytes, (size_t)len);
    } else if (tl_copy_convert(TL_DT_FLOAT32, bytes, x->dt, out, count) == 1) {
        struct tl_desc piece = { .dtype = TL_DT_FLOAT32, .rank = 1, .sizes = { count },
                                 .strides = { 1 } };
        if (tl_desc_validate(&piece, NULL) == 0)
            x->overflow += tl_convert_count_overflow(&piece, bytes, x->dt);
    }
    return (size_t)len;
}

static int put_decoded(void *ctx, const uint8_t *bytes, size_t n)
{
    struct decoded *x = ctx;
    struct cli_writer *w = x->w;
    int rc;
    if (x->dt == TL_DT_FLOAT32 || x->typed) {
        rc = cli_writer_put(w, bytes, n);
    } else {
        size_t out;
        if ((rc = windows(w, WINDOW)) != CLI_OK || !(out = convert_piece(x, bytes, n, w->win[0])))
            return -1;
        rc = cli_writer_put(w, w->win[0], out);
    }
    show_progress(w, w->pos);
    return rc == CLI_OK ? 0 : -1;
}

/* Decoding and writing side by side: a thread decodes (and converts) the
 * pieces into two slots in turn while the caller writes the other, so the
 * write, the one copy cat makes too, is most of the time (SPEC 16, 18).
 * What the thread runs is a producer: every piece of FLOAT32 values of the
 * tensor (or of the destination's type, typed), in order, through
 * put(put_ctx, ...); it returns 0, -1 when put failed, or a TL_E_* code
 * with err filled. */
typedef int (*produce_fn)(const void *src, tl_put_fn put, void *put_ctx, struct tl_error *err);

struct pipeline {
    struct decoded x;                   /* the conversion of a piece */
    uint8_t *slot[2];
    size_t len[2];
    bool full[2], done, stop;
    int put_next, rc;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    produce_fn produce;
    const void *src;
    struct tl_error err;
};

static int put_slot(void *ctx, const uint8_t *bytes, size_t n)
{
    struct pipeline *p = ctx;
    int k = p->put_next;
    pthread_mutex_lock(&p->mu);
    while (p->full[k] && !p->stop)
        pthread_cond_wait(&p->cv, &p->mu);
    bool stop = p->stop;
    pthread_mutex_unlock(&p->mu);
    if (stop)
        return -1;
    if (!(p->len[k] = convert_piece(&p->x, bytes, n, p->slot[k])))
        return -1;
    pthread_mutex_lock(&p->mu);
    p->full[k] = true;
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->mu);
    p->put_next ^= 1;
    return 0;
}

static void *decoder(void *arg)
{
    struct pipeline *p = arg;
    int rc = p->produce(p->src, put_slot, p, &p->err);
    pthread_mutex_lock(&p->mu);
    p->rc = rc;
    p->done = true;
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

/* Writes what produce(src) decodes, converted to dt (typed: made of type
 * dt already, put as it is): on a thread of its own beside the writes, or in turn with them on one thread.  @return the
 * writes' CLI_OK or CLI_IO (after a message), and the producer's result in
 * *prc and err. */
static int pipeline_run(struct cli_writer *w, enum tl_dtype dt, bool typed, produce_fn produce,
                        const void *src, int *prc, struct tl_error *err)
{
    struct pipeline p = { .x = { w, dt, typed }, .produce = produce, .src = src };
    pthread_t tid;
    /* one thread: decoded and written in turn */
    if (w->threads == 1 || !(p.slot[0] = malloc(WINDOW)) || !(p.slot[1] = malloc(WINDOW)) ||
        pthread_mutex_init(&p.mu, NULL) != 0) {
        free(p.slot[0]);
        free(p.slot[1]);
        *prc = produce(src, put_decoded, &p.x, err);
        w->overflow = p.x.overflow;
        return *prc == -1 ? CLI_IO : CLI_OK;
    }
    pthread_cond_init(&p.cv, NULL);
    int rc = CLI_OK, cur = 0;
    bool started = pthread_create(&tid, NULL, decoder, &p) == 0;
    if (!started)
        decoder(&p);
    for (;;) {
        pthread_mutex_lock(&p.mu);
        while (!p.full[cur] && !p.done)
            pthread_cond_wait(&p.cv, &p.mu);
        bool have = p.full[cur];
        pthread_mutex_unlock(&p.mu);
        if (!have)
            break;
        if (rc == CLI_OK)
            rc = cli_writer_put(w, p.slot[cur], p.len[cur]);
        show_progress(w, w->pos);
        pthread_mutex_lock(&p.mu);
        p.full[cur] = false;
        p.stop |= rc != CLI_OK;
        pthread_cond_broadcast(&p.cv);
        pthread_mutex_unlock(&p.mu);
        cur ^= 1;
    }
    if (started)
        pthread_join(tid, NULL);
    pthread_cond_destroy(&p.cv);
    pthread_mutex_destroy(&p.mu);
    free(p.slot[0]);
    free(p.slot[1]);
    *prc = p.rc;
    *err = p.err;
    w->overflow = p.x.overflow;
    return rc != CLI_OK || p.rc == -1 ? CLI_IO : CLI_OK;
}

/* ---- a scaled weight's values (fill) --------------------------------------- */

struct floats {
    uint64_t count;
    enum tl_dtype dt;
    int (*fill)(void *ctx, uint64_t first, uint64_t n, enum tl_dtype dt, void *out);
    void *ctx;
};

/* Pieces of the destination's type, a slot's worth each, that the fill
 * makes in one pass (put as they are: the pipeline's x.typed). */
static int produce_floats(const void *src, tl_put_fn put, void *put_ctx, struct tl_error *err)
{
    const struct floats *f = src;
    unsigned des = tl_dtype_size(f->dt);
    uint64_t piece = WINDOW / des;
    uint8_t *buf = malloc(WINDOW);
    if (!buf)
        return tl_fail(err, TL_E_NOMEM, NULL, "out of memory");
    int rc = 0;
    for (uint64_t at = 0; rc == 0 && at < f->count; at += piece) {
        uint64_t n = f->count - at < piece ? f->count - at : piece;
        if (f->fill(f->ctx, at, n, f->dt, buf))
            rc = tl_fail(err, TL_E_VALUE, "", "a scaled tensor cannot be decoded in place");
        else
            rc = put(put_ctx, buf, (size_t)(n * des));
    }
    free(buf);
    return rc;
}

int cli_writer_floats(struct cli_writer *w, enum tl_dtype dt, uint64_t count,
                      int (*fill)(void *ctx, uint64_t first, uint64_t n, enum tl_dtype dt,
                                  void *out),
                      void *ctx)
{
    struct floats f = { count, dt, fill, ctx };
    struct tl_error err = { 0 };
    int prc, rc = pipeline_run(w, dt, true, produce_floats, &f, &prc, &err);
    if (rc != CLI_OK)
        return rc;                  /* the write said why */
    if (prc == TL_E_NOMEM)
        cli_oom();
    else if (prc)
        cli_error("%s: %s", w->out.name, err.msg);
    return prc == 0 ? CLI_OK : prc == TL_E_NOMEM ? CLI_IO : CLI_INVALID;
}

/* ---- a tensor's encoded blocks (tl_file_decode) ---------------------------- */

struct encoded {
    const struct cli_data *in;
    const struct tl_file_tensor *t;
    struct cli_buf *buf;
};

/* Stored bytes of a tensor read at once, where its encoding cuts into
 * pieces (tl_file_piece), into memory that stays in the caches. */
#define PIECE_MAX (512ull << 10)

/* The tensor decoded in pieces read into memory of the writer's own (as
 * STAGE_MAX says of windows: through the mapping, each 4 KiB page costs a
 * fault and a page-table walk); from the mapping where it does not cut
 * into pieces or the read fails. */
static int produce_encoded(const void *src, tl_put_fn put, void *put_ctx, struct tl_error *err)
{
    const struct encoded *e = src;
    const struct tl_file_tensor *t = e->t;
    struct tl_file_tensor part;
    uint64_t from = 0, n;
    if (t->stored_at > e->in->size || t->stored_bytes > e->in->size - t->stored_at)
        return tl_file_decode(e->in->bytes, e->in->size, t, put, put_ctx, err);   /* says why */
    while ((n = tl_file_piece(t, from, PIECE_MAX, &part))) {
        const uint8_t *p = cli_data_read(e->in, t->stored_at + from, n, e->buf);
        int rc = tl_file_decode(p ? p : e->in->bytes + t->stored_at + from, n, &part, put,
                                put_ctx, err);
        if (rc)
            return rc;
        from += n;
    }
    return from ? 0 : tl_file_decode(e->in->bytes, e->in->size, t, put, put_ctx, err);
}

int cli_writer_decoded(struct cli_writer *w, const struct cli_data *in,
                       const struct tl_file_tensor *t, const struct tl_desc *d)
{
    struct encoded e = { in, t, &w->stage };
    struct tl_error err = { 0 };
    char q[64];
    int prc, rc = pipeline_run(w, d->dtype, false, produce_encoded, &e, &prc, &err);
    if (rc != CLI_OK)
        return rc;                  /* the write said why */
    if (prc)
        cli_error("%s: tensor '%s': %s: %s", in->name,
                tl_quote(t->name, q, sizeof q), err.key, err.msg);
    return prc == 0 ? CLI_OK : prc == TL_E_NOMEM ? CLI_IO : CLI_INVALID;
}

/* Whether destination d of src is built in windows, slab by slab of its
 * *axis (into a regular file, seq; a stream takes a slab of any size). */
static bool slab_axis(const struct tl_desc *src, const struct tl_desc *d, bool seq,
                      unsigned *axis)
{
    /* 4-bit tensors are copied whole: a slab may start on a high nibble */
    bool nib = tl_dtype_bits(d->dtype) == 4 || tl_dtype_bits(src->dtype) == 4;
    return !nib && tl_copy_slab_axis(d, axis) == 0 &&
           !(seq && d->strides[*axis] * tl_dtype_size(d->dtype) > SLAB_MAX);
}

bool cli_writer_windowed(const struct tl_desc *src, const struct tl_desc *d)
{
    unsigned axis;
    return slab_axis(src, d, true, &axis);
}

/* cli_writer_tensor, from src_file, the bytes of input in (NULL: memory). */
static int tensor_from(struct cli_writer *w, const struct tl_desc *src, const uint8_t *src_file,
                       const struct cli_data *in, const struct tl_desc *d, uint64_t end,
                       const uint8_t *fill)
{
    w->overflow = 0;
    int rc = zeros_to(w, tl_desc_origin(d));
    if (rc)
        return rc;
    struct tl_info info;
    tl_desc_classify(d, &info);
    unsigned es = tl_dtype_size(d->dtype), axis;
    if (!slab_axis(src, d, w->seq, &axis))
        return write_whole(w, src, src_file, d, end, fill);
    struct slabs b = { .s = src, .d = d, .bytes = src_file, .in = in, .w = w, .fill = fill,
                       .axis = axis,
                       .threads = w->threads > 1 ? w->threads - 1 : 1, .n0 = d->sizes[axis],
                       .step = d->strides[axis] * es, .start = tl_desc_origin(d), .end = end,
                       .covered = info.packed && !fill };
    b.per = b.step >= WINDOW ? 1 : WINDOW / b.step;
    if ((rc = write_slabs(w, &b)))
        return rc;
    if (b.overflowed)
        w->overflow = tl_convert_count_overflow(src, src_file, d->dtype);
    while (rc == CLI_OK && w->pos < end) {           /* a declared total's tail */
        uint64_t hi = end - w->pos > WINDOW ? w->pos + WINDOW / es * es : end;
        fill_window(w->win[0], w->pos, hi, d, end, fill, false);
        rc = cli_writer_put(w, w->win[0], hi - w->pos);
    }
    show_progress(w, w->pos);
    return rc;
}

int cli_writer_tensor(struct cli_writer *w, const struct tl_desc *src, const uint8_t *src_file,
                      const struct tl_desc *d, uint64_t end, const uint8_t *fill)
{
    return tensor_from(w, src, src_file, NULL, d, end, fill);
}

int cli_writer_tensor_of(struct cli_writer *w, const struct cli_data *in,
                         const struct tl_desc *src, const struct tl_desc *d, uint64_t end,
                         const uint8_t *fill)
{
    w->overflow = 0;
    int rc = zeros_to(w, tl_desc_origin(d));
    if (rc)
        return rc;
    /* one run of unchanged bytes, ending where OUT's part ends */
    struct tl_copy_plan *plan = fill ? NULL : tl_copy_plan_new(src, d, NULL);
    uint64_t from, to, len;
    bool run = plan && tl_copy_plan_is_run(plan, &from, &to, &len) && to == w->pos &&
               to + len == end && from <= in->size && len <= in->size - from;
    tl_copy_plan_free(plan);
    if (run)
        return cli_writer_carry(w, in, from, len);
    return tensor_from(w, src, in->bytes, in, d, end, fill);
}
