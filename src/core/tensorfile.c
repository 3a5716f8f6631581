/*
 * tensorfile.c - the tensor files people have, told apart by their first
 * bytes: numpy's .npy (npy.c) and safetensors (safetensors.c).  This file
 * sniffs a file's format, hands it to that format's reader (npz.c for
 * numpy's .npz archives), and keeps the
 * tensor table every reader fills (struct tl_file in tl.h): each tensor's
 * name, its type as the file spells it, its bytes, and whether the tool
 * can decode it.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "tl.h"

const char *tl_format_name(enum tl_format f)
{
    switch (f) {
    case TL_FMT_NPY:         return "npy";
    case TL_FMT_SAFETENSORS: return "safetensors";
    case TL_FMT_NPZ:         return "npz";
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
    if (n >= 4 && head[0] == 'P' && head[1] == 'K' &&
        ((head[2] == 3 && head[3] == 4) || (head[2] == 5 && head[3] == 6)))
        return TL_FMT_NPZ;
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

bool tl_path_escapes(const char *path)
{
    if (path[0] == '/' || path[0] == '\\' || (path[0] && path[1] == ':'))
        return true;
    for (const char *p = path; *p;) {
        size_t n = strcspn(p, "/\\");
        if (n == 2 && p[0] == '.' && p[1] == '.')
            return true;
        p += n;
        if (*p)
            p++;
    }
    return false;
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
    else if (f->format == TL_FMT_NPZ)
        rc = tl_npz_parse(bytes, len, f, err);
    else
        rc = tl_fail(err, TL_E_VALUE, NULL, "not a .npy, .npz or safetensors file");
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

/* ---- the tensor table's order -------------------------------------------- */

static int by_begin(const void *a, const void *b)
{
    const struct tl_file_tensor *x = a, *y = b;
    if (x->begin != y->begin)
        return x->begin < y->begin ? -1 : 1;
    return x->order < y->order ? -1 : x->order > y->order;
}

static void add_problem(struct tl_file *f, enum tl_file_problem_kind kind, size_t a, size_t b,
                        uint64_t from, uint64_t to)
{
    struct tl_file_problem *p = &f->problems[f->nproblems++];
    p->kind = kind;
    p->a = a;
    p->b = b;
    p->from = from;
    p->to = to;
}

int tl_file_order(struct tl_file *f, uint64_t len)
{
    qsort(f->tensors, f->count, sizeof *f->tensors, by_begin);
    free(f->problems);
    f->nproblems = 0;
    f->problems = calloc(f->count + 1, sizeof *f->problems);
    if (!f->problems)
        return TL_E_NOMEM;
    uint64_t reach = f->data_start;
    size_t reacher = SIZE_MAX;
    for (size_t i = 0; i < f->count; i++) {
        const struct tl_file_tensor *t = &f->tensors[i];
        if (t->begin < reach && t->end > t->begin)     /* an empty tensor shares nothing */
            add_problem(f, TL_FP_OVERLAP, reacher, i, t->begin, t->end < reach ? t->end : reach);
        else if (t->begin > reach)
            add_problem(f, TL_FP_GAP, reacher, i, reach, t->begin);
        if (t->end > reach) {
            reach = t->end;
            reacher = i;
        }
    }
    if (len != TL_NO_DATA && reach < len)
        add_problem(f, TL_FP_GAP, reacher, SIZE_MAX, reach, len);
    return 0;
}

int tl_file_tensor_decodable(const struct tl_file_tensor *t, struct tl_error *err)
{
    char key[128], q[64], list[160];
    if (t->decodable)
        return 0;
    snprintf(key, sizeof key, "tensor '%s'", t->name ? tl_quote(t->name, q, sizeof q) : "");
    for (unsigned i = 0; i < t->ndim; i++) {
        if (t->shape[i] == 0)
            return tl_fail(err, TL_E_VALUE, key, "has a 0 in its shape: no elements to read "
                           "(list shows it, and a whole-file convert carries it)");
    }
    const char *d = t->dtype;
    if (!d[0])
        return tl_fail(err, TL_E_VALUE, key, "is an .npz member that holds no .npy array "
                       "(list shows it, and a whole-file convert into .npz carries it)");
    if (strchr("<>|=", d[0])) {          /* an .npz member's .npy type */
        enum tl_dtype dt;
        tl_npy_dtype(d, &dt, err);
        snprintf(key + strlen(key), sizeof key - strlen(key), ": descr");
        tl_error_key(err, key);
        return TL_E_VALUE;
    }
    const char *what = strcmp(d, "BOOL") == 0 ? "bool "
                     : strncmp(d, "F8", 2) == 0 || strncmp(d, "F4", 2) == 0 ||
                       strncmp(d, "F6", 2) == 0 ? "small float "
                     : d[0] == 'C' ? "complex " : "";
    snprintf(key + strlen(key), sizeof key - strlen(key), ": dtype");
    return tl_fail(err, TL_E_VALUE, key, "%sdata type '%s' is not supported (supported: %s)",
                   what, tl_quote(d, q, sizeof q),
                   tl_dtype_list(TL_SPELL_SAFETENSORS, list, sizeof list));
}
