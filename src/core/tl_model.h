/*
 * tl_model.h - model files as a caller sees them (model.c): a tensor file
 * read from bytes the caller holds, behind an opaque handle, its tensors'
 * values read in any layout and type, and a safetensors file written
 * through a sink the caller hands in.  Part of the library's public
 * interface (installed as <tensorlayout/tl_model.h>); the library opens no
 * file: the caller maps or reads it, and writes what the sink is given.
 *
 *     tl_model *m;
 *     struct tl_error err;
 *     if (tl_model_open(bytes, len, TL_MODEL_DEQUANTIZE, &m, &err))
 *         ... report err.key, err.msg ...
 *     for (size_t i = 0; i < tl_model_count(m); i++) {
 *         struct tl_desc d;
 *         if (tl_model_desc(m, i, &d, &err) == 0)
 *             ... tl_model_read(m, i, &where_you_want_it, buffer, &err) ...
 *     }
 *     tl_model_close(m);
 */
#ifndef TL_API_MODEL_H
#define TL_API_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tl_desc.h"

/* A tensor file of any format the library reads: safetensors, .npy,
 * .npz, GGUF, a PyTorch checkpoint (read without running it), a JSON
 * buffer map. */
typedef struct tl_model tl_model;

/* Scaled weights (FP8 W beside W_scale_inv, MXFP4 W_blocks beside
 * W_scales) are tensors W of FLOAT32, their scales not listed. */
#define TL_MODEL_DEQUANTIZE 1u

/* Reads the len bytes at bytes, which must stay as they are until
 * tl_model_close(): every header checked, nothing read past len.
 * @return 0 with *out, or a TL_E_* code with err filled. */
int tl_model_open(const void *bytes, uint64_t len, unsigned flags, tl_model **out,
                  struct tl_error *err);
void tl_model_close(tl_model *m);

/* The format's name ("safetensors", "npy", "npz", "gguf", "pytorch",
 * "json"). */
const char *tl_model_format(const tl_model *m);

/* Its tensors, in file order (values that are no tensor, such as a
 * checkpoint's step count, are not among them). */
size_t tl_model_count(const tl_model *m);
const char *tl_model_name(const tl_model *m, size_t i);

/* Tensor i's values as the library reads them: its data type and sizes
 * (logical order), packed, with fileOffset 0.  @return 0, or TL_E_VALUE
 * when the library cannot read its values (a type it does not decode, a 0
 * in its shape: err says which). */
int tl_model_desc(const tl_model *m, size_t i, struct tl_desc *d, struct tl_error *err);

/* Writes tensor i's values into out, laid out as dst describes (any
 * strides, any data type: each value converted as tl_convert_value()
 * does), decoding its encoding on the way (deflated, ggml blocks, scaled
 * pairs).  dst's sizes must be tl_model_desc()'s.  *clamped (when not
 * NULL) says whether some value did not fit dst's type and was clamped
 * as tl_convert_value() says.  @return 0, or a TL_E_* code with err
 * filled. */
int tl_model_read(const tl_model *m, size_t i, const struct tl_desc *dst, void *out,
                  bool *clamped, struct tl_error *err);

/* Where a writer puts its bytes, in order: write() returns 0, or non-zero
 * to stop the writer (it then returns TL_E_IO). */
struct tl_sink {
    int (*write)(void *ctx, const void *bytes, size_t n);
    void *ctx;
};

/* Writes a safetensors file of n tensors through sink: tensor k named
 * names[k], its values at values[k] as descs[k] describes them (any
 * layout; written packed in logical order, in descs[k]'s type), in the
 * order given; __metadata__ holds "format": "pt".  @return 0, or a TL_E_*
 * code with err filled (TL_E_IO when the sink stopped). */
int tl_write_safetensors(size_t n, const char *const *names, const struct tl_desc *descs,
                         const void *const *values, const struct tl_sink *sink,
                         struct tl_error *err);

#endif
