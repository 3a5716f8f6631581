/*
 * fuzz_tensorfile.c - libFuzzer over the .npy and safetensors readers (.npz
 * archives have fuzz_npz):
 * arbitrary bytes as a tensor file.  Beyond "no crash, no hang, no read past
 * the file" (the input is copied into a buffer of exactly its size, so ASan
 * sees any overread), it checks invariants: every tensor of a file that is
 * accepted lies inside the file, with exactly its elements' bytes; tensors
 * come in file order; the overlaps and gaps reported are real and lie in the
 * file; and the .npy header the tool writes for each tensor, packed in its
 * own memory order, reads back to the same description.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/core/tl.h"

#define CHECK(c) do { if (!(c)) { fprintf(stderr, "invariant failed: %s\n", #c); abort(); } } while (0)

/* The .npy header of a packed copy of d reads back to that copy. */
static void check_npy_round_trip(const struct tl_desc *src)
{
    struct tl_desc d = *src;
    struct tl_info info;
    tl_desc_classify(&d, &info);
    d.byte_offset = d.file_offset = 0;
    d.total_given = false;
    if (!info.packed || !tl_dtype_info(d.dtype)->npy)   /* numpy has no such type */
        return;
    if (tl_desc_validate(&d, NULL) != 0)
        return;
    uint8_t hdr[4096];
    size_t hlen;
    CHECK(tl_npy_header(&d, hdr, sizeof hdr, &hlen, NULL) == 0);
    CHECK(hlen % 64 == 0 && hdr[hlen - 1] == '\n');
    /* the header, then the data: only the header is read, so a file of
     * the header alone plus the byte count is enough when the data is
     * small; larger tensors are checked with the header only */
    uint64_t bytes = tl_dtype_bytes(d.dtype, info.span);
    if (bytes > (1u << 16))
        return;
    uint8_t *file = calloc(1, hlen + bytes);
    CHECK(file != NULL);
    memcpy(file, hdr, hlen);
    struct tl_file f;
    CHECK(tl_file_parse(file, hlen + bytes, &f, NULL) == 0);
    CHECK(f.format == TL_FMT_NPY && f.count == 1);
    const struct tl_desc *r = &f.tensors[0].desc;
    CHECK(r->dtype == d.dtype && r->rank == d.rank && r->byte_offset == 0 && r->file_offset == hlen);
    /* the file's shape is d's sizes in memory order; --axes restores d */
    unsigned axes[TL_MAX_RANK];
    for (unsigned i = 0; i < d.rank; i++)
        axes[i] = info.axis_order[i];
    struct tl_desc back = *r;
    CHECK(tl_desc_assign_axes(&back, axes, NULL) == 0);
    for (unsigned i = 0; i < d.rank; i++)
        CHECK(back.sizes[i] == d.sizes[i] && back.strides[i] == d.strides[i]);
    tl_file_free(&f);
    free(file);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t *copy = malloc(size ? size : 1);
    if (!copy)
        return 0;
    memcpy(copy, data, size);
    struct tl_file f;
    struct tl_error err;
    if (tl_file_parse(copy, size, &f, &err) != 0) {
        CHECK(err.code != 0 && err.msg[0] != '\0');
        free(copy);
        return 0;
    }
    CHECK(f.format != TL_FMT_JSON && f.data_start <= size);
    if (f.format == TL_FMT_NPZ || f.format == TL_FMT_GGUF || f.format == TL_FMT_PYTORCH ||
        f.format == TL_FMT_ONNX) {
        /* fuzz_npz, fuzz_gguf, fuzz_pickle and fuzz_onnx check those */
        tl_file_free(&f);
        free(copy);
        return 0;
    }
    for (size_t i = 0; i < f.count; i++) {
        const struct tl_file_tensor *t = &f.tensors[i];
        struct tl_info info;
        if (i)
            CHECK(f.tensors[i - 1].begin <= t->begin);
        if (!t->decodable) {            /* listed and carried: its bytes lie in the file */
            struct tl_error why;
            CHECK(f.format == TL_FMT_SAFETENSORS && t->name && t->end <= size &&
                  t->begin <= t->end && t->begin >= f.data_start);
            CHECK(tl_file_tensor_decodable(t, &why) == TL_E_VALUE && why.msg[0]);
            continue;
        }
        CHECK(tl_desc_validate((struct tl_desc *)&t->desc, NULL) == 0);
        tl_desc_classify(&t->desc, &info);
        CHECK(t->begin == tl_desc_origin(&t->desc) && t->desc.byte_offset == 0 && t->begin >= f.data_start);
        CHECK(t->end <= size && info.elements_bytes <= size);
        CHECK(t->end - t->begin == tl_dtype_bytes(t->desc.dtype, info.element_count));
        CHECK(info.packed);
        CHECK((f.format == TL_FMT_NPY) == (t->name == NULL));
        if (t->name)
            CHECK(tl_file_find(&f, t->name) != NULL);
        check_npy_round_trip(&t->desc);
    }
    for (size_t i = 0; i < f.nproblems; i++) {
        const struct tl_file_problem *p = &f.problems[i];
        CHECK(p->from < p->to && p->to <= size && p->from >= f.data_start);
        if (p->kind == TL_FP_OVERLAP)
            CHECK(p->a < f.count && p->b < f.count && f.tensors[p->b].begin < f.tensors[p->a].end);
    }
    tl_file_free(&f);
    free(copy);
    return 0;
}
