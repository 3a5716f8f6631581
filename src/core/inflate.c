/*
 * inflate.c - a deflated .npz member (np.savez_compressed) inflated with
 * zlib as a stream, never past its declared size: npz.c peeks at its .npy
 * header with it, and the decoders' table (src/copy/decode.c) decodes the
 * whole member with it.
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
