/*
 * model.c - the cells of a picture (see draw.h): which indices and slots
 * are drawn, and what each cell says.
 *
 * Each axis of a view shows at most a few indices: all of them when they
 * fit, else the first and the last ones (or a window around --at), with
 * an ellipsis between.  Only the cells drawn are computed: offsets by
 * tl_desc_elem(), a slot's owners by the owner finder with a work bound
 * per slot, so that a description of 2^40 broadcast elements draws as
 * fast as one of six.
 */
#include <stdlib.h>
#include <string.h>

#include "draw.h"

const uint32_t draw_palette[DRAW_COLOURS] = {
    0xe69f00, 0x56b4e9, 0x009e73, 0xf0e442, 0x0072b2, 0xd55e00, 0xcc79a7, 0x999999,
};

#define MAX_GRIDS 3
#define MAX_ROWS 8
#define MAX_PHYS_ROWS 8
#define OWNER_WORK (UINT64_C(1) << 16)   /* steps of one slot's owner search */
#define OWNER_LIMIT 1024                  /* owners counted per overlapping slot */

void draw_axis_name(const struct draw_side *s, unsigned a, char *buf, size_t n)
{
    const char *letters = s->axes ? s->axes : tl_axis_letters(s->d->rank);
    if (letters && (letters[a] < '0' || letters[a] > '9'))
        snprintf(buf, n, "%c", letters[a]);
    else
        snprintf(buf, n, "axis %u", a);
}

/* One word of *p up to stop (or a space or the end) into buf. */
static const char *word(const char *p, char stop, char *buf, size_t n)
{
    size_t k = 0;
    for (; *p && *p != stop && *p != ' '; p++)
        if (k + 1 < n)
            buf[k++] = *p;
    buf[k] = '\0';
    return p;
}

bool draw_next_field(const char **parts, char *name, size_t nn, unsigned *at, unsigned *len,
                     char *what, size_t wn)
{
    const char *p = *parts;
    char num[2][16];
    if (!p)
        return false;
    while (*p == ' ')
        p++;
    if (!*p)
        return false;
    p = word(p, ':', name, nn);
    for (int i = 0; i < 2; i++) {
        if (*p != ':')
            return false;
        p = word(p + 1, ':', num[i], sizeof num[i]);
    }
    if (*p != ':')
        return false;
    p = word(p + 1, ' ', what, wn);
    *at = (unsigned)strtoul(num[0], NULL, 10);
    *len = (unsigned)strtoul(num[1], NULL, 10);
    *parts = p;
    return *len > 0;
}

unsigned draw_kinds(const struct draw_model *m)
{
    const struct draw_physical *p = &m->physical;
    unsigned k = 0;
    for (size_t i = 0; i < (size_t)p->rows.n * p->per; i++) {
        if (p->cells[i].label[0])
            k |= 1u << p->cells[i].kind;
    }
    return k;
}

int draw_digits(uint64_t v)
{
    int n = 1;
    while (v >= 10) {
        v /= 10;
        n++;
    }
    return n;
}

/* Picks at most max indices of [0, total): all, or a window of max around
 * centre (when centred), or the first and the last ones. */
static void pick(struct draw_pick *p, uint64_t total, unsigned max, bool centred, uint64_t centre)
{
    if (max < 1)
        max = 1;
    if (max > DRAW_PICK)
        max = DRAW_PICK;
    p->total = total;
    if (total <= max) {
        p->n = (unsigned)total;
        for (unsigned i = 0; i < p->n; i++)
            p->v[i] = i;
        return;
    }
    p->n = max;
    if (centred) {
        uint64_t lo = centre > max / 2 ? centre - max / 2 : 0;
        if (lo > total - max)
            lo = total - max;
        for (unsigned i = 0; i < max; i++)
            p->v[i] = lo + i;
        return;
    }
    unsigned head = (max + 1) / 2;
    for (unsigned i = 0; i < head; i++)
        p->v[i] = i;
    for (unsigned i = head; i < max; i++)
        p->v[i] = total - (max - i);
}

void draw_grid_index(const struct draw_logical *l, const struct tl_desc *d, uint64_t g,
                     uint64_t *idx)
{
    memset(idx, 0, d->rank * sizeof *idx);
    for (unsigned k = l->outer_n; k-- > 0;) {
        unsigned a = l->outer[k];
        idx[a] = g % d->sizes[a];
        g /= d->sizes[a];
    }
}

void draw_grid_title(const struct draw_logical *l, const struct tl_desc *d, uint64_t g,
                     char *buf, size_t n)
{
    buf[0] = '\0';
    if (d->rank <= 2 && !l->outer_n)
        return;
    uint64_t idx[TL_MAX_RANK];
    draw_grid_index(l, d, g, idx);
    size_t k = (size_t)snprintf(buf, n, "[");
    for (unsigned a = 0; a < d->rank && k < n; a++) {
        bool drawn = a == l->col_axis || (int)a == l->row_axis;
        if (drawn)
            k += (size_t)snprintf(buf + k, n - k, "%s:", a ? "," : "");
        else
            k += (size_t)snprintf(buf + k, n - k, "%s%llu", a ? "," : "",
                                  (unsigned long long)idx[a]);
    }
    if (k < n)
        snprintf(buf + k, n - k, "]");
}

void draw_index_text(const uint64_t *idx, unsigned rank, char *buf, size_t n)
{
    size_t k = 0;
    buf[0] = '\0';
    for (unsigned a = 0; a < rank && k < n; a++)
        k += (size_t)snprintf(buf + k, n - k, "%s%llu", a ? "," : "", (unsigned long long)idx[a]);
}

/* The axis whose index a colour tells: the channels of an NCHW-family
 * tensor, else the grid's outer axis. */
static unsigned colour_axis(const struct tl_desc *d)
{
    if ((d->rank == 4 || d->rank == 5) && d->sizes[1] > 1)
        return 1;
    return d->rank >= 2 ? d->rank - 2 : 0;
}

static void element_label(const struct draw_side *s, const struct draw_opts *o,
                          const uint64_t *idx, char *buf, size_t n)
{
    uint64_t e = tl_desc_elem(s->d, idx);
    if (o->values && s->file)
        tl_desc_format(s->d, s->file, e, buf, n);
    else
        snprintf(buf, n, "%llu", (unsigned long long)e);
}

/* Fills the cells of the picked grids, rows and columns; returns the
 * widest label. */
static int fill_logical(struct draw_logical *l, const struct draw_side *s,
                        const struct draw_opts *o)
{
    uint64_t idx[TL_MAX_RANK] = { 0 };
    int w = 1;
    struct draw_cell *c = l->cells;
    for (unsigned g = 0; g < l->grids.n; g++) {
        draw_grid_index(l, s->d, l->grids.v[g], idx);
        for (unsigned r = 0; r < l->rows.n; r++) {
            if (l->row_axis >= 0)
                idx[l->row_axis] = l->rows.v[r];
            for (unsigned k = 0; k < l->cols.n; k++, c++) {
                idx[l->col_axis] = l->cols.v[k];
                element_label(s, o, idx, c->label, sizeof c->label);
                c->kind = DRAW_ELEMENT;
                c->at = o->at_given && memcmp(idx, o->at, l->rank * sizeof *idx) == 0;
                c->colour = (int)(idx[l->colour_axis] % DRAW_COLOURS);
                c->owners = 1;
                int len = (int)strlen(c->label);
                if (len > w)
                    w = len;
            }
        }
    }
    return w;
}

static int build_logical(struct draw_logical *l, const struct draw_side *s,
                         const struct draw_opts *o)
{
    const struct tl_desc *d = s->d;
    l->rank = d->rank;
    /* columns the innermost axis longer than one, rows the next one (SPEC
     * 19: a 1x16x1x1 bias is one row of 16, not 16 grids of one cell) */
    int col = -1, row = -1;
    for (unsigned a = d->rank; a-- > 0;) {
        if (d->sizes[a] <= 1)
            continue;
        if (col < 0)
            col = (int)a;
        else if (row < 0)
            row = (int)a;
    }
    if (col < 0)                    /* one element: its innermost axis */
        col = (int)d->rank - 1;
    l->col_axis = (unsigned)col;
    l->row_axis = row;
    l->colour_axis = colour_axis(d);
    l->outer_n = 0;
    uint64_t outer = 1, at_outer = 0;
    for (unsigned a = 0; a < d->rank; a++) {
        if ((int)a == col || (int)a == row)
            continue;
        l->outer[l->outer_n++] = a;
        outer *= d->sizes[a];
        at_outer = at_outer * d->sizes[a] + (o->at_given ? o->at[a] : 0);
    }
    l->outer_count = outer;
    pick(&l->grids, outer, MAX_GRIDS, o->at_given, at_outer);
    pick(&l->rows, l->row_axis >= 0 ? d->sizes[l->row_axis] : 1, MAX_ROWS, o->at_given,
         l->row_axis >= 0 && o->at_given ? o->at[l->row_axis] : 0);
    uint64_t cols = d->sizes[l->col_axis], at_col = o->at_given ? o->at[l->col_axis] : 0;
    int prefix = 4 + draw_digits(l->rows.total - 1);
    /* a first guess of the columns that fit, measured, then cut to fit */
    unsigned guess = o->width > (unsigned)prefix ? (o->width - (unsigned)prefix) / 2 : 1;
    pick(&l->cols, cols, guess, o->at_given, at_col);
    size_t n = (size_t)l->grids.n * l->rows.n * DRAW_PICK;
    l->cells = calloc(n ? n : 1, sizeof *l->cells);
    if (!l->cells)
        return TL_E_NOMEM;
    l->cell_width = fill_logical(l, s, o);
    unsigned fit = o->width > (unsigned)prefix ? (o->width - (unsigned)prefix) /
                                                 (unsigned)(l->cell_width + 1) : 1;
    if (l->cols.n > fit) {
        pick(&l->cols, cols, fit > 1 ? fit - 1 : 1, o->at_given, at_col);   /* room for … */
        l->cell_width = fill_logical(l, s, o);
    }
    return 0;
}

struct first_owner {
    unsigned rank;
    uint64_t idx[TL_MAX_RANK];
    bool have;
};

static int keep_first(const uint64_t *idx, void *ctx)
{
    struct first_owner *f = ctx;
    if (!f->have) {
        memcpy(f->idx, idx, f->rank * sizeof *idx);
        f->have = true;
    }
    return 0;
}

/* Slot e's cell: its owners, found by the finder within its bound. */
static void slot_cell(struct draw_physical *p, const struct draw_side *s, unsigned caxis,
                      struct tl_finder *f, uint64_t e, struct draw_cell *c)
{
    c->index[0] = '\0';
    struct first_owner first = { .rank = s->d->rank };
    bool overlapping = s->info->overlapping;
    uint64_t n = tl_finder_find(f, e, overlapping ? OWNER_LIMIT : 1, keep_first, &first);
    c->colour = -1;
    c->more = false;
    if (n == 0) {
        c->kind = tl_finder_complete(f) ? DRAW_PADDING : DRAW_UNKNOWN;
        c->owners = 0;
        snprintf(c->label, sizeof c->label, "%s", tl_finder_complete(f) ? "\xc2\xb7" : "?");
        return;
    }
    char at[48];
    draw_index_text(first.idx, s->d->rank, c->index, sizeof c->index);
    if (p->values)                  /* the slot's value, which each owner reads */
        tl_desc_format(s->d, s->file, e, at, sizeof at);
    else
        snprintf(at, sizeof at, "%s", c->index);
    c->colour = (int)(first.idx[caxis] % DRAW_COLOURS);
    if (!overlapping) {
        /* every owned slot has exactly one element per broadcast copy */
        c->owners = p->shared_by;
        c->kind = p->shared_by > 1 ? DRAW_SHARED : DRAW_ELEMENT;
    } else {
        c->owners = n;
        c->more = !tl_finder_complete(f) || n == OWNER_LIMIT;
        c->kind = n == 1 && !c->more ? DRAW_ELEMENT
                : n == p->shared_by && !c->more ? DRAW_SHARED : DRAW_OVERLAP;
    }
    if (c->kind == DRAW_ELEMENT)
        snprintf(c->label, sizeof c->label, "%s", at);
    else
        snprintf(c->label, sizeof c->label, "%s%s%llu%s", at, c->kind == DRAW_SHARED ? "*" : "!",
                 (unsigned long long)c->owners, c->more ? "+" : "");
}

/* Whether slot e belongs to no element (the finder got to the end). */
static bool is_padding(struct tl_finder *f, const struct draw_side *s, uint64_t e)
{
    struct first_owner first = { .rank = s->d->rank };
    return tl_finder_find(f, e, 1, keep_first, &first) == 0 && tl_finder_complete(f);
}

/* A padded tensor's picture shows padding (SPEC 19: a summary that leaves
 * every padding slot out hides what the layout is about): when the rows
 * picked hold none, the row of the first padding slot (looked for among
 * PAD_SCAN slots past the head rows) and the next take two head rows'
 * places. */
#define PAD_SCAN (UINT64_C(1) << 16)
static void show_padding(struct draw_physical *p, const struct draw_side *s,
                         struct tl_finder *f, uint64_t rows)
{
    unsigned head = (p->rows.n + 1) / 2, tail = p->rows.n - head;
    uint64_t from = (uint64_t)head * p->per, to = (rows - tail) * p->per;
    if (to > p->span)
        to = p->span;
    for (uint64_t k = 0; k < (uint64_t)head * p->per && k < p->span; k++)
        if (is_padding(f, s, k))
            return;                 /* the head rows show some */
    if (to - from > PAD_SCAN)
        to = from + PAD_SCAN;
    for (uint64_t e = from; e < to; e++) {
        if (!is_padding(f, s, e))
            continue;
        uint64_t r = e / p->per;
        unsigned keep = head >= 2 ? head - 2 : 0, n = keep;
        p->rows.v[n++] = r;
        if (r + 1 < rows - tail)
            p->rows.v[n++] = r + 1;
        for (unsigned t = 0; t < tail; t++)
            p->rows.v[n++] = rows - tail + t;
        p->rows.n = n;
        return;
    }
}

static int build_physical(struct draw_physical *p, const struct draw_side *s,
                          const struct draw_opts *o, unsigned caxis, int logical_width)
{
    const struct tl_desc *d = s->d;
    p->span = s->info->span;
    p->shared_by = 1;
    int idx_width = (int)d->rank - 1;
    for (unsigned a = 0; a < d->rank; a++) {
        if (d->strides[a] == 0 && d->sizes[a] > 1)
            p->shared_by *= d->sizes[a];
        idx_width += draw_digits(d->sizes[a] - 1);
    }
    /* a slot's label: an index, and its sharing count when shared */
    p->values = o->values && s->file;
    if (p->values)                  /* as wide as the logical view's values */
        idx_width = logical_width;
    int est = idx_width + (p->shared_by > 1 || s->info->overlapping
                           ? 1 + draw_digits(s->info->overlapping ? OWNER_LIMIT : p->shared_by) + 1 : 0);
    int prefix = 4 + draw_digits(p->span - 1);
    uint64_t fit = o->width > (unsigned)prefix ? (o->width - (unsigned)prefix) / (unsigned)(est + 1)
                                               : 1;
    if (fit < 1)
        fit = 1;
    /* rows at the outermost stride that fits: the layout's own rows */
    uint64_t per = 0;
    for (unsigned k = 0; k < d->rank && !per; k++) {
        unsigned a = s->info->axis_order[k];
        uint64_t st = d->strides[a];
        if (d->sizes[a] > 1 && st >= 2 && st <= fit && st < p->span)
            per = st;
    }
    if (!per) {
        /* no row fits the width: a divisor of the narrowest row that does
         * not (at least half the width), so that each row still starts a
         * line (24 slots a row, 18 fit: 12 a line) */
        uint64_t row = 0;
        for (unsigned a = 0; a < d->rank; a++) {
            uint64_t st = d->strides[a];
            if (d->sizes[a] > 1 && st > fit && st < p->span && (!row || st < row))
                row = st;
        }
        for (uint64_t q = fit; row && q >= 2 && 2 * q >= fit && !per; q--)
            if (row % q == 0)
                per = q;
    }
    if (!per)
        per = p->span < fit ? p->span : fit;
    /* 4-bit slots go by byte: a row of whole bytes (SPEC 19) */
    p->nibbles = tl_dtype_bits(d->dtype) == 4;
    if (p->nibbles && per % 2)
        per = per * 2 <= fit || per == 1 ? per * 2 : per - 1;
    p->per = per;
    uint64_t rows = (p->span + per - 1) / per;
    uint64_t at_row = 0, at_slot = o->at_given ? tl_desc_elem(d, o->at) : 0;
    if (o->at_given)
        at_row = at_slot / per;
    pick(&p->rows, rows, MAX_PHYS_ROWS, o->at_given, at_row);
    struct tl_finder *f = tl_finder_new(d);
    if (!f)
        return TL_E_NOMEM;
    tl_finder_limit(f, OWNER_WORK);
    if (!o->at_given && s->info->padded && p->rows.n < rows)
        show_padding(p, s, f, rows);
    p->cells = calloc((size_t)p->rows.n * per, sizeof *p->cells);
    if (!p->cells) {
        tl_finder_free(f);
        return TL_E_NOMEM;
    }
    int w = 1;
    for (unsigned r = 0; r < p->rows.n; r++) {
        for (uint64_t k = 0; k < per; k++) {
            struct draw_cell *c = &p->cells[r * per + k];
            uint64_t e = p->rows.v[r] * per + k;
            if (e >= p->span) {
                c->kind = DRAW_PADDING;
                c->colour = -1;
                c->label[0] = '\0';
                continue;
            }
            slot_cell(p, s, caxis, f, e, c);
            c->at = o->at_given && e == at_slot;
            int len = (int)strlen(c->label) - (c->kind == DRAW_PADDING);  /* "·" is 2 bytes */
            if (len > w)
                w = len;
        }
    }
    tl_finder_free(f);
    p->cell_width = w;
    return 0;
}

int draw_model_build(struct draw_model *m, const struct draw_side *side,
                     const struct draw_opts *o)
{
    memset(m, 0, sizeof *m);
    m->side = side;
    int rc = build_logical(&m->logical, side, o);
    if (!rc)
        rc = build_physical(&m->physical, side, o, m->logical.colour_axis,
                            m->logical.cell_width);
    if (rc)
        draw_model_free(m);
    return rc;
}

void draw_model_free(struct draw_model *m)
{
    free(m->logical.cells);
    free(m->physical.cells);
    m->logical.cells = NULL;
    m->physical.cells = NULL;
}
