/*
 * test_classify.c - overlap, packed, padded and the index finder against a
 * brute-force oracle that enumerates every element of small tensors.
 */
#include <stdlib.h>
#include <time.h>

#include "../../src/core/internal.h"
#include "check.h"
#include "helpers.h"
#include "tests.h"

static uint64_t rng_state = 0x9e3779b97f4a7c15u;

static uint64_t rnd(uint64_t n)   /* xorshift64*, in [0, n) */
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return (rng_state * 0x2545f4914f6cdd1dULL) % n;
}

void classify_should_decide_known_overlaps(void)
{
    static const struct { unsigned rank; uint64_t sizes[4], strides[4]; bool overlap; } cases[] = {
        { 2, { 3, 3 }, { 1, 1 }, true },
        { 2, { 2, 3 }, { 3, 1 }, false },
        { 2, { 2, 4 }, { 3, 1 }, true },             /* 1*3 = 3*1 */
        { 2, { 2, 2 }, { 2, 3 }, false },            /* nested: 3 > 2 */
        { 3, { 2, 2, 2 }, { 4, 6, 9 }, false },      /* no nesting, still no overlap */
        { 3, { 3, 2, 2 }, { 4, 6, 9 }, false },      /* 9 is odd, 4 and 6 cannot meet */
        { 3, { 4, 3, 2 }, { 4, 6, 9 }, true },       /* 3*4 = 2*6 */
        { 3, { 2, 2, 2 }, { 5, 3, 2 }, true },       /* 5 = 3 + 2 */
        { 3, { 2, 2, 2 }, { 7, 3, 2 }, false },
        { 2, { 1000000, 1000000 }, { 999999, 1000000 }, false },  /* needs z0 = 1000000 */
        { 2, { 1000001, 1000000 }, { 999999, 1000000 }, true },   /* and has it */
        { 2, { 999999, 1000000 }, { 1000000, 999999 }, false },
        { 4, { 1, 1, 3, 5 }, { 15, 1, 5, 1 }, false },
        { 2, { 5, 5 }, { 0, 0 }, false },            /* broadcast only */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct tl_desc d;
        struct tl_info in;
        CHECK(make(&d, &in, TL_DT_UINT8, cases[i].rank, cases[i].sizes, cases[i].strides) == 0);
        if (in.overlapping != cases[i].overlap) {
            check_failures++;
            fprintf(stderr, "known overlap case %zu: got %d\n", i, in.overlapping);
        }
    }
}

/* Draws a small random tensor: rank 1-4 (sometimes 5-6), sizes 1-5, strides 0-12. */
static void draw(struct tl_desc *d, struct tl_info *in)
{
    uint64_t sizes[TL_MAX_RANK], strides[TL_MAX_RANK];
    unsigned rank = 1 + (unsigned)rnd(rnd(8) == 0 ? 6 : 4);
    int style = (int)rnd(3);
    for (unsigned i = 0; i < rank; i++) {
        sizes[i] = 1 + rnd(rank > 4 ? 3 : 5);
        strides[i] = rnd(13);
    }
    if (style == 0) {              /* packed in a random order, maybe padded */
        unsigned order[TL_MAX_RANK];
        for (unsigned i = 0; i < rank; i++)
            order[i] = i;
        for (unsigned i = rank; i > 1; i--) {
            unsigned j = (unsigned)rnd(i), t = order[i - 1];
            order[i - 1] = order[j];
            order[j] = t;
        }
        uint64_t step = 1;
        for (unsigned k = rank; k-- > 0;) {
            strides[order[k]] = rnd(4) == 0 ? 0 : step;
            step = step * sizes[order[k]] + rnd(3);
        }
    }
    make(d, in, TL_DT_UINT8, rank, sizes, strides);
}

/* The oracle: walk every element, ignoring broadcast axes for overlap. */
static void brute(const struct tl_desc *d, bool *overlap, uint64_t *distinct)
{
    uint64_t span = 1, idx[TL_MAX_RANK] = { 0 };
    for (unsigned i = 0; i < d->rank; i++)
        span += (d->sizes[i] - 1) * d->strides[i];
    unsigned *hits = calloc(span, sizeof *hits);
    for (;;) {
        uint64_t off = 0;
        for (unsigned i = 0; i < d->rank; i++)
            off += idx[i] * d->strides[i];
        hits[off]++;
        unsigned i = d->rank;
        while (i-- > 0) {          /* next index over the non-broadcast axes */
            if (d->strides[i] == 0)
                continue;
            if (++idx[i] < d->sizes[i])
                break;
            idx[i] = 0;
        }
        if (i == UINT32_MAX)
            break;
    }
    *overlap = false;
    *distinct = 0;
    for (uint64_t o = 0; o < span; o++) {
        if (hits[o] > 1)
            *overlap = true;
        if (hits[o])
            ++*distinct;
    }
    free(hits);
}

void classify_should_match_brute_force_oracle(void)
{
    int mismatches = 0;
    for (int n = 0; n < 20000; n++) {
        struct tl_desc d;
        struct tl_info in;
        draw(&d, &in);
        bool overlap;
        uint64_t distinct;
        brute(&d, &overlap, &distinct);
        bool broadcast = false;
        for (unsigned i = 0; i < d.rank; i++)
            broadcast |= d.strides[i] == 0 && d.sizes[i] > 1;
        bool packed = !broadcast && !overlap && in.span == in.element_count;
        bool padded = !overlap && in.span > distinct;
        if (in.overlapping != overlap || in.packed != packed || in.padded != padded ||
            in.broadcast != broadcast || (!overlap && in.distinct != distinct)) {
            if (mismatches++ < 5) {
                fprintf(stderr, "oracle mismatch: rank %u sizes", d.rank);
                for (unsigned i = 0; i < d.rank; i++)
                    fprintf(stderr, " %" PRIu64 "/%" PRIu64, d.sizes[i], d.strides[i]);
                fprintf(stderr, ": overlap %d/%d packed %d/%d padded %d/%d\n", in.overlapping,
                        overlap, in.packed, packed, in.padded, padded);
            }
        }
    }
    CHECK_EQ_U64(mismatches, 0);
}

/* Every overlapping random tensor yields a pair of different indices, each
 * within the sizes, that reach the same offset; a non-overlapping one none. */
void classify_should_name_two_indices_that_overlap(void)
{
    int bad = 0, pairs = 0;
    for (int n = 0; n < 20000; n++) {
        struct tl_desc d;
        struct tl_info in;
        draw(&d, &in);
        uint64_t x[TL_MAX_RANK], y[TL_MAX_RANK];
        bool found = tl_desc_overlap_pair(&d, x, y);
        if (found != in.overlapping) {
            bad++;
            continue;
        }
        if (!found)
            continue;
        pairs++;
        uint64_t ox = 0, oy = 0;
        bool differ = false, inside = true;
        for (unsigned i = 0; i < d.rank; i++) {
            ox += x[i] * d.strides[i];
            oy += y[i] * d.strides[i];
            differ |= x[i] != y[i];
            inside &= x[i] < d.sizes[i] && y[i] < d.sizes[i];
        }
        bad += !(differ && inside && ox == oy);
    }
    CHECK_EQ_U64(bad, 0);
    CHECK(pairs > 1000);
}

void classify_should_be_fast_on_huge_tensors(void)
{
    /* 8-D, 2^40 elements, padded: classified without enumerating */
    uint64_t sizes[8] = { 32, 32, 32, 32, 32, 32, 32, 32 }, strides[8];
    uint64_t step = 1;
    for (unsigned k = 8; k-- > 0;) {
        strides[k] = step;
        step = step * 32 + (k == 4);
    }
    struct tl_desc d;
    struct tl_info in;
    clock_t t0 = clock();
    CHECK(make(&d, &in, TL_DT_FLOAT32, 8, sizes, strides) == 0);
    CHECK_EQ_U64(in.element_count, UINT64_C(1) << 40);
    CHECK(in.padded && !in.overlapping && !in.packed);
    /* and an overlapping one of the same size */
    strides[0] = strides[1];
    CHECK(make(&d, &in, TL_DT_FLOAT32, 8, sizes, strides) == 0);
    CHECK(in.overlapping);
    /* large coprime strides with no overlap, where nesting does not apply */
    uint64_t s2[3] = { 1000, 1000, 1000 }, st2[3] = { 1000003, 999983, 1 };
    CHECK(make(&d, &in, TL_DT_UINT8, 3, s2, st2) == 0);
    CHECK(in.overlapping);   /* 999983*x - 1000003*y spans more than 1000 */
    uint64_t s3[2] = { 999983, 1000003 }, st3[2] = { 1000003, 999983 };
    CHECK(make(&d, &in, TL_DT_UINT8, 2, s3, st3) == 0);
    CHECK(!in.overlapping);
    /* a generous bound for a shared machine; the real time is microseconds */
    CHECK((double)(clock() - t0) / CLOCKS_PER_SEC < 2.0);
}

void classify_should_decide_fuzzer_case_in_few_steps(void)
{
    /* found by fuzz_desc: 8*8 - 64 = 0 overlaps, but largest stride first
     * enumerates the products of the large unknowns' ranges before the
     * parity of the 5 (range 1) rules them out: ~10^8 steps, 5 s */
    struct tl_desc d;
    struct tl_info in;
    uint64_t sizes[6] = { 229445, 2, 513, 28, 525, 4 };
    uint64_t strides[6] = { 8, 5, 64, 416, 6496, 49066 };
    CHECK(make(&d, &in, TL_DT_INT8, 6, sizes, strides) == 0);
    CHECK(in.overlapping);
    CHECK(tl_overlap_work < 100000);  /* measured: 4099 (before the turns: ~10^8) */
    /* and one fuzz_dump found the same way (measured: 4101) */
    uint64_t s2[6] = { 2, 409624, 6367, 5, 5255, 4 };
    uint64_t st2[6] = { 9, 56, 49, 66, 63, 60940966 };
    CHECK(make(&d, &in, TL_DT_INT8, 6, s2, st2) == 0);
    CHECK(in.overlapping);
    CHECK(tl_overlap_work < 100000);
}

struct collect { uint64_t n, idx[64][TL_MAX_RANK]; unsigned rank; };

static int collect_fn(const uint64_t *idx, void *ctx)
{
    struct collect *c = ctx;
    if (c->n < 64)
        memcpy(c->idx[c->n], idx, c->rank * sizeof *idx);
    c->n++;
    return 0;
}

/* Offsets of `tries` random small tensors whose owners the finder lists
 * otherwise than the brute-force walk over every element. */
static int find_mismatches(int tries)
{
    int mismatches = 0;
    for (int n = 0; n < tries; n++) {
        tl_find_force = n % 3;           /* either way, or the finder's choice */
        struct tl_desc d;
        struct tl_info in;
        draw(&d, &in);
        if (in.element_count > 2000)
            continue;
        for (uint64_t o = 0; o < in.span; o++) {
            struct collect got = { .rank = d.rank }, want = { .rank = d.rank };
            tl_desc_find(&d, o, tl_find_force == 2 ? TL_FIND_CAP : UINT64_MAX, collect_fn, &got);
            uint64_t idx[TL_MAX_RANK] = { 0 };
            for (uint64_t e = 0; e < in.element_count; e++) {   /* logical order */
                uint64_t off = 0;
                for (unsigned i = 0; i < d.rank; i++)
                    off += idx[i] * d.strides[i];
                if (off == o)
                    collect_fn(idx, &want);
                for (unsigned i = d.rank; i-- > 0;) {
                    if (++idx[i] < d.sizes[i])
                        break;
                    idx[i] = 0;
                }
            }
            uint64_t m = got.n < 64 ? got.n : 64;
            if (got.n != want.n || memcmp(got.idx, want.idx, m * sizeof got.idx[0]) != 0)
                mismatches++;
        }
    }
    tl_find_force = 0;
    return mismatches;
}

void find_should_match_brute_force_oracle(void)
{
    CHECK_EQ_U64(find_mismatches(3000), 0);
}

void find_should_match_oracle_with_tables_cut_short(void)
{
    /* runs, bit sets and membership scans cut to a few entries, so that
     * small tensors take the paths of large ones: windows with a bit set,
     * windows alone, and no tables at all */
    struct tl_find_limits keep = tl_find_limits;
    int mismatches = 0;
    for (int n = 0; n < 40; n++) {
        tl_find_limits.runs_max = 1 + rnd(8);
        tl_find_limits.bits_max = 1 + rnd(n % 2 ? 8 : 1024);   /* one word or several */
        tl_find_limits.has_scan = 1 + rnd(3);
        tl_find_limits.oracle_steps = rnd(4);
        tl_find_limits.runs_work = 1 + rnd(64);
        mismatches += find_mismatches(100);
    }
    tl_find_limits = keep;
    CHECK_EQ_U64(mismatches, 0);
}

static int stop_at_first(const uint64_t *idx, void *ctx)
{
    (void)idx;
    (void)ctx;
    return 1;
}

void find_should_be_fast_on_huge_broadcast(void)
{
    /* 2^60 elements, all on 16 offsets; and an offset nobody owns */
    struct tl_desc d;
    struct tl_info in;
    uint64_t sizes[4] = { UINT64_C(1) << 20, UINT64_C(1) << 20, UINT64_C(1) << 16, 16 };
    uint64_t strides[4] = { 0, 0, 0, 2 };
    clock_t t0 = clock();
    CHECK(make(&d, &in, TL_DT_UINT8, 4, sizes, strides) == 0);
    CHECK(in.broadcast && in.padded);
    struct collect c = { .rank = 4 };
    CHECK_EQ_U64(tl_desc_find(&d, 6, 1000, collect_fn, &c), 1000);
    CHECK(c.idx[0][3] == 3 && c.idx[1][2] == 1);
    CHECK_EQ_U64(tl_desc_find(&d, 7, 1000, collect_fn, &c), 0);
    CHECK_EQ_U64(tl_desc_find(&d, 30, 1, stop_at_first, NULL), 1);
    CHECK((double)(clock() - t0) / CLOCKS_PER_SEC < 2.0);
}

void find_should_walk_dense_owners_in_logical_order(void)
{
    /* 20000 x 20000 with strides 1,1: offset 19999 has 20000 owners, more
     * than the enumeration keeps, so the logical walk answers */
    struct tl_desc d;
    struct tl_info in;
    uint64_t sizes[2] = { 20000, 20000 }, strides[2] = { 1, 1 };
    CHECK(make(&d, &in, TL_DT_UINT8, 2, sizes, strides) == 0);
    struct collect c = { .rank = 2 };
    CHECK_EQ_U64(tl_desc_find(&d, 19999, UINT64_MAX, collect_fn, &c), 20000);
    for (uint64_t i = 0; i < 64; i++) {
        CHECK_EQ_U64(c.idx[i][0], i);
        CHECK_EQ_U64(c.idx[i][1], 19999 - i);
    }
    /* and with a broadcast axis between them, in logical order too */
    uint64_t s3[3] = { 20000, 3, 20000 }, st3[3] = { 1, 0, 1 };
    CHECK(make(&d, &in, TL_DT_UINT8, 3, s3, st3) == 0);
    struct collect c3 = { .rank = 3 };
    CHECK_EQ_U64(tl_desc_find(&d, 19999, 64, collect_fn, &c3), 64);
    CHECK(c3.idx[0][0] == 0 && c3.idx[0][1] == 0 && c3.idx[0][2] == 19999);
    CHECK(c3.idx[1][0] == 0 && c3.idx[1][1] == 1 && c3.idx[1][2] == 19999);
    CHECK(c3.idx[3][0] == 1 && c3.idx[3][1] == 0 && c3.idx[3][2] == 19998);
    /* a few owners among many elements: the enumeration answers */
    uint64_t s4[2] = { 100000, 3 }, st4[2] = { 7, 100000 };
    CHECK(make(&d, &in, TL_DT_UINT8, 2, s4, st4) == 0);
    struct collect c4 = { .rank = 2 };
    CHECK_EQ_U64(tl_desc_find(&d, 200035, UINT64_MAX, collect_fn, &c4), 1);
    CHECK(c4.idx[0][0] == 5 && c4.idx[0][1] == 2);
    CHECK_EQ_U64(tl_desc_find(&d, 700000, UINT64_MAX, collect_fn, &c4), 0);
}

struct owners { uint64_t n, prev[TL_MAX_RANK], offset; const struct tl_desc *d; bool ok; };

static int check_owner(const uint64_t *idx, void *ctx)
{
    struct owners *o = ctx;
    const struct tl_desc *d = o->d;
    uint64_t off = 0;
    for (unsigned i = 0; i < d->rank; i++)
        off += idx[i] * d->strides[i];
    if (off != o->offset)
        o->ok = false;
    for (unsigned i = 0; o->n > 0 && i < d->rank; i++) {   /* strictly ascending */
        if (o->prev[i] != idx[i]) {
            if (o->prev[i] > idx[i])
                o->ok = false;
            break;
        }
        if (i + 1 == d->rank)
            o->ok = false;               /* the same index twice */
    }
    memcpy(o->prev, idx, d->rank * sizeof *idx);
    o->n++;
    return 0;
}

void find_should_answer_fuzzer_cases_in_few_steps(void)
{
    /* the descriptions on which the fuzzer found offset --byte slow (tests/
     * cli/bad/{dense,sparse}_owners*.json); counted in steps, not seconds */
    static const struct { unsigned rank; uint64_t sizes[6], strides[6]; } c[] = {
        { 6, { 2, 40962464, 67, 55, 255, 4 }, { 9, 5, 4, 6, 69641096, 40966 } },
        { 6, { 2, 40962464, 62, 525, 5, 45 }, { 6, 5, 4, 6, 69641097, 40966 } },
        { 6, { 229446, 64, 67, 55, 255, 3 }, { 1, 5, 4, 86, 60, UINT64_C(16969440966) } },
        { 4, { 9, UINT64_C(4099681922), 2, 5 }, { 42, 1, 5, 94766960 } },
        { 4, { 88, 491022, 2, 510922 }, { 42, 1, 5, 947664 } },
        { 6, { 4224906, 64, 725, 6, 5, 555 }, { 8, 5, 4, 7, 69641096, 40966 } },
        { 6, { 8068465, 645, 2, 8, 8555, 4 }, { 9, 5, 8, 6, 69641, 69641067 } },
    };
    uint64_t most = 0;
    for (size_t k = 0; k < sizeof c / sizeof c[0]; k++) {
        struct tl_desc d;
        struct tl_info in;
        CHECK(make(&d, &in, TL_DT_INT8, c[k].rank, c[k].sizes, c[k].strides) == 0);
        struct tl_finder *f = tl_finder_new(&d);
        CHECK(f != NULL);
        for (uint64_t div = 2; div <= 7; div++) {
            struct owners o = { .offset = in.span / div, .d = &d, .ok = true };
            uint64_t n = tl_finder_find(f, o.offset, 1001, check_owner, &o);
            CHECK(o.ok && n == o.n);
            if (tl_find_work > most)
                most = tl_find_work;
        }
        tl_finder_free(f);
    }
    /* at most ~2000 steps per owner listed; measured: at most 59,120 on
     * the first six, 1.15 million on the last (before the bit sets: 152
     * million on the sixth, 10 million on the second; before the search
     * of suffixes without tables, 42 million on the last) */
    CHECK(most <= 2000 * 1001);
}

struct listing { uint64_t n, idx[1001][6]; };

static int list_fn(const uint64_t *idx, void *ctx)
{
    struct listing *l = ctx;
    memcpy(l->idx[l->n++], idx, sizeof l->idx[0]);
    return 0;
}

void find_should_stop_at_its_bound_with_the_first_owners(void)
{
    /* the seventh fuzzer case takes about a million steps for 1001 owners;
     * cut at 2^18, the finder stops after its third turn and says so, and
     * what it passed are the first owners in logical order */
    uint64_t sizes[6] = { 8068465, 645, 2, 8, 8555, 4 };
    uint64_t strides[6] = { 9, 5, 8, 6, 69641, 69641067 };
    struct tl_desc d;
    struct tl_info in;
    CHECK(make(&d, &in, TL_DT_INT8, 6, sizes, strides) == 0);
    struct tl_finder *f = tl_finder_new(&d);
    CHECK(f != NULL);
    static struct listing all, cut;
    all.n = cut.n = 0;
    CHECK_EQ_U64(tl_finder_find(f, in.span / 2, 1001, list_fn, &all), 1001);
    CHECK(tl_finder_complete(f));
    tl_finder_limit(f, 1 << 18);
    uint64_t n = tl_finder_find(f, in.span / 2, 1001, list_fn, &cut);
    CHECK(!tl_finder_complete(f));
    CHECK(n == cut.n && n > 0 && n < 1001);
    CHECK(memcmp(all.idx, cut.idx, n * sizeof all.idx[0]) == 0);
    tl_finder_free(f);
}


void fixes_should_offer_the_strides_meant(void)
{
    /* NCHW [1, 3, 4, 5] packed is [60, 20, 5, 1]; with C's stride typed 5
     * (H's) it overlaps; the best fix keeps the others and gives C the
     * stride N's 60 implies (60 / 3 = 20), the packed layout, first */
    uint64_t sizes[4] = { 1, 3, 4, 5 }, typo[4] = { 60, 5, 5, 1 };
    struct tl_desc d;
    struct tl_info in;
    struct tl_fix f[TL_MAX_FIXES];
    CHECK(make(&d, &in, TL_DT_FLOAT32, 4, sizes, typo) == 0 && in.overlapping);
    size_t n = tl_desc_fixes(&d, f);
    CHECK(n >= 1 && n <= TL_MAX_FIXES);
    CHECK_EQ_U64(f[0].strides[1], 20);
    CHECK(f[0].axis == 1 && f[0].inner == 0 && f[0].why == TL_FIX_INSIDE && f[0].inversions == 0);
    for (size_t k = 0; k < n; k++) {    /* each one stride away, none overlapping */
        struct tl_desc t = d;
        struct tl_info ti;
        memcpy(t.strides, f[k].strides, sizeof t.strides);
        CHECK(tl_desc_validate(&t, NULL) == 0);
        tl_desc_classify(&t, &ti);
        CHECK(!ti.overlapping);
        unsigned changed = 0;
        for (unsigned a = 0; a < 4; a++)
            changed += t.strides[a] != d.strides[a];
        CHECK(changed == 1 && t.strides[f[k].axis] != d.strides[f[k].axis]);
        if (k)
            CHECK(f[k - 1].inversions <= f[k].inversions);
    }
    /* FLOAT16 NHWC [1, 32, 56, 56] with W padded to 64 and H's stride
     * typed 64 (C's count forgotten): [114688, 1, 64, 32]; the fix that
     * N's stride implies, H at 2048, comes first, and its padding is W's,
     * to 64 slots (issue 76) */
    uint64_t nhwc[4] = { 1, 32, 56, 56 }, forgot[4] = { 114688, 1, 64, 32 };
    CHECK(make(&d, &in, TL_DT_FLOAT16, 4, nhwc, forgot) == 0 && in.overlapping);
    n = tl_desc_fixes(&d, f);
    CHECK(n == 2);
    CHECK_EQ_U64(f[0].strides[2], 2048);
    CHECK_EQ_U64(f[1].strides[2], 1792);
    uint64_t slots = 0;
    CHECK(tl_fix_padded(&d, &f[0], &slots) == 3 && slots == 64);
    CHECK(tl_fix_padded(&d, &f[1], &slots) == 4);
}
