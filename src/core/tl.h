/*
 * tl.h - the tensorlayout core library: tensor descriptions and their terms.
 *
 * A tensor lives in a flat buffer and is described the way DirectML describes
 * it: a data type, sizes (logical dimensions, outermost first) and strides (how
 * many elements to step to reach the next element along each dimension).
 * This header is the whole public interface of the core, by module:
 * tl_types.h (types, limits, errors), tl_desc.h (descriptions, terms,
 * elements, DirectML's problems), tl_file.h (tensor files, formats,
 * encodings), tl_copy.h (conversion, copies, calibration) and tl_compare.h
 * (comparison); a caller may include only the modules it uses.  The core never
 * prints, never exits and never opens a file: it takes bytes and lengths,
 * returns 0 or a TL_E_* code, and explains a failure in a caller-owned
 * struct tl_error.
 *
 * Calling sequence, for a description held in memory:
 *
 *     struct tl_desc d;
 *     struct tl_error err;
 *     if (tl_desc_parse_json(text, len, &d, &err))
 *         ... report err.key, err.line, err.col, err.msg ...
 *     struct tl_info info;
 *     tl_desc_classify(&d, &info);         // terms of SPEC section 2
 *     struct tl_problem p[TL_MAX_PROBLEMS];
 *     size_t np = tl_desc_problems(&d, &info, data_size_or_TL_NO_DATA, p);
 *
 * Every size, stride, span and offset is a uint64_t.  All arithmetic that
 * derives one from another is overflow-checked when the description is
 * validated, so once tl_desc_validate() has returned 0 the derived terms of
 * that description fit in 64 bits and the functions below may compute them
 * without further checks.
 */
#ifndef TL_H
#define TL_H

#include "tl_types.h"
#include "tl_desc.h"
#include "tl_json.h"
#include "tl_file.h"
#include "tl_copy.h"
#include "tl_calib.h"
#include "tl_compare.h"

#endif
