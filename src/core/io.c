/*
 * io.c - an input file's image as the library reads it (tl_io.h): bytes
 * read into memory of its own with pread(), pages handed back, a member
 * inflated into the caller's scratch.
 */
#define _GNU_SOURCE 1               /* MADV_HUGEPAGE */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "internal.h"
#include "tl_io.h"

void tl_buf_free(struct tl_buf *buf)
{
    free(buf->p);
    buf->p = NULL;
    buf->cap = 0;
}

uint8_t *tl_huge_alloc(size_t n)
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

const uint8_t *tl_input_read(const struct tl_input *in, uint64_t at, uint64_t n,
                             struct tl_buf *buf)
{
    if (in->fd < 0 || n == 0 || at > in->size || n > in->size - at || n > SIZE_MAX)
        return NULL;
    if (n > buf->cap) {
        free(buf->p);
        buf->p = tl_huge_alloc((size_t)n);
        buf->cap = buf->p ? (size_t)n : 0;
        if (!buf->p)
            return NULL;
    }
    for (uint64_t got = 0; got < n;) {
        ssize_t r = pread(in->fd, buf->p + got, (size_t)(n - got), (off_t)(at + got));
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return NULL;       /* a file cut short since: the mapping says how */
        got += (uint64_t)r;
    }
    return buf->p;
}

void tl_input_done_with(const struct tl_input *in, uint64_t lo, uint64_t hi)
{
    uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
    if (!in->mapped || hi > in->size)
        return;
    lo = (lo + page - 1) / page * page;             /* whole pages inside the range */
    hi = hi / page * page;
    if (lo < hi)
        madvise((uint8_t *)in->bytes + lo, (size_t)(hi - lo), MADV_DONTNEED);
}

int tl_put_fill(void *ctx, const uint8_t *bytes, size_t n)
{
    struct tl_fill *f = ctx;
    if (n > f->cap - f->at) {
        if (!f->clip)
            return TL_PUT_FULL;
        n = f->cap - f->at;
    }
    memcpy(f->p + f->at, bytes, n);
    f->at += n;
    return 0;
}

int tl_input_inflate(const struct tl_input *in, const struct tl_file_tensor *t,
                     struct tl_scratch *s, struct tl_error *err)
{
    memset(s, 0, sizeof *s);
    uint64_t n = t->decoded_bytes;
    if (n > SIZE_MAX)
        return tl_fail(err, TL_E_NOMEM, NULL, "out of memory");
    if (in->scratch) {
        if (in->scratch(in->ctx, n, s))
            return TL_E_IO;
    } else if (!(s->bytes = malloc(n ? (size_t)n : 1))) {
        return tl_fail(err, TL_E_NOMEM, NULL, "out of memory");
    }
    s->size = n;
    struct tl_fill f = { s->bytes, 0, (size_t)n, false };
    int rc = tl_file_decode(in->bytes, in->size, t, tl_put_fill, &f, err);
    if (rc == TL_PUT_FULL || (rc == 0 && f.at != n))
        rc = tl_fail(err, TL_E_VALUE, "", "decodes to %llu bytes, not the %llu its row says",
                     (unsigned long long)f.at, (unsigned long long)n);
    if (rc) {
        tl_error_about(err, "member", t->name);
        tl_input_inflated_free(in, s);
        return rc == TL_E_NOMEM ? TL_E_NOMEM : rc;
    }
    return 0;
}

void tl_error_about(struct tl_error *err, const char *what, const char *name)
{
    char q[64], key[2 * sizeof err->key];
    if (!err)
        return;
    int n = snprintf(key, sizeof key, "%s '%s'%s%s", what, tl_quote(name, q, sizeof q),
                     err->key[0] ? ": " : "", err->key);
    size_t len = n < 0 ? 0 : (size_t)n < sizeof err->key ? (size_t)n : sizeof err->key - 1;
    memcpy(err->key, key, len);
    err->key[len] = '\0';
}

void tl_input_inflated_free(const struct tl_input *in, struct tl_scratch *s)
{
    if (s->bytes && in->scratch)
        in->scratch_free(in->ctx, s);   /* the caller's */
    else
        free(s->bytes);
    memset(s, 0, sizeof *s);
}
