/*
 * pytorch.c - the zip checkpoints torch.save writes (PyTorch 1.6 and later:
 * ARCHIVE/data.pkl, ARCHIVE/data/KEY for each storage; SPEC section 17),
 * read without running them.
 *
 * The archive's members are read as an .npz's are (tl_zip_members); its
 * data.pkl by pickle.c's reader, with the rules here: the globals
 * torch.save writes for tensors and containers are allowed, every other
 * one is refused as it is read.  A persistent id names a storage (its
 * class, so its type, its key, its element count); _rebuild_tensor_v2
 * makes a tensor of a storage, an offset, sizes and strides: exactly a
 * description of the storage's member.  The tree is flattened into rows,
 * dotted names for nested containers; values that are no tensor are rows
 * of their own, with no bytes (struct tl_file_tensor's leaf).
 */
#include <cjson/cJSON.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "pickle.h"
#include "tl.h"

/* A zip whose first member is ARCHIVE/data.pkl: surer than a zip of
 * anything (.npz).  A pickle that starts as torch's legacy format does
 * (protocol 2, its magic number) is named too, to be refused by name. */
static const uint8_t legacy_magic[] = { 0x80, 0x02, 0x8a, 0x0a, 0x6c, 0xfc, 0x9c, 0x46, 0xf9,
                                        0x20, 0x6a, 0xa8, 0x50, 0x19 };

static unsigned pytorch_bid(const uint8_t *head, size_t n)
{
    if (n >= sizeof legacy_magic && memcmp(head, legacy_magic, sizeof legacy_magic) == 0)
        return 90;
    if (n < 30 || !tl_zip_head(head, n) || head[2] != 3)
        return 0;
    size_t len = (size_t)head[26] | (size_t)head[27] << 8;
    if (len == 0 || len > 200 || 30 + len > n)
        return 0;
    char name[201];
    memcpy(name, head + 30, len);
    name[len] = '\0';
    /* ARCHIVE/data.pkl (torch.save); ARCHIVE/data/N, ARCHIVE/code/...,
     * ARCHIVE/constants.pkl (TorchScript, named to be refused) */
    const char *slash = strchr(name, '/');
    if (!slash || (len > 4 && strcmp(name + len - 4, ".npy") == 0))
        return 0;
    const char *rest = slash + 1;
    if (strcmp(rest, "data.pkl") == 0 || strncmp(rest, "data/", 5) == 0 ||
        strncmp(rest, "code/", 5) == 0 || strcmp(rest, "constants.pkl") == 0)
        return 90;
    return 0;
}

/* ---- what a checkpoint may name ------------------------------------------ */

/* The storage classes and dtypes, one a type: its names, its safetensors
 * spelling, its place in the type table. */
static const struct {
    const char *storage, *dtype, *alias, *st;
    int dt;
    unsigned size;
} types[] = {
    { "FloatStorage", "float32", "float", "F32", TL_DT_FLOAT32, 4 },
    { "DoubleStorage", "float64", "double", "F64", TL_DT_FLOAT64, 8 },
    { "HalfStorage", "float16", "half", "F16", TL_DT_FLOAT16, 2 },
    { "BFloat16Storage", "bfloat16", NULL, "BF16", TL_DT_BFLOAT16, 2 },
    { "LongStorage", "int64", "long", "I64", TL_DT_INT64, 8 },
    { "IntStorage", "int32", "int", "I32", TL_DT_INT32, 4 },
    { "ShortStorage", "int16", "short", "I16", TL_DT_INT16, 2 },
    { "CharStorage", "int8", NULL, "I8", TL_DT_INT8, 1 },
    { "ByteStorage", "uint8", NULL, "U8", TL_DT_UINT8, 1 },
    { "BoolStorage", "bool", NULL, "BOOL", TL_DT_BOOL, 1 },
    /* read, listed, and not decoded (SPEC 23): a packed complex tensor is
     * carried as it is, the others are rows of their own, not converted */
    { "ComplexFloatStorage", "complex64", "cfloat", "C64", -1, 8 },
    { "ComplexDoubleStorage", "complex128", "cdouble", "C128", -1, 16 },
    { "QInt8Storage", "qint8", NULL, "qint8", -1, 1 },
    { "QUInt8Storage", "quint8", NULL, "quint8", -1, 1 },
    { "QInt32Storage", "qint32", NULL, "qint32", -1, 4 },
};
#define NTYPES (int)(sizeof types / sizeof types[0])
#define UNTYPED 8                       /* UntypedStorage: bytes, as ByteStorage */

enum { G_ODICT, G_TENSOR, G_PARAM, G_PARAM_STATE, G_DEVICE, G_QTENSOR, G_SPARSE, G_LAYOUT,
       G_SIZE, G_QSCHEME, G_STORAGE = 100, G_DTYPE = 200 };

/* The quantization schemes a quantized tensor's parameters name. */
static const char *const qschemes[] = {
    "per_tensor_affine", "per_channel_affine", "per_tensor_symmetric", "per_channel_symmetric",
    "per_channel_affine_float_qparams",
};

static int allowed(const char *module, const char *name)
{
    if (strcmp(module, "collections") == 0 && strcmp(name, "OrderedDict") == 0)
        return G_ODICT;
    if (strcmp(module, "torch._utils") == 0) {
        if (strcmp(name, "_rebuild_tensor_v2") == 0)
            return G_TENSOR;
        if (strcmp(name, "_rebuild_parameter") == 0)
            return G_PARAM;
        if (strcmp(name, "_rebuild_parameter_with_state") == 0)
            return G_PARAM_STATE;
        if (strcmp(name, "_rebuild_qtensor") == 0)
            return G_QTENSOR;
        if (strcmp(name, "_rebuild_sparse_tensor") == 0)
            return G_SPARSE;
        return -1;
    }
    if (strcmp(module, "torch.serialization") == 0 && strcmp(name, "_get_layout") == 0)
        return G_LAYOUT;
    if ((strcmp(module, "torch") == 0 || strcmp(module, "torch.storage") == 0) &&
        strcmp(name, "UntypedStorage") == 0)
        return G_STORAGE + UNTYPED;
    if (strcmp(module, "torch") != 0)
        return -1;
    if (strcmp(name, "device") == 0)
        return G_DEVICE;
    if (strcmp(name, "Size") == 0)
        return G_SIZE;
    for (size_t i = 0; i < sizeof qschemes / sizeof qschemes[0]; i++)
        if (strcmp(name, qschemes[i]) == 0)
            return G_QSCHEME;
    for (int i = 0; i < NTYPES; i++) {
        if (strcmp(name, types[i].storage) == 0)
            return G_STORAGE + i;
        if (strcmp(name, types[i].dtype) == 0 || (types[i].alias && strcmp(name, types[i].alias) == 0))
            return G_DTYPE + i;
    }
    return -1;
}

/* A refusal in words that say what to do (SPEC 23): a whole model or
 * other object pickled (torch.save(model)), a numpy array inside the
 * pickle; NULL for the reader's own words (anything else: a program). */
static const char *refused(const char *module, const char *name)
{
    static const char *const programs[] = {
        "os", "posix", "nt", "sys", "subprocess", "builtins", "__builtin__", "shutil", "socket",
        "importlib", "pickle", "io", "codecs", "runpy", "types", "functools", "operator",
        "ctypes", "pty", "webbrowser", "code", "pdb", "timeit",
    };
    if (strncmp(module, "numpy", 5) == 0 && (module[5] == '\0' || module[5] == '.'))
        return "a numpy array pickled inside the checkpoint, not a tensor: torch.save "
               "torch.from_numpy(a) instead (or save the array with numpy.save)";
    size_t top = strcspn(module, ".");
    for (size_t i = 0; i < sizeof programs / sizeof programs[0]; i++)
        if (strlen(programs[i]) == top && strncmp(module, programs[i], top) == 0)
            return NULL;
    bool model = strcmp(module, "__main__") == 0 || strncmp(module, "torch.nn.", 9) == 0 ||
                 strncmp(module, "transformers.", 13) == 0 || (name[0] >= 'A' && name[0] <= 'Z');
    return model ? "a whole model or object pickled (torch.save(model)), not a checkpoint of "
                   "tensors: torch.save(model.state_dict()) and convert that"
                 : NULL;
}

/* The objects a checkpoint builds: storages and tensors, and leaves. */
enum { O_STORAGE, O_TENSOR, O_DEVICE, O_UNDECODED };

/* A tensor the tool does not decode: its type and sizes, to list. */
struct undecoded {
    char type[24];
    unsigned rank;
    uint64_t sizes[TL_MAX_RANK];
};

struct storage {
    char key[16];
    int type;
    uint64_t numel;
    const struct tl_file_tensor *member;
};

struct tensor {
    const struct storage *s;
    uint64_t offset;
    unsigned rank;
    uint64_t sizes[TL_MAX_RANK], strides[TL_MAX_RANK];
};

struct ctx {
    const struct tl_file *zip;          /* the archive's members */
    const char *dir;                    /* ARCHIVE, the members' folder */
    size_t dirlen;
    const struct tl_file_tensor **by_name;  /* the members by name: a storage is */
};                                          /* found in log time, however many */

static int member_cmp(const void *a, const void *b)
{
    const struct tl_file_tensor *x = *(const struct tl_file_tensor *const *)a;
    const struct tl_file_tensor *y = *(const struct tl_file_tensor *const *)b;
    return strcmp(x->name, y->name);
}

/* The member of that name, or NULL. */
static const struct tl_file_tensor *member_named(const struct ctx *c, const char *name)
{
    struct tl_file_tensor key = { .name = (char *)name };
    const struct tl_file_tensor *k = &key, **hit = bsearch(&k, c->by_name, c->zip->count,
                                                           sizeof *c->by_name, member_cmp);
    return hit ? *hit : NULL;
}

static int bad(struct tl_error *err, const char *msg)
{
    return tl_fail(err, TL_E_VALUE, "data.pkl", "%s", msg);
}

static bool is_int(const struct tl_pk *p)
{
    return p->kind == TL_PK_INT && p->i >= 0;
}

static struct tl_pk *object(struct tl_pk_arena *a, int kind, void *obj)
{
    struct tl_pk *p = tl_pk_new(a, TL_PK_OBJECT);
    if (!p) {
        free(obj);
        return NULL;
    }
    p->i = kind;
    p->obj = obj;                       /* freed with the arena */
    return p;
}

static int int_tuple(const struct tl_pk *t, uint64_t *out, unsigned *n, struct tl_error *err)
{
    if (t->kind != TL_PK_TUPLE || t->n > TL_MAX_RANK)
        return bad(err, "_rebuild_tensor_v2: sizes and strides must be tuples of at most 8 "
                   "integers");
    for (size_t i = 0; i < t->n; i++) {
        if (!is_int(t->items[i]))
            return bad(err, "_rebuild_tensor_v2: a size or stride that is not an integer >= 0");
        out[i] = (uint64_t)t->items[i]->i;
    }
    *n = (unsigned)t->n;
    return 0;
}

/* torch.Size(tuple), _get_layout("torch.sparse_coo"), and the rebuilds
 * of tensors the tool does not decode: a quantized tensor (its storage,
 * offset, sizes, strides, quantizer) and a sparse one (its layout and
 * (indices, values, size)), each an O_UNDECODED of its type and sizes. */
static int call_other(struct tl_pk_arena *a, int id, const struct tl_pk *args,
                      struct tl_pk **out, struct tl_error *err)
{
    if (id == G_SIZE || id == G_LAYOUT) {
        enum tl_pk_kind want = id == G_SIZE ? TL_PK_TUPLE : TL_PK_STR;
        if (args->n != 1 || args->items[0]->kind != want)
            return bad(err, id == G_SIZE ? "torch.Size is called without a tuple"
                                         : "_get_layout is called without a layout's name");
        *out = args->items[0];
        return 0;
    }
    struct undecoded *u = calloc(1, sizeof *u);
    if (!u)
        return tl_fail(err, TL_E_NOMEM, NULL, "out of memory");
    const struct tl_pk *sizes = NULL;
    if (id == G_QTENSOR && args->n >= 3 && args->items[0]->kind == TL_PK_OBJECT &&
        args->items[0]->i == O_STORAGE) {
        const struct storage *s = args->items[0]->obj;
        snprintf(u->type, sizeof u->type, "%s", types[s->type].dtype);
        sizes = args->items[2];
    } else if (id == G_SPARSE && args->n == 2 && args->items[0]->kind == TL_PK_STR &&
               args->items[1]->kind == TL_PK_TUPLE && args->items[1]->n >= 1) {
        const char *layout = args->items[0]->s;
        snprintf(u->type, sizeof u->type, "%s", strncmp(layout, "torch.", 6) == 0 ? layout + 6
                                                                              : layout);
        sizes = args->items[1]->items[args->items[1]->n - 1];
    }
    int rc = sizes ? int_tuple(sizes, u->sizes, &u->rank, err)
                   : bad(err, id == G_QTENSOR ? "_rebuild_qtensor is called without a storage "
                                                "and sizes"
                                              : "_rebuild_sparse_tensor is called without a "
                                                "layout and (indices, values, size)");
    if (rc) {
        free(u);
        return rc;
    }
    *out = object(a, O_UNDECODED, u);
    return *out ? 0 : tl_fail(err, TL_E_NOMEM, NULL, "out of memory");
}

static int call(void *vctx, struct tl_pk_arena *a, int id, const struct tl_pk *args,
                struct tl_pk **out, struct tl_error *err)
{
    (void)vctx;
    if (id == G_ODICT) {
        if (args->n)
            return bad(err, "OrderedDict is called with arguments torch.save does not give");
        *out = tl_pk_new(a, TL_PK_DICT);
        return *out ? 0 : tl_fail(err, TL_E_NOMEM, NULL, "out of memory");
    }
    if (id == G_PARAM || id == G_PARAM_STATE) {
        if (args->n < 1 || args->items[0]->kind != TL_PK_OBJECT || args->items[0]->i != O_TENSOR)
            return bad(err, "_rebuild_parameter is called without a tensor");
        *out = args->items[0];
        return 0;
    }
    if (id == G_DEVICE) {
        if (args->n < 1 || args->items[0]->kind != TL_PK_STR)
            return bad(err, "torch.device is called without a device's name");
        struct tl_pk *p = tl_pk_new(a, TL_PK_STR);
        if (!p || !(p->s = strdup(args->items[0]->s)))
            return tl_fail(err, TL_E_NOMEM, NULL, "out of memory");
        p->len = strlen(p->s);
        *out = p;
        return 0;
    }
    if (id == G_SIZE || id == G_LAYOUT || id == G_QTENSOR || id == G_SPARSE)
        return call_other(a, id, args, out, err);
    if (id != G_TENSOR)
        return bad(err, "calls a storage class or a dtype, which torch.save does not do");
    /* (storage, offset, sizes, strides, requires_grad, hooks[, metadata]) */
    if (args->n < 4 || args->items[0]->kind != TL_PK_OBJECT || args->items[0]->i != O_STORAGE ||
        !is_int(args->items[1]))
        return bad(err, "_rebuild_tensor_v2 is called without a storage and an offset");
    struct tensor *t = calloc(1, sizeof *t);
    if (!t)
        return tl_fail(err, TL_E_NOMEM, NULL, "out of memory");
    unsigned ns, nt;
    int rc = int_tuple(args->items[2], t->sizes, &ns, err);
    if (!rc)
        rc = int_tuple(args->items[3], t->strides, &nt, err);
    if (!rc && ns != nt)
        rc = bad(err, "_rebuild_tensor_v2: its sizes and strides differ in length");
    if (rc) {
        free(t);
        return rc;
    }
    t->s = args->items[0]->obj;
    t->offset = (uint64_t)args->items[1]->i;
    t->rank = ns;
    *out = object(a, O_TENSOR, t);
    return *out ? 0 : tl_fail(err, TL_E_NOMEM, NULL, "out of memory");
}

/* ('storage', class, key, location, numel): the storage of member
 * ARCHIVE/data/KEY. */
static int persistent(void *vctx, struct tl_pk_arena *a, const struct tl_pk *pid,
                      struct tl_pk **out, struct tl_error *err)
{
    struct ctx *c = vctx;
    if (pid->kind != TL_PK_TUPLE || pid->n != 5 || pid->items[0]->kind != TL_PK_STR ||
        strcmp(pid->items[0]->s, "storage") != 0 || pid->items[1]->kind != TL_PK_GLOBAL ||
        pid->items[1]->i < G_STORAGE || pid->items[1]->i >= G_STORAGE + NTYPES ||
        pid->items[2]->kind != TL_PK_STR || !is_int(pid->items[4]))
        return bad(err, "a persistent id that is not a storage's ('storage', class, key, "
                   "location, size)");
    const char *key = pid->items[2]->s;
    char name[64], q[40];
    if (pid->items[2]->len == 0 || pid->items[2]->len >= sizeof ((struct storage *)0)->key ||
        strchr(key, '/') || strchr(key, '\\') || strcmp(key, "..") == 0)
        return tl_fail(err, TL_E_VALUE, "data.pkl", "storage key '%s' is not a member's name",
                       tl_quote(key, q, sizeof q));
    snprintf(name, sizeof name, "%.*sdata/%s", (int)c->dirlen, c->dir, key);
    const struct tl_file_tensor *m = member_named(c, name);
    if (!m)
        return tl_fail(err, TL_E_VALUE, "data.pkl", "storage '%s' has no member %s in the "
                       "archive", tl_quote(key, q, sizeof q), name);
    struct storage *s = calloc(1, sizeof *s);
    if (!s)
        return tl_fail(err, TL_E_NOMEM, NULL, "out of memory");
    snprintf(s->key, sizeof s->key, "%s", key);
    s->type = (int)(pid->items[1]->i - G_STORAGE);
    s->numel = (uint64_t)pid->items[4]->i;
    s->member = m;
    uint64_t bytes;
    if (!tl_mul_ok(s->numel, types[s->type].size, &bytes) || bytes > m->decoded_bytes) {
        free(s);
        return tl_fail(err, TL_E_RANGE, "data.pkl", "storage '%s' claims %" PRIu64 " elements "
                       "of %u bytes, but its member holds %" PRIu64 " bytes", key,
                       (uint64_t)pid->items[4]->i, types[pid->items[1]->i - G_STORAGE].size,
                       m->decoded_bytes);
    }
    *out = object(a, O_STORAGE, s);
    return *out ? 0 : tl_fail(err, TL_E_NOMEM, NULL, "out of memory");
}

/* ---- the tree, flattened into rows ---------------------------------------- */

struct rows {
    struct tl_file_tensor *t;
    size_t n, cap;
    uint64_t file_len;
    uint64_t work, budget;      /* containers and values visited, and their bound */
};

/* The work a pickle of n bytes may cost (SPEC 17: bounded by its size): a
 * value built for every four bytes (torch.save's take seven or more a
 * value: an opcode, its argument, a memo index; a tensor's rebuild some
 * hundred bytes for fifteen), and four values visited a byte when
 * flattened (a value the memo shares counts each time it is reached: tied
 * weights a few times, a bomb of shared lists 2^k times). */
static uint64_t values_budget(uint64_t n)
{
    return n / 4 + 65536;
}

static uint64_t visits_budget(uint64_t n)
{
    return 4 * n + 65536;
}

static int row(struct rows *r, const char *name, struct tl_file_tensor **out,
               struct tl_error *err)
{
    if (r->n == TL_FILE_TENSORS_MAX)
        return tl_file_count_ok((uint64_t)r->n + 1, "tensors", err);
    if (r->n == r->cap) {
        size_t cap = r->cap ? 2 * r->cap : 16;
        struct tl_file_tensor *t = realloc(r->t, cap * sizeof *t);
        if (!t)
            return tl_fail(err, TL_E_NOMEM, NULL, "out of memory");
        r->t = t;
        r->cap = cap;
    }
    struct tl_file_tensor *t = &r->t[r->n];
    memset(t, 0, sizeof *t);
    if (!(t->name = strdup(name)))
        return tl_fail(err, TL_E_NOMEM, NULL, "out of memory");
    t->order = r->n++;
    *out = t;
    return 0;
}

static int leaf(struct rows *r, const char *name, const struct tl_pk *p, struct tl_error *err)
{
    static const char *const kinds[] = {
        [TL_PK_NONE] = "None", [TL_PK_BOOL] = "bool", [TL_PK_INT] = "int",
        [TL_PK_FLOAT] = "float", [TL_PK_STR] = "str", [TL_PK_BYTES] = "bytes",
        [TL_PK_GLOBAL] = "type", [TL_PK_OBJECT] = "storage",
    };
    char text[96], q[80];
    switch (p->kind) {
    case TL_PK_NONE:  snprintf(text, sizeof text, "None"); break;
    case TL_PK_BOOL:  snprintf(text, sizeof text, "%s", p->i ? "True" : "False"); break;
    case TL_PK_INT:   snprintf(text, sizeof text, "%" PRId64, p->i); break;
    case TL_PK_FLOAT:                   /* the shortest text that reads back the same */
        for (int digits = 15; digits <= 17; digits++) {
            snprintf(text, sizeof text, "%.*g", digits, p->f);
            if (strtod(text, NULL) == p->f)
                break;
        }
        break;
    case TL_PK_STR:   snprintf(text, sizeof text, "'%s'", tl_quote(p->s, q, sizeof q)); break;
    case TL_PK_BYTES: snprintf(text, sizeof text, "%zu bytes", p->len); break;
    case TL_PK_GLOBAL:
        snprintf(text, sizeof text, "%s", p->i >= G_DTYPE ? types[p->i - G_DTYPE].dtype
                                          : "a class");
        break;
    default:          snprintf(text, sizeof text, "-"); break;
    }
    struct tl_file_tensor *t;
    int rc = row(r, name, &t, err);
    if (rc)
        return rc;
    if (!(t->leaf = strdup(text)))
        return tl_fail(err, TL_E_NOMEM, NULL, "out of memory");
    snprintf(t->dtype, sizeof t->dtype, "%s", p->kind == TL_PK_GLOBAL && p->i >= G_DTYPE
                                              ? "dtype" : kinds[p->kind]);
    return 0;
}

/* A row for a tensor the tool does not decode (t, made): listed with its
 * type and sizes, no bytes, not converted. */
static int undecoded_row(struct tl_file_tensor *t, const char *type, unsigned rank,
                         const uint64_t *sizes, struct tl_error *err)
{
    snprintf(t->dtype, sizeof t->dtype, "%s", type);
    t->encoding = TL_ENC_PLAIN;
    t->begin = t->end = t->stored_at = t->stored_bytes = t->decoded_bytes = 0;
    t->storage[0] = '\0';
    t->has_crc = false;
    return tl_file_listed(t, type, rank, sizes, err);
}

/* Whether a view's strides are its sizes' packed C order (a run of bytes). */
static bool c_order(const struct tensor *x)
{
    uint64_t step = 1;
    for (unsigned k = x->rank; k-- > 0;) {
        if (x->sizes[k] > 1 && x->strides[k] != step)
            return false;
        step *= x->sizes[k];
    }
    return true;
}

static int tensor_row(struct rows *r, const char *name, const struct tensor *x,
                      struct tl_error *err)
{
    const struct storage *s = x->s;
    const struct tl_file_tensor *m = s->member;
    char key[160], q[80];
    snprintf(key, sizeof key, "tensor '%s'", tl_quote(name, q, sizeof q));
    struct tl_file_tensor *t;
    int rc = row(r, name, &t, err);
    if (rc)
        return rc;
    snprintf(t->dtype, sizeof t->dtype, "%s", types[s->type].st);
    snprintf(t->storage, sizeof t->storage, "%s", s->key);
    t->ndim = x->rank;
    t->scalar = x->rank == 0;
    memcpy(t->shape, x->sizes, x->rank * sizeof x->sizes[0]);
    /* the last element it reaches, inside its storage */
    uint64_t count = 1, last = x->offset;
    bool fits = true;
    for (unsigned k = 0; k < x->rank && fits; k++) {
        uint64_t step;
        fits = tl_mul_ok(count, x->sizes[k], &count);
        if (x->sizes[k])
            fits = fits && tl_mul_ok(x->sizes[k] - 1, x->strides[k], &step) &&
                   tl_add_ok(last, step, &last);
    }
    if (!fits)
        return tl_fail(err, TL_E_OVERFLOW, key, "its sizes and strides overflow");
    if (count && last >= s->numel)
        return tl_fail(err, TL_E_RANGE, key, "reaches element %" PRIu64 " of storage '%s', "
                       "which holds %" PRIu64, last, s->key, s->numel);
    if (!count && x->offset > s->numel)
        return tl_fail(err, TL_E_RANGE, key, "starts at element %" PRIu64 " of storage '%s', "
                       "which holds %" PRIu64, x->offset, s->key, s->numel);
    unsigned es = types[s->type].size;
    uint64_t packed;
    if (!tl_mul_ok(count, es, &packed) || packed > TL_FILE_BYTES_MAX)
        return tl_fail(err, TL_E_OVERFLOW, key, "holds %" PRIu64 " elements of %u bytes: more "
                       "than any file can hold", count, es);
    uint64_t at = m->encoding == TL_ENC_PLAIN ? m->stored_at : 0;
    t->encoding = m->encoding;
    t->stored_at = m->stored_at;
    t->stored_bytes = m->stored_bytes;
    t->decoded_bytes = m->decoded_bytes;
    t->decoded_crc = m->decoded_crc;
    t->has_crc = m->has_crc;
    if (m->encoding == TL_ENC_PLAIN) {
        t->begin = at + x->offset * es;
        t->end = count ? at + (last + 1) * es : t->begin;
    } else {
        t->begin = m->begin;
        t->end = m->end;
    }
    if (types[s->type].dt < 0 && count && (m->encoding != TL_ENC_PLAIN || !c_order(x)))
        return undecoded_row(t, types[s->type].dtype, x->rank, x->sizes, err);
    if (types[s->type].dt < 0)          /* a packed run: carried as it is */
        return 0;
    if (count == 0) {                   /* no elements: listed, not decoded, */
        t->encoding = TL_ENC_PLAIN;     /* and carried as the none it holds */
        t->end = t->begin;
        t->stored_bytes = t->decoded_bytes = 0;
        t->has_crc = false;
        return 0;
    }
    struct tl_desc *d = &t->desc;
    memset(d, 0, sizeof *d);
    d->dtype = types[s->type].dt >= 0 ? (enum tl_dtype)types[s->type].dt : TL_DT_UINT8;
    d->rank = x->rank ? x->rank : 1;
    for (unsigned k = 0; k < d->rank; k++) {
        d->sizes[k] = x->rank ? x->sizes[k] : 1;
        d->strides[k] = x->rank ? x->strides[k] : 1;
    }
    d->strides_src = TL_STRIDES_GIVEN;
    d->file_offset = at;
    d->byte_offset = x->offset * es;
    rc = tl_desc_validate(d, err);
    if (rc) {
        tl_error_key(err, key);
        return rc;
    }
    t->decodable = true;
    return 0;
}

static int flatten(struct rows *r, const struct tl_pk *p, char *name, size_t len, int depth,
                   struct tl_error *err)
{
    if (depth > 64)
        return bad(err, "nests containers deeper than 64 levels");
    if (++r->work > r->budget)
        return tl_fail(err, TL_E_RANGE, "data.pkl", "flattens into more than %" PRIu64 " values, "
                       "more than a pickle of its size may (the work a file costs is bounded by "
                       "its size: lists the memo shares?)", r->budget);
    if (p->kind == TL_PK_OBJECT && p->i == O_TENSOR)
        return tensor_row(r, name, p->obj, err);
    if (p->kind == TL_PK_OBJECT && p->i == O_UNDECODED) {
        const struct undecoded *u = p->obj;
        struct tl_file_tensor *t;
        int rc = row(r, name, &t, err);
        return rc ? rc : undecoded_row(t, u->type, u->rank, u->sizes, err);
    }
    if (p->kind != TL_PK_DICT && p->kind != TL_PK_LIST && p->kind != TL_PK_TUPLE)
        return leaf(r, len ? name : "(value)", p, err);
    bool dict = p->kind == TL_PK_DICT;
    for (size_t i = 0; i < p->n; i += dict ? 2 : 1) {
        char part[256];
        const struct tl_pk *k = dict ? p->items[i] : NULL, *v = p->items[dict ? i + 1 : i];
        if (!dict)
            snprintf(part, sizeof part, "%zu", i);
        else if (k->kind == TL_PK_STR && strlen(k->s) == k->len)
            snprintf(part, sizeof part, "%s", k->s);
        else if (k->kind == TL_PK_INT)
            snprintf(part, sizeof part, "%" PRId64, k->i);
        else
            return bad(err, "holds a dict whose key is neither text nor an integer");
        size_t plen = strlen(part);
        if (len + 1 + plen >= 1024)
            return bad(err, "holds a name longer than 1023 bytes");
        if (len)
            name[len] = '.';
        memcpy(name + len + (len ? 1 : 0), part, plen + 1);
        int rc = flatten(r, v, name, len + (len ? 1 : 0) + plen, depth + 1, err);
        name[len] = '\0';
        if (rc)
            return rc;
    }
    return 0;
}

static int pytorch_parse(const uint8_t *b, uint64_t len, struct tl_file *f,
                         struct tl_error *err)
{
    if (len >= sizeof legacy_magic && memcmp(b, legacy_magic, sizeof legacy_magic) == 0)
        return tl_fail(err, TL_E_VALUE, "format", "is a PyTorch checkpoint of the old format "
                       "(before 1.6), a bare pickle this tool does not read: load it with "
                       "torch and torch.save it again (a zip since 1.6)");
    struct tl_file zip = { 0 };
    int rc = tl_zip_members(b, len, &zip, err);
    if (rc) {
        tl_file_free(&zip);
        return rc;
    }
    /* ARCHIVE/data.pkl, and no TorchScript */
    const struct tl_file_tensor *pkl = NULL;
    for (size_t i = 0; i < zip.count; i++) {
        const char *n = zip.tensors[i].name;
        size_t nl = strlen(n);
        if (strstr(n, "/constants.pkl") || strstr(n, "/code/")) {
            tl_file_free(&zip);
            return tl_fail(err, TL_E_VALUE, "format", "is a TorchScript archive (torch.jit."
                           "save), a program, not a checkpoint: torch.save its state_dict() "
                           "and convert that");
        }
        if (nl >= 8 && strcmp(n + nl - 8, "data.pkl") == 0 && (nl == 8 || n[nl - 9] == '/') &&
            (!pkl || zip.tensors[i].stored_at < pkl->stored_at))
            pkl = &zip.tensors[i];
    }
    if (!pkl) {
        tl_file_free(&zip);
        return tl_fail(err, TL_E_VALUE, "data.pkl", "is missing: not a torch.save checkpoint");
    }
    const char *slash = strrchr(pkl->name, '/');
    struct ctx c = { &zip, pkl->name, slash ? (size_t)(slash - pkl->name) + 1 : 0,
                     malloc((zip.count ? zip.count : 1) * sizeof *c.by_name) };
    if (!c.by_name) {
        tl_file_free(&zip);
        return tl_fail(err, TL_E_NOMEM, NULL, "out of memory");
    }
    for (size_t i = 0; i < zip.count; i++)
        c.by_name[i] = &zip.tensors[i];
    qsort(c.by_name, zip.count, sizeof *c.by_name, member_cmp);
    /* the pickle's bytes: in place, or inflated */
    uint8_t *text = NULL;
    const uint8_t *p = b + pkl->stored_at;
    if (pkl->decoded_bytes > TL_FILE_HEADER_MAX) {
        rc = tl_fail(err, TL_E_RANGE, "data.pkl", "holds %" PRIu64 " bytes, above the limit "
                     "of 100 MiB", pkl->decoded_bytes);
        free(c.by_name);
        tl_file_free(&zip);             /* pkl is one of its rows: said first */
        return rc;
    }
    /* torch.save stores it; a deflated one inflates to at most 16 times the
     * file (or 1 MiB) */
    uint64_t most = 16 * len > (UINT64_C(1) << 20) ? 16 * len : UINT64_C(1) << 20;
    if (pkl->encoding != TL_ENC_PLAIN && pkl->decoded_bytes > most) {
        rc = tl_fail(err, TL_E_RANGE, "data.pkl", "inflates to %" PRIu64 " bytes from a file "
                     "of %" PRIu64 ": more than 16 times its size (and 1 MiB) is refused",
                     pkl->decoded_bytes, len);
        free(c.by_name);
        tl_file_free(&zip);             /* pkl is one of its rows: said first */
        return rc;
    }
    if (pkl->encoding != TL_ENC_PLAIN) {
        struct tl_fill buf = { malloc((size_t)pkl->decoded_bytes + 1), 0,
                               (size_t)pkl->decoded_bytes, false };
        text = buf.p;
        if (!text) {
            free(c.by_name);
            tl_file_free(&zip);
            return tl_fail(err, TL_E_NOMEM, NULL, "out of memory");
        }
        rc = tl_inflate(b, pkl, 0, true, tl_put_fill, &buf, err);
        if (rc) {
            free(text);
            free(c.by_name);
            tl_file_free(&zip);
            return rc;
        }
        p = text;
    }
    struct tl_pk_rules rules = { &c, allowed, call, persistent, NULL, refused };
    struct tl_pk_arena arena = { 0 };
    arena.limit = (size_t)values_budget(pkl->decoded_bytes);
    struct tl_pk *root;
    rc = tl_pk_load(p, (size_t)pkl->decoded_bytes, &rules, &arena, &root, err);
    struct rows r = { NULL, 0, 0, len, 0, visits_budget(pkl->decoded_bytes) };
    char name[1024] = "";
    if (!rc)
        rc = flatten(&r, root, name, 0, 0, err);
    tl_pk_free(&arena);
    free(text);
    free(c.by_name);
    tl_file_free(&zip);
    f->tensors = r.t;
    f->count = r.n;
    f->named = true;
    f->gaps_ok = true;                 /* local headers and data.pkl lie between */
    if (rc)
        return rc;
    bool nomem;                        /* names twice: {"a.b": x, "a": {"b": y}} */
    const char *twice = tl_file_name_twice(f, &nomem);
    if (nomem)
        return tl_fail(err, TL_E_NOMEM, NULL, "out of memory");
    if (twice) {
        char key[128], q[80];
        snprintf(key, sizeof key, "tensor '%s'", tl_quote(twice, q, sizeof q));
        return tl_fail(err, TL_E_KEY, key, "its name appears twice once flattened");
    }
    if (tl_file_order(f, len))
        return tl_fail(err, TL_E_NOMEM, NULL, "out of memory");
    /* views of one storage share its bytes: no problem */
    size_t kept = 0;
    for (size_t i = 0; i < f->nproblems; i++) {
        const struct tl_file_problem *q = &f->problems[i];
        bool shared = q->kind == TL_FP_OVERLAP && q->a < f->count && q->b < f->count &&
                      f->tensors[q->a].storage[0] &&
                      strcmp(f->tensors[q->a].storage, f->tensors[q->b].storage) == 0;
        if (!shared)
            f->problems[kept++] = *q;
    }
    f->nproblems = kept;
    return 0;
}

/* list: the storage a tensor is a view of (its key in ARCHIVE/data/). */
static void list_storage(const struct tl_file_tensor *t, char *buf, size_t n)
{
    snprintf(buf, n, "%s", t->storage);
}

static bool list_keys(struct cJSON *o, const struct tl_file_tensor *t)
{
    return cJSON_AddStringToObject(o, "storage", t->storage) != NULL;
}

const struct tl_format_entry tl_format_pytorch = {
    .id = TL_FMT_PYTORCH, .name = "pytorch", .label = "PyTorch",
    .title = "a PyTorch checkpoint (torch.save)", .endings = ".pt .pth .bin",
    .bid = pytorch_bid, .read = pytorch_parse, .many = true, .spelling = TL_SPELL_SAFETENSORS,
    .type_width = 8, .column = "storage", .column_width = 7, .column_text = list_storage,
    .json_keys = list_keys,
};
