/*
 * encoding.c - how a tensor's bytes may be stored in its file, and the one
 * way to decode them (SPEC 15): a table of encodings, each with its name
 * and its decoder, behind tl_file_decode().  A stored row (TL_ENC_PLAIN)
 * is handed out in place; a deflated one (an .npz member of
 * np.savez_compressed) is inflated with zlib as a stream, never past its
 * declared size.  Adding an encoding: its id in enum tl_encoding, its
 * decoder here (or in its format's file), its row in the table.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "internal.h"
#include "tl.h"

#define PIECE (256u << 10)

int tl_inflate(const uint8_t *zip, const struct tl_file_tensor *t, uint64_t want,
               bool whole, tl_put_fn put, void *ctx, struct tl_error *err)
{
    z_stream zs;
    memset(&zs, 0, sizeof zs);
    uint8_t *buf = malloc(PIECE);
    if (!buf || inflateInit2(&zs, -MAX_WBITS) != Z_OK) {
        free(buf);
        return tl_fail(err, TL_E_NOMEM, NULL, "out of memory");
    }
    const uint8_t *in = zip + t->stored_at;
    uint64_t in_left = t->stored_bytes, out = 0;
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
        uint64_t room = whole ? t->decoded_bytes - out + 1 : want - out;
        zs.next_out = buf;
        zs.avail_out = room < PIECE ? (uInt)room : PIECE;
        uInt before = zs.avail_out, fed = zs.avail_in;
        int z = inflate(&zs, Z_NO_FLUSH);
        size_t got = before - zs.avail_out;
        if (out + got > t->decoded_bytes) {
            rc = tl_fail(err, TL_E_VALUE, "size", "inflates to more than its declared %" PRIu64
                         " bytes", t->decoded_bytes);
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
                         " of its %" PRIu64 " bytes (truncated?)", out, t->decoded_bytes)
               : tl_fail(err, TL_E_VALUE, "data", "its compressed data is corrupt (%s)",
                         zs.msg ? zs.msg : "inflate failed");
            break;
        }
    }
    inflateEnd(&zs);
    free(buf);
    if (!rc && whole && out != t->decoded_bytes)
        rc = tl_fail(err, TL_E_VALUE, "size", "inflates to %" PRIu64 " bytes, but its declared "
                     "size is %" PRIu64, out, t->decoded_bytes);
    if (!rc && whole && t->has_crc && (uint32_t)crc != t->decoded_crc)
        rc = tl_fail(err, TL_E_VALUE, "crc", "its CRC-32 is %08" PRIx32 ", but the archive "
                     "says %08" PRIx32 " (corrupt)", (uint32_t)crc, t->decoded_crc);
    return rc;
}

/* The stored bytes as they are, in pieces. */
static int decode_plain(const uint8_t *file, const struct tl_file_tensor *t, tl_put_fn put,
                        void *ctx, struct tl_error *err)
{
    (void)err;
    for (uint64_t at = 0; at < t->decoded_bytes; at += PIECE) {
        uint64_t n = t->decoded_bytes - at < PIECE ? t->decoded_bytes - at : PIECE;
        int rc = put(ctx, file + t->stored_at + at, (size_t)n);
        if (rc)
            return rc;
    }
    return 0;
}

static int decode_deflate(const uint8_t *file, const struct tl_file_tensor *t, tl_put_fn put,
                          void *ctx, struct tl_error *err)
{
    return tl_inflate(file, t, 0, true, put, ctx, err);
}

static const struct {
    const char *name;
    int (*decode)(const uint8_t *file, const struct tl_file_tensor *t, tl_put_fn put,
                  void *ctx, struct tl_error *err);
} encodings[TL_ENC_COUNT] = {
    [TL_ENC_PLAIN] = { "plain", decode_plain },
    [TL_ENC_DEFLATE] = { "deflate", decode_deflate },
};

const char *tl_encoding_name(enum tl_encoding e)
{
    return e < TL_ENC_COUNT ? encodings[e].name : "?";
}

int tl_file_decode(const uint8_t *file, uint64_t len, const struct tl_file_tensor *t,
                   tl_put_fn put, void *ctx, struct tl_error *err)
{
    if (t->stored_at > len || t->stored_bytes > len - t->stored_at)
        return tl_fail(err, TL_E_RANGE, "data", "lies outside the archive");
    if (t->encoding >= TL_ENC_COUNT)
        return tl_fail(err, TL_E_VALUE, "encoding", "is not one this tool decodes");
    return encodings[t->encoding].decode(file, t, put, ctx, err);
}
