/*
 * gguf.c - llama.cpp's GGUF model files (SPEC section 16).  Recognized by
 * their magic number; not read yet.
 */
#include <string.h>

#include "internal.h"
#include "tl.h"

/* "GGUF", then the version: certain, whatever the bytes after it are (a
 * tensor count whose low byte is '{' does not make it safetensors). */
static unsigned gguf_bid(const uint8_t *head, size_t n)
{
    return n >= 4 && memcmp(head, "GGUF", 4) == 0 ? TL_BID_CERTAIN : 0;
}

const struct tl_format_entry tl_format_gguf = {
    .id = TL_FMT_GGUF, .name = "gguf", .label = ".gguf", .title = "a GGUF file (llama.cpp)",
    .endings = ".gguf", .bid = gguf_bid, .spelling = TL_SPELL_NAME,
};
