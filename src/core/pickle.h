/*
 * pickle.h - the pickle reader's values and its caller's rules (pickle.c;
 * pytorch.c is the caller).  Internal to the core.
 */
#ifndef TL_PICKLE_H
#define TL_PICKLE_H

#include <stddef.h>
#include <stdint.h>

#include "tl.h"

enum tl_pk_kind {
    TL_PK_NONE, TL_PK_BOOL, TL_PK_INT, TL_PK_FLOAT, TL_PK_STR, TL_PK_BYTES, TL_PK_TUPLE,
    TL_PK_LIST, TL_PK_DICT, TL_PK_GLOBAL, TL_PK_OBJECT
};

/* A value: i (an int, a bool, a global's id, an object's kind), f, s
 * (len bytes, NUL-terminated), items (a tuple's or list's; a dict's keys
 * and values alternating), and for the caller's objects (TL_PK_OBJECT)
 * whatever it keeps in obj. */
struct tl_pk {
    enum tl_pk_kind kind;
    int64_t i;
    double f;
    char *s;
    size_t len;
    struct tl_pk **items;
    size_t n, cap;
    void *obj;
};

/* Every value of one load, freed at once.  limit (when not 0) bounds the
 * values built: past it tl_pk_new returns NULL and sets over, and the
 * load fails saying so (a file's work is bounded by its size). */
struct tl_pk_arena {
    struct tl_pk **all;
    size_t n, cap;
    size_t limit;
    bool over;
};

struct tl_pk *tl_pk_new(struct tl_pk_arena *a, enum tl_pk_kind kind);
int tl_pk_add(struct tl_pk *c, struct tl_pk *item);
void tl_pk_free(struct tl_pk_arena *a);

/* What a pickle may name and do: global() gives an allowed global's id
 * (>= 0), or -1 to refuse it; call() makes the value of global id called
 * with the tuple args (REDUCE, NEWOBJ); persistent() the value of a
 * persistent id (BINPERSID); build() sets state on an object (BUILD; NULL:
 * ignored); refused() words a refusal.  Each returns 0 or a TL_E_* code with err filled. */
struct tl_pk_rules {
    void *ctx;
    int (*global)(const char *module, const char *name);
    int (*call)(void *ctx, struct tl_pk_arena *a, int id, const struct tl_pk *args,
                struct tl_pk **out, struct tl_error *err);
    int (*persistent)(void *ctx, struct tl_pk_arena *a, const struct tl_pk *pid,
                      struct tl_pk **out, struct tl_error *err);
    int (*build)(void *ctx, struct tl_pk *obj, const struct tl_pk *state, struct tl_error *err);
    /* why a refused global is refused, in words that say what to do, or
     * NULL for the reader's own (may be NULL) */
    const char *(*refused)(const char *module, const char *name);
};

/* Reads the pickle b[0 .. len) into *root, by the rules.  @return 0, or a
 * TL_E_* code with err filled (err->key "data.pkl"). */
int tl_pk_load(const uint8_t *b, size_t len, const struct tl_pk_rules *rules,
               struct tl_pk_arena *arena, struct tl_pk **root, struct tl_error *err);

#endif
