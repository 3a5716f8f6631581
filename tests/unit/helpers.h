/* helpers.h - building descriptions in tests. */
#ifndef TL_TEST_HELPERS_H
#define TL_TEST_HELPERS_H

#include <string.h>

#include "../../src/core/tl.h"

/* A validated description from JSON text; aborts the check on failure. */
static inline int parse(const char *json, struct tl_desc *d, struct tl_error *err)
{
    return tl_desc_parse_json(json, strlen(json), d, err);
}

/* A description from arrays, validated and classified. */
static inline int make(struct tl_desc *d, struct tl_info *in, enum tl_dtype dt, unsigned rank,
                       const uint64_t *sizes, const uint64_t *strides)
{
    memset(d, 0, sizeof *d);
    d->dtype = dt;
    d->rank = rank;
    d->strides_src = TL_STRIDES_GIVEN;
    memcpy(d->sizes, sizes, rank * sizeof *sizes);
    memcpy(d->strides, strides, rank * sizeof *strides);
    int rc = tl_desc_validate(d, NULL);
    if (rc == 0)
        tl_desc_classify(d, in);
    return rc;
}

#endif
