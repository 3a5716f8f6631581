/*
 * ref.c - the reference copy: one logical index at a time, the offsets
 * computed from scratch, each element read and written whole by the core's
 * tl_desc_get() and tl_desc_put() (or the value converted
 * by the scalar converter when the types differ).  Deliberately naive;
 * the differential tests hold every kernel and plan to it.
 */
#include "copy.h"

void tl_copy_ref(const struct tl_desc *src, const uint8_t *src_file,
                 const struct tl_desc *dst, uint8_t *dst_file)
{
    bool convert = src->dtype != dst->dtype;
    uint64_t idx[TL_MAX_RANK] = { 0 };
    do {
        uint8_t s[8], d[8];
        tl_desc_get(src, src_file, tl_desc_elem(src, idx), s);
        if (convert)
            tl_convert_value(src->dtype, s, dst->dtype, d);
        tl_desc_put(dst, dst_file, tl_desc_elem(dst, idx), convert ? d : s);
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
