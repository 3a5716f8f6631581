/*
 * format.c - the table of formats: one entry per format, each defined in
 * that format's own file (npy.c, npz.c, safetensors.c, gguf.c, pytorch.c,
 * and desc_json.c for JSON text).  Sniffing asks every entry for its bid on
 * a file's first bytes and takes the strongest; a file is read by its
 * entry's reader; every list of formats a message or a help text shows is
 * made from the table.
 *
 * Adding a format: its file, with its reader and an entry
 * `const struct tl_format_entry tl_format_NAME`; its id in enum tl_format;
 * its line below, where lists should show it.
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "internal.h"
#include "tl.h"

/* Raw bytes: what a JSON description's DATA holds, and an OUT of no
 * other format (no header: the tensor's bytes as its destination lays
 * them out).  Nothing is sniffed as raw: a file that is no other format
 * is taken for JSON text. */
static unsigned raw_bid(const uint8_t *head, size_t n)
{
    (void)head;
    (void)n;
    return 0;
}

const struct tl_format_entry tl_format_raw = {
    .id = TL_FMT_RAW, .name = "raw", .label = "raw", .endings = "",
    .title = "raw bytes: a description's DATA, or an OUT of no other format",
    .bid = raw_bid, .writes = 5, .spelling = TL_SPELL_NAME,
};

static const struct tl_format_entry *const table[] = {
    &tl_format_json, &tl_format_npy, &tl_format_npz, &tl_format_safetensors,
    &tl_format_gguf, &tl_format_pytorch, &tl_format_onnx, &tl_format_raw,
};
_Static_assert(sizeof table / sizeof table[0] == TL_FMT_COUNT, "one entry per format");

const struct tl_format_entry *tl_format_at(size_t i)
{
    return i < TL_FMT_COUNT ? table[i] : NULL;
}

const struct tl_format_entry *tl_format_entry(enum tl_format f)
{
    for (size_t i = 0; i < TL_FMT_COUNT; i++) {
        if (table[i]->id == f)
            return table[i];
    }
    return &tl_format_json;
}

const char *tl_format_name(enum tl_format f)
{
    return tl_format_entry(f)->name;
}

const char *tl_format_list(char *buf, size_t n, const char *last)
{
    size_t count = 0, len = 0, done = 0;
    for (size_t i = 0; i < TL_FMT_COUNT; i++)
        count += table[i]->read != NULL;
    buf[0] = '\0';
    for (size_t i = 0; i < TL_FMT_COUNT && len < n; i++) {
        if (!table[i]->read)
            continue;
        const char *sep = done == 0 ? "" : done + 1 == count ? last : ", ";
        int w = snprintf(buf + len, n - len, "%s%s", sep, table[i]->label);
        len += w > 0 ? (size_t)w : 0;
        done++;
    }
    return buf;
}

const struct tl_format_entry *tl_format_written(const char *name)
{
    for (size_t i = 0; i < TL_FMT_COUNT; i++) {
        if (table[i]->writes && strcasecmp(name, table[i]->name) == 0)
            return table[i];
    }
    return NULL;
}

bool tl_format_claims(const struct tl_format_entry *e, const char *path, const char *but)
{
    char endings[64];
    size_t n = strlen(path);
    snprintf(endings, sizeof endings, "%s", e->endings);
    for (char *save = NULL, *x = strtok_r(endings, " ", &save); x;
         x = strtok_r(NULL, " ", &save)) {
        size_t k = strlen(x);
        if (n > k && strcasecmp(path + n - k, x) == 0 && !(but && strcmp(x, but) == 0))
            return true;
    }
    return false;
}

const struct tl_format_entry *tl_format_for_path(const char *path)
{
    for (size_t i = 0; i < TL_FMT_COUNT; i++)
        if (table[i]->writes && tl_format_claims(table[i], path, NULL))
            return table[i];
    return &tl_format_raw;
}

const char *tl_format_unwritten(const char *path, bool raw_bin)
{
    /* formats the tool neither reads nor writes, by their files' endings */
    static const struct { const char *ending, *title; } other[] = {
        { ".onnx", "an ONNX model" }, { ".h5", "a Keras (HDF5) file" },
        { ".hdf5", "an HDF5 file" }, { ".keras", "a Keras model" },
        { ".tflite", "a TensorFlow Lite model" }, { ".pb", "a TensorFlow graph" },
        { ".ckpt", "a checkpoint" }, { ".pkl", "a pickle" },
    };
    size_t n = strlen(path);
    for (size_t i = 0; i < sizeof other / sizeof other[0]; i++) {
        size_t k = strlen(other[i].ending);
        if (n > k && strcasecmp(path + n - k, other[i].ending) == 0)
            return other[i].title;
    }
    for (size_t i = 0; i < TL_FMT_COUNT; i++)
        if (!table[i]->writes && table[i]->read &&
            tl_format_claims(table[i], path, raw_bin ? ".bin" : NULL))
            return table[i]->title;
    return NULL;
}

const char *tl_format_write_list(char *buf, size_t n)
{
    size_t count = 0, len = 0, done = 0;
    for (size_t i = 0; i < TL_FMT_COUNT; i++)
        count += table[i]->writes != 0;
    buf[0] = '\0';
    for (unsigned place = 1; place <= TL_FMT_COUNT && len < n; place++) {
        for (size_t i = 0; i < TL_FMT_COUNT && len < n; i++) {
            if (table[i]->writes != place)
                continue;
            int w = snprintf(buf + len, n - len, "%s%s",
                             done == 0 ? "" : done + 1 == count ? " or " : ", ", table[i]->name);
            len += w > 0 ? (size_t)w : 0;
            done++;
        }
    }
    return buf;
}

enum tl_format tl_file_sniff(const uint8_t *head, size_t n)
{
    const struct tl_format_entry *best = &tl_format_json;
    unsigned top = 0;
    for (size_t i = 0; i < TL_FMT_COUNT; i++) {
        unsigned bid = table[i]->bid(head, n);
        if (bid > top) {
            top = bid;
            best = table[i];
        }
    }
    return best->id;
}

int tl_file_parse(const uint8_t *bytes, uint64_t len, struct tl_file *f, struct tl_error *err)
{
    char list[128];
    memset(f, 0, sizeof *f);
    f->format = tl_file_sniff(bytes, len < TL_SNIFF_BYTES ? (size_t)len : TL_SNIFF_BYTES);
    const struct tl_format_entry *e = tl_format_entry(f->format);
    int rc;
    if (e->read)
        rc = e->read(bytes, len, f, err);
    else if (e->id == TL_FMT_JSON)
        rc = tl_fail(err, TL_E_VALUE, NULL, "not a %s file",
                     tl_format_list(list, sizeof list, " or "));
    else
        rc = tl_fail(err, TL_E_VALUE, NULL, "is %s, which this version does not read yet "
                     "(it reads %s files)", e->title, tl_format_list(list, sizeof list, " and "));
    if (rc)
        tl_file_free(f);
    else
        f->bytes = bytes;
    return rc;
}

int tl_format_dtype(enum tl_format f, const char *spelled, enum tl_dtype *dt)
{
    switch (tl_format_entry(f)->spelling) {
    case TL_SPELL_SAFETENSORS: return tl_dtype_from_safetensors(spelled, dt);
    case TL_SPELL_NPY:         return tl_npy_dtype(spelled, dt, NULL);
    case TL_SPELL_ONNX:        return tl_onnx_dtype(spelled, dt);
    default:                   return tl_dtype_from_name(spelled, dt);
    }
}

/* ---- bids shared by formats --------------------------------------------- */

bool tl_zip_head(const uint8_t *head, size_t n)
{
    return n >= 4 && head[0] == 'P' && head[1] == 'K' &&
           ((head[2] == 3 && head[3] == 4) || (head[2] == 5 && head[3] == 6));
}
