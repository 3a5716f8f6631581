/* test_desc.c - terms, layouts, problems and offsets of descriptions. */
#include "check.h"
#include "helpers.h"
#include "tests.h"

void desc_should_compute_reference_terms(void)
{
    static const struct {
        unsigned rank;
        uint64_t sizes[4], strides[4];
        uint64_t count, span, min_size;
        enum tl_status status;
        const char *layout;
    } cases[] = {
        /* the reference pages' worked examples */
        { 2, { 2, 3 }, { 3, 1 }, 6, 6, 24, TL_ST_PACKED, "HW" },
        { 2, { 2, 3 }, { 1, 2 }, 6, 6, 24, TL_ST_PACKED, "WH" },
        { 3, { 2, 2, 3 }, { 6, 3, 1 }, 12, 12, 48, TL_ST_PACKED, "DHW" },
        { 2, { 2, 3 }, { 0, 1 }, 6, 3, 12, TL_ST_BROADCAST, "W" },      /* H is broadcast */
        { 2, { 2, 3 }, { 5, 1 }, 6, 8, 32, TL_ST_PADDED, "HW" },
        { 4, { 1, 1, 3, 5 }, { 15, 15, 5, 1 }, 15, 15, 60, TL_ST_PACKED, "NCHW" },
        { 4, { 1, 1, 3, 5 }, { 15, 1, 5, 1 }, 15, 15, 60, TL_ST_PACKED, "NHWC" },
        /* the spec's overlap example */
        { 2, { 3, 3 }, { 1, 1 }, 9, 5, 20, TL_ST_OVERLAPPING, "HW" },
        /* a broadcast, padded tensor: broadcast wins the status */
        { 2, { 4, 3 }, { 0, 2 }, 12, 5, 20, TL_ST_BROADCAST, "W" },   /* H is broadcast */
        /* a single element, any stride */
        { 1, { 1 }, { 7 }, 1, 1, 4, TL_ST_PACKED, "W" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct tl_desc d;
        struct tl_info in;
        CHECK(make(&d, &in, TL_DT_FLOAT32, cases[i].rank, cases[i].sizes, cases[i].strides) == 0);
        CHECK_EQ_U64(in.element_count, cases[i].count);
        CHECK_EQ_U64(in.span, cases[i].span);
        CHECK_EQ_U64(in.min_size, cases[i].min_size);
        CHECK_STR(tl_status_name(in.status), tl_status_name(cases[i].status));
        CHECK_STR(in.layout, cases[i].layout);
    }
    /* the padded example also counts as padded when broadcast */
    struct tl_desc d;
    struct tl_info in;
    uint64_t sz[2] = { 4, 3 }, st[2] = { 0, 2 };
    make(&d, &in, TL_DT_FLOAT32, 2, sz, st);
    CHECK(in.broadcast && in.padded && !in.packed && !in.overlapping);
    /* FLOAT16 rounds the minimum size up to 4 */
    uint64_t sz3[1] = { 3 }, st3[1] = { 1 };
    make(&d, &in, TL_DT_FLOAT16, 1, sz3, st3);
    CHECK_EQ_U64(in.min_size, 8);
    CHECK_EQ_U64(in.elements_bytes, 6);
}

void desc_should_compute_strides_for_layouts(void)
{
    uint64_t sizes[4] = { 2, 3, 4, 5 }, strides[4];
    unsigned order[TL_MAX_RANK];
    struct tl_error err;
    CHECK(tl_layout_parse(4, "NHWC", order, &err) == 0);
    CHECK(tl_strides_for_order(4, sizes, order, 0, strides, &err) == 0);
    CHECK(strides[0] == 60 && strides[1] == 1 && strides[2] == 15 && strides[3] == 3);
    CHECK(tl_layout_parse(4, "0,2,3,1", order, &err) == 0);
    CHECK(order[0] == 0 && order[1] == 2 && order[2] == 3 && order[3] == 1);
    CHECK(tl_layout_parse(4, "nchw", order, &err) == 0);
    /* CalculateStrides with broadcast C: C counts as 1 */
    CHECK(tl_layout_parse(4, "NHWC", order, &err) == 0);
    CHECK(tl_strides_for_order(4, sizes, order, 1u << 1, strides, &err) == 0);
    CHECK(strides[0] == 20 && strides[1] == 0 && strides[2] == 5 && strides[3] == 1);
    unsigned mask;
    CHECK(tl_axes_parse(4, "HW", &mask, &err) == 0 && mask == 0xc);
    CHECK(tl_axes_parse(4, "2,3", &mask, &err) == 0 && mask == 0xc);
    CHECK(tl_axes_parse(4, "H,W", &mask, &err) == 0 && mask == 0xc);
    CHECK(tl_axes_parse(4, "X", &mask, &err) == TL_E_VALUE);
    CHECK(tl_axes_parse(4, "4", &mask, &err) == TL_E_VALUE);
    /* not permutations */
    CHECK(tl_layout_parse(4, "NHW", order, &err) == TL_E_VALUE);
    CHECK(tl_layout_parse(4, "NHWW", order, &err) == TL_E_VALUE);
    CHECK(tl_layout_parse(4, "NCDHW", order, &err) == TL_E_VALUE);
    CHECK(tl_layout_parse(4, "0,1,2", order, &err) == TL_E_VALUE);
    CHECK(tl_layout_parse(4, "0,1,2,4", order, &err) == TL_E_VALUE);
    CHECK(tl_layout_parse(4, "", order, &err) == TL_E_VALUE);
    CHECK(tl_layout_parse(4, "0,1,2,3,", order, &err) == TL_E_VALUE);
    CHECK(tl_layout_parse(5, "NDHWC", order, &err) == 0 && order[4] == 1);
    CHECK(tl_layout_parse(3, "WHD", order, &err) == 0 && order[0] == 2 && order[2] == 0);
    /* ranks 6-8 have no letters, only indices */
    CHECK(tl_axis_letters(6) == NULL);
    CHECK(tl_layout_parse(6, "5,4,3,2,1,0", order, &err) == 0 && order[0] == 5);
    CHECK(tl_layout_parse(6, "NCHWAB", order, &err) == TL_E_VALUE);
}

void desc_should_name_layout_with_tie_rule(void)
{
    unsigned order[4];
    uint64_t sizes[4] = { 1, 1, 3, 5 };
    uint64_t nhwc[4] = { 15, 1, 5, 1 }, nchw[4] = { 15, 15, 5, 1 };
    tl_axis_order(4, sizes, nhwc, order);
    CHECK(order[0] == 0 && order[1] == 2 && order[2] == 3 && order[3] == 1);
    tl_axis_order(4, sizes, nchw, order);
    CHECK(order[0] == 0 && order[1] == 1 && order[2] == 2 && order[3] == 3);
    /* ties between equal sizes keep logical order */
    uint64_t s2[3] = { 2, 2, 2 }, z[3] = { 0, 0, 0 };
    tl_axis_order(3, s2, z, order);
    CHECK(order[0] == 0 && order[1] == 1 && order[2] == 2);
    /* rank 6 has an axis order but no layout letters */
    struct tl_desc d;
    struct tl_info in;
    uint64_t s6[6] = { 2, 2, 2, 2, 2, 2 }, st6[6] = { 1, 2, 4, 8, 16, 32 };
    CHECK(make(&d, &in, TL_DT_UINT8, 6, s6, st6) == 0);
    CHECK_STR(in.layout, "");
    CHECK(in.axis_order[0] == 5 && in.axis_order[5] == 0);
}

static size_t problems_of(const char *json, uint64_t data_size, struct tl_problem *p)
{
    struct tl_desc d;
    struct tl_info in;
    struct tl_error err;
    if (parse(json, &d, &err)) {
        fprintf(stderr, "unexpected error: %s: %s\n", err.key, err.msg);
        return 99;
    }
    tl_desc_classify(&d, &in);
    return tl_desc_problems(&d, &in, data_size, p);
}

void desc_should_report_directml_problems(void)
{
    struct tl_problem p[TL_MAX_PROBLEMS];
    CHECK_EQ_U64(problems_of("{\"dataType\":\"FLOAT32\",\"sizes\":[1,1,3,5]}", TL_NO_DATA, p), 0);
    CHECK_EQ_U64(problems_of("{\"dataType\":\"FLOAT32\",\"sizes\":[1,1,3,5]}", 60, p), 0);
    CHECK_EQ_U64(problems_of("{\"dataType\":\"FLOAT32\",\"sizes\":[1,1,3,5]}", 59, p), 1);
    CHECK(p[0].code == TL_P_DATA_SHORT && p[0].a == 59 && p[0].b == 60);
    /* a size and a stride above 2^32-1 */
    CHECK_EQ_U64(problems_of("{\"dataType\":\"UINT8\",\"sizes\":[4294967296,1],"
                             "\"strides\":[1,4294967296]}", TL_NO_DATA, p), 3);
    CHECK(p[0].code == TL_P_SIZE_UINT && strcmp(p[0].key, "sizes[0]") == 0);
    CHECK(p[1].code == TL_P_STRIDE_UINT && strcmp(p[1].key, "strides[1]") == 0);
    CHECK(p[2].code == TL_P_TOO_MANY_ELEMS);
    /* a declared total below the minimum and not a multiple of 4 */
    CHECK_EQ_U64(problems_of("{\"dataType\":\"FLOAT32\",\"sizes\":[4],"
                             "\"totalTensorSizeInBytes\":14}", TL_NO_DATA, p), 2);
    CHECK(p[0].code == TL_P_TOTAL_SMALL && p[0].a == 14 && p[0].b == 16);
    CHECK(p[1].code == TL_P_TOTAL_ALIGN);
    /* a larger total must also be in the file */
    CHECK_EQ_U64(problems_of("{\"dataType\":\"FLOAT32\",\"sizes\":[4],"
                             "\"totalTensorSizeInBytes\":32}", 16, p), 1);
    CHECK(p[0].code == TL_P_DATA_SHORT && p[0].b == 32);
    /* alignments and offsets */
    CHECK_EQ_U64(problems_of("{\"dataType\":\"FLOAT32\",\"sizes\":[4],"
                             "\"guaranteedBaseOffsetAlignment\":2}", TL_NO_DATA, p), 1);
    CHECK(p[0].code == TL_P_ALIGNMENT);
    CHECK_EQ_U64(problems_of("{\"dataType\":\"FLOAT32\",\"sizes\":[4],"
                             "\"guaranteedBaseOffsetAlignment\":24}", TL_NO_DATA, p), 1);
    CHECK_EQ_U64(problems_of("{\"dataType\":\"FLOAT32\",\"sizes\":[4],"
                             "\"guaranteedBaseOffsetAlignment\":64,\"byteOffset\":32}",
                             TL_NO_DATA, p), 1);
    CHECK(p[0].code == TL_P_OFFSET_ALIGN && p[0].b == 64);
    CHECK_EQ_U64(problems_of("{\"dataType\":\"FLOAT32\",\"sizes\":[4],\"byteOffset\":8}",
                             TL_NO_DATA, p), 1);
    CHECK(p[0].code == TL_P_OFFSET_ALIGN && p[0].b == 16);
    CHECK_EQ_U64(problems_of("{\"dataType\":\"FLOAT32\",\"sizes\":[4],\"byteOffset\":64,"
                             "\"guaranteedBaseOffsetAlignment\":64}", 64 + 16, p), 0);
}

void desc_should_reject_overflow(void)
{
    struct tl_desc d;
    struct tl_error err;
    CHECK(parse("{\"dataType\":\"UINT8\",\"sizes\":[9007199254740992,9007199254740992]}", &d, &err)
          == TL_E_OVERFLOW);
    CHECK_STR(err.key, "sizes");
    CHECK(parse("{\"dataType\":\"UINT8\",\"sizes\":[4096,4096,4096,4096,4096,16]}", &d, &err)
          == TL_E_OVERFLOW);
    /* a span that just fits, then one element more */
    CHECK(parse("{\"dataType\":\"UINT8\",\"sizes\":[2047,2],\"strides\":[9007199254740992,1]}",
                &d, &err) == 0);
    CHECK(parse("{\"dataType\":\"UINT8\",\"sizes\":[2049,2],\"strides\":[9007199254740992,"
                "9007199254740992]}", &d, &err) == TL_E_OVERFLOW);
    CHECK_STR(err.key, "strides");
    /* the span fits in elements but not in bytes */
    CHECK(parse("{\"dataType\":\"FLOAT64\",\"sizes\":[1025],\"strides\":[9007199254740992]}",
                &d, &err) == TL_E_OVERFLOW);
    /* byteOffset + bytes */
    CHECK(parse("{\"dataType\":\"UINT8\",\"sizes\":[2048],\"strides\":[9007199254740992],"
                "\"byteOffset\":9007199254740992}", &d, &err) == TL_E_OVERFLOW);
    CHECK_STR(err.key, "byteOffset");
    CHECK(parse("{\"DataType\":\"UINT8\",\"Sizes\":[9007199254740992,9007199254740992]}", &d, &err)
          == TL_E_OVERFLOW);
    CHECK_STR(err.key, "Sizes");
}

void desc_should_compute_offsets(void)
{
    struct tl_desc d;
    struct tl_error err;
    uint64_t eo, bo, idx[3] = { 1, 0, 1 };
    CHECK(parse("{\"dataType\":\"FLOAT32\",\"sizes\":[2,2,3],\"byteOffset\":16}", &d, &err) == 0);
    CHECK(tl_desc_offset(&d, idx, &eo, &bo, &err) == 0);
    CHECK_EQ_U64(eo, 7);
    CHECK_EQ_U64(bo, 16 + 28);
    idx[2] = 3;
    CHECK(tl_desc_offset(&d, idx, &eo, &bo, &err) == TL_E_RANGE);
    CHECK_STR(err.key, "index[2]");
}

void desc_should_locate_elements_one_way(void)
{
    struct tl_desc d;
    struct tl_error err;
    struct tl_info info;
    CHECK(parse("{\"dataType\":\"FLOAT16\",\"sizes\":[2,3],\"strides\":[4,1],"
                "\"byteOffset\":6,\"totalTensorSizeInBytes\":40}", &d, &err) == 0);
    uint64_t idx[2] = { 1, 2 };
    unsigned bit = 9;
    CHECK_EQ_U64(tl_desc_elem(&d, idx), 6);
    CHECK_EQ_U64(tl_desc_byte(&d, 6, &bit), 6 + 12);
    CHECK_EQ_U64(bit, 0);
    CHECK_EQ_U64(tl_desc_at(&d, idx), 18);
    tl_desc_classify(&d, &info);
    CHECK_EQ_U64(tl_desc_extent(&d, &info), 40);        /* the declared total is larger */
    d.total_bytes = 2;
    CHECK_EQ_U64(tl_desc_extent(&d, &info), 14);        /* span 7 x 2 bytes */
    /* whole elements in bytes, and bytes of elements */
    CHECK_EQ_U64(tl_dtype_count(TL_DT_FLOAT32, 11), 2);
    CHECK_EQ_U64(tl_dtype_count(TL_DT_UINT8, 11), 11);
    CHECK_EQ_U64(tl_dtype_bytes(TL_DT_FLOAT64, 3), 24);
    /* positions far out do not overflow on the way */
    d.byte_offset = 0;
    CHECK_EQ_U64(tl_desc_byte(&d, UINT64_C(1) << 62, NULL), UINT64_C(1) << 63);
    /* the odometer: row-major, last axis fastest, back to zero at the end */
    uint64_t sizes[3] = { 2, 1, 3 }, i3[3] = { 0, 0, 0 }, steps = 1;
    while (tl_index_next(3, sizes, i3))
        steps++;
    CHECK_EQ_U64(steps, 6);
    CHECK(i3[0] == 0 && i3[1] == 0 && i3[2] == 0);
    uint64_t at[3] = { 0, 0, 2 };
    CHECK(tl_index_next(3, sizes, at) && at[0] == 1 && at[2] == 0);
}

void desc_should_place_buffers_by_file_offset(void)
{
    struct tl_desc d;
    struct tl_error err;
    struct tl_info info;
    struct tl_problem p[TL_MAX_PROBLEMS];
    CHECK(parse("{\"dataType\":\"FLOAT32\",\"sizes\":[2,3],\"fileOffset\":12}", &d, &err) == 0);
    CHECK_EQ_U64(d.file_offset, 12);
    CHECK_EQ_U64(d.byte_offset, 0);
    uint64_t idx[2] = { 1, 2 };
    CHECK_EQ_U64(tl_desc_origin(&d), 12);
    CHECK_EQ_U64(tl_desc_at(&d, idx), 12 + 20);
    tl_desc_classify(&d, &info);
    CHECK_EQ_U64(info.elements_bytes, 36);
    CHECK_EQ_U64(tl_desc_problems(&d, &info, 36, p), 0);    /* a header is no DirectML problem */
    CHECK(tl_desc_problems(&d, &info, 35, p) == 1 && p[0].code == TL_P_DATA_SHORT);
    d.byte_offset = 12;                                      /* a binding offset is */
    CHECK(tl_desc_validate(&d, &err) == 0);
    tl_desc_classify(&d, &info);
    CHECK(tl_desc_problems(&d, &info, TL_NO_DATA, p) == 1 && p[0].code == TL_P_OFFSET_ALIGN);
    CHECK(parse("{\"dataType\":\"UINT8\",\"sizes\":[2],\"fileOffset\":18446744073709551615}",
                &d, &err) != 0);
}

void slab_reach_should_cover_what_the_slabs_read(void)
{
    struct tl_desc d;
    struct tl_error err;
    uint64_t lo, hi;
    /* NCHW [2, 3, 4, 5] FLOAT32 at file offset 8, cut along N: image 1 is
     * the 240 bytes after the first image's */
    CHECK(parse("{\"dataType\":\"FLOAT32\",\"sizes\":[2,3,4,5],\"fileOffset\":8}", &d, &err) == 0);
    CHECK_EQ_U64(tl_copy_slab_reach(&d, 0, 1, 2, &lo, &hi), 240);
    CHECK_EQ_U64(lo, 8 + 240);
    CHECK_EQ_U64(hi, 8 + 480);
    /* along W (stride 1): rows 1-2 of W in every image and channel reach
     * from element 1 to the last image's last row's element 2 */
    CHECK_EQ_U64(tl_copy_slab_reach(&d, 3, 1, 3, &lo, &hi), 2 * 3 * 4 * 2 * 4);
    CHECK_EQ_U64(lo, 8 + 4);
    CHECK_EQ_U64(hi, 8 + 4 * (119 + 1 - 2));
    /* a broadcast channel axis reads one channel's bytes, whatever its size */
    CHECK(parse("{\"dataType\":\"FLOAT16\",\"sizes\":[1,8,2,3],\"strides\":[6,0,3,1]}", &d,
                &err) == 0);
    CHECK_EQ_U64(tl_copy_slab_reach(&d, 1, 0, 8, &lo, &hi), 12);
    CHECK_EQ_U64(lo, 0);
    CHECK_EQ_U64(hi, 12);
    /* an empty slab reads nothing */
    CHECK_EQ_U64(tl_copy_slab_reach(&d, 1, 3, 3, &lo, &hi), 0);
    CHECK_EQ_U64(hi - lo, 0);
}
