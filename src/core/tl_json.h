/*
 * tl_json.h - descriptions as cJSON objects (desc_json.c): the command
 * line's and the writers' JSON, not part of the installed interface (it
 * would tie a caller to cJSON).
 */
#ifndef TL_JSON_H
#define TL_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tl_desc.h"

/* The description as a JSON object (cJSON), as other commands read it back:
 * dataType, sizes, strides, and byteOffset, guaranteedBaseOffsetAlignment,
 * flags when not 0, totalTensorSizeInBytes when total_given.  Every integer
 * is written exactly (as raw text, never through a double).  Strides above
 * 2^53, which a description may not hold, are written as the "layout" (and
 * "broadcast") they are packed for.
 * @return the object, or NULL when out of memory.  The caller frees it. */
struct cJSON;
struct cJSON *tl_desc_to_json(const struct tl_desc *d);

/* Adds a uint64 (or an array of them) to a cJSON object, exactly.
 * @return false when out of memory. */
bool tl_json_add_u64(struct cJSON *obj, const char *key, uint64_t v);
bool tl_json_add_u64_array(struct cJSON *obj, const char *key, const uint64_t *v, size_t n);

#endif
