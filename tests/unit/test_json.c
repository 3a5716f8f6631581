/* test_json.c - descriptions from JSON: spellings, key forms, every error. */
#include <cjson/cJSON.h>
#include <stdlib.h>

#include "check.h"
#include "helpers.h"
#include "tests.h"

void json_should_accept_both_spellings(void)
{
    struct tl_desc a, b, c;
    struct tl_error err;
    CHECK(parse("{\"dataType\":\"FLOAT16\",\"sizes\":[1,2,2,3],\"strides\":[12,1,6,2],"
                "\"totalTensorSizeInBytes\":24,\"flags\":\"NONE\"}", &a, &err) == 0);
    CHECK(parse("{\"DataType\":\"DML_TENSOR_DATA_TYPE_FLOAT16\",\"DimensionCount\":4,"
                "\"Sizes\":[1,2,2,3],\"Strides\":[12,1,6,2],\"TotalTensorSizeInBytes\":24,"
                "\"Flags\":\"DML_TENSOR_FLAG_NONE\",\"GuaranteedBaseOffsetAlignment\":0}", &b, &err) == 0);
    CHECK(parse("{\"Type\":\"DML_TENSOR_TYPE_BUFFER\",\"Desc\":{\"DataType\":\"FLOAT16\","
                "\"Sizes\":[1,2,2,3],\"Strides\":[12,1,6,2],\"TotalTensorSizeInBytes\":24}}",
                &c, &err) == 0);
    CHECK(memcmp(&a, &b, sizeof a) == 0);
    CHECK(memcmp(&a, &c, sizeof a) == 0);
    CHECK(a.total_given && a.total_bytes == 24 && a.strides_src == TL_STRIDES_GIVEN);
}

void json_should_accept_every_key_form(void)
{
    struct tl_desc d;
    struct tl_error err;
    /* strides absent or null: packed logical order, implicit */
    CHECK(parse("{\"dataType\":\"UINT8\",\"sizes\":[2,3,4],\"strides\":null}", &d, &err) == 0);
    CHECK(d.strides_src == TL_STRIDES_IMPLICIT && d.strides[0] == 12 && d.strides[2] == 1);
    /* layout as letters and as indices, with agreeing strides */
    CHECK(parse("{\"dataType\":\"UINT8\",\"sizes\":[1,3,4,5],\"layout\":\"NHWC\"}", &d, &err) == 0);
    CHECK(d.strides_src == TL_STRIDES_LAYOUT && d.strides[1] == 1 && d.strides[2] == 15);
    CHECK(parse("{\"dataType\":\"UINT8\",\"sizes\":[1,3,4,5],\"layout\":[0,2,3,1],"
                "\"strides\":[60,1,15,3]}", &d, &err) == 0);
    CHECK(d.strides_src == TL_STRIDES_GIVEN);
    /* broadcast: letters, index arrays, letter arrays; with or without layout */
    CHECK(parse("{\"dataType\":\"FLOAT32\",\"sizes\":[8,64,4,4],\"layout\":\"NCHW\","
                "\"broadcast\":\"NHW\"}", &d, &err) == 0);
    CHECK(d.strides[0] == 0 && d.strides[1] == 1 && d.strides[2] == 0 && d.strides[3] == 0);
    CHECK(parse("{\"dataType\":\"FLOAT32\",\"sizes\":[8,64,4,4],\"broadcast\":[0,2,3]}", &d, &err) == 0);
    CHECK(d.strides[1] == 1 && d.strides[0] == 0);
    CHECK(parse("{\"dataType\":\"FLOAT32\",\"sizes\":[8,64,4,4],\"broadcast\":[\"N\",\"H\",\"W\"],"
                "\"strides\":[0,1,0,0]}", &d, &err) == 0);
    /* flags in three forms */
    CHECK(parse("{\"dataType\":\"UINT8\",\"sizes\":[1],\"flags\":\"NONE|OWNED_BY_DML\"}", &d, &err) == 0);
    CHECK(d.flags == TL_FLAG_OWNED_BY_DML);
    CHECK(parse("{\"dataType\":\"UINT8\",\"sizes\":[1],\"flags\":[\"DML_TENSOR_FLAG_OWNED_BY_DML\"]}",
                &d, &err) == 0 && d.flags == 1);
    CHECK(parse("{\"dataType\":\"UINT8\",\"sizes\":[1],\"flags\":1}", &d, &err) == 0 && d.flags == 1);
    CHECK(parse("{\"dataType\":\"UINT8\",\"sizes\":[1],\"flags\":0}", &d, &err) == 0 && d.flags == 0);
    /* byteOffset, null optional keys, 2^53 itself, 1e2 as an integer */
    CHECK(parse("{\"dataType\":\"UINT8\",\"sizes\":[1],\"byteOffset\":128,\"layout\":null,"
                "\"broadcast\":null,\"flags\":null,\"totalTensorSizeInBytes\":null}", &d, &err) == 0);
    CHECK(d.byte_offset == 128 && !d.total_given);
    CHECK(parse("{\"dataType\":\"UINT8\",\"sizes\":[9007199254740992]}", &d, &err) == 0);
    CHECK(parse("{\"dataType\":\"UINT8\",\"sizes\":[1e2]}", &d, &err) == 0 && d.sizes[0] == 100);
    /* rank 8 */
    CHECK(parse("{\"dataType\":\"UINT8\",\"sizes\":[1,2,1,2,1,2,1,2],\"layout\":[7,6,5,4,3,2,1,0]}",
                &d, &err) == 0);
    CHECK(d.rank == 8 && d.strides[7] == 8 && d.strides[1] == 1 && d.strides[6] == 8);
}

struct bad {
    const char *json;
    int code;
    const char *key;
    const char *msg;   /* a part of the message */
};

static const struct bad bad_cases[] = {
    { "[1,2]", TL_E_TYPE, "", "must be a JSON object" },
    { "{\"sizes\":[1]}", TL_E_KEY, "dataType", "missing required key" },
    { "{\"dataType\":\"FLOAT32\"}", TL_E_KEY, "sizes", "missing required key" },
    { "{\"dataType\":\"FLOAT32\",\"sizes\":[1],\"color\":1}", TL_E_KEY, "color", "unknown key" },
    { "{\"dataType\":\"FLOAT32\",\"sizes\":[1],\"Sizes\":[1]}", TL_E_KEY, "Sizes", "duplicate key" },
    { "{\"dataType\":\"FLOAT32\",\"sizes\":[1],\"sizes\":[1]}", TL_E_KEY, "sizes", "duplicate key" },
    { "{\"dataType\":7,\"sizes\":[1]}", TL_E_TYPE, "dataType", "must be a string" },
    { "{\"dataType\":\"FLOAT8\",\"sizes\":[1]}", TL_E_VALUE, "dataType", "unknown data type 'FLOAT8'" },
    { "{\"dataType\":\"FLOAT32\",\"sizes\":3}", TL_E_TYPE, "sizes", "must be an array" },
    { "{\"dataType\":\"FLOAT32\",\"sizes\":[]}", TL_E_RANGE, "sizes", "1 to 8 entries, not 0" },
    { "{\"dataType\":\"FLOAT32\",\"sizes\":[1,1,1,1,1,1,1,1,1]}", TL_E_RANGE, "sizes", "not 9" },
    { "{\"dataType\":\"FLOAT32\",\"sizes\":[1,2,0]}", TL_E_RANGE, "sizes[2]", "must be an integer >= 1" },
    { "{\"dataType\":\"FLOAT32\",\"sizes\":[1,-2]}", TL_E_RANGE, "sizes[1]", "must not be negative" },
    { "{\"dataType\":\"FLOAT32\",\"sizes\":[1.5]}", TL_E_RANGE, "sizes[0]", "whole number" },
    { "{\"dataType\":\"FLOAT32\",\"sizes\":[\"4\"]}", TL_E_TYPE, "sizes[0]", "must be an integer" },
    { "{\"dataType\":\"FLOAT32\",\"sizes\":[18014398509481984]}", TL_E_RANGE, "sizes[0]", "at most 2^53" },
    { "{\"dataType\":\"FLOAT32\",\"sizes\":[9007199254740993]}", TL_E_RANGE, "sizes[0]", "at most 2^53" },
    { "{\"dataType\":\"FLOAT32\",\"sizes\":[1],\"byteOffset\":9007199254740993}", TL_E_RANGE, "byteOffset", "at most 2^53" },
    { "{\"dataType\":\"FLOAT32\",\"sizes\":[2,2],\"strides\":[1]}", TL_E_MISMATCH, "strides", "has 1 entries but sizes has 2" },
    { "{\"dataType\":\"FLOAT32\",\"sizes\":[2,2],\"strides\":[1,-1]}", TL_E_RANGE, "strides[1]", "negative" },
    { "{\"dataType\":\"FLOAT32\",\"sizes\":[2,2],\"strides\":{}}", TL_E_TYPE, "strides", "must be an array" },
    { "{\"dataType\":\"FLOAT32\",\"sizes\":[1,2,3,4],\"layout\":\"NHWX\"}", TL_E_VALUE, "layout", "not a permutation of 'NCHW'" },
    { "{\"dataType\":\"FLOAT32\",\"sizes\":[1,2,3,4],\"layout\":\"NHW\"}", TL_E_VALUE, "layout", "not a permutation" },
    { "{\"dataType\":\"FLOAT32\",\"sizes\":[1,2,3,4],\"layout\":[0,1,1,2]}", TL_E_VALUE, "layout[2]", "1 is not a new axis index" },
    { "{\"dataType\":\"FLOAT32\",\"sizes\":[1,2,3,4],\"layout\":[0,1,2]}", TL_E_RANGE, "layout", "all 4 axes" },
    { "{\"dataType\":\"FLOAT32\",\"sizes\":[1,2,3,4],\"layout\":4}", TL_E_TYPE, "layout", "axis letters" },
    { "{\"dataType\":\"FLOAT32\",\"sizes\":[1,2,3,4],\"layout\":\"NHWC\",\"strides\":[24,12,4,1]}",
      TL_E_MISMATCH, "strides[1]", "is 12 but layout gives 1" },
    { "{\"dataType\":\"FLOAT32\",\"sizes\":[2,3],\"broadcast\":\"Q\"}", TL_E_VALUE, "broadcast", "does not name axes" },
    { "{\"dataType\":\"FLOAT32\",\"sizes\":[2,3],\"broadcast\":[5]}", TL_E_VALUE, "broadcast[0]", "not an axis index" },
    { "{\"dataType\":\"FLOAT32\",\"sizes\":[2,3],\"broadcast\":true}", TL_E_TYPE, "broadcast", "must be" },
    { "{\"dataType\":\"FLOAT32\",\"sizes\":[2,3],\"broadcast\":\"H\",\"strides\":[3,1]}",
      TL_E_MISMATCH, "strides[0]", "broadcast gives 0" },
    { "{\"dataType\":\"FLOAT32\",\"sizes\":[2],\"totalTensorSizeInBytes\":-8}", TL_E_RANGE, "totalTensorSizeInBytes", "negative" },
    { "{\"dataType\":\"FLOAT32\",\"sizes\":[2],\"totalTensorSizeInBytes\":\"8\"}", TL_E_TYPE, "totalTensorSizeInBytes", "integer" },
    { "{\"dataType\":\"FLOAT32\",\"sizes\":[2],\"guaranteedBaseOffsetAlignment\":0.5}", TL_E_RANGE, "guaranteedBaseOffsetAlignment", "whole" },
    { "{\"dataType\":\"FLOAT32\",\"sizes\":[2],\"byteOffset\":true}", TL_E_TYPE, "byteOffset", "integer" },
    { "{\"dataType\":\"FLOAT32\",\"sizes\":[2],\"flags\":\"OWNED\"}", TL_E_VALUE, "flags", "not a flag" },
    { "{\"dataType\":\"FLOAT32\",\"sizes\":[2],\"flags\":2}", TL_E_VALUE, "flags", "bits other than" },
    { "{\"dataType\":\"FLOAT32\",\"sizes\":[2],\"flags\":[1]}", TL_E_TYPE, "flags[0]", "flag name" },
    { "{\"dataType\":\"FLOAT32\",\"sizes\":[2],\"flags\":\"NONE|\"}", TL_E_VALUE, "flags", "not a flag" },
    { "{\"dataType\":\"FLOAT32\",\"sizes\":[2],\"dimensionCount\":2}", TL_E_MISMATCH, "dimensionCount", "is 2 but sizes has 1" },
    { "{\"Type\":\"DML_TENSOR_TYPE_INVALID\",\"Desc\":{}}", TL_E_VALUE, "Type", "DML_TENSOR_TYPE_BUFFER" },
    /* the collapsed form, with no fields beside the type */
    { "{\"Type\":\"DML_TENSOR_TYPE_BUFFER\"}", TL_E_KEY, "dataType", "missing" },
    { "{\"Type\":\"DML_TENSOR_TYPE_BUFFER\",\"Desc\":[]}", TL_E_TYPE, "Desc", "must be an object" },
    { "{\"Type\":\"DML_TENSOR_TYPE_BUFFER\",\"Desc\":{},\"Sizes\":[1]}", TL_E_KEY, "Sizes", "beside" },
    { "{\"Type\":\"DML_TENSOR_TYPE_BUFFER\",\"Desc\":{\"DataType\":\"FLOAT32\",\"Sizes\":[1,0]}}",
      TL_E_RANGE, "Desc.Sizes[1]", ">= 1" },
    { "{\"Type\":\"DML_TENSOR_TYPE_BUFFER\",\"Desc\":{\"DataType\":\"FLOAT32\",\"Sizes\":[1],\"Bogus\":0}}",
      TL_E_KEY, "Desc.Bogus", "unknown key" },
    { "{\"dataType\":\"FLOAT32\",\"sizes\":[2],\"\\u0001\\u00ff\":1}", TL_E_KEY, "\\x01\\xc3\\xbf", "unknown key" },
};

void json_should_reject_each_error_with_key_path(void)
{
    for (size_t i = 0; i < sizeof bad_cases / sizeof bad_cases[0]; i++) {
        const struct bad *b = &bad_cases[i];
        struct tl_desc d;
        struct tl_error err = { 0 };
        int rc = parse(b->json, &d, &err);
        if (rc != b->code || strcmp(err.key, b->key) != 0 || !strstr(err.msg, b->msg)) {
            check_failures++;
            fprintf(stderr, "case %zu %s: got code %d key '%s' msg '%s'\n", i, b->json, rc,
                    err.key, err.msg);
        }
    }
}

void json_should_locate_malformed_json(void)
{
    static const struct { const char *json; int line, col; } cases[] = {
        { "{\"dataType\": \"FLOAT32\",\n  \"sizes\": [1, 2,]\n}", 2, 17 },  /* the comma */
        { "{\"dataType\" \"FLOAT32\"}", 1, 13 },
        { "", 0, 0 },                  /* empty: no place to point at */
        { "{\"dataType\": \"FLOAT32\", \"sizes\": [1]} trailing", 1, 39 },
        { "{\"dataType\": \"FLOAT32\",\n\n \"sizes\": [1]", 3, 13 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct tl_desc d;
        struct tl_error err = { 0 };
        CHECK(parse(cases[i].json, &d, &err) == TL_E_JSON);
        if (err.line != cases[i].line || err.col != cases[i].col) {
            check_failures++;
            fprintf(stderr, "case %zu: at %d:%d, expected %d:%d\n", i, err.line, err.col,
                    cases[i].line, cases[i].col);
        }
    }
    /* deep nesting is refused by cJSON's limit, not by a crash */
    size_t n = 100000;
    char *deep = malloc(2 * n + 1);
    memset(deep, '[', n);
    memset(deep + n, ']', n);
    deep[2 * n] = '\0';
    struct tl_desc d;
    struct tl_error err;
    CHECK(tl_desc_parse_json(deep, 2 * n, &d, &err) == TL_E_JSON);
    free(deep);
}

void json_should_write_exact_integers(void)
{
    struct tl_desc d;
    struct tl_error err;
    CHECK(parse("{\"dataType\":\"UINT8\",\"sizes\":[2,4503599627370497],\"layout\":\"WH\"}", &d, &err) == 0);
    cJSON *j = tl_desc_to_json(&d);
    char *text = cJSON_PrintUnformatted(j);
    CHECK_STR(text, "{\"dataType\":\"UINT8\",\"sizes\":[2,4503599627370497],\"strides\":[1,2]}");
    free(text);
    cJSON_Delete(j);
    /* packed strides above 2^53 are written as their layout, and read back */
    uint64_t huge[7] = { 40, 6, 4096, 4096, 4096, 4096, 16 };
    struct tl_desc back;
    CHECK(tl_desc_init(&d, TL_DT_UINT8, 7, huge, &err) == 0);
    j = tl_desc_to_json(&d);
    text = cJSON_PrintUnformatted(j);
    CHECK_STR(text, "{\"dataType\":\"UINT8\",\"sizes\":[40,6,4096,4096,4096,4096,16],"
                    "\"layout\":[0,1,2,3,4,5,6]}");
    CHECK(parse(text, &back, &err) == 0);
    for (unsigned i = 0; i < 7; i++)
        CHECK_EQ_U64(back.strides[i], d.strides[i]);
    free(text);
    cJSON_Delete(j);
    /* a packed stride above 2^53 is printed exactly */
    uint64_t sizes[2] = { 3, 4503599627370497 };
    CHECK(tl_desc_init(&d, TL_DT_UINT8, 2, sizes, &err) == 0);
    d.total_given = true;
    d.byte_offset = 16;
    j = tl_desc_to_json(&d);
    text = cJSON_PrintUnformatted(j);
    CHECK_STR(text, "{\"dataType\":\"UINT8\",\"sizes\":[3,4503599627370497],"
                    "\"strides\":[4503599627370497,1],\"totalTensorSizeInBytes\":13510798882111492,"
                    "\"byteOffset\":16}");
    free(text);
    cJSON_Delete(j);
}
