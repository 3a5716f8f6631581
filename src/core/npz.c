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
 * reader; a deflated one is inflated with zlib as a stream, never past its
 * declared size: only its header while the archive is listed, all of it
 * when its values are wanted (tl_npz_member).
 *
 * (minizip, the other zip library Debian packages, was tried first: its
 * version 1.1 does not read zip64 sizes and offsets on 64-bit Linux, so it
 * cannot open the archives numpy writes past 4 GiB.)
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zip.h>
#include <zlib.h>

#include "internal.h"
#include "tl.h"

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

/* ---- a member's bytes -------------------------------------------------------- */

#define PIECE (256u << 10)

/* Inflates member t: its first `want` bytes, or (whole) all of them, which
 * must be exactly member_bytes with t's CRC-32; each piece goes to put. */
static int inflate_member(const uint8_t *zip, const struct tl_file_tensor *t, uint64_t want,
                          bool whole, tl_put_fn put, void *ctx, struct tl_error *err)
{
    z_stream zs;
    memset(&zs, 0, sizeof zs);
    uint8_t *buf = malloc(PIECE);
    if (!buf || inflateInit2(&zs, -MAX_WBITS) != Z_OK) {
        free(buf);
        return tl_fail(err, TL_E_NOMEM, NULL, "out of memory");
    }
    const uint8_t *in = zip + t->zip_at;
    uint64_t in_left = t->zip_bytes, out = 0;
    uLong crc = crc32(0, Z_NULL, 0);
    int rc = 0;
    for (;;) {
        if (zs.avail_in == 0 && in_left) {
            uInt n = in_left > (1u << 30) ? 1u << 30 : (uInt)in_left;
            zs.next_in = (Bytef *)(uintptr_t)in;
            zs.avail_in = n;
            in += n;
            in_left -= n;
        }
        /* room for one byte past the declared size, to catch a member
         * that inflates to more: no more is ever produced */
        uint64_t room = whole ? t->member_bytes - out + 1 : want - out;
        zs.next_out = buf;
        zs.avail_out = room < PIECE ? (uInt)room : PIECE;
        uInt before = zs.avail_out, fed = zs.avail_in;
        int z = inflate(&zs, Z_NO_FLUSH);
        size_t got = before - zs.avail_out;
        if (out + got > t->member_bytes) {
            rc = tl_fail(err, TL_E_VALUE, "size", "inflates to more than its declared %" PRIu64
                         " bytes", t->member_bytes);
            break;
        }
        crc = crc32(crc, buf, (uInt)got);
        if (got && (rc = put(ctx, buf, got)))
            break;
        out += got;
        if (z == Z_STREAM_END || (!whole && out >= want))
            break;
        if ((z != Z_OK && z != Z_BUF_ERROR) || (got == 0 && fed == zs.avail_in && !in_left)) {
            rc = z == Z_OK || z == Z_BUF_ERROR
               ? tl_fail(err, TL_E_VALUE, "data", "its compressed data ends after %" PRIu64
                         " of its %" PRIu64 " bytes (truncated?)", out, t->member_bytes)
               : tl_fail(err, TL_E_VALUE, "data", "its compressed data is corrupt (%s)",
                         zs.msg ? zs.msg : "inflate failed");
            break;
        }
    }
    inflateEnd(&zs);
    free(buf);
    if (!rc && whole && out != t->member_bytes)
        rc = tl_fail(err, TL_E_VALUE, "size", "inflates to %" PRIu64 " bytes, but its declared "
                     "size is %" PRIu64, out, t->member_bytes);
    if (!rc && whole && (uint32_t)crc != t->crc)
        rc = tl_fail(err, TL_E_VALUE, "crc", "its CRC-32 is %08" PRIx32 ", but the archive "
                     "says %08" PRIx32 " (corrupt)", (uint32_t)crc, t->crc);
    return rc;
}

int tl_npz_member(const uint8_t *zip, uint64_t len, const struct tl_file_tensor *t,
                  tl_put_fn put, void *ctx, struct tl_error *err)
{
    if (t->zip_at > len || t->zip_bytes > len - t->zip_at)
        return tl_fail(err, TL_E_RANGE, "data", "lies outside the archive");
    if (t->deflated)
        return inflate_member(zip, t, 0, true, put, ctx, err);
    for (uint64_t at = 0; at < t->member_bytes; at += PIECE) {
        uint64_t n = t->member_bytes - at < PIECE ? t->member_bytes - at : PIECE;
        int rc = put(ctx, zip + t->zip_at + at, (size_t)n);
        if (rc)
            return rc;
    }
    return 0;
}

/* ---- the archive ------------------------------------------------------------- */

struct prefix {
    uint8_t *b;
    size_t n, cap;
};

static int prefix_put(void *ctx, const uint8_t *bytes, size_t n)
{
    struct prefix *p = ctx;
    if (n > p->cap - p->n)
        n = p->cap - p->n;
    memcpy(p->b + p->n, bytes, n);
    p->n += n;
    return 0;
}

/* Reads the .npy header of member t (in place, or its first bytes
 * inflated) and makes t a row: decodable, or carried as it is when its
 * type or shape is one the tool does not read. */
static int npz_tensor(const uint8_t *zip, struct tl_file_tensor *t, struct tl_error *err)
{
    struct tl_npy_hdr h;
    int rc;
    if (!t->deflated) {
        rc = tl_npy_read_header(zip + t->zip_at, t->member_bytes, &h, err);
    } else {
        /* the preamble, then as much of the header as it claims */
        struct prefix p = { NULL, 0, 12 };
        uint8_t pre[12];
        p.b = pre;
        uint64_t want = t->member_bytes < 12 ? t->member_bytes : 12;
        if ((rc = inflate_member(zip, t, want, false, prefix_put, &p, err)))
            return rc;
        uint64_t hlen = p.n < 10 ? 0 : pre[6] == 1 ? (uint64_t)pre[8] | (uint64_t)pre[9] << 8
                      : p.n < 12 ? 0 : (uint64_t)pre[8] | (uint64_t)pre[9] << 8 |
                                       (uint64_t)pre[10] << 16 | (uint64_t)pre[11] << 24;
        if (hlen > TL_FILE_HEADER_MAX)
            hlen = TL_FILE_HEADER_MAX;
        want = 12 + hlen < t->member_bytes ? 12 + hlen : t->member_bytes;
        struct prefix q = { malloc((size_t)want + 1), 0, (size_t)want };
        if (!q.b)
            return tl_fail(err, TL_E_NOMEM, NULL, "out of memory");
        rc = inflate_member(zip, t, want, false, prefix_put, &q, err);
        if (!rc)
            rc = tl_npy_read_header(q.b, q.n < t->member_bytes ? q.n : t->member_bytes, &h, err);
        free(q.b);
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
        return 0;
    }
    uint64_t base = t->deflated ? 0 : t->zip_at;
    if ((rc = tl_npy_tensor(&h, base, t->member_bytes, t, err)))
        return rc;
    struct tl_info info;
    tl_desc_classify(&t->desc, &info);
    if (info.elements_bytes != base + t->member_bytes)
        return tl_fail(err, TL_E_VALUE, "size", "holds %" PRIu64 " bytes, but its .npy header "
                       "needs %" PRIu64, t->member_bytes, info.elements_bytes - base);
    if (t->deflated) {
        t->begin = t->zip_at;
        t->end = t->zip_at + t->zip_bytes;
    }
    return 0;
}

static int by_zip_at(const void *a, const void *b)
{
    const struct tl_file_tensor *x = *(const struct tl_file_tensor *const *)a;
    const struct tl_file_tensor *y = *(const struct tl_file_tensor *const *)b;
    return x->zip_at < y->zip_at ? -1 : x->zip_at > y->zip_at;
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
    qsort(by, f->count, sizeof *by, by_zip_at);
    int rc = 0;
    for (size_t i = 1; !rc && i < f->count; i++) {
        const struct tl_file_tensor *a = by[i - 1], *b = by[i];
        if (a->zip_bytes && b->zip_bytes && b->zip_at < a->zip_at + a->zip_bytes) {
            snprintf(k, sizeof k, "member '%s'", tl_quote(b->name, q, sizeof q));
            rc = tl_fail(err, TL_E_VALUE, k, "its data overlaps member '%s''s (an "
                         "overlapping-member zip bomb?)", a->name);
        }
    }
    for (size_t i = 0; !rc && i < f->count; i++) {
        for (size_t j = i + 1; !rc && j < f->count; j++) {
            if (strcmp(f->tensors[i].name, f->tensors[j].name) == 0) {
                snprintf(k, sizeof k, "member '%s'", tl_quote(f->tensors[j].name, q, sizeof q));
                rc = tl_fail(err, TL_E_KEY, k, "appears twice in the archive");
            }
        }
    }
    free(by);
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
    t->zip_bytes = st.comp_size;
    t->member_bytes = st.size;
    t->crc = st.crc;
    t->deflated = st.comp_method == ZIP_CM_DEFLATE;
    if (!t->deflated && t->zip_bytes != t->member_bytes)
        return tl_fail(err, TL_E_VALUE, k, "is stored, but its sizes disagree (%" PRIu64
                       " compressed, %" PRIu64 " not)", t->zip_bytes, t->member_bytes);
    /* where its data lie: where libzip reads its first byte */
    zip_file_t *zf = zip_fopen_index(za, i, ZIP_FL_COMPRESSED);
    if (!zf)
        return tl_fail(err, TL_E_VALUE, k, "cannot be opened: %s", zip_strerror(za));
    uint8_t first;
    m->last_read = UINT64_MAX;
    zip_int64_t got = t->zip_bytes ? zip_fread(zf, &first, 1) : 0;
    zip_fclose(zf);
    t->zip_at = m->last_read;
    if (t->zip_bytes && (got != 1 || t->zip_at >= m->len || m->b[t->zip_at] != first))
        return tl_fail(err, TL_E_RANGE, k, "its data cannot be read (truncated?)");
    if (!t->zip_bytes)
        t->zip_at = 0;
    if (t->zip_at > m->len || t->zip_bytes > m->len - t->zip_at)
        return tl_fail(err, TL_E_RANGE, k, "its data (%" PRIu64 " bytes at %" PRIu64 ") run "
                       "past the end of the archive (truncated?)", t->zip_bytes, t->zip_at);
    char *name = strdup(raw);
    if (!(t->name = name))
        return tl_fail(err, TL_E_NOMEM, NULL, "out of memory");
    t->begin = t->zip_at;
    t->end = t->zip_at + t->zip_bytes;
    t->npy = n > 4 && strcmp(name + n - 4, ".npy") == 0;
    if (t->npy)
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

int tl_npz_parse(const uint8_t *b, uint64_t len, struct tl_file *f, struct tl_error *err)
{
    struct mem m = { b, len, 0, 0, { 0 } };
    zip_error_t ze;
    zip_error_init(&ze);
    zip_error_init(&m.error);
    f->named = true;
    f->gaps_ok = true;                 /* local headers lie between the members */
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
    for (size_t i = 0; !rc && i < f->count; i++) {
        if (f->tensors[i].npy)
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
    for (size_t i = 0; i < n; i++)
        cap += 46 + strlen(e[i].name) + 28;
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

/* Any zip: an archive of .npy members unless a format that knows its
 * members better (a PyTorch checkpoint) bids higher. */
static unsigned npz_bid(const uint8_t *head, size_t n)
{
    return tl_zip_head(head, n) ? 50 : 0;
}

const struct tl_format_entry tl_format_npz = {
    .id = TL_FMT_NPZ, .name = "npz", .label = ".npz", .title = "a numpy .npz archive",
    .endings = ".npz", .bid = npz_bid, .read = tl_npz_parse, .writes = true, .many = true,
    .spelling = TL_SPELL_NPY,
};
