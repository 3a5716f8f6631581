/*
 * pickle.c - a pickle reader that executes nothing (SPEC 17): the opcodes
 * of protocols 2 to 5 that torch.save writes, interpreted into a tree of
 * plain values (struct tl_pk).  A GLOBAL is looked up in the caller's
 * list of allowed names the moment it is read: any other is refused then,
 * before anything is built.  Calling one (REDUCE) builds only what the
 * caller's build function makes of its arguments; nothing is imported,
 * no object's code runs.  Every length, count and memo index is checked
 * before it is used, nesting is bounded, and the tree lives in one arena
 * freed at once.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "pickle.h"

#define PK_DEPTH 200                 /* nesting of MARKs */
#define PK_MEMO_MAX (1u << 24)

struct vm {
    const uint8_t *b;
    size_t len, at;
    struct tl_pk_arena *arena;
    struct tl_pk **stack;
    size_t sp, cap;
    size_t marks[PK_DEPTH];
    size_t nmarks;
    struct tl_pk **memo;
    size_t nmemo, memoized;            /* the memo's room; MEMOIZE's next index */
    const struct tl_pk_rules *rules;
    struct tl_error *err;
};

static int fail(struct vm *v, const char *msg)
{
    return tl_fail(v->err, TL_E_VALUE, "data.pkl", "%s (at byte %zu)", msg, v->at);
}

struct tl_pk *tl_pk_new(struct tl_pk_arena *a, enum tl_pk_kind kind)
{
    if (a->limit && a->n >= a->limit) {
        a->over = true;
        return NULL;
    }
    struct tl_pk *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    if (a->n == a->cap) {
        size_t cap = a->cap ? 2 * a->cap : 256;
        struct tl_pk **all = realloc(a->all, cap * sizeof *all);
        if (!all) {
            free(p);
            return NULL;
        }
        a->all = all;
        a->cap = cap;
    }
    a->all[a->n++] = p;
    p->kind = kind;
    return p;
}

/* Adds item to a tuple, list or dict (a dict's keys and values alternate). */
int tl_pk_add(struct tl_pk *c, struct tl_pk *item)
{
    if (c->n == c->cap) {
        size_t cap = c->cap ? 2 * c->cap : 4;
        struct tl_pk **items = realloc(c->items, cap * sizeof *items);
        if (!items)
            return TL_E_NOMEM;
        c->items = items;
        c->cap = cap;
    }
    c->items[c->n++] = item;
    return 0;
}

void tl_pk_free(struct tl_pk_arena *a)
{
    for (size_t i = 0; i < a->n; i++) {
        free(a->all[i]->items);
        free(a->all[i]->s);
        free(a->all[i]->obj);
        free(a->all[i]);
    }
    free(a->all);
    memset(a, 0, sizeof *a);
}

static int nomem(struct vm *v)
{
    if (v->arena->over)
        return tl_fail(v->err, TL_E_RANGE, "data.pkl", "builds more than %zu values, more than "
                       "a pickle of %zu bytes may (the work a file costs is bounded by its size)",
                       v->arena->limit, v->len);
    return tl_fail(v->err, TL_E_NOMEM, NULL, "out of memory");
}

static int push(struct vm *v, struct tl_pk *p)
{
    if (!p)
        return nomem(v);
    if (v->sp == v->cap) {
        size_t cap = v->cap ? 2 * v->cap : 64;
        struct tl_pk **s = realloc(v->stack, cap * sizeof *s);
        if (!s)
            return nomem(v);
        v->stack = s;
        v->cap = cap;
    }
    v->stack[v->sp++] = p;
    return 0;
}

static int pop(struct vm *v, struct tl_pk **p)
{
    size_t floor = v->nmarks ? v->marks[v->nmarks - 1] : 0;
    if (v->sp <= floor)
        return fail(v, "pops an empty stack (a corrupt pickle)");
    *p = v->stack[--v->sp];
    return 0;
}

static int top(struct vm *v, struct tl_pk **p)
{
    size_t floor = v->nmarks ? v->marks[v->nmarks - 1] : 0;
    if (v->sp <= floor)
        return fail(v, "reads an empty stack (a corrupt pickle)");
    *p = v->stack[v->sp - 1];
    return 0;
}

/* The items since the last MARK: [*from, sp). */
static int since_mark(struct vm *v, size_t *from)
{
    if (!v->nmarks)
        return fail(v, "has no MARK to end (a corrupt pickle)");
    *from = v->marks[--v->nmarks];
    return 0;
}

static int need(struct vm *v, size_t n)
{
    if (n > v->len - v->at)
        return tl_fail(v->err, TL_E_RANGE, "data.pkl", "ends inside an opcode at byte %zu "
                       "(truncated)", v->at);
    return 0;
}

static uint64_t le(const uint8_t *p, unsigned n)
{
    uint64_t x = 0;
    for (unsigned i = 0; i < n; i++)
        x |= (uint64_t)p[i] << (8 * i);
    return x;
}

static struct tl_pk *str_obj(struct vm *v, const uint8_t *s, size_t n, enum tl_pk_kind kind)
{
    struct tl_pk *p = tl_pk_new(v->arena, kind);
    if (!p || !(p->s = malloc(n + 1)))
        return NULL;
    memcpy(p->s, s, n);
    p->s[n] = '\0';
    p->len = n;
    return p;
}

static int memo_put(struct vm *v, uint64_t i, struct tl_pk *p)
{
    if (i >= PK_MEMO_MAX || i > v->len)
        return fail(v, "memoizes at an index past any this pickle can use");
    if (i >= v->nmemo) {
        size_t n = (size_t)i + 1 > 2 * v->nmemo ? (size_t)i + 1 : 2 * v->nmemo;
        struct tl_pk **m = realloc(v->memo, n * sizeof *m);
        if (!m)
            return nomem(v);
        memset(m + v->nmemo, 0, (n - v->nmemo) * sizeof *m);
        v->memo = m;
        v->nmemo = n;
    }
    v->memo[i] = p;
    return 0;
}

static int memo_get(struct vm *v, uint64_t i)
{
    if (i >= v->nmemo || !v->memo[i])
        return fail(v, "reads a memo entry never written");
    return push(v, v->memo[i]);
}

/* A GLOBAL: allowed, or refused now. */
static int global(struct vm *v, const char *module, const char *name)
{
    int id = v->rules->global(module, name);
    if (id < 0) {
        char what[160];
        snprintf(what, sizeof what, "%.70s.%.70s", module, name);
        const char *why = v->rules->refused ? v->rules->refused(module, name) : NULL;
        return tl_fail(v->err, TL_E_VALUE, "data.pkl", "refuses to call %s: %s", what,
                       why ? why : "not a tensor checkpoint (only the names torch.save writes "
                                   "for tensors are read)");
    }
    struct tl_pk *p = tl_pk_new(v->arena, TL_PK_GLOBAL);
    if (p)
        p->i = id;
    return push(v, p);
}

static int check_text(struct vm *v, const uint8_t *s, size_t n)
{
    if (memchr(s, 0, n))
        return fail(v, "names a global with a NUL byte");
    return 0;
}

int tl_pk_load(const uint8_t *b, size_t len, const struct tl_pk_rules *rules,
               struct tl_pk_arena *arena, struct tl_pk **root, struct tl_error *err)
{
    struct vm v = { b, len, 0, arena, NULL, 0, 0, { 0 }, 0, NULL, 0, 0, rules, err };
    int rc = 0;
    *root = NULL;
    while (!rc) {
        if ((rc = need(&v, 1)))
            break;
        uint8_t op = b[v.at++];
        struct tl_pk *p = NULL, *q = NULL, *c = NULL;
        size_t from = 0;
        uint64_t n;
        switch (op) {
        case 0x80:                                  /* PROTO */
            if (!(rc = need(&v, 1)) && (b[v.at] < 2 || b[v.at] > 5))
                rc = tl_fail(err, TL_E_VALUE, "data.pkl", "is pickle protocol %u; this tool "
                             "reads protocols 2 to 5 (what torch.save writes)", b[v.at]);
            v.at++;
            break;
        case 0x95:                                  /* FRAME: a length, ignored */
            if (!(rc = need(&v, 8)))
                v.at += 8;
            break;
        case '.':                                   /* STOP */
            if (v.sp != 1 || v.nmarks) {
                rc = fail(&v, "stops with other than one value (a corrupt pickle)");
                break;
            }
            *root = v.stack[0];
            free(v.stack);
            free(v.memo);
            return 0;
        case '(':                                   /* MARK */
            if (v.nmarks == PK_DEPTH)
                rc = fail(&v, "nests deeper than this tool reads (200 levels)");
            else
                v.marks[v.nmarks++] = v.sp;
            break;
        case '}':
            rc = push(&v, tl_pk_new(arena, TL_PK_DICT));
            break;
        case ']':
            rc = push(&v, tl_pk_new(arena, TL_PK_LIST));
            break;
        case ')':
            rc = push(&v, tl_pk_new(arena, TL_PK_TUPLE));
            break;
        case 't':                                   /* TUPLE */
        case 'l':                                   /* LIST */
        case 'd':                                   /* DICT */
            if ((rc = since_mark(&v, &from)))
                break;
            if (!(c = tl_pk_new(arena, op == 't' ? TL_PK_TUPLE : op == 'l' ? TL_PK_LIST
                                                              : TL_PK_DICT))) {
                rc = nomem(&v);
                break;
            }
            if (op == 'd' && (v.sp - from) % 2) {
                rc = fail(&v, "builds a dict of an odd count of items");
                break;
            }
            for (size_t i = from; !rc && i < v.sp; i++)
                rc = tl_pk_add(c, v.stack[i]) ? nomem(&v) : 0;
            v.sp = from;
            if (!rc)
                rc = push(&v, c);
            break;
        case 0x85: case 0x86: case 0x87: {          /* TUPLE1..3 */
            unsigned k = op - 0x84u;
            struct tl_pk *it[3];
            for (unsigned i = 0; !rc && i < k; i++)
                rc = pop(&v, &it[k - 1 - i]);
            if (rc || !(c = tl_pk_new(arena, TL_PK_TUPLE))) {
                rc = rc ? rc : nomem(&v);
                break;
            }
            for (unsigned i = 0; !rc && i < k; i++)
                rc = tl_pk_add(c, it[i]) ? nomem(&v) : 0;
            if (!rc)
                rc = push(&v, c);
            break;
        }
        case 'J': case 'K': case 'M': {             /* BININT, BININT1, BININT2 */
            unsigned k = op == 'J' ? 4 : op == 'K' ? 1 : 2;
            if ((rc = need(&v, k)))
                break;
            p = tl_pk_new(arena, TL_PK_INT);
            if (p)
                p->i = op == 'J' ? (int32_t)le(b + v.at, 4) : (int64_t)le(b + v.at, k);
            v.at += k;
            rc = push(&v, p);
            break;
        }
        case 0x8a:                                  /* LONG1 */
            if ((rc = need(&v, 1)) || (rc = need(&v, 1 + (size_t)b[v.at])))
                break;
            n = b[v.at];
            if (n > 8) {
                rc = fail(&v, "holds an integer of more than 64 bits");
                break;
            }
            p = tl_pk_new(arena, TL_PK_INT);
            if (p) {
                uint64_t x = le(b + v.at + 1, (unsigned)n);
                if (n && n < 8 && (b[v.at + n] & 0x80))
                    x |= ~UINT64_C(0) << (8 * n);    /* negative: sign-extended */
                p->i = (int64_t)x;
            }
            v.at += 1 + n;
            rc = push(&v, p);
            break;
        case 'G':                                   /* BINFLOAT, big-endian */
            if ((rc = need(&v, 8)))
                break;
            p = tl_pk_new(arena, TL_PK_FLOAT);
            if (p) {
                uint64_t x = 0;
                for (int i = 0; i < 8; i++)
                    x = x << 8 | b[v.at + i];
                memcpy(&p->f, &x, 8);
            }
            v.at += 8;
            rc = push(&v, p);
            break;
        case 'N':
            rc = push(&v, tl_pk_new(arena, TL_PK_NONE));
            break;
        case 0x88: case 0x89:                       /* NEWTRUE, NEWFALSE */
            p = tl_pk_new(arena, TL_PK_BOOL);
            if (p)
                p->i = op == 0x88;
            rc = push(&v, p);
            break;
        case 'X': case 0x8c: case 0x8d:             /* BINUNICODE, SHORT_, 8 */
        case 'T': case 'U': case 'B': case 'C': case 0x8e: {   /* strings, bytes */
            unsigned k = op == 'X' || op == 'T' || op == 'B' ? 4 : op == 0x8d || op == 0x8e ? 8 : 1;
            if ((rc = need(&v, k)))
                break;
            n = le(b + v.at, k);
            v.at += k;
            if (n > v.len - v.at) {
                rc = tl_fail(err, TL_E_RANGE, "data.pkl", "a string of %" PRIu64 " bytes at "
                             "byte %zu runs past its end (truncated)", n, v.at);
                break;
            }
            bool bytes = op == 'B' || op == 'C' || op == 0x8e;
            if (!bytes && memchr(b + v.at, 0, (size_t)n)) {     /* a name cut short */
                rc = tl_fail(err, TL_E_VALUE, "data.pkl", "the string at byte %zu holds a NUL: "
                             "no tensor name or storage key may", v.at);
                break;
            }
            rc = push(&v, str_obj(&v, b + v.at, (size_t)n, bytes ? TL_PK_BYTES : TL_PK_STR));
            v.at += (size_t)n;
            break;
        }
        case 'a':                                   /* APPEND */
            if ((rc = pop(&v, &p)) || (rc = top(&v, &c)))
                break;
            if (c->kind != TL_PK_LIST)
                rc = fail(&v, "appends to what is not a list");
            else
                rc = tl_pk_add(c, p) ? nomem(&v) : 0;
            break;
        case 'e':                                   /* APPENDS */
            if ((rc = since_mark(&v, &from)))
                break;
            if (from == 0 || (v.nmarks && from <= v.marks[v.nmarks - 1]) ||
                (c = v.stack[from - 1])->kind != TL_PK_LIST) {
                rc = fail(&v, "appends to what is not a list");
                break;
            }
            for (size_t i = from; !rc && i < v.sp; i++)
                rc = tl_pk_add(c, v.stack[i]) ? nomem(&v) : 0;
            v.sp = from;
            break;
        case 's':                                   /* SETITEM */
            if ((rc = pop(&v, &q)) || (rc = pop(&v, &p)) || (rc = top(&v, &c)))
                break;
            if (c->kind != TL_PK_DICT)
                rc = fail(&v, "sets an item of what is not a dict");
            else if (tl_pk_add(c, p) || tl_pk_add(c, q))
                rc = nomem(&v);
            break;
        case 'u':                                   /* SETITEMS */
            if ((rc = since_mark(&v, &from)))
                break;
            if (from == 0 || (v.nmarks && from <= v.marks[v.nmarks - 1]) ||
                (c = v.stack[from - 1])->kind != TL_PK_DICT || (v.sp - from) % 2) {
                rc = fail(&v, "sets the items of what is not a dict");
                break;
            }
            for (size_t i = from; !rc && i < v.sp; i++)
                rc = tl_pk_add(c, v.stack[i]) ? nomem(&v) : 0;
            v.sp = from;
            break;
        case 'q': case 'r':                         /* BINPUT, LONG_BINPUT */
            if ((rc = need(&v, op == 'q' ? 1 : 4)) || (rc = top(&v, &p)))
                break;
            n = le(b + v.at, op == 'q' ? 1 : 4);
            v.at += op == 'q' ? 1 : 4;
            rc = memo_put(&v, n, p);
            break;
        case 0x94:                                  /* MEMOIZE */
            if (!(rc = top(&v, &p)))
                rc = memo_put(&v, v.memoized++, p);
            break;
        case 'h': case 'j':                         /* BINGET, LONG_BINGET */
            if ((rc = need(&v, op == 'h' ? 1 : 4)))
                break;
            n = le(b + v.at, op == 'h' ? 1 : 4);
            v.at += op == 'h' ? 1 : 4;
            rc = memo_get(&v, n);
            break;
        case 'c': {                                 /* GLOBAL "module\nname\n" */
            const uint8_t *m = b + v.at, *e1 = memchr(m, '\n', v.len - v.at);
            const uint8_t *e2 = e1 ? memchr(e1 + 1, '\n', v.len - (size_t)(e1 + 1 - b)) : NULL;
            if (!e2 || e1 - m > 200 || e2 - e1 > 200) {
                rc = fail(&v, "holds a GLOBAL without two short lines");
                break;
            }
            char mod[256], name[256];
            memcpy(mod, m, (size_t)(e1 - m));
            mod[e1 - m] = '\0';
            memcpy(name, e1 + 1, (size_t)(e2 - e1 - 1));
            name[e2 - e1 - 1] = '\0';
            v.at = (size_t)(e2 + 1 - b);
            if (!(rc = check_text(&v, m, (size_t)(e2 - m))))
                rc = global(&v, mod, name);
            break;
        }
        case 0x93:                                  /* STACK_GLOBAL */
            if ((rc = pop(&v, &q)) || (rc = pop(&v, &p)))
                break;
            if (p->kind != TL_PK_STR || q->kind != TL_PK_STR || p->len > 200 || q->len > 200 ||
                strlen(p->s) != p->len || strlen(q->s) != q->len)
                rc = fail(&v, "names a global with what is not two short strings");
            else
                rc = global(&v, p->s, q->s);
            break;
        case 'R':                                   /* REDUCE: callable(*args) */
            if ((rc = pop(&v, &q)) || (rc = pop(&v, &p)))
                break;
            if (p->kind != TL_PK_GLOBAL || q->kind != TL_PK_TUPLE) {
                rc = fail(&v, "calls what is not an allowed global, or with what is "
                          "not a tuple");
                break;
            }
            c = NULL;
            if ((rc = rules->call(rules->ctx, arena, (int)p->i, q, &c, err)) == 0)
                rc = push(&v, c);
            break;
        case 'b':                                   /* BUILD: state set on an object */
            if ((rc = pop(&v, &q)) || (rc = top(&v, &p)))
                break;
            rc = rules->build ? rules->build(rules->ctx, p, q, err) : 0;
            break;
        case 'Q':                                   /* BINPERSID */
            if ((rc = pop(&v, &p)))
                break;
            c = NULL;
            if ((rc = rules->persistent(rules->ctx, arena, p, &c, err)) == 0)
                rc = push(&v, c);
            break;
        case '0':                                   /* POP */
            rc = pop(&v, &p);
            break;
        default: {
            v.at--;
            rc = tl_fail(err, TL_E_VALUE, "data.pkl", "holds opcode 0x%02x at byte %zu, which "
                         "torch.save does not write (not a tensor checkpoint)", op, v.at);
            break;
        }
        }
    }
    free(v.stack);
    free(v.memo);
    return rc;
}
