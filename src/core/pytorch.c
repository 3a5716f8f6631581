/*
 * pytorch.c - the zip checkpoints torch.save writes (PyTorch 1.6 and later:
 * ARCHIVE/data.pkl first, then ARCHIVE/data/N; SPEC section 17).
 * Recognized by their first member's name; not read yet.
 */
#include <string.h>

#include "internal.h"
#include "tl.h"

/* A zip whose first member is ARCHIVE/data.pkl: surer than a zip of
 * anything (.npz). */
static unsigned pytorch_bid(const uint8_t *head, size_t n)
{
    static const char pkl[] = "data.pkl";
    if (n < 30 || !tl_zip_head(head, n) || head[2] != 3)
        return 0;
    size_t len = (size_t)head[26] | (size_t)head[27] << 8, k = sizeof pkl - 1;
    if (len < k || 30 + len > n)
        return 0;
    const uint8_t *name = head + 30;
    if (memcmp(name + len - k, pkl, k) != 0 || (len > k && name[len - k - 1] != '/'))
        return 0;
    return 90;
}

const struct tl_format_entry tl_format_pytorch = {
    .id = TL_FMT_PYTORCH, .name = "pytorch", .label = "PyTorch",
    .title = "a PyTorch checkpoint (torch.save)", .endings = ".pt .pth .bin",
    .bid = pytorch_bid, .spelling = TL_SPELL_NAME,
};
