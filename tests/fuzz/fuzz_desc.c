/*
 * fuzz_desc.c - libFuzzer over the description parser and every derived
 * term: arbitrary bytes as a JSON description.  Beyond "no crash, no hang,
 * no sanitizer report", it checks invariants: a parsed description prints
 * as JSON that parses back to the same description; the terms agree with
 * each other; on small tensors, overlap, packed and padded agree with a
 * brute-force walk; every index the finder returns owns its offset, and on
 * small tensors it finds as many as the walk does, also with its tables cut
 * to a few entries (so that the paths of large tensors are taken).
 */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/core/internal.h"
#include "../../src/core/tl.h"

#define CHECK(c) do { if (!(c)) { fprintf(stderr, "invariant failed: %s\n", #c); abort(); } } while (0)

/* The steps a search of a large tensor may take here: a few milliseconds
 * in the instrumented build. */
#define FIND_WORK (UINT64_C(1) << 12)
/* and the size of its tables (the finder's own: 4096 runs, 2^20 bits) */
#define FIND_RUNS 1024
#define FIND_BITS (UINT64_C(1) << 16)

static uint64_t target;
static const struct tl_desc *fd;

static int owner(const uint64_t *idx, void *ctx)
{
    (void)ctx;
    uint64_t eo, bo;
    CHECK(tl_desc_offset(fd, idx, &eo, &bo, NULL) == 0);
    CHECK(eo == target);
    return 0;
}

/* The owners of offset t among all elements, broadcast axes included. */
static uint64_t brute_owners(const struct tl_desc *d, uint64_t t)
{
    uint64_t idx[TL_MAX_RANK] = { 0 }, n = 0;
    for (;;) {
        uint64_t off = 0;
        for (unsigned i = 0; i < d->rank; i++)
            off += idx[i] * d->strides[i];
        n += off == t;
        unsigned i = d->rank;
        while (i-- > 0) {
            if (++idx[i] < d->sizes[i])
                break;
            idx[i] = 0;
        }
        if (i == (unsigned)-1)
            return n;
    }
}

static void brute(const struct tl_desc *d, const struct tl_info *in)
{
    if (in->span > 4096 || in->element_count > 4096)
        return;
    unsigned char hits[4096] = { 0 };
    bool overlap = false;
    uint64_t idx[TL_MAX_RANK] = { 0 }, distinct = 0;
    for (;;) {
        uint64_t off = 0;
        for (unsigned i = 0; i < d->rank; i++)
            off += idx[i] * d->strides[i];
        if (hits[off] == 0)
            distinct++;
        else
            overlap = true;
        hits[off] = 1;
        unsigned i = d->rank;
        while (i-- > 0) {      /* the non-broadcast axes only */
            if (d->strides[i] == 0)
                continue;
            if (++idx[i] < d->sizes[i])
                break;
            idx[i] = 0;
        }
        if (i == (unsigned)-1)
            break;
    }
    CHECK(overlap == in->overlapping);
    if (!overlap)
        CHECK(distinct == in->distinct);
    CHECK(in->padded == (!overlap && in->span > distinct));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct tl_desc d, back;
    struct tl_error err;
    /* the table parser (descriptions and buffer maps): rows in file order,
     * each a valid description whose bytes lie where it says */
    struct tl_file tf;
    if (tl_desc_table_parse_json((const char *)data, size, &tf, &err) == 0) {
        CHECK(tf.count >= 1 && (tf.named || tf.count == 1));
        for (size_t i = 0; i < tf.count; i++) {
            CHECK(tf.tensors[i].begin == tl_desc_origin(&tf.tensors[i].desc));
            CHECK(tf.tensors[i].end >= tf.tensors[i].begin);
            CHECK(i == 0 || tf.tensors[i - 1].begin <= tf.tensors[i].begin);
        }
        tl_file_free(&tf);
    } else {
        CHECK(err.code != 0 && strlen(err.msg) > 0);
    }
    if (tl_desc_parse_json((const char *)data, size, &d, &err) != 0) {
        CHECK(err.code != 0 && strlen(err.msg) > 0);
        return 0;
    }
    struct tl_info in;
    tl_desc_classify(&d, &in);
    CHECK(in.span >= 1 && in.span <= in.element_count * 0 + in.span);
    CHECK(!in.packed || (in.span == in.element_count && !in.broadcast && !in.overlapping));
    CHECK(!(in.padded && in.overlapping));
    CHECK(in.min_size % 4 == 0 && in.min_size >= tl_dtype_bytes(d.dtype, in.span) &&
          in.min_size < tl_dtype_bytes(d.dtype, in.span) + 4);
    struct tl_problem p[TL_MAX_PROBLEMS];
    CHECK(tl_desc_problems(&d, &in, TL_NO_DATA, p) <= TL_MAX_PROBLEMS);
    CHECK(tl_desc_problems(&d, &in, 0, p) <= TL_MAX_PROBLEMS);
    brute(&d, &in);
    /* the JSON it prints reads back as the same description */
    cJSON *j = tl_desc_to_json(&d);
    char *text = j ? cJSON_PrintUnformatted(j) : NULL;
    CHECK(text);
    CHECK(tl_desc_parse_json(text, strlen(text), &back, &err) == 0);
    CHECK(back.rank == d.rank && back.dtype == d.dtype && back.byte_offset == d.byte_offset &&
          back.file_offset == d.file_offset);
    CHECK(memcmp(back.sizes, d.sizes, d.rank * 8) == 0 && memcmp(back.strides, d.strides, d.rank * 8) == 0);
    free(text);
    cJSON_Delete(j);
    /* the owners of a few offsets own them, and on small tensors they are
     * all there, with the finder's tables as they are and cut short */
    fd = &d;
    uint64_t probes[4] = { 0, in.span - 1, in.span / 2, in.span / 3 };
    bool small = in.element_count <= 4096;
    struct tl_find_limits keep = tl_find_limits;
    for (int cut = 0; cut < (small ? 2 : 1); cut++) {
        if (cut) {
            tl_find_limits.runs_max = 1 + size % 7;
            tl_find_limits.bits_max = 1 + size % 251;
            tl_find_limits.has_scan = 1 + size % 3;
            tl_find_limits.oracle_steps = size % 5;
            tl_find_limits.runs_work = 1 + size % 61;
        }
        if (!small) {          /* tables of a size the fuzzer can afford */
            tl_find_limits.runs_max = FIND_RUNS;
            tl_find_limits.bits_max = FIND_BITS;
            tl_find_limits.runs_work = FIND_RUNS * 8;
        }
        struct tl_finder *f = tl_finder_new(&d);
        if (!f)
            continue;
        /* a large tensor's search stops at a work bound of its own, as the
         * command line's --search-steps makes it: so that the fuzzer keeps
         * thousands of inputs a second (each found index is still checked) */
        if (!small)
            tl_finder_limit(f, FIND_WORK);
        for (int i = 0; i < 4; i++) {
            target = probes[i];
            uint64_t n = tl_finder_find(f, target, 50, owner, NULL);
            CHECK(n <= 50);
            if (small) {
                uint64_t want = brute_owners(&d, target);
                CHECK(tl_finder_complete(f) && n == (want < 50 ? want : 50));
            }
        }
        tl_finder_free(f);
    }
    tl_find_limits = keep;
    return 0;
}
