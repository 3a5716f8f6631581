/*
 * whole_write.c - what the formats' whole-file writers share (tl_io.h):
 * one tensor of a planned conversion written (converted through the copy
 * engine, decoded, carried as it is), deflated members inflated once, and
 * the tensors written on several threads at once.  Each format's own file
 * writes its header and says in which order and where the tensors go.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "copy.h"
#include "internal.h"
#include "tl_io.h"

struct jobs {
    _Atomic size_t next;
    size_t n;
    void (*job)(void *ctx, unsigned who, size_t k);
    void *ctx;
};

static void jobs_member(void *arg, unsigned who)
{
    struct jobs *j = arg;
    for (size_t k; (k = atomic_fetch_add(&j->next, 1)) < j->n;)
        j->job(j->ctx, who, k);
}

void tl_jobs_run(unsigned threads, size_t n, void (*job)(void *ctx, unsigned who, size_t k),
                 void *ctx)
{
    struct jobs j = { .n = n, .job = job, .ctx = ctx };
    unsigned t = threads < n ? threads : (unsigned)n;
    if (t > TL_TEAM_MAX)
        t = TL_TEAM_MAX;
    if (t <= 1) {
        jobs_member(&j, 0);
        return;
    }
    tl_team_run(t, jobs_member, &j);
}

int tl_whole_write(struct tl_whole_job *j, enum tl_format into, const struct tl_output *out,
                   struct tl_error *err)
{
    const struct tl_format_entry *e = tl_format_entry(into);
    j->written = 0;
    j->carried = 0;
    j->blame = NULL;
    for (size_t i = 0; i < j->n; i++)
        j->carried += !j->it[i].t->decodable;
    if (!e->write) {
        j->blame = j->out_name;
        return tl_fail(err, TL_E_VALUE, NULL, "the tool does not write %s files", e->label);
    }
    return e->write(j, out, err);
}

void tl_inflated_free(const struct tl_input *in, struct tl_inflated *c)
{
    if (c->file)
        tl_input_inflated_free(in, &c->s);
    memset(c, 0, sizeof *c);
}

int tl_whole_source(const struct tl_input *in, const struct tl_file_tensor *t,
                    struct tl_inflated *cache, const uint8_t **bytes, struct tl_error *err)
{
    *bytes = in->bytes;
    if (t->encoding == TL_ENC_PLAIN)
        return 0;
    if (cache->file != in->bytes || cache->at != t->stored_at || cache->n != t->stored_bytes) {
        tl_inflated_free(in, cache);
        struct tl_scratch s;
        int rc = tl_input_inflate(in, t, &s, err);
        if (rc)
            return rc;
        *cache = (struct tl_inflated){ in->bytes, t->stored_at, t->stored_bytes, s };
    }
    *bytes = cache->s.bytes;
    return 0;
}

/* The n bytes of .npz member t's .npy data, after its header: in place,
 * or inflated first. */
static int put_npy_data(struct tl_writer *w, const struct tl_input *in,
                        const struct tl_file_tensor *t, uint64_t n, struct tl_error *err)
{
    if (!n)
        return 0;
    if (t->encoding != TL_ENC_DEFLATE)
        return tl_writer_carry(w, in, t->stored_at + t->npy_data, n, err);
    struct tl_scratch s;
    int rc = tl_input_inflate(in, t, &s, err);
    if (rc)
        w->blame = in->name;
    else
        rc = tl_writer_put(w, s.bytes + t->npy_data, n, err);
    tl_input_inflated_free(in, &s);
    return rc;
}

/* A scaled weight's values, decoded from its two tensors (scaled.c). */
struct pair_fill {
    const uint8_t *file;
    const struct tl_file *f;
    const struct tl_scaled *p;
    struct tl_scaled_cache *cache;      /* kept from piece to piece */
};

static int fill_pair(void *ctx, uint64_t first, uint64_t n, enum tl_dtype dt, void *out)
{
    struct pair_fill *pf = ctx;
    return tl_scaled_decode_as(pf->file, pf->f, pf->p, first, n, dt, out, &pf->cache);
}

int tl_whole_put(struct tl_writer *w, const struct tl_whole_job *j, struct tl_whole_item *x,
                 uint64_t end, struct tl_inflated *cache, struct tl_error *err)
{
    const struct tl_input *in = x->in ? x->in : j->in;
    const uint8_t *bytes;
    int rc;
    w->overflow = 0;
    tl_writer_label(w, x->t->name);
    if (x->pair) {
        struct pair_fill pf = { in->bytes, j->paired, x->pair, NULL };
        rc = tl_writer_floats(w, x->dst.dtype, x->bytes / tl_dtype_size(x->dst.dtype),
                              fill_pair, &pf, err);
        tl_scaled_cache_free(pf.cache);
    } else if (x->cross) {
        rc = put_npy_data(w, in, x->t, x->bytes, err);
    } else if (!x->t->decodable && j->f->format != TL_FMT_NPZ) {
        rc = tl_writer_carry(w, in, x->t->begin, x->bytes, err);
    } else if (!x->t->decodable) {
        rc = tl_writer_member(w, in, x->t, err);
    } else if (x->t->encoding == TL_ENC_GGML && !x->layout && tl_dtype_is_float(x->dst.dtype)) {
        rc = tl_writer_decoded(w, in, x->t, &x->dst, err);    /* decoded on the way out */
    } else if ((rc = tl_whole_source(in, x->t, cache, &bytes, err)) == 0) {
        rc = tl_writer_tensor(w, &x->t->desc, bytes, in, &x->dst, end, NULL, err);
    } else {
        w->blame = in->name;
    }
    x->overflow = w->overflow;
    tl_input_done_with(in, x->t->begin, x->t->end);
    return rc;
}

/* ---- tensors over threads ------------------------------------------------
 *
 * Where every tensor's place is known from the header on (a safetensors
 * output), several threads write tensors at once: each takes the next of
 * the largest first, converts it in windows of its own and writes them at
 * its place (tl_writer_fork).  The conversions overlap; the kernel's copies
 * into the file take its inode's lock in turn, and a fork waiting for it
 * spins (41% of a 2 GB FP8 model's profile on a 2-vCPU AMD EPYC guest,
 * /dev/shm).  A lock of ours around the writes, to sleep instead, measured
 * slower: whole-process medians against the one-writer build, 1 and 2 GB
 * FP8 models 1.15x and 1.09x with it, 0.67x and 0.77x without; a 944 MB
 * FLOAT32 model 0.85x and 0.78x.  The tensors that map a part of the
 * output instead (tl_writer_windowed) are written after them, one at a
 * time, each split over the threads. */
struct crew {
    struct tl_writer *w;
    const struct tl_whole_job *j;
    const size_t *order;                /* the indexes forks take, largest first */
    uint64_t hlen;
    struct tl_writer_shared *shared;
    struct tl_writer *forks;            /* a thread's own (who), made at its first tensor */
    struct tl_inflated *caches;
    bool *made;
    _Atomic int rc;                     /* the first failure's, else 0 */
    pthread_mutex_t mu;                 /* the first failure's message */
    struct tl_error err;
    const char *blame;
};

/* Whether x goes to a fork: all but a tensor written into a mapping. */
static bool forkable(const struct tl_whole_item *x)
{
    if (x->pair || x->cross || !x->t->decodable)
        return true;
    if (x->t->encoding == TL_ENC_GGML && !x->layout && tl_dtype_is_float(x->dst.dtype))
        return true;
    return tl_writer_windowed(&x->t->desc, &x->dst);
}

/* Tensor number k of the order, on thread who's fork. */
static void crew_job(void *arg, unsigned who, size_t k)
{
    struct crew *c = arg;
    if (atomic_load(&c->rc) != 0)
        return;
    if (!c->made[who]) {
        tl_writer_fork(c->w, &c->forks[who], c->shared);
        c->made[who] = true;
    }
    struct tl_writer *fork = &c->forks[who];
    struct tl_whole_item *x = &c->j->it[c->order[k]];
    struct tl_error err = { 0 };
    int rc = tl_writer_seek(fork, c->hlen + x->offset);
    if (rc == 0)
        rc = tl_whole_put(fork, c->j, x, c->hlen + x->offset + x->bytes, &c->caches[who], &err);
    int ok = 0;
    if (rc != 0 && atomic_compare_exchange_strong(&c->rc, &ok, rc)) {
        pthread_mutex_lock(&c->mu);
        c->err = err;
        c->blame = fork->blame;
        pthread_mutex_unlock(&c->mu);
    }
}

struct sized {
    uint64_t bytes;
    size_t i;
};

static int by_bytes_desc(const void *a, const void *b)
{
    const struct sized *x = a, *y = b;
    return x->bytes > y->bytes ? -1 : x->bytes < y->bytes ? 1 : (x->i > y->i) - (x->i < y->i);
}

/* The order forks take j's forkable items in (set in done[]), largest
 * first: @return how many, or SIZE_MAX out of memory. */
static size_t crew_order(const struct tl_whole_job *j, bool *done, size_t *order)
{
    size_t m = 0;
    struct sized *sz = malloc((j->n ? j->n : 1) * sizeof *sz);
    if (!sz)
        return SIZE_MAX;
    for (size_t i = 0; i < j->n; i++)
        if ((done[i] = forkable(&j->it[i])))
            sz[m++] = (struct sized){ j->it[i].bytes, i };
    qsort(sz, m, sizeof *sz, by_bytes_desc);
    for (size_t k = 0; k < m; k++)
        order[k] = sz[k].i;
    free(sz);
    return m;
}

int tl_whole_crew(struct tl_writer *w, const struct tl_whole_job *j, uint64_t hlen, bool **done,
                  struct tl_writer_shared *shared, struct tl_error *err)
{
    *done = NULL;
    if (!w->out->seekable || w->threads < 2 || j->n < 2)
        return 0;
    unsigned t = w->threads < TL_TEAM_MAX ? w->threads : TL_TEAM_MAX;
    bool *d = calloc(j->n, sizeof *d);
    size_t *order = malloc(j->n * sizeof *order), m = 0;
    struct crew c = { .w = w, .j = j, .hlen = hlen, .shared = shared,
                      .forks = calloc(t, sizeof *c.forks), .caches = calloc(t, sizeof *c.caches),
                      .made = calloc(t, sizeof *c.made) };
    if (!d || !order || !c.forks || !c.caches || !c.made ||
        (m = crew_order(j, d, order)) == SIZE_MAX) {
        free(d);
        free(order);
        free(c.forks);
        free(c.caches);
        free(c.made);
        w->blame = w->out->name;
        return tl_fail(err, TL_E_NOMEM, NULL, "out of memory");
    }
    c.order = order;
    pthread_mutex_init(&c.mu, NULL);
    int rc = tl_writer_presize(w);
    if (rc == 0) {
        tl_jobs_run(t, m, crew_job, &c);
        rc = atomic_load(&c.rc);
        w->pos = hlen;
        w->shared = shared;
    }
    for (unsigned i = 0; i < t; i++) {
        tl_inflated_free(j->in, &c.caches[i]);
        if (c.made[i])
            tl_writer_free(&c.forks[i]);
    }
    pthread_mutex_destroy(&c.mu);
    if (rc && rc != TL_E_IO) {
        if (err)
            *err = c.err;
        w->blame = c.blame;
    }
    free(order);
    free(c.forks);
    free(c.caches);
    free(c.made);
    *done = d;
    return rc;
}
