/*
 * ggml.c - ggml's tensor types as GGUF files number them (SPEC 16): each
 * type's name, its block (elements and bytes), the plain type it is or
 * whether the tool decodes its blocks, and where a block's fields lie.
 * The numbers are ggml's (ggml.h, enum ggml_type); the holes are types
 * ggml removed.  The block layouts are ggml-common.h's structs, written out
 * here field by field as offset and inspect explain them.
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "internal.h"
#include "tl.h"

#define PLAIN(n, dt, b) { n, 1, b, dt, true, NULL }
#define BLOCK(n, k, b, dec, parts) { n, k, b, -1, dec, parts }

static const struct tl_ggml_type types[] = {
    [0] = PLAIN("F32", TL_DT_FLOAT32, 4),
    [1] = PLAIN("F16", TL_DT_FLOAT16, 2),
    [2] = BLOCK("Q4_0", 32, 18, true, "d:0:2:f16 qs:2:16:nibbles"),
    [3] = BLOCK("Q4_1", 32, 20, true, "d:0:2:f16 m:2:2:f16 qs:4:16:nibbles"),
    [6] = BLOCK("Q5_0", 32, 22, true, "d:0:2:f16 qh:2:4:high-bits qs:6:16:nibbles"),
    [7] = BLOCK("Q5_1", 32, 24, true, "d:0:2:f16 m:2:2:f16 qh:4:4:high-bits qs:8:16:nibbles"),
    [8] = BLOCK("Q8_0", 32, 34, true, "d:0:2:f16 qs:2:32:int8"),
    [9] = BLOCK("Q8_1", 32, 36, false, NULL),          /* ggml decodes neither Q8_1 */
    [10] = BLOCK("Q2_K", 256, 84, true, "scales:0:16:4-bit-pairs qs:16:64:2-bit d:80:2:f16 "
                 "dmin:82:2:f16"),
    [11] = BLOCK("Q3_K", 256, 110, true, "hmask:0:32:high-bits qs:32:64:2-bit "
                 "scales:96:12:6-bit d:108:2:f16"),
    [12] = BLOCK("Q4_K", 256, 144, true, "d:0:2:f16 dmin:2:2:f16 scales:4:12:6-bit "
                 "qs:16:128:nibbles"),
    [13] = BLOCK("Q5_K", 256, 176, true, "d:0:2:f16 dmin:2:2:f16 scales:4:12:6-bit "
                 "qh:16:32:high-bits qs:48:128:nibbles"),
    [14] = BLOCK("Q6_K", 256, 210, true, "ql:0:128:nibbles qh:128:64:2-bit "
                 "scales:192:16:int8 d:208:2:f16"),
    [15] = BLOCK("Q8_K", 256, 292, false, NULL),       /* nor Q8_K: a dot product's */
    [16] = BLOCK("IQ2_XXS", 256, 66, false, NULL),
    [17] = BLOCK("IQ2_XS", 256, 74, false, NULL),
    [18] = BLOCK("IQ3_XXS", 256, 98, false, NULL),
    [19] = BLOCK("IQ1_S", 256, 50, false, NULL),
    [20] = BLOCK("IQ4_NL", 32, 18, true, "d:0:2:f16 qs:2:16:nibbles"),
    [21] = BLOCK("IQ3_S", 256, 110, false, NULL),
    [22] = BLOCK("IQ2_S", 256, 82, false, NULL),
    [23] = BLOCK("IQ4_XS", 256, 136, true, "d:0:2:f16 scales_h:2:2:2-bit scales_l:4:4:nibbles "
                 "qs:8:128:nibbles"),
    [24] = PLAIN("I8", TL_DT_INT8, 1),
    [25] = PLAIN("I16", TL_DT_INT16, 2),
    [26] = PLAIN("I32", TL_DT_INT32, 4),
    [27] = PLAIN("I64", TL_DT_INT64, 8),
    [28] = PLAIN("F64", TL_DT_FLOAT64, 8),
    [29] = BLOCK("IQ1_M", 256, 56, false, NULL),
    [30] = PLAIN("BF16", TL_DT_BFLOAT16, 2),
    [34] = BLOCK("TQ1_0", 256, 54, true, "qs:0:48:base-3 qh:48:4:base-3 d:52:2:f16"),
    [35] = BLOCK("TQ2_0", 256, 66, true, "qs:0:64:2-bit d:64:2:f16"),
    [39] = BLOCK("MXFP4", 32, 17, true, "e:0:1:e8m0 qs:1:16:fp4"),
    [40] = BLOCK("NVFP4", 64, 36, false, NULL),
    [41] = BLOCK("Q1_0", 128, 18, true, "d:0:2:f16 qs:2:16:bits"),
    [42] = BLOCK("Q2_0", 64, 18, true, "d:0:2:f16 qs:2:16:2-bit"),
};

const struct tl_ggml_type *tl_ggml_type(uint32_t id)
{
    if (id >= sizeof types / sizeof types[0] || !types[id].name)
        return NULL;
    return &types[id];
}

uint32_t tl_ggml_of_dtype(enum tl_dtype dt)
{
    for (uint32_t id = 0; id < sizeof types / sizeof types[0]; id++) {
        if (types[id].name && types[id].plain == (int)dt)
            return id;
    }
    return UINT32_MAX;
}

const struct tl_ggml_type *tl_ggml_type_named(const char *name, uint32_t *id)
{
    for (uint32_t i = 0; i < sizeof types / sizeof types[0]; i++) {
        if (types[i].name && strcasecmp(types[i].name, name) == 0) {
            if (id)
                *id = i;
            return &types[i];
        }
    }
    return NULL;
}

const char *tl_ggml_decoded_list(char *buf, size_t n)
{
    size_t len = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < sizeof types / sizeof types[0] && len < n; i++) {
        if (!types[i].name || types[i].plain >= 0 || !types[i].decodes)
            continue;
        int w = snprintf(buf + len, n - len, "%s%s", len ? ", " : "", types[i].name);
        len += w > 0 ? (size_t)w : 0;
    }
    return buf;
}

static void piece(struct tl_ggml_where *w, const char *field, unsigned byte, unsigned bytes,
                  unsigned bit, unsigned bits, bool scale)
{
    if (w->n < TL_GGML_PIECES)
        w->p[w->n++] = (struct tl_ggml_piece){ field, byte, bytes, bit, bits, scale };
}

/* A nibble of qs: element j of 32 (the low nibbles first, then the high). */
static void nibble32(struct tl_ggml_where *w, unsigned qs, unsigned j)
{
    piece(w, "qs", qs + j % 16, 1, j < 16 ? 0 : 4, 4, false);
}

/* Q4_K's and Q5_K's 6-bit scale and min of sub-block s, in scales[12] at 4. */
static void scale_min_k4(struct tl_ggml_where *w, unsigned s)
{
    if (s < 4) {
        piece(w, "scales", 4 + s, 1, 0, 6, true);
        piece(w, "scales", 4 + s + 4, 1, 0, 6, true);
    } else {
        piece(w, "scales", 4 + s + 4, 1, 0, 8, true);      /* both low nibbles */
        piece(w, "scales", 4 + s - 4, 1, 6, 2, true);
        piece(w, "scales", 4 + s, 1, 6, 2, true);
    }
}

int tl_ggml_locate(uint32_t type, unsigned j, struct tl_ggml_where *w)
{
    const struct tl_ggml_type *gt = tl_ggml_type(type);
    w->n = 0;
    if (!gt || gt->plain >= 0 || !gt->decodes || j >= gt->block)
        return TL_E_VALUE;
    unsigned n, r, l, s;
    switch (type) {
    case 2:                                     /* Q4_0 */
    case 20:                                    /* IQ4_NL */
        nibble32(w, 2, j);
        piece(w, "d", 0, 2, 0, 0, true);
        break;
    case 3:                                     /* Q4_1 */
        nibble32(w, 4, j);
        piece(w, "d", 0, 2, 0, 0, true);
        piece(w, "m", 2, 2, 0, 0, true);
        break;
    case 6:                                     /* Q5_0 */
    case 7:                                     /* Q5_1 */
        nibble32(w, type == 6 ? 6 : 8, j);
        piece(w, "qh", (type == 6 ? 2 : 4) + j / 8, 1, j % 8, 1, false);
        piece(w, "d", 0, 2, 0, 0, true);
        if (type == 7)
            piece(w, "m", 2, 2, 0, 0, true);
        break;
    case 8:                                     /* Q8_0 */
        piece(w, "qs", 2 + j, 1, 0, 8, false);
        piece(w, "d", 0, 2, 0, 0, true);
        break;
    case 10:                                    /* Q2_K */
    case 11:                                    /* Q3_K */
        n = j / 128, r = j % 128, s = r / 32, l = r % 32;
        piece(w, "qs", (type == 10 ? 16 : 32) + 32 * n + l, 1, 2 * s, 2, false);
        if (type == 11)
            piece(w, "hmask", l, 1, 4 * n + s, 1, false);
        {
            unsigned is = 8 * n + 2 * s + l / 16;
            if (type == 10) {
                piece(w, "scales", is, 1, 0, 8, true);      /* scale low, min high */
                piece(w, "d", 80, 2, 0, 0, true);
                piece(w, "dmin", 82, 2, 0, 0, true);
            } else {
                piece(w, "scales", 96 + is % 8, 1, 4 * (is / 8), 4, true);
                piece(w, "scales", 104 + is % 4, 1, 2 * (is / 4), 2, true);
                piece(w, "d", 108, 2, 0, 0, true);
            }
        }
        break;
    case 12:                                    /* Q4_K */
    case 13:                                    /* Q5_K */
        n = j / 64, r = j % 64, l = r % 32;
        piece(w, "qs", (type == 12 ? 16 : 48) + 32 * n + l, 1, r < 32 ? 0 : 4, 4, false);
        if (type == 13)
            piece(w, "qh", 16 + l, 1, 2 * n + r / 32, 1, false);
        piece(w, "d", 0, 2, 0, 0, true);
        piece(w, "dmin", 2, 2, 0, 0, true);
        scale_min_k4(w, 2 * n + r / 32);
        break;
    case 14:                                    /* Q6_K */
        n = j / 128, r = j % 128, s = r / 32, l = r % 32;
        piece(w, "ql", 64 * n + l + 32 * (s & 1), 1, s < 2 ? 0 : 4, 4, false);
        piece(w, "qh", 128 + 32 * n + l, 1, 2 * s, 2, false);
        piece(w, "scales", 192 + 8 * n + l / 16 + 2 * s, 1, 0, 8, true);
        piece(w, "d", 208, 2, 0, 0, true);
        break;
    case 23:                                    /* IQ4_XS */
        n = j / 32, r = j % 32;
        piece(w, "qs", 8 + 16 * n + r % 16, 1, r < 16 ? 0 : 4, 4, false);
        piece(w, "scales_l", 4 + n / 2, 1, 4 * (n % 2), 4, true);
        piece(w, "scales_h", 2 + n / 4, 1, 2 * (n % 4), 2, true);
        piece(w, "d", 0, 2, 0, 0, true);
        break;
    case 34:                                    /* TQ1_0: base-3 digits */
        if (j < 160)
            piece(w, "qs", j % 32, 1, j / 32, 0, false);
        else if (j < 240)
            piece(w, "qs", 32 + (j - 160) % 16, 1, (j - 160) / 16, 0, false);
        else
            piece(w, "qh", 48 + (j - 240) % 4, 1, (j - 240) / 4, 0, false);
        piece(w, "d", 52, 2, 0, 0, true);
        break;
    case 35:                                    /* TQ2_0 */
        n = j / 128, r = j % 128;
        piece(w, "qs", 32 * n + r % 32, 1, 2 * (r / 32), 2, false);
        piece(w, "d", 64, 2, 0, 0, true);
        break;
    case 39:                                    /* MXFP4 */
        piece(w, "qs", 1 + j % 16, 1, j < 16 ? 0 : 4, 4, false);
        piece(w, "e", 0, 1, 0, 8, true);
        break;
    case 41:                                    /* Q1_0 */
        piece(w, "qs", 2 + j / 8, 1, j % 8, 1, false);
        piece(w, "d", 0, 2, 0, 0, true);
        break;
    case 42:                                    /* Q2_0 */
        piece(w, "qs", 2 + j / 4, 1, 2 * (j % 4), 2, false);
        piece(w, "d", 0, 2, 0, 0, true);
        break;
    default:
        return TL_E_VALUE;
    }
    return 0;
}
