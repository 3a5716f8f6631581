/*
 * value_text.c - a value of any type as text and back: the shortest decimal
 * that reads back to the same value (tl_dtype_format), and a value parsed
 * from text with one rounding (tl_dtype_parse_value).  Over the type table
 * (dtype.c) and the exact converter (convert.c).
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

/* ---- the shortest decimal, fast ------------------------------------------
 * For the types of at most 24 significant bits (FLOAT32, FLOAT16,
 * BFLOAT16), v and the midpoints to its neighbours are exact doubles.  For
 * p = 1, 2, ... digits, v scaled by 10^k (k = p - 1 - its decimal exponent)
 * lies between the scaled midpoints; the shortest text is the first p for
 * which an integer D lies strictly between them.  The scaling costs a
 * rounding or two of a double (about 10^-16 relative); a D closer than
 * 10^-12 relative to a midpoint, or v halfway between two decimals of p
 * digits (numpy then takes the even one, and so does printf), is left to
 * the exact, slow path (snprintf and strtod), as are the other types. */

static const double pow10_tab[23] = {
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
    1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
};

static const double pow10_neg[23] = {
    1e-0, 1e-1, 1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-9, 1e-10, 1e-11, 1e-12, 1e-13,
    1e-14, 1e-15, 1e-16, 1e-17, 1e-18, 1e-19, 1e-20, 1e-21, 1e-22,
};

/* x * 10^k, with a few roundings (each about 10^-16 relative). */
static double scale10(double x, int k)
{
    while (k > 22) {
        x *= 1e22;
        k -= 22;
    }
    while (k < -22) {
        x *= 1e-22;
        k += 22;
    }
    return k >= 0 ? x * pow10_tab[k] : x * pow10_neg[-k];
}

/* The neighbours of the value of bits b in a type of `man` mantissa bits
 * and `expbits` exponent bits (16-bit types), as doubles. */
static double half_like(uint32_t bits, enum tl_dtype dt)
{
    uint16_t h = (uint16_t)bits;
    return dt == TL_DT_BFLOAT16 ? tl_bfloat_to_float(h) : tl_half_to_float(h);
}

/* The midpoints below and above v (> 0, finite) in its own type. */
static void midpoints(double v, enum tl_dtype dt, double *lo, double *hi)
{
    if (dt == TL_DT_FLOAT32) {
        float f = (float)v, fb, fa;
        uint32_t bits;
        memcpy(&bits, &f, 4);
        bits -= 1;                           /* v > 0: the neighbours by their bits */
        memcpy(&fb, &bits, 4);
        bits += 2;
        memcpy(&fa, &bits, 4);
        double below = fb, above = fa;
        if (isinf(above))
            above = v + (v - below);
        *lo = (v + below) / 2;
        *hi = (v + above) / 2;
        return;
    }
    uint16_t b;
    tl_convert_value(TL_DT_FLOAT64, &v, dt, &b);
    double below = half_like(b - 1u, dt), above = half_like(b + 1u, dt);
    if (isinf(above))
        above = v + (v - below);
    *lo = (v + below) / 2;
    *hi = (v + above) / 2;
}

/* Writes the %g-style text of D x 10^(e - nd + 1), D of nd digits, as
 * printf("%.*g", p, ...) would with the value's digits D.  @return the
 * length. */
static int write_g(bool neg, uint64_t digits, int nd, int e, int p, char *buf, size_t n)
{
    char d[24];
    for (int i = nd; i-- > 0;) {
        d[i] = (char)('0' + digits % 10);
        digits /= 10;
    }
    while (nd > 1 && d[nd - 1] == '0')      /* %g drops trailing zeros */
        nd--;
    char out[48];
    size_t o = 0;
    if (neg)
        out[o++] = '-';
    if (e < -4 || e >= p) {                  /* d.ddde+XX */
        out[o++] = d[0];
        if (nd > 1) {
            out[o++] = '.';
            for (int i = 1; i < nd; i++)
                out[o++] = d[i];
        }
        int a = e < 0 ? -e : e;
        out[o++] = 'e';
        out[o++] = e < 0 ? '-' : '+';
        if (a >= 100)
            out[o++] = (char)('0' + a / 100);
        out[o++] = (char)('0' + a / 10 % 10);
        out[o++] = (char)('0' + a % 10);
    } else if (e < 0) {                      /* 0.000ddd */
        out[o++] = '0';
        out[o++] = '.';
        for (int i = 0; i < -e - 1; i++)
            out[o++] = '0';
        for (int i = 0; i < nd; i++)
            out[o++] = d[i];
    } else {                                 /* ddd.ddd */
        for (int i = 0; i <= e; i++)
            out[o++] = i < nd ? d[i] : '0';
        if (nd > e + 1) {
            out[o++] = '.';
            for (int i = e + 1; i < nd; i++)
                out[o++] = d[i];
        }
    }
    out[o] = '\0';
    if (o >= n)
        o = n - 1;
    memcpy(buf, out, o);
    buf[o] = '\0';
    return (int)o;
}

/* Writes the shortest text, digits D of p digits times 10^(e - p + 1): as
 * "%.*g" with precision p would, except that a whole number of up to 16
 * digits stays positional, its digits padded with zeros as numpy pads
 * them ("10", not "1e+01"; FLOAT16 65504 as "65500"). */
static int write_shortest(bool neg, uint64_t digits, int p, int e, char *buf, size_t n)
{
    int intdig = e + 1;
    if (intdig > p && intdig <= 16)
        return snprintf(buf, n, "%s%" PRIu64 "%.*s", neg ? "-" : "", digits, intdig - p,
                        "0000000000000000");
    return write_g(neg, digits, p, e, p, buf, n);
}

/* Whether a decimal of p significant digits lies strictly between the
 * midpoints: 1 (its digits in *out), 0, or -1 when one is too close to a
 * midpoint to tell. */
static int try_digits(double x, double lo, double hi, int e, int p, uint64_t *out)
{
    double f = scale10(1.0, p - 1 - e);          /* 10^k, within a rounding or two */
    double sx = x * f, slo = lo * f, shi = hi * f;
    double margin = sx * 1e-12;
    if (fabs(sx - floor(sx) - 0.5) <= margin)
        return -1;      /* halfway between two decimals: ties go to the even one, exactly */
    double c[2] = { floor(sx + 0.5), 0 };
    c[1] = c[0] >= sx ? c[0] - 1 : c[0] + 1;     /* the nearest integer first */
    for (int i = 0; i < 2; i++) {
        double dd = c[i];
        if (dd <= 0)
            continue;
        if (fabs(dd - slo) <= margin || fabs(dd - shi) <= margin)
            return -1;
        if (dd > slo && dd < shi) {
            *out = (uint64_t)dd;
            return 1;
        }
    }
    return 0;
}

/* The fast path; @return the length, or -1 to take the exact path.  The
 * shortest length is found by bisection: a decimal of p digits between the
 * midpoints is one of p + 1 digits too. */
static int format_fast(double v, int maxprec, enum tl_dtype dt, char *buf, size_t n)
{
    if (v == 0)
        return snprintf(buf, n, signbit(v) ? "-0" : "0");
    bool neg = v < 0;
    double x = fabs(v), lo, hi;
    midpoints(x, dt, &lo, &hi);
    int bexp;
    frexp(x, &bexp);
    int e = (int)floor((bexp - 1) * 0.30102999566398120);   /* log10(2) */
    double lead = scale10(x, -e);
    if (lead >= 10)
        e++;
    else if (lead < 1)
        e--;
    uint64_t digits = 0;
    /* p digits surely reach a decimal between the midpoints once their
     * spacing 10^(e + 1 - p) is below the gap hi - lo: usually the answer,
     * or one less */
    int sure = e + 1 - (int)floor(log10(hi - lo));
    if (sure < 1)
        sure = 1;
    if (sure > maxprec)
        sure = maxprec;
    int a = 1, b = sure, r = try_digits(x, lo, hi, e, b, &digits);
    if (r != 1)
        return -1;
    if (b > 1) {
        uint64_t d1;
        r = try_digits(x, lo, hi, e, b - 1, &d1);
        if (r < 0)
            return -1;
        if (r == 0)
            a = b;                       /* the sure length is the shortest */
        else {
            b--;
            digits = d1;
        }
    }
    while (a < b) {
        int m = (a + b) / 2;
        uint64_t dm;
        r = try_digits(x, lo, hi, e, m, &dm);
        if (r < 0)
            return -1;
        if (r == 1) {
            b = m;
            digits = dm;
        } else {
            a = m + 1;
        }
    }
    if (a != b || try_digits(x, lo, hi, e, b, &digits) != 1)
        return -1;
    int p = b, ee = e;
    if (digits >= (uint64_t)pow10_tab[p]) {      /* rounded up to 10^p */
        digits /= 10;
        ee++;
    }
    return write_shortest(neg, digits, p, ee, buf, n);
}

/* Whether the decimal D x 10^k reads back as x (> 0) in the type. */
static bool reads_back(enum tl_dtype dt, uint64_t d, int k, double x)
{
    char t[48];
    snprintf(t, sizeof t, "%" PRIu64 "e%d", d, k);
    return same_value(dt, strtod(t, NULL), x);
}

/* The shortest text of v that reads back as the same value of its type:
 * for p = 1, 2, ... digits, the decimal nearest v (printf rounds it
 * exactly, ties to even) or, when that one does not read back, its
 * neighbour on v's other side (the midpoints around a power of two are not
 * symmetric: FLOAT16 0.015625 is 0.01563, not 0.01562). */
static int format_float(double v, int maxprec, enum tl_dtype dt, char *buf, size_t n)
{
    if (isnan(v))
        return snprintf(buf, n, "nan");
    if (isinf(v))
        return snprintf(buf, n, v < 0 ? "-inf" : "inf");
    if (dt != TL_DT_FLOAT64) {
        int len = format_fast(v, maxprec, dt, buf, n);
        if (len >= 0)
            return len;
    }
    if (v == 0)
        return snprintf(buf, n, signbit(v) ? "-0" : "0");
    double x = fabs(v);
    uint64_t d = 0;
    int p = 1, e = 0;
    for (; p <= maxprec; p++) {
        char t[48];
        snprintf(t, sizeof t, "%.*e", p - 1, x);          /* d.ddde+XX */
        char *ex = strchr(t, 'e');
        e = atoi(ex + 1);
        d = 0;
        for (const char *c = t; c < ex; c++)
            if (*c != '.')
                d = d * 10 + (uint64_t)(*c - '0');
        if (reads_back(dt, d, e - p + 1, x) || p == maxprec)
            break;
        double near = strtod(t, NULL);
        uint64_t o = near < x ? d + 1 : d - 1;          /* the other side of x */
        if (reads_back(dt, o, e - p + 1, x)) {
            d = o;
            if (d >= (uint64_t)pow10_tab[p]) {              /* 99.. + 1 */
                d /= 10;
                e++;
            } else if (d < (uint64_t)pow10_tab[p - 1]) {    /* 10.. - 1: p - 1 digits */
                p--;
                e--;
            }
            break;
        }
    }
    return write_shortest(v < 0, d, p, e, buf, n);
}

int tl_dtype_format(enum tl_dtype dt, const void *p, char *buf, size_t n)
{
    union { uint8_t u8; int8_t i8; uint16_t u16; int16_t i16; uint32_t u32;
            int32_t i32; uint64_t u64; int64_t i64; float f; double d; } v;
    memcpy(&v, p, tl_dtype_size(dt));
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
    case TL_DT_UINT4:   return snprintf(buf, n, "%u", (unsigned)(v.u8 & 15));
    case TL_DT_BOOL:    return snprintf(buf, n, "%s", v.u8 ? "true" : "false");
    case TL_DT_INT4:    return snprintf(buf, n, "%d", (int)tl_int4_value(v.u8));
    case TL_DT_FLOAT8E4M3:
    case TL_DT_FLOAT8E5M2:
    case TL_DT_FLOAT8E8M0:
    case TL_DT_FLOAT4E2M1: {
        /* the fewest digits that read back to the same code */
        uint8_t code = dt == TL_DT_FLOAT4E2M1 ? v.u8 & 15 : v.u8;
        double x = tl_fp8_to_double(dt, code);
        if (isnan(x))
            return snprintf(buf, n, "nan");
        if (isinf(x))
            return snprintf(buf, n, x < 0 ? "-inf" : "inf");
        if (x == 0)
            return snprintf(buf, n, signbit(x) ? "-0" : "0");
        for (int digits = 1; digits < 17; digits++) {
            char t[40];
            snprintf(t, sizeof t, "%.*g", digits, x);
            if (tl_double_to_fp8(dt, strtod(t, NULL)) == code)
                return snprintf(buf, n, "%s", t);
        }
        return snprintf(buf, n, "%.17g", x);
    }
    default:            return snprintf(buf, n, "?");
    }
}

int tl_dtype_parse_value(enum tl_dtype dt, const char *text, void *out,
                         struct tl_error *err)
{
    char *end, q[40];
    unsigned size = tl_dtype_size(dt);
    const char *name = tl_dtype_name(dt);
    tl_quote(text, q, sizeof q);
    if (!*text || isspace((unsigned char)*text))
        return tl_fail(err, TL_E_VALUE, NULL, "'%s' is not a %s value", q, name);
    errno = 0;
    if (tl_dtype_is_float(dt)) {
        double d = strtod(text, &end);
        if (*end)
            return tl_fail(err, TL_E_VALUE, NULL, "'%s' is not a %s value", q, name);
        tl_convert_value(TL_DT_FLOAT64, &d, dt, out);    /* one rounding */
        double back;
        tl_convert_value(dt, out, TL_DT_FLOAT64, &back);
        if (isinf(back) && !isinf(d))              /* beyond the type's range */
            return tl_fail(err, TL_E_RANGE, NULL, "'%s' is out of range for %s (it would be "
                           "inf)", q, name);
        return 0;
    }
    uint64_t bits;
    unsigned width = tl_dtype_bits(dt);
    if (dt == TL_DT_BOOL) {
        bool t = strcasecmp(text, "true") == 0 || strcmp(text, "1") == 0;
        if (!t && strcasecmp(text, "false") != 0 && strcmp(text, "0") != 0)
            return tl_fail(err, TL_E_VALUE, NULL, "'%s' is not a BOOL value (true, false, 1 "
                           "or 0)", q);
        *(uint8_t *)out = t;
        return 0;
    }
    if (tl_dtype_is_signed(dt)) {
        long long v = strtoll(text, &end, 0);
        int64_t lim = (int64_t)(UINT64_MAX >> (65 - width));
        if (*end)
            return tl_fail(err, TL_E_VALUE, NULL, "'%s' is not a %s value", q, name);
        if (errno == ERANGE || v > lim || v < -lim - 1)
            return tl_fail(err, TL_E_RANGE, NULL, "'%s' is out of range for %s", q, name);
        bits = (uint64_t)v;
    } else {
        bool zero = text[0] == '-' && text[1] != '\0' && strspn(text + 1, "0") == strlen(text + 1);
        if (text[0] == '-' && !zero)
            return tl_fail(err, TL_E_RANGE, NULL, "'%s' is out of range for %s", q, name);
        if (zero)
            text++;                                 /* -0 is 0 */
        unsigned long long v = strtoull(text, &end, 0);
        uint64_t lim = UINT64_MAX >> (64 - width);
        if (*end)
            return tl_fail(err, TL_E_VALUE, NULL, "'%s' is not a %s value", q, name);
        if (errno == ERANGE || v > lim)
            return tl_fail(err, TL_E_RANGE, NULL, "'%s' is out of range for %s", q, name);
        bits = v;
    }
    /* little-endian hosts only (x86-64, AArch64): the low bytes come first */
    memcpy(out, &bits, size);
    return 0;
}

int tl_desc_format(const struct tl_desc *d, const uint8_t *file, uint64_t e, char *buf, size_t n)
{
    uint8_t v[8];
    tl_desc_get(d, file, e, v);
    return tl_dtype_format(d->dtype, v, buf, n);
}
