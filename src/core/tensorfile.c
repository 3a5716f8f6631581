/*
 * tensorfile.c - the tensor files people have, told apart by their first
 * bytes: numpy's .npy (npy.c) and safetensors (safetensors.c).  This file
 * sniffs a file's format, hands it to that format's reader, and keeps the
 * tensor table every reader fills (struct tl_file in tl.h): each tensor's
 * name, its type as the file spells it, its bytes, and whether the tool
 * can decode it.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "tl.h"

const char *tl_format_name(enum tl_format f)
{
    switch (f) {
    case TL_FMT_NPY:         return "npy";
    case TL_FMT_SAFETENSORS: return "safetensors";
    default:                 return "json";
    }
}

/* Whether a byte may stand in the text of a JSON description. */
static bool texty(uint8_t c)
{
    return (c >= 0x20 && c < 0x7f) || c == '\t' || c == '\n' || c == '\r';
}

enum tl_format tl_file_sniff(const uint8_t *head, size_t n)
{
    if (n >= sizeof tl_npy_magic && memcmp(head, tl_npy_magic, sizeof tl_npy_magic) == 0)
        return TL_FMT_NPY;
    if (n >= 9 && head[8] == '{') {
        /* a header length is binary: some byte of it is not text (a JSON
         * description never holds such a byte) */
        for (int i = 0; i < 8; i++) {
            if (!texty(head[i]))
                return TL_FMT_SAFETENSORS;
        }
    }
    return TL_FMT_JSON;
}

/* ---- the file ------------------------------------------------------------ */

int tl_file_parse(const uint8_t *bytes, uint64_t len, struct tl_file *f, struct tl_error *err)
{
    memset(f, 0, sizeof *f);
    f->format = tl_file_sniff(bytes, len < 16 ? (size_t)len : 16);
    int rc;
    if (f->format == TL_FMT_NPY)
        rc = tl_npy_parse(bytes, len, f, err);
    else if (f->format == TL_FMT_SAFETENSORS)
        rc = tl_safetensors_parse(bytes, len, f, err);
    else
        rc = tl_fail(err, TL_E_VALUE, NULL, "not a .npy or safetensors file");
    if (rc)
        tl_file_free(f);
    return rc;
}

void tl_file_free(struct tl_file *f)
{
    for (size_t i = 0; i < f->count; i++)
        free(f->tensors[i].name);
    for (size_t i = 0; i < f->nmeta; i++) {
        free(f->meta[i].key);
        free(f->meta[i].value);
    }
    free(f->tensors);
    free(f->meta);
    free(f->problems);
    memset(f, 0, sizeof *f);
}

const struct tl_file_tensor *tl_file_find(const struct tl_file *f, const char *name)
{
    for (size_t i = 0; i < f->count; i++) {
        if (f->tensors[i].name && strcmp(f->tensors[i].name, name) == 0)
            return &f->tensors[i];
    }
    return NULL;
}
