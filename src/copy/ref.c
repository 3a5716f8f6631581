/*
 * ref.c - the reference copy: one logical index at a time, the offsets
 * computed from scratch, the bytes copied one by one (or the value converted
 * by the scalar converter when the types differ).  Deliberately naive;
 * the differential tests hold every kernel and plan to it.
 */
#include "copy.h"

void tl_copy_ref(const struct tl_desc *src, const uint8_t *src_file,
                 const struct tl_desc *dst, uint8_t *dst_file)
{
    unsigned es = tl_dtype_size(src->dtype);
    bool convert = src->dtype != dst->dtype;
    uint64_t idx[TL_MAX_RANK] = { 0 };
    do {
        const uint8_t *s = src_file + tl_desc_at(src, idx);
        uint8_t *d = dst_file + tl_desc_at(dst, idx);
        if (convert)
            tl_convert_value(src->dtype, s, dst->dtype, d);
        else
            for (unsigned b = 0; b < es; b++)
                d[b] = s[b];
    } while (tl_index_next(src->rank, src->sizes, idx));
}

bool tl_cvt_scalar(enum tl_dtype sdt, enum tl_dtype ddt, const uint8_t *src, uint8_t *dst,
                   size_t n)
{
    unsigned ses = tl_dtype_size(sdt), des = tl_dtype_size(ddt);
    bool bad = false;
    for (size_t i = 0; i < n; i++)
        bad |= tl_convert_value(sdt, src + i * ses, ddt, dst + i * des);
    return bad;
}

bool tl_tcvt_scalar(enum tl_dtype sdt, enum tl_dtype ddt, const uint8_t *src, size_t ss,
                    uint8_t *dst, size_t ds, size_t rows, size_t cols)
{
    unsigned ses = tl_dtype_size(sdt), des = tl_dtype_size(ddt);
    bool bad = false;
    for (size_t c = 0; c < cols; c++)
        for (size_t r = 0; r < rows; r++)
            bad |= tl_convert_value(sdt, src + r * ss + c * ses, ddt, dst + c * ds + r * des);
    return bad;
}
