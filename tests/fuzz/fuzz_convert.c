/*
 * fuzz_convert.c - libFuzzer over whole-file conversion as the command runs
 * it: the input is a tensor file; `convert FILE --to-type FLOAT64 -o
 * OUT.safetensors` runs on it, and when it succeeds OUT must read back with
 * the same names and the same values: each floating tensor widened exactly,
 * every other tensor byte for byte.  Crashes, sanitizer reports and hangs
 * are findings too; a refused input is not.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../src/cli/cli.h"

#define CHECK(c) do { if (!(c)) { fprintf(stderr, "invariant failed: %s\n", #c); abort(); } } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char in_path[64], out_path[64];

/* The two files every input reuses, removed when the fuzzer ends. */
static void remove_files(void)
{
    unlink(in_path);
    unlink(out_path);
}

static uint8_t *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *p = malloc(len > 0 ? (size_t)len : 1);
    if (p && len > 0 && fread(p, 1, (size_t)len, f) != (size_t)len) {
        free(p);
        p = NULL;
    }
    fclose(f);
    *n = len > 0 ? (size_t)len : 0;
    return p;
}

/* The tensor a, element i, as a double (exactly, for the floating types);
 * an element narrower than a byte moved to its byte's low bits first. */
static double value(const struct tl_file_tensor *t, const uint8_t *file, uint64_t i)
{
    double v;
    uint64_t idx[TL_MAX_RANK];
    unsigned bit;
    tl_unravel(&t->desc, i, idx);
    uint64_t at = tl_desc_byte(&t->desc, tl_desc_elem(&t->desc, idx), &bit);
    uint8_t low = (uint8_t)(file[at] >> bit);
    tl_convert_value(t->desc.dtype, bit ? &low : file + at, TL_DT_FLOAT64, &v);
    return v;
}

/* A stored tensor's decoded bytes (an ONNX int32_data's varints), gathered. */
struct gathered {
    uint8_t *p;
    size_t n, cap;
};

static int gather(void *ctx, const uint8_t *bytes, size_t n)
{
    struct gathered *g = ctx;
    if (g->n + n > g->cap) {
        size_t cap = (g->n + n) * 2;
        uint8_t *more = realloc(g->p, cap);
        if (!more)
            abort();
        g->p = more;
        g->cap = cap;
    }
    memcpy(g->p + g->n, bytes, n);
    g->n += n;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!in_path[0]) {
        /* in memory when the system has a tmpfs there: no disk per input */
        const char *dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
        snprintf(in_path, sizeof in_path, "%s/tl-fuzz-%d.safetensors", dir, (int)getpid());
        snprintf(out_path, sizeof out_path, "%s/tl-fuzz-%d.out.safetensors", dir, (int)getpid());
        atexit(remove_files);
        if (!freopen("/dev/null", "w", stdout))   /* run with -close_fd_mask=2 too */
            abort();
    }
    FILE *f = fopen(in_path, "wb");
    if (!f || (size && fwrite(data, 1, size, f) != size))
        abort();
    fclose(f);
    unlink(out_path);
    char *argv[] = { "convert", in_path, "--to-type", "FLOAT64", "-o", out_path, NULL };
    if (cmd_convert(6, argv) != CLI_OK)
        return 0;
    size_t nout = 0;
    uint8_t *out = slurp(out_path, &nout);
    CHECK(out != NULL);
    struct tl_file a, b;
    CHECK(tl_file_parse(data, size, &a, NULL) == 0);
    CHECK(tl_file_parse(out, nout, &b, NULL) == 0);
    struct tl_scaled *pairs = NULL;
    size_t np = 0;
    if (tl_scaled_find(&a, &pairs, &np, NULL) == 0 && np) {
        /* scaled and group-quantized weights decoded (SPEC 18, 21): each
         * under its own name, its parts gone */
        for (size_t k = 0; k < np; k++)
            CHECK(tl_file_find(&b, pairs[k].name) != NULL &&
                  tl_file_find(&b, pairs[k].name)->desc.dtype == TL_DT_FLOAT64);
        free(pairs);
        tl_file_free(&a);
        tl_file_free(&b);
        free(out);
        return 0;
    }
    free(pairs);
    CHECK(b.format == TL_FMT_SAFETENSORS && b.count == a.count && b.nproblems == 0);
    /* the source's metadata as it was, after "format": "pt" where it names
     * no format (SPEC 23: every safetensors file written says one) */
    bool named = false;
    for (size_t i = 0; i < a.nmeta; i++)
        named |= strcmp(a.meta[i].key, "format") == 0;
    CHECK(b.nmeta == a.nmeta + !named);
    CHECK(named || (strcmp(b.meta[0].key, "format") == 0 && strcmp(b.meta[0].value, "pt") == 0));
    for (size_t i = 0; i < a.nmeta; i++)
        CHECK(strcmp(b.meta[i + !named].key, a.meta[i].key) == 0 &&
              strcmp(b.meta[i + !named].value, a.meta[i].value) == 0);
    for (size_t i = 0; i < a.count; i++) {
        /* a tensor without a name (a bare ONNX TensorProto) is written as
         * "tensor", as convert names a lone unnamed tensor */
        const struct tl_file_tensor *s = &a.tensors[i],
                                    *d = tl_file_find(&b, s->name ? s->name : "tensor");
        CHECK(d != NULL && d->decodable == s->decodable);
        /* a floating tensor widened; so is one of a type safetensors has
         * no dtype for (UINT4), which must take the type asked for */
        bool widened = s->decodable && (tl_dtype_is_float(s->desc.dtype) ||
                                        d->desc.dtype != s->desc.dtype);
        if (!widened) {                 /* as it was, byte for byte */
            CHECK(d->end - d->begin == s->end - s->begin);
            CHECK(memcmp(out + d->begin, data + s->begin, (size_t)(s->end - s->begin)) == 0);
            continue;
        }
        struct tl_info si;
        tl_desc_classify(&s->desc, &si);
        CHECK(d->desc.dtype == TL_DT_FLOAT64 && d->desc.rank == s->desc.rank);
        struct gathered g = { NULL, 0, 0 };     /* a stored tensor: its decoded bytes */
        CHECK(s->encoding == TL_ENC_PLAIN || tl_file_decode(data, size, s, gather, &g, NULL) == 0);
        for (uint64_t k = 0; k < si.element_count && k < 4096; k++) {
            double x = value(s, s->encoding == TL_ENC_PLAIN ? data : g.p, k), y = value(d, out, k);
            CHECK(x == y || (x != x && y != y));
        }
        free(g.p);
    }
    tl_file_free(&a);
    tl_file_free(&b);
    free(out);
    return 0;
}
