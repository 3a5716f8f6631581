/*
 * npz.c - numpy's .npz archives (np.savez, np.savez_compressed): a zip of
 * .npy files, one per array, each named NAME.npy (SPEC section 10).
 *
 * libzip reads the archive: its central directory (zip64 too), each
 * member's local header checked against it (ZIP_CHECKCONS), names, sizes,
 * methods and CRCs.  It reads through a source of our own over the mapped
 * bytes, which is how a member's data is found in place: the source notes
 * where libzip reads a member's first compressed byte.  This file judges
 * what it finds: names that would leave a folder, names twice, members
 * whose data overlap (the overlapping-member zip bomb), sizes that
 * disagree.  A stored member's .npy is then read in place by npy.c's
 * reader; a deflated one (encoding TL_ENC_DEFLATE, inflate.c) is
 * inflated as a stream, never past its declared size: only its header
 * while the archive is listed, all of it when its values are wanted
 * (tl_file_decode).
 *
 * (minizip, the other zip library Debian packages, was tried first: its
 * version 1.1 does not read zip64 sizes and offsets on 64-bit Linux, so it
 * cannot open the archives numpy writes past 4 GiB.)
 */
#include <cjson/cJSON.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zip.h>
#include <zlib.h>

#include "internal.h"
#include "tl.h"
#include "tl_io.h"

/* ---- the archive's bytes, as libzip reads them ---------------------------- */

struct mem {
    const uint8_t *b;
    uint64_t len, pos;
    uint64_t last_read;                /* where the last read began */
    zip_error_t error;
};

static zip_int64_t mem_source(void *ud, void *data, zip_uint64_t len, zip_source_cmd_t cmd)
{
    struct mem *m = ud;
    switch (cmd) {
    case ZIP_SOURCE_OPEN:
        m->pos = 0;
        return 0;
    case ZIP_SOURCE_READ: {
        uint64_t n = m->len - m->pos < len ? m->len - m->pos : len;
        m->last_read = m->pos;
        memcpy(data, m->b + m->pos, (size_t)n);
        m->pos += n;
        return (zip_int64_t)n;
    }
    case ZIP_SOURCE_CLOSE:
    case ZIP_SOURCE_FREE:
        return 0;
    case ZIP_SOURCE_STAT: {
        zip_stat_t *st = data;
        zip_stat_init(st);
        st->size = m->len;
        st->valid |= ZIP_STAT_SIZE;
        return sizeof *st;
    }
    case ZIP_SOURCE_ERROR:
        return zip_error_to_data(&m->error, data, len);
    case ZIP_SOURCE_SEEK: {
        zip_int64_t at = zip_source_seek_compute_offset(m->pos, m->len, data, len, &m->error);
        if (at < 0)
            return -1;
        m->pos = (uint64_t)at;
        return 0;
    }
    case ZIP_SOURCE_TELL:
        return (zip_int64_t)m->pos;
    case ZIP_SOURCE_SUPPORTS:
        return zip_source_make_command_bitmap(ZIP_SOURCE_OPEN, ZIP_SOURCE_READ, ZIP_SOURCE_CLOSE,
                                              ZIP_SOURCE_STAT, ZIP_SOURCE_ERROR, ZIP_SOURCE_FREE,
                                              ZIP_SOURCE_SEEK, ZIP_SOURCE_TELL,
                                              ZIP_SOURCE_SUPPORTS, -1);
    default:
        zip_error_set(&m->error, ZIP_ER_OPNOTSUPP, 0);
        return -1;
    }
}

/* ---- the archive ------------------------------------------------------------- */

/* Reads the .npy header of member t (in place, or its first bytes
 * inflated) and makes t a row: decodable, or carried as it is when its
 * type or shape is one the tool does not read. */
static int npz_tensor(const uint8_t *zip, struct tl_file_tensor *t, struct tl_error *err)
{
    struct tl_npy_hdr h;
    int rc;
    if (t->encoding != TL_ENC_DEFLATE) {
        rc = tl_npy_read_header(zip + t->stored_at, t->decoded_bytes, &h, err);
    } else {
        /* the preamble, then as much of the header as it claims */
        uint8_t pre[12];
        struct tl_fill p = { pre, 0, sizeof pre, true };
        uint64_t want = t->decoded_bytes < 12 ? t->decoded_bytes : 12;
        if ((rc = tl_inflate(zip, t, want, false, tl_put_fill, &p, err)))
            return rc;
        uint64_t hlen = p.at < 10 ? 0 : pre[6] == 1 ? (uint64_t)pre[8] | (uint64_t)pre[9] << 8
                      : p.at < 12 ? 0 : (uint64_t)pre[8] | (uint64_t)pre[9] << 8 |
                                       (uint64_t)pre[10] << 16 | (uint64_t)pre[11] << 24;
        if (hlen > TL_FILE_HEADER_MAX)
            hlen = TL_FILE_HEADER_MAX;
        want = 12 + hlen < t->decoded_bytes ? 12 + hlen : t->decoded_bytes;
        struct tl_fill q = { malloc((size_t)want + 1), 0, (size_t)want, true };
        if (!q.p)
            return tl_fail(err, TL_E_NOMEM, NULL, "out of memory");
        rc = tl_inflate(zip, t, want, false, tl_put_fill, &q, err);
        if (!rc)
            rc = tl_npy_read_header(q.p, q.at < t->decoded_bytes ? q.at : t->decoded_bytes, &h, err);
        free(q.p);
    }
    if (rc)
        return rc;
    enum tl_dtype dt;
    bool empty = false;
    for (unsigned i = 0; i < h.ndim; i++)
        empty |= h.shape[i] == 0;
    snprintf(t->dtype, sizeof t->dtype, "%.23s", h.descr);
    t->ndim = h.ndim;
    memcpy(t->shape, h.shape, h.ndim * sizeof h.shape[0]);
    t->scalar = h.ndim == 0;
    if (empty || tl_npy_dtype(h.descr, &dt, NULL)) {
        t->decodable = false;   /* listed, and carried as it is */
        t->npy_data = h.data_start;
        t->npy_fortran = h.fortran;
        return 0;
    }
    uint64_t base = t->encoding == TL_ENC_DEFLATE ? 0 : t->stored_at;
    if ((rc = tl_npy_tensor(&h, base, t->decoded_bytes, t, err)))
        return rc;
    struct tl_info info;
    tl_desc_classify(&t->desc, &info);
    if (info.elements_bytes != base + t->decoded_bytes)
        return tl_fail(err, TL_E_VALUE, "size", "holds %" PRIu64 " bytes, but its .npy header "
                       "needs %" PRIu64, t->decoded_bytes, info.elements_bytes - base);
    if (t->encoding == TL_ENC_DEFLATE) {
        t->begin = t->stored_at;
        t->end = t->stored_at + t->stored_bytes;
    }
    return 0;
}

static int by_stored_at(const void *a, const void *b)
{
    const struct tl_file_tensor *x = *(const struct tl_file_tensor *const *)a;
    const struct tl_file_tensor *y = *(const struct tl_file_tensor *const *)b;
    return x->stored_at < y->stored_at ? -1 : x->stored_at > y->stored_at;
}

/* Names twice, and members whose data overlap. */
static int npz_check_all(struct tl_file *f, struct tl_error *err)
{
    char q[64], k[128];
    const struct tl_file_tensor **by = malloc((f->count ? f->count : 1) * sizeof *by);
    if (!by)
        return tl_fail(err, TL_E_NOMEM, NULL, "out of memory");
    for (size_t i = 0; i < f->count; i++)
        by[i] = &f->tensors[i];
    qsort(by, f->count, sizeof *by, by_stored_at);
    int rc = 0;
    for (size_t i = 1; !rc && i < f->count; i++) {
        const struct tl_file_tensor *a = by[i - 1], *b = by[i];
        if (a->stored_bytes && b->stored_bytes && b->stored_at < a->stored_at + a->stored_bytes) {
            snprintf(k, sizeof k, "member '%s'", tl_quote(b->name, q, sizeof q));
            rc = tl_fail(err, TL_E_VALUE, k, "its data overlaps member '%s''s (an "
                         "overlapping-member zip bomb?)", a->name);
        }
    }
    free(by);
    bool nomem;
    const char *twice = rc ? NULL : tl_file_name_twice(f, &nomem);
    if (!rc && nomem)
        rc = tl_fail(err, TL_E_NOMEM, NULL, "out of memory");
    if (twice) {
        snprintf(k, sizeof k, "member '%s'", tl_quote(twice, q, sizeof q));
        rc = tl_fail(err, TL_E_KEY, k, "appears twice in the archive");
    }
    return rc;
}

/* Member i of za into row t. */
static int npz_entry(zip_t *za, struct mem *m, zip_uint64_t i, struct tl_file_tensor *t,
                     struct tl_error *err)
{
    zip_stat_t st;
    char q[64], k[128];
    const char *raw = zip_get_name(za, i, ZIP_FL_ENC_RAW);
    if (!raw || zip_stat_index(za, i, ZIP_FL_ENC_RAW, &st) != 0)
        return tl_fail(err, TL_E_VALUE, "central directory", "entry %" PRIu64 " cannot be read: "
                       "%s", (uint64_t)i, zip_strerror(za));
    size_t n = strlen(raw);
    snprintf(k, sizeof k, "member '%s'", tl_quote(raw, q, sizeof q));
    if (n == 0 || n > TL_ZIP_NAME_MAX || tl_path_escapes(raw))
        return tl_fail(err, TL_E_VALUE, k, "its name is empty, longer than %d bytes, absolute, "
                       "or climbs out of its folder ('..')", TL_ZIP_NAME_MAX);
    if ((st.valid & ZIP_STAT_ENCRYPTION_METHOD) && st.encryption_method != ZIP_EM_NONE)
        return tl_fail(err, TL_E_VALUE, k, "is encrypted");
    if (st.comp_method != ZIP_CM_STORE && st.comp_method != ZIP_CM_DEFLATE)
        return tl_fail(err, TL_E_VALUE, k, "is compressed with method %u; this tool reads "
                       "stored (0) and deflated (8) members", (unsigned)st.comp_method);
    t->stored_bytes = st.comp_size;
    t->decoded_bytes = st.size;
    t->decoded_crc = st.crc;
    t->has_crc = true;
    t->encoding = st.comp_method == ZIP_CM_DEFLATE ? TL_ENC_DEFLATE : TL_ENC_PLAIN;
    if (t->encoding != TL_ENC_DEFLATE && t->stored_bytes != t->decoded_bytes)
        return tl_fail(err, TL_E_VALUE, k, "is stored, but its sizes disagree (%" PRIu64
                       " compressed, %" PRIu64 " not)", t->stored_bytes, t->decoded_bytes);
    /* where its data lie: where libzip reads its first byte */
    zip_file_t *zf = zip_fopen_index(za, i, ZIP_FL_COMPRESSED);
    if (!zf)
        return tl_fail(err, TL_E_VALUE, k, "cannot be opened: %s", zip_strerror(za));
    uint8_t first;
    m->last_read = UINT64_MAX;
    zip_int64_t got = t->stored_bytes ? zip_fread(zf, &first, 1) : 0;
    zip_fclose(zf);
    t->stored_at = m->last_read;
    if (t->stored_bytes && (got != 1 || t->stored_at >= m->len || m->b[t->stored_at] != first))
        return tl_fail(err, TL_E_RANGE, k, "its data cannot be read (truncated?)");
    if (!t->stored_bytes)
        t->stored_at = 0;
    if (t->stored_at > m->len || t->stored_bytes > m->len - t->stored_at)
        return tl_fail(err, TL_E_RANGE, k, "its data (%" PRIu64 " bytes at %" PRIu64 ") run "
                       "past the end of the archive (truncated?)", t->stored_bytes, t->stored_at);
    char *name = strdup(raw);
    if (!(t->name = name))
        return tl_fail(err, TL_E_NOMEM, NULL, "out of memory");
    t->begin = t->stored_at;
    t->end = t->stored_at + t->stored_bytes;
    t->wrapped = n > 4 && strcmp(name + n - 4, ".npy") == 0;
    if (t->wrapped)
        name[n - 4] = '\0';            /* numpy names the array without its suffix */
    return 0;
}

/* The .npy a member holds: its header read, after every member passed
 * npz_check_all (a member's bytes are read only once no other claims them). */
static int npz_read_npy(const uint8_t *b, struct tl_file_tensor *t, struct tl_error *err)
{
    char q[64], sub[160];
    int rc = npz_tensor(b, t, err);
    if (rc) {
        snprintf(sub, sizeof sub, "member '%s.npy': %.60s", tl_quote(t->name, q, sizeof q),
                 err->key);
        tl_error_key(err, sub);
    }
    return rc;
}

int tl_zip_members(const uint8_t *b, uint64_t len, struct tl_file *f, struct tl_error *err)
{
    struct mem m = { b, len, 0, 0, { 0 } };
    zip_error_t ze;
    zip_error_init(&ze);
    zip_error_init(&m.error);
    zip_source_t *src = zip_source_function_create(mem_source, &m, &ze);
    zip_t *za = src ? zip_open_from_source(src, ZIP_RDONLY | ZIP_CHECKCONS, &ze) : NULL;
    if (!za) {
        int rc = tl_fail(err, TL_E_VALUE, "central directory", "%s: cannot be read as a zip "
                         "archive (truncated, or its directory and members disagree)",
                         zip_error_strerror(&ze));
        if (src)
            zip_source_free(src);
        zip_error_fini(&ze);
        zip_error_fini(&m.error);
        return rc;
    }
    zip_int64_t count = zip_get_num_entries(za, 0);
    int rc = 0;
    if (count < 0 || (uint64_t)count > len / 46)
        rc = tl_fail(err, TL_E_VALUE, "central directory", "claims more entries than the "
                     "archive can hold (truncated or inconsistent)");
    else if ((rc = tl_file_count_ok((uint64_t)count, "members", err)))
        ;
    else if (!(f->tensors = calloc(count ? (size_t)count : 1, sizeof *f->tensors)))
        rc = tl_fail(err, TL_E_NOMEM, NULL, "out of memory");
    for (zip_int64_t i = 0; !rc && i < count; i++) {
        struct tl_file_tensor *t = &f->tensors[f->count];
        t->order = f->count++;
        rc = npz_entry(za, &m, (zip_uint64_t)i, t, err);
    }
    zip_discard(za);
    zip_error_fini(&ze);
    zip_error_fini(&m.error);
    if (!rc)
        rc = npz_check_all(f, err);
    return rc;
}

int tl_npz_parse(const uint8_t *b, uint64_t len, struct tl_file *f, struct tl_error *err)
{
    f->named = true;
    f->gaps_ok = true;                 /* local headers lie between the members */
    int rc = tl_zip_members(b, len, f, err);
    for (size_t i = 0; !rc && i < f->count; i++) {
        if (f->tensors[i].wrapped)
            rc = npz_read_npy(b, &f->tensors[i], err);
    }
    return rc;
}

/* ---- writing: stored members, as np.savez writes them ------------------------ */

static uint8_t *le(uint8_t *p, uint64_t v, int n)
{
    for (int i = 0; i < n; i++)
        p[i] = (uint8_t)(v >> (8 * i));
    return p + n;
}

enum {
    ZIP_VERSION = 45,                  /* 4.5: zip64 */
    ZIP_FLAGS = 0x0808,                /* a data descriptor follows; names in UTF-8 */
    ZIP_DATE = (0 << 9) | (1 << 5) | 1 /* 1980-01-01, 00:00: the same bytes every run */
};

size_t tl_zip_local(const char *name, uint8_t *buf)
{
    size_t n = strlen(name);
    uint8_t *p = buf;
    p = le(p, 0x04034b50, 4);
    p = le(p, ZIP_VERSION, 2);
    p = le(p, ZIP_FLAGS, 2);
    p = le(p, 0, 2);                   /* stored */
    p = le(p, 0, 2);
    p = le(p, ZIP_DATE, 2);
    p = le(p, 0, 4);                   /* the CRC-32 is in the descriptor */
    p = le(p, 0xffffffff, 4);
    p = le(p, 0xffffffff, 4);
    p = le(p, n, 2);
    p = le(p, 20, 2);
    memcpy(p, name, n);
    p += n;
    p = le(p, 0x0001, 2);              /* zip64: the sizes are in the descriptor too */
    p = le(p, 16, 2);
    p = le(p, 0, 8);
    p = le(p, 0, 8);
    return (size_t)(p - buf);
}

size_t tl_zip_descriptor(uint32_t crc, uint64_t bytes, uint8_t *buf)
{
    uint8_t *p = buf;
    p = le(p, 0x08074b50, 4);
    p = le(p, crc, 4);
    p = le(p, bytes, 8);
    p = le(p, bytes, 8);
    return (size_t)(p - buf);
}

int tl_zip_directory(const struct tl_zip_entry *e, size_t n, uint64_t at, uint8_t **out,
                     size_t *len, struct tl_error *err)
{
    size_t cap = 56 + 20 + 22;
    for (size_t i = 0; i < n; i++) {
        char q[80];
        if (tl_path_escapes(e[i].name))     /* unpacked, it would land outside the folder */
            return tl_fail(err, TL_E_VALUE, NULL, "member '%s' would be absolute or climb out "
                           "of the folder it is unpacked in ('..'): rename the tensor",
                           tl_quote(e[i].name, q, sizeof q));
        cap += 46 + strlen(e[i].name) + 28;
    }
    uint8_t *buf = malloc(cap), *p = buf;
    if (!buf)
        return tl_fail(err, TL_E_NOMEM, NULL, "out of memory");
    for (size_t i = 0; i < n; i++) {
        size_t nl = strlen(e[i].name);
        p = le(p, 0x02014b50, 4);
        p = le(p, 3u << 8 | ZIP_VERSION, 2);        /* made on Unix */
        p = le(p, ZIP_VERSION, 2);
        p = le(p, ZIP_FLAGS, 2);
        p = le(p, 0, 2);
        p = le(p, 0, 2);
        p = le(p, ZIP_DATE, 2);
        p = le(p, e[i].crc, 4);
        p = le(p, 0xffffffff, 4);
        p = le(p, 0xffffffff, 4);
        p = le(p, nl, 2);
        p = le(p, 28, 2);
        p = le(p, 0, 2);                            /* no comment */
        p = le(p, 0, 2);
        p = le(p, 0, 2);
        p = le(p, 0100644u << 16, 4);               /* -rw-r--r-- */
        p = le(p, 0xffffffff, 4);
        memcpy(p, e[i].name, nl);
        p += nl;
        p = le(p, 0x0001, 2);
        p = le(p, 24, 2);
        p = le(p, e[i].bytes, 8);
        p = le(p, e[i].bytes, 8);
        p = le(p, e[i].at, 8);
    }
    uint64_t size = (uint64_t)(p - buf), end64 = at + size;
    p = le(p, 0x06064b50, 4);                       /* zip64 end of central directory */
    p = le(p, 44, 8);
    p = le(p, 3u << 8 | ZIP_VERSION, 2);
    p = le(p, ZIP_VERSION, 2);
    p = le(p, 0, 4);
    p = le(p, 0, 4);
    p = le(p, n, 8);
    p = le(p, n, 8);
    p = le(p, size, 8);
    p = le(p, at, 8);
    p = le(p, 0x07064b50, 4);                       /* its locator */
    p = le(p, 0, 4);
    p = le(p, end64, 8);
    p = le(p, 1, 4);
    p = le(p, 0x06054b50, 4);                       /* end of central directory */
    p = le(p, 0, 2);
    p = le(p, 0, 2);
    p = le(p, n < 0xffff ? n : 0xffff, 2);
    p = le(p, n < 0xffff ? n : 0xffff, 2);
    p = le(p, size < 0xffffffff ? size : 0xffffffff, 4);
    p = le(p, 0xffffffff, 4);
    p = le(p, 0, 2);
    *out = buf;
    *len = (size_t)(p - buf);
    return 0;
}

/* ---- the writer of a whole file's tensors ---------------------------------- */

/* A member's name: the tensor's, and ".npy" but for a member of an .npz
 * source that held no .npy file (kept under its own name). */
static void member_name(const struct tl_whole_item *x, enum tl_format from, char *buf, size_t n)
{
    bool other = from == TL_FMT_NPZ && !x->t->wrapped;
    snprintf(buf, n, "%s%s", x->t->name, other ? "" : ".npy");
}

void tl_npz_layout_free(struct tl_npz_layout *l)
{
    for (size_t i = 0; l->names && l->npy && i < l->n; i++) {
        free(l->names[i]);
        free(l->npy[i]);
    }
    free(l->e);
    free(l->names);
    free(l->npy);
    free(l->nlen);
    memset(l, 0, sizeof *l);
}

/* Member i's .npy header, into l (none for a member carried whole). */
static int member_header(const struct tl_whole_item *x, enum tl_format from,
                         struct tl_npz_layout *l, size_t i, uint64_t *bytes,
                         struct tl_error *err)
{
    char q[128];
    const char *descr = !x->t->decodable && from != TL_FMT_NPZ
                        ? tl_whole_carried_as(x->t, from, true) : NULL;
    if (!x->t->decodable && from != TL_FMT_NPZ && !descr)
        return tl_fail(err, TL_E_VALUE, NULL, "tensor '%s' (%s) has no .npy form: convert the "
                       "file into a safetensors OUT instead", tl_quote(x->t->name, q, sizeof q),
                       x->t->dtype);
    if (descr) {                        /* carried as it is, under a header of its own */
        if (tl_npy_header_raw(descr, x->t->shape, x->t->ndim, NULL, 0, &l->nlen[i], err) ||
            !(l->npy[i] = malloc(l->nlen[i])) ||
            tl_npy_header_raw(descr, x->t->shape, x->t->ndim, l->npy[i], l->nlen[i],
                              &l->nlen[i], err))
            return tl_fail(err, TL_E_NOMEM, NULL, "out of memory");
        *bytes = l->nlen[i] + x->bytes;
        return 0;
    }
    if (!x->t->decodable) {             /* a member of an .npz source, as it is */
        *bytes = x->t->decoded_bytes;
        return 0;
    }
    /* a 0-d array stays 0-d; a Fortran-order array whose layout is kept
     * stays Fortran-order, so numpy loads the same shape */
    struct tl_desc d = x->dst;
    unsigned how = (x->t->scalar ? TL_NPY_SCALAR : 0) |
                   (from == TL_FMT_NPZ && !x->layout ? TL_NPY_FORTRAN : 0);
    if (tl_npy_header_as(&d, how, NULL, 0, &l->nlen[i], err) ||
        !(l->npy[i] = malloc(l->nlen[i])) ||
        tl_npy_header_as(&d, how, l->npy[i], l->nlen[i], &l->nlen[i], err)) {
        char msg[sizeof err->msg];
        snprintf(msg, sizeof msg, "%s", err->msg);
        return tl_fail(err, TL_E_VALUE, NULL, "tensor '%s' cannot be an .npy member: %s%s",
                       tl_quote(x->t->name, q, sizeof q), msg,
                       tl_dtype_is_float(x->dst.dtype) ? ": give --to-type FLOAT32, or write "
                       "safetensors" : "");
    }
    *bytes = l->nlen[i] + x->bytes;
    return 0;
}

int tl_npz_layout(const struct tl_whole_item *it, size_t n, enum tl_format from,
                  struct tl_npz_layout *l, struct tl_error *err)
{
    char q[128], name[TL_ZIP_NAME_MAX + 8];
    uint8_t local[TL_ZIP_LOCAL_MAX];
    memset(l, 0, sizeof *l);
    l->n = n;
    l->e = calloc(n ? n : 1, sizeof *l->e);
    l->names = calloc(n ? n : 1, sizeof *l->names);
    l->npy = calloc(n ? n : 1, sizeof *l->npy);
    l->nlen = calloc(n ? n : 1, sizeof *l->nlen);
    int rc = l->e && l->names && l->npy && l->nlen
             ? 0 : tl_fail(err, TL_E_NOMEM, NULL, "out of memory");
    for (size_t i = 0; !rc && i < n; i++) {
        const struct tl_whole_item *x = &it[i];
        uint64_t bytes = 0;
        member_name(x, from, name, sizeof name);
        if (strlen(name) > TL_ZIP_NAME_MAX || !(l->names[i] = strdup(name)))
            rc = tl_fail(err, TL_E_VALUE, NULL, "tensor '%s': its name is too long for an .npz "
                         "member", tl_quote(x->t->name, q, sizeof q));
        else
            rc = member_header(x, from, l, i, &bytes, err);
        if (!rc) {
            l->e[i] = (struct tl_zip_entry){ l->names[i], bytes, l->end, 0 };
            l->end += tl_zip_local(l->names[i], local) + bytes + TL_ZIP_DESCRIPTOR;
        }
    }
    if (rc)
        tl_npz_layout_free(l);
    return rc;
}


/* Any zip: an archive of .npy members unless a format that knows its
 * members better (a PyTorch checkpoint) bids higher. */
static unsigned npz_bid(const uint8_t *head, size_t n)
{
    return tl_zip_head(head, n) ? 50 : 0;
}

/* An .npz holds several tensors, so a whole file converts into it
 * (convert_all.c); one tensor is written as .npy. */
static int npz_header(const struct tl_desc *d, const char *name, bool scalar, bool fortran,
                      uint8_t **bytes, size_t *len, struct tl_error *err)
{
    (void)fortran;
    (void)d;
    (void)name;
    (void)scalar;
    (void)bytes;
    (void)len;
    return tl_fail(err, TL_E_VALUE, "format", "an .npz archive is written from a whole "
                   "file's tensors (convert FILE -o OUT.npz); write one tensor as .npy");
}

/* A whole file's tensors as an .npz archive, as np.savez writes one: for
 * each, its stored member (a local header, the .npy header, the data, a
 * descriptor with the CRC), then the central directory. */
static int npz_write(struct tl_whole_job *j, const struct tl_output *out, struct tl_error *err)
{
    struct tl_npz_layout l;
    uint8_t local[TL_ZIP_LOCAL_MAX], desc[TL_ZIP_DESCRIPTOR], *dir = NULL;
    size_t dlen = 0;
    if (tl_npz_layout(j->it, j->n, j->f->format, &l, err)) {
        j->blame = j->in->name;
        return err ? err->code : TL_E_VALUE;
    }
    int rc = tl_zip_directory(l.e, j->n, l.end, &dir, &dlen, err);
    if (rc) {
        j->blame = j->out_name;
        if (err)
            err->key[0] = '\0';
        tl_npz_layout_free(&l);
        return rc;
    }
    struct tl_writer w;
    j->written = l.end + dlen;
    tl_writer_init(&w, out, j->written, j->threads);
    struct tl_inflated cache = { 0 };
    for (size_t i = 0; rc == 0 && i < j->n; i++) {
        struct tl_whole_item *x = &j->it[i];
        size_t ll = tl_zip_local(l.e[i].name, local);
        rc = tl_writer_put(&w, local, ll, err);
        w.crc_on = true;
        w.crc = 0;
        if (rc == 0 && l.npy[i])
            rc = tl_writer_put(&w, l.npy[i], l.nlen[i], err);
        x->dst.file_offset = l.e[i].at + ll + l.nlen[i];
        if (rc == 0)
            rc = tl_whole_put(&w, j, x, l.e[i].at + ll + l.e[i].bytes, &cache, err);
        w.crc_on = false;
        l.e[i].crc = w.crc;
        if (rc == 0)
            rc = tl_writer_put(&w, desc, tl_zip_descriptor(l.e[i].crc, l.e[i].bytes, desc), err);
    }
    tl_inflated_free(j->in, &cache);
    if (rc == 0) {                      /* the directory again, with the CRCs */
        free(dir);
        dir = NULL;
        if ((rc = tl_zip_directory(l.e, j->n, l.end, &dir, &dlen, err)) == 0)
            rc = tl_writer_put(&w, dir, dlen, err);
        else
            w.blame = j->out_name;
    }
    j->blame = w.blame;
    tl_writer_free(&w);
    tl_npz_layout_free(&l);
    free(dir);
    return rc;
}

/* list --json: whether a member is deflated, and its encoding. */
static bool list_keys(struct cJSON *o, const struct tl_file_tensor *t)
{
    return cJSON_AddBoolToObject(o, "deflated", t->encoding == TL_ENC_DEFLATE) &&
           cJSON_AddStringToObject(o, "encoding", tl_encoding_name(t->encoding));
}

const struct tl_format_entry tl_format_npz = {
    .id = TL_FMT_NPZ, .name = "npz", .label = ".npz", .title = "a numpy .npz archive",
    .endings = ".npz", .bid = npz_bid, .read = tl_npz_parse, .writes = 3, .many = true,
    .header = npz_header, .write = npz_write,
    .spelling = TL_SPELL_NPY, .json_keys = list_keys,
};
