/*
 * tensorfile.c - the tensor table every format's reader fills (struct
 * tl_file in tl.h): each tensor's name, its type as the file spells it, its
 * bytes, and whether the tool can decode it; its order in the file and what
 * lies between the tensors.  Which format a file is, and which reader reads
 * it, is format.c's.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "tl.h"

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

int tl_file_listed(struct tl_file_tensor *t, const char *what, unsigned rank,
                   const uint64_t *sizes, struct tl_error *err)
{
    char text[160];
    size_t n = (size_t)snprintf(text, sizeof text, "a %s tensor of shape (", what);
    for (unsigned k = 0; k < rank && n < sizeof text; k++)
        n += (size_t)snprintf(text + n, sizeof text - n, "%s%" PRIu64, k ? ", " : "", sizes[k]);
    if (n < sizeof text)
        snprintf(text + n, sizeof text - n, "%s)", rank == 1 ? "," : "");
    t->undecoded = true;
    t->ndim = rank;
    memcpy(t->shape, sizes, rank * sizeof sizes[0]);
    return (t->leaf = strdup(text)) ? 0 : tl_fail(err, TL_E_NOMEM, NULL, "out of memory");
}

/* ---- the file ------------------------------------------------------------ */

void tl_file_free(struct tl_file *f)
{
    for (size_t i = 0; i < f->count; i++) {
        free(f->tensors[i].name);
        free(f->tensors[i].leaf);
        free(f->tensors[i].elsewhere);
    }
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

static int by_name(const void *a, const void *b)
{
    return strcmp(**(const char *const *const *)a, **(const char *const *const *)b);
}

bool tl_name_ends(const char *name, const char *suffix, size_t *stem)
{
    size_t n = strlen(name), k = strlen(suffix);
    if (stem)
        *stem = n - k;
    return n > k && strcmp(name + n - k, suffix) == 0;
}

int tl_name_index(struct tl_name_index *ix, const void *first, size_t n, size_t stride)
{
    ix->n = 0;
    ix->at = malloc((n ? n : 1) * sizeof *ix->at);
    if (!ix->at)
        return TL_E_NOMEM;
    for (size_t i = 0; i < n; i++) {
        const char *const *name = (const char *const *)((const char *)first + i * stride);
        if (*name)
            ix->at[ix->n++] = name;
    }
    qsort(ix->at, ix->n, sizeof *ix->at, by_name);
    return 0;
}

const char *const *tl_name_find(const struct tl_name_index *ix, const char *name)
{
    size_t lo = 0, hi = ix->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(*ix->at[mid], name);
        if (c == 0)
            return ix->at[mid];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

void tl_name_index_free(struct tl_name_index *ix)
{
    free(ix->at);
    ix->at = NULL;
    ix->n = 0;
}

const char *tl_file_name_twice(const struct tl_file *f, bool *nomem)
{
    struct tl_name_index ix;
    *nomem = false;
    if (f->count < 2)
        return NULL;
    if (tl_name_index(&ix, &f->tensors[0].name, f->count, sizeof f->tensors[0])) {
        *nomem = true;
        return NULL;
    }
    const char *twice = NULL;
    for (size_t i = 1; !twice && i < ix.n; i++)
        if (strcmp(*ix.at[i - 1], *ix.at[i]) == 0)
            twice = *ix.at[i];
    tl_name_index_free(&ix);
    return twice;
}

int tl_file_count_ok(uint64_t count, const char *what, struct tl_error *err)
{
    if (count <= TL_FILE_TENSORS_MAX)
        return 0;
    return tl_fail(err, TL_E_RANGE, "header", "declares %" PRIu64 " %s, more than the %" PRIu64
                   " one file may hold here; split it into shards (see 'man tensorlayout', "
                   "MODEL FILES)", count, what, TL_FILE_TENSORS_MAX);
}

int tl_file_order(struct tl_file *f, uint64_t len)
{
    if (f->count > 1)
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
    char key[128], q[64], list[256];
    if (t->decodable)
        return 0;
    snprintf(key, sizeof key, "tensor '%s'", t->name ? tl_quote(t->name, q, sizeof q) : "");
    for (unsigned i = 0; i < t->ndim; i++) {
        if (t->shape[i] == 0)
            return tl_fail(err, TL_E_VALUE, key, "has a 0 in its shape: no elements to read "
                           "(list shows it, and a whole-file convert carries it)");
    }
    const char *d = t->dtype;
    if (t->undecoded)
        return tl_fail(err, TL_E_VALUE, key, "is %.70s, a type this tool does not decode: list "
                       "shows it; a whole-file conversion leaves it out (a note names it)",
                       t->leaf);
    if (t->leaf)
        return tl_fail(err, TL_E_VALUE, key, "is no tensor but a value (%s %.60s): list shows "
                       "it; a conversion leaves it out", d, t->leaf);
    if (t->encoding == TL_ENC_GGML) {
        snprintf(key + strlen(key), sizeof key - strlen(key), ": type");
        return tl_fail(err, TL_E_VALUE, key, "GGUF type %s is not one this tool decodes "
                       "(it decodes %s); list shows it, a GGUF OUT carries it",
                       d, tl_ggml_decoded_list(list, sizeof list));
    }
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
    const char *what = strncmp(d, "F8", 2) == 0 || strncmp(d, "F4", 2) == 0 ||
                       strncmp(d, "F6", 2) == 0 ? "small float "
                     : d[0] == 'C' ? "complex " : "";
    snprintf(key + strlen(key), sizeof key - strlen(key), ": dtype");
    return tl_fail(err, TL_E_VALUE, key, "%sdata type '%s' is not supported (supported: %s)",
                   what, tl_quote(d, q, sizeof q),
                   tl_dtype_list(TL_SPELL_SAFETENSORS, list, sizeof list));
}
