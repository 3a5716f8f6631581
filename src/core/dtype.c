/*
 * dtype.c - the data type table, names, and half precision.
 *
 * The table below is the one place that knows the types: a row per type
 * with its name, its bits per element, its kind (float, signed, unsigned),
 * whether DirectML has it, and how numpy's .npy and safetensors spell it.
 * Every check, file format and message reads it; the lists of types that
 * messages show are generated from it, in its row order.  Adding a type is
 * adding a row (and, where it needs them, its conversion kernels and the
 * cases that decode and encode its values: tl_dtype_format() in
 * value_text.c and the decoder in convert.c).
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

/* One row per type, by enum value.  `order` is its place in the lists
 * that messages show: floats, unsigned and signed integers, FLOAT32 first
 * as the default type. */
static const struct tl_dtype_info table[TL_DT_COUNT] = {
    [TL_DT_FLOAT32]  = { "FLOAT32",  32, TL_KIND_FLOAT,    true,  "<f4", "F32",  0 },
    [TL_DT_FLOAT16]  = { "FLOAT16",  16, TL_KIND_FLOAT,    true,  "<f2", "F16",  1 },
    [TL_DT_BFLOAT16] = { "BFLOAT16", 16, TL_KIND_FLOAT,    false, NULL,  "BF16", 2 },
    [TL_DT_FLOAT64]  = { "FLOAT64",  64, TL_KIND_FLOAT,    true,  "<f8", "F64",  3 },
    [TL_DT_FLOAT8E4M3] = { "FLOAT8E4M3", 8, TL_KIND_FLOAT, false, NULL,  "F8_E4M3", 4 },
    [TL_DT_FLOAT8E5M2] = { "FLOAT8E5M2", 8, TL_KIND_FLOAT, false, NULL,  "F8_E5M2", 5 },
    [TL_DT_FLOAT8E8M0] = { "FLOAT8E8M0", 8, TL_KIND_FLOAT, false, NULL,  "F8_E8M0", 6 },
    [TL_DT_FLOAT4E2M1] = { "FLOAT4E2M1", 4, TL_KIND_FLOAT, false, NULL,  "F4",    7 },
    [TL_DT_UINT8]    = { "UINT8",     8, TL_KIND_UNSIGNED, true,  "|u1", "U8",   9 },
    [TL_DT_UINT16]   = { "UINT16",   16, TL_KIND_UNSIGNED, true,  "<u2", "U16",  10 },
    [TL_DT_UINT32]   = { "UINT32",   32, TL_KIND_UNSIGNED, true,  "<u4", "U32",  11 },
    [TL_DT_UINT64]   = { "UINT64",   64, TL_KIND_UNSIGNED, true,  "<u8", "U64",  12 },
    [TL_DT_INT8]     = { "INT8",      8, TL_KIND_SIGNED,   true,  "|i1", "I8",   14 },
    [TL_DT_INT16]    = { "INT16",    16, TL_KIND_SIGNED,   true,  "<i2", "I16",  15 },
    [TL_DT_INT32]    = { "INT32",    32, TL_KIND_SIGNED,   true,  "<i4", "I32",  16 },
    [TL_DT_INT64]    = { "INT64",    64, TL_KIND_SIGNED,   true,  "<i8", "I64",  17 },
    [TL_DT_UINT4]    = { "UINT4",     4, TL_KIND_UNSIGNED, true,  NULL,  NULL,   8 },
    [TL_DT_INT4]     = { "INT4",      4, TL_KIND_SIGNED,   true,  NULL,  NULL,   13 },
    [TL_DT_BOOL]     = { "BOOL",      8, TL_KIND_BOOL,     false, "|b1", "BOOL", 18 },
};

const struct tl_dtype_info *tl_dtype_info(enum tl_dtype dt) { return &table[dt]; }
const char *tl_dtype_name(enum tl_dtype dt) { return table[dt].name; }
unsigned tl_dtype_size(enum tl_dtype dt) { return (table[dt].bits + 7) / 8; }
unsigned tl_dtype_bits(enum tl_dtype dt) { return table[dt].bits; }
bool tl_dtype_is_float(enum tl_dtype dt) { return table[dt].kind == TL_KIND_FLOAT; }
bool tl_dtype_is_signed(enum tl_dtype dt) { return table[dt].kind == TL_KIND_SIGNED; }
bool tl_dtype_is_dml(enum tl_dtype dt) { return table[dt].dml; }

uint64_t tl_dtype_bytes(enum tl_dtype dt, uint64_t n)
{
    unsigned bits = table[dt].bits;
    /* n * bits / 8 rounded up, without forming n * bits, which may not fit */
    return bits % 8 ? n / 8 * bits + (n % 8 * bits + 7) / 8 : n * (bits / 8);
}

/* FLOAT4E2M1 unpacked is its code in a byte, converted by the type's own
 * rules (convert.c reads a 4-bit type's low nibble). */
enum tl_dtype tl_dtype_unpacked(enum tl_dtype dt)
{
    return dt == TL_DT_INT4 ? TL_DT_INT8 : dt == TL_DT_UINT4 ? TL_DT_UINT8 : dt;
}

int tl_dtype_from_name(const char *name, enum tl_dtype *out)
{
    static const char prefix[] = "DML_TENSOR_DATA_TYPE_";
    if (strncasecmp(name, prefix, sizeof prefix - 1) == 0)
        name += sizeof prefix - 1;
    for (int i = 0; i < TL_DT_COUNT; i++) {
        if (strcasecmp(name, table[i].name) == 0) {
            *out = (enum tl_dtype)i;
            return 0;
        }
    }
    return TL_E_VALUE;
}

int tl_dtype_from_any(const char *name, enum tl_dtype *out)
{
    static const char *const words[][2] = {
        { "half", "FLOAT16" }, { "single", "FLOAT32" }, { "double", "FLOAT64" },
        { "float8_e4m3fn", "FLOAT8E4M3" }, { "float8_e4m3", "FLOAT8E4M3" },
        { "e4m3", "FLOAT8E4M3" }, { "float8_e5m2", "FLOAT8E5M2" }, { "e5m2", "FLOAT8E5M2" },
        { "float8_e8m0fnu", "FLOAT8E8M0" }, { "e8m0", "FLOAT8E8M0" },
        { "float4_e2m1fn", "FLOAT4E2M1" }, { "float4_e2m1", "FLOAT4E2M1" },
        { "e2m1", "FLOAT4E2M1" }, { "fp4", "FLOAT4E2M1" },
    };
    if (tl_dtype_from_name(name, out) == 0)
        return 0;
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++) {
        if (strcasecmp(name, words[i][0]) == 0)
            return tl_dtype_from_name(words[i][1], out);
    }
    const char *code = name[0] && strchr("<|=", name[0]) ? name + 1 : name;
    for (int i = 0; i < TL_DT_COUNT; i++) {
        const struct tl_dtype_info *r = &table[i];
        char word[16] = "", plain[16];
        /* float16 and fp16, not float8: two types have 8 bits */
        snprintf(plain, sizeof plain, "FLOAT%u", r->bits);
        bool named = strcmp(r->name, plain) == 0;
        if (r->kind == TL_KIND_FLOAT && named)
            snprintf(word, sizeof word, "float%u", r->bits);
        else if (r->kind == TL_KIND_SIGNED)
            snprintf(word, sizeof word, "int%u", r->bits);
        else if (r->kind == TL_KIND_UNSIGNED)
            snprintf(word, sizeof word, "uint%u", r->bits);
        char fp[16] = "";
        if (r->kind == TL_KIND_FLOAT && named)
            snprintf(fp, sizeof fp, "fp%u", r->bits);
        if ((r->st && strcasecmp(name, r->st) == 0) || (word[0] && strcasecmp(name, word) == 0) ||
            (fp[0] && strcasecmp(name, fp) == 0) ||
            (r->npy && strcasecmp(code, r->npy + 1) == 0)) {
            *out = (enum tl_dtype)i;
            return 0;
        }
    }
    return TL_E_VALUE;
}

int tl_dtype_from_safetensors(const char *name, enum tl_dtype *out)
{
    for (int i = 0; i < TL_DT_COUNT; i++) {
        if (table[i].st && strcmp(name, table[i].st) == 0) {
            *out = (enum tl_dtype)i;
            return 0;
        }
    }
    return TL_E_VALUE;
}

/* The spelling a list shows of a row, or NULL when it has none there. */
static const char *spelling(const struct tl_dtype_info *r, enum tl_dtype_spelling how)
{
    switch (how) {
    case TL_SPELL_NPY:         return r->npy;
    case TL_SPELL_SAFETENSORS: return r->st;
    default:                   return r->name;
    }
}

/* A row's place in a list: .npy descrs go by kind (f, u, i) and then size,
 * as numpy users read them; the others by the table's order. */
static unsigned list_rank(const struct tl_dtype_info *r, enum tl_dtype_spelling how)
{
    if (how != TL_SPELL_NPY)
        return r->order;
    return (r->kind == TL_KIND_FLOAT ? 0u : r->kind == TL_KIND_UNSIGNED ? 1u
            : r->kind == TL_KIND_SIGNED ? 2u : 3u) * 1000 + r->bits;
}

const char *tl_dtype_list(enum tl_dtype_spelling how, char *buf, size_t n)
{
    const struct tl_dtype_info *rows[TL_DT_COUNT];
    size_t m = 0, len = 0;
    for (int i = 0; i < TL_DT_COUNT; i++) {
        if (spelling(&table[i], how))
            rows[m++] = &table[i];
    }
    for (size_t i = 1; i < m; i++) {                          /* insertion sort */
        for (size_t j = i; j > 0 && list_rank(rows[j - 1], how) > list_rank(rows[j], how); j--) {
            const struct tl_dtype_info *t = rows[j];
            rows[j] = rows[j - 1];
            rows[j - 1] = t;
        }
    }
    if (n)
        buf[0] = '\0';
    for (size_t i = 0; i < m && len < n; i++)
        len += (size_t)snprintf(buf + len, n - len, "%s%s", i ? " " : "", spelling(rows[i], how));
    return buf;
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

/* ---- OCP's 8-bit floats (SPEC 18) ------------------------------------------ */

/* Exponent and mantissa bits, bias, and the sign bit (E5M2: IEEE's shape;
 * E4M3: only S.1111.111 is NaN; E2M1: 4 bits, no NaN, no infinity). */
static void fp8_shape(enum tl_dtype dt, int *eb, int *mb, int *bias, unsigned *sign)
{
    bool e5 = dt == TL_DT_FLOAT8E5M2, e2 = dt == TL_DT_FLOAT4E2M1;
    *eb = e5 ? 5 : e2 ? 2 : 4;
    *mb = e5 ? 2 : e2 ? 1 : 3;
    *bias = e5 ? 15 : e2 ? 1 : 7;
    *sign = e2 ? 0x8 : 0x80;
}

double tl_fp8_to_double(enum tl_dtype dt, uint8_t code)
{
    if (dt == TL_DT_FLOAT8E8M0)
        return code == 0xff ? NAN : ldexp(1.0, (int)code - 127);
    int eb, mb, bias;
    unsigned sb;
    fp8_shape(dt, &eb, &mb, &bias, &sb);
    int e = (code >> mb) & ((1 << eb) - 1), m = code & ((1 << mb) - 1);
    double s = code & sb ? -1.0 : 1.0;
    if (dt == TL_DT_FLOAT8E5M2 && e == 31)
        return m ? NAN : s * INFINITY;
    if (dt == TL_DT_FLOAT8E4M3 && e == 15 && m == 7)
        return NAN;
    if (e == 0)
        return s * ldexp((double)m, 1 - bias - mb);
    return s * ldexp((double)((1 << mb) | m), e - bias - mb);
}

uint8_t tl_double_to_fp8(enum tl_dtype dt, double d)
{
    if (dt == TL_DT_FLOAT8E8M0) {
        if (isnan(d) || d < 0)
            return 0xff;
        if (d == 0)
            return 0;
        if (isinf(d))
            return 254;                         /* saturated, as E4M3 */
        int k;
        double f = frexp(d, &k);                /* d = f * 2^k, f in [0.5, 1) */
        int e = k - 1;                          /* d = 2f * 2^e, 2f in [1, 2) */
        if (2 * f > 1.5 || (2 * f == 1.5 && ((e + 127) & 1)))
            e++;                                /* nearer 2^(e+1); a tie to the even code */
        return (uint8_t)(e + 127 < 0 ? 0 : e + 127 > 254 ? 254 : e + 127);
    }
    int eb, mb, bias;
    unsigned sb;
    fp8_shape(dt, &eb, &mb, &bias, &sb);
    uint8_t sign = signbit(d) ? (uint8_t)sb : 0;
    bool e4 = dt == TL_DT_FLOAT8E4M3, e2 = dt == TL_DT_FLOAT4E2M1;
    if (isnan(d))                               /* E2M1 has none: 0 (the caller says so) */
        return e2 ? 0 : sign | (e4 ? 0x7f : 0x7e);
    /* the largest finite code, where E4M3 and E2M1 saturate */
    uint8_t top = e2 ? 0x7 : e4 ? 0x7e : 0x7c;
    double a = fabs(d), max = e2 ? 6.0 : e4 ? 448.0 : 57344.0;
    if (isinf(a))
        return sign | top;
    if (a == 0)
        return sign;
    /* the quantum of a's binade (of the subnormals below the normals),
     * and a in quanta rounded to nearest, ties to even: exact in double */
    int k;
    frexp(a, &k);
    int e = k - 1, emin = 1 - bias;
    if (e < emin)
        e = emin;
    double q = ldexp(1.0, e - mb), n = nearbyint(a / q), v = n * q;
    if (v > max)                        /* E4M3 and E2M1 saturate, E5M2 overflows */
        return sign | top;
    if (v == 0)
        return sign;
    if (v < ldexp(1.0, emin))                   /* a subnormal: its quanta */
        return sign | (uint8_t)(v / ldexp(1.0, emin - mb));
    frexp(v, &k);
    e = k - 1;
    int m = (int)(v / ldexp(1.0, e - mb)) - (1 << mb);
    return sign | (uint8_t)((e + bias) << mb | m);
}
