/*
 * decode.c - the one way to a tensor's decoded bytes, whatever its
 * encoding (SPEC 15): a table of encodings, each with its name and its
 * decoder, behind tl_file_decode().  A stored row (TL_ENC_PLAIN) is handed
 * out in place; a deflated one (an .npz member of np.savez_compressed) is
 * inflated with zlib as a stream (inflate.c); a GGUF tensor of a block
 * type (TL_ENC_GGML) is decoded to FLOAT32 by the kernel table's dequant
 * slot for its type, a piece at a time; protocol buffer varints
 * (TL_ENC_VARINT: an ONNX tensor's typed field) become elements.  Adding an encoding: its id in
 * enum tl_encoding, its decoder, its row in the table.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "copy.h"
#include "dequant.h"

#define PIECE (256u << 10)

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

/* Protocol buffer varints (an ONNX tensor's typed field), each value's
 * low bytes as an element of w bytes (the row's type; a 4-bit type's
 * varints hold a byte of two values each), in pieces. */
static int decode_varint(const uint8_t *file, const struct tl_file_tensor *t, tl_put_fn put,
                         void *ctx, struct tl_error *err)
{
    unsigned bits = tl_dtype_bits(t->desc.dtype);
    size_t w = bits < 8 ? 1 : bits / 8, n = 0;
    uint8_t piece[4096];
    const uint8_t *p = file + t->stored_at, *end = p + t->stored_bytes;
    while (p < end) {
        uint64_t v = 0;
        unsigned shift = 0;
        for (;; shift += 7) {
            if (p >= end || shift > 63)
                return tl_fail(err, TL_E_VALUE, "data", "a varint is cut short or overlong");
            uint8_t b = *p++;
            v |= (uint64_t)(b & 0x7f) << shift;
            if (!(b & 0x80))
                break;
        }
        for (size_t k = 0; k < w; k++)
            piece[n++] = (uint8_t)(v >> (8 * k));
        if (n + 8 > sizeof piece) {
            int rc = put(ctx, piece, n);
            if (rc)
                return rc;
            n = 0;
        }
    }
    return n ? put(ctx, piece, n) : 0;
}

int tl_dequant(uint32_t type, const uint8_t *x, float *y, size_t nb)
{
    const struct tl_ggml_type *gt = tl_ggml_type(type);
    const struct tl_kernels *k = tl_kernels_for(tl_isa_active());
    if (!gt || gt->plain >= 0 || type >= TL_GGML_SLOTS || !k->dequant[type])
        return TL_E_VALUE;
    k->dequant[type](x, y, nb);
    return 0;
}

/* A GGUF tensor's blocks, decoded to FLOAT32 a piece at a time. */
static int decode_ggml(const uint8_t *file, const struct tl_file_tensor *t, tl_put_fn put,
                       void *ctx, struct tl_error *err)
{
    const struct tl_ggml_type *gt = tl_ggml_type(t->ggml_type);
    const struct tl_kernels *k = tl_kernels_for(tl_isa_active());
    if (!gt || gt->plain >= 0 || t->ggml_type >= TL_GGML_SLOTS || !k->dequant[t->ggml_type])
        return tl_fail(err, TL_E_VALUE, "type", "%s is not a type this tool decodes",
                       gt ? gt->name : "?");
    uint64_t blocks = t->stored_bytes / gt->bytes;
    if (blocks * gt->block * 4 != t->decoded_bytes)
        return tl_fail(err, TL_E_VALUE, "size", "its %" PRIu64 " bytes are not the %" PRIu64
                       " FLOAT32 values it is said to hold", t->stored_bytes,
                       t->decoded_bytes / 4);
    size_t per = PIECE / (gt->block * 4);
    float *buf = malloc((size_t)per * gt->block * 4);
    if (!buf)
        return tl_fail(err, TL_E_NOMEM, NULL, "out of memory");
    const uint8_t *x = file + t->stored_at;
    int rc = 0;
    for (uint64_t done = 0; done < blocks && !rc; done += per) {
        size_t nb = blocks - done < per ? (size_t)(blocks - done) : per;
        k->dequant[t->ggml_type](x + done * gt->bytes, buf, nb);
        rc = put(ctx, (const uint8_t *)buf, nb * gt->block * 4);
    }
    free(buf);
    return rc;
}

/* ---- scaled pairs (SPEC 18; paired by scaled.c) --------------------------- */

/* p[0 .. n) times s, four at a time (SSE2's or NEON's multiply, which the
 * compiler does not choose for this loop by itself at -O2). */
static void scale_floats(float *p, size_t n, float s)
{
    typedef float f4 __attribute__((vector_size(16)));
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        f4 v;
        memcpy(&v, p + i, sizeof v);
        v *= s;
        memcpy(p + i, &v, sizeof v);
    }
    for (; i < n; i++)
        p[i] *= s;
}

int tl_scaled_decode(const uint8_t *file, const struct tl_file *f, const struct tl_scaled *p,
                     uint64_t first, uint64_t count, float *out)
{
    const struct tl_file_tensor *w = &f->tensors[p->weight], *s = &f->tensors[p->scale];
    if (w->encoding != TL_ENC_PLAIN || s->encoding != TL_ENC_PLAIN)
        return TL_E_VALUE;
    if (p->kind >= TL_SCALED_GPTQ) {             /* SPEC 21: through a tile of its own */
        struct tl_grouped_tile tile = { 0 };
        int rc = tl_grouped_decode(file, f, p, first, count, out, false, false, &tile);
        tl_grouped_tile_free(&tile);
        return rc;
    }
    const uint8_t *wb = file + w->begin, *sb = (p->scale_file ? p->scale_file : file) + s->begin;
    if (p->kind == TL_SCALED_FP8_BLOCK) {
        /* the part of a row in the range: its codes converted by the
         * kernel at once, then each 128-column block's times its scale */
        tl_cvt_fn cvt = tl_kernels_for(tl_isa_active())->cvt[TL_DT_FLOAT8E4M3][TL_DT_FLOAT32];
        uint64_t cols = w->shape[1], sc = s->shape[1];
        for (uint64_t k = 0; k < count;) {
            uint64_t e = first + k, r = e / cols, c = e % cols;
            uint64_t run = cols - c < count - k ? cols - c : count - k;
            float *o = out + k;
            if (cvt)
                cvt(wb + e, (uint8_t *)o, (size_t)run);
            else
                tl_cvt_scalar(TL_DT_FLOAT8E4M3, TL_DT_FLOAT32, wb + e, (uint8_t *)o, (size_t)run);
            for (uint64_t i = 0; i < run;) {
                uint64_t len = 128 - (c + i) % 128 < run - i ? 128 - (c + i) % 128 : run - i;
                float scale;
                memcpy(&scale, sb + 4 * ((r / 128) * sc + (c + i) / 128), 4);
                scale_floats(o + i, (size_t)len, scale);
                i += len;
            }
            k += run;
        }
        return 0;
    }
    /* MXFP4: whole blocks by the kernel, a part of one at either end
     * through a block of the scalar twin */
    tl_mx4_fn mx4 = tl_kernels_for(tl_isa_active())->mx4;
    for (uint64_t k = 0; k < count;) {
        uint64_t e = first + k, block = e / 32, j = e % 32;
        if (j == 0 && count - k >= 32) {
            uint64_t nb = (count - k) / 32;
            mx4(wb + block * 16, sb + block, out + k, (size_t)nb);
            k += nb * 32;
            continue;
        }
        float v[32];
        uint64_t run = 32 - j < count - k ? 32 - j : count - k;
        tl_mx4_scalar(wb + block * 16, sb + block, v, 1);
        memcpy(out + k, v + j, (size_t)run * sizeof *v);
        k += run;
    }
    return 0;
}

/* The lookup tables of one band of 128 rows' scales (tl_fp8s_table), for
 * as many column blocks as it holds. */
#define BAND_TABLES 1024
struct band_tables {
    uint64_t band;                      /* UINT64_MAX: none yet */
    bool ok[BAND_TABLES];
    uint8_t t[BAND_TABLES][32];
};

/* A scaled pair's values first .. first + count as BFLOAT16 at out, in
 * one pass: FP8 a block's run at a time (by its scale's table where it has
 * one), MXFP4 whole blocks (a part of one at either end through a block of
 * the scalar twin). */
static int scaled_bf16(const uint8_t *file, const struct tl_file *f, const struct tl_scaled *p,
                       uint64_t first, uint64_t count, uint8_t *out, struct band_tables *bt)
{
    const struct tl_file_tensor *w = &f->tensors[p->weight], *s = &f->tensors[p->scale];
    if (w->encoding != TL_ENC_PLAIN || s->encoding != TL_ENC_PLAIN)
        return TL_E_VALUE;
    const uint8_t *wb = file + w->begin, *sb = (p->scale_file ? p->scale_file : file) + s->begin;
    const struct tl_kernels *k = tl_kernels_for(tl_isa_active());
    if (p->kind == TL_SCALED_FP8_BLOCK) {
        uint64_t cols = w->shape[1], sc = s->shape[1], r = first / cols, c = first % cols;
        for (uint64_t i = 0; i < count;) {
            uint64_t e = first + i, len = 128 - c % 128;
            if (len > cols - c)
                len = cols - c;
            if (len > count - i)
                len = count - i;
            float scale;
            memcpy(&scale, sb + 4 * ((r / 128) * sc + c / 128), 4);
            if (sc <= BAND_TABLES && bt->band != r / 128) {
                for (uint64_t b = 0; b < sc; b++) {
                    float bs;
                    memcpy(&bs, sb + 4 * ((r / 128) * sc + b), 4);
                    bt->ok[b] = tl_fp8s_table(bs, bt->t[b]);
                }
                bt->band = r / 128;
            }
            const uint8_t *t = sc <= BAND_TABLES && bt->ok[c / 128] ? bt->t[c / 128] : NULL;
            k->fp8s_bf16(wb + e, t, scale, out + 2 * i, (size_t)len);
            i += len;
            if ((c += len) == cols) {           /* the next row */
                c = 0;
                r++;
            }
        }
        return 0;
    }
    for (uint64_t i = 0; i < count;) {
        uint64_t e = first + i, block = e / 32, j = e % 32;
        if (j == 0 && count - i >= 32) {
            uint64_t nb = (count - i) / 32;
            k->mx4_bf16(wb + block * 16, sb + block, out + 2 * i, (size_t)nb);
            i += nb * 32;
            continue;
        }
        uint8_t v[64];
        uint64_t run = 32 - j < count - i ? 32 - j : count - i;
        tl_mx4_bf16_scalar(wb + block * 16, sb + block, v, 1);
        memcpy(out + 2 * i, v + 2 * j, (size_t)run * 2);
        i += run;
    }
    return 0;
}

/* The tables (tl_fp8s_lut_make) of the band of 128 rows decoded last:
 * one a column block of the scale tensor at `scales`. */
struct tl_scaled_cache {
    const uint8_t *scales;
    uint64_t band;
    size_t cap;                         /* tables allocated */
    bool ok;                            /* every one of the band made */
    struct tl_fp8s_lut *lut;
    struct tl_grouped_tile tile;        /* a group-quantized weight's rows gathered */
};

void tl_scaled_cache_free(struct tl_scaled_cache *cache)
{
    if (cache) {
        free(cache->lut);
        tl_grouped_tile_free(&cache->tile);
    }
    free(cache);
}

/* Makes cc hold band's tables of the sc scales at sb; false where one
 * cannot be made (or out of memory): the band then goes the other way. */
static bool band_luts(struct tl_scaled_cache *cc, const uint8_t *sb, uint64_t band, uint64_t sc)
{
    if (cc->scales == sb && cc->band == band)
        return cc->ok;
    if (sc > cc->cap) {
        free(cc->lut);
        cc->cap = 0;
        if (sc > SIZE_MAX / sizeof *cc->lut ||
            !(cc->lut = aligned_alloc(64, (size_t)sc * sizeof *cc->lut)))
            return cc->scales = NULL, false;
        cc->cap = (size_t)sc;
    }
    cc->scales = sb;
    cc->band = band;
    cc->ok = true;
    for (uint64_t b = 0; b < sc && cc->ok; b++) {
        float scale;
        memcpy(&scale, sb + 4 * (band * sc + b), 4);
        cc->ok = tl_fp8s_lut_make(scale, &cc->lut[b]);
    }
    return cc->ok;
}

/* Block FP8 values first .. first + count as BFLOAT16 at out, a row's
 * part at a time by the kernel (a band without tables through
 * scaled_bf16). */
static int scaled_lut(const uint8_t *file, const struct tl_file *f, const struct tl_scaled *p,
                      uint64_t first, uint64_t count, uint8_t *out, bool stream,
                      tl_fp8s_lut_fn kern, struct tl_scaled_cache *cc)
{
    const struct tl_file_tensor *w = &f->tensors[p->weight], *s = &f->tensors[p->scale];
    if (w->encoding != TL_ENC_PLAIN || s->encoding != TL_ENC_PLAIN)
        return TL_E_VALUE;
    const uint8_t *wb = file + w->begin, *sb = (p->scale_file ? p->scale_file : file) + s->begin;
    uint64_t cols = w->shape[1], sc = s->shape[1];
    struct band_tables *bt = NULL;
    int rc = 0;
    for (uint64_t i = 0; i < count && rc == 0;) {
        uint64_t e = first + i, r = e / cols, c = e % cols, len = cols - c;
        if (len > count - i)
            len = count - i;
        if (band_luts(cc, sb, r / 128, sc)) {
            kern(wb + e, cc->lut + c / 128, 128 - c % 128, out + 2 * i, (size_t)len, stream);
        } else {
            if (!bt && (bt = malloc(sizeof *bt)))
                bt->band = UINT64_MAX;
            rc = bt ? scaled_bf16(file, f, p, e, len, out + 2 * i, bt) : TL_E_NOMEM;
        }
        i += len;
    }
    free(bt);
    return rc;
}

#define CHUNK 2048                      /* values staged at a time: 8 KiB of FLOAT32 */
#define STREAM_FROM (8u << 20)          /* output bytes from which it streams */

/* The caller's cache (made at its first use), else mine, set up for this
 * call: what one call works out for the next ones on the same pair. */
static struct tl_scaled_cache *cache_of(struct tl_scaled_cache **cache,
                                        struct tl_scaled_cache *mine)
{
    *mine = (struct tl_scaled_cache){ .band = UINT64_MAX };
    if (cache && !*cache && (*cache = malloc(sizeof **cache)))
        **cache = *mine;
    return cache && *cache ? *cache : mine;
}

static void cache_release(struct tl_scaled_cache *mine)
{
    free(mine->lut);
    tl_grouped_tile_free(&mine->tile);
}

/* One piece of the values, n from value first, at `to` as type dt: in one
 * pass to BFLOAT16 (a group-quantized weight's streamed out with stream),
 * else as FLOAT32 (into v where `to` is not FLOAT32's aligned place) then
 * converted. */
static int decode_piece(const uint8_t *file, const struct tl_file *f, const struct tl_scaled *p,
                        uint64_t first, uint64_t n, enum tl_dtype dt, uint8_t *to, float *v,
                        struct band_tables *bt, struct tl_scaled_cache *cc, tl_cvt_fn cvt,
                        bool stream)
{
    if (dt == TL_DT_BFLOAT16)
        return p->kind >= TL_SCALED_GPTQ ? tl_grouped_decode(file, f, p, first, n, to, true,
                                                             stream, &cc->tile)
                                         : scaled_bf16(file, f, p, first, n, to, bt);
    bool direct = dt == TL_DT_FLOAT32 && (uintptr_t)to % 4 == 0;
    float *y = direct ? (float *)(void *)to : v;
    int rc = p->kind >= TL_SCALED_GPTQ ? tl_grouped_decode(file, f, p, first, n, y, false, false,
                                                           &cc->tile)
                                       : tl_scaled_decode(file, f, p, first, n, y);
    if (rc || direct)
        return rc;
    if (dt == TL_DT_FLOAT32)
        memcpy(to, v, (size_t)n * 4);
    else if (cvt)
        cvt((const uint8_t *)v, to, (size_t)n);
    else
        tl_cvt_scalar(TL_DT_FLOAT32, dt, (const uint8_t *)v, to, (size_t)n);
    return 0;
}

/* Whether a group-quantized weight's BFLOAT16 values are streamed out by
 * its decoder, not staged and copied: whole groups of 4-bit codes in
 * order, which its kernel streams (other runs are stored one by one:
 * staged, they go out whole lines at a time).  Known in order once the
 * decoder has looked at g_idx. */
static bool grouped_direct(const struct tl_scaled *p, enum tl_dtype dt,
                           const struct tl_scaled_cache *cc)
{
    return dt == TL_DT_BFLOAT16 && p->kind >= TL_SCALED_GPTQ && p->bits == 4 &&
           p->group % 32 == 0 &&
           (p->extra[TL_PART_GIDX] == SIZE_MAX || (cc->tile.looked == p && cc->tile.in_order));
}

int tl_scaled_decode_as(const uint8_t *file, const struct tl_file *f, const struct tl_scaled *p,
                        uint64_t first, uint64_t count, enum tl_dtype dt, void *out,
                        struct tl_scaled_cache **cache)
{
    if (tl_dtype_bits(dt) < 8)
        return TL_E_VALUE;
    const struct tl_kernels *k = tl_kernels_for(tl_isa_active());
    unsigned des = tl_dtype_size(dt);
    bool stream = count * des >= STREAM_FROM && k->copy_stream && k->fence;
    struct tl_scaled_cache mine, *cc = cache_of(cache, &mine);
    int rc = 0;
    if (dt == TL_DT_BFLOAT16 && p->kind == TL_SCALED_FP8_BLOCK && k->fp8s_lut) {
        rc = scaled_lut(file, f, p, first, count, out, stream, k->fp8s_lut, cc);
        if (stream)
            k->fence();
        cache_release(&mine);
        return rc;
    }
    _Alignas(64) float v[CHUNK];
    _Alignas(64) uint8_t o[CHUNK * 8];
    struct band_tables bt;
    bt.band = UINT64_MAX;
    uint8_t *d = out;
    /* streamed, every chunk after the first starts on a cache line;
     * BFLOAT16's chunks, made in one pass, twice FLOAT32's (4,096 values,
     * 8 KiB of o: half the calls of the decoder's setup; 8,192 made
     * compressed-tensors' decoding slower) */
    uint64_t chunk = dt == TL_DT_BFLOAT16 ? sizeof o / 4 : CHUNK;
    uint64_t n = chunk, mis = (uintptr_t)d & 63;
    if (stream && mis % des == 0 && mis)
        n = (64 - mis) / des;
    for (uint64_t at = 0; rc == 0 && at < count; at += n, n = chunk) {
        if (n > count - at)
            n = count - at;
        bool direct = stream && grouped_direct(p, dt, cc);
        rc = decode_piece(file, f, p, first + at, n, dt, stream && !direct ? o : d + at * des, v,
                          &bt, cc, k->cvt[TL_DT_FLOAT32][dt], direct);
        if (rc == 0 && stream && !direct)
            k->copy_stream(o, d + at * des, (size_t)(n * des));
    }
    if (stream)
        k->fence();
    cache_release(&mine);
    return rc;
}

static const struct {
    const char *name;
    int (*decode)(const uint8_t *file, const struct tl_file_tensor *t, tl_put_fn put,
                  void *ctx, struct tl_error *err);
} encodings[TL_ENC_COUNT] = {
    [TL_ENC_PLAIN] = { "plain", decode_plain },
    [TL_ENC_DEFLATE] = { "deflate", decode_deflate },
    [TL_ENC_GGML] = { "ggml", decode_ggml },
    [TL_ENC_VARINT] = { "varint", decode_varint },
};

uint64_t tl_file_piece(const struct tl_file_tensor *t, uint64_t from, uint64_t max,
                       struct tl_file_tensor *part)
{
    const struct tl_ggml_type *gt = t->encoding == TL_ENC_GGML ? tl_ggml_type(t->ggml_type) : NULL;
    if (!gt || gt->plain >= 0 || !gt->bytes || t->stored_bytes % gt->bytes ||
        t->stored_bytes / gt->bytes * gt->block * 4 != t->decoded_bytes ||
        from % gt->bytes || from >= t->stored_bytes)
        return 0;
    uint64_t blocks = (t->stored_bytes - from) / gt->bytes, n = max / gt->bytes;
    if (n < 1)
        n = 1;
    if (n > blocks)
        n = blocks;
    *part = *t;
    part->stored_at = 0;
    part->stored_bytes = n * gt->bytes;
    part->decoded_bytes = n * gt->block * 4;
    return part->stored_bytes;
}

const char *tl_encoding_name(enum tl_encoding e)
{
    return e < TL_ENC_COUNT ? encodings[e].name : "?";
}

int tl_file_decode(const uint8_t *file, uint64_t len, const struct tl_file_tensor *t,
                   tl_put_fn put, void *ctx, struct tl_error *err)
{
    if (t->stored_at > len || t->stored_bytes > len - t->stored_at)
        return tl_fail(err, TL_E_RANGE, "data", "lies outside the file (or archive)");
    if (t->encoding >= TL_ENC_COUNT)
        return tl_fail(err, TL_E_VALUE, "encoding", "is not one this tool decodes");
    return encodings[t->encoding].decode(file, t, put, ctx, err);
}
