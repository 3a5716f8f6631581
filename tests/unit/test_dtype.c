/* test_dtype.c - the data type table, value text and half precision. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/core/tl.h"
#include "check.h"
#include "tests.h"

void dtype_should_name_and_size_every_type(void)
{
    static const struct { const char *name; unsigned size; } want[] = {
        { "FLOAT32", 4 }, { "FLOAT16", 2 }, { "UINT32", 4 }, { "UINT16", 2 }, { "UINT8", 1 },
        { "INT32", 4 }, { "INT16", 2 }, { "INT8", 1 }, { "FLOAT64", 8 }, { "UINT64", 8 },
        { "INT64", 8 }, { "BFLOAT16", 2 }, { "UINT4", 1 }, { "INT4", 1 },
        { "FLOAT8E4M3", 1 }, { "FLOAT8E5M2", 1 }, { "FLOAT8E8M0", 1 }, { "FLOAT4E2M1", 1 },
        { "BOOL", 1 },
    };
    _Static_assert(sizeof want / sizeof want[0] == TL_DT_COUNT, "a row per type");
    for (int i = 0; i < TL_DT_COUNT; i++) {
        enum tl_dtype dt;
        CHECK_STR(tl_dtype_name((enum tl_dtype)i), want[i].name);
        CHECK_EQ_U64(tl_dtype_size((enum tl_dtype)i), want[i].size);
        CHECK(tl_dtype_from_name(want[i].name, &dt) == 0 && dt == (enum tl_dtype)i);
    }
    enum tl_dtype dt;
    CHECK(tl_dtype_from_name("dml_tensor_data_type_float16", &dt) == 0 && dt == TL_DT_FLOAT16);
    CHECK(tl_dtype_from_name("Uint8", &dt) == 0 && dt == TL_DT_UINT8);
    CHECK(tl_dtype_from_name("FLOAT", &dt) == TL_E_VALUE);
    CHECK(tl_dtype_from_name("DML_TENSOR_DATA_TYPE_", &dt) == TL_E_VALUE);
    CHECK(tl_dtype_from_name("bfloat16", &dt) == 0 && dt == TL_DT_BFLOAT16);
    CHECK(tl_dtype_from_name("FLOAT8", &dt) == TL_E_VALUE);
    CHECK(!tl_dtype_is_dml(TL_DT_BFLOAT16) && tl_dtype_is_dml(TL_DT_FLOAT16));
    CHECK(tl_dtype_from_name("DML_TENSOR_DATA_TYPE_INT4", &dt) == 0 && dt == TL_DT_INT4);
    CHECK(tl_dtype_from_any("uint4", &dt) == 0 && dt == TL_DT_UINT4);
    CHECK_EQ_U64(tl_dtype_bits(TL_DT_INT4), 4);
    /* 4 bits an element: bytes round up, counts round down */
    CHECK_EQ_U64(tl_dtype_bytes(TL_DT_UINT4, 5), 3);
    CHECK_EQ_U64(tl_dtype_bytes(TL_DT_UINT4, UINT64_MAX), UINT64_C(1) << 63);
    CHECK_EQ_U64(tl_dtype_count(TL_DT_INT4, 3), 6);
    CHECK(tl_dtype_unpacked(TL_DT_INT4) == TL_DT_INT8 && tl_dtype_unpacked(TL_DT_UINT4) == TL_DT_UINT8);
    CHECK(tl_dtype_unpacked(TL_DT_FLOAT16) == TL_DT_FLOAT16);
}

void dtype_table_should_agree_with_itself(void)
{
    /* every row: its bits, its kind and the formats' spellings agree */
    for (int i = 0; i < TL_DT_COUNT; i++) {
        enum tl_dtype dt = (enum tl_dtype)i, back;
        const struct tl_dtype_info *t = tl_dtype_info(dt);
        for (int j = 0; j < i; j++)
            CHECK(tl_dtype_info((enum tl_dtype)j)->order != t->order);
        if (t->bits >= 8) {
            CHECK_EQ_U64(t->bits, 8 * tl_dtype_size(dt));
            CHECK_EQ_U64(tl_dtype_bytes(dt, 3), 3 * tl_dtype_size(dt));
        } else {                         /* 4-bit: numpy has none; safetensors its F4 */
            CHECK(t->bits == 4 && tl_dtype_size(dt) == 1 && tl_dtype_bytes(dt, 3) == 2);
            CHECK(!t->npy && (!t->st || dt == TL_DT_FLOAT4E2M1));
            continue;
        }
        CHECK(tl_dtype_is_float(dt) == (t->kind == TL_KIND_FLOAT));
        CHECK(tl_dtype_is_signed(dt) == (t->kind == TL_KIND_SIGNED));
        if (t->npy) {
            char kind = t->kind == TL_KIND_FLOAT ? 'f' : t->kind == TL_KIND_SIGNED ? 'i'
                      : t->kind == TL_KIND_BOOL ? 'b' : 'u';
            CHECK(t->npy[1] == kind && (unsigned)atoi(t->npy + 2) * 8 == t->bits);
        }
        CHECK(t->st && tl_dtype_from_safetensors(t->st, &back) == 0 && back == dt);
    }
    enum tl_dtype dt;
    CHECK(tl_dtype_from_safetensors("bf16", &dt) == TL_E_VALUE);   /* exact spelling */
    CHECK(tl_dtype_from_safetensors("BOOL", &dt) == 0 && dt == TL_DT_BOOL);
    CHECK(tl_dtype_from_any("bool", &dt) == 0 && dt == TL_DT_BOOL);
    CHECK(tl_dtype_from_any("|b1", &dt) == 0 && dt == TL_DT_BOOL);
    CHECK(!tl_dtype_is_dml(TL_DT_BOOL) && !tl_dtype_is_float(TL_DT_BOOL) &&
          !tl_dtype_is_signed(TL_DT_BOOL));
    CHECK(tl_dtype_info(TL_DT_BFLOAT16)->npy == NULL);
    /* the lists messages show */
    char buf[200];
    CHECK_STR(tl_dtype_list(TL_SPELL_NAME, buf, sizeof buf),
              "FLOAT32 FLOAT16 BFLOAT16 FLOAT64 FLOAT8E4M3 FLOAT8E5M2 FLOAT8E8M0 FLOAT4E2M1 "
              "UINT4 UINT8 UINT16 UINT32 UINT64 INT4 INT8 INT16 INT32 INT64 BOOL");
    CHECK_STR(tl_dtype_list(TL_SPELL_NPY, buf, sizeof buf),
              "<f2 <f4 <f8 |u1 <u2 <u4 <u8 |i1 <i2 <i4 <i8 |b1");
    CHECK_STR(tl_dtype_list(TL_SPELL_SAFETENSORS, buf, sizeof buf),
              "F32 F16 BF16 F64 F8_E4M3 F8_E5M2 F8_E8M0 F4 U8 U16 U32 U64 I8 I16 I32 I64 BOOL");
    CHECK_STR(tl_dtype_list(TL_SPELL_NAME, buf, 12), "FLOAT32 FLO");     /* cut, terminated */
}

void dtype_should_format_shortest_values(void)
{
    char buf[48];
    float f = 0.1f;
    tl_dtype_format(TL_DT_FLOAT32, &f, buf, sizeof buf);
    CHECK_STR(buf, "0.1");
    f = 10.0f;
    tl_dtype_format(TL_DT_FLOAT32, &f, buf, sizeof buf);
    CHECK_STR(buf, "10");
    f = -INFINITY;
    tl_dtype_format(TL_DT_FLOAT32, &f, buf, sizeof buf);
    CHECK_STR(buf, "-inf");
    double d = 0.1;
    tl_dtype_format(TL_DT_FLOAT64, &d, buf, sizeof buf);
    CHECK_STR(buf, "0.1");
    d = 1.0 / 3.0;
    tl_dtype_format(TL_DT_FLOAT64, &d, buf, sizeof buf);
    CHECK_STR(buf, "0.3333333333333333");
    uint16_t h = 0x3e00;                      /* 1.5 */
    tl_dtype_format(TL_DT_FLOAT16, &h, buf, sizeof buf);
    CHECK_STR(buf, "1.5");
    h = 0x7e00;
    tl_dtype_format(TL_DT_FLOAT16, &h, buf, sizeof buf);
    CHECK_STR(buf, "nan");
    int8_t i8 = -128;
    tl_dtype_format(TL_DT_INT8, &i8, buf, sizeof buf);
    CHECK_STR(buf, "-128");
    uint64_t u64 = UINT64_MAX;
    tl_dtype_format(TL_DT_UINT64, &u64, buf, sizeof buf);
    CHECK_STR(buf, "18446744073709551615");
    int64_t i64 = INT64_MIN;
    tl_dtype_format(TL_DT_INT64, &i64, buf, sizeof buf);
    CHECK_STR(buf, "-9223372036854775808");
    unsigned char odd[9] = { 0, 0x00, 0x00, 0x80, 0x3f };   /* 1.0f at an odd address */
    tl_dtype_format(TL_DT_FLOAT32, odd + 1, buf, sizeof buf);
    CHECK_STR(buf, "1");
}

void dtype_should_round_trip_half(void)
{
    /* every half value goes to float and back unchanged (NaNs stay NaNs) */
    for (uint32_t h = 0; h <= 0xffff; h++) {
        float f = tl_half_to_float((uint16_t)h);
        uint16_t back = tl_float_to_half(f);
        if (isnan(f))
            CHECK((back & 0x7c00) == 0x7c00 && (back & 0x3ff));
        else if (back != h)
            CHECK_EQ_U64(back, h);
    }
    /* every half value's text reads back to the same half (one rounding) */
    char buf[48];
    for (uint32_t h = 0; h <= 0xffff; h++) {
        uint16_t bits = (uint16_t)h, back;
        if ((h & 0x7c00) == 0x7c00 && (h & 0x3ff))
            continue;                                      /* NaN prints as nan */
        tl_dtype_format(TL_DT_FLOAT16, &bits, buf, sizeof buf);
        struct tl_error err;
        if (tl_dtype_parse_value(TL_DT_FLOAT16, buf, &back, &err) != 0 || back != bits)
            CHECK_STR(buf, "(reads back to the same half)");
    }
    uint16_t tenth = 0x2e66;                                  /* 0.1 in FLOAT16 */
    tl_dtype_format(TL_DT_FLOAT16, &tenth, buf, sizeof buf);
    CHECK_STR(buf, "0.1");
    CHECK_EQ_U64(tl_float_to_half(65520.0f), 0x7c00);        /* rounds to inf */
    CHECK_EQ_U64(tl_float_to_half(1.0f + 1.0f / 2048), 0x3c00); /* ties to even */
    CHECK_EQ_U64(tl_float_to_half(5.9604645e-8f), 0x0001);   /* smallest subnormal */
    CHECK_EQ_U64(tl_float_to_half(1e-9f), 0x0000);
}

void dtype_should_parse_values_in_range(void)
{
    unsigned char out[8];
    struct tl_error err;
    CHECK(tl_dtype_parse_value(TL_DT_UINT8, "255", out, &err) == 0 && out[0] == 255);
    CHECK(tl_dtype_parse_value(TL_DT_UINT8, "256", out, &err) == TL_E_RANGE);
    CHECK(tl_dtype_parse_value(TL_DT_UINT8, "-1", out, &err) == TL_E_RANGE);
    CHECK(tl_dtype_parse_value(TL_DT_INT8, "-128", out, &err) == 0 && out[0] == 0x80);
    CHECK(tl_dtype_parse_value(TL_DT_INT8, "128", out, &err) == TL_E_RANGE);
    CHECK(tl_dtype_parse_value(TL_DT_INT16, "0x7fff", out, &err) == 0);
    CHECK(tl_dtype_parse_value(TL_DT_FLOAT32, "1.5x", out, &err) == TL_E_VALUE);
    CHECK(tl_dtype_parse_value(TL_DT_FLOAT32, "", out, &err) == TL_E_VALUE);
    CHECK(tl_dtype_parse_value(TL_DT_FLOAT16, "1.5", out, &err) == 0 && out[0] == 0 && out[1] == 0x3e);
    CHECK(tl_dtype_parse_value(TL_DT_UINT64, "18446744073709551615", out, &err) == 0);
    CHECK(tl_dtype_parse_value(TL_DT_UINT64, "18446744073709551616", out, &err) == TL_E_RANGE);
    CHECK(tl_dtype_parse_value(TL_DT_INT64, "-9223372036854775808", out, &err) == 0);
}

void dtype_should_round_trip_bfloat(void)
{
    /* every bfloat16 pattern goes to float and back unchanged; a NaN stays
     * a NaN of the same sign; its text reads back to the same pattern */
    char buf[48];
    for (uint32_t b = 0; b <= 0xffff; b++) {
        float f = tl_bfloat_to_float((uint16_t)b);
        uint16_t back = tl_float_to_bfloat(f);
        if (isnan(f)) {
            CHECK((back & 0x7f80) == 0x7f80 && (back & 0x7f) && (back & 0x8000) == (b & 0x8000));
            continue;
        }
        if (back != b)
            CHECK_EQ_U64(back, b);
        uint16_t bits = (uint16_t)b;
        tl_dtype_format(TL_DT_BFLOAT16, &bits, buf, sizeof buf);
        uint16_t parsed;
        struct tl_error err;
        if (tl_dtype_parse_value(TL_DT_BFLOAT16, buf, &parsed, &err) != 0 || parsed != b)
            CHECK_STR(buf, "(reads back to the same bfloat16)");
    }
    /* to nearest, ties to even: 1 + 2^-8 is halfway between 1 and 1 + 2^-7 */
    CHECK_EQ_U64(tl_float_to_bfloat(1.0f + 1.0f / 256), 0x3f80);
    CHECK_EQ_U64(tl_float_to_bfloat(1.0f + 3.0f / 256), 0x3f82);
    CHECK_EQ_U64(tl_float_to_bfloat(3.4e38f), 0x7f80);             /* beyond: inf */
    CHECK_EQ_U64(tl_float_to_bfloat(-0.0f), 0x8000);
    CHECK_EQ_U64(tl_float_to_bfloat(1e-40f), 0x0001);             /* a subnormal kept */
    uint32_t snan = 0xff800001;                                   /* a NaN whose top is inf */
    float nan;
    memcpy(&nan, &snan, 4);
    CHECK_EQ_U64(tl_float_to_bfloat(nan), 0xffc0);
    uint16_t b = 0x3dcd;                                          /* 0.1 in bfloat16 */
    tl_dtype_format(TL_DT_BFLOAT16, &b, buf, sizeof buf);
    CHECK_STR(buf, "0.1");
}

/* A whole number of up to 16 digits is positional, its shortest digits
 * padded with zeros, as numpy prints it; past 16 digits, an exponent. */
void dtype_should_pad_whole_numbers_with_zeros(void)
{
    char buf[64];
    uint16_t h = 0x7bff;                                          /* FLOAT16 65504 */
    tl_dtype_format(TL_DT_FLOAT16, &h, buf, sizeof buf);
    CHECK_STR(buf, "65500");
    h = 0xfbff;
    tl_dtype_format(TL_DT_FLOAT16, &h, buf, sizeof buf);
    CHECK_STR(buf, "-65500");
    h = 0x4b81;                                                   /* BFLOAT16 16908288 */
    tl_dtype_format(TL_DT_BFLOAT16, &h, buf, sizeof buf);
    CHECK_STR(buf, "16900000");
    float f = 16777216.0f;                                        /* every digit needed */
    tl_dtype_format(TL_DT_FLOAT32, &f, buf, sizeof buf);
    CHECK_STR(buf, "16777216");
    f = 1e10f;
    tl_dtype_format(TL_DT_FLOAT32, &f, buf, sizeof buf);
    CHECK_STR(buf, "10000000000");
    f = 123456789.0f;                                             /* 123456792 */
    tl_dtype_format(TL_DT_FLOAT32, &f, buf, sizeof buf);
    CHECK_STR(buf, "123456790");
    double d = 1234567890123456768.0;                             /* 19 digits */
    tl_dtype_format(TL_DT_FLOAT64, &d, buf, sizeof buf);
    CHECK_STR(buf, "1.2345678901234568e+18");
    d = 4503599627370497.0;                                       /* 2^52 + 1: 16 digits */
    tl_dtype_format(TL_DT_FLOAT64, &d, buf, sizeof buf);
    CHECK_STR(buf, "4503599627370497");
    d = -1e15;
    tl_dtype_format(TL_DT_FLOAT64, &d, buf, sizeof buf);
    CHECK_STR(buf, "-1000000000000000");
}

/* The text of one value reads back to it (strtof for FLOAT32; strtod and one
 * rounding for the 16-bit types), and no decimal of fewer significant
 * digits does (a whole number's padding zeros are not significant). */
static bool reads_back(enum tl_dtype dt, const char *text, uint32_t bits)
{
    if (dt == TL_DT_FLOAT32) {
        float f = strtof(text, NULL);
        uint32_t b;
        memcpy(&b, &f, 4);
        return b == bits;
    }
    double d = strtod(text, NULL);
    uint16_t h;
    tl_convert_value(TL_DT_FLOAT64, &d, dt, &h);
    return h == (uint16_t)bits;
}

static bool shortest(enum tl_dtype dt, const void *p, uint32_t bits, char *why, size_t n)
{
    char text[48];
    tl_dtype_format(dt, p, text, sizeof text);
    if (!reads_back(dt, text, bits)) {
        snprintf(why, n, "%s does not read back", text);
        return false;
    }
    /* significant digits: leading zeros and the zeros that pad a whole
     * number ("65500") do not count */
    int nd = 0, zeros = 0;
    bool lead = true;
    for (const char *c = text; *c && *c != 'e'; c++) {
        if (*c < '0' || *c > '9' || (lead && *c == '0'))
            continue;
        lead = false;
        zeros = *c == '0' ? zeros + 1 : 0;
        nd++;
    }
    if (!strpbrk(text, ".e"))
        nd -= zeros;
    if (nd <= 1)
        return true;
    double v;
    tl_convert_value(dt, p, TL_DT_FLOAT64, &v);
    /* the nearest decimals of nd - 1 digits on either side */
    char c1[48], c2[48];
    snprintf(c1, sizeof c1, "%.*e", nd - 2, v);
    double a = strtod(c1, NULL), step = fabs(a) * 1e-15;
    (void)step;
    char *e = strchr(c1, 'e');
    int exp10 = atoi(e + 1);
    double ulp = pow(10.0, exp10 - (nd - 2));
    snprintf(c2, sizeof c2, "%.*e", nd - 2, a + (a < v ? ulp : -ulp));
    if (reads_back(dt, c1, bits) || reads_back(dt, c2, bits)) {
        snprintf(why, n, "%.40s, but %.40s or %.40s is shorter", text, c1, c2);
        return false;
    }
    return true;
}

void dtype_should_print_the_shortest_text_of_each_type(void)
{
    char why[256];
    int bad = 0;
    for (uint32_t b = 0; b <= 0xffff; b++) {
        uint16_t h = (uint16_t)b;
        for (int t = 0; t < 2; t++) {
            enum tl_dtype dt = t ? TL_DT_BFLOAT16 : TL_DT_FLOAT16;
            uint16_t expo = t ? 0x7f80 : 0x7c00;
            if ((h & expo) == expo)
                continue;                  /* inf and NaN print as words */
            if (!shortest(dt, &h, b, why, sizeof why) && bad++ < 5)
                CHECK_STR(why, "(the shortest text)");
        }
    }
    uint64_t x = 0x243f6a8885a308d3ull;
    for (long i = 0, n = check_iterations(10000000); i < n; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        uint32_t b = (uint32_t)(x >> 16);
        if ((b & 0x7f800000) == 0x7f800000)
            continue;
        if (!shortest(TL_DT_FLOAT32, &b, b, why, sizeof why) && bad++ < 10)
            CHECK_STR(why, "(the shortest text)");
    }
    CHECK(bad == 0);
}

/* A decimal's significant digits (no sign, no leading or trailing zeros)
 * and the power of ten of its first one. */
static void decimal_key(const char *text, char *digits, size_t n, int *exp10)
{
    size_t nd = 0;
    int point = -1, lead = 0, i = 0;
    const char *c = text;
    if (*c == '-')
        c++;
    for (; *c && *c != 'e'; c++, i++) {
        if (*c == '.') {
            point = i;
            i--;
            continue;
        }
        if (nd == 0 && *c == '0') {
            lead++;
            continue;
        }
        if (nd + 1 < n)
            digits[nd++] = *c;
    }
    if (point < 0)
        point = i;
    while (nd > 1 && digits[nd - 1] == '0')
        nd--;
    digits[nd] = 0;
    *exp10 = point - lead - 1 + (*c == 'e' ? atoi(c + 1) : 0);
}

/* FLOAT64's text: reads back to the same double, no decimal of fewer
 * significant digits does, and of the decimals of its length it is the
 * one printf rounds to (the nearest, as numpy's repr), where that one
 * reads back. */
static bool shortest64(double v, char *why, size_t n)
{
    char text[48];
    tl_dtype_format(TL_DT_FLOAT64, &v, text, sizeof text);
    double back = strtod(text, NULL);
    if (memcmp(&back, &v, 8) != 0) {
        snprintf(why, n, "%.17g: %s does not read back", v, text);
        return false;
    }
    if (v == 0)                        /* read back, sign and all */
        return true;
    char dig[32], want[32];
    int e, we;
    decimal_key(text, dig, sizeof dig, &e);
    int nd = (int)strlen(dig);
    char c[48];
    if (nd > 1) {
        snprintf(c, sizeof c, "%.*e", nd - 2, v);
        double a = strtod(c, NULL), ulp = pow(10.0, atoi(strchr(c, 'e') + 1) - (nd - 2));
        char c2[48];
        snprintf(c2, sizeof c2, "%.*e", nd - 2, a + (a < v ? ulp : -ulp));
        if (strtod(c, NULL) == v || strtod(c2, NULL) == v) {
            snprintf(why, n, "%.17g: %s, but %s or %s is shorter", v, text, c, c2);
            return false;
        }
    }
    snprintf(c, sizeof c, "%.*e", nd - 1, v);
    decimal_key(c, want, sizeof want, &we);
    if (strtod(c, NULL) == v && (strcmp(dig, want) != 0 || e != we)) {
        snprintf(why, n, "%.17g: %s, not the nearest %s", v, text, c);
        return false;
    }
    return true;
}

void dtype_should_print_the_shortest_text_of_float64(void)
{
    char why[256];
    int bad = 0;
    uint64_t x = 0x13198a2e03707344ull;
    /* every finite 16-bit value as a double, as dump --json prints them */
    for (uint32_t b = 0; b <= 0xffff; b++) {
        for (int t = 0; t < 2; t++) {
            uint16_t h = (uint16_t)b;
            double v = t ? tl_bfloat_to_float(h) : tl_half_to_float(h);
            if (isfinite(v) && !shortest64(v, why, sizeof why) && bad++ < 10)
                CHECK_STR(why, "(the shortest text)");
        }
    }
    for (long i = 0, n = check_iterations(1200000); i < n; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        double v;
        switch (i % 4) {
        case 0: {                      /* any FLOAT32, widened */
            uint32_t b = (uint32_t)(x >> 16);
            float f;
            memcpy(&f, &b, 4);
            v = f;
            break;
        }
        case 1: {                      /* any double of magnitude 1e-30 .. 1e30 */
            uint64_t b = (x & 0x800fffffffffffffull) | (uint64_t)(923 + x % 200) << 52;
            memcpy(&v, &b, 8);
            break;
        }
        case 2: {                      /* the integer path's range, 2^-40 .. 2^60, and past it */
            uint64_t b = (x & 0x800fffffffffffffull) | (uint64_t)(980 + x % 110) << 52;
            memcpy(&v, &b, 8);
            break;
        }
        default:                       /* any double */
            memcpy(&v, &x, 8);
            break;
        }
        if (isfinite(v) && !shortest64(v, why, sizeof why) && bad++ < 10)
            CHECK_STR(why, "(the shortest text)");
    }
    /* decimals of few digits and their neighbours: ties, midpoints, 10^k */
    for (int k = -30; k <= 30; k++) {
        for (int m = 1; m < 1000; m += 7) {
            double v = m * pow(10.0, k);
            double w[3] = { v, nextafter(v, 0), nextafter(v, INFINITY) };
            for (int j = 0; j < 3; j++)
                if (!shortest64(w[j], why, sizeof why) && bad++ < 10)
                    CHECK_STR(why, "(the shortest text)");
        }
    }
    double edge[] = { DBL_MAX, DBL_MIN, 4.9406564584124654e-324, 2.2250738585072009e-308,
                      9007199254740993.0, 0.1, 0.3, 5e-324, 1e23, 8.41e21, 5.0e-324,
                      /* the integer path's ends: midpoints that are decimals of
                       * 17 digits, whole numbers, the first and last scales */
                      9007199254740991.0, 9007199254740992.0, 4503599627370497.0,
                      1e16, 9.999999999999998e16, 1e17, 1.0000000000000002,
                      0.30000000000000004, 1e-11, 9.99999999999e-12, 1.1e-11,
                      0x1p-37, 0x1p52, 0x1p53, 0x1p56, 0x1.fffffffffffffp55 };
    for (size_t i = 0; i < sizeof edge / sizeof edge[0]; i++)
        if (!shortest64(edge[i], why, sizeof why) && bad++ < 10)
            CHECK_STR(why, "(the shortest text)");
    CHECK(bad == 0);
}
