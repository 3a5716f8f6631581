/*
 * cmd_offset.c - `tensorlayout offset DESC INDEX...` and
 * `tensorlayout offset DESC --byte N`.
 */
#include <argtable2.h>
#include <cjson/cJSON.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#define MAX_OWNERS 1000

static const char about[] =
    "For each INDEX (comma-separated coordinates in sizes order, e.g. 1,0,1),\n"
    "prints the index, its element offset (the dot product with the strides)\n"
    "and its byte offset in the data file (byteOffset + element offset x\n"
    "element size); for UINT4 and INT4, two elements a byte, also which\n"
    "nibble: 'low' (an even element offset) or 'high'.  With --byte N, prints\n"
    "the indices of the elements whose bytes hold byte N of the file, one a\n"
    "line in logical order (at most the first 1000), or 'padding' or\n"
    "'outside'; for a 4-bit type, each line names the nibble ('0,2 low').\n"
    "The search stops after\n"
    "--search-steps steps: then it prints the owners it found, the first ones,\n"
    "or 'unknown', and exits 1.  A GGUF tensor of a block type (FILE:NAME):\n"
    "an INDEX names its block, the block's bytes in the file, and where its\n"
    "bits and its scales lie; --byte N (a byte of the file) names its block,\n"
    "its field, and the elements whose values it holds.";

/* ---- a GGUF tensor's blocks (SPEC 16) ------------------------------------ */

static void piece_text(const struct tl_ggml_piece *p, uint64_t at, char *buf, size_t n)
{
    if (p->bytes > 1)
        snprintf(buf, n, "%-8s bytes %" PRIu64 "..%" PRIu64 "%s", p->field, at + p->byte,
                 at + p->byte + p->bytes, p->scale ? "  (scale)" : "");
    else if (p->bits == 0)
        snprintf(buf, n, "%-8s byte %" PRIu64 "  base-3 digit %u%s", p->field, at + p->byte,
                 p->bit, p->scale ? "  (scale)" : "");
    else if (p->bits == 8)
        snprintf(buf, n, "%-8s byte %" PRIu64 "%s", p->field, at + p->byte,
                 p->scale ? "  (scale)" : "");
    else
        snprintf(buf, n, "%-8s byte %" PRIu64 "  bits %u-%u%s", p->field, at + p->byte, p->bit,
                 p->bit + p->bits - 1, p->scale ? "  (scale)" : "");
}

static cJSON *piece_json(const struct tl_ggml_piece *p, uint64_t at)
{
    cJSON *o = cJSON_CreateObject();
    if (o && cJSON_AddStringToObject(o, "field", p->field) &&
        tl_json_add_u64(o, "byte", at + p->byte) && cJSON_AddNumberToObject(o, "bytes", p->bytes) &&
        cJSON_AddNumberToObject(o, p->bits ? "bit" : "digit", p->bit) &&
        cJSON_AddNumberToObject(o, "bits", p->bits) && cJSON_AddBoolToObject(o, "scale", p->scale))
        return o;
    cJSON_Delete(o);
    return NULL;
}

/* Element e (its place in the decoded values) of a GGUF tensor of blocks:
 * its block, the block's bytes, and where its own bits and its scales lie. */
static bool block_element(const struct cli_desc *c, const char *index, uint64_t e, cJSON *arr)
{
    const struct tl_ggml_type *gt = tl_ggml_type(c->ggml_type);
    uint64_t k = e / gt->block, at = c->blocks_at + k * gt->bytes;
    unsigned j = (unsigned)(e % gt->block);
    struct tl_ggml_where w;
    tl_ggml_locate(c->ggml_type, j, &w);
    if (arr) {
        cJSON *o = cJSON_CreateObject(), *ps = NULL;
        bool ok = o && cJSON_AddItemToArray(arr, o) && cJSON_AddStringToObject(o, "index", index) &&
                  tl_json_add_u64(o, "element", e) &&
                  cJSON_AddStringToObject(o, "ggmlType", gt->name) &&
                  tl_json_add_u64(o, "block", k) && tl_json_add_u64(o, "blockBegin", at) &&
                  cJSON_AddNumberToObject(o, "blockBytes", gt->bytes) &&
                  cJSON_AddNumberToObject(o, "inBlock", j) &&
                  (ps = cJSON_AddArrayToObject(o, "pieces")) != NULL;
        for (unsigned i = 0; ok && i < w.n; i++) {
            cJSON *p = piece_json(&w.p[i], at);
            ok = p && cJSON_AddItemToArray(ps, p);
        }
        return ok;
    }
    printf("%s  element %" PRIu64 ": %s block %" PRIu64 " (bytes %" PRIu64 "..%" PRIu64 "), "
           "value %u of %u\n", index, e, gt->name, k, at, at + gt->bytes, j, gt->block);
    for (unsigned i = 0; i < w.n; i++) {
        char text[128];
        piece_text(&w.p[i], at, text, sizeof text);
        printf("  %s\n", text);
    }
    return true;
}

/* A byte outside a GGUF tensor's blocks: said, as text or JSON. */
static int block_outside(const struct cli_desc *c, uint64_t byte, bool json)
{
    if (json) {
        cJSON *doc = cJSON_CreateObject();
        if (!doc || !tl_json_add_u64(doc, "byte", byte) ||
            !cJSON_AddStringToObject(doc, "where", "outside")) {
            cJSON_Delete(doc);
            doc = NULL;
        }
        return cli_print_json(doc);
    }
    printf("outside (tensor %s's blocks are bytes %" PRIu64 "..%" PRIu64 ")\n", c->tensor,
           c->blocks_at, c->blocks_at + c->blocks_bytes);
    return CLI_OK;
}

/* Byte `byte` of the file, in a GGUF tensor of blocks: its block, the
 * field it is part of, and the elements whose values it holds (bits of
 * their own, or a scale of theirs). */
static int block_byte(const struct cli_desc *c, uint64_t byte, bool json)
{
    const struct tl_ggml_type *gt = tl_ggml_type(c->ggml_type);
    cJSON *doc = NULL, *els = NULL;
    if (byte < c->blocks_at || byte - c->blocks_at >= c->blocks_bytes)
        return block_outside(c, byte, json);
    uint64_t k = (byte - c->blocks_at) / gt->bytes, at = c->blocks_at + k * gt->bytes;
    unsigned o = (unsigned)(byte - at);
    const char *field = NULL;
    bool scale = false;
    if (json && (!(doc = cJSON_CreateObject()) || !tl_json_add_u64(doc, "byte", byte) ||
                 !cJSON_AddStringToObject(doc, "where", "tensor") ||
                 !cJSON_AddStringToObject(doc, "ggmlType", gt->name) ||
                 !tl_json_add_u64(doc, "block", k) || !tl_json_add_u64(doc, "blockBegin", at) ||
                 !(els = cJSON_AddArrayToObject(doc, "elements")))) {
        cJSON_Delete(doc);
        return cli_print_json(NULL);
    }
    /* the elements, as runs first..last of the block's values */
    uint64_t first = UINT64_MAX, last = 0, count = 0;
    char runs[1024] = "";
    size_t len = 0;
    for (unsigned j = 0; j <= gt->block; j++) {
        bool holds = false;
        struct tl_ggml_where w;
        if (j < gt->block && tl_ggml_locate(c->ggml_type, j, &w) == 0) {
            for (unsigned i = 0; i < w.n; i++) {
                if (o >= w.p[i].byte && o < w.p[i].byte + w.p[i].bytes) {
                    holds = true;
                    field = w.p[i].field;
                    scale = w.p[i].scale;
                }
            }
        }
        uint64_t e = k * gt->block + j;
        if (holds && first != UINT64_MAX && e == last + 1) {
            last = e;
        } else {
            if (first != UINT64_MAX) {
                cJSON *r = json ? cJSON_CreateArray() : NULL;
                if (r) {
                    cJSON_AddItemToArray(r, cJSON_CreateNumber((double)first));
                    cJSON_AddItemToArray(r, cJSON_CreateNumber((double)last));
                    cJSON_AddItemToArray(els, r);
                }
                if (len < sizeof runs - 40)
                    len += (size_t)snprintf(runs + len, sizeof runs - len, "%s%" PRIu64 "%s",
                                            len ? ", " : "", first, "");
                if (last != first && len < sizeof runs - 40)
                    len += (size_t)snprintf(runs + len, sizeof runs - len, "..%" PRIu64, last);
            }
            first = holds ? e : UINT64_MAX;
            last = e;
        }
        count += holds;
    }
    if (json) {
        if (!cJSON_AddStringToObject(doc, "field", field ? field : "") ||
            !cJSON_AddBoolToObject(doc, "scale", scale)) {
            cJSON_Delete(doc);
            doc = NULL;
        }
        return cli_print_json(doc);
    }
    printf("%s block %" PRIu64 " (bytes %" PRIu64 "..%" PRIu64 "), its %s%s: %" PRIu64
           " element%s (row-major numbers %s)\n", gt->name, k, at, at + gt->bytes,
           field ? field : "?", scale ? " (a scale)" : "", count, count == 1 ? "" : "s", runs);
    return CLI_OK;
}

/* Every index is checked before the first is printed: invalid input
 * leaves standard output empty. */
static int by_index(const struct cli_desc *c, int n, const char **args, bool json)
{
    const struct tl_desc *d = &c->d;
    uint64_t (*idx)[TL_MAX_RANK] = calloc((size_t)n, sizeof *idx);
    if (!idx) {
        cli_oom();
        return CLI_IO;
    }
    for (int i = 0; i < n; i++) {
        uint64_t eo, bo;
        struct tl_error err = { 0 };
        char q[64];
        int got = cli_parse_u64_list(args[i], idx[i], TL_MAX_RANK);
        if (got != (int)d->rank) {
            cli_error("offset: index '%s' must be %u comma-separated "
                    "integers%s", tl_quote(args[i], q, sizeof q), d->rank,
                    got == -2 ? ", none negative (an index counts from 0)" : "");
            free(idx);
            return CLI_INVALID;
        }
        if (tl_desc_offset(d, idx[i], &eo, &bo, &err)) {
            cli_error("offset: index '%s': %s %s",
                    tl_quote(args[i], q, sizeof q), err.key, err.msg);
            free(idx);
            return CLI_INVALID;
        }
    }
    cJSON *arr = json ? cJSON_CreateArray() : NULL;
    bool ok = !json || arr;
    if (c->blocks) {                  /* a GGUF tensor of blocks: where each element lies */
        for (int i = 0; i < n && ok; i++) {
            uint64_t eo, bo;
            tl_desc_offset(d, idx[i], &eo, &bo, NULL);
            ok = block_element(c, args[i], eo, arr);
        }
        free(idx);
        return json ? cli_print_json(ok ? arr : (cJSON_Delete(arr), NULL)) : CLI_OK;
    }
    bool nibbles = tl_dtype_bits(d->dtype) == 4;
    for (int i = 0; i < n && ok; i++) {
        uint64_t eo, bo;
        unsigned bit;
        tl_desc_offset(d, idx[i], &eo, &bo, NULL);
        tl_desc_byte(d, eo, &bit);
        const char *nibble = !nibbles ? NULL : bit ? "high" : "low";
        if (!json) {
            cli_print_u64_list(stdout, idx[i], d->rank, ",");
            printf(" %" PRIu64 " %" PRIu64 "%s%s\n", eo, bo, nibble ? " " : "", nibble ? nibble : "");
            continue;
        }
        cJSON *o = cJSON_CreateObject();
        ok = o && tl_json_add_u64_array(o, "index", idx[i], d->rank) &&
             tl_json_add_u64(o, "elementOffset", eo) && tl_json_add_u64(o, "byteOffset", bo) &&
             (!nibble || cJSON_AddStringToObject(o, "nibble", nibble));
        if (o)
            cJSON_AddItemToArray(arr, o);
    }
    free(idx);
    if (!ok) {
        cJSON_Delete(arr);
        return cli_print_json(NULL);
    }
    return json ? cli_print_json(arr) : CLI_OK;
}

struct owners {
    const char *prefix;  /* a map's tensor: its name before each line, or NULL */
    unsigned rank;
    uint64_t seen;
    const char *nibble;  /* a 4-bit type: "low" or "high", shown after each index */
    cJSON *list;         /* --json: array of indices */
    bool failed;
};

/* Every owner of the byte's elements counted, within the search's work
 * bound: the total a cut list carries.  @return false when the count did
 * not finish (or memory ran out). */
static bool count_owners(const struct tl_desc *d, uint64_t elem, unsigned slots, uint64_t span,
                         uint64_t steps, uint64_t *total)
{
    bool complete = true;
    *total = 0;
    for (unsigned k = 0; k < slots && complete; k++) {
        if (elem + k >= span)
            continue;
        struct tl_finder *f = tl_finder_new(d);
        if (!f)
            return false;
        tl_finder_limit(f, steps);
        tl_finder_find(f, elem + k, UINT64_MAX, cli_count_one, total);
        complete = tl_finder_complete(f);
        tl_finder_free(f);
    }
    return complete;
}

static int print_owner(const uint64_t *idx, void *ctx)
{
    struct owners *o = ctx;
    if (++o->seen > MAX_OWNERS)
        return 1;
    if (!o->list) {
        if (o->prefix)
            printf("%s ", o->prefix);
        cli_print_u64_list(stdout, idx, o->rank, ",");
        printf("%s%s\n", o->nibble ? " " : "", o->nibble ? o->nibble : "");
        return 0;
    }
    cJSON *holder = cJSON_CreateObject();
    if (!holder || !tl_json_add_u64_array(holder, "i", idx, o->rank)) {
        cJSON_Delete(holder);
        o->failed = true;
        return 1;
    }
    cJSON *a = cJSON_DetachItemFromObject(holder, "i");
    cJSON_Delete(holder);
    cJSON_AddItemToArray(o->list, a);
    return 0;
}

/* What the search for a byte's owners found. */
struct owned {
    uint64_t elem;                      /* the first element offset the byte holds */
    unsigned slots;                     /* 1, or a 4-bit type's 2 */
    uint64_t found;
    bool outside, complete;
};

/* offset --byte --json's document, finished (a list cut at MAX_OWNERS
 * carries its total, null when the count, within the same work bound, did
 * not finish) and printed, or handed to *sink.  @return rc, or the
 * printing's failure. */
static int owners_json(cJSON *doc, const struct cli_desc *c, const struct owned *w,
                       uint64_t steps, cJSON **sink, int rc)
{
    uint64_t total = w->found;
    bool cut = w->found > MAX_OWNERS, counted = !cut ||
               count_owners(&c->d, w->elem, w->slots, c->info.span, steps, &total);
    if (!cJSON_AddBoolToObject(doc, "truncated", cut) ||
        !(counted ? tl_json_add_u64(doc, "indexCount", cut ? total : w->found)
                  : cJSON_AddNullToObject(doc, "indexCount") != NULL) ||
        !cJSON_AddBoolToObject(doc, "padding", !w->outside && w->found == 0 && w->complete) ||
        !cJSON_AddBoolToObject(doc, "outside", w->outside) ||
        !cJSON_AddBoolToObject(doc, "complete", w->complete)) {
        cJSON_Delete(doc);
        return cli_print_json(NULL);
    }
    if (sink) {
        *sink = doc;
        return rc;
    }
    int jrc = cli_print_json(doc);
    return jrc != CLI_OK ? jrc : rc;
}

/* offset --byte's last line, after the indices listed: more than listed,
 * outside, unknown, padding, or a nibble that is padding. */
static void owners_text(const char *prefix, const struct owned *w, const bool *nibble_padding)
{
    const char *p = prefix ? prefix : "", *sp = prefix ? " " : "";
    if (w->found > MAX_OWNERS)
        printf("%s%s... (more than %d indices)\n", p, sp, MAX_OWNERS);
    else if (w->outside)
        printf("%s%soutside\n", p, sp);
    else if (!w->complete)
        printf(w->found ? "%s%s... (the search stopped: there may be more)\n"
                        : "%s%sunknown\n", p, sp);
    else if (w->found == 0)
        printf("%s%spadding\n", p, sp);
    else if (w->slots == 2)             /* one nibble owned, the other not */
        for (unsigned k = 0; k < 2; k++)
            if (nibble_padding[k])
                printf("%s%spadding %s\n", p, sp, k ? "high" : "low");
}

/* The indices that own byte `byte` of c's data file, printed (a map's
 * tensor: each line after `prefix`), or with json as one document (sink:
 * handed to the caller instead of printed). */
static int byte_owners(const struct cli_desc *c, uint64_t byte, const char *prefix,
                       uint64_t steps, bool json, cJSON **sink)
{
    const struct tl_desc *d = &c->d;
    const struct tl_info *in = &c->info;
    uint64_t origin = tl_desc_origin(d);
    bool outside = byte < origin || byte - origin >= tl_desc_extent(d, in);
    struct owners o = { .prefix = prefix, .rank = d->rank };
    cJSON *doc = NULL;
    if (json) {
        doc = cJSON_CreateObject();
        if (!doc || !tl_json_add_u64(doc, "byte", byte) ||
            !(o.list = cJSON_AddArrayToObject(doc, "indices"))) {
            cJSON_Delete(doc);
            return cli_print_json(NULL);
        }
    }
    /* the element offsets the byte holds: one, or a 4-bit type's two */
    uint64_t found = 0, elem = outside ? 0 : tl_dtype_count(d->dtype, byte - origin);
    unsigned slots = tl_dtype_bits(d->dtype) == 4 ? 2 : 1;
    bool complete = true, nibble_padding[2] = { false, false };
    for (unsigned k = 0; k < slots && !outside; k++) {
        uint64_t before = o.seen, got = 0;
        bool done = true;
        o.nibble = slots == 1 ? NULL : k ? "high" : "low";
        if (elem + k < in->span) {
            struct tl_finder *f = tl_finder_new(d);
            if (!f) {
                cJSON_Delete(doc);
                cli_oom();
                return CLI_IO;
            }
            tl_finder_limit(f, steps);
            got = tl_finder_find(f, elem + k, MAX_OWNERS + 1 - found, print_owner, &o);
            done = tl_finder_complete(f);
            tl_finder_free(f);
        }
        found += got;
        complete &= done;
        nibble_padding[k] = got == 0 && done;
        if (json && slots == 2) {          /* each nibble's own owners, in "low" / "high" */
            cJSON *nib = cJSON_AddObjectToObject(doc, o.nibble);
            cJSON *list = nib ? cJSON_AddArrayToObject(nib, "indices") : NULL;
            cJSON *all = o.list;
            if (!list || !cJSON_AddBoolToObject(nib, "padding", nibble_padding[k])) {
                cJSON_Delete(doc);
                return cli_print_json(NULL);
            }
            for (int i = (int)before; i < cJSON_GetArraySize(all); i++)
                cJSON_AddItemToArray(list, cJSON_Duplicate(cJSON_GetArrayItem(all, i), 1));
        }
        if (found > MAX_OWNERS || o.failed)
            break;
    }
    if (o.failed) {
        cJSON_Delete(doc);
        return cli_print_json(NULL);
    }
    /* a search cut at its work bound listed the first owners only; with
     * none listed, owned and padding cannot be told apart */
    if (!complete)
        cli_error("%s: byte %" PRIu64 ": the search for its indices stopped at "
                "its work bound: %s%s", c->name, byte,
                found ? "those listed are the first, there may be more"
                      : "owned or padding is unknown",
                " (--search-steps N lets it search further)");
    int rc = complete ? CLI_OK : CLI_NO;
    struct owned w = { elem, slots, found, outside, complete };
    if (json)
        return owners_json(doc, c, &w, steps, sink, rc);
    owners_text(prefix, &w, nibble_padding);
    return rc;
}

static bool parse_byte(const char *byte_arg, uint64_t *byte)
{
    char q[64];
    if (cli_parse_bytes(byte_arg, byte))
        return true;
    cli_usage_error("offset", "--byte: '%s' is not a byte position", tl_quote(byte_arg, q, sizeof q));
    return false;
}

static int by_byte(const struct cli_desc *c, const char *byte_arg, uint64_t steps, bool json)
{
    uint64_t byte;
    if (!parse_byte(byte_arg, &byte))
        return CLI_USAGE;
    if (c->blocks)
        return block_byte(c, byte, json);
    return byte_owners(c, byte, NULL, steps, json, NULL);
}

/* --byte N of a whole buffer map (SPEC 19): every tensor whose buffer holds
 * the byte, one line each owner prefixed with its name (or its padding);
 * else the gap it falls in, or outside every buffer.  @return CLI_NO when
 * no tensor's element owns it... only when a search was cut short, as for
 * one tensor. */
static int map_byte(const struct tl_file *tf, const char *map, const char *byte_arg,
                    uint64_t steps, bool json)
{
    uint64_t byte;
    if (!parse_byte(byte_arg, &byte))
        return CLI_USAGE;
    cJSON *doc = NULL, *arr = NULL;
    if (json && (!(doc = cJSON_CreateObject()) || !tl_json_add_u64(doc, "byte", byte) ||
                 !(arr = cJSON_AddArrayToObject(doc, "tensors")))) {
        cJSON_Delete(doc);
        return cli_print_json(NULL);
    }
    int rc = CLI_OK;
    size_t held = 0;
    uint64_t end = 0;
    for (size_t i = 0; i < tf->count; i++) {
        const struct tl_file_tensor *t = &tf->tensors[i];
        if (t->end > end)
            end = t->end;
        if (byte < t->begin || byte >= t->end)
            continue;
        struct cli_desc c;
        memset(&c, 0, sizeof c);
        c.d = t->desc;
        tl_desc_classify(&c.d, &c.info);
        snprintf(c.name, sizeof c.name, "%.120s:%s", map, t->name);
        cJSON *one = NULL;
        int r = byte_owners(&c, byte, t->name, steps, json, json ? &one : NULL);
        if (json && one) {
            cJSON_AddStringToObject(one, "name", t->name);
            cJSON_AddItemToArray(arr, one);
        } else if (json) {
            rc = CLI_IO;
        }
        if (r > rc)
            rc = r;
        held++;
    }
    if (json) {
        const char *where = held ? "tensor" : byte < end ? "gap" : "outside";
        if (!cJSON_AddStringToObject(doc, "in", where)) {
            cJSON_Delete(doc);
            return cli_print_json(NULL);
        }
        int jrc = cli_print_json(doc);
        return jrc != CLI_OK ? jrc : rc;
    }
    if (!held)
        printf(byte < end ? "gap (between the map's buffers)\n" : "outside (past every buffer of "
               "the map)\n");
    return rc;
}

/* A part's place under key of e: {"tensor", "row", "column", "bit" (where
 * bit is not -1), "byte"}. */
static void part_json(cJSON *e, const char *key, const char *tensor, uint64_t row, uint64_t col,
                      int bit, uint64_t byte)
{
    cJSON *o = cJSON_AddObjectToObject(e, key);
    if (!o)
        return;
    cJSON_AddStringToObject(o, "tensor", tensor);
    tl_json_add_u64(o, "row", row);
    tl_json_add_u64(o, "column", col);
    if (bit >= 0)
        cJSON_AddNumberToObject(o, "bit", bit);
    tl_json_add_u64(o, "byte", byte);
}

/* Where each INDEX of a group-quantized weight lies (SPEC 21): its group,
 * the packed word and bits of its code, its scale, its zero point. */
static int grouped_offsets(const struct cli_data *file, const struct tl_file *tf,
                           const struct tl_scaled *p, int n, const char **args, bool json)
{
    cJSON *arr = json ? cJSON_CreateArray() : NULL;
    const struct tl_file_tensor *pk = &tf->tensors[p->weight], *sc = &tf->tensors[p->scale];
    size_t zr = p->extra[TL_PART_ZEROS];
    for (int k = 0; k < n; k++) {
        uint64_t idx[TL_MAX_RANK];
        char q[64];
        if (cli_parse_u64_list(args[k], idx, TL_MAX_RANK) != 2 || idx[0] >= p->out ||
            idx[1] >= p->in) {
            cli_error("offset: index '%s' must be o,i inside [%" PRIu64 ", %" PRIu64 "] ('%s' "
                      "is %s's logical weight)", tl_quote(args[k], q, sizeof q), p->out, p->in,
                      p->name, tl_scaled_kind_name(p->kind));
            cJSON_Delete(arr);
            return CLI_INVALID;
        }
        struct tl_grouped_place w;
        tl_grouped_where(tf, file->bytes, p, idx[0], idx[1], &w);
        unsigned hi = w.bit + p->bits - 1, zhi = w.zero_bit + p->bits - 1;
        if (!json) {
            printf("%s [%s]: group %" PRIu64 "\n", p->name, args[k], w.group);
            printf("  code   %s[%" PRIu64 ", %" PRIu64 "] bits %u..%u%s (byte %" PRIu64 ")\n",
                   pk->name, w.word_row, w.word_col, w.bit, hi, hi > 31 ? " (into the next word)"
                   : "", w.word_at);
            printf("  scale  %s[%" PRIu64 ", %" PRIu64 "] (byte %" PRIu64 ")\n", sc->name,
                   w.scale_row, w.scale_col, w.scale_at);
            if (zr == SIZE_MAX)
                printf("  zero   %d (symmetric: no zero points)\n", p->zero);
            else
                printf("  zero   %s[%" PRIu64 ", %" PRIu64 "] bits %u..%u (byte %" PRIu64 ")\n",
                       tf->tensors[zr].name, w.zero_row, w.zero_col, w.zero_bit, zhi,
                       w.zero_at);
            continue;
        }
        cJSON *e = cJSON_CreateObject();
        cJSON_AddItemToArray(arr, e);
        cJSON_AddStringToObject(e, "index", args[k]);
        tl_json_add_u64(e, "group", w.group);
        part_json(e, "code", pk->name, w.word_row, w.word_col, (int)w.bit, w.word_at);
        part_json(e, "scale", sc->name, w.scale_row, w.scale_col, -1, w.scale_at);
        if (zr == SIZE_MAX)
            cJSON_AddNullToObject(e, "zero");
        else
            part_json(e, "zero", tf->tensors[zr].name, w.zero_row, w.zero_col, (int)w.zero_bit,
                      w.zero_at);
    }
    return json ? cli_print_json(arr) : CLI_OK;
}

int cmd_offset(int argc, char **argv)
{
    static char gloss[512];
    struct arg_file *desc = arg_file1(NULL, NULL, "DESC", cli_formats_text("tensor description: a JSON file, '-' or inline JSON, or a tensor file (@FORMATS@, a shard index; FILE[:NAME])", gloss, sizeof gloss));
    struct arg_str *axes = arg_str0(NULL, "axes", "L", "a tensor file's dimensions as logical axes, outermost first (NHWC, 0,2,3,1)");
    struct arg_str *index = arg_strn(NULL, NULL, "INDEX", 0, argc > 1 ? argc : 1, "logical index, e.g. 1,0,1");
    struct arg_str *byte = arg_str0(NULL, "byte", "N", "which indices own byte N of the data file");
    struct arg_str *steps = arg_str0(NULL, "search-steps", "N", "with --byte: stop the search after N steps (default 33554432)");
    struct arg_lit *json = arg_lit0(NULL, "json", "print one JSON document");
    struct arg_lit *help = arg_lit0("h", "help", "print this help and exit");
    struct cli_desc_opts dopt;
    cli_desc_opts_init(&dopt, "offset", 1);
    struct arg_end *end = arg_end(5);
    void *table[] = { desc, index, dopt.type, dopt.sizes, dopt.strides, dopt.layout,
                      dopt.byte_offset, dopt.total_size, dopt.file_offset, dopt.alignment, byte, steps, axes, json, help, end };
    uint64_t nsteps = 0;
    int rc = CLI_IO;
    if (arg_nullcheck(table) == 0)
        rc = cli_parse_args_desc(argc, argv, table, about, &dopt);
    if (rc == CLI_CONTINUE) {
        if (byte->count && index->count) {
            cli_usage_error("offset", "give either INDEX... or --byte N, not both");
            rc = CLI_USAGE;
        } else if (!byte->count && !index->count) {
            cli_usage_error("offset", "missing INDEX (or --byte N)");
            rc = CLI_USAGE;
        } else if ((rc = cli_search_steps("offset", steps, &nsteps)) == CLI_OK) {
            struct cli_desc d;
            struct tl_file map;
            struct cli_data gfile;
            struct tl_scaled *pairs = NULL;
            const struct tl_scaled *gp = NULL;
            int g = byte->count || axes->count ? -1
                  : cli_grouped_named(desc->filename[0], &gfile, &map, &pairs, &gp);
            if (g != -1) {                      /* a group-quantized weight (SPEC 21) */
                rc = g ? g : grouped_offsets(&gfile, &map, gp, index->count, index->sval,
                                             json->count > 0);
                if (g == CLI_OK) {
                    free(pairs);
                    tl_file_free(&map);
                    cli_close_data(&gfile);
                }
            } else if (byte->count && !axes->count && cli_map_whole(desc->filename[0], &map)) {
                rc = map_byte(&map, desc->filename[0], byte->sval[0], nsteps, json->count > 0);
                tl_file_free(&map);
            } else if ((rc = cli_load_desc(desc->filename[0], axes->count ? axes->sval[0] : NULL,
                                           &d)) != CLI_OK) {
            } else {
                rc = byte->count ? by_byte(&d, byte->sval[0], nsteps, json->count > 0)
                                 : by_index(&d, index->count, index->sval, json->count > 0);
                cli_desc_release(&d);
            }
        }
    }
    arg_freetable(table, sizeof table / sizeof table[0]);
    return rc;
}
