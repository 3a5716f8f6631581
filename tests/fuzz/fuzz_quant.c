/*
 * fuzz_quant.c - libFuzzer over the reader of config.json's
 * quantization_config (SPEC 21, tl_quant_parse): arbitrary bytes as the
 * file's text.  A config read is then used as a compressed-tensors
 * model's is: its groups' targets and its ignore list (names, re:
 * patterns, class names) matched against the modules of a small table.
 * Beyond "no crash, no hang, no sanitizer report": a refused config says
 * which key, and a config read names a method.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/core/internal.h"
#include "../../src/core/tl.h"

#define CHECK(c) do { if (!(c)) { fprintf(stderr, "invariant failed: %s\n", #c); abort(); } } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A table of two pack-quantized modules (no bytes: finding reads none). */
static void row(struct tl_file_tensor *t, const char *name, enum tl_dtype dt, uint64_t a,
                uint64_t b)
{
    memset(t, 0, sizeof *t);
    t->name = (char *)name;
    t->decodable = true;
    t->encoding = TL_ENC_PLAIN;
    t->ndim = b ? 2 : 1;
    t->shape[0] = a;
    t->shape[1] = b;
    t->desc.dtype = dt;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct tl_quant q;
    struct tl_error err = { 0 };
    if (tl_quant_parse((const char *)data, size, &q, &err) != 0) {
        CHECK(err.code == TL_E_VALUE || err.code == TL_E_NOMEM);
        CHECK(err.msg[0] != '\0');
        return 0;
    }
    CHECK(q.method >= TL_QUANT_AUTO && q.method <= TL_QUANT_CT);
    static const char *const names[] = {
        "model.layers.0.mlp.down_proj.weight_packed", "model.layers.0.mlp.down_proj.weight_scale",
        "model.layers.0.mlp.down_proj.weight_shape", "lm_head.weight_packed",
        "lm_head.weight_scale", "lm_head.weight_shape",
    };
    struct tl_file_tensor t[6];
    for (int k = 0; k < 6; k += 3) {
        row(&t[k], names[k], TL_DT_INT32, 64, 8);
        row(&t[k + 1], names[k + 1], TL_DT_BFLOAT16, 64, 2);
        row(&t[k + 2], names[k + 2], TL_DT_INT64, 2, 0);
    }
    struct tl_file f = { 0 };
    f.named = true;
    f.count = 6;
    f.tensors = t;
    f.quant = &q;
    struct tl_scaled *pairs = NULL;
    size_t n = 0;
    if (tl_scaled_find(&f, &pairs, &n, &err) == 0) {
        CHECK(n <= 2);
        for (size_t k = 0; k < n; k++)
            CHECK(pairs[k].kind == TL_SCALED_PACKED && pairs[k].out == 64 &&
                  (pairs[k].bits == 4 || pairs[k].bits == 8));
    }
    free(pairs);
    tl_quant_free(&q);
    return 0;
}
