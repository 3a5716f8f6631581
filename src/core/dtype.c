/*
 * dtype.c - the data type table, names, half precision, and value text.
 *
 * One row per type.  Future types (BFLOAT16, 4-bit types) add a row here
 * and a case in the two switches below; nothing else looks inside a value.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "internal.h"
#include "tl.h"

static const struct {
    const char *name;
    unsigned size;
} dtypes[TL_DT_COUNT] = {
    [TL_DT_FLOAT32] = { "FLOAT32", 4 }, [TL_DT_FLOAT16] = { "FLOAT16", 2 },
    [TL_DT_UINT32] = { "UINT32", 4 },   [TL_DT_UINT16] = { "UINT16", 2 },
    [TL_DT_UINT8] = { "UINT8", 1 },     [TL_DT_INT32] = { "INT32", 4 },
    [TL_DT_INT16] = { "INT16", 2 },     [TL_DT_INT8] = { "INT8", 1 },
    [TL_DT_FLOAT64] = { "FLOAT64", 8 }, [TL_DT_UINT64] = { "UINT64", 8 },
    [TL_DT_INT64] = { "INT64", 8 },     [TL_DT_BFLOAT16] = { "BFLOAT16", 2 },
};

const char *tl_dtype_name(enum tl_dtype dt) { return dtypes[dt].name; }
unsigned tl_dtype_size(enum tl_dtype dt) { return dtypes[dt].size; }

int tl_dtype_from_name(const char *name, enum tl_dtype *out)
{
    static const char prefix[] = "DML_TENSOR_DATA_TYPE_";
    if (strncasecmp(name, prefix, sizeof prefix - 1) == 0)
        name += sizeof prefix - 1;
    for (int i = 0; i < TL_DT_COUNT; i++) {
        if (strcasecmp(name, dtypes[i].name) == 0) {
            *out = (enum tl_dtype)i;
            return 0;
        }
    }
    return TL_E_VALUE;
}

float tl_half_to_float(uint16_t h)
{
    unsigned sign = h >> 15, exp = (h >> 10) & 0x1f, man = h & 0x3ff;
    float v;
    if (exp == 0)
        v = ldexpf((float)man, -24);            /* zero and subnormals */
    else if (exp == 31 && man) {                /* NaN: quieted, payload kept (as F16C) */
        uint32_t bits = (uint32_t)sign << 31 | 0x7fc00000 | (uint32_t)man << 13;
        memcpy(&v, &bits, 4);
        return v;
    } else if (exp == 31)
        v = INFINITY;
    else
        v = ldexpf((float)(man | 0x400), (int)exp - 25);
    return sign ? -v : v;
}

uint16_t tl_float_to_half(float f)
{
    uint32_t x;
    memcpy(&x, &f, 4);
    uint16_t sign = (uint16_t)((x >> 16) & 0x8000);
    uint32_t exp = (x >> 23) & 0xff, man = x & 0x7fffff;
    if (exp == 0xff)                            /* NaN: quiet, top of the payload (as F16C) */
        return sign | 0x7c00 | (man ? 0x200 | (uint16_t)(man >> 13) : 0);
    int e = (int)exp - 127 + 15;
    if (e >= 31)
        return sign | 0x7c00;
    if (e <= 0) {                               /* subnormal or zero */
        if (e < -10)
            return sign;
        man |= 0x800000;
        unsigned shift = (unsigned)(14 - e);
        uint32_t half = man >> shift, rem = man & ((1u << shift) - 1);
        uint32_t mid = 1u << (shift - 1);
        if (rem > mid || (rem == mid && (half & 1)))
            half++;
        return sign | (uint16_t)half;
    }
    uint32_t half = ((uint32_t)e << 10) | (man >> 13), rem = man & 0x1fff;
    if (rem > 0x1000 || (rem == 0x1000 && (half & 1)))
        half++;                                 /* may carry into inf: right */
    return sign | (uint16_t)half;
}

float tl_bfloat_to_float(uint16_t b)
{
    uint32_t x = (uint32_t)b << 16;
    float f;
    memcpy(&f, &x, 4);
    return f;
}

uint16_t tl_float_to_bfloat(float f)
{
    uint32_t x;
    memcpy(&x, &f, 4);
    if ((x & 0x7fffffff) > 0x7f800000)          /* NaN: keep sign and payload top, quiet */
        return (uint16_t)((x >> 16) | 0x40);
    x += 0x7fff + ((x >> 16) & 1);              /* to nearest, ties to even; may reach inf */
    return (uint16_t)(x >> 16);
}

/* Whether text read back as `back` is the same value as v in the type. */
static bool same_value(enum tl_dtype dt, double back, double v)
{
    uint16_t a, b;
    switch (dt) {
    case TL_DT_FLOAT64:
        return back == v;
    case TL_DT_FLOAT16:
    case TL_DT_BFLOAT16:                        /* one rounding, as a reader would */
        tl_convert_value(TL_DT_FLOAT64, &back, dt, &a);
        tl_convert_value(TL_DT_FLOAT64, &v, dt, &b);
        return a == b;
    default:
        return (float)back == (float)v;
    }
}

/* Shortest "%.*g" text of v that reads back as the same value of the type. */
static int format_float(double v, int maxprec, enum tl_dtype dt, char *buf, size_t n)
{
    if (isnan(v))
        return snprintf(buf, n, "nan");
    if (isinf(v))
        return snprintf(buf, n, v < 0 ? "-inf" : "inf");
    int prec = 1;
    for (; prec < maxprec; prec++) {
        snprintf(buf, n, "%.*g", prec, v);
        double back = strtod(buf, NULL);
        if (same_value(dt, back, v))
            break;
    }
    /* keep every integer digit up to 16 of them: "10", not "1e+01" */
    double mag = fabs(v);
    int digits = mag >= 1 ? (int)floor(log10(mag)) + 1 : 1;
    if (digits > prec && digits <= 16)
        prec = digits;
    return snprintf(buf, n, "%.*g", prec, v);
}

int tl_dtype_format(enum tl_dtype dt, const void *p, char *buf, size_t n)
{
    union { uint8_t u8; int8_t i8; uint16_t u16; int16_t i16; uint32_t u32;
            int32_t i32; uint64_t u64; int64_t i64; float f; double d; } v;
    memcpy(&v, p, dtypes[dt].size);
    switch (dt) {
    case TL_DT_FLOAT32: return format_float(v.f, 9, dt, buf, n);
    case TL_DT_FLOAT16: return format_float(tl_half_to_float(v.u16), 5, dt, buf, n);
    case TL_DT_BFLOAT16: return format_float(tl_bfloat_to_float(v.u16), 4, dt, buf, n);
    case TL_DT_FLOAT64: return format_float(v.d, 17, dt, buf, n);
    case TL_DT_UINT8:   return snprintf(buf, n, "%u", (unsigned)v.u8);
    case TL_DT_INT8:    return snprintf(buf, n, "%d", (int)v.i8);
    case TL_DT_UINT16:  return snprintf(buf, n, "%u", (unsigned)v.u16);
    case TL_DT_INT16:   return snprintf(buf, n, "%d", (int)v.i16);
    case TL_DT_UINT32:  return snprintf(buf, n, "%" PRIu32, v.u32);
    case TL_DT_INT32:   return snprintf(buf, n, "%" PRId32, v.i32);
    case TL_DT_UINT64:  return snprintf(buf, n, "%" PRIu64, v.u64);
    case TL_DT_INT64:   return snprintf(buf, n, "%" PRId64, v.i64);
    default:            return snprintf(buf, n, "?");
    }
}

static bool is_float(enum tl_dtype dt)
{
    return dt == TL_DT_FLOAT32 || dt == TL_DT_FLOAT16 || dt == TL_DT_FLOAT64 ||
           dt == TL_DT_BFLOAT16;
}

static bool is_signed(enum tl_dtype dt)
{
    return dt == TL_DT_INT8 || dt == TL_DT_INT16 || dt == TL_DT_INT32 || dt == TL_DT_INT64;
}

int tl_dtype_parse_value(enum tl_dtype dt, const char *text, void *out,
                         struct tl_error *err)
{
    char *end, q[40];
    unsigned size = dtypes[dt].size;
    tl_quote(text, q, sizeof q);
    if (!*text || isspace((unsigned char)*text))
        return tl_fail(err, TL_E_VALUE, NULL, "'%s' is not a %s value", q, dtypes[dt].name);
    errno = 0;
    if (is_float(dt)) {
        double d = strtod(text, &end);
        if (*end)
            return tl_fail(err, TL_E_VALUE, NULL, "'%s' is not a %s value", q, dtypes[dt].name);
        tl_convert_value(TL_DT_FLOAT64, &d, dt, out);    /* one rounding */
        double back;
        tl_convert_value(dt, out, TL_DT_FLOAT64, &back);
        if (isinf(back) && !isinf(d))              /* beyond the type's range */
            return tl_fail(err, TL_E_RANGE, NULL, "'%s' is out of range for %s (it would be "
                           "inf)", q, dtypes[dt].name);
        return 0;
    }
    uint64_t bits;
    if (is_signed(dt)) {
        long long v = strtoll(text, &end, 0);
        int64_t lim = (int64_t)(UINT64_MAX >> (65 - 8 * size));
        if (*end)
            return tl_fail(err, TL_E_VALUE, NULL, "'%s' is not a %s value", q, dtypes[dt].name);
        if (errno == ERANGE || v > lim || v < -lim - 1)
            return tl_fail(err, TL_E_RANGE, NULL, "'%s' is out of range for %s", q, dtypes[dt].name);
        bits = (uint64_t)v;
    } else {
        bool zero = text[0] == '-' && text[1] != '\0' && strspn(text + 1, "0") == strlen(text + 1);
        if (text[0] == '-' && !zero)
            return tl_fail(err, TL_E_RANGE, NULL, "'%s' is out of range for %s", q, dtypes[dt].name);
        if (zero)
            text++;                                 /* -0 is 0 */
        unsigned long long v = strtoull(text, &end, 0);
        uint64_t lim = UINT64_MAX >> (64 - 8 * size);
        if (*end)
            return tl_fail(err, TL_E_VALUE, NULL, "'%s' is not a %s value", q, dtypes[dt].name);
        if (errno == ERANGE || v > lim)
            return tl_fail(err, TL_E_RANGE, NULL, "'%s' is out of range for %s", q, dtypes[dt].name);
        bits = v;
    }
    /* little-endian hosts only (x86-64, AArch64): the low bytes come first */
    memcpy(out, &bits, size);
    return 0;
}

bool tl_dtype_is_dml(enum tl_dtype dt)
{
    return dt != TL_DT_BFLOAT16;
}
