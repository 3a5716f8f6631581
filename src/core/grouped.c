/*
 * grouped.c - group-quantized weights (SPEC 21): found in a file's tensor
 * table, told apart, checked, and read from config.json.
 *
 *   GPTQ (AutoGPTQ, GPTQModel): P.qweight INT32 [in*bits/32, out], each
 *     column a stream of `bits`-wide codes along in (low bits first, word
 *     after word); P.qzeros INT32 [G, out*bits/32], each row a stream along
 *     out; P.scales [G, out]; P.g_idx INT32 [in], the group of each input
 *     (act-order).  v1 stores each zero point less one ("zeros + 1").
 *   AWQ GEMM (AutoAWQ): P.qweight INT32 [in, out/8], the eight codes of a
 *     word in AWQ's order (nibble k holds column 8j + {0,2,4,6,1,3,5,7}[k]);
 *     P.qzeros INT32 [G, out/8] likewise; P.scales [G, out].
 *   compressed-tensors pack-quantized: P.weight_packed INT32 [out,
 *     in*bits/32], each row a stream of codes along in, a code the value
 *     plus 2^(bits-1); P.weight_scale [out, G]; P.weight_zero_point (when
 *     asymmetric) INT32 [out*bits/32, G] packed along out the same way, or
 *     INT8 [out, G] unpacked; P.weight_shape [2] holding [out, in].
 *
 * Each is one logical weight P.weight, [out, in]: element (o, i) is
 * (code - zero) x scale, of group g(i) of row o.  Its values are decoded by
 * the copy core (src/copy/grouped.c).
 */
#include <cjson/cJSON.h>
#include <inttypes.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "tl.h"

/* ---- the config ------------------------------------------------------------ */

static const struct {
    const char *name;
    enum tl_quant_method m;
} methods[] = {
    { "gptq", TL_QUANT_GPTQ }, { "awq", TL_QUANT_AWQ }, { "compressed-tensors", TL_QUANT_CT },
    { "none", TL_QUANT_NONE },
};

enum tl_quant_method tl_quant_named(const char *name)
{
    for (size_t k = 0; k < sizeof methods / sizeof methods[0]; k++)
        if (strcmp(methods[k].name, name) == 0)
            return methods[k].m;
    return TL_QUANT_AUTO;
}

const char *tl_scaled_kind_name(enum tl_scaled_kind kind)
{
    switch (kind) {
    case TL_SCALED_FP8_BLOCK: return "FP8 blocks";
    case TL_SCALED_MXFP4:     return "MXFP4";
    case TL_SCALED_GPTQ:      return "GPTQ";
    case TL_SCALED_AWQ:       return "AWQ";
    case TL_SCALED_PACKED:    return "pack-quantized";
    }
    return "?";
}

static void free_list(struct tl_quant_target *v, size_t n)
{
    for (size_t k = 0; v && k < n; k++) {
        free(v[k].text);
        if (v[k].re)
            regfree(v[k].re);
        free(v[k].re);
    }
    free(v);
}

void tl_quant_free(struct tl_quant *q)
{
    for (size_t k = 0; q->groups && k < q->ngroups; k++)
        free_list(q->groups[k].targets, q->groups[k].ntargets);
    free(q->groups);
    free_list(q->ignore, q->nignore);
    memset(q, 0, sizeof *q);
}

/* Whether pattern s would cost glibc's regex too much: a back reference
 * (\\1 .. \\9: exponential matching), an interval ({m,n}), a quantifier
 * right after another ("*+", "++": regcomp's time doubles with each, 9 s
 * for ".*+++++", fuzz_quant's third finding; POSIX leaves them undefined),
 * or more than eight quantifiers (regcomp copies a repeated group's tree
 * once a repetition: nested ones gave gigabytes from a short pattern, its
 * second).  The patterns configs use ("re:.*mlp.gate$",
 * "re:.*layers\\.[0-9]+\\.mlp.*") need a few at most. */
static bool costly_pattern(const char *s)
{
    unsigned quantifiers = 0;
    bool after_quantifier = false;
    for (; *s; s++) {
        if (*s == '[') {                /* a bracket expression: its * + ? are plain */
            s += s[1] == '^';
            s += s[1] == ']';
            while (s[1] && s[1] != ']')
                s++;
            if (!*++s)
                break;
            after_quantifier = false;
            continue;
        }
        bool q = *s == '*' || *s == '+' || *s == '?';
        if (*s == '{' || (q && after_quantifier))
            return true;
        quantifiers += q;
        after_quantifier = q;
        if (*s != '\\')
            continue;
        if (s[1] >= '1' && s[1] <= '9')
            return true;
        if (s[1])
            s++;                        /* an escaped character, backslash included */
    }
    return quantifiers > 8;
}

/* The strings of array a into *v, *n, each "re:PATTERN" compiled once,
 * anchored at the start (as Python's re.match).  @return 0; -1 not an
 * array of strings, or out of memory; -2 a pattern that does not compile
 * (its text in *bad). */
static int targets(const cJSON *a, struct tl_quant_target **v, size_t *n, const char **bad)
{
    *v = NULL;
    *n = 0;
    if (!a)
        return 0;
    if (!cJSON_IsArray(a))
        return -1;
    int m = cJSON_GetArraySize(a);
    if (!(*v = calloc(m ? (size_t)m : 1, sizeof **v)))
        return -1;
    for (const cJSON *s = a->child; s; s = s->next) {
        struct tl_quant_target *t = &(*v)[*n];
        if (!cJSON_IsString(s) || !(t->text = strdup(s->valuestring)))
            return -1;
        (*n)++;
        if (strncmp(t->text, "re:", 3) != 0)
            continue;
        if (strlen(t->text) > 1024 || costly_pattern(t->text)) {
            *bad = t->text;             /* refused before regcomp sees it */
            return -2;
        }
        char *pat = malloc(strlen(t->text) + 8);
        if (!pat || !(t->re = malloc(sizeof(regex_t)))) {
            free(pat);
            return -1;
        }
        sprintf(pat, "^(%s)", t->text + 3);
        int rc = regcomp(t->re, pat, REG_EXTENDED | REG_NOSUB);
        free(pat);
        if (rc) {
            free(t->re);
            t->re = NULL;
            *bad = t->text;
            return -2;
        }
    }
    return 0;
}

/* targets()'s failure as an error naming key. */
static int bad_targets(struct tl_error *err, const char *key, int rc, const char *bad)
{
    char q[128];
    if (rc == -2)
        return tl_fail(err, TL_E_VALUE, key, "holds '%s', which is no regular expression the "
                       "tool reads (POSIX extended, without back references, {m,n} or a "
                       "quantifier after another, at most 8 of * + ?, at most 1 KiB)",
                       tl_quote(bad, q, sizeof q));
    return tl_fail(err, TL_E_VALUE, key, "is not a list of module names");
}

/* A whole number of config object o's key, or dflt when it has none; -2
 * when it is no whole number (or past 10^15). */
static int64_t whole(const cJSON *o, const char *key, int64_t dflt)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!v || cJSON_IsNull(v))
        return dflt;
    if (!cJSON_IsNumber(v) || !(v->valuedouble >= -1e15 && v->valuedouble <= 1e15) ||
        v->valuedouble != (double)(int64_t)v->valuedouble)
        return -2;                      /* cast only what an int64_t holds (fuzz_quant) */
    return (int64_t)v->valuedouble;
}

static int bad(struct tl_error *err, const char *key, const char *what)
{
    return tl_fail(err, TL_E_VALUE, key, "%s", what);
}

static bool bits_ok(int64_t b)
{
    return b == 2 || b == 3 || b == 4 || b == 8;
}

/* compressed-tensors' config_groups into q. */
static int ct_groups(const cJSON *qc, struct tl_quant *q, struct tl_error *err)
{
    const cJSON *fmt = cJSON_GetObjectItemCaseSensitive(qc, "format");
    if (cJSON_IsString(fmt) && strcmp(fmt->valuestring, "pack-quantized") != 0) {
        q->method = TL_QUANT_NONE;      /* another compressor's tensors: left as they are */
        return 0;
    }
    const cJSON *groups = cJSON_GetObjectItemCaseSensitive(qc, "config_groups");
    const char *pattern = NULL;
    int trc = targets(cJSON_GetObjectItemCaseSensitive(qc, "ignore"), &q->ignore, &q->nignore,
                      &pattern);
    if (trc)
        return bad_targets(err, "quantization_config.ignore", trc, pattern);
    if (!cJSON_IsObject(groups))
        return bad(err, "quantization_config.config_groups", "is missing or not an object");
    int n = cJSON_GetArraySize(groups);
    if (!(q->groups = calloc(n ? (size_t)n : 1, sizeof *q->groups)))
        return tl_fail(err, TL_E_NOMEM, NULL, "out of memory");
    for (const cJSON *g = groups->child; g; g = g->next) {
        struct tl_quant_group *x = &q->groups[q->ngroups++];
        const cJSON *w = cJSON_GetObjectItemCaseSensitive(g, "weights");
        const cJSON *st = cJSON_GetObjectItemCaseSensitive(w, "strategy");
        const cJSON *sym = cJSON_GetObjectItemCaseSensitive(w, "symmetric");
        int64_t bits = whole(w, "num_bits", 4), gs = whole(w, "group_size", -1);
        bool channel = cJSON_IsString(st) && strcmp(st->valuestring, "channel") == 0;
        if ((trc = targets(cJSON_GetObjectItemCaseSensitive(g, "targets"), &x->targets,
                           &x->ntargets, &pattern)))
            return bad_targets(err, "quantization_config.config_groups.targets", trc, pattern);
        if (!cJSON_IsObject(w))
            continue;                   /* a group quantizing no weight */
        if (bits != 4 && bits != 8)
            return bad(err, "quantization_config.config_groups.weights.num_bits",
                       "is not 4 or 8 (pack-quantized packs 4- and 8-bit integers)");
        if (!channel && gs != -1 && gs < 1)
            return bad(err, "quantization_config.config_groups.weights.group_size",
                       "is not a positive whole number");
        x->bits = (unsigned)bits;
        x->group = channel || gs == -1 ? -1 : gs;
        x->sym = !sym || cJSON_IsTrue(sym);
    }
    return 0;
}

int tl_quant_parse(const char *text, size_t len, struct tl_quant *q, struct tl_error *err)
{
    memset(q, 0, sizeof *q);
    cJSON *doc = cJSON_ParseWithLength(text, len);
    if (!doc)
        return tl_fail(err, TL_E_VALUE, NULL, "is not valid JSON");
    const cJSON *qc = cJSON_GetObjectItemCaseSensitive(doc, "quantization_config");
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(qc, "quant_method");
    int rc = 0;
    if (!qc) {
        cJSON_Delete(doc);
        return 0;
    }
    if (!cJSON_IsString(m)) {
        cJSON_Delete(doc);
        return bad(err, "quantization_config.quant_method", "is missing or not a string");
    }
    q->method = tl_quant_named(m->valuestring);
    if (q->method == TL_QUANT_AUTO)
        q->method = TL_QUANT_NONE;      /* bitsandbytes, fp8...: not group-quantized */
    if (q->method == TL_QUANT_GPTQ || q->method == TL_QUANT_AWQ) {
        int64_t bits = whole(qc, q->method == TL_QUANT_AWQ && !cJSON_GetObjectItem(qc, "bits")
                                 ? "w_bit" : "bits", 4);
        int64_t gs = whole(qc, q->method == TL_QUANT_AWQ &&
                           !cJSON_GetObjectItem(qc, "group_size") ? "q_group_size"
                                                                  : "group_size", 0);
        const cJSON *fmt = cJSON_GetObjectItemCaseSensitive(qc, "checkpoint_format");
        if (!bits_ok(bits) || (q->method == TL_QUANT_AWQ && bits != 4))
            rc = bad(err, "quantization_config.bits", q->method == TL_QUANT_AWQ
                     ? "is not 4 (AWQ GEMM packs 4-bit codes)" : "is not 2, 3, 4 or 8");
        else if (gs < -1 || gs == -2)
            rc = bad(err, "quantization_config.group_size", "is not a positive whole number "
                     "or -1");
        q->bits = (unsigned)bits;
        q->group = gs;
        q->v2 = cJSON_IsString(fmt) && strcmp(fmt->valuestring, "gptq_v2") == 0;
    } else if (q->method == TL_QUANT_CT) {
        rc = ct_groups(qc, q, err);
    }
    cJSON_Delete(doc);
    if (rc)
        tl_quant_free(q);
    return rc;
}

/* ---- which config group a module takes ------------------------------------ */

/* Whether target names module P: "re:PATTERN" matched from the start (as
 * Python's re.match, compiled by targets()), a class name (no '.', a capital first: "Linear")
 * matching every module, else the name itself. */
static bool target_matches(const struct tl_quant_target *t, const char *module)
{
    if (t->re)
        return regexec(t->re, module, 0, NULL, 0) == 0;
    if (!strchr(t->text, '.') && t->text[0] >= 'A' && t->text[0] <= 'Z')
        return true;
    return strcmp(t->text, module) == 0;
}

/* The config group of module P (NULL: not quantized by this config). */
static const struct tl_quant_group *group_of(const struct tl_quant *q, const char *module)
{
    for (size_t k = 0; k < q->nignore; k++)
        if (target_matches(&q->ignore[k], module))
            return NULL;
    for (size_t k = 0; k < q->ngroups; k++)
        for (size_t t = 0; q->groups[k].bits && t < q->groups[k].ntargets; t++)
            if (target_matches(&q->groups[k].targets[t], module))
                return &q->groups[k];
    return NULL;
}

/* ---- recognition ------------------------------------------------------------ */

struct finder {
    const struct tl_file *f;
    const struct tl_name_index *ix;
    struct tl_error *err;
    char key[600];
};

static const struct tl_file_tensor *part(const struct finder *x, const char *base,
                                         const char *suffix)
{
    char name[600];
    if (snprintf(name, sizeof name, "%s%s", base, suffix) >= (int)sizeof name)
        return NULL;
    const char *const *field = tl_name_find(x->ix, name);
    return field ? &x->f->tensors[((const char *)field - (const char *)&x->f->tensors[0].name) /
                                  sizeof x->f->tensors[0]] : NULL;
}

static bool is_int32_2d(const struct tl_file_tensor *t)
{
    return t && t->decodable && t->encoding == TL_ENC_PLAIN && t->desc.dtype == TL_DT_INT32 &&
           t->ndim == 2;
}

static bool is_scale(const struct tl_file_tensor *t)
{
    return t && t->decodable && t->encoding == TL_ENC_PLAIN && t->ndim == 2 &&
           (t->desc.dtype == TL_DT_FLOAT16 || t->desc.dtype == TL_DT_BFLOAT16 ||
            t->desc.dtype == TL_DT_FLOAT32);
}

static size_t row_of(const struct finder *x, const struct tl_file_tensor *t)
{
    return t ? (size_t)(t - x->f->tensors) : SIZE_MAX;
}

#define wrong(x, fmt, a, u, v) tl_fail((x)->err, TL_E_VALUE, (x)->key, fmt, a, u, v)

/* The group size of `in` inputs in G groups: the config's (-1: one
 * group), else in / G when it divides.  @return 0, or an error. */
static int group_size(struct finder *x, int64_t config, uint64_t in, uint64_t groups,
                      uint64_t *group)
{
    *group = config == -1 ? in : config > 0 ? (uint64_t)config
           : groups && in % groups == 0 ? in / groups : 0;
    if (!*group)
        return wrong(x, "%s%" PRIu64 " inputs do not divide into %" PRIu64 " groups: give the "
                     "group size (config.json's quantization_config beside the file)", "", in,
                     groups);
    if ((in + *group - 1) / *group != groups)
        return wrong(x, "%sa group size of %" PRIu64 " makes the scales' %" PRIu64 " rows "
                     "wrong", "", *group, groups);
    return 0;
}

/* GPTQ or AWQ at base (the row of P.qweight, its name's stem). */
static int find_gptq_awq(struct finder *x, const char *base, const struct tl_quant *q,
                         struct tl_scaled *p)
{
    const struct tl_file_tensor *w = part(x, base, "qweight"), *z = part(x, base, "qzeros"),
                                *s = part(x, base, "scales"), *g = part(x, base, "g_idx");
    if (!z || !s)
        return tl_fail(x->err, TL_E_VALUE, x->key, "is a GPTQ or AWQ weight without its %s "
                       "(it has qweight, qzeros and scales)", !z ? "qzeros" : "scales");
    if (!is_int32_2d(w) || !is_int32_2d(z) || !is_scale(s))
        return tl_fail(x->err, TL_E_VALUE, x->key, "is not a GPTQ or AWQ weight: qweight and "
                       "qzeros are 2-D INT32, scales 2-D FLOAT16, BFLOAT16 or FLOAT32");
    bool awq = q && q->method == TL_QUANT_AWQ ? true
             : q && q->method == TL_QUANT_GPTQ ? false : w->shape[1] != s->shape[1];
    uint64_t out = s->shape[1], groups = s->shape[0];
    unsigned bits = q && q->bits ? q->bits : 0;
    if (awq) {
        bits = bits ? bits : out % w->shape[1] == 0 ? (unsigned)(32 * w->shape[1] / out) : 0;
        if (bits != 4 || w->shape[1] * 8 != out || z->shape[1] * 8 != out || z->shape[0] != groups)
            return wrong(x, "%sis not an AWQ GEMM weight: qweight [in, out/8] and qzeros [G, "
                         "out/8] of 4-bit codes take scales [G, out] (scales are [%" PRIu64 ", %"
                         PRIu64 "])", "", groups, out);
        p->in = w->shape[0];
    } else {
        static const unsigned widths[] = { 4, 8, 2, 3 };    /* the commonest first */
        for (size_t k = 0; !bits && k < sizeof widths / sizeof widths[0]; k++)
            if (z->shape[1] == (out * widths[k] + 31) / 32 && w->shape[0] * 32 % widths[k] == 0)
                bits = widths[k];
        if (!bits || w->shape[1] != out || z->shape[0] != groups ||
            z->shape[1] != (out * bits + 31) / 32 || w->shape[0] * 32 % bits)
            return wrong(x, "%sis not a GPTQ weight: qweight [in*bits/32, out] and qzeros [G, "
                         "out*bits/32] (2, 3, 4 or 8 bits) take scales [G, out] (scales are [%"
                         PRIu64 ", %" PRIu64 "])", "", groups, out);
        p->in = w->shape[0] * 32 / bits;
    }
    if (g && (!g->decodable || g->encoding != TL_ENC_PLAIN || g->ndim != 1 ||
              (g->desc.dtype != TL_DT_INT32 && g->desc.dtype != TL_DT_INT64) ||
              g->shape[0] != p->in))
        return wrong(x, "%sits g_idx is not INT32 [in] (in is %" PRIu64 ")%.0" PRIu64, "", p->in,
                     (uint64_t)0);
    int rc = group_size(x, q ? q->group : 0, p->in, groups, &p->group);
    if (rc)
        return rc;
    p->kind = awq ? TL_SCALED_AWQ : TL_SCALED_GPTQ;
    p->bits = bits;
    p->out = out;
    p->weight = row_of(x, w);
    p->scale = row_of(x, s);
    p->extra[TL_PART_ZEROS] = row_of(x, z);
    p->extra[TL_PART_GIDX] = awq ? SIZE_MAX : row_of(x, g);
    p->plus1 = !awq && !(q && q->v2);
    return 0;
}

/* compressed-tensors' pack-quantized at base (P.weight_packed's stem). */
static int find_packed(struct finder *x, const char *base, const struct tl_quant *q,
                       struct tl_scaled *p)
{
    const struct tl_file_tensor *w = part(x, base, "weight_packed"),
                                *s = part(x, base, "weight_scale"),
                                *z = part(x, base, "weight_zero_point"),
                                *sh = part(x, base, "weight_shape");
    char module[512];
    snprintf(module, sizeof module, "%.*s", base[0] ? (int)strlen(base) - 1 : 0, base);
    const struct tl_quant_group *cg = q && q->method == TL_QUANT_CT ? group_of(q, module) : NULL;
    if (q && q->method == TL_QUANT_CT && !cg)
        return 1;                       /* ignored, or no group targets it: as it is */
    if (!s || !sh)
        return tl_fail(x->err, TL_E_VALUE, x->key, "is a pack-quantized weight without its %s",
                       !s ? "weight_scale" : "weight_shape");
    if (!is_int32_2d(w) || !is_scale(s) || !sh->decodable || sh->encoding != TL_ENC_PLAIN ||
        sh->ndim != 1 || sh->shape[0] != 2 ||
        (sh->desc.dtype != TL_DT_INT64 && sh->desc.dtype != TL_DT_INT32))
        return tl_fail(x->err, TL_E_VALUE, x->key, "is not a pack-quantized weight: "
                       "weight_packed is 2-D INT32, weight_scale 2-D FLOAT16, BFLOAT16 or "
                       "FLOAT32, weight_shape INT64 [2]");
    uint64_t out = w->shape[0], groups = s->shape[1];
    unsigned bits = cg ? cg->bits : q && q->bits ? q->bits : 4;
    p->in = w->shape[1] * (32 / bits);
    if (s->shape[0] != out)
        return wrong(x, "%sweight_scale has %" PRIu64 " rows, the weight %" PRIu64, "",
                     s->shape[0], out);
    bool sym = cg ? cg->sym : !z;
    if (!sym && !z)
        return tl_fail(x->err, TL_E_VALUE, x->key, "is an asymmetric pack-quantized weight "
                       "without its weight_zero_point");
    if (z && !sym && !((is_int32_2d(z) && z->shape[0] == (out * bits + 31) / 32) ||
                       (z->decodable && z->encoding == TL_ENC_PLAIN && z->ndim == 2 &&
                        z->desc.dtype == TL_DT_INT8 &&
                        z->shape[0] == out)) )
        return wrong(x, "%sweight_zero_point is not INT32 [out*bits/32, G] (out is %" PRIu64
                     ", %" PRIu64 " bits)", "", out, (uint64_t)bits);
    if (z && !sym && z->shape[1] != groups)
        return wrong(x, "%sweight_zero_point has %" PRIu64 " groups, weight_scale %" PRIu64, "",
                     z->shape[1], groups);
    int rc = group_size(x, cg ? cg->group : q ? q->group : 0, p->in, groups, &p->group);
    if (rc)
        return rc;
    p->kind = TL_SCALED_PACKED;
    p->bits = bits;
    p->out = out;
    p->zero = 1 << (bits - 1);
    p->weight = row_of(x, w);
    p->scale = row_of(x, s);
    p->extra[TL_PART_ZEROS] = sym ? SIZE_MAX : row_of(x, z);
    p->extra[TL_PART_SHAPE] = row_of(x, sh);
    return 0;
}

/* The scheme row name's packed codes name: 'g' (P.qweight: GPTQ or AWQ),
 * 'c' (P.weight_packed: compressed-tensors), or 0; *stem gets P's length. */
static char packed_kind(const char *name, size_t *stem)
{
    size_t n = name ? strlen(name) : 0;
    static const struct { const char *end; char kind; } ends[] = {
        { "qweight", 'g' }, { "weight_packed", 'c' },
    };
    for (size_t k = 0; k < sizeof ends / sizeof ends[0]; k++) {
        size_t m = strlen(ends[k].end);
        if (n >= m && strcmp(name + n - m, ends[k].end) == 0 &&
            (n == m || name[n - m - 1] == '.')) {
            *stem = n - m;
            return ends[k].kind;
        }
    }
    return 0;
}

bool tl_grouped_candidates(const struct tl_file *f)
{
    size_t stem;
    for (size_t i = 0; i < f->count; i++)
        if (packed_kind(f->tensors[i].name, &stem))
            return true;
    return false;
}

size_t tl_scaled_parts(const struct tl_scaled *p, size_t rows[2 + TL_SCALED_EXTRA])
{
    size_t n = 0;
    rows[n++] = p->weight;
    rows[n++] = p->scale;
    for (int x = 0; x < TL_SCALED_EXTRA; x++)
        if (p->extra[x] != SIZE_MAX)
            rows[n++] = p->extra[x];
    return n;
}

int tl_grouped_find(const struct tl_file *f, const struct tl_name_index *ix, size_t i,
                    struct tl_scaled *p, struct tl_error *err)
{
    const struct tl_quant *q = f->quant;
    const char *name = f->tensors[i].name;
    size_t n;
    char kind = packed_kind(name, &n);
    bool gq = kind == 'g', ct = kind == 'c';
    if (!kind || (q && q->method == TL_QUANT_NONE) || (q && gq && q->method == TL_QUANT_CT) ||
        (q && ct && q->method != TL_QUANT_CT && q->method != TL_QUANT_AUTO))
        return 1;
    struct finder x = { f, ix, err, "" };
    char base[480], qn[256];
    snprintf(base, sizeof base, "%.*s", (int)n, name);
    snprintf(x.key, sizeof x.key, "weight '%sweight'", tl_quote(base, qn, sizeof qn));
    memset(p, 0, sizeof *p);
    for (int k = 0; k < TL_SCALED_EXTRA; k++)
        p->extra[k] = SIZE_MAX;
    snprintf(p->name, sizeof p->name, "%sweight", base);
    return gq ? find_gptq_awq(&x, base, q, p) : find_packed(&x, base, q, p);
}

/* ---- the values a check reads ------------------------------------------- */

uint64_t tl_grouped_read(const uint8_t *at, enum tl_dtype dt, uint64_t k)
{
    switch (dt) {
    case TL_DT_INT8:  return (uint64_t)(int64_t)(int8_t)at[k];
    case TL_DT_INT32: {
        uint32_t v;
        memcpy(&v, at + 4 * k, 4);
        return (uint64_t)(int64_t)(int32_t)v;
    }
    default: {
        uint64_t v;
        memcpy(&v, at + 8 * k, 8);
        return v;
    }
    }
}

unsigned tl_grouped_code(const uint8_t *s, unsigned bits, uint64_t k)
{
    uint64_t bit = k * bits, v = 0;
    memcpy(&v, s + bit / 8, (bit % 8 + bits + 7) / 8);
    return (unsigned)(v >> (bit % 8)) & ((1u << bits) - 1);
}

const uint8_t tl_awq_place[8] = { 0, 4, 1, 5, 2, 6, 3, 7 };

int tl_grouped_zero(const uint8_t *file, const struct tl_file *f, const struct tl_scaled *p,
                    uint64_t g, uint64_t o)
{
    size_t zr = p->extra[TL_PART_ZEROS];
    if (zr == SIZE_MAX)
        return p->zero;
    const struct tl_file_tensor *z = &f->tensors[zr];
    const uint8_t *zb = (p->extra_file[TL_PART_ZEROS] ? p->extra_file[TL_PART_ZEROS] : file) +
                        z->begin;
    unsigned mask = (1u << p->bits) - 1;
    switch (p->kind) {
    case TL_SCALED_GPTQ:
        return (int)tl_grouped_code(zb + g * z->shape[1] * 4, p->bits, o) + p->plus1;  /* no wrap */
    case TL_SCALED_AWQ:
        return (int)tl_grouped_code(zb + g * z->shape[1] * 4, 4, o / 8 * 8 + tl_awq_place[o % 8]);
    default:
        if (z->desc.dtype == TL_DT_INT8)
            return (int)(int8_t)zb[o * z->shape[1] + g] + p->zero;
        {
            uint64_t words = z->shape[1];       /* packed along out: o's word in its column */
            uint32_t v;
            unsigned per = 32 / p->bits;
            memcpy(&v, zb + ((o / per) * words + g) * 4, 4);
            return (int)((v >> (o % per * p->bits)) & mask);
        }
    }
}

int tl_grouped_check(const uint8_t *file, const struct tl_file *f, const struct tl_scaled *p,
                     struct tl_error *err)
{
    char q[256], key[300];
    snprintf(key, sizeof key, "weight '%s'", tl_quote(p->name, q, sizeof q));
    size_t gr = p->extra[TL_PART_GIDX], sr = p->extra[TL_PART_SHAPE], zr = p->extra[TL_PART_ZEROS];
    uint64_t groups = (p->in + p->group - 1) / p->group;
    if (gr != SIZE_MAX) {
        const struct tl_file_tensor *g = &f->tensors[gr];
        const uint8_t *gb = (p->extra_file[TL_PART_GIDX] ? p->extra_file[TL_PART_GIDX] : file) +
                            g->begin;
        for (uint64_t i = 0; i < p->in; i++) {
            uint64_t v = tl_grouped_read(gb, g->desc.dtype, i);
            if (v >= groups)
                return tl_fail(err, TL_E_VALUE, key, "g_idx[%" PRIu64 "] is %" PRId64 ", past "
                               "its %" PRIu64 " groups", i, (int64_t)v, groups);
        }
    }
    if (sr != SIZE_MAX) {
        const struct tl_file_tensor *s = &f->tensors[sr];
        const uint8_t *sb = (p->extra_file[TL_PART_SHAPE] ? p->extra_file[TL_PART_SHAPE] : file) +
                            s->begin;
        uint64_t o = tl_grouped_read(sb, s->desc.dtype, 0), i = tl_grouped_read(sb, s->desc.dtype, 1);
        if (o != p->out || i != p->in)
            return tl_fail(err, TL_E_VALUE, key, "weight_shape says [%" PRId64 ", %" PRId64 "], "
                           "its weight_packed holds [%" PRIu64 ", %" PRIu64 "]%s", (int64_t)o,
                           (int64_t)i, p->out, p->in, o == p->out && i < p->in
                           ? " (rows padded to whole words are not read)" : "");
    }
    if (zr != SIZE_MAX && f->tensors[zr].desc.dtype == TL_DT_INT8) {
        int lo = -(1 << (p->bits - 1)), hi = (1 << (p->bits - 1)) - 1;
        const struct tl_file_tensor *z = &f->tensors[zr];
        const uint8_t *zb = (p->extra_file[TL_PART_ZEROS] ? p->extra_file[TL_PART_ZEROS] : file) +
                            z->begin;
        for (uint64_t k = 0; k < p->out * groups; k++) {
            int v = (int8_t)zb[k];
            if (v < lo || v > hi)
                return tl_fail(err, TL_E_VALUE, key, "zero point %" PRIu64 " is %d, beyond "
                               "%u bits (%d .. %d)", k, v, p->bits, lo, hi);
        }
    }
    return 0;
}

bool tl_grouped_act_order(const uint8_t *file, const struct tl_file *f, const struct tl_scaled *p)
{
    size_t gr = p->extra[TL_PART_GIDX];
    if (gr == SIZE_MAX)
        return false;
    const struct tl_file_tensor *g = &f->tensors[gr];
    const uint8_t *gb = (p->extra_file[TL_PART_GIDX] ? p->extra_file[TL_PART_GIDX] : file) +
                        g->begin;
    for (uint64_t i = 0; i < p->in; i++)
        if (tl_grouped_read(gb, g->desc.dtype, i) != i / p->group)
            return true;
    return false;
}

float tl_grouped_scale(const uint8_t *sb, enum tl_dtype dt, uint64_t k)
{
    float v;
    if (dt == TL_DT_FLOAT32) {
        memcpy(&v, sb + 4 * k, 4);
        return v;
    }
    uint16_t h;
    memcpy(&h, sb + 2 * k, 2);
    unsigned e = h >> 10 & 31;
    uint32_t u = (uint32_t)h << 16;             /* BFLOAT16: the top half */
    if (dt == TL_DT_FLOAT16 && (!e || e == 31))
        return tl_half_to_float(h);
    if (dt == TL_DT_FLOAT16)                    /* a normal number: its bits moved */
        u = (uint32_t)(h & 0x8000) << 16 | (e + 112) << 23 | (uint32_t)(h & 0x3ff) << 13;
    memcpy(&v, &u, 4);
    return v;
}

/* Scale k of p as FLOAT32. */
static float scale_of(const uint8_t *file, const struct tl_file *f, const struct tl_scaled *p,
                      uint64_t k)
{
    const struct tl_file_tensor *s = &f->tensors[p->scale];
    return tl_grouped_scale((p->scale_file ? p->scale_file : file) + s->begin, s->desc.dtype, k);
}

uint32_t tl_grouped_gguf_type(const uint8_t *file, const struct tl_file *f,
                              const struct tl_scaled *p, uint32_t requested, bool *lossless)
{
    *lossless = false;
    if (p->kind < TL_SCALED_GPTQ || p->group % 32 || p->in % 32 || tl_grouped_act_order(file, f, p))
        return requested;
    uint64_t groups = (p->in + p->group - 1) / p->group, n = groups * p->out;
    for (uint64_t k = 0; k < n; k++) {             /* FLOAT16 holds every scale */
        float s = scale_of(file, f, p, k);
        if (tl_half_to_float(tl_float_to_half(s)) != s)
            return requested;
    }
    bool all8 = true, all128 = true;
    for (uint64_t g = 0; g < groups; g++)
        for (uint64_t o = 0; o < p->out; o++) {
            int z = tl_grouped_zero(file, f, p, g, o);
            all8 &= z == 8;
            all128 &= z == 128;
        }
    if (requested == 8 && (p->bits < 8 || all128)) {
        *lossless = true;
        return 8;
    }
    if ((requested == 2 || requested == 3) && p->bits == 4) {
        *lossless = true;
        return requested == 2 && all8 ? 2 : 3;
    }
    return requested;
}

void tl_grouped_where(const struct tl_file *f, const uint8_t *file, const struct tl_scaled *p,
                      uint64_t o, uint64_t i, struct tl_grouped_place *w)
{
    const struct tl_file_tensor *pk = &f->tensors[p->weight], *sc = &f->tensors[p->scale];
    size_t gr = p->extra[TL_PART_GIDX], zr = p->extra[TL_PART_ZEROS];
    memset(w, 0, sizeof *w);
    w->group = i / p->group;
    if (gr != SIZE_MAX)
        w->group = tl_grouped_read((p->extra_file[TL_PART_GIDX] ? p->extra_file[TL_PART_GIDX]
                                                                  : file) +
                                   f->tensors[gr].begin, f->tensors[gr].desc.dtype, i);
    uint64_t g = w->group, bit;
    switch (p->kind) {
    case TL_SCALED_GPTQ:
        bit = i * p->bits;
        w->word_row = bit / 32, w->word_col = o, w->bit = (unsigned)(bit % 32);
        w->scale_row = g, w->scale_col = o;
        bit = o * p->bits;
        w->zero_row = g, w->zero_col = bit / 32, w->zero_bit = (unsigned)(bit % 32);
        break;
    case TL_SCALED_AWQ:
        w->word_row = i, w->word_col = o / 8, w->bit = tl_awq_place[o % 8] * 4;
        w->scale_row = g, w->scale_col = o;
        w->zero_row = g, w->zero_col = o / 8, w->zero_bit = tl_awq_place[o % 8] * 4;
        break;
    default:
        bit = i * p->bits;
        w->word_row = o, w->word_col = bit / 32, w->bit = (unsigned)(bit % 32);
        w->scale_row = o, w->scale_col = g;
        w->zero_row = o / (32 / p->bits), w->zero_col = g;
        w->zero_bit = (unsigned)(o % (32 / p->bits) * p->bits);
        if (zr != SIZE_MAX && f->tensors[zr].desc.dtype == TL_DT_INT8)
            w->zero_row = o, w->zero_bit = 0;
    }
    w->word_at = pk->begin + (w->word_row * pk->shape[1] + w->word_col) * 4;
    w->scale_at = sc->begin + (w->scale_row * sc->shape[1] + w->scale_col) *
                  tl_dtype_size(sc->desc.dtype);
    if (zr == SIZE_MAX) {
        w->zero_row = UINT64_MAX;
        return;
    }
    const struct tl_file_tensor *z = &f->tensors[zr];
    w->zero_at = z->begin + (w->zero_row * z->shape[1] + w->zero_col) *
                 tl_dtype_size(z->desc.dtype);
}
