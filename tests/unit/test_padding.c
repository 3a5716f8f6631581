/* test_padding.c - padding as byte ranges, against a byte-by-byte oracle. */
#include <stdlib.h>
#include <string.h>

#include "../../src/core/tl.h"
#include "check.h"
#include "tests.h"

struct ranges {
    uint64_t lo[4096], hi[4096];
    size_t n;
};

static void keep(uint64_t lo, uint64_t hi, void *ctx)
{
    struct ranges *r = ctx;
    if (r->n < 4096) {
        r->lo[r->n] = lo;
        r->hi[r->n] = hi;
    }
    r->n++;
}

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(uint64_t n)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng % n;
}

void padding_should_match_byte_oracle(void)
{
    int listed = 0;
    for (int t = 0; t < 3000; t++) {
        struct tl_desc d;
        uint64_t sizes[4];
        unsigned rank = 1 + (unsigned)rnd(4);
        for (unsigned i = 0; i < rank; i++)
            sizes[i] = 1 + rnd(5);
        enum tl_dtype dt = (enum tl_dtype)rnd(TL_DT_COUNT);
        if (tl_desc_init(&d, dt, rank, sizes, NULL))
            continue;
        for (unsigned i = 0; i < rank; i++)
            d.strides[i] = rnd(4) == 0 ? rnd(3) : rnd(40);
        d.byte_offset = rnd(3) == 0 ? rnd(20) : 0;
        if (rnd(3) == 0) {
            d.total_given = true;
            d.total_bytes = rnd(400);
        }
        if (tl_desc_validate(&d, NULL))
            continue;
        struct tl_info info;
        tl_desc_classify(&d, &info);
        /* positions in bytes, or a 4-bit type's in nibbles */
        uint64_t per = tl_dtype_bits(dt) == 4 ? 2 : 1, es = per == 2 ? 1 : tl_dtype_size(dt);
        uint64_t span_bytes = tl_dtype_bytes(dt, info.span);
        uint64_t end = (d.byte_offset + (d.total_bytes > span_bytes ? d.total_bytes : span_bytes)) * per;
        uint8_t *owned = calloc(1, end + 1);
        uint64_t idx[4] = { 0 };
        for (;;) {
            uint64_t off = 0;
            for (unsigned i = 0; i < rank; i++)
                off += idx[i] * d.strides[i];
            memset(owned + d.byte_offset * per + off * es, 1, es);
            unsigned i = rank;
            while (i-- > 0) {
                if (++idx[i] < d.sizes[i])
                    break;
                idx[i] = 0;
            }
            if (i == (unsigned)-1)
                break;
        }
        struct ranges want = { .n = 0 }, got = { .n = 0 };
        for (uint64_t b = d.byte_offset * per; b < end;) {
            if (owned[b]) {
                b++;
                continue;
            }
            uint64_t lo = b;
            while (b < end && !owned[b])
                b++;
            keep(lo, b, &want);
        }
        int rc = tl_desc_padding(&d, 4096, keep, &got);
        if (rc == 0) {
            listed++;
            bool same = got.n == want.n;
            for (size_t i = 0; same && i < got.n; i++)
                same = got.lo[i] == want.lo[i] && got.hi[i] == want.hi[i];
            CHECK(same);
        }
        free(owned);
    }
    CHECK(listed > 1500);          /* most layouts are listed */
    /* a row pitch of 32 for rows of 30: 100 ranges of 2 elements */
    struct tl_desc d;
    uint64_t sizes[2] = { 100, 30 };
    tl_desc_init(&d, TL_DT_FLOAT32, 2, sizes, NULL);
    d.strides[0] = 32;
    tl_desc_validate(&d, NULL);
    struct ranges r = { .n = 0 };
    CHECK(tl_desc_padding(&d, 4096, keep, &r) == 0 && r.n == 99);
    CHECK(r.lo[0] == 120 && r.hi[0] == 128);
    r.n = 0;
    CHECK(tl_desc_padding(&d, 10, keep, &r) == 1 && r.n == 10);
}
