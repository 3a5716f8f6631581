/*
 * fuzz_npz.c - libFuzzer over the .npz reader (npz.c over libzip and zlib):
 * arbitrary bytes as an archive, copied into a buffer of exactly their
 * size so that ASan sees any read past it.  For an archive that is
 * accepted it checks that every member's stored bytes lie in the archive
 * and no two members' bytes overlap; that every member streamed by
 * tl_npz_member gives exactly its declared bytes or fails with a message,
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
        CHECK(t->name && t->zip_at <= size && t->zip_bytes <= size - t->zip_at);
        CHECK(t->deflated || t->zip_bytes == t->member_bytes);
        for (size_t j = 0; j < i; j++) {
            const struct tl_file_tensor *u = &f.tensors[j];
            CHECK(strcmp(t->name, u->name) != 0);
            if (t->zip_bytes && u->zip_bytes)
                CHECK(t->zip_at >= u->zip_at + u->zip_bytes || u->zip_at >= t->zip_at + t->zip_bytes);
        }
        if (t->decodable) {
            struct tl_info info;
            tl_desc_classify(&t->desc, &info);
            uint64_t base = t->deflated ? 0 : t->zip_at;
            CHECK(info.elements_bytes == base + t->member_bytes);
        }
        if (t->member_bytes > (1u << 24))
            continue;                  /* a declared size past what the input could hold */
        struct count c = { 0, t->member_bytes };
        struct tl_error why;
        int rc = tl_npz_member(copy, size, t, count_put, &c, &why);
        CHECK(rc == 0 ? c.n == t->member_bytes : why.msg[0] != '\0');
    }
    tl_file_free(&f);
    free(copy);
    return 0;
}
