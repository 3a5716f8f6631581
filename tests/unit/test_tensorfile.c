/* test_tensorfile.c - the .npy, safetensors and .npz readers, the .npy and
 * zip writers, and the shard index. */
#include <stdlib.h>
#include <string.h>

#include "../../src/core/tl.h"
#include "check.h"
#include "tests.h"

/* A .npy file: the preamble for version v, the header text padded to 64
 * with a newline, then data_len zero bytes.  Caller frees. */
static uint8_t *npy(int v, const char *dict, size_t data_len, size_t *len)
{
    size_t pre = v == 1 ? 10 : 12, n = strlen(dict);
    size_t total = (pre + n + 1 + 63) / 64 * 64;
    uint8_t *b = calloc(1, total + data_len);
    memcpy(b, "\x93NUMPY", 6);
    b[6] = (uint8_t)v;
    size_t hlen = total - pre;
    for (size_t i = 0; i < pre - 8; i++)
        b[8 + i] = (uint8_t)(hlen >> (8 * i));
    memcpy(b + pre, dict, n);
    memset(b + pre + n, ' ', total - pre - n - 1);
    b[total - 1] = '\n';
    *len = total + data_len;
    return b;
}

/* A safetensors file: the 8-byte length, the header, data_len zero bytes. */
static uint8_t *st(const char *header, size_t data_len, size_t *len)
{
    size_t n = strlen(header);
    uint8_t *b = calloc(1, 8 + n + data_len);
    for (int i = 0; i < 8; i++)
        b[i] = (uint8_t)((uint64_t)n >> (8 * i));
    memcpy(b + 8, header, n);
    *len = 8 + n + data_len;
    return b;
}

static int parse_npy(const char *dict, size_t data_len, struct tl_file *f, struct tl_error *err)
{
    size_t len;
    uint8_t *b = npy(1, dict, data_len, &len);
    int rc = tl_file_parse(b, len, f, err);
    free(b);
    return rc;
}

void npy_should_read_numpy_headers(void)
{
    struct tl_file f;
    struct tl_error err;
    CHECK(parse_npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", 24, &f, &err) == 0);
    CHECK(f.format == TL_FMT_NPY && f.count == 1 && f.tensors[0].name == NULL);
    const struct tl_desc *d = &f.tensors[0].desc;
    CHECK(d->dtype == TL_DT_FLOAT32 && d->rank == 2 && d->sizes[0] == 2 && d->sizes[1] == 3);
    CHECK(d->strides[0] == 3 && d->strides[1] == 1 && d->byte_offset == 0 && d->file_offset == 128);
    CHECK_EQ_U64(f.tensors[0].begin, 128);
    CHECK_EQ_U64(f.tensors[0].end, 152);
    tl_file_free(&f);
    /* any key order, double quotes, Fortran order, no trailing comma */
    CHECK(parse_npy("{\"shape\": (2,3,4), 'fortran_order': True, 'descr': '|u1'}", 24, &f, &err) == 0);
    d = &f.tensors[0].desc;
    CHECK(d->dtype == TL_DT_UINT8 && d->strides[0] == 1 && d->strides[1] == 2 && d->strides[2] == 6);
    tl_file_free(&f);
    /* 0-d: sizes {1}; a 1-tuple; every integer and float type */
    CHECK(parse_npy("{'descr': '<f8', 'fortran_order': False, 'shape': (), }", 8, &f, &err) == 0);
    CHECK(f.tensors[0].desc.rank == 1 && f.tensors[0].desc.sizes[0] == 1);
    tl_file_free(&f);
    static const struct { const char *descr; enum tl_dtype dt; } types[] = {
        { "<f2", TL_DT_FLOAT16 }, { "<f4", TL_DT_FLOAT32 }, { "<f8", TL_DT_FLOAT64 },
        { "|u1", TL_DT_UINT8 }, { "<u2", TL_DT_UINT16 }, { "<u4", TL_DT_UINT32 },
        { "<u8", TL_DT_UINT64 }, { "|i1", TL_DT_INT8 }, { "<i2", TL_DT_INT16 },
        { "<i4", TL_DT_INT32 }, { "<i8", TL_DT_INT64 }, { "=f4", TL_DT_FLOAT32 },
        { "<u1", TL_DT_UINT8 }, { "=i8", TL_DT_INT64 }, { "|b1", TL_DT_BOOL },
        { "?", TL_DT_BOOL },
    };
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
        char dict[128];
        snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': (5,), }",
                 types[i].descr);
        CHECK(parse_npy(dict, 40, &f, &err) == 0 && f.tensors[0].desc.dtype == types[i].dt);
        tl_file_free(&f);
    }
    /* versions 2.0 and 3.0 have a 4-byte header length */
    for (int v = 2; v <= 3; v++) {
        size_t len;
        uint8_t *b = npy(v, "{'descr': '<i2', 'fortran_order': False, 'shape': (3,), }", 6, &len);
        CHECK(tl_file_parse(b, len, &f, &err) == 0 && f.tensors[0].desc.file_offset == 128);
        tl_file_free(&f);
        free(b);
    }
}

void npy_should_reject_each_malformed_header(void)
{
    static const struct { const char *dict; const char *key; const char *msg; } bad[] = {
        { "{'descr': '>f4', 'fortran_order': False, 'shape': (2,), }", "descr", "big-endian" },
        { "{'descr': '<c8', 'fortran_order': False, 'shape': (2,), }", "descr", "complex" },
        { "{'descr': '<U3', 'fortran_order': False, 'shape': (2,), }", "descr", "string" },
        { "{'descr': '|O', 'fortran_order': False, 'shape': (2,), }", "descr", "object" },
        { "{'descr': '<M8[ns]', 'fortran_order': False, 'shape': (2,), }", "descr", "datetime" },
        { "{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (2,), }", "descr", "structured" },
        { "{'descr': '<f16', 'fortran_order': False, 'shape': (2,), }", "descr", "not supported" },
        { "{'descr': '|f4', 'fortran_order': False, 'shape': (2,), }", "descr", "not supported" },
        { "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 0), }", "shape[1]", "is 0" },
        { "{'descr': '<f4', 'fortran_order': False, 'shape': (1,1,1,1,1,1,1,1,1), }", "shape", "more than 8" },
        { "{'descr': '<f4', 'fortran_order': False, 'shape': (2), }", "shape", "tuple" },
        { "{'descr': '<f4', 'fortran_order': False, 'shape': [2], }", "shape", "tuple" },
        { "{'descr': '<f4', 'fortran_order': False, 'shape': (-2,), }", "shape", "dimension" },
        { "{'descr': '<f4', 'fortran_order': False, 'shape': (18446744073709551616,), }", "shape", "2^64" },
        { "{'descr': '<f4', 'fortran_order': 0, 'shape': (2,), }", "fortran_order", "True or False" },
        { "{'descr': '<f4', 'fortran_order': False}", "shape", "missing" },
        { "{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (2,)}", "descr", "twice" },
        { "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'x': 1}", "header", "unknown key" },
        { "{'descr': '<\\x66', 'fortran_order': False, 'shape': (2,), }", "header", "escapes" },
        { "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), } x", "header", "after the dictionary" },
        { "['descr']", "header", "dictionary" },
        { "{'descr': '<f4' 'fortran_order': False}", "header", "',' or '}'" },
        { "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }", "data", "shorter" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct tl_file f;
        struct tl_error err = { 0 };
        if (parse_npy(bad[i].dict, 8, &f, &err) == 0) {
            CHECK_STR(bad[i].dict, "(refused)");
            tl_file_free(&f);
            continue;
        }
        if (strcmp(err.key, bad[i].key) != 0 || !strstr(err.msg, bad[i].msg))
            fprintf(stderr, "case %zu: %s: %s\n", i, err.key, err.msg);
        CHECK_STR(err.key, bad[i].key);
        CHECK(strstr(err.msg, bad[i].msg) != NULL);
    }
    /* versions, a header longer than the file */
    struct tl_file f;
    struct tl_error err;
    size_t len;
    uint8_t *b = npy(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", 8, &len);
    b[6] = 4;
    CHECK(tl_file_parse(b, len, &f, &err) == TL_E_VALUE && strstr(err.msg, "4.0"));
    b[6] = 1;
    b[7] = 1;
    CHECK(tl_file_parse(b, len, &f, &err) == TL_E_VALUE);
    b[7] = 0;
    b[8] = 0xff;
    b[9] = 0xff;
    CHECK(tl_file_parse(b, len, &f, &err) == TL_E_RANGE && strstr(err.msg, "claims 65535"));
    free(b);
}

void npy_should_write_headers_that_read_back(void)
{
    struct tl_desc d;
    struct tl_error err;
    uint64_t sizes[4] = { 1, 3, 4, 5 };
    unsigned nhwc[4] = { 0, 2, 3, 1 };
    CHECK(tl_desc_init(&d, TL_DT_FLOAT16, 4, sizes, &err) == 0);
    CHECK(tl_strides_for_order(4, sizes, nhwc, 0, d.strides, &err) == 0);
    uint8_t hdr[4096];
    size_t hlen;
    CHECK(tl_npy_header(&d, hdr, sizeof hdr, &hlen, &err) == 0);
    CHECK_EQ_U64(hlen % 64, 0);
    static const char want[] = "{'descr': '<f2', 'fortran_order': False, 'shape': (1, 4, 5, 3), }";
    CHECK(memcmp(hdr + 10, want, sizeof want - 1) == 0);
    CHECK(hdr[hlen - 1] == '\n' && hdr[6] == 1 && hdr[7] == 0);
    /* it reads back as the destination's memory order */
    uint8_t *file = calloc(1, hlen + 120);
    memcpy(file, hdr, hlen);
    struct tl_file f;
    CHECK(tl_file_parse(file, hlen + 120, &f, &err) == 0);
    const struct tl_desc *r = &f.tensors[0].desc;
    CHECK(r->dtype == TL_DT_FLOAT16 && r->rank == 4 && r->sizes[1] == 4 && r->sizes[3] == 3);
    CHECK_EQ_U64(r->file_offset, hlen);
    CHECK_EQ_U64(r->byte_offset, 0);
    /* --axes NHWC gives the written description back */
    struct tl_desc back = *r;
    CHECK(tl_desc_assign_axes(&back, nhwc, &err) == 0);
    for (int i = 0; i < 4; i++)
        CHECK(back.sizes[i] == d.sizes[i] && back.strides[i] == d.strides[i]);
    tl_file_free(&f);
    free(file);
    /* a 1-d array is a 1-tuple */
    uint64_t n = 7;
    CHECK(tl_desc_init(&d, TL_DT_INT64, 1, &n, &err) == 0);
    CHECK(tl_npy_header(&d, hdr, sizeof hdr, &hlen, &err) == 0);
    CHECK(strstr((char *)hdr + 10, "'shape': (7,), }") != NULL);
    /* refused: BFLOAT16, padded, an offset */
    CHECK(tl_desc_init(&d, TL_DT_BFLOAT16, 1, &n, &err) == 0);
    CHECK(tl_npy_header(&d, hdr, sizeof hdr, &hlen, &err) == TL_E_VALUE);
    CHECK(tl_desc_init(&d, TL_DT_FLOAT32, 1, &n, &err) == 0);
    d.byte_offset = 16;
    CHECK(tl_npy_header(&d, hdr, sizeof hdr, &hlen, &err) == TL_E_VALUE);
    d.byte_offset = 0;
    d.strides[0] = 2;
    CHECK(tl_npy_header(&d, hdr, sizeof hdr, &hlen, &err) == TL_E_VALUE && strstr(err.msg, "padded"));
}

void safetensors_should_read_tensors_in_file_order(void)
{
    size_t len;
    uint8_t *b = st("{\"b\":{\"dtype\":\"F16\",\"shape\":[2],\"data_offsets\":[24,28]},"
                    "\"__metadata__\":{\"format\":\"pt\"},"
                    "\"a/x:0\":{\"dtype\":\"BF16\",\"shape\":[],\"data_offsets\":[28,30]},"
                    "\"w.0\":{\"dtype\":\"F32\",\"shape\":[2,3],\"data_offsets\":[0,24]}}  ",
                    30, &len);
    struct tl_file f;
    struct tl_error err;
    CHECK(tl_file_parse(b, len, &f, &err) == 0);
    CHECK(f.format == TL_FMT_SAFETENSORS && f.count == 3 && f.nproblems == 0 && f.nmeta == 1);
    CHECK_STR(f.tensors[0].name, "w.0");
    CHECK_STR(f.tensors[1].name, "b");
    CHECK_STR(f.tensors[2].name, "a/x:0");
    uint64_t start = len - 30;
    CHECK_EQ_U64(f.data_start, start);
    CHECK_EQ_U64(f.tensors[1].desc.file_offset, start + 24);
    CHECK(f.tensors[2].desc.dtype == TL_DT_BFLOAT16 && f.tensors[2].desc.sizes[0] == 1);
    CHECK(f.tensors[0].desc.strides[0] == 3);
    CHECK_STR(f.meta[0].key, "format");
    CHECK_STR(f.meta[0].value, "pt");
    CHECK(tl_file_find(&f, "a/x:0") == &f.tensors[2] && tl_file_find(&f, "a") == NULL);
    tl_file_free(&f);
    free(b);
}

void safetensors_should_reject_each_malformed_header(void)
{
    static const struct { const char *header; const char *key; const char *msg; } bad[] = {
        { "{\"t\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[8,0]}}", "tensor 't': data_offsets", "reversed" },
        { "{\"t\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,80]}}", "tensor 't': data_offsets", "outside the file" },
        { "{\"t\":{\"dtype\":\"F32\",\"shape\":[3],\"data_offsets\":[0,8]}}", "tensor 't': data_offsets", "need 12" },
        { "{\"t\":{\"dtype\":\"F32\",\"shape\":[1,1,1,1,1,1,1,1,2],\"data_offsets\":[0,8]}}", "tensor 't': shape", "9 dimensions" },
        { "{\"t\":{\"dtype\":\"F32\",\"shape\":[2]}}", "tensor 't': data_offsets", "missing" },
        /* a dtype the tool does not decode still has its size checked */
        { "{\"t\":{\"dtype\":\"BOOL\",\"shape\":[2],\"data_offsets\":[0,3]}}", "tensor 't': data_offsets", "need 2" },
        { "{\"t\":{\"dtype\":\"\",\"shape\":[2],\"data_offsets\":[0,3]}}", "tensor 't': dtype", "not a dtype" },
        { "{\"t\":{\"dtype\":7,\"shape\":[2],\"data_offsets\":[0,8]}}", "tensor 't': dtype", "string" },
        { "{\"t\":{\"dtype\":\"F32\",\"shape\":[2.5],\"data_offsets\":[0,8]}}", "tensor 't': shape[0]", "whole number" },
        { "{\"t\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,18446744073709551615]}}", "tensor 't': data_offsets[1]", "2^53" },
        { "{\"t\":{\"dtype\":\"F32\",\"shape\":[4294967296,4294967296],\"data_offsets\":[0,8]}}", "tensor 't': shape", "64 bits" },
        { "{\"t\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]},\"t\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}}", "tensor 't'", "twice" },
        { "{\"t\":[1]}", "tensor 't'", "object" },
        { "{\"__metadata__\":{\"a\":1}}", "__metadata__.a", "string" },
        { "{\"__metadata__\":[]}", "__metadata__", "object" },
        { "{\"t\":", "header", "malformed JSON" },
        { "{} x", "header", "text after" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        size_t len;
        uint8_t *b = st(bad[i].header, 16, &len);
        struct tl_file f;
        struct tl_error err = { 0 };
        int rc = tl_file_parse(b, len, &f, &err);
        if (rc == 0) {
            CHECK_STR(bad[i].header, "(refused)");
            tl_file_free(&f);
        } else {
            if (strcmp(err.key, bad[i].key) != 0 || !strstr(err.msg, bad[i].msg))
                fprintf(stderr, "case %zu: %s: %s\n", i, err.key, err.msg);
            CHECK_STR(err.key, bad[i].key);
            CHECK(strstr(err.msg, bad[i].msg) != NULL);
        }
        free(b);
    }
    /* lengths near 2^64, a header longer than the file or than 100 MiB */
    uint8_t b[16] = { 0xf8, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, '{', '}' };
    struct tl_file f;
    struct tl_error err;
    CHECK(tl_file_sniff(b, sizeof b) == TL_FMT_SAFETENSORS);
    CHECK(tl_file_parse(b, sizeof b, &f, &err) == TL_E_RANGE && strstr(err.msg, "100 MiB"));
    memset(b, 0, 8);
    b[0] = 9;
    CHECK(tl_file_parse(b, sizeof b, &f, &err) == TL_E_RANGE && strstr(err.msg, "claims 9"));
    /* a JSON description with eight characters before its brace stays JSON */
    CHECK(tl_file_sniff((const uint8_t *)"        {\"a\":1}", 15) == TL_FMT_JSON);
}

/* SPEC 15: the strongest bid wins.  A GGUF file whose tensor count starts
 * with '{' also matches safetensors' pattern, and loses to the magic
 * number; a zip whose first member is ARCHIVE/data.pkl is PyTorch's, not
 * an .npz.  Read as GGUF, its 123 tensors cannot fit in its 24 bytes. */
void sniff_should_take_the_strongest_bid(void)
{
    static const uint8_t gguf[24] = { 'G', 'G', 'U', 'F', 3, 0, 0, 0, '{', 0, 0, 0, 0, 0, 0, 0,
                                      2, 0, 0, 0, 0, 0, 0, 0 };
    CHECK(tl_file_sniff(gguf, sizeof gguf) == TL_FMT_GGUF);
    CHECK(tl_format_entry(TL_FMT_SAFETENSORS)->bid(gguf, sizeof gguf) > 0);
    struct tl_file f;
    struct tl_error err;
    CHECK(tl_file_parse(gguf, sizeof gguf, &f, &err) == TL_E_RANGE &&
          strstr(err.msg, "claims 123 tensors"));
    uint8_t zip[64] = { 'P', 'K', 3, 4, 20 };
    static const char name[] = "archive/data.pkl";
    zip[26] = sizeof name - 1;
    memcpy(zip + 30, name, sizeof name - 1);
    CHECK(tl_file_sniff(zip, sizeof zip) == TL_FMT_PYTORCH);
    CHECK(tl_file_sniff(zip, 30 + 4) == TL_FMT_NPZ);          /* the name cut: just a zip */
    memcpy(zip + 30, "archive/xdata.pkl", 17);                /* not a data.pkl of its own */
    zip[26] = 17;
    CHECK(tl_file_sniff(zip, sizeof zip) == TL_FMT_NPZ);
    memcpy(zip + 30, "arr_0.npy", 9);
    zip[26] = 9;
    CHECK(tl_file_sniff(zip, sizeof zip) == TL_FMT_NPZ);
    /* every entry: its own id, a unique name, a bid; JSON the fallback */
    for (size_t i = 0; i < TL_FMT_COUNT; i++) {
        const struct tl_format_entry *e = tl_format_at(i);
        CHECK(e && tl_format_entry(e->id) == e && e->bid && e->name && e->label && e->endings);
        for (size_t k = 0; k < i; k++)
            CHECK(strcmp(tl_format_at(k)->name, e->name) != 0 && tl_format_at(k)->id != e->id);
        /* list's own column and type column, as the table says them:
         * a column has its text and room for its header */
        CHECK(!e->column == !e->column_text);
        CHECK(!e->column || (int)strlen(e->column) <= e->column_width);
        CHECK(!e->type_header || (int)strlen(e->type_header) <= e->type_width);
    }
    /* the formats whose tensors list shows more than the common columns:
     * GGUF's ggml type and block, a checkpoint's storage, an .npz member's
     * encoding in --json */
    CHECK(tl_format_entry(TL_FMT_GGUF)->type_text && tl_format_entry(TL_FMT_GGUF)->column_text &&
          tl_format_entry(TL_FMT_GGUF)->json_keys);
    CHECK(tl_format_entry(TL_FMT_PYTORCH)->column_text && tl_format_entry(TL_FMT_PYTORCH)->json_keys);
    CHECK(tl_format_entry(TL_FMT_NPZ)->json_keys && !tl_format_entry(TL_FMT_NPZ)->column);
    CHECK(tl_format_at(TL_FMT_COUNT) == NULL);
    CHECK(tl_file_sniff((const uint8_t *)"", 0) == TL_FMT_JSON);
    char list[128];
    CHECK_STR(tl_format_list(list, sizeof list, " or "),
              ".npy, .npz, safetensors, .gguf, PyTorch or ONNX");
    /* a protocol buffer's first fields: an ONNX model's ir_version and the
     * start of its graph, cut by the sniffed head; a tensor's dims and
     * data_type; text and a varint that never ends are none */
    uint8_t model[TL_SNIFF_BYTES] = { 0x08, 0x08, 0x3a, 0xff, 0x10 };
    CHECK(tl_file_sniff(model, sizeof model) == TL_FMT_ONNX);
    static const uint8_t tensor[] = { 0x08, 0x02, 0x08, 0x03, 0x10, 0x01, 0x4a, 0x00 };
    CHECK(tl_file_sniff(tensor, sizeof tensor) == TL_FMT_ONNX);
    CHECK(tl_file_sniff((const uint8_t *)"\x08hello", 6) == TL_FMT_JSON);
    static const uint8_t endless[] = { 0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
                                       0xff, 0xff, 0xff };
    CHECK(tl_file_sniff(endless, sizeof endless) == TL_FMT_JSON);
}

void safetensors_should_report_overlaps_and_gaps(void)
{
    size_t len;
    uint8_t *b = st("{\"a\":{\"dtype\":\"U8\",\"shape\":[4],\"data_offsets\":[2,6]},"
                    "\"b\":{\"dtype\":\"U8\",\"shape\":[4],\"data_offsets\":[4,8]},"
                    "\"c\":{\"dtype\":\"U8\",\"shape\":[2],\"data_offsets\":[10,12]}}", 14, &len);
    struct tl_file f;
    struct tl_error err;
    CHECK(tl_file_parse(b, len, &f, &err) == 0);
    uint64_t s = f.data_start;
    CHECK_EQ_U64(f.nproblems, 4);
    if (f.nproblems == 4) {
        CHECK(f.problems[0].kind == TL_FP_GAP && f.problems[0].a == SIZE_MAX &&
              f.problems[0].from == s && f.problems[0].to == s + 2);
        CHECK(f.problems[1].kind == TL_FP_OVERLAP && f.problems[1].a == 0 && f.problems[1].b == 1 &&
              f.problems[1].from == s + 4 && f.problems[1].to == s + 6);
        CHECK(f.problems[2].kind == TL_FP_GAP && f.problems[2].from == s + 8 &&
              f.problems[2].to == s + 10);
        CHECK(f.problems[3].kind == TL_FP_GAP && f.problems[3].b == SIZE_MAX &&
              f.problems[3].from == s + 12 && f.problems[3].to == s + 14);
    }
    tl_file_free(&f);
    free(b);
}

void file_should_never_read_past_a_truncation(void)
{
    /* every prefix of a valid file, in a buffer of exactly that size (ASan
     * and valgrind catch a read past it): refused, never a crash */
    size_t len[2];
    uint8_t *files[2];
    files[0] = npy(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", 24, &len[0]);
    files[1] = st("{\"__metadata__\":{\"k\":\"v\"},"
                  "\"t\":{\"dtype\":\"F32\",\"shape\":[2,3],\"data_offsets\":[0,24]}}", 24, &len[1]);
    for (int k = 0; k < 2; k++) {
        for (size_t n = 0; n <= len[k]; n++) {
            uint8_t *cut = malloc(n ? n : 1);
            memcpy(cut, files[k], n);
            struct tl_file f;
            struct tl_error err;
            int rc = tl_file_parse(cut, n, &f, &err);
            if (n == len[k]) {
                CHECK(rc == 0);
                if (rc == 0)
                    tl_file_free(&f);
            } else if (rc == 0) {
                CHECK_EQ_U64(n, len[k]);     /* a prefix was accepted */
                tl_file_free(&f);
            }
            free(cut);
        }
        free(files[k]);
    }
}

void safetensors_should_list_tensors_it_cannot_decode(void)
{
    static const struct { const char *header, *dtype, *why; unsigned ndim; } cases[] = {
        { "{\"t\":{\"dtype\":\"F32\",\"shape\":[2,0],\"data_offsets\":[0,0]}}", "F32", "0 in its shape", 2 },
        { "{\"t\":{\"dtype\":\"F6_E3M2\",\"shape\":[4],\"data_offsets\":[0,3]}}", "F6_E3M2", "small float", 1 },
        { "{\"t\":{\"dtype\":\"C64\",\"shape\":[1],\"data_offsets\":[0,8]}}", "C64", "complex", 1 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t len;
        uint8_t *b = st(cases[i].header, 16, &len);
        struct tl_file f;
        struct tl_error err = { 0 };
        CHECK(tl_file_parse(b, len, &f, &err) == 0);
        if (f.count == 1) {
            const struct tl_file_tensor *t = &f.tensors[0];
            CHECK(!t->decodable && t->ndim == cases[i].ndim);
            CHECK_STR(t->dtype, cases[i].dtype);
            CHECK(tl_file_tensor_decodable(t, &err) == TL_E_VALUE &&
                  strstr(err.msg, cases[i].why) != NULL);
            tl_file_free(&f);
        }
        free(b);
    }
    /* a dtype that is not the format's is refused, as the reference reader
     * refuses it (issue 45: it was listed, exit 0) */
    size_t len;
    uint8_t *b = st("{\"t\":{\"dtype\":\"X9\",\"shape\":[3],\"data_offsets\":[0,5]}}", 16, &len);
    struct tl_file f;
    struct tl_error err = { 0 };
    CHECK(tl_file_parse(b, len, &f, &err) == TL_E_VALUE && strstr(err.msg, "'X9' is not supported") &&
          strstr(err.key, "dtype"));
    free(b);
}

/* An .npz of stored members made with the core's own zip writer (the
 * layout np.savez writes) reads back: names without ".npy", each tensor in
 * place; a member that is no .npy is listed, not decodable, and streams
 * back as its exact bytes; the archive cut anywhere is never read past. */
struct zip_buf {
    uint8_t b[4096];
    size_t n;
};

static void zip_add(struct zip_buf *z, struct tl_zip_entry *e, const char *name,
                    const uint8_t *data, size_t len)
{
    e->name = name;
    e->bytes = len;
    e->at = z->n;
    e->crc = 0;
    for (size_t i = 0; i < len; i++) {     /* CRC-32, bit by bit */
        e->crc ^= data[i];
        for (int k = 0; k < 8; k++)
            e->crc = (e->crc >> 1) ^ (0xEDB88320u & (0u - (e->crc & 1)));
    }
    e->crc = ~e->crc;
    z->n += tl_zip_local(name, z->b + z->n);
    memcpy(z->b + z->n, data, len);
    z->n += len;
    z->n += tl_zip_descriptor(e->crc, len, z->b + z->n);
}

static int count_bytes(void *ctx, const uint8_t *bytes, size_t n)
{
    (void)bytes;
    *(size_t *)ctx += n;
    return 0;
}

void npz_should_read_what_the_zip_writer_writes(void)
{
    struct tl_desc d;
    uint64_t sizes[2] = { 2, 3 };
    uint8_t npyb[256];
    size_t hlen;
    CHECK(tl_desc_init(&d, TL_DT_FLOAT32, 2, sizes, NULL) == 0);
    CHECK(tl_npy_header(&d, npyb, sizeof npyb, &hlen, NULL) == 0);
    for (int i = 0; i < 6; i++) {
        float v = (float)i;
        memcpy(npyb + hlen + 4 * i, &v, 4);
    }
    struct zip_buf z = { { 0 }, 0 };
    struct tl_zip_entry e[2];
    zip_add(&z, &e[0], "layer/w.npy", npyb, hlen + 24);
    zip_add(&z, &e[1], "notes.txt", (const uint8_t *)"hello", 5);
    uint8_t *dir;
    size_t dlen;
    CHECK(tl_zip_directory(e, 2, z.n, &dir, &dlen, NULL) == 0);
    memcpy(z.b + z.n, dir, dlen);
    z.n += dlen;
    free(dir);
    struct tl_file f;
    struct tl_error err;
    CHECK(tl_file_parse(z.b, z.n, &f, &err) == 0);
    CHECK(f.format == TL_FMT_NPZ && f.count == 2);
    if (f.count == 2) {
        const struct tl_file_tensor *w = tl_file_find(&f, "layer/w"), *t = tl_file_find(&f, "notes.txt");
        CHECK(w && w->decodable && w->encoding != TL_ENC_DEFLATE && w->desc.dtype == TL_DT_FLOAT32);
        uint8_t local[TL_ZIP_LOCAL_MAX];
        size_t ll = tl_zip_local("layer/w.npy", local);
        CHECK(w && w->stored_at == e[0].at + ll && w->desc.file_offset == e[0].at + ll + hlen);
        CHECK(t && !t->decodable && !t->wrapped && t->decoded_bytes == 5);
        size_t n = 0;
        CHECK(t && tl_file_decode(z.b, z.n, t, count_bytes, &n, &err) == 0 && n == 5);
        CHECK(t && tl_file_tensor_decodable(t, &err) == TL_E_VALUE && strstr(err.msg, "no .npy"));
    }
    tl_file_free(&f);
    /* the same archive cut anywhere is refused, never read past */
    for (size_t cut = 0; cut < z.n; cut += 7) {
        uint8_t *copy = malloc(cut ? cut : 1);
        memcpy(copy, z.b, cut);
        if (tl_file_parse(copy, cut, &f, &err) == 0)
            tl_file_free(&f);
        free(copy);
    }
}

/* A shard index: its weight map read, shards in order of first mention;
 * each malformed one refused with the key to blame; written back with a new
 * total_size, other metadata kept. */
void shard_index_should_read_and_write_back(void)
{
    static const char good[] = "{\"metadata\": {\"total_size\": 9, \"format\": \"pt\"}, "
                               "\"weight_map\": {\"a\": \"s1.safetensors\", \"b\": \"s2.safetensors\", "
                               "\"c\": \"s1.safetensors\"}}";
    struct tl_shard_index x;
    struct tl_error err;
    CHECK(tl_shard_index_looks(good, strlen(good)));
    CHECK(tl_shard_index_parse(good, strlen(good), &x, &err) == 0);
    CHECK(x.nshards == 2 && x.count == 3);
    if (x.nshards == 2 && x.count == 3) {
        CHECK_STR(x.shards[0], "s1.safetensors");
        CHECK_STR(x.names[2], "c");
        CHECK(x.shard[0] == 0 && x.shard[1] == 1 && x.shard[2] == 0);
    }
    tl_shard_index_free(&x);
    char *out = NULL;
    CHECK(tl_shard_index_write(good, strlen(good), 123456789012ull, &out, &err) == 0);
    CHECK(out && strstr(out, "123456789012") && strstr(out, "\"format\"") && strstr(out, "\"c\""));
    free(out);
    static const struct { const char *text, *key; } bad[] = {
        { "[]", "" },
        { "{\"metadata\": {}}", "weight_map" },
        { "{\"weight_map\": []}", "weight_map" },
        { "{\"weight_map\": {\"a\": 1}}", "weight_map.a" },
        { "{\"weight_map\": {\"a\": \"../s.safetensors\"}}", "weight_map.a" },
        { "{\"weight_map\": {\"a\": \"/s.safetensors\"}}", "weight_map.a" },
        { "{\"weight_map\": {\"a\": \"\"}}", "weight_map.a" },
        { "{\"weight_map\": {\"a\": \"s\", \"a\": \"t\"}}", "weight_map.a" },
        { "{\"weight_map\": {}, \"metadata\": 3}", "metadata" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        memset(&err, 0, sizeof err);
        CHECK(tl_shard_index_parse(bad[i].text, strlen(bad[i].text), &x, &err) != 0);
        CHECK_STR(err.key, bad[i].key);
    }
}

/* A model re-sharded: tensors in file order into shards of at most max
 * bytes (one larger than max alone), named as save_pretrained names them;
 * one shard alone takes the prefix's own name and no index; a model of no
 * tensor is one empty shard, whose header has no metadata to take. */
void reshard_should_place_and_name(void)
{
    struct tl_file_tensor t[4];
    memset(t, 0, sizeof t);
    static const char *const names[4] = { "a", "b", "big", "c" };
    static const uint64_t bytes[4] = { 40, 40, 200, 8 };
    for (int i = 0; i < 4; i++) {
        t[i].name = (char *)names[i];
        snprintf(t[i].dtype, sizeof t[i].dtype, "F32");
        t[i].desc.dtype = TL_DT_FLOAT32;
        t[i].ndim = 1;
        t[i].shape[0] = bytes[i] / 4;
        t[i].end = bytes[i];
    }
    struct tl_file f[2];
    memset(f, 0, sizeof f);
    f[0].tensors = t, f[0].count = 2;
    f[1].tensors = t + 2, f[1].count = 2;
    struct tl_reshard r;
    char name[300];
    CHECK(tl_reshard_plan(f, 2, 100, "model.safetensors.index.json", &r) == 0);
    CHECK(r.n == 4 && r.nout == 3 && r.total == 288);
    CHECK(r.at[0].out == 0 && r.at[1].out == 0 && r.at[2].out == 1 && r.at[3].out == 2);
    CHECK(r.at[2].file == 1 && r.at[2].tensor == 0);
    tl_reshard_name(&r, 1, name, sizeof name);
    CHECK_STR(name, "model-00002-of-00003.safetensors");
    tl_reshard_index_name(&r, name, sizeof name);
    CHECK_STR(name, "model.safetensors.index.json");
    uint8_t *h = NULL;
    size_t hlen = 0;
    uint64_t data = 0;
    struct tl_error err = { 0 };
    CHECK(tl_reshard_header(&r, f, 0, NULL, &h, &hlen, &data, &err) == 0);
    char *text = h ? strndup((const char *)h + 8, hlen - 8) : NULL;
    CHECK(data == 80 && hlen % 8 == 0 && text && strstr(text, "\"b\"") && !strstr(text, "big"));
    free(text);
    free(h);
    tl_reshard_free(&r);
    CHECK(tl_reshard_plan(f, 2, 1000, "pytorch_model.bin.index.json", &r) == 0);
    CHECK(r.nout == 1);
    tl_reshard_name(&r, 0, name, sizeof name);
    CHECK_STR(name, "pytorch_model.safetensors");
    tl_reshard_index_name(&r, name, sizeof name);
    CHECK_STR(name, "");
    tl_reshard_free(&r);
    f[0].count = f[1].count = 0;
    CHECK(tl_reshard_plan(f, 2, 100, "m.safetensors.index.json", &r) == 0);
    CHECK(r.n == 0 && r.nout == 1);
    h = NULL;
    CHECK(tl_reshard_header(&r, f, 0, NULL, &h, &hlen, &data, &err) == 0 && data == 0);
    free(h);
    tl_reshard_free(&r);
}

/* Shards against their index: each holds what the index gives it and
 * nothing else; shards a conversion wrote may lack the scales decoded and
 * hold MXFP4's W for W_blocks (SPEC 18, 23). */
void shards_should_match_their_index(void)
{
    static const char text[] = "{\"weight_map\": {\"a\": \"s1\", \"w_scale_inv\": \"s1\", "
                               "\"m_blocks\": \"s2\", \"m_scales\": \"s2\"}}";
    struct tl_shard_index x;
    struct tl_error err = { 0 };
    CHECK(tl_shard_index_parse(text, strlen(text), &x, &err) == 0);
    struct tl_file_tensor t[5];
    memset(t, 0, sizeof t);
    static const char *const names[5] = { "a", "w_scale_inv", "m_blocks", "m_scales", "m" };
    for (int i = 0; i < 5; i++)
        t[i].name = (char *)names[i];
    struct tl_file f[2];
    memset(f, 0, sizeof f);
    f[0].tensors = t, f[0].count = 2;       /* as read: every name where the index says */
    f[1].tensors = t + 2, f[1].count = 2;
    CHECK(tl_shards_check(&x, f, false, NULL, NULL, &err) == 0);
    f[0].count = 1;                         /* w_scale_inv missing */
    CHECK(tl_shards_check(&x, f, false, NULL, NULL, &err) == TL_E_VALUE);
    CHECK(strstr(err.msg, "'w_scale_inv' is in shard 's1'") != NULL);
    f[1].tensors = t + 4, f[1].count = 1;   /* as converted: m for m_blocks, no scales */
    CHECK(tl_shards_check(&x, f, true, NULL, NULL, &err) == 0);
    CHECK(tl_shards_check(&x, f, false, NULL, NULL, &err) == TL_E_VALUE);
    f[0].tensors = t + 4, f[0].count = 1;   /* m in the wrong shard, a nowhere */
    f[1].tensors = t, f[1].count = 1;
    CHECK(tl_shards_check(&x, f, true, NULL, NULL, &err) == TL_E_VALUE);
    tl_shard_index_free(&x);
}

/* A model folder's files by name; config.json without its
 * quantization_config; PyTorch shard and index names as safetensors. */
void model_folder_should_name_its_files(void)
{
    CHECK(tl_folder_file("model-00001-of-00002.safetensors") == TL_FOLDER_WEIGHTS);
    CHECK(tl_folder_file("pytorch_model.bin.index.json") == TL_FOLDER_WEIGHTS);
    CHECK(tl_folder_file("tokenizer.json") == TL_FOLDER_LOADER);
    CHECK(tl_folder_file("config.json") == TL_FOLDER_LOADER);
    CHECK(tl_folder_file("README.md") == TL_FOLDER_OTHER);
    static const char cfg[] = "{\"a\": 1, \"quantization_config\": {\"bits\": 4}, \"b\": [2]}";
    char *out = NULL;
    struct tl_error err = { 0 };
    CHECK(tl_config_unquantized(cfg, strlen(cfg), &out, &err) == 0);
    CHECK(out && !strstr(out, "quantization") && strstr(out, "\"b\"") &&
          out[strlen(out) - 1] == '\n');
    free(out);
    CHECK(tl_config_unquantized("[1]", 3, &out, &err) == TL_E_JSON && !out);
    char name[256];
    CHECK(tl_shard_safetensors_name("sub/pytorch_model-00001-of-00002.bin", name, sizeof name));
    CHECK_STR(name, "sub/model-00001-of-00002.safetensors");
    CHECK(!tl_shard_safetensors_name("model-00001-of-00002.safetensors", name, sizeof name));
    CHECK_STR(tl_index_safetensors_name("pytorch_model.bin.index.json", name, sizeof name),
              "model.safetensors.index.json");
    CHECK_STR(tl_index_safetensors_name("model.safetensors.index.json", name, sizeof name),
              "model.safetensors.index.json");
}
