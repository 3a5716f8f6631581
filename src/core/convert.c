/*
 * convert.c - data type conversion (SPEC section 7): the scalar reference
 * for every pair of the 12 types (the copy engine's kernels are held to it)
 * and the search for the first value that does not fit.
 *
 * Every value is decoded exactly (integers into a 128-bit integer, floats
 * into a double, which holds every FLOAT16, BFLOAT16 and FLOAT32 value) and
 * encoded with one rounding:
 *
 *   float -> float    to nearest, ties to even; beyond the range: +-Inf;
 *                     NaN stays NaN (quieted, with the top of its payload,
 *                     as F16C and the AVX-512 conversions do)
 *   int -> float      to nearest, ties to even
 *   float -> int      toward zero; NaN, +-Inf and values outside the range
 *                     are reported, and clamped (NaN to 0)
 *   int -> int        values outside the range are reported, and clamped
 *
 * Narrow float targets (FLOAT16, BFLOAT16) are reached through "round to
 * odd": a double or float rounded to odd keeps enough information (two more
 * bits than the target) for the final round-to-nearest-even to be the
 * correct single rounding of the exact value.
 */
#include <math.h>
#include <string.h>

#include "tl.h"

/* One value, exactly. */
struct value {
    bool is_float;
    double f;
    __int128 i;
};

static void decode(enum tl_dtype dt, const uint8_t *p, struct value *v)
{
    union { uint8_t u8; int8_t i8; uint16_t u16; int16_t i16; uint32_t u32; int32_t i32;
            uint64_t u64; int64_t i64; float f; double d; } x;
    memcpy(&x, p, tl_dtype_size(dt));
    v->is_float = tl_dtype_is_float(dt);
    v->f = 0;
    v->i = 0;
    switch (dt) {
    case TL_DT_FLOAT32:  v->f = x.f; break;
    case TL_DT_FLOAT16:  v->f = tl_half_to_float(x.u16); break;
    case TL_DT_BFLOAT16: v->f = tl_bfloat_to_float(x.u16); break;
    case TL_DT_FLOAT64:  v->f = x.d; break;
    case TL_DT_UINT8:    v->i = x.u8; break;
    case TL_DT_INT8:     v->i = x.i8; break;
    case TL_DT_UINT16:   v->i = x.u16; break;
    case TL_DT_INT16:    v->i = x.i16; break;
    case TL_DT_UINT32:   v->i = x.u32; break;
    case TL_DT_INT32:    v->i = x.i32; break;
    case TL_DT_UINT64:   v->i = x.u64; break;
    case TL_DT_UINT4:    v->i = x.u8 & 15; break;
    case TL_DT_BOOL:     v->i = x.u8 != 0; break;
    case TL_DT_INT4:     v->i = tl_int4_value(x.u8); break;
    case TL_DT_FLOAT8E4M3:
    case TL_DT_FLOAT8E5M2:
    case TL_DT_FLOAT8E8M0: v->f = tl_fp8_to_double(dt, x.u8); break;
    case TL_DT_FLOAT4E2M1: v->f = tl_fp8_to_double(dt, x.u8 & 15); break;
    default:             v->i = x.i64; break;
    }
}

/* d rounded to a float with round-to-odd: the neighbour of the two floats
 * around d whose last mantissa bit is 1, unless d is a float. */
static float float_odd(double d)
{
    float f = (float)d;
    if (isnan(d) || (double)f == d)
        return f;
    uint32_t b;
    if (isinf(f)) {
        b = 0x7f7fffff | (d < 0 ? 0x80000000u : 0);    /* the largest float, odd */
    } else {
        memcpy(&b, &f, 4);
        if (!(b & 1))
            b += fabs(d) > fabs((double)f) ? 1 : -1;   /* the other, odd, neighbour */
    }
    memcpy(&f, &b, 4);
    return f;
}

/* An integer rounded to a double with round-to-odd. */
static double double_odd(__int128 v)
{
    bool neg = v < 0;
    unsigned __int128 m = neg ? -(unsigned __int128)v : (unsigned __int128)v;
    int k = 0;
    while ((m >> k) >= ((unsigned __int128)1 << 53))
        k++;
    uint64_t r = (uint64_t)(m >> k);
    if (k && (m & (((unsigned __int128)1 << k) - 1)))
        r |= 1;
    double d = ldexp((double)r, k);
    return neg ? -d : d;
}

static void put_float(enum tl_dtype dt, double d, uint8_t *p)
{
    switch (dt) {
    case TL_DT_FLOAT64: memcpy(p, &d, 8); break;
    case TL_DT_FLOAT32: { float f = (float)d; memcpy(p, &f, 4); break; }
    case TL_DT_FLOAT16: { uint16_t h = tl_float_to_half(float_odd(d)); memcpy(p, &h, 2); break; }
    case TL_DT_FLOAT8E4M3:
    case TL_DT_FLOAT8E5M2:
    case TL_DT_FLOAT8E8M0:
    case TL_DT_FLOAT4E2M1: p[0] = tl_double_to_fp8(dt, d); break;     /* one rounding */
    default:            { uint16_t h = tl_float_to_bfloat(float_odd(d)); memcpy(p, &h, 2); break; }
    }
}

/* The range of an integer type. */
static void range(enum tl_dtype dt, __int128 *lo, __int128 *hi)
{
    unsigned bits = tl_dtype_bits(dt);
    if (tl_dtype_is_signed(dt)) {
        *hi = ((__int128)1 << (bits - 1)) - 1;
        *lo = -*hi - 1;
    } else {
        *hi = ((__int128)1 << bits) - 1;
        *lo = 0;
    }
}

static void put_int(enum tl_dtype dt, __int128 v, uint8_t *p)
{
    uint64_t bits = (uint64_t)v;        /* two's complement, low bytes first; a
                                           4-bit value takes its byte, sign-extended */
    memcpy(p, &bits, tl_dtype_size(dt));
}

/* Whether the float of type dt at p is an infinity. */
static bool became_infinite(enum tl_dtype dt, const uint8_t *p)
{
    struct value r;
    decode(dt, p, &r);
    return isinf(r.f);
}

bool tl_convert_value(enum tl_dtype sdt, const void *src, enum tl_dtype ddt, void *dst)
{
    struct value v;
    uint8_t *p = dst;
    decode(sdt, src, &v);
    if (ddt == TL_DT_FLOAT4E2M1) {              /* one rounding from the exact value */
        double d = v.is_float ? v.f : double_odd(v.i);
        p[0] = tl_double_to_fp8(ddt, d);
        return isnan(d);                        /* it has no NaN: 0, reported */
    }
    if (tl_dtype_is_float(ddt)) {
        if (v.is_float) {
            put_float(ddt, v.f, p);
            return isfinite(v.f) && became_infinite(ddt, p);
        } else if (ddt == TL_DT_FLOAT64 || ddt == TL_DT_FLOAT32) {
            /* one rounding: C's conversion from a 64-bit integer */
            double d = v.i < 0 ? (double)(int64_t)v.i : (double)(uint64_t)v.i;
            float f = v.i < 0 ? (float)(int64_t)v.i : (float)(uint64_t)v.i;
            if (ddt == TL_DT_FLOAT64)
                memcpy(p, &d, 8);
            else
                memcpy(p, &f, 4);
        } else {
            put_float(ddt, double_odd(v.i), p);
        }
        return became_infinite(ddt, p);
    }
    if (ddt == TL_DT_BOOL) {                    /* nonzero is true, NaN too: it fits */
        p[0] = v.is_float ? v.f != 0 || isnan(v.f) : v.i != 0;
        return false;
    }
    __int128 lo, hi, out;
    bool bad = false;
    range(ddt, &lo, &hi);
    if (v.is_float) {
        if (isnan(v.f)) {
            out = 0;
            bad = true;
        } else {
            double t = trunc(v.f);              /* toward zero, then the range */
            if (t < (double)lo) {
                out = lo;
                bad = true;
            } else if (t >= (double)(hi + 1)) {  /* hi + 1 is a power of two: exact */
                out = hi;
                bad = true;
            } else {
                out = (__int128)t;
            }
        }
    } else {
        out = v.i < lo ? lo : v.i > hi ? hi : v.i;
        bad = out != v.i;
    }
    put_int(ddt, out, p);
    return bad;
}

bool tl_convert_find_bad(const struct tl_desc *src, const uint8_t *src_file, enum tl_dtype ddt,
                         uint64_t *idx)
{
    uint8_t in[8], out[8];
    memset(idx, 0, src->rank * sizeof idx[0]);
    do {
        tl_desc_get(src, src_file, tl_desc_elem(src, idx), in);
        if (tl_convert_value(src->dtype, in, ddt, out))
            return true;
    } while (tl_index_next(src->rank, src->sizes, idx));
    return false;
}

/* Whether FLOAT32 bits x are finite and round to an infinity in ddt (the
 * halfway points to the next power of two round up: ties go to the even
 * infinity's side). */
static bool f32_overflows(uint32_t x, enum tl_dtype ddt)
{
    uint32_t a = x & 0x7fffffffu;
    if (ddt == TL_DT_FLOAT16)
        return a >= 0x477ff000u && a < 0x7f800000u;
    return a >= 0x7f7f8000u && a < 0x7f800000u;
}

uint64_t tl_convert_count_overflow(const struct tl_desc *src, const uint8_t *src_file,
                                   enum tl_dtype ddt)
{
    if (!tl_dtype_is_float(ddt) || ddt == TL_DT_FLOAT4E2M1)
        return 0;
    struct tl_info info;
    tl_desc_classify(src, &info);
    if (info.element_count == 0)
        return 0;
    uint64_t n = 0, idx[TL_MAX_RANK];
    uint8_t in[8], out[8];
    bool fast = src->dtype == TL_DT_FLOAT32 && (ddt == TL_DT_FLOAT16 || ddt == TL_DT_BFLOAT16);
    memset(idx, 0, src->rank * sizeof idx[0]);
    do {
        tl_desc_get(src, src_file, tl_desc_elem(src, idx), in);
        if (fast) {
            uint32_t x;
            memcpy(&x, in, 4);
            n += f32_overflows(x, ddt);
        } else {
            n += tl_convert_value(src->dtype, in, ddt, out);
        }
    } while (tl_index_next(src->rank, src->sizes, idx));
    return n;
}
