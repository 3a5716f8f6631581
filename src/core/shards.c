/*
 * shards.c - the index of a sharded safetensors model (SPEC section 10):
 * model.safetensors.index.json, {"metadata": {...}, "weight_map":
 * {"tensor": "model-00001-of-00004.safetensors", ...}}.  This file reads the
 * index (which shard holds which tensor) and writes it back with a new
 * metadata.total_size; the shards themselves are safetensors files, read
 * by safetensors.c.
 */
#include <cjson/cJSON.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "tl.h"

void tl_shard_index_free(struct tl_shard_index *x)
{
    for (size_t i = 0; i < x->nshards; i++)
        free(x->shards[i]);
    for (size_t i = 0; i < x->count; i++)
        free(x->names[i]);
    free(x->shards);
    free(x->names);
    free(x->shard);
    memset(x, 0, sizeof *x);
}

/* A table of strings by hash (open addressing, FNV-1a): each string's
 * number, in the order first seen.  The weight map's names and shard files
 * are checked and numbered in linear time, however many (a map of 100,000
 * entries, each its own shard, is read in milliseconds). */
struct strtab {
    const char **key;
    size_t *val;
    size_t cap;
};

static bool strtab_init(struct strtab *t, size_t n)
{
    t->cap = 16;
    while (t->cap < 2 * n)
        t->cap *= 2;
    t->key = calloc(t->cap, sizeof *t->key);
    t->val = calloc(t->cap, sizeof *t->val);
    return t->key && t->val;
}

static void strtab_free(struct strtab *t)
{
    free(t->key);
    free(t->val);
}

/* The number of s: the one it was given, or val when s is new (*fresh). */
static size_t strtab_put(struct strtab *t, const char *s, size_t val, bool *fresh)
{
    uint64_t h = 1469598103934665603u;
    for (const char *p = s; *p; p++)
        h = (h ^ (unsigned char)*p) * 1099511628211u;
    size_t i = (size_t)h & (t->cap - 1);
    while (t->key[i] && strcmp(t->key[i], s) != 0)
        i = (i + 1) & (t->cap - 1);
    *fresh = !t->key[i];
    if (*fresh) {
        t->key[i] = s;
        t->val[i] = val;
    }
    return t->val[i];
}

static int index_fill(const cJSON *map, struct tl_shard_index *x, struct tl_error *err)
{
    size_t n = (size_t)cJSON_GetArraySize(map);
    char q[64], key[128];
    struct strtab names = { 0 }, files = { 0 };
    x->names = calloc(n ? n : 1, sizeof *x->names);
    x->shard = calloc(n ? n : 1, sizeof *x->shard);
    x->shards = calloc(n ? n : 1, sizeof *x->shards);
    int rc = 0;
    if (!x->names || !x->shard || !x->shards || !strtab_init(&names, n) || !strtab_init(&files, n))
        rc = tl_fail(err, TL_E_NOMEM, NULL, "out of memory");
    for (const cJSON *e = rc ? NULL : map->child; e && !rc; e = e->next) {
        bool fresh;
        snprintf(key, sizeof key, "weight_map.%s", tl_quote(e->string, q, sizeof q));
        if (!cJSON_IsString(e)) {
            rc = tl_fail(err, TL_E_TYPE, key, "must be a string: the shard's file name");
        } else if (!e->valuestring[0] || tl_path_escapes(e->valuestring)) {
            rc = tl_fail(err, TL_E_VALUE, key, "'%s' leaves the index's folder (an absolute "
                         "path or '..'): a shard lies beside its index",
                         tl_quote(e->valuestring, q, sizeof q));
        } else if (strtab_put(&names, e->string, x->count, &fresh), !fresh) {
            rc = tl_fail(err, TL_E_KEY, key, "appears twice in the weight map");
        } else {
            size_t s = strtab_put(&files, e->valuestring, x->nshards, &fresh);
            if (fresh && !(x->shards[x->nshards++] = strdup(e->valuestring)))
                rc = tl_fail(err, TL_E_NOMEM, NULL, "out of memory");
            else if (!(x->names[x->count] = strdup(e->string)))
                rc = tl_fail(err, TL_E_NOMEM, NULL, "out of memory");
            else
                x->shard[x->count++] = s;
        }
    }
    strtab_free(&names);
    strtab_free(&files);
    return rc;
}

int tl_shard_index_parse(const char *text, size_t len, struct tl_shard_index *x,
                         struct tl_error *err)
{
    memset(x, 0, sizeof *x);
    long nul, deep;
    tl_json_scan(text, len, &nul, &deep, NULL);
    if (deep >= 0)
        return tl_fail(err, TL_E_JSON, NULL, "the index nests deeper than %d levels",
                       CJSON_NESTING_LIMIT);
    if (nul >= 0)
        return tl_fail(err, TL_E_JSON, NULL, "a string of the index holds a NUL (\\u0000): no "
                       "tensor or shard name may");
    cJSON *doc = cJSON_ParseWithLength(text, len);
    if (!doc || !cJSON_IsObject(doc)) {
        cJSON_Delete(doc);
        return tl_fail(err, TL_E_JSON, NULL, "a shard index is a JSON object with a "
                       "\"weight_map\"");
    }
    const cJSON *map = cJSON_GetObjectItemCaseSensitive(doc, "weight_map");
    const cJSON *meta = cJSON_GetObjectItemCaseSensitive(doc, "metadata");
    int rc = 0;
    if (!map)
        rc = tl_fail(err, TL_E_KEY, "weight_map", "is missing: a shard index maps each tensor "
                     "to its shard");
    else if (!cJSON_IsObject(map))
        rc = tl_fail(err, TL_E_TYPE, "weight_map", "must be an object of tensor names to shard "
                     "file names");
    else if (meta && !cJSON_IsObject(meta))
        rc = tl_fail(err, TL_E_TYPE, "metadata", "must be an object");
    else
        rc = index_fill(map, x, err);
    cJSON_Delete(doc);
    if (rc)
        tl_shard_index_free(x);
    return rc;
}

bool tl_shard_index_looks(const char *text, size_t len)
{
    static const char key[] = "\"weight_map\"";
    for (size_t i = 0; i + sizeof key - 1 <= len; i++) {
        if (memcmp(text + i, key, sizeof key - 1) == 0)
            return true;
    }
    return false;
}

int tl_shard_index_write(const char *text, size_t len, uint64_t total_size, char **out,
                         struct tl_error *err)
{
    return tl_shard_index_write_renamed(text, len, total_size, NULL, NULL, out, err);
}

/* Sets doc's metadata.total_size and prints it into *out. */
static int print_index(cJSON *doc, uint64_t total_size, char **out, struct tl_error *err);

int tl_shard_index_write_map(const char *text, size_t len, uint64_t total_size,
                             const char *const *names, const char *const *files, size_t n,
                             char **out, struct tl_error *err)
{
    cJSON *doc = cJSON_ParseWithLength(text, len), *map = cJSON_CreateObject();
    if (!doc) {
        cJSON_Delete(map);
        return tl_fail(err, TL_E_JSON, NULL, "the index is not JSON");
    }
    bool ok = map != NULL;
    for (size_t i = 0; ok && i < n; i++)
        ok = cJSON_AddStringToObject(map, names[i], files[i]) != NULL;
    if (ok)
        ok = cJSON_GetObjectItemCaseSensitive(doc, "weight_map")
                 ? cJSON_ReplaceItemInObjectCaseSensitive(doc, "weight_map", map)
                 : cJSON_AddItemToObject(doc, "weight_map", map);
    if (!ok) {
        cJSON_Delete(map);
        cJSON_Delete(doc);
        return tl_fail(err, TL_E_NOMEM, NULL, "out of memory");
    }
    return print_index(doc, total_size, out, err);
}

int tl_shard_index_write_renamed(const char *text, size_t len, uint64_t total_size,
                                 const struct tl_shard_index *x, char *const *renamed,
                                 char **out, struct tl_error *err)
{
    cJSON *doc = cJSON_ParseWithLength(text, len);
    if (!doc)
        return tl_fail(err, TL_E_JSON, NULL, "the index is not JSON");
    cJSON *map = cJSON_GetObjectItemCaseSensitive(doc, "weight_map");
    for (cJSON *e = map && x && renamed ? map->child : NULL; e; e = e->next) {
        for (size_t k = 0; cJSON_IsString(e) && k < x->nshards; k++) {
            if (strcmp(e->valuestring, x->shards[k]) == 0) {
                cJSON *v = cJSON_CreateString(renamed[k]);
                if (v && e->string && !(v->string = strdup(e->string))) {
                    cJSON_Delete(v);
                    v = NULL;
                }
                if (!v || !cJSON_ReplaceItemViaPointer(map, e, v)) {
                    cJSON_Delete(v);
                    cJSON_Delete(doc);
                    return tl_fail(err, TL_E_NOMEM, NULL, "out of memory");
                }
                e = v;
                break;
            }
        }
    }
    return print_index(doc, total_size, out, err);
}

static int print_index(cJSON *doc, uint64_t total_size, char **out, struct tl_error *err)
{
    cJSON *meta = cJSON_GetObjectItemCaseSensitive(doc, "metadata");
    if (!meta) {
        meta = cJSON_CreateObject();
        if (meta)
            cJSON_AddItemToObject(doc, "metadata", meta);
    }
    cJSON *size = cJSON_CreateNumber((double)total_size);
    bool ok = meta && size && (cJSON_GetObjectItemCaseSensitive(meta, "total_size")
                                   ? cJSON_ReplaceItemInObjectCaseSensitive(meta, "total_size", size)
                                   : cJSON_AddItemToObject(meta, "total_size", size));
    if (!ok)
        cJSON_Delete(size);
    *out = ok ? cJSON_Print(doc) : NULL;
    cJSON_Delete(doc);
    if (!*out)
        return tl_fail(err, TL_E_NOMEM, NULL, "out of memory");
    return 0;
}

/* ---- a model's folder (SPEC 19, 21, 23) ---------------------------------- */

/* The files a loader reads beside the weights (transformers'
 * from_pretrained, its tokenizers and processors). */
static const char *const loader_files[] = {
    "config.json", "generation_config.json", "tokenizer.json", "tokenizer_config.json",
    "special_tokens_map.json", "added_tokens.json", "tokenizer.model", "spiece.model",
    "sentencepiece.bpe.model", "vocab.json", "vocab.txt", "merges.txt", "chat_template.json",
    "chat_template.jinja", "preprocessor_config.json", "processor_config.json",
    "feature_extractor_config.json", "image_processor_config.json",
};

enum tl_folder_file tl_folder_file(const char *name)
{
    if (tl_name_ends(name, ".index.json", NULL))
        return TL_FOLDER_WEIGHTS;
    for (size_t i = 0; tl_format_at(i); i++)
        if (tl_format_at(i)->id != TL_FMT_JSON && tl_format_claims(tl_format_at(i), name, NULL))
            return TL_FOLDER_WEIGHTS;
    for (size_t i = 0; i < sizeof loader_files / sizeof loader_files[0]; i++)
        if (strcmp(name, loader_files[i]) == 0)
            return TL_FOLDER_LOADER;
    return TL_FOLDER_OTHER;
}

int tl_config_unquantized(const char *text, size_t len, char **out, struct tl_error *err)
{
    *out = NULL;
    cJSON *doc = cJSON_ParseWithLength(text, len);
    if (!cJSON_IsObject(doc)) {
        cJSON_Delete(doc);
        return tl_fail(err, TL_E_JSON, NULL, "is not a JSON object: its quantization_config "
                       "cannot be removed");
    }
    cJSON_DeleteItemFromObjectCaseSensitive(doc, "quantization_config");
    char *printed = cJSON_Print(doc);
    cJSON_Delete(doc);
    size_t n = printed ? strlen(printed) : 0;
    if (printed && !(*out = malloc(n + 2))) {
        free(printed);
        printed = NULL;
    }
    if (!printed)
        return tl_fail(err, TL_E_NOMEM, NULL, "out of memory");
    memcpy(*out, printed, n);
    memcpy(*out + n, "\n", 2);
    cJSON_free(printed);
    return 0;
}

bool tl_shard_safetensors_name(const char *shard, char *out, size_t n)
{
    /* pytorch_model-00001-of-00002.bin -> model-00001-of-00002.safetensors */
    const char *slash = strrchr(shard, '/');
    size_t dir = slash ? (size_t)(slash - shard) + 1 : 0, len = strlen(shard);
    const char *base = shard + dir;
    const char *ext = strrchr(base, '.');
    bool torch = ext && (strcmp(ext, ".bin") == 0 || strcmp(ext, ".pt") == 0 ||
                         strcmp(ext, ".pth") == 0);
    if (!torch) {
        snprintf(out, n, "%s", shard);
        return false;
    }
    if (strncmp(base, "pytorch_", 8) == 0)
        base += 8;
    snprintf(out, n, "%.*s%.*s.safetensors", (int)dir, shard,
             (int)(shard + len - (ext ? strlen(ext) : 0) - base), base);
    return true;
}

const char *tl_index_safetensors_name(const char *name, char *buf, size_t n)
{
    const char *bin = strstr(name, ".bin.index.json");
    if (!bin)
        return name;
    const char *base = strncmp(name, "pytorch_", 8) == 0 ? name + 8 : name;
    snprintf(buf, n, "%.*s.safetensors.index.json", (int)(bin - base), base);
    return buf;
}

/* ---- shards checked against their index --------------------------------- */

/* The index's entry for name (suffix appended) in ix, or SIZE_MAX. */
static size_t index_of(const struct tl_shard_index *x, const struct tl_name_index *ix,
                       const char *name, const char *suffix)
{
    char full[1024];
    if (snprintf(full, sizeof full, "%s%s", name, suffix) >= (int)sizeof full)
        return SIZE_MAX;
    const char *const *field = tl_name_find(ix, full);
    return field ? (size_t)(field - (const char *const *)x->names) : SIZE_MAX;
}

/* The index's entry for a tensor of shard k a conversion wrote: its own
 * name, or W_blocks for MXFP4's W, or P.qweight / P.weight_packed for a
 * group-quantized P.weight. */
static size_t written_entry(const struct tl_shard_index *x, const struct tl_name_index *ix,
                            const char *name, bool converted)
{
    size_t i = index_of(x, ix, name, ""), len;
    if (i != SIZE_MAX || !converted)
        return i;
    i = index_of(x, ix, name, "_blocks");
    if (i == SIZE_MAX && tl_name_ends(name, "weight", &len) && len < 600) {
        char stem[600];
        snprintf(stem, sizeof stem, "%.*s", (int)len, name);
        i = index_of(x, ix, stem, "qweight");
        if (i == SIZE_MAX)
            i = index_of(x, ix, stem, "weight_packed");
    }
    return i;
}

int tl_shards_check(const struct tl_shard_index *x, const struct tl_file *files, bool converted,
                    bool (*left_out)(const void *ctx, const char *name), const void *ctx,
                    struct tl_error *err)
{
    char q[64];
    struct tl_name_index ix;
    if (tl_name_index(&ix, x->names, x->count, sizeof x->names[0]))
        return tl_fail(err, TL_E_NOMEM, NULL, "out of memory");
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < x->count; i++) {
        size_t k = x->shard[i];
        const char *name = x->names[i];
        if (!tl_file_find(&files[k], name) &&
            !(converted && ((left_out && left_out(ctx, name)) || tl_scaled_part_name(name))))
            rc = tl_fail(err, TL_E_VALUE, NULL, "tensor '%s' is in shard '%s' by the index, "
                         "but that shard does not hold it", tl_quote(name, q, sizeof q),
                         x->shards[k]);
    }
    for (size_t k = 0; rc == 0 && k < x->nshards; k++) {
        for (size_t j = 0; rc == 0 && j < files[k].count; j++) {
            const char *name = files[k].tensors[j].name;
            if (files[k].tensors[j].leaf)
                continue;                   /* a checkpoint's value, not a tensor */
            size_t i = written_entry(x, &ix, name, converted);
            if (i == SIZE_MAX || x->shard[i] != k)
                rc = tl_fail(err, TL_E_VALUE, NULL, "shard '%s' holds tensor '%s', which the "
                             "index %s%s", x->shards[k], tl_quote(name, q, sizeof q),
                             i == SIZE_MAX ? "does not name" : "puts in shard ",
                             i == SIZE_MAX ? "" : x->shards[x->shard[i]]);
        }
    }
    tl_name_index_free(&ix);
    return rc;
}

/* ---- a model re-sharded (SPEC 10) ----------------------------------------- */

void tl_reshard_free(struct tl_reshard *r)
{
    free(r->at);
    memset(r, 0, sizeof *r);
}

int tl_reshard_plan(const struct tl_file *files, size_t nfiles, uint64_t max,
                    const char *index_name, struct tl_reshard *r)
{
    memset(r, 0, sizeof *r);
    for (size_t k = 0; k < nfiles; k++)
        r->n += files[k].count;
    if (!(r->at = calloc(r->n ? r->n : 1, sizeof *r->at)))
        return TL_E_NOMEM;
    size_t i = 0, out = 0;
    uint64_t in_out = 0;
    for (size_t k = 0; k < nfiles; k++) {
        for (size_t t = 0; t < files[k].count; t++, i++) {
            uint64_t b = files[k].tensors[t].end - files[k].tensors[t].begin;
            if (in_out && in_out + b > max) {          /* the next shard */
                out++;
                in_out = 0;
            }
            r->at[i] = (struct tl_reshard_at){ k, t, out };
            in_out += b;
            r->total += b;
        }
    }
    r->nout = r->n ? out + 1 : 1;
    snprintf(r->prefix, sizeof r->prefix, "%s", index_name);
    static const char *const ends[] = { ".index.json", ".safetensors", ".bin" };
    for (size_t e = 0, stem; e < 3; e++)
        if (tl_name_ends(r->prefix, ends[e], &stem))
            r->prefix[stem] = '\0';
    return 0;
}

void tl_reshard_name(const struct tl_reshard *r, size_t j, char *buf, size_t n)
{
    if (r->nout == 1)
        snprintf(buf, n, "%s.safetensors", r->prefix);
    else
        snprintf(buf, n, "%s-%05zu-of-%05zu.safetensors", r->prefix, j + 1, r->nout);
}

void tl_reshard_index_name(const struct tl_reshard *r, char *buf, size_t n)
{
    if (r->nout == 1)
        snprintf(buf, n, "%s", "");
    else
        snprintf(buf, n, "%s.safetensors.index.json", r->prefix);
}

int tl_reshard_header(const struct tl_reshard *r, const struct tl_file *files, size_t j,
                      const char *drop, uint8_t **out, size_t *len, uint64_t *bytes,
                      struct tl_error *err)
{
    struct tl_st_entry *e = calloc(r->n ? r->n : 1, sizeof *e);
    if (!e)
        return tl_fail(err, TL_E_NOMEM, NULL, "out of memory");
    size_t m = 0, first = SIZE_MAX;
    *bytes = 0;
    for (size_t i = 0; i < r->n; i++) {
        if (r->at[i].out != j)
            continue;
        const struct tl_file_tensor *t = &files[r->at[i].file].tensors[r->at[i].tensor];
        if (first == SIZE_MAX)
            first = r->at[i].file;
        e[m] = (struct tl_st_entry){ .name = t->name, .dtype = t->desc.dtype, .st = t->dtype,
                                     .rank = t->scalar ? 0 : t->ndim, .bytes = t->end - t->begin };
        memcpy(e[m].shape, t->shape, sizeof t->shape);
        *bytes += e[m++].bytes;
    }
    const struct tl_file *f0 = first == SIZE_MAX ? NULL : &files[first];
    size_t nmeta = 0, have = f0 ? f0->nmeta : 0;
    struct tl_file_meta *meta = calloc(have ? have : 1, sizeof *meta);
    for (size_t i = 0; meta && i < have; i++)
        if (!drop || strcmp(f0->meta[i].key, drop) != 0)
            meta[nmeta++] = f0->meta[i];
    int rc = meta ? tl_safetensors_header(e, m, meta, nmeta, out, len, err)
                  : tl_fail(err, TL_E_NOMEM, NULL, "out of memory");
    free(meta);
    free(e);
    return rc;
}
