/*
 * tensorlayout.h - the tensorlayout library's public interface, installed
 * as <tensorlayout/tensorlayout.h> (with pkg-config's tensorlayout.pc):
 *
 *   tl_types.h    data types, limits, errors (struct tl_error)
 *   tl_desc.h     DirectML-style descriptions: terms, elements, problems
 *   tl_copy.h     conversions and strided copies, planned once, on the
 *                 CPU's best kernels
 *   tl_compare.h  comparing two tensors value by value
 *   tl_model.h    model files read from memory (opaque handles), their
 *                 tensors read in any layout, safetensors written to a sink
 *
 * The library never prints, never exits, reads no environment and opens
 * no file: it takes bytes and lengths, returns 0 or a TL_E_* code, and
 * explains a failure in a caller-owned struct tl_error.
 */
#ifndef TENSORLAYOUT_H
#define TENSORLAYOUT_H

#define TENSORLAYOUT_VERSION "1.0.0"

#include "tl_types.h"
#include "tl_desc.h"
#include "tl_copy.h"
#include "tl_compare.h"
#include "tl_model.h"

#endif
