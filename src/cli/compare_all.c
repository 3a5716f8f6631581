/*
 * compare_all.c - `compare A B` of two whole files (SPEC 19): every tensor
 * of the same name, in one process, each comparison on every thread the
 * copy core has; a tensor of a type the tool does not decode compared
 * byte for byte (with its type and shape); names in one side only reported.
 * A side is a file of many tensors (safetensors, .npz) or a sharded
 * model's index (its shards opened and checked as shards.c does).
 *
 * Encoded tensors (a deflated .npz member) are read through the one decode
 * path, cli_decode_tensor.
 */
#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"

/* One side: its files (one, or a model's shards) and their mappings. */
struct side {
    char name[256];
    bool sharded;
    struct cli_shards shards;
    struct cli_data data;               /* a single file's */
    struct tl_file file;
    size_t nfiles;
    struct tl_file *files;
    struct cli_data *datas;
    struct tl_buf buf;                 /* the tensor being compared, read (staged) */
    struct tl_whole_item **plan;        /* A with rules: each file's items (plan[k][i]) */
};

static void side_close(struct side *s)
{
    tl_buf_free(&s->buf);
    for (size_t k = 0; s->plan && k < s->nfiles; k++)
        free(s->plan[k]);
    free(s->plan);
    if (s->sharded) {
        cli_shards_close(&s->shards);
    } else {
        tl_file_free(&s->file);
        cli_close_data(&s->data);
    }
}

static int side_open(const char *path, struct side *s)
{
    memset(s, 0, sizeof *s);
    enum tl_format format;
    int rc = cli_open_file(path, &s->data, &format);
    if (rc)
        return rc;
    snprintf(s->name, sizeof s->name, "%s", s->data.name);
    if (format == TL_FMT_JSON &&
        tl_shard_index_looks((const char *)s->data.bytes, (size_t)s->data.size)) {
        cli_close_data(&s->data);
        if ((rc = cli_shards_open(path, true, &s->shards)))
            return rc;
        s->sharded = true;
        s->nfiles = s->shards.x.nshards;
        s->files = s->shards.files;
        s->datas = s->shards.data;
        return CLI_OK;
    }
    struct tl_error err = { 0 };
    if (tl_file_parse(s->data.bytes, s->data.size, &s->file, &err)) {
        cli_report(s->name, &err);
        cli_close_data(&s->data);
        return err.code == TL_E_NOMEM ? CLI_IO : CLI_INVALID;
    }
    if ((rc = cli_file_sound(&s->file, s->name))) {
        side_close(s);
        return rc;
    }
    s->nfiles = 1;
    s->files = &s->file;
    s->datas = &s->data;
    return CLI_OK;
}

/* The tensor of that name on side s, and the file that holds it. */
static const struct tl_file_tensor *side_find(const struct side *s, const char *name, size_t *k)
{
    for (*k = 0; *k < s->nfiles; (*k)++) {
        const struct tl_file_tensor *t = tl_file_find(&s->files[*k], name);
        if (t)
            return t;
    }
    return NULL;
}

bool cli_compare_whole_wanted(const char *a, const char *b)
{
    struct stat st;
    const char *args[2] = { a, b };
    bool many = false;
    for (int i = 0; i < 2; i++) {
        if (stat(args[i], &st) != 0 || !S_ISREG(st.st_mode))
            return false;          /* FILE:NAME, '-', inline JSON: one tensor */
        enum tl_format f = cli_sniff_arg(args[i]);
        if (f != TL_FMT_JSON && !tl_format_entry(f)->many)
            return false;          /* a .npy: one tensor */
        struct cli_data d;
        enum tl_format g;
        if (cli_open_file(args[i], &d, &g))
            return false;          /* the one-tensor path says what is wrong */
        if (f == TL_FMT_JSON) {
            bool index = tl_shard_index_looks((const char *)d.bytes, (size_t)d.size);
            cli_close_data(&d);
            if (!index)
                return false;
            many = true;
            continue;
        }
        struct tl_file tf;
        struct tl_error err = { 0 };
        if (tl_file_parse(d.bytes, d.size, &tf, &err) == 0) {
            many |= tf.count != 1;
            tl_file_free(&tf);
        }
        cli_close_data(&d);
    }
    return many;               /* two files of one tensor each: compared as tensors */
}

/* What one name came to. */
enum verdict { V_EQUAL, V_DIFFER, V_SIZES, V_ONLY_A, V_ONLY_B, V_ERROR };
static const char *const verdict_names[] = { "equal", "differ", "sizes differ", "only in A",
                                             "only in B", "unreadable" };

struct row {
    const char *name;
    enum verdict v;
    bool bytes;                         /* compared byte for byte */
    uint64_t count, mismatches;
    double max_abs;
    bool have_abs;
};

/* A tensor's bytes as stored; a decodable encoded one's (ggml blocks, a
 * deflated member) are read through *v instead, a window at a time (*p
 * NULL); one compared byte for byte, decoded whole into tmp. */
static int raw_bytes(const struct cli_data *in, const struct tl_file_tensor *t,
                     struct cli_data *tmp, const uint8_t **p, uint64_t *n, struct tl_values **v)
{
    memset(tmp, 0, sizeof *tmp);
    *v = NULL;
    if (t->encoding != TL_ENC_PLAIN && t->decodable) {
        struct tl_input src = cli_input(in, NULL);
        struct tl_error err = { 0 };
        int rc = tl_values_open(&src, t, v, &err);
        if (rc)
            cli_report(in->name, &err);
        *p = NULL;
        *n = t->decoded_bytes;
        return rc == 0 ? CLI_OK : rc == TL_E_NOMEM ? CLI_IO : CLI_INVALID;
    }
    if (t->encoding == TL_ENC_PLAIN) {
        *p = in->bytes + t->begin;
        *n = t->end - t->begin;
        return CLI_OK;
    }
    int rc = cli_decode_tensor(in, t, tmp);
    *p = tmp->bytes;
    *n = tmp->size;
    return rc;
}

/* A stored tensor's bytes read into buf are compared from there, when they
 * are no more than this: the kernel copies them faster than the comparison
 * reads them through the mapping (tl_input_read). */
#define STAGE_MAX (64ull << 20)

/* The bytes that tensor t's description *d is of: t's own, read into buf,
 * with *d moved to them; or, where they are not read (encoded, too large,
 * no regular file), `bytes` and t's description as it is. */
static const uint8_t *staged(const struct cli_data *in, const struct tl_file_tensor *t,
                             const uint8_t *bytes, struct tl_buf *buf, struct tl_desc *d)
{
    uint64_t n = t->end - t->begin;
    const uint8_t *p = NULL;
    *d = t->desc;
    struct tl_input src = cli_input(in, NULL);
    if (t->encoding == TL_ENC_PLAIN && n <= STAGE_MAX && d->file_offset >= t->begin)
        p = tl_input_read(&src, t->begin, n, buf);
    if (!p)
        return bytes;
    d->file_offset -= t->begin;
    return p;
}

/* B's tensor tb seen as A's tensor converted by the rules (item x): A's
 * logical axes, x's strides over tb's bytes, tb's type, into *d; the
 * values of A in x's type packed in C order into *conv when the type
 * changes (*conv the buffer; NULL when A is compared as it is).
 * @return CLI_OK, V_SIZES' false when tb has not the shape x is written
 * with (*same false), or CLI_IO after a message. */
static int as_converted(const struct tl_whole_item *x, const struct tl_file_tensor *tb,
                        const uint8_t *fa, struct tl_desc *da, struct tl_desc *d, uint8_t **conv,
                        bool *same)
{
    uint64_t shape[TL_MAX_RANK];
    unsigned rank = tl_whole_item_shape(x, shape);
    *conv = NULL;
    *same = rank == tb->desc.rank &&
            memcmp(shape, tb->desc.sizes, rank * sizeof shape[0]) == 0;
    if (!*same)
        return CLI_OK;
    *d = x->dst;
    d->dtype = tb->desc.dtype;
    d->file_offset = tb->desc.file_offset;
    d->byte_offset = 0;
    d->total_given = false;
    struct tl_error err = { 0 };
    if (tl_desc_validate(d, &err)) {
        cli_error("compare: %s", err.msg);
        return CLI_IO;
    }
    if (!x->type)
        return CLI_OK;
    /* A's values as the conversion writes them: in x's type, packed */
    struct tl_desc c;
    if (tl_desc_init(&c, x->dst.dtype, da->rank, da->sizes, NULL)) {
        cli_error("compare: %s", "cannot describe the converted values");
        return CLI_IO;
    }
    struct tl_info info;
    tl_desc_classify(&c, &info);
    struct tl_copy_plan *plan = NULL;
    if (info.elements_bytes > SIZE_MAX || !(*conv = malloc(info.elements_bytes + 1)) ||
        !(plan = tl_copy_plan_new(da, &c, &err))) {
        free(*conv);
        *conv = NULL;
        return cli_oom();
    }
    tl_copy_run(plan, fa, *conv, 0, NULL, NULL);
    tl_copy_plan_free(plan);
    *da = c;
    return CLI_OK;
}

/* The file t's bytes lie in: side s's file k, or the external data file
 * of an ONNX weight, opened into *other (*in then points at it). */
static int file_of(const struct side *s, size_t k, const struct tl_file_tensor *t,
                   struct cli_data *other, const struct cli_data **in)
{
    *in = &s->datas[k];
    if (!t->elsewhere)
        return CLI_OK;
    int rc = cli_elsewhere_open_one(s->name, t, other);
    if (rc == CLI_OK)
        *in = other;
    return rc;
}

/* Compares tensor ta of side A with tb of side B into r: with x (A's item
 * under the rules), B against A converted. */
static int compare_in(struct side *a, const struct cli_data *ina, const struct tl_file_tensor *ta,
                      struct side *b, const struct cli_data *inb, const struct tl_file_tensor *tb,
                      const struct tl_whole_item *x, const struct tl_compare_opts *o,
                      struct row *r)
{
    struct cli_data ta_tmp, tb_tmp;
    const uint8_t *pa, *pb;
    uint64_t na, nb;
    struct tl_values *va = NULL, *vb = NULL;
    int rc = raw_bytes(ina, ta, &ta_tmp, &pa, &na, &va);
    if (rc == CLI_OK)
        rc = raw_bytes(inb, tb, &tb_tmp, &pb, &nb, &vb);
    else
        memset(&tb_tmp, 0, sizeof tb_tmp);
    if (rc) {
        r->v = V_ERROR;
    } else if (!ta->decodable || !tb->decodable) {
        /* byte for byte: the same type as spelled, shape and bytes */
        r->bytes = true;
        r->count = na;
        enum tl_dtype known;            /* an empty tensor retyped by --to-type */
        bool retyped = x && x->retyped &&
                       tl_format_dtype(b->files[0].format, tb->dtype, &known) == 0 &&
                       known == x->dst.dtype;
        bool same = (retyped || strcmp(ta->dtype, tb->dtype) == 0) && ta->ndim == tb->ndim &&
                    memcmp(ta->shape, tb->shape, ta->ndim * sizeof ta->shape[0]) == 0;
        r->v = !same ? V_SIZES : na == nb && memcmp(pa, pb, (size_t)na) == 0 ? V_EQUAL : V_DIFFER;
    } else if ((!x || !(x->layout || x->type)) && (ta->desc.rank != tb->desc.rank ||
               memcmp(ta->desc.sizes, tb->desc.sizes, ta->desc.rank * sizeof ta->desc.sizes[0]))) {
        r->v = V_SIZES;
    } else {
        /* an encoded tensor's desc is in its decoded bytes */
        struct tl_desc da, db;
        const uint8_t *fa = staged(ina, ta, ta->encoding == TL_ENC_PLAIN ?
                                   ina->bytes : pa, &a->buf, &da);
        const uint8_t *fb = tb->encoding == TL_ENC_PLAIN ? inb->bytes : pb;
        uint8_t *conv = NULL;
        bool same = true;
        struct tl_error err = { 0 };
        if (x && x->type && va && !(fa = tl_values_at(va, 0, tl_values_size(va), &err))) {
            cli_report(a->name, &err);      /* A rounded as --to-type: decoded whole */
            rc = CLI_INVALID;
        } else if (x && (x->layout || x->type)) {
            rc = as_converted(x, tb, fa, &da, &db, &conv, &same);
        } else {
            fb = staged(inb, tb, fb, &b->buf, &db);
        }
        if (conv)
            fa = conv;
        struct tl_compare_result res;
        struct tl_compare_opts oo = *o;
        oo.show = 0;
        if (rc || !same) {
            r->v = rc ? V_ERROR : V_SIZES;
        } else if (tl_compare_values(&da, fa, conv || (x && x->type) ? NULL : va, &db, fb, vb,
                                     &oo, &res, &err)) {
            cli_error("compare: %s", err.msg);
            rc = CLI_IO;
            r->v = V_ERROR;
        } else {
            r->count = res.element_count;
            r->mismatches = res.mismatches;
            r->v = res.mismatches ? V_DIFFER : V_EQUAL;
            r->have_abs = res.have_abs;
            r->max_abs = (double)res.max_abs;
            tl_compare_free(&res);
        }
        free(conv);
    }
    cli_close_data(&ta_tmp);
    cli_close_data(&tb_tmp);
    tl_values_close(va);
    tl_values_close(vb);
    return rc;
}

/* compare_in() of ta and tb, each read from the file that holds it (side
 * a's file ka, b's kb, or an ONNX weight's external data file). */
static int compare_pair(struct side *a, size_t ka, const struct tl_file_tensor *ta,
                        struct side *b, size_t kb, const struct tl_file_tensor *tb,
                        const struct tl_whole_item *x, const struct tl_compare_opts *o,
                        struct row *r)
{
    struct cli_data ea, eb;             /* ONNX's external data */
    const struct cli_data *ina, *inb = NULL;
    int rc = file_of(a, ka, ta, &ea, &ina);
    if (rc == CLI_OK && (rc = file_of(b, kb, tb, &eb, &inb)) == CLI_OK) {
        rc = compare_in(a, ina, ta, b, inb, tb, x, o, r);
        /* what was read is handed back: memory stays bounded by one
         * tensor's pages, not the files' */
        struct tl_input da = cli_input(ina, NULL), db = cli_input(inb, NULL);
        tl_input_done_with(&da, ta->begin, ta->end);
        tl_input_done_with(&db, tb->begin, tb->end);
    } else {
        r->v = V_ERROR;
    }
    if (ina == &ea)
        cli_close_data(&ea);
    if (inb == &eb)
        cli_close_data(&eb);
    return rc;
}

static void print_row(const struct row *r)
{
    char q[160];
    tl_quote(r->name, q, sizeof q);
    switch (r->v) {
    case V_EQUAL:
        if (r->bytes)
            printf("%s: equal (%llu bytes, compared byte for byte)\n", q,
                   (unsigned long long)r->count);
        else
            printf("%s: equal (%llu element%s)\n", q, (unsigned long long)r->count,
                   r->count == 1 ? "" : "s");
        break;
    case V_DIFFER:
        if (r->bytes)
            printf("%s: the bytes differ (compared byte for byte)\n", q);
        else if (r->have_abs)
            printf("%s: %llu of %llu elements differ (largest difference %.9g)\n", q,
                   (unsigned long long)r->mismatches, (unsigned long long)r->count, r->max_abs);
        else
            printf("%s: %llu of %llu elements differ\n", q, (unsigned long long)r->mismatches,
                   (unsigned long long)r->count);
        break;
    default:
        printf("%s: %s\n", q, verdict_names[r->v]);
        break;
    }
}

static cJSON *rows_json(const struct row *rows, size_t n, const size_t *count)
{
    cJSON *o = cJSON_CreateObject(), *arr = NULL;
    bool ok = o && cJSON_AddBoolToObject(o, "equal", count[V_EQUAL] == n) &&
              tl_json_add_u64(o, "tensors", n) && tl_json_add_u64(o, "equalTensors", count[V_EQUAL]) &&
              (arr = cJSON_AddArrayToObject(o, "results")) != NULL;
    for (size_t i = 0; ok && i < n; i++) {
        const struct row *r = &rows[i];
        cJSON *t = cJSON_CreateObject();
        ok = t != NULL;
        if (!ok)
            break;
        cJSON_AddItemToArray(arr, t);
        bool compared = r->v == V_EQUAL || r->v == V_DIFFER;
        ok = cJSON_AddStringToObject(t, "name", r->name) &&
             cJSON_AddStringToObject(t, "result", verdict_names[r->v]) &&
             cJSON_AddBoolToObject(t, "equal", r->v == V_EQUAL) &&
             (!compared || cJSON_AddBoolToObject(t, "byteForByte", r->bytes)) &&
             (!compared || r->bytes || (tl_json_add_u64(t, "elementCount", r->count) &&
                                       tl_json_add_u64(t, "mismatches", r->mismatches))) &&
             (!compared || !r->bytes || tl_json_add_u64(t, "bytes", r->count));
        if (ok && compared && !r->bytes) {
            char buf[64];
            ok = r->have_abs ? cJSON_AddRawToObject(t, "maxAbsDiff",
                                                    cli_value_json(TL_DT_FLOAT64, &r->max_abs, buf,
                                                                   sizeof buf)) != NULL
                             : cJSON_AddNullToObject(t, "maxAbsDiff") != NULL;
        }
    }
    if (!ok) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

/* A's tensors planned under the rules, as convert plans them into B's
 * format: a->plan.  @return a CLI_* status after a message. */
static int plan_side(struct side *a, const struct side *b, const struct cli_whole *rules)
{
    enum tl_dtype to_type;
    bool has;
    struct tl_rule_use u;
    memset(&u, 0, sizeof u);
    struct cli_whole w = *rules;
    w.name = a->name;
    w.format = tl_format_entry(b->files[0].format);
    w.allow_expand = true;
    int rc = cli_whole_to_type(&w, "compare", &to_type, &has);
    if (rc == CLI_OK && !(a->plan = calloc(a->nfiles, sizeof *a->plan)))
        rc = cli_oom();
    for (size_t k = 0; rc == CLI_OK && k < a->nfiles; k++) {
        if (!(a->plan[k] = calloc(a->files[k].count ? a->files[k].count : 1,
                                  sizeof *a->plan[k])))
            rc = cli_oom();
        else
            rc = cli_whole_plan(&w, &a->files[k], a->plan[k], has ? &to_type : NULL, &u);
    }
    return rc;
}

/* The last line of a whole compare: how many tensors compared equal, which were in one file
 * only, and what was not compared (values that are no tensor, tensors the tool does not
 * decode). */
static void print_totals(size_t n, const size_t *count, const char *na, const char *nb,
                         size_t values, size_t undecoded)
{
    printf("\n%zu tensors: %zu equal, %zu differ", n, count[V_EQUAL],
           count[V_DIFFER] + count[V_SIZES]);
    if (count[V_ONLY_A] || count[V_ONLY_B])
        printf(", %zu only in %s, %zu only in %s", count[V_ONLY_A], na, count[V_ONLY_B], nb);
    if (values)
        printf(" (%zu value%s that %s no tensor not compared)", values, values == 1 ? "" : "s",
               values == 1 ? "is" : "are");
    if (undecoded)
        printf(" (%zu tensor%s the tool does not decode not compared)", undecoded,
               undecoded == 1 ? "" : "s");
    printf("\n");
}

int cli_compare_whole(const char *pa, const char *pb, const struct tl_compare_opts *o,
                      const struct cli_whole *rules, bool json)
{
    struct side a, b;
    int rc = side_open(pa, &a);
    if (rc)
        return rc;
    if ((rc = side_open(pb, &b))) {
        side_close(&a);
        return rc;
    }
    if (rules && b.nfiles && (rc = plan_side(&a, &b, rules))) {
        side_close(&a);
        side_close(&b);
        return rc;
    }
    size_t total = 0;
    for (size_t k = 0; k < a.nfiles; k++)
        total += a.files[k].count;
    for (size_t k = 0; k < b.nfiles; k++)
        total += b.files[k].count;
    struct row *rows = calloc(total ? total : 1, sizeof *rows);
    size_t n = 0, count[V_ERROR + 1] = { 0 }, values = 0, undecoded = 0;
    if (!rows) {
        cli_oom();
        rc = CLI_IO;
    }
    /* A's tensors in its order, then B's that A lacks */
    for (size_t k = 0; rows && !rc && k < a.nfiles; k++) {
        for (size_t i = 0; !rc && i < a.files[k].count; i++) {
            const struct tl_file_tensor *ta = &a.files[k].tensors[i], *tb;
            size_t kb;
            if (ta->leaf) {             /* a checkpoint's value that is no tensor */
                values++;
                undecoded += ta->undecoded;
                continue;
            }
            struct row *r = &rows[n++];
            r->name = ta->name ? ta->name : "";
            if (!(tb = side_find(&b, r->name, &kb)))
                r->v = V_ONLY_A;
            else
                rc = compare_pair(&a, k, ta, &b, kb, tb, a.plan ? &a.plan[k][i] : NULL, o, r);
            count[r->v]++;
            if (!json)
                print_row(r);
        }
    }
    for (size_t k = 0; rows && !rc && k < b.nfiles; k++) {
        for (size_t i = 0; i < b.files[k].count; i++) {
            const struct tl_file_tensor *tb = &b.files[k].tensors[i];
            size_t ka;
            if (tb->leaf) {
                values++;
                undecoded += tb->undecoded;
                continue;
            }
            if (side_find(&a, tb->name ? tb->name : "", &ka))
                continue;
            struct row *r = &rows[n++];
            r->name = tb->name ? tb->name : "";
            r->v = V_ONLY_B;
            count[r->v]++;
            if (!json)
                print_row(r);
        }
    }
    if (!rc && json) {
        rc = cli_print_json(rows_json(rows, n, count));
    } else if (!rc) {
        print_totals(n, count, a.name, b.name, values - undecoded, undecoded);
    }
    if (!rc && count[V_EQUAL] != n)
        rc = CLI_NO;
    free(rows);
    side_close(&a);
    side_close(&b);
    return rc;
}
