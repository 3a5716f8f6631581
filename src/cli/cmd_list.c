/*
 * cmd_list.c - `tensorlayout list FILE`: the tensors of a tensor file, in
 * file order, with their byte ranges, the safetensors metadata, and the
 * bytes that two tensors share or that no tensor owns.
 */
#include <argtable2.h>
#include <cjson/cJSON.h>
#include <dirent.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"

static const char about[] =
    "Lists the tensors of FILE (a @FORMATS_OR@ file, a sharded\n"
    "model's index, a JSON description or a buffer map of several) in file\n"
    "order: name, dataType, sizes, the first byte and one past the last byte\n"
    "of its data (of a map's tensor: its buffer; of a deflated .npz member:\n"
    "its compressed bytes) in the file, and its byte count; then the\n"
    "safetensors __metadata__.  Tensors whose bytes overlap are problems, and\n"
    "so are bytes of a tensor file between or after them that no tensor owns:\n"
    "exit 1.  A map's gaps (alignment between buffers, and with DATA the bytes\n"
    "after the last) are listed as gaps.  An index lists each tensor's shard.\n"
    "A GGUF file's tensors show their ggml type (Q4_K, F16) and block (elements\n"
    "in bytes), sizes in logical order (GGUF's ne[] reversed), and the number\n"
    "of metadata keys; --metadata prints them.";

/* One tensor as list shows it. */
struct entry {
    const char *name;             /* NULL: unnamed (.npy, JSON) */
    const char *dtype;            /* the tool's name, or the file's for a tensor it */
    bool decodable;               /* cannot decode */
    unsigned rank;
    const uint64_t *sizes;
    uint64_t begin, end;
    const struct tl_file_tensor *t;    /* its row: the format's own columns and keys */
    const char *storage;          /* a PyTorch view's storage ("" elsewhere) */
    const char *leaf;             /* a PyTorch value that is no tensor: its text */
    const struct tl_desc *desc;   /* a buffer map's entry: its description */
    bool undecoded;               /* a leaf that is a tensor not decoded (quantized, sparse) */
    const char *stored;           /* how the format says it is stored (ONNX), or "" */
    const char *elsewhere;        /* the file its bytes lie in, or NULL: this one */
};

/* Where a row's bytes are, as the stored column says it: "raw_data",
 * "external w.bin@4096" (into buf). */
static const char *stored_text(const struct entry *e, char *buf, size_t n)
{
    char q[128];
    if (!e->elsewhere)
        return e->stored;
    snprintf(buf, n, "external %s@%" PRIu64, tl_quote(e->elsewhere, q, sizeof q), e->begin);
    return buf;
}

static void problem_text(const struct tl_file *tf, const struct tl_file_problem *p, char *buf,
                         size_t n)
{
    char qa[80], qb[80];
    const char *a = p->a == SIZE_MAX ? NULL : tl_quote(tf->tensors[p->a].name, qa, sizeof qa);
    const char *b = p->b == SIZE_MAX ? NULL : tl_quote(tf->tensors[p->b].name, qb, sizeof qb);
    unsigned long long from = p->from, to = p->to;
    if (p->kind == TL_FP_OVERLAP) {
        snprintf(buf, n, "tensors '%s' and '%s' share bytes %llu..%llu (%llu bytes)", a, b, from,
                 to, to - from);
    } else if (!b) {
        snprintf(buf, n, "bytes %llu..%llu (%llu) after the last tensor belong to no tensor",
                 from, to, to - from);
    } else if (!a) {
        snprintf(buf, n, "bytes %llu..%llu (%llu) before tensor '%s' belong to no tensor", from,
                 to, to - from, b);
    } else {
        snprintf(buf, n, "bytes %llu..%llu (%llu) between tensors '%s' and '%s' belong to no "
                 "tensor", from, to, to - from, a, b);
    }
}

/* Whether what lies between two tensors is a problem: an overlap always;
 * bytes no tensor owns in a tensor file, not between a map's buffers. */
static bool is_problem(const struct tl_file *tf, const struct tl_file_problem *p)
{
    return p->kind == TL_FP_OVERLAP || !tf->gaps_ok;
}

static size_t count_problems(const struct tl_file *tf)
{
    size_t n = 0;
    for (size_t i = 0; i < tf->nproblems; i++)
        n += is_problem(tf, &tf->problems[i]);
    return n;
}

/* A GGUF file's key/value pairs: with --metadata, each key, its type and
 * its value (an array of more than 16 items by its count and first
 * TL_META_SHOWN items); else how many there are. */
static void print_gguf_meta(const struct tl_file *tf, bool show)
{
    char q[256];
    if (!show) {
        printf("\n%zu metadata key%s (version %u, alignment %" PRIu64 "): list --metadata "
               "shows them\n", tf->nmeta, tf->nmeta == 1 ? "" : "s", tf->version, tf->alignment);
        return;
    }
    printf("\nmetadata (GGUF version %u, alignment %" PRIu64 ")\n", tf->version, tf->alignment);
    int w = 3;
    for (size_t i = 0; i < tf->nmeta; i++) {
        int len = (int)strlen(tl_quote(tf->meta[i].key, q, sizeof q));
        w = len > w ? len : w;
    }
    for (size_t i = 0; i < tf->nmeta; i++) {
        const struct tl_file_meta *m = &tf->meta[i];
        printf("  %-*s  %-9s  ", w, tl_quote(m->key, q, sizeof q), m->type);
        if (m->count <= 16) {
            printf("%s\n", m->value);
            continue;
        }
        cJSON *v = cJSON_Parse(m->value);
        printf("%" PRIu64 " items: [", m->count);
        int k = 0;
        for (const cJSON *c = v ? v->child : NULL; c && k < TL_META_SHOWN; c = c->next, k++) {
            char *text = cJSON_PrintUnformatted(c);
            printf("%s%s", k ? ", " : "", text ? text : "?");
            free(text);
        }
        printf(", ...]\n");
        cJSON_Delete(v);
    }
}

/* The table: its header, then a line a tensor (its format's type text
 * and column of its own as the format table says, or where the format
 * says a tensor is stored); w and tw the name and type columns' widths. */
static void print_rows(const struct entry *e, size_t count, enum tl_format format, int w, int tw)
{
    const struct tl_format_entry *fe = tl_format_entry(format);
    char q[256], dt[64], col[192];
    int sw = 0;                         /* the stored column's width, 0: none */
    for (size_t i = 0; i < count; i++) {
        int len = e[i].leaf ? 0 : (int)strlen(stored_text(&e[i], col, sizeof col));
        sw = len > sw ? len : sw;
    }
    sw = sw && sw < 6 ? 6 : sw;
    const char *column = sw ? "stored" : fe && fe->column_text ? fe->column : NULL;
    int cw = sw ? sw : column ? fe->column_width : 0;
    if (fe && fe->type_width)
        tw = fe->type_width;
    printf("%-*s  %-*s  %-16s  ", w, "name", tw, fe && fe->type_header ? fe->type_header
                                                                        : "dataType", "sizes");
    if (column)
        printf("%-*s  ", cw, column);
    printf("%12s  %12s  %12s\n", "begin", "end", "bytes");
    for (size_t i = 0; i < count; i++) {
        char sizes[TL_MAX_RANK * 21 + 1];
        int n = 0;
        if (e[i].leaf)
            continue;                   /* after the tensors, as values */
        for (unsigned k = 0; k < e[i].rank; k++)
            n += snprintf(sizes + n, sizeof sizes - (size_t)n, "%s%" PRIu64, k ? "," : "",
                          e[i].sizes[k]);
        if (e[i].rank == 0)
            snprintf(sizes, sizeof sizes, e[i].dtype[0] ? "0-d" : "-");   /* no tensor: "-" */
        const char *type = fe && fe->type_text ? fe->type_text(e[i].t)
                         : e[i].dtype[0] ? tl_quote(e[i].dtype, dt, sizeof dt) : "-";
        printf("%-*s  %-*s  %-16s  ", w, e[i].name ? tl_quote(e[i].name, q, sizeof q) : "-", tw,
               type, sizes);
        if (column && !sw)
            fe->column_text(e[i].t, col, sizeof col);
        if (column)
            printf("%-*s  ", cw, sw ? stored_text(&e[i], col, sizeof col) : col);
        uint64_t b = e[i].begin, end = e[i].end;
        printf("%12" PRIu64 "  %12" PRIu64 "  %12" PRIu64 "\n", b, end, end - b);
    }
}


/* The parts of group-quantized weight p, "a, b, c" (into buf). */
static const char *grouped_parts(const struct tl_file *tf, const struct tl_scaled *p, char *buf,
                                 size_t n, uint64_t *bytes)
{
    size_t rows[2 + TL_SCALED_EXTRA], m = tl_scaled_parts(p, rows), len = 0;
    buf[0] = '\0';
    *bytes = 0;
    for (size_t k = 0; k < m; k++) {
        const struct tl_file_tensor *t = &tf->tensors[rows[k]];
        *bytes += t->end - t->begin;
        if (len < n)
            len += (size_t)snprintf(buf + len, n - len, "%s%s", len ? ", " : "", t->name);
    }
    return buf;
}

/* "group-quantized weights": each logical weight, its shape, scheme, bits,
 * group size, bytes and parts (SPEC 21). */
static void print_grouped(const struct tl_file *tf, const struct tl_scaled *pairs, size_t n)
{
    char q[256], parts[1024];
    printf("\ngroup-quantized weights (convert --dequantize decodes them; -o OUT.gguf "
           "--to-type Q4_0 repacks them)\n");
    for (size_t i = 0; i < n; i++) {
        const struct tl_scaled *p = &pairs[i];
        uint64_t bytes;
        if (p->kind < TL_SCALED_GPTQ)
            continue;
        grouped_parts(tf, p, parts, sizeof parts, &bytes);
        bool act = tf->bytes && tl_grouped_act_order(tf->bytes, tf, p);
        printf("  %s  [%" PRIu64 ", %" PRIu64 "]  %s %u-bit, ", tl_quote(p->name, q, sizeof q),
               p->out, p->in, tl_scaled_kind_name(p->kind), p->bits);
        if (p->group == p->in)
            printf("per channel");
        else
            printf("groups of %" PRIu64, p->group);
        printf("%s%s, %" PRIu64 " bytes: %s\n", act ? ", act-order" : "",
               p->extra[TL_PART_ZEROS] == SIZE_MAX ? ", symmetric" : "", bytes, parts);
    }
}

/* A checkpoint's values that are no tensor, and the scaled weights. */
static void print_values_and_pairs(const struct entry *e, size_t count, const struct tl_file *tf,
                                   int w)
{
    char q[256];
    bool undecoded = false;
    int tw = 6;                         /* the type column: its widest */
    for (size_t i = 0; i < count; i++) {
        undecoded |= e[i].undecoded;
        if (e[i].leaf && (int)strlen(e[i].dtype) > tw)
            tw = (int)strlen(e[i].dtype);
    }
    for (size_t i = 0, k = 0; i < count; i++) {
        if (!e[i].leaf)
            continue;
        if (k++ == 0)
            printf(undecoded ? "\nvalues, and tensors the tool does not decode (listed, not "
                               "converted)\n"
                             : "\nvalues (not tensors: listed, not converted)\n");
        printf("  %-*s  %-*s  %s\n", w, tl_quote(e[i].name, q, sizeof q), tw, e[i].dtype,
               e[i].leaf);
    }
    struct tl_scaled *pairs = NULL;
    size_t npairs = 0, ngrouped = 0;
    if (tf->format != TL_FMT_JSON && tl_scaled_find(tf, &pairs, &npairs, NULL) == 0) {
        for (size_t i = 0; i < npairs; i++)
            ngrouped += pairs[i].kind >= TL_SCALED_GPTQ;
        for (size_t i = 0, k = 0; i < npairs; i++) {
            if (pairs[i].kind >= TL_SCALED_GPTQ)
                continue;
            if (k++ == 0)
                printf("\nscaled weights (convert --dequantize decodes them)\n");
            printf("  %s = %s x %s (%s)\n", tl_quote(pairs[i].name, q, sizeof q),
                   tf->tensors[pairs[i].weight].name, tf->tensors[pairs[i].scale].name,
                   pairs[i].kind == TL_SCALED_MXFP4 ? "MXFP4: 32 FP4 values a block, times "
                   "2^(scale - 127)" : "FP8 E4M3, 128 x 128 blocks times their scale");
        }
    }
    if (ngrouped)
        print_grouped(tf, pairs, npairs);
    free(pairs);
}

static const struct entry *sort_entries;        /* qsort's context: one list at a time */

static int by_storage_then_place(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    int c = strcmp(sort_entries[x].storage, sort_entries[y].storage);
    return c ? c : (x > y) - (x < y);
}

/* A checkpoint's views that share a storage: each with the first tensor
 * (in file order) of its storage, found by sorting, not by a scan each. */
static void print_shared(const struct entry *e, size_t count)
{
    char q[256];
    size_t *at = malloc((count ? count : 1) * sizeof *at), *first = NULL, n = 0;
    if (at)
        first = malloc((count ? count : 1) * sizeof *first);
    if (!at || !first) {
        free(at);
        return;
    }
    for (size_t i = 0; i < count; i++) {
        first[i] = i;
        if (e[i].storage[0] && !e[i].leaf)
            at[n++] = i;
    }
    sort_entries = e;
    qsort(at, n, sizeof *at, by_storage_then_place);
    for (size_t k = 1; k < n; k++)
        if (strcmp(e[at[k]].storage, e[at[k - 1]].storage) == 0)
            first[at[k]] = first[at[k - 1]];
    for (size_t i = 0, shared = 0; i < count; i++) {
        if (first[i] == i)
            continue;
        if (shared++ == 0)
            printf("\nshared storages (views, tied weights)\n");
        printf("  %s shares storage %s with %s\n", tl_quote(e[i].name, q, sizeof q),
               e[i].storage, e[first[i]].name);
    }
    free(at);
    free(first);
}

/* The file's gaps (a buffer map's: not problems) and its problems. */
static void print_problems(const struct tl_file *tf, bool gaps)
{
    char text[512];
    if (gaps && tf->nproblems > count_problems(tf)) {
        printf("\ngaps\n");
        for (size_t i = 0; i < tf->nproblems; i++) {
            if (is_problem(tf, &tf->problems[i]))
                continue;
            problem_text(tf, &tf->problems[i], text, sizeof text);
            printf("  %s\n", text);
        }
    }
    if (!count_problems(tf)) {
        printf("\nproblems  none\n");
        return;
    }
    printf("\nproblems\n");
    for (size_t i = 0; i < tf->nproblems; i++) {
        if (!is_problem(tf, &tf->problems[i]))
            continue;
        problem_text(tf, &tf->problems[i], text, sizeof text);
        printf("  %s\n", text);
    }
}

static void print_text(const struct entry *e, size_t count, const struct tl_file *tf,
                       bool show_meta)
{
    int w = 4, tw = 8;
    char q[256];
    for (size_t i = 0; i < count; i++) {
        int len = e[i].name ? (int)strlen(tl_quote(e[i].name, q, sizeof q)) : 1;
        if (len > w)
            w = len;
        if (!e[i].leaf && (int)strlen(e[i].dtype) > tw)
            tw = (int)strlen(e[i].dtype);          /* FLOAT8E4M3 */
    }
    bool torch = tf->format == TL_FMT_PYTORCH;
    print_rows(e, count, tf->format, w, tw);
    print_values_and_pairs(e, count, tf, w);
    if (torch)
        print_shared(e, count);
    if (tf->format == TL_FMT_GGUF) {
        print_gguf_meta(tf, show_meta);
    } else if (tf->nmeta) {
        printf("\nmetadata\n");
        for (size_t i = 0; i < tf->nmeta; i++) {
            char v[256];
            printf("  %s: %s\n", tl_quote(tf->meta[i].key, q, sizeof q),
                   tl_quote(tf->meta[i].value, v, sizeof v));
        }
    }
    print_problems(tf, tf->gaps_ok && !torch);
}

/* A tensor's object in list --json: its name, type, the format's own keys
 * (an .npz member's encoding, a GGUF tensor's block, a checkpoint's
 * storage or value), sizes, where it lies.  @return false when out of
 * memory. */
static bool tensor_json(cJSON *t, const struct entry *e, enum tl_format format)
{
    const struct tl_format_entry *fe = tl_format_entry(format);
    return (e->name ? cJSON_AddStringToObject(t, "name", e->name)
                    : cJSON_AddNullToObject(t, "name")) &&
           (e->dtype[0] ? cJSON_AddStringToObject(t, "dataType", e->dtype)
                        : cJSON_AddNullToObject(t, "dataType")) &&
           (!fe || !fe->json_keys || fe->json_keys(t, e->t)) &&
           (!e->stored[0] || cJSON_AddStringToObject(t, "stored", e->stored)) &&
           (!e->elsewhere || cJSON_AddStringToObject(t, "file", e->elsewhere)) &&
           cJSON_AddBoolToObject(t, "decodable", e->decodable) &&
           tl_json_add_u64_array(t, "sizes", e->sizes, e->rank) &&
           tl_json_add_u64(t, "fileByte", e->begin) &&
           tl_json_add_u64(t, "bytes", e->end - e->begin) &&
           (!e->desc ||                 /* a map's entry: its description's offsets */
            (tl_json_add_u64(t, "fileOffset", e->desc->file_offset) &&
             tl_json_add_u64(t, "byteOffset", e->desc->byte_offset)));
}

/* "metadata": safetensors' strings, or GGUF's pairs as {"type", "value"}
 * (an array's "items" too, and "cut" when "value" holds only its first
 * items).  @return false when out of memory. */
static bool meta_json(cJSON *o, const struct tl_file *tf)
{
    cJSON *meta = cJSON_AddObjectToObject(o, "metadata");
    bool ok = meta != NULL;
    for (size_t i = 0; ok && i < tf->nmeta && tf->format != TL_FMT_GGUF; i++)
        ok = cJSON_AddStringToObject(meta, tf->meta[i].key, tf->meta[i].value) != NULL;
    for (size_t i = 0; ok && i < tf->nmeta && tf->format == TL_FMT_GGUF; i++) {
        const struct tl_file_meta *m = &tf->meta[i];
        cJSON *kv = cJSON_CreateObject(), *v = cJSON_Parse(m->value);
        ok = kv && v && cJSON_AddItemToObject(meta, m->key, kv) &&
             cJSON_AddStringToObject(kv, "type", m->type);
        if (ok)
            cJSON_AddItemToObject(kv, "value", v);
        else
            cJSON_Delete(v);
        if (ok && strncmp(m->type, "arr", 3) == 0)
            ok = tl_json_add_u64(kv, "items", m->count) &&
                 cJSON_AddBoolToObject(kv, "cut", m->cut);
    }
    return ok;
}

/* A group-quantized weight's keys in "scaled" (SPEC 21): its logical
 * shape, bits, groupSize, bytes, parts, symmetric, actOrder. */
static bool grouped_json(cJSON *pe, const struct tl_file *tf, const struct tl_scaled *p)
{
    size_t rows[2 + TL_SCALED_EXTRA], m = tl_scaled_parts(p, rows);
    uint64_t bytes = 0;
    cJSON *shape = cJSON_AddArrayToObject(pe, "shape"), *parts = cJSON_AddArrayToObject(pe,
                                                                                   "parts");
    bool ok = shape && parts && cJSON_AddItemToArray(shape, cJSON_CreateNumber((double)p->out)) &&
              cJSON_AddItemToArray(shape, cJSON_CreateNumber((double)p->in)) &&
              cJSON_AddNumberToObject(pe, "bits", p->bits) &&
              tl_json_add_u64(pe, "groupSize", p->group) &&
              cJSON_AddBoolToObject(pe, "symmetric", p->extra[TL_PART_ZEROS] == SIZE_MAX) &&
              cJSON_AddBoolToObject(pe, "actOrder", tf->bytes && tl_grouped_act_order(tf->bytes,
                                                                                      tf, p));
    for (size_t k = 0; ok && k < m; k++) {
        bytes += tf->tensors[rows[k]].end - tf->tensors[rows[k]].begin;
        ok = cJSON_AddItemToArray(parts, cJSON_CreateString(tf->tensors[rows[k]].name));
    }
    return ok && tl_json_add_u64(pe, "bytes", bytes);
}

/* "scaled": the pairs --dequantize decodes.  @return false when out of
 * memory. */
static bool scaled_json(cJSON *o, const struct tl_file *tf)
{
    struct tl_scaled *pairs = NULL;
    size_t npairs = 0;
    cJSON *sc = NULL;
    bool ok = true;
    if (tf->format != TL_FMT_JSON && tl_scaled_find(tf, &pairs, &npairs, NULL) == 0 && npairs)
        ok = (sc = cJSON_AddArrayToObject(o, "scaled")) != NULL;
    for (size_t i = 0; ok && i < npairs; i++) {
        static const char *const kinds[] = { "fp8-block", "mxfp4", "gptq", "awq",
                                             "pack-quantized" };
        cJSON *pe = cJSON_CreateObject();
        ok = pe && cJSON_AddItemToArray(sc, pe) &&
             cJSON_AddStringToObject(pe, "name", pairs[i].name) &&
             cJSON_AddStringToObject(pe, "kind", kinds[pairs[i].kind]) &&
             cJSON_AddStringToObject(pe, "weight", tf->tensors[pairs[i].weight].name) &&
             cJSON_AddStringToObject(pe, "scale", tf->tensors[pairs[i].scale].name);
        if (ok && pairs[i].kind >= TL_SCALED_GPTQ)
            ok = grouped_json(pe, tf, &pairs[i]);
    }
    free(pairs);
    return ok;
}

/* "problems" (and a map's "gaps"), each with its numbers beside its text
 * (SPEC 19).  @return false when out of memory. */
static bool problems_json(cJSON *o, const struct tl_file *tf)
{
    cJSON *gaps = NULL, *probs = cJSON_AddArrayToObject(o, "problems");
    bool ok = probs && (!tf->gaps_ok || (gaps = cJSON_AddArrayToObject(o, "gaps")) != NULL);
    for (size_t i = 0; ok && i < tf->nproblems; i++) {
        char text[512];
        const struct tl_file_problem *fp = &tf->problems[i];
        problem_text(tf, fp, text, sizeof text);
        cJSON *s = cJSON_CreateObject();
        ok = s && cJSON_AddStringToObject(s, "kind", fp->kind == TL_FP_OVERLAP ? "overlap"
                                                                               : "gap") &&
             tl_json_add_u64(s, "begin", fp->from) && tl_json_add_u64(s, "end", fp->to) &&
             tl_json_add_u64(s, "bytes", fp->to - fp->from) &&
             cJSON_AddStringToObject(s, "text", text);
        if (s)
            cJSON_AddItemToArray(is_problem(tf, fp) ? probs : gaps, s);
    }
    return ok;
}

static cJSON *build_json(enum tl_format format, const struct entry *e, size_t count,
                         const struct tl_file *tf)
{
    cJSON *o = cJSON_CreateObject();
    cJSON *tensors = NULL, *values = NULL;
    bool leaves = format == TL_FMT_PYTORCH;     /* "values": a checkpoint's, or tensors the */
    for (size_t i = 0; i < count; i++)          /* tool does not decode (ONNX's strings) */
        leaves |= e[i].leaf != NULL;
    bool ok = o && cJSON_AddStringToObject(o, "format", tl_format_name(format)) &&
              (tensors = cJSON_AddArrayToObject(o, "tensors")) != NULL &&
              (!leaves || (values = cJSON_AddArrayToObject(o, "values")));
    for (size_t i = 0; ok && i < count; i++) {
        cJSON *t = cJSON_CreateObject();
        if (e[i].leaf)                  /* a checkpoint's value that is no tensor: apart */
            ok = t != NULL && cJSON_AddItemToArray(values, t) &&
                 cJSON_AddStringToObject(t, "name", e[i].name) &&
                 cJSON_AddStringToObject(t, "type", e[i].dtype) &&
                 cJSON_AddStringToObject(t, "value", e[i].leaf);
        else
            ok = t != NULL && cJSON_AddItemToArray(tensors, t) && tensor_json(t, &e[i], format);
    }
    ok = ok && meta_json(o, tf) && scaled_json(o, tf);
    if (ok && format == TL_FMT_GGUF)
        ok = cJSON_AddNumberToObject(o, "version", tf->version) &&
             tl_json_add_u64(o, "alignment", tf->alignment) &&
             tl_json_add_u64(o, "dataOffset", tf->data_start);
    if (!ok || !problems_json(o, tf)) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

/* A sharded model's index: every shard's tensors, each with its shard. */
static int run_index(const char *path, bool json)
{
    struct cli_shards s;
    char q[256], dt[64];
    int rc = cli_shards_open(path, true, &s);
    if (rc)
        return rc;
    int w = 4, ws = 5;
    uint64_t total = 0;
    size_t count = 0;
    for (size_t k = 0; k < s.x.nshards; k++) {
        for (size_t i = 0; i < s.files[k].count; i++) {
            const struct tl_file_tensor *t = &s.files[k].tensors[i];
            int len = (int)strlen(tl_quote(t->name, q, sizeof q));
            w = len > w ? len : w;
            total += t->end - t->begin;
            count++;
        }
        ws = (int)strlen(s.x.shards[k]) > ws ? (int)strlen(s.x.shards[k]) : ws;
    }
    cJSON *doc = json ? cJSON_CreateObject() : NULL, *arr = NULL, *sh = NULL;
    bool ok = !json || (doc && cJSON_AddStringToObject(doc, "format", "safetensors index") &&
                        (sh = cJSON_AddArrayToObject(doc, "shards")) &&
                        (arr = cJSON_AddArrayToObject(doc, "tensors")) &&
                        tl_json_add_u64(doc, "tensorBytes", total));
    if (!json)
        printf("%-*s  %-8s  %-16s  %-*s  %12s\n", w, "name", "dataType", "sizes", ws, "shard",
               "bytes");
    for (size_t k = 0; ok && k < s.x.nshards; k++) {
        if (json)
            ok = cJSON_AddItemToArray(sh, cJSON_CreateString(s.x.shards[k]));
        for (size_t i = 0; ok && i < s.files[k].count; i++) {
            const struct tl_file_tensor *t = &s.files[k].tensors[i];
            unsigned rank = !t->decodable ? t->ndim : t->scalar ? 0 : t->desc.rank;
            const uint64_t *sizes = t->decodable ? t->desc.sizes : t->shape;
            const char *type = t->decodable ? tl_dtype_name(t->desc.dtype) : t->dtype;
            if (json) {
                cJSON *o = cJSON_CreateObject();
                ok = o && cJSON_AddItemToArray(arr, o) &&
                     cJSON_AddStringToObject(o, "name", t->name) &&
                     cJSON_AddStringToObject(o, "dataType", type) &&
                     cJSON_AddBoolToObject(o, "decodable", t->decodable) &&
                     tl_json_add_u64_array(o, "sizes", sizes, rank) &&
                     cJSON_AddStringToObject(o, "shard", s.x.shards[k]) &&
                     tl_json_add_u64(o, "fileByte", t->begin) &&
                     tl_json_add_u64(o, "bytes", t->end - t->begin);
                continue;
            }
            char text[TL_MAX_RANK * 21 + 1] = "0-d";
            int n = 0;
            for (unsigned d = 0; d < rank; d++)
                n += snprintf(text + n, sizeof text - (size_t)n, "%s%" PRIu64, d ? "," : "",
                              sizes[d]);
            printf("%-*s  %-8s  %-16s  %-*s  %12" PRIu64 "\n", w, tl_quote(t->name, q, sizeof q),
                   tl_quote(type, dt, sizeof dt), text, ws, s.x.shards[k], t->end - t->begin);
        }
    }
    if (json)
        rc = cli_print_json(ok ? doc : (cJSON_Delete(doc), NULL));
    else
        printf("\n%zu tensor%s in %zu shard%s, %" PRIu64 " bytes of tensors\n", count,
               count == 1 ? "" : "s", s.x.nshards, s.x.nshards == 1 ? "" : "s", total);
    cli_shards_close(&s);
    return rc;
}

/* The file list reads: FILE (or inline JSON) opened, its format sniffed;
 * *index set for a sharded model's index, which run_index lists.
 * @return CLI_OK with data to close, or a status after a message. */
static int open_listed(const char *path, const char *data_arg, struct cli_data *data,
                       enum tl_format *format, bool *index)
{
    struct stat st;
    *index = false;
    const char *colon = strrchr(path, ':');
    if (colon && stat(path, &st) != 0) {
        char file[4096];
        snprintf(file, sizeof file, "%.*s", (int)(colon - path), path);
        if (stat(file, &st) == 0) {
            cli_usage_error("list", "lists every tensor of a file: give FILE without ':NAME'");
            return CLI_USAGE;
        }
    }
    int rc = cli_check_stdin("list", path, data_arg);
    const char *p = path;
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
        p++;
    if (!rc && *p == '{' && stat(path, &st) != 0) {
        /* inline JSON, as every command takes it */
        memset(data, 0, sizeof *data);
        snprintf(data->name, sizeof data->name, "<inline>");
        if (!(data->heap = (unsigned char *)strdup(path)))
            return cli_oom();
        data->bytes = data->heap;
        data->size = strlen(path);
        *format = TL_FMT_JSON;
    } else if (rc || (rc = cli_open_file(path, data, format))) {
        return rc;
    }
    *index = *format == TL_FMT_JSON && !data_arg &&
             tl_shard_index_looks((const char *)data->bytes, (size_t)data->size);
    return CLI_OK;
}

/* The checks of tf's group-quantized weights that read their values
 * (tl_grouped_check).  @return CLI_OK, or CLI_INVALID after the message. */
static int grouped_sound(const struct tl_file *tf, const struct cli_data *data)
{
    struct tl_scaled *pairs = NULL;
    size_t n = 0;
    struct tl_error err = { 0 };
    int rc = tl_scaled_find(tf, &pairs, &n, &err);
    for (size_t k = 0; rc == 0 && k < n; k++)
        if (pairs[k].kind >= TL_SCALED_GPTQ)
            rc = tl_grouped_check(data->bytes, tf, &pairs[k], &err);
    free(pairs);
    if (rc)
        cli_report(data->name, &err);
    return rc == 0 ? CLI_OK : rc == TL_E_NOMEM ? CLI_IO : CLI_INVALID;
}

/* The table of the file opened as data (closed here, a tensor file's
 * when the table is done with it): a description's
 * or buffer map's, with what lies after its buffers in DATA; or a tensor
 * file's.  @return CLI_OK with tf to free, or a status after a message. */
static int table_of(struct cli_data *data, enum tl_format format, const char *data_arg,
                    struct tl_file *tf)
{
    struct tl_error err = { 0 };
    int rc = CLI_OK;
    if (format == TL_FMT_JSON) {
        rc = cli_desc_from_file(data, tf, false);
    } else if (data_arg) {
        char q[64];
        cli_usage_error("list", "%s is a tensor file (%s) and holds its own data: unexpected "
                        "argument '%s'", data->name, tl_format_name(format),
                        tl_quote(data_arg, q, sizeof q));
        rc = CLI_USAGE;
    } else if (tl_file_parse(data->bytes, data->size, tf, &err)) {
        cli_report(data->name, &err);
        rc = CLI_INVALID;
    } else if ((rc = cli_elsewhere_sound(tf, data->name)) || (rc = grouped_sound(tf, data))) {
        tl_file_free(tf);
    }
    if (rc || format == TL_FMT_JSON)
        cli_close_data(data);           /* a tensor file's stays open: its parts' values */
    else
        tf->bytes = data->bytes;
    if (rc || format != TL_FMT_JSON || !data_arg)
        return rc;
    struct cli_data file;               /* a description's data file */
    if ((rc = cli_open_data(data_arg, &file)) == CLI_OK) {
        if (tl_file_order(tf, file.size))
            rc = cli_oom();
        cli_close_data(&file);
    }
    if (rc)
        tl_file_free(tf);
    return rc;
}

/* The rows list prints of tf's tensors; *undecodable and *deflated count
 * those the tool does not decode and the deflated members. */
static void entries_of(const struct tl_file *tf, enum tl_format format, struct entry *entries,
                       size_t *undecodable, size_t *deflated)
{
    *undecodable = *deflated = 0;
    for (size_t i = 0; i < tf->count; i++) {
        const struct tl_file_tensor *t = &tf->tensors[i];
        /* every type spelled one way: the tool's name wherever the type
         * table has the type (an empty F32 tensor is FLOAT32 too) */
        enum tl_dtype known;
        const char *spelled = t->decodable ? tl_dtype_name(t->desc.dtype)
                            : tl_format_dtype(format, t->dtype, &known) == 0
                            ? tl_dtype_name(known) : t->dtype;
        entries[i] = (struct entry){ t->name, spelled,
                                     t->decodable, !t->decodable ? t->ndim : t->scalar ? 0
                                                                    : t->desc.rank,
                                     t->decodable ? t->desc.sizes : t->shape, t->begin, t->end,
                                     t, t->storage,
                                     t->leaf, tf->format == TL_FMT_JSON ? &t->desc : NULL,
                                     t->undecoded, t->stored, t->elsewhere };
        *undecodable += !t->decodable && !t->leaf;
        *deflated += (t->encoding == TL_ENC_DEFLATE);
    }
}

/* The lines after the table: deflated members, tensors not decoded. */
static void print_footer(enum tl_format format, size_t undecodable, size_t deflated)
{
    if (deflated)
        printf("\n%zu member%s deflated: begin, end and bytes are %s compressed data, inflated "
               "when read\n", deflated, deflated == 1 ? "" : "s", deflated == 1 ? "its" : "their");
    if (undecodable && format == TL_FMT_GGUF)
        printf("\n%zu tensor%s of GGUF types the tool does not decode (it decodes %s), or "
               "with no elements: listed, carried by a GGUF OUT, refused where they must be "
               "decoded\n", undecodable, undecodable == 1 ? "" : "s",
               tl_ggml_decoded_list((char[256]){ 0 }, 256));
    else if (undecodable)
        printf("\n%zu tensor%s of types the tool does not decode, or with no elements: "
               "listed, and copied as they are by a whole-file convert\n", undecodable,
               undecodable == 1 ? "" : "s");
}

static int run(const char *path, const char *data_arg, bool json, bool show_meta)
{
    struct cli_data data;
    enum tl_format format;
    char found[4096 + 1024];
    bool index;
    if (!data_arg && cli_model_path(path, found, sizeof found, &path) != CLI_OK)
        return CLI_INVALID;
    int rc = open_listed(path, data_arg, &data, &format, &index);
    if (rc)
        return rc;
    if (index) {
        cli_close_data(&data);
        return run_index(path, json);
    }
    struct tl_file tf;
    if ((rc = table_of(&data, format, data_arg, &tf)))
        return rc;
    struct entry *entries = calloc(tf.count ? tf.count : 1, sizeof *entries);
    if (!entries) {
        tl_file_free(&tf);
        if (format != TL_FMT_JSON)
            cli_close_data(&data);
        return cli_oom();
    }
    size_t undecodable, deflated;
    entries_of(&tf, format, entries, &undecodable, &deflated);
    if (json)
        rc = cli_print_json(build_json(format, entries, tf.count, &tf));
    else
        print_text(entries, tf.count, &tf, show_meta);
    if (!rc && !json)
        print_footer(format, undecodable, deflated);
    if (!rc && count_problems(&tf))
        rc = CLI_NO;
    free(entries);
    tl_file_free(&tf);
    if (format != TL_FMT_JSON)
        cli_close_data(&data);
    return rc;
}

int cmd_list(int argc, char **argv)
{
    static char gloss[512];
    struct arg_file *file = arg_file1(NULL, NULL, "FILE", cli_formats_text("a @FORMATS_OR@ file, a sharded model's index, or a JSON description or buffer map ('-' for standard input, or inline JSON starting with '{')", gloss, sizeof gloss));
    struct arg_file *data = arg_file0(NULL, NULL, "DATA", "the data file of a description or buffer map: its gaps are listed too");
    struct arg_lit *json = arg_lit0(NULL, "json", "print one JSON document");
    struct arg_lit *meta = arg_lit0(NULL, "metadata", "a GGUF file's key/value metadata, each key with its type and value (without it: their count)");
    struct arg_lit *help = arg_lit0("h", "help", "print this help and exit");
    struct arg_end *end = arg_end(5);
    void *table[] = { file, data, json, meta, help, end };
    int rc = CLI_IO;
    if (arg_nullcheck(table) == 0)
        rc = cli_parse_args(argc, argv, table, about);
    if (rc == CLI_CONTINUE)
        rc = run(file->filename[0], data->count ? data->filename[0] : NULL, json->count > 0,
                 meta->count > 0);
    arg_freetable(table, sizeof table / sizeof table[0]);
    return rc;
}
