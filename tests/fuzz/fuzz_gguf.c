/*
 * fuzz_gguf.c - libFuzzer over the GGUF reader and ggml's block decoders:
 * arbitrary bytes as a GGUF file (the input copied into a buffer of exactly
 * its size, so ASan sees any overread).  Beyond "no crash, no hang, no read
 * past the file", it checks invariants: an accepted file's tensors lie
 * inside it, at multiples of the alignment, with exactly their blocks'
 * bytes, and do not overlap; each row's logical sizes multiply to its
 * element count; every decodable tensor decodes (small ones through the
 * one decode call, with the byte count it declares) and gives the same
 * values through the best kernels and the scalar ones; the metadata's
 * values are JSON text.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "../../src/core/tl.h"

#define CHECK(c) do { if (!(c)) { fprintf(stderr, "invariant failed: %s\n", #c); abort(); } } while (0)

struct sink {
    uint64_t got;
    float *first;                       /* the values, when the tensor is small */
    uint64_t cap;
};

static int put(void *ctx, const uint8_t *bytes, size_t n)
{
    struct sink *s = ctx;
    if (s->first && s->got + n <= s->cap)
        memcpy((uint8_t *)s->first + s->got, bytes, n);
    s->got += n;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t *b = malloc(size ? size : 1);
    if (!b)
        return 0;
    memcpy(b, data, size);
    struct tl_file f;
    struct tl_error err;
    if (tl_file_sniff(b, size < TL_SNIFF_BYTES ? size : TL_SNIFF_BYTES) != TL_FMT_GGUF ||
        tl_file_parse(b, size, &f, &err) != 0) {
        free(b);
        return 0;
    }
    CHECK(f.format == TL_FMT_GGUF && f.alignment && !(f.alignment & (f.alignment - 1)));
    for (size_t i = 0; i < f.nmeta; i++) {
        cJSON *v = cJSON_Parse(f.meta[i].value);
        CHECK(v != NULL);
        cJSON_Delete(v);
    }
    for (size_t i = 0; i < f.nproblems; i++)
        CHECK(f.problems[i].kind != TL_FP_OVERLAP);
    for (size_t i = 0; i < f.count; i++) {
        const struct tl_file_tensor *t = &f.tensors[i];
        const struct tl_ggml_type *gt = tl_ggml_type(t->ggml_type);
        CHECK(gt != NULL && t->ndim >= 1 && t->ndim <= 4);
        CHECK(t->begin >= f.data_start && t->end <= size && t->end - t->begin == t->stored_bytes);
        CHECK((t->begin - f.data_start) % f.alignment == 0);
        uint64_t count = 1;
        for (unsigned k = 0; k < t->ndim; k++)
            count *= t->shape[k];
        CHECK(count / gt->block * gt->bytes == t->stored_bytes && count % gt->block == 0);
        if (!t->decodable)
            continue;
        if (t->encoding == TL_ENC_PLAIN) {
            CHECK(t->desc.dtype == (enum tl_dtype)gt->plain && t->desc.file_offset == t->begin);
            continue;
        }
        CHECK(t->encoding == TL_ENC_GGML && t->decoded_bytes == count * 4);
        if (count > (1u << 16))
            continue;                   /* a bound on the work an input asks for */
        struct sink s = { 0, malloc(count * 4 + 1), count * 4 };
        CHECK(s.first != NULL);
        CHECK(tl_file_decode(b, size, t, put, &s, &err) == 0 && s.got == count * 4);
        /* in pieces of a few whole blocks, as the command line reads a
         * tensor (tl_file_piece), each decoded alone: the same bits */
        struct sink p = { 0, malloc(count * 4 + 1), count * 4 };
        struct tl_file_tensor part;
        uint64_t from = 0, n;
        CHECK(p.first != NULL);
        while ((n = tl_file_piece(t, from, 3 * gt->bytes + 1, &part))) {
            CHECK(n <= 3 * gt->bytes && n % gt->bytes == 0 && part.stored_at == 0);
            CHECK(tl_file_decode(b + t->stored_at + from, n, &part, put, &p, &err) == 0);
            from += n;
        }
        CHECK(from == t->stored_bytes && p.got == count * 4);
        CHECK(memcmp(p.first, s.first, (size_t)count * 4) == 0);
        free(p.first);
        /* the scalar twin gives the same bits (a NaN any NaN) */
        float *ref = malloc(count * 4 + 1);
        CHECK(ref != NULL);
        tl_isa_set_ceiling(TL_ISA_SCALAR);
        CHECK(tl_dequant(t->ggml_type, b + t->stored_at, ref, count / gt->block) == 0);
        tl_isa_set_ceiling(TL_ISA_COUNT);
        for (uint64_t k = 0; k < count; k++) {
            uint32_t x, y;
            memcpy(&x, &s.first[k], 4);
            memcpy(&y, &ref[k], 4);
            CHECK(x == y || (s.first[k] != s.first[k] && ref[k] != ref[k]));
        }
        free(ref);
        free(s.first);
    }
    tl_file_free(&f);
    free(b);
    return 0;
}
