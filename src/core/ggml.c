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
