/*
 * value_text.c - a value of any type as text and back: the shortest decimal
 * that reads back to the same value (tl_dtype_format), and a value parsed
 * from text with one rounding (tl_dtype_parse_value).  Over the type table
 * (dtype.c) and the exact converter (convert.c).
 */
#include <ctype.h>
#include <errno.h>
#include <float.h>
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
 * v and the midpoints to its neighbours in its type are exact in a double
 * for the types of at most 24 significant bits (FLOAT32, FLOAT16,
 * BFLOAT16), and in a long double of 64 bits (x86-64's) for a FLOAT64,
 * whose midpoints take 54.  For p = 1, 2, ... digits, v scaled by 10^k
 * (k = p - 1 - its decimal exponent) lies between the scaled midpoints;
 * the shortest text is the first p for which an integer D lies strictly
 * between them.  The scaling costs a rounding per power of ten past the
 * largest exact one (10^22 in a double, 10^27 in a long double), at most
 * 13; where the scaled values are nearer to a decision than 16 roundings
 * could move them, it is made exactly in 128-bit integers (cmp_exact);
 * past 10^27, and on a midpoint itself, the exact, slow path decides
 * (snprintf and strtod).  Where long double has fewer bits, a FLOAT64
 * takes the slow path.  (dump --json prints every float as the double it
 * is, SPEC 19: 4 Mi FLOAT32 values took 43 s on the slow path alone.)
 * shortest.h holds the path, made once per arithmetic type.  Before it, a
 * FLOAT64 of magnitude 1e-11 to 1e17 takes a path in integers alone
 * (format_fast_u64), 2-2.5x faster than the long double one. */

/* The value of bits b of a 16-bit type, as a double. */
static double half_like(uint32_t bits, enum tl_dtype dt)
{
    uint16_t h = (uint16_t)bits;
    return dt == TL_DT_BFLOAT16 ? tl_bfloat_to_float(h) : tl_half_to_float(h);
}

/* The neighbours of v (> 0, finite) in its own type. */
static void neighbours(double v, enum tl_dtype dt, double *below, double *above)
{
    if (dt == TL_DT_FLOAT64) {          /* v > 0, finite: its bits' neighbours */
        uint64_t b;
        memcpy(&b, &v, sizeof b);
        b--;
        memcpy(below, &b, sizeof b);
        b += 2;
        memcpy(above, &b, sizeof b);    /* DBL_MAX's: the infinity */
    } else if (dt == TL_DT_FLOAT32) {
        float f = (float)v;
        *below = nextafterf(f, 0);
        *above = nextafterf(f, INFINITY);
    } else {
        uint16_t b;
        tl_convert_value(TL_DT_FLOAT64, &v, dt, &b);
        *below = half_like(b - 1u, dt);
        *above = half_like(b + 1u, dt);
    }
}

/* 10^0 .. 10^18 */
static const uint64_t pow10_u64[19] = {
    1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull, 10000000ull, 100000000ull,
    1000000000ull, 10000000000ull, 100000000000ull, 1000000000000ull, 10000000000000ull,
    100000000000000ull, 1000000000000000ull, 10000000000000000ull, 100000000000000000ull,
    1000000000000000000ull,
};

/* Writes the %g-style text of D x 10^(e - nd + 1), D of nd digits, as
 * printf("%.*g", p, ...) would with the value's digits D.  @return the
 * length. */
static int write_g(bool neg, uint64_t digits, int nd, int e, int p, char *buf, size_t n)
{
    static const char pairs[] =             /* "00" to "99": two digits a division */
        "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
        "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
        "8081828384858687888990919293949596979899";
    char d[24];
    int left = nd;
    for (; left >= 2; left -= 2) {
        unsigned r = (unsigned)(digits % 100);
        digits /= 100;
        d[left - 2] = pairs[2 * r];
        d[left - 1] = pairs[2 * r + 1];
    }
    if (left)
        d[0] = (char)('0' + digits);
    while (nd > 1 && d[nd - 1] == '0')      /* %g drops trailing zeros */
        nd--;
    char spare[48];                          /* where buf is too small for any text */
    char *out = n >= sizeof spare ? buf : spare;
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
    if (out == buf)
        return (int)o;
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

#define POW10_MAX 27                   /* 5^27 < 2^63 */

/* 5^0 .. 5^27 */
static const uint64_t pow5[POW10_MAX + 1] = {
    1ull, 5ull, 25ull, 125ull, 625ull, 3125ull, 15625ull, 78125ull, 390625ull,
    1953125ull, 9765625ull, 48828125ull, 244140625ull, 1220703125ull, 6103515625ull,
    30517578125ull, 152587890625ull, 762939453125ull, 3814697265625ull,
    19073486328125ull, 95367431640625ull, 476837158203125ull, 2384185791015625ull,
    11920928955078125ull, 59604644775390625ull, 298023223876953125ull,
    1490116119384765625ull, 7450580596923828125ull,
};

/* The sign of a * 10^k - n / 2, exactly (a > 0 of at most 64 significant
 * bits, 0 < n < 2^62): -1, 0 or 1, or 2 when |k| is past the exact powers
 * of ten.  In 128-bit integers: a = m 2^q, and 5^|k| < 2^63 goes to the
 * side it multiplies. */
static int cmp_exact(long double a, int k, uint64_t n)
{
    if (k > POW10_MAX || k < -POW10_MAX)
        return 2;
    int q;
    uint64_t m = (uint64_t)ldexpl(frexpl(a, &q), 64);
    q -= 64;                                             /* a = m 2^q */
    unsigned __int128 x = m, y = n;
    if (k >= 0)
        x *= pow5[k];                                    /* < 2^127 */
    else
        y *= pow5[-k];                                   /* < 2^125 */
    int shift = q + k + 1;                               /* compare x 2^shift with y */
    unsigned __int128 *small = shift >= 0 ? &x : &y;
    int by = shift >= 0 ? shift : -shift;
    int bits = 0;
    for (unsigned __int128 t = *small; t; t >>= 1)
        bits++;
    if (bits + by > 127)                                 /* past the other side's 2^125 */
        return shift >= 0 ? 1 : -1;
    *small <<= by;
    return (x > y) - (x < y);
}

/* The integer nearest x (0 <= x < 2^51, or 2^62 for a long double), in
 * the rounding mode that is set: x plus 1.5 2^52 (2^63) has the integer's
 * bits at the bottom of its own.  Ties go to the even one.  (llrint and
 * llrintl are calls, and a cast switches an x87 FPU's mode to truncate
 * and back: each took a good part of try_digits's time.) */
static inline int64_t nearest_d(double x)
{
#if FLT_EVAL_METHOD == 0
    double t = x + 0x1.8p52;
    uint64_t b;
    memcpy(&b, &t, 8);
    return (int64_t)(b - 0x4338000000000000ull);
#else
    return llrint(x);
#endif
}

static inline int64_t nearest_ld(long double x)
{
#if LDBL_MANT_DIG == 64 && (defined(__x86_64__) || defined(__i386__))
    long double t = x + 0x1.8p63L;           /* x87: the 64-bit significand first */
    uint64_t m;
    memcpy(&m, &t, 8);
    return (int64_t)(m - 0xc000000000000000ull);
#else
    return llrintl(x);
#endif
}

#define REAL double
#define REAL_EXACT 22
#define REAL_EPS DBL_EPSILON
#define SUF(name) name##_d
#define RINT nearest_d
#define FABS fabs
#include "shortest.h"

#define REAL long double
#define REAL_EXACT 27
#define REAL_EPS LDBL_EPSILON
#define SUF(name) name##_ld
#define RINT nearest_ld
#define FABS fabsl
#include "shortest.h"

/* Whether long double arithmetic really has 64 bits: the type may say so
 * and the machine not do it (valgrind runs x87 code with 53). */
static bool long_double_has_64_bits(void)
{
    volatile long double one = 1, tiny = 0x1p-63L;
    return LDBL_MANT_DIG >= 64 && one + tiny != one;
}

/* x / 10^t: the compiler's multiplications for the common t */
static inline uint64_t div10(uint64_t x, int t)
{
    switch (t) {
    case 0:  return x;
    case 1:  return x / 10;
    case 2:  return x / 100;
    default: return x / pow10_u64[t];
    }
}

/* A double's shortest text in 64- and 128-bit integers, for the magnitudes
 * tensors hold (from about 1e-11 to 1e17; dump --json prints each FLOAT32
 * as the double it is, where the long double path took 60% of the time).
 * |v| = m 2^q and its rounding interval, the midpoints m 2^q -+ 2^(q-1)
 * (2^(q-2) below a power of two), are scaled by 10^k to 17 or 18 digits:
 * V 2^(q-2) 10^k = V 5^k 2^(k+q-2), with V < 2^55 and 5^k < 2^63, exact in
 * 128 bits, then shifted into whole parts (u64) and the bits below them.
 * A decimal of t fewer digits lies strictly inside when an integer does
 * between the scaled bounds over 10^t; the largest such t gives the
 * shortest length, and of that length the decimal nearest v (ties to the
 * even one).  @return the length, or -1 (a magnitude outside the range, or
 * a midpoint that is itself a decimal of 17 or 18 digits, which may read
 * back by evenness: the long double path decides). */
static int format_fast_u64(double v, char *buf, size_t n)
{
    uint64_t bits;
    memcpy(&bits, &v, 8);
    int be = (int)(bits >> 52 & 0x7ff);
    if (be == 0 || be == 0x7ff)                          /* zero, subnormal, inf, NaN */
        return -1;
    uint64_t m = (bits & ((1ull << 52) - 1)) | 1ull << 52;
    int q = be - 1075;
    /* 10^e <= |v| < 10^(e + 2): |v| 10^k in [10^16, 10^18) */
    int e = (int)floor((be - 1023) * 0.30102999566398120);
    int k = 16 - e;
    if (k < 0 || k > POW10_MAX)
        return -1;
    /* no bits below the whole parts (|v| near 2^53 and up): the midpoints
     * are decimals of 18 digits or fewer */
    int sh = -(k + q - 2);
    if (sh <= 0 || sh >= 100)
        return -1;
    uint64_t v4[3] = { 4 * m - (m == 1ull << 52 && be > 1 ? 1 : 2), 4 * m, 4 * m + 2 };
    uint64_t whole[3];
    unsigned __int128 below[3], half = (unsigned __int128)1 << (sh - 1);
    for (int i = 0; i < 3; i++) {
        unsigned __int128 x = (unsigned __int128)v4[i] * pow5[k];
        whole[i] = (uint64_t)(x >> sh);                  /* < 10^18 x 1.01 */
        below[i] = x & (2 * half - 1);
    }
    if (below[0] == 0 || below[2] == 0)                  /* a midpoint on a decimal */
        return -1;
    uint64_t lo = whole[0], mid = whole[1], hi = whole[2];
    int digits = mid >= pow10_u64[17] ? 18 : 17;
    /* t digits fewer fit when an integer lies strictly between lo / 10^t
     * and hi / 10^t (neither is one, as below[] is not 0): t = 1 and 2
     * first (a FLOAT32 as a double mostly takes 16 or 17 digits), then by
     * bisection */
    if (lo >= hi)
        return -1;
    int t = 0, none = digits;                            /* t fits; none does not */
    if (lo / 10 >= hi / 10)
        none = 1;
    else if (lo / 100 >= hi / 100)                       /* 16 digits: a FLOAT32 often */
        t = 1, none = 2;
    else
        t = 2;
    while (none - t > 1) {
        int mt = (t + none) / 2;
        if (div10(lo, mt) < div10(hi, mt))
            t = mt;
        else
            none = mt;
    }
    uint64_t p10 = pow10_u64[t], d = div10(mid, t), r = mid - d * p10;
    /* mid + below[1] / 2^sh against the halfway point d + 1/2, times 10^t */
    int side;
    if (t > 0)
        side = r != p10 / 2 ? (r > p10 / 2 ? 1 : -1) : below[1] != 0;
    else
        side = (below[1] > half) - (below[1] < half);
    bool up = side > 0 || (side == 0 && d % 2);
    d += up;
    uint64_t a = div10(lo, t) + 1, b = div10(hi, t);     /* the integers inside */
    if (d < a || d > b)
        d = up ? d - 1 : d + 1;                          /* the nearest was outside */
    int p = digits - t;
    if (d < a || d > b || d >= pow10_u64[p] || d < pow10_u64[p - 1])
        return -1;
    return write_shortest(bits >> 63, d, p, t - k + p - 1, buf, n);
}

/* The fast path for v of type dt; @return the length, or -1 to take the
 * exact path. */
static int format_fast(double v, int maxprec, enum tl_dtype dt, char *buf, size_t n)
{
    if (dt != TL_DT_FLOAT64)
        return format_fast_d(v, maxprec, dt, buf, n);
    int len = format_fast_u64(v, buf, n);
    if (len >= 0)
        return len;
    return long_double_has_64_bits() ? format_fast_ld(v, maxprec, dt, buf, n) : -1;
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
    int len = format_fast(v, maxprec, dt, buf, n);
    if (len >= 0)
        return len;
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
            if (d >= pow10_u64[p]) {              /* 99.. + 1 */
                d /= 10;
                e++;
            } else if (d < pow10_u64[p - 1]) {    /* 10.. - 1: p - 1 digits */
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
        /* nan, inf and the zeros as every float type writes them */
        uint8_t code = dt == TL_DT_FLOAT4E2M1 ? v.u8 & 15 : v.u8;
        double x = tl_fp8_to_double(dt, code);
        if (isnan(x))
            return snprintf(buf, n, "nan");
        if (isinf(x))
            return snprintf(buf, n, x < 0 ? "-inf" : "inf");
        if (x == 0)
            return snprintf(buf, n, signbit(x) ? "-0" : "0");
        /* every FP8 and FP4 value is a FLOAT16 value (E8M0's a FLOAT32
         * one): written as that type writes it, the fewest digits that
         * read back, positional (10, 448, 0.8125; SPEC 23) */
        return dt == TL_DT_FLOAT8E8M0 ? format_float(x, 9, TL_DT_FLOAT32, buf, n)
                                      : format_float(x, 5, TL_DT_FLOAT16, buf, n);
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
