/*
 * convert_model.c - the library from a program of its own: converts a
 * model file into a safetensors file whose 4-D tensors are NHWC.
 *
 *   convert_model IN OUT.safetensors
 *
 * IN is any file the library reads (safetensors, .npy, .npz, GGUF, a
 * PyTorch checkpoint); scaled weights are decoded (FLOAT32), every other
 * tensor keeps its type, and each 4-D tensor [N, C, H, W] is written as
 * [N, H, W, C] (OIHW weights as OHWI).  Tensors the library cannot read
 * are skipped, each named on standard error.
 *
 * Built against the installed library:
 *   cc convert_model.c $(pkg-config --cflags --libs tensorlayout) -o convert_model
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tensorlayout/tensorlayout.h>

static int put(void *ctx, const void *bytes, size_t n)
{
    return fwrite(bytes, 1, n, ctx) != n;
}

/* The whole file at path, in memory. */
static unsigned char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    unsigned char *buf = NULL;
    size_t cap = 0;
    *len = 0;
    if (!f)
        return NULL;
    for (;;) {
        if (*len == cap) {
            unsigned char *more = realloc(buf, cap = cap ? 2 * cap : 1 << 20);
            if (!more)
                break;
            buf = more;
        }
        size_t got = fread(buf + *len, 1, cap - *len, f);
        *len += got;
        if (got == 0) {
            fclose(f);
            return buf;
        }
    }
    free(buf);
    fclose(f);
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: convert_model IN OUT.safetensors\n");
        return 2;
    }
    size_t len;
    unsigned char *bytes = slurp(argv[1], &len);
    if (!bytes) {
        fprintf(stderr, "convert_model: %s: %s\n", argv[1], strerror(errno));
        return 1;
    }
    struct tl_error err;
    tl_model *m;
    if (tl_model_open(bytes, len, TL_MODEL_DEQUANTIZE, &m, &err)) {
        fprintf(stderr, "convert_model: %s: %s%s%s\n", argv[1], err.key, *err.key ? ": " : "",
                err.msg);
        free(bytes);
        return 1;
    }
    size_t n = tl_model_count(m), kept = 0;
    const char **names = calloc(n + 1, sizeof *names);
    struct tl_desc *descs = calloc(n + 1, sizeof *descs);
    void **values = calloc(n + 1, sizeof *values);
    int status = names && descs && values ? 0 : 1;
    for (size_t i = 0; status == 0 && i < n; i++) {
        struct tl_desc d;
        if (tl_model_desc(m, i, &d, &err)) {
            fprintf(stderr, "convert_model: skipped '%s': %s\n", tl_model_name(m, i), err.msg);
            continue;
        }
        /* a 4-D tensor laid out NHWC: its sizes stay NCHW (logical), its
         * strides are those of the NHWC order */
        struct tl_desc to = d;
        if (d.rank == 4) {
            unsigned order[4];
            if (tl_layout_parse(4, "NHWC", order, &err) ||
                tl_strides_for_order(4, d.sizes, order, 0, to.strides, &err) ||
                tl_desc_validate(&to, &err)) {
                status = 1;
                break;
            }
            to.strides_src = TL_STRIDES_GIVEN;
        }
        struct tl_info info;
        tl_desc_classify(&to, &info);
        void *buf = malloc(info.elements_bytes ? (size_t)info.elements_bytes : 1);
        if (!buf || tl_model_read(m, i, &to, buf, NULL, &err)) {
            fprintf(stderr, "convert_model: '%s': %s\n", tl_model_name(m, i),
                    buf ? err.msg : "out of memory");
            free(buf);
            status = 1;
            break;
        }
        /* written as the file shows it: the NHWC order's sizes, packed */
        if (d.rank == 4) {
            uint64_t s[4] = { d.sizes[0], d.sizes[2], d.sizes[3], d.sizes[1] };
            if (tl_desc_init(&to, d.dtype, 4, s, &err)) {
                free(buf);
                status = 1;
                break;
            }
        }
        names[kept] = tl_model_name(m, i);
        descs[kept] = to;
        values[kept++] = buf;
    }
    FILE *out = status == 0 ? fopen(argv[2], "wb") : NULL;
    if (status == 0 && !out) {
        fprintf(stderr, "convert_model: %s: %s\n", argv[2], strerror(errno));
        status = 1;
    }
    if (out) {
        struct tl_sink sink = { put, out };
        if (tl_write_safetensors(kept, names, descs, (const void *const *)values, &sink, &err)) {
            fprintf(stderr, "convert_model: %s: %s\n", argv[2], err.msg);
            status = 1;
        }
        if (fclose(out) != 0 && status == 0) {
            fprintf(stderr, "convert_model: %s: %s\n", argv[2], strerror(errno));
            status = 1;
        }
        if (status)
            remove(argv[2]);
    }
    for (size_t i = 0; i < kept; i++)
        free(values[i]);
    free(values);
    free(descs);
    free(names);
    tl_model_close(m);
    free(bytes);
    return status;
}
