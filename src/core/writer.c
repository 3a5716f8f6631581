/*
 * writer.c - the one writer of tensor files' bytes (tl_io.h): a format's
 * header, the copy engine's windows written in order, through the
 * caller's output.  Every tensor the library writes goes through it.
 *
 * A tensor is written from its destination description, whose byteOffset
 * is a position in the output at or after what was written so far.  Its
 * bytes are built in windows of at most WINDOW bytes, slab by slab of its
 * outermost axis (tl_copy_slab), by a helper thread while the caller
 * writes the previous window out, so no full-size copy sits in between.  A
 * destination that does not cut into such slabs is copied straight into a
 * region of the output (a mapping of a regular file, memory for a
 * stream).
 */
#define _GNU_SOURCE 1               /* copy_file_range */
#include <errno.h>
#include <stdio.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "internal.h"
#include "tl_copy.h"
#include "tl_io.h"

/* Bytes of an output built at once before it is written out: small enough
 * to stay in the caches, so that write() copies it from there.  A regular
 * file is written this way too: mapping it instead costs the kernel a
 * zeroed page per 4 KiB faulted in (on tmpfs, 60% of the CPU time of a
 * 103 MB conversion went to clearing pages); written in order, its pages
 * are filled by the copy itself (CPU time 2.0x -> 1.2x cat's).  Two windows
 * of 512 KiB stay in a core's L2 cache (AMD EPYC Zen 3, 512 KiB L2 per
 * core), and a tensor of a few MB is several windows, so building one
 * overlaps writing the last: a 1.1 GB model, OIHW -> OHWI + BFLOAT16 (4.7 MB
 * a tensor), whole-process medians against cat: 4 MiB windows 1.04x cat's
 * time, 512 KiB 0.76x; FLOAT32 -> BFLOAT16 0.86x -> 0.81x. */
#define WINDOW (512ull << 10)

/* The input file's bytes that a window's slabs read, when they are no more
 * than this (and no more than 4 times the elements' own bytes), are read
 * into memory of the writer's own (tl_input_read) and the window is built
 * from there: a 103 MB FLOAT32 NCHW file on tmpfs converted to NHWC in
 * 81 ms through the mapping, in 42 ms so, against cat's 33-40 (AMD EPYC Zen
 * 5 guest). */
#define STAGE_MAX (16ull << 20)

/* A slab (one index of the destination's outermost axis) larger than this
 * is not built in a window of its own: a window holds at least one slab,
 * and two windows of 16 MiB, as large as a last-level cache, are as much
 * memory as the writer takes; such a destination is copied into a mapping
 * of the output instead. */
#define SLAB_MAX (16ull << 20)

/* ---- the writer ----------------------------------------------------------- */

void tl_writer_init(struct tl_writer *w, const struct tl_output *out, uint64_t total,
                    unsigned threads)
{
    memset(w, 0, sizeof *w);
    w->out = out;
    w->total = total;
    w->threads = tl_copy_threads(threads);
}

void tl_writer_free(struct tl_writer *w)
{
    free(w->win[0]);
    free(w->win[1]);
    tl_buf_free(&w->stage);
    w->win[0] = w->win[1] = NULL;
    w->cap = 0;
}

/* Tells the output how far the writing is: of a fork, how far all are. */
static void progress(const struct tl_writer *w)
{
    if (!w->out->progress)
        return;
    if (w->shared)
        w->out->progress(w->out->ctx, atomic_load(&w->shared->done), w->total,
                         atomic_load(&w->shared->label));
    else
        w->out->progress(w->out->ctx, w->pos, w->total, w->label);
}

void tl_writer_label(struct tl_writer *w, const char *name)
{
    w->label = name;
    if (w->shared)
        atomic_store(&w->shared->label, name);
}

int tl_writer_presize(struct tl_writer *w)
{
    return w->out->seekable && w->out->resize(w->out->ctx, w->total) ? TL_E_IO : 0;
}

void tl_writer_fork(const struct tl_writer *w, struct tl_writer *fork,
                    struct tl_writer_shared *shared)
{
    *fork = *w;
    fork->at = true;
    fork->threads = 1;
    fork->win[0] = fork->win[1] = NULL;
    fork->cap = 0;
    fork->stage = (struct tl_buf){ NULL, 0 };
    fork->crc_on = false;
    fork->shared = shared;
    fork->overflow = 0;
}

int tl_writer_seek(struct tl_writer *w, uint64_t pos)
{
    if (!w->out->seekable)
        return tl_fail(NULL, TL_E_IO, NULL, "not seekable");
    if (!w->at && w->out->seek(w->out->ctx, pos))
        return TL_E_IO;
    w->pos = pos;
    if (!w->at)
        progress(w);                    /* after forks: where they left it */
    return 0;
}

/* ---- bytes --------------------------------------------------------------- */

static int nomem(struct tl_writer *w, struct tl_error *err)
{
    w->blame = w->out->name;
    return tl_fail(err, TL_E_NOMEM, NULL, "out of memory");
}

/* Makes sure both windows hold at least n bytes. */
static int windows(struct tl_writer *w, size_t n, struct tl_error *err)
{
    if (n <= w->cap)
        return 0;
    free(w->win[0]);
    free(w->win[1]);
    w->win[0] = tl_huge_alloc(n);
    w->win[1] = tl_huge_alloc(n);
    w->cap = w->win[0] && w->win[1] ? n : 0;
    return w->cap ? 0 : nomem(w, err);
}

int tl_writer_put(struct tl_writer *w, const void *p, uint64_t n, struct tl_error *err)
{
    (void)err;
    const struct tl_output *o = w->out;
    if (w->at ? o->write_at(o->ctx, p, n, w->pos) : o->write(o->ctx, p, n))
        return TL_E_IO;
    w->pos += n;
    if (w->shared)
        atomic_fetch_add(&w->shared->done, n);
    if (w->crc_on)
        w->crc = (uint32_t)crc32_z(w->crc, p, (size_t)n);
    return 0;
}

/* Bytes a copy_file_range() call moves at most: the progress's step. */
#define CARRY_STEP (64ull << 20)

int tl_writer_carry(struct tl_writer *w, const struct tl_input *in, uint64_t at, uint64_t n,
                    struct tl_error *err)
{
    /* A CRC (a stored .npz member) needs the bytes in hand; a stream is
     * not a regular file.  Where the kernel cannot copy these two files
     * (an old kernel across file systems; EXDEV, EINVAL, EOPNOTSUPP), the
     * rest goes through write(), which reports a real failure itself. */
    while (w->out->seekable && w->out->fd >= 0 && !w->crc_on && in->fd >= 0 && n > 0) {
        off_t off = (off_t)at, to = (off_t)w->pos;
        ssize_t r = copy_file_range(in->fd, &off, w->out->fd, w->at ? &to : NULL,
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
        progress(w);
    }
    return n ? tl_writer_put(w, in->bytes + at, n, err) : 0;
}

static int put_writer(void *ctx, const uint8_t *bytes, size_t n)
{
    return tl_writer_put(ctx, bytes, n, NULL) ? -1 : 0;
}

/* Names the tensor t of in in err's key ("tensor 'NAME': KEY"), of file in. */
static int blame_tensor(struct tl_writer *w, const struct tl_input *in, const char *what,
                        const struct tl_file_tensor *t, int rc, struct tl_error *err)
{
    if (!err || rc == TL_E_IO)
        return rc;
    if (rc == TL_E_NOMEM)
        return nomem(w, err);
    tl_error_about(err, what, t->name);
    w->blame = in->name;
    return rc;
}

int tl_writer_member(struct tl_writer *w, const struct tl_input *zip,
                     const struct tl_file_tensor *t, struct tl_error *err)
{
    int rc = tl_file_decode(zip->bytes, zip->size, t, put_writer, w, err);
    if (rc == -1)
        return TL_E_IO;             /* the output said why */
    return rc ? blame_tensor(w, zip, "member", t, rc, err) : 0;
}

/* Writes zero bytes up to position `to`. */
static int zeros_to(struct tl_writer *w, uint64_t to, struct tl_error *err)
{
    int rc = 0;
    while (rc == 0 && w->pos < to) {
        uint64_t n = to - w->pos > WINDOW ? WINDOW : to - w->pos;
        if ((rc = windows(w, WINDOW, err)) == 0) {
            memset(w->win[0], 0, (size_t)n);
            rc = tl_writer_put(w, w->win[0], n, err);
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
    const struct tl_input *in;     /* the input file whose mapping bytes is, or NULL */
    struct tl_writer *w;          /* its stage */
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
    return tl_input_read(b->in, lo, n, &b->w->stage);
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
static int write_slabs(struct tl_writer *w, struct slabs *b, struct tl_error *err)
{
    int rc = windows(w, (size_t)(b->per * b->step > WINDOW ? b->per * b->step : WINDOW), err);
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
    for (uint64_t k = 0; rc == 0 && k < count; k++) {
        unsigned h = (unsigned)(k % 2);
        if (!helped)
            build_window(b, k);
        pthread_mutex_lock(&b->mu);
        while (!b->full[h])
            pthread_cond_wait(&b->cv, &b->mu);
        pthread_mutex_unlock(&b->mu);
        if (b->err[0]) {
            w->blame = w->out->name;
            rc = tl_fail(err, TL_E_VALUE, NULL, "%s", b->err);
            break;
        }
        rc = tl_writer_put(w, b->win[h], b->hi[h] - b->lo[h], err);
        progress(w);
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
    struct tl_writer *w;
    uint64_t lo, len;
};

static void region_progress(uint64_t done, uint64_t total, void *ctx)
{
    struct region_progress *r = ctx;
    const struct tl_output *o = r->w->out;
    if (o->progress)
        o->progress(o->ctx, r->lo + (total ? (uint64_t)((unsigned __int128)r->len * done / total)
                                           : r->len), r->w->total, r->w->label);
}

/* Copies the tensor into the output's bytes [d's byteOffset, end) at
 * once, in a region of it (a mapping, or memory for a stream). */
static int write_whole(struct tl_writer *w, const struct tl_desc *src, const uint8_t *src_file,
                       const struct tl_desc *d, uint64_t end, const uint8_t *fill,
                       struct tl_error *err)
{
    const struct tl_output *o = w->out;
    uint64_t lo = w->pos, len = end - lo;
    unsigned es = tl_dtype_size(d->dtype);
    uint8_t *p;
    if (o->region(o->ctx, lo, len, &p))
        return TL_E_IO;
    if (fill && tl_dtype_bits(d->dtype) == 4)   /* every nibble after byteOffset */
        memset(p, (fill[0] & 15) * 0x11, (size_t)len);
    else if (fill)          /* every element-sized slot after byteOffset */
        tl_copy_fill(p, len / es, fill, es);
    struct tl_desc at = *d;
    at.byte_offset = at.file_offset = 0;     /* the region starts at element 0's place */
    struct tl_copy_plan *plan = tl_copy_plan_new(src, &at, err);
    if (!plan) {
        o->region_done(o->ctx, lo, len, p, false);
        w->blame = o->name;
        return err ? err->code : TL_E_VALUE;
    }
    struct region_progress rp = { w, lo, len };
    if (tl_copy_run(plan, src_file, p, w->threads, region_progress, &rp) == 1)
        w->overflow = tl_convert_count_overflow(src, src_file, d->dtype);
    tl_copy_plan_free(plan);
    if (w->crc_on)
        w->crc = (uint32_t)crc32_z(w->crc, p, (size_t)len);
    if (o->region_done(o->ctx, lo, len, p, true))
        return TL_E_IO;
    w->pos = end;
    return 0;
}

/* Each decoded piece of FLOAT32 values, converted into the destination's
 * type (convert_piece), then written. */
struct decoded {
    struct tl_writer *w;
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
    struct tl_writer *w = x->w;
    int rc;
    if (x->dt == TL_DT_FLOAT32 || x->typed) {
        rc = tl_writer_put(w, bytes, n, NULL);
    } else {
        size_t out;
        if (windows(w, WINDOW, NULL))
            return TL_E_NOMEM;
        if (!(out = convert_piece(x, bytes, n, w->win[0])))
            return -1;
        rc = tl_writer_put(w, w->win[0], out, NULL);
    }
    progress(w);
    return rc ? -1 : 0;
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
 * dt already, put as it is): on a thread of its own beside the writes, or
 * in turn with them on one thread.  @return the writes' 0 or TL_E_IO (the
 * output said why), and the producer's result in *prc and err. */
static int pipeline_run(struct tl_writer *w, enum tl_dtype dt, bool typed, produce_fn produce,
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
        return *prc == -1 ? TL_E_IO : 0;
    }
    pthread_cond_init(&p.cv, NULL);
    int rc = 0, cur = 0;
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
        if (rc == 0)
            rc = tl_writer_put(w, p.slot[cur], p.len[cur], NULL);
        progress(w);
        pthread_mutex_lock(&p.mu);
        p.full[cur] = false;
        p.stop |= rc != 0;
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
    return rc != 0 || p.rc == -1 ? TL_E_IO : 0;
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

int tl_writer_floats(struct tl_writer *w, enum tl_dtype dt, uint64_t count,
                     int (*fill)(void *ctx, uint64_t first, uint64_t n, enum tl_dtype dt,
                                 void *out),
                     void *ctx, struct tl_error *err)
{
    struct floats f = { count, dt, fill, ctx };
    struct tl_error e = { 0 };
    int prc, rc = pipeline_run(w, dt, true, produce_floats, &f, &prc, &e);
    if (rc)
        return rc;                  /* the output said why */
    if (prc == TL_E_NOMEM)
        return nomem(w, err);
    if (prc)
        w->blame = w->out->name;
    return prc ? tl_fail(err, prc, NULL, "%s", e.msg) : 0;
}

/* ---- a tensor's encoded blocks (tl_file_decode) ---------------------------- */

struct encoded {
    const struct tl_input *in;
    const struct tl_file_tensor *t;
    struct tl_buf *buf;
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
        const uint8_t *p = tl_input_read(e->in, t->stored_at + from, n, e->buf);
        int rc = tl_file_decode(p ? p : e->in->bytes + t->stored_at + from, n, &part, put,
                                put_ctx, err);
        if (rc)
            return rc;
        from += n;
    }
    return from ? 0 : tl_file_decode(e->in->bytes, e->in->size, t, put, put_ctx, err);
}

int tl_writer_decoded(struct tl_writer *w, const struct tl_input *in,
                      const struct tl_file_tensor *t, const struct tl_desc *d,
                      struct tl_error *err)
{
    struct encoded e = { in, t, &w->stage };
    struct tl_error e2 = { 0 };
    int prc, rc = pipeline_run(w, d->dtype, false, produce_encoded, &e, &prc, &e2);
    if (rc)
        return rc;                  /* the output said why */
    if (prc && err)
        *err = e2;
    return prc ? blame_tensor(w, in, "tensor", t, prc, err) : 0;
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

bool tl_writer_windowed(const struct tl_desc *src, const struct tl_desc *d)
{
    unsigned axis;
    return slab_axis(src, d, true, &axis);
}

/* tl_writer_tensor, through windows or a region. */
static int tensor_from(struct tl_writer *w, const struct tl_desc *src, const uint8_t *src_file,
                       const struct tl_input *in, const struct tl_desc *d, uint64_t end,
                       const uint8_t *fill, struct tl_error *err)
{
    struct tl_info info;
    tl_desc_classify(d, &info);
    unsigned es = tl_dtype_size(d->dtype), axis;
    if (!slab_axis(src, d, w->out->seekable, &axis))
        return write_whole(w, src, src_file, d, end, fill, err);
    struct slabs b = { .s = src, .d = d, .bytes = src_file, .in = in, .w = w, .fill = fill,
                       .axis = axis,
                       .threads = w->threads > 1 ? w->threads - 1 : 1, .n0 = d->sizes[axis],
                       .step = d->strides[axis] * es, .start = tl_desc_origin(d), .end = end,
                       .covered = info.packed && !fill };
    b.per = b.step >= WINDOW ? 1 : WINDOW / b.step;
    int rc = write_slabs(w, &b, err);
    if (rc)
        return rc;
    if (b.overflowed)
        w->overflow = tl_convert_count_overflow(src, src_file, d->dtype);
    while (rc == 0 && w->pos < end) {           /* a declared total's tail */
        uint64_t hi = end - w->pos > WINDOW ? w->pos + WINDOW / es * es : end;
        fill_window(w->win[0], w->pos, hi, d, end, fill, false);
        rc = tl_writer_put(w, w->win[0], hi - w->pos, err);
    }
    progress(w);
    return rc;
}

int tl_writer_tensor(struct tl_writer *w, const struct tl_desc *src, const uint8_t *src_file,
                     const struct tl_input *in, const struct tl_desc *d, uint64_t end,
                     const uint8_t *fill, struct tl_error *err)
{
    w->overflow = 0;
    int rc = zeros_to(w, tl_desc_origin(d), err);
    if (rc)
        return rc;
    if (in && src_file != in->bytes)
        in = NULL;                      /* memory of the caller's, not in's image */
    /* one run of unchanged bytes, ending where the output's part ends */
    struct tl_copy_plan *plan = fill || !in ? NULL : tl_copy_plan_new(src, d, NULL);
    uint64_t from, to, len;
    bool run = plan && tl_copy_plan_is_run(plan, &from, &to, &len) && to == w->pos &&
               to + len == end && from <= in->size && len <= in->size - from;
    tl_copy_plan_free(plan);
    if (run)
        return tl_writer_carry(w, in, from, len, err);
    return tensor_from(w, src, src_file, in, d, end, fill, err);
}
