/*
 * text.c - a picture in the terminal: the model's cells as lines, coloured
 * with ANSI escapes (24-bit foreground colours) when asked, readable
 * without them: padding, shared and overlapping slots have marks of
 * their own, and a legend says what they mean.
 */
#include <string.h>

#include "draw.h"

#define ELLIPSIS "\xe2\x80\xa6"     /* … */

/* Columns a label takes: UTF-8 continuation bytes take none. */
static int columns(const char *s)
{
    int n = 0;
    for (; *s; s++)
        n += ((unsigned char)*s & 0xc0) != 0x80;
    return n;
}

static void pad(FILE *f, int n)
{
    for (; n > 0; n--)
        fputc(' ', f);
}

/* A cell right-aligned in width w, coloured as its kind and colour ask. */
static void cell(FILE *f, const struct draw_cell *c, int w, bool color)
{
    pad(f, w - columns(c->label));
    if (!color || !c->label[0]) {
        fputs(c->label, f);
        return;
    }
    if (c->kind == DRAW_PADDING || c->kind == DRAW_UNKNOWN) {
        fprintf(f, "\x1b[2m%s\x1b[0m", c->label);
        return;
    }
    uint32_t rgb = draw_palette[c->colour];
    fprintf(f, "\x1b[%s%s38;2;%u;%u;%um%s\x1b[0m", c->kind == DRAW_OVERLAP ? "1;4;" : "",
            c->at ? "7;" : "", rgb >> 16, (rgb >> 8) & 0xff, rgb & 0xff, c->label);
}

/* Whether pick i is not the one after pick i-1 (an ellipsis goes between). */
static bool gap_before(const struct draw_pick *p, unsigned i)
{
    return i > 0 ? p->v[i] != p->v[i - 1] + 1 : false;
}

static void ranges_left_out(char *buf, size_t n, const struct draw_pick *p, const char *what)
{
    size_t k = strlen(buf);
    if (p->n == p->total || k >= n)
        return;
    snprintf(buf + k, n - k, "%s%llu of %llu %s", k ? ", " : "",
             (unsigned long long)(p->total - p->n), (unsigned long long)p->total, what);
}

static void print_logical(FILE *f, const struct draw_model *m, const struct draw_opts *o)
{
    const struct draw_logical *l = &m->logical;
    const struct tl_desc *d = m->side->d;
    char row[24], col[24], colour[24];
    draw_axis_name(m->side, l->col_axis, col, sizeof col);
    draw_axis_name(m->side, l->colour_axis, colour, sizeof colour);
    if (l->row_axis >= 0) {
        draw_axis_name(m->side, (unsigned)l->row_axis, row, sizeof row);
        fprintf(f, "logical view: rows %s, columns %s; each cell the element's %s\n", row, col,
                o->values && m->side->file ? "value" : "offset");
    } else {
        fprintf(f, "logical view: %s; each cell the element's %s\n", col,
                o->values && m->side->file ? "value" : "offset");
    }
    int rw = draw_digits(l->rows.total - 1);
    const struct draw_cell *c = l->cells;
    for (unsigned g = 0; g < l->grids.n; g++) {
        if (g)
            fputc('\n', f);
        if (gap_before(&l->grids, g))
            fprintf(f, "  " ELLIPSIS "\n\n");
        char title[160];
        draw_grid_title(l, d, l->grids.v[g], title, sizeof title);
        if (title[0])
            fprintf(f, "  %s\n", title);
        /* the column indices */
        pad(f, 2 + rw + 2);
        for (unsigned k = 0; k < l->cols.n; k++) {
            if (gap_before(&l->cols, k)) {
                pad(f, l->cell_width - 1);
                fputs(ELLIPSIS " ", f);
            }
            fprintf(f, "%*llu%s", l->cell_width, (unsigned long long)l->cols.v[k],
                    k + 1 < l->cols.n ? " " : "");
        }
        fputc('\n', f);
        for (unsigned r = 0; r < l->rows.n; r++) {
            if (gap_before(&l->rows, r))
                fprintf(f, "  %*s\n", rw, ELLIPSIS);
            fprintf(f, "  %*llu  ", rw, (unsigned long long)l->rows.v[r]);
            for (unsigned k = 0; k < l->cols.n; k++, c++) {
                if (gap_before(&l->cols, k)) {
                    pad(f, l->cell_width - 1);
                    fputs(ELLIPSIS " ", f);
                }
                cell(f, c, l->cell_width, o->color);
                if (k + 1 < l->cols.n)
                    fputc(' ', f);
            }
            fputc('\n', f);
        }
    }
    char out[256] = "";
    ranges_left_out(out, sizeof out, &l->grids, "grids");
    if (l->row_axis >= 0)
        ranges_left_out(out, sizeof out, &l->rows, "rows");
    ranges_left_out(out, sizeof out, &l->cols, "columns");
    if (out[0])
        fprintf(f, "  (left out: %s)\n", out);
}

static void print_physical(FILE *f, const struct draw_model *m, const struct draw_opts *o)
{
    const struct draw_physical *p = &m->physical;
    const struct tl_desc *d = m->side->d;
    char names[TL_MAX_RANK * 8] = "";
    for (unsigned a = 0; a < d->rank; a++) {
        char n[24];
        if (m->side->axes)                      /* its own letter, or its position */
            snprintf(n, sizeof n, "%c", m->side->axes[a]);
        else
            draw_axis_name(m->side, a, n, sizeof n);
        snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", a ? "," : "", n);
    }
    const char *bytes = p->nibbles ? " (two a byte, low nibble first, bytes between |)" : "";
    if (p->values)
        fprintf(f, "physical view: slots 0..%llu in buffer order%s, %llu a row; each slot its "
                "value\n", (unsigned long long)(p->span - 1), bytes, (unsigned long long)p->per);
    else
        fprintf(f, "physical view: slots 0..%llu in buffer order%s, %llu a row; each slot its "
                "element's index (%s)\n", (unsigned long long)(p->span - 1), bytes,
                (unsigned long long)p->per, names);
    int ow = draw_digits(p->span - 1);
    for (unsigned r = 0; r < p->rows.n; r++) {
        if (gap_before(&p->rows, r))
            fprintf(f, "  %*s\n", ow, ELLIPSIS);
        fprintf(f, "  %*llu  ", ow, (unsigned long long)(p->rows.v[r] * p->per));
        /* the row's last slot that is in the buffer: nothing after it */
        uint64_t last = p->per;
        while (last > 0 && !p->cells[r * p->per + last - 1].label[0])
            last--;
        for (uint64_t k = 0; k < last; k++) {
            const struct draw_cell *c = &p->cells[r * p->per + k];
            /* an index left-aligned, so that it reads from its start; a value
             * right-aligned, as the logical view aligns them */
            int w = columns(c->label);
            bool right = p->values && c->kind != DRAW_PADDING && c->kind != DRAW_UNKNOWN;
            if (right)
                pad(f, p->cell_width - w);
            cell(f, c, w, o->color);
            if (k + 1 < last)
                pad(f, right ? 1 : p->cell_width - w + 1);
            if (p->nibbles && k % 2 && k + 1 < last)      /* a byte's two slots end */
                fputs("| ", f);
        }
        fputc('\n', f);
    }
    char out[128] = "";
    ranges_left_out(out, sizeof out, &p->rows, "buffer rows");
    if (out[0])
        fprintf(f, "  (left out: %s)\n", out);
}

static void print_title(FILE *f, const struct draw_side *s, const char *role,
                        const struct draw_opts *o)
{
    const struct tl_desc *d = s->d;
    fprintf(f, "%s%s: %s, sizes ", role, s->name, tl_dtype_name(d->dtype));
    for (unsigned a = 0; a < d->rank; a++)
        fprintf(f, "%s%llu", a ? "," : "", (unsigned long long)d->sizes[a]);
    fprintf(f, ", strides ");
    for (unsigned a = 0; a < d->rank; a++)
        fprintf(f, "%s%llu", a ? "," : "", (unsigned long long)d->strides[a]);
    fprintf(f, ": %s\n", tl_status_name(s->info->status));
    if (o->at_given) {
        fprintf(f, "at ");
        for (unsigned a = 0; a < d->rank; a++)
            fprintf(f, "%s%llu", a ? "," : "", (unsigned long long)o->at[a]);
        fprintf(f, ": offset %llu%s\n", (unsigned long long)tl_desc_elem(d, o->at),
                o->color ? " (shown in reverse video)" : "");
    }
    fputc('\n', f);
}

/* Which kinds of cell a physical view has. */
static void print_legend(FILE *f, const struct draw_model *m, unsigned kinds,
                         const struct draw_opts *o)
{
    static const struct { enum draw_kind kind; const char *mark, *text; } marks[] = {
        { DRAW_PADDING, "\xc2\xb7  ", "padding: no element's slot" },
        { DRAW_SHARED, "I*N", "the slot of N elements, shared through broadcast (stride 0)" },
        { DRAW_OVERLAP, "I!N", "the slot of N elements that overlap (N+: at least N)" },
        { DRAW_UNKNOWN, "?  ", "a slot whose owners were not searched out (too many paths)" },
    };
    const char *head = "legend: ";
    for (size_t i = 0; i < sizeof marks / sizeof marks[0]; i++) {
        if (!(kinds & (1u << marks[i].kind)))
            continue;
        fprintf(f, "%s%s  %s\n", head, marks[i].mark, marks[i].text);
        head = "        ";
    }
    if (o->color) {
        char colour[24];
        draw_axis_name(m->side, m->logical.colour_axis, colour, sizeof colour);
        fprintf(f, "%scolour: the %s index (the same in both views; 8 colours, then again)\n",
                head, colour);
    }
}

/* A tensor's blocks: the first four and the last four in file order, each
 * with its bytes and elements, then one block's fields. */
static void print_blocks(FILE *f, const struct draw_blocks *b)
{
    fprintf(f, "\nstored view: %s, %llu block%s of %u elements in %u bytes, file bytes "
            "%llu..%llu\n", b->type, (unsigned long long)b->count, b->count == 1 ? "" : "s",
            b->block, b->bytes, (unsigned long long)b->at,
            (unsigned long long)(b->at + b->count * b->bytes));
    fprintf(f, "  %6s  %-22s  %s\n", "block", "bytes", "elements (row-major numbers)");
    for (uint64_t k = 0; k < b->count; k++) {
        if (b->count > 8 && k == 4) {
            fprintf(f, "  %6s\n", "\u2026");
            k = b->count - 4;
        }
        char bytes[48];
        snprintf(bytes, sizeof bytes, "%llu..%llu", (unsigned long long)(b->at + k * b->bytes),
                 (unsigned long long)(b->at + (k + 1) * b->bytes));
        fprintf(f, "  %6llu  %-22s  %llu..%llu\n", (unsigned long long)k, bytes,
                (unsigned long long)(k * b->block), (unsigned long long)((k + 1) * b->block - 1));
    }
    fprintf(f, "  a block's bytes: |");
    const char *p = b->parts;
    char name[16], what[16];
    unsigned at, len;
    while (draw_next_field(&p, name, sizeof name, &at, &len, what, sizeof what))
        fprintf(f, " %s %u..%u %s |", name, at, at + len - 1, what);
    fprintf(f, "\n");
}

int draw_text(FILE *f, const struct draw_side *src, const struct draw_side *dst,
              const struct draw_opts *o)
{
    const struct draw_side *sides[2] = { src, dst };
    unsigned kinds = 0;
    for (int i = 0; i < 2 && sides[i]; i++) {
        struct draw_model m;
        int rc = draw_model_build(&m, sides[i], o);
        if (rc)
            return rc;
        if (i)
            fputc('\n', f);
        print_title(f, sides[i], dst ? (i ? "destination " : "source ") : "", o);
        print_logical(f, &m, o);
        fputc('\n', f);
        print_physical(f, &m, o);
        kinds |= draw_kinds(&m);
        if ((!dst || i) && (kinds & ~(1u << DRAW_ELEMENT) || o->color)) {
            fputc('\n', f);
            print_legend(f, &m, kinds, o);
        }
        draw_model_free(&m);
    }
    if (src->blocks)
        print_blocks(f, src->blocks);
    return 0;
}
