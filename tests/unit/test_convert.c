/* test_convert.c - the scalar converter: SPEC section 7's rules, exactly. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/core/tl.h"
#include "check.h"
#include "tests.h"

static uint32_t f32_bits(float f)
{
    uint32_t b;
    memcpy(&b, &f, 4);
    return b;
}

void convert_should_round_trip_every_half_and_bfloat(void)
{
    /* all 65,536 patterns of both 16-bit types to FLOAT32 and back: the
     * same bits, but a NaN, which comes back quieted with its sign */
    for (int t = 0; t < 2; t++) {
        enum tl_dtype h = t ? TL_DT_BFLOAT16 : TL_DT_FLOAT16;
        uint16_t quiet = t ? 0x0040 : 0x0200, expo = t ? 0x7f80 : 0x7c00;
        for (uint32_t b = 0; b <= 0xffff; b++) {
            uint16_t in = (uint16_t)b, back;
            float f;
            CHECK(!tl_convert_value(h, &in, TL_DT_FLOAT32, &f));
            CHECK(!tl_convert_value(TL_DT_FLOAT32, &f, h, &back));
            bool nan = (in & expo) == expo && (in & (expo ^ 0x7fff));
            if (nan ? back != (in | quiet) : back != in)
                CHECK_EQ_U64(back, in);
        }
    }
}

void convert_should_round_floats_once(void)
{
    uint16_t h;
    float f;
    double d;
    /* FLOAT32 -> FLOAT16: the largest, inf beyond, ties to even, subnormals */
    f = 65504.0f;
    tl_convert_value(TL_DT_FLOAT32, &f, TL_DT_FLOAT16, &h);
    CHECK_EQ_U64(h, 0x7bff);
    f = 65520.0f;
    tl_convert_value(TL_DT_FLOAT32, &f, TL_DT_FLOAT16, &h);
    CHECK_EQ_U64(h, 0x7c00);
    f = 1.0f + 1.0f / 2048;
    tl_convert_value(TL_DT_FLOAT32, &f, TL_DT_FLOAT16, &h);
    CHECK_EQ_U64(h, 0x3c00);
    f = 1.0f + 3.0f / 2048;
    tl_convert_value(TL_DT_FLOAT32, &f, TL_DT_FLOAT16, &h);
    CHECK_EQ_U64(h, 0x3c02);
    f = ldexpf(1.0f, -24);
    tl_convert_value(TL_DT_FLOAT32, &f, TL_DT_FLOAT16, &h);
    CHECK_EQ_U64(h, 0x0001);
    f = -0.0f;
    tl_convert_value(TL_DT_FLOAT32, &f, TL_DT_FLOAT16, &h);
    CHECK_EQ_U64(h, 0x8000);
    /* FLOAT64 -> FLOAT16 in one rounding: just above a tie goes up, where
     * rounding through FLOAT32 first would tie to even and go down */
    d = 1.0 + 1.0 / 2048 + 1e-12;
    tl_convert_value(TL_DT_FLOAT64, &d, TL_DT_FLOAT16, &h);
    CHECK_EQ_U64(h, 0x3c01);
    d = 1.0 + 1.0 / 256 + 1e-12;
    tl_convert_value(TL_DT_FLOAT64, &d, TL_DT_BFLOAT16, &h);
    CHECK_EQ_U64(h, 0x3f81);
    /* NaN stays NaN, with its sign; never Inf, BFLOAT16 too */
    uint32_t nanbits = 0xff800001;
    memcpy(&f, &nanbits, 4);
    tl_convert_value(TL_DT_FLOAT32, &f, TL_DT_BFLOAT16, &h);
    CHECK_EQ_U64(h, 0xffc0);
    tl_convert_value(TL_DT_FLOAT32, &f, TL_DT_FLOAT16, &h);
    CHECK_EQ_U64(h, 0xfe00);
    f = 3.4e38f;
    tl_convert_value(TL_DT_FLOAT32, &f, TL_DT_BFLOAT16, &h);
    CHECK_EQ_U64(h, 0x7f80);
}

void convert_should_round_integers_to_floats_once(void)
{
    uint16_t h;
    float f;
    double d;
    /* 2^24 + 2^16 + 1 is just above a BFLOAT16 tie: it goes up, where
     * rounding through FLOAT32 first would tie to even and go down */
    int32_t i = (1 << 24) + (1 << 16) + 1;
    tl_convert_value(TL_DT_INT32, &i, TL_DT_BFLOAT16, &h);
    CHECK_EQ_U64(h, 0x4b81);
    int64_t big = INT64_MAX;
    tl_convert_value(TL_DT_INT64, &big, TL_DT_FLOAT32, &f);
    CHECK_EQ_U64(f32_bits(f), 0x5f000000);
    tl_convert_value(TL_DT_INT64, &big, TL_DT_FLOAT16, &h);
    CHECK_EQ_U64(h, 0x7c00);
    uint64_t u = UINT64_MAX;
    tl_convert_value(TL_DT_UINT64, &u, TL_DT_FLOAT64, &d);
    CHECK(d == 18446744073709551616.0);
    u = (1ull << 53) + 1;              /* a tie at FLOAT64: to even */
    tl_convert_value(TL_DT_UINT64, &u, TL_DT_FLOAT64, &d);
    CHECK(d == 9007199254740992.0);
    int64_t m = INT64_MIN;
    tl_convert_value(TL_DT_INT64, &m, TL_DT_BFLOAT16, &h);
    CHECK_EQ_U64(h, 0xdf00);
    uint8_t b = 255;
    tl_convert_value(TL_DT_UINT8, &b, TL_DT_FLOAT16, &h);
    CHECK_EQ_U64(h, 0x5bf8);
    i = 65519;
    tl_convert_value(TL_DT_INT32, &i, TL_DT_FLOAT16, &h);
    CHECK_EQ_U64(h, 0x7bff);
    i = 65520;
    tl_convert_value(TL_DT_INT32, &i, TL_DT_FLOAT16, &h);
    CHECK_EQ_U64(h, 0x7c00);
}

void convert_should_truncate_and_check_integer_ranges(void)
{
    uint8_t u8;
    int8_t i8;
    int64_t i64;
    uint64_t u64;
    float f;
    double d;
    f = 255.9f;
    CHECK(!tl_convert_value(TL_DT_FLOAT32, &f, TL_DT_UINT8, &u8) && u8 == 255);
    f = 256.0f;
    CHECK(tl_convert_value(TL_DT_FLOAT32, &f, TL_DT_UINT8, &u8) && u8 == 255);
    f = -0.9f;
    CHECK(!tl_convert_value(TL_DT_FLOAT32, &f, TL_DT_UINT8, &u8) && u8 == 0);
    f = -1.0f;
    CHECK(tl_convert_value(TL_DT_FLOAT32, &f, TL_DT_UINT8, &u8) && u8 == 0);
    f = -128.9f;
    CHECK(!tl_convert_value(TL_DT_FLOAT32, &f, TL_DT_INT8, &i8) && i8 == -128);
    f = NAN;
    CHECK(tl_convert_value(TL_DT_FLOAT32, &f, TL_DT_INT8, &i8) && i8 == 0);
    f = -INFINITY;
    CHECK(tl_convert_value(TL_DT_FLOAT32, &f, TL_DT_INT8, &i8) && i8 == -128);
    d = 9223372036854775808.0;         /* 2^63: one past INT64's range */
    CHECK(tl_convert_value(TL_DT_FLOAT64, &d, TL_DT_INT64, &i64) && i64 == INT64_MAX);
    d = -9223372036854775808.0;
    CHECK(!tl_convert_value(TL_DT_FLOAT64, &d, TL_DT_INT64, &i64) && i64 == INT64_MIN);
    d = 18446744073709549568.0;        /* the largest double below 2^64 */
    CHECK(!tl_convert_value(TL_DT_FLOAT64, &d, TL_DT_UINT64, &u64) && u64 == 18446744073709549568ull);
    /* integers: exact, or clamped and reported */
    int32_t i = 300;
    CHECK(tl_convert_value(TL_DT_INT32, &i, TL_DT_UINT8, &u8) && u8 == 255);
    i = -1;
    CHECK(tl_convert_value(TL_DT_INT32, &i, TL_DT_UINT64, &u64) && u64 == 0);
    u64 = UINT64_MAX;
    CHECK(tl_convert_value(TL_DT_UINT64, &u64, TL_DT_INT64, &i64) && i64 == INT64_MAX);
    i64 = -128;
    CHECK(!tl_convert_value(TL_DT_INT64, &i64, TL_DT_INT8, &i8) && i8 == -128);
}

/* SPEC 19: a finite value that becomes +-Inf in a narrower float type is
 * reported (and counted), an infinity or a NaN is not.  The edges are
 * IEEE's: FLOAT16's largest is 65504 and 65520 (halfway to 65536) rounds
 * up to Inf, as numpy's float32(65520).astype(float16) gives inf;
 * BFLOAT16's largest is 0x7f7f, and 0x7f7f8000 rounds up. */
void convert_should_report_float_overflow(void)
{
    float f;
    uint16_t h;
    double d;
    f = 65519.99f;
    CHECK(!tl_convert_value(TL_DT_FLOAT32, &f, TL_DT_FLOAT16, &h) && h == 0x7bff);
    f = 65520.0f;
    CHECK(tl_convert_value(TL_DT_FLOAT32, &f, TL_DT_FLOAT16, &h) && h == 0x7c00);
    f = -3.4e38f;
    CHECK(tl_convert_value(TL_DT_FLOAT32, &f, TL_DT_FLOAT16, &h) && h == 0xfc00);
    f = INFINITY;
    CHECK(!tl_convert_value(TL_DT_FLOAT32, &f, TL_DT_FLOAT16, &h) && h == 0x7c00);
    f = NAN;
    CHECK(!tl_convert_value(TL_DT_FLOAT32, &f, TL_DT_FLOAT16, &h));
    uint32_t b = 0x7f7f7fff;
    memcpy(&f, &b, 4);
    CHECK(!tl_convert_value(TL_DT_FLOAT32, &f, TL_DT_BFLOAT16, &h) && h == 0x7f7f);
    b = 0x7f7f8000;
    memcpy(&f, &b, 4);
    CHECK(tl_convert_value(TL_DT_FLOAT32, &f, TL_DT_BFLOAT16, &h) && h == 0x7f80);
    d = 1e39;
    CHECK(tl_convert_value(TL_DT_FLOAT64, &d, TL_DT_FLOAT32, &f) && isinf(f));
    d = 1e300;
    CHECK(!tl_convert_value(TL_DT_FLOAT64, &d, TL_DT_FLOAT64, &d));
    int32_t i = 70000;
    CHECK(tl_convert_value(TL_DT_INT32, &i, TL_DT_FLOAT16, &h) && h == 0x7c00);
    /* the count over a tensor: a strided one, two of its six values */
    float v[12] = { 1, 0, 70000, 0, -65520, 0, INFINITY, 0, NAN, 0, 65504, 0 };
    struct tl_desc t = { .dtype = TL_DT_FLOAT32, .rank = 1, .sizes = { 6 }, .strides = { 2 } };
    CHECK(tl_desc_validate(&t, NULL) == 0);
    CHECK(tl_convert_count_overflow(&t, (const uint8_t *)v, TL_DT_FLOAT16) == 2);
    CHECK(tl_convert_count_overflow(&t, (const uint8_t *)v, TL_DT_BFLOAT16) == 0);
    CHECK(tl_convert_count_overflow(&t, (const uint8_t *)v, TL_DT_INT32) == 0);
    t.dtype = TL_DT_FLOAT64;              /* the generic path */
    double w[3] = { 1e39, -1e39, 1 };
    t.sizes[0] = 3;
    t.strides[0] = 1;
    CHECK(tl_desc_validate(&t, NULL) == 0);
    CHECK(tl_convert_count_overflow(&t, (const uint8_t *)w, TL_DT_FLOAT32) == 2);
}

/* A group-quantized weight of out x 4096 4-bit codes, groups of 128,
 * FLOAT16 scales about 2^-6, zero points, in kind's layout, from random
 * bytes: parts t[0..2] of file. */
static uint8_t *grouped_weight(enum tl_scaled_kind kind, uint64_t out, struct tl_file_tensor t[3],
                               struct tl_scaled *p)
{
    uint64_t in = 4096, groups = in / 128;
    memset(t, 0, 3 * sizeof *t);
    memset(p, 0, sizeof *p);
    memset(p->extra, 0xff, sizeof p->extra);
    p->kind = kind, p->weight = 0, p->scale = 1, p->bits = 4;
    p->out = out, p->in = in, p->group = 128, p->plus1 = kind == TL_SCALED_GPTQ, p->zero = 8;
    bool gptq = kind == TL_SCALED_GPTQ, awq = kind == TL_SCALED_AWQ;
    t[0].shape[0] = gptq ? in / 8 : awq ? in : out;
    t[0].shape[1] = gptq ? out : awq ? out / 8 : in / 8;
    t[1].shape[0] = groups, t[1].shape[1] = out;
    t[2].shape[0] = groups, t[2].shape[1] = out / 8;
    uint64_t bytes[3] = { in * out / 2, groups * out * 2, groups * out / 2 }, at = 0;
    for (int j = 0; j < 3; j++) {
        t[j].ndim = 2;
        t[j].desc.dtype = j == 1 ? TL_DT_FLOAT16 : TL_DT_INT32;
        t[j].begin = at;
        t[j].end = at += bytes[j];
    }
    if (kind != TL_SCALED_PACKED)
        p->extra[TL_PART_ZEROS] = 2;
    else                                /* compressed-tensors: scales by row */
        t[1].shape[0] = out, t[1].shape[1] = groups;
    uint8_t *file = malloc(at);
    uint64_t r = 88172645463325252ull;
    for (uint64_t k = 0; k < at; k++) {
        r ^= r << 13, r ^= r >> 7, r ^= r << 17;
        file[k] = (uint8_t)(r >> 32);
    }
    for (uint64_t k = t[1].begin + 1; k < t[1].end; k += 2)
        file[k] = 0x24;
    return file;
}

void grouped_should_stream_what_it_stages(void)
{
    /* BFLOAT16 of a weight larger than STREAM_FROM (8 MiB), decoded in one
     * call, is written by the decoder, with streaming stores where its
     * groups start on a cache line (the destination on a line's start) and
     * with ordinary ones where not (2 bytes off it); the same values
     * decoded in pieces of a few KiB are staged: every bit equal */
    static const enum tl_scaled_kind kinds[] = { TL_SCALED_GPTQ, TL_SCALED_AWQ, TL_SCALED_PACKED };
    for (int k = 0; k < 6; k++) {
        struct tl_file_tensor t[3];
        struct tl_scaled p;
        uint64_t out = 1152, count = out * 4096, off = k % 2 ? 2 : 0;
        uint8_t *file = grouped_weight(kinds[k / 2], out, t, &p);
        struct tl_file f = { 0 };
        f.count = 3;
        f.tensors = t;
        uint8_t *whole = aligned_alloc(64, count * 2 + 64), *pieces = malloc(count * 2);
        CHECK(file && whole && pieces);
        struct tl_scaled_cache *cache = NULL;
        CHECK(!tl_scaled_decode_as(file, &f, &p, 0, count, TL_DT_BFLOAT16, whole + off, &cache));
        for (uint64_t at = 0; at < count; at += 3000) {
            uint64_t n = count - at < 3000 ? count - at : 3000;
            CHECK(!tl_scaled_decode_as(file, &f, &p, at, n, TL_DT_BFLOAT16, pieces + 2 * at,
                                       &cache));
        }
        tl_scaled_cache_free(cache);
        CHECK(memcmp(whole + off, pieces, count * 2) == 0);
        free(whole);
        free(pieces);
        free(file);
    }
}
