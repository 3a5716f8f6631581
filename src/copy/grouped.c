/*
 * grouped.c - the values of a group-quantized weight (SPEC 21; found by
 * src/core/grouped.c): element (o, i) of the logical [out, in] tensor is
 * (code - zero) x scale of row o's group g(i).
 *
 * A run of a row is decoded a group at a time by the CPU's gq kernel
 * (4 and 8 bits; 2 and 3 by the scalar path) from a stream of the row's
 * codes: compressed-tensors stores each row as one, GPTQ stores row o as
 * column o of its words (gathered word by word into a buffer), AWQ each
 * code of row o as one nibble of a word of column o / 8 (gathered code by
 * code).  Every value is one rounding of the exact (code - zero) x scale,
 * none for a FLOAT16 or BFLOAT16 scale, as the schemes' references
 * compute it in the scale's type and then widen.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "copy.h"
#include "dequant.h"
#include "internal.h"
#include "tl.h"


struct row {
    const uint8_t *file;
    const struct tl_file *f;
    const struct tl_scaled *p;
    const uint8_t *wb, *sb, *gb;
    enum tl_dtype sdt, gdt;
    const struct tl_kernels *k;
    struct tl_grouped_tile *tile;       /* GPTQ's and AWQ's rows gathered, or NULL */
    const uint8_t *zb;                  /* the zero points' bytes, or NULL */
    uint64_t zcols;                     /* their row's words */
};

/* GPTQ's words of TL_GQ_TILE rows from o0 (each row's stream of words as
 * compressed-tensors stores a row), AWQ's of 8 rows likewise:
 * gathered a whole row at a time, a cache line of the source feeding every
 * row of the tile (reading a column word by word fetched a line a word). */
#define TL_GQ_TILE 128
#define AWQ_COLS 16                     /* AWQ: a line of 16 words, 128 rows */
#define AWQ_AHEAD 16                    /* its lines fetched this many words ahead, */
#define AWQ_LOC 1                       /* into L2 (into L1: 0.34 of memcpy, not 0.38) */
#define AWQ_WORDS 16                    /* words made a row at a time */

/* The bytes of the tile's row: its words (GPTQ's w->shape[0], AWQ's one
 * for 8 inputs) rounded to an odd number of cache lines, so that a word of
 * each row, written or read together, fall in different cache sets (a
 * power of two of them put 128 rows in two sets: 0.07 of memcpy). */
static uint64_t tile_pitch(const struct tl_scaled *p, const struct tl_file_tensor *w)
{
    uint64_t words = p->kind == TL_SCALED_AWQ ? (p->in + 7) / 8 : w->shape[0];
    uint64_t lines = (words * 4 + 63) / 64;
    return (lines | 1) * 64;
}
static bool tile_fill(const struct row *r, uint64_t o)
{
    const struct tl_scaled *p = r->p;
    struct tl_grouped_tile *t = r->tile;
    const struct tl_file_tensor *w = &r->f->tensors[p->weight];
    bool awq = p->kind == TL_SCALED_AWQ;
    uint64_t rows = awq ? 8 * AWQ_COLS : TL_GQ_TILE, o0 = o / rows * rows;
    if (t->p == p && t->o0 == o0 && t->rows)
        return true;
    uint64_t per = tile_pitch(p, w), need = rows * per;
    if (need > t->cap) {
        uint8_t *more = realloc(t->buf, (size_t)need);
        if (!more)
            return false;
        t->buf = more;
        t->cap = need;
    }
    uint64_t cols = w->shape[1], n = o0 + rows <= p->out ? rows : p->out - o0;
    uint32_t *d = (uint32_t *)(void *)t->buf;
    if (awq) {
        /* the words of inputs 8j .. 8j + 7 in columns o0 / 8 on (a line of
         * each input's words), an 8 x 8 matrix of nibbles a column, by the
         * CPU's awq8 into AWQ_WORDS blocks of a vector a place, which the
         * copy core's transpose makes words j .. of the tile's rows;
         * inputs past the last read as zeros */
        const uint8_t *col = r->wb + (o0 / 8) * 4;
        uint64_t words = (p->in + 7) / 8, ncol = (n + 7) / 8;
        _Alignas(64) uint32_t blk[AWQ_WORDS][8][AWQ_COLS];
        for (uint64_t j0 = 0; j0 < words; j0 += AWQ_WORDS) {
            uint64_t jn = words - j0 < AWQ_WORDS ? words - j0 : AWQ_WORDS;
            for (uint64_t j = j0; j < j0 + jn; j++) {
                const uint8_t *src = col + 8 * j * cols * 4;
                size_t stride = (size_t)(cols * 4);
                uint32_t line[8][AWQ_COLS];
                for (uint64_t q = 8 * AWQ_AHEAD; q < 8 * AWQ_AHEAD + 8 && 8 * j + q < p->in; q++)
                    for (uint64_t b = 0; b < ncol * 4; b += 64)
                        __builtin_prefetch(src + q * stride + b, 0, AWQ_LOC);
                if (8 * j + 8 > p->in) {
                    memset(line, 0, sizeof line);
                    for (uint64_t q = 0; 8 * j + q < p->in; q++)
                        memcpy(line[q], src + q * stride, (size_t)ncol * 4);
                    src = (const uint8_t *)line;
                    stride = sizeof line[0];
                }
                for (uint64_t c0 = 0; c0 < ncol; c0 += 16)      /* awq8's 16 at most */
                    r->k->awq8(src + c0 * 4, stride, (size_t)(ncol - c0 < 16 ? ncol - c0 : 16),
                               tl_awq_place, blk[j - j0][0] + c0, AWQ_COLS);
            }
            for (unsigned k = 0; k < 8; k++)    /* place k: rows 8c + k */
                r->k->transpose[2]((const uint8_t *)blk[0][k], sizeof blk[0],
                                   (uint8_t *)(d + k * (per / 4) + j0), (size_t)(8 * per),
                                   (size_t)jn, (size_t)ncol);
        }
    } else {                            /* word (k, o0 + j) to row j's word k: the */
        uint64_t words = w->shape[0];   /* copy core's transpose of 4-byte elements */
        r->k->transpose[2](r->wb + o0 * 4, (size_t)(cols * 4), t->buf, (size_t)per,
                           (size_t)words, (size_t)n);
    }
    t->p = p;
    t->o0 = o0;
    t->rows = (unsigned)rows;
    return true;
}

/* The stream of row o's codes (compressed-tensors' row where it lies,
 * GPTQ's and AWQ's from the tile), *bits its code width; NULL when the
 * tile cannot be made (out of memory). */
static const uint8_t *codes(const struct row *r, uint64_t o, unsigned *bits)
{
    const struct tl_scaled *p = r->p;
    const struct tl_file_tensor *w = &r->f->tensors[p->weight];
    *bits = p->bits;
    if (p->kind == TL_SCALED_PACKED)
        return r->wb + o * w->shape[1] * 4;
    if (!tile_fill(r, o))
        return NULL;
    return r->tile->buf + (o - r->tile->o0) * tile_pitch(p, w);
}

/* Whether the zero points are read here from their words, 32 / bits a
 * word (GPTQ's 4- and 8-bit ones and AWQ's: a group's run is 128 codes or
 * so, and a call and a copy of a few bytes each weighed as much as the
 * run), and zero point q of word w (AWQ's in its nibble order, as its
 * codes'). */
static bool zeros_in_words(const struct row *r)
{
    const struct tl_scaled *p = r->p;
    bool awq = p->kind == TL_SCALED_AWQ;
    return r->zb && (p->bits == 4 || (p->bits == 8 && !awq)) && (awq || p->kind == TL_SCALED_GPTQ);
}
static inline int32_t zero_in_word(const struct tl_scaled *p, uint32_t w, unsigned q)
{
    unsigned at = p->kind == TL_SCALED_AWQ ? tl_awq_place[q] : q;
    return (int32_t)(w >> (at * p->bits) & ((1u << p->bits) - 1)) + p->plus1;
}

/* The zero point of group g of row o: from its word (per a shift, not a
 * division), else by tl_grouped_zero. */
static inline int32_t zero_of(const struct row *r, uint64_t g, uint64_t o)
{
    const struct tl_scaled *p = r->p;
    if (zeros_in_words(r)) {
        unsigned per = p->bits == 4 ? 8 : 4;
        uint32_t w;
        memcpy(&w, r->zb + (g * r->zcols + o / per) * 4, 4);
        return zero_in_word(p, w, (unsigned)(o % per));
    }
    if (p->extra[TL_PART_ZEROS] == SIZE_MAX)
        return p->zero;
    return tl_grouped_zero(r->file, r->f, p, g, o);
}

/* The zero points of group g of the n rows from o at to, `stride` apart:
 * a word's at a time where they are read from words and o starts one. */
static void zeros_of(const struct row *r, uint64_t g, uint64_t o, uint64_t n, int32_t *to,
                     uint64_t stride)
{
    const struct tl_scaled *p = r->p;
    unsigned per = p->bits == 4 ? 8 : 4;        /* where they are read from words */
    if (!zeros_in_words(r) || o % per) {
        for (uint64_t j = 0; j < n; j++)
            to[j * stride] = zero_of(r, g, o + j);
        return;
    }
    const uint8_t *zw = r->zb + (g * r->zcols + o / per) * 4;
    for (uint64_t j = 0; j < n; j += per, zw += 4) {
        uint32_t w;
        memcpy(&w, zw, 4);
        for (unsigned q = 0; q < per && j + q < n; q++)
            to[(j + q) * stride] = zero_in_word(p, w, q);
    }
}

/* Group g's scales and zero points of the `rows` rows from o, the next
 * tables' (their lines lie a group's row apart, where the CPU's own
 * prefetching does not look: fetched while this tile is decoded). */
static void ahead(const struct row *r, uint64_t g, uint64_t o, uint64_t rows)
{
    const struct tl_scaled *p = r->p;
    if (o >= p->out)
        return;
    if (rows > p->out - o)
        rows = p->out - o;
    uint64_t gs = r->f->tensors[p->scale].shape[1], es = tl_dtype_size(r->sdt);
    const uint8_t *s = r->sb + (g * gs + o) * es;
    for (uint64_t b = 0; b < rows * es; b += 64)
        __builtin_prefetch(s + b);
    if (r->zb) {
        const uint8_t *z = r->zb + (g * r->zcols + o * p->bits / 32) * 4;
        for (uint64_t b = 0; b < (rows * p->bits + 7) / 8; b += 64)
            __builtin_prefetch(z + b);
    }
}

/* n contiguous scales from `from` as FLOAT32 at to (the CPU's conversion,
 * exact from FLOAT16 and BFLOAT16). */
static void scales_of(const struct row *r, const uint8_t *from, size_t n, float *to)
{
    tl_cvt_fn cvt = r->k->cvt[r->sdt][TL_DT_FLOAT32];
    if (r->sdt == TL_DT_FLOAT32)
        memcpy(to, from, n * 4);
    else if (cvt)
        cvt(from, (uint8_t *)to, n);
    else
        tl_cvt_scalar(r->sdt, TL_DT_FLOAT32, from, (uint8_t *)to, n);
}

/* The scales and zero points of the TL_GQ_TILE rows holding row o, as
 * FLOAT32 and int32 tables of each row's groups (made once a tile: read
 * group by group, a scale a call and a zero point from a strided word
 * weighed as much as decoding the group's codes).  GPTQ's and AWQ's lie
 * along out: a group's line feeds many rows.  Rows of very many groups
 * (groups of a few inputs) take fewer rows a table, so that the tables
 * stay within TABLES_MAX bytes, or one row's: 8 bytes a group against the
 * file's 2 or 4 of its scales. */
#ifndef TABLES_MAX
#define TABLES_MAX (4u << 20)
#endif
static bool tables_fill(const struct row *r, uint64_t o)
{
    const struct tl_scaled *p = r->p;
    struct tl_grouped_tile *t = r->tile;
    uint64_t groups = (p->in + p->group - 1) / p->group, rows = TL_GQ_TILE;
    while (rows > 1 && rows * groups * 8 > TABLES_MAX)
        rows /= 2;                      /* tiny groups: fewer rows a table */
    uint64_t o0 = o / rows * rows;
    if (t->tp == p && t->t0 == o0 && t->scales)
        return true;
    uint64_t n = o0 + rows <= p->out ? rows : p->out - o0, need = n * groups;
    if (need > t->tcap) {
        float *s = realloc(t->scales, (size_t)need * sizeof *s);
        if (s)
            t->scales = s;
        int32_t *z = s ? realloc(t->zeros, (size_t)need * sizeof *z) : NULL;
        if (!z)
            return false;
        t->zeros = z;
        t->tcap = need;
    }
    t->tp = NULL;
    const struct tl_file_tensor *st = &r->f->tensors[p->scale];
    uint64_t gs = st->shape[1], es = tl_dtype_size(r->sdt);
    float line[TL_GQ_TILE];
    bool by_row = p->kind == TL_SCALED_PACKED;
    for (uint64_t g = 0; !by_row && g < groups; g++) {
        const uint8_t *from = r->sb + (g * gs + o0) * es;
        ahead(r, g, o0 + rows, rows);
        scales_of(r, from, (size_t)n, line);
        for (uint64_t j = 0; j < n; j++)
            t->scales[j * groups + g] = line[j];
        zeros_of(r, g, o0, n, t->zeros + g, groups);
    }
    for (uint64_t j = 0; by_row && j < n; j++) {
        const uint8_t *from = r->sb + (o0 + j) * gs * es;
        float *row = t->scales + j * groups;
        scales_of(r, from, (size_t)groups, row);
        for (uint64_t g = 0; g < groups; g++)
            t->zeros[j * groups + g] = zero_of(r, g, o0 + j);
    }
    t->tp = p;
    t->t0 = o0;
    t->groups = groups;
    return true;
}

/* The group of input i. */
static uint64_t group(const struct row *r, uint64_t i)
{
    if (!r->gb)
        return i / r->p->group;
    return tl_grouped_read(r->gb, r->gdt, i);
}

/* One value at y: FLOAT32, or BFLOAT16 with bf16. */
static void put_value(uint8_t *y, float v, bool bf16)
{
    if (bf16) {
        uint16_t h = tl_float_to_bfloat(v);
        memcpy(y, &h, 2);
    } else {
        memcpy(y, &v, 4);
    }
}

/* n values of row o from input i, the codes' stream at s (codes `bits`
 * wide) from code at, into y: FLOAT32, or BFLOAT16 with bf16 (whole
 * groups of 4-bit codes streamed out with stream). */
static void decode_run(const struct row *r, uint64_t o, uint64_t i, uint64_t n, const uint8_t *s,
                       uint64_t at, unsigned bits, uint8_t *y, bool bf16, bool stream)
{
    const struct tl_scaled *p = r->p;
    const struct tl_grouped_tile *t = r->tile;
    const float *scales = t->scales + (o - t->t0) * t->groups;    /* row o's */
    const int32_t *zeros = t->zeros + (o - t->t0) * t->groups;
    uint64_t es = bf16 ? 2 : 4;
    unsigned slot = bits == 4 ? 0 : 1;
    bool vec = bits == 4 || bits == 8;
    uint64_t g = group(r, i), next = (g + 1) * p->group;  /* in order: where g + 1 starts */
    for (uint64_t k = 0; k < n; g++, next += p->group) {
        uint64_t len = 1, whole = (n - k) / p->group;
        if (bf16 && bits == 4 && !r->gb && p->group % 2 == 0 && (at + k) % 2 == 0 &&
            i + k + p->group == next && whole >= 2) {
            /* whole groups from a byte: their values made together */
            uint64_t m = whole < 64 ? whole : 64;
            r->k->gq4_bf16_groups(s + (at + k) / 2, (size_t)m, (size_t)p->group, zeros + g,
                                  scales + g, y + k * 2, stream);
            k += m * p->group;
            g += m - 1;
            next += (m - 1) * p->group;
            continue;
        }
        if (!r->gb)
            len = next - (i + k);       /* no division a group */
        else
            for (g = group(r, i + k); k + len < n && group(r, i + k + len) == g;)
                len++;
        if (len > n - k)
            len = n - k;
        float scale = scales[g];
        int32_t zero = zeros[g];
        uint64_t c = at + k, done = 0;
        if (vec && bits == 4 && c % 2) {        /* a nibble to reach a whole byte */
            put_value(y + k * es, (float)((int32_t)tl_grouped_code(s, 4, c) - zero) * scale, bf16);
            done = 1;
        }
        if (vec && len > done && bf16)
            r->k->gq_bf16[slot](s + (c + done) * bits / 8, (size_t)(len - done), zero, scale,
                                y + (k + done) * 2);
        else if (vec && len > done)
            r->k->gq[slot](s + (c + done) * bits / 8, (size_t)(len - done), zero, scale,
                           (float *)(void *)(y + (k + done) * 4));
        for (uint64_t j = done; !vec && j < len; j++)
            put_value(y + (k + j) * es, (float)((int32_t)tl_grouped_code(s, bits, c + j) - zero) * scale,
                      bf16);
        k += len;
    }
}

static struct row row_of(const uint8_t *file, const struct tl_file *f, const struct tl_scaled *p,
                         struct tl_grouped_tile *tile)
{
    const struct tl_file_tensor *w = &f->tensors[p->weight], *s = &f->tensors[p->scale];
    size_t gr = p->extra[TL_PART_GIDX];
    struct row r = { file, f, p, file + w->begin,
                     (p->scale_file ? p->scale_file : file) + s->begin, NULL, s->desc.dtype,
                     TL_DT_INT32, tl_kernels_for(tl_isa_active()), tile, NULL, 0 };
    if (gr != SIZE_MAX) {
        r.gb = (p->extra_file[TL_PART_GIDX] ? p->extra_file[TL_PART_GIDX] : file) +
               f->tensors[gr].begin;
        r.gdt = f->tensors[gr].desc.dtype;
    }
    size_t zr = p->extra[TL_PART_ZEROS];
    if (zr != SIZE_MAX) {
        r.zb = (p->extra_file[TL_PART_ZEROS] ? p->extra_file[TL_PART_ZEROS] : file) +
               f->tensors[zr].begin;
        r.zcols = f->tensors[zr].shape[1];
    }
    if (r.gb && tile && tile->looked != p) {        /* act-order, or i / group after all */
        tile->looked = p;
        tile->in_order = !tl_grouped_act_order(file, f, p);
    }
    if (r.gb && tile && tile->in_order)
        r.gb = NULL;
    return r;
}

void tl_grouped_tile_free(struct tl_grouped_tile *t)
{
    free(t->buf);
    free(t->scales);
    free(t->zeros);
    memset(t, 0, sizeof *t);
}

int tl_grouped_decode(const uint8_t *file, const struct tl_file *f, const struct tl_scaled *p,
                      uint64_t first, uint64_t count, void *out, bool bf16, bool stream,
                      struct tl_grouped_tile *tile)
{
    struct row r = row_of(file, f, p, tile);
    uint64_t es = bf16 ? 2 : 4;
    for (uint64_t k = 0; k < count;) {
        uint64_t e = first + k, o = e / p->in, i = e % p->in;
        uint64_t n = p->in - i < count - k ? p->in - i : count - k;
        unsigned bits;
        const uint8_t *codes_at = codes(&r, o, &bits);
        if (!codes_at || !tables_fill(&r, o))
            return TL_E_NOMEM;
        decode_run(&r, o, i, n, codes_at, i, bits, (uint8_t *)out + k * es, bf16, stream);
        k += n;
    }
    return 0;
}

/* ---- repacked into ggml's blocks (SPEC 21) ------------------------------ */

static void put_half(uint8_t *at, float v)
{
    uint16_t h = tl_float_to_half(v);
    memcpy(at, &h, 2);
}

int tl_grouped_blocks(const uint8_t *file, const struct tl_file *f, const struct tl_scaled *p,
                      uint32_t gtype, uint64_t o, uint8_t *out, double *offset_error,
                      struct tl_grouped_tile *tile)
{
    struct row r = row_of(file, f, p, tile);
    uint64_t gs = f->tensors[p->scale].shape[1];
    bool by_row = p->kind == TL_SCALED_PACKED;
    unsigned bits;
    const uint8_t *st = codes(&r, o, &bits);
    if (!st)
        return TL_E_NOMEM;
    float scale = 0;
    int32_t zero = 0;
    for (uint64_t b = 0; b < p->in / 32; b++) {
        uint64_t c0 = 32 * b, g = c0 / p->group;
        if (c0 % p->group == 0) {       /* a group a multiple of 32: it starts a block */
            scale = tl_grouped_scale(r.sb, r.sdt, by_row ? o * gs + g : g * gs + o);
            zero = zero_of(&r, g, o);
        }
        uint8_t c[32];
        if (bits == 8)
            memcpy(c, st + c0, 32);
        else if (bits == 4)
            for (int j = 0; j < 16; j++) {
                c[2 * j] = st[c0 / 2 + (uint64_t)j] & 15;
                c[2 * j + 1] = st[c0 / 2 + (uint64_t)j] >> 4;
            }
        else
            for (int j = 0; j < 32; j++)
                c[j] = (uint8_t)tl_grouped_code(st, bits, c0 + (uint64_t)j);
        if (gtype == 8) {                   /* Q8_0: d, 32 int8 */
            put_half(out, scale);
            for (int j = 0; j < 32; j++)
                out[2 + j] = (uint8_t)(int8_t)((int32_t)c[j] - zero);
            out += 34;
            continue;
        }
        put_half(out, scale);               /* Q4_0: d, 16 bytes; Q4_1: d, m, 16 bytes */
        uint8_t *qs = out + 2;
        if (gtype == 3) {
            float m = (float)-zero * scale;  /* exact in FLOAT32 */
            put_half(out + 2, m);
            double e = fabs((double)tl_half_to_float(tl_float_to_half(m)) - (double)m);
            if (e > *offset_error)
                *offset_error = e;
            qs = out + 4;
        }
        for (int j = 0; j < 16; j++)
            qs[j] = (uint8_t)(c[j] | c[j + 16] << 4);
        out = qs + 16;
    }
    return 0;
}
