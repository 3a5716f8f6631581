/*
 * fuzz_npz.c - libFuzzer over the .npz reader (npz.c over libzip and zlib):
 * arbitrary bytes as an archive, copied into a buffer of exactly their
 * size so that ASan sees any read past it.  For an archive that is
 * accepted it checks that every member's stored bytes lie in the archive
 * and no two members' bytes overlap; that every member streamed by
 * tl_file_decode gives exactly its declared bytes or fails with a message,
 * never more (a deflated member is never inflated past its size); and
 * that each decodable member's tensor lies inside the .npy it holds.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/core/tl.h"

#define CHECK(c) do { if (!(c)) { fprintf(stderr, "invariant failed: %s\n", #c); abort(); } } while (0)

struct count {
    uint64_t n, limit;
};

static int count_put(void *ctx, const uint8_t *bytes, size_t n)
{
    struct count *c = ctx;
    (void)bytes;
    c->n += n;
    CHECK(c->n <= c->limit);
    return 0;
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
    if (f.format != TL_FMT_NPZ) {
        tl_file_free(&f);
        free(copy);
        return 0;
    }
    for (size_t i = 0; i < f.count; i++) {
        const struct tl_file_tensor *t = &f.tensors[i];
        CHECK(t->name && t->stored_at <= size && t->stored_bytes <= size - t->stored_at);
        CHECK(t->encoding == TL_ENC_DEFLATE || t->stored_bytes == t->decoded_bytes);
        for (size_t j = 0; j < i; j++) {
            const struct tl_file_tensor *u = &f.tensors[j];
            CHECK(strcmp(t->name, u->name) != 0);
            if (t->stored_bytes && u->stored_bytes)
                CHECK(t->stored_at >= u->stored_at + u->stored_bytes || u->stored_at >= t->stored_at + t->stored_bytes);
        }
        if (t->decodable) {
            struct tl_info info;
            tl_desc_classify(&t->desc, &info);
            uint64_t base = t->encoding == TL_ENC_DEFLATE ? 0 : t->stored_at;
            CHECK(info.elements_bytes == base + t->decoded_bytes);
        }
        if (t->decoded_bytes > (1u << 24))
            continue;                  /* a declared size past what the input could hold */
        struct count c = { 0, t->decoded_bytes };
        struct tl_error why;
        int rc = tl_file_decode(copy, size, t, count_put, &c, &why);
        CHECK(rc == 0 ? c.n == t->decoded_bytes : why.msg[0] != '\0');
    }
    tl_file_free(&f);
    free(copy);
    return 0;
}
