/*
 * fuzz_pickle.c - libFuzzer over the PyTorch checkpoint reader's pickle:
 * the input is data.pkl of a checkpoint built around it (a zip written
 * with the tool's own zip writer: ARCHIVE/data.pkl, then storages
 * ARCHIVE/data/0 and /1 of 256 bytes).  Beyond "no crash, no hang, no
 * read past the file", an accepted checkpoint's tensors lie inside their
 * storages' members, and its values that are no tensor have no bytes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/core/tl.h"

#define CHECK(c) do { if (!(c)) { fprintf(stderr, "invariant failed: %s\n", #c); abort(); } } while (0)

static size_t member(uint8_t *out, const char *name, const uint8_t *data, size_t n,
                     struct tl_zip_entry *e, size_t at)
{
    size_t k = tl_zip_local(name, out);
    memcpy(out + k, data, n);
    k += n;
    /* the CRC the directory gives: the reader checks it on inflating only */
    k += tl_zip_descriptor(0, n, out + k);
    e->name = name;
    e->bytes = n;
    e->at = at;
    e->crc = 0;
    return k;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > (1u << 20))
        return 0;
    static uint8_t storage[256];
    for (size_t i = 0; i < sizeof storage; i++)
        storage[i] = (uint8_t)(i * 7);
    size_t cap = size + 3 * (TL_ZIP_LOCAL_MAX + TL_ZIP_DESCRIPTOR) + 2 * sizeof storage + 4096;
    uint8_t *zip = malloc(cap);
    CHECK(zip != NULL);
    struct tl_zip_entry e[3];
    size_t at = 0;
    at += member(zip + at, "archive/data.pkl", data, size, &e[0], at);
    at += member(zip + at, "archive/data/0", storage, sizeof storage, &e[1], at);
    at += member(zip + at, "archive/data/1", storage, sizeof storage, &e[2], at);
    uint8_t *dir;
    size_t dlen;
    CHECK(tl_zip_directory(e, 3, at, &dir, &dlen, NULL) == 0);
    memcpy(zip + at, dir, dlen);
    free(dir);
    size_t len = at + dlen;
    uint8_t *b = malloc(len);           /* exactly its size: ASan sees an overread */
    CHECK(b != NULL);
    memcpy(b, zip, len);
    free(zip);
    struct tl_file f;
    struct tl_error err;
    if (tl_file_parse(b, len, &f, &err) == 0) {
        CHECK(f.format == TL_FMT_PYTORCH);
        for (size_t i = 0; i < f.count; i++) {
            const struct tl_file_tensor *t = &f.tensors[i];
            if (t->leaf) {
                CHECK(t->begin == t->end && !t->decodable);
                continue;
            }
            CHECK(t->storage[0] && t->begin <= t->end && t->end <= len);
            if (t->decodable) {
                struct tl_info info;
                tl_desc_classify(&t->desc, &info);
                /* its elements' bytes, counted from the file's start */
                CHECK(tl_desc_bytes_needed(&t->desc, &info) <=
                      (t->encoding == TL_ENC_PLAIN ? t->stored_at : 0) + t->decoded_bytes);
            }
        }
        tl_file_free(&f);
    }
    free(b);
    return 0;
}
