/*
 * fuzz_copy.c - libFuzzer over the copy engine: the input picks a rank,
 * sizes, source strides (any: padded, broadcast, overlapping), a
 * destination (packed in some order, maybe padded), an element type (4-bit
 * ones included) and sometimes another for the destination, byte offsets, a SIMD ceiling, a thread count and streaming stores; the rest of
 * the input is the source data.  Every copy is compared with the naive
 * reference, byte for byte, destination padding included.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/copy/copy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Past this many elements, the next axes have sizes 1 or 2, and past 16
 * times as many, 1: tensors of at most some 10,000 elements, which the
 * reference walks element by element in well under a millisecond, so that
 * the fuzzer runs thousands of inputs a second.  (The differential test,
 * tests/diff, copies large tensors.) */
#define MANY 256

struct input {
    const uint8_t *p;
    size_t n;
};

static unsigned take(struct input *in, unsigned range)
{
    if (in->n == 0)
        return 0;
    unsigned v = *in->p++ % range;
    in->n--;
    return v;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct input in = { data, size };
    static const enum tl_dtype types[] = { TL_DT_UINT8, TL_DT_FLOAT16, TL_DT_FLOAT32, TL_DT_FLOAT64,
                                           TL_DT_INT4, TL_DT_UINT4, TL_DT_INT8 };
    struct tl_desc src = { 0 }, dst = { 0 };
    unsigned t = take(&in, 14);           /* 7..13: the destination's type too */
    src.dtype = dst.dtype = types[t % 7];
    if (t >= 7)                           /* a conversion, 4-bit to or from any */
        dst.dtype = types[take(&in, 7)];
    src.rank = dst.rank = 1 + take(&in, TL_MAX_RANK);
    uint64_t count = 1;
    for (unsigned i = 0; i < src.rank; i++) {
        src.sizes[i] = dst.sizes[i] = 1 + take(&in, count > 16 * MANY ? 1 : count > MANY ? 2 : 20);
        count *= src.sizes[i];
    }
    for (unsigned i = 0; i < src.rank; i++)
        src.strides[i] = take(&in, 64);
    unsigned order[TL_MAX_RANK];
    for (unsigned i = 0; i < dst.rank; i++)
        order[i] = i;
    for (unsigned i = dst.rank; i > 1; i--) {
        unsigned j = take(&in, i), t = order[i - 1];
        order[i - 1] = order[j];
        order[j] = t;
    }
    tl_strides_for_order(dst.rank, dst.sizes, order, 0, dst.strides, NULL);
    if (take(&in, 2))                 /* pad one axis */
        dst.strides[order[0]] += take(&in, 5);
    src.byte_offset = take(&in, 40);
    dst.byte_offset = take(&in, 40);
    enum tl_isa isa = (enum tl_isa)take(&in, TL_ISA_COUNT);
    unsigned threads = 1 + take(&in, 2);
    bool stream = take(&in, 2);
    if (tl_desc_validate(&src, NULL) || tl_desc_validate(&dst, NULL))
        return 0;
    struct tl_copy_plan plan;
    if (tl_copy_plan(&plan, &src, &dst, NULL))
        return 0;
    if (plan.src_bytes > (1u << 22) || plan.dst_bytes > (1u << 22))
        return 0;
    uint8_t *s = malloc(plan.src_bytes + 1), *want = malloc(plan.dst_bytes + 1),
            *got = malloc(plan.dst_bytes + 1);
    for (uint64_t i = 0; i < plan.src_bytes; i++)
        s[i] = in.n ? in.p[i % in.n] : (uint8_t)i;
    memset(want, 0xa5, plan.dst_bytes);
    memset(got, 0xa5, plan.dst_bytes);
    tl_copy_ref(&src, s, &dst, want);
    plan.isa = tl_isa_best(isa);
    plan.stream = plan.stream_threads = stream;
    tl_copy_run(&plan, s, got, threads, NULL, NULL);
    if (memcmp(want, got, plan.dst_bytes) != 0) {
        fprintf(stderr, "copy differs from the reference (%s, %s)\n", tl_copy_kind_name(plan.kind),
                tl_isa_name(plan.isa));
        abort();
    }
    free(s);
    free(want);
    free(got);
    return 0;
}
