/*
 * fuzz_onnx.c - libFuzzer over the ONNX reader (SPEC 20): arbitrary bytes as
 * a model or a serialized tensor (copied into a buffer of exactly their
 * size, so ASan sees any overread).  Beyond "no crash, no hang, no read past
 * the file", it checks invariants of an accepted file: every weight stored
 * in it lies inside it; one in another file names a location that stays in
 * the model's folder; each decodable row's sizes multiply to its element
 * count, and a row stored in varints decodes through the one decode call to
 * exactly the bytes it declares.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/core/tl.h"
#include "../../src/core/internal.h"

#define CHECK(c) do { if (!(c)) { fprintf(stderr, "invariant failed: %s\n", #c); abort(); } } while (0)

static int count(void *ctx, const uint8_t *bytes, size_t n)
{
    (void)bytes;
    *(uint64_t *)ctx += n;
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
    struct tl_error err = { 0 };
    if (tl_file_parse(b, size, &f, &err) == 0) {
        for (size_t i = 0; i < f.count; i++) {
            const struct tl_file_tensor *t = &f.tensors[i];
            CHECK(t->begin <= t->end);
            if (t->elsewhere) {
                CHECK(!tl_path_escapes(t->elsewhere) && t->elsewhere[0]);
                continue;
            }
            CHECK(t->end <= size);
            if (!t->decodable)
                continue;
            uint64_t n = 1;
            for (unsigned k = 0; k < t->desc.rank; k++)
                n *= t->desc.sizes[k];
            CHECK(n > 0);
            if (t->encoding != TL_ENC_PLAIN && t->decoded_bytes < (1u << 20)) {
                uint64_t got = 0;
                CHECK(tl_file_decode(b, size, t, count, &got, &err) == 0);
                CHECK(got == t->decoded_bytes);
            }
        }
        tl_file_free(&f);
    }
    free(b);
    return 0;
}
