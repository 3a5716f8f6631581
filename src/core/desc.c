/*
 * desc.c - descriptions: validation, layouts, strides, offsets, problems.
 *
 * Validation is where every derived quantity is proved to fit in 64 bits;
 * the rest of the core relies on that and computes without checks.
 */
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "tl.h"

static const char *const letters[TL_MAX_RANK + 1] = {
    NULL, "W", "HW", "DHW", "NCHW", "NCDHW", NULL, NULL, NULL
};

const char *tl_axis_letters(unsigned rank)
{
    return rank <= TL_MAX_RANK ? letters[rank] : NULL;
}

int tl_desc_init(struct tl_desc *d, enum tl_dtype dt, unsigned rank,
                 const uint64_t *sizes, struct tl_error *err)
{
    memset(d, 0, sizeof *d);
    d->dtype = dt;
    d->rank = rank;
    d->strides_src = TL_STRIDES_IMPLICIT;
    if (rank < 1 || rank > TL_MAX_RANK)
        return tl_fail(err, TL_E_RANGE, "sizes", "must have 1 to %d entries, not %u",
                       TL_MAX_RANK, rank);
    unsigned order[TL_MAX_RANK];
    for (unsigned i = 0; i < rank; i++) {
        d->sizes[i] = sizes[i];
        order[i] = i;
    }
    int rc = tl_strides_for_order(rank, d->sizes, order, 0, d->strides, err);
    return rc ? rc : tl_desc_validate(d, err);
}

int tl_desc_validate(struct tl_desc *d, struct tl_error *err)
{
    char key[24];
    if (d->rank < 1 || d->rank > TL_MAX_RANK)
        return tl_fail(err, TL_E_RANGE, "sizes", "must have 1 to %d entries, not %u",
                       TL_MAX_RANK, d->rank);
    uint64_t count = 1, last = 0;
    for (unsigned i = 0; i < d->rank; i++) {
        snprintf(key, sizeof key, "sizes[%u]", i);
        if (d->sizes[i] < 1)
            return tl_fail(err, TL_E_RANGE, key, "must be an integer >= 1");
        if (!tl_mul_ok(count, d->sizes[i], &count))
            return tl_fail(err, TL_E_OVERFLOW, "sizes",
                           "element count overflows 64 bits");
    }
    for (unsigned i = 0; i < d->rank; i++) {
        uint64_t step;
        if (!tl_mul_ok(d->sizes[i] - 1, d->strides[i], &step) ||
            !tl_add_ok(last, step, &last) || last == UINT64_MAX)
            return tl_fail(err, TL_E_OVERFLOW, "strides",
                           "span of the tensor overflows 64 bits");
    }
    uint64_t span = last + 1, bytes, rounded, end;
    unsigned bits = tl_dtype_bits(d->dtype);
    bool whole = tl_mul_ok(span, bits / 8 ? bits / 8 : 1, &bytes);
    if (bits < 8)                       /* ceil(span x bits / 8): cannot overflow */
        bytes = tl_dtype_bytes(d->dtype, span);
    if (!whole || !tl_add_ok(bytes, 3, &rounded))
        return tl_fail(err, TL_E_OVERFLOW, "strides",
                       "size of the tensor in bytes overflows 64 bits");
    rounded &= ~(uint64_t)3;
    uint64_t origin;
    if (!tl_add_ok(d->file_offset, d->byte_offset, &origin))
        return tl_fail(err, TL_E_OVERFLOW, "fileOffset",
                       "fileOffset plus byteOffset overflows 64 bits");
    if (!tl_add_ok(origin, bytes, &end))
        return tl_fail(err, TL_E_OVERFLOW, "byteOffset",
                       "byteOffset plus the tensor's bytes overflows 64 bits");
    if (!d->total_given)
        d->total_bytes = rounded;
    else if (!tl_add_ok(origin, d->total_bytes, &end))
        return tl_fail(err, TL_E_OVERFLOW, "byteOffset",
                       "byteOffset plus totalTensorSizeInBytes overflows 64 bits");
    return 0;
}

int tl_strides_for_order(unsigned rank, const uint64_t *sizes,
                         const unsigned *order, unsigned broadcast_mask,
                         uint64_t *strides, struct tl_error *err)
{
    return tl_strides_padded(rank, sizes, order, broadcast_mask, NULL, strides, err);
}

/* step rounded up to a multiple of m (m > 0); false on overflow. */
static bool round_up(uint64_t *step, uint64_t m)
{
    return *step % m == 0 || tl_mul_ok(*step / m + 1, m, step);
}

static uint64_t gcd(uint64_t a, uint64_t b)
{
    while (b) {
        uint64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

int tl_strides_padded(unsigned rank, const uint64_t *sizes, const unsigned *order,
                      unsigned broadcast_mask, const struct tl_padding *pad, uint64_t *strides,
                      struct tl_error *err)
{
    uint64_t step = 1, multiple = 0;   /* what the next stride must be a multiple of */
    const char *names = tl_axis_letters(rank);
    for (unsigned k = rank; k-- > 0;) {
        unsigned axis = order[k];
        uint64_t slots = pad ? pad->slots[axis] : 0, align = pad ? pad->align[axis] : 0;
        uint64_t pitch = pad ? pad->pitch[axis] : 0;
        char key[16];
        snprintf(key, sizeof key, "%c", names ? names[axis] : (char)('0' + axis));
        if (broadcast_mask & (1u << axis)) {
            if (slots || align || pitch)
                return tl_fail(err, TL_E_VALUE, key, "is broadcast (stride 0): it has no slots "
                               "to pad or align");
            strides[axis] = 0;
            continue;
        }
        /* its own stride: a multiple of the inner axis's alignment and of
         * its own pitch (both: of their lcm) */
        if (pitch && (!multiple || !tl_mul_ok(multiple / gcd(multiple, pitch), pitch, &multiple)))
            multiple = multiple ? 0 : pitch;
        if ((pitch && !multiple) || (multiple && !round_up(&step, multiple)))
            return tl_fail(err, TL_E_OVERFLOW, "sizes", "%s strides overflow 64 bits",
                           pad ? "the padded" : "packed");
        strides[axis] = step;
        if (k == 0) {
            if (slots || align)
                return tl_fail(err, TL_E_VALUE, key, "is the outermost axis: no stride follows "
                               "from its padding");
            break;
        }
        if (slots && slots < sizes[axis])
            return tl_fail(err, TL_E_VALUE, key, "%" PRIu64 " slots are fewer than its size %"
                           PRIu64, slots, sizes[axis]);
        if (!tl_mul_ok(step, slots ? slots : sizes[axis], &step))
            return tl_fail(err, TL_E_OVERFLOW, "sizes", "%s strides overflow 64 bits",
                           pad ? "the padded" : "packed");
        multiple = align;
    }
    return 0;
}

/* Index of an axis letter in the rank's letters, or -1. */
static int letter_axis(unsigned rank, char c)
{
    const char *l = tl_axis_letters(rank);
    const char *p = l && c ? strchr(l, toupper((unsigned char)c)) : NULL;
    return p ? (int)(p - l) : -1;
}

/* Splits text into axis numbers: letters ("NHWC", "H,W") or indices
 * ("0,2,3,1").  @return how many, or -1 when malformed. */
static int parse_axes(unsigned rank, const char *text, unsigned *axes, unsigned max)
{
    int n = 0;
    const char *p = text;
    if (!*p)
        return -1;
    while (*p) {
        if ((unsigned)n == max)
            return -1;
        if (isdigit((unsigned char)*p)) {
            unsigned v = 0;
            while (isdigit((unsigned char)*p)) {
                v = v * 10 + (unsigned)(*p++ - '0');
                if (v >= rank)
                    return -1;
            }
            axes[n++] = v;
            if (*p == ',' && p[1])
                p++;
            else if (*p)
                return -1;
        } else {
            int a = letter_axis(rank, *p++);
            if (a < 0)
                return -1;
            axes[n++] = (unsigned)a;
            if (*p == ',' && p[1])
                p++;
        }
    }
    return n;
}

/* Weight letters (SPEC section 9): at ranks 3 to 5, O and I name axes 0
 * and 1 (PyTorch's OIHW is NCHW, OIW is DHW), so OHWI and HWIO read as
 * NHWC and HWCN.  Writes text with them replaced into buf.  @return 0, or
 * TL_E_VALUE when they are mixed with the letters of axes 0 and 1. */
static int weight_letters(unsigned rank, const char *text, char *buf, size_t n,
                          struct tl_error *err)
{
    const char *l = tl_axis_letters(rank);
    snprintf(buf, n, "%s", text);
    if (rank < 3 || rank > 5 || !l || !strpbrk(text, "OoIi"))
        return 0;
    char q[40];
    for (const char *p = text; *p; p++) {
        int a = letter_axis(rank, *p);
        if (a == 0 || a == 1)
            return tl_fail(err, TL_E_VALUE, NULL, "'%s' mixes the weight letters O and I with "
                           "%c and %c, the axes they name: use one or the other",
                           tl_quote(text, q, sizeof q), l[0], l[1]);
    }
    for (char *p = buf; *p; p++) {
        if (*p == 'O' || *p == 'o')
            *p = l[0];
        else if (*p == 'I' || *p == 'i')
            *p = l[1];
    }
    return 0;
}

int tl_layout_parse(unsigned rank, const char *text, unsigned *order,
                    struct tl_error *err)
{
    char q[40], spelled[64];
    unsigned axes[TL_MAX_RANK + 1], seen = 0;
    if (strlen(text) < sizeof spelled && weight_letters(rank, text, spelled, sizeof spelled, err))
        return TL_E_VALUE;
    int n = parse_axes(rank, strlen(text) < sizeof spelled ? spelled : text, axes,
                       TL_MAX_RANK + 1);
    if (n == (int)rank) {
        for (unsigned i = 0; i < rank; i++)
            seen |= 1u << axes[i];
    }
    if (seen != (1u << rank) - 1) {
        const char *l = tl_axis_letters(rank);
        if (l && rank == 3 && strlen(text) == 3 && strpbrk(text, "Cc"))  /* an image's HWC */
            return tl_fail(err, TL_E_VALUE, NULL,
                           "'%s' is not a permutation of 'DHW': rank 3 has the letters D, H, W, "
                           "so an image's channels are D (write HWD for HWC, or the indices "
                           "1,2,0)", tl_quote(text, q, sizeof q));
        const char *bad = text;         /* a letter no layout has ('B' of "BHWC") */
        while (*bad && !(isalpha((unsigned char)*bad) && !strchr("NCDHWOIncdhwoi", *bad)))
            bad++;
        if (l && *bad)
            return tl_fail(err, TL_E_VALUE, NULL,
                           "'%s' is not a permutation of '%s' or of the axis indices 0..%u: "
                           "'%c' is no axis letter (N, C, D, H, W, and O, I of a weight's OIHW)",
                           tl_quote(text, q, sizeof q), l, rank - 1, *bad);
        if (l)
            return tl_fail(err, TL_E_VALUE, NULL,
                           "'%s' is not a permutation of '%s' or of the axis indices 0..%u",
                           tl_quote(text, q, sizeof q), l, rank - 1);
        return tl_fail(err, TL_E_VALUE, NULL,
                       "'%s' is not a permutation of the axis indices 0..%u (rank %u has no letters)",
                       tl_quote(text, q, sizeof q), rank - 1, rank);
    }
    memcpy(order, axes, rank * sizeof *order);
    return 0;
}

int tl_axes_parse(unsigned rank, const char *text, unsigned *mask, struct tl_error *err)
{
    char q[40];
    unsigned axes[TL_MAX_RANK];
    int n = parse_axes(rank, text, axes, TL_MAX_RANK);
    if (n < 0)
        return tl_fail(err, TL_E_VALUE, NULL, "'%s' does not name axes of a rank-%u tensor",
                       tl_quote(text, q, sizeof q), rank);
    *mask = 0;
    for (int i = 0; i < n; i++)
        *mask |= 1u << axes[i];
    return 0;
}

uint64_t tl_desc_elem(const struct tl_desc *d, const uint64_t *idx)
{
    uint64_t off = 0;
    for (unsigned i = 0; i < d->rank; i++)
        off += idx[i] * d->strides[i];
    return off;
}

uint64_t tl_desc_byte(const struct tl_desc *d, uint64_t e, unsigned *bit)
{
    unsigned bits = tl_dtype_bits(d->dtype);
    /* e * bits / 8 without forming e * bits, which may not fit */
    uint64_t at = tl_desc_origin(d) + (e / 8) * bits + (e % 8) * bits / 8;
    if (bit)
        *bit = (unsigned)((e % 8) * bits % 8);
    return at;
}

void tl_dtype_get(enum tl_dtype dt, const uint8_t *p, unsigned bit, void *out)
{
    if (tl_dtype_bits(dt) != 4) {
        memcpy(out, p, tl_dtype_size(dt));
        return;
    }
    uint8_t v = (uint8_t)(*p >> bit & 15);
    if (dt == TL_DT_INT4)
        v = (uint8_t)tl_int4_value(v);
    memcpy(out, &v, 1);
}

void tl_desc_get(const struct tl_desc *d, const uint8_t *file, uint64_t e, void *out)
{
    unsigned bit;
    uint64_t at = tl_desc_byte(d, e, &bit);
    tl_dtype_get(d->dtype, file + at, bit, out);
}

void tl_desc_put(const struct tl_desc *d, uint8_t *file, uint64_t e, const void *in)
{
    unsigned bit;
    uint8_t *p = file + tl_desc_byte(d, e, &bit);
    if (tl_dtype_bits(d->dtype) != 4) {
        memcpy(p, in, tl_dtype_size(d->dtype));
        return;
    }
    uint8_t v;
    memcpy(&v, in, 1);
    *p = (uint8_t)((*p & ~(15u << bit)) | (unsigned)(v & 15) << bit);
}

uint64_t tl_desc_origin(const struct tl_desc *d)
{
    return d->file_offset + d->byte_offset;
}

uint64_t tl_desc_at(const struct tl_desc *d, const uint64_t *idx)
{
    return tl_desc_byte(d, tl_desc_elem(d, idx), NULL);
}

uint64_t tl_dtype_count(enum tl_dtype dt, uint64_t n)
{
    unsigned bits = tl_dtype_bits(dt);
    return (n / bits) * 8 + (n % bits) * 8 / bits;
}

bool tl_index_next(unsigned rank, const uint64_t *sizes, uint64_t *idx)
{
    for (unsigned i = rank; i-- > 0;) {
        if (++idx[i] < sizes[i])
            return true;
        idx[i] = 0;
    }
    return false;
}

int tl_desc_offset(const struct tl_desc *d, const uint64_t *idx,
                   uint64_t *elem_offset, uint64_t *byte_offset,
                   struct tl_error *err)
{
    for (unsigned i = 0; i < d->rank; i++) {
        if (idx[i] >= d->sizes[i]) {
            char key[24];
            snprintf(key, sizeof key, "index[%u]", i);
            return tl_fail(err, TL_E_RANGE, key, "is %llu but sizes[%u] is %llu",
                           (unsigned long long)idx[i], i, (unsigned long long)d->sizes[i]);
        }
    }
    *elem_offset = tl_desc_elem(d, idx);
    *byte_offset = tl_desc_byte(d, *elem_offset, NULL);
    return 0;
}

uint64_t tl_desc_bytes_needed(const struct tl_desc *d, const struct tl_info *info)
{
    uint64_t need = info->elements_bytes;
    if (d->total_given && tl_desc_origin(d) + d->total_bytes > need)
        need = tl_desc_origin(d) + d->total_bytes;
    return need;
}

static bool pow2(uint64_t v) { return v && !(v & (v - 1)); }

size_t tl_desc_problems(const struct tl_desc *d, const struct tl_info *info,
                        uint64_t data_size, struct tl_problem *out)
{
    size_t n = 0;
    unsigned es = tl_dtype_size(d->dtype);
#define ADD(c, k, va, vb) do { out[n].code = (c); out[n].a = (va); out[n].b = (vb); \
        out[n].derived = false; snprintf(out[n].key, sizeof out[n].key, "%s", (k)); n++; } while (0)
    char key[48];
    const char *axis_names = tl_axis_letters(d->rank);
    const char *total = d->total_given ? "totalTensorSizeInBytes"
                                       : "the implied totalTensorSizeInBytes";
    if (!tl_dtype_is_dml(d->dtype))
        ADD(TL_P_DTYPE_NOT_DML, "dataType", d->dtype, 0);
    for (unsigned i = 0; i < d->rank; i++) {
        if (d->sizes[i] > TL_DML_UINT_MAX) {
            snprintf(key, sizeof key, "sizes[%u]", i);
            ADD(TL_P_SIZE_UINT, key, d->sizes[i], TL_DML_UINT_MAX);
        }
    }
    for (unsigned i = 0; i < d->rank; i++) {
        if (d->strides[i] > TL_DML_UINT_MAX) {
            char axis[16];
            if (axis_names)
                snprintf(axis, sizeof axis, "%c", axis_names[i]);
            else
                snprintf(axis, sizeof axis, "axis %u", i);
            if (d->strides_src == TL_STRIDES_GIVEN)
                snprintf(key, sizeof key, "strides[%u]", i);
            else if (d->strides_src == TL_STRIDES_LAYOUT)
                snprintf(key, sizeof key, "the stride of %s from the layout", axis);
            else
                snprintf(key, sizeof key, "the packed stride of %s", axis);
            ADD(TL_P_STRIDE_UINT, key, d->strides[i], TL_DML_UINT_MAX);
            out[n - 1].derived = d->strides_src != TL_STRIDES_GIVEN;
        }
    }
    if (tl_dtype_count(d->dtype, d->total_bytes) > TL_DML_UINT_MAX) {
        ADD(TL_P_TOO_MANY_ELEMS, total, tl_dtype_count(d->dtype, d->total_bytes), TL_DML_UINT_MAX);
        out[n - 1].derived = !d->total_given;
    }
    if (d->total_bytes < info->min_size)
        ADD(TL_P_TOTAL_SMALL, "totalTensorSizeInBytes", d->total_bytes, info->min_size);
    if (d->total_bytes % 4)
        ADD(TL_P_TOTAL_ALIGN, "totalTensorSizeInBytes", d->total_bytes, 4);
    bool align_ok = d->alignment == 0 || (pow2(d->alignment) && d->alignment >= es);
    if (!align_ok)
        ADD(TL_P_ALIGNMENT, "guaranteedBaseOffsetAlignment", d->alignment, es);
    uint64_t need_align = 16;
    if (align_ok && d->alignment > need_align)
        need_align = d->alignment;
    if (d->byte_offset % need_align)
        ADD(TL_P_OFFSET_ALIGN, "byteOffset", d->byte_offset, need_align);
    if (data_size != TL_NO_DATA) {
        uint64_t need = tl_desc_bytes_needed(d, info);
        if (data_size < need)
            ADD(TL_P_DATA_SHORT, "data", data_size, need);
    }
#undef ADD
    return n;
}

/* ---- descriptions of a file's tensors ------------------------------------ */

int tl_desc_from_shape(struct tl_desc *d, enum tl_dtype dt, unsigned ndim,
                           const uint64_t *shape, bool fortran, uint64_t data_start,
                           struct tl_error *err)
{
    static const uint64_t one = 1;
    if (tl_desc_init(d, dt, ndim ? ndim : 1, ndim ? shape : &one, err))
        return err ? err->code : TL_E_OVERFLOW;
    if (fortran && ndim > 1) {
        uint64_t s = 1;
        for (unsigned i = 0; i < ndim; i++) {
            d->strides[i] = s;
            s *= shape[i];              /* tl_desc_init checked the product */
        }
        d->strides_src = TL_STRIDES_LAYOUT;
    }
    d->file_offset = data_start;
    return tl_desc_validate(d, err);
}

int tl_desc_assign_axes(struct tl_desc *d, const unsigned *axes, struct tl_error *err)
{
    uint64_t sizes[TL_MAX_RANK], strides[TL_MAX_RANK];
    unsigned seen = 0;
    for (unsigned i = 0; i < d->rank; i++) {
        if (axes[i] >= d->rank || (seen & (1u << axes[i])))
            return tl_fail(err, TL_E_VALUE, "--axes", "is not a permutation of the %u axes",
                           d->rank);
        seen |= 1u << axes[i];
        sizes[axes[i]] = d->sizes[i];
        strides[axes[i]] = d->strides[i];
    }
    memcpy(d->sizes, sizes, d->rank * sizeof sizes[0]);
    memcpy(d->strides, strides, d->rank * sizeof strides[0]);
    for (unsigned i = 0; i < d->rank; i++) {
        if (axes[i] != i)
            d->strides_src = TL_STRIDES_LAYOUT;
    }
    return tl_desc_validate(d, err);
}

