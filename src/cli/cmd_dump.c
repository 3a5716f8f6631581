/*
 * cmd_dump.c - `tensorlayout dump DESC DATA`: the values of a tensor in
 * logical order, or with --physical the buffer in offset order.
 *
 * Nothing here allocates in proportion to the tensor: both views walk the
 * indices they print, and a summarized view (over 1000 elements, without
 * --all) prints 3 items at each edge of every long axis, as numpy does.
 * JSON output is streamed, since --json prints every value.
 */
#include <argtable2.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"

#define EDGE 3
#define SUMMARY_OVER 1000
#define ELL UINT64_MAX            /* an index that stands for "..." */
#define MAX_LISTED 8              /* owners listed per slot in --physical --json */

static const char about[] =
    "Prints the tensor's values in logical order: the innermost axis along a\n"
    "line, a blank line between blocks, each block headed by its outer indices.\n"
    "With --physical, prints the buffer in offset order instead, one slot per\n"
    "element position, with the index of the element that lives there, or\n"
    "'padding' when no element reaches the slot, or 'shared' when several do;\n"
    "a 4-bit type (UINT4, INT4) has one slot a nibble, and says which.\n"
    "Over 1000 elements (or slots) the view is summarized with '...' unless\n"
    "--all is given; a summarized --physical view keeps the first run of\n"
    "padding it leaves out, as one line.  --json prints every value.  A tensor file's tensor takes\n"
    "an index prefix in place of DATA: dump x.npy 0,1 prints x[0,1,...], and an\n"
    "index of every axis its one value.\n"
    "--stats prints count, min, max, mean and the NaN and infinity counts.";

#define JSON_BLOCK (64u << 10)

struct dump {
    const struct tl_desc *d;
    struct tl_finder *finder;      /* for --physical: who owns each slot */
    const unsigned char *file;     /* the data file */
    struct tl_values *values;      /* or the reader of an encoded tensor's decoded image */
    unsigned rank;
    /* the logical view's axes: those of size > 1 (the last axis when none
     * is), so that axes of size 1 head no block of their own; col runs
     * along a line, row down a block (nrows 0: one line) */
    unsigned view[TL_MAX_RANK], nview, row, col;
    bool summarize, measure;
    bool hex;                      /* --physical --hex: each slot's bytes too */
    int width;                     /* widest value, found by the measuring pass */
    bool first_block;
    uint64_t idx[TL_MAX_RANK];
    /* the values' text from the measuring pass, reused by the printing
     * pass while it fits in TEXT_CACHE bytes (a length byte, the text) */
    char *cache;
    size_t cap, cached, read;
    char *line;                    /* the row being printed, written at once */
    size_t line_len, line_cap;
    /* --json's text, written out a block at a time (a call of fputs and
     * strlen a value took 15% of the time) */
    char json[JSON_BLOCK];
    size_t json_len;
};

#define TEXT_CACHE (64u << 20)

/* The k-th index shown along an axis of size n, or ELL; count in *count. */
static uint64_t shown(const struct dump *s, uint64_t n, uint64_t k, uint64_t *count)
{
    if (!s->summarize || n <= 2 * EDGE) {
        *count = n;
        return k;
    }
    *count = 2 * EDGE + 1;
    return k < EDGE ? k : k == EDGE ? ELL : n - (2 * EDGE + 1 - k);
}

/* Image bytes [at, at + n): the file's, or the reader's (zeros where
 * the blocks do not decode: said once by the loader's checks). */
static const uint8_t *image(const struct dump *s, uint64_t at, uint64_t n)
{
    static const uint8_t zeros[16];
    if (!s->values)
        return s->file + at;
    const uint8_t *p = tl_values_at(s->values, at, n, NULL);
    return p ? p : zeros;
}

/* The element at elem_offset, as tl_desc_get gives it. */
static void get(const struct dump *s, uint64_t elem_offset, void *v)
{
    if (!s->values) {
        tl_desc_get(s->d, s->file, elem_offset, v);
        return;
    }
    /* a decoded image keeps a 4-bit type's pairs in a byte (ONNX's
     * int32_data) */
    unsigned bit;
    uint64_t at = tl_desc_byte(s->d, elem_offset, &bit);
    tl_dtype_get(s->d->dtype, image(s, at, tl_dtype_size(s->d->dtype)), bit, v);
}

static int format_at(const struct dump *s, uint64_t elem_offset, char *buf, size_t n)
{
    if (!s->values)
        return tl_desc_format(s->d, s->file, elem_offset, buf, n);
    uint8_t v[16];
    get(s, elem_offset, v);
    return tl_dtype_format(s->d->dtype, v, buf, n);
}

static uint64_t offset_of(const struct dump *s)
{
    return tl_desc_elem(s->d, s->idx);
}

/* Prints (or measures) one item of a row. */
static void item(struct dump *s, const char *text, bool first)
{
    int len = (int)strlen(text);
    if (s->measure) {
        if (len > s->width)
            s->width = len;
        return;
    }
    int pad = s->width - len + (first ? 0 : 1);
    if (pad < 0)
        pad = 0;
    size_t need = s->line_len + (size_t)pad + (size_t)len + 2;
    if (need > s->line_cap) {
        size_t cap = need * 2 < 4096 ? 4096 : need * 2;
        char *bigger = realloc(s->line, cap);
        if (!bigger) {                   /* no room: the slow way */
            printf("%.*s%s%*s", (int)s->line_len, s->line ? s->line : "", first ? "" : " ",
                   s->width, text);
            s->line_len = 0;
            return;
        }
        s->line = bigger;
        s->line_cap = cap;
    }
    memset(s->line + s->line_len, ' ', (size_t)pad);
    memcpy(s->line + s->line_len + pad, text, (size_t)len);
    s->line_len += (size_t)pad + (size_t)len;
}

static void row(struct dump *s)
{
    unsigned last = s->col;
    uint64_t count;
    shown(s, s->d->sizes[last], 0, &count);
    for (uint64_t k = 0; k < count; k++) {
        uint64_t x = shown(s, s->d->sizes[last], k, &count);
        char buf[48];
        if (x == ELL) {
            item(s, "...", k == 0);
            continue;
        }
        s->idx[last] = x;
        if (!s->measure && s->read < s->cached) {
            size_t len = (unsigned char)s->cache[s->read];
            memcpy(buf, s->cache + s->read + 1, len);
            buf[len] = '\0';
            s->read += 1 + len;
        } else {
            int len = format_at(s, offset_of(s), buf, sizeof buf);
            if (s->measure && s->cached + 1 + (size_t)len <= s->cap) {
                s->cache[s->cached] = (char)len;
                memcpy(s->cache + s->cached + 1, buf, (size_t)len);
                s->cached += 1 + (size_t)len;
            } else if (s->measure) {
                s->cap = 0;              /* full: the rest is formatted again */
            }
        }
        item(s, buf, k == 0);
    }
    if (!s->measure) {
        if (s->line) {
            s->line[s->line_len++] = '\n';
            fwrite(s->line, 1, s->line_len, stdout);
            s->line_len = 0;
        } else {
            putchar('\n');
        }
    }
}

static void separator(struct dump *s)
{
    if (!s->measure && !s->first_block)
        putchar('\n');
    s->first_block = false;
}

static void block(struct dump *s)
{
    unsigned r = s->row;
    uint64_t count;
    separator(s);
    if (!s->measure && s->rank > 2) {       /* the block's place, its grid as ':' */
        putchar('[');
        for (unsigned i = 0; i < s->rank; i++) {
            if (i == r || i == s->col)
                printf("%s:", i ? "," : "");
            else
                printf("%s%" PRIu64, i ? "," : "", s->idx[i]);
        }
        printf("]\n");
    }
    shown(s, s->d->sizes[r], 0, &count);
    for (uint64_t k = 0; k < count; k++) {
        uint64_t y = shown(s, s->d->sizes[r], k, &count);
        if (y == ELL) {
            if (!s->measure)
                printf("%*s\n", s->width, "...");
            continue;
        }
        s->idx[r] = y;
        row(s);
    }
}

/* The blocks of view axes k.. (the last two are a block's grid). */
static void blocks(struct dump *s, unsigned k)
{
    if (k == s->nview - 2) {
        block(s);
        return;
    }
    unsigned dim = s->view[k];
    uint64_t count;
    shown(s, s->d->sizes[dim], 0, &count);
    for (uint64_t j = 0; j < count; j++) {
        uint64_t v = shown(s, s->d->sizes[dim], j, &count);
        if (v == ELL) {
            separator(s);
            if (!s->measure)
                printf("...\n");
            continue;
        }
        s->idx[dim] = v;
        blocks(s, k + 1);
    }
}

static void logical_text(struct dump *s)
{
    uint64_t n = s->d->rank ? 1 : 0;
    for (unsigned i = 0; i < s->d->rank; i++)
        n *= s->d->sizes[i];
    /* a cache for the whole text when it may fit, else none */
    size_t want = n * 26 + 1 < TEXT_CACHE ? (size_t)(n * 26 + 1) : TEXT_CACHE;
    s->cache = s->summarize ? NULL : malloc(want);
    s->cap = s->cache ? want : 0;
    s->cached = s->read = 0;
    for (int pass = 0; pass < 2; pass++) {
        s->measure = pass == 0;
        s->first_block = true;
        if (s->nview == 1)
            row(s);
        else
            blocks(s, 0);
    }
    free(s->cache);
    s->cache = NULL;
    s->cap = s->cached = s->read = 0;
    free(s->line);
    s->line = NULL;
    s->line_len = s->line_cap = 0;
}

static void json_flush(struct dump *s)
{
    fwrite(s->json, 1, s->json_len, stdout);
    s->json_len = 0;
}

static void json_put(struct dump *s, const char *text, size_t len)
{
    if (s->json_len + len > sizeof s->json)
        json_flush(s);
    memcpy(s->json + s->json_len, text, len);
    s->json_len += len;
}

/* A value as JSON: numbers as they are, non-finite floats as strings. */
static void json_value(struct dump *s, uint64_t elem_offset)
{
    char buf[48];
    uint8_t v[8];
    get(s, elem_offset, v);
    const char *text = cli_value_json(s->d->dtype, v, buf, sizeof buf);
    json_put(s, text, strlen(text));
}

static void logical_json(struct dump *s, unsigned dim)
{
    json_put(s, "[", 1);
    for (uint64_t x = 0; x < s->d->sizes[dim]; x++) {
        if (x)
            json_put(s, ",", 1);
        s->idx[dim] = x;
        if (dim + 1 == s->rank)
            json_value(s, offset_of(s));
        else
            logical_json(s, dim + 1);
    }
    json_put(s, "]", 1);
}

/* ---- the physical view -------------------------------------------------- */

struct owners {
    unsigned rank;
    uint64_t n;
    uint64_t idx[MAX_LISTED + 1][TL_MAX_RANK];
};

static int keep_owner(const uint64_t *idx, void *ctx)
{
    struct owners *o = ctx;
    memcpy(o->idx[o->n++], idx, o->rank * sizeof *idx);
    return 0;
}

static void print_index(FILE *f, const uint64_t *idx, unsigned rank)
{
    putc('[', f);
    cli_print_u64_list(f, idx, rank, ",");
    putc(']', f);
}

/* Whether slot o is padding: no element's, by a search that ended. */
static bool is_padding(struct dump *s, uint64_t o)
{
    struct owners own = { .rank = s->rank };
    tl_finder_find(s->finder, o, 1, keep_owner, &own);
    return own.n == 0 && tl_finder_complete(s->finder);
}

/* The first run of padding slots within [from, to), looked for among the
 * first PAD_SCAN slots of it and followed as far: *a .. *b - 1 (*b == to
 * + 1 past the scan's end: the run goes on).  @return false when none. */
#define PAD_SCAN (UINT64_C(1) << 16)
static bool first_padding(struct dump *s, uint64_t from, uint64_t to, uint64_t *a, uint64_t *b)
{
    uint64_t end = to - from > PAD_SCAN ? from + PAD_SCAN : to;
    for (uint64_t o = from; o < end; o++) {
        if (!is_padding(s, o))
            continue;
        uint64_t stop = to - o > PAD_SCAN ? o + PAD_SCAN : to, k = o + 1;
        while (k < stop && is_padding(s, k))
            k++;
        *a = o;
        *b = k == stop && stop < to ? to + 1 : k;
        return true;
    }
    return false;
}

/* The columns' widths of the physical view: offset, byte. */
struct columns {
    int offset, byte;
    bool nib;                           /* a 4-bit slot: which nibble */
};

/* The lines where the summary leaves slots out: "...", and the first run
 * of padding among them kept in view, as one line. */
static void physical_gap(struct dump *s, uint64_t span, const struct columns *c)
{
    uint64_t pa, pb;
    printf("%*s  %*s%s\n", c->offset, "...", c->byte, "...", c->nib ? "     ..." : "");
    if (!first_padding(s, EDGE, span - EDGE, &pa, &pb))
        return;
    unsigned bit;
    uint64_t at = tl_desc_byte(s->d, pa, &bit);
    printf("%*" PRIu64 "  %*" PRIu64 "%s  %*s  padding: ", c->offset, pa, c->byte, at,
           !c->nib ? "" : bit ? "    high" : "     low", s->width, "");
    if (pb > span - EDGE)
        printf("slots %" PRIu64 " on, more than %" PRIu64 "\n", pa, PAD_SCAN - 1);
    else if (pb - pa == 1)
        printf("slot %" PRIu64 " (1 slot)\n", pa);
    else
        printf("slots %" PRIu64 "..%" PRIu64 " (%" PRIu64 " slots)\n", pa, pb - 1, pb - pa);
    if (pb != span - EDGE)              /* slots after the run left out */
        printf("%*s  %*s%s\n", c->offset, "...", c->byte, "...", c->nib ? "     ..." : "");
}

/* Slot o's line: offset, byte (and nibble), value, its bytes in hex, and
 * the element or elements it holds (padding, shared, unknown). */
static void physical_line(struct dump *s, uint64_t o, const char *value, const struct columns *c,
                          unsigned hw)
{
    struct owners own = { .rank = s->rank };
    tl_finder_find(s->finder, o, 4, keep_owner, &own);
    unsigned bit, size = tl_dtype_size(s->d->dtype);
    uint64_t at = tl_desc_byte(s->d, o, &bit);
    printf("%*" PRIu64 "  %*" PRIu64 "%s  %*s  ", c->offset, o, c->byte, at,
           !c->nib ? "" : bit ? "    high" : "     low", s->width, value);
    if (s->hex) {                       /* the slot's bytes as the file holds them */
        char hx[24] = "";
        const uint8_t *p = image(s, at, c->nib ? 1 : size);
        if (c->nib)
            snprintf(hx, sizeof hx, "%x", (unsigned)(p[0] >> (bit ? 4 : 0)) & 15u);
        for (unsigned b = 0; !c->nib && b < size; b++)
            snprintf(hx + 2 * b, sizeof hx - 2 * b, "%02x", p[b]);
        printf("%*s  ", (int)hw, hx);
    }
    if (!tl_finder_complete(s->finder))         /* stopped at its work bound */
        printf("unknown");
    else if (own.n == 0)
        printf("padding");
    else if (own.n > 1)
        printf("shared");
    for (uint64_t i = 0; i < own.n && i < 3; i++) {
        if (own.n > 1 || !tl_finder_complete(s->finder))
            putchar(' ');
        print_index(stdout, own.idx[i], s->rank);
    }
    if (own.n > 3)
        printf(" ...");
    putchar('\n');
}

static void physical_text(struct dump *s, uint64_t span)
{
    struct columns c = { snprintf(NULL, 0, "%" PRIu64, span - 1),
                         snprintf(NULL, 0, "%" PRIu64, tl_desc_byte(s->d, span - 1, NULL)),
                         tl_dtype_bits(s->d->dtype) == 4 };
    if (c.offset < 6)
        c.offset = 6;
    if (c.byte < 4)
        c.byte = 4;
    s->width = 5;                       /* "value" */
    unsigned size = tl_dtype_size(s->d->dtype), hw = c.nib ? 3 : 2 * size;
    if (hw < 3)
        hw = 3;
    for (int pass = 0; pass < 2; pass++) {      /* the values' width, then the lines */
        s->measure = pass == 0;
        if (!s->measure)
            printf("%*s  %*s%s  %*s  %s%*s%s\n", c.offset, "offset", c.byte, "byte",
                   c.nib ? "  nibble" : "", s->width, "value", s->hex ? "" : "",
                   s->hex ? (int)hw : 0, s->hex ? "hex" : "", s->hex ? "  element" : "element");
        uint64_t count;
        shown(s, span, 0, &count);
        for (uint64_t k = 0; k < count; k++) {
            uint64_t o = shown(s, span, k, &count);
            char buf[48];
            if (o == ELL) {
                if (!s->measure)
                    physical_gap(s, span, &c);
                continue;
            }
            format_at(s, o, buf, sizeof buf);
            if (s->measure)
                item(s, buf, true);
            else
                physical_line(s, o, buf, &c, hw);
        }
    }
}

/* The owners a slot's cut list stands for, counted up to this many (more
 * is null: a broadcast slot may have billions). */
#define MAX_COUNTED 65536

static void physical_json(struct dump *s, uint64_t span)
{
    printf("{\"slotCount\":%" PRIu64 ",\"slots\":[", span);
    for (uint64_t o = 0; o < span; o++) {
        struct owners own = { .rank = s->rank };
        tl_finder_find(s->finder, o, MAX_LISTED + 1, keep_owner, &own);
        unsigned bit;
        uint64_t at = tl_desc_byte(s->d, o, &bit);
        printf("%s{\"offset\":%" PRIu64 ",\"byte\":%" PRIu64 ",", o ? "," : "", o, at);
        if (tl_dtype_bits(s->d->dtype) == 4)
            printf("\"nibble\":\"%s\",", bit ? "high" : "low");
        printf("\"value\":");
        json_value(s, o);
        json_flush(s);                   /* before the printf that follows */
        bool known = tl_finder_complete(s->finder);
        printf(",\"padding\":%s,\"shared\":%s,\"unknown\":%s,\"indices\":[",
               known && own.n == 0 ? "true" : "false", known && own.n > 1 ? "true" : "false",
               known ? "false" : "true");
        for (uint64_t i = 0; i < own.n && i < MAX_LISTED; i++) {
            if (i)
                putchar(',');
            putchar('[');
            cli_print_u64_list(stdout, own.idx[i], s->rank, ",");
            putchar(']');
        }
        uint64_t total = own.n;         /* a cut list carries its total */
        if (own.n > MAX_LISTED) {
            total = 0;
            tl_finder_find(s->finder, o, MAX_COUNTED + 1, cli_count_one, &total);
        }
        if (total > MAX_COUNTED || !tl_finder_complete(s->finder))
            printf("],\"truncated\":%s,\"indexCount\":null}",
                   own.n > MAX_LISTED ? "true" : "false");
        else
            printf("],\"truncated\":%s,\"indexCount\":%" PRIu64 "}",
                   own.n > MAX_LISTED ? "true" : "false", total);
    }
    printf("]}\n");
}

/* An index prefix ("0,1"): digits and commas, not a file's name. */
static bool is_prefix(const char *arg)
{
    struct stat st;
    if (!arg || !*arg || stat(arg, &st) == 0)
        return false;
    for (const char *p = arg; *p; p++)
        if (!((*p >= '0' && *p <= '9') || *p == ','))
            return false;
    return true;
}

/* d becomes its slice d[prefix, ...] (SPEC 19: dump x:w 0,0 is w[0,0,:,:]). */
static int slice(struct cli_desc *c, const char *text)
{
    uint64_t idx[TL_MAX_RANK];
    struct tl_desc *d = &c->d;
    int n = cli_parse_u64_list(text, idx, TL_MAX_RANK);
    char q[64];
    if (n < 1 || (unsigned)n > d->rank) {
        if (d->rank == 1)
            cli_usage_error("dump", "'%s' is not an index of %s's one axis (give one: 5 is "
                            "its value at [5])", tl_quote(text, q, sizeof q), c->name);
        else
            cli_usage_error("dump", "'%s' is not an index of %s's %u axes (one to %u indices: "
                            "0,1 is the slice [0,1,...], %u of them one value)",
                            tl_quote(text, q, sizeof q), c->name, d->rank, d->rank, d->rank);
        return CLI_USAGE;
    }
    uint64_t elem = 0;
    for (int i = 0; i < n; i++) {
        if (idx[i] >= d->sizes[i]) {
            cli_error("%s: index %" PRIu64 " of axis %d is past its size %" PRIu64, c->name, idx[i], i, d->sizes[i]);
            return CLI_INVALID;
        }
        elem += idx[i] * d->strides[i];
    }
    unsigned bit;
    uint64_t bytes = tl_desc_byte(d, elem, &bit) - tl_desc_origin(d);
    if (bit) {
        cli_error("%s: the slice [%s,...] starts in the high nibble of a "
                "byte: dump the whole tensor", c->name, tl_quote(text, q, sizeof q));
        return CLI_INVALID;
    }
    struct tl_desc v = *d;
    bool one = (unsigned)n == d->rank;  /* every axis indexed: one value, as a 0-d array */
    v.rank = one ? 1 : d->rank - (unsigned)n;
    memmove(v.sizes, d->sizes + n, v.rank * sizeof v.sizes[0]);
    memmove(v.strides, d->strides + n, v.rank * sizeof v.strides[0]);
    if (one)
        v.sizes[0] = v.strides[0] = 1;
    v.byte_offset += bytes;
    v.total_given = false;
    v.strides_src = TL_STRIDES_GIVEN;
    struct tl_error err = { 0 };
    if (tl_desc_validate(&v, &err)) {
        cli_error("%s: the slice: %s", c->name, err.msg);
        return CLI_INVALID;
    }
    *d = v;
    c->scalar = one;
    tl_desc_classify(d, &c->info);
    return CLI_OK;
}

/* count, min, max, mean, NaN and infinity counts (--stats). */
static void stats(const struct dump *s, const struct cli_desc *c, bool json)
{
    const struct tl_desc *d = &c->d;
    enum tl_dtype vt = tl_dtype_unpacked(d->dtype);
    uint64_t idx[TL_MAX_RANK] = { 0 }, count = 0, nan = 0, inf = 0;
    uint8_t v[8], lo[8], hi[8];
    double sum = 0, min = 0, max = 0;
    bool have = false;
    do {
        double x;
        get(s, tl_desc_elem(d, idx), v);
        tl_convert_value(vt, v, TL_DT_FLOAT64, &x);
        count++;
        if (isnan(x)) {
            nan++;
            continue;
        }
        inf += isinf(x) != 0;
        sum += x;
        if (!have || x < min)
            min = x, memcpy(lo, v, sizeof v);
        if (!have || x > max)
            max = x, memcpy(hi, v, sizeof v);
        have = true;
    } while (tl_index_next(d->rank, d->sizes, idx));
    double mean = have ? sum / (double)(count - nan) : NAN;
    char smin[64] = "null", smax[64] = "null", smean[64];
    if (have) {
        if (json) {
            cli_value_json(vt, lo, smin, sizeof smin);
            cli_value_json(vt, hi, smax, sizeof smax);
        } else {
            tl_dtype_format(vt, lo, smin, sizeof smin);
            tl_dtype_format(vt, hi, smax, sizeof smax);
        }
    }
    if (json) {
        cli_value_json(TL_DT_FLOAT64, &mean, smean, sizeof smean);
        printf("{\"count\":%" PRIu64 ",\"min\":%s,\"max\":%s,\"mean\":%s,\"nan\":%"
               PRIu64 ",\"inf\":%" PRIu64 "}\n", count, smin, smax, have ? smean : "null",
               nan, inf);
        return;
    }
    tl_dtype_format(TL_DT_FLOAT64, &mean, smean, sizeof smean);
    printf("count  %" PRIu64 "\nmin    %s\nmax    %s\nmean   %s\nnan    %" PRIu64 "\ninf    %"
           PRIu64 "\n", count, have ? smin : "-", have ? smax : "-", have ? smean : "-", nan, inf);
}

/* A tensor with no elements, as numpy prints it: [] (in JSON, nested as
 * tolist() nests it: the axes before the first 0 hold lists). */
static void print_empty(unsigned ndim, const uint64_t *shape, bool json)
{
    if (!json) {
        printf("[]\n");
        return;
    }
    printf("{\"sizes\":[");
    cli_print_u64_list(stdout, shape, ndim, ",");
    printf("],\"values\":");
    unsigned k = 0;
    uint64_t lists = 1;
    while (k < ndim && shape[k]) {
        lists *= shape[k];
        k++;
    }
    if (k == 0) {
        printf("[]}\n");
        return;
    }
    uint64_t idx[TL_MAX_RANK] = { 0 };          /* shape[0..k) of empty lists */
    for (unsigned i = 0; i < k; i++)
        printf("[");
    for (uint64_t n = 0; n < lists; n++) {
        printf("[]");
        unsigned i = k;
        while (i-- > 0 && ++idx[i] == shape[i]) {
            idx[i] = 0;
            printf("]");
        }
        if (n + 1 < lists)
            printf(",");
        if (i < k && n + 1 < lists)
            for (unsigned j = i + 1; j < k; j++)
                printf("[");
    }
    printf("}\n");
}

/* The physical view: every slot of the span (and of the declared total,
 * when the file holds it), each with the element it holds.
 * @return CLI_OK, or CLI_IO (said). */
static int dump_physical(struct dump *s, const struct cli_desc *desc, const struct cli_data *data,
                         bool all, bool json, uint64_t steps)
{
    uint64_t span = desc->info.span;
    s->finder = tl_finder_new(&desc->d);
    if (!s->finder)
        return cli_oom();
    tl_finder_limit(s->finder, steps);
    uint64_t slots = tl_dtype_count(desc->d.dtype, desc->d.total_bytes);
    if (desc->d.total_given && slots > span &&
        data->size - tl_desc_origin(&desc->d) >= tl_dtype_bytes(desc->d.dtype, slots))
        span = slots;
    s->summarize = !all && !json && span > SUMMARY_OVER;
    if (json)
        physical_json(s, span);
    else
        physical_text(s, span);
    tl_finder_free(s->finder);
    return CLI_OK;
}

/* The logical view: the values by index, as text or as nested JSON
 * lists (a 0-d array's one value without sizes). */
static void dump_logical(struct dump *s, const struct cli_desc *desc, bool all, bool json)
{
    if (json && desc->scalar) {
        printf("{\"sizes\":[],\"values\":");
        json_value(s, 0);
        json_flush(s);
        printf("}\n");
    } else if (json) {
        printf("{\"sizes\":[");
        cli_print_u64_list(stdout, desc->d.sizes, desc->d.rank, ",");
        printf("],\"values\":");
        logical_json(s, 0);
        json_flush(s);
        printf("}\n");
    } else {
        s->summarize = !all && desc->info.element_count > SUMMARY_OVER;
        logical_text(s);
    }
}

static int run(const char *desc_arg, const char *data_arg, const char *axes, bool physical,
               bool all, bool json, uint64_t steps, bool want_stats, bool hex)
{
    struct cli_desc desc;
    struct cli_data data;
    const char *prefix = NULL;
    if (is_prefix(data_arg) && cli_is_tensor_file(desc_arg)) {
        prefix = data_arg;              /* a tensor file's tensor, sliced */
        data_arg = NULL;
    }
    unsigned ndim;
    uint64_t shape[TL_MAX_RANK];
    if (!data_arg && !physical && !want_stats && cli_empty_tensor(desc_arg, &ndim, shape)) {
        print_empty(ndim, shape, json);
        return CLI_OK;
    }
    int rc = cli_load_input_streamed(desc_arg, data_arg, axes, "dump", false, &desc, &data);
    if (rc)
        return rc;
    if (!(rc = cli_require_elements(&desc, &data)))
        cli_note_trailing(&desc, &data);        /* of the whole tensor, not of a slice */
    if (rc || (prefix && (rc = slice(&desc, prefix)))) {
        cli_close_data(&data);
        cli_desc_release(&desc);
        return rc;
    }
    struct dump s = {
        .d = &desc.d, .file = data.bytes, .values = desc.values, .rank = desc.d.rank,
        .hex = hex,
    };
    for (unsigned i = 0; i < s.rank; i++) {
        if (desc.d.sizes[i] > 1)
            s.view[s.nview++] = i;
    }
    if (s.nview == 0)
        s.view[s.nview++] = s.rank - 1;
    s.col = s.view[s.nview - 1];
    s.row = s.nview > 1 ? s.view[s.nview - 2] : s.col;
    if (want_stats)
        stats(&s, &desc, json);
    else if (physical)
        rc = dump_physical(&s, &desc, &data, all, json, steps);
    else
        dump_logical(&s, &desc, all, json);
    cli_close_data(&data);
    cli_desc_release(&desc);
    return rc;
}

int cmd_dump(int argc, char **argv)
{
    static char gloss[512];
    struct arg_file *desc = arg_file1(NULL, NULL, "DESC", cli_formats_text("tensor description: a JSON file, '-' or inline JSON, or a tensor file (@FORMATS@, a shard index; FILE[:NAME])", gloss, sizeof gloss));
    struct arg_file *data = arg_file0(NULL, NULL, "DATA", "raw data file ('-' for standard input); none with a tensor file");
    struct arg_str *axes = arg_str0(NULL, "axes", "L", "a tensor file's dimensions as logical axes, outermost first (NHWC, 0,2,3,1)");
    struct arg_lit *physical = arg_lit0(NULL, "physical", "show the buffer in offset order, with padding and shared slots");
    struct arg_lit *all = arg_lit0(NULL, "all", "never summarize large tensors with '...'");
    struct arg_lit *json = arg_lit0(NULL, "json", "print every value as one JSON document");
    struct arg_str *steps = arg_str0(NULL, "search-steps", "N", "with --physical: stop each slot's search for owners after N steps (default 33554432)");
    struct arg_lit *hex = arg_lit0(NULL, "hex", "with --physical: each slot's bytes in hexadecimal too (a fill pattern shows)");
    struct arg_lit *want_stats = arg_lit0(NULL, "stats", "print count, min, max, mean, NaN and infinity counts instead of the values");
    struct arg_lit *help = arg_lit0("h", "help", "print this help and exit");
    struct cli_desc_opts dopt;
    cli_desc_opts_init(&dopt, "dump", 1);
    struct arg_end *end = arg_end(5);
    void *table[] = { desc, data, dopt.type, dopt.sizes, dopt.strides, dopt.layout,
                      dopt.byte_offset, dopt.total_size, dopt.file_offset, dopt.alignment, axes, physical, all, json, steps, hex, want_stats, help, end };
    uint64_t nsteps = 0;
    int rc = CLI_IO;
    if (arg_nullcheck(table) == 0)
        rc = cli_parse_args_desc(argc, argv, table, about, &dopt);
    if (rc == CLI_CONTINUE && hex->count && (!physical->count || json->count)) {
        cli_usage_error("dump", "--hex shows the bytes of --physical's slots (and --json "
                        "gives values)");
        rc = CLI_USAGE;
    }
    if (rc == CLI_CONTINUE && want_stats->count && physical->count) {
        cli_usage_error("dump", "--stats summarizes the values: not with --physical");
        rc = CLI_USAGE;
    }
    if (rc == CLI_CONTINUE && (rc = cli_search_steps("dump", steps, &nsteps)) == CLI_OK)
        rc = run(desc->filename[0], data->count ? data->filename[0] : NULL,
                 axes->count ? axes->sval[0] : NULL, physical->count > 0, all->count > 0,
                 json->count > 0, nsteps, want_stats->count > 0, hex->count > 0);
    arg_freetable(table, sizeof table / sizeof table[0]);
    return rc;
}
